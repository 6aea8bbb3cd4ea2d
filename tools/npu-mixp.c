/* npu-mixp - automatic mixed-precision search: the fewest ops to keep in
 * higher precision so that the quantized graph meets a criterion. See
 * npu-mixp(1).
 *
 * npu-quant does the quantizing (run as a program: one calibration with
 * --stats-out and --report, then one run per candidate configuration with
 * --stats-in and --config); this program orders the candidates by the
 * report's local error, evaluates configurations with eval.h and decides. */
#define _GNU_SOURCE	/* posix_spawn_file_actions_addchdir_np (glibc 2.29) */
#include "eval/eval.h"
#include "ir_cli.h"
#include "json/json.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { CRIT_NONE, CRIT_COSINE, CRIT_ALLCLOSE, CRIT_CMD, CRIT_METRIC };

typedef struct {
	const char *in, *out, *target, *data, *config_out, *report, *shard_spec, *metric_cmd;
	const char *metric;	/* --metric SPEC: a builtin figure or metric plugin (eval.h) */
	const char **calib, **qargs, **merge;
	int ncalib, nqargs, nmerge;
	const char *id_filter, *id_bypass, *type_filter, *type_bypass, *fp32;
	const char *keep;	/* float or int16 */
	int crit;
	double threshold, rtol, atol, ntol;
	int jobs, shard_k, shard_n;
	bool stats_only, brute, force;
	bool list_plugins;	/* --plugin */
	const char **plugin_file;	/* --plugin-file */
	int nplugin_file;
} options;

typedef struct {
	char *node, *op, *dtype;
	double local_sqnr, local_cos, local_abs, sqnr, cos, abs_err, saturated, clipped;
	double nan, inf;
	bool has_local;
	int rank;		/* in the report's order (1 = worst local error) */
	int cand;		/* index among the candidates, or -1 */
	const char *decision, *why;
	char whybuf[160];
} layer;

typedef struct {
	double metric;
	bool pass, done;
} result;

static options o;
static char *work;		/* scratch directory */
static const char *ir_path;	/* the float IR as a file */
static const char *quant_prog;
static layer *layers;
static int nlayers;
static int *cand, ncand;	/* candidates: layer indices, worst local error first */
static char **forced;
static int nforced;
static ev_set set;
static ev_opts evo;
static ev_meter meter;		/* --metric */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int evaluations;
static bool progress_shown;	/* a progress line to end */

static void help(void)
{
	printf("Usage: %s [IR|-] -t TARGET [-c CALIB]... -d DATA CRITERION [options] [-o OUT.ir]\n"
	       "       %s [IR|-] -t TARGET [-c CALIB]... --stats-only [--report FILE.json]\n"
	       "Find the fewest ops to keep in higher precision so that the quantized graph meets\n"
	       "a criterion on a data set (npu-quant does the quantizing).\n"
	       "\n"
	       "Criterion (one):\n"
	       "      --cosine X            cosine similarity of all outputs with the reference >= X\n"
	       "      --allclose R,A,N      at most a share N of the output values has |y - ref| > A + R |ref|\n"
	       "      --metric-cmd CMD --min Y  CMD (sh -c; {} or $NPU_MIXP_IR is the candidate IR)\n"
	       "                            prints a number >= Y (e.g. 'npu-eval {} test.npz --print top1')\n"
	       "      --metric SPEC --min Y a figure of npu-eval(1) (top1, ...) or a metric plugin NAME[:ARGS]\n"
	       "                            (npu-plugin(7), e.g. topk:5) on the data >= Y, measured in-process\n"
	       "Quantization (passed to npu-quant):\n"
	       "  -t, --target NAME|PATH    the target profile\n"
	       "  -c, --calib FILE|DIR      calibration samples (repeatable)\n"
	       "  -Q, --quant-opt ARG       one more npu-quant argument (repeatable; not --config)\n"
	       "  -d, --data FILE|DIR|SPEC  the samples the criterion is measured on (npu-eval(1)'s data\n"
	       "                            sets, or a dataset plugin NAME[:ARGS]); the reference is its stored\n"
	       "                            outputs, or else the float graph\n"
	       "      --keep float|int16    the higher precision (default float)\n"
	       "Candidates (op ids are node names, npu-dump lists them; shell patterns allowed):\n"
	       "      --op-id-filter LIST   only these nodes\n"
	       "      --op-id-bypass LIST   never these nodes\n"
	       "      --op-type-filter LIST only nodes of these ops\n"
	       "      --op-type-bypass LIST never nodes of these ops\n"
	       "      --fp32-nodes LIST     always keep these nodes in float\n"
	       "Search:\n"
	       "      --stats-only          no search: per-op statistics of the fully quantized graph\n"
	       "      --brute-force         try every subset of the candidates, smallest first (<= 16)\n"
	       "  -j, --jobs N              evaluate N candidate configurations at once\n"
	       "      --shard K/N           evaluate only shard K of N of the candidate sets; -o writes\n"
	       "                            the shard's results (JSON)\n"
	       "      --merge FILE          take candidate results from shard files (repeatable), then decide\n"
	       "Plugins (npu-plugin(7)):\n"
	       "      --plugin              list the plugins found in $NPU_PLUGIN_PATH and ./plugin and exit\n"
	       "      --plugin-file SO      load this plugin object too (repeatable)\n"
	       "Output:\n"
	       "  -o, --out FILE            the quantized IR of the chosen configuration\n"
	       "      --config-out FILE     the chosen configuration as an npu-quant --config file\n"
	       "      --report FILE.json    per op: statistics, decision and why; metric; time\n"
	       "  -f, --force               write binary IR even to a terminal\n"
	       "  -v, --verbose             every evaluation on standard error\n"
	       "  -q, --quiet               no warnings\n"
	       "      --help                show this help and exit\n"
	       "  -V, --version             show the version and exit\n"
	       "\n"
	       "Exit status: 0 success, 1 bad input, I/O failure or a criterion no candidate set meets, 2 usage.\n",
	       cli_prog, cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static const char **push(const char **v, int *n, const char *s)
{
	const char **p = realloc(v, sizeof *p * (size_t)(*n + 1));
	if (!p) {
		cli_error(NULL, "out of memory");
		exit(CLI_FAIL);
	}
	p[(*n)++] = s;
	return p;
}

static double number(const char *opt, const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (!*s || *end || !isfinite(v))
		cli_usage("%s '%s': expected a number", opt, s);
	return v;
}

static void parse_args(int argc, char **argv)
{
	enum { OPT_COS = 256, OPT_ALLCLOSE, OPT_CMD, OPT_MIN, OPT_KEEP, OPT_IDF, OPT_IDB, OPT_TF, OPT_TB, OPT_FP32,
	       OPT_STATS, OPT_BRUTE, OPT_SHARD, OPT_MERGE, OPT_CFG, OPT_REPORT, OPT_METRIC, OPT_PLUGIN,
	       OPT_PLUGIN_FILE };
	static const struct option longopts[] = {
		{"cosine", required_argument, NULL, OPT_COS},
		{"allclose", required_argument, NULL, OPT_ALLCLOSE},
		{"metric-cmd", required_argument, NULL, OPT_CMD},
		{"metric", required_argument, NULL, OPT_METRIC},
		{"plugin", no_argument, NULL, OPT_PLUGIN},
		{"plugin-file", required_argument, NULL, OPT_PLUGIN_FILE},
		{"min", required_argument, NULL, OPT_MIN},
		{"target", required_argument, NULL, 't'},
		{"calib", required_argument, NULL, 'c'},
		{"quant-opt", required_argument, NULL, 'Q'},
		{"data", required_argument, NULL, 'd'},
		{"keep", required_argument, NULL, OPT_KEEP},
		{"op-id-filter", required_argument, NULL, OPT_IDF},
		{"op-id-bypass", required_argument, NULL, OPT_IDB},
		{"op-type-filter", required_argument, NULL, OPT_TF},
		{"op-type-bypass", required_argument, NULL, OPT_TB},
		{"fp32-nodes", required_argument, NULL, OPT_FP32},
		{"stats-only", no_argument, NULL, OPT_STATS},
		{"brute-force", no_argument, NULL, OPT_BRUTE},
		{"jobs", required_argument, NULL, 'j'},
		{"shard", required_argument, NULL, OPT_SHARD},
		{"merge", required_argument, NULL, OPT_MERGE},
		{"config-out", required_argument, NULL, OPT_CFG},
		{"report", required_argument, NULL, OPT_REPORT},
		CLI_COMMON_OPTS,
		{NULL, 0, NULL, 0},
	};
	int c, ncrit = 0;
	bool have_min = false;
	o.jobs = 1;
	o.keep = "float";
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:c:Q:d:j:o:fVvq", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_COS:
			o.crit = CRIT_COSINE, ncrit++;
			o.threshold = number("--cosine", optarg);
			break;
		case OPT_ALLCLOSE: {
			char *end;
			o.crit = CRIT_ALLCLOSE, ncrit++;
			o.rtol = strtod(optarg, &end);
			if (*end == ',')
				o.atol = strtod(end + 1, &end);
			if (*end == ',')
				o.ntol = strtod(end + 1, &end);
			if (*end || strchr(optarg, ',') == strrchr(optarg, ',') || !(o.rtol >= 0 && o.atol >= 0 &&
										      o.ntol >= 0 && o.ntol <= 1))
				cli_usage("--allclose '%s': expected RTOL,ATOL,NTOL (NTOL a share from 0 to 1)", optarg);
			break;
		}
		case OPT_CMD: o.crit = CRIT_CMD, ncrit++, o.metric_cmd = optarg; break;
		case OPT_METRIC: o.crit = CRIT_METRIC, ncrit++, o.metric = optarg; break;
		case OPT_PLUGIN: o.list_plugins = true; break;
		case OPT_PLUGIN_FILE: o.plugin_file = push(o.plugin_file, &o.nplugin_file, optarg); break;
		case OPT_MIN: o.threshold = number("--min", optarg), have_min = true; break;
		case 't': o.target = optarg; break;
		case 'c': o.calib = push(o.calib, &o.ncalib, optarg); break;
		case 'Q':
			if (!strncmp(optarg, "--config", 8) || !strncmp(optarg, "--float-layers", 14) ||
			    !strncmp(optarg, "--stats", 7) || !strcmp(optarg, "-o"))
				cli_usage("-Q %s: npu-mixp sets it itself", optarg);
			o.qargs = push(o.qargs, &o.nqargs, optarg);
			break;
		case 'd': o.data = optarg; break;
		case OPT_KEEP:
			if (strcmp(optarg, "float") && strcmp(optarg, "int16"))
				cli_usage("--keep '%s': expected float or int16", optarg);
			o.keep = optarg;
			break;
		case OPT_IDF: o.id_filter = optarg; break;
		case OPT_IDB: o.id_bypass = optarg; break;
		case OPT_TF: o.type_filter = optarg; break;
		case OPT_TB: o.type_bypass = optarg; break;
		case OPT_FP32: o.fp32 = optarg; break;
		case OPT_STATS: o.stats_only = true; break;
		case OPT_BRUTE: o.brute = true; break;
		case 'j': o.jobs = (int)number("--jobs", optarg); if (o.jobs < 1 || o.jobs > 256) cli_usage("--jobs '%s': 1 to 256", optarg); break;
		case OPT_SHARD: {
			char *end;
			o.shard_k = (int)strtol(optarg, &end, 10);
			if (*end == '/')
				o.shard_n = (int)strtol(end + 1, &end, 10);
			if (*end || o.shard_n < 1 || o.shard_k < 1 || o.shard_k > o.shard_n)
				cli_usage("--shard '%s': expected K/N with 1 <= K <= N", optarg);
			break;
		}
		case OPT_MERGE: o.merge = push(o.merge, &o.nmerge, optarg); break;
		case OPT_CFG: o.config_out = optarg; break;
		case OPT_REPORT: o.report = optarg; break;
		default: cli_common_option(c, argv, &o.out, &o.force, help);
		}
	}
	if (optind < argc)
		o.in = argv[optind++];
	if (optind < argc)
		cli_usage("unexpected argument '%s' (one IR at a time)", argv[optind]);
	if (o.list_plugins) {
		if (o.in)
			cli_usage("--plugin takes no IR");
		return;
	}
	if (!o.target)
		cli_usage("--target is required");
	if (o.stats_only) {
		if (ncrit || o.shard_n || o.nmerge || o.brute)
			cli_usage("--stats-only takes no criterion, --shard, --merge or --brute-force");
		return;
	}
	if (ncrit != 1)
		cli_usage("give one criterion: --cosine X, --allclose R,A,N, --metric-cmd CMD --min Y or --metric SPEC --min Y");
	if ((o.crit == CRIT_CMD || o.crit == CRIT_METRIC) != have_min)
		cli_usage("--min goes with --metric-cmd or --metric");
	if (!o.data)
		cli_usage("--data is required (the samples the criterion is measured on)");
	if (o.shard_n && (o.nmerge || o.brute || o.config_out || o.report))
		cli_usage("--shard writes only its results (-o); merge them with --merge");
	if (o.shard_n && !o.out)
		cli_usage("--shard needs -o FILE for its results");
	if (o.brute && o.nmerge)
		cli_usage("--brute-force and --merge exclude each other");
}

/* ---------------------------------------------------------------- helpers */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool in_list(const char *list, const char *s)
{
	if (!list)
		return false;
	char *copy = strdup(list), *save = NULL;
	bool hit = false;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && !hit; t = strtok_r(NULL, ",", &save))
		hit = !fnmatch(t, s, 0);
	free(copy);
	return hit;
}

static void rm_work(void)
{
	if (!work)
		return;
	char *cmd[] = {"rm", "-rf", work, NULL};
	pid_t pid;
	int st;
	if (!posix_spawnp(&pid, "rm", NULL, NULL, cmd, environ))
		waitpid(pid, &st, 0);
}

/* Run argv (in directory dir if not NULL); stderr to errfile. 0 if it exited 0. */
static int run(char *const argv[], const char *errfile, const char *outfile, const char *dir)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (dir)
		posix_spawn_file_actions_addchdir_np(&fa, dir);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (outfile)
		posix_spawn_file_actions_addopen(&fa, 1, outfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	pid_t pid;
	int st = 0, rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return -1;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* First line of a file (for npu-quant's message), malloc'ed. */
static char *first_line(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[600] = "";
	if (f) {
		if (!fgets(buf, sizeof buf, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	return strdup(buf[0] ? buf : "(no message)");
}

static char **owned;		/* absolute() results, freed at the end */
static int nowned;

/* path made absolute if it names an existing file (else as it is) */
static const char *absolute(const char *path)
{
	char *r = path[0] == '/' ? NULL : realpath(path, NULL);
	char **p = r ? realloc(owned, sizeof *p * (size_t)(nowned + 1)) : NULL;
	if (!p) {
		free(r);
		return path;
	}
	owned = p;
	owned[nowned++] = r;
	return r;
}

static void cleanup(void)
{
	for (int i = 0; i < nowned; i++)
		free(owned[i]);
	free(owned);
	for (int i = 0; i < nlayers; i++) {
		free(layers[i].node);
		free(layers[i].op);
		free(layers[i].dtype);
	}
	free(layers);
	free(cand);
	for (int i = 0; i < nforced; i++)
		free(forced[i]);
	free(forced);
	free(o.calib);
	free(o.qargs);
	free(o.merge);
}

static const char *find_quant(const char *argv0)
{
	const char *env = getenv("NPU_QUANT");
	if (env && *env)
		return env;
	static char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 16);
	if (n > 0) {
		path[n] = 0;
		char *slash = strrchr(path, '/');
		if (slash) {
			strcpy(slash + 1, "npu-quant");
			if (!access(path, X_OK))
				return path;
		}
	}
	(void)argv0;
	return "npu-quant";
}

/* npu-quant IR -t T ARGS... EXTRA... -q -o out; message on failure. */
static int quant(const char *const *extra, int nextra, const char *out, const char *tag)
{
	int n = 0;
	const char **argv = calloc((size_t)(o.nqargs + nextra + 12), sizeof *argv);
	if (!argv)
		return cli_error(NULL, "out of memory"), -1;
	argv[n++] = quant_prog;
	argv[n++] = ir_path;
	argv[n++] = "--target";
	argv[n++] = o.target;
	for (int i = 0; i < o.nqargs; i++)
		argv[n++] = o.qargs[i];
	for (int i = 0; i < nextra; i++)
		argv[n++] = extra[i];
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = out;
	char err[4096];
	snprintf(err, sizeof err, "%s/%s.err", work, tag);
	/* in the scratch directory, so that the IR's history names no scratch path */
	int rc = run((char *const *)argv, err, NULL, work);
	free(argv);
	if (rc) {
		char *m = first_line(err);
		cli_error(cli_name(o.in), "%s failed: %s", quant_prog, m);
		free(m);
	}
	return rc;
}

/* ---------------------------------------------------------------- the report */

static double jnum(const json_value *l, const char *k, bool *has)
{
	const json_value *v = json_get(l, k);
	double d;
	if (!v || json_double(v, &d)) {
		if (has)
			*has = false;
		return NAN;
	}
	return d;
}

static const char *jstr(const json_value *l, const char *k)
{
	const json_value *v = json_get(l, k);
	return v && v->type == JSON_STRING ? v->text : "";
}

static int read_report(const char *path)
{
	uint8_t *buf;
	size_t size;
	if (cli_read_file(path, false, &buf, &size))
		return -1;
	char err[256];
	json_doc *doc = json_parse((const char *)buf, size, NULL, err, sizeof err);
	free(buf);
	if (!doc)
		return cli_error(path, "npu-quant's report: %s", err), -1;
	const json_value *ls = json_get(json_root(doc), "layers");
	if (!ls || ls->type != JSON_ARRAY) {
		json_free(doc);
		return cli_error(path, "npu-quant's report has no layers"), -1;
	}
	layers = calloc(ls->len + 1, sizeof *layers);
	for (size_t i = 0; layers && i < ls->len; i++) {
		const json_value *l = &ls->items[i];
		layer *y = &layers[nlayers];
		y->node = strdup(jstr(l, "node"));
		y->op = strdup(jstr(l, "op"));
		y->dtype = strdup(jstr(l, "dtype"));
		y->has_local = true;
		y->local_sqnr = jnum(l, "local_sqnr_db", &y->has_local);
		y->local_cos = jnum(l, "local_cosine", NULL);
		y->local_abs = jnum(l, "local_max_abs_err", NULL);
		y->sqnr = jnum(l, "sqnr_db", NULL);
		y->cos = jnum(l, "cosine", NULL);
		y->abs_err = jnum(l, "max_abs_err", NULL);
		y->saturated = jnum(l, "saturated", NULL);
		y->clipped = jnum(l, "clipped", NULL);
		y->nan = jnum(l, "nan", NULL);
		y->inf = jnum(l, "inf", NULL);
		y->rank = (int)i + 1;
		y->cand = -1;
		nlayers++;
	}
	json_free(doc);
	if (!layers)
		return cli_error(NULL, "out of memory"), -1;
	return 0;
}

static bool conversion(const char *op)
{
	return !strcmp(op, "quantize") || !strcmp(op, "dequantize") || !strcmp(op, "requantize") ||
	       !strcmp(op, "cast") || !strcmp(op, "input");
}

static void choose_candidates(void)
{
	cand = calloc((size_t)nlayers + 1, sizeof *cand);
	for (int i = 0; cand && i < nlayers; i++) {
		layer *y = &layers[i];
		if (!*y->node || conversion(y->op)) {
			y->decision = "none";
			y->why = "a conversion or graph input, not an op to keep";
		} else if (in_list(o.fp32, y->node)) {
			y->decision = "float";
			y->why = "forced by --fp32-nodes";
		} else if (!strcmp(y->dtype, "f32")) {
			y->decision = "float";
			y->why = "already float in the quantized graph (a float island)";
		} else if (!strcmp(o.keep, "int16") && !strcmp(y->dtype, "i16")) {
			y->decision = "quantized";
			y->why = "already int16";
		} else if (in_list(o.id_bypass, y->node)) {
			y->decision = "quantized";
			y->why = "bypassed by --op-id-bypass";
		} else if (in_list(o.type_bypass, y->op)) {
			y->decision = "quantized";
			y->why = "bypassed by --op-type-bypass";
		} else if (o.id_filter && !in_list(o.id_filter, y->node)) {
			y->decision = "quantized";
			y->why = "not in --op-id-filter";
		} else if (o.type_filter && !in_list(o.type_filter, y->op)) {
			y->decision = "quantized";
			y->why = "not in --op-type-filter";
		} else {
			y->cand = ncand;
			cand[ncand++] = i;
		}
	}
}

/* ---------------------------------------------------------------- evaluation */

static void yaml_name(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
	fputc('"', f);
}

/* The configuration: forced nodes in float, set members in o.keep. */
static int write_config(const char *path, const bool *in)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return cli_error(path, "%s", strerror(errno)), -1;
	fprintf(f, "# npu-mixp: ops kept in higher precision (npu-quant --config)\nlayers:\n");
	int n = 0;
	for (int i = 0; i < nforced; i++, n++) {
		fputs("  ", f);
		yaml_name(f, forced[i]);
		fputs(": float\n", f);
	}
	for (int c = 0; c < ncand; c++)
		if (in[c]) {
			fputs("  ", f);
			yaml_name(f, layers[cand[c]].node);
			fprintf(f, ": %s\n", o.keep);
			n++;
		}
	if (!n)
		fputs("  {}\n", f);
	if (fclose(f))
		return cli_error(path, "write error"), -1;
	return 0;
}

static int metric_cmd(const char *irfile, const char *tag, double *v)
{
	/* {} -> the IR path (quoted); also in the environment */
	size_t cap = strlen(o.metric_cmd) * 1 + 16;
	for (const char *p = o.metric_cmd; (p = strstr(p, "{}")); p += 2)
		cap += strlen(irfile) + 2;
	char *cmd = malloc(cap);
	if (!cmd)
		return -1;
	char *w = cmd;
	for (const char *p = o.metric_cmd; *p;)
		if (p[0] == '{' && p[1] == '}') {
			w += sprintf(w, "'%s'", irfile);
			p += 2;
		} else
			*w++ = *p++;
	*w = 0;
	char out[4096], err[4096], env[4200];
	snprintf(out, sizeof out, "%s/%s.metric", work, tag);
	snprintf(err, sizeof err, "%s/%s.metric.err", work, tag);
	snprintf(env, sizeof env, "NPU_MIXP_IR=%s", irfile);
	char *argv[] = {"env", env, "sh", "-c", cmd, NULL};
	int rc = run(argv, err, out, NULL);
	free(cmd);
	if (rc) {
		char *m = first_line(err);
		cli_error(NULL, "--metric-cmd failed: %s", m);
		free(m);
		return -1;
	}
	FILE *f = fopen(out, "r");
	char line[256] = "", *end;
	if (f) {
		if (!fgets(line, sizeof line, f))
			line[0] = 0;
		fclose(f);
	}
	*v = strtod(line, &end);
	if (end == line || (*end && *end != '\n' && *end != ' '))
		return cli_error(NULL, "--metric-cmd printed '%.*s', not a number", (int)strcspn(line, "\n"), line), -1;
	return 0;
}

/* Evaluate one configuration (tag names its files). */
static int evaluate(const bool *in, const char *tag, result *r)
{
	char cfg[4096], irf[4096];
	snprintf(cfg, sizeof cfg, "%s/%s.yaml", work, tag);
	snprintf(irf, sizeof irf, "%s/%s.ir", work, tag);
	char rcfg[64], rirf[64];
	snprintf(rcfg, sizeof rcfg, "%s.yaml", tag);
	snprintf(rirf, sizeof rirf, "%s.ir", tag);
	const char *extra[] = {"--stats-in", "calib.stats", "--config", rcfg};
	if (write_config(cfg, in) || quant(extra, 4, rirf, tag))
		return -1;
	r->done = true;
	if (o.crit == CRIT_CMD) {
		if (metric_cmd(irf, tag, &r->metric))
			return -1;
		r->pass = r->metric >= o.threshold;
	} else {
		ir_graph *g = cli_read_ir(irf);
		if (!g)
			return -1;
		ev_result er;
		ir_diag d;
		ev_opts eo = evo;
		eo.threads = 1;
		eo.progress = false;
		if (o.crit == CRIT_METRIC) {
			eo.meter = &meter;	/* each run creates its own plugin handle: runs may overlap (-j) */
			eo.nmeter = 1;
		}
		int rc = ev_run(&set, g, NULL, &eo, &er, &d);
		if (rc && er.failed)
			cli_error(er.failed, "%s", d.msg);
		else if (rc)
			cli_diag(g, irf, &d);
		else if (o.crit == CRIT_METRIC && ev_meter_value(&meter, 0, &er, &r->metric))
			rc = cli_error(o.data, "--metric %s: the data set cannot give it", o.metric);
		ir_graph_free(g);
		if (rc)
			return -1;
		if (o.crit == CRIT_METRIC) {
			r->pass = r->metric >= o.threshold;
		} else if (o.crit == CRIT_COSINE) {
			r->metric = er.cosine;
			r->pass = er.cosine >= o.threshold;
		} else {
			r->metric = er.mismatch_frac;
			r->pass = er.allclose;
		}
	}
	pthread_mutex_lock(&mu);
	evaluations++;
	if (cli_verbose == 0 && isatty(2)) {	/* progress, a few updates a second */
		static double last;
		double t = now();
		if (t - last >= 0.25) {
			last = t;
			fprintf(stderr, "\r%s: %d configurations evaluated", cli_prog, evaluations);
			progress_shown = true;
		}
	}
	if (cli_verbose > 0) {
		fprintf(stderr, "%s: %s: {", cli_prog, tag);
		for (int c = 0, first = 1; c < ncand; c++)
			if (in[c])
				fprintf(stderr, "%s%s", first ? "" : ", ", layers[cand[c]].node), first = 0;
		fprintf(stderr, "}: %.6g %s\n", r->metric, r->pass ? "meets the criterion" : "fails");
	}
	pthread_mutex_unlock(&mu);
	return 0;
}

/* Prefix k: the k most sensitive candidates. */
typedef struct {
	int next, end, step, failed;
	result *res;
	int stop_at;		/* -1: run all; else stop handing out past a pass */
} prefix_job;

static int eval_prefix(int k, result *r)
{
	bool *in = calloc((size_t)ncand + 1, 1);
	if (!in)
		return -1;
	for (int c = 0; c < k; c++)
		in[c] = true;
	char tag[32];
	snprintf(tag, sizeof tag, "prefix%d", k);
	int rc = evaluate(in, tag, r);
	free(in);
	return rc;
}

static void *prefix_worker(void *arg)
{
	prefix_job *j = arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		int k = j->failed || (j->stop_at >= 0 && j->next > j->stop_at) ? j->end + 1 : j->next;
		j->next += j->step;
		pthread_mutex_unlock(&mu);
		if (k > j->end)
			break;
		result r = {0};
		int rc = eval_prefix(k, &r);
		pthread_mutex_lock(&mu);
		if (rc)
			j->failed = 1;
		j->res[k] = r;
		if (!rc && r.pass && j->stop_at >= 0 && k < j->stop_at)
			j->stop_at = k;
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

/* Evaluate prefixes start, start+step, ... <= ncand on o.jobs threads. */
static int run_prefixes(result *res, int start, int step, bool early_stop)
{
	prefix_job j = {.next = start, .end = ncand, .step = step, .res = res, .stop_at = early_stop ? ncand : -1};
	int nt = o.jobs;
	pthread_t th[256];
	int started = 0;
	for (int i = 1; i < nt; i++, started++)
		if (pthread_create(&th[i], NULL, prefix_worker, &j))
			break;
	prefix_worker(&j);
	for (int i = 1; i <= started; i++)
		pthread_join(th[i], NULL);
	return j.failed ? -1 : 0;
}

/* ---------------------------------------------------------------- shards */

static const char *crit_str(char *buf, size_t n)
{
	if (o.crit == CRIT_COSINE)
		snprintf(buf, n, "cosine >= %.17g", o.threshold);
	else if (o.crit == CRIT_ALLCLOSE)
		snprintf(buf, n, "allclose rtol %.17g atol %.17g ntol %.17g", o.rtol, o.atol, o.ntol);
	else if (o.crit == CRIT_METRIC)
		snprintf(buf, n, "metric %s >= %.17g", o.metric, o.threshold);
	else
		snprintf(buf, n, "metric-cmd >= %.17g: %s", o.threshold, o.metric_cmd);
	return buf;
}


static void json_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("null", f);
	else if (isinf(v))
		fputs(v > 0 ? "1e999" : "-1e999", f);
	else
		fprintf(f, "%.17g", v);
}

static int write_shard(const result *res)
{
	cli_output out;
	if (cli_output_open(&out, o.out, false, true))
		return -1;
	char cs[1024];
	fprintf(out.f, "{\n  \"npu-mixp-shard\": 1,\n  \"shard\": \"%d/%d\",\n  \"criterion\": ", o.shard_k, o.shard_n);
	cli_json_str(out.f, crit_str(cs, sizeof cs));
	fprintf(out.f, ",\n  \"keep\": \"%s\",\n  \"candidates\": [", o.keep);
	for (int c = 0; c < ncand; c++) {
		fputs(c ? ", " : "", out.f);
		cli_json_str(out.f, layers[cand[c]].node);
	}
	fputs("],\n  \"prefixes\": [", out.f);
	for (int k = 0, first = 1; k <= ncand; k++)
		if (res[k].done) {
			fprintf(out.f, "%s\n    {\"k\": %d, \"metric\": ", first ? "" : ",", k);
			json_num(out.f, res[k].metric);
			fprintf(out.f, ", \"pass\": %s}", res[k].pass ? "true" : "false");
			first = 0;
		}
	fputs("\n  ]\n}\n", out.f);
	return cli_output_commit(&out);
}

static int read_shard(const char *path, result *res)
{
	uint8_t *buf;
	size_t size;
	if (cli_read_file(path, false, &buf, &size))
		return -1;
	char err[256], cs[1024];
	json_doc *doc = json_parse((const char *)buf, size, NULL, err, sizeof err);
	free(buf);
	if (!doc)
		return cli_error(path, "%s", err), -1;
	const json_value *r = json_root(doc), *cands = json_get(r, "candidates"), *ps = json_get(r, "prefixes");
	const json_value *cr = json_get(r, "criterion"), *kp = json_get(r, "keep");
	int rc = 0;
	if (!json_get(r, "npu-mixp-shard") || !cands || cands->type != JSON_ARRAY || !ps || ps->type != JSON_ARRAY ||
	    !cr || cr->type != JSON_STRING || !kp || kp->type != JSON_STRING)
		rc = cli_error(path, "not an npu-mixp shard file");
	else if (strcmp(cr->text, crit_str(cs, sizeof cs)) || strcmp(kp->text, o.keep))
		rc = cli_error(path, "made for another criterion ('%s', keep %s)", cr->text, kp->text);
	else if ((int)cands->len != ncand)
		rc = cli_error(path, "made for %d candidates, this run has %d (other filters or calibration?)",
			       (int)cands->len, ncand);
	for (int c = 0; !rc && c < ncand; c++)
		if (cands->items[c].type != JSON_STRING || strcmp(cands->items[c].text, layers[cand[c]].node))
			rc = cli_error(path, "candidate %d is not '%s' (other filters or calibration?)", c + 1,
				       layers[cand[c]].node);
	for (size_t i = 0; !rc && i < ps->len; i++) {
		const json_value *p = &ps->items[i], *pass = json_get(p, "pass");
		int64_t k;
		double m;
		if (json_int64(json_get(p, "k"), &k) || k < 0 || k > ncand || !pass || pass->type != JSON_BOOL)
			rc = cli_error(path, "prefix entry %d is malformed", (int)i + 1);
		else {
			if (json_double(json_get(p, "metric"), &m))
				m = NAN;
			res[k].metric = m;
			res[k].pass = pass->b;
			res[k].done = true;
		}
	}
	json_free(doc);
	return rc ? -1 : 0;
}

/* ---------------------------------------------------------------- output */

static void describe(FILE *f, const layer *y)
{
	fprintf(f, "%4d  %-28s %-16s %-4s ", y->rank, y->node, y->op, y->dtype);
	if (y->has_local)
		fprintf(f, "local SQNR %7.2f dB  cosine %.6f  max abs err %-10.4g", y->local_sqnr, y->local_cos,
			y->local_abs);
	else
		fprintf(f, "local -");
	fprintf(f, "  cumulative SQNR %7.2f dB  saturated %.4f  nan %.0f  inf %.0f\n", y->sqnr, y->saturated, y->nan,
		y->inf);
}

static int write_report(const char *path, const result *final, const result *base, double secs, int nchosen)
{
	cli_output out;
	if (cli_output_open(&out, path, false, true))
		return -1;
	FILE *f = out.f;
	char cs[1024];
	fputs("{\n  \"model\": ", f);
	cli_json_str(f, cli_name(o.in));
	fputs(",\n  \"target\": ", f);
	cli_json_str(f, o.target);
	fputs(",\n  \"keep\": ", f);
	cli_json_str(f, o.keep);
	if (!o.stats_only) {
		fputs(",\n  \"criterion\": ", f);
		cli_json_str(f, crit_str(cs, sizeof cs));
		fputs(",\n  \"metric\": ", f);
		cli_json_str(f, o.crit == CRIT_COSINE ? "cosine" : o.crit == CRIT_ALLCLOSE ? "mismatch"
				: o.crit == CRIT_METRIC ? o.metric : "metric-cmd");
		fputs(",\n  \"baseline_metric\": ", f);
		json_num(f, base->metric);
		fputs(",\n  \"final_metric\": ", f);
		json_num(f, final->metric);
		fprintf(f, ",\n  \"met\": %s", final->pass ? "true" : "false");
		fprintf(f, ",\n  \"kept\": %d,\n  \"candidates\": %d,\n  \"evaluations\": %d", nchosen, ncand, evaluations);
		fprintf(f, ",\n  \"method\": \"%s\"", o.brute ? "brute-force" : "greedy+prune");
	}
	fprintf(f, ",\n  \"seconds\": %.3f", secs);
	/* per op type: how many nodes, how many kept */
	fputs(",\n  \"op_types\": {", f);
	for (int i = 0, first = 1; i < nlayers; i++) {
		bool seen = false;
		for (int k = 0; k < i; k++)
			seen |= !strcmp(layers[k].op, layers[i].op);
		if (seen)
			continue;
		int n = 0, kept = 0;
		for (int k = i; k < nlayers; k++)
			if (!strcmp(layers[k].op, layers[i].op)) {
				n++;
				kept += layers[k].decision && !strcmp(layers[k].decision, "float") ? 1 :
					layers[k].decision && !strcmp(layers[k].decision, "int16");
			}
		fprintf(f, "%s\n    ", first ? "" : ",");
		cli_json_str(f, layers[i].op);
		fprintf(f, ": {\"nodes\": %d, \"kept\": %d}", n, kept);
		first = 0;
	}
	fputs("\n  },\n  \"ops\": [", f);
	for (int i = 0; i < nlayers; i++) {
		const layer *y = &layers[i];
		fprintf(f, "%s\n    {\"node\": ", i ? "," : "");
		cli_json_str(f, y->node);
		fputs(", \"op\": ", f);
		cli_json_str(f, y->op);
		fputs(", \"dtype\": ", f);
		cli_json_str(f, y->dtype);
		fprintf(f, ", \"rank_local\": %d, \"local_sqnr_db\": ", y->rank);
		json_num(f, y->local_sqnr);
		fputs(", \"local_cosine\": ", f);
		json_num(f, y->local_cos);
		fputs(", \"local_max_abs_err\": ", f);
		json_num(f, y->local_abs);
		fputs(", \"sqnr_db\": ", f);
		json_num(f, y->sqnr);
		fputs(", \"cosine\": ", f);
		json_num(f, y->cos);
		fputs(", \"max_abs_err\": ", f);
		json_num(f, y->abs_err);
		fputs(", \"saturated\": ", f);
		json_num(f, y->saturated);
		fputs(", \"clipped\": ", f);
		json_num(f, y->clipped);
		fputs(", \"nan\": ", f);
		json_num(f, y->nan);
		fputs(", \"inf\": ", f);
		json_num(f, y->inf);
		fputs(", \"decision\": ", f);
		cli_json_str(f, y->decision ? y->decision : "quantized");
		fputs(", \"why\": ", f);
		cli_json_str(f, y->why ? y->why : "");
		fputc('}', f);
	}
	fputs("\n  ]\n}\n", f);
	return cli_output_commit(&out);
}

static int copy_file(const char *from, const char *to, bool binary)
{
	uint8_t *buf;
	size_t size;
	cli_output out;
	if (cli_read_file(from, binary, &buf, &size))
		return -1;
	int rc = cli_output_open(&out, to, binary, o.force);
	if (!rc && fwrite(buf, 1, size, out.f) != size) {
		cli_output_abort(&out);
		rc = cli_error(to, "write error");
	} else if (!rc)
		rc = cli_output_commit(&out);
	free(buf);
	return rc;
}

/* ---------------------------------------------------------------- main */

static int check_forced(const ir_graph *g)
{
	if (!o.fp32)
		return 0;
	char *copy = strdup(o.fp32), *save = NULL;
	int rc = 0;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
		int hits = 0;
		for (int i = 0; i < ir_graph_node_count(g); i++)
			if (!fnmatch(t, ir_graph_node(g, i)->name, 0)) {
				char **p = realloc(forced, sizeof *p * (size_t)(nforced + 1));
				if (!p)
					break;
				forced = p;
				forced[nforced++] = strdup(ir_graph_node(g, i)->name);
				hits++;
			}
		if (!hits)
			rc = cli_error(cli_name(o.in), "--fp32-nodes: no node '%s'", t);
	}
	free(copy);
	return rc ? -1 : 0;
}

int main(int argc, char **argv)
{
	cli_init("npu-mixp", argc, argv);
	parse_args(argc, argv);
	double t0 = now();
	struct stat dst;
	if (o.list_plugins || o.nplugin_file || o.crit == CRIT_METRIC || (o.data && stat(o.data, &dst))) {
		/* plugins: before any chdir */
		if (cli_plugins(o.plugin_file, o.nplugin_file, o.list_plugins))
			return CLI_FAIL;
		if (o.list_plugins)
			return CLI_OK;
		ir_diag d;
		evo.topk = 5;
		if (o.crit == CRIT_METRIC && ev_meter_parse(&meter, o.metric, &evo, &d))
			return meter.plugin ? cli_error(meter.name, "%s", d.msg) : cli_error(NULL, "%s", d.msg);
	}
	quant_prog = find_quant(argv[0]);
	int rc = CLI_FAIL;
	ir_graph *g = cli_read_ir(o.in);
	result *res = NULL, base = {NAN, false, false}, fin = {NAN, false, false};
	bool *in = NULL;
	if (!g)
		return CLI_FAIL;
	char tmpl[4096];
	const char *tmp = getenv("TMPDIR");
	snprintf(tmpl, sizeof tmpl, "%s/npu-mixp.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!(work = mkdtemp(tmpl)))
		return cli_error(NULL, "cannot make a scratch directory in %s: %s", tmp && *tmp ? tmp : "/tmp",
				 strerror(errno));
	atexit(rm_work);
	/* the float graph as a file npu-quant can read */
	static char irbuf[4200];
	if (!o.in || !strcmp(o.in, "-")) {
		snprintf(irbuf, sizeof irbuf, "%s/float.ir", work);
		if (cli_write_ir(g, irbuf, true))
			goto done;
		ir_path = "float.ir";
	} else
		ir_path = o.in;
	if (check_forced(g))
		goto done;
	/* npu-quant runs in the scratch directory: the user's files by absolute path */
	if (strcmp(ir_path, "float.ir"))
		ir_path = absolute(ir_path);
	for (int i = 0; i < o.ncalib; i++)
		o.calib[i] = absolute(o.calib[i]);
	for (int i = 0; i < o.nqargs; i++)
		if (o.qargs[i][0] != '-')
			o.qargs[i] = absolute(o.qargs[i]);

	/* calibrate once: statistics and the per-layer report of the fully quantized graph */
	{
		int n = 0;
		const char **extra = calloc((size_t)(2 * o.ncalib + 8), sizeof *extra);
		char rep[4200];
		snprintf(rep, sizeof rep, "%s/report.json", work);
		if (!extra)
			goto done;
		for (int i = 0; i < o.ncalib; i++) {
			extra[n++] = "--calib";
			extra[n++] = o.calib[i];
		}
		extra[n++] = "--stats-out";
		extra[n++] = "calib.stats";
		extra[n++] = "--report";
		extra[n++] = "report.json";
		int qrc = quant(extra, n, "full.ir", "calibration");
		free(extra);
		if (qrc || read_report(rep))
			goto done;
	}
	choose_candidates();
	if (!cand)
		goto done;
	cli_info(1, "%s: %d candidate ops, %d forced to float", cli_name(o.in), ncand, nforced);

	if (o.stats_only) {
		printf("rank  node                         op               type  statistics (npu-quant --report)\n");
		for (int i = 0; i < nlayers; i++) {
			if (!layers[i].decision) {
				layers[i].decision = "quantized";
				layers[i].why = "candidate (no search with --stats-only)";
			}
			describe(stdout, &layers[i]);
		}
		rc = o.report && write_report(o.report, &fin, &base, now() - t0, 0) ? CLI_FAIL : CLI_OK;
		goto done;
	}

	/* the samples and their reference */
	evo.rtol = o.rtol;
	evo.atol = o.atol;
	evo.ntol = o.ntol;
	evo.threads = o.jobs;
	evo.topk = 5;
	if (o.crit != CRIT_CMD) {
		ir_diag d;
		if (ev_dataset_open(&set, o.data, g, &evo, &d)) {
			if (set.plugin)
				cli_error(set.plugin, "%s", d.msg);
			else
				cli_error(d.msg[0] == '\'' ? NULL : o.data, "%s", d.msg);
			goto done;
		}
		if (o.crit == CRIT_METRIC && !meter.plugin) {	/* a builtin figure the data cannot give */
			ev_result can = {.has_labels = set.labels != NULL, .has_ref = true};
			double v;
			if (ev_metric(&can, meter.name, &v)) {
				cli_error(o.data, "--metric %s: needs labels in the data set", o.metric);
				goto done;
			}
		}
		if (o.crit == CRIT_METRIC && meter.plugin)
			;	/* a plugin metric needs no reference outputs */
		else if (!set.ref) {
			cli_info(1, "%s: the reference is the float graph's outputs", cli_name(o.data));
			if (ev_set_capture(&set, g, &evo, &d)) {
				cli_diag(g, cli_name(o.in), &d);
				goto done;
			}
		} else
			cli_info(1, "%s: the reference is the data set's outputs", cli_name(o.data));
	}
	if (!(res = calloc((size_t)ncand + 1, sizeof *res)) || !(in = calloc((size_t)ncand + 1, 1)))
		goto done;

	if (o.shard_n) {	/* only this shard's prefixes, then stop */
		if (run_prefixes(res, o.shard_k - 1, o.shard_n, false))
			goto done;
		rc = write_shard(res) ? CLI_FAIL : CLI_OK;
		goto done;
	}

	int chosen_n = 0;
	if (o.brute) {
		if (ncand > 16) {
			cli_error(cli_name(o.in), "--brute-force: %d candidates (at most 16; narrow them with the filters)",
				  ncand);
			goto done;
		}
		/* every subset, fewest ops first, in candidate order within a size */
		unsigned best = 0;
		bool found = false;
		for (int size = 0; size <= ncand && !found; size++)
			for (unsigned m = 0; m < (1u << ncand) && !found; m++) {
				if (__builtin_popcount(m) != size)
					continue;
				for (int c = 0; c < ncand; c++)
					in[c] = m >> c & 1;
				char tag[32];
				snprintf(tag, sizeof tag, "subset%u", m);
				result r = {0};
				if (evaluate(in, tag, &r))
					goto done;
				if (m == 0)
					base = r;
				if (r.pass) {
					found = true;
					best = m;
					fin = r;
				}
			}
		if (!found) {
			cli_error(cli_name(o.in), "no subset of the %d candidates meets %s", ncand,
				  crit_str((char[1024]){0}, 1024));
			goto done;
		}
		for (int c = 0; c < ncand; c++) {
			in[c] = best >> c & 1;
			chosen_n += in[c];
			layers[cand[c]].decision = in[c] ? (strcmp(o.keep, "int16") ? "float" : "int16") : "quantized";
			layers[cand[c]].why = in[c] ? "in the smallest subset that meets the criterion"
						    : "not in the smallest subset that meets the criterion";
		}
	} else {
		/* greedy: prefixes of the candidates by local error, worst first */
		for (int i = 0; i < o.nmerge; i++)
			if (read_shard(o.merge[i], res))
				goto done;
		if (!o.nmerge && run_prefixes(res, 0, 1, true))
			goto done;
		int k = -1;
		for (int i = 0; i <= ncand && k < 0; i++) {
			if (!res[i].done) {
				cli_error(NULL, "--merge: no shard file has the candidate set of the %d worst ops", i);
				goto done;
			}
			if (res[i].pass)
				k = i;
		}
		base = res[0];
		if (k < 0) {
			cli_error(cli_name(o.in), "%s is not met even with all %d candidate ops kept in %s (metric %.6g)",
				  crit_str((char[1024]){0}, 1024), ncand, o.keep, res[ncand].metric);
			goto done;
		}
		for (int c = 0; c < ncand; c++)
			in[c] = c < k;
		fin = res[k];
		for (int c = k; c < ncand; c++) {
			layers[cand[c]].decision = "quantized";
			snprintf(layers[cand[c]].whybuf, sizeof layers[cand[c]].whybuf,
				 "not needed: the %d ops with worse local error meet the criterion", k);
			layers[cand[c]].why = layers[cand[c]].whybuf;
		}
		if (k > 0) {
			layer *y = &layers[cand[k - 1]];
			snprintf(y->whybuf, sizeof y->whybuf, "needed: without it the greedy set fails (metric %.6g)",
				 res[k - 1].metric);
			y->why = y->whybuf;
		}
		/* prune: drop every op the criterion holds without (least sensitive first) */
		for (int c = k - 2; c >= 0; c--) {
			in[c] = false;
			char tag[32];
			snprintf(tag, sizeof tag, "prune%d", c);
			result r = {0};
			if (evaluate(in, tag, &r))
				goto done;
			layer *y = &layers[cand[c]];
			if (r.pass) {
				fin = r;
				y->decision = "quantized";
				snprintf(y->whybuf, sizeof y->whybuf, "pruned: the criterion holds without it (metric %.6g)",
					 r.metric);
			} else {
				in[c] = true;
				snprintf(y->whybuf, sizeof y->whybuf, "needed: without it the criterion fails (metric %.6g)",
					 r.metric);
			}
			y->why = y->whybuf;
		}
		for (int c = 0; c < k; c++) {
			chosen_n += in[c];
			if (in[c])
				layers[cand[c]].decision = strcmp(o.keep, "int16") ? "float" : "int16";
		}
	}
	for (int i = 0; i < nlayers; i++)
		if (!layers[i].decision) {
			layers[i].decision = "quantized";
			layers[i].why = "";
		}

	if (progress_shown)
		fprintf(stderr, "\r%s: %d configurations evaluated\n", cli_prog, evaluations);
	/* finalize: the chosen configuration, its IR, the report */
	{
		char cfg[4200], irf[4200];
		snprintf(cfg, sizeof cfg, "%s/final.yaml", work);
		snprintf(irf, sizeof irf, "%s/final.ir", work);
		const char *extra[] = {"--stats-in", "calib.stats", "--config", "final.yaml"};
		if (write_config(cfg, in) || quant(extra, 4, "final.ir", "final"))
			goto done;
		if (o.config_out && copy_file(cfg, o.config_out, false))
			goto done;
		if (o.out) {	/* npu-quant's IR, with npu-mixp in its history */
			ir_graph *q = cli_read_ir(irf);
			int wrc = q ? cli_write_ir(q, o.out, o.force) : -1;
			ir_graph_free(q);
			if (wrc)
				goto done;
		}
	}
	double secs = now() - t0;
	if (o.report && write_report(o.report, &fin, &base, secs, chosen_n))
		goto done;
	printf("kept in %s: %d of %d candidate ops%s", o.keep, chosen_n, ncand, chosen_n ? ":" : "");
	for (int c = 0; c < ncand; c++)
		if (in[c])
			printf(" %s", layers[cand[c]].node);
	printf("\n%s: fully quantized %.6g, chosen %.6g; %d evaluations, %.2f s\n",
	       o.crit == CRIT_COSINE ? "cosine" : o.crit == CRIT_ALLCLOSE ? "mismatch" : o.crit == CRIT_METRIC ? o.metric
	       : "metric", base.metric,
	       fin.metric, evaluations, secs);
	if (cli_verbose > 0)
		for (int i = 0; i < nlayers; i++) {
			describe(stderr, &layers[i]);
			fprintf(stderr, "      %s: %s\n", layers[i].decision, layers[i].why);
		}
	rc = fclose(stdout) ? CLI_FAIL : CLI_OK;
done:
	free(res);
	free(in);
	ev_set_free(&set);
	ir_graph_free(g);
	cleanup();
	return rc;
}
