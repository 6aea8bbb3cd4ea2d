/* npu-emit - a quantized (or float) IR as a self-contained C header or a
 * binary model for the npukit runtime. See npu-emit(1). */
#include "ir_cli.h"

#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The runtime sources, embedded at build time (Makefile: runtime_src.c). */
extern const char npu_src_npu_half_h[], npu_src_npu_math_h[], npu_src_npu_rt_h[], npu_src_npu_rt_c[];

static const char *const kernel_names[] = {	/* the NPU_K_* names */
	"CONV_Q", "CONV_F", "ELTWISE_Q", "ELTWISE_F", "UNARY_F", "REQUANT", "QUANTIZE", "DEQUANTIZE", "LUT",
	"POOL_Q", "POOL_F", "SOFTMAX_F", "GRU_F", "LSTM_F", "CAST_F", "COPY", "FILL", "REDUCE_F", "REDUCE_Q",
	"GRU_Q", "LSTM_Q",
	"MATMUL_F", "MATMUL_Q", "GATHER", "ARGMAX", "RNN_F", "LRN_F",
	"CONV_T_Q", "CONV_T_F", "RESIZE", "PRELU_Q", "NORM_F", "POOL3_F", "CONV3_F",
	"CONV_NHWC_Q", "CONV_NHWC_F", "POOL_NHWC_Q", "POOL_NHWC_F", "RESIZE_NHWC",
	"CONV_T_NHWC_Q", "CONV_T_NHWC_F",
};
_Static_assert(sizeof kernel_names / sizeof *kernel_names == NPU_K_COUNT, "a name for every kernel");
_Static_assert(NPU_K_COUNT <= 64, "kernels_used is a 64-bit set");

typedef struct {
	const char *in, *out, *name, *format;
	bool force;
} options;

static void help(void)
{
	printf("Usage: %s [IR|-] [--name PREFIX] [--format c|bin] [-o OUT] [-v|-q]\n"
	       "Write a quantized (or float) IR as code for the npukit runtime: a self-contained\n"
	       "C99 header (stb style) or a binary model for npu_load().\n"
	       "\n"
	       "  -n, --name PREFIX   names in the header: npu_PREFIX_run, NPU_PREFIX_ARENA_SIZE, ...\n"
	       "                      (default: from the model's file name)\n"
	       "      --format F      c (default): the header; bin: the binary model\n"
	       "  -o, --out FILE      write to FILE (default: standard output)\n"
	       "  -f, --force         write a binary model even to a terminal\n"
	       "  -v, --verbose       print the memory plan (arena, lower bound, ratio) and sizes;\n"
	       "                      twice: also a timeline of the arena buffers\n"
	       "  -q, --quiet         no warnings\n"
	       "      --help          show this help and exit\n"
	       "      --version       show the version and exit\n"
	       "\n"
	       "A graph without precisions (not run through npu-quant) is emitted in float32.\n"
	       "Exit status: 0 success, 1 bad input or I/O failure, 2 usage.\n", cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static void parse_args(int argc, char **argv, options *o)
{
	enum { OPT_FORMAT = 256 };
	static const struct option longopts[] = {
		{"name", required_argument, NULL, 'n'},
		{"format", required_argument, NULL, OPT_FORMAT},
		CLI_COMMON_OPTS,
		{NULL, 0, NULL, 0},
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:o:fvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': o->name = optarg; break;
		case OPT_FORMAT: o->format = optarg; break;
		default: cli_common_option(c, argv, &o->out, &o->force, help);
		}
	}
	if (optind < argc)
		o->in = argv[optind++];
	if (optind < argc)
		cli_usage("unexpected argument '%s' (one IR at a time)", argv[optind]);
	if (!o->format)
		o->format = "c";
	if (strcmp(o->format, "c") && strcmp(o->format, "bin"))
		cli_usage("--format must be c or bin, not '%s'", o->format);
	if (o->name && !cli_c_identifier(o->name))
		cli_usage("--name must be a C identifier (letters, digits, '_'), not '%s'", o->name);
}

/* The prefix: --name, or the model file's base name made an identifier. */
static void make_name(const options *o, const ir_graph *g, char *lo, char *up, size_t size)
{
	const ir_meta *m = ir_meta_get(g, "source.file");
	const char *src = o->name ? o->name : m && m->type == IR_META_STR ? m->s : "model";
	const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	size_t n = 0;
	if (!isalpha((unsigned char)*base) && *base != '_')
		lo[n++] = 'm';
	for (; *base && *base != '.' && n + 1 < size && n < 48; base++)
		lo[n++] = isalnum((unsigned char)*base) ? (char)tolower((unsigned char)*base) : '_';
	if (o->name)	/* as given */
		snprintf(lo, size, "%s", o->name), n = strlen(lo);
	lo[n] = 0;
	for (size_t i = 0; i <= n; i++)
		up[i] = (char)toupper((unsigned char)lo[i]);
}

/* ---------------------------------------------------------------- the C header */

/* A runtime source with only the regions of the kernels used (unmarked
 * code is always kept), without its includes of the runtime's own headers
 * (the header holds them already). */
static void put_source(FILE *f, const char *p, uint64_t used)
{
	bool keep = true;
	while (*p) {
		const char *e = strchr(p, '\n'), *t = p;
		size_t len = e ? (size_t)(e - p) + 1 : strlen(p);
		while (*t == ' ' || *t == '\t')
			t++;
		if (!strncmp(t, "/* @npu-kernel ", 15)) {
			keep = false;
			for (int k = 0; k < NPU_K_COUNT; k++) {
				size_t kl = strlen(kernel_names[k]);
				for (const char *q = t + 15; q < p + len; q++)
					if (!strncmp(q, kernel_names[k], kl) && (q[kl] == ' ' || q[kl] == '*') &&
					    (q[-1] == ' ') && (used >> k & 1))
						keep = true;
			}
		} else if (!strncmp(t, "/* @npu-end */", 14)) {
			keep = true;
		} else if (keep && strncmp(p, "#include \"npu_", 14)) {
			fwrite(p, 1, len, f);
		}
		p += len;
	}
}

static const char *type_name(uint32_t t)
{
	static const char *const n[NPU_T_COUNT] = {"f32", "f16", "i8", "i16", "i32", "u8", "i64"};
	return t < NPU_T_COUNT ? n[t] : "?";
}

static void put_io_comment(FILE *f, const ir_lowered *l, const npu_io *io, int n, const char *what)
{
	for (int i = 0; i < n; i++) {
		fprintf(f, " *   %s %d '", what, i);
		cli_put_text(f, l->strings + io[i].name, NULL);
		fprintf(f, "': %s [", type_name(io[i].dtype));
		for (uint32_t k = 0; k < io[i].rank; k++)
			fprintf(f, "%s%" PRId32, k ? "," : "", io[i].shape[k]);
		fprintf(f, "], %" PRIu32 " bytes", io[i].nbytes);
		if (io[i].dtype >= NPU_T_I8 && io[i].dtype != NPU_T_I32 && io[i].dtype != NPU_T_I64)
			fprintf(f, ", real = %.9g * (q - %" PRId32 ")", (double)io[i].scale, io[i].zero_point);
		fputs("\n", f);
	}
}

static void put_words(FILE *f, const char *type, const char *name, const void *p, size_t n, bool sign)
{
	fprintf(f, "static const %s %s[%zu] = {", type, name, n ? n : 1);
	for (size_t i = 0; i < n; i++) {
		uint32_t u;
		memcpy(&u, (const uint8_t *)p + 4 * i, 4);
		if (i % 12 == 0)
			fputs("\n\t", f);
		if (sign)
			fprintf(f, "%" PRId32 ",", (int32_t)u);
		else
			fprintf(f, "%" PRIu32 "u,", u);
	}
	fputs(n ? "\n};\n" : "0};\n", f);
}

static void put_bytes(FILE *f, const uint8_t *b, size_t n)
{
	static char lut[256][5];
	static uint8_t len[256];
	if (!len[1])
		for (int i = 0; i < 256; i++)
			len[i] = (uint8_t)snprintf(lut[i], sizeof lut[i], "%d,", i);
	for (size_t i = 0; i < n; i++) {
		if (i % 24 == 0)
			fputs("\n\t", f);
		fwrite(lut[b[i]], 1, len[b[i]], f);
	}
}

static void put_string_bytes(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i % 24 == 0)
			fputs("\n\t", f);
		fprintf(f, "%d,", (unsigned char)s[i]);
	}
}

static void write_header(FILE *f, const ir_graph *g, const ir_lowered *l, const char *lo, const char *up)
{
	const npu_model *m = &l->m;
	const ir_meta *src = ir_meta_get(g, "source.file"), *tg = ir_meta_get(g, "target.name");
	const ir_meta *sc = ir_meta_get(g, "quant.scheme");
	fprintf(f, "/* npu_%s.h - generated by npu-emit (npukit %s); do not edit.\n *\n", lo, NPUKIT_VERSION);
	fputs(" * model:   ", f);
	cli_put_text(f, src && src->type == IR_META_STR ? src->s : "?", NULL);
	fputs(", target ", f);
	cli_put_text(f, tg && tg->type == IR_META_STR ? tg->s : "none", NULL);
	fputs(", ", f);
	cli_put_text(f, sc && sc->type == IR_META_STR ? sc->s : "float32", NULL);
	fprintf(f, "\n * arena:   %" PRIu32 " bytes (activations %" PRId64 ", lower bound %" PRId64
		   ", kernel scratch %" PRIu32 ")\n * weights: %" PRIu32 " bytes, %" PRIu32 " kernel calls\n",
		m->arena_size, l->plan.arena, l->plan.lower_bound, m->scratch_size, m->weight_size, m->n_ops);
	put_io_comment(f, l, m->inputs, (int)m->n_inputs, "input ");
	put_io_comment(f, l, m->outputs, (int)m->n_outputs, "output");
	fprintf(f, " *\n"
		   " * Use: in exactly one C file, #define NPU_IMPLEMENTATION before including\n"
		   " * this header. Then, with a 16-byte aligned arena of NPU_%s_ARENA_SIZE bytes:\n"
		   " *     const void *in[] = {...};  void *out[] = {...};\n"
		   " *     npu_%s_run(in, out, arena);\n"
		   " * Inputs and outputs are separate buffers (not in the arena), little-endian.\n"
		   " * Float kernels match npu-run bit for bit when built without FMA contraction\n"
		   " * (-ffp-contract=off, the default of -std=c99) and, on 32-bit x86, with\n"
		   " * -msse2 -mfpmath=sse. */\n", up, lo);
	fprintf(f, "#ifndef NPU_%s_H\n#define NPU_%s_H\n\n", up, up);
	fputs(npu_src_npu_rt_h, f);
	fprintf(f, "\n#define NPU_%s_ARENA_SIZE %" PRIu32 "u\n", up, m->arena_size);
	fprintf(f, "#define NPU_%s_WEIGHT_SIZE %" PRIu32 "u\n", up, m->weight_size);
	fprintf(f, "#define NPU_%s_NUM_INPUTS %" PRIu32 "\n", up, m->n_inputs);
	fprintf(f, "#define NPU_%s_NUM_OUTPUTS %" PRIu32 "\n", up, m->n_outputs);
	for (uint32_t i = 0; i < m->n_inputs; i++)
		fprintf(f, "#define NPU_%s_INPUT%" PRIu32 "_SIZE %" PRIu32 "u\n", up, i, m->inputs[i].nbytes);
	for (uint32_t i = 0; i < m->n_outputs; i++)
		fprintf(f, "#define NPU_%s_OUTPUT%" PRIu32 "_SIZE %" PRIu32 "u\n", up, i, m->outputs[i].nbytes);
	fprintf(f, "\n/* the model (its inputs and outputs: npu_%s_model.inputs[i], .outputs[i];\n"
		   " * a name: npu_%s_model.strings + io.name) */\n"
		   "extern const npu_model npu_%s_model;\n"
		   "void npu_%s_run(const void *const in[], void *const out[], void *arena);\n\n", lo, lo, lo, lo);
	fputs("#ifdef NPU_IMPLEMENTATION\n\n", f);
	fputs(npu_src_npu_half_h, f);
	fputs("\n", f);
	put_source(f, npu_src_npu_math_h, l->kernels_used);
	fputs("\n", f);
	put_source(f, npu_src_npu_rt_c, l->kernels_used);

	/* tables */
	char nm[128];
	fprintf(f, "\n/* ---------------------------------------------------------------- model tables */\n\n");
	fprintf(f, "static const union {\n\tuint8_t b[%zu];\n\tlong double align;\n} npu_%s_weights = {{",
		(size_t)(m->weight_size ? m->weight_size : 1), lo);
	static const uint8_t none[1];
	put_bytes(f, m->weight_size ? m->weights : none, m->weight_size ? m->weight_size : 1);
	fputs("\n}};\n\n", f);
	fprintf(f, "static const npu_tensor npu_%s_tensors[%" PRIu32 "] = {\n", lo, m->n_tensors ? m->n_tensors : 1);
	static const char *const mem[] = {"NPU_MEM_ARENA", "NPU_MEM_WEIGHT", "NPU_MEM_INPUT", "NPU_MEM_OUTPUT"};
	for (uint32_t i = 0; i < m->n_tensors; i++) {
		int t = l->tensor_of[i];
		fprintf(f, "\t{%s, %" PRIu32 "u},\t/* %" PRIu32 ": ", mem[m->tensors[i].mem & 3], m->tensors[i].offset, i);
		if (t >= 0) {
			const char *name = ir_graph_tensor(g, t)->name;
			for (const char *c = name; *c; c++)	/* no comment terminators */
				fputc(c[0] == '*' && c[1] == '/' ? '+' : (unsigned char)*c < 0x20 ? '?' : *c, f);
		} else {
			fputs("(derived)", f);
		}
		fputs(" */\n", f);
	}
	if (!m->n_tensors)
		fputs("\t{0, 0}\n", f);
	fputs("};\n\n", f);
	fprintf(f, "static const npu_op npu_%s_ops[%" PRIu32 "] = {\n", lo, m->n_ops ? m->n_ops : 1);
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const ir_node *n = ir_graph_node(g, l->op_node[i]);
		fprintf(f, "\t{NPU_K_%s, %" PRIu32 ", %" PRIu32 ", %" PRIu32 "},\t/* ", kernel_names[m->ops[i].kernel],
			m->ops[i].n_args, m->ops[i].args, m->ops[i].params);
		for (const char *c = n->name; *c; c++)
			fputc(c[0] == '*' && c[1] == '/' ? '+' : (unsigned char)*c < 0x20 ? '?' : *c, f);
		fprintf(f, " (%s) */\n", ir_op_name(n->op));
	}
	if (!m->n_ops)
		fputs("\t{0, 0, 0, 0}\n", f);
	fputs("};\n\n", f);
	snprintf(nm, sizeof nm, "npu_%s_args", lo);
	put_words(f, "int32_t", nm, m->args, m->n_args, true);
	snprintf(nm, sizeof nm, "npu_%s_params", lo);
	put_words(f, "int32_t", nm, m->params, m->n_params, true);
	for (int out = 0; out < 2; out++) {
		const npu_io *io = out ? m->outputs : m->inputs;
		uint32_t n = out ? m->n_outputs : m->n_inputs;
		fprintf(f, "static const npu_io npu_%s_%s[%" PRIu32 "] = {\n", lo, out ? "outputs" : "inputs", n ? n : 1);
		for (uint32_t i = 0; i < n; i++) {
			fprintf(f, "\t{%" PRIu32 "u, %" PRIu32 "u, %" PRIu32 "u, {", io[i].name, io[i].dtype, io[i].rank);
			for (int k = 0; k < NPU_MAX_RANK; k++)
				fprintf(f, "%s%" PRId32, k ? ", " : "", io[i].shape[k]);
			fprintf(f, "}, %af, %" PRId32 ", %" PRIu32 "u},\n", (double)io[i].scale, io[i].zero_point,
				io[i].nbytes);
		}
		if (!n)
			fputs("\t{0, 0, 0, {0}, 0.0f, 0, 0}\n", f);
		fputs("};\n", f);
	}
	fprintf(f, "static const char npu_%s_strings[%" PRIu32 "] = {", lo, l->strings_size ? l->strings_size : 1);
	put_string_bytes(f, l->strings, l->strings_size ? l->strings_size : 1);
	fputs("\n};\n\n", f);
	fprintf(f, "const npu_model npu_%s_model = {\n"
		   "\t%" PRIu32 ", %" PRIu32 ", %" PRIu32 ", %" PRIu32 ", %" PRIu32 ", %" PRIu32 ",\n"
		   "\t%" PRIu32 "u, %" PRIu32 "u, %" PRIu32 "u, %" PRIu32 "u,\n"
		   "\tnpu_%s_tensors, npu_%s_ops, npu_%s_args, npu_%s_params, npu_%s_weights.b,\n"
		   "\tnpu_%s_inputs, npu_%s_outputs, npu_%s_strings\n};\n\n",
		lo, m->n_tensors, m->n_ops, m->n_args, m->n_params, m->n_inputs, m->n_outputs, m->arena_size,
		m->scratch_offset, m->scratch_size, m->weight_size, lo, lo, lo, lo, lo, lo, lo, lo);
	fprintf(f, "void npu_%s_run(const void *const in[], void *const out[], void *arena)\n"
		   "{\n\tnpu_run(&npu_%s_model, in, out, arena);\n}\n\n", lo, lo);
	fprintf(f, "#endif /* NPU_IMPLEMENTATION */\n#endif /* NPU_%s_H */\n", up);
}

/* ---------------------------------------------------------------- the binary model */

static void put32(FILE *f, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	fwrite(b, 1, 4, f);
}

/* A table of 32-bit words (structs of uint32/int32/float fields). */
static void put_table(FILE *f, const void *p, size_t words)
{
	for (size_t i = 0; i < words; i++) {
		uint32_t u;
		memcpy(&u, (const uint8_t *)p + 4 * i, 4);
		put32(f, u);
	}
}

static void write_bin(FILE *f, const ir_lowered *l)
{
	const npu_model *m = &l->m;
	_Static_assert(sizeof(npu_tensor) == 8 && sizeof(npu_op) == 16 && sizeof(npu_io) == 56,
		       "runtime tables are packed 32-bit words");
	enum { HDR = 21 };
	size_t off[8], at = HDR * 4;
	size_t words[7] = {m->n_tensors * 2u, m->n_ops * 4u, m->n_args, m->n_params, 0, m->n_inputs * 14u,
			   m->n_outputs * 14u};
	for (int k = 0; k < 7; k++) {
		if (k == 4)
			continue;
		off[k] = at;
		at += words[k] * 4;
	}
	off[7] = at;		/* strings */
	at += l->strings_size;
	at = (at + 15) & ~(size_t)15;
	off[4] = at;		/* weights */
	uint32_t hdr[HDR] = {NPU_BIN_MAGIC, NPU_BIN_VERSION, m->n_tensors, m->n_ops, m->n_args, m->n_params,
			     m->n_inputs, m->n_outputs, m->arena_size, m->scratch_offset, m->scratch_size,
			     m->weight_size};
	for (int k = 0; k < 8; k++)
		hdr[12 + k] = (uint32_t)off[k];
	hdr[20] = l->strings_size;
	put_table(f, hdr, HDR);
	put_table(f, m->tensors, words[0]);
	put_table(f, m->ops, words[1]);
	put_table(f, m->args, words[2]);
	put_table(f, m->params, words[3]);
	put_table(f, m->inputs, words[5]);
	put_table(f, m->outputs, words[6]);
	fwrite(l->strings, 1, l->strings_size, f);
	for (size_t p = off[7] + l->strings_size; p < off[4]; p++)
		fputc(0, f);
	if (m->weight_size)
		fwrite(m->weights, 1, m->weight_size, f);
}

/* ---------------------------------------------------------------- main */

static const char *in_name;

static void print_problem(void *user, const ir_graph *g, int node, const char *msg)
{
	(void)user;
	const ir_node *n = ir_graph_node(g, node);
	fprintf(stderr, "%s: %s: node '%s' (%s): error: %s\n", cli_prog, in_name, n ? n->name : "?",
		n ? ir_op_name(n->op) : "?", msg);
}

int main(int argc, char **argv)
{
	options o = {0};
	ir_diag d;
	cli_init("npu-emit", argc, argv);
	parse_args(argc, argv, &o);
	in_name = cli_name(o.in);
	ir_graph *g = cli_read_ir(o.in);
	if (!g)
		return CLI_FAIL;
	int rc = CLI_FAIL;
	bool bin = !strcmp(o.format, "bin");
	if (!ir_graph_is_lowered(g)) {	/* a float graph: float32 kernels */
		cli_info(1, "%s: not quantized: emitting float32 kernels", in_name);
		for (int i = 0; i < ir_graph_node_count(g); i++)
			ir_graph_node(g, i)->precision = IR_PREC_F32;
	}
	ir_lowered l;
	if (ir_lower(g, &l, print_problem, NULL, &d)) {
		if (d.node < 0)
			cli_diag(g, in_name, &d);
		ir_graph_free(g);
		return CLI_FAIL;
	}
	char lo[80], up[80];
	make_name(&o, g, lo, up, sizeof lo);
	if (cli_verbose >= 1) {
		fprintf(stderr, "%s: %s: ", cli_prog, in_name);
		cli_print_plan(stderr, g, &l.plan, cli_verbose >= 2);
		fprintf(stderr, "%s: %s: arena %" PRIu32 " bytes (activations %" PRId64 " + kernel scratch %" PRIu32
			"), weights %" PRIu32 " bytes, %" PRIu32 " kernel calls\n", cli_prog, in_name, l.m.arena_size,
			l.plan.arena, l.m.scratch_size, l.m.weight_size, l.m.n_ops);
	}
	cli_output out;
	if (cli_output_open(&out, o.out, bin, o.force) == 0) {
		if (bin)
			write_bin(out.f, &l);
		else
			write_header(out.f, g, &l, lo, up);
		if (cli_output_commit(&out) == 0)
			rc = CLI_OK;
	}
	ir_lowered_free(&l);
	ir_graph_free(g);
	return rc;
}
