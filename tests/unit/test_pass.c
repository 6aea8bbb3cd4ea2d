/* test_pass.c - graph editing and the rewrite passes on hand-built graphs,
 * for what the fixtures of tests/pipeline/t4000-fuse.sh cannot show: the
 * folding arithmetic worked by hand, output names kept when the removed
 * node wrote a graph output, and relu6 -> relu under a quantized range
 * (which needs quantization parameters no importer writes). */
#include "check.h"
#include "ir.h"

#include <math.h>
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
		{IR_OP_ERF, false, false, false},	/* no fused form in the runtime */
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

int main(void)
{
	test_act_fusable();
	test_bn_fc();
	test_relu6();
	test_bn_through_batch_to_space();
	test_bn_channel_last();
	test_bn_recognize();
	test_edit();
	return check_done();
}
