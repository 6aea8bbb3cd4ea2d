/* conv_t_q.c - CONV_T_Q int8 per layer shape: the int32 row path
 * (k_conv_t_q with its scratch) against the generic int64 loop (the same
 * call without scratch: the definition it replaced), interleaved round by
 * round in one process; per shape the median of the per-round ratios with
 * min-max and each side's median time. Both sides' bytes must agree.
 * Usage: conv_t_q [ROUNDS] (bench/conv_t_q.sh builds and runs it). */
#define _POSIX_C_SOURCE 200809L
#include "npu_rt.c"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double med(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmpd);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 9;
	/* C H W OC K S P OP: segmenter/unet-like upsampling layers */
	static const int shapes[][8] = {
		{32, 16, 16, 16, 2, 2, 0, 0}, {64, 8, 8, 32, 2, 2, 0, 0}, {32, 16, 16, 16, 4, 2, 1, 0},
		{16, 32, 32, 8, 3, 2, 1, 1}, {48, 12, 12, 48, 3, 1, 1, 0},
	};
	if (rounds < 1 || rounds > 99)
		rounds = 9;
	printf("%-28s %12s %12s %8s %s\n", "shape", "generic_us", "rows_us", "ratio", "(min-max)");
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		const int *d = shapes[s];
		int C = d[0], H = d[1], W = d[2], OC = d[3], K = d[4], S = d[5], P = d[6], OP = d[7];
		int OH = (H - 1) * S - 2 * P + K + OP, OW = (W - 1) * S - 2 * P + K + OP;
		int32_t p[NPU_CV_COUNT] = {0};
		p[NPU_CV_N] = 1, p[NPU_CV_C] = C, p[NPU_CV_H] = H, p[NPU_CV_W] = W, p[NPU_CV_OC] = OC;
		p[NPU_CV_OH] = OH, p[NPU_CV_OW] = OW, p[NPU_CV_KH] = K, p[NPU_CV_KW] = K, p[NPU_CV_SH] = S, p[NPU_CV_SW] = S;
		p[NPU_CV_PT] = P, p[NPU_CV_PL] = P, p[NPU_CV_DH] = 1, p[NPU_CV_DW] = 1, p[NPU_CV_G] = 1;
		p[NPU_CV_XT] = NPU_T_I8, p[NPU_CV_WT] = NPU_T_I8, p[NPU_CV_YT] = NPU_T_I8, p[NPU_CV_ACT] = -1;
		p[NPU_CV_ZX] = -3, p[NPU_CV_ZY] = 2, p[NPU_CV_LO] = -128, p[NPU_CV_HI] = 127;
		size_t nx = (size_t)C * H * W, nw = (size_t)C * OC * K * K, ny = (size_t)OC * OH * OW;
		int8_t *x = malloc(nx), *w = malloc(nw), *y0 = malloc(ny), *y1 = malloc(ny);
		int32_t *bias = malloc(4 * (size_t)OC), *mult = malloc(4 * (size_t)OC), *shift = malloc(4 * (size_t)OC);
		uint32_t ss = npu_scratch_size(NPU_K_CONV_T_Q, p);
		void *scratch = malloc(ss + 16);
		srand(7);
		for (size_t i = 0; i < nx; i++)
			x[i] = (int8_t)(rand() % 256 - 128);
		for (size_t i = 0; i < nw; i++)
			w[i] = (int8_t)(rand() % 256 - 128);
		for (int o = 0; o < OC; o++)
			bias[o] = rand() % 20001 - 10000, mult[o] = 1 << 30, shift[o] = 46;
		void *a0[NPU_MAX_ARGS] = {x, w, bias, mult, shift, NULL, y0}, *a1[NPU_MAX_ARGS] = {x, w, bias, mult, shift, NULL, y1};
		double tg[99], tr[99], ratio[99];
		int reps = (int)(2e7 / ((double)nx * OC * K * K / (S * S) + 1)) + 1;
		for (int r = 0; r < rounds; r++) {
			double t = now();
			for (int i = 0; i < reps; i++)
				k_conv_t_q(p, a0, NULL);
			tg[r] = (now() - t) / reps;
			t = now();
			for (int i = 0; i < reps; i++)
				k_conv_t_q(p, a1, ss ? scratch : NULL);
			tr[r] = (now() - t) / reps;
			ratio[r] = tg[r] / tr[r];
		}
		if (!ss || memcmp(y0, y1, ny)) {
			printf("conv_t_q: shape %zu: %s\n", s, ss ? "the outputs differ" : "no row path");
			return 1;
		}
		char name[64];
		snprintf(name, sizeof name, "C%d %dx%d OC%d k%d s%d p%d op%d", C, H, W, OC, K, S, P, OP);
		double rmed = med(ratio, rounds), rmin = ratio[0], rmax = ratio[rounds - 1];
		printf("%-28s %12.1f %12.1f %8.2f (%.2f-%.2f)\n", name, 1e6 * med(tg, rounds), 1e6 * med(tr, rounds), rmed, rmin,
		       rmax);
		free(x), free(w), free(y0), free(y1), free(bias), free(mult), free(shift), free(scratch);
	}
	return 0;
}
