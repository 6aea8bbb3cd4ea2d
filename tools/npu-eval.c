/* npu-eval - accuracy of a float or quantized graph over a data set. See npu-eval(1). */
#include "eval/eval.h"
#include "ir_cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	const char *in, *data, *ref, *out, *print, *key;
	const char *sample;	/* --sample K */
	const char *arrays;	/* --arrays A: compare A with DATA's array */
	bool json, force;
	bool list_plugins;	/* --plugin */
	bool dataset;		/* DATA came from --dataset */
	int print_meter;	/* --print names meter[print_meter], a plugin metric; or -1 */
	const char *plugin_file[16];	/* --plugin-file */
	int nplugin_file;
	const char *metric[EV_MAX_METERS];	/* --metric, as given */
	int nmetric;
	ev_meter meter[EV_MAX_METERS + 1];	/* + --print's plugin metric */
	ev_opts ev;
} options;

static void help(void)
{
	printf("Usage: %s IR|- DATA|--dataset SPEC [--metric SPEC]... [--ref FLOAT.ir] [--stream IN=OUT]... [-k K]\n"
	       "                [--rtol R] [--atol A] [--ntol F] [-j N] [--json | --print METRIC] [-o FILE] [-v|-q]\n"
	       "       %s --plugin [--plugin-file SO]...\n"
	       "       %s --arrays A.npy|A.npz REF.npy|REF.npz [--key NAME] [--rtol R] [--atol A] [--ntol F] [--json | --print METRIC]\n"
	       "       %s --sample K DATA [--key NAME] -o OUT.npy\n"
	       "Run an npukit IR (float or quantized) over a data set and print accuracy metrics.\n"
	       "\n"
	       "DATA is an .npy (one input, samples along the first axis), an .npz keyed by input\n"
	       "name ('x' for a one-input graph) with 'labels' (integers) and reference outputs\n"
	       "keyed by output name ('logits' for the first output), or a directory of\n"
	       "sampleN_inputs.npz (+ sampleN_outputs.npz) files of one sample each.\n"
	       "\n"
	       "      --dataset SPEC    the data: a path as DATA, or a dataset plugin NAME[:ARGS]\n"
	       "                        (e.g. npy-pair:x.npy,labels.npy; see npu-plugin(7))\n"
	       "      --metric SPEC     print this figure (a --print name) or metric plugin NAME[:ARGS]\n"
	       "                        (e.g. topk:5, f1) instead of all builtin figures (repeatable)\n"
	       "      --plugin          list the plugins found in $NPU_PLUGIN_PATH and ./plugin and exit\n"
	       "      --plugin-file SO  load this plugin object too (repeatable)\n"
	       "      --ref FLOAT.ir    compare with this graph's outputs (run the same way) instead\n"
	       "                        of the data set's reference outputs\n"
	       "      --cmd CMD         the outputs from a compiled npu.h host program instead of the\n"
	       "                        interpreter: 'CMD run OUTDIR IN.npy...' per sample (npu_host's\n"
	       "                        run mode), IR giving the interface\n"
	       "      --stream IN=OUT   samples are sequences [N, T, ...] run frame by frame, output\n"
	       "                        OUT fed back as input IN (zero at the first frame; repeatable)\n"
	       "  -k, --topk K          top-k accuracy with this k (default 5)\n"
	       "      --rtol R, --atol A  allclose: |y - ref| <= A + R |ref| (default 1e-5, 1e-8)\n"
	       "      --ntol F          allclose holds when at most this share of values mismatch (default 0)\n"
	       "  -j, --jobs N          run samples on N threads (results do not depend on N)\n"
	       "      --json            print one JSON object\n"
	       "      --print METRIC    print only this figure (top1, topK, ref_top1, agree_top1, cosine,\n"
	       "                        sqnr_db, max_abs_err, max_rel_err, mismatch, allclose, nan, inf)\n"
	       "      --arrays A        compare array file A with DATA's array (--key NAME in an .npz)\n"
	       "      --sample K        write sample K of DATA's array (--key NAME, default: x) as .npy\n"
	       "      --key NAME        the array of an .npz for --arrays and --sample\n"
	       "  -o, --out FILE        write the figures (or the sample) to FILE (default: standard output)\n"
	       "  -f, --force           write an .npy even to a terminal\n"
	       "  -v, --verbose         more detail on standard error\n"
	       "  -q, --quiet           no warnings\n"
	       "      --help            show this help and exit\n"
	       "  -V, --version         show the version and exit\n"
	       "\n"
	       "Progress is shown on standard error when it is a terminal.\n"
	       "Exit status: 0 success, 1 bad input or I/O failure, 2 usage.\n",
	       cli_prog, cli_prog, cli_prog, cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static double number(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);
	if (!*s || *end || !(v >= lo && v <= hi))
		cli_usage("%s '%s': expected a number from %g to %g", opt, s, lo, hi);
	return v;
}

static void parse_args(int argc, char **argv, options *o)
{
	enum { OPT_REF = 256, OPT_CMD, OPT_STREAM, OPT_RTOL, OPT_ATOL, OPT_NTOL, OPT_JSON, OPT_PRINT, OPT_ARRAYS, OPT_SAMPLE, OPT_KEY,
	       OPT_DATASET, OPT_METRIC, OPT_PLUGIN, OPT_PLUGIN_FILE };
	static const struct option longopts[] = {
		{"ref", required_argument, NULL, OPT_REF},
		{"stream", required_argument, NULL, OPT_STREAM},
		{"cmd", required_argument, NULL, OPT_CMD},
		{"topk", required_argument, NULL, 'k'},
		{"rtol", required_argument, NULL, OPT_RTOL},
		{"atol", required_argument, NULL, OPT_ATOL},
		{"ntol", required_argument, NULL, OPT_NTOL},
		{"jobs", required_argument, NULL, 'j'},
		{"json", no_argument, NULL, OPT_JSON},
		{"print", required_argument, NULL, OPT_PRINT},
		{"arrays", required_argument, NULL, OPT_ARRAYS},
		{"sample", required_argument, NULL, OPT_SAMPLE},
		{"key", required_argument, NULL, OPT_KEY},
		{"dataset", required_argument, NULL, OPT_DATASET},
		{"metric", required_argument, NULL, OPT_METRIC},
		{"plugin", no_argument, NULL, OPT_PLUGIN},
		{"plugin-file", required_argument, NULL, OPT_PLUGIN_FILE},
		CLI_COMMON_OPTS,
		{NULL, 0, NULL, 0},
	};
	int c;
	o->ev.rtol = 1e-5;
	o->ev.atol = 1e-8;
	o->ev.threads = 1;
	o->ev.topk = 5;
	o->print_meter = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":k:j:o:fVvq", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_REF: o->ref = optarg; break;
		case OPT_CMD: o->ev.cmd = optarg; break;
		case OPT_STREAM: {
			char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1])
				cli_usage("--stream '%s': expected IN=OUT", optarg);
			if (o->ev.nstate == EV_MAX_STATE)
				cli_usage("--stream: at most %d pairs", EV_MAX_STATE);
			*eq = 0;
			o->ev.state[o->ev.nstate].in = optarg;
			o->ev.state[o->ev.nstate++].out = eq + 1;
			break;
		}
		case 'k': o->ev.topk = (int)number("--topk", optarg, 1, 1000000); break;
		case OPT_RTOL: o->ev.rtol = number("--rtol", optarg, 0, 1e30); break;
		case OPT_ATOL: o->ev.atol = number("--atol", optarg, 0, 1e30); break;
		case OPT_NTOL: o->ev.ntol = number("--ntol", optarg, 0, 1); break;
		case 'j': o->ev.threads = (int)number("--jobs", optarg, 1, 256); break;
		case OPT_JSON: o->json = true; break;
		case OPT_PRINT: o->print = optarg; break;
		case OPT_ARRAYS: o->arrays = optarg; break;
		case OPT_SAMPLE: o->sample = optarg; break;
		case OPT_KEY: o->key = optarg; break;
		case OPT_DATASET:
			if (o->data)
				cli_usage("--dataset given twice");
			o->data = optarg;
			break;
		case OPT_METRIC:
			if (o->nmetric == EV_MAX_METERS)
				cli_usage("--metric: at most %d", EV_MAX_METERS);
			o->metric[o->nmetric++] = optarg;
			break;
		case OPT_PLUGIN: o->list_plugins = true; break;
		case OPT_PLUGIN_FILE:
			if (o->nplugin_file == 16)
				cli_usage("--plugin-file: at most 16");
			o->plugin_file[o->nplugin_file++] = optarg;
			break;
		default: cli_common_option(c, argv, &o->out, &o->force, help);
		}
	}
	if (o->list_plugins) {
		if (optind < argc)
			cli_usage("--plugin takes no arguments ('%s')", argv[optind]);
		return;
	}
	bool dataset = o->dataset = o->data != NULL;
	if ((o->sample || o->arrays) && (dataset || o->nmetric))
		cli_usage("--dataset and --metric go with a graph, not %s", o->sample ? "--sample" : "--arrays");
	if (o->sample || o->arrays) {
		if (o->sample && o->arrays)
			cli_usage("--sample and --arrays exclude each other");
		if (optind < argc)
			o->data = argv[optind++];
		if (!o->data)
			cli_usage("%s needs a data file", o->sample ? "--sample" : "--arrays");
		if (o->ref || o->ev.nstate || o->ev.cmd)
			cli_usage("--ref, --stream and --cmd need a graph, not %s", o->sample ? "--sample" : "--arrays");
	} else {
		if (optind < argc)
			o->in = argv[optind++];
		if (optind < argc && !dataset)
			o->data = argv[optind++];
		if (!o->data)
			cli_usage("expected IR and DATA");
		if (o->key)
			cli_usage("--key goes with --sample or --arrays");
		if (o->ev.cmd && o->ev.nstate)
			cli_usage("--cmd runs whole samples, not streams (--stream)");
		if (o->ev.cmd && !*o->ev.cmd)
			cli_usage("--cmd needs a command");
	}
	if (optind < argc)
		cli_usage("unexpected argument '%s'", argv[optind]);
	if (o->json && o->print)
		cli_usage("--json and --print exclude each other");
	if (o->print && strcmp(o->print, "topk")) {
		ev_result r = {.has_labels = true, .has_ref = true};
		double v;
		char k[32];
		snprintf(k, sizeof k, "top%d", o->ev.topk);
		if (!strcmp(o->print, k))
			o->print = "topk";
		else if (ev_metric(&r, o->print, &v) && (o->sample || o->arrays))
			cli_usage("--print '%s': unknown metric (top1, top%d, ref_top1, agree_top1, cosine, sqnr_db, "
				  "max_abs_err, max_rel_err, mismatch, allclose, nan, inf)", o->print, o->ev.topk);
	}
}

static npy_array *load(const char *path, int *n)
{
	uint8_t *buf;
	size_t size;
	ir_diag d;
	bool npz;
	if (cli_read_file(path, true, &buf, &size))
		return NULL;
	npy_array *a = npy_read_any(buf, size, n, &npz, &d);
	free(buf);
	if (!a)
		cli_error(path, "%s", d.msg);
	return a;
}

/* The array KEY of a (or its only array). */
static const npy_array *pick(const char *path, const npy_array *a, int n, const char *key)
{
	if (n == 1 && (!a[0].name || !key))
		return &a[0];
	for (int i = 0; key && i < n; i++)
		if (a[i].name && !strcmp(a[i].name, key))
			return &a[i];
	if (key)
		cli_error(path, "no array '%s'", key);
	else
		cli_error(path, "%d arrays: name one with --key", n);
	return NULL;
}

/* --sample K: one sample of an array with a sample axis, as .npy. */
static int sample(const options *o)
{
	int n = 0, rc = CLI_FAIL;
	char *end;
	long long k = strtoll(o->sample, &end, 10);
	if (!*o->sample || *end || k < 0)
		cli_usage("--sample '%s': expected a sample index", o->sample);
	npy_array *a = load(o->data, &n);
	const npy_array *x = a ? pick(o->data, a, n, o->key ? o->key : (n == 1 ? NULL : "x")) : NULL;
	if (x && (x->shape.rank < 1 || k >= x->shape.dim[0])) {
		cli_error(o->data, "sample %lld: the array has %lld", k, x->shape.rank ? (long long)x->shape.dim[0] : 0LL);
		x = NULL;
	}
	if (x) {
		npy_array s = {.dtype = x->dtype, .shape = {x->shape.rank - 1, {0}}};
		memcpy(s.shape.dim, x->shape.dim + 1, sizeof s.shape.dim[0] * (size_t)s.shape.rank);
		size_t per = (size_t)ir_shape_numel(&s.shape) * ir_dtype_size(x->dtype);
		s.data = (uint8_t *)x->data + (size_t)k * per;
		s.nbytes = per;
		uint8_t *w = NULL;
		size_t wn;
		ir_diag d;
		cli_output out;
		if (npy_write_mem(&s, &w, &wn, &d))
			cli_error(o->data, "%s", d.msg);
		else if (!cli_output_open(&out, o->out, true, o->force)) {
			if (fwrite(w, 1, wn, out.f) != wn) {
				cli_output_abort(&out);
				cli_error(o->out, "write error");
			} else
				rc = cli_output_commit(&out) ? CLI_FAIL : CLI_OK;
		}
		free(w);
	}
	if (a)
		npz_free(a, n);
	return rc;
}

static int report(const options *o, const ev_result *r)
{
	cli_output out;
	if (cli_output_open(&out, o->out, false, true))
		return CLI_FAIL;
	if (o->print) {
		double v;
		if (o->print_meter >= 0 ? ev_meter_value(&o->meter[o->print_meter], o->print_meter, r, &v)
					: ev_metric(r, o->print, &v)) {
			cli_output_abort(&out);
			return cli_error(o->data, "--print %s: %s", o->print,
					 r->has_labels || !strstr(o->print, "top") || !strncmp(o->print, "agree", 5)
					 ? "needs reference outputs (in the data set, or --ref)" : "needs labels in the data set");
		}
		fprintf(out.f, "%.9g\n", v);
	} else
		ev_print(out.f, r, &o->ev, o->json);
	return cli_output_commit(&out) ? CLI_FAIL : CLI_OK;
}

static int arrays(const options *o)
{
	int na = 0, nb = 0, rc = CLI_FAIL;
	npy_array *a = load(o->arrays, &na), *b = a ? load(o->data, &nb) : NULL;
	const npy_array *x = a ? pick(o->arrays, a, na, na == 1 ? NULL : o->key) : NULL;
	const npy_array *y = x && b ? pick(o->data, b, nb, o->key) : NULL;
	ev_result r;
	ir_diag d;
	if (y && ev_compare_arrays(x, y, &o->ev, &r, &d))
		cli_error(o->data, "%s", d.msg);
	else if (y)
		rc = report(o, &r);
	if (a)
		npz_free(a, na);
	if (b)
		npz_free(b, nb);
	return rc;
}

/* --metric and a --print of a plugin metric into o->meter and o->ev. */
static int parse_meters(options *o)
{
	ir_diag d;
	ev_result all = {.has_labels = true, .has_ref = true};
	double v;
	o->print_meter = -1;
	int n = 0;
	for (int i = 0; i < o->nmetric; i++, n++)
		if (ev_meter_parse(&o->meter[n], o->metric[i], &o->ev, &d))
			return o->meter[n].plugin ? cli_error(o->meter[n].name, "%s", d.msg) : cli_error(NULL, "%s", d.msg);
	if (o->print && strcmp(o->print, "topk") && ev_metric(&all, o->print, &v)) {
		if (ev_meter_parse(&o->meter[n], o->print, &o->ev, &d)) {
			if (!o->meter[n].plugin)
				cli_usage("--print '%s': %s", o->print, d.msg);
			return cli_error(o->meter[n].name, "%s", d.msg);
		}
		o->print_meter = n++;
	}
	o->ev.meter = o->meter;
	o->ev.nmeter = n;
	return CLI_OK;
}

int main(int argc, char **argv)
{
	options o = {0};
	cli_init("npu-eval", argc, argv);
	parse_args(argc, argv, &o);
	if (o.list_plugins || o.nplugin_file || o.nmetric || o.dataset || o.print) {
		ev_result all = {.has_labels = true, .has_ref = true};
		double v;
		bool builtin_print = !o.print || !strcmp(o.print, "topk") || !ev_metric(&all, o.print, &v);
		if ((o.list_plugins || o.nplugin_file || o.nmetric || o.dataset || !builtin_print) &&
		    cli_plugins(o.plugin_file, o.nplugin_file, o.list_plugins))
			return CLI_FAIL;
		if (o.list_plugins)
			return CLI_OK;
	}
	if (o.sample)
		return sample(&o);
	if (o.arrays)
		return arrays(&o);
	if (parse_meters(&o))
		return CLI_FAIL;
	o.ev.prog = cli_prog;
	o.ev.progress = isatty(2) && cli_verbose >= 0;
	ir_graph *g = cli_read_ir(o.in), *ref = NULL;
	if (!g)
		return CLI_FAIL;
	ev_set s = {0};
	ev_result r;
	ir_diag d;
	int rc = CLI_FAIL;
	if (o.ref && !(ref = cli_read_ir(o.ref)))
		goto done;
	/* DATA is a path; --dataset a path or a plugin */
	if (o.dataset ? ev_dataset_open(&s, o.data, g, &o.ev, &d) : ev_set_load(&s, o.data, g, &o.ev, &d)) {
		if (s.plugin)
			cli_error(s.plugin, "%s", d.msg);
		else if (d.msg[0] == '\'')	/* neither a path nor a plugin */
			cli_error(NULL, "%s", d.msg);
		else
			cli_error(o.data, "%s", d.msg);
		goto done;
	}
	for (int i = 0; i < o.ev.nmeter; i++) {	/* builtin figures the data cannot give */
		ev_result can = {.has_labels = s.labels != NULL, .has_ref = ref || s.ref};
		double v;
		const char *nm = o.ev.meter[i].name;
		if (!o.ev.meter[i].plugin && ev_metric(&can, nm, &v)) {
			cli_error(o.data, "--metric %s: needs %s", o.ev.meter[i].spec,
				  strstr(nm, "top") && strncmp(nm, "agree", 5) && strncmp(nm, "ref_", 4)
				  ? "labels in the data set" : "reference outputs (in the data set, or --ref)");
			goto done;
		}
	}
	if (o.print && o.print_meter < 0) {	/* fail before running when the data cannot give the figure */
		ev_result can = {.has_labels = s.labels != NULL, .has_ref = ref || s.ref};
		double v;
		if (ev_metric(&can, o.print, &v)) {
			cli_error(o.data, "--print %s: needs %s", o.print,
				  strstr(o.print, "top") && strncmp(o.print, "agree", 5) && strncmp(o.print, "ref_", 4)
				  ? "labels in the data set" : "reference outputs (in the data set, or --ref)");
			goto done;
		}
	} else if (!ref && !s.ref && !s.labels && !s.tlabels && !o.ev.nmeter)
		cli_warn(o.data, "no labels and no reference outputs: nothing to compare with (--ref FLOAT.ir?)");
	if (ev_run(&s, g, ref, &o.ev, &r, &d)) {
		if (r.failed)
			cli_error(r.failed, "%s", d.msg);
		else
			cli_diag(g, cli_name(o.in), &d);
		goto done;
	}
	if (r.sum.nan || r.sum.inf)
		cli_warn(cli_name(o.in), "%lld NaN and %lld infinite output values", (long long)r.sum.nan,
			 (long long)r.sum.inf);
	rc = report(&o, &r);
done:
	ev_set_free(&s);
	ir_graph_free(ref);
	ir_graph_free(g);
	return rc;
}
