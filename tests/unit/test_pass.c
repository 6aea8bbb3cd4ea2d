/* test_pass.c - graph editing and the rewrite passes on hand-built graphs,
 * for what the fixtures of tests/pipeline/t4000-fuse.sh cannot show: the
 * folding arithmetic worked by hand, output names kept when the removed
 * node wrote a graph output, and relu6 -> relu under a quantized range
 * (which needs quantization parameters no importer writes). */
#include "check.h"
#include "ir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ir_diag d;

static int input(ir_graph *g, const char *name, int rank, const int64_t *dims)
{
	ir_shape s = {.rank = rank};
	for (int i = 0; i < rank; i++)
		s.dim[i] = dims[i];
	return ir_graph_add_tensor(g, name, IR_DTYPE_F32, &s, IR_KIND_INPUT, &d);
}

static int cnst(ir_graph *g, const char *name, int rank, const int64_t *dims, const float *v)
{
	ir_shape s = {.rank = rank};
	for (int i = 0; i < rank; i++)
		s.dim[i] = dims[i];
	return ir_graph_add_const(g, name, IR_DTYPE_F32, &s, v, &d);
}

static int node(ir_graph *g, const char *name, int op, const int *in, int nin, const char *out)
{
	int t = ir_graph_add_tensor(g, out, IR_DTYPE_F32, NULL, IR_KIND_ACTIVATION, &d);
	ir_graph_add_node(g, name, op, in, nin, &t, 1, &d);
	return t;
}

static int count_op(const ir_graph *g, int op)
{
	int n = 0;
	for (int i = 0; i < ir_graph_node_count(g); i++)
		n += ir_graph_node(g, i)->op == op;
	return n;
}

static const float *const_of(const ir_graph *g, int node, int input)
{
	return ir_graph_tensor(g, ir_graph_node(g, node)->inputs[input])->data;
}

/* x[1,2] -> fully_connected(w = [[1,2],[3,4]], b = [1,-1]) -> batch_norm ->
 * output "y". BN: scale (2, 1), bias (0, 5), mean (1, 0), var (3, 0.25),
 * epsilon 1: s = scale / sqrt(var + eps) = (2/2, 1/1.118034) = (1, 0.894427);
 * folded w rows (1,2) and (3*0.894427, 4*0.894427) = (2.683282, 3.577709);
 * b' = b * s + bias - mean * s = (1 - 1, -0.894427 + 5) = (0, 4.105573). */
static void test_bn_fc(void)
{
	ir_graph *g = ir_graph_new();
	int64_t xd[] = {1, 2}, wd[] = {2, 2}, cd[] = {2};
	float w[] = {1, 2, 3, 4}, b[] = {1, -1}, sc[] = {2, 1}, bi[] = {0, 5}, mean[] = {1, 0}, var[] = {3, .25f};
	int x = input(g, "x", 2, xd);
	int in[5] = {x, cnst(g, "w", 2, wd, w), cnst(g, "b", 1, cd, b)};
	int f = node(g, "fc", IR_OP_FULLY_CONNECTED, in, 3, "f");
	int bn[5] = {f, cnst(g, "sc", 1, cd, sc), cnst(g, "bi", 1, cd, bi), cnst(g, "mean", 1, cd, mean),
		     cnst(g, "var", 1, cd, var)};
	int y = node(g, "bn", IR_OP_BATCH_NORM, bn, 5, "y");
	ir_node_set_float(g, 1, "epsilon", 1.0);
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &y, 1, &d);
	CHECK(ir_graph_infer_shapes(g, &d) == 0);
	ir_pass_report r = {0};
	CHECK(ir_pass_run(g, IR_PASS_BN, &r, &d) == 0);
	CHECK(r.changed == 1);
	CHECK_MSG(!strcmp(r.summary, "folded batch_norm 1 into fully_connected"), "%s", r.summary);
	CHECK(ir_graph_node_count(g) == 1 && count_op(g, IR_OP_FULLY_CONNECTED) == 1);
	CHECK(ir_graph_verify(g, &d) == 0);
	/* the graph output keeps its name: the fc now writes "y" */
	CHECK(!strcmp(ir_graph_tensor(g, ir_graph_output(g, 0))->name, "y"));
	CHECK(ir_graph_node(g, 0)->outputs[0] == ir_graph_output(g, 0));
	const float *w2 = const_of(g, 0, 1), *b2 = const_of(g, 0, 2);
	CHECK(fabsf(w2[0] - 1) < 1e-6f && fabsf(w2[1] - 2) < 1e-6f);
	CHECK(fabsf(w2[2] - 2.683282f) < 1e-5f && fabsf(w2[3] - 3.577709f) < 1e-5f);
	CHECK(fabsf(b2[0]) < 1e-6f && fabsf(b2[1] - 4.105573f) < 1e-5f);
	/* the old constants are gone (nothing uses them), the new ones named after the node */
	CHECK(ir_graph_find_tensor(g, "w") < 0 && ir_graph_find_tensor(g, "fc.weight") >= 0);
	ir_graph_free(g);
}

/* relu6 is a relu when the quantized range of its output ends at 6 or below */
static void test_relu6(void)
{
	ir_graph *g = ir_graph_new();
	int64_t xd[] = {1, 4};
	int x = input(g, "x", 2, xd);
	int a = node(g, "r6", IR_OP_RELU6, &x, 1, "a");
	int b = node(g, "r6b", IR_OP_RELU6, &a, 1, "b");
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &b, 1, &d);
	CHECK(ir_graph_infer_shapes(g, &d) == 0);
	float s = 6.0f / 255;
	int32_t zp = 0;
	ir_quant q = {.bits = 8, .axis = -1, .n = 1, .scale = &s, .zero_point = &zp, .has_range = true,
		      .range_min = 0, .range_max = 5.5f};
	CHECK(ir_tensor_set_quant(g, a, &q, &d) == 0);
	q.range_max = 6.5f;
	CHECK(ir_tensor_set_quant(g, b, &q, &d) == 0);
	ir_pass_report r = {0};
	CHECK(ir_pass_run(g, IR_PASS_RELU6, &r, &d) == 0);
	CHECK(r.changed == 1);
	CHECK(ir_graph_node(g, 0)->op == IR_OP_RELU && ir_graph_node(g, 1)->op == IR_OP_RELU6);
	CHECK(ir_graph_verify(g, &d) == 0);
	ir_graph_free(g);
}

/* Run g on x; copies the first output (n floats) to y. */
static bool run(const ir_graph *g, const float *x, size_t xbytes, float *y, size_t n)
{
	size_t nb = 0;
	ir_exec *e = ir_exec_new(g, IR_MODE_F32, 1, &d);
	bool ok = e && ir_exec_set_input(e, 0, x, xbytes, &d) == 0 && ir_exec_run(e, &d) == 0;
	const float *o = ok ? ir_exec_output(e, 0, &nb) : NULL;
	ok = ok && nb == n * sizeof(float);
	if (ok)
		memcpy(y, o, nb);
	ir_exec_free(e);
	return ok;
}

/* Fold the batch_norm of g (input x of xn floats, output of yn <= 128
 * floats): it must go, and the graph compute the same (interpreter). */
static void check_bn_folds(ir_graph *g, const float *x, size_t xn, size_t yn)
{
	float before[128], after[128];
	if (!CHECK_MSG(ir_graph_infer_shapes(g, &d) == 0, "%s", d.msg) ||
	    !CHECK_MSG(run(g, x, xn * sizeof(float), before, yn), "%s", d.msg))
		return;
	ir_pass_report r = {0};
	CHECK(ir_pass_run(g, IR_PASS_BN, &r, &d) == 0 && r.changed == 1);
	CHECK(count_op(g, IR_OP_BATCH_NORM) == 0 && ir_graph_verify(g, &d) == 0);
	double worst = 0, scale = 0;
	CHECK_MSG(run(g, x, xn * sizeof(float), after, yn), "%s", d.msg);
	for (size_t i = 0; i < yn; i++) {
		worst = fmax(worst, fabs(after[i] - before[i]));
		scale = fmax(scale, fabs(before[i]));
	}
	CHECK_MSG(worst <= 1e-5 * scale, "worst %g of %g", worst, scale);
}

static int bn_after(ir_graph *g, int t)
{
	int64_t cd[] = {3};
	float sc[] = {2, .5f, 1}, bi[] = {.1f, -.2f, .3f}, mean[] = {.5f, -1, 0}, var[] = {1, 4, .25f};
	int bn[5] = {t, cnst(g, "sc", 1, cd, sc), cnst(g, "bi", 1, cd, bi), cnst(g, "mean", 1, cd, mean),
		     cnst(g, "var", 1, cd, var)};
	return node(g, "bn", IR_OP_BATCH_NORM, bn, 5, "y");
}

/* An atrous convolution as TensorFlow writes it: conv on the batch of
 * space_to_batch, then batch_to_space, then batch_norm. The batch_norm
 * scales channels, which batch_to_space keeps, so it folds into the conv. */
static void test_bn_through_batch_to_space(void)
{
	ir_graph *g = ir_graph_new();
	int64_t xd[] = {4, 2, 5, 5}, wd[] = {3, 2, 3, 3};
	float w[54], xv[200];
	for (int i = 0; i < 54; i++)
		w[i] = (float)((i * 7) % 11 - 5) / 8;
	for (int i = 0; i < 200; i++)
		xv[i] = (float)((i * 13) % 17 - 8) / 4;
	int x = input(g, "x", 4, xd);
	int in[2] = {x, cnst(g, "w", 4, wd, w)};
	int c = node(g, "conv", IR_OP_CONV, in, 2, "c");
	int s = node(g, "b2s", IR_OP_BATCH_TO_SPACE, &c, 1, "s");
	int64_t block[] = {2, 2}, crops[] = {0, 1, 0, 1};
	ir_node_set_ints(g, 1, "block", block, 2);
	ir_node_set_ints(g, 1, "crops", crops, 4);
	int y = bn_after(g, s);	/* 1x3x5x5 */
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &y, 1, &d);
	check_bn_folds(g, xv, 200, 75);
	CHECK(count_op(g, IR_OP_BATCH_TO_SPACE) == 1);
	ir_graph_free(g);
}

/* A channel-last graph as the TensorFlow importer writes it: an NHWC
 * tensor transposed to NCHW for the conv and back, then a batch_norm over
 * the last axis. The transposes carry the conv's channels to that axis. */
static void test_bn_channel_last(void)
{
	ir_graph *g = ir_graph_new();
	int64_t xd[] = {1, 4, 4, 2}, wd[] = {3, 2, 3, 3};
	int64_t to_nchw[] = {0, 3, 1, 2}, to_nhwc[] = {0, 2, 3, 1}, pads[] = {1, 1, 1, 1};
	float w[54], xv[32];
	for (int i = 0; i < 54; i++)
		w[i] = (float)((i * 5) % 13 - 6) / 8;
	for (int i = 0; i < 32; i++)
		xv[i] = (float)((i * 11) % 19 - 9) / 4;
	int x = input(g, "x", 4, xd);
	ir_graph_tensor(g, x)->layout = IR_LAYOUT_NHWC;
	int t = node(g, "to_nchw", IR_OP_TRANSPOSE, &x, 1, "t");
	ir_node_set_ints(g, 0, "perm", to_nchw, 4);
	ir_graph_tensor(g, t)->layout = IR_LAYOUT_NCHW;
	int in[2] = {t, cnst(g, "w", 4, wd, w)};
	int c = node(g, "conv", IR_OP_CONV, in, 2, "c");
	ir_node_set_ints(g, 1, "pads", pads, 4);
	int u = node(g, "to_nhwc", IR_OP_TRANSPOSE, &c, 1, "u");
	ir_node_set_ints(g, 2, "perm", to_nhwc, 4);
	ir_graph_tensor(g, u)->layout = IR_LAYOUT_NHWC;
	int y = bn_after(g, u);	/* 1x4x4x3, channels last */
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &y, 1, &d);
	check_bn_folds(g, xv, 32, 48);
	ir_graph_free(g);
}

/* Keras' unfused batch norm after constant folding: x * s + t with
 * per-channel constants, on a channel-last tensor. It becomes one
 * batch_norm computing the same. */
static void test_bn_recognize(void)
{
	ir_graph *g = ir_graph_new();
	int64_t xd[] = {1, 2, 2, 3}, cd[] = {3};
	float sv[] = {2, -1, .5f}, tv[] = {1, 0, -3}, xv[12], before[12], after[12];
	for (int i = 0; i < 12; i++)
		xv[i] = (float)(i - 6) / 3;
	int x = input(g, "x", 4, xd);
	ir_graph_tensor(g, x)->layout = IR_LAYOUT_NHWC;
	int in[2] = {x, cnst(g, "s", 1, cd, sv)};
	int m = node(g, "mul", IR_OP_MUL, in, 2, "m");
	int in2[2] = {cnst(g, "t", 1, cd, tv), m};
	int y = node(g, "add", IR_OP_ADD, in2, 2, "y");
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &y, 1, &d);
	CHECK(ir_graph_infer_shapes(g, &d) == 0 && run(g, xv, sizeof xv, before, 12));
	ir_pass_report r = {0};
	CHECK(ir_pass_run(g, IR_PASS_BN_RECOGNIZE, &r, &d) == 0 && r.changed == 1);
	CHECK(ir_graph_node_count(g) == 1 && count_op(g, IR_OP_BATCH_NORM) == 1 && ir_graph_verify(g, &d) == 0);
	CHECK(run(g, xv, sizeof xv, after, 12));
	/* y = x * s + t on the last axis, worked by hand for x[0] = -2 (channel 0)
	 * and x[4] = -2/3 (channel 1): -3 and 2/3 */
	CHECK(fabsf(after[0] - -3.0f) < 1e-6f && fabsf(after[4] - 2.0f / 3) < 1e-6f);
	for (int i = 0; i < 12; i++)
		CHECK_MSG(fabsf(after[i] - before[i]) < 1e-6f, "%d: %g %g", i, after[i], before[i]);
	ir_graph_free(g);
}

/* Run g on x; copies output j (n floats) to y. */
static bool run_out(const ir_graph *g, const float *x, size_t xbytes, int j, float *y, size_t n)
{
	size_t nb = 0;
	ir_exec *e = ir_exec_new(g, IR_MODE_F32, 1, &d);
	bool ok = e && ir_exec_set_input(e, 0, x, xbytes, &d) == 0 && ir_exec_run(e, &d) == 0;
	const float *o = ok ? ir_exec_output(e, j, &nb) : NULL;
	ok = ok && nb == n * sizeof(float);
	if (ok)
		memcpy(y, o, nb);
	ir_exec_free(e);
	return ok;
}

static int scalar(ir_graph *g, const char *name, float v)
{
	ir_shape s = {.rank = 0};
	return ir_graph_add_const(g, name, IR_DTYPE_F32, &s, &v, &d);
}

/* pow(x, k) for k = 2, 0.5, 1, -1, -0.5 becomes mul(x, x), sqrt, identity,
 * reciprocal, rsqrt computing the same; k = 3 stays a pow. */
static void test_pow(void)
{
	static const float ks[] = {2, .5f, 1, -1, -.5f, 3};
	static const int ops[] = {IR_OP_MUL, IR_OP_SQRT, IR_OP_IDENTITY, IR_OP_RECIPROCAL, IR_OP_RSQRT, IR_OP_POW};
	ir_graph *g = ir_graph_new();
	int64_t xd[] = {2, 3};
	float xv[6] = {.25f, 1, 2, 3.5f, 9, 100};
	int x = input(g, "x", 2, xd), ys[6];
	char nm[16], kn[16];
	for (int i = 0; i < 6; i++) {
		snprintf(nm, sizeof nm, "y%d", i);
		snprintf(kn, sizeof kn, "k%d", i);
		int in[2] = {x, scalar(g, kn, ks[i])};
		ys[i] = node(g, nm, IR_OP_POW, in, 2, nm);
	}
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, ys, 6, &d);
	float before[6][6], after[6][6];
	CHECK(ir_graph_infer_shapes(g, &d) == 0);
	for (int i = 0; i < 6; i++)
		CHECK(run_out(g, xv, sizeof xv, i, before[i], 6));
	ir_pass_report r = {0};
	CHECK(ir_pass_run(g, IR_PASS_POW, &r, &d) == 0 && r.changed == 5);
	CHECK_MSG(!strcmp(r.summary, "rewrote 5 pow"), "%s", r.summary);
	CHECK(ir_graph_verify(g, &d) == 0 && ir_graph_node_count(g) == 6);
	for (int i = 0; i < 6; i++) {
		const ir_node *n = ir_graph_node(g, i);
		CHECK_MSG(n->op == ops[i], "k %g: %s", (double)ks[i], ir_op_name(n->op));
		CHECK(n->inputs[0] == x && n->n_inputs == (ops[i] == IR_OP_MUL || ops[i] == IR_OP_POW ? 2 : 1));
		snprintf(nm, sizeof nm, "y%d", i);	/* output names kept */
		CHECK(!strcmp(ir_graph_tensor(g, n->outputs[0])->name, nm) && n->outputs[0] == ir_graph_output(g, i));
		CHECK(run_out(g, xv, sizeof xv, i, after[i], 6));
		for (int j = 0; j < 6; j++)
			CHECK_MSG(fabsf(after[i][j] - before[i][j]) <= 1e-6f * fabsf(before[i][j]), "x^%g at %g: %g, pow %g",
				  (double)ks[i], (double)xv[j], (double)after[i][j], (double)before[i][j]);
	}
	/* x^2 worked by hand: 0.0625, x^-0.5 of 0.25: 2 */
	CHECK(after[0][0] == .0625f && after[4][0] == 2.0f);
	CHECK(ir_pass_run(g, IR_PASS_POW, &r, &d) == 0 && r.changed == 0);
	ir_graph_free(g);
	/* an integer exponent (ONNX allows one): x^2 */
	g = ir_graph_new();
	x = input(g, "x", 2, xd);
	ir_shape s0 = {.rank = 0};
	int64_t two = 2;
	int in[2] = {x, ir_graph_add_const(g, "k", IR_DTYPE_I64, &s0, &two, &d)};
	int y = node(g, "sq", IR_OP_POW, in, 2, "y");
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &y, 1, &d);
	CHECK(ir_graph_infer_shapes(g, &d) == 0 && run_out(g, xv, sizeof xv, 0, before[0], 6));
	CHECK(ir_pass_run(g, IR_PASS_POW, &r, &d) == 0 && r.changed == 1 && ir_graph_node(g, 0)->op == IR_OP_MUL);
	CHECK(ir_graph_verify(g, &d) == 0 && run_out(g, xv, sizeof xv, 0, after[0], 6));
	CHECK(!memcmp(before[0], after[0], sizeof after[0]) && after[0][5] == 10000);
	ir_graph_free(g);
}

static int ints_const(ir_graph *g, const char *name, ir_dtype dt, int rank, int64_t n, int64_t v)
{
	ir_shape s = {.rank = rank, .dim = {n}};
	int32_t v32[4] = {(int32_t)v, (int32_t)v, (int32_t)v, (int32_t)v};
	int64_t v64[4] = {v, v, v, v};
	return ir_graph_add_const(g, name, dt, &s, dt == IR_DTYPE_I64 ? (const void *)v64 : (const void *)v32, &d);
}

/* x[:, -1] as ONNX writes it, gather(axis 1, scalar -1), becomes slice
 * 4..5 of axis 1 and a squeeze; gather(axis -1, [0] as i32) a slice
 * alone; a gather of two indices stays. The values are copies: exact. */
static void test_gather_slice(void)
{
	ir_graph *g = ir_graph_new();
	int64_t xd[] = {2, 5, 3};
	float xv[30], before[3][12], after[3][12];
	for (int i = 0; i < 30; i++)
		xv[i] = (float)(i * 7 % 11) - 4.5f;
	int x = input(g, "x", 3, xd);
	int in[2] = {x, ints_const(g, "last", IR_DTYPE_I64, 0, 1, -1)};
	int y0 = node(g, "pick", IR_OP_GATHER, in, 2, "y0");
	ir_node_set_int(g, 0, "axis", 1);
	in[1] = ints_const(g, "first", IR_DTYPE_I32, 1, 1, 0);
	int y1 = node(g, "chan", IR_OP_GATHER, in, 2, "y1");
	ir_node_set_int(g, 1, "axis", -1);
	in[1] = ints_const(g, "two", IR_DTYPE_I64, 1, 2, 1);
	int y2 = node(g, "two", IR_OP_GATHER, in, 2, "y2");
	ir_node_set_int(g, 2, "axis", 1);
	int outs[3] = {y0, y1, y2};
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, outs, 3, &d);
	static const size_t nout[3] = {6, 10, 12};
	CHECK(ir_graph_infer_shapes(g, &d) == 0);
	for (int i = 0; i < 3; i++)
		CHECK(run_out(g, xv, sizeof xv, i, before[i], nout[i]));
	ir_pass_report r = {0};
	CHECK(ir_pass_run(g, IR_PASS_GATHER_SLICE, &r, &d) == 0 && r.changed == 2);
	CHECK(ir_graph_verify(g, &d) == 0);
	CHECK(count_op(g, IR_OP_SLICE) == 2 && count_op(g, IR_OP_SQUEEZE) == 1 && count_op(g, IR_OP_GATHER) == 1);
	int s = ir_graph_find_node(g, "pick");
	const int64_t *v;
	CHECK(s >= 0 && ir_graph_node(g, s)->op == IR_OP_SLICE && ir_node_ints(g, s, "starts", &v) == 1 && v[0] == 4);
	CHECK(ir_node_ints(g, s, "ends", &v) == 1 && v[0] == 5 && ir_node_ints(g, s, "axes", &v) == 1 && v[0] == 1);
	CHECK(!strcmp(ir_graph_tensor(g, ir_graph_output(g, 0))->name, "y0"));
	for (int i = 0; i < 3; i++) {
		CHECK(run_out(g, xv, sizeof xv, i, after[i], nout[i]));
		CHECK(!memcmp(after[i], before[i], nout[i] * sizeof(float)));
	}
	/* y0[1][2] = x[1][4][2] */
	CHECK(after[0][5] == xv[1 * 15 + 4 * 3 + 2]);
	CHECK(ir_pass_run(g, IR_PASS_GATHER_SLICE, &r, &d) == 0 && r.changed == 0);
	ir_graph_free(g);
}

static int reduce_mean(ir_graph *g, const char *name, int x, const int64_t *axes, int n, const char *out)
{
	int t = node(g, name, IR_OP_REDUCE_MEAN, &x, 1, out);
	ir_node_set_ints(g, ir_graph_node_count(g) - 1, "axes", axes, n);
	return t;
}

static int bin(ir_graph *g, const char *name, int op, int a, int b)
{
	int in[2] = {a, b};
	return node(g, name, op, in, 2, name);
}

static int un(ir_graph *g, const char *name, int op, int a) { return node(g, name, op, &a, 1, name); }

static void ln_notes(void *user, const ir_graph *g, int node, const char *msg)
{
	(void)g;
	(void)node;
	if (strstr(msg, "layer norm"))
		++*(int *)user;
}

/* Compare g's output 0 (n floats) before and after the layer-norm pass;
 * returns the number of rewrites. */
static int layer_norm_pass(ir_graph *g, const float *x, size_t xn, size_t n, int *notes)
{
	float before[64], after[64];
	if (!CHECK_MSG(ir_graph_infer_shapes(g, &d) == 0, "%s", d.msg) ||
	    !CHECK_MSG(run_out(g, x, xn * sizeof(float), 0, before, n), "%s", d.msg))
		return -1;
	ir_pass_report r = {.note = ln_notes, .user = notes};
	CHECK(ir_pass_run(g, IR_PASS_LAYER_NORM, &r, &d) == 0);
	CHECK_MSG(ir_graph_verify(g, &d) == 0, "%s", d.msg);
	CHECK_MSG(run_out(g, x, xn * sizeof(float), 0, after, n), "%s", d.msg);
	double worst = 0;
	for (size_t i = 0; i < n; i++)
		worst = fmax(worst, fabs(after[i] - before[i]));
	CHECK_MSG(worst <= 2e-6, "worst %g", worst);
	int changed = r.changed;
	r.note = NULL;
	CHECK(ir_pass_run(g, IR_PASS_LAYER_NORM, &r, &d) == 0 && r.changed == 0);	/* idempotent */
	return changed;
}

/* LayerNorm as a PyTorch model written by hand exports it:
 * m = mean(x, -1), c = x - m, v = mean(c^2, -1), c / sqrt(v + eps) * g + b. */
static void test_layer_norm(void)
{
	ir_graph *g = ir_graph_new();
	int64_t xd[] = {2, 3, 4}, last[] = {-1}, cd[] = {4};
	float xv[24], gv[4] = {1, .5f, 2, -1}, bv[4] = {0, .25f, -1, 3};
	for (int i = 0; i < 24; i++)
		xv[i] = (float)(i * 5 % 13) / 3 - 2;
	int x = input(g, "x", 3, xd);
	int m = reduce_mean(g, "m", x, last, 1, "m");
	int c = bin(g, "c", IR_OP_SUB, x, m);
	int sq = bin(g, "sq", IR_OP_POW, c, scalar(g, "two", 2));
	int v = reduce_mean(g, "v", sq, last, 1, "v");
	int ve = bin(g, "ve", IR_OP_ADD, v, scalar(g, "eps", 1e-5f));
	int s = un(g, "s", IR_OP_SQRT, ve);
	int n = bin(g, "n", IR_OP_DIV, c, s);
	int y = bin(g, "y", IR_OP_MUL, n, cnst(g, "gamma", 1, cd, gv));
	int z = bin(g, "z", IR_OP_ADD, y, cnst(g, "beta", 1, cd, bv));
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &z, 1, &d);
	int notes = 0;
	CHECK(layer_norm_pass(g, xv, 24, 24, &notes) == 1);
	CHECK(ir_graph_node_count(g) == 1 && count_op(g, IR_OP_LAYER_NORM) == 1);
	CHECK(ir_node_int(g, 0, "axis", 0) == -1 && fabs(ir_node_float(g, 0, "epsilon", 0) - 1e-5) < 1e-12);
	CHECK(!strcmp(ir_graph_tensor(g, ir_graph_output(g, 0))->name, "z"));
	const float *sc = const_of(g, 0, 1), *bi = const_of(g, 0, 2);
	CHECK(sc[1] == .5f && sc[3] == -1 && bi[2] == -1 && bi[3] == 3);
	/* the first row by the formula in double: x[0][0] = (0, 5, 10, 2) / 3 - 2 */
	float row[24];
	CHECK(run_out(g, xv, sizeof xv, 0, row, 24));
	{
		double xr[4] = {-2, -1.0 / 3, 4.0 / 3, -4.0 / 3}, mu = 0, var = 0;
		for (int i = 0; i < 4; i++)
			mu += xr[i] / 4;
		for (int i = 0; i < 4; i++)
			var += (xr[i] - mu) * (xr[i] - mu) / 4;
		for (int i = 0; i < 4; i++)
			CHECK_MSG(fabs(row[i] - ((xr[i] - mu) / sqrt(var + 1e-5) * gv[i] + bv[i])) < 1e-5, "%d: %g", i,
				  (double)row[i]);
	}
	ir_graph_free(g);
}

/* The other spellings: over the last two axes, c * c, eps + v, rsqrt and
 * r * c, gamma [3, 1] (constant along the last axis: expanded to [3, 4]),
 * a scalar beta. */
static void test_layer_norm_rsqrt(void)
{
	ir_graph *g = ir_graph_new();
	int64_t xd[] = {2, 3, 4}, two[] = {1, 2}, gd[] = {3, 1}, bd[] = {1};
	float xv[24], gv[3] = {2, -1, .5f}, bv[1] = {.75f};
	for (int i = 0; i < 24; i++)
		xv[i] = (float)(i * 7 % 17) / 4 - 1;
	int x = input(g, "x", 3, xd);
	int m = reduce_mean(g, "m", x, two, 2, "m");
	int c = bin(g, "c", IR_OP_SUB, x, m);
	int sq = bin(g, "sq", IR_OP_MUL, c, c);
	int v = reduce_mean(g, "v", sq, two, 2, "v");
	int ve = bin(g, "ve", IR_OP_ADD, scalar(g, "eps", 1e-3f), v);
	int r = un(g, "r", IR_OP_RSQRT, ve);
	int n = bin(g, "n", IR_OP_MUL, r, c);
	int y = bin(g, "y", IR_OP_MUL, cnst(g, "gamma", 2, gd, gv), n);
	int z = bin(g, "z", IR_OP_ADD, y, cnst(g, "beta", 1, bd, bv));
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &z, 1, &d);
	int notes = 0;
	CHECK(layer_norm_pass(g, xv, 24, 24, &notes) == 1);
	CHECK(ir_graph_node_count(g) == 1 && count_op(g, IR_OP_LAYER_NORM) == 1);
	CHECK(ir_node_int(g, 0, "axis", 0) == -2);
	const ir_tensor *sc = ir_graph_tensor(g, ir_graph_node(g, 0)->inputs[1]);
	CHECK(sc->shape.rank == 2 && sc->shape.dim[0] == 3 && sc->shape.dim[1] == 4);
	CHECK(((const float *)sc->data)[4] == -1 && ((const float *)sc->data)[7] == -1);
	ir_graph_free(g);
}

/* Left alone: the centred value is also a graph output; the means are not
 * over trailing axes. Without gamma/beta the layer_norm gets a scale of
 * ones; sqrt then reciprocal and mul is recognised too, and an add of eps
 * with the sqrt fused into it (what the act pass makes of the pattern). */
static void test_layer_norm_kept(void)
{
	int64_t xd[] = {2, 3, 4}, last[] = {2}, mid[] = {1};
	float xv[24];
	for (int i = 0; i < 24; i++)
		xv[i] = (float)(i * 3 % 7) - 2.5f;
	for (int k = 0; k < 4; k++) {
		ir_graph *g = ir_graph_new();
		int x = input(g, "x", 3, xd);
		const int64_t *ax = k == 1 ? mid : last;
		int m = reduce_mean(g, "m", x, ax, 1, "m");
		int c = bin(g, "c", IR_OP_SUB, x, m);
		int sq = bin(g, "sq", IR_OP_POW, c, scalar(g, "two", 2));
		int v = reduce_mean(g, "v", sq, ax, 1, "v");
		int ve = bin(g, "ve", IR_OP_ADD, v, scalar(g, "eps", 1e-5f));
		if (k == 3)	/* the sqrt fused into the add by the act pass */
			ir_node_set_str(g, ir_graph_node_count(g) - 1, "act", "sqrt");
		int s = k == 3 ? ve : un(g, "s", IR_OP_SQRT, ve);
		int n = k == 2 ? bin(g, "n", IR_OP_MUL, c, un(g, "rs", IR_OP_RECIPROCAL, s)) : bin(g, "n", IR_OP_DIV, c, s);
		int outs[2] = {n, c};
		ir_graph_set_inputs(g, &x, 1, &d);
		ir_graph_set_outputs(g, outs, k == 0 ? 2 : 1, &d);
		int notes = 0, changed = layer_norm_pass(g, xv, 24, 24, &notes);
		CHECK_MSG(changed == (k >= 2), "case %d: %d", k, changed);
		CHECK(count_op(g, IR_OP_LAYER_NORM) == (k >= 2));
		CHECK_MSG(k != 0 || notes >= 1, "case 0: %d notes", notes);	/* npu-fuse -v -v says why */
		if (k >= 2) {
			const float *sc = const_of(g, 0, 1);
			CHECK(ir_graph_node(g, 0)->n_inputs == 2 && sc[0] == 1 && sc[3] == 1);
		}
		ir_graph_free(g);
	}
}

/* the editing primitives */
static void test_edit(void)
{
	ir_graph *g = ir_graph_new();
	int64_t xd[] = {2, 3};
	int x = input(g, "x", 2, xd);
	int a = node(g, "n1", IR_OP_RELU, &x, 1, "a");
	int in[2] = {a, a};
	int b = node(g, "n2", IR_OP_ADD, in, 2, "b");
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &b, 1, &d);
	CHECK(ir_graph_consumers(g, a) == 2 && ir_graph_consumers(g, b) == 1 && ir_graph_consumers(g, x) == 1);
	CHECK(ir_graph_replace_uses(g, a, x) == 2 && ir_graph_consumers(g, a) == 0);
	char *nm = ir_graph_unique_name(g, "a");
	CHECK(nm && !strcmp(nm, "a_1"));
	free(nm);
	CHECK(ir_graph_remove_node(g, 0) == 0 && ir_graph_node_count(g) == 1);
	CHECK(!strcmp(ir_graph_node(g, 0)->name, "n2"));
	CHECK(ir_graph_remove_node(g, 5) == -1);
	int one[1] = {x};
	CHECK(ir_node_set_inputs(g, 0, one, 1, &d) == 0 && ir_graph_node(g, 0)->n_inputs == 1);
	int bad[1] = {99};
	CHECK(ir_node_set_inputs(g, 0, bad, 1, &d) == -1);
	CHECK(ir_pass_from_name("bn") == IR_PASS_BN && ir_pass_from_name("nope") == -1);
	CHECK(ir_pass_in_all(IR_PASS_BN) && !ir_pass_in_all(IR_PASS_SOFTMAX));
	ir_graph_free(g);
}

/* a + b -> FN -> y: the act pass puts FN on the add when the runtime can
 * apply it fused and the target (when given) lists it. */
static void test_act_fusable(void)
{
	static const struct {
		int fn;
		bool target, in_target, fused;
	} cs[] = {
		{IR_OP_SIGMOID, false, false, true},
		{IR_OP_SQRT, false, false, true},
		{IR_OP_ERF, false, false, true},	/* the runtime has every unary fused (NPU_U_ERF) */
		{IR_OP_SIGMOID, true, true, true},
		{IR_OP_SIGMOID, true, false, false},	/* the target lacks it */
	};
	for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
		ir_graph *g = ir_graph_new();
		int64_t xd[] = {1, 4};
		int in[2] = {input(g, "a", 2, xd), input(g, "b", 2, xd)};
		int s = node(g, "add", IR_OP_ADD, in, 2, "s");
		int y = node(g, "fn", cs[k].fn, &s, 1, "y");
		ir_graph_set_inputs(g, in, 2, &d);
		ir_graph_set_outputs(g, &y, 1, &d);
		bool ops[IR_OP_COUNT] = {0};
		ops[IR_OP_ADD] = true;
		ops[cs[k].fn] = cs[k].in_target;
		ir_pass_report r = {.target_ops = cs[k].target ? ops : NULL};
		CHECK(ir_graph_infer_shapes(g, &d) == 0 && ir_pass_run(g, IR_PASS_ACT, &r, &d) == 0);
		const char *act = ir_node_str(g, 0, "act", NULL);
		CHECK_MSG(cs[k].fused ? ir_graph_node_count(g) == 1 && act && !strcmp(act, ir_op_name(cs[k].fn)) &&
						ir_graph_output(g, 0) == ir_graph_find_tensor(g, "y")
				      : ir_graph_node_count(g) == 2 && !act,
			  "case %zu: %s", k, ir_op_name(cs[k].fn));
		ir_graph_free(g);
	}
}

/* A chain x -> (add c -> relu) * N -> y where one relu output has two
 * readers and the last relu writes the graph output: the act pass removes
 * all N relus in one walk (killed in place, dropped after the pass), the
 * second reader follows, the output keeps its name and the removed nodes'
 * names are free again. */
static void test_act_chain(void)
{
	enum { N = 3000 };
	ir_graph *g = ir_graph_new();
	int64_t xd[] = {1, 4}, cd[] = {4};
	float cv[4] = {1, -2, 3, -4};
	int x = input(g, "x", 2, xd), c = cnst(g, "c", 1, cd, cv), t = x, side = -1;
	char nm[32], on[32];
	for (int i = 0; i < N; i++) {
		int in[2] = {t, c};
		snprintf(nm, sizeof nm, "add%d", i);
		snprintf(on, sizeof on, "a%d", i);
		t = node(g, nm, IR_OP_ADD, in, 2, on);
		snprintf(nm, sizeof nm, "relu%d", i);
		snprintf(on, sizeof on, i == N - 1 ? "y" : "r%d", i);
		t = node(g, nm, IR_OP_RELU, &t, 1, on);
		if (i == N / 2) {	/* r{N/2} read by the next add and by a neg */
			int tt = t;
			side = node(g, "side", IR_OP_NEG, &tt, 1, "s");
		}
	}
	int outs[2] = {t, side};
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, outs, 2, &d);
	CHECK(ir_graph_infer_shapes(g, &d) == 0);
	ir_pass_report r = {0};
	CHECK(ir_pass_run(g, IR_PASS_ACT, &r, &d) == 0 && r.changed == N);
	CHECK(ir_graph_node_count(g) == N + 1 && count_op(g, IR_OP_RELU) == 0 && count_op(g, IR_OP_ADD) == N);
	CHECK(ir_graph_verify(g, &d) == 0);
	int last = ir_graph_producer(g, ir_graph_output(g, 0));
	CHECK(last >= 0 && !strcmp(ir_graph_node(g, last)->name, "add2999") &&
	      !strcmp(ir_graph_tensor(g, ir_graph_output(g, 0))->name, "y") &&
	      !strcmp(ir_node_str(g, last, "act", ""), "relu"));
	int sn = ir_graph_find_node(g, "side");
	CHECK(sn >= 0 && ir_graph_node(g, sn)->inputs[0] == ir_graph_find_tensor(g, "a1500"));
	CHECK(ir_graph_find_node(g, "relu7") == -1 && ir_graph_find_node(g, "add7") >= 0);
	int tx = ir_graph_find_tensor(g, "x"), ty = ir_graph_add_tensor(g, "z", IR_DTYPE_F32, NULL, IR_KIND_ACTIVATION, &d);
	CHECK(ir_graph_add_node(g, "relu7", IR_OP_RELU, &tx, 1, &ty, 1, &d) >= 0);
	ir_graph_free(g);
}

int main(void)
{
	test_act_chain();
	test_act_fusable();
	test_bn_fc();
	test_relu6();
	test_bn_through_batch_to_space();
	test_bn_channel_last();
	test_bn_recognize();
	test_pow();
	test_gather_slice();
	test_layer_norm();
	test_layer_norm_rsqrt();
	test_layer_norm_kept();
	test_edit();
	return check_done();
}
