/* ir_lower.c - a quantized or fp16 graph as a runtime program (npu_rt.h).
 *
 * Each node becomes kernel calls whose integer parameters are computed
 * here once: geometry, zero points, clamps in the quantized domain, and the
 * requantization multipliers derived from the tensors' scales. Constants go
 * into one weight blob (16-byte aligned each), along with what the kernels
 * need beyond the graph's own constants (multipliers, shifts, weight zero
 * points, converted biases). npu-run executes the result and npu-emit
 * prints it, so the two cannot disagree. */
#include "ir_kern.h"
#include "ir_plugin.h"
#include "../share/npu/runtime/npu_half.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const ir_graph *g;
	ir_lowered *l;
	ir_diag *d;
	ir_pass_note note;
	void *user;
	int node;		/* being lowered */
	int errors;
	size_t cap_t, cap_op, cap_arg, cap_par, cap_w, cap_s;
	bool oom;
	uint32_t smax;		/* the convolutions' scratch budget (NPU_CV_SMAX), 0: none */
} lw;

static void *grow(lw *c, void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	void *q = realloc(p, n * elem);
	if (!q) {
		c->oom = true;
		return NULL;
	}
	*cap = n;
	return q;
}

/* Report a node the runtime cannot run; lowering goes on to find the rest. */
static int unsupported(lw *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int unsupported(lw *c, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!c->errors++)
		ir_fail(c->d, c->node, -1, "%s", msg);
	if (c->note)
		c->note(c->user, c->g, c->node, msg);
	return -1;
}

static int npu_type(ir_dtype t)
{
	switch (t) {
	case IR_DTYPE_F32: return NPU_T_F32;
	case IR_DTYPE_F16: return NPU_T_F16;
	case IR_DTYPE_I8: return NPU_T_I8;
	case IR_DTYPE_I16: return NPU_T_I16;
	case IR_DTYPE_I32: return NPU_T_I32;
	case IR_DTYPE_U8: return NPU_T_U8;
	case IR_DTYPE_I64: return NPU_T_I64;
	default: return -1;
	}
}

static bool is_int(ir_dtype t) { return t == IR_DTYPE_I8 || t == IR_DTYPE_I16 || t == IR_DTYPE_U8; }
static bool is_float(ir_dtype t) { return t == IR_DTYPE_F32 || t == IR_DTYPE_F16; }

static void qrange(ir_dtype t, int32_t *lo, int32_t *hi)
{
	*lo = t == IR_DTYPE_I8 ? INT8_MIN : t == IR_DTYPE_I16 ? INT16_MIN : 0;
	*hi = t == IR_DTYPE_I8 ? INT8_MAX : t == IR_DTYPE_I16 ? INT16_MAX : UINT8_MAX;
}

static int32_t fbits(float f)
{
	int32_t v;
	memcpy(&v, &f, sizeof v);
	return v;
}

/* ---------------------------------------------------------------- multipliers */

/* m ~ mult * 2^-shift with mult < 2^bits as large as possible. */
static int fixed_mult(double m, int bits, int32_t *mult, int *shift)
{
	if (!(m > 0) || !isfinite(m) || m >= ldexp(1, bits))
		return -1;
	int s = 0;
	while (s < 62 && llround(ldexp(m, s + 1)) < ((int64_t)1 << bits))
		s++;
	int64_t q = llround(ldexp(m, s));
	if (q >= ((int64_t)1 << bits)) {	/* rounding carried over */
		s--;
		q = llround(ldexp(m, s));
	}
	*mult = (int32_t)q;
	*shift = s;
	return 0;
}

int ir_quant_multiplier(double m, int32_t *mult, int *shift)
{
	if (m > 0 && m < ldexp(1, -32)) {
		*mult = 0;
		*shift = 0;
		return 0;
	}
	return fixed_mult(m, 31, mult, shift);
}

/* ---------------------------------------------------------------- tables */

static int add_weight_bytes(lw *c, const void *data, size_t n)
{
	ir_lowered *l = c->l;
	size_t off = (l->m.weight_size + 15) & ~(size_t)15;
	if (off > INT32_MAX - 16 || n > INT32_MAX - 16 - off)
		return unsupported(c, "the weights exceed the runtime's 2 GiB");
	uint8_t *w = grow(c, l->weights, &c->cap_w, off + n + 16, 1);
	if (!w)
		return -1;
	l->weights = w;
	memset(w + l->m.weight_size, 0, off - l->m.weight_size);
	if (n)
		memcpy(w + off, data, n);
	l->m.weight_size = (uint32_t)(off + n);
	return (int)off;	/* callers keep it as uint32 */
}

static int add_tensor(lw *c, uint32_t mem, uint32_t offset, int ir)
{
	ir_lowered *l = c->l;
	size_t n = l->m.n_tensors;
	npu_tensor *t = grow(c, l->tensors, &c->cap_t, n + 1, sizeof *t);
	if (!t)
		return -1;
	l->tensors = t;
	int *of = realloc(l->tensor_of, (n + 1) * sizeof *of);
	if (!of)
		return c->oom = true, -1;
	l->tensor_of = of;
	t[n] = (npu_tensor){mem, offset};
	of[n] = ir;
	l->m.n_tensors++;
	return (int)n;
}

/* A derived constant. */
static int add_const(lw *c, const void *data, size_t n)
{
	if (c->oom)
		return -1;
	int off = add_weight_bytes(c, data, n);
	return off < 0 ? -1 : add_tensor(c, NPU_MEM_WEIGHT, (uint32_t)off, -1);
}

static int find_io(const ir_graph *g, int t, bool out)
{
	int n = out ? ir_graph_output_count(g) : ir_graph_input_count(g);
	for (int i = 0; i < n; i++)
		if ((out ? ir_graph_output(g, i) : ir_graph_input(g, i)) == t)
			return i;
	return -1;
}

/* The runtime tensor of IR tensor t (-1: none), made on first use. */
static int rt(lw *c, int t)
{
	if (t < 0 || c->oom)
		return -1;
	ir_lowered *l = c->l;
	if (l->rt_of[t] >= 0)
		return l->rt_of[t];
	const ir_tensor *x = ir_graph_tensor(c->g, t);
	int r, io;
	if (x->kind == IR_KIND_CONST) {
		int off = add_weight_bytes(c, x->data, x->nbytes);
		r = off < 0 ? -1 : add_tensor(c, NPU_MEM_WEIGHT, (uint32_t)off, t);
	} else if ((io = find_io(c->g, t, false)) >= 0) {
		r = add_tensor(c, NPU_MEM_INPUT, (uint32_t)io, t);
	} else if ((io = find_io(c->g, t, true)) >= 0) {
		r = add_tensor(c, NPU_MEM_OUTPUT, (uint32_t)io, t);
	} else {
		const ir_plan_buf *b = &l->plan.buf[t];
		if (b->offset < 0)
			return ir_fail(c->d, c->node, t, "tensor '%s' has no place in the arena", x->name);
		r = add_tensor(c, NPU_MEM_ARENA, (uint32_t)b->offset, t);
	}
	if (r >= 0)
		l->rt_of[t] = r;
	return r;
}

/* Same bytes: a view that needs no copy. */
static bool same_place(lw *c, int a, int b)
{
	int ra = rt(c, a), rb = rt(c, b);
	if (ra < 0 || rb < 0)
		return false;
	const npu_tensor *x = &c->l->tensors[ra], *y = &c->l->tensors[rb];
	return x->mem == y->mem && x->offset == y->offset;
}

static int add_op(lw *c, int kernel, const int *args, int nargs, const int32_t *par, int npar)
{
	ir_lowered *l = c->l;
	if (c->oom)
		return -1;
	for (int i = 0; i < nargs; i++)
		if (args[i] < -1)
			return -1;
	size_t n = l->m.n_ops;
	npu_op *o = grow(c, l->ops, &c->cap_op, n + 1, sizeof *o);
	if (!o)
		return -1;
	l->ops = o;
	int *on = realloc(l->op_node, (n + 1) * sizeof *on);
	if (!on)
		return c->oom = true, -1;
	l->op_node = on;
	int32_t *a = grow(c, l->args, &c->cap_arg, l->m.n_args + (size_t)nargs, sizeof *a);
	if (!a)
		return -1;
	l->args = a;
	int32_t *p = grow(c, l->params, &c->cap_par, l->m.n_params + (size_t)npar, sizeof *p);
	if (!p)
		return -1;
	l->params = p;
	o[n] = (npu_op){(uint32_t)kernel, (uint32_t)nargs, l->m.n_args, l->m.n_params};
	on[n] = c->node;
	memcpy(a + l->m.n_args, args, sizeof *args * (size_t)nargs);
	memcpy(p + l->m.n_params, par, sizeof *par * (size_t)npar);
	l->m.n_args += (uint32_t)nargs;
	l->m.n_params += (uint32_t)npar;
	l->m.n_ops++;
	l->kernels_used |= (uint64_t)1 << kernel;
	uint32_t s = npu_scratch_size((uint32_t)kernel, par);
	if (s > l->m.scratch_size)
		l->m.scratch_size = s;
	return 0;
}

/* ---------------------------------------------------------------- helpers */

static const ir_tensor *T(lw *c, int t) { return t >= 0 ? ir_graph_tensor(c->g, t) : NULL; }

static int in_id(lw *c, int i)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	return i < n->n_inputs ? n->inputs[i] : -1;
}

static int out_id(lw *c, int i)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	return i < n->n_outputs ? n->outputs[i] : -1;
}

/* Per-tensor scale and zero point of an integer activation. */
static int qparams(lw *c, int t, float *s, int32_t *z)
{
	const ir_tensor *x = T(c, t);
	if (!x->quant || x->quant->n != 1 || !(x->quant->scale[0] > 0))
		return unsupported(c, "tensor '%s' (%s) has no per-tensor scale", x->name, ir_dtype_name(x->dtype));
	*s = x->quant->scale[0];
	*z = x->quant->zero_point[0];
	return 0;
}

static int32_t qclamp(ir_dtype t, double v)
{
	int32_t lo, hi;
	qrange(t, &lo, &hi);
	return v <= lo ? lo : v >= hi ? hi : (int32_t)llround(v);
}

/* A fused clamp [lo, hi] (floats, may be infinite) in y's quantized domain. */
static void qclamp_range(ir_dtype t, float s, int32_t z, float lo, float hi, int32_t *qlo, int32_t *qhi)
{
	qrange(t, qlo, qhi);
	if (isfinite(lo))
		*qlo = qclamp(t, z + (double)lo / s);
	if (isfinite(hi))
		*qhi = qclamp(t, z + (double)hi / s);
}

static int npu_unary(int op)
{
	switch (op) {
	case IR_OP_RELU: return NPU_U_RELU;
	case IR_OP_RELU6: case IR_OP_CLIP: return NPU_U_CLIP;
	case IR_OP_LEAKY_RELU: return NPU_U_LEAKY_RELU;
	case IR_OP_ELU: return NPU_U_ELU;
	case IR_OP_SIGMOID: return NPU_U_SIGMOID;
	case IR_OP_TANH: return NPU_U_TANH;
	case IR_OP_HARD_SIGMOID: return NPU_U_HARD_SIGMOID;
	case IR_OP_HARD_SWISH: return NPU_U_HARD_SWISH;
	case IR_OP_SOFTPLUS: return NPU_U_SOFTPLUS;
	case IR_OP_SILU: return NPU_U_SILU;
	case IR_OP_EXP: return NPU_U_EXP;
	case IR_OP_LOG: return NPU_U_LOG;
	case IR_OP_SQRT: return NPU_U_SQRT;
	case IR_OP_RSQRT: return NPU_U_RSQRT;
	case IR_OP_RECIPROCAL: return NPU_U_RECIPROCAL;
	case IR_OP_NEG: return NPU_U_NEG;
	case IR_OP_ABS: return NPU_U_ABS;
	case IR_OP_GELU: return NPU_U_GELU;
	case IR_OP_FLOOR: return NPU_U_FLOOR;
	case IR_OP_CEIL: return NPU_U_CEIL;
	case IR_OP_ERF: return NPU_U_ERF;
	default: return -1;
	}
}

bool ir_lower_fusable_act(int op) { return op >= 0 && op < IR_OP_COUNT && npu_unary(op) >= 0; }

/* Contiguous strides of a shape (elements). */
static void strides_of(const ir_shape *s, int64_t *st)
{
	int64_t v = 1;
	for (int i = s->rank - 1; i >= 0; i--) {
		st[i] = v;
		v *= s->dim[i];
	}
}

/* A walk over `rank` dims (counts cnt, per-operand strides st[k]) folded
 * into NPU_WALK_DIMS: dims of count 1 dropped, neighbours merged where
 * every operand steps through them contiguously. -1 if it does not fit. */
static int walk(lw *c, int rank, const int64_t *cnt, int nops, int64_t st[][IR_MAX_RANK], int32_t *out_cnt,
		int32_t **out_st)
{
	int64_t k[IR_MAX_RANK], s[3][IR_MAX_RANK];
	int r = 0;
	for (int i = 0; i < rank; i++) {
		if (cnt[i] == 1)
			continue;
		if (r > 0) {
			bool merge = true;
			for (int o = 0; o < nops; o++)
				merge = merge && s[o][r - 1] == st[o][i] * cnt[i];
			if (merge) {
				k[r - 1] *= cnt[i];
				for (int o = 0; o < nops; o++)
					s[o][r - 1] = st[o][i];
				continue;
			}
		}
		k[r] = cnt[i];
		for (int o = 0; o < nops; o++)
			s[o][r] = st[o][i];
		r++;
	}
	if (r > NPU_WALK_DIMS)
		return unsupported(c, "a %d-dimensional strided access does not fit the runtime's %d", r,
				   NPU_WALK_DIMS);
	int pad = NPU_WALK_DIMS - r;
	for (int i = 0; i < NPU_WALK_DIMS; i++) {
		bool used = i >= pad;
		int64_t v = used ? k[i - pad] : 1;
		if (v > INT32_MAX)
			return unsupported(c, "a dimension of %lld elements is too large for the runtime", (long long)v);
		out_cnt[i] = (int32_t)v;
		for (int o = 0; o < nops; o++) {
			int64_t sv = used ? s[o][i - pad] : 0;
			if (sv > INT32_MAX)
				return unsupported(c, "a stride of %lld elements is too large for the runtime", (long long)sv);
			out_st[o][i] = (int32_t)sv;
		}
	}
	return 0;
}

/* Copy (same type, same scale) or requantize x's elements over a walk into y. */
static int move(lw *c, int x, int y, int rank, const int64_t *cnt, int64_t *ss, int64_t *ds, int64_t soff, int64_t doff)
{
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	int64_t st[2][IR_MAX_RANK];
	memcpy(st[0], ss, sizeof *ss * (size_t)rank);
	memcpy(st[1], ds, sizeof *ds * (size_t)rank);
	if (soff > INT32_MAX || doff > INT32_MAX)
		return unsupported(c, "an offset is too large for the runtime");
	int args[2] = {rt(c, x), rt(c, y)};
	bool requant = false;
	float sx = 1, sy = 1;
	int32_t zx = 0, zy = 0;
	if (is_int(tx->dtype) || is_int(ty->dtype)) {
		if (!is_int(tx->dtype) || !is_int(ty->dtype))
			return unsupported(c, "moves %s data into %s", ir_dtype_name(tx->dtype), ir_dtype_name(ty->dtype));
		if (qparams(c, x, &sx, &zx) || qparams(c, y, &sy, &zy))
			return -1;
		requant = tx->dtype != ty->dtype || sx != sy || zx != zy;
	} else if (tx->dtype != ty->dtype) {
		return unsupported(c, "moves %s data into %s", ir_dtype_name(tx->dtype), ir_dtype_name(ty->dtype));
	}
	if (requant) {
		int32_t p[NPU_RQ_COUNT] = {0}, *sp[2] = {p + NPU_RQ_SS, p + NPU_RQ_DS};
		if (walk(c, rank, cnt, 2, st, p + NPU_RQ_COUNTS, sp))
			return -1;
		int32_t mult;
		int shift;
		if (ir_quant_multiplier((double)sx / sy, &mult, &shift))
			return unsupported(c, "scale ratio %g cannot be requantized", (double)sx / sy);
		p[NPU_RQ_SOFF] = (int32_t)soff, p[NPU_RQ_DOFF] = (int32_t)doff;
		p[NPU_RQ_XT] = npu_type(tx->dtype), p[NPU_RQ_YT] = npu_type(ty->dtype);
		p[NPU_RQ_ZX] = zx, p[NPU_RQ_ZY] = zy, p[NPU_RQ_MULT] = mult, p[NPU_RQ_SHIFT] = shift;
		qrange(ty->dtype, &p[NPU_RQ_LO], &p[NPU_RQ_HI]);
		return add_op(c, NPU_K_REQUANT, args, 2, p, NPU_RQ_COUNT);
	}
	int32_t p[NPU_CP_COUNT] = {0}, *sp[2] = {p + NPU_CP_SS, p + NPU_CP_DS};
	if (walk(c, rank, cnt, 2, st, p + NPU_CP_COUNTS, sp))
		return -1;
	p[NPU_CP_ELEM] = (int32_t)ir_dtype_size(tx->dtype);
	p[NPU_CP_SOFF] = (int32_t)soff, p[NPU_CP_DOFF] = (int32_t)doff;
	return add_op(c, NPU_K_COPY, args, 2, p, NPU_CP_COUNT);
}

/* All of x into y, densely. */
static int move_all(lw *c, int x, int y)
{
	int64_t n = ir_shape_numel(&T(c, x)->shape), one = 1;
	return move(c, x, y, 1, &n, &one, &one, 0, 0);
}

/* ---------------------------------------------------------------- convolution and fully connected */

static int float_const_as(lw *c, int t, ir_dtype dt);

/* 3-D convolution or transposed convolution in float (CONV3_F), weights
 * (and bias) in the activation type. */
static int lower_conv3(lw *c, bool tr)
{
	int x = in_id(c, 0), w = in_id(c, 1), b = in_id(c, 2), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *tw = T(c, w), *ty = T(c, y), *tb = T(c, b);
	if (!is_float(tx->dtype) || ty->dtype != tx->dtype || !is_float(tw->dtype) ||
	    (tw->kind != IR_KIND_CONST && tw->dtype != tx->dtype) ||
	    (tb && (!is_float(tb->dtype) || (tb->kind != IR_KIND_CONST && tb->dtype != tx->dtype))))
		return unsupported(c, "3-D convolutions run in the runtime in float with float weights only");
	if (tx->layout == IR_LAYOUT_NHWC || tx->layout == IR_LAYOUT_NLC)
		return unsupported(c, "the runtime's convolutions are channel-first");
	const int64_t *st, *pd, *dl;
	int nst = ir_node_ints(c->g, c->node, "strides", &st), npd = ir_node_ints(c->g, c->node, "pads", &pd);
	int ndl = ir_node_ints(c->g, c->node, "dilations", &dl);
	int32_t p[NPU_C3_COUNT] = {0};
	int64_t v[] = {tx->shape.dim[0], tx->shape.dim[1], tx->shape.dim[2], tx->shape.dim[3], tx->shape.dim[4],
		       ty->shape.dim[1], ty->shape.dim[2], ty->shape.dim[3], ty->shape.dim[4],
		       tw->shape.dim[2], tw->shape.dim[3], tw->shape.dim[4]};
	for (int i = 0; i < 12; i++) {
		if (v[i] > INT32_MAX)
			return unsupported(c, "a dimension is too large for the runtime");
		p[i] = (int32_t)v[i];	/* N C D H W OC OD OH OW KD KH KW: the NPU_C3_* order */
	}
	for (int a = 0; a < 3; a++) {
		p[NPU_C3_SD + a] = nst == 3 ? (int32_t)st[a] : 1;
		p[NPU_C3_PD + a] = npd == 6 ? (int32_t)pd[a] : 0;
		p[NPU_C3_DD + a] = ndl == 3 ? (int32_t)dl[a] : 1;
	}
	p[NPU_C3_G] = (int32_t)ir_node_int(c->g, c->node, "group", 1), p[NPU_C3_TR] = tr;
	p[NPU_C3_XT] = npu_type(tx->dtype), p[NPU_C3_WT] = npu_type(tw->dtype), p[NPU_C3_YT] = npu_type(ty->dtype);
	ir_act act;
	if (ir_act_from_node(c->g, c->node, &act, c->d))
		return unsupported(c, "%s", c->d->msg);
	p[NPU_C3_LO] = fbits(act.lo), p[NPU_C3_HI] = fbits(act.hi), p[NPU_C3_ACT] = -1;
	if (act.op >= 0) {
		if ((p[NPU_C3_ACT] = npu_unary(act.op)) < 0)
			return unsupported(c, "fused activation '%s' is not in the runtime", ir_op_name(act.op));
		p[NPU_C3_P0] = fbits(act.p[0]), p[NPU_C3_P1] = fbits(act.p[1]);
	}
	int args[4] = {rt(c, x), rt(c, w), tb ? float_const_as(c, b, tx->dtype) : -1, rt(c, y)};
	return add_op(c, NPU_K_CONV3_F, args, 4, p, NPU_C3_COUNT);
}

/* The tail of an integer (transposed) convolution: per-channel
 * requantization multipliers, shifts and weight zero points as constants,
 * the clamp in code space, the op. wrt: the runtime tensor of the weights
 * when they were re-laid out (channel-last kernels), else -1. */
static int conv_q_op(lw *c, int kernel, int x, int w, int wrt, int b, int y, const ir_quant *q, int64_t OC, float sx,
		     float sy, int32_t zx, int32_t zy, float lo, float hi, int32_t *p)
{
	const ir_tensor *ty = T(c, y);
	int32_t *mult = malloc(sizeof *mult * (size_t)OC), *shift = malloc(sizeof *shift * (size_t)OC);
	int32_t *wz = malloc(sizeof *wz * (size_t)OC);
	bool any_wz = false;
	int rc = 0;
	if (!mult || !shift || !wz)
		c->oom = true, rc = -1;
	for (int64_t o = 0; !rc && o < OC; o++) {
		int k = q->n == 1 ? 0 : (int)o, sh;
		if (ir_quant_multiplier((double)sx * q->scale[k] / sy, &mult[o], &sh))
			rc = unsupported(c, "channel %lld: scale ratio %g cannot be requantized", (long long)o,
					 (double)sx * q->scale[k] / sy);
		shift[o] = sh;
		wz[o] = q->zero_point[k];
		any_wz = any_wz || wz[o];
	}
	/* an int64 bias (16-bit activations and weights): NPU_CV_ACT says so;
	 * |bias| <= 2^62 keeps the int64 accumulator exact (npu_rt.h) */
	const ir_tensor *tb = b >= 0 ? T(c, b) : NULL;
	if (!rc && tb && tb->dtype == IR_DTYPE_I64) {
		p[NPU_CV_ACT] = NPU_T_I64;
		for (int64_t o = 0; !rc && o < ir_shape_numel(&tb->shape); o++) {
			int64_t v = ((const int64_t *)tb->data)[o];
			if (v > ((int64_t)1 << 62) || v < -((int64_t)1 << 62))
				rc = unsupported(c, "bias '%s' element %lld is beyond 2^62", tb->name, (long long)o);
		}
	}
	/* int8 weights in the layout the GEMM micro-kernel streams, packed once
	 * here (CONV_Q); the channel-last kernels read wrt, re-laid out */
	size_t pk = kernel == NPU_K_CONV_Q && !rc ? npu_conv_q_pack(p, NULL, NULL) : 0;
	int args[7] = {rt(c, x), pk ? -1 : wrt >= 0 ? wrt : rt(c, w), rt(c, b), -1, -1, -1, rt(c, y)};
	if (pk) {
		int8_t *wp = malloc(pk);
		if (!wp)
			c->oom = true, rc = -1;
		else {
			npu_conv_q_pack(p, T(c, w)->data, wp);
			args[1] = add_const(c, wp, pk);
			free(wp);
		}
	}
	if (!rc) {
		args[3] = add_const(c, mult, sizeof *mult * (size_t)OC);
		args[4] = add_const(c, shift, sizeof *shift * (size_t)OC);
		if (any_wz)
			args[5] = add_const(c, wz, sizeof *wz * (size_t)OC);
	}
	free(mult), free(shift), free(wz);
	if (rc)
		return -1;
	p[NPU_CV_ZX] = zx, p[NPU_CV_ZY] = zy;
	qclamp_range(ty->dtype, sy, zy, lo, hi, &p[NPU_CV_LO], &p[NPU_CV_HI]);
	return add_op(c, kernel, args, 7, p, NPU_CV_COUNT);
}

/* Constant weights [O, I, K...] as [O, K..., I] (OHWI: the channel-last
 * kernels'), as a new runtime constant; -1 on failure. */
static int weights_ohwi(lw *c, const ir_tensor *tw)
{
	int r = tw->shape.rank;
	int64_t O = tw->shape.dim[0], I = tw->shape.dim[1], K = 1;
	for (int i = 2; i < r; i++)
		K *= tw->shape.dim[i];
	size_t es = ir_dtype_size(tw->dtype), n = tw->nbytes;
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf || !tw->data || (size_t)(O * I * K) * es != n) {
		free(buf);
		return unsupported(c, "weights '%s' cannot be re-laid out", tw->name);
	}
	for (int64_t o = 0; o < O; o++)
		for (int64_t i = 0; i < I; i++)
			for (int64_t k = 0; k < K; k++)
				memcpy(buf + (size_t)((o * K + k) * I + i) * es,
				       (const uint8_t *)tw->data + (size_t)((o * I + i) * K + k) * es, es);
	int id = add_const(c, buf, n);
	free(buf);
	return id;
}

/* CONV_F's constant float32 weights w packed once here (npu_conv_f_pack,
 * NPU_CV_WPACK) into the layout its fast paths stream, as a new runtime
 * constant; -2 when these parameters take w unpacked, -1 on failure. */
static int conv_f_packed(lw *c, int32_t *p, const ir_tensor *tw)
{
	size_t n = tw->dtype == IR_DTYPE_F32 && tw->kind == IR_KIND_CONST && tw->data ? npu_conv_f_pack(p, NULL, NULL) : 0;
	if (!n)
		return -2;
	float *wp = malloc(n);
	if (!wp)
		return c->oom = true, -1;
	npu_conv_f_pack(p, tw->data, wp);
	int id = add_const(c, wp, n);
	free(wp);
	p[NPU_CV_WPACK] = 1;
	return id;
}

static int lower_conv(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	int x = in_id(c, 0), w = in_id(c, 1), b = in_id(c, 2), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *tw = T(c, w), *ty = T(c, y), *tb = T(c, b);
	int32_t p[NPU_CV_COUNT] = {0};
	int64_t N, C, H = 1, W, OC, OH = 1, OW, KH = 1, KW, g = 1;
	bool cl = n->op == IR_OP_CONV && (tx->layout == IR_LAYOUT_NHWC || tx->layout == IR_LAYOUT_NLC);
	int wrt = -1;
	if (cl && tx->shape.rank != 3 && tx->shape.rank != 4)
		return unsupported(c, "the runtime's channel-last convolutions are 1-D or 2-D");
	if (n->op == IR_OP_FULLY_CONNECTED) {
		C = tw->shape.dim[1], OC = tw->shape.dim[0];
		N = ir_shape_numel(&tx->shape) / C;
		W = OW = KW = 1;
		p[NPU_CV_SH] = p[NPU_CV_SW] = p[NPU_CV_DH] = p[NPU_CV_DW] = 1;
	} else {
		int r = tx->shape.rank;
		if (r == 5)
			return lower_conv3(c, false);
		if (r != 3 && r != 4)
			return unsupported(c, "the runtime has 1-D to 3-D convolutions only");
		const int64_t *st, *pd, *dl;
		int nst = ir_node_ints(c->g, c->node, "strides", &st), npd = ir_node_ints(c->g, c->node, "pads", &pd);
		int ndl = ir_node_ints(c->g, c->node, "dilations", &dl), nsp = r - 2;
		/* channel-last: [N, (H,) W, C]; weights stay [OC, C/G, (KH,) KW] in the IR */
		int s0 = cl ? 1 : 2, ca = cl ? r - 1 : 1;
		N = tx->shape.dim[0], C = tx->shape.dim[ca], W = tx->shape.dim[s0 + r - 3];
		OC = ty->shape.dim[ca], OW = ty->shape.dim[s0 + r - 3], KW = tw->shape.dim[r - 1];
		if (r == 4)
			H = tx->shape.dim[s0], OH = ty->shape.dim[s0], KH = tw->shape.dim[2];
		g = ir_node_int(c->g, c->node, "group", 1);
		p[NPU_CV_SH] = nsp == 2 && nst == 2 ? (int32_t)st[0] : 1;
		p[NPU_CV_SW] = nst == nsp ? (int32_t)st[nsp - 1] : 1;
		p[NPU_CV_DH] = nsp == 2 && ndl == 2 ? (int32_t)dl[0] : 1;
		p[NPU_CV_DW] = ndl == nsp ? (int32_t)dl[nsp - 1] : 1;
		p[NPU_CV_PT] = nsp == 2 && npd == 4 ? (int32_t)pd[0] : 0;
		p[NPU_CV_PL] = npd == 2 * nsp ? (int32_t)pd[nsp - 1] : 0;
	}
	int64_t dims[] = {N, C, H, W, OC, OH, OW, KH, KW, g};
	for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
		if (dims[i] > INT32_MAX)
			return unsupported(c, "a dimension is too large for the runtime");
	p[NPU_CV_N] = (int32_t)N, p[NPU_CV_C] = (int32_t)C, p[NPU_CV_H] = (int32_t)H, p[NPU_CV_W] = (int32_t)W;
	p[NPU_CV_OC] = (int32_t)OC, p[NPU_CV_OH] = (int32_t)OH, p[NPU_CV_OW] = (int32_t)OW;
	p[NPU_CV_KH] = (int32_t)KH, p[NPU_CV_KW] = (int32_t)KW, p[NPU_CV_G] = (int32_t)g;
	p[NPU_CV_XT] = npu_type(tx->dtype), p[NPU_CV_WT] = npu_type(tw->dtype), p[NPU_CV_YT] = npu_type(ty->dtype);
	p[NPU_CV_ACT] = -1;
	ir_act act;
	if (ir_act_from_node(c->g, c->node, &act, c->d))
		return unsupported(c, "%s", c->d->msg);
	/* float weights (and bias) of the activation type may be computed */
	if (tw->kind != IR_KIND_CONST && (tw->dtype != tx->dtype || !is_float(tx->dtype)))
		return unsupported(c, "the runtime needs constant weights");
	if (cl && (tw->kind != IR_KIND_CONST || (wrt = weights_ohwi(c, tw)) < 0))
		return tw->kind != IR_KIND_CONST ? unsupported(c, "channel-last convolutions need constant weights") : -1;

	if (is_int(tx->dtype)) {
		float sx, sy;
		int32_t zx, zy;
		if (!is_int(ty->dtype) || (tw->dtype != IR_DTYPE_I8 && tw->dtype != IR_DTYPE_I16) || !tw->quant)
			return unsupported(c, "integer convolution needs integer output and weights with scales");
		if (act.op >= 0)
			return unsupported(c, "fused activation '%s' on an integer convolution", ir_op_name(act.op));
		if (tb && ((tb->dtype != IR_DTYPE_I32 && tb->dtype != IR_DTYPE_I64) || tb->kind != IR_KIND_CONST))
			return unsupported(c, "integer convolution needs a constant int32 or int64 bias");
		if (qparams(c, x, &sx, &zx) || qparams(c, y, &sy, &zy))
			return -1;
		const ir_quant *q = tw->quant;
		if (q->n != 1 && (q->n != OC || q->axis != 0))
			return unsupported(c, "weights '%s' need one scale or one per output channel", tw->name);
		/* scratch up to half the activations' arena (within the bound),
		 * unless that leaves only the generic path: then the bound */
		int64_t soft = c->l->plan.arena / 2;
		if (c->smax && soft > c->smax)
			soft = c->smax;
		p[NPU_CV_SMAX] = soft > 0 && soft < INT32_MAX ? (int32_t)soft : (int32_t)c->smax;
		if (p[NPU_CV_SMAX] != (int32_t)c->smax && npu_scratch_size(NPU_K_CONV_Q, p) == 0) {
			int32_t s0 = p[NPU_CV_SMAX];
			p[NPU_CV_SMAX] = (int32_t)c->smax;
			if (npu_scratch_size(NPU_K_CONV_Q, p) == 0)
				p[NPU_CV_SMAX] = s0;	/* generic either way: the same */
		}
		return conv_q_op(c, cl ? NPU_K_CONV_NHWC_Q : NPU_K_CONV_Q, x, w, wrt, b, y, q, OC, sx, sy, zx, zy, act.lo,
				 act.hi, p);
	}

	if (!is_float(tx->dtype) || ty->dtype != tx->dtype)
		return unsupported(c, "convolution from %s to %s", ir_dtype_name(tx->dtype), ir_dtype_name(ty->dtype));
	p[NPU_CV_SMAX] = (int32_t)c->smax;	/* the float panels keep to it (cf_panels) */
	int args[5] = {rt(c, x), cl ? wrt : -1, -1, -1, rt(c, y)};
	if (!cl && (args[1] = conv_f_packed(c, p, tw)) == -2)
		args[1] = rt(c, w);
	if (args[1] < 0)
		return -1;
	if (tw->dtype == IR_DTYPE_I8) {
		const ir_quant *q = tw->quant;
		if (!q || (q->n != 1 && (q->n != OC || q->axis != 0)))
			return unsupported(c, "compressed weights '%s' need one scale per output channel", tw->name);
		float *s = malloc(sizeof *s * (size_t)OC);
		if (!s)
			return c->oom = true, -1;
		for (int64_t o = 0; o < OC; o++)
			s[o] = q->scale[q->n == 1 ? 0 : o];
		args[3] = add_const(c, s, sizeof *s * (size_t)OC);
		free(s);
	} else if (!is_float(tw->dtype)) {
		return unsupported(c, "weights '%s' are %s", tw->name, ir_dtype_name(tw->dtype));
	}
	if (tb) {
		if ((tb->kind != IR_KIND_CONST && tb->dtype != tx->dtype) || !is_float(tb->dtype))
			return unsupported(c, "the bias must be a float constant");
		if (tb->dtype == tx->dtype) {
			args[2] = rt(c, b);
		} else {	/* in the activation type */
			int64_t nb = ir_shape_numel(&tb->shape);
			uint16_t *h = malloc(sizeof(float) * (size_t)nb);
			if (!h)
				return c->oom = true, -1;
			for (int64_t i = 0; i < nb; i++) {
				float v = (float)ir_elem_get(tb->data, tb->dtype, i);
				if (tx->dtype == IR_DTYPE_F16)
					h[i] = npu_f32_to_f16(v);
				else
					memcpy((float *)(void *)h + i, &v, sizeof v);
			}
			args[2] = add_const(c, h, (size_t)nb * ir_dtype_size(tx->dtype));
			free(h);
		}
	}
	p[NPU_CV_LO] = fbits(act.lo), p[NPU_CV_HI] = fbits(act.hi);
	if (act.op >= 0) {
		if ((p[NPU_CV_ACT] = npu_unary(act.op)) < 0)
			return unsupported(c, "fused activation '%s' is not in the runtime", ir_op_name(act.op));
		p[NPU_CV_P0] = fbits(act.p[0]), p[NPU_CV_P1] = fbits(act.p[1]);
	}
	return add_op(c, cl ? NPU_K_CONV_NHWC_F : NPU_K_CONV_F, args, 5, p, NPU_CV_COUNT);
}

/* A float op the runtime runs as a convolution with derived float32
 * weights w [OC, C] (1x1, or depthwise when dw) and bias b [OC]: gemm and
 * matmul with constant B, batch_norm. Owns w and b. */
static int float_as_conv(lw *c, int x, int y, float *w, float *b, int64_t N, int64_t C, int64_t HW, int64_t OC,
			 bool dw)
{
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	int rc = -1;
	if (!w || !b) {
		c->oom = true;
	} else if (!is_float(tx->dtype) || ty->dtype != tx->dtype) {
		unsupported(c, "%s on %s is not in the runtime", ir_op_name(ir_graph_node(c->g, c->node)->op),
			    ir_dtype_name(tx->dtype));
	} else if (N > INT32_MAX || C > INT32_MAX || HW > INT32_MAX || OC > INT32_MAX) {
		unsupported(c, "a dimension is too large for the runtime");
	} else {
		uint16_t *h = NULL;
		if (tx->dtype == IR_DTYPE_F16 && (h = malloc(sizeof *h * (size_t)(OC > 0 ? OC : 1))))
			for (int64_t o = 0; o < OC; o++)
				h[o] = npu_f32_to_f16(b[o]);
		int32_t p[NPU_CV_COUNT] = {0};
		p[NPU_CV_N] = (int32_t)N, p[NPU_CV_C] = (int32_t)C, p[NPU_CV_H] = 1, p[NPU_CV_W] = (int32_t)HW;
		p[NPU_CV_OC] = (int32_t)OC, p[NPU_CV_OH] = 1, p[NPU_CV_OW] = (int32_t)HW;
		p[NPU_CV_KH] = p[NPU_CV_KW] = p[NPU_CV_SH] = p[NPU_CV_SW] = p[NPU_CV_DH] = p[NPU_CV_DW] = 1;
		p[NPU_CV_G] = dw ? (int32_t)C : 1;
		p[NPU_CV_XT] = p[NPU_CV_YT] = npu_type(tx->dtype), p[NPU_CV_WT] = NPU_T_F32;
		p[NPU_CV_LO] = fbits(-INFINITY), p[NPU_CV_HI] = fbits(INFINITY), p[NPU_CV_ACT] = -1;
		/* float32 weights packed for CONV_F's fast paths (conv_f_packed) */
		size_t pk = dw ? 0 : npu_conv_f_pack(p, NULL, NULL);
		float *wp = pk ? malloc(pk) : NULL;
		if (wp) {
			npu_conv_f_pack(p, w, wp);
			p[NPU_CV_WPACK] = 1;
		} else if (pk) {
			c->oom = true;
		}
		int args[5] = {rt(c, x), wp ? add_const(c, wp, pk) : add_const(c, w, sizeof *w * (size_t)(dw ? OC : OC * C)),
			       -1, -1, rt(c, y)};
		free(wp);
		args[2] = tx->dtype == IR_DTYPE_F16 ? (h ? add_const(c, h, sizeof *h * (size_t)OC) : -1)
						    : add_const(c, b, sizeof *b * (size_t)OC);
		free(h);
		ir_act act;
		if (ir_act_from_node(c->g, c->node, &act, c->d) == 0) {
			p[NPU_CV_LO] = fbits(act.lo), p[NPU_CV_HI] = fbits(act.hi);
			if (act.op >= 0)
				p[NPU_CV_ACT] = npu_unary(act.op), p[NPU_CV_P0] = fbits(act.p[0]), p[NPU_CV_P1] = fbits(act.p[1]);
		}
		/* a channel-last depthwise 1x1 (batch_norm): the same sums on NHWC data */
		bool cl = dw && (tx->layout == IR_LAYOUT_NHWC || tx->layout == IR_LAYOUT_NLC);
		rc = p[NPU_CV_ACT] == -1 && act.op >= 0 ? unsupported(c, "its fused activation is not in the runtime")
							 : add_op(c, cl ? NPU_K_CONV_NHWC_F : NPU_K_CONV_F, args, 5, p, NPU_CV_COUNT);
	}
	free(w);
	free(b);
	return rc;
}

/* matmul (numpy semantics: 1-D operands, broadcast batch dims) and gemm
 * (trans_a, trans_b, alpha, beta, C broadcast to [M, N]) of any operands:
 * MATMUL_F, or MATMUL_Q on integer operands (matmul only). */
static int lower_matmul(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	bool gemm = n->op == IR_OP_GEMM;
	int a = in_id(c, 0), b = in_id(c, 1), cc = gemm ? in_id(c, 2) : -1, y = out_id(c, 0);
	const ir_tensor *ta = T(c, a), *tb = T(c, b), *tc = T(c, cc), *ty = T(c, y);
	int ra = ta->shape.rank, rb = tb->shape.rank;
	bool tra = gemm && ir_node_int(c->g, c->node, "trans_a", 0), trb = gemm && ir_node_int(c->g, c->node, "trans_b", 0);
	int32_t p[NPU_MM_COUNT] = {0};
	if (ra < 1 || rb < 1)
		return unsupported(c, "%s of scalars", ir_op_name(n->op));
	/* the matrices: the last two dims (a vector is one row of A / one column of B) */
	int64_t ar = ra > 1 ? ta->shape.dim[ra - 2] : 1, ac = ta->shape.dim[ra - 1];
	int64_t br = rb > 1 ? tb->shape.dim[rb - 2] : tb->shape.dim[0], bc = rb > 1 ? tb->shape.dim[rb - 1] : 1;
	int64_t M = tra ? ac : ar, K = tra ? ar : ac, N = trb ? br : bc;
	int64_t am = tra ? 1 : ac, ak = tra ? ac : 1, bk = trb ? 1 : bc, bn = trb ? bc : 1;
	/* batch dims, right-aligned against the output's */
	int na = ra > 2 ? ra - 2 : 0, nbb = rb > 2 ? rb - 2 : 0, nb = na > nbb ? na : nbb;
	int64_t sa[IR_MAX_RANK], sb[IR_MAX_RANK], cnt[IR_MAX_RANK], st = ar * ac;
	for (int i = nb - 1; i >= 0; i--) {
		int j = i - (nb - na);
		int64_t d = j >= 0 ? ta->shape.dim[j] : 1;
		sa[i] = d == 1 ? 0 : st;
		st *= d;
		cnt[i] = d;
	}
	st = br * bc;
	for (int i = nb - 1; i >= 0; i--) {
		int j = i - (nb - nbb);
		int64_t d = j >= 0 ? tb->shape.dim[j] : 1;
		sb[i] = d == 1 ? 0 : st;
		st *= d;
		cnt[i] = d > cnt[i] ? d : cnt[i];
	}
	/* drop dims of count 1, merge neighbours both operands step through
	 * contiguously, then fit NPU_MM_BDIMS */
	int64_t k4[IR_MAX_RANK], a4[IR_MAX_RANK], b4[IR_MAX_RANK];
	int r = 0;
	for (int i = 0; i < nb; i++) {
		if (cnt[i] == 1)
			continue;
		if (r > 0 && a4[r - 1] == sa[i] * cnt[i] && b4[r - 1] == sb[i] * cnt[i]) {
			k4[r - 1] *= cnt[i], a4[r - 1] = sa[i], b4[r - 1] = sb[i];
			continue;
		}
		k4[r] = cnt[i], a4[r] = sa[i], b4[r] = sb[i], r++;
	}
	if (r > NPU_MM_BDIMS)
		return unsupported(c, "%s with %d batch dimensions is not in the runtime", ir_op_name(n->op), r);
	int64_t big[] = {M, N, K, am, ak, bk, bn, ir_shape_numel(&ta->shape), ir_shape_numel(&tb->shape),
			 ir_shape_numel(&ty->shape)};
	for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
		if (big[i] > INT32_MAX)
			return unsupported(c, "a dimension is too large for the runtime");
	for (int i = 0; i < NPU_MM_BDIMS; i++) {
		int j = i - (NPU_MM_BDIMS - r);
		p[NPU_MM_BCOUNTS + i] = j >= 0 ? (int32_t)k4[j] : 1;
		p[NPU_MM_BSA + i] = j >= 0 ? (int32_t)a4[j] : 0;
		p[NPU_MM_BSB + i] = j >= 0 ? (int32_t)b4[j] : 0;
	}
	p[NPU_MM_M] = (int32_t)M, p[NPU_MM_N] = (int32_t)N, p[NPU_MM_K] = (int32_t)K;
	p[NPU_MM_AM] = (int32_t)am, p[NPU_MM_AK] = (int32_t)ak, p[NPU_MM_BK] = (int32_t)bk, p[NPU_MM_BN] = (int32_t)bn;
	p[NPU_MM_AT] = npu_type(ta->dtype), p[NPU_MM_BT] = npu_type(tb->dtype), p[NPU_MM_YT] = npu_type(ty->dtype);
	p[NPU_MM_CT] = NPU_T_F32;
	ir_act act;
	if (ir_act_from_node(c->g, c->node, &act, c->d))
		return unsupported(c, "%s", c->d->msg);
	if (act.op >= 0)
		return unsupported(c, "fused activation '%s' on %s is not in the runtime", ir_op_name(act.op),
				   ir_op_name(n->op));
	int args[4] = {rt(c, a), rt(c, b), -1, rt(c, y)};
	if (is_int(ta->dtype) || is_int(tb->dtype) || is_int(ty->dtype)) {
		float fa, fb, fy;
		int32_t za, zb, zy, mult;
		int shift;
		if (gemm || !is_int(ta->dtype) || !is_int(tb->dtype) || !is_int(ty->dtype))
			return unsupported(c, "integer %s needs integer operands and output (matmul only)", ir_op_name(n->op));
		if (qparams(c, a, &fa, &za) || qparams(c, b, &fb, &zb) || qparams(c, y, &fy, &zy))
			return -1;
		if (ir_quant_multiplier((double)fa * fb / fy, &mult, &shift))
			return unsupported(c, "scale ratio %g cannot be requantized", (double)fa * fb / fy);
		p[NPU_MM_ZA] = za, p[NPU_MM_ZB] = zb, p[NPU_MM_ZY] = zy, p[NPU_MM_MULT] = mult, p[NPU_MM_SHIFT] = shift;
		qclamp_range(ty->dtype, fy, zy, act.lo, act.hi, &p[NPU_MM_LO], &p[NPU_MM_HI]);
		return add_op(c, NPU_K_MATMUL_Q, args, 4, p, NPU_MM_COUNT);
	}
	if (!is_float(ta->dtype) || !is_float(tb->dtype) || ty->dtype != ta->dtype)
		return unsupported(c, "%s from %s and %s to %s is not in the runtime", ir_op_name(n->op),
				   ir_dtype_name(ta->dtype), ir_dtype_name(tb->dtype), ir_dtype_name(ty->dtype));
	p[NPU_MM_ALPHA] = fbits(gemm ? (float)ir_node_float(c->g, c->node, "alpha", 1) : 1.0f);
	p[NPU_MM_BETA] = fbits(gemm ? (float)ir_node_float(c->g, c->node, "beta", 1) : 0.0f);
	p[NPU_MM_LO] = fbits(act.lo), p[NPU_MM_HI] = fbits(act.hi);
	if (tc) {	/* C broadcast to [M, N] (unidirectionally) */
		int rcn = tc->shape.rank;
		if (!is_float(tc->dtype) || rcn > 2)
			return unsupported(c, "gemm's C must be a float of rank 0 to 2");
		int64_t cr = rcn == 2 ? tc->shape.dim[0] : 1, ccn = rcn >= 1 ? tc->shape.dim[rcn - 1] : 1;
		p[NPU_MM_CM] = cr == 1 ? 0 : (int32_t)ccn, p[NPU_MM_CN] = ccn == 1 ? 0 : 1;
		p[NPU_MM_CT] = npu_type(tc->dtype);
		args[2] = rt(c, cc);
	}
	return add_op(c, NPU_K_MATMUL_F, args, 4, p, NPU_MM_COUNT);
}

/* gemm (A [M, K] without trans_a, constant B, C constant and broadcast over
 * rows) and matmul with a constant 2-D B: one row per output row; the rest
 * through lower_matmul. */
static int lower_gemm(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	bool gemm = n->op == IR_OP_GEMM;
	int a = in_id(c, 0), bb = in_id(c, 1), cc = gemm ? in_id(c, 2) : -1, y = out_id(c, 0);
	const ir_tensor *ta = T(c, a), *tb = T(c, bb), *tc = T(c, cc);
	bool tr = gemm && ir_node_int(c->g, c->node, "trans_b", 0);
	double alpha = gemm ? ir_node_float(c->g, c->node, "alpha", 1) : 1, beta = ir_node_float(c->g, c->node, "beta", 1);
	if (tb->kind != IR_KIND_CONST || tb->shape.rank != 2 || (gemm && ir_node_int(c->g, c->node, "trans_a", 0)) ||
	    ta->shape.rank < 1 || !is_float(ta->dtype))
		return lower_matmul(c);
	int64_t K = tb->shape.dim[tr], N = tb->shape.dim[!tr], M = ir_shape_numel(&ta->shape) / (K ? K : 1);
	if (tc && (tc->kind != IR_KIND_CONST || (ir_shape_numel(&tc->shape) != N && ir_shape_numel(&tc->shape) != 1)))
		return lower_matmul(c);
	float *w = malloc(sizeof *w * (size_t)(N * K > 0 ? N * K : 1)), *b = calloc((size_t)(N > 0 ? N : 1), sizeof *b);
	for (int64_t k = 0; w && k < K; k++)
		for (int64_t j = 0; j < N; j++)
			w[j * K + k] = (float)(alpha * ir_elem_get(tb->data, tb->dtype, tr ? j * K + k : k * N + j));
	for (int64_t j = 0; b && tc && j < N; j++)
		b[j] = (float)(beta * ir_elem_get(tc->data, tc->dtype, ir_shape_numel(&tc->shape) == 1 ? 0 : j));
	/* rows are "batches" of a 1x1 convolution over C = K channels */
	return float_as_conv(c, a, y, w, b, M, K, 1, N, false);
}

static int lower_norm(lw *c);

/* batch_norm (inference): y = x * g/sqrt(v + eps) + (beta - m * g/sqrt(v + eps)),
 * a depthwise 1x1 convolution over the channel axis. */
static int lower_batch_norm(lw *c)
{
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *p[4];
	for (int i = 0; i < 4; i++)
		if (!(p[i] = T(c, in_id(c, i + 1))) || p[i]->kind != IR_KIND_CONST)
			return lower_norm(c);	/* computed parameters */
	bool cl = tx->layout == IR_LAYOUT_NHWC || tx->layout == IR_LAYOUT_NLC;
	if (tx->shape.rank < 2)
		return unsupported(c, "the runtime's batch_norm needs a channel axis");
	int64_t N = tx->shape.dim[0], C = tx->shape.dim[cl ? tx->shape.rank - 1 : 1];
	int64_t HW = ir_shape_numel(&tx->shape) / (N * C > 0 ? N * C : 1);
	double eps = ir_node_float(c->g, c->node, "epsilon", 1e-5);
	float *w = malloc(sizeof *w * (size_t)(C > 0 ? C : 1)), *b = malloc(sizeof *b * (size_t)(C > 0 ? C : 1));
	for (int64_t k = 0; w && b && k < C; k++) {
		double s = ir_elem_get(p[0]->data, p[0]->dtype, k) / sqrt(ir_elem_get(p[3]->data, p[3]->dtype, k) + eps);
		w[k] = (float)s;
		b[k] = (float)(ir_elem_get(p[1]->data, p[1]->dtype, k) - ir_elem_get(p[2]->data, p[2]->dtype, k) * s);
	}
	return float_as_conv(c, x, y, w, b, N, C, HW, C, true);
}

/* ---------------------------------------------------------------- elementwise */

/* Right-aligned broadcast strides of operand t against output shape o. */
static void bcast_strides(const ir_shape *o, const ir_shape *t, int64_t *st)
{
	int64_t s[IR_MAX_RANK];
	strides_of(t, s);
	for (int i = 0; i < o->rank; i++) {
		int j = i - (o->rank - t->rank);
		st[i] = j < 0 || t->dim[j] == 1 ? 0 : s[j];
	}
}

static int lower_binary(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	int a = in_id(c, 0), b = in_id(c, 1), y = out_id(c, 0);
	const ir_tensor *ta = T(c, a), *tb = T(c, b), *ty = T(c, y);
	int32_t p[NPU_EW_COUNT] = {0}, *sp[3] = {p + NPU_EW_SA, p + NPU_EW_SB, p + NPU_EW_SA};
	int64_t st[3][IR_MAX_RANK];
	bcast_strides(&ty->shape, &ta->shape, st[0]);
	bcast_strides(&ty->shape, &tb->shape, st[1]);
	strides_of(&ty->shape, st[2]);
	int32_t dummy[NPU_WALK_DIMS];
	sp[2] = dummy;
	if (walk(c, ty->shape.rank, ty->shape.dim, 3, st, p + NPU_EW_COUNTS, sp))
		return -1;
	static const int ops[][2] = {
		{IR_OP_ADD, NPU_BIN_ADD}, {IR_OP_SUB, NPU_BIN_SUB}, {IR_OP_MUL, NPU_BIN_MUL},
		{IR_OP_DIV, NPU_BIN_DIV}, {IR_OP_MAX, NPU_BIN_MAX}, {IR_OP_MIN, NPU_BIN_MIN},
		{IR_OP_POW, NPU_BIN_POW}, {IR_OP_PRELU, NPU_BIN_PRELU},
	};
	p[NPU_EW_OP] = -1;
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (ops[i][0] == n->op)
			p[NPU_EW_OP] = ops[i][1];
	p[NPU_EW_AT] = npu_type(ta->dtype), p[NPU_EW_BT] = npu_type(tb->dtype), p[NPU_EW_YT] = npu_type(ty->dtype);
	ir_act act;
	if (ir_act_from_node(c->g, c->node, &act, c->d))
		return unsupported(c, "%s", c->d->msg);
	p[NPU_EW_ACT] = -1;
	int args[3] = {rt(c, a), rt(c, b), rt(c, y)};
	if (is_int(ty->dtype)) {
		if (act.op >= 0)	/* npu-quant splits it off (a lut or a float island) */
			return unsupported(c, "integer %s with a fused '%s' is not in the runtime", ir_op_name(n->op),
					   ir_op_name(act.op));
		float sa, sb, sy;
		int32_t za, zb, zy;
		if (p[NPU_EW_OP] > NPU_BIN_MUL)
			return unsupported(c, "integer %s is not in the runtime", ir_op_name(n->op));
		if (!is_int(ta->dtype) || !is_int(tb->dtype))
			return unsupported(c, "integer %s needs integer operands", ir_op_name(n->op));
		if (qparams(c, a, &sa, &za) || qparams(c, b, &sb, &zb) || qparams(c, y, &sy, &zy))
			return -1;
		int32_t m1;
		int s1;
		if (p[NPU_EW_OP] == NPU_BIN_MUL) {
			/* |a - za| * |b - zb| < 2^(ba + bb) must leave room for the multiplier in int64 */
			int bits = 62 - (ta->dtype == IR_DTYPE_I16 ? 17 : 9) - (tb->dtype == IR_DTYPE_I16 ? 17 : 9);
			if (fixed_mult((double)sa * sb / sy, bits > 31 ? 31 : bits, &m1, &s1))
				return unsupported(c, "scale ratio cannot be requantized");
			p[NPU_EW_MA] = m1, p[NPU_EW_SHIFT] = s1;
		} else {
			double ra = (double)sa / sy, rb = (double)sb / sy, big = ra > rb ? ra : rb;
			if (fixed_mult(big, 30, &m1, &s1))
				return unsupported(c, "scale ratio cannot be requantized");
			p[NPU_EW_MA] = (int32_t)llround(ldexp(ra, s1));
			p[NPU_EW_MB] = (int32_t)llround(ldexp(rb, s1));
			p[NPU_EW_SHIFT] = s1;
		}
		p[NPU_EW_ZA] = za, p[NPU_EW_ZB] = zb, p[NPU_EW_ZY] = zy;
		qclamp_range(ty->dtype, sy, zy, act.lo, act.hi, &p[NPU_EW_LO], &p[NPU_EW_HI]);
		return add_op(c, NPU_K_ELTWISE_Q, args, 3, p, NPU_EW_COUNT);
	}
	if (p[NPU_EW_OP] < 0 || !is_float(ta->dtype) || !is_float(tb->dtype) || !is_float(ty->dtype))
		return unsupported(c, "%s on %s is not in the runtime", ir_op_name(n->op), ir_dtype_name(ty->dtype));
	p[NPU_EW_LO] = fbits(act.lo), p[NPU_EW_HI] = fbits(act.hi);
	if (act.op >= 0) {
		if ((p[NPU_EW_ACT] = npu_unary(act.op)) < 0)
			return unsupported(c, "fused activation '%s' is not in the runtime", ir_op_name(act.op));
		p[NPU_EW_P0] = fbits(act.p[0]), p[NPU_EW_P1] = fbits(act.p[1]);
	}
	return add_op(c, NPU_K_ELTWISE_F, args, 3, p, NPU_EW_COUNT);
}

static int lower_unary(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	int64_t cnt = ir_shape_numel(&tx->shape);
	if (cnt > INT32_MAX)
		return unsupported(c, "too many elements for the runtime");
	if (is_int(tx->dtype)) {
		/* clamps are exact in the integer domain; other functions
		 * become lookup tables (npu-quant) */
		float lo = n->op == IR_OP_CLIP ? (float)ir_node_float(c->g, c->node, "min", -INFINITY) : 0;
		float hi = n->op == IR_OP_RELU6 ? 6 : n->op == IR_OP_CLIP ? (float)ir_node_float(c->g, c->node, "max", INFINITY) : INFINITY;
		if (n->op != IR_OP_RELU && n->op != IR_OP_RELU6 && n->op != IR_OP_CLIP)
			return unsupported(c, "integer %s is not in the runtime (npu-quant makes it a lut)",
					   ir_op_name(n->op));
		float sx, sy;
		int32_t zx, zy, mult;
		int shift;
		if (qparams(c, x, &sx, &zx) || qparams(c, y, &sy, &zy))
			return -1;
		if (ir_quant_multiplier((double)sx / sy, &mult, &shift))
			return unsupported(c, "scale ratio cannot be requantized");
		int32_t p[NPU_RQ_COUNT] = {0};
		for (int i = 0; i < NPU_WALK_DIMS; i++)
			p[NPU_RQ_COUNTS + i] = 1, p[NPU_RQ_SS + i] = p[NPU_RQ_DS + i] = 1;
		p[NPU_RQ_COUNTS + NPU_WALK_DIMS - 1] = (int32_t)cnt;
		p[NPU_RQ_XT] = npu_type(tx->dtype), p[NPU_RQ_YT] = npu_type(ty->dtype);
		p[NPU_RQ_ZX] = zx, p[NPU_RQ_ZY] = zy, p[NPU_RQ_MULT] = mult, p[NPU_RQ_SHIFT] = shift;
		qclamp_range(ty->dtype, sy, zy, lo, hi, &p[NPU_RQ_LO], &p[NPU_RQ_HI]);
		int args[2] = {rt(c, x), rt(c, y)};
		return add_op(c, NPU_K_REQUANT, args, 2, p, NPU_RQ_COUNT);
	}
	ir_act a;
	if (!is_float(tx->dtype) || ir_act_from_unary_node(c->g, c->node, &a))
		return unsupported(c, "%s on %s is not in the runtime", ir_op_name(n->op), ir_dtype_name(tx->dtype));
	int32_t p[NPU_UN_COUNT] = {(int32_t)cnt, npu_unary(n->op), 0, 0, npu_type(tx->dtype), npu_type(ty->dtype)};
	if (p[NPU_UN_FN] < 0)
		return unsupported(c, "%s is not in the runtime", ir_op_name(n->op));
	if (a.op < 0)	/* a clamp */
		p[NPU_UN_P0] = fbits(a.lo), p[NPU_UN_P1] = fbits(a.hi);
	else
		p[NPU_UN_P0] = fbits(a.p[0]), p[NPU_UN_P1] = fbits(a.p[1]);
	int args[2] = {rt(c, x), rt(c, y)};
	return add_op(c, NPU_K_UNARY_F, args, 2, p, NPU_UN_COUNT);
}

static int lower_lut(lw *c)
{
	int x = in_id(c, 0), t = in_id(c, 1), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *tt = T(c, t), *ty = T(c, y);
	int64_t n = ir_shape_numel(&tx->shape), len = ir_shape_numel(&tt->shape);
	int bits = 0;
	while (bits < 16 && ((int64_t)1 << bits) + 1 < len)
		bits++;
	if (n > INT32_MAX || tt->kind != IR_KIND_CONST || tt->dtype != ty->dtype ||
	    (tx->dtype == IR_DTYPE_I8 ? len != 256 : tx->dtype != IR_DTYPE_I16 || ((int64_t)1 << bits) + 1 != len))
		return unsupported(c, "lut needs an int8 input and 256 entries or an int16 input and 2^B+1");
	int32_t p[NPU_LT_COUNT] = {(int32_t)n, npu_type(tx->dtype), npu_type(ty->dtype), bits};
	int args[3] = {rt(c, x), rt(c, t), rt(c, y)};
	return add_op(c, NPU_K_LUT, args, 3, p, NPU_LT_COUNT);
}

/* ---------------------------------------------------------------- pooling, softmax */

/* Float pooling of 1 to 3 spatial axes with dilations (POOL3_F): what
 * POOL_F / POOL_Q do not cover. */
static int lower_pool3(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	int r = tx->shape.rank, nsp = r - 2;
	if (!is_float(tx->dtype) || tx->dtype != ty->dtype)
		return unsupported(c, "%s pooling of %d spatial axes or with dilations on %s is not in the runtime (keep it in float)",
				   ir_op_name(n->op), nsp, ir_dtype_name(tx->dtype));
	if (nsp < 1 || nsp > 3 || tx->layout == IR_LAYOUT_NHWC || tx->layout == IR_LAYOUT_NLC)
		return unsupported(c, "the runtime pools channel-first 1-D to 3-D inputs only");
	int32_t p[NPU_P3_COUNT] = {0};
	const int64_t *k, *st, *pd, *dl;
	bool global = n->op == IR_OP_GLOBAL_AVG_POOL || n->op == IR_OP_GLOBAL_MAX_POOL;
	int nk = ir_node_ints(c->g, c->node, "kernel", &k), nst = ir_node_ints(c->g, c->node, "strides", &st);
	int npd = ir_node_ints(c->g, c->node, "pads", &pd), ndl = ir_node_ints(c->g, c->node, "dilations", &dl);
	if (!global && nk != nsp)
		return unsupported(c, "pooling without a kernel size");
	p[NPU_P3_N] = (int32_t)tx->shape.dim[0], p[NPU_P3_C] = (int32_t)tx->shape.dim[1];
	for (int a = 0; a < 3; a++) {
		int i = a - (3 - nsp);	/* spatial axis, or < 0 for a missing leading one */
		int64_t in = i >= 0 ? tx->shape.dim[2 + i] : 1;
		if (in > INT32_MAX || (i >= 0 && ty->shape.dim[2 + i] > INT32_MAX))
			return unsupported(c, "a dimension is too large for the runtime");
		p[NPU_P3_D + a] = (int32_t)in;
		p[NPU_P3_OD + a] = i >= 0 ? (int32_t)ty->shape.dim[2 + i] : 1;
		p[NPU_P3_KD + a] = global ? (int32_t)in : i >= 0 ? (int32_t)k[i] : 1;
		p[NPU_P3_SD + a] = !global && i >= 0 && nst == nsp ? (int32_t)st[i] : 1;
		p[NPU_P3_PD + a] = !global && i >= 0 && npd == 2 * nsp ? (int32_t)pd[i] : 0;
		p[NPU_P3_ED + a] = !global && i >= 0 && npd == 2 * nsp ? (int32_t)pd[nsp + i] : 0;
		p[NPU_P3_DD + a] = !global && i >= 0 && ndl == nsp ? (int32_t)dl[i] : 1;
	}
	p[NPU_P3_MODE] = n->op == IR_OP_MAX_POOL || n->op == IR_OP_GLOBAL_MAX_POOL ? NPU_POOL_MAX : NPU_POOL_AVG;
	p[NPU_P3_COUNT_PAD] = !global && (int32_t)ir_node_int(c->g, c->node, "count_include_pad", 0);
	p[NPU_P3_XT] = npu_type(tx->dtype), p[NPU_P3_YT] = npu_type(ty->dtype);
	int args[2] = {rt(c, x), rt(c, y)};
	return add_op(c, NPU_K_POOL3_F, args, 2, p, NPU_P3_COUNT);
}

static int lower_pool(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	int r = tx->shape.rank;
	if (r == 5)
		return lower_pool3(c);
	if (r != 3 && r != 4)
		return unsupported(c, "the runtime pools 1-D to 3-D inputs only");
	/* channel-last: [N, (H,) W, C] through the NHWC kernels */
	bool cl = tx->layout == IR_LAYOUT_NHWC || tx->layout == IR_LAYOUT_NLC;
	int s0 = cl ? 1 : 2, ca = cl ? r - 1 : 1;
	int32_t p[NPU_PL_COUNT] = {0};
	int64_t H = r == 4 ? tx->shape.dim[s0] : 1, W = tx->shape.dim[s0 + r - 3];
	p[NPU_PL_N] = (int32_t)tx->shape.dim[0], p[NPU_PL_C] = (int32_t)tx->shape.dim[ca];
	p[NPU_PL_H] = (int32_t)H, p[NPU_PL_W] = (int32_t)W;
	p[NPU_PL_OH] = r == 4 ? (int32_t)ty->shape.dim[s0] : 1, p[NPU_PL_OW] = (int32_t)ty->shape.dim[s0 + r - 3];
	p[NPU_PL_MODE] = n->op == IR_OP_MAX_POOL || n->op == IR_OP_GLOBAL_MAX_POOL ? NPU_POOL_MAX : NPU_POOL_AVG;
	p[NPU_PL_SH] = p[NPU_PL_SW] = 1;
	if (n->op == IR_OP_GLOBAL_AVG_POOL || n->op == IR_OP_GLOBAL_MAX_POOL) {
		p[NPU_PL_KH] = (int32_t)H, p[NPU_PL_KW] = (int32_t)W;
	} else {
		const int64_t *k, *st, *pd, *dl;
		int nsp = r - 2, nk = ir_node_ints(c->g, c->node, "kernel", &k);
		int nst = ir_node_ints(c->g, c->node, "strides", &st), npd = ir_node_ints(c->g, c->node, "pads", &pd);
		int ndl = ir_node_ints(c->g, c->node, "dilations", &dl);
		for (int i = 0; i < ndl; i++)
			if (dl[i] != 1)
				return cl ? unsupported(c, "the runtime has no dilated channel-last pooling") : lower_pool3(c);
		if (nk != nsp)
			return unsupported(c, "pooling without a kernel size");
		p[NPU_PL_KH] = nsp == 2 ? (int32_t)k[0] : 1, p[NPU_PL_KW] = (int32_t)k[nsp - 1];
		if (nst == nsp)
			p[NPU_PL_SH] = nsp == 2 ? (int32_t)st[0] : 1, p[NPU_PL_SW] = (int32_t)st[nsp - 1];
		if (npd == 2 * nsp) {
			p[NPU_PL_PT] = nsp == 2 ? (int32_t)pd[0] : 0, p[NPU_PL_PL] = (int32_t)pd[nsp - 1];
			p[NPU_PL_PB] = nsp == 2 ? (int32_t)pd[2] : 0, p[NPU_PL_PR] = (int32_t)pd[2 * nsp - 1];
		}
		p[NPU_PL_COUNT_PAD] = (int32_t)ir_node_int(c->g, c->node, "count_include_pad", 0);
	}
	p[NPU_PL_XT] = npu_type(tx->dtype), p[NPU_PL_YT] = npu_type(ty->dtype);
	int args[2] = {rt(c, x), rt(c, y)};
	if (is_int(tx->dtype)) {
		float sx, sy;
		int32_t zx, zy;
		if (qparams(c, x, &sx, &zx) || qparams(c, y, &sy, &zy))
			return -1;
		if (sx != sy || zx != zy || tx->dtype != ty->dtype)
			return unsupported(c, "integer pooling needs the same scale in and out");
		p[NPU_PL_ZX] = zx, p[NPU_PL_ZY] = zy;
		qrange(ty->dtype, &p[NPU_PL_LO], &p[NPU_PL_HI]);
		return add_op(c, cl ? NPU_K_POOL_NHWC_Q : NPU_K_POOL_Q, args, 2, p, NPU_PL_COUNT);
	}
	if (!is_float(tx->dtype) || tx->dtype != ty->dtype)
		return unsupported(c, "pooling on %s", ir_dtype_name(tx->dtype));
	return add_op(c, cl ? NPU_K_POOL_NHWC_F : NPU_K_POOL_F, args, 2, p, NPU_PL_COUNT);
}

static int lower_softmax(lw *c)
{
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	if (!is_float(tx->dtype))
		return unsupported(c, "softmax on %s is not in the runtime (keep it in float)", ir_dtype_name(tx->dtype));
	int r = tx->shape.rank, ax = ir_axis(ir_node_int(c->g, c->node, "axis", -1), r);
	if (ax < 0)
		return unsupported(c, "bad softmax axis");
	int64_t outer = 1, inner = 1;
	for (int i = 0; i < ax; i++)
		outer *= tx->shape.dim[i];
	for (int i = ax + 1; i < r; i++)
		inner *= tx->shape.dim[i];
	int32_t p[NPU_SM_COUNT] = {(int32_t)outer, (int32_t)tx->shape.dim[ax], (int32_t)inner,
				   ir_graph_node(c->g, c->node)->op == IR_OP_LOG_SOFTMAX, npu_type(tx->dtype),
				   npu_type(ty->dtype)};
	int args[2] = {rt(c, x), rt(c, y)};
	return add_op(c, NPU_K_SOFTMAX_F, args, 2, p, NPU_SM_COUNT);
}

static int lower_reduce(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	int r = tx->shape.rank;
	bool on[IR_MAX_RANK] = {false};
	const int64_t *axes;
	int na = ir_node_ints(c->g, c->node, "axes", &axes);
	for (int i = 0; i < r; i++)
		on[i] = na <= 0;	/* no axes: all of them */
	for (int i = 0; i < na; i++) {
		int ax = ir_axis(axes[i], r);
		if (ax < 0)
			return unsupported(c, "bad reduction axis");
		on[ax] = true;
	}
	int first = 0, last = r - 1;
	while (first < r && !on[first])
		first++;
	while (last >= 0 && !on[last])
		last--;
	for (int i = first; i <= last; i++)
		if (!on[i])
			return unsupported(c, "the runtime reduces neighbouring axes only");
	int64_t outer = 1, nn = 1, inner = 1;
	for (int i = 0; i < r; i++)
		*(i < first ? &outer : i <= last ? &nn : &inner) *= tx->shape.dim[i];
	if (outer > INT32_MAX || nn > INT32_MAX || inner > INT32_MAX || nn == 0)
		return unsupported(c, "a dimension is too large (or empty) for the runtime");
	static const int ops[][2] = {
		{IR_OP_REDUCE_SUM, NPU_RED_SUM}, {IR_OP_REDUCE_MEAN, NPU_RED_MEAN},
		{IR_OP_REDUCE_MAX, NPU_RED_MAX}, {IR_OP_REDUCE_MIN, NPU_RED_MIN},
	};
	int32_t p[NPU_RD_COUNT] = {(int32_t)outer, (int32_t)nn, (int32_t)inner, 0, npu_type(tx->dtype),
				   npu_type(ty->dtype)};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (ops[i][0] == n->op)
			p[NPU_RD_OP] = ops[i][1];
	int args[2] = {rt(c, x), rt(c, y)};
	if (is_int(tx->dtype)) {
		float sx, sy;
		int32_t zx, zy, mult;
		int shift;
		if (!is_int(ty->dtype) || qparams(c, x, &sx, &zx) || qparams(c, y, &sy, &zy))
			return unsupported(c, "integer reduction from %s to %s", ir_dtype_name(tx->dtype),
					   ir_dtype_name(ty->dtype));
		double m = (double)sx / sy / (p[NPU_RD_OP] == NPU_RED_MEAN ? (double)nn : 1);
		if (ir_quant_multiplier(m, &mult, &shift))
			return unsupported(c, "scale ratio %g cannot be requantized", m);
		p[NPU_RD_ZX] = zx, p[NPU_RD_ZY] = zy, p[NPU_RD_MULT] = mult, p[NPU_RD_SHIFT] = shift;
		qrange(ty->dtype, &p[NPU_RD_LO], &p[NPU_RD_HI]);
		return add_op(c, NPU_K_REDUCE_Q, args, 2, p, NPU_RD_COUNT);
	}
	if (!is_float(tx->dtype) || ty->dtype != tx->dtype)
		return unsupported(c, "reduction on %s", ir_dtype_name(tx->dtype));
	return add_op(c, NPU_K_REDUCE_F, args, 2, p, NPU_RD_COUNT);
}

/* ---------------------------------------------------------------- recurrent */

/* A state tensor of the integer cells: int16 with the scale 2^-frac
 * (npu_rt.h, GRU_Q / LSTM_Q), or absent. */
static int rnn_q_state(lw *c, int t, int frac, const char *what)
{
	const ir_tensor *x = T(c, t);
	if (!x)
		return 0;
	if (x->dtype != IR_DTYPE_I16 || !x->quant || x->quant->n != 1 || x->quant->zero_point[0] != 0 ||
	    x->quant->scale[0] != ldexpf(1, -frac))
		return unsupported(c, "the integer cell's %s '%s' must be int16 Q%d.%d (scale 2^-%d, zero point 0)", what,
				   x->name, 15 - frac, frac, frac);
	return 0;
}

/* Per gate row j of an integer cell: the rows' scales, their exact int32
 * accumulator bound (|bias| + max|input| sum |weights| < 2^31, so the
 * kernel's sums cannot overflow) and the multipliers to Q3.12. */
static int rnn_q_rows(lw *c, const ir_tensor *tw, const ir_tensor *tr, const ir_tensor *tb, float sx, int64_t xmax,
		      int64_t gh, int in, int hid, int32_t *q)
{
	const ir_quant *wq = tw->quant, *rq = tr->quant;
	if (tw->dtype != IR_DTYPE_I8 || tr->dtype != IR_DTYPE_I8 || !wq || !rq || (wq->n != 1 && wq->n != gh) ||
	    (rq->n != 1 && rq->n != gh) || tw->kind != IR_KIND_CONST || tr->kind != IR_KIND_CONST)
		return unsupported(c, "integer %s weights must be constant int8 with one scale per gate row or tensor",
				   ir_op_name(ir_graph_node(c->g, c->node)->op));
	if ((tb && (tb->dtype != IR_DTYPE_I32 || tb->kind != IR_KIND_CONST || ir_shape_numel(&tb->shape) != 2 * gh)) ||
	    ir_shape_numel(&tw->shape) != gh * in || ir_shape_numel(&tr->shape) != gh * hid)
		return unsupported(c, "integer %s: bias must be constant int32 [1, %lld]; weights [1, %lld, %d], [1, %lld, %d]",
				   ir_op_name(ir_graph_node(c->g, c->node)->op), (long long)(2 * gh), (long long)gh, in,
				   (long long)gh, hid);
	const int8_t *w = tw->data, *r = tr->data;
	const int32_t *b = tb ? tb->data : NULL;
	for (int64_t j = 0; j < gh; j++) {
		int32_t *row = q + j * NPU_RQN_ROW;
		int64_t sw = 0, sr = 0, bx = b ? b[j] : 0, bh = b ? b[gh + j] : 0;
		for (int i = 0; i < in; i++)
			sw += llabs((long long)w[j * in + i]);
		for (int k = 0; k < hid; k++)
			sr += llabs((long long)r[j * hid + k]);
		if (wq->zero_point[wq->n == 1 ? 0 : j] != 0 || rq->zero_point[rq->n == 1 ? 0 : j] != 0)
			return unsupported(c, "integer recurrent weights must be symmetric (row %lld)", (long long)j);
		if (llabs((long long)bx) + xmax * sw > INT32_MAX || llabs((long long)bh) + 32768 * sr > INT32_MAX)
			return unsupported(c, "gate row %lld's int32 accumulator could overflow (%d inputs, %d hidden); "
					   "keep the layer in float (--float-layers)", (long long)j, in, hid);
		int sh1, sh2;
		double mx = (double)sx * wq->scale[wq->n == 1 ? 0 : j] * 4096;
		double mh = (double)rq->scale[rq->n == 1 ? 0 : j] * ldexp(1, -15) * 4096;
		row[NPU_RQN_BX] = (int32_t)bx, row[NPU_RQN_BH] = (int32_t)bh;
		if (ir_quant_multiplier(mx, &row[NPU_RQN_MX], &sh1) || ir_quant_multiplier(mh, &row[NPU_RQN_MH], &sh2))
			return unsupported(c, "gate row %lld's scales cannot be requantized to Q3.12", (long long)j);
		row[NPU_RQN_SX] = sh1, row[NPU_RQN_SH] = sh2;
	}
	return 0;
}

/* GRU / LSTM on integers: GRU_Q / LSTM_Q (arithmetic: npu_rt.h). */
static int lower_rnn_q(lw *c, bool bf)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	bool lstm = n->op == IR_OP_LSTM;
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	int64_t T_ = tx->shape.dim[bf], B = tx->shape.dim[!bf], I = tx->shape.dim[2];
	int64_t H = ir_node_int(c->g, c->node, "hidden_size", T(c, in_id(c, 2))->shape.dim[2]);
	int64_t gh = (lstm ? 4 : 3) * H;
	if (tx->dtype == IR_DTYPE_U8 || T_ > INT32_MAX || B > INT32_MAX || I > INT32_MAX || H <= 0 || H > 65535 ||
	    I > 65535 || T_ <= 0 || B <= 0 || I <= 0)
		return unsupported(c, "integer %s: input %s, hidden size %lld not in the runtime (int8/int16 input, "
				   "sizes up to 65535)", ir_op_name(n->op), ir_dtype_name(tx->dtype), (long long)H);
	float sx, sy = 1;
	int32_t zx, zy = 0;
	if (qparams(c, x, &sx, &zx) || (ty && (!is_int(ty->dtype) || ty->dtype == IR_DTYPE_U8 ||
					       qparams(c, y, &sy, &zy))))
		return unsupported(c, "integer %s: Y must be int8 or int16 with one scale", ir_op_name(n->op));
	/* the cell state's fraction bits: Y_c's (or c0's) scale 2^-cf */
	int cf = 12;
	const ir_tensor *tc = lstm ? T(c, out_id(c, 2)) ? T(c, out_id(c, 2)) : T(c, in_id(c, 6)) : NULL;
	if (tc && tc->quant && tc->quant->n == 1 && tc->quant->scale[0] > 0)
		cf = -ilogbf(tc->quant->scale[0]);
	if (cf < 0 || cf > 12)
		return unsupported(c, "the integer LSTM's cell state '%s' must have a scale 2^-k, k = 0..12", tc->name);
	if (rnn_q_state(c, in_id(c, 5), 15, "h0") || rnn_q_state(c, out_id(c, 1), 15, "Y_h") ||
	    (lstm && (rnn_q_state(c, in_id(c, 6), cf, "c0") || rnn_q_state(c, out_id(c, 2), cf, "Y_c"))))
		return -1;
	int32_t lo, hi, mult = 0;
	int shift = 0;
	qrange(tx->dtype, &lo, &hi);
	int64_t xmax = zx - (int64_t)lo > hi - (int64_t)zx ? zx - (int64_t)lo : hi - (int64_t)zx;
	int32_t *q = malloc(sizeof *q * (size_t)(gh * NPU_RQN_ROW));
	if (!q)
		return c->oom = true, -1;
	int rc = rnn_q_rows(c, T(c, in_id(c, 1)), T(c, in_id(c, 2)), T(c, in_id(c, 3)), sx, xmax, gh, (int)I, (int)H, q);
	int qt = rc ? -1 : add_const(c, q, sizeof *q * (size_t)(gh * NPU_RQN_ROW));
	free(q);
	if (rc || qt < 0)
		return -1;
	int32_t ylo = 0, yhi = 0;
	if (ty) {
		qrange(ty->dtype, &ylo, &yhi);
		if (ir_quant_multiplier(ldexp(1, -15) / sy, &mult, &shift))
			return unsupported(c, "integer %s: Y's scale %g cannot be requantized", ir_op_name(n->op), sy);
	}
	int32_t p[NPU_RNQ_COUNT] = {(int32_t)T_, (int32_t)B, (int32_t)I, (int32_t)H,
				    (int32_t)ir_node_int(c->g, c->node, "linear_before_reset", 0),
				    !strcmp(ir_node_str(c->g, c->node, "direction", "forward"), "reverse"),
				    npu_type(tx->dtype), ty ? npu_type(ty->dtype) : NPU_T_I8, zx, zy, mult, shift, ylo, yhi,
				    cf};
	if (lstm) {
		int args[9] = {rt(c, x), rt(c, in_id(c, 1)), rt(c, in_id(c, 2)), qt, rt(c, in_id(c, 5)), rt(c, in_id(c, 6)),
			       rt(c, y), rt(c, out_id(c, 1)), rt(c, out_id(c, 2))};
		return add_op(c, NPU_K_LSTM_Q, args, 9, p, NPU_RNQ_COUNT);
	}
	int args[7] = {rt(c, x), rt(c, in_id(c, 1)), rt(c, in_id(c, 2)), qt, rt(c, in_id(c, 5)), rt(c, y),
		       rt(c, out_id(c, 1))};
	return add_op(c, NPU_K_GRU_Q, args, 7, p, NPU_RNQ_COUNT);
}

static int lower_rnn(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	bool lstm = n->op == IR_OP_LSTM, gru = n->op == IR_OP_GRU;
	int x = in_id(c, 0), w = in_id(c, 1), r = in_id(c, 2), b = in_id(c, 3);
	const ir_tensor *tx = T(c, x), *tw = T(c, w), *tr = T(c, r), *tb = T(c, b);
	const char *dir = ir_node_str(c->g, c->node, "direction", "forward");
	bool bidi = !strcmp(dir, "bidirectional");
	if (!is_float(tx->dtype) && !is_int(tx->dtype))
		return unsupported(c, "%s on %s is not in the runtime (keep it in float)", ir_op_name(n->op),
				   ir_dtype_name(tx->dtype));
	if (strcmp(dir, "forward") && strcmp(dir, "reverse") && !bidi)
		return unsupported(c, "%s direction '%s' is not in the runtime", ir_op_name(n->op), dir);
	bool bf = ir_node_int(c->g, c->node, "layout", 0) != 0;
	if (is_int(tx->dtype)) {	/* the integer cells: one direction, batch 1 when batch-first */
		if (bidi)
			return unsupported(c, "integer %s runs one direction only (keep it in float)", ir_op_name(n->op));
		if (bf && tx->shape.dim[0] != 1)
			return unsupported(c, "batch-first %s with a batch of %lld is not in the runtime", ir_op_name(n->op),
					   (long long)tx->shape.dim[0]);
		if (ir_node_attr(c->g, c->node, "clip") || ir_node_int(c->g, c->node, "input_forget", 0) || in_id(c, 4) >= 0 ||
		    (lstm && in_id(c, 7) >= 0))
			return unsupported(c, "%s with clip, input_forget, sequence lengths or peepholes is not in the runtime",
					   ir_op_name(n->op));
		return lower_rnn_q(c, bf);
	}
	const ir_tensor *tp = lstm ? T(c, in_id(c, 7)) : NULL, *tl = T(c, in_id(c, 4));
	if (tl && tl->dtype != IR_DTYPE_I32 && tl->dtype != IR_DTYPE_I64)
		return unsupported(c, "%s sequence lengths are %s", ir_op_name(n->op), ir_dtype_name(tl->dtype));
	if (tw->dtype != tr->dtype || (tb && tb->dtype != tw->dtype) || (tp && tp->dtype != tw->dtype) ||
	    !is_float(tw->dtype))
		return unsupported(c, "%s weights must share one float type", ir_op_name(n->op));
	for (int i = 0; i < 3; i++)
		if (tx->shape.dim[i] > INT32_MAX)
			return unsupported(c, "a dimension is too large for the runtime");
	float clip = (float)ir_node_float(c->g, c->node, "clip", 0);
	int32_t p[NPU_RN_COUNT] = {(int32_t)tx->shape.dim[bf], (int32_t)tx->shape.dim[!bf], (int32_t)tx->shape.dim[2],
				   (int32_t)ir_node_int(c->g, c->node, "hidden_size", tr->shape.dim[2]),
				   (int32_t)ir_node_int(c->g, c->node, "linear_before_reset", 0),
				   !strcmp(dir, "reverse"), npu_type(tx->dtype), npu_type(tw->dtype), npu_type(tx->dtype)};
	p[NPU_RN_DIRS] = bidi ? 2 : 1, p[NPU_RN_BF] = bf, p[NPU_RN_CLIP] = clip > 0 ? fbits(clip) : 0;
	p[NPU_RN_IFG] = lstm && ir_node_int(c->g, c->node, "input_forget", 0) != 0;
	p[NPU_RN_SLT] = tl ? npu_type(tl->dtype) : NPU_T_I32;
	/* a bidirectional node: the forward call, then the backward one */
	for (int d = 0; d < (bidi ? 2 : 1); d++) {
		if (bidi)
			p[NPU_RN_DIR] = d, p[NPU_RN_REVERSE] = d;
		int rc;
		if (lstm) {
			int args[11] = {rt(c, x), rt(c, w), rt(c, r), rt(c, b), rt(c, in_id(c, 5)), rt(c, in_id(c, 6)),
					rt(c, out_id(c, 0)), rt(c, out_id(c, 1)), rt(c, out_id(c, 2)), rt(c, in_id(c, 7)),
					rt(c, in_id(c, 4))};
			rc = add_op(c, NPU_K_LSTM_F, args, tl ? 11 : tp ? 10 : 9, p, NPU_RN_COUNT);
		} else {
			int args[8] = {rt(c, x), rt(c, w), rt(c, r), rt(c, b), rt(c, in_id(c, 5)), rt(c, out_id(c, 0)),
				       rt(c, out_id(c, 1)), rt(c, in_id(c, 4))};
			rc = add_op(c, gru ? NPU_K_GRU_F : NPU_K_RNN_F, args, tl ? 8 : 7, p, NPU_RN_COUNT);
		}
		if (rc)
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- data movement */

static int lower_view(lw *c)
{
	int x = in_id(c, 0), y = out_id(c, 0);
	if (same_place(c, x, y))
		return 0;
	return move_all(c, x, y);
}

static int lower_transpose(lw *c)
{
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	const int64_t *perm;
	int r = tx->shape.rank;
	int64_t sx[IR_MAX_RANK], ss[IR_MAX_RANK], ds[IR_MAX_RANK];
	strides_of(&tx->shape, sx);
	strides_of(&ty->shape, ds);
	int np = ir_node_ints(c->g, c->node, "perm", &perm);
	for (int i = 0; i < r; i++)
		ss[i] = sx[np == r ? perm[i] : r - 1 - i];
	return move(c, x, y, r, ty->shape.dim, ss, ds, 0, 0);
}

static int lower_concat(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	int y = out_id(c, 0);
	const ir_tensor *ty = T(c, y);
	int r = ty->shape.rank, ax = ir_axis(ir_node_int(c->g, c->node, "axis", 0), r);
	int64_t ds[IR_MAX_RANK], at = 0;
	strides_of(&ty->shape, ds);
	for (int i = 0; i < n->n_inputs; i++) {
		const ir_tensor *tx = T(c, n->inputs[i]);
		int64_t ss[IR_MAX_RANK];
		strides_of(&tx->shape, ss);
		if (move(c, n->inputs[i], y, r, tx->shape.dim, ss, ds, 0, at * ds[ax]))
			return -1;
		at += tx->shape.dim[ax];
	}
	return 0;
}

static int lower_split(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	int x = in_id(c, 0);
	const ir_tensor *tx = T(c, x);
	int r = tx->shape.rank, ax = ir_axis(ir_node_int(c->g, c->node, "axis", 0), r);
	int64_t ss[IR_MAX_RANK], at = 0;
	strides_of(&tx->shape, ss);
	for (int i = 0; i < n->n_outputs; i++) {
		const ir_tensor *ty = T(c, n->outputs[i]);
		int64_t ds[IR_MAX_RANK];
		strides_of(&ty->shape, ds);
		if (n->outputs[i] >= 0 && move(c, x, n->outputs[i], r, ty->shape.dim, ss, ds, at * ss[ax], 0))
			return -1;
		at += ty->shape.dim[ax];
	}
	return 0;
}

static int lower_slice(lw *c)
{
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	int r = tx->shape.rank;
	const int64_t *st, *axes, *steps;
	int ns = ir_node_ints(c->g, c->node, "starts", &st), na = ir_node_ints(c->g, c->node, "axes", &axes);
	int nstep = ir_node_ints(c->g, c->node, "steps", &steps);
	int64_t sx[IR_MAX_RANK], ss[IR_MAX_RANK], ds[IR_MAX_RANK], off = 0;
	strides_of(&tx->shape, sx);
	strides_of(&ty->shape, ds);
	memcpy(ss, sx, sizeof ss);
	for (int i = 0; i < ns; i++) {
		int a = ir_axis(na > i ? axes[i] : i, r);
		if (a < 0)
			return unsupported(c, "bad slice axis");
		int64_t D = tx->shape.dim[a], s = st[i], step = nstep > i ? steps[i] : 1;
		if (s < 0)
			s += D;
		s = step > 0 ? (s < 0 ? 0 : s > D ? D : s) : (s < 0 ? 0 : s > D - 1 ? D - 1 : s);
		if (ty->shape.dim[a] == 0)
			return 0;
		off += s * sx[a];
		ss[a] = sx[a] * step;
	}
	/* negative steps walk backwards from the start (negative strides) */
	return move(c, x, y, r, ty->shape.dim, ss, ds, off, 0);
}

/* depth_to_space / space_to_depth (channel-first): a 6-dimensional walk
 * over the output's elements. */
static int lower_blocks(lw *c)
{
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x);
	if (tx->shape.rank != 4 || tx->layout == IR_LAYOUT_NHWC)
		return unsupported(c, "the runtime moves blocks of channel-first 4-D tensors only");
	int64_t b = ir_node_int(c->g, c->node, "blocksize", 1);
	int64_t N = tx->shape.dim[0], C = tx->shape.dim[1], H = tx->shape.dim[2], W = tx->shape.dim[3];
	int64_t cnt[IR_MAX_RANK], ss[IR_MAX_RANK], ds[IR_MAX_RANK];
	if (ir_graph_node(c->g, c->node)->op == IR_OP_DEPTH_TO_SPACE) {
		/* y[n, co, h*b+i, w*b+j] = x[n, ci, h, w], ci = (i*b + j)*Co + co
		 * (DCR) or co*b*b + i*b + j (CRD): output order n co h i w j */
		bool crd = !strcmp(ir_node_str(c->g, c->node, "mode", "DCR"), "CRD");
		int64_t Co = C / (b * b), hw = H * W;
		int64_t k6[6] = {N, Co, H, b, W, b};
		int64_t s6[6] = {C * hw, crd ? b * b * hw : hw, W, crd ? b * hw : b * Co * hw, 1, crd ? hw : Co * hw};
		memcpy(cnt, k6, sizeof k6), memcpy(ss, s6, sizeof s6);
	} else {
		/* y[n, (i*b + j)*C + c, h, w] = x[n, c, h*b+i, w*b+j]: output
		 * order n i j c h w */
		int64_t Ho = H / b, Wo = W / b;
		int64_t k6[6] = {N, b, b, C, Ho, Wo}, s6[6] = {C * H * W, W, 1, H * W, b * W, b};
		memcpy(cnt, k6, sizeof k6), memcpy(ss, s6, sizeof s6);
	}
	for (int i = 5, v = 1; i >= 0; i--) {
		ds[i] = v;
		v *= (int)cnt[i];
	}
	return move(c, x, y, 6, cnt, ss, ds, 0, 0);
}

/* reflect and edge padding: x into the interior, then along each axis in
 * turn the padded slices copied from the output's own rows (the axes
 * before it already padded, those after it still only the interior). */
static int lower_pad_edges(lw *c, bool reflect)
{
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	const char *mode = ir_node_str(c->g, c->node, "mode", "constant");
	int r = tx->shape.rank;
	const int64_t *pd;
	int np = ir_node_ints(c->g, c->node, "pads", &pd);
	if (!reflect && strcmp(mode, "edge"))
		return unsupported(c, "%s padding is not in the runtime", mode);
	int64_t ys[IR_MAX_RANK], xs[IR_MAX_RANK], off = 0;
	strides_of(&ty->shape, ys);
	strides_of(&tx->shape, xs);
	for (int i = 0; i < r; i++) {
		int64_t b = np == 2 * r ? pd[i] : 0, e = np == 2 * r ? pd[r + i] : 0, D = tx->shape.dim[i];
		if (b < 0 || e < 0)
			return unsupported(c, "negative padding is not in the runtime");
		if ((b || e) && (D == 0 || (reflect && (b >= D || e >= D))))
			return unsupported(c, "%s padding of %lld and %lld on %lld elements", mode, (long long)b,
					   (long long)e, (long long)D);
		off += b * ys[i];
	}
	if (move(c, x, y, r, tx->shape.dim, xs, ys, 0, off))
		return -1;
	for (int d = 0; d < r && np == 2 * r; d++) {
		int64_t b = pd[d], e = pd[r + d], D = tx->shape.dim[d], cnt[IR_MAX_RANK], base = 0;
		for (int k = 0; k < r; k++) {
			cnt[k] = k < d ? ty->shape.dim[k] : k == d ? 1 : tx->shape.dim[k];
			if (k > d)
				base += pd[k] * ys[k];
		}
		for (int64_t j = 0; j < b + e; j++) {
			/* output index o along d reads index s (both in output coordinates) */
			int64_t o = j < b ? j : b + D + (j - b);
			int64_t s = j < b ? (reflect ? 2 * b - j : b) : (reflect ? 2 * (b + D - 1) - o : b + D - 1);
			if (move(c, y, y, r, cnt, ys, ys, base + s * ys[d], base + o * ys[d]))
				return -1;
		}
	}
	return 0;
}

static int lower_pad(lw *c)
{
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	int r = tx->shape.rank;
	const int64_t *pd;
	int np = ir_node_ints(c->g, c->node, "pads", &pd);
	const char *mode = ir_node_str(c->g, c->node, "mode", "constant");
	if (strcmp(mode, "constant"))
		return lower_pad_edges(c, !strcmp(mode, "reflect"));
	double v = ir_node_float(c->g, c->node, "value", 0);
	int64_t ds[IR_MAX_RANK], ss[IR_MAX_RANK], off = 0, n = ir_shape_numel(&ty->shape);
	strides_of(&ty->shape, ds);
	strides_of(&tx->shape, ss);
	for (int i = 0; i < r && np == 2 * r; i++) {
		if (pd[i] < 0 || pd[r + i] < 0)
			return unsupported(c, "negative padding is not in the runtime");
		off += pd[i] * ds[i];
	}
	int32_t fill = 0;
	if (is_int(ty->dtype)) {
		float s;
		int32_t z;
		if (qparams(c, y, &s, &z))
			return -1;
		fill = qclamp(ty->dtype, z + v / s);
	} else if (ty->dtype == IR_DTYPE_F16) {
		fill = npu_f32_to_f16((float)v);
	} else {
		fill = fbits((float)v);
	}
	if (n > INT32_MAX)
		return unsupported(c, "too many elements for the runtime");
	int32_t p[NPU_FI_COUNT] = {(int32_t)n, (int32_t)ir_dtype_size(ty->dtype), fill};
	int args[1] = {rt(c, y)};
	if (add_op(c, NPU_K_FILL, args, 1, p, NPU_FI_COUNT))
		return -1;
	return move(c, x, y, r, tx->shape.dim, ss, ds, 0, off);
}

/* ---------------------------------------------------------------- types */

static int lower_quantize(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	int64_t cnt = ir_shape_numel(&tx->shape);
	if (n->n_inputs > 1 && n->inputs[1] >= 0)
		return unsupported(c, "%s with scale inputs is not in the runtime (npu-quant sets tensor scales)",
				   ir_op_name(n->op));
	if (cnt > INT32_MAX)
		return unsupported(c, "too many elements for the runtime");
	int args[2] = {rt(c, x), rt(c, y)};
	float s;
	int32_t z;
	if (n->op == IR_OP_QUANTIZE) {
		if (is_int(tx->dtype))
			return move_all(c, x, y);
		if (!is_float(tx->dtype) || !is_int(ty->dtype) || qparams(c, y, &s, &z))
			return unsupported(c, "quantize from %s to %s", ir_dtype_name(tx->dtype), ir_dtype_name(ty->dtype));
		int32_t p[NPU_QZ_COUNT] = {(int32_t)cnt, npu_type(tx->dtype), npu_type(ty->dtype), fbits(s), z};
		qrange(ty->dtype, &p[NPU_QZ_LO], &p[NPU_QZ_HI]);
		return add_op(c, NPU_K_QUANTIZE, args, 2, p, NPU_QZ_COUNT);
	}
	if (!is_int(tx->dtype) || !is_float(ty->dtype) || qparams(c, x, &s, &z))
		return unsupported(c, "dequantize from %s to %s", ir_dtype_name(tx->dtype), ir_dtype_name(ty->dtype));
	int32_t p[NPU_QZ_COUNT] = {(int32_t)cnt, npu_type(tx->dtype), npu_type(ty->dtype), fbits(s), z};
	return add_op(c, NPU_K_DEQUANTIZE, args, 2, p, NPU_QZ_COUNT);
}

static int lower_cast(lw *c)
{
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	int64_t cnt = ir_shape_numel(&tx->shape);
	if (tx->dtype == ty->dtype)
		return lower_view(c);
	/* by value: integer codes to float, float to integers (truncated) */
	bool xi = tx->dtype == IR_DTYPE_I32 || is_int(tx->dtype), yi = ty->dtype == IR_DTYPE_I32 || is_int(ty->dtype);
	bool idx = (tx->dtype == IR_DTYPE_I64 && (ty->dtype == IR_DTYPE_I32 || is_float(ty->dtype))) ||
		   (tx->dtype == IR_DTYPE_I32 && ty->dtype == IR_DTYPE_I64);
	if ((!idx && (!(is_float(tx->dtype) || xi) || !(is_float(ty->dtype) || yi) || (xi && yi))) || cnt > INT32_MAX)
		return unsupported(c, "cast from %s to %s is not in the runtime", ir_dtype_name(tx->dtype),
				   ir_dtype_name(ty->dtype));
	int32_t p[NPU_CA_COUNT] = {(int32_t)cnt, npu_type(tx->dtype), npu_type(ty->dtype)};
	int args[2] = {rt(c, x), rt(c, y)};
	return add_op(c, NPU_K_CAST_F, args, 2, p, NPU_CA_COUNT);
}

/* ---------------------------------------------------------------- indices */

/* int64 is the runtime's type for indices only: what argmax makes and
 * what gather and the data-movement ops move. */
static bool i64_ok(int op)
{
	switch (op) {
	case IR_OP_ARGMAX: case IR_OP_GATHER: case IR_OP_RESHAPE: case IR_OP_FLATTEN: case IR_OP_SQUEEZE:
	case IR_OP_UNSQUEEZE: case IR_OP_IDENTITY: case IR_OP_TRANSPOSE: case IR_OP_CONCAT: case IR_OP_SPLIT:
	case IR_OP_SLICE: case IR_OP_CAST: case IR_OP_RNN: case IR_OP_GRU: case IR_OP_LSTM:	/* sequence lengths */
		return true;
	default:
		return false;
	}
}

/* gather along any axis: constant indices are normalised here (negative
 * ones count from the end) and stored as int32; activation indices
 * (int32 or int64) are normalised by the kernel. Moves elements of any
 * size, so a quantized tensor keeps its type and scale. */
static int lower_gather(lw *c)
{
	int x = in_id(c, 0), ix = in_id(c, 1), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ti = T(c, ix), *ty = T(c, y);
	int r = tx->shape.rank, ax = ir_axis(ir_node_int(c->g, c->node, "axis", 0), r);
	if (ax < 0)
		return unsupported(c, "bad gather axis");
	if (tx->dtype != ty->dtype || (is_int(tx->dtype) && (!tx->quant || !ty->quant ||
							      tx->quant->scale[0] != ty->quant->scale[0] ||
							      tx->quant->zero_point[0] != ty->quant->zero_point[0])))
		return unsupported(c, "gather's output must have its input's type and scale");
	int64_t outer = 1, inner = 1, N = tx->shape.dim[ax], ni = ir_shape_numel(&ti->shape);
	for (int i = 0; i < ax; i++)
		outer *= tx->shape.dim[i];
	for (int i = ax + 1; i < r; i++)
		inner *= tx->shape.dim[i];
	if (outer > INT32_MAX || N > INT32_MAX || inner > INT32_MAX || ni > INT32_MAX ||
	    ir_shape_numel(&ty->shape) > INT32_MAX)
		return unsupported(c, "a dimension is too large for the runtime");
	int32_t p[NPU_GA_COUNT] = {(int32_t)outer, (int32_t)N, (int32_t)inner, (int32_t)ni,
				   (int32_t)ir_dtype_size(tx->dtype), NPU_T_I32};
	int args[3] = {rt(c, x), -1, rt(c, y)};
	if (ti->kind == IR_KIND_CONST) {
		int32_t *v = malloc(sizeof *v * (size_t)(ni > 0 ? ni : 1));
		if (!v)
			return c->oom = true, -1;
		int rc = 0;
		for (int64_t i = 0; i < ni && !rc; i++) {
			int64_t k = (int64_t)ir_elem_get(ti->data, ti->dtype, i);
			k = k < 0 ? k + N : k;
			if (k < 0 || k >= N)
				rc = unsupported(c, "gather index %lld is outside [0, %lld)", (long long)k, (long long)N);
			v[i] = (int32_t)k;
		}
		if (!rc)
			args[1] = add_const(c, v, sizeof *v * (size_t)ni);
		free(v);
		if (rc)
			return -1;
	} else {
		if (ti->dtype != IR_DTYPE_I32 && ti->dtype != IR_DTYPE_I64)
			return unsupported(c, "gather indices are %s", ir_dtype_name(ti->dtype));
		p[NPU_GA_IT] = npu_type(ti->dtype);
		args[1] = rt(c, ix);
	}
	return add_op(c, NPU_K_GATHER, args, 3, p, NPU_GA_COUNT);
}

/* argmax (argmin is argmax of the negation, see npu-ir(5)) of float or
 * integer codes; the indices are int64 or int32. */
static int lower_argmax(lw *c)
{
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	int r = tx->shape.rank, ax = ir_axis(ir_node_int(c->g, c->node, "axis", 0), r);
	if (ax < 0)
		return unsupported(c, "bad argmax axis");
	if (ty->dtype != IR_DTYPE_I64 && ty->dtype != IR_DTYPE_I32)
		return unsupported(c, "argmax into %s", ir_dtype_name(ty->dtype));
	if (is_int(tx->dtype)) {
		float s;
		int32_t z;
		if (qparams(c, x, &s, &z))	/* a positive scale: codes order like values */
			return -1;
	} else if (!is_float(tx->dtype) && tx->dtype != IR_DTYPE_I32) {
		return unsupported(c, "argmax of %s", ir_dtype_name(tx->dtype));
	}
	int64_t outer = 1, inner = 1, N = tx->shape.dim[ax];
	for (int i = 0; i < ax; i++)
		outer *= tx->shape.dim[i];
	for (int i = ax + 1; i < r; i++)
		inner *= tx->shape.dim[i];
	if (outer > INT32_MAX || N > INT32_MAX || inner > INT32_MAX || N < 1)
		return unsupported(c, "a dimension is too large (or empty) for the runtime");
	int32_t p[NPU_AM_COUNT] = {(int32_t)outer, (int32_t)N, (int32_t)inner, 0,
				   ir_node_int(c->g, c->node, "select_last_index", 0) != 0, npu_type(tx->dtype),
				   npu_type(ty->dtype)};
	int args[2] = {rt(c, x), rt(c, y)};
	return add_op(c, NPU_K_ARGMAX, args, 2, p, NPU_AM_COUNT);
}

/* batch_to_space / space_to_batch (TF semantics, ir_kernels.c): one
 * strided move per block offset (the batch slab off * B .. off * B + B - 1
 * of the blocked side) over the positions that land inside the space
 * side; space_to_batch fills the padding first. */
static int lower_batch_space(lw *c)
{
	bool to_space = ir_graph_node(c->g, c->node)->op == IR_OP_BATCH_TO_SPACE;
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	const ir_tensor *big = to_space ? ty : tx, *small = to_space ? tx : ty;
	int r = tx->shape.rank, nsp = r - 2, sp = tx->layout == IR_LAYOUT_NHWC || tx->layout == IR_LAYOUT_NLC ? 1 : 2;
	int64_t blk[3] = {1, 1, 1}, pc[6] = {0}, bst[IR_MAX_RANK], sst[IR_MAX_RANK], B = big->shape.dim[0];
	const int64_t *v;
	if (nsp < 1 || nsp > 3)
		return unsupported(c, "batch/space moves of rank %d", r);
	if (ir_node_ints(c->g, c->node, "block", &v) == nsp)
		memcpy(blk, v, sizeof *blk * (size_t)nsp);
	if (ir_node_ints(c->g, c->node, to_space ? "crops" : "pads", &v) == 2 * nsp)
		memcpy(pc, v, sizeof *pc * (size_t)(2 * nsp));
	strides_of(&big->shape, bst);
	strides_of(&small->shape, sst);
	if (!to_space) {	/* the padding: zero (the zero point) */
		int64_t n = ir_shape_numel(&ty->shape);
		int32_t fill = 0, z = 0;
		float sc;
		if (is_int(ty->dtype) && qparams(c, y, &sc, &z))
			return -1;
		fill = z;
		if (n > INT32_MAX)
			return unsupported(c, "too many elements for the runtime");
		int32_t p[NPU_FI_COUNT] = {(int32_t)n, (int32_t)ir_dtype_size(ty->dtype), fill};
		int args[1] = {rt(c, y)};
		if (add_op(c, NPU_K_FILL, args, 1, p, NPU_FI_COUNT))
			return -1;
	}
	int64_t prod = blk[0] * blk[1] * blk[2];
	for (int64_t off = 0; off < prod; off++) {
		int64_t bi[3], rem = off, cnt[IR_MAX_RANK], ss[IR_MAX_RANK], bs[IR_MAX_RANK], so = off * B * sst[0], bo = 0;
		bool empty = false;
		for (int d = nsp - 1; d >= 0; d--)
			bi[d] = rem % blk[d], rem /= blk[d];
		for (int i = 0; i < r; i++)
			cnt[i] = small->shape.dim[i], ss[i] = sst[i], bs[i] = bst[i];
		cnt[0] = B;
		for (int d = 0; d < nsp; d++) {
			int a = sp + d;
			/* idx * blk + bi - pc in [0, big) */
			int64_t lo = pc[2 * d] - bi[d] > 0 ? (pc[2 * d] - bi[d] + blk[d] - 1) / blk[d] : 0;
			int64_t top = big->shape.dim[a] - 1 + pc[2 * d] - bi[d];
			int64_t hi = top < 0 ? -1 : top / blk[d];
			hi = hi > small->shape.dim[a] - 1 ? small->shape.dim[a] - 1 : hi;
			if (hi < lo) {
				empty = true;
				break;
			}
			cnt[a] = hi - lo + 1;
			so += lo * sst[a];
			bo += (lo * blk[d] + bi[d] - pc[2 * d]) * bst[a];
			bs[a] = bst[a] * blk[d];
		}
		if (empty)
			continue;
		if (to_space ? move(c, x, y, r, cnt, ss, bs, so, bo) : move(c, x, y, r, cnt, bs, ss, bo, so))
			return -1;
	}
	return 0;
}

/* lrn: across channels of a channel-first tensor. */
static int lower_lrn(lw *c)
{
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	if (!is_float(tx->dtype) || ty->dtype != tx->dtype)
		return unsupported(c, "lrn on %s is not in the runtime (keep it in float)", ir_dtype_name(tx->dtype));
	if (tx->shape.rank < 2 || tx->layout == IR_LAYOUT_NHWC || tx->layout == IR_LAYOUT_NLC)
		return unsupported(c, "the runtime's lrn is channel-first");
	int64_t N = tx->shape.dim[0], C = tx->shape.dim[1], inner = ir_shape_numel(&tx->shape) / (N * C > 0 ? N * C : 1);
	int64_t size = ir_node_int(c->g, c->node, "size", 1);
	if (N > INT32_MAX || C > INT32_MAX || inner > INT32_MAX || size < 1 || size > INT32_MAX)
		return unsupported(c, "a dimension is too large for the runtime");
	int32_t p[NPU_LR_COUNT] = {(int32_t)N, (int32_t)C, (int32_t)inner, (int32_t)size,
				   fbits((float)ir_node_float(c->g, c->node, "alpha", 1e-4)),
				   fbits((float)ir_node_float(c->g, c->node, "beta", 0.75)),
				   fbits((float)ir_node_float(c->g, c->node, "bias", 1)), npu_type(tx->dtype),
				   npu_type(ty->dtype)};
	int args[2] = {rt(c, x), rt(c, y)};
	return add_op(c, NPU_K_LRN_F, args, 2, p, NPU_LR_COUNT);
}

/* ---------------------------------------------------------------- spatial and normalisation ops */

static int expand_const(lw *c, int t, const ir_shape *norm, ir_dtype dt);

/* Float constant t in the activation type dt: itself, or a converted copy. */
static int float_const_as(lw *c, int t, ir_dtype dt)
{
	return T(c, t)->dtype == dt ? rt(c, t) : expand_const(c, t, &T(c, t)->shape, dt);
}

/* conv_transpose (1-D, 2-D; weights [C, OC/G, KH, KW]) as CONV_T_Q /
 * CONV_T_F; the output size (with output_padding) comes from the output. */
static int lower_conv_transpose(lw *c)
{
	int x = in_id(c, 0), w = in_id(c, 1), b = in_id(c, 2), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *tw = T(c, w), *ty = T(c, y), *tb = T(c, b);
	int32_t p[NPU_CV_COUNT] = {0};
	int r = tx->shape.rank, nsp = r - 2;
	if (r == 5)
		return lower_conv3(c, true);
	if (r != 3 && r != 4)
		return unsupported(c, "the runtime has 1-D to 3-D transposed convolutions only");
	/* channel-last [N, (H,) W, C]: CONV_T_NHWC_*, weights as they are */
	bool cl = tx->layout == IR_LAYOUT_NHWC || tx->layout == IR_LAYOUT_NLC;
	int s0 = cl ? 1 : 2, ca = cl ? r - 1 : 1;
	if (tw->kind != IR_KIND_CONST && (tw->dtype != tx->dtype || !is_float(tx->dtype)))
		return unsupported(c, "the runtime needs constant weights");
	const int64_t *st, *pd, *dl;
	int nst = ir_node_ints(c->g, c->node, "strides", &st), npd = ir_node_ints(c->g, c->node, "pads", &pd);
	int ndl = ir_node_ints(c->g, c->node, "dilations", &dl);
	int64_t g = ir_node_int(c->g, c->node, "group", 1);
	int64_t dims[] = {tx->shape.dim[0], tx->shape.dim[ca], r == 4 ? tx->shape.dim[s0] : 1, tx->shape.dim[s0 + r - 3],
			  ty->shape.dim[ca], r == 4 ? ty->shape.dim[s0] : 1, ty->shape.dim[s0 + r - 3],
			  r == 4 ? tw->shape.dim[2] : 1, tw->shape.dim[r - 1]};
	for (int i = 0; i < 9; i++) {
		if (dims[i] > INT32_MAX)
			return unsupported(c, "a dimension is too large for the runtime");
		p[i] = (int32_t)dims[i];	/* N C H W OC OH OW KH KW: the NPU_CV_* order */
	}
	int64_t OC = dims[4];
	p[NPU_CV_SH] = nsp == 2 && nst == 2 ? (int32_t)st[0] : 1;
	p[NPU_CV_SW] = nst == nsp ? (int32_t)st[nsp - 1] : 1;
	p[NPU_CV_DH] = nsp == 2 && ndl == 2 ? (int32_t)dl[0] : 1;
	p[NPU_CV_DW] = ndl == nsp ? (int32_t)dl[nsp - 1] : 1;
	p[NPU_CV_PT] = nsp == 2 && npd == 4 ? (int32_t)pd[0] : 0;
	p[NPU_CV_PL] = npd == 2 * nsp ? (int32_t)pd[nsp - 1] : 0;
	p[NPU_CV_G] = (int32_t)g;
	p[NPU_CV_XT] = npu_type(tx->dtype), p[NPU_CV_WT] = npu_type(tw->dtype), p[NPU_CV_YT] = npu_type(ty->dtype);
	p[NPU_CV_ACT] = -1;
	if (g < 1 || dims[1] % g || OC % g || tw->shape.dim[1] * g != OC)
		return unsupported(c, "bad group count %lld", (long long)g);
	ir_act act;
	if (ir_act_from_node(c->g, c->node, &act, c->d))
		return unsupported(c, "%s", c->d->msg);
	/* weights are [C, OC/G, ...]: output channel oc = gr * OC/G + o has
	 * per-channel parameters at index o when G == 1 (quant axis 1) */
	const ir_quant *q = tw->quant;
	if (q && q->n != 1 && (q->n != OC || q->axis != 1 || g != 1))
		return unsupported(c, "weights '%s' need one scale or one per output channel (axis 1)", tw->name);

	if (is_int(tx->dtype)) {
		float sx, sy;
		int32_t zx, zy;
		if (!is_int(ty->dtype) || (tw->dtype != IR_DTYPE_I8 && tw->dtype != IR_DTYPE_I16) || !q)
			return unsupported(c, "integer transposed convolution needs integer output and weights with scales");
		if (act.op >= 0)
			return unsupported(c, "fused activation '%s' on an integer convolution", ir_op_name(act.op));
		if (tb && ((tb->dtype != IR_DTYPE_I32 && tb->dtype != IR_DTYPE_I64) || tb->kind != IR_KIND_CONST))
			return unsupported(c, "integer convolution needs a constant int32 or int64 bias");
		if (qparams(c, x, &sx, &zx) || qparams(c, y, &sy, &zy))
			return -1;
		return conv_q_op(c, cl ? NPU_K_CONV_T_NHWC_Q : NPU_K_CONV_T_Q, x, w, -1, b, y, q, OC, sx, sy, zx, zy, act.lo,
				 act.hi, p);
	}

	if (!is_float(tx->dtype) || ty->dtype != tx->dtype)
		return unsupported(c, "transposed convolution from %s to %s", ir_dtype_name(tx->dtype),
				   ir_dtype_name(ty->dtype));
	int args[5] = {rt(c, x), rt(c, w), -1, -1, rt(c, y)};
	if (tw->dtype == IR_DTYPE_I8) {
		if (!q)
			return unsupported(c, "compressed weights '%s' need scales", tw->name);
		float *s = malloc(sizeof *s * (size_t)OC);
		if (!s)
			return c->oom = true, -1;
		for (int64_t o = 0; o < OC; o++)
			s[o] = q->scale[q->n == 1 ? 0 : o];
		args[3] = add_const(c, s, sizeof *s * (size_t)OC);
		free(s);
	} else if (!is_float(tw->dtype)) {
		return unsupported(c, "weights '%s' are %s", tw->name, ir_dtype_name(tw->dtype));
	}
	if (tb) {
		if ((tb->kind != IR_KIND_CONST && tb->dtype != tx->dtype) || !is_float(tb->dtype))
			return unsupported(c, "the bias must be a float constant");
		args[2] = float_const_as(c, b, tx->dtype);
	}
	p[NPU_CV_LO] = fbits(act.lo), p[NPU_CV_HI] = fbits(act.hi);
	if (act.op >= 0) {
		if ((p[NPU_CV_ACT] = npu_unary(act.op)) < 0)
			return unsupported(c, "fused activation '%s' is not in the runtime", ir_op_name(act.op));
		p[NPU_CV_P0] = fbits(act.p[0]), p[NPU_CV_P1] = fbits(act.p[1]);
	}
	return add_op(c, cl ? NPU_K_CONV_T_NHWC_F : NPU_K_CONV_T_F, args, 5, p, NPU_CV_COUNT);
}

/* resize of the last two axes (leading axes unchanged), through tables
 * of taps computed here as the interpreter computes them. */
static int lower_resize(lw *c)
{
	int x = in_id(c, 0), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y);
	int r = tx->shape.rank;
	ir_resize_spec rs;
	ir_diag dd = {0};
	if (ir_resize_spec_of(c->g, c->node, &rs, &dd))
		return unsupported(c, "%s", dd.msg);
	const double *sc;
	bool has_scales = ir_node_floats(c->g, c->node, "scales", &sc) == r;
	/* channel-last [N, (H,) W, C]: the spatial axes are the ones before C */
	bool cl = (tx->layout == IR_LAYOUT_NHWC || tx->layout == IR_LAYOUT_NLC) && (r == 3 || r == 4);
	int64_t outer = 1;
	for (int d = 0; d < r; d++) {
		if (cl ? d >= 1 && d < r - 1 : d >= r - 2)
			continue;
		bool ident = tx->shape.dim[d] == ty->shape.dim[d] &&
			     (!has_scales || sc[d] == 1 || rs.ct == IR_CT_ALIGN_CORNERS);
		if (!ident)
			return unsupported(c, "the runtime resizes the last two axes (channel-last: the spatial ones) only");
		if (!cl || d == 0)
			outer *= tx->shape.dim[d];
	}
	int K = rs.mode == 0 ? 1 : rs.mode == 1 ? 2 : 4;
	if (is_int(tx->dtype)) {
		float sx, sy;
		int32_t zx, zy;
		if (K > 2)
			return unsupported(c, "integer cubic resize is not in the runtime (keep it in float)");
		if (qparams(c, x, &sx, &zx) || qparams(c, y, &sy, &zy))
			return -1;
		if (sx != sy || zx != zy || tx->dtype != ty->dtype)
			return unsupported(c, "integer resize needs the same scale in and out");
	} else if (!is_float(tx->dtype) || tx->dtype != ty->dtype) {
		return unsupported(c, "resize on %s", ir_dtype_name(tx->dtype));
	}
	int64_t in[2], out[2];
	for (int a = 0; a < 2; a++) {
		int d = cl ? (r == 4 ? 1 + a : a ? 1 : -1) : r - 2 + a;
		in[a] = d >= 0 ? tx->shape.dim[d] : 1, out[a] = d >= 0 ? ty->shape.dim[d] : 1;
	}
	if (outer > INT32_MAX || in[0] > INT32_MAX || in[1] > INT32_MAX || out[0] > INT32_MAX / 8 ||
	    out[1] > INT32_MAX / 8)
		return unsupported(c, "a dimension is too large for the runtime");
	int args[4] = {rt(c, x), -1, -1, rt(c, y)};
	for (int a = 0; a < 2; a++) {
		int d = cl ? (r == 4 ? 1 + a : a ? 1 : -1) : r - 2 + a;
		size_t n = (size_t)(out[a] > 0 ? out[a] : 1) * 2 * (size_t)K;
		int32_t *tab = calloc(n, sizeof *tab);
		if (!tab)
			return c->oom = true, -1;
		double s = d >= 0 && has_scales ? sc[d] : (double)out[a] / (double)(in[a] > 0 ? in[a] : 1);
		bool ident = d < 0 || (in[a] == out[a] && (s == 1 || rs.ct == IR_CT_ALIGN_CORNERS));
		for (int64_t i = 0; i < out[a]; i++) {
			int64_t ti[4] = {i, i, i, i};
			double tw[4] = {1, 0, 0, 0};
			if (!ident)
				ir_resize_taps(&rs, in[a], s, i, ti, tw);
			int32_t *row = tab + (size_t)i * 2 * (size_t)K;
			for (int k = 0; k < K; k++)
				row[k] = (int32_t)ti[k], row[K + k] = fbits((float)tw[k]);
			if (is_int(tx->dtype) && K == 2) {	/* Q15, summing to 2^15 */
				double w1 = tw[1] < 0 ? 0 : tw[1] > 1 ? 1 : tw[1];
				row[3] = (int32_t)llround(w1 * 32768), row[2] = 32768 - row[3];
			} else if (is_int(tx->dtype)) {
				row[1] = 1;
			}
		}
		args[1 + a] = add_const(c, tab, n * sizeof *tab);
		free(tab);
	}
	int32_t p[NPU_RSC_COUNT] = {(int32_t)outer, (int32_t)in[0], (int32_t)in[1], (int32_t)out[0], (int32_t)out[1], K,
				    npu_type(tx->dtype), npu_type(ty->dtype), (int32_t)ir_dtype_size(tx->dtype)};
	if (cl) {
		if (tx->shape.dim[r - 1] > INT32_MAX)
			return unsupported(c, "a dimension is too large for the runtime");
		p[NPU_RSC_C] = (int32_t)tx->shape.dim[r - 1];
		return add_op(c, NPU_K_RESIZE_NHWC, args, 4, p, NPU_RSC_COUNT);
	}
	return add_op(c, NPU_K_RESIZE, args, 4, p, NPU_RS_COUNT);
}

/* prelu on integers: two requantizations, x >= 0 by s_x / s_y and x < 0
 * by s_x s_slope / s_y (as TFLite and CMSIS-NN do). */
static int lower_prelu_q(lw *c)
{
	int a = in_id(c, 0), b = in_id(c, 1), y = out_id(c, 0);
	const ir_tensor *ta = T(c, a), *tb = T(c, b), *ty = T(c, y);
	int32_t p[NPU_PR_COUNT] = {0}, *sp[3] = {p + NPU_PR_SA, p + NPU_PR_SB, NULL}, dummy[NPU_WALK_DIMS];
	int64_t st[3][IR_MAX_RANK];
	bcast_strides(&ty->shape, &ta->shape, st[0]);
	bcast_strides(&ty->shape, &tb->shape, st[1]);
	strides_of(&ty->shape, st[2]);
	sp[2] = dummy;
	if (!is_int(ta->dtype) || !is_int(tb->dtype) || !is_int(ty->dtype))
		return unsupported(c, "integer prelu needs integer operands");
	if (walk(c, ty->shape.rank, ty->shape.dim, 3, st, p + NPU_PR_COUNTS, sp))
		return -1;
	float sa, sb, sy;
	int32_t za, zb, zy, m;
	int s;
	if (qparams(c, a, &sa, &za) || qparams(c, b, &sb, &zb) || qparams(c, y, &sy, &zy))
		return -1;
	if (ir_quant_multiplier((double)sa / sy, &m, &s))
		return unsupported(c, "scale ratio cannot be requantized");
	p[NPU_PR_MP] = m, p[NPU_PR_SP] = s;
	if (ir_quant_multiplier((double)sa * sb / sy, &m, &s))
		return unsupported(c, "scale ratio cannot be requantized");
	p[NPU_PR_MN] = m, p[NPU_PR_SN] = s;
	p[NPU_PR_AT] = npu_type(ta->dtype), p[NPU_PR_BT] = npu_type(tb->dtype), p[NPU_PR_YT] = npu_type(ty->dtype);
	p[NPU_PR_ZA] = za, p[NPU_PR_ZB] = zb, p[NPU_PR_ZY] = zy;
	qrange(ty->dtype, &p[NPU_PR_LO], &p[NPU_PR_HI]);
	int args[3] = {rt(c, a), rt(c, b), rt(c, y)};
	return add_op(c, NPU_K_PRELU_Q, args, 3, p, NPU_PR_COUNT);
}

/* Constant t broadcast (right-aligned) to the trailing shape norm, in
 * type dt: a derived constant (D elements). */
static int expand_const(lw *c, int t, const ir_shape *norm, ir_dtype dt)
{
	const ir_tensor *x = T(c, t);
	int64_t D = ir_shape_numel(norm), st[IR_MAX_RANK];
	bcast_strides(norm, &x->shape, st);
	void *buf = malloc(ir_dtype_size(dt) * (size_t)(D > 0 ? D : 1));
	if (!buf)
		return c->oom = true, -1;
	for (int64_t j = 0; j < D; j++) {
		int64_t rem = j, o = 0;
		for (int i = norm->rank - 1; i >= 0; i--) {
			o += (rem % norm->dim[i]) * st[i];
			rem /= norm->dim[i];
		}
		float v = (float)ir_elem_get(x->data, x->dtype, o);
		if (dt == IR_DTYPE_F16)
			((uint16_t *)buf)[j] = npu_f32_to_f16(v);
		else
			((float *)buf)[j] = v;
	}
	int r = add_const(c, buf, ir_dtype_size(dt) * (size_t)D);
	free(buf);
	return r;
}

/* instance_norm (per (n, c) over the spatial axes; scale, bias [C]) and
 * layer_norm (over the axes from `axis` on; scale, bias broadcast to them). */
static int lower_norm(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	int x = in_id(c, 0), s = in_id(c, 1), b = in_id(c, 2), y = out_id(c, 0);
	const ir_tensor *tx = T(c, x), *ty = T(c, y), *ts = T(c, s), *tb = T(c, b);
	int r = tx->shape.rank;
	if (!is_float(tx->dtype) || ty->dtype != tx->dtype)
		return unsupported(c, "%s on %s is not in the runtime (keep it in float)", ir_op_name(n->op),
				   ir_dtype_name(tx->dtype));
	int64_t R, D, C = 0;
	int32_t p[NPU_NM_COUNT] = {0};
	int args[6] = {rt(c, x), -1, -1, rt(c, y), -1, -1};
	p[NPU_NM_XT] = p[NPU_NM_YT] = npu_type(tx->dtype);
	p[NPU_NM_EPS] = fbits((float)ir_node_float(c->g, c->node, "epsilon", 1e-5));
	if (n->op == IR_OP_BATCH_NORM) {	/* statistics given (computed: else it is a conv) */
		const ir_tensor *t[4];
		if (r < 2 || tx->layout == IR_LAYOUT_NHWC || tx->layout == IR_LAYOUT_NLC)
			return unsupported(c, "the runtime's batch_norm is channel-first");
		C = tx->shape.dim[1];
		R = tx->shape.dim[0] * C;
		D = R > 0 ? ir_shape_numel(&tx->shape) / R : 0;
		for (int i = 0; i < 4; i++)
			if (!(t[i] = T(c, in_id(c, i + 1))) || ir_shape_numel(&t[i]->shape) != C ||
			    t[i]->dtype != t[0]->dtype || !is_float(t[0]->dtype))
				return unsupported(c, "batch_norm needs four float parameters of one per channel");
		args[1] = rt(c, in_id(c, 1)), args[2] = rt(c, in_id(c, 2));
		args[4] = rt(c, in_id(c, 3)), args[5] = rt(c, in_id(c, 4));
		p[NPU_NM_ST] = npu_type(t[0]->dtype);
	} else if (n->op == IR_OP_INSTANCE_NORM) {
		if (r < 2 || tx->layout == IR_LAYOUT_NHWC || tx->layout == IR_LAYOUT_NLC)
			return unsupported(c, "the runtime's instance_norm is channel-first");
		C = tx->shape.dim[1];
		R = tx->shape.dim[0] * C;
		D = R > 0 ? ir_shape_numel(&tx->shape) / R : 0;
		if (!ts || !tb || ir_shape_numel(&ts->shape) != C || ir_shape_numel(&tb->shape) != C ||
		    ts->dtype != tb->dtype || !is_float(ts->dtype))
			return unsupported(c, "instance_norm needs float scale and bias of one per channel");
		args[1] = rt(c, s), args[2] = rt(c, b), p[NPU_NM_ST] = npu_type(ts->dtype);
	} else {
		int ax = ir_axis(ir_node_int(c->g, c->node, "axis", -1), r);
		if (ax < 0)
			return unsupported(c, "bad layer_norm axis");
		ir_shape norm = {.rank = r - ax};
		memcpy(norm.dim, &tx->shape.dim[ax], sizeof(int64_t) * (size_t)norm.rank);
		D = ir_shape_numel(&norm);
		R = D > 0 ? ir_shape_numel(&tx->shape) / D : 0;
		bool exact = ts && ts->shape.rank == norm.rank && ir_shape_numel(&ts->shape) == D &&
			     (!tb || (tb->shape.rank == norm.rank && ir_shape_numel(&tb->shape) == D && tb->dtype == ts->dtype)) &&
			     is_float(ts->dtype);
		if (exact) {	/* the graph's tensors as they are (constant or not) */
			args[1] = rt(c, s), args[2] = tb ? rt(c, b) : -1, p[NPU_NM_ST] = npu_type(ts->dtype);
		} else {
			if (!ts || ts->kind != IR_KIND_CONST || (tb && tb->kind != IR_KIND_CONST))
				return unsupported(c, "layer_norm with broadcast scale or bias needs them constant");
			args[1] = expand_const(c, s, &norm, tx->dtype);
			args[2] = tb ? expand_const(c, b, &norm, tx->dtype) : -1;
			p[NPU_NM_ST] = npu_type(tx->dtype);
		}
	}
	if (R > INT32_MAX || D > INT32_MAX || D < 1)
		return unsupported(c, "a dimension is too large (or empty) for the runtime");
	p[NPU_NM_R] = (int32_t)R, p[NPU_NM_D] = (int32_t)D, p[NPU_NM_C] = (int32_t)C;
	return add_op(c, NPU_K_NORM_F, args, 6, p, NPU_NM_COUNT);
}

/* ---------------------------------------------------------------- driver */

/* An op plugin's kernel: float32 (a float island) or, for a plugin whose
 * rule keeps the scale, int8 on input 0's scale and zero point. */
static int lower_custom(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	const ir_plugin *pl;
	ir_diag pd;
	const npu_plugin_op *op = ir_custom_op(c->g, c->node, &pl, &pd);
	if (!op)
		return unsupported(c, "%s", pd.msg);
	bool i8 = T(c, out_id(c, 0))->dtype == IR_DTYPE_I8;
	if (i8 && op->quant != NPU_PQ_SAME_SCALE)
		return unsupported(c, "op plugin '%s' has no integer kernel (it runs as a float island)", pl->desc->name);
	int args[NPU_PK_MAX_TENSORS];
	if (n->n_inputs + n->n_outputs > NPU_PK_MAX_TENSORS)
		return unsupported(c, "op plugin '%s': more than %d tensors", pl->desc->name, NPU_PK_MAX_TENSORS);
	for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
		int t = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
		const ir_tensor *x = T(c, t);
		if (!x || x->dtype != (i8 ? IR_DTYPE_I8 : IR_DTYPE_F32))
			return unsupported(c, "op plugin '%s' runs on %s tensors, '%s' is %s", pl->desc->name,
					   i8 ? "int8" : "float32", x ? x->name : "?", x ? ir_dtype_name(x->dtype) : "absent");
		if (i8 && (!x->quant || x->quant->n != 1 || !T(c, n->inputs[0])->quant ||
			   x->quant->scale[0] != T(c, n->inputs[0])->quant->scale[0] ||
			   x->quant->zero_point[0] != T(c, n->inputs[0])->quant->zero_point[0]))
			return unsupported(c, "op plugin '%s' keeps the scale: '%s' needs input 0's scale and zero point",
					   pl->desc->name, x->name);
		args[i] = rt(c, t);
	}
	int32_t par[NPU_CU_COUNT];
	par[NPU_CU_FN] = ir_custom_fn_id(pl, i8);
	if (par[NPU_CU_FN] < 0)
		return unsupported(c, "too many op plugin kernels in one process");
	if (ir_custom_words(c->g, c->node, i8, par + NPU_CU_WORDS, &pd))
		return unsupported(c, "%s", pd.msg);
	c->l->m.custom = ir_custom_call;
	return add_op(c, NPU_K_CUSTOM, args, n->n_inputs + n->n_outputs, par, NPU_CU_COUNT);
}

static int lower_node(lw *c)
{
	const ir_node *n = ir_graph_node(c->g, c->node);
	for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
		int t = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
		bool qbias = i == 2 && (n->op == IR_OP_CONV || n->op == IR_OP_FULLY_CONNECTED ||
					n->op == IR_OP_CONV_TRANSPOSE);	/* int64 for 16x16 bits */
		if (t >= 0 && (npu_type(T(c, t)->dtype) < 0 ||
			       (T(c, t)->dtype == IR_DTYPE_I64 && !i64_ok(n->op) && !qbias)))
			return unsupported(c, "tensor '%s' is %s, which the runtime does not have", T(c, t)->name,
					   ir_dtype_name(T(c, t)->dtype));
	}
	switch (n->op) {
	case IR_OP_CONV: case IR_OP_FULLY_CONNECTED: return lower_conv(c);
	case IR_OP_GEMM: case IR_OP_MATMUL: return lower_gemm(c);
	case IR_OP_BATCH_NORM: return lower_batch_norm(c);
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_MAX: case IR_OP_MIN:
		return lower_binary(c);
	case IR_OP_LUT: return lower_lut(c);
	case IR_OP_MAX_POOL: case IR_OP_AVG_POOL: case IR_OP_GLOBAL_AVG_POOL: case IR_OP_GLOBAL_MAX_POOL:
		return lower_pool(c);
	case IR_OP_SOFTMAX: case IR_OP_LOG_SOFTMAX: return lower_softmax(c);
	case IR_OP_REDUCE_SUM: case IR_OP_REDUCE_MEAN: case IR_OP_REDUCE_MAX: case IR_OP_REDUCE_MIN:
		return lower_reduce(c);
	case IR_OP_GRU: case IR_OP_LSTM: case IR_OP_RNN: return lower_rnn(c);
	case IR_OP_RESHAPE: case IR_OP_FLATTEN: case IR_OP_SQUEEZE: case IR_OP_UNSQUEEZE: case IR_OP_IDENTITY:
		return lower_view(c);
	case IR_OP_TRANSPOSE: return lower_transpose(c);
	case IR_OP_CONCAT: return lower_concat(c);
	case IR_OP_SPLIT: return lower_split(c);
	case IR_OP_SLICE: return lower_slice(c);
	case IR_OP_PAD: return lower_pad(c);
	case IR_OP_DEPTH_TO_SPACE: case IR_OP_SPACE_TO_DEPTH: return lower_blocks(c);
	case IR_OP_QUANTIZE: case IR_OP_DEQUANTIZE: return lower_quantize(c);
	case IR_OP_CAST: return lower_cast(c);
	case IR_OP_GATHER: return lower_gather(c);
	case IR_OP_ARGMAX: return lower_argmax(c);
	case IR_OP_LRN: return lower_lrn(c);
	case IR_OP_BATCH_TO_SPACE: case IR_OP_SPACE_TO_BATCH: return lower_batch_space(c);
	case IR_OP_CONV_TRANSPOSE: return lower_conv_transpose(c);
	case IR_OP_RESIZE: return lower_resize(c);
	case IR_OP_PRELU:
		return is_int(T(c, out_id(c, 0))->dtype) ? lower_prelu_q(c) : lower_binary(c);
	case IR_OP_POW: return lower_binary(c);
	case IR_OP_INSTANCE_NORM: case IR_OP_LAYER_NORM: return lower_norm(c);
	case IR_OP_CUSTOM: return lower_custom(c);
	default:
		if (npu_unary(n->op) >= 0 || n->op == IR_OP_RELU6)
			return lower_unary(c);
		return unsupported(c, "%s is not in the runtime", ir_op_name(n->op));
	}
}

bool ir_graph_is_lowered(const ir_graph *g)
{
	for (int i = 0; i < ir_graph_node_count(g); i++)
		if (ir_graph_node(g, i)->precision != IR_PREC_NONE)
			return true;
	return false;
}

static int add_string(lw *c, const char *s)
{
	ir_lowered *l = c->l;
	size_t n = strlen(s) + 1, at = l->strings_size;
	char *p = grow(c, l->strings, &c->cap_s, at + n, 1);
	if (!p)
		return -1;
	l->strings = p;
	memcpy(p + at, s, n);
	l->strings_size += (uint32_t)n;
	return (int)at;
}

static int io_table(lw *c, bool out)
{
	const ir_graph *g = c->g;
	ir_lowered *l = c->l;
	int n = out ? ir_graph_output_count(g) : ir_graph_input_count(g);
	npu_io *io = calloc((size_t)n + 1, sizeof *io);
	if (!io)
		return c->oom = true, -1;
	if (out)
		l->outputs = io, l->m.n_outputs = (uint32_t)n;
	else
		l->inputs = io, l->m.n_inputs = (uint32_t)n;
	for (int i = 0; i < n; i++) {
		int t = out ? ir_graph_output(g, i) : ir_graph_input(g, i);
		const ir_tensor *x = ir_graph_tensor(g, t);
		int s = add_string(c, x->name), ty = npu_type(x->dtype);
		if (s < 0)
			return -1;
		if (ty < 0 || x->nbytes > UINT32_MAX || ir_tensor_nbytes(x) > UINT32_MAX)
			return ir_fail(c->d, -1, t, "graph %s '%s' is %s, which the runtime does not have",
				       out ? "output" : "input", x->name, ir_dtype_name(x->dtype));
		io[i].name = (uint32_t)s;
		io[i].dtype = (uint32_t)ty;
		io[i].rank = (uint32_t)x->shape.rank;
		for (int k = 0; k < x->shape.rank; k++)
			io[i].shape[k] = (int32_t)x->shape.dim[k];
		if (x->quant && x->quant->n == 1) {
			io[i].scale = x->quant->scale[0];
			io[i].zero_point = x->quant->zero_point[0];
		}
		io[i].nbytes = (uint32_t)ir_tensor_nbytes(x);
	}
	return 0;
}

int ir_lower(const ir_graph *g, ir_lowered *l, ir_pass_note note, void *user, ir_diag *d)
{
	return ir_lower_with(g, NULL, l, note, user, d);
}

int ir_lower_with(const ir_graph *g, const ir_lower_opts *o, ir_lowered *l, ir_pass_note note, void *user,
		  ir_diag *d)
{
	memset(l, 0, sizeof *l);
	lw c = {.g = g, .l = l, .d = d, .note = note, .user = user};
	int nt = ir_graph_tensor_count(g), nn = ir_graph_node_count(g);
	ir_plan_opts po = {.io_outside = true};
	if (ir_plan_make(g, &po, &l->plan, d))
		return -1;
	/* the scratch budget: given, or what the SRAM leaves beside the
	 * activations (kept to int32: a budget beyond 2 GiB bounds nothing) */
	int64_t smax = 0;
	if (o && o->scratch_max)
		smax = o->scratch_max;
	else if (o && o->sram_bytes > ((l->plan.arena + 15) & ~(int64_t)15))
		smax = o->sram_bytes - ((l->plan.arena + 15) & ~(int64_t)15);
	c.smax = smax > INT32_MAX ? 0 : (uint32_t)smax;
	l->rt_of = malloc(sizeof(int) * (size_t)(nt + 1));
	if (!l->rt_of)
		goto oom;
	for (int t = 0; t < nt; t++)
		l->rt_of[t] = -1;
	/* graph inputs and outputs first, in order: their runtime tensors are
	 * then easy to find */
	for (int i = 0; i < ir_graph_input_count(g); i++)
		rt(&c, ir_graph_input(g, i));
	for (int i = 0; i < ir_graph_output_count(g); i++)
		rt(&c, ir_graph_output(g, i));
	for (int i = 0; i < nn && !c.oom; i++) {
		c.node = i;
		lower_node(&c);
	}
	c.node = -1;
	if (c.oom)
		goto oom;
	if (c.errors) {
		if (c.errors > 1) {
			char more[64];
			size_t len = strlen(d->msg);
			int k = snprintf(more, sizeof more, " (and %d more problems)", c.errors - 1);
			if (len + (size_t)k < sizeof d->msg)
				memcpy(d->msg + len, more, (size_t)k + 1);
		}
		ir_lowered_free(l);
		return -1;
	}
	if (io_table(&c, false) || io_table(&c, true))
		goto fail;
	if (l->plan.arena > UINT32_MAX - 64 - (int64_t)l->m.scratch_size) {
		ir_fail(d, -1, -1, "the arena is too large for the runtime");
		goto fail;
	}
	l->m.scratch_offset = (uint32_t)((l->plan.arena + 15) & ~(int64_t)15);
	l->m.arena_size = l->m.scratch_offset + l->m.scratch_size;
	l->m.tensors = l->tensors;
	l->m.ops = l->ops;
	l->m.args = l->args;
	l->m.params = l->params;
	l->m.weights = l->weights;
	l->m.inputs = l->inputs;
	l->m.outputs = l->outputs;
	l->m.strings = l->strings;
	return 0;
oom:
	ir_fail(d, -1, -1, "out of memory");
fail:
	ir_lowered_free(l);
	return -1;
}

void ir_lowered_free(ir_lowered *l)
{
	free(l->tensors);
	free(l->ops);
	free(l->args);
	free(l->params);
	free(l->weights);
	free(l->inputs);
	free(l->outputs);
	free(l->strings);
	free(l->op_node);
	free(l->tensor_of);
	free(l->rt_of);
	ir_plan_free(&l->plan);
	memset(l, 0, sizeof *l);
}
