/* ir_shape.c - the op table, shape inference, MAC counts and verification. */
#include "ir_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Context of one node's shape inference. */
typedef struct {
	const ir_graph *g;
	int id;
	const ir_node *n;
	const ir_tensor *in[8];	/* first inputs (NULL if absent) */
	int nin;
	ir_dtype *dt;		/* per output */
	ir_shape *sh;
	ir_diag *d;
} sctx;

#define FAIL(c, ...) ir_fail((c)->d, (c)->id, -1, __VA_ARGS__)

static const ir_tensor *IN(const sctx *c, int i) { return i < c->nin && i < 8 ? c->in[i] : NULL; }

/* Channel-last when the first input says so. */
static bool channel_last(const sctx *c)
{
	const ir_tensor *x = IN(c, 0);
	return x && (x->layout == IR_LAYOUT_NHWC || x->layout == IR_LAYOUT_NLC);
}

static int chan_axis(const sctx *c, int rank) { return channel_last(c) ? rank - 1 : 1; }
static int first_spatial(const sctx *c) { return channel_last(c) ? 1 : 2; }

static int64_t ai(const sctx *c, const char *k, int64_t def) { return ir_node_int(c->g, c->id, k, def); }

/* Read an ints attribute of exactly n values (or absent: filled with def). */
static int ints_n(const sctx *c, const char *k, int n, int64_t def, int64_t *out)
{
	const int64_t *v;
	int m = ir_node_ints(c->g, c->id, k, &v);
	if (m < 0) {
		for (int i = 0; i < n; i++)
			out[i] = def;
		return 0;
	}
	if (m != n)
		return FAIL(c, "attribute '%s' has %d values, expected %d", k, m, n);
	memcpy(out, v, sizeof *v * (size_t)n);
	return 0;
}

static int need_rank(const sctx *c, int i, int lo, int hi)
{
	const ir_tensor *t = IN(c, i);
	if (!t)
		return FAIL(c, "input %d is required", i);
	if (t->shape.rank < lo || t->shape.rank > hi)
		return FAIL(c, "input %d ('%s') has rank %d, expected %d..%d", i, t->name,
			    t->shape.rank, lo, hi);
	return 0;
}

static int need_float(const sctx *c, int i)
{
	const ir_tensor *t = IN(c, i);
	if (t && t->dtype != IR_DTYPE_F32 && t->dtype != IR_DTYPE_F16 && t->dtype != IR_DTYPE_BF16)
		return FAIL(c, "input %d ('%s') is %s, expected a float type", i, t->name,
			    ir_dtype_name(t->dtype));
	return 0;
}

static void out1(sctx *c, ir_dtype t, const ir_shape *s)
{
	c->dt[0] = t;
	c->sh[0] = *s;
}

/* ---------------------------------------------------------------- convolution */

static int conv_geometry(sctx *c, int nsp, int64_t *st, int64_t *pads, int64_t *dil)
{
	if (ints_n(c, "strides", nsp, 1, st) || ints_n(c, "pads", 2 * nsp, 0, pads) ||
	    ints_n(c, "dilations", nsp, 1, dil))
		return -1;
	for (int i = 0; i < nsp; i++) {
		if (st[i] < 1 || dil[i] < 1 || st[i] > IR_MAX_DIM || dil[i] > IR_MAX_DIM)
			return FAIL(c, "strides and dilations must be positive");
		if (pads[i] < 0 || pads[nsp + i] < 0 || pads[i] > IR_MAX_DIM || pads[nsp + i] > IR_MAX_DIM)
			return FAIL(c, "pads must be non-negative");
	}
	return 0;
}

static int ir_shape_conv(sctx *c)
{
	if (need_rank(c, 0, 3, 5) || need_float(c, 0))
		return -1;
	const ir_tensor *x = IN(c, 0), *w = IN(c, 1), *b = IN(c, 2);
	int r = x->shape.rank, nsp = r - 2, ca = chan_axis(c, r), sp = first_spatial(c);
	if (need_rank(c, 1, r, r))
		return -1;
	int64_t st[3], pads[6], dil[3], group = ai(c, "group", 1);
	if (conv_geometry(c, nsp, st, pads, dil))
		return -1;
	int64_t C = x->shape.dim[ca], O = w->shape.dim[0];
	if (group < 1 || C % group || O % group || w->shape.dim[1] * group != C)
		return FAIL(c, "%lld input channels do not fit weights %lldx%lld with group %lld",
			    (long long)C, (long long)O, (long long)w->shape.dim[1], (long long)group);
	if (b && (b->shape.rank != 1 || b->shape.dim[0] != O))
		return FAIL(c, "bias must have %lld elements", (long long)O);
	ir_shape o = x->shape;
	o.dim[ca] = O;
	for (int i = 0; i < nsp; i++) {
		int64_t k = w->shape.dim[2 + i], in = x->shape.dim[sp + i];
		int64_t span = dil[i] * (k - 1) + 1, v = in + pads[i] + pads[nsp + i] - span;
		if (v < 0)
			return FAIL(c, "kernel (%lld dilated) is larger than padded input (%lld)",
				    (long long)span, (long long)(in + pads[i] + pads[nsp + i]));
		o.dim[sp + i] = v / st[i] + 1;
	}
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_conv_transpose(sctx *c)
{
	if (need_rank(c, 0, 3, 5) || need_float(c, 0))
		return -1;
	const ir_tensor *x = IN(c, 0), *w = IN(c, 1), *b = IN(c, 2);
	int r = x->shape.rank, nsp = r - 2, ca = chan_axis(c, r), sp = first_spatial(c);
	if (need_rank(c, 1, r, r))
		return -1;
	int64_t st[3], pads[6], dil[3], op[3], group = ai(c, "group", 1);
	if (conv_geometry(c, nsp, st, pads, dil) || ints_n(c, "output_padding", nsp, 0, op))
		return -1;
	int64_t C = x->shape.dim[ca];
	if (group < 1 || w->shape.dim[0] != C || C % group)
		return FAIL(c, "%lld input channels do not fit weights of %lld with group %lld",
			    (long long)C, (long long)w->shape.dim[0], (long long)group);
	int64_t O = w->shape.dim[1] * group;
	if (b && (b->shape.rank != 1 || b->shape.dim[0] != O))
		return FAIL(c, "bias must have %lld elements", (long long)O);
	ir_shape o = x->shape;
	o.dim[ca] = O;
	for (int i = 0; i < nsp; i++) {
		int64_t k = w->shape.dim[2 + i], in = x->shape.dim[sp + i];
		if (op[i] < 0 || op[i] > IR_MAX_DIM)
			return FAIL(c, "bad output_padding");
		int64_t v = st[i] * (in - 1) + op[i] + (k - 1) * dil[i] + 1 - pads[i] - pads[nsp + i];
		if (v < 1)
			return FAIL(c, "output size %lld is not positive", (long long)v);
		o.dim[sp + i] = v;
	}
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_fully_connected(sctx *c)
{
	if (need_rank(c, 0, 1, 8) || need_rank(c, 1, 2, 2) || need_float(c, 0))
		return -1;
	const ir_tensor *x = IN(c, 0), *w = IN(c, 1), *b = IN(c, 2);
	int r = x->shape.rank;
	if (x->shape.dim[r - 1] != w->shape.dim[1])
		return FAIL(c, "input has %lld features, weights expect %lld",
			    (long long)x->shape.dim[r - 1], (long long)w->shape.dim[1]);
	if (b && (b->shape.rank != 1 || b->shape.dim[0] != w->shape.dim[0]))
		return FAIL(c, "bias must have %lld elements", (long long)w->shape.dim[0]);
	ir_shape o = x->shape;
	o.dim[r - 1] = w->shape.dim[0];
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_matmul(sctx *c)
{
	if (need_rank(c, 0, 1, 8) || need_rank(c, 1, 1, 8))
		return -1;
	ir_shape a = IN(c, 0)->shape, b = IN(c, 1)->shape;
	bool va = a.rank == 1, vb = b.rank == 1;
	if (va) {
		a.rank = 2;
		a.dim[1] = a.dim[0];
		a.dim[0] = 1;
	}
	if (vb) {
		b.rank = 2;
		b.dim[1] = 1;
	}
	if (a.dim[a.rank - 1] != b.dim[b.rank - 2])
		return FAIL(c, "matmul inner dimensions differ (%lld vs %lld)",
			    (long long)a.dim[a.rank - 1], (long long)b.dim[b.rank - 2]);
	ir_shape ba = {.rank = a.rank - 2}, bb = {.rank = b.rank - 2}, o;
	memcpy(ba.dim, a.dim, sizeof(int64_t) * (size_t)ba.rank);
	memcpy(bb.dim, b.dim, sizeof(int64_t) * (size_t)bb.rank);
	if (ir_shape_broadcast(&ba, &bb, &o) < 0 || o.rank + 2 > IR_MAX_RANK)
		return FAIL(c, "matmul batch dimensions do not broadcast");
	if (!va)
		o.dim[o.rank++] = a.dim[a.rank - 2];
	if (!vb)
		o.dim[o.rank++] = b.dim[b.rank - 1];
	out1(c, IN(c, 0)->dtype, &o);
	return 0;
}

static int ir_shape_gemm(sctx *c)
{
	if (need_rank(c, 0, 2, 2) || need_rank(c, 1, 2, 2))
		return -1;
	const ir_tensor *a = IN(c, 0), *b = IN(c, 1), *cc = IN(c, 2);
	int ta = ai(c, "trans_a", 0) != 0, tb = ai(c, "trans_b", 0) != 0;
	int64_t M = a->shape.dim[ta], K = a->shape.dim[!ta], K2 = b->shape.dim[tb], N = b->shape.dim[!tb];
	if (K != K2)
		return FAIL(c, "gemm inner dimensions differ (%lld vs %lld)", (long long)K, (long long)K2);
	ir_shape o = {.rank = 2, .dim = {M, N}}, t;
	if (cc && (ir_shape_broadcast(&cc->shape, &o, &t) < 0 || !ir_shape_equal(&t, &o)))
		return FAIL(c, "gemm C does not broadcast to %lldx%lld", (long long)M, (long long)N);
	out1(c, a->dtype, &o);
	return 0;
}

/* Inputs from..to must be vectors of the channel count. */
static int per_channel(sctx *c, int from, int to, int64_t C)
{
	for (int i = from; i <= to; i++) {
		const ir_tensor *t = IN(c, i);
		if (!t)
			return FAIL(c, "input %d is required", i);
		if (ir_shape_numel(&t->shape) != C || t->shape.rank != 1)
			return FAIL(c, "input %d ('%s') must have %lld elements", i, t->name, (long long)C);
	}
	return 0;
}

static int ir_shape_batch_norm(sctx *c)
{
	if (need_rank(c, 0, 2, 8) || need_float(c, 0))
		return -1;
	const ir_tensor *x = IN(c, 0);
	if (per_channel(c, 1, 4, x->shape.dim[chan_axis(c, x->shape.rank)]))
		return -1;
	out1(c, x->dtype, &x->shape);
	return 0;
}

static int ir_shape_instance_norm(sctx *c)
{
	if (need_rank(c, 0, 3, 8) || need_float(c, 0))
		return -1;
	const ir_tensor *x = IN(c, 0);
	if (per_channel(c, 1, 2, x->shape.dim[chan_axis(c, x->shape.rank)]))
		return -1;
	out1(c, x->dtype, &x->shape);
	return 0;
}

static int ir_shape_layer_norm(sctx *c)
{
	if (need_rank(c, 0, 1, 8) || need_float(c, 0))
		return -1;
	const ir_tensor *x = IN(c, 0);
	int axis = ir_axis(ai(c, "axis", -1), x->shape.rank);
	if (axis < 0)
		return FAIL(c, "axis out of range");
	ir_shape norm = {.rank = x->shape.rank - axis}, t;
	memcpy(norm.dim, &x->shape.dim[axis], sizeof(int64_t) * (size_t)norm.rank);
	for (int i = 1; i < 3; i++)
		if (IN(c, i) && (ir_shape_broadcast(&IN(c, i)->shape, &norm, &t) < 0 ||
				 !ir_shape_equal(&t, &norm)))
			return FAIL(c, "input %d does not broadcast to the normalized shape", i);
	out1(c, x->dtype, &x->shape);
	return 0;
}

/* ---------------------------------------------------------------- elementwise */

static int ir_shape_bcast(sctx *c)
{
	const ir_tensor *a = IN(c, 0), *b = IN(c, 1);
	if (!a || !b)
		return FAIL(c, "two inputs are required");
	if (a->dtype != b->dtype && c->n->op != IR_OP_POW)
		return FAIL(c, "input types differ (%s and %s)", ir_dtype_name(a->dtype),
			    ir_dtype_name(b->dtype));
	ir_shape o;
	if (c->n->op == IR_OP_PRELU) {
		if (ir_shape_broadcast(&a->shape, &b->shape, &o) < 0 || !ir_shape_equal(&o, &a->shape))
			return FAIL(c, "slope does not broadcast to the input");
	} else if (ir_shape_broadcast(&a->shape, &b->shape, &o) < 0) {
		char s1[64], s2[64];
		return FAIL(c, "shapes %s and %s do not broadcast", ir_shape_str(&a->shape, s1, 64),
			    ir_shape_str(&b->shape, s2, 64));
	}
	out1(c, a->dtype, &o);
	return 0;
}

static int ir_shape_unary(sctx *c)
{
	if (!IN(c, 0))
		return FAIL(c, "input 0 is required");
	if (c->n->op != IR_OP_IDENTITY && c->n->op != IR_OP_NEG && c->n->op != IR_OP_ABS &&
	    c->n->op != IR_OP_RELU && need_float(c, 0))
		return -1;
	out1(c, IN(c, 0)->dtype, &IN(c, 0)->shape);
	return 0;
}

static int ir_shape_softmax(sctx *c)
{
	if (need_rank(c, 0, 1, 8) || need_float(c, 0))
		return -1;
	if (ir_axis(ai(c, "axis", -1), IN(c, 0)->shape.rank) < 0)
		return FAIL(c, "axis out of range");
	out1(c, IN(c, 0)->dtype, &IN(c, 0)->shape);
	return 0;
}

/* lrn: across the channels of [N, C, ...] (channel-first, rank >= 3) */
static int ir_shape_lrn(sctx *c)
{
	if (need_rank(c, 0, 3, 8) || need_float(c, 0))
		return -1;
	if (ai(c, "size", 1) < 1)
		return FAIL(c, "size must be at least 1");
	out1(c, IN(c, 0)->dtype, &IN(c, 0)->shape);
	return 0;
}

/* ---------------------------------------------------------------- pooling */

static int ir_shape_pool(sctx *c)
{
	const int64_t *k;
	int nsp = ir_node_ints(c->g, c->id, "kernel", &k);
	if (nsp < 1 || nsp > 3)
		return FAIL(c, "attribute 'kernel' must have 1 to 3 values");
	if (need_rank(c, 0, nsp + 2, nsp + 2))
		return -1;
	const ir_tensor *x = IN(c, 0);
	int sp = first_spatial(c);
	int64_t st[3], pads[6], dil[3];
	if (conv_geometry(c, nsp, st, pads, dil))
		return -1;
	bool ceil_mode = ai(c, "ceil_mode", 0) != 0;
	ir_shape o = x->shape;
	for (int i = 0; i < nsp; i++) {
		int64_t in = x->shape.dim[sp + i];
		if (k[i] < 1 || k[i] > IR_MAX_DIM)
			return FAIL(c, "kernel sizes must be positive");
		if (pads[i] >= k[i] || pads[nsp + i] >= k[i])
			return FAIL(c, "padding must be smaller than the kernel");
		int64_t span = dil[i] * (k[i] - 1) + 1, v = in + pads[i] + pads[nsp + i] - span;
		if (v < 0)
			return FAIL(c, "kernel is larger than the padded input");
		int64_t out = (ceil_mode ? (v + st[i] - 1) / st[i] : v / st[i]) + 1;
		/* The last window must start inside the input or left padding. */
		if (ceil_mode && (out - 1) * st[i] >= in + pads[i])
			out--;
		o.dim[sp + i] = out;
	}
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_global_pool(sctx *c)
{
	if (need_rank(c, 0, 3, 5))
		return -1;
	const ir_tensor *x = IN(c, 0);
	ir_shape o = x->shape;
	int sp = first_spatial(c);
	for (int i = 0; i < o.rank - 2; i++)
		o.dim[sp + i] = 1;
	out1(c, x->dtype, &o);
	return 0;
}

/* ---------------------------------------------------------------- reductions */

/* Mark axes listed in attribute key (all if absent or empty). */
static int axes_mask(sctx *c, const char *key, int rank, bool *mask, bool all_if_empty)
{
	const int64_t *v;
	int n = ir_node_ints(c->g, c->id, key, &v);
	for (int i = 0; i < rank; i++)
		mask[i] = all_if_empty && n <= 0;
	for (int i = 0; i < n; i++) {
		int a = ir_axis(v[i], rank);
		if (a < 0 || mask[a])
			return FAIL(c, "axis %lld out of range or repeated", (long long)v[i]);
		mask[a] = true;
	}
	return 0;
}

static int ir_shape_reduce(sctx *c)
{
	if (need_rank(c, 0, 0, 8))
		return -1;
	const ir_tensor *x = IN(c, 0);
	bool mask[IR_MAX_RANK], keep = ai(c, "keepdims", 1) != 0;
	if (axes_mask(c, "axes", x->shape.rank, mask, true))
		return -1;
	ir_shape o = {0};
	for (int i = 0; i < x->shape.rank; i++)
		if (!mask[i])
			o.dim[o.rank++] = x->shape.dim[i];
		else if (keep)
			o.dim[o.rank++] = 1;
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_argmax(sctx *c)
{
	if (need_rank(c, 0, 1, 8))
		return -1;
	const ir_tensor *x = IN(c, 0);
	int axis = ir_axis(ai(c, "axis", 0), x->shape.rank);
	if (axis < 0)
		return FAIL(c, "axis out of range");
	ir_shape o = x->shape;
	if (ai(c, "keepdims", 1)) {
		o.dim[axis] = 1;
	} else {
		memmove(&o.dim[axis], &o.dim[axis + 1], sizeof(int64_t) * (size_t)(o.rank - axis - 1));
		o.rank--;
	}
	out1(c, IR_DTYPE_I64, &o);
	return 0;
}

/* ---------------------------------------------------------------- data movement */

static int ir_shape_concat(sctx *c)
{
	if (need_rank(c, 0, 1, 8))
		return -1;
	const ir_tensor *x = IN(c, 0);
	int r = x->shape.rank, axis = ir_axis(ai(c, "axis", 0), r);
	if (axis < 0)
		return FAIL(c, "axis out of range");
	ir_shape o = x->shape;
	o.dim[axis] = 0;
	for (int i = 0; i < c->n->n_inputs; i++) {
		const ir_tensor *t = ir_graph_tensor(c->g, c->n->inputs[i]);
		if (!t)
			return FAIL(c, "input %d is required", i);
		/* a quantized concat rescales (and may widen) its inputs */
		if (t->shape.rank != r || (c->n->precision == IR_PREC_NONE && t->dtype != x->dtype))
			return FAIL(c, "input %d ('%s') differs in rank or type", i, t->name);
		for (int j = 0; j < r; j++)
			if (j != axis && t->shape.dim[j] != x->shape.dim[j])
				return FAIL(c, "input %d ('%s') differs in dimension %d", i, t->name, j);
		o.dim[axis] += t->shape.dim[axis];
	}
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_split(sctx *c)
{
	if (need_rank(c, 0, 1, 8))
		return -1;
	const ir_tensor *x = IN(c, 0);
	int no = c->n->n_outputs, axis = ir_axis(ai(c, "axis", 0), x->shape.rank);
	if (axis < 0)
		return FAIL(c, "axis out of range");
	int64_t total = x->shape.dim[axis], sum = 0;
	const int64_t *sz;
	int n = ir_node_ints(c->g, c->id, "split", &sz);
	if (n >= 0 && n != no)
		return FAIL(c, "'split' has %d sizes for %d outputs", n, no);
	if (n < 0 && total % no)
		return FAIL(c, "dimension %lld does not split evenly into %d outputs", (long long)total, no);
	for (int i = 0; i < no; i++) {
		int64_t s = n >= 0 ? sz[i] : total / no;
		if (s < 0 || s > total)
			return FAIL(c, "bad split size %lld", (long long)s);
		c->dt[i] = x->dtype;
		c->sh[i] = x->shape;
		c->sh[i].dim[axis] = s;
		sum += s;
	}
	if (sum != total)
		return FAIL(c, "split sizes add up to %lld, dimension is %lld", (long long)sum, (long long)total);
	return 0;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* ONNX Slice: resolve one axis into first index, step and count. */
int ir_slice_axis(int64_t dim, int64_t start, int64_t end, int64_t step,
		  int64_t *first, int64_t *count)
{
	if (step == 0)
		return -1;
	if (start < 0)
		start += dim;
	if (end < 0 && end > INT64_MIN / 2)
		end += dim;
	if (step > 0) {
		start = clamp64(start, 0, dim);
		end = clamp64(end, 0, dim);
		*count = end > start ? (end - start + step - 1) / step : 0;
	} else {
		start = clamp64(start, 0, dim - 1);
		end = clamp64(end, -1, dim - 1);
		*count = start > end ? (start - end + (-step) - 1) / (-step) : 0;
	}
	*first = start;
	return 0;
}

static int ir_shape_slice(sctx *c)
{
	if (need_rank(c, 0, 1, 8))
		return -1;
	const ir_tensor *x = IN(c, 0);
	const int64_t *st, *en, *ax = NULL, *sp = NULL;
	int n = ir_node_ints(c->g, c->id, "starts", &st);
	if (n < 0 || ir_node_ints(c->g, c->id, "ends", &en) != n)
		return FAIL(c, "'starts' and 'ends' are required and of equal length");
	int na = ir_node_ints(c->g, c->id, "axes", &ax), ns = ir_node_ints(c->g, c->id, "steps", &sp);
	if ((na >= 0 && na != n) || (ns >= 0 && ns != n))
		return FAIL(c, "'axes' and 'steps' must match 'starts' in length");
	ir_shape o = x->shape;
	bool seen[IR_MAX_RANK] = {0};
	for (int i = 0; i < n; i++) {
		int a = ir_axis(na >= 0 ? ax[i] : i, x->shape.rank);
		int64_t first, count;
		if (a < 0 || seen[a])
			return FAIL(c, "slice axis out of range or repeated");
		seen[a] = true;
		if (ir_slice_axis(x->shape.dim[a], st[i], en[i], ns >= 0 ? sp[i] : 1, &first, &count))
			return FAIL(c, "slice step must not be zero");
		o.dim[a] = count;
	}
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_reshape(sctx *c)
{
	if (need_rank(c, 0, 0, 8))
		return -1;
	const ir_tensor *x = IN(c, 0);
	const int64_t *v;
	int n = ir_node_ints(c->g, c->id, "shape", &v);
	if (n < 0 || n > IR_MAX_RANK)
		return FAIL(c, "attribute 'shape' is required (rank <= %d)", IR_MAX_RANK);
	ir_shape o = {.rank = n};
	int infer = -1;
	int64_t known = 1;
	for (int i = 0; i < n; i++) {
		int64_t d = v[i];
		if (d == 0 && i < x->shape.rank)
			d = x->shape.dim[i];
		if (d == -1) {
			if (infer >= 0)
				return FAIL(c, "more than one -1 in 'shape'");
			infer = i;
			d = 1;
		} else if (d < 0 || d > IR_MAX_DIM) {
			return FAIL(c, "bad dimension %lld in 'shape'", (long long)v[i]);
		}
		o.dim[i] = d;
		if (ir_shape_numel(&(ir_shape){.rank = 1, .dim = {known}}) < 0 || (d && known > IR_MAX_ELEMS / d))
			return FAIL(c, "'shape' is too large");
		known *= d;
	}
	int64_t total = ir_shape_numel(&x->shape);
	if (infer >= 0) {
		if (known == 0 || total % known)
			return FAIL(c, "cannot infer -1 in 'shape'");
		o.dim[infer] = total / known;
	}
	if (ir_shape_numel(&o) != total) {
		char s1[64], s2[64];
		return FAIL(c, "cannot reshape %s into %s", ir_shape_str(&x->shape, s1, 64),
			    ir_shape_str(&o, s2, 64));
	}
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_flatten(sctx *c)
{
	if (need_rank(c, 0, 0, 8))
		return -1;
	const ir_tensor *x = IN(c, 0);
	int64_t axis = ai(c, "axis", 1), r = x->shape.rank;
	if (axis < 0)
		axis += r;
	if (axis < 0 || axis > r)
		return FAIL(c, "axis out of range");
	ir_shape o = {.rank = 2, .dim = {1, 1}};
	for (int i = 0; i < r; i++)
		o.dim[i >= axis] *= x->shape.dim[i];
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_squeeze(sctx *c)
{
	if (need_rank(c, 0, 0, 8))
		return -1;
	const ir_tensor *x = IN(c, 0);
	bool mask[IR_MAX_RANK];
	const int64_t *v;
	bool all = ir_node_ints(c->g, c->id, "axes", &v) <= 0;
	if (axes_mask(c, "axes", x->shape.rank, mask, false))
		return -1;
	ir_shape o = {0};
	for (int i = 0; i < x->shape.rank; i++) {
		bool drop = all ? x->shape.dim[i] == 1 : mask[i];
		if (drop && x->shape.dim[i] != 1)
			return FAIL(c, "cannot squeeze dimension %d of size %lld", i, (long long)x->shape.dim[i]);
		if (!drop)
			o.dim[o.rank++] = x->shape.dim[i];
	}
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_unsqueeze(sctx *c)
{
	if (need_rank(c, 0, 0, 8))
		return -1;
	const ir_tensor *x = IN(c, 0);
	const int64_t *v;
	int n = ir_node_ints(c->g, c->id, "axes", &v);
	if (n < 1 || x->shape.rank + n > IR_MAX_RANK)
		return FAIL(c, "attribute 'axes' is required and the result rank at most %d", IR_MAX_RANK);
	int r = x->shape.rank + n;
	bool mask[IR_MAX_RANK];
	if (axes_mask(c, "axes", r, mask, false))
		return -1;
	ir_shape o = {.rank = r};
	for (int i = 0, k = 0; i < r; i++)
		o.dim[i] = mask[i] ? 1 : x->shape.dim[k++];
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_transpose(sctx *c)
{
	if (need_rank(c, 0, 0, 8))
		return -1;
	const ir_tensor *x = IN(c, 0);
	int r = x->shape.rank;
	int64_t perm[IR_MAX_RANK];
	for (int i = 0; i < r; i++)
		perm[i] = r - 1 - i;
	if (ints_n(c, "perm", r, 0, perm) && ir_node_attr(c->g, c->id, "perm"))
		return -1;
	bool seen[IR_MAX_RANK] = {0};
	ir_shape o = {.rank = r};
	for (int i = 0; i < r; i++) {
		if (perm[i] < 0 || perm[i] >= r || seen[perm[i]])
			return FAIL(c, "'perm' is not a permutation");
		seen[perm[i]] = true;
		o.dim[i] = x->shape.dim[perm[i]];
	}
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_pad(sctx *c)
{
	if (need_rank(c, 0, 0, 8))
		return -1;
	const ir_tensor *x = IN(c, 0);
	int r = x->shape.rank;
	int64_t pads[2 * IR_MAX_RANK];
	if (ints_n(c, "pads", 2 * r, 0, pads))
		return -1;
	const char *mode = ir_node_str(c->g, c->id, "mode", "constant");
	if (strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "edge"))
		return FAIL(c, "pad mode '%s' is not constant, reflect or edge", mode);
	ir_shape o = x->shape;
	for (int i = 0; i < r; i++) {
		if (pads[i] < -IR_MAX_DIM || pads[i] > IR_MAX_DIM || pads[r + i] < -IR_MAX_DIM || pads[r + i] > IR_MAX_DIM)
			return FAIL(c, "pads out of range");
		o.dim[i] += pads[i] + pads[r + i];
		if (o.dim[i] < 0)
			return FAIL(c, "negative pads remove more than dimension %d holds", i);
		if (!strcmp(mode, "reflect") && (pads[i] >= x->shape.dim[i] || pads[r + i] >= x->shape.dim[i]))
			return FAIL(c, "reflect pads must be smaller than the dimension");
		if (!strcmp(mode, "edge") && x->shape.dim[i] == 0 && (pads[i] || pads[r + i]))
			return FAIL(c, "edge padding of an empty dimension");
	}
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_gather(sctx *c)
{
	if (need_rank(c, 0, 1, 8) || need_rank(c, 1, 0, 8))
		return -1;
	const ir_tensor *x = IN(c, 0), *idx = IN(c, 1);
	if (idx->dtype != IR_DTYPE_I32 && idx->dtype != IR_DTYPE_I64)
		return FAIL(c, "indices must be i32 or i64");
	int axis = ir_axis(ai(c, "axis", 0), x->shape.rank);
	if (axis < 0)
		return FAIL(c, "axis out of range");
	if (x->shape.rank - 1 + idx->shape.rank > IR_MAX_RANK)
		return FAIL(c, "result rank exceeds %d", IR_MAX_RANK);
	ir_shape o = {0};
	for (int i = 0; i < axis; i++)
		o.dim[o.rank++] = x->shape.dim[i];
	for (int i = 0; i < idx->shape.rank; i++)
		o.dim[o.rank++] = idx->shape.dim[i];
	for (int i = axis + 1; i < x->shape.rank; i++)
		o.dim[o.rank++] = x->shape.dim[i];
	if (ir_shape_numel(&o) < 0)
		return FAIL(c, "result too large");
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_resize(sctx *c)
{
	if (need_rank(c, 0, 1, 8))
		return -1;
	const ir_tensor *x = IN(c, 0);
	int r = x->shape.rank;
	ir_shape o = {.rank = r};
	if (ints_n(c, "sizes", r, -1, o.dim))
		return -1;
	const double *sc;
	int ns = ir_node_floats(c->g, c->id, "scales", &sc);
	if (ns >= 0 && ns != r)
		return FAIL(c, "'scales' must have %d values", r);
	for (int i = 0; i < r; i++)
		if (o.dim[i] < 0 || o.dim[i] > IR_MAX_DIM)
			return FAIL(c, "attribute 'sizes' is required (one positive size per dimension)");
	if (ir_shape_numel(&o) < 0)
		return FAIL(c, "result too large");
	const char *mode = ir_node_str(c->g, c->id, "mode", "nearest");
	if (strcmp(mode, "nearest") && strcmp(mode, "linear") && strcmp(mode, "cubic"))
		return FAIL(c, "resize mode '%s' is not nearest, linear or cubic", mode);
	out1(c, x->dtype, &o);
	return 0;
}

static int block_of(sctx *c, int64_t *b)
{
	*b = ai(c, "blocksize", 0);
	if (*b < 1 || *b > 4096)
		return FAIL(c, "attribute 'blocksize' must be a positive integer");
	return 0;
}

static int ir_shape_depth_to_space(sctx *c)
{
	int64_t b;
	if (need_rank(c, 0, 4, 4) || block_of(c, &b))
		return -1;
	const ir_tensor *x = IN(c, 0);
	int ca = chan_axis(c, 4), sp = first_spatial(c);
	const char *mode = ir_node_str(c->g, c->id, "mode", "DCR");
	if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
		return FAIL(c, "mode must be DCR or CRD");
	if (x->shape.dim[ca] % (b * b))
		return FAIL(c, "channels %lld not divisible by blocksize^2", (long long)x->shape.dim[ca]);
	ir_shape o = x->shape;
	o.dim[ca] /= b * b;
	o.dim[sp] *= b;
	o.dim[sp + 1] *= b;
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_space_to_depth(sctx *c)
{
	int64_t b;
	if (need_rank(c, 0, 4, 4) || block_of(c, &b))
		return -1;
	const ir_tensor *x = IN(c, 0);
	int ca = chan_axis(c, 4), sp = first_spatial(c);
	if (x->shape.dim[sp] % b || x->shape.dim[sp + 1] % b)
		return FAIL(c, "spatial dimensions not divisible by blocksize");
	ir_shape o = x->shape;
	o.dim[ca] *= b * b;
	o.dim[sp] /= b;
	o.dim[sp + 1] /= b;
	out1(c, x->dtype, &o);
	return 0;
}

/* batch_to_space / space_to_batch: TF semantics over the spatial axes. */
static int batch_space(sctx *c, bool to_space)
{
	if (need_rank(c, 0, 3, 5))
		return -1;
	const ir_tensor *x = IN(c, 0);
	int nsp = x->shape.rank - 2, sp = first_spatial(c);
	int64_t blk[3], pc[6], prod = 1;
	if (ints_n(c, "block", nsp, 1, blk) || ints_n(c, to_space ? "crops" : "pads", 2 * nsp, 0, pc))
		return -1;
	ir_shape o = x->shape;
	for (int i = 0; i < nsp; i++) {
		if (blk[i] < 1 || blk[i] > 4096 || pc[2 * i] < 0 || pc[2 * i + 1] < 0 ||
		    pc[2 * i] > IR_MAX_DIM || pc[2 * i + 1] > IR_MAX_DIM)
			return FAIL(c, "bad block or crop/pad values");
		prod *= blk[i];
		int64_t in = x->shape.dim[sp + i];
		if (to_space) {
			o.dim[sp + i] = in * blk[i] - pc[2 * i] - pc[2 * i + 1];
			if (o.dim[sp + i] < 0)
				return FAIL(c, "crops larger than the output");
		} else {
			int64_t p = in + pc[2 * i] + pc[2 * i + 1];
			if (p % blk[i])
				return FAIL(c, "padded dimension %lld not divisible by block %lld",
					    (long long)p, (long long)blk[i]);
			o.dim[sp + i] = p / blk[i];
		}
	}
	if (to_space) {
		if (x->shape.dim[0] % prod)
			return FAIL(c, "batch %lld not divisible by block product %lld",
				    (long long)x->shape.dim[0], (long long)prod);
		o.dim[0] /= prod;
	} else {
		o.dim[0] *= prod;
	}
	if (ir_shape_numel(&o) < 0)
		return FAIL(c, "result too large");
	out1(c, x->dtype, &o);
	return 0;
}

static int ir_shape_batch_to_space(sctx *c) { return batch_space(c, true); }
static int ir_shape_space_to_batch(sctx *c) { return batch_space(c, false); }

/* ---------------------------------------------------------------- recurrent */

static int gates(int op) { return op == IR_OP_LSTM ? 4 : op == IR_OP_GRU ? 3 : 1; }

static int ir_shape_rnn(sctx *c)
{
	if (need_rank(c, 0, 3, 3) || need_rank(c, 1, 3, 3) || need_rank(c, 2, 3, 3) || need_float(c, 0))
		return -1;
	const ir_tensor *x = IN(c, 0), *w = IN(c, 1), *r = IN(c, 2);
	const char *dir = ir_node_str(c->g, c->id, "direction", "forward");
	int64_t D = !strcmp(dir, "bidirectional") ? 2 : 1;
	if (D == 1 && strcmp(dir, "forward") && strcmp(dir, "reverse"))
		return FAIL(c, "direction '%s' is not forward, reverse or bidirectional", dir);
	int64_t G = gates(c->n->op), H = ai(c, "hidden_size", r->shape.dim[2]);
	bool bf = ai(c, "layout", 0) != 0;
	int64_t S = x->shape.dim[bf], B = x->shape.dim[!bf], I = x->shape.dim[2];
	if (w->shape.dim[0] != D || w->shape.dim[1] != G * H || w->shape.dim[2] != I)
		return FAIL(c, "W must be %lldx%lldx%lld", (long long)D, (long long)(G * H), (long long)I);
	if (r->shape.dim[0] != D || r->shape.dim[1] != G * H || r->shape.dim[2] != H)
		return FAIL(c, "R must be %lldx%lldx%lld", (long long)D, (long long)(G * H), (long long)H);
	const ir_tensor *b = IN(c, 3), *sl = IN(c, 4);
	if (b && (b->shape.rank != 2 || b->shape.dim[0] != D || b->shape.dim[1] != 2 * G * H))
		return FAIL(c, "B must be %lldx%lld", (long long)D, (long long)(2 * G * H));
	if (sl && (sl->shape.rank != 1 || sl->shape.dim[0] != B))
		return FAIL(c, "sequence_lens must have %lld elements", (long long)B);
	ir_shape hs = bf ? (ir_shape){.rank = 3, .dim = {B, D, H}} : (ir_shape){.rank = 3, .dim = {D, B, H}};
	for (int i = 5; i < 7 && i < c->nin; i++)
		if (IN(c, i) && !ir_shape_equal(&IN(c, i)->shape, &hs))
			return FAIL(c, "initial state input %d has the wrong shape", i);
	if (c->n->op == IR_OP_LSTM && IN(c, 7) &&
	    (IN(c, 7)->shape.rank != 2 || IN(c, 7)->shape.dim[0] != D || IN(c, 7)->shape.dim[1] != 3 * H))
		return FAIL(c, "P must be %lldx%lld", (long long)D, (long long)(3 * H));
	for (int i = 0; i < c->n->n_outputs; i++) {
		c->dt[i] = x->dtype;
		c->sh[i] = hs;
	}
	if (c->n->n_outputs > 0)
		c->sh[0] = bf ? (ir_shape){.rank = 4, .dim = {B, S, D, H}} : (ir_shape){.rank = 4, .dim = {S, D, B, H}};
	return 0;
}

/* ---------------------------------------------------------------- types */

static int dtype_attr(sctx *c, const char *key, int def, ir_dtype *out)
{
	const char *s = ir_node_str(c->g, c->id, key, NULL);
	int t = s ? ir_dtype_from_name(s) : def;
	if (t < 0)
		return FAIL(c, "attribute '%s' names no dtype ('%s')", key, s ? s : "");
	*out = (ir_dtype)t;
	return 0;
}

static int ir_shape_cast(sctx *c)
{
	ir_dtype t;
	if (need_rank(c, 0, 0, 8) || dtype_attr(c, "to", -1, &t))
		return -1;
	out1(c, t, &IN(c, 0)->shape);
	return 0;
}

/* With one input, quantize takes its scale and zero point from the output
 * tensor's quant (and may requantize an integer input); with a scale input
 * it is ONNX QuantizeLinear. */
static int ir_shape_quantize(sctx *c)
{
	ir_dtype t;
	if (need_rank(c, 0, 0, 8) || (IN(c, 1) && need_float(c, 0)))
		return -1;
	if (IN(c, 2))
		t = IN(c, 2)->dtype;
	else if (dtype_attr(c, "to", IR_DTYPE_U8, &t))
		return -1;
	out1(c, t, &IN(c, 0)->shape);
	return 0;
}

static int ir_shape_dequantize(sctx *c)
{
	ir_dtype t;
	if (need_rank(c, 0, 0, 8) || dtype_attr(c, "to", IR_DTYPE_F32, &t))
		return -1;
	if (t != IR_DTYPE_F32 && t != IR_DTYPE_F16)
		return FAIL(c, "dequantize produces f32 or f16, not %s", ir_dtype_name(t));
	out1(c, t, &IN(c, 0)->shape);
	return 0;
}

static int ir_shape_lut(sctx *c)
{
	const ir_tensor *x = IN(c, 0), *t = IN(c, 1);
	if (need_rank(c, 0, 0, 8) || need_rank(c, 1, 1, 1))
		return -1;
	out1(c, t->dtype, &x->shape);
	return 0;
}

/* ---------------------------------------------------------------- MAC counts */

static int64_t sat_mul(int64_t a, int64_t b)
{
	if (a <= 0 || b <= 0)
		return 0;
	return a > INT64_MAX / b ? INT64_MAX : a * b;
}

static int64_t ir_macs_none(const ir_graph *g, int id) { (void)g; (void)id; return 0; }

static int64_t out_numel(const ir_graph *g, const ir_node *n, int i)
{
	const ir_tensor *t = i < n->n_outputs ? ir_graph_tensor(g, n->outputs[i]) : NULL;
	return t ? ir_shape_numel(&t->shape) : 0;
}

static const ir_tensor *in_t(const ir_graph *g, const ir_node *n, int i)
{
	return i < n->n_inputs ? ir_graph_tensor(g, n->inputs[i]) : NULL;
}

static int64_t ir_macs_conv(const ir_graph *g, int id)
{
	const ir_node *n = &g->nodes[id];
	const ir_tensor *w = in_t(g, n, 1);
	/* Each output element needs one MAC per weight of its filter. */
	return w && w->shape.dim[0] ? sat_mul(out_numel(g, n, 0), ir_shape_numel(&w->shape) / w->shape.dim[0]) : 0;
}

static int64_t ir_macs_conv_transpose(const ir_graph *g, int id)
{
	const ir_node *n = &g->nodes[id];
	const ir_tensor *x = in_t(g, n, 0), *w = in_t(g, n, 1);
	/* Each input element scatters into one filter of the outputs. */
	return x && w && w->shape.dim[0] ? sat_mul(ir_shape_numel(&x->shape), ir_shape_numel(&w->shape) / w->shape.dim[0]) : 0;
}

static int64_t ir_macs_fully_connected(const ir_graph *g, int id)
{
	const ir_node *n = &g->nodes[id];
	const ir_tensor *w = in_t(g, n, 1);
	return w ? sat_mul(out_numel(g, n, 0), w->shape.dim[1]) : 0;
}

static int64_t ir_macs_matmul(const ir_graph *g, int id)
{
	const ir_node *n = &g->nodes[id];
	const ir_tensor *a = in_t(g, n, 0);
	return a ? sat_mul(out_numel(g, n, 0), a->shape.dim[a->shape.rank - 1]) : 0;
}

static int64_t ir_macs_gemm(const ir_graph *g, int id)
{
	const ir_node *n = &g->nodes[id];
	const ir_tensor *a = in_t(g, n, 0);
	int ta = ir_node_int(g, id, "trans_a", 0) != 0;
	return a ? sat_mul(out_numel(g, n, 0), a->shape.dim[!ta]) : 0;
}

static int64_t ir_macs_rnn(const ir_graph *g, int id)
{
	const ir_node *n = &g->nodes[id];
	const ir_tensor *x = in_t(g, n, 0), *w = in_t(g, n, 1), *r = in_t(g, n, 2);
	if (!x || !w || !r)
		return 0;
	/* Per step and direction: (G*H) x (I + H) MACs for each batch row. */
	int64_t steps = sat_mul(x->shape.dim[0], x->shape.dim[1]);
	return sat_mul(steps, sat_mul(w->shape.dim[0], sat_mul(w->shape.dim[1], w->shape.dim[2] + r->shape.dim[2])));
}

static int ir_shape_custom(sctx *c)
{
	return ir_custom_infer(c->g, c->id, c->in, c->nin, c->dt, c->sh, c->d);
}

/* ---------------------------------------------------------------- the table */

typedef struct {
	const char *name;
	int min_in, max_in, min_out, max_out;
	int (*shape)(sctx *);
	int64_t (*macs)(const ir_graph *, int);
	const char *attrs;
} op_info;

static const op_info ops[IR_OP_COUNT] = {
#define IR_OP(id, nm, a, b, c, d, shape, macs, kern, attrs) \
	[IR_OP_##id] = {nm, a, b, c, d, ir_shape_##shape, ir_macs_##macs, attrs},
#include "ir_ops.def"
#undef IR_OP
};

_Static_assert(sizeof ops / sizeof ops[0] == IR_OP_COUNT, "op table size");

const char *ir_op_name(int op) { return op >= 0 && op < IR_OP_COUNT ? ops[op].name : "?"; }

int ir_op_from_name(const char *name)
{
	for (int i = 0; name && i < IR_OP_COUNT; i++)
		if (strcmp(ops[i].name, name) == 0)
			return i;
	return -1;
}

const char *ir_op_attr_spec(int op) { return op >= 0 && op < IR_OP_COUNT ? ops[op].attrs : ""; }

void ir_op_arity(int op, int *min_in, int *max_in, int *min_out, int *max_out)
{
	const op_info *o = &ops[op >= 0 && op < IR_OP_COUNT ? op : 0];
	*min_in = o->min_in;
	*max_in = o->max_in;
	*min_out = o->min_out;
	*max_out = o->max_out;
}

int64_t ir_node_macs(const ir_graph *g, int node)
{
	const ir_node *n = ir_graph_node(g, node);
	return n ? ops[n->op].macs(g, node) : 0;
}

/* Type letter of attribute key in an op's spec, or 0 if not allowed. */
static char spec_type(const char *spec, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = spec; *p;) {
		const char *eq = strchr(p, '=');
		if (!eq)
			break;
		if ((size_t)(eq - p) == kl && strncmp(p, key, kl) == 0)
			return eq[1];
		p = strchr(eq, ',');
		if (!p)
			break;
		p++;
	}
	return 0;
}

/* 1: a float attribute holds a NaN; 2: an infinity where only bounds
 * (clip min/max and act_params, pad value, rnn clip) may be unbounded. */
static int attr_nonfinite(const ir_attr *a)
{
	static const char *const bounds[] = {"min", "max", "act_params", "value", "clip"};
	const double *v = a->type == IR_ATTR_FLOAT ? &a->f : a->type == IR_ATTR_FLOATS ? a->floats : NULL;
	int n = a->type == IR_ATTR_FLOAT ? 1 : a->type == IR_ATTR_FLOATS ? a->n : 0, r = 0;
	for (int i = 0; i < n && r != 1; i++)
		r = isnan(v[i]) ? 1 : isinf(v[i]) ? 2 : r;
	for (size_t k = 0; r == 2 && k < sizeof bounds / sizeof bounds[0]; k++)
		if (!strcmp(a->name, bounds[k]))
			r = 0;
	return r;
}

static int check_node_shallow(const ir_graph *g, int id, ir_diag *d)
{
	const ir_node *n = &g->nodes[id];
	const op_info *o = &ops[n->op];
	if (n->n_inputs < o->min_in || n->n_inputs > o->max_in)
		return ir_fail(d, id, -1, "%d inputs, op takes %d to %d", n->n_inputs, o->min_in, o->max_in);
	if (n->n_outputs < o->min_out || n->n_outputs > o->max_out)
		return ir_fail(d, id, -1, "%d outputs, op gives %d to %d", n->n_outputs, o->min_out, o->max_out);
	for (int i = 0; i < o->min_in; i++)
		if (n->inputs[i] < 0 && !(n->op >= IR_OP_RNN && n->op <= IR_OP_LSTM))
			return ir_fail(d, id, -1, "required input %d is missing", i);
	static const char letters[] = "ifsIF";
	for (int i = 0; i < n->n_attrs; i++) {
		char t = spec_type(o->attrs, n->attrs[i].name);
		if (!t && n->op == IR_OP_CUSTOM)
			continue;	/* the plugin's own attributes */
		if (!t)
			return ir_fail(d, id, -1, "unknown attribute '%s'", n->attrs[i].name);
		if (letters[n->attrs[i].type] != t)
			return ir_fail(d, id, -1, "attribute '%s' has the wrong type", n->attrs[i].name);
		if (attr_nonfinite(&n->attrs[i]))
			return ir_fail(d, id, -1, "attribute '%s' is %s", n->attrs[i].name,
				       attr_nonfinite(&n->attrs[i]) == 1 ? "NaN" : "infinite (allowed only for bounds)");
	}
	return 0;
}

int ir_node_infer(const ir_graph *g, int node, ir_dtype *dt, ir_shape *sh, ir_diag *d)
{
	const ir_node *n = ir_graph_node(g, node);
	if (!n)
		return ir_fail(d, -1, -1, "no node %d", node);
	if (check_node_shallow(g, node, d))
		return -1;
	sctx c = {.g = g, .id = node, .n = n, .dt = dt, .sh = sh, .d = d};
	c.nin = n->n_inputs;
	/* A node with a precision (npu-quant's output) computes in that type
	 * whatever its operands' storage (int8 weights, int32 bias, fp16
	 * activations): shapes are inferred as if every float-like operand
	 * were f32, and float outputs take the precision's type. */
	ir_tensor as_f32[8];
	static const ir_dtype prec_type[IR_PREC_COUNT] = {
		[IR_PREC_F32] = IR_DTYPE_F32, [IR_PREC_F16] = IR_DTYPE_F16,
		[IR_PREC_I16] = IR_DTYPE_I16, [IR_PREC_I8] = IR_DTYPE_I8,
	};
	for (int i = 0; i < n->n_inputs && i < 8; i++) {
		c.in[i] = n->inputs[i] >= 0 ? ir_graph_tensor(g, n->inputs[i]) : NULL;
		if (n->precision != IR_PREC_NONE && c.in[i] && n->op != IR_OP_GATHER) {
			as_f32[i] = *c.in[i];
			as_f32[i].dtype = IR_DTYPE_F32;
			as_f32[i].quant = NULL;
			c.in[i] = &as_f32[i];
		}
	}
	for (int i = 0; i < n->n_outputs; i++) {
		dt[i] = IR_DTYPE_F32;
		sh[i] = (ir_shape){0};
	}
	if (ops[n->op].shape(&c))
		return -1;
	if (n->precision != IR_PREC_NONE)
		for (int i = 0; i < n->n_outputs; i++)
			if (dt[i] == IR_DTYPE_F32)
				dt[i] = prec_type[n->precision];
	/* the integer recurrent cells keep their states (Y_h, Y_c) in int16
	 * fixed formats whatever Y's type (npu_rt.h, GRU_Q / LSTM_Q) */
	if ((n->op == IR_OP_GRU || n->op == IR_OP_LSTM) &&
	    (n->precision == IR_PREC_I8 || n->precision == IR_PREC_I16))
		for (int i = 1; i < n->n_outputs; i++)
			dt[i] = IR_DTYPE_I16;
	for (int i = 0; i < n->n_outputs; i++)
		if (ir_shape_numel(&sh[i]) < 0)
			return ir_fail(d, node, -1, "output %d would be too large", i);
	return 0;
}

/* Ops whose output keeps the element order of input 0 with its rank. */
static bool keeps_layout(int op)
{
	return op != IR_OP_TRANSPOSE && op != IR_OP_RESHAPE && op != IR_OP_FLATTEN &&
	       op != IR_OP_SQUEEZE && op != IR_OP_UNSQUEEZE && op != IR_OP_MATMUL &&
	       op != IR_OP_GEMM && op != IR_OP_FULLY_CONNECTED;
}

int ir_graph_infer_node(ir_graph *g, int id, ir_diag *d)
{
	const ir_node *n = ir_graph_node(g, id);
	if (!n)
		return ir_fail(d, -1, -1, "no node %d", id);
	ir_dtype *dt = malloc(sizeof *dt * (size_t)(n->n_outputs + 1));
	ir_shape *sh = malloc(sizeof *sh * (size_t)(n->n_outputs + 1));
	int rc = -1;
	if (!dt || !sh) {
		ir_fail(d, id, -1, "out of memory");
		goto out;
	}
	if (ir_node_infer(g, id, dt, sh, d))
		goto out;
	const ir_tensor *x = n->n_inputs && n->inputs[0] >= 0 ? &g->tensors[n->inputs[0]] : NULL;
	for (int i = 0; i < n->n_outputs; i++) {
		ir_tensor *t = &g->tensors[n->outputs[i]];
		if (t->kind == IR_KIND_CONST || t->kind == IR_KIND_INPUT) {
			ir_fail(d, id, n->outputs[i], "node output '%s' is a %s tensor", t->name, ir_kind_name(t->kind));
			goto out;
		}
		t->dtype = dt[i];
		t->shape = sh[i];
		if (t->layout == IR_LAYOUT_NONE && x && keeps_layout(n->op) && x->shape.rank == sh[i].rank)
			t->layout = x->layout;
	}
	rc = 0;
out:
	free(dt);
	free(sh);
	return rc;
}

int ir_graph_infer_shapes(ir_graph *g, ir_diag *d)
{
	int nn = g->n_nodes, rc = -1;
	int *order = malloc(sizeof(int) * (size_t)(nn + 1));
	if (!order)
		return ir_fail(d, -1, -1, "out of memory");
	if (ir_topo_order(g, order, d) == 0) {
		rc = 0;
		for (int k = 0; k < nn && !rc; k++)
			rc = ir_graph_infer_node(g, order[k], d);
	}
	free(order);
	return rc;
}

/* ---------------------------------------------------------------- verification */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

/* Find a duplicate among count names at stride bytes apart; index or -1. */
static int find_duplicate(const void *base, int count, size_t stride, const char **dup)
{
	const char ***v = malloc(sizeof *v * (size_t)(count + 1));
	if (!v)
		return -2;
	for (int i = 0; i < count; i++)
		v[i] = (const char **)((const char *)base + stride * (size_t)i);
	qsort(v, (size_t)count, sizeof *v, cmp_names);
	int r = -1;
	for (int i = 1; i < count && r < 0; i++)
		if (strcmp(*v[i], *v[i - 1]) == 0) {
			*dup = *v[i];
			r = i;
		}
	free(v);
	return r;
}

static int check_quant(const ir_tensor *t, int id, ir_diag *d)
{
	const ir_quant *q = t->quant;
	if (!q)
		return 0;
	if (q->bits < 2 || q->bits > (t->dtype == IR_DTYPE_I64 ? 64 : 32) || q->n < 1)
		return ir_fail(d, -1, id, "tensor '%s': bad quantization bits or count", t->name);
	/* one scale: per tensor (axis -1), or per channel along an axis of extent 1 */
	if (q->n == 1 ? q->axis != -1 && (q->axis < 0 || q->axis >= t->shape.rank || t->shape.dim[q->axis] != 1)
		      : (q->axis < 0 || q->axis >= t->shape.rank || t->shape.dim[q->axis] != q->n))
		return ir_fail(d, -1, id, "tensor '%s': %d quantization scales do not fit axis %d",
			       t->name, q->n, q->axis);
	for (int i = 0; i < q->n; i++)
		if (!(q->scale[i] > 0) || q->scale[i] > 3.4e38f)
			return ir_fail(d, -1, id, "tensor '%s': quantization scale must be positive", t->name);
	return 0;
}

int ir_graph_verify(const ir_graph *g, ir_diag *d)
{
	int nt = g->n_tensors, nn = g->n_nodes, rc = -1, maxo = 1;
	const char *dup;
	int *prod = malloc(sizeof(int) * (size_t)(nt + 1));
	ir_dtype *dt = NULL;
	ir_shape *sh = NULL;
	if (!prod)
		return ir_fail(d, -1, -1, "out of memory");
	int k = find_duplicate(g->tensors, nt, sizeof(ir_tensor), &dup);
	if (k == -1)
		k = find_duplicate(g->nodes, nn, sizeof(ir_node), &dup);
	if (k != -1) {
		ir_fail(d, -1, -1, k == -2 ? "out of memory" : "duplicate name '%s'", k == -2 ? "" : dup);
		goto out;
	}
	for (int t = 0; t < nt; t++) {
		const ir_tensor *x = &g->tensors[t];
		prod[t] = -1;
		if (!x->name[0]) {
			ir_fail(d, -1, t, "tensor %d has an empty name", t);
			goto out;
		}
		if ((unsigned)x->dtype >= IR_DTYPE_COUNT || (unsigned)x->kind >= IR_KIND_COUNT ||
		    (unsigned)x->layout >= IR_LAYOUT_COUNT || ir_shape_numel(&x->shape) < 0) {
			ir_fail(d, -1, t, "tensor '%s': bad dtype, kind, layout or shape", x->name);
			goto out;
		}
		if (x->kind == IR_KIND_CONST && (!x->data || x->nbytes != ir_tensor_nbytes(x))) {
			ir_fail(d, -1, t, "constant '%s' has %zu bytes of data, its shape needs %zu",
				x->name, x->data ? x->nbytes : 0, ir_tensor_nbytes(x));
			goto out;
		}
		if (x->kind != IR_KIND_CONST && x->data) {
			ir_fail(d, -1, t, "tensor '%s' is not a constant but has data", x->name);
			goto out;
		}
		if (check_quant(x, t, d))
			goto out;
	}
	for (int i = 0; i < g->n_inputs; i++) {
		int t = g->inputs[i];
		if (t < 0 || t >= nt || (g->tensors[t].kind != IR_KIND_INPUT && g->tensors[t].kind != IR_KIND_STATE)) {
			ir_fail(d, -1, t >= 0 && t < nt ? t : -1, "graph input %d is not an input tensor", i);
			goto out;
		}
	}
	for (int i = 0; i < g->n_outputs; i++)
		if (g->outputs[i] < 0 || g->outputs[i] >= nt) {
			ir_fail(d, -1, -1, "graph output %d refers to no tensor", i);
			goto out;
		}
	for (int i = 0; i < nn; i++) {
		const ir_node *n = &g->nodes[i];
		if (!n->name[0] || n->op < 0 || n->op >= IR_OP_COUNT) {
			ir_fail(d, i, -1, "node %d has no name or an unknown op", i);
			goto out;
		}
		if (n->n_outputs > maxo)
			maxo = n->n_outputs;
		for (int j = 0; j < n->n_inputs; j++) {
			int t = n->inputs[j];
			if (t < -1 || t >= nt) {
				ir_fail(d, i, -1, "input %d refers to no tensor", j);
				goto out;
			}
			if (t < 0)
				continue;
			const ir_tensor *x = &g->tensors[t];
			if (x->kind == IR_KIND_ACTIVATION && prod[t] < 0) {
				ir_fail(d, i, t, "input '%s' is not produced before this node (cycle, order or dangling id)", x->name);
				goto out;
			}
		}
		for (int j = 0; j < n->n_outputs; j++) {
			int t = n->outputs[j];
			if (t < 0 || t >= nt) {
				ir_fail(d, i, -1, "output %d refers to no tensor", j);
				goto out;
			}
			if (prod[t] >= 0 || g->tensors[t].kind != IR_KIND_ACTIVATION) {
				ir_fail(d, i, t, "output '%s' is already produced or not an activation", g->tensors[t].name);
				goto out;
			}
			prod[t] = i;
		}
	}
	for (int t = 0; t < nt; t++)
		if (g->tensors[t].kind == IR_KIND_ACTIVATION && prod[t] < 0) {
			ir_fail(d, -1, t, "activation '%s' has no producer", g->tensors[t].name);
			goto out;
		}
	dt = malloc(sizeof *dt * (size_t)maxo);
	sh = malloc(sizeof *sh * (size_t)maxo);
	if (!dt || !sh) {
		ir_fail(d, -1, -1, "out of memory");
		goto out;
	}
	for (int i = 0; i < nn; i++) {
		const ir_node *n = &g->nodes[i];
		if (ir_node_infer(g, i, dt, sh, d))
			goto out;
		for (int j = 0; j < n->n_outputs; j++) {
			const ir_tensor *x = &g->tensors[n->outputs[j]];
			if (x->dtype != dt[j] || !ir_shape_equal(&x->shape, &sh[j])) {
				char s1[96], s2[96];
				ir_fail(d, i, n->outputs[j], "output '%s' is %s %s, shape inference gives %s %s",
					x->name, ir_dtype_name(x->dtype), ir_shape_str(&x->shape, s1, 96),
					ir_dtype_name(dt[j]), ir_shape_str(&sh[j], s2, 96));
				goto out;
			}
		}
	}
	rc = 0;
out:
	free(prod);
	free(dt);
	free(sh);
	return rc;
}
