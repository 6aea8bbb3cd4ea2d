/* npu-emit - a quantized (or float) IR as a self-contained C header or a
 * binary model for the npukit runtime. See npu-emit(1). */
#include "config/target.h"
#include "ir_cli.h"
#include "ir_plugin.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The runtime sources, embedded at build time (Makefile: runtime_src.c). */
extern const char npu_src_npu_half_h[], npu_src_npu_math_h[], npu_src_npu_rt_h[], npu_src_npu_rt_c[];

static const char *const kernel_names[] = {	/* the NPU_K_* names */
	"CONV_Q", "CONV_F", "ELTWISE_Q", "ELTWISE_F", "UNARY_F", "REQUANT", "QUANTIZE", "DEQUANTIZE", "LUT",
	"POOL_Q", "POOL_F", "SOFTMAX_F", "GRU_F", "LSTM_F", "CAST_F", "COPY", "FILL", "REDUCE_F", "REDUCE_Q",
	"GRU_Q", "LSTM_Q",
	"MATMUL_F", "MATMUL_Q", "GATHER", "ARGMAX", "RNN_F", "LRN_F",
	"CONV_T_Q", "CONV_T_F", "RESIZE", "PRELU_Q", "NORM_F", "POOL3_F", "CONV3_F",
	"CONV_NHWC_Q", "CONV_NHWC_F", "POOL_NHWC_Q", "POOL_NHWC_F", "RESIZE_NHWC",
	"CONV_T_NHWC_Q", "CONV_T_NHWC_F", "CUSTOM",
};
_Static_assert(sizeof kernel_names / sizeof *kernel_names == NPU_K_COUNT, "a name for every kernel");
_Static_assert(NPU_K_COUNT <= 64, "kernels_used is a 64-bit set");

typedef struct {
	const char *in, *out, *name, *format, *weights;
	bool force;
	uint32_t scratch_max;	/* 0: from the target's sram_bytes, if any */
} options;

static void help(void)
{
	printf("Usage: %s [IR|-] [--name PREFIX] [--format c|bin] [--weights FILE] [--scratch-max BYTES]\n"
	       "                [-o OUT] [-v|-q]\n"
	       "Write a quantized (or float) IR as code for the npukit runtime: a self-contained\n"
	       "C99 header (stb style) or a binary model for npu_load().\n"
	       "\n"
	       "  -n, --name PREFIX   names in the header: npu_PREFIX_run, NPU_PREFIX_ARENA_SIZE, ...\n"
	       "                      (default: from the model's file name)\n"
	       "      --format F      c (default): the header; bin: the binary model\n"
	       "      --weights FILE  the header without the weights: they go to FILE, raw bytes\n"
	       "                      (or, for FILE.c, a C source defining npu_PREFIX_weights)\n"
	       "                      for the linker (.incbin, objcopy -I binary) or a loader\n"
	       "      --scratch-max BYTES  bound the kernels' scratch area (convolutions take smaller\n"
	       "                      tiles or slower paths); default: what the target profile's\n"
	       "                      sram_bytes leaves beside the activations, else no bound\n"
	       "  -o, --out FILE      write to FILE (default: standard output)\n"
	       "  -f, --force         write a binary model even to a terminal\n"
	       "  -v, --verbose       print the memory plan (arena, lower bound, ratio) and sizes;\n"
	       "                      twice: also a timeline of the arena buffers\n"
	       "  -q, --quiet         no warnings\n"
	       "      --help          show this help and exit\n"
	       "  -V, --version       show the version and exit\n"
	       "\n"
	       "A graph without precisions (not run through npu-quant) is emitted in float32.\n"
	       "Exit status: 0 success, 1 bad input or I/O failure, 2 usage.\n", cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static void parse_args(int argc, char **argv, options *o)
{
	enum { OPT_FORMAT = 256, OPT_WEIGHTS, OPT_SCRATCH_MAX };
	static const struct option longopts[] = {
		{"name", required_argument, NULL, 'n'},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"weights", required_argument, NULL, OPT_WEIGHTS},
		{"scratch-max", required_argument, NULL, OPT_SCRATCH_MAX},
		CLI_COMMON_OPTS,
		{NULL, 0, NULL, 0},
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:o:fVvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': o->name = optarg; break;
		case OPT_FORMAT: o->format = optarg; break;
		case OPT_WEIGHTS: o->weights = optarg; break;
		case OPT_SCRATCH_MAX: {
			char *e;
			errno = 0;
			unsigned long long v = strtoull(optarg, &e, 10);
			if (!isdigit((unsigned char)optarg[0]) || *e || errno || v < 1 || v > INT32_MAX)
				cli_usage("--scratch-max must be a byte count from 1 to %d, not '%s'", INT32_MAX, optarg);
			o->scratch_max = (uint32_t)v;
			break;
		}
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
	if (o->weights && strcmp(o->format, "c"))
		cli_usage("--weights goes with --format c (a binary model holds its weights)");
	if (o->weights && (!*o->weights || !strcmp(o->weights, "-")))
		cli_usage("--weights needs a file name");
	if (o->weights && o->out && strcmp(o->out, "-") && !strcmp(o->weights, o->out))
		cli_usage("--weights and -o name the same file '%s'", o->out);
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

/* Bytes as string literals, which compilers take in as whole tokens (one
 * integer constant per byte costs ten times the time and five times the
 * memory): a struct of rows of ROW bytes, each row one string literal (C99
 * promises literals of 4095 characters, -pedantic warns beyond) split into
 * lines of 64 bytes, then the remaining bytes; char arrays have no padding
 * between them, so the struct holds exactly n bytes. Bytes other than plain
 * printable characters are 3-digit octal escapes (a following digit cannot
 * extend them); '?' too (no trigraphs). */
enum { ROW = 4032, ROW_LINE = 64 };

static void put_literal(FILE *f, const uint8_t *b, size_t n, const char *indent)
{
	static char esc[256][5];
	if (!esc[0][0])
		for (int i = 0; i < 256; i++) {
			if (i >= 0x20 && i < 0x7f && i != '\\' && i != '"' && i != '?')
				esc[i][0] = (char)i;
			else
				snprintf(esc[i], sizeof esc[i], "\\%03o", i);
		}
	fputs(indent, f);
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		if (i && i % ROW_LINE == 0)
			fprintf(f, "\"\n%s\"", indent);
		fputs(esc[b[i]], f);
	}
	fputc('"', f);
}

/* "DECL struct TAG {...} NAME = {...};" of the n bytes at b (n >= 1). */
static void put_blob(FILE *f, const char *decl, const char *tag, const char *name, const uint8_t *b, size_t n)
{
	size_t rows = n / ROW, tail = n % ROW;
	fprintf(f, "%sstruct %s {", decl, tag);
	if (rows)
		fprintf(f, " unsigned char r[%zu][%d];", rows, ROW);
	if (tail)
		fprintf(f, " unsigned char t[%zu];", tail);
	fprintf(f, " } %s = {", name);
	if (rows) {
		fputs("{\n", f);
		for (size_t r = 0; r < rows; r++) {
			put_literal(f, b + r * ROW, ROW, "\t");
			fputs(r + 1 < rows ? ",\n" : "\n}", f);
		}
	}
	if (tail) {
		fputs(rows ? ",\n" : "\n", f);
		put_literal(f, b + rows * ROW, tail, "\t");
	}
	fputs("\n};\n", f);
}

/* The placement macros of the weights, once per translation unit. */
static void put_weight_macros(FILE *f)
{
	fputs("#ifndef NPU_ALIGN64\t/* 64-byte alignment of the weights (the runtime needs 16) */\n"
	      "#if defined(__GNUC__)\n#define NPU_ALIGN64 __attribute__((aligned(64)))\n"
	      "#elif defined(_MSC_VER)\n#define NPU_ALIGN64 __declspec(align(64))\n"
	      "#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L\n#define NPU_ALIGN64 _Alignas(64)\n"
	      "#else\n#error \"define NPU_ALIGN64 as this compiler's 64-byte alignment specifier\"\n#endif\n#endif\n"
	      "#ifndef NPU_WEIGHTS_ATTR\t/* e.g. -DNPU_WEIGHTS_SECTION='\".npu_weights\"': a linker section */\n"
	      "#if defined(NPU_WEIGHTS_SECTION) && defined(__GNUC__)\n"
	      "#define NPU_WEIGHTS_ATTR __attribute__((section(NPU_WEIGHTS_SECTION)))\n"
	      "#elif defined(NPU_WEIGHTS_SECTION)\n"
	      "#error \"NPU_WEIGHTS_SECTION needs GNU C attributes; define NPU_WEIGHTS_ATTR instead\"\n"
	      "#else\n#define NPU_WEIGHTS_ATTR\n#endif\n#endif\n", f);
}

static void put_c_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\' || c == '?' || c < 0x20 || c >= 0x7f)
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The header's side of --weights: where the model finds its weights. */
static void put_weights_extern(FILE *f, const char *lo, const char *up)
{
	fprintf(f, "/* The weights (NPU_%s_WEIGHT_SIZE bytes, npu-emit --weights NPU_%s_WEIGHTS_FILE) are\n"
		   " * not in this header. Before including it, in the NPU_IMPLEMENTATION file:\n"
		   " *   - #define NPU_%s_WEIGHTS_INCBIN: the assembler includes the file (GNU as,\n"
		   " *     ELF; .incbin searches the directory of the build and -Wa,-I DIR);\n"
		   " *   - or #define NPU_%s_WEIGHTS_SYMBOL to a symbol the link provides, e.g.\n"
		   " *     _binary_w_bin_start of objcopy -I binary (16-byte aligned; see npu-emit(1));\n"
		   " *   - or #define NPU_%s_WEIGHTS_ADDR to the address the weights are placed at;\n"
		   " *   - or nothing: link a C file with npu_%s_weights (npu-emit --weights FILE.c).\n"
		   " * Either way the bytes must be the file's, at a 16-byte aligned address. */\n", up, up, up, up, up, lo);
	fprintf(f, "#if defined(NPU_%s_WEIGHTS_ADDR)\n"
		   "#define NPU_%s_WEIGHTS_PTR ((const uint8_t *)(NPU_%s_WEIGHTS_ADDR))\n"
		   "#else\n#ifndef NPU_%s_WEIGHTS_SYMBOL\n#define NPU_%s_WEIGHTS_SYMBOL npu_%s_weights\n#endif\n"
		   "#ifdef NPU_%s_WEIGHTS_INCBIN\n", up, up, up, up, up, lo, up);
	fprintf(f, "#ifdef NPU_WEIGHTS_SECTION\n#define NPU_%s_WEIGHTS_ASM_SECTION NPU_WEIGHTS_SECTION\n"
		   "#else\n#define NPU_%s_WEIGHTS_ASM_SECTION \".rodata\"\n#endif\n"
		   "__asm__(\".pushsection \" NPU_%s_WEIGHTS_ASM_SECTION \",\\\"a\\\"\\n\\t.balign 64\\n\"\n"
		   "\t\"\\t.globl npu_%s_weights\\nnpu_%s_weights:\\n\\t.incbin \\\"\" NPU_%s_WEIGHTS_FILE \"\\\"\\n\"\n"
		   "\t\"\\t.popsection\\n\");\n#endif\n", up, up, up, lo, lo, up);
	fprintf(f, "extern const struct npu_%s_weights_s NPU_%s_WEIGHTS_SYMBOL;\n"
		   "#define NPU_%s_WEIGHTS_PTR ((const uint8_t *)(const void *)&NPU_%s_WEIGHTS_SYMBOL)\n#endif\n\n",
		lo, up, up, up);
}

static const char *in_name;

/* The op plugin kernel of CUSTOM op i (NULL: not a CUSTOM op). */
static const ir_plugin *custom_of(const ir_lowered *l, uint32_t i, int *fn, bool *i8)
{
	if (l->m.ops[i].kernel != NPU_K_CUSTOM)
		return NULL;
	*fn = l->m.params[l->m.ops[i].params + NPU_CU_FN];
	return ir_custom_fn_plugin(*fn, i8);
}

/* Every CUSTOM op's plugin has C source and kernel names for the header
 * (else a message naming the node). */
static int custom_check(const ir_graph *g, const ir_lowered *l)
{
	int bad = 0, fn;
	bool i8;
	for (uint32_t i = 0; i < l->m.n_ops; i++) {
		const ir_plugin *pl = custom_of(l, i, &fn, &i8);
		if (!pl)
			continue;
		const npu_plugin_op *op = pl->desc->impl;
		const char *name = i8 ? op->c_i8 : op->c_f32;
		if (!op->c_source || !name || !cli_c_identifier(name)) {
			ir_diag d = {.node = l->op_node[i], .tensor = -1};
			snprintf(d.msg, sizeof d.msg, "op plugin '%s' (%s) gives no C source or %s kernel name for npu.h",
				 pl->desc->name, pl->path, i8 ? "int8" : "float");
			cli_diag(g, in_name, &d);
			bad++;
		}
	}
	return bad ? -1 : 0;
}

/* The plugin of custom op i if no earlier op names the same plugin
 * (by_fn: the same kernel number), else NULL. */
static const ir_plugin *custom_first(const ir_lowered *l, uint32_t i, bool by_fn, int *fn, bool *i8)
{
	const ir_plugin *pl = custom_of(l, i, fn, i8);
	for (uint32_t j = 0; pl && j < i; j++) {
		int fj;
		bool bj;
		const ir_plugin *pj = custom_of(l, j, &fj, &bj);
		if (by_fn ? pj && fj == *fn : pj == pl)
			return NULL;
	}
	return pl;
}

/* The op plugins' C source (once per plugin) and the model's custom
 * function calling their kernels by number. */
static void put_custom(FILE *f, const ir_lowered *l, const char *lo)
{
	int fn;
	bool i8;
	fprintf(f, "\n/* ---------------------------------------------------------------- op plugins */\n\n"
		   "#include <math.h>\n#include <stdint.h>\n#include <string.h>\n\n");
	for (uint32_t i = 0; i < l->m.n_ops; i++) {
		const ir_plugin *pl = custom_first(l, i, false, &fn, &i8);
		if (!pl)
			continue;
		fprintf(f, "/* op plugin %s version %u: ", pl->desc->name, pl->desc->version);
		cli_put_text(f, pl->desc->summary ? pl->desc->summary : "", NULL);
		fprintf(f, " */\n%s\n", ((const npu_plugin_op *)pl->desc->impl)->c_source);
	}
	fprintf(f, "static void npu_%s_custom(uint32_t fn, const void *const in[], void *const out[], const int32_t *p)\n"
		   "{\n", lo);
	for (uint32_t i = 0; i < l->m.n_ops; i++) {	/* a plugin's other kernel is unused */
		const ir_plugin *pl = custom_first(l, i, false, &fn, &i8);
		const npu_plugin_op *op = pl ? pl->desc->impl : NULL;
		for (int k = 0; op && k < 2; k++) {
			const char *name = k ? op->c_i8 : op->c_f32;
			if (name && cli_c_identifier(name))
				fprintf(f, "\t(void)%s;\n", name);
		}
	}
	fputs("\tswitch (fn) {\n", f);
	for (uint32_t i = 0; i < l->m.n_ops; i++) {
		const ir_plugin *pl = custom_first(l, i, true, &fn, &i8);
		if (!pl)
			continue;
		const npu_plugin_op *op = pl->desc->impl;
		fprintf(f, "\tcase %d: %s(in, out, p); break;\n", fn, i8 ? op->c_i8 : op->c_f32);
	}
	fputs("\tdefault: break;\n\t}\n}\n", f);
}

static void write_header(FILE *f, const ir_graph *g, const ir_lowered *l, const char *lo, const char *up,
			 const char *wfile)
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
		   " * -msse2 -mfpmath=sse. -DNPU_F32_FMA makes float convolutions fuse each\n"
		   " * multiply-add (fmaf; FMA instructions on AVX2+FMA, AVX-512, NEON, else the\n"
		   " * portable C): faster, the same bits on every ISA, but not npu-run's (the\n"
		   " * last bits differ). */\n", up, lo);
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
	if (wfile) {
		fprintf(f, "/* the weights are not in this header (npu-emit --weights) */\n"
			   "#ifndef NPU_%s_WEIGHTS_FILE\n#define NPU_%s_WEIGHTS_FILE ", up, up);
		put_c_string(f, wfile);
		fputs("\n#endif\n", f);
	}
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
	bool custom = l->kernels_used >> NPU_K_CUSTOM & 1;
	if (custom)
		put_custom(f, l, lo);

	/* tables */
	char nm[128];
	fprintf(f, "\n/* ---------------------------------------------------------------- model tables */\n\n");
	static const uint8_t none[1];
	char tag[128];
	snprintf(tag, sizeof tag, "npu_%s_weights_s", lo);
	snprintf(nm, sizeof nm, "npu_%s_weights", lo);
	if (wfile) {
		put_weights_extern(f, lo, up);
	} else {
		put_weight_macros(f);
		put_blob(f, "NPU_ALIGN64 NPU_WEIGHTS_ATTR static const ", tag, nm, m->weight_size ? m->weights : none,
			 m->weight_size ? m->weight_size : 1);
		fprintf(f, "#define NPU_%s_WEIGHTS_PTR ((const uint8_t *)(const void *)&npu_%s_weights)\n\n", up, lo);
	}
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
	snprintf(tag, sizeof tag, "npu_%s_strings_s", lo);
	snprintf(nm, sizeof nm, "npu_%s_strings", lo);
	put_blob(f, "static const ", tag, nm, l->strings_size ? (const uint8_t *)l->strings : none,
		 l->strings_size ? l->strings_size : 1);
	fputs("\n", f);
	fprintf(f, "const npu_model npu_%s_model = {\n"
		   "\t%" PRIu32 ", %" PRIu32 ", %" PRIu32 ", %" PRIu32 ", %" PRIu32 ", %" PRIu32 ",\n"
		   "\t%" PRIu32 "u, %" PRIu32 "u, %" PRIu32 "u, %" PRIu32 "u,\n"
		   "\tnpu_%s_tensors, npu_%s_ops, npu_%s_args, npu_%s_params, NPU_%s_WEIGHTS_PTR,\n"
		   "\tnpu_%s_inputs, npu_%s_outputs, (const char *)(const void *)&npu_%s_strings,\n\t",
		lo, m->n_tensors, m->n_ops, m->n_args, m->n_params, m->n_inputs, m->n_outputs, m->arena_size,
		m->scratch_offset, m->scratch_size, m->weight_size, lo, lo, lo, lo, up, lo, lo, lo);
	if (custom)
		fprintf(f, "npu_%s_custom\n};\n\n", lo);
	else
		fputs("0\n};\n\n", f);
	fprintf(f, "void npu_%s_run(const void *const in[], void *const out[], void *arena)\n"
		   "{\n\tnpu_run(&npu_%s_model, in, out, arena);\n}\n\n", lo, lo);
	fprintf(f, "#endif /* NPU_IMPLEMENTATION */\n#endif /* NPU_%s_H */\n", up);
}

/* --weights FILE.c: a C source defining the weights the header declares. */
static void write_weights_c(FILE *f, const ir_lowered *l, const char *lo)
{
	static const uint8_t none[1];
	char tag[128], nm[128];
	fprintf(f, "/* the weights of npu_%s.h - generated by npu-emit (npukit %s); do not edit.\n"
		   " * Link with the file that includes the header under NPU_IMPLEMENTATION. */\n", lo, NPUKIT_VERSION);
	put_weight_macros(f);
	snprintf(tag, sizeof tag, "npu_%s_weights_s", lo);
	snprintf(nm, sizeof nm, "npu_%s_weights", lo);
	fprintf(f, "extern const struct %s %s;\n", tag, nm);
	put_blob(f, "NPU_ALIGN64 NPU_WEIGHTS_ATTR const ", tag, nm, l->m.weight_size ? l->m.weights : none,
		 l->m.weight_size ? l->m.weight_size : 1);
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
	/* the scratch bound: --scratch-max, or the SRAM of the target the IR
	 * was quantized for (a profile no longer found bounds nothing) */
	ir_lower_opts lo_opts = {.scratch_max = o.scratch_max};
	const ir_meta *tg = ir_meta_get(g, "target.name");
	if (!o.scratch_max && tg && tg->type == IR_META_STR) {
		npu_target t;
		if (npu_target_load(tg->s, &t, &d) == 0) {
			lo_opts.sram_bytes = t.sram_bytes;
			npu_target_free(&t);
		} else
			cli_warn(in_name, "target '%s' not found: kernel scratch not bounded by its SRAM", tg->s);
	}
	ir_lowered l;
	if (ir_lower_with(g, &lo_opts, &l, print_problem, NULL, &d)) {
		if (d.node < 0)
			cli_diag(g, in_name, &d);
		ir_graph_free(g);
		return CLI_FAIL;
	}
	if (o.scratch_max && l.m.scratch_size > o.scratch_max)
		cli_warn(in_name, "kernel scratch %" PRIu32 " bytes exceeds --scratch-max %" PRIu32
			 " (kernels that cannot keep to it need it: float32 convolutions beyond their panels,"
			 " pooling, recurrent layers)",
			 l.m.scratch_size, o.scratch_max);
	if (custom_check(g, &l)) {
		ir_lowered_free(&l);
		ir_graph_free(g);
		return CLI_FAIL;
	}
	if (bin && (l.kernels_used >> NPU_K_CUSTOM & 1))
		cli_warn(in_name, "the binary model calls op plugin kernels: its host sets npu_model.custom");
	char lo[80], up[80];
	make_name(&o, g, lo, up, sizeof lo);
	if (cli_verbose >= 1) {
		fprintf(stderr, "%s: %s: ", cli_prog, in_name);
		cli_print_plan(stderr, g, &l.plan, cli_verbose >= 2);
		fprintf(stderr, "%s: %s: arena %" PRIu32 " bytes (activations %" PRId64 " + kernel scratch %" PRIu32
			"), weights %" PRIu32 " bytes, %" PRIu32 " kernel calls\n", cli_prog, in_name, l.m.arena_size,
			l.plan.arena, l.m.scratch_size, l.m.weight_size, l.m.n_ops);
	}
	cli_output out, wout;
	struct stat st;
	size_t wl = o.weights ? strlen(o.weights) : 0;
	bool wc = wl > 2 && !strcmp(o.weights + wl - 2, ".c");
	if (o.weights && cli_output_open(&wout, o.weights, !wc, true) != 0) {
		o.weights = NULL;	/* reported */
	} else if (cli_output_open(&out, o.out, bin, o.force) != 0) {
		if (o.weights)
			cli_output_abort(&wout);
	} else {
		if (bin)
			write_bin(out.f, &l);
		else
			write_header(out.f, g, &l, lo, up, o.weights);
		if (o.weights) {
			if (wc)
				write_weights_c(wout.f, &l, lo);
			else
				fwrite(l.m.weights, 1, l.m.weight_size, wout.f);
		}
		if (o.weights && cli_output_commit(&wout) != 0)
			cli_output_abort(&out);
		else if (cli_output_commit(&out) == 0)
			rc = CLI_OK;
		else if (o.weights && stat(o.weights, &st) == 0 && S_ISREG(st.st_mode))
			remove(o.weights);	/* no half of a model (but never a device) */
	}
	ir_lowered_free(&l);
	ir_graph_free(g);
	return rc;
}
