/* test_conv3x3.c - 3x3 stride-1 convolutions (the interpreter computes them
 * with Winograd's F(2x2, 3x3) when there are enough channels) against the
 * definition of convolution summed directly in double precision here:
 * y[o][i][j] = b[o] + sum_c,dy,dx w[o][c][dy][dx] x[c][i+dy-pt][j+dx-pl]
 * (zero outside x). Odd and even output sizes, asymmetric padding, a batch
 * of two, fused relu, and 1 and 2 threads. */
#include "check.h"
#include "ir.h"

#include <math.h>
#include <stdlib.h>

static double urand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return ((*s >> 8) & 0xffff) / 32768.0 - 1.0;
}

static void one(int N, int C, int O, int H, int W, int pt, int pl, int pb, int pr, bool relu, int threads)
{
	ir_diag d;
	ir_graph *g = ir_graph_new();
	int OH = H + pt + pb - 2, OW = W + pl + pr - 2;
	ir_shape xs = {4, {N, C, H, W}}, ws = {4, {O, C, 3, 3}}, bs = {1, {O}};
	unsigned seed = (unsigned)(C * 131 + H * 7 + W + pt + threads);
	float *x = malloc(sizeof(float) * (size_t)(N * C * H * W)), *w = malloc(sizeof(float) * (size_t)(O * C * 9));
	float *b = malloc(sizeof(float) * (size_t)O);
	for (int i = 0; i < N * C * H * W; i++)
		x[i] = (float)urand(&seed);
	for (int i = 0; i < O * C * 9; i++)
		w[i] = (float)(urand(&seed) / 3);
	for (int i = 0; i < O; i++)
		b[i] = (float)urand(&seed);
	int xi = ir_graph_add_tensor(g, "x", IR_DTYPE_F32, &xs, IR_KIND_INPUT, &d);
	int in[3] = {xi, ir_graph_add_const(g, "w", IR_DTYPE_F32, &ws, w, &d),
		     ir_graph_add_const(g, "b", IR_DTYPE_F32, &bs, b, &d)};
	int y = ir_graph_add_tensor(g, "y", IR_DTYPE_F32, NULL, IR_KIND_ACTIVATION, &d);
	int n = ir_graph_add_node(g, "conv", IR_OP_CONV, in, 3, &y, 1, &d);
	int64_t pads[4] = {pt, pl, pb, pr};
	ir_node_set_ints(g, n, "pads", pads, 4);
	if (relu)
		ir_node_set_str(g, n, "act", "relu");
	ir_graph_set_inputs(g, &xi, 1, &d);
	ir_graph_set_outputs(g, &y, 1, &d);
	ir_exec *e = NULL;
	int ok = ir_graph_infer_shapes(g, &d) == 0 && (e = ir_exec_new(g, IR_MODE_F32, threads, &d)) &&
		 ir_exec_set_input(e, 0, x, sizeof(float) * (size_t)(N * C * H * W), &d) == 0 && ir_exec_run(e, &d) == 0;
	if (!CHECK_MSG(ok, "%s", d.msg))
		goto out;
	size_t nb;
	const float *got = ir_exec_output(e, 0, &nb);
	double worst = 0, scale = 0;
	for (int bi = 0; bi < N; bi++)
		for (int o = 0; o < O; o++)
			for (int i = 0; i < OH; i++)
				for (int j = 0; j < OW; j++) {
					double s = b[o];
					for (int c = 0; c < C; c++)
						for (int dy = 0; dy < 3; dy++)
							for (int dx = 0; dx < 3; dx++) {
								int iy = i + dy - pt, ix = j + dx - pl;
								if (iy >= 0 && iy < H && ix >= 0 && ix < W)
									s += (double)w[((o * C + c) * 3 + dy) * 3 + dx] *
									     x[((bi * C + c) * H + iy) * W + ix];
							}
					if (relu && s < 0)
						s = 0;
					double diff = fabs(got[((bi * O + o) * OH + i) * OW + j] - s);
					worst = diff > worst ? diff : worst;
					scale = fabs(s) > scale ? fabs(s) : scale;
				}
	CHECK_MSG(nb == sizeof(float) * (size_t)(N * O * OH * OW) && worst <= 1e-5 * scale,
		  "N%d C%d O%d %dx%d pads %d,%d,%d,%d: worst error %g of %g", N, C, O, H, W, pt, pl, pb, pr, worst, scale);
out:
	ir_exec_free(e);
	ir_graph_free(g);
	free(x);
	free(w);
	free(b);
}

int main(void)
{
	one(1, 64, 16, 12, 12, 1, 1, 1, 1, false, 1);	/* even output, "same" padding */
	one(1, 64, 24, 13, 15, 1, 1, 1, 1, true, 1);	/* odd output sizes: partial tiles */
	one(2, 65, 16, 14, 17, 0, 2, 1, 0, false, 2);	/* batch, asymmetric pads, odd C */
	one(1, 64, 32, 30, 30, 1, 1, 1, 1, true, 2);	/* more than one block of tiles */
	one(1, 3, 8, 9, 9, 1, 1, 1, 1, false, 1);	/* few channels: the direct path */
	return check_done();
}
