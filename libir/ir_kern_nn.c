/* ir_kern_nn.c - reference kernels for the compute ops: convolution,
 * transposed convolution, fully connected, matmul, gemm, pooling and
 * normalisation. Channel-first layouts (batch_norm also channel-last; the
 * others refuse channel-last when the executor is created).
 *
 * Convolution: constant weights are packed for the GEMM once, when the
 * executor is created. Y = W . im2col(X) with the im2col done while packing
 * B (ir_im2col_pack), a 1x1 stride-1 convolution reads X in place, and small
 * output planes (7x7) use Y^T = im2col(X)^T . W^T so that vector lanes run
 * along output channels. Depthwise convolution (one input channel per group)
 * has its own kernel: same-size stride-1 planes as one flattened row with
 * per-tap masks (AVX-512), other stride-1 planes straight from the input,
 * the rest from a padded, phase-split copy of the plane.
 *
 * Spatial ops are normalised to three spatial dimensions (missing leading
 * ones have size 1). */
#include "ir_kern.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t numel(const ir_tensor *t) { return ir_shape_numel(&t->shape); }

static bool is_const(const ir_tensor *t) { return t && t->kind == IR_KIND_CONST; }

static int need_f32(ir_kctx *k, int i)
{
	const ir_tensor *t = i < k->nin ? k->it[i] : NULL;
	if (t && t->dtype != IR_DTYPE_F32)
		return KFAIL(k, "input %d ('%s') is %s; the interpreter runs this op on f32 only", i, t->name,
			     ir_dtype_name(t->dtype));
	return 0;
}

static int need_channel_first(ir_kctx *k)
{
	if (ir_kern_channel_last(k))
		return KFAIL(k, "channel-last layout (%s) is not implemented for %s",
			     ir_layout_name(k->it[0]->layout), ir_op_name(k->n->op));
	return 0;
}

/* Attribute of nsp ints into the last nsp of 3 slots (front filled with def). */
static void ints3(const ir_kctx *k, const char *key, int nsp, int64_t def, int64_t *out)
{
	const int64_t *v;
	int n = ir_node_ints(k->g, k->id, key, &v);
	for (int i = 0; i < 3; i++)
		out[i] = def;
	if (n == nsp)
		for (int i = 0; i < nsp; i++)
			out[3 - nsp + i] = v[i];
}

/* ONNX pads [b1.., e1..] into begin/end of 3 slots. */
static void pads3(const ir_kctx *k, const char *key, int nsp, int64_t *pb, int64_t *pe)
{
	const int64_t *v;
	int n = ir_node_ints(k->g, k->id, key, &v);
	for (int i = 0; i < 3; i++)
		pb[i] = pe[i] = 0;
	if (n == 2 * nsp)
		for (int i = 0; i < nsp; i++) {
			pb[3 - nsp + i] = v[i];
			pe[3 - nsp + i] = v[nsp + i];
		}
}

/* Spatial dims of a channel-first tensor into 3 slots. */
static void spatial3(const ir_tensor *t, int64_t *out)
{
	int nsp = t->shape.rank - 2;
	for (int i = 0; i < 3; i++)
		out[i] = i < 3 - nsp ? 1 : t->shape.dim[2 + i - (3 - nsp)];
}

static int64_t vol3(const int64_t *v) { return v[0] * v[1] * v[2]; }

/* ---------------------------------------------------------------- convolution geometry */

typedef struct {
	int nsp;
	int64_t N, C, O, G, Cg, Og;
	int64_t in[3], out[3], ks[3], st[3], pb[3], pe[3], dil[3];
	int64_t KK, Kg, I, P;
} conv_geom;

static void conv_geom_of(const ir_kctx *k, conv_geom *cg, bool transpose)
{
	const ir_tensor *x = k->it[0], *w = k->it[1], *y = k->ot[0];
	cg->nsp = x->shape.rank - 2;
	cg->N = x->shape.dim[0];
	cg->C = x->shape.dim[1];
	cg->O = y->shape.dim[1];
	cg->G = ir_node_int(k->g, k->id, "group", 1);
	cg->Cg = cg->C / cg->G;
	cg->Og = cg->O / cg->G;
	spatial3(x, cg->in);
	spatial3(y, cg->out);
	spatial3(w, cg->ks);
	ints3(k, "strides", cg->nsp, 1, cg->st);
	ints3(k, "dilations", cg->nsp, 1, cg->dil);
	pads3(k, "pads", cg->nsp, cg->pb, cg->pe);
	cg->KK = vol3(cg->ks);
	cg->Kg = (transpose ? cg->Og : cg->Cg) * cg->KK;
	cg->I = vol3(cg->in);
	cg->P = vol3(cg->out);
}

static bool conv_pointwise(const conv_geom *cg)
{
	return cg->KK == 1 && cg->st[0] * cg->st[1] * cg->st[2] == 1 &&
	       cg->pb[0] + cg->pb[1] + cg->pb[2] + cg->pe[0] + cg->pe[1] + cg->pe[2] == 0;
}

static void im2col_of(const conv_geom *cg, const float *x, ir_im2col *ic)
{
	*ic = (ir_im2col){.x = x, .KK = cg->KK, .I = cg->I};
	for (int d = 0; d < 3; d++) {
		ic->in[d] = cg->in[d];
		ic->out[d] = cg->out[d];
		ic->ks[d] = cg->ks[d];
		ic->st[d] = cg->st[d];
		ic->pb[d] = cg->pb[d];
		ic->dil[d] = cg->dil[d];
	}
	if (conv_pointwise(cg)) {	/* one long row: runs never break */
		ic->in[0] = ic->in[1] = ic->out[0] = ic->out[1] = 1;
		ic->in[2] = ic->out[2] = cg->I;
	}
}

/* ---------------------------------------------------------------- padded planes (depthwise, pooling) */

/* A plane padded so that every window of a strided sliding op reads inside
 * it, stored phase-split: padded column c of row r lives at
 * buf[(r * sw + c % sw) * wq + c / sw], so the taps of consecutive outputs
 * are consecutive in memory whatever the stride. */
typedef struct {
	int64_t hn, sw, wq;
} pplane;

static void pplane_geom(pplane *pp, int64_t OH, int64_t OW, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
			int64_t dh, int64_t dw)
{
	pp->hn = (OH - 1) * sh + (kh - 1) * dh + 1;
	pp->sw = sw;
	pp->wq = OW + ((kw - 1) * dw) / sw + 1;
}

/* Padded row r, phase ph, column q holds input column q * sw + ph - pl of
 * input row r - pt (fill outside the input). */
static void pplane_fill_rows(const pplane *pp, float *buf, const float *x, int64_t H, int64_t W, int64_t pt,
			     int64_t pl, float fill, int64_t r0, int64_t r1)
{
	int64_t sw = pp->sw, wq = pp->wq;
	for (int64_t r = r0; r < r1; r++) {
		int64_t iy = r - pt;
		float *row = buf + (r - r0) * sw * wq;
		if (iy < 0 || iy >= H) {
			ir_pad_row(row, sw * wq, x, 0, 0, 1, fill);
			continue;
		}
		const float *src = x + iy * W;
		if (sw == 1) {
			ir_pad_row(row, wq, src, -pl, W, 1, fill);
			continue;
		}
		if (sw == 2) {
			ir_pad_row2(row, row + wq, wq, src, -pl, W, fill);
			continue;
		}
		for (int64_t ph = 0; ph < sw; ph++) {
			float *d = row + ph * wq;
			/* inside: 0 <= q * sw + ph - pl < W */
			int64_t q0 = pl - ph > 0 ? (pl - ph + sw - 1) / sw : 0;
			int64_t q1 = W + pl - ph > 0 ? (W + pl - ph + sw - 1) / sw : 0;
			q0 = q0 > wq ? wq : q0;
			q1 = q1 > wq ? wq : q1 < q0 ? q0 : q1;
			ir_pad_row(d, q0, src, 0, 0, 1, fill);
			const float *s0 = src + q0 * sw + ph - pl;
			for (int64_t q = q0; q < q1; q++)
				d[q] = s0[(q - q0) * sw];
			ir_pad_row(d + q1, wq - q1, src, 0, 0, 1, fill);
		}
	}
}

static void pplane_fill(const pplane *pp, float *buf, const float *x, int64_t H, int64_t W, int64_t pt, int64_t pl,
			float fill)
{
	pplane_fill_rows(pp, buf, x, H, W, pt, pl, fill, 0, pp->hn);
}

static const float *pplane_tap(const pplane *pp, const float *buf, int64_t oh, int64_t sh, int64_t ky, int64_t dh,
			       int64_t kx, int64_t dw)
{
	int64_t r = oh * sh + ky * dh, c = kx * dw;
	return buf + (r * pp->sw + c % pp->sw) * pp->wq + c / pp->sw;
}

/* ---------------------------------------------------------------- conv */

typedef struct {
	bool depthwise;
	bool winograd;			/* 3x3 stride 1: ir_conv_winograd, packed by ir_wino_pack */
	bool transposed;		/* computes Y^T = im2col^T . W^T (W packed as B) */
	bool flat;			/* depthwise in the flattened form: masks follow */
	int64_t off[64], nwords;	/* its tap offsets and mask words per tap */
	size_t group_floats;		/* packed floats per group */
	float packed[];			/* G packed weight matrices (64-byte aligned) */
} conv_state;

/* Y = W . im2col wastes vector lanes when the output plane is small (7x7 =
 * 49 columns fill 2 panels of 32); then Y^T = im2col^T . W^T, with vectors
 * along output channels, is the better product. */
static bool conv_transposed_better(const conv_geom *cg)
{
	int64_t nr = ir_gemm_nr();
	double eff_n = (double)cg->P / (double)((cg->P + nr - 1) / nr * nr);
	double eff_t = (double)cg->Og / (double)((cg->Og + nr - 1) / nr * nr);
	return eff_n < 0.8 && eff_t > eff_n && cg->Og >= nr;
}

static size_t conv_state_offset(void) { return (sizeof(conv_state) + 63) & ~(size_t)63; }

static const float *conv_packed(const conv_state *s, int64_t g)
{
	return (const float *)((const char *)s + conv_state_offset()) + (size_t)g * s->group_floats;
}

typedef struct {
	ir_kctx *k;
	const conv_geom *cg;
	const float *x, *w, *b;
	float *y;
	float lo, hi;
	const conv_state *s;		/* flattened form when s->flat */
} dw_job;

/* The flattened depthwise form applies to same-size stride-1 planes. */
static bool dw_flat_applies(const conv_geom *g)
{
	return g->st[1] == 1 && g->st[2] == 1 && g->out[1] == g->in[1] && g->out[2] == g->in[2] &&
	       g->ks[1] * g->ks[2] <= 64;
}

/* Its tap offsets and masks (bit i of tap t: output i reads inside the input). */
static void dw_flat_plan(const conv_geom *g, int64_t *off, int64_t nwords, uint16_t *bits)
{
	int64_t H = g->in[1], W = g->in[2], kh = g->ks[1], kw = g->ks[2], P = g->P;
	memset(bits, 0, sizeof *bits * (size_t)(nwords * kh * kw));
	for (int64_t ky = 0; ky < kh; ky++)
		for (int64_t kx = 0; kx < kw; kx++) {
			int64_t t = ky * kw + kx, dy = ky * g->dil[1] - g->pb[1], dx = kx * g->dil[2] - g->pb[2];
			uint16_t *b = bits + t * nwords;
			off[t] = dy * W + dx;
			for (int64_t i = 0; i < P; i++) {
				int64_t iy = i / W + dy, ix = i % W + dx;
				if (iy >= 0 && iy < H && ix >= 0 && ix < W)
					b[i / 16] |= (uint16_t)(1u << (i % 16));
			}
		}
}

/* Scratch for padded planes. */
static size_t pplane_floats(const pplane *pp, int64_t planes) { return (size_t)(pp->hn * pp->sw * pp->wq * planes); }

/* Depthwise straight from the input (no padded copy; column stride 1 or
 * 2): rows whose taps are all inside in one call, the others one by one
 * with their valid taps. false if the CPU has no such row primitive. */
static bool dw_direct(const dw_job *j, const float *x, const float *wt, float bias, float *y, const float **taps)
{
	const conv_geom *g = j->cg;
	int64_t H = g->in[1], W = g->in[2], OH = g->out[1], OW = g->out[2], kh = g->ks[1], kw = g->ks[2];
	int64_t pt = g->pb[1], pl = g->pb[2], dh = g->dil[1], dwl = g->dil[2], sh = g->st[1], sw = g->st[2];
	int64_t dx[64];
	float wsub[64];
	/* rows with every tap inside: 0 <= oh*sh - pt and oh*sh - pt + (kh-1)*dh < H */
	int64_t rt = (pt + sh - 1) / sh, last = H - 1 - (kh - 1) * dh + pt;
	int64_t rb = last < 0 ? 0 : last / sh + 1;
	rt = rt > OH ? OH : rt;
	rb = rb < rt ? rt : rb > OH ? OH : rb;
	for (int64_t oh = 0; oh < OH;) {
		bool inside = oh >= rt && oh < rb;
		int nt = 0;
		for (int64_t ky = 0; ky < kh; ky++) {
			int64_t iy = oh * sh - pt + ky * dh;
			if (!inside && (iy < 0 || iy >= H))
				continue;
			for (int64_t kx = 0; kx < kw; kx++) {
				dx[nt] = kx * dwl - pl;
				wsub[nt] = wt[ky * kw + kx];
				taps[nt] = x + iy * W + dx[nt];
				nt++;
			}
		}
		int64_t rows = inside ? rb - oh : 1;
		if (ir_rows_fma_taps_dx((int)sw, y + oh * OW, OW, (int)rows, OW, taps, W * sh, wsub, nt, bias, j->lo,
					j->hi, dx, W))
			return false;
		oh += rows;
	}
	return true;
}

/* Depthwise: one output plane per task (n, o); input channel o / Og. */
enum { DW_BAND = 8 };
static void dw_task(void *arg, int t, int thread)
{
	dw_job *j = arg;
	const conv_geom *g = j->cg;
	int64_t n = t / g->O, o = t % g->O, ci = o / g->Og;
	int64_t OH = g->out[1], OW = g->out[2], kh = g->ks[1], kw = g->ks[2];
	int64_t sh = g->st[1], sw = g->st[2], dh = g->dil[1], dw = g->dil[2];
	pplane pp;
	pplane_geom(&pp, OH, OW, kh, kw, sh, sw, dh, dw);
	float *buf = ir_kscratch(j->k, thread, IR_SCRATCH_K0, sizeof(float) * pplane_floats(&pp, 1));
	const float *stack_taps[64], **taps = kh * kw <= 64 ? stack_taps : malloc(sizeof *taps * (size_t)(kh * kw));
	if (!buf || !taps)
		return;		/* cannot happen: the caller allocated every thread's scratch */
	const float *wt = j->w + o * kh * kw, *x = j->x + (n * g->C + ci) * g->I;
	float bias = j->b ? j->b[o] : 0;
	float *y = j->y + (n * g->O + o) * g->P;
	if (j->s->flat && !ir_dw_flat(y, g->P, x, j->s->off, (const uint16_t *)conv_packed(j->s, 0), j->s->nwords, wt,
				      (int)(kh * kw), bias, j->lo, j->hi))
		goto done;
	if (sw == 1 && kh * kw <= 64 && dw_direct(j, x, wt, bias, y, taps))
		goto done;
	for (int64_t ky = 0; ky < kh; ky++)
		for (int64_t kx = 0; kx < kw; kx++)
			taps[ky * kw + kx] = pplane_tap(&pp, buf, 0, sh, ky, dh, kx, dw);
	/* Bands of output rows whose padded input rows stay in L1. */
	for (int64_t oh = 0; oh < OH; oh += DW_BAND) {
		int64_t rows = OH - oh < DW_BAND ? OH - oh : DW_BAND;
		pplane_fill_rows(&pp, buf, x, g->in[1], g->in[2], g->pb[1], g->pb[2], 0, oh * sh,
				 (oh + rows - 1) * sh + (kh - 1) * dh + 1);
		ir_rows_fma_taps(y + oh * OW, OW, (int)rows, OW, taps, sh * pp.sw * pp.wq, wt, (int)(kh * kw), bias,
				 j->lo, j->hi);
	}
done:
	if (taps != stack_taps)
		free(taps);
}

/* Y^T = im2col^T . W^T per image and group, then transposed into Y. */
static int conv_transposed(ir_kctx *k, const conv_geom *cg, const conv_state *s, const ir_act *act)
{
	const float *x = k->in[0], *b = k->nin > 2 ? k->in[2] : NULL;
	float *y = k->out[0];
	float *yt = ir_kscratch(k, 0, IR_SCRATCH_K1, sizeof(float) * (size_t)(cg->P * cg->Og));
	if (!yt)
		return KFAIL(k, "out of memory");
	for (int64_t n = 0; n < cg->N; n++)
		for (int64_t g = 0; g < cg->G; g++) {
			ir_im2col ic;
			im2col_of(cg, x + (n * cg->C + g * cg->Cg) * cg->I, &ic);
			/* A[j][k] = im2col[k][j]: rows of A are output positions. */
			ir_gemm_args a = {
				.M = cg->P, .N = cg->Og, .K = cg->Kg,
				.apack = ir_im2col_pack_a, .actx = &ic,
				.bp = conv_packed(s, g), .c = yt, .ldc = cg->Og,
				.bias_n = b ? b + g * cg->Og : NULL, .lo = act->lo, .hi = act->hi,
			};
			if (ir_gemm(k, &a))
				return -1;
			float *yg = y + (n * cg->O + g * cg->Og) * cg->P;
			for (int64_t o = 0; o < cg->Og; o++)
				for (int64_t j = 0; j < cg->P; j++)
					yg[o * cg->P + j] = yt[j * cg->Og + o];
		}
	return 0;
}

/* Stride-1 convolution without im2col: on a zero-padded copy of the input
 * the B row of (c, ky, kx) is one contiguous run when the output is
 * computed over the padded width (the extra columns are dropped after), so
 * the GEMM reads B in place. Worth it when those columns are few. */
static bool conv_padded_width_ok(const conv_geom *cg)
{
	int64_t extra = (cg->ks[2] - 1) * cg->dil[2];
	return cg->KK > 1 && cg->ks[0] == 1 && cg->st[0] == 1 && cg->st[1] == 1 && cg->st[2] == 1 &&
	       extra * 8 <= cg->out[2];
}

static int conv_padded_width(ir_kctx *k, const conv_geom *cg, const conv_state *s, const ir_act *act)
{
	const float *x = k->in[0], *w = k->in[1], *b = k->nin > 2 ? k->in[2] : NULL;
	float *y = k->out[0];
	int64_t OH = cg->out[1], OW = cg->out[2], H = cg->in[1], W = cg->in[2], kh = cg->ks[1], kw = cg->ks[2];
	int64_t Wp = OW + (kw - 1) * cg->dil[2], Hp = OH + (kh - 1) * cg->dil[1], Pp = Hp * Wp, Nw = OH * Wp;
	int64_t tail = (kw - 1) * cg->dil[2] + 16;
	float *xp = ir_kscratch(k, 0, IR_SCRATCH_K0, sizeof(float) * (size_t)(cg->Cg * Pp + tail));
	const float **rows = ir_kscratch(k, 0, IR_SCRATCH_K1, sizeof(float *) * (size_t)cg->Kg);
	float *cw = ir_kscratch(k, 0, IR_SCRATCH_K2, sizeof(float) * (size_t)(cg->Og * Nw));
	if (!xp || !rows || !cw)
		return KFAIL(k, "out of memory");
	memset(xp + cg->Cg * Pp, 0, sizeof(float) * (size_t)tail);
	for (int64_t c = 0; c < cg->Cg; c++)
		for (int64_t ky = 0; ky < kh; ky++)
			for (int64_t kx = 0; kx < kw; kx++)
				rows[(c * kh + ky) * kw + kx] = xp + c * Pp + ky * cg->dil[1] * Wp + kx * cg->dil[2];
	for (int64_t n = 0; n < cg->N; n++)
		for (int64_t g = 0; g < cg->G; g++) {
			const float *xg = x + (n * cg->C + g * cg->Cg) * cg->I;
			for (int64_t c = 0; c < cg->Cg; c++)
				for (int64_t r = 0; r < Hp; r++) {
					int64_t iy = r - cg->pb[1];
					bool in = iy >= 0 && iy < H;
					ir_pad_row(xp + (c * Hp + r) * Wp, Wp, in ? xg + (c * H + iy) * W : xg, -cg->pb[2],
						   in ? W : 0, 1, 0);
				}
			ir_gemm_args a = {
				.M = cg->Og, .N = Nw, .K = cg->Kg,
				.ap = s ? conv_packed(s, g) : NULL,
				.a = w + g * cg->Og * cg->Kg, .a_rs = cg->Kg, .a_cs = 1,
				.brows = rows, .c = cw, .ldc = Nw,
				.bias_m = b ? b + g * cg->Og : NULL, .lo = act->lo, .hi = act->hi,
			};
			if (ir_gemm(k, &a))
				return -1;
			float *yg = y + (n * cg->O + g * cg->Og) * cg->P;
			for (int64_t o = 0; o < cg->Og; o++)
				for (int64_t oh = 0; oh < OH; oh++)
					memcpy(yg + (o * OH + oh) * OW, cw + o * Nw + oh * Wp, sizeof(float) * (size_t)OW);
		}
	return 0;
}

/* 3x3, stride 1, undilated, ungrouped: Winograd F(2x2, 3x3)
 * (ir_kern_wino.c), where it measured faster than the direct GEMM: with at
 * least 64 input channels (K of its 16 GEMMs) and 36 tiles (N). */
static bool conv_winograd_applies(const conv_geom *cg)
{
	int64_t tiles = (cg->out[1] + 1) / 2 * ((cg->out[2] + 1) / 2);
	return cg->nsp == 2 && cg->G == 1 && cg->ks[1] == 3 && cg->ks[2] == 3 && cg->st[1] == 1 && cg->st[2] == 1 &&
	       cg->dil[1] == 1 && cg->dil[2] == 1 && cg->C >= 64 && cg->O >= 16 && tiles >= 36;
}

static int conv_prepare(ir_kctx *k)
{
	if (need_f32(k, 0) || need_f32(k, 1) || need_f32(k, 2) || need_channel_first(k))
		return -1;
	ir_act act;
	if (ir_act_from_node(k->g, k->id, &act, k->d))
		return -1;
	conv_geom cg;
	conv_geom_of(k, &cg, false);
	bool dw = cg.Cg == 1 && cg.nsp <= 2 && cg.G > 1;
	if (!is_const(k->it[1]) && !dw)
		return 0;	/* weights packed at run time */
	if (conv_winograd_applies(&cg)) {
		conv_state *s = ir_kalloc(conv_state_offset() + ir_wino_packed_floats(cg.O, cg.C) * sizeof(float) + 64, 1);
		if (!s)
			return KFAIL(k, "out of memory packing weights");
		memset(s, 0, sizeof *s);
		s->winograd = true;
		*k->state = s;
		return ir_wino_pack((float *)conv_packed(s, 0), k->in[1], cg.O, cg.C) ? KFAIL(k, "out of memory") : 0;
	}
	bool tr = !dw && conv_transposed_better(&cg), flat = dw && dw_flat_applies(&cg);
	int64_t nwords = (cg.P + 15) / 16;
	size_t gf = dw ? 0 : tr ? ir_gemm_pack_b_size(cg.Kg, cg.Og) : ir_gemm_pack_a_size(cg.Og, cg.Kg);
	gf = (gf / sizeof(float) + 15) & ~(size_t)15;
	size_t extra = flat ? sizeof(uint16_t) * (size_t)(nwords * cg.KK) : 0;
	conv_state *s = ir_kalloc(conv_state_offset() + (size_t)cg.G * gf * sizeof(float) + extra + 64, 1);
	if (!s)
		return KFAIL(k, "out of memory packing weights");
	memset(s, 0, sizeof *s);
	s->depthwise = dw;
	s->transposed = tr;
	s->flat = flat;
	s->nwords = nwords;
	s->group_floats = gf;
	if (flat)
		dw_flat_plan(&cg, s->off, nwords, (uint16_t *)conv_packed(s, 0));
	const float *w = k->in[1];
	for (int64_t g = 0; g < cg.G && !dw; g++)
		if (tr)		/* B[k][o] = W[o][k] */
			ir_gemm_pack_b((float *)conv_packed(s, g), w + g * cg.Og * cg.Kg, cg.Kg, cg.Og, 1, cg.Kg);
		else
			ir_gemm_pack_a((float *)conv_packed(s, g), w + g * cg.Og * cg.Kg, cg.Og, cg.Kg, cg.Kg, 1);
	*k->state = s;
	return 0;
}

int ir_kern_conv(ir_kctx *k)
{
	if (k->prepare)
		return conv_prepare(k);
	conv_geom cg;
	conv_geom_of(k, &cg, false);
	ir_act act;
	ir_kern_act(k, &act);
	const conv_state *s = *k->state;
	const float *x = k->in[0], *w = k->in[1], *b = k->nin > 2 ? k->in[2] : NULL;
	float *y = k->out[0];
	if (s && s->depthwise) {
		dw_job j = {k, &cg, x, w, b, y, act.lo, act.hi, s};
		int64_t tasks = cg.N * cg.O;
		/* Make sure every thread's scratch exists before the parallel run. */
		pplane pp;
		pplane_geom(&pp, cg.out[1], cg.out[2], cg.ks[1], cg.ks[2], cg.st[1], cg.st[2], cg.dil[1], cg.dil[2]);
		for (int t = 0; t < ir_kthreads(k); t++)
			if (!ir_kscratch(k, t, IR_SCRATCH_K0, sizeof(float) * pplane_floats(&pp, 1)))
				return KFAIL(k, "out of memory");
		ir_kparallel(k, (int)tasks, dw_task, &j);
	} else if (s && s->winograd) {
		if (ir_conv_winograd(k, conv_packed(s, 0), cg.N, cg.C, cg.O, cg.in[1], cg.in[2], cg.out[1], cg.out[2],
				     cg.pb[1], cg.pb[2], x, b, y, act.lo, act.hi))
			return -1;
	} else if (s && s->transposed) {
		if (conv_transposed(k, &cg, s, &act))
			return -1;
	} else if (conv_padded_width_ok(&cg)) {
		if (conv_padded_width(k, &cg, s, &act))
			return -1;
	} else {
		bool pointwise = conv_pointwise(&cg);
		for (int64_t n = 0; n < cg.N; n++)
			for (int64_t g = 0; g < cg.G; g++) {
				const float *xg = x + (n * cg.C + g * cg.Cg) * cg.I;
				ir_im2col ic;
				im2col_of(&cg, xg, &ic);
				ir_gemm_args a = {
					.M = cg.Og, .N = cg.P, .K = cg.Kg,
					.ap = s ? conv_packed(s, g) : NULL,
					.a = w + g * cg.Og * cg.Kg, .a_rs = cg.Kg, .a_cs = 1,
					.c = y + (n * cg.O + g * cg.Og) * cg.P, .ldc = cg.P,
					.bias_m = b ? b + g * cg.Og : NULL,
					.lo = act.lo, .hi = act.hi,
				};
				if (pointwise) {
					a.b = xg;
					a.b_rs = cg.I;
					a.b_cs = 1;
				} else {
					a.bpack = ir_im2col_pack;
					a.bctx = &ic;
				}
				if (ir_gemm(k, &a))
					return -1;
			}
	}
	if (act.op >= 0)
		ir_act_apply(&act, y, numel(k->ot[0]));
	return 0;
}

/* ---------------------------------------------------------------- conv_transpose */

int ir_kern_conv_transpose(ir_kctx *k)
{
	conv_geom cg;
	if (k->prepare) {
		if (need_f32(k, 0) || need_f32(k, 1) || need_f32(k, 2) || need_channel_first(k))
			return -1;
		ir_act act;
		if (ir_act_from_node(k->g, k->id, &act, k->d))
			return -1;
		if (!is_const(k->it[1]))
			return 0;
		conv_geom_of(k, &cg, true);
		/* A of group g: (o, kk) x c = W[g*Cg + c][o][kk]. */
		size_t gf = ir_gemm_pack_a_size(cg.Kg, cg.Cg) / sizeof(float);
		conv_state *s = ir_kalloc(conv_state_offset() + (size_t)cg.G * gf * sizeof(float) + 64, 1);
		if (!s)
			return KFAIL(k, "out of memory packing weights");
		memset(s, 0, sizeof *s);
		s->group_floats = gf;
		const float *w = k->in[1];
		for (int64_t g = 0; g < cg.G; g++)
			ir_gemm_pack_a((float *)conv_packed(s, g), w + g * cg.Cg * cg.Kg, cg.Kg, cg.Cg, 1, cg.Kg);
		*k->state = s;
		return 0;
	}
	conv_geom_of(k, &cg, true);
	ir_act act;
	ir_kern_act(k, &act);
	const conv_state *s = *k->state;
	const float *x = k->in[0], *w = k->in[1], *b = k->nin > 2 ? k->in[2] : NULL;
	float *y = k->out[0];
	float *cols = ir_kscratch(k, 0, IR_SCRATCH_K0, sizeof(float) * (size_t)(cg.Kg * cg.I));
	if (!cols)
		return KFAIL(k, "out of memory");
	int64_t OD = cg.out[0], OH = cg.out[1], OW = cg.out[2];
	for (int64_t n = 0; n < cg.N; n++)
		for (int64_t g = 0; g < cg.G; g++) {
			ir_gemm_args a = {
				.M = cg.Kg, .N = cg.I, .K = cg.Cg,
				.ap = s ? conv_packed(s, g) : NULL,
				.a = w + g * cg.Cg * cg.Kg, .a_rs = 1, .a_cs = cg.Kg,
				.b = x + (n * cg.C + g * cg.Cg) * cg.I, .b_rs = cg.I, .b_cs = 1,
				.c = cols, .ldc = cg.I, .lo = -INFINITY, .hi = INFINITY,
			};
			if (ir_gemm(k, &a))
				return -1;
			/* col2im: scatter-add every (o, kz, ky, kx) row. */
			for (int64_t o = 0; o < cg.Og; o++) {
				float *yo = y + (n * cg.O + g * cg.Og + o) * cg.P;
				float bias = b ? b[g * cg.Og + o] : 0;
				for (int64_t i = 0; i < cg.P; i++)
					yo[i] = bias;
				for (int64_t kk = 0; kk < cg.KK; kk++) {
					int64_t kx = kk % cg.ks[2], ky = (kk / cg.ks[2]) % cg.ks[1], kz = kk / (cg.ks[2] * cg.ks[1]);
					const float *cr = cols + (o * cg.KK + kk) * cg.I;
					for (int64_t iz = 0; iz < cg.in[0]; iz++) {
						int64_t oz = iz * cg.st[0] - cg.pb[0] + kz * cg.dil[0];
						if (oz < 0 || oz >= OD)
							continue;
						for (int64_t iy = 0; iy < cg.in[1]; iy++) {
							int64_t oy = iy * cg.st[1] - cg.pb[1] + ky * cg.dil[1];
							if (oy < 0 || oy >= OH)
								continue;
							const float *src = cr + (iz * cg.in[1] + iy) * cg.in[2];
							float *dst = yo + (oz * OH + oy) * OW;
							for (int64_t ix = 0; ix < cg.in[2]; ix++) {
								int64_t ox = ix * cg.st[2] - cg.pb[2] + kx * cg.dil[2];
								if (ox >= 0 && ox < OW)
									dst[ox] += src[ix];
							}
						}
					}
				}
			}
		}
	ir_act_apply(&act, y, numel(k->ot[0]));
	return 0;
}

/* ---------------------------------------------------------------- fully connected, matmul, gemm */

/* State: one packed B (constant weights). */
static int pack_b_state(ir_kctx *k, const float *b, int64_t K, int64_t N, ptrdiff_t rs, ptrdiff_t cs)
{
	float *p = ir_kalloc(ir_gemm_pack_b_size(K, N) + 64, 1);
	if (!p)
		return KFAIL(k, "out of memory packing weights");
	ir_gemm_pack_b(p, b, K, N, rs, cs);
	*k->state = p;
	return 0;
}

int ir_kern_fully_connected(ir_kctx *k)
{
	const ir_tensor *x = k->it[0], *w = k->it[1];
	int64_t O = w->shape.dim[0], K = w->shape.dim[1], M = K ? numel(x) / K : 0;
	ir_act act;
	if (k->prepare) {
		if (need_f32(k, 0) || need_f32(k, 1) || need_f32(k, 2) || ir_act_from_node(k->g, k->id, &act, k->d))
			return -1;
		return is_const(w) ? pack_b_state(k, k->in[1], K, O, 1, K) : 0;
	}
	ir_kern_act(k, &act);
	ir_gemm_args a = {
		.M = M, .N = O, .K = K, .a = k->in[0], .a_rs = K, .a_cs = 1,
		.bp = *k->state, .b = k->in[1], .b_rs = 1, .b_cs = K,
		.c = k->out[0], .ldc = O, .bias_n = k->nin > 2 ? k->in[2] : NULL,
		.lo = act.lo, .hi = act.hi,
	};
	if (M == 0)
		return 0;
	if (ir_gemm(k, &a))
		return -1;
	if (act.op >= 0)
		ir_act_apply(&act, k->out[0], numel(k->ot[0]));
	return 0;
}

/* Broadcast batch strides of one matmul operand (in matrices) against the
 * output's batch dims. */
static void batch_strides(const ir_shape *s, int srank_batch, const ir_shape *ob, int64_t *st)
{
	int off = ob->rank - srank_batch;
	int64_t acc = 1;
	for (int i = ob->rank - 1; i >= 0; i--) {
		int j = i - off;
		int64_t d = j >= 0 ? s->dim[j] : 1;
		st[i] = d == 1 ? 0 : acc;
		acc *= d;
	}
}

int ir_kern_matmul(ir_kctx *k)
{
	const ir_tensor *A = k->it[0], *B = k->it[1], *Y = k->ot[0];
	int ra = A->shape.rank, rb = B->shape.rank;
	int64_t K = A->shape.dim[ra - 1];
	int64_t M = ra == 1 ? 1 : A->shape.dim[ra - 2];
	int64_t N = rb == 1 ? 1 : B->shape.dim[rb - 1];
	int bra = ra > 2 ? ra - 2 : 0, brb = rb > 2 ? rb - 2 : 0;
	ir_act act;
	if (k->prepare) {
		if (need_f32(k, 0) || need_f32(k, 1) || ir_act_from_node(k->g, k->id, &act, k->d))
			return -1;
		if (is_const(B) && brb == 0)
			return pack_b_state(k, k->in[1], K, N, rb == 1 ? 1 : N, 1);
		return 0;
	}
	ir_kern_act(k, &act);
	/* Output batch shape: Y's dims without the matrix dims. */
	ir_shape ob = {.rank = Y->shape.rank - (ra > 1) - (rb > 1)};
	for (int i = 0; i < ob.rank; i++)
		ob.dim[i] = Y->shape.dim[i];
	int64_t sa[IR_MAX_RANK], sb[IR_MAX_RANK], nb = ir_shape_numel(&ob), idx[IR_MAX_RANK] = {0};
	batch_strides(&A->shape, bra, &ob, sa);
	batch_strides(&B->shape, brb, &ob, sb);
	const float *a = k->in[0], *b = k->in[1];
	float *y = k->out[0];
	for (int64_t t = 0; t < nb; t++) {
		int64_t oa = 0, obb = 0;
		for (int i = 0; i < ob.rank; i++) {
			oa += idx[i] * sa[i];
			obb += idx[i] * sb[i];
		}
		ir_gemm_args g = {
			.M = M, .N = N, .K = K, .a = a + oa * M * K, .a_rs = K, .a_cs = 1,
			.bp = *k->state, .b = b + obb * K * N, .b_rs = N, .b_cs = 1,
			.c = y + t * M * N, .ldc = N, .lo = act.lo, .hi = act.hi,
		};
		if (ir_gemm(k, &g))
			return -1;
		for (int i = ob.rank - 1; i >= 0; i--) {
			if (++idx[i] < ob.dim[i])
				break;
			idx[i] = 0;
		}
	}
	if (act.op >= 0)
		ir_act_apply(&act, y, numel(Y));
	return 0;
}

int ir_kern_gemm(ir_kctx *k)
{
	const ir_tensor *A = k->it[0], *B = k->it[1], *C = k->nin > 2 ? k->it[2] : NULL, *Y = k->ot[0];
	bool ta = ir_node_int(k->g, k->id, "trans_a", 0) != 0, tb = ir_node_int(k->g, k->id, "trans_b", 0) != 0;
	int64_t M = Y->shape.dim[0], N = Y->shape.dim[1], K = A->shape.dim[ta ? 0 : 1];
	ptrdiff_t b_rs = tb ? 1 : N, b_cs = tb ? K : 1;
	ir_act act;
	if (k->prepare) {
		if (need_f32(k, 0) || need_f32(k, 1) || need_f32(k, 2) || ir_act_from_node(k->g, k->id, &act, k->d))
			return -1;
		return is_const(B) ? pack_b_state(k, k->in[1], K, N, b_rs, b_cs) : 0;
	}
	ir_kern_act(k, &act);
	float alpha = (float)ir_node_float(k->g, k->id, "alpha", 1), beta = (float)ir_node_float(k->g, k->id, "beta", 1);
	const float *c = C ? k->in[2] : NULL;
	float *y = k->out[0];
	/* A bias vector folds into the GEMM when nothing scales it. */
	bool row_bias = c && alpha == 1 && beta == 1 && numel(C) == N && (C->shape.rank == 1 || C->shape.dim[0] == 1);
	bool clamp_in = act.op < 0 && (!c || row_bias) && alpha == 1;
	ir_gemm_args g = {
		.M = M, .N = N, .K = K, .a = k->in[0], .a_rs = ta ? 1 : K, .a_cs = ta ? M : 1,
		.bp = *k->state, .b = k->in[1], .b_rs = b_rs, .b_cs = b_cs,
		.c = y, .ldc = N, .bias_n = row_bias ? c : NULL,
		.lo = clamp_in ? act.lo : -INFINITY, .hi = clamp_in ? act.hi : INFINITY,
	};
	if (ir_gemm(k, &g))
		return -1;
	if (clamp_in)
		return 0;
	int64_t cs[2] = {0, 0};
	if (c && !row_bias) {
		int off = 2 - C->shape.rank;
		int64_t acc = 1;
		for (int i = 1; i >= 0; i--) {
			int64_t d = i - off >= 0 ? C->shape.dim[i - off] : 1;
			cs[i] = d == 1 ? 0 : acc;
			acc *= d;
		}
	}
	for (int64_t i = 0; i < M; i++) {
		float *yr = y + i * N;
		if (c && !row_bias) {
			const float *cr = c + i * cs[0];
			if (cs[1])
				FOR_VEC(j, N, yr[j] = alpha * yr[j] + beta * cr[j];);
			else
				FOR_VEC(j, N, yr[j] = alpha * yr[j] + beta * cr[0];);
		} else if (alpha != 1) {
			FOR_VEC(j, N, yr[j] = alpha * yr[j];);
		}
	}
	ir_act_apply(&act, y, M * N);
	return 0;
}

/* ---------------------------------------------------------------- normalisation */

int ir_kern_batch_norm(ir_kctx *k)
{
	const ir_tensor *x = k->it[0];
	if (k->prepare) {
		for (int i = 0; i < 5; i++)
			if (need_f32(k, i))
				return -1;
		return 0;
	}
	bool last = ir_kern_channel_last(k);
	int r = x->shape.rank;
	int64_t C = x->shape.dim[last ? r - 1 : 1], N = x->shape.dim[0], S = numel(x) / (N ? N : 1) / (C ? C : 1);
	const float *sc = k->in[1], *bi = k->in[2], *mean = k->in[3], *var = k->in[4], *xv = k->in[0];
	float eps = (float)ir_node_float(k->g, k->id, "epsilon", 1e-5);
	float *y = k->out[0];
	float *a = ir_kscratch(k, 0, IR_SCRATCH_K0, sizeof(float) * (size_t)(2 * C + 1));
	if (!a)
		return KFAIL(k, "out of memory");
	float *bb = a + C;
	for (int64_t c = 0; c < C; c++) {
		a[c] = sc[c] / sqrtf(var[c] + eps);
		bb[c] = bi[c] - mean[c] * a[c];
	}
	if (last) {
		for (int64_t i = 0; i < N * S; i++)
			FOR_VEC(c, C, y[i * C + c] = xv[i * C + c] * a[c] + bb[c];);
	} else {
		for (int64_t n = 0; n < N; n++)
			for (int64_t c = 0; c < C; c++) {
				const float *xs = xv + (n * C + c) * S;
				float *ys = y + (n * C + c) * S, av = a[c], bv = bb[c];
				FOR_VEC(i, S, ys[i] = xs[i] * av + bv;);
			}
	}
	return 0;
}

int ir_kern_instance_norm(ir_kctx *k)
{
	const ir_tensor *x = k->it[0];
	if (k->prepare)
		return need_f32(k, 0) || need_f32(k, 1) || need_f32(k, 2) || need_channel_first(k) ? -1 : 0;
	int64_t N = x->shape.dim[0], C = x->shape.dim[1], S = N * C > 0 ? numel(x) / (N * C) : 0;
	const float *sc = k->in[1], *bi = k->in[2], *xv = k->in[0];
	double eps = ir_node_float(k->g, k->id, "epsilon", 1e-5);
	float *y = k->out[0];
	for (int64_t n = 0; n < N; n++)
		for (int64_t c = 0; c < C; c++) {
			const float *xs = xv + (n * C + c) * S;
			float *ys = y + (n * C + c) * S;
			double m = 0, v = 0;
			for (int64_t i = 0; i < S; i++)
				m += xs[i];
			m /= (double)(S ? S : 1);
			for (int64_t i = 0; i < S; i++)
				v += (xs[i] - m) * (xs[i] - m);
			v /= (double)(S ? S : 1);
			float a = (float)(sc[c] / sqrt(v + eps)), b = (float)(bi[c] - m * sc[c] / sqrt(v + eps));
			FOR_VEC(i, S, ys[i] = xs[i] * a + b;);
		}
	return 0;
}

/* Expand a tensor broadcast to the trailing shape norm (D elements). */
static void expand_to(const ir_tensor *t, const float *src, const ir_shape *norm, float *dst)
{
	int64_t st[IR_MAX_RANK], acc = 1, D = ir_shape_numel(norm);
	int off = norm->rank - t->shape.rank;
	for (int i = norm->rank - 1; i >= 0; i--) {
		int64_t d = i - off >= 0 ? t->shape.dim[i - off] : 1;
		st[i] = d == 1 ? 0 : acc;
		acc *= d;
	}
	for (int64_t j = 0; j < D; j++) {
		int64_t rem = j, o = 0;
		for (int i = norm->rank - 1; i >= 0; i--) {
			o += (rem % norm->dim[i]) * st[i];
			rem /= norm->dim[i];
		}
		dst[j] = src[o];
	}
}

int ir_kern_layer_norm(ir_kctx *k)
{
	const ir_tensor *x = k->it[0];
	if (k->prepare)
		return need_f32(k, 0) || need_f32(k, 1) || need_f32(k, 2) ? -1 : 0;
	int axis = ir_axis(ir_node_int(k->g, k->id, "axis", -1), x->shape.rank);
	ir_shape norm = {.rank = x->shape.rank - axis};
	memcpy(norm.dim, &x->shape.dim[axis], sizeof(int64_t) * (size_t)norm.rank);
	int64_t D = ir_shape_numel(&norm), R = D ? numel(x) / D : 0;
	double eps = ir_node_float(k->g, k->id, "epsilon", 1e-5);
	float *sc = ir_kscratch(k, 0, IR_SCRATCH_K0, sizeof(float) * (size_t)(2 * D + 1)), *bi = sc + D;
	if (!sc)
		return KFAIL(k, "out of memory");
	expand_to(k->it[1], k->in[1], &norm, sc);
	if (k->nin > 2 && k->in[2])
		expand_to(k->it[2], k->in[2], &norm, bi);
	else
		memset(bi, 0, sizeof(float) * (size_t)D);
	const float *xv = k->in[0];
	float *y = k->out[0];
	for (int64_t r = 0; r < R; r++) {
		const float *xs = xv + r * D;
		float *ys = y + r * D;
		double m = 0, v = 0;
		for (int64_t i = 0; i < D; i++)
			m += xs[i];
		m /= (double)D;
		for (int64_t i = 0; i < D; i++)
			v += (xs[i] - m) * (xs[i] - m);
		v /= (double)D;
		float inv = (float)(1 / sqrt(v + eps)), mf = (float)m;
		FOR_VEC(i, D, ys[i] = (xs[i] - mf) * inv * sc[i] + bi[i];);
	}
	return 0;
}

/* ---------------------------------------------------------------- pooling */

typedef struct {
	ir_kctx *k;
	int64_t in[3], out[3], ks[3], st[3], pb[3], pe[3], dil[3];
	bool max, include_pad;
	const float *x;
	float *y;
	float *cnt[3];			/* avg: valid taps per output index of each axis */
} pool_job;

static void pool_task(void *arg, int t, int thread)
{
	pool_job *j = arg;
	int64_t D = j->in[0], OD = j->out[0], OH = j->out[1], OW = j->out[2];
	int64_t I = vol3(j->in), P = vol3(j->out), nk = vol3(j->ks);
	pplane pp;
	pplane_geom(&pp, OH, OW, j->ks[1], j->ks[2], j->st[1], j->st[2], j->dil[1], j->dil[2]);
	size_t plane = (size_t)(pp.hn * pp.sw * pp.wq);
	float *buf = ir_kscratch(j->k, thread, IR_SCRATCH_K0, sizeof(float) * pplane_floats(&pp, D));
	const float *stack_taps[64], **taps = nk <= 64 ? stack_taps : malloc(sizeof *taps * (size_t)nk);
	if (!buf || !taps)
		return;		/* cannot happen: the caller allocated every thread's scratch */
	const float *x = j->x + (int64_t)t * I;
	float *y = j->y + (int64_t)t * P;
	for (int64_t z = 0; z < D; z++)
		pplane_fill(&pp, buf + plane * (size_t)z, x + z * j->in[1] * j->in[2], j->in[1], j->in[2], j->pb[1],
			    j->pb[2], j->max ? -INFINITY : 0);
	ptrdiff_t ts = j->st[1] * pp.sw * pp.wq;
	for (int64_t od = 0; od < OD; od++) {
		float *yp = y + od * OH * OW;
		int nt = 0;
		for (int64_t kz = 0; kz < j->ks[0]; kz++) {
			int64_t iz = od * j->st[0] - j->pb[0] + kz * j->dil[0];
			if (iz < 0 || iz >= D)
				continue;
			for (int64_t ky = 0; ky < j->ks[1]; ky++)
				for (int64_t kx = 0; kx < j->ks[2]; kx++)
					taps[nt++] = pplane_tap(&pp, buf + plane * (size_t)iz, 0, j->st[1], ky, j->dil[1],
								kx, j->dil[2]);
		}
		if (j->max) {
			ir_rows_max_taps(yp, OW, (int)OH, OW, taps, ts, nt);
			continue;
		}
		ir_rows_sum_taps(yp, OW, (int)OH, OW, taps, ts, nt);
		const float *cx = j->cnt[2];
		for (int64_t oh = 0; oh < OH; oh++) {
			float *yr = yp + oh * OW, cz = j->cnt[0][od] * j->cnt[1][oh];
			FOR_VEC(i, OW, yr[i] /= cz * cx[i];);
		}
	}
	if (taps != stack_taps)
		free(taps);
}

/* Taps of a window that count for avg pooling, per output index. */
static void pool_counts(const pool_job *j, int a, float *cnt)
{
	for (int64_t o = 0; o < j->out[a]; o++) {
		int64_t c = 0;
		for (int64_t t = 0; t < j->ks[a]; t++) {
			int64_t p = o * j->st[a] - j->pb[a] + t;
			c += j->include_pad ? p < j->in[a] + j->pe[a] : p >= 0 && p < j->in[a];
		}
		cnt[o] = (float)c;
	}
}

static int pool_run(ir_kctx *k, const float *xin, float *yout)
{
	const ir_tensor *x = k->it[0], *y = k->ot[0];
	int nsp = x->shape.rank - 2;
	pool_job j = {.k = k, .max = k->n->op == IR_OP_MAX_POOL, .x = xin, .y = yout};
	j.include_pad = ir_node_int(k->g, k->id, "count_include_pad", 0) != 0;
	spatial3(x, j.in);
	spatial3(y, j.out);
	ints3(k, "kernel", nsp, 1, j.ks);
	ints3(k, "strides", nsp, 1, j.st);
	ints3(k, "dilations", nsp, 1, j.dil);
	pads3(k, "pads", nsp, j.pb, j.pe);
	int64_t planes = x->shape.dim[0] * x->shape.dim[1];
	float *cnt = NULL;
	if (!j.max) {
		cnt = malloc(sizeof(float) * (size_t)(j.out[0] + j.out[1] + j.out[2] + 1));
		if (!cnt)
			return KFAIL(k, "out of memory");
		j.cnt[0] = cnt;
		j.cnt[1] = cnt + j.out[0];
		j.cnt[2] = cnt + j.out[0] + j.out[1];
		for (int a = 0; a < 3; a++)
			pool_counts(&j, a, j.cnt[a]);
	}
	pplane pp;
	pplane_geom(&pp, j.out[1], j.out[2], j.ks[1], j.ks[2], j.st[1], j.st[2], j.dil[1], j.dil[2]);
	for (int t = 0; t < ir_kthreads(k); t++)
		if (!ir_kscratch(k, t, IR_SCRATCH_K0, sizeof(float) * pplane_floats(&pp, j.in[0]))) {
			free(cnt);
			return KFAIL(k, "out of memory");
		}
	ir_kparallel(k, (int)planes, pool_task, &j);
	free(cnt);
	return 0;
}

/* Integer max pooling: through float (exact for 8- and 16-bit values). */
static int pool_int(ir_kctx *k)
{
	const ir_tensor *x = k->it[0], *y = k->ot[0];
	int64_t nx = numel(x), ny = numel(y);
	float *fx = malloc(sizeof(float) * (size_t)(nx + ny + 1)), *fy = fx + nx;
	if (!fx)
		return KFAIL(k, "out of memory");
	for (int64_t i = 0; i < nx; i++)
		fx[i] = (float)ir_elem_get(k->in[0], x->dtype, i);
	int rc = pool_run(k, fx, fy);
	for (int64_t i = 0; i < ny && !rc; i++) {
		if (y->dtype == IR_DTYPE_U8)
			((uint8_t *)k->out[0])[i] = (uint8_t)fy[i];
		else if (y->dtype == IR_DTYPE_I8)
			((int8_t *)k->out[0])[i] = (int8_t)fy[i];
		else
			((int16_t *)k->out[0])[i] = (int16_t)fy[i];
	}
	free(fx);
	return rc;
}

int ir_kern_pool(ir_kctx *k)
{
	const ir_tensor *x = k->it[0];
	bool small_int = x->dtype == IR_DTYPE_U8 || x->dtype == IR_DTYPE_I8 || x->dtype == IR_DTYPE_I16;
	if (k->prepare) {
		if (small_int && k->n->op == IR_OP_MAX_POOL)
			return need_channel_first(k);
		return need_f32(k, 0) || need_channel_first(k) ? -1 : 0;
	}
	return small_int ? pool_int(k) : pool_run(k, k->in[0], k->out[0]);
}

int ir_kern_global_pool(ir_kctx *k)
{
	const ir_tensor *x = k->it[0];
	if (k->prepare)
		return need_f32(k, 0) || need_channel_first(k) ? -1 : 0;
	bool max = k->n->op == IR_OP_GLOBAL_MAX_POOL;
	int64_t planes = x->shape.dim[0] * x->shape.dim[1], S = planes ? numel(x) / planes : 0;
	const float *xv = k->in[0];
	float *y = k->out[0];
	for (int64_t p = 0; p < planes; p++) {
		const float *xs = xv + p * S;
		if (max) {
			float m = -INFINITY;
			for (int64_t i = 0; i < S; i++)
				m = xs[i] > m ? xs[i] : m;
			y[p] = m;
		} else {
			double s = 0;
			for (int64_t i = 0; i < S; i++)
				s += xs[i];
			y[p] = (float)(s / (double)S);
		}
	}
	return 0;
}
