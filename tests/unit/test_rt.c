/* test_rt.c - the portable runtime (share/npu/runtime/npu_rt.c): every
 * kernel on small cases whose results are derived by hand in the comments;
 * the integer kernels' fast paths (CONV_Q depthwise and im2col, int8
 * ELTWISE_Q/REQUANT/POOL_Q, float->int8 QUANTIZE) also on random cases
 * against the definitions written out here (never against the runtime
 * itself); the executor's argument resolution; npu_load on a hand-built
 * blob and on broken ones.
 *
 * Requantization below is always y = clamp(ZY + rshift_round(acc * mult,
 * shift)) with rounding half up: "acc/2" means mult = 2^30, shift = 31,
 * "acc/4" mult = 2^30, shift = 32, "x1" mult = 2^30, shift = 30. */
#include "check.h"
#include "../../share/npu/runtime/npu_half.h"
#include "../../share/npu/runtime/npu_rt.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LEN(a) (int)(sizeof(a) / sizeof(a)[0])
#define M30 (1 << 30)

static _Alignas(64) uint8_t arena[8 << 20];

/* ---------------------------------------------------------------- harness */

/* Run one kernel: argument j is tensor j, an output buffer (NULL: -1).
 * CONV_Q's int8 weights are given [OC, C/G, KH, KW] and packed here as the
 * lowering packs them. */
static void run_k(uint32_t kernel, const int32_t *p, int nargs, void *const *ptr_in)
{
	static _Alignas(64) int8_t packed[1 << 20];
	npu_tensor t[NPU_MAX_ARGS];
	int32_t args[NPU_MAX_ARGS];
	void *ptr[NPU_MAX_ARGS];
	for (int j = 0; j < nargs; j++)
		ptr[j] = ptr_in[j];
	if (kernel == NPU_K_CONV_Q && nargs > 1 && ptr[1]) {
		size_t n = npu_conv_q_pack(p, NULL, NULL);
		if (n > sizeof packed) {
			CHECK_MSG(0, "packed weights of %zu bytes", n);
			return;
		}
		if (n) {
			npu_conv_q_pack(p, ptr[1], packed);
			ptr[1] = packed;
		}
	}
	for (int j = 0; j < nargs; j++) {
		t[j].mem = NPU_MEM_OUTPUT;
		t[j].offset = (uint32_t)j;
		args[j] = ptr[j] ? j : -1;
	}
	npu_op op = {kernel, (uint32_t)nargs, 0, 0};
	uint32_t ss = npu_scratch_size(kernel, p);
	if (ss > sizeof arena || ss % 16 != 0) {	/* a failure only when it happens */
		CHECK_MSG(0, "kernel %u: scratch size %u", (unsigned)kernel, (unsigned)ss);
		return;
	}
	memset(arena, 0xa5, ss);	/* kernels must not rely on zeroed scratch */
	npu_model m = {.n_tensors = (uint32_t)nargs, .n_ops = 1, .n_args = (uint32_t)nargs,
		       .n_params = (uint32_t)npu_param_count(kernel), .arena_size = ss, .scratch_size = ss,
		       .tensors = t, .ops = &op, .args = args, .params = p};
	npu_run(&m, NULL, ptr, arena);
}

#define RUN(k, p, ...) \
	do { \
		void *ptrs_[] = {__VA_ARGS__}; \
		run_k(k, p, LEN(ptrs_), ptrs_); \
	} while (0)

static int32_t get_int(const void *y, int t, int i)
{
	switch (t) {
	case NPU_T_I8: return ((const int8_t *)y)[i];
	case NPU_T_I16: return ((const int16_t *)y)[i];
	case NPU_T_U8: return ((const uint8_t *)y)[i];
	default: return ((const int32_t *)y)[i];
	}
}

/* y (n elements of type t) == want; mismatches are printed */
static int eq_int(const void *y, int t, const int32_t *want, int n)
{
	int ok = 1;
	for (int i = 0; i < n; i++)
		if (get_int(y, t, i) != want[i]) {
			printf("# [%d]: got %d, want %d\n", i, (int)get_int(y, t, i), (int)want[i]);
			ok = 0;
		}
	return ok;
}

static int eq_f32(const float *y, const float *want, int n)
{
	int ok = 1;
	for (int i = 0; i < n; i++)
		if (memcmp(&y[i], &want[i], 4) != 0 && !(y[i] == want[i])) {
			printf("# [%d]: got %.9g (0x%08x), want %.9g\n", i, y[i], (unsigned)npu_f32_bits(y[i]), want[i]);
			ok = 0;
		}
	return ok;
}

static int eq_u16(const uint16_t *y, const uint16_t *want, int n)
{
	int ok = 1;
	for (int i = 0; i < n; i++)
		if (y[i] != want[i]) {
			printf("# [%d]: got 0x%04x, want 0x%04x\n", i, y[i], want[i]);
			ok = 0;
		}
	return ok;
}

static int32_t fbits(float f) { return (int32_t)npu_f32_bits(f); }

static void conv_geo(int32_t *p, int N, int C, int H, int W, int OC, int OH, int OW, int KH, int KW, int SH, int SW,
		     int PT, int PL, int DH, int DW, int G)
{
	int32_t v[] = {N, C, H, W, OC, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW, G};
	memset(p, 0, sizeof(int32_t) * NPU_CV_COUNT);
	memcpy(p, v, sizeof v);
	p[NPU_CV_ACT] = -1;
}

static void conv_q_types(int32_t *p, int xt, int wt, int yt, int zx, int zy, int lo, int hi)
{
	p[NPU_CV_XT] = xt, p[NPU_CV_WT] = wt, p[NPU_CV_YT] = yt;
	p[NPU_CV_ZX] = zx, p[NPU_CV_ZY] = zy, p[NPU_CV_LO] = lo, p[NPU_CV_HI] = hi;
}

/* ---------------------------------------------------------------- rounding */

static void test_rshift_round(void)
{
	CHECK(npu_rshift_round(-5, 1) == -2);	/* -2.5 rounds half up to -2 */
	CHECK(npu_rshift_round(5, 1) == 3);	/* 2.5 -> 3 */
	CHECK(npu_rshift_round(-6, 2) == -1);	/* -1.5 -> -1 */
	CHECK(npu_rshift_round(-7, 2) == -2);	/* -1.75 -> -2 */
	CHECK(npu_rshift_round(-3, 1) == -1);	/* -1.5 -> -1 */
	CHECK(npu_rshift_round(-1, 1) == 0);	/* -0.5 -> 0 */
	CHECK(npu_rshift_round(7, 0) == 7);
	CHECK(npu_rshift_round(-((int64_t)1 << 40) - 1, 40) == -1);	/* -1 - 2^-40 -> -1 */
}

/* ---------------------------------------------------------------- CONV_Q */

/* 3x3 input, 2x2 kernel, one channel; run as int8 (the depthwise path)
 * and as int16 input (the generic path), same results. */
static void test_conv_q_basic(void)
{
	/* x - ZX (ZX = 1):  2 -2  1 / -1  3  0 / -3  4 -1;  w = 2 -1 / 1 3
	 * (0,0):  2*2 + -2*-1 + -1*1 + 3*3 = 4+2-1+9 = 14, +bias 5 = 19
	 * (0,1): -2*2 +  1*-1 +  3*1 + 0*3 = -4-1+3   = -2, +5 = 3
	 * (1,0): -1*2 +  3*-1 + -3*1 + 4*3 = -2-3-3+12 = 4, +5 = 9
	 * (1,1):  3*2 +  0*-1 +  4*1 - 1*3 = 6+4-3     = 7, +5 = 12
	 * acc/2 half up: 9.5 -> 10, 1.5 -> 2, 4.5 -> 5, 6 -> 6; + ZY -3 */
	int8_t x8[9] = {3, -1, 2, 0, 4, 1, -2, 5, 0}, w[4] = {2, -1, 1, 3}, y8[4];
	int16_t x16[9], y16[4];
	int32_t bias[1] = {5}, mult[1] = {M30}, shift[1] = {31};
	int32_t want[4] = {7, -1, 2, 3};
	int32_t p[NPU_CV_COUNT];
	for (int i = 0; i < 9; i++)
		x16[i] = x8[i];
	conv_geo(p, 1, 1, 3, 3, 1, 2, 2, 2, 2, 1, 1, 0, 0, 1, 1, 1);
	conv_q_types(p, NPU_T_I8, NPU_T_I8, NPU_T_I8, 1, -3, -128, 127);
	RUN(NPU_K_CONV_Q, p, x8, w, bias, mult, shift, NULL, y8);
	CHECK(eq_int(y8, NPU_T_I8, want, 4));
	p[NPU_CV_XT] = NPU_T_I16, p[NPU_CV_YT] = NPU_T_I16;
	RUN(NPU_K_CONV_Q, p, x16, w, bias, mult, shift, NULL, y16);
	CHECK(eq_int(y16, NPU_T_I16, want, 4));
}

/* Two channels in, two out (the im2col path): 3x3 kernel, stride 2,
 * padding 1, input zero point 1, weight zero points [1, 0], per-channel
 * shifts, clamping on both sides. */
static void test_conv_q_pad_stride_wzp(void)
{
	/* x ch0 = 1..9, x - ZX = 0 1 2 / 3 4 5 / 6 7 8
	 * x ch1 = -1 0 1 / 0 -2 0 / 1 0 -1, x - ZX = -2 -1 0 / -1 -3 -1 / 0 -1 -2
	 * oc0: w ch0 all 2, ch1 all 1, wzp 1: effective ch0 all 1, ch1 all 0
	 *   windows (rows/cols 2*o-1 .. 2*o+1, padding contributes 0 even though
	 *   ZX and wzp are not 0):
	 *   (0,0) rows 0-1 cols 0-1: 0+1+3+4 = 8; (0,1) cols 1-2: 1+2+4+5 = 12
	 *   (1,0) rows 1-2 cols 0-1: 3+4+6+7 = 20; (1,1): 4+5+7+8 = 24
	 *   + bias 10: 18 22 30 34; acc/4: 4.5->5 5.5->6 7.5->8 8.5->9;
	 *   + ZY 2: 7 8 10 11, HI 10: 7 8 10 10
	 * oc1: w ch0 0, ch1 = 0 0 0 / 0 3 0 / 0 0 -1, wzp 0: window centre (2oh, 2ow)
	 *   y = 3*x'[r][c] - x'[r+1][c+1]:
	 *   (0,0): 3*-2 - (-3) = -3; (0,1): 3*0 - (pad) = 0; (1,0): 3*0 = 0;
	 *   (1,1): 3*-2 = -6;  + bias -4: -7 -4 -4 -10
	 *   acc/2: -3.5 -> -3, -2, -2, -5; + ZY 2: -1 0 0 -3; LO -2: -1 0 0 -2 */
	int8_t x[18] = {1, 2, 3, 4, 5, 6, 7, 8, 9, -1, 0, 1, 0, -2, 0, 1, 0, -1};
	int8_t w[36] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1,
			0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, -1};
	int32_t bias[2] = {10, -4}, mult[2] = {M30, M30}, shift[2] = {32, 31}, wzp[2] = {1, 0};
	int32_t want[8] = {7, 8, 10, 10, -1, 0, 0, -2};
	int8_t y[8];
	int16_t x16[18], y16[8];
	int32_t p[NPU_CV_COUNT];
	conv_geo(p, 1, 2, 3, 3, 2, 2, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1);
	conv_q_types(p, NPU_T_I8, NPU_T_I8, NPU_T_I8, 1, 2, -2, 10);
	RUN(NPU_K_CONV_Q, p, x, w, bias, mult, shift, wzp, y);
	CHECK(eq_int(y, NPU_T_I8, want, 8));
	for (int i = 0; i < 18; i++)
		x16[i] = x[i];
	p[NPU_CV_XT] = NPU_T_I16, p[NPU_CV_YT] = NPU_T_I16;
	RUN(NPU_K_CONV_Q, p, x16, w, bias, mult, shift, wzp, y16);
	CHECK(eq_int(y16, NPU_T_I16, want, 8));
}

static void test_conv_q_groups(void)
{
	int32_t p[NPU_CV_COUNT];
	int32_t mult[2] = {M30, M30}, shift[2] = {30, 30};
	{
		/* depthwise, 1x3 kernel, padding 1 left (OW 4 implies 1 right):
		 * ch0 x = 1 2 3 4, w = 1 1 1: 0+1+2 = 3, 1+2+3 = 6, 2+3+4 = 9, 3+4+0 = 7
		 * ch1 x = -1 5 0 2, w = 0 2 -1: y[i] = 2 x[i] - x[i+1]:
		 *   -2-5 = -7, 10-0 = 10, 0-2 = -2, 4-0 = 4 */
		int8_t x[8] = {1, 2, 3, 4, -1, 5, 0, 2}, w[6] = {1, 1, 1, 0, 2, -1}, y[8];
		int32_t want[8] = {3, 6, 9, 7, -7, 10, -2, 4};
		conv_geo(p, 1, 2, 1, 4, 2, 1, 4, 1, 3, 1, 1, 0, 1, 1, 1, 2);
		conv_q_types(p, NPU_T_I8, NPU_T_I8, NPU_T_I8, 0, 0, -128, 127);
		RUN(NPU_K_CONV_Q, p, x, w, NULL, mult, shift, NULL, y);
		CHECK(eq_int(y, NPU_T_I8, want, 8));
	}
	{
		/* depthwise, stride 2, dilation 2, padding 2: x = 1..7, w = 1 2 3,
		 * window of ow: columns 2ow-2, 2ow, 2ow+2
		 * ow0: (pad), x0, x2 = 2*1 + 3*3 = 11;  ow1: x0 x2 x4 = 1 + 6 + 15 = 22
		 * ow2: x2 x4 x6 = 3 + 10 + 21 = 34;    ow3: x4 x6 (pad) = 5 + 14 = 19 */
		int8_t x[7] = {1, 2, 3, 4, 5, 6, 7}, w[3] = {1, 2, 3}, y[4];
		int32_t want[4] = {11, 22, 34, 19};
		conv_geo(p, 1, 1, 1, 7, 1, 1, 4, 1, 3, 1, 2, 0, 2, 1, 2, 1);
		conv_q_types(p, NPU_T_I8, NPU_T_I8, NPU_T_I8, 0, 0, -128, 127);
		RUN(NPU_K_CONV_Q, p, x, w, NULL, mult, shift, NULL, y);
		CHECK(eq_int(y, NPU_T_I8, want, 4));
	}
	{
		/* two groups, 1x1: oc0 = ch0 - ch1 (w 1 -1), oc1 = 2 ch2 + ch3
		 * x ch0..3 = [1 2] [3 4] [5 6] [7 8]: oc0 = -2 -2, oc1 = 17 20 */
		int8_t x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, w[4] = {1, -1, 2, 1}, y[4];
		int32_t want[4] = {-2, -2, 17, 20};
		conv_geo(p, 1, 4, 1, 2, 2, 1, 2, 1, 1, 1, 1, 0, 0, 1, 1, 2);
		conv_q_types(p, NPU_T_I8, NPU_T_I8, NPU_T_I8, 0, 0, -128, 127);
		RUN(NPU_K_CONV_Q, p, x, w, NULL, mult, shift, NULL, y);
		CHECK(eq_int(y, NPU_T_I8, want, 4));
	}
	{
		/* vertical: H 7, KH 2, dilation 3, stride 2, one channel in, two out
		 * (im2col path): rows of oh: 2oh and 2oh+3
		 * oc0 w = 1 2: oh0: 1 + 2*4 = 9, oh1: 3 + 2*6 = 15
		 * oc1 w = -1 1: oh0: -1 + 4 = 3, oh1: -3 + 6 = 3 */
		int8_t x[7] = {1, 2, 3, 4, 5, 6, 7}, w[4] = {1, 2, -1, 1}, y[4];
		int32_t want[4] = {9, 15, 3, 3};
		conv_geo(p, 1, 1, 7, 1, 2, 2, 1, 2, 1, 2, 1, 0, 0, 3, 1, 1);
		conv_q_types(p, NPU_T_I8, NPU_T_I8, NPU_T_I8, 0, 0, -128, 127);
		RUN(NPU_K_CONV_Q, p, x, w, NULL, mult, shift, NULL, y);
		CHECK(eq_int(y, NPU_T_I8, want, 4));
	}
}

/* int16 x int16 accumulators beyond int32, and products acc * mult beyond
 * int64 (the runtime must compute them exactly). */
static void test_conv_q_wide(void)
{
	/* x = 32767, ZX = -32768: x - ZX = 65535 = 2^16 - 1; w = 32767 = 2^15 - 1
	 * 2x2 window: acc = 4 (2^16 - 1)(2^15 - 1) = 4 (2^31 - 2^16 - 2^15 + 1)
	 *   = 2^33 - 2^18 - 2^17 + 4 = 8589541380 (beyond int32);
	 * mult = 2^31 - 1: acc * mult = 2^64 - 2^49 - 2^48 + 2^18 + 2^17 - 4
	 *   (beyond int64); shift 50:
	 *   / 2^50 = 2^14 - 1/2 - 1/4 + 2^-32 + 2^-33 - 2^-48 = 16383.25+ -> 16383
	 * with w = -32767: -16383.25- -> floor(-16382.75-) = -16383 */
	int16_t x[4] = {32767, 32767, 32767, 32767}, w[4] = {32767, 32767, 32767, 32767}, wn[4], y[1];
	int32_t mult[1] = {2147483647}, shift[1] = {50}, p[NPU_CV_COUNT];
	int32_t want[1] = {16383}, want_n[1] = {-16383};
	for (int i = 0; i < 4; i++)
		wn[i] = -32767;
	conv_geo(p, 1, 1, 2, 2, 1, 1, 1, 2, 2, 1, 1, 0, 0, 1, 1, 1);
	conv_q_types(p, NPU_T_I16, NPU_T_I16, NPU_T_I16, -32768, 0, -32768, 32767);
	RUN(NPU_K_CONV_Q, p, x, w, NULL, mult, shift, NULL, y);
	CHECK(eq_int(y, NPU_T_I16, want, 1));
	RUN(NPU_K_CONV_Q, p, x, wn, NULL, mult, shift, NULL, y);
	CHECK(eq_int(y, NPU_T_I16, want_n, 1));
	/* shift 62: (2^64 - 2^49 - ...) / 2^62 = 4 - 2^-13 - 2^-14 + ... -> 4 */
	shift[0] = 62;
	want[0] = 4;
	RUN(NPU_K_CONV_Q, p, x, w, NULL, mult, shift, NULL, y);
	CHECK(eq_int(y, NPU_T_I16, want, 1));
}

/* The requantization's edges on the int8 paths (depthwise 1x1, one pixel):
 * x = 127 with ZX = -128 (x - ZX = 255), ZY = 0. */
static void test_conv_q_requant_edges(void)
{
	int32_t p[NPU_CV_COUNT];
	int8_t x[2] = {127, 127}, y[2];
	conv_geo(p, 1, 2, 1, 1, 2, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 2);
	conv_q_types(p, NPU_T_I8, NPU_T_I8, NPU_T_I8, -128, 0, -128, 127);
	{
		/* shift 62, mult 2^31 - 1:
		 * ch0: w -128: acc = 255 * -128 + bias -(2^30 - 1) = -(2^30 + 32639)
		 *   acc * mult = -(2^30 + 32639)(2^31 - 1) = -2^61 - 32639 * 2^31 + 2^30 + 32639
		 *   + 2^61 = -32639 * 2^31 + 2^30 + 32639 < 0, > -2^62: floor(/ 2^62) = -1
		 * ch1: w 127: acc = 255 * 127 + 2^30 - 1 = 2^30 + 32384
		 *   acc * mult + 2^61 = 2^62 + 32384 * 2^31 - 2^30 - 32384: floor = 1 */
		int8_t w[2] = {-128, 127};
		int32_t bias[2] = {-(M30 - 1), M30 - 1}, mult[2] = {0x7fffffff, 0x7fffffff}, shift[2] = {62, 62};
		int32_t want[2] = {-1, 1};
		RUN(NPU_K_CONV_Q, p, x, w, bias, mult, shift, NULL, y);
		CHECK(eq_int(y, NPU_T_I8, want, 2));
	}
	{
		/* bias 2^31 - 1 (acc beyond int32): ch0 w 128 - 1 = 127: 32385 + 2^31 - 1
		 *   = 2^31 + 32384; mult 1, shift 32: (2^31 + 32384 + 2^31) / 2^32 -> 1
		 * ch1 bias -2^31, w -128: -32640 - 2^31; mult 2^30, shift 62:
		 *   (-2^61 - 32640 * 2^30 + 2^61) / 2^62 = -32640 / 2^32 -> floor -1 */
		int8_t w[2] = {127, -128};
		int32_t bias[2] = {0x7fffffff, INT32_MIN}, mult[2] = {1, M30}, shift[2] = {32, 62};
		int32_t want[2] = {1, -1};
		RUN(NPU_K_CONV_Q, p, x, w, bias, mult, shift, NULL, y);
		CHECK(eq_int(y, NPU_T_I8, want, 2));
	}
}

/* The definition, for random cases (int64, floor division written out). */
static void ref_conv_q(const int32_t *p, const void *x, const void *w, const int32_t *bias, const int32_t *mult,
		       const int32_t *shift, const int32_t *wzp, int32_t *y)
{
	int N = p[NPU_CV_N], C = p[NPU_CV_C], H = p[NPU_CV_H], W = p[NPU_CV_W], OC = p[NPU_CV_OC];
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW], G = p[NPU_CV_G];
	int cg = C / G, og = OC / G, i = 0;
	for (int n = 0; n < N; n++)
		for (int o = 0; o < OC; o++)
			for (int oh = 0; oh < OH; oh++)
				for (int ow = 0; ow < OW; ow++) {
					int64_t acc = bias ? bias[o] : 0;
					for (int c = 0; c < cg; c++)
						for (int kh = 0; kh < KH; kh++)
							for (int kw = 0; kw < KW; kw++) {
								int ih = oh * p[NPU_CV_SH] - p[NPU_CV_PT] + kh * p[NPU_CV_DH];
								int iw = ow * p[NPU_CV_SW] - p[NPU_CV_PL] + kw * p[NPU_CV_DW];
								if (ih < 0 || ih >= H || iw < 0 || iw >= W)
									continue;
								int ci = (o / og) * cg + c;
								int64_t xv = get_int(x, p[NPU_CV_XT], ((n * C + ci) * H + ih) * W + iw);
								int64_t wv = get_int(w, p[NPU_CV_WT], ((o * cg + c) * KH + kh) * KW + kw);
								acc += (xv - p[NPU_CV_ZX]) * (wv - (wzp ? wzp[o] : 0));
							}
					int64_t v = acc * mult[o], d = (int64_t)1 << shift[o];
					v += d / 2;
					int64_t q = v / d;
					if (v % d != 0 && v < 0)
						q--;
					q += p[NPU_CV_ZY];
					y[i++] = (int32_t)(q < p[NPU_CV_LO] ? p[NPU_CV_LO] : q > p[NPU_CV_HI] ? p[NPU_CV_HI] : q);
				}
}

static uint64_t rng = 12345;
static int rnd(int lo, int hi)	/* uniform-ish in [lo, hi] */
{
	rng = rng * 6364136223846793005u + 1442695040888963407u;
	return (int)(lo + (int64_t)((rng >> 33) % (uint64_t)((int64_t)hi - lo + 1)));
}

/* Random shapes through every path of CONV_Q against ref_conv_q. */
static void test_conv_q_random(void)
{
	struct {
		int N, C, H, W, OC, KH, KW, S, P, D, G, wzp, yt;
	} cs[] = {
		{1, 3, 9, 11, 5, 3, 3, 1, 1, 1, 1, 0, NPU_T_I8},	/* im2col, OC % 4 != 0 */
		{2, 8, 7, 7, 8, 3, 3, 2, 1, 1, 1, 1, NPU_T_I8},	/* batch, stride 2, wzp */
		{1, 16, 24, 24, 12, 3, 3, 1, 1, 1, 1, 0, NPU_T_I8},	/* several column tiles */
		{1, 40, 13, 13, 9, 1, 1, 1, 0, 1, 1, 1, NPU_T_I16},	/* 1x1, int16 out */
		{1, 6, 10, 10, 6, 3, 3, 1, 2, 2, 3, 0, NPU_T_I8},	/* groups, dilation */
		{1, 12, 15, 14, 12, 3, 3, 2, 1, 1, 12, 1, NPU_T_I8},	/* depthwise stride 2 */
		{2, 5, 9, 8, 5, 5, 5, 1, 2, 1, 5, 0, NPU_T_I8},	/* depthwise 5x5 */
		{1, 4, 6, 6, 8, 3, 3, 1, 1, 1, 4, 1, NPU_T_I8},	/* depthwise x2 (im2col) */
		{1, 3, 17, 17, 7, 7, 7, 2, 3, 1, 1, 0, NPU_T_I8},	/* 7x7 stem */
		{1, 1, 3, 3, 2, 2, 2, 1, 0, 1, 1, 0, NPU_T_I8},
		{1, 2100, 2, 2, 3, 3, 3, 1, 1, 1, 1, 1, NPU_T_I8},	/* K > 16384: generic */
		{3, 33, 1, 1, 17, 1, 1, 1, 0, 1, 1, 1, NPU_T_I8},	/* fully connected */
		{1, 16, 9, 9, 8, 1, 1, 2, 0, 1, 1, 1, NPU_T_I8},	/* 1x1 stride 2 */
		{2, 5, 8, 9, 6, 2, 2, 1, 0, 1, 1, 0, NPU_T_I8},	/* 2x2, batch */
		{1, 8, 11, 10, 10, 3, 3, 2, 1, 1, 2, 1, NPU_T_I8},	/* groups of 5 outputs */
		{1, 64, 20, 20, 16, 3, 3, 1, 1, 1, 1, 1, NPU_T_I8},	/* tiles of partial rows */
		{1, 6, 7, 7, 6, 3, 3, 1, 1, 1, 1, 2, NPU_T_I8},	/* zero points beyond int8 */
		{1, 6, 7, 7, 6, 3, 3, 1, 1, 1, 6, 2, NPU_T_I8},	/* the same, depthwise */
	};
	for (int ci = 0; ci < LEN(cs); ci++) {
		int N = cs[ci].N, C = cs[ci].C, H = cs[ci].H, W = cs[ci].W, OC = cs[ci].OC, KH = cs[ci].KH, KW = cs[ci].KW;
		int S = cs[ci].S, P = cs[ci].P, D = cs[ci].D, G = cs[ci].G;
		int OH = (H + 2 * P - D * (KH - 1) - 1) / S + 1, OW = (W + 2 * P - D * (KW - 1) - 1) / S + 1;
		int nx = N * C * H * W, nw = OC * (C / G) * KH * KW, ny = N * OC * OH * OW;
		int8_t *x = malloc((size_t)nx), *w = malloc((size_t)nw);
		int32_t *bias = malloc(sizeof(int32_t) * (size_t)OC * 4), *mult = bias + OC, *shift = mult + OC,
			*wzp = shift + OC;
		void *y = malloc((size_t)ny * 2);
		int32_t *want = malloc(sizeof(int32_t) * (size_t)ny), p[NPU_CV_COUNT];
		for (int i = 0; i < nx; i++)
			x[i] = (int8_t)rnd(-128, 127);
		for (int i = 0; i < nw; i++)
			w[i] = (int8_t)rnd(-128, 127);
		int yt = cs[ci].yt;
		for (int o = 0; o < OC; o++) {
			bias[o] = rnd(-30000, 30000);
			mult[o] = rnd(M30, 0x7fffffff);
			shift[o] = yt == NPU_T_I8 ? rnd(36, 44) : rnd(30, 38);
			wzp[o] = rnd(-20, 20);
			/* the requantization's edges: huge shifts, negative
			 * multipliers, biases beyond 2^30, shifts 31 and 32 */
			switch (rnd(0, 9)) {
			case 0: shift[o] = rnd(45, 62); break;
			case 1: mult[o] = -mult[o]; break;
			case 2: bias[o] = rnd(0, 1) ? rnd(M30, 0x7fffffff) : -rnd(M30, 0x7fffffff); break;
			case 3: shift[o] = rnd(31, 32), mult[o] = rnd(1, 1 << 16); break;
			default: break;
			}
		}
		conv_geo(p, N, C, H, W, OC, OH, OW, KH, KW, S, S, P, P, D, D, G);
		conv_q_types(p, NPU_T_I8, NPU_T_I8, yt, rnd(-128, 127), rnd(-10, 10), yt == NPU_T_I8 ? -128 : -32768,
			     yt == NPU_T_I8 ? 127 : 32767);
		if (cs[ci].wzp == 2) {	/* not int8 zero points (the generic path) */
			p[NPU_CV_ZX] = 40000;	/* x - ZX beyond int16 */
			for (int o = 0; o < OC; o++)
				wzp[o] = o % 2 ? 300 : -300, shift[o] = 50;
		}
		const int32_t *wz = cs[ci].wzp ? wzp : NULL;
		ref_conv_q(p, x, w, bias, mult, shift, wz, want);
		RUN(NPU_K_CONV_Q, p, x, w, bias, mult, shift, (void *)wz, y);
		CHECK_MSG(eq_int(y, yt, want, ny), "random conv case %d", ci);
		free(x);
		free(w);
		free(bias);
		free(y);
		free(want);
	}
}

/* ---------------------------------------------------------------- ELTWISE_Q */

static void ew_params(int32_t *p, int op, const int32_t cnt[6], const int32_t sa[6], const int32_t sb[6], int at, int bt,
		      int yt)
{
	memset(p, 0, sizeof(int32_t) * NPU_EW_COUNT);
	p[NPU_EW_OP] = op;
	memcpy(p + NPU_EW_COUNTS, cnt, 6 * sizeof(int32_t));
	memcpy(p + NPU_EW_SA, sa, 6 * sizeof(int32_t));
	memcpy(p + NPU_EW_SB, sb, 6 * sizeof(int32_t));
	p[NPU_EW_AT] = at, p[NPU_EW_BT] = bt, p[NPU_EW_YT] = yt;
	p[NPU_EW_ACT] = -1;
}

static void test_eltwise_q(void)
{
	int32_t p[NPU_EW_COUNT];
	/* a [2,3] + b [1,3] broadcast over rows; ZA 2, ZB -1, MA 3, MB 5,
	 * SHIFT 2 (acc/4), ZY 1:
	 *  a=10:  8*3 + 2*5 =   34 ->   8.5  ->   9 -> 10
	 *  a=-20: -22*3 + 3*5 = -51 -> -12.75 -> -13 -> -12
	 *  a=30:  28*3 + 4*5 = 104 ->  26 -> 27
	 *  a=40:  38*3 + 2*5 = 124 ->  31 -> 32
	 *  a=50:  48*3 + 3*5 = 159 ->  39.75 -> 40 -> 41
	 *  a=-60: -62*3 + 4*5 = -166 -> -41.5 -> -41 (half up) -> -40 */
	int32_t cnt[6] = {1, 1, 1, 1, 2, 3}, sa[6] = {0, 0, 0, 0, 3, 1}, sb[6] = {0, 0, 0, 0, 0, 1};
	int8_t a[6] = {10, -20, 30, 40, 50, -60}, b[3] = {1, 2, 3}, y[6];
	int32_t want_add[6] = {10, -12, 27, 32, 41, -40};
	ew_params(p, NPU_BIN_ADD, cnt, sa, sb, NPU_T_I8, NPU_T_I8, NPU_T_I8);
	p[NPU_EW_ZA] = 2, p[NPU_EW_ZB] = -1, p[NPU_EW_ZY] = 1, p[NPU_EW_MA] = 3, p[NPU_EW_MB] = 5;
	p[NPU_EW_SHIFT] = 2, p[NPU_EW_LO] = -128, p[NPU_EW_HI] = 127;
	RUN(NPU_K_ELTWISE_Q, p, a, b, y);
	CHECK(eq_int(y, NPU_T_I8, want_add, 6));
	/* sub: 24-10 = 14 -> 3.5 -> 4 -> 5;  -66-15 = -81 -> -20.25 -> -20 -> -19
	 *      84-20 = 64 -> 16 -> 17;       114-10 = 104 -> 26 -> 27
	 *      144-15 = 129 -> 32.25 -> 32 -> 33;  -186-20 = -206 -> -51.5 -> -51 -> -50 */
	int32_t want_sub[6] = {5, -19, 17, 27, 33, -50};
	p[NPU_EW_OP] = NPU_BIN_SUB;
	RUN(NPU_K_ELTWISE_Q, p, a, b, y);
	CHECK(eq_int(y, NPU_T_I8, want_sub, 6));
	/* the int8 fast path (shifts >= 11): MA, MB and SHIFT scaled by 2^20
	 * give the same quotients, floor((2^20 acc + 2^21) / 2^22) = floor((acc + 2) / 4) */
	p[NPU_EW_MA] = 3 << 20, p[NPU_EW_MB] = 5 << 20, p[NPU_EW_SHIFT] = 22;
	RUN(NPU_K_ELTWISE_Q, p, a, b, y);
	CHECK(eq_int(y, NPU_T_I8, want_sub, 6));
	p[NPU_EW_OP] = NPU_BIN_ADD;
	RUN(NPU_K_ELTWISE_Q, p, a, b, y);
	CHECK(eq_int(y, NPU_T_I8, want_add, 6));
	/* b broadcast along the inner dim (stride 0): b = 3 for every a of row 0
	 * and b = 1 for row 1 (b's outer stride -2 from offset... b read at
	 * b[2 - 2 i]): row 0 a + (3+1)*5 = 20: 10 -> 24+20 = 44 -> 11 -> 12;
	 * -20 -> -66+20 = -46 -> -11.5 -> -11 -> -10; 30 -> 84+20 = 104 -> 27
	 * row 1, b = 1 (+10): 40 -> 124 -> 32; 50 -> 144+10 = 154 -> 38.5 -> 39 -> 40;
	 * -60 -> -186+10 = -176 -> -44 -> -43 */
	int32_t sbi[6] = {0, 0, 0, 0, -2, 0};
	int8_t bi[3] = {1, 2, 3};
	int32_t want_bi[6] = {12, -10, 27, 32, 40, -43};
	ew_params(p, NPU_BIN_ADD, cnt, sa, sbi, NPU_T_I8, NPU_T_I8, NPU_T_I8);
	p[NPU_EW_ZA] = 2, p[NPU_EW_ZB] = -1, p[NPU_EW_ZY] = 1, p[NPU_EW_MA] = 3 << 20, p[NPU_EW_MB] = 5 << 20;
	p[NPU_EW_SHIFT] = 22, p[NPU_EW_LO] = -128, p[NPU_EW_HI] = 127;
	RUN(NPU_K_ELTWISE_Q, p, a, bi + 2, y);
	CHECK(eq_int(y, NPU_T_I8, want_bi, 6));
	/* and a broadcast along the inner dim instead (operands swapped, so
	 * MA <-> MB, ZA <-> ZB): same sums */
	ew_params(p, NPU_BIN_ADD, cnt, sbi, sa, NPU_T_I8, NPU_T_I8, NPU_T_I8);
	p[NPU_EW_ZA] = -1, p[NPU_EW_ZB] = 2, p[NPU_EW_ZY] = 1, p[NPU_EW_MA] = 5 << 20, p[NPU_EW_MB] = 3 << 20;
	p[NPU_EW_SHIFT] = 22, p[NPU_EW_LO] = -128, p[NPU_EW_HI] = 127;
	RUN(NPU_K_ELTWISE_Q, p, bi + 2, a, y);
	CHECK(eq_int(y, NPU_T_I8, want_bi, 6));

	/* mul, saturating: (a)(b) * 2^30 / 2^32 = ab/4:
	 * 100*100 = 10000 -> 2500 -> 127; -100*100 -> -2500 -> -128;
	 * 7*-3 = -21 -> -5.25 -> -5 */
	int32_t c3[6] = {1, 1, 1, 1, 1, 3}, s1[6] = {0, 0, 0, 0, 0, 1};
	int8_t ma[3] = {100, -100, 7}, mb[3] = {100, 100, -3}, my[3];
	int32_t want_mul[3] = {127, -128, -5};
	ew_params(p, NPU_BIN_MUL, c3, s1, s1, NPU_T_I8, NPU_T_I8, NPU_T_I8);
	p[NPU_EW_MA] = M30, p[NPU_EW_SHIFT] = 32, p[NPU_EW_LO] = -128, p[NPU_EW_HI] = 127;
	RUN(NPU_K_ELTWISE_Q, p, ma, mb, my);
	CHECK(eq_int(my, NPU_T_I8, want_mul, 3));

	/* mixed types, b read with stride 2 and a broadcast scalar along the
	 * outer dim: int16 a [1000, -1000] (a stride 1), int8 b = [3, x, -3]:
	 * y = a*b (MA 1, SHIFT 0): 3000, 3000; int16 y, ZB 0 */
	int32_t c2[6] = {1, 1, 1, 1, 1, 2}, sa2[6] = {0, 0, 0, 0, 0, 1}, sb2[6] = {0, 0, 0, 0, 0, 2};
	int16_t a16[2] = {1000, -1000}, y16[2];
	int8_t b8[3] = {3, 99, -3};
	int32_t want_mix[2] = {3000, 3000};
	ew_params(p, NPU_BIN_MUL, c2, sa2, sb2, NPU_T_I16, NPU_T_I8, NPU_T_I16);
	p[NPU_EW_MA] = 1, p[NPU_EW_LO] = -32768, p[NPU_EW_HI] = 32767;
	RUN(NPU_K_ELTWISE_Q, p, a16, b8, y16);
	CHECK(eq_int(y16, NPU_T_I16, want_mix, 2));

	/* a 4-d broadcast: a [2,1,2] + b [1,2,1] -> y [2,2,2] (MA = MB = 1, SHIFT 0)
	 * a = [[1,2]],[[3,4]] ; b = [10,20]: y[i][j][k] = a[i][k] + b[j]
	 * = 11 12 21 22 13 14 23 24 */
	int32_t c4[6] = {1, 1, 1, 2, 2, 2}, sa4[6] = {0, 0, 0, 2, 0, 1}, sb4[6] = {0, 0, 0, 0, 1, 0};
	int8_t a4[4] = {1, 2, 3, 4}, b4[2] = {10, 20}, y4[8];
	int32_t want4[8] = {11, 12, 21, 22, 13, 14, 23, 24};
	ew_params(p, NPU_BIN_ADD, c4, sa4, sb4, NPU_T_I8, NPU_T_I8, NPU_T_I8);
	p[NPU_EW_MA] = 1, p[NPU_EW_MB] = 1, p[NPU_EW_LO] = -128, p[NPU_EW_HI] = 127;
	RUN(NPU_K_ELTWISE_Q, p, a4, b4, y4);
	CHECK(eq_int(y4, NPU_T_I8, want4, 8));
}

/* floor((v + 2^(s-1)) / 2^s), written out (v + 2^(s-1) must fit) */
static int64_t ref_rshift(int64_t v, int s)
{
	if (s == 0)
		return v;
	int64_t d = (int64_t)1 << s, t = v + d / 2, q = t / d;
	return t % d != 0 && t < 0 ? q - 1 : q;
}

/* Random int8 add/sub/requant (every inner stride case, the fast paths'
 * shift range and their edges) against the definitions. */
static void test_eltwise_requant_random(void)
{
	int bad = 0;
	for (int c = 0; c < 400; c++) {
		int32_t p[NPU_EW_COUNT], cnt[6] = {1, 1, 1, 1, rnd(1, 3), rnd(1, 40)};
		int32_t sa[6] = {0, 0, 0, 0, cnt[5], 1}, sb[6] = {0, 0, 0, 0, cnt[5], 1};
		int n = cnt[4] * cnt[5];
		int8_t a[120], b[120], y[120];
		int mode = rnd(0, 3);	/* which of a, b is broadcast along the inner dim */
		if (mode & 1)
			sa[5] = 0, sa[4] = 1;
		if (mode & 2)
			sb[5] = 0, sb[4] = rnd(0, 1);
		for (int i = 0; i < 120; i++)
			a[i] = (int8_t)rnd(-128, 127), b[i] = (int8_t)rnd(-128, 127);
		int op = rnd(0, 1) ? NPU_BIN_ADD : NPU_BIN_SUB;
		ew_params(p, op, cnt, sa, sb, NPU_T_I8, NPU_T_I8, NPU_T_I8);
		int32_t za = rnd(-128, 127), zb = rnd(-128, 127), zy = rnd(-20, 20), sh = rnd(8, 45);
		int32_t ma = rnd(0, 1 << 30), mb = rnd(0, 1 << 30), lo = rnd(-128, 0), hi = rnd(0, 127);
		if (rnd(0, 9) == 0)
			ma = -ma;
		if (rnd(0, 9) == 0)
			sh = rnd(55, 62);
		p[NPU_EW_ZA] = za, p[NPU_EW_ZB] = zb, p[NPU_EW_ZY] = zy, p[NPU_EW_MA] = ma, p[NPU_EW_MB] = mb;
		p[NPU_EW_SHIFT] = sh, p[NPU_EW_LO] = lo, p[NPU_EW_HI] = hi;
		RUN(NPU_K_ELTWISE_Q, p, a, b, y);
		for (int i = 0, k = 0; i < cnt[4]; i++)
			for (int j = 0; j < cnt[5]; j++, k++) {
				int64_t da = a[i * sa[4] + j * sa[5]] - za, db = b[i * sb[4] + j * sb[5]] - zb;
				int64_t v = zy + ref_rshift(op == NPU_BIN_ADD ? da * ma + db * mb : da * ma - db * mb, sh);
				v = v < lo ? lo : v > hi ? hi : v;
				if (y[k] != v && bad++ < 5)
					printf("# %s mode %d: a %d b %d za %d zb %d zy %d ma %d mb %d shift %d [%d, %d]: got %d, want %d\n",
					       op == NPU_BIN_ADD ? "add" : "sub", mode, a[i * sa[4] + j * sa[5]],
					       b[i * sb[4] + j * sb[5]], za, zb, zy, ma, mb, sh, lo, hi, y[k], (int)v);
			}
		/* requant of the same a, dense rows */
		int32_t q[NPU_RQ_COUNT] = {0}, one[6] = {0, 0, 0, 0, cnt[5], 1};
		memcpy(q + NPU_RQ_COUNTS, cnt, sizeof cnt);
		memcpy(q + NPU_RQ_SS, one, sizeof one);
		memcpy(q + NPU_RQ_DS, one, sizeof one);
		q[NPU_RQ_XT] = q[NPU_RQ_YT] = NPU_T_I8, q[NPU_RQ_ZX] = za, q[NPU_RQ_ZY] = zy;
		q[NPU_RQ_MULT] = ma, q[NPU_RQ_SHIFT] = sh, q[NPU_RQ_LO] = lo, q[NPU_RQ_HI] = hi;
		RUN(NPU_K_REQUANT, q, a, y);
		for (int k = 0; k < n; k++) {
			int64_t v = zy + ref_rshift((a[k] - (int64_t)za) * ma, sh);
			v = v < lo ? lo : v > hi ? hi : v;
			if (y[k] != v && bad++ < 5)
				printf("# requant: x %d zx %d zy %d mult %d shift %d [%d, %d]: got %d, want %d\n", a[k], za, zy,
				       ma, sh, lo, hi, y[k], (int)v);
		}
	}
	CHECK_MSG(bad == 0, "%d wrong elements", bad);
}

/* ---------------------------------------------------------------- REQUANT */

static void rq_params(int32_t *p, const int32_t cnt[6], const int32_t ss[6], const int32_t ds[6], int soff, int doff)
{
	memset(p, 0, sizeof(int32_t) * NPU_RQ_COUNT);
	memcpy(p + NPU_RQ_COUNTS, cnt, 6 * sizeof(int32_t));
	memcpy(p + NPU_RQ_SS, ss, 6 * sizeof(int32_t));
	memcpy(p + NPU_RQ_DS, ds, 6 * sizeof(int32_t));
	p[NPU_RQ_SOFF] = soff, p[NPU_RQ_DOFF] = doff;
}

static void test_requant(void)
{
	int32_t p[NPU_RQ_COUNT];
	/* transposing 2x3 -> 3x2 into y at offset 1: y[1 + i + 2j] = f(x[i][j])
	 * f(x) = -2 + rshift_round((x - 1) * 3, 1), clamped to [-128, 5]:
	 * x=1: 0 -> -2; x=2: 1.5 -> 2 -> 0; x=3: 3 -> 1; x=4: 4.5 -> 5 -> 3;
	 * x=5: 6 -> 4; x=6: 7.5 -> 8 -> 6 -> 5 (HI)
	 * y[1]=f(1) y[3]=f(2) y[5]=f(3) y[2]=f(4) y[4]=f(5) y[6]=f(6) */
	int32_t cnt[6] = {1, 1, 1, 1, 2, 3}, ss[6] = {0, 0, 0, 0, 3, 1}, ds[6] = {0, 0, 0, 0, 1, 2};
	int8_t x[6] = {1, 2, 3, 4, 5, 6}, y[7] = {99, 0, 0, 0, 0, 0, 0};
	int32_t want[7] = {99, -2, 3, 0, 4, 1, 5};
	rq_params(p, cnt, ss, ds, 0, 1);
	p[NPU_RQ_XT] = NPU_T_I8, p[NPU_RQ_YT] = NPU_T_I8, p[NPU_RQ_ZX] = 1, p[NPU_RQ_ZY] = -2;
	p[NPU_RQ_MULT] = 3, p[NPU_RQ_SHIFT] = 1, p[NPU_RQ_LO] = -128, p[NPU_RQ_HI] = 5;
	RUN(NPU_K_REQUANT, p, x, y);
	CHECK(eq_int(y, NPU_T_I8, want, 7));
	/* dense rows (the int8 fast path) with MULT 3 * 2^20, SHIFT 21: the
	 * same quotients; x at offset 1, y at offset 2, rows of 3:
	 * f(2..6) = 0 1 3 4 5 at y[2..6] */
	int32_t cd[6] = {1, 1, 1, 1, 1, 5}, sd[6] = {0, 0, 0, 0, 0, 1};
	int8_t yd[7] = {99, 99, 0, 0, 0, 0, 0};
	int32_t want_d[7] = {99, 99, 0, 1, 3, 4, 5};
	rq_params(p, cd, sd, sd, 1, 2);
	p[NPU_RQ_XT] = NPU_T_I8, p[NPU_RQ_YT] = NPU_T_I8, p[NPU_RQ_ZX] = 1, p[NPU_RQ_ZY] = -2;
	p[NPU_RQ_MULT] = 3 << 20, p[NPU_RQ_SHIFT] = 21, p[NPU_RQ_LO] = -128, p[NPU_RQ_HI] = 5;
	RUN(NPU_K_REQUANT, p, x, yd);
	CHECK(eq_int(yd, NPU_T_I8, want_d, 7));

	/* negative ties round half up: -5/2 = -2.5 -> -2, -6/4 = -1.5 -> -1,
	 * -7/4 -> -2, -1/2 -> 0, 5/2 -> 3 (each with its own shift: one op per value) */
	int32_t c1[6] = {1, 1, 1, 1, 1, 1}, s0[6] = {0};
	struct { int8_t x; int shift; int32_t want; } ties[] = {{-5, 1, -2}, {-6, 2, -1}, {-7, 2, -2}, {-1, 1, 0}, {5, 1, 3}, {-3, 1, -1}};
	int ok = 1;
	for (int i = 0; i < LEN(ties); i++) {
		int8_t tx = ties[i].x, ty = 0;
		rq_params(p, c1, s0, s0, 0, 0);
		p[NPU_RQ_XT] = NPU_T_I8, p[NPU_RQ_YT] = NPU_T_I8, p[NPU_RQ_MULT] = 1, p[NPU_RQ_SHIFT] = ties[i].shift;
		p[NPU_RQ_LO] = -128, p[NPU_RQ_HI] = 127;
		RUN(NPU_K_REQUANT, p, &tx, &ty);
		ok &= eq_int(&ty, NPU_T_I8, &ties[i].want, 1);
		/* and through the fast path: MULT 2^20, shift + 20 */
		p[NPU_RQ_MULT] = 1 << 20, p[NPU_RQ_SHIFT] = ties[i].shift + 20;
		RUN(NPU_K_REQUANT, p, &tx, &ty);
		ok &= eq_int(&ty, NPU_T_I8, &ties[i].want, 1);
	}
	CHECK(ok);

	/* int16 -> int8 saturation: x = 1000, -1000, 300 with MULT 1 SHIFT 1:
	 * 500 -> 127, -500 -> -128, 150 -> 127; and 254 -> 127, -257 -> -128.5 -> -128 */
	int32_t c5[6] = {1, 1, 1, 1, 1, 5}, u[6] = {0, 0, 0, 0, 0, 1};
	int16_t x16[5] = {1000, -1000, 300, 254, -257};
	int8_t y8[5];
	int32_t want8[5] = {127, -128, 127, 127, -128};
	rq_params(p, c5, u, u, 0, 0);
	p[NPU_RQ_XT] = NPU_T_I16, p[NPU_RQ_YT] = NPU_T_I8, p[NPU_RQ_MULT] = 1, p[NPU_RQ_SHIFT] = 1;
	p[NPU_RQ_LO] = -128, p[NPU_RQ_HI] = 127;
	RUN(NPU_K_REQUANT, p, x16, y8);
	CHECK(eq_int(y8, NPU_T_I8, want8, 5));

	/* int32 with x - ZX beyond int32: 2000000000 - (-2000000000) = 4e9,
	 * * 2^30 / 2^40 = 4e9 / 1024 = 3906250 exactly; uint8 out of an
	 * int8 with ZY 128: -128 -> 0, 127 -> 255 */
	int32_t x32[1] = {2000000000}, y32[1], want32[1] = {3906250};
	rq_params(p, c1, s0, s0, 0, 0);
	p[NPU_RQ_XT] = NPU_T_I32, p[NPU_RQ_YT] = NPU_T_I32, p[NPU_RQ_ZX] = -2000000000, p[NPU_RQ_MULT] = M30;
	p[NPU_RQ_SHIFT] = 40, p[NPU_RQ_LO] = INT32_MIN, p[NPU_RQ_HI] = INT32_MAX;
	RUN(NPU_K_REQUANT, p, x32, y32);
	CHECK(eq_int(y32, NPU_T_I32, want32, 1));
	int32_t c2[6] = {1, 1, 1, 1, 1, 2};
	int8_t xs[2] = {-128, 127};
	uint8_t yu[2];
	int32_t wantu[2] = {0, 255};
	rq_params(p, c2, u, u, 0, 0);
	p[NPU_RQ_XT] = NPU_T_I8, p[NPU_RQ_YT] = NPU_T_U8, p[NPU_RQ_ZY] = 128, p[NPU_RQ_MULT] = 1;
	p[NPU_RQ_LO] = 0, p[NPU_RQ_HI] = 255;
	RUN(NPU_K_REQUANT, p, xs, yu);
	CHECK(eq_int(yu, NPU_T_U8, wantu, 2));
}

/* ---------------------------------------------------------------- QUANTIZE, DEQUANTIZE */

static void test_quantize(void)
{
	int32_t p[NPU_QZ_COUNT] = {0};
	/* scale 0.5, ZP 1: x / 0.5 = 0.5 1.5 -0.5 -1.5 2.5 5 7 -5 2000 -2000 NaN 0.6(0.3f/0.5)
	 * half to even: 0 2 0 -2 2 5 7 -5 2000 -2000 (NaN: 0) 1
	 * + 1, clamp [-128, 127]: 1 3 1 -1 3 6 8 -4 127 -128 1 2 */
	float x[12] = {0.25f, 0.75f, -0.25f, -0.75f, 1.25f, 2.5f, 3.5f, -2.5f, 1000, -1000, NAN, 0.3f};
	int8_t y[12];
	int32_t want[12] = {1, 3, 1, -1, 3, 6, 8, -4, 127, -128, 1, 2};
	p[NPU_QZ_N] = 12, p[NPU_QZ_XT] = NPU_T_F32, p[NPU_QZ_YT] = NPU_T_I8, p[NPU_QZ_SCALE] = fbits(0.5f);
	p[NPU_QZ_ZP] = 1, p[NPU_QZ_LO] = -128, p[NPU_QZ_HI] = 127;
	RUN(NPU_K_QUANTIZE, p, x, y);
	CHECK(eq_int(y, NPU_T_I8, want, 12));

	/* beyond 2^23 (already integers), beyond int32, infinities; int32 out:
	 * 8388609 -> 8388609; -8388609.0 -> -8388609; 1e10 -> HI; -1e10 -> LO;
	 * inf -> HI; 1.5 -> 2; 0.5 -> 0; -0.5 -> 0 */
	float xb[8] = {8388609.0f, -8388609.0f, 1e10f, -1e10f, INFINITY, 1.5f, 0.5f, -0.5f};
	int32_t yb[8], wantb[8] = {8388609, -8388609, INT32_MAX, INT32_MIN, INT32_MAX, 2, 0, 0};
	p[NPU_QZ_N] = 8, p[NPU_QZ_YT] = NPU_T_I32, p[NPU_QZ_SCALE] = fbits(1.0f), p[NPU_QZ_ZP] = 0;
	p[NPU_QZ_LO] = INT32_MIN, p[NPU_QZ_HI] = INT32_MAX;
	RUN(NPU_K_QUANTIZE, p, xb, yb);
	CHECK(eq_int(yb, NPU_T_I32, wantb, 8));

	/* f16 input, int16 output, scale 1, ZP -1: 1.5 -> 2, 2.5 -> 2,
	 * -3.5 -> -4, -0.25 -> 0; - 1: 1 1 -5 -1 */
	uint16_t xh[4] = {npu_f32_to_f16(1.5f), npu_f32_to_f16(2.5f), npu_f32_to_f16(-3.5f), npu_f32_to_f16(-0.25f)};
	int16_t yh[4];
	int32_t wanth[4] = {1, 1, -5, -1};
	p[NPU_QZ_N] = 4, p[NPU_QZ_XT] = NPU_T_F16, p[NPU_QZ_YT] = NPU_T_I16, p[NPU_QZ_SCALE] = fbits(1.0f);
	p[NPU_QZ_ZP] = -1, p[NPU_QZ_LO] = -32768, p[NPU_QZ_HI] = 32767;
	RUN(NPU_K_QUANTIZE, p, xh, yh);
	CHECK(eq_int(yh, NPU_T_I16, wanth, 4));
}

/* Random floats (ties, huge values, NaN) to int8/uint8/int16 against
 * rintf (round half to even in the default rounding mode). */
static void test_quantize_random(void)
{
	static const int types[3] = {NPU_T_I8, NPU_T_U8, NPU_T_I16};
	int bad = 0;
	for (int c = 0; c < 60; c++) {
		int32_t p[NPU_QZ_COUNT] = {0};
		float x[64], scale = (float)rnd(1, 1000) / 256;
		int yt = types[c % 3];
		int32_t lo = yt == NPU_T_I8 ? -128 : yt == NPU_T_U8 ? 0 : -32768, hi = yt == NPU_T_I8 ? 127 : yt == NPU_T_U8 ? 255 : 32767;
		int32_t zp = yt == NPU_T_U8 ? rnd(0, 255) : rnd(-20, 20);
		for (int i = 0; i < 64; i++) {
			switch (rnd(0, 4)) {
			case 0: x[i] = ((float)rnd(-400, 400) + 0.5f) * scale; break;	/* ties after the division (mostly) */
			case 1: x[i] = (float)rnd(-1000000, 1000000) * 1e3f; break;
			case 2: x[i] = rnd(0, 1) ? NAN : -INFINITY; break;
			default: x[i] = (float)rnd(-100000, 100000) / 997.0f; break;
			}
		}
		p[NPU_QZ_N] = 64, p[NPU_QZ_XT] = NPU_T_F32, p[NPU_QZ_YT] = yt, p[NPU_QZ_SCALE] = fbits(scale);
		p[NPU_QZ_ZP] = zp, p[NPU_QZ_LO] = lo, p[NPU_QZ_HI] = hi;
		int16_t y[64];
		RUN(NPU_K_QUANTIZE, p, x, y);
		for (int i = 0; i < 64; i++) {
			float q = x[i] / scale;
			double r = q != q ? 0 : q > 3e9f ? 3e9 : q < -3e9f ? -3e9 : rintf(q);
			r += zp;
			int32_t want = (int32_t)(r < lo ? lo : r > hi ? hi : r);
			if (get_int(y, yt, i) != want && bad++ < 5)
				printf("# quantize %.9g / %.9g -> got %d, want %d\n", x[i], scale, (int)get_int(y, yt, i), (int)want);
		}
	}
	CHECK_MSG(bad == 0, "%d wrong values", bad);
}

static void test_dequantize(void)
{
	int32_t p[NPU_QZ_COUNT] = {0};
	/* (x - 2) * 0.25: -128 -> -32.5, 0 -> -0.5, 5 -> 0.75, 127 -> 31.25 */
	int8_t x[4] = {-128, 0, 5, 127};
	float y[4], want[4] = {-32.5f, -0.5f, 0.75f, 31.25f};
	p[NPU_QZ_N] = 4, p[NPU_QZ_XT] = NPU_T_I8, p[NPU_QZ_YT] = NPU_T_F32, p[NPU_QZ_SCALE] = fbits(0.25f);
	p[NPU_QZ_ZP] = 2;
	RUN(NPU_K_DEQUANTIZE, p, x, y);
	CHECK(eq_f32(y, want, 4));
	/* f16 out rounds: 2049 is halfway between 2048 and 2050 -> even 2048
	 * (0x6800); 2051 between 2050 (0x6801) and 2052 (0x6802) -> 0x6802;
	 * -3 -> 0xc200 */
	int16_t x16[3] = {2049, 2051, -3};
	uint16_t yh[3], wanth[3] = {0x6800, 0x6802, 0xc200};
	p[NPU_QZ_N] = 3, p[NPU_QZ_XT] = NPU_T_I16, p[NPU_QZ_YT] = NPU_T_F16, p[NPU_QZ_SCALE] = fbits(1.0f);
	p[NPU_QZ_ZP] = 0;
	RUN(NPU_K_DEQUANTIZE, p, x16, yh);
	CHECK(eq_u16(yh, wanth, 3));
}

/* ---------------------------------------------------------------- LUT */

static void test_lut(void)
{
	int32_t p[NPU_LT_COUNT] = {0};
	/* int8: t[i] = i/2 - 64 (integer division): x -128 -> t[0] = -64,
	 * x 0 -> t[128] = 0, x 127 -> t[255] = 63, x -1 -> t[127] = -1 */
	int8_t t8[256], x8[4] = {-128, 0, 127, -1}, y8[4];
	int32_t want8[4] = {-64, 0, 63, -1};
	for (int i = 0; i < 256; i++)
		t8[i] = (int8_t)(i / 2 - 64);
	p[NPU_LT_N] = 4, p[NPU_LT_XT] = NPU_T_I8, p[NPU_LT_YT] = NPU_T_I8;
	RUN(NPU_K_LUT, p, x8, t8, y8);
	CHECK(eq_int(y8, NPU_T_I8, want8, 4));

	/* int16, BITS 8 (257 entries), t[i] = 7i - 900: i = (x + 32768) >> 8,
	 * f = (x + 32768) & 255, y = t[i] + rshift_round(7 f, 8):
	 * x 0: i 128, f 0: t[128] = -4
	 * x 128: f 128: 896/256 = 3.5 -> 4: 0
	 * x 64: f 64: 448/256 = 1.75 -> 2: -2
	 * x -32768: t[0] = -900
	 * x 32767: i 255, f 255: t[255] = 885, 1785/256 = 6.97 -> 7: 892 */
	int16_t t16[257], x16[5] = {0, 128, 64, -32768, 32767}, y16[5];
	int32_t want16[5] = {-4, 0, -2, -900, 892};
	for (int i = 0; i < 257; i++)
		t16[i] = (int16_t)(7 * i - 900);
	p[NPU_LT_N] = 5, p[NPU_LT_XT] = NPU_T_I16, p[NPU_LT_YT] = NPU_T_I16, p[NPU_LT_BITS] = 8;
	RUN(NPU_K_LUT, p, x16, t16, y16);
	CHECK(eq_int(y16, NPU_T_I16, want16, 5));

	/* decreasing t[i] = 900 - 5i: x 128: t[128] = 260, (t[129]-t[128]) f = -5*128
	 * = -640, /256 = -2.5 -> -2 (half up): 258;
	 * x -129: x + 32768 = 32639 = 127*256 + 127: t[127] = 265, -5*127 = -635,
	 * /256 = -2.48 -> -2: 263 */
	int16_t xd[2] = {128, -129}, yd[2];
	int32_t wantd[2] = {258, 263};
	for (int i = 0; i < 257; i++)
		t16[i] = (int16_t)(900 - 5 * i);
	p[NPU_LT_N] = 2;
	RUN(NPU_K_LUT, p, xd, t16, yd);
	CHECK(eq_int(yd, NPU_T_I16, wantd, 2));

	/* int16 -> int8 table, BITS 4 (17 entries, 12 bits interpolated):
	 * t[i] = 10i - 80; x = -32768 + 3*4096 + 2048: i 3, f 2048: -50 + 10*2048/4096
	 * = -50 + 5 = -45 */
	int8_t t4[17], y4[1];
	int16_t x4[1] = {(int16_t)(-32768 + 3 * 4096 + 2048)};
	int32_t want4[1] = {-45};
	for (int i = 0; i < 17; i++)
		t4[i] = (int8_t)(10 * i - 80);
	p[NPU_LT_N] = 1, p[NPU_LT_XT] = NPU_T_I16, p[NPU_LT_YT] = NPU_T_I8, p[NPU_LT_BITS] = 4;
	RUN(NPU_K_LUT, p, x4, t4, y4);
	CHECK(eq_int(y4, NPU_T_I8, want4, 1));
}

/* ---------------------------------------------------------------- POOL_Q */

static void pool_params(int32_t *p, int C, int H, int W, int OH, int OW, int KH, int KW, int SH, int SW, int PT, int PL,
			int PB, int PR, int mode, int count_pad)
{
	int32_t v[] = {1, C, H, W, OH, OW, KH, KW, SH, SW, PT, PL, PB, PR, mode, count_pad};
	memset(p, 0, sizeof(int32_t) * NPU_PL_COUNT);
	memcpy(p, v, sizeof v);
}

static void test_pool_q(void)
{
	int32_t p[NPU_PL_COUNT];
	int8_t x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, y[4];
	/* max 2x2 stride 2 on 3x3, ceil mode (OH = OW = 2, the last window hangs
	 * over): (0,0) max(1,2,4,5) = 5; (0,1) max(3,6) = 6; (1,0) max(7,8) = 8;
	 * (1,1) 9; ZX = ZY = 3, HI 7: 5 6 7 7 */
	int32_t want_max[4] = {5, 6, 7, 7};
	pool_params(p, 1, 3, 3, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, NPU_POOL_MAX, 0);
	p[NPU_PL_XT] = p[NPU_PL_YT] = NPU_T_I8, p[NPU_PL_ZX] = 3, p[NPU_PL_ZY] = 3, p[NPU_PL_LO] = -128, p[NPU_PL_HI] = 7;
	RUN(NPU_K_POOL_Q, p, x, y);
	CHECK(eq_int(y, NPU_T_I8, want_max, 4));
	/* average, same windows, ZX 1, ZY -1, cells inside only:
	 * (0,0): 0+1+3+4 = 8 / 4 = 2 -> 1; (0,1): 2+5 = 7 / 2 = 3.5 -> 4 -> 3
	 * (1,0): 6+7 = 13 / 2 = 6.5 -> 7 -> 6; (1,1): 8 / 1 -> 7 */
	int32_t want_avg[4] = {1, 3, 6, 7};
	p[NPU_PL_MODE] = NPU_POOL_AVG, p[NPU_PL_ZX] = 1, p[NPU_PL_ZY] = -1, p[NPU_PL_HI] = 127;
	RUN(NPU_K_POOL_Q, p, x, y);
	CHECK(eq_int(y, NPU_T_I8, want_avg, 4));

	/* negative averages round away from zero: 1x2 windows over
	 * -3 -4 | -5 0 | -1 0 0: -7/2 = -3.5 -> -4; -5/2 = -2.5 -> -3 */
	int8_t xn[4] = {-3, -4, -5, 0}, yn[2];
	int32_t want_n[2] = {-4, -3};
	pool_params(p, 1, 1, 4, 1, 2, 1, 2, 1, 2, 0, 0, 0, 0, NPU_POOL_AVG, 0);
	p[NPU_PL_XT] = p[NPU_PL_YT] = NPU_T_I8, p[NPU_PL_LO] = -128, p[NPU_PL_HI] = 127;
	RUN(NPU_K_POOL_Q, p, xn, yn);
	CHECK(eq_int(yn, NPU_T_I8, want_n, 2));

	/* padding 1 both sides, 1x3 window, stride 2, ceil mode: W 4 -> OW 3;
	 * x = 4 8 12 16; windows: cols -1..1, 1..3, 3..5 (5 is past the padding)
	 * count_pad: counts 3, 3, 2 (the overhang col 5 never counts):
	 *   12/3 = 4, 36/3 = 12, 16/2 = 8
	 * without:  counts 2, 3, 1: 12/2 = 6, 12, 16 */
	int8_t xp[4] = {4, 8, 12, 16}, yp[3];
	int32_t want_cp[3] = {4, 12, 8}, want_np[3] = {6, 12, 16};
	pool_params(p, 1, 1, 4, 1, 3, 1, 3, 1, 2, 0, 1, 0, 1, NPU_POOL_AVG, 1);
	p[NPU_PL_XT] = p[NPU_PL_YT] = NPU_T_I8, p[NPU_PL_LO] = -128, p[NPU_PL_HI] = 127;
	RUN(NPU_K_POOL_Q, p, xp, yp);
	CHECK(eq_int(yp, NPU_T_I8, want_cp, 3));
	p[NPU_PL_COUNT_PAD] = 0;
	RUN(NPU_K_POOL_Q, p, xp, yp);
	CHECK(eq_int(yp, NPU_T_I8, want_np, 3));

	/* global average of 2 channels 2x2, int16: (1+2+3+5)/4 = 2.75 -> 3,
	 * (-1-2-3-5)/4 = -2.75 -> -3 */
	int16_t xg[8] = {1, 2, 3, 5, -1, -2, -3, -5}, yg[2];
	int32_t want_g[2] = {3, -3};
	pool_params(p, 2, 2, 2, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, NPU_POOL_AVG, 0);
	p[NPU_PL_XT] = p[NPU_PL_YT] = NPU_T_I16, p[NPU_PL_LO] = -32768, p[NPU_PL_HI] = 32767;
	RUN(NPU_K_POOL_Q, p, xg, yg);
	CHECK(eq_int(yg, NPU_T_I16, want_g, 2));
}

/* Random int8 pooling (strides 1 to 3, padding, ceil-mode overhang, both
 * modes) against the definition: max over the window's cells inside x;
 * average = ZY + round_div(sum (x - ZX), count), half away from zero. */
static void test_pool_q_random(void)
{
	int bad = 0;
	for (int c = 0; c < 300; c++) {
		int32_t p[NPU_PL_COUNT];
		int C = rnd(1, 3), H = rnd(1, 9), W = rnd(1, 9), KH = rnd(1, 4), KW = rnd(1, 4), SH = rnd(1, 3), SW = rnd(1, 3);
		int PT = rnd(0, KH - 1), PL = rnd(0, KW - 1), PB = rnd(0, KH - 1), PR = rnd(0, KW - 1);
		int mode = rnd(0, 1) ? NPU_POOL_MAX : NPU_POOL_AVG, cp = rnd(0, 1);
		if (H + PT + PB < KH || W + PL + PR < KW)
			continue;
		/* ceil mode: one more window when it starts inside x or the padding */
		int OH = (H + PT + PB - KH + SH - 1) / SH + 1, OW = (W + PL + PR - KW + SW - 1) / SW + 1;
		if ((OH - 1) * SH >= H + PT)
			OH--;
		if ((OW - 1) * SW >= W + PL)
			OW--;
		pool_params(p, C, H, W, OH, OW, KH, KW, SH, SW, PT, PL, PB, PR, mode, cp);
		int32_t zx = mode == NPU_POOL_MAX ? 0 : rnd(-20, 20), zy = mode == NPU_POOL_MAX ? 0 : rnd(-20, 20);
		p[NPU_PL_XT] = p[NPU_PL_YT] = NPU_T_I8, p[NPU_PL_ZX] = zx, p[NPU_PL_ZY] = zy;
		p[NPU_PL_LO] = rnd(-128, -100), p[NPU_PL_HI] = rnd(100, 127);
		int8_t x[3 * 81], y[3 * 81];
		for (int i = 0; i < C * H * W; i++)
			x[i] = (int8_t)rnd(-128, 127);
		RUN(NPU_K_POOL_Q, p, x, y);
		for (int ch = 0, k = 0; ch < C; ch++)
			for (int oh = 0; oh < OH; oh++)
				for (int ow = 0; ow < OW; ow++, k++) {
					int64_t sum = 0, m = -1000, cnt = 0;
					for (int i = oh * SH - PT; i < oh * SH - PT + KH; i++)
						for (int j = ow * SW - PL; j < ow * SW - PL + KW; j++) {
							if (cp && i >= -PT && i < H + PB && j >= -PL && j < W + PR)
								cnt++;
							if (i < 0 || i >= H || j < 0 || j >= W)
								continue;
							int v = x[(ch * H + i) * W + j];
							sum += v - zx;
							m = v > m ? v : m;
							cnt += !cp;
						}
					int64_t want;
					if (mode == NPU_POOL_MAX)
						want = m;
					else {
						int64_t a = sum < 0 ? -sum : sum, q = (2 * a + cnt) / (2 * cnt);
						want = zy + (sum < 0 ? -q : q);
					}
					want = want < p[NPU_PL_LO] ? p[NPU_PL_LO] : want > p[NPU_PL_HI] ? p[NPU_PL_HI] : want;
					if (y[k] != want && bad++ < 5)
						printf("# pool %d %dx%d k %dx%d s %dx%d p %d %d %d %d cp %d: [%d] got %d, want %d\n", mode, H,
						       W, KH, KW, SH, SW, PT, PL, PB, PR, cp, k, y[k], (int)want);
				}
	}
	CHECK_MSG(bad == 0, "%d wrong outputs", bad);
}

/* ---------------------------------------------------------------- COPY, FILL */

static void cp_params(int32_t *p, int elem, const int32_t cnt[6], const int32_t ss[6], const int32_t ds[6], int soff,
		      int doff)
{
	p[NPU_CP_ELEM] = elem;
	memcpy(p + NPU_CP_COUNTS, cnt, 6 * sizeof(int32_t));
	memcpy(p + NPU_CP_SS, ss, 6 * sizeof(int32_t));
	memcpy(p + NPU_CP_DS, ds, 6 * sizeof(int32_t));
	p[NPU_CP_SOFF] = soff, p[NPU_CP_DOFF] = doff;
}

static void test_copy_fill(void)
{
	int32_t p[NPU_CP_COUNT];
	/* transpose 2x3 int16 -> 3x2, walking the destination: y[j][i] = x[i][j]
	 * x = 1 2 3 / 4 5 6 -> y = 1 4 / 2 5 / 3 6 */
	int32_t c[6] = {1, 1, 1, 1, 3, 2}, ss[6] = {0, 0, 0, 0, 1, 3}, ds[6] = {0, 0, 0, 0, 2, 1};
	int16_t x[6] = {1, 2, 3, 4, 5, 6}, y[6];
	int32_t want[6] = {1, 4, 2, 5, 3, 6};
	cp_params(p, 2, c, ss, ds, 0, 0);
	RUN(NPU_K_COPY, p, x, y);
	CHECK(eq_int(y, NPU_T_I16, want, 6));

	/* 3-d permutation of int32 [2][2][2] = 0..7 to y[k][i][j] = x[i][j][k]:
	 * x strides (i, j, k) = 4, 2, 1; walking y's (k, i, j): 0 2 4 6 1 3 5 7 */
	int32_t c3[6] = {1, 1, 1, 2, 2, 2}, ss3[6] = {0, 0, 0, 1, 4, 2}, ds3[6] = {0, 0, 0, 4, 2, 1};
	int32_t x3[8] = {0, 1, 2, 3, 4, 5, 6, 7}, y3[8], want3[8] = {0, 2, 4, 6, 1, 3, 5, 7};
	cp_params(p, 4, c3, ss3, ds3, 0, 0);
	RUN(NPU_K_COPY, p, x3, y3);
	CHECK(eq_int(y3, NPU_T_I32, want3, 8));

	/* bytes reversed with a negative stride from offset 3: 4 3 2 1 */
	int32_t c1[6] = {1, 1, 1, 1, 1, 4}, sn[6] = {0, 0, 0, 0, 0, -1}, d1[6] = {0, 0, 0, 0, 0, 1};
	int8_t xb[4] = {1, 2, 3, 4}, yb[4];
	int32_t wantb[4] = {4, 3, 2, 1};
	cp_params(p, 1, c1, sn, d1, 3, 0);
	RUN(NPU_K_COPY, p, xb, yb);
	CHECK(eq_int(yb, NPU_T_I8, wantb, 4));

	/* 8-byte elements, a concat part: x[1..2] to y[2..3], y[0..1], y[4] kept */
	int32_t c2[6] = {1, 1, 1, 1, 1, 2};
	uint64_t x8[3] = {1, 0x1122334455667788u, 0xffffffff00000001u}, y8[5] = {7, 7, 7, 7, 7};
	cp_params(p, 8, c2, d1, d1, 1, 2);
	RUN(NPU_K_COPY, p, x8, y8);
	CHECK(y8[0] == 7 && y8[1] == 7 && y8[2] == 0x1122334455667788u && y8[3] == 0xffffffff00000001u && y8[4] == 7);

	/* NCHW -> NHWC of 1x3x2x13 (the channel-last pipeline's input
	 * transpose: 3 channels as the short last dimension), int8 and int32,
	 * from offset 1 of x: y[h][w][c] = x[1 + (c * 2 + h) * 13 + w] */
	{
		int32_t ct[6] = {1, 1, 1, 2, 13, 3}, sst[6] = {0, 0, 0, 13, 1, 26}, dst[6] = {0, 0, 0, 39, 3, 1};
		int8_t xt8[79], yt8[79];
		int32_t xt32[79], yt32[79], wantt[78];
		for (int i = 0; i < 79; i++)
			xt8[i] = (int8_t)(i * 7 - 100), xt32[i] = i * 100003 - 4000000;
		for (int pass = 0; pass < 2; pass++) {
			for (int h = 0; h < 2; h++)
				for (int w = 0; w < 13; w++)
					for (int c = 0; c < 3; c++) {
						int at = 1 + (c * 2 + h) * 13 + w;
						wantt[(h * 13 + w) * 3 + c] = pass ? xt32[at] : xt8[at];
					}
			yt8[78] = 5, yt32[78] = 5;
			cp_params(p, pass ? 4 : 1, ct, sst, dst, 1, 0);
			if (pass)
				RUN(NPU_K_COPY, p, xt32, yt32);
			else
				RUN(NPU_K_COPY, p, xt8, yt8);
			CHECK(pass ? eq_int(yt32, NPU_T_I32, wantt, 78) && yt32[78] == 5 : eq_int(yt8, NPU_T_I8, wantt, 78) && yt8[78] == 5);
		}
	}

	/* FILL: VALUE's low bytes; the element after N is kept */
	int32_t f[NPU_FI_COUNT];
	uint8_t b[4] = {0, 0, 0, 9};
	f[NPU_FI_N] = 3, f[NPU_FI_ELEM] = 1, f[NPU_FI_VALUE] = 0x1ff;
	RUN(NPU_K_FILL, f, b);
	CHECK(b[0] == 0xff && b[1] == 0xff && b[2] == 0xff && b[3] == 9);
	uint16_t h[3] = {0, 0, 9};
	f[NPU_FI_N] = 2, f[NPU_FI_ELEM] = 2, f[NPU_FI_VALUE] = 0x12345;
	RUN(NPU_K_FILL, f, h);
	CHECK(h[0] == 0x2345 && h[1] == 0x2345 && h[2] == 9);
	uint32_t w[3] = {0, 0, 9};
	f[NPU_FI_N] = 2, f[NPU_FI_ELEM] = 4, f[NPU_FI_VALUE] = -1;
	RUN(NPU_K_FILL, f, w);
	CHECK(w[0] == 0xffffffffu && w[1] == 0xffffffffu && w[2] == 9);
}

/* ---------------------------------------------------------------- float kernels */

static int near(float got, float want)
{
	float d = got - want;
	if (d < 0)
		d = -d;
	if (d <= 1e-6f * (want < 0 ? -want : want) + 1e-30f)
		return 1;
	printf("# got %.9g, want %.9g\n", got, want);
	return 0;
}

static void conv_f_types(int32_t *p, int xt, int wt, int yt, float lo, float hi, int act, float p0, float p1)
{
	p[NPU_CV_XT] = xt, p[NPU_CV_WT] = wt, p[NPU_CV_YT] = yt;
	p[NPU_CV_LO] = fbits(lo), p[NPU_CV_HI] = fbits(hi), p[NPU_CV_ACT] = act;
	p[NPU_CV_P0] = fbits(p0), p[NPU_CV_P1] = fbits(p1);
}

static void test_conv_f(void)
{
	int32_t p[NPU_CV_COUNT];
	/* 2x2 input, 2x2 kernel, two output channels:
	 * oc0: 1.5 + 1*0.5 + 2*-1 + 3*2 + 4*0.25 = 1.5+0.5-2+6+1 = 7
	 * oc1: 0 - 1 - 2 - 3 - 4 = -10 */
	float x[4] = {1, 2, 3, 4}, w[8] = {0.5f, -1, 2, 0.25f, -1, -1, -1, -1}, b[2] = {1.5f, 0}, y[2];
	float want_relu[2] = {6, 0}, want_clip[2] = {5, -3}, want_none[2] = {7, -10};
	conv_geo(p, 1, 1, 2, 2, 2, 1, 1, 2, 2, 1, 1, 0, 0, 1, 1, 1);
	/* clamp to [-inf, 6] then relu: 6, 0 */
	conv_f_types(p, NPU_T_F32, NPU_T_F32, NPU_T_F32, -INFINITY, 6, NPU_U_RELU, 0, 0);
	RUN(NPU_K_CONV_F, p, x, w, b, NULL, y);
	CHECK(eq_f32(y, want_relu, 2));
	/* no clamp, clip(-3, 5) as the activation: 5, -3 */
	conv_f_types(p, NPU_T_F32, NPU_T_F32, NPU_T_F32, -INFINITY, INFINITY, NPU_U_CLIP, -3, 5);
	RUN(NPU_K_CONV_F, p, x, w, b, NULL, y);
	CHECK(eq_f32(y, want_clip, 2));
	conv_f_types(p, NPU_T_F32, NPU_T_F32, NPU_T_F32, -INFINITY, INFINITY, -1, 0, 0);
	RUN(NPU_K_CONV_F, p, x, w, b, NULL, y);
	CHECK(eq_f32(y, want_none, 2));

	/* the order: bias first, then the products: (2^24 + 1) + 1 rounds to
	 * 2^24 twice (ties to even); products first would give 2^24 + 2 */
	float x2[2] = {1, 1}, w2[2] = {1, 1}, b2[1] = {16777216.0f}, y2[1], want2[1] = {16777216.0f};
	conv_geo(p, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 0, 0, 1, 1, 1);
	conv_f_types(p, NPU_T_F32, NPU_T_F32, NPU_T_F32, -INFINITY, INFINITY, -1, 0, 0);
	RUN(NPU_K_CONV_F, p, x2, w2, b2, NULL, y2);
	CHECK(eq_f32(y2, want2, 1));

	/* padding 1 each side, 1x3 kernel w = 1 10 100 over x = 1 2 3:
	 * 10*1 + 100*2 = 210; 1 + 20 + 300 = 321; 2 + 30 = 32 */
	float x3[3] = {1, 2, 3}, w3[3] = {1, 10, 100}, y3[3], want3[3] = {210, 321, 32};
	conv_geo(p, 1, 1, 1, 3, 1, 1, 3, 1, 3, 1, 1, 0, 1, 1, 1, 1);
	conv_f_types(p, NPU_T_F32, NPU_T_F32, NPU_T_F32, -INFINITY, INFINITY, -1, 0, 0);
	RUN(NPU_K_CONV_F, p, x3, w3, NULL, NULL, y3);
	CHECK(eq_f32(y3, want3, 3));

	/* depthwise, 1x1, strides 2 on a 1x3 input: ch0 x 1 2 3 * 2 -> 2 6,
	 * ch1 x 4 5 6 * 3 -> 12 18 */
	float x4[6] = {1, 2, 3, 4, 5, 6}, w4[2] = {2, 3}, y4[4], want4[4] = {2, 6, 12, 18};
	conv_geo(p, 1, 2, 1, 3, 2, 1, 2, 1, 1, 1, 2, 0, 0, 1, 1, 2);
	conv_f_types(p, NPU_T_F32, NPU_T_F32, NPU_T_F32, -INFINITY, INFINITY, -1, 0, 0);
	RUN(NPU_K_CONV_F, p, x4, w4, NULL, NULL, y4);
	CHECK(eq_f32(y4, want4, 4));

	/* int8 weights with a scale: w 1 * (1 + 3*2^-12) = 1.000732421875.
	 * f32: -1 + 1 * 1.000732421875 = 0.000732421875 exactly.
	 * f16: the weight becomes half first: 1 + 3/4 ulp (ulp 2^-10) rounds to
	 * 1 + 2^-10; -1 + 1.0009765625 = 2^-10 -> half 0x1400 (without the
	 * weight rounding: 3*2^-12 -> 0x1200) */
	int8_t w5[1] = {1};
	float ws[1] = {1.000732421875f}, x5[1] = {1}, b5[1] = {-1}, y5[1], want5[1] = {0.000732421875f};
	conv_geo(p, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1);
	conv_f_types(p, NPU_T_F32, NPU_T_I8, NPU_T_F32, -INFINITY, INFINITY, -1, 0, 0);
	RUN(NPU_K_CONV_F, p, x5, w5, b5, ws, y5);
	CHECK(eq_f32(y5, want5, 1));
	uint16_t xh[1] = {0x3c00}, bh[1] = {0xbc00}, yh[1], wanth[1] = {0x1400};
	conv_f_types(p, NPU_T_F16, NPU_T_I8, NPU_T_F16, -INFINITY, INFINITY, -1, 0, 0);
	RUN(NPU_K_CONV_F, p, xh, w5, bh, ws, yh);
	CHECK(eq_u16(yh, wanth, 1));

	/* f16 everything: x 1 1, w 1 2^-11: f32 sum 1 + 2^-11, stored half:
	 * a tie between 1 and 1 + 2^-10 -> even: 1.0 (0x3c00); second channel
	 * w 0.5 0.25 with x 1 2: 1.0 */
	uint16_t x6[2] = {0x3c00, 0x3c00}, w6[2] = {0x3c00, 0x1000}, y6[1], want6[1] = {0x3c00};
	conv_geo(p, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 0, 0, 1, 1, 1);
	conv_f_types(p, NPU_T_F16, NPU_T_F16, NPU_T_F16, -INFINITY, INFINITY, -1, 0, 0);
	RUN(NPU_K_CONV_F, p, x6, w6, NULL, NULL, y6);
	CHECK(eq_u16(y6, want6, 1));
}

static void un_params(int32_t *p, int n, int fn, float p0, float p1, int xt, int yt)
{
	p[NPU_UN_N] = n, p[NPU_UN_FN] = fn, p[NPU_UN_P0] = fbits(p0), p[NPU_UN_P1] = fbits(p1);
	p[NPU_UN_XT] = xt, p[NPU_UN_YT] = yt;
}

static void test_unary_f(void)
{
	int32_t p[NPU_UN_COUNT];
	static const struct {
		int fn;
		float p0, p1;
		int n;
		float x[4], want[4];
	} cs[] = {
		{NPU_U_RELU, 0, 0, 3, {-2, 3, 0}, {0, 3, 0}},
		{NPU_U_CLIP, -1, 2, 3, {-5, 0.5f, 7}, {-1, 0.5f, 2}},
		{NPU_U_LEAKY_RELU, 0.5f, 0, 2, {-2, 3}, {-1, 3}},
		{NPU_U_ELU, 1, 0, 2, {2, 0}, {2, 0}},
		/* 1 / (1 + e^0) = 0.5; 1 / (1 + e^-100) = 1 */
		{NPU_U_SIGMOID, 0, 0, 2, {0, 100}, {0.5f, 1}},
		{NPU_U_TANH, 0, 0, 2, {0, 20}, {0, 1}},
		/* 0.25 x + 0.5: 0.75, 1.5 -> 1, -0.5 -> 0 */
		{NPU_U_HARD_SIGMOID, 0.25f, 0.5f, 3, {1, 4, -4}, {0.75f, 1, 0}},
		/* x relu6(x + 3) / 6: 3 -> 3, -3 -> 0, 0 -> 0, 1.5 * 4.5 / 6 = 1.125 */
		{NPU_U_HARD_SWISH, 0, 0, 4, {3, -3, 0, 1.5f}, {3, 0, 0, 1.125f}},
		{NPU_U_SILU, 0, 0, 2, {0, 100}, {0, 100}},
		{NPU_U_EXP, 0, 0, 1, {0}, {1}},
		{NPU_U_LOG, 0, 0, 1, {1}, {0}},
		{NPU_U_SQRT, 0, 0, 2, {4, 2.25f}, {2, 1.5f}},
		{NPU_U_RSQRT, 0, 0, 2, {4, 0.25f}, {0.5f, 2}},
		{NPU_U_RECIPROCAL, 0, 0, 2, {4, -0.5f}, {0.25f, -2}},
		{NPU_U_NEG, 0, 0, 2, {2, -0.5f}, {-2, 0.5f}},
		{NPU_U_ABS, 0, 0, 2, {-3, 3}, {3, 3}},
		/* 0.5 x (1 + tanh(...)) and 0.5 x (1 + erf(x / sqrt 2)): 0 -> 0, 10 -> 10 */
		{NPU_U_GELU, 1, 0, 2, {0, 10}, {0, 10}},
		{NPU_U_GELU, 0, 0, 2, {0, 10}, {0, 10}},
	};
	int ok = 1;
	for (int i = 0; i < LEN(cs); i++) {
		float y[4];
		un_params(p, cs[i].n, cs[i].fn, cs[i].p0, cs[i].p1, NPU_T_F32, NPU_T_F32);
		RUN(NPU_K_UNARY_F, p, (void *)cs[i].x, y);
		if (!eq_f32(y, cs[i].want, cs[i].n)) {
			printf("# unary function %d\n", cs[i].fn);
			ok = 0;
		}
	}
	CHECK(ok);
	/* transcendental values against the formulas: elu(-1) = e^-1 - 1,
	 * softplus(0) = ln 2, softplus(-1) = ln(1 + e^-1) */
	float xe[1] = {-1}, ye[1], xs[2] = {0, -1}, ys[2];
	un_params(p, 1, NPU_U_ELU, 1, 0, NPU_T_F32, NPU_T_F32);
	RUN(NPU_K_UNARY_F, p, xe, ye);
	CHECK(near(ye[0], (float)(exp(-1.0) - 1)));
	un_params(p, 2, NPU_U_SOFTPLUS, 0, 0, NPU_T_F32, NPU_T_F32);
	RUN(NPU_K_UNARY_F, p, xs, ys);
	CHECK(near(ys[0], (float)log(2.0)) && near(ys[1], (float)log(1 + exp(-1.0))));
	/* f16 in and out: relu(-2) = 0, relu(3) = 3 (0x4200); f16 in, f32 out */
	uint16_t xh[2] = {0xc000, 0x4200}, yh[2], wanth[2] = {0, 0x4200};
	float yf[2], wantf[2] = {0, 3};
	un_params(p, 2, NPU_U_RELU, 0, 0, NPU_T_F16, NPU_T_F16);
	RUN(NPU_K_UNARY_F, p, xh, yh);
	CHECK(eq_u16(yh, wanth, 2));
	un_params(p, 2, NPU_U_RELU, 0, 0, NPU_T_F16, NPU_T_F32);
	RUN(NPU_K_UNARY_F, p, xh, yf);
	CHECK(eq_f32(yf, wantf, 2));
}

static void test_eltwise_f(void)
{
	int32_t p[NPU_EW_COUNT];
	int32_t c[6] = {1, 1, 1, 1, 2, 2}, sa[6] = {0, 0, 0, 0, 2, 1}, s0[6] = {0}, srow[6] = {0, 0, 0, 0, 0, 1};
	float a[4] = {1, 2, 3, 4}, b10[1] = {10}, b4[1] = {4}, brow[2] = {2.5f, 1}, y[4];
	static const struct {
		int op;
		int row;	/* b is the row [2.5, 1] (else the scalar) */
		float b, hi, want[4];
		int act;	/* a fused NPU_U_* after the clamp, or -1 */
	} cs[] = {
		{NPU_BIN_ADD, 0, 10, INFINITY, {11, 12, 13, 14}, -1},
		{NPU_BIN_SUB, 0, 10, INFINITY, {-9, -8, -7, -6}, -1},
		{NPU_BIN_MUL, 0, 10, 25, {10, 20, 25, 25}, -1},	/* clamped at 25 */
		{NPU_BIN_DIV, 0, 4, INFINITY, {0.25f, 0.5f, 0.75f, 1}, -1},
		{NPU_BIN_MAX, 1, 0, INFINITY, {2.5f, 2, 3, 4}, -1},
		{NPU_BIN_MIN, 1, 0, INFINITY, {1, 1, 2.5f, 1}, -1},
		{NPU_BIN_MUL, 0, 10, 25, {-10, -20, -25, -25}, NPU_U_NEG},	/* clamp, then the function */
		{NPU_BIN_SUB, 0, 10, INFINITY, {0, 0, 0, 0}, NPU_U_RELU},
		{NPU_BIN_ADD, 0, 4, INFINITY, {2.23606798f, 2.44948974f, 2.64575131f, 2.82842712f}, NPU_U_SQRT},
	};
	int ok = 1;
	for (int i = 0; i < LEN(cs); i++) {
		ew_params(p, cs[i].op, c, sa, cs[i].row ? srow : s0, NPU_T_F32, NPU_T_F32, NPU_T_F32);
		p[NPU_EW_LO] = fbits(-INFINITY), p[NPU_EW_HI] = fbits(cs[i].hi), p[NPU_EW_ACT] = cs[i].act;
		RUN(NPU_K_ELTWISE_F, p, a, cs[i].row ? brow : cs[i].b == 10 ? b10 : b4, y);
		if (!eq_f32(y, cs[i].want, 4)) {
			printf("# eltwise op %d act %d\n", cs[i].op, cs[i].act);
			ok = 0;
		}
	}
	CHECK(ok);
	/* f16 a, f32 b, f16 y: 1 2 3 4 + 10 = 11 (0x4980) 12 (0x4a00) 13 (0x4a80) 14 (0x4b00) */
	uint16_t ah[4] = {0x3c00, 0x4000, 0x4200, 0x4400}, yh[4], wanth[4] = {0x4980, 0x4a00, 0x4a80, 0x4b00};
	ew_params(p, NPU_BIN_ADD, c, sa, s0, NPU_T_F16, NPU_T_F32, NPU_T_F16);
	p[NPU_EW_LO] = fbits(-INFINITY), p[NPU_EW_HI] = fbits(INFINITY);
	RUN(NPU_K_ELTWISE_F, p, ah, b10, yh);
	CHECK(eq_u16(yh, wanth, 4));
}

static void test_pool_f(void)
{
	int32_t p[NPU_PL_COUNT];
	/* the integer cases in float: max 2x2 s2 ceil on 1..9 -> 5 6 8 9 */
	float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, y[4], want_max[4] = {5, 6, 8, 9};
	pool_params(p, 1, 3, 3, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, NPU_POOL_MAX, 0);
	p[NPU_PL_XT] = p[NPU_PL_YT] = NPU_T_F32;
	RUN(NPU_K_POOL_F, p, x, y);
	CHECK(eq_f32(y, want_max, 4));
	/* average: (1+2+4+5)/4 = 3, (3+6)/2 = 4.5, (7+8)/2 = 7.5, 9 */
	float want_avg[4] = {3, 4.5f, 7.5f, 9};
	p[NPU_PL_MODE] = NPU_POOL_AVG;
	RUN(NPU_K_POOL_F, p, x, y);
	CHECK(eq_f32(y, want_avg, 4));
	/* padding and ceil overhang (as in test_pool_q): 4 12 8 / 6 12 16 */
	float xp[4] = {4, 8, 12, 16}, yp[3], want_cp[3] = {4, 12, 8}, want_np[3] = {6, 12, 16};
	pool_params(p, 1, 1, 4, 1, 3, 1, 3, 1, 2, 0, 1, 0, 1, NPU_POOL_AVG, 1);
	p[NPU_PL_XT] = p[NPU_PL_YT] = NPU_T_F32;
	RUN(NPU_K_POOL_F, p, xp, yp);
	CHECK(eq_f32(yp, want_cp, 3));
	p[NPU_PL_COUNT_PAD] = 0;
	RUN(NPU_K_POOL_F, p, xp, yp);
	CHECK(eq_f32(yp, want_np, 3));
	/* max ignores padding: all-negative input with padding 1: -5 -3 -> window
	 * cols -1..1, 1..3 (ceil): max(-5, -3) = -3, max(-3) = -3 */
	float xn[2] = {-5, -3}, yn[2], want_n[2] = {-3, -3};
	pool_params(p, 1, 1, 2, 1, 2, 1, 3, 1, 2, 0, 1, 0, 1, NPU_POOL_MAX, 0);
	p[NPU_PL_XT] = p[NPU_PL_YT] = NPU_T_F32;
	RUN(NPU_K_POOL_F, p, xn, yn);
	CHECK(eq_f32(yn, want_n, 2));
	/* f16 global average of 1 2 4: 7 / 3 in float, stored half:
	 * 2.3333333 -> 2.333984375 (0x40ab); of 1 2: 1.5 (0x3e00) */
	uint16_t xh[3] = {0x3c00, 0x4000, 0x4400}, yh[1], wanth[1] = {0x40ab};
	pool_params(p, 1, 1, 3, 1, 1, 1, 3, 1, 1, 0, 0, 0, 0, NPU_POOL_AVG, 0);
	p[NPU_PL_XT] = p[NPU_PL_YT] = NPU_T_F16;
	RUN(NPU_K_POOL_F, p, xh, yh);
	CHECK(eq_u16(yh, wanth, 1));
}

static void test_softmax_f(void)
{
	int32_t p[NPU_SM_COUNT] = {0};
	/* max 2, e^0 = 1 three times, e^-inf = 0: 1/3 0 1/3 1/3 */
	float x[4] = {2, -INFINITY, 2, 2}, y[4], want[4] = {1.0f / 3, 0, 1.0f / 3, 1.0f / 3};
	p[NPU_SM_OUTER] = 1, p[NPU_SM_N] = 4, p[NPU_SM_INNER] = 1, p[NPU_SM_XT] = p[NPU_SM_YT] = NPU_T_F32;
	RUN(NPU_K_SOFTMAX_F, p, x, y);
	CHECK(eq_f32(y, want, 4));
	/* [1, 2, 2] over the middle axis: column 0 = (1, 1) -> 0.5 0.5,
	 * column 1 = (7, -inf) -> 1 0; two outer blocks (the second = the first) */
	float x2[8] = {1, 7, 1, -INFINITY, 1, 7, 1, -INFINITY}, y2[8], want2[8] = {0.5f, 1, 0.5f, 0, 0.5f, 1, 0.5f, 0};
	p[NPU_SM_OUTER] = 2, p[NPU_SM_N] = 2, p[NPU_SM_INNER] = 2;
	RUN(NPU_K_SOFTMAX_F, p, x2, y2);
	CHECK(eq_f32(y2, want2, 8));
	/* log: 3 - 3 - ln(1 + 1) */
	float x3[2] = {3, 3}, y3[2];
	p[NPU_SM_OUTER] = 1, p[NPU_SM_N] = 2, p[NPU_SM_INNER] = 1, p[NPU_SM_LOG] = 1;
	RUN(NPU_K_SOFTMAX_F, p, x3, y3);
	CHECK(y3[0] == -logf(2.0f) && y3[1] == -logf(2.0f));
	/* f16: 0 0 -> 0.5 0.5 (0x3800) */
	uint16_t xh[2] = {0, 0}, yh[2], wanth[2] = {0x3800, 0x3800};
	p[NPU_SM_LOG] = 0, p[NPU_SM_XT] = p[NPU_SM_YT] = NPU_T_F16;
	RUN(NPU_K_SOFTMAX_F, p, xh, yh);
	CHECK(eq_u16(yh, wanth, 2));
}

static void rn_params(int32_t *p, int T, int B, int I, int H, int lbr, int rev, int t)
{
	p[NPU_RN_T] = T, p[NPU_RN_B] = B, p[NPU_RN_I] = I, p[NPU_RN_H] = H, p[NPU_RN_LBR] = lbr;
	p[NPU_RN_REVERSE] = rev, p[NPU_RN_XT] = p[NPU_RN_WT] = p[NPU_RN_YT] = t;
	p[NPU_RN_DIRS] = 1, p[NPU_RN_DIR] = 0, p[NPU_RN_BF] = 0, p[NPU_RN_CLIP] = 0, p[NPU_RN_IFG] = 0;
	p[NPU_RN_SLT] = NPU_T_I32;
}

/* GRU, I = H = B = 1. Saturated gates are exact in float: sigmoid(30) =
 * 1 / (1 + 9e-14) = 1, tanh(+-10..30) = +-1, sigmoid(0) = 0.5. */
static void test_gru_f(void)
{
	int32_t p[NPU_RN_COUNT];
	/* W (z r h) = 0 30 -30, R = 0, bias Wb 0 0 0, Rb 0 0 40, x = 1 1:
	 * z = sigmoid(0) = 0.5, r = sigmoid(30) = 1
	 * lbr: h~ = tanh(-30 + r * (0 + 40)) = tanh(10) = 1
	 *   h1 = (1 - z) 1 + z 0 = 0.5, h2 = 0.5 + 0.25 = 0.75
	 * (z and r swapped: z = 1 keeps h = 0)
	 * no lbr: h~ = tanh(-30 + (R (r h) + 40)) = tanh(10) too: same */
	float x[2] = {1, 1}, W[3] = {0, 30, -30}, R[3] = {0, 0, 0}, bias[6] = {0, 0, 0, 0, 0, 40};
	float Y[2], Yh[1], want[2] = {0.5f, 0.75f};
	rn_params(p, 2, 1, 1, 1, 1, 0, NPU_T_F32);
	RUN(NPU_K_GRU_F, p, x, W, R, bias, NULL, Y, Yh);
	CHECK(eq_f32(Y, want, 2) && Yh[0] == 0.75f);
	/* r = 0.5 (W r = 0): lbr: tanh(-30 + 0.5 * 40) = tanh(-10) = -1:
	 *   h1 = -0.5, h2 = -0.5 + 0.5 * -0.5 = -0.75
	 * no lbr: tanh(-30 + 40) = 1: 0.5, 0.75 */
	float W2[3] = {0, 0, -30}, want_lbr[2] = {-0.5f, -0.75f};
	RUN(NPU_K_GRU_F, p, x, W2, R, bias, NULL, Y, Yh);
	CHECK(eq_f32(Y, want_lbr, 2) && Yh[0] == -0.75f);
	p[NPU_RN_LBR] = 0;
	RUN(NPU_K_GRU_F, p, x, W2, R, bias, NULL, Y, Yh);
	CHECK(eq_f32(Y, want, 2));
	/* R is used: W = -15 0 0, R = 30 0 0, h0 = 0.5, x = 1, no bias:
	 * z = sigmoid(-15 + 30 * 0.5) = 0.5, r = 0.5, h~ = tanh(0) = 0
	 * h = 0.5 * 0 + 0.5 * 0.5 = 0.25 (without R: z = 3e-7, h ~ 1.5e-7) */
	float W3[3] = {-15, 0, 0}, R3[3] = {30, 0, 0}, h0[1] = {0.5f}, Y3[1];
	rn_params(p, 1, 1, 1, 1, 0, 0, NPU_T_F32);
	RUN(NPU_K_GRU_F, p, x, W3, R3, NULL, h0, Y3, NULL);
	CHECK(Y3[0] == 0.25f);
	/* reverse, W = 0 0 30 (h~ = tanh(30 x)), x = 1 -1, z = r = 0.5:
	 * t=1 first: h = 0.5 * -1 = -0.5 -> Y[1]; t=0: 0.5 + 0.5 * -0.5 = 0.25 -> Y[0] */
	float xr[2] = {1, -1}, Wr[3] = {0, 0, 30}, want_r[2] = {0.25f, -0.5f};
	rn_params(p, 2, 1, 1, 1, 0, 1, NPU_T_F32);
	RUN(NPU_K_GRU_F, p, xr, Wr, R, NULL, NULL, Y, Yh);
	CHECK(eq_f32(Y, want_r, 2) && Yh[0] == 0.25f);

	/* f16 state: same gates, x = 1 twelve times, then -1: h_t = 1 - 2^-t
	 * for t = 1..11 (exact in half); h_12 = 1 - 2^-12 is a tie between
	 * 1 - 2^-11 (odd) and 1 (even): the half state is 1.0, and
	 * h_13 = -0.5 + 0.5 * 1 = 0. In f32 the state keeps 1 - 2^-12 and
	 * h_13 = -0.5 + 0.5 (1 - 2^-12) = -2^-13 (Y[11] still prints 1 - 2^-12). */
	float x13[13], Y13[13];
	uint16_t x13h[13], Wh[3] = {0, 0, 0x4f80 /* 30 */}, Rh[3] = {0, 0, 0}, Y13h[13], Yhh[1];
	for (int t = 0; t < 13; t++) {
		x13[t] = t < 12 ? 1.0f : -1.0f;
		x13h[t] = npu_f32_to_f16(x13[t]);
	}
	rn_params(p, 13, 1, 1, 1, 0, 0, NPU_T_F16);
	RUN(NPU_K_GRU_F, p, x13h, Wh, Rh, NULL, NULL, Y13h, Yhh);
	int ok = 1;
	for (int t = 0; t < 11; t++)
		ok &= npu_f16_to_f32(Y13h[t]) == 1.0f - ldexpf(1, -(t + 1));
	ok &= Y13h[11] == 0x3c00 && (Y13h[12] & 0x7fff) == 0 && (Yhh[0] & 0x7fff) == 0;
	CHECK_MSG(ok, "f16 GRU: Y[10] 0x%04x Y[11] 0x%04x Y[12] 0x%04x", Y13h[10], Y13h[11], Y13h[12]);
	rn_params(p, 13, 1, 1, 1, 0, 0, NPU_T_F32);
	RUN(NPU_K_GRU_F, p, x13, Wr, R, NULL, NULL, Y13, Yh);
	CHECK(Y13[11] == 1.0f - ldexpf(1, -12) && Y13[12] == -ldexpf(1, -13) && Yh[0] == -ldexpf(1, -13));
}

static void test_lstm_f(void)
{
	int32_t p[NPU_RN_COUNT];
	/* W (i o f c) = 30 0 30 -20, R = 0, c0 = 2, x = 1 1:
	 * i = 1, o = 0.5, f = 1 (sigmoid(30)), c~ = tanh(-20) = -1
	 * c1 = 1*2 + 1*-1 = 1, h1 = 0.5 tanh(1); c2 = 1 - 1 = 0, h2 = 0.5 tanh(0) = 0
	 * (o and f swapped: c1 = 0.5*2 - 1 = 0; i and c swapped: c1 = 2) */
	float x[2] = {1, 1}, W[4] = {30, 0, 30, -20}, R[4] = {0, 0, 0, 0}, c0[1] = {2};
	float Y[2], Yh[1] = {9}, Yc[1] = {9};
	rn_params(p, 2, 1, 1, 1, 0, 0, NPU_T_F32);
	RUN(NPU_K_LSTM_F, p, x, W, R, NULL, NULL, c0, Y, Yh, Yc);
	CHECK(Y[0] == 0.5f * tanhf(1) && Y[1] == 0 && Yh[0] == 0 && Yc[0] == 0);
	/* two batches, bias and R: batch 1 has x = -1: i = sigmoid(-30 + 30 (bias
	 * Wb_i)) = 0.5 ... keep it exact: W = 0 0 0 0, bias Wb = 0 0 0 0,
	 * Rb = 0 0 30 20; h0 = 0: i = o = 0.5, f = 1, c~ = tanh(20) = 1
	 * c1 = c0 + 0.5: batch 0 c0 = 0.5 -> 1, batch 1 c0 = -0.5 -> 0
	 * h1 = 0.5 tanh(c1): 0.5 tanh(1), 0 */
	float xb[2] = {1, -1}, Wb0[4] = {0, 0, 0, 0}, bias[8] = {0, 0, 0, 0, 0, 0, 30, 20}, c0b[2] = {0.5f, -0.5f};
	float Yb[2], Yhb[2], Ycb[2];
	rn_params(p, 1, 2, 1, 1, 0, 0, NPU_T_F32);
	RUN(NPU_K_LSTM_F, p, xb, Wb0, R, bias, NULL, c0b, Yb, Yhb, Ycb);
	CHECK(Yb[0] == 0.5f * tanhf(1) && Yb[1] == 0 && Ycb[0] == 1 && Ycb[1] == 0 && Yhb[0] == Yb[0]);
}

/* ---------------------------------------------------------------- integer recurrent cells */

static void rnq_params(int32_t *p, int T, int I, int H, int lbr, int xt, int zx, int yt, int32_t mult, int32_t shift)
{
	memset(p, 0, sizeof(int32_t) * NPU_RNQ_COUNT);
	p[NPU_RNQ_T] = T, p[NPU_RNQ_B] = 1, p[NPU_RNQ_I] = I, p[NPU_RNQ_H] = H, p[NPU_RNQ_LBR] = lbr;
	p[NPU_RNQ_XT] = xt, p[NPU_RNQ_ZX] = zx, p[NPU_RNQ_YT] = yt, p[NPU_RNQ_MULT] = mult, p[NPU_RNQ_SHIFT] = shift;
	p[NPU_RNQ_LO] = yt == NPU_T_I8 ? -128 : -32768, p[NPU_RNQ_HI] = yt == NPU_T_I8 ? 127 : 32767;
	p[NPU_RNQ_CFRAC] = 12;
}

/* GRU_Q, I = H = 1, the arithmetic of npu_rt.h by hand. Rows z, r: all
 * zero, so pre = 0 and z = r = sigm table at k = 256: 0.5 -> 16384. Row h:
 * x = 64, W = 2, mx = 2^30, sx = 25: px = 128 * 2^5 = 4096 (1.0 in Q3.12);
 * bh = 4096, R = 1, mh = 2^30, sh = 30: ph = 4096 + R h.
 * lbr = 1, step 1 (h = 0): pre = 4096 + (16384 * 4096) >> 15 = 6144 (1.5),
 *   u = 38912 = 304 * 128: n = tanh table at k = 304 = round(32768 tanh 1.5)
 *   = 29660; h = n + rshift_round(16384 (0 - n), 15) = 29660 - 14830 = 14830;
 *   Y (Q0.7: MULT 2^30, SHIFT 38) = round(14830 / 256) = 58.
 * step 2: ph = 4096 + 14830 = 18926, r ph >> 15 = 9463, pre = 13559:
 *   i = 361, f = 119, n = t[361] + ((t[362] - t[361]) 119 + 64) >> 7 = 32681
 *   (t[361] = 32667 = round(32768 tanh(3.28125)), t[362] = 32682);
 *   h = 32681 + rshift_round(16384 (14830 - 32681), 15) = 23756, Y = 93.
 * lbr = 0: R multiplies r h: step 1 pre = 4096 + 4096 = 8192 (2.0):
 *   n = round(32768 tanh 2) = 31589; h = 31589 + rshift_round(-31589 * 16384, 15)
 *   = 31589 - 15794 (-15794.5 rounds up) = 15795, Y = 62;
 *   step 2 (rh = 7898): n = 32742, h = 24269, Y = 95. */
static void test_gru_q(void)
{
	int32_t p[NPU_RNQ_COUNT];
	int8_t x[2] = {64, 64}, W[3] = {0, 0, 2}, R[3] = {0, 0, 1}, Y[2];
	int32_t q[3 * NPU_RQN_ROW] = {
		0, 0, M30, 30, M30, 30,
		0, 0, M30, 30, M30, 30,
		0, 4096, M30, 25, M30, 30,
	};
	int16_t Yh[1] = {-1};
	int32_t want[2] = {58, 93}, want0[2] = {62, 95};
	rnq_params(p, 2, 1, 1, 1, NPU_T_I8, 0, NPU_T_I8, M30, 38);
	RUN(NPU_K_GRU_Q, p, x, W, R, q, NULL, Y, Yh);
	CHECK(eq_int(Y, NPU_T_I8, want, 2) && Yh[0] == 23756);
	p[NPU_RNQ_LBR] = 0;
	RUN(NPU_K_GRU_Q, p, x, W, R, q, NULL, Y, Yh);
	CHECK(eq_int(Y, NPU_T_I8, want0, 2) && Yh[0] == 24269);
	/* streaming: step 2 from step 1's state (h0 = 15795) gives step 2's
	 * outputs; and Y in Q0.15 (int16, MULT 2^30, SHIFT 30) is h itself */
	int16_t h0[1] = {15795}, Y16[1];
	rnq_params(p, 1, 1, 1, 0, NPU_T_I8, 0, NPU_T_I16, M30, 30);
	RUN(NPU_K_GRU_Q, p, x, W, R, q, h0, Y16, Yh);
	CHECK(Y16[0] == 24269 && Yh[0] == 24269);
}

/* LSTM_Q, I = H = 1, T = 1: rows i, o, f zero (0.5 = 16384 each); row c:
 * x int16 300 with ZX 44, W = 1, mx = 2^30, sx = 26: px = 256 * 16 = 4096,
 * g = round(32768 tanh 1) = 24956. c0 = 4096 (1.0 in Q3.12):
 * c = (16384 * 4096) >> 15 + rshift_round(16384 * 24956, 18) = 2048 + 1560
 * (1559.75) = 3608; tanh(c): u = 36376, i = 284, f = 24, t[284] = 23066
 * (tanh 0.875), t[285] = 23571: 23066 + (505 * 24 + 64) >> 7 = 23161;
 * h = rshift_round(16384 * 23161, 15) = 11581 (11580.5 rounds up); the cell
 * state in Q3.12 (CFRAC 12). */
static void test_lstm_q(void)
{
	int32_t p[NPU_RNQ_COUNT];
	int16_t x[1] = {300}, c0[1] = {4096}, Y[1], Yh[1], Yc[1];
	int8_t W[4] = {0, 0, 0, 1}, R[4] = {5, 5, 5, 5};
	int32_t q[4 * NPU_RQN_ROW] = {
		0, 0, M30, 26, M30, 30,
		0, 0, M30, 26, M30, 30,
		0, 0, M30, 26, M30, 30,
		0, 0, M30, 26, M30, 30,
	};
	rnq_params(p, 1, 1, 1, 0, NPU_T_I16, 44, NPU_T_I16, M30, 30);
	RUN(NPU_K_LSTM_Q, p, x, W, R, q, NULL, c0, Y, Yh, Yc);
	CHECK(Y[0] == 11581 && Yh[0] == 11581 && Yc[0] == 3608);
	/* the cell state in Q5.10 (CFRAC 10): c0 = 1024, c = (16384 * 1024) >> 15
	 * + rshift_round(16384 * 24956, 20) = 512 + 390 (389.94) = 902; tanh's
	 * input 902 * 4 = 3608 as above: h = 11581 */
	int16_t c0b[1] = {1024};
	p[NPU_RNQ_CFRAC] = 10;
	RUN(NPU_K_LSTM_Q, p, x, W, R, q, NULL, c0b, Y, Yh, Yc);
	CHECK(Y[0] == 11581 && Yc[0] == 902);
	p[NPU_RNQ_CFRAC] = 12;
	/* the cell state saturates at Q3.12's ends: c0 = 32767, f = 1 - 2^-15
	 * (pre 32767 saturated: u = 65535, t[511] + (t[512] - t[511]) 127/128),
	 * i g = 0.5: c stays at 32767 */
	int16_t cmax[1] = {32767};
	q[2 * NPU_RQN_ROW + NPU_RQN_BX] = 1 << 20;	/* px = 2^20 * 2^4 -> pre saturates */
	RUN(NPU_K_LSTM_Q, p, x, W, R, q, NULL, cmax, Y, Yh, Yc);
	CHECK(Yc[0] == 32767);
}

/* GRU_Q and LSTM_Q against the float kernels on random cells whose real
 * weights are the int8 codes times their row scales: the integer h stays
 * within 0.01 of the float one over 12 steps (the tables' and Q3.12's
 * rounding only). */
static void test_rnn_q_vs_f(void)
{
	enum { T = 12, I = 5, H = 7 };
	for (int lstm = 0; lstm < 2; lstm++)
		for (int lbr = 0; lbr < 2 - lstm; lbr++) {
			int G = lstm ? 4 : 3;
			int8_t xq[T * I], Wq[4 * H * I], Rq[4 * H * H];
			float xf[T * I], Wf[4 * H * I], Rf[4 * H * H], bf[8 * H], Yf[T * H], Yhf[H];
			int32_t q[4 * H * NPU_RQN_ROW];
			int16_t Yq[T * H], Yhq[H];
			const float sx = 1.0f / 32;	/* x in [-4, 4) */
			for (int i = 0; i < T * I; i++)
				xq[i] = (int8_t)rnd(-128, 127), xf[i] = sx * xq[i];
			for (int j = 0; j < G * H; j++) {
				float sw = 0.5f / 127, sr = 0.8f / 127;	/* |W| <= 0.5, |R| <= 0.8 */
				for (int i = 0; i < I; i++)
					Wq[j * I + i] = (int8_t)rnd(-127, 127), Wf[j * I + i] = sw * Wq[j * I + i];
				for (int k = 0; k < H; k++)
					Rq[j * H + k] = (int8_t)rnd(-127, 127), Rf[j * H + k] = sr * Rq[j * H + k];
				int32_t bx = rnd(-2000, 2000), bh = rnd(-(1 << 20), 1 << 20);
				bf[j] = (float)bx * sx * sw, bf[G * H + j] = (float)bh * sr / 32768;
				int32_t *row = q + j * NPU_RQN_ROW;
				/* mx = sx sw 2^12 = 2^7 sw: 0.5 / 127 * 128 * 2^30 */
				row[NPU_RQN_BX] = bx, row[NPU_RQN_BH] = bh;
				row[NPU_RQN_MX] = (int32_t)((double)sw * 128 * M30 + 0.5), row[NPU_RQN_SX] = 30;
				row[NPU_RQN_MH] = (int32_t)((double)sr / 8 * M30 + 0.5), row[NPU_RQN_SH] = 30;
			}
			int32_t p[NPU_RNQ_COUNT], pf[NPU_RN_COUNT];
			rnq_params(p, T, I, H, lbr, NPU_T_I8, 0, NPU_T_I16, M30, 30);
			rn_params(pf, T, 1, I, H, lbr, 0, NPU_T_F32);
			if (lstm) {
				RUN(NPU_K_LSTM_Q, p, xq, Wq, Rq, q, NULL, NULL, Yq, Yhq, NULL);
				RUN(NPU_K_LSTM_F, pf, xf, Wf, Rf, bf, NULL, NULL, Yf, Yhf, NULL);
			} else {
				RUN(NPU_K_GRU_Q, p, xq, Wq, Rq, q, NULL, Yq, Yhq);
				RUN(NPU_K_GRU_F, pf, xf, Wf, Rf, bf, NULL, Yf, Yhf);
			}
			double worst = 0;
			for (int i = 0; i < T * H; i++)
				worst = fmax(worst, fabs(Yq[i] / 32768.0 - Yf[i]));
			CHECK_MSG(worst < 0.01 && Yhq[H - 1] == Yq[(T - 1) * H + H - 1], "%s lbr %d: max |h - h_float| %g",
				  lstm ? "lstm" : "gru", lbr, worst);
		}
}

static void test_cast_f(void)
{
	int32_t p[NPU_CA_COUNT];
	/* 1 -> 0x3c00, 65504 (max) -> 0x7bff, 65520 (halfway to 2^16) -> even: inf,
	 * 2049 -> 2048 (0x6800), -2 -> 0xc000, 1e-8 (below 2^-25) -> 0 */
	float x[6] = {1, 65504, 65520, 2049, -2, 1e-8f};
	uint16_t y[6], want[6] = {0x3c00, 0x7bff, 0x7c00, 0x6800, 0xc000, 0x0000};
	p[NPU_CA_N] = 6, p[NPU_CA_XT] = NPU_T_F32, p[NPU_CA_YT] = NPU_T_F16;
	RUN(NPU_K_CAST_F, p, x, y);
	CHECK(eq_u16(y, want, 6));
	/* 0x3555 = (1 + 341/1024) / 4 = 0.333251953125, 0x0001 = 2^-24, 0xfc00 = -inf */
	uint16_t xh[3] = {0x3555, 0x0001, 0xfc00};
	float yf[3], wantf[3] = {0.333251953125f, 5.9604644775390625e-08f, -INFINITY};
	p[NPU_CA_N] = 3, p[NPU_CA_XT] = NPU_T_F16, p[NPU_CA_YT] = NPU_T_F32;
	RUN(NPU_K_CAST_F, p, xh, yf);
	CHECK(eq_f32(yf, wantf, 3));
	float yc[2];
	p[NPU_CA_N] = 2, p[NPU_CA_XT] = NPU_T_F32, p[NPU_CA_YT] = NPU_T_F32;
	RUN(NPU_K_CAST_F, p, x, yc);
	CHECK(yc[0] == 1 && yc[1] == 65504);
}

/* ---------------------------------------------------------------- matmul, gather, argmax, lrn, rnn, casts */

static void mm_params(int32_t *p, int M, int N, int K, int am, int ak, int bk, int bn)
{
	memset(p, 0, sizeof(int32_t) * NPU_MM_COUNT);
	for (int i = 0; i < NPU_MM_BDIMS; i++)
		p[NPU_MM_BCOUNTS + i] = 1;
	p[NPU_MM_M] = M, p[NPU_MM_N] = N, p[NPU_MM_K] = K;
	p[NPU_MM_AM] = am, p[NPU_MM_AK] = ak, p[NPU_MM_BK] = bk, p[NPU_MM_BN] = bn;
}

/* A [2x3] int8, ZA 1: A - ZA = [[1,-1,3],[-2,2,0]]; B [3x2], ZB -2:
 * B - ZB = [[1,2],[3,0],[2,4]]; acc = [[4,14],[4,-4]], y = 3 + acc/2 =
 * [[5,10],[5,1]]. Batch 2 with A broadcast and B2 = B + 1
 * (B2 - ZB = [[2,3],[4,1],[3,5]]): acc = [[7,17],[4,-4]], y = 3 +
 * round_half_up(acc/2) = [[7,12],[5,1]]. Transposed B storage gives the
 * first result; HI = 8 clamps 10; int16 A the same. */
static void test_matmul_q(void)
{
	int32_t p[NPU_MM_COUNT];
	int8_t a[6] = {2, 0, 4, -1, 3, 1}, b[12] = {-1, 0, 1, -2, 0, 2, 0, 1, 2, -1, 1, 3}, y[8];
	int8_t bt[6] = {-1, 1, 0, 0, -2, 2};
	int16_t a16[6] = {2, 0, 4, -1, 3, 1}, y16[4];
	int32_t want[8] = {5, 10, 5, 1, 7, 12, 5, 1}, want_hi[4] = {5, 8, 5, 1};
	mm_params(p, 2, 2, 3, 3, 1, 2, 1);
	p[NPU_MM_AT] = p[NPU_MM_BT] = p[NPU_MM_YT] = NPU_T_I8;
	p[NPU_MM_ZA] = 1, p[NPU_MM_ZB] = -2, p[NPU_MM_ZY] = 3, p[NPU_MM_MULT] = M30, p[NPU_MM_SHIFT] = 31;
	p[NPU_MM_LO] = -128, p[NPU_MM_HI] = 127;
	RUN(NPU_K_MATMUL_Q, p, a, b, NULL, y);
	CHECK(eq_int(y, NPU_T_I8, want, 4));
	p[NPU_MM_BCOUNTS + NPU_MM_BDIMS - 1] = 2, p[NPU_MM_BSB + NPU_MM_BDIMS - 1] = 6;
	RUN(NPU_K_MATMUL_Q, p, a, b, NULL, y);
	CHECK(eq_int(y, NPU_T_I8, want, 8));
	mm_params(p, 2, 2, 3, 3, 1, 1, 3);	/* B stored [N, K] */
	p[NPU_MM_AT] = p[NPU_MM_BT] = p[NPU_MM_YT] = NPU_T_I8;
	p[NPU_MM_ZA] = 1, p[NPU_MM_ZB] = -2, p[NPU_MM_ZY] = 3, p[NPU_MM_MULT] = M30, p[NPU_MM_SHIFT] = 31;
	p[NPU_MM_LO] = -128, p[NPU_MM_HI] = 8;
	RUN(NPU_K_MATMUL_Q, p, a, bt, NULL, y);
	CHECK(eq_int(y, NPU_T_I8, want_hi, 4));
	p[NPU_MM_AT] = p[NPU_MM_YT] = NPU_T_I16;
	RUN(NPU_K_MATMUL_Q, p, a16, bt, NULL, y16);
	CHECK(eq_int(y16, NPU_T_I16, want_hi, 4));
}

/* Accumulators beyond int32 (issue 13: 16-bit activations and weights).
 * MATMUL_Q, int16 A = 32767 (ZA -32768: 65535) and B = -32768 (ZB 32767:
 * -65535), K = 4: acc = -4 (2^16 - 1)^2 = -(2^34 - 2^19 + 4) (an int32
 * would hold 2^19 - 4); x 2^30 / 2^50 = -(2^14 - 1/2 + 2^-18) =
 * -16383.500004 -> -16384.
 * CONV_Q and CONV_T_Q with an int64 bias (p[NPU_CV_ACT] = NPU_T_I64): 1x1,
 * x = 2, w = 3 for both output channels, bias 3 2^36 and -3 2^36 + 2^24
 * (beyond int32; saturated to +-(2^31) they would give 64 and -64):
 * acc = bias + 6; x 2^30 / 2^55 = acc / 2^25: 6144 + 6 2^-25 -> 6144 and
 * -6144 + 1/2 + 6 2^-25 -> -6143. int8 x and w (whose fast paths take
 * int32 biases) give the same. */
static void test_acc_wide(void)
{
	int32_t p[(int)NPU_MM_COUNT > (int)NPU_CV_COUNT ? (int)NPU_MM_COUNT : (int)NPU_CV_COUNT];
	int16_t a[4] = {32767, 32767, 32767, 32767}, b[4] = {-32768, -32768, -32768, -32768}, y[2];
	int32_t want_mm[1] = {-16384};
	mm_params(p, 1, 1, 4, 4, 1, 1, 1);
	p[NPU_MM_AT] = p[NPU_MM_BT] = p[NPU_MM_YT] = NPU_T_I16;
	p[NPU_MM_ZA] = -32768, p[NPU_MM_ZB] = 32767, p[NPU_MM_ZY] = 0, p[NPU_MM_MULT] = M30, p[NPU_MM_SHIFT] = 50;
	p[NPU_MM_LO] = -32768, p[NPU_MM_HI] = 32767;
	RUN(NPU_K_MATMUL_Q, p, a, b, NULL, y);
	CHECK(eq_int(y, NPU_T_I16, want_mm, 1));

	int64_t bias[2] = {3 * ((int64_t)1 << 36), -3 * ((int64_t)1 << 36) + ((int64_t)1 << 24)};
	int16_t x16[1] = {2}, w16[2] = {3, 3};
	int8_t x8[1] = {2}, w8[2] = {3, 3};
	int32_t mult[2] = {M30, M30}, shift[2] = {55, 55}, want[2] = {6144, -6143};
	conv_geo(p, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1);
	conv_q_types(p, NPU_T_I16, NPU_T_I16, NPU_T_I16, 0, 0, -32768, 32767);
	p[NPU_CV_ACT] = NPU_T_I64;
	RUN(NPU_K_CONV_Q, p, x16, w16, bias, mult, shift, NULL, y);
	CHECK(eq_int(y, NPU_T_I16, want, 2));
	RUN(NPU_K_CONV_T_Q, p, x16, w16, bias, mult, shift, NULL, y);
	CHECK(eq_int(y, NPU_T_I16, want, 2));
	p[NPU_CV_XT] = p[NPU_CV_WT] = NPU_T_I8;
	RUN(NPU_K_CONV_Q, p, x8, w8, bias, mult, shift, NULL, y);
	CHECK(eq_int(y, NPU_T_I16, want, 2));
	RUN(NPU_K_CONV_T_Q, p, x8, w8, bias, mult, shift, NULL, y);
	CHECK(eq_int(y, NPU_T_I16, want, 2));
}

/* gemm: A stored [K, M] = [[1,2],[3,4]] transposed: A = [[1,3],[2,4]];
 * B = [[1,0],[0,2]]; A B = [[1,6],[2,8]]; 2 A B + 0.5 [2,4] (C a row) =
 * [[3,14],[5,18]]; HI 15 clamps 18. f16 storage of y: the same values. */
static void test_matmul_f(void)
{
	int32_t p[NPU_MM_COUNT];
	float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 2}, cc[2] = {2, 4}, y[4];
	float want[4] = {3, 14, 5, 15};
	uint16_t yh[4], wanth[4] = {0x4200, 0x4b00, 0x4500, 0x4b80};	/* 3 14 5 15 */
	union { float f; int32_t i; } al = {2.0f}, be = {0.5f}, lo = {-INFINITY}, hi = {15.0f};
	mm_params(p, 2, 2, 2, 1, 2, 2, 1);
	p[NPU_MM_CM] = 0, p[NPU_MM_CN] = 1;
	p[NPU_MM_AT] = p[NPU_MM_BT] = p[NPU_MM_CT] = p[NPU_MM_YT] = NPU_T_F32;
	p[NPU_MM_ALPHA] = al.i, p[NPU_MM_BETA] = be.i, p[NPU_MM_LO] = lo.i, p[NPU_MM_HI] = hi.i;
	RUN(NPU_K_MATMUL_F, p, a, b, cc, y);
	CHECK(eq_f32(y, want, 4));
	p[NPU_MM_YT] = NPU_T_F16;
	RUN(NPU_K_MATMUL_F, p, a, b, cc, yh);
	CHECK(eq_u16(yh, wanth, 4));
}

/* x int8 [2, 3, 2] = 0..11 along axis 1 with indices 2, -1, 0, 5 (outside:
 * zeros): y [2, 4, 2] = {4,5, 4,5, 0,1, 0,0, 10,11, 10,11, 6,7, 0,0};
 * float x [3] with int64 indices -3, 2: {x0, x2}. */
static void test_gather(void)
{
	int32_t p[NPU_GA_COUNT] = {2, 3, 2, 4, 1, NPU_T_I32};
	int8_t x[12], y[16];
	int32_t idx[4] = {2, -1, 0, 5}, want[16] = {4, 5, 4, 5, 0, 1, 0, 0, 10, 11, 10, 11, 6, 7, 0, 0};
	for (int i = 0; i < 12; i++)
		x[i] = (int8_t)i;
	RUN(NPU_K_GATHER, p, x, idx, y);
	CHECK(eq_int(y, NPU_T_I8, want, 16));
	int32_t q[NPU_GA_COUNT] = {1, 3, 1, 2, 4, NPU_T_I64};
	float xf[3] = {1.5f, -2, 7}, yf[2], wantf[2] = {1.5f, 7};
	int64_t i64[2] = {-3, 2};
	RUN(NPU_K_GATHER, q, xf, i64, yf);
	CHECK(eq_f32(yf, wantf, 2));
}

/* int8 rows {1,5,5} and {-3,-7,-3}: the first maximum 1, 0, the last 2, 2,
 * the first minimum 0, 1; f32 {0.5,-1,0.5}: 0, or 2 with LAST; int64 and
 * int32 outputs. */
static void test_argmax(void)
{
	int32_t p[NPU_AM_COUNT] = {2, 3, 1, 0, 0, NPU_T_I8, NPU_T_I64};
	int8_t x[6] = {1, 5, 5, -3, -7, -3};
	int64_t y[2];
	int32_t y32[2];
	RUN(NPU_K_ARGMAX, p, x, y);
	CHECK(y[0] == 1 && y[1] == 0);
	p[NPU_AM_LAST] = 1;
	RUN(NPU_K_ARGMAX, p, x, y);
	CHECK(y[0] == 2 && y[1] == 2);
	p[NPU_AM_LAST] = 0, p[NPU_AM_MIN] = 1, p[NPU_AM_YT] = NPU_T_I32;
	RUN(NPU_K_ARGMAX, p, x, y32);
	CHECK(y32[0] == 0 && y32[1] == 1);
	int32_t q[NPU_AM_COUNT] = {1, 3, 1, 0, 0, NPU_T_F32, NPU_T_I32};
	float xf[3] = {0.5f, -1, 0.5f};
	RUN(NPU_K_ARGMAX, q, xf, y32);
	CHECK(y32[0] == 0);
	q[NPU_AM_LAST] = 1;
	RUN(NPU_K_ARGMAX, q, xf, y32);
	CHECK(y32[0] == 2);
}

/* x [1, 3, 1] = 1 2 3, size 3, alpha 3 (alpha / size = 1), beta 1, bias 1:
 * sums of squares over the windows 1+4, 1+4+9, 4+9: y = 1/6, 2/15, 3/14
 * (the power as exp(log), so to a few ulps). */
static void test_lrn_f(void)
{
	union { float f; int32_t i; } al = {3.0f}, be = {1.0f}, bi = {1.0f};
	int32_t p[NPU_LR_COUNT] = {1, 3, 1, 3, al.i, be.i, bi.i, NPU_T_F32, NPU_T_F32};
	float x[3] = {1, 2, 3}, y[3];
	RUN(NPU_K_LRN_F, p, x, y);
	CHECK(fabsf(y[0] - 1.0f / 6) < 1e-6f && fabsf(y[1] - 2.0f / 15) < 1e-6f && fabsf(y[2] - 3.0f / 14) < 1e-6f);
}

/* Vanilla RNN, I = H = 1, W = 1, R = 0.5, no bias, x = 0.5, -1:
 * forward h = tanh(0.5) = 0.46211716, tanh(-1 + 0.5 h) = -0.64631348;
 * reverse (t = 1 first) tanh(-1) = -0.76159416, tanh(0.5 + 0.5 * that) =
 * 0.11864151. Bidirectional, batch first, B = 1: Y [B, T, 2, H] gets the
 * forward call at even places and the reverse (DIR 1, W[1] = 1, R[1] = 0.5)
 * at odd ones; Yh [B, 2, H]. */
static void test_rnn_f(void)
{
	int32_t p[NPU_RN_COUNT];
	float x[2] = {0.5f, -1}, W[2] = {1, 1}, R[2] = {0.5f, 0.5f}, Y[4] = {9, 9, 9, 9}, Yh[2] = {9, 9};
	rn_params(p, 2, 1, 1, 1, 0, 0, NPU_T_F32);
	p[NPU_RN_DIRS] = 2, p[NPU_RN_BF] = 1;
	RUN(NPU_K_RNN_F, p, x, W, R, NULL, NULL, Y, Yh);
	CHECK(fabsf(Y[0] - 0.46211716f) < 1e-6f && fabsf(Y[2] + 0.64631348f) < 1e-6f && Y[1] == 9 && Y[3] == 9);
	CHECK(Yh[0] == Y[2] && Yh[1] == 9);
	p[NPU_RN_DIR] = 1, p[NPU_RN_REVERSE] = 1;
	RUN(NPU_K_RNN_F, p, x, W, R, NULL, NULL, Y, Yh);
	CHECK(fabsf(Y[3] + 0.76159416f) < 1e-6f && fabsf(Y[1] - 0.11864151f) < 1e-6f && Yh[1] == Y[1]);
	/* CLIP 0.25 bounds the pre-activation: tanh(0.25) both times forward */
	union { float f; int32_t i; } cl = {0.25f};
	rn_params(p, 2, 1, 1, 1, 0, 0, NPU_T_F32);
	p[NPU_RN_CLIP] = cl.i;
	RUN(NPU_K_RNN_F, p, x, W, R, NULL, NULL, Y, Yh);
	CHECK(fabsf(Y[0] - 0.24491866f) < 1e-6f && fabsf(Y[1] + 0.24491866f) < 1e-6f);
}

/* Sequence lengths 1 and 2 (int64), time major, B = 2, the RNN above:
 * batch 0 runs one step (tanh(0.5) = 0.46211716, Y at t = 1 zero, also
 * backwards, where its one step is t = 0), batch 1 both steps. */
static void test_rnn_seq_lens(void)
{
	int32_t p[NPU_RN_COUNT];
	float x[4] = {0.5f, 0.5f, -1, -1}, W[1] = {1}, R[1] = {0.5f}, Y[4], Yh[2];
	int64_t sl[2] = {1, 2};
	rn_params(p, 2, 2, 1, 1, 0, 0, NPU_T_F32);
	p[NPU_RN_SLT] = NPU_T_I64;
	memset(Y, 0x7f, sizeof Y);
	RUN(NPU_K_RNN_F, p, x, W, R, NULL, NULL, Y, Yh, sl);
	CHECK(fabsf(Y[0] - 0.46211716f) < 1e-6f && Y[2] == 0 && Yh[0] == Y[0]);
	CHECK(fabsf(Y[1] - 0.46211716f) < 1e-6f && fabsf(Y[3] + 0.64631348f) < 1e-6f && Yh[1] == Y[3]);
	p[NPU_RN_REVERSE] = 1;
	memset(Y, 0x7f, sizeof Y);
	RUN(NPU_K_RNN_F, p, x, W, R, NULL, NULL, Y, Yh, sl);
	CHECK(fabsf(Y[0] - 0.46211716f) < 1e-6f && Y[2] == 0 && Yh[0] == Y[0]);
	CHECK(fabsf(Y[3] + 0.76159416f) < 1e-6f && fabsf(Y[1] - 0.11864151f) < 1e-6f && Yh[1] == Y[1]);
}

/* LSTM peepholes, I = H = 1, T = 1, W = R = 0, c0 = 1, P (i o f) = 2 4 0:
 * i = sigmoid(2 c0), f = sigmoid(0) = 0.5, c~ = tanh(0) = 0, c = 0.5,
 * o = sigmoid(4 c) = sigmoid(2), h = sigmoid(2) tanh(0.5) = 0.40703144. */
static void test_lstm_peepholes(void)
{
	int32_t p[NPU_RN_COUNT];
	float x[1] = {1}, W[4] = {0}, R[4] = {0}, c0[1] = {1}, P[3] = {2, 4, 0}, Y[1], Yh[1], Yc[1];
	rn_params(p, 1, 1, 1, 1, 0, 0, NPU_T_F32);
	RUN(NPU_K_LSTM_F, p, x, W, R, NULL, NULL, c0, Y, Yh, Yc, P);
	CHECK(Yc[0] == 0.5f && fabsf(Y[0] - 0.40703144f) < 1e-6f && Yh[0] == Y[0]);
}

/* integer codes to float by value; float to u8 / i32 truncated toward
 * zero and saturated, NaN -> 0 */
static void test_cast_int(void)
{
	int32_t p[NPU_CA_COUNT] = {3, NPU_T_U8, NPU_T_F32};
	uint8_t u[3] = {0, 255, 7};
	float y[3], want[3] = {0, 255, 7};
	RUN(NPU_K_CAST_F, p, u, y);
	CHECK(eq_f32(y, want, 3));
	int16_t s16[2] = {-32768, 5};
	uint16_t yh[2], wanth[2] = {0xf800, 0x4500};	/* -32768, 5 */
	p[NPU_CA_N] = 2, p[NPU_CA_XT] = NPU_T_I16, p[NPU_CA_YT] = NPU_T_F16;
	RUN(NPU_K_CAST_F, p, s16, yh);
	CHECK(eq_u16(yh, wanth, 2));
	float x[4] = {-1.7f, 300.2f, NAN, 2.5f};
	uint8_t yu[4];
	int32_t yi[4], wantu[4] = {0, 255, 0, 2}, wanti[4] = {-1, 300, 0, 2};
	p[NPU_CA_N] = 4, p[NPU_CA_XT] = NPU_T_F32, p[NPU_CA_YT] = NPU_T_U8;
	RUN(NPU_K_CAST_F, p, x, yu);
	CHECK(eq_int(yu, NPU_T_U8, wantu, 4));
	p[NPU_CA_YT] = NPU_T_I32;
	RUN(NPU_K_CAST_F, p, x, yi);
	CHECK(eq_int(yi, NPU_T_I32, wanti, 4));
}

/* ---------------------------------------------------------------- executor */

/* Two ops over every kind of tensor place: REQUANT input 0 (int8 [4]) ->
 * arena offset 32 (x2: MULT 2), then ELTWISE_Q add of that and a weight
 * tensor (weights offset 4) -> output 1. */
/* ---------------------------------------------------------------- spatial and normalisation kernels */

static void test_conv_t(void)
{
	int32_t p[NPU_CV_COUNT];
	/* 1-D, x = 1 2, w = 1 10 100, stride 2: y[o] sums x[i] w[k] over
	 * o = 2i + k: 1, 10, 100 + 2, 20, 200; plus the bias 0.5 */
	float x[2] = {1, 2}, w[3] = {1, 10, 100}, b[1] = {0.5f}, y[5];
	float want[5] = {1.5f, 10.5f, 102.5f, 20.5f, 200.5f}, want_pad[3] = {10.5f, 102.5f, 20.5f};
	conv_geo(p, 1, 1, 1, 2, 1, 1, 5, 1, 3, 1, 2, 0, 0, 1, 1, 1);
	conv_f_types(p, NPU_T_F32, NPU_T_F32, NPU_T_F32, -INFINITY, INFINITY, -1, 0, 0);
	RUN(NPU_K_CONV_T_F, p, x, w, b, NULL, y);
	CHECK(eq_f32(y, want, 5));
	/* pads 1: o + 1 = 2i + k, three outputs */
	conv_geo(p, 1, 1, 1, 2, 1, 1, 3, 1, 3, 1, 2, 0, 1, 1, 1, 1);
	conv_f_types(p, NPU_T_F32, NPU_T_F32, NPU_T_F32, -INFINITY, INFINITY, -1, 0, 0);
	RUN(NPU_K_CONV_T_F, p, x, w, b, NULL, y);
	CHECK(eq_f32(y, want_pad, 3));
	/* dilation 2, stride 1, kernel 2 (w = 1 10): o = i + 2k: 1, 2, 10, 20 */
	float y4[4], want4[4] = {1, 2, 10, 20};
	conv_geo(p, 1, 1, 1, 2, 1, 1, 4, 1, 2, 1, 1, 0, 0, 1, 2, 1);
	conv_f_types(p, NPU_T_F32, NPU_T_F32, NPU_T_F32, -INFINITY, INFINITY, -1, 0, 0);
	RUN(NPU_K_CONV_T_F, p, x, w, NULL, NULL, y4);
	CHECK(eq_f32(y4, want4, 4));
	/* two groups, 1x1: y0 = 1 * 2, y1 = 4 * 3; then relu on -y */
	float xg[2] = {1, 4}, wg[2] = {2, -3}, yg[2], wantg[2] = {2, 0};
	conv_geo(p, 1, 2, 1, 1, 2, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 2);
	conv_f_types(p, NPU_T_F32, NPU_T_F32, NPU_T_F32, -INFINITY, INFINITY, NPU_U_RELU, 0, 0);
	RUN(NPU_K_CONV_T_F, p, xg, wg, NULL, NULL, yg);
	CHECK(eq_f32(yg, wantg, 2));
	/* f16 storage: x = 1 2 (0x3c00 0x4000), w = 1 10 100, no bias:
	 * 1 (0x3c00), 10 (0x4900), 102 (0x5660), 20 (0x4d00), 200 (0x5a40) */
	uint16_t xh[2] = {0x3c00, 0x4000}, wh[3] = {0x3c00, 0x4900, 0x5640}, yh[5];
	uint16_t wanth[5] = {0x3c00, 0x4900, 0x5660, 0x4d00, 0x5a40};
	conv_geo(p, 1, 1, 1, 2, 1, 1, 5, 1, 3, 1, 2, 0, 0, 1, 1, 1);
	conv_f_types(p, NPU_T_F16, NPU_T_F16, NPU_T_F16, -INFINITY, INFINITY, -1, 0, 0);
	RUN(NPU_K_CONV_T_F, p, xh, wh, NULL, NULL, yh);
	CHECK(eq_u16(yh, wanth, 5));

	/* the integer kernel on the first case: x - ZX = 1 2 (ZX = 1),
	 * w - wzp = 1 10 100 (wzp = -1), bias 1, x1: 2, 11, 103, 21, 201 ->
	 * clamped to 127; ZY = -1 */
	int8_t xq[2] = {2, 3}, wq[3] = {0, 9, 99}, yq[5];
	int32_t bq[1] = {1}, mult[1] = {M30}, shift[1] = {30}, wzp[1] = {-1}, wantq[5] = {1, 10, 102, 20, 127};
	conv_geo(p, 1, 1, 1, 2, 1, 1, 5, 1, 3, 1, 2, 0, 0, 1, 1, 1);
	conv_q_types(p, NPU_T_I8, NPU_T_I8, NPU_T_I8, 1, -1, -128, 127);
	RUN(NPU_K_CONV_T_Q, p, xq, wq, bq, mult, shift, wzp, yq);
	CHECK(eq_int(yq, NPU_T_I8, wantq, 5));
	/* int16 activations, two output channels (w [C=1, OC=2, 1]), acc/2:
	 * x = 300: oc0 w 3 -> 900/2 = 450, oc1 w -5 -> -1500/2 = -750 */
	int16_t x16[1] = {300}, y16[2];
	int8_t w16[2] = {3, -5};
	int32_t m2[2] = {M30, M30}, s2[2] = {31, 31}, want16[2] = {450, -750};
	conv_geo(p, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1);
	conv_q_types(p, NPU_T_I16, NPU_T_I8, NPU_T_I16, 0, 0, -32768, 32767);
	RUN(NPU_K_CONV_T_Q, p, x16, w16, NULL, m2, s2, NULL, y16);
	CHECK(eq_int(y16, NPU_T_I16, want16, 2));
}

static void test_resize(void)
{
	int32_t p[NPU_RS_COUNT] = {0};
	/* linear 1x2 -> 1x3: rows read row 0 (weights 1, 0); columns read
	 * (0, 1) with weights (1, 0), (0.5, 0.5), (0, 1): 2 4 -> 2 3 4 */
	int32_t th[4] = {0, 0, fbits(1), fbits(0)};
	int32_t tw[12] = {0, 1, fbits(1), fbits(0), 0, 1, fbits(0.5f), fbits(0.5f), 0, 1, fbits(0), fbits(1)};
	float x[2] = {2, 4}, y[3], want[3] = {2, 3, 4};
	int32_t v[] = {1, 1, 2, 1, 3, 2, NPU_T_F32, NPU_T_F32, 4};
	memcpy(p, v, sizeof v);
	RUN(NPU_K_RESIZE, p, x, th, tw, y);
	CHECK(eq_f32(y, want, 3));
	/* nearest on int8 (a copy), two planes of 1x2 -> 2x3: columns 0 0 1,
	 * rows 0 0 */
	int32_t th1[4] = {0, fbits(1), 0, fbits(1)}, tw1[6] = {0, fbits(1), 0, fbits(1), 1, fbits(1)};
	int8_t xq[4] = {5, -7, 1, 2}, yq[12];
	int32_t wantq[12] = {5, 5, -7, 5, 5, -7, 1, 1, 2, 1, 1, 2};
	int32_t v1[] = {2, 1, 2, 2, 3, 1, NPU_T_I8, NPU_T_I8, 1};
	memcpy(p, v1, sizeof v1);
	RUN(NPU_K_RESIZE, p, xq, th1, tw1, yq);
	CHECK(eq_int(yq, NPU_T_I8, wantq, 12));
	/* linear on int16 with Q15 weights: 2 5 -> 2, (2 + 5) 2^14 2^15 / 2^30
	 * = 3.5 -> 4 (half up), 5; and -2 -5 -> -2, -3.5 -> -3, -5 */
	int32_t thq[4] = {0, 0, 32768, 0}, twq[12] = {0, 1, 32768, 0, 0, 1, 16384, 16384, 0, 1, 0, 32768};
	int16_t x16[4] = {2, 5, -2, -5}, y16[6];
	int32_t want16[6] = {2, 4, 5, -2, -3, -5};
	int32_t v2[] = {2, 1, 2, 1, 3, 2, NPU_T_I16, NPU_T_I16, 2};
	memcpy(p, v2, sizeof v2);
	RUN(NPU_K_RESIZE, p, x16, thq, twq, y16);
	CHECK(eq_int(y16, NPU_T_I16, want16, 6));
}

static void test_prelu_q(void)
{
	int32_t p[NPU_PR_COUNT] = {0};
	/* x = -4 4 -2 10 (ZA = 0), slope q = 3 (ZB = 0) for all: x >= 0 times 1
	 * (x1), x < 0 times 3 / 2 (acc/2): -6 4 -3 10, plus ZY = 1 */
	int32_t cnt[6] = {1, 1, 1, 1, 1, 4}, sa[6] = {0, 0, 0, 0, 0, 1};
	int8_t x[4] = {-4, 4, -2, 10}, s[1] = {3}, y[4];
	int32_t want[4] = {-5, 5, -2, 11};
	memcpy(p + NPU_PR_COUNTS, cnt, sizeof cnt);
	memcpy(p + NPU_PR_SA, sa, sizeof sa);
	p[NPU_PR_AT] = p[NPU_PR_BT] = p[NPU_PR_YT] = NPU_T_I8;
	p[NPU_PR_ZY] = 1, p[NPU_PR_MP] = M30, p[NPU_PR_SP] = 30, p[NPU_PR_MN] = M30, p[NPU_PR_SN] = 31;
	p[NPU_PR_LO] = -128, p[NPU_PR_HI] = 127;
	RUN(NPU_K_PRELU_Q, p, x, s, y);
	CHECK(eq_int(y, NPU_T_I8, want, 4));
	/* per channel: two channels of two (slope strides 1 0 over counts
	 * 2 2), slopes 2 and 4 with ZB = 1 (q = 3, 5), ZA = 1: x = -3 5 -1 0
	 * -> d = -4 4 -2 -1 -> -4*2/2 = -4, 4, -2*4/2 = -4, -1*4/2 = -2 */
	int32_t c2[6] = {1, 1, 1, 1, 2, 2}, sa2[6] = {0, 0, 0, 0, 2, 1}, sb2[6] = {0, 0, 0, 0, 1, 0};
	int8_t x2[4] = {-3, 5, -1, 0}, s2[2] = {3, 5};
	int32_t want2[4] = {-4, 4, -4, -2};
	memcpy(p + NPU_PR_COUNTS, c2, sizeof c2);
	memcpy(p + NPU_PR_SA, sa2, sizeof sa2);
	memcpy(p + NPU_PR_SB, sb2, sizeof sb2);
	p[NPU_PR_ZA] = 1, p[NPU_PR_ZB] = 1, p[NPU_PR_ZY] = 0;
	RUN(NPU_K_PRELU_Q, p, x2, s2, y);
	CHECK(eq_int(y, NPU_T_I8, want2, 4));
}

static void test_norm_f(void)
{
	int32_t p[NPU_NM_COUNT];
	/* layer norm over 4: mean 2.5, variance 1.25, eps 2.75 -> 1/sqrt(4) =
	 * 0.5: -0.75 -0.25 0.25 0.75, times 1 2 1 2 plus 0 0 1 1 */
	float x[4] = {1, 2, 3, 4}, s[4] = {1, 2, 1, 2}, b[4] = {0, 0, 1, 1}, y[4];
	float want[4] = {-0.75f, -0.5f, 1.25f, 2.5f}, want_nb[4] = {-0.75f, -0.5f, 0.25f, 1.5f};
	int32_t v[] = {1, 4, 0, fbits(2.75f), NPU_T_F32, NPU_T_F32, NPU_T_F32};
	memcpy(p, v, sizeof v);
	RUN(NPU_K_NORM_F, p, x, s, b, y);
	CHECK(eq_f32(y, want, 4));
	RUN(NPU_K_NORM_F, p, x, s, NULL, y);
	CHECK(eq_f32(y, want_nb, 4));
	/* instance norm, two channels of two, eps 0: 1 3 -> -1 1 (variance
	 * 1), 0 4 -> -1 1 (variance 4); scales 2 3, biases 0 1 */
	float xi[4] = {1, 3, 0, 4}, si[2] = {2, 3}, bi[2] = {0, 1}, wanti[4] = {-2, 2, -2, 4};
	int32_t vi[] = {2, 2, 2, fbits(0), NPU_T_F32, NPU_T_F32, NPU_T_F32};
	memcpy(p, vi, sizeof vi);
	RUN(NPU_K_NORM_F, p, xi, si, bi, y);
	CHECK(eq_f32(y, wanti, 4));
	/* given statistics (batch_norm): means 1 2, variances 4 1 (eps 0):
	 * (1 3 - 1) / 2 * 2 + 0 = 0 2, (0 4 - 2) / 1 * 3 + 1 = -5 7 */
	float mi[2] = {1, 2}, vi2[2] = {4, 1}, wantb[4] = {0, 2, -5, 7};
	RUN(NPU_K_NORM_F, p, xi, si, bi, y, mi, vi2);
	CHECK(eq_f32(y, wantb, 4));
	/* f16: 1 3 -> -2 2 (0xc000 0x4000) */
	uint16_t xh[2] = {0x3c00, 0x4200}, sh[1] = {0x4000}, yh[2], wanth[2] = {0xc000, 0x4000};
	int32_t vh[] = {1, 2, 1, fbits(0), NPU_T_F16, NPU_T_F16, NPU_T_F16};
	memcpy(p, vh, sizeof vh);
	RUN(NPU_K_NORM_F, p, xh, sh, NULL, yh);
	CHECK(eq_u16(yh, wanth, 2));
}

static void test_pow_floor_f(void)
{
	int32_t p[NPU_EW_COUNT], pu[NPU_UN_COUNT];
	/* integer powers are exact: (-2)^3 = -8, 3^2 = 9, 2^-2 = 0.25, 10^0 = 1 */
	int32_t c[6] = {1, 1, 1, 1, 1, 4}, s1[6] = {0, 0, 0, 0, 0, 1};
	float a[4] = {-2, 3, 2, 10}, b[4] = {3, 2, -2, 0}, y[4], want[4] = {-8, 9, 0.25f, 1};
	ew_params(p, NPU_BIN_POW, c, s1, s1, NPU_T_F32, NPU_T_F32, NPU_T_F32);
	p[NPU_EW_LO] = fbits(-INFINITY), p[NPU_EW_HI] = fbits(INFINITY);
	RUN(NPU_K_ELTWISE_F, p, a, b, y);
	CHECK(eq_f32(y, want, 4));
	/* special cases: (-2)^0.5 NaN, 0^-1 inf, (-0)^3 = -0, 4^0.5 ~ 2 */
	float a2[4] = {-2, 0, -0.0f, 4}, b2[4] = {0.5f, -1, 3, 0.5f};
	RUN(NPU_K_ELTWISE_F, p, a2, b2, y);
	CHECK(y[0] != y[0] && y[1] == INFINITY && y[2] == 0 && signbit(y[2]) && fabsf(y[3] - 2) < 1e-6f);
	/* prelu: x < 0 times the slope */
	float a3[4] = {-2, 3, -1, 0}, b3[4] = {0.5f, 0.5f, 4, 4}, want3[4] = {-1, 3, -4, 0};
	p[NPU_EW_OP] = NPU_BIN_PRELU;
	RUN(NPU_K_ELTWISE_F, p, a3, b3, y);
	CHECK(eq_f32(y, want3, 4));
	/* floor, ceil (-0.5 keeps its sign), erf */
	float xf[4] = {-1.5f, 2.5f, -0.5f, 1e10f}, wf[4] = {-2, 2, -1, 1e10f}, wc[4] = {-1, 3, -0.0f, 1e10f};
	un_params(pu, 4, NPU_U_FLOOR, 0, 0, NPU_T_F32, NPU_T_F32);
	RUN(NPU_K_UNARY_F, pu, xf, y);
	CHECK(eq_f32(y, wf, 4));
	un_params(pu, 4, NPU_U_CEIL, 0, 0, NPU_T_F32, NPU_T_F32);
	RUN(NPU_K_UNARY_F, pu, xf, y);
	CHECK(eq_f32(y, wc, 4) && signbit(y[2]));
	float xe[2] = {0, 10}, we[2] = {0, 1};
	un_params(pu, 2, NPU_U_ERF, 0, 0, NPU_T_F32, NPU_T_F32);
	RUN(NPU_K_UNARY_F, pu, xe, y);
	CHECK(eq_f32(y, we, 2));
}

static void p3_params(int32_t *p, const int32_t g[23], int mode, int cpad)
{
	memset(p, 0, sizeof(int32_t) * NPU_P3_COUNT);
	memcpy(p, g, 23 * sizeof(int32_t));
	p[NPU_P3_MODE] = mode, p[NPU_P3_COUNT_PAD] = cpad, p[NPU_P3_XT] = p[NPU_P3_YT] = NPU_T_F32;
}

static void test_pool3_f(void)
{
	int32_t p[NPU_P3_COUNT];
	/* 1-D max, kernel 2 with dilation 2, stride 1: x = 1 5 2 4 3 ->
	 * max(1, 2) max(5, 4) max(2, 3) = 2 5 3 */
	static const int32_t g1[23] = {1, 1, 1, 1, 5, 1, 1, 3, 1, 1, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 2};
	float x1[5] = {1, 5, 2, 4, 3}, y[4], want1[3] = {2, 5, 3};
	p3_params(p, g1, NPU_POOL_MAX, 0);
	RUN(NPU_K_POOL3_F, p, x1, y);
	CHECK(eq_f32(y, want1, 3));
	/* 3-D average of 2x2x2 = 1..8: 4.5 */
	static const int32_t g2[23] = {1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1};
	float x2[8] = {1, 2, 3, 4, 5, 6, 7, 8}, want2[1] = {4.5f};
	p3_params(p, g2, NPU_POOL_AVG, 0);
	RUN(NPU_K_POOL3_F, p, x2, y);
	CHECK(eq_f32(y, want2, 1));
	/* 1-D average, kernel 2, stride 2, pads 1 1 over x = 2 4: windows
	 * (pad, 2) and (4, pad): 2 4 without the padding, 1 2 counting it */
	static const int32_t g3[23] = {1, 1, 1, 1, 2, 1, 1, 2, 1, 1, 2, 1, 1, 2, 0, 0, 1, 0, 0, 1, 1, 1, 1};
	float x3[2] = {2, 4}, want3[2] = {2, 4}, want3p[2] = {1, 2};
	p3_params(p, g3, NPU_POOL_AVG, 0);
	RUN(NPU_K_POOL3_F, p, x3, y);
	CHECK(eq_f32(y, want3, 2));
	p3_params(p, g3, NPU_POOL_AVG, 1);
	RUN(NPU_K_POOL3_F, p, x3, y);
	CHECK(eq_f32(y, want3p, 2));
}

static void test_conv3_f(void)
{
	int32_t p[NPU_C3_COUNT] = {0};
	/* conv over D: x = 1 2, w = 3 4, bias 0.5: 0.5 + 3 + 8 = 11.5 */
	static const int32_t g[12] = {1, 1, 2, 1, 1, 1, 1, 1, 1, 2, 1, 1};
	float x[2] = {1, 2}, w[2] = {3, 4}, b[1] = {0.5f}, y[4], want[1] = {11.5f};
	memcpy(p, g, sizeof g);
	for (int a = 0; a < 3; a++)
		p[NPU_C3_SD + a] = p[NPU_C3_DD + a] = 1;
	p[NPU_C3_G] = 1, p[NPU_C3_XT] = p[NPU_C3_WT] = p[NPU_C3_YT] = NPU_T_F32;
	p[NPU_C3_LO] = fbits(-INFINITY), p[NPU_C3_HI] = fbits(INFINITY), p[NPU_C3_ACT] = -1;
	RUN(NPU_K_CONV3_F, p, x, w, b, y);
	CHECK(eq_f32(y, want, 1));
	/* transposed, stride 2 over D: x = 1 2, w = 1 10: o = 2i + k:
	 * 1 10 2 20 */
	float wt[2] = {1, 10}, wantt[4] = {1, 10, 2, 20};
	p[NPU_C3_OD] = 4, p[NPU_C3_SD] = 2, p[NPU_C3_TR] = 1;
	RUN(NPU_K_CONV3_F, p, x, wt, NULL, y);
	CHECK(eq_f32(y, wantt, 4));
}

static void test_exec(void)
{
	_Alignas(16) uint8_t weights[16] = {0, 0, 0, 0, 10, 20, 30, 40};
	npu_tensor t[4] = {{NPU_MEM_INPUT, 0}, {NPU_MEM_ARENA, 32}, {NPU_MEM_WEIGHT, 4}, {NPU_MEM_OUTPUT, 1}};
	int32_t args[5] = {0, 1, 1, 2, 3};
	int32_t params[NPU_RQ_COUNT + NPU_EW_COUNT] = {0};
	int32_t *rq = params, *ew = params + NPU_RQ_COUNT;
	int32_t c[6] = {1, 1, 1, 1, 1, 4}, s[6] = {0, 0, 0, 0, 0, 1};
	rq_params(rq, c, s, s, 0, 0);
	rq[NPU_RQ_XT] = rq[NPU_RQ_YT] = NPU_T_I8, rq[NPU_RQ_MULT] = 2, rq[NPU_RQ_LO] = -128, rq[NPU_RQ_HI] = 127;
	ew_params(ew, NPU_BIN_ADD, c, s, s, NPU_T_I8, NPU_T_I8, NPU_T_I8);
	ew[NPU_EW_MA] = 1, ew[NPU_EW_MB] = 1, ew[NPU_EW_LO] = -128, ew[NPU_EW_HI] = 127;
	npu_op ops[2] = {{NPU_K_REQUANT, 2, 0, 0}, {NPU_K_ELTWISE_Q, 3, 2, NPU_RQ_COUNT}};
	npu_model m = {.n_tensors = 4, .n_ops = 2, .n_args = 5, .n_params = LEN(params), .arena_size = 64,
		       .scratch_offset = 48, .tensors = t, .ops = ops, .args = args, .params = params,
		       .weights = weights};
	/* 2x + w: 1 -> 12, -2 -> 16, 3 -> 36, 50 -> 100 + 40 = 140 -> 127 */
	int8_t x[4] = {1, -2, 3, 50}, y[4], dummy[1];
	int32_t want[4] = {12, 16, 36, 127};
	const void *in[1] = {x};
	void *out[2] = {dummy, y};
	memset(arena, 0, 64);
	npu_run(&m, in, out, arena);
	CHECK(eq_int(y, NPU_T_I8, want, 4));
	CHECK(arena[32] == 2 && (int8_t)arena[33] == -4 && arena[35] == 100);
	CHECK(npu_param_count(NPU_K_CONV_Q) == NPU_CV_COUNT && npu_param_count(NPU_K_FILL) == NPU_FI_COUNT &&
	      npu_param_count(NPU_K_LSTM_F) == NPU_RN_COUNT && npu_param_count(NPU_K_GRU_Q) == NPU_RNQ_COUNT &&
	      npu_param_count(NPU_K_LSTM_Q) == NPU_RNQ_COUNT && npu_param_count(NPU_K_COUNT) == 0);
	CHECK(npu_param_count(NPU_K_MATMUL_F) == NPU_MM_COUNT && npu_param_count(NPU_K_MATMUL_Q) == NPU_MM_COUNT &&
	      npu_param_count(NPU_K_GATHER) == NPU_GA_COUNT && npu_param_count(NPU_K_ARGMAX) == NPU_AM_COUNT &&
	      npu_param_count(NPU_K_RNN_F) == NPU_RN_COUNT && npu_param_count(NPU_K_LRN_F) == NPU_LR_COUNT);
	/* the kernels added with designated entries (every kernel has parameters) */
	CHECK(npu_param_count(NPU_K_CONV_T_Q) == NPU_CV_COUNT && npu_param_count(NPU_K_CONV_T_F) == NPU_CV_COUNT &&
	      npu_param_count(NPU_K_RESIZE) == NPU_RS_COUNT && npu_param_count(NPU_K_PRELU_Q) == NPU_PR_COUNT &&
	      npu_param_count(NPU_K_NORM_F) == NPU_NM_COUNT && npu_param_count(NPU_K_POOL3_F) == NPU_P3_COUNT &&
	      npu_param_count(NPU_K_CONV3_F) == NPU_C3_COUNT);
	int all = 1;
	for (uint32_t k = 0; k < NPU_K_COUNT; k++)
		all = all && npu_param_count(k) > 0;
	CHECK(all);
}

/* ---------------------------------------------------------------- npu_load */

static void put32(uint8_t *b, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

/* Header word offsets (npu_rt.h): the tables of the blob made below. */
enum { B_TENSORS = 84, B_OPS = 116, B_ARGS = 132, B_PARAMS = 160, B_WEIGHTS = 272, B_INPUTS = 288,
       B_OUTPUTS = 344, B_STRINGS = 400, B_SIZE = 404 };

/* A model of one COPY reversing 4 bytes from input 0 to output 0; four
 * tensors (input, output, a weight and an arena one, the last two unused);
 * the args (7) and params (NPU_CV_COUNT) tables have room to spare for
 * turning the op into a CONV_Q. */
static size_t make_blob(uint8_t *b)
{
	uint32_t h[21] = {NPU_BIN_MAGIC, NPU_BIN_VERSION, 4, 1, 7, NPU_CV_COUNT, 1, 1, 64, 48, 16, 16,
			  B_TENSORS, B_OPS, B_ARGS, B_PARAMS, B_WEIGHTS, B_INPUTS, B_OUTPUTS, B_STRINGS, 4};
	memset(b, 0, 512);
	for (int i = 0; i < 21; i++)
		put32(b, 4 * (size_t)i, h[i]);
	npu_tensor t[4] = {{NPU_MEM_INPUT, 0}, {NPU_MEM_OUTPUT, 0}, {NPU_MEM_WEIGHT, 15}, {NPU_MEM_ARENA, 63}};
	npu_op op = {NPU_K_COPY, 2, 0, 0};
	int32_t args[2] = {0, 1}, p[NPU_CP_COUNT];
	int32_t c[6] = {1, 1, 1, 1, 1, 4}, sn[6] = {0, 0, 0, 0, 0, -1}, d1[6] = {0, 0, 0, 0, 0, 1};
	cp_params(p, 1, c, sn, d1, 3, 0);
	npu_io io[2] = {{0, NPU_T_I8, 1, {4}, 1, 0, 4}, {2, NPU_T_I8, 1, {4}, 1, 0, 4}};
	memcpy(b + B_TENSORS, t, sizeof t);
	memcpy(b + B_OPS, &op, sizeof op);
	memcpy(b + B_ARGS, args, sizeof args);
	memcpy(b + B_PARAMS, p, sizeof p);
	memcpy(b + B_INPUTS, &io[0], sizeof io[0]);
	memcpy(b + B_OUTPUTS, &io[1], sizeof io[1]);
	memcpy(b + B_STRINGS, "x\0y\0", 4);
	return B_SIZE;
}

static void test_load(void)
{
	static _Alignas(16) uint8_t blob[512], bad[520];
	npu_model m;
	size_t n = make_blob(blob);
	CHECK(sizeof(npu_io) == 56 && sizeof(npu_tensor) == 8 && sizeof(npu_op) == 16);
	if (!CHECK(npu_load(&m, blob, n) == 0))
		return;
	int8_t x[4] = {1, 2, 3, 4}, y[4];
	int32_t want[4] = {4, 3, 2, 1};
	const void *in[1] = {x};
	void *out[1] = {y};
	npu_run(&m, in, out, arena);
	CHECK(eq_int(y, NPU_T_I8, want, 4));
	CHECK(m.n_ops == 1 && m.arena_size == 64 && m.scratch_offset == 48 && m.weights == blob + B_WEIGHTS &&
	      !strcmp(m.strings + m.inputs[0].name, "x") && !strcmp(m.strings + m.outputs[0].name, "y"));

	/* every truncation fails (the strings end the blob) */
	int ok = 1;
	for (size_t k = 0; k < n; k++)
		ok &= npu_load(&m, blob, k) == -1;
	CHECK(ok);
	CHECK(npu_load(&m, NULL, n) == -1);
	/* misaligned blob */
	memcpy(bad + 1, blob, n);
	CHECK(npu_load(&m, bad + 1, n) == -1);

	/* one corruption each: (byte offset, value) */
	static const struct {
		size_t at;
		uint32_t v;
		const char *what;
	} cs[] = {
		{0, 0x4e50554du, "byte-swapped magic (a big-endian reader)"},
		{4, NPU_BIN_VERSION + 1, "version"},
		{4, 1, "version 1 (ELTWISE parameters without ACT, P0, P1)"},
		{8, 0x40000000u, "n_tensors beyond the blob"},
		{8, 5, "n_tensors: the table runs into the next"},
		{48, 86, "tensors offset misaligned"},
		{48, 0xfffffff8u, "tensors offset beyond the blob (offset + size wraps in 32 bits)"},
		{52, 0xffffffffu, "ops offset"},
		{20, 16, "n_params below the op's COPY parameter count"},
		{64, 264, "weights offset not 16-aligned"},
		{44, 0xfffffff0u, "weight_size"},
		{36, 60, "scratch beyond the arena"},
		{36, 46, "scratch offset misaligned"},
		{80, 5, "strings size beyond the blob"},
		{B_TENSORS, 4, "tensor place"},
		{B_TENSORS + 4, 1, "input index >= n_inputs"},
		{B_TENSORS + 12, 1, "output index >= n_outputs"},
		{B_TENSORS + 20, 16, "weight offset >= weight_size"},
		{B_TENSORS + 28, 64, "arena offset >= arena_size"},
		{B_OPS, NPU_K_COUNT, "kernel"},
		{B_OPS + 4, 1, "too few arguments"},
		{B_OPS + 4, 10, "too many arguments"},
		{B_OPS + 8, 6, "arguments beyond the table"},
		{B_OPS + 12, 10, "parameters beyond the table"},
		{B_ARGS, 4, "argument tensor >= n_tensors"},
		{B_ARGS + 4, 0xffffffffu, "required argument absent"},
		{B_ARGS, 0xfffffffeu, "argument -2"},
		{B_INPUTS, 4, "input name beyond the strings"},
		{B_INPUTS + 4, NPU_T_COUNT, "input dtype"},
		{B_OUTPUTS + 8, NPU_MAX_RANK + 1, "output rank"},
		{B_OUTPUTS + 12, 0x80000000u, "negative dimension"},
		{B_STRINGS, 0x7a7a7a7au, "strings not NUL-terminated"},
	};
	for (int i = 0; i < LEN(cs); i++) {
		memcpy(bad, blob, n);
		uint32_t v = cs[i].v;
		if (cs[i].at >= B_TENSORS)	/* tables: host order */
			memcpy(bad + cs[i].at, &v, 4);
		else
			put32(bad, cs[i].at, v);
		CHECK_MSG(npu_load(&m, bad, n) == -1, "%s accepted", cs[i].what);
	}
	/* garbage of every size */
	ok = 1;
	for (size_t k = 0; k < sizeof bad; k++)
		bad[k] = (uint8_t)rnd(0, 255);
	for (size_t k = 0; k <= sizeof bad - 8; k += 4)
		ok &= npu_load(&m, bad, k) == -1;
	CHECK(ok);
	/* random single-word corruptions: npu_load never reads outside the blob
	 * (ASan), and what it accepts keeps every table inside it */
	int accepted = 0;
	ok = 1;
	for (int r = 0; r < 3000; r++) {
		memcpy(bad, blob, n);
		size_t at = 4 * (size_t)rnd(2, (int)n / 4 - 1);
		uint32_t v = rnd(0, 3) == 0 ? (uint32_t)rnd(0, 0x7fffffff) * 2u : (uint32_t)rnd(0, 80);
		memcpy(bad + at, &v, 4);
		if (npu_load(&m, bad, n) == 0) {
			accepted++;
			ok &= (const uint8_t *)(m.ops + m.n_ops) <= bad + n && (const uint8_t *)(m.tensors + m.n_tensors) <= bad + n &&
			      (const uint8_t *)(m.params + m.n_params) <= bad + n && m.weights + m.weight_size <= bad + n;
		}
	}
	CHECK_MSG(ok && accepted > 0, "%d accepted", accepted);

	/* the op as a CONV_Q 8->8 3x3 on 8x8 int8 (x = input, w, mult, shift =
	 * the weight tensor, y = output): its column tile needs more scratch
	 * than the blob's 16 bytes; accepted once the scratch area is enough */
	int32_t p[NPU_CV_COUNT], args[7] = {0, 2, -1, 2, 2, -1, 1};
	npu_op op = {NPU_K_CONV_Q, 7, 0, 0};
	conv_geo(p, 1, 8, 8, 8, 8, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1);
	conv_q_types(p, NPU_T_I8, NPU_T_I8, NPU_T_I8, 0, 0, -128, 127);
	uint32_t need = npu_scratch_size(NPU_K_CONV_Q, p);
	memcpy(bad, blob, n);
	memcpy(bad + B_OPS, &op, sizeof op);
	memcpy(bad + B_ARGS, args, sizeof args);
	memcpy(bad + B_PARAMS, p, sizeof p);
	CHECK(need > 16 && npu_load(&m, bad, n) == -1);
	put32(bad, 32, 48 + need);	/* arena_size */
	put32(bad, 40, need);		/* scratch_size */
	CHECK(npu_load(&m, bad, n) == 0);
	args[3] = -1;			/* mult is required */
	memcpy(bad + B_ARGS, args, sizeof args);
	CHECK(npu_load(&m, bad, n) == -1);
}

/* ---------------------------------------------------------------- main */

int main(void)
{
	test_rshift_round();
	test_conv_q_basic();
	test_conv_q_pad_stride_wzp();
	test_conv_q_groups();
	test_conv_q_wide();
	test_acc_wide();
	test_conv_q_requant_edges();
	test_conv_q_random();
	test_eltwise_q();
	test_eltwise_requant_random();
	test_requant();
	test_quantize();
	test_quantize_random();
	test_dequantize();
	test_lut();
	test_pool_q();
	test_pool_q_random();
	test_copy_fill();
	test_conv_f();
	test_unary_f();
	test_eltwise_f();
	test_pool_f();
	test_softmax_f();
	test_gru_f();
	test_lstm_f();
	test_cast_f();
	test_matmul_q();
	test_matmul_f();
	test_gather();
	test_argmax();
	test_lrn_f();
	test_rnn_f();
	test_lstm_peepholes();
	test_rnn_seq_lens();
	test_cast_int();
	test_conv_t();
	test_resize();
	test_prelu_q();
	test_norm_f();
	test_pow_floor_f();
	test_pool3_f();
	test_conv3_f();
	test_exec();
	test_load();
	test_gru_q();
	test_lstm_q();
	test_rnn_q_vs_f();
	return check_done();
}
