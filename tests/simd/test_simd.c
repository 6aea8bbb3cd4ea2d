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
#if defined(CQ_AMX)
static int amx_runs;	/* amx: panel-path calls on AMX tiles (cq_amx_use) */
static int amx_chunks;	/* ... of them in K chunks */
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
	return "amx-int8 (tdpbusd in the panel path, avx-vnni otherwise)";
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

/* one random convolution of shape s through k_conv_q, against the definition */
static int one(const shape *s, int *path)
{
	int OH = (s->H + s->PT + s->PB - s->DH * (s->KH - 1) - 1) / s->SH + 1;
	int OW = (s->W + s->PL + s->PR - s->DW * (s->KW - 1) - 1) / s->SW + 1;
	if (OH < 1 || OW < 1)
		return 1;
	int cg = s->C / s->G, K = cg * s->KH * s->KW;
	int32_t p[NPU_CV_COUNT] = {0};
	p[NPU_CV_N] = s->N, p[NPU_CV_C] = s->C, p[NPU_CV_H] = s->H, p[NPU_CV_W] = s->W, p[NPU_CV_OC] = s->OC;
	p[NPU_CV_OH] = OH, p[NPU_CV_OW] = OW, p[NPU_CV_KH] = s->KH, p[NPU_CV_KW] = s->KW;
	p[NPU_CV_SH] = s->SH, p[NPU_CV_SW] = s->SW, p[NPU_CV_PT] = s->PT, p[NPU_CV_PL] = s->PL;
	p[NPU_CV_DH] = s->DH, p[NPU_CV_DW] = s->DW, p[NPU_CV_G] = s->G;
	p[NPU_CV_XT] = NPU_T_I8, p[NPU_CV_WT] = NPU_T_I8, p[NPU_CV_YT] = s->YT, p[NPU_CV_ACT] = -1;
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
		*path = CQ_NONE;
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
 * skipped) against the definition written out channel-last here: random
 * shapes with odd and single channels, padding (also wider than the
 * window), strides, dilation, groups (channel multiplier above 1 too),
 * int16 outputs, weight zero points (beyond int8: the scalar loop), K at
 * CQ_NHWC_MAX_K and beyond it; the scratch is 0 (none written) ---- */
static int nhwc_one(const shape *s, int *fast)
{
	int OH = (s->H + s->PT + s->PB - s->DH * (s->KH - 1) - 1) / s->SH + 1;
	int OW = (s->W + s->PL + s->PR - s->DW * (s->KW - 1) - 1) / s->SW + 1;
	if (OH < 1 || OW < 1)
		return 1;
	int cg = s->C / s->G, og = s->OC / s->G, K = cg * s->KH * s->KW;
	int32_t p[NPU_CV_COUNT] = {0};
	p[NPU_CV_N] = s->N, p[NPU_CV_C] = s->C, p[NPU_CV_H] = s->H, p[NPU_CV_W] = s->W, p[NPU_CV_OC] = s->OC;
	p[NPU_CV_OH] = OH, p[NPU_CV_OW] = OW, p[NPU_CV_KH] = s->KH, p[NPU_CV_KW] = s->KW;
	p[NPU_CV_SH] = s->SH, p[NPU_CV_SW] = s->SW, p[NPU_CV_PT] = s->PT, p[NPU_CV_PL] = s->PL;
	p[NPU_CV_DH] = s->DH, p[NPU_CV_DW] = s->DW, p[NPU_CV_G] = s->G;
	p[NPU_CV_XT] = NPU_T_I8, p[NPU_CV_WT] = NPU_T_I8, p[NPU_CV_YT] = s->YT, p[NPU_CV_ACT] = -1;
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
	memset(scratch, 0xa5, ss + 16);
	memset(y, 0x5a, 2 * ny);
	void *a[NPU_MAX_ARGS] = {x, w, bias, mult, shift, s->wz ? wzp : NULL, y};
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
		p[NPU_PL_N] = N, p[NPU_PL_C] = C, p[NPU_PL_H] = H, p[NPU_PL_W] = W, p[NPU_PL_OH] = OH, p[NPU_PL_OW] = OW;
		p[NPU_PL_KH] = KH, p[NPU_PL_KW] = KW, p[NPU_PL_SH] = SH, p[NPU_PL_SW] = SW, p[NPU_PL_PT] = PT;
		p[NPU_PL_PL] = PL, p[NPU_PL_PB] = PB, p[NPU_PL_PR] = PR;
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
	CHECK(pool_f_cases());
	fails += !direct_cases(paths);
	int nhwc16 = 0;
	fails += !armdot_cases(paths, &nhwc16);
	printf("# armdot: %d channel-last depthwise runs with >= 16 channels and >= 6 taps\n", nhwc16);
	CHECK(nhwc16 > 50);
	fails += !amx_cases(paths);
	int nhf = 0, nht = 0;
	CHECK_MSG(nhwc_cases(&nhf, &nht), "channel-last regular convolutions differ from the definition");
	printf("# nhwc regular: %d of %d channel-last convolutions on cn_regular\n", nhf, nht);
	CHECK(nhf > 200);
	printf("# paths: generic %d, depthwise %d, gemm %d (%d gathered from x, %d in K chunks), panel %d (%d in K chunks)\n",
	       paths[CQ_GENERIC], paths[CQ_DEPTHWISE], paths[CQ_IM2COL], gathered, chunked, paths[CQ_PANEL], kchunks);
	if (q_left_out)
		printf("# %d int8 convolutions left out, larger than the board's RAM\n", q_left_out);
	CHECK(requant_rows());
	CHECK_MSG(fails == 0, "%d of %d convolutions differ from the definition", fails, 300 + ndw + (int)(sizeof fixed / sizeof fixed[0]));
	CHECK(paths[CQ_GENERIC] > 0 && paths[CQ_DEPTHWISE] > 0 && paths[CQ_IM2COL] > 15 && gathered > 0 && chunked > 0);
	CHECK(paths[CQ_PANEL] > 100 && kchunks > 10);
#if defined(CQ_AMX)
	/* amx: most panel convolutions ran on tiles (unless Linux refused the
	 * tile state: then all of them took the VNNI fallback, said here) */
	printf("# cq_micro amx: %s; %d of %d panel convolutions on AMX tiles, %d in K chunks\n",
	       cq_amx_ready() ? "tile state granted" : "tile state refused by the kernel, VNNI fallback", amx_runs,
	       paths[CQ_PANEL], amx_chunks);
	CHECK(!cq_amx_ready() || (amx_runs > paths[CQ_PANEL] / 2 && amx_chunks > 10));
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
