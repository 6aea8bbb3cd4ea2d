/* npu-quant - post-training quantization: calibration, weight compression,
 * int8/int16/fp16 quantization, mixed precision, per-layer error report.
 * See npu-quant(1). */
#include "config/optcfg.h"
#include "config/qconfig.h"
#include "config/target.h"
#include "eval/eval.h"
#include "ir_cli.h"
#include "npy/npy.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES 256
/* Default samples per statistics batch: averaging is over batches, as
 * Compass OPT has it (npu-quant(1), Calibration). */
#define CALIB_BATCH 16

typedef struct {
	const char *in, *out, *target, *config, *report, *stats_out, *cfg;
	const char *calib[MAX_FILES], *eval[MAX_FILES], *stats_in[MAX_FILES];
	int n_calib, n_eval, n_stats_in;
	long calib_batch, calib_max, eval_max;
	char *float_layers, *f16_outputs, *exclude;
	ir_qrange wrange[MAX_FILES];
	int n_wrange;
	char *state_in[MAX_FILES];	/* --state IN=OUT */
	const char *state_out[MAX_FILES];
	int n_states;
	bool force, field;
	const char *out_dir;	/* --cfg's output_dir: made if missing */
	/* --cfg's metric over its dataset/data after quantizing */
	const char *mdata, *mspec[EV_MAX_METERS];
	int nmspec, mline, dline;	/* the metric's and the data set's lines */
	bool mfloat;		/* eval_original_model */
	/* explicitly given (else from the target / defaults) */
	const char *bits, *method, *wscheme;
	int wbits, lut_bits, act_sym, per_channel;	/* -1: not given */
	bool int_io, compress_fc, compress_conv, strict;
	int adaround;			/* iterations, 0: off */
	bool bias_correction, easyquant;
	/* the calibration samples kept for them: [n_keep * inputs] */
	float **keep;
	int n_keep;
} options;

/* Samples kept for --adaround and --bias-correction (the first ones). */
#define REFINE_MAX 64
#define ADAROUND_ITERS 500

static void help(void)
{
	printf("Usage: %s [IR|-] --target NAME|PATH [--calib FILE|DIR]... [options] [-o OUT]\n"
	       "Quantize a float IR graph for an NPU target (int8, int16 or fp16).\n"
	       "\n"
	       "Target and calibration:\n"
	       "  -t, --target NAME|PATH   NPU profile (share/npu/targets, npu-target(5)); required\n"
	       "      --cfg OPT.CFG        settings from a Compass Optimizer configuration ([Common]\n"
	       "                           section); options given too override its fields\n"
	       "      --field              list the configuration fields and what they set\n"
	       "  -c, --calib FILE|DIR     calibration samples: .npy (first axis = samples, one-input\n"
	       "                           models), .npz keyed by input name (first axis = samples),\n"
	       "                           or a directory of sampleN_inputs.npz (one sample each)\n"
	       "      --calib-batch N      samples per statistics batch (default 16)\n"
	       "      --calib-max N        use at most N calibration samples\n"
	       "      --state IN=OUT       input IN is recurrent state whose next value is output\n"
	       "                           OUT (repeatable): calibrate over sequences, [N, T, ...]\n"
	       "                           per input, feeding OUT back into IN at every step; IN\n"
	       "                           and OUT get one quantization\n"
	       "  -m, --method M           mse (default), minmax, averaging, meanstd[:N], percentile[:P],\n"
	       "                           kld, aciq\n"
	       "      --adaround[=N]       learn each weight's rounding (up or down) per layer on the\n"
	       "                           calibration samples, N iterations (default 500)\n"
	       "      --bias-correction    fold each layer's mean output error from weight\n"
	       "                           quantization into its bias\n"
	       "      --easyquant          search each layer's weight and input scales for the\n"
	       "                           best cosine of its output (EasyQuant)\n"
	       "      --stats-out FILE     write the calibration statistics (text)\n"
	       "      --stats-in FILE      read statistics and merge them (repeatable; with or\n"
	       "                           without --calib)\n"
	       "Integer targets:\n"
	       "  -b, --bits 8|16          activation bits (default: the target's first type)\n"
	       "      --symmetric          symmetric activations (zero point 0)\n"
	       "      --asymmetric         asymmetric activations (the default)\n"
	       "      --weight-bits N      2..16 (default 8; more than 8 stored as int16)\n"
	       "      --weight-scheme S    symmetric_restricted_range (default), symmetric_full_range,\n"
	       "                           asymmetric; Compass' per_channel_/per_tensor_ prefixed names\n"
	       "      --per-tensor         one weight scale per tensor (default: per output channel)\n"
	       "      --lut-bits N         int16 lookup tables get 2^N+1 entries (default 10)\n"
	       "      --int-io             keep graph inputs and outputs quantized\n"
	       "      --strict             a node that stays float (no integer kernel, or the\n"
	       "                           target lacks it), NaNs in sample data, a constant\n"
	       "                           input range: errors, not warnings\n"
	       "Mixed precision:\n"
	       "      --config FILE        per-layer settings (YAML/JSON: default, layers, ops)\n"
	       "      --float-layers LIST  keep these nodes (comma-separated) in float\n"
	       "fp16 targets (gxnpuc options):\n"
	       "      --compress-fc        fully connected weights as int8 per output channel\n"
	       "      --compress-conv      convolution weights as int8 per output channel\n"
	       "      --exclude-compress LIST  weights or nodes never compressed\n"
	       "      --weight-min-max NAME:MIN:MAX  fixed range for a weight (repeatable)\n"
	       "      --fp16-outputs LIST  outputs kept in fp16 (state fed back), not converted\n"
	       "Report:\n"
	       "      --report FILE.json   per-layer error of the quantized graph against the float one:\n"
	       "                           each layer alone (ranked by it) and as run, saturation,\n"
	       "                           NaN/inf, fp16 overflow (npu-quant(1), REPORT)\n"
	       "      --eval FILE|DIR      samples for the report (default: the calibration samples)\n"
	       "      --eval-max N         use at most N of them (default 64)\n"
	       "Common:\n"
	       "  -o, --out FILE           write the IR to FILE (default: standard output)\n"
	       "  -f, --force              write binary IR even to a terminal\n"
	       "  -v, --verbose            what stayed in float and why; the worst layers\n"
	       "  -q, --quiet              no warnings\n"
	       "      --help, -V, --version\n"
	       "\n"
	       "Exit status: 0 success, 1 bad input or I/O failure, 2 usage.\n", cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static long parse_count(const char *opt, const char *arg, long lo, long max)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (!*arg || *end || errno || v < lo || v > max)
		cli_usage("%s needs a number from %ld to %ld, not '%s'", opt, lo, max, arg);
	return v;
}

static void add_file(const char **list, int *n, const char *opt, const char *arg)
{
	if (*n >= MAX_FILES)
		cli_usage("too many %s options (at most %d)", opt, MAX_FILES);
	list[(*n)++] = arg;
}

static void parse_wrange(options *o, const char *arg)
{
	const char *c2 = strrchr(arg, ':'), *c1 = NULL;
	for (const char *p = arg; c2 && p < c2; p++)
		if (*p == ':')
			c1 = p;
	char *e1, *e2;
	if (!c1 || c1 == arg || o->n_wrange >= MAX_FILES)
		cli_usage("--weight-min-max needs NAME:MIN:MAX, not '%s'", arg);
	double lo = strtod(c1 + 1, &e1), hi = strtod(c2 + 1, &e2);
	if (e1 != c2 || *e2 || !(lo <= 0) || !(hi >= 0) || !(hi > lo) || !isfinite(lo) || !isfinite(hi))
		cli_usage("--weight-min-max '%s': MIN <= 0 <= MAX, MIN < MAX", arg);
	char *name = strndup(arg, (size_t)(c1 - arg));
	if (!name)
		cli_usage("out of memory");
	o->wrange[o->n_wrange++] = (ir_qrange){name, (float)lo, (float)hi};
}

static void parse_state(options *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		cli_usage("--state '%s': expected IN=OUT, e.g. --state h_in=h_out", arg);
	if (o->n_states >= MAX_FILES)
		cli_usage("too many --state options (at most %d)", MAX_FILES);
	char *in = strndup(arg, (size_t)(eq - arg));
	if (!in)
		cli_usage("out of memory");
	o->state_in[o->n_states] = in;
	o->state_out[o->n_states++] = eq + 1;
}

/* ---------------------------------------------------------------- --cfg (Compass opt.cfg) */

/* The Compass fields that set something here (npu-quant(1), COMPASS
 * CONFIGURATION); every other Compass field is accepted and, unless it
 * keeps Compass' default, warned about (an error with --strict). */
static const struct {
	const char *name, *meaning;
} cfg_fields[] = {
	{"graph", "the float IR to quantize (the IR argument)"},
	{"output_dir", "write the quantized IR to output_dir/NAME.ir (NAME: quant_ir_name, else model_name)"},
	{"quant_ir_name", "NAME of the quantized IR in output_dir"},
	{"model_name", "NAME of the quantized IR in output_dir when there is no quant_ir_name"},
	{"calibration_data", "--calib: the calibration samples"},
	{"calibration_batch_size", "--calib-batch: samples per statistics batch"},
	{"calibration_strategy_for_activation",
	 "--method: extrema (minmax), mean (averaging), Nstd (meanstd:N), kld, aciq_laplace (aciq), percentile "
	 "(Compass' 1.0 x extrema: minmax), or a --method name"},
	{"calibration_strategy_for_weight", "extrema: weights are quantized over their exact range"},
	{"quantize_method_for_weight",
	 "--weight-scheme, --per-tensor: per_channel_ or per_tensor_ symmetric_restricted_range, "
	 "symmetric_full_range or asymmetric"},
	{"quantize_method_for_activation",
	 "per_tensor_asymmetric (--asymmetric) or per_tensor_symmetric_restricted_range (--symmetric)"},
	{"activation_bits", "--bits: 8 or 16"},
	{"weight_bits", "--weight-bits: 2 to 16"},
	{"bias_bits", "32: biases are int32 here (no other value)"},
	{"lut_items_in_bits", "--lut-bits: lookup tables of 2^N entries, N from 1 to 15"},
	{"opt_config", "--config: per-layer settings (npu-quant's YAML or JSON form)"},
	{"statistic_file", "--stats-in: calibration statistics to merge"},
	{"global_calibration", "none, easy_quant (--easyquant) or adaround (--adaround)"},
	{"data", "the metric's data set (a path; with a dataset plugin its first argument); as a path also --eval"},
	{"label", "the labels (with a dataset plugin: its second argument)"},
	{"dataset", "a dataset plugin NAME[:ARGS] (npu-plugin(7)) giving the metric's samples (data, label: its "
		    "arguments when NAME has none)"},
	{"metric", "after quantizing, print these metrics (NAME(ARGS) or NAME:ARGS, comma-separated: an npu-eval "
		   "--print figure or a metric plugin) of the float and the quantized graph"},
	{"eval_original_model", "true: the metric of the float graph too; false: the quantized graph's only"},
	{"metric_batch_size", "a positive number; samples are run one by one (no effect on the figures)"},
	{"mixed_precision_auto_search",
	 "batches,threshold,L|G as Compass checks it; batches > 0 asks for npu-mixp(1)'s search: a warning"},
};

static void list_fields(void)
{
	printf("Compass Optimizer fields that npu-quant --cfg maps:\n");
	for (size_t i = 0; i < sizeof cfg_fields / sizeof cfg_fields[0]; i++)
		printf("  %-36s %s\n", cfg_fields[i].name, cfg_fields[i].meaning);
	printf("Accepted without effect (a warning unless at Compass' default, an error with --strict):\n");
	for (int i = 0; i < npu_optcfg_nfields; i++) {
		bool used = false;
		for (size_t k = 0; k < sizeof cfg_fields / sizeof cfg_fields[0]; k++)
			used |= !strcmp(cfg_fields[k].name, npu_optcfg_fields[i].name);
		if (!used)
			printf("  %-36s (default '%s')\n", npu_optcfg_fields[i].name, npu_optcfg_fields[i].def);
	}
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static npu_optcfg cfg_text;	/* the options point into it until the end */
static char *cfg_alloc[4];	/* strings made from it */
static int cfg_bad_count;

static void cfg_msg(const options *o, const npu_optcfg_entry *e, bool error, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void cfg_msg(const options *o, const npu_optcfg_entry *e, bool error, const char *fmt, ...)
{
	char loc[4200], msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(loc, sizeof loc, "%s:%d", cli_name(o->cfg), e->line);
	if (error || o->strict) {
		cli_error(loc, "%s '%s': %s", e->key, e->val, msg);
		cfg_bad_count++;
	} else
		cli_warn(loc, "%s '%s': %s", e->key, e->val, msg);
}

static char *cfg_strdup(const char *s)
{
	for (size_t i = 0; i < sizeof cfg_alloc / sizeof cfg_alloc[0]; i++)
		if (!cfg_alloc[i])
			return cfg_alloc[i] = strdup(s);
	return NULL;
}

static void cfg_free(void)
{
	for (size_t i = 0; i < sizeof cfg_alloc / sizeof cfg_alloc[0]; i++)
		free(cfg_alloc[i]);
	npu_optcfg_free(&cfg_text);
}

/* An integer lo..hi, or -1. */
static long cfg_int(const char *s, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	return !*s || *end || errno || v < lo || v > hi ? -1 : v;
}

/* A Compass activation calibration strategy as a --method; NULL if none
 * maps (why says why). */
static const char *cfg_method(const char *v, char *buf, size_t size, const char **why)
{
	char *end;
	ir_calib_method m;
	ir_diag d;
	*why = "expected extrema, mean, Nstd, kld, aciq_laplace, percentile or a --method name";
	if (!strcasecmp(v, "extrema") || !strcasecmp(v, "percentile") || !strcasecmp(v, "1percentile") ||
	    !strcasecmp(v, "1.0percentile"))
		return "minmax";
	if (!strcasecmp(v, "mean"))
		return "averaging";
	if (!strcasecmp(v, "kld"))
		return "kld";
	if (!strcasecmp(v, "aciq_laplace"))
		return "aciq";
	double n = strtod(v, &end);
	if (end != v && !strcasecmp(end, "std") && n > 0 && n <= 1000) {
		snprintf(buf, size, "meanstd:%.17g", n);
		return buf;
	}
	if (end != v && (!strcasecmp(end, "percentile") || !strcasecmp(end, "kld") || !strcasecmp(end, "aciq_laplace") ||
			 !strcasecmp(end, "aciq_gauss")))
		return *why = "the number before the name has no equivalent here (kld, aciq_laplace and percentile "
			      "take none)", NULL;
	if (!strcasecmp(v, "aciq_gauss") || !strcasecmp(v, "in_ir") || !strncasecmp(v, "weighted_scale_param", 20))
		return *why = "not a calibration method here", NULL;
	return ir_calib_method_parse(v, &m, &d) ? NULL : v;
}

/* metric, dataset, data, label: o->mspec (the metric specs, Compass'
 * NAME(ARGS) as NAME:ARGS) and o->mdata (the data set: data, or the
 * dataset plugin with data and label as its arguments). */
static void cfg_metric(options *o, const npu_optcfg_entry *metric, const npu_optcfg_entry *dataset,
		       const npu_optcfg_entry *data, const npu_optcfg_entry *label)
{
	static char specs[EV_MAX_METERS][128], dspec[8192];
	if (!metric) {
		if (dataset || label)
			cfg_msg(o, dataset ? dataset : label, false, "used only with a metric, and there is none");
		return;
	}
	o->mline = metric->line;
	o->dline = dataset ? dataset->line : data ? data->line : metric->line;
	for (const char *p = metric->val; *p;) {
		size_t n = 0;
		int depth = 0;
		while (p[n] && (depth || p[n] != ',')) {
			depth += p[n] == '(' ? 1 : p[n] == ')' ? -1 : 0;
			n++;
		}
		char *sp = specs[o->nmspec];
		if (o->nmspec == EV_MAX_METERS || n >= sizeof specs[0] || depth) {
			cfg_msg(o, metric, true, "expected at most %d metrics NAME, NAME(ARGS) or NAME:ARGS, comma-separated",
				EV_MAX_METERS);
			return;
		}
		memcpy(sp, p, n);
		sp[n] = 0;
		char *open = strchr(sp, '(');
		if (open && sp[n - 1] == ')') {	/* Compass' NAME(ARGS) */
			sp[n - 1] = 0;
			*open = open[1] ? ':' : 0;
		}
		if (*sp)
			o->mspec[o->nmspec++] = sp;
		p += n + (p[n] == ',');
	}
	if (dataset && strchr(dataset->val, ':'))
		snprintf(dspec, sizeof dspec, "%s", dataset->val);
	else if (dataset)
		snprintf(dspec, sizeof dspec, "%s%s%s%s%s", dataset->val, data ? ":" : "", data ? data->val : "",
			 label ? "," : "", label ? label->val : "");
	else if (label)
		cfg_msg(o, label, true, "labels in a file of their own need a dataset plugin (e.g. dataset = npy-pair); "
			"an .npz data set holds them as 'labels'");
	else if (data)
		snprintf(dspec, sizeof dspec, "%s", data->val);
	else
		cfg_msg(o, metric, true, "a metric needs data (or a dataset plugin)");
	o->mdata = dspec;
}

static void apply_cfg(options *o)
{
	uint8_t *buf;
	size_t size;
	ir_diag d;
	if (cli_read_file(o->cfg, false, &buf, &size))
		exit(CLI_FAIL);
	int rc = npu_optcfg_parse(buf, size, cli_name(o->cfg), &cfg_text, &d);
	free(buf);
	if (rc)
		exit(cli_error_msg(cli_name(o->cfg), d.msg));
	atexit(cfg_free);
	const npu_optcfg_entry *dir = NULL, *qname = NULL, *mname = NULL, *data = NULL, *label = NULL, *dataset = NULL,
			       *metric = NULL;
	o->mfloat = true;
	bool calib_given = o->n_calib > 0, eval_given = o->n_eval > 0, stats_given = o->n_stats_in > 0;
	bool global_given = o->adaround || o->easyquant || o->bias_correction;
	for (int i = 0; i < cfg_text.n; i++) {
		const npu_optcfg_entry *e = &cfg_text.e[i];
		const char *k = e->key, *v = e->val, *why;
		char mbuf[64];
		long n;
		if (!strcmp(k, "graph")) {
			if (!o->in && *v)
				o->in = v;
		} else if (!strcmp(k, "output_dir")) {
			dir = *v ? e : NULL;
		} else if (!strcmp(k, "quant_ir_name")) {
			qname = *v ? e : NULL;
		} else if (!strcmp(k, "model_name")) {
			mname = *v ? e : NULL;
		} else if (!strcmp(k, "calibration_data")) {
			if (!calib_given && *v)
				add_file(o->calib, &o->n_calib, "--calib", v);
		} else if (!strcmp(k, "calibration_batch_size")) {
			if ((n = cfg_int(v, 1, 1 << 20)) < 0)
				cfg_msg(o, e, true, "expected a number from 1 to %d", 1 << 20);
			else if (!o->calib_batch)
				o->calib_batch = n;
		} else if (!strcmp(k, "calibration_strategy_for_activation")) {
			const char *m = cfg_method(v, mbuf, sizeof mbuf, &why);
			if (!m)
				cfg_msg(o, e, true, "%s", why);
			else if (!o->method && !(o->method = cfg_strdup(m)))
				cli_usage("out of memory");
		} else if (!strcmp(k, "calibration_strategy_for_weight")) {
			if (strcasecmp(v, "extrema"))
				cfg_msg(o, e, false, "weights are quantized over their exact range (extrema)");
		} else if (!strcmp(k, "quantize_method_for_weight")) {
			if (ir_wq_scheme_parse(v, NULL) < 0)
				cfg_msg(o, e, true, "expected per_channel_ or per_tensor_ symmetric_restricted_range, "
					"symmetric_full_range or asymmetric");
			else if (!o->wscheme)
				o->wscheme = v;
		} else if (!strcmp(k, "quantize_method_for_activation")) {
			int sym = !strcmp(v, "per_tensor_asymmetric") ? 0 :
				  !strcmp(v, "per_tensor_symmetric_restricted_range") ||
				  !strcmp(v, "per_tensor_symmetric_full_range") ? 1 : -1;
			if (sym < 0)
				cfg_msg(o, e, true, "expected per_tensor_asymmetric, per_tensor_symmetric_restricted_range "
					"or per_tensor_symmetric_full_range (activations have one scale per tensor)");
			else {
				if (!strcmp(v, "per_tensor_symmetric_full_range") && o->act_sym < 0)
					cfg_msg(o, e, false, "symmetric activations here map the largest magnitude to "
						"2^(bits-1)-1 (restricted range), not full range");
				if (o->act_sym < 0)
					o->act_sym = sym;
			}
		} else if (!strcmp(k, "activation_bits")) {
			if (strcmp(v, "8") && strcmp(v, "16"))
				cfg_msg(o, e, true, "expected 8 or 16");
			else if (!o->bits)
				o->bits = v;
		} else if (!strcmp(k, "weight_bits")) {
			if ((n = cfg_int(v, 2, 16)) < 0)
				cfg_msg(o, e, true, "expected a number from 2 to 16");
			else if (o->wbits < 0)
				o->wbits = (int)n;
		} else if (!strcmp(k, "bias_bits")) {
			if (strcmp(v, "32"))
				cfg_msg(o, e, true, "biases are int32 here: 32 is the only value");
		} else if (!strcmp(k, "lut_items_in_bits")) {
			if ((n = cfg_int(v, 1, 15)) < 0)
				cfg_msg(o, e, true, "expected a number from 1 to 15");
			else if (o->lut_bits < 0)
				o->lut_bits = (int)n;
		} else if (!strcmp(k, "opt_config")) {
			if (!o->config && *v)
				o->config = v;
		} else if (!strcmp(k, "statistic_file")) {
			if (!stats_given && *v)
				add_file(o->stats_in, &o->n_stats_in, "--stats-in", v);
		} else if (!strcmp(k, "data")) {
			data = *v ? e : NULL;
		} else if (!strcmp(k, "global_calibration")) {
			size_t w = strcspn(v, "[ \t");
			bool easy = w == 10 && !strncasecmp(v, "easy_quant", w), ada = w == 8 && !strncasecmp(v, "adaround", w);
			if (!strcasecmp(v, "none"))
				continue;
			if (!easy && !ada)
				cfg_msg(o, e, true, "expected none, easy_quant or adaround");
			else {
				if (v[w])
					cfg_msg(o, e, false, "the parameters in brackets have no equivalent here");
				if (!global_given) {
					o->easyquant |= easy;
					if (ada)
						o->adaround = ADAROUND_ITERS;
				}
			}
		} else if (!strcmp(k, "mixed_precision_auto_search")) {
			char c = 0, *end;
			long b = strtol(v, &end, 10);
			int at = 0;
			double thr;
			if (end == v || sscanf(end, " , %lf , %c %n", &thr, &c, &at) < 2 || end[at] || !strchr("GgLl", c))
				cfg_msg(o, e, true, "expected batches,threshold,L or G (e.g. 1,0.02,L)");
			else if (b > 0)
				cfg_msg(o, e, false, "the automatic mixed-precision search is npu-mixp(1); npu-quant "
					"quantizes without it");
		} else if (!strcmp(k, "bin")) {
			if (*v)
				cfg_msg(o, e, false, "an npukit IR carries its weights");
		} else if (!strcmp(k, "dataset")) {
			dataset = *v ? e : NULL;
		} else if (!strcmp(k, "label")) {
			label = *v ? e : NULL;
		} else if (!strcmp(k, "metric")) {
			metric = *v ? e : NULL;
		} else if (!strcmp(k, "eval_original_model")) {
			if (strcasecmp(v, "true") && strcasecmp(v, "false"))
				cfg_msg(o, e, true, "expected true or false");
			o->mfloat = !strcasecmp(v, "true");
		} else if (!strcmp(k, "metric_batch_size")) {
			if (cfg_int(v, 1, 1L << 30) < 0)
				cfg_msg(o, e, true, "expected a positive number");
		} else if (strcasecmp(v, npu_optcfg_default(k))) {
			cfg_msg(o, e, false, "a Compass setting with no meaning here");
		}
	}
	if (data && !dataset && !eval_given)
		add_file(o->eval, &o->n_eval, "--eval", data->val);
	cfg_metric(o, metric, dataset, data, label);
	const npu_optcfg_entry *name = qname ? qname : mname;
	if (dir && !name)
		cfg_msg(o, dir, true, "the IR file needs a name: give quant_ir_name or model_name");
	else if (dir && !o->out) {
		size_t l = strlen(dir->val) + strlen(name->val) + 5;
		char *p = malloc(l);
		if (!p)
			cli_usage("out of memory");
		snprintf(p, l, "%s/%s.ir", dir->val, name->val);
		if (!(o->out = cfg_strdup(p)))
			cli_usage("out of memory");
		free(p);
		o->out_dir = dir->val;
	}
	if (cfg_bad_count)
		exit(CLI_FAIL);
}

static void parse_args(int argc, char **argv, options *o)
{
	enum {
		OPT_BATCH = 256, OPT_CMAX, OPT_SOUT, OPT_SIN, OPT_SYM, OPT_ASYM, OPT_WBITS, OPT_WSCHEME,
		OPT_PT, OPT_LUT, OPT_INTIO, OPT_CONFIG, OPT_FLOAT, OPT_CFC, OPT_CCONV, OPT_EXCL, OPT_WMM,
		OPT_F16OUT, OPT_REPORT, OPT_EVAL, OPT_EMAX, OPT_STRICT, OPT_STATE, OPT_ADAROUND, OPT_BIASCORR, OPT_EASYQUANT,
		OPT_CFG, OPT_FIELD,
	};
	static const struct option longopts[] = {
		{"target", required_argument, NULL, 't'}, {"calib", required_argument, NULL, 'c'},
		{"calib-batch", required_argument, NULL, OPT_BATCH}, {"calib-max", required_argument, NULL, OPT_CMAX},
		{"method", required_argument, NULL, 'm'}, {"stats-out", required_argument, NULL, OPT_SOUT},
		{"stats-in", required_argument, NULL, OPT_SIN}, {"bits", required_argument, NULL, 'b'},
		{"symmetric", no_argument, NULL, OPT_SYM}, {"asymmetric", no_argument, NULL, OPT_ASYM},
		{"weight-bits", required_argument, NULL, OPT_WBITS},
		{"weight-scheme", required_argument, NULL, OPT_WSCHEME}, {"per-tensor", no_argument, NULL, OPT_PT},
		{"lut-bits", required_argument, NULL, OPT_LUT}, {"int-io", no_argument, NULL, OPT_INTIO},
		{"config", required_argument, NULL, OPT_CONFIG}, {"float-layers", required_argument, NULL, OPT_FLOAT},
		{"compress-fc", no_argument, NULL, OPT_CFC}, {"compress-conv", no_argument, NULL, OPT_CCONV},
		{"exclude-compress", required_argument, NULL, OPT_EXCL},
		{"weight-min-max", required_argument, NULL, OPT_WMM},
		{"fp16-outputs", required_argument, NULL, OPT_F16OUT}, {"report", required_argument, NULL, OPT_REPORT},
		{"eval", required_argument, NULL, OPT_EVAL}, {"eval-max", required_argument, NULL, OPT_EMAX},
		{"strict", no_argument, NULL, OPT_STRICT},
		{"state", required_argument, NULL, OPT_STATE},
		{"adaround", optional_argument, NULL, OPT_ADAROUND},
		{"bias-correction", no_argument, NULL, OPT_BIASCORR},
		{"easyquant", no_argument, NULL, OPT_EASYQUANT},
		{"cfg", required_argument, NULL, OPT_CFG}, {"field", no_argument, NULL, OPT_FIELD},
		CLI_COMMON_OPTS,
		{NULL, 0, NULL, 0},
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:c:m:b:o:fVvq", longopts, NULL)) != -1) {
		switch (c) {
		case 't': o->target = optarg; break;
		case 'c': add_file(o->calib, &o->n_calib, "--calib", optarg); break;
		case OPT_BATCH: o->calib_batch = parse_count("--calib-batch", optarg, 1, 1 << 20); break;
		case OPT_CMAX: o->calib_max = parse_count("--calib-max", optarg, 1, 1L << 40); break;
		case 'm': o->method = optarg; break;
		case OPT_SOUT: o->stats_out = optarg; break;
		case OPT_SIN: add_file(o->stats_in, &o->n_stats_in, "--stats-in", optarg); break;
		case 'b': o->bits = optarg; break;
		case OPT_SYM: o->act_sym = 1; break;
		case OPT_ASYM: o->act_sym = 0; break;
		case OPT_WBITS: o->wbits = (int)parse_count("--weight-bits", optarg, 2, 16); break;
		case OPT_WSCHEME: o->wscheme = optarg; break;
		case OPT_PT: o->per_channel = 0; break;
		case OPT_LUT: o->lut_bits = (int)parse_count("--lut-bits", optarg, 1, 15); break;
		case OPT_INTIO: o->int_io = true; break;
		case OPT_CONFIG: o->config = optarg; break;
		case OPT_FLOAT: o->float_layers = optarg; break;
		case OPT_CFC: o->compress_fc = true; break;
		case OPT_CCONV: o->compress_conv = true; break;
		case OPT_EXCL: o->exclude = optarg; break;
		case OPT_WMM: parse_wrange(o, optarg); break;
		case OPT_F16OUT: o->f16_outputs = optarg; break;
		case OPT_REPORT: o->report = optarg; break;
		case OPT_EVAL: add_file(o->eval, &o->n_eval, "--eval", optarg); break;
		case OPT_EMAX: o->eval_max = parse_count("--eval-max", optarg, 1, 1L << 40); break;
		case OPT_STRICT: o->strict = true; break;
		case OPT_STATE: parse_state(o, optarg); break;
		case OPT_ADAROUND:
			o->adaround = optarg ? (int)parse_count("--adaround", optarg, 1, 1000000) : ADAROUND_ITERS;
			break;
		case OPT_BIASCORR: o->bias_correction = true; break;
		case OPT_EASYQUANT: o->easyquant = true; break;
		case OPT_CFG: o->cfg = optarg; break;
		case OPT_FIELD: o->field = true; break;
		default: cli_common_option(c, argv, &o->out, &o->force, help);
		}
	}
	if (optind < argc)
		o->in = argv[optind++];
	if (optind < argc)
		cli_usage("unexpected argument '%s' (one IR at a time)", argv[optind]);
	if (o->field)
		list_fields();
	if (o->cfg)
		apply_cfg(o);
	if (!o->target)
		cli_usage("--target is required (a profile name such as int8 or grus, or a path)");
	if ((o->adaround || o->bias_correction || o->easyquant) && (!o->n_calib || o->n_states))
		cli_usage("--adaround, --bias-correction and --easyquant need --calib samples (and no --state)");
}

/* Split a comma-separated list in place. */
static int split_list(char *s, const char **out, int max)
{
	int n = 0;
	for (char *save = NULL, *t = s ? strtok_r(s, ",", &save) : NULL; t && n < max; t = strtok_r(NULL, ",", &save))
		out[n++] = t;
	return n;
}

/* ---------------------------------------------------------------- samples */

/* Samples from one file or directory: count, and the arrays per input. */
typedef struct {
	const char *path;
	bool dir;
	char **files;		/* directory: its .npz files, sorted */
	int n_files;
	npy_array *arrs;	/* a file: its arrays */
	int n_arrs;
	int64_t count;
	npy_array **of_input;	/* a file: the array of each graph input */
} source;

static int cmp_str(const void *a, const void *b)
{
	/* sample2 before sample10: shorter first, then bytes */
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t lx = strlen(x), ly = strlen(y);
	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

/* regular: a file a --calib directory holds (a FIFO there would block) */
static npy_array *read_arrays(const char *path, int *n, const ir_graph *g, bool regular)
{
	uint8_t *buf;
	size_t size;
	ir_diag d;
	bool npz;
	if ((regular ? cli_read_regular : cli_read_file)(path, true, &buf, &size))
		return NULL;
	/* With g: an .npz must hold every graph input, checked before inflating. */
	int ni = g ? ir_graph_input_count(g) : 0;
	const char **want = calloc((size_t)ni + 1, sizeof *want);
	for (int i = 0; i < ni && want; i++)
		want[i] = ir_graph_tensor(g, ir_graph_input(g, i))->name;
	npy_array *a = want ? npy_read_want(buf, size, want, ni, n, &npz, &d) : NULL;
	if (!want)
		snprintf(d.msg, sizeof d.msg, "out of memory");
	free(want);
	free(buf);
	if (!a)
		cli_error(cli_name(path), "%s", d.msg);
	return a;
}

/* The array for graph input i in arrays a (an .npy: the only one). */
static npy_array *pick(const ir_graph *g, int i, npy_array *a, int n, bool npz, const char *file)
{
	const ir_tensor *t = ir_graph_tensor(g, ir_graph_input(g, i));
	if (!npz)
		return &a[0];
	for (int k = 0; k < n; k++)
		if (!strcmp(a[k].name, t->name))
			return &a[k];
	cli_error(file, "no array for input '%s'", t->name);
	return NULL;
}

/* How many samples array a holds for input t: its shape is t's, or t's
 * behind a leading sample axis (t's own leading 1 may be left out).
 * -1 (printed) if neither. */
static int64_t sample_count(const npy_array *a, const ir_tensor *t, const char *file, bool single)
{
	char s1[160], s2[160];
	bool fl = t->dtype == IR_DTYPE_F32 || t->dtype == IR_DTYPE_F16 || t->dtype == IR_DTYPE_BF16;
	if (fl ? a->dtype != IR_DTYPE_F32 : a->dtype != t->dtype)
		return cli_error(file, "array '%s' is %s; calibration data for input '%s' is %s",
				 a->name ? a->name : t->name, npy_dtype_name(a->dtype), t->name,
				 fl ? "float32 (or float64)" : npy_dtype_name(t->dtype)), -1;
	int64_t per = ir_shape_numel(&t->shape), all = ir_shape_numel(&a->shape);
	bool tail = a->shape.rank >= 1 && per > 0 && all % per == 0;
	if (tail) {	/* trailing dims must be t's (without t's leading 1s) */
		int ra = a->shape.rank, rt = t->shape.rank, k = 0;
		while (k < rt && t->shape.dim[k] == 1 && rt - k > ra - 1)
			k++;
		for (int j = 0; j < rt - k && tail; j++)
			tail = ra - 1 - j >= (single ? 0 : 1) && a->shape.dim[ra - 1 - j] == t->shape.dim[rt - 1 - j];
	}
	if (ir_shape_equal(&a->shape, &t->shape))
		return 1;
	if (!tail || single)
		return cli_error(file, "array '%s' is %s; input '%s' is %s (calibration arrays hold samples along their first axis)",
				 a->name ? a->name : t->name, ir_shape_str(&a->shape, s1, sizeof s1), t->name,
				 ir_shape_str(&t->shape, s2, sizeof s2)), -1;
	return all / per;
}

static bool nan_strict;	/* --strict: NaNs in sample data are an error */

/* NaNs in the float samples of input t read from file: the statistics skip
 * them, so say so (an error with --strict). 0, or -1 when that fails. */
static int nan_check(const char *file, const ir_tensor *t, const npy_array *a)
{
	if (a->dtype != IR_DTYPE_F32 || !a->data)
		return 0;
	const float *x = a->data;
	int64_t n = (int64_t)(a->nbytes / sizeof *x), nan = 0;
	for (int64_t i = 0; i < n; i++)
		nan += isnan(x[i]);
	if (!nan || (!nan_strict && cli_verbose < 0))
		return nan && nan_strict ? -1 : 0;
	fprintf(stderr, "%s: %s: input '%s': %s: %lld NaN values (of %lld) in the sample data; the statistics skip them\n",
		cli_prog, file, t->name, nan_strict ? "error" : "warning", (long long)nan, (long long)n);
	return nan_strict ? -1 : 0;
}

/* sampleN_inputs.npz */
static bool is_sample_inputs(const char *name)
{
	size_t l = strlen(name), k = 6;
	if (strncmp(name, "sample", 6) || l < 18 || strcmp(name + l - 11, "_inputs.npz"))
		return false;
	while (k < l - 11 && name[k] >= '0' && name[k] <= '9')
		k++;
	return k == l - 11 && k > 6;
}

static int source_open(source *s, const char *path, const ir_graph *g)
{
	memset(s, 0, sizeof *s);
	s->path = path;
	struct stat st;
	int ni = ir_graph_input_count(g);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		DIR *dir = opendir(path);
		if (!dir)
			return cli_error(path, "%s", strerror(errno));
		/* Enflame's layout (sampleN_inputs.npz + sampleN_outputs.npz): the
		 * inputs only; else every .npz */
		bool enflame = false;
		for (struct dirent *e; !enflame && (e = readdir(dir));)
			enflame = is_sample_inputs(e->d_name);
		rewinddir(dir);
		for (struct dirent *e; (e = readdir(dir));) {
			size_t l = strlen(e->d_name);
			if (l < 5 || strcmp(e->d_name + l - 4, ".npz") || (enflame && !is_sample_inputs(e->d_name)))
				continue;
			char **f = realloc(s->files, sizeof *f * (size_t)(s->n_files + 1));
			size_t pl = strlen(path) + l + 2;
			char *p = malloc(pl);
			if (!f || !p) {
				free(p);
				closedir(dir);
				return cli_error(NULL, "out of memory");
			}
			snprintf(p, pl, "%s/%s", path, e->d_name);
			s->files = f;
			s->files[s->n_files++] = p;
		}
		closedir(dir);
		qsort(s->files, (size_t)s->n_files, sizeof *s->files, cmp_str);
		s->dir = true;
		s->count = s->n_files;
		if (!s->n_files)
			return cli_error(path, "no .npz samples in this directory");
		return 0;
	}
	s->arrs = read_arrays(path, &s->n_arrs, g, false);
	if (!s->arrs)
		return -1;
	bool npz = s->n_arrs != 1 || s->arrs[0].name;
	if (!npz && ni != 1)
		return cli_error(path, "an .npy feeds a model with one input; this one has %d (use an .npz keyed by input name)", ni);
	s->of_input = calloc((size_t)ni + 1, sizeof *s->of_input);
	if (!s->of_input)
		return cli_error(NULL, "out of memory");
	s->count = -1;
	for (int i = 0; i < ni; i++) {
		npy_array *a = pick(g, i, s->arrs, s->n_arrs, npz, path);
		if (!a)
			return -1;
		int64_t c = sample_count(a, ir_graph_tensor(g, ir_graph_input(g, i)), path, false);
		if (c < 0)
			return -1;
		if (s->count >= 0 && c != s->count)
			return cli_error(path, "inputs have different sample counts (%lld and %lld)", (long long)s->count,
					 (long long)c);
		s->count = c;
		s->of_input[i] = a;
		if (nan_check(path, ir_graph_tensor(g, ir_graph_input(g, i)), a))
			return -1;
	}
	if (s->count == 0)
		return cli_error(path, "no samples (the first axis is 0)");
	return 0;
}

static void source_close(source *s)
{
	for (int i = 0; i < s->n_files; i++)
		free(s->files[i]);
	free(s->files);
	if (s->arrs)
		npz_free(s->arrs, s->n_arrs);
	free(s->of_input);
	memset(s, 0, sizeof *s);
}

typedef struct calib_run calib_run;
struct calib_run {
	ir_calib *c;
	float **buf;		/* per tensor: the batch so far */
	int64_t *len, *cap;
	const int *tie_in, *tie_out;	/* state pairs (tensor ids): one range each */
	int n_tie;
	ir_diag d;
	bool failed;
};

static int batch_add(calib_run *r, int t, const float *x, int64_t n)
{
	if (r->len[t] + n > r->cap[t]) {
		int64_t cap = (r->len[t] + n) * 2;
		float *p = realloc(r->buf[t], sizeof *p * (size_t)cap);
		if (!p) {
			ir_fail(&r->d, -1, t, "out of memory");
			return r->failed = true, -1;
		}
		r->buf[t] = p, r->cap[t] = cap;
	}
	memcpy(r->buf[t] + r->len[t], x, sizeof *x * (size_t)n);
	r->len[t] += n;
	return 0;
}


/* Input i from x: float32 values (converted to the input's type), or the
 * input's own type (indices). */
static int set_input(ir_exec *e, const ir_graph *g, int i, const npy_array *a, const void *x, int64_t n,
		     calib_run *r, ir_diag *d)
{
	if (a->dtype != IR_DTYPE_F32)
		return ir_exec_set_input(e, i, x, (size_t)n * ir_dtype_size(a->dtype), d);
	if (ir_exec_set_input_f32(e, i, x, n, d))
		return -1;
	if (r && batch_add(r, ir_graph_input(g, i), x, n)) {
		*d = r->d;
		return -1;
	}
	return 0;
}

/* Feed sample k of s into e (and, with r, into the calibration batch). */
static int source_feed(source *s, int64_t k, const ir_graph *g, ir_exec *e, calib_run *r)
{
	int ni = ir_graph_input_count(g), rc = 0;
	ir_diag d;
	if (!s->dir) {
		for (int i = 0; i < ni; i++) {
			const npy_array *a = s->of_input[i];
			int64_t per = ir_shape_numel(&ir_graph_tensor(g, ir_graph_input(g, i))->shape);
			const uint8_t *x = (const uint8_t *)a->data + (size_t)(k * per) * ir_dtype_size(a->dtype);
			if (set_input(e, g, i, a, x, per, r, &d))
				return cli_diag(g, s->path, &d);
		}
		return 0;
	}
	int n;
	const char *file = s->files[k];
	npy_array *a = read_arrays(file, &n, g, true);
	if (!a)
		return -1;
	for (int i = 0; i < ni && !rc; i++) {
		npy_array *x = pick(g, i, a, n, true, file);
		const ir_tensor *t = ir_graph_tensor(g, ir_graph_input(g, i));
		if (!x || sample_count(x, t, file, true) < 0 || (r && nan_check(file, t, x)))
			rc = -1;
		else if (set_input(e, g, i, x, x->data, ir_shape_numel(&t->shape), r, &d))
			rc = cli_diag(g, file, &d);
	}
	npz_free(a, n);
	return rc;
}

static int sources_open(source *src, const char *const *paths, int n, const ir_graph *g, int64_t *total)
{
	int rc = 0;
	*total = 0;
	for (int i = 0; i < n; i++) {
		if (source_open(&src[i], paths[i], g))
			rc = -1;
		else
			*total += src[i].count;
	}
	return rc;
}

/* Progress on a terminal, a few updates a second. */
static void progress(const char *what, int64_t done, int64_t total)
{
	static double last;
	if (!isatty(2) || cli_verbose < 0)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double t = (double)ts.tv_sec + ts.tv_nsec * 1e-9;
	if (done < total && t - last < 0.25)
		return;
	last = t;
	fprintf(stderr, "\r%s: %s %lld/%lld samples%s", cli_prog, what, (long long)done, (long long)total,
		done == total ? "\n" : "");
}

/* ---------------------------------------------------------------- calibration */

static int calib_hook(void *user, const ir_graph *g, int node, int t, const void *data)
{
	(void)node;
	calib_run *r = user;
	const ir_tensor *x = ir_graph_tensor(g, t);
	if (x->dtype != IR_DTYPE_F32)
		return 0;
	return batch_add(r, t, data, ir_shape_numel(&x->shape));
}

/* The tensors whose values t repeats: t, then back through the producers
 * that only move values (identity, reshape, ...), whose output the
 * quantizer gives its input's quantization. At most max; returns the count. */
#define TIE_MAX 8
static int value_chain(const ir_graph *g, int t, int *out, int max)
{
	int n = 0;
	while (t >= 0 && n < max) {
		out[n++] = t;
		int from = -1;
		for (int i = 0; i < ir_graph_node_count(g) && from < 0; i++) {
			const ir_node *nd = ir_graph_node(g, i);
			if (nd->n_outputs == 1 && nd->outputs[0] == t && nd->n_inputs >= 1 &&
			    (nd->op == IR_OP_IDENTITY || nd->op == IR_OP_RESHAPE || nd->op == IR_OP_FLATTEN ||
			     nd->op == IR_OP_SQUEEZE || nd->op == IR_OP_UNSQUEEZE || nd->op == IR_OP_TRANSPOSE))
				from = nd->inputs[0];
		}
		t = from;
	}
	return n;
}

static int calib_flush(calib_run *r, const ir_graph *g)
{
	/* a state input, its output and the tensors whose quantization the
	 * output takes (the cat before an identity) all see the union of
	 * their values: the same values, so any method gives them one range */
	for (int p = 0; p < r->n_tie; p++) {
		int m[TIE_MAX + 1], nm = 1 + value_chain(g, r->tie_out[p], m + 1, TIE_MAX);
		m[0] = r->tie_in[p];
		float *orig[TIE_MAX + 1] = {NULL};
		int64_t len[TIE_MAX + 1];
		int rc = 0;
		for (int k = 0; k < nm && !rc; k++) {
			len[k] = r->len[m[k]];
			if (!(orig[k] = malloc(sizeof(float) * (size_t)(len[k] + 1)))) {
				ir_fail(&r->d, -1, m[k], "out of memory");
				r->failed = true;
				rc = -1;
			} else if (len[k])
				memcpy(orig[k], r->buf[m[k]], sizeof(float) * (size_t)len[k]);
		}
		for (int k = 0; k < nm && !rc; k++)
			for (int j = 0; j < nm && !rc; j++)
				if (j != k && len[j])
					rc = batch_add(r, m[k], orig[j], len[j]);
		for (int k = 0; k < nm; k++)
			free(orig[k]);
		if (rc)
			return -1;
	}
	for (int t = 0; t < ir_graph_tensor_count(g); t++)
		if (r->len[t]) {
			if (ir_calib_observe(r->c, ir_graph_tensor(g, t)->name, r->buf[t], r->len[t], &r->d))
				return r->failed = true, -1;
			r->len[t] = 0;
		}
	return 0;
}

/* One sample (or sequence step) observed: flush the statistics batch when
 * it is full; a failure is reported against PATH. */
static int calib_step(calib_run *r, const ir_graph *g, const char *path, int64_t *in_batch, long batch)
{
	if (++*in_batch < batch)
		return 0;
	*in_batch = 0;
	if (calib_flush(r, g)) {
		cli_diag(g, path, &r->d);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- sequences (--state) */

/* A calibration file of sequences: per graph input its array, [N, T, ...]
 * for the other inputs, [N, ...] initial values (or none: zeros) for the
 * state inputs. */
typedef struct {
	const char *path;
	npy_array *arrs;
	int n_arrs;
	npy_array **of_input;	/* NULL: a state input starting at zero */
	int64_t count, steps;
} seq_source;

/* The product of a's dimensions from `from` on. */
static int64_t numel_from(const npy_array *a, int from)
{
	int64_t n = 1;
	for (int k = from; k < a->shape.rank; k++)
		n *= a->shape.dim[k];
	return n;
}

static int seq_open(seq_source *s, const char *path, const ir_graph *g, const bool *is_state)
{
	memset(s, 0, sizeof *s);
	s->path = path;
	struct stat st;
	int ni = ir_graph_input_count(g), n_plain = 0;
	char s1[160], s2[160];
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return cli_error(path, "calibration over sequences (--state) reads .npy or .npz files, not directories");
	if (!(s->arrs = read_arrays(path, &s->n_arrs, NULL, false)))
		return -1;
	bool npz = s->n_arrs != 1 || s->arrs[0].name;
	for (int i = 0; i < ni; i++)
		n_plain += !is_state[i];
	if (!npz && n_plain != 1)
		return cli_error(path, "an .npy feeds a model with one input besides its states; this one has %d (use an .npz keyed by input name)",
				 n_plain);
	if (!(s->of_input = calloc((size_t)ni + 1, sizeof *s->of_input)))
		return cli_error(NULL, "out of memory");
	s->count = s->steps = -1;
	for (int i = 0; i < ni; i++) {
		const ir_tensor *t = ir_graph_tensor(g, ir_graph_input(g, i));
		npy_array *a = NULL;
		for (int k = 0; npz && k < s->n_arrs; k++)
			if (!strcmp(s->arrs[k].name, t->name))
				a = &s->arrs[k];
		if (!npz && !is_state[i])
			a = &s->arrs[0];
		if (!a) {
			if (is_state[i])
				continue;	/* starts at zero */
			return cli_error(path, "no array for input '%s'", t->name);
		}
		bool fl = t->dtype == IR_DTYPE_F32;
		if (fl ? a->dtype != IR_DTYPE_F32 : a->dtype != t->dtype)
			return cli_error(path, "array '%s' is %s; calibration data for input '%s' is %s",
					 a->name ? a->name : t->name, npy_dtype_name(a->dtype), t->name,
					 fl ? "float32 (or float64)" : npy_dtype_name(t->dtype));
		int64_t per = ir_shape_numel(&t->shape);
		int lead = is_state[i] ? 1 : 2;
		if (a->shape.rank < lead || numel_from(a, lead) != per)
			return cli_error(path, "array '%s' is %s; input '%s' is %s (over sequences, %s)",
					 a->name ? a->name : t->name, ir_shape_str(&a->shape, s1, sizeof s1), t->name,
					 ir_shape_str(&t->shape, s2, sizeof s2),
					 is_state[i] ? "a state input's array holds initial states [N, ...]" :
					 "an input's array holds sequences [N, T, ...]");
		if (s->count >= 0 && a->shape.dim[0] != s->count)
			return cli_error(path, "inputs have different sequence counts (%lld and %lld)",
					 (long long)s->count, (long long)a->shape.dim[0]);
		s->count = a->shape.dim[0];
		if (!is_state[i]) {
			if (s->steps >= 0 && a->shape.dim[1] != s->steps)
				return cli_error(path, "inputs have sequences of different lengths (%lld and %lld steps)",
						 (long long)s->steps, (long long)a->shape.dim[1]);
			s->steps = a->shape.dim[1];
		}
		s->of_input[i] = a;
	}
	if (s->count <= 0 || s->steps <= 0)
		return cli_error(path, "no sequences (N or T is 0)");
	return 0;
}

static void seq_close(seq_source *s)
{
	if (s->arrs)
		npz_free(s->arrs, s->n_arrs);
	free(s->of_input);
	memset(s, 0, sizeof *s);
}

/* Calibrate over sequences: each one step by step through the float
 * interpreter, state outputs fed back as the next step's state inputs,
 * statistics at every step. sin/sout: the pairs' input and output indices. */
static int calibrate_seq(const options *o, const ir_graph *g, ir_calib *c, const int *sin, const int *sout)
{
	int ni = ir_graph_input_count(g), nt = ir_graph_tensor_count(g), ns = o->n_states, rc = CLI_FAIL;
	seq_source src[MAX_FILES];
	memset(src, 0, sizeof src);
	bool *is_state = calloc((size_t)ni + 1, sizeof(bool));
	int *tin = malloc(sizeof(int) * (size_t)(ns + 1)), *tout = malloc(sizeof(int) * (size_t)(ns + 1));
	float **st = calloc((size_t)ni + 1, sizeof(float *));	/* per state input: its value now */
	calib_run r = {.c = c, .buf = calloc((size_t)nt + 1, sizeof(float *)),
		       .len = calloc((size_t)nt + 1, sizeof(int64_t)), .cap = calloc((size_t)nt + 1, sizeof(int64_t)),
		       .tie_in = tin, .tie_out = tout, .n_tie = ns};
	ir_exec *e = NULL;
	ir_diag d;
	if (!is_state || !tin || !tout || !st || !r.buf || !r.len || !r.cap) {
		cli_error(NULL, "out of memory");
		goto out;
	}
	for (int p = 0; p < ns; p++) {
		is_state[sin[p]] = true;
		tin[p] = ir_graph_input(g, sin[p]);
		tout[p] = ir_graph_output(g, sout[p]);
		if (!(st[sin[p]] = malloc(sizeof(float) * (size_t)(ir_shape_numel(&ir_graph_tensor(g, tin[p])->shape) + 1)))) {
			cli_error(NULL, "out of memory");
			goto out;
		}
	}
	int64_t total = 0;
	bool bad = false;
	for (int s = 0; s < o->n_calib; s++)
		if (seq_open(&src[s], o->calib[s], g, is_state))
			bad = true;
		else
			total += src[s].count;
	if (bad)
		goto out;
	if (o->calib_max && total > o->calib_max)
		total = o->calib_max;
	if (!(e = ir_exec_new(g, IR_MODE_F32, 1, &d))) {
		cli_diag(g, cli_name(o->in), &d);
		goto out;
	}
	ir_exec_set_hook(e, calib_hook, &r);
	int64_t done = 0, steps = 0, in_batch = 0;
	long batch = o->calib_batch ? o->calib_batch : CALIB_BATCH;
	for (int s = 0; s < o->n_calib && done < total; s++) {
		seq_source *q = &src[s];
		for (int64_t n = 0; n < q->count && done < total; n++) {
			for (int64_t k = 0; k < q->steps; k++) {
				for (int i = 0; i < ni; i++) {
					const npy_array *a = q->of_input[i];
					int64_t per = ir_shape_numel(&ir_graph_tensor(g, ir_graph_input(g, i))->shape);
					if (is_state[i] && k == 0) {	/* the initial state */
						if (a)
							memcpy(st[i], (const float *)a->data + n * per, sizeof(float) * (size_t)per);
						else
							memset(st[i], 0, sizeof(float) * (size_t)per);
					}
					npy_array f32 = {.dtype = IR_DTYPE_F32};
					const void *x = is_state[i] ? (const void *)st[i] :
						(const uint8_t *)a->data + (size_t)((n * q->steps + k) * per) * ir_dtype_size(a->dtype);
					if (set_input(e, g, i, is_state[i] ? &f32 : a, x, per, &r, &d)) {
						cli_diag(g, q->path, &d);
						goto out;
					}
				}
				if (ir_exec_run(e, &d)) {
					cli_diag(g, q->path, &d);
					goto out;
				}
				if (r.failed) {
					cli_diag(g, q->path, &r.d);
					goto out;
				}
				for (int p = 0; p < ns; p++) {	/* fed back */
					size_t nb;
					const void *y = ir_exec_output(e, sout[p], &nb);
					memcpy(st[sin[p]], y, nb);
				}
				steps++;
				if (calib_step(&r, g, q->path, &in_batch, batch))
					goto out;
			}
			progress("calibrating", ++done, total);
		}
	}
	if (calib_flush(&r, g)) {
		cli_diag(g, NULL, &r.d);
		goto out;
	}
	cli_info(1, "calibrated on %lld sequences, %lld steps", (long long)done, (long long)steps);
	rc = CLI_OK;
out:
	ir_exec_free(e);
	for (int t = 0; r.buf && t < nt; t++)
		free(r.buf[t]);
	free(r.buf);
	free(r.len);
	free(r.cap);
	for (int i = 0; st && i < ni; i++)
		free(st[i]);
	free(st);
	free(is_state);
	free(tin);
	free(tout);
	for (int i = 0; i < o->n_calib; i++)
		seq_close(&src[i]);
	return rc;
}

/* The sample just fed (the end of each float input's batch) for
 * ir_quant_refine. */
static int keep_sample(options *o, const ir_graph *g, const calib_run *r)
{
	int ni = ir_graph_input_count(g);
	float **k = realloc(o->keep, sizeof(float *) * (size_t)(o->n_keep + 1) * (size_t)ni);
	if (!k)
		return cli_error(NULL, "out of memory");
	o->keep = k;
	for (int i = 0; i < ni; i++) {
		int t = ir_graph_input(g, i);
		int64_t per = ir_shape_numel(&ir_graph_tensor(g, t)->shape);
		float **dst = &k[(size_t)o->n_keep * (size_t)ni + (size_t)i];
		if (ir_graph_tensor(g, t)->dtype != IR_DTYPE_F32 || r->len[t] < per)
			return cli_error(NULL, "--adaround, --bias-correction and --easyquant need float32 inputs; '%s' is not",
					 ir_graph_tensor(g, t)->name);
		if (!(*dst = malloc(sizeof(float) * (size_t)per)))
			return cli_error(NULL, "out of memory");
		memcpy(*dst, r->buf[t] + r->len[t] - per, sizeof(float) * (size_t)per);
	}
	o->n_keep++;
	return 0;
}

static int calibrate(options *o, const ir_graph *g, ir_calib *c)
{
	source src[MAX_FILES];
	int64_t total;
	int nt = ir_graph_tensor_count(g), rc = CLI_FAIL;
	if (sources_open(src, o->calib, o->n_calib, g, &total)) {
		for (int i = 0; i < o->n_calib; i++)
			source_close(&src[i]);
		return CLI_FAIL;
	}
	if (o->calib_max && total > o->calib_max)
		total = o->calib_max;
	calib_run r = {.c = c, .buf = calloc((size_t)nt + 1, sizeof(float *)),
		       .len = calloc((size_t)nt + 1, sizeof(int64_t)), .cap = calloc((size_t)nt + 1, sizeof(int64_t))};
	ir_diag d;
	ir_exec *e = r.buf && r.len && r.cap ? ir_exec_new(g, IR_MODE_F32, 1, &d) : NULL;
	if (!e) {
		if (!r.buf || !r.len || !r.cap)
			cli_error(NULL, "out of memory");
		else
			cli_diag(g, cli_name(o->in), &d);
		goto out;
	}
	ir_exec_set_hook(e, calib_hook, &r);
	int64_t done = 0, in_batch = 0;
	long batch = o->calib_batch ? o->calib_batch : CALIB_BATCH;
	for (int s = 0; s < o->n_calib && done < total; s++)
		for (int64_t k = 0; k < src[s].count && done < total; k++) {
			if (source_feed(&src[s], k, g, e, &r)) {
				if (r.failed)
					cli_diag(g, src[s].path, &r.d);
				goto out;
			}
			if ((o->adaround || o->bias_correction || o->easyquant) && o->n_keep < REFINE_MAX &&
			    keep_sample(o, g, &r))
				goto out;
			if (ir_exec_run(e, &d)) {
				cli_diag(g, src[s].path, &d);
				goto out;
			}
			if (r.failed) {
				cli_diag(g, src[s].path, &r.d);
				goto out;
			}
			if (calib_step(&r, g, src[s].path, &in_batch, batch))
				goto out;
			progress("calibrating", ++done, total);
		}
	if (calib_flush(&r, g)) {
		cli_diag(g, NULL, &r.d);
		goto out;
	}
	cli_info(1, "calibrated on %lld samples", (long long)done);
	rc = CLI_OK;
out:
	ir_exec_free(e);
	for (int t = 0; r.buf && t < nt; t++)
		free(r.buf[t]);
	free(r.buf);
	free(r.len);
	free(r.cap);
	for (int i = 0; i < o->n_calib; i++)
		source_close(&src[i]);
	return rc;
}

/* Statistics read with --stats-in need not come from a --state run: tie
 * each state pair (and what its output repeats) again, as calibrating
 * over sequences does. */
static int tie_stats(const options *o, const ir_graph *g, ir_calib *c, const int *sin, const int *sout)
{
	for (int p = 0; p < o->n_states; p++) {
		int m[TIE_MAX + 1], nm = 1 + value_chain(g, ir_graph_output(g, sout[p]), m + 1, TIE_MAX);
		m[0] = ir_graph_input(g, sin[p]);
		const char *names[TIE_MAX + 1];
		for (int k = 0; k < nm; k++)
			names[k] = ir_graph_tensor(g, m[k])->name;
		ir_diag d;
		if (ir_calib_tie(c, names, nm, &d))
			return cli_error(NULL, "%s", d.msg);
	}
	return 0;
}

/* --state pairs as graph input and output indices. */
static int resolve_states(const options *o, const ir_graph *g, const char *file, int *sin, int *sout)
{
	char s1[160], s2[160];
	for (int p = 0; p < o->n_states; p++) {
		const char *in = o->state_in[p], *out = o->state_out[p];
		sin[p] = sout[p] = -1;
		for (int i = 0; i < ir_graph_input_count(g); i++)
			if (!strcmp(ir_graph_tensor(g, ir_graph_input(g, i))->name, in))
				sin[p] = i;
		for (int i = 0; i < ir_graph_output_count(g); i++)
			if (!strcmp(ir_graph_tensor(g, ir_graph_output(g, i))->name, out))
				sout[p] = i;
		if (sin[p] < 0 || sout[p] < 0)
			return cli_error(file, "--state %s=%s: '%s' is no %s of the graph (npu-dump lists them)", in, out,
					 sin[p] < 0 ? in : out, sin[p] < 0 ? "input" : "output");
		const ir_tensor *a = ir_graph_tensor(g, ir_graph_input(g, sin[p]));
		const ir_tensor *b = ir_graph_tensor(g, ir_graph_output(g, sout[p]));
		if (a->dtype != IR_DTYPE_F32 || b->dtype != IR_DTYPE_F32 || ir_shape_numel(&a->shape) != ir_shape_numel(&b->shape))
			return cli_error(file, "--state %s=%s: the input is %s %s, the output %s %s (a state is float32, the same size in and out)",
					 in, out, ir_dtype_name(a->dtype), ir_shape_str(&a->shape, s1, sizeof s1),
					 ir_dtype_name(b->dtype), ir_shape_str(&b->shape, s2, sizeof s2));
		for (int q = 0; q < p; q++)
			if (sin[q] == sin[p] || sout[q] == sout[p])
				return cli_error(file, "--state %s=%s: %s '%s' is already in another --state pair", in, out,
						 sin[q] == sin[p] ? "input" : "output", sin[q] == sin[p] ? in : out);
	}
	return 0;
}

/* Graph inputs (and state outputs) whose calibrated range is empty or one
 * value: a warning each (none with -q), with --strict an error. The number
 * of them; -1 when a range holds only denormals (and zeros): no scale
 * represents it, an error naming the data it came from. */
static int check_ranges(const options *o, const ir_graph *g, const ir_calib *c, const int *sin, const int *sout,
			const char *file)
{
	int bad = 0, ni = ir_graph_input_count(g), fatal = 0;
	char data[600];
	const char *const *src = o->n_calib ? o->calib : o->stats_in;
	int n_src = o->n_calib ? o->n_calib : o->n_stats_in;
	if (n_src > 1)
		snprintf(data, sizeof data, "%s (and %d more)", cli_name(src[0]), n_src - 1);
	else
		snprintf(data, sizeof data, "%s", n_src ? cli_name(src[0]) : file);
	for (int k = 0; k < ni + o->n_states; k++) {
		bool out = k >= ni;
		int t = out ? ir_graph_output(g, sout[k - ni]) : ir_graph_input(g, k), pair = -1;
		const ir_tensor *x = ir_graph_tensor(g, t);
		for (int p = 0; p < o->n_states; p++)
			if ((out ? sout[p] : sin[p]) == (out ? sout[k - ni] : k))
				pair = p;
		double lo = 0, hi = 0;
		int64_t n = 0;
		if (x->dtype != IR_DTYPE_F32)
			continue;
		int have = ir_calib_summary(c, x->name, &lo, &hi, &n, NULL) == 0 && n > 0;
		double mag = fmax(fabs(lo), fabs(hi));
		if (have && mag > 0 && mag < FLT_MIN) {
			fprintf(stderr, "%s: %s: %s '%s': error: the calibration values are all zeros and denormals "
				"(%g .. %g): no quantization scale represents them\n", cli_prog, data,
				out ? "state output" : "input", x->name, lo, hi);
			fatal = 1;
			continue;
		}
		if (have && lo < hi)
			continue;
		bad++;
		if (!o->strict && cli_verbose < 0)
			continue;
		char what[96];
		if (n > 0)
			snprintf(what, sizeof what, "calibrated range is constant (%g .. %g)", lo, hi);
		else
			snprintf(what, sizeof what, "calibrated range is empty (no values seen)");
		fprintf(stderr, "%s: %s: %s '%s': %s: %s: %s\n", cli_prog, file, out ? "state output" : "input", x->name,
			o->strict ? "error" : "warning", what,
			pair >= 0 ? "hint: the calibration sequences never change this state (longer sequences, or initial states in the data)" :
			x->kind == IR_KIND_STATE ? "hint: it is a state input: calibrate over sequences with --state IN=OUT" :
			"hint: if it is recurrent state, calibrate over sequences with --state IN=OUT");
	}
	return fatal ? -1 : bad;
}

/* The integer form of graph input or output tensor t of the quantized g:
 * t itself when quantized, else the output of the quantize node reading
 * it (an input) or the input of the dequantize node producing it (an
 * output). NULL if none (it stayed float). */
static const ir_tensor *int_form(const ir_graph *g, int t, bool input)
{
	const ir_tensor *x = ir_graph_tensor(g, t);
	if (x->quant)
		return x;
	if (!input) {
		int p = ir_graph_producer(g, t);
		const ir_node *n = p >= 0 ? ir_graph_node(g, p) : NULL;
		return n && n->op == IR_OP_DEQUANTIZE ? ir_graph_tensor(g, n->inputs[0]) : NULL;
	}
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		if (n->op == IR_OP_QUANTIZE && n->inputs[0] == t)
			return ir_graph_tensor(g, n->outputs[0]);
	}
	return NULL;
}

static bool same_quant(const ir_tensor *a, const ir_tensor *b)
{
	const ir_quant *p = a->quant, *q = b->quant;
	if (a->dtype != b->dtype || !p || !q || p->n != q->n)
		return false;
	for (int i = 0; i < p->n; i++)
		if (p->scale[i] != q->scale[i] || p->zero_point[i] != q->zero_point[i])
			return false;
	return true;
}

/* After quantizing: each state pair whose input and output both have an
 * integer form (always with --int-io) has one format in and out. */
static int check_state_quant(const options *o, const ir_graph *g, const char *file)
{
	int rc = 0;
	for (int p = 0; p < o->n_states; p++) {
		const ir_tensor *a = int_form(g, ir_graph_find_tensor(g, o->state_in[p]), true);
		const ir_tensor *b = int_form(g, ir_graph_find_tensor(g, o->state_out[p]), false);
		if (a && b && !same_quant(a, b))
			rc = cli_error(file, "--state %s=%s: the state input and output were quantized differently (%s and %s); keep the nodes writing the state in float (--float-layers)",
				       o->state_in[p], o->state_out[p], a->name, b->name);
	}
	return rc;
}

/* ---------------------------------------------------------------- report */

/* Error of one tensor of the quantized graph against the float graph
 * (see npu-quant(1), REPORT). Pairs where either side is NaN or +-inf are
 * counted (nan, inf, bad) instead of entering the sums; one such value
 * where the float graph is finite makes SQNR -inf and the max error inf. */
typedef struct {
	double ref2, err2, q2, dot, maxerr;
	int64_t n, clip, sat, nan, inf, bad, ovf, unf;
} err_stat;

typedef struct {
	err_stat cum;		/* the quantized graph run as a whole */
	err_stat loc;		/* this tensor's node alone, on float inputs */
	bool has_loc;
	int ft;			/* float graph tensor (the reference), or -1 */
} layer_stat;

typedef struct {
	ir_graph *g;		/* one node, its inputs made graph inputs */
	ir_exec *e;
	int *ref_in;		/* per input of g: the float graph tensor */
	int *q_out;		/* per output of g: the quantized graph tensor */
} local_node;

typedef struct {
	const ir_graph *fg, *qg;
	float **ref;		/* float graph: per tensor, this sample */
	layer_stat *st;		/* per quantized-graph tensor */
	local_node *loc;	/* per quantized-graph node (g NULL: not evaluated) */
	bool failed;
} report_run;

static bool is_float_dtype(ir_dtype t)
{
	return t == IR_DTYPE_F32 || t == IR_DTYPE_F16 || t == IR_DTYPE_BF16;
}

static bool is_conversion(int op)
{
	return op == IR_OP_QUANTIZE || op == IR_OP_DEQUANTIZE || op == IR_OP_CAST;
}

/* A conversion to f32 (dequantize, cast f16 -> f32) changes no value. */
static bool is_widening(const ir_graph *g, int node)
{
	const ir_node *n = ir_graph_node(g, node);
	return (n->op == IR_OP_DEQUANTIZE || n->op == IR_OP_CAST) && n->n_outputs == 1 &&
	       ir_graph_tensor(g, n->outputs[0])->dtype == IR_DTYPE_F32;
}

static int ref_by_name(const ir_graph *fg, const ir_tensor *x)
{
	int ft = ir_graph_find_tensor(fg, x->name);
	if (ft < 0 || ir_graph_tensor(fg, ft)->dtype != IR_DTYPE_F32 ||
	    ir_shape_numel(&ir_graph_tensor(fg, ft)->shape) != ir_shape_numel(&x->shape))
		return -1;
	return ft;
}

/* The float graph tensor holding what quantized-graph tensor t stands for:
 * the one of the same name; else, through a conversion (quantize,
 * requantize, dequantize, cast), what the conversion's input or output
 * stands for (the layer feeding a dequantized graph output is named
 * differently from the float graph's output). -1 if none. */
static int ref_of(const ir_graph *qg, const ir_graph *fg, int t, int depth)
{
	const ir_tensor *x = ir_graph_tensor(qg, t);
	if (x->kind == IR_KIND_CONST || depth > 64)
		return -1;
	int ft = ref_by_name(fg, x);
	if (ft >= 0)
		return ft;
	int p = ir_graph_producer(qg, t);
	if (p >= 0 && is_conversion(ir_graph_node(qg, p)->op) && ir_graph_node(qg, p)->inputs[0] >= 0)
		return ref_of(qg, fg, ir_graph_node(qg, p)->inputs[0], depth + 1);
	for (int i = 0; i < ir_graph_node_count(qg); i++) {
		const ir_node *n = ir_graph_node(qg, i);
		if (n->inputs[0] == t && is_widening(qg, i) &&
		    (ft = ref_by_name(fg, ir_graph_tensor(qg, n->outputs[0]))) >= 0)
			return ft;
	}
	return -1;
}

/* Clamp limits of an integer activation type (its quantization bits if
 * fewer than the type's). */
static void int_limits(const ir_tensor *x, double *lo, double *hi)
{
	int bits = x->dtype == IR_DTYPE_I8 || x->dtype == IR_DTYPE_U8 ? 8 : x->dtype == IR_DTYPE_I16 ? 16 : 32;
	if (x->quant && x->quant->bits >= 2 && x->quant->bits < bits)
		bits = x->quant->bits;
	if (x->dtype == IR_DTYPE_U8)
		*lo = 0, *hi = ldexp(1, bits) - 1;
	else
		*lo = -ldexp(1, bits - 1), *hi = ldexp(1, bits - 1) - 1;
}

#define HALF_MAX 65504.0
#define HALF_INF 65520.0	/* the smallest magnitude rounding to +-inf */
#define HALF_MIN_NORMAL 0x1p-14

static void accumulate(err_stat *s, const ir_tensor *x, const void *data, const float *ref)
{
	int64_t n = ir_shape_numel(&x->shape);
	bool isint = !is_float_dtype(x->dtype) && x->quant && x->quant->n == 1, f16 = x->dtype == IR_DTYPE_F16;
	double lo = 0, hi = 0, sc = isint ? x->quant->scale[0] : 1, zp = isint ? x->quant->zero_point[0] : 0;
	if (isint)
		int_limits(x, &lo, &hi);
	for (int64_t i = 0; i < n; i++) {
		double v = ir_elem_get(data, x->dtype, i), q = isint ? (v - zp) * sc : v, f = ref[i];
		if (isint)	/* (a limit that is the zero point is a ReLU's 0) */
			s->sat += (v <= lo && lo != zp) || (v >= hi && hi != zp);
		else if (f16)
			s->sat += fabs(q) >= HALF_MAX;
		s->nan += isnan(q);
		s->inf += isinf(q);
		if (!isfinite(q) || !isfinite(f)) {
			s->bad += !(isnan(q) && isnan(f)) && !(isinf(q) && q == f);
			s->ovf += f16 && isinf(q) && isfinite(f) && fabs(f) >= HALF_INF;
			continue;
		}
		double e = q - f;
		s->ref2 += f * f;
		s->q2 += q * q;
		s->dot += f * q;
		s->err2 += e * e;
		if (fabs(e) > s->maxerr)
			s->maxerr = fabs(e);
		s->clip += isint && (f < (lo - zp) * sc || f > (hi - zp) * sc);
		s->unf += f16 && f != 0 && fabs(f) < HALF_MIN_NORMAL && fabs(q) < HALF_MIN_NORMAL;
	}
	s->n += n;
}

static int ref_hook(void *user, const ir_graph *g, int node, int t, const void *data)
{
	(void)node;
	report_run *r = user;
	const ir_tensor *x = ir_graph_tensor(g, t);
	if (x->dtype != IR_DTYPE_F32)
		return 0;
	size_t n = (size_t)ir_shape_numel(&x->shape);
	if (!r->ref[t] && !(r->ref[t] = malloc(sizeof(float) * (n ? n : 1))))
		return r->failed = true, 1;
	memcpy(r->ref[t], data, sizeof(float) * n);
	return 0;
}

static int q_hook(void *user, const ir_graph *g, int node, int t, const void *data)
{
	(void)node;
	report_run *r = user;
	layer_stat *s = &r->st[t];
	if (s->ft >= 0 && r->ref[s->ft])
		accumulate(&s->cum, ir_graph_tensor(g, t), data, r->ref[s->ft]);
	return 0;
}

/* The float graph's inputs of this sample (the hook sees node outputs
 * only): from the batch source_feed collected. */
static int keep_inputs(report_run *r, calib_run *in)
{
	for (int t = 0; t < ir_graph_tensor_count(r->fg); t++) {
		if (!in->len[t])
			continue;
		if (!r->ref[t] && !(r->ref[t] = malloc(sizeof(float) * (size_t)in->len[t])))
			return cli_error(NULL, "out of memory");
		memcpy(r->ref[t], in->buf[t], sizeof(float) * (size_t)in->len[t]);
		in->len[t] = 0;
	}
	return 0;
}

/* Node i of qg alone: a graph of that node whose non-constant inputs are
 * graph inputs, fed with the float graph's values converted to the
 * inputs' types. Left unset (g NULL) where an input has no float
 * reference or no output has one, or the node cannot run alone. */
static void local_new(report_run *r, int i)
{
	const ir_graph *qg = r->qg;
	const ir_node *n = ir_graph_node(qg, i);
	local_node *l = &r->loc[i];
	int nin = 0, nout = 0, mapped = 0;
	int *in = malloc(sizeof(int) * (size_t)(n->n_inputs + 1)), *out = malloc(sizeof(int) * (size_t)(n->n_outputs + 1));
	l->ref_in = malloc(sizeof(int) * (size_t)(n->n_inputs + 1));
	l->q_out = malloc(sizeof(int) * (size_t)(n->n_outputs + 1));
	if (!in || !out || !l->ref_in || !l->q_out)
		goto fail;
	for (int j = 0; j < n->n_inputs; j++) {
		int t = n->inputs[j], seen = 0;
		if (t < 0 || ir_graph_tensor(qg, t)->kind == IR_KIND_CONST)
			continue;
		for (int k = 0; k < nin; k++)
			seen |= in[k] == t;
		if (seen)
			continue;
		const ir_tensor *x = ir_graph_tensor(qg, t);
		int ft = ref_of(qg, r->fg, t, 0);
		if (ft < 0 || !(is_float_dtype(x->dtype) || (x->quant && x->quant->n == 1)))
			goto fail;
		l->ref_in[nin] = ft;
		in[nin++] = t;
	}
	for (int j = 0; j < n->n_outputs; j++)
		if (n->outputs[j] >= 0) {
			mapped += r->st[n->outputs[j]].ft >= 0;
			l->q_out[nout] = n->outputs[j];
			out[nout++] = n->outputs[j];
		}
	if (!mapped || !(l->g = ir_graph_clone(qg)))
		goto fail;
	for (int k = ir_graph_node_count(qg) - 1; k >= 0; k--)
		if (k != i)
			ir_graph_remove_node(l->g, k);
	ir_diag d;
	for (int k = 0; k < nin; k++)
		if (ir_graph_tensor(l->g, in[k])->kind == IR_KIND_ACTIVATION)
			ir_graph_tensor(l->g, in[k])->kind = IR_KIND_INPUT;
	if (ir_graph_set_inputs(l->g, in, nin, &d) || ir_graph_set_outputs(l->g, out, nout, &d))
		goto fail;
	ir_graph_prune(l->g);
	/* a conversion alone (no precision) still runs as the runtime does */
	ir_node *m = ir_graph_node(l->g, 0);
	if (m && m->precision == IR_PREC_NONE && nout == 1) {
		ir_dtype od = ir_graph_tensor(l->g, m->outputs[0])->dtype;
		m->precision = od == IR_DTYPE_I8    ? IR_PREC_I8
			       : od == IR_DTYPE_I16 ? IR_PREC_I16
			       : od == IR_DTYPE_F16 ? IR_PREC_F16
						    : IR_PREC_F32;
	}
	if (!(l->e = ir_exec_new(l->g, IR_MODE_F32, 1, &d)))
		goto fail;
	free(in);
	free(out);
	return;
fail:
	ir_graph_free(l->g);
	free(l->ref_in);
	free(l->q_out);
	memset(l, 0, sizeof *l);
	free(in);
	free(out);
}

static void local_free(local_node *l)
{
	ir_exec_free(l->e);
	ir_graph_free(l->g);
	free(l->ref_in);
	free(l->q_out);
}

/* Run every local node on this sample's float values. */
static int local_run(report_run *r)
{
	for (int i = 0; i < ir_graph_node_count(r->qg); i++) {
		local_node *l = &r->loc[i];
		ir_diag d;
		if (!l->e)
			continue;
		bool ok = true;
		for (int k = 0; k < ir_graph_input_count(l->g) && ok; k++) {
			const ir_tensor *x = ir_graph_tensor(l->g, ir_graph_input(l->g, k));
			const float *v = r->ref[l->ref_in[k]];
			int64_t nv = ir_shape_numel(&x->shape);
			float *sat = NULL;
			if (v && x->dtype == IR_DTYPE_F16) {	/* saturating, as integer inputs are */
				if (!(sat = malloc(sizeof *sat * (size_t)(nv ? nv : 1))))
					return r->failed = true, -1;
				for (int64_t j = 0; j < nv; j++)
					sat[j] = v[j] > HALF_MAX ? (float)HALF_MAX : v[j] < -HALF_MAX ? (float)-HALF_MAX : v[j];
				v = sat;
			}
			ok = v && !ir_exec_set_input_f32(l->e, k, v, nv, &d);
			free(sat);
		}
		if (!ok || ir_exec_run(l->e, &d))
			continue;	/* (inputs the float graph did not compute) */
		for (int k = 0; k < ir_graph_output_count(l->g); k++) {
			layer_stat *s = &r->st[l->q_out[k]];
			size_t nb;
			const void *y = ir_exec_output(l->e, k, &nb);
			if (s->ft >= 0 && r->ref[s->ft] && y) {
				accumulate(&s->loc, ir_graph_tensor(l->g, ir_graph_output(l->g, k)), y, r->ref[s->ft]);
				s->has_loc = true;
			}
		}
	}
	return 0;
}

static double sqnr_db(const err_stat *s)
{
	if (s->bad)
		return -INFINITY;
	if (s->err2 == 0)
		return INFINITY;
	return s->ref2 > 0 ? 10 * log10(s->ref2 / s->err2) : -INFINITY;
}

static double max_err(const err_stat *s)
{
	return s->bad ? INFINITY : s->maxerr;
}

static double cosine(const err_stat *s)
{
	if (s->bad && s->ref2 == 0 && s->q2 == 0)
		return NAN;	/* no finite pair */
	return s->ref2 > 0 && s->q2 > 0 ? s->dot / sqrt(s->ref2 * s->q2) : (s->ref2 == s->q2 ? 1 : 0);
}

static double share(int64_t k, int64_t n)
{
	return n ? (double)k / (double)n : 0;
}

/* Worst first: by local SQNR (tensors without one after the others), ties
 * and the rest by cumulative SQNR; or by cumulative SQNR alone. */
static const layer_stat *sort_base;
static int cmp_cum(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	double sx = sqnr_db(&sort_base[x].cum), sy = sqnr_db(&sort_base[y].cum);
	return sx < sy ? -1 : sx > sy ? 1 : x - y;
}

static int cmp_local(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	const layer_stat *p = &sort_base[x], *q = &sort_base[y];
	if (p->has_loc != q->has_loc)
		return p->has_loc ? -1 : 1;
	double sx = p->has_loc ? sqnr_db(&p->loc) : 0, sy = q->has_loc ? sqnr_db(&q->loc) : 0;
	return sx < sy ? -1 : sx > sy ? 1 : cmp_cum(a, b);
}


static void json_num(FILE *f, double v)
{
	if (isinf(v))
		fputs(v > 0 ? "1e999" : "-1e999", f);
	else if (isnan(v))
		fputs("null", f);
	else
		fprintf(f, "%.6g", v);
}

static void json_err(FILE *f, const char *prefix, const err_stat *s, bool have)
{
	static const char *const keys[] = {"sqnr_db", "cosine", "max_abs_err", "saturated", "clipped"};
	double v[] = {sqnr_db(s), cosine(s), max_err(s), share(s->sat, s->n), share(s->clip, s->n)};
	for (int k = 0; k < 5; k++) {
		fprintf(f, ", \"%s%s\": ", prefix, keys[k]);
		json_num(f, have ? v[k] : NAN);
	}
	static const char *const ckeys[] = {"nan", "inf", "f16_overflow", "f16_underflow"};
	int64_t c[] = {s->nan, s->inf, s->ovf, s->unf};
	for (int k = 0; k < 4; k++) {
		fprintf(f, ", \"%s%s\": ", prefix, ckeys[k]);
		if (have)
			fprintf(f, "%lld", (long long)c[k]);
		else
			fputs("null", f);
	}
}

/* One entry: tensor t's statistics (s: t's or, for a graph output, the
 * layer's it converts), named `name`. */
static void json_layer(FILE *f, const ir_graph *g, const char *name, int t, const layer_stat *s, int rank_local,
		       int rank_cum, bool last)
{
	int p = ir_graph_producer(g, t);
	const ir_node *n = p >= 0 ? ir_graph_node(g, p) : NULL;
	fputs("    {\"tensor\": ", f);
	cli_json_str(f, name);
	fputs(", \"node\": ", f);
	cli_json_str(f, n ? n->name : "");
	fputs(", \"op\": ", f);
	cli_json_str(f, n ? ir_op_name(n->op) : "input");
	fputs(", \"dtype\": ", f);
	cli_json_str(f, ir_dtype_name(ir_graph_tensor(g, t)->dtype));
	json_err(f, "", &s->cum, true);
	json_err(f, "local_", &s->loc, s->has_loc);
	fprintf(f, ", \"rank_local\": %d, \"rank_cumulative\": %d}%s\n", rank_local, rank_cum, last ? "" : ",");
}

/* The tensor whose statistics a graph output reports: the layer output a
 * dequantize or f16 -> f32 cast at the end converts (its saturation is
 * the output's). */
static int output_carrier(const ir_graph *g, const layer_stat *st, int t)
{
	for (int depth = 0; depth < 8; depth++) {
		int p = ir_graph_producer(g, t);
		if (p < 0 || !is_widening(g, p))
			break;
		int in = ir_graph_node(g, p)->inputs[0];
		if (in < 0 || !st[in].cum.n)
			break;
		t = in;
	}
	return t;
}

static void info_line(const char *what, const char *name, const layer_stat *s)
{
	char loc[64] = "", extra[160] = "";
	if (s->has_loc)
		snprintf(loc, sizeof loc, "local SQNR %7.2f dB  ", sqnr_db(&s->loc));
	const err_stat *e = &s->cum;
	int l = 0;
	if (e->nan || e->inf)
		l += snprintf(extra + l, sizeof extra - (size_t)l, "  NaN %lld inf %lld", (long long)e->nan, (long long)e->inf);
	if (s->loc.ovf || s->loc.unf)
		snprintf(extra + l, sizeof extra - (size_t)l, "  f16 overflow %lld underflow %lld (alone)", (long long)s->loc.ovf,
			 (long long)s->loc.unf);
	cli_info(1, "%s %-32s %scumulative SQNR %7.2f dB  cosine %.6f  max abs error %.4g  saturated %.3f%%%s", what,
		 name, loc, sqnr_db(e), cosine(e), max_err(e), 100 * share(e->sat, e->n), extra);
}

/* A directory with sampleN_outputs.npz files (Enflame's layout). */
static bool has_sample_outputs(const char *path)
{
	DIR *dir = opendir(path);
	bool found = false;
	for (struct dirent *e; dir && !found && (e = readdir(dir));) {
		size_t l = strlen(e->d_name);
		found = l > 18 && !strncmp(e->d_name, "sample", 6) && !strcmp(e->d_name + l - 12, "_outputs.npz");
	}
	if (dir)
		closedir(dir);
	return found;
}

/* The float and the quantized graph against the reference outputs of
 * the sampleN_outputs.npz files among the report's samples (at most max
 * samples in all): one ev_result pair per such directory. */
typedef struct {
	const char *path;
	ev_result f, q;
} ref_result;

static int reference_outputs(const char *const *paths, int np, const ir_graph *fg, const ir_graph *qg, int64_t max,
			     ref_result *out, int *nout)
{
	ev_opts eo = {.threads = 1, .topk = 5, .rtol = 1e-5, .atol = 1e-8};
	*nout = 0;
	for (int i = 0; i < np && max > 0; i++) {
		if (!has_sample_outputs(paths[i]))
			continue;
		ev_set s = {0};
		ir_diag d;
		ref_result *r = &out[*nout];
		r->path = paths[i];
		int rc = ev_set_load(&s, paths[i], fg, &eo, &d);
		if (!rc && s.n > max)
			s.n = (int)max;
		if (rc || ev_run(&s, fg, NULL, &eo, &r->f, &d) || ev_run(&s, qg, NULL, &eo, &r->q, &d)) {
			ev_set_free(&s);
			return cli_error(cli_name(paths[i]), "%s", d.msg);
		}
		max -= s.n;
		ev_set_free(&s);
		(*nout)++;
	}
	return 0;
}

static void json_ref(FILE *f, const char *key, const ev_result *r)
{
	static const char *const names[] = {"cosine", "sqnr_db", "max_abs_err", "max_rel_err", "agree_top1", "top1"};
	fprintf(f, "\"%s\": {", key);
	for (size_t k = 0, n = 0; k < sizeof names / sizeof names[0]; k++) {
		double v;
		if (ev_metric(r, names[k], &v))
			continue;
		fprintf(f, "%s\"%s\": ", n++ ? ", " : "", names[k]);
		json_num(f, v);
	}
	fputs("}", f);
}

static int report(const options *o, const ir_graph *fg, const ir_graph *qg, const char *method)
{
	const char *const *paths = o->n_eval ? o->eval : o->calib;
	int np = o->n_eval ? o->n_eval : o->n_calib;
	if (!np)
		return cli_error(NULL, "the report needs samples: give --eval (or --calib)");
	int nft = ir_graph_tensor_count(fg), nqt = ir_graph_tensor_count(qg), nqn = ir_graph_node_count(qg), rc = CLI_FAIL;
	source src[MAX_FILES];
	int64_t total;
	report_run r = {.fg = fg, .qg = qg, .ref = calloc((size_t)nft + 1, sizeof(float *)),
			.st = calloc((size_t)nqt + 1, sizeof(layer_stat)), .loc = calloc((size_t)nqn + 1, sizeof(local_node))};
	int *order = malloc(sizeof(int) * (size_t)(nqt + 1)), *by_cum = malloc(sizeof(int) * (size_t)(nqt + 1));
	int *rank_l = calloc((size_t)nqt + 1, sizeof(int)), *rank_c = calloc((size_t)nqt + 1, sizeof(int));
	calib_run in = {.buf = calloc((size_t)nft + 1, sizeof(float *)), .len = calloc((size_t)nft + 1, sizeof(int64_t)),
			.cap = calloc((size_t)nft + 1, sizeof(int64_t))};
	ir_exec *ef = NULL, *eq = NULL;
	ir_diag d;
	if (sources_open(src, paths, np, fg, &total))
		goto out;
	if (!r.ref || !r.st || !r.loc || !order || !by_cum || !rank_l || !rank_c || !in.buf || !in.len || !in.cap) {
		cli_error(NULL, "out of memory");
		goto out;
	}
	if (total > (o->eval_max ? o->eval_max : 64))
		total = o->eval_max ? o->eval_max : 64;
	ref_result refs[MAX_FILES];
	int nrefs = 0;
	if (reference_outputs(paths, np, fg, qg, total, refs, &nrefs))
		goto out;
	for (int t = 0; t < nqt; t++)
		r.st[t].ft = ref_of(qg, fg, t, 0);
	if (!(ef = ir_exec_new(fg, IR_MODE_F32, 1, &d)) || !(eq = ir_exec_new(qg, IR_MODE_F32, 1, &d))) {
		cli_diag(ef ? qg : fg, NULL, &d);
		goto out;
	}
	for (int i = 0; i < nqn; i++)
		if (!is_widening(qg, i))
			local_new(&r, i);
	ir_exec_set_hook(ef, ref_hook, &r);
	ir_exec_set_hook(eq, q_hook, &r);
	int64_t done = 0;
	for (int s = 0; s < np && done < total; s++)
		for (int64_t k = 0; k < src[s].count && done < total; k++) {
			if (source_feed(&src[s], k, fg, ef, &in) || source_feed(&src[s], k, qg, eq, NULL) ||
			    keep_inputs(&r, &in))
				goto out;
			if (ir_exec_run(ef, &d) || ir_exec_run(eq, &d)) {
				cli_diag(qg, src[s].path, &d);
				goto out;
			}
			if (r.failed) {
				cli_error(NULL, "out of memory");
				goto out;
			}
			if (local_run(&r)) {
				cli_error(NULL, "out of memory");
				goto out;
			}
			progress("evaluating", ++done, total);
		}
	/* layers: what the nodes compute (not the exact widening at the end) */
	int n = 0;
	for (int t = 0; t < nqt; t++) {
		int p = ir_graph_producer(qg, t);
		if (r.st[t].cum.n && !(p >= 0 && is_widening(qg, p)))
			order[n++] = t;
	}
	sort_base = r.st;
	memcpy(by_cum, order, sizeof(int) * (size_t)n);
	qsort(by_cum, (size_t)n, sizeof *by_cum, cmp_cum);
	qsort(order, (size_t)n, sizeof *order, cmp_local);
	for (int i = 0; i < n; i++) {
		rank_l[order[i]] = i + 1;
		rank_c[by_cum[i]] = i + 1;
	}
	if (o->report) {
		cli_output out;
		if (cli_output_open(&out, o->report, false, true))
			goto out;
		FILE *f = out.f;
		fputs("{\n  \"model\": ", f);
		cli_json_str(f, cli_name(o->in));
		fputs(",\n  \"target\": ", f);
		cli_json_str(f, o->target);
		fputs(",\n  \"method\": ", f);
		cli_json_str(f, method);
		fprintf(f, ",\n  \"samples\": %lld,\n  \"ranking\": \"local_sqnr_db\",\n  \"outputs\": [\n", (long long)done);
		for (int i = 0; i < ir_graph_output_count(qg); i++) {
			int t = ir_graph_output(qg, i), c = output_carrier(qg, r.st, t);
			json_layer(f, qg, ir_graph_tensor(qg, t)->name, c, &r.st[c], rank_l[c], rank_c[c],
				   i + 1 == ir_graph_output_count(qg));
		}
		fputs("  ],\n  \"reference_outputs\": [\n", f);
		for (int i = 0; i < nrefs; i++) {
			fputs("    {\"data\": ", f);
			cli_json_str(f, cli_name(refs[i].path));
			fprintf(f, ", \"samples\": %d, ", refs[i].q.samples);
			json_ref(f, "float", &refs[i].f);
			fputs(", ", f);
			json_ref(f, "quantized", &refs[i].q);
			fprintf(f, "}%s\n", i + 1 == nrefs ? "" : ",");
		}
		fputs("  ],\n  \"layers\": [\n", f);
		for (int i = 0; i < n; i++)
			json_layer(f, qg, ir_graph_tensor(qg, order[i])->name, order[i], &r.st[order[i]], i + 1,
				   rank_c[order[i]], i + 1 == n);
		fputs("  ]\n}\n", f);
		if (cli_output_commit(&out))
			goto out;
	}
	for (int i = 0; i < ir_graph_output_count(qg); i++) {
		int t = ir_graph_output(qg, i);
		info_line("output", ir_graph_tensor(qg, t)->name, &r.st[output_carrier(qg, r.st, t)]);
	}
	for (int i = 0; i < nrefs; i++)
		cli_info(1, "reference outputs of %s (%d samples): float cosine %.6f, SQNR %.2f dB; quantized cosine %.6f, "
			 "SQNR %.2f dB, max abs error %.4g", cli_name(refs[i].path), refs[i].q.samples, refs[i].f.cosine,
			 refs[i].f.sqnr_db, refs[i].q.cosine, refs[i].q.sqnr_db, refs[i].q.sum.maxabs);
	for (int i = 0; i < n && i < 10; i++) {
		char what[32];
		snprintf(what, sizeof what, "worst %2d:", i + 1);
		info_line(what, ir_graph_tensor(qg, order[i])->name, &r.st[order[i]]);
	}
	for (int i = 0; i < n; i++) {	/* every op that overflows half, not only the ten worst */
		const layer_stat *s = &r.st[order[i]];
		int p = ir_graph_producer(qg, order[i]);
		if (s->loc.ovf)
			cli_info(1, "fp16 overflow: node '%s' (%s): %lld values beyond the half range became inf",
				 p >= 0 ? ir_graph_node(qg, p)->name : "?", p >= 0 ? ir_op_name(ir_graph_node(qg, p)->op) : "?",
				 (long long)s->loc.ovf);
	}
	rc = CLI_OK;
out:
	ir_exec_free(ef);
	ir_exec_free(eq);
	for (int i = 0; r.loc && i < nqn; i++)
		local_free(&r.loc[i]);
	for (int t = 0; r.ref && t < nft; t++)
		free(r.ref[t]);
	free(r.ref);
	free(r.st);
	free(r.loc);
	free(order);
	free(by_cum);
	free(rank_l);
	free(rank_c);
	for (int t = 0; in.buf && t < nft; t++)
		free(in.buf[t]);
	free(in.buf);
	free(in.len);
	free(in.cap);
	for (int i = 0; i < np; i++)
		source_close(&src[i]);
	return rc;
}

/* --cfg's metric: each metric of the float (eval_original_model) and the
 * quantized graph over the metric's data set, on standard error. Figures
 * that need a reference take the data set's reference outputs, else the
 * float graph's. */
static int cfg_metrics(const options *o, const ir_graph *fg, const ir_graph *qg)
{
	ev_meter m[EV_MAX_METERS];
	ev_opts eo = {.threads = 1, .topk = 5, .rtol = 1e-5, .atol = 1e-8, .prog = cli_prog,
		      .progress = isatty(2) && cli_verbose >= 0, .meter = m, .nmeter = o->nmspec};
	ev_set s = {0};
	ev_result r[2];
	ir_diag d;
	char loc[4200], dloc[4200];
	snprintf(loc, sizeof loc, "%s:%d", cli_name(o->cfg), o->mline);
	snprintf(dloc, sizeof dloc, "%s:%d", cli_name(o->cfg), o->dline);
	ir_plugin_scan(NULL);
	for (int i = 0; i < o->nmspec; i++)
		if (ev_meter_parse(&m[i], o->mspec[i], &eo, &d))
			return cli_error(m[i].plugin ? m[i].name : loc, "metric '%s': %s", o->mspec[i], d.msg);
	if (ev_dataset_open(&s, o->mdata, fg, &eo, &d)) {
		cli_error(s.plugin ? s.plugin : d.msg[0] == '\'' || !strncmp(d.msg, "no ", 3) ? dloc : o->mdata, "%s", d.msg);
		ev_set_free(&s);
		return CLI_FAIL;
	}
	int rc = CLI_OK;
	for (int k = o->mfloat ? 0 : 1; k < 2 && !rc; k++)
		if (ev_run(&s, k ? qg : fg, k && !s.ref ? fg : NULL, &eo, &r[k], &d))
			rc = r[k].failed ? cli_error(r[k].failed, "%s", d.msg) : cli_diag(k ? qg : fg, cli_name(o->in), &d);
	for (int i = 0; i < o->nmspec && !rc; i++) {
		double v[2] = {NAN, 0};
		if (o->mfloat && ev_meter_value(&m[i], i, &r[0], &v[0]))
			v[0] = NAN;	/* (a figure against the float graph itself) */
		for (int k = 1; k < 2 && !rc; k++)
			if (ev_meter_value(&m[i], i, &r[k], &v[k]))
				rc = cli_error(loc, "metric '%s': the %s graph's figure needs %s", o->mspec[i],
					       k ? "quantized" : "float", strstr(m[i].name, "top") ?
					       "labels in the data set" : "reference outputs in the data set");
		if (rc)
			break;
		char fv[40] = "- (no reference)";
		if (!isnan(v[0]))
			snprintf(fv, sizeof fv, "%.9g", v[0]);
		if (o->mfloat)
			cli_info(0, "metric %s over %d samples: float %s, quantized %.9g", o->mspec[i], r[1].samples, fv, v[1]);
		else
			cli_info(0, "metric %s over %d samples: quantized %.9g", o->mspec[i], r[1].samples, v[1]);
	}
	ev_set_free(&s);
	return rc;
}

/* ---------------------------------------------------------------- main */

static void keep_note(void *user, const ir_graph *g, int node, const char *msg)
{
	const char *file = user;	/* the input's display name */
	const ir_node *n = ir_graph_node(g, node);
	cli_info(1, "%s: node '%s' (%s): %s", file, n ? n->name : "?", n ? ir_op_name(n->op) : "?", msg);
}

/* Float islands: one line each, a warning (none with -q), or with
 * --strict an error. */
typedef struct {
	const char *file;
	bool strict;
	int n;
} islands;

static void island_note(void *user, const ir_graph *g, int node, const char *msg)
{
	islands *is = user;
	const ir_node *n = ir_graph_node(g, node);
	is->n++;
	if (!is->strict && cli_verbose < 0)
		return;
	fprintf(stderr, "%s: %s: node '%s' (%s): %s: kept in float: %s\n", cli_prog, is->file, n ? n->name : "?",
		n ? ir_op_name(n->op) : "?", is->strict ? "error" : "warning", msg);
}

static void print_problem(void *user, const ir_graph *g, int node, const char *msg)
{
	const char *file = user;	/* the input's display name */
	const ir_node *n = ir_graph_node(g, node);
	fprintf(stderr, "%s: %s: node '%s' (%s): error: %s\n", cli_prog, file, n ? n->name : "?",
		n ? ir_op_name(n->op) : "?", msg);
}

static int load_stats(const options *o, ir_calib *c)
{
	for (int i = 0; i < o->n_stats_in; i++) {
		uint8_t *buf;
		size_t size;
		ir_diag d;
		if (cli_read_file(o->stats_in[i], false, &buf, &size))
			return CLI_FAIL;
		int rc = ir_calib_read(c, buf, size, cli_name(o->stats_in[i]), &d);
		free(buf);
		if (rc)
			return cli_error_msg(cli_name(o->stats_in[i]), d.msg);
	}
	return 0;
}

static int write_stats(const char *path, const ir_calib *c)
{
	cli_output out;
	ir_diag d;
	if (cli_output_open(&out, path, false, true))
		return CLI_FAIL;
	if (ir_calib_write(c, out.f, &d)) {
		cli_output_abort(&out);
		return cli_error(path, "%s", d.msg);
	}
	return cli_output_commit(&out) ? CLI_FAIL : 0;
}

/* Settings from the options, the target and the config into qo / layers. */
static int settings(options *o, const npu_target *t, const ir_graph *g, const int *was_op, ir_quant_opts *qo,
		    ir_qlayer **layers, const char **lists, int *nl)
{
	ir_diag d;
	ir_quant_defaults(qo);
	qo->fp16 = t->family == NPU_FAMILY_FP16;
	qo->ops = t->ops;
	qo->same_scale = t->same_scale;
	qo->output_f32 = t->output_f32 || !qo->fp16;
	if (!qo->fp16 && !t->activation_types[IR_DTYPE_I8] && t->activation_types[IR_DTYPE_I16])
		qo->act = IR_PREC_I16;
	if (o->bits) {
		int p = npu_qprecision_parse(o->bits);
		if (p != IR_PREC_I8 && p != IR_PREC_I16)
			cli_usage("--bits must be 8 or 16, not '%s'", o->bits);
		if (qo->fp16)
			cli_usage("--bits is for integer targets; '%s' is an fp16 target", t->name);
		if (!t->activation_types[p == IR_PREC_I8 ? IR_DTYPE_I8 : IR_DTYPE_I16])
			return cli_error(NULL, "target '%s' has no %s-bit activations", t->name, o->bits);
		qo->act = (ir_precision)p;
	}
	if (o->method && ir_calib_method_parse(o->method, &qo->method, &d))
		cli_usage("--method: %s", d.msg);
	if (o->wscheme) {
		int pc = -1, s = ir_wq_scheme_parse(o->wscheme, &pc);
		if (s < 0)
			cli_usage("unknown --weight-scheme '%s' (symmetric_restricted_range, symmetric_full_range, asymmetric)",
				  o->wscheme);
		qo->wscheme = (ir_wq_scheme)s;
		if (pc >= 0)
			qo->per_channel = pc;
	}
	if (o->wbits > 0)
		qo->wbits = o->wbits;
	if (o->per_channel == 0)
		qo->per_channel = false;
	if (o->act_sym >= 0)
		qo->act_symmetric = o->act_sym;
	if (o->lut_bits > 0)
		qo->lut_bits = o->lut_bits;
	qo->int_io = o->int_io;
	qo->compress_fc = o->compress_fc;
	qo->compress_conv = o->compress_conv;
	if ((o->compress_fc || o->compress_conv || o->f16_outputs || o->exclude) && !qo->fp16)
		cli_usage("--compress-*, --exclude-compress and --fp16-outputs are for fp16 targets");
	qo->wrange = o->wrange;
	qo->n_wrange = o->n_wrange;
	qo->f16_outputs = lists;
	qo->n_f16_outputs = split_list(o->f16_outputs, lists, MAX_FILES);
	qo->exclude = lists + qo->n_f16_outputs;
	qo->n_exclude = split_list(o->exclude, lists + qo->n_f16_outputs, MAX_FILES);
	*nl = qo->n_f16_outputs + qo->n_exclude;

	int nn = ir_graph_node_count(g);
	*layers = calloc((size_t)nn + 1, sizeof **layers);
	if (!*layers)
		return cli_error(NULL, "out of memory");
	for (int i = 0; i < nn; i++)
		npu_qlayer_unset(&(*layers)[i]);
	if (o->config) {
		uint8_t *buf;
		size_t size;
		npu_qconfig c;
		if (cli_read_file(o->config, false, &buf, &size))
			return CLI_FAIL;
		int rc = npu_qconfig_parse(buf, size, cli_name(o->config), &c, &d);
		free(buf);
		if (rc || npu_qconfig_apply(&c, g, was_op, *layers, cli_name(o->config), &d)) {
			if (!rc)
				npu_qconfig_free(&c);
			return cli_error_msg(cli_name(o->config), d.msg);
		}
		npu_qconfig_free(&c);
	}
	if (o->float_layers) {
		const char *names[MAX_FILES];
		int n = split_list(o->float_layers, names, MAX_FILES), bad = 0;
		for (int k = 0; k < n; k++) {
			int i = ir_graph_find_node(g, names[k]);
			if (i < 0)
				bad = cli_error(NULL, "--float-layers: '%s' is no node of the graph (npu-dump lists them)",
						names[k]);
			else
				(*layers)[i].prec = IR_PREC_F32;
		}
		if (bad)
			return CLI_FAIL;
	}
	qo->layer = *layers;
	return 0;
}

int main(int argc, char **argv)
{
	options o = {.act_sym = -1, .per_channel = -1, .wbits = -1, .lut_bits = -1};
	ir_diag d;
	cli_init("npu-quant", argc, argv);
	parse_args(argc, argv, &o);
	nan_strict = o.strict;
	npu_target t;
	if (npu_target_load(o.target, &t, &d))
		return cli_error_msg(NULL, d.msg);
	int rc = CLI_FAIL;
	ir_graph *g = cli_read_ir(o.in), *fg = NULL;
	ir_calib *c = ir_calib_new();
	ir_qlayer *layers = NULL;
	int *op_before = NULL, *was_op = NULL, n_before = 0;
	char **name_before = NULL;
	const char *lists[2 * MAX_FILES];
	int nl, sin[MAX_FILES], sout[MAX_FILES];
	ir_quant_opts qo;
	ir_qrefine_opts ro = {.adaround = o.adaround, .bias_correction = o.bias_correction, .easyquant = o.easyquant};
	const char *in = cli_name(o.in);
	if (!g || !c) {
		if (!c)
			cli_error(NULL, "out of memory");
		goto out;
	}
	if (ir_graph_is_lowered(g)) {
		cli_error(in, "the graph is already quantized");
		goto out;
	}
	/* settings need the prepared graph's node names */
	bool fp16 = t.family == NPU_FAMILY_FP16;
	ir_quant_defaults(&qo);
	qo.fp16 = fp16;
	/* op rules of --config also match what preparing changed (gemm ->
	 * fully_connected): the op each node had before, by name */
	n_before = ir_graph_node_count(g);
	op_before = malloc(sizeof(int) * (size_t)(n_before + 1));
	name_before = calloc((size_t)n_before + 1, sizeof(char *));
	for (int i = 0; op_before && name_before && i < n_before; i++) {
		op_before[i] = ir_graph_node(g, i)->op;
		name_before[i] = strdup(ir_graph_node(g, i)->name);
	}
	if (ir_quant_prepare(g, &qo, &d)) {
		cli_diag(g, in, &d);
		goto out;
	}
	int nn = ir_graph_node_count(g);
	if (!op_before || !name_before || !(was_op = malloc(sizeof(int) * (size_t)(nn + 1)))) {
		cli_error(NULL, "out of memory");
		goto out;
	}
	for (int i = 0; i < nn; i++)
		was_op[i] = -1;
	for (int i = 0; i < n_before; i++) {
		int k = name_before[i] ? ir_graph_find_node(g, name_before[i]) : -1;
		if (k >= 0 && ir_graph_node(g, k)->op != op_before[i])
			was_op[k] = op_before[i];
	}
	if (settings(&o, &t, g, was_op, &qo, &layers, lists, &nl))
		goto out;
	(void)nl;
	if (!fp16 && !o.n_calib && !o.n_stats_in) {
		cli_error(NULL, "an integer target needs calibration data: give --calib (or --stats-in)");
		goto out;
	}
	if (resolve_states(&o, g, in, sin, sout))
		goto out;
	if (load_stats(&o, c))
		goto out;
	if (o.n_calib && (!fp16 || o.stats_out) &&
	    (o.n_states ? calibrate_seq(&o, g, c, sin, sout) : calibrate(&o, g, c)))
		goto out;
	if (o.n_stats_in && tie_stats(&o, g, c, sin, sout))
		goto out;
	if (o.stats_out && write_stats(o.stats_out, c))
		goto out;
	int range_rc = fp16 ? 0 : check_ranges(&o, g, c, sin, sout, in);
	if (range_rc < 0 || (range_rc && o.strict))
		goto out;
	/* the float graph stays for the report */
	/* with --state the calibration data are sequences: the report (per
	 * sample) then needs --eval */
	bool want_report = (o.report || cli_verbose >= 1) && (o.n_eval || (o.n_calib && !o.n_states));
	if ((want_report || o.nmspec) && !(fg = ir_graph_clone(g))) {
		cli_error(NULL, "out of memory");
		goto out;
	}
	if ((o.adaround || o.bias_correction || o.easyquant) &&
	    ir_quant_refine(g, c, &qo, &ro, (const float *const *)o.keep, o.n_keep, cli_verbose >= 1 ? keep_note : NULL,
			    (void *)in, &d)) {
		cli_diag(g, in, &d);
		goto out;
	}
	qo.arange = ro.act_range;
	qo.n_arange = ro.n_act_range;
	islands isl = {.file = in, .strict = o.strict};
	qo.island = island_note;
	qo.island_user = &isl;
	if (ir_quantize(g, fp16 ? NULL : c, &qo, cli_verbose >= 1 ? keep_note : NULL, (void *)in, &d) ||
	    ir_meta_set_str(g, "target.name", t.name)) {
		cli_diag(g, in, &d);
		goto out;
	}
	if (isl.n && o.strict)	/* each one reported above */
		goto out;
	if (check_state_quant(&o, g, in))
		goto out;
	/* can the runtime run it? (every problem at once) */
	ir_lowered low;
	if (ir_lower(g, &low, print_problem, (void *)in, &d)) {
		if (d.node < 0)
			cli_diag(g, in, &d);
		goto out;
	}
	cli_info(1, "%s: %u kernel calls, weights %u bytes, arena %u bytes", in, low.m.n_ops, low.m.weight_size,
		 low.m.arena_size);
	ir_lowered_free(&low);
	char mbuf[64];
	if (want_report && report(&o, fg, g, ir_calib_method_str(&qo.method, mbuf, sizeof mbuf)))
		goto out;
	if (o.nmspec && cfg_metrics(&o, fg, g))
		goto out;
	if (o.out_dir && mkdir(o.out_dir, 0777) && errno != EEXIST) {
		cli_error(o.out_dir, "%s", strerror(errno));
		goto out;
	}
	if (cli_write_ir(g, o.out, o.force) == 0)
		rc = CLI_OK;
out:
	for (int i = 0; i < o.n_wrange; i++)
		free((char *)o.wrange[i].name);
	for (int i = 0; i < o.n_states; i++)
		free(o.state_in[i]);
	for (int i = 0; o.keep && i < o.n_keep * ir_graph_input_count(g); i++)
		free(o.keep[i]);
	free(o.keep);
	ir_qrefine_free(&ro);
	for (int i = 0; name_before && i < n_before; i++)
		free(name_before[i]);
	free(name_before);
	free(op_before);
	free(was_op);
	free(layers);
	ir_calib_free(c);
	ir_graph_free(g);
	ir_graph_free(fg);
	npu_target_free(&t);
	return rc;
}
