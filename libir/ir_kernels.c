/* ir_kernels.c - reference kernels: elementwise, normalised exponentials,
 * reductions, data movement, types and quantization. (Convolution, GEMM,
 * pooling and normalisation: ir_kern_nn.c and ir_kern_gemm.c; recurrent:
 * ir_kern_rnn.c.)
 *
 * Numerics follow the ONNX operator of the same role. */
#include "ir_kern.h"
#include "../share/npu/runtime/npu_half.h"
#include "../share/npu/runtime/npu_rt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t numel(const ir_tensor *t) { return ir_shape_numel(&t->shape); }
static size_t esize(const ir_tensor *t) { return ir_dtype_size(t->dtype); }

bool ir_kern_channel_last(const ir_kctx *k)
{
	const ir_tensor *x = k->nin ? k->it[0] : NULL;
	return x && (x->layout == IR_LAYOUT_NHWC || x->layout == IR_LAYOUT_NLC);
}

static int need_dtype(ir_kctx *k, const ir_tensor *t, unsigned mask, const char *what)
{
	if (t && !(mask & (1u << t->dtype)))
		return KFAIL(k, "%s '%s' is %s, which the interpreter does not support for this op",
			     what, t->name, ir_dtype_name(t->dtype));
	return 0;
}

#define M_F32 (1u << IR_DTYPE_F32)
#define M_INT ((1u << IR_DTYPE_I64) | (1u << IR_DTYPE_I32) | (1u << IR_DTYPE_I16) | \
	       (1u << IR_DTYPE_I8) | (1u << IR_DTYPE_U8))
#define M_NUM (M_F32 | M_INT)
#define M_ALL ((1u << IR_DTYPE_COUNT) - 1)

static int refuse_channel_last(ir_kctx *k)
{
	if (ir_kern_channel_last(k))
		return KFAIL(k, "channel-last layout (%s) is not implemented for %s",
			     ir_layout_name(k->it[0]->layout), ir_op_name(k->n->op));
	return 0;
}

double ir_elem_get(const void *data, ir_dtype t, int64_t i)
{
	const unsigned char *p = (const unsigned char *)data + (size_t)i * ir_dtype_size(t);
	/* memcpy: any alignment (plain loads once compiled) */
#define LOAD(type) (memcpy(&v.type, p, sizeof v.type), v.type)
	union { float f; uint16_t h; int64_t i64; int32_t i32; int16_t i16; int8_t i8; uint8_t u8; } v;
	switch (t) {
	case IR_DTYPE_F32: return LOAD(f);
	case IR_DTYPE_F16: return npu_f16_to_f32(LOAD(h));
	case IR_DTYPE_BF16: return npu_bf16_to_f32(LOAD(h));
	case IR_DTYPE_I64: return (double)LOAD(i64);
	case IR_DTYPE_I32: return LOAD(i32);
	case IR_DTYPE_I16: return LOAD(i16);
	case IR_DTYPE_I8: return LOAD(i8);
	case IR_DTYPE_U8: return LOAD(u8);
	case IR_DTYPE_BOOL: return LOAD(u8) != 0;
	default: return 0;
	}
#undef LOAD
}

/* Integer value of element i (exact for i64). */
static int64_t get_i64(const void *p, ir_dtype t, int64_t i)
{
	switch (t) {
	case IR_DTYPE_I64: return ((const int64_t *)p)[i];
	case IR_DTYPE_I32: return ((const int32_t *)p)[i];
	case IR_DTYPE_I16: return ((const int16_t *)p)[i];
	case IR_DTYPE_I8: return ((const int8_t *)p)[i];
	case IR_DTYPE_U8: return ((const uint8_t *)p)[i];
	case IR_DTYPE_BOOL: return ((const uint8_t *)p)[i] != 0;
	default: {
		double v = ir_elem_get(p, t, i);
		/* C truncation toward zero, saturated, NaN -> 0. */
		return v != v ? 0 : v >= 9.2233720368547758e18 ? INT64_MAX : v <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)v;
	}
	}
}

static bool is_float(ir_dtype t) { return t == IR_DTYPE_F32 || t == IR_DTYPE_F16 || t == IR_DTYPE_BF16; }

/* Store element i: floats from fv, integers from iv (wrapping like C). */
static void put(void *p, ir_dtype t, int64_t i, double fv, int64_t iv)
{
	switch (t) {
	case IR_DTYPE_F32: ((float *)p)[i] = (float)fv; break;
	case IR_DTYPE_F16: ((uint16_t *)p)[i] = npu_f32_to_f16((float)fv); break;
	case IR_DTYPE_BF16: ((uint16_t *)p)[i] = npu_f32_to_bf16((float)fv); break;
	case IR_DTYPE_I64: ((int64_t *)p)[i] = iv; break;
	case IR_DTYPE_I32: ((int32_t *)p)[i] = (int32_t)(uint32_t)(uint64_t)iv; break;
	case IR_DTYPE_I16: ((int16_t *)p)[i] = (int16_t)(uint16_t)(uint64_t)iv; break;
	case IR_DTYPE_I8: ((int8_t *)p)[i] = (int8_t)(uint8_t)(uint64_t)iv; break;
	case IR_DTYPE_U8: ((uint8_t *)p)[i] = (uint8_t)(uint64_t)iv; break;
	case IR_DTYPE_BOOL: ((uint8_t *)p)[i] = iv != 0; break;
	default: break;
	}
}

/* ---------------------------------------------------------------- unary */

typedef void (*ufn)(float *y, const float *x, int64_t n, const float *p);

/* y may equal x. a, b: the op's parameters. */
#define UNARY(name, ...) \
	static void u_##name(float *y, const float *x, int64_t n, const float *p) \
	{ \
		float a = p[0], b = p[1]; \
		(void)a; (void)b; \
		FOR_VEC(i, n, float v = x[i]; y[i] = (__VA_ARGS__);); \
	}

static float sigm(float v) { return v >= 0 ? 1 / (1 + expf(-v)) : expf(v) / (1 + expf(v)); }
static float softplus(float v) { return v > 0 ? v + log1pf(expf(-v)) : log1pf(expf(v)); }
static float gelu(float v, float tanh_approx)
{
	if (tanh_approx != 0)
		return 0.5f * v * (1 + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
	return 0.5f * v * (1 + erff(v * 0.70710678118654752f));
}
static float hswish(float v)
{
	float t = v * (1.0f / 6) + 0.5f;
	return v * (t < 0 ? 0 : t > 1 ? 1 : t);
}

UNARY(relu, v > 0 ? v : 0)
UNARY(relu6, v < 0 ? 0 : v > 6 ? 6 : v)
UNARY(clip, v < a ? a : v > b ? b : v)
UNARY(leaky_relu, v < 0 ? a * v : v)
UNARY(elu, v < 0 ? a * expm1f(v) : v)
UNARY(sigmoid, sigm(v))
UNARY(tanh, tanhf(v))
UNARY(hard_sigmoid, a * v + b < 0 ? 0 : a * v + b > 1 ? 1 : a * v + b)
UNARY(hard_swish, hswish(v))
UNARY(softplus, softplus(v))
UNARY(silu, v * sigm(v))
UNARY(gelu, gelu(v, a))
UNARY(exp, expf(v))
UNARY(log, logf(v))
UNARY(sqrt, sqrtf(v))
UNARY(rsqrt, 1 / sqrtf(v))
UNARY(reciprocal, 1 / v)
UNARY(neg, -v)
UNARY(abs, fabsf(v))
UNARY(floor, floorf(v))
UNARY(ceil, ceilf(v))
UNARY(erf, erff(v))

/* Unary float ops: function, parameter attributes and their defaults. */
static const struct {
	ufn f;
	const char *pa, *pb;
	float da, db;
} unary_ops[IR_OP_COUNT] = {
	[IR_OP_RELU] = {u_relu},
	[IR_OP_RELU6] = {u_relu6},
	[IR_OP_CLIP] = {u_clip, "min", "max", -INFINITY, INFINITY},
	[IR_OP_LEAKY_RELU] = {u_leaky_relu, "alpha", NULL, 0.01f},
	[IR_OP_ELU] = {u_elu, "alpha", NULL, 1.0f},
	[IR_OP_SIGMOID] = {u_sigmoid},
	[IR_OP_TANH] = {u_tanh},
	[IR_OP_HARD_SIGMOID] = {u_hard_sigmoid, "alpha", "beta", 0.2f, 0.5f},
	[IR_OP_HARD_SWISH] = {u_hard_swish},
	[IR_OP_SOFTPLUS] = {u_softplus},
	[IR_OP_SILU] = {u_silu},
	[IR_OP_GELU] = {u_gelu},
	[IR_OP_EXP] = {u_exp},
	[IR_OP_LOG] = {u_log},
	[IR_OP_SQRT] = {u_sqrt},
	[IR_OP_RSQRT] = {u_rsqrt},
	[IR_OP_RECIPROCAL] = {u_reciprocal},
	[IR_OP_NEG] = {u_neg},
	[IR_OP_ABS] = {u_abs},
	[IR_OP_FLOOR] = {u_floor},
	[IR_OP_CEIL] = {u_ceil},
	[IR_OP_ERF] = {u_erf},
};

int ir_unary_f32(int op, const float *p, float *y, const float *x, int64_t n)
{
	if (op < 0 || op >= IR_OP_COUNT || !unary_ops[op].f)
		return -1;
	float q[2] = {p ? p[0] : 0, p ? p[1] : 0};
	unary_ops[op].f(y, x, n, q);
	return 0;
}

static void unary_params(const ir_graph *g, int node, int op, float *p)
{
	p[0] = unary_ops[op].pa ? (float)ir_node_float(g, node, unary_ops[op].pa, unary_ops[op].da) : 0;
	p[1] = unary_ops[op].pb ? (float)ir_node_float(g, node, unary_ops[op].pb, unary_ops[op].db) : 0;
	if (op == IR_OP_GELU)
		p[0] = strcmp(ir_node_str(g, node, "approximate", "none"), "tanh") == 0;
}

/* Integer variants of neg, abs and relu (wrapping like the ONNX reference). */
#define INT_UNARY(T, S) \
	static void iu_##S(int op, void *yv, const void *xv, int64_t n) \
	{ \
		T *y = yv; \
		const T *x = xv; \
		if (op == IR_OP_NEG) \
			FOR_VEC(i, n, y[i] = (T)(0 - (uint64_t)x[i]);); \
		else if (op == IR_OP_ABS) \
			FOR_VEC(i, n, y[i] = x[i] < 0 ? (T)(0 - (uint64_t)x[i]) : x[i];); \
		else \
			FOR_VEC(i, n, y[i] = x[i] > 0 ? x[i] : 0;); \
	}
INT_UNARY(int64_t, i64)
INT_UNARY(int32_t, i32)
INT_UNARY(int16_t, i16)
INT_UNARY(int8_t, i8)
INT_UNARY(uint8_t, u8)

static void (*const int_unary[IR_DTYPE_COUNT])(int, void *, const void *, int64_t) = {
	[IR_DTYPE_I64] = iu_i64, [IR_DTYPE_I32] = iu_i32, [IR_DTYPE_I16] = iu_i16,
	[IR_DTYPE_I8] = iu_i8, [IR_DTYPE_U8] = iu_u8,
};

int ir_kern_unary(ir_kctx *k)
{
	int op = k->n->op;
	const ir_tensor *x = k->it[0];
	bool int_ok = op == IR_OP_NEG || op == IR_OP_ABS || op == IR_OP_RELU;
	if (k->prepare)
		return need_dtype(k, x, int_ok ? M_NUM : M_F32, "input");
	if (x->dtype != IR_DTYPE_F32) {
		int_unary[x->dtype](op, k->out[0], k->in[0], numel(x));
		return 0;
	}
	float p[2];
	unary_params(k->g, k->id, op, p);
	unary_ops[op].f(k->out[0], k->in[0], numel(x), p);
	return 0;
}

/* ---------------------------------------------------------------- fused activations */

int ir_act_from_node(const ir_graph *g, int node, ir_act *a, ir_diag *d)
{
	*a = (ir_act){.lo = -INFINITY, .hi = INFINITY, .op = -1};
	const char *name = ir_node_str(g, node, "act", NULL);
	if (!name || !*name || !strcmp(name, "none"))
		return 0;
	int op = ir_op_from_name(name);
	if (op < 0 || !unary_ops[op].f)
		return ir_fail(d, node, -1, "unknown fused activation '%s'", name);
	const double *v;
	int n = ir_node_floats(g, node, "act_params", &v);
	float p[2] = {unary_ops[op].da, unary_ops[op].db};
	if (n > 2)
		return ir_fail(d, node, -1, "activation '%s' takes at most 2 parameters, act_params has %d", name, n);
	for (int i = 0; i < n; i++)
		p[i] = (float)v[i];
	if (op == IR_OP_RELU) {
		a->lo = 0;
	} else if (op == IR_OP_RELU6) {
		a->lo = 0;
		a->hi = 6;
	} else if (op == IR_OP_CLIP) {
		a->lo = p[0];
		a->hi = p[1];
	} else {
		a->op = op;
		a->p[0] = p[0];
		a->p[1] = p[1];
	}
	return 0;
}

void ir_kern_act(const ir_kctx *k, ir_act *a)
{
	if (k->act)
		*a = *k->act;
	else
		ir_act_from_node(k->g, k->id, a, k->d);
}

int ir_act_from_unary_node(const ir_graph *g, int node, ir_act *a)
{
	const ir_node *n = ir_graph_node(g, node);
	if (!n || n->n_inputs != 1 || n->n_outputs != 1 || !unary_ops[n->op].f || n->inputs[0] < 0 ||
	    (ir_graph_tensor(g, n->inputs[0])->dtype != IR_DTYPE_F32 &&
	     ir_graph_tensor(g, n->inputs[0])->dtype != IR_DTYPE_F16))
		return -1;
	float p[2];
	unary_params(g, node, n->op, p);
	*a = (ir_act){.lo = -INFINITY, .hi = INFINITY, .op = -1};
	if (n->op == IR_OP_RELU) {
		a->lo = 0;
	} else if (n->op == IR_OP_RELU6) {
		a->lo = 0;
		a->hi = 6;
	} else if (n->op == IR_OP_CLIP) {
		a->lo = p[0];
		a->hi = p[1];
	} else {
		a->op = n->op;
		a->p[0] = p[0];
		a->p[1] = p[1];
	}
	return 0;
}

bool ir_act_is_identity(const ir_act *a) { return a->op < 0 && a->lo == -INFINITY && a->hi == INFINITY; }

void ir_act_apply(const ir_act *a, float *x, int64_t n)
{
	if (a->lo != -INFINITY || a->hi != INFINITY) {
		float p[2] = {a->lo, a->hi};
		u_clip(x, x, n, p);
	}
	if (a->op >= 0)
		unary_ops[a->op].f(x, x, n, a->p);
}

/* ---------------------------------------------------------------- broadcasting */

/* An output iteration space of rank dims with element strides of two
 * operands (0 where broadcast); adjacent dims merged where possible. */
typedef struct {
	int rank;
	int64_t dim[IR_MAX_RANK];
	int64_t sa[IR_MAX_RANK], sb[IR_MAX_RANK];
} bplan;

static void operand_strides(const ir_shape *s, const ir_shape *o, int64_t *st)
{
	int off = o->rank - s->rank;
	int64_t acc = 1;
	for (int i = o->rank - 1; i >= 0; i--) {
		int j = i - off;
		int64_t d = j >= 0 ? s->dim[j] : 1;
		st[i] = d == 1 ? 0 : acc;
		acc *= d;
	}
}

static void bplan_make(bplan *p, const ir_shape *a, const ir_shape *b, const ir_shape *o)
{
	int64_t sa[IR_MAX_RANK], sb[IR_MAX_RANK];
	operand_strides(a, o, sa);
	operand_strides(b, o, sb);
	p->rank = 0;
	for (int i = 0; i < o->rank; i++) {
		if (o->dim[i] == 1)
			continue;
		int r = p->rank;
		if (r > 0 && p->sa[r - 1] == sa[i] * o->dim[i] && p->sb[r - 1] == sb[i] * o->dim[i]) {
			p->dim[r - 1] *= o->dim[i];
			p->sa[r - 1] = sa[i];
			p->sb[r - 1] = sb[i];
			continue;
		}
		p->dim[r] = o->dim[i];
		p->sa[r] = sa[i];
		p->sb[r] = sb[i];
		p->rank++;
	}
	if (p->rank == 0) {
		p->rank = 1;
		p->dim[0] = 1;
		p->sa[0] = p->sb[0] = 0;
	}
}

/* Call f(o, a, sa, b, sb, n) over rows of the innermost dimension. */
typedef void (*binfn)(void *o, const void *a, int64_t sa, const void *b, int64_t sb, int64_t n);

static void bplan_run(const bplan *p, binfn f, void *o, const void *a, const void *b, size_t es)
{
	int r = p->rank, last = r - 1;
	int64_t idx[IR_MAX_RANK] = {0}, oa = 0, ob = 0, inner = p->dim[last];
	char *op = o;
	for (;;) {
		f(op, (const char *)a + oa * (int64_t)es, p->sa[last], (const char *)b + ob * (int64_t)es, p->sb[last], inner);
		op += inner * (int64_t)es;
		int i = last - 1;
		for (; i >= 0; i--) {
			oa += p->sa[i];
			ob += p->sb[i];
			if (++idx[i] < p->dim[i])
				break;
			oa -= p->sa[i] * p->dim[i];
			ob -= p->sb[i] * p->dim[i];
			idx[i] = 0;
		}
		if (i < 0)
			break;
	}
}

/* One binary loop with the common stride cases specialised. */
#define BIN_FN(name, T, EXPR) \
	static void name(void *ov, const void *av, int64_t sa, const void *bv, int64_t sb, int64_t n) \
	{ \
		T *o = ov; \
		const T *a = av, *b = bv; \
		if (sa == 1 && sb == 1) { \
			FOR_VEC(i, n, T x = a[i]; T y = b[i]; o[i] = (EXPR);); \
		} else if (sa == 1 && sb == 0) { \
			T y = b[0]; \
			FOR_VEC(i, n, T x = a[i]; o[i] = (EXPR);); \
		} else if (sa == 0 && sb == 1) { \
			T x = a[0]; \
			FOR_VEC(i, n, T y = b[i]; o[i] = (EXPR);); \
		} else { \
			for (int64_t i = 0; i < n; i++) { \
				T x = a[i * sa], y = b[i * sb]; \
				o[i] = (EXPR); \
			} \
		} \
	}

/* Integer arithmetic wraps (done in uint64_t: no signed overflow). */
#define IWRAP(T, x, OP, y) ((T)((uint64_t)(int64_t)(x) OP (uint64_t)(int64_t)(y)))
#define IDIV(T, x, y) ((y) == 0 ? (T)0 : (y) == (T)-1 ? IWRAP(T, 0, -, x) : (T)((x) / (y)))

#define BIN_TYPE(T, S) \
	BIN_FN(b_add_##S, T, IWRAP(T, x, +, y)) \
	BIN_FN(b_sub_##S, T, IWRAP(T, x, -, y)) \
	BIN_FN(b_mul_##S, T, IWRAP(T, x, *, y)) \
	BIN_FN(b_div_##S, T, IDIV(T, x, y)) \
	BIN_FN(b_max_##S, T, x > y ? x : y) \
	BIN_FN(b_min_##S, T, x < y ? x : y)
BIN_TYPE(int64_t, i64)
BIN_TYPE(int32_t, i32)
BIN_TYPE(int16_t, i16)
BIN_TYPE(int8_t, i8)
BIN_TYPE(uint8_t, u8)
BIN_FN(b_add_f32, float, x + y)
BIN_FN(b_sub_f32, float, x - y)
BIN_FN(b_mul_f32, float, x * y)
BIN_FN(b_div_f32, float, x / y)
BIN_FN(b_max_f32, float, x > y || x != x ? x : y)
BIN_FN(b_min_f32, float, x < y || x != x ? x : y)
BIN_FN(b_prelu_f32, float, x < 0 ? x * y : x)
BIN_FN(b_pow_f32, float, powf(x, y))

#define BIN_ROW(op) {[IR_DTYPE_F32] = b_##op##_f32, [IR_DTYPE_I64] = b_##op##_i64, \
	[IR_DTYPE_I32] = b_##op##_i32, [IR_DTYPE_I16] = b_##op##_i16, [IR_DTYPE_I8] = b_##op##_i8, \
	[IR_DTYPE_U8] = b_##op##_u8}
static const binfn binary_ops[IR_OP_COUNT][IR_DTYPE_COUNT] = {
	[IR_OP_ADD] = BIN_ROW(add),
	[IR_OP_SUB] = BIN_ROW(sub),
	[IR_OP_MUL] = BIN_ROW(mul),
	[IR_OP_DIV] = BIN_ROW(div),
	[IR_OP_MAX] = BIN_ROW(max),
	[IR_OP_MIN] = BIN_ROW(min),
	[IR_OP_PRELU] = {[IR_DTYPE_F32] = b_prelu_f32},
	[IR_OP_POW] = {[IR_DTYPE_F32] = b_pow_f32},
};

/* Binary ops on types without a typed loop (f16, bf16, mixed pow):
 * elementwise through double. */
static double bin_double(int op, double x, double y)
{
	switch (op) {
	case IR_OP_ADD: return x + y;
	case IR_OP_SUB: return x - y;
	case IR_OP_MUL: return x * y;
	case IR_OP_DIV: return x / y;
	case IR_OP_MAX: return x > y || x != x ? x : y;
	case IR_OP_MIN: return x < y || x != x ? x : y;
	case IR_OP_PRELU: return x < 0 ? x * y : x;
	default: return pow(x, y);
	}
}

static void binary_generic(ir_kctx *k)
{
	const ir_tensor *a = k->it[0], *b = k->it[1], *o = k->ot[0];
	int64_t n = numel(o), idx[IR_MAX_RANK] = {0};
	int64_t sa[IR_MAX_RANK], sb[IR_MAX_RANK];
	operand_strides(&a->shape, &o->shape, sa);
	operand_strides(&b->shape, &o->shape, sb);
	for (int64_t i = 0; i < n; i++) {
		int64_t ia = 0, ib = 0, rem = i;
		for (int d = o->shape.rank - 1; d >= 0; d--) {
			idx[d] = rem % o->shape.dim[d];
			rem /= o->shape.dim[d];
			ia += idx[d] * sa[d];
			ib += idx[d] * sb[d];
		}
		double v = bin_double(k->n->op, ir_elem_get(k->in[0], a->dtype, ia), ir_elem_get(k->in[1], b->dtype, ib));
		if (is_float(o->dtype))
			put(k->out[0], o->dtype, i, v, 0);
		else
			put(k->out[0], o->dtype, i, 0, v != v ? 0 : v > 9.2e18 ? INT64_MAX : v < -9.2e18 ? INT64_MIN : (int64_t)v);
	}
}

int ir_kern_binary(ir_kctx *k)
{
	int op = k->n->op;
	const ir_tensor *a = k->it[0], *b = k->it[1], *o = k->ot[0];
	bool generic = (op == IR_OP_POW && b->dtype != a->dtype) || !binary_ops[op][a->dtype];
	if (k->prepare) {
		ir_act act;
		unsigned ok = M_NUM | (1u << IR_DTYPE_F16) | (1u << IR_DTYPE_BF16);
		if (ir_act_from_node(k->g, k->id, &act, k->d))
			return -1;
		if (generic && (need_dtype(k, a, ok, "input") || need_dtype(k, b, ok, "input")))
			return -1;
		if (!ir_act_is_identity(&act) && o->dtype != IR_DTYPE_F32)
			return KFAIL(k, "fused activation on a %s output", ir_dtype_name(o->dtype));
		return 0;
	}
	if (generic) {
		binary_generic(k);
	} else if (numel(o) > 0) {
		bplan p;
		bplan_make(&p, &a->shape, &b->shape, &o->shape);
		bplan_run(&p, binary_ops[op][a->dtype], k->out[0], k->in[0], k->in[1], esize(a));
	}
	if (o->dtype == IR_DTYPE_F32) {
		ir_act act;
		ir_kern_act(k, &act);
		if (!ir_act_is_identity(&act))
			ir_act_apply(&act, k->out[0], numel(o));
	}
	return 0;
}

/* ---------------------------------------------------------------- softmax */

/* Split a shape at axis into outer x n x inner. */
static void split_axis(const ir_shape *s, int axis, int64_t *outer, int64_t *n, int64_t *inner)
{
	*outer = *inner = 1;
	for (int i = 0; i < axis; i++)
		*outer *= s->dim[i];
	for (int i = axis + 1; i < s->rank; i++)
		*inner *= s->dim[i];
	*n = s->dim[axis];
}

int ir_kern_softmax(ir_kctx *k)
{
	const ir_tensor *x = k->it[0];
	if (k->prepare)
		return need_dtype(k, x, M_F32, "input");
	int axis = ir_axis(ir_node_int(k->g, k->id, "axis", -1), x->shape.rank);
	bool logsm = k->n->op == IR_OP_LOG_SOFTMAX;
	int64_t outer, n, inner;
	split_axis(&x->shape, axis, &outer, &n, &inner);
	const float *in = k->in[0];
	float *out = k->out[0];
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < inner; j++) {
			const float *xi = in + o * n * inner + j;
			float *yi = out + o * n * inner + j;
			float m = -INFINITY;
			for (int64_t i = 0; i < n; i++)
				m = xi[i * inner] > m ? xi[i * inner] : m;
			double s = 0;
			for (int64_t i = 0; i < n; i++) {
				float e = expf(xi[i * inner] - m);
				s += e;
				if (!logsm)
					yi[i * inner] = e;
			}
			if (logsm) {
				float ls = (float)log(s);
				for (int64_t i = 0; i < n; i++)
					yi[i * inner] = xi[i * inner] - m - ls;
			} else {
				float r = (float)(1 / s);
				for (int64_t i = 0; i < n; i++)
					yi[i * inner] *= r;
			}
		}
	return 0;
}

/* ---------------------------------------------------------------- reductions */

/* Reduced axes of a reduction node (all if absent or empty). */
static void reduce_mask(const ir_kctx *k, int rank, bool *mask)
{
	const int64_t *v;
	int n = ir_node_ints(k->g, k->id, "axes", &v);
	for (int i = 0; i < rank; i++)
		mask[i] = n <= 0;
	for (int i = 0; i < n; i++)
		mask[ir_axis(v[i], rank)] = true;
}

int ir_kern_reduce(ir_kctx *k)
{
	const ir_tensor *x = k->it[0], *o = k->ot[0];
	if (k->prepare)
		return need_dtype(k, x, M_NUM, "input");
	int op = k->n->op, r = x->shape.rank;
	bool mask[IR_MAX_RANK];
	reduce_mask(k, r, mask);
	/* Output strides per input axis (0 on reduced axes). */
	int64_t ost[IR_MAX_RANK], acc = 1, cnt = 1;
	for (int i = r - 1; i >= 0; i--) {
		ost[i] = mask[i] ? 0 : acc;
		acc *= mask[i] ? 1 : x->shape.dim[i];
		cnt *= mask[i] ? x->shape.dim[i] : 1;
	}
	int64_t no = numel(o), nx = numel(x);
	double *a = malloc(sizeof(double) * (size_t)(no ? no : 1));
	if (!a)
		return KFAIL(k, "out of memory");
	double init = op == IR_OP_REDUCE_MAX ? -INFINITY : op == IR_OP_REDUCE_MIN ? INFINITY : 0;
	for (int64_t i = 0; i < no; i++)
		a[i] = init;
	int64_t idx[IR_MAX_RANK] = {0}, oi = 0;
	for (int64_t i = 0; i < nx; i++) {
		double v = ir_elem_get(k->in[0], x->dtype, i);
		if (op == IR_OP_REDUCE_MAX)
			a[oi] = v > a[oi] || v != v ? v : a[oi];
		else if (op == IR_OP_REDUCE_MIN)
			a[oi] = v < a[oi] || v != v ? v : a[oi];
		else
			a[oi] += v;
		for (int d = r - 1; d >= 0; d--) {
			oi += ost[d];
			if (++idx[d] < x->shape.dim[d])
				break;
			oi -= ost[d] * x->shape.dim[d];
			idx[d] = 0;
		}
	}
	for (int64_t i = 0; i < no; i++) {
		double v = op == IR_OP_REDUCE_MEAN ? a[i] / (double)cnt : a[i];
		if (is_float(o->dtype))
			put(k->out[0], o->dtype, i, v, 0);
		else
			put(k->out[0], o->dtype, i, 0, op == IR_OP_REDUCE_MEAN ? (int64_t)v : (int64_t)a[i]);
	}
	free(a);
	return 0;
}

int ir_kern_argmax(ir_kctx *k)
{
	const ir_tensor *x = k->it[0];
	if (k->prepare)
		return need_dtype(k, x, M_NUM, "input");
	int axis = ir_axis(ir_node_int(k->g, k->id, "axis", 0), x->shape.rank);
	bool last = ir_node_int(k->g, k->id, "select_last_index", 0) != 0;
	int64_t outer, n, inner;
	split_axis(&x->shape, axis, &outer, &n, &inner);
	int64_t *out = k->out[0];
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < inner; j++) {
			int64_t base = o * n * inner + j, best = 0;
			double bv = n ? ir_elem_get(k->in[0], x->dtype, base) : 0;
			for (int64_t i = 1; i < n; i++) {
				double v = ir_elem_get(k->in[0], x->dtype, base + i * inner);
				if (v > bv || (last && v == bv)) {
					bv = v;
					best = i;
				}
			}
			out[o * inner + j] = best;
		}
	return 0;
}

/* LRN (ONNX): y = x / (bias + alpha / size * sum of x^2 over the
 * channels c - floor((size-1)/2) .. c + ceil((size-1)/2))^beta */
int ir_kern_lrn(ir_kctx *k)
{
	const ir_tensor *x = k->it[0];
	if (k->prepare)
		return need_dtype(k, x, M_F32, "input");
	int64_t N = x->shape.dim[0], C = x->shape.dim[1], inner = N * C > 0 ? ir_shape_numel(&x->shape) / (N * C) : 0;
	int64_t size = ir_node_int(k->g, k->id, "size", 1), before = (size - 1) / 2, after = size - 1 - before;
	double alpha = ir_node_float(k->g, k->id, "alpha", 1e-4), beta = ir_node_float(k->g, k->id, "beta", 0.75);
	double bias = ir_node_float(k->g, k->id, "bias", 1);
	const float *in = k->in[0];
	float *out = k->out[0];
	for (int64_t n = 0; n < N; n++)
		for (int64_t ch = 0; ch < C; ch++)
			for (int64_t j = 0; j < inner; j++) {
				double sq = 0;
				for (int64_t q = ch - before < 0 ? 0 : ch - before; q <= ch + after && q < C; q++) {
					double v = in[(n * C + q) * inner + j];
					sq += v * v;
				}
				int64_t at = (n * C + ch) * inner + j;
				out[at] = (float)(in[at] / pow(bias + alpha / (double)size * sq, beta));
			}
	return 0;
}

/* ---------------------------------------------------------------- data movement */

int ir_kern_copy(ir_kctx *k)
{
	if (k->prepare)
		return 0;
	size_t nb = ir_tensor_nbytes(k->ot[0]);
	if (nb && k->out[0] != k->in[0])
		memcpy(k->out[0], k->in[0], nb);
	return 0;
}

int ir_kern_concat(ir_kctx *k)
{
	const ir_tensor *o = k->ot[0];
	if (k->prepare)
		return 0;
	int axis = ir_axis(ir_node_int(k->g, k->id, "axis", 0), o->shape.rank);
	int64_t outer, n, inner;
	split_axis(&o->shape, axis, &outer, &n, &inner);
	size_t es = esize(o), orow = (size_t)(n * inner) * es;
	char *dst = k->out[0];
	size_t off = 0;
	for (int i = 0; i < k->nin; i++) {
		size_t row = (size_t)(k->it[i]->shape.dim[axis] * inner) * es;
		const char *src = k->in[i];
		for (int64_t j = 0; j < outer && row; j++)
			memcpy(dst + (size_t)j * orow + off, src + (size_t)j * row, row);
		off += row;
	}
	return 0;
}

int ir_kern_split(ir_kctx *k)
{
	const ir_tensor *x = k->it[0];
	if (k->prepare)
		return 0;
	int axis = ir_axis(ir_node_int(k->g, k->id, "axis", 0), x->shape.rank);
	int64_t outer, n, inner;
	split_axis(&x->shape, axis, &outer, &n, &inner);
	size_t es = esize(x), irow = (size_t)(n * inner) * es, off = 0;
	const char *src = k->in[0];
	for (int i = 0; i < k->nout; i++) {
		size_t row = (size_t)(k->ot[i]->shape.dim[axis] * inner) * es;
		char *dst = k->out[i];
		for (int64_t j = 0; j < outer && row; j++)
			memcpy(dst + (size_t)j * row, src + (size_t)j * irow + off, row);
		off += row;
	}
	return 0;
}

/* Copy elements of size es: dst[i] = src[i * stride] for i < n. */
static void gather_elems(char *dst, const char *src, int64_t n, int64_t stride, size_t es)
{
	if (stride == 1) {
		memcpy(dst, src, (size_t)n * es);
		return;
	}
	switch (es) {
	case 1: for (int64_t i = 0; i < n; i++) dst[i] = src[i * stride]; break;
	case 2: for (int64_t i = 0; i < n; i++) memcpy(dst + i * 2, src + i * stride * 2, 2); break;
	case 4: for (int64_t i = 0; i < n; i++) memcpy(dst + i * 4, src + i * stride * 4, 4); break;
	case 8: for (int64_t i = 0; i < n; i++) memcpy(dst + i * 8, src + i * stride * 8, 8); break;
	default: for (int64_t i = 0; i < n; i++) memcpy(dst + (size_t)i * es, src + (size_t)(i * stride) * es, es);
	}
}

/* Walk an output of rank r (dims od) in order; source element offset =
 * base + sum idx[d] * sst[d]. Rows of the last dimension are gathered. */
static void strided_copy(char *dst, const char *src, int r, const int64_t *od, int64_t base,
			 const int64_t *sst, size_t es)
{
	if (r == 0) {
		memcpy(dst, src + base * (int64_t)es, es);
		return;
	}
	for (int d = 0; d < r; d++)
		if (od[d] == 0)
			return;
	int64_t idx[IR_MAX_RANK] = {0}, off = base, inner = od[r - 1];
	for (;;) {
		gather_elems(dst, src + off * (int64_t)es, inner, sst[r - 1], es);
		dst += inner * (int64_t)es;
		int d = r - 2;
		for (; d >= 0; d--) {
			off += sst[d];
			if (++idx[d] < od[d])
				break;
			off -= sst[d] * od[d];
			idx[d] = 0;
		}
		if (d < 0)
			return;
	}
}

static void contiguous_strides(const ir_shape *s, int64_t *st)
{
	int64_t acc = 1;
	for (int i = s->rank - 1; i >= 0; i--) {
		st[i] = acc;
		acc *= s->dim[i];
	}
}

int ir_kern_slice(ir_kctx *k)
{
	const ir_tensor *x = k->it[0], *o = k->ot[0];
	if (k->prepare)
		return 0;
	int r = x->shape.rank;
	int64_t xst[IR_MAX_RANK], sst[IR_MAX_RANK], base = 0;
	contiguous_strides(&x->shape, xst);
	for (int i = 0; i < r; i++)
		sst[i] = xst[i];
	const int64_t *st, *en, *ax, *sp;
	int n = ir_node_ints(k->g, k->id, "starts", &st);
	ir_node_ints(k->g, k->id, "ends", &en);
	int na = ir_node_ints(k->g, k->id, "axes", &ax), ns = ir_node_ints(k->g, k->id, "steps", &sp);
	for (int i = 0; i < n; i++) {
		int a = ir_axis(na >= 0 ? ax[i] : i, r);
		int64_t step = ns >= 0 ? sp[i] : 1, first, count;
		ir_slice_axis(x->shape.dim[a], st[i], en[i], step, &first, &count);
		if (count > 0)
			base += first * xst[a];
		sst[a] = xst[a] * step;
	}
	strided_copy(k->out[0], k->in[0], r, o->shape.dim, base, sst, esize(x));
	return 0;
}

static void perm_of(const ir_kctx *k, int r, int64_t *perm)
{
	const int64_t *v;
	if (ir_node_ints(k->g, k->id, "perm", &v) == r)
		memcpy(perm, v, sizeof *perm * (size_t)r);
	else
		for (int i = 0; i < r; i++)
			perm[i] = r - 1 - i;
}

int ir_kern_transpose(ir_kctx *k)
{
	const ir_tensor *x = k->it[0], *o = k->ot[0];
	if (k->prepare)
		return 0;
	int r = x->shape.rank;
	int64_t perm[IR_MAX_RANK], xst[IR_MAX_RANK], sst[IR_MAX_RANK];
	perm_of(k, r, perm);
	contiguous_strides(&x->shape, xst);
	for (int i = 0; i < r; i++)
		sst[i] = xst[perm[i]];
	strided_copy(k->out[0], k->in[0], r, o->shape.dim, 0, sst, esize(x));
	return 0;
}

/* Map output coordinate i (pads removed) into the input for reflect/edge;
 * -1 when it lies outside (constant mode). */
static int64_t pad_index(int64_t i, int64_t n, int mode)
{
	if (i >= 0 && i < n)
		return i;
	if (mode == 0 || n == 0)
		return -1;
	if (mode == 2)
		return i < 0 ? 0 : n - 1;
	if (n == 1)
		return 0;
	int64_t period = 2 * (n - 1);
	i %= period;
	if (i < 0)
		i += period;
	return i < n ? i : period - i;
}

int ir_kern_pad(ir_kctx *k)
{
	const ir_tensor *x = k->it[0], *o = k->ot[0];
	if (k->prepare)
		return need_dtype(k, x, M_ALL, "input");
	int r = x->shape.rank;
	const char *ms = ir_node_str(k->g, k->id, "mode", "constant");
	int mode = !strcmp(ms, "reflect") ? 1 : !strcmp(ms, "edge") ? 2 : 0;
	int64_t pads[2 * IR_MAX_RANK] = {0}, xst[IR_MAX_RANK];
	const int64_t *pv;
	if (ir_node_ints(k->g, k->id, "pads", &pv) == 2 * r)
		memcpy(pads, pv, sizeof *pads * (size_t)(2 * r));
	contiguous_strides(&x->shape, xst);
	size_t es = esize(x);
	double value = ir_node_float(k->g, k->id, "value", 0);
	char fill[8] = {0};
	put(fill, x->dtype, 0, value, (int64_t)value);
	int64_t n = numel(o), idx[IR_MAX_RANK] = {0};
	char *dst = k->out[0];
	const char *src = k->in[0];
	for (int64_t i = 0; i < n; i++) {
		int64_t off = 0;
		bool inside = true;
		for (int d = 0; d < r; d++) {
			int64_t s = pad_index(idx[d] - pads[d], x->shape.dim[d], mode);
			if (s < 0) {
				inside = false;
				break;
			}
			off += s * xst[d];
		}
		memcpy(dst + (size_t)i * es, inside ? src + (size_t)off * es : fill, es);
		for (int d = r - 1; d >= 0; d--) {
			if (++idx[d] < o->shape.dim[d])
				break;
			idx[d] = 0;
		}
	}
	return 0;
}

int ir_kern_gather(ir_kctx *k)
{
	const ir_tensor *x = k->it[0], *ix = k->it[1];
	if (k->prepare)
		return 0;
	int axis = ir_axis(ir_node_int(k->g, k->id, "axis", 0), x->shape.rank);
	int64_t outer, n, inner, ni = numel(ix);
	split_axis(&x->shape, axis, &outer, &n, &inner);
	size_t es = esize(x), row = (size_t)inner * es;
	char *dst = k->out[0];
	const char *src = k->in[0];
	for (int64_t j = 0; j < ni; j++) {
		int64_t v = get_i64(k->in[1], ix->dtype, j);
		if (v < -n || v >= n)
			return KFAIL(k, "index %lld is out of range for dimension %lld", (long long)v, (long long)n);
	}
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < ni; j++) {
			int64_t v = get_i64(k->in[1], ix->dtype, j);
			if (v < 0)
				v += n;
			memcpy(dst + (size_t)(o * ni + j) * row, src + (size_t)(o * n + v) * row, row);
		}
	return 0;
}

/* ---------------------------------------------------------------- space/depth rearrangements */

int ir_kern_depth_to_space(ir_kctx *k)
{
	const ir_tensor *x = k->it[0];
	if (k->prepare)
		return refuse_channel_last(k);
	int64_t b = ir_node_int(k->g, k->id, "blocksize", 1);
	bool crd = !strcmp(ir_node_str(k->g, k->id, "mode", "DCR"), "CRD");
	int64_t N = x->shape.dim[0], C = x->shape.dim[1], H = x->shape.dim[2], W = x->shape.dim[3];
	int64_t Co = C / (b * b), Ho = H * b, Wo = W * b;
	size_t es = esize(x);
	char *dst = k->out[0];
	const char *src = k->in[0];
	for (int64_t n = 0; n < N; n++)
		for (int64_t c = 0; c < Co; c++)
			for (int64_t y = 0; y < Ho; y++)
				for (int64_t xx = 0; xx < Wo; xx++) {
					int64_t i = y % b, j = xx % b;
					int64_t ci = crd ? c * b * b + i * b + j : (i * b + j) * Co + c;
					int64_t so = ((n * C + ci) * H + y / b) * W + xx / b;
					int64_t doff = ((n * Co + c) * Ho + y) * Wo + xx;
					memcpy(dst + (size_t)doff * es, src + (size_t)so * es, es);
				}
	return 0;
}

int ir_kern_space_to_depth(ir_kctx *k)
{
	const ir_tensor *x = k->it[0], *o = k->ot[0];
	if (k->prepare)
		return refuse_channel_last(k);
	int64_t b = ir_node_int(k->g, k->id, "blocksize", 1);
	int64_t N = x->shape.dim[0], C = x->shape.dim[1], H = x->shape.dim[2], W = x->shape.dim[3];
	int64_t Co = o->shape.dim[1], Ho = o->shape.dim[2], Wo = o->shape.dim[3];
	size_t es = esize(x);
	char *dst = k->out[0];
	const char *src = k->in[0];
	for (int64_t n = 0; n < N; n++)
		for (int64_t co = 0; co < Co; co++) {
			int64_t c = co % C, blk = co / C, i = blk / b, j = blk % b;
			for (int64_t y = 0; y < Ho; y++)
				for (int64_t xx = 0; xx < Wo; xx++) {
					int64_t so = ((n * C + c) * H + y * b + i) * W + xx * b + j;
					int64_t doff = ((n * Co + co) * Ho + y) * Wo + xx;
					memcpy(dst + (size_t)doff * es, src + (size_t)so * es, es);
				}
		}
	return 0;
}

/* TF BatchToSpaceND / SpaceToBatchND over the spatial axes of either layout:
 * batch index of the blocked side = (block offset) * B + b. */
static int batch_space(ir_kctx *k, bool to_space)
{
	const ir_tensor *x = k->it[0], *o = k->ot[0];
	if (k->prepare)
		return 0;
	int r = x->shape.rank, nsp = r - 2, sp = ir_kern_channel_last(k) ? 1 : 2;
	int64_t blk[3] = {1, 1, 1}, pc[6] = {0};
	const int64_t *v;
	if (ir_node_ints(k->g, k->id, "block", &v) == nsp)
		memcpy(blk, v, sizeof *blk * (size_t)nsp);
	if (ir_node_ints(k->g, k->id, to_space ? "crops" : "pads", &v) == 2 * nsp)
		memcpy(pc, v, sizeof *pc * (size_t)(2 * nsp));
	/* Iterate over the space side (the output of batch_to_space, the input
	 * of space_to_batch) including pads. */
	const ir_tensor *big = to_space ? o : x, *small = to_space ? x : o;
	int64_t B = big->shape.dim[0], bst[IR_MAX_RANK];
	contiguous_strides(&big->shape, bst);
	size_t es = esize(x);
	if (!to_space)
		memset(k->out[0], 0, ir_tensor_nbytes(o));
	int64_t n = ir_tensor_nbytes(small) / es, idx[IR_MAX_RANK] = {0};
	/* Walk the small (blocked) side; each element maps to one padded
	 * position of the space side. */
	for (int64_t i = 0; i < n; i++) {
		int64_t sb = idx[0], b = sb % B, off = sb / B, boff = b * bst[0];
		bool inside = true;
		int64_t rem = off;
		for (int d = nsp - 1; d >= 0; d--) {
			int64_t bi = rem % blk[d];
			rem /= blk[d];
			int64_t pos = idx[sp + d] * blk[d] + bi - pc[2 * d];
			if (pos < 0 || pos >= big->shape.dim[sp + d])
				inside = false;
			boff += pos * bst[sp + d];
		}
		int ca = sp == 1 ? r - 1 : 1;
		boff += idx[ca] * bst[ca];
		if (inside) {
			if (to_space)
				memcpy((char *)k->out[0] + (size_t)boff * es, (const char *)k->in[0] + (size_t)i * es, es);
			else
				memcpy((char *)k->out[0] + (size_t)i * es, (const char *)k->in[0] + (size_t)boff * es, es);
		}
		for (int d = r - 1; d >= 0; d--) {
			if (++idx[d] < small->shape.dim[d])
				break;
			idx[d] = 0;
		}
	}
	return 0;
}

int ir_kern_batch_to_space(ir_kctx *k) { return batch_space(k, true); }
int ir_kern_space_to_batch(ir_kctx *k) { return batch_space(k, false); }

/* ---------------------------------------------------------------- resize */

enum { NM_ROUND_FLOOR, NM_ROUND_CEIL, NM_FLOOR, NM_CEIL };

static int name_in(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static const char *const ct_names[] = {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
				       "tf_half_pixel_for_nn"};
static const char *const nm_names[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};

/* Source coordinate of output index i along one axis. The resized length
 * is in * scale, not rounded (as ONNX's reference computes it). */
static double resize_coord(int ct, int64_t i, int64_t in, double scale)
{
	double out = (double)in * scale;
	switch (ct) {
	case IR_CT_ASYMMETRIC: return (double)i / scale;
	case IR_CT_ALIGN_CORNERS: return out > 1 ? (double)i * (double)(in - 1) / (out - 1) : 0;
	case IR_CT_PYTORCH_HALF_PIXEL: return out > 1 ? ((double)i + 0.5) / scale - 0.5 : 0;
	case IR_CT_TF_HALF_PIXEL_FOR_NN: return ((double)i + 0.5) / scale;
	default: return ((double)i + 0.5) / scale - 0.5;
	}
}

static int64_t clampi(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

int ir_resize_spec_of(const ir_graph *g, int node, ir_resize_spec *rs, ir_diag *d)
{
	const char *cts = ir_node_str(g, node, "coordinate_transformation_mode", "half_pixel");
	const char *nms = ir_node_str(g, node, "nearest_mode", "round_prefer_floor");
	const char *ms = ir_node_str(g, node, "mode", "nearest");
	rs->ct = name_in(cts, ct_names, 5), rs->nm = name_in(nms, nm_names, 4);
	rs->mode = !strcmp(ms, "nearest") ? 0 : !strcmp(ms, "linear") ? 1 : !strcmp(ms, "cubic") ? 2 : -1;
	rs->a = ir_node_float(g, node, "cubic_coeff_a", -0.75);
	rs->exclude = ir_node_int(g, node, "exclude_outside", 0) != 0;
	if (rs->ct < 0)
		return ir_fail(d, node, -1, "coordinate_transformation_mode '%s' is not implemented", cts);
	if (rs->nm < 0)
		return ir_fail(d, node, -1, "nearest_mode '%s' is not implemented", nms);
	if (rs->mode < 0)
		return ir_fail(d, node, -1, "mode '%s' is not implemented", ms);
	return 0;
}

/* Keys' cubic convolution weight of distance t (ONNX's coefficients). */
static double cubic_w(double t, double A)
{
	t = fabs(t);
	if (t <= 1)
		return ((A + 2) * t - (A + 3)) * t * t + 1;
	if (t < 2)
		return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A;
	return 0;
}

int ir_resize_taps(const ir_resize_spec *rs, int64_t n, double s, int64_t i, int64_t *idx, double *w)
{
	double c = resize_coord(rs->ct, i, n, s);
	if (rs->mode == 1) {
		double f = floor(c);
		float wf = (float)(c - f);
		idx[0] = clampi((int64_t)f, 0, n - 1), idx[1] = clampi((int64_t)f + 1, 0, n - 1);
		w[0] = 1 - wf, w[1] = wf;	/* as the float interpreter rounds them */
		return 2;
	}
	if (rs->mode == 2) {
		/* ONNX: the 4 nearest points, the left one preferred at
		 * integer coordinates (ratio 1), edge-padded */
		double f = floor(c), r = c - f;
		if (r == 0)
			f -= 1, r = 1;
		double sum = 0;
		for (int k = 0; k < 4; k++) {
			int64_t j = (int64_t)f - 1 + k;
			w[k] = cubic_w(r + 1 - k, rs->a);
			if (rs->exclude && (j < 0 || j >= n))
				w[k] = 0;
			sum += w[k];
			idx[k] = clampi(j, 0, n - 1);
		}
		for (int k = 0; rs->exclude && sum != 0 && k < 4; k++)
			w[k] /= sum;
		return 4;
	}
	double v;
	switch (rs->nm) {
	case NM_ROUND_CEIL: v = floor(c + 0.5); break;
	case NM_FLOOR: v = floor(c); break;
	case NM_CEIL: v = ceil(c); break;
	default: v = ceil(c - 0.5); break;
	}
	idx[0] = clampi((int64_t)v, 0, n - 1);
	w[0] = 1;
	return 1;
}

int ir_kern_resize(ir_kctx *k)
{
	const ir_tensor *x = k->it[0], *o = k->ot[0];
	ir_resize_spec rs;
	if (k->prepare) {
		if (ir_resize_spec_of(k->g, k->id, &rs, k->d))
			return -1;
		return need_dtype(k, x, rs.mode ? M_F32 : M_ALL, "input");
	}
	ir_resize_spec_of(k->g, k->id, &rs, k->d);
	int ct = rs.ct;
	bool linear = rs.mode == 1;
	int r = x->shape.rank;
	const double *sc;
	bool has_scales = ir_node_floats(k->g, k->id, "scales", &sc) == r;
	size_t es = esize(x);
	/* Resize one axis at a time (every mode is separable), ping-ponging
	 * between two scratch buffers; the last pass writes the output. */
	int axes[IR_MAX_RANK], na = 0;
	for (int d = 0; d < r; d++) {
		double s = has_scales ? sc[d] : (double)o->shape.dim[d] / (double)x->shape.dim[d];
		bool ident = o->shape.dim[d] == x->shape.dim[d] && (s == 1 || ct == IR_CT_ALIGN_CORNERS);
		if (!ident)
			axes[na++] = d;
	}
	if (na == 0 || numel(o) == 0) {
		if (numel(o))
			memcpy(k->out[0], k->in[0], ir_tensor_nbytes(o));
		return 0;
	}
	ir_shape cur = x->shape;
	const char *src = k->in[0];
	for (int a = 0; a < na; a++) {
		int d = axes[a];
		ir_shape nxt = cur;
		nxt.dim[d] = o->shape.dim[d];
		char *dst = a == na - 1 ? k->out[0] : ir_kscratch(k, 0, a % 2 ? IR_SCRATCH_K1 : IR_SCRATCH_K0,
								  (size_t)ir_shape_numel(&nxt) * es);
		if (!dst)
			return KFAIL(k, "out of memory");
		int64_t outer, n, inner, m = nxt.dim[d];
		split_axis(&cur, d, &outer, &n, &inner);
		double s = has_scales ? sc[d] : (double)m / (double)n;
		for (int64_t i = 0; i < m; i++) {
			int64_t ti[4];
			double tw[4];
			int nt = ir_resize_taps(&rs, n, s, i, ti, tw);
			if (linear) {
				float w = (float)tw[1];
				const float *s0 = (const float *)src + ti[0] * inner, *s1 = (const float *)src + ti[1] * inner;
				float *dd = (float *)dst + i * inner;
				for (int64_t ob = 0; ob < outer; ob++)
					for (int64_t j = 0; j < inner; j++)
						dd[ob * m * inner + j] = s0[ob * n * inner + j] * (1 - w) +
									 s1[ob * n * inner + j] * w;
			} else if (nt == 4) {
				float *dd = (float *)dst + i * inner;
				for (int64_t ob = 0; ob < outer; ob++)
					for (int64_t j = 0; j < inner; j++) {
						double acc = 0;
						for (int t = 0; t < 4; t++)
							acc += tw[t] * ((const float *)src)[(ob * n + ti[t]) * inner + j];
						dd[ob * m * inner + j] = (float)acc;
					}
			} else {
				for (int64_t ob = 0; ob < outer; ob++)
					memcpy(dst + (size_t)((ob * m + i) * inner) * es,
					       src + (size_t)((ob * n + ti[0]) * inner) * es, (size_t)inner * es);
			}
		}
		src = dst;
		cur = nxt;
	}
	return 0;
}

/* ---------------------------------------------------------------- types and quantization */

int ir_kern_cast(ir_kctx *k)
{
	const ir_tensor *x = k->it[0], *o = k->ot[0];
	if (k->prepare)
		return 0;
	int64_t n = numel(x);
	if (x->dtype == o->dtype) {
		memcpy(k->out[0], k->in[0], ir_tensor_nbytes(x));
		return 0;
	}
	if (x->dtype == IR_DTYPE_F32 && o->dtype == IR_DTYPE_F16) {
		const float *s = k->in[0];
		uint16_t *dd = k->out[0];
		for (int64_t i = 0; i < n; i++)
			dd[i] = npu_f32_to_f16(s[i]);
		return 0;
	}
	for (int64_t i = 0; i < n; i++) {
		if (is_float(x->dtype)) {
			double v = ir_elem_get(k->in[0], x->dtype, i);
			put(k->out[0], o->dtype, i, v, o->dtype == IR_DTYPE_BOOL ? v != 0 : get_i64(k->in[0], x->dtype, i));
		} else {
			int64_t v = get_i64(k->in[0], x->dtype, i);
			put(k->out[0], o->dtype, i, (double)v, v);
		}
	}
	return 0;
}

/* Per-axis parameters: index of element i into a vector of n along axis. */
typedef struct {
	int64_t inner, n;
} qaxis;

static int quant_axis(ir_kctx *k, const ir_tensor *x, const ir_tensor *s, qaxis *q)
{
	q->inner = 1;
	q->n = 1;
	if (!s || numel(s) <= 1)
		return 0;
	int axis = ir_axis(ir_node_int(k->g, k->id, "axis", 1), x->shape.rank);
	if (axis < 0 || s->shape.rank != 1 || s->shape.dim[0] != x->shape.dim[axis])
		return KFAIL(k, "scale of %lld values does not match axis %d of the input",
			     (long long)numel(s), axis);
	for (int d = axis + 1; d < x->shape.rank; d++)
		q->inner *= x->shape.dim[d];
	q->n = s->shape.dim[0];
	return 0;
}

static int64_t qidx(const qaxis *q, int64_t i) { return q->n == 1 ? 0 : (i / q->inner) % q->n; }

static void qrange(ir_dtype t, int64_t *lo, int64_t *hi)
{
	switch (t) {
	case IR_DTYPE_I8: *lo = INT8_MIN; *hi = INT8_MAX; break;
	case IR_DTYPE_I16: *lo = INT16_MIN; *hi = INT16_MAX; break;
	case IR_DTYPE_I32: *lo = INT32_MIN; *hi = INT32_MAX; break;
	default: *lo = 0; *hi = UINT8_MAX; break;
	}
}

int ir_kern_quantize(ir_kctx *k)
{
	const ir_tensor *x = k->it[0], *s = k->nin > 1 ? k->it[1] : NULL, *z = k->nin > 2 ? k->it[2] : NULL;
	const ir_tensor *o = k->ot[0];
	qaxis q;
	if (k->prepare) {
		if (!s)
			return KFAIL(k, "quantize needs a scale input");
		if (need_dtype(k, x, M_F32, "input") || need_dtype(k, s, M_F32, "scale") ||
		    need_dtype(k, o, (1u << IR_DTYPE_I8) | (1u << IR_DTYPE_U8) | (1u << IR_DTYPE_I16) | (1u << IR_DTYPE_I32),
			       "output"))
			return -1;
		if (z && (z->dtype != o->dtype || numel(z) != numel(s)))
			return KFAIL(k, "zero point must match the scale in size and the output in type");
		return quant_axis(k, x, s, &q);
	}
	quant_axis(k, x, s, &q);
	int64_t n = numel(x), lo, hi;
	qrange(o->dtype, &lo, &hi);
	const float *xv = k->in[0], *sv = k->in[1];
	for (int64_t i = 0; i < n; i++) {
		int64_t j = qidx(&q, i);
		double zp = z ? (double)get_i64(k->in[2], z->dtype, j) : 0;
		float v = rintf(xv[i] / sv[j]);	/* round half to even */
		double r = (double)v + zp;
		int64_t iv = r != r ? 0 : r < (double)lo ? lo : r > (double)hi ? hi : (int64_t)r;
		put(k->out[0], o->dtype, i, 0, iv);
	}
	return 0;
}

int ir_kern_dequantize(ir_kctx *k)
{
	const ir_tensor *x = k->it[0], *s = k->nin > 1 ? k->it[1] : NULL, *z = k->nin > 2 ? k->it[2] : NULL;
	qaxis q;
	if (k->prepare) {
		if (!s)
			return KFAIL(k, "dequantize needs a scale input");
		if (need_dtype(k, x, M_INT, "input") || need_dtype(k, s, M_F32, "scale") ||
		    need_dtype(k, k->ot[0], 1u << IR_DTYPE_F32, "output"))
			return -1;
		if (z && numel(z) != numel(s))
			return KFAIL(k, "zero point must match the scale in size");
		return quant_axis(k, x, s, &q);
	}
	quant_axis(k, x, s, &q);
	int64_t n = numel(x);
	const float *sv = k->in[1];
	float *y = k->out[0];
	for (int64_t i = 0; i < n; i++) {
		int64_t j = qidx(&q, i);
		int64_t zp = z ? get_i64(k->in[2], z->dtype, j) : 0;
		y[i] = (float)(get_i64(k->in[0], x->dtype, i) - zp) * sv[j];
	}
	return 0;
}

/* y = table[x] (npu-quant's lookup tables; the same arithmetic as the
 * runtime's LUT kernel, share/npu/runtime/npu_rt.h): an int8 input indexes
 * 256 entries; an int16 input with 2^B + 1 entries interpolates between
 * entry i = (x + 32768) >> (16 - B) and the next. */
int ir_kern_lut(ir_kctx *k)
{
	const ir_tensor *x = k->it[0], *t = k->it[1];
	int64_t len = numel(t);
	int bits = 0;
	while (bits < 16 && ((int64_t)1 << bits) + 1 < len)
		bits++;
	if (k->prepare) {
		if (need_dtype(k, x, (1u << IR_DTYPE_I8) | (1u << IR_DTYPE_I16), "input") ||
		    need_dtype(k, t, (1u << IR_DTYPE_I8) | (1u << IR_DTYPE_I16), "table"))
			return -1;
		if (x->dtype == IR_DTYPE_I8 ? len != 256 : ((int64_t)1 << bits) + 1 != len)
			return KFAIL(k, "table has %lld entries, expected 256 (int8) or 2^B+1 (int16)", (long long)len);
		return 0;
	}
	int64_t n = numel(x);
	for (int64_t i = 0; i < n; i++) {
		int64_t v = get_i64(k->in[0], x->dtype, i), r;
		if (x->dtype == IR_DTYPE_I8) {
			r = get_i64(k->in[1], t->dtype, v + 128);
		} else {
			int sh = 16 - bits;
			int64_t u = v + 32768, j = u >> sh, f = u & (((int64_t)1 << sh) - 1);
			int64_t a = get_i64(k->in[1], t->dtype, j), b = j + 1 < len ? get_i64(k->in[1], t->dtype, j + 1) : a;
			r = a + npu_rshift_round((b - a) * f, sh);
		}
		put(k->out[0], k->ot[0]->dtype, i, 0, r);
	}
	return 0;
}
