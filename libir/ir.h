/* ir.h - the npukit intermediate representation (the one public libir header).
 *
 * A graph holds tensors and nodes addressed by integer ids. Tensors and nodes
 * are plain structs that callers may read directly; change them through the
 * functions below so that invariants (unique names, valid ids) hold.
 *
 * libir never prints and never exits: every fallible function returns 0 on
 * success and -1 on failure, filling a caller-owned ir_diag. */
#ifndef NPUKIT_IR_H
#define NPUKIT_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../share/npu/runtime/npu_rt.h"

#define NPUKIT_VERSION "0.1.0"
#define IR_FORMAT_VERSION 2	/* 2: CRC-32 trailer; version 1 is still read */
#define IR_MAX_RANK 8
/* Sanity bounds for anything a file dictates. */
#define IR_MAX_DIM ((int64_t)1 << 40)
#define IR_MAX_ELEMS ((int64_t)1 << 40)
#define IR_MAX_FILE ((uint64_t)1 << 36)	/* bytes of one input file (64 GiB) */
/* Open a file a reader requires to be regular (a weight shard or sample a
 * model or dataset names): NULL with *why ("is a FIFO, not a regular
 * file", strerror) for anything else, never blocking on a FIFO. */
FILE *ir_fopen_regular(const char *path, const char **why);
#define IR_MAX_NODES (1 << 24)		/* nodes (and tensors) of one IR stream */

/* ---------------------------------------------------------------- value types */

typedef enum {
	IR_DTYPE_F32, IR_DTYPE_F16, IR_DTYPE_BF16, IR_DTYPE_I64, IR_DTYPE_I32,
	IR_DTYPE_I16, IR_DTYPE_I8, IR_DTYPE_U8, IR_DTYPE_BOOL, IR_DTYPE_COUNT
} ir_dtype;

typedef enum {
	IR_LAYOUT_NONE, IR_LAYOUT_NCHW, IR_LAYOUT_NHWC, IR_LAYOUT_NCL,
	IR_LAYOUT_NLC, IR_LAYOUT_NC, IR_LAYOUT_COUNT
} ir_layout;

typedef enum {
	IR_KIND_ACTIVATION, IR_KIND_INPUT, IR_KIND_CONST, IR_KIND_STATE,
	IR_KIND_COUNT
} ir_kind;

typedef enum {
	IR_PREC_NONE, IR_PREC_F32, IR_PREC_F16, IR_PREC_I16, IR_PREC_I8,
	IR_PREC_COUNT
} ir_precision;

typedef struct {
	int rank;
	int64_t dim[IR_MAX_RANK];
} ir_shape;

/* A shape or a value given for a named graph input (the import programs'
 * --input NAME:SHAPE and --const NAME=VALUE). */
typedef struct {
	const char *name;
	ir_shape shape;
} ir_named_shape;

typedef struct {
	const char *name;
	double value;
} ir_named_value;

/* Quantization parameters of a tensor. n == 1 means per tensor (axis = -1),
 * otherwise one scale/zero point per index of `axis`. */
typedef struct {
	int bits;
	bool symmetric;
	int axis;
	int n;
	float *scale;
	int32_t *zero_point;
	bool has_range;
	float range_min, range_max;
} ir_quant;

/* A diagnostic: message plus the node or tensor it concerns (-1 if none). */
typedef struct {
	char msg[512];
	int node;
	int tensor;
} ir_diag;

const char *ir_dtype_name(ir_dtype t);
size_t ir_dtype_size(ir_dtype t);
/* Element i of data (any alignment) as a double: f16/bf16 widened,
 * integers converted (i64 beyond 2^53 rounded), bool 0 or 1. */
double ir_elem_get(const void *data, ir_dtype t, int64_t i);
int ir_dtype_from_name(const char *s);		/* -1 if unknown */
const char *ir_layout_name(ir_layout l);	/* "" for NONE */
int ir_layout_from_name(const char *s);
const char *ir_kind_name(ir_kind k);
int ir_kind_from_name(const char *s);
const char *ir_precision_name(ir_precision p);	/* "" for NONE */
int ir_precision_from_name(const char *s);

/* The one overflow-checked product for sizes a file dictates: *acc *= v when
 * *acc and v are >= 0 and the product is at most limit; else -1, *acc kept. */
int ir_mul_checked(int64_t *acc, int64_t v, int64_t limit);
/* Element count; -1 if a dim is negative or the product overflows IR_MAX_ELEMS. */
int64_t ir_shape_numel(const ir_shape *s);
bool ir_shape_equal(const ir_shape *a, const ir_shape *b);
/* Format as "1x3x224x224" ("scalar" for rank 0). Returns buf. */
char *ir_shape_str(const ir_shape *s, char *buf, size_t size);
/* Parse "1,3,224,224" (also accepts 'x' separators). 0 ok, -1 bad. */
int ir_shape_parse(const char *text, ir_shape *out);

/* Fill d (printf-style) and return -1, for one-line `return ir_fail(...)`. */
int ir_fail(ir_diag *d, int node, int tensor, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---------------------------------------------------------------- ops */

typedef enum {
#define IR_OP(id, name, min_in, max_in, min_out, max_out, shape, macs, kern, attrs) IR_OP_##id,
#include "ir_ops.def"
#undef IR_OP
	IR_OP_COUNT
} ir_op;

const char *ir_op_name(int op);
int ir_op_from_name(const char *name);	/* -1 if unknown */
/* Attribute spec of an op: "name=T,..." where T is i f s I F (int, float,
 * string, ints, floats). */
const char *ir_op_attr_spec(int op);
void ir_op_arity(int op, int *min_in, int *max_in, int *min_out, int *max_out);

/* ---------------------------------------------------------------- attributes */

typedef enum {
	IR_ATTR_INT, IR_ATTR_FLOAT, IR_ATTR_STR, IR_ATTR_INTS, IR_ATTR_FLOATS
} ir_attr_type;

typedef struct {
	char *name;
	ir_attr_type type;
	int64_t i;
	double f;
	char *s;
	int n;		/* element count of ints/floats */
	int64_t *ints;
	double *floats;
} ir_attr;

/* ---------------------------------------------------------------- graph */

typedef struct ir_tensor {
	char *name;
	ir_dtype dtype;
	ir_shape shape;
	ir_layout layout;
	ir_kind kind;
	ir_quant *quant;	/* NULL if not quantized */
	void *data;		/* constants only: nbytes of little-endian data */
	size_t nbytes;
} ir_tensor;

typedef struct ir_node {
	char *name;
	int op;			/* ir_op */
	int n_inputs, n_outputs;
	int *inputs;		/* tensor ids; -1 marks an absent optional input */
	int *outputs;
	int n_attrs;
	ir_attr *attrs;		/* sorted by name */
	ir_precision precision;
	char *origin;		/* framework op/node it came from, or NULL */
} ir_node;

typedef struct ir_graph ir_graph;

ir_graph *ir_graph_new(void);
void ir_graph_free(ir_graph *g);
ir_graph *ir_graph_clone(const ir_graph *g);

int ir_graph_tensor_count(const ir_graph *g);
int ir_graph_node_count(const ir_graph *g);
ir_tensor *ir_graph_tensor(const ir_graph *g, int id);	/* NULL if out of range */
ir_node *ir_graph_node(const ir_graph *g, int id);
int ir_graph_find_tensor(const ir_graph *g, const char *name);	/* -1 if none */
int ir_graph_find_node(const ir_graph *g, const char *name);
/* Hashed: O(1) on average. Names change only through ir_tensor_rename (never
 * by assigning ir_tensor.name). Lookups refresh a cache inside the graph: one
 * graph is not looked up from two threads at once. */
int ir_tensor_rename(ir_graph *g, int id, const char *name, ir_diag *d);
/* The node producing tensor t, or -1 (inputs, constants). O(1) amortized
 * (a use-def cache inside the graph; removals and reorders rebuild it). */
int ir_graph_producer(const ir_graph *g, int t);
/* The one node with exactly one input slot reading t, else -1 (graph
 * outputs are not counted: see ir_graph_consumers). */
int ir_graph_sole_consumer(const ir_graph *g, int t);
/* Tell the graph its nodes' inputs, outputs or names were edited in place
 * (not through the functions here): the lookup caches are rebuilt. */
void ir_graph_touch(ir_graph *g);

/* Add a tensor; returns its id, or -1 (duplicate name, bad shape) with d set.
 * Activations may be added with rank 0 and filled by shape inference. */
int ir_graph_add_tensor(ir_graph *g, const char *name, ir_dtype dtype,
			const ir_shape *shape, ir_kind kind, ir_diag *d);
/* Add a constant tensor; data (numel * dtype size bytes) is copied. */
int ir_graph_add_const(ir_graph *g, const char *name, ir_dtype dtype,
		       const ir_shape *shape, const void *data, ir_diag *d);
/* Replace a tensor's constant data (copied). */
int ir_tensor_set_data(ir_graph *g, int t, const void *data, size_t nbytes, ir_diag *d);
/* The same without a copy: the graph takes data (malloc'ed, at least
 * nbytes; freed with the graph) on success, the caller keeps it on failure. */
int ir_tensor_adopt_data(ir_graph *g, int t, void *data, size_t nbytes, ir_diag *d);
/* Set (copy) or clear (q == NULL) quantization parameters. */
int ir_tensor_set_quant(ir_graph *g, int t, const ir_quant *q, ir_diag *d);
size_t ir_tensor_nbytes(const ir_tensor *t);	/* numel * dtype size; 0 if invalid */

/* Add a node; returns its id or -1. Tensor ids must exist (or be -1 for
 * absent optional inputs). */
int ir_graph_add_node(ir_graph *g, const char *name, int op, const int *inputs,
		      int n_inputs, const int *outputs, int n_outputs, ir_diag *d);
int ir_node_set_origin(ir_graph *g, int node, const char *origin);
/* Replace a node's input list (ids must exist or be -1). */
int ir_node_set_inputs(ir_graph *g, int node, const int *inputs, int n_inputs, ir_diag *d);
/* Delete a node (later node ids shift down by one); its tensors stay until
 * ir_graph_prune. */
int ir_graph_remove_node(ir_graph *g, int node);
/* Make every node input and graph output that is tensor `from` use `to`;
 * returns how many uses changed (-1: bad id). */
int ir_graph_replace_uses(ir_graph *g, int from, int to);
/* Uses of tensor t: node inputs plus graph outputs. */
int ir_graph_consumers(const ir_graph *g, int t);
/* base, or base_N, unused as a tensor and a node name (malloc'ed; NULL: OOM). */
char *ir_graph_unique_name(const ir_graph *g, const char *base);

int ir_node_set_int(ir_graph *g, int node, const char *key, int64_t v);
int ir_node_set_float(ir_graph *g, int node, const char *key, double v);
int ir_node_set_str(ir_graph *g, int node, const char *key, const char *v);
int ir_node_set_ints(ir_graph *g, int node, const char *key, const int64_t *v, int n);
int ir_node_set_floats(ir_graph *g, int node, const char *key, const double *v, int n);
void ir_node_remove_attr(ir_graph *g, int node, const char *key);
const ir_attr *ir_node_attr(const ir_graph *g, int node, const char *key);
int64_t ir_node_int(const ir_graph *g, int node, const char *key, int64_t def);
double ir_node_float(const ir_graph *g, int node, const char *key, double def);
const char *ir_node_str(const ir_graph *g, int node, const char *key, const char *def);
/* Number of ints (and *v), or -1 if absent. */
int ir_node_ints(const ir_graph *g, int node, const char *key, const int64_t **v);
int ir_node_floats(const ir_graph *g, int node, const char *key, const double **v);

int ir_graph_set_inputs(ir_graph *g, const int *ids, int n, ir_diag *d);
int ir_graph_set_outputs(ir_graph *g, const int *ids, int n, ir_diag *d);
int ir_graph_input_count(const ir_graph *g);
int ir_graph_output_count(const ir_graph *g);
int ir_graph_input(const ir_graph *g, int i);
int ir_graph_output(const ir_graph *g, int i);

/* Metadata: typed key/values kept sorted by key. */
typedef enum { IR_META_STR, IR_META_INT, IR_META_FLOAT, IR_META_BOOL } ir_meta_type;
typedef struct {
	char *key;
	ir_meta_type type;
	char *s;
	int64_t i;
	double f;
} ir_meta;

int ir_meta_set_str(ir_graph *g, const char *key, const char *v);
int ir_meta_set_int(ir_graph *g, const char *key, int64_t v);
int ir_meta_set_float(ir_graph *g, const char *key, double v);
int ir_meta_set_bool(ir_graph *g, const char *key, bool v);
const ir_meta *ir_meta_get(const ir_graph *g, const char *key);	/* NULL if absent */
int ir_meta_count(const ir_graph *g);
const ir_meta *ir_meta_at(const ir_graph *g, int i);

/* History: one entry per stage that touched the stream. */
typedef struct {
	char *program;
	char *version;
	int argc;
	char **argv;
} ir_history;

int ir_graph_add_history(ir_graph *g, const char *program, const char *version,
			 int argc, char *const argv[]);
int ir_history_count(const ir_graph *g);
const ir_history *ir_history_at(const ir_graph *g, int i);

/* Reorder nodes topologically (stable: keeps the existing order where it
 * is already valid). Fails on cycles. */
int ir_graph_toposort(ir_graph *g, ir_diag *d);
/* Compute dtype and shape of every node output from its inputs and attributes. */
int ir_graph_infer_shapes(ir_graph *g, ir_diag *d);
/* The same for one node whose inputs are known (importers building a graph
 * node by node); outputs inherit input 0's layout where the op keeps it. */
int ir_graph_infer_node(ir_graph *g, int node, ir_diag *d);
/* Check everything: ids, unique names, topological order, arity, attribute
 * names and types, constants' byte sizes, dtypes and shapes against shape
 * inference. Does not change g. */
int ir_graph_verify(const ir_graph *g, ir_diag *d);
/* Remove nodes whose outputs nobody needs and tensors nobody uses; renumbers
 * ids (order preserved). */
void ir_graph_prune(ir_graph *g);
/* Multiply-accumulate count of a node (0 for ops without MACs). */
int64_t ir_node_macs(const ir_graph *g, int node);

/* ---------------------------------------------------------------- I/O */

/* Serialize to / parse from memory. ir_graph_write verifies first. */
int ir_graph_write_mem(const ir_graph *g, uint8_t **out, size_t *size, ir_diag *d);
ir_graph *ir_graph_read_mem(const uint8_t *buf, size_t size, ir_diag *d);
/* CRC-32 (zlib's polynomial) of size bytes: the IR stream's checksum. */
uint32_t ir_crc32(const void *buf, size_t size);
/* Guess what a non-IR file is ("a TensorFlow GraphDef", ...) from its
 * first bytes; returns NULL if nothing recognisable. */
const char *ir_sniff_format(const uint8_t *buf, size_t size, const char **hint);

/* ---------------------------------------------------------------- reference interpreter (libir/ir_exec.c) */

typedef enum { IR_MODE_F32, IR_MODE_F16 } ir_exec_mode;
typedef struct ir_exec ir_exec;
/* Called after every node output is computed (data in the tensor's dtype,
 * ir_tensor_nbytes bytes). Return non-zero to stop the run. */
typedef int (*ir_tensor_hook)(void *user, const ir_graph *g, int node, int tensor,
			      const void *data);

/* Prepare to execute g (not copied: g must outlive the executor and stay
 * unchanged). threads <= 1: single-threaded. */
ir_exec *ir_exec_new(const ir_graph *g, ir_exec_mode mode, int threads, ir_diag *d);
void ir_exec_free(ir_exec *e);
void ir_exec_set_hook(ir_exec *e, ir_tensor_hook hook, void *user);
/* Copy graph input i (nbytes must equal the input tensor's size). */
int ir_exec_set_input(ir_exec *e, int i, const void *data, size_t nbytes, ir_diag *d);
/* Graph input i from n float32 values, converted to the input's type:
 * rounded to f16/bf16, or quantized with the input's scale and zero point
 * (round half to even, saturating) for integer inputs. */
int ir_exec_set_input_f32(ir_exec *e, int i, const float *x, int64_t n, ir_diag *d);
int ir_exec_run(ir_exec *e, ir_diag *d);
/* Graph output i after a run (owned by the executor). */
const void *ir_exec_output(const ir_exec *e, int i, size_t *nbytes);
/* Time spent in each node during the last run, in seconds (array of
 * ir_graph_node_count entries, owned by the executor). */
const double *ir_exec_node_times(const ir_exec *e);
/* Values that overflowed to +-inf in fp16 mode during the last run. */
int64_t ir_exec_f16_overflows(const ir_exec *e);

/* ---------------------------------------------------------------- graph rewrites (libir/ir_pass.c) */

typedef enum {
#define IR_PASS(id, name, fn, in_all, help) IR_PASS_##id,
#include "ir_passes.def"
#undef IR_PASS
	IR_PASS_COUNT
} ir_pass;

/* Called for a pattern a pass leaves alone (node: its id in the graph as it
 * is at that moment), with the reason. */
typedef void (*ir_pass_note)(void *user, const ir_graph *g, int node, const char *msg);
typedef struct {
	int changed;		/* rewrites made by the last ir_pass_run */
	char summary[256];	/* what they were: "folded 3 batch_norm into conv" */
	ir_pass_note note;	/* may be NULL */
	void *user;
	/* in: [IR_OP_COUNT] the ops of the target (npu-fuse --target): the act
	 * pass fuses only activations listed; NULL: any the runtime fuses */
	const bool *target_ops;
} ir_pass_report;

const char *ir_pass_name(int pass);
const char *ir_pass_help(int pass);
bool ir_pass_in_all(int pass);		/* part of "every pass" */
int ir_pass_from_name(const char *name);	/* -1 if unknown */
/* Run one pass (then remove what became dead). r may be NULL. */
int ir_pass_run(ir_graph *g, int pass, ir_pass_report *r, ir_diag *d);

/* ---------------------------------------------------------------- data layout (libir/ir_layout.c) */

/* A graph input or output the caller feeds or takes in a given layout
 * (gxnpuc INPUT_NCX_TO_NXC: channel_last for a channel-first model). */
typedef struct {
	const char *name;
	bool channel_last;	/* nxc (NHWC, NLC) rather than ncx (NCHW, NCL) */
} ir_layout_io;

typedef struct {
	ir_layout to;			/* IR_LAYOUT_NHWC or IR_LAYOUT_NCHW */
	const ir_layout_io *inputs;	/* interface layouts asked for; the others */
	int n_inputs;			/* keep the model's (one transpose each) */
	const ir_layout_io *outputs;
	int n_outputs;
	ir_pass_note note;		/* every bad io entry (node -1); may be NULL */
	void *user;
} ir_layout_opts;

/* Rewrite g so that its 3-D/4-D activations are in one layout, with
 * transposes only where an op or the interface needs the other one, then
 * cancelled and merged (see ir_layout.c). Conv weights stay OIHW. An io
 * entry naming no graph input/output, or one of rank other than 3 or 4,
 * is an error (all reported through note). */
int ir_graph_to_layout(ir_graph *g, const ir_layout_opts *o, ir_diag *d);
/* Storage permutation of rank r: stored axis i is axis q[i] of the
 * channel-first (to_cl) or channel-last tensor. */
void ir_layout_perm(int r, bool to_cl, int64_t *q);
/* Transpose nodes in g. */
int ir_graph_transpose_count(const ir_graph *g);

/* ---------------------------------------------------------------- memory plan (libir/ir_plan.c) */

/* The static arena plan: every activation (graph inputs and outputs too,
 * unless io_outside) gets an offset in one arena. Lifetimes come from the
 * node order: a tensor lives from the node producing it (graph inputs and
 * other unproduced tensors: node 0) to its last consumer (graph outputs: the
 * last node). Buffers are placed greedily, largest first, at the lowest
 * offset not overlapping a placed buffer alive at the same time (TensorFlow
 * Lite Micro's planner); a few orderings are tried and the smallest arena
 * is kept. reshape/flatten/squeeze/unsqueeze/identity outputs share their
 * input's buffer; elementwise ops may write over an input that dies at
 * that node. */
typedef struct {
	int64_t offset;		/* in the arena; -1: not in the arena */
	int64_t size;		/* bytes, a multiple of the alignment; 0 if not in the arena */
	int first, last;	/* lifetime: node indices (inclusive); -1 if not in the arena */
	int alias_of;		/* the tensor owning the buffer this one shares, or -1 */
} ir_plan_buf;

/* A zero-initialized struct means the defaults. */
typedef struct {
	bool io_outside;	/* graph inputs and outputs live outside the arena */
	bool no_in_place;	/* no elementwise op writes over its input */
	int64_t align;		/* offsets and sizes (bytes); 0: 16; a power of two */
} ir_plan_opts;

typedef struct {
	int n;			/* tensor count of the graph */
	ir_plan_buf *buf;	/* one per tensor id */
	int64_t arena;		/* bytes */
	int64_t lower_bound;	/* largest sum of buffers alive at one node */
	int peak_node;		/* where that sum peaks (-1: no node) */
	int64_t align;
	bool io_outside;
	const char *strategy;	/* the placement order that won (static string) */
} ir_plan;

/* Plan g's memory. o may be NULL (defaults). On failure p is empty. */
int ir_plan_make(const ir_graph *g, const ir_plan_opts *o, ir_plan *p, ir_diag *d);
void ir_plan_free(ir_plan *p);
/* Verify a plan against g from scratch: every activation that needs memory
 * has it, within the arena and aligned; lifetimes cover every use; buffers
 * alive at the same time do not overlap unless they share data legitimately
 * (a view of the same bytes, or an elementwise op writing over an input
 * that dies at that node). */
int ir_plan_check(const ir_graph *g, const ir_plan *p, ir_diag *d);

/* ---------------------------------------------------------------- lowering to the runtime (libir/ir_lower.c) */

/* A graph whose nodes carry a precision (npu-quant's output) runs through
 * the runtime in share/npu/runtime/npu_rt.h: every node becomes one or
 * more kernel calls with integer parameters, every constant (and every
 * derived constant: requantization multipliers, converted biases) goes
 * into one weight blob, activations get offsets in one arena (ir_plan,
 * graph inputs and outputs outside it). npu-run executes the result,
 * npu-emit prints it: both run the same kernels on the same tables. */
typedef struct {
	npu_model m;			/* the tables below as the runtime sees them */
	npu_tensor *tensors;
	npu_op *ops;
	int32_t *args, *params;
	uint8_t *weights;
	npu_io *inputs, *outputs;
	char *strings;
	uint32_t strings_size;
	int *op_node;			/* the IR node each op implements */
	int *tensor_of;			/* runtime tensor -> IR tensor (-1: derived constant) */
	int *rt_of;			/* IR tensor -> runtime tensor (-1: none) */
	uint64_t kernels_used;		/* bit k: kernel k appears */
	ir_plan plan;			/* the arena plan of the activations */
} ir_lowered;

/* Does g need the runtime (some node has a precision)? */
bool ir_graph_is_lowered(const ir_graph *g);
/* Lower g (verified). Every node the runtime cannot run is reported (the
 * first in d, all of them through note when given), then -1. */
int ir_lower(const ir_graph *g, ir_lowered *out, ir_pass_note note, void *user, ir_diag *d);
/* The same with a bound on the kernels' scratch area: scratch_max bytes
 * (0: none), or else, when the target's SRAM is known (sram_bytes > 0),
 * what it leaves beside the activations' arena (nothing when they fill
 * it). Convolutions keep to it by taking smaller tiles or slower paths
 * (NPU_CV_SMAX); other kernels' scratch is what it is, so out->m's
 * scratch_size may still exceed it (the caller warns). */
typedef struct {
	uint32_t scratch_max;
	int64_t sram_bytes;
} ir_lower_opts;
int ir_lower_with(const ir_graph *g, const ir_lower_opts *o, ir_lowered *out, ir_pass_note note, void *user,
		  ir_diag *d);
void ir_lowered_free(ir_lowered *l);
/* Can the runtime's float kernels (conv, fully connected, element-wise)
 * apply unary op `op` as a fused activation? */
bool ir_lower_fusable_act(int op);

/* Requantization: m = mult * 2^-shift with mult in [2^30, 2^31) (31 bits)
 * and 0 <= shift <= 62. -1 if m is not positive and finite or too large
 * (m >= 2^31). m below 2^-32 gives mult 0 (the product is always 0). */
int ir_quant_multiplier(double m, int32_t *mult, int *shift);

/* ---------------------------------------------------------------- shape inference helpers (for op implementations) */

/* numpy broadcasting of two shapes. */
int ir_shape_broadcast(const ir_shape *a, const ir_shape *b, ir_shape *out);
/* Normalize a possibly negative axis for the given rank; -1 if out of range. */
int ir_axis(int64_t axis, int rank);

/* ---------------------------------------------------------------- calibration statistics (libir/ir_calib.c) */

/* Calibration statistics for post-training quantization.
 *
 * The quantizer runs the float model on calibration batches and hands every
 * activation tensor's values to ir_calib_observe, one call per batch; at the
 * end it asks ir_calib_range for each tensor's clipping range under a method.
 * Memory per tensor is fixed (IR_CALIB_BINS histogram bins plus a few exact
 * accumulators): it does not grow with the number of samples.
 *
 * Statistics are exact and order-independent: sums are kept in fixed-point
 * accumulators wide enough for any float32 input (no rounding), and the
 * histogram's range only grows by doubling (bins merge pairwise). So merging
 * shard statistics (ir_calib_merge, ir_calib_read) gives bit-identical ranges
 * to observing all the batches in one run, for every method.
 *
 * Methods (see ir_calib_range for the exact definitions):
 *   minmax  averaging  meanstd[:N]  percentile[:P]  kld  aciq
 *
 * Not thread-safe: give each thread its own ir_calib and merge them.
 * Like the rest of libir: never prints, never exits; 0 / -1 plus an ir_diag. */
/* Histogram bins over [-R, R), R = 2^e. Part of the stats file format. */
#define IR_CALIB_BINS 4096
/* Smallest histogram half-range exponent (R >= 2^-20, e.g. all-zero tensors). */
#define IR_CALIB_MIN_EXP (-20)
#define IR_CALIB_MAX_EXP 128
#define IR_CALIB_FILE_MAGIC "npu-calib-stats"
#define IR_CALIB_FILE_VERSION 1

typedef struct ir_calib ir_calib;

ir_calib *ir_calib_new(void);		/* NULL if out of memory */
void ir_calib_free(ir_calib *c);	/* NULL is fine */

/* Add one batch of values of the named tensor (created on first use; names
 * are any non-empty NUL-terminated byte string). NaNs are ignored and
 * counted; an infinity rejects the whole batch ("tensor 'X': calibration
 * produced inf"), leaving the statistics unchanged. n == 0 is allowed. */
int ir_calib_observe(ir_calib *c, const char *tensor, const float *x, int64_t n, ir_diag *d);

/* Add every statistic of src into dst (tensors matched by name). dst is
 * unchanged on failure (only a count overflow can fail). */
int ir_calib_merge(ir_calib *dst, const ir_calib *src, ir_diag *d);

/* Give every named tensor (those c knows; unknown names are skipped) the
 * union of all of their statistics, as if each had observed the others'
 * values too: a state input and its output (and what the output repeats)
 * then get one range from any method. c is unchanged on failure. */
int ir_calib_tie(ir_calib *c, const char *const *names, int n, ir_diag *d);

typedef enum {
	IR_CALIB_MINMAX, IR_CALIB_AVERAGING, IR_CALIB_MEANSTD,
	IR_CALIB_PERCENTILE, IR_CALIB_KLD, IR_CALIB_ACIQ, IR_CALIB_MSE, IR_CALIB_KIND_COUNT
} ir_calib_kind;

/* param: N of meanstd:N (0 < N <= 1000), P of percentile:P (50 < P <= 100);
 * 0 for the other methods. */
typedef struct {
	ir_calib_kind kind;
	double param;
} ir_calib_method;

/* Parse "minmax", "averaging", "meanstd:N", "percentile:P", "kld", "aciq", "mse";
 * "meanstd" alone means meanstd:3, "percentile" alone percentile:99.99.
 * -1 with a message naming the text on error. */
int ir_calib_method_parse(const char *s, ir_calib_method *m, ir_diag *d);
/* Canonical text ("meanstd:3", "percentile:99.99", "kld"), parseable back
 * to the same method. Returns buf. */
const char *ir_calib_method_str(const ir_calib_method *m, char *buf, size_t size);

/* The range [lo, hi] to quantize the tensor into with `bits` (2..16) bits,
 * symmetric or not. Always lo <= 0 <= hi and lo < hi (an all-zero tensor
 * gets [0, 2^-20]); never wider than [min(min, 0), max(max, 0)].
 *
 * Methods that choose a threshold t on |x| when symmetric (percentile, kld,
 * aciq) return [max(min, -t), min(max, t)] widened to include 0, so that
 * max(-lo, hi) == t: a symmetric quantizer takes that as its scale. The
 * others (minmax, averaging, meanstd) ignore `symmetric`.
 *
 *   minmax        [min, max]
 *   averaging     [mean of the batches' minima, mean of the batches' maxima]
 *   meanstd:N     [max(min, mean - N*std), min(max, mean + N*std)]
 *                 (population std over all values)
 *   percentile:P  symmetric: t = P-th percentile of |x|; asymmetric:
 *                 [(100-P)-th percentile, P-th percentile] of x. From the
 *                 histogram, interpolating linearly inside a bin.
 *   kld           TensorRT entropy calibration on the |x| histogram up to
 *                 its last non-empty bin, spread evenly over 2048 bins
 *                 (TensorRT's 2048 bins over [0, absmax]): for each
 *                 candidate i from L to 2048, P = the first i bins
 *                 with the rest added to bin i-1, Q = those i bins merged into
 *                 L levels and spread back over P's non-empty bins, both
 *                 smoothed (eps 1e-4) as MXNet/TVM do; t = (i + 0.5) * width
 *                 for the i minimising KL(P||Q). L = 2^(bits-1) symmetric.
 *                 Asymmetric: the positive and negative sides are searched
 *                 separately with L = 2^(bits-1) each, or L = 2^bits for the
 *                 only side if the tensor has values of one sign only. When
 *                 L >= 2048: the side's absmax (minmax).
 *   aciq          Banner et al. 2019, Laplace prior: b = mean absolute
 *                 deviation from the mean (from the histogram, bin centres),
 *                 alpha = k(bits) * b with k minimising the clipping plus
 *                 rounding MSE 2 e^-k + k^2 / (3 * 4^bits) (solved numerically:
 *                 2.83 for 2 bits, 9.89 for 8, ...). Symmetric: t = alpha;
 *                 asymmetric: [mean - alpha, mean + alpha] clipped to
 *                 [min, max], then widened to include 0.
 *
 *   mse           the range minimising the expected squared error of
 *                 quantizing the histogram (bin centres): values outside
 *                 clipped, (step^2)/12 rounding noise for those inside, with
 *                 step = t / (2^(bits-1) - 1) symmetric, (b - a) / (2^bits - 1)
 *                 asymmetric (what PyTorch's HistogramObserver minimises).
 *                 Candidates are bin edges; asymmetric ends are found by
 *                 alternating one-dimensional searches.
 *
 * -1 if the tensor was never observed (or only NaNs), or bad bits/method. */
int ir_calib_range(const ir_calib *c, const char *tensor, const ir_calib_method *m,
		   int bits, bool symmetric, float *lo, float *hi, ir_diag *d);

/* ACIQ's clipping factor for a Laplace prior: the k minimising
 * 2 e^-k + k^2 / (3 * 4^bits), e.g. 9.89 for 8 bits. 0 if bits not in 2..16. */
double ir_calib_aciq_factor(int bits);

/* For reports: min, max, number of (non-NaN) values, and number of batches
 * that had at least one value. -1 if the tensor is unknown. Any output
 * pointer may be NULL. min and max are 0 when no value was seen. */
int ir_calib_summary(const ir_calib *c, const char *tensor, double *min, double *max,
		     int64_t *count, int64_t *batches);
/* NaNs seen for the tensor (0 if unknown). */
int64_t ir_calib_nan_count(const ir_calib *c, const char *tensor);

/* Tensors in name order (strcmp, bytewise), for iteration. */
int ir_calib_tensor_count(const ir_calib *c);
const char *ir_calib_tensor_name(const ir_calib *c, int i);	/* NULL if out of range */

/* Bytes allocated (constant per tensor: does not grow with samples). */
size_t ir_calib_bytes(const ir_calib *c);

/* Write every statistic as text (format "npu-calib-stats 1", see ir_calib.c;
 * deterministic, tensors in name order). -1 on a write error. */
int ir_calib_write(const ir_calib *c, FILE *f, ir_diag *d);
/* Parse a stats file and merge it into c. The input is treated as hostile:
 * on any error ("FILE:LINE: message") c is left unchanged. */
int ir_calib_read(ir_calib *c, const uint8_t *buf, size_t size, const char *file, ir_diag *d);

/* ---------------------------------------------------------------- post-training quantization (libir/ir_quant.c) */

/* Post-training quantization of a float graph.
 *
 * Two steps around calibration:
 *   ir_quant_prepare  canonical float graph: gemm/matmul with constant
 *                     weights become fully_connected; activations an integer
 *                     kernel cannot fuse are split off. Calibrate this graph.
 *   ir_quantize       give every node a precision (i8, i16, f16 or f32),
 *                     quantize weights and biases, set activation scales from
 *                     the calibration ranges, turn integer unary functions
 *                     into lookup tables, and insert quantize / dequantize /
 *                     cast nodes where precision changes.
 * The result runs through the runtime (ir_lower.c): npu-run and npu-emit.
 * Numerics: DESIGN.md section 6, npu-quant(1), npu-ir(5). */
/* Weight quantization schemes (names as in Zhouyi Compass' optimizer). */
typedef enum {
	IR_WQ_SYMMETRIC_RESTRICTED,	/* zero point 0, [-(2^(b-1)-1), 2^(b-1)-1] */
	IR_WQ_SYMMETRIC_FULL,		/* zero point 0, [-2^(b-1), 2^(b-1)-1] */
	IR_WQ_ASYMMETRIC,		/* zero point chosen, full range */
	IR_WQ_COUNT
} ir_wq_scheme;

/* One node's settings (a config file or --float-layers); unset fields
 * (NONE, 0, -1, has_method false) take the global ones. */
typedef struct {
	ir_precision prec;
	int wbits;
	int wscheme;		/* ir_wq_scheme or -1 */
	int per_channel;	/* 0, 1 or -1 */
	bool has_method;
	ir_calib_method method;
} ir_qlayer;

/* A named weight whose range is fixed (gxnpuc WEIGHT_MIN_MAX). */
typedef struct {
	const char *name;
	float min, max;
} ir_qrange;

typedef struct {
	bool fp16;			/* fp16 NPU: everything in half; else integer */
	ir_precision act;		/* integer default: IR_PREC_I8 or IR_PREC_I16 */
	bool act_symmetric;
	int wbits;			/* 2..16 */
	ir_wq_scheme wscheme;
	bool per_channel;
	ir_calib_method method;
	int lut_bits;			/* int16 lookup tables: 2^lut_bits + 1 entries */
	bool int_io;			/* graph inputs and outputs stay integer */
	const bool *ops;		/* [IR_OP_COUNT]: what the target runs; NULL: all */
	const bool *same_scale;		/* [IR_OP_COUNT]: ops whose integer inputs get the
					 * output's scale first (requantize nodes); NULL: none */
	const ir_qlayer *layer;		/* [node count of the prepared graph] or NULL */
	/* fp16 family */
	bool output_f32;		/* graph outputs converted to float32 ... */
	const char *const *f16_outputs;	/* ... except these (state outputs) */
	int n_f16_outputs;
	bool compress_fc, compress_conv;	/* int8 weights per output channel */
	const char *const *exclude;	/* weights (or their nodes) never compressed */
	int n_exclude;
	const ir_qrange *wrange;	/* fixed weight ranges */
	int n_wrange;
	/* integer family: activation tensors with a fixed range (EasyQuant's,
	 * from ir_quant_refine), before any calibration method */
	const ir_qrange *arange;
	int n_arange;
	/* integer family: called once for each float island, a node computing
	 * floats that stays float because it has no integer kernel or the target
	 * does not run it (msg: the reason); not for nodes the settings (layer)
	 * keep in float, which go to ir_quantize's note. NULL: note gets them. */
	ir_pass_note island;
	void *island_user;
} ir_quant_opts;

/* The defaults: int8 activations (asymmetric), int8 weights per channel
 * symmetric restricted, mse, lut_bits 10. */
void ir_quant_defaults(ir_quant_opts *o);
const char *ir_wq_scheme_name(int s);
/* Also accepts Compass' per_tensor_/per_channel_ prefixed names, setting
 * *per_channel (may be NULL) when a prefix is given. -1 if unknown. */
int ir_wq_scheme_parse(const char *s, int *per_channel);

int ir_quant_prepare(ir_graph *g, const ir_quant_opts *o, ir_diag *d);
/* c: the statistics of the prepared graph's activations (may be NULL for
 * the fp16 family, which needs none). note, user: what stayed in float and
 * why (may be NULL). */
int ir_quantize(ir_graph *g, const ir_calib *c, const ir_quant_opts *o, ir_pass_note note, void *user,
		ir_diag *d);

/* Data-driven refinement of the prepared float graph's weights, after
 * calibration and before ir_quantize with the same o (npu-quant(1)):
 * g runs in float on the n samples (samples[s * inputs + i]: float32 values
 * of graph input i of sample s) and every conv (2-D) and fully_connected
 * node with its own float32 weights that ir_quantize makes integer is
 * changed so that the integer graph errs less:
 *   adaround         iterations per output channel (0: off): AdaRound,
 *                    Nagel et al. 2020 (arXiv:2004.10568): each weight is
 *                    rounded up or down as learned on the layer's sampled
 *                    float inputs (up to 512 patches), minimising the
 *                    layer's output error; the weights are replaced by
 *                    values on the grid ir_quantize then uses.
 *   bias_correction  Nagel et al. 2019 (arXiv:1906.04721), empirical: the
 *                    mean of (W_q - W) x over the samples, per output
 *                    channel, is subtracted from the bias (one is added if
 *                    the node has none).
 *   easyquant        EasyQuant, Wu et al. 2020 (arXiv:2006.16669): per layer,
 *                    in turn (two rounds), each output channel's weight
 *                    scale (clipping the weights) and the input's activation
 *                    scale, among 0.5..1 times the calibrated ones, for the
 *                    largest cosine similarity of the layer's output; the
 *                    chosen input ranges are returned in act_range (pass
 *                    them as ir_quant_opts.arange; the first layer reading
 *                    a tensor chooses it). c: the calibration statistics.
 * note gets each node changed. */
typedef struct {
	int adaround;
	bool bias_correction;
	bool easyquant;
	/* out: EasyQuant's activation ranges; ir_qrefine_free frees them */
	ir_qrange *act_range;
	int n_act_range;
} ir_qrefine_opts;
int ir_quant_refine(ir_graph *g, const ir_calib *c, const ir_quant_opts *o, ir_qrefine_opts *ro,
		    const float *const *samples, int n, ir_pass_note note, void *user, ir_diag *d);
void ir_qrefine_free(ir_qrefine_opts *ro);

/* Can node i of a float graph run on the integer kernels? (NULL: yes,
 * else the reason.) */
const char *ir_quant_int_unsupported(const ir_graph *g, int i);

#endif
