/* ir_kern_rnn.c - RNN, GRU and LSTM with ONNX semantics: input order
 * X, W, R, B, sequence_lens, initial_h (, initial_c, P); gate order
 * RNN: one; GRU: z r h; LSTM: i o f c (peepholes i o f); default
 * activations (RNN tanh; GRU sigmoid, tanh; LSTM sigmoid, tanh, tanh);
 * clip on the pre-activations; linear_before_reset; input_forget;
 * directions forward, reverse and bidirectional; layout 0 (time major) or 1
 * (batch major); per-batch sequence lengths (steps beyond a sequence's
 * length give zero outputs and keep the state).
 *
 * X . W^T (+ Wb) is one GEMM over all steps; each step is one GEMM of the
 * hidden state with R^T (+ Rb). Constant weights are packed once. */
#include "ir_kern.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	int64_t S, B, I, H, D, G;
	bool batch_first;
} rnn_dims;

/* Packed weights per direction: W^T (I x GH), R^T as GEMM B operands. For
 * GRU R is split into the z,r part (H x 2H) and the h part (H x H). */
typedef struct {
	size_t w_floats, r_floats, rh_floats;
	size_t pad[5];			/* data starts 64 bytes in */
	float data[];
} rnn_pack;

static size_t al(size_t n) { return (n + 15) & ~(size_t)15; }	/* floats, 64-byte multiples */

static float *pk_w(rnn_pack *p, int64_t d) { return p->data + (size_t)d * (p->w_floats + p->r_floats + p->rh_floats); }
static float *pk_r(rnn_pack *p, int64_t d) { return pk_w(p, d) + p->w_floats; }
static float *pk_rh(rnn_pack *p, int64_t d) { return pk_r(p, d) + p->r_floats; }

static void dims_of(const ir_kctx *k, rnn_dims *r)
{
	const ir_tensor *x = k->it[0], *w = k->it[1], *rr = k->it[2];
	r->batch_first = ir_node_int(k->g, k->id, "layout", 0) != 0;
	r->S = x->shape.dim[r->batch_first];
	r->B = x->shape.dim[!r->batch_first];
	r->I = x->shape.dim[2];
	r->D = w->shape.dim[0];
	r->H = rr->shape.dim[2];
	r->G = w->shape.dim[1] / (r->H ? r->H : 1);
}

static rnn_pack *pack(ir_kctx *k, const rnn_dims *r)
{
	bool gru = k->n->op == IR_OP_GRU;
	int64_t GH = r->G * r->H, RN = gru ? 2 * r->H : GH;
	size_t wf = al(ir_gemm_pack_b_size(r->I, GH) / sizeof(float));
	size_t rf = al(ir_gemm_pack_b_size(r->H, RN) / sizeof(float));
	size_t hf = gru ? al(ir_gemm_pack_b_size(r->H, r->H) / sizeof(float)) : 0;
	rnn_pack *p = ir_kalloc(sizeof *p + 64 + sizeof(float) * (wf + rf + hf) * (size_t)r->D, 1);
	if (!p)
		return NULL;
	p->w_floats = wf;
	p->r_floats = rf;
	p->rh_floats = hf;
	const float *w = k->in[1], *rr = k->in[2];
	for (int64_t d = 0; d < r->D; d++) {
		/* W[d] is GH x I: B element (k=i, j=g) = W[d][g][i]. */
		ir_gemm_pack_b(pk_w(p, d), w + d * GH * r->I, r->I, GH, 1, r->I);
		const float *rd = rr + d * GH * r->H;
		ir_gemm_pack_b(pk_r(p, d), rd, r->H, RN, 1, r->H);
		if (gru)
			ir_gemm_pack_b(pk_rh(p, d), rd + 2 * r->H * r->H, r->H, r->H, 1, r->H);
	}
	return p;
}

static const float *opt_in(const ir_kctx *k, int i) { return i < k->nin ? k->in[i] : NULL; }

static int rnn_prepare(ir_kctx *k)
{
	for (int i = 0; i < k->nin; i++) {
		const ir_tensor *t = k->it[i];
		if (t && i != 4 && t->dtype != IR_DTYPE_F32)
			return KFAIL(k, "input %d ('%s') is %s; the interpreter runs recurrent ops on f32 only", i,
				     t->name, ir_dtype_name(t->dtype));
		if (t && i == 4 && t->dtype != IR_DTYPE_I32 && t->dtype != IR_DTYPE_I64)
			return KFAIL(k, "sequence_lens must be i32 or i64");
	}
	if (!k->it[0] || !k->it[1] || !k->it[2])
		return KFAIL(k, "inputs X, W and R are required");
	rnn_dims r;
	dims_of(k, &r);
	if (k->it[1]->kind == IR_KIND_CONST && k->it[2]->kind == IR_KIND_CONST) {
		*k->state = pack(k, &r);
		if (!*k->state)
			return KFAIL(k, "out of memory packing weights");
	}
	return 0;
}

static float sigm(float v) { return v >= 0 ? 1 / (1 + expf(-v)) : expf(v) / (1 + expf(v)); }

static float clipv(float v, float c) { return c > 0 ? (v < -c ? -c : v > c ? c : v) : v; }

static int run(ir_kctx *k)
{
	if (k->prepare)
		return rnn_prepare(k);
	int op = k->n->op;
	rnn_dims r;
	dims_of(k, &r);
	int64_t S = r.S, B = r.B, H = r.H, D = r.D, GH = r.G * r.H;
	const char *dir = ir_node_str(k->g, k->id, "direction", "forward");
	bool reverse_only = !strcmp(dir, "reverse");
	float clip = (float)ir_node_float(k->g, k->id, "clip", 0);
	bool lbr = ir_node_int(k->g, k->id, "linear_before_reset", 0) != 0;
	bool coupled = ir_node_int(k->g, k->id, "input_forget", 0) != 0;
	rnn_pack *pk = *k->state, *tmp = NULL;
	if (!pk && !(pk = tmp = pack(k, &r)))
		return KFAIL(k, "out of memory");
	const float *X = k->in[0], *Bias = opt_in(k, 3), *h0 = opt_in(k, 5);
	const float *c0 = op == IR_OP_LSTM ? opt_in(k, 6) : NULL, *P = op == IR_OP_LSTM ? opt_in(k, 7) : NULL;
	const ir_tensor *sl = k->nin > 4 ? k->it[4] : NULL;
	float *Y = k->nout > 0 ? k->out[0] : NULL, *Yh = k->nout > 1 ? k->out[1] : NULL;
	float *Yc = k->nout > 2 ? k->out[2] : NULL;
	size_t need = (size_t)(S * B * GH + B * GH + 4 * B * H + B + 16);
	float *xw = malloc(sizeof(float) * need);
	if (!xw) {
		free(tmp);
		return KFAIL(k, "out of memory");
	}
	float *hr = xw + S * B * GH, *h = hr + B * GH, *c = h + B * H, *tmp_h = c + B * H, *g2 = tmp_h + B * H;
	int64_t *len = malloc(sizeof(int64_t) * (size_t)(B + 1));
	if (!len) {
		free(xw);
		free(tmp);
		return KFAIL(k, "out of memory");
	}
	for (int64_t b = 0; b < B; b++) {
		int64_t l = sl ? (int64_t)ir_elem_get(k->in[4], sl->dtype, b) : S;
		len[b] = l < 0 ? 0 : l > S ? S : l;
	}
	if (Y)
		memset(Y, 0, sizeof(float) * (size_t)(S * D * B * H));
	int rc = 0;
	for (int64_t d = 0; d < D && !rc; d++) {
		bool rev = reverse_only || d == 1;
		const float *wb = Bias ? Bias + d * 2 * GH : NULL, *rb = Bias ? Bias + d * 2 * GH + GH : NULL;
		/* xw[row] = X[row] . W^T + Wb, rows in X's memory order. */
		ir_gemm_args a = {.M = S * B, .N = GH, .K = r.I, .a = X, .a_rs = r.I, .a_cs = 1,
				  .bp = pk_w(pk, d), .c = xw, .ldc = GH, .bias_n = wb,
				  .lo = -INFINITY, .hi = INFINITY};
		if ((rc = ir_gemm(k, &a)))
			break;
		for (int64_t b = 0; b < B; b++)
			for (int64_t j = 0; j < H; j++) {
				int64_t si = r.batch_first ? (b * D + d) * H + j : (d * B + b) * H + j;
				h[b * H + j] = h0 ? h0[si] : 0;
				c[b * H + j] = c0 ? c0[si] : 0;
			}
		const float *pi = P ? P + d * 3 * H : NULL, *po = pi ? pi + H : NULL, *pf = pi ? pi + 2 * H : NULL;
		for (int64_t s = 0; s < S && !rc; s++) {
			int64_t RN = op == IR_OP_GRU ? 2 * H : GH;
			ir_gemm_args hg = {.M = B, .N = RN, .K = H, .a = h, .a_rs = H, .a_cs = 1,
					   .bp = pk_r(pk, d), .c = hr, .ldc = GH, .bias_n = rb,
					   .lo = -INFINITY, .hi = INFINITY};
			if ((rc = ir_gemm(k, &hg)))
				break;
			if (op == IR_OP_GRU) {
				/* z and r first; the h gate's recurrent product needs r. */
				for (int64_t b = 0; b < B; b++) {
					if (s >= len[b])
						continue;
					int64_t t = rev ? len[b] - 1 - s : s;
					const float *x = xw + (r.batch_first ? b * S + t : t * B + b) * GH;
					for (int64_t j = 0; j < 2 * H; j++)
						hr[b * GH + j] = sigm(clipv(x[j] + hr[b * GH + j], clip));
					for (int64_t j = 0; j < H; j++)
						tmp_h[b * H + j] = lbr ? h[b * H + j] : hr[b * GH + H + j] * h[b * H + j];
				}
				ir_gemm_args hh = {.M = B, .N = H, .K = H, .a = tmp_h, .a_rs = H, .a_cs = 1,
						   .bp = pk_rh(pk, d), .c = g2, .ldc = H,
						   .bias_n = rb ? rb + 2 * H : NULL, .lo = -INFINITY, .hi = INFINITY};
				if ((rc = ir_gemm(k, &hh)))
					break;
			}
			for (int64_t b = 0; b < B; b++) {
				if (s >= len[b])
					continue;
				int64_t t = rev ? len[b] - 1 - s : s;
				const float *x = xw + (r.batch_first ? b * S + t : t * B + b) * GH;
				float *g = hr + b * GH, *hb = h + b * H, *cb = c + b * H;
				if (op == IR_OP_RNN) {
					for (int64_t j = 0; j < H; j++)
						hb[j] = tanhf(clipv(x[j] + g[j], clip));
				} else if (op == IR_OP_GRU) {
					const float *z = g, *rg = g + H, *q = g2 + b * H;
					for (int64_t j = 0; j < H; j++) {
						float pre = lbr ? x[2 * H + j] + rg[j] * q[j] : x[2 * H + j] + q[j];
						float hh = tanhf(clipv(pre, clip));
						hb[j] = (1 - z[j]) * hh + z[j] * hb[j];
					}
				} else {
					for (int64_t j = 0; j < H; j++) {
						float gi = x[j] + g[j], go = x[H + j] + g[H + j];
						float gf = x[2 * H + j] + g[2 * H + j], gc = x[3 * H + j] + g[3 * H + j];
						if (pi) {
							gi += pi[j] * cb[j];
							gf += pf[j] * cb[j];
						}
						float ig = sigm(clipv(gi, clip));
						float fg = coupled ? 1 - ig : sigm(clipv(gf, clip));
						float cc = tanhf(clipv(gc, clip));
						cb[j] = fg * cb[j] + ig * cc;
						if (po)
							go += po[j] * cb[j];
						hb[j] = sigm(clipv(go, clip)) * tanhf(cb[j]);
					}
				}
				if (Y) {
					float *y = Y + (r.batch_first ? ((b * S + t) * D + d) * H : ((t * D + d) * B + b) * H);
					memcpy(y, hb, sizeof(float) * (size_t)H);
				}
			}
		}
		for (int64_t b = 0; b < B; b++) {
			int64_t so = r.batch_first ? (b * D + d) * H : (d * B + b) * H;
			if (Yh)
				memcpy(Yh + so, h + b * H, sizeof(float) * (size_t)H);
			if (Yc)
				memcpy(Yc + so, c + b * H, sizeof(float) * (size_t)H);
		}
	}
	free(len);
	free(xw);
	free(tmp);
	return rc ? -1 : 0;
}

int ir_kern_rnn(ir_kctx *k) { return run(k); }
int ir_kern_gru(ir_kctx *k) { return run(k); }
int ir_kern_lstm(ir_kctx *k) { return run(k); }
