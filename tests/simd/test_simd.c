/* test_simd.c - CONV_Q's int8 paths (GEMM with the micro-kernel the
 * compiler flags select, depthwise, generic) against the definition of an
 * integer convolution written out here, on random shapes: odd channel
 * counts, padding, strides, dilation, groups and depthwise, 1-channel
 * layers, fully connected, asymmetric zero points, per-channel weight zero
 * points and requantization, int8 and int16 outputs, scratch budgets. The
 * Makefile builds it once per instruction set (-DNPU_NO_SIMD: the portable
 * C; plain: SSE2 on x86-64; -msse4.1, -mavx2, aarch64 NEON under
 * qemu-aarch64), so every SIMD path is held to the same definition as the
 * portable one, i.e. to it bit for bit. It includes the runtime source to
 * reach its kernels directly. Also: every depthwise case channel-last
 * (CONV_NHWC_Q), and CONV_F's fast float32 paths against its reference
 * loop, bit for bit. */
#include "../unit/check.h"
#include "../../share/npu/runtime/npu_rt.c"

#include <stdio.h>
#include <stdlib.h>

static uint32_t seed = 12345;
static int gathered;	/* GEMM calls that gathered windows from x (a small budget) */
static int chunked;	/* ... and summed K in chunks (a smaller one) */
static int kchunks;	/* panel-path calls that summed K in chunks */
static int q_left_out;	/* int8 cases too large for a board's RAM (TEST_SIMD_SCRATCH) */
static int nhwc_runs;	/* depthwise ones also run channel-last on its fast path */
static int nhwc_quads;	/* ... of them by 4 taps a dot product (cn_dw_dot, cn_dw_vnni) */
#if defined(CQ_AMX)
static int amx_runs;	/* amx: panel-path calls on AMX tiles (cq_amx_use) */
static int amx_chunks;	/* ... of them in K chunks */
static int amx_narrow8;	/* ... on C tiles of 16 pixels x 8 channels (cq_amx_tile) */
static int amx_longer;	/* ... of them in K chunks longer than the geometry's */
static int amx_pairs;	/* ... the others (16 x 16, cq_amx_conv) on pixel tiles of twice the geometry's (cq_amx_pair) */
static int amx_narrow;	/* ... with tiles narrower than 64 k (cq_amx_kw) */
static int amx_windows;	/* ... windows staged by masked loads (cq_bstage, not cq_dstage) */
#endif
static uint32_t rnd(void)
{
	seed = seed * 1664525u + 1013904223u;
	return seed >> 8;
}
static int ri(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }

static const char *isa(void)
{
#if defined(NPU_NO_SIMD)
	return "portable";
#elif defined(CQ_AMX)
	return "amx-int8 (tdpbsud in the panel path, avx-vnni otherwise)";
#elif defined(__AVX2__) && defined(__AVXVNNI__)
	return "avx-vnni (vpdpbusd in the panel path)";
#elif defined(__AVX2__) && defined(__AVX512VNNI__) && defined(__AVX512VL__)
	return "avx512-vnni";
#elif defined(__AVX2__)
	return "avx2";
#elif defined(__SSE4_1__)
	return "sse4.1";
#elif defined(__SSE2__)
	return "sse2";
#elif defined(__ARM_NEON) && defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)
	return "neon dotprod (sdot in the panel path)";
#elif defined(__ARM_NEON) && defined(__aarch64__)
	return "neon";
#elif defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
	return "mve (Helium: vmladava in the panel path)";
#elif defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32)
	return "dsp (smlad in the panel path)";
#else
	return "portable";
#endif
}

typedef struct {
	int N, C, H, W, OC, KH, KW, SH, SW, PT, PL, PB, PR, DH, DW, G, YT, wz, smax;
} shape;

/* a pooling's geometry into its parameters */
static void pool_geo(int32_t *p, int N, int C, int H, int W, int OH, int OW, int KH, int KW, int SH, int SW, int PT,
		     int PL, int PB, int PR)
{
	p[NPU_PL_N] = N, p[NPU_PL_C] = C, p[NPU_PL_H] = H, p[NPU_PL_W] = W, p[NPU_PL_OH] = OH, p[NPU_PL_OW] = OW;
	p[NPU_PL_KH] = KH, p[NPU_PL_KW] = KW, p[NPU_PL_SH] = SH, p[NPU_PL_SW] = SW, p[NPU_PL_PT] = PT;
	p[NPU_PL_PL] = PL, p[NPU_PL_PB] = PB, p[NPU_PL_PR] = PR;
}

/* p's geometry and int8 types for shape s (the output size from the
 * window); 0 when the output is empty */
static int conv_params(const shape *s, int32_t *p)
{
	int OH = (s->H + s->PT + s->PB - s->DH * (s->KH - 1) - 1) / s->SH + 1;
	int OW = (s->W + s->PL + s->PR - s->DW * (s->KW - 1) - 1) / s->SW + 1;
	if (OH < 1 || OW < 1)
		return 0;
	p[NPU_CV_N] = s->N, p[NPU_CV_C] = s->C, p[NPU_CV_H] = s->H, p[NPU_CV_W] = s->W, p[NPU_CV_OC] = s->OC;
	p[NPU_CV_OH] = OH, p[NPU_CV_OW] = OW, p[NPU_CV_KH] = s->KH, p[NPU_CV_KW] = s->KW;
	p[NPU_CV_SH] = s->SH, p[NPU_CV_SW] = s->SW, p[NPU_CV_PT] = s->PT, p[NPU_CV_PL] = s->PL;
	p[NPU_CV_DH] = s->DH, p[NPU_CV_DW] = s->DW, p[NPU_CV_G] = s->G;
	p[NPU_CV_XT] = NPU_T_I8, p[NPU_CV_WT] = NPU_T_I8, p[NPU_CV_YT] = s->YT, p[NPU_CV_ACT] = -1;
	return 1;
}

/* one random convolution of shape s through k_conv_q, against the definition */
static int one(const shape *s, int *path)
{
	int32_t p[NPU_CV_COUNT] = {0};
	*path = CQ_NONE;	/* no output: nothing ran */
	if (!conv_params(s, p))
		return 1;
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], cg = s->C / s->G, K = cg * s->KH * s->KW;
	p[NPU_CV_SMAX] = s->smax;
#if defined(TEST_SIMD_SCRATCH)	/* a board's RAM (Cortex-M55): every case within this scratch bound */
	if (p[NPU_CV_SMAX] == 0 || p[NPU_CV_SMAX] > TEST_SIMD_SCRATCH)
		p[NPU_CV_SMAX] = TEST_SIMD_SCRATCH;
#endif
	int32_t ylo = s->YT == NPU_T_I8 ? -128 : -32768, yhi = s->YT == NPU_T_I8 ? 127 : 32767;
	p[NPU_CV_ZX] = ri(-128, 127), p[NPU_CV_ZY] = ri(ylo / 2, yhi / 2);
	p[NPU_CV_LO] = ri(0, 3) ? ylo : ri(ylo, 0), p[NPU_CV_HI] = ri(0, 3) ? yhi : ri(1, yhi);
	size_t nx = (size_t)s->N * s->C * s->H * s->W, nw = (size_t)s->OC * K, ny = (size_t)s->N * s->OC * OH * OW;
	size_t pk = npu_conv_q_pack(p, NULL, NULL);
	uint32_t ss = npu_scratch_size(NPU_K_CONV_Q, p);
#if defined(TEST_SIMD_SCRATCH)
	if (nx + nw + 16 * (size_t)s->OC + 4 * ny + pk + ss > 4 * (size_t)TEST_SIMD_SCRATCH) {
		q_left_out++;
		return 1;
	}
#endif
	int8_t *x = malloc(nx), *w = malloc(nw);
	int32_t *bias = malloc(4 * (size_t)s->OC), *mult = malloc(4 * (size_t)s->OC), *shift = malloc(4 * (size_t)s->OC);
	int32_t *wzp = malloc(4 * (size_t)s->OC);
	int16_t *y = malloc(2 * ny), *want = malloc(2 * ny);
	int8_t *wp = malloc(pk ? pk : 1);
	uint8_t *scratch = malloc(ss + 16);
	int ok = 1;
	for (size_t i = 0; i < nx; i++)
		x[i] = (int8_t)ri(-128, 127);
	for (size_t i = 0; i < nw; i++)
		w[i] = (int8_t)ri(-128, 127);
	for (int o = 0; o < s->OC; o++) {
		bias[o] = ri(-(1 << 20), 1 << 20);
		mult[o] = ri(1 << 29, (1 << 30) + (1 << 29));
		/* output steps of about |acc| / 2^10 .. 2^12 for int8 */
		shift[o] = 30 + ri(8, 14) + (s->YT == NPU_T_I16 ? -6 : 0);
		wzp[o] = s->wz == 2 ? ri(-128, 127) : s->wz == 3 ? 200 : 0;
	}
	if (pk)
		npu_conv_q_pack(p, w, wp);
	/* the definition */
	size_t yi = 0;
	for (int n = 0; n < s->N; n++)
		for (int oc = 0; oc < s->OC; oc++) {
			int gr = oc / (s->OC / s->G);
			for (int oh = 0; oh < OH; oh++)
				for (int ow = 0; ow < OW; ow++) {
					int64_t acc = bias[oc];
					for (int ic = 0; ic < cg; ic++)
						for (int kh = 0; kh < s->KH; kh++)
							for (int kw = 0; kw < s->KW; kw++) {
								int ih = oh * s->SH - s->PT + kh * s->DH, iw = ow * s->SW - s->PL + kw * s->DW;
								if (ih < 0 || ih >= s->H || iw < 0 || iw >= s->W)
									continue;
								int64_t xv = x[(((size_t)n * s->C + gr * cg + ic) * s->H + ih) * s->W + iw];
								int64_t wv = w[(((size_t)oc * cg + ic) * s->KH + kh) * s->KW + kw];
								acc += (xv - p[NPU_CV_ZX]) * (wv - wzp[oc]);
							}
					int64_t v = p[NPU_CV_ZY] + npu_rshift_round(acc * mult[oc], shift[oc]);
					want[yi++] = (int16_t)(v < p[NPU_CV_LO] ? p[NPU_CV_LO] : v > p[NPU_CV_HI] ? p[NPU_CV_HI] : v);
				}
		}
	cq_geo g;
	cq_geometry(p, &g);
	*path = g.path;
	gathered += g.path == CQ_IM2COL && g.gather && !g.KC;
	chunked += g.path == CQ_IM2COL && g.KC;
	kchunks += g.path == CQ_PANEL && g.KC < g.Kp;
#if defined(CQ_AMX)
	if (g.path == CQ_PANEL) {
		size_t o1, o2, o3;
		int TPr = (g.TP + CQ_DNP - 1) / CQ_DNP * CQ_DNP;
		cq_panel_fit(&g, TPr, g.KC, &o1, &o2, &o3);
		amx_runs += cq_amx_use(&g, TPr, o1);
		amx_chunks += cq_amx_use(&g, TPr, o1) && g.KC < g.Kp;
		amx_narrow8 += cq_amx_use(&g, TPr, o1) && !cq_amx_wide(&g);
		amx_longer += cq_amx_use(&g, TPr, o1) && !cq_amx_wide(&g) && g.KC < g.Kp && (int)(o2 / TPr & ~(size_t)63) > g.KC;
		if (cq_amx_use(&g, TPr, o1) && cq_amx_wide(&g)) {
			amx_pairs += cq_amx_pair(&g, s->wz ? wzp : NULL);
			amx_narrow += cq_amx_kw(&g) < 64;
			amx_windows += !g.direct && g.SW <= 2 && g.KW <= 16;
		}
	}
#endif
	memset(scratch, 0xa5, ss + 16);
	void *a[NPU_MAX_ARGS] = {x, pk ? (void *)wp : (void *)w, bias, mult, shift, s->wz ? wzp : NULL, y};
	k_conv_q(p, a, scratch);
	for (size_t i = ss; i < ss + 16; i++)
		ok &= scratch[i] == 0xa5;	/* nothing written past the scratch it asked for */
	if (s->smax > 0 && ss > (uint32_t)s->smax) {
		printf("# scratch %u over the budget %d\n", (unsigned)ss, s->smax);
		ok = 0;
	}
	for (size_t i = 0; i < ny && ok; i++) {
		int32_t got = s->YT == NPU_T_I8 ? ((int8_t *)y)[i] : y[i];
		if (got != want[i]) {
			printf("# y[%zu] = %d, want %d\n", i, (int)got, (int)want[i]);
			ok = 0;
		}
	}
	/* a depthwise one also channel-last (CONV_NHWC_Q, x [N,H,W,C]; its
	 * OHWI weights are the same bytes): the same values, transposed */
	if (s->G == s->C && s->OC == s->C && ok) {
		int8_t *xt = malloc(nx);
		int16_t *yt = malloc(2 * ny);
		uint32_t st = npu_scratch_size(NPU_K_CONV_NHWC_Q, p);
		uint8_t *sc = malloc(st + 16);
		nhwc_runs += st > 0;
#if defined(CN_DW_QUADS)
		int q = st > 0 && cn_dw_quads_fit(p, w, s->wz ? wzp : NULL);
#if defined(CN_RQ_LANES)
		q &= cn_dw_lanes_ok(p, bias);
#endif
		nhwc_quads += q;
#endif
		for (int n = 0; n < s->N; n++)
			for (int c = 0; c < s->C; c++)
				for (int i = 0; i < s->H * s->W; i++)
					xt[((size_t)n * s->H * s->W + i) * s->C + c] = x[((size_t)n * s->C + c) * s->H * s->W + i];
		memset(sc, 0xa5, st + 16);
		void *b[NPU_MAX_ARGS] = {xt, w, bias, mult, shift, s->wz ? wzp : NULL, yt};
		k_conv_nhwc_q(p, b, sc);
		for (size_t i = st; i < st + 16; i++)
			ok &= sc[i] == 0xa5;
		for (int n = 0; n < s->N && ok; n++)
			for (int c = 0; c < s->C; c++)
				for (int i = 0; i < OH * OW; i++) {
					size_t at = ((size_t)n * OH * OW + i) * s->C + c;
					int32_t got = s->YT == NPU_T_I8 ? ((int8_t *)yt)[at] : yt[at];
					if (ok && got != want[((size_t)n * s->C + c) * OH * OW + i]) {
						printf("# nhwc y[%zu] = %d, want %d\n", at, (int)got,
						       (int)want[((size_t)n * s->C + c) * OH * OW + i]);
						ok = 0;
					}
				}
		free(xt), free(yt), free(sc);
	}
	if (!ok)
		printf("# N%d C%d %dx%d OC%d k%dx%d s%d,%d p%d,%d,%d,%d d%d,%d g%d yt%d wz%d: path %d\n", s->N, s->C, s->H,
		       s->W, s->OC, s->KH, s->KW, s->SH, s->SW, s->PT, s->PL, s->PB, s->PR, s->DH, s->DW, s->G, s->YT,
		       s->wz, g.path);
	free(x), free(w), free(bias), free(mult), free(shift), free(wzp), free(y), free(want), free(wp), free(scratch);
	return ok;
}

/* ---- q8conv: cq_requant's vector rows and the direct 1x1 path ---- */

/* cq_requant on random rows (lengths around the vector widths, extreme
 * accumulators, weight zero points, shifts on both sides of 32, clamps
 * inside and beyond the output range) against cq_out element by element */
static int requant_rows(void)
{
	int bad = 0;
	for (int it = 0; it < 3000 && bad < 5; it++) {
		int n = ri(1, 40), YT = ri(0, 2) ? NPU_T_I8 : NPU_T_I16;
		int32_t acc[40], cs[40], z = ri(0, 2) ? 0 : ri(-128, 127);
		int lim = ri(0, 1) ? (1 << 29) - 1 : ri(1, 5000);
		for (int i = 0; i < n; i++) {
			cs[i] = ri(-4000, 4000);
			int32_t v = ri(-lim, lim);
			acc[i] = ri(0, 9) ? v : ri(0, 1) ? lim : -lim;
			acc[i] += z * cs[i];	/* acc - z cs stays within the bound */
		}
		int32_t ylo = YT == NPU_T_I8 ? -128 : -32768, yhi = YT == NPU_T_I8 ? 127 : 32767;
		int32_t bias = ri(0, 3) ? ri(-(1 << 20), 1 << 20) : ri(-(1 << 30) + 1, (1 << 30) - 1);
		int32_t mult = ri(0, 9) ? ri(1 << 29, 0x7fffffff) : ri(0, 3) ? ri(0, 1 << 20) : -ri(1, 1 << 30);
		int32_t shift = ri(0, 4) ? ri(32, 62) : ri(1, 31), zy = ri(ylo, yhi);
		int32_t lo = ri(0, 2) ? ylo : ri(ylo, yhi), hi = ri(0, 2) ? yhi : ri(lo, yhi);
		if (ri(0, 9) == 0)
			lo = ylo - 5, hi = yhi + 5;	/* beyond the type: the scalar loop's wrapping */
		int16_t y[40];
		int use_cs = z != 0 || ri(0, 1);
		cq_requant(y, YT, 0, acc, use_cs ? cs : NULL, use_cs ? z : 0, n, 1, 0, bias, mult, shift, zy, lo, hi);
		for (int i = 0; i < n; i++) {
			int64_t a = (int64_t)acc[i] - (use_cs ? (int64_t)z * cs[i] : 0) + bias;
			int32_t want = cq_out(a, mult, rt_shift(shift), zy, lo, hi);
			int32_t got = YT == NPU_T_I8 ? ((int8_t *)y)[i] : y[i];
			want = YT == NPU_T_I8 ? (int8_t)want : (int16_t)want;
			if (got != want) {
				printf("# requant: n %d i %d acc %d cs %d z %d bias %d mult %d shift %d zy %d [%d, %d] yt %d: %d, want %d\n",
				       n, i, acc[i], cs[i], z, bias, mult, shift, zy, lo, hi, YT, got, want);
				bad++;
				break;
			}
		}
	}
	return bad == 0;
}

/* ---- q8x86: cq_uq_simd's masked tails (AVX-512: every n on vectors)
 * write y[at .. at + n) and nothing past it, int8 and int16, rows of 1 to
 * 70 (one to five 16-lane blocks and any tail) at odd offsets ---- */
static int requant_tails(void)
{
	int bad = 0;
	for (int it = 0; it < 2000 && bad < 5; it++) {
		int n = ri(1, 70), at = ri(0, 5), YT = ri(0, 1) ? NPU_T_I8 : NPU_T_I16, esz = YT == NPU_T_I8 ? 1 : 2;
		int32_t acc[70], bias = ri(-(1 << 20), 1 << 20), mult = ri(1 << 29, 0x7fffffff), shift = ri(32, 45);
		int32_t ylo = YT == NPU_T_I8 ? -128 : -32768, yhi = YT == NPU_T_I8 ? 127 : 32767, zy = ri(ylo, yhi);
		int16_t yb[70 + 5 + 32];
		unsigned char *y = (unsigned char *)yb;
		for (int i = 0; i < n; i++)
			acc[i] = ri(-(1 << 24), 1 << 24);
		memset(yb, 0xa5, sizeof yb);
		cq_requant(y, YT, (size_t)at, acc, NULL, 0, n, 1, 0, bias, mult, shift, zy, ylo, yhi);
		for (int i = 0; i < (int)sizeof yb && bad < 5; i++) {
			int in = i >= at * esz && i < (at + n) * esz;
			if (!in && y[i] != 0xa5) {
				printf("# requant tail: n %d at %d yt %d: byte %d written\n", n, at, YT, i);
				bad++;
			}
		}
		for (int i = 0; i < n && bad < 5; i++) {
			int32_t want = cq_out((int64_t)acc[i] + bias, mult, rt_shift(shift), zy, ylo, yhi);
			int32_t got = YT == NPU_T_I8 ? ((int8_t *)yb)[at + i] : yb[at + i];
			if (got != want) {
				printf("# requant tail: n %d i %d yt %d: %d, want %d\n", n, i, YT, got, want);
				bad++;
			}
		}
	}
	return bad == 0;
}

/* ---- q8x86: QUANTIZE float32 -> int8 / uint8 / int16 (AVX-512: 16
 * lanes, vcvtps2dq) against rintf (nearest, ties to even), clamped: ties
 * at +-k.5, NaN, infinities, values beyond 2^17 and 2^31, subnormals,
 * lengths around the vector width, nothing written past n ---- */
static int quantize_cases(void)
{
	int bad = 0;
	for (int it = 0; it < 400 && bad < 5; it++) {
		int n = ri(0, 3) ? ri(1, 40) : ri(40, 300), kind = ri(0, 2);
		int32_t YT = kind == 0 ? NPU_T_I8 : kind == 1 ? NPU_T_U8 : NPU_T_I16, esz = YT == NPU_T_I16 ? 2 : 1;
		int32_t tlo = YT == NPU_T_I8 ? -128 : YT == NPU_T_U8 ? 0 : -32768;
		int32_t thi = YT == NPU_T_I8 ? 127 : YT == NPU_T_U8 ? 255 : 32767;
		int32_t zp = ri(tlo, thi), lo = ri(0, 2) ? tlo : ri(tlo, thi), hi = ri(0, 2) ? thi : ri(lo, thi);
		float scale = ri(0, 3) ? (float)ri(1, 1000) / 256.0f : 1.0f, x[300];
		int32_t p[NPU_QZ_COUNT] = {0};
		static const float odd[] = {0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 1e10f, -1e10f, 140000.0f, -140000.0f,
					    1e-40f, -0.0f};
		for (int i = 0; i < n; i++) {
			int r = ri(0, 19);
			if (r == 0)
				x[i] = odd[ri(0, (int)(sizeof odd / sizeof odd[0]) - 1)] * (ri(0, 1) ? scale : 1.0f);
			else if (r == 1)
				x[i] = ri(0, 1) ? NAN : ri(0, 1) ? INFINITY : -INFINITY;
			else if (r < 5)
				x[i] = ((float)ri(-600, 600) + 0.5f) * scale;	/* q a tie, mostly */
			else
				x[i] = (float)ri(-2000000, 2000000) / 1000.0f;
		}
		p[NPU_QZ_N] = n, p[NPU_QZ_XT] = NPU_T_F32, p[NPU_QZ_YT] = YT, p[NPU_QZ_ZP] = zp;
		p[NPU_QZ_LO] = lo, p[NPU_QZ_HI] = hi, p[NPU_QZ_SCALE] = (int32_t)npu_f32_bits(scale);
		int16_t yb[300 + 32];
		memset(yb, 0x5a, sizeof yb);
		void *a[2] = {x, yb};
		k_quantize(p, a, NULL);
		for (int i = 0; i < n && bad < 5; i++) {
			float q = x[i] / scale;
			int64_t r = q != q ? 0 : q >= 1e9f ? 1000000000 : q <= -1e9f ? -1000000000 : (int64_t)rintf(q);
			r += zp;
			int32_t want = (int32_t)(r < lo ? lo : r > hi ? hi : r);
			int32_t got = YT == NPU_T_I8 ? ((int8_t *)yb)[i] : YT == NPU_T_U8 ? ((uint8_t *)yb)[i] : yb[i];
			if (got != want) {
				printf("# quantize: n %d i %d x %.9g scale %.9g zp %d [%d, %d] yt %d: %d, want %d\n", n, i,
				       (double)x[i], (double)scale, zp, lo, hi, YT, got, want);
				bad++;
			}
		}
		for (int i = n * esz; i < (int)sizeof yb && bad < 5; i++)
			if (((unsigned char *)yb)[i] != 0x5a) {
				printf("# quantize: n %d yt %d: byte %d written\n", n, YT, i);
				bad++;
			}
	}
	return bad == 0;
}

/* ---- q8x86: ELTWISE_Q add/sub and REQUANT int8 rows (rt_uq_row; on
 * AVX-512 16 lanes and a masked tail) against the definition, clamp(ZY +
 * rshift_round((a - ZA) MA +- (b - ZB) MB, s)), b also broadcast ---- */
static int64_t rsr_def(int64_t v, int s)
{
	/* floor((v + 2^(s-1)) / 2^s) in 128-bit-free steps: v / 2^s and its rest */
	int64_t q = v >= 0 ? v >> s : -((-v + ((int64_t)1 << s) - 1) >> s), r = v - q * ((int64_t)1 << s);
	return q + (r >= ((int64_t)1 << (s - 1)));
}

/* REQUANT of whole tensors as channel-last concatenations write them:
 * rows of C into rows of a wider output at an offset, 1024 elements or
 * more (without vector lanes: a table of the 256 results); the gaps stay */
static int requant_rows_cases(void)
{
	int bad = 0;
	for (int it = 0; it < 60 && bad < 5; it++) {
		int C = ri(1, 40), R = 1024 / C + ri(0, 300), D = C + ri(0, 9), off = D - C ? ri(0, D - C) : 0;
		int32_t p[NPU_RQ_COUNT] = {0};
		int32_t za = ri(-128, 127), zy = ri(-128, 127), ma = ri(1 << 20, 0x7fffffff), shift = ri(0, 9) ? ri(36, 50) : ri(11, 62);
		int32_t lo = ri(0, 2) ? -128 : ri(-128, 127), hi = ri(0, 2) ? 127 : ri(lo, 127);
		int8_t *x = malloc((size_t)R * C), *y = malloc((size_t)R * D);
		for (int i = 0; i < R * C; i++)
			x[i] = (int8_t)ri(-128, 127);
		memset(y, 0x5a, (size_t)R * D);
		for (int d = 0; d < NPU_WALK_DIMS; d++)
			p[NPU_RQ_COUNTS + d] = 1;
		p[NPU_RQ_COUNTS + 4] = R, p[NPU_RQ_COUNTS + 5] = C;
		p[NPU_RQ_SS + 4] = C, p[NPU_RQ_SS + 5] = 1, p[NPU_RQ_DS + 4] = D, p[NPU_RQ_DS + 5] = 1, p[NPU_RQ_DOFF] = off;
		p[NPU_RQ_XT] = p[NPU_RQ_YT] = NPU_T_I8, p[NPU_RQ_ZX] = za, p[NPU_RQ_ZY] = zy;
		p[NPU_RQ_MULT] = ma, p[NPU_RQ_SHIFT] = shift, p[NPU_RQ_LO] = lo, p[NPU_RQ_HI] = hi;
		void *a[2] = {x, y};
		k_requant(p, a, NULL);
		for (int r = 0; r < R && bad < 5; r++)
			for (int j = 0; j < D && bad < 5; j++) {
				int8_t got = y[(size_t)r * D + j];
				int64_t want = 0x5a;
				if (j >= off && j < off + C) {
					want = zy + rsr_def(((int64_t)x[(size_t)r * C + j - off] - za) * ma, rt_shift(shift));
					want = want < lo ? lo : want > hi ? hi : want;
				}
				if (got != want) {
					printf("# requant rows: C %d R %d D %d off %d, y[%d][%d] = %d, want %d\n", C, R, D, off, r, j,
					       got, (int)want);
					bad++;
				}
			}
		free(x), free(y);
	}
	return bad == 0;
}

static int uq_row_cases(void)
{
	int bad = 0;
	for (int it = 0; it < 600 && bad < 5; it++) {
		int n = ri(0, 2) ? ri(1, 40) : ri(40, 600), bc = ri(0, 4) == 0, rq = ri(0, 3) == 0;
		int8_t xa[600], xb[600], yb[600 + 32];
		int32_t p[(int)NPU_EW_COUNT + (int)NPU_RQ_COUNT] = {0};	/* either table */
		int32_t za = ri(-128, 127), zb = ri(-128, 127), zy = ri(-128, 127);
		int32_t ma = ri(0, 9) ? ri(1 << 20, 0x7fffffff) : ri(0, 1000);
		int32_t mb = ri(0, 9) ? ri(1 << 20, 0x7fffffff) : ri(0, 1000), shift = ri(0, 9) ? ri(36, 50) : ri(11, 62);
		int32_t lo = ri(0, 2) ? -128 : ri(-128, 127), hi = ri(0, 2) ? 127 : ri(lo, 127), sub = ri(0, 1);
		for (int i = 0; i < n; i++)
			xa[i] = (int8_t)ri(-128, 127), xb[i] = (int8_t)ri(-128, 127);
		memset(yb, 0x5a, sizeof yb);
		if (rq) {
			for (int d = 0; d < NPU_WALK_DIMS; d++)
				p[NPU_RQ_COUNTS + d] = d == NPU_WALK_DIMS - 1 ? n : 1;
			p[NPU_RQ_SS + NPU_WALK_DIMS - 1] = p[NPU_RQ_DS + NPU_WALK_DIMS - 1] = 1;
			p[NPU_RQ_XT] = p[NPU_RQ_YT] = NPU_T_I8, p[NPU_RQ_ZX] = za, p[NPU_RQ_ZY] = zy;
			p[NPU_RQ_MULT] = ma, p[NPU_RQ_SHIFT] = shift, p[NPU_RQ_LO] = lo, p[NPU_RQ_HI] = hi;
			void *a[2] = {xa, yb};
			k_requant(p, a, NULL);
		} else {
			p[NPU_EW_OP] = sub ? NPU_BIN_SUB : NPU_BIN_ADD;
			for (int d = 0; d < NPU_WALK_DIMS; d++)
				p[NPU_EW_COUNTS + d] = d == NPU_WALK_DIMS - 1 ? n : 1;
			p[NPU_EW_SA + NPU_WALK_DIMS - 1] = 1, p[NPU_EW_SB + NPU_WALK_DIMS - 1] = !bc;
			p[NPU_EW_AT] = p[NPU_EW_BT] = p[NPU_EW_YT] = NPU_T_I8;
			p[NPU_EW_ZA] = za, p[NPU_EW_ZB] = zb, p[NPU_EW_ZY] = zy, p[NPU_EW_MA] = ma, p[NPU_EW_MB] = mb;
			p[NPU_EW_SHIFT] = shift, p[NPU_EW_LO] = lo, p[NPU_EW_HI] = hi, p[NPU_EW_ACT] = -1;
			void *a[3] = {xa, xb, yb};
			k_eltwise_q(p, a, NULL);
		}
		for (int i = 0; i < n && bad < 5; i++) {
			int64_t da = (int64_t)xa[i] - za, db = (int64_t)xb[bc ? 0 : i] - zb, v;
			if (rq) {
				/* rshift_round of the 64-bit product: (da ma) fits */
				v = rsr_def(da * ma, rt_shift(shift));
			} else {
				v = rsr_def(sub ? da * ma - db * mb : da * ma + db * mb, rt_shift(shift));
			}
			int64_t want = zy + v;
			want = want < lo ? lo : want > hi ? hi : want;
			if (yb[i] != want) {
				printf("# uq_row: %s n %d i %d bc %d z %d %d %d m %d %d shift %d [%d, %d]: %d, want %d\n",
				       rq ? "requant" : sub ? "sub" : "add", n, i, bc, za, zb, zy, ma, mb, shift, lo, hi, yb[i],
				       (int)want);
				bad++;
			}
		}
		for (int i = n; i < (int)sizeof yb && bad < 5; i++)
			if ((unsigned char)yb[i] != 0x5a) {
				printf("# uq_row: n %d: byte %d written\n", n, i);
				bad++;
			}
	}
	return bad == 0;
}

/* the direct 1x1 path: pixel counts around CQ_DNP and the tile (tails),
 * channel counts around the quads and pairs of its panels, groups, batch,
 * weight zero points, int16 outputs, budgets that shrink the tile */
static int direct_cases(int *paths)
{
	int ok = 1, path;
	static const shape fixed[] = {
		{1, 4, 4, 4, 8, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* P = CQ_DNP */
		{1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* one of everything */
		{1, 3, 5, 7, 5, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},
		{2, 33, 17, 19, 13, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 2},
		{1, 64, 28, 28, 24, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* several tiles */
		{1, 960, 7, 7, 160, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* mobilenet's widest */
		{1, 12, 9, 11, 20, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 4, NPU_T_I16, 1},	/* grouped */
		{1, 16380, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 2},	/* K at the bound */
		{1, 40, 20, 20, 9, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0, 6000},	/* a budget */
		{1, 128, 9, 9, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 2, 30000},	/* K in chunks */
		{1, 64, 11, 6, 24, 3, 3, 2, 1, 1, 0, 1, 2, 1, 2, 1, NPU_T_I16, 1, 9000},
		{2, 300, 5, 5, 17, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0, 7000},	/* 1x1, K in chunks */
	};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		ok &= one(&fixed[i], &path);
		paths[path]++;
	}
	for (int i = 0; i < 150; i++) {
		shape s = {ri(1, 2), 0, ri(1, 40), ri(1, 40), 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0, 0};
		s.G = ri(0, 4) ? 1 : ri(2, 3);
		s.C = s.G * ri(1, 70), s.OC = s.G * ri(1, 21);
		s.YT = ri(0, 4) ? NPU_T_I8 : NPU_T_I16;
		s.wz = ri(0, 3) ? ri(0, 1) : 2;
		s.smax = ri(0, 3) ? 0 : ri(2000, 40000);
		ok &= one(&s, &path);
		paths[path]++;
	}
	for (int i = 0; i < 60; i++) {	/* KxK windows under budgets that split K */
		shape s = {ri(1, 2), ri(8, 120), ri(3, 12), ri(3, 12), ri(1, 30), ri(1, 3), ri(1, 3), ri(1, 2), ri(1, 2),
			   0, 0, 0, 0, ri(1, 2), ri(1, 2), 1, NPU_T_I8, 0, 0};
		s.PT = ri(0, s.KH - 1), s.PB = ri(0, s.KH - 1), s.PL = ri(0, s.KW - 1), s.PR = ri(0, s.KW - 1);
		s.YT = ri(0, 4) ? NPU_T_I8 : NPU_T_I16;
		s.wz = ri(0, 3) ? ri(0, 1) : 2;
		s.smax = ri(2500, 12000);
		ok &= one(&s, &path);
		paths[path]++;
	}
	return ok;
}

/* ---- armdot: channel-last depthwise with at least 16 channels and 6
 * taps (aarch64 with sdot: cn_dw_dot, 16 channels by 4 taps; the last
 * block overlapping) and the panel's 1x1 and KxK shapes around its quads,
 * every ISA against the definition ---- */
static int armdot_cases(int *paths, int *nhwc16)
{
	int ok = 1, path;
	for (int i = 0; i < 80; i++) {
		shape s;
		int k3 = ri(0, 2) != 0;
		s.N = ri(1, 2), s.C = ri(0, 3) ? ri(16, 50) : 16 * ri(1, 3);
		s.KH = k3 ? 3 : ri(1, 5), s.KW = k3 ? 3 : ri(2, 7);
		if (s.KH * s.KW < 6)
			s.KH = 2, s.KW = 3;
		s.SH = ri(1, 3), s.SW = ri(1, 3), s.DH = ri(1, 2), s.DW = ri(1, 2);
		s.H = ri(1, 9), s.W = ri(1, 9);
		s.PT = ri(0, s.KH), s.PB = ri(0, s.KH), s.PL = ri(0, s.KW), s.PR = ri(0, s.KW);
		s.G = s.OC = s.C;
		s.YT = ri(0, 4) ? NPU_T_I8 : NPU_T_I16;
		s.wz = ri(0, 3) ? 0 : ri(1, 2);	/* 2: w - z beyond int8 in some channels */
		s.smax = 0;
		int before = nhwc_runs;
		ok &= one(&s, &path);
		paths[path]++;
		*nhwc16 += nhwc_runs > before;
	}
	for (int i = 0; i < 60; i++) {	/* the panel: K around multiples of 4 and 8, pixels around 16 */
		shape s = {1, 4 * ri(1, 24) + ri(-1, 1), ri(1, 6), ri(1, 20), ri(1, 20), 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
			   NPU_T_I8, 0, 0};
		if (ri(0, 1))
			s.KH = s.KW = 3, s.PT = s.PB = s.PL = s.PR = 1;
		s.wz = ri(0, 3) ? 0 : 2;
		ok &= one(&s, &path);
		paths[path]++;
	}
	return ok;
}

/* ---- nhwcq: channel-last regular int8 convolution (CONV_NHWC_Q's
 * cn_regular: 4 output channels by runs of KW' C bytes, padding taps
 * skipped; without tiles or vector lanes cn_win where there are no weight
 * zero points, G 1 and DW 1) against the definition written out
 * channel-last here: random shapes with odd and single channels, padding
 * (also wider than the window), strides, dilation, groups (channel
 * multiplier above 1 too),
 * int16 outputs, weight zero points (beyond int8: the scalar loop), K at
 * CQ_NHWC_MAX_K and beyond it; the scratch is 0 (none written) ---- */
#if defined(CN_TILES)
static int nhwc_amx, nhwc_amx1;	/* channel-last convolutions on cn_amx (cn_amx_use: tiles or VNNI); in direct mode */
#endif
static int nhwc_win;	/* ... on cn_win (builds with neither tiles nor vector lanes: int8 x of one group, DW 1, no weight zero points) */
static int nhwc_one(const shape *s, int *fast)
{
	int32_t p[NPU_CV_COUNT] = {0};
	if (!conv_params(s, p))
		return 1;
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], cg = s->C / s->G, og = s->OC / s->G, K = cg * s->KH * s->KW;
	int32_t ylo = s->YT == NPU_T_I8 ? -128 : -32768, yhi = s->YT == NPU_T_I8 ? 127 : 32767;
	p[NPU_CV_ZX] = ri(0, 9) ? ri(-128, 127) : ri(0, 1) ? -128 : 127, p[NPU_CV_ZY] = ri(ylo / 2, yhi / 2);
	p[NPU_CV_LO] = ri(0, 3) ? ylo : ri(ylo, 0), p[NPU_CV_HI] = ri(0, 3) ? yhi : ri(1, yhi);
	size_t nx = (size_t)s->N * s->H * s->W * s->C, nw = (size_t)s->OC * K, ny = (size_t)s->N * OH * OW * s->OC;
	uint32_t ss = npu_scratch_size(NPU_K_CONV_NHWC_Q, p);
	int8_t *x = malloc(nx), *w = malloc(nw);
	int32_t *bias = malloc(4 * (size_t)s->OC), *mult = malloc(4 * (size_t)s->OC), *shift = malloc(4 * (size_t)s->OC);
	int32_t *wzp = malloc(4 * (size_t)s->OC);
	int16_t *y = malloc(2 * ny), *want = malloc(2 * ny);
	uint8_t *scratch = malloc(ss + 16);
	int ok = 1;
	for (size_t i = 0; i < nx; i++)	/* extremes often: the int16 lanes' edges */
		x[i] = (int8_t)(ri(0, 7) ? ri(-128, 127) : ri(0, 1) ? -128 : 127);
	for (size_t i = 0; i < nw; i++)
		w[i] = (int8_t)(ri(0, 7) ? ri(-128, 127) : ri(0, 1) ? -128 : 127);
	for (int o = 0; o < s->OC; o++) {
		bias[o] = ri(-(1 << 20), 1 << 20);
		mult[o] = ri(1 << 29, (1 << 30) + (1 << 29));
		shift[o] = 30 + ri(8, 14) + (s->YT == NPU_T_I16 ? -6 : 0);
		wzp[o] = s->wz == 2 ? ri(-128, 127) : s->wz == 3 ? 200 : 0;
	}
	for (int n = 0; n < s->N; n++)
		for (int oh = 0; oh < OH; oh++)
			for (int ow = 0; ow < OW; ow++)
				for (int oc = 0; oc < s->OC; oc++) {
					int gr = oc / og;
					int64_t acc = bias[oc];
					for (int kh = 0; kh < s->KH; kh++)
						for (int kw = 0; kw < s->KW; kw++)
							for (int ic = 0; ic < cg; ic++) {
								int ih = oh * s->SH - s->PT + kh * s->DH, iw = ow * s->SW - s->PL + kw * s->DW;
								if (ih < 0 || ih >= s->H || iw < 0 || iw >= s->W)
									continue;
								int64_t xv = x[(((size_t)n * s->H + ih) * s->W + iw) * s->C + gr * cg + ic];
								int64_t wv = w[(((size_t)oc * s->KH + kh) * s->KW + kw) * cg + ic];
								acc += (xv - p[NPU_CV_ZX]) * (wv - wzp[oc]);
							}
					int64_t v = p[NPU_CV_ZY] + npu_rshift_round(acc * mult[oc], shift[oc]);
					want[(((size_t)n * OH + oh) * OW + ow) * s->OC + oc] =
						(int16_t)(v < p[NPU_CV_LO] ? p[NPU_CV_LO] : v > p[NPU_CV_HI] ? p[NPU_CV_HI] : v);
				}
	*fast = K <= CQ_NHWC_MAX_K && s->wz != 3 && !(s->G == s->C && s->OC == s->C && ss > 0);
	nhwc_win += *fast && !s->wz && s->G == 1 && s->DW == 1;
	memset(scratch, 0xa5, ss + 16);
	memset(y, 0x5a, 2 * ny);
	void *a[NPU_MAX_ARGS] = {x, w, bias, mult, shift, s->wz ? wzp : NULL, y};
#if defined(CN_TILES)
	cn_ageo ag;
	int amx = cn_amx_use(p, a, &ag);
	nhwc_amx += amx, nhwc_amx1 += amx && ag.dm;
#endif
	k_conv_nhwc_q(p, a, scratch);
	for (size_t i = ss; i < ss + 16; i++)
		ok &= scratch[i] == 0xa5;
	for (size_t i = 0; i < ny && ok; i++) {
		int32_t got = s->YT == NPU_T_I8 ? ((int8_t *)y)[i] : y[i];
		if (got != want[i]) {
			printf("# nhwc regular y[%zu] = %d, want %d\n", i, (int)got, (int)want[i]);
			ok = 0;
		}
	}
	if (!ok)
		printf("# nhwc regular: N%d C%d %dx%d OC%d k%dx%d s%d,%d p%d,%d,%d,%d d%d,%d g%d yt%d wz%d\n", s->N, s->C,
		       s->H, s->W, s->OC, s->KH, s->KW, s->SH, s->SW, s->PT, s->PL, s->PB, s->PR, s->DH, s->DW, s->G,
		       s->YT, s->wz);
	free(x), free(w), free(bias), free(mult), free(shift), free(wzp), free(y), free(want), free(scratch);
	return ok;
}

static int nhwc_cases(int *nfast, int *ntotal)
{
	int ok = 1, f = 0;
	static const shape fixed[] = {
		{1, 32, 8, 8, 16, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* 1x1 */
		{1, 96, 7, 9, 24, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 2},
		{1, 3, 17, 17, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0},	/* mobilenet's stem */
		{2, 3, 11, 13, 17, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, NPU_T_I16, 2},
		{1, 1, 9, 9, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0},	/* 1 input channel */
		{1, 5, 9, 9, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 1},	/* 1 output channel */
		{1, 1, 6, 6, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* one of everything */
		{1, 8, 5, 6, 12, 1, 1, 1, 1, 0, 0, 1, 2, 1, 1, 1, NPU_T_I8, 0},	/* 1x1 padded below and right */
		{2, 6, 7, 7, 5, 1, 1, 2, 1, 1, 0, 0, 1, 1, 1, 1, NPU_T_I8, 0},	/* 1x1 at stride 2, padded */
		{1, 5, 3, 4, 6, 1, 1, 2, 1, 1, 0, 2, 0, 1, 1, 1, NPU_T_I8, 0},	/* ... as tall as its input */
		{1, 12, 9, 9, 18, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 3, NPU_T_I16, 2},	/* grouped, dilated */
		{1, 6, 10, 10, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 6, NPU_T_I8, 2},	/* multiplier 2 */
		{1, 7, 5, 17, 9, 3, 3, 1, 1, 3, 4, 4, 3, 1, 1, 1, NPU_T_I8, 2},	/* pads beyond the kernel */
		{1, 64, 6, 10, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 1},	/* resnet-like */
		{1, 160, 3, 3, 37, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 2},
		{3, 300, 1, 1, 37, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* fully connected */
		{1, 40, 6, 6, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 3},	/* weight zero point beyond int8 */
		{1, 1820, 1, 1, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 2},	/* K = 16380, the bound */
		{1, 2048, 2, 3, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 2},	/* K = 18432: beyond */
	};
	int nfix = (int)(sizeof fixed / sizeof fixed[0]);
	for (int i = 0; i < nfix + 250; i++) {
		shape s;
		if (i < nfix) {
			s = fixed[i];
		} else {
			int kind = ri(0, 3);
			s.N = ri(1, 2), s.G = 1, s.YT = ri(0, 4) ? NPU_T_I8 : NPU_T_I16, s.wz = ri(0, 3) ? ri(0, 1) : 2;
			s.KH = ri(1, 4), s.KW = ri(1, 4), s.SH = ri(1, 3), s.SW = ri(1, 3), s.DH = ri(1, 2), s.DW = ri(1, 2);
			s.H = ri(1, 12), s.W = ri(1, 12);
			s.PT = ri(0, s.KH), s.PB = ri(0, s.KH), s.PL = ri(0, s.KW), s.PR = ri(0, s.KW);
			s.C = ri(0, 5) ? ri(1, 70) : 1, s.OC = ri(0, 5) ? ri(1, 40) : ri(1, 3);
			if (kind == 0) {	/* 1x1 */
				s.KH = s.KW = 1, s.PT = s.PB = s.PL = s.PR = 0, s.SH = s.SW = ri(0, 2) ? 1 : 2;
				s.C = ri(1, 300);
			} else if (kind == 1) {	/* grouped */
				s.G = ri(2, 4), s.C = s.G * ri(1, 20), s.OC = s.G * ri(1, 11);
			} else if (kind == 3) {	/* cn_win's: no weight zero points, DW 1 */
				s.wz = 0, s.DW = 1;
			}
		}
		s.smax = 0;
		int fast = 0;
		ok &= nhwc_one(&s, &fast);
		f += fast;
	}
	*nfast = f, *ntotal = nfix + 250;
	return ok;
}

/* ---- nhwcamx: the channel-last convolution on AMX tiles, or without
 * them on AVX-512 VNNI (cn_amx):
 * resnet18's layers shrunk (3x3 and 1x1, strides 1 and 2, 7x7 maps in
 * bands of rows), input channels that chunk by 4 .. 64 (kc), output
 * channels around the 16-channel blocks (overlapping last block), rows
 * around the 16-pixel tiles, padding beyond the window, dilation; 1x1
 * stride-1 layers in direct mode (pixel tiles overlapping at the end,
 * images one after the other, K up to the scratch's bound and beyond it,
 * a --scratch-max that leaves it for the bands); then random shapes; all
 * against nhwc_one's definition ---- */
static int nhwcamx_cases(int *ntotal)
{
	int ok = 1, n = 0;
	static const shape fixed[] = {
		{1, 64, 14, 14, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0},	/* layer1, smaller */
		{1, 128, 7, 7, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 1},	/* 7x7: bands of rows */
		{1, 64, 14, 14, 128, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0},	/* stride 2 */
		{1, 64, 14, 14, 128, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* downsample 1x1 */
		{2, 96, 9, 33, 24, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* kc 48, 33 columns */
		{1, 160, 5, 16, 40, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 1},	/* kc 40, 3 blocks */
		{1, 4, 6, 17, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0},	/* kc 4 */
		{1, 12, 11, 31, 17, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1, NPU_T_I8, 0},	/* 5x5, OC 17 */
		{1, 24, 8, 20, 33, 3, 3, 1, 2, 4, 3, 4, 5, 2, 2, 1, NPU_T_I8, 1},	/* pads beyond, dilated */
		{1, 320, 3, 3, 16, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* kc 64 of 320 */
		{1, 64, 1, 1, 48, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* one pixel */
		{1, 32, 5, 40, 20, 3, 1, 3, 3, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* stride 3 */
		{1, 3, 23, 23, 64, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1, NPU_T_I8, 0},	/* row mode: resnet18's stem */
		{1, 3, 17, 17, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 1},	/* mobilenet_v2's stem */
		{2, 5, 9, 30, 17, 3, 5, 1, 2, 2, 4, 1, 3, 2, 1, 1, NPU_T_I8, 0},	/* KW C = 25 */
		{1, 1, 6, 20, 16, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* one channel */
		{1, 32, 4, 4, 16, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* direct: one pixel tile */
		{1, 8, 1, 17, 20, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 1},	/* 17 pixels, 20 channels */
		{2, 44, 3, 7, 33, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* kc 44, 2 images, 3 blocks */
		{1, 1000, 2, 9, 24, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* kc 40 */
		{1, 1520, 4, 4, 16, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 1},	/* the largest K in 48 KiB */
		{1, 1536, 4, 4, 16, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* beyond it: bands */
		{1, 256, 4, 8, 32, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0, 8192},	/* bound: bands */
		{1, 96, 12, 12, 144, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 1},	/* mobilenet_v2-like */
	};
	int nfix = (int)(sizeof fixed / sizeof fixed[0]);
	for (int i = 0; i < nfix + 120; i++) {
		shape s;
		if (i < nfix) {
			s = fixed[i];
		} else {
			s.N = ri(1, 2), s.G = 1, s.YT = NPU_T_I8, s.wz = ri(0, 1);
			s.KH = ri(1, 4), s.KW = ri(1, 4), s.SH = ri(1, 2), s.SW = ri(1, 3), s.DH = ri(1, 2), s.DW = ri(1, 2);
			s.H = ri(1, 12), s.W = ri(1, 40);
			s.PT = ri(0, s.KH), s.PB = ri(0, s.KH), s.PL = ri(0, s.KW), s.PR = ri(0, s.KW);
			s.C = ri(0, 2) ? 4 * ri(1, 40) : ri(1, 30), s.OC = ri(16, 70);	/* row mode too */
			s.smax = 0;
		}
		int fast = 0;
		ok &= nhwc_one(&s, &fast);
		n++;
	}
	*ntotal = n;
	return ok;
}
/* channel-last int8 pooling (k_pool_nhwc_q's rows, pn_rows_i8): max and
 * average (padding counted or not, ceil-mode overhang, windows wholly in
 * the padding, clamps) against the definition written out here */
static int nhwcpool_cases(int *nrows)
{
	int ok = 1, rows = 0;
	for (int i = 0; i < 300; i++) {
		int32_t p[NPU_PL_COUNT] = {0};
		int N = ri(1, 2), C = ri(0, 3) ? ri(1, 80) : ri(200, 600), H = ri(1, 12), W = ri(1, 12);
		int KH = ri(1, 4), KW = ri(1, 4), SH = ri(1, 3), SW = ri(1, 3), PT = ri(0, KH), PL = ri(0, KW);
		int PB = ri(0, KH), PR = ri(0, KW), avg = ri(0, 1);
		if (i % 10 == 0)	/* global average (squeezenet's head) */
			KH = H, KW = W, SH = SW = 1, PT = PL = PB = PR = 0, avg = 1;
		int OH = (H + PT + PB - KH) / SH + 1 + ri(0, 1) * (ri(0, 3) == 0), OW = (W + PL + PR - KW) / SW + 1;
		if (OH < 1 || OW < 1)
			continue;
		pool_geo(p, N, C, H, W, OH, OW, KH, KW, SH, SW, PT, PL, PB, PR);
		p[NPU_PL_MODE] = avg ? NPU_POOL_AVG : NPU_POOL_MAX, p[NPU_PL_COUNT_PAD] = ri(0, 1);
		p[NPU_PL_XT] = p[NPU_PL_YT] = NPU_T_I8, p[NPU_PL_ZX] = ri(-128, 127), p[NPU_PL_ZY] = ri(-60, 60);
		p[NPU_PL_LO] = ri(0, 2) ? -128 : ri(-128, 0), p[NPU_PL_HI] = ri(0, 2) ? 127 : ri(1, 127);
		size_t nx = (size_t)N * H * W * C, ny = (size_t)N * OH * OW * C;
		int8_t *x = malloc(nx), *y = malloc(ny);
		for (size_t k = 0; k < nx; k++)
			x[k] = (int8_t)ri(-128, 127);
		void *a[NPU_MAX_ARGS] = {x, y};
		k_pool_nhwc_q(p, a, NULL);
		rows++;
		for (int n = 0; n < N && ok; n++)
			for (int oh = 0; oh < OH && ok; oh++)
				for (int ow = 0; ow < OW && ok; ow++)
					for (int c = 0; c < C && ok; c++) {
						int h0 = oh * SH - PT, w0 = ow * SW - PL, cells = 0, cnt;
						int64_t sum = 0, mx = -1000;
						for (int ih = h0; ih < h0 + KH; ih++)
							for (int iw = w0; iw < w0 + KW; iw++)
								if (ih >= 0 && ih < H && iw >= 0 && iw < W) {
									int v = x[(((size_t)n * H + ih) * W + iw) * C + c];
									sum += v - p[NPU_PL_ZX], mx = v > mx ? v : mx, cells++;
								}
						if (p[NPU_PL_COUNT_PAD]) {	/* padding cells count, the overhang not */
							int a0 = h0 < -PT ? -PT : h0, a1 = h0 + KH > H + PB ? H + PB : h0 + KH;
							int b0 = w0 < -PL ? -PL : w0, b1 = w0 + KW > W + PR ? W + PR : w0 + KW;
							cnt = (a1 > a0 ? a1 - a0 : 0) * (b1 > b0 ? b1 - b0 : 0);
						} else {
							cnt = cells;
						}
						int64_t r;
						if (avg) {
							int64_t d = cnt > 0 ? cnt : 1, m = sum < 0 ? -sum : sum, q = (2 * m + d) / (2 * d);
							r = p[NPU_PL_ZY] + (sum < 0 ? -q : q);
						} else {
							r = cells ? mx : p[NPU_PL_ZY];
						}
						r = r < p[NPU_PL_LO] ? p[NPU_PL_LO] : r > p[NPU_PL_HI] ? p[NPU_PL_HI] : r;
						int8_t got = y[(((size_t)n * OH + oh) * OW + ow) * C + c];
						if (got != r) {
							printf("# nhwc pool %s y[%d,%d,%d,%d] = %d, want %d (C%d %dx%d k%dx%d s%d,%d p%d,%d,%d,%d)\n",
							       avg ? "avg" : "max", n, oh, ow, c, got, (int)r, C, H, W, KH, KW, SH, SW, PT,
							       PL, PB, PR);
							ok = 0;
						}
					}
		free(x), free(y);
	}
	*nrows = rows;
	return ok;
}
/* ---- preluq: int8 PReLU (PRELU_Q's rt_uq path, and the int64 one it
 * leaves to: shifts too small or too large, multipliers below 0) against
 * its definition: channel-last and channel-first slopes per channel,
 * zero points, clamps, extremes ---- */
static int prelu_cases(int *nfast)
{
	int ok = 1, fast = 0;
	for (int i = 0; i < 300 && ok; i++) {
		int C = ri(1, 24), P = ri(1, 40), last = ri(0, 1);	/* pixels x channels, channels innermost or not */
		int32_t p[NPU_PR_COUNT] = {0}, n = C * P;
		int32_t *cnt = p + NPU_PR_COUNTS, *sa = p + NPU_PR_SA, *sb = p + NPU_PR_SB;
		for (int d = 0; d < NPU_WALK_DIMS; d++)
			cnt[d] = 1;
		if (last)	/* [P][C], slope c */
			cnt[4] = P, cnt[5] = C, sa[4] = C, sa[5] = 1, sb[5] = 1;
		else	/* [C][P], slope c */
			cnt[4] = C, cnt[5] = P, sa[4] = P, sa[5] = 1, sb[4] = 1;
		p[NPU_PR_AT] = p[NPU_PR_BT] = p[NPU_PR_YT] = NPU_T_I8;
		p[NPU_PR_ZA] = ri(0, 5) ? ri(-128, 127) : ri(0, 1) ? -128 : 127, p[NPU_PR_ZB] = ri(-128, 127);
		p[NPU_PR_ZY] = ri(-100, 100), p[NPU_PR_LO] = ri(0, 3) ? -128 : ri(-128, 0), p[NPU_PR_HI] = ri(0, 3) ? 127 : ri(1, 127);
		p[NPU_PR_MP] = ri(0, 9) ? ri(1 << 29, 0x7fffffff) : ri(0, 1) ? 0 : -ri(1, 1 << 30);
		p[NPU_PR_MN] = ri(0, 9) ? ri(1 << 29, 0x7fffffff) : ri(0, 1) ? 0 : -ri(1, 1 << 30);
		p[NPU_PR_SP] = ri(0, 9) ? ri(28, 40) : ri(0, 1) ? ri(0, 8) : ri(41, 62);
		p[NPU_PR_SN] = ri(0, 9) ? ri(33, 48) : ri(0, 1) ? ri(0, 16) : ri(49, 62);
		fast += p[NPU_PR_MP] >= 0 && p[NPU_PR_MN] >= 0 && p[NPU_PR_SP] >= 9 && p[NPU_PR_SN] >= 17;
		int8_t *x = malloc((size_t)n), *al = malloc((size_t)C), *y = malloc((size_t)n);
		for (int j = 0; j < n; j++)
			x[j] = (int8_t)(ri(0, 7) ? ri(-128, 127) : ri(0, 1) ? -128 : 127);
		for (int c = 0; c < C; c++)
			al[c] = (int8_t)ri(-128, 127);
		void *a[NPU_MAX_ARGS] = {x, al, y};
		k_prelu_q(p, a, NULL);
		for (int j = 0; j < n && ok; j++) {
			int c = last ? j % C : j / P;
			int64_t da = x[j] - p[NPU_PR_ZA], db = al[c] - p[NPU_PR_ZB];
			int64_t v = da >= 0 ? npu_rshift_round(da * p[NPU_PR_MP], p[NPU_PR_SP])
					    : npu_rshift_round(da * db * p[NPU_PR_MN], p[NPU_PR_SN]);
			v += p[NPU_PR_ZY];
			v = v < p[NPU_PR_LO] ? p[NPU_PR_LO] : v > p[NPU_PR_HI] ? p[NPU_PR_HI] : v;
			if (y[j] != v) {
				printf("# prelu y[%d] = %d, want %d (x %d, slope %d; ZA %d ZB %d ZY %d, MP %d >> %d, MN %d >> %d)\n", j,
				       y[j], (int)v, x[j], al[c], p[NPU_PR_ZA], p[NPU_PR_ZB], p[NPU_PR_ZY], p[NPU_PR_MP], p[NPU_PR_SP],
				       p[NPU_PR_MN], p[NPU_PR_SN]);
				ok = 0;
			}
		}
		free(x), free(al), free(y);
	}
	*nfast = fast;
	return ok;
}

/* ---- nhwcamx end ---- */

/* ---- amx: wide rows for the AMX staging (16 interior pixels of a row
 * transposed from x, windows elsewhere), channel counts around the tile
 * blocks (1-4 packed blocks of 8 per pass, a partial last one), K around
 * multiples of 64 ---- */
static int amx_cases(int *paths)
{
	int ok = 1, path;
	static const shape fixed[] = {
		{1, 64, 6, 40, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0},	/* resnet-like, rows of 40 */
		{2, 16, 5, 37, 41, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1, NPU_T_I8, 2},	/* 5x5, 6 blocks */
		{1, 7, 9, 33, 9, 3, 3, 1, 1, 0, 0, 0, 0, 2, 1, 1, NPU_T_I16, 1},	/* row dilation, no padding */
		{1, 9, 4, 50, 17, 2, 4, 1, 1, 1, 3, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* asymmetric window and pads */
		{1, 3, 20, 20, 20, 7, 7, 1, 1, 3, 3, 3, 3, 1, 1, 1, NPU_T_I8, 2},	/* 7x7, K = 147 */
		{1, 32, 4, 18, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 2, 2, NPU_T_I8, 2},	/* grouped, column dilation */
		{1, 128, 3, 17, 33, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 1},	/* K = 128 exactly */
		{1, 65, 5, 21, 8, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* K = 65 */
		{1, 16, 3, 64, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0},	/* K = 144 */
		/* tiles of 16 channels x 16 pixels, 2 x 2 per step: 1x1 of K
		 * under 64 (narrow tiles), 5 and 9 blocks (a group of 4 and a
		 * rest), K past a multiple of 64 (the last step moved back),
		 * K over CQ_AWK (weights regrouped twice), stride 2, a grouped
		 * 1x1, and one with weight zero points (single pixel tiles) */
		{1, 16, 20, 30, 40, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},
		{1, 24, 12, 40, 72, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},
		{1, 200, 6, 30, 48, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},
		{1, 72, 5, 9, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0},
		{1, 32, 10, 33, 24, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0},
		{2, 40, 7, 21, 60, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 2, NPU_T_I8, 0},
		{1, 24, 12, 40, 72, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 1},
		/* output rows of 64 pixels and more (cq_bstage's zmm rows):
		 * stride 1 and 2, pads both sides, column dilation */
		{1, 8, 5, 80, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0},
		{1, 3, 9, 150, 20, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1, NPU_T_I8, 0},
		{1, 5, 4, 140, 12, 3, 5, 1, 1, 1, 2, 1, 2, 1, 2, 1, NPU_T_I8, 0},
	};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		ok &= one(&fixed[i], &path);
		paths[path]++;
	}
	for (int i = 0; i < 40; i++) {
		shape s = {ri(1, 2), ri(1, 48), ri(1, 8), ri(16, 50), ri(1, 40), ri(1, 5), ri(1, 5), 1, 1,
			   0, 0, 0, 0, ri(1, 2), 1, 1, NPU_T_I8, 0, 0};
		s.PT = ri(0, s.KH - 1), s.PB = ri(0, s.KH - 1), s.PL = ri(0, s.KW - 1), s.PR = ri(0, s.KW - 1);
		s.SH = ri(1, 2), s.SW = ri(0, 3) ? 1 : 2;
		s.YT = ri(0, 4) ? NPU_T_I8 : NPU_T_I16;
		s.wz = ri(0, 3) ? ri(0, 1) : 2;
		s.smax = ri(0, 2) ? 0 : ri(4000, 20000);	/* K in chunks */
		ok &= one(&s, &path);
		paths[path]++;
	}
	return ok;
}

/* CONV_F's fast float32 path (cf_conv, cf_depthwise: blocks of 16 output
 * channels x pixels, or rows of pixels, in SIMD lanes) against the
 * reference loop (cf_reference) on random shapes: the same sums in the
 * same order, so the same bits (the sign of zero included) */
static int f_left_out;	/* float cases too large for a board's RAM (TEST_SIMD_SCRATCH) */
static float rf(void) { return (float)((int)(rnd() % 2001) - 1000) / 256.0f; }
/* a full 24-bit mantissa in [-2, 2): products and sums that round (rf's
 * are mostly exact, where fused and unfused sums agree) */
static float rfm(void) { return (float)((int32_t)rnd() - (1 << 23)) / (float)(1 << 22); }
/* whether cf_mac rounds once: (1 + 2^-12)^2 - 1 is 2^-11 + 2^-24 fused,
 * 2^-11 with the product rounded first (volatile: computed at run time) */
static int cf_fused(void)
{
	volatile float a = 1.0f + 1.0f / 4096, m1 = -1.0f;
	return cf_mac(m1, a, a) != 1.0f / 2048;
}
/* a fixed float case: N C H W OC KH KW SH SW PT PB PL PR DH DW G, then
 * the activation (as one_f draws it: 0 none, 1 clip 0..6, 2 sigmoid, 3
 * ReLU), int8 weights, full-mantissa values */
typedef struct {
	int N, C, H, W, OC, KH, KW, SH, SW, PT, PB, PL, PR, DH, DW, G, act, i8, full;
} fshape;
static int f_packed;	/* float cases also run on packed weights */
static int one_f(int dw, const fshape *fx, int *fast)
{
	int N = ri(1, 2), G = 1, C, OC, KH = ri(1, 4), KW = ri(1, 4), SH = ri(1, 3), SW = ri(1, 3);
	int DH = ri(1, 2), DW = ri(1, 2), H = ri(1, 12), W = ri(1, 30);
	int PT = ri(0, KH), PB = ri(0, KH), PL = ri(0, KW), PR = ri(0, KW);
	if (fx) {
		N = fx->N, C = fx->C, H = fx->H, W = fx->W, OC = fx->OC, KH = fx->KH, KW = fx->KW, SH = fx->SH;
		SW = fx->SW, PT = fx->PT, PB = fx->PB, PL = fx->PL, PR = fx->PR, DH = fx->DH, DW = fx->DW, G = fx->G;
	} else if (dw) {
		C = OC = G = ri(1, 20);
		if (ri(0, 1))
			KH = KW = 3, DH = DW = 1, SH = SW = ri(1, 2), PT = PB = PL = PR = 1;
	} else {
		G = ri(0, 3) ? 1 : ri(1, 3), C = G * ri(1, 12), OC = G * ri(1, 40);
		if (ri(0, 2) == 0)	/* 1x1 over whole rows (one row of all pixels) */
			KH = KW = SH = SW = DH = DW = 1, PT = PB = PL = PR = 0, W = ri(1, 40);
	}
	int OH = (H + PT + PB - DH * (KH - 1) - 1) / SH + 1, OW = (W + PL + PR - DW * (KW - 1) - 1) / SW + 1;
	*fast = 0;
	if (OH < 1 || OW < 1)
		return 1;
	int32_t p[NPU_CV_COUNT] = {0};
	p[NPU_CV_N] = N, p[NPU_CV_C] = C, p[NPU_CV_H] = H, p[NPU_CV_W] = W, p[NPU_CV_OC] = OC;
	p[NPU_CV_OH] = OH, p[NPU_CV_OW] = OW, p[NPU_CV_KH] = KH, p[NPU_CV_KW] = KW;
	p[NPU_CV_SH] = SH, p[NPU_CV_SW] = SW, p[NPU_CV_PT] = PT, p[NPU_CV_PL] = PL;
	p[NPU_CV_DH] = DH, p[NPU_CV_DW] = DW, p[NPU_CV_G] = G;
	int i8 = ri(0, 3) == 0, act = ri(0, 3);
	if (fx)
		i8 = fx->i8, act = fx->act;
	p[NPU_CV_XT] = NPU_T_F32, p[NPU_CV_WT] = i8 ? NPU_T_I8 : NPU_T_F32, p[NPU_CV_YT] = NPU_T_F32;
	p[NPU_CV_LO] = (int32_t)npu_f32_bits(act == 1 ? 0.0f : -INFINITY);
	p[NPU_CV_HI] = (int32_t)npu_f32_bits(act == 1 ? 6.0f : INFINITY);
	p[NPU_CV_ACT] = act == 2 ? NPU_U_SIGMOID : act == 3 ? NPU_U_RELU : -1;
	size_t nx = (size_t)N * C * H * W, nw = (size_t)OC * (C / G) * KH * KW, ny = (size_t)N * OC * OH * OW;
#if defined(TEST_SIMD_SCRATCH)	/* a board's RAM: the scratch bounded, cases beyond the heap left out (counted) */
	p[NPU_CV_SMAX] = TEST_SIMD_SCRATCH;
	if (4 * nx + 5 * nw + 8 * ny + npu_scratch_size(NPU_K_CONV_F, p) > 3 * (size_t)TEST_SIMD_SCRATCH) {
		f_left_out++;
		return 1;
	}
#endif
	float *x = malloc(4 * nx), *w = malloc(4 * nw), *b = malloc(4 * (size_t)OC), *ws = malloc(4 * (size_t)OC);
	int8_t *wq = malloc(nw);
	float *y = malloc(4 * ny), *want = malloc(4 * ny);
	uint32_t ss = npu_scratch_size(NPU_K_CONV_F, p);
	uint8_t *scratch = malloc(ss + 16);
	int full = fx ? fx->full : ri(0, 1);
	for (size_t i = 0; i < nx; i++)
		x[i] = ri(0, 9) ? (full ? rfm() : rf()) : ri(0, 1) ? 0.0f : -0.0f;	/* zeros of both signs */
	for (size_t i = 0; i < nw; i++)
		w[i] = full ? rfm() : rf(), wq[i] = (int8_t)ri(-128, 127);
	for (int o = 0; o < OC; o++)
		b[o] = ri(0, 5) ? rf() : -0.0f, ws[o] = rf() / 64;
	if (!fx && dw && ri(0, 7) == 0)	/* an infinite weight: 0 inf is NaN where the reference skips the tap */
		w[ri(0, (int)nw - 1)] = ri(0, 1) ? INFINITY : -INFINITY;
	int hasb = ri(0, 3) != 0;
	void *a[NPU_MAX_ARGS] = {x, i8 ? (void *)wq : (void *)w, hasb ? b : NULL, i8 ? ws : NULL, want};
	memset(scratch, 0, ss + 16);
	cf_reference(p, a, scratch);
	a[4] = y;
	memset(scratch, 0xa5, ss + 16);
	k_conv_f(p, a, scratch);
	int ok = memcmp(y, want, 4 * ny) == 0;
	for (size_t i = ss; i < ss + 16; i++)
		ok &= scratch[i] == 0xa5;
	/* float32 weights packed as npu-emit packs them (NPU_CV_WPACK): the
	 * fast path and the reference loop on them, the same bits */
	size_t pk = i8 ? 0 : npu_conv_f_pack(p, NULL, NULL);
	if (pk) {
		float *wpk = malloc(pk);
		npu_conv_f_pack(p, w, wpk);
		p[NPU_CV_WPACK] = 1;
		a[1] = wpk;
		memset(y, 0x5a, 4 * ny);
		k_conv_f(p, a, scratch);
		ok &= memcmp(y, want, 4 * ny) == 0;
		memset(y, 0x5a, 4 * ny);
		cf_reference(p, a, scratch);
		ok &= memcmp(y, want, 4 * ny) == 0;
		f_packed++;
		free(wpk);
	}
	*fast = cf_fast_scratch(p) != 0;
	if (!ok)
		printf("# float N%d C%d %dx%d OC%d k%dx%d s%d,%d p%d,%d d%d,%d g%d i8 %d act %d bias %d: differs\n", N, C, H,
		       W, OC, KH, KW, SH, SW, PT, PL, DH, DW, G, i8, act, hasb);
	free(x), free(w), free(b), free(ws), free(wq), free(y), free(want), free(scratch);
	return ok;
}

/* POOL_F's float32 row path (k_pool_f: the columns whose window is inside
 * the row, a tap at a time) against the definition: max from the first
 * cell, v > r ? v : r (NaN kept only first), average 0 + cells / count
 * (pl_window's count); random shapes, padding, ceil-mode overhang, zeros of
 * both signs and NaNs; same bits */
static int pool_f_cases(void)
{
	int fails = 0, rows = 0;
	for (int it = 0; it < 300; it++) {
		int N = ri(1, 2), C = ri(1, 3), H = ri(1, 20), W = ri(1, 60), KH = ri(1, 4), KW = ri(1, 4);
		int SH = ri(1, 3), SW = ri(1, 3), PT = ri(0, KH - 1), PL = ri(0, KW - 1);
		int PB = ri(0, KH - 1) + ri(0, 1), PR = ri(0, KW - 1) + ri(0, 1);	/* ceil mode: one more */
		int OH = (H + PT + PB - KH) / SH + 1, OW = (W + PL + PR - KW) / SW + 1;
		if (OH < 1 || OW < 1)
			continue;
		int32_t p[NPU_PL_COUNT] = {0};
		pool_geo(p, N, C, H, W, OH, OW, KH, KW, SH, SW, PT, PL, PB, PR);
		p[NPU_PL_MODE] = ri(0, 1) ? NPU_POOL_AVG : NPU_POOL_MAX, p[NPU_PL_COUNT_PAD] = ri(0, 1);
		p[NPU_PL_XT] = p[NPU_PL_YT] = NPU_T_F32;
		size_t nx = (size_t)N * C * H * W, ny = (size_t)N * C * OH * OW;
		float *x = malloc(4 * nx), *y = malloc(4 * ny), *want = malloc(4 * ny);
		for (size_t i = 0; i < nx; i++) {
			int k = ri(0, 19);
			x[i] = k == 0 ? 0.0f : k == 1 ? -0.0f : k == 2 ? NAN : rfm();
		}
		for (int nc = 0; nc < N * C; nc++)
			for (int oh = 0; oh < OH; oh++)
				for (int ow = 0; ow < OW; ow++) {
					pl_win w;
					pl_window(p, oh, ow, &w);
					float r = 0;
					int first = 1;
					for (int ih = w.ih0; ih < w.ih1; ih++)
						for (int iw = w.iw0; iw < w.iw1; iw++) {
							float v = x[((size_t)nc * H + ih) * W + iw];
							if (p[NPU_PL_MODE] == NPU_POOL_AVG)
								r += v;
							else if (first || v > r)
								r = v;
							first = 0;
						}
					if (p[NPU_PL_MODE] == NPU_POOL_AVG)
						r = r / (float)(w.count > 0 ? w.count : 1);
					want[((size_t)nc * OH + oh) * OW + ow] = r;
				}
		void *a[NPU_MAX_ARGS] = {x, y};
		k_pool_f(p, a, NULL);
		rows += OW > 2;
		if (memcmp(y, want, 4 * ny) != 0) {
			fails++;
			printf("# pool_f N%d C%d %dx%d k%dx%d s%d,%d p%d,%d,%d,%d mode %d count_pad %d: differs\n", N, C, H, W,
			       KH, KW, SH, SW, PT, PL, PB, PR, p[NPU_PL_MODE], p[NPU_PL_COUNT_PAD]);
		}
		free(x), free(y), free(want);
	}
	printf("# pool_f: %d failures, %d cases with rows of 3 outputs or more\n", fails, rows);
	return fails == 0 && rows > 100;
}

/* ELTWISE_F's float32 rows in vector lanes (ew_f_rows: operands
 * contiguous or broadcast along the row, ADD SUB MUL DIV MAX MIN, the
 * clamp, ReLU) against its element-at-a-time walk (ew_f_walk, the
 * reference), random walks, broadcasts, strides, every op and activation
 * kind, NaNs, infinities and zeros of both signs; same bits */
static float ew_rv(void)
{
	int k = ri(0, 15);
	return k == 0 ? 0.0f : k == 1 ? -0.0f : k == 2 ? NAN : k == 3 ? INFINITY : k == 4 ? -INFINITY : rfm();
}

static int ew_f_cases(void)
{
	int fails = 0, fast = 0;
	for (int it = 0; it < 600; it++) {
		int32_t cnt[6] = {1, 1, 1, ri(1, 3), ri(1, 4), ri(1, 70)}, st[2][6] = {{0}};
		size_t ny = (size_t)cnt[3] * cnt[4] * cnt[5], nx[2];
		for (int o = 0; o < 2; o++) {
			int m = ri(0, 5);	/* dense (twice), one value per row, one row for all, stride 2, a scalar */
			int32_t *s = st[o];
			if (m <= 1)
				s[5] = 1, s[4] = cnt[5], s[3] = cnt[4] * cnt[5];
			else if (m == 2)
				s[5] = 0, s[4] = 1, s[3] = cnt[4];
			else if (m == 3)
				s[5] = 1;
			else if (m == 4)
				s[5] = 2, s[4] = 2 * cnt[5], s[3] = 2 * cnt[4] * cnt[5];
			nx[o] = 1;
			for (int d = 3; d < 6; d++)
				nx[o] += (size_t)(cnt[d] - 1) * (size_t)s[d];
		}
		int32_t p[NPU_EW_COUNT] = {0};
		p[NPU_EW_OP] = ri(0, 9) < 8 ? ri(NPU_BIN_ADD, NPU_BIN_MIN) : ri(NPU_BIN_POW, NPU_BIN_PRELU);
		memcpy(p + NPU_EW_COUNTS, cnt, sizeof cnt);
		memcpy(p + NPU_EW_SA, st[0], sizeof st[0]);
		memcpy(p + NPU_EW_SB, st[1], sizeof st[1]);
		p[NPU_EW_AT] = p[NPU_EW_BT] = p[NPU_EW_YT] = NPU_T_F32;
		int c = ri(0, 4);	/* none, relu6-like, random (lo > hi too), NaN bounds */
		float lo = c == 0 ? -INFINITY : c == 1 ? 0.0f : c == 2 ? rf() : NAN;
		float hi = c == 0 ? INFINITY : c == 1 ? 6.0f : c == 2 ? rf() : c == 3 ? rf() : INFINITY;
		p[NPU_EW_LO] = (int32_t)npu_f32_bits(lo), p[NPU_EW_HI] = (int32_t)npu_f32_bits(hi);
		int k = ri(0, 5);
		p[NPU_EW_ACT] = k < 3 ? -1 : k < 5 ? NPU_U_RELU : NPU_U_CLIP;
		p[NPU_EW_P0] = (int32_t)npu_f32_bits(-1.0f), p[NPU_EW_P1] = (int32_t)npu_f32_bits(1.0f);
		float *x0 = malloc(4 * nx[0]), *x1 = malloc(4 * nx[1]), *y = malloc(4 * ny), *want = malloc(4 * ny);
		for (size_t i = 0; i < nx[0]; i++)
			x0[i] = ew_rv();
		for (size_t i = 0; i < nx[1]; i++)
			x1[i] = ri(0, 3) ? ew_rv() : x0[i < nx[0] ? i : 0];	/* equal values too */
		void *a[NPU_MAX_ARGS] = {x0, x1, want};
		ew_f_walk(p, a);
		a[2] = y;
		k_eltwise_f(p, a, NULL);
#if EW_VL > 0
		fast += ew_f_fast(p);
#endif
		if (memcmp(y, want, 4 * ny) != 0) {
			fails++;
			printf("# eltwise_f op %d %dx%dx%d strides a %d,%d,%d b %d,%d,%d lo %g hi %g act %d: differs\n",
			       p[NPU_EW_OP], cnt[3], cnt[4], cnt[5], st[0][3], st[0][4], st[0][5], st[1][3], st[1][4],
			       st[1][5], (double)lo, (double)hi, p[NPU_EW_ACT]);
		}
		free(x0), free(x1), free(y), free(want);
	}
	printf("# eltwise_f: %d failures, %d of 600 on the row path (%d lanes)\n", fails, fast, EW_VL);
	return fails == 0 && (EW_VL == 0 || fast > 100);
}

/* ---- convt: CONV_T_Q (transposed convolution) against its definition ---- */

static int ct_fast_runs;	/* convt: cases on ctq_fast (int32 rows) */

/* one random transposed convolution (ONNX ConvTranspose: x [N, C, H, W],
 * w [C, OC/G, KH, KW], output padding in y's size) through k_conv_t_q,
 * against the definition written out here as a scatter: every input
 * pixel adds x w[kh, kw] to y[ih SH - PT + kh DH, iw SW - PL + kw DW],
 * in int64 */
static int ct_one(int N, int C, int H, int W, int OC, int KH, int KW, int SH, int SW, int PT, int PL, int PB, int PR,
		  int DH, int DW, int OPH, int OPW, int G, int XT, int YT, int wz, int smax)
{
	int OH = (H - 1) * SH - PT - PB + DH * (KH - 1) + OPH + 1, OW = (W - 1) * SW - PL - PR + DW * (KW - 1) + OPW + 1;
	if (OH < 1 || OW < 1)
		return 1;
	int cg = C / G, og = OC / G;
	int32_t p[NPU_CV_COUNT] = {0};
	p[NPU_CV_N] = N, p[NPU_CV_C] = C, p[NPU_CV_H] = H, p[NPU_CV_W] = W, p[NPU_CV_OC] = OC;
	p[NPU_CV_OH] = OH, p[NPU_CV_OW] = OW, p[NPU_CV_KH] = KH, p[NPU_CV_KW] = KW;
	p[NPU_CV_SH] = SH, p[NPU_CV_SW] = SW, p[NPU_CV_PT] = PT, p[NPU_CV_PL] = PL;
	p[NPU_CV_DH] = DH, p[NPU_CV_DW] = DW, p[NPU_CV_G] = G;
	p[NPU_CV_XT] = XT, p[NPU_CV_WT] = NPU_T_I8, p[NPU_CV_YT] = YT, p[NPU_CV_ACT] = -1, p[NPU_CV_SMAX] = smax;
#if defined(TEST_SIMD_SCRATCH)
	if (p[NPU_CV_SMAX] == 0 || p[NPU_CV_SMAX] > TEST_SIMD_SCRATCH)
		p[NPU_CV_SMAX] = TEST_SIMD_SCRATCH;
#endif
	int32_t xlo = XT == NPU_T_I8 ? -128 : XT == NPU_T_U8 ? 0 : -32768, xhi = XT == NPU_T_I8 ? 127 : XT == NPU_T_U8 ? 255 : 32767;
	int32_t ylo = YT == NPU_T_I8 ? -128 : -32768, yhi = YT == NPU_T_I8 ? 127 : 32767;
	p[NPU_CV_ZX] = ri(xlo, xhi), p[NPU_CV_ZY] = ri(ylo / 2, yhi / 2);
	p[NPU_CV_LO] = ri(0, 3) ? ylo : ri(ylo, 0), p[NPU_CV_HI] = ri(0, 3) ? yhi : ri(1, yhi);
	size_t nx = (size_t)N * C * H * W, nw = (size_t)C * og * KH * KW, ny = (size_t)N * OC * OH * OW;
	uint32_t ss = npu_scratch_size(NPU_K_CONV_T_Q, p);
	int16_t *x = malloc(2 * nx + 1), *y = malloc(2 * ny), *want = malloc(2 * ny);
	int8_t *w = malloc(nw);
	int32_t *bias = malloc(4 * (size_t)OC), *mult = malloc(4 * (size_t)OC), *shift = malloc(4 * (size_t)OC);
	int32_t *wzp = malloc(4 * (size_t)OC);
	int64_t *acc = malloc(8 * ny);
	uint8_t *scratch = malloc(ss + 16);
	int ok = 1, big = XT == NPU_T_I16 ? 8 : 0;
	for (size_t i = 0; i < nx; i++) {
		int32_t v = ri(xlo, xhi);
		if (XT == NPU_T_I8)
			((int8_t *)x)[i] = (int8_t)v;
		else if (XT == NPU_T_U8)
			((uint8_t *)x)[i] = (uint8_t)v;
		else
			x[i] = (int16_t)v;
	}
	for (size_t i = 0; i < nw; i++)
		w[i] = (int8_t)ri(-128, 127);
	for (int o = 0; o < OC; o++) {
		bias[o] = ri(0, 9) ? ri(-(1 << 20), 1 << 20) : ri(-(1 << 30) + 1, (1 << 30) - 1);
		mult[o] = ri(1 << 29, (1 << 30) + (1 << 29));
		shift[o] = 30 + ri(6, 14) + (YT == NPU_T_I16 ? -6 : 0) + big;
		wzp[o] = wz == 2 ? ri(-128, 127) : wz == 3 ? (o % 2 ? 200 : -3) : 0;
	}
	/* the definition */
	for (int n = 0; n < N; n++)
		for (int oc = 0; oc < OC; oc++)
			for (int i = 0; i < OH * OW; i++)
				acc[((size_t)n * OC + oc) * OH * OW + i] = bias[oc];
	for (int n = 0; n < N; n++)
		for (int c = 0; c < C; c++)
			for (int ih = 0; ih < H; ih++)
				for (int iw = 0; iw < W; iw++) {
					size_t xi = (((size_t)n * C + c) * H + ih) * W + iw;
					int64_t xv = (XT == NPU_T_I8 ? ((int8_t *)x)[xi] : XT == NPU_T_U8 ? ((uint8_t *)x)[xi] : x[xi]) -
						     (int64_t)p[NPU_CV_ZX];
					for (int o = 0; o < og; o++) {
						int oc = c / cg * og + o;
						for (int kh = 0; kh < KH; kh++)
							for (int kw = 0; kw < KW; kw++) {
								int oh = ih * SH - PT + kh * DH, ow = iw * SW - PL + kw * DW;
								if (oh < 0 || oh >= OH || ow < 0 || ow >= OW)
									continue;
								int64_t wv = w[(((size_t)c * og + o) * KH + kh) * KW + kw] - (int64_t)(wz ? wzp[oc] : 0);
								acc[(((size_t)n * OC + oc) * OH + oh) * OW + ow] += xv * wv;
							}
					}
				}
	for (size_t i = 0; i < ny; i++) {
		int oc = (int)(i / ((size_t)OH * OW) % (size_t)OC);
		int64_t v = p[NPU_CV_ZY] + npu_rshift_round(acc[i] * mult[oc], shift[oc]);
		want[i] = (int16_t)(v < p[NPU_CV_LO] ? p[NPU_CV_LO] : v > p[NPU_CV_HI] ? p[NPU_CV_HI] : v);
	}
	int zok = 1;
	for (int oc = 0; wz && oc < OC; oc++)
		zok &= wzp[oc] >= -128 && wzp[oc] <= 127;
	ct_fast_runs += ss > 0 && zok;
	memset(scratch, 0xa5, ss + 16);
	void *a[NPU_MAX_ARGS] = {x, w, bias, mult, shift, wz ? wzp : NULL, y};
	k_conv_t_q(p, a, ss ? scratch : NULL);
	for (size_t i = ss; i < ss + 16; i++)
		ok &= scratch[i] == 0xa5;	/* nothing written past the scratch it asked for */
	if (smax > 0 && ss > (uint32_t)smax) {
		printf("# convt: scratch %u over the budget %d\n", (unsigned)ss, smax);
		ok = 0;
	}
	for (size_t i = 0; i < ny && ok; i++) {
		int32_t got = YT == NPU_T_I8 ? ((int8_t *)y)[i] : y[i];
		if (got != want[i]) {
			printf("# convt: y[%zu] = %d, want %d\n", i, (int)got, (int)want[i]);
			ok = 0;
		}
	}
	if (!ok)
		printf("# convt: N%d C%d %dx%d OC%d k%dx%d s%d,%d p%d,%d,%d,%d d%d,%d op%d,%d g%d xt%d yt%d wz%d smax %d\n", N, C,
		       H, W, OC, KH, KW, SH, SW, PT, PL, PB, PR, DH, DW, OPH, OPW, G, XT, YT, wz, smax);
	free(x), free(y), free(want), free(w), free(bias), free(mult), free(shift), free(wzp), free(acc), free(scratch);
	return ok;
}

/* fixed shapes (the families' upsampling layers, the tap bound) and
 * random ones: strides 1-3, padding, output padding, dilation, groups,
 * depthwise, odd channels, uint8 and int16 inputs, weight zero points
 * (beyond int8: the generic loop), scratch budgets below a row */
static int convt_cases(void)
{
	int fails = 0, n = 0;
	static const int fixed[][22] = {
		/* N C H W OC KH KW SH SW PT PL PB PR DH DW OPH OPW G XT YT wz smax */
		{1, 16, 8, 8, 8, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0, 0, 1, NPU_T_I8, NPU_T_I8, 0, 0},
		{1, 12, 7, 9, 6, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 1, NPU_T_I8, NPU_T_I8, 2, 0},
		{1, 8, 6, 5, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_U8, NPU_T_I8, 0, 0},
		{2, 6, 5, 7, 9, 3, 3, 3, 3, 0, 2, 1, 0, 2, 2, 2, 1, 3, NPU_T_I8, NPU_T_I16, 2, 0},
		{1, 1024, 2, 2, 2, 4, 4, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, NPU_T_I8, NPU_T_I8, 2, 0},	/* 16384 taps: the bound */
		{1, 1025, 2, 2, 2, 4, 4, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, NPU_T_I8, NPU_T_I8, 2, 0},	/* beyond: generic */
		{1, 5, 6, 6, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 5, NPU_T_I8, NPU_T_I8, 3, 0},	/* wz 200: generic */
		{1, 4, 5, 40, 4, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0, 0, 1, NPU_T_I8, NPU_T_I8, 0, 64},	/* budget below a row */
	};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++, n++) {
		const int *f = fixed[i];
		fails += !ct_one(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], f[13], f[14],
				 f[15], f[16], f[17], f[18], f[19], f[20], f[21]);
	}
	for (int i = 0; i < 300; i++, n++) {
		int G = ri(0, 3) ? 1 : ri(1, 4), dw = ri(0, 9) == 0;
		int C = G * ri(1, 9), OC = G * ri(1, 9);
		if (dw)
			G = C = OC = ri(1, 9);
		int KH = ri(1, 5), KW = ri(1, 5), SH = ri(1, 3), SW = ri(1, 3), DH = ri(1, 2), DW = ri(1, 2);
		int PT = ri(0, KH - 1), PB = ri(0, KH - 1), PL = ri(0, KW - 1), PR = ri(0, KW - 1);
		int OPH = ri(0, (SH > DH ? SH : DH) - 1), OPW = ri(0, (SW > DW ? SW : DW) - 1);
		int k = ri(0, 9), XT = k < 6 ? NPU_T_I8 : k < 9 ? NPU_T_U8 : NPU_T_I16;
		int YT = ri(0, 4) ? NPU_T_I8 : NPU_T_I16, wz = ri(0, 9) ? ri(0, 2) : 3;
		int smax = ri(0, 5) ? 0 : ri(1, 200);
		fails += !ct_one(ri(1, 2), C, ri(1, 9), ri(1, 13), OC, KH, KW, SH, SW, PT, PL, PB, PR, DH, DW, OPH, OPW, G,
				 XT, YT, wz, smax);
	}
	printf("# convt: %d of %d transposed convolutions on the int32 row path\n", ct_fast_runs, n);
	CHECK(ct_fast_runs > n / 2 && ct_fast_runs < n);
	CHECK_MSG(fails == 0, "%d of %d transposed convolutions differ from the definition", fails, n);
	return fails == 0;
}
/* RESIZE on int8 / uint8 (rs_q8's rows and the loop they bypass): random
 * tables (nearest, and linear with Q15 weights summing to 2^15 or any
 * within +-2^15 per axis, some beyond: the loop) against the definition,
 * y = rshift_round(sum_b ww[b] sum_a wh[a] x[ih[a], iw[b]], 30) */
static int resize_cases(void)
{
	int fails = 0, q8 = 0;
	for (int it = 0; it < 300; it++) {
		int32_t outer = ri(1, 5), H = ri(1, 9), W = ri(1, 11), OH = ri(1, 20), OW = ri(1, 30), K = ri(1, 2);
		int32_t XT = ri(0, 2) ? NPU_T_I8 : NPU_T_U8, wide = ri(0, 9) == 0;
		int32_t p[NPU_RS_COUNT] = {0};
		p[NPU_RS_OUTER] = outer, p[NPU_RS_H] = H, p[NPU_RS_W] = W, p[NPU_RS_OH] = OH, p[NPU_RS_OW] = OW;
		p[NPU_RS_K] = K, p[NPU_RS_XT] = XT, p[NPU_RS_YT] = XT, p[NPU_RS_ELEM] = 1;
		size_t nx = (size_t)outer * H * W, ny = (size_t)outer * OH * OW;
		int32_t *th = malloc(8 * (size_t)K * OH), *tw = malloc(8 * (size_t)K * OW);
		uint8_t *x = malloc(nx), *y = malloc(ny);
		for (size_t i = 0; i < nx; i++)
			x[i] = (uint8_t)ri(0, 255);
		for (int ax = 0; ax < 2; ax++) {
			int32_t *t = ax ? tw : th, no = ax ? OW : OH, ni = ax ? W : H;
			for (int32_t o = 0; o < no; o++) {
				int32_t *r = t + (size_t)o * 2 * K;
				for (int32_t i = 0; i < K; i++)
					r[i] = ri(0, ni - 1);
				if (K == 2) {
					int32_t w0 = ri(0, 3) ? ri(0, 32768) : ri(-32768, 32768);
					r[2] = w0, r[3] = ri(0, 3) ? 32768 - w0 : ri(-32768, 32768);
					if (wide && ax == 0 && o == OH - 1)
						r[3] = 40000;	/* beyond rs_q8's bound: the loop */
				}
			}
		}
		int fast = K == 1 || !wide;
		q8 += fast;
		void *a[NPU_MAX_ARGS] = {x, th, tw, y};
		k_resize(p, a, NULL);
		int ok = 1;
		for (int32_t n = 0; n < outer && ok; n++)
			for (int32_t oh = 0; oh < OH && ok; oh++)
				for (int32_t ow = 0; ow < OW && ok; ow++) {
					const int32_t *rh = th + (size_t)oh * 2 * K, *rw = tw + (size_t)ow * 2 * K;
					int64_t acc = 0;
					for (int32_t b = 0; b < K; b++)
						for (int32_t i = 0; i < K; i++) {
							size_t xi = ((size_t)n * H + rh[i]) * W + rw[b];
							int64_t xv = XT == NPU_T_I8 ? (int8_t)x[xi] : x[xi];
							acc += (K == 2 ? (int64_t)rw[K + b] * rh[K + i] : 1 << 30) * xv;
						}
					int32_t want = (int32_t)npu_rshift_round(acc, 30);
					size_t yi = ((size_t)n * OH + oh) * OW + ow;
					int32_t got = XT == NPU_T_I8 ? (int8_t)y[yi] : y[yi];
					want = XT == NPU_T_I8 ? (int8_t)want : (uint8_t)want;
					if (got != want) {
						printf("# resize: %dx%d -> %dx%d K %d xt %d: y[%zu] = %d, want %d\n", H, W, OH, OW, K, XT, yi,
						       got, want);
						ok = 0;
					}
				}
		fails += !ok;
		free(th), free(tw), free(x), free(y);
	}
	printf("# resize: %d of 300 int8/uint8 resizes on rs_q8's rows\n", q8);
	CHECK(q8 > 200 && q8 < 300);
	CHECK_MSG(fails == 0, "%d of 300 resizes differ from the definition", fails);
	return fails == 0;
}
/* ---- convt end ---- */

/* ---- dw512: the 3x3 depthwise on AVX-512 VNNI + VBMI (cq_dw512: column
 * dilation 1, stride 1 or 2, int8 output, 16 outputs a row per vector
 * under masks, requantized in registers) against the definition, on every
 * build (elsewhere the other depthwise paths run the same cases): rows
 * shorter than a vector, of several vectors and a partial one, every
 * padding (wider than the kernel too), row strides 1 to 3, row dilation,
 * 1 channel, odd channel counts, weights whose w - z leaves int8 (the
 * fallback), int16 outputs (not taken) */
static int dw512_cases(void)
{
	static const shape fix[] = {
		{1, 4, 112, 112, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4, NPU_T_I8, 0},	/* mobilenet_v2's first */
		{1, 3, 113, 113, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3, NPU_T_I8, 1},	/* odd, stride 2 */
		{1, 5, 14, 14, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5, NPU_T_I8, 2},
		{1, 9, 7, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 9, NPU_T_I8, 0},
		{1, 7, 14, 14, 7, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 7, NPU_T_I8, 2},	/* TF-style pads */
		{1, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0},	/* 1 pixel: only the centre tap */
		{1, 1, 5, 33, 1, 3, 3, 3, 2, 4, 4, 4, 4, 3, 1, 1, NPU_T_I8, 1},	/* rows and columns wholly in padding */
		{2, 3, 9, 16, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, NPU_T_I8, 3},	/* w - z beyond int8 */
		{1, 3, 9, 50, 3, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, 3, NPU_T_I16, 2},	/* int16 out */
	};
	int nf = (int)(sizeof fix / sizeof fix[0]), n = nf + 250, fails = 0, taken = 0;
	for (int i = 0; i < n; i++) {
		shape s;
		if (i < nf) {
			s = fix[i];
		} else {
			s.N = ri(1, 2), s.C = ri(0, 4) ? ri(1, 13) : 1;
			s.KH = s.KW = 3, s.DW = 1, s.DH = ri(0, 3) ? 1 : ri(2, 3);
			s.SW = ri(1, 2), s.SH = ri(0, 3) ? s.SW : ri(1, 3);
			s.H = ri(1, 14), s.W = ri(0, 2) ? ri(1, 40) : ri(41, 130);
			s.PT = ri(0, 4), s.PB = ri(0, 4), s.PL = ri(0, 4), s.PR = ri(0, 4);
			if (ri(0, 1))
				s.PT = s.PB = s.PL = s.PR = 1;
			s.G = s.C, s.OC = s.C;
			s.YT = ri(0, 9) ? NPU_T_I8 : NPU_T_I16;
			s.wz = ri(0, 9) ? ri(0, 1) : ri(2, 3);	/* 2: mostly w - z beyond int8 */
			s.smax = ri(0, 3) ? 0 : ri(1, 100);
		}
		int32_t p[NPU_CV_COUNT] = {0};
		int path;
		cq_geo g = {0};
		if (conv_params(&s, p)) {
			p[NPU_CV_SMAX] = s.smax;
			cq_geometry(p, &g);
		}
		fails += !one(&s, &path);
#if defined(CQ_DW512)
		taken += path == CQ_DEPTHWISE && cq_dw512_geo(&g, s.YT) && s.wz < 2;
#else
		taken += path == CQ_DEPTHWISE && s.YT == NPU_T_I8 && s.wz < 2;	/* the same cases, on this build's paths */
#endif
	}
	printf("# dw512: %d failures in %d 3x3 depthwise cases, %d of them int8 with weight zero points 0 (cq_dw512 %s)\n", fails,
	       n, taken,
#if defined(CQ_DW512)
	       "on"
#else
	       "not built"
#endif
	);
	return fails == 0 && taken > n / 2;
}

/* k_pool_q on x into y (ny bytes) equals want, and writes nothing past
 * its scratch */
static int pool_q_same(const int32_t *p, int8_t *x, int8_t *y, const int8_t *want, size_t ny)
{
	uint32_t ss = npu_scratch_size(NPU_K_POOL_Q, p);
	uint8_t *sc = malloc(ss + 16);
	memset(sc, 0xa5, ss + 16);
	void *a[NPU_MAX_ARGS] = {x, y};
	k_pool_q(p, a, sc);
	int ok = memcmp(y, want, ny) == 0;
	for (size_t i = ss; i < ss + 16; i++)
		ok &= sc[i] == 0xa5;	/* nothing past its scratch */
	free(sc);
	return ok;
}

/* int8 max pooling (k_pool_q: pq_max_i8's rows, on AVX-512 BW pq_row512
 * for column strides 1 and 2) against the definition: the largest cell
 * of each window's part inside x, clamped to [LO, HI]; rows longer than a
 * vector, ceil-mode windows past the right edge, padding, strides 1 to 3 */
static int pool_q_cases(void)
{
	int fails = 0, n = 0, wide = 0;
	for (int it = 0; it < 300; it++) {
		int N = ri(1, 2), C = ri(1, 3), H = ri(1, 20), W = ri(0, 2) ? ri(1, 60) : ri(61, 200), KH = ri(1, 4);
		int KW = ri(1, 4), SH = ri(1, 3), SW = ri(0, 3) ? ri(1, 2) : 3, PT = ri(0, KH - 1), PL = ri(0, KW - 1);
		int PB = ri(0, KH - 1) + ri(0, 1), PR = ri(0, KW - 1) + ri(0, 1);	/* ceil mode: one more */
		int OH = (H + PT + PB - KH) / SH + 1, OW = (W + PL + PR - KW) / SW + 1;
		if (OH < 1 || OW < 1)
			continue;
		int32_t p[NPU_PL_COUNT] = {0};
		pool_geo(p, N, C, H, W, OH, OW, KH, KW, SH, SW, PT, PL, PB, PR);
		p[NPU_PL_MODE] = NPU_POOL_MAX;
		p[NPU_PL_XT] = p[NPU_PL_YT] = NPU_T_I8, p[NPU_PL_ZX] = p[NPU_PL_ZY] = ri(-128, 127);
		p[NPU_PL_LO] = ri(0, 2) ? -128 : ri(-128, 0), p[NPU_PL_HI] = ri(0, 2) ? 127 : ri(1, 127);
		size_t nx = (size_t)N * C * H * W, ny = (size_t)N * C * OH * OW;
		int8_t *x = malloc(nx), *y = malloc(ny), *want = malloc(ny);
		for (size_t i = 0; i < nx; i++)
			x[i] = (int8_t)ri(-128, 127);
		for (int nc = 0; nc < N * C; nc++)
			for (int oh = 0; oh < OH; oh++)
				for (int ow = 0; ow < OW; ow++) {
					int r = -129;
					for (int ih = oh * SH - PT; ih < oh * SH - PT + KH; ih++)
						for (int iw = ow * SW - PL; iw < ow * SW - PL + KW; iw++)
							if (ih >= 0 && ih < H && iw >= 0 && iw < W && x[((size_t)nc * H + ih) * W + iw] > r)
								r = x[((size_t)nc * H + ih) * W + iw];
					if (r == -129)	/* no cell: the zero point */
						r = p[NPU_PL_ZY];
					want[((size_t)nc * OH + oh) * OW + ow] =
						(int8_t)(r < p[NPU_PL_LO] ? p[NPU_PL_LO] : r > p[NPU_PL_HI] ? p[NPU_PL_HI] : r);
				}
		int ok = pool_q_same(p, x, y, want, ny);
		if (!ok) {
			fails++;
			printf("# pool_q N%d C%d %dx%d k%dx%d s%d,%d p%d,%d,%d,%d: differs\n", N, C, H, W, KH, KW, SH, SW, PT,
			       PL, PB, PR);
		}
		n++, wide += W > 64 && SW <= 2;
		free(x), free(y), free(want);
	}
	printf("# pool_q: %d failures in %d int8 max poolings, %d with rows longer than 64 at column stride 1 or 2\n",
	       fails, n, wide);
	return fails == 0 && n > 200 && wide > 30;
}

/* int8 average pooling (channel-first k_pool_q) against the definition:
 * random windows, padding counted or not, and global windows (whole rows:
 * pq_sum_i8's one run, longer than 16 cells and not); same bytes */
static int pool_avg_cases(void)
{
	int fails = 0, n = 0, global = 0;
	for (int it = 0; it < 300; it++) {
		int N = ri(1, 2), C = ri(1, 3), H = ri(1, 20), W = ri(1, 40), g = ri(0, 2) == 0;
		int KH = g ? H : ri(1, 4), KW = g ? W : ri(1, 4), SH = ri(1, 3), SW = ri(1, 3);
		int PT = g ? 0 : ri(0, KH - 1), PL = g ? 0 : ri(0, KW - 1), PB = g ? 0 : ri(0, KH - 1);
		int PR = g ? 0 : ri(0, KW - 1), cp = ri(0, 1);
		int OH = (H + PT + PB - KH) / SH + 1, OW = (W + PL + PR - KW) / SW + 1;
		if (OH < 1 || OW < 1)
			continue;
		int32_t p[NPU_PL_COUNT] = {0};
		pool_geo(p, N, C, H, W, OH, OW, KH, KW, SH, SW, PT, PL, PB, PR);
		p[NPU_PL_MODE] = NPU_POOL_AVG, p[NPU_PL_COUNT_PAD] = cp;
		p[NPU_PL_XT] = p[NPU_PL_YT] = NPU_T_I8, p[NPU_PL_ZX] = ri(-128, 127), p[NPU_PL_ZY] = ri(-128, 127);
		p[NPU_PL_LO] = ri(0, 2) ? -128 : ri(-128, 0), p[NPU_PL_HI] = ri(0, 2) ? 127 : ri(1, 127);
		size_t nx = (size_t)N * C * H * W, ny = (size_t)N * C * OH * OW;
		int8_t *x = malloc(nx), *y = malloc(ny), *want = malloc(ny);
		for (size_t i = 0; i < nx; i++)
			x[i] = (int8_t)(ri(0, 3) ? ri(100, 127) : ri(-128, 127));	/* long runs of large sums */
		for (int nc = 0; nc < N * C; nc++)
			for (int oh = 0; oh < OH; oh++)
				for (int ow = 0; ow < OW; ow++) {
					int64_t v = 0, cells = 0, cnt = 0;
					for (int ih = oh * SH - PT; ih < oh * SH - PT + KH; ih++)
						for (int iw = ow * SW - PL; iw < ow * SW - PL + KW; iw++) {
							if (ih >= 0 && ih < H && iw >= 0 && iw < W)
								v += x[((size_t)nc * H + ih) * W + iw] - p[NPU_PL_ZX], cells++;
							cnt += ih >= -PT && ih < H + PB && iw >= -PL && iw < W + PR;
						}
					int64_t c = cp ? cnt : cells, m = v < 0 ? -v : v, q, r;
					c = c > 0 ? c : 1, q = (2 * m + c) / (2 * c);
					r = p[NPU_PL_ZY] + (v < 0 ? -q : q);
					want[((size_t)nc * OH + oh) * OW + ow] =
						(int8_t)(r < p[NPU_PL_LO] ? p[NPU_PL_LO] : r > p[NPU_PL_HI] ? p[NPU_PL_HI] : r);
				}
		int ok = pool_q_same(p, x, y, want, ny);
		if (!ok) {
			fails++;
			printf("# pool_avg N%d C%d %dx%d k%dx%d s%d,%d p%d,%d,%d,%d cp%d: differs\n", N, C, H, W, KH, KW, SH,
			       SW, PT, PL, PB, PR, cp);
		}
		n++, global += g && H * W > 16;
		free(x), free(y), free(want);
	}
	printf("# pool_avg: %d failures in %d int8 average poolings, %d global ones over more than 16 cells\n", fails,
	       n, global);
	return fails == 0 && n > 200 && global > 50;
}

/* CONV_F's panel tiles (cf_conv_packed: float32 weights packed, more than
 * 64 channels per group; pixels of any window shapes gathered with zero
 * taps, 2 blocks of 16 channels per tile on AVX-512) against the reference
 * loop: random shapes, long stride-1 rows (the row path beside the
 * panels), pointwise on few pixels, K in chunks, zero windows and -0
 * biases (sums of both zero signs, re-summed without the zero taps),
 * infinite weights and NaN inputs; same bits */
static int panel_f_cases(int *zeros)
{
	int fails = 0, runs = 0;
	for (int it = 0; it < 120; it++) {
		int G = ri(0, 2) ? 1 : 2, N = ri(1, 2), C = G * ri(1, 6), OC = G * ri(65, 100);
		int KH = ri(1, 4), KW = ri(1, 4), SH = ri(1, 3), SW = ri(1, 3), DH = ri(1, 2), DW = ri(1, 2);
		int H = ri(1, 10), W = ri(1, 20), PT = ri(0, KH), PB = ri(0, KH), PL = ri(0, KW), PR = ri(0, KW);
		if (ri(0, 3) == 0)	/* rows long enough for the stride-1 row path */
			KH = KW = 3, SH = SW = DH = DW = 1, PT = PB = PL = PR = 1, W = ri(48, 70), H = ri(1, 4);
		else if (ri(0, 4) == 0)	/* pointwise on fewer than 96 pixels (k_conv_f sends them here) */
			KH = KW = SH = SW = DH = DW = 1, PT = PB = PL = PR = 0, W = ri(1, 12), H = ri(1, 8);
		if (it % 12 == 0)	/* K over 2048: summed in chunks of CF_KT = 256 */
			G = 1, C = ri(228, 300), OC = ri(65, 80), KH = KW = 3, SH = SW = ri(1, 2), DH = DW = 1,
			PT = PB = PL = PR = ri(0, 1), H = ri(1, 7), W = ri(1, 9);
		if (it % 24 == 12)	/* and rows of 48 and more beside them */
			SH = SW = 1, H = ri(1, 2), W = ri(50, 60);
		int OH = (H + PT + PB - DH * (KH - 1) - 1) / SH + 1, OW = (W + PL + PR - DW * (KW - 1) - 1) / SW + 1;
		if (OH < 1 || OW < 1)
			continue;
		int32_t p[NPU_CV_COUNT] = {0};
		p[NPU_CV_N] = N, p[NPU_CV_C] = C, p[NPU_CV_H] = H, p[NPU_CV_W] = W, p[NPU_CV_OC] = OC;
		p[NPU_CV_OH] = OH, p[NPU_CV_OW] = OW, p[NPU_CV_KH] = KH, p[NPU_CV_KW] = KW;
		p[NPU_CV_SH] = SH, p[NPU_CV_SW] = SW, p[NPU_CV_PT] = PT, p[NPU_CV_PL] = PL;
		p[NPU_CV_DH] = DH, p[NPU_CV_DW] = DW, p[NPU_CV_G] = G;
		p[NPU_CV_XT] = p[NPU_CV_WT] = p[NPU_CV_YT] = NPU_T_F32;
		int act = ri(0, 3);
		p[NPU_CV_LO] = (int32_t)npu_f32_bits(act == 1 ? 0.0f : -INFINITY);
		p[NPU_CV_HI] = (int32_t)npu_f32_bits(act == 1 ? 6.0f : INFINITY);
		p[NPU_CV_ACT] = act == 2 ? NPU_U_SIGMOID : act == 3 ? NPU_U_RELU : -1;
		size_t nx = (size_t)N * C * H * W, nw = (size_t)OC * (C / G) * KH * KW, ny = (size_t)N * OC * OH * OW;
		uint32_t ss = npu_scratch_size(NPU_K_CONV_F, p);
#if defined(TEST_SIMD_SCRATCH)
		if (4 * nx + 5 * nw + 8 * ny + ss > 3 * (size_t)TEST_SIMD_SCRATCH) {
			f_left_out++;
			continue;
		}
#endif
		float *x = malloc(4 * nx), *w = malloc(4 * nw), *b = malloc(4 * (size_t)OC);
		float *y = malloc(4 * ny), *want = malloc(4 * ny), *wpk = malloc(npu_conv_f_pack(p, NULL, NULL));
		uint8_t *scratch = malloc(ss + 16);
		int zr = ri(0, 1), full = ri(0, 1);
		for (size_t i = 0; i < nx; i++)	/* zr: whole windows of zeros, sums of the bias alone */
			x[i] = (zr && i % (size_t)(H * W) < (size_t)(H * W) / 2) || !ri(0, 9) ? (ri(0, 1) ? 0.0f : -0.0f)
											   : full ? rfm() : rf();
		if (ri(0, 9) == 0)
			x[ri(0, (int)nx - 1)] = NAN;
		for (size_t i = 0; i < nw; i++)
			w[i] = full ? rfm() : rf();
		if (ri(0, 5) == 0)	/* 0 inf is NaN where the reference skips the tap */
			w[ri(0, (int)nw - 1)] = ri(0, 1) ? INFINITY : -INFINITY;
		for (int o = 0; o < OC; o++)
			b[o] = ri(0, 2) ? rf() : ri(0, 1) ? 0.0f : -0.0f;
		int hasb = ri(0, 3) != 0;
		void *a[NPU_MAX_ARGS] = {x, w, hasb ? b : NULL, NULL, want};
		cf_reference(p, a, scratch);
		npu_conv_f_pack(p, w, wpk);
		p[NPU_CV_WPACK] = 1;
		a[1] = wpk, a[4] = y;
		memset(y, 0x5a, 4 * ny);
		memset(scratch, 0xa5, ss + 16);
		k_conv_f(p, a, scratch);
		int ok = memcmp(y, want, 4 * ny) == 0;
		for (size_t i = ss; i < ss + 16; i++)
			ok &= scratch[i] == 0xa5;
		for (size_t i = 0; i < ny && act == 0; i++)	/* sums 0 or NaN (no activation) */
			*zeros += !(want[i] < 0.0f || want[i] > 0.0f);
		if (!ok)
			printf("# panel float N%d C%d %dx%d OC%d k%dx%d s%d,%d p%d,%d d%d,%d g%d act %d bias %d: differs\n", N,
			       C, H, W, OC, KH, KW, SH, SW, PT, PL, DH, DW, G, act, hasb);
		fails += !ok, runs++;
		free(x), free(w), free(b), free(y), free(want), free(wpk), free(scratch);
	}
	printf("# panel float: %d failures in %d convolutions, %d outputs 0 or NaN\n", fails, runs, *zeros);
	return fails == 0 && runs > 80;
}

int main(void)
{
	int paths[5] = {0, 0, 0, 0, 0}, fails = 0, path;
	printf("# cq_micro: %s\n", isa());
	/* fixed shapes: the model layers that matter and the edges */
	static const shape fixed[] = {
		{1, 32, 8, 8, 16, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* 1x1 direct */
		{1, 96, 7, 9, 24, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 1},
		{2, 3, 11, 13, 17, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0},	/* stem-like, odd everything */
		{1, 1, 9, 9, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0},	/* 1 channel: depthwise shape */
		{1, 1, 9, 9, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0},	/* 1 input channel */
		{1, 8, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8, NPU_T_I8, 2},	/* depthwise */
		{1, 6, 10, 10, 6, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 6, NPU_T_I8, 0},
		{2, 12, 20, 17, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 12, NPU_T_I8, 2},	/* depthwise 3x3, SIMD rows */
		{1, 7, 23, 31, 7, 3, 3, 2, 2, 1, 1, 0, 1, 1, 1, 7, NPU_T_I16, 0},
		{1, 5, 16, 16, 5, 3, 3, 1, 2, 0, 1, 2, 0, 2, 1, 5, NPU_T_I8, 1},
		{1, 12, 9, 9, 18, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 3, NPU_T_I16, 2},	/* grouped, dilated */
		{3, 300, 1, 1, 37, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, NPU_T_I8, 0},	/* fully connected */
		{1, 40, 6, 6, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 3},	/* weight zero point beyond int8 */
		{1, 2048, 2, 3, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 2},	/* K = 18432: beyond CQ_MAX_K */
		{1, 1820, 1, 1, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 2},	/* K = 16380, the bound */
		{1, 16, 8, 8, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 0, 1536},	/* a small budget */
		{1, 16, 8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16, NPU_T_I8, 0, 512},	/* depthwise over it */
	};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		int ok = one(&fixed[i], &path);
		fails += !ok;
		paths[path]++;
	}
	for (int i = 0; i < 300; i++) {
		shape s;
		int kind = ri(0, 5);
		s.N = ri(1, 2), s.G = 1;
		s.KH = ri(1, 4), s.KW = ri(1, 4), s.SH = ri(1, 3), s.SW = ri(1, 3), s.DH = ri(1, 2), s.DW = ri(1, 2);
		s.H = ri(1, 12), s.W = ri(1, 12);
		s.PT = ri(0, s.KH - 1), s.PB = ri(0, s.KH - 1), s.PL = ri(0, s.KW - 1), s.PR = ri(0, s.KW - 1);
		s.C = ri(1, 40), s.OC = ri(1, 40);
		if (kind == 0) {	/* 1x1 */
			s.KH = s.KW = 1, s.PT = s.PB = s.PL = s.PR = 0;
			s.C = ri(1, 200), s.SH = s.SW = ri(0, 2) ? 1 : 2;
		} else if (kind == 1) {	/* depthwise */
			s.G = s.C, s.OC = s.C;
		} else if (kind == 2) {	/* grouped */
			s.G = ri(1, 4), s.C = s.G * ri(1, 9), s.OC = s.G * ri(1, 11);
		} else if (kind == 3) {	/* fully connected */
			s.H = s.W = s.KH = s.KW = 1, s.SH = s.SW = s.DH = s.DW = 1, s.PT = s.PB = s.PL = s.PR = 0;
			s.C = ri(1, 700), s.N = ri(1, 5);
		}
		s.YT = ri(0, 4) ? NPU_T_I8 : NPU_T_I16;
		s.wz = ri(0, 3) ? ri(0, 1) : 2;
		s.smax = ri(0, 2) ? 0 : ri(0, 2) ? ri(100, 3000) : ri(3000, 40000);	/* scratch budgets */
		int ok = one(&s, &path);
		fails += !ok;
		paths[path]++;
	}
	/* depthwise (cq_depthwise, its 3x3 stride 1/2 SIMD rows and the
	 * generic rows): odd channel counts, rows longer than a chunk of
	 * CQ_DW_CHUNK outputs and shorter than a SIMD block, every padding
	 * (also wider than the kernel: rows and columns wholly in it), strides
	 * 1 to 4, dilation, 1 channel, channel multiplier 2 (the GEMM path) */
	static const shape dwfix[] = {
		{1, 3, 56, 56, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, NPU_T_I8, 0},	/* mobilenet_v2 */
		{1, 5, 57, 57, 5, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 5, NPU_T_I8, 2},	/* stride 2, TF-style pads */
		{1, 1, 3, 150, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, NPU_T_I8, 1},	/* 1 channel, 3 chunks */
		{1, 3, 4, 131, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3, NPU_T_I16, 2},
		{2, 7, 5, 17, 7, 3, 3, 1, 1, 3, 4, 4, 3, 1, 1, 7, NPU_T_I8, 2},	/* pads beyond the kernel */
		{1, 3, 2, 2, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, NPU_T_I8, 0},	/* no interior */
		{1, 3, 9, 40, 3, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 3, NPU_T_I8, 2},	/* dilated 3x3 */
		{1, 4, 11, 70, 4, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 4, NPU_T_I8, 1},	/* 5x5 stride 2 */
		{1, 3, 13, 90, 3, 7, 1, 1, 3, 3, 0, 3, 0, 1, 1, 3, NPU_T_I8, 2},	/* 7x1, stride 1x3 */
		{1, 3, 8, 33, 3, 1, 9, 4, 4, 0, 4, 0, 4, 1, 1, 3, NPU_T_I8, 0},	/* 1x9, stride 4 */
		{1, 6, 9, 20, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 6, NPU_T_I8, 2},	/* multiplier 2 */
		{1, 3, 6, 6, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, NPU_T_I8, 0, 64},	/* no scratch needed */
	};
	int dws = 0, dw3 = 0, ndw = (int)(sizeof dwfix / sizeof dwfix[0]) + 200;
	for (int i = 0; i < ndw; i++) {
		shape s;
		if (i < (int)(sizeof dwfix / sizeof dwfix[0])) {
			s = dwfix[i];
		} else {
			int k3 = ri(0, 2) != 0;	/* mostly 3x3 dilation 1, stride 1 or 2 */
			s.N = ri(1, 2), s.C = ri(0, 3) ? ri(1, 9) : 1;
			s.KH = k3 ? 3 : ri(1, 6), s.KW = k3 ? 3 : ri(1, 6);
			s.SH = k3 ? ri(1, 2) : ri(1, 4), s.SW = k3 ? ri(1, 2) : ri(1, 4);
			s.DH = k3 ? 1 : ri(1, 3), s.DW = k3 ? 1 : ri(1, 3);
			s.H = ri(1, 12), s.W = ri(0, 1) ? ri(1, 40) : ri(1, 150);
			s.PT = ri(0, s.KH), s.PB = ri(0, s.KH), s.PL = ri(0, s.KW), s.PR = ri(0, s.KW);
			s.G = s.C, s.OC = s.C * (ri(0, 9) ? 1 : 2);
			s.YT = ri(0, 4) ? NPU_T_I8 : NPU_T_I16;
			s.wz = ri(0, 2);
			s.smax = ri(0, 3) ? 0 : ri(1, 100);
		}
		int ok = one(&s, &path);
		fails += !ok;
		paths[path]++;
		dws += path == CQ_DEPTHWISE;
		dw3 += path == CQ_DEPTHWISE && s.KH == 3 && s.KW == 3 && s.DW == 1 && s.SW <= 2;
	}
	printf("# depthwise: %d of %d on the depthwise path, %d of them 3x3 stride 1 or 2; %d channel-last\n", dws, ndw,
	       dw3, nhwc_runs);
	CHECK(dws > 100 && dw3 > 50 && nhwc_runs > 100);
	/* float32: the fast path against the reference loop, bit for bit */
	int ffails = 0, ffast = 0;
	for (int i = 0; i < 400; i++) {
		int f = 0;
		ffails += !one_f(i % 3 == 0, NULL, &f);
		ffast += f;
	}
	/* model-sized float layers: pointwise panels (whole panels of 48
	 * pixels and the rest, K in chunks of CF_KC = 256 with partial sums in
	 * y, 8 + 4 + 1 channel tiles), 3x3 rows, depthwise rows */
	static const fshape ffix[] = {
		{1, 600, 7, 9, 13, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 2, 0, 1},	/* 3 chunks, sigmoid after the last */
		{1, 300, 14, 14, 21, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 1},	/* clip 0..6 */
		{2, 257, 4, 24, 9, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 3, 0, 1},	/* 2 images, chunk of 1 */
		{1, 40, 8, 6, 17, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1},	/* int8 weights: no panels */
		{1, 32, 28, 28, 24, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 3, 0, 0},
		{1, 70, 12, 40, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 0, 1},
		{1, 300, 7, 7, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1},
		{1, 24, 12, 19, 24, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 24, 3, 0, 1},
		{1, 19, 30, 57, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 19, 1, 0, 1},
		{1, 9, 11, 70, 9, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 9, 2, 0, 1},
		{1, 5, 9, 80, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5, 3, 0, 1},	/* stride 2, 4 blocks */
		{1, 4, 6, 130, 4, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 4, 0, 1, 1},	/* stride 3, int8 weights */
	};
	int nff = (int)(sizeof ffix / sizeof ffix[0]);
	for (int i = 0; i < nff; i++) {
		int f = 0;
		ffails += !one_f(0, &ffix[i], &f);
		ffast += f;
	}
	printf("# float: %d of %d convolutions on the fast path (%s, %d lanes; sums %s)\n", ffast, 400 + nff,
	       CF_VL ? "SIMD" : "no SIMD: the reference", CF_VL, cf_fused() ? "fused (NPU_F32_FMA)" : "unfused");
	if (f_left_out)
		printf("# float: %d of %d left out, larger than the board's RAM\n", f_left_out, 400 + nff);
	CHECK_MSG(ffails == 0, "%d of %d float convolutions differ from the reference", ffails, 400 + nff);
	printf("# float: %d of them also on weights packed by npu_conv_f_pack\n", f_packed);
	CHECK(f_packed > 150);
#if defined(NPU_F32_FMA)
	CHECK_MSG(cf_fused(), "NPU_F32_FMA: cf_mac does not fuse");
#else
	CHECK_MSG(!cf_fused(), "cf_mac fuses without NPU_F32_FMA");
#endif
	int pz = 0;
	CHECK(panel_f_cases(&pz));
	CHECK(pz > 1000);
	CHECK(pool_f_cases());
	CHECK(ew_f_cases());
	fails += !direct_cases(paths);
	int nhwc16 = 0;
	fails += !armdot_cases(paths, &nhwc16);
	printf("# armdot: %d channel-last depthwise runs with >= 16 channels and >= 6 taps, %d by 4 taps a dot product\n",
	       nhwc16, nhwc_quads);
	CHECK(nhwc16 > 50);
#if defined(CN_DW_QUADS)
	CHECK(nhwc_quads > 30);
#endif
	fails += !amx_cases(paths);
	int nhf = 0, nht = 0;
	CHECK_MSG(nhwc_cases(&nhf, &nht), "channel-last regular convolutions differ from the definition");
	printf("# nhwc regular: %d of %d channel-last convolutions on cn_regular or cn_win\n", nhf, nht);
	CHECK(nhf > 200);
	/* nhwcamx: the channel-last convolutions on AMX tiles (and as if Linux
	 * had refused the tile state: cn_regular, the same results) */
	int nat = 0;
#if defined(CN_TILES)
	int aall = nhwc_amx, a1 = nhwc_amx1;
#endif
	CHECK_MSG(nhwcamx_cases(&nat), "channel-last convolutions (AMX shapes) differ from the definition");
	printf("# nhwc: %d of the regular and AMX-shaped ones have cn_win's shapes\n", nhwc_win);
#if defined(CN_WIN)
	CHECK(nhwc_win > 100);
#endif
	int npr = 0;
	CHECK_MSG(nhwcpool_cases(&npr), "channel-last int8 pooling differs from the definition");
	int npf = 0;
	CHECK_MSG(prelu_cases(&npf), "int8 PReLU differs from the definition");
	printf("# prelu: %d of 300 int8 PReLUs with shifts and multipliers rt_uq takes\n", npf);
	CHECK(npf > 150);
	printf("# nhwc pool: %d int8 poolings (max and average) on whole channel rows\n", npr);
	CHECK(npr > 200);
#if defined(CN_TILES)
	/* on tiles, or where there are none (no AMX, or Linux refused the
	 * tile state) their products by vpdpbusd (CN_VNNI), or on x86 without
	 * AVX-512 VNNI by pmaddwd, on aarch64 by sdot (CN_GEN) */
	printf("# nhwcamx: %s; %d of %d AMX-shaped channel-last convolutions on cn_amx (%d of all)\n",
	       CN_ON_TILES() ? "on tiles" : CN_GEN_ON ? "by pmaddwd or sdot (CN_GEN)" : "on VNNI, no tiles", nhwc_amx - aall,
	       nat, nhwc_amx);
	CHECK(nhwc_amx - aall > nat * 3 / 4);
	printf("# nhwcamx: %d in direct mode (1x1, stride 1)\n", nhwc_amx1 - a1);
	CHECK(nhwc_amx1 - a1 >= 7);
#if defined(RT_AMX) && defined(CN_VNNI)
	/* as if Linux had refused the tile state: the VNNI products, the same shapes, the same results */
	int ast = cq_amx_state, abefore = nhwc_amx, aok;
	cq_amx_state = -1;
	aok = nhwcamx_cases(&nat);
	cq_amx_state = ast;
	CHECK_MSG(aok && nhwc_amx - abefore > nat * 3 / 4, "cn_amx on VNNI (tile state refused): exact %d, %d of %d",
		  aok, nhwc_amx - abefore, nat);
#endif
#endif
	printf("# paths: generic %d, depthwise %d, gemm %d (%d gathered from x, %d in K chunks), panel %d (%d in K chunks)\n",
	       paths[CQ_GENERIC], paths[CQ_DEPTHWISE], paths[CQ_IM2COL], gathered, chunked, paths[CQ_PANEL], kchunks);
	if (q_left_out)
		printf("# %d int8 convolutions left out, larger than the board's RAM\n", q_left_out);
	CHECK(requant_rows());
	CHECK(convt_cases());
	CHECK(resize_cases());
	CHECK(requant_tails());
	CHECK(quantize_cases());
	CHECK(uq_row_cases());
	CHECK(requant_rows_cases());
	CHECK(dw512_cases());
	CHECK(pool_q_cases());
	CHECK(pool_avg_cases());
	CHECK_MSG(fails == 0, "%d of %d convolutions differ from the definition", fails, 300 + ndw + (int)(sizeof fixed / sizeof fixed[0]));
	CHECK(paths[CQ_GENERIC] > 0 && paths[CQ_DEPTHWISE] > 0 && paths[CQ_IM2COL] > 15 && gathered > 0 && chunked > 0);
	CHECK(paths[CQ_PANEL] > 100 && kchunks > 10);
#if defined(CQ_AMX)
	/* amx: most panel convolutions ran on tiles (unless Linux refused the
	 * tile state: then all of them took the VNNI fallback, said here) */
	printf("# cq_micro amx: %s; %d of %d panel convolutions on AMX tiles, %d in K chunks; %d on 16 x 8 C tiles "
	       "(%d in longer K chunks); on 16 x 16 ones %d on double pixel tiles, %d on tiles under 64 k, %d windows "
	       "by masked loads\n",
	       cq_amx_ready() ? "tile state granted" : "tile state refused by the kernel, VNNI fallback", amx_runs,
	       paths[CQ_PANEL], amx_chunks, amx_narrow8, amx_longer, amx_pairs, amx_narrow, amx_windows);
	CHECK(!cq_amx_ready() || (amx_runs > paths[CQ_PANEL] / 2 && amx_chunks > 10));
	CHECK(!cq_amx_ready() || (amx_narrow8 > 20 && amx_longer > 2 && amx_pairs > 20 && amx_narrow > 20 && amx_windows > 100));
	/* as if Linux had refused the tile state: the VNNI path, same results */
	int st = cq_amx_state, before = amx_runs, ok = 1;
	cq_amx_state = -1;
	ok = amx_cases(paths);
	cq_amx_state = st;
	CHECK_MSG(ok && amx_runs == before, "the VNNI fallback (tile state refused): exact %d, on tiles %d", ok,
		  amx_runs - before);
#endif
	return check_done();
}
