/* eval.h - data sets and accuracy metrics for npu-eval(1) and npu-mixp(1).
 *
 * A data set is read once for a graph (its input names and shapes): an
 * .npy (one input; samples along the first axis), an .npz keyed by input
 * name with the samples along the first axis ("x" also names the input of
 * a one-input graph; "labels" holds integer class labels; arrays named
 * after graph outputs, or "logits" for the first output, are reference
 * outputs), or a directory of sampleN_inputs.npz (+ sampleN_outputs.npz)
 * files with one sample each, taken in numeric order.
 *
 * ev_run runs a graph over every sample (frames of a sequence in stream
 * mode, state outputs fed back) on several threads and compares its
 * outputs with a reference (another graph run the same way, or the data
 * set's reference outputs) and its first output's argmax with the labels.
 * Every sample keeps its own sums and they are added in sample order, so
 * the figures do not depend on the thread count.
 *
 * Like libir, nothing here prints (but the optional progress line) or
 * exits: failures return -1 with a message in the ir_diag. */
#ifndef NPUKIT_EVAL_H
#define NPUKIT_EVAL_H

#include "ir.h"
#include "ir_plugin.h"
#include "npy/npy.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define EV_MAX_STATE 8
#define EV_MAX_LABELS 8		/* label tensors a dataset plugin gives a sample */
#define EV_MAX_METERS 16	/* metrics of one run */

typedef struct {
	const char *in, *out;	/* state input and output names (IN=OUT) */
} ev_state;

typedef struct {
	int n;			/* samples (sequences in stream mode) */
	int frames;		/* frames per sample: 1 unless stream mode */
	int nx;			/* data inputs of the graph */
	int *xin;		/* [nx] graph input index */
	int64_t *xper;		/* [nx] values per frame */
	const float **x;	/* [n * nx] first frame of sample s, input j */
	int64_t *labels;	/* [n] or NULL */
	int nref;		/* graph outputs (reference outputs present) or 0 */
	int64_t *refper;	/* [nref] values per sample */
	const float **ref;	/* [n * nref] or NULL */
	float *own_ref;		/* ev_set_capture's outputs */
	npy_array **files;	/* the arrays read, kept alive */
	int *nfile;
	int nfiles;
	/* a dataset plugin's samples, copied: */
	const char *plugin;	/* its name (set also when opening it failed) */
	float *own_x;		/* the inputs as float, x[] points into it */
	struct ev_labels {	/* [n] the label tensors of each sample (data owned) */
		int n;
		npu_plugin_tensor t[EV_MAX_LABELS];
	} *tlabels;
} ev_set;

/* A metric of a run (--metric SPEC): a builtin figure of ev_metric() or a
 * metric plugin "NAME[:ARGS]". */
typedef struct {
	char spec[128];		/* as given */
	char name[72];		/* the figure's or plugin's name */
	const char *args;	/* into spec ("" when none) */
	const npu_plugin_metric *plugin;	/* NULL: builtin */
} ev_meter;

typedef struct {
	int threads;		/* <= 1: one */
	int topk;		/* k of top-k (0: 5) */
	double rtol, atol, ntol;	/* allclose: |q - r| <= atol + rtol |r|, mismatch share <= ntol */
	int nstate;
	ev_state state[EV_MAX_STATE];
	const char *cmd;	/* the graph's outputs from this command (a compiled npu.h host:
				 * "CMD run OUTDIR IN.npy..." per sample, run by sh), not the interpreter */
	bool progress;		/* a progress line on stderr (caller checks it is a terminal) */
	const char *prog;	/* for the progress line */
	int nmeter;		/* metrics to compute besides the builtin figures */
	const ev_meter *meter;	/* [nmeter]: plugin ones get every sample's outputs */
} ev_opts;

/* Per-sample sums (and after ev_run, their total in sample order). */
typedef struct {
	double ref2, err2, dot, q2, maxabs, maxrel;
	int64_t count, mismatch, nonfinite, nan, inf;
	int64_t top1, topk, ref_top1, agree, frames, labelled, compared_frames;
} ev_acc;

typedef struct {
	int samples, frames, classes, k;
	bool has_ref, has_labels;
	ev_acc sum;
	double cosine, sqnr_db, mismatch_frac;
	bool allclose;
	double mvalue[EV_MAX_METERS];	/* the plugin metrics' compute() */
	char mreport[EV_MAX_METERS][160];	/* and report() */
	const char *failed;	/* ev_run failed in this plugin (its name) */
} ev_result;

/* Read path (file or directory) for graph g. Stream mode (o->nstate > 0):
 * every data input holds [N, T, ...] frames; state inputs get no data. */
int ev_set_load(ev_set *s, const char *path, const ir_graph *g, const ev_opts *o, ir_diag *d);
void ev_set_free(ev_set *s);
/* ---- the API for every program that takes data sets and metrics by name
 * (npu-eval --dataset/--metric, npu-mixp --metric, npu-quant --cfg).
 * Plugins must have been found first: ir_plugin_scan(warn) (the program
 * prints the registry's warnings), ir_plugin_load() for explicit files.
 *
 * ev_dataset_open: spec is a file or directory (ev_set_load) when such a
 * path exists, else a dataset plugin "NAME[:ARGS]" whose samples are read
 * whole into s (inputs converted to float, each sample's label tensors
 * kept for plugin metrics; a first label of one integer value is also the
 * sample's class label for the builtin top-k). On failure -1 and d->msg:
 * s->plugin set means the plugin (or what it returned) failed: print
 * "NAME: error: MSG"; else a message that starts with a quote or "no "
 * names the spec itself (no such path nor plugin: print it without a
 * file), and any other is about the path (print "SPEC: error: MSG").
 * ev_set_plugin is the plugin half alone.
 *
 * ev_meter_parse: spec is a builtin figure of ev_metric() ("top5" is topk
 * when o->topk is 5; "topk" is the metric plugin of that name when there is
 * one) or a metric plugin "NAME[:ARGS]"; m->plugin set on failure means
 * the plugin refused the arguments ("NAME: error: MSG"); a plugin's create()
 * is tried once so bad arguments fail here, before any run. ev_run then
 * computes the plugin metrics of o->meter over the samples in order
 * (deterministic for any thread count) into r->mvalue/mreport[i];
 * ev_meter_value gives meter i's value from a result either way. */
int ev_dataset_open(ev_set *s, const char *spec, const ir_graph *g, const ev_opts *o, ir_diag *d);
int ev_set_plugin(ev_set *s, const char *spec, const ir_graph *g, const ev_opts *o, ir_diag *d);
int ev_meter_parse(ev_meter *m, const char *spec, const ev_opts *o, ir_diag *d);
int ev_meter_value(const ev_meter *m, int i, const ev_result *r, double *v);

/* Replace the set's reference outputs with g's outputs (float) on every
 * sample (not in stream mode). */
int ev_set_capture(ev_set *s, const ir_graph *g, const ev_opts *o, ir_diag *d);

/* Run g (and ref, if not NULL, as reference) over s. */
int ev_run(const ev_set *s, const ir_graph *g, const ir_graph *ref, const ev_opts *o, ev_result *r, ir_diag *d);

/* Compare array a with reference b elementwise (any dtypes, the same count). */
int ev_compare_arrays(const npy_array *a, const npy_array *b, const ev_opts *o, ev_result *r, ir_diag *d);

/* A metric by name (top1, topk, ref_top1, agree_top1, cosine, sqnr_db,
 * max_abs_err, max_rel_err, mismatch, allclose, nan, inf); -1 if the name
 * is unknown or the figure is not available for this run. */
int ev_metric(const ev_result *r, const char *name, double *v);
/* "NAME VALUE" lines, or one JSON object. With o->meter: "samples",
 * "frames" and those metrics only ("SPEC VALUE  # REPORT" lines, or JSON
 * {"samples", "frames", "metrics": [{"metric", "value", "report"}]}). */
void ev_print(FILE *f, const ev_result *r, const ev_opts *o, bool json);

#endif
