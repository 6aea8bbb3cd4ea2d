/* conv_q.c - throughput of the runtime's CONV_Q int8 paths on the layer
 * shapes that dominate mobilenet_v2 and resnet18 (224x224 input), 1
 * thread: GMAC/s, MACs per cycle and the share of the int8 peak
 * (PEAK_MACS per cycle: 1024 for AMX-INT8's tile multiply (the panel path
 * on tiles), 64 for AVX2's two 256-bit multiply-add ports,
 * the instruction set the build selects otherwise; the clock is measured
 * with a chain of dependent adds, one per cycle). Shapes are timed round
 * by round in turn (REPEAT rounds), each the median of its rounds.
 *
 *   cc -O2 [-mavx2|-march=native] -Ishare/npu/runtime bench/conv_q.c -o conv_q -lm && ./conv_q [REPEAT]
 * (bench/conv_q.sh builds the portable and the native variants and runs both).
 * -DCONV_NHWC times the channel-last convolution instead (CONV_NHWC_Q,
 * k_conv_nhwc_q: x [N,H,W,C], OHWI weights) on the regular and depthwise shapes (its
 * AMX path cn_amx with -march=native on an AMX CPU, tdpbssd's 1024 MACs
 * a cycle; NHWC=1 bench/conv_q.sh). */
#define _POSIX_C_SOURCE 200809L
#include "npu_rt.c"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef PEAK_MACS
#if (defined(CQ_AMX) && !defined(CONV_NHWC)) || (defined(RT_AMX) && defined(CONV_NHWC))
#define PEAK_MACS 1024	/* tdpbsud, tdpbusd, tdpbssd: 16 x 16 x 64 in 16 cycles */
#elif defined(__AVX2__)
#define PEAK_MACS 64
#elif defined(__SSE4_1__) || defined(__ARM_NEON)
#define PEAK_MACS 32
#else
#define PEAK_MACS 16	/* SSE2 pmaddwd: the baseline x86-64 has */
#endif
#endif

#if defined(CONV_NHWC)
#define KERNEL NPU_K_CONV_NHWC_Q
#define KERNEL_FN k_conv_nhwc_q
#else
#define KERNEL NPU_K_CONV_Q
#define KERNEL_FN k_conv_q
#endif

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* cycles per second: a chain of dependent adds retires one per cycle */
static double clock_hz(void)
{
	volatile uint64_t sink;
	uint64_t v = 1, n = 200000000;
	double t0 = now();
	for (uint64_t i = 0; i < n; i++) {
		__asm__ volatile("" : "+r"(v));
		v += i;
	}
	sink = v;
	(void)sink;
	return n / (now() - t0);
}

typedef struct {
	const char *name;
	int C, H, W, OC, K, S, G;
} layer;

static const layer L[] = {
	{"1x1 96->24 56x56 (mbv2)", 96, 56, 56, 24, 1, 1, 1},
	{"1x1 24->144 56x56 (mbv2)", 24, 56, 56, 144, 1, 1, 1},
	{"1x1 960->160 7x7 (mbv2)", 960, 7, 7, 160, 1, 1, 1},
	{"3x3 s2 3->32 224x224 (mbv2 stem)", 3, 224, 224, 32, 3, 2, 1},
	{"3x3 64->64 56x56 (rn18)", 64, 56, 56, 64, 3, 1, 1},
	{"3x3 256->256 14x14 (rn18)", 256, 14, 14, 256, 3, 1, 1},
	{"3x3 512->512 7x7 (rn18)", 512, 7, 7, 512, 3, 1, 1},
	{"3x3 s2 64->128 56x56 (rn18)", 64, 56, 56, 128, 3, 2, 1},
	{"7x7 s2 3->64 224x224 (rn18 stem)", 3, 224, 224, 64, 7, 2, 1},
#if defined(CONV_NHWC)
	{"1x1 s2 256->512 14x14 (rn18)", 256, 14, 14, 512, 1, 2, 1},
	{"3x3 g4 64->64 28x28 (grouped)", 64, 28, 28, 64, 3, 1, 4},
#endif
	{"dw 3x3 144 56x56 (mbv2)", 144, 56, 56, 144, 3, 1, 144},
	{"dw 3x3 s2 96 112x112 (mbv2)", 96, 112, 112, 96, 3, 2, 96},
	{"dw 3x3 960 7x7 (mbv2)", 960, 7, 7, 960, 3, 1, 960},
};
#define NL (int)(sizeof L / sizeof L[0])

int main(int argc, char **argv)
{
	int repeat = argc > 1 ? atoi(argv[1]) : 7;
	double hz = clock_hz(), t[NL][64];
	void *a[NL][NPU_MAX_ARGS], *scr[NL];
	int32_t p[NL][NPU_CV_COUNT];
	double macs[NL];
	if (repeat < 1 || repeat > 64)
		repeat = 7;
	for (int l = 0; l < NL; l++) {
		const layer *s = &L[l];
		int pad = s->K / 2, OH = (s->H + 2 * pad - s->K) / s->S + 1, OW = (s->W + 2 * pad - s->K) / s->S + 1;
		int32_t *q = p[l];
		memset(q, 0, sizeof p[l]);
		q[NPU_CV_N] = 1, q[NPU_CV_C] = s->C, q[NPU_CV_H] = s->H, q[NPU_CV_W] = s->W, q[NPU_CV_OC] = s->OC;
		q[NPU_CV_OH] = OH, q[NPU_CV_OW] = OW, q[NPU_CV_KH] = q[NPU_CV_KW] = s->K, q[NPU_CV_SH] = q[NPU_CV_SW] = s->S;
		q[NPU_CV_PT] = q[NPU_CV_PL] = pad, q[NPU_CV_DH] = q[NPU_CV_DW] = 1, q[NPU_CV_G] = s->G;
		q[NPU_CV_XT] = q[NPU_CV_WT] = q[NPU_CV_YT] = NPU_T_I8, q[NPU_CV_ACT] = -1;
		q[NPU_CV_ZX] = -7, q[NPU_CV_ZY] = 3, q[NPU_CV_LO] = -128, q[NPU_CV_HI] = 127;
		q[NPU_CV_SMAX] = getenv("CONV_Q_SMAX") ? atoi(getenv("CONV_Q_SMAX")) : 0;	/* the scratch bound */
		size_t nx = (size_t)s->C * s->H * s->W, nw = (size_t)s->OC * (s->C / s->G) * s->K * s->K;
		int8_t *x = malloc(nx), *w = malloc(nw), *y = malloc((size_t)s->OC * OH * OW);
		int32_t *b = malloc(4 * (size_t)s->OC), *m = malloc(4 * (size_t)s->OC), *sh = malloc(4 * (size_t)s->OC);
		for (size_t i = 0; i < nx; i++)
			x[i] = (int8_t)(i * 37 % 251);
		for (size_t i = 0; i < nw; i++)
			w[i] = (int8_t)(i * 91 % 253);
		for (int o = 0; o < s->OC; o++)
			b[o] = o * 100, m[o] = 1 << 30, sh[o] = 40;
#if NPU_BIN_VERSION >= 3 && !defined(CONV_NHWC)
		size_t pk = npu_conv_q_pack(q, NULL, NULL);
		if (pk) {
			int8_t *wp = malloc(pk);
			npu_conv_q_pack(q, w, wp);
			w = wp;
		}
#endif
		void *aa[NPU_MAX_ARGS] = {x, w, b, m, sh, NULL, y};
		memcpy(a[l], aa, sizeof aa);
		scr[l] = aligned_alloc(64, (npu_scratch_size(KERNEL, q) + 64) & ~(size_t)63);
		macs[l] = (double)s->OC * OH * OW * (s->C / s->G) * s->K * s->K;
	}
	for (int r = 0; r < repeat; r++)
		for (int l = 0; l < NL; l++) {
			int it = (int)(2e8 / macs[l]) + 1;
			double t0 = now();
			for (int i = 0; i < it; i++)
				KERNEL_FN(p[l], a[l], scr[l]);
			t[l][r] = (now() - t0) / it;
		}
	printf("# clock %.2f GHz (dependent adds), int8 peak %d MACs/cycle\n", hz * 1e-9, PEAK_MACS);
	for (int l = 0; l < NL; l++) {
		for (int i = 1; i < repeat; i++)	/* insertion sort for the median */
			for (int j = i; j > 0 && t[l][j] < t[l][j - 1]; j--) {
				double v = t[l][j];
				t[l][j] = t[l][j - 1], t[l][j - 1] = v;
			}
		double med = t[l][repeat / 2], g = macs[l] / med;
		printf("%-34s %8.3f ms  %6.2f GMAC/s  %5.2f MAC/cycle  %5.1f %% of peak  (min-max %.3f-%.3f ms)\n",
		       L[l].name, med * 1e3, g * 1e-9, g / hz, 100 * g / hz / PEAK_MACS, t[l][0] * 1e3,
		       t[l][repeat - 1] * 1e3);
	}
	return 0;
}
