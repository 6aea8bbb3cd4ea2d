/* plugin.h - the npukit plugin ABI (npu-plugin(7)).
 *
 * A plugin is a shared object that exports one function,
 *
 *     const npu_plugin_desc *const *npu_plugins(void);
 *
 * returning a NULL-terminated array of descriptors: one object may carry
 * several plugins of any kinds. npukit programs look for plugins in each
 * directory of $NPU_PLUGIN_PATH (colon-separated), then in ./plugin/, and
 * load every file there whose name ends in ".so". A descriptor whose `abi`
 * differs from the program's NPU_PLUGIN_ABI is refused with a warning. When
 * several plugins have the same kind and name, the one with the highest
 * `version` is used (the first found among equals); `--plugin` on any
 * program that takes plugins lists what was found, shadowed ones marked.
 *
 * Conventions for every callback:
 *   - errors: write a one-line message (no program name, no newline) to
 *     err[0..errlen) and return nonzero (or NULL for constructors);
 *   - tensors are row-major, dims[0..ndim) give the shape; data passed
 *     to a plugin is only valid for the duration of the call unless said
 *     otherwise;
 *   - plugins must not print to stdout (it may carry a pipeline's data)
 *     and must not exit().
 *
 * The ABI is C only; it changes only with NPU_PLUGIN_ABI. Build a plugin
 * with `cc -shared -fPIC -I<npukit>/share/npu plugin.c -o name.so`.
 */
#ifndef NPU_PLUGIN_H
#define NPU_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPU_PLUGIN_ABI 1

enum npu_plugin_kind {
	NPU_PLUGIN_DATASET = 1,
	NPU_PLUGIN_METRIC = 2,
	NPU_PLUGIN_OP = 3,
};

/* Element types of npu_plugin_tensor. */
enum npu_plugin_dtype {
	NPU_PT_F32 = 1,
	NPU_PT_I32 = 2,
	NPU_PT_I64 = 3,
	NPU_PT_I8 = 4,
	NPU_PT_U8 = 5,
};

#define NPU_PLUGIN_MAX_DIMS 8

typedef struct {
	int dtype;			/* enum npu_plugin_dtype */
	int ndim;			/* 0..NPU_PLUGIN_MAX_DIMS */
	int64_t dims[NPU_PLUGIN_MAX_DIMS];
	void *data;
} npu_plugin_tensor;

/* ---- dataset: where samples (and labels) come from.
 * Selected as NAME or NAME:ARGS (e.g. `--dataset npy-pair:x.npy,y.npy`);
 * ARGS is passed to open() as is ("" when absent). */
typedef struct {
	void *(*open)(const char *args, char *err, size_t errlen);
	/* Number of samples, or -1 when unknown until the end. */
	int64_t (*count)(void *ds);
	/* The next sample: its model inputs in the graph's input order and its
	 * labels (any number, any meaning the metric agrees on). The tensors'
	 * data stays valid until the next call of next() or close().
	 * Returns 1 for a sample, 0 at the end, -1 on error. */
	int (*next)(void *ds, npu_plugin_tensor *in, int max_in, int *n_in,
		    npu_plugin_tensor *label, int max_label, int *n_label,
		    char *err, size_t errlen);
	void (*close)(void *ds);
} npu_plugin_dataset;

/* ---- metric: a score over a data set.
 * Selected as NAME or NAME:ARGS (e.g. `--metric topk:5`). */
typedef struct {
	void *(*create)(const char *args, char *err, size_t errlen);
	void (*reset)(void *m);
	/* One sample: the model's outputs in the graph's output order, float
	 * (dequantized when the model is quantized), and the dataset's labels. */
	int (*update)(void *m, const npu_plugin_tensor *out, int n_out,
		      const npu_plugin_tensor *label, int n_label,
		      char *err, size_t errlen);
	/* The score so far; higher is better (criteria compare with >=). */
	double (*compute)(void *m);
	/* One line for people, e.g. "top-5 accuracy 0.9312 (931/1000)". */
	void (*report)(void *m, char *buf, size_t len);
	void (*destroy)(void *m);
} npu_plugin_metric;

/* ---- op: a custom operator (see npu-plugin(7)). The struct is given by
 * the op section below. */
typedef struct npu_plugin_op npu_plugin_op;

typedef struct {
	uint32_t abi;			/* NPU_PLUGIN_ABI */
	uint32_t kind;			/* enum npu_plugin_kind */
	const char *name;		/* [A-Za-z0-9_.-]+, unique per kind */
	uint32_t version;		/* higher wins among same kind and name */
	const char *summary;		/* one line, for --plugin */
	const void *impl;		/* npu_plugin_dataset, _metric or _op */
} npu_plugin_desc;

#if defined(__GNUC__)
#define NPU_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define NPU_PLUGIN_EXPORT
#endif

/* The one symbol a plugin object exports. */
typedef const npu_plugin_desc *const *(*npu_plugins_fn)(void);
#define NPU_PLUGINS_SYMBOL "npu_plugins"

/* ---------------------------------------------------------------- op
 * (the op kind's own section) */

#ifdef __cplusplus
}
#endif

#endif
