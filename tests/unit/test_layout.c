/* test_layout.c - ir_graph_to_layout and the transpose passes on
 * hand-built graphs: attributes remapped (concat axis, reduce axes, pads,
 * slice axes), per-channel constants permuted, interface transposes, and
 * every rewritten graph computing exactly what the original computes (the
 * interpreter on the same values, permuted where the interface is). */
#include "check.h"
#include "ir.h"

#include <stdlib.h>
#include <string.h>

static ir_diag d;

static int tensor(ir_graph *g, const char *name, ir_kind k, int rank, const int64_t *dims)
{
	ir_shape s = {.rank = rank};
	for (int i = 0; i < rank; i++)
		s.dim[i] = dims[i];
	return ir_graph_add_tensor(g, name, IR_DTYPE_F32, rank ? &s : NULL, k, &d);
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
	int t = tensor(g, out, IR_KIND_ACTIVATION, 0, NULL);
	ir_graph_add_node(g, name, op, in, nin, &t, 1, &d);
	return t;
}

static int find(const ir_graph *g, const char *name) { return ir_graph_find_node(g, name); }

/* Run g on x (n floats); the output (malloc'ed) or NULL. */
static float *run(const ir_graph *g, const float *x, int64_t n, size_t *nb)
{
	ir_exec *e = ir_exec_new(g, IR_MODE_F32, 1, &d);
	float *y = NULL;
	if (e && ir_exec_set_input_f32(e, 0, x, n, &d) == 0 && ir_exec_run(e, &d) == 0) {
		const void *o = ir_exec_output(e, 0, nb);
		if ((y = malloc(*nb)))
			memcpy(y, o, *nb);
	}
	if (!e || !y)
		printf("# run: %s\n", d.msg);
	ir_exec_free(e);
	return y;
}

/* x [1,2,3,3] nchw -> conv 1x1 (4 out) -> add [4,1,1] -> relu -> pad (h by
 * 1 before) -> concat with itself on channels -> slice channels 2..6 ->
 * reduce_mean over h, w (keepdims) -> y [1,4,1,1] */
static ir_graph *cnn(void)
{
	ir_graph *g = ir_graph_new();
	int64_t xd[] = {1, 2, 3, 3}, wd[] = {4, 2, 1, 1}, bd[] = {4, 1, 1};
	float w[8] = {1, -2, 0.5f, 3, -1, 1, 2, 0.25f}, b[4] = {0.5f, -1, 2, 0};
	int x = tensor(g, "x", IR_KIND_INPUT, 4, xd);
	ir_graph_tensor(g, x)->layout = IR_LAYOUT_NCHW;
	int in[2] = {x, cnst(g, "w", 4, wd, w)};
	int c = node(g, "conv", IR_OP_CONV, in, 2, "c");
	int in2[2] = {c, cnst(g, "b", 3, bd, b)};
	int a = node(g, "add", IR_OP_ADD, in2, 2, "a");
	int r = node(g, "relu", IR_OP_RELU, &a, 1, "r");
	int p = node(g, "pad", IR_OP_PAD, &r, 1, "p");
	int64_t pads[8] = {0, 0, 1, 0, 0, 0, 0, 0};
	ir_node_set_ints(g, find(g, "pad"), "pads", pads, 8);
	int in3[2] = {p, p};
	int k = node(g, "cat", IR_OP_CONCAT, in3, 2, "k");
	ir_node_set_int(g, find(g, "cat"), "axis", 1);
	int s = node(g, "slice", IR_OP_SLICE, &k, 1, "s");
	int64_t st[] = {2}, en[] = {6}, ax[] = {1};
	ir_node_set_ints(g, find(g, "slice"), "starts", st, 1);
	ir_node_set_ints(g, find(g, "slice"), "ends", en, 1);
	ir_node_set_ints(g, find(g, "slice"), "axes", ax, 1);
	int y = node(g, "mean", IR_OP_REDUCE_MEAN, &s, 1, "y");
	int64_t axes[] = {2, 3};
	ir_node_set_ints(g, find(g, "mean"), "axes", axes, 2);
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &y, 1, &d);
	if (ir_graph_infer_shapes(g, &d))
		printf("# cnn: %s\n", d.msg);
	return g;
}

static const int64_t *ints(const ir_graph *g, const char *node, const char *key, int *n)
{
	const int64_t *v = NULL;
	*n = ir_node_ints(g, find(g, node), key, &v);
	return v;
}

static void test_to_nhwc(void)
{
	float x[18], xl[18];
	for (int i = 0; i < 18; i++)
		x[i] = (float)((i * 7) % 11) - 4.5f;
	/* the same values channel-last: xl[h][w][c] = x[c][h][w] */
	for (int c = 0; c < 2; c++)
		for (int s = 0; s < 9; s++)
			xl[s * 2 + c] = x[c * 9 + s];
	ir_graph *g = cnn();
	size_t n0, n1, n2;
	float *y0 = run(g, x, 18, &n0);

	/* the caller keeps nchw: one transpose in; out of [1,1,1,4] into
	 * [1,4,1,1] is the same bytes, a reshape */
	ir_graph *h = ir_graph_clone(g);
	ir_layout_opts o = {.to = IR_LAYOUT_NHWC};
	CHECK_MSG(ir_graph_to_layout(h, &o, &d) == 0, "%s", d.msg);
	CHECK(ir_graph_transpose_count(h) == 1);
	CHECK(ir_graph_node(h, ir_graph_node_count(h) - 1)->op == IR_OP_RESHAPE);
	int n;
	const int64_t *v = ints(h, "cat", "axis", &n);
	CHECK(n == -1 && ir_node_int(h, find(h, "cat"), "axis", 0) == 3);
	v = ints(h, "mean", "axes", &n);
	CHECK(n == 2 && v[0] == 1 && v[1] == 2);
	v = ints(h, "pad", "pads", &n);
	CHECK(n == 8 && v[1] == 1 && v[0] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7] == 0);
	v = ints(h, "slice", "axes", &n);
	CHECK(n == 1 && v[0] == 3);
	const ir_tensor *b = ir_graph_tensor(h, ir_graph_node(h, find(h, "add"))->inputs[1]);
	CHECK(b->shape.rank == 4 && b->shape.dim[3] == 4 && ir_shape_numel(&b->shape) == 4);
	CHECK(ir_graph_tensor(h, ir_graph_find_tensor(h, "c"))->layout == IR_LAYOUT_NHWC);
	CHECK(ir_graph_tensor(h, ir_graph_input(h, 0))->shape.dim[1] == 2);	/* still nchw */
	float *y1 = run(h, x, 18, &n1);
	CHECK(y0 && y1 && n0 == n1 && !memcmp(y0, y1, n0));

	/* fed channel-last, taken channel-last: no transpose at all */
	ir_graph *k = ir_graph_clone(g);
	ir_layout_io in = {"x", true}, out = {"y", true};
	ir_layout_opts o2 = {.to = IR_LAYOUT_NHWC, .inputs = &in, .n_inputs = 1, .outputs = &out, .n_outputs = 1};
	CHECK_MSG(ir_graph_to_layout(k, &o2, &d) == 0, "%s", d.msg);
	CHECK(ir_graph_transpose_count(k) == 0);
	const ir_tensor *xi = ir_graph_tensor(k, ir_graph_input(k, 0));
	CHECK(xi->layout == IR_LAYOUT_NHWC && xi->shape.dim[1] == 3 && xi->shape.dim[3] == 2);
	float *y2 = run(k, xl, 18, &n2);	/* [1,1,1,4]: the same bytes as [1,4,1,1] */
	CHECK(y0 && y2 && n0 == n2 && !memcmp(y0, y2, n0));

	/* and back to nchw: a transpose at the (nhwc) input, a reshape at the output */
	ir_layout_opts o3 = {.to = IR_LAYOUT_NCHW};
	CHECK_MSG(ir_graph_to_layout(k, &o3, &d) == 0, "%s", d.msg);
	CHECK(ir_graph_transpose_count(k) == 1);
	free(y0), free(y1), free(y2);
	ir_graph_free(g), ir_graph_free(h), ir_graph_free(k);
}

static void test_errors(void)
{
	ir_graph *g = cnn();
	ir_layout_io bad[2] = {{"nope", true}, {"y", true}};
	ir_layout_opts o = {.to = IR_LAYOUT_NHWC, .inputs = bad, .n_inputs = 2};
	CHECK(ir_graph_to_layout(g, &o, &d) == -1);
	CHECK_MSG(strstr(d.msg, "'nope' is not a graph input") != NULL, "%s", d.msg);
	ir_layout_opts o2 = {.to = IR_LAYOUT_NC};
	CHECK(ir_graph_to_layout(g, &o2, &d) == -1);
	CHECK(ir_graph_transpose_count(g) == 0 && ir_graph_verify(g, &d) == 0);	/* untouched */
	ir_graph_free(g);
}

/* x [1,2,2,3] -> transpose (0,3,1,2) -> relu -> transpose (0,2,3,1) -> y:
 * the sink moves the first below the relu, then the pair cancels. */
static void test_sink(void)
{
	ir_graph *g = ir_graph_new();
	int64_t xd[] = {1, 2, 2, 3}, p1[] = {0, 3, 1, 2}, p2[] = {0, 2, 3, 1};
	int x = tensor(g, "x", IR_KIND_INPUT, 4, xd);
	int t = node(g, "t1", IR_OP_TRANSPOSE, &x, 1, "t");
	ir_node_set_ints(g, 0, "perm", p1, 4);
	int r = node(g, "relu", IR_OP_RELU, &t, 1, "r");
	int y = node(g, "t2", IR_OP_TRANSPOSE, &r, 1, "y");
	ir_node_set_ints(g, 2, "perm", p2, 4);
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &y, 1, &d);
	CHECK(ir_graph_infer_shapes(g, &d) == 0);
	ir_pass_report rep = {0};
	CHECK(ir_pass_run(g, IR_PASS_TRANSPOSE_SINK, &rep, &d) == 0 && rep.changed == 1);
	CHECK(ir_graph_node(g, 0)->op == IR_OP_RELU);
	CHECK(ir_pass_run(g, IR_PASS_TRANSPOSE, &rep, &d) == 0 && rep.changed == 1);
	CHECK(ir_graph_transpose_count(g) == 0 && ir_graph_node_count(g) == 1 && ir_graph_verify(g, &d) == 0);
	CHECK(!strcmp(ir_graph_tensor(g, ir_graph_output(g, 0))->name, "y"));
	ir_graph_free(g);
}

/* x [1,2,2,3] -> transpose (0,3,1,2) -> reshape [1,12] -> fc (w [2,12]):
 * the transpose goes into w's columns, the output stays the same. */
static void test_fc(void)
{
	ir_graph *g = ir_graph_new();
	int64_t xd[] = {1, 2, 2, 3}, p[] = {0, 3, 1, 2}, sh[] = {1, 12}, wd[] = {2, 12};
	float w[24], x[12];
	for (int i = 0; i < 24; i++)
		w[i] = (float)(i % 5) - 2 + 0.25f * (float)i;
	for (int i = 0; i < 12; i++)
		x[i] = (float)i * 0.5f - 3;
	int xi = tensor(g, "x", IR_KIND_INPUT, 4, xd);
	int t = node(g, "t", IR_OP_TRANSPOSE, &xi, 1, "tt");
	ir_node_set_ints(g, 0, "perm", p, 4);
	int r = node(g, "flat", IR_OP_RESHAPE, &t, 1, "r");
	ir_node_set_ints(g, 1, "shape", sh, 2);
	int in[2] = {r, cnst(g, "w", 2, wd, w)};
	int y = node(g, "fc", IR_OP_FULLY_CONNECTED, in, 2, "y");
	ir_graph_set_inputs(g, &xi, 1, &d);
	ir_graph_set_outputs(g, &y, 1, &d);
	CHECK(ir_graph_infer_shapes(g, &d) == 0);
	size_t n0, n1;
	float *y0 = run(g, x, 12, &n0);
	ir_pass_report rep = {0};
	CHECK(ir_pass_run(g, IR_PASS_TRANSPOSE_FC, &rep, &d) == 0 && rep.changed == 1);
	CHECK(ir_graph_transpose_count(g) == 0 && ir_graph_verify(g, &d) == 0);
	float *y1 = run(g, x, 12, &n1);
	/* one product per column either way; sums in another order: equal
	 * within rounding (these values are exact in float) */
	CHECK(y0 && y1 && n0 == n1 && !memcmp(y0, y1, n0));
	free(y0), free(y1);
	ir_graph_free(g);
}

int main(void)
{
	test_to_nhwc();
	test_errors();
	test_sink();
	test_fc();
	return check_done();
}
