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
 * (the op kind's own section)
 *
 * An op plugin adds one operator: a model node whose (domain, op_type) the
 * plugin claims becomes the IR op `custom` with attribute type=<plugin
 * name>, the node's own attributes kept. The plugin gives its output
 * shapes, a float32 reference kernel (npu-run), how it is quantized, and
 * C source that npu-emit pastes into npu.h (once per plugin) with the
 * kernels' names, so that the emitted code calls the very same functions.
 *
 * Kernels have one signature, in the plugin and in emitted code:
 *     void fn(const void *const in[], void *const out[], const int32_t *p);
 * in[i] / out[i] are the tensors' data (row-major), p the op's words:
 *     p[NPU_PK_NIN], p[NPU_PK_NOUT]   input and output counts
 *     p[NPU_PK_ZP], p[NPU_PK_SCALE]   input 0's zero point and scale (float
 *                                     bits) in the int8 kernel, else 0
 *     NPU_PK_RANK(p, k), NPU_PK_DIM(p, k, j)
 *                                     rank and dims of tensor k, inputs
 *                                     first, then outputs
 *     NPU_PK_EXTRA(p)[0..]            the words params() wrote
 * (emitted code does not include this header: copy the macros you use into
 * c_source). Kernels must be pure functions of their inputs and p, must
 * not allocate, print or call anything outside the C library. */

#define NPU_PK_NIN 0
#define NPU_PK_NOUT 1
#define NPU_PK_ZP 2
#define NPU_PK_SCALE 3
#define NPU_PK_HEAD 4
#define NPU_PK_MAX_TENSORS 8		/* inputs + outputs */
#define NPU_PK_MAX_EXTRA 16
#define NPU_PK_WORDS (NPU_PK_HEAD + NPU_PK_MAX_TENSORS * (1 + NPU_PLUGIN_MAX_DIMS) + NPU_PK_MAX_EXTRA)
#define NPU_PK_RANK(p, k) ((p)[NPU_PK_HEAD + (k) * (1 + NPU_PLUGIN_MAX_DIMS)])
#define NPU_PK_DIM(p, k, j) ((p)[NPU_PK_HEAD + (k) * (1 + NPU_PLUGIN_MAX_DIMS) + 1 + (j)])
#define NPU_PK_EXTRA(p) ((p) + NPU_PK_HEAD + NPU_PK_MAX_TENSORS * (1 + NPU_PLUGIN_MAX_DIMS))

typedef void (*npu_plugin_kernel)(const void *const in[], void *const out[], const int32_t *p);

/* A node attribute as the model gave it (ONNX attributes of these types
 * pass through; the IR keeps them on the custom node). */
enum npu_plugin_attr_type {
	NPU_PA_INT = 1, NPU_PA_FLOAT = 2, NPU_PA_STRING = 3, NPU_PA_INTS = 4, NPU_PA_FLOATS = 5,
};
typedef struct {
	const char *name;
	int type;			/* enum npu_plugin_attr_type */
	int64_t i;
	double f;
	const char *s;
	int n;				/* element count of ints / floats */
	const int64_t *ints;
	const double *floats;
} npu_plugin_attr;

/* How npu-quant treats the op on an integer target. */
enum npu_plugin_quant {
	/* a float island: dequantize, run_f32, quantize (emitted: c_f32) */
	NPU_PQ_FLOAT = 1,
	/* value-preserving (data movement, max, ...): int8 input and output
	 * share input 0's scale and zero point, run_i8 computes on the int8
	 * values (emitted: c_i8); one float input, float outputs of the same
	 * type */
	NPU_PQ_SAME_SCALE = 2,
};

struct npu_plugin_op {
	const char *domain;		/* ONNX domain it claims ("" = the default domain) */
	const char *op_type;		/* ONNX op_type it claims */
	int min_inputs, max_inputs;	/* 1..NPU_PK_MAX_TENSORS - outputs */
	int n_outputs;
	/* Check the attributes and give each output's dims (out[k].ndim,
	 * .dims; dtype is float32, data NULL) from the inputs' (data NULL).
	 * Returns 0, or nonzero with a message in err. */
	int (*shape)(const npu_plugin_attr *attr, int n_attr, const npu_plugin_tensor *in, int n_in,
		     npu_plugin_tensor *out, int n_out, char *err, size_t errlen);
	/* The attribute-derived words the kernels read (NPU_PK_EXTRA), at
	 * most NPU_PK_MAX_EXTRA; returns their count or -1 with err. May be
	 * NULL (none). */
	int (*params)(const npu_plugin_attr *attr, int n_attr, const npu_plugin_tensor *in, int n_in,
		      int32_t *extra, char *err, size_t errlen);
	npu_plugin_kernel run_f32;	/* the float32 reference kernel */
	int quant;			/* enum npu_plugin_quant */
	npu_plugin_kernel run_i8;	/* NPU_PQ_SAME_SCALE: the int8 kernel */
	/* C99 source defining the kernels for emitted code (static
	 * functions, only <stdint.h>, <string.h> and <math.h>), and their
	 * names: c_f32 always, c_i8 for NPU_PQ_SAME_SCALE. Byte-identical
	 * results with npu-run need run_f32 / run_i8 compiled from the same
	 * text (see share/npu/plugins/). */
	const char *c_source;
	const char *c_f32, *c_i8;
};

#ifdef __cplusplus
}
#endif

#endif
