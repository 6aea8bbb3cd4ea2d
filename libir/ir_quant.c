/* ir_quant.c - post-training quantization (see ir.h).
 *
 * Integer family: every node gets i8, i16 or (when no integer kernel or the
 * target lacks the op, or the user says so) f32. Nodes that only move or
 * select values (reshape, transpose, slice, concat's parts, pooling, pad)
 * keep their input's type and scale, so they never requantize except for
 * concat, whose inputs are rescaled to the output's scale in the kernel.
 * Where a tensor crosses from float to integer a quantize node is inserted
 * (scale from the calibration range of that tensor), from integer to float
 * a dequantize node; graph outputs keep their names on the float side.
 *
 * fp16 family: every tensor in half precision; weights of convolutions and
 * fully connected layers optionally int8 per output channel (compressed);
 * outputs cast to f32 unless listed as fp16 outputs. */
#include "ir_internal.h"
#include "ir_kern.h"
#include "ir_plugin.h"
#include "../share/npu/runtime/npu_half.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const wq_names[IR_WQ_COUNT] = {
	"symmetric_restricted_range", "symmetric_full_range", "asymmetric",
};

const char *ir_wq_scheme_name(int s) { return s >= 0 && s < IR_WQ_COUNT ? wq_names[s] : "?"; }

int ir_wq_scheme_parse(const char *s, int *per_channel)
{
	int pc = -1;
	if (!strncmp(s, "per_channel_", 12))
		pc = 1, s += 12;
	else if (!strncmp(s, "per_tensor_", 11))
		pc = 0, s += 11;
	for (int i = 0; i < IR_WQ_COUNT; i++)
		if (!strcmp(s, wq_names[i]) || (i == IR_WQ_ASYMMETRIC && !strcmp(s, "asymmetric_full_range")) ||
		    (i != IR_WQ_ASYMMETRIC && !strcmp(s, i ? "symmetric_full" : "symmetric_restricted"))) {
			if (per_channel && pc >= 0)
				*per_channel = pc;
			return i;
		}
	return -1;
}

void ir_quant_defaults(ir_quant_opts *o)
{
	*o = (ir_quant_opts){.act = IR_PREC_I8, .wbits = 8, .wscheme = IR_WQ_SYMMETRIC_RESTRICTED,
			     .per_channel = true, .method = {IR_CALIB_MSE, 0}, .lut_bits = 10,
			     .output_f32 = true};
}

/* ---------------------------------------------------------------- small helpers */

static int rename_tensor(ir_graph *g, int t, const char *base)
{
	char *n = ir_graph_unique_name(g, base);
	int rc = n ? ir_tensor_rename(g, t, n, NULL) : -1;
	free(n);
	return rc;
}

/* A new activation tensor like t (shape) named base (made unique). */
static int new_tensor(ir_graph *g, const char *base, ir_dtype dt, const ir_shape *sh, ir_layout layout, ir_diag *d)
{
	char *n = ir_graph_unique_name(g, base);
	if (!n)
		return ir_fail(d, -1, -1, "out of memory");
	int t = ir_graph_add_tensor(g, n, dt, sh, IR_KIND_ACTIVATION, d);
	free(n);
	if (t >= 0)
		g->tensors[t].layout = layout;
	return t;
}

static int new_const(ir_graph *g, const char *base, ir_dtype dt, const ir_shape *sh, const void *data, ir_diag *d)
{
	char *n = ir_graph_unique_name(g, base);
	if (!n)
		return ir_fail(d, -1, -1, "out of memory");
	int t = ir_graph_add_const(g, n, dt, sh, data, d);
	free(n);
	return t;
}

static int new_node(ir_graph *g, const char *base, int op, const int *in, int nin, int out, ir_diag *d)
{
	char *n = ir_graph_unique_name(g, base);
	if (!n)
		return ir_fail(d, -1, -1, "out of memory");
	int id = ir_graph_add_node(g, n, op, in, nin, &out, 1, d);
	free(n);
	return id;
}

static int set_input(ir_graph *g, int node, int k, int t, ir_diag *d)
{
	ir_node *n = &g->nodes[node];
	int *in = malloc(sizeof *in * (size_t)n->n_inputs);
	if (!in)
		return ir_fail(d, node, -1, "out of memory");
	memcpy(in, n->inputs, sizeof *in * (size_t)n->n_inputs);
	in[k] = t;
	int rc = ir_node_set_inputs(g, node, in, n->n_inputs, d);
	free(in);
	return rc;
}

static void clear_attrs(ir_graph *g, int node)
{
	while (g->nodes[node].n_attrs > 0)
		ir_node_remove_attr(g, node, g->nodes[node].attrs[0].name);
}

static float *const_f32(const ir_tensor *t)
{
	int64_t n = ir_shape_numel(&t->shape);
	float *v = malloc(sizeof *v * (size_t)(n > 0 ? n : 1));
	if (v)
		for (int64_t i = 0; i < n; i++)
			v[i] = (float)ir_elem_get(t->data, t->dtype, i);
	return v;
}

static bool in_list(const char *s, const char *const *list, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

/* ---------------------------------------------------------------- preparation */

/* gemm / 2-D matmul with constant weights -> fully_connected ([OC, IC]). */
static int to_fully_connected(ir_graph *g, int i, ir_diag *d)
{
	ir_node *n = &g->nodes[i];
	bool gemm = n->op == IR_OP_GEMM;
	if ((n->op != IR_OP_MATMUL && !gemm) || n->n_inputs < 2)
		return 0;
	const ir_tensor *a = &g->tensors[n->inputs[0]], *b = &g->tensors[n->inputs[1]];
	const ir_tensor *c = gemm && n->n_inputs > 2 && n->inputs[2] >= 0 ? &g->tensors[n->inputs[2]] : NULL;
	if (b->kind != IR_KIND_CONST || b->shape.rank != 2 || a->dtype != IR_DTYPE_F32 || a->shape.rank < 1)
		return 0;
	bool tb = gemm && ir_node_int(g, i, "trans_b", 0);
	if (gemm && (ir_node_int(g, i, "trans_a", 0) || ir_node_float(g, i, "alpha", 1) != 1 ||
		     (c && ir_node_float(g, i, "beta", 1) != 1)))
		return 0;
	int64_t K = b->shape.dim[tb], N = b->shape.dim[!tb];
	if (c && (c->kind != IR_KIND_CONST || ir_shape_numel(&c->shape) != N || c->dtype != IR_DTYPE_F32))
		return 0;
	float *bv = const_f32(b), *w = malloc(sizeof *w * (size_t)(K * N));
	int rc = 0;
	if (!bv || !w) {
		rc = ir_fail(d, i, -1, "out of memory");
		goto out;
	}
	for (int64_t k = 0; k < K; k++)
		for (int64_t j = 0; j < N; j++)
			w[j * K + k] = tb ? bv[j * K + k] : bv[k * N + j];
	ir_shape ws = {2, {N, K}}, bs = {1, {N}};
	char base[300];
	snprintf(base, sizeof base, "%s.weight", n->name);
	int wt = new_const(g, base, IR_DTYPE_F32, &ws, w, d), bt = -1;
	if (wt < 0) {
		rc = -1;
		goto out;
	}
	if (c) {
		snprintf(base, sizeof base, "%s.bias", g->nodes[i].name);
		float *cv = const_f32(c);
		bt = cv ? new_const(g, base, IR_DTYPE_F32, &bs, cv, d) : -1;
		free(cv);
		if (bt < 0) {
			rc = -1;
			goto out;
		}
	}
	int in[3] = {g->nodes[i].inputs[0], wt, bt};
	if (ir_node_set_inputs(g, i, in, c ? 3 : 2, d)) {
		rc = -1;
		goto out;
	}
	g->nodes[i].op = IR_OP_FULLY_CONNECTED;
	ir_node_remove_attr(g, i, "alpha");
	ir_node_remove_attr(g, i, "beta");
	ir_node_remove_attr(g, i, "trans_a");
	ir_node_remove_attr(g, i, "trans_b");
out:
	free(bv);
	free(w);
	return rc;
}

/* conv/fc/add with a fused sigmoid (say) -> the node, then the activation
 * as a node of its own (an integer kernel clamps but has no functions). */
static int unfuse_activation(ir_graph *g, int i, ir_diag *d)
{
	ir_act a;
	if (ir_node_attr(g, i, "act") == NULL || ir_act_from_node(g, i, &a, d))
		return 0;
	if (a.op < 0)
		return 0;
	int y = g->nodes[i].outputs[0];
	char base[300];
	snprintf(base, sizeof base, "%s.preact", g->tensors[y].name);
	int t = new_tensor(g, base, g->tensors[y].dtype, &g->tensors[y].shape, g->tensors[y].layout, d);
	if (t < 0)
		return -1;
	g->nodes[i].outputs[0] = t;
	ir_node_remove_attr(g, i, "act");
	ir_node_remove_attr(g, i, "act_params");
	snprintf(base, sizeof base, "%s.%s", g->nodes[i].name, ir_op_name(a.op));
	int k = new_node(g, base, a.op, &t, 1, y, d);
	if (k < 0)
		return -1;
	if (a.op == IR_OP_LEAKY_RELU || a.op == IR_OP_ELU || a.op == IR_OP_HARD_SIGMOID)
		ir_node_set_float(g, k, "alpha", a.p[0]);
	if (a.op == IR_OP_HARD_SIGMOID)
		ir_node_set_float(g, k, "beta", a.p[1]);
	if (a.op == IR_OP_GELU && a.p[0] != 0)
		ir_node_set_str(g, k, "approximate", "tanh");
	return 0;
}

int ir_quant_prepare(ir_graph *g, const ir_quant_opts *o, ir_diag *d)
{
	int nn = g->n_nodes;
	for (int i = 0; i < nn; i++)
		if (to_fully_connected(g, i, d))
			return -1;
	if (!o->fp16)
		for (int i = 0; i < nn; i++)
			if (unfuse_activation(g, i, d))
				return -1;
	if (ir_graph_toposort(g, d) || ir_graph_infer_shapes(g, d))
		return -1;
	ir_graph_prune(g);
	return ir_graph_verify(g, d);
}

/* ---------------------------------------------------------------- what runs in integers */

/* Ops that only move or pick values: their output keeps the input's type
 * and scale. */
static bool follows_input(int op)
{
	switch (op) {
	case IR_OP_RESHAPE: case IR_OP_FLATTEN: case IR_OP_SQUEEZE: case IR_OP_UNSQUEEZE:
	case IR_OP_IDENTITY: case IR_OP_TRANSPOSE: case IR_OP_SLICE: case IR_OP_SPLIT: case IR_OP_PAD:
	case IR_OP_MAX_POOL: case IR_OP_AVG_POOL: case IR_OP_GLOBAL_AVG_POOL: case IR_OP_GLOBAL_MAX_POOL:
	case IR_OP_DEPTH_TO_SPACE: case IR_OP_SPACE_TO_DEPTH:
	case IR_OP_GATHER:
	case IR_OP_RESIZE:	/* nearest and linear (ir_quant_int_unsupported) */
	case IR_OP_CUSTOM:	/* an op plugin's NPU_PQ_SAME_SCALE (ir_quant_int_unsupported) */
		return true;
	default:
		return false;
	}
}

/* 1-D or 2-D, either layout (the runtime has channel-last kernels) */
static bool spatial_2d(const ir_tensor *x) { return x->shape.rank == 3 || x->shape.rank == 4; }

/* What keeps a GRU / LSTM off the integer cells (npu_rt.h, GRU_Q /
 * LSTM_Q), as the runtime lowering would refuse it. */
static const char *rnn_int_unsupported(const ir_graph *g, int i)
{
	const ir_node *n = ir_graph_node(g, i);
	const char *dir = ir_node_str(g, i, "direction", "forward");
	const ir_tensor *x = ir_graph_tensor(g, n->inputs[0]);
	for (int k = 1; k < 4 && k < n->n_inputs; k++)
		if (n->inputs[k] >= 0 && ir_graph_tensor(g, n->inputs[k])->kind != IR_KIND_CONST)
			return "its weights are not constant";
	if (n->n_inputs < 3 || n->inputs[1] < 0 || n->inputs[2] < 0)
		return "it has no weights";
	if (strcmp(dir, "forward") && strcmp(dir, "reverse"))
		return "the integer cells run one direction";
	if (x->shape.rank != 3 || (ir_node_int(g, i, "layout", 0) && x->shape.dim[0] != 1))
		return "batch-first with a batch above 1 is not in the runtime";
	if (ir_node_attr(g, i, "clip") || ir_node_int(g, i, "input_forget", 0) || ir_node_attr(g, i, "activations") ||
	    (n->n_inputs > 4 && n->inputs[4] >= 0) || (n->op == IR_OP_LSTM && n->n_inputs > 7 && n->inputs[7] >= 0))
		return "clip, input_forget, other activations, sequence lengths or peepholes have no integer cell";
	return NULL;
}

const char *ir_quant_int_unsupported(const ir_graph *g, int i)
{
	const ir_node *n = ir_graph_node(g, i);
	const ir_tensor *x = n->n_inputs > 0 && n->inputs[0] >= 0 ? ir_graph_tensor(g, n->inputs[0]) : NULL;
	ir_act a;
	if (!x || (x->dtype != IR_DTYPE_F32 && x->kind != IR_KIND_CONST))
		return "its input is not float";
	switch (n->op) {
	case IR_OP_CONV:
		if (!spatial_2d(x))
			return "integer convolutions are 1-D or 2-D";
		/* fall through */
	case IR_OP_FULLY_CONNECTED:
		if (ir_graph_tensor(g, n->inputs[1])->kind != IR_KIND_CONST)
			return "its weights are not constant";
		if (ir_act_from_node(g, i, &a, &(ir_diag){0}) || a.op >= 0)
			return "it has a fused activation other than a clamp";
		return NULL;
	case IR_OP_CONV_TRANSPOSE:
		if (!spatial_2d(x))
			return "integer transposed convolutions are 1-D or 2-D";
		if (ir_graph_tensor(g, n->inputs[1])->kind != IR_KIND_CONST)
			return "its weights are not constant";
		if (ir_act_from_node(g, i, &a, &(ir_diag){0}) || a.op >= 0)
			return "it has a fused activation other than a clamp";
		return NULL;
	case IR_OP_RESIZE: {
		const char *m = ir_node_str(g, i, "mode", "nearest");
		if (strcmp(m, "nearest") && strcmp(m, "linear"))
			return "cubic resize has no integer kernel";
		return x->shape.rank >= 2 ? NULL : "integer resize needs two axes";
	}
	case IR_OP_PRELU:
		return NULL;
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL:
		if (ir_act_from_node(g, i, &a, &(ir_diag){0}) || a.op >= 0)
			return "it has a fused activation other than a clamp";
		return NULL;
	case IR_OP_MAX_POOL: case IR_OP_AVG_POOL: case IR_OP_GLOBAL_AVG_POOL: case IR_OP_GLOBAL_MAX_POOL: {
		const int64_t *dl;
		int nd = ir_node_ints(g, i, "dilations", &dl);
		for (int k = 0; k < nd; k++)
			if (dl[k] != 1)
				return "dilated pooling has no integer kernel";
		return spatial_2d(x) ? NULL : "integer pooling is 1-D or 2-D";
	}
	case IR_OP_PAD: {	/* the runtime copies reflect and edge padding */
		const char *m = ir_node_str(g, i, "mode", "constant");
		return strcmp(m, "constant") && strcmp(m, "reflect") && strcmp(m, "edge") ? "only constant, reflect and edge padding are integer" : NULL;
	}
	case IR_OP_RESHAPE: case IR_OP_FLATTEN: case IR_OP_SQUEEZE: case IR_OP_UNSQUEEZE: case IR_OP_IDENTITY:
	case IR_OP_TRANSPOSE: case IR_OP_SLICE: case IR_OP_SPLIT: case IR_OP_CONCAT:
	case IR_OP_REDUCE_SUM: case IR_OP_REDUCE_MEAN: case IR_OP_REDUCE_MAX: case IR_OP_REDUCE_MIN:
		return NULL;
	case IR_OP_DEPTH_TO_SPACE: case IR_OP_SPACE_TO_DEPTH:
		return x->shape.rank == 4 && x->layout != IR_LAYOUT_NHWC ? NULL : "blocks move in channel-first 4-D tensors only";
	case IR_OP_GRU: case IR_OP_LSTM:
		return rnn_int_unsupported(g, i);
	case IR_OP_MATMUL:	/* of two activations (constant 2-D B became fully_connected) */
		if (ir_act_from_node(g, i, &a, &(ir_diag){0}) || a.op >= 0)
			return "it has a fused activation other than a clamp";
		return NULL;
	case IR_OP_GATHER: case IR_OP_ARGMAX:	/* picks codes; argmax compares them */
		return NULL;
	case IR_OP_CUSTOM: {
		const npu_plugin_op *op = ir_custom_op(g, i, NULL, &(ir_diag){0});
		if (!op)
			return "its op plugin is not found";
		if (op->quant != NPU_PQ_SAME_SCALE)
			return "its op plugin computes it in float";
		return n->n_inputs == 1 ? NULL : "its op plugin keeps the scale of one input only";
	}
	default:
		if (ir_act_from_unary_node(g, i, &a) == 0)
			return NULL;	/* clamps, or a lookup table */
		return "it has no integer kernel";
	}
}

/* ---------------------------------------------------------------- scales */

static int qbits(ir_dtype t) { return t == IR_DTYPE_I16 ? 16 : 8; }

/* Element i of an int8/int16 array = r saturated to `bits` signed codes. */
static void put_code(void *dst, ir_dtype t, int64_t i, double r, int bits)
{
	double qmax = ldexp(1, bits - 1) - 1, qmin = -qmax - 1;
	int32_t v = (int32_t)(r < qmin ? qmin : r > qmax ? qmax : r);
	if (t == IR_DTYPE_I8)
		((int8_t *)dst)[i] = (int8_t)v;
	else
		((int16_t *)dst)[i] = (int16_t)v;
}

/* Per-tensor parameters for [lo, hi] (lo <= 0 <= hi). */
static void act_qparams(float lo, float hi, int bits, bool sym, float *s, int32_t *z)
{
	double qmin = -ldexp(1, bits - 1), qmax = ldexp(1, bits - 1) - 1;
	if (sym) {
		double amax = fmax(-lo, hi);
		*s = (float)(amax > 0 ? amax / qmax : 1e-8);
		*z = 0;
		return;
	}
	double r = (double)hi - lo;
	*s = (float)(r > 0 ? r / (qmax - qmin) : 1e-8);
	double zp = qmin - nearbyint(lo / *s);
	*z = (int32_t)(zp < qmin ? qmin : zp > qmax ? qmax : zp);
}

static int set_act_quant(ir_graph *g, int t, float lo, float hi, int bits, bool sym, ir_diag *d)
{
	float s;
	int32_t z;
	act_qparams(lo, hi, bits, sym, &s, &z);
	ir_quant q = {.bits = bits, .symmetric = sym, .axis = -1, .n = 1, .scale = &s, .zero_point = &z,
		      .has_range = true, .range_min = lo, .range_max = hi};
	return ir_tensor_set_quant(g, t, &q, d);
}

/* ---------------------------------------------------------------- the quantizer */

typedef struct {
	ir_graph *g;
	const ir_calib *c;
	const ir_quant_opts *o;
	ir_pass_note note;
	void *user;
	ir_diag *d;
	int n0;			/* nodes of the prepared graph */
	int *conv_q, *conv_dq;	/* per tensor: its quantized / dequantized twin, or -1 */
	int *conv_type;		/* the type conv_q holds */
} qctx;

static void qnote(qctx *q, int node, const char *fmt, const char *arg)
{
	if (!q->note)
		return;
	char msg[300];
	snprintf(msg, sizeof msg, fmt, arg);
	q->note(q->user, q->g, node, msg);
}

static ir_calib_method node_method(const qctx *q, int i)
{
	const ir_qlayer *l = q->o->layer && i >= 0 && i < q->n0 ? &q->o->layer[i] : NULL;
	return l && l->has_method ? l->method : q->o->method;
}

static int calib_range(qctx *q, int node, int t, int bits, bool sym, float *lo, float *hi)
{
	const char *name = q->g->tensors[t].name;
	ir_calib_method m = node_method(q, node);
	for (int k = 0; k < q->o->n_arange; k++)
		if (!strcmp(q->o->arange[k].name, name)) {
			*lo = fminf(q->o->arange[k].min, 0);
			*hi = fmaxf(q->o->arange[k].max, 0);
			return 0;
		}
	if (!q->c)
		return ir_fail(q->d, node, t, "no calibration data for tensor '%s'", name);
	if (ir_calib_range(q->c, name, &m, bits, sym, lo, hi, q->d)) {
		q->d->node = node;
		q->d->tensor = t;
		return -1;
	}
	return 0;
}

/* The integer type node i computes in. */
static ir_dtype node_int_type(const qctx *q, int i)
{
	const ir_qlayer *l = q->o->layer && i >= 0 && i < q->n0 ? &q->o->layer[i] : NULL;
	ir_precision p = l && l->prec != IR_PREC_NONE ? l->prec : q->o->act;
	return p == IR_PREC_I16 ? IR_DTYPE_I16 : IR_DTYPE_I8;
}

/* Tensor t as type want for node i's use: itself, or through a (shared)
 * quantize / dequantize / cast node. */
static int convert(qctx *q, int i, int t, ir_dtype want)
{
	ir_graph *g = q->g;
	ir_dtype have = g->tensors[t].dtype;
	bool hi = have == IR_DTYPE_I8 || have == IR_DTYPE_I16, wi = want == IR_DTYPE_I8 || want == IR_DTYPE_I16;
	bool hf = have == IR_DTYPE_F32 || have == IR_DTYPE_F16;
	if (have == want || (hi && wi) || (!hi && !hf))	/* indices and flags stay as they are */
		return t;
	int *cache = wi ? q->conv_q : q->conv_dq;
	if (cache[t] >= 0 && g->tensors[cache[t]].dtype == want)
		return cache[t];
	char base[300];
	snprintf(base, sizeof base, "%s:%s", g->tensors[t].name, ir_dtype_name(want));
	ir_shape sh = g->tensors[t].shape;
	int y = new_tensor(g, base, want, &sh, g->tensors[t].layout, q->d);
	if (y < 0)
		return -1;
	int op = wi ? IR_OP_QUANTIZE : hi ? IR_OP_DEQUANTIZE : IR_OP_CAST;
	snprintf(base, sizeof base, "%s/%s", g->tensors[t].name, ir_op_name(op));
	int k = new_node(g, base, op, &t, 1, y, q->d);
	if (k < 0)
		return -1;
	ir_node_set_str(g, k, "to", ir_dtype_name(want));
	if (wi) {
		float lo, hi2;
		bool sym = q->o->act_symmetric;
		if (calib_range(q, i, t, qbits(want), sym, &lo, &hi2) ||
		    set_act_quant(g, y, lo, hi2, qbits(want), sym, q->d))
			return -1;
	}
	cache[t] = y;
	return y;
}

/* Quantize weights [OC, ...] (per channel along axis 0, or per tensor);
 * quant_weights_axis: per channel along axis (conv_transpose: 1). */
static int quant_weights_axis(qctx *q, int node, int w, int bits, int scheme, bool per_channel, ir_dtype store,
			      int axis);
static int quant_weights(qctx *q, int node, int w, int bits, int scheme, bool per_channel, ir_dtype store)
{
	return quant_weights_axis(q, node, w, bits, scheme, per_channel, store, 0);
}

static int quant_weights_axis(qctx *q, int node, int w, int bits, int scheme, bool per_channel, ir_dtype store,
			      int axis)
{
	ir_graph *g = q->g;
	const ir_tensor *t = &g->tensors[w];
	if (axis >= t->shape.rank)
		axis = 0;
	int64_t n = ir_shape_numel(&t->shape), oc = per_channel && t->shape.rank > 0 ? t->shape.dim[axis] : 1;
	int64_t per = oc > 0 ? n / oc : 0, inner = 1;
	for (int k = axis + 1; per_channel && k < t->shape.rank; k++)
		inner *= t->shape.dim[k];
	/* element k of channel c (k < per): outer block k / inner, offset k % inner */
#define WIDX(c, k) ((((k) / inner) * oc + (c)) * inner + (k) % inner)
	float *v = const_f32(t), *s = malloc(sizeof *s * (size_t)oc);
	int32_t *z = malloc(sizeof *z * (size_t)oc);
	void *out = malloc(ir_dtype_size(store) * (size_t)(n > 0 ? n : 1));
	int rc = -1;
	if (!v || !s || !z || !out) {
		ir_fail(q->d, node, w, "out of memory");
		goto done;
	}
	const ir_qrange *fixed = NULL;
	for (int k = 0; k < q->o->n_wrange; k++)
		if (!strcmp(q->o->wrange[k].name, t->name))
			fixed = &q->o->wrange[k];
	double qmax = ldexp(1, bits - 1) - 1, qmin = scheme == IR_WQ_SYMMETRIC_RESTRICTED ? -qmax : -qmax - 1;
	for (int64_t c = 0; c < oc; c++) {
		float lo = 0, hi = 0;
		for (int64_t k = 0; k < per; k++) {
			float x = v[WIDX(c, k)];
			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
		}
		if (fixed)
			lo = fminf(fixed->min, 0), hi = fmaxf(fixed->max, 0);
		double amax = fmax(-lo, hi);
		if (scheme == IR_WQ_ASYMMETRIC) {
			double r = (double)hi - lo;
			s[c] = (float)(r > 0 ? r / (qmax - qmin) : 1);
			double zp = qmin - nearbyint(lo / s[c]);
			z[c] = (int32_t)(zp < qmin ? qmin : zp > qmax ? qmax : zp);
		} else {
			/* restricted: [-amax, amax] onto +-qmax; full: onto 2^b - 1 steps */
			s[c] = (float)(amax > 0 ? (scheme == IR_WQ_SYMMETRIC_RESTRICTED ? amax / qmax : 2 * amax / (qmax - qmin))
						: 1);
			z[c] = 0;
		}
		for (int64_t k = 0; k < per; k++) {
			double r = nearbyint(v[WIDX(c, k)] / s[c]) + z[c];
			put_code(out, store, WIDX(c, k), r < qmin ? qmin : r, bits);	/* restricted: no -2^(b-1) */
		}
#undef WIDX
	}
	char base[300];
	snprintf(base, sizeof base, "%s:q", t->name);
	ir_shape sh = t->shape;
	int nw = new_const(g, base, store, &sh, out, q->d);
	if (nw < 0)
		goto done;
	/* one output channel: its one scale is the tensor's (axis -1) */
	ir_quant qq = {.bits = bits, .symmetric = scheme != IR_WQ_ASYMMETRIC, .axis = oc > 1 ? axis : -1,
		       .n = (int)oc, .scale = s, .zero_point = z};
	if (ir_tensor_set_quant(g, nw, &qq, q->d))
		goto done;
	rc = nw;
done:
	free(v);
	free(s);
	free(z);
	free(out);
	return rc;
}

/* conv / fully_connected: weights and bias into integers. */
static int quant_conv(qctx *q, int i)
{
	ir_graph *g = q->g;
	const ir_qlayer *l = q->o->layer && i < q->n0 ? &q->o->layer[i] : NULL;
	int bits = l && l->wbits ? l->wbits : q->o->wbits;
	int scheme = l && l->wscheme >= 0 ? l->wscheme : (int)q->o->wscheme;
	bool pc = l && l->per_channel >= 0 ? l->per_channel : q->o->per_channel;
	/* conv_transpose weights [C, OC/G, ...]: per output channel along
	 * axis 1 for one group, else per tensor */
	bool ct = g->nodes[i].op == IR_OP_CONV_TRANSPOSE;
	if (ct && ir_node_int(g, i, "group", 1) != 1)
		pc = false;
	int w = quant_weights_axis(q, i, g->nodes[i].inputs[1], bits, scheme, pc, bits > 8 ? IR_DTYPE_I16 : IR_DTYPE_I8,
				   ct ? 1 : 0);
	if (w < 0 || set_input(g, i, 1, w, q->d))
		return -1;
	if (g->nodes[i].n_inputs < 3 || g->nodes[i].inputs[2] < 0)
		return 0;
	const ir_tensor *x = &g->tensors[g->nodes[i].inputs[0]], *b = &g->tensors[g->nodes[i].inputs[2]];
	const ir_quant *wq = g->tensors[w].quant;
	int64_t n = ir_shape_numel(&b->shape);
	float *bv = const_f32(b);
	/* the bias at scale s_x s_w, exactly in an int32 when every code fits
	 * (8-bit activations or weights in practice), else in an int64 (16-bit
	 * activations and weights make s_x s_w tiny); never saturated: a code
	 * beyond 2^62 (the runtime's int64 accumulator bound) is an error */
	int64_t *out = malloc(sizeof *out * (size_t)(n > 0 ? n : 1));
	int32_t *o32 = malloc(sizeof *o32 * (size_t)(n > 0 ? n : 1));
	float *s = malloc(sizeof *s * (size_t)(n > 0 ? n : 1));
	int32_t *z = calloc((size_t)(n > 0 ? n : 1), sizeof *z);
	int rc = -1;
	bool wide = false;
	if (!bv || !out || !o32 || !s || !z) {
		ir_fail(q->d, i, -1, "out of memory");
		goto done;
	}
	for (int64_t c = 0; c < n; c++) {
		s[c] = x->quant->scale[0] * wq->scale[wq->n == 1 ? 0 : c];
		double r = nearbyint((double)bv[c] / s[c]);
		if (!(fabs(r) <= 0x1p62)) {
			ir_fail(q->d, i, g->nodes[i].inputs[2], "bias '%s' element %lld: %g at scale %g is beyond the int64 accumulator",
				b->name, (long long)c, (double)bv[c], (double)s[c]);
			goto done;
		}
		out[c] = (int64_t)r;
		wide = wide || r < INT32_MIN || r > INT32_MAX;
	}
	if (!wide)
		for (int64_t c = 0; c < n; c++)
			o32[c] = (int32_t)out[c];
	char base[300];
	snprintf(base, sizeof base, "%s:q", b->name);
	ir_shape sh = b->shape;
	int nb = new_const(g, base, wide ? IR_DTYPE_I64 : IR_DTYPE_I32, &sh, wide ? (void *)out : (void *)o32, q->d);
	ir_quant qq = {.bits = wide ? 64 : 32, .symmetric = true, .axis = n > 1 ? 0 : -1, .n = (int)n, .scale = s,
		       .zero_point = z};
	if (nb >= 0 && !ir_tensor_set_quant(g, nb, &qq, q->d) && !set_input(g, i, 2, nb, q->d))
		rc = 0;
done:
	free(bv);
	free(out);
	free(o32);
	free(s);
	free(z);
	return rc;
}

/* A constant operand of an integer node, per tensor over its own range. */
static int quant_const_operand(qctx *q, int i, int k, ir_dtype want)
{
	ir_graph *g = q->g;
	int t = g->nodes[i].inputs[k];
	const ir_tensor *x = &g->tensors[t];
	int64_t n = ir_shape_numel(&x->shape);
	float *v = const_f32(x), lo = 0, hi = 0;
	void *out = malloc(ir_dtype_size(want) * (size_t)(n > 0 ? n : 1));
	int rc = -1;
	if (!v || !out) {
		ir_fail(q->d, i, t, "out of memory");
		goto done;
	}
	for (int64_t j = 0; j < n; j++)
		lo = fminf(lo, v[j]), hi = fmaxf(hi, v[j]);
	float s;
	int32_t z;
	int bits = qbits(want);
	act_qparams(lo, hi, bits, q->o->act_symmetric, &s, &z);
	for (int64_t j = 0; j < n; j++)
		put_code(out, want, j, nearbyint(v[j] / s) + z, bits);
	char base[300];
	snprintf(base, sizeof base, "%s:q", x->name);
	ir_shape sh = x->shape;
	int c = new_const(g, base, want, &sh, out, q->d);
	if (c >= 0 && !set_act_quant(g, c, lo, hi, bits, q->o->act_symmetric, q->d) && !set_input(g, i, k, c, q->d))
		rc = 0;
done:
	free(v);
	free(out);
	return rc;
}

/* A unary function on integers -> lut with a table over every input code
 * (int8: 256 entries) or 2^lut_bits + 1 points (int16, interpolated). */
static int make_lut(qctx *q, int i, const ir_act *a)
{
	ir_graph *g = q->g;
	int x = g->nodes[i].inputs[0], y = g->nodes[i].outputs[0];
	const ir_quant *xq = g->tensors[x].quant, *yq = g->tensors[y].quant;
	ir_dtype xt = g->tensors[x].dtype, yt = g->tensors[y].dtype;
	int lb = q->o->lut_bits < 1 ? 1 : q->o->lut_bits > 15 ? 15 : q->o->lut_bits;
	int64_t n = xt == IR_DTYPE_I8 ? 256 : ((int64_t)1 << lb) + 1;
	int64_t step = xt == IR_DTYPE_I8 ? 1 : (int64_t)1 << (16 - lb), base = xt == IR_DTYPE_I8 ? -128 : -32768;
	void *tab = malloc(ir_dtype_size(yt) * (size_t)n);
	if (!tab)
		return ir_fail(q->d, i, -1, "out of memory");
	for (int64_t k = 0; k < n; k++) {
		float in = xq->scale[0] * (float)(base + k * step - xq->zero_point[0]), out;
		ir_unary_f32(a->op, a->p, &out, &in, 1);
		put_code(tab, yt, k, isnan(out) ? yq->zero_point[0] : nearbyint((double)out / yq->scale[0]) + yq->zero_point[0],
			 qbits(yt));
	}
	char nm[300];
	snprintf(nm, sizeof nm, "%s.table", g->nodes[i].name);
	ir_shape sh = {1, {n}};
	int t = new_const(g, nm, yt, &sh, tab, q->d);
	free(tab);
	if (t < 0)
		return -1;
	int in[2] = {x, t};
	if (ir_node_set_inputs(g, i, in, 2, q->d))
		return -1;
	clear_attrs(g, i);
	ir_node_set_str(g, i, "fn", ir_op_name(a->op));
	g->nodes[i].op = IR_OP_LUT;
	return 0;
}

/* Graph output k as float32 under its own name: the tensor is renamed
 * NAME:TYPE and a dequantize (integer) or cast (f16) node makes NAME. The
 * new tensor takes exactly NAME (tensor names are unique among tensors
 * only: a node may share it, as TensorFlow graphs' outputs do). */
static int float_output(qctx *q, int k)
{
	ir_graph *g = q->g;
	int t = g->outputs[k];
	ir_dtype dt = g->tensors[t].dtype;
	for (int j = 0; j < k; j++) {	/* the same tensor listed twice: converted once */
		int p = ir_graph_producer(g, g->outputs[j]);
		if (p >= 0 && p >= q->n0 && g->nodes[p].n_inputs > 0 && g->nodes[p].inputs[0] == t) {
			g->outputs[k] = g->outputs[j];
			return 0;
		}
	}
	char *name = ir_strdup(g->tensors[t].name);
	char base[300];
	snprintf(base, sizeof base, "%s:%s", name ? name : "", ir_dtype_name(dt));
	if (!name || rename_tensor(g, t, base)) {
		free(name);
		return ir_fail(q->d, -1, t, "out of memory");
	}
	ir_shape sh = g->tensors[t].shape;
	int y = ir_graph_add_tensor(g, name, IR_DTYPE_F32, &sh, IR_KIND_ACTIVATION, q->d);
	free(name);
	if (y < 0)
		return -1;
	g->tensors[y].layout = g->tensors[t].layout;
	int op = dt == IR_DTYPE_F16 ? IR_OP_CAST : IR_OP_DEQUANTIZE;
	snprintf(base, sizeof base, "%s/%s", g->tensors[y].name, ir_op_name(op));
	int c = new_node(g, base, op, &t, 1, y, q->d);
	if (c < 0 || ir_node_set_str(g, c, "to", "f32"))
		return -1;
	g->outputs[k] = y;
	return 0;
}

/* ---- integer recurrent cells (arithmetic: npu_rt.h, GRU_Q / LSTM_Q) */

/* fixed int16 formats of the states: h Q0.15, c Q3.12 */
static int set_fixed_quant(ir_graph *g, int t, int frac, ir_diag *d)
{
	float s = ldexpf(1, -frac);
	int32_t z = 0;
	ir_quant qq = {.bits = 16, .symmetric = true, .axis = -1, .n = 1, .scale = &s, .zero_point = &z};
	g->tensors[t].dtype = IR_DTYPE_I16;
	return ir_tensor_set_quant(g, t, &qq, d);
}

static bool is_fixed(const ir_tensor *t, int frac)
{
	return t->dtype == IR_DTYPE_I16 && t->quant && t->quant->n == 1 && t->quant->zero_point[0] == 0 &&
	       t->quant->scale[0] == ldexpf(1, -frac);
}

/* State input k of node i (h0, c0) as int16 Q(15-frac).frac: a constant
 * is converted, an activation quantized or requantized once. */
static int rnn_state_input(qctx *q, int i, int k, int frac)
{
	ir_graph *g = q->g;
	int t = k < g->nodes[i].n_inputs ? g->nodes[i].inputs[k] : -1;
	if (t < 0 || is_fixed(&g->tensors[t], frac))
		return 0;
	const ir_tensor *x = &g->tensors[t];
	/* a quantized graph input (--int-io) read by this cell only takes the
	 * state's format: the previous call's state output feeds it as is */
	if (x->kind == IR_KIND_INPUT && (x->dtype == IR_DTYPE_I8 || x->dtype == IR_DTYPE_I16) &&
	    ir_graph_consumers(g, t) == 1)
		return set_fixed_quant(g, t, frac, q->d);
	char base[300];
	ir_shape sh = x->shape;
	int y;
	if (x->kind == IR_KIND_CONST) {
		int64_t n = ir_shape_numel(&x->shape);
		float *v = const_f32(x);
		int16_t *c = malloc(sizeof *c * (size_t)(n > 0 ? n : 1));
		if (!v || !c) {
			free(v), free(c);
			return ir_fail(q->d, i, t, "out of memory");
		}
		for (int64_t j = 0; j < n; j++)
			put_code(c, IR_DTYPE_I16, j, nearbyint(ldexp(v[j], frac)), 16);
		snprintf(base, sizeof base, "%s:q", x->name);
		y = new_const(g, base, IR_DTYPE_I16, &sh, c, q->d);
		free(v), free(c);
		if (y < 0 || set_fixed_quant(g, y, frac, q->d))
			return -1;
		return set_input(g, i, k, y, q->d);
	}
	snprintf(base, sizeof base, "%s:q%d.%d", x->name, 15 - frac, frac);
	y = new_tensor(g, base, IR_DTYPE_I16, &sh, x->layout, q->d);
	if (y < 0 || set_fixed_quant(g, y, frac, q->d))
		return -1;
	snprintf(base, sizeof base, "%s/quantize", g->tensors[y].name);
	int c = new_node(g, base, IR_OP_QUANTIZE, &t, 1, y, q->d);
	if (c < 0 || ir_node_set_str(g, c, "to", "i16"))
		return -1;
	return set_input(g, i, k, y, q->d);
}

/* W [1, G*H, I] or R [1, G*H, H] as int8, one symmetric scale per gate row
 * (or per tensor with --per-tensor); *sum gets each row's sum of |codes|. */
static int rnn_weights(qctx *q, int i, int k, int64_t *sum)
{
	ir_graph *g = q->g;
	const ir_tensor *t = &g->tensors[g->nodes[i].inputs[k]];
	int64_t gh = t->shape.rank == 3 ? t->shape.dim[1] : 0, per = t->shape.rank == 3 ? t->shape.dim[2] : 0;
	int rows = q->o->per_channel ? (int)gh : 1;
	float *v = const_f32(t), *s = malloc(sizeof *s * (size_t)(gh > 0 ? gh : 1));
	int32_t *z = calloc((size_t)(gh > 0 ? gh : 1), sizeof *z);
	int8_t *c = malloc((size_t)(gh * per > 0 ? gh * per : 1));
	int rc = -1;
	if (!v || !s || !z || !c) {
		ir_fail(q->d, i, -1, "out of memory");
		goto done;
	}
	for (int64_t r = 0; r < gh; r++) {
		float amax = 0;
		int64_t r0 = rows == 1 ? 0 : r, r1 = rows == 1 ? gh : r + 1;
		for (int64_t j = r0 * per; j < r1 * per; j++)
			amax = fmaxf(amax, fabsf(v[j]));
		s[r] = amax > 0 ? amax / 127 : 1;
		sum[r] = 0;
		for (int64_t j = 0; j < per; j++) {
			double x = nearbyint(v[r * per + j] / s[r]);
			c[r * per + j] = (int8_t)(x < -127 ? -127 : x > 127 ? 127 : x);
			sum[r] += abs(c[r * per + j]);
		}
	}
	char base[300];
	snprintf(base, sizeof base, "%s:q", t->name);
	ir_shape sh = t->shape;
	int w = new_const(g, base, IR_DTYPE_I8, &sh, c, q->d);
	ir_quant qq = {.bits = 8, .symmetric = true, .axis = rows == 1 ? -1 : 1, .n = rows, .scale = s, .zero_point = z};
	if (w >= 0 && !ir_tensor_set_quant(g, w, &qq, q->d) && !set_input(g, i, k, w, q->d))
		rc = 0;
done:
	free(v), free(s), free(z), free(c);
	return rc;
}

/* A GRU / LSTM on the integer cells: x in the node's type, int8 weights per
 * gate row, int32 biases, h0/c0 and Y_h/Y_c in their fixed formats, Y at its
 * calibrated scale. Refuses a layer whose int32 sums could overflow. */
static int quant_rnn(qctx *q, int i, ir_dtype it)
{
	ir_graph *g = q->g;
	bool lstm = g->nodes[i].op == IR_OP_LSTM;
	int x = convert(q, i, g->nodes[i].inputs[0], it);
	if (x < 0 || (x != g->nodes[i].inputs[0] && set_input(g, i, 0, x, q->d)))
		return -1;
	/* the LSTM's cell state: Q3.12, or coarser when the calibrated final
	 * state (with a margin of 2 for the steps before) needs more range */
	const ir_node *n = &g->nodes[i];
	int cf = 12, yc = lstm && n->n_outputs > 2 ? n->outputs[2] : -1;
	float clo, chi;
	if (yc >= 0 && calib_range(q, i, yc, 16, true, &clo, &chi) == 0) {
		double cmax = 2 * fmax(-(double)clo, (double)chi);
		while (cf > 0 && cmax >= ldexp(1, 15 - cf))
			cf--;
	}
	if (rnn_state_input(q, i, 5, 15) || (lstm && rnn_state_input(q, i, 6, cf)))
		return -1;
	n = &g->nodes[i];
	int y = n->outputs[0];
	if (y >= 0) {
		float lo, hi;
		if (calib_range(q, i, y, qbits(it), q->o->act_symmetric, &lo, &hi))
			return -1;
		g->tensors[y].dtype = it;
		if (set_act_quant(g, y, lo, hi, qbits(it), q->o->act_symmetric, q->d))
			return -1;
	}
	if ((n->n_outputs > 1 && n->outputs[1] >= 0 && set_fixed_quant(g, n->outputs[1], 15, q->d)) ||
	    (yc >= 0 && set_fixed_quant(g, yc, cf, q->d)))
		return -1;
	int64_t gh = g->tensors[n->inputs[1]].shape.dim[1];
	int64_t *sw = malloc(sizeof *sw * (size_t)(2 * gh + 1)), *sr = sw ? sw + gh : NULL;
	int32_t *bq = malloc(sizeof *bq * (size_t)(2 * gh + 1));
	float *bs = malloc(sizeof *bs * (size_t)(2 * gh + 1)), *bv = NULL;
	int32_t *bz = calloc((size_t)(2 * gh + 1), sizeof *bz);
	int rc = -1;
	if (!sw || !bq || !bs || !bz) {
		ir_fail(q->d, i, -1, "out of memory");
		goto done;
	}
	if (rnn_weights(q, i, 1, sw) || rnn_weights(q, i, 2, sr))
		goto done;
	n = &g->nodes[i];
	const ir_tensor *tx = &g->tensors[n->inputs[0]];
	const ir_quant *xq = tx->quant, *wq = g->tensors[n->inputs[1]].quant, *rq = g->tensors[n->inputs[2]].quant;
	int b = n->n_inputs > 3 ? n->inputs[3] : -1;
	if (b >= 0 && !(bv = const_f32(&g->tensors[b]))) {
		ir_fail(q->d, i, b, "out of memory");
		goto done;
	}
	double xmax = tx->dtype == IR_DTYPE_I16 ? 32768 + fabs((double)xq->zero_point[0])
						: 128 + fabs((double)xq->zero_point[0]);
	for (int64_t j = 0; j < 2 * gh; j++) {
		bool h = j >= gh;
		int64_t r = h ? j - gh : j;
		bs[j] = h ? ldexpf(rq->scale[rq->n == 1 ? 0 : r], -15) : xq->scale[0] * wq->scale[wq->n == 1 ? 0 : r];
		double v = bv ? nearbyint(bv[j] / (double)bs[j]) : 0;
		if (fabs(v) + (h ? 32768.0 * (double)sr[r] : xmax * (double)sw[r]) > INT32_MAX) {
			ir_fail(q->d, i, -1, "gate row %lld's int32 sums could overflow in the integer cell; "
				"keep the layer in float (--float-layers %s)", (long long)r, n->name);
			goto done;
		}
		bq[j] = (int32_t)v;
	}
	if (b >= 0) {
		char base[300];
		snprintf(base, sizeof base, "%s:q", g->tensors[b].name);
		ir_shape sh = g->tensors[b].shape;
		int nb = new_const(g, base, IR_DTYPE_I32, &sh, bq, q->d);
		ir_quant qq = {.bits = 32, .symmetric = true, .axis = 1, .n = (int)(2 * gh), .scale = bs, .zero_point = bz};
		if (nb < 0 || ir_tensor_set_quant(g, nb, &qq, q->d) || set_input(g, i, 3, nb, q->d))
			goto done;
	}
	rc = 0;
done:
	free(sw), free(bq), free(bs), free(bz), free(bv);
	return rc;
}

/* ---- integer family */

static int quantize_int_nodes(qctx *q, const char **whys, const bool *lut, const ir_act *acts);

static int quantize_int(qctx *q)
{
	ir_graph *g = q->g;
	int nn = q->n0;
	/* decided on the float graph, before any tensor changes type */
	const char **whys = malloc(sizeof *whys * (size_t)(nn + 1));
	bool *lut = malloc(sizeof *lut * (size_t)(nn + 1));
	ir_act *acts = malloc(sizeof *acts * (size_t)(nn + 1));
	if (!whys || !lut || !acts) {
		free(whys), free(lut), free(acts);
		return ir_fail(q->d, -1, -1, "out of memory");
	}
	for (int i = 0; i < nn; i++) {
		whys[i] = ir_quant_int_unsupported(g, i);
		lut[i] = ir_act_from_unary_node(g, i, &acts[i]) == 0 && acts[i].op >= 0;
	}
	int rc = quantize_int_nodes(q, whys, lut, acts);
	free(whys), free(lut), free(acts);
	return rc;
}

static int quantize_int_nodes(qctx *q, const char **whys, const bool *lut, const ir_act *acts)
{
	ir_graph *g = q->g;
	const ir_quant_opts *o = q->o;
	int nn = q->n0;
	/* graph inputs: float, or integer with their calibrated scale */
	if (o->int_io)
		for (int k = 0; k < g->n_inputs; k++) {
			int t = g->inputs[k];
			ir_dtype dt = o->act == IR_PREC_I16 ? IR_DTYPE_I16 : IR_DTYPE_I8;
			float lo, hi;
			if (g->tensors[t].dtype != IR_DTYPE_F32)
				continue;
			if (calib_range(q, -1, t, qbits(dt), o->act_symmetric, &lo, &hi))
				return -1;
			g->tensors[t].dtype = dt;
			if (set_act_quant(g, t, lo, hi, qbits(dt), o->act_symmetric, q->d))
				return -1;
		}
	for (int i = 0; i < nn; i++) {
		ir_node *n = &g->nodes[i];
		const ir_qlayer *l = o->layer ? &o->layer[i] : NULL;
		const char *why = whys[i];
		bool want_float = l && (l->prec == IR_PREC_F32 || l->prec == IR_PREC_F16);
		const ir_tensor *x0 = n->n_inputs > 0 && n->inputs[0] >= 0 ? &g->tensors[n->inputs[0]] : NULL;
		bool x_int = x0 && (x0->dtype == IR_DTYPE_I8 || x0->dtype == IR_DTYPE_I16);
		if (n->op == IR_OP_ARGMAX && !why && !want_float) {
			/* the indices stay int64; integer codes compare like values */
			n->precision = x_int ? (x0->dtype == IR_DTYPE_I16 ? IR_PREC_I16 : IR_PREC_I8) : IR_PREC_F32;
			continue;
		}
		if (n->op == IR_OP_CUSTOM && !why && x_int && x0->dtype != IR_DTYPE_I8)
			why = "its op plugin's integer kernel is int8";
		if (follows_input(n->op) && !why && !want_float) {
			/* same type and scale as the input: float stays float */
			if (!x_int) {
				n->precision = IR_PREC_F32;
				continue;
			}
			n->precision = x0->dtype == IR_DTYPE_I16 ? IR_PREC_I16 : IR_PREC_I8;
			for (int k = 0; k < n->n_outputs; k++) {
				int y = n->outputs[k];
				if (y < 0)
					continue;
				g->tensors[y].dtype = x0->dtype;
				if (ir_tensor_set_quant(g, y, x0->quant, q->d))
					return -1;
			}
			continue;
		}
		if (!why && o->ops && !o->ops[n->op])
			why = "the target does not run it";
		if (!why && want_float)
			why = "the configuration keeps it in float";
		if (why) {
			bool island = !want_float && n->n_outputs > 0 && n->outputs[0] >= 0 &&
				      g->tensors[n->outputs[0]].dtype == IR_DTYPE_F32;
			if (island && o->island)
				o->island(o->island_user, g, i, why);
			else
				qnote(q, i, "kept in float: %s", why);
			n->precision = IR_PREC_F32;
			for (int k = 0; k < n->n_inputs; k++) {
				int t = g->nodes[i].inputs[k];
				if (t >= 0 && g->tensors[t].kind != IR_KIND_CONST) {
					int c = convert(q, i, t, IR_DTYPE_F32);
					if (c < 0 || (c != t && set_input(g, i, k, c, q->d)))
						return -1;
				}
			}
			continue;
		}
		ir_dtype it = node_int_type(q, i);
		n->precision = it == IR_DTYPE_I16 ? IR_PREC_I16 : IR_PREC_I8;
		if (n->op == IR_OP_GRU || n->op == IR_OP_LSTM) {
			if (quant_rnn(q, i, it))
				return -1;
			continue;
		}
		/* activation inputs into integers */
		for (int k = 0; k < g->nodes[i].n_inputs; k++) {
			int t = g->nodes[i].inputs[k];
			if (t < 0)
				continue;
			if (g->tensors[t].kind == IR_KIND_CONST) {
				bool weight = (g->nodes[i].op == IR_OP_CONV || g->nodes[i].op == IR_OP_FULLY_CONNECTED ||
					       g->nodes[i].op == IR_OP_CONV_TRANSPOSE) && k > 0;
				if (!weight && quant_const_operand(q, i, k, it))
					return -1;
				continue;
			}
			int c = convert(q, i, t, it);
			if (c < 0 || (c != t && set_input(g, i, k, c, q->d)))
				return -1;
		}
		/* the output's scale */
		int y = g->nodes[i].outputs[0];
		float lo, hi;
		if (calib_range(q, i, y, qbits(it), o->act_symmetric, &lo, &hi))
			return -1;
		g->tensors[y].dtype = it;
		if (set_act_quant(g, y, lo, hi, qbits(it), o->act_symmetric, q->d))
			return -1;
		int op = g->nodes[i].op;
		if (op == IR_OP_CONV || op == IR_OP_FULLY_CONNECTED || op == IR_OP_CONV_TRANSPOSE) {
			if (quant_conv(q, i))
				return -1;
		} else if (lut[i] && make_lut(q, i, &acts[i])) {
			return -1;
		}
	}
	/* targets whose concat/add do not rescale: requantize nodes in front */
	for (int i = 0; i < nn && o->same_scale; i++) {
		if (!o->same_scale[g->nodes[i].op] || (g->nodes[i].precision != IR_PREC_I8 &&
							g->nodes[i].precision != IR_PREC_I16))
			continue;
		int y = g->nodes[i].outputs[0];
		for (int k = 0; k < g->nodes[i].n_inputs; k++) {
			int t = g->nodes[i].inputs[k];
			const ir_tensor *x = &g->tensors[t], *ty = &g->tensors[y];
			if (x->dtype == ty->dtype && x->quant && x->quant->scale[0] == ty->quant->scale[0] &&
			    x->quant->zero_point[0] == ty->quant->zero_point[0])
				continue;
			char base[300];
			snprintf(base, sizeof base, "%s:%s", x->name, g->nodes[i].name);
			ir_shape sh = x->shape;
			int r = new_tensor(g, base, ty->dtype, &sh, x->layout, q->d);
			if (r < 0 || ir_tensor_set_quant(g, r, g->tensors[y].quant, q->d))
				return -1;
			snprintf(base, sizeof base, "%s/requantize", g->tensors[r].name);
			int c = new_node(g, base, IR_OP_QUANTIZE, &t, 1, r, q->d);
			if (c < 0 || ir_node_set_str(g, c, "to", ir_dtype_name(g->tensors[y].dtype)) || set_input(g, i, k, r, q->d))
				return -1;
		}
	}
	/* graph outputs: back to float under their own names */
	for (int k = 0; k < g->n_outputs && !o->int_io; k++) {
		int t = g->outputs[k];
		ir_dtype dt = g->tensors[t].dtype;
		if ((dt == IR_DTYPE_I8 || dt == IR_DTYPE_I16) && float_output(q, k))
			return -1;
	}
	return 0;
}

/* ---- fp16 family */

static bool excluded(const qctx *q, int node, int w)
{
	return in_list(q->g->tensors[w].name, q->o->exclude, q->o->n_exclude) ||
	       in_list(q->g->nodes[node].name, q->o->exclude, q->o->n_exclude);
}

static int to_f16_const(qctx *q, int i, int k)
{
	ir_graph *g = q->g;
	int t = g->nodes[i].inputs[k];
	const ir_tensor *x = &g->tensors[t];
	if (x->dtype != IR_DTYPE_F32)
		return 0;
	int64_t n = ir_shape_numel(&x->shape);
	uint16_t *h = malloc(sizeof *h * (size_t)(n > 0 ? n : 1));
	if (!h)
		return ir_fail(q->d, i, t, "out of memory");
	for (int64_t j = 0; j < n; j++)
		h[j] = npu_f32_to_f16((float)ir_elem_get(x->data, x->dtype, j));
	char base[300];
	snprintf(base, sizeof base, "%s:f16", x->name);
	ir_shape sh = x->shape;
	int c = new_const(g, base, IR_DTYPE_F16, &sh, h, q->d);
	free(h);
	return c < 0 ? -1 : set_input(g, i, k, c, q->d);
}

static int quantize_f16(qctx *q)
{
	ir_graph *g = q->g;
	const ir_quant_opts *o = q->o;
	for (int k = 0; k < g->n_inputs; k++)
		if (g->tensors[g->inputs[k]].dtype == IR_DTYPE_F32)
			g->tensors[g->inputs[k]].dtype = IR_DTYPE_F16;
	for (int i = 0; i < q->n0; i++) {
		ir_node *n = &g->nodes[i];
		const ir_qlayer *l = o->layer ? &o->layer[i] : NULL;
		bool f32 = (l && l->prec == IR_PREC_F32) || n->op == IR_OP_CUSTOM;
		ir_act fa;
		if (n->op == IR_OP_CUSTOM)
			qnote(q, i, "%s", "kept in float: its op plugin computes float32");
		else if (o->ops && !o->ops[n->op])
			qnote(q, i, "%s", "the target does not run this op: it runs on the host in fp16");
		else if (o->ops && ir_node_attr(g, i, "act") && !ir_act_from_node(g, i, &fa, &(ir_diag){0}) && fa.op >= 0 &&
			 !o->ops[fa.op])
			qnote(q, i, "the target does not run its fused %s: the node runs on the host in fp16",
			      ir_op_name(fa.op));
		n->precision = f32 ? IR_PREC_F32 : IR_PREC_F16;
		ir_dtype want = f32 ? IR_DTYPE_F32 : IR_DTYPE_F16;
		bool compress = !f32 && ((n->op == IR_OP_CONV && o->compress_conv) ||
					 (n->op == IR_OP_FULLY_CONNECTED && o->compress_fc));
		for (int k = 0; k < g->nodes[i].n_inputs; k++) {
			int t = g->nodes[i].inputs[k];
			if (t < 0)
				continue;
			if (g->tensors[t].kind == IR_KIND_CONST) {
				if (f32 || g->tensors[t].dtype != IR_DTYPE_F32)
					continue;
				if (k == 1 && compress && !excluded(q, i, t)) {
					int w = quant_weights(q, i, t, 8, IR_WQ_SYMMETRIC_RESTRICTED, true, IR_DTYPE_I8);
					if (w < 0 || set_input(g, i, 1, w, q->d))
						return -1;
				} else if (to_f16_const(q, i, k)) {
					return -1;
				}
				continue;
			}
			int c = convert(q, i, t, want);
			if (c < 0 || (c != t && set_input(g, i, k, c, q->d)))
				return -1;
		}
		for (int k = 0; k < g->nodes[i].n_outputs; k++)
			if (g->nodes[i].outputs[k] >= 0 && g->tensors[g->nodes[i].outputs[k]].dtype == IR_DTYPE_F32)
				g->tensors[g->nodes[i].outputs[k]].dtype = want;
	}
	for (int k = 0; k < g->n_outputs; k++) {
		int t = g->outputs[k];
		const char *nm = g->tensors[t].name;
		if (g->tensors[t].dtype != IR_DTYPE_F16 || !o->output_f32 || in_list(nm, o->f16_outputs, o->n_f16_outputs))
			continue;
		if (float_output(q, k))
			return -1;
	}
	return 0;
}

int ir_quantize(ir_graph *g, const ir_calib *c, const ir_quant_opts *o, ir_pass_note note, void *user, ir_diag *d)
{
	for (int k = 0; k < o->n_f16_outputs; k++)
		if (ir_graph_find_tensor(g, o->f16_outputs[k]) < 0)
			return ir_fail(d, -1, -1, "fp16 output '%s' is not a tensor of the graph", o->f16_outputs[k]);
	for (int k = 0; k < o->n_wrange; k++)
		if (ir_graph_find_tensor(g, o->wrange[k].name) < 0)
			return ir_fail(d, -1, -1, "weight '%s' (fixed range) is not a tensor of the graph", o->wrange[k].name);
	for (int i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].precision != IR_PREC_NONE)
			return ir_fail(d, i, -1, "the graph is already quantized");
	qctx q = {.g = g, .c = c, .o = o, .note = note, .user = user, .d = d, .n0 = g->n_nodes};
	int nt = g->n_tensors;
	q.conv_q = malloc(sizeof(int) * (size_t)(nt + 1));
	q.conv_dq = malloc(sizeof(int) * (size_t)(nt + 1));
	int rc = -1;
	if (!q.conv_q || !q.conv_dq) {
		ir_fail(d, -1, -1, "out of memory");
		goto out;
	}
	for (int t = 0; t < nt; t++)
		q.conv_q[t] = q.conv_dq[t] = -1;
	if (o->fp16 ? quantize_f16(&q) : quantize_int(&q))
		goto out;
	if (ir_graph_toposort(g, d) || ir_graph_infer_shapes(g, d))
		goto out;
	ir_graph_prune(g);
	char buf[64];
	ir_meta_set_str(g, "quant.scheme", o->fp16 ? "fp16" : o->act == IR_PREC_I16 ? "int16" : "int8");
	if (!o->fp16) {
		ir_meta_set_str(g, "quant.weights", wq_names[o->wscheme]);
		ir_meta_set_int(g, "quant.weight_bits", o->wbits);
		ir_meta_set_bool(g, "quant.per_channel", o->per_channel);
		ir_meta_set_str(g, "quant.method", ir_calib_method_str(&o->method, buf, sizeof buf));
		ir_meta_set_int(g, "quant.lut_bits", o->lut_bits);
	}
	rc = ir_graph_verify(g, d);
out:
	free(q.conv_q);
	free(q.conv_dq);
	return rc;
}

/* ---------------------------------------------------------------- data-driven refinement (ir_quant_refine) */

/* The weight grid quant_weights_axis gives channel c (axis 0): scale,
 * zero point and the code range. Kept next to it: both must agree. */
static void weight_grid(const float *v, int64_t per, int bits, int scheme, float *s, int32_t *z, double *qmin,
			double *qmax)
{
	*qmax = ldexp(1, bits - 1) - 1;
	*qmin = scheme == IR_WQ_SYMMETRIC_RESTRICTED ? -*qmax : -*qmax - 1;
	float lo = 0, hi = 0;
	for (int64_t k = 0; k < per; k++) {
		lo = v[k] < lo ? v[k] : lo;
		hi = v[k] > hi ? v[k] : hi;
	}
	double amax = fmax(-lo, hi);
	if (scheme == IR_WQ_ASYMMETRIC) {
		double r = (double)hi - lo;
		*s = (float)(r > 0 ? r / (*qmax - *qmin) : 1);
		double zp = *qmin - nearbyint(lo / *s);
		*z = (int32_t)(zp < *qmin ? *qmin : zp > *qmax ? *qmax : zp);
	} else {
		*s = (float)(amax > 0 ? (scheme == IR_WQ_SYMMETRIC_RESTRICTED ? amax / *qmax : 2 * amax / (*qmax - *qmin))
					: 1);
		*z = 0;
	}
}

/* The value ir_quantize will give weight w on that grid. */
static double on_grid(double w, float s, int32_t z, double qmin, double qmax)
{
	double r = nearbyint(w / s) + z;
	return s * ((r < qmin ? qmin : r > qmax ? qmax : r) - z);
}

#define RF_ROWS 4096			/* sampled input patches per layer */
#define RF_ROW_FLOATS (1 << 21)		/* at most 8 MB of them per layer */

typedef struct {
	int node, x, w, b;		/* the node and its input, weight, bias tensors */
	bool conv;
	int64_t n, c, h, wd, oc, g, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw;
	int64_t plen;			/* one patch: c * kh * kw (fully_connected: c) */
	double *sum;			/* [plen] sum of every patch (zero padding) */
	int64_t npos;
	float *rows;			/* [cap][plen] sampled patches */
	int64_t nrows, cap;
	int bits, scheme;
	bool pc;
} rlayer;

typedef struct {
	rlayer *l;
	int nl, sample, nsamples;
} rctx;

/* Patch at output position p (n, oy, ox) of a conv input into out[plen]. */
static void patch(const rlayer *L, const float *x, int64_t p, float *out)
{
	int64_t n = p / (L->oh * L->ow), oy = p / L->ow % L->oh, ox = p % L->ow;
	for (int64_t c = 0; c < L->c; c++)
		for (int64_t i = 0; i < L->kh; i++)
			for (int64_t j = 0; j < L->kw; j++) {
				int64_t y = oy * L->sh - L->pt + i * L->dh, xx = ox * L->sw - L->pl + j * L->dw;
				out[(c * L->kh + i) * L->kw + j] = y < 0 || y >= L->h || xx < 0 || xx >= L->wd ? 0 :
					x[((n * L->c + c) * L->h + y) * L->wd + xx];
			}
}

static int observe(rctx *r, rlayer *L, const float *x)
{
	int64_t P = L->conv ? L->n * L->oh * L->ow : L->n;	/* patches in this tensor */
	float *tmp = L->conv ? malloc(sizeof(float) * (size_t)L->plen) : NULL;
	if (L->conv && !tmp)
		return -1;
	for (int64_t p = 0; p < P; p++) {
		const float *v = x + p * L->plen;
		if (L->conv) {
			patch(L, x, p, tmp);
			v = tmp;
		}
		for (int64_t k = 0; k < L->plen; k++)
			L->sum[k] += v[k];
	}
	L->npos += P;
	/* an even share of the rows from every sample, evenly spaced */
	int64_t want = (L->cap + r->nsamples - 1) / r->nsamples;
	if (want > P)
		want = P;
	for (int64_t j = 0; j < want && L->nrows < L->cap; j++) {
		int64_t p = (j * P / want + r->sample) % P;
		float *dst = L->rows + L->nrows++ * L->plen;
		if (L->conv)
			patch(L, x, p, dst);
		else
			memcpy(dst, x + p * L->plen, sizeof(float) * (size_t)L->plen);
	}
	free(tmp);
	return 0;
}

static int refine_hook(void *user, const ir_graph *g, int node, int t, const void *data)
{
	(void)g, (void)node;
	rctx *r = user;
	for (int k = 0; k < r->nl; k++)
		if (r->l[k].x == t && observe(r, &r->l[k], data))
			return -1;
	return 0;
}

static double sigm(double v) { return 1 / (1 + exp(-v)); }

/* AdaRound for one output channel (Nagel et al. 2020): w[K] in units of
 * the step (w / s, zero point z), G[K x K] the normalized Gram matrix of
 * its inputs. Learns h in [0, 1] (rectified sigmoid of V) minimising
 * (floor(w) + h - w)^T G (floor(w) + h - w) + lambda sum(1 - |2h - 1|^beta),
 * beta annealed from 20 to 2 after a warm-up of a fifth of the iterations
 * (no regularizer then); Adam on V (full-batch gradients, step 0.05). out[K]: the integer codes chosen. Weights
 * that set the grid (the channel's extremes) keep their nearest code. */
static void adaround_channel(const double *w, const double *G, int64_t K, int iters, const bool *fixed, double qmin,
			     double qmax, int32_t z, double *out, double *tmp)
{
	/* lambda relative to the reconstruction term, whose Gram matrix has a
	 * mean diagonal of 1 (so both are in squared steps per weight) */
	const double zeta = 1.1, gamma = -0.1, lambda = 1, lr = 0.05;
	double *V = tmp, *m = tmp + K, *v2 = tmp + 2 * K, *d = tmp + 3 * K, *h = tmp + 4 * K;
	for (int64_t k = 0; k < K; k++) {
		double rest = w[k] - floor(w[k]);
		/* h(V) = rest: sigmoid(V) = (rest - gamma) / (zeta - gamma) */
		double sg = (rest - gamma) / (zeta - gamma);
		V[k] = log(sg / (1 - sg));
		m[k] = v2[k] = 0;
	}
	int warm = iters / 5;
	for (int it = 0; it < iters; it++) {
		for (int64_t k = 0; k < K; k++) {
			double hv = sigm(V[k]) * (zeta - gamma) + gamma;
			h[k] = hv < 0 ? 0 : hv > 1 ? 1 : hv;
			d[k] = fixed[k] ? 0 : floor(w[k]) + h[k] - w[k];
		}
		double beta = it < warm ? 0 : 20 + (2.0 - 20) * (it - warm) / (double)(iters - warm);
		for (int64_t k = 0; k < K; k++) {
			if (fixed[k])
				continue;
			double gr = 0;
			for (int64_t j = 0; j < K; j++)
				gr += G[k * K + j] * d[j];
			gr *= 2;
			if (beta > 0) {
				double u = 2 * h[k] - 1, au = fabs(u);
				if (au > 0)
					gr += lambda * -beta * pow(au, beta - 1) * (u > 0 ? 2 : -2);
			}
			double sg = sigm(V[k]), hv = sg * (zeta - gamma) + gamma;
			gr *= hv > 0 && hv < 1 ? sg * (1 - sg) * (zeta - gamma) : 0;
			m[k] = 0.9 * m[k] + 0.1 * gr;
			v2[k] = 0.999 * v2[k] + 0.001 * gr * gr;
			double mh = m[k] / (1 - pow(0.9, it + 1)), vh = v2[k] / (1 - pow(0.999, it + 1));
			V[k] -= lr * mh / (sqrt(vh) + 1e-8);
		}
	}
	for (int64_t k = 0; k < K; k++) {
		double hv = sigm(V[k]) * (zeta - gamma) + gamma;
		double r = fixed[k] ? nearbyint(w[k]) : floor(w[k]) + (hv >= 0.5);
		r += z;
		out[k] = (r < qmin ? qmin : r > qmax ? qmax : r) - z;
	}
}

static double cosine(const double *a, const double *b, int64_t n)
{
	double ab = 0, aa = 0, bb = 0;
	for (int64_t i = 0; i < n; i++)
		ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
	return aa > 0 && bb > 0 ? ab / sqrt(aa * bb) : aa == bb ? 1 : 0;
}

#define EQ_ROWS 512		/* patches EasyQuant scores on */
#define EQ_STEPS 50		/* candidates from 0.5 to 1 times the scale */

/* x quantized with scale s, zero point z, codes [qmin, qmax], back to float. */
static double fake_quant(double x, double s, double z, double qmin, double qmax)
{
	double r = nearbyint(x / s) + z;
	return ((r < qmin ? qmin : r > qmax ? qmax : r) - z) * s;
}

/* EasyQuant (Wu et al. 2020) for one layer on its sampled patches: the
 * weight scale of each output channel (clipping its weights to alpha times
 * their largest magnitude) and the input's activation scale (beta times
 * the calibrated range) are searched in turn, two rounds, each among
 * 0.5..1 in EQ_STEPS steps, for the largest cosine similarity between the
 * float layer output and the one with quantized weights and inputs (per
 * channel for the weights, over the whole output for the activation).
 * fixed_act: the input's range is already chosen (beta stays 1). The
 * weights are clipped in w (symmetric schemes only; otherwise only the
 * activation scale is searched). */
static int easyquant(const rlayer *L, float *w, const float *bias, float lo, float hi, int abits, bool asym,
		     bool fixed_act, double *beta, ir_diag *d)
{
	int64_t R = L->nrows < EQ_ROWS ? L->nrows : EQ_ROWS, oc = L->oc, G = L->conv ? L->g : 1;
	int64_t ocg = oc / G, K = L->conv ? L->c / G * L->kh * L->kw : L->plen;
	double *Y = malloc(sizeof(double) * (size_t)(R * oc + 1));
	double *Xq = malloc(sizeof(double) * (size_t)(R * L->plen + 1)), *wq = malloc(sizeof(double) * (size_t)K);
	double *alpha = malloc(sizeof(double) * (size_t)oc), *Yall = malloc(sizeof(double) * (size_t)(R * oc + 1));
	if (!Y || !Xq || !wq || !alpha || !Yall) {
		free(Y), free(Xq), free(wq), free(alpha), free(Yall);
		return ir_fail(d, L->node, L->x, "out of memory");
	}
	bool sym_w = L->scheme != IR_WQ_ASYMMETRIC;
	double wqmax = ldexp(1, L->bits - 1) - 1, wqmin = L->scheme == IR_WQ_SYMMETRIC_RESTRICTED ? -wqmax : -wqmax - 1;
	double aqmin = -ldexp(1, abits - 1), aqmax = ldexp(1, abits - 1) - 1;
	for (int64_t r = 0; r < R; r++)
		for (int64_t o = 0; o < oc; o++) {
			const float *x = L->rows + r * L->plen + (L->conv ? (o / ocg) * K : 0), *wo = w + o * K;
			double acc = bias ? bias[o] : 0;
			for (int64_t k = 0; k < K; k++)
				acc += (double)x[k] * wo[k];
			Y[o * R + r] = acc;
		}
	/* the channel's (or tensor's) largest magnitude: the scale at alpha 1 */
	double *amax = malloc(sizeof(double) * (size_t)oc);
	if (!amax) {
		free(Y), free(Xq), free(wq), free(alpha), free(Yall);
		return ir_fail(d, L->node, L->x, "out of memory");
	}
	double tmax = 0;
	for (int64_t o = 0; o < oc; o++) {
		amax[o] = 0;
		for (int64_t k = 0; k < K; k++)
			amax[o] = fmax(amax[o], fabs(w[o * K + k]));
		tmax = fmax(tmax, amax[o]);
		alpha[o] = 1;
	}
	if (!L->pc)
		for (int64_t o = 0; o < oc; o++)
			amax[o] = tmax;
	*beta = 1;
	for (int round = 0; round < 2; round++) {
		/* inputs at the current activation scale */
		float as;
		int32_t az;
		act_qparams((float)(*beta * lo), (float)(*beta * hi), abits, !asym, &as, &az);
		for (int64_t i = 0; i < R * L->plen; i++)
			Xq[i] = fake_quant(L->rows[i], as, az, aqmin, aqmax);
		/* weights: per channel (or one factor for all), best cosine */
		if (sym_w) {
			int64_t nsets = L->pc ? oc : 1;
			for (int64_t set = 0; set < nsets; set++) {
				int64_t o0 = L->pc ? set : 0, o1 = L->pc ? set + 1 : oc;
				double best = -2, ba = alpha[o0];
				for (int step = 0; step <= EQ_STEPS; step++) {
					double a = 1 - 0.5 * step / EQ_STEPS, num = 0, da = 0, db = 0;
					for (int64_t o = o0; o < o1; o++) {
						double sw = a * amax[o] / (L->scheme == IR_WQ_SYMMETRIC_RESTRICTED ? wqmax : (wqmax - wqmin) / 2);
						if (!(sw > 0))
							continue;
						for (int64_t k = 0; k < K; k++)
							wq[k] = fake_quant(w[o * K + k], sw, 0, wqmin, wqmax);
						for (int64_t r = 0; r < R; r++) {
							const double *x = Xq + r * L->plen + (L->conv ? (o / ocg) * K : 0);
							double acc = bias ? bias[o] : 0;
							for (int64_t k = 0; k < K; k++)
								acc += x[k] * wq[k];
							num += acc * Y[o * R + r], da += acc * acc, db += Y[o * R + r] * Y[o * R + r];
						}
					}
					double cs = da > 0 && db > 0 ? num / sqrt(da * db) : 0;
					if (cs > best + 1e-12)
						best = cs, ba = a;
				}
				for (int64_t o = o0; o < o1; o++)
					alpha[o] = ba;
			}
		}
		if (fixed_act)
			break;
		/* the activation scale with those weights: cosine over the whole output */
		double bestb = -2, bb = *beta;
		for (int step = 0; step <= EQ_STEPS; step++) {
			double b = 1 - 0.5 * step / EQ_STEPS;
			act_qparams((float)(b * lo), (float)(b * hi), abits, !asym, &as, &az);
			for (int64_t o = 0; o < oc; o++) {
				double sw = alpha[o] * amax[o] / (L->scheme == IR_WQ_SYMMETRIC_RESTRICTED ? wqmax : (wqmax - wqmin) / 2);
				for (int64_t k = 0; k < K; k++)
					wq[k] = sym_w && sw > 0 ? fake_quant(w[o * K + k], sw, 0, wqmin, wqmax) : w[o * K + k];
				for (int64_t r = 0; r < R; r++) {
					const float *x = L->rows + r * L->plen + (L->conv ? (o / ocg) * K : 0);
					double acc = bias ? bias[o] : 0;
					for (int64_t k = 0; k < K; k++)
						acc += fake_quant(x[k], as, az, aqmin, aqmax) * wq[k];
					Yall[o * R + r] = acc;
				}
			}
			double cs = cosine(Yall, Y, R * oc);
			if (cs > bestb + 1e-12)
				bestb = cs, bb = b;
		}
		*beta = bb;
	}
	/* clip the weights: the largest magnitude left is alpha * amax, the scale
	 * quantization then computes */
	for (int64_t o = 0; sym_w && o < oc; o++) {
		double t = alpha[o] * amax[o];
		for (int64_t k = 0; k < K; k++)
			w[o * K + k] = (float)fmax(-t, fmin(t, w[o * K + k]));
	}
	free(Y), free(Xq), free(wq), free(alpha), free(Yall), free(amax);
	return 0;
}

/* Refine one layer's weights (AdaRound) and bias (bias correction). orig:
 * the weights before EasyQuant clipped them (the bias corrects the error
 * against those). */
static int refine_layer(ir_graph *g, rlayer *L, const ir_qrefine_opts *ro, const float *orig, int *changed,
			ir_diag *d)
{
	const ir_tensor *wt = &g->tensors[L->w];
	int64_t nw = ir_shape_numel(&wt->shape), oc = L->oc, per = nw / oc, G = L->conv ? L->g : 1;
	int64_t ocg = oc / G, K = per;	/* weights of one channel = one group's patch */
	int64_t nch = L->pc ? oc : 1, cper = L->pc ? per : nw;
	float *w0 = const_f32(wt), *wn = malloc(sizeof(float) * (size_t)nw);
	float *s = malloc(sizeof(float) * (size_t)nch);
	int32_t *z = malloc(sizeof(int32_t) * (size_t)nch);
	double *qlo = malloc(sizeof(double) * (size_t)nch), *qhi = malloc(sizeof(double) * (size_t)nch);
	double *Gm = ro->adaround ? malloc(sizeof(double) * (size_t)(K * K)) : NULL;
	double *wv = malloc(sizeof(double) * (size_t)K * 7);
	bool *fixed = malloc((size_t)K);
	int rc = -1;
	if (!w0 || !wn || !s || !z || !qlo || !qhi || !wv || !fixed || (ro->adaround && !Gm)) {
		ir_fail(d, L->node, L->w, "out of memory");
		goto done;
	}
	for (int64_t c = 0; c < nch; c++)
		weight_grid(w0 + c * cper, cper, L->bits, L->scheme, &s[c], &z[c], &qlo[c], &qhi[c]);
	for (int64_t i = 0; i < nw; i++) {
		int64_t c = L->pc ? i / per : 0;
		wn[i] = (float)on_grid(w0[i], s[c], z[c], qlo[c], qhi[c]);
	}
	if (ro->adaround && L->nrows > 0) {
		for (int64_t gi = 0; gi < G; gi++) {
			/* Gram matrix of this group's patches, normalized to a mean diagonal of 1 */
			int64_t off = gi * K;
			double tr = 0;
			for (int64_t a = 0; a < K; a++)
				for (int64_t b = a; b < K; b++) {
					double acc = 0;
					for (int64_t r = 0; r < L->nrows; r++) {
						const float *v = L->rows + r * L->plen + off;
						acc += (double)v[a] * v[b];
					}
					Gm[a * K + b] = Gm[b * K + a] = acc;
				}
			for (int64_t a = 0; a < K; a++)
				tr += Gm[a * K + a];
			if (!(tr > 0))
				continue;
			for (int64_t a = 0; a < K * K; a++)
				Gm[a] *= K / tr;
			for (int64_t o = gi * ocg; o < (gi + 1) * ocg; o++) {
				int64_t c = L->pc ? o : 0;
				const float *wc = w0 + o * per;
				float lo = 0, hi = 0;
				for (int64_t k = 0; k < K; k++) {
					lo = wc[k] < lo ? wc[k] : lo;
					hi = wc[k] > hi ? wc[k] : hi;
				}
				for (int64_t k = 0; k < K; k++) {
					wv[k] = wc[k] / (double)s[c];
					/* the grid's ends stay where they are (symmetric: only amax matters) */
					fixed[k] = L->scheme == IR_WQ_ASYMMETRIC ? (wc[k] == lo || wc[k] == hi) :
						fabsf(wc[k]) == fmaxf(-lo, hi);
				}
				adaround_channel(wv, Gm, K, ro->adaround, fixed, qlo[c], qhi[c], z[c], wv + K, wv + 2 * K);
				for (int64_t k = 0; k < K; k++)
					wn[o * per + k] = (float)(s[c] * wv[K + k]);
			}
		}
		if (ir_tensor_set_data(g, L->w, wn, sizeof(float) * (size_t)nw, d))
			goto done;
		(*changed)++;
	}
	if (ro->bias_correction && L->npos > 0) {
		/* E[(W_q - W) x] per output channel, from the mean patch */
		float *bias = calloc((size_t)oc, sizeof(float));
		if (!bias) {
			ir_fail(d, L->node, L->w, "out of memory");
			goto done;
		}
		if (L->b >= 0) {
			float *b0 = const_f32(&g->tensors[L->b]);
			if (!b0) {
				free(bias);
				ir_fail(d, L->node, L->b, "out of memory");
				goto done;
			}
			memcpy(bias, b0, sizeof(float) * (size_t)oc);
			free(b0);
		}
		for (int64_t o = 0; o < oc; o++) {
			int64_t off = L->conv ? (o / ocg) * K : 0;
			double e = 0;
			for (int64_t k = 0; k < K; k++)
				e += ((double)wn[o * per + k] - orig[o * per + k]) * (L->sum[off + k] / (double)L->npos);
			bias[o] = (float)(bias[o] - e);
		}
		int bt = L->b;
		if (bt < 0) {
			char name[300];
			snprintf(name, sizeof name, "%s.bias", g->nodes[L->node].name);
			ir_shape sh = {1, {oc}};
			bt = new_const(g, name, IR_DTYPE_F32, &sh, bias, d);
			if (bt < 0 || (g->nodes[L->node].n_inputs < 3 ?
				       ir_node_set_inputs(g, L->node,
							  (int[]){g->nodes[L->node].inputs[0], g->nodes[L->node].inputs[1], bt},
							  3, d) :
				       set_input(g, L->node, 2, bt, d))) {
				free(bias);
				goto done;
			}
		} else if (ir_tensor_set_data(g, bt, bias, sizeof(float) * (size_t)oc, d)) {
			free(bias);
			goto done;
		}
		free(bias);
		(*changed)++;
	}
	rc = 0;
done:
	free(w0);
	free(wn);
	free(s);
	free(z);
	free(qlo);
	free(qhi);
	free(Gm);
	free(wv);
	free(fixed);
	return rc;
}

/* How many nodes use tensor t as an input. */
static int uses(const ir_graph *g, int t)
{
	int n = 0;
	for (int i = 0; i < g->n_nodes; i++)
		for (int k = 0; k < g->nodes[i].n_inputs; k++)
			n += g->nodes[i].inputs[k] == t;
	return n;
}

/* The layers to refine: conv (2-D) and fully_connected nodes with their
 * own float32 weights that ir_quantize makes integer. */
static int find_layers(const ir_graph *g, const ir_quant_opts *o, rlayer **out, int *n, bool rows, ir_diag *d)
{
	rlayer *l = calloc((size_t)g->n_nodes + 1, sizeof *l);
	int nl = 0;
	if (!l)
		return ir_fail(d, -1, -1, "out of memory");
	for (int i = 0; i < g->n_nodes; i++) {
		const ir_node *nd = &g->nodes[i];
		bool conv = nd->op == IR_OP_CONV;
		if (!conv && nd->op != IR_OP_FULLY_CONNECTED)
			continue;
		const ir_qlayer *ly = o->layer ? &o->layer[i] : NULL;
		if ((ly && (ly->prec == IR_PREC_F32 || ly->prec == IR_PREC_F16)) || (o->ops && !o->ops[nd->op]) ||
		    ir_quant_int_unsupported(g, i))
			continue;
		const ir_tensor *x = &g->tensors[nd->inputs[0]], *w = &g->tensors[nd->inputs[1]];
		int b = nd->n_inputs > 2 ? nd->inputs[2] : -1;
		if (w->kind != IR_KIND_CONST || w->dtype != IR_DTYPE_F32 || x->dtype != IR_DTYPE_F32 ||
		    uses(g, nd->inputs[1]) != 1 ||
		    (b >= 0 && (g->tensors[b].kind != IR_KIND_CONST || g->tensors[b].dtype != IR_DTYPE_F32 ||
				uses(g, b) != 1)))
			continue;
		rlayer L = {.node = i, .x = nd->inputs[0], .w = nd->inputs[1], .b = b, .conv = conv};
		L.bits = ly && ly->wbits ? ly->wbits : o->wbits;
		L.scheme = ly && ly->wscheme >= 0 ? ly->wscheme : (int)o->wscheme;
		L.pc = ly && ly->per_channel >= 0 ? ly->per_channel : o->per_channel;
		L.oc = w->shape.dim[0];
		if (conv) {
			const ir_tensor *y = &g->tensors[nd->outputs[0]];
			const int64_t *st, *pd, *dl;
			if (x->shape.rank != 4 || w->shape.rank != 4 || y->shape.rank != 4 ||
			    ir_node_ints(g, i, "strides", &st) != 2 || ir_node_ints(g, i, "pads", &pd) != 4 ||
			    ir_node_ints(g, i, "dilations", &dl) != 2)
				continue;
			L.n = x->shape.dim[0], L.c = x->shape.dim[1], L.h = x->shape.dim[2], L.wd = x->shape.dim[3];
			L.g = ir_node_int(g, i, "group", 1);
			L.kh = w->shape.dim[2], L.kw = w->shape.dim[3];
			L.oh = y->shape.dim[2], L.ow = y->shape.dim[3];
			L.sh = st[0], L.sw = st[1], L.pt = pd[0], L.pl = pd[1], L.dh = dl[0], L.dw = dl[1];
			L.plen = L.c * L.kh * L.kw;
			if (L.g < 1 || L.c % L.g || L.oc % L.g || w->shape.dim[1] * L.g != L.c)
				continue;
		} else {
			if (w->shape.rank != 2 || x->shape.rank < 1 || x->shape.dim[x->shape.rank - 1] != w->shape.dim[1])
				continue;
			L.c = L.plen = w->shape.dim[1];
			L.n = ir_shape_numel(&x->shape) / L.c;
			L.g = 1;
		}
		L.sum = calloc((size_t)L.plen, sizeof(double));
		L.cap = rows ? RF_ROWS : 0;
		if (L.cap * L.plen > RF_ROW_FLOATS)
			L.cap = RF_ROW_FLOATS / L.plen;
		L.rows = malloc(sizeof(float) * (size_t)(L.cap * L.plen + 1));
		if (!L.sum || !L.rows) {
			free(L.sum);
			free(L.rows);
			for (int k = 0; k < nl; k++)
				free(l[k].sum), free(l[k].rows);
			free(l);
			return ir_fail(d, i, -1, "out of memory");
		}
		l[nl++] = L;
	}
	*out = l;
	*n = nl;
	return 0;
}

void ir_qrefine_free(ir_qrefine_opts *ro)
{
	for (int k = 0; k < ro->n_act_range; k++)
		free((char *)ro->act_range[k].name);
	free(ro->act_range);
	ro->act_range = NULL;
	ro->n_act_range = 0;
}

int ir_quant_refine(ir_graph *g, const ir_calib *c, const ir_quant_opts *o, ir_qrefine_opts *ro,
		    const float *const *samples, int n, ir_pass_note note, void *user, ir_diag *d)
{
	ro->act_range = NULL;
	ro->n_act_range = 0;
	if (o->fp16 || (!ro->bias_correction && !ro->adaround && !ro->easyquant))
		return 0;
	if (ro->easyquant && !c)
		return ir_fail(d, -1, -1, "EasyQuant needs calibration statistics");
	if (n <= 0)
		return ir_fail(d, -1, -1, "refining the weights needs calibration samples");
	if (ro->adaround < 0 || ro->adaround > 1000000)
		return ir_fail(d, -1, -1, "AdaRound iterations must be 0 to 1000000, not %d", ro->adaround);
	int ni = ir_graph_input_count(g);
	for (int i = 0; i < ni; i++)
		if (g->tensors[ir_graph_input(g, i)].dtype != IR_DTYPE_F32)
			return ir_fail(d, -1, ir_graph_input(g, i), "refining the weights needs float32 inputs; '%s' is not",
				       g->tensors[ir_graph_input(g, i)].name);
	rctx r = {.nsamples = n};
	if (find_layers(g, o, &r.l, &r.nl, ro->adaround > 0 || ro->easyquant, d))
		return -1;
	int rc = -1, changed = 0;
	ir_exec *e = ir_exec_new(g, IR_MODE_F32, 1, d);
	if (!e)
		goto out;
	ir_exec_set_hook(e, refine_hook, &r);
	for (int s = 0; s < n; s++) {
		r.sample = s;
		for (int i = 0; i < ni; i++) {
			int t = ir_graph_input(g, i);
			const float *x = samples[(size_t)s * (size_t)ni + (size_t)i];
			if (ir_exec_set_input_f32(e, i, x, ir_shape_numel(&g->tensors[t].shape), d) ||
			    refine_hook(&r, g, -1, t, x))
				goto out;
		}
		if (ir_exec_run(e, d))
			goto out;
	}
	ir_exec_free(e);
	e = NULL;
	if (ro->easyquant && !(ro->act_range = calloc((size_t)r.nl + 1, sizeof *ro->act_range))) {
		ir_fail(d, -1, -1, "out of memory");
		goto out;
	}
	for (int k = 0; k < r.nl; k++) {
		rlayer *L = &r.l[k];
		int before = changed;
		float *orig = const_f32(&g->tensors[L->w]);
		if (!orig) {
			ir_fail(d, L->node, L->w, "out of memory");
			goto out;
		}
		char msg[200] = "";
		if (ro->easyquant && L->nrows > 0) {
			const ir_qlayer *ly = o->layer ? &o->layer[L->node] : NULL;
			int abits = (ly && ly->prec == IR_PREC_I16) || (!(ly && ly->prec == IR_PREC_I8) && o->act == IR_PREC_I16)
					    ? 16 : 8;
			const char *xn = g->tensors[L->x].name;
			float lo, hi;
			int have = -1;
			for (int j = 0; j < ro->n_act_range; j++)
				if (!strcmp(ro->act_range[j].name, xn))
					have = j;
			ir_calib_method m = ly && ly->has_method ? ly->method : o->method;
			if (have >= 0)
				lo = ro->act_range[have].min, hi = ro->act_range[have].max;
			else if (ir_calib_range(c, xn, &m, abits, o->act_symmetric, &lo, &hi, d)) {
				free(orig);
				d->node = L->node;
				goto out;
			}
			float *w = malloc(sizeof(float) * (size_t)ir_shape_numel(&g->tensors[L->w].shape));
			float *b = L->b >= 0 ? const_f32(&g->tensors[L->b]) : NULL;
			double beta = 1;
			int erc = !w || (L->b >= 0 && !b) ? ir_fail(d, L->node, L->w, "out of memory") : 0;
			if (!erc) {
				memcpy(w, orig, sizeof(float) * (size_t)ir_shape_numel(&g->tensors[L->w].shape));
				erc = easyquant(L, w, b, lo, hi, abits, !o->act_symmetric, have >= 0, &beta, d);
			}
			if (!erc)
				erc = ir_tensor_set_data(g, L->w, w,
							 sizeof(float) * (size_t)ir_shape_numel(&g->tensors[L->w].shape), d);
			free(w);
			free(b);
			if (erc) {
				free(orig);
				goto out;
			}
			if (have < 0) {
				char *nm = strdup(xn);
				if (!nm) {
					free(orig);
					ir_fail(d, -1, -1, "out of memory");
					goto out;
				}
				ro->act_range[ro->n_act_range++] = (ir_qrange){nm, (float)(beta * lo), (float)(beta * hi)};
			}
			changed++;
			snprintf(msg, sizeof msg, "easyquant (input range x %.2f)", beta);
		}
		if (refine_layer(g, L, ro, orig, &changed, d)) {
			free(orig);
			goto out;
		}
		free(orig);
		if (note && changed > before) {
			size_t u = strlen(msg);
			snprintf(msg + u, sizeof msg - u, "%s%s%s%s", u && ro->adaround ? ", " : "", ro->adaround ? "adaround" : "",
				 (u || ro->adaround) && ro->bias_correction ? ", " : "",
				 ro->bias_correction ? "bias correction" : "");
			note(user, g, L->node, msg);
		}
	}
	rc = ir_graph_verify(g, d);
out:
	ir_exec_free(e);
	for (int k = 0; k < r.nl; k++)
		free(r.l[k].sum), free(r.l[k].rows);
	free(r.l);
	return rc;
}
