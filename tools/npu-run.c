/* npu-run - run an IR graph on NumPy arrays with the reference interpreter.
 * See npu-run(1). */
#include "ir_cli.h"
#include "npy/npy.h"
#include "../share/npu/runtime/npu_half.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES 256

typedef struct {
	const char *ir;		/* IR file, "-" or NULL: stdin */
	const char *inputs[MAX_FILES];
	int n_inputs;
	const char *out;	/* .npz/.npy; NULL: stdout, or nothing with --compare */
	const char *dump_dir;
	const char *compare;
	double rtol, atol;
	ir_exec_mode mode;
	bool runtime;		/* --mode runtime: a float graph through the runtime */
	long repeat, threads;
	bool force;
} options;

static void help(void)
{
	printf("Usage: %s [IR|-] -i FILE [-i FILE]... [-o OUT.npz|OUT.npy] [options]\n"
	       "Run an IR graph with the reference interpreter on NumPy arrays.\n"
	       "\n"
	       "  -i, --input FILE    one .npy per graph input in order, or one .npz keyed by\n"
	       "                      input name (float64 is accepted for float32 inputs)\n"
	       "  -o, --out FILE      write the outputs: an .npz keyed by output name, or an\n"
	       "                      .npy if FILE ends in .npy and there is one output\n"
	       "                      (default: .npz on standard output; nothing with --compare)\n"
	       "  -f, --force         write the .npz even to a terminal\n"
	       "      --compare REF   compare the outputs with REF (.npz by output name, a\n"
	       "                      directory of OUTPUT.npy files, or an .npy for one\n"
	       "                      output); exit 1 if any differs by more than\n"
	       "                      ATOL + RTOL * max|REF|\n"
	       "      --rtol R        relative tolerance for --compare (default 1e-4)\n"
	       "      --atol A        absolute tolerance for --compare (default 1e-6)\n"
	       "      --dump-dir DIR  write every node output to DIR/NODE.npy ('/' in names\n"
	       "                      becomes '_'; DIR is created if missing)\n"
	       "      --mode MODE     fp32 (default), fp16 (IEEE half emulation), or runtime\n"
	       "                      (a float graph through the float32 kernels of the\n"
	       "                      runtime, as npu-emit's code runs it)\n"
	       "      --repeat N      run N times (timing; the outputs of the last run are kept)\n"
	       "      --threads N     threads for the kernels (default 1)\n"
	       "  -v, --verbose       report times per run and per node on standard error\n"
	       "  -q, --quiet         no warnings and no --compare report\n"
	       "      --help          show this help and exit\n"
	       "  -V, --version       show the version and exit\n"
	       "\n"
	       "Exit status: 0 success, 1 bad input, failed run, I/O error or a --compare\n"
	       "mismatch, 2 usage.\n", cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static long parse_count(const char *opt, const char *arg, long max)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > max)
		cli_usage("%s '%s': expected a whole number from 1 to %ld", opt, arg, max);
	return v;
}

static double parse_tol(const char *opt, const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 0) || isinf(v))
		cli_usage("%s '%s': expected a non-negative number", opt, arg);
	return v;
}

static void parse_args(int argc, char **argv, options *o)
{
	enum { OPT_DUMP = 256, OPT_MODE, OPT_REPEAT, OPT_THREADS, OPT_COMPARE, OPT_RTOL, OPT_ATOL };
	static const struct option longopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"dump-dir", required_argument, NULL, OPT_DUMP},
		{"mode", required_argument, NULL, OPT_MODE},
		{"repeat", required_argument, NULL, OPT_REPEAT},
		{"threads", required_argument, NULL, OPT_THREADS},
		{"compare", required_argument, NULL, OPT_COMPARE},
		{"rtol", required_argument, NULL, OPT_RTOL},
		{"atol", required_argument, NULL, OPT_ATOL},
		CLI_COMMON_OPTS,
		{NULL, 0, NULL, 0},
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:o:fVvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (o->n_inputs == MAX_FILES)
				cli_usage("too many -i options");
			o->inputs[o->n_inputs++] = optarg;
			break;
		case OPT_DUMP:
			if (!*optarg)
				cli_usage("--dump-dir needs a directory");
			o->dump_dir = optarg;
			break;
		case OPT_MODE:
			if (!strcmp(optarg, "fp32") || !strcmp(optarg, "f32"))
				o->mode = IR_MODE_F32;
			else if (!strcmp(optarg, "fp16") || !strcmp(optarg, "f16"))
				o->mode = IR_MODE_F16;
			else if (!strcmp(optarg, "runtime"))
				o->mode = IR_MODE_F32, o->runtime = true;
			else
				cli_usage("--mode '%s': expected fp32, fp16 or runtime", optarg);
			break;
		case OPT_REPEAT: o->repeat = parse_count("--repeat", optarg, 1000000000L); break;
		case OPT_THREADS: o->threads = parse_count("--threads", optarg, 256); break;
		case OPT_COMPARE: o->compare = optarg; break;
		case OPT_RTOL: o->rtol = parse_tol("--rtol", optarg); break;
		case OPT_ATOL: o->atol = parse_tol("--atol", optarg); break;
		default: cli_common_option(c, argv, &o->out, &o->force, help);
		}
	}
	if (optind < argc)
		o->ir = argv[optind++];
	if (optind < argc)
		cli_usage("unexpected argument '%s' (inputs are given with -i)", argv[optind]);
	int stdin_users = !o->ir || !strcmp(o->ir, "-");
	for (int i = 0; i < o->n_inputs; i++)
		stdin_users += !strcmp(o->inputs[i], "-");
	stdin_users += o->compare && !strcmp(o->compare, "-");
	if (stdin_users > 1)
		cli_usage("standard input can be read only once (give the IR as a file)");
}

/* ---------------------------------------------------------------- arrays */

/* Read a .npy (one array, name NULL) or .npz; prints the error. With g, an
 * .npz must hold every input of g (checked before any array is inflated). */
static npy_array *load_arrays_for(const char *path, int *n, bool *is_npz, const ir_graph *g)
{
	uint8_t *buf;
	size_t size;
	ir_diag d;
	if (cli_read_file(path, true, &buf, &size))
		return NULL;
	int ni = g ? ir_graph_input_count(g) : 0;
	const char **want = calloc((size_t)ni + 1, sizeof *want);
	for (int i = 0; i < ni && want; i++)
		want[i] = ir_graph_tensor(g, ir_graph_input(g, i))->name;
	npy_array *a = want ? npy_read_want(buf, size, want, ni, n, is_npz, &d) : NULL;
	if (!want)
		snprintf(d.msg, sizeof d.msg, "out of memory");
	free(want);
	free(buf);
	if (!a)
		cli_error(cli_name(path), "%s", d.msg);
	return a;
}

/* Read a .npy (one array, name NULL) or .npz; prints the error. */
static npy_array *load_arrays(const char *path, int *n, bool *is_npz)
{
	return load_arrays_for(path, n, is_npz, NULL);
}

/* 'a', 'b' and 'c' of the graph's inputs (or outputs), for messages. */
static const char *io_names(const ir_graph *g, bool outputs, char *buf, size_t size)
{
	int n = outputs ? ir_graph_output_count(g) : ir_graph_input_count(g);
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < n && len < size; i++) {
		const ir_tensor *t = ir_graph_tensor(g, outputs ? ir_graph_output(g, i) : ir_graph_input(g, i));
		int k = snprintf(buf + len, size - len, "%s'%s'", i == 0 ? "" : i == n - 1 ? " and " : ", ", t->name);
		len += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

static const char *file_dtype(const npy_array *a)
{
	return a->from_f64 ? "float64" : npy_dtype_name(a->dtype);
}

/* Check array a against graph input i and hand it to the executor. A float32
 * (or converted float64) array also feeds a bf16 input, which NumPy cannot
 * hold, an f16 input (rounded) and a quantized integer input (quantized with
 * the input's scale and zero point: npu-quant's models take floats). */
static int feed(ir_exec *e, const ir_graph *g, int i, npy_array *a, const char *file)
{
	const ir_tensor *t = ir_graph_tensor(g, ir_graph_input(g, i));
	char s1[160], s2[160];
	bool from_f32 = a->dtype == IR_DTYPE_F32 && a->dtype != t->dtype &&
			(t->dtype == IR_DTYPE_BF16 || t->dtype == IR_DTYPE_F16 ||
			 (t->quant && t->quant->n == 1 && t->dtype != IR_DTYPE_I32));
	bool dt_ok = a->dtype == t->dtype || from_f32;
	bool sh_ok = ir_shape_equal(&a->shape, &t->shape);
	ir_shape_str(&a->shape, s1, sizeof s1);
	ir_shape_str(&t->shape, s2, sizeof s2);
	if (!dt_ok && !sh_ok)
		return cli_error(file, "input '%s': %s %s does not match the model's %s %s", t->name,
				 file_dtype(a), s1, npy_dtype_name(t->dtype), s2);
	if (!dt_ok)
		return cli_error(file, "input '%s': dtype %s does not match the model's %s%s", t->name,
				 file_dtype(a), npy_dtype_name(t->dtype),
				 t->dtype == IR_DTYPE_F32 ? " (save it as float32 or float64)" : "");
	if (!sh_ok)
		return cli_error(file, "input '%s': shape %s does not match the model's %s", t->name, s1, s2);
	if (a->from_f64)
		cli_info(1, "%s: input '%s': float64 converted to float32", file, t->name);
	ir_diag d;
	if (from_f32 ? ir_exec_set_input_f32(e, i, a->data, (int64_t)(a->nbytes / 4), &d)
		     : ir_exec_set_input(e, i, a->data, a->nbytes, &d))
		return cli_diag(g, file, &d);
	return 0;
}

/* Load the -i files and feed every graph input; prints every problem. */
static int set_inputs(ir_exec *e, const ir_graph *g, const options *o)
{
	int ni = ir_graph_input_count(g), rc = 0, n;
	bool npz;
	char names[1024];
	if (o->n_inputs == 1 && ni > 0) {
		npy_array *a = load_arrays_for(o->inputs[0], &n, &npz, g);
		if (!a)
			return CLI_FAIL;
		const char *file = cli_name(o->inputs[0]);
		if (npz) {
			bool *used = calloc((size_t)n + 1, 1);
			for (int i = 0; i < ni && used; i++) {
				const ir_tensor *t = ir_graph_tensor(g, ir_graph_input(g, i));
				int k = 0;
				while (k < n && strcmp(a[k].name, t->name))
					k++;
				if (k == n) {
					rc = cli_error(file, "no array for input '%s' (the model's inputs are %s)", t->name,
						       io_names(g, false, names, sizeof names));
					continue;
				}
				used[k] = true;
				if (feed(e, g, i, &a[k], file))
					rc = CLI_FAIL;
			}
			for (int k = 0; k < n && used; k++)
				if (!used[k])
					rc = cli_error(file, "array '%s' is not an input of the model (its inputs are %s)",
						       a[k].name, io_names(g, false, names, sizeof names));
			if (!used)
				rc = cli_error(NULL, "out of memory");
			free(used);
			npz_free(a, n);
			return rc;
		}
		if (ni == 1) {
			rc = feed(e, g, 0, a, file);
			npz_free(a, n);
			return rc;
		}
		npz_free(a, n);
	}
	if (o->n_inputs != ni && ni == 0)
		return cli_error(NULL, "the model has no inputs, but %d input file%s %s given", o->n_inputs,
				 o->n_inputs == 1 ? "" : "s", o->n_inputs == 1 ? "is" : "are");
	if (o->n_inputs != ni)
		return cli_error(NULL, "%d input file%s given for the model's %d input%s (%s)", o->n_inputs,
				 o->n_inputs == 1 ? "" : "s", ni, ni == 1 ? "" : "s", io_names(g, false, names, sizeof names));
	for (int i = 0; i < ni; i++) {
		npy_array *a = load_arrays(o->inputs[i], &n, &npz);
		if (!a) {
			rc = CLI_FAIL;
			continue;
		}
		if (npz)
			rc = cli_error(cli_name(o->inputs[i]), "an .npz holds all the inputs, keyed by name: "
				       "give it as the only -i");
		else if (feed(e, g, i, a, cli_name(o->inputs[i])))
			rc = CLI_FAIL;
		npz_free(a, n);
	}
	return rc;
}

/* ---------------------------------------------------------------- writing */

/* An IR tensor's data as an npy_array (bf16, which NumPy lacks, widened to
 * float32 in *tmp). */
static npy_array as_array(const ir_tensor *t, const void *data, void **tmp)
{
	npy_array a = {.name = t->name, .dtype = t->dtype, .shape = t->shape, .data = (void *)data,
		       .nbytes = ir_tensor_nbytes(t)};
	*tmp = NULL;
	if (t->dtype == IR_DTYPE_BF16) {
		size_t n = a.nbytes / 2;
		float *f = *tmp = malloc(n * 4 + 1);
		for (size_t k = 0; f && k < n; k++)
			f[k] = npu_bf16_to_f32(((const uint16_t *)data)[k]);
		a = (npy_array){.name = t->name, .dtype = IR_DTYPE_F32, .shape = t->shape, .data = f, .nbytes = n * 4};
	}
	return a;
}

/* Serialize arrays (as .npy if npy, else .npz) to path atomically. */
static int write_arrays(const char *path, const npy_array *a, int n, bool npy)
{
	uint8_t *buf;
	size_t size;
	ir_diag d;
	cli_output out;
	const char *name = path ? path : "<stdout>";
	for (int i = 0; i < n; i++)
		if (!a[i].data)
			return cli_error(name, "out of memory");
	if (npy ? npy_write_mem(a, &buf, &size, &d) : npz_write_mem(a, n, &buf, &size, &d))
		return cli_error(name, "%s", d.msg);
	if (cli_output_open(&out, path, true, true)) {
		free(buf);
		return CLI_FAIL;
	}
	if (fwrite(buf, 1, size, out.f) != size) {
		cli_error(name, "write error: %s", strerror(errno));
		cli_output_abort(&out);
		free(buf);
		return CLI_FAIL;
	}
	free(buf);
	return cli_output_commit(&out) ? CLI_FAIL : 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

static int write_outputs(const ir_graph *g, ir_exec *e, const char *path)
{
	int n = ir_graph_output_count(g), rc;
	npy_array *a = calloc((size_t)n + 1, sizeof *a);
	void **tmp = calloc((size_t)n + 1, sizeof *tmp);
	if (!a || !tmp) {
		free(a);
		free(tmp);
		return cli_error(NULL, "out of memory");
	}
	for (int i = 0; i < n; i++)
		a[i] = as_array(ir_graph_tensor(g, ir_graph_output(g, i)), ir_exec_output(e, i, NULL), &tmp[i]);
	rc = write_arrays(path, a, n, path && ends_with(path, ".npy"));
	for (int i = 0; i < n; i++)
		free(tmp[i]);
	free(tmp);
	free(a);
	return rc;
}

/* --dump-dir: each node output to DIR/NAME.npy, NAME the node's name with
 * '/' as '_' (plus .J for output J of a node with several). Names that
 * still collide get -N, N the node's index. */
typedef struct {
	const char *dir;
	char **file;		/* per tensor id: base name, or NULL */
	int nt;
	bool failed;		/* a file could not be written (and the error is out) */
} dumper;

typedef struct {
	char *name;
	int tensor, node;
} dump_name;

static int cmp_dump(const void *x, const void *y)
{
	const dump_name *a = x, *b = y;
	int c = strcmp(a->name, b->name);
	return c ? c : a->node - b->node;
}

static int dump_setup(dumper *du, const ir_graph *g, const char *dir)
{
	int nn = ir_graph_node_count(g), k = 0;
	du->dir = dir;
	du->nt = ir_graph_tensor_count(g);
	du->file = calloc((size_t)du->nt + 1, sizeof *du->file);
	dump_name *v = calloc((size_t)du->nt + 1, sizeof *v);
	if (!du->file || !v) {
		free(v);
		return cli_error(NULL, "out of memory");
	}
	for (int i = 0; i < nn; i++) {
		const ir_node *n = ir_graph_node(g, i);
		for (int j = 0; j < n->n_outputs; j++) {
			size_t len = strlen(n->name) + 32;
			char *s = malloc(len);
			if (!s)
				break;
			snprintf(s, len, n->n_outputs > 1 ? "%s.%d" : "%s", n->name, j);
			for (char *p = s; *p; p++)
				if (*p == '/')
					*p = '_';
			v[k++] = (dump_name){s, n->outputs[j], i};
		}
	}
	qsort(v, (size_t)k, sizeof *v, cmp_dump);
	for (int i = 0; i < k; i++) {
		bool dup = i > 0 && !strcmp(v[i].name, v[i - 1].name);
		size_t len = strlen(v[i].name) + 16;
		if ((du->file[v[i].tensor] = malloc(len)))
			snprintf(du->file[v[i].tensor], len, dup ? "%s-%d" : "%s", v[i].name, v[i].node);
	}
	for (int i = 0; i < k; i++)
		free(v[i].name);
	free(v);
	if (mkdir(dir, 0777) && errno != EEXIST)
		return cli_error(dir, "cannot create the dump directory: %s", strerror(errno));
	struct stat st;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return cli_error(dir, "not a directory");
	return 0;
}

static int dump_tensor(void *user, const ir_graph *g, int node, int tensor, const void *data)
{
	(void)node;
	dumper *du = user;
	size_t len = du->file[tensor] ? strlen(du->dir) + strlen(du->file[tensor]) + 8 : 0;
	char *path = len ? malloc(len) : NULL;
	if (!path) {
		du->failed = true;
		return cli_error(du->dir, "out of memory");
	}
	snprintf(path, len, "%s/%s.npy", du->dir, du->file[tensor]);
	void *tmp;
	npy_array a = as_array(ir_graph_tensor(g, tensor), data, &tmp);
	int rc = write_arrays(path, &a, 1, true);
	free(tmp);
	free(path);
	du->failed |= rc != 0;
	return rc;
}

static void dump_free(dumper *du)
{
	for (int t = 0; du->file && t < du->nt; t++)
		free(du->file[t]);
	free(du->file);
}

/* ---------------------------------------------------------------- --compare */

/* Match the reference arrays to the graph outputs (before running, so a
 * bad reference costs no run): ref[i] for output i. */
/* A directory of OUTPUT.npy files ('/' in names as '_', as --dump-dir
 * writes them) as arrays named by output. */
static npy_array *load_dir(const ir_graph *g, const char *dir, int *n)
{
	int no = ir_graph_output_count(g);
	npy_array *a = calloc((size_t)no + 1, sizeof *a);
	*n = 0;
	for (int i = 0; a && i < no; i++) {
		const char *name = ir_graph_tensor(g, ir_graph_output(g, i))->name;
		size_t len = strlen(dir) + strlen(name) + 8;
		char *path = malloc(len);
		int k;
		bool npz;
		if (!path) {
			npz_free(a, *n);
			return NULL;
		}
		snprintf(path, len, "%s/", dir);
		for (char *p = path + strlen(path), *q = (char *)name; (*p = *q); p++, q++)
			if (*p == '/')
				*p = '_';
		strcat(path, ".npy");
		npy_array *one = load_arrays(path, &k, &npz);
		free(path);
		if (!one || !(a[i].name = strdup(name))) {
			npz_free(one, one ? k : 0);
			npz_free(a, *n);
			return NULL;
		}
		free(one[0].name);
		char *keep = a[i].name;
		a[i] = one[0];
		a[i].name = keep;
		free(one);
		(*n)++;
	}
	return a;
}

static npy_array **match_refs(const ir_graph *g, const char *path, npy_array *a, int n, bool npz)
{
	int no = ir_graph_output_count(g), bad = 0;
	const char *file = cli_name(path);
	char names[1024], s1[160], s2[160];
	npy_array **ref = calloc((size_t)no + 1, sizeof *ref);
	bool *used = calloc((size_t)n + 1, 1);
	if (!ref || !used) {
		bad = cli_error(NULL, "out of memory");
	} else if (!npz && no != 1) {
		bad = cli_error(file, "a .npy holds one array and the model has %d outputs (%s): compare with an .npz",
				no, io_names(g, true, names, sizeof names));
	} else {
		for (int i = 0; i < no; i++) {
			const ir_tensor *t = ir_graph_tensor(g, ir_graph_output(g, i));
			int k = 0;
			while (npz && k < n && strcmp(a[k].name, t->name))
				k++;
			if (k == n) {
				bad = cli_error(file, "no reference for output '%s'", t->name);
				continue;
			}
			used[k] = true;
			ref[i] = &a[k];
			if (!ir_shape_equal(&a[k].shape, &t->shape))
				bad = cli_error(file, "output '%s': the reference's shape %s does not match the model's %s",
						t->name, ir_shape_str(&a[k].shape, s1, sizeof s1),
						ir_shape_str(&t->shape, s2, sizeof s2));
		}
		for (int k = 0; k < n; k++)
			if (!used[k])
				bad = cli_error(file, "array '%s' is not an output of the model (its outputs are %s)",
						a[k].name, io_names(g, true, names, sizeof names));
	}
	free(used);
	if (bad) {
		free(ref);
		return NULL;
	}
	return ref;
}

/* Compare every output with its reference; prints a report line per output
 * on rep (unless -q). Returns the number of outputs that differ. */
static int compare(const ir_graph *g, ir_exec *e, npy_array **ref, const options *o, FILE *rep)
{
	int bad = 0;
	for (int i = 0; i < ir_graph_output_count(g); i++) {
		const ir_tensor *t = ir_graph_tensor(g, ir_graph_output(g, i));
		const void *y = ir_exec_output(e, i, NULL);
		size_t n = (size_t)ir_shape_numel(&t->shape), at = 0;
		double maxref = 0, maxerr = 0;
		bool nan = false;
		for (size_t k = 0; k < n; k++) {
			double r = ir_elem_get(ref[i]->data, ref[i]->dtype, (int64_t)k), v = ir_elem_get(y, t->dtype, (int64_t)k);
			double err = r == v || (isnan(r) && isnan(v)) ? 0 : fabs(v - r);
			if (isfinite(r) && fabs(r) > maxref)
				maxref = fabs(r);
			if (isnan(err) && !nan) {	/* exactly one of them is NaN */
				nan = true;
				at = k;
			} else if (!nan && err > maxerr) {
				maxerr = err;
				at = k;
			}
		}
		double tol = o->atol + o->rtol * maxref;
		bool ok = !nan && maxerr <= tol;
		bad += !ok;
		if (cli_verbose < 0)
			continue;
		fprintf(rep, "output '%s': max abs error %.3g, max |ref| %.3g, relative %.3g (tolerance %.3g): %s",
			t->name, nan ? NAN : maxerr, maxref, nan ? NAN : maxref > 0 ? maxerr / maxref : maxerr, tol,
			ok ? "ok" : "MISMATCH");
		if (!ok) {
			int64_t idx[IR_MAX_RANK];
			size_t rest = at;
			for (int d = t->shape.rank - 1; d >= 0; d--) {
				idx[d] = t->shape.dim[d] ? (int64_t)(rest % (size_t)t->shape.dim[d]) : 0;
				rest = t->shape.dim[d] ? rest / (size_t)t->shape.dim[d] : 0;
			}
			fprintf(rep, " at [");
			for (int d = 0; d < t->shape.rank; d++)
				fprintf(rep, "%s%lld", d ? ", " : "", (long long)idx[d]);
			fprintf(rep, "]: %.9g, reference %.9g", ir_elem_get(y, t->dtype, (int64_t)at),
				ir_elem_get(ref[i]->data, ref[i]->dtype, (int64_t)at));
		}
		fputc('\n', rep);
	}
	return bad;
}

/* ---------------------------------------------------------------- main */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
	double t;
	int node;
} node_time;

static int cmp_time(const void *x, const void *y)
{
	const node_time *a = x, *b = y;
	return a->t < b->t ? 1 : a->t > b->t ? -1 : a->node - b->node;
}

/* -v: the mean time of each node over the runs, slowest first. */
static void report_times(const ir_graph *g, const double *sum, long runs)
{
	int nn = ir_graph_node_count(g), wname = 4, wop = 2;
	node_time *v = malloc(sizeof *v * ((size_t)nn + 1));
	double total = 0;
	if (!v)
		return;
	for (int i = 0; i < nn; i++) {
		const ir_node *n = ir_graph_node(g, i);
		v[i] = (node_time){sum[i] / (double)runs, i};
		total += v[i].t;
		int a = (int)strlen(n->name), b = (int)strlen(ir_op_name(n->op));
		wname = a > wname ? a : wname;
		wop = b > wop ? b : wop;
	}
	qsort(v, (size_t)nn, sizeof *v, cmp_time);
	fprintf(stderr, "%s: time per node (mean of %ld run%s):\n", cli_prog, runs, runs == 1 ? "" : "s");
	fprintf(stderr, "  %10s  %6s  %-*s  %s\n", "ms", "%", wop, "op", "node");
	for (int i = 0; i < nn; i++) {
		const ir_node *n = ir_graph_node(g, v[i].node);
		fprintf(stderr, "  %10.4f  %5.1f%%  %-*s  %s\n", v[i].t * 1e3, total > 0 ? 100 * v[i].t / total : 0.0,
			wop, ir_op_name(n->op), n->name);
	}
	free(v);
}

int main(int argc, char **argv)
{
	options o = {.rtol = 1e-4, .atol = 1e-6, .mode = IR_MODE_F32, .repeat = 1, .threads = 1};
	cli_init("npu-run", argc, argv);
	parse_args(argc, argv, &o);
	const char *irname = cli_name(o.ir);
	const char *out = o.out ? o.out : o.compare ? NULL : "-";
	bool to_stdout = out && !strcmp(out, "-");
	int rc = CLI_FAIL, nref = 0;
	npy_array *refs = NULL, **ref = NULL;
	ir_exec *e = NULL;
	dumper du = {0};
	double *sum = NULL;
	ir_diag d;
	if (to_stdout && !o.force && isatty(STDOUT_FILENO))
		return cli_error(NULL, "refusing to write an .npz to a terminal; use -o FILE, or -f to force");
	ir_graph *g = cli_read_ir(o.ir);
	if (!g)
		return CLI_FAIL;
	int no = ir_graph_output_count(g), nn = ir_graph_node_count(g);
	char names[1024];
	if (out && ends_with(out, ".npy") && no != 1) {
		cli_error(out, "a .npy holds one array and the model has %d outputs (%s): write an .npz", no,
			  io_names(g, true, names, sizeof names));
		goto done;
	}
	bool bad = false;	/* a bad reference still lets the inputs be checked */
	if (o.compare) {
		bool npz;
		struct stat st;
		if (stat(o.compare, &st) == 0 && S_ISDIR(st.st_mode))
			refs = load_dir(g, o.compare, &nref), npz = true;
		else
			refs = load_arrays(o.compare, &nref, &npz);
		bad = !refs || !(ref = match_refs(g, o.compare, refs, nref, npz));
	}
	if (o.runtime && !ir_graph_is_lowered(g))	/* what npu-emit does with a float graph */
		for (int i = 0; i < nn; i++)
			ir_graph_node(g, i)->precision = IR_PREC_F32;
	if (!(e = ir_exec_new(g, o.mode, (int)o.threads, &d))) {
		cli_diag(g, irname, &d);
		goto done;
	}
	if (set_inputs(e, g, &o) || bad)
		goto done;
	if (o.dump_dir) {
		if (dump_setup(&du, g, o.dump_dir))
			goto done;
		ir_exec_set_hook(e, dump_tensor, &du);
	}
	if (!(sum = calloc((size_t)nn + 1, sizeof *sum))) {
		cli_error(NULL, "out of memory");
		goto done;
	}
	double tmin = INFINITY, tmax = 0, ttot = 0;
	for (long r = 0; r < o.repeat; r++) {
		double t0 = now();
		if (ir_exec_run(e, &d)) {
			if (!du.failed)	/* else the dump's error is out and stopped the run */
				cli_diag(g, irname, &d);
			goto done;
		}
		double t = now() - t0;
		tmin = t < tmin ? t : tmin;
		tmax = t > tmax ? t : tmax;
		ttot += t;
		if (r == 0)
			ir_exec_set_hook(e, NULL, NULL);	/* dump the first run only */
		const double *nt = ir_exec_node_times(e);
		for (int i = 0; i < nn; i++)
			sum[i] += nt[i];
	}
	cli_info(1, "%s: %d nodes, %s, %ld thread%s, %ld run%s: %.3f ms per run (min %.3f, max %.3f)", irname, nn,
		 o.mode == IR_MODE_F16 ? "fp16" : "fp32", o.threads, o.threads == 1 ? "" : "s", o.repeat,
		 o.repeat == 1 ? "" : "s", ttot / (double)o.repeat * 1e3, tmin * 1e3, tmax * 1e3);
	if (cli_verbose >= 1)
		report_times(g, sum, o.repeat);
	if (o.mode == IR_MODE_F16) {
		long long over = (long long)ir_exec_f16_overflows(e);
		if (over)
			cli_warn(irname, "fp16: %lld value%s overflowed to infinity in the last run", over,
				 over == 1 ? "" : "s");
		else
			cli_info(1, "%s: fp16: no value overflowed", irname);
	}
	int mismatches = ref ? compare(g, e, ref, &o, to_stdout ? stderr : stdout) : 0;
	if (out && write_outputs(g, e, to_stdout ? NULL : out))
		goto done;
	if (mismatches) {
		cli_error(cli_name(o.compare), "%d of %d output%s differ%s from the reference", mismatches, no,
			  no == 1 ? "" : "s", mismatches == 1 ? "s" : "");
		goto done;
	}
	rc = CLI_OK;
done:
	free(sum);
	dump_free(&du);
	ir_exec_free(e);
	free(ref);
	npz_free(refs, nref);
	ir_graph_free(g);
	if (rc == CLI_OK && !to_stdout && fclose(stdout) != 0)
		return cli_error("<stdout>", "write error: %s", strerror(errno));
	return rc;
}
