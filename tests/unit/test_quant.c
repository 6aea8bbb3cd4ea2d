/* test_quant.c - the quantizer and the lowering to the runtime, on graphs
 * small enough to work out by hand (the derivations are in the comments):
 * requantization multipliers, an int8 convolution between quantize and
 * dequantize executed through ir_exec (which lowers it), a sigmoid made a
 * lookup table by ir_quantize, and the lowering's refusals; bias
 * correction and AdaRound (ir_quant_refine) against nearest rounding. */
#include "check.h"
#include "ir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int add(ir_graph *g, const char *name, ir_dtype t, ir_shape s, ir_kind k)
{
	ir_diag d;
	int id = ir_graph_add_tensor(g, name, t, &s, k, &d);
	if (id < 0)
		printf("# %s: %s\n", name, d.msg);
	return id;
}

static void set_q(ir_graph *g, int t, int n, const float *s, const int32_t *z)
{
	ir_quant q = {.bits = 8, .symmetric = false, .axis = n > 1 ? 0 : -1, .n = n, .scale = (float *)s,
		      .zero_point = (int32_t *)z};
	ir_diag d;
	if (ir_tensor_set_quant(g, t, &q, &d))
		printf("# quant: %s\n", d.msg);
}

static int node(ir_graph *g, const char *name, int op, const int *in, int nin, int out)
{
	ir_diag d;
	int id = ir_graph_add_node(g, name, op, in, nin, &out, 1, &d);
	if (id < 0)
		printf("# %s: %s\n", name, d.msg);
	return id;
}

static void multipliers(void)
{
	int32_t m;
	int s;
	/* m = mult * 2^-shift with mult in [2^30, 2^31) */
	CHECK(ir_quant_multiplier(0.5, &m, &s) == 0 && m == 1073741824 && s == 31);	/* 2^30 / 2^31 */
	CHECK(ir_quant_multiplier(0.25, &m, &s) == 0 && m == 1073741824 && s == 32);
	CHECK(ir_quant_multiplier(0.75, &m, &s) == 0 && m == 1610612736 && s == 31);	/* 3 * 2^29 */
	CHECK(ir_quant_multiplier(1.5, &m, &s) == 0 && m == 1610612736 && s == 30);
	/* 1/3: 2^32 / 3 = 1431655765.33 rounds down */
	CHECK(ir_quant_multiplier(1.0 / 3, &m, &s) == 0 && m == 1431655765 && s == 32);
	CHECK(ir_quant_multiplier(1e-12, &m, &s) == 0 && m == 0 && s == 0);	/* below 2^-32: always 0 */
	CHECK(ir_quant_multiplier(0, &m, &s) == -1);
	CHECK(ir_quant_multiplier(-0.5, &m, &s) == -1);
	CHECK(ir_quant_multiplier(INFINITY, &m, &s) == -1);
	CHECK(ir_quant_multiplier(2147483648.0, &m, &s) == -1);
	CHECK(npu_rshift_round(7, 1) == 4 && npu_rshift_round(-1, 1) == 0 && npu_rshift_round(-5, 1) == -2 &&
	      npu_rshift_round(-13, 2) == -3);	/* half up: 3.5 -> 4, -0.5 -> 0, -2.5 -> -2, -3.25 -> -3 */
}

/* x f32 [1,1,1,4] -> quantize (s 0.5, zp 1) -> conv 1x1, 2 channels,
 * relu (s 0.25, zp -2) -> dequantize -> y f32 [1,2,1,4].
 *   x = [1.0, -0.75, 2.2, 0.3]: x/0.5 = [2, -1.5, 4.4, 0.6] round half even
 *   [2, -2, 4, 1], + zp 1: xq = [3, -1, 5, 2]; xq - zx = [2, -2, 4, 1].
 *   channel 0: w 2 (s 0.25), bias 3: acc = [7, -1, 11, 5];
 *     M = 0.5 * 0.25 / 0.25 = 0.5: acc / 2 half up = [4, 0, 6, 3];
 *     + zy -2 = [2, -2, 4, 1]; relu clamps at zy = -2; dequantized
 *     (q + 2) * 0.25 = [1.0, 0, 1.5, 0.75].
 *   channel 1: w -4 (s 0.125), bias -5: acc = [-13, 3, -21, -9];
 *     M = 0.5 * 0.125 / 0.25 = 0.25: acc / 4 half up = [-3, 1, -5, -2];
 *     + zy = [-5, -1, -7, -4]; clamp at -2: [-2, -1, -2, -2];
 *     dequantized [0, 0.25, 0, 0]. */
static void int8_conv(void)
{
	ir_graph *g = ir_graph_new();
	ir_diag d;
	int x = add(g, "x", IR_DTYPE_F32, (ir_shape){4, {1, 1, 1, 4}}, IR_KIND_INPUT);
	int xq = add(g, "xq", IR_DTYPE_I8, (ir_shape){4, {1, 1, 1, 4}}, IR_KIND_ACTIVATION);
	int yq = add(g, "yq", IR_DTYPE_I8, (ir_shape){4, {1, 2, 1, 4}}, IR_KIND_ACTIVATION);
	int y = add(g, "y", IR_DTYPE_F32, (ir_shape){4, {1, 2, 1, 4}}, IR_KIND_ACTIVATION);
	int8_t wv[2] = {2, -4};
	int32_t bv[2] = {3, -5};
	ir_shape ws = {4, {2, 1, 1, 1}}, bs = {1, {2}};
	int w = ir_graph_add_const(g, "w", IR_DTYPE_I8, &ws, wv, &d);
	int b = ir_graph_add_const(g, "b", IR_DTYPE_I32, &bs, bv, &d);
	float sx = 0.5f, sy = 0.25f, sw[2] = {0.25f, 0.125f}, sb[2] = {0.125f, 0.0625f};
	int32_t zx = 1, zy = -2, z0[2] = {0, 0};
	set_q(g, xq, 1, &sx, &zx);
	set_q(g, yq, 1, &sy, &zy);
	set_q(g, w, 2, sw, z0);
	set_q(g, b, 2, sb, z0);
	int k = node(g, "q", IR_OP_QUANTIZE, &x, 1, xq);
	ir_node_set_str(g, k, "to", "i8");
	int cin[3] = {xq, w, b};
	k = node(g, "conv", IR_OP_CONV, cin, 3, yq);
	ir_node_set_str(g, k, "act", "relu");
	ir_graph_node(g, k)->precision = IR_PREC_I8;
	k = node(g, "dq", IR_OP_DEQUANTIZE, &yq, 1, y);
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &y, 1, &d);
	CHECK_MSG(ir_graph_verify(g, &d) == 0, "%s", d.msg);
	ir_exec *e = ir_exec_new(g, IR_MODE_F32, 1, &d);
	CHECK_MSG(e != NULL, "%s", d.msg);
	float in[4] = {1.0f, -0.75f, 2.2f, 0.3f}, want[8] = {1.0f, 0, 1.5f, 0.75f, 0, 0.25f, 0, 0};
	if (e) {
		size_t n;
		CHECK(ir_exec_set_input(e, 0, in, sizeof in, &d) == 0 && ir_exec_run(e, &d) == 0);
		const float *out = ir_exec_output(e, 0, &n);
		CHECK(n == sizeof want && memcmp(out, want, sizeof want) == 0);
		for (int i = 0; i < 8 && out; i++)
			if (out[i] != want[i])
				printf("# y[%d] = %g, want %g\n", i, out[i], want[i]);
	}
	ir_exec_free(e);

	/* the same conv with a sigmoid fused: no integer kernel applies one */
	ir_node_set_str(g, 1, "act", "sigmoid");
	ir_lowered l;
	CHECK(ir_lower(g, &l, NULL, NULL, &d) == -1 && strstr(d.msg, "fused activation 'sigmoid' on an integer convolution"));
	ir_graph_free(g);
}

/* sigmoid on int8 through ir_quantize. x observed in [-4, 3]: scale
 * (float)(7/255) = 0.02745098, zero point -128 - rne(-4 / 0.02745098 =
 * -145.714) = 18; y observed in [0, 0.99] (the range always includes 0):
 * scale (float)(0.99/255) = 0.003882353, zero point -128. Entry for code q
 * is rne(sigmoid(0.02745098 * (q - 18)) / 0.003882353) - 128:
 *   q = 18:   x = 0, sigmoid 0.5 -> 128.79 -> 129 -> 1
 *   q = 127:  x = 2.992157, sigmoid 0.9522185 -> 245.27 -> 245 -> 117
 *   q = -128: x = -4.007843, sigmoid 0.0178482 -> 4.597 -> 5 -> -123
 *   q = 0:    x = -0.4941177, sigmoid 0.3789240 -> 97.60 -> 98 -> -30 */
static void lut(void)
{
	ir_graph *g = ir_graph_new();
	ir_diag d;
	int x = add(g, "x", IR_DTYPE_F32, (ir_shape){2, {1, 4}}, IR_KIND_INPUT);
	int y = add(g, "y", IR_DTYPE_F32, (ir_shape){2, {1, 4}}, IR_KIND_ACTIVATION);
	node(g, "sig", IR_OP_SIGMOID, &x, 1, y);
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &y, 1, &d);
	ir_calib *c = ir_calib_new();
	float xs[2] = {-4, 3}, ys[2] = {0.5f, 0.99f};
	CHECK(ir_calib_observe(c, "x", xs, 2, &d) == 0 && ir_calib_observe(c, "y", ys, 2, &d) == 0);
	ir_quant_opts o;
	ir_quant_defaults(&o);
	o.method.kind = IR_CALIB_MINMAX;	/* the ranges above are minmax's */
	CHECK_MSG(ir_quant_prepare(g, &o, &d) == 0 && ir_quantize(g, c, &o, NULL, NULL, &d) == 0, "%s", d.msg);
	int n = ir_graph_find_node(g, "sig");
	const ir_node *s = n >= 0 ? ir_graph_node(g, n) : NULL;
	CHECK(s && s->op == IR_OP_LUT && s->precision == IR_PREC_I8 && !strcmp(ir_node_str(g, n, "fn", ""), "sigmoid"));
	if (s && s->op == IR_OP_LUT) {
		const ir_tensor *xt = ir_graph_tensor(g, s->inputs[0]), *t = ir_graph_tensor(g, s->inputs[1]);
		const int8_t *tab = t->data;
		CHECK(xt->quant && xt->quant->zero_point[0] == 18 && xt->quant->scale[0] == (float)(7.0 / 255));
		CHECK(ir_shape_numel(&t->shape) == 256 && tab[18 + 128] == 1 && tab[127 + 128] == 117 &&
		      tab[0] == -123 && tab[128] == -30);
	}
	/* the graph still runs and gives sigmoid within a code */
	ir_exec *e = ir_exec_new(g, IR_MODE_F32, 1, &d);
	float in[4] = {-2, 0, 1, 2.5f}, err = 0;
	if (e && ir_exec_set_input(e, 0, in, sizeof in, &d) == 0 && ir_exec_run(e, &d) == 0) {
		const float *out = ir_exec_output(e, 0, NULL);
		for (int i = 0; i < 4; i++)
			err = fmaxf(err, fabsf(out[i] - 1 / (1 + expf(-in[i]))));
	} else {
		err = 1;
	}
	/* half a code of x (0.0137) through sigmoid's slope (at most 1/4), plus
	 * half a code of y (0.0019) */
	CHECK_MSG(err <= 0.0137f / 4 + 0.0020f, "max error %g", err);
	ir_exec_free(e);
	ir_calib_free(c);
	ir_graph_free(g);
}

/* reduce_mean and reduce_max on int8 codes. x [1,4] scale 0.5, zero point
 * 2, codes [3, 7, -1, 6]: x - zx = [1, 5, -3, 4]. y scale 0.25, zero point
 * -1. Mean: sum 7, M = 0.5 / 0.25 / 4 = 0.5, 3.5 rounds half up to 4, y =
 * -1 + 4 = 3 (real 1.0; the float mean is 0.875). Max: 5, M = 2, y = -1 +
 * 10 = 9. */
static void reduce_int8(void)
{
	for (int k = 0; k < 2; k++) {
		ir_graph *g = ir_graph_new();
		ir_diag d;
		int x = add(g, "x", IR_DTYPE_I8, (ir_shape){2, {1, 4}}, IR_KIND_INPUT);
		int y = add(g, "y", IR_DTYPE_I8, (ir_shape){2, {1, 1}}, IR_KIND_ACTIVATION);
		float sx = 0.5f, sy = 0.25f;
		int32_t zx = 2, zy = -1;
		set_q(g, x, 1, &sx, &zx);
		set_q(g, y, 1, &sy, &zy);
		int n = node(g, "r", k ? IR_OP_REDUCE_MAX : IR_OP_REDUCE_MEAN, &x, 1, y);
		int64_t ax = 1;
		ir_node_set_ints(g, n, "axes", &ax, 1);
		ir_graph_node(g, n)->precision = IR_PREC_I8;
		ir_graph_set_inputs(g, &x, 1, &d);
		ir_graph_set_outputs(g, &y, 1, &d);
		ir_exec *e = ir_exec_new(g, IR_MODE_F32, 1, &d);
		int8_t in[4] = {3, 7, -1, 6};
		const int8_t *out = NULL;
		if (e && ir_exec_set_input(e, 0, in, sizeof in, &d) == 0 && ir_exec_run(e, &d) == 0)
			out = ir_exec_output(e, 0, NULL);
		CHECK_MSG(out && *out == (k ? 9 : 3), "%s: %d (%s)", k ? "max" : "mean", out ? *out : -999, d.msg);
		ir_exec_free(e);
		ir_graph_free(g);
	}
}

/* x [1,4] -> fully_connected to ONE output channel, the node named "y"
 * like its output tensor (TensorFlow style), "y" listed twice as a graph
 * output. Per channel, one channel is one scale (per tensor: axis -1,
 * max |w| = 2 -> 2/127); both outputs are the float32 tensor named exactly
 * "y" (one dequantize). The verifier also takes a single scale along an
 * axis of extent 1. */
static void one_channel_outputs(void)
{
	ir_graph *g = ir_graph_new();
	ir_diag d;
	float w[4] = {0.5f, -1, 0.25f, 2}, b[1] = {0.1f};
	int x = add(g, "x", IR_DTYPE_F32, (ir_shape){2, {1, 4}}, IR_KIND_INPUT);
	int in[3] = {x, ir_graph_add_const(g, "w", IR_DTYPE_F32, &(ir_shape){2, {1, 4}}, w, &d),
		     ir_graph_add_const(g, "b", IR_DTYPE_F32, &(ir_shape){1, {1}}, b, &d)};
	int y = add(g, "y", IR_DTYPE_F32, (ir_shape){2, {1, 1}}, IR_KIND_ACTIVATION);
	node(g, "y", IR_OP_FULLY_CONNECTED, in, 3, y);
	int outs[2] = {y, y};
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, outs, 2, &d);
	ir_calib *c = ir_calib_new();
	float xs[2] = {-1, 1}, ys[2] = {-2, 2};
	CHECK(ir_calib_observe(c, "x", xs, 2, &d) == 0 && ir_calib_observe(c, "y", ys, 2, &d) == 0);
	ir_quant_opts o;
	ir_quant_defaults(&o);
	CHECK_MSG(ir_quant_prepare(g, &o, &d) == 0 && ir_quantize(g, c, &o, NULL, NULL, &d) == 0, "%s", d.msg);
	int o0 = ir_graph_output(g, 0), o1 = ir_graph_output(g, 1), n = ir_graph_find_node(g, "y");
	CHECK(o0 == o1 && !strcmp(ir_graph_tensor(g, o0)->name, "y") && ir_graph_tensor(g, o0)->dtype == IR_DTYPE_F32);
	const ir_node *fc = n >= 0 ? ir_graph_node(g, n) : NULL;
	const ir_quant *wq = fc ? ir_graph_tensor(g, fc->inputs[1])->quant : NULL;
	CHECK(fc && fc->precision == IR_PREC_I8 && wq && wq->n == 1 && wq->axis == -1 && wq->scale[0] == 2.0f / 127);
	ir_lowered l;
	CHECK_MSG(ir_lower(g, &l, NULL, NULL, &d) == 0, "%s", d.msg);
	ir_lowered_free(&l);
	/* one scale along an axis of extent 1 is valid; along the 4 is not */
	int t = fc ? fc->inputs[1] : -1;
	float s1 = 0.5f;
	int32_t z1 = 0;
	ir_quant q = {.bits = 8, .symmetric = true, .axis = 0, .n = 1, .scale = &s1, .zero_point = &z1};
	CHECK(t >= 0 && ir_tensor_set_quant(g, t, &q, &d) == 0 && ir_graph_verify(g, &d) == 0);
	q.axis = 1;
	CHECK(t >= 0 && (ir_tensor_set_quant(g, t, &q, &d) != 0 || ir_graph_verify(g, &d) != 0));
	ir_calib_free(c);
	ir_graph_free(g);
}

/* x [1,4] -> fully_connected (w = [1, 0, 0, 0], bias 4) -> y, x observed
 * in [-1, 1], y in [0, 8]. a16w16: s_x = 2/65535, s_w = 1/32767 (max |w|
 * onto 32767), so s_x s_w ~ 9.3e-10 and the bias is 4 / (s_x s_w) ~ 4.3e9
 * codes: beyond int32 (saturated it would mean 2.0), stored as int64 (quant
 * bits 64, the exact rounded quotient) and the graph computes 0.5 + 4 =
 * 4.5 within two codes of y (8/65535 each). a8w8: s_x s_w = 2/255 / 127,
 * 64770 codes, int32. A bias of 1e30 (beyond 2^62 codes) is an error. */
static void wide_bias(void)
{
	for (int k = 0; k < 3; k++) {
		ir_graph *g = ir_graph_new();
		ir_diag d;
		float w[4] = {1, 0, 0, 0}, b[1] = {k == 2 ? 1e30f : 4};
		int x = add(g, "x", IR_DTYPE_F32, (ir_shape){2, {1, 4}}, IR_KIND_INPUT);
		int in[3] = {x, ir_graph_add_const(g, "w", IR_DTYPE_F32, &(ir_shape){2, {1, 4}}, w, &d),
			     ir_graph_add_const(g, "b", IR_DTYPE_F32, &(ir_shape){1, {1}}, b, &d)};
		int y = add(g, "y", IR_DTYPE_F32, (ir_shape){2, {1, 1}}, IR_KIND_ACTIVATION);
		node(g, "fc", IR_OP_FULLY_CONNECTED, in, 3, y);
		ir_graph_set_inputs(g, &x, 1, &d);
		ir_graph_set_outputs(g, &y, 1, &d);
		ir_calib *c = ir_calib_new();
		float xs[2] = {-1, 1}, ys[2] = {0, 8};
		CHECK(ir_calib_observe(c, "x", xs, 2, &d) == 0 && ir_calib_observe(c, "y", ys, 2, &d) == 0);
		ir_quant_opts o;
		ir_quant_defaults(&o);
		if (k != 1)
			o.act = IR_PREC_I16, o.wbits = 16;
		int rc = ir_quant_prepare(g, &o, &d) ? -1 : ir_quantize(g, c, &o, NULL, NULL, &d);
		if (k == 2) {
			CHECK_MSG(rc != 0 && strstr(d.msg, "bias 'b'") && strstr(d.msg, "int64"), "rc %d: %s", rc,
				  rc ? d.msg : "");
			ir_calib_free(c);
			ir_graph_free(g);
			continue;
		}
		CHECK_MSG(rc == 0, "%s", d.msg);
		int n = ir_graph_find_node(g, "fc");
		const ir_node *fc = n >= 0 ? ir_graph_node(g, n) : NULL;
		const ir_tensor *tb = fc && fc->n_inputs > 2 ? ir_graph_tensor(g, fc->inputs[2]) : NULL;
		if (k == 0) {
			CHECK(tb && tb->dtype == IR_DTYPE_I64 && tb->quant && tb->quant->bits == 64 &&
			      *(const int64_t *)tb->data == (int64_t)nearbyint(4.0 / (double)tb->quant->scale[0]) &&
			      *(const int64_t *)tb->data > INT32_MAX);
		} else {
			CHECK(tb && tb->dtype == IR_DTYPE_I32 && tb->quant && tb->quant->bits == 32);
		}
		ir_exec *e = ir_exec_new(g, IR_MODE_F32, 1, &d);
		float xin[4] = {0.5f, 0, 0, 0}, err = 1;
		if (e && ir_exec_set_input(e, 0, xin, sizeof xin, &d) == 0 && ir_exec_run(e, &d) == 0)
			err = fabsf(((const float *)ir_exec_output(e, 0, NULL))[0] - 4.5f);
		CHECK_MSG(err <= (k == 0 ? 2 * 8.0f / 65535 : 2 * 8.0f / 255), "a%dw%d: error %g", k ? 8 : 16,
			  k ? 8 : 16, err);
		ir_exec_free(e);
		ir_calib_free(c);
		ir_graph_free(g);
	}
}


/* ---------------------------------------------------------------- weight refinement */

static uint32_t rng_state = 12345;
static float urand(void)	/* [0, 1) */
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return (float)(rng_state >> 8) / 16777216.0f;
}

/* x [1,C,H,W] (or [1,C] for fully_connected) -> one conv 3x3 pad 1 (or
 * fully_connected) with OC channels and a bias -> y. */
static ir_graph *one_layer(bool conv, int C, int OC, int H, const float *w, const float *b)
{
	ir_graph *g = ir_graph_new();
	ir_diag d;
	ir_shape xs = conv ? (ir_shape){4, {1, C, H, H}} : (ir_shape){2, {1, C}};
	ir_shape ws = conv ? (ir_shape){4, {OC, C, 3, 3}} : (ir_shape){2, {OC, C}};
	ir_shape ys = conv ? (ir_shape){4, {1, OC, H, H}} : (ir_shape){2, {1, OC}};
	int x = add(g, "x", IR_DTYPE_F32, xs, IR_KIND_INPUT);
	int in[3] = {x, ir_graph_add_const(g, "w", IR_DTYPE_F32, &ws, w, &d),
		     ir_graph_add_const(g, "b", IR_DTYPE_F32, &(ir_shape){1, {OC}}, b, &d)};
	int y = add(g, "y", IR_DTYPE_F32, ys, IR_KIND_ACTIVATION);
	int n = node(g, "layer", conv ? IR_OP_CONV : IR_OP_FULLY_CONNECTED, in, 3, y);
	if (conv) {
		int64_t one[2] = {1, 1}, pads[4] = {1, 1, 1, 1};
		ir_node_set_ints(g, n, "strides", one, 2);
		ir_node_set_ints(g, n, "dilations", one, 2);
		ir_node_set_ints(g, n, "pads", pads, 4);
		ir_node_set_int(g, n, "group", 1);
	}
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &y, 1, &d);
	return g;
}

/* Run g on each sample (len floats each, n of them), outputs (ylen each) into y. */
static bool run_all(const ir_graph *g, const float *x, int n, int64_t len, float *y, int64_t ylen)
{
	ir_diag d;
	ir_exec *e = ir_exec_new(g, IR_MODE_F32, 1, &d);
	bool ok = e != NULL;
	for (int s = 0; ok && s < n; s++) {
		ok = ir_exec_set_input_f32(e, 0, x + s * len, len, &d) == 0 && ir_exec_run(e, &d) == 0;
		if (ok)
			memcpy(y + s * ylen, ir_exec_output(e, 0, NULL), sizeof(float) * (size_t)ylen);
	}
	if (!ok)
		printf("# run: %s\n", d.msg);
	ir_exec_free(e);
	return ok;
}

/* The layer quantized at a16 and wbits (refined as ro says, on the first
 * ncal samples), run on every sample: per output channel the mean error
 * against the float outputs ref, and the mean squared error. */
static bool quant_error_at(bool conv, int C, int OC, int H, const float *w, const float *b, int wbits,
			   ir_precision act, ir_qrefine_opts *ro, const float *x, int n, int ncal, const float *ref,
			   double *chmean, double *mse, double *cosv);
static bool quant_error(bool conv, int C, int OC, int H, const float *w, const float *b, int wbits,
			ir_qrefine_opts *ro, const float *x, int n, int ncal, const float *ref, double *chmean,
			double *mse)
{
	return quant_error_at(conv, C, OC, H, w, b, wbits, IR_PREC_I16, ro, x, n, ncal, ref, chmean, mse, NULL);
}

static bool quant_error_at(bool conv, int C, int OC, int H, const float *w, const float *b, int wbits,
			   ir_precision act, ir_qrefine_opts *ro, const float *x, int n, int ncal, const float *ref,
			   double *chmean, double *mse, double *cosv)
{
	ir_graph *g = one_layer(conv, C, OC, H, w, b);
	int64_t len = conv ? (int64_t)C * H * H : C, ylen = conv ? (int64_t)OC * H * H : OC, per = conv ? H * H : 1;
	ir_calib *c = ir_calib_new();
	ir_diag d;
	bool ok = true;
	for (int s = 0; s < ncal; s++)
		ok = ok && ir_calib_observe(c, "x", x + s * len, len, &d) == 0 &&
		     ir_calib_observe(c, "y", ref + s * ylen, ylen, &d) == 0;
	ir_quant_opts o;
	ir_quant_defaults(&o);
	o.act = act;
	if (act == IR_PREC_I8)
		o.method.kind = IR_CALIB_MINMAX;	/* EasyQuant's start, its baseline */
	o.wbits = wbits;
	const float **samples = malloc(sizeof(float *) * (size_t)ncal);
	for (int s = 0; samples && s < ncal; s++)
		samples[s] = x + s * len;
	ok = ok && samples && ir_quant_prepare(g, &o, &d) == 0 &&
	     ir_quant_refine(g, c, &o, ro, samples, ncal, NULL, NULL, &d) == 0;
	o.arange = ro->act_range;
	o.n_arange = ro->n_act_range;
	ok = ok && ir_quantize(g, c, &o, NULL, NULL, &d) == 0;
	if (!ok)
		printf("# quantize: %s\n", d.msg);
	float *y = malloc(sizeof(float) * (size_t)(n * ylen));
	ir_qrefine_free(ro);
	ok = ok && y && run_all(g, x, n, len, y, ylen);
	*mse = 0;
	for (int k = 0; ok && k < OC; k++) {
		double sum = 0;
		for (int s = 0; s < n; s++)
			for (int64_t p = 0; p < per; p++) {
				double e = (double)y[s * ylen + k * per + p] - ref[s * ylen + k * per + p];
				sum += e;
				*mse += e * e;
			}
		chmean[k] = sum / (n * per);
	}
	*mse /= (double)(n * ylen);
	double ab = 0, aa = 0, bb = 0;
	for (int64_t i = 0; ok && i < n * ylen; i++)
		ab += (double)y[i] * ref[i], aa += (double)y[i] * y[i], bb += (double)ref[i] * ref[i];
	if (cosv)
		*cosv = aa > 0 && bb > 0 ? ab / sqrt(aa * bb) : 0;
	free(samples);
	free(y);
	ir_calib_free(c);
	ir_graph_free(g);
	return ok;
}

/* Bias correction: a 3x3 conv (4 -> 8 channels, 3-bit weights) on inputs
 * in [0, 2] (mean 1: the weights' rounding error shows as an output
 * offset). The per-channel mean output error over 32 held-out samples
 * (calibrated on 32 others) must shrink to under half (16-bit
 * activations, so that the weights' error dominates). AdaRound: a
 * fully_connected 24 -> 8 at 3 bits on strongly correlated inputs (a
 * shared component plus a little noise each, where rounding errors add up
 * and nearest rounding is far from the best): its mean squared output
 * error on held-out samples must fall below 0.7 of nearest rounding's.
 * EasyQuant: the conv again at 4-bit weights and 8-bit activations, its
 * weights with one outlier (6 times the others' range) per channel and
 * inputs with rare spikes: the cosine similarity of its outputs with the
 * float ones on held-out samples must be above minmax's (no refinement). */
static void refine(void)
{
	enum { C = 4, OC = 8, H = 6, N = 64, NCAL = 32, FC = 24 };
	static float w[OC * C * 9], b[OC], x[N * C * H * H], ref[N * OC * H * H];
	for (int i = 0; i < OC * C * 9; i++)
		w[i] = (urand() - 0.5f) * 0.6f;
	for (int i = 0; i < OC; i++)
		b[i] = urand() - 0.5f;
	for (int i = 0; i < N * C * H * H; i++)
		x[i] = 2 * urand();
	ir_graph *g = one_layer(true, C, OC, H, w, b);
	CHECK(run_all(g, x, N, C * H * H, ref, OC * H * H));
	ir_graph_free(g);
	/* calibrated on the first NCAL, measured on the rest */
	double m0[OC], m1[OC], e0, e1, a0 = 0, a1 = 0;
	ir_qrefine_opts none = {0}, bc = {.bias_correction = true};
	CHECK(quant_error(true, C, OC, H, w, b, 3, &none, x, N, NCAL, ref, m0, &e0));
	CHECK(quant_error(true, C, OC, H, w, b, 3, &bc, x, N, NCAL, ref, m1, &e1));
	for (int k = 0; k < OC; k++)
		a0 += fabs(m0[k]) / OC, a1 += fabs(m1[k]) / OC;
	CHECK_MSG(a1 < 0.5 * a0 && e1 < e0, "bias correction: mean |channel mean error| %g -> %g, mse %g -> %g", a0, a1,
		  e0, e1);
	printf("# bias correction (conv, w3): mean |channel mean error| %.4f -> %.4f, mse %.5f -> %.5f\n", a0, a1, e0, e1);

	static float wf[OC * FC], bf[OC], xf[N * FC], reff[N * OC];
	for (int i = 0; i < OC * FC; i++)
		wf[i] = (urand() - 0.5f) * 0.5f;
	for (int i = 0; i < OC; i++)
		bf[i] = 0;
	for (int s = 0; s < N; s++) {
		float shared = 2 * urand() - 1, shared2 = 2 * urand() - 1;
		for (int k = 0; k < FC; k++)
			xf[s * FC + k] = (k % 2 ? shared : shared2) + 0.1f * (urand() - 0.5f);
	}
	g = one_layer(false, FC, OC, 1, wf, bf);
	CHECK(run_all(g, xf, N, FC, reff, OC));
	ir_graph_free(g);
	ir_qrefine_opts ar = {.adaround = 500};
	CHECK(quant_error(false, FC, OC, 1, wf, bf, 3, &none, xf, N, NCAL, reff, m0, &e0));
	CHECK(quant_error(false, FC, OC, 1, wf, bf, 3, &ar, xf, N, NCAL, reff, m1, &e1));
	CHECK_MSG(e1 < 0.7 * e0, "adaround: mse %g -> %g", e0, e1);
	printf("# adaround (fully_connected, w3): held-out mse %.5f -> %.5f\n", e0, e1);

	for (int i = 0; i < OC * C * 9; i++)
		w[i] = (urand() - 0.5f) * 0.3f * (i % 36 == 5 ? 6 : 1);
	for (int i = 0; i < N * C * H * H; i++)
		x[i] = 2 * urand() * (i % 97 == 3 ? 8 : 1);
	g = one_layer(true, C, OC, H, w, b);
	CHECK(run_all(g, x, N, C * H * H, ref, OC * H * H));
	ir_graph_free(g);
	ir_qrefine_opts eq = {.easyquant = true};
	double c0 = 0, c1 = 0;
	CHECK(quant_error_at(true, C, OC, H, w, b, 4, IR_PREC_I8, &none, x, N, NCAL, ref, m0, &e0, &c0));
	CHECK(quant_error_at(true, C, OC, H, w, b, 4, IR_PREC_I8, &eq, x, N, NCAL, ref, m1, &e1, &c1));
	CHECK_MSG(c1 > c0, "easyquant: cosine %.6f -> %.6f", c0, c1);
	printf("# easyquant (conv, a8w4, outliers): held-out cosine %.6f -> %.6f, mse %.5f -> %.5f\n", c0, c1, e0, e1);

	/* refusals: no samples; an integer input */
	ir_quant_opts o;
	ir_quant_defaults(&o);
	ir_diag d;
	g = one_layer(false, FC, OC, 1, wf, bf);
	CHECK(ir_quant_refine(g, NULL, &o, &bc, NULL, 0, NULL, NULL, &d) == -1 && strstr(d.msg, "needs calibration samples"));
	CHECK(ir_quant_refine(g, NULL, &o, &none, NULL, 0, NULL, NULL, &d) == 0);	/* nothing asked: nothing done */
	ir_graph_free(g);
}

int main(void)
{
	one_channel_outputs();
	wide_bias();
	reduce_int8();
	multipliers();
	int8_conv();
	lut();
	refine();
	return check_done();
}
