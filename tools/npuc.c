/* npuc - one command from a gxnpuc-style config.yaml to npu.h: import,
 * fuse, quantize and emit (NationalChip gxnpuc's interface). See npuc(1).
 *
 * Import, fuse, the input layout change, quantization, the memory budget
 * and -q run in this process through libir and formats/; the header (or
 * binary model) is written by npu-emit, and -v/-m/-w are npu-dump's views,
 * run as child processes found next to this program (the writers live in
 * those programs, so the bytes are exactly theirs). */
#include "config/target.h"
#include "ir_cli.h"
#include "npy/npy.h"
#include "onnx/onnx_import.h"
#include "tf/graph.pb-c.h"
#include "tf/tf_import.h"
#include "torchscript/ts_import.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml.h>

#define MAXN 256
#define MAX_CONFIG_BYTES (1 << 20)

/* ---------------------------------------------------------------- the config */

enum { FW_TF, FW_PT, FW_ONNX };
static const char *const fw_names[] = {"TF", "PT", "ONNX"};

typedef struct {
	char *name;		/* TF/ONNX: the op name; PT: the index as text */
	ir_shape shape;
	int line;
} cfg_input;

typedef struct {
	char *name;
	double min, max;
	int line;
} cfg_range;

typedef struct {
	char *name;
	int line;
} cfg_name;

typedef struct {
	char *file, *dir;	/* the config and its directory */
	char *corename, *npu_unit, *model_file, *output_type, *output_file;
	int framework;
	cfg_input inputs[MAXN];
	int n_inputs;
	cfg_name outputs[MAXN], fp16_out[MAXN], exclude[MAXN], ncx[MAXN];
	int n_outputs, n_fp16_out, n_exclude, n_ncx;
	cfg_range wmm[MAXN];
	int n_wmm;
	bool fuse_bn, compress, conv2d_compress;
	int64_t weight_cache_size;	/* 0: not given */
	int line_of[32];	/* per key: its line (0: absent) */
} config;

/* The keys, as the vendor documentation writes them. */
enum {
	K_CORENAME, K_NPU_UNIT, K_FRAMEWORK, K_MODEL_FILE, K_OUTPUT_TYPE, K_OUTPUT_FILE, K_INPUT_OPS,
	K_OUTPUT_OPS, K_FP16_OUT_OPS, K_FUSE_BN, K_COMPRESS, K_CONV2D_COMPRESS, K_EXCLUDE_COMPRESS_OPS,
	K_WEIGHT_MIN_MAX, K_WEIGHT_CACHE_SIZE, K_INPUT_NCX_TO_NXC, K_COUNT
};
static const char *const key_names[K_COUNT] = {
	"CORENAME", "NPU_UNIT", "FRAMEWORK", "MODEL_FILE", "OUTPUT_TYPE", "OUTPUT_FILE", "INPUT_OPS",
	"OUTPUT_OPS", "FP16_OUT_OPS", "FUSE_BN", "COMPRESS", "CONV2D_COMPRESS", "EXCLUDE_COMPRESS_OPS",
	"WEIGHT_MIN_MAX", "WEIGHT_CACHE_SIZE", "INPUT_NCX_TO_NXC",
};

/* The cores gxnpuc knows (-c) and our profile for each (NULL: none yet). */
static const struct { const char *core, *profile; } cores[] = {
	{"GRUS", "grus"}, {"LEO", NULL}, {"APUS", NULL}, {"V100", NULL}, {"V120", NULL}, {"V150", NULL},
};

static char err_where[PATH_MAX + 32];	/* "FILE:LINE" of the last config error */

static int cfg_fail(const config *c, const yaml_node_t *n, ir_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int cfg_fail(const config *c, const yaml_node_t *n, ir_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	va_end(ap);
	if (n)
		snprintf(err_where, sizeof err_where, "%s:%zu", c->file, n->start_mark.line + 1);
	else
		snprintf(err_where, sizeof err_where, "%s", c->file);
	d->node = d->tensor = -1;
	return -1;
}

/* Levenshtein distance, case-insensitive. */
static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	int row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int prev = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int cur = row[j];
			int sub = prev + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
			int del = row[j] + 1, ins = row[j - 1] + 1;
			row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			prev = cur;
		}
	}
	return row[lb];
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p) {
		cli_error(NULL, "out of memory");
		exit(CLI_FAIL);
	}
	return p;
}

static int get_string(config *c, yaml_node_t *v, const char *key, char **dst, ir_diag *d)
{
	const char *s = scalar(v);
	if (!s || !*s)
		return cfg_fail(c, v, d, "%s must be a string", key);
	*dst = xstrdup(s);
	return 0;
}

static int get_bool(config *c, yaml_node_t *v, const char *key, bool *dst, ir_diag *d)
{
	const char *s = scalar(v);
	if (s && (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE")))
		return *dst = true, 0;
	if (s && (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE")))
		return *dst = false, 0;
	return cfg_fail(c, v, d, "%s must be true or false, not '%s'", key, s ? s : "(a list or mapping)");
}

static int get_number(config *c, yaml_node_t *v, const char *key, double *dst, ir_diag *d)
{
	const char *s = scalar(v);
	char *end;
	errno = 0;
	double x = s ? strtod(s, &end) : 0;
	if (!s || !*s || *end || errno || !isfinite(x))
		return cfg_fail(c, v, d, "%s: '%s' is not a number", key, s ? s : "(a list or mapping)");
	*dst = x;
	return 0;
}

/* [d0, d1, ...] */
static int get_shape(config *c, yaml_document_t *doc, yaml_node_t *v, const char *what, ir_shape *s, ir_diag *d)
{
	if (v->type != YAML_SEQUENCE_NODE)
		return cfg_fail(c, v, d, "%s: the shape must be a list such as [1, 3, 32, 32]", what);
	s->rank = 0;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *e = yaml_document_get_node(doc, *it);
		const char *t = scalar(e);
		char *end;
		errno = 0;
		long long x = t ? strtoll(t, &end, 10) : -1;
		if (!t || !*t || *end || errno || x < 1 || x > IR_MAX_DIM)
			return cfg_fail(c, e, d, "%s: dimension '%s' is not a whole number from 1 to 2^40", what, t ? t : "?");
		if (s->rank == IR_MAX_RANK)
			return cfg_fail(c, v, d, "%s: more than %d dimensions", what, IR_MAX_RANK);
		s->dim[s->rank++] = x;
	}
	if (ir_shape_numel(s) < 0)
		return cfg_fail(c, v, d, "%s: the shape is too large", what);
	return 0;
}

/* [a, b, ...] of names (or indices) */
static int get_names(config *c, yaml_document_t *doc, yaml_node_t *v, const char *key, cfg_name *out, int *n,
		     ir_diag *d)
{
	if (v->type == YAML_SCALAR_NODE && !*scalar(v))
		return 0;	/* KEY: (empty) */
	if (v->type != YAML_SEQUENCE_NODE)
		return cfg_fail(c, v, d, "%s must be a list such as [a, b]", key);
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *e = yaml_document_get_node(doc, *it);
		const char *s = scalar(e);
		if (!s || !*s)
			return cfg_fail(c, e, d, "%s: entries must be names", key);
		if (*n == MAXN)
			return cfg_fail(c, e, d, "%s: more than %d entries", key, MAXN);
		for (int k = 0; k < *n; k++)
			if (!strcmp(out[k].name, s))
				return cfg_fail(c, e, d, "%s: '%s' is given twice", key, s);
		out[*n] = (cfg_name){xstrdup(s), (int)e->start_mark.line + 1};
		(*n)++;
	}
	return 0;
}

static bool is_index(const char *s)
{
	if (!*s || strlen(s) > 5)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int parse_config_doc(yaml_document_t *doc, config *c, ir_diag *d)
{
	yaml_node_t *root = yaml_document_get_root_node(doc);
	if (!root || root->type != YAML_MAPPING_NODE)
		return cfg_fail(c, root, d, "the config is a YAML mapping of keys such as CORENAME: GRUS");
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(doc, p->key), *v = yaml_document_get_node(doc, p->value);
		const char *key = scalar(kn);
		if (!key)
			return cfg_fail(c, kn, d, "keys must be names");
		int k = 0;
		while (k < K_COUNT && strcmp(key, key_names[k]))
			k++;
		if (k == K_COUNT) {
			int best = 0, bd = 99;
			for (int j = 0; j < K_COUNT; j++) {
				int e = edit_distance(key, key_names[j]);
				if (e < bd)
					bd = e, best = j;
			}
			if (bd <= (int)strlen(key_names[best]) / 2)
				return cfg_fail(c, kn, d, "unknown key '%s' (did you mean '%s'?)", key, key_names[best]);
			return cfg_fail(c, kn, d, "unknown key '%s' (the keys are in npuc(1))", key);
		}
		if (c->line_of[k])
			return cfg_fail(c, kn, d, "%s is given twice (first on line %d)", key, c->line_of[k]);
		c->line_of[k] = (int)kn->start_mark.line + 1;
		int rc = 0;
		switch (k) {
		case K_CORENAME: rc = get_string(c, v, key, &c->corename, d); break;
		case K_NPU_UNIT: rc = get_string(c, v, key, &c->npu_unit, d); break;
		case K_MODEL_FILE: rc = get_string(c, v, key, &c->model_file, d); break;
		case K_OUTPUT_TYPE: rc = get_string(c, v, key, &c->output_type, d); break;
		case K_OUTPUT_FILE: rc = get_string(c, v, key, &c->output_file, d); break;
		case K_FRAMEWORK: {
			const char *s = scalar(v);
			c->framework = -1;
			for (int f = 0; s && f < 3; f++)
				if (!strcasecmp(s, fw_names[f]))
					c->framework = f;
			if (s && (!strcasecmp(s, "tensorflow")))
				c->framework = FW_TF;
			if (s && (!strcasecmp(s, "pytorch")))
				c->framework = FW_PT;
			if (c->framework < 0)
				rc = cfg_fail(c, v, d, "FRAMEWORK must be TF, PT or ONNX, not '%s'", s ? s : "(a list)");
			break;
		}
		case K_INPUT_OPS:
			if (v->type != YAML_MAPPING_NODE)
				return cfg_fail(c, v, d, "INPUT_OPS is a mapping such as  Feats: [1, 1, 64]");
			for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
				yaml_node_t *ik = yaml_document_get_node(doc, q->key);
				const char *name = scalar(ik);
				if (!name || !*name)
					return cfg_fail(c, ik, d, "INPUT_OPS: keys must be input names or indices");
				for (int j = 0; j < c->n_inputs; j++)
					if (!strcmp(c->inputs[j].name, name))
						return cfg_fail(c, ik, d, "INPUT_OPS: '%s' is given twice", name);
				if (c->n_inputs == MAXN)
					return cfg_fail(c, ik, d, "INPUT_OPS: more than %d inputs", MAXN);
				cfg_input *in = &c->inputs[c->n_inputs];
				char what[300];
				snprintf(what, sizeof what, "INPUT_OPS '%s'", name);
				if (get_shape(c, doc, yaml_document_get_node(doc, q->value), what, &in->shape, d))
					return -1;
				in->name = xstrdup(name);
				in->line = (int)ik->start_mark.line + 1;
				c->n_inputs++;
			}
			break;
		case K_OUTPUT_OPS: rc = get_names(c, doc, v, key, c->outputs, &c->n_outputs, d); break;
		case K_FP16_OUT_OPS: rc = get_names(c, doc, v, key, c->fp16_out, &c->n_fp16_out, d); break;
		case K_EXCLUDE_COMPRESS_OPS: rc = get_names(c, doc, v, key, c->exclude, &c->n_exclude, d); break;
		case K_INPUT_NCX_TO_NXC: rc = get_names(c, doc, v, key, c->ncx, &c->n_ncx, d); break;
		case K_FUSE_BN: rc = get_bool(c, v, key, &c->fuse_bn, d); break;
		case K_COMPRESS: rc = get_bool(c, v, key, &c->compress, d); break;
		case K_CONV2D_COMPRESS: rc = get_bool(c, v, key, &c->conv2d_compress, d); break;
		case K_WEIGHT_CACHE_SIZE: {
			double x;
			if (get_number(c, v, key, &x, d))
				return -1;
			if (x < 1 || x > 1e12 || x != floor(x))
				return cfg_fail(c, v, d, "WEIGHT_CACHE_SIZE must be a positive byte count");
			c->weight_cache_size = (int64_t)x;
			break;
		}
		case K_WEIGHT_MIN_MAX:
			if (v->type == YAML_SCALAR_NODE && !*scalar(v))
				break;
			if (v->type != YAML_MAPPING_NODE)
				return cfg_fail(c, v, d, "WEIGHT_MIN_MAX is a mapping such as  conv1/weights: [-0.5, 0.5]");
			for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
				yaml_node_t *ik = yaml_document_get_node(doc, q->key), *r = yaml_document_get_node(doc, q->value);
				const char *name = scalar(ik);
				if (!name || !*name)
					return cfg_fail(c, ik, d, "WEIGHT_MIN_MAX: keys must be weight names");
				if (c->n_wmm == MAXN)
					return cfg_fail(c, ik, d, "WEIGHT_MIN_MAX: more than %d weights", MAXN);
				if (r->type != YAML_SEQUENCE_NODE || r->data.sequence.items.top - r->data.sequence.items.start != 2)
					return cfg_fail(c, r, d, "WEIGHT_MIN_MAX '%s': expected [min, max]", name);
				cfg_range *w = &c->wmm[c->n_wmm];
				if (get_number(c, yaml_document_get_node(doc, r->data.sequence.items.start[0]), "WEIGHT_MIN_MAX",
					       &w->min, d) ||
				    get_number(c, yaml_document_get_node(doc, r->data.sequence.items.start[1]), "WEIGHT_MIN_MAX",
					       &w->max, d))
					return -1;
				if (!(w->min <= 0) || !(w->max >= 0) || !(w->max > w->min))
					return cfg_fail(c, r, d, "WEIGHT_MIN_MAX '%s': needs min <= 0 <= max and min < max", name);
				w->name = xstrdup(name);
				w->line = (int)ik->start_mark.line + 1;
				c->n_wmm++;
			}
			break;
		}
		if (rc)
			return -1;
	}
	/* required keys and values */
	static const int required[] = {K_CORENAME, K_FRAMEWORK, K_MODEL_FILE, K_OUTPUT_FILE};
	for (size_t i = 0; i < sizeof required / sizeof *required; i++)
		if (!c->line_of[required[i]])
			return cfg_fail(c, NULL, d, "%s is missing (see npuc(1))", key_names[required[i]]);
	if (c->npu_unit && strcasecmp(c->npu_unit, "NPU32"))
		return cfg_fail(c, NULL, d, "NPU_UNIT '%s': only NPU32 is known", c->npu_unit);
	if (c->output_type && strcmp(c->output_type, "c_code") && strcmp(c->output_type, "raw"))
		return cfg_fail(c, NULL, d, "OUTPUT_TYPE must be c_code or raw, not '%s'", c->output_type);
	if (c->framework == FW_TF && !c->n_outputs && !(strlen(c->model_file) > 5 &&
	    !strcmp(c->model_file + strlen(c->model_file) - 5, ".json")))
		return cfg_fail(c, NULL, d, "OUTPUT_OPS is missing (a TensorFlow GraphDef does not name its outputs)");
	if (c->framework == FW_PT) {
		for (int i = 0; i < c->n_inputs; i++)
			if (!is_index(c->inputs[i].name)) {
				snprintf(err_where, sizeof err_where, "%s:%d", c->file, c->inputs[i].line);
				return ir_fail(d, -1, -1, "INPUT_OPS: PyTorch inputs are numbered (0: [1, 3, 32, 32]), not '%s'",
					       c->inputs[i].name);
			}
		if (c->n_outputs) {
			snprintf(err_where, sizeof err_where, "%s:%d", c->file, c->line_of[K_OUTPUT_OPS]);
			return ir_fail(d, -1, -1, "OUTPUT_OPS is for TF and ONNX; PyTorch's outputs are what forward() returns");
		}
	}
	return 0;
}

static int parse_config(const char *path, config *c, ir_diag *d)
{
	uint8_t *buf;
	size_t size;
	memset(c, 0, sizeof *c);
	c->framework = -1;
	c->file = xstrdup(path);
	const char *slash = strrchr(path, '/');
	c->dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : xstrdup(".");
	if (cli_read_file(path, false, &buf, &size))
		return -2;
	if (size > MAX_CONFIG_BYTES) {
		free(buf);
		return cfg_fail(c, NULL, d, "too large for a config file");
	}
	yaml_parser_t parser;
	yaml_document_t doc;
	if (npu_yaml_check(buf, size, path, d)) {
		/* "PATH[:LINE]: message": the location goes to err_where */
		size_t n = strlen(path);
		if (!strncmp(d->msg, path, n) && d->msg[n] == ':') {
			size_t k = strspn(d->msg + n + 1, "0123456789");
			size_t loc = k && d->msg[n + 1 + k] == ':' ? n + 1 + k : n;
			snprintf(err_where, sizeof err_where, "%.*s", (int)loc, d->msg);
			memmove(d->msg, d->msg + loc + 2, strlen(d->msg + loc + 2) + 1);
		}
		free(buf);
		return -1;
	}
	if (!yaml_parser_initialize(&parser)) {
		free(buf);
		return cfg_fail(c, NULL, d, "out of memory");
	}
	yaml_parser_set_input_string(&parser, buf, size);
	int rc;
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err_where, sizeof err_where, "%s:%zu", path, parser.problem_mark.line + 1);
		rc = ir_fail(d, -1, -1, "not valid YAML: %s", parser.problem ? parser.problem : "syntax error");
	} else {
		size_t line, first;
		const char *key;
		int dup = npu_yaml_dup_key(&doc, &line, &first, &key);
		if (dup > 0)
			snprintf(err_where, sizeof err_where, "%s:%zu", path, line);
		rc = dup < 0 ? cfg_fail(c, NULL, d, "out of memory")
		   : dup ? ir_fail(d, -1, -1, "key '%s' is given twice (first on line %zu)", key, first)
			 : parse_config_doc(&doc, c, d);
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	free(buf);
	return rc;
}

/* ---------------------------------------------------------------- options */

typedef struct {
	const char *config, *keep, *name, *list_core, *list_fw, *out, *hist_dir;
	const char *samples[MAXN];
	int n_samples;
	bool list, cmpt, verbose, meminfo, weights, hist, quant;
} options;

static void help(void)
{
	printf("Usage: %s [options] CONFIG.yaml\n"
	       "       %s --list [-c CORE] [-f TF|PT|ONNX] | --cmpt | -V\n"
	       "Compile a model for an NPU from a gxnpuc-style config file: import, fuse,\n"
	       "quantize and emit OUTPUT_FILE (an npu.h C header or a binary model).\n"
	       "\n"
	       "  -v, --verbose        list the processed ops (the quantized graph)\n"
	       "  -m, --meminfo        memory per op and the arena plan\n"
	       "  -w, --weights        the weights, compressed ones included\n"
	       "  -s, --save_hist      one SVG histogram per weight tensor into npu_hists/\n"
	       "      --hist-dir DIR   the same into DIR\n"
	       "  -q, --quant          run the float and the quantized model on the samples\n"
	       "                       given with -i and print SQNR and cosine per output\n"
	       "  -i, --input FILE     a sample for -q: one .npy per input in order, or one\n"
	       "                       .npz keyed by input name\n"
	       "      --keep DIR       keep the intermediate IRs (import, fuse, quant) in DIR\n"
	       "  -n, --name PREFIX    names in the header (default: the model file's name)\n"
	       "  -o, --out FILE       write to FILE instead of OUTPUT_FILE\n"
	       "      --list           list the supported ops (with -c CORE, -f FRAMEWORK)\n"
	       "  -c, --core_name CORE  for --list: GRUS (or a profile name)\n"
	       "  -f, --framework FW   for --list: TF, PT or ONNX\n"
	       "      --cmpt           the accepted framework format versions\n"
	       "      --quiet          no warnings\n"
	       "  -V, --version        show the version and exit\n"
	       "  -h, --help           show this help and exit\n"
	       "\n"
	       "The config keys (CORENAME, FRAMEWORK, MODEL_FILE, INPUT_OPS, ...) are in npuc(1).\n"
	       "Exit status: 0 success, 1 bad config, model or I/O failure, 2 usage.\n", cli_prog, cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static void parse_args(int argc, char **argv, options *o)
{
	enum { OPT_LIST = 256, OPT_CMPT, OPT_KEEP, OPT_QUIET, OPT_HDIR };
	static const struct option longopts[] = {
		{"list", no_argument, NULL, OPT_LIST}, {"cmpt", no_argument, NULL, OPT_CMPT},
		{"core_name", required_argument, NULL, 'c'}, {"framework", required_argument, NULL, 'f'},
		{"version", no_argument, NULL, 'V'}, {"verbose", no_argument, NULL, 'v'},
		{"meminfo", no_argument, NULL, 'm'}, {"weights", no_argument, NULL, 'w'},
		{"save_hist", no_argument, NULL, 's'}, {"hist-dir", required_argument, NULL, OPT_HDIR}, {"quant", no_argument, NULL, 'q'},
		{"input", required_argument, NULL, 'i'}, {"keep", required_argument, NULL, OPT_KEEP},
		{"name", required_argument, NULL, 'n'}, {"out", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, OPT_QUIET}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:f:Vvmwsqi:n:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_LIST: o->list = true; break;
		case OPT_CMPT: o->cmpt = true; break;
		case 'c': o->list_core = optarg; break;
		case 'f': o->list_fw = optarg; break;
		case 'V': cli_print_version(); break;
		case 'v': o->verbose = true; break;
		case 'm': o->meminfo = true; break;
		case 'w': o->weights = true; break;
		case 's': o->hist = true; break;
		case OPT_HDIR: o->hist = true, o->hist_dir = optarg; break;
		case 'q': o->quant = true; break;
		case 'i':
			if (o->n_samples == MAXN)
				cli_usage("too many -i options");
			o->samples[o->n_samples++] = optarg;
			break;
		case OPT_KEEP: o->keep = optarg; break;
		case 'n': o->name = optarg; break;
		case 'o': o->out = optarg; break;
		case OPT_QUIET: cli_verbose = -1; break;
		case 'h': help(); break;
		default: cli_bad_option(c, argv);
		}
	}
	if (optind < argc)
		o->config = argv[optind++];
	if (optind < argc)
		cli_usage("unexpected argument '%s' (one config at a time)", argv[optind]);
	if ((o->list_core || o->list_fw) && !o->list)
		cli_usage("-c and -f go with --list");
	if (o->list + o->cmpt + !!o->config > 1)
		cli_usage("--list, --cmpt, -V and a config file do not go together");
	if (!o->list && !o->cmpt && !o->config)
		cli_usage("no config file given (npuc CONFIG.yaml; --help lists the options)");
	if (o->n_samples && !o->quant)
		cli_usage("-i gives samples for -q");
	if (o->quant && !o->n_samples)
		cli_usage("-q needs samples: -i FILE (one .npy per input, or an .npz keyed by input name)");
	if (o->name && !cli_c_identifier(o->name))
		cli_usage("--name must be a C identifier (letters, digits, '_'), not '%s'", o->name);
}

/* ---------------------------------------------------------------- cores and lists */

/* The profile name for CORE (case-insensitive): gxnpuc's cores, else a
 * profile of that name. NULL with the error printed. */
static const char *core_profile(const char *core, char *buf, size_t size, const char *where)
{
	for (size_t i = 0; i < sizeof cores / sizeof *cores; i++)
		if (!strcasecmp(core, cores[i].core)) {
			if (!cores[i].profile)
				return cli_error(where, "%s %s: npukit has no target profile for this core yet "
					   "(known: GRUS, or a profile in share/npu/targets)", where ? "CORENAME" : "-c",
					   cores[i].core), NULL;
			return cores[i].profile;
		}
	size_t n = 0;
	for (; core[n] && n + 1 < size; n++) {
		char ch = (char)tolower((unsigned char)core[n]);
		if (!(ch >= 'a' && ch <= 'z') && !(ch >= '0' && ch <= '9') && ch != '_' && ch != '-')
			return cli_error(where, "%s '%s' is not a core name (GRUS, ...)", where ? "CORENAME" : "-c", core), NULL;
		buf[n] = ch;
	}
	buf[n] = 0;
	return buf;
}

static int do_list(const options *o)
{
	npu_target t = {0};
	ir_diag d;
	char pbuf[64];
	int fw = -1;
	if (o->list_fw) {
		for (int f = 0; f < 3; f++)
			if (!strcasecmp(o->list_fw, fw_names[f]))
				fw = f;
		if (fw < 0)
			cli_usage("-f must be TF, PT or ONNX, not '%s'", o->list_fw);
	}
	if (o->list_core) {
		const char *p = core_profile(o->list_core, pbuf, sizeof pbuf, NULL);
		if (!p)
			return CLI_FAIL;
		if (npu_target_load(p, &t, &d))
			return cli_error(NULL, "-c %s: %s", o->list_core, d.msg);
	}
	if (fw < 0) {
		if (o->list_core)
			printf("%-20s %s\n", "op", "on the NPU");
		for (int op = 0; op < IR_OP_COUNT; op++) {
			if (o->list_core)
				printf("%-20s %s\n", ir_op_name(op), t.ops[op] ? "yes" : "no (runs on the host)");
			else
				printf("%s\n", ir_op_name(op));
		}
	} else {
		const char *(*name_at)(int, int *) = fw == FW_TF ? tf_import_op_at : fw == FW_PT ? ts_import_op_at
										      : onnx_import_op_at;
		printf("%-28s %-20s%s\n", fw == FW_PT ? "aten op" : "op", "IR op", o->list_core ? " on the NPU" : "");
		for (int i = 0;; i++) {
			int irop = -1;
			const char *nm = name_at(i, &irop);
			if (!nm)
				break;
			printf("%-28s %-20s", nm, irop >= 0 ? ir_op_name(irop) : "(by converter)");
			if (o->list_core)
				printf(" %s", irop < 0 ? "-" : t.ops[irop] ? "yes" : "no (runs on the host)");
			putchar('\n');
		}
	}
	npu_target_free(&t);
	return fclose(stdout) ? CLI_FAIL : CLI_OK;
}

static int do_cmpt(void)
{
	printf("npuc (npukit) %s, IR format %d\n"
	       "cores:      GRUS (share/npu/targets/grus.yaml); LEO, APUS, V100, V120, V150: no profile yet\n"
	       "TF:         frozen GraphDef (.pb): TF 1.x freeze_graph, TF 2.x concrete functions frozen\n"
	       "            with convert_variables_to_constants_v2; TensorFlow.js graph models (model.json)\n"
	       "PT:         TorchScript archives (torch.jit.trace or torch.jit.script, torch.jit.save) of\n"
	       "            torch 1.10 to 1.13 (file format version 3) and newer ones with the same layout;\n"
	       "            not the model.json archives of torch 1.0 to 1.2\n"
	       "ONNX:       default-domain opsets 7 to 17\n"
	       "Python:     not needed\n", NPUKIT_VERSION, IR_FORMAT_VERSION);
	return fclose(stdout) ? CLI_FAIL : CLI_OK;
}

/* ---------------------------------------------------------------- child programs */

static char bindir[PATH_MAX];

static int find_bindir(void)
{
	ssize_t n = readlink("/proc/self/exe", bindir, sizeof bindir - 1);
	if (n <= 0)
		return cli_error(NULL, "cannot find this program's directory (/proc/self/exe)");
	bindir[n] = 0;
	char *s = strrchr(bindir, '/');
	if (s)
		*s = 0;
	return 0;
}

/* Run bindir/PROG with args (NULL-terminated); 0 if it exits 0. */
static int run_child(const char *prog, const char *const *args)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/%s", bindir, prog);
	const char *argv[32];
	int n = 0;
	argv[n++] = path;
	for (; args[n - 1] && n < 31; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		return cli_error(NULL, "cannot run %s: %s", prog, strerror(errno));
	if (pid == 0) {
		execv(path, (char *const *)argv);
		fprintf(stderr, "%s: error: cannot run %s: %s\n", cli_prog, path, strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return cli_error(NULL, "waiting for %s: %s", prog, strerror(errno));
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- import */

static ir_graph *import_model(const config *c, const char *model, const ir_shape *shapes, ir_diag *d)
{
	uint8_t *buf;
	size_t size;
	if (cli_read_regular(model, true, &buf, &size)) {
		snprintf(d->msg, sizeof d->msg, "%s", "");
		return NULL;
	}
	const char *base = strrchr(model, '/') ? strrchr(model, '/') + 1 : model;
	ir_graph *g = NULL;
	if (c->framework == FW_TF) {
		tf_input_shape in[MAXN];
		const char *outs[MAXN];
		for (int i = 0; i < c->n_inputs; i++)
			in[i] = (tf_input_shape){c->inputs[i].name, shapes[i]};
		for (int i = 0; i < c->n_outputs; i++)
			outs[i] = c->outputs[i].name;
		tf_import_opts io = {.inputs = in, .n_inputs = c->n_inputs, .outputs = outs, .n_outputs = c->n_outputs,
				     .file = base};
		size_t i = 0;
		while (i < size && isspace(buf[i]))
			i++;
		if (i < size && buf[i] == '{') {
			char *dir = strrchr(model, '/') ? strndup(model, (size_t)(strrchr(model, '/') - model)) : strdup(".");
			g = dir ? tfjs_import(buf, size, dir, &io, d) : NULL;
			free(dir);
		} else {
			g = tf_import(buf, size, &io, d);
		}
	} else if (c->framework == FW_PT) {
		ts_input_shape in[MAXN];
		for (int i = 0; i < c->n_inputs; i++)
			in[i] = (ts_input_shape){atoi(c->inputs[i].name), shapes[i], IR_DTYPE_F32};
		ts_import_opts io = {.inputs = in, .n_inputs = c->n_inputs, .file = base};
		g = ts_import(buf, size, &io, d);
	} else {
		onnx_input_shape in[MAXN];
		const char *outs[MAXN];
		for (int i = 0; i < c->n_inputs; i++)
			in[i] = (onnx_input_shape){c->inputs[i].name, shapes[i]};
		for (int i = 0; i < c->n_outputs; i++)
			outs[i] = c->outputs[i].name;
		onnx_import_opts io = {.inputs = in, .n_inputs = c->n_inputs, .outputs = outs,
				       .n_outputs = c->n_outputs, .file = base};
		g = onnx_import(buf, size, &io, d);
	}
	free(buf);
	return g;
}

/* The graph input an INPUT_OPS / INPUT_NCX_TO_NXC entry names: PT by
 * index (forward()'s argument order is the graph's), else by name. */
static int input_of(const config *c, const ir_graph *g, const char *name)
{
	if (c->framework == FW_PT)
		return is_index(name) && atoi(name) < ir_graph_input_count(g) ? atoi(name) : -1;
	for (int i = 0; i < ir_graph_input_count(g); i++)
		if (!strcmp(ir_graph_tensor(g, ir_graph_input(g, i))->name, name))
			return i;
	return -1;
}

/* ---------------------------------------------------------------- fuse */

static int fuse(ir_graph *g, const config *c, const npu_target *t, ir_diag *d)
{
	bool pass[IR_PASS_COUNT] = {0};
	for (int p = 0; p < IR_PASS_COUNT; p++)
		pass[p] = ir_pass_in_all(p);
	if (!c->fuse_bn)
		pass[IR_PASS_BN] = pass[IR_PASS_BN_RECOGNIZE] = false;
	/* what npu-fuse --target does: the softmax rewrite where the NPU has
	 * none, no rewrite into ops it lacks, only activations it lists */
	if (!t->ops[IR_OP_SOFTMAX] || !t->ops[IR_OP_LOG_SOFTMAX])
		pass[IR_PASS_SOFTMAX] = true;
	if (!t->ops[IR_OP_LAYER_NORM])
		pass[IR_PASS_LAYER_NORM] = false;
	for (int round = 0, changed = 1; changed && round < 16; round++) {
		changed = 0;
		for (int p = 0; p < IR_PASS_COUNT; p++) {
			if (!pass[p])
				continue;
			ir_pass_report r = {.target_ops = t->ops};
			if (ir_pass_run(g, p, &r, d))
				return -1;
			if (r.changed)
				cli_info(2, "%s: %s: %s", cli_prog, ir_pass_name(p), r.summary);
			changed += r.changed;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- names */

static bool is_view(int op)
{
	return op == IR_OP_TRANSPOSE || op == IR_OP_RESHAPE || op == IR_OP_IDENTITY || op == IR_OP_CAST ||
	       op == IR_OP_SQUEEZE || op == IR_OP_UNSQUEEZE || op == IR_OP_FLATTEN;
}

/* PyTorch's rnn parameter names as the importer names them:
 * gru.weight_ih_l1 -> gru/l1/W (weight_hh R, bias_* B). */
static bool pt_rnn_name(const char *name, char *out, size_t size)
{
	static const struct { const char *pt, *ir; } m[] = {
		{"weight_ih_l", "W"}, {"weight_hh_l", "R"}, {"bias_ih_l", "B"}, {"bias_hh_l", "B"},
	};
	const char *dot = strrchr(name, '.');
	if (!dot)
		return false;
	for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
		size_t l = strlen(m[i].pt);
		if (!strncmp(dot + 1, m[i].pt, l) && is_index(dot + 1 + l)) {
			snprintf(out, size, "%.*s/l%s/%s", (int)(dot - name), name, dot + 1 + l, m[i].ir);
			return true;
		}
	}
	return false;
}

/* The weight input (1) of node n of g, or NULL. */
static const char *node_weight(const ir_graph *g, int n)
{
	const ir_node *x = ir_graph_node(g, n);
	return x->n_inputs > 1 && x->inputs[1] >= 0 && ir_graph_tensor(g, x->inputs[1])->kind == IR_KIND_CONST
		       ? ir_graph_tensor(g, x->inputs[1])->name
		       : NULL;
}

/* A node of g named NAME or NAME#... (the TF importer's parts of one TF op)
 * with weights: their name, else NULL. */
static const char *op_weight(const ir_graph *g, const char *name)
{
	size_t l = strlen(name);
	int n = ir_graph_find_node(g, name);
	if (n >= 0 && node_weight(g, n))
		return node_weight(g, n);
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const char *nm = ir_graph_node(g, i)->name;
		if (!strncmp(nm, name, l) && nm[l] == '#' && node_weight(g, i))
			return node_weight(g, i);
	}
	return NULL;
}

/* TF: a Const of the GraphDef in buf, followed through Identity (and
 * ReadVariableOp) to the op using it; that op's converted weight in g0
 * (named OP#...), or -1. */
static int tf_const_in(const ir_graph *g0, const uint8_t *buf, size_t size, const char *name, char *closest,
		       size_t csize, int *cdist)
{
	NpuTf__GraphDef *gd = npu_tf__graph_def__unpack(NULL, size, buf);
	if (!gd)
		return -1;
	char cur[1024];
	snprintf(cur, sizeof cur, "%s", name);
	int found = -1, known = 0;
	for (size_t i = 0; i < gd->n_node; i++) {
		const NpuTf__NodeDef *n = gd->node[i];
		known |= n->name && !strcmp(n->name, name);
		int e = n->name && n->op && !strcmp(n->op, "Const") ? edit_distance(name, n->name) : 99;
		if (e < *cdist)
			*cdist = e, snprintf(closest, csize, "%s", n->name);
	}
	for (int depth = 0; known && depth < 8 && found < 0; depth++) {
		const NpuTf__NodeDef *user = NULL;
		size_t cl = strlen(cur);
		for (size_t i = 0; i < gd->n_node && !user; i++)
			for (size_t k = 0; k < gd->node[i]->n_input && !user; k++) {
				const char *in = gd->node[i]->input[k];
				if (in && !strncmp(in, cur, cl) && (!in[cl] || !strcmp(in + cl, ":0")))
					user = gd->node[i];
			}
		if (!user || !user->name)
			break;
		if (user->op && (!strcmp(user->op, "Identity") || !strcmp(user->op, "ReadVariableOp"))) {
			snprintf(cur, sizeof cur, "%s", user->name);
			continue;
		}
		size_t ul = strlen(user->name);
		for (int t = 0; t < ir_graph_tensor_count(g0) && found < 0; t++) {
			const ir_tensor *x = ir_graph_tensor(g0, t);
			if (x->kind == IR_KIND_CONST && !strncmp(x->name, user->name, ul) && x->name[ul] == '#')
				found = t;
		}
		break;
	}
	npu_tf__graph_def__free_unpacked(gd, NULL);
	return found;
}

/* The weight tensor of the prepared graph q that a framework name means: a
 * node name (its weight input), a constant of q, or a constant of the
 * imported graph g0 (for TF: of the GraphDef) followed to the node using
 * it. NULL: printed. */
static const char *map_weight(const config *c, const char *model, const ir_graph *g0, const ir_graph *q,
			      const char *name, const char *key, const char *where)
{
	const char *w = op_weight(q, name);
	if (w)
		return w;
	if (ir_graph_find_node(q, name) >= 0) {
		cli_error(where, "%s: op '%s' has no weights", key, name);
		return NULL;
	}
	int tq = ir_graph_find_tensor(q, name);
	if (tq >= 0 && ir_graph_tensor(q, tq)->kind == IR_KIND_CONST)
		return name;
	char alt[600];
	int t0 = ir_graph_find_tensor(g0, name);
	if (t0 < 0 && c->framework == FW_PT && pt_rnn_name(name, alt, sizeof alt))
		t0 = ir_graph_find_tensor(g0, alt);
	char tfbest[256] = "";
	int tfdist = 99;
	if (t0 < 0 && c->framework == FW_TF) {
		uint8_t *buf;
		size_t size;
		if (cli_read_regular(model, true, &buf, &size))
			return NULL;
		t0 = tf_const_in(g0, buf, size, name, tfbest, sizeof tfbest, &tfdist);
		free(buf);
	}
	if (t0 < 0) {
		int n0 = ir_graph_find_node(g0, name);
		if (n0 >= 0) {
			cli_error(where, "%s: op '%s' was merged into another by the fuse passes", key, name);
			return NULL;
		}
		/* the closest name, for the message */
		const char *best = NULL;
		int bd = 99;
		for (int i = 0; i < ir_graph_tensor_count(g0); i++) {
			const ir_tensor *x = ir_graph_tensor(g0, i);
			int e = x->kind == IR_KIND_CONST ? edit_distance(name, x->name) : 99;
			if (e < bd)
				bd = e, best = x->name;
		}
		if (tfdist < bd)
			bd = tfdist, best = tfbest;
		if (best && bd <= (int)strlen(name) / 2 + 1)
			cli_error(where, "%s: '%s' is no weight or op of the model (closest: '%s')", key, name, best);
		else
			cli_error(where, "%s: '%s' is no weight or op of the model", key, name);
		return NULL;
	}
	if (ir_graph_tensor(g0, t0)->kind != IR_KIND_CONST) {
		cli_error(where, "%s: '%s' is not a weight (a constant) of the model", key, name);
		return NULL;
	}
	/* follow views to the node computing with it, then find that node in q */
	int cur = t0;
	for (int depth = 0; depth < 8; depth++) {
		int user = -1;
		for (int i = 0; i < ir_graph_node_count(g0) && user < 0; i++) {
			const ir_node *n = ir_graph_node(g0, i);
			for (int k = 0; k < n->n_inputs; k++)
				if (n->inputs[k] == cur)
					user = i;
		}
		if (user < 0)
			break;
		const ir_node *n = ir_graph_node(g0, user);
		if (is_view(n->op) && n->n_outputs == 1) {
			cur = n->outputs[0];
			continue;
		}
		const char *qw = op_weight(q, n->name);
		if (qw)
			return qw;
		cli_error(where, "%s: weight '%s' (of op '%s') was folded away by the fuse passes", key, name, n->name);
		return NULL;
	}
	cli_error(where, "%s: weight '%s' is used by no op", key, name);
	return NULL;
}

/* ---------------------------------------------------------------- memory budget */

static int check_budget(const config *c, const npu_target *t, const ir_graph *g, const ir_lowered *l)
{
	int64_t arena = l->m.arena_size, weights = l->m.weight_size, cache = c->weight_cache_size;
	int64_t sram = t->sram_bytes, avail = sram ? sram - cache : 0;
	int bad = 0;
	char where[PATH_MAX + 32];
	if (cache && weights > cache) {
		snprintf(where, sizeof where, "%s:%d", c->file, c->line_of[K_WEIGHT_CACHE_SIZE]);
		cli_error(where, "the weights take %" PRId64 " bytes, WEIGHT_CACHE_SIZE is %" PRId64 " (%" PRId64 " over)",
			  weights, cache, weights - cache);
		bad = 1;
	}
	if (!bad && sram && arena > avail) {
		/* the largest live set: the buffers alive at the peak node */
		const ir_plan *p = &l->plan;
		char live[400] = "";
		size_t len = 0;
		int pk = p->peak_node, shown = 0;
		bool *used = calloc((size_t)p->n + 1, sizeof *used);
		for (; used && shown < 3; shown++) {
			int best = -1;
			for (int i = 0; i < p->n; i++)
				if (!used[i] && p->buf[i].size > 0 && p->buf[i].first <= pk && pk <= p->buf[i].last &&
				    p->buf[i].alias_of < 0 && (best < 0 || p->buf[i].size > p->buf[best].size))
					best = i;
			if (best < 0)
				break;
			used[best] = true;
			len += (size_t)snprintf(live + len, sizeof live - len > 0 ? sizeof live - len : 0, "%s'%s' %" PRId64,
						shown ? ", " : "", ir_graph_tensor(g, best)->name, p->buf[best].size);
			if (len >= sizeof live)
				break;
		}
		free(used);
		const ir_node *pn = pk >= 0 ? ir_graph_node(g, pk) : NULL;
		snprintf(where, sizeof where, "%s", c->file);
		char msg[1200];
		char cs[64] = "";
		if (cache)
			snprintf(cs, sizeof cs, " (%" PRId64 " after WEIGHT_CACHE_SIZE)", avail);
		snprintf(msg, sizeof msg, "the arena needs %" PRId64 " bytes, %s has %" PRId64 " bytes of SRAM%s: %" PRId64
			 " over; largest live set %" PRId64 " bytes at node '%s': %s",
			 arena, t->name, sram, cs, arena - avail, p->lower_bound, pn ? pn->name : "?", live);
		if (t->sram_overflow_warn) {
			cli_warn(where, "%s", msg);
		} else {
			cli_error(where, "%s", msg);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

/* ---------------------------------------------------------------- -q */

static npy_array *load_arrays(const char *path, int *n, bool *npz)
{
	uint8_t *buf;
	size_t size;
	ir_diag d;
	if (cli_read_regular(path, true, &buf, &size))
		return NULL;
	npy_array *a = npy_read_any(buf, size, n, npz, &d);
	free(buf);
	if (!a)
		cli_error(path, "%s", d.msg);
	return a;
}

static int set_inputs(ir_exec *e, const ir_graph *g, npy_array **in, ir_diag *d)
{
	for (int i = 0; i < ir_graph_input_count(g); i++) {
		const ir_tensor *t = ir_graph_tensor(g, ir_graph_input(g, i));
		/* the input's shape, leading 1s aside */
		const ir_shape *a = &in[i]->shape, *b = &t->shape;
		int ka = 0, kb = 0;
		while (ka < a->rank && a->dim[ka] == 1)
			ka++;
		while (kb < b->rank && b->dim[kb] == 1)
			kb++;
		bool same = a->rank - ka == b->rank - kb;
		for (int k = 0; same && k < a->rank - ka; k++)
			same = a->dim[ka + k] == b->dim[kb + k];
		char s1[160], s2[160];
		if (in[i]->dtype != IR_DTYPE_F32 || !same)
			return ir_fail(d, -1, -1, "the sample for input '%s' is %s %s; the input is float32 %s", t->name,
				       npy_dtype_name(in[i]->dtype), ir_shape_str(a, s1, sizeof s1), ir_shape_str(b, s2, sizeof s2));
		if (ir_exec_set_input_f32(e, i, in[i]->data, ir_shape_numel(&t->shape), d))
			return -1;
	}
	return 0;
}

static int quant_check(const options *o, const ir_graph *fg, const ir_graph *qg)
{
	npy_array *files[MAXN] = {0}, *in[MAXN] = {0};
	int counts[MAXN] = {0}, ni = ir_graph_input_count(fg), rc = CLI_FAIL;
	bool npz = false;
	ir_diag d;
	ir_exec *ef = NULL, *eq = NULL;
	for (int f = 0; f < o->n_samples; f++)
		if (!(files[f] = load_arrays(o->samples[f], &counts[f], &npz)))
			goto out;
	for (int i = 0; i < ni; i++) {
		const char *nm = ir_graph_tensor(fg, ir_graph_input(fg, i))->name;
		if (o->n_samples == 1 && (counts[0] > 1 || files[0][0].name)) {
			for (int k = 0; k < counts[0]; k++)
				if (files[0][k].name && !strcmp(files[0][k].name, nm))
					in[i] = &files[0][k];
		} else if (i < o->n_samples) {
			in[i] = &files[i][0];
		}
		if (!in[i]) {
			cli_error(o->samples[0], "-q: no sample for input '%s'", nm);
			goto out;
		}
	}
	if (!(ef = ir_exec_new(fg, IR_MODE_F32, 1, &d)) || !(eq = ir_exec_new(qg, IR_MODE_F32, 1, &d)) ||
	    set_inputs(ef, fg, in, &d) || set_inputs(eq, qg, in, &d) || ir_exec_run(ef, &d) || ir_exec_run(eq, &d)) {
		cli_error(NULL, "-q: %s", d.msg);
		goto out;
	}
	printf("%-24s %12s %10s %12s\n", "output", "SQNR dB", "cosine", "max |err|");
	for (int k = 0; k < ir_graph_output_count(qg); k++) {
		size_t nf, nq;
		const ir_tensor *tf = ir_graph_tensor(fg, ir_graph_output(fg, k)), *tq = ir_graph_tensor(qg, ir_graph_output(qg, k));
		const void *a = ir_exec_output(ef, k, &nf), *b = ir_exec_output(eq, k, &nq);
		int64_t n = ir_shape_numel(&tq->shape);
		double r2 = 0, e2 = 0, q2 = 0, dot = 0, mx = 0;
		for (int64_t j = 0; j < n; j++) {
			double x = ir_elem_get(a, tf->dtype, j), y = ir_elem_get(b, tq->dtype, j), e = y - x;
			r2 += x * x, q2 += y * y, dot += x * y, e2 += e * e;
			mx = fabs(e) > mx ? fabs(e) : mx;
		}
		double sq = e2 == 0 ? INFINITY : r2 > 0 ? 10 * log10(r2 / e2) : -INFINITY;
		double cs = r2 > 0 && q2 > 0 ? dot / sqrt(r2 * q2) : (r2 == q2 ? 1 : 0);
		printf("%-24s %12.2f %10.6f %12.4g\n", tq->name, sq, cs, mx);
	}
	rc = CLI_OK;
out:
	ir_exec_free(ef);
	ir_exec_free(eq);
	for (int f = 0; f < o->n_samples; f++)
		if (files[f])
			npz_free(files[f], counts[f]);
	return rc;
}

/* ---------------------------------------------------------------- -s */

static int write_hists(const char *dir, const ir_graph *g)
{
	if (mkdir(dir, 0777) && errno != EEXIST)
		return cli_error(dir, "%s", strerror(errno));
	for (int i = 0; i < ir_graph_tensor_count(g); i++) {
		const ir_tensor *t = ir_graph_tensor(g, i);
		int64_t n = ir_shape_numel(&t->shape);
		if (t->kind != IR_KIND_CONST || n < 2 || (t->dtype != IR_DTYPE_F16 && t->dtype != IR_DTYPE_I8 &&
		    t->dtype != IR_DTYPE_F32))
			continue;
		enum { BINS = 64 };
		double lo = INFINITY, hi = -INFINITY;
		int64_t h[BINS] = {0}, top = 1;
		for (int64_t j = 0; j < n; j++) {
			double v = ir_elem_get(t->data, t->dtype, j);
			lo = v < lo ? v : lo, hi = v > hi ? v : hi;
		}
		double w = hi > lo ? (hi - lo) / BINS : 1;
		for (int64_t j = 0; j < n; j++) {
			int b = (int)((ir_elem_get(t->data, t->dtype, j) - lo) / w);
			h[b < 0 ? 0 : b >= BINS ? BINS - 1 : b]++;
		}
		for (int b = 0; b < BINS; b++)
			top = h[b] > top ? h[b] : top;
		char file[PATH_MAX];
		size_t l = (size_t)snprintf(file, sizeof file, "%s/", dir);
		for (const char *p = t->name; *p && l + 5 < sizeof file; p++)
			file[l++] = isalnum((unsigned char)*p) || *p == '.' || *p == '-' ? *p : '_';
		snprintf(file + l, sizeof file - l, ".svg");
		cli_output out;
		if (cli_output_open(&out, file, false, true))
			return CLI_FAIL;
		fprintf(out.f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"420\" height=\"240\">\n"
			       "<rect width=\"420\" height=\"240\" fill=\"white\"/>\n<text x=\"10\" y=\"16\" font-size=\"12\">");
		for (const char *p = t->name; *p; p++)
			fputs(*p == '<' ? "&lt;" : *p == '&' ? "&amp;" : *p == '>' ? "&gt;" : (char[2]){*p, 0}, out.f);
		fprintf(out.f, " (%s, %" PRId64 " values)</text>\n", ir_dtype_name(t->dtype), n);
		for (int b = 0; b < BINS; b++) {
			double bh = 180.0 * (double)h[b] / (double)top;
			fprintf(out.f, "<rect x=\"%d\" y=\"%.1f\" width=\"5\" height=\"%.1f\" fill=\"steelblue\"/>\n",
				20 + 6 * b, 210 - bh, bh);
		}
		fprintf(out.f, "<text x=\"20\" y=\"228\" font-size=\"11\">%.6g</text>\n"
			       "<text x=\"400\" y=\"228\" font-size=\"11\" text-anchor=\"end\">%.6g</text>\n</svg>\n", lo, hi);
		if (cli_output_commit(&out))
			return CLI_FAIL;
	}
	return 0;
}

/* ---------------------------------------------------------------- main */

static char *join(const char *dir, const char *file)
{
	if (file[0] == '/' || !strcmp(dir, "."))
		return xstrdup(file);
	size_t n = strlen(dir) + strlen(file) + 2;
	char *p = malloc(n);
	if (!p) {
		cli_error(NULL, "out of memory");
		exit(CLI_FAIL);
	}
	snprintf(p, n, "%s/%s", dir, file);
	return p;
}

static int write_ir_file(ir_graph *g, const char *dir, const char *name, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", dir, name);
	return cli_write_ir(g, path, true);
}

static void print_problem(void *user, const ir_graph *g, int node, const char *msg)
{
	(void)user;
	const ir_node *n = ir_graph_node(g, node);
	fprintf(stderr, "%s: node '%s' (%s): error: %s\n", cli_prog, n ? n->name : "?", n ? ir_op_name(n->op) : "?",
		msg);
}

static void config_free(config *c);
static int compile(const options *o, config *c);

int main(int argc, char **argv)
{
	options o = {0};
	ir_diag d = {0};
	cli_init("npuc", argc, argv);
	parse_args(argc, argv, &o);
	if (o.list)
		return do_list(&o);
	if (o.cmpt)
		return do_cmpt();
	if (find_bindir())
		return CLI_FAIL;

	config c;
	int prc = parse_config(o.config, &c, &d), rc;
	if (prc == -2)
		rc = CLI_FAIL;
	else if (prc)
		rc = cli_error(err_where, "%s", d.msg);
	else
		rc = compile(&o, &c);
	config_free(&c);
	return rc;
}

static void config_free(config *c)
{
	free(c->file);
	free(c->dir);
	free(c->corename);
	free(c->npu_unit);
	free(c->model_file);
	free(c->output_type);
	free(c->output_file);
	for (int i = 0; i < c->n_inputs; i++)
		free(c->inputs[i].name);
	for (int i = 0; i < c->n_wmm; i++)
		free(c->wmm[i].name);
	cfg_name *lists[] = {c->outputs, c->fp16_out, c->exclude, c->ncx};
	int counts[] = {c->n_outputs, c->n_fp16_out, c->n_exclude, c->n_ncx};
	for (int l = 0; l < 4; l++)
		for (int i = 0; i < counts[l]; i++)
			free(lists[l][i].name);
}

static int compile(const options *op, config *cp)
{
	options o = *op;
	config c = *cp;	/* (freed by the caller) */
	ir_diag d = {0};
	char where[PATH_MAX + 32];
#define AT(k) (snprintf(where, sizeof where, "%s:%d", c.file, c.line_of[k]), where)

	/* the target */
	char pbuf[64];
	const char *prof = core_profile(c.corename, pbuf, sizeof pbuf, AT(K_CORENAME));
	npu_target t;
	if (!prof)
		return CLI_FAIL;
	if (npu_target_load(prof, &t, &d)) {
		if (strstr(d.msg, strerror(ENOENT)) && prof == pbuf)
			return cli_error(AT(K_CORENAME), "CORENAME '%s' is unknown (cores: GRUS; or the name of a profile in "
				   "share/npu/targets)", c.corename);
		return cli_error(AT(K_CORENAME), "CORENAME %s: %s", c.corename, d.msg);
	}
	if (t.family != NPU_FAMILY_FP16) {
		npu_target_free(&t);
		return cli_error(AT(K_CORENAME), "CORENAME %s: profile '%s' is an integer target, which needs "
			   "calibration data (use npu-quant --calib); npuc compiles for fp16 NPUs", c.corename, prof);
	}
	if ((c.compress || c.conv2d_compress || c.n_exclude || c.n_wmm) && !t.weight_types[IR_DTYPE_I8])
		cli_warn(c.file, "target '%s' has no int8 weights, but the config asks for compression", t.name);
	if ((c.n_exclude || c.n_wmm) && !c.compress && !c.conv2d_compress)
		cli_warn(c.file, "%s has no effect without COMPRESS or CONV2D_COMPRESS",
			 c.n_exclude ? "EXCLUDE_COMPRESS_OPS" : "WEIGHT_MIN_MAX");

	int rc = CLI_FAIL;
	char *model = join(c.dir, c.model_file), *output = o.out ? xstrdup(o.out) : join(c.dir, c.output_file);
	char tmpdir[PATH_MAX] = "", ir_path[PATH_MAX + 64];
	ir_graph *g = NULL, *g0 = NULL, *fg = NULL;
	const char *lists[3 * MAXN];
	ir_qrange wr[MAXN];
	int n_f16 = 0, n_excl = 0, f16_idx[MAXN];

	struct stat sm, so;
	if (stat(model, &sm) == 0 && stat(output, &so) == 0 && sm.st_dev == so.st_dev && sm.st_ino == so.st_ino) {
		cli_error(AT(K_OUTPUT_FILE), "OUTPUT_FILE '%s' is the model file", output);
		goto out;
	}
	/* shapes as the importer wants them: channel-first for INPUT_NCX_TO_NXC */
	ir_shape shapes[MAXN];
	for (int i = 0; i < c.n_inputs; i++) {
		shapes[i] = c.inputs[i].shape;
		for (int k = 0; k < c.n_ncx; k++)
			if (!strcmp(c.ncx[k].name, c.inputs[i].name)) {
				ir_shape *s = &shapes[i];
				int r = s->rank;
				if (r != 3 && r != 4) {
					snprintf(where, sizeof where, "%s:%d", c.file, c.ncx[k].line);
					cli_error(where, "INPUT_NCX_TO_NXC: input '%s' has rank %d (needs 3, N C L, or 4, N C H W)",
						  c.ncx[k].name, r);
					goto out;
				}
				int64_t ch = s->dim[r - 1];
				for (int j = r - 1; j > 1; j--)
					s->dim[j] = s->dim[j - 1];
				s->dim[1] = ch;
			}
	}
	for (int k = 0; k < c.n_ncx; k++) {
		int found = 0;
		for (int i = 0; i < c.n_inputs; i++)
			found |= !strcmp(c.ncx[k].name, c.inputs[i].name);
		if (!found) {
			snprintf(where, sizeof where, "%s:%d", c.file, c.ncx[k].line);
			cli_error(where, "INPUT_NCX_TO_NXC: '%s' is not in INPUT_OPS (its shape is needed)", c.ncx[k].name);
			goto out;
		}
	}
	/* FP16_OUT_OPS as output positions (TF/ONNX: in OUTPUT_OPS; PT: indices) */
	for (int k = 0; k < c.n_fp16_out; k++) {
		int idx = -1;
		if (c.framework == FW_PT) {
			idx = is_index(c.fp16_out[k].name) ? atoi(c.fp16_out[k].name) : -1;
		} else {
			for (int j = 0; j < c.n_outputs; j++)
				if (!strcmp(c.outputs[j].name, c.fp16_out[k].name))
					idx = j;
		}
		if (idx < 0) {
			snprintf(where, sizeof where, "%s:%d", c.file, c.fp16_out[k].line);
			cli_error(where, c.framework == FW_PT ? "FP16_OUT_OPS: '%s' is not an output index"
							      : "FP16_OUT_OPS: '%s' is not in OUTPUT_OPS", c.fp16_out[k].name);
			goto out;
		}
		f16_idx[n_f16++] = idx;
	}

	/* import */
	if (!(g = import_model(&c, model, shapes, &d))) {
		/* a name from the config: say where it was given */
		for (int k = 0; d.msg[0] && k < c.n_outputs + c.n_inputs; k++) {
			bool out = k < c.n_outputs;
			const char *nm = out ? c.outputs[k].name : c.inputs[k - c.n_outputs].name;
			char q[300];
			snprintf(q, sizeof q, "'%s'", nm);
			if (strstr(d.msg, q) && c.framework != FW_PT) {
				snprintf(where, sizeof where, "%s:%d", c.file,
					 out ? c.outputs[k].line : c.inputs[k - c.n_outputs].line);
				cli_error(where, "%s %s: %s: %s", out ? "OUTPUT_OPS" : "INPUT_OPS", q, model, d.msg);
				goto out;
			}
		}
		if (d.msg[0])
			cli_error(model, "%s", d.msg);
		goto out;
	}
	for (int i = 0; i < c.n_inputs; i++)
		if (input_of(&c, g, c.inputs[i].name) < 0) {
			snprintf(where, sizeof where, "%s:%d", c.file, c.inputs[i].line);
			cli_error(where, "INPUT_OPS: '%s' is no input of the model", c.inputs[i].name);
			goto out;
		}
	for (int k = 0; k < n_f16; k++)
		if (f16_idx[k] >= ir_graph_output_count(g)) {
			snprintf(where, sizeof where, "%s:%d", c.file, c.fp16_out[k].line);
			cli_error(where, "FP16_OUT_OPS: output %d does not exist (the model has %d outputs)", f16_idx[k],
				  ir_graph_output_count(g));
			goto out;
		}
	if (!(g0 = ir_graph_clone(g))) {
		cli_error(NULL, "out of memory");
		goto out;
	}
	if (o.keep) {
		if (mkdir(o.keep, 0777) && errno != EEXIST) {
			cli_error(o.keep, "%s", strerror(errno));
			goto out;
		}
		if (write_ir_file(g, o.keep, "import.ir", ir_path, sizeof ir_path))
			goto out;
	}
	/* fuse */
	if (fuse(g, &c, &t, &d) || ir_meta_set_str(g, "target.name", t.name)) {
		cli_diag(g, model, &d);
		goto out;
	}
	if (o.keep && write_ir_file(g, o.keep, "fuse.ir", ir_path, sizeof ir_path))
		goto out;
	/* layout: the profile's (npu-target(5) 'layout'), with INPUT_NCX_TO_NXC
	 * inputs fed channel-last (no transpose where the graph is nhwc); a
	 * channel-first profile with such inputs runs channel-last too, the
	 * runtime having kernels for both */
	if (t.layout != IR_LAYOUT_NONE || c.n_ncx) {
		ir_layout_io io[MAXN];
		for (int k = 0; k < c.n_ncx; k++) {
			int i = input_of(&c, g, c.ncx[k].name);
			io[k] = (ir_layout_io){.name = i >= 0 ? ir_graph_tensor(g, ir_graph_input(g, i))->name : c.ncx[k].name,
					       .channel_last = true};
		}
		ir_layout_opts lo = {.to = c.n_ncx ? IR_LAYOUT_NHWC : t.layout, .inputs = io, .n_inputs = c.n_ncx};
		if (ir_graph_to_layout(g, &lo, &d)) {
			cli_diag(g, model, &d);
			goto out;
		}
		cli_info(1, "%s: layout %s, %d transposes", model, ir_layout_name(lo.to), ir_graph_transpose_count(g));
		if (o.keep && write_ir_file(g, o.keep, "layout.ir", ir_path, sizeof ir_path))
			goto out;
	}
	if (o.quant && !(fg = ir_graph_clone(g))) {
		cli_error(NULL, "out of memory");
		goto out;
	}

	/* quantize */
	ir_quant_opts qo;
	ir_quant_defaults(&qo);
	qo.fp16 = true;
	if (ir_quant_prepare(g, &qo, &d)) {
		cli_diag(g, model, &d);
		goto out;
	}
	qo.ops = t.ops;
	qo.same_scale = t.same_scale;
	qo.output_f32 = t.output_f32;
	qo.compress_fc = c.compress;
	qo.compress_conv = c.conv2d_compress;
	for (int k = 0; k < n_f16; k++)
		lists[k] = ir_graph_tensor(g, ir_graph_output(g, f16_idx[k]))->name;
	qo.f16_outputs = lists;
	qo.n_f16_outputs = n_f16;
	for (int k = 0; k < c.n_exclude; k++) {
		snprintf(where, sizeof where, "%s:%d", c.file, c.exclude[k].line);
		const char *w = map_weight(&c, model, g0, g, c.exclude[k].name, "EXCLUDE_COMPRESS_OPS", where);
		if (!w)
			goto out;
		lists[n_f16 + n_excl++] = w;
	}
	qo.exclude = lists + n_f16;
	qo.n_exclude = n_excl;
	for (int k = 0; k < c.n_wmm; k++) {
		snprintf(where, sizeof where, "%s:%d", c.file, c.wmm[k].line);
		const char *w = map_weight(&c, model, g0, g, c.wmm[k].name, "WEIGHT_MIN_MAX", where);
		if (!w)
			goto out;
		wr[k] = (ir_qrange){w, (float)c.wmm[k].min, (float)c.wmm[k].max};
	}
	qo.wrange = wr;
	qo.n_wrange = c.n_wmm;
	if (ir_quantize(g, NULL, &qo, NULL, NULL, &d) || ir_meta_set_str(g, "target.name", t.name)) {
		cli_diag(g, model, &d);
		goto out;
	}
	/* (kept before the checks below, to look at what failed them) */
	if (o.keep && write_ir_file(g, o.keep, "quant.ir", ir_path, sizeof ir_path))
		goto out;
	/* what the runtime will run, and the memory budget */
	ir_lowered low;
	if (ir_lower(g, &low, print_problem, NULL, &d)) {
		if (d.node < 0)
			cli_diag(g, model, &d);
		goto out;
	}
	int brc = check_budget(&c, &t, g, &low);
	uint32_t arena_size = low.m.arena_size, weight_size = low.m.weight_size;
	cli_info(1, "%s: %u kernel calls, weights %u bytes, arena %u bytes", cli_prog, low.m.n_ops, low.m.weight_size,
		 low.m.arena_size);
	ir_lowered_free(&low);
	if (brc)
		goto out;

	/* the quantized IR for npu-emit (and npu-dump) */
	if (!o.keep) {
		const char *tmp = getenv("TMPDIR");
		snprintf(tmpdir, sizeof tmpdir, "%s/npuc.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(tmpdir)) {
			cli_error(tmpdir, "%s", strerror(errno));
			tmpdir[0] = 0;
			goto out;
		}
		if (write_ir_file(g, tmpdir, "quant.ir", ir_path, sizeof ir_path))
			goto out;
	}
	if (o.verbose && run_child("npu-dump", (const char *[]){ir_path, NULL}))
		goto out;
	if (o.meminfo) {
		if (run_child("npu-dump", (const char *[]){"-m", "--io-outside", ir_path, NULL}))
			goto out;
		if (t.sram_bytes)
			printf("budget:            arena %" PRIu32 " of %" PRId64 " bytes of %s SRAM", arena_size,
			       t.sram_bytes - c.weight_cache_size, t.name);
		else
			printf("budget:            arena %" PRIu32 " bytes (%s: SRAM size unknown)", arena_size, t.name);
		if (c.weight_cache_size && t.sram_bytes)
			printf(" (%" PRId64 " less WEIGHT_CACHE_SIZE %" PRId64 "), weights %" PRIu32 " of %" PRId64,
			       t.sram_bytes, c.weight_cache_size, weight_size, c.weight_cache_size);
		else
			printf(", weights %" PRIu32 " bytes", weight_size);
		printf("\n");
		fflush(stdout);
	}
	if (o.weights && run_child("npu-dump", (const char *[]){"-w", ir_path, NULL}))
		goto out;
	if (o.quant && quant_check(&o, fg, g))
		goto out;
	if (o.hist) {
		char *hd = xstrdup(o.hist_dir ? o.hist_dir : "npu_hists");
		int hr = write_hists(hd, g);
		free(hd);
		if (hr)
			goto out;
	}
	bool raw = c.output_type && !strcmp(c.output_type, "raw");
	const char *eargs[12];
	int ne = 0;
	eargs[ne++] = ir_path;
	eargs[ne++] = "--format";
	eargs[ne++] = raw ? "bin" : "c";
	if (o.name)
		eargs[ne++] = "--name", eargs[ne++] = o.name;
	if (cli_verbose < 0)
		eargs[ne++] = "-q";
	eargs[ne++] = "-o";
	eargs[ne++] = output;
	eargs[ne] = NULL;
	if (run_child("npu-emit", eargs))
		goto out;
	cli_info(1, "%s: wrote %s", cli_prog, output);
	rc = CLI_OK;
out:
	if (tmpdir[0]) {
		unlink(ir_path);
		rmdir(tmpdir);
	}
	ir_graph_free(g);
	ir_graph_free(g0);
	ir_graph_free(fg);
	npu_target_free(&t);
	free(model);
	free(output);
	return rc;
}
