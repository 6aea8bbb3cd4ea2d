/* tf_import.c - TensorFlow frozen GraphDef to npukit IR (op mapping:
 * npu-import-tf(1)).
 *
 * The nodes the requested outputs need are found by a walk over data
 * inputs (control inputs are ignored) and converted in topological order.
 * Every node output is a value: an IR tensor, or a constant known at import
 * (Const nodes, Shape of a static tensor, small arithmetic on constants,
 * the Fill/Range/Pack chains of unrolled RNNs), or a uniform random tensor
 * with a known range (so that dropout's floor(keep_prob + U[0,1)) folds to
 * ones when keep_prob is 1), or dead (the untaken side of a Switch with a
 * constant predicate). Constants become IR constants only when an IR node
 * reads them. TensorFlow's element order is kept: NHWC tensors stay NHWC
 * and are tagged so; the interpreter's convolution and pooling kernels are
 * channel-first, so NHWC Conv2D/pooling nodes are converted between two
 * transposes (npu-layout can cancel them later).
 *
 * Problems that leave the graph readable (unsupported ops, non-constant
 * attribute inputs) are collected and reported together at the end. */
#include "tf/tf_import.h"
#include "tf/graph.pb-c.h"
#include "import/builder.h"
#include "../../share/npu/runtime/npu_half.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define FOLD_MAX ((int64_t)1 << 24)	/* elements of a constant built at import */

/* TensorFlow's DataType numbers (types.proto). */
enum {
	DT_FLOAT = 1, DT_DOUBLE = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 5, DT_INT8 = 6,
	DT_STRING = 7, DT_INT64 = 9, DT_BOOL = 10, DT_QINT8 = 11, DT_QUINT8 = 12, DT_QINT32 = 13,
	DT_BFLOAT16 = 14, DT_QINT16 = 15, DT_QUINT16 = 16, DT_UINT16 = 17, DT_HALF = 19,
	DT_UINT32 = 22, DT_UINT64 = 23
};

static int dtype_from_tf(int64_t t)
{
	switch (t > 100 ? t - 100 : t) {	/* _ref types of TF 1.x variables */
	case DT_FLOAT: case DT_DOUBLE: return IR_DTYPE_F32;	/* double is narrowed */
	case DT_HALF: return IR_DTYPE_F16;
	case DT_BFLOAT16: return IR_DTYPE_BF16;
	case DT_INT32: return IR_DTYPE_I32;
	case DT_INT64: return IR_DTYPE_I64;
	case DT_INT16: return IR_DTYPE_I16;
	case DT_INT8: return IR_DTYPE_I8;
	case DT_UINT8: return IR_DTYPE_U8;
	case DT_BOOL: return IR_DTYPE_BOOL;
	}
	return -1;
}

static const char *tf_type_name(int64_t t)
{
	static const char *const names[] = {
		"invalid", "float", "double", "int32", "uint8", "int16", "int8", "string",
		"complex64", "int64", "bool", "qint8", "quint8", "qint32", "bfloat16", "qint16",
		"quint16", "uint16", "complex128", "half", "resource", "variant", "uint32", "uint64"};
	if (t > 100)
		t -= 100;
	return t >= 0 && t < (int64_t)(sizeof names / sizeof names[0]) ? names[t] : "unknown";
}

/* ================================================================ constants known at import */

/* Values as doubles: exact for every float and for integers below 2^53,
 * which is all that shape arithmetic needs. */
typedef struct {
	ir_dtype dt;
	ir_shape s;
	int64_t n;
	double *v;
} cval;

static void cval_free(cval *c)
{
	if (c) {
		free(c->v);
		free(c);
	}
}

static cval *cval_new(ir_dtype dt, const ir_shape *s)
{
	int64_t n = ir_shape_numel(s);
	if (n < 0 || n > FOLD_MAX)
		return NULL;
	cval *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->dt = dt;
	c->s = *s;
	c->n = n;
	c->v = calloc((size_t)(n ? n : 1), sizeof(double));
	if (!c->v) {
		free(c);
		return NULL;
	}
	return c;
}

/* Round v to what dtype dt can hold (integers wrap like a C cast). */
static double cast_to(ir_dtype dt, double v)
{
	switch (dt) {
	case IR_DTYPE_F32: return (float)v;
	case IR_DTYPE_F16: return npu_f16_to_f32(npu_f32_to_f16((float)v));
	case IR_DTYPE_BF16: return (float)v;
	case IR_DTYPE_I64: return (double)ib_f2i(v);
	case IR_DTYPE_I32: return (int32_t)(uint32_t)(uint64_t)ib_f2i(v);
	case IR_DTYPE_I16: return (int16_t)(uint16_t)(uint64_t)ib_f2i(v);
	case IR_DTYPE_I8: return (int8_t)(uint8_t)(uint64_t)ib_f2i(v);
	case IR_DTYPE_U8: return (uint8_t)(uint64_t)ib_f2i(v);
	case IR_DTYPE_BOOL: return v != 0;
	default: return v;
	}
}

/* Little-endian bytes of c in its dtype (malloc'ed). */
static void *cval_bytes(const cval *c, size_t *nbytes)
{
	size_t es = ir_dtype_size(c->dt), n = (size_t)c->n * es;
	uint8_t *p = malloc(n ? n : 1);
	if (!p)
		return NULL;
	for (int64_t k = 0; k < c->n; k++) {
		uint8_t *q = p + (size_t)k * es;
		double v = c->v[k];
		switch (c->dt) {
		case IR_DTYPE_F32: { float f = (float)v; memcpy(q, &f, 4); break; }
		case IR_DTYPE_F16: { uint16_t h = npu_f32_to_f16((float)v); memcpy(q, &h, 2); break; }
		case IR_DTYPE_BF16: { uint16_t h = npu_f32_to_bf16((float)v); memcpy(q, &h, 2); break; }
		case IR_DTYPE_I64: { int64_t i = ib_f2i(v); memcpy(q, &i, 8); break; }
		case IR_DTYPE_I32: { int32_t i = (int32_t)(uint32_t)(uint64_t)ib_f2i(v); memcpy(q, &i, 4); break; }
		case IR_DTYPE_I16: { int16_t i = (int16_t)(uint16_t)(uint64_t)ib_f2i(v); memcpy(q, &i, 2); break; }
		case IR_DTYPE_I8: case IR_DTYPE_U8: q[0] = (uint8_t)(uint64_t)ib_f2i(v); break;
		case IR_DTYPE_BOOL: q[0] = v != 0; break;
		default: break;
		}
	}
	*nbytes = n;
	return p;
}

/* ================================================================ importer state */

/* One output of a node. */
typedef struct {
	int tensor;		/* IR tensor, -1 until made */
	cval *c;		/* value known at import, or NULL */
	bool dead;		/* untaken side of a Switch */
	bool poisoned;		/* made by a node that could not be imported */
	bool rnd;		/* uniform random in [lo, hi), shape rs, float */
	double lo, hi;
	ir_shape rs;
	int owner, k;		/* node index and output number */
} val;

typedef struct {
	const NpuTf__NodeDef *nd;
	int nout;		/* outputs referenced (at least 1) */
	val *out;
	bool needed;
	int state;		/* 0 unvisited, 1 on the stack, 2 done */
} tnode;

typedef struct {
	const NpuTf__GraphDef *gd;
	const tf_import_opts *opts;
	ib b;			/* the graph, diagnostics, names, problems (kind: 0
				 * unsupported, 1 quantized, 2 training only) */
	tnode *n;
	int nn;
	int *slot;		/* hash of node names */
	size_t nslot;
	int *in_ids, n_in_ids, cap_in;
	bool nchw;		/* the graph's layout-sensitive nodes say NCHW */
} imp;

/* A node being converted. */
typedef struct {
	imp *im;
	ib *b;			/* &im->b: the node's name and op in b->name, b->op */
	int idx;
	const NpuTf__NodeDef *nd;
	int nin;
	val *in[64];		/* data inputs (control inputs dropped) */
	val *out;
	int nout;
	bool problem;		/* a problem was recorded: stop converting this node */
} cx;

/* Node index of the name s[0..len), or -1. */
static int node_find(const imp *im, const char *s, size_t len)
{
	if (!im->nslot)
		return -1;
	for (size_t i = ib_hash(s, len) & (im->nslot - 1);; i = (i + 1) & (im->nslot - 1)) {
		int k = im->slot[i];
		if (k < 0)
			return -1;
		const char *nm = im->n[k].nd->name;
		if (strlen(nm) == len && !memcmp(nm, s, len))
			return k;
	}
}

/* "node", "node:k" or "^node" -> node index and output; -1 if no such node. */
static int parse_ref(const imp *im, const char *ref, int *out, bool *control)
{
	*control = ref[0] == '^';
	if (*control)
		ref++;
	size_t len = strlen(ref);
	*out = 0;
	const char *colon = strrchr(ref, ':');
	if (colon && colon[1]) {
		char *end;
		long k = strtol(colon + 1, &end, 10);
		if (!*end && k >= 0 && k < 65536) {
			*out = (int)k;
			len = (size_t)(colon - ref);
		}
	}
	return node_find(im, ref, len);
}

/* ---------------------------------------------------------------- diagnostics */

/* ---------------------------------------------------------------- attributes */

static const NpuTf__AttrValue *attr(const cx *c, const char *key)
{
	for (size_t i = 0; i < c->nd->n_attr; i++) {
		const NpuTf__AttrEntry *e = c->nd->attr[i];
		if (e && e->key && !strcmp(e->key, key))
			return e->value;
	}
	return NULL;
}

static int64_t a_int(const cx *c, const char *key, int64_t def)
{
	const NpuTf__AttrValue *a = attr(c, key);
	return a && a->value_case == NPU_TF__ATTR_VALUE__VALUE_I ? a->i : def;
}

static double a_float(const cx *c, const char *key, double def)
{
	const NpuTf__AttrValue *a = attr(c, key);
	return a && a->value_case == NPU_TF__ATTR_VALUE__VALUE_F ? a->f : def;
}

static bool a_bool(const cx *c, const char *key, bool def)
{
	const NpuTf__AttrValue *a = attr(c, key);
	return a && a->value_case == NPU_TF__ATTR_VALUE__VALUE_B ? a->b : def;
}

static int64_t a_type(const cx *c, const char *key, int64_t def)
{
	const NpuTf__AttrValue *a = attr(c, key);
	return a && a->value_case == NPU_TF__ATTR_VALUE__VALUE_TYPE ? a->type : def;
}

static const char *a_str(cx *c, const char *key, const char *def)
{
	const NpuTf__AttrValue *a = attr(c, key);
	if (!a || a->value_case != NPU_TF__ATTR_VALUE__VALUE_S)
		return def;
	const char *s = ib_strn(c->b, a->s.data ? (const char *)a->s.data : "", a->s.len);
	if (!s) {
		ib_oom(c->b);
		return def;
	}
	return s;
}

/* List of ints; count or -1 if absent. */
static int a_ints(const cx *c, const char *key, const int64_t **v)
{
	const NpuTf__AttrValue *a = attr(c, key);
	*v = NULL;
	if (!a || a->value_case != NPU_TF__ATTR_VALUE__VALUE_LIST || !a->list)
		return -1;
	*v = a->list->i;
	return a->list->n_i > 4096 ? 4096 : (int)a->list->n_i;
}

/* ---------------------------------------------------------------- TensorProto */

static int shape_from_proto(const NpuTf__TensorShapeProto *sp, ir_shape *s, bool *known)
{
	*s = (ir_shape){0};
	*known = true;
	if (!sp)
		return 0;
	if (sp->unknown_rank) {
		*known = false;
		return 0;
	}
	if (sp->n_dim > IR_MAX_RANK)
		return -1;
	s->rank = (int)sp->n_dim;
	for (size_t i = 0; i < sp->n_dim; i++) {
		int64_t v = sp->dim[i] ? sp->dim[i]->size : -1;
		if (v < 0)
			*known = false;
		if (v > IR_MAX_DIM)
			return -1;
		s->dim[i] = v;
	}
	return 0;
}

static const char *shape_text(const ir_shape *s, bool known, char *buf, size_t size)
{
	size_t len = 0;
	if (!known && s->rank == 0)
		return snprintf(buf, size, "unknown rank"), buf;
	buf[0] = 0;
	for (int i = 0; i < s->rank && len < size; i++) {
		int k = s->dim[i] < 0 ? snprintf(buf + len, size - len, "%s?", i ? "," : "")
				      : snprintf(buf + len, size - len, "%s%lld", i ? "," : "", (long long)s->dim[i]);
		len += k > 0 ? (size_t)k : 0;
	}
	if (s->rank == 0)
		snprintf(buf, size, "scalar");
	return buf;
}

/* Decode a TensorProto (what names it in messages). */
static cval *tensor_decode(const NpuTf__TensorProto *tp, const char *what, ir_diag *d)
{
	int t = tp ? dtype_from_tf(tp->dtype) : -1;
	if (!tp) {
		ir_fail(d, -1, -1, "%s has no tensor", what);
		return NULL;
	}
	if (t < 0) {
		ir_fail(d, -1, -1, "%s has element type %s, which the IR does not support", what, tf_type_name(tp->dtype));
		return NULL;
	}
	ir_shape s;
	bool known;
	if (shape_from_proto(tp->tensor_shape, &s, &known) || !known) {
		ir_fail(d, -1, -1, "%s has an invalid or unknown shape", what);
		return NULL;
	}
	int64_t n = ir_shape_numel(&s);
	if (n < 0 || n > FOLD_MAX) {
		ir_fail(d, -1, -1, "%s has an invalid or too large shape", what);
		return NULL;
	}
	cval *c = cval_new((ir_dtype)t, &s);
	if (!c) {
		ir_fail(d, -1, -1, "out of memory");
		return NULL;
	}
	int64_t raw = tp->dtype > 100 ? tp->dtype - 100 : tp->dtype;
	if (tp->tensor_content.len) {
		size_t es = raw == DT_DOUBLE || raw == DT_INT64 ? 8 : raw == DT_FLOAT || raw == DT_INT32 ? 4 :
			    raw == DT_HALF || raw == DT_BFLOAT16 || raw == DT_INT16 ? 2 : 1;
		if (tp->tensor_content.len != (size_t)n * es) {
			ir_fail(d, -1, -1, "%s has %zu bytes of data, its shape needs %zu", what,
				tp->tensor_content.len, (size_t)n * es);
			cval_free(c);
			return NULL;
		}
		const uint8_t *p = tp->tensor_content.data;
		for (int64_t k = 0; k < n; k++, p += es) {
			double v = 0;
			switch (raw) {
			case DT_FLOAT: { float f; memcpy(&f, p, 4); v = f; break; }
			case DT_DOUBLE: { double f; memcpy(&f, p, 8); v = (float)f; break; }
			case DT_HALF: { uint16_t h; memcpy(&h, p, 2); v = npu_f16_to_f32(h); break; }
			case DT_BFLOAT16: v = npu_bf16_to_f32((uint16_t)(p[0] | p[1] << 8)); break;
			case DT_INT32: { int32_t i; memcpy(&i, p, 4); v = i; break; }
			case DT_INT64: { int64_t i; memcpy(&i, p, 8); v = (double)i; break; }
			case DT_INT16: { int16_t i; memcpy(&i, p, 2); v = i; break; }
			case DT_INT8: v = (int8_t)p[0]; break;
			default: v = p[0]; break;
			}
			c->v[k] = v;
		}
		return c;
	}
	/* typed fields: fewer values than elements repeat the last one */
	size_t have;
	switch (raw) {
	case DT_FLOAT: have = tp->n_float_val; break;
	case DT_DOUBLE: have = tp->n_double_val; break;
	case DT_HALF: case DT_BFLOAT16: have = tp->n_half_val; break;
	case DT_INT64: have = tp->n_int64_val; break;
	case DT_BOOL: have = tp->n_bool_val; break;
	default: have = tp->n_int_val; break;
	}
	if (have > (size_t)n) {
		ir_fail(d, -1, -1, "%s has %zu values, its shape needs %lld", what, have, (long long)n);
		cval_free(c);
		return NULL;
	}
	for (int64_t k = 0; k < n && have; k++) {
		size_t j = (size_t)k < have ? (size_t)k : have - 1;
		double v;
		switch (raw) {
		case DT_FLOAT: v = tp->float_val[j]; break;
		case DT_DOUBLE: v = (float)tp->double_val[j]; break;
		case DT_HALF: v = npu_f16_to_f32((uint16_t)tp->half_val[j]); break;
		case DT_BFLOAT16: v = npu_bf16_to_f32((uint16_t)tp->half_val[j]); break;
		case DT_INT64: v = (double)tp->int64_val[j]; break;
		case DT_BOOL: v = tp->bool_val[j]; break;
		default: v = tp->int_val[j]; break;
		}
		c->v[k] = cast_to((ir_dtype)t, v);
	}
	return c;
}

/* ---------------------------------------------------------------- values */

static ir_tensor *vtensor(const cx *c, const val *v)
{
	return v->tensor >= 0 ? ir_graph_tensor(c->b->g, v->tensor) : NULL;
}

static ir_shape vshape(const cx *c, const val *v)
{
	if (v->c)
		return v->c->s;
	if (v->rnd)
		return v->rs;
	const ir_tensor *t = vtensor(c, v);
	return t ? t->shape : (ir_shape){0};
}

static ir_dtype vdtype(const cx *c, const val *v)
{
	if (v->c)
		return v->c->dt;
	const ir_tensor *t = vtensor(c, v);
	return t ? t->dtype : IR_DTYPE_F32;
}

/* Name of output k of node idx ("node" or "node:k"). */
static const char *out_name(imp *im, int idx, int k)
{
	const char *nm = im->n[idx].nd->name;
	return k ? ib_fmt(&im->b, "%s:%d", nm, k) : nm;
}

/* IR tensor of input i (constants are added to the graph on first use). */
static int tin(cx *c, int i)
{
	imp *im = c->im;
	val *v = c->in[i];
	if (c->b->failed)
		return -1;
	if (v->tensor >= 0)
		return v->tensor;
	if (c->problem)
		return -1;
	if (v->rnd || !v->c) {
		if (v->rnd)
			ib_unsup(c->b, "input %d is a random tensor", i);
		else
			ib_unsup(c->b, "input %d ('%s') is an output that is not imported", i, out_name(im, v->owner, v->k));
		c->problem = true;
		return -1;
	}
	/* name the constant after the node that made it */
	size_t nb;
	void *data = cval_bytes(v->c, &nb);
	int id = data ? ib_const(c->b, ib_unique(c->b, out_name(im, v->owner, v->k), false), v->c->dt, &v->c->s, data)
		      : ib_oom(c->b);
	free(data);
	return id < 0 ? -1 : (v->tensor = id);
}

/* New activation for output k (named after it) or a temporary ("node#suffix"). */
static int tout(cx *c, int k)
{
	int id = ib_tensor(c->b, ib_unique(c->b, out_name(c->im, c->idx, k), false));
	if (id >= 0 && k < c->nout)
		c->out[k].tensor = id;
	return id;
}
/* A constant tensor made by the importer (weights in IR order). */
static int tconst(cx *c, const char *suffix, cval *v)
{
	size_t nb;
	void *data = v && !c->b->failed ? cval_bytes(v, &nb) : NULL;
	int id = data ? ib_const(c->b, ib_suffixed(c->b, suffix, false), v->dt, &v->s, data) : ib_oom(c->b);
	free(data);
	cval_free(v);
	return id;
}
/* ---------------------------------------------------------------- IR nodes */

/* Add an IR node named after this TF node (suffix: "<name>#<suffix>");
 * nothing when an input is missing (-1). */
static int emit(cx *c, const char *suffix, int op, const int *in, int nin, const int *out, int nout)
{
	for (int i = 0; i < nin; i++)
		if (in[i] < 0)
			return -1;
	return ib_emit(c->b, suffix, op, in, nin, out, nout);
}
/* One IR node over tensors in[0..nin) making output 0. */
static int emit_out0(cx *c, int op, const int *in, int nin)
{
	int o = tout(c, 0);
	return emit(c, NULL, op, in, nin, &o, 1);
}

/* A tensor retagged with a layout (an identity node when it already has
 * another, since tags are facts about the data). */
static int with_layout(cx *c, int t, ir_layout l, const char *suffix)
{
	if (t < 0)
		return -1;
	ir_tensor *x = ir_graph_tensor(c->b->g, t);
	if (x->layout == l || (l == IR_LAYOUT_NCHW && x->layout == IR_LAYOUT_NONE && x->shape.rank == 4))
		return t;
	if (x->layout == IR_LAYOUT_NONE && x->kind != IR_KIND_CONST && x->kind != IR_KIND_INPUT) {
		x->layout = l;
		return t;
	}
	int o = ib_tmp(c->b, suffix);
	if (o < 0)
		return -1;
	ir_graph_tensor(c->b->g, o)->layout = l;
	int n = emit(c, suffix, IR_OP_IDENTITY, &t, 1, &o, 1);
	return ib_done(c->b, n) ? -1 : o;
}

/* A transpose node with its output tagged l. */
static int transpose(cx *c, int t, const int64_t *perm, int rank, ir_layout l, const char *suffix, int out)
{
	int o = out >= 0 ? out : ib_tmp(c->b, suffix);
	if (o < 0 || t < 0)
		return -1;
	ir_graph_tensor(c->b->g, o)->layout = l;
	int n = emit(c, out >= 0 ? NULL : suffix, IR_OP_TRANSPOSE, &t, 1, &o, 1);
	ib_set_is(c->b, n, "perm", perm, rank);
	return ib_done(c->b, n) ? -1 : o;
}

static int reshape(cx *c, int t, const ir_shape *s, const char *suffix, int out)
{
	int o = out >= 0 ? out : ib_tmp(c->b, suffix);
	int n = emit(c, out >= 0 ? NULL : suffix, IR_OP_RESHAPE, &t, 1, &o, 1);
	ib_set_is(c->b, n, "shape", s->dim, s->rank);
	return ib_done(c->b, n) ? -1 : o;
}

/* ================================================================ op handlers
 *
 * Each returns 0 (converted), 1 (a problem was recorded: the node's outputs
 * become unknown) or -1 (error in d). */

#define NEED(t) do { if (!(t)) return c->b->failed ? -1 : 1; } while (0)
#define TRY(x) do { int r_ = (x); if (r_) return r_; } while (0)

static bool has_in(const cx *c, int i) { return i >= 0 && i < c->nin; }

/* Input i, which must be known at import (an attribute in the IR). */
static const cval *need_cst(cx *c, int i, const char *what)
{
	if (!has_in(c, i)) {
		ib_fail(c->b, "input %d (%s) is missing", i, what);
		return NULL;
	}
	if (!c->in[i]->c)
		ib_unsup(c->b, "input %d (%s) must be constant", i, what);
	return c->in[i]->c;
}

static int cst_ints(cx *c, const cval *t, int64_t *out, int max, const char *what)
{
	if (t->s.rank > 1 || t->n > max)
		return ib_fail(c->b, "%s must be a vector of at most %d values", what, max);
	if (!ib_dtype_is_int(t->dt))
		return ib_fail(c->b, "%s must be integers (it is %s)", what, ir_dtype_name(t->dt));
	for (int64_t k = 0; k < t->n; k++)
		out[k] = ib_f2i(t->v[k]);
	return (int)t->n;
}

/* Output k becomes the constant v (taken over). */
static int put_cst(cx *c, int k, cval *v)
{
	if (!v) {
		c->b->failed = true;
		return ir_fail(c->b->d, -1, -1, "node '%s' (%s): out of memory or constant too large", c->b->name, c->b->op);
	}
	if (k < c->nout) {
		cval_free(c->out[k].c);
		c->out[k].c = v;
	} else {
		cval_free(v);
	}
	return 0;
}

static int norm_axis(cx *c, int64_t a, int rank)
{
	int r = ir_axis(a, rank);
	if (r < 0)
		ib_fail(c->b, "axis %lld is out of range for rank %d", (long long)a, rank);
	return r;
}

/* ---------------------------------------------------------------- pass-through */

static int cv_identity(cx *c)
{
	for (int k = 0; k < c->nout; k++) {
		int from = !strcmp(c->b->op, "IdentityN") ? k : 0;
		if (from >= c->nin)
			return ib_fail(c->b, "output %d has no input", k);
		val *src = c->in[from], *dst = &c->out[k];
		dst->tensor = src->tensor;
		dst->rnd = src->rnd;
		dst->lo = src->lo;
		dst->hi = src->hi;
		dst->rs = src->rs;
		if (src->c) {
			cval *v = cval_new(src->c->dt, &src->c->s);
			if (v)
				memcpy(v->v, src->c->v, sizeof(double) * (size_t)(src->c->n ? src->c->n : 1));
			TRY(put_cst(c, k, v));
		}
	}
	return 0;
}

static int cv_noop(cx *c)
{
	(void)c;
	return 0;
}

static int cv_const(cx *c)
{
	const NpuTf__AttrValue *a = attr(c, "value");
	char what[300];
	snprintf(what, sizeof what, "node '%.200s' (Const): attribute 'value'", c->b->name);
	if (!a || a->value_case != NPU_TF__ATTR_VALUE__VALUE_TENSOR)
		return ib_fail(c->b, "attribute 'value' (a tensor) is missing");
	if (a->tensor && dtype_from_tf(a->tensor->dtype) < 0) {
		int64_t t = a->tensor->dtype > 100 ? a->tensor->dtype - 100 : a->tensor->dtype;
		bool q = t == DT_QINT8 || t == DT_QUINT8 || t == DT_QINT32 || t == DT_QINT16 || t == DT_QUINT16;
		const char *op = ib_fmt(c->b, "Const of %s", tf_type_name(t));
		if (!op)
			return ib_oom(c->b);
		if (q)
			return ib_problem_add(c->b, 1, op, c->b->name, NULL) ? -1 : 1;
		return ib_unsup(c->b, "element type %s is not supported by the IR", tf_type_name(t));
	}
	cval *v = tensor_decode(a->tensor, what, c->b->d);
	if (!v) {
		c->b->failed = true;
		return -1;
	}
	return put_cst(c, 0, v);
}

/* Switch with a constant predicate: one output is the data, the other dead. */
static int cv_switch(cx *c)
{
	const cval *p = need_cst(c, 1, "pred");
	NEED(p);
	if (p->n != 1)
		return ib_fail(c->b, "the predicate must be a scalar");
	int taken = p->v[0] != 0;
	TRY(cv_identity(c));
	for (int k = 1; k < c->nout; k++) {	/* cv_identity copied the value to every output */
		cval_free(c->out[k].c);
		c->out[k].c = NULL;
	}
	if (c->nout > 1) {
		c->out[1] = c->out[0];	/* the value moves (or is shared until out[0] dies) */
		c->out[1].k = 1;
	} else if (taken) {
		cval_free(c->out[0].c);	/* output 1 is not read */
	}
	c->out[!taken] = (val){.tensor = -1, .dead = true, .owner = c->idx, .k = !taken};
	return 0;
}

/* ---------------------------------------------------------------- elementwise */

typedef struct {
	const char *tf;
	int op;		/* IR op, -1: composite or fold only */
} ew;

static const ew binops[] = {
	{"Add", IR_OP_ADD}, {"AddV2", IR_OP_ADD}, {"Sub", IR_OP_SUB}, {"Mul", IR_OP_MUL},
	{"RealDiv", IR_OP_DIV}, {"Div", IR_OP_DIV}, {"Maximum", IR_OP_MAX}, {"Minimum", IR_OP_MIN},
	{"Pow", IR_OP_POW}, {"SquaredDifference", -1}, {"FloorDiv", -1}, {"FloorMod", -1},
	{"Less", -1}, {"LessEqual", -1}, {"Greater", -1}, {"GreaterEqual", -1}, {"Equal", -1},
	{"NotEqual", -1}, {"LogicalAnd", -1}, {"LogicalOr", -1},
};

static double ew2(const char *op, ir_dtype dt, double a, double b)
{
	bool in = ib_dtype_is_int(dt);
	switch (op[0]) {
	case 'A': return !strcmp(op, "AddV2") || !strcmp(op, "Add") ? a + b : 0;
	case 'S': return !strcmp(op, "Sub") ? a - b : (a - b) * (a - b);
	case 'M': return !strcmp(op, "Mul") ? a * b : !strcmp(op, "Maximum") ? fmax(a, b) : fmin(a, b);
	case 'R': return a / b;
	case 'D': return in ? (b ? trunc(a / b) : 0) : a / b;
	case 'P': return pow(a, b);
	case 'F':
		if (!strcmp(op, "FloorDiv"))
			return in && !b ? 0 : floor(a / b);
		return in && !b ? 0 : a - floor(a / b) * b;
	case 'L':
		if (!strcmp(op, "Less")) return a < b;
		if (!strcmp(op, "LessEqual")) return a <= b;
		if (!strcmp(op, "LogicalAnd")) return a != 0 && b != 0;
		return a != 0 || b != 0;
	case 'G': return !strcmp(op, "Greater") ? a > b : a >= b;
	case 'E': return a == b;
	case 'N': return a != b;
	}
	return 0;
}

static bool is_compare(const char *op)
{
	return !strncmp(op, "Less", 4) || !strncmp(op, "Greater", 7) || !strcmp(op, "Equal") ||
	       !strcmp(op, "NotEqual") || !strncmp(op, "Logical", 7);
}

/* Element k of `in` broadcast to `out`. */
static int64_t bcast_index(const ir_shape *out, const ir_shape *in, int64_t k)
{
	int64_t idx = 0, stride = 1;
	for (int i = out->rank - 1, j = in->rank - 1; i >= 0; i--, j--) {
		int64_t d = out->dim[i], pos = k % d;
		k /= d;
		if (j >= 0) {
			if (in->dim[j] != 1)
				idx += pos * stride;
			stride *= in->dim[j];
		}
	}
	return idx;
}

static int fold_binary(cx *c)
{
	const cval *a = c->in[0]->c, *b = c->in[1]->c;
	ir_shape o;
	if (ir_shape_broadcast(&a->s, &b->s, &o) < 0)
		return ib_fail(c->b, "shapes do not broadcast");
	ir_dtype dt = is_compare(c->b->op) ? IR_DTYPE_BOOL : a->dt;
	cval *r = cval_new(dt, &o);
	if (r)
		for (int64_t k = 0; k < r->n; k++)
			r->v[k] = cast_to(dt, ew2(c->b->op, a->dt, a->v[bcast_index(&o, &a->s, k)], b->v[bcast_index(&o, &b->s, k)]));
	return put_cst(c, 0, r);
}

/* Arithmetic on a uniform random tensor and a constant scalar keeps it
 * uniform in a known range (dropout's keep_prob + U[0,1)). */
static int rnd_binary(cx *c)
{
	val *r = c->in[0]->rnd ? c->in[0] : c->in[1], *k = c->in[0]->rnd ? c->in[1] : c->in[0];
	bool left = r == c->in[0];
	if (!k->c || k->c->n != 1)
		return ib_unsup(c->b, "random values are only supported in arithmetic with constant scalars");
	double s = k->c->v[0], lo = r->lo, hi = r->hi;
	val *o = &c->out[0];
	if (!strcmp(c->b->op, "Add") || !strcmp(c->b->op, "AddV2")) {
		lo += s, hi += s;
	} else if (!strcmp(c->b->op, "Sub")) {
		if (left)
			lo -= s, hi -= s;
		else {
			double t = s - hi;
			hi = s - lo, lo = t;
		}
	} else if (!strcmp(c->b->op, "Mul") || (!strcmp(c->b->op, "RealDiv") && left)) {
		double f = !strcmp(c->b->op, "Mul") ? s : 1 / s;
		if (!(f >= 0))
			return ib_unsup(c->b, "random values scaled by a negative number");
		lo *= f, hi *= f;
	} else if (!strcmp(c->b->op, "GreaterEqual") && left && lo >= s) {
		/* TF 2 dropout: U[0,1) >= rate with rate 0 is all true */
		cval *v = cval_new(IR_DTYPE_BOOL, &r->rs);
		if (v)
			for (int64_t j = 0; j < v->n; j++)
				v->v[j] = 1;
		return put_cst(c, 0, v);
	} else {
		return ib_unsup(c->b, "random values are only supported in dropout arithmetic with keep_prob 1 (--const)");
	}
	o->rnd = true;
	o->lo = lo;
	o->hi = hi;
	o->rs = r->rs;
	return 0;
}

/* FloorDiv floor(a / b) and FloorMod a - floor(a / b) * b on tensors.
 * Integers are divided in float32 and cast back: exact while the values
 * stay below 2^24 in magnitude (shape and index arithmetic). */
static int floor_div(cx *c, const int *in)
{
	ir_dtype dt = vdtype(c, c->in[0]);
	bool in_int = ib_dtype_is_int(dt), mod = !strcmp(c->b->op, "FloorMod");
	int f[2] = {in[0], in[1]};
	if (in_int)
		for (int i = 0; i < 2; i++) {
			int o = ib_tmp(c->b, ib_fmt(c->b, "f32_%d", i));
			int n = emit(c, ib_fmt(c->b, "f32_%d", i), IR_OP_CAST, &in[i], 1, &o, 1);
			ib_set_s(c->b, n, "to", "f32");
			TRY(ib_done(c->b, n));
			f[i] = o;
		}
	int q = ib_tmp(c->b, "div");
	int n = emit(c, "div", IR_OP_DIV, f, 2, &q, 1);
	TRY(ib_done(c->b, n));
	bool last = !in_int && !mod;
	int fl = last ? tout(c, 0) : ib_tmp(c->b, "floor");
	n = emit(c, last ? NULL : "floor", IR_OP_FLOOR, &q, 1, &fl, 1);
	TRY(ib_done(c->b, n));
	if (mod) {
		int mi[2] = {fl, f[1]}, m = ib_tmp(c->b, "mul");
		n = emit(c, "mul", IR_OP_MUL, mi, 2, &m, 1);
		TRY(ib_done(c->b, n));
		int si[2] = {f[0], m}, r = in_int ? ib_tmp(c->b, "sub") : tout(c, 0);
		n = emit(c, in_int ? "sub" : NULL, IR_OP_SUB, si, 2, &r, 1);
		TRY(ib_done(c->b, n));
		fl = r;
	}
	if (!in_int)
		return 0;
	int o = tout(c, 0);
	n = emit(c, NULL, IR_OP_CAST, &fl, 1, &o, 1);
	ib_set_s(c->b, n, "to", ir_dtype_name(dt));
	return ib_done(c->b, n);
}

static int cv_binary(cx *c)
{
	if (c->nin != 2)
		return ib_fail(c->b, "expected 2 inputs, got %d", c->nin);
	if (c->in[0]->c && c->in[1]->c)
		return fold_binary(c);
	if (c->in[0]->rnd || c->in[1]->rnd)
		return rnd_binary(c);
	int op = -1;
	for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
		if (!strcmp(binops[i].tf, c->b->op))
			op = binops[i].op;
	int in[2] = {tin(c, 0), tin(c, 1)};
	if (!strcmp(c->b->op, "SquaredDifference")) {
		int t = ib_tmp(c->b, "diff");
		int n = emit(c, "diff", IR_OP_SUB, in, 2, &t, 1);
		TRY(ib_done(c->b, n));
		int tt[2] = {t, t};
		return ib_done(c->b, emit_out0(c, IR_OP_MUL, tt, 2));
	}
	if (!strcmp(c->b->op, "FloorDiv") || !strcmp(c->b->op, "FloorMod"))
		return floor_div(c, in);
	if (op < 0)
		return ib_unsup(c->b, "only on constants");
	if (op == IR_OP_DIV && ib_dtype_is_int(vdtype(c, c->in[0])) && strcmp(c->b->op, "RealDiv"))
		return ib_unsup(c->b, "integer division of tensors");
	return ib_done(c->b, emit_out0(c, op, in, 2));
}

typedef struct {
	const char *tf;
	int op;
} un;

static const un unops[] = {
	{"Relu", IR_OP_RELU}, {"Relu6", IR_OP_RELU6}, {"Elu", IR_OP_ELU}, {"Sigmoid", IR_OP_SIGMOID},
	{"Tanh", IR_OP_TANH}, {"Softplus", IR_OP_SOFTPLUS}, {"Exp", IR_OP_EXP}, {"Log", IR_OP_LOG},
	{"Sqrt", IR_OP_SQRT}, {"Rsqrt", IR_OP_RSQRT}, {"Neg", IR_OP_NEG}, {"Abs", IR_OP_ABS},
	{"Floor", IR_OP_FLOOR}, {"Ceil", IR_OP_CEIL}, {"Reciprocal", IR_OP_RECIPROCAL},
	{"Inv", IR_OP_RECIPROCAL}, {"Erf", IR_OP_ERF}, {"LeakyRelu", IR_OP_LEAKY_RELU},
	{"Square", -1}, {"Selu", -1}, {"Softsign", -1}, {"LogicalNot", -1},
};

static double ew1(const char *op, double x, double alpha)
{
	if (!strcmp(op, "Relu")) return x > 0 ? x : 0;
	if (!strcmp(op, "Relu6")) return x < 0 ? 0 : x > 6 ? 6 : x;
	if (!strcmp(op, "Elu")) return x > 0 ? x : exp(x) - 1;
	if (!strcmp(op, "Sigmoid")) return 1 / (1 + exp(-x));
	if (!strcmp(op, "Tanh")) return tanh(x);
	if (!strcmp(op, "Softplus")) return log1p(exp(x));
	if (!strcmp(op, "Exp")) return exp(x);
	if (!strcmp(op, "Log")) return log(x);
	if (!strcmp(op, "Sqrt")) return sqrt(x);
	if (!strcmp(op, "Rsqrt")) return 1 / sqrt(x);
	if (!strcmp(op, "Neg")) return -x;
	if (!strcmp(op, "Abs")) return fabs(x);
	if (!strcmp(op, "Floor")) return floor(x);
	if (!strcmp(op, "Ceil")) return ceil(x);
	if (!strcmp(op, "Reciprocal") || !strcmp(op, "Inv")) return 1 / x;
	if (!strcmp(op, "Erf")) return erf(x);
	if (!strcmp(op, "LeakyRelu")) return x > 0 ? x : alpha * x;
	if (!strcmp(op, "Square")) return x * x;
	if (!strcmp(op, "Softsign")) return x / (1 + fabs(x));
	if (!strcmp(op, "LogicalNot")) return x == 0;
	return x;
}

static int cv_unary(cx *c)
{
	double alpha = a_float(c, "alpha", 0.2);
	if (c->nin < 1)
		return ib_fail(c->b, "input 0 is missing");
	if (c->in[0]->c) {
		const cval *x = c->in[0]->c;
		cval *r = cval_new(x->dt, &x->s);
		if (r)
			for (int64_t k = 0; k < r->n; k++)
				r->v[k] = cast_to(x->dt, ew1(c->b->op, x->v[k], alpha));
		return put_cst(c, 0, r);
	}
	if (c->in[0]->rnd) {
		const val *r = c->in[0];
		if (!strcmp(c->b->op, "Floor") && floor(r->lo) == floor(nextafter(r->hi, -INFINITY))) {
			/* dropout's mask: floor(keep_prob + U[0,1)) is 1 when keep_prob is 1 */
			cval *v = cval_new(IR_DTYPE_F32, &r->rs);
			if (v)
				for (int64_t k = 0; k < v->n; k++)
					v->v[k] = floor(r->lo);
			return put_cst(c, 0, v);
		}
		return ib_unsup(c->b, "random values are only supported in dropout with keep_prob 1 (--const)");
	}
	int op = -1;
	for (size_t i = 0; i < sizeof unops / sizeof unops[0]; i++)
		if (!strcmp(unops[i].tf, c->b->op))
			op = unops[i].op;
	int x = tin(c, 0);
	if (!strcmp(c->b->op, "Square")) {
		int in[2] = {x, x};
		return ib_done(c->b, emit_out0(c, IR_OP_MUL, in, 2));
	}
	if (op < 0)
		return ib_unsup(c->b, "only on constants");
	int n = emit_out0(c, op, &x, 1);
	if (op == IR_OP_LEAKY_RELU)
		ib_set_f(c->b, n, "alpha", alpha);
	if (op == IR_OP_ELU)
		ib_set_f(c->b, n, "alpha", 1.0);
	return ib_done(c->b, n);
}

static int cv_softmax(cx *c)
{
	int x = tin(c, 0);
	int n = emit_out0(c, !strcmp(c->b->op, "Softmax") ? IR_OP_SOFTMAX : IR_OP_LOG_SOFTMAX, &x, 1);
	ib_set_i(c->b, n, "axis", -1);
	return ib_done(c->b, n);
}

static int cv_cast(cx *c)
{
	int to = dtype_from_tf(a_type(c, "DstT", DT_FLOAT));
	if (to < 0)
		return ib_unsup(c->b, "cast to %s", tf_type_name(a_type(c, "DstT", 0)));
	if (c->in[0]->c) {
		const cval *x = c->in[0]->c;
		cval *r = cval_new((ir_dtype)to, &x->s);
		if (r)
			for (int64_t k = 0; k < r->n; k++)
				r->v[k] = cast_to((ir_dtype)to, ib_dtype_is_int((ir_dtype)to) ? trunc(x->v[k]) : x->v[k]);
		return put_cst(c, 0, r);
	}
	int x = tin(c, 0);
	if (x >= 0 && ir_graph_tensor(c->b->g, x)->dtype == (ir_dtype)to)
		return cv_identity(c);
	int n = emit_out0(c, IR_OP_CAST, &x, 1);
	ib_set_s(c->b, n, "to", ir_dtype_name((ir_dtype)to));
	return ib_done(c->b, n);
}

/* ---------------------------------------------------------------- shapes, folded */

static ir_dtype out_type(cx *c, const char *key)
{
	int t = dtype_from_tf(a_type(c, key, DT_INT32));
	return t < 0 ? IR_DTYPE_I32 : (ir_dtype)t;
}

static int cv_shape(cx *c)
{
	if (c->nin < 1)
		return ib_fail(c->b, "input 0 is missing");
	ir_shape xs = vshape(c, c->in[0]);
	ir_dtype dt = out_type(c, "out_type");
	cval *r;
	if (!strcmp(c->b->op, "Shape")) {
		r = cval_new(dt, &(ir_shape){.rank = 1, .dim = {xs.rank}});
		for (int i = 0; r && i < xs.rank; i++)
			r->v[i] = (double)xs.dim[i];
	} else {
		r = cval_new(dt, &(ir_shape){0});
		if (r)
			r->v[0] = !strcmp(c->b->op, "Rank") ? xs.rank : (double)ir_shape_numel(&xs);
	}
	return put_cst(c, 0, r);
}

static int cv_like(cx *c)
{
	ir_shape xs = vshape(c, c->in[0]);
	cval *r = cval_new(vdtype(c, c->in[0]), &xs);
	for (int64_t k = 0; r && k < r->n; k++)
		r->v[k] = !strcmp(c->b->op, "OnesLike");
	return put_cst(c, 0, r);
}

static int cv_fill(cx *c)
{
	const cval *dims = need_cst(c, 0, "dims"), *v = need_cst(c, 1, "value");
	NEED(dims && v);
	ir_shape s = {0};
	int n = cst_ints(c, dims, s.dim, IR_MAX_RANK, "dims");
	if (n < 0 || v->n != 1)
		return ib_fail(c->b, "bad dims or value");
	s.rank = n;
	cval *r = cval_new(v->dt, &s);
	for (int64_t k = 0; r && k < r->n; k++)
		r->v[k] = v->v[0];
	return put_cst(c, 0, r);
}

static int cv_range(cx *c)
{
	const cval *a = need_cst(c, 0, "start"), *b = need_cst(c, 1, "limit"), *d = need_cst(c, 2, "delta");
	NEED(a && b && d);
	double st = a->v[0], lim = b->v[0], de = d->v[0];
	if (!de || a->n != 1 || b->n != 1 || d->n != 1)
		return ib_fail(c->b, "bad range");
	double cnt = ceil((lim - st) / de);
	if (cnt < 0)
		cnt = 0;
	if (cnt > FOLD_MAX)
		return ib_fail(c->b, "range too large");
	cval *r = cval_new(a->dt, &(ir_shape){.rank = 1, .dim = {(int64_t)cnt}});
	for (int64_t k = 0; r && k < r->n; k++)
		r->v[k] = cast_to(a->dt, st + (double)k * de);
	return put_cst(c, 0, r);
}

/* Output 0 is input 0 in shape s: a constant, or a reshape node. */
static int reshaped(cx *c, const ir_shape *s)
{
	val *x = c->in[0];
	if (x->c) {
		cval *r = cval_new(x->c->dt, s);
		if (r && r->n != x->c->n)
			return cval_free(r), ib_fail(c->b, "element count changes");
		if (r)
			memcpy(r->v, x->c->v, sizeof(double) * (size_t)(r->n ? r->n : 1));
		return put_cst(c, 0, r);
	}
	if (x->rnd) {
		c->out[0] = *x;
		c->out[0].rs = *s;
		c->out[0].owner = c->idx;
		c->out[0].k = 0;
		return 0;
	}
	return reshape(c, tin(c, 0), s, NULL, tout(c, 0)) < 0 ? -1 : 0;
}

static int cv_reshape(cx *c)
{
	const cval *sh = need_cst(c, 1, "shape");
	NEED(sh);
	ir_shape xs = vshape(c, c->in[0]), s = {0};
	int n = cst_ints(c, sh, s.dim, IR_MAX_RANK, "shape"), infer = -1;
	if (n < 0)
		return -1;
	s.rank = n;
	int64_t known = 1, total = ir_shape_numel(&xs);
	for (int i = 0; i < n; i++) {
		if (s.dim[i] == -1 && infer < 0)
			infer = i;
		else if (s.dim[i] < 0 || s.dim[i] > IR_MAX_DIM)
			return ib_fail(c->b, "bad dimension %lld", (long long)s.dim[i]);
		else if (ir_mul_checked(&known, s.dim[i] ? s.dim[i] : 1, IR_MAX_ELEMS))
			return ib_fail(c->b, "shape has more than %lld elements", (long long)IR_MAX_ELEMS);
	}
	if (infer >= 0)
		s.dim[infer] = known ? total / known : 0;
	if (ir_shape_numel(&s) != total)
		return ib_fail(c->b, "cannot reshape %lld elements to the given shape", (long long)total);
	return reshaped(c, &s);
}

static int cv_expand_dims(cx *c)
{
	const cval *ax = need_cst(c, 1, "axis");
	NEED(ax);
	ir_shape xs = vshape(c, c->in[0]);
	if (ax->n != 1 || xs.rank >= IR_MAX_RANK)
		return ib_fail(c->b, "bad axis");
	int a = norm_axis(c, ib_f2i(ax->v[0]), xs.rank + 1);
	if (a < 0)
		return -1;
	memmove(&xs.dim[a + 1], &xs.dim[a], sizeof(int64_t) * (size_t)(xs.rank - a));
	xs.dim[a] = 1;
	xs.rank++;
	return reshaped(c, &xs);
}

static int cv_squeeze(cx *c)
{
	ir_shape xs = vshape(c, c->in[0]), s = {0};
	const int64_t *v;
	int n = a_ints(c, "squeeze_dims", &v);
	if (n < 0)
		n = a_ints(c, "axis", &v);
	bool drop[IR_MAX_RANK] = {0};
	for (int i = 0; i < n; i++) {
		int a = norm_axis(c, v[i], xs.rank);
		if (a < 0)
			return -1;
		if (xs.dim[a] != 1)
			return ib_fail(c->b, "dimension %d is %lld, not 1", a, (long long)xs.dim[a]);
		drop[a] = true;
	}
	for (int i = 0; i < xs.rank; i++)
		if (!(n > 0 ? drop[i] : xs.dim[i] == 1))
			s.dim[s.rank++] = xs.dim[i];
	return reshaped(c, &s);
}

static int cv_transpose(cx *c)
{
	const cval *p = need_cst(c, 1, "perm");
	NEED(p);
	ir_shape xs = vshape(c, c->in[0]), o = xs;
	int64_t perm[IR_MAX_RANK];
	int n = cst_ints(c, p, perm, IR_MAX_RANK, "perm");
	if (n < 0)
		return -1;
	if (n != xs.rank)
		return ib_fail(c->b, "perm has %d values for rank %d", n, xs.rank);
	bool seen[IR_MAX_RANK] = {0};
	for (int i = 0; i < n; i++) {
		if (perm[i] < 0 || perm[i] >= n || seen[perm[i]])
			return ib_fail(c->b, "perm is not a permutation of 0..%d", n - 1);
		seen[perm[i]] = true;
		o.dim[i] = xs.dim[perm[i]];
	}
	if (c->in[0]->c) {
		const cval *x = c->in[0]->c;
		cval *r = cval_new(x->dt, &o);
		int64_t st[IR_MAX_RANK], acc = 1;
		for (int i = n - 1; i >= 0; i--)
			st[i] = acc, acc *= xs.dim[i];
		for (int64_t k = 0; r && k < r->n; k++) {
			int64_t rem = k, src = 0;
			for (int i = n - 1; i >= 0; i--) {
				src += (rem % o.dim[i]) * st[perm[i]];
				rem /= o.dim[i];
			}
			r->v[k] = x->v[src];
		}
		return put_cst(c, 0, r);
	}
	return transpose(c, tin(c, 0), perm, n, IR_LAYOUT_NONE, NULL, tout(c, 0)) < 0 ? -1 : 0;
}

/* Concatenate inputs [from, to) along axis into output 0. */
static int concat(cx *c, int from, int to, int64_t axis64)
{
	if (to <= from)
		return ib_fail(c->b, "nothing to concatenate");
	ir_shape s0 = vshape(c, c->in[from]);
	int a = norm_axis(c, axis64, s0.rank);
	if (a < 0)
		return -1;
	bool all = true;
	ir_shape o = s0;
	o.dim[a] = 0;
	for (int i = from; i < to; i++) {
		ir_shape s = vshape(c, c->in[i]);
		all &= c->in[i]->c != NULL;
		if (s.rank != s0.rank)
			return ib_fail(c->b, "inputs differ in rank");
		for (int k = 0; k < s.rank; k++)
			if (k != a && s.dim[k] != s0.dim[k])
				return ib_fail(c->b, "inputs differ in shape outside the concatenation axis");
		o.dim[a] += s.dim[a];
	}
	if (all) {
		cval *r = cval_new(c->in[from]->c->dt, &o);
		int64_t outer = 1, inner = 1;
		for (int i = 0; i < a; i++)
			outer *= o.dim[i];
		for (int i = a + 1; i < o.rank; i++)
			inner *= o.dim[i];
		int64_t pos = 0;
		for (int64_t q = 0; r && q < outer; q++)
			for (int i = from; i < to; i++) {
				const cval *x = c->in[i]->c;
				int64_t len = x->s.dim[a] * inner;
				memcpy(r->v + pos, x->v + q * len, sizeof(double) * (size_t)len);
				pos += len;
			}
		return put_cst(c, 0, r);
	}
	int ins[64];
	for (int i = from; i < to; i++)
		ins[i - from] = tin(c, i);
	int n = emit_out0(c, IR_OP_CONCAT, ins, to - from);
	ib_set_i(c->b, n, "axis", a);
	return ib_done(c->b, n);
}

static int cv_concat(cx *c)
{
	bool v2 = strcmp(c->b->op, "Concat") != 0;
	const cval *ax = need_cst(c, v2 ? c->nin - 1 : 0, "axis");
	NEED(ax);
	if (ax->n != 1)
		return ib_fail(c->b, "axis must be a scalar");
	return v2 ? concat(c, 0, c->nin - 1, ib_f2i(ax->v[0])) : concat(c, 1, c->nin, ib_f2i(ax->v[0]));
}

static int cv_pack(cx *c)
{
	if (c->nin < 1 || c->nin > 64)
		return ib_fail(c->b, "bad number of inputs");
	ir_shape s = vshape(c, c->in[0]);
	int a = norm_axis(c, a_int(c, "axis", 0), s.rank + 1), n = c->nin;
	if (a < 0 || s.rank >= IR_MAX_RANK)
		return -1;
	int64_t outer = 1, inner = 1;
	for (int i = 0; i < s.rank; i++)
		*(i < a ? &outer : &inner) *= s.dim[i];
	ir_shape e = s, o;
	memmove(&e.dim[a + 1], &e.dim[a], sizeof(int64_t) * (size_t)(s.rank - a));
	e.dim[a] = 1;
	e.rank++;
	o = e;
	o.dim[a] = n;
	bool all = true;
	for (int i = 0; i < n; i++) {
		all &= c->in[i]->c != NULL;
		ir_shape si = vshape(c, c->in[i]);
		if (!ir_shape_equal(&si, &s))
			return ib_fail(c->b, "inputs differ in shape");
	}
	if (all) {
		cval *r = cval_new(c->in[0]->c->dt, &o);
		for (int64_t q = 0; r && q < outer; q++)
			for (int i = 0; i < n; i++)
				memcpy(r->v + (q * n + i) * inner, c->in[i]->c->v + q * inner, sizeof(double) * (size_t)inner);
		return put_cst(c, 0, r);
	}
	int ins[64];
	for (int i = 0; i < n; i++) {
		const cval *x = c->in[i]->c;
		if (x) {
			cval *r = cval_new(x->dt, &e);
			if (r)
				memcpy(r->v, x->v, sizeof(double) * (size_t)(x->n ? x->n : 1));
			ins[i] = tconst(c, ib_fmt(c->b, "in%d", i), r);
		} else {
			ins[i] = reshape(c, tin(c, i), &e, ib_fmt(c->b, "expand%d", i), -1);
		}
		if (ins[i] < 0)
			return -1;
	}
	int nd = emit_out0(c, IR_OP_CONCAT, ins, n);
	ib_set_i(c->b, nd, "axis", a);
	return ib_done(c->b, nd);
}

/* Split input x along axis into sizes[0..n) as outputs 0..n-1 (squeezing
 * the axis when squeeze is set: Unpack). */
static int split(cx *c, int xi, int axis, const int64_t *sizes, int n, bool squeeze)
{
	ir_shape xs = vshape(c, c->in[xi]);
	if (n > c->nout || n < 1)
		return ib_fail(c->b, "%d outputs expected", n);
	if (c->in[xi]->c) {
		const cval *x = c->in[xi]->c;
		int64_t outer = 1, inner = 1, off = 0;
		for (int i = 0; i < xs.rank; i++)
			if (i != axis)
				*(i < axis ? &outer : &inner) *= xs.dim[i];
		for (int k = 0; k < n; k++) {
			ir_shape s = xs;
			s.dim[axis] = sizes[k];
			if (squeeze) {
				memmove(&s.dim[axis], &s.dim[axis + 1], sizeof(int64_t) * (size_t)(s.rank - axis - 1));
				s.rank--;
			}
			cval *r = cval_new(x->dt, &s);
			for (int64_t q = 0; r && q < outer; q++)
				memcpy(r->v + q * sizes[k] * inner, x->v + (q * xs.dim[axis] + off) * inner,
				       sizeof(double) * (size_t)(sizes[k] * inner));
			off += sizes[k];
			TRY(put_cst(c, k, r));
		}
		return 0;
	}
	int x = tin(c, xi), outs[1024];
	for (int k = 0; k < n; k++)
		outs[k] = squeeze ? ib_tmp(c->b, ib_fmt(c->b, "part%d", k)) : tout(c, k);
	int nd = emit(c, squeeze ? "split" : NULL, IR_OP_SPLIT, &x, 1, outs, n);
	ib_set_i(c->b, nd, "axis", axis);
	ib_set_is(c->b, nd, "split", sizes, n);
	TRY(ib_done(c->b, nd));
	if (squeeze) {
		ir_shape s = xs;
		memmove(&s.dim[axis], &s.dim[axis + 1], sizeof(int64_t) * (size_t)(s.rank - axis - 1));
		s.rank--;
		for (int k = 0; k < n; k++)
			if (reshape(c, outs[k], &s, NULL, tout(c, k)) < 0)
				return -1;
	}
	return 0;
}

static int cv_unpack(cx *c)
{
	ir_shape xs = vshape(c, c->in[0]);
	int a = norm_axis(c, a_int(c, "axis", 0), xs.rank);
	if (a < 0)
		return -1;
	int n = (int)a_int(c, "num", xs.dim[a]);
	if (n != xs.dim[a] || n > 1024)
		return ib_fail(c->b, "num %d does not match dimension %lld", n, (long long)xs.dim[a]);
	int64_t sizes[1024];
	for (int k = 0; k < n; k++)
		sizes[k] = 1;
	return split(c, 0, a, sizes, n, true);
}

static int cv_split(cx *c)
{
	bool v = !strcmp(c->b->op, "SplitV");
	int xi = v ? 0 : 1;
	const cval *ax = need_cst(c, v ? 2 : 0, "axis");
	NEED(ax);
	ir_shape xs = vshape(c, c->in[xi]);
	int a = ax->n == 1 ? norm_axis(c, ib_f2i(ax->v[0]), xs.rank) : ib_fail(c->b, "axis must be a scalar");
	if (a < 0)
		return -1;
	int64_t sizes[1024];
	int n = (int)a_int(c, "num_split", 1);
	if (v) {
		const cval *sz = need_cst(c, 1, "size_splits");
		NEED(sz);
		n = cst_ints(c, sz, sizes, 1024, "size_splits");
		if (n < 0)
			return -1;
		int64_t sum = 0;
		int neg = -1;
		for (int k = 0; k < n; k++)
			if (sizes[k] == -1)
				neg = k;
			else
				sum += sizes[k];
		if (neg >= 0)
			sizes[neg] = xs.dim[a] - sum;
	} else {
		if (n < 1 || n > 1024 || xs.dim[a] % n)
			return ib_fail(c->b, "dimension %lld does not split into %d", (long long)xs.dim[a], n);
		for (int k = 0; k < n; k++)
			sizes[k] = xs.dim[a] / n;
	}
	return split(c, xi, a, sizes, n, false);
}

/* ---------------------------------------------------------------- slicing and padding */

/* A slice: per input axis first element, count and step; then the output
 * shape after shrinking and new axes. */
typedef struct {
	int64_t first[IR_MAX_RANK], count[IR_MAX_RANK], step[IR_MAX_RANK];
	ir_shape out;
} slice_plan;

static int slice_apply(cx *c, const slice_plan *p)
{
	ir_shape xs = vshape(c, c->in[0]);
	if (c->in[0]->c) {
		const cval *x = c->in[0]->c;
		cval *r = cval_new(x->dt, &p->out);
		int64_t st[IR_MAX_RANK], acc = 1;
		for (int i = xs.rank - 1; i >= 0; i--)
			st[i] = acc, acc *= xs.dim[i];
		for (int64_t k = 0; r && k < r->n; k++) {
			int64_t rem = k, src = 0;
			for (int i = xs.rank - 1; i >= 0; i--) {
				int64_t pos = p->count[i] ? rem % p->count[i] : 0;
				rem = p->count[i] ? rem / p->count[i] : 0;
				src += (p->first[i] + pos * p->step[i]) * st[i];
			}
			r->v[k] = x->v[src];
		}
		return put_cst(c, 0, r);
	}
	int64_t starts[IR_MAX_RANK], ends[IR_MAX_RANK], axes[IR_MAX_RANK], steps[IR_MAX_RANK];
	int n = 0;
	ir_shape mid = xs;
	for (int i = 0; i < xs.rank; i++) {
		mid.dim[i] = p->count[i];
		if (p->first[i] == 0 && p->step[i] == 1 && p->count[i] == xs.dim[i])
			continue;
		starts[n] = p->first[i];
		int64_t e = p->first[i] + p->count[i] * p->step[i];
		ends[n] = e < 0 ? -IR_MAX_DIM - 1 : e;	/* past the front, for negative steps */
		axes[n] = i;
		steps[n++] = p->step[i];
	}
	int x = tin(c, 0);
	bool same = ir_shape_equal(&mid, &p->out);
	if (n == 0)
		return same ? (cv_identity(c), 0) : (reshape(c, x, &p->out, NULL, tout(c, 0)) < 0 ? -1 : 0);
	int t = same ? tout(c, 0) : ib_tmp(c->b, "slice");
	int nd = emit(c, same ? NULL : "slice", IR_OP_SLICE, &x, 1, &t, 1);
	ib_set_is(c->b, nd, "starts", starts, n);
	ib_set_is(c->b, nd, "ends", ends, n);
	ib_set_is(c->b, nd, "axes", axes, n);
	ib_set_is(c->b, nd, "steps", steps, n);
	TRY(ib_done(c->b, nd));
	return same ? 0 : reshape(c, t, &p->out, NULL, tout(c, 0)) < 0 ? -1 : 0;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static int cv_strided_slice(cx *c)
{
	const cval *bc = need_cst(c, 1, "begin"), *ec = need_cst(c, 2, "end"), *sc = need_cst(c, 3, "strides");
	NEED(bc && ec && sc);
	int64_t b[IR_MAX_RANK * 2], e[IR_MAX_RANK * 2], s[IR_MAX_RANK * 2];
	int nb = cst_ints(c, bc, b, 2 * IR_MAX_RANK, "begin"), ne = cst_ints(c, ec, e, 2 * IR_MAX_RANK, "end"),
	    ns = cst_ints(c, sc, s, 2 * IR_MAX_RANK, "strides");
	if (nb < 0 || ne < 0 || ns < 0)
		return -1;
	if (nb != ne || nb != ns)
		return ib_fail(c->b, "begin, end and strides differ in length");
	int64_t bm = a_int(c, "begin_mask", 0), em = a_int(c, "end_mask", 0), elm = a_int(c, "ellipsis_mask", 0),
		nam = a_int(c, "new_axis_mask", 0), sam = a_int(c, "shrink_axis_mask", 0);
	ir_shape xs = vshape(c, c->in[0]);
	slice_plan p = {.out = {0}};
	int dim = 0;	/* input axis */
	for (int i = 0; i < nb; i++) {
		if (elm >> i & 1) {
			int after = 0;
			for (int j = i + 1; j < nb; j++)
				after += !(nam >> j & 1);
			for (; dim < xs.rank - after; dim++) {
				if (p.out.rank >= IR_MAX_RANK)
					return ib_fail(c->b, "rank too large");
				p.first[dim] = 0, p.count[dim] = xs.dim[dim], p.step[dim] = 1;
				p.out.dim[p.out.rank++] = xs.dim[dim];
			}
			continue;
		}
		if (nam >> i & 1) {
			if (p.out.rank >= IR_MAX_RANK)
				return ib_fail(c->b, "rank too large");
			p.out.dim[p.out.rank++] = 1;
			continue;
		}
		if (dim >= xs.rank)
			return ib_fail(c->b, "slice has more axes than the input");
		int64_t d = xs.dim[dim], st = s[i];
		if (st == 0)
			return ib_fail(c->b, "stride 0");
		if (sam >> i & 1) {
			int64_t k = b[i] < 0 ? b[i] + d : b[i];
			if (k < 0 || k >= d)
				return ib_fail(c->b, "index %lld out of range", (long long)b[i]);
			p.first[dim] = k, p.count[dim] = 1, p.step[dim] = 1;
			dim++;
			continue;
		}
		int64_t lo = st > 0 ? 0 : -1, hi = st > 0 ? d : d - 1, beg, end;
		if (bm >> i & 1)
			beg = st > 0 ? lo : hi;
		else
			beg = clamp64(b[i] < 0 ? b[i] + d : b[i], lo, hi);
		if (em >> i & 1)
			end = st > 0 ? hi : lo;
		else
			end = clamp64(e[i] < 0 ? e[i] + d : e[i], lo, hi);
		int64_t cnt = st > 0 ? (end > beg ? (end - beg + st - 1) / st : 0) : (beg > end ? (beg - end - st - 1) / -st : 0);
		p.first[dim] = cnt ? beg : 0, p.count[dim] = cnt, p.step[dim] = st;
		if (p.out.rank >= IR_MAX_RANK)
			return ib_fail(c->b, "rank too large");
		p.out.dim[p.out.rank++] = cnt;
		dim++;
	}
	for (; dim < xs.rank; dim++) {
		p.first[dim] = 0, p.count[dim] = xs.dim[dim], p.step[dim] = 1;
		if (p.out.rank >= IR_MAX_RANK)
			return ib_fail(c->b, "rank too large");
		p.out.dim[p.out.rank++] = xs.dim[dim];
	}
	return slice_apply(c, &p);
}

static int cv_slice(cx *c)
{
	const cval *bc = need_cst(c, 1, "begin"), *sc = need_cst(c, 2, "size");
	NEED(bc && sc);
	ir_shape xs = vshape(c, c->in[0]);
	int64_t b[IR_MAX_RANK], s[IR_MAX_RANK];
	int nb = cst_ints(c, bc, b, IR_MAX_RANK, "begin"), ns = cst_ints(c, sc, s, IR_MAX_RANK, "size");
	if (nb < 0 || ns < 0)
		return -1;
	if (nb != xs.rank || ns != xs.rank)
		return ib_fail(c->b, "begin and size must have %d values", xs.rank);
	slice_plan p = {.out = xs};
	for (int i = 0; i < xs.rank; i++) {
		int64_t cnt = s[i] == -1 ? xs.dim[i] - b[i] : s[i];
		if (b[i] < 0 || cnt < 0 || b[i] + cnt > xs.dim[i])
			return ib_fail(c->b, "slice out of range on axis %d", i);
		p.first[i] = b[i], p.count[i] = cnt, p.step[i] = 1, p.out.dim[i] = cnt;
	}
	return slice_apply(c, &p);
}

static int cv_pad(cx *c)
{
	const cval *pc = need_cst(c, 1, "paddings");
	NEED(pc);
	ir_shape xs = vshape(c, c->in[0]);
	if (pc->s.rank != 2 || pc->s.dim[0] != xs.rank || pc->s.dim[1] != 2 || !ib_dtype_is_int(pc->dt))
		return ib_fail(c->b, "paddings must be %dx2 integers", xs.rank);
	int64_t pads[2 * IR_MAX_RANK];
	for (int i = 0; i < xs.rank; i++) {
		pads[i] = ib_f2i(pc->v[2 * i]);
		pads[xs.rank + i] = ib_f2i(pc->v[2 * i + 1]);
	}
	const char *mode = "constant";
	double value = 0;
	if (!strcmp(c->b->op, "MirrorPad")) {
		const char *m = a_str(c, "mode", "REFLECT");
		if (strcmp(m, "REFLECT"))
			return ib_unsup(c->b, "mode %s (only REFLECT)", m);
		mode = "reflect";
	} else if (!strcmp(c->b->op, "PadV2")) {
		const cval *v = need_cst(c, 2, "constant_values");
		NEED(v);
		value = v->v[0];
	}
	int x = tin(c, 0);
	int n = emit_out0(c, IR_OP_PAD, &x, 1);
	ib_set_is(c->b, n, "pads", pads, 2 * xs.rank);
	ib_set_s(c->b, n, "mode", mode);
	if (value != 0)
		ib_set_f(c->b, n, "value", value);
	return ib_done(c->b, n);
}

/* ---------------------------------------------------------------- fused ops
 *
 * Grappler's remapper and the TensorFlow.js converter fold what follows a
 * convolution or matrix product into the node: _FusedConv2D,
 * FusedDepthwiseConv2dNative and _FusedMatMul carry fused_ops (BiasAdd or
 * FusedBatchNorm, then an activation, or Add of a side input) whose extra
 * inputs ("args") follow the two operands in order. They become the plain
 * IR nodes again (the bias as the convolution's bias input), which npu-fuse
 * fuses for the target. */

typedef struct {
	int op;		/* IR op */
	int arg;	/* first extra input it reads, -1: none */
	double alpha;	/* leaky_relu */
	const char *what;
} fstep;

typedef struct {
	int bias;	/* input index of a leading BiasAdd's bias, -1: none */
	fstep s[8];
	int n;
	double eps;
} fusion;

static int parse_fused(cx *c, fusion *f)
{
	const NpuTf__AttrValue *a = attr(c, "fused_ops");
	int next = 2;	/* extra inputs follow the two operands */
	bool matmul = strstr(c->b->op, "MatMul") != NULL;
	f->bias = -1;
	f->n = 0;
	f->eps = a_float(c, "epsilon", 1e-4);
	size_t n = a && a->value_case == NPU_TF__ATTR_VALUE__VALUE_LIST && a->list ? a->list->n_s : 0;
	if (n > 8)
		return ib_fail(c->b, "%zu fused ops", n);
	for (size_t i = 0; i < n; i++) {
		const ProtobufCBinaryData *b = &a->list->s[i];
		char op[40];
		snprintf(op, sizeof op, "%.*s", (int)(b->len < 39 ? b->len : 39), b->data ? (const char *)b->data : "");
		static const struct { const char *tf; int op, args; } t[] = {
			{"Relu", IR_OP_RELU, 0}, {"Relu6", IR_OP_RELU6, 0}, {"Elu", IR_OP_ELU, 0},
			{"Sigmoid", IR_OP_SIGMOID, 0}, {"Tanh", IR_OP_TANH, 0}, {"LeakyRelu", IR_OP_LEAKY_RELU, 0},
			{"Prelu", IR_OP_PRELU, 1}, {"GeluApproximate", IR_OP_GELU, 0}, {"GeluExact", IR_OP_GELU, 0},
			{"Add", IR_OP_ADD, 1}, {"FusedBatchNorm", IR_OP_BATCH_NORM, 4}, {"BiasAdd", IR_OP_ADD, 1}};
		int k = -1;
		for (int j = 0; j < (int)(sizeof t / sizeof t[0]); j++)
			if (!strcmp(t[j].tf, op))
				k = j;
		if (k < 0)
			return ib_unsup(c->b, "fused op '%s'", op);
		if (next + t[k].args > c->nin)
			return ib_fail(c->b, "fused op %s needs %d more input%s", op, t[k].args, t[k].args == 1 ? "" : "s");
		if (!strcmp(op, "BiasAdd") && i == 0 && !matmul) {
			f->bias = next++;
			continue;
		}
		if (t[k].op == IR_OP_BATCH_NORM && matmul)
			return ib_unsup(c->b, "fused op FusedBatchNorm after a matrix product");
		fstep *st = &f->s[f->n++];
		st->op = t[k].op;
		st->arg = t[k].args ? next : -1;
		st->alpha = t[k].op == IR_OP_LEAKY_RELU ? a_float(c, "leakyrelu_alpha", 0.2) : 0;
		st->what = t[k].tf;
		next += t[k].args;
	}
	int64_t na = a_int(c, "num_args", next - 2);
	if (na != next - 2 || next != c->nin)
		return ib_fail(c->b, "fused_ops read %d extra inputs, the node has %d (num_args %lld)", next - 2, c->nin - 2,
			     (long long)na);
	return 0;
}

/* Extra input i for an NCHW result: NHWC-broadcast values moved to NCHW
 * (a constant at import, else a reshape and a transpose). */
static int nchw_operand(cx *c, int i, const char *suffix)
{
	ir_shape s = vshape(c, c->in[i]), s4 = {.rank = 4, .dim = {1, 1, 1, 1}};
	if (s.rank > 4)
		return ib_fail(c->b, "input %d has rank %d", i, s.rank);
	for (int k = 0; k < s.rank; k++)
		s4.dim[4 - s.rank + k] = s.dim[k];
	static const int64_t perm[4] = {0, 3, 1, 2};
	const cval *v = c->in[i]->c;
	if (v) {
		ir_shape o = {.rank = 4, .dim = {s4.dim[0], s4.dim[3], s4.dim[1], s4.dim[2]}};
		cval *r = cval_new(v->dt, &o);
		for (int64_t n = 0; r && n < s4.dim[0]; n++)
			for (int64_t h = 0; h < s4.dim[1]; h++)
				for (int64_t w = 0; w < s4.dim[2]; w++)
					for (int64_t ch = 0; ch < s4.dim[3]; ch++)
						r->v[((n * s4.dim[3] + ch) * s4.dim[1] + h) * s4.dim[2] + w] =
							v->v[((n * s4.dim[1] + h) * s4.dim[2] + w) * s4.dim[3] + ch];
		return tconst(c, suffix, r);
	}
	int x = tin(c, i);
	if (s.rank != 4)
		x = reshape(c, x, &s4, ib_fmt(c->b, "%s_4d", suffix), -1);
	return transpose(c, x, perm, 4, IR_LAYOUT_NCHW, suffix, -1);
}

/* The fused steps after the IR node that made t; the last writes out (or a
 * temporary when out is -1). nchw_result: t is the NCHW result of an NHWC
 * node, so extra inputs are moved to NCHW. Returns the result tensor. */
static int epilogue(cx *c, const fusion *f, int t, bool nchw_result, int out)
{
	for (int i = 0; i < f->n && t >= 0; i++) {
		const fstep *st = &f->s[i];
		bool last = i == f->n - 1 && out >= 0;
		char sfx[48];
		snprintf(sfx, sizeof sfx, "%s%d", st->what, i);
		int in[5] = {t, -1, -1, -1, -1}, nin = 1;
		if (st->op == IR_OP_BATCH_NORM) {
			for (int k = 0; k < 4; k++)
				in[1 + k] = tin(c, st->arg + k);
			nin = 5;
		} else if (st->arg >= 0) {
			in[1] = nchw_result ? nchw_operand(c, st->arg, ib_fmt(c->b, "%s_nchw", sfx)) : tin(c, st->arg);
			nin = 2;
		}
		int o = last ? out : ib_tmp(c->b, sfx);
		if (nchw_result && o >= 0)
			ir_graph_tensor(c->b->g, o)->layout = IR_LAYOUT_NCHW;
		int n = emit(c, last ? NULL : sfx, st->op, in, nin, &o, 1);
		if (st->op == IR_OP_LEAKY_RELU)
			ib_set_f(c->b, n, "alpha", st->alpha);
		if (st->op == IR_OP_ELU)
			ib_set_f(c->b, n, "alpha", 1.0);
		if (st->op == IR_OP_GELU)
			ib_set_s(c->b, n, "approximate", !strcmp(st->what, "GeluApproximate") ? "tanh" : "none");
		if (st->op == IR_OP_BATCH_NORM)
			ib_set_f(c->b, n, "epsilon", f->eps);
		if (ib_done(c->b, n))
			return -1;
		t = o;
	}
	return t;
}

/* ---------------------------------------------------------------- linear algebra */

/* Tensor for input i with its last two axes swapped (constants at import). */
static int swap_last2(cx *c, int i, const char *suffix)
{
	ir_shape s = vshape(c, c->in[i]);
	int r = s.rank;
	if (r < 2) {
		ib_fail(c->b, "input %d has rank %d, expected at least 2", i, r);
		return -1;
	}
	int64_t perm[IR_MAX_RANK];
	for (int k = 0; k < r; k++)
		perm[k] = k;
	perm[r - 2] = r - 1, perm[r - 1] = r - 2;
	const cval *x = c->in[i]->c;
	if (x) {
		ir_shape o = s;
		o.dim[r - 2] = s.dim[r - 1], o.dim[r - 1] = s.dim[r - 2];
		cval *t = cval_new(x->dt, &o);
		int64_t m = s.dim[r - 2], n = s.dim[r - 1], batch = m > 0 && n > 0 ? x->n / (m * n) : 0;
		for (int64_t b = 0; t && b < batch; b++)
			for (int64_t p = 0; p < m; p++)
				for (int64_t q = 0; q < n; q++)
					t->v[b * m * n + q * m + p] = x->v[b * m * n + p * n + q];
		return tconst(c, suffix, t);
	}
	return transpose(c, tin(c, i), perm, r, IR_LAYOUT_NONE, suffix, -1);
}

static int cv_matmul(cx *c)
{
	bool batch = strncmp(c->b->op, "BatchMatMul", 11) == 0;
	fusion f = {.bias = -1};
	if (!strcmp(c->b->op, "_FusedMatMul"))
		TRY(parse_fused(c, &f));
	bool ta = a_bool(c, batch ? "adj_x" : "transpose_a", false), tb = a_bool(c, batch ? "adj_y" : "transpose_b", false);
	int a = ta ? swap_last2(c, 0, "a_t") : tin(c, 0);
	int b = tb ? swap_last2(c, 1, "b_t") : tin(c, 1);
	int in[2] = {a, b};
	if (f.n == 0)
		return ib_done(c->b, emit_out0(c, IR_OP_MATMUL, in, 2));
	int t = ib_tmp(c->b, "matmul");
	int n = emit(c, "matmul", IR_OP_MATMUL, in, 2, &t, 1);
	TRY(ib_done(c->b, n));
	return epilogue(c, &f, t, false, tout(c, 0)) < 0 ? -1 : 0;
}

static bool nchw_format(cx *c)
{
	const char *f = a_str(c, "data_format", "NHWC");
	return !strcmp(f, "NCHW") || !strcmp(f, "NCW") || !strcmp(f, "NCDHW");
}

static int cv_bias_add(cx *c)
{
	ir_shape xs = vshape(c, c->in[0]), bs = vshape(c, c->in[1]);
	int in[2] = {tin(c, 0), -1};
	if (bs.rank != 1)
		return ib_fail(c->b, "bias must be a vector");
	if (nchw_format(c) && xs.rank > 2) {
		ir_shape s = {.rank = xs.rank - 1, .dim = {bs.dim[0]}};
		for (int i = 1; i < s.rank; i++)
			s.dim[i] = 1;
		const cval *b = c->in[1]->c;
		if (b) {
			cval *r = cval_new(b->dt, &s);
			if (r)
				memcpy(r->v, b->v, sizeof(double) * (size_t)(b->n ? b->n : 1));
			in[1] = tconst(c, "bias", r);
		} else {
			in[1] = reshape(c, tin(c, 1), &s, "bias", -1);
		}
	} else {
		in[1] = tin(c, 1);
	}
	return ib_done(c->b, emit_out0(c, IR_OP_ADD, in, 2));
}

/* ---------------------------------------------------------------- convolution and pooling */

/* Pads of one spatial axis for TF's SAME/VALID (less at the front). */
static void same_pads(bool same, int64_t in, int64_t k, int64_t st, int64_t dil, int64_t *pb, int64_t *pe)
{
	int64_t total = 0;
	if (same) {
		int64_t out = (in + st - 1) / st, span = (k - 1) * dil + 1;
		total = (out - 1) * st + span - in;
		if (total < 0)
			total = 0;
	}
	*pb = total / 2;
	*pe = total - *pb;
}

/* Input 0 as NCHW for a channel-first kernel: a transpose for NHWC. */
static int to_nchw(cx *c, bool nchw)
{
	int x = tin(c, 0);
	if (nchw)
		return with_layout(c, x, IR_LAYOUT_NCHW, "nchw_in");
	static const int64_t perm[4] = {0, 3, 1, 2};
	return transpose(c, x, perm, 4, IR_LAYOUT_NCHW, "to_nchw", -1);
}

/* Output 0 from an NCHW result: a transpose back for NHWC. */
static int from_nchw(cx *c, bool nchw, int n, int t)
{
	TRY(ib_done(c->b, n));
	if (nchw)
		return 0;
	static const int64_t perm[4] = {0, 2, 3, 1};
	return transpose(c, t, perm, 4, IR_LAYOUT_NHWC, NULL, tout(c, 0)) < 0 ? -1 : 0;
}

/* 4 values of an NHWC/NCHW list attribute as (h, w). */
static int hw_attr(cx *c, const char *key, bool nchw, int64_t def, int64_t *hw)
{
	const int64_t *v;
	int n = a_ints(c, key, &v);
	hw[0] = hw[1] = def;
	if (n < 0)
		return 0;
	if (n == 4) {
		hw[0] = v[nchw ? 2 : 1], hw[1] = v[nchw ? 3 : 2];
		if ((v[0] != 1 || v[nchw ? 1 : 3] != 1) && def == 1)
			return ib_unsup(c->b, "'%s' on the batch or channel axis", key);
	} else if (n == 2) {
		hw[0] = v[0], hw[1] = v[1];
	} else if (n == 1) {
		hw[0] = hw[1] = v[0];
	} else {
		return ib_fail(c->b, "attribute '%s' has %d values", key, n);
	}
	for (int i = 0; i < 2; i++)
		if (hw[i] < 1 || hw[i] > IR_MAX_DIM)
			return ib_fail(c->b, "attribute '%s' out of range", key);
	return 0;
}

static int padding(cx *c, bool nchw, const int64_t *in, const int64_t *k, const int64_t *st,
		   const int64_t *dil, int64_t *pads)
{
	const char *p = a_str(c, "padding", "VALID");
	if (!strcmp(p, "EXPLICIT")) {
		const int64_t *v;
		if (a_ints(c, "explicit_paddings", &v) != 8)
			return ib_fail(c->b, "explicit_paddings must have 8 values");
		int h = nchw ? 2 : 1;
		pads[0] = v[2 * h], pads[2] = v[2 * h + 1], pads[1] = v[2 * h + 2], pads[3] = v[2 * h + 3];
		return 0;
	}
	if (strcmp(p, "SAME") && strcmp(p, "VALID"))
		return ib_fail(c->b, "padding '%s' is not SAME, VALID or EXPLICIT", p);
	for (int i = 0; i < 2; i++)
		same_pads(!strcmp(p, "SAME"), in[i], k[i], st[i], dil[i], &pads[i], &pads[2 + i]);
	return 0;
}

static int cv_conv(cx *c)
{
	bool dw = strstr(c->b->op, "DepthwiseConv2dNative") != NULL, nchw = nchw_format(c);
	fusion f_ops = {.bias = -1};
	if (c->b->op[0] == '_' || !strncmp(c->b->op, "Fused", 5))
		TRY(parse_fused(c, &f_ops));
	ir_shape xs = vshape(c, c->in[0]), ws = vshape(c, c->in[1]);
	if (xs.rank != 4 || ws.rank != 4)
		return ib_unsup(c->b, "input rank %d, filter rank %d (4 expected)", xs.rank, ws.rank);
	int64_t st[2], dil[2], pads[4], in[2] = {xs.dim[nchw ? 2 : 1], xs.dim[nchw ? 3 : 2]}, k[2] = {ws.dim[0], ws.dim[1]};
	TRY(hw_attr(c, "strides", nchw, 1, st));
	TRY(hw_attr(c, "dilations", nchw, 1, dil));
	TRY(padding(c, nchw, in, k, st, dil, pads));
	int64_t C = xs.dim[nchw ? 1 : 3], I = ws.dim[2], M = ws.dim[3];
	/* filter HWIO (depthwise HWCM) to OIHW ([C*M, 1, H, W]) */
	int w;
	static const int64_t perm[4] = {3, 2, 0, 1}, dperm[4] = {2, 3, 0, 1};
	const cval *f = c->in[1]->c;
	if (f) {
		ir_shape o = dw ? (ir_shape){.rank = 4, .dim = {I * M, 1, k[0], k[1]}}
				: (ir_shape){.rank = 4, .dim = {M, I, k[0], k[1]}};
		cval *r = cval_new(f->dt, &o);
		for (int64_t h = 0; r && h < k[0]; h++)
			for (int64_t x = 0; x < k[1]; x++)
				for (int64_t i = 0; i < I; i++)
					for (int64_t m = 0; m < M; m++) {
						double v = f->v[((h * k[1] + x) * I + i) * M + m];
						int64_t dst = dw ? (((i * M + m) * k[0] + h) * k[1] + x)
								 : (((m * I + i) * k[0] + h) * k[1] + x);
						r->v[dst] = v;
					}
		w = tconst(c, "weights", r);
	} else {
		w = transpose(c, tin(c, 1), dw ? dperm : perm, 4, IR_LAYOUT_NONE, "weights", -1);
		if (dw && w >= 0)
			w = reshape(c, w, &(ir_shape){.rank = 4, .dim = {I * M, 1, k[0], k[1]}}, "weights_2d", -1);
	}
	int x = to_nchw(c, nchw);
	int in3[3] = {x, w, f_ops.bias >= 0 ? tin(c, f_ops.bias) : -1};
	bool direct = nchw && f_ops.n == 0;
	int t = direct ? tout(c, 0) : ib_tmp(c->b, "nchw");
	int n = emit(c, direct ? NULL : "conv", IR_OP_CONV, in3, f_ops.bias >= 0 ? 3 : 2, &t, 1);
	int64_t pp[4] = {pads[0], pads[1], pads[2], pads[3]};
	ib_set_is(c->b, n, "strides", st, 2);
	ib_set_is(c->b, n, "dilations", dil, 2);
	ib_set_is(c->b, n, "pads", pp, 4);
	ib_set_i(c->b, n, "group", dw ? C : (I ? C / I : 1));
	TRY(ib_done(c->b, n));
	if (f_ops.n && (t = epilogue(c, &f_ops, t, !nchw, nchw ? tout(c, 0) : -1)) < 0)
		return -1;
	if (nchw)
		return 0;
	static const int64_t back[4] = {0, 2, 3, 1};
	return transpose(c, t, back, 4, IR_LAYOUT_NHWC, NULL, tout(c, 0)) < 0 ? -1 : 0;
}

static int cv_conv_backprop_input(cx *c)
{
	bool nchw = nchw_format(c);
	const cval *sz = need_cst(c, 0, "input_sizes"), *f = need_cst(c, 1, "filter");
	NEED(sz && f);
	int64_t os[4];
	if (cst_ints(c, sz, os, 4, "input_sizes") != 4 || f->s.rank != 4)
		return ib_fail(c->b, "input_sizes must have 4 values and the filter rank 4");
	val *dy = c->in[2];
	c->in[2] = c->in[0];
	c->in[0] = dy;	/* to_nchw reads input 0 */
	ir_shape xs = vshape(c, dy);
	if (xs.rank != 4)
		return ib_fail(c->b, "out_backprop must have rank 4");
	int64_t st[2], dil[2], pads[4], k[2] = {f->s.dim[0], f->s.dim[1]};
	int64_t out[2] = {os[nchw ? 2 : 1], os[nchw ? 3 : 2]}, in[2] = {xs.dim[nchw ? 2 : 1], xs.dim[nchw ? 3 : 2]};
	TRY(hw_attr(c, "strides", nchw, 1, st));
	TRY(hw_attr(c, "dilations", nchw, 1, dil));
	TRY(padding(c, nchw, out, k, st, dil, pads));
	int64_t opad[2];
	for (int i = 0; i < 2; i++) {
		int64_t full = st[i] * (in[i] - 1) + (k[i] - 1) * dil[i] + 1 - pads[i] - pads[2 + i];
		opad[i] = out[i] - full;
		if (opad[i] < 0) {	/* VALID with a larger stride: cut at the end */
			pads[2 + i] -= opad[i];
			opad[i] = 0;
		}
	}
	/* filter H W O I -> I O H W (conv_transpose weights: [in, out, kh, kw]) */
	int64_t O = f->s.dim[2], I = f->s.dim[3];
	cval *r = cval_new(f->dt, &(ir_shape){.rank = 4, .dim = {I, O, k[0], k[1]}});
	for (int64_t h = 0; r && h < k[0]; h++)
		for (int64_t x = 0; x < k[1]; x++)
			for (int64_t o = 0; o < O; o++)
				for (int64_t i = 0; i < I; i++)
					r->v[((i * O + o) * k[0] + h) * k[1] + x] = f->v[((h * k[1] + x) * O + o) * I + i];
	int w = tconst(c, "weights", r), x = to_nchw(c, nchw);
	int in2[2] = {x, w};
	int t = nchw ? tout(c, 0) : ib_tmp(c->b, "nchw");
	int n = emit(c, nchw ? NULL : "conv_transpose", IR_OP_CONV_TRANSPOSE, in2, 2, &t, 1);
	ib_set_is(c->b, n, "strides", st, 2);
	ib_set_is(c->b, n, "dilations", dil, 2);
	ib_set_is(c->b, n, "pads", pads, 4);
	ib_set_is(c->b, n, "output_padding", opad, 2);
	return from_nchw(c, nchw, n, t);
}

static int cv_pool(cx *c)
{
	bool nchw = nchw_format(c), avg = !strncmp(c->b->op, "AvgPool", 7);
	ir_shape xs = vshape(c, c->in[0]);
	if (xs.rank != 4)
		return ib_unsup(c->b, "input rank %d (4 expected)", xs.rank);
	int64_t st[2], k[2], pads[4], dil[2] = {1, 1}, in[2] = {xs.dim[nchw ? 2 : 1], xs.dim[nchw ? 3 : 2]};
	TRY(hw_attr(c, "ksize", nchw, 1, k));
	TRY(hw_attr(c, "strides", nchw, 1, st));
	TRY(padding(c, nchw, in, k, st, dil, pads));
	int x = to_nchw(c, nchw);
	int t = nchw ? tout(c, 0) : ib_tmp(c->b, "nchw");
	int n = emit(c, nchw ? NULL : "pool", avg ? IR_OP_AVG_POOL : IR_OP_MAX_POOL, &x, 1, &t, 1);
	ib_set_is(c->b, n, "kernel", k, 2);
	ib_set_is(c->b, n, "strides", st, 2);
	ib_set_is(c->b, n, "pads", pads, 4);
	if (avg)
		ib_set_i(c->b, n, "count_include_pad", 0);
	return from_nchw(c, nchw, n, t);
}

static int cv_batch_norm(cx *c)
{
	if (a_bool(c, "is_training", false))
		return ib_unsup(c->b, "is_training is set (freeze the graph for inference)");
	bool nchw = nchw_format(c);
	double eps = a_float(c, "epsilon", 1e-3);
	int x = with_layout(c, tin(c, 0), nchw ? IR_LAYOUT_NCHW : IR_LAYOUT_NHWC, nchw ? "nchw_in" : "nhwc_in");
	int in[5] = {x, tin(c, 1), tin(c, 2), tin(c, 3), tin(c, 4)};
	int n = emit_out0(c, IR_OP_BATCH_NORM, in, 5);
	ib_set_f(c->b, n, "epsilon", eps);
	return ib_done(c->b, n);
}

/* ---------------------------------------------------------------- reductions */

static int cv_reduce(cx *c)
{
	const cval *ax = need_cst(c, 1, "reduction_indices");
	NEED(ax);
	ir_shape xs = vshape(c, c->in[0]);
	int64_t axes[IR_MAX_RANK];
	int n = cst_ints(c, ax, axes, IR_MAX_RANK, "reduction_indices");
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if ((axes[i] = norm_axis(c, axes[i], xs.rank)) < 0)
			return -1;
	bool keep = a_bool(c, "keep_dims", a_bool(c, "keepdims", false));
	if (n == 0)
		return cv_identity(c);
	static const struct { const char *tf; int op; } m[] = {
		{"Mean", IR_OP_REDUCE_MEAN}, {"Sum", IR_OP_REDUCE_SUM}, {"Max", IR_OP_REDUCE_MAX}, {"Min", IR_OP_REDUCE_MIN}};
	int op = -1;
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
		if (!strcmp(m[i].tf, c->b->op))
			op = m[i].op;
	if (c->in[0]->c) {
		/* fold: walk every element into its reduced slot */
		const cval *x = c->in[0]->c;
		bool red[IR_MAX_RANK] = {0};
		for (int i = 0; i < n; i++)
			red[axes[i]] = true;
		ir_shape o = {0}, ko = xs;
		for (int i = 0; i < xs.rank; i++) {
			if (red[i])
				ko.dim[i] = 1;
			if (!red[i] || keep)
				o.dim[o.rank++] = red[i] ? 1 : xs.dim[i];
		}
		cval *r = cval_new(x->dt, &o);
		int64_t *cnt = r ? calloc((size_t)(r->n ? r->n : 1), sizeof *cnt) : NULL;
		if (r && !cnt)
			cval_free(r), r = NULL;
		for (int64_t k = 0; r && k < x->n; k++) {
			int64_t rem = k, dst = 0, mul = 1;
			for (int i = xs.rank - 1; i >= 0; i--) {
				int64_t pos = rem % xs.dim[i];
				rem /= xs.dim[i];
				dst += (red[i] ? 0 : pos) * mul;
				mul *= ko.dim[i];
			}
			double v = x->v[k], *a = &r->v[dst];
			*a = !cnt[dst] ? v : op == IR_OP_REDUCE_MAX ? fmax(*a, v) : op == IR_OP_REDUCE_MIN ? fmin(*a, v) : *a + v;
			cnt[dst]++;
		}
		for (int64_t k = 0; r && op == IR_OP_REDUCE_MEAN && k < r->n; k++)
			r->v[k] = cnt[k] ? cast_to(x->dt, r->v[k] / (double)cnt[k]) : 0;
		free(cnt);
		return put_cst(c, 0, r);
	}
	int xi = tin(c, 0);
	int nd = emit_out0(c, op, &xi, 1);
	ib_set_is(c->b, nd, "axes", axes, n);
	ib_set_i(c->b, nd, "keepdims", keep);
	return ib_done(c->b, nd);
}

static int cv_argmax(cx *c)
{
	const cval *ax = need_cst(c, 1, "dimension");
	NEED(ax);
	ir_shape xs = vshape(c, c->in[0]);
	int a = ax->n == 1 ? norm_axis(c, ib_f2i(ax->v[0]), xs.rank) : ib_fail(c->b, "dimension must be a scalar");
	if (a < 0)
		return -1;
	ir_dtype to = out_type(c, "output_type");
	int x = tin(c, 0);
	int t = to == IR_DTYPE_I64 ? tout(c, 0) : ib_tmp(c->b, "i64");
	int n = emit(c, to == IR_DTYPE_I64 ? NULL : "argmax", IR_OP_ARGMAX, &x, 1, &t, 1);
	ib_set_i(c->b, n, "axis", a);
	ib_set_i(c->b, n, "keepdims", 0);
	TRY(ib_done(c->b, n));
	if (to == IR_DTYPE_I64)
		return 0;
	int o = tout(c, 0);
	n = emit(c, NULL, IR_OP_CAST, &t, 1, &o, 1);
	ib_set_s(c->b, n, "to", ir_dtype_name(to));
	return ib_done(c->b, n);
}

/* ---------------------------------------------------------------- resizing and blocks */

static int cv_resize(cx *c)
{
	const cval *sz = need_cst(c, 1, "size");
	NEED(sz);
	ir_shape xs = vshape(c, c->in[0]);
	int64_t hw[2];
	if (cst_ints(c, sz, hw, 2, "size") != 2 || xs.rank != 4)
		return ib_fail(c->b, "size must have 2 values and the input rank 4");
	bool align = a_bool(c, "align_corners", false), half = a_bool(c, "half_pixel_centers", false);
	bool nearest = !strcmp(c->b->op, "ResizeNearestNeighbor");
	const char *ct = align ? "align_corners" : half ? (nearest ? "tf_half_pixel_for_nn" : "half_pixel") : "asymmetric";
	int64_t sizes[4] = {xs.dim[0], xs.dim[1], hw[0], hw[1]};
	int x = to_nchw(c, false);
	sizes[1] = xs.dim[3];
	int t = ib_tmp(c->b, "nchw");
	int n = emit(c, "resize", IR_OP_RESIZE, &x, 1, &t, 1);
	ib_set_is(c->b, n, "sizes", sizes, 4);
	ib_set_s(c->b, n, "mode", nearest ? "nearest" : "linear");
	ib_set_s(c->b, n, "coordinate_transformation_mode", ct);
	if (nearest)
		ib_set_s(c->b, n, "nearest_mode", align ? "round_prefer_ceil" : "floor");
	return from_nchw(c, false, n, t);
}

static int cv_batch_space(cx *c)
{
	bool to_space = !strcmp(c->b->op, "BatchToSpaceND");
	const cval *bc = need_cst(c, 1, "block_shape"), *pc = need_cst(c, 2, to_space ? "crops" : "paddings");
	NEED(bc && pc);
	ir_shape xs = vshape(c, c->in[0]);
	int64_t blk[IR_MAX_RANK], pads[2 * IR_MAX_RANK];
	int m = cst_ints(c, bc, blk, IR_MAX_RANK, "block_shape");
	if (m < 0)
		return -1;
	if (m != 2 || xs.rank != 4 || pc->n != 4)
		return ib_unsup(c->b, "only 2 spatial block dimensions of a 4-D NHWC tensor");
	if (pc->s.rank != 2 || pc->s.dim[0] != m || pc->s.dim[1] != 2 || !ib_dtype_is_int(pc->dt))
		return ib_fail(c->b, "%s must be %dx2 integers", to_space ? "crops" : "paddings", m);
	for (int i = 0; i < 2 * m; i++)	/* [begin, end] per axis, as the IR's pads/crops */
		pads[i] = ib_f2i(pc->v[i]);
	int x = with_layout(c, tin(c, 0), IR_LAYOUT_NHWC, "nhwc_in");
	int n = emit_out0(c, to_space ? IR_OP_BATCH_TO_SPACE : IR_OP_SPACE_TO_BATCH, &x, 1);
	ib_set_is(c->b, n, "block", blk, m);
	ib_set_is(c->b, n, to_space ? "crops" : "pads", pads, 2 * m);
	return ib_done(c->b, n);
}

/* ---------------------------------------------------------------- placeholders */

static int cv_placeholder(cx *c)
{
	imp *im = c->im;
	const tf_import_opts *o = im->opts;
	int dt = dtype_from_tf(a_type(c, "dtype", DT_FLOAT));
	const NpuTf__AttrValue *sa = attr(c, "shape");
	ir_shape s = {0};
	bool known = false;
	char b1[128], b2[128];
	if (sa && sa->value_case == NPU_TF__ATTR_VALUE__VALUE_SHAPE) {
		if (shape_from_proto(sa->shape, &s, &known))
			return ib_fail(c->b, "bad shape attribute");
	} else if (!strcmp(c->b->op, "Placeholder")) {
		known = false;
	}
	for (int i = 0; i < o->n_consts; i++)
		if (!strcmp(o->consts[i].name, c->b->name)) {
			if (dt < 0)
				return ib_fail(c->b, "type %s is not supported", tf_type_name(a_type(c, "dtype", 0)));
			ir_shape cs = known ? s : (ir_shape){0};
			cval *r = cval_new((ir_dtype)dt, &cs);
			for (int64_t k = 0; r && k < r->n; k++)
				r->v[k] = cast_to((ir_dtype)dt, o->consts[i].value);
			return put_cst(c, 0, r);
		}
	const ir_shape *given = NULL;
	for (int i = 0; i < o->n_inputs; i++)
		if (!strcmp(o->inputs[i].name, c->b->name))
			given = &o->inputs[i].shape;
	if (!given && !strcmp(c->b->op, "PlaceholderWithDefault"))
		return cv_identity(c);
	if (dt < 0)
		return ib_unsup(c->b, "placeholder of type %s", tf_type_name(a_type(c, "dtype", 0)));
	if (given) {
		bool ok = s.rank == 0 && !known;	/* unknown rank */
		if (!ok && given->rank == s.rank) {
			ok = true;
			for (int i = 0; i < s.rank; i++)
				ok &= s.dim[i] < 0 || s.dim[i] == given->dim[i];
		}
		if (!ok)
			return ib_fail(c->b, "--input shape %s does not match the placeholder's shape %s",
				     shape_text(given, true, b1, sizeof b1), shape_text(&s, known, b2, sizeof b2));
		s = *given;
	} else if (!known) {
		return ib_unsup(c->b, "placeholder has no static shape (%s); give it with --input %s:SHAPE",
			     shape_text(&s, known, b1, sizeof b1), c->b->name);
	}
	ir_kind kind = IR_KIND_INPUT;
	for (int i = 0; i < o->n_states; i++)
		if (!strcmp(o->states[i].in, c->b->name))
			kind = IR_KIND_STATE;
	int id = ir_graph_add_tensor(im->b.g, c->b->name, (ir_dtype)dt, &s, kind, im->b.d);
	if (id < 0 || ib_grow((void **)&im->in_ids, &im->cap_in, im->n_in_ids, sizeof(int))) {
		c->b->failed = true;
		return id < 0 ? -1 : ib_oom(&im->b);
	}
	if (s.rank == 4)
		ir_graph_tensor(im->b.g, id)->layout = im->nchw ? IR_LAYOUT_NCHW : IR_LAYOUT_NHWC;
	im->in_ids[im->n_in_ids++] = id;
	c->out[0].tensor = id;
	return 0;
}

static int cv_random(cx *c)
{
	const cval *sh = need_cst(c, 0, "shape");
	NEED(sh);
	ir_shape s = {0};
	int n = cst_ints(c, sh, s.dim, IR_MAX_RANK, "shape");
	if (n < 0)
		return -1;
	s.rank = n;
	if (ir_shape_numel(&s) < 0)
		return ib_fail(c->b, "bad shape");
	c->out[0].rnd = true;
	c->out[0].lo = 0;
	c->out[0].hi = 1;
	c->out[0].rs = s;
	return 0;
}

/* ---------------------------------------------------------------- more ops */

static int cv_argmin(cx *c)
{
	/* argmin(x) = argmax(-x): the first minimum is the first maximum */
	const cval *ax = need_cst(c, 1, "dimension");
	NEED(ax);
	ir_shape xs = vshape(c, c->in[0]);
	int a = ax->n == 1 ? norm_axis(c, ib_f2i(ax->v[0]), xs.rank) : ib_fail(c->b, "dimension must be a scalar");
	if (a < 0)
		return -1;
	ir_dtype to = out_type(c, "output_type");
	int x = tin(c, 0), neg = ib_tmp(c->b, "neg");
	int n = emit(c, "neg", IR_OP_NEG, &x, 1, &neg, 1);
	TRY(ib_done(c->b, n));
	int t = to == IR_DTYPE_I64 ? tout(c, 0) : ib_tmp(c->b, "i64");
	n = emit(c, to == IR_DTYPE_I64 ? NULL : "argmax", IR_OP_ARGMAX, &neg, 1, &t, 1);
	ib_set_i(c->b, n, "axis", a);
	ib_set_i(c->b, n, "keepdims", 0);
	TRY(ib_done(c->b, n));
	if (to == IR_DTYPE_I64)
		return 0;
	int o = tout(c, 0);
	n = emit(c, NULL, IR_OP_CAST, &t, 1, &o, 1);
	ib_set_s(c->b, n, "to", ir_dtype_name(to));
	return ib_done(c->b, n);
}

static int cv_gather(cx *c)
{
	bool v2 = !strcmp(c->b->op, "GatherV2");
	int64_t axis = 0;
	if (v2) {
		const cval *ax = need_cst(c, 2, "axis");
		NEED(ax);
		if (ax->n != 1)
			return ib_fail(c->b, "axis must be a scalar");
		axis = ib_f2i(ax->v[0]);
		if (a_int(c, "batch_dims", 0) != 0)
			return ib_unsup(c->b, "batch_dims %lld", (long long)a_int(c, "batch_dims", 0));
	}
	ir_shape xs = vshape(c, c->in[0]);
	int a = norm_axis(c, axis, xs.rank);
	if (a < 0)
		return -1;
	const cval *x = c->in[0]->c, *ix = c->in[1]->c;
	if (x && ix) {
		ir_shape o = {0};
		for (int i = 0; i < a; i++)
			o.dim[o.rank++] = xs.dim[i];
		for (int i = 0; i < ix->s.rank && o.rank < IR_MAX_RANK; i++)
			o.dim[o.rank++] = ix->s.dim[i];
		for (int i = a + 1; i < xs.rank && o.rank < IR_MAX_RANK; i++)
			o.dim[o.rank++] = xs.dim[i];
		if (xs.rank - 1 + ix->s.rank > IR_MAX_RANK)
			return ib_fail(c->b, "result rank too large");
		int64_t outer = 1, inner = 1, d = xs.dim[a];
		for (int i = 0; i < xs.rank; i++)
			if (i != a)
				*(i < a ? &outer : &inner) *= xs.dim[i];
		cval *r = cval_new(x->dt, &o);
		for (int64_t q = 0; r && q < outer; q++)
			for (int64_t j = 0; j < ix->n; j++) {
				int64_t k = ib_f2i(ix->v[j]);
				if (k < 0)
					k += d;
				if (k < 0 || k >= d) {
					cval_free(r);
					return ib_fail(c->b, "index %lld out of range", (long long)ib_f2i(ix->v[j]));
				}
				memcpy(r->v + (q * ix->n + j) * inner, x->v + (q * d + k) * inner, sizeof(double) * (size_t)inner);
			}
		return put_cst(c, 0, r);
	}
	int in[2] = {tin(c, 0), tin(c, 1)};
	int n = emit_out0(c, IR_OP_GATHER, in, 2);
	ib_set_i(c->b, n, "axis", a);
	return ib_done(c->b, n);
}

/* GatherNd with indices computed in the graph: the flat index is the sum
 * of the index tuple times the strides of the leading K axes. */
static int gather_nd_dynamic(cx *c)
{
	ir_shape ps = vshape(c, c->in[0]), is = vshape(c, c->in[1]);
	ir_dtype it = vdtype(c, c->in[1]);
	if (is.rank < 1 || (it != IR_DTYPE_I32 && it != IR_DTYPE_I64))
		return ib_fail(c->b, "indices must be int32 or int64 of rank 1 or more");
	int K = (int)is.dim[is.rank - 1];
	if (K < 1 || K > ps.rank)
		return ib_fail(c->b, "index tuples of %d values for params of rank %d", K, ps.rank);
	if (is.rank - 1 + ps.rank - K > IR_MAX_RANK)
		return ib_fail(c->b, "result rank too large");
	ir_shape flat = {.rank = ps.rank - K + 1, .dim = {1}};
	for (int i = 0; i < K; i++)
		flat.dim[0] *= ps.dim[i];
	for (int i = K; i < ps.rank; i++)
		flat.dim[1 + i - K] = ps.dim[i];
	cval *st = cval_new(it, &(ir_shape){.rank = 1, .dim = {K}});
	for (int i = K - 1; st && i >= 0; i--)
		st->v[i] = i == K - 1 ? 1 : st->v[i + 1] * (double)ps.dim[i + 1];
	int mi[2] = {tin(c, 1), tconst(c, "strides", st)};
	int m = ib_tmp(c->b, "scaled");
	int n = emit(c, "scaled", IR_OP_MUL, mi, 2, &m, 1);
	TRY(ib_done(c->b, n));
	int fi = ib_tmp(c->b, "flat_indices");
	n = emit(c, "flat_indices", IR_OP_REDUCE_SUM, &m, 1, &fi, 1);
	int64_t ax = is.rank - 1;
	ib_set_is(c->b, n, "axes", &ax, 1);
	ib_set_i(c->b, n, "keepdims", 0);
	TRY(ib_done(c->b, n));
	int x = tin(c, 0);
	if (K != 1)
		x = reshape(c, x, &flat, "flat", -1);
	int in[2] = {x, fi};
	n = emit_out0(c, IR_OP_GATHER, in, 2);
	ib_set_i(c->b, n, "axis", 0);
	return ib_done(c->b, n);
}

/* GatherNd with indices known at import: the leading K axes of params
 * flattened into one, gathered by the flat indices. */
static int cv_gather_nd(cx *c)
{
	if (a_int(c, "batch_dims", 0) != 0)
		return ib_unsup(c->b, "batch_dims %lld", (long long)a_int(c, "batch_dims", 0));
	if (!c->in[1]->c && !c->in[1]->rnd)
		return gather_nd_dynamic(c);
	const cval *ix = need_cst(c, 1, "indices");
	NEED(ix);
	if (a_int(c, "batch_dims", 0) != 0)
		return ib_unsup(c->b, "batch_dims %lld", (long long)a_int(c, "batch_dims", 0));
	ir_shape ps = vshape(c, c->in[0]);
	if (ix->s.rank < 1 || !ib_dtype_is_int(ix->dt))
		return ib_fail(c->b, "indices must be integers of rank 1 or more");
	int K = (int)ix->s.dim[ix->s.rank - 1];
	if (K < 0 || K > ps.rank)
		return ib_fail(c->b, "index tuples of %d values for params of rank %d", K, ps.rank);
	if (ix->s.rank - 1 + ps.rank - K > IR_MAX_RANK)
		return ib_fail(c->b, "result rank too large");
	ir_shape is = {.rank = ix->s.rank - 1}, o = {0}, flat = {.rank = ps.rank - K + 1, .dim = {1}};
	for (int i = 0; i < is.rank; i++)
		o.dim[o.rank++] = is.dim[i] = ix->s.dim[i];
	for (int i = 0; i < K; i++)
		flat.dim[0] *= ps.dim[i];
	for (int i = K; i < ps.rank; i++)
		o.dim[o.rank++] = flat.dim[1 + i - K] = ps.dim[i];
	cval *fi = cval_new(IR_DTYPE_I32, &is);
	for (int64_t j = 0; fi && j < fi->n; j++) {
		int64_t lin = 0;
		for (int i = 0; i < K; i++) {
			int64_t v = ib_f2i(ix->v[j * K + i]);
			if (v < 0 || v >= ps.dim[i]) {
				cval_free(fi);
				return ib_fail(c->b, "index %lld out of range for axis %d of size %lld", (long long)v, i,
					     (long long)ps.dim[i]);
			}
			lin = lin * ps.dim[i] + v;
		}
		fi->v[j] = (double)lin;
	}
	if (!fi)
		return put_cst(c, 0, NULL);
	int64_t inner = 1;
	for (int i = K; i < ps.rank; i++)
		inner *= ps.dim[i];
	if (c->in[0]->c) {
		const cval *x = c->in[0]->c;
		cval *r = cval_new(x->dt, &o);
		for (int64_t j = 0; r && j < fi->n; j++)
			memcpy(r->v + j * inner, x->v + (int64_t)fi->v[j] * inner, sizeof(double) * (size_t)inner);
		cval_free(fi);
		return put_cst(c, 0, r);
	}
	int x = tin(c, 0);
	if (K != 1)
		x = reshape(c, x, &flat, "flat", -1);
	int in[2] = {x, tconst(c, "flat_indices", fi)};
	int n = emit_out0(c, IR_OP_GATHER, in, 2);
	ib_set_i(c->b, n, "axis", 0);
	return ib_done(c->b, n);
}

static int cv_prelu(cx *c)
{
	int in[2] = {tin(c, 0), tin(c, 1)};
	return ib_done(c->b, emit_out0(c, IR_OP_PRELU, in, 2));
}

static int cv_add_n(cx *c)
{
	if (c->nin < 1)
		return ib_fail(c->b, "no inputs");
	if (c->nin == 1)
		return cv_identity(c);
	int acc = tin(c, 0);
	for (int i = 1; i < c->nin; i++) {
		int in[2] = {acc, tin(c, i)};
		bool last = i == c->nin - 1;
		int o = last ? tout(c, 0) : ib_tmp(c->b, ib_fmt(c->b, "sum%d", i));
		int n = emit(c, last ? NULL : ib_fmt(c->b, "add%d", i), IR_OP_ADD, in, 2, &o, 1);
		TRY(ib_done(c->b, n));
		acc = o;
	}
	return 0;
}

static int cv_clip(cx *c)
{
	const cval *lo = need_cst(c, 1, "clip_value_min"), *hi = need_cst(c, 2, "clip_value_max");
	NEED(lo && hi);
	if (lo->n != 1 || hi->n != 1)
		return ib_unsup(c->b, "clip limits that are not scalars");
	int x = tin(c, 0);
	int n = emit_out0(c, IR_OP_CLIP, &x, 1);
	ib_set_f(c->b, n, "min", lo->v[0]);
	ib_set_f(c->b, n, "max", hi->v[0]);
	return ib_done(c->b, n);
}

/* DepthToSpace/SpaceToDepth: TF's NHWC order is ONNX's DCR on NCHW. */
static int cv_depth_space(cx *c)
{
	bool d2s = !strcmp(c->b->op, "DepthToSpace"), nchw = nchw_format(c);
	ir_shape xs = vshape(c, c->in[0]);
	if (xs.rank != 4)
		return ib_unsup(c->b, "input rank %d (4 expected)", xs.rank);
	int64_t b = a_int(c, "block_size", 2);
	if (b < 1 || b > 4096)
		return ib_fail(c->b, "bad block_size");
	int x = to_nchw(c, nchw);
	int t = nchw ? tout(c, 0) : ib_tmp(c->b, "nchw");
	int n = emit(c, nchw ? NULL : d2s ? "depth_to_space" : "space_to_depth",
		     d2s ? IR_OP_DEPTH_TO_SPACE : IR_OP_SPACE_TO_DEPTH, &x, 1, &t, 1);
	ib_set_i(c->b, n, "blocksize", b);
	if (d2s)
		ib_set_s(c->b, n, "mode", "DCR");
	return from_nchw(c, nchw, n, t);
}

/* LRN (NHWC): TF's alpha multiplies the sum, ONNX's (the IR's) is divided
 * by the window size 2 * depth_radius + 1. */
static int cv_lrn(cx *c)
{
	ir_shape xs = vshape(c, c->in[0]);
	if (xs.rank != 4)
		return ib_unsup(c->b, "input rank %d (4 expected)", xs.rank);
	int64_t r = a_int(c, "depth_radius", 5);
	if (r < 0 || r > 4096)
		return ib_fail(c->b, "bad depth_radius");
	int x = to_nchw(c, false);
	int t = ib_tmp(c->b, "nchw");
	int n = emit(c, "lrn", IR_OP_LRN, &x, 1, &t, 1);
	ib_set_i(c->b, n, "size", 2 * r + 1);
	ib_set_f(c->b, n, "alpha", a_float(c, "alpha", 1) * (double)(2 * r + 1));
	ib_set_f(c->b, n, "beta", a_float(c, "beta", 0.5));
	ib_set_f(c->b, n, "bias", a_float(c, "bias", 1));
	return from_nchw(c, false, n, t);
}

/* ================================================================ the op table */

typedef struct {
	const char *name;
	int (*conv)(cx *);
} op_entry;

static const op_entry op_table[] = {
	{"Const", cv_const}, {"Placeholder", cv_placeholder}, {"PlaceholderWithDefault", cv_placeholder},
	{"Identity", cv_identity}, {"IdentityN", cv_identity}, {"StopGradient", cv_identity},
	{"PreventGradient", cv_identity}, {"Snapshot", cv_identity}, {"NoOp", cv_noop},
	{"Switch", cv_switch}, {"Merge", NULL},
	{"MatMul", cv_matmul}, {"BatchMatMul", cv_matmul}, {"BatchMatMulV2", cv_matmul},
	{"BatchMatMulV3", cv_matmul}, {"BiasAdd", cv_bias_add}, {"BiasAddV1", cv_bias_add},
	{"Add", cv_binary}, {"AddV2", cv_binary}, {"Sub", cv_binary}, {"Mul", cv_binary},
	{"RealDiv", cv_binary}, {"Div", cv_binary}, {"Maximum", cv_binary}, {"Minimum", cv_binary},
	{"Pow", cv_binary}, {"SquaredDifference", cv_binary}, {"FloorDiv", cv_binary},
	{"FloorMod", cv_binary}, {"Less", cv_binary}, {"LessEqual", cv_binary}, {"Greater", cv_binary},
	{"GreaterEqual", cv_binary}, {"Equal", cv_binary}, {"NotEqual", cv_binary},
	{"LogicalAnd", cv_binary}, {"LogicalOr", cv_binary},
	{"Relu", cv_unary}, {"Relu6", cv_unary}, {"LeakyRelu", cv_unary}, {"Elu", cv_unary},
	{"Sigmoid", cv_unary}, {"Tanh", cv_unary}, {"Softplus", cv_unary}, {"Exp", cv_unary},
	{"Log", cv_unary}, {"Sqrt", cv_unary}, {"Rsqrt", cv_unary}, {"Neg", cv_unary}, {"Abs", cv_unary},
	{"Floor", cv_unary}, {"Ceil", cv_unary}, {"Reciprocal", cv_unary}, {"Inv", cv_unary},
	{"Erf", cv_unary}, {"Square", cv_unary}, {"Softsign", cv_unary}, {"LogicalNot", cv_unary},
	{"Softmax", cv_softmax}, {"LogSoftmax", cv_softmax}, {"Cast", cv_cast},
	{"Conv2D", cv_conv}, {"DepthwiseConv2dNative", cv_conv}, {"Conv2DBackpropInput", cv_conv_backprop_input},
	{"MaxPool", cv_pool}, {"AvgPool", cv_pool},
	{"FusedBatchNorm", cv_batch_norm}, {"FusedBatchNormV2", cv_batch_norm}, {"FusedBatchNormV3", cv_batch_norm},
	{"Mean", cv_reduce}, {"Sum", cv_reduce}, {"Max", cv_reduce}, {"Min", cv_reduce},
	{"ArgMax", cv_argmax}, {"ArgMin", cv_argmin}, {"Gather", cv_gather}, {"GatherV2", cv_gather},
	{"AddN", cv_add_n}, {"ClipByValue", cv_clip}, {"DepthToSpace", cv_depth_space}, {"LRN", cv_lrn},
	{"SpaceToDepth", cv_depth_space},
	{"Shape", cv_shape}, {"Size", cv_shape}, {"Rank", cv_shape}, {"ZerosLike", cv_like}, {"OnesLike", cv_like},
	{"Fill", cv_fill}, {"Range", cv_range},
	{"Reshape", cv_reshape}, {"ExpandDims", cv_expand_dims}, {"Squeeze", cv_squeeze},
	{"Transpose", cv_transpose}, {"Pack", cv_pack}, {"Unpack", cv_unpack},
	{"ConcatV2", cv_concat}, {"Concat", cv_concat}, {"Split", cv_split}, {"SplitV", cv_split},
	{"StridedSlice", cv_strided_slice}, {"Slice", cv_slice},
	{"Pad", cv_pad}, {"PadV2", cv_pad}, {"MirrorPad", cv_pad},
	{"ResizeNearestNeighbor", cv_resize}, {"ResizeBilinear", cv_resize},
	{"BatchToSpaceND", cv_batch_space}, {"SpaceToBatchND", cv_batch_space},
	{"RandomUniform", cv_random},
	{"_FusedConv2D", cv_conv}, {"FusedDepthwiseConv2dNative", cv_conv}, {"_FusedMatMul", cv_matmul},
	{"Prelu", cv_prelu}, {"GatherNd", cv_gather_nd},
};

static const op_entry *find_op(const char *name)
{
	for (size_t i = 0; i < sizeof op_table / sizeof op_table[0]; i++)
		if (!strcmp(op_table[i].name, name))
			return &op_table[i];
	return NULL;
}

/* Data inputs an op needs before its handler may read them. */
static int min_inputs(const char *op)
{
	static const struct { const char *op; int n; } t[] = {
		{"Const", 0}, {"Placeholder", 0}, {"PlaceholderWithDefault", 0}, {"NoOp", 0}, {"IdentityN", 0}, {"Merge", 0},
		{"Range", 3}, {"Slice", 3}, {"SplitV", 3}, {"Conv2DBackpropInput", 3}, {"BatchToSpaceND", 3},
		{"SpaceToBatchND", 3}, {"PadV2", 3}, {"ClipByValue", 3}, {"GatherV2", 3}, {"StridedSlice", 4}, {"FusedBatchNorm", 5},
		{"FusedBatchNormV2", 5}, {"FusedBatchNormV3", 5}};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(t[i].op, op))
			return t[i].n;
	for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
		if (!strcmp(binops[i].tf, op))
			return 2;
	static const char *const two[] = {
		"MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "BiasAdd", "BiasAddV1", "Conv2D",
		"DepthwiseConv2dNative", "Reshape", "ExpandDims", "Transpose", "Fill", "Pad", "MirrorPad",
		"ResizeNearestNeighbor", "ResizeBilinear", "Mean", "Sum", "Max", "Min", "ArgMax", "Split",
		"Switch", "ConcatV2", "Concat", "ArgMin", "Gather", "_FusedConv2D", "FusedDepthwiseConv2dNative",
		"_FusedMatMul", "Prelu", "GatherNd"};
	for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
		if (!strcmp(two[i], op))
			return 2;
	return 1;
}

/* 1 quantized, 2 training only, 0 other unsupported. */
static int op_class(const char *op)
{
	static const char *const quant[] = {"Quantize", "Quantized", "Dequantize", "Requantize",
					    "RequantizationRange", "FakeQuant"};
	static const char *const train[] = {"VariableV2", "Variable", "VarHandleOp", "ReadVariableOp",
					    "Assign", "AssignAdd", "AssignSub", "AssignVariableOp", "SaveV2",
					    "RestoreV2", "Save", "Restore", "SaveSlices", "ShardedFilename",
					    "MergeV2Checkpoints", "BroadcastGradientArgs", "Conv2DBackpropFilter",
					    "SoftmaxCrossEntropyWithLogits",
					    "SparseSoftmaxCrossEntropyWithLogits", "IsVariableInitialized"};
	for (size_t i = 0; i < sizeof quant / sizeof quant[0]; i++)
		if (!strncmp(op, quant[i], strlen(quant[i])))
			return 1;
	for (size_t i = 0; i < sizeof train / sizeof train[0]; i++)
		if (!strcmp(op, train[i]))
			return 2;
	size_t n = strlen(op);
	if (!strncmp(op, "Apply", 5) || !strncmp(op, "ResourceApply", 13) || !strncmp(op, "SparseApply", 11) ||
	    (n > 4 && !strcmp(op + n - 4, "Grad")) || (n > 6 && !strcmp(op + n - 6, "GradV2")))
		return 2;
	return 0;
}

/* ================================================================ the walk */

static void poison(cx *c)
{
	for (int k = 0; k < c->nout; k++)
		c->out[k].poisoned = true;
}

static int convert(imp *im, int idx)
{
	tnode *t = &im->n[idx];
	cx c = {.im = im, .idx = idx, .nd = t->nd, .b = &im->b, .out = t->out, .nout = t->nout};
	ib_begin(&im->b, t->nd->name, t->nd->op);
	bool dead = false, poisoned = false;
	for (size_t i = 0; i < t->nd->n_input; i++) {
		int k;
		bool control;
		int j = parse_ref(im, t->nd->input[i], &k, &control);
		if (control)
			continue;
		if (c.nin == 64)
			return ib_fail(c.b, "more than 64 inputs");
		val *v = &im->n[j].out[k];
		c.in[c.nin++] = v;
		dead |= v->dead;
		poisoned |= v->poisoned;
	}
	const op_entry *e = find_op(t->nd->op);
	if (!strcmp(t->nd->op, "Merge")) {
		for (int i = 0; i < c.nin; i++)
			if (!c.in[i]->dead) {
				if (c.in[i]->poisoned)
					return poison(&c), 0;
				c.in[0] = c.in[i];
				c.nin = 1;
				if (cv_identity(&c))
					return -1;
				cval *r = cval_new(IR_DTYPE_I32, &(ir_shape){0});
				if (r)
					r->v[0] = i;
				return c.nout > 1 ? put_cst(&c, 1, r) : (cval_free(r), 0);
			}
		dead = true;
	}
	if (dead) {
		for (int k = 0; k < c.nout; k++)
			t->out[k].dead = true;
		return 0;
	}
	if (!e) {
		int cls = op_class(t->nd->op);
		poison(&c);
		return ib_problem_add(&im->b, cls, t->nd->op, t->nd->name, NULL);
	}
	if (poisoned) {
		poison(&c);
		return 0;
	}
	if (c.nin < min_inputs(t->nd->op))
		return ib_fail(c.b, "%d data input%s, at least %d expected", c.nin, c.nin == 1 ? "" : "s", min_inputs(t->nd->op));
	int r = e->conv(&c);
	if (c.b->failed || (r < 0 && !c.problem))
		return -1;
	if (r != 0 || c.problem)
		poison(&c);
	return 0;
}

/* Nodes the outputs need, in topological order (iterative depth-first walk
 * over data inputs). Returns the count, or -1. */
static int plan(imp *im, const int *outs, int nouts, int *order)
{
	int n = 0, *stack = malloc(sizeof(int) * (size_t)(im->nn + 1));
	size_t *pos = calloc((size_t)im->nn + 1, sizeof *pos);
	if (!stack || !pos) {
		free(stack);
		free(pos);
		return ib_oom(&im->b);
	}
	int rc = 0;
	for (int o = 0; o < nouts && rc == 0; o++) {
		if (im->n[outs[o]].state)
			continue;
		int sp = 0;
		stack[sp++] = outs[o];
		im->n[outs[o]].state = 1;
		while (sp > 0 && rc == 0) {
			int k = stack[sp - 1];
			const NpuTf__NodeDef *nd = im->n[k].nd;
			if (pos[k] < nd->n_input) {
				int out, j;
				bool control;
				const char *ref = nd->input[pos[k]++];
				j = parse_ref(im, ref, &out, &control);
				if (control)
					continue;
				if (j < 0) {
					rc = ir_fail(im->b.d, -1, -1, "node '%s' (%s) reads '%s', which is not in the graph",
						     nd->name, nd->op, ref);
					break;
				}
				if (out + 1 > im->n[j].nout)
					im->n[j].nout = out + 1;
				if (im->n[j].state == 1 && strcmp(im->n[j].nd->op, "NextIteration") &&
				    strcmp(nd->op, "Merge")) {
					rc = ir_fail(im->b.d, -1, -1, "the graph has a cycle through node '%s'", nd->name);
					break;
				}
				if (im->n[j].state == 0) {
					im->n[j].state = 1;
					stack[sp++] = j;
				}
				continue;
			}
			im->n[k].state = 2;
			im->n[k].needed = true;
			order[n++] = k;
			sp--;
		}
	}
	free(stack);
	free(pos);
	return rc ? -1 : n;
}

static int set_meta(imp *im)
{
	const NpuTf__GraphDef *gd = im->gd;
	if (ir_meta_set_str(im->b.g, "source.framework", "tensorflow") ||
	    (im->opts->file && ir_meta_set_str(im->b.g, "source.file", im->opts->file)) ||
	    (gd->versions && gd->versions->producer &&
	     ir_meta_set_int(im->b.g, "source.producer_version", gd->versions->producer)))
		return ib_oom(&im->b);
	return 0;
}

/* The IR tensor for requested output o (node j, output k), named after it. */
static int output_tensor(imp *im, int j, int k, const char *want)
{
	tnode *t = &im->n[j];
	val *v = &t->out[k];
	cx c = {.im = im, .idx = j, .nd = t->nd, .b = &im->b, .out = t->out, .nout = t->nout};
	ib_begin(&im->b, t->nd->name, t->nd->op);
	if (v->dead)
		return ir_fail(im->b.d, -1, -1, "output '%s' is on the untaken side of a Switch", want);
	if (v->rnd)
		return ir_fail(im->b.d, -1, -1, "output '%s' is random", want);
	c.in[0] = v;
	c.nin = 1;
	int id = v->tensor >= 0 ? v->tensor : v->c ? tin(&c, 0) : -1;
	if (id < 0)
		return c.b->failed ? -1 : ir_fail(im->b.d, -1, -1, "output '%s' was not imported", want);
	const ir_tensor *x = ir_graph_tensor(im->b.g, id);
	if (x->kind == IR_KIND_ACTIVATION && !strcmp(x->name, want))
		return id;
	/* a constant, a placeholder or a value named after another node:
	 * an identity node gives the output its own name */
	const char *name = ib_unique(&im->b, ir_graph_find_tensor(im->b.g, want) < 0 ? want : ib_fmt(&im->b, "%s#out", want), false);
	int o = name ? ir_graph_add_tensor(im->b.g, name, x->dtype, &x->shape, IR_KIND_ACTIVATION, im->b.d) : ib_oom(&im->b);
	if (o < 0)
		return -1;
	const char *nn = ib_unique(&im->b, ir_graph_find_node(im->b.g, t->nd->name) < 0 ? t->nd->name : ib_fmt(&im->b, "%s#out", t->nd->name), true);
	int n = nn ? ir_graph_add_node(im->b.g, nn, IR_OP_IDENTITY, &id, 1, &o, 1, im->b.d) : ib_oom(&im->b);
	if (n < 0 || ir_node_set_origin(im->b.g, n, t->nd->op))
		return n < 0 ? -1 : ib_oom(&im->b);
	return o;
}

static int build(imp *im)
{
	const tf_import_opts *o = im->opts;
	int nouts = o->n_outputs, rc = -1, n;
	for (int i = 0; i < o->n_states; i++) {
		bool listed = false;
		for (int k = 0; k < o->n_outputs; k++)
			listed |= !strcmp(o->outputs[k], o->states[i].out);
		nouts += !listed;
	}
	int *outs = malloc(sizeof(int) * (size_t)(nouts + 1)), *outk = malloc(sizeof(int) * (size_t)(nouts + 1));
	const char **outn = malloc(sizeof(char *) * (size_t)(nouts + 1));
	int *order = malloc(sizeof(int) * (size_t)(im->nn + 1));
	if (!outs || !outk || !outn || !order) {
		ib_oom(&im->b);
		goto out;
	}
	if (nouts == 0) {
		ir_fail(im->b.d, -1, -1, "no outputs given (a GraphDef does not name its outputs; use --output NAME)");
		goto out;
	}
	int m = 0;
	for (int i = 0; i < o->n_outputs; i++)
		outn[m++] = o->outputs[i];
	for (int i = 0; i < o->n_states; i++) {
		bool listed = false;
		for (int k = 0; k < o->n_outputs; k++)
			listed |= !strcmp(o->outputs[k], o->states[i].out);
		if (!listed)
			outn[m++] = o->states[i].out;
	}
	for (int i = 0; i < nouts; i++) {
		bool control;
		outs[i] = parse_ref(im, outn[i], &outk[i], &control);
		if (outs[i] < 0 || control) {
			ir_fail(im->b.d, -1, -1, "the graph has no node named '%s'", outn[i]);
			goto out;
		}
		if (outk[i] + 1 > im->n[outs[i]].nout)
			im->n[outs[i]].nout = outk[i] + 1;
	}
	for (int i = 0; i < o->n_inputs + o->n_consts + o->n_states; i++) {
		const char *nm = i < o->n_inputs ? o->inputs[i].name : i < o->n_inputs + o->n_consts ?
				 o->consts[i - o->n_inputs].name : o->states[i - o->n_inputs - o->n_consts].in;
		int j = node_find(im, nm, strlen(nm));
		if (j < 0 || (strcmp(im->n[j].nd->op, "Placeholder") && strcmp(im->n[j].nd->op, "PlaceholderWithDefault"))) {
			ir_fail(im->b.d, -1, -1, j < 0 ? "the graph has no node named '%s'" :
				"node '%s' is not a placeholder (%s)", nm, j < 0 ? "" : im->n[j].nd->op);
			goto out;
		}
	}
	if ((n = plan(im, outs, nouts, order)) < 0)
		goto out;
	/* output slots: referenced ones plus what the op declares */
	for (int i = 0; i < n; i++) {
		tnode *t = &im->n[order[i]];
		cx c = {.nd = t->nd};
		int64_t k = a_int(&c, "num", 0), s = a_int(&c, "num_split", 0);
		if (k > t->nout)
			t->nout = (int)k;
		if (s > t->nout)
			t->nout = (int)s;
		if (!strcmp(t->nd->op, "IdentityN") && (int)t->nd->n_input > t->nout)
			t->nout = (int)t->nd->n_input;
		if (t->nout < 1)
			t->nout = 1;
		if (t->nout > 1024) {
			ir_fail(im->b.d, -1, -1, "node '%s' (%s) has too many outputs", t->nd->name, t->nd->op);
			goto out;
		}
		t->out = calloc((size_t)t->nout + 1, sizeof(val));	/* + a scratch slot */
		if (!t->out) {
			ib_oom(&im->b);
			goto out;
		}
		for (int k2 = 0; k2 <= t->nout; k2++)
			t->out[k2] = (val){.tensor = -1, .owner = order[i], .k = k2};
		const char *f = NULL;
		const NpuTf__AttrValue *a = attr(&c, "data_format");
		if (a && a->value_case == NPU_TF__ATTR_VALUE__VALUE_S && a->s.len >= 2)
			f = (const char *)a->s.data;
		if (f && f[0] == 'N' && f[1] == 'C')
			im->nchw = true;
	}
	for (int i = 0; i < n; i++)
		if (convert(im, order[i]))
			goto out;
	if (im->b.npb) {
		static const char *const heads[3] = {
			"unsupported ops: ", "quantized ops (import the float graph instead): ",
			"training-only ops (freeze an inference graph): "};
		ib_report(&im->b, heads, 3);
		goto out;
	}
	for (int i = 0; i < nouts; i++) {
		const char *want = outk[i] ? ib_fmt(&im->b, "%s:%d", im->n[outs[i]].nd->name, outk[i]) : im->n[outs[i]].nd->name;
		if (!want || (outs[i] = output_tensor(im, outs[i], outk[i], want)) < 0)
			goto out;
	}
	/* inputs: the --input order first, then the graph's */
	int *ins = malloc(sizeof(int) * (size_t)(im->n_in_ids + 1)), ni = 0;
	if (!ins) {
		ib_oom(&im->b);
		goto out;
	}
	for (int i = 0; i < o->n_inputs; i++) {
		int t = ir_graph_find_tensor(im->b.g, o->inputs[i].name);
		for (int k = 0; k < im->n_in_ids; k++)
			if (im->in_ids[k] == t && t >= 0)
				ins[ni++] = t;
	}
	for (int k = 0; k < im->n_in_ids; k++) {
		bool seen = false;
		for (int i = 0; i < ni; i++)
			seen |= ins[i] == im->in_ids[k];
		if (!seen)
			ins[ni++] = im->in_ids[k];
	}
	int r1 = ib_finish(&im->b, ins, ni, outs, nouts);
	free(ins);
	if (r1 || set_meta(im))
		goto out;
	rc = 0;
out:
	free(outs);
	free(outk);
	free(outn);
	free(order);
	return rc;
}

ir_graph *tf_import(const uint8_t *buf, size_t size, const tf_import_opts *opts, ir_diag *d)
{
	static const tf_import_opts defaults;
	ir_diag scratch;
	if (!d)
		d = &scratch;
	if (!opts)
		opts = &defaults;
	if (ib_check_format(buf, size, "a TensorFlow GraphDef", "a TensorFlow GraphDef", d))
		return NULL;
	NpuTf__GraphDef *gd = npu_tf__graph_def__unpack(NULL, size, buf);
	if (!gd || gd->n_node == 0) {
		ir_fail(d, -1, -1, "not a TensorFlow GraphDef (%s)", gd ? "it has no nodes" : "protobuf parse failed");
		if (gd)
			npu_tf__graph_def__free_unpacked(gd, NULL);
		return NULL;
	}
	if (gd->n_node > (1u << 24)) {
		ir_fail(d, -1, -1, "too many nodes");
		npu_tf__graph_def__free_unpacked(gd, NULL);
		return NULL;
	}
	imp im = {.gd = gd, .opts = opts, .nn = (int)gd->n_node};
	ib_init(&im.b, NULL, d, '#');
	ir_graph *g = NULL;
	im.n = calloc(gd->n_node, sizeof(tnode));
	im.nslot = 64;
	while (im.nslot < 2 * gd->n_node)
		im.nslot *= 2;
	im.slot = malloc(im.nslot * sizeof(int));
	if (!im.n || !im.slot || !(im.b.g = ir_graph_new())) {
		ib_oom(&im.b);
		goto out;
	}
	for (size_t i = 0; i < im.nslot; i++)
		im.slot[i] = -1;
	for (int k = 0; k < im.nn; k++) {
		const NpuTf__NodeDef *nd = gd->node[k];
		im.n[k].nd = nd;
		if (!nd || !nd->name || !*nd->name || !nd->op || !*nd->op) {
			ir_fail(d, -1, -1, "not a TensorFlow GraphDef (node %d has no name or op)", k);
			goto out;
		}
		if (node_find(&im, nd->name, strlen(nd->name)) >= 0) {
			ir_fail(d, -1, -1, "two nodes are named '%s'", nd->name);
			goto out;
		}
		size_t i = ib_hash(nd->name, strlen(nd->name)) & (im.nslot - 1);
		while (im.slot[i] >= 0)
			i = (i + 1) & (im.nslot - 1);
		im.slot[i] = k;
	}
	if (build(&im) == 0)
		g = im.b.g;
out:
	if (!g)
		ir_graph_free(im.b.g);
	for (int k = 0; im.n && k < im.nn; k++) {
		for (int j = 0; im.n[k].out && j <= im.n[k].nout; j++) {
			val *v = &im.n[k].out[j];
			/* values shared by Switch outputs are freed once */
			bool dup = false;
			for (int i = 0; i < j; i++)
				dup |= v->c && im.n[k].out[i].c == v->c;
			if (!dup)
				cval_free(v->c);
		}
		free(im.n[k].out);
	}
	ib_free(&im.b);
	free(im.n);
	free(im.slot);
	free(im.in_ids);
	npu_tf__graph_def__free_unpacked(gd, NULL);
	return g;
}

/* The op table for listings (npuc --list -f TF): entry i, NULL past the end.
 * *irop: -1 (the converters choose the IR ops). */
const char *tf_import_op_at(int i, int *irop)
{
	*irop = -1;
	return i >= 0 && (size_t)i < sizeof op_table / sizeof op_table[0] ? op_table[i].name : NULL;
}
