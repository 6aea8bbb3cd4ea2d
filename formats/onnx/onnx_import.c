/* onnx_import.c - ONNX ModelProto to npukit IR (op mapping: npu-import-onnx(1)).
 *
 * One pass over the nodes the selected outputs need, in topological order.
 * Every ONNX value maps to an IR tensor; values known at import time
 * (initializers, Constant nodes, Shape of a static tensor, small arithmetic
 * on those) also keep a constant, so inputs that the IR takes as
 * attributes (Reshape's shape, Slice's starts, ...) can be read. Each IR
 * node's shapes are inferred as soon as it is added, because later
 * conversions need them (auto_pad, Reshape's 0 and -1, Resize scales).
 * Problems that leave the model readable (unsupported ops, non-constant
 * attribute inputs) are collected and reported together at the end. */
#include "onnx/onnx_import.h"
#include "onnx/onnx.pb-c.h"
#include "import/builder.h"
#include "../../share/npu/runtime/npu_half.h"
#include "ir_plugin.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define OPSET_MAX 17
#define PB_MAX_DEPTH 64			/* message nesting protobuf-c may recurse into */
#define FOLD_MAX_IN ((int64_t)1 << 16)	/* elements of a node folded at import */
#define FOLD_MAX_BYTES ((size_t)1 << 28)

/* ================================================================ protobuf pre-check
 *
 * protobuf-c unpacks nested messages recursively without a depth limit, so
 * a few megabytes of nested TypeProtos or subgraphs overflow the stack.
 * This walk follows only the fields through which ONNX messages can nest
 * and refuses deep or malformed wire data before protobuf-c sees it. */

enum { PB_MODEL, PB_GRAPH, PB_NODE, PB_ATTR, PB_VALUE_INFO, PB_TYPE, PB_TYPE_ELEM,
       PB_TYPE_MAP, PB_TRAINING, PB_FUNCTION, PB_TENSOR };

static int pb_child(int kind, uint64_t field)
{
	switch (kind) {
	case PB_MODEL: return field == 7 ? PB_GRAPH : field == 20 ? PB_TRAINING : field == 25 ? PB_FUNCTION : -1;
	case PB_TRAINING: return field == 1 || field == 2 ? PB_GRAPH : -1;
	case PB_GRAPH: return field == 1 ? PB_NODE : field >= 11 && field <= 13 ? PB_VALUE_INFO : -1;
	case PB_FUNCTION: return field == 7 ? PB_NODE : -1;
	case PB_NODE: return field == 5 ? PB_ATTR : -1;
	case PB_ATTR: return field == 6 || field == 11 ? PB_GRAPH : field == 14 || field == 15 ? PB_TYPE : -1;
	case PB_VALUE_INFO: return field == 2 ? PB_TYPE : -1;
	case PB_TYPE: return field == 4 || field == 9 ? PB_TYPE_ELEM : field == 5 ? PB_TYPE_MAP : -1;
	case PB_TYPE_ELEM: return field == 1 ? PB_TYPE : -1;
	case PB_TYPE_MAP: return field == 2 ? PB_TYPE : -1;
	}
	return -1;
}

static size_t pb_varint(const uint8_t *p, size_t n, uint64_t *v)
{
	*v = 0;
	for (size_t i = 0; i < n && i < 10; i++) {
		*v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80))
			return i + 1;
	}
	return 0;
}

/* 0 if the message is well-formed wire data nested at most PB_MAX_DEPTH deep. */
static int pb_check(const uint8_t *p, size_t n, int kind, int depth)
{
	if (depth > PB_MAX_DEPTH)
		return -1;
	for (size_t i = 0; i < n;) {
		uint64_t tag, v;
		size_t k = pb_varint(p + i, n - i, &tag);
		if (!k)
			return -1;
		i += k;
		switch (tag & 7) {
		case 0:
			if (!(k = pb_varint(p + i, n - i, &v)))
				return -1;
			i += k;
			break;
		case 1:
		case 5: {
			size_t w = (tag & 7) == 1 ? 8 : 4;
			if (n - i < w)
				return -1;
			i += w;
			break;
		}
		case 2: {
			if (!(k = pb_varint(p + i, n - i, &v)))
				return -1;
			i += k;
			if (v > n - i)
				return -1;
			int child = pb_child(kind, tag >> 3);
			if (child >= 0 && pb_check(p + i, (size_t)v, child, depth + 1))
				return -1;
			i += (size_t)v;
			break;
		}
		default:
			return -1;
		}
	}
	return 0;
}

/* ================================================================ element types */

static int dtype_from_onnx(int64_t t)
{
	switch (t) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: return IR_DTYPE_F32;
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16: return IR_DTYPE_F16;
	case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16: return IR_DTYPE_BF16;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: return IR_DTYPE_I64;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: return IR_DTYPE_I32;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT16: return IR_DTYPE_I16;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: return IR_DTYPE_I8;
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: return IR_DTYPE_U8;
	case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: return IR_DTYPE_BOOL;
	}
	return -1;
}

static const char *onnx_type_name(int64_t t)
{
	static const char *const names[] = {
		"undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64",
		"string", "bool", "float16", "double", "uint32", "uint64", "complex64",
		"complex128", "bfloat16"};
	return t >= 0 && t < (int64_t)(sizeof names / sizeof names[0]) ? names[t] : "unknown";
}

/* A constant's element, read as what it is: integer or floating. */
typedef struct {
	bool is_int;
	int64_t i;
	double f;
} num;

static num num_get(const ir_tensor *t, int64_t k)
{
	const uint8_t *p = (const uint8_t *)t->data + (size_t)k * ir_dtype_size(t->dtype);
	num r = {.is_int = true};
	switch (t->dtype) {
	case IR_DTYPE_F32: { float v; memcpy(&v, p, 4); r.f = v; r.is_int = false; break; }
	case IR_DTYPE_F16: { uint16_t h; memcpy(&h, p, 2); r.f = npu_f16_to_f32(h); r.is_int = false; break; }
	case IR_DTYPE_BF16: { uint16_t h; memcpy(&h, p, 2); r.f = npu_bf16_to_f32(h); r.is_int = false; break; }
	case IR_DTYPE_I64: memcpy(&r.i, p, 8); break;
	case IR_DTYPE_I32: { int32_t v; memcpy(&v, p, 4); r.i = v; break; }
	case IR_DTYPE_I16: { int16_t v; memcpy(&v, p, 2); r.i = v; break; }
	case IR_DTYPE_I8: r.i = (int8_t)p[0]; break;
	case IR_DTYPE_U8: r.i = p[0]; break;
	case IR_DTYPE_BOOL: r.i = p[0] != 0; break;
	default: break;
	}
	if (r.is_int)
		r.f = (double)r.i;
	else
		r.i = ib_f2i(r.f);
	return r;
}

static double num_f(num v) { return v.is_int ? (double)v.i : v.f; }
static int64_t num_i(num v) { return v.is_int ? v.i : ib_f2i(v.f); }

/* Store v as element k of a dt array (integers wrap like a C cast to the
 * unsigned type of that width would). */
static void num_put(ir_dtype dt, void *buf, int64_t k, num v)
{
	uint8_t *p = (uint8_t *)buf + (size_t)k * ir_dtype_size(dt);
	uint64_t u = (uint64_t)num_i(v);
	switch (dt) {
	case IR_DTYPE_F32: { float f = (float)num_f(v); memcpy(p, &f, 4); break; }
	case IR_DTYPE_F16: { uint16_t h = npu_f32_to_f16((float)num_f(v)); memcpy(p, &h, 2); break; }
	case IR_DTYPE_BF16: { uint16_t h = npu_f32_to_bf16((float)num_f(v)); memcpy(p, &h, 2); break; }
	case IR_DTYPE_I64: memcpy(p, &u, 8); break;
	case IR_DTYPE_I32: { uint32_t w = (uint32_t)u; memcpy(p, &w, 4); break; }
	case IR_DTYPE_I16: { uint16_t w = (uint16_t)u; memcpy(p, &w, 2); break; }
	case IR_DTYPE_I8:
	case IR_DTYPE_U8: p[0] = (uint8_t)u; break;
	case IR_DTYPE_BOOL: p[0] = v.is_int ? v.i != 0 : v.f != 0; break;
	default: break;
	}
}

/* ================================================================ TensorProto */

/* Decode a TensorProto into IR dtype, shape and little-endian bytes. what
 * names it in messages ("initializer 'w'"). */
static int tensor_decode(const Onnx__TensorProto *tp, const char *what, ir_dtype *dt,
			 ir_shape *shape, void **data, size_t *nbytes, ir_diag *d)
{
	*data = NULL;
	*nbytes = 0;
	int64_t type = tp->has_data_type ? tp->data_type : 0;
	int t = dtype_from_onnx(type);
	if (t < 0)
		return ir_fail(d, -1, -1, "%s has element type %s, which the IR does not support",
			       what, onnx_type_name(type));
	if (tp->n_dims > IR_MAX_RANK)
		return ir_fail(d, -1, -1, "%s has rank %zu (at most %d is supported)", what, tp->n_dims, IR_MAX_RANK);
	ir_shape s = {.rank = (int)tp->n_dims};
	for (size_t i = 0; i < tp->n_dims; i++)
		s.dim[i] = tp->dims[i];
	int64_t n = ir_shape_numel(&s);
	if (n < 0)
		return ir_fail(d, -1, -1, "%s has an invalid or too large shape", what);
	if ((tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) ||
	    tp->n_external_data)
		return ir_fail(d, -1, -1, "%s keeps its data in an external file, which is not supported "
			       "(save the model with its data inside)", what);
	if (tp->segment)
		return ir_fail(d, -1, -1, "%s is a segment of a tensor, which is not supported", what);
	size_t esz = ir_dtype_size((ir_dtype)t), size = (size_t)n * esz;
	size_t have;
	if (tp->has_raw_data)
		have = tp->raw_data.len / esz;
	else if (t == IR_DTYPE_F32)
		have = tp->n_float_data;
	else if (t == IR_DTYPE_I64)
		have = tp->n_int64_data;
	else
		have = tp->n_int32_data;
	if (tp->has_raw_data ? tp->raw_data.len != size : have != (size_t)n) {
		if (tp->has_raw_data)
			return ir_fail(d, -1, -1, "%s has %zu bytes of data, its shape needs %zu",
				       what, tp->raw_data.len, size);
		return ir_fail(d, -1, -1, "%s has %zu values, its shape needs %lld", what, have, (long long)n);
	}
	uint8_t *p = malloc(size ? size : 1);
	if (!p)
		return ir_fail(d, -1, -1, "out of memory");
	if (tp->has_raw_data) {
		if (size)
			memcpy(p, tp->raw_data.data, size);
		if (t == IR_DTYPE_BOOL)
			for (size_t i = 0; i < size; i++)
				p[i] = p[i] != 0;
	} else {
		for (int64_t i = 0; i < n; i++) {
			num v = {.is_int = true};
			if (t == IR_DTYPE_F32) {
				v.is_int = false;
				v.f = tp->float_data[i];
			} else if (t == IR_DTYPE_I64) {
				v.i = tp->int64_data[i];
			} else if (t == IR_DTYPE_F16 || t == IR_DTYPE_BF16) {
				/* 16-bit floats travel as their bit patterns in int32_data */
				uint16_t h = (uint16_t)tp->int32_data[i];
				memcpy(p + 2 * i, &h, 2);
				continue;
			} else {
				v.i = tp->int32_data[i];
			}
			num_put((ir_dtype)t, p, i, v);
		}
	}
	*dt = (ir_dtype)t;
	*shape = s;
	*data = p;
	*nbytes = size;
	return 0;
}

int onnx_tensor_read(const uint8_t *buf, size_t size, ir_dtype *dt, ir_shape *shape,
		     void **data, size_t *nbytes, char **name, ir_diag *d)
{
	Onnx__TensorProto *tp = pb_check(buf, size, PB_TENSOR, 0) ? NULL :
				onnx__tensor_proto__unpack(NULL, size, buf);
	if (!tp)
		return ir_fail(d, -1, -1, "not an ONNX TensorProto (protobuf parse failed)");
	char what[300];
	snprintf(what, sizeof what, "tensor '%s'", tp->name ? tp->name : "");
	int rc = tensor_decode(tp, what, dt, shape, data, nbytes, d);
	if (rc == 0) {
		*name = malloc(strlen(tp->name ? tp->name : "") + 1);
		if (*name) {
			strcpy(*name, tp->name ? tp->name : "");
		} else {
			free(*data);
			*data = NULL;
			rc = ir_fail(d, -1, -1, "out of memory");
		}
	}
	onnx__tensor_proto__free_unpacked(tp, NULL);
	return rc;
}

/* ================================================================ importer state */

typedef struct {
	const char *name;
	int tensor;		/* IR tensor, -1 until made */
	int cst;		/* IR constant holding its value, or -1 */
	const Onnx__TensorProto *init;	/* initializer not yet in the graph */
	int producer;		/* ONNX node index, or -1 */
	bool needed;		/* read by a needed node or a graph output */
	bool poisoned;		/* made by a node that could not be imported */
} value;

typedef struct {
	const Onnx__GraphProto *gp;
	const onnx_import_opts *opts;
	ib b;			/* the graph, diagnostics, names, problems */
	int opset;
	value *v;
	int nv, capv;
	int *slot;		/* hash of value names: value index or -1 */
	size_t nslot;
	int *in_ids, n_in_ids;	/* IR graph inputs */
	int *in_pos;		/* their positions among the model's inputs */
	int late_input;		/* add_inputs: only this one (an If branch reads it), or -1 */
	/* Every node that can be imported: the main graph's, then those of
	 * the If branches taken, as they are reached; value.producer indexes
	 * this list. */
	const Onnx__NodeProto **nodes;
	char *converted;	/* per node: already converted */
	int nn, capn;
	int depth;		/* If branches being imported */
} imp;

/* One ONNX node being converted. */
typedef struct {
	imp *im;
	ib *b;			/* &im->b: name and op_type of the node in b->name, b->op */
	const Onnx__NodeProto *np;
	int nin, nout;
	int *in, *out;		/* value indices, -1 for "" */
} cx;

static int val_find(const imp *im, const char *name)
{
	if (!im->nslot || !name)
		return -1;
	for (size_t i = ib_hash(name, strlen(name)) & (im->nslot - 1);; i = (i + 1) & (im->nslot - 1)) {
		int k = im->slot[i];
		if (k < 0 || strcmp(im->v[k].name, name) == 0)
			return k;
	}
}

static int rehash(imp *im)
{
	size_t n = im->nslot ? im->nslot * 2 : 64;
	int *s = malloc(n * sizeof(int));
	if (!s)
		return -1;
	for (size_t i = 0; i < n; i++)
		s[i] = -1;
	for (int k = 0; k < im->nv; k++) {
		size_t i = ib_hash(im->v[k].name, strlen(im->v[k].name)) & (n - 1);
		while (s[i] >= 0)
			i = (i + 1) & (n - 1);
		s[i] = k;
	}
	free(im->slot);
	im->slot = s;
	im->nslot = n;
	return 0;
}

/* Add a value (the name must be new); its index or -1 (out of memory). */
static int val_add(imp *im, const char *name)
{
	if (ib_grow((void **)&im->v, &im->capv, im->nv, sizeof(value)))
		return -1;
	value *v = &im->v[im->nv++];
	*v = (value){.name = name, .tensor = -1, .cst = -1, .producer = -1};
	if ((size_t)im->nv * 2 > im->nslot)
		return rehash(im) ? -1 : im->nv - 1;
	size_t i = ib_hash(name, strlen(name)) & (im->nslot - 1);
	while (im->slot[i] >= 0)
		i = (i + 1) & (im->nslot - 1);
	im->slot[i] = im->nv - 1;
	return im->nv - 1;
}

/* ---------------------------------------------------------------- diagnostics */

static bool val_taken(const void *im, const char *name) { return val_find(im, name) >= 0; }

/* A node whose op this importer does not know, or of another domain than
 * ONNX's: recorded as an unsupported op. 1, or -1 out of memory. */
static int unknown_op(cx *c)
{
	const Onnx__NodeProto *np = c->np;
	const char *op = c->b->op;
	if (np->domain && *np->domain && strcmp(np->domain, "ai.onnx"))
		op = ib_fmt(c->b, "%s.%s", np->domain, op);
	return ib_problem_add(c->b, 0, op, c->b->name, NULL) ? -1 : 1;
}

/* ---------------------------------------------------------------- attributes */

typedef Onnx__AttributeProto__AttributeType atype;
#define AT(x) ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##x

/* The attribute's type; models before IR version 2 have no type field. */
static atype attr_type(const Onnx__AttributeProto *a)
{
	if (a->has_type && a->type != AT(UNDEFINED))
		return a->type;
	return a->n_floats ? AT(FLOATS) : a->n_ints ? AT(INTS) : a->n_strings ? AT(STRINGS) :
	       a->t ? AT(TENSOR) : a->g ? AT(GRAPH) : a->has_f ? AT(FLOAT) : a->has_i ? AT(INT) :
	       a->has_s ? AT(STRING) : AT(UNDEFINED);
}

static const char *atype_name(atype t)
{
	switch (t) {
	case AT(FLOAT): return "a float";
	case AT(INT): return "an int";
	case AT(STRING): return "a string";
	case AT(TENSOR): return "a tensor";
	case AT(FLOATS): return "floats";
	case AT(INTS): return "ints";
	case AT(GRAPH): return "a graph";
	default: return "of another type";
	}
}

/* The attribute called name, or NULL; one of another type is an error. */
static const Onnx__AttributeProto *attr(cx *c, const char *name, atype want)
{
	for (size_t i = 0; i < c->np->n_attribute; i++) {
		const Onnx__AttributeProto *a = c->np->attribute[i];
		if (!a || !a->name || strcmp(a->name, name))
			continue;
		atype t = attr_type(a);
		if (t != want) {
			ib_fail(c->b, "attribute '%s' is %s, expected %s", name, atype_name(t), atype_name(want));
			return NULL;
		}
		return a;
	}
	return NULL;
}

static bool has_attr(cx *c, const char *name)
{
	for (size_t i = 0; i < c->np->n_attribute; i++)
		if (c->np->attribute[i] && c->np->attribute[i]->name && !strcmp(c->np->attribute[i]->name, name))
			return true;
	return false;
}

static int64_t ai(cx *c, const char *name, int64_t def)
{
	const Onnx__AttributeProto *a = attr(c, name, AT(INT));
	return a ? a->i : def;
}

static double af(cx *c, const char *name, double def)
{
	const Onnx__AttributeProto *a = attr(c, name, AT(FLOAT));
	return a ? a->f : def;
}

static const char *as(cx *c, const char *name, const char *def)
{
	const Onnx__AttributeProto *a = attr(c, name, AT(STRING));
	if (!a)
		return def;
	const char *s = ib_strn(c->b, a->s.data ? (const char *)a->s.data : "", a->s.len);
	if (!s) {
		ib_oom(c->b);
		return def;
	}
	return s;
}

/* Number of ints (and *v), or -1 if absent. */
static int aints(cx *c, const char *name, const int64_t **v)
{
	const Onnx__AttributeProto *a = attr(c, name, AT(INTS));
	*v = a ? a->ints : NULL;
	if (a && a->n_ints > 65536) {
		ib_fail(c->b, "attribute '%s' has too many values", name);
		return -1;
	}
	return a ? (int)a->n_ints : -1;
}

/* An ints attribute of exactly n values into out (def if absent). */
static int aints_n(cx *c, const char *name, int n, int64_t def, int64_t *out)
{
	const int64_t *v;
	int k = aints(c, name, &v);
	for (int i = 0; i < n; i++)
		out[i] = k < 0 ? def : i < k ? v[i] : 0;
	if (k >= 0 && k != n)
		return ib_fail(c->b, "attribute '%s' has %d values, expected %d", name, k, n);
	return c->b->failed ? -1 : 0;
}

/* ---------------------------------------------------------------- values of a node */

/* Put initializer k into the graph as a constant. */
static int materialize(imp *im, int k)
{
	value *v = &im->v[k];
	if (v->tensor >= 0 || !v->init)
		return 0;
	ir_dtype dt;
	ir_shape s;
	void *data;
	size_t n;
	char what[300];
	snprintf(what, sizeof what, "initializer '%.200s'", v->name);
	if (tensor_decode(v->init, what, &dt, &s, &data, &n, im->b.d))
		return -1;
	int id = ir_graph_add_const(im->b.g, v->name, dt, &s, data, im->b.d);
	free(data);
	if (id < 0)
		return -1;
	v->tensor = v->cst = id;
	return 0;
}

static bool has_in(const cx *c, int i) { return i < c->nin && c->in[i] >= 0; }

/* IR tensor of input i, or -1 if absent. */
static int in_id(const cx *c, int i) { return has_in(c, i) ? c->im->v[c->in[i]].tensor : -1; }

/* Input i's tensor (NULL if absent). Valid until the next tensor is added. */
static ir_tensor *in_t(const cx *c, int i) { return ir_graph_tensor(c->b->g, in_id(c, i)); }

static ir_shape in_shape(const cx *c, int i)
{
	const ir_tensor *t = in_t(c, i);
	return t ? t->shape : (ir_shape){0};
}

/* Input i's constant value, or NULL. */
static const ir_tensor *in_cst(const cx *c, int i)
{
	return has_in(c, i) ? ir_graph_tensor(c->b->g, c->im->v[c->in[i]].cst) : NULL;
}

/* Input i, which the IR needs as an attribute: NULL (and a problem
 * recorded) unless it is a constant. */
static const ir_tensor *need_cst(cx *c, int i, const char *what)
{
	const ir_tensor *t = in_cst(c, i);
	if (!has_in(c, i)) {
		ib_fail(c->b, "input %d (%s) is required", i, what);
		return NULL;
	}
	if (!t) {
		const char *name = c->im->v[c->in[i]].name;
		if (strcmp(name, what))
			ib_unsup(c->b, "input %d (%s, '%s') must be constant", i, what, name);
		else
			ib_unsup(c->b, "input %d (%s) must be constant", i, what);
	}
	return t;
}

/* Integers of a constant (at most max); count or -1 (failed). */
static int cst_ints(cx *c, const ir_tensor *t, int64_t *out, int max, const char *what)
{
	int64_t n = ir_shape_numel(&t->shape);
	if (t->shape.rank > 1 || n > max)
		return ib_fail(c->b, "%s must be a vector of at most %d values", what, max);
	if (!ib_dtype_is_int(t->dtype))
		return ib_fail(c->b, "%s must be integers (it is %s)", what, ir_dtype_name(t->dtype));
	for (int64_t k = 0; k < n; k++)
		out[k] = num_get(t, k).i;
	return (int)n;
}

static int cst_scalar(cx *c, const ir_tensor *t, const char *what, double *out)
{
	if (ir_shape_numel(&t->shape) != 1)
		return ib_fail(c->b, "%s must have one element", what);
	*out = num_f(num_get(t, 0));
	return 0;
}

/* Is output i needed by the outputs being imported? */
static bool out_used(const cx *c, int i)
{
	return i < c->nout && c->out[i] >= 0 && c->im->v[c->out[i]].needed;
}

/* Outputs from..nout-1 are not imported: they must be unused. */
static int only_outputs(cx *c, int from, const char *what)
{
	for (int i = from; i < c->nout; i++)
		if (out_used(c, i))
			return ib_unsup(c->b, "output %d (%s, '%s') is not supported", i, what, c->im->v[c->out[i]].name);
	return 0;
}

/* IR tensor for output i (a placeholder name for an unnamed one). */
static int out_id(cx *c, int i)
{
	value *v = i < c->nout && c->out[i] >= 0 ? &c->im->v[c->out[i]] : NULL;
	if (v && v->tensor >= 0)
		return v->tensor;
	int id = ib_tensor(c->b, v ? v->name : ib_unique(c->b, ib_fmt(c->b, "%s:%d", c->b->name, i), false));
	if (v && id >= 0)
		v->tensor = id;
	return id;
}

/* A new constant (for folded outputs: the output's own name). */
static int new_const(cx *c, int out, const char *suffix, ir_dtype dt, const ir_shape *s, const void *data)
{
	value *v = out >= 0 && out < c->nout && c->out[out] >= 0 ? &c->im->v[c->out[out]] : NULL;
	int id = ib_const(c->b, v ? v->name : ib_suffixed(c->b, suffix, false), dt, s, data);
	if (v && id >= 0)
		v->tensor = v->cst = id;
	return id;
}

static int scalar_const(cx *c, const char *suffix, ir_dtype dt, double value)
{
	uint8_t buf[8];
	num_put(dt, buf, 0, (num){.f = value, .i = ib_f2i(value)});
	return new_const(c, -1, suffix, dt, &(ir_shape){0}, buf);
}

/* ---------------------------------------------------------------- IR nodes */

/* One IR node over inputs 0..nin-1 and output 0: the common case. */
static int emit1(cx *c, int op, int nin)
{
	int ins[8];
	for (int i = 0; i < nin && i < 8; i++)
		ins[i] = in_id(c, i);
	int out = out_id(c, 0);
	return ib_emit(c->b, NULL, op, ins, nin < 8 ? nin : 8, &out, 1);
}

/* ================================================================ op handlers
 *
 * Each returns 0 (converted), 1 (a problem was recorded: the node's outputs
 * become unknown) or -1 (error in d). */

typedef struct op_entry op_entry;
struct op_entry {
	const char *name;	/* ONNX op_type */
	int (*conv)(cx *, const op_entry *);	/* NULL: only folded */
	int op;			/* IR op of simple mappings */
	/* ONNX attributes the op accepts; "name[>ir_name]=T[default]" (T: i f
	 * s) are copied to the IR node by cv_plain, bare names are read by
	 * the handler. Any other attribute is reported as unsupported. */
	const char *attrs;
	/* Evaluate at import: 0 done, 2 not possible here (convert instead),
	 * else as the handlers. */
	int (*fold)(cx *, const op_entry *);
};

#define NEED(t) do { if (!(t)) return c->b->failed ? -1 : 1; } while (0)
#define TRY(x) do { int r_ = (x); if (r_) return r_; } while (0)

/* Copy the "name=T" attributes of spec to IR node n. */
static void copy_attrs(cx *c, int n, const char *spec)
{
	for (const char *p = spec; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char item[64];
		snprintf(item, sizeof item, "%.*s", (int)len, p);
		p = end ? end + 1 : NULL;
		char *eq = strchr(item, '=');
		if (!eq)
			continue;
		*eq = 0;
		char type = eq[1], *gt = strchr(item, '>');
		const char *def = eq + 2, *key = item;
		if (gt) {
			*gt = 0;
			key = gt + 1;
		}
		if (!*def && !has_attr(c, item))
			continue;
		if (type == 'i')
			ib_set_i(c->b, n, key, ai(c, item, strtoll(def, NULL, 10)));
		else if (type == 'f')
			ib_set_f(c->b, n, key, af(c, item, (float)strtod(def, NULL)));
		else
			ib_set_s(c->b, n, key, as(c, item, def));
	}
}

/* One IR op, inputs and attributes as they are. */
static int cv_plain(cx *c, const op_entry *e)
{
	int nin = c->nin, min_in, max_in, min_out, max_out;
	while (nin > 0 && !has_in(c, nin - 1))
		nin--;
	ir_op_arity(e->op, &min_in, &max_in, &min_out, &max_out);
	if (nin > max_in)
		return ib_fail(c->b, "%d inputs, the IR op takes at most %d", nin, max_in);
	TRY(only_outputs(c, 1, "extra output"));
	int *ins = malloc(sizeof(int) * (size_t)(nin + 1)), out = out_id(c, 0);
	if (!ins)
		return ib_oom(c->b);
	for (int i = 0; i < nin; i++)
		ins[i] = in_id(c, i);
	int n = ib_emit(c->b, NULL, e->op, ins, nin, &out, 1);
	free(ins);
	copy_attrs(c, n, e->attrs);
	return ib_done(c->b, n);
}

/* PRelu: before opset 7 a slope of C values is per channel (axis 1); as
 * [C, 1, ...] it broadcasts the way the IR's prelu does. */
static int cv_prelu(cx *c, const op_entry *e)
{
	ir_shape xs = in_shape(c, 0);
	const ir_tensor *sl = in_cst(c, 1);
	if (c->im->opset >= 7 || !sl || sl->shape.rank != 1 || xs.rank < 3 || sl->shape.dim[0] != xs.dim[1] ||
	    xs.dim[1] == 1 || c->nin != 2)
		return cv_plain(c, e);
	TRY(only_outputs(c, 1, "extra output"));
	ir_shape s = {.rank = xs.rank - 1};
	s.dim[0] = xs.dim[1];
	for (int i = 1; i < s.rank; i++)
		s.dim[i] = 1;
	int ins[2] = {in_id(c, 0), new_const(c, -1, "slope", sl->dtype, &s, sl->data)}, out = out_id(c, 0);
	if (ins[1] < 0)
		return -1;
	return ib_done(c->b, ib_emit(c->b, NULL, e->op, ins, 2, &out, 1));
}

/* Output 0 keeps input 0's value in another shape: it is constant too. */
static int attach_cst(cx *c)
{
	const ir_tensor *x = in_cst(c, 0);
	if (!x || c->nout < 1 || c->out[0] < 0 || c->b->failed)
		return c->b->failed ? -1 : 0;
	value *v = &c->im->v[c->out[0]];
	ir_dtype dt = x->dtype;
	ir_shape s = ir_graph_tensor(c->b->g, v->tensor)->shape;
	int id = new_const(c, -1, "value", dt, &s, x->data);
	if (id < 0)
		return -1;
	c->im->v[c->out[0]].cst = id;
	return 0;
}

static int cv_identity(cx *c, const op_entry *e)
{
	(void)e;
	if (c->im->opset >= 12 && has_in(c, 2)) {	/* Dropout's training_mode */
		const ir_tensor *t = need_cst(c, 2, "training_mode");
		double v;
		NEED(t);
		if (cst_scalar(c, t, "training_mode", &v))
			return -1;
		if (v != 0)
			return ib_unsup(c->b, "training mode is not supported");
	}
	TRY(only_outputs(c, 1, "mask"));
	int n = emit1(c, IR_OP_IDENTITY, 1);
	if (ib_done(c->b, n))
		return -1;
	c->im->v[c->out[0]].cst = has_in(c, 0) ? c->im->v[c->in[0]].cst : -1;
	return 0;
}

static int cv_clip(cx *c, const op_entry *e)
{
	(void)e;
	double lim[2] = {-INFINITY, INFINITY};
	bool set[2] = {false, false};
	static const char *const names[2] = {"min", "max"};
	for (int i = 0; i < 2; i++) {
		if (c->im->opset < 11) {
			set[i] = has_attr(c, names[i]);
			lim[i] = af(c, names[i], lim[i]);
		} else if (has_in(c, i + 1)) {
			const ir_tensor *t = need_cst(c, i + 1, names[i]);
			NEED(t);
			if (cst_scalar(c, t, names[i], &lim[i]))
				return -1;
			set[i] = true;
		}
	}
	TRY(only_outputs(c, 1, "extra output"));
	int n = emit1(c, IR_OP_CLIP, 1);
	for (int i = 0; i < 2; i++)
		if (set[i])
			ib_set_f(c->b, n, names[i], lim[i]);
	return ib_done(c->b, n);
}

/* Softmax before opset 13 coerces the input to 2-D at axis. */
static int cv_softmax(cx *c, const op_entry *e)
{
	ir_shape xs = in_shape(c, 0);
	int64_t axis = ai(c, "axis", c->im->opset >= 13 ? -1 : 1);
	int a = ir_axis(axis, xs.rank);
	if (a < 0 && xs.rank > 0)
		return ib_fail(c->b, "axis %lld is out of range for rank %d", (long long)axis, xs.rank);
	if (c->im->opset >= 13 || a == xs.rank - 1 || xs.rank == 0) {
		int n = emit1(c, e->op, 1);
		ib_set_i(c->b, n, "axis", a < 0 ? -1 : a);
		return ib_done(c->b, n);
	}
	int64_t flat[2] = {1, 1};
	for (int i = 0; i < xs.rank; i++)
		flat[i >= a] *= xs.dim[i];
	int x = in_id(c, 0), t1 = ib_tmp(c->b, "2d"), t2 = ib_tmp(c->b, "2d_out"), y = out_id(c, 0);
	int n = ib_emit(c->b, "to_2d", IR_OP_RESHAPE, &x, 1, &t1, 1);
	ib_set_is(c->b, n, "shape", flat, 2);
	TRY(ib_done(c->b, n));
	n = ib_emit(c->b, NULL, e->op, &t1, 1, &t2, 1);
	ib_set_i(c->b, n, "axis", 1);
	TRY(ib_done(c->b, n));
	n = ib_emit(c->b, "from_2d", IR_OP_RESHAPE, &t2, 1, &y, 1);
	ib_set_is(c->b, n, "shape", xs.dim, xs.rank);
	return ib_done(c->b, n);
}

/* ---------------------------------------------------------------- convolution and pooling */

typedef struct {
	int nsp;			/* spatial dimensions */
	int64_t in[3], k[3], st[3], dil[3], pads[6];
} geom;

/* strides and dilations (default 1), checked against the kernel. */
static int geom_read(cx *c, geom *g, bool dilations)
{
	if (aints_n(c, "strides", g->nsp, 1, g->st) ||
	    (dilations ? aints_n(c, "dilations", g->nsp, 1, g->dil) : 0))
		return -1;
	for (int i = 0; i < g->nsp; i++) {
		if (!dilations)
			g->dil[i] = 1;
		if (g->st[i] < 1 || g->st[i] > IR_MAX_DIM || g->dil[i] < 1 || g->dil[i] > IR_MAX_DIM ||
		    g->k[i] < 1 || g->k[i] > IR_MAX_DIM || g->k[i] - 1 > IR_MAX_DIM / g->dil[i])
			return ib_fail(c->b, "kernel %lld, stride %lld, dilation %lld: out of range",
				     (long long)g->k[i], (long long)g->st[i], (long long)g->dil[i]);
	}
	return 0;
}

/* Explicit pads for Conv and pooling, resolving auto_pad. */
static int geom_pads(cx *c, geom *g)
{
	const char *ap = as(c, "auto_pad", "NOTSET");
	int n = g->nsp;
	if (!strcmp(ap, "NOTSET"))
		return aints_n(c, "pads", 2 * n, 0, g->pads);
	bool upper = !strcmp(ap, "SAME_UPPER");
	if (!upper && strcmp(ap, "SAME_LOWER") && strcmp(ap, "VALID"))
		return ib_fail(c->b, "auto_pad '%s' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID", ap);
	for (int i = 0; i < n; i++) {
		int64_t total = 0;
		if (strcmp(ap, "VALID")) {
			int64_t out = (g->in[i] + g->st[i] - 1) / g->st[i];
			total = (out - 1) * g->st[i] + (g->k[i] - 1) * g->dil[i] + 1 - g->in[i];
			if (total < 0)
				total = 0;
		}
		g->pads[i] = upper ? total / 2 : total - total / 2;
		g->pads[n + i] = total - g->pads[i];
	}
	return 0;
}

static int kernel_attr(cx *c, geom *g, bool required)
{
	const int64_t *k;
	int nk = aints(c, "kernel_shape", &k);
	if (nk < 0 && required)
		return c->b->failed ? -1 : ib_fail(c->b, "attribute 'kernel_shape' is required");
	if (nk >= 0 && nk != g->nsp)
		return ib_fail(c->b, "'kernel_shape' has %d values for %d spatial dimensions", nk, g->nsp);
	for (int i = 0; i < nk; i++) {
		if (!required && k[i] != g->k[i])
			return ib_fail(c->b, "'kernel_shape' disagrees with the weights");
		g->k[i] = k[i];
	}
	return 0;
}

/* The geometry of X (N, C, spatial...) with weights W (O, I, kernel...). */
static int geom_init(cx *c, geom *g, bool weights)
{
	ir_shape xs = in_shape(c, 0), ws = in_shape(c, 1);
	*g = (geom){.nsp = xs.rank - 2};
	if (g->nsp < 1 || g->nsp > 3)
		return ib_fail(c->b, "input has rank %d; 1-D to 3-D (rank 3 to 5) inputs are supported", xs.rank);
	if (weights && ws.rank != xs.rank)
		return ib_fail(c->b, "weights have rank %d, input has rank %d", ws.rank, xs.rank);
	for (int i = 0; i < g->nsp; i++) {
		g->in[i] = xs.dim[2 + i];
		g->k[i] = weights ? ws.dim[2 + i] : 0;
	}
	return kernel_attr(c, g, !weights);
}

static void set_geom(cx *c, int n, const geom *g, bool dilations)
{
	ib_set_is(c->b, n, "strides", g->st, g->nsp);
	ib_set_is(c->b, n, "pads", g->pads, 2 * g->nsp);
	if (dilations)
		ib_set_is(c->b, n, "dilations", g->dil, g->nsp);
}

static int cv_conv(cx *c, const op_entry *e)
{
	geom g;
	if (!has_in(c, 1))
		return ib_fail(c->b, "input 1 (weights) is required");
	if (geom_init(c, &g, true) || geom_read(c, &g, true) || geom_pads(c, &g))
		return -1;
	TRY(only_outputs(c, 1, "extra output"));
	int n = emit1(c, e->op, has_in(c, 2) ? 3 : 2);
	set_geom(c, n, &g, true);
	ib_set_i(c->b, n, "group", ai(c, "group", 1));
	return ib_done(c->b, n);
}

static int cv_conv_transpose(cx *c, const op_entry *e)
{
	geom g;
	int64_t op[3], os[IR_MAX_RANK];
	if (!has_in(c, 1))
		return ib_fail(c->b, "input 1 (weights) is required");
	if (geom_init(c, &g, true) || geom_read(c, &g, true) ||
	    aints_n(c, "output_padding", g.nsp, 0, op))
		return -1;
	const char *ap = as(c, "auto_pad", "NOTSET");
	const int64_t *osv;
	int nos = aints(c, "output_shape", &osv);
	bool same = !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER");
	if (!same && strcmp(ap, "NOTSET") && strcmp(ap, "VALID"))
		return ib_fail(c->b, "auto_pad '%s' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID", ap);
	if (nos >= 0 && nos != g.nsp && nos != g.nsp + 2)
		return ib_fail(c->b, "'output_shape' has %d values for %d spatial dimensions", nos, g.nsp);
	for (int i = 0; i < g.nsp; i++) {
		if (op[i] < 0 || op[i] > IR_MAX_DIM)
			return ib_fail(c->b, "bad output_padding");
		os[i] = nos >= 0 ? osv[nos - g.nsp + i] : g.in[i] * g.st[i];
		if (os[i] < 0 || os[i] > IR_MAX_DIM)
			return ib_fail(c->b, "bad output_shape");
	}
	if (nos < 0 && !same) {
		if (!strcmp(ap, "NOTSET") && aints_n(c, "pads", 2 * g.nsp, 0, g.pads))
			return -1;
		if (!strcmp(ap, "VALID"))
			memset(g.pads, 0, sizeof g.pads);
	} else {
		/* pads from the output size: ONNX's total_padding, split as
		 * auto_pad says; a negative total becomes output padding */
		for (int i = 0; i < g.nsp; i++) {
			int64_t total = g.st[i] * (g.in[i] - 1) + op[i] + (g.k[i] - 1) * g.dil[i] + 1 - os[i];
			if (total < 0) {
				op[i] -= total;
				total = 0;
			}
			int64_t head = !strcmp(ap, "SAME_UPPER") ? total / 2 : total - total / 2;
			g.pads[i] = head;
			g.pads[g.nsp + i] = total - head;
		}
	}
	TRY(only_outputs(c, 1, "extra output"));
	int n = emit1(c, e->op, has_in(c, 2) ? 3 : 2);
	set_geom(c, n, &g, true);
	ib_set_i(c->b, n, "group", ai(c, "group", 1));
	ib_set_is(c->b, n, "output_padding", op, g.nsp);
	return ib_done(c->b, n);
}

static int cv_pool(cx *c, const op_entry *e)
{
	geom g;
	bool maxp = e->op == IR_OP_MAX_POOL;
	if (geom_init(c, &g, false) || geom_read(c, &g, maxp) || geom_pads(c, &g))
		return -1;
	TRY(only_outputs(c, 1, "indices"));
	int n = emit1(c, e->op, 1);
	ib_set_is(c->b, n, "kernel", g.k, g.nsp);
	set_geom(c, n, &g, maxp);
	ib_set_i(c->b, n, "ceil_mode", ai(c, "ceil_mode", 0));
	if (!maxp)
		ib_set_i(c->b, n, "count_include_pad", ai(c, "count_include_pad", 0));
	return ib_done(c->b, n);
}

/* ---------------------------------------------------------------- normalization */

static int cv_batch_norm(cx *c, const op_entry *e)
{
	if (ai(c, "training_mode", 0))
		return ib_unsup(c->b, "training mode is not supported");
	if (ai(c, "spatial", 1) != 1)
		return ib_unsup(c->b, "spatial=0 (per-element statistics) is not supported");
	for (int i = 1; i < 5; i++)
		if (!has_in(c, i))
			return ib_fail(c->b, "input %d is required", i);
	TRY(only_outputs(c, 1, "running statistics"));
	int n = emit1(c, e->op, 5);
	ib_set_f(c->b, n, "epsilon", af(c, "epsilon", (float)1e-5));
	return ib_done(c->b, n);
}

static int cv_layer_norm(cx *c, const op_entry *e)
{
	TRY(only_outputs(c, 1, "mean or inverse standard deviation"));
	int n = emit1(c, e->op, has_in(c, 2) ? 3 : 2);
	ib_set_i(c->b, n, "axis", ai(c, "axis", -1));
	ib_set_f(c->b, n, "epsilon", af(c, "epsilon", (float)1e-5));
	return ib_done(c->b, n);
}

/* ---------------------------------------------------------------- reductions */

/* Axes from attribute 'axes' or (newer opsets) input 1, made non-negative
 * for the given rank. Count, -1 if absent; sets *st on problems. */
static int read_axes(cx *c, bool from_input, int rank, int64_t *axes, int *st)
{
	int n = -1;
	*st = 0;
	if (from_input) {
		if (has_in(c, 1)) {
			const ir_tensor *t = need_cst(c, 1, "axes");
			if (!t) {
				*st = c->b->failed ? -1 : 1;
				return -1;
			}
			if ((n = cst_ints(c, t, axes, IR_MAX_RANK, "axes")) < 0) {
				*st = -1;
				return -1;
			}
		}
	} else {
		const int64_t *v;
		n = aints(c, "axes", &v);
		if (n > IR_MAX_RANK) {
			*st = ib_fail(c->b, "'axes' has %d values", n);
			return -1;
		}
		for (int i = 0; i < n; i++)
			axes[i] = v[i];
	}
	for (int i = 0; i < n; i++) {
		int a = ir_axis(axes[i], rank);
		if (a < 0) {
			*st = ib_fail(c->b, "axis %lld is out of range for rank %d", (long long)axes[i], rank);
			return -1;
		}
		axes[i] = a;
	}
	if (c->b->failed)
		*st = -1;
	return n;
}

static int cv_reduce(cx *c, const op_entry *e)
{
	int64_t axes[IR_MAX_RANK];
	int st, rank = in_shape(c, 0).rank;
	bool input = c->im->opset >= 13 && e->op == IR_OP_REDUCE_SUM;
	int n = read_axes(c, input, rank, axes, &st);
	if (st)
		return st;
	TRY(only_outputs(c, 1, "extra output"));
	if (n <= 0 && ai(c, "noop_with_empty_axes", 0))
		return ib_done(c->b, emit1(c, IR_OP_IDENTITY, 1));
	int id = emit1(c, e->op, 1);
	if (n > 0)
		ib_set_is(c->b, id, "axes", axes, n);
	ib_set_i(c->b, id, "keepdims", ai(c, "keepdims", 1) != 0);
	return ib_done(c->b, id);
}

/* ---------------------------------------------------------------- data movement */

static int cv_reshape(cx *c, const op_entry *e)
{
	(void)e;
	int64_t s[IR_MAX_RANK];
	int n;
	if (c->im->opset < 5) {
		const int64_t *v;
		n = aints(c, "shape", &v);
		if (n < 0)
			return c->b->failed ? -1 : ib_fail(c->b, "attribute 'shape' is required");
		if (n > IR_MAX_RANK)
			return ib_fail(c->b, "'shape' has %d values (rank at most %d)", n, IR_MAX_RANK);
		memcpy(s, v, sizeof(int64_t) * (size_t)n);
	} else {
		const ir_tensor *t = need_cst(c, 1, "shape");
		NEED(t);
		if ((n = cst_ints(c, t, s, IR_MAX_RANK, "shape")) < 0)
			return -1;
	}
	ir_shape xs = in_shape(c, 0), o = {.rank = n};
	bool allowzero = ai(c, "allowzero", 0) != 0;
	int infer = -1;
	int64_t known = 1, total = ir_shape_numel(&xs);
	for (int i = 0; i < n; i++) {
		int64_t d = s[i];
		if (d == 0 && !allowzero) {
			if (i >= xs.rank)
				return ib_fail(c->b, "shape[%d] is 0 (copy) but the input has rank %d", i, xs.rank);
			d = xs.dim[i];
		}
		if (d == -1) {
			if (infer >= 0)
				return ib_fail(c->b, "shape has more than one -1");
			infer = i;
			d = 1;
		} else if (d < 0 || d > IR_MAX_DIM) {
			return ib_fail(c->b, "bad dimension %lld in shape", (long long)s[i]);
		}
		if (ir_mul_checked(&known, d, IR_MAX_ELEMS))
			return ib_fail(c->b, "shape is too large");
		o.dim[i] = d;
	}
	if (infer >= 0 && allowzero && !known)
		return ib_fail(c->b, "shape has both -1 and 0, which allowzero=1 does not allow");
	if (infer >= 0 && known && total % known == 0)
		o.dim[infer] = total / known;
	if (ir_shape_numel(&o) != total) {
		char s1[128], s2[128];
		return ib_fail(c->b, "cannot reshape %s into %s", ir_shape_str(&xs, s1, sizeof s1),
			     ir_shape_str(&o, s2, sizeof s2));
	}
	TRY(only_outputs(c, 1, "extra output"));
	if (total == 0) {
		/* an empty result (allowzero=1 with a 0 in shape, or an empty
		 * input) has no data: a constant, whose 0 dimensions the IR's
		 * reshape (where 0 copies the input's dimension) cannot state */
		static const uint8_t none[8];
		return new_const(c, 0, "value", in_t(c, 0)->dtype, &o, none) < 0 ? -1 : 0;
	}
	int id = emit1(c, IR_OP_RESHAPE, 1);
	ib_set_is(c->b, id, "shape", o.dim, o.rank);
	return ib_done(c->b, id) ? -1 : attach_cst(c);
}

static int cv_flatten(cx *c, const op_entry *e)
{
	(void)e;
	int r = in_shape(c, 0).rank;
	int64_t axis = ai(c, "axis", 1);
	if (axis < -r || axis > r)
		return ib_fail(c->b, "axis %lld is out of range for rank %d", (long long)axis, r);
	int id = emit1(c, IR_OP_FLATTEN, 1);
	ib_set_i(c->b, id, "axis", axis < 0 ? axis + r : axis);
	return ib_done(c->b, id) ? -1 : attach_cst(c);
}

static int cv_squeeze(cx *c, const op_entry *e)
{
	ir_shape xs = in_shape(c, 0);
	bool unsq = e->op == IR_OP_UNSQUEEZE;
	int64_t axes[IR_MAX_RANK];
	int st, n;
	if (unsq) {
		/* axes index the output: count them first */
		int cnt = 0;
		if (c->im->opset >= 13) {
			const ir_tensor *t = need_cst(c, 1, "axes");
			NEED(t);
			cnt = (int)ir_shape_numel(&t->shape);
		} else {
			const int64_t *v;
			cnt = aints(c, "axes", &v);
		}
		if (cnt < 1 || xs.rank + cnt > IR_MAX_RANK)
			return c->b->failed ? -1 : ib_fail(c->b, "'axes' must have 1 to %d values", IR_MAX_RANK - xs.rank);
		n = read_axes(c, c->im->opset >= 13, xs.rank + cnt, axes, &st);
	} else {
		n = read_axes(c, c->im->opset >= 13, xs.rank, axes, &st);
	}
	if (st)
		return st;
	if (n <= 0 && !unsq)	/* squeeze all dimensions of size 1 */
		for (int i = n = 0; i < xs.rank; i++)
			if (xs.dim[i] == 1)
				axes[n++] = i;
	int id = emit1(c, e->op, 1);
	if (n > 0 || unsq)
		ib_set_is(c->b, id, "axes", axes, n);
	return ib_done(c->b, id) ? -1 : attach_cst(c);
}

static int cv_transpose(cx *c, const op_entry *e)
{
	int r = in_shape(c, 0).rank;
	int64_t perm[IR_MAX_RANK];
	for (int i = 0; i < r; i++)
		perm[i] = r - 1 - i;
	if (has_attr(c, "perm") && aints_n(c, "perm", r, 0, perm))
		return -1;
	int id = emit1(c, e->op, 1);
	ib_set_is(c->b, id, "perm", perm, r);
	return ib_done(c->b, id);
}

static int cv_split(cx *c, const op_entry *e)
{
	ir_shape xs = in_shape(c, 0);
	int64_t axis = ai(c, "axis", 0), sizes[1024];
	int a = ir_axis(axis, xs.rank), n = -1;
	if (a < 0)
		return c->b->failed ? -1 : ib_fail(c->b, "axis %lld is out of range for rank %d", (long long)axis, xs.rank);
	if (c->nout < 1 || c->nout > 1024)
		return ib_fail(c->b, "%d outputs (1 to 1024 are supported)", c->nout);
	if (c->im->opset >= 13) {
		if (has_in(c, 1)) {
			const ir_tensor *t = need_cst(c, 1, "split");
			NEED(t);
			if ((n = cst_ints(c, t, sizes, 1024, "split")) < 0)
				return -1;
		}
	} else {
		const int64_t *v;
		n = aints(c, "split", &v);
		if (n > 1024)
			return ib_fail(c->b, "'split' has too many values");
		for (int i = 0; i < n; i++)
			sizes[i] = v[i];
	}
	int outs[1024], x = in_id(c, 0);
	for (int i = 0; i < c->nout; i++)
		outs[i] = out_id(c, i);
	int id = ib_emit(c->b, NULL, e->op, &x, 1, outs, c->nout);
	ib_set_i(c->b, id, "axis", a);
	if (n >= 0)
		ib_set_is(c->b, id, "split", sizes, n);
	return ib_done(c->b, id);
}

/* Slice parameters, resolved against the input shape into non-negative
 * starts (first index), ends (one past the last taken index, or
 * INT64_MIN for a backward slice through index 0), axes and steps. */
typedef struct {
	int n;
	int64_t axes[IR_MAX_RANK], starts[IR_MAX_RANK], ends[IR_MAX_RANK], steps[IR_MAX_RANK],
		count[IR_MAX_RANK];
} slice_spec;

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static int slice_read(cx *c, const ir_shape *xs, slice_spec *sp)
{
	int64_t *dst[4] = {sp->starts, sp->ends, sp->axes, sp->steps};
	static const char *const what[4] = {"starts", "ends", "axes", "steps"};
	int cnt[4] = {-1, -1, -1, -1};
	for (int k = 0; k < 4; k++) {
		if (c->im->opset < 10) {
			const int64_t *v;
			if (k == 3)
				break;
			cnt[k] = aints(c, what[k], &v);
			if (cnt[k] > IR_MAX_RANK)
				return ib_fail(c->b, "'%s' has %d values", what[k], cnt[k]);
			for (int i = 0; i < cnt[k]; i++)
				dst[k][i] = v[i];
		} else if (has_in(c, k + 1)) {
			const ir_tensor *t = need_cst(c, k + 1, what[k]);
			NEED(t);
			if ((cnt[k] = cst_ints(c, t, dst[k], IR_MAX_RANK, what[k])) < 0)
				return -1;
		}
	}
	if (c->b->failed)
		return -1;
	if (cnt[0] < 0 || cnt[1] != cnt[0])
		return ib_fail(c->b, "starts and ends are required and must have the same length");
	if ((cnt[2] >= 0 && cnt[2] != cnt[0]) || (cnt[3] >= 0 && cnt[3] != cnt[0]))
		return ib_fail(c->b, "axes and steps must have as many values as starts");
	sp->n = cnt[0];
	bool seen[IR_MAX_RANK] = {false};
	for (int i = 0; i < sp->n; i++) {
		int a = ir_axis(cnt[2] >= 0 ? sp->axes[i] : i, xs->rank);
		if (a < 0 || seen[a])
			return ib_fail(c->b, "slice axis %lld is out of range or repeated",
				     (long long)(cnt[2] >= 0 ? sp->axes[i] : i));
		seen[a] = true;
		int64_t dim = xs->dim[a], step = cnt[3] >= 0 ? sp->steps[i] : 1;
		int64_t start = sp->starts[i], end = sp->ends[i], first, count;
		if (step == 0)
			return ib_fail(c->b, "slice step must not be 0");
		step = clamp64(step, -IR_MAX_DIM - 1, IR_MAX_DIM + 1);
		if (start < 0)
			start += dim;
		if (end < 0)
			end += dim;
		if (step > 0) {
			first = clamp64(start, 0, dim);
			end = clamp64(end, 0, dim);
			count = end > first ? (end - first + step - 1) / step : 0;
		} else {
			first = clamp64(start, 0, dim - 1);
			end = clamp64(end, -1, dim - 1);
			count = first > end ? (first - end - step - 1) / -step : 0;
		}
		if (dim == 0)
			first = count = 0;
		sp->axes[i] = a;
		sp->steps[i] = step;
		sp->starts[i] = first;
		sp->count[i] = count;
		if (count == 0)
			sp->ends[i] = first;
		else if (step > 0)
			sp->ends[i] = first + (count - 1) * step + 1;
		else
			sp->ends[i] = first + (count - 1) * step - 1 < 0 ? INT64_MIN : first + (count - 1) * step - 1;
	}
	return 0;
}

static int cv_slice(cx *c, const op_entry *e)
{
	ir_shape xs = in_shape(c, 0);
	slice_spec sp;
	TRY(slice_read(c, &xs, &sp));
	int id = emit1(c, e->op, 1);
	ib_set_is(c->b, id, "starts", sp.starts, sp.n);
	ib_set_is(c->b, id, "ends", sp.ends, sp.n);
	ib_set_is(c->b, id, "axes", sp.axes, sp.n);
	ib_set_is(c->b, id, "steps", sp.steps, sp.n);
	return ib_done(c->b, id);
}

static int cv_pad(cx *c, const op_entry *e)
{
	int r = in_shape(c, 0).rank;
	int64_t pads[2 * IR_MAX_RANK];
	double value = 0;
	const char *mode = as(c, "mode", "constant");
	if (strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "edge"))
		return ib_unsup(c->b, "pad mode '%s' is not supported", mode);
	if (c->im->opset < 11) {
		if (aints_n(c, "pads", 2 * r, 0, pads))
			return -1;
		if (!has_attr(c, "pads"))
			return ib_fail(c->b, "attribute 'pads' is required");
		value = af(c, "value", 0);
	} else {
		const ir_tensor *t = need_cst(c, 1, "pads");
		NEED(t);
		int n = cst_ints(c, t, pads, 2 * IR_MAX_RANK, "pads");
		if (n < 0)
			return -1;
		if (n != 2 * r)
			return ib_fail(c->b, "pads has %d values, the input has rank %d", n, r);
		if (has_in(c, 2)) {
			const ir_tensor *v = need_cst(c, 2, "constant_value");
			NEED(v);
			if (cst_scalar(c, v, "constant_value", &value))
				return -1;
		}
		if (has_in(c, 3))
			return ib_unsup(c->b, "input 3 (axes) is not supported");
	}
	int id = emit1(c, e->op, 1);
	ib_set_is(c->b, id, "pads", pads, 2 * r);
	ib_set_s(c->b, id, "mode", mode);
	if (!strcmp(mode, "constant"))
		ib_set_f(c->b, id, "value", value);
	return ib_done(c->b, id);
}

/* Resize (opset 10+) and Upsample: sizes always, scales when given. */
static int cv_resize(cx *c, const op_entry *e)
{
	ir_shape xs = in_shape(c, 0);
	int r = xs.rank, opset = c->im->opset;
	bool upsample = !strcmp(e->name, "Upsample");
	int scales_in = upsample ? 1 : opset >= 11 ? 2 : 1, sizes_in = upsample || opset < 11 ? -1 : 3;
	const char *mode = as(c, "mode", "nearest");
	if (!strcmp(mode, "bilinear"))
		mode = "linear";
	if (strcmp(mode, "nearest") && strcmp(mode, "linear") && strcmp(mode, "cubic"))
		return ib_unsup(c->b, "mode '%s' is not supported", mode);
	const char *ctm = upsample || opset < 11 ? "asymmetric" :
			  as(c, "coordinate_transformation_mode", "half_pixel");
	static const char *const ctms[] = {"half_pixel", "pytorch_half_pixel", "align_corners",
					   "asymmetric", "tf_half_pixel_for_nn"};
	bool known = false;
	for (size_t i = 0; i < sizeof ctms / sizeof ctms[0]; i++)
		known |= !strcmp(ctm, ctms[i]);
	if (!known)
		return ib_unsup(c->b, "coordinate_transformation_mode '%s' is not supported", ctm);
	const char *nm = upsample || opset < 11 ? "floor" : as(c, "nearest_mode", "round_prefer_floor");
	if (strcmp(nm, "round_prefer_floor") && strcmp(nm, "round_prefer_ceil") && strcmp(nm, "floor") &&
	    strcmp(nm, "ceil"))
		return ib_fail(c->b, "nearest_mode '%s' is not a known mode", nm);
	int64_t excl = ai(c, "exclude_outside", 0);
	double cubic_a = af(c, "cubic_coeff_a", -0.75f);
	double scales[IR_MAX_RANK];
	int64_t sizes[IR_MAX_RANK];
	int ns = -1, nz = -1;
	if (upsample && opset < 9) {
		const Onnx__AttributeProto *a = attr(c, "scales", AT(FLOATS));
		if (!a)
			return c->b->failed ? -1 : ib_fail(c->b, "attribute 'scales' is required");
		if (a->n_floats != (size_t)r)
			return ib_fail(c->b, "'scales' has %zu values for rank %d", a->n_floats, r);
		for (int i = 0; i < r; i++)
			scales[i] = a->floats[i];
		ns = r;
	} else if (has_in(c, scales_in) && (!in_t(c, scales_in) || ir_shape_numel(&in_t(c, scales_in)->shape))) {
		const ir_tensor *t = need_cst(c, scales_in, "scales");
		NEED(t);
		if (ir_shape_numel(&t->shape) != r || t->shape.rank != 1 || ib_dtype_is_int(t->dtype))
			return ib_fail(c->b, "scales must be %d floats", r);
		for (int i = 0; i < r; i++)
			scales[i] = num_f(num_get(t, i));
		ns = r;
	}
	if (sizes_in >= 0 && has_in(c, sizes_in)) {
		const ir_tensor *t = need_cst(c, sizes_in, "sizes");
		NEED(t);
		if ((nz = cst_ints(c, t, sizes, IR_MAX_RANK, "sizes")) < 0)
			return -1;
		if (nz != r)
			return ib_fail(c->b, "sizes has %d values for rank %d", nz, r);
	}
	if (ns < 0 && nz < 0)
		return ib_fail(c->b, "one of scales and sizes is required");
	if (ns >= 0 && nz >= 0)
		return ib_fail(c->b, "only one of scales and sizes may be given");
	for (int i = 0; i < r && nz < 0; i++) {
		double v = floor((double)xs.dim[i] * (double)(float)scales[i]);
		if (!(scales[i] > 0) || !(v >= 0 && v <= (double)IR_MAX_DIM))
			return ib_fail(c->b, "bad scale %g for dimension %d", scales[i], i);
		sizes[i] = (int64_t)v;
	}
	TRY(only_outputs(c, 1, "extra output"));
	int id = emit1(c, IR_OP_RESIZE, 1);
	ib_set_is(c->b, id, "sizes", sizes, r);
	if (ns >= 0)
		ib_set_fs(c->b, id, "scales", scales, r);
	ib_set_s(c->b, id, "mode", mode);
	ib_set_s(c->b, id, "coordinate_transformation_mode", ctm);
	ib_set_s(c->b, id, "nearest_mode", nm);
	if (!strcmp(mode, "cubic")) {
		ib_set_f(c->b, id, "cubic_coeff_a", cubic_a);
		if (excl)
			ib_set_i(c->b, id, "exclude_outside", 1);
	}
	return ib_done(c->b, id);
}

/* ---------------------------------------------------------------- recurrent */

static int cv_rnn(cx *c, const op_entry *e)
{
	static const char *const defaults[3][3] = {{"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
	int kind = e->op == IR_OP_RNN ? 0 : e->op == IR_OP_GRU ? 1 : 2, per = kind + 1;
	const char *dir = as(c, "direction", "forward");
	int dirs = !strcmp(dir, "bidirectional") ? 2 : 1;
	if (dirs == 1 && strcmp(dir, "forward") && strcmp(dir, "reverse"))
		return ib_fail(c->b, "direction '%s' is not forward, reverse or bidirectional", dir);
	const Onnx__AttributeProto *a = attr(c, "activations", AT(STRINGS));
	if (a) {
		bool ok = a->n_strings == (size_t)(per * dirs);
		for (size_t i = 0; ok && i < a->n_strings; i++) {
			const char *want = defaults[kind][i % (size_t)per];
			ok = a->strings[i].len == strlen(want) &&
			     !strncasecmp((const char *)a->strings[i].data, want, a->strings[i].len);
		}
		if (!ok)
			return ib_unsup(c->b, "activations other than the defaults (%s%s%s%s%s) are not supported",
				     defaults[kind][0], per > 1 ? ", " : "", per > 1 ? defaults[kind][1] : "",
				     per > 2 ? ", " : "", per > 2 ? defaults[kind][2] : "");
	}
	if (c->b->failed)
		return -1;
	int nin = c->nin < 8 ? c->nin : 8, nout = c->nout < 3 ? c->nout : 3;
	while (nin > 0 && !has_in(c, nin - 1))
		nin--;
	while (nout > 0 && !out_used(c, nout - 1))
		nout--;
	int ins[8], outs[3];
	for (int i = 0; i < nin; i++)
		ins[i] = in_id(c, i);
	for (int i = 0; i < nout; i++)
		outs[i] = out_id(c, i);
	int64_t hidden = ai(c, "hidden_size", 1);
	if (hidden < 1 || hidden > IR_MAX_DIM)
		return ib_fail(c->b, "hidden_size %lld is out of range", (long long)hidden);
	int id = ib_emit(c->b, NULL, e->op, ins, nin, outs, nout);
	if (has_attr(c, "hidden_size"))
		ib_set_i(c->b, id, "hidden_size", hidden);
	ib_set_s(c->b, id, "direction", dir);
	if (has_attr(c, "clip"))
		ib_set_f(c->b, id, "clip", af(c, "clip", 0));
	if (has_attr(c, "layout"))
		ib_set_i(c->b, id, "layout", ai(c, "layout", 0));
	if (kind == 1)
		ib_set_i(c->b, id, "linear_before_reset", ai(c, "linear_before_reset", 0));
	if (kind == 2 && has_attr(c, "input_forget"))
		ib_set_i(c->b, id, "input_forget", ai(c, "input_forget", 0));
	return ib_done(c->b, id);
}

/* ---------------------------------------------------------------- types, quantization */

static int cv_cast(cx *c, const op_entry *e)
{
	int t;
	if (!strcmp(e->name, "CastLike")) {
		if (!has_in(c, 1))
			return ib_fail(c->b, "input 1 is required");
		t = (int)in_t(c, 1)->dtype;
	} else {
		int64_t to = ai(c, "to", -1);
		if ((t = dtype_from_onnx(to)) < 0)
			return c->b->failed ? -1 : ib_unsup(c->b, "cast to %s is not supported", onnx_type_name(to));
	}
	int id = emit1(c, IR_OP_CAST, 1);
	ib_set_s(c->b, id, "to", ir_dtype_name((ir_dtype)t));
	return ib_done(c->b, id);
}

static int cv_quant(cx *c, const op_entry *e)
{
	if (!has_in(c, 1))
		return ib_fail(c->b, "input 1 (scale) is required");
	int id = emit1(c, e->op, has_in(c, 2) ? 3 : 2);
	if (has_attr(c, "axis"))
		ib_set_i(c->b, id, "axis", ai(c, "axis", 1));
	if (e->op == IR_OP_QUANTIZE && !has_in(c, 2))
		ib_set_s(c->b, id, "to", "u8");
	return ib_done(c->b, id);
}

/* ---------------------------------------------------------------- decompositions */

/* One IR node of a decomposition: op over a (and b unless -1) into a new
 * temporary, or into output 0 if last. Returns the node (attributes may
 * be set before done()); *out gets the result tensor. */
static int step(cx *c, const char *suffix, int op, int a, int b, bool last, int *out)
{
	int ins[2] = {a, b};
	*out = last ? out_id(c, 0) : ib_tmp(c->b, suffix);
	return ib_emit(c->b, last ? NULL : suffix, op, ins, b >= 0 ? 2 : 1, out, 1);
}

static ir_dtype dtype_of(const cx *c, int t) { return ir_graph_tensor(c->b->g, t)->dtype; }

/* Max, Min, Sum, Mean of any number of inputs: a chain of binary ops. */
static int cv_variadic(cx *c, const op_entry *e)
{
	bool mean = !strcmp(e->name, "Mean");
	int k = c->nin, acc;
	if (k < 1)
		return ib_fail(c->b, "at least one input is required");
	for (int i = 0; i < k; i++)
		if (!has_in(c, i))
			return ib_fail(c->b, "input %d is missing", i);
	TRY(only_outputs(c, 1, "extra output"));
	if (k == 1)
		return ib_done(c->b, emit1(c, IR_OP_IDENTITY, 1));
	acc = in_id(c, 0);
	for (int i = 1; i < k; i++) {
		const char *sfx = ib_fmt(c->b, "%d", i);
		TRY(ib_done(c->b, step(c, sfx ? sfx : "", e->op, acc, in_id(c, i), i == k - 1 && !mean, &acc)));
	}
	if (!mean)
		return 0;
	int cnt = scalar_const(c, "count", dtype_of(c, acc), k);
	return ib_done(c->b, step(c, NULL, IR_OP_DIV, acc, cnt, true, &acc));
}

/* Selu: gamma * elu(x, alpha). */
static int cv_selu(cx *c, const op_entry *e)
{
	(void)e;
	int t, n = step(c, "elu", IR_OP_ELU, in_id(c, 0), -1, false, &t);
	ib_set_f(c->b, n, "alpha", af(c, "alpha", 1.67326319217681884765625));
	TRY(ib_done(c->b, n));
	int gamma = scalar_const(c, "gamma", dtype_of(c, t), af(c, "gamma", 1.05070102214813232421875));
	return ib_done(c->b, step(c, NULL, IR_OP_MUL, t, gamma, true, &t));
}

/* Softsign: x / (1 + |x|). */
static int cv_softsign(cx *c, const op_entry *e)
{
	(void)e;
	int x = in_id(c, 0), t;
	TRY(ib_done(c->b, step(c, "abs", IR_OP_ABS, x, -1, false, &t)));
	int one = scalar_const(c, "one", dtype_of(c, t), 1);
	TRY(ib_done(c->b, step(c, "add", IR_OP_ADD, t, one, false, &t)));
	return ib_done(c->b, step(c, NULL, IR_OP_DIV, x, t, true, &t));
}

/* ArgMin: the first maximum of -x is the first minimum of x. */
static int cv_argmin(cx *c, const op_entry *e)
{
	(void)e;
	int t, n;
	TRY(ib_done(c->b, step(c, "neg", IR_OP_NEG, in_id(c, 0), -1, false, &t)));
	n = step(c, NULL, IR_OP_ARGMAX, t, -1, true, &t);
	ib_set_i(c->b, n, "axis", ai(c, "axis", 0));
	ib_set_i(c->b, n, "keepdims", ai(c, "keepdims", 1));
	ib_set_i(c->b, n, "select_last_index", ai(c, "select_last_index", 0));
	return ib_done(c->b, n);
}

/* ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum, ReduceLogSumExp
 * around reduce_sum (the last one shifted by the maximum, as runtimes
 * compute it, so large inputs do not overflow). */
static int cv_reduce_ext(cx *c, const op_entry *e)
{
	int64_t axes[IR_MAX_RANK];
	int st, x = in_id(c, 0), t = x, m = -1, n, na = read_axes(c, false, in_shape(c, 0).rank, axes, &st);
	int64_t keep = ai(c, "keepdims", 1) != 0;
	const char *op = e->name + strlen("Reduce");
	bool l1 = !strcmp(op, "L1"), l2 = !strcmp(op, "L2"), sq = !strcmp(op, "SumSquare"),
	     lse = !strcmp(op, "LogSumExp"), last = l1 || sq;
	if (st)
		return st;
	TRY(only_outputs(c, 1, "extra output"));
	if (lse) {
		/* shift by the maximum (kept dimensions), add it back as the result has it */
		int mk;
		n = step(c, "max", IR_OP_REDUCE_MAX, x, -1, false, &mk);
		if (na > 0)
			ib_set_is(c->b, n, "axes", axes, na);
		ib_set_i(c->b, n, "keepdims", 1);
		TRY(ib_done(c->b, n));
		TRY(ib_done(c->b, step(c, "shift", IR_OP_SUB, x, mk, false, &t)));
		TRY(ib_done(c->b, step(c, "exp", IR_OP_EXP, t, -1, false, &t)));
		m = mk;
		if (!keep) {
			n = step(c, "max_out", IR_OP_REDUCE_MAX, x, -1, false, &m);
			if (na > 0)
				ib_set_is(c->b, n, "axes", axes, na);
			ib_set_i(c->b, n, "keepdims", 0);
			TRY(ib_done(c->b, n));
		}
	}
	if (l1)
		TRY(ib_done(c->b, step(c, "abs", IR_OP_ABS, x, -1, false, &t)));
	if (l2 || sq)
		TRY(ib_done(c->b, step(c, "square", IR_OP_MUL, x, x, false, &t)));
	n = step(c, "sum", IR_OP_REDUCE_SUM, t, -1, last, &t);
	if (na > 0)
		ib_set_is(c->b, n, "axes", axes, na);
	ib_set_i(c->b, n, "keepdims", keep);
	TRY(ib_done(c->b, n));
	if (last)
		return 0;
	if (l2)
		return ib_done(c->b, step(c, NULL, IR_OP_SQRT, t, -1, true, &t));
	TRY(ib_done(c->b, step(c, "log", IR_OP_LOG, t, -1, !lse, &t)));
	return lse ? ib_done(c->b, step(c, NULL, IR_OP_ADD, t, m, true, &t)) : 0;
}

/* ================================================================ folding
 *
 * Nodes whose inputs are all constants are evaluated here when the IR has
 * no such op (Shape, ConstantOfShape, Range, Equal, Where, Expand) or when
 * they are small (the integer arithmetic of dynamic-shape exports), so
 * their results can feed inputs the IR takes as attributes. */

/* Room for a folded output of n elements of dt. */
static void *fold_buf(cx *c, ir_dtype dt, int64_t n)
{
	size_t esz = ir_dtype_size(dt);
	if (n < 0 || (uint64_t)n > FOLD_MAX_BYTES / esz) {
		ib_fail(c->b, "constant result of %lld elements is too large to compute at import", (long long)n);
		return NULL;
	}
	void *p = calloc((size_t)n + 1, esz);
	if (!p) {
		ib_oom(c->b);
	}
	return p;
}

/* Make output i a constant from buf (which is freed). */
static int fold_out(cx *c, int i, ir_dtype dt, const ir_shape *s, void *buf)
{
	int id = new_const(c, i, "value", dt, s, buf);
	free(buf);
	return id < 0 ? -1 : 0;
}

static int fold_constant(cx *c, const op_entry *e)
{
	(void)e;
	if (c->np->n_attribute != 1 || !c->np->attribute[0] || !c->np->attribute[0]->name)
		return ib_fail(c->b, "a Constant needs exactly one value attribute");
	const Onnx__AttributeProto *a = c->np->attribute[0];
	const char *k = a->name;
	if (!strcmp(k, "value")) {
		if (!(a = attr(c, k, AT(TENSOR))))
			return -1;
		if (!a->t)	/* typed a tensor, but none given */
			return ib_fail(c->b, "attribute 'value' holds no tensor");
		ir_dtype dt;
		ir_shape s;
		void *data;
		size_t n;
		char what[300];
		snprintf(what, sizeof what, "node '%.100s' (Constant): value", c->b->name);
		if (tensor_decode(a->t, what, &dt, &s, &data, &n, c->b->d)) {
			c->b->failed = true;
			return -1;
		}
		return fold_out(c, 0, dt, &s, data);
	}
	bool ints = !strcmp(k, "value_int") || !strcmp(k, "value_ints");
	if (!ints && strcmp(k, "value_float") && strcmp(k, "value_floats"))
		return ib_unsup(c->b, "a %s value is not supported", k);
	bool list = !strcmp(k, "value_ints") || !strcmp(k, "value_floats");
	if (!(a = attr(c, k, ints ? (list ? AT(INTS) : AT(INT)) : (list ? AT(FLOATS) : AT(FLOAT)))))
		return -1;
	int64_t n = !list ? 1 : ints ? (int64_t)a->n_ints : (int64_t)a->n_floats;
	ir_dtype dt = ints ? IR_DTYPE_I64 : IR_DTYPE_F32;
	ir_shape s = {.rank = list, .dim = {n}};
	void *buf = fold_buf(c, dt, n);
	if (!buf)
		return -1;
	for (int64_t i = 0; i < n; i++)
		num_put(dt, buf, i, ints ? (num){.is_int = true, .i = list ? a->ints[i] : a->i}
					 : (num){.f = list ? a->floats[i] : a->f});
	return fold_out(c, 0, dt, &s, buf);
}

static int fold_shape(cx *c, const op_entry *e)
{
	ir_shape xs = in_shape(c, 0);
	bool size = !strcmp(e->name, "Size");
	int64_t r = xs.rank, start = ai(c, "start", 0), end = ai(c, "end", r);
	start = clamp64(start < 0 ? start + r : start, 0, r);
	end = clamp64(end < 0 ? end + r : end, 0, r);
	int64_t n = size ? 1 : end > start ? end - start : 0;
	ir_shape s = {.rank = !size, .dim = {n}};
	int64_t *buf = fold_buf(c, IR_DTYPE_I64, n);
	if (!buf)
		return -1;
	if (size)
		buf[0] = ir_shape_numel(&xs);
	for (int64_t i = 0; i < n && !size; i++)
		buf[i] = xs.dim[start + i];
	return fold_out(c, 0, IR_DTYPE_I64, &s, buf);
}

/* A shape given as a constant vector (ConstantOfShape, Expand). */
static int cst_shape(cx *c, const ir_tensor *t, ir_shape *s)
{
	int n = cst_ints(c, t, s->dim, IR_MAX_RANK, "shape");
	if (n < 0)
		return -1;
	s->rank = n;
	if (ir_shape_numel(s) < 0)
		return ib_fail(c->b, "invalid or too large shape");
	return 0;
}

static int fold_constant_of_shape(cx *c, const op_entry *e)
{
	(void)e;
	ir_shape s;
	if (cst_shape(c, in_cst(c, 0), &s))
		return -1;
	ir_dtype dt = IR_DTYPE_F32;
	num v = {.f = 0};
	const Onnx__AttributeProto *a = attr(c, "value", AT(TENSOR));
	if (a && a->t) {
		ir_shape vs;
		void *data;
		size_t nb;
		if (tensor_decode(a->t, "attribute 'value'", &dt, &vs, &data, &nb, c->b->d)) {
			c->b->failed = true;
			return -1;
		}
		if (ir_shape_numel(&vs) != 1) {
			free(data);
			return ib_fail(c->b, "attribute 'value' must have one element");
		}
		ir_tensor tmp = {.dtype = dt, .data = data};
		v = num_get(&tmp, 0);
		free(data);
	} else if (c->b->failed) {
		return -1;
	}
	int64_t n = ir_shape_numel(&s);
	void *buf = fold_buf(c, dt, n);
	if (!buf)
		return -1;
	for (int64_t i = 0; i < n; i++)
		num_put(dt, buf, i, v);
	return fold_out(c, 0, dt, &s, buf);
}

static int fold_range(cx *c, const op_entry *e)
{
	(void)e;
	const ir_tensor *t[3];
	num v[3];
	for (int i = 0; i < 3; i++) {
		if (!(t[i] = in_cst(c, i)) || ir_shape_numel(&t[i]->shape) != 1)
			return ib_fail(c->b, "input %d must be a scalar", i);
		v[i] = num_get(t[i], 0);
	}
	ir_dtype dt = t[0]->dtype;
	double n = ceil((num_f(v[1]) - num_f(v[0])) / num_f(v[2]));
	if (v[0].is_int && v[2].i == 0)
		return ib_fail(c->b, "delta must not be 0");
	if (!(n < (double)IR_MAX_ELEMS))
		n = (double)IR_MAX_ELEMS;
	if (!(n > 0))
		n = 0;
	ir_shape s = {.rank = 1, .dim = {(int64_t)n}};
	void *buf = fold_buf(c, dt, s.dim[0]);
	if (!buf)
		return -1;
	for (int64_t i = 0; i < s.dim[0]; i++)
		num_put(dt, buf, i, v[0].is_int ? (num){.is_int = true, .i = (int64_t)((uint64_t)v[0].i + (uint64_t)i * (uint64_t)v[2].i)}
						: (num){.f = v[0].f + (double)i * v[2].f});
	return fold_out(c, 0, dt, &s, buf);
}

static int fold_cast(cx *c, const op_entry *e)
{
	(void)e;
	const ir_tensor *x = in_cst(c, 0);
	int64_t to = ai(c, "to", -1);
	int dt = dtype_from_onnx(to);
	if (dt < 0)
		return c->b->failed ? -1 : ib_unsup(c->b, "cast to %s is not supported", onnx_type_name(to));
	int64_t n = ir_shape_numel(&x->shape);
	ir_shape s = x->shape;
	void *buf = fold_buf(c, (ir_dtype)dt, n);
	if (!buf)
		return -1;
	for (int64_t i = 0; i < n; i++)
		num_put((ir_dtype)dt, buf, i, num_get(x, i));
	return fold_out(c, 0, (ir_dtype)dt, &s, buf);
}

/* Index into a tensor of shape in for element k of the broadcast shape out. */
static int64_t bcast_index(const ir_shape *out, const ir_shape *in, int64_t k)
{
	int64_t idx = 0, stride = 1;
	for (int d = out->rank - 1, j = in->rank - 1; d >= 0; d--, j--) {
		int64_t coord = k % out->dim[d];
		k /= out->dim[d];
		if (j >= 0) {
			if (in->dim[j] != 1)
				idx += coord * stride;
			stride *= in->dim[j];
		}
	}
	return idx;
}

enum { EW_ADD, EW_SUB, EW_MUL, EW_DIV, EW_MIN, EW_MAX, EW_EQ, EW_LT, EW_GT, EW_LE, EW_GE,
       EW_AND, EW_OR, EW_XOR, EW_NOT, EW_NEG, EW_WHERE, EW_EXPAND };

/* The kinds from EW_EQ to EW_NOT give bool. */
static bool ew_bool(int kind) { return kind >= EW_EQ && kind <= EW_NOT; }

static int ew_kind(const char *op)
{
	static const char *const names[] = {"Add", "Sub", "Mul", "Div", "Min", "Max", "Equal",
					    "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And",
					    "Or", "Xor", "Not", "Neg", "Where", "Expand"};
	for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
		if (!strcmp(op, names[i]))
			return i;
	return -1;
}

static num ew_apply(int kind, num a, num b, bool *bad)
{
	num r = {.is_int = a.is_int};
	if (a.is_int) {
		uint64_t x = (uint64_t)a.i, y = (uint64_t)b.i;
		switch (kind) {
		case EW_ADD: r.i = (int64_t)(x + y); break;
		case EW_SUB: r.i = (int64_t)(x - y); break;
		case EW_MUL: r.i = (int64_t)(x * y); break;
		case EW_DIV:
			if (b.i == 0 || (a.i == INT64_MIN && b.i == -1))
				*bad = true;
			else
				r.i = a.i / b.i;
			break;
		case EW_MIN: r.i = a.i < b.i ? a.i : b.i; break;
		case EW_MAX: r.i = a.i > b.i ? a.i : b.i; break;
		case EW_NEG: r.i = (int64_t)(0 - x); break;
		}
	} else {
		switch (kind) {
		case EW_ADD: r.f = a.f + b.f; break;
		case EW_SUB: r.f = a.f - b.f; break;
		case EW_MUL: r.f = a.f * b.f; break;
		case EW_DIV: r.f = a.f / b.f; break;
		case EW_MIN: r.f = fmin(a.f, b.f); break;
		case EW_MAX: r.f = fmax(a.f, b.f); break;
		case EW_NEG: r.f = -a.f; break;
		}
	}
	if (kind >= EW_EQ && kind <= EW_GE) {
		double x = num_f(a), y = num_f(b);
		int cmp = a.is_int ? (a.i > b.i) - (a.i < b.i) : (x > y) - (x < y);
		bool unordered = !a.is_int && (isnan(x) || isnan(y));
		bool v = !unordered && (kind == EW_EQ ? cmp == 0 : kind == EW_LT ? cmp < 0 : kind == EW_GT ? cmp > 0 :
					kind == EW_LE ? cmp <= 0 : cmp >= 0);
		r = (num){.is_int = true, .i = v};
	} else if (kind >= EW_AND && kind <= EW_NOT) {
		bool x = num_i(a) != 0, y = num_i(b) != 0;
		r = (num){.is_int = true, .i = kind == EW_AND ? x && y : kind == EW_OR ? x || y : kind == EW_XOR ? x != y : !x};
	}
	return r;
}

/* Elementwise ops with numpy broadcasting, Where and Expand. */
static int fold_elementwise(cx *c, const op_entry *e)
{
	int kind = ew_kind(e->name), nin = kind == EW_NEG || kind == EW_NOT ? 1 : kind == EW_WHERE ? 3 : 2;
	const ir_tensor *t[3] = {NULL, NULL, NULL};
	ir_shape s = {0}, xs;
	if (c->nin != nin)
		return 2;	/* variadic Max/Min: convert */
	for (int i = 0; i < nin; i++) {
		t[i] = in_cst(c, i);
		if (kind == EW_EXPAND && i == 1) {
			if (cst_shape(c, t[1], &xs))
				return -1;
		} else {
			xs = t[i]->shape;
		}
		if (ir_shape_broadcast(&s, &xs, &s) < 0)
			return ib_fail(c->b, "input shapes do not broadcast");
	}
	int a = kind == EW_WHERE ? 1 : 0;
	if (kind != EW_EXPAND && nin > 1 && t[a]->dtype != t[nin - 1]->dtype)
		return ib_fail(c->b, "input types differ");
	if (kind == EW_WHERE && t[0]->dtype != IR_DTYPE_BOOL)
		return ib_fail(c->b, "the condition must be bool");
	if (kind >= EW_AND && kind <= EW_NOT && t[0]->dtype != IR_DTYPE_BOOL)
		return ib_fail(c->b, "the inputs must be bool");
	ir_dtype dt = ew_bool(kind) ? IR_DTYPE_BOOL : t[a]->dtype;
	int64_t n = ir_shape_numel(&s);
	void *buf = fold_buf(c, dt, n);
	bool bad = false;
	if (!buf)
		return -1;
	for (int64_t k = 0; k < n; k++) {
		num x = num_get(t[a], bcast_index(&s, &t[a]->shape, k)), r;
		if (kind == EW_WHERE)
			r = num_get(t[0], bcast_index(&s, &t[0]->shape, k)).i
				    ? x : num_get(t[2], bcast_index(&s, &t[2]->shape, k));
		else if (kind == EW_EXPAND)
			r = x;
		else
			r = ew_apply(kind, x, nin > 1 ? num_get(t[1], bcast_index(&s, &t[1]->shape, k)) : x, &bad);
		num_put(dt, buf, k, r);
	}
	if (bad) {
		free(buf);
		return ib_fail(c->b, "integer division by zero or overflow");
	}
	return fold_out(c, 0, dt, &s, buf);
}

static int fold_concat(cx *c, const op_entry *e)
{
	(void)e;
	const ir_tensor *x = in_cst(c, 0);
	int r = x->shape.rank;
	int64_t axis = ai(c, "axis", 0);
	int a = ir_axis(axis, r);
	if (a < 0 || c->b->failed)
		return c->b->failed ? -1 : ib_fail(c->b, "axis %lld is out of range for rank %d", (long long)axis, r);
	ir_shape s = x->shape;
	s.dim[a] = 0;
	for (int i = 0; i < c->nin; i++) {
		const ir_tensor *t = in_cst(c, i);
		if (!t || t->dtype != x->dtype || t->shape.rank != r)
			return ib_fail(c->b, "input %d differs in type or rank", i);
		for (int d = 0; d < r; d++)
			if (d != a && t->shape.dim[d] != x->shape.dim[d])
				return ib_fail(c->b, "input %d differs in dimension %d", i, d);
		s.dim[a] += t->shape.dim[a];
	}
	int64_t n = ir_shape_numel(&s), outer = 1;
	for (int d = 0; d < a; d++)
		outer *= s.dim[d];
	uint8_t *buf = fold_buf(c, x->dtype, n), *p = buf;
	if (!buf)
		return -1;
	for (int64_t o = 0; o < outer; o++)
		for (int i = 0; i < c->nin; i++) {
			const ir_tensor *t = in_cst(c, i);
			size_t chunk = t->nbytes / (size_t)(outer ? outer : 1);
			memcpy(p, (const uint8_t *)t->data + (size_t)o * chunk, chunk);
			p += chunk;
		}
	return fold_out(c, 0, x->dtype, &s, buf);
}

static int fold_gather(cx *c, const op_entry *e)
{
	(void)e;
	const ir_tensor *x = in_cst(c, 0), *idx = in_cst(c, 1);
	int64_t axis = ai(c, "axis", 0);
	if (!idx)
		return 2;
	int a = ir_axis(axis, x->shape.rank);
	if (a < 0 || !ib_dtype_is_int(idx->dtype))
		return c->b->failed ? -1 : ib_fail(c->b, "axis out of range or indices not integers");
	if (x->shape.rank - 1 + idx->shape.rank > IR_MAX_RANK)
		return ib_fail(c->b, "result rank exceeds %d", IR_MAX_RANK);
	ir_shape s = {0};
	int64_t outer = 1, inner = 1, dim = x->shape.dim[a], ni = ir_shape_numel(&idx->shape);
	for (int d = 0; d < a; d++)
		outer *= s.dim[s.rank++] = x->shape.dim[d];
	for (int d = 0; d < idx->shape.rank; d++)
		s.dim[s.rank++] = idx->shape.dim[d];
	for (int d = a + 1; d < x->shape.rank; d++)
		inner *= s.dim[s.rank++] = x->shape.dim[d];
	size_t esz = ir_dtype_size(x->dtype);
	uint8_t *buf = fold_buf(c, x->dtype, ir_shape_numel(&s)), *p = buf;
	if (!buf)
		return -1;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < ni; j++) {
			int64_t k = num_get(idx, j).i;
			if (k < 0)
				k += dim;
			if (k < 0 || k >= dim) {
				free(buf);
				return ib_fail(c->b, "index %lld is out of range for dimension %lld",
					     (long long)num_get(idx, j).i, (long long)dim);
			}
			memcpy(p, (const uint8_t *)x->data + ((size_t)(o * dim + k) * (size_t)inner) * esz,
			       (size_t)inner * esz);
			p += (size_t)inner * esz;
		}
	return fold_out(c, 0, x->dtype, &s, buf);
}

static int fold_slice(cx *c, const op_entry *e)
{
	(void)e;
	const ir_tensor *x = in_cst(c, 0);
	ir_shape xs = x->shape, s = xs;
	slice_spec sp;
	int64_t first[IR_MAX_RANK] = {0}, step[IR_MAX_RANK];
	TRY(slice_read(c, &xs, &sp));
	x = in_cst(c, 0);
	for (int d = 0; d < xs.rank; d++)
		step[d] = 1;
	for (int i = 0; i < sp.n; i++) {
		int a = (int)sp.axes[i];
		first[a] = sp.starts[i];
		step[a] = sp.steps[i];
		s.dim[a] = sp.count[i];
	}
	int64_t n = ir_shape_numel(&s);
	size_t esz = ir_dtype_size(x->dtype);
	uint8_t *buf = fold_buf(c, x->dtype, n);
	if (!buf)
		return -1;
	for (int64_t k = 0; k < n; k++) {
		int64_t rem = k, src = 0, stride = 1;
		for (int d = s.rank - 1; d >= 0; d--) {
			int64_t coord = rem % s.dim[d];
			rem /= s.dim[d];
			src += (first[d] + coord * step[d]) * stride;
			stride *= xs.dim[d];
		}
		memcpy(buf + (size_t)k * esz, (const uint8_t *)x->data + (size_t)src * esz, esz);
	}
	return fold_out(c, 0, x->dtype, &s, buf);
}

static int fold_transpose(cx *c, const op_entry *e)
{
	(void)e;
	const ir_tensor *x = in_cst(c, 0);
	ir_shape xs = x->shape, s = {.rank = xs.rank};
	int64_t perm[IR_MAX_RANK], stride[IR_MAX_RANK];
	for (int i = 0; i < xs.rank; i++)
		perm[i] = xs.rank - 1 - i;
	if (has_attr(c, "perm") && aints_n(c, "perm", xs.rank, 0, perm))
		return -1;
	bool seen[IR_MAX_RANK] = {false};
	for (int i = 0; i < xs.rank; i++) {
		if (perm[i] < 0 || perm[i] >= xs.rank || seen[perm[i]])
			return ib_fail(c->b, "'perm' is not a permutation");
		seen[perm[i]] = true;
		s.dim[i] = xs.dim[perm[i]];
	}
	int64_t st = 1;
	for (int d = xs.rank - 1; d >= 0; d--) {
		stride[d] = st;
		st *= xs.dim[d];
	}
	int64_t n = ir_shape_numel(&s);
	size_t esz = ir_dtype_size(x->dtype);
	uint8_t *buf = fold_buf(c, x->dtype, n);
	if (!buf)
		return -1;
	for (int64_t k = 0; k < n; k++) {
		int64_t rem = k, src = 0;
		for (int d = s.rank - 1; d >= 0; d--) {
			src += rem % s.dim[d] * stride[perm[d]];
			rem /= s.dim[d];
		}
		memcpy(buf + (size_t)k * esz, (const uint8_t *)x->data + (size_t)src * esz, esz);
	}
	return fold_out(c, 0, x->dtype, &s, buf);
}

/* ---------------------------------------------------------------- folding through the interpreter */

/* Run IR node i of g alone on its constant inputs; on success its outputs
 * become constants (names kept) and the node goes. 0 done, 1 not
 * possible (left as it is), -1 out of memory. */
static int fold_ir_node(imp *im, int i)
{
	ir_graph *g = im->b.g;
	const ir_node *n = ir_graph_node(g, i);
	ir_graph *h = ir_graph_new();
	ir_exec *ex = NULL;
	ir_diag d;
	int rc = 1, *ids = malloc(sizeof(int) * (size_t)(n->n_inputs + n->n_outputs + 1)), *out = ids + n->n_inputs;
	if (!h || !ids) {
		rc = ib_oom(&im->b);
		goto out;
	}
	for (int j = 0; j < n->n_inputs + n->n_outputs; j++) {
		bool input = j < n->n_inputs;
		int t = input ? n->inputs[j] : n->outputs[j - n->n_inputs];
		const ir_tensor *x = t >= 0 ? ir_graph_tensor(g, t) : NULL;
		ids[j] = !x ? -1 : input ? ir_graph_add_const(h, x->name, x->dtype, &x->shape, x->data, &d)
					 : ir_graph_add_tensor(h, x->name, x->dtype, NULL, IR_KIND_ACTIVATION, &d);
		if (x && ids[j] < 0)
			goto out;
	}
	int hn = ir_graph_add_node(h, n->name, n->op, ids, n->n_inputs, out, n->n_outputs, &d);
	for (int k = 0; hn >= 0 && k < n->n_attrs; k++) {
		const ir_attr *a = &n->attrs[k];
		int r = 0;
		switch (a->type) {
		case IR_ATTR_INT: r = ir_node_set_int(h, hn, a->name, a->i); break;
		case IR_ATTR_FLOAT: r = ir_node_set_float(h, hn, a->name, a->f); break;
		case IR_ATTR_STR: r = ir_node_set_str(h, hn, a->name, a->s); break;
		case IR_ATTR_INTS: r = ir_node_set_ints(h, hn, a->name, a->ints, a->n); break;
		case IR_ATTR_FLOATS: r = ir_node_set_floats(h, hn, a->name, a->floats, a->n); break;
		}
		if (r)
			hn = -1;
	}
	if (hn < 0 || ir_graph_set_outputs(h, out, n->n_outputs, &d) || ir_graph_infer_shapes(h, &d) ||
	    !(ex = ir_exec_new(h, IR_MODE_F32, 1, &d)) || ir_exec_run(ex, &d))
		goto out;
	for (int j = 0; j < n->n_outputs; j++) {
		size_t nb;
		const void *v = ir_exec_output(ex, j, &nb);
		if (n->outputs[j] < 0)
			continue;
		ir_graph_tensor(g, n->outputs[j])->kind = IR_KIND_CONST;
		if (ir_tensor_set_data(g, n->outputs[j], v, nb, &d)) {
			rc = ib_oom(&im->b);
			goto out;
		}
	}
	ir_graph_remove_node(g, i);
	rc = 0;
out:
	ir_exec_free(ex);
	ir_graph_free(h);
	free(ids);
	return rc;
}

/* After a conversion whose inputs were all constant: compute the IR nodes
 * it made (from node n0 on), so that its outputs are constants too (a
 * Split of stored pads, a Sqrt of a scale) and can feed inputs the IR takes
 * as attributes. Nodes the interpreter cannot run stay. */
static int fold_ir(cx *c, int n0)
{
	imp *im = c->im;
	for (int i = n0; i < ir_graph_node_count(im->b.g); i++) {
		const ir_node *n = ir_graph_node(im->b.g, i);
		bool all = true;
		for (int j = 0; j < n->n_inputs && all; j++)
			all = n->inputs[j] < 0 || ir_graph_tensor(im->b.g, n->inputs[j])->kind == IR_KIND_CONST;
		int64_t elems = 0;
		for (int j = 0; j < n->n_outputs && all; j++)
			elems += ir_shape_numel(&ir_graph_tensor(im->b.g, n->outputs[j])->shape);
		if (!all || elems > FOLD_MAX_IN)
			continue;
		int r = fold_ir_node(im, i);
		if (r < 0)
			return -1;
		if (r == 0)
			i--;
	}
	for (int i = 0; i < c->nout; i++) {
		value *v = c->out[i] >= 0 ? &im->v[c->out[i]] : NULL;
		if (v && v->tensor >= 0 && ir_graph_tensor(im->b.g, v->tensor)->kind == IR_KIND_CONST)
			v->cst = v->tensor;
	}
	return 0;
}

/* ================================================================ control flow */

static int register_values(imp *im, const Onnx__GraphProto *gp, bool main);
static int plan(imp *im, const int *outs, int nouts, int **order_out);
static int convert(imp *im, int index);

/* If with a condition known at import: the branch taken is imported in
 * place (its nodes see the outer scope's values), and each If output is
 * an identity of the branch's output, so it keeps its ONNX name. */
static int if_unknown(cx *c)
{
	return ib_unsup(c->b, "the condition '%s' is not known at import (only an If whose condition "
		     "folds to a constant is supported; freeze the inputs it depends on with --const)",
		     c->im->v[c->in[0]].name);
}

static int cv_if(cx *c, const op_entry *e)
{
	(void)e;
	imp *im = c->im;
	const ir_tensor *t = in_cst(c, 0);
	if (!has_in(c, 0))
		return ib_fail(c->b, "input 0 (cond) is required");
	if (!t)
		return if_unknown(c);
	if (ir_shape_numel(&t->shape) != 1)
		return ib_fail(c->b, "the condition must have one element");
	bool taken = num_get(t, 0).i != 0;
	const char *which = taken ? "then_branch" : "else_branch";
	const Onnx__AttributeProto *a = attr(c, which, AT(GRAPH));
	if (!a || !a->g)
		return c->b->failed ? -1 : ib_fail(c->b, "attribute '%s' is required", which);
	const Onnx__GraphProto *gp = a->g;
	if (gp->n_output != (size_t)c->nout)
		return ib_fail(c->b, "%s has %zu outputs, the node %d", which, gp->n_output, c->nout);
	if (im->depth >= PB_MAX_DEPTH)
		return ib_fail(c->b, "If branches are nested too deeply");
	if (register_values(im, gp, false)) {
		c->b->failed = true;
		return -1;
	}
	int *bouts = malloc(sizeof(int) * ((size_t)c->nout + 1)), nb = 0, *order = NULL, n, rc = -1;
	if (!bouts)
		return ib_oom(&im->b);
	for (int i = 0; i < c->nout; i++) {
		const char *bn = gp->output[i] && gp->output[i]->name ? gp->output[i]->name : "";
		int k = val_find(im, bn);
		if (k < 0) {
			ib_fail(c->b, "%s output '%s' is not produced by any node", which, bn);
			goto out;
		}
		if (out_used(c, i))
			bouts[nb++] = k;
	}
	im->depth++;
	n = plan(im, bouts, nb, &order);
	for (int i = 0; i < n; i++)
		if (convert(im, order[i]))
			goto out_depth;
	if (n < 0)
		goto out_depth;
	rc = 0;
	for (int i = 0; i < c->nout && !rc; i++) {
		if (!out_used(c, i))
			continue;
		int k = val_find(im, gp->output[i]->name);
		if (im->v[k].poisoned) {
			rc = 1;	/* the branch's problem is reported already */
			break;
		}
		if (materialize(im, k)) {
			rc = -1;
			break;
		}
		int x = im->v[k].tensor, y = out_id(c, i);
		if (x < 0) {
			rc = ib_fail(c->b, "%s output '%s' was not imported", which, im->v[k].name);
			break;
		}
		char suffix[32];
		snprintf(suffix, sizeof suffix, "out%d", i);
		int id = ib_emit(c->b, c->nout > 1 ? suffix : NULL, IR_OP_IDENTITY, &x, 1, &y, 1);
		if (ib_done(c->b, id))
			rc = -1;
		else
			im->v[c->out[i]].cst = im->v[k].cst;
	}
out_depth:
	im->depth--;
out:
	free(order);
	free(bouts);
	return rc;
}

/* ================================================================ the op table */

static const op_entry op_table[] = {
	/* elementwise */
	{"Add", cv_plain, IR_OP_ADD, "", fold_elementwise},
	{"Sub", cv_plain, IR_OP_SUB, "", fold_elementwise},
	{"Mul", cv_plain, IR_OP_MUL, "", fold_elementwise},
	{"Div", cv_plain, IR_OP_DIV, "", fold_elementwise},
	{"Pow", cv_plain, IR_OP_POW, "", NULL},
	{"PRelu", cv_prelu, IR_OP_PRELU, "", NULL},
	{"Max", cv_variadic, IR_OP_MAX, "", fold_elementwise},
	{"Min", cv_variadic, IR_OP_MIN, "", fold_elementwise},
	{"Sum", cv_variadic, IR_OP_ADD, "", NULL},
	{"Mean", cv_variadic, IR_OP_ADD, "", NULL},
	{"Relu", cv_plain, IR_OP_RELU, "", NULL},
	{"LeakyRelu", cv_plain, IR_OP_LEAKY_RELU, "alpha=f0.01", NULL},
	{"Elu", cv_plain, IR_OP_ELU, "alpha=f1", NULL},
	{"Selu", cv_selu, IR_OP_ELU, "alpha,gamma", NULL},
	{"Sigmoid", cv_plain, IR_OP_SIGMOID, "", NULL},
	{"HardSigmoid", cv_plain, IR_OP_HARD_SIGMOID, "alpha=f0.2,beta=f0.5", NULL},
	{"HardSwish", cv_plain, IR_OP_HARD_SWISH, "", NULL},
	{"Tanh", cv_plain, IR_OP_TANH, "", NULL},
	{"Softplus", cv_plain, IR_OP_SOFTPLUS, "", NULL},
	{"Softsign", cv_softsign, IR_OP_DIV, "", NULL},
	{"Exp", cv_plain, IR_OP_EXP, "", NULL},
	{"Log", cv_plain, IR_OP_LOG, "", NULL},
	{"Sqrt", cv_plain, IR_OP_SQRT, "", NULL},
	{"Reciprocal", cv_plain, IR_OP_RECIPROCAL, "", NULL},
	{"Neg", cv_plain, IR_OP_NEG, "", fold_elementwise},
	{"Abs", cv_plain, IR_OP_ABS, "", NULL},
	{"Floor", cv_plain, IR_OP_FLOOR, "", NULL},
	{"Ceil", cv_plain, IR_OP_CEIL, "", NULL},
	{"Erf", cv_plain, IR_OP_ERF, "", NULL},
	{"Clip", cv_clip, IR_OP_CLIP, "min,max", NULL},
	{"Softmax", cv_softmax, IR_OP_SOFTMAX, "axis", NULL},
	{"LogSoftmax", cv_softmax, IR_OP_LOG_SOFTMAX, "axis", NULL},
	{"Identity", cv_identity, IR_OP_IDENTITY, "", NULL},
	{"Dropout", cv_identity, IR_OP_IDENTITY, "is_test,ratio,seed", NULL},
	/* compute */
	{"Conv", cv_conv, IR_OP_CONV, "auto_pad,dilations,group,kernel_shape,pads,strides", NULL},
	{"ConvTranspose", cv_conv_transpose, IR_OP_CONV_TRANSPOSE,
	 "auto_pad,dilations,group,kernel_shape,output_padding,output_shape,pads,strides", NULL},
	{"MatMul", cv_plain, IR_OP_MATMUL, "", NULL},
	{"Gemm", cv_plain, IR_OP_GEMM, "alpha=f1,beta=f1,transA>trans_a=i0,transB>trans_b=i0,broadcast", NULL},
	{"BatchNormalization", cv_batch_norm, IR_OP_BATCH_NORM, "epsilon,is_test,momentum,spatial,training_mode", NULL},
	{"InstanceNormalization", cv_plain, IR_OP_INSTANCE_NORM, "epsilon=f1e-5", NULL},
	{"LRN", cv_plain, IR_OP_LRN, "size=i1,alpha=f1e-4,beta=f0.75,bias=f1", NULL},
	{"LayerNormalization", cv_layer_norm, IR_OP_LAYER_NORM, "axis,epsilon,stash_type", NULL},
	/* pooling and reductions */
	{"MaxPool", cv_pool, IR_OP_MAX_POOL, "auto_pad,ceil_mode,dilations,kernel_shape,pads,storage_order,strides", NULL},
	{"AveragePool", cv_pool, IR_OP_AVG_POOL, "auto_pad,ceil_mode,count_include_pad,kernel_shape,pads,strides", NULL},
	{"GlobalAveragePool", cv_plain, IR_OP_GLOBAL_AVG_POOL, "", NULL},
	{"GlobalMaxPool", cv_plain, IR_OP_GLOBAL_MAX_POOL, "", NULL},
	{"ReduceMean", cv_reduce, IR_OP_REDUCE_MEAN, "axes,keepdims", NULL},
	{"ReduceSum", cv_reduce, IR_OP_REDUCE_SUM, "axes,keepdims,noop_with_empty_axes", NULL},
	{"ReduceMax", cv_reduce, IR_OP_REDUCE_MAX, "axes,keepdims", NULL},
	{"ReduceMin", cv_reduce, IR_OP_REDUCE_MIN, "axes,keepdims", NULL},
	{"ReduceL1", cv_reduce_ext, IR_OP_REDUCE_SUM, "axes,keepdims", NULL},
	{"ReduceL2", cv_reduce_ext, IR_OP_REDUCE_SUM, "axes,keepdims", NULL},
	{"ReduceSumSquare", cv_reduce_ext, IR_OP_REDUCE_SUM, "axes,keepdims", NULL},
	{"ReduceLogSum", cv_reduce_ext, IR_OP_REDUCE_SUM, "axes,keepdims", NULL},
	{"ReduceLogSumExp", cv_reduce_ext, IR_OP_REDUCE_SUM, "axes,keepdims", NULL},
	{"ArgMax", cv_plain, IR_OP_ARGMAX, "axis=i0,keepdims=i1,select_last_index=i0", NULL},
	{"ArgMin", cv_argmin, IR_OP_ARGMAX, "axis,keepdims,select_last_index", NULL},
	/* data movement */
	{"Concat", cv_plain, IR_OP_CONCAT, "axis=i1", fold_concat},
	{"Split", cv_split, IR_OP_SPLIT, "axis,split", NULL},
	{"Slice", cv_slice, IR_OP_SLICE, "axes,ends,starts", fold_slice},
	{"Reshape", cv_reshape, IR_OP_RESHAPE, "allowzero,shape", NULL},
	{"Flatten", cv_flatten, IR_OP_FLATTEN, "axis", NULL},
	{"Squeeze", cv_squeeze, IR_OP_SQUEEZE, "axes", NULL},
	{"Unsqueeze", cv_squeeze, IR_OP_UNSQUEEZE, "axes", NULL},
	{"Transpose", cv_transpose, IR_OP_TRANSPOSE, "perm", fold_transpose},
	{"Pad", cv_pad, IR_OP_PAD, "mode,pads,value", NULL},
	{"Gather", cv_plain, IR_OP_GATHER, "axis=i0", fold_gather},
	{"Resize", cv_resize, IR_OP_RESIZE,
	 "coordinate_transformation_mode,cubic_coeff_a,exclude_outside,extrapolation_value,mode,nearest_mode", NULL},
	{"Upsample", cv_resize, IR_OP_RESIZE, "mode,scales", NULL},
	{"DepthToSpace", cv_plain, IR_OP_DEPTH_TO_SPACE, "blocksize=i,mode=sDCR", NULL},
	{"SpaceToDepth", cv_plain, IR_OP_SPACE_TO_DEPTH, "blocksize=i", NULL},
	/* recurrent */
	{"RNN", cv_rnn, IR_OP_RNN, "activation_alpha,activation_beta,activations,clip,direction,hidden_size,layout", NULL},
	{"GRU", cv_rnn, IR_OP_GRU,
	 "activation_alpha,activation_beta,activations,clip,direction,hidden_size,layout,linear_before_reset", NULL},
	{"LSTM", cv_rnn, IR_OP_LSTM,
	 "activation_alpha,activation_beta,activations,clip,direction,hidden_size,input_forget,layout", NULL},
	/* types and quantization */
	{"Cast", cv_cast, IR_OP_CAST, "to", fold_cast},
	{"CastLike", cv_cast, IR_OP_CAST, "", NULL},
	{"QuantizeLinear", cv_quant, IR_OP_QUANTIZE, "axis", NULL},
	{"DequantizeLinear", cv_quant, IR_OP_DEQUANTIZE, "axis", NULL},
	/* evaluated at import only */
	{"Constant", NULL, -1, "sparse_value,value,value_float,value_floats,value_int,value_ints,value_string,value_strings",
	 fold_constant},
	{"Shape", NULL, -1, "end,start", fold_shape},
	{"Size", NULL, -1, "", fold_shape},
	{"ConstantOfShape", NULL, -1, "value", fold_constant_of_shape},
	{"Range", NULL, -1, "", fold_range},
	{"Equal", NULL, -1, "", fold_elementwise},
	{"Less", NULL, -1, "", fold_elementwise},
	{"Greater", NULL, -1, "", fold_elementwise},
	{"Where", NULL, -1, "", fold_elementwise},
	{"Expand", NULL, -1, "", fold_elementwise},
	{"Not", NULL, -1, "", fold_elementwise},
	{"And", NULL, -1, "", fold_elementwise},
	{"Or", NULL, -1, "", fold_elementwise},
	{"Xor", NULL, -1, "", fold_elementwise},
	{"GreaterOrEqual", NULL, -1, "", fold_elementwise},
	{"LessOrEqual", NULL, -1, "", fold_elementwise},
	/* control flow */
	{"If", cv_if, -1, "else_branch,then_branch", NULL},
};

static const op_entry *find_op(const char *name)
{
	for (size_t i = 0; i < sizeof op_table / sizeof op_table[0]; i++)
		if (!strcmp(op_table[i].name, name))
			return &op_table[i];
	return NULL;
}

static bool attr_accepted(const char *spec, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = spec; *p;) {
		size_t k = strcspn(p, ">=,");
		if (k == n && !strncmp(p, name, n))
			return true;
		p += strcspn(p, ",");
		p += *p == ',';
	}
	return false;
}

/* ================================================================ the model */

static void poison(cx *c)
{
	for (int i = 0; i < c->nout; i++)
		if (c->out[i] >= 0)
			c->im->v[c->out[i]].poisoned = true;
}

/* Can this node be evaluated now? */
static bool foldable(const cx *c, const op_entry *e)
{
	if (e->fold == fold_constant)
		return true;
	if (!has_in(c, 0))
		return false;
	if (e->fold == fold_shape)
		return true;
	int64_t elems = 0;
	for (int i = 0; i < c->nin; i++) {
		const ir_tensor *t = in_cst(c, i);
		if ((has_in(c, i) || e->fold != fold_slice) && !t)
			return false;
		elems += t ? ir_shape_numel(&t->shape) : 0;
	}
	return !e->conv || elems <= FOLD_MAX_IN;
}

/* Should the IR nodes of this conversion be computed at import? When all
 * its inputs are small constants and its outputs are integers: the shape
 * arithmetic (pads, shapes, axes, sizes) whose results the IR takes as
 * attributes. Float constants stay as the model has them (the arithmetic
 * ops above fold them when they must; npu-fuse folds the rest). */
static bool all_const_small(const cx *c)
{
	int64_t elems = 0;
	if (!strcmp(c->b->op, "If") || !strcmp(c->b->op, "Identity") || !strcmp(c->b->op, "Dropout"))
		return false;
	for (int i = 0; i < c->nin; i++) {
		const ir_tensor *t = in_cst(c, i);
		if (has_in(c, i) && !t)
			return false;
		elems += t ? ir_shape_numel(&t->shape) : 0;
	}
	for (int i = 0; i < c->nout; i++) {
		const ir_tensor *t = c->out[i] >= 0 ? ir_graph_tensor(c->b->g, c->im->v[c->out[i]].tensor) : NULL;
		if (t && !ib_dtype_is_int(t->dtype))
			return false;
	}
	return elems <= FOLD_MAX_IN;
}

static int add_inputs(imp *im);

/* A graph input that --output left out because only an If branch reads
 * it (directly or through outer nodes): added now. */
static int late_input(imp *im, int k)
{
	const Onnx__GraphProto *gp = im->gp;
	if (im->v[k].producer >= 0 || im->v[k].init)
		return 0;
	for (size_t i = 0; i < gp->n_input; i++)
		if (gp->input[i] && gp->input[i]->name && !strcmp(gp->input[i]->name, im->v[k].name)) {
			im->late_input = (int)i;
			int rc = add_inputs(im);
			im->late_input = -1;
			return rc;
		}
	return 0;
}

/* A node an op plugin claims (npu-plugin(7)): the IR op custom, type = the
 * plugin's name, the node's attributes passed through. */
static int cv_custom(cx *c, const ir_plugin *pl)
{
	int nin = c->nin, ins[8], outs[8];
	while (nin > 0 && !has_in(c, nin - 1))
		nin--;
	if (nin > 7 || c->nout > 7 || c->nout < 1)
		return ib_fail(c->b, "%d inputs and %d outputs: a custom op has 1 to 7 of each", nin, c->nout);
	for (int i = 0; i < nin; i++)
		if ((ins[i] = in_id(c, i)) < 0)
			return ib_fail(c->b, "input %d is missing", i);
	for (int i = 0; i < c->nout; i++)
		outs[i] = out_id(c, i);
	int n = ib_emit(c->b, NULL, IR_OP_CUSTOM, ins, nin, outs, c->nout);
	ib_set_s(c->b, n, "type", pl->desc->name);
	for (size_t i = 0; i < c->np->n_attribute && n >= 0 && !c->b->failed; i++) {
		const Onnx__AttributeProto *a = c->np->attribute[i];
		const char *k = a && a->name ? a->name : "";
		atype t = a ? attr_type(a) : AT(UNDEFINED);
		if (!*k || !strcmp(k, "type"))
			return ib_fail(c->b, "attribute '%s' cannot pass to op plugin '%s'", k, pl->desc->name);
		if (t == AT(INT))
			ib_set_i(c->b, n, k, a->i);
		else if (t == AT(FLOAT))
			ib_set_f(c->b, n, k, a->f);
		else if (t == AT(STRING))
			ib_set_s(c->b, n, k, as(c, k, ""));
		else if (t == AT(INTS))
			ib_set_is(c->b, n, k, a->ints, (int)a->n_ints);
		else if (t == AT(FLOATS)) {
			double *v = malloc(sizeof *v * (a->n_floats + 1));
			if (!v)
				return ib_oom(c->b);
			for (size_t j = 0; j < a->n_floats; j++)
				v[j] = a->floats[j];
			ib_set_fs(c->b, n, k, v, (int)a->n_floats);
			free(v);
		} else
			return ib_fail(c->b, "attribute '%s' is %s, which op plugins do not take", k, atype_name(t));
	}
	return ib_done(c->b, n);
}

static int convert(imp *im, int index)
{
	const Onnx__NodeProto *np = im->nodes[index];
	cx c = {.im = im, .b = &im->b, .np = np};
	im->converted[index] = 1;
	int rc = -1, r = 0;
	const char *outer_name = im->b.name, *outer_op = im->b.op;	/* an If converts its branch inside */
	const char *op = np->op_type && *np->op_type ? np->op_type : "?";
	const char *name = ib_unique(&im->b, np->name && *np->name ? np->name : ib_fmt(&im->b, "%s_%d", op, index), true);
	ib_begin(&im->b, name, op);
	c.nin = (int)np->n_input;
	c.nout = (int)np->n_output;
	c.in = malloc(sizeof(int) * (np->n_input + 1));
	c.out = malloc(sizeof(int) * (np->n_output + 1));
	if (!name || !c.in || !c.out) {
		ib_oom(&im->b);
		goto out;
	}
	bool dead = false;
	for (int i = 0; i < c.nin; i++) {
		const char *s = np->input[i];
		c.in[i] = s && *s ? val_find(im, s) : -1;
		if (c.in[i] >= 0 && im->v[c.in[i]].poisoned)
			dead = true;
		else if (c.in[i] >= 0 && materialize(im, c.in[i]))
			goto out;
		else if (c.in[i] >= 0 && im->v[c.in[i]].tensor < 0 && late_input(im, c.in[i]))
			goto out;
		else if (c.in[i] >= 0 && im->v[c.in[i]].tensor < 0) {
			ir_fail(im->b.d, -1, -1, "node '%s' (%s): input '%s' was not imported", name, op, s);
			goto out;
		}
	}
	for (int i = 0; i < c.nout; i++)
		c.out[i] = np->output[i] && *np->output[i] ? val_find(im, np->output[i]) : -1;
	const op_entry *e = find_op(op);
	bool other = np->domain && *np->domain && strcmp(np->domain, "ai.onnx");
	/* an op plugin may claim a foreign domain's op, or one of ONNX's this
	 * importer does not know */
	const ir_plugin *pl = other || !e ? ir_plugin_find_op(other ? np->domain : "", op) : NULL;
	if (pl) {
		r = dead ? 1 : cv_custom(&c, pl);
	} else if (!e || other) {
		r = unknown_op(&c);
	} else if (dead && e->conv == cv_if && im->v[c.in[0]].poisoned) {
		r = if_unknown(&c);
	} else if (dead) {
		r = 1;	/* its input's problem is reported already */
	} else {
		for (size_t i = 0; i < np->n_attribute && !r; i++) {
			const char *a = np->attribute[i] && np->attribute[i]->name ? np->attribute[i]->name : "";
			if (!attr_accepted(e->attrs, a))
				r = ib_unsup(c.b, "attribute '%s' is not supported", a);
		}
		if (!r && e->fold && foldable(&c, e))
			r = e->fold(&c, e);
		else if (!r)
			r = 2;
		if (r == 2 && e->conv) {
			int n0 = ir_graph_node_count(im->b.g);
			r = e->conv(&c, e);
			if (r == 0 && !c.b->failed && all_const_small(&c) && fold_ir(&c, n0))
				goto out;
		} else if (r == 2) {
			int k = 0;
			while (k < c.nin && (!has_in(&c, k) || in_cst(&c, k)))
				k++;
			if (k < c.nin)
				r = ib_unsup(c.b, "it is computed only at import, and input %d ('%s') is not known then", k,
					  im->v[c.in[k]].name);
			else
				r = ib_problem_add(&im->b, 0, op, name, NULL) ? -1 : 1;
		}
	}
	if (r < 0 || c.b->failed)
		goto out;
	if (r == 1)
		poison(&c);
	for (int i = 0; i < c.nout && r == 0; i++)
		if (out_used(&c, i) && im->v[c.out[i]].tensor < 0) {
			ib_fail(c.b, "output %d ('%s') is not supported", i, im->v[c.out[i]].name);
			goto out;
		}
	rc = 0;
out:
	ib_begin(&im->b, outer_name, outer_op);
	free(c.in);
	free(c.out);
	return rc;
}

/* Every value name of graph gp: initializers, graph inputs (main graph
 * only; a branch has none), node outputs. The nodes join im->nodes. */
static int register_values(imp *im, const Onnx__GraphProto *gp, bool main)
{
	const char *where = main ? "" : " in an If branch";
	for (size_t i = 0; i < gp->n_initializer; i++) {
		const Onnx__TensorProto *t = gp->initializer[i];
		if (!t || !t->name || !*t->name)
			return ir_fail(im->b.d, -1, -1, "initializer %zu%s has no name", i, where);
		if (val_find(im, t->name) >= 0)
			return ir_fail(im->b.d, -1, -1, "initializer '%s'%s appears twice", t->name, where);
		int k = val_add(im, t->name);
		if (k < 0)
			return ib_oom(&im->b);
		im->v[k].init = t;
	}
	for (size_t i = 0; main && i < gp->n_input; i++) {
		const Onnx__ValueInfoProto *vi = gp->input[i];
		if (!vi || !vi->name || !*vi->name)
			return ir_fail(im->b.d, -1, -1, "graph input %zu has no name", i);
		int k = val_find(im, vi->name);
		if (k >= 0 && im->v[k].init)
			continue;	/* an initializer listed as input (IR version < 4) */
		if (k >= 0)
			return ir_fail(im->b.d, -1, -1, "graph input '%s' appears twice", vi->name);
		if (val_add(im, vi->name) < 0)
			return ib_oom(&im->b);
	}
	if (gp->n_node > (size_t)(INT32_MAX / 4 - im->nn))
		return ir_fail(im->b.d, -1, -1, "too many nodes");
	for (size_t n = 0; n < gp->n_node; n++) {
		const Onnx__NodeProto *np = gp->node[n];
		if (!np)
			return ir_fail(im->b.d, -1, -1, "node %zu%s is empty", n, where);
		if (np->n_input > 65536 || np->n_output > 65536)
			return ir_fail(im->b.d, -1, -1, "node %zu%s has too many inputs or outputs", n, where);
		if (ib_grow((void **)&im->nodes, &im->capn, im->nn, sizeof(*im->nodes)))
			return ib_oom(&im->b);
		char *cv = realloc(im->converted, (size_t)im->capn);
		if (!cv)
			return ib_oom(&im->b);
		im->converted = cv;
		int index = im->nn++;
		im->nodes[index] = np;
		im->converted[index] = 0;
		for (size_t j = 0; j < np->n_output; j++) {
			const char *s = np->output[j];
			if (!s || !*s)
				continue;
			int k = val_find(im, s);
			if (k >= 0)
				return ir_fail(im->b.d, -1, -1, "value '%s' is produced twice (node %zu '%s'%s %s)", s, n,
					       np->name ? np->name : "", where, im->v[k].producer >= 0 ? "and an earlier node" :
					       im->v[k].init ? "and an initializer" : "and a graph input");
			if ((k = val_add(im, s)) < 0)
				return ib_oom(&im->b);
			im->v[k].producer = index;
		}
	}
	return 0;
}

/* An If node reads its condition; what its branches read from the outer
 * scope is imported when the branch taken is known (cv_if). */
static bool is_if(const Onnx__NodeProto *np)
{
	return np->op_type && !strcmp(np->op_type, "If") &&
	       (!np->domain || !*np->domain || !strcmp(np->domain, "ai.onnx"));
}

static size_t plan_inputs(const Onnx__NodeProto *np)
{
	return is_if(np) && np->n_input > 1 ? 1 : np->n_input;
}

static const char *node_label(const imp *im, int n, char *buf, size_t size)
{
	const Onnx__NodeProto *np = im->nodes[n];
	const char *op = np->op_type ? np->op_type : "?";
	if (np->name && *np->name)
		snprintf(buf, size, "node '%s' (%s)", np->name, op);
	else
		snprintf(buf, size, "node %d (%s)", n, op);
	return buf;
}

/* Mark what the outputs need; list the needed nodes not converted yet in
 * topological order (keeping the model's order where it is valid) into
 * *order (malloc'ed). Returns the count or -1. */
static int plan(imp *im, const int *outs, int nouts, int **order_out)
{
	int nn = im->nn, k = 0, rc = -1;
	int *order = malloc(sizeof(int) * (size_t)(nn + 1));
	char *need = calloc((size_t)nn + 1, 1), *state = calloc((size_t)nn + 1, 1);
	int *stack = malloc(sizeof(int) * (size_t)(im->nv + 1));
	int *at = malloc(sizeof(int) * (size_t)(2 * nn + 2));
	char label[600];
	if (!need || !state || !stack || !at || !order) {
		ib_oom(&im->b);
		goto out;
	}
	for (int i = 0; i < nn; i++)
		state[i] = im->converted[i] ? 2 : 0;
	int top = 0;
	for (int i = 0; i < nouts; i++)
		if (!im->v[outs[i]].needed) {
			im->v[outs[i]].needed = true;
			stack[top++] = outs[i];
		}
	while (top > 0) {
		int p = im->v[stack[--top]].producer;
		if (p < 0 || need[p] || im->converted[p])
			continue;
		need[p] = 1;
		const Onnx__NodeProto *np = im->nodes[p];
		for (size_t j = 0; j < plan_inputs(np); j++) {
			const char *s = np->input[j];
			if (!s || !*s)
				continue;
			int v = val_find(im, s);
			if (v < 0) {
				ir_fail(im->b.d, -1, -1, "%s reads '%s', which no node, graph input or initializer provides",
					node_label(im, p, label, sizeof label), s);
				goto out;
			}
			if (!im->v[v].needed) {
				im->v[v].needed = true;
				stack[top++] = v;
			}
		}
	}
	/* depth-first, producers before consumers; at[] holds (node, next input) */
	for (int i = 0; i < nn; i++) {
		if (!need[i] || state[i])
			continue;
		int sp = 0;
		at[sp++] = i;
		at[sp++] = 0;
		state[i] = 1;
		while (sp > 0) {
			int n = at[sp - 2], j = at[sp - 1];
			const Onnx__NodeProto *np = im->nodes[n];
			if ((size_t)j < plan_inputs(np)) {
				at[sp - 1]++;
				int v = np->input[j] && *np->input[j] ? val_find(im, np->input[j]) : -1;
				int p = v >= 0 ? im->v[v].producer : -1;
				if (p < 0 || state[p] == 2)
					continue;
				if (state[p] == 1) {
					ir_fail(im->b.d, -1, -1, "the graph has a cycle through %s",
						node_label(im, p, label, sizeof label));
					goto out;
				}
				state[p] = 1;
				at[sp++] = p;
				at[sp++] = 0;
			} else {
				state[n] = 2;
				order[k++] = n;
				sp -= 2;
			}
		}
	}
	rc = k;
	*order_out = order;
	order = NULL;
out:
	free(order);
	free(need);
	free(state);
	free(stack);
	free(at);
	return rc;
}

/* "N,3,224,224" with dim_param names or '?' for unknown dimensions. */
static void dims_text(const Onnx__TensorShapeProto *sp, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; sp && i < sp->n_dim && len < size; i++) {
		const Onnx__TensorShapeProto__Dimension *dm = sp->dim[i];
		int k;
		if (dm && dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
			k = snprintf(buf + len, size - len, "%s%lld", i ? "," : "", (long long)dm->dim_value);
		else
			k = snprintf(buf + len, size - len, "%s%s", i ? "," : "",
				     dm && dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
				     dm->dim_param && *dm->dim_param ? dm->dim_param : "?");
		len += k > 0 ? (size_t)k : 0;
	}
}

/* The element type and (if static) shape a ValueInfo declares: 1 static,
 * 0 partly or wholly unknown, -1 not a tensor of a supported type. */
static int declared(const Onnx__ValueInfoProto *vi, ir_dtype *dt, ir_shape *s, int64_t *elem)
{
	const Onnx__TypeProto *tp = vi->type;
	*elem = 0;
	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
		return -1;
	const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
	*elem = tt->has_elem_type ? tt->elem_type : 0;
	int t = dtype_from_onnx(*elem);
	if (t < 0)
		return -1;
	*dt = (ir_dtype)t;
	*s = (ir_shape){0};
	if (!tt->shape || tt->shape->n_dim > IR_MAX_RANK)
		return 0;
	s->rank = (int)tt->shape->n_dim;
	bool known = true;
	for (int i = 0; i < s->rank; i++) {
		const Onnx__TensorShapeProto__Dimension *dm = tt->shape->dim[i];
		bool v = dm && dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		s->dim[i] = v ? dm->dim_value : -1;
		known &= v;
	}
	return known;
}

/* Graph input k as a constant of value (--const), checked against its type. */
static int freeze_input(imp *im, int k, ir_dtype dt, const ir_shape *s, double value)
{
	const char *name = im->v[k].name;
	int64_t n = ir_shape_numel(s);
	if (ib_dtype_is_int(dt)) {
		double lo = dt == IR_DTYPE_I64 ? -9.2e18 : dt == IR_DTYPE_I32 ? (double)INT32_MIN :
			    dt == IR_DTYPE_I16 ? INT16_MIN : dt == IR_DTYPE_I8 ? INT8_MIN : 0;
		double hi = dt == IR_DTYPE_I64 ? 9.2e18 : dt == IR_DTYPE_I32 ? (double)INT32_MAX :
			    dt == IR_DTYPE_I16 ? INT16_MAX : dt == IR_DTYPE_I8 ? INT8_MAX : dt == IR_DTYPE_U8 ? 255 : 1;
		if (value != floor(value) || value < lo || value > hi)
			return ir_fail(im->b.d, -1, -1, "--const %s=%g: input '%s' is %s, the value must be an integer "
				       "from %.0f to %.0f", name, value, name, ir_dtype_name(dt), lo, hi);
	} else if (!isfinite(value)) {
		return ir_fail(im->b.d, -1, -1, "--const %s: the value must be finite", name);
	}
	if (n < 0 || (uint64_t)n > FOLD_MAX_BYTES / ir_dtype_size(dt))
		return ir_fail(im->b.d, -1, -1, "--const %s: input '%s' is too large to freeze", name, name);
	void *buf = calloc((size_t)n + 1, ir_dtype_size(dt));
	if (!buf)
		return ib_oom(&im->b);
	num v = ib_dtype_is_int(dt) ? (num){.is_int = true, .i = (int64_t)value} : (num){.f = value};
	for (int64_t i = 0; i < n; i++)
		num_put(dt, buf, i, v);
	int id = ir_graph_add_const(im->b.g, name, dt, s, buf, im->b.d);
	free(buf);
	if (id < 0)
		return -1;
	im->v[k].tensor = im->v[k].cst = id;
	return 0;
}

static int add_inputs(imp *im)
{
	const Onnx__GraphProto *gp = im->gp;
	const onnx_import_opts *o = im->opts;
	char *used = calloc((size_t)o->n_inputs + 1, 1), *cused = calloc((size_t)o->n_consts + 1, 1);
	int rc = -1;
	if (!im->in_ids) {
		im->in_ids = malloc(sizeof(int) * (gp->n_input + 1));
		im->in_pos = malloc(sizeof(int) * (gp->n_input + 1));
	}
	if (!used || !cused || !im->in_ids || !im->in_pos) {
		ib_oom(&im->b);
		goto out;
	}
	for (size_t i = 0; i < gp->n_input; i++) {
		const Onnx__ValueInfoProto *vi = gp->input[i];
		int k = val_find(im, vi->name);
		if (im->v[k].init || im->v[k].tensor >= 0 || (im->late_input >= 0 && (size_t)im->late_input != i))
			continue;
		int ov = -1;
		for (int j = 0; j < o->n_inputs; j++)
			if (o->inputs[j].name && !strcmp(o->inputs[j].name, vi->name))
				ov = j;
		if (ov >= 0)
			used[ov] = 1;
		int cv = -1;
		for (int j = 0; j < o->n_consts; j++)
			if (o->consts[j].name && !strcmp(o->consts[j].name, vi->name))
				cv = j;
		if (cv >= 0)
			cused[cv] = 1;
		if (o->n_outputs && !im->v[k].needed && im->late_input < 0)
			continue;
		ir_dtype dt;
		ir_shape s, want;
		int64_t elem;
		int st = declared(vi, &dt, &s, &elem);
		char dims[256], s1[128];
		const Onnx__TypeProto *tp = vi->type;
		dims_text(tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type ?
			  tp->tensor_type->shape : NULL, dims, sizeof dims);
		if (st < 0) {
			if (elem)
				ir_fail(im->b.d, -1, -1, "input '%s' has element type %s, which the IR does not support",
					vi->name, onnx_type_name(elem));
			else
				ir_fail(im->b.d, -1, -1, "input '%s' is not a tensor (sequences, maps and optionals are not supported)",
					vi->name);
			goto out;
		}
		bool has_shape = tp->tensor_type->shape != NULL;
		if (ov >= 0) {
			want = o->inputs[ov].shape;
			bool fits = !has_shape || want.rank == s.rank;
			for (int d = 0; fits && has_shape && d < s.rank; d++)
				fits = s.dim[d] < 0 || s.dim[d] == want.dim[d];
			if (!fits) {
				ir_fail(im->b.d, -1, -1, "the shape given for input '%s' (%s) does not fit the model's (%s)",
					vi->name, ir_shape_str(&want, s1, sizeof s1), dims);
				goto out;
			}
			s = want;
		} else if (!st && cv >= 0 && !has_shape) {
			s = (ir_shape){0};	/* frozen, of unknown rank: a scalar */
		} else if (!st) {
			ir_fail(im->b.d, -1, -1, "input '%s' has %s (%s); give its shape with --input %s:SHAPE",
				vi->name, has_shape ? "dynamic dimensions" : "no shape", has_shape ? dims : "unknown rank",
				vi->name);
			goto out;
		}
		if (ir_shape_numel(&s) < 0) {
			ir_fail(im->b.d, -1, -1, "input '%s' has an invalid or too large shape (%s)", vi->name, dims);
			goto out;
		}
		if (cv >= 0) {
			if (freeze_input(im, k, dt, &s, o->consts[cv].value))
				goto out;
			continue;
		}
		int id = ir_graph_add_tensor(im->b.g, vi->name, dt, &s, IR_KIND_INPUT, im->b.d);
		if (id < 0)
			goto out;
		im->v[k].tensor = id;
		im->in_pos[im->n_in_ids] = (int)i;
		im->in_ids[im->n_in_ids++] = id;
	}
	for (int j = 0; j < o->n_inputs + o->n_consts && im->late_input < 0; j++)
		if (j < o->n_inputs ? !used[j] : !cused[j - o->n_inputs]) {
			const char *name = j < o->n_inputs ? o->inputs[j].name : o->consts[j - o->n_inputs].name;
			name = name ? name : "";
			int k = val_find(im, name);
			if (k >= 0 && im->v[k].init) {
				ir_fail(im->b.d, -1, -1, "'%s' is an initializer (a constant), not an input", name);
				goto out;
			}
			char names[300];
			size_t len = 0;
			names[0] = 0;
			for (size_t i = 0; i < gp->n_input && len < sizeof names; i++) {
				int k = val_find(im, gp->input[i]->name);
				if (!im->v[k].init) {
					int w = snprintf(names + len, sizeof names - len, "%s'%s'", len ? ", " : "",
							 gp->input[i]->name);
					len += w > 0 ? (size_t)w : 0;
				}
			}
			ir_fail(im->b.d, -1, -1, "the model has no input '%s' (its inputs: %s)", name, len ? names : "none");
			goto out;
		}
	rc = 0;
out:
	free(used);
	free(cused);
	return rc;
}

/* The model's declared output types and static shapes must be what the
 * import gives: a disagreement means the model or the importer is wrong. */
static int check_outputs(imp *im)
{
	const Onnx__GraphProto *gp = im->gp;
	for (size_t i = 0; i < gp->n_output; i++) {
		const Onnx__ValueInfoProto *vi = gp->output[i];
		int t = vi && vi->name ? ir_graph_find_tensor(im->b.g, vi->name) : -1;
		ir_dtype dt;
		ir_shape s;
		int64_t elem;
		if (t < 0)
			continue;
		int st = declared(vi, &dt, &s, &elem);
		const ir_tensor *x = ir_graph_tensor(im->b.g, t);
		char s1[128], s2[128];
		if (st >= 0 && elem && dt != x->dtype)
			return ir_fail(im->b.d, -1, -1, "output '%s' is %s in the model, the import gives %s",
				       vi->name, ir_dtype_name(dt), ir_dtype_name(x->dtype));
		if (st == 1 && !ir_shape_equal(&s, &x->shape))
			return ir_fail(im->b.d, -1, -1, "output '%s' has shape %s in the model, the import gives %s",
				       vi->name, ir_shape_str(&s, s1, sizeof s1), ir_shape_str(&x->shape, s2, sizeof s2));
	}
	return 0;
}

static int set_meta(imp *im, const Onnx__ModelProto *m)
{
	char prod[256];
	const char *pn = m->producer_name ? m->producer_name : "", *pv = m->producer_version ? m->producer_version : "";
	snprintf(prod, sizeof prod, "%s%s%s", pn, *pn && *pv ? " " : "", pv);
	if (ir_meta_set_str(im->b.g, "source.framework", "onnx") ||
	    ir_meta_set_int(im->b.g, "source.opset", im->opset) ||
	    (im->opts->file && ir_meta_set_str(im->b.g, "source.file", im->opts->file)) ||
	    (*prod && ir_meta_set_str(im->b.g, "source.producer", prod)))
		return ib_oom(&im->b);
	return 0;
}

static int build(imp *im, const Onnx__ModelProto *m)
{
	const Onnx__GraphProto *gp = im->gp;
	const onnx_import_opts *o = im->opts;
	int nouts = o->n_outputs ? o->n_outputs : (int)gp->n_output, rc = -1, n;
	int *outs = malloc(sizeof(int) * (size_t)(nouts + 1)), *order = NULL;
	if (!outs) {
		ib_oom(&im->b);
		goto out;
	}
	if (register_values(im, gp, true))
		goto out;
	if (nouts == 0) {
		ir_fail(im->b.d, -1, -1, "the model has no outputs");
		goto out;
	}
	for (int i = 0; i < nouts; i++) {
		const char *s = o->n_outputs ? o->outputs[i] : gp->output[i] ? gp->output[i]->name : NULL;
		if ((outs[i] = val_find(im, s ? s : "")) < 0) {
			if (o->n_outputs)
				ir_fail(im->b.d, -1, -1, "the model has no value named '%s'", s ? s : "");
			else
				ir_fail(im->b.d, -1, -1, "graph output '%s' is not produced by any node", s ? s : "");
			goto out;
		}
	}
	if ((n = plan(im, outs, nouts, &order)) < 0 || add_inputs(im))
		goto out;
	for (int i = 0; i < n; i++)
		if (convert(im, order[i]))
			goto out;
	if (im->b.npb) {
		ib_report(&im->b, (const char *const[]){"unsupported ops: "}, 1);
		goto out;
	}
	for (int i = 0; i < nouts; i++) {
		value *v = &im->v[outs[i]];
		if (materialize(im, outs[i]))
			goto out;
		if (v->tensor < 0) {
			ir_fail(im->b.d, -1, -1, "output '%s' was not imported", v->name);
			goto out;
		}
		outs[i] = v->tensor;
	}
	for (int i = 1; i < im->n_in_ids; i++)	/* inputs added late: back in the model's order */
		for (int j = i; j > 0 && im->in_pos[j - 1] > im->in_pos[j]; j--) {
			int t = im->in_pos[j];
			im->in_pos[j] = im->in_pos[j - 1];
			im->in_pos[j - 1] = t;
			t = im->in_ids[j];
			im->in_ids[j] = im->in_ids[j - 1];
			im->in_ids[j - 1] = t;
		}
	if (ib_finish(&im->b, im->in_ids, im->n_in_ids, outs, nouts))
		goto out;
	if ((!o->n_outputs && check_outputs(im)) || set_meta(im, m))
		goto out;
	rc = 0;
out:
	free(outs);
	free(order);
	return rc;
}

ir_graph *onnx_import(const uint8_t *buf, size_t size, const onnx_import_opts *opts, ir_diag *d)
{
	static const onnx_import_opts defaults;
	ir_diag scratch;
	if (!d)
		d = &scratch;
	if (!opts)
		opts = &defaults;
	if (ib_check_format(buf, size, "an ONNX model", "an ONNX model", d))
		return NULL;
	Onnx__ModelProto *m = pb_check(buf, size, PB_MODEL, 0) ? NULL : onnx__model_proto__unpack(NULL, size, buf);
	if (!m || !m->graph) {
		ir_fail(d, -1, -1, "not an ONNX model (%s)", m ? "it has no graph" : "protobuf parse failed");
		if (m)
			onnx__model_proto__free_unpacked(m, NULL);
		return NULL;
	}
	imp im = {.gp = m->graph, .opts = opts, .late_input = -1};
	ib_init(&im.b, NULL, d, '/');
	im.b.taken = val_taken;
	im.b.ctx = &im;
	for (size_t i = 0; i < m->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *os = m->opset_import[i];
		if (os && (!os->domain || !*os->domain || !strcmp(os->domain, "ai.onnx")) && os->has_version)
			im.opset = os->version > INT32_MAX ? INT32_MAX : (int)os->version;
	}
	bool default_domain = false;	/* without an opset, only other domains' nodes can be listed */
	for (size_t i = 0; i < m->graph->n_node; i++) {
		const Onnx__NodeProto *np = m->graph->node[i];
		default_domain |= np && (!np->domain || !*np->domain || !strcmp(np->domain, "ai.onnx"));
	}
	ir_graph *g = NULL;
	if (im.opset < 1 && default_domain)
		ir_fail(d, -1, -1, "the model imports no version of the default ONNX opset");
	else if (im.opset > OPSET_MAX)
		ir_fail(d, -1, -1, "opset %d is newer than this importer knows (opsets 7 to %d)", im.opset, OPSET_MAX);
	else if (!(im.b.g = ir_graph_new()))
		ib_oom(&im.b);
	else if (build(&im, m) == 0)
		g = im.b.g;
	if (!g)
		ir_graph_free(im.b.g);
	ib_free(&im.b);
	free(im.v);
	free(im.slot);
	free(im.in_ids);
	free(im.in_pos);
	free(im.nodes);
	free(im.converted);
	onnx__model_proto__free_unpacked(m, NULL);
	return g;
}

/* The op table for listings (npuc --list -f ONNX): entry i, NULL past the
 * end. *irop: the IR op it converts to, else -1 (the handler decides). */
const char *onnx_import_op_at(int i, int *irop)
{
	if (i < 0 || (size_t)i >= sizeof op_table / sizeof op_table[0])
		return NULL;
	*irop = op_table[i].op ? op_table[i].op : op_table[i].conv == cv_conv ? IR_OP_CONV : -1;
	return op_table[i].name;
}
