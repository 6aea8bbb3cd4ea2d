/* builder.h - what the ONNX, TensorFlow and TorchScript importers share to
 * build an IR graph: a sticky error (the first one is kept, later calls do
 * nothing), node emission with attributes, a name arena with unique names,
 * growable arrays, constants with checked sizes, and the list of problems
 * (unsupported ops, ...) reported together in one message.
 *
 * Like libir, nothing here prints or exits. */
#ifndef NPUKIT_IMPORT_BUILDER_H
#define NPUKIT_IMPORT_BUILDER_H

#include "ir.h"

#include <stdarg.h>

/* Something the importer cannot do; all are reported together. */
typedef struct {
	const char *op;
	const char *node;
	const char *detail;	/* NULL: the op itself is unsupported */
	int kind;		/* which heading it is listed under (ib_report) */
} ib_problem;

typedef struct ib {
	ir_graph *g;
	ir_diag *d;
	/* The framework node being converted (ib_begin): IR nodes are named
	 * after it, their origin is its op, errors name both. */
	const char *name, *op;
	char sep;		/* joins a node name and a suffix ("conv/pad") */
	bool failed;		/* d holds the first error: emission is a no-op */
	/* Names the importer keeps for tensors it has not made yet (the
	 * model's own value names); NULL: none. */
	bool (*taken)(const void *ctx, const char *name);
	const void *ctx;
	char **strs;		/* the name arena: strings freed by ib_free */
	int nstrs, capstrs;
	ib_problem *pb;
	int npb, cappb;
} ib;

/* Make room for element n of the array *p of *cap elements of size bytes
 * (doubling). 0, or -1 on overflow or out of memory (*p unchanged). */
int ib_grow(void **p, int *cap, int n, size_t size);
/* FNV-1a of s[0..n). */
uint64_t ib_hash(const char *s, size_t n);
/* Product of the shape's dims times the element size, when it is at most
 * limit bytes; else -1 (negative dims, overflow). */
int64_t ib_nbytes(const ir_shape *s, ir_dtype dt, int64_t limit);

/* Refuse, before parsing, what is not the importer's format (noun: "an
 * ONNX model"): an empty file, an npukit IR stream, and a format that
 * ir_sniff_format recognises unless its name contains own. 0, or -1 with
 * d filled. */
int ib_check_format(const uint8_t *buf, size_t size, const char *noun, const char *own, ir_diag *d);
/* d from verifying graph g, rewritten to name the node (and its origin)
 * or the tensor it concerns; returns -1. */
int ib_graph_fail(const ir_graph *g, ir_diag *d);

/* f as an int64: saturated, NaN 0 (a C cast would be undefined). */
int64_t ib_f2i(double f);
/* Integer element types (bool counts). */
bool ib_dtype_is_int(ir_dtype t);

/* A builder for graph g with diagnostics in d; sep joins suffixes. */
void ib_init(ib *b, ir_graph *g, ir_diag *d, char sep);
/* Free the arena and the problems (not the graph). */
void ib_free(ib *b);

/* A copy of s[0..n) (or a formatted string, at most 1023 bytes) that lives
 * until ib_free; NULL if out of memory. */
char *ib_strn(ib *b, const char *s, size_t n);
char *ib_fmt(ib *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "out of memory" as the error; returns -1. */
int ib_oom(ib *b);
/* The error "node 'NAME' (OP): message" about the node being converted,
 * unless an error is kept already; returns -1. */
int ib_fail(ib *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ib_vfail(ib *b, const char *fmt, va_list ap);

/* Start converting framework node name (op type op). */
void ib_begin(ib *b, const char *name, const char *op);
/* base, or base_1, base_2, ... : a node or tensor name not used in the
 * graph (nor, for tensors, taken by the importer). NULL if base is NULL or
 * out of memory. */
const char *ib_unique(ib *b, const char *base, bool node);
/* "<node><sep><suffix>", made unique. */
const char *ib_suffixed(ib *b, const char *suffix, bool node);

/* A new f32 activation tensor called name (NULL: out of memory), a
 * temporary one named "<node><sep><suffix>", a constant (data is copied).
 * Each returns the tensor id, or -1 with the error kept. */
int ib_tensor(ib *b, const char *name);
int ib_tmp(ib *b, const char *suffix);
int ib_const(ib *b, const char *name, ir_dtype dt, const ir_shape *s, const void *data);

/* An IR node called name over tensors in (-1: an absent optional input)
 * making out; its origin is the current op. -1 (nothing added) once an
 * error is kept, when an output is -1 or when name is NULL. */
int ib_node(ib *b, const char *name, int op, const int *in, int nin, const int *out, int nout);
/* The same named after the current node (suffix NULL) or
 * "<node><sep><suffix>", made unique. */
int ib_emit(ib *b, const char *suffix, int op, const int *in, int nin, const int *out, int nout);
/* Attributes of node n (n < 0: nothing); failure is kept as the error. */
void ib_set_i(ib *b, int n, const char *key, int64_t v);
void ib_set_f(ib *b, int n, const char *key, double v);
void ib_set_s(ib *b, int n, const char *key, const char *v);
void ib_set_is(ib *b, int n, const char *key, const int64_t *v, int cnt);
void ib_set_fs(ib *b, int n, const char *key, const double *v, int cnt);
/* After its attributes, infer node n's shapes: 0, or -1 with the error
 * kept (also when n < 0 or an error is kept already). */
int ib_done(ib *b, int n);

/* The graph's inputs and outputs; then unused tensors and nodes are
 * dropped, shapes inferred and the graph verified (ib_graph_fail). 0 or
 * -1 with d filled. */
int ib_finish(ib *b, const int *in, int nin, const int *out, int nout);

/* Record a problem (strings are copied). 0, or -1 out of memory. */
int ib_problem_add(ib *b, int kind, const char *op, const char *node, const char *detail);
/* Record that the current node cannot be imported as it is (kind 0, the
 * message as detail). Returns 1, or -1 out of memory (error kept). */
int ib_unsup(ib *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* All problems as one error message: ops without detail grouped by op
 * under heads[kind] ("unsupported ops: 'Foo' (nodes 'a', 'b')"), kinds in
 * order, then the others node by node ("node 'x' (Op): detail"). */
void ib_report(ib *b, const char *const *heads, int nkinds);
/* All problems as one error message where each names a place (node is
 * "FILE:LINE"): "HEAD what (place, place); what (place)". */
void ib_report_places(ib *b, const char *head);
/* A message too long for a diagnostic is cut after a list item and ends
 * in ", ..." or "; ...". */

#endif
