/* npu_rt.c - the npukit runtime: kernels, the op-program executor and the
 * binary model loader (interface and numerics: npu_rt.h).
 *
 * Portable C99 (also C11-clean), no malloc, no stdio. npu-emit copies this
 * file into the emitted header keeping only the kernels a model uses: each
 * kernel's code sits between marker lines
 *	@npu-kernel NAME...	(in a comment of its own line)
 *	@npu-end
 * (NAME: the NPU_K_* name without the prefix); a region naming several
 * kernels is kept when any of them is; unmarked code is always kept. Every
 * subset of regions compiles without warnings, so helpers are static and
 * live inside the regions of the kernels that use them.
 *
 * Integer kernels are exact, so their fast paths may sum in any order;
 * float kernels keep the order npu_rt.h fixes (no reassociation, no FMA). */
#include "npu_rt.h"
#include "npu_half.h"
#include "npu_math.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* SIMD paths, chosen by the compiler's predefined macros (-mavx2,
 * -march=native, -mcpu=cortex-m4, ...; SSE2 is x86-64's baseline); the
 * portable C is the reference each must equal bit for bit, and
 * -DNPU_NO_SIMD selects it everywhere */
#if defined(NPU_NO_SIMD)	/* the portable C everywhere (the reference) */
#elif defined(__AVX2__) || defined(__SSE4_1__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON) && defined(__aarch64__)
#include <arm_neon.h>
#elif defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#include <arm_acle.h>	/* the M55 has the DSP instructions too (cq_micro) */
#elif defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32)
#include <arm_acle.h>
#endif

/* ---------------------------------------------------------------- integer helpers */

/* @npu-kernel CONV_Q ELTWISE_Q REQUANT LUT REDUCE_Q MATMUL_Q CONV_T_Q PRELU_Q RESIZE CONV_NHWC_Q RESIZE_NHWC CONV_T_NHWC_Q */
/* Rounding right shift (as npu_rshift_round) for any int64 v, without
 * shifting negative values: biasing by 2^63 makes v unsigned, and 2^63 /
 * 2^s is an integer. */
static inline int64_t rt_rsr(int64_t v, int s)
{
	if (s <= 0)
		return v;
	/* u = v + 2^63 = q 2^s + r: floor((v + 2^(s-1)) / 2^s) =
	 * q - 2^(63-s) + (r >= 2^(s-1)), for every int64 v */
	uint64_t u = (uint64_t)v + ((uint64_t)1 << 63), r = u & (((uint64_t)1 << s) - 1);
	return (int64_t)(u >> s) - ((int64_t)1 << (63 - s)) + (r >= ((uint64_t)1 << (s - 1)));
}
/* @npu-end */

/* @npu-kernel CONV_Q ELTWISE_Q REQUANT QUANTIZE POOL_Q REDUCE_Q MATMUL_Q CONV_T_Q PRELU_Q CONV_NHWC_Q POOL_NHWC_Q CONV_T_NHWC_Q */
static inline int32_t rt_clamp(int64_t v, int32_t lo, int32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (int32_t)v;
}
/* @npu-end */

/* @npu-kernel CONV_Q ELTWISE_Q REQUANT REDUCE_Q MATMUL_Q CONV_T_Q PRELU_Q CONV_NHWC_Q CONV_T_NHWC_Q */
static inline int rt_shift(int32_t s)
{
	return s < 0 ? 0 : s > 62 ? 62 : (int)s;
}

/* rshift_round(acc * mult, s) for any int64 acc, exactly (through a 128-bit
 * product when acc * mult may not fit), saturated to +-2^62. */
static inline int64_t rt_mulshift(int64_t acc, int32_t mult, int s)
{
	const int64_t lim = (int64_t)1 << 62;
	if (acc > -((int64_t)1 << 31) && acc < ((int64_t)1 << 31))
		return rt_rsr(acc * mult, s);	/* |acc * mult| < 2^62 */
	int neg = (acc < 0) != (mult < 0);
	uint64_t a = acc < 0 ? 0 - (uint64_t)acc : (uint64_t)acc;
	uint64_t m = mult < 0 ? 0 - (uint64_t)(int64_t)mult : (uint64_t)mult;
	uint64_t pl = (a & 0xffffffffu) * m, ph = (a >> 32) * m;	/* each < 2^63 */
	uint64_t lo = pl + (ph << 32), hi = (ph >> 32) + (lo < pl);
	if (neg) {
		lo = ~lo + 1;
		hi = ~hi + (lo == 0);
	}
	if (s > 0) {
		uint64_t l2 = lo + ((uint64_t)1 << (s - 1));
		hi += l2 < lo;
		lo = (l2 >> s) | (hi << (64 - s));
		hi = hi >> 63 ? ~(~hi >> s) : hi >> s;	/* arithmetic shift */
	}
	if (hi >> 63) {
		if (hi != ~(uint64_t)0 || lo <= (uint64_t)1 << 63)
			return -lim;
		int64_t v = -(int64_t)(0 - lo);
		return v < -lim ? -lim : v;
	}
	if (hi != 0 || lo > (uint64_t)lim)
		return lim;
	return (int64_t)lo;
}
/* @npu-end */

/* @npu-kernel CONV_Q ELTWISE_Q REQUANT DEQUANTIZE LUT POOL_Q REDUCE_Q MATMUL_Q ARGMAX CAST_F CONV_T_Q PRELU_Q RESIZE CONV_NHWC_Q POOL_NHWC_Q RESIZE_NHWC CONV_T_NHWC_Q */
/* Element access by NPU_T_* type. */
static inline int32_t rt_ldi(const void *p, int32_t t, size_t i)
{
	switch (t) {
	case NPU_T_I8: return ((const int8_t *)p)[i];
	case NPU_T_I16: return ((const int16_t *)p)[i];
	case NPU_T_U8: return ((const uint8_t *)p)[i];
	default: return ((const int32_t *)p)[i];
	}
}
/* @npu-end */

/* @npu-kernel CONV_Q ELTWISE_Q REQUANT QUANTIZE LUT POOL_Q REDUCE_Q MATMUL_Q CAST_F CONV_T_Q PRELU_Q RESIZE CONV_NHWC_Q POOL_NHWC_Q RESIZE_NHWC CONV_T_NHWC_Q */
/* v is within the type's range (the kernels clamp to LO, HI first) */
static inline void rt_sti(void *p, int32_t t, size_t i, int32_t v)
{
	switch (t) {
	case NPU_T_I8: ((int8_t *)p)[i] = (int8_t)v; break;
	case NPU_T_I16: ((int16_t *)p)[i] = (int16_t)v; break;
	case NPU_T_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
	default: ((int32_t *)p)[i] = v; break;
	}
}
/* @npu-end */

/* @npu-kernel CONV_F ELTWISE_F UNARY_F QUANTIZE POOL_F SOFTMAX_F GRU_F LSTM_F CAST_F REDUCE_F MATMUL_F ARGMAX RNN_F LRN_F CONV_T_F RESIZE NORM_F POOL3_F CONV3_F CONV_NHWC_F POOL_NHWC_F RESIZE_NHWC CONV_T_NHWC_F */
static inline float rt_ldf(const void *p, int32_t t, size_t i)
{
	return t == NPU_T_F16 ? npu_f16_to_f32(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}
/* @npu-end */

/* @npu-kernel CONV_F ELTWISE_F UNARY_F DEQUANTIZE POOL_F SOFTMAX_F GRU_F LSTM_F CAST_F REDUCE_F MATMUL_F RNN_F LRN_F CONV_T_F RESIZE NORM_F POOL3_F CONV3_F CONV_NHWC_F POOL_NHWC_F RESIZE_NHWC CONV_T_NHWC_F */
static inline void rt_stf(void *p, int32_t t, size_t i, float v)
{
	if (t == NPU_T_F16)
		((uint16_t *)p)[i] = npu_f32_to_f16(v);
	else
		((float *)p)[i] = v;
}
/* @npu-end */

/* @npu-kernel CONV_F ELTWISE_F UNARY_F QUANTIZE DEQUANTIZE MATMUL_F RNN_F LRN_F CONV_T_F CONV3_F CONV_NHWC_F CONV_T_NHWC_F */
static inline float rt_pf(const int32_t *p, int i)
{
	return npu_bits_f32((uint32_t)p[i]);
}
/* @npu-end */

/* @npu-kernel CONV_F ELTWISE_F MATMUL_F CONV_T_F CONV3_F CONV_NHWC_F CONV_T_NHWC_F */
/* min(max(v, lo), hi) keeping NaN */
static inline float rt_clampf(float v, float lo, float hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}
/* @npu-end */

/* ---------------------------------------------------------------- strided walks */

/* @npu-kernel ELTWISE_Q ELTWISE_F REQUANT COPY PRELU_Q */
/* The rows of a walk: every dimension but the innermost, in order; a row's
 * offset along strides s is walk_off(idx, s). */
static inline size_t rt_walk_rows(const int32_t *cnt)
{
	size_t n = 1;
	for (int d = 0; d < NPU_WALK_DIMS; d++) {
		if (cnt[d] <= 0)
			return 0;
		if (d < NPU_WALK_DIMS - 1)
			n *= (size_t)cnt[d];
	}
	return n;
}

static inline void rt_walk_next(int32_t *idx, const int32_t *cnt)
{
	for (int d = NPU_WALK_DIMS - 2; d >= 0; d--) {
		if (++idx[d] < cnt[d])
			return;
		idx[d] = 0;
	}
}

static inline ptrdiff_t rt_walk_off(const int32_t *idx, const int32_t *s)
{
	ptrdiff_t o = 0;
	for (int d = 0; d < NPU_WALK_DIMS - 1; d++)
		o += (ptrdiff_t)idx[d] * s[d];
	return o;
}
/* @npu-end */

/* @npu-kernel CONV_Q ELTWISE_Q REQUANT CONV_T_Q CONV_NHWC_Q PRELU_Q */
/* The int8 fast paths requantize an accumulator v (|v| <= 2^E) computed
 * as an unsigned sum of products of non-negative 32-bit values, u = v + neg
 * (e.g. (x - ZX + 256) MULT = v + 256 MULT): SSE2 and every SIMD ISA
 * multiply those directly. u + D = v + 2^(s-1) + 2^E (D = 2^(s-1) - neg +
 * 2^E) is in [0, 2^(E+1) + 2^(s-1)), so r = (u + D) >> s =
 * rshift_round(v, s) + 2^(E-s) < 2^31 (E - s <= 30), and y = r - C with
 * C = 2^(E-s) - ZY. r is clamped as an unsigned value to [lu, hu] and
 * rebased without signed conversions: y = base + (r - lu). When no r can
 * reach LO (or HI), lu (hu) is simply r's bound; when every r lies above
 * HI (below LO) the output is constant. */
typedef struct {
	uint64_t D;
	uint32_t lu, hu;
	int32_t base;
} rt_uq;

static inline int rt_uq_init(rt_uq *q, int s, int E, uint64_t neg, int32_t zy, int32_t lo, int32_t hi)
{
	if (s < 1 || E < s || E > 62 || E - s > 30 || neg > ((uint64_t)1 << E) || lo > hi)
		return -1;
	int64_t C = ((int64_t)1 << (E - s)) - zy;
	int64_t l = (int64_t)lo + C, h = (int64_t)hi + C;
	q->D = ((uint64_t)1 << (s - 1)) - neg + ((uint64_t)1 << E);
	if (h < 0) {	/* every y > HI */
		q->lu = q->hu = 0;
		q->base = hi;
	} else if (l > 0x7fffffff) {	/* every y < LO (r <= 2^31) */
		q->lu = q->hu = 0x7fffffff;
		q->base = lo;
	} else {
		q->lu = (uint32_t)(l < 0 ? 0 : l);
		q->hu = (uint32_t)(h > 0x7fffffff ? 0x7fffffff : h);
		q->base = (int32_t)((int64_t)q->lu - C);
	}
	return 0;
}
/* @npu-end */

/* @npu-kernel ELTWISE_Q REQUANT */
#define RT_CHUNK 256

/* t[j] = x[j] + k (neg: k - x[j]) as uint32, the int8 operands of
 * rt_uq_row (16 lanes on AVX-512: the loop stays scalar at -O2) */
static void rt_widen_i8(uint32_t *restrict t, const int8_t *restrict x, uint32_t k, int neg, int n)
{
	int j = 0;
#if !defined(NPU_NO_SIMD) && defined(__AVX512F__)
	__m512i vk = _mm512_set1_epi32((int32_t)k);
	for (; j + 16 <= n; j += 16) {
		__m512i v = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(x + j)));
		_mm512_storeu_si512(t + j, neg ? _mm512_sub_epi32(vk, v) : _mm512_add_epi32(v, vk));
	}
#endif
	for (; j < n; j++)
		t[j] = neg ? k - (uint32_t)x[j] : (uint32_t)x[j] + k;
}

/* y[i] = requantized ta[i] ma + tb[i] mb (+ q->D) for n <= RT_CHUNK
 * values (tb NULL: no second term). The operands come through uint32
 * arrays so that compilers see plain 32 x 32 -> 64 bit products. */
static void rt_uq_row(int8_t *restrict y, const uint32_t *restrict ta, uint32_t ma, const uint32_t *restrict tb,
		      uint32_t mb, int n, const rt_uq *q, int s)
{
	uint64_t D = q->D;
	uint32_t lu = q->lu, hu = q->hu;
	int32_t base = q->base;
#if !defined(NPU_NO_SIMD) && defined(__AVX512F__)
	/* 16 lanes: the products on the even and odd lanes (vpmuludq), + D,
	 * >> s (r < 2^31: the low halves), the unsigned clamp, the rebase and
	 * vpmovdb's truncation (the cast below); the rest under a mask */
	{
		__m512i vma = _mm512_set1_epi32((int32_t)ma), vmb = _mm512_set1_epi32((int32_t)mb);
		__m512i vd = _mm512_set1_epi64((int64_t)D), vlu = _mm512_set1_epi32((int32_t)lu);
		__m512i vhu = _mm512_set1_epi32((int32_t)hu), vrb = _mm512_set1_epi32((int32_t)((uint32_t)base - lu));
		__m128i sc = _mm_cvtsi32_si128(s);
		int i = 0;
#define RT_UQ16(k, at, v) \
	do { \
		__m512i a_ = _mm512_maskz_loadu_epi32(k, ta + (at)), ao_ = _mm512_srli_epi64(a_, 32); \
		__m512i e_ = _mm512_add_epi64(_mm512_mul_epu32(a_, vma), vd); \
		__m512i o_ = _mm512_add_epi64(_mm512_mul_epu32(ao_, vma), vd); \
		if (tb) { \
			__m512i b_ = _mm512_maskz_loadu_epi32(k, tb + (at)), bo_ = _mm512_srli_epi64(b_, 32); \
			e_ = _mm512_add_epi64(e_, _mm512_mul_epu32(b_, vmb)); \
			o_ = _mm512_add_epi64(o_, _mm512_mul_epu32(bo_, vmb)); \
		} \
		e_ = _mm512_srl_epi64(e_, sc); \
		o_ = _mm512_srl_epi64(o_, sc); \
		v = _mm512_mask_mov_epi32(e_, (__mmask16)0xaaaa, _mm512_slli_epi64(o_, 32)); \
		v = _mm512_add_epi32(_mm512_min_epu32(_mm512_max_epu32(v, vlu), vhu), vrb); \
	} while (0)
#if defined(__AVX512BW__)
		/* results within int8: 64 at a time narrowed by saturating packs
		 * (exact here; per 128-bit lane, the dwords put in order after)
		 * and one store, cheaper than vpmovdb to memory */
		if (base >= -128 && (int64_t)base + (hu - lu) <= 127) {
			const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
			for (; i + 64 <= n; i += 64) {
				__m512i v0, v1, v2, v3;
				RT_UQ16((__mmask16)0xffff, i, v0);
				RT_UQ16((__mmask16)0xffff, i + 16, v1);
				RT_UQ16((__mmask16)0xffff, i + 32, v2);
				RT_UQ16((__mmask16)0xffff, i + 48, v3);
				__m512i w = _mm512_packs_epi16(_mm512_packs_epi32(v0, v1), _mm512_packs_epi32(v2, v3));
				_mm512_storeu_si512(y + i, _mm512_permutexvar_epi32(order, w));
			}
		}
#endif
		for (; i < n; i += 16) {
			__mmask16 k = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
			__m512i v;
			RT_UQ16(k, i, v);
			_mm512_mask_cvtepi32_storeu_epi8(y + i, k, v);
		}
#undef RT_UQ16
		return;
	}
#endif
	if (tb) {
		for (int i = 0; i < n; i++) {
			uint32_t v = (uint32_t)(((uint64_t)ta[i] * ma + (uint64_t)tb[i] * mb + D) >> s);
			v = v < lu ? lu : v > hu ? hu : v;
			y[i] = (int8_t)(base + (int32_t)(v - lu));
		}
	} else {
		for (int i = 0; i < n; i++) {
			uint32_t v = (uint32_t)(((uint64_t)ta[i] * ma + D) >> s);
			v = v < lu ? lu : v > hu ? hu : v;
			y[i] = (int8_t)(base + (int32_t)(v - lu));
		}
	}
}
/* @npu-end */

/* ---------------------------------------------------------------- float functions */

/* @npu-kernel CONV_F UNARY_F SOFTMAX_F GRU_F LSTM_F REDUCE_F MATMUL_F RNN_F LRN_F CAST_F ELTWISE_F CONV_T_F NORM_F CONV3_F CONV_NHWC_F CONV_T_NHWC_F */
#include <math.h>
/* @npu-end */

/* @npu-kernel CONV_F UNARY_F GRU_F LSTM_F ELTWISE_F CONV_T_F CONV3_F CONV_NHWC_F CONV_T_NHWC_F */
/* the formulas of libir's float interpreter (ir_kernels.c, ir_kern_rnn.c) */
static float rt_sigm(float v)
{
	return v >= 0 ? 1 / (1 + npu_expf(-v)) : npu_expf(v) / (1 + npu_expf(v));
}
/* @npu-end */

/* @npu-kernel CONV_F UNARY_F ELTWISE_F CONV_T_F CONV3_F CONV_NHWC_F CONV_T_NHWC_F */
/* floor and ceil without libm: floats of magnitude >= 2^23 (and NaN,
 * infinities) are already integers; the result keeps v's sign (-0.5 -> -0) */
static float rt_floorf(float v, int up)
{
	if (!(v > -8388608.0f && v < 8388608.0f))
		return v;
	float t = (float)(int32_t)v;	/* toward zero */
	if (up ? t < v : t > v)
		t += up ? 1.0f : -1.0f;
	return t == 0 ? npu_m_with_sign(0.0f, npu_f32_bits(v) & 0x80000000u) : t;
}

static float rt_unary(int32_t fn, float v, float a, float b)
{
	switch (fn) {
	case NPU_U_RELU: return v > 0 ? v : 0;
	case NPU_U_CLIP: return v < a ? a : v > b ? b : v;
	case NPU_U_LEAKY_RELU: return v < 0 ? a * v : v;
	case NPU_U_ELU: return v < 0 ? a * npu_expm1f(v) : v;
	case NPU_U_SIGMOID: return rt_sigm(v);
	case NPU_U_TANH: return npu_tanhf(v);
	case NPU_U_HARD_SIGMOID: {
		float t = a * v + b;
		return t < 0 ? 0 : t > 1 ? 1 : t;
	}
	case NPU_U_HARD_SWISH: {
		float t = v * (1.0f / 6) + 0.5f;
		return v * (t < 0 ? 0 : t > 1 ? 1 : t);
	}
	case NPU_U_SOFTPLUS: return v > 0 ? v + npu_log1pf(npu_expf(-v)) : npu_log1pf(npu_expf(v));
	case NPU_U_SILU: return v * rt_sigm(v);
	case NPU_U_EXP: return npu_expf(v);
	case NPU_U_LOG: return npu_logf(v);
	case NPU_U_SQRT: return sqrtf(v);
	case NPU_U_RSQRT: return 1 / sqrtf(v);
	case NPU_U_RECIPROCAL: return 1 / v;
	case NPU_U_NEG: return -v;
	case NPU_U_ABS: return fabsf(v);
	case NPU_U_GELU:
		if (a != 0)
			return 0.5f * v * (1 + npu_tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
		return 0.5f * v * (1 + npu_erff(v * 0.70710678118654752f));
	case NPU_U_FLOOR: return rt_floorf(v, 0);
	case NPU_U_CEIL: return rt_floorf(v, 1);
	case NPU_U_ERF: return npu_erff(v);
	default: return v;
	}
}
/* @npu-end */

/* ================================================================ kernels */

/* @npu-kernel CONV_Q CONV_T_Q CONV_NHWC_Q CONV_T_NHWC_Q */
/* Bias element oc as int64: int32 [OC], or int64 [OC] when p[NPU_CV_ACT]
 * is NPU_T_I64 (16-bit activations and weights; |bias| <= 2^62). */
static inline int64_t cq_bias(const int32_t *p, const void *bias, int oc)
{
	if (!bias)
		return 0;
	return p[NPU_CV_ACT] == NPU_T_I64 ? ((const int64_t *)bias)[oc] : ((const int32_t *)bias)[oc];
}
/* @npu-end */

/* @npu-kernel CONV_Q */
#if defined(__clang__)	/* the loop hint below is only a hint (sanitizers may defeat it) */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpass-failed"
#endif
/* CONV_Q has four paths with identical results (integers are exact):
 * - generic: any types, int64 accumulation, exact requantization;
 * - depthwise int8 (C == OC == G): per channel, accumulators in registers
 *   (cq_depthwise): 3x3 stride 1/2 on a ZX-padded copy of the channel in
 *   the scratch, else (or within a smaller budget) row by row from x;
 * - panel int8 (the others, when its scratch fits the bound): tiles of TP
 *   output pixels (a multiple of CQ_DNP); per k (a 1x1 stride-1 conv's
 *   input channel, else a tap of the window) a row of the tile's pixels,
 *   staged as a panel with pixels along the vector lanes (cq_panel_conv),
 *   against the weights packed once by the lowering into blocks of CQ_NR =
 *   8 output channels (npu_rt.h), each quad of 4 k broadcast; int8 x int8
 *   with vpdpbusd where the ISA has VNNI or sdot (aarch64 dotprod), else
 *   int16 pairs; K in chunks when even 16 pixels of the whole K do not fit
 *   the bound; on AMX-INT8 (x86-64 Linux, the compiler targeting it) the
 *   same panel of quads runs on tile registers instead, 16 channels x 16
 *   pixels per tile against the weights regrouped into channel rows
 *   (cq_amx_conv; K whole up to CQ_AWIDE), else the tile's pixels as rows
 *   of K bytes against a packed block's 16 quads at a time (cq_amx_tile),
 *   the VNNI path the fallback;
 * - GEMM int8 through im2col (the bound too small for the panel): each
 *   pixel's window as int16 x - ZX in a row of the column tile (a 1x1
 *   stride-1 conv transposes x directly; others first stage the input
 *   rows the tile reads, with zero padding), the packed weights against
 *   CQ_MR = 4 pixels at a time in a register-blocked micro-kernel with a
 *   SIMD path per ISA (cq_micro).
 * int8 dot products over at most CQ_MAX_K terms fit an int32 (|x - ZX| <=
 * 255, |w| <= 128); bias and weight zero points join in int64 or through
 * cq_requant's exact unsigned arithmetic. */
#define CQ_MAX_K 16384
#define CQ_TILE_BYTES 16384	/* the column tile's budget (at least CQ_MR pixels) */
#define CQ_DW_TAPS 64
#define CQ_DW_STRIDE 4
#define CQ_MR 4
#define CQ_NR 8

enum { CQ_NONE, CQ_GENERIC, CQ_DEPTHWISE, CQ_IM2COL, CQ_PANEL };

typedef struct {
	int N, C, H, W, OC, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW, G;
	int cg, og, K, Kp, P, TP, path;
	int packed;	/* int8 weights in the GEMM path's packed layout */
	int direct;	/* im2col: a 1x1 stride-1 conv transposes x directly */
	int gather;	/* im2col: windows gathered from x (no staged rows) */
	int KC;		/* im2col: K in chunks of KC for CQ_MR pixels (0: whole) */
	size_t staged;	/* im2col: bytes of staged rows */
	int Wp, SR;	/* im2col: staged rows of Wp columns, at most SR per tile;
			 * depthwise: phase planes of SR rows of Wp columns */
	size_t stage;	/* the staging area's (or the accumulators') offset */
	size_t scratch;
} cq_geo;

#define CQ_DNP 16	/* pixels per call of the direct 1x1 path's micro-kernel */

/* scratch offsets for a tile of TPr pixels: panel, widened weights, pixel
 * sums, CQ_NR accumulator rows; returns the total */
static size_t cq_panel_fit(const cq_geo *g, int TPr, int KC, size_t *wide, size_t *csum, size_t *acc)
{
	size_t nbr = (size_t)((g->og + CQ_NR - 1) / CQ_NR) * CQ_NR;	/* a group's packed channels */
	*wide = ((size_t)KC * TPr * 2 + 63) & ~(size_t)63;
	*csum = *wide + (size_t)KC * 16;
	*acc = *csum + (size_t)TPr * 4;
	/* accumulator rows (a block's with K whole, else the group's), the
	 * weight sums' corrections, one per packed channel, and 4 gathered rows */
	return *acc + (KC >= g->Kp ? CQ_NR : nbr) * TPr * 4 + (size_t)g->G * nbr * 4 + (g->direct ? 0 : (size_t)4 * TPr);
}

static void cq_geometry(const int32_t *p, cq_geo *g)
{
	g->N = p[NPU_CV_N], g->C = p[NPU_CV_C], g->H = p[NPU_CV_H], g->W = p[NPU_CV_W];
	g->OC = p[NPU_CV_OC], g->OH = p[NPU_CV_OH], g->OW = p[NPU_CV_OW];
	g->KH = p[NPU_CV_KH], g->KW = p[NPU_CV_KW], g->SH = p[NPU_CV_SH], g->SW = p[NPU_CV_SW];
	g->PT = p[NPU_CV_PT], g->PL = p[NPU_CV_PL], g->DH = p[NPU_CV_DH], g->DW = p[NPU_CV_DW];
	g->G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1;
	g->cg = g->C / g->G;
	g->og = g->OC / g->G;
	g->K = g->cg * g->KH * g->KW;
	g->Kp = (g->K + 3) & ~3;
	g->P = g->OH * g->OW;
	g->TP = 0;
	g->KC = 0;
	g->gather = 0;
	g->staged = 0;
	g->path = CQ_GENERIC;
	g->packed = 0;
	g->scratch = 0;
	if (g->N < 0 || g->C < 1 || g->H < 0 || g->W < 0 || g->OC < 1 || g->OH < 0 || g->OW < 0 || g->KH < 1 ||
	    g->KW < 1 || g->SH < 1 || g->SW < 1 || g->DH < 1 || g->DW < 1 || g->C % g->G != 0 || g->OC % g->G != 0) {
		g->path = CQ_NONE;	/* not a convolution: nothing to compute */
		return;
	}
	if (p[NPU_CV_XT] != NPU_T_I8 || p[NPU_CV_WT] != NPU_T_I8 || g->K <= 0 || g->K > CQ_MAX_K)
		return;
	int dw = g->cg == 1 && g->og == 1 && g->KH * g->KW <= CQ_DW_TAPS && g->SW <= CQ_DW_STRIDE &&
		 g->SH <= CQ_DW_STRIDE;
	g->packed = !dw;	/* a property of the parameters alone: the lowering packs by it */
	if (g->P <= 0)
		return;
	/* the scratch budget (NPU_CV_SMAX); a path that cannot keep to it
	 * gives way to a smaller one, at last to the generic path (none) */
	size_t budget = p[NPU_CV_SMAX] > 0 ? (size_t)p[NPU_CV_SMAX] : (size_t)-1;
	if (dw) {
		/* per channel and output row, accumulators on the stack (no
		 * scratch); an empty input (every tap in the padding) is left
		 * to the generic path */
		if (g->H > 0 && g->W > 0)
			g->path = CQ_DEPTHWISE;
		/* 3x3, stride 1 or 2 both ways, row dilation 1: a copy of the
		 * channel padded with ZX (SR rows of S Wp columns, Wp >= OW + 2 / S)
		 * where every output is interior and the rows run on as one */
		int S = g->SW;
		if (g->KH == 3 && g->KW == 3 && g->DH == 1 && g->DW == 1 && g->SH == S && (S == 1 || S == 2)) {
			size_t wq = (size_t)g->OW + (size_t)(3 - 1 + S - 1) / (size_t)S, hp = (size_t)S * (size_t)(g->OH - 1) + 4;
			size_t need = (hp * wq * (size_t)S + 15) & ~(size_t)15;
			if (need <= budget && wq < (1u << 20) && hp < (1u << 20))
				g->Wp = (int)wq, g->SR = (int)hp, g->scratch = need;
		}
		return;
	}
	/* the column tile: TP pixels' windows as int16 x - ZX (rows of Kp =
	 * 4 Kq, zero-filled past K, 8 bytes of slack after the last row for
	 * cq_gather3), the staged input rows (x - ZX, zero-padded) the tile
	 * reads (none for a direct 1x1, nor when the windows are gathered from
	 * x itself to save scratch), one int32 sum per pixel, CQ_NR rows of
	 * accumulators. The largest tile within CQ_TILE_BYTES and the budget. */
	g->direct = g->KH == 1 && g->KW == 1 && g->SH == 1 && g->SW == 1 && g->PT == 0 && g->PL == 0 &&
		    g->OW == g->W && g->OH <= g->H;
	int wp = g->PL + g->W, need = (g->OW - 1) * g->SW + (g->KW - 1) * g->DW + 1;
	g->Wp = wp > need ? wp : need;
	{
		/* cq_panel_conv: tiles of a multiple of CQ_DNP pixels, K
		 * whole, else (at CQ_DNP pixels) in chunks of KC down to 16 */
		int tp = CQ_TILE_BYTES / (2 * g->Kp);
		tp = tp < CQ_DNP ? CQ_DNP : tp - tp % CQ_DNP;
		for (int kc = g->Kp;; kc = ((kc + 1) / 2 + 3) & ~3) {
			for (;; tp = tp / 2 < CQ_DNP ? CQ_DNP : tp / 2 - tp / 2 % CQ_DNP) {
				g->TP = tp < g->P ? tp : g->P;
				g->KC = kc;
				size_t o1, o2, o3;
				g->scratch = cq_panel_fit(g, (g->TP + CQ_DNP - 1) / CQ_DNP * CQ_DNP, kc, &o1, &o2, &o3);
				if (g->scratch <= budget) {
					g->path = CQ_PANEL;
					return;
				}
				if (g->TP <= CQ_DNP)
					break;
			}
			if (kc <= 16)
				break;
		}
		g->KC = 0;
	}
	int tp0 = CQ_TILE_BYTES / (2 * g->Kp);
	tp0 = tp0 < CQ_MR ? CQ_MR : tp0 - tp0 % CQ_MR;
	for (int staged = !g->direct; staged >= 0; staged--)
		for (int tp = tp0;; tp = tp / 2 < CQ_MR ? CQ_MR : (tp / 2) - (tp / 2) % CQ_MR) {
			g->TP = tp < g->P ? tp : g->P;
			int orows = (g->OW - 1 + g->TP - 1) / g->OW + 1;	/* output rows a tile touches */
			g->SR = (orows - 1) * g->SH + (g->KH - 1) * g->DH + 1;
			g->stage = ((size_t)(g->TP + CQ_MR - 1) / CQ_MR * CQ_MR * (size_t)g->Kp * 2 + 8 + 15) & ~(size_t)15;
			g->staged = staged ? ((size_t)g->cg * g->SR * g->Wp * 2 + 15) & ~(size_t)15 : 0;
			g->gather = !staged && !g->direct;
			g->scratch = g->stage + g->staged + (1 + CQ_NR) * (((size_t)g->TP * 4 + 15) & ~(size_t)15);
			if (g->scratch <= budget) {
				g->path = CQ_IM2COL;
				return;
			}
			if (g->TP <= CQ_MR)
				break;
		}
	/* CQ_MR pixels' windows in chunks of KC k at a time, gathered from x
	 * (a column chunk and the pixels' sums: tiny) */
	size_t kc = budget > 40 ? ((budget - 40) / (2 * CQ_MR)) & ~(size_t)3 : 0;
	if (kc >= 4) {
		g->KC = kc < (size_t)g->Kp ? (int)kc : g->Kp;
		g->TP = CQ_MR;
		g->gather = 1;
		g->staged = 0;
		g->stage = ((size_t)CQ_MR * g->KC * 2 + 8 + 15) & ~(size_t)15;
		g->scratch = g->stage + 16;
		g->path = CQ_IM2COL;
		return;
	}
	g->scratch = 0;	/* the generic path */
}

/* @npu-end */

/* @npu-kernel CONV_Q CONV_T_Q CONV_NHWC_Q */
/* y = clamp(ZY + rshift_round(acc * mult, shift)) for one output */
static inline int32_t cq_out(int64_t acc, int32_t mult, int s, int32_t zy, int32_t lo, int32_t hi)
{
	return rt_clamp(zy + rt_mulshift(acc, mult, s), lo, hi);
}

/* @npu-end */

/* @npu-kernel CONV_Q */
/* where the packed weights hold w[oc][k] (npu_rt.h) */
static size_t cq_packed_at(const cq_geo *g, int oc, int k)
{
	int gr = oc / g->og, ol = oc % g->og, nb = (g->og + CQ_NR - 1) / CQ_NR;
	return (((size_t)gr * nb + (size_t)(ol / CQ_NR)) * (size_t)(g->Kp / 4) + (size_t)(k / 4)) * 4 * CQ_NR +
	       (size_t)(ol % CQ_NR) * 4 + (size_t)(k % 4);
}

static void cq_generic(const int32_t *p, const cq_geo *g, void *const *a)
{
	const void *x = a[0], *w = a[1], *bias = a[2];
	const int32_t *mult = a[3], *shift = a[4], *wzp = a[5];
	void *y = a[6];
	int32_t XT = p[NPU_CV_XT], WT = p[NPU_CV_WT], YT = p[NPU_CV_YT];
	int32_t ZX = p[NPU_CV_ZX], ZY = p[NPU_CV_ZY], LO = p[NPU_CV_LO], HI = p[NPU_CV_HI];
	size_t yi = 0;
	for (int n = 0; n < g->N; n++)
		for (int oc = 0; oc < g->OC; oc++) {
			int gr = oc / g->og;
			int32_t z = wzp ? wzp[oc] : 0;
			int s = rt_shift(shift[oc]);
			for (int oh = 0; oh < g->OH; oh++)
				for (int ow = 0; ow < g->OW; ow++) {
					int64_t acc = cq_bias(p, bias, oc);
					for (int ic = 0; ic < g->cg; ic++) {
						size_t xc = ((size_t)n * g->C + (size_t)gr * g->cg + ic) * g->H * g->W;
						size_t wc = ((size_t)oc * g->cg + ic) * g->KH * g->KW;
						for (int kh = 0; kh < g->KH; kh++) {
							int ih = oh * g->SH - g->PT + kh * g->DH;
							if (ih < 0 || ih >= g->H)
								continue;
							for (int kw = 0; kw < g->KW; kw++) {
								int iw = ow * g->SW - g->PL + kw * g->DW;
								if (iw < 0 || iw >= g->W)
									continue;
								int64_t xv = rt_ldi(x, XT, xc + (size_t)ih * g->W + iw) - (int64_t)ZX;
								size_t wi = wc + (size_t)kh * g->KW + kw;
								if (g->packed)
									wi = cq_packed_at(g, oc, (int)(wi - (size_t)oc * g->K));
								int64_t wv = rt_ldi(w, WT, wi) - (int64_t)z;
								acc += xv * wv;
							}
						}
					}
					rt_sti(y, YT, yi++, cq_out(acc, mult[oc], s, ZY, LO, HI));
				}
		}
}

/* first output index o >= 0 whose input index o * s + off lies in [0, n),
 * and one past the last (s >= 1) */
static void cq_range(int off, int s, int n, int no, int *lo, int *hi)
{
	int l = off >= 0 ? 0 : (-off + s - 1) / s;
	int h = n - 1 - off < 0 ? 0 : (n - 1 - off) / s + 1;
	*lo = l < no ? l : no;
	*hi = h < no ? h : no;
	if (*hi < *lo)
		*hi = *lo;
}

/* @npu-end */

/* @npu-kernel CONV_Q CONV_T_Q CONV_NHWC_Q */
/* cq_requant's unsigned path on whole vectors: y[at + i] for i below the
 * count returned (the scalar loop does the rest), lane by lane the same
 * arithmetic: a = acc - z cs + b (mod 2^32), the 32 x 32 -> 64-bit product
 * a m (pmuludq / umull on the even and odd lanes), + D, >> s (s >= 32, so
 * the result has 32 bits), the unsigned clamp to [lu, hu] and the rebase,
 * whose results lie in [LO, HI]: the saturating packs to int16 / int8 then
 * only narrow (the caller checks LO and HI fit the output type). */
#if !defined(NPU_NO_SIMD) && defined(__SSE2__) && !defined(__SSE4_1__)
static inline __m128i cq_clampu(__m128i v, __m128i lu, __m128i hu)
{
	/* unsigned max/min through signed compares of sign-flipped values */
	__m128i k = _mm_set1_epi32(INT32_MIN), vf = _mm_xor_si128(v, k);
	__m128i lt = _mm_cmpgt_epi32(_mm_xor_si128(lu, k), vf), gt = _mm_cmpgt_epi32(vf, _mm_xor_si128(hu, k));
	v = _mm_or_si128(_mm_and_si128(lt, lu), _mm_andnot_si128(lt, v));
	return _mm_or_si128(_mm_and_si128(gt, hu), _mm_andnot_si128(gt, v));
}
#endif
static int cq_uq_simd(void *y, int32_t YT, size_t at, const int32_t *restrict acc, const int32_t *restrict cs,
		      int32_t z, int n, uint32_t b, uint32_t m, uint64_t D, int s, uint32_t lu, uint32_t hu, int32_t base)
{
	int i = 0;
	uint32_t rb = (uint32_t)base - lu;	/* y = v + (base - lu), mod 2^32 */
#if defined(NPU_NO_SIMD)
	(void)y, (void)YT, (void)at, (void)acc, (void)cs, (void)z, (void)n, (void)b, (void)m, (void)D, (void)s;
	(void)lu, (void)hu, (void)rb;
#elif defined(__AVX512F__)
	/* 16 lanes, the rest under a mask (vpmovsdb / vpmovsdw store only the
	 * masked lanes, saturating as the packs do): every n on vectors */
	__m512i vb = _mm512_set1_epi32((int32_t)b), vm = _mm512_set1_epi32((int32_t)m), vz = _mm512_set1_epi32(z);
	__m512i vd = _mm512_set1_epi64((int64_t)D), vlu = _mm512_set1_epi32((int32_t)lu);
	__m512i vhu = _mm512_set1_epi32((int32_t)hu), vrb = _mm512_set1_epi32((int32_t)rb);
	__m128i sc = _mm_cvtsi32_si128(s);
	for (; i < n; i += 16) {
		__mmask16 k = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
		__m512i a = _mm512_maskz_loadu_epi32(k, acc + i);
		if (cs)
			a = _mm512_sub_epi32(a, _mm512_mullo_epi32(vz, _mm512_maskz_loadu_epi32(k, cs + i)));
		a = _mm512_add_epi32(a, vb);
		__m512i e = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(a, vm), vd), sc);
		__m512i o = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(a, 32), vm), vd), sc);
		__m512i v = _mm512_or_si512(e, _mm512_slli_epi64(o, 32));
		v = _mm512_add_epi32(_mm512_min_epu32(_mm512_max_epu32(v, vlu), vhu), vrb);
		if (YT == NPU_T_I8)
			_mm512_mask_cvtsepi32_storeu_epi8((int8_t *)y + at + i, k, v);
		else
			_mm512_mask_cvtsepi32_storeu_epi16((int16_t *)y + at + i, k, v);
	}
	if (i > n)
		i = n;
#elif defined(__AVX2__)
	__m256i vb = _mm256_set1_epi32((int32_t)b), vm = _mm256_set1_epi32((int32_t)m), vz = _mm256_set1_epi32(z);
	__m256i vd = _mm256_set1_epi64x((int64_t)D), vlu = _mm256_set1_epi32((int32_t)lu);
	__m256i vhu = _mm256_set1_epi32((int32_t)hu), vrb = _mm256_set1_epi32((int32_t)rb);
	__m128i sc = _mm_cvtsi32_si128(s);
	for (; i + 8 <= n; i += 8) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(acc + i));
		if (cs)
			a = _mm256_sub_epi32(a, _mm256_mullo_epi32(vz, _mm256_loadu_si256((const __m256i *)(const void *)(cs + i))));
		a = _mm256_add_epi32(a, vb);
		__m256i e = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, vm), vd), sc);
		__m256i o = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), vm), vd), sc);
		__m256i v = _mm256_or_si256(e, _mm256_slli_epi64(o, 32));
		v = _mm256_add_epi32(_mm256_min_epu32(_mm256_max_epu32(v, vlu), vhu), vrb);
		__m128i p = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
		if (YT == NPU_T_I8)
			_mm_storel_epi64((__m128i *)(void *)((int8_t *)y + at + i), _mm_packs_epi16(p, p));
		else
			_mm_storeu_si128((__m128i *)(void *)((int16_t *)y + at + i), p);
	}
#elif defined(__SSE2__)
#if !defined(__SSE4_1__)
	if (cs)
		return 0;	/* no pmulld */
	(void)z;
#endif
	__m128i vb = _mm_set1_epi32((int32_t)b), vm = _mm_set1_epi32((int32_t)m);
	__m128i vd = _mm_set1_epi64x((int64_t)D), vlu = _mm_set1_epi32((int32_t)lu);
	__m128i vhu = _mm_set1_epi32((int32_t)hu), vrb = _mm_set1_epi32((int32_t)rb), sc = _mm_cvtsi32_si128(s);
	for (; i + 4 <= n; i += 4) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(acc + i));
#if defined(__SSE4_1__)
		if (cs)
			a = _mm_sub_epi32(a, _mm_mullo_epi32(_mm_set1_epi32(z), _mm_loadu_si128((const __m128i *)(const void *)(cs + i))));
#endif
		a = _mm_add_epi32(a, vb);
		__m128i e = _mm_srl_epi64(_mm_add_epi64(_mm_mul_epu32(a, vm), vd), sc);
		__m128i o = _mm_srl_epi64(_mm_add_epi64(_mm_mul_epu32(_mm_srli_epi64(a, 32), vm), vd), sc);
		__m128i v = _mm_or_si128(e, _mm_slli_epi64(o, 32));
#if defined(__SSE4_1__)
		v = _mm_min_epu32(_mm_max_epu32(v, vlu), vhu);
#else
		v = cq_clampu(v, vlu, vhu);
#endif
		v = _mm_add_epi32(v, vrb);
		__m128i p = _mm_packs_epi32(v, v);
		if (YT == NPU_T_I8) {
			int32_t t = _mm_cvtsi128_si32(_mm_packs_epi16(p, p));
			memcpy((int8_t *)y + at + i, &t, 4);
		} else {
			_mm_storel_epi64((__m128i *)(void *)((int16_t *)y + at + i), p);
		}
	}
#elif defined(__ARM_NEON) && defined(__aarch64__)
	uint32x4_t vb = vdupq_n_u32(b), vlu = vdupq_n_u32(lu), vhu = vdupq_n_u32(hu), vrb = vdupq_n_u32(rb);
	uint32x2_t vm = vdup_n_u32(m);
	uint64x2_t vd = vdupq_n_u64(D);
	int64x2_t sc = vdupq_n_s64(-s);
	int32x4_t vz = vdupq_n_s32(z);
	for (; i + 8 <= n; i += 8) {
		int32x4_t r[2];
		for (int h = 0; h < 2; h++) {
			int32x4_t a0 = vld1q_s32(acc + i + 4 * h);
			if (cs)
				a0 = vmlsq_s32(a0, vz, vld1q_s32(cs + i + 4 * h));
			uint32x4_t a = vaddq_u32(vreinterpretq_u32_s32(a0), vb);
			uint64x2_t e = vshlq_u64(vmlal_u32(vd, vget_low_u32(a), vm), sc);
			uint64x2_t o = vshlq_u64(vmlal_u32(vd, vget_high_u32(a), vm), sc);
			uint32x4_t v = vcombine_u32(vmovn_u64(e), vmovn_u64(o));
			v = vaddq_u32(vminq_u32(vmaxq_u32(v, vlu), vhu), vrb);
			r[h] = vreinterpretq_s32_u32(v);
		}
		int16x8_t p = vcombine_s16(vqmovn_s32(r[0]), vqmovn_s32(r[1]));
		if (YT == NPU_T_I8)
			vst1_s8((int8_t *)y + at + i, vqmovn_s16(p));
		else
			vst1q_s16((int16_t *)y + at + i, p);
	}
#elif defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
	/* no 64-bit lanes: the product's halves (vmul, vmulh), + D with the
	 * carry of the low half ((lo & dl | (lo | dl) & ~(lo + dl)) >> 31, no
	 * predicate), and as s >= 32 the high half >> (s - 32) is the result;
	 * whole vectors, then the rest predicated (the narrowing stores write
	 * only n values) */
	uint32x4_t vdl = vdupq_n_u32((uint32_t)D), vm = vdupq_n_u32(m), vlu = vdupq_n_u32(lu), vhu = vdupq_n_u32(hu);
	uint32_t dh = (uint32_t)(D >> 32);
#define CQ_UQM(a0, v) \
	do { \
		uint32x4_t a_ = vaddq_n_u32(vreinterpretq_u32_s32(a0), b), lo_ = vmulq_u32(a_, vm); \
		uint32x4_t c_ = vorrq_u32(vandq_u32(lo_, vdl), vbicq_u32(vorrq_u32(lo_, vdl), vaddq_u32(lo_, vdl))); \
		uint32x4_t h_ = vaddq_u32(vaddq_n_u32(vmulhq_u32(a_, vm), dh), vshrq_n_u32(c_, 31)); \
		v = vaddq_n_u32(vminq_u32(vmaxq_u32(vshlq_r_u32(h_, 32 - s), vlu), vhu), rb); \
	} while (0)
	for (; i + 4 <= n; i += 4) {
		int32x4_t a0 = vldrwq_s32(acc + i);
		uint32x4_t v;
		if (cs)
			a0 = vsubq_s32(a0, vmulq_n_s32(vldrwq_s32(cs + i), z));
		CQ_UQM(a0, v);
		if (YT == NPU_T_I8)
			vstrbq_s32((int8_t *)y + at + i, vreinterpretq_s32_u32(v));
		else
			vstrhq_s32((int16_t *)y + at + i, vreinterpretq_s32_u32(v));
	}
	if (i < n) {
		mve_pred16_t pr = vctp32q((uint32_t)(n - i));
		int32x4_t a0 = vldrwq_z_s32(acc + i, pr);
		uint32x4_t v;
		if (cs)
			a0 = vsubq_s32(a0, vmulq_n_s32(vldrwq_z_s32(cs + i, pr), z));
		CQ_UQM(a0, v);
		if (YT == NPU_T_I8)
			vstrbq_p_s32((int8_t *)y + at + i, vreinterpretq_s32_u32(v), pr);
		else
			vstrhq_p_s32((int16_t *)y + at + i, vreinterpretq_s32_u32(v), pr);
		i = n;
	}
#undef CQ_UQM
#else
	(void)y, (void)YT, (void)at, (void)acc, (void)cs, (void)z, (void)n, (void)b, (void)m, (void)D, (void)s;
	(void)lu, (void)hu, (void)rb;
#endif
	return i;
}

/* cq_requant's unsigned path for one row: a = acc - z cs + b (b biased by
 * 2^31), y = base + clamp((a m + D) >> s, lu, hu) - lu (q); on vectors
 * when every result, within [base, base + hu - lu], fits the output type
 * (the saturating packs are then exact). */
static void cq_uq_row(void *y, int32_t YT, size_t at, const int32_t *restrict acc, const int32_t *restrict cs,
		      int32_t z, int n, uint32_t b, uint32_t m, const rt_uq *q, int s)
{
	uint64_t D = q->D;
	uint32_t lu = q->lu, hu = q->hu;
	int32_t base = q->base;
	int64_t top = (int64_t)base + (hu - lu);
	int vec = YT == NPU_T_I8 ? base >= -128 && top <= 127 : base >= -32768 && top <= 32767;
	int i0 = vec ? cq_uq_simd(y, YT, at, acc, cs, z, n, b, m, D, s, lu, hu, base) : 0;
	if (YT == NPU_T_I8) {
		int8_t *restrict yp = (int8_t *)y + at;
		for (int i = i0; i < n; i++) {
			uint32_t a = (uint32_t)(cs ? acc[i] - z * cs[i] : acc[i]) + b;
			uint32_t v = (uint32_t)(((uint64_t)a * m + D) >> s);
			v = v < lu ? lu : v > hu ? hu : v;
			yp[i] = (int8_t)(base + (int32_t)(v - lu));
		}
	} else {
		int16_t *restrict yp = (int16_t *)y + at;
		for (int i = i0; i < n; i++) {
			uint32_t a = (uint32_t)(cs ? acc[i] - z * cs[i] : acc[i]) + b;
			uint32_t v = (uint32_t)(((uint64_t)a * m + D) >> s);
			v = v < lu ? lu : v > hu ? hu : v;
			yp[i] = (int16_t)(base + (int32_t)(v - lu));
		}
	}
}

/* y[at + i] = clamp(ZY + rshift_round((acc[i] - z cs[i] + bias) mult, s))
 * for a row of int32 dot products acc (cs: their pixels' sums of x - ZX,
 * or NULL). a = acc[i] - z cs[i] is the exact sum of (x - ZX)(w - z),
 * below 2^30 in magnitude, so with |bias| < 2^30, a + bias fits an int32
 * and the usual case (s >= 32, mult >= 0) runs on unsigned products
 * (rt_uq). Channel-last headers call it under CN_GEN only. */
#if defined(__GNUC__)
__attribute__((unused))
#endif
static void cq_requant(void *y, int32_t YT, size_t at, const int32_t *restrict acc, const int32_t *restrict cs,
		       int32_t z, int n, int rows, size_t astride, int32_t bias, int32_t mult, int32_t shift, int32_t zy,
		       int32_t lo, int32_t hi)
{
	int s = rt_shift(shift);
	int fits = (YT == NPU_T_I8 || YT == NPU_T_I16) && bias > -(1 << 30) && bias < (1 << 30);
	rt_uq q;
	/* (a + bias + 2^31) mult = v + 2^31 mult, |v| < 2^62 */
	if (fits && mult >= 0 && rt_uq_init(&q, s, 62, (uint64_t)mult << 31, zy, lo, hi) == 0) {
		for (int r = 0; r < rows; r++, acc += astride, at += (size_t)n)
			cq_uq_row(y, YT, at, acc, cs, z, n, (uint32_t)bias + 0x80000000u, (uint32_t)mult, &q, s);
		return;
	}
	for (int r = 0; r < rows; r++, acc += astride, at += (size_t)n) {
		if (fits && YT == NPU_T_I8 && s >= 1) {
			int8_t *restrict yp = (int8_t *)y + at;
			uint64_t off = ((uint64_t)1 << (s - 1)) + ((uint64_t)1 << 63);
			int64_t sub = ((int64_t)1 << (63 - s)) - zy;
			for (int i = 0; i < n; i++) {
				int64_t v = ((int64_t)(cs ? acc[i] - z * cs[i] : acc[i]) + bias) * mult;
				int64_t t = (int64_t)(((uint64_t)v + off) >> s) - sub;
				yp[i] = (int8_t)(t < lo ? lo : t > hi ? hi : t);
			}
			continue;
		}
		for (int i = 0; i < n; i++) {
			int64_t a = (int64_t)acc[i] - (cs ? (int64_t)z * cs[i] : 0) + bias;
			rt_sti(y, YT, at + (size_t)i, cq_out(a, mult, s, zy, lo, hi));
		}
	}
}

/* @npu-end */

/* @npu-kernel CONV_Q CONV_NHWC_Q */
/* AMX-INT8's tile data state, for CONV_Q's panel path (CQ_AMX) and
 * CONV_NHWC_Q's cn_amx: RT_AMX when the compiler targets AMX-INT8 with
 * AVX-512 (F, BW, VL) and VNNI on x86-64 Linux (CQ_AMX's conditions; -DNPU_NO_AMX:
 * never). Asked of Linux once per process (arch_prctl ARCH_REQ_XCOMP_PERM
 * for XFEATURE_XTILEDATA); refused (an older kernel, no AMX): each
 * caller's other path. */
#if !defined(NPU_NO_SIMD) && !defined(NPU_NO_AMX) && defined(__AVX2__) && \
	(defined(__AVXVNNI__) || (defined(__AVX512VNNI__) && defined(__AVX512VL__))) && \
	(defined(__AMX_TILE__) || defined(__AMXTILE__)) && (defined(__AMX_INT8__) || defined(__AMXINT8__)) && \
	defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__linux__) && \
	defined(__x86_64__)	/* gcc's macros, clang's */
#define RT_AMX 1
extern long syscall(long, ...);

static int cq_amx_state;	/* 0: not asked yet, 1: granted, -1: refused */

static int cq_amx_ready(void)
{
	int s = __atomic_load_n(&cq_amx_state, __ATOMIC_RELAXED);
	if (s == 0) {
		s = syscall(158 /* SYS_arch_prctl */, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XFEATURE_XTILEDATA */) == 0
			    ? 1
			    : -1;
		__atomic_store_n(&cq_amx_state, s, __ATOMIC_RELAXED);
	}
	return s > 0;
}
#endif
/* @npu-end */

/* @npu-kernel CONV_Q */
/* Depthwise int8 (C == OC == G): per channel and output row, the
 * accumulators of CQ_DW_CHUNK outputs at a time stay in registers over
 * all taps and are requantized from a small stack row (3x3 stride 1/2:
 * on a padded copy of the channel, cq_dw_flat; on AVX-512 VNNI + VBMI
 * with int8 output, cq_dw512: no copy, requantized in registers). The
 * rows of the kernel window that fall into the padding keep a valid row
 * pointer with weight 0, so the interior kernels always see KH rows; the
 * interior columns (every tap inside the row) need no bounds checks and
 * sum x (w - z) with the zero point's share ZX sum (w - z) taken off once
 * per row: |x| <= 128, |w - z| <= 255 and at most CQ_DW_TAPS taps keep
 * every partial sum well inside int32, so any order of summation gives
 * the same sums (the portable loop is the reference of the SIMD paths).
 * Border columns sum (x - ZX)(w - z) over their taps inside the row. */
#define CQ_DW_CHUNK 64

#if !defined(NPU_NO_SIMD) && !defined(__SSE2__) && !(defined(__ARM_NEON) && defined(__aarch64__)) && \
	defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
/* Helium, any window: 8 outputs from row offset j in two int32 vectors
 * over all taps, each a widening load (SW > 1: a gather of every SW-th
 * byte, only the taps' bytes) and vmla by the weight */
static void cq_dwm8(const int8_t *const *rows, const int16_t *w, int KH, int KW, int DW, int SW, ptrdiff_t j,
		    int32_t corr, int32_t *acc)
{
	int32x4_t lo = vdupq_n_s32(-corr), hi = lo;
	uint32x4_t os = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)SW);
	for (int kh = 0; kh < KH; kh++, w += KW) {
		const int8_t *r = rows[kh] + j;
		if (SW == 1)
			for (int kw = 0; kw < KW; kw++, r += DW) {
				lo = vmlaq_n_s32(lo, vldrbq_s32(r), w[kw]);
				hi = vmlaq_n_s32(hi, vldrbq_s32(r + 4), w[kw]);
			}
		else
			for (int kw = 0; kw < KW; kw++, r += DW) {
				lo = vmlaq_n_s32(lo, vldrbq_gather_offset_s32(r, os), w[kw]);
				hi = vmlaq_n_s32(hi, vldrbq_gather_offset_s32(r + 4 * SW, os), w[kw]);
			}
	}
	vstrwq_s32(acc, lo);
	vstrwq_s32(acc + 4, hi);
}
#define CQ_DWM 1
#endif

/* acc[i] = sum_t rows[kh][(o0 + i) SW + off + kw DW] w[t] - corr for the
 * interior outputs o0 .. o0 + n - 1 (t = kh KW + kw): the reference (on
 * Helium, blocks of 8 outputs first, the last one overlapping) */
static void cq_dw_rows(const int8_t *const *rows, const int16_t *w, int KH, int KW, int DW, int SW, int off, int o0,
		       int n, int32_t corr, int32_t *acc)
{
#if defined(CQ_DWM)
	if (n >= 8) {
		for (int i = 0;; i += 8) {
			int at = i + 8 <= n ? i : n - 8;
			cq_dwm8(rows, w, KH, KW, DW, SW, ((ptrdiff_t)o0 + at) * SW + off, corr, acc + at);
			if (at + 8 >= n)
				return;
		}
	}
#endif
	for (int i = 0; i < n; i++)
		acc[i] = -corr;
	for (int kh = 0; kh < KH; kh++)
		for (int kw = 0; kw < KW; kw++) {
			int32_t wk = w[kh * KW + kw];
			const int8_t *r = rows[kh] + (ptrdiff_t)o0 * SW + off + kw * DW;
			if (wk == 0)
				continue;
			if (SW == 1)
				for (int i = 0; i < n; i++)
					acc[i] += r[i] * wk;
			else
				for (int i = 0; i < n; i++)
					acc[i] += r[(ptrdiff_t)i * SW] * wk;
		}
}

/* 3x3 with column dilation 1 and stride SW (1 or 2): the SIMD part of the
 * interior outputs o0 .. o0 + n - 1 in blocks (every load reads only
 * bytes that are taps of the block's outputs; a last partial block is
 * recomputed overlapping the one before, same sums); returns how many it
 * did (the rest: cq_dw_rows). */
#if !defined(NPU_NO_SIMD) && defined(__SSE2__)
static inline int32_t cq_pair(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)(uint16_t)a | (uint32_t)(uint16_t)b << 16);
}

/* 8 int8 at p as int16 */
static inline __m128i cq_ld8(const int8_t *p)
{
	__m128i v = _mm_loadl_epi64((const __m128i *)(const void *)p);
#if defined(__SSE4_1__)
	return _mm_cvtepi8_epi16(v);
#else
	return _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8);
#endif
}

/* stride 1, outputs i .. i + 7: taps paired by interleaving two int16
 * vectors for pmaddwd, (0,1) (2,3) (4,5) (6,7) (8,none); wp: the pairs */
static inline void cq_dw3s1x8(const int8_t *const *rows, ptrdiff_t j, const __m128i *wp, __m128i c, int32_t *acc)
{
	const int8_t *r0 = rows[0] + j, *r1 = rows[1] + j, *r2 = rows[2] + j;
	__m128i a, b, lo, hi, z = _mm_setzero_si128();
	a = cq_ld8(r0), b = cq_ld8(r0 + 1);
	lo = _mm_madd_epi16(_mm_unpacklo_epi16(a, b), wp[0]);
	hi = _mm_madd_epi16(_mm_unpackhi_epi16(a, b), wp[0]);
	a = cq_ld8(r0 + 2), b = cq_ld8(r1);
	lo = _mm_add_epi32(lo, _mm_madd_epi16(_mm_unpacklo_epi16(a, b), wp[1]));
	hi = _mm_add_epi32(hi, _mm_madd_epi16(_mm_unpackhi_epi16(a, b), wp[1]));
	a = cq_ld8(r1 + 1), b = cq_ld8(r1 + 2);
	lo = _mm_add_epi32(lo, _mm_madd_epi16(_mm_unpacklo_epi16(a, b), wp[2]));
	hi = _mm_add_epi32(hi, _mm_madd_epi16(_mm_unpackhi_epi16(a, b), wp[2]));
	a = cq_ld8(r2), b = cq_ld8(r2 + 1);
	lo = _mm_add_epi32(lo, _mm_madd_epi16(_mm_unpacklo_epi16(a, b), wp[3]));
	hi = _mm_add_epi32(hi, _mm_madd_epi16(_mm_unpackhi_epi16(a, b), wp[3]));
	a = cq_ld8(r2 + 2);
	lo = _mm_add_epi32(lo, _mm_madd_epi16(_mm_unpacklo_epi16(a, z), wp[4]));
	hi = _mm_add_epi32(hi, _mm_madd_epi16(_mm_unpackhi_epi16(a, z), wp[4]));
	_mm_storeu_si128((__m128i *)(void *)acc, _mm_sub_epi32(lo, c));
	_mm_storeu_si128((__m128i *)(void *)(acc + 4), _mm_sub_epi32(hi, c));
}

/* stride 2, outputs i .. i + 3: adjacent int16 lanes are taps 0 and 1 of
 * one output; the load one byte on pairs tap 2 with weight 0; wp: per
 * row the pairs (w0, w1), (0, w2) */
static inline void cq_dw3s2x4(const int8_t *const *rows, ptrdiff_t j, const __m128i *wp, __m128i c, int32_t *acc)
{
	const int8_t *r0 = rows[0] + j, *r1 = rows[1] + j, *r2 = rows[2] + j;
	__m128i s = _mm_madd_epi16(cq_ld8(r0), wp[0]);
	__m128i t = _mm_madd_epi16(cq_ld8(r0 + 1), wp[1]);
	s = _mm_add_epi32(s, _mm_madd_epi16(cq_ld8(r1), wp[2]));
	t = _mm_add_epi32(t, _mm_madd_epi16(cq_ld8(r1 + 1), wp[3]));
	s = _mm_add_epi32(s, _mm_madd_epi16(cq_ld8(r2), wp[4]));
	t = _mm_add_epi32(t, _mm_madd_epi16(cq_ld8(r2 + 1), wp[5]));
	_mm_storeu_si128((__m128i *)(void *)acc, _mm_sub_epi32(_mm_add_epi32(s, t), c));
}
#endif
#if !defined(NPU_NO_SIMD) && defined(__AVX2__)
#define CQ_LD16(p) _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(p)))
/* cq_dw3s1x8 for 16 outputs (unpack works per 128-bit half: lo holds
 * outputs 0-3 and 8-11, hi 4-7 and 12-15) */
static inline void cq_dw3s1x16(const int8_t *const *rows, ptrdiff_t j, const __m256i *wp, __m256i c, int32_t *acc)
{
	const int8_t *r0 = rows[0] + j, *r1 = rows[1] + j, *r2 = rows[2] + j;
	__m256i a, b, lo, hi, z = _mm256_setzero_si256();
	a = CQ_LD16(r0), b = CQ_LD16(r0 + 1);
	lo = _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), wp[0]);
	hi = _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), wp[0]);
	a = CQ_LD16(r0 + 2), b = CQ_LD16(r1);
	lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), wp[1]));
	hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), wp[1]));
	a = CQ_LD16(r1 + 1), b = CQ_LD16(r1 + 2);
	lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), wp[2]));
	hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), wp[2]));
	a = CQ_LD16(r2), b = CQ_LD16(r2 + 1);
	lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), wp[3]));
	hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), wp[3]));
	a = CQ_LD16(r2 + 2);
	lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, z), wp[4]));
	hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, z), wp[4]));
	_mm256_storeu_si256((__m256i *)(void *)acc, _mm256_sub_epi32(_mm256_permute2x128_si256(lo, hi, 0x20), c));
	_mm256_storeu_si256((__m256i *)(void *)(acc + 8), _mm256_sub_epi32(_mm256_permute2x128_si256(lo, hi, 0x31), c));
}

/* cq_dw3s2x4 for 8 outputs */
static inline void cq_dw3s2x8(const int8_t *const *rows, ptrdiff_t j, const __m256i *wp, __m256i c, int32_t *acc)
{
	const int8_t *r0 = rows[0] + j, *r1 = rows[1] + j, *r2 = rows[2] + j;
	__m256i s = _mm256_madd_epi16(CQ_LD16(r0), wp[0]);
	__m256i t = _mm256_madd_epi16(CQ_LD16(r0 + 1), wp[1]);
	s = _mm256_add_epi32(s, _mm256_madd_epi16(CQ_LD16(r1), wp[2]));
	t = _mm256_add_epi32(t, _mm256_madd_epi16(CQ_LD16(r1 + 1), wp[3]));
	s = _mm256_add_epi32(s, _mm256_madd_epi16(CQ_LD16(r2), wp[4]));
	t = _mm256_add_epi32(t, _mm256_madd_epi16(CQ_LD16(r2 + 1), wp[5]));
	_mm256_storeu_si256((__m256i *)(void *)acc, _mm256_sub_epi32(_mm256_add_epi32(s, t), c));
}
#undef CQ_LD16
#endif
/* aarch64 with the dot-product extension (sdot: int8 x int8 summed by 4
 * into int32; -march=armv8.2-a+dotprod and later): the panel path
 * (cq_dmicro) and the depthwise 3x3 (cq_dw3s1x16, cq_dw3s2x8) */
#if !defined(NPU_NO_SIMD) && defined(__ARM_NEON) && defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)
#define CQ_NDOT 1
#endif
#if defined(CQ_NDOT)
/* a depthwise 3x3 row as sdot: per output a quad (x_o, x_o+1, x_o+2, 0) of
 * each window row, gathered by tbl from the row's bytes (index 0xff: 0),
 * against that row's weight quad (w0, w1, w2, 0) in lane kh of wq; the
 * loads never reach past the last byte the outputs read */
static const uint8_t cq_dwidx[6][16] = {
	{0, 1, 2, 255, 1, 2, 3, 255, 2, 3, 4, 255, 3, 4, 5, 255},	/* stride 1: outputs 0-3 of r */
	{4, 5, 6, 255, 5, 6, 7, 255, 6, 7, 8, 255, 7, 8, 9, 255},	/* 4-7 of r */
	{8, 9, 10, 255, 9, 10, 11, 255, 10, 11, 12, 255, 11, 12, 13, 255},	/* 8-11 of r */
	{10, 11, 12, 255, 11, 12, 13, 255, 12, 13, 14, 255, 13, 14, 15, 255},	/* 12-15 of r + 2 */
	{0, 1, 2, 255, 2, 3, 4, 255, 4, 5, 6, 255, 6, 7, 8, 255},	/* stride 2: outputs 0-3 of r */
	{7, 8, 9, 255, 9, 10, 11, 255, 11, 12, 13, 255, 13, 14, 15, 255},	/* 4-7 of r + 1 */
};

/* stride 1, 16 outputs: x[j .. j + 17] of each row (window row kh: lane
 * kh of wq; written out, as lanes are constants) */
#define CQ_DWS1(kh) \
	do { \
		const int8_t *r = rows[kh] + j; \
		int8x16_t v = vld1q_s8(r), u = vld1q_s8(r + 2); \
		a0 = vdotq_laneq_s32(a0, vqtbl1q_s8(v, ix[0]), wq, kh); \
		a1 = vdotq_laneq_s32(a1, vqtbl1q_s8(v, ix[1]), wq, kh); \
		a2 = vdotq_laneq_s32(a2, vqtbl1q_s8(v, ix[2]), wq, kh); \
		a3 = vdotq_laneq_s32(a3, vqtbl1q_s8(u, ix[3]), wq, kh); \
	} while (0)
static inline void cq_dw3s1x16(const int8_t *const *rows, ptrdiff_t j, int8x16_t wq, const uint8x16_t *ix,
			       int32x4_t c, int32_t *acc)
{
	int32x4_t a0 = c, a1 = c, a2 = c, a3 = c;
	CQ_DWS1(0);
	CQ_DWS1(1);
	CQ_DWS1(2);
	vst1q_s32(acc, a0), vst1q_s32(acc + 4, a1), vst1q_s32(acc + 8, a2), vst1q_s32(acc + 12, a3);
}
#undef CQ_DWS1

/* stride 2, 8 outputs: x[j .. j + 16] of each row */
#define CQ_DWS2(kh) \
	do { \
		const int8_t *r = rows[kh] + j; \
		a0 = vdotq_laneq_s32(a0, vqtbl1q_s8(vld1q_s8(r), ix[4]), wq, kh); \
		a1 = vdotq_laneq_s32(a1, vqtbl1q_s8(vld1q_s8(r + 1), ix[5]), wq, kh); \
	} while (0)
static inline void cq_dw3s2x8(const int8_t *const *rows, ptrdiff_t j, int8x16_t wq, const uint8x16_t *ix,
			      int32x4_t c, int32_t *acc)
{
	int32x4_t a0 = c, a1 = c;
	CQ_DWS2(0);
	CQ_DWS2(1);
	CQ_DWS2(2);
	vst1q_s32(acc, a0), vst1q_s32(acc + 4, a1);
}
#undef CQ_DWS2
#endif
#if !defined(NPU_NO_SIMD) && !defined(__SSE2__) && defined(__ARM_NEON) && defined(__aarch64__)
/* widening multiply-accumulate by a weight lane (smlal), 8 outputs i ..
 * i + 7; stride 2 splits even and odd bytes (ld2); the weights w0-w7 in
 * w07, w8 in lane 0 of w8, the rows written out (lanes are constants) */
#define CQ_DWROW(kh, WA, LA, WB, LB, WC, LC) \
	do { \
		const int8_t *r = rows[kh] + j; \
		int16x8_t v0, v1, v2; \
		if (SW == 1) { \
			v0 = vmovl_s8(vld1_s8(r)), v1 = vmovl_s8(vld1_s8(r + 1)), v2 = vmovl_s8(vld1_s8(r + 2)); \
		} else { \
			int8x8x2_t e = vld2_s8(r), f = vld2_s8(r + 1);	/* r[2i], r[2i+1]; r[2i+2] */ \
			v0 = vmovl_s8(e.val[0]), v1 = vmovl_s8(e.val[1]), v2 = vmovl_s8(f.val[1]); \
		} \
		lo = vmlal_laneq_s16(lo, vget_low_s16(v0), WA, LA), hi = vmlal_high_laneq_s16(hi, v0, WA, LA); \
		lo = vmlal_laneq_s16(lo, vget_low_s16(v1), WB, LB), hi = vmlal_high_laneq_s16(hi, v1, WB, LB); \
		lo = vmlal_laneq_s16(lo, vget_low_s16(v2), WC, LC), hi = vmlal_high_laneq_s16(hi, v2, WC, LC); \
	} while (0)
static inline void cq_dw3x8(const int8_t *const *rows, ptrdiff_t j, int SW, int16x8_t w07, int16x8_t w8, int32x4_t c,
			    int32_t *acc)
{
	int32x4_t lo = c, hi = c;
	CQ_DWROW(0, w07, 0, w07, 1, w07, 2);
	CQ_DWROW(1, w07, 3, w07, 4, w07, 5);
	CQ_DWROW(2, w07, 6, w07, 7, w8, 0);
	vst1q_s32(acc, lo);
	vst1q_s32(acc + 4, hi);
}
#undef CQ_DWROW
#endif
#if !defined(NPU_NO_SIMD) && !defined(__SSE2__) && !(defined(__ARM_NEON) && defined(__aarch64__)) && \
	defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
/* Helium: 8 outputs i .. i + 7 as two int32 vectors, each tap a widening
 * load (stride 2: a gather of every other byte) and vmla by the scalar
 * weight, the 9 taps written out (a loop over them keeps the stride test
 * and the counter inside) */
#define CQ_MT(k, ld) \
	do { \
		const int8_t *r_ = rows[(k) / 3] + j + (k) % 3; \
		int32_t w_ = w[k]; \
		lo = vmlaq_n_s32(lo, ld(r_, 0), w_); \
		hi = vmlaq_n_s32(hi, ld(r_, 1), w_); \
	} while (0)
#define CQ_MT9(ld) \
	do { \
		CQ_MT(0, ld); CQ_MT(1, ld); CQ_MT(2, ld); CQ_MT(3, ld); CQ_MT(4, ld); \
		CQ_MT(5, ld); CQ_MT(6, ld); CQ_MT(7, ld); CQ_MT(8, ld); \
	} while (0)
#define CQ_LD1(p, h) vldrbq_s32((p) + 4 * (h))
#define CQ_LD2(p, h) vldrbq_gather_offset_s32((p) + 8 * (h), o2)
static inline void cq_dw3m8(const int8_t *const *rows, ptrdiff_t j, int SW, const int16_t *w, int32_t corr,
			    int32_t *acc)
{
	int32x4_t lo = vdupq_n_s32(-corr), hi = lo;
	if (SW == 1) {
		CQ_MT9(CQ_LD1);
	} else {
		const uint32x4_t o2 = vidupq_n_u32(0, 2);
		CQ_MT9(CQ_LD2);
	}
	vstrwq_s32(acc, lo);
	vstrwq_s32(acc + 4, hi);
}
#undef CQ_LD2
#undef CQ_LD1
#undef CQ_MT9
#undef CQ_MT
#endif

/* blocks of B outputs by BLOCK(i), then one overlapping the end */
#define CQ_DW_BLOCKS(B, BLOCK) \
	do { \
		for (; i + (B) <= n; i += (B)) \
			BLOCK(i); \
		if (i < n && n >= (B)) { \
			BLOCK(n - (B)); \
			i = n; \
		} \
	} while (0)

static int cq_dw3(const int8_t *const *rows, const int16_t *w, int SW, int off, int o0, int n, int32_t corr,
		  int32_t *acc)
{
	int i = 0;
#if !defined(NPU_NO_SIMD) && defined(__SSE2__)
	__m128i wp[6], c = _mm_set1_epi32(corr);
#if defined(__AVX2__)
	__m256i wq[6], c8 = _mm256_set1_epi32(corr);
#endif
	if (SW == 1) {
		wp[0] = _mm_set1_epi32(cq_pair(w[0], w[1])), wp[1] = _mm_set1_epi32(cq_pair(w[2], w[3]));
		wp[2] = _mm_set1_epi32(cq_pair(w[4], w[5])), wp[3] = _mm_set1_epi32(cq_pair(w[6], w[7]));
		wp[4] = _mm_set1_epi32(cq_pair(w[8], 0));
#if defined(__AVX2__)
		for (int k = 0; k < 5; k++)
			wq[k] = _mm256_broadcastsi128_si256(wp[k]);
#define CQ_B(at) cq_dw3s1x16(rows, (ptrdiff_t)o0 + (at) + off, wq, c8, acc + (at))
		CQ_DW_BLOCKS(16, CQ_B);
#undef CQ_B
#endif
#define CQ_B(at) cq_dw3s1x8(rows, (ptrdiff_t)o0 + (at) + off, wp, c, acc + (at))
		CQ_DW_BLOCKS(8, CQ_B);
#undef CQ_B
	} else if (SW == 2) {
		for (int k = 0; k < 3; k++)
			wp[2 * k] = _mm_set1_epi32(cq_pair(w[3 * k], w[3 * k + 1])),
			wp[2 * k + 1] = _mm_set1_epi32(cq_pair(0, w[3 * k + 2]));
#if defined(__AVX2__)
		for (int k = 0; k < 6; k++)
			wq[k] = _mm256_broadcastsi128_si256(wp[k]);
#define CQ_B(at) cq_dw3s2x8(rows, 2 * ((ptrdiff_t)o0 + (at)) + off, wq, c8, acc + (at))
		CQ_DW_BLOCKS(8, CQ_B);
#undef CQ_B
#endif
#define CQ_B(at) cq_dw3s2x4(rows, 2 * ((ptrdiff_t)o0 + (at)) + off, wp, c, acc + (at))
		CQ_DW_BLOCKS(4, CQ_B);
#undef CQ_B
	}
#elif !defined(NPU_NO_SIMD) && defined(__ARM_NEON) && defined(__aarch64__)
#if defined(CQ_NDOT)
	int8_t w8[16] = {0};
	int fit = 1;
	for (int k = 0; k < 9; k++) {
		fit &= w[k] >= -128 && w[k] <= 127;	/* w - wzp may not fit int8 */
		w8[k / 3 * 4 + k % 3] = (int8_t)w[k];
	}
	if (fit) {
		const int8x16_t wq = vld1q_s8(w8);
		const int32x4_t c = vdupq_n_s32(-corr);
		uint8x16_t ix[6];
		for (int k = 0; k < 6; k++)
			ix[k] = vld1q_u8(cq_dwidx[k]);
		if (SW == 1) {
#define CQ_B(at) cq_dw3s1x16(rows, (ptrdiff_t)o0 + (at) + off, wq, ix, c, acc + (at))
			CQ_DW_BLOCKS(16, CQ_B);
#undef CQ_B
		} else {
#define CQ_B(at) cq_dw3s2x8(rows, 2 * ((ptrdiff_t)o0 + (at)) + off, wq, ix, c, acc + (at))
			CQ_DW_BLOCKS(8, CQ_B);
#undef CQ_B
		}
	}
#endif
	const int16x8_t w07 = vld1q_s16(w), w88 = vdupq_n_s16(w[8]);
	const int32x4_t cn = vdupq_n_s32(-corr);
#define CQ_B(at) cq_dw3x8(rows, ((ptrdiff_t)o0 + (at)) * SW + off, SW, w07, w88, cn, acc + (at))
	CQ_DW_BLOCKS(8, CQ_B);
#undef CQ_B
#elif !defined(NPU_NO_SIMD) && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define CQ_B(at) cq_dw3m8(rows, ((ptrdiff_t)o0 + (at)) * SW + off, SW, w, corr, acc + (at))
	CQ_DW_BLOCKS(8, CQ_B);
#undef CQ_B
#else
	(void)rows, (void)w, (void)SW, (void)off, (void)o0, (void)n, (void)corr, (void)acc;
#endif
	return i;
}

/* AVX-512: cq_uq_simd's arithmetic on one vector of 16 sums a + b (the
 * caller adds b; m, s and q as cq_uq_row takes them), giving int32 results
 * in [base, base + hu - lu], in fewer operations: the odd lanes' products
 * shifted by s - 32 hold their results in the high halves (one blend, no
 * shift back), and with base = -128 and base + hu - lu = 127 the clamp is
 * left to the saturating narrowing: as 0 <= v <= 2^(63-s) <= 2^31 and lu
 * <= hi + 2^(62-s) - zy <= 2^30 + 255, v + rb = v - lu + base is inside
 * int32, so clamping it to [-128, 127] is clamping v to [lu, hu] and
 * rebasing it. The constants: once per channel (cq_rq512_set). */
#if !defined(NPU_NO_SIMD) && defined(__AVX512F__)
#define CQ_RQ512 1
typedef struct {
	__m512i m, d, lu, hu, rb;
	__m128i sc, sc32;
	int clamp;
} cq_rq512;

static inline void cq_rq512_set(cq_rq512 *r, const rt_uq *q, uint32_t m, int s)
{
	r->m = _mm512_set1_epi32((int32_t)m), r->d = _mm512_set1_epi64((int64_t)q->D);
	r->lu = _mm512_set1_epi32((int32_t)q->lu), r->hu = _mm512_set1_epi32((int32_t)q->hu);
	r->rb = _mm512_set1_epi32((int32_t)((uint32_t)q->base - q->lu));
	r->sc = _mm_cvtsi32_si128(s), r->sc32 = _mm_cvtsi32_si128(s - 32);
	r->clamp = !(q->base == -128 && (int64_t)q->base + (q->hu - q->lu) == 127);
}

static inline __m512i cq_rq512_do(const cq_rq512 *r, __m512i a)
{
	__m512i e = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(a, r->m), r->d), r->sc);
	__m512i o = _mm512_mul_epu32(_mm512_shuffle_epi32(a, _MM_PERM_DDBB), r->m);
	__m512i v = _mm512_mask_mov_epi32(e, (__mmask16)0xaaaa, _mm512_srl_epi64(_mm512_add_epi64(o, r->d), r->sc32));
	if (r->clamp)
		v = _mm512_min_epu32(_mm512_max_epu32(v, r->lu), r->hu);
	return _mm512_add_epi32(v, r->rb);
}

/* 16 results narrowed with saturation, those under k stored (the
 * narrowing store vpmovsdb m128{k} costs more than narrowing in a
 * register and a masked store, which needs AVX-512 BW and VL) */
static inline void cq_rq512_st(int8_t *y, __mmask16 k, __m512i v)
{
#if defined(__AVX512BW__) && defined(__AVX512VL__)
	_mm_mask_storeu_epi8(y, k, _mm512_cvtsepi32_epi8(v));
#else
	_mm512_mask_cvtsepi32_storeu_epi8(y, k, v);
#endif
}

/* cq_uq_row's results fit int8, so the saturating narrowing is exact */
static inline int cq_rq512_i8(const rt_uq *q)
{
	return q->base >= -128 && (int64_t)q->base + (q->hu - q->lu) <= 127;
}
#endif

/* AVX-512 with VNNI and VBMI (-march=native on Sapphire Rapids): one
 * channel of a 3x3 depthwise (column dilation 1, column stride 1 or 2,
 * weights w - z within int8, int8 output) whole, 16 outputs of a row per
 * vector, requantized in registers and stored under the row's mask: no
 * padded copy, no accumulator row. Per input row and block one masked
 * load of the bytes the 16 outputs read (those outside the row: ZX), u =
 * x ^ 0x80 = x + 128 as uint8, vpermb gathers each output's (u0, u1, u2,
 * u2) and vpdpbusd sums them against a window row's (w0, w1, w2, 0); a
 * window row in the padding is ZX throughout. So sum u w = sum (x - ZX) w
 * + (ZX + 128) sum w: the portable sums exactly (|sum| < 2^20), less a
 * constant. */
#if defined(CQ_RQ512) && defined(__AVX512BW__) && defined(__AVX512VNNI__) && defined(__AVX512VBMI__)
#define CQ_DW512 1
static const uint8_t cq_dw512_ix[2][64] = {
#define CQ_Q1(i) (i), (i) + 1, (i) + 2, (i) + 2
#define CQ_Q2(i) 2 * (i), 2 * (i) + 1, 2 * (i) + 2, 2 * (i) + 2
	{CQ_Q1(0), CQ_Q1(1), CQ_Q1(2), CQ_Q1(3), CQ_Q1(4), CQ_Q1(5), CQ_Q1(6), CQ_Q1(7),
	 CQ_Q1(8), CQ_Q1(9), CQ_Q1(10), CQ_Q1(11), CQ_Q1(12), CQ_Q1(13), CQ_Q1(14), CQ_Q1(15)},
	{CQ_Q2(0), CQ_Q2(1), CQ_Q2(2), CQ_Q2(3), CQ_Q2(4), CQ_Q2(5), CQ_Q2(6), CQ_Q2(7),
	 CQ_Q2(8), CQ_Q2(9), CQ_Q2(10), CQ_Q2(11), CQ_Q2(12), CQ_Q2(13), CQ_Q2(14), CQ_Q2(15)},
#undef CQ_Q2
#undef CQ_Q1
};

/* the layers it takes (per channel also: cq_uq_row's unsigned path with
 * int8 results, cq_rq512_i8, and the weights w - z within int8) */
static int cq_dw512_geo(const cq_geo *g, int32_t YT)
{
	return g->KH == 3 && g->KW == 3 && g->DW == 1 && (g->SW == 1 || g->SW == 2) && YT == NPU_T_I8;
}

/* the weights w - z as int8 (else the caller's paths run) */
static int cq_dw512_fits(const int16_t *wv)
{
	for (int t = 0; t < 9; t++)
		if (wv[t] < -128 || wv[t] > 127)
			return 0;
	return 1;
}

static void cq_dw512(const int8_t *xc, const cq_geo *g, int32_t ZX, const int16_t *wv, uint32_t b, int8_t *y,
		     const cq_rq512 *r)
{
	int SW = g->SW, SH = g->SH, DH = g->DH, OW = g->OW, OH = g->OH, W = g->W, H = g->H, span = 15 * SW + 3;
	if (OH <= 0)
		return;
	const __m512i ix = _mm512_loadu_si512(cq_dw512_ix[SW - 1]);
	const __m512i zx = _mm512_set1_epi8((char)ZX), f = _mm512_set1_epi8((char)0x80), zu = _mm512_xor_si512(zx, f);
	__m512i w0, w1, w2;
	uint32_t sw = 0;
	for (int t = 0; t < 9; t++)
		sw += (uint32_t)(int32_t)wv[t];
#define CQ_WQ(k) \
	_mm512_set1_epi32((int32_t)((uint32_t)(uint8_t)wv[k] | (uint32_t)(uint8_t)wv[(k) + 1] << 8 | \
				    (uint32_t)(uint8_t)wv[(k) + 2] << 16))
	w0 = CQ_WQ(0), w1 = CQ_WQ(3), w2 = CQ_WQ(6);
#undef CQ_WQ
	/* + b (mod 2^32, as vpdpbusd sums), - (ZX + 128) sum w over all 9
	 * taps: a window row in the padding is ZX throughout */
	const __m512i c0 = _mm512_set1_epi32((int32_t)(b - (uint32_t)(ZX + 128) * sw));
	/* column blocks outside, output rows inside: each input row's gathered
	 * quads are made once and serve every output row they are a window
	 * row of (row dilation 1, row stride 1 or 2: shifted along) */
	for (int o0 = 0; o0 < OW; o0 += 16) {
		int n = OW - o0 < 16 ? OW - o0 : 16, cs = o0 * SW - g->PL;
		int lo = cs < 0 ? -cs : 0, hi = W - cs < span ? W - cs : span;
		__mmask64 lm = hi > lo ? (((__mmask64)1 << (hi - lo)) - 1) << lo : 0;
		__mmask16 km = (__mmask16)((1u << n) - 1);
#define CQ_PV(ih) \
	((unsigned)(ih) < (unsigned)H ? _mm512_permutexvar_epi8( \
		ix, _mm512_xor_si512(_mm512_mask_loadu_epi8(zx, lm, xc + (ptrdiff_t)(ih) * W + cs), f)) : zu)
		int ih = -g->PT;
		__m512i p0 = CQ_PV(ih), p1 = CQ_PV(ih + DH), p2 = CQ_PV(ih + 2 * DH);
		for (int oh = 0;;) {
			__m512i acc = _mm512_dpbusd_epi32(c0, p0, w0);
			acc = _mm512_dpbusd_epi32(acc, p1, w1);
			acc = _mm512_dpbusd_epi32(acc, p2, w2);
			cq_rq512_st(y + (size_t)oh * OW + o0, km, cq_rq512_do(r, acc));
			if (++oh == OH)
				break;
			ih += SH;
			if (DH == 1 && SH == 1)
				p0 = p1, p1 = p2, p2 = CQ_PV(ih + 2);
			else if (DH == 1 && SH == 2)
				p0 = p2, p1 = CQ_PV(ih + 1), p2 = CQ_PV(ih + 2);
			else
				p0 = CQ_PV(ih), p1 = CQ_PV(ih + DH), p2 = CQ_PV(ih + 2 * DH);
		}
#undef CQ_PV
	}
}
#endif

/* cq_depthwise on the padded copy (cq_geometry), every output interior:
 * stride 1 runs the plane's OH rows of Wp columns as one row (the columns
 * past OW computed and dropped), stride 2 row by row; CQ_DW_CHUNK
 * accumulators at a time */
static void cq_dw_flat(const int8_t *xc, const cq_geo *g, int32_t ZX, const int16_t *wv, int32_t corr, int8_t *pp,
		       void *y, int32_t YT, size_t at, int fast, const rt_uq *q, int32_t b, int32_t mult, int32_t shift,
		       const int32_t *p)
{
	int S = g->SW, OW = g->OW, W = g->W, wq = g->Wp;
	size_t wpp = (size_t)S * (size_t)wq, hp = (size_t)g->SR;
	int32_t acc[CQ_DW_CHUNK];
	int16_t yq[CQ_DW_CHUNK];	/* a chunk's outputs, int8 or int16 */
	size_t ez = YT == NPU_T_I8 ? 1 : 2;
	memset(pp, (int8_t)ZX, hp * wpp);
	for (int ih = 0; ih < g->H; ih++) {
		size_t r = (size_t)ih + (size_t)g->PT, c = (size_t)g->PL;
		if (r < hp && c < wpp)
			memcpy(pp + r * wpp + c, xc + (size_t)ih * W, (size_t)W < wpp - c ? (size_t)W : wpp - c);
	}
	/* stride 1: the whole plane as one run of OH Wp outputs (rows of rw =
	 * Wp); stride 2: row by row (rw = OW) */
	int rw = S == 1 ? wq : OW, segs = S == 1 ? 1 : g->OH, len = S == 1 ? g->OH * wq : OW;
	for (int sg = 0; sg < segs; sg++) {
		const int8_t *base = pp + (size_t)S * (size_t)sg * wpp;
		const int8_t *rows[3] = {base, base + wpp, base + 2 * wpp};
		for (int f0 = 0; f0 < len; f0 += CQ_DW_CHUNK) {
			int n = len - f0 < CQ_DW_CHUNK ? len - f0 : CQ_DW_CHUNK;
			int done = cq_dw3(rows, wv, S, 0, f0, n, corr, acc);
			if (done < n)
				cq_dw_rows(rows, wv, 3, 3, 1, S, 0, f0 + done, n - done, corr, acc + done);
			if (fast && rw != OW) {
				/* stride 1: the chunk's outputs (those of the columns
				 * past OW too) requantized in one call, then the rows
				 * copied out (runs of OW = 7 or 14 took a call each) */
				cq_uq_row(yq, YT, 0, acc, NULL, 0, n, (uint32_t)b + 0x80000000u, (uint32_t)mult, q,
					  rt_shift(shift));
				for (int f = f0; f < f0 + n;) {
					int oh = sg + f / rw, ow = f % rw;
					int run = ow >= OW ? 0 : OW - ow < f0 + n - f ? OW - ow : f0 + n - f;
					if (run)
						memcpy((char *)y + (at + (size_t)oh * OW + (size_t)ow) * ez,
						       (const char *)yq + (size_t)(f - f0) * ez, (size_t)run * ez);
					f += ow >= OW ? rw - ow : run;
				}
				continue;
			}
			for (int f = f0; f < f0 + n;) {
				int oh = sg + f / rw, ow = f % rw, run;
				if (ow >= OW) {
					f += rw - ow;
					continue;
				}
				run = OW - ow < f0 + n - f ? OW - ow : f0 + n - f;
				size_t o = at + (size_t)oh * OW + (size_t)ow;
				if (fast)
					cq_uq_row(y, YT, o, acc + (f - f0), NULL, 0, run, (uint32_t)b + 0x80000000u,
						  (uint32_t)mult, q, rt_shift(shift));
				else
					cq_requant(y, YT, o, acc + (f - f0), NULL, 0, run, 1, 0, b, mult, shift, p[NPU_CV_ZY],
						   p[NPU_CV_LO], p[NPU_CV_HI]);
				f += run;
			}
		}
	}
}

static void cq_depthwise(const int32_t *p, const cq_geo *g, void *const *a, void *scratch)
{
	const int8_t *x = a[0], *w = a[1];
	const int32_t *bias = a[2], *mult = a[3], *shift = a[4], *wzp = a[5];
	void *y = a[6];
	int32_t YT = p[NPU_CV_YT], ZX = p[NPU_CV_ZX], ZY = p[NPU_CV_ZY], LO = p[NPU_CV_LO], HI = p[NPU_CV_HI];
	int KH = g->KH, KW = g->KW, SW = g->SW, DW = g->DW, OW = g->OW, W = g->W, H = g->H, taps = KH * KW;
	int off = -g->PL, ilo, ihi, lo2, hi2;
	int16_t wv[CQ_DW_TAPS], we[CQ_DW_TAPS];
	const int8_t *rows[CQ_DW_TAPS];
	int32_t acc[CQ_DW_CHUNK];
	/* interior columns: every tap of the output inside [0, W) */
	cq_range(off, SW, W, OW, &ilo, &hi2);
	cq_range(off + (KW - 1) * DW, SW, W, OW, &lo2, &ihi);
	if (ihi < ilo)
		ihi = ilo;
	int d3 = KH == 3 && KW == 3 && DW == 1 && (SW == 1 || SW == 2);
	for (int n = 0; n < g->N; n++)
		for (int c = 0; c < g->C; c++) {
			const int8_t *xc = x + ((size_t)n * g->C + c) * H * W;
			int32_t z = wzp ? wzp[c] : 0, b = bias ? bias[c] : 0;
			for (int t = 0; t < taps; t++)
				wv[t] = (int16_t)(w[(size_t)c * taps + t] - z);
			/* cq_requant's unsigned path when it applies (|sum| < 2^23) */
			rt_uq q;
			int s = rt_shift(shift[c]);
			int fast = (YT == NPU_T_I8 || YT == NPU_T_I16) && b > -(1 << 30) && b < (1 << 30) && mult[c] >= 0 &&
				   rt_uq_init(&q, s, 62, (uint64_t)mult[c] << 31, ZY, LO, HI) == 0;
			size_t at = ((size_t)n * g->OC + c) * g->P;
			int32_t swall = 0;
			for (int t = 0; t < taps; t++)
				swall += wv[t];
#if defined(CQ_DW512)
			if (fast && cq_dw512_geo(g, YT) && cq_rq512_i8(&q) && cq_dw512_fits(wv)) {
				cq_rq512 r;
				cq_rq512_set(&r, &q, (uint32_t)mult[c], s);
				cq_dw512(xc, g, ZX, wv, (uint32_t)b + 0x80000000u, (int8_t *)y + at, &r);
				continue;
			}
#endif
			if (g->scratch) {
				cq_dw_flat(xc, g, ZX, wv, ZX * swall, scratch, y, YT, at, fast, &q, b, mult[c], shift[c], p);
				continue;
			}
			for (int oh = 0; oh < g->OH; oh++, at += (size_t)OW) {
				/* the window's rows; those in the padding: weight 0 */
				int ih0 = oh * g->SH - g->PT, valid = 0;
				const int16_t *wr = wv;
				int32_t sw = swall;
				for (int kh = 0; kh < KH; kh++) {
					int ih = ih0 + kh * g->DH;
					valid += ih >= 0 && ih < H;
					rows[kh] = xc + (size_t)(ih >= 0 && ih < H ? ih : 0) * W;
				}
				if (valid < KH) {
					sw = 0;
					for (int kh = 0; kh < KH; kh++) {
						int ih = ih0 + kh * g->DH, in = ih >= 0 && ih < H;
						for (int kw = 0; kw < KW; kw++) {
							we[kh * KW + kw] = in ? wv[kh * KW + kw] : 0;
							sw += we[kh * KW + kw];
						}
					}
					wr = we;
				}
				int32_t corr = ZX * sw;
				for (int o0 = 0; o0 < OW; o0 += CQ_DW_CHUNK) {
					int o1 = OW - o0 < CQ_DW_CHUNK ? OW : o0 + CQ_DW_CHUNK;
					int a0 = ilo > o0 ? ilo : o0, a1 = ihi < o1 ? ihi : o1, o = o0;
					if (!valid)	/* every tap in the padding */
						a0 = a1 = o1;
					for (; o < o1; o++) {
						if (o == a0 && a0 < a1) {	/* the interior part of the chunk */
							int done = d3 ? cq_dw3(rows, wr, SW, off, a0, a1 - a0, corr, acc + (a0 - o0)) : 0;
							if (done < a1 - a0)
								cq_dw_rows(rows, wr, KH, KW, DW, SW, off, a0 + done, a1 - a0 - done, corr,
									   acc + (a0 + done - o0));
							o = a1 - 1;
							continue;
						}
						/* a border output: its taps inside the row */
						int32_t sum = 0;
						int b0 = o * SW + off, k0 = 0, k1 = KW;
						while (k0 < KW && b0 + k0 * DW < 0)
							k0++;
						while (k1 > k0 && b0 + (k1 - 1) * DW >= W)
							k1--;
						for (int kh = 0; kh < KH && valid; kh++) {
							const int8_t *r = rows[kh];
							const int16_t *wk = wr + kh * KW;
							for (int kw = k0; kw < k1; kw++)
								sum += (r[b0 + kw * DW] - ZX) * wk[kw];
						}
						acc[o - o0] = sum;
					}
					if (fast)
						cq_uq_row(y, YT, at + (size_t)o0, acc, NULL, 0, o1 - o0, (uint32_t)b + 0x80000000u,
							  (uint32_t)mult[c], &q, s);
					else
						cq_requant(y, YT, at + (size_t)o0, acc, NULL, 0, o1 - o0, 1, 0, b, mult[c],
							   shift[c], ZY, LO, HI);
				}
			}
		}
}

/* KW consecutive staged columns (DW == 1), KW a constant where inlined */
static inline int16_t *cq_gather(int16_t *restrict c, const int16_t *restrict sp, int cg, size_t plane, int KH,
				 size_t rstep, int KW)
{
	for (int ic = 0; ic < cg; ic++, sp += plane)
		for (int kh = 0; kh < KH; kh++) {
			const int16_t *src = sp + (size_t)kh * rstep;
			for (int kw = 0; kw < KW; kw++)
				*c++ = src[kw];
		}
	return c;
}

/* KW = 3: one 8-byte copy per window row, its 4th element overwritten by
 * the next copy (or by the zero fill past K, or by the next column row;
 * the last one may land in the packed weights, which are rewritten before
 * use); the staging area's readers may read one element past a row, which
 * stays inside the scratch area. */
static inline int16_t *cq_gather3(int16_t *restrict c, const int16_t *restrict sp, int cg, size_t plane, int KH,
				  size_t rstep)
{
	for (int ic = 0; ic < cg; ic++, sp += plane)
		for (int kh = 0; kh < KH; kh++, c += 3)
			memcpy(c, sp + (size_t)kh * rstep, 8);
	return c;
}

/* The column tile: pixels p0 .. p0 + tp - 1 of image n, group gr; row t
 * holds x - ZX over (ic, kh, kw) (0 for padding), zero-filled to Kp. A 1x1
 * stride 1 conv transposes x; others first stage the input rows the tile
 * reads (x - ZX as int16 with zero padding) and copy windows from them. */
static void cq_im2col(const cq_geo *g, const int8_t *x, int32_t ZX, int n, int gr, int p0, int tp, int16_t *col,
		      int16_t *stage)
{
	const int8_t *xg = x + ((size_t)n * g->C + (size_t)gr * g->cg) * g->H * g->W;
	size_t plane = (size_t)g->H * g->W, Kp = (size_t)g->Kp;
	if (g->direct) {
		/* a transpose of tp consecutive pixels, 8 channels at a time */
		const int8_t *xp = xg + (size_t)p0;
		int ic = 0;
		for (; ic + 8 <= g->cg; ic += 8)
			for (int t = 0; t < tp; t++)
				for (int i = 0; i < 8; i++)
					col[(size_t)t * Kp + ic + i] = (int16_t)(xp[(size_t)(ic + i) * plane + t] - ZX);
		for (; ic < g->cg; ic++)
			for (int t = 0; t < tp; t++)
				col[(size_t)t * Kp + ic] = (int16_t)(xp[(size_t)ic * plane + t] - ZX);
	} else if (g->gather) {
		/* straight from x, padding by bounds (the smallest scratch) */
		int oh = p0 / g->OW, ow = p0 % g->OW;
		for (int t = 0; t < tp; t++) {
			int16_t *c = col + (size_t)t * Kp;
			for (int ic = 0; ic < g->cg; ic++)
				for (int kh = 0; kh < g->KH; kh++) {
					int ih = oh * g->SH - g->PT + kh * g->DH;
					if (ih < 0 || ih >= g->H) {
						for (int kw = 0; kw < g->KW; kw++)
							*c++ = 0;
						continue;
					}
					const int8_t *xr = xg + (size_t)ic * plane + (size_t)ih * g->W;
					for (int kw = 0; kw < g->KW; kw++) {
						int iw = ow * g->SW - g->PL + kw * g->DW;
						*c++ = (int16_t)(iw >= 0 && iw < g->W ? xr[iw] - ZX : 0);
					}
				}
			if (++ow == g->OW) {
				ow = 0;
				oh++;
			}
		}
	} else {
		int oh0 = p0 / g->OW, oh1 = (p0 + tp - 1) / g->OW, W = g->W, Wp = g->Wp, PL = g->PL;
		int ih0 = oh0 * g->SH - g->PT, rows = (oh1 - oh0) * g->SH + (g->KH - 1) * g->DH + 1;
		size_t splane = (size_t)rows * Wp;
		for (int ic = 0; ic < g->cg; ic++)
			for (int r = 0; r < rows; r++) {
				int16_t *sr = stage + (size_t)ic * splane + (size_t)r * Wp;
				int ih = ih0 + r, j = 0;
				if (ih >= 0 && ih < g->H) {
					const int8_t *xr = xg + (size_t)ic * plane + (size_t)ih * W;
					for (; j < PL; j++)
						sr[j] = 0;
					for (; j < PL + W; j++)
						sr[j] = (int16_t)(xr[j - PL] - ZX);
				}
				for (; j < Wp; j++)
					sr[j] = 0;
			}
		size_t rstep = (size_t)g->DH * Wp;
		int oh = oh0, ow = p0 % g->OW;
		for (int t = 0; t < tp; t++) {
			int16_t *c = col + (size_t)t * Kp;
			const int16_t *sp = stage + (size_t)((oh - oh0) * g->SH) * Wp + (size_t)ow * g->SW;
			if (g->DW != 1) {
				for (int ic = 0; ic < g->cg; ic++, sp += splane)
					for (int kh = 0; kh < g->KH; kh++)
						for (int kw = 0; kw < g->KW; kw++)
							*c++ = sp[(size_t)kh * rstep + (size_t)kw * g->DW];
			} else {
				switch (g->KW) {
				case 1: c = cq_gather(c, sp, g->cg, splane, g->KH, rstep, 1); break;
				case 3: c = cq_gather3(c, sp, g->cg, splane, g->KH, rstep); break;
				case 5: c = cq_gather(c, sp, g->cg, splane, g->KH, rstep, 5); break;
				case 7: c = cq_gather(c, sp, g->cg, splane, g->KH, rstep, 7); break;
				default: c = cq_gather(c, sp, g->cg, splane, g->KH, rstep, g->KW); break;
				}
			}
			if (++ow == g->OW) {
				ow = 0;
				oh++;
			}
		}
	}
	if (g->Kp > g->K)
		for (int t = 0; t < tp; t++)
			for (int k = g->K; k < g->Kp; k++)
				col[(size_t)t * Kp + k] = 0;
	/* the micro-kernel reads whole groups of CQ_MR rows: zero the rest */
	for (size_t i = (size_t)tp * Kp; i < (size_t)(tp + CQ_MR - 1) / CQ_MR * CQ_MR * Kp; i++)
		col[i] = 0;
}

/* The micro-kernel: r[m][j] = sum_k col_m[k] w_j[k] for CQ_MR = 4 pixels
 * (column rows x, x + Kp, ...) and the CQ_NR = 8 output channels of one
 * packed weight block wb (npu_rt.h: Kq quads of 8 channels x 4 int8). The
 * sums are int32 and exact (|col| <= 255, |w| <= 128, K <= CQ_MAX_K), so
 * every path below, whatever its order of summation, gives the portable
 * path's r bit for bit. Each accumulates vertically (one register lane per
 * channel or per channel and k pair) and reduces once per tile. */
#if defined(NPU_NO_SIMD)
#define CQ_PORTABLE 1
#elif defined(__AVX2__)
/* vpmaddwd on int16: a pair sum is at most 2 * 255 * 128 < 2^31, exact.
 * The int8 x uint8 vpmaddubsw would saturate (255 * 128 * 2 > 2^15 - 1:
 * x - ZX spans 9 bits), and every saturation-free split of it costs as
 * many instructions per product as vpmaddwd does. vpdpwssd (AVX-VNNI,
 * AVX512-VNNI) fuses the multiply-add and its add. */
#if defined(__AVXVNNI__)
#define CQ_DPW(a, x, w) _mm256_dpwssd_avx_epi32(a, x, w)
#elif defined(__AVX512VNNI__) && defined(__AVX512VL__)
#define CQ_DPW(a, x, w) _mm256_dpwssd_epi32(a, x, w)
#else
#define CQ_DPW(a, x, w) _mm256_add_epi32(a, _mm256_madd_epi16(x, w))
#endif
static inline __m256i cq_bq(const int16_t *p)
{
	int64_t v;
	memcpy(&v, p, 8);
	return _mm256_set1_epi64x(v);
}

static void cq_micro(const int16_t *restrict x, size_t Kp, int Kq, const int8_t *restrict wb, int32_t *restrict r)
{
	/* lanes of a*0: channels 0..3 x k pairs (c0 k01, c0 k23, c1 k01, ...),
	 * a*1: channels 4..7 */
	__m256i a00 = _mm256_setzero_si256(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00,
		a31 = a00;
	const int16_t *x0 = x, *x1 = x + Kp, *x2 = x1 + Kp, *x3 = x2 + Kp;
	for (int q = 0; q < Kq; q++, wb += 32) {
		__m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)wb));
		__m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(wb + 16)));
		__m256i v = cq_bq(x0 + 4 * q);
		a00 = CQ_DPW(a00, v, w0), a01 = CQ_DPW(a01, v, w1);
		v = cq_bq(x1 + 4 * q);
		a10 = CQ_DPW(a10, v, w0), a11 = CQ_DPW(a11, v, w1);
		v = cq_bq(x2 + 4 * q);
		a20 = CQ_DPW(a20, v, w0), a21 = CQ_DPW(a21, v, w1);
		v = cq_bq(x3 + 4 * q);
		a30 = CQ_DPW(a30, v, w0), a31 = CQ_DPW(a31, v, w1);
	}
	/* hadd: c0 c1 c4 c5 | c2 c3 c6 c7; the 64-bit permute puts them in order */
	_mm256_storeu_si256((__m256i *)(void *)r, _mm256_permute4x64_epi64(_mm256_hadd_epi32(a00, a01), 0xd8));
	_mm256_storeu_si256((__m256i *)(void *)(r + 8), _mm256_permute4x64_epi64(_mm256_hadd_epi32(a10, a11), 0xd8));
	_mm256_storeu_si256((__m256i *)(void *)(r + 16), _mm256_permute4x64_epi64(_mm256_hadd_epi32(a20, a21), 0xd8));
	_mm256_storeu_si256((__m256i *)(void *)(r + 24), _mm256_permute4x64_epi64(_mm256_hadd_epi32(a30, a31), 0xd8));
}
#elif defined(__SSE2__)
/* pmaddwd on int16 (exact as above), two pixels at a time; SSE2 (every
 * x86-64) sign-extends the weights by unpacking and shifting, SSE4.1 with
 * pmovsxbw */
#if defined(__SSE4_1__)
#define CQ_SX8(p) _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(p)))
#else
#define CQ_SX8(p) \
	_mm_srai_epi16(_mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(const void *)(p)), \
					 _mm_loadl_epi64((const __m128i *)(const void *)(p))), 8)
#endif
/* [a0 + a1, a2 + a3, b0 + b1, b2 + b3] (SSSE3's phaddd, in SSE2) */
static inline __m128i cq_hadd(__m128i a, __m128i b)
{
	__m128 x = _mm_castsi128_ps(a), y = _mm_castsi128_ps(b);
	return _mm_add_epi32(_mm_castps_si128(_mm_shuffle_ps(x, y, _MM_SHUFFLE(2, 0, 2, 0))),
			     _mm_castps_si128(_mm_shuffle_ps(x, y, _MM_SHUFFLE(3, 1, 3, 1))));
}
static void cq_micro(const int16_t *restrict x, size_t Kp, int Kq, const int8_t *restrict wb, int32_t *restrict r)
{
	for (int m = 0; m < CQ_MR; m += 2, x += 2 * Kp, r += 16) {
		__m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
		const int8_t *w = wb;
		for (int q = 0; q < Kq; q++, w += 32) {
			int64_t u, v;
			memcpy(&u, x + 4 * q, 8);
			memcpy(&v, x + Kp + 4 * q, 8);
			__m128i xu = _mm_set1_epi64x(u), xv = _mm_set1_epi64x(v);
			__m128i w0 = CQ_SX8(w), w1 = CQ_SX8(w + 8), w2 = CQ_SX8(w + 16), w3 = CQ_SX8(w + 24);
			a0 = _mm_add_epi32(a0, _mm_madd_epi16(xu, w0)), b0 = _mm_add_epi32(b0, _mm_madd_epi16(xv, w0));
			a1 = _mm_add_epi32(a1, _mm_madd_epi16(xu, w1)), b1 = _mm_add_epi32(b1, _mm_madd_epi16(xv, w1));
			a2 = _mm_add_epi32(a2, _mm_madd_epi16(xu, w2)), b2 = _mm_add_epi32(b2, _mm_madd_epi16(xv, w2));
			a3 = _mm_add_epi32(a3, _mm_madd_epi16(xu, w3)), b3 = _mm_add_epi32(b3, _mm_madd_epi16(xv, w3));
		}
		_mm_storeu_si128((__m128i *)(void *)r, cq_hadd(a0, a1));
		_mm_storeu_si128((__m128i *)(void *)(r + 4), cq_hadd(a2, a3));
		_mm_storeu_si128((__m128i *)(void *)(r + 8), cq_hadd(b0, b1));
		_mm_storeu_si128((__m128i *)(void *)(r + 12), cq_hadd(b2, b3));
	}
}
#elif defined(__ARM_NEON) && defined(__aarch64__)
/* smlal on int16 (each product below 2^16, int32 lanes exact), two
 * pixels at a time; the weights widened once per quad */
static void cq_micro(const int16_t *restrict x, size_t Kp, int Kq, const int8_t *restrict wb, int32_t *restrict r)
{
	for (int m = 0; m < CQ_MR; m += 2, x += 2 * Kp, r += 16) {
		int32x4_t a[8], b[8];
		for (int j = 0; j < 8; j++)
			a[j] = b[j] = vdupq_n_s32(0);
		const int8_t *w = wb;
		for (int q = 0; q < Kq; q++, w += 32) {
			int8x16_t v0 = vld1q_s8(w), v1 = vld1q_s8(w + 16);
			int16x8_t w01 = vmovl_s8(vget_low_s8(v0)), w23 = vmovl_high_s8(v0);
			int16x8_t w45 = vmovl_s8(vget_low_s8(v1)), w67 = vmovl_high_s8(v1);
			int16x4_t xu = vld1_s16(x + 4 * q), xv = vld1_s16(x + Kp + 4 * q);
			a[0] = vmlal_s16(a[0], vget_low_s16(w01), xu), b[0] = vmlal_s16(b[0], vget_low_s16(w01), xv);
			a[1] = vmlal_s16(a[1], vget_high_s16(w01), xu), b[1] = vmlal_s16(b[1], vget_high_s16(w01), xv);
			a[2] = vmlal_s16(a[2], vget_low_s16(w23), xu), b[2] = vmlal_s16(b[2], vget_low_s16(w23), xv);
			a[3] = vmlal_s16(a[3], vget_high_s16(w23), xu), b[3] = vmlal_s16(b[3], vget_high_s16(w23), xv);
			a[4] = vmlal_s16(a[4], vget_low_s16(w45), xu), b[4] = vmlal_s16(b[4], vget_low_s16(w45), xv);
			a[5] = vmlal_s16(a[5], vget_high_s16(w45), xu), b[5] = vmlal_s16(b[5], vget_high_s16(w45), xv);
			a[6] = vmlal_s16(a[6], vget_low_s16(w67), xu), b[6] = vmlal_s16(b[6], vget_low_s16(w67), xv);
			a[7] = vmlal_s16(a[7], vget_high_s16(w67), xu), b[7] = vmlal_s16(b[7], vget_high_s16(w67), xv);
		}
		vst1q_s32(r, vpaddq_s32(vpaddq_s32(a[0], a[1]), vpaddq_s32(a[2], a[3])));
		vst1q_s32(r + 4, vpaddq_s32(vpaddq_s32(a[4], a[5]), vpaddq_s32(a[6], a[7])));
		vst1q_s32(r + 8, vpaddq_s32(vpaddq_s32(b[0], b[1]), vpaddq_s32(b[2], b[3])));
		vst1q_s32(r + 12, vpaddq_s32(vpaddq_s32(b[4], b[5]), vpaddq_s32(b[6], b[7])));
	}
}
#elif defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32)
/* Cortex-M DSP (also the M55's, which has no Helium path here): SMLAD, two
 * 16 x 16 products and an accumulate per instruction. A weight word holds
 * k0..k3 of one channel; SXTB16 gives (k0, k2) and, rotated by 8, (k1,
 * k3); the activations are paired to match. |(k0 x0 + k2 x2)| < 2^17, and the int32 sum is exact. */
static void cq_micro(const int16_t *restrict x, size_t Kp, int Kq, const int8_t *restrict wb, int32_t *restrict r)
{
	for (int m = 0; m < CQ_MR; m++, x += Kp, r += 8) {
		int32_t a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
		const int8_t *w = wb;
		for (int q = 0; q < Kq; q++, w += 32) {
			uint32_t x01, x23;
			memcpy(&x01, x + 4 * q, 4);
			memcpy(&x23, x + 4 * q + 2, 4);
			uint32_t e = (x01 & 0xffffu) | (x23 << 16), o = (x01 >> 16) | (x23 & 0xffff0000u);
			for (int j = 0; j < 8; j++) {
				uint32_t wj;
				memcpy(&wj, w + 4 * j, 4);
				a[j] = __smlad(__sxtb16(wj), e, a[j]);
				a[j] = __smlad(__sxtb16((wj >> 8) | (wj << 24)), o, a[j]);
			}
		}
		for (int j = 0; j < 8; j++)
			r[j] = a[j];
	}
}
#else
#define CQ_PORTABLE 1
#endif
#if defined(CQ_PORTABLE)
/* portable C: the reference (compilers vectorize the channel loop) */
static void cq_micro(const int16_t *restrict x, size_t Kp, int Kq, const int8_t *restrict wb, int32_t *restrict r)
{
	for (int m = 0; m < CQ_MR; m++, x += Kp, r += 8) {
		int32_t a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
		const int8_t *w = wb;
		for (int q = 0; q < Kq; q++, w += 32) {
			int32_t x0 = x[4 * q], x1 = x[4 * q + 1], x2 = x[4 * q + 2], x3 = x[4 * q + 3];
			for (int j = 0; j < 8; j++)
				a[j] += x0 * w[4 * j] + x1 * w[4 * j + 1] + x2 * w[4 * j + 2] + x3 * w[4 * j + 3];
		}
		for (int j = 0; j < 8; j++)
			r[j] = a[j];
	}
}
#endif

/* The GEMM path: per tile of TP pixels, the column tile, then every packed
 * block of 8 output channels against CQ_MR pixels at a time (a partial
 * last group of pixels repeats the tile's last row), requantized a channel
 * row at a time. */
static void cq_im2col_conv(const int32_t *p, const cq_geo *g, void *const *a, void *scratch)
{
	const int8_t *x = a[0], *w = a[1];
	const int32_t *bias = a[2], *mult = a[3], *shift = a[4], *wzp = a[5];
	void *y = a[6];
	int32_t YT = p[NPU_CV_YT], ZX = p[NPU_CV_ZX], ZY = p[NPU_CV_ZY], LO = p[NPU_CV_LO], HI = p[NPU_CV_HI];
	size_t row = ((size_t)g->TP * 4 + 15) & ~(size_t)15;
	int16_t *col = scratch;
	int16_t *stage = (int16_t *)(void *)((uint8_t *)scratch + g->stage);
	int32_t *csum = (int32_t *)(void *)((uint8_t *)scratch + g->stage + g->staged);
	int32_t *acc = (int32_t *)(void *)((uint8_t *)csum + row);
	size_t ar = row / 4;	/* accumulator row stride */
	int K = g->K, Kp = g->Kp, Kq = Kp / 4, nb = (g->og + CQ_NR - 1) / CQ_NR;
	size_t bstride = (size_t)Kq * 4 * CQ_NR;
	for (int n = 0; n < g->N; n++)
		for (int gr = 0; gr < g->G; gr++)
			for (int p0 = 0; p0 < g->P; p0 += g->TP) {
				int tp = g->P - p0 < g->TP ? g->P - p0 : g->TP;
				cq_im2col(g, x, ZX, n, gr, p0, tp, col, stage);
				if (wzp)
					for (int t = 0; t < tp; t++) {
						int32_t s = 0;
						const int16_t *cr = col + (size_t)t * Kp;
						for (int k = 0; k < K; k++)
							s += cr[k];
						csum[t] = s;
					}
				for (int b = 0; b < nb; b++) {
					int oc = gr * g->og + b * CQ_NR, no = g->og - b * CQ_NR < CQ_NR ? g->og - b * CQ_NR : CQ_NR;
					const int8_t *wb = w + ((size_t)gr * nb + (size_t)b) * bstride;
					for (int t = 0; t < tp; t += CQ_MR) {
						int32_t r[CQ_MR * CQ_NR];
						const int16_t *xt = col + (size_t)t * Kp;
						int mr = tp - t < CQ_MR ? tp - t : CQ_MR;
						cq_micro(xt, (size_t)Kp, Kq, wb, r);
						for (int m = 0; m < mr; m++)
							for (int o = 0; o < no; o++)
								acc[(size_t)o * ar + (size_t)(t + m)] = r[m * CQ_NR + o];
					}
					for (int o = 0; o < no; o++)
						cq_requant(y, YT, ((size_t)n * g->OC + oc + o) * g->P + p0, acc + o * ar,
							   wzp ? csum : NULL, wzp ? wzp[oc + o] : 0, tp, 1, 0, bias ? bias[oc + o] : 0,
							   mult[oc + o], shift[oc + o], ZY, LO, HI);
				}
			}
}

/* The smallest scratch: CQ_MR pixels at a time, their windows gathered
 * from x KC k at a time (rows of KC, zero past K and past the last pixel)
 * and each chunk's products added up per block of channels. */
static void cq_chunked_conv(const int32_t *p, const cq_geo *g, void *const *a, void *scratch)
{
	const int8_t *x = a[0], *w = a[1];
	const int32_t *bias = a[2], *mult = a[3], *shift = a[4], *wzp = a[5];
	void *y = a[6];
	int32_t YT = p[NPU_CV_YT], ZX = p[NPU_CV_ZX], ZY = p[NPU_CV_ZY], LO = p[NPU_CV_LO], HI = p[NPU_CV_HI];
	int16_t *col = scratch;
	int32_t *csum = (int32_t *)(void *)((uint8_t *)scratch + g->stage);
	int K = g->K, Kp = g->Kp, KC = g->KC, nb = (g->og + CQ_NR - 1) / CQ_NR, taps = g->KH * g->KW;
	size_t bstride = (size_t)(Kp / 4) * 4 * CQ_NR, plane = (size_t)g->H * g->W;
	for (int n = 0; n < g->N; n++)
		for (int gr = 0; gr < g->G; gr++) {
			const int8_t *xg = x + ((size_t)n * g->C + (size_t)gr * g->cg) * plane;
			for (int p0 = 0; p0 < g->P; p0 += CQ_MR) {
				int mr = g->P - p0 < CQ_MR ? g->P - p0 : CQ_MR;
				for (int m = 0; m < CQ_MR; m++)
					csum[m] = 0;
				for (int b = 0; b < nb; b++) {
					int oc = gr * g->og + b * CQ_NR, no = g->og - b * CQ_NR < CQ_NR ? g->og - b * CQ_NR : CQ_NR;
					const int8_t *wb = w + ((size_t)gr * nb + (size_t)b) * bstride;
					int32_t sum[CQ_MR * CQ_NR], r[CQ_MR * CQ_NR], accr[CQ_MR];
					for (int i = 0; i < CQ_MR * CQ_NR; i++)
						sum[i] = 0;
					for (int k0 = 0; k0 < Kp; k0 += KC) {
						int kc = Kp - k0 < KC ? Kp - k0 : KC;
						for (int m = 0; m < CQ_MR; m++) {
							int16_t *c = col + (size_t)m * kc;
							int pp = p0 + m, oh = pp / g->OW, ow = pp % g->OW;
							for (int k = k0; k < k0 + kc; k++) {
								int v = 0;
								if (m < mr && k < K) {
									int ic = k / taps, kh = k % taps / g->KW, kw = k % g->KW;
									int ih = oh * g->SH - g->PT + kh * g->DH, iw = ow * g->SW - g->PL + kw * g->DW;
									if (ih >= 0 && ih < g->H && iw >= 0 && iw < g->W)
										v = xg[(size_t)ic * plane + (size_t)ih * g->W + (size_t)iw] - ZX;
								}
								c[k - k0] = (int16_t)v;
								if (b == 0)
									csum[m] += v;
							}
						}
						cq_micro(col, (size_t)kc, kc / 4, wb + (size_t)(k0 / 4) * 4 * CQ_NR, r);
						for (int i = 0; i < CQ_MR * CQ_NR; i++)
							sum[i] += r[i];
					}
					for (int o = 0; o < no; o++) {
						for (int m = 0; m < mr; m++)
							accr[m] = sum[m * CQ_NR + o];
						cq_requant(y, YT, ((size_t)n * g->OC + oc + o) * g->P + p0, accr, wzp ? csum : NULL,
							   wzp ? wzp[oc + o] : 0, mr, 1, 0, bias ? bias[oc + o] : 0, mult[oc + o],
							   shift[oc + o], ZY, LO, HI);
					}
				}
			}
		}
}

/* The direct 1x1 path (stride 1, no padding, no weight zero points): the
 * output pixels are x's own, so a tile of TP pixels needs no im2col; its
 * input rows are staged as a panel the micro-kernels stream with pixels
 * along the vector lanes, and each packed weight quad (4 k of one output
 * channel, 4 bytes, npu_rt.h) is broadcast to all lanes. The results are
 * rows of pixels per output channel, which cq_requant takes whole.
 * - VNNI (vpdpbusd, AVX-VNNI or AVX512-VNNI+VL): int8 x int8 without
 *   widening. The panel holds u = x + 128 as uint8, 4 channels per pixel
 *   ([Kq][TPr][4]); vpdpbusd sums u w over 4 k into int32 exactly (its
 *   products are not saturated, unlike vpmaddubsw's pair sums), and
 *   sum (x - ZX) w = sum u w - (128 + ZX) sum w, the correction per
 *   channel from the block's weights.
 * - Helium (MVE, Cortex-M55): vmladava sums 16 int8 x int8 products of
 *   one pixel and one channel into a scalar, so the panel holds x itself,
 *   pixel after pixel with its k contiguous ([TPr][KC], half the bytes),
 *   the block's weights are regrouped by 16 k once per tile, and sum (x -
 *   ZX) w = sum x w - ZX sum w, the correction per channel.
 * - elsewhere (vpmaddwd / pmaddwd, the portable C): the panel holds x - ZX
 *   as int16 pairs of channels per pixel ([Kp/2][TPr][2]) and the block's
 *   weights are widened to int16 once per tile.
 * All give sum (x - ZX) w exactly, as the other paths do.
 * CQ_DNP = 16 pixels per micro-kernel call, 4 channels (two calls per
 * packed block of 8); the scratch layout (cq_panel_fit) is the same for
 * every ISA, so npu-emit's arena fits the header whatever its flags. */
#if !defined(NPU_NO_SIMD) && defined(__AVX2__) && \
	(defined(__AVXVNNI__) || (defined(__AVX512VNNI__) && defined(__AVX512VL__)))
#define CQ_VNNI 1
#if defined(__AVXVNNI__)
#define CQ_DPB(a, x, w) _mm256_dpbusd_avx_epi32(a, x, w)
#else
#define CQ_DPB(a, x, w) _mm256_dpbusd_epi32(a, x, w)
#endif
#endif
/* On aarch64 with the dot-product extension (CQ_NDOT, defined above the
 * depthwise kernels) the panel holds quads as for VNNI ([Kq][TPr][4]) but
 * of x itself (sdot multiplies int8 by int8), and sum (x - ZX) w =
 * sum x w - ZX sum w, the correction per channel from the block's weights;
 * it needs half the scratch of the int16 panel cq_panel_fit sizes. */
/* AMX-INT8 (gcc/clang -march=sapphirerapids or native there, -mamx-tile
 * -mamx-int8 with AVX-512): the VNNI path's panel arithmetic on tiles
 * (cq_amx_conv), used when Linux grants the tile state (cq_amx_ready);
 * -DNPU_NO_AMX keeps such a build on the VNNI path */
#if defined(CQ_VNNI) && !defined(NPU_NO_AMX) && (defined(__AMX_TILE__) || defined(__AMXTILE__)) && \
	(defined(__AMX_INT8__) || defined(__AMXINT8__)) && defined(__AVX512F__) && defined(__AVX512BW__) && \
	defined(__AVX512VL__) && defined(__linux__) && defined(__x86_64__)	/* gcc's macros, clang's */
#define CQ_AMX 1
#endif
/* Helium (MVE, Cortex-M55): vmladava sums 16 int8 products into a scalar,
 * so the panel holds each pixel's K contiguous (cq_dstage below) */
#if !defined(NPU_NO_SIMD) && !defined(__SSE2__) && !(defined(__ARM_NEON) && defined(__aarch64__)) && \
	defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define CQ_MVE 1
#endif
/* where in wide (int32 units) channels h .. h + 3 of a block's chunk of kc
 * k start: Helium's regrouped int8 (cq_mve_regroup), else the int16 pairs */
#if defined(CQ_MVE)
#define CQ_WIDE(h, kc) ((size_t)(h) * (size_t)(kc) / 4)
#else
#define CQ_WIDE(h, kc) (2 * (size_t)(h))
#endif

/* Rows of the panel for pixels p0 .. p0 + tp - 1, k after k (cq_tap):
 * for a direct 1x1 x itself (channel k); else the tap k = (ic, kh, kw) of
 * each pixel's window: a pointer into x when the tile's pixels read one
 * stretch of an input row, or gathered into dst with ZX for padding
 * (x - ZX = 0 there; in the VNNI panel u = ZX + 128, which the
 * correction cancels); NULL past K. */
typedef struct {
	int k, ic, kh, kw, oh0, ow0, p0;
} cq_tap;

static void cq_tap_at(const cq_geo *g, cq_tap *t, int k, int p0)
{
	int taps = g->KH * g->KW;
	t->k = k, t->ic = k / taps, t->kh = k % taps / g->KW, t->kw = k % g->KW;
	t->oh0 = p0 / g->OW, t->ow0 = p0 % g->OW, t->p0 = p0;
}

static const int8_t *cq_srow(const cq_geo *g, const int8_t *xg, int32_t ZX, cq_tap *tp_, int tp, int8_t *dst)
{
	size_t plane = (size_t)g->H * g->W;
	int k = tp_->k++, kh = tp_->kh, kw = tp_->kw;
	if (k >= g->K)
		return NULL;
	if (g->direct)
		return xg + (size_t)k * plane + (size_t)tp_->p0;
	const int8_t *xc = xg + (size_t)tp_->ic * plane;
	if (++tp_->kw == g->KW) {
		tp_->kw = 0;
		if (++tp_->kh == g->KH)
			tp_->kh = 0, tp_->ic++;
	}
	int off = kw * g->DW - g->PL, lo, hi, oh = tp_->oh0, ow = tp_->ow0;
	if (g->SW == 1) {	/* the output columns inside x */
		lo = off < 0 ? -off : 0, hi = g->W - off;
		lo = lo < g->OW ? lo : g->OW, hi = hi < lo ? lo : hi > g->OW ? g->OW : hi;
	} else {
		cq_range(off, g->SW, g->W, g->OW, &lo, &hi);
	}
	if (g->SW == 1 && ow + tp <= g->OW && ow >= lo && ow + tp <= hi) {
		int ih = oh * g->SH - g->PT + kh * g->DH;
		if (ih >= 0 && ih < g->H)
			return xc + (size_t)ih * g->W + ow + off;
	}
	for (int t = 0; t < tp; oh++, ow = 0) {
		int n = g->OW - ow < tp - t ? g->OW - ow : tp - t, e = ow + n;
		int ih = oh * g->SH - g->PT + kh * g->DH;
		int8_t *d = dst + t - ow;	/* d[o]: output column o */
		t += n;
		if (ih < 0 || ih >= g->H) {
			memset(d + ow, ZX, (size_t)n);
			continue;
		}
		const int8_t *xr = xc + (size_t)ih * g->W;
		int l = lo < ow ? ow : lo > e ? e : lo, h = hi > e ? e : hi < l ? l : hi;
		memset(d + ow, ZX, (size_t)(l - ow));
		if (g->SW == 1)
			memcpy(d + l, xr + l + off, (size_t)(h - l));
		else
			for (int o = l; o < h; o++)
				d[o] = xr[o * g->SW + off];
		memset(d + h, ZX, (size_t)(e - h));
	}
	return dst;
}

/* the micro-kernels' running sums of a later K chunk: row j, pixel t0 + o */
#define CQ_LDA(j, o) _mm256_loadu_si256((const __m256i *)(const void *)(acc + (size_t)(j) * TPr + t0 + (o)))
#define CQ_LDA4(j, o) _mm_loadu_si128((const __m128i *)(const void *)(ap + (size_t)(j) * TPr + (o)))
#if defined(CQ_VNNI)
/* panel rows of quads: u = x + 128 (x ^ 0x80) of rows k .. k + 3 (NULL
 * past K: zero, against zero weights) */
static void cq_dstage(const cq_geo *g, const int8_t *xg, int32_t ZX, int p0, int tp, int TPr, int k0, int KC,
		      void *panel, int8_t *tmp)
{
	uint8_t *pn = panel;
	const __m128i f = _mm_set1_epi8((char)0x80);
	cq_tap tap;
	cq_tap_at(g, &tap, k0, p0);
	for (int c = k0; c < k0 + KC; c += 4) {
		uint8_t *o = pn + (size_t)(c - k0) * TPr;
		const int8_t *rows[4];
		for (int i = 0; i < 4; i++)
			rows[i] = cq_srow(g, xg, ZX, &tap, tp, tmp + (size_t)i * TPr);
		for (int t = 0; t < TPr; t += 16) {
			__m128i r[4];
			for (int i = 0; i < 4; i++) {
				if (!rows[i] || t >= tp) {
					r[i] = _mm_setzero_si128();
					continue;
				}
				if (tp - t >= 16) {
					r[i] = _mm_loadu_si128((const __m128i *)(const void *)(rows[i] + t));
				} else {
					int8_t b16[16] = {0};
					memcpy(b16, rows[i] + t, (size_t)(tp - t));
					r[i] = _mm_loadu_si128((const __m128i *)(const void *)b16);
				}
				r[i] = _mm_xor_si128(r[i], f);
			}
			__m128i t0 = _mm_unpacklo_epi8(r[0], r[1]), t1 = _mm_unpackhi_epi8(r[0], r[1]);
			__m128i t2 = _mm_unpacklo_epi8(r[2], r[3]), t3 = _mm_unpackhi_epi8(r[2], r[3]);
			_mm_storeu_si128((__m128i *)(void *)(o + 4 * t), _mm_unpacklo_epi16(t0, t2));
			_mm_storeu_si128((__m128i *)(void *)(o + 4 * t + 16), _mm_unpackhi_epi16(t0, t2));
			_mm_storeu_si128((__m128i *)(void *)(o + 4 * t + 32), _mm_unpacklo_epi16(t1, t3));
			_mm_storeu_si128((__m128i *)(void *)(o + 4 * t + 48), _mm_unpackhi_epi16(t1, t3));
		}
	}
}

/* acc rows j < 4 (stride TPr), CQ_DNP pixels from t0: sum u w - corr[j] */
static void cq_dmicro(const void *panel, int TPr, int Kq, int t0, const int8_t *restrict wb, const int32_t *wide,
		      const int32_t *corr, int first, int32_t *restrict acc)
{
	const uint8_t *pp = (const uint8_t *)panel + (size_t)t0 * 4;
	__m256i a00, a01, a10, a11, a20, a21, a30, a31;
	(void)wide;
	if (first) {	/* from -corr[j] */
		__m256i z = _mm256_setzero_si256();
		a00 = a01 = _mm256_sub_epi32(z, _mm256_set1_epi32(corr[0]));
		a10 = a11 = _mm256_sub_epi32(z, _mm256_set1_epi32(corr[1]));
		a20 = a21 = _mm256_sub_epi32(z, _mm256_set1_epi32(corr[2]));
		a30 = a31 = _mm256_sub_epi32(z, _mm256_set1_epi32(corr[3]));
	} else {
		a00 = CQ_LDA(0, 0), a01 = CQ_LDA(0, 8), a10 = CQ_LDA(1, 0), a11 = CQ_LDA(1, 8);
		a20 = CQ_LDA(2, 0), a21 = CQ_LDA(2, 8), a30 = CQ_LDA(3, 0), a31 = CQ_LDA(3, 8);
	}
	for (int q = 0; q < Kq; q++, pp += (size_t)TPr * 4, wb += 4 * CQ_NR) {
		__m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)pp);
		__m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(pp + 32));
		int32_t w0, w1, w2, w3;
		memcpy(&w0, wb, 4), memcpy(&w1, wb + 4, 4), memcpy(&w2, wb + 8, 4), memcpy(&w3, wb + 12, 4);
		__m256i v = _mm256_set1_epi32(w0);
		a00 = CQ_DPB(a00, x0, v), a01 = CQ_DPB(a01, x1, v);
		v = _mm256_set1_epi32(w1);
		a10 = CQ_DPB(a10, x0, v), a11 = CQ_DPB(a11, x1, v);
		v = _mm256_set1_epi32(w2);
		a20 = CQ_DPB(a20, x0, v), a21 = CQ_DPB(a21, x1, v);
		v = _mm256_set1_epi32(w3);
		a30 = CQ_DPB(a30, x0, v), a31 = CQ_DPB(a31, x1, v);
	}
	__m256i r[8] = {a00, a01, a10, a11, a20, a21, a30, a31};
	for (int j = 0; j < 4; j++) {
		_mm256_storeu_si256((__m256i *)(void *)(acc + (size_t)j * TPr + t0), r[2 * j]);
		_mm256_storeu_si256((__m256i *)(void *)(acc + (size_t)j * TPr + t0 + 8), r[2 * j + 1]);
	}
}
#elif defined(CQ_NDOT)
/* panel rows of quads: x of rows k .. k + 3 interleaved by st4 (NULL past
 * K: zero, against zero weights) */
static void cq_dstage(const cq_geo *g, const int8_t *xg, int32_t ZX, int p0, int tp, int TPr, int k0, int KC,
		      void *panel, int8_t *tmp)
{
	int8_t *pn = panel;
	cq_tap tap;
	cq_tap_at(g, &tap, k0, p0);
	for (int c = k0; c < k0 + KC; c += 4) {
		int8_t *o = pn + (size_t)(c - k0) * TPr;
		const int8_t *rows[4];
		for (int i = 0; i < 4; i++)
			rows[i] = cq_srow(g, xg, ZX, &tap, tp, tmp + (size_t)i * TPr);
		for (int t = 0; t < TPr; t += 16) {
			int8x16x4_t r;
			for (int i = 0; i < 4; i++) {
				if (!rows[i] || t >= tp) {
					r.val[i] = vdupq_n_s8(0);
				} else if (tp - t >= 16) {
					r.val[i] = vld1q_s8(rows[i] + t);
				} else {
					int8_t b16[16] = {0};
					memcpy(b16, rows[i] + t, (size_t)(tp - t));
					r.val[i] = vld1q_s8(b16);
				}
			}
			vst4q_s8(o + 4 * t, r);
		}
	}
}

/* acc rows j < 4 (stride TPr), CQ_DNP pixels from t0: sum x w - corr[j];
 * 16 accumulators in named registers (an array of them stays in memory),
 * per quad 4 panel registers (4 pixels each) and the 4 channels' weight
 * quads in one, sdot by lane; two quads per iteration (26 registers) */
#define CQ_NSD(j, x, w) \
	a##j##0 = vdotq_laneq_s32(a##j##0, x.val[0], w, j), a##j##1 = vdotq_laneq_s32(a##j##1, x.val[1], w, j), \
	a##j##2 = vdotq_laneq_s32(a##j##2, x.val[2], w, j), a##j##3 = vdotq_laneq_s32(a##j##3, x.val[3], w, j)
#define CQ_NQUAD(x, w) CQ_NSD(0, x, w); CQ_NSD(1, x, w); CQ_NSD(2, x, w); CQ_NSD(3, x, w)
#define CQ_NROW(j, OP) OP(j, 0); OP(j, 1); OP(j, 2); OP(j, 3)
#define CQ_NALL(OP) CQ_NROW(0, OP); CQ_NROW(1, OP); CQ_NROW(2, OP); CQ_NROW(3, OP)
#define CQ_NINIT(j, i) a##j##i = first ? vdupq_n_s32(-corr[j]) : vld1q_s32(acc + (size_t)(j) * TPr + t0 + 4 * (i))
#define CQ_NSTORE(j, i) vst1q_s32(acc + (size_t)(j) * TPr + t0 + 4 * (i), a##j##i)
static void cq_dmicro(const void *panel, int TPr, int Kq, int t0, const int8_t *restrict wb, const int32_t *wide,
		      const int32_t *corr, int first, int32_t *restrict acc)
{
	int32x4_t a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23, a30, a31, a32, a33;
	(void)wide;
	CQ_NALL(CQ_NINIT);
	const int8_t *pp = (const int8_t *)panel + (size_t)t0 * 4;
	size_t step = (size_t)TPr * 4;
	int q = 0;
	for (; q + 2 <= Kq; q += 2, pp += 2 * step, wb += 8 * CQ_NR) {
		int8x16x4_t x0 = vld1q_s8_x4(pp), x1 = vld1q_s8_x4(pp + step);
		int8x16_t w0 = vld1q_s8(wb), w1 = vld1q_s8(wb + 4 * CQ_NR);
		CQ_NQUAD(x0, w0);
		CQ_NQUAD(x1, w1);
	}
	if (q < Kq) {
		int8x16x4_t x0 = vld1q_s8_x4(pp);
		int8x16_t w0 = vld1q_s8(wb);
		CQ_NQUAD(x0, w0);
	}
	CQ_NALL(CQ_NSTORE);
}
#undef CQ_NSTORE
#undef CQ_NINIT
#undef CQ_NALL
#undef CQ_NROW
#undef CQ_NQUAD
#undef CQ_NSD
#elif defined(CQ_MVE)
/* panel rows of pixels: pixel t's x of k0 .. k0 + KC - 1 at t KC (x itself,
 * ZX for padding, 0 past K against zero weights; pixels tp .. TPr - 1: 0),
 * in half the int16 panel's bytes: 4 rows at a time, each pixel's quad
 * built in a 32-bit lane (vsli) and scattered to its pixel (vstrw). Not
 * inlined: inlined (into npu_run's op dispatch) gcc 12 gave that frame
 * 800 more bytes, the M55's whole stack for a model growing by as much */
__attribute__((noinline))
static void cq_dstage(const cq_geo *g, const int8_t *xg, int32_t ZX, int p0, int tp, int TPr, int k0, int KC,
		      void *panel, int8_t *tmp)
{
	int8_t *pn = panel;
	cq_tap tap;
	cq_tap_at(g, &tap, k0, p0);
	const uint32_t o4[4] = {0, (uint32_t)KC, 2 * (uint32_t)KC, 3 * (uint32_t)KC};
	uint32x4_t offs = vldrwq_u32(o4);
	for (int c = 0; c < KC; c += 4) {
		const int8_t *rows[4];
		for (int i = 0; i < 4; i++)
			rows[i] = cq_srow(g, xg, ZX, &tap, tp, tmp + (size_t)i * TPr);
		for (int t = 0; t < tp; t += 4) {
			mve_pred16_t pr = vctp32q((uint32_t)(tp - t));
			uint32x4_t v = rows[0] ? vldrbq_z_u32((const uint8_t *)rows[0] + t, pr) : vdupq_n_u32(0);
			if (rows[1])
				v = vsliq_n_u32(v, vldrbq_z_u32((const uint8_t *)rows[1] + t, pr), 8);
			if (rows[2])
				v = vsliq_n_u32(v, vldrbq_z_u32((const uint8_t *)rows[2] + t, pr), 16);
			if (rows[3])
				v = vsliq_n_u32(v, vldrbq_z_u32((const uint8_t *)rows[3] + t, pr), 24);
			vstrwq_scatter_offset_p_u32((uint32_t *)(void *)(pn + (size_t)t * KC + c), offs, v, pr);
		}
	}
	if (tp < TPr)
		memset(pn + (size_t)tp * KC, 0, (size_t)(TPr - tp) * KC);
}

/* A block's chunk of kc k for cq_dmicro, once per block (cq_panel_conv):
 * each 4 channels' quads regrouped by 16 k, [kc / 16][4][16], then the
 * last kc % 16 k as [4][kc % 16] (so that one pointer walks the weights:
 * the loop's 8 sums, 3 pointers and its counter stay in registers);
 * channels 4 .. 7 4 kc bytes after channels 0 .. 3 (CQ_WIDE) */
static void cq_mve_regroup(const int8_t *wb, int kc, int8_t *wr)
{
	int full = kc / 16, rem = kc % 16;
	for (int h = 0; h < CQ_NR; h += 4, wr += 4 * (size_t)kc)
		for (int j = 0; j < 4; j++)
			for (int k = 0; k < kc; k += 4) {
				int c = k / 16;
				int8_t *d = c < full ? wr + (size_t)c * 64 + 16 * j + k % 16 : wr + (size_t)full * 64 + j * rem + (k - 16 * full);
				memcpy(d, wb + (size_t)k * CQ_NR + 4 * (h + j), 4);
			}
}

/* acc rows j < 4 (stride TPr), CQ_DNP pixels from t0: sum x w - corr[j],
 * the 4 channels' weights regrouped in wide (cq_mve_regroup); 2 pixels x 4
 * channels, vmladava on 16 k at a time (the last vector predicated) */
static void cq_dmicro(const void *panel, int TPr, int Kq, int t0, const int8_t *restrict wb, const int32_t *wide,
		      const int32_t *corr, int first, int32_t *restrict acc)
{
	int kc = 4 * Kq, full = kc / 16, rem = kc % 16;
	const int8_t *wr = (const int8_t *)(const void *)wide, *wt = wr + (size_t)full * 64;
	(void)wb;
	for (int t = t0; t < t0 + CQ_DNP; t += 2) {
		const int8_t *x0 = (const int8_t *)panel + (size_t)t * kc, *x1 = x0 + kc, *wp = wr;
		int32_t a00, a01, a10, a11, a20, a21, a30, a31;
		int32_t *ap = acc + t;
		if (first) {
			a00 = a01 = -corr[0], a10 = a11 = -corr[1], a20 = a21 = -corr[2], a30 = a31 = -corr[3];
		} else {
			a00 = ap[0], a01 = ap[1], a10 = ap[TPr], a11 = ap[TPr + 1];
			a20 = ap[2 * (size_t)TPr], a21 = ap[2 * (size_t)TPr + 1];
			a30 = ap[3 * (size_t)TPr], a31 = ap[3 * (size_t)TPr + 1];
		}
		for (int c = 0; c < full; c++, x0 += 16, x1 += 16, wp += 64) {
			int8x16_t xa = vldrbq_s8(x0), xb = vldrbq_s8(x1), v = vldrbq_s8(wp);
			a00 = vmladavaq_s8(a00, xa, v), a01 = vmladavaq_s8(a01, xb, v);
			v = vldrbq_s8(wp + 16);
			a10 = vmladavaq_s8(a10, xa, v), a11 = vmladavaq_s8(a11, xb, v);
			v = vldrbq_s8(wp + 32);
			a20 = vmladavaq_s8(a20, xa, v), a21 = vmladavaq_s8(a21, xb, v);
			v = vldrbq_s8(wp + 48);
			a30 = vmladavaq_s8(a30, xa, v), a31 = vmladavaq_s8(a31, xb, v);
		}
		if (rem) {	/* 4, 8 or 12 k: the other lanes load as 0 */
			mve_pred16_t pr = vctp8q((uint32_t)rem);
			int8x16_t xa = vldrbq_z_s8(x0, pr), xb = vldrbq_z_s8(x1, pr), v = vldrbq_z_s8(wt, pr);
			a00 = vmladavaq_s8(a00, xa, v), a01 = vmladavaq_s8(a01, xb, v);
			v = vldrbq_z_s8(wt + rem, pr);
			a10 = vmladavaq_s8(a10, xa, v), a11 = vmladavaq_s8(a11, xb, v);
			v = vldrbq_z_s8(wt + 2 * rem, pr);
			a20 = vmladavaq_s8(a20, xa, v), a21 = vmladavaq_s8(a21, xb, v);
			v = vldrbq_z_s8(wt + 3 * rem, pr);
			a30 = vmladavaq_s8(a30, xa, v), a31 = vmladavaq_s8(a31, xb, v);
		}
		ap[0] = a00, ap[1] = a01, ap[TPr] = a10, ap[TPr + 1] = a11;
		ap[2 * (size_t)TPr] = a20, ap[2 * (size_t)TPr + 1] = a21;
		ap[3 * (size_t)TPr] = a30, ap[3 * (size_t)TPr + 1] = a31;
	}
}
#else
/* panel rows of pairs: x - ZX as int16 of rows k, k + 1 (NULL past K: 0) */
static void cq_dstage(const cq_geo *g, const int8_t *xg, int32_t ZX, int p0, int tp, int TPr, int k0, int KC,
		      void *panel, int8_t *tmp)
{
	int16_t *pn = panel;
	cq_tap tap;
	cq_tap_at(g, &tap, k0, p0);
	for (int c = k0; c < k0 + KC; c += 2) {
		int16_t *o = pn + (size_t)(c - k0) * TPr;
		const int8_t *r0 = cq_srow(g, xg, ZX, &tap, tp, tmp);
		const int8_t *r1 = cq_srow(g, xg, ZX, &tap, tp, tmp + TPr);
		int t = 0;
#if !defined(NPU_NO_SIMD) && defined(__SSE2__)
		if (r0 && r1) {
			__m128i z = _mm_set1_epi16((int16_t)ZX);
			for (; t + 16 <= tp; t += 16) {
				__m128i u = _mm_loadu_si128((const __m128i *)(const void *)(r0 + t));
				__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(r1 + t));
				__m128i ul = _mm_sub_epi16(_mm_srai_epi16(_mm_unpacklo_epi8(u, u), 8), z);
				__m128i uh = _mm_sub_epi16(_mm_srai_epi16(_mm_unpackhi_epi8(u, u), 8), z);
				__m128i vl = _mm_sub_epi16(_mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8), z);
				__m128i vh = _mm_sub_epi16(_mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8), z);
				_mm_storeu_si128((__m128i *)(void *)(o + 2 * t), _mm_unpacklo_epi16(ul, vl));
				_mm_storeu_si128((__m128i *)(void *)(o + 2 * t + 8), _mm_unpackhi_epi16(ul, vl));
				_mm_storeu_si128((__m128i *)(void *)(o + 2 * t + 16), _mm_unpacklo_epi16(uh, vh));
				_mm_storeu_si128((__m128i *)(void *)(o + 2 * t + 24), _mm_unpackhi_epi16(uh, vh));
			}
		}
#endif
		for (; t < tp; t++) {
			o[2 * t] = (int16_t)(r0 ? r0[t] - ZX : 0);
			o[2 * t + 1] = (int16_t)(r1 ? r1[t] - ZX : 0);
		}
		for (; t < TPr; t++)
			o[2 * t] = o[2 * t + 1] = 0;
	}
}

/* acc rows j < 4 (stride TPr), CQ_DNP pixels from t0: sum (x - ZX) w, the
 * weight pair of channel j for channel pair h at wide[(h / 2) 16 + 2 j +
 * h % 2] (the packed quads widened to int16) */
#if !defined(NPU_NO_SIMD) && defined(__AVX2__)
static void cq_dmicro(const void *panel, int TPr, int Kq, int t0, const int8_t *restrict wb, const int32_t *wide,
		      const int32_t *corr, int first, int32_t *restrict acc)
{
	const int16_t *pp = (const int16_t *)panel + (size_t)t0 * 2;
	__m256i a00 = _mm256_setzero_si256(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00,
		a31 = a00;
	(void)wb, (void)corr;
	if (!first) {
		a00 = CQ_LDA(0, 0), a01 = CQ_LDA(0, 8), a10 = CQ_LDA(1, 0), a11 = CQ_LDA(1, 8);
		a20 = CQ_LDA(2, 0), a21 = CQ_LDA(2, 8), a30 = CQ_LDA(3, 0), a31 = CQ_LDA(3, 8);
	}
	for (int h = 0; h < 2 * Kq; h++, pp += (size_t)TPr * 2) {
		const int32_t *wp = wide + (h >> 1) * 16 + (h & 1);
		__m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)pp);
		__m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(pp + 16));
		__m256i v = _mm256_set1_epi32(wp[0]);
		a00 = CQ_DPW(a00, x0, v), a01 = CQ_DPW(a01, x1, v);
		v = _mm256_set1_epi32(wp[2]);
		a10 = CQ_DPW(a10, x0, v), a11 = CQ_DPW(a11, x1, v);
		v = _mm256_set1_epi32(wp[4]);
		a20 = CQ_DPW(a20, x0, v), a21 = CQ_DPW(a21, x1, v);
		v = _mm256_set1_epi32(wp[6]);
		a30 = CQ_DPW(a30, x0, v), a31 = CQ_DPW(a31, x1, v);
	}
	__m256i r[8] = {a00, a01, a10, a11, a20, a21, a30, a31};
	for (int j = 0; j < 4; j++) {
		_mm256_storeu_si256((__m256i *)(void *)(acc + (size_t)j * TPr + t0), r[2 * j]);
		_mm256_storeu_si256((__m256i *)(void *)(acc + (size_t)j * TPr + t0 + 8), r[2 * j + 1]);
	}
}
#elif !defined(NPU_NO_SIMD) && defined(__SSE2__)
static void cq_dmicro(const void *panel, int TPr, int Kq, int t0, const int8_t *restrict wb, const int32_t *wide,
		      const int32_t *corr, int first, int32_t *restrict acc)
{
	(void)wb, (void)corr;
	for (int half = 0; half < CQ_DNP; half += 8) {
		const int16_t *pp = (const int16_t *)panel + (size_t)(t0 + half) * 2;
		__m128i a00 = _mm_setzero_si128(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00,
			a31 = a00;
		if (!first) {
			int32_t *ap = acc + t0 + half;
			a00 = CQ_LDA4(0, 0), a01 = CQ_LDA4(0, 4), a10 = CQ_LDA4(1, 0), a11 = CQ_LDA4(1, 4);
			a20 = CQ_LDA4(2, 0), a21 = CQ_LDA4(2, 4), a30 = CQ_LDA4(3, 0), a31 = CQ_LDA4(3, 4);
		}
		/* per quad, channels 0-1 and 2-3 as (pair 0, pair 1) int32 lanes:
		 * pshufd broadcasts each */
		const int16_t *wq = (const int16_t *)(const void *)wide;
		for (int q = 0; q < Kq; q++, wq += 4 * CQ_NR) {
			__m128i w01 = _mm_loadu_si128((const __m128i *)(const void *)wq);
			__m128i w23 = _mm_loadu_si128((const __m128i *)(const void *)(wq + 8));
			for (int e = 0; e < 2; e++, pp += (size_t)TPr * 2) {
				__m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)pp);
				__m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(pp + 8));
				__m128i v0 = e ? _mm_shuffle_epi32(w01, 0x55) : _mm_shuffle_epi32(w01, 0x00);
				__m128i v1 = e ? _mm_shuffle_epi32(w01, 0xff) : _mm_shuffle_epi32(w01, 0xaa);
				__m128i v2 = e ? _mm_shuffle_epi32(w23, 0x55) : _mm_shuffle_epi32(w23, 0x00);
				__m128i v3 = e ? _mm_shuffle_epi32(w23, 0xff) : _mm_shuffle_epi32(w23, 0xaa);
				a00 = _mm_add_epi32(a00, _mm_madd_epi16(x0, v0)), a01 = _mm_add_epi32(a01, _mm_madd_epi16(x1, v0));
				a10 = _mm_add_epi32(a10, _mm_madd_epi16(x0, v1)), a11 = _mm_add_epi32(a11, _mm_madd_epi16(x1, v1));
				a20 = _mm_add_epi32(a20, _mm_madd_epi16(x0, v2)), a21 = _mm_add_epi32(a21, _mm_madd_epi16(x1, v2));
				a30 = _mm_add_epi32(a30, _mm_madd_epi16(x0, v3)), a31 = _mm_add_epi32(a31, _mm_madd_epi16(x1, v3));
			}
		}
		__m128i r[8] = {a00, a01, a10, a11, a20, a21, a30, a31};
		for (int j = 0; j < 4; j++) {
			_mm_storeu_si128((__m128i *)(void *)(acc + (size_t)j * TPr + t0 + half), r[2 * j]);
			_mm_storeu_si128((__m128i *)(void *)(acc + (size_t)j * TPr + t0 + half + 4), r[2 * j + 1]);
		}
	}
}
#elif !defined(NPU_NO_SIMD) && defined(__ARM_NEON) && defined(__aarch64__)
/* NEON: smlal by weight lane on the pairs deinterleaved (ld2), 4 channels
 * x 16 pixels in 16 accumulators (named registers: an array of them stays
 * in memory); per quad the weights of channels 0-1 and 2-3 as int16
 * (lanes 4 j + k % 4) */
#define CQ_NMLA(j, w, l) \
	a##j##0 = vmlal_laneq_s16(a##j##0, vget_low_s16(xa), w, l), a##j##1 = vmlal_high_laneq_s16(a##j##1, xa, w, l), \
	a##j##2 = vmlal_laneq_s16(a##j##2, vget_low_s16(xb), w, l), a##j##3 = vmlal_high_laneq_s16(a##j##3, xb, w, l)
#define CQ_NPAIR(e) \
	do { \
		int16x8x2_t A = vld2q_s16(pp), B = vld2q_s16(pp + 16); \
		int16x8_t xa = A.val[0], xb = B.val[0]; \
		CQ_NMLA(0, w01, 2 * (e)); CQ_NMLA(1, w01, 4 + 2 * (e)); \
		CQ_NMLA(2, w23, 2 * (e)); CQ_NMLA(3, w23, 4 + 2 * (e)); \
		xa = A.val[1], xb = B.val[1]; \
		CQ_NMLA(0, w01, 2 * (e) + 1); CQ_NMLA(1, w01, 5 + 2 * (e)); \
		CQ_NMLA(2, w23, 2 * (e) + 1); CQ_NMLA(3, w23, 5 + 2 * (e)); \
		pp += (size_t)TPr * 2; \
	} while (0)
#define CQ_NROW(j, OP) OP(j, 0); OP(j, 1); OP(j, 2); OP(j, 3)
#define CQ_NALL(OP) CQ_NROW(0, OP); CQ_NROW(1, OP); CQ_NROW(2, OP); CQ_NROW(3, OP)
#define CQ_NINIT(j, i) a##j##i = first ? vdupq_n_s32(0) : vld1q_s32(acc + (size_t)(j) * TPr + t0 + 4 * (i))
#define CQ_NSTORE(j, i) vst1q_s32(acc + (size_t)(j) * TPr + t0 + 4 * (i), a##j##i)
static void cq_dmicro(const void *panel, int TPr, int Kq, int t0, const int8_t *restrict wb, const int32_t *wide,
		      const int32_t *corr, int first, int32_t *restrict acc)
{
	int32x4_t a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23, a30, a31, a32, a33;
	(void)wb, (void)corr;
	CQ_NALL(CQ_NINIT);
	const int16_t *pp = (const int16_t *)panel + (size_t)t0 * 2;
	const int16_t *wq = (const int16_t *)(const void *)wide;
	for (int q = 0; q < Kq; q++, wq += 4 * CQ_NR) {
		int16x8_t w01 = vld1q_s16(wq), w23 = vld1q_s16(wq + 8);
		CQ_NPAIR(0);
		CQ_NPAIR(1);
	}
	CQ_NALL(CQ_NSTORE);
}
#undef CQ_NSTORE
#undef CQ_NINIT
#undef CQ_NALL
#undef CQ_NROW
#undef CQ_NPAIR
#undef CQ_NMLA
#elif !defined(NPU_NO_SIMD) && defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32) && \
	!(defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1))
/* Cortex-M DSP: a panel word is one pixel's pair (x_k, x_k+1) and a wide
 * word one channel's (w_k, w_k+1): SMLAD adds both products; 4 channels x
 * 2 pixels at a time in 8 registers */
static void cq_dmicro(const void *panel, int TPr, int Kq, int t0, const int8_t *restrict wb, const int32_t *wide,
		      const int32_t *corr, int first, int32_t *restrict acc)
{
	(void)wb, (void)corr;
	for (int t = t0; t < t0 + CQ_DNP; t += 2) {
		int32_t a[4][2];
		for (int j = 0; j < 4; j++)
			for (int i = 0; i < 2; i++)
				a[j][i] = first ? 0 : acc[(size_t)j * TPr + t + i];
		const int16_t *pp = (const int16_t *)panel + (size_t)t * 2;
		for (int h = 0; h < 2 * Kq; h++, pp += (size_t)TPr * 2) {
			uint32_t x0, x1;
			memcpy(&x0, pp, 4);
			memcpy(&x1, pp + 2, 4);
			const int32_t *wp = wide + (h >> 1) * 16 + (h & 1);
			for (int j = 0; j < 4; j++) {
				uint32_t w = (uint32_t)wp[2 * j];
				a[j][0] = __smlad(x0, w, a[j][0]);
				a[j][1] = __smlad(x1, w, a[j][1]);
			}
		}
		for (int j = 0; j < 4; j++)
			for (int i = 0; i < 2; i++)
				acc[(size_t)j * TPr + t + i] = a[j][i];
	}
}
#else
/* portable C (compilers vectorize the pixel loop) */
static void cq_dmicro(const void *panel, int TPr, int Kq, int t0, const int8_t *restrict wb, const int32_t *wide,
		      const int32_t *corr, int first, int32_t *restrict acc)
{
	int32_t a[4][CQ_DNP];
	(void)wb, (void)corr;
	for (int j = 0; j < 4; j++)
		for (int t = 0; t < CQ_DNP; t++)
			a[j][t] = first ? 0 : acc[(size_t)j * TPr + t0 + t];
	const int16_t *pp = (const int16_t *)panel + (size_t)t0 * 2;
	for (int h = 0; h < 2 * Kq; h++, pp += (size_t)TPr * 2) {
		const int32_t *wp = wide + (h >> 1) * 16 + (h & 1);
		for (int j = 0; j < 4; j++) {
			int16_t w2[2];
			memcpy(w2, wp + 2 * j, 4);
			int32_t w0 = w2[0], w1 = w2[1];
			for (int t = 0; t < CQ_DNP; t++)
				a[j][t] += pp[2 * t] * w0 + pp[2 * t + 1] * w1;
		}
	}
	for (int j = 0; j < 4; j++)
		for (int t = 0; t < CQ_DNP; t++)
			acc[(size_t)j * TPr + t0 + t] = a[j][t];
}
#endif
#endif

/* requantize no rows (stride TPr) of tp pixels for channels oc .. */
static void cq_panel_out(const int32_t *p, void *const *a, int n, int oc, int no, int p0, int tp, const int32_t *ab,
			 int TPr, const int32_t *csum)
{
	const int32_t *bias = a[2], *mult = a[3], *shift = a[4], *wzp = a[5];
	size_t P = (size_t)p[NPU_CV_OH] * p[NPU_CV_OW];
#if defined(CQ_RQ512)
	/* int8 out: cq_requant's unsigned path on AVX-512 with no call per
	 * row (cq_rq512); rows it does not take go to cq_requant */
	if (p[NPU_CV_YT] == NPU_T_I8) {
		for (int o = 0; o < no; o++) {
			int c = oc + o, s = rt_shift(shift[c]);
			int32_t b = bias ? bias[c] : 0, z = csum ? wzp[c] : 0;
			const int32_t *ar = ab + (size_t)o * TPr;
			size_t at = ((size_t)n * p[NPU_CV_OC] + c) * P + p0;
			rt_uq q;
			if (b > -(1 << 30) && b < (1 << 30) && mult[c] >= 0 &&
			    rt_uq_init(&q, s, 62, (uint64_t)mult[c] << 31, p[NPU_CV_ZY], p[NPU_CV_LO], p[NPU_CV_HI]) == 0 &&
			    cq_rq512_i8(&q)) {
				cq_rq512 r;
				cq_rq512_set(&r, &q, (uint32_t)mult[c], s);
				const __m512i vb = _mm512_set1_epi32((int32_t)((uint32_t)b + 0x80000000u));
				const __m512i vz = _mm512_set1_epi32(z);
				int8_t *yp = (int8_t *)a[6] + at;
				int i = 0;
#if defined(__AVX512BW__)
#define CQ_RQ(j) \
	cq_rq512_do(&r, _mm512_add_epi32(csum ? _mm512_sub_epi32(_mm512_loadu_si512(ar + i + (j)), \
							   _mm512_mullo_epi32(vz, _mm512_loadu_si512(csum + i + (j)))) \
					      : _mm512_loadu_si512(ar + i + (j)), vb))
				/* 64 at a time narrowed by saturating packs (per 128-bit
				 * lane; the dwords put in order after) and one store */
				const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
				for (; i + 64 <= tp; i += 64) {
					__m512i lo = _mm512_packs_epi32(CQ_RQ(0), CQ_RQ(16));
					__m512i hi = _mm512_packs_epi32(CQ_RQ(32), CQ_RQ(48));
					_mm512_storeu_si512(yp + i, _mm512_permutexvar_epi32(order, _mm512_packs_epi16(lo, hi)));
				}
#undef CQ_RQ
#endif
				for (; i < tp; i += 16) {
					__mmask16 k = tp - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (tp - i)) - 1);
					__m512i v = _mm512_maskz_loadu_epi32(k, ar + i);
					if (csum)
						v = _mm512_sub_epi32(v, _mm512_mullo_epi32(vz, _mm512_maskz_loadu_epi32(k, csum + i)));
					cq_rq512_st(yp + i, k, cq_rq512_do(&r, _mm512_add_epi32(v, vb)));
				}
				continue;
			}
			cq_requant(a[6], NPU_T_I8, at, ar, csum, z, tp, 1, 0, b, mult[c], shift[c], p[NPU_CV_ZY], p[NPU_CV_LO],
				   p[NPU_CV_HI]);
		}
		return;
	}
#endif
	for (int o = 0; o < no; o++)
		cq_requant(a[6], p[NPU_CV_YT], ((size_t)n * p[NPU_CV_OC] + oc + o) * P + p0, ab + (size_t)o * TPr, csum,
			   csum ? wzp[oc + o] : 0, tp, 1, 0, bias ? bias[oc + o] : 0, mult[oc + o], shift[oc + o],
			   p[NPU_CV_ZY], p[NPU_CV_LO], p[NPU_CV_HI]);
}

#if defined(CQ_AMX)
/* The panel path on AMX tiles, in two forms. With K whole up to CQ_AWIDE
 * (cq_amx_wide): C (16 output channels x 16 pixels, int32)
 * += A (16 channels x KW k of weights, int8) times B (KW / 4 quads x 16
 * pixels x 4 k of u = x ^ 0x80, uint8) with tdpbsud. B is the VNNI
 * path's panel ([Kp/4][TPa][4], rows of a tile's 16 pixels 64 bytes apart:
 * cq_dstage, or cq_bstage for windows), so the staging is an interleave of
 * 4 rows, not a transpose; C's rows are accumulator rows as they are (no transpose),
 * requantized by cq_panel_out. The weights, packed for the other paths
 * (blocks of 8 channels x quads), are regrouped into A tiles (rows of a
 * channel's KW k) per 4 blocks and CQ_AWK k (cq_amx_wpack, a dword
 * transpose), then held for the whole pixel tile: per step 2 A x 2 B -> 4
 * C tiles, 32 channels x 32 pixels. KW is 64 (the tile's width), or K
 * itself when it is shorter (a layer's own tile config: 1x1 convs of K 16
 * .. 60). Without weight zero points the pixel tile is twice the
 * geometry's (TPa = 2 TPr: quads take half the int16 panel's bytes), so
 * the weights are regrouped half as often, within the same scratch.
 * Regrouped weights and C rows live on the stack (16 + 32 KiB; x86-64
 * Linux only). sum (x - ZX) w = C - (128 + ZX) sum w (corr), exact as the
 * VNNI path. Tile registers: C 0-3, A 4-5, B 6-7. */
/* the tile data state: cq_amx_ready (above the CONV_Q kernels, shared
 * with CONV_NHWC_Q); refused: the VNNI path */

#define CQ_AWIDE 1024	/* the 16 x 16 form up to this K (measured: bench/conv_q.sh) */

/* whether the panel runs on 16 x 16 tiles: K whole (the pixel tiles
 * double), at most CQ_AWIDE, and pixel tiles of at least a quarter of the
 * output channels: per MAC the 16 x 16 form regroups weights once per
 * pixel tile, the 16 x 8 form transposes pixels once per channel (3x3 s2
 * 64->128 and 1x1 960->160 7x7, pixel tiles of 32, ran faster on it);
 * else on the 16 x 8 form (cq_amx_tile) */
static int cq_amx_wide(const cq_geo *g)
{
	return g->KC >= g->Kp && g->Kp <= CQ_AWIDE && 4 * g->TP >= g->og;
}

/* whether cq_panel_conv runs on tiles: the tile state granted, and the 16
 * x 16 form (its quads take at most the int16 panel's bytes) or A of the
 * 16 x 8 form (TPr rows of a K chunk rounded up to 64) within the panel
 * area ow */
static int cq_amx_use(const cq_geo *g, int TPr, size_t ow)
{
	int kc = g->KC < g->Kp ? g->KC : g->Kp;
	size_t abo = ((size_t)TPr * (size_t)((kc + 63) & ~63) + 63) & ~(size_t)63;
	return (cq_amx_wide(g) || abo <= ow) && cq_amx_ready();
}

/* the 16 x 16 form's k per step: 64, or a shorter K as it is (a multiple of 4) */
static int cq_amx_kw(const cq_geo *g)
{
	int kc = g->KC < g->Kp ? g->KC : g->Kp;
	return kc < 64 ? kc : 64;
}

/* whether the pixel tile doubles (TPa = 2 TPr): K whole, no weight zero
 * points (their pixel sums have TPr places), more pixels than a tile */
static int cq_amx_pair(const cq_geo *g, const void *wzp)
{
	return g->KC >= g->Kp && !wzp && g->P > g->TP;
}

/* palette 1: C 0-3 16 rows x 64 bytes, A 4-5 16 rows x kw bytes, B 6-7
 * kw / 4 rows x 64 bytes (bytes 16 + 2 i: tile i's row length, 48 + i: its
 * rows); the barrier keeps gcc from dropping the stores to the local
 * object, which it does not see the ldtilecfg builtin read */
static void cq_amx_config(int kw)
{
	uint8_t cfg[64] = {0};
	cfg[0] = 1;
	for (int i = 0; i < 8; i++) {
		cfg[16 + 2 * i] = (uint8_t)(i == 4 || i == 5 ? kw : 64);
		cfg[48 + i] = (uint8_t)(i >= 6 ? kw / 4 : 16);
	}
	__asm__ volatile("" : : "r"(cfg) : "memory");
	_tile_loadconfig(cfg);
}

#define CQ_AWK 512	/* k of the weights regrouped at a time (32 channels: 16 KiB) */
#define CQ_ASL 256	/* pixels requantized at a time (32 rows: 32 KiB) */

/* A tiles for up to 4 blocks (nbk) from wb (bstride apart): quads q0 ..
 * q0 + 15 of each block as 8 rows of 16 dwords (channel rows), quads
 * outside [qlo, qhi) zero; blocks 0-1 the first tile's rows 0-7, 8-15,
 * blocks 2-3 the second's. A dword transpose [16 quads][8 channels] ->
 * [8][16] in three rounds of permutes, each swapping a bit of the register
 * index (quad bits 0-2, quad bit 3 in the lane) with one of the lane
 * (channel bits). */
static void cq_amx_wpack(const int8_t *wb, size_t bstride, int nbk, int nt, int q0, int qlo, int qhi, uint8_t *dst)
{
	static const int32_t ix[3][2][16] = {
		{{0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30},
		 {1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31}},
		{{0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29},
		 {2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31}},
		{{0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27},
		 {4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31}},
	};
	for (int j = 0; j < 2 * nt; j++) {
		uint8_t *d = dst + (size_t)(j >> 1) * 1024 + (size_t)(j & 1) * 512;
		if (j >= nbk) {
			memset(d, 0, 512);
			continue;
		}
		const int8_t *b = wb + (size_t)j * bstride;
		__m512i z[8], t[8];
		for (int i = 0; i < 8; i++) {	/* register i: quads q0 + i, q0 + i + 8 */
			int qa = q0 + i, qb = q0 + i + 8;
			__m256i lo = qa >= qlo && qa < qhi ? _mm256_loadu_si256((const __m256i *)(const void *)(b + (size_t)qa * 32))
							   : _mm256_setzero_si256();
			__m256i hi = qb >= qlo && qb < qhi ? _mm256_loadu_si256((const __m256i *)(const void *)(b + (size_t)qb * 32))
							   : _mm256_setzero_si256();
			z[i] = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
		}
		/* round r pairs registers i, i | m (m = 1 << r), unrolled so that
		 * z and t stay in registers */
#define CQ_AWP(r, i, m)                                                                  \
	(t[i] = _mm512_permutex2var_epi32(z[i], i0, z[(i) | (m)]),                        \
	 t[(i) | (m)] = _mm512_permutex2var_epi32(z[i], i1, z[(i) | (m)]))
#define CQ_AWR(r, m, a, b, c, e)                                                          \
	do {                                                                              \
		__m512i i0 = _mm512_loadu_si512((const void *)ix[r][0]);                  \
		__m512i i1 = _mm512_loadu_si512((const void *)ix[r][1]);                  \
		CQ_AWP(r, a, m), CQ_AWP(r, b, m), CQ_AWP(r, c, m), CQ_AWP(r, e, m);       \
		for (int i = 0; i < 8; i++)                                               \
			z[i] = t[i];                                                      \
	} while (0)
		CQ_AWR(0, 1, 0, 2, 4, 6);
		CQ_AWR(1, 2, 0, 1, 4, 5);
		CQ_AWR(2, 4, 0, 1, 2, 3);
#undef CQ_AWR
#undef CQ_AWP
		for (int c = 0; c < 8; c++)
			_mm512_storeu_si512((void *)(d + (size_t)c * 64), z[c]);
	}
}

/* B for cq_amx_conv: the quads of cq_dstage (u = x ^ 0x80 of k .. k + 3,
 * 0 past K, rows TPa * 4 bytes apart) for a window's taps, stride 1 or 2
 * (KW <= 16): per output row of the tile and 16 of its pixels, a tap's
 * row is one masked load (ZX where the window leaves x, every other byte
 * kept for stride 2), 4 taps interleaved into a masked store; pixels past
 * tp are left as they are (their sums are not requantized). Else, and for
 * a direct 1x1 (rows of x as they are), cq_dstage. */
static void cq_bstage(const cq_geo *g, const int8_t *xg, int32_t ZX, int p0, int tp, int TPa, int k0, int kc,
		      uint8_t *B, int8_t *tmp)
{
	int SW = g->SW, KW = g->KW, taps = g->KH * KW, lo[16], hi[16];
	if (g->direct || SW > 2 || KW > 16) {
		cq_dstage(g, xg, ZX, p0, tp, TPa, k0, kc, B, tmp);
		return;
	}
	for (int kw = 0; kw < KW; kw++)	/* the output columns whose tap kw is inside x */
		cq_range(kw * g->DW - g->PL, SW, g->W, g->OW, &lo[kw], &hi[kw]);
	size_t plane = (size_t)g->H * g->W, bs = (size_t)TPa * 4;
	const __m128i f = _mm_set1_epi8((char)0x80), zu = _mm_set1_epi8((char)(ZX ^ 0x80));
	int oh = p0 / g->OW, ow0 = p0 % g->OW;
	for (int t = 0; t < tp; oh++, ow0 = 0) {
		int n = g->OW - ow0 < tp - t ? g->OW - ow0 : tp - t, ihb = oh * g->SH - g->PT;
		int o = 0;
		for (; n - o >= 64; o += 64) {	/* 64 pixels: zmm rows, 4 tap rows to 4 x 16 quads */
			int ob = ow0 + o;
			uint8_t *dst = B + (size_t)(t + o) * 4;
			int k = k0, ic = k / taps, kh = k % taps / KW, kw = k % KW;
			const __m512i f5 = _mm512_set1_epi8((char)0x80), z5 = _mm512_set1_epi8((char)ZX);
			for (int c = 0; c < kc; c += 4, dst += bs) {
				__m512i r[4];
				for (int i = 0; i < 4; i++, k++) {
					if (k >= g->K) {
						r[i] = _mm512_setzero_si512();
						continue;
					}
					int ih = ihb + kh * g->DH;
					if (ih < 0 || ih >= g->H) {
						r[i] = _mm512_xor_si512(z5, f5);
					} else {
						int a = lo[kw] - ob, b = hi[kw] - ob;
						a = a < 0 ? 0 : a, b = b > 64 ? 64 : b;
						uint64_t mk = b > a ? (b == 64 ? ~(uint64_t)0 : ((uint64_t)1 << b) - 1) & ~(((uint64_t)1 << a) - 1) : 0;
						uintptr_t at = (uintptr_t)(xg + (size_t)ic * plane + (size_t)ih * g->W) +
							       (uintptr_t)(intptr_t)(ob * SW - g->PL + kw * g->DW);
						if (SW == 1) {
							r[i] = _mm512_mask_loadu_epi8(z5, (__mmask64)mk, (const void *)at);
						} else {	/* outputs 32 h + j at byte 64 h + 2 j */
							__m256i hv[2];
							for (int h = 0; h < 2; h++) {
								uint64_t e = (mk >> (32 * h)) & 0xffffffffu;
								e = (e | e << 16) & 0x0000ffff0000ffffu, e = (e | e << 8) & 0x00ff00ff00ff00ffu;
								e = (e | e << 4) & 0x0f0f0f0f0f0f0f0fu, e = (e | e << 2) & 0x3333333333333333u;
								e = (e | e << 1) & 0x5555555555555555u;
								hv[h] = _mm512_cvtepi16_epi8(
									_mm512_mask_loadu_epi8(z5, (__mmask64)e, (const void *)(at + 64 * (uintptr_t)h)));
							}
							r[i] = _mm512_inserti64x4(_mm512_castsi256_si512(hv[0]), hv[1], 1);
						}
						r[i] = _mm512_xor_si512(r[i], f5);
					}
					if (++kw == KW) {
						kw = 0;
						if (++kh == g->KH)
							kh = 0, ic++;
					}
				}
				/* per 128-bit lane L (pixels 16 L ..): q0 .. q3 its pixels' quads
				 * 0-3, 4-7, 8-11, 12-15; then lane L of each into one row */
				__m512i t0 = _mm512_unpacklo_epi8(r[0], r[1]), t1 = _mm512_unpackhi_epi8(r[0], r[1]);
				__m512i t2 = _mm512_unpacklo_epi8(r[2], r[3]), t3 = _mm512_unpackhi_epi8(r[2], r[3]);
				__m512i q0 = _mm512_unpacklo_epi16(t0, t2), q1 = _mm512_unpackhi_epi16(t0, t2);
				__m512i q2 = _mm512_unpacklo_epi16(t1, t3), q3 = _mm512_unpackhi_epi16(t1, t3);
				__m512i u0 = _mm512_shuffle_i32x4(q0, q1, 0x44), u1 = _mm512_shuffle_i32x4(q0, q1, 0xee);
				__m512i u2 = _mm512_shuffle_i32x4(q2, q3, 0x44), u3 = _mm512_shuffle_i32x4(q2, q3, 0xee);
				_mm512_storeu_si512((void *)dst, _mm512_shuffle_i32x4(u0, u2, 0x88));
				_mm512_storeu_si512((void *)(dst + 64), _mm512_shuffle_i32x4(u0, u2, 0xdd));
				_mm512_storeu_si512((void *)(dst + 128), _mm512_shuffle_i32x4(u1, u3, 0x88));
				_mm512_storeu_si512((void *)(dst + 192), _mm512_shuffle_i32x4(u1, u3, 0xdd));
			}
		}
		for (; o < n; o += 16) {
			int m = n - o < 16 ? n - o : 16, ob = ow0 + o;
			__mmask64 sm = m == 16 ? ~(__mmask64)0 : ((__mmask64)1 << (4 * m)) - 1;
			uint8_t *dst = B + (size_t)(t + o) * 4;
			int k = k0, ic = k / taps, kh = k % taps / KW, kw = k % KW;
			for (int c = 0; c < kc; c += 4, dst += bs) {
				__m128i r[4];
				for (int i = 0; i < 4; i++, k++) {
					if (k >= g->K) {
						r[i] = _mm_setzero_si128();
						continue;
					}
					int ih = ihb + kh * g->DH;
					if (ih < 0 || ih >= g->H) {
						r[i] = zu;
					} else {
						int a = lo[kw] - ob, b = hi[kw] - ob;
						a = a < 0 ? 0 : a, b = b > 16 ? 16 : b;
						uint32_t mk = b > a ? ((1u << b) - 1) & ~((1u << a) - 1) : 0;
						/* the address of output ob's tap (masked lanes are not read) */
						const void *ptr = (const void *)((uintptr_t)(xg + (size_t)ic * plane + (size_t)ih * g->W) +
										 (uintptr_t)(intptr_t)(ob * SW - g->PL + kw * g->DW));
						if (SW == 1) {
							r[i] = _mm_mask_loadu_epi8(_mm_set1_epi8((char)ZX), (__mmask16)mk, ptr);
						} else {	/* output j at byte 2 j: the mask's bits spread */
							mk = (mk | mk << 8) & 0x00ff00ffu, mk = (mk | mk << 4) & 0x0f0f0f0fu;
							mk = (mk | mk << 2) & 0x33333333u, mk = (mk | mk << 1) & 0x55555555u;
							r[i] = _mm256_cvtepi16_epi8(
								_mm256_mask_loadu_epi8(_mm256_set1_epi8((char)ZX), (__mmask32)mk, ptr));
						}
						r[i] = _mm_xor_si128(r[i], f);
					}
					if (++kw == KW) {
						kw = 0;
						if (++kh == g->KH)
							kh = 0, ic++;
					}
				}
				__m128i t0 = _mm_unpacklo_epi8(r[0], r[1]), t1 = _mm_unpackhi_epi8(r[0], r[1]);
				__m128i t2 = _mm_unpacklo_epi8(r[2], r[3]), t3 = _mm_unpackhi_epi8(r[2], r[3]);
				__m512i v = _mm512_castsi128_si512(_mm_unpacklo_epi16(t0, t2));
				v = _mm512_inserti32x4(v, _mm_unpackhi_epi16(t0, t2), 1);
				v = _mm512_inserti32x4(v, _mm_unpacklo_epi16(t1, t3), 2);
				v = _mm512_inserti32x4(v, _mm_unpackhi_epi16(t1, t3), 3);
				_mm512_mask_storeu_epi8(dst, sm, v);
			}
		}
		t += n;
	}
}

/* pixels p0 .. p0 + tp - 1 of image n, group gr, against the staged B
 * (TPa pixels' quads of all K, cap k of panel rows readable), 4 blocks
 * and CQ_ASL pixels at a time summed in cb (C tiles of 16 rows, where a
 * group's last block may have 8), - corr, and requantized */
static void cq_amx_conv(const int32_t *p, const cq_geo *g, void *const *a, int n, int gr, int p0, int tp, int TPa,
			const uint8_t *B, int cap, int kw, const int32_t *corr, const int32_t *csum)
{
	const int8_t *w = a[1];
	int nb = (g->og + CQ_NR - 1) / CQ_NR, kc = g->Kp, tpr = (tp + 15) & ~15;
	size_t bstride = (size_t)(g->Kp / 4) * 4 * CQ_NR, bs = (size_t)TPa * 4;
	uint8_t wt[CQ_AWK / 64][2][16][64] __attribute__((aligned(64)));	/* K chunks under 64: one step */
	int32_t cb[32][CQ_ASL] __attribute__((aligned(64)));
	for (int b = 0; b < nb; b += 4) {
		int nbk = nb - b < 4 ? nb - b : 4, nt = (nbk + 1) / 2;
		const int8_t *wb = w + ((size_t)gr * nb + (size_t)b) * bstride;
		for (int s0 = 0; s0 < tpr; s0 += CQ_ASL) {
			int tsl = tpr - s0 < CQ_ASL ? tpr - s0 : CQ_ASL, mt = tsl / 16;
			int nc = g->og - b * CQ_NR < nbk * CQ_NR ? g->og - b * CQ_NR : nbk * CQ_NR;
			int32_t *R = &cb[0][0];
			size_t rs = CQ_ASL, rb = rs * 4;
			for (int c0 = 0; c0 < kc; c0 += CQ_AWK) {
				int cn = kc - c0 < CQ_AWK ? kc - c0 : CQ_AWK, steps = (cn + kw - 1) / kw;
				int first = c0 == 0;
				int ws[CQ_AWK / 64];	/* each step's first k in B (the last one's moved back within cap) */
				for (int s = 0; s < steps; s++) {
					ws[s] = c0 + s * kw;
					if (ws[s] + kw > cap)
						ws[s] = cap - kw;
					if (s0 == 0 || kc > CQ_AWK) {
						int lo = c0 + s * kw, hi = lo + kw < c0 + cn ? lo + kw : c0 + cn;
						cq_amx_wpack(wb, bstride, nbk, nt, ws[s] / 4, lo / 4, hi / 4,
							     &wt[s][0][0][0]);
					}
				}
				/* one step from zero (K chunks up to 64): A stays in its tiles
				 * and the pixel tiles alternate between C 0, 2 (B 6) and C 1,
				 * 3 (B 7), so one's stores overlap the other's products
				 * (tiles are not renamed) */
				if (first && steps == 1) {
					const uint8_t *bq = B + (size_t)s0 * 4 + (size_t)(ws[0] / 4) * bs;
					_tile_loadd(4, &wt[0][0][0][0], 64);
					if (nt > 1)
						_tile_loadd(5, &wt[0][1][0][0], 64);
					for (int i = 0; i < mt; i++, bq += 64) {
						int32_t *r0 = R + (size_t)i * 16, *r1 = r0 + 16 * rs;
						if (i & 1) {
							_tile_zero(1);
							_tile_loadd(7, bq, bs);
							_tile_dpbsud(1, 4, 7);
							if (nt > 1) {
								_tile_zero(3);
								_tile_dpbsud(3, 5, 7);
								_tile_stored(3, r1, rb);
							}
							_tile_stored(1, r0, rb);
						} else {
							_tile_zero(0);
							_tile_loadd(6, bq, bs);
							_tile_dpbsud(0, 4, 6);
							if (nt > 1) {
								_tile_zero(2);
								_tile_dpbsud(2, 5, 6);
								_tile_stored(2, r1, rb);
							}
							_tile_stored(0, r0, rb);
						}
					}
					continue;
				}
				for (int i0 = 0; i0 < mt; i0 += 2) {
					int two = mt - i0 > 1;
					int32_t *r0 = R + (size_t)i0 * 16, *r1 = r0 + 16 * rs;
					if (first) {
						_tile_zero(0);
						_tile_zero(1);
						_tile_zero(2);
						_tile_zero(3);
					} else {
						_tile_loadd(0, r0, rb);
						if (two)
							_tile_loadd(1, r0 + 16, rb);
						if (nt > 1) {
							_tile_loadd(2, r1, rb);
							if (two)
								_tile_loadd(3, r1 + 16, rb);
						}
					}
					const uint8_t *bp = B + (size_t)(s0 + i0 * 16) * 4;
					for (int s = 0; s < steps; s++) {
						const uint8_t *bq = bp + (size_t)(ws[s] / 4) * bs;
						_tile_loadd(4, &wt[s][0][0][0], 64);
						_tile_loadd(6, bq, bs);
						_tile_dpbsud(0, 4, 6);
						if (two) {
							_tile_loadd(7, bq + 64, bs);
							_tile_dpbsud(1, 4, 7);
						}
						if (nt > 1) {
							_tile_loadd(5, &wt[s][1][0][0], 64);
							_tile_dpbsud(2, 5, 6);
							if (two)
								_tile_dpbsud(3, 5, 7);
						}
					}
					_tile_stored(0, r0, rb);
					if (two)
						_tile_stored(1, r0 + 16, rb);
					if (nt > 1) {
						_tile_stored(2, r1, rb);
						if (two)
							_tile_stored(3, r1 + 16, rb);
					}
				}
			}
			for (int c = 0; c < nc; c++) {	/* - corr */
				__m512i v = _mm512_set1_epi32(corr[((size_t)gr * nb + (size_t)b) * CQ_NR + (size_t)c]);
				int32_t *r = R + (size_t)c * rs;
				for (int t = 0; t < tsl; t += 16)
					_mm512_storeu_si512((void *)(r + t),
							    _mm512_sub_epi32(_mm512_loadu_si512((const void *)(r + t)), v));
			}
			cq_panel_out(p, a, n, gr * g->og + b * CQ_NR, nc, p0 + s0, tp - s0 < tsl ? tp - s0 : tsl, R, (int)rs,
				     csum ? csum + s0 : NULL);
		}
	}
}
/* The other form, where the 16 x 16 one would stream the weights more
 * often than it regroups them (K in chunks, or over CQ_AWIDE k: pixel
 * tiles of 16 or 32): C (16 pixels x 8 channels) += A (16 pixels x 64 k,
 * u = x ^ 0x80) times B (16 quads of a packed block as they are, rows of
 * 32 bytes) with tdpbusd, so the weights need no regrouping; A is the
 * tile's pixels as rows of Ka (the K chunk rounded up to 64) bytes, zero
 * past it, staged in the panel's place (cq_astage). The last step of a
 * chunk reads up to 15 quads past it: the next chunk's or block's weights
 * against A's zeros (0 either way); past the last block of all, a
 * zero-padded copy. Tile registers: C 0-3, A 4-5, B 6-7; per step 4
 * products of up to 4 pixel tiles x 1 block, 2 x 2 or 1 x 4 (K whole: as
 * many blocks as the rest of the panel area holds accumulator rows for;
 * in chunks the group's rows are there). The C tiles are transposed into
 * accumulator rows (- corr) and requantized by cq_panel_out.
 *
 * palette 1: tiles 0-3 (C) and 6-7 (B) 16 rows x 32 bytes, 4-5 (A) 16 x
 * 64 (bytes 16 + 2 i: tile i's row length, 48 + i: its rows). A constant
 * object: gcc 12 drops stores to a local the ldtilecfg builtin reads. */
static void cq_amx_config8(void)
{
	static const uint8_t cfg[64] = {
		[0] = 1,
		[16] = 32, [18] = 32, [20] = 32, [22] = 32, [24] = 64, [26] = 64, [28] = 32, [30] = 32,
		[48] = 16, [49] = 16, [50] = 16, [51] = 16, [52] = 16, [53] = 16, [54] = 16, [55] = 16,
	};
	_tile_loadconfig(cfg);
}

/* 16 rows of 16 bytes into 16 columns (unpacks of 8, 16, 32, 64 bits:
 * after each round a vector holds twice the rows for half the columns) */
static inline void cq_tr16(__m128i *v)
{
	__m128i t[16];
	for (int g = 0; g < 8; g++)
		t[2 * g] = _mm_unpacklo_epi8(v[2 * g], v[2 * g + 1]), t[2 * g + 1] = _mm_unpackhi_epi8(v[2 * g], v[2 * g + 1]);
	for (int g = 0; g < 4; g++)
		for (int c = 0; c < 2; c++)
			v[4 * g + 2 * c] = _mm_unpacklo_epi16(t[4 * g + c], t[4 * g + 2 + c]),
				      v[4 * g + 2 * c + 1] = _mm_unpackhi_epi16(t[4 * g + c], t[4 * g + 2 + c]);
	for (int g = 0; g < 2; g++)
		for (int c = 0; c < 4; c++)
			t[8 * g + 2 * c] = _mm_unpacklo_epi32(v[8 * g + c], v[8 * g + 4 + c]),
				      t[8 * g + 2 * c + 1] = _mm_unpackhi_epi32(v[8 * g + c], v[8 * g + 4 + c]);
	for (int c = 0; c < 8; c++)
		v[2 * c] = _mm_unpacklo_epi64(t[c], t[8 + c]), v[2 * c + 1] = _mm_unpackhi_epi64(t[c], t[8 + c]);
}

/* n pixels' runs of KW bytes (a constant where inlined) from xr + iw,
 * every SW bytes, into rows d, d + Ka, ... */
static inline void cq_wrun(uint8_t *d, size_t Ka, const int8_t *xr, int iw, int SW, int n, int KW)
{
	for (int i = 0; i < n; i++, iw += SW, d += Ka)
		memcpy(d, xr + iw, (size_t)KW);
}

/* A: rows of Ka bytes u = x ^ 0x80, one per pixel p0 .. p0 + tpr - 1 (tpr
 * = tp rounded up to 16), over k = (ic, kh, kw) from k0 (a chunk of kc <=
 * Ka), ZX for padding; 0 for k past the chunk or K and rows past tp. A
 * direct 1x1 transposes x 16 x 16 bytes at a time, and so do stride-1
 * rows whose window rows all lie inside x, 16 interior pixels at a time;
 * the other pixels copy their windows, a run of KW bytes per (ic, kh)
 * where the window lies inside the row; then the sign bits flip. */
static void cq_astage(const cq_geo *g, const int8_t *xg, int32_t ZX, int p0, int tp, int k0, int kc, int Ka,
		      uint8_t *A)
{
	const __m128i f = _mm_set1_epi8((char)0x80);
	int tpr = (tp + 15) & ~15, KW = g->KW, SW = g->SW, DW = g->DW, taps = g->KH * KW;
	int K = k0 + kc < g->K ? k0 + kc : g->K;	/* k0 .. K - 1 here */
	size_t plane = (size_t)g->H * g->W, ka = (size_t)Ka;
	if (g->direct) {
		for (int t0 = 0; t0 < tpr; t0 += 16)
			for (int c0 = 0; c0 < Ka; c0 += 16) {
				__m128i v[16];
				for (int i = 0; i < 16; i++) {
					int c = k0 + c0 + i;
					const int8_t *xr = c < K ? xg + (size_t)c * plane + (size_t)p0 + (size_t)t0 : xg;
					if (c >= K) {
						v[i] = f;	/* u = 0 */
					} else if (tp - t0 >= 16) {
						v[i] = _mm_loadu_si128((const __m128i *)(const void *)xr);
					} else {
						int8_t b16[16];
						memset(b16, 0x80, 16);
						memcpy(b16, xr, (size_t)(tp - t0));
						v[i] = _mm_loadu_si128((const __m128i *)(const void *)b16);
					}
				}
				cq_tr16(v);
				for (int i = 0; i < 16; i++)
					_mm_storeu_si128((__m128i *)(void *)(A + (size_t)(t0 + i) * ka + c0), _mm_xor_si128(v[i], f));
			}
		return;
	}
	/* interior outputs [ilo, ihi): every tap of the row inside [0, W) */
	int ilo, ihi, l2, h2;
	cq_range(-g->PL, SW, g->W, g->OW, &ilo, &h2);
	cq_range(-g->PL + (KW - 1) * DW, SW, g->W, g->OW, &l2, &ihi);
	if (DW != 1)
		ihi = ilo;	/* runs only for contiguous taps */
	int oh = p0 / g->OW, ow0 = p0 % g->OW;
	for (int t = 0; t < tp; oh++, ow0 = 0) {
		int n = g->OW - ow0 < tp - t ? g->OW - ow0 : tp - t;	/* the tile's pixels in output row oh */
		int r0 = ilo > ow0 ? ilo : ow0, r1 = ihi < ow0 + n ? ihi : ow0 + n;
		uint8_t *a0 = A + (size_t)t * ka;
		int ih0 = oh * g->SH - g->PT, f0 = r0, nf = 0;
		/* stride 1, all KH rows inside: 16 interior pixels at a time
		 * transposed from x (16 k x 16 pixels); the rest window by window */
		if (SW == 1 && ih0 >= 0 && ih0 + (g->KH - 1) * g->DH < g->H && r0 < r1)
			nf = (r1 - r0) / 16 * 16, r0 += nf;
		for (int o = f0; o < f0 + nf; o += 16) {
			uint8_t *ar = a0 + (size_t)(o - ow0) * ka;
			const int8_t *base = xg + (size_t)ih0 * g->W + (size_t)(o - g->PL);
			int ic = k0 / taps, kh = k0 % taps / KW, kw = k0 % KW;
			for (int c0 = 0; c0 < Ka; c0 += 16) {
				__m128i v[16];
				for (int i = 0; i < 16; i++) {
					if (k0 + c0 + i >= K) {
						v[i] = f;	/* u = 0 after the flip */
						continue;
					}
					v[i] = _mm_loadu_si128((const __m128i *)(const void *)(base + (size_t)ic * plane +
												 (size_t)(kh * g->DH) * g->W + kw));
					if (++kw == KW) {
						kw = 0;
						if (++kh == g->KH)
							kh = 0, ic++;
					}
				}
				cq_tr16(v);
				for (int j = 0; j < 16; j++)
					_mm_storeu_si128((__m128i *)(void *)(ar + (size_t)j * ka + c0), v[j]);
			}
		}
		/* runs of KW bytes at k = (ic, kh, 0), those inside [k0, K) */
		for (int ic = nf < n ? k0 / taps : g->cg; ic < g->cg; ic++)
			for (int kh = 0; kh < g->KH; kh++) {
				int k = (ic * g->KH + kh) * KW, a = k < k0 ? k0 - k : 0, b = k + KW > K ? K - k : KW;
				if (k >= K)
					break;
				if (a >= b)
					continue;
				int ih = ih0 + kh * g->DH, dk = k + a - k0;
				if (ih < 0 || ih >= g->H) {
					for (int i = 0; i < n; i++)
						memset(a0 + (size_t)i * ka + dk, ZX, (size_t)(b - a));
					continue;
				}
				const int8_t *xr = xg + (size_t)ic * plane + (size_t)ih * g->W;
				for (int o = ow0; o < ow0 + n; o++) {
					if (o == f0 && nf > 0) {	/* transposed above */
						o = f0 + nf - 1;
						continue;
					}
					uint8_t *d = a0 + (size_t)(o - ow0) * ka + dk;
					if (o == r0 && r0 < r1 && a == 0 && b == KW) {	/* the interior run */
						int iw = o * SW - g->PL;
						switch (KW) {
						case 1: cq_wrun(d, ka, xr, iw, SW, r1 - r0, 1); break;
						case 3: cq_wrun(d, ka, xr, iw, SW, r1 - r0, 3); break;
						case 5: cq_wrun(d, ka, xr, iw, SW, r1 - r0, 5); break;
						case 7: cq_wrun(d, ka, xr, iw, SW, r1 - r0, 7); break;
						default: cq_wrun(d, ka, xr, iw, SW, r1 - r0, KW); break;
						}
						o = r1 - 1;
						continue;
					}
					for (int kw = a; kw < b; kw++) {
						int iw = o * SW - g->PL + kw * DW;
						d[kw - a] = (uint8_t)(iw >= 0 && iw < g->W ? xr[iw] : ZX);
					}
				}
			}
		for (int i = 0; i < n; i++)
			memset(a0 + (size_t)i * ka + (K - k0), 0x80, ka - (size_t)(K - k0));
		t += n;
	}
	memset(A + (size_t)tp * ka, 0x80, (size_t)(tpr - tp) * ka);
	const __m512i f5 = _mm512_set1_epi8((char)0x80);
	for (size_t i = 0; i < (size_t)tpr * ka; i += 64)
		_mm512_storeu_si512((void *)(A + i), _mm512_xor_si512(_mm512_loadu_si512((const void *)(A + i)), f5));
}

/* a C tile (16 pixels x 8 channels) into accumulator rows r (stride TPr)
 * at pixel t, minus corr[j] (add: added to them): a transpose in three
 * rounds of two-source permutes (pixels 4 x 4 channels, 8 x 2, 16 x 1) */
static void cq_amx_put(const int32_t *c, const int32_t *corr, int32_t *r, int TPr, int t, int add)
{
	static const int32_t ix[6][16] = {
		{0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27},
		{4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31},
		{0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23},
		{8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31},
		{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23},
		{8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31},
	};
	__m512i z[8], a[4][2], b[2][2][2], id[6];
	for (int i = 0; i < 6; i++)
		id[i] = _mm512_loadu_si512((const void *)ix[i]);
	for (int i = 0; i < 8; i++)
		z[i] = _mm512_loadu_si512((const void *)(c + 16 * i));
	for (int m = 0; m < 4; m++)	/* channels 4 h .. 4 h + 3 x pixels 4 m .. 4 m + 3 */
		for (int h = 0; h < 2; h++)
			a[m][h] = _mm512_permutex2var_epi32(z[2 * m], id[h], z[2 * m + 1]);
	for (int P = 0; P < 2; P++)	/* channels 4 h + 2 x, + 1 x pixels 8 P .. 8 P + 7 */
		for (int h = 0; h < 2; h++)
			for (int x = 0; x < 2; x++)
				b[P][h][x] = _mm512_permutex2var_epi32(a[2 * P][h], id[2 + x], a[2 * P + 1][h]);
	for (int h = 0; h < 2; h++)
		for (int x = 0; x < 2; x++)
			for (int y = 0; y < 2; y++) {
				int j = 4 * h + 2 * x + y;
				__m512i v = _mm512_permutex2var_epi32(b[0][h][x], id[4 + y], b[1][h][x]);
				int32_t *o = r + (size_t)j * TPr + t;
				v = add ? _mm512_add_epi32(v, _mm512_loadu_si512((const void *)o))
					: _mm512_sub_epi32(v, _mm512_set1_epi32(corr[j]));
				_mm512_storeu_si512((void *)o, v);
			}
}

/* pixels p0 .. p0 + tp - 1 of image n, group gr, from the staged A (k0
 * .. k0 + Ka - 1): K whole, into ab (nbmax blocks' rows) and requantized;
 * in chunks, added up in the group's rows ab (set by the first) */
static void cq_amx_tile(const int32_t *p, const cq_geo *g, void *const *a, int n, int gr, int p0, int tp, int TPr,
			const uint8_t *A, int k0, int Ka, int whole, int32_t *ab, int nbmax, const int32_t *corr,
			const int32_t *csum)
{
	const int8_t *w = a[1];
	int nb = (g->og + CQ_NR - 1) / CQ_NR, steps = Ka / 64, mt = (tp + 15) / 16;
	size_t bstride = (size_t)(g->Kp / 4) * 4 * CQ_NR;
	const int8_t *wend = w + (size_t)g->G * nb * bstride;
	int32_t cb[4][16 * CQ_NR];
	int8_t wpad[512];
	for (int b = 0; b < nb;) {
		int nbk = nb - b < nbmax ? nb - b : nbmax;
		const int8_t *wb = w + ((size_t)gr * nb + (size_t)b) * bstride + (size_t)k0 * CQ_NR;
		const int32_t *bc = corr + ((size_t)gr * nb + (size_t)b) * CQ_NR;
		int32_t *ar = ab + (whole ? 0 : (size_t)b * CQ_NR * TPr);
		for (int i0 = 0; i0 < mt;) {
			int mb = nbk == 1 ? (mt - i0 < 4 ? mt - i0 : 4) : nbk == 2 ? (mt - i0 < 2 ? mt - i0 : 2) : 1;
			const uint8_t *ap = A + (size_t)i0 * 16 * Ka;
			size_t a16 = (size_t)16 * Ka;
			_tile_zero(0);
			_tile_zero(1);
			_tile_zero(2);
			_tile_zero(3);
			for (int s = 0; s < steps; s++, ap += 64) {
				const int8_t *bp[4];
				for (int j = 0; j < nbk; j++) {
					bp[j] = wb + (size_t)j * bstride + (size_t)s * 512;
					if ((size_t)(wend - bp[j]) < 512) {	/* the last block's end, zero-padded */
						memset(wpad, 0, sizeof wpad);
						memcpy(wpad, bp[j], (size_t)(wend - bp[j]));
						bp[j] = wpad;
					}
				}
				if (nbk == 1) {
					_tile_loadd(6, bp[0], 32);
					_tile_loadd(4, ap, Ka);
					_tile_dpbusd(0, 4, 6);
					if (mb > 1) {
						_tile_loadd(5, ap + a16, Ka);
						_tile_dpbusd(1, 5, 6);
					}
					if (mb > 2) {
						_tile_loadd(4, ap + 2 * a16, Ka);
						_tile_dpbusd(2, 4, 6);
					}
					if (mb > 3) {
						_tile_loadd(5, ap + 3 * a16, Ka);
						_tile_dpbusd(3, 5, 6);
					}
				} else if (nbk == 2) {
					_tile_loadd(6, bp[0], 32);
					_tile_loadd(7, bp[1], 32);
					_tile_loadd(4, ap, Ka);
					_tile_dpbusd(0, 4, 6);
					_tile_dpbusd(1, 4, 7);
					if (mb > 1) {
						_tile_loadd(5, ap + a16, Ka);
						_tile_dpbusd(2, 5, 6);
						_tile_dpbusd(3, 5, 7);
					}
				} else {
					_tile_loadd(4, ap, Ka);
					_tile_loadd(6, bp[0], 32);
					_tile_dpbusd(0, 4, 6);
					_tile_loadd(7, bp[1], 32);
					_tile_dpbusd(1, 4, 7);
					_tile_loadd(6, bp[2], 32);
					_tile_dpbusd(2, 4, 6);
					if (nbk > 3) {
						_tile_loadd(7, bp[3], 32);
						_tile_dpbusd(3, 4, 7);
					}
				}
			}
			int nc = mb * nbk;
			_tile_stored(0, cb[0], 32);
			if (nc > 1)
				_tile_stored(1, cb[1], 32);
			if (nc > 2)
				_tile_stored(2, cb[2], 32);
			if (nc > 3)
				_tile_stored(3, cb[3], 32);
			for (int c = 0; c < nc; c++) {
				int j = c % nbk, i = c / nbk;
				cq_amx_put(cb[c], bc + (size_t)j * CQ_NR, ar + (size_t)j * CQ_NR * TPr, TPr, (i0 + i) * 16, k0 > 0);
			}
			i0 += mb;
		}
		for (int j = 0; j < nbk && whole; j++) {
			int bj = b + j, no = g->og - bj * CQ_NR < CQ_NR ? g->og - bj * CQ_NR : CQ_NR;
			cq_panel_out(p, a, n, gr * g->og + bj * CQ_NR, no, p0, tp, ab + (size_t)j * CQ_NR * TPr, TPr, csum);
		}
		b += nbk;
	}
}
#endif

static void cq_panel_conv(const int32_t *p, const cq_geo *g, void *const *a, void *scratch)
{
	const int8_t *x = a[0], *w = a[1];
	const int32_t *wzp = a[5];
	int32_t ZX = p[NPU_CV_ZX];
	int TPr = (g->TP + CQ_DNP - 1) / CQ_DNP * CQ_DNP, Kq = g->Kp / 4, nb = (g->og + CQ_NR - 1) / CQ_NR;
	int KC = g->KC, whole = KC >= g->Kp;
	size_t ow, oc_, oa, plane = (size_t)g->H * g->W, bstride = (size_t)Kq * 4 * CQ_NR;
	cq_panel_fit(g, TPr, KC, &ow, &oc_, &oa);
	void *panel = scratch;
	int32_t *wide = (int32_t *)(void *)((uint8_t *)scratch + ow);
	int32_t *csum = (int32_t *)(void *)((uint8_t *)scratch + oc_);
	int32_t *acc = (int32_t *)(void *)((uint8_t *)scratch + oa);
	int32_t *corr = acc + (size_t)(whole ? 1 : nb) * CQ_NR * TPr;
	int8_t *tmp = (int8_t *)(corr + (size_t)g->G * nb * CQ_NR);
#if defined(CQ_VNNI)
	/* (128 + ZX) sum w per packed channel, once per call */
	for (int b = 0; b < g->G * nb; b++) {
		const int8_t *wb = w + (size_t)b * bstride;
		__m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0, ones = _mm256_set1_epi8(1);
		int q = 0;
		for (; q + 4 <= Kq; q += 4, wb += 128) {
			s0 = CQ_DPB(s0, ones, _mm256_loadu_si256((const __m256i *)(const void *)wb));
			s1 = CQ_DPB(s1, ones, _mm256_loadu_si256((const __m256i *)(const void *)(wb + 32)));
			s2 = CQ_DPB(s2, ones, _mm256_loadu_si256((const __m256i *)(const void *)(wb + 64)));
			s3 = CQ_DPB(s3, ones, _mm256_loadu_si256((const __m256i *)(const void *)(wb + 96)));
		}
		for (; q < Kq; q++, wb += 32)
			s0 = CQ_DPB(s0, ones, _mm256_loadu_si256((const __m256i *)(const void *)wb));
		s0 = _mm256_add_epi32(_mm256_add_epi32(s0, s1), _mm256_add_epi32(s2, s3));
		_mm256_storeu_si256((__m256i *)(void *)(corr + (size_t)b * CQ_NR),
				    _mm256_mullo_epi32(s0, _mm256_set1_epi32(128 + ZX)));
	}
#elif defined(CQ_NDOT)
	/* ZX sum w per packed channel, once per call: sdot against ones, a
	 * quad of 4 channels' quads per register */
	for (int b = 0; b < g->G * nb; b++) {
		const int8_t *wb = w + (size_t)b * bstride;
		int32x4_t s0 = vdupq_n_s32(0), s1 = s0;
		const int8x16_t ones = vdupq_n_s8(1);
		for (int q = 0; q < Kq; q++, wb += 4 * CQ_NR)
			s0 = vdotq_s32(s0, vld1q_s8(wb), ones), s1 = vdotq_s32(s1, vld1q_s8(wb + 16), ones);
		vst1q_s32(corr + (size_t)b * CQ_NR, vmulq_n_s32(s0, ZX));
		vst1q_s32(corr + (size_t)b * CQ_NR + 4, vmulq_n_s32(s1, ZX));
	}
#elif defined(CQ_MVE)
	/* ZX sum w per packed channel, once per call: the 8 channels' words
	 * of a quad summed bytewise (vaddva over 4 lanes of one channel) */
	for (int b = 0; b < g->G * nb; b++) {
		const int8_t *wb = w + (size_t)b * bstride;
		int32_t sw[CQ_NR] = {0};
		for (int q = 0; q < Kq; q++, wb += 4 * CQ_NR) {
			int8x16_t lo = vldrbq_s8(wb), hi = vldrbq_s8(wb + 16);
			for (int j = 0; j < 4; j++) {
				mve_pred16_t pj = (mve_pred16_t)(0xfu << (4 * j));
				sw[j] = vaddvaq_p_s8(sw[j], lo, pj);
				sw[4 + j] = vaddvaq_p_s8(sw[4 + j], hi, pj);
			}
		}
		for (int j = 0; j < CQ_NR; j++)
			corr[(size_t)b * CQ_NR + j] = ZX * sw[j];
	}
#endif
#if defined(CQ_AMX)
	/* B in the panel's place, TPa pixels (twice TPr where cq_amx_pair:
	 * then the 4 gathered rows, 4 TPa bytes, in the unused accumulator
	 * rows); cap: k of panel rows the tiles may read */
	int amx = cq_amx_use(g, TPr, ow), a16 = amx && cq_amx_wide(g), TPa = TPr, pstep = g->TP, kw = cq_amx_kw(g), cap;
	int8_t *atmp = tmp;
	if (a16 && cq_amx_pair(g, wzp))
		TPa = 2 * TPr, pstep = 2 * g->TP, atmp = (int8_t *)acc;
	cap = (int)(ow / (size_t)TPa) & ~3;
	/* the 16 x 8 form: A in the panel's place; K whole: then accumulator
	 * rows for up to 4 blocks (else the usual rows of one); in chunks: the
	 * group's rows */
	int nbmax = whole ? 1 : 4;
	int32_t *ab4 = acc;
	if (amx && !a16 && whole) {
		size_t abo = ((size_t)TPr * (size_t)((g->Kp + 63) & ~63) + 63) & ~(size_t)63;
		size_t fit = (ow - abo) / ((size_t)CQ_NR * TPr * 4);
		if (fit >= 2)
			nbmax = fit < 4 ? (int)fit : 4, ab4 = (int32_t *)(void *)((uint8_t *)panel + abo);
	}
	/* in chunks, the 16 x 8 form's own: as many k as A's rows can hold
	 * in the panel and the widened weights' area (unused on tiles) */
	int KCa = KC;
	if (amx && !a16 && !whole && (int)(oc_ / (size_t)TPr & ~(size_t)63) > KC)
		KCa = (int)(oc_ / (size_t)TPr & ~(size_t)63);
	if (a16)
		cq_amx_config(kw);
	else if (amx)
		cq_amx_config8();
#else
	int pstep = g->TP;
#endif
	for (int n = 0; n < g->N; n++)
		for (int gr = 0; gr < g->G; gr++) {
			const int8_t *xg = x + ((size_t)n * g->C + (size_t)gr * g->cg) * plane;
			for (int p0 = 0; p0 < g->P; p0 += pstep) {
				int tp = g->P - p0 < pstep ? g->P - p0 : pstep, tpr = (tp + CQ_DNP - 1) / CQ_DNP * CQ_DNP;
				if (wzp) {	/* the pixels' sums of x - ZX (0 for padding) */
					for (int t = 0; t < tp; t++)
						csum[t] = 0;
					cq_tap tap;
					cq_tap_at(g, &tap, 0, p0);
					for (int k = 0; k < g->K; k++) {
						const int8_t *r = cq_srow(g, xg, ZX, &tap, tp, tmp);
						for (int t = 0; t < tp; t++)
							csum[t] += r[t] - ZX;
					}
				}
#if defined(CQ_AMX)
				if (a16)
				{	/* K whole */
					cq_bstage(g, xg, ZX, p0, tp, TPa, 0, g->Kp, panel, atmp);
					cq_amx_conv(p, g, a, n, gr, p0, tp, TPa, panel, cap, kw, corr, wzp ? csum : NULL);
				}
				else if (amx)
					for (int k0 = 0; k0 < g->Kp; k0 += KCa) {
						int kc = g->Kp - k0 < KCa ? g->Kp - k0 : KCa, kca = (kc + 63) & ~63;
						cq_astage(g, xg, ZX, p0, tp, k0, kc, kca, panel);
						cq_amx_tile(p, g, a, n, gr, p0, tp, TPr, panel, k0, kca, whole, ab4, nbmax, corr,
							    wzp ? csum : NULL);
					}
				else
#endif
				/* K whole: a block's rows, requantized at once; in chunks:
				 * every block's rows summed chunk by chunk, then requantized */
				for (int k0 = 0; k0 < g->Kp; k0 += KC) {
					int kc = g->Kp - k0 < KC ? g->Kp - k0 : KC;
					cq_dstage(g, xg, ZX, p0, tp, TPr, k0, kc, panel, tmp);
					for (int b = 0; b < nb; b++) {
						int no = g->og - b * CQ_NR < CQ_NR ? g->og - b * CQ_NR : CQ_NR;
						const int8_t *wb = w + ((size_t)gr * nb + (size_t)b) * bstride + (size_t)k0 * CQ_NR;
						const int32_t *bc = corr + ((size_t)gr * nb + (size_t)b) * CQ_NR;
						int32_t *ab = acc + (whole ? 0 : (size_t)b * CQ_NR * TPr);
#if !defined(CQ_VNNI) && !defined(CQ_NDOT) && !defined(CQ_MVE)
						{	/* the block's chunk widened to int16 */
							int16_t *wd = (int16_t *)(void *)wide;
							size_t i = 0, nw = (size_t)kc * CQ_NR;
#if !defined(NPU_NO_SIMD) && defined(__SSE2__)
							for (; i + 16 <= nw; i += 16) {
								__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(wb + i));
								_mm_storeu_si128((__m128i *)(void *)(wd + i), _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8));
								_mm_storeu_si128((__m128i *)(void *)(wd + i + 8), _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8));
							}
#endif
							for (; i < nw; i++)
								wd[i] = wb[i];
						}
#elif defined(CQ_MVE)
						cq_mve_regroup(wb, kc, (int8_t *)(void *)wide);
#endif
						for (int h = 0; h < no; h += 4)
							for (int t0 = 0; t0 < tpr; t0 += CQ_DNP)
								cq_dmicro(panel, TPr, kc / 4, t0, wb + 4 * h, wide + CQ_WIDE(h, kc), bc + h,
									  k0 == 0, ab + (size_t)h * TPr);
						if (whole)
							cq_panel_out(p, a, n, gr * g->og + b * CQ_NR, no, p0, tp, ab, TPr, wzp ? csum : NULL);
					}
				}
				if (!whole)
					for (int b = 0; b < nb; b++) {
						int no = g->og - b * CQ_NR < CQ_NR ? g->og - b * CQ_NR : CQ_NR;
						cq_panel_out(p, a, n, gr * g->og + b * CQ_NR, no, p0, tp, acc + (size_t)b * CQ_NR * TPr, TPr,
							     wzp ? csum : NULL);
					}
			}
		}
#if defined(CQ_AMX)
	if (amx)
		_tile_release();
#endif
}

size_t npu_conv_q_pack(const int32_t *p, const int8_t *w, int8_t *out)
{
	cq_geo g;
	cq_geometry(p, &g);
	if (g.path == CQ_NONE || !g.packed)
		return 0;
	int nb = (g.og + CQ_NR - 1) / CQ_NR;
	size_t n = (size_t)g.G * nb * (size_t)(g.Kp / 4) * 4 * CQ_NR;
	if (out) {
		memset(out, 0, n);
		for (int oc = 0; oc < g.OC; oc++)
			for (int k = 0; k < g.K; k++)
				out[cq_packed_at(&g, oc, k)] = w[(size_t)oc * g.K + k];
	}
	return n;
}

static void k_conv_q(const int32_t *p, void *const *a, void *scratch)
{
	cq_geo g;
	cq_geometry(p, &g);
	/* the int8 paths' bounds hold for int8 zero points and int32 biases */
	if (g.path == CQ_DEPTHWISE || g.path == CQ_IM2COL || g.path == CQ_PANEL) {
		const int32_t *wzp = a[5];
		int ok = p[NPU_CV_ZX] >= -128 && p[NPU_CV_ZX] <= 127 && p[NPU_CV_ACT] != NPU_T_I64;
		for (int o = 0; ok && wzp && o < g.OC; o++)
			ok = wzp[o] >= -128 && wzp[o] <= 127;
		if (!ok)
			g.path = CQ_GENERIC;
	}
	if (g.path == CQ_DEPTHWISE)
		cq_depthwise(p, &g, a, scratch);
	else if (g.path == CQ_IM2COL && g.KC)
		cq_chunked_conv(p, &g, a, scratch);
	else if (g.path == CQ_IM2COL)
		cq_im2col_conv(p, &g, a, scratch);
	else if (g.path == CQ_PANEL)
		cq_panel_conv(p, &g, a, scratch);
	else if (g.path == CQ_GENERIC)
		cq_generic(p, &g, a);
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif
/* @npu-end */

/* @npu-kernel CONV_F CONV_NHWC_F */
/* CONV_F's fast float path works on blocks of CF_NR output channels on
 * every ISA: the scratch size npu-emit computes must not depend on the
 * flags the header is built with */
#define CF_NR 16
/* the pointwise path's panels: at most CF_KC input channels of 48 pixels
 * (3 vectors of the widest ISA) */
#define CF_KC 256
#define CF_PBMAX 48

/* one step of a float convolution's sum, acc + x w: the product rounded,
 * then added (the default: every ISA and npu-run give the same bits), or
 * under -DNPU_F32_FMA fused with one rounding (fmaf), as the SIMD paths
 * then do with FMA instructions (the same bits on every ISA again, but
 * not npu-run's) */
static inline float cf_mac(float acc, float x, float w)
{
#if defined(NPU_F32_FMA)
	return fmaf(x, w, acc);
#else
	float prod = x * w;
	return acc + prod;
#endif
}

/* a depthwise convolution's zero-padded plane (every window inside it):
 * its row stride (room for a vector of CF_DL <= 16 outputs past the last,
 * and one more float) and its floats; 0 when it does not apply */
static int64_t cf_dw_plane(const int32_t *p, int64_t *rs)
{
	int64_t OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], Hp, Wp;
	if (p[NPU_CV_PT] < 0 || p[NPU_CV_PL] < 0 || OH < 1 || OW < 1)
		return 0;
	Hp = (OH - 1) * p[NPU_CV_SH] + (int64_t)(p[NPU_CV_KH] - 1) * p[NPU_CV_DH] + 1;
	Wp = (OW - 1) * p[NPU_CV_SW] + (int64_t)(p[NPU_CV_KW] - 1) * p[NPU_CV_DW] + 1;
	*rs = Wp + 16 * (int64_t)p[NPU_CV_SW] + 1;
	return Hp * *rs <= (1 << 24) ? Hp * *rs : 0;
}

/* the pixels of the panels cf_conv_packed gathers at a time (K floats
 * each) for a convolution with packed float32 weights: up to CF_GPX within
 * CF_GMAX floats, CF_NR at least (the weights' K x CF_NR); whatever the ISA */
#define CF_GPX 56
#define CF_KT 256	/* cf_conv_packed's K chunk */
#define CF_TAPS 49	/* kernels of at most 7x7 */
#define CF_GMAX (1 << 18)
static int cf_gpx(int64_t K)
{
	return K * CF_GPX <= CF_GMAX ? CF_GPX : CF_GMAX / K > CF_NR ? (int)(CF_GMAX / K) : CF_NR;
}

/* cf_conv_packed runs (packed float32 weights, more than 4 blocks of
 * output channels a group, at most CF_TAPS taps) and its panels keep to
 * the scratch budget (npu-emit --scratch-max: NPU_CV_SMAX) */
static int cf_panels(const int32_t *p, int64_t K)
{
	int G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1;
	return p[NPU_CV_WT] == NPU_T_F32 && p[NPU_CV_OC] / G > 4 * CF_NR && p[NPU_CV_KH] * p[NPU_CV_KW] <= CF_TAPS &&
	       (p[NPU_CV_SMAX] <= 0 || K * cf_gpx(K) * 4 <= (int64_t)p[NPU_CV_SMAX]);
}

/* the fast path applies (f32 in and out): its scratch bytes, whatever the
 * ISA (0: it does not apply) */
static size_t cf_fast_scratch(const int32_t *p)
{
	int C = p[NPU_CV_C], OC = p[NPU_CV_OC], G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1;
	if (p[NPU_CV_XT] != NPU_T_F32 || p[NPU_CV_YT] != NPU_T_F32 || C < 1 || OC < 1 || C % G ||
	    OC % G || p[NPU_CV_KH] < 1 || p[NPU_CV_KW] < 1 || p[NPU_CV_SH] < 1 || p[NPU_CV_SW] < 1 ||
	    p[NPU_CV_DH] < 1 || p[NPU_CV_DW] < 1 || p[NPU_CV_H] < 1 || p[NPU_CV_W] < 1)
		return 0;
	int64_t k = (int64_t)(C / G) * p[NPU_CV_KH] * p[NPU_CV_KW];
	if (k > (1 << 24))
		return 0;
	int64_t n = C / G == 1 && OC == G ? k : k * (CF_NR + 1), rs;	/* depthwise: its weights */
	if (C / G == 1 && OC == G && cf_dw_plane(p, &rs))	/* and the padded plane */
		n = ((k + 15) & ~(int64_t)15) + cf_dw_plane(p, &rs);
	if (G == 1 && p[NPU_CV_KH] == 1 && p[NPU_CV_KW] == 1 && p[NPU_CV_SH] == 1 && p[NPU_CV_SW] == 1 &&
	    p[NPU_CV_PT] == 0 && p[NPU_CV_PL] == 0 && p[NPU_CV_OW] == p[NPU_CV_W] && (k < CF_KC ? k : CF_KC) * CF_PBMAX > n)
		n = (k < CF_KC ? k : CF_KC) * CF_PBMAX;	/* pointwise: a panel */
	if (cf_panels(p, k) && k * cf_gpx(k) > n)
		n = k * cf_gpx(k);	/* cf_conv_packed's panels */
	return (size_t)((n * 4 + 63) & ~(int64_t)63);
}
/* @npu-end */

/* @npu-kernel CONV_F */
/* the float32 weights can be packed (npu_conv_f_pack): f32 in, weights
 * and out, a fast path, not depthwise */
static int cf_packable(const int32_t *p)
{
	int G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1;
	return p[NPU_CV_WT] == NPU_T_F32 && cf_fast_scratch(p) && !(p[NPU_CV_C] / G == 1 && p[NPU_CV_OC] == G);
}

static int cf_packed(const int32_t *p)
{
	return p[NPU_CV_WPACK] == 1 && cf_packable(p);
}

/* where packed w[oc][0] is (w[oc][k] at CF_NR k past it) */
static size_t cf_packed_at(const int32_t *p, int oc, int K)
{
	int G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1, og = p[NPU_CV_OC] / G, nb = (og + CF_NR - 1) / CF_NR;
	int g = oc / og, ol = oc % og;
	return (((size_t)g * nb + (size_t)(ol / CF_NR)) * (size_t)K) * CF_NR + (size_t)(ol % CF_NR);
}

size_t npu_conv_f_pack(const int32_t *p, const float *w, float *out)
{
	if (!cf_packable(p))
		return 0;
	int G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1, OC = p[NPU_CV_OC], og = OC / G, nb = (og + CF_NR - 1) / CF_NR;
	int K = p[NPU_CV_C] / G * p[NPU_CV_KH] * p[NPU_CV_KW];
	size_t n = (size_t)G * nb * (size_t)K * CF_NR;
	if (out) {
		memset(out, 0, n * sizeof(float));
		for (int oc = 0; oc < OC; oc++) {
			float *o = out + cf_packed_at(p, oc, K);
			for (int k = 0; k < K; k++)
				o[(size_t)k * CF_NR] = w[(size_t)oc * K + k];
		}
	}
	return n * sizeof(float);
}

/* Weights of one output channel as the float values the products use. */
static void cf_weights(const int32_t *p, const void *w, const float *wscale, int oc, int k, float *wf)
{
	int32_t WT = p[NPU_CV_WT];
	int half = p[NPU_CV_XT] == NPU_T_F16;
	size_t base = (size_t)oc * (size_t)k;
	if (cf_packed(p)) {
		const float *wo = (const float *)w + cf_packed_at(p, oc, k);
		for (int i = 0; i < k; i++)
			wf[i] = wo[(size_t)i * CF_NR];
		return;
	}
	for (int i = 0; i < k; i++) {
		float v;
		if (WT == NPU_T_I8) {
			v = (float)((const int8_t *)w)[base + i] * (wscale ? wscale[oc] : 1.0f);
			if (half)	/* the fp16 NPU decompresses weights to half */
				v = npu_f16_to_f32(npu_f32_to_f16(v));
		} else {
			v = rt_ldf(w, WT, base + i);
		}
		wf[i] = v;
	}
}

/* The fast float32 paths (f32 activations, any weight type): per output
 * the same sum as the reference below, bias then input channel, kernel
 * row, kernel column over the taps inside the input, each product
 * rounded then added (no FMA; fused under NPU_F32_FMA, cf_mac), so the
 * results are the reference's bit for bit; the SIMD lanes are independent
 * outputs. A convolution takes the
 * float weights of CF_NR output channels of one group at a time as
 * [K][CF_NR] (zero past the group's last channel: float32 ones packed so
 * by npu_conv_f_pack, others converted into the scratch) and computes CF_MP
 * pixels of one output row (columns whose taps are all inside the row;
 * the others one at a time) x CF_NR channels in registers; a depthwise
 * one (one input and one output channel per group) runs rows of CF_DL
 * pixels per tap, four blocks at a time where the row is long enough. */
#if defined(NPU_NO_SIMD)
#define CF_VL 0
#elif defined(__AVX512F__) && (defined(__FMA__) || !defined(NPU_F32_FMA))
#define CF_VL 16
typedef __m512 cf_v;
#define CF_LD(p) _mm512_loadu_ps(p)
#define CF_ST(p, v) _mm512_storeu_ps(p, v)
#define CF_SET1(f) _mm512_set1_ps(f)
#define CF_ADD(a, b) _mm512_add_ps(a, b)
#define CF_MUL(a, b) _mm512_mul_ps(a, b)
#define CF_FMA(a, x, w) _mm512_fmadd_ps(x, w, a)
#define CF_GTSEL(a, b) _mm512_max_ps(a, b)	/* a > b ? a : b, lane by lane */
#define CF_LTSEL(a, b) _mm512_min_ps(a, b)	/* a < b ? a : b */
#define CF_ZN(v) _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_EQ_UQ)	/* lanes 0 or NaN */
#elif defined(__AVX2__) && (defined(__FMA__) || !defined(NPU_F32_FMA))
#define CF_VL 8
typedef __m256 cf_v;
#define CF_LD(p) _mm256_loadu_ps(p)
#define CF_ST(p, v) _mm256_storeu_ps(p, v)
#define CF_SET1(f) _mm256_set1_ps(f)
#define CF_ADD(a, b) _mm256_add_ps(a, b)
#define CF_MUL(a, b) _mm256_mul_ps(a, b)
#define CF_FMA(a, x, w) _mm256_fmadd_ps(x, w, a)
#define CF_GTSEL(a, b) _mm256_max_ps(a, b)
#define CF_LTSEL(a, b) _mm256_min_ps(a, b)
#define CF_ZN(v) _mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_EQ_UQ))
#elif defined(__SSE2__) && !defined(NPU_F32_FMA)	/* no FMA: the portable C does fmaf */
#define CF_VL 4
typedef __m128 cf_v;
#define CF_LD(p) _mm_loadu_ps(p)
#define CF_ST(p, v) _mm_storeu_ps(p, v)
#define CF_SET1(f) _mm_set1_ps(f)
#define CF_ADD(a, b) _mm_add_ps(a, b)
#define CF_MUL(a, b) _mm_mul_ps(a, b)
#define CF_GTSEL(a, b) _mm_max_ps(a, b)
#define CF_LTSEL(a, b) _mm_min_ps(a, b)
#define CF_ZN(v) _mm_movemask_ps(_mm_or_ps(_mm_cmpeq_ps(v, _mm_setzero_ps()), _mm_cmpunord_ps(v, v)))
#elif defined(__ARM_NEON) && defined(__aarch64__)
#define CF_VL 4
typedef float32x4_t cf_v;
#define CF_LD(p) vld1q_f32(p)
#define CF_ST(p, v) vst1q_f32(p, v)
#define CF_SET1(f) vdupq_n_f32(f)
#define CF_ADD(a, b) vaddq_f32(a, b)
#define CF_MUL(a, b) vmulq_f32(a, b)
#define CF_FMA(a, x, w) vfmaq_f32(a, x, w)
#define CF_GTSEL(a, b) vbslq_f32(vcgtq_f32(a, b), a, b)
#define CF_LTSEL(a, b) vbslq_f32(vcltq_f32(a, b), a, b)
#define CF_ZN(v) (vmaxvq_u32(vorrq_u32(vceqzq_f32(v), vmvnq_u32(vceqq_f32(v, v)))) != 0)
#else
#define CF_VL 0
#endif
#if CF_VL > 0 && defined(NPU_F32_FMA)
#define CF_MAC(a, x, w) CF_FMA(a, x, w)	/* cf_mac in lanes */
#elif CF_VL > 0
#define CF_MAC(a, x, w) CF_ADD(a, CF_MUL(x, w))
#endif
/* CF_MP pixels per tile: 12 accumulator registers */
#if CF_VL == 16
#define CF_MP 12
#elif CF_VL == 8
#define CF_MP 6
#else
#define CF_MP 3
#endif
#define CF_NV (CF_VL > 0 ? CF_NR / CF_VL : 1)

#if CF_VL > 0
/* the window of output (oh, ow) inside the input: rows kh0 .. kh1 - 1,
 * columns kw0 .. kw1 - 1 */
static inline void cf_taps(int o, int S, int P, int D, int K, int n, int *k0, int *k1)
{
	int b = o * S - P, a = 0, e = K;
	while (a < K && b + a * D < 0)
		a++;
	while (e > a && b + (e - 1) * D >= n)
		e--;
	*k0 = a, *k1 = e;
}

/* the output columns whose KW taps are all inside the row: [*lo, *hi) */
static void cf_interior(int W, int OW, int KW, int SW, int PL, int DW, int *lo, int *hi)
{
	int l = (PL + SW - 1) / SW, t = W - 1 + PL - (KW - 1) * DW, h = t < 0 ? 0 : t / SW + 1;
	*lo = l < OW ? l : OW;
	*hi = h < OW ? h : OW;
	if (*hi < *lo)
		*hi = *lo;
}

/* one tile: NP (1 or CF_MP) pixels with the same window shape (kernel
 * rows kh0 .. kh1 - 1, columns kw0 .. kw1 - 1 inside the input), pixel m's
 * window at x offset xo[m], x CF_NR channels; out[m][j]. The CF_NA = NP
 * CF_NV accumulators are named (a0 .. a11) so that they live in
 * registers; accumulator i is pixel i / CF_NV, vector i % CF_NV. */
#define CF_R3(X) X(0) X(1) X(2)
#define CF_R4(X) CF_R3(X) X(3)
#define CF_R12(X) CF_R4(X) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define CF_R24(X) CF_R12(X) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23)
#define CF_WSEL(v) ((v) == 0 ? w0 : (v) == 1 ? w1 : (v) == 2 ? w2 : w3)
#define CF_TILE(NAME, NP, REP) \
	static void NAME(const float *x, const ptrdiff_t *xo, const float *wp, int cg, size_t plane, int W, int KH, \
			 int KW, int DH, int DW, int kh0, int kh1, int kw0, int kw1, const float *b, float *out) \
	{ \
		enum { NA = (NP) * CF_NV }; \
		cf_v w0, w1, w2, w3; \
		REP(CF_DECL) \
		for (int ic = 0; ic < cg; ic++) \
			for (int kh = kh0; kh < kh1; kh++) { \
				ptrdiff_t xr = (ptrdiff_t)((size_t)ic * plane) + (ptrdiff_t)kh * DH * W; \
				const float *wk = wp + ((size_t)(ic * KH + kh) * KW) * CF_NR; \
				for (int kw = kw0; kw < kw1; kw++) { \
					const float *wq = wk + (size_t)kw * CF_NR; \
					ptrdiff_t r = xr + (ptrdiff_t)kw * DW; \
					w0 = CF_LD(wq); \
					w1 = CF_NV > 1 ? CF_LD(wq + CF_VL) : w0; \
					w2 = CF_NV > 2 ? CF_LD(wq + 2 * CF_VL) : w0; \
					w3 = CF_NV > 3 ? CF_LD(wq + 3 * CF_VL) : w0; \
					REP(CF_STEP) \
				} \
			} \
		REP(CF_STORE) \
		(void)w1, (void)w2, (void)w3; \
	}
#define CF_DECL(i) cf_v a##i = CF_LD(b + ((i) % CF_NV) * CF_VL);
#define CF_STEP(i) \
	if ((i) < NA) \
		a##i = CF_MAC(a##i, CF_SET1(x[xo[(i) / CF_NV] + r]), CF_WSEL((i) % CF_NV));
#define CF_STORE(i) \
	if ((i) < NA) \
		CF_ST(out + ((i) / CF_NV) * CF_NR + ((i) % CF_NV) * CF_VL, a##i);
CF_TILE(cf_tile1, 1, CF_R4)
CF_TILE(cf_tilen, CF_MP, CF_R12)
#undef CF_TILE
#undef CF_DECL
#undef CF_STEP
#undef CF_STORE

/* Panel tiles (float32 weights packed by npu_conv_f_pack): CF_TP pixels
 * of any window shapes (output rows spanned), their taps gathered once
 * into xp[k CF_TP + m] with 0 for a tap outside the input, against CF_TB
 * blocks of CF_NR channels at a time; accumulator i is pixel i / NW,
 * vector i % NW (block (i % NW) / CF_NV). A zero tap adds x 0 to the sum,
 * which changes nothing but the sign of a zero sum (or makes NaN of an
 * infinite weight), so a sum that ends 0 or NaN is summed again over the
 * taps inside (cf_resum): the reference's bits. */
#if CF_VL == 16
#define CF_TP 14
#define CF_TB 2
#define CF_TREP1(X) CF_R12(X) X(12) X(13)
#define CF_TREP2(X) CF_TREP1(X) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27)
#else
#define CF_TP CF_MP
#define CF_TB 1
#define CF_TREP1(X) CF_R12(X)
#endif
#define CF_PTILE(NAME, NB, REP) \
	static void NAME(const float *xp, const float *wp, size_t wb, int K, const float *b, int cont, float *out) \
	{ \
		enum { NW = (NB) * CF_NV }; \
		cf_v w0, w1, w2, w3; \
		REP(CF_TDECL) \
		for (int k = 0; k < K; k++) { \
			const float *wq = wp + (size_t)k * CF_NR, *xk = xp + (size_t)k * CF_TP; \
			w0 = CF_LD(wq); \
			w1 = NW > 1 ? CF_LD(wq + CF_WOFF(1)) : w0; \
			w2 = NW > 2 ? CF_LD(wq + CF_WOFF(2)) : w0; \
			w3 = NW > 3 ? CF_LD(wq + CF_WOFF(3)) : w0; \
			REP(CF_TSTEP) \
		} \
		REP(CF_TSTORE) \
		(void)w1, (void)w2, (void)w3, (void)wb; \
	}
#define CF_WOFF(v) ((size_t)((v) / CF_NV) * wb + ((v) % CF_NV) * CF_VL)
#define CF_TDECL(i) cf_v a##i = cont ? CF_LD(out + (i) * CF_VL) : CF_LD(b + ((i) % NW) * CF_VL);
#define CF_TSTEP(i) a##i = CF_MAC(a##i, CF_SET1(xk[(i) / NW]), CF_WSEL((i) % NW));
#define CF_TSTORE(i) CF_ST(out + (i) * CF_VL, a##i);
CF_PTILE(cf_pt1, 1, CF_TREP1)
#if CF_TB == 2
CF_PTILE(cf_pt2, 2, CF_TREP2)
#endif
#undef CF_PTILE
#undef CF_WOFF
#undef CF_TDECL
#undef CF_TSTEP
#undef CF_TSTORE

/* one output's sum as the reference does it: acc (the bias) then the taps
 * of window (ih0, iw0) inside the input; wj: its channel in a packed
 * block */
static float cf_resum(const float *xg, const float *wj, float acc, int cg, size_t plane, int H, int W, int KH, int KW,
		      int DH, int DW, int ih0, int iw0)
{
	for (int ic = 0; ic < cg; ic++)
		for (int kh = 0; kh < KH; kh++) {
			int ih = ih0 + kh * DH;
			if (ih < 0 || ih >= H)
				continue;
			for (int kw = 0; kw < KW; kw++) {
				int iw = iw0 + kw * DW;
				if (iw >= 0 && iw < W)
					acc = cf_mac(acc, xg[(size_t)ic * plane + (size_t)ih * W + (size_t)iw],
						     wj[((size_t)(ic * KH + kh) * KW + (size_t)kw) * CF_NR]);
			}
		}
	return acc;
}

/* clamp, activation, store: the reference's epilogue */
static inline float cf_out(float acc, float lo, float hi, int32_t act, float p0, float p1)
{
	acc = rt_clampf(acc, lo, hi);
	return act >= 0 ? rt_unary(act, acc, p0, p1) : acc;
}

/* the epilogue on n vectors in place when lanes give the reference's
 * results (lo <= hi: rt_clampf is max then min, NaN kept; ReLU: v > 0 ?
 * v : 0); returns 0 when the scalar cf_out must do it */
static int cf_out_vec(float *v, int n, float lo, float hi, int32_t act)
{
	if (!(lo <= hi) || (act >= 0 && act != NPU_U_RELU))
		return 0;
	cf_v l = CF_SET1(lo), h = CF_SET1(hi), z = CF_SET1(0.0f);
	for (int i = 0; i < n; i++) {
		cf_v t = CF_LTSEL(h, CF_GTSEL(l, CF_LD(v + i * CF_VL)));
		CF_ST(v + i * CF_VL, act == NPU_U_RELU ? CF_GTSEL(t, z) : t);
	}
	return 1;
}

/* A 1x1 stride-1 convolution over whole rows is y[oc][p] = b + sum_k
 * w[oc][k] x[k][p] with pixels contiguous: lanes along pixels, a weight
 * broadcast per (oc, k), no packing and contiguous stores. A tile: MR
 * (1 or 4) channels x NV (1 or 3) vectors of pixels; accumulator i is
 * channel i / NV, vector i % NV. */
#define CF_PW(NAME, MR, NV, REP) \
	static void NAME(const float *x, size_t plane, const float *const *wr, size_t ws, int K, const float *b, \
			 float lo, float hi, int32_t act, int vec, float p0, float p1, float *const *yr) \
	{ \
		enum { NA = (MR) * (NV) }; \
		REP(CF_PDECL) \
		for (int k = 0; k < K; k++) { \
			const float *xk = x + (size_t)k * plane; \
			REP(CF_PSTEP) \
		} \
		REP(CF_PSTORE) \
	}
#define CF_PDECL(i) cf_v a##i = CF_SET1(b[(i) / (NV)]);
#define CF_PSTEP(i) \
	if ((i) < NA) \
		a##i = CF_MAC(a##i, CF_LD(xk + ((i) % (NV)) * CF_VL), CF_SET1(wr[(i) / (NV)][k * ws]));
/* Store accumulator A to YO: clamped (and ReLU) in lanes when vec, else
 * lane by lane through cf_out. */
#define CF_PUT(YO, A) \
	do { \
		float *yo_ = (YO); \
		if (vec) { \
			cf_v t = CF_LTSEL(CF_SET1(hi), CF_GTSEL(CF_SET1(lo), (A))); \
			CF_ST(yo_, act == NPU_U_RELU ? CF_GTSEL(t, CF_SET1(0.0f)) : t); \
		} else { \
			float o[CF_VL]; \
			CF_ST(o, (A)); \
			for (int l = 0; l < CF_VL; l++) \
				yo_[l] = cf_out(o[l], lo, hi, act, p0, p1); \
		} \
	} while (0)
#define CF_PSTORE(i) \
	if ((i) < NA) \
		CF_PUT(yr[(i) / (NV)] + ((i) % (NV)) * CF_VL, a##i);
#define NV 3
CF_PW(cf_pw43, 4, 3, CF_R12)
CF_PW(cf_pw13, 1, 3, CF_R4)
#undef NV
#define NV 1
CF_PW(cf_pw41, 4, 1, CF_R4)
CF_PW(cf_pw11, 1, 1, CF_R4)
#undef NV
#undef CF_PW
#undef CF_PDECL
#undef CF_PSTEP
#undef CF_PSTORE

/* The same sums over a packed panel of x: CF_PB = 3 CF_VL pixels of kn
 * consecutive input channels k0 .. k0 + kn - 1 (xp[k CF_PB + i]), MR
 * channels x 3 vectors. K is summed in chunks of at most CF_KC channels
 * (the panel stays in the cache); a chunk after the first continues from
 * the partial sums stored in y (a float stored and loaded back is the same
 * float: the order and the bits are the reference's), and only the last
 * one clamps and activates. */
#define CF_PB (3 * CF_VL)
#define CF_PP(NAME, MR, REP) \
	static void NAME(const float *xp, const float *const *wr, size_t ws, int k0, int kn, const float *b, int cont, \
			 int fin, float lo, float hi, int32_t act, int vec, float p0, float p1, float *const *yr) \
	{ \
		REP(CF_QDECL) \
		for (int k = 0; k < kn; k++) { \
			const float *xk = xp + (size_t)k * CF_PB; \
			REP(CF_QSTEP) \
		} \
		REP(CF_QSTORE) \
	}
#define CF_QDECL(i) cf_v a##i = cont ? CF_LD(yr[(i) / 3] + ((i) % 3) * CF_VL) : CF_SET1(b[(i) / 3]);
#define CF_QSTEP(i) \
	a##i = CF_MAC(a##i, CF_LD(xk + ((i) % 3) * CF_VL), CF_SET1(wr[(i) / 3][(size_t)(k0 + k) * ws]));
#define CF_QSTORE(i) \
	if (fin) \
		CF_PUT(yr[(i) / 3] + ((i) % 3) * CF_VL, a##i); \
	else \
		CF_ST(yr[(i) / 3] + ((i) % 3) * CF_VL, a##i);
/* channels per panel tile: 24 accumulators where there are 32 registers */
#if CF_VL == 16 || (CF_VL == 4 && defined(__aarch64__))
#define CF_PM 8
CF_PP(cf_pp8, 8, CF_R24)
#else
#define CF_PM 4
#endif
CF_PP(cf_pp4, 4, CF_R12)
CF_PP(cf_pp1, 1, CF_R3)
#undef CF_PP
#undef CF_QDECL
#undef CF_QSTEP
#undef CF_QSTORE

/* A stride-1 convolution's interior pixels of a row: like CF_PW, lanes
 * along pixels (x contiguous per tap), MR channels of the packed block wp
 * (weight of channel j, tap k at wp[k CF_NR + j]) broadcast per tap;
 * accumulator i is channel i / NV, vector i % NV. */
#define CF_PX(NAME, MR, NV, REP) \
	static void NAME(const float *x, ptrdiff_t xb, size_t plane, int W, int cg, int KH, int KW, int DH, int DW, \
			 int kh0, int kh1, const float *wp, const float *b, float lo, float hi, int32_t act, int vec, \
			 float p0, float p1, float *y, size_t P) \
	{ \
		enum { NA = (MR) * (NV) }; \
		REP(CF_XDECL) \
		for (int ic = 0; ic < cg; ic++) \
			for (int kh = kh0; kh < kh1; kh++) { \
				const float *xr = x + (ptrdiff_t)((size_t)ic * plane) + xb + (ptrdiff_t)kh * DH * W; \
				const float *wk = wp + (size_t)((ic * KH + kh) * KW) * CF_NR; \
				for (int kw = 0; kw < KW; kw++) { \
					const float *xk = xr + (ptrdiff_t)kw * DW, *wq = wk + (size_t)kw * CF_NR; \
					REP(CF_XSTEP) \
				} \
			} \
		REP(CF_XSTORE) \
	}
#define CF_XDECL(i) cf_v a##i = CF_SET1(b[(i) / (NV)]);
#define CF_XSTEP(i) \
	if ((i) < NA) \
		a##i = CF_MAC(a##i, CF_LD(xk + ((i) % (NV)) * CF_VL), CF_SET1(wq[(i) / (NV)]));
#define CF_XSTORE(i) \
	if ((i) < NA) \
		CF_PUT(y + (size_t)((i) / (NV)) * P + ((i) % (NV)) * CF_VL, a##i);
#define NV 3
CF_PX(cf_px43, 4, 3, CF_R12)
CF_PX(cf_px13, 1, 3, CF_R4)
#if CF_VL == 16	/* 24 accumulators where there are 32 registers */
CF_PX(cf_px83, 8, 3, CF_R24)
#endif
#undef NV
#define NV 1
CF_PX(cf_px81, 8, 1, CF_R12)
CF_PX(cf_px41, 4, 1, CF_R4)
CF_PX(cf_px11, 1, 1, CF_R4)
#undef NV
#undef CF_PX
#undef CF_XDECL
#undef CF_XSTEP
#undef CF_XSTORE
#undef CF_PUT

/* the pointwise path: P >= CF_VL pixels per image, groups of 1 */
static void cf_pointwise(const int32_t *p, void *const *a, float *scratch)
{
	const void *w = a[1], *bias = a[2];
	const float *x = a[0], *wscale = a[3];
	float *y = a[4];
	int N = p[NPU_CV_N], C = p[NPU_CV_C], OC = p[NPU_CV_OC], K = C;
	int32_t act = p[NPU_CV_ACT];
	float lo = rt_pf(p, NPU_CV_LO), hi = rt_pf(p, NPU_CV_HI), p0 = rt_pf(p, NPU_CV_P0), p1 = rt_pf(p, NPU_CV_P1);
	int vec = lo <= hi && (act < 0 || act == NPU_U_RELU), P = p[NPU_CV_OH] * p[NPU_CV_OW];
	size_t plane = (size_t)p[NPU_CV_H] * p[NPU_CV_W];
	/* float32 weights: whole panels of CF_PB pixels, packed from x in
	 * chunks of input channels, each panel against every channel (x is
	 * read once; the weights of a chunk stay in the cache); the pixels past
	 * the last whole panel below, straight from x */
	int PF = p[NPU_CV_WT] == NPU_T_F32 ? P / CF_PB * CF_PB : 0, packed = cf_packed(p);
	size_t ws = packed ? CF_NR : 1;	/* packed: w[oc][k] CF_NR floats after w[oc][k - 1] */
	for (int n = 0; n < N; n++)
		for (int q = 0; q < PF; q += CF_PB)
			for (int k0 = 0; k0 < K; k0 += CF_KC) {
				int kn = K - k0 < CF_KC ? K - k0 : CF_KC;
				const float *xq = x + (size_t)n * C * plane + (size_t)k0 * plane + q;
				for (int k = 0; k < kn; k++)
					memcpy(scratch + (size_t)k * CF_PB, xq + (size_t)k * plane, sizeof(float) * CF_PB);
				for (int oc = 0; oc < OC;) {
					int mr = OC - oc >= CF_PM ? CF_PM : OC - oc >= 4 ? 4 : 1;
					const float *wr[CF_PM];
					float b[CF_PM], *yr[CF_PM];
					for (int m = 0; m < mr; m++) {
						wr[m] = (const float *)w + (packed ? cf_packed_at(p, oc + m, K) : (size_t)(oc + m) * K);
						b[m] = bias ? ((const float *)bias)[oc + m] : 0.0f;
						yr[m] = y + ((size_t)n * OC + oc + m) * (size_t)P + q;
					}
					int cont = k0 > 0, fin = k0 + kn == K;
#if CF_PM == 8
					if (mr == 8)
						cf_pp8(scratch, wr, ws, k0, kn, b, cont, fin, lo, hi, act, vec, p0, p1, yr);
					else
#endif
					if (mr == 4)
						cf_pp4(scratch, wr, ws, k0, kn, b, cont, fin, lo, hi, act, vec, p0, p1, yr);
					else
						cf_pp1(scratch, wr, ws, k0, kn, b, cont, fin, lo, hi, act, vec, p0, p1, yr);
					oc += mr;
				}
			}
	if (PF == P)
		return;
	for (int oc = 0; oc < OC; oc += 4) {
		int mr = OC - oc < 4 ? 1 : 4;
		const float *wr[4];
		float b[4];
		for (int m = 0; m < mr; m++) {
			if (p[NPU_CV_WT] == NPU_T_F32) {
				wr[m] = (const float *)w + (packed ? cf_packed_at(p, oc + m, K) : (size_t)(oc + m) * K);
			} else {
				cf_weights(p, w, wscale, oc + m, K, scratch + (size_t)m * K);
				wr[m] = scratch + (size_t)m * K;
			}
			b[m] = bias ? ((const float *)bias)[oc + m] : 0.0f;
		}
		for (int n = 0; n < N; n++) {
			const float *xn = x + (size_t)n * C * plane;
			for (int q = PF; q < P;) {
				int nv = P - q >= 3 * CF_VL ? 3 : 1, at = q;
				if (P - q < CF_VL)	/* overlap the vector before */
					at = P - CF_VL;
				float *yr[4];
				for (int m = 0; m < mr; m++)
					yr[m] = y + ((size_t)n * OC + oc + m) * (size_t)P + at;
				if (mr == 4 && nv == 3)
					cf_pw43(xn + at, plane, wr, p[NPU_CV_WT] == NPU_T_F32 ? ws : 1, K, b, lo, hi, act, vec, p0, p1, yr);
				else if (mr == 4)
					cf_pw41(xn + at, plane, wr, p[NPU_CV_WT] == NPU_T_F32 ? ws : 1, K, b, lo, hi, act, vec, p0, p1, yr);
				else if (nv == 3)
					cf_pw13(xn + at, plane, wr, p[NPU_CV_WT] == NPU_T_F32 ? ws : 1, K, b, lo, hi, act, vec, p0, p1, yr);
				else
					cf_pw11(xn + at, plane, wr, p[NPU_CV_WT] == NPU_T_F32 ? ws : 1, K, b, lo, hi, act, vec, p0, p1, yr);
				q = at + nv * CF_VL;
			}
		}
		if (mr == 1)
			oc -= 3;	/* the remainder one channel at a time */
	}
}

/* outputs ilo .. ihi - 1 (ihi - ilo >= CF_VL) of a stride-1 row for the
 * nr channels of the packed block: 4 channels x 3 vectors at a time, then
 * single vectors, the last one overlapping the one before */
static void cf_rowpx(const float *xg, ptrdiff_t xrow, size_t plane, int W, int cg, int KH, int KW, int DH, int DW,
		     int kh0, int kh1, const float *wp, const float *b, int nr, int ilo, int ihi, float lo, float hi,
		     int32_t act, int vec, float p0, float p1, float *yr, size_t P)
{
	for (int j = 0; j < nr;) {
		int mr = nr - j >= 8 ? 8 : nr - j >= 4 ? 4 : 1;
		for (int q = ilo; q < ihi;) {
			int nv = ihi - q >= 3 * CF_VL ? 3 : 1, at = ihi - q < CF_VL ? ihi - CF_VL : q;
			ptrdiff_t xb = xrow + at;
			float *y = yr + (size_t)j * P + (size_t)at;
#if CF_VL == 16
			if (mr == 8 && nv == 3)	/* x loaded once for 8 channels */
				cf_px83(xg, xb, plane, W, cg, KH, KW, DH, DW, kh0, kh1, wp + j, b + j, lo, hi, act, vec, p0, p1, y, P);
			else
#endif
			if (mr == 8 && nv == 3) {	/* 8 accumulators at least: the adds' latency */
				cf_px43(xg, xb, plane, W, cg, KH, KW, DH, DW, kh0, kh1, wp + j, b + j, lo, hi, act, vec, p0, p1, y, P);
				cf_px43(xg, xb, plane, W, cg, KH, KW, DH, DW, kh0, kh1, wp + j + 4, b + j + 4, lo, hi, act, vec, p0,
					p1, y + 4 * P, P);
			} else if (mr == 8)
				cf_px81(xg, xb, plane, W, cg, KH, KW, DH, DW, kh0, kh1, wp + j, b + j, lo, hi, act, vec, p0, p1, y, P);
			else if (mr == 4 && nv == 3)
				cf_px43(xg, xb, plane, W, cg, KH, KW, DH, DW, kh0, kh1, wp + j, b + j, lo, hi, act, vec, p0, p1, y, P);
			else if (mr == 4)
				cf_px41(xg, xb, plane, W, cg, KH, KW, DH, DW, kh0, kh1, wp + j, b + j, lo, hi, act, vec, p0, p1, y, P);
			else if (nv == 3)
				cf_px13(xg, xb, plane, W, cg, KH, KW, DH, DW, kh0, kh1, wp + j, b + j, lo, hi, act, vec, p0, p1, y, P);
			else
				cf_px11(xg, xb, plane, W, cg, KH, KW, DH, DW, kh0, kh1, wp + j, b + j, lo, hi, act, vec, p0, p1, y, P);
			q = at + nv * CF_VL;
		}
		j += mr;
	}
}

/* cf_conv with packed float32 weights: per image and group the stride-1
 * interior columns in lanes of pixels (cf_rowpx, block by block), then
 * the other pixels in raster order in panel tiles of CF_TP (the tiles of
 * a run balanced), each panel gathered once for all the channel blocks */
static void cf_conv_packed(const int32_t *p, void *const *a, float *scratch)
{
	const float *x = a[0], *w = a[1], *bias = a[2];
	float *y = a[4];
	int N = p[NPU_CV_N], C = p[NPU_CV_C], H = p[NPU_CV_H], W = p[NPU_CV_W], OC = p[NPU_CV_OC];
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW];
	int SH = p[NPU_CV_SH], SW = p[NPU_CV_SW], PT = p[NPU_CV_PT], PL = p[NPU_CV_PL];
	int DH = p[NPU_CV_DH], DW = p[NPU_CV_DW], G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1;
	int32_t act = p[NPU_CV_ACT];
	float lo = rt_pf(p, NPU_CV_LO), hi = rt_pf(p, NPU_CV_HI), p0 = rt_pf(p, NPU_CV_P0), p1 = rt_pf(p, NPU_CV_P1);
	int cg = C / G, og = OC / G, K = cg * KH * KW, ilo, ihi, vec = lo <= hi && (act < 0 || act == NPU_U_RELU);
	size_t plane = (size_t)H * W, P = (size_t)OH * OW;
	float *xp = scratch;	/* tg panels of K x CF_TP floats (cf_gpx) */
	int tg = cf_gpx(K) / CF_TP, kt = K > 8 * CF_KT ? CF_KT : K;	/* chunks where a block pair's weights are large */
	size_t off[CF_TAPS * CF_TP];
	uint32_t msk[CF_TAPS * CF_TP];
	float b[CF_TB * CF_NR], outs[CF_GPX * CF_TB * CF_NR];
	cf_interior(W, OW, KW, SW, PL, DW, &ilo, &ihi);
	int pa = SW == 1 && ihi - ilo >= (K < 512 ? CF_VL : 3 * CF_VL), skip = pa ? ihi - ilo : 0, no = OW - skip, cnt = OH * no;
	for (int gr = 0; gr < G; gr++)
		for (int n = 0; n < N; n++) {
			const float *xg = x + ((size_t)n * C + (size_t)gr * cg) * plane;
			float *yg = y + ((size_t)n * OC + (size_t)gr * og) * P;
			for (int ob = 0; ob < og && pa; ob += CF_NR) {
				int nr = og - ob < CF_NR ? og - ob : CF_NR;
				const float *wp = w + cf_packed_at(p, gr * og + ob, K);
				for (int j = 0; j < CF_NR; j++)
					b[j] = j < nr && bias ? bias[gr * og + ob + j] : 0.0f;
				for (int oh = 0; oh < OH; oh++) {
					int kh0, kh1;
					cf_taps(oh, SH, PT, DH, KH, H, &kh0, &kh1);
					cf_rowpx(xg, (ptrdiff_t)(oh * SH - PT) * W - PL, plane, W, cg, KH, KW, DH, DW, kh0, kh1, wp,
						 b, nr, ilo, ihi, lo, hi, act, vec, p0, p1, yg + (size_t)ob * P + (size_t)oh * OW, P);
				}
			}
			for (int t0 = 0; t0 < cnt;) {
				int nt = 0, tp[CF_GPX / CF_TP + 1], ih0[CF_GPX], iw0[CF_GPX];
				size_t at[CF_GPX];
				for (; nt < tg && t0 < cnt; nt++) {	/* gather the group's panels */
					int left = (cnt - t0 + CF_TP - 1) / CF_TP, np = (cnt - t0 + left - 1) / left;
					float *d = xp + (size_t)nt * K * CF_TP;
					tp[nt] = np;
					for (int m = 0; m < CF_TP; m++) {
						int g = nt * CF_TP + m, oh = (t0 + m) / no, c = (t0 + m) % no, ow = c < ilo ? c : c + skip;
						ih0[g] = oh * SH - PT, iw0[g] = ow * SW - PL, at[g] = (size_t)oh * OW + (size_t)ow;
					}
					/* per tap and pixel: the x offset (0 outside) and a mask
					 * that keeps the bits (0 outside: +0.0f) */
					for (int kh = 0, t = 0; kh < KH; kh++)
						for (int kw = 0; kw < KW; kw++, t++)
							for (int m = 0; m < CF_TP; m++) {
								int g = nt * CF_TP + m, ih = ih0[g] + kh * DH, iw = iw0[g] + kw * DW;
								int in = m < np && ih >= 0 && ih < H && iw >= 0 && iw < W;
								off[t * CF_TP + m] = in ? (size_t)ih * W + (size_t)iw : 0;
								msk[t * CF_TP + m] = in ? 0xffffffffu : 0;
							}
					for (int ic = 0; ic < cg; ic++) {
						const float *xc = xg + (size_t)ic * plane;
						for (int t = 0; t < KH * KW; t++, d += CF_TP)
							for (int m = 0; m < CF_TP; m++) {
								uint32_t u;
								memcpy(&u, xc + off[t * CF_TP + m], 4);
								u &= msk[t * CF_TP + m];
								memcpy(d + m, &u, 4);
							}
					}
					t0 += np;
				}
				for (int ob = 0; ob < og; ob += CF_TB * CF_NR) {	/* the weights stay in the cache */
					int nb = og - ob > CF_NR && CF_TB == 2 ? 2 : 1, nr = og - ob < nb * CF_NR ? og - ob : nb * CF_NR;
					const float *wp = w + cf_packed_at(p, gr * og + ob, K);
					for (int j = 0; j < nb * CF_NR; j++)
						b[j] = j < nr && bias ? bias[gr * og + ob + j] : 0.0f;
					/* K in chunks of CF_KT (K > 8 CF_KT: a pair's weights
					 * over 256 KiB), each against every tile of the group:
					 * the chunk's weights come from memory once for all of
					 * them; the sums go on from out (a float stored and
					 * loaded back is the same float) */
					for (int k0 = 0; k0 < K; k0 += kt) {
						int kn = K - k0 < kt ? K - k0 : kt;
						for (int i = 0; i < nt; i++) {
							const float *xi = xp + (size_t)i * K * CF_TP + (size_t)k0 * CF_TP;
							float *out = outs + i * CF_TP * CF_TB * CF_NR;
#if CF_TB == 2
							if (nb == 2)
								cf_pt2(xi, wp + (size_t)k0 * CF_NR, (size_t)K * CF_NR, kn, b, k0 > 0, out);
							else
#endif
								cf_pt1(xi, wp + (size_t)k0 * CF_NR, 0, kn, b, k0 > 0, out);
						}
					}
					for (int i = 0; i < nt; i++) {
						const int *hh = ih0 + i * CF_TP, *ww = iw0 + i * CF_TP;
						const size_t *aa = at + i * CF_TP;
						int np = tp[i], nv = nb * CF_NV;
						float *out = outs + i * CF_TP * CF_TB * CF_NR;
						for (int v = 0; v < np * nv; v++)	/* sums 0 or NaN again */
							if (CF_ZN(CF_LD(out + v * CF_VL)))
								for (int l = 0; l < CF_VL; l++) {
									int m = v / nv, j = v % nv * CF_VL + l;
									float t = out[v * CF_VL + l];
									if (j < nr && !(t < 0.0f || t > 0.0f))
										out[v * CF_VL + l] = cf_resum(xg, wp + (size_t)(j / CF_NR) * K * CF_NR + j % CF_NR, b[j],
													       cg, plane, H, W, KH, KW, DH, DW, hh[m], ww[m]);
								}
						if (cf_out_vec(out, np * nv, lo, hi, act))
							for (int j = 0; j < nr; j++)
								for (int m = 0; m < np; m++)
									yg[(size_t)(ob + j) * P + aa[m]] = out[m * nb * CF_NR + j];
						else
							for (int j = 0; j < nr; j++)
								for (int m = 0; m < np; m++)
									yg[(size_t)(ob + j) * P + aa[m]] = cf_out(out[m * nb * CF_NR + j], lo, hi, act, p0, p1);
					}
				}
			}
		}
}

static void cf_conv(const int32_t *p, void *const *a, float *scratch)
{
	const void *w = a[1], *bias = a[2];
	const float *x = a[0], *wscale = a[3];
	float *y = a[4];
	int N = p[NPU_CV_N], C = p[NPU_CV_C], H = p[NPU_CV_H], W = p[NPU_CV_W], OC = p[NPU_CV_OC];
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW];
	int SH = p[NPU_CV_SH], SW = p[NPU_CV_SW], PT = p[NPU_CV_PT], PL = p[NPU_CV_PL];
	int DH = p[NPU_CV_DH], DW = p[NPU_CV_DW], G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1;
	int32_t act = p[NPU_CV_ACT];
	float lo = rt_pf(p, NPU_CV_LO), hi = rt_pf(p, NPU_CV_HI), p0 = rt_pf(p, NPU_CV_P0), p1 = rt_pf(p, NPU_CV_P1);
	int cg = C / G, og = OC / G, K = cg * KH * KW, ilo, ihi, vec = lo <= hi && (act < 0 || act == NPU_U_RELU);
	size_t plane = (size_t)H * W, P = (size_t)OH * OW;
	float *wt = scratch, *wf = scratch + (size_t)K * CF_NR;
	float b[CF_NR], out[CF_MP * CF_NR];
	int packed = cf_packed(p);
	if (packed && cf_panels(p, K)) {
		cf_conv_packed(p, a, scratch);
		return;
	}
	/* a 1x1 stride 1 conv without padding over whole rows: one row of P
	 * pixels */
	if (KH == 1 && KW == 1 && SH == 1 && SW == 1 && PT == 0 && PL == 0 && OW == W)
		OW = (int)P, W = OW, OH = 1;
	/* interior columns: all KW taps inside the row */
	cf_interior(W, OW, KW, SW, PL, DW, &ilo, &ihi);
	for (int gr = 0; gr < G; gr++)
		for (int ob = 0; ob < og; ob += CF_NR) {
			int nr = og - ob < CF_NR ? og - ob : CF_NR, oc0 = gr * og + ob;
			const float *wp = wt;	/* the block's weights [K][CF_NR] */
			if (packed) {	/* as npu-emit packed them */
				wp = (const float *)w + cf_packed_at(p, oc0, K);
			} else if (p[NPU_CV_WT] == NPU_T_F32) {	/* straight from w: rows written whole */
				const float *wo = (const float *)w + (size_t)oc0 * K;
				for (int k = 0; k < K; k++) {
					float *r = wt + (size_t)k * CF_NR;
					int j = 0;
					for (; j < nr; j++)
						r[j] = wo[(size_t)j * K + k];
					for (; j < CF_NR; j++)
						r[j] = 0.0f;
				}
			} else {
				for (int j = 0; j < CF_NR; j++) {
					if (j < nr)
						cf_weights(p, w, wscale, oc0 + j, K, wf);
					for (int k = 0; k < K; k++)
						wt[(size_t)k * CF_NR + j] = j < nr ? wf[k] : 0.0f;
				}
			}
			for (int j = 0; j < CF_NR; j++)
				b[j] = j < nr && bias ? ((const float *)bias)[oc0 + j] : 0.0f;
			for (int n = 0; n < N; n++) {
				const float *xg = x + ((size_t)n * C + (size_t)gr * cg) * plane;
				float *yb = y + ((size_t)n * OC + oc0) * P;
				/* stride 1: the interior columns in lanes of pixels */
				int pa = SW == 1 && ihi - ilo >= CF_VL;
				for (int oh = 0; oh < OH && pa; oh++) {
					int kh0, kh1;
					cf_taps(oh, SH, PT, DH, KH, H, &kh0, &kh1);
					cf_rowpx(xg, (ptrdiff_t)(oh * SH - PT) * W - PL, plane, W, cg, KH, KW, DH, DW, kh0, kh1, wp, b,
						 nr, ilo, ihi, lo, hi, act, vec, p0, p1, yb + (size_t)oh * OW, P);
				}
				/* the other pixels in tiles of CF_MP with one window shape:
				 * runs of rows with the same kernel rows inside x runs of
				 * columns with the same kernel columns inside */
				for (int r0 = 0, r1; r0 < OH; r0 = r1) {
					int kh0, kh1, u0, u1;
					cf_taps(r0, SH, PT, DH, KH, H, &kh0, &kh1);
					for (r1 = r0 + 1; r1 < OH; r1++) {
						cf_taps(r1, SH, PT, DH, KH, H, &u0, &u1);
						if (u0 != kh0 || u1 != kh1)
							break;
					}
					for (int c0 = 0, c1; c0 < OW; c0 = c1) {
						int kw0, kw1;
						cf_taps(c0, SW, PL, DW, KW, W, &kw0, &kw1);
						for (c1 = c0 + 1; c1 < OW; c1++) {
							cf_taps(c1, SW, PL, DW, KW, W, &u0, &u1);
							if (u0 != kw0 || u1 != kw1)
								break;
						}
						if (pa && kw0 == 0 && kw1 == KW)	/* done above */
							continue;
						int cw = c1 - c0, cnt = (r1 - r0) * cw;
						for (int t0 = 0; t0 < cnt; t0 += CF_MP) {
							int np = cnt - t0 < CF_MP ? cnt - t0 : CF_MP;
							ptrdiff_t xo[CF_MP];
							size_t at[CF_MP];
							for (int m = 0; m < CF_MP; m++) {
								int t = t0 + (m < np ? m : np - 1), oh = r0 + t / cw, ow = c0 + t % cw;
								xo[m] = (ptrdiff_t)(oh * SH - PT) * W + (ptrdiff_t)ow * SW - PL;
								at[m] = (size_t)oh * OW + (size_t)ow;
							}
							if (np == 1)
								cf_tile1(xg, xo, wp, cg, plane, W, KH, KW, DH, DW, kh0, kh1, kw0, kw1, b, out);
							else
								cf_tilen(xg, xo, wp, cg, plane, W, KH, KW, DH, DW, kh0, kh1, kw0, kw1, b, out);
							if (cf_out_vec(out, np * CF_NV, lo, hi, act))
								for (int j = 0; j < nr; j++)
									for (int m = 0; m < np; m++)
										yb[(size_t)j * P + at[m]] = out[m * CF_NR + j];
							else
								for (int j = 0; j < nr; j++)
									for (int m = 0; m < np; m++)
										yb[(size_t)j * P + at[m]] =
											cf_out(out[m * CF_NR + j], lo, hi, act, p0, p1);
						}
					}
				}
			}
		}
}

/* depthwise: per channel and output row, CF_DL interior pixels at a time
 * (stride 1: one load per tap; 2: two loads deinterleaved on AVX2, else
 * gathered), a last partial block overlapping the one before (the same
 * values again), the other pixels alone. 8 lanes at most: rows are short. */
#if CF_VL >= 8
#define CF_DL 8
typedef __m256 cf_d;
#define CF_DLD(p) _mm256_loadu_ps(p)
#define CF_DST(p, v) _mm256_storeu_ps(p, v)
#define CF_DSET1(f) _mm256_set1_ps(f)
#if defined(NPU_F32_FMA)
#define CF_DMAC(a, x, w) _mm256_fmadd_ps(x, w, a)
#else
#define CF_DMAC(a, x, w) _mm256_add_ps(a, _mm256_mul_ps(x, w))
#endif
#define CF_DGTSEL(a, b) _mm256_max_ps(a, b)
#define CF_DLTSEL(a, b) _mm256_min_ps(a, b)
#define CF_DZN(v) _mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_EQ_UQ))	/* a lane 0 or NaN */
/* x[0], x[2], ..., x[14] (reads x[15]) */
static inline __m256 cf_dld2(const float *x)
{
	__m256 e = _mm256_shuffle_ps(_mm256_loadu_ps(x), _mm256_loadu_ps(x + 8), 0x88);
	return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xd8));
}
#else
#define CF_DL CF_VL
typedef cf_v cf_d;
#define CF_DLD(p) CF_LD(p)
#define CF_DST(p, v) CF_ST(p, v)
#define CF_DSET1(f) CF_SET1(f)
#define CF_DMAC(a, x, w) CF_MAC(a, x, w)
#define CF_DGTSEL(a, b) CF_GTSEL(a, b)
#define CF_DLTSEL(a, b) CF_LTSEL(a, b)
#define CF_DZN(v) CF_ZN(v)
#endif

/* the CF_DL inputs of a tap for consecutive outputs (stride SW) */
static inline cf_d cf_dld(const float *xp, int SW)
{
	if (SW == 1)
		return CF_DLD(xp);
#if CF_VL >= 8
	if (SW == 2)
		return cf_dld2(xp);
#endif
	float t[CF_DL];
	for (int l = 0; l < CF_DL; l++)
		t[l] = xp[(ptrdiff_t)l * SW];
	return CF_DLD(t);
}

/* the epilogue of cf_dwrow in lanes (vec) */
static inline cf_d cf_dout(cf_d v, int vec, float lo, float hi, int32_t act)
{
	if (vec) {
		v = CF_DLTSEL(CF_DSET1(hi), CF_DGTSEL(CF_DSET1(lo), v));
		if (act == NPU_U_RELU)
			v = CF_DGTSEL(v, CF_DSET1(0.0f));
	}
	return v;
}

/* cf_dwrow for 4 blocks of CF_DL outputs, ow + s1 * i / 3 .. (i = 0 .. 3;
 * s1 = 3 CF_DL: ow .. ow + 4 CF_DL - 1; less: blocks that overlap, the
 * same values again): four independent sums in flight (one would wait on
 * each add's latency) */
static inline int cf_dwrow4(const float *xc, ptrdiff_t xrow, int ow, int s1, int SW, int DH, int DW, int W, int kh0,
			    int kh1, int KW, const float *wf, float b, int vec, float lo, float hi, int32_t act, float *o)
{
	cf_d a0 = CF_DSET1(b), a1 = a0, a2 = a0, a3 = a0;
	int o1 = s1 / 3, o2 = 2 * s1 / 3;
	ptrdiff_t b1 = (ptrdiff_t)o1 * SW, b2 = (ptrdiff_t)o2 * SW, b3 = (ptrdiff_t)s1 * SW;
	for (int kh = kh0; kh < kh1; kh++) {
		const float *xr = xc + xrow + (ptrdiff_t)kh * DH * W + (ptrdiff_t)ow * SW;
		for (int kw = 0; kw < KW; kw++) {
			const float *xp = xr + (ptrdiff_t)kw * DW;
			cf_d wv = CF_DSET1(wf[kh * KW + kw]);
			a0 = CF_DMAC(a0, cf_dld(xp, SW), wv);
			a1 = CF_DMAC(a1, cf_dld(xp + b1, SW), wv);
			a2 = CF_DMAC(a2, cf_dld(xp + b2, SW), wv);
			a3 = CF_DMAC(a3, cf_dld(xp + b3, SW), wv);
		}
	}
	CF_DST(o, cf_dout(a0, vec, lo, hi, act));
	CF_DST(o + o1, cf_dout(a1, vec, lo, hi, act));
	CF_DST(o + o2, cf_dout(a2, vec, lo, hi, act));
	CF_DST(o + s1, cf_dout(a3, vec, lo, hi, act));
	return CF_DZN(a0) | CF_DZN(a1) | CF_DZN(a2) | CF_DZN(a3);
}

/* outputs ow .. ow + CF_DL - 1 of a row, every tap inside the row, into
 * o; with vec (cf_out_vec's condition) clamped and ReLU'd as cf_out does;
 * nonzero when a sum is 0 or NaN (cf_dwrow4 too) */
static inline int cf_dwrow(const float *xc, ptrdiff_t xrow, int ow, int SW, int DH, int DW, int W, int kh0, int kh1,
			    int KW, const float *wf, float b, int vec, float lo, float hi, int32_t act, float *o)
{
	cf_d acc = CF_DSET1(b);
	for (int kh = kh0; kh < kh1; kh++) {
		ptrdiff_t xr = xrow + (ptrdiff_t)kh * DH * W + (ptrdiff_t)ow * SW;
		for (int kw = 0; kw < KW; kw++)
			acc = CF_DMAC(acc, cf_dld(xc + xr + (ptrdiff_t)kw * DW, SW), CF_DSET1(wf[kh * KW + kw]));
	}
	CF_DST(o, cf_dout(acc, vec, lo, hi, act));
	return CF_DZN(acc);
}

/* Depthwise over a zero-padded copy of each channel plane (scratch, after
 * the weights): every output is a vector lane, CF_DL or 4 CF_DL at a time
 * (a last block overlapping the one before, or a partial one). A tap in
 * the padding adds 0 w = +-0 (w finite), which leaves any sum that is not
 * zero unchanged: a sum that is zero (where the sign of zero can differ)
 * or NaN (w infinite or NaN) is summed again over the taps inside the
 * input, as the reference does; then the epilogue. */
static void cf_dwpad(const int32_t *p, void *const *a, float *wf)
{
	const void *w = a[1], *bias = a[2];
	const float *x = a[0], *wscale = a[3];
	float *y = a[4];
	int N = p[NPU_CV_N], C = p[NPU_CV_C], H = p[NPU_CV_H], W = p[NPU_CV_W];
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW];
	int SH = p[NPU_CV_SH], SW = p[NPU_CV_SW], PT = p[NPU_CV_PT], PL = p[NPU_CV_PL];
	int DH = p[NPU_CV_DH], DW = p[NPU_CV_DW], K = KH * KW;
	int32_t act = p[NPU_CV_ACT];
	float lo = rt_pf(p, NPU_CV_LO), hi = rt_pf(p, NPU_CV_HI), p0 = rt_pf(p, NPU_CV_P0), p1 = rt_pf(p, NPU_CV_P1);
	int vec = lo <= hi && (act < 0 || act == NPU_U_RELU);	/* the epilogue in lanes */
	int64_t rs64, np = cf_dw_plane(p, &rs64);
	int Hp = (OH - 1) * SH + (KH - 1) * DH + 1, Wp = (OW - 1) * SW + (KW - 1) * DW + 1, rs = (int)rs64;
	int nr = H < Hp - PT ? H : Hp - PT, nc = W < Wp - PL ? W : Wp - PL;	/* rows, columns copied */
	size_t plane = (size_t)H * W, P = (size_t)OH * OW;
	float *xp = wf + ((K + 15) & ~15);
	memset(xp, 0, sizeof(float) * (size_t)np);	/* the padding stays zero */
	for (int c = 0; c < C; c++) {
		cf_weights(p, w, wscale, c, K, wf);
		float b = bias ? ((const float *)bias)[c] : 0.0f;
		for (int n = 0; n < N; n++) {
			const float *xc = x + ((size_t)n * C + c) * plane;
			float *yc = y + ((size_t)n * C + c) * P;
			for (int ih = 0; ih < nr && nc > 0; ih++)
				memcpy(xp + (size_t)(PT + ih) * rs + PL, xc + (size_t)ih * W, sizeof(float) * (size_t)nc);
			for (int oh = 0; oh < OH; oh++) {
				ptrdiff_t xrow = (ptrdiff_t)oh * SH * rs;
				float *yr = yc + (size_t)oh * OW;
				int kh0, kh1;
				cf_taps(oh, SH, PT, DH, KH, H, &kh0, &kh1);
				for (int ow = 0, at, m, z; ow < OW; ow = at + m) {
					if (ow + 4 * CF_DL <= OW || (OW >= 4 * CF_DL && OW - ow > 2 * CF_DL)) {
						/* the last 4 blocks overlap the ones before (a tail
						 * of 2 blocks or less: those alone, below) */
						at = ow + 4 * CF_DL <= OW ? ow : OW - 4 * CF_DL, m = 4 * CF_DL;
						z = cf_dwrow4(xp, xrow, at, 3 * CF_DL, SW, DH, DW, rs, 0, KH, KW, wf, b, vec, lo, hi, act,
							      yr + at);
					} else if (OW >= 4 * CF_DL) {	/* the last block may overlap the one before */
						at = ow + CF_DL <= OW ? ow : OW - CF_DL, m = CF_DL;
						z = cf_dwrow(xp, xrow, at, SW, DH, DW, rs, 0, KH, KW, wf, b, vec, lo, hi, act, yr + at);
					} else if (OW >= CF_DL) {	/* a row of CF_DL .. 4 CF_DL - 1: 4 overlapping blocks */
						at = 0, m = OW;
						z = cf_dwrow4(xp, xrow, 0, OW - CF_DL, SW, DH, DW, rs, 0, KH, KW, wf, b, vec, lo, hi, act, yr);
					} else {
						float o[CF_DL];
						at = 0, m = OW;
						z = cf_dwrow(xp, xrow, 0, SW, DH, DW, rs, 0, KH, KW, wf, b, vec, lo, hi, act, o);
						memcpy(yr, o, sizeof(float) * (size_t)OW);
					}
					if (!z && vec)	/* final */
						continue;
					/* a sum of 0 or NaN again as the reference does; the
					 * epilogue on the raw sums */
					for (int i = at; i < at + m; i++) {
						float v = yr[i];
						if (z) {
							int kw0, kw1;
							cf_taps(i, SW, PL, DW, KW, W, &kw0, &kw1);
							ptrdiff_t xr = (ptrdiff_t)(oh * SH - PT) * W + (ptrdiff_t)i * SW - PL;
							v = b;
							for (int kh = kh0; kh < kh1; kh++)
								for (int kw = kw0; kw < kw1; kw++)
									v = cf_mac(v, xc[xr + (ptrdiff_t)kh * DH * W + (ptrdiff_t)kw * DW],
										   wf[kh * KW + kw]);
						}
						yr[i] = cf_out(v, lo, hi, act, p0, p1);
					}
				}
			}
		}
	}
}
#endif

/* the reference */
static void cf_reference(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0], *w = a[1], *bias = a[2];
	const float *wscale = a[3];
	void *y = a[4];
	int N = p[NPU_CV_N], C = p[NPU_CV_C], H = p[NPU_CV_H], W = p[NPU_CV_W], OC = p[NPU_CV_OC];
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW];
	int SH = p[NPU_CV_SH], SW = p[NPU_CV_SW], PT = p[NPU_CV_PT], PL = p[NPU_CV_PL];
	int DH = p[NPU_CV_DH], DW = p[NPU_CV_DW], G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1;
	int32_t XT = p[NPU_CV_XT], YT = p[NPU_CV_YT], act = p[NPU_CV_ACT];
	float lo = rt_pf(p, NPU_CV_LO), hi = rt_pf(p, NPU_CV_HI), p0 = rt_pf(p, NPU_CV_P0), p1 = rt_pf(p, NPU_CV_P1);
	int cg = C / G, og = OC / G, k = cg * KH * KW;
	float *wf = scratch;
	if (cg < 1 || og < 1 || C % G != 0 || OC % G != 0 || k < 1)	/* not a convolution */
		return;
	size_t yi = 0;
	for (int n = 0; n < N; n++)
		for (int oc = 0; oc < OC; oc++) {
			int gr = oc / og;
			cf_weights(p, w, wscale, oc, k, wf);
			for (int oh = 0; oh < OH; oh++)
				for (int ow = 0; ow < OW; ow++) {
					float acc = bias ? rt_ldf(bias, XT, (size_t)oc) : 0.0f;
					for (int ic = 0; ic < cg; ic++) {
						size_t xc = ((size_t)n * C + (size_t)gr * cg + ic) * H * W;
						const float *wc = wf + (size_t)ic * KH * KW;
						for (int kh = 0; kh < KH; kh++) {
							int ih = oh * SH - PT + kh * DH;
							if (ih < 0 || ih >= H)
								continue;
							for (int kw = 0; kw < KW; kw++) {
								int iw = ow * SW - PL + kw * DW;
								if (iw < 0 || iw >= W)
									continue;
								acc = cf_mac(acc, rt_ldf(x, XT, xc + (size_t)ih * W + iw), wc[kh * KW + kw]);
							}
						}
					}
					acc = rt_clampf(acc, lo, hi);
					if (act >= 0)
						acc = rt_unary(act, acc, p0, p1);
					rt_stf(y, YT, yi++, acc);
				}
		}
}
static void k_conv_f(const int32_t *p, void *const *a, void *scratch)
{
#if CF_VL > 0
	if (cf_fast_scratch(p)) {
		int G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1;
		int64_t rs;
		if (p[NPU_CV_C] == p[NPU_CV_OC] && G == p[NPU_CV_C]) {
			if (!cf_dw_plane(p, &rs))	/* negative padding, a huge plane */
				cf_reference(p, a, scratch);
			else
				cf_dwpad(p, a, scratch);
		} else if (G == 1 && p[NPU_CV_KH] == 1 && p[NPU_CV_KW] == 1 && p[NPU_CV_SH] == 1 && p[NPU_CV_SW] == 1 &&
			 p[NPU_CV_PT] == 0 && p[NPU_CV_PL] == 0 && p[NPU_CV_OW] == p[NPU_CV_W] &&
			 p[NPU_CV_OH] * p[NPU_CV_OW] >= CF_VL &&
			 !(p[NPU_CV_OH] * p[NPU_CV_OW] < 2 * CF_PB && cf_packed(p) && p[NPU_CV_OC] > 4 * CF_NR))
			cf_pointwise(p, a, scratch);	/* else a few pixels: the panel tiles waste fewer lanes */
		else
			cf_conv(p, a, scratch);
		return;
	}
#endif
	cf_reference(p, a, scratch);
}
/* @npu-end */

/* @npu-kernel ELTWISE_Q */
static void k_eltwise_q(const int32_t *p, void *const *a, void *scratch)
{
	const void *x0 = a[0], *x1 = a[1];
	void *y = a[2];
	const int32_t *cnt = p + NPU_EW_COUNTS, *sa = p + NPU_EW_SA, *sb = p + NPU_EW_SB;
	int32_t op = p[NPU_EW_OP], AT = p[NPU_EW_AT], BT = p[NPU_EW_BT], YT = p[NPU_EW_YT];
	int64_t ZA = p[NPU_EW_ZA], ZB = p[NPU_EW_ZB];
	int32_t ZY = p[NPU_EW_ZY], MA = p[NPU_EW_MA], MB = p[NPU_EW_MB], LO = p[NPU_EW_LO], HI = p[NPU_EW_HI];
	int s = rt_shift(p[NPU_EW_SHIFT]);
	const int64_t dl = ((int64_t)1 << 31) - 1;	/* int32 operands: keep products in int64 */
	int32_t idx[NPU_WALK_DIMS] = {0};
	size_t rows = rt_walk_rows(cnt), yi = 0;
	int32_t n5 = cnt[NPU_WALK_DIMS - 1], a5 = sa[NPU_WALK_DIMS - 1], b5 = sb[NPU_WALK_DIMS - 1];
	rt_uq q;
	(void)scratch;
	if (AT == NPU_T_I8 && BT == NPU_T_I8 && YT == NPU_T_I8 && (op == NPU_BIN_ADD || op == NPU_BIN_SUB) &&
	    MA >= 0 && MB >= 0 && (a5 == 0 || a5 == 1) && (b5 == 0 || b5 == 1) && ZA >= -128 && ZA <= 127 &&
	    ZB >= -128 && ZB <= 127 && rt_uq_init(&q, s, s > 41 ? s : 41, 256 * ((uint64_t)MA + (uint64_t)MB), ZY, LO, HI) == 0) {
		/* (a - ZA + 256) MA + (+-(b - ZB) + 256) MB = acc + 256 (MA + MB) */
		int sub = op == NPU_BIN_SUB;
		uint32_t ka = (uint32_t)(256 - ZA), kb = (uint32_t)(sub ? 256 + ZB : 256 - ZB);
		uint32_t ta[RT_CHUNK], tb[RT_CHUNK];
		for (size_t r = 0; r < rows; r++, rt_walk_next(idx, cnt)) {
			const int8_t *pa = (const int8_t *)x0 + rt_walk_off(idx, sa);
			const int8_t *pb = (const int8_t *)x1 + rt_walk_off(idx, sb);
			for (int32_t i0 = 0; i0 < n5; i0 += RT_CHUNK) {
				int nn = n5 - i0 < RT_CHUNK ? n5 - i0 : RT_CHUNK;
				if (a5)
					rt_widen_i8(ta, pa + i0, ka, 0, nn);
				else
					for (int j = 0; j < nn; j++)
						ta[j] = (uint32_t)pa[0] + ka;
				if (b5)
					rt_widen_i8(tb, pb + i0, kb, sub, nn);
				else if (sub)
					for (int j = 0; j < nn; j++)
						tb[j] = kb - (uint32_t)pb[0];
				else
					for (int j = 0; j < nn; j++)
						tb[j] = (uint32_t)pb[0] + kb;
				rt_uq_row((int8_t *)y + yi, ta, (uint32_t)MA, tb, (uint32_t)MB, nn, &q, s);
				yi += (size_t)nn;
			}
		}
		return;
	}
	for (size_t r = 0; r < rows; r++, rt_walk_next(idx, cnt)) {
		ptrdiff_t oa = rt_walk_off(idx, sa), ob = rt_walk_off(idx, sb);
		for (int32_t i = 0; i < n5; i++, yi++) {
			int64_t da = rt_ldi(x0, AT, (size_t)(oa + (ptrdiff_t)i * a5)) - ZA;
			int64_t db = rt_ldi(x1, BT, (size_t)(ob + (ptrdiff_t)i * b5)) - ZB;
			da = da < -dl ? -dl : da > dl ? dl : da;
			db = db < -dl ? -dl : db > dl ? dl : db;
			int64_t v;
			if (op == NPU_BIN_MUL) {
				v = rt_mulshift(da * db, MA, s);
			} else {
				int64_t acc = op == NPU_BIN_SUB ? da * MA - db * MB : da * MA + db * MB;
				v = rt_rsr(acc, s);
			}
			rt_sti(y, YT, yi, rt_clamp(ZY + (v < -((int64_t)1 << 62) ? -((int64_t)1 << 62) : v), LO, HI));
		}
	}
}
/* @npu-end */

/* @npu-kernel ELTWISE_F */
/* one element of ELTWISE_F: ACT(clamp(u OP v, lo, hi)) */
static inline float ew_f_one(int32_t op, float u, float v, float lo, float hi, int32_t act, float p0, float p1)
{
	float t;
	switch (op) {
	case NPU_BIN_ADD: t = u + v; break;
	case NPU_BIN_SUB: t = u - v; break;
	case NPU_BIN_MUL: t = u * v; break;
	case NPU_BIN_DIV: t = u / v; break;
	case NPU_BIN_MAX: t = u > v ? u : v; break;
	case NPU_BIN_POW: t = npu_powf(u, v); break;
	case NPU_BIN_PRELU: t = u < 0 ? u * v : u; break;
	default: t = u < v ? u : v; break;
	}
	t = rt_clampf(t, lo, hi);
	if (act >= 0)
		t = rt_unary(act, t, p0, p1);
	return t;
}

/* the walk an element at a time (any types and strides; the reference) */
static void ew_f_walk(const int32_t *p, void *const *a)
{
	const void *x0 = a[0], *x1 = a[1];
	void *y = a[2];
	const int32_t *cnt = p + NPU_EW_COUNTS, *sa = p + NPU_EW_SA, *sb = p + NPU_EW_SB;
	int32_t op = p[NPU_EW_OP], AT = p[NPU_EW_AT], BT = p[NPU_EW_BT], YT = p[NPU_EW_YT];
	float lo = rt_pf(p, NPU_EW_LO), hi = rt_pf(p, NPU_EW_HI), p0 = rt_pf(p, NPU_EW_P0), p1 = rt_pf(p, NPU_EW_P1);
	int32_t act = p[NPU_EW_ACT];
	int32_t idx[NPU_WALK_DIMS] = {0};
	size_t rows = rt_walk_rows(cnt), yi = 0;
	int32_t n5 = cnt[NPU_WALK_DIMS - 1], a5 = sa[NPU_WALK_DIMS - 1], b5 = sb[NPU_WALK_DIMS - 1];
	for (size_t r = 0; r < rows; r++, rt_walk_next(idx, cnt)) {
		ptrdiff_t oa = rt_walk_off(idx, sa), ob = rt_walk_off(idx, sb);
		for (int32_t i = 0; i < n5; i++, yi++) {
			float u = rt_ldf(x0, AT, (size_t)(oa + (ptrdiff_t)i * a5));
			float v = rt_ldf(x1, BT, (size_t)(ob + (ptrdiff_t)i * b5));
			rt_stf(y, YT, yi, ew_f_one(op, u, v, lo, hi, act, p0, p1));
		}
	}
}

/* The float32 rows in vector lanes: a and b each contiguous along the row
 * or one value broadcast over it, ADD SUB MUL DIV MAX MIN, the clamp, no
 * activation or a ReLU. Each is one correctly rounded IEEE operation or a
 * compare per element, in any lane the reference's bits: x86's max/min
 * (and the NEON selects) return their second operand when the compare is
 * false (NaN, equal zeros), as the reference's ?: does; the clamp is
 * max(lo, t) then min(hi, t), which is rt_clampf when !(lo > hi); the ReLU
 * max(t, +0) is v > 0 ? v : 0. */
#if defined(NPU_NO_SIMD)
#define EW_VL 0
#elif defined(__AVX512F__)
#define EW_VL 16
typedef __m512 ew_v;
#define EW_LD(p) _mm512_loadu_ps(p)
#define EW_ST(p, v) _mm512_storeu_ps(p, v)
#define EW_SET1(f) _mm512_set1_ps(f)
#define EW_ADD(a, b) _mm512_add_ps(a, b)
#define EW_SUB(a, b) _mm512_sub_ps(a, b)
#define EW_MUL(a, b) _mm512_mul_ps(a, b)
#define EW_DIV(a, b) _mm512_div_ps(a, b)
#define EW_GTSEL(a, b) _mm512_max_ps(a, b)	/* a > b ? a : b */
#define EW_LTSEL(a, b) _mm512_min_ps(a, b)	/* a < b ? a : b */
#elif defined(__AVX2__)
#define EW_VL 8
typedef __m256 ew_v;
#define EW_LD(p) _mm256_loadu_ps(p)
#define EW_ST(p, v) _mm256_storeu_ps(p, v)
#define EW_SET1(f) _mm256_set1_ps(f)
#define EW_ADD(a, b) _mm256_add_ps(a, b)
#define EW_SUB(a, b) _mm256_sub_ps(a, b)
#define EW_MUL(a, b) _mm256_mul_ps(a, b)
#define EW_DIV(a, b) _mm256_div_ps(a, b)
#define EW_GTSEL(a, b) _mm256_max_ps(a, b)
#define EW_LTSEL(a, b) _mm256_min_ps(a, b)
#elif defined(__SSE2__)
#define EW_VL 4
typedef __m128 ew_v;
#define EW_LD(p) _mm_loadu_ps(p)
#define EW_ST(p, v) _mm_storeu_ps(p, v)
#define EW_SET1(f) _mm_set1_ps(f)
#define EW_ADD(a, b) _mm_add_ps(a, b)
#define EW_SUB(a, b) _mm_sub_ps(a, b)
#define EW_MUL(a, b) _mm_mul_ps(a, b)
#define EW_DIV(a, b) _mm_div_ps(a, b)
#define EW_GTSEL(a, b) _mm_max_ps(a, b)
#define EW_LTSEL(a, b) _mm_min_ps(a, b)
#elif defined(__ARM_NEON) && defined(__aarch64__)
#define EW_VL 4
typedef float32x4_t ew_v;
#define EW_LD(p) vld1q_f32(p)
#define EW_ST(p, v) vst1q_f32(p, v)
#define EW_SET1(f) vdupq_n_f32(f)
#define EW_ADD(a, b) vaddq_f32(a, b)
#define EW_SUB(a, b) vsubq_f32(a, b)
#define EW_MUL(a, b) vmulq_f32(a, b)
#define EW_DIV(a, b) vdivq_f32(a, b)
#define EW_GTSEL(a, b) vbslq_f32(vcgtq_f32(a, b), a, b)
#define EW_LTSEL(a, b) vbslq_f32(vcltq_f32(a, b), a, b)
#else
#define EW_VL 0
#endif

#if EW_VL > 0
/* the rows go to ew_f_rows (else the walk) */
static int ew_f_fast(const int32_t *p)
{
	const int32_t *sa = p + NPU_EW_SA, *sb = p + NPU_EW_SB;
	int32_t a5 = sa[NPU_WALK_DIMS - 1], b5 = sb[NPU_WALK_DIMS - 1], act = p[NPU_EW_ACT];
	return p[NPU_EW_AT] == NPU_T_F32 && p[NPU_EW_BT] == NPU_T_F32 && p[NPU_EW_YT] == NPU_T_F32 &&
	       p[NPU_EW_OP] >= NPU_BIN_ADD && p[NPU_EW_OP] <= NPU_BIN_MIN && (a5 == 0 || a5 == 1) &&
	       (b5 == 0 || b5 == 1) && (a5 | b5) && !(rt_pf(p, NPU_EW_LO) > rt_pf(p, NPU_EW_HI)) &&
	       (act < 0 || act == NPU_U_RELU) && p[NPU_EW_COUNTS + NPU_WALK_DIMS - 1] >= EW_VL;
}

static void ew_f_rows(const int32_t *p, void *const *a)
{
	const float *x0 = (const float *)a[0], *x1 = (const float *)a[1];
	float *y = (float *)a[2];
	const int32_t *cnt = p + NPU_EW_COUNTS, *sa = p + NPU_EW_SA, *sb = p + NPU_EW_SB;
	int32_t op = p[NPU_EW_OP], act = p[NPU_EW_ACT];
	float lo = rt_pf(p, NPU_EW_LO), hi = rt_pf(p, NPU_EW_HI);
	int32_t idx[NPU_WALK_DIMS] = {0};
	size_t rows = rt_walk_rows(cnt);
	int32_t n = cnt[NPU_WALK_DIMS - 1], a5 = sa[NPU_WALK_DIMS - 1], b5 = sb[NPU_WALK_DIMS - 1];
	ew_v vlo = EW_SET1(lo), vhi = EW_SET1(hi), z = EW_SET1(0.0f);
	for (size_t r = 0; r < rows; r++, rt_walk_next(idx, cnt), y += n) {
		const float *pa = x0 + rt_walk_off(idx, sa), *pb = x1 + rt_walk_off(idx, sb);
		int32_t i = 0;
		for (; i + EW_VL <= n; i += EW_VL) {
			ew_v u = a5 ? EW_LD(pa + i) : EW_SET1(pa[0]), v = b5 ? EW_LD(pb + i) : EW_SET1(pb[0]), t;
			switch (op) {
			case NPU_BIN_ADD: t = EW_ADD(u, v); break;
			case NPU_BIN_SUB: t = EW_SUB(u, v); break;
			case NPU_BIN_MUL: t = EW_MUL(u, v); break;
			case NPU_BIN_DIV: t = EW_DIV(u, v); break;
			case NPU_BIN_MAX: t = EW_GTSEL(u, v); break;
			default: t = EW_LTSEL(u, v); break;
			}
			t = EW_LTSEL(vhi, EW_GTSEL(vlo, t));
			if (act >= 0)
				t = EW_GTSEL(t, z);
			EW_ST(y + i, t);
		}
		for (; i < n; i++)
			y[i] = ew_f_one(op, pa[a5 ? i : 0], pb[b5 ? i : 0], lo, hi, act, 0.0f, 0.0f);
	}
}
#endif

static void k_eltwise_f(const int32_t *p, void *const *a, void *scratch)
{
	(void)scratch;
#if EW_VL > 0
	if (ew_f_fast(p)) {
		ew_f_rows(p, a);
		return;
	}
#endif
	ew_f_walk(p, a);
}
/* @npu-end */

/* @npu-kernel UNARY_F */
static void k_unary_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	void *y = a[1];
	int32_t n = p[NPU_UN_N], fn = p[NPU_UN_FN], XT = p[NPU_UN_XT], YT = p[NPU_UN_YT];
	float p0 = rt_pf(p, NPU_UN_P0), p1 = rt_pf(p, NPU_UN_P1);
	(void)scratch;
	for (int32_t i = 0; i < n; i++)
		rt_stf(y, YT, (size_t)i, rt_unary(fn, rt_ldf(x, XT, (size_t)i), p0, p1));
}
/* @npu-end */

/* @npu-kernel REQUANT */
static void k_requant(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	void *y = a[1];
	const int32_t *cnt = p + NPU_RQ_COUNTS, *ss = p + NPU_RQ_SS, *ds = p + NPU_RQ_DS;
	int32_t XT = p[NPU_RQ_XT], YT = p[NPU_RQ_YT], ZY = p[NPU_RQ_ZY], MULT = p[NPU_RQ_MULT];
	int32_t LO = p[NPU_RQ_LO], HI = p[NPU_RQ_HI];
	int64_t ZX = p[NPU_RQ_ZX];
	int s = rt_shift(p[NPU_RQ_SHIFT]);
	int32_t idx[NPU_WALK_DIMS] = {0};
	size_t rows = rt_walk_rows(cnt);
	int32_t n5 = cnt[NPU_WALK_DIMS - 1], s5 = ss[NPU_WALK_DIMS - 1], d5 = ds[NPU_WALK_DIMS - 1];
	rt_uq q;
	(void)scratch;
	if (XT == NPU_T_I8 && YT == NPU_T_I8 && s5 == 1 && d5 == 1 && MULT >= 0 && ZX >= -128 && ZX <= 127 &&
	    rt_uq_init(&q, s, s > 41 ? s : 41, 256 * (uint64_t)MULT, ZY, LO, HI) == 0) {
		/* (x - ZX + 256) MULT = acc + 256 MULT */
		uint32_t k = (uint32_t)(256 - ZX), t[RT_CHUNK];
#if defined(NPU_NO_SIMD) || !(defined(__SSE2__) || (defined(__ARM_NEON) && defined(__aarch64__)))
		if (rows * (size_t)n5 >= 1024) {	/* without vector lanes: a table of the 256 results */
			int8_t lut[256];	/* (rt_uq_row's arithmetic, x = v - 128) */
			for (int v = 0; v < 256; v++) {
				uint32_t u = (uint32_t)(((uint64_t)(v - 128 + k) * (uint32_t)MULT + q.D) >> s);
				u = u < q.lu ? q.lu : u > q.hu ? q.hu : u;
				lut[v] = (int8_t)(q.base + (int32_t)(u - q.lu));
			}
			for (size_t r = 0; r < rows; r++, rt_walk_next(idx, cnt)) {
				const int8_t *px = (const int8_t *)x + p[NPU_RQ_SOFF] + rt_walk_off(idx, ss);
				int8_t *py = (int8_t *)y + p[NPU_RQ_DOFF] + rt_walk_off(idx, ds);
				for (int32_t i = 0; i < n5; i++)
					py[i] = lut[px[i] + 128];
			}
			return;
		}
#endif
		for (size_t r = 0; r < rows; r++, rt_walk_next(idx, cnt)) {
			const int8_t *px = (const int8_t *)x + p[NPU_RQ_SOFF] + rt_walk_off(idx, ss);
			int8_t *py = (int8_t *)y + p[NPU_RQ_DOFF] + rt_walk_off(idx, ds);
			for (int32_t i0 = 0; i0 < n5; i0 += RT_CHUNK) {
				int nn = n5 - i0 < RT_CHUNK ? n5 - i0 : RT_CHUNK;
				rt_widen_i8(t, px + i0, k, 0, nn);
				rt_uq_row(py + i0, t, (uint32_t)MULT, NULL, 0, nn, &q, s);
			}
		}
		return;
	}
	for (size_t r = 0; r < rows; r++, rt_walk_next(idx, cnt)) {
		ptrdiff_t os = p[NPU_RQ_SOFF] + rt_walk_off(idx, ss), od = p[NPU_RQ_DOFF] + rt_walk_off(idx, ds);
		for (int32_t i = 0; i < n5; i++) {
			int64_t v = rt_mulshift(rt_ldi(x, XT, (size_t)(os + (ptrdiff_t)i * s5)) - ZX, MULT, s);
			rt_sti(y, YT, (size_t)(od + (ptrdiff_t)i * d5), rt_clamp(ZY + v, LO, HI));
		}
	}
}
/* @npu-end */

/* @npu-kernel QUANTIZE */
/* round(q) half to even as an int64 clamped to +-2^31 (NaN -> 0), with
 * integer arithmetic only: no libm, no dependence on the rounding mode */
static int64_t qz_rne(float q)
{
	if (q != q)
		return 0;
	if (q >= 2147483648.0f)
		return (int64_t)1 << 31;
	if (q <= -2147483648.0f)
		return -((int64_t)1 << 31);
	int64_t t = (int64_t)q;	/* toward zero */
	float f = q - (float)t;	/* exact: |q| < 2^31, and q is an integer above 2^23 */
	if (f > 0.5f || (f == 0.5f && t % 2 != 0))
		t++;
	else if (f < -0.5f || (f == -0.5f && t % 2 != 0))
		t--;
	return t;
}

static void k_quantize(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	void *y = a[1];
	int32_t n = p[NPU_QZ_N], XT = p[NPU_QZ_XT], YT = p[NPU_QZ_YT];
	int32_t ZP = p[NPU_QZ_ZP], LO = p[NPU_QZ_LO], HI = p[NPU_QZ_HI];
	float scale = rt_pf(p, NPU_QZ_SCALE);
	(void)scratch;
	if (XT == NPU_T_F32 && (YT == NPU_T_I8 || YT == NPU_T_U8 || YT == NPU_T_I16) && LO >= -65536 && HI <= 65536 &&
	    ZP >= -65536 && ZP <= 65536) {
		/* the same rounding, branch-free so that it vectorizes: |q| is
		 * clamped to 2^17 (beyond, every result clamps alike) and NaN
		 * made 0 on the bits; r = trunc(q), c = trunc(2 (q - r)) is the
		 * half-away rounding step (-1, 0, 1), dropped on exact ties
		 * (2 (q - r) an integer: d = 0; else |d| >= 2^-23 as |q| >= 1/2)
		 * when r is even. All of it is exact. */
		const float *xf = x;
		int32_t i1 = 0;
#if !defined(NPU_NO_SIMD) && defined(__AVX512F__)
		/* 16 lanes: the same clamp of |q| to 2^17 (min/max), NaN to 0
		 * (an unordered compare), the rounding by vcvtps2dq to nearest
		 * even (what r, c and keep compute), the truncating narrowing
		 * stores of the casts below */
		{
			__m512 vs = _mm512_set1_ps(scale), big = _mm512_set1_ps(131072.0f);
			__m512 nbig = _mm512_set1_ps(-131072.0f);
			__m512i vzp = _mm512_set1_epi32(ZP), vlo = _mm512_set1_epi32(LO), vhi = _mm512_set1_epi32(HI);
			for (; i1 < n; i1 += 16) {
				__mmask16 k = n - i1 >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i1)) - 1);
				__m512 q = _mm512_div_ps(_mm512_maskz_loadu_ps(k, xf + i1), vs);
				__mmask16 nan = _mm512_cmp_ps_mask(q, q, _CMP_UNORD_Q);
				q = _mm512_min_ps(_mm512_max_ps(q, nbig), big);
				__m512i r = _mm512_cvt_roundps_epi32(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
				r = _mm512_add_epi32(_mm512_mask_mov_epi32(r, nan, _mm512_setzero_si512()), vzp);
				r = _mm512_min_epi32(_mm512_max_epi32(r, vlo), vhi);
				if (YT == NPU_T_I8)
					_mm512_mask_cvtepi32_storeu_epi8((int8_t *)y + i1, k, r);
				else if (YT == NPU_T_U8)
					_mm512_mask_cvtepi32_storeu_epi8((uint8_t *)y + i1, k, r);
				else
					_mm512_mask_cvtepi32_storeu_epi16((int16_t *)y + i1, k, r);
			}
		}
#endif
		for (int32_t i0 = i1; i0 < n; i0 += 256) {
			int32_t t[256], nn = n - i0 < 256 ? n - i0 : 256;
			for (int32_t j = 0; j < nn; j++) {
				float q = xf[i0 + j] / scale;
				uint32_t u, m, big, nan;
				memcpy(&u, &q, 4);
				m = u & 0x7fffffffu;
				big = 0u - (uint32_t)(m > 0x48000000u);
				nan = 0u - (uint32_t)(m > 0x7f800000u);
				u = ((u & ~big) | (((u & 0x80000000u) | 0x48000000u) & big)) & ~nan;
				memcpy(&q, &u, 4);
				int32_t r = (int32_t)q;
				float f = q - (float)r, g = f + f;
				int32_t c = (int32_t)g;
				float d = g - (float)c;
				int32_t keep = ((int32_t)(d * 8388608.0f) == 0) & ((r & 1) == 0);
				r += (c & ~(0 - keep)) + ZP;
				r = r < LO ? LO : r;
				t[j] = r > HI ? HI : r;
			}
			if (YT == NPU_T_I8)
				for (int32_t j = 0; j < nn; j++)
					((int8_t *)y)[i0 + j] = (int8_t)t[j];
			else if (YT == NPU_T_U8)
				for (int32_t j = 0; j < nn; j++)
					((uint8_t *)y)[i0 + j] = (uint8_t)t[j];
			else
				for (int32_t j = 0; j < nn; j++)
					((int16_t *)y)[i0 + j] = (int16_t)t[j];
		}
		return;
	}
	for (int32_t i = 0; i < n; i++) {
		float q = rt_ldf(x, XT, (size_t)i) / scale;
		rt_sti(y, YT, (size_t)i, rt_clamp(qz_rne(q) + ZP, LO, HI));
	}
}
/* @npu-end */

/* @npu-kernel DEQUANTIZE */
static void k_dequantize(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	void *y = a[1];
	int32_t n = p[NPU_QZ_N], XT = p[NPU_QZ_XT], YT = p[NPU_QZ_YT];
	int64_t ZP = p[NPU_QZ_ZP];
	float scale = rt_pf(p, NPU_QZ_SCALE);
	(void)scratch;
	for (int32_t i = 0; i < n; i++) {
		float v = (float)(rt_ldi(x, XT, (size_t)i) - ZP) * scale;
		rt_stf(y, YT, (size_t)i, v);
	}
}
/* @npu-end */

/* @npu-kernel LUT */
/* int8: t[x + 128]; uint8: t[x]; int16: BITS-bit index, linear
 * interpolation on the low 16 - BITS bits (BITS >= 16: t[x + 32768]). */
static void k_lut(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0], *t = a[1];
	void *y = a[2];
	int32_t n = p[NPU_LT_N], XT = p[NPU_LT_XT], YT = p[NPU_LT_YT], bits = p[NPU_LT_BITS];
	(void)scratch;
	for (int32_t i = 0; i < n; i++) {
		int32_t v = rt_ldi(x, XT, (size_t)i), r;
		if (XT == NPU_T_I8) {
			r = rt_ldi(t, YT, (size_t)(v + 128));
		} else if (XT == NPU_T_U8) {
			r = rt_ldi(t, YT, (size_t)v);
		} else if (bits >= 16 || bits <= 0) {
			r = rt_ldi(t, YT, (size_t)(v + 32768));
		} else {
			int sh = 16 - bits;
			uint32_t u = (uint32_t)(v + 32768);
			size_t k = u >> sh;
			int64_t f = (int64_t)(u & ((1u << sh) - 1));
			int64_t t0 = rt_ldi(t, YT, k), t1 = rt_ldi(t, YT, k + 1);
			r = (int32_t)(t0 + rt_rsr((t1 - t0) * f, sh));
		}
		rt_sti(y, YT, (size_t)i, r);
	}
}
/* @npu-end */

/* @npu-kernel POOL_Q POOL_F POOL_NHWC_Q POOL_NHWC_F */
/* the window of output (oh, ow) clipped to the input ([ih0, ih1) x
 * [iw0, iw1)) and its cell count for averages */
typedef struct {
	int ih0, ih1, iw0, iw1, count;
} pl_win;

static void pl_window(const int32_t *p, int oh, int ow, pl_win *w)
{
	int H = p[NPU_PL_H], W = p[NPU_PL_W], KH = p[NPU_PL_KH], KW = p[NPU_PL_KW];
	int h0 = oh * p[NPU_PL_SH] - p[NPU_PL_PT], w0 = ow * p[NPU_PL_SW] - p[NPU_PL_PL];
	int h1 = h0 + KH, w1 = w0 + KW;
	w->ih0 = h0 < 0 ? 0 : h0;
	w->ih1 = h1 > H ? H : h1;
	w->iw0 = w0 < 0 ? 0 : w0;
	w->iw1 = w1 > W ? W : w1;
	if (p[NPU_PL_COUNT_PAD]) {
		/* padding cells count, the ceil-mode overhang beyond it does not */
		int ph0 = h0 < -p[NPU_PL_PT] ? -p[NPU_PL_PT] : h0, ph1 = h1 > H + p[NPU_PL_PB] ? H + p[NPU_PL_PB] : h1;
		int pw0 = w0 < -p[NPU_PL_PL] ? -p[NPU_PL_PL] : w0, pw1 = w1 > W + p[NPU_PL_PR] ? W + p[NPU_PL_PR] : w1;
		w->count = (ph1 > ph0 ? ph1 - ph0 : 0) * (pw1 > pw0 ? pw1 - pw0 : 0);
	} else {
		w->count = (w->ih1 > w->ih0 ? w->ih1 - w->ih0 : 0) * (w->iw1 > w->iw0 ? w->iw1 - w->iw0 : 0);
	}
}
/* @npu-end */

/* @npu-kernel POOL_Q */
/* int8 max pooling where every window holds an input cell is separable:
 * per output row the maxima over the window's rows (a row padded with
 * -128, which loses to any cell), split into SW phases (column ph + SW j
 * at phase ph, index j) so that the maxima over the window's columns read
 * contiguously. Scratch: the padded row and its phases (Wp each). */
static int pq_separable(const int32_t *p, int *wp)
{
	int H = p[NPU_PL_H], W = p[NPU_PL_W], OH = p[NPU_PL_OH], OW = p[NPU_PL_OW], KH = p[NPU_PL_KH];
	int KW = p[NPU_PL_KW], SH = p[NPU_PL_SH], SW = p[NPU_PL_SW], PT = p[NPU_PL_PT], PL = p[NPU_PL_PL];
	if (p[NPU_PL_XT] != NPU_T_I8 || p[NPU_PL_YT] != NPU_T_I8 || p[NPU_PL_MODE] != NPU_POOL_MAX || KH < 1 ||
	    KW < 1 || SH < 1 || SW < 1 || PT < 0 || PL < 0 || PT >= KH || PL >= KW || OH < 1 || OW < 1 ||
	    (int64_t)(OH - 1) * SH - PT >= H || (int64_t)(OW - 1) * SW - PL >= W || H < 1 || W < 1)
		return 0;
	int need = (OW - 1) * SW + KW;
	*wp = PL + W > need ? PL + W : need;
	*wp = (*wp + SW - 1) / SW * SW;	/* whole phases */
	return 1;
}

static uint32_t pq_scratch(const int32_t *p)
{
	int wp;
	if (!pq_separable(p, &wp))
		return 0;
	return (uint32_t)(2 * (((size_t)wp + 15) & ~(size_t)15));
}

/* AVX-512 BW, column stride 1 or 2: an output row in vector lanes, 64
 * bytes at a time under masks (loads never reach past the padded row's wp
 * bytes): the maxima over the window's rows, then over its columns at
 * every column (KW loads at offsets 0 .. KW - 1), then at stride 2 the
 * even bytes (vpmovwb), clamped to [lo, hi]; the same maxima as the
 * portable C. The padded row keeps -128 outside PL .. PL + W - 1. */
#if !defined(NPU_NO_SIMD) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define PQ_MAX512 1
static inline __mmask64 pq_m64(int n)
{
	return n >= 64 ? ~(__mmask64)0 : n <= 0 ? 0 : ((__mmask64)1 << n) - 1;
}

static void pq_row512(const int8_t *xc, int W, int r0, int r1, int8_t *vm, int wp, int PL, int KW, int SW, int OW,
		      int8_t lo, int8_t hi, int8_t *yr)
{
	int8_t *v = vm + PL;
	for (int i = 0; i < W; i += 64) {
		__mmask64 k = pq_m64(W - i);
		__m512i m = _mm512_maskz_loadu_epi8(k, xc + (size_t)r0 * W + i);
		for (int r = r0 + 1; r < r1; r++)
			m = _mm512_max_epi8(m, _mm512_maskz_loadu_epi8(k, xc + (size_t)r * W + i));
		_mm512_mask_storeu_epi8(v + i, k, m);
	}
	const __m512i vlo = _mm512_set1_epi8((char)lo), vhi = _mm512_set1_epi8((char)hi);
	int step = 64 / SW;	/* outputs per vector */
	for (int o0 = 0; o0 < OW; o0 += step) {
		int j0 = o0 * SW;
		__m512i m = _mm512_maskz_loadu_epi8(pq_m64(wp - j0), vm + j0);
		for (int kw = 1; kw < KW; kw++)
			m = _mm512_max_epi8(m, _mm512_maskz_loadu_epi8(pq_m64(wp - j0 - kw), vm + j0 + kw));
		m = _mm512_min_epi8(_mm512_max_epi8(m, vlo), vhi);
		int n = OW - o0 < step ? OW - o0 : step;
		if (SW == 1)
			_mm512_mask_storeu_epi8(yr + o0, pq_m64(n), m);
		else
			_mm256_mask_storeu_epi8(yr + o0, (__mmask32)pq_m64(n), _mm512_cvtepi16_epi8(m));
	}
}
#endif

static void pq_max_i8(const int32_t *p, const int8_t *x, int8_t *y, int wp, void *scratch)
{
	int N = p[NPU_PL_N], C = p[NPU_PL_C], H = p[NPU_PL_H], W = p[NPU_PL_W], OH = p[NPU_PL_OH], OW = p[NPU_PL_OW];
	int KH = p[NPU_PL_KH], KW = p[NPU_PL_KW], SH = p[NPU_PL_SH], SW = p[NPU_PL_SW], PT = p[NPU_PL_PT];
	int PL = p[NPU_PL_PL], lp = wp / SW;
	int8_t lo = (int8_t)(p[NPU_PL_LO] < -128 ? -128 : p[NPU_PL_LO] > 127 ? 127 : p[NPU_PL_LO]);
	int8_t hi = (int8_t)(p[NPU_PL_HI] < -128 ? -128 : p[NPU_PL_HI] > 127 ? 127 : p[NPU_PL_HI]);
	int8_t *vm = scratch, *ph = vm + (((size_t)wp + 15) & ~(size_t)15);
	for (int j = 0; j < wp; j++)
		vm[j] = -128;
	for (int nc = 0; nc < N * C; nc++) {
		const int8_t *xc = x + (size_t)nc * H * W;
		int8_t *yc = y + (size_t)nc * OH * OW;
		for (int oh = 0; oh < OH; oh++) {
			int r0 = oh * SH - PT, r1 = r0 + KH;
			r0 = r0 < 0 ? 0 : r0;
			r1 = r1 > H ? H : r1;
#if defined(PQ_MAX512)
			if (SW <= 2) {
				pq_row512(xc, W, r0, r1, vm, wp, PL, KW, SW, OW, lo, hi, yc + (size_t)oh * OW);
				continue;
			}
#endif
			int8_t *restrict v = vm + PL;
			memcpy(v, xc + (size_t)r0 * W, (size_t)W);
			for (int r = r0 + 1; r < r1; r++) {
				const int8_t *restrict xr = xc + (size_t)r * W;
				for (int iw = 0; iw < W; iw++)
					v[iw] = xr[iw] > v[iw] ? xr[iw] : v[iw];
			}
			const int8_t *restrict src = vm;
			if (SW > 1) {
				for (int q = 0; q < SW; q++)
					for (int j = 0; j < lp; j++)
						ph[q * lp + j] = vm[j * SW + q];
				src = ph;
			}
			int8_t *restrict yr = yc + (size_t)oh * OW;
			for (int kw = 0; kw < KW; kw++) {
				const int8_t *restrict t = src + (kw % SW) * lp + kw / SW;
				if (kw == 0)
					for (int ow = 0; ow < OW; ow++)
						yr[ow] = t[ow];
				else
					for (int ow = 0; ow < OW; ow++)
						yr[ow] = t[ow] > yr[ow] ? t[ow] : yr[ow];
			}
			for (int ow = 0; ow < OW; ow++)
				yr[ow] = yr[ow] < lo ? lo : yr[ow] > hi ? hi : yr[ow];
		}
	}
}

/* the sum of n int8 cells (SSE2: sums of x ^ 0x80 by psadbw, less 128 n) */
static int32_t pq_sum_i8(const int8_t *restrict x, size_t n)
{
	int32_t s = 0;
	size_t i = 0;
#if !defined(NPU_NO_SIMD) && defined(__SSE2__)
	const __m128i f = _mm_set1_epi8((char)0x80);
	__m128i acc = _mm_setzero_si128();
	for (; i + 16 <= n; i += 16)
		acc = _mm_add_epi64(acc, _mm_sad_epu8(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(x + i)), f),
						       _mm_setzero_si128()));
	acc = _mm_add_epi64(acc, _mm_unpackhi_epi64(acc, acc));	/* mod 2^32, as the int32 sum */
	s = (int32_t)((uint32_t)_mm_cvtsi128_si32(acc) - 128u * (uint32_t)i);
#endif
	for (; i < n; i++)
		s += x[i];
	return s;
}

/* int8 average: sums of the window's cells (x - ZX over the cells inside);
 * a window of whole rows (global pooling) as one run of cells */
static void pq_avg_i8(const int32_t *p, const int8_t *x, int8_t *y)
{
	int N = p[NPU_PL_N], C = p[NPU_PL_C], H = p[NPU_PL_H], W = p[NPU_PL_W], OH = p[NPU_PL_OH], OW = p[NPU_PL_OW];
	int32_t ZX = p[NPU_PL_ZX], ZY = p[NPU_PL_ZY], LO = p[NPU_PL_LO], HI = p[NPU_PL_HI];
	size_t yi = 0;
	for (int nc = 0; nc < N * C; nc++) {
		const int8_t *xc = x + (size_t)nc * H * W;
		for (int oh = 0; oh < OH; oh++)
			for (int ow = 0; ow < OW; ow++, yi++) {
				pl_win w;
				pl_window(p, oh, ow, &w);
				int32_t sum = 0;
				if (w.iw0 == 0 && w.iw1 == W && w.ih1 > w.ih0)
					sum = pq_sum_i8(xc + (size_t)w.ih0 * W, (size_t)(w.ih1 - w.ih0) * W);
				else
					for (int ih = w.ih0; ih < w.ih1; ih++) {
						const int8_t *restrict xr = xc + (size_t)ih * W;
						for (int iw = w.iw0; iw < w.iw1; iw++)
							sum += xr[iw];
					}
				int64_t cells = (int64_t)(w.ih1 - w.ih0) * (w.iw1 - w.iw0);
				int64_t v = sum - (cells > 0 ? cells : 0) * ZX;
				int64_t c = w.count > 0 ? w.count : 1, m = v < 0 ? -v : v, q = (2 * m + c) / (2 * c);
				y[yi] = (int8_t)rt_clamp(ZY + (v < 0 ? -q : q), LO, HI);
			}
	}
}

static void k_pool_q(const int32_t *p, void *const *a, void *scratch)
{
	int wp;
	if (pq_separable(p, &wp)) {
		pq_max_i8(p, a[0], a[1], wp, scratch);
		return;
	}
	if (p[NPU_PL_XT] == NPU_T_I8 && p[NPU_PL_YT] == NPU_T_I8 && p[NPU_PL_MODE] == NPU_POOL_AVG &&
	    (int64_t)p[NPU_PL_KH] * p[NPU_PL_KW] < ((int64_t)1 << 23)) {
		pq_avg_i8(p, a[0], a[1]);
		return;
	}
	const void *x = a[0];
	void *y = a[1];
	int N = p[NPU_PL_N], C = p[NPU_PL_C], H = p[NPU_PL_H], W = p[NPU_PL_W], OH = p[NPU_PL_OH], OW = p[NPU_PL_OW];
	int32_t XT = p[NPU_PL_XT], YT = p[NPU_PL_YT], ZX = p[NPU_PL_ZX], ZY = p[NPU_PL_ZY];
	int32_t LO = p[NPU_PL_LO], HI = p[NPU_PL_HI];
	int avg = p[NPU_PL_MODE] == NPU_POOL_AVG;
	size_t yi = 0;
	(void)scratch;
	for (int nc = 0; nc < N * C; nc++) {
		size_t xc = (size_t)nc * H * W;
		for (int oh = 0; oh < OH; oh++)
			for (int ow = 0; ow < OW; ow++, yi++) {
				pl_win w;
				pl_window(p, oh, ow, &w);
				int64_t r;
				if (avg) {
					int64_t sum = 0;
					for (int ih = w.ih0; ih < w.ih1; ih++)
						for (int iw = w.iw0; iw < w.iw1; iw++)
							sum += rt_ldi(x, XT, xc + (size_t)ih * W + iw) - ZX;
					/* round half away from zero */
					int64_t c = w.count > 0 ? w.count : 1, m = sum < 0 ? -sum : sum;
					int64_t q = (2 * m + c) / (2 * c);
					r = ZY + (sum < 0 ? -q : q);
				} else {
					r = ZY;
					int first = 1;
					for (int ih = w.ih0; ih < w.ih1; ih++)
						for (int iw = w.iw0; iw < w.iw1; iw++) {
							int32_t v = rt_ldi(x, XT, xc + (size_t)ih * W + iw);
							if (first || v > r)
								r = v;
							first = 0;
						}
				}
				rt_sti(y, YT, yi, rt_clamp(r, LO, HI));
			}
	}
}
/* @npu-end */

/* @npu-kernel POOL_F */
static void k_pool_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	void *y = a[1];
	int N = p[NPU_PL_N], C = p[NPU_PL_C], H = p[NPU_PL_H], W = p[NPU_PL_W], OH = p[NPU_PL_OH], OW = p[NPU_PL_OW];
	int32_t XT = p[NPU_PL_XT], YT = p[NPU_PL_YT];
	int avg = p[NPU_PL_MODE] == NPU_POOL_AVG;
	size_t yi = 0;
	(void)scratch;
	/* float32: the columns whose window lies inside the row, [clo, chi),
	 * a tap at a time over the whole row (independent outputs in flight,
	 * no per-element type switch), each output still over its taps in the
	 * reference's order from the same start (max: the first tap; average:
	 * 0) */
	int SW = p[NPU_PL_SW], PL = p[NPU_PL_PL], KW = p[NPU_PL_KW], clo = 0, chi = 0;
	if (XT == NPU_T_F32 && YT == NPU_T_F32 && SW > 0 && KW > 0 && PL >= 0 && W >= KW) {
		clo = (PL + SW - 1) / SW;
		chi = (W - KW + PL) / SW + 1;
		chi = chi > OW ? OW : chi;
		clo = clo > chi ? chi : clo;
	}
	for (int nc = 0; nc < N * C; nc++) {
		size_t xc = (size_t)nc * H * W;
		for (int oh = 0; oh < OH; oh++)
			for (int ow = 0; ow < OW; ow++, yi++) {
				pl_win w;
				pl_window(p, oh, ow, &w);
				if (ow == clo && clo < chi && w.ih0 < w.ih1) {
					const float *xf = (const float *)x + xc;
					float *yr = (float *)y + yi;
					int n = chi - clo;
					for (int ih = w.ih0; ih < w.ih1; ih++)
						for (int kw = 0; kw < KW; kw++) {
							const float *xs = xf + (size_t)ih * W + (size_t)clo * SW - PL + kw;
							int t0 = ih == w.ih0 && kw == 0;
							if (avg) {
								for (int i = 0; i < n; i++)
									yr[i] = (t0 ? 0.0f : yr[i]) + xs[(size_t)i * SW];
							} else if (t0) {
								for (int i = 0; i < n; i++)
									yr[i] = xs[(size_t)i * SW];
							} else {
								for (int i = 0; i < n; i++) {
									float v = xs[(size_t)i * SW];
									yr[i] = v > yr[i] ? v : yr[i];
								}
							}
						}
					for (int i = 0; avg && i < n; i++) {
						pl_window(p, oh, clo + i, &w);
						yr[i] = yr[i] / (float)(w.count > 0 ? w.count : 1);
					}
					ow = chi - 1, yi += (size_t)n - 1;
					continue;
				}
				float r = 0;
				int first = 1;
				for (int ih = w.ih0; ih < w.ih1; ih++)
					for (int iw = w.iw0; iw < w.iw1; iw++) {
						float v = rt_ldf(x, XT, xc + (size_t)ih * W + iw);
						if (avg)
							r += v;
						else if (first || v > r)
							r = v;
						first = 0;
					}
				if (avg)
					r = r / (float)(w.count > 0 ? w.count : 1);
				rt_stf(y, YT, yi, r);
			}
	}
}
/* @npu-end */

/* @npu-kernel SOFTMAX_F */
static void k_softmax_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	void *y = a[1];
	int32_t outer = p[NPU_SM_OUTER], n = p[NPU_SM_N], inner = p[NPU_SM_INNER], XT = p[NPU_SM_XT], YT = p[NPU_SM_YT];
	int logsm = p[NPU_SM_LOG] != 0;
	(void)scratch;
	for (int32_t o = 0; o < outer; o++)
		for (int32_t j = 0; j < inner; j++) {
			size_t base = (size_t)o * n * inner + j;
			float m = -INFINITY, s = 0;
			for (int32_t i = 0; i < n; i++) {
				float v = rt_ldf(x, XT, base + (size_t)i * inner);
				m = v > m ? v : m;
			}
			for (int32_t i = 0; i < n; i++)
				s += npu_expf(rt_ldf(x, XT, base + (size_t)i * inner) - m);
			if (logsm) {
				float ls = npu_logf(s);
				for (int32_t i = 0; i < n; i++) {
					size_t k = base + (size_t)i * inner;
					rt_stf(y, YT, k, rt_ldf(x, XT, k) - m - ls);
				}
			} else {
				for (int32_t i = 0; i < n; i++) {
					size_t k = base + (size_t)i * inner;
					rt_stf(y, YT, k, npu_expf(rt_ldf(x, XT, k) - m) / s);
				}
			}
		}
}
/* @npu-end */

/* @npu-kernel GRU_F LSTM_F RNN_F */
/* The recurrent kernels run one batch element at a time (the sequences
 * are independent) with float32 state in scratch: h [H], c [H], gates
 * [G*H] and one [H] temporary. Products are summed in order after the
 * bias: xw = Wb + sum_i x_i W[j][i], hr = Rb + sum_k h_k R[j][k]. With f16
 * activations the state is rounded to half after every step. */
static float rn_dot(float acc, const void *w, int32_t WT, size_t row, const float *v, int n)
{
	for (int i = 0; i < n; i++)
		acc += rt_ldf(w, WT, row + (size_t)i) * v[i];
	return acc;
}

static float rn_round(float v, int half)
{
	return half ? npu_f16_to_f32(npu_f32_to_f16(v)) : v;
}

static uint32_t rn_scratch(const int32_t *p, int gates)
{
	int64_t h = p[NPU_RN_H] > 0 ? p[NPU_RN_H] : 0, in = p[NPU_RN_I] > 0 ? p[NPU_RN_I] : 0;
	int64_t floats = 3 * h + gates * h + in;
	return (uint32_t)((floats * 4 + 15) & ~(int64_t)15);
}

/* element offsets of x_t and Y_t of batch b, and of a state of batch b */
static size_t rn_xoff(const int32_t *p, int t, int b)
{
	size_t T = (size_t)p[NPU_RN_T], B = (size_t)p[NPU_RN_B];
	return (p[NPU_RN_BF] ? (size_t)b * T + (size_t)t : (size_t)t * B + (size_t)b) * (size_t)p[NPU_RN_I];
}

static size_t rn_soff(const int32_t *p, int b)
{
	size_t D = p[NPU_RN_DIRS] > 1 ? (size_t)p[NPU_RN_DIRS] : 1, B = (size_t)p[NPU_RN_B], d = (size_t)p[NPU_RN_DIR];
	return (p[NPU_RN_BF] ? (size_t)b * D + d : d * B + (size_t)b) * (size_t)p[NPU_RN_H];
}

static size_t rn_yoff(const int32_t *p, int t, int b)
{
	size_t D = p[NPU_RN_DIRS] > 1 ? (size_t)p[NPU_RN_DIRS] : 1, B = (size_t)p[NPU_RN_B], d = (size_t)p[NPU_RN_DIR];
	size_t T = (size_t)p[NPU_RN_T], tt = (size_t)t, bb = (size_t)b;
	return (p[NPU_RN_BF] ? (bb * T + tt) * D + d : (tt * D + d) * B + bb) * (size_t)p[NPU_RN_H];
}

/* one step's input x_t of batch b as floats (in xb) */
static void rn_input(const int32_t *p, const void *x, int t, int b, float *xb)
{
	int I = p[NPU_RN_I];
	size_t o = rn_xoff(p, t, b);
	for (int i = 0; i < I; i++)
		xb[i] = rt_ldf(x, p[NPU_RN_XT], o + (size_t)i);
}

/* the steps batch b runs (sequence lengths sl, or all T) */
static int rn_len(const int32_t *p, const void *sl, int b)
{
	int64_t T = p[NPU_RN_T], v = !sl ? T : p[NPU_RN_SLT] == NPU_T_I64 ? ((const int64_t *)sl)[b] : ((const int32_t *)sl)[b];
	return (int)(v < 0 ? 0 : v > T ? T : v);
}

/* zero Y beyond batch b's sequence */
static void rn_zero_tail(const int32_t *p, void *Y, int b, int L)
{
	for (int t = L; Y && t < p[NPU_RN_T]; t++)
		for (int j = 0; j < p[NPU_RN_H]; j++)
			rt_stf(Y, p[NPU_RN_YT], rn_yoff(p, t, b) + (size_t)j, 0.0f);
}

static float rn_clip(const int32_t *p, float v)
{
	float c = npu_bits_f32((uint32_t)p[NPU_RN_CLIP]);
	return c > 0 ? (v < -c ? -c : v > c ? c : v) : v;
}
/* @npu-end */

/* @npu-kernel GRU_F */
static void k_gru_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0], *W = a[1], *R = a[2], *bias = a[3], *h0 = a[4], *sl = a[7];
	void *Y = a[5], *Yh = a[6];
	int B = p[NPU_RN_B], I = p[NPU_RN_I], H = p[NPU_RN_H], lbr = p[NPU_RN_LBR] != 0;
	int32_t XT = p[NPU_RN_XT], WT = p[NPU_RN_WT], YT = p[NPU_RN_YT];
	int half = YT == NPU_T_F16;
	float *h = scratch, *c = h + H, *tmp = c + H, *g = tmp + H, *xb = g + 3 * H;
	size_t GH = 3 * (size_t)H, d = (size_t)p[NPU_RN_DIR], wo = d * GH * (size_t)I, ro = d * GH * (size_t)H;
	size_t bo = d * 2 * GH;
	(void)c;
	for (int b = 0; b < B; b++) {
		size_t so = rn_soff(p, b);
		for (int j = 0; j < H; j++)
			h[j] = h0 ? rt_ldf(h0, XT, so + (size_t)j) : 0.0f;
		int L = rn_len(p, sl, b);
		rn_zero_tail(p, Y, b, L);
		for (int s = 0; s < L; s++) {
			int t = p[NPU_RN_REVERSE] ? L - 1 - s : s;
			rn_input(p, x, t, b, xb);
			/* z and r: sigmoid(xw + hr) */
			for (int j = 0; j < 2 * H; j++) {
				float xw = rn_dot(bias ? rt_ldf(bias, WT, bo + (size_t)j) : 0.0f, W, WT, wo + (size_t)j * I, xb, I);
				float hr = rn_dot(bias ? rt_ldf(bias, WT, bo + GH + j) : 0.0f, R, WT, ro + (size_t)j * H, h, H);
				g[j] = rt_sigm(rn_clip(p, xw + hr));
			}
			/* h gate: its recurrent product with h (lbr) or with r * h */
			for (int j = 0; j < H; j++)
				tmp[j] = lbr ? h[j] : g[H + j] * h[j];
			for (int j = 0; j < H; j++) {
				size_t row = (size_t)(2 * H + j);
				float xw = rn_dot(bias ? rt_ldf(bias, WT, bo + row) : 0.0f, W, WT, wo + row * I, xb, I);
				float q = rn_dot(bias ? rt_ldf(bias, WT, bo + GH + row) : 0.0f, R, WT, ro + row * H, tmp, H);
				float pre = lbr ? xw + g[H + j] * q : xw + q;
				g[2 * H + j] = npu_tanhf(rn_clip(p, pre));
			}
			for (int j = 0; j < H; j++) {
				float z = g[j];
				h[j] = rn_round((1 - z) * g[2 * H + j] + z * h[j], half);
			}
			if (Y)
				for (int j = 0; j < H; j++)
					rt_stf(Y, YT, rn_yoff(p, t, b) + (size_t)j, h[j]);
		}
		if (Yh)
			for (int j = 0; j < H; j++)
				rt_stf(Yh, YT, so + (size_t)j, h[j]);
	}
}
/* @npu-end */

/* @npu-kernel LSTM_F */
static void k_lstm_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0], *W = a[1], *R = a[2], *bias = a[3], *h0 = a[4], *c0 = a[5], *P = a[9], *sl = a[10];
	void *Y = a[6], *Yh = a[7], *Yc = a[8];
	int B = p[NPU_RN_B], I = p[NPU_RN_I], H = p[NPU_RN_H], ifg = p[NPU_RN_IFG] != 0;
	int32_t XT = p[NPU_RN_XT], WT = p[NPU_RN_WT], YT = p[NPU_RN_YT];
	int half = YT == NPU_T_F16;
	float *h = scratch, *c = h + H, *tmp = c + H, *g = tmp + H, *xb = g + 4 * H;
	size_t GH = 4 * (size_t)H, d = (size_t)p[NPU_RN_DIR], wo = d * GH * (size_t)I, ro = d * GH * (size_t)H;
	size_t bo = d * 2 * GH;
	for (int b = 0; b < B; b++) {
		size_t so = rn_soff(p, b);
		for (int j = 0; j < H; j++) {
			h[j] = h0 ? rt_ldf(h0, XT, so + (size_t)j) : 0.0f;
			c[j] = c0 ? rt_ldf(c0, XT, so + (size_t)j) : 0.0f;
		}
		int L = rn_len(p, sl, b);
		rn_zero_tail(p, Y, b, L);
		for (int s = 0; s < L; s++) {
			int t = p[NPU_RN_REVERSE] ? L - 1 - s : s;
			rn_input(p, x, t, b, xb);
			for (size_t j = 0; j < GH; j++) {
				float xw = rn_dot(bias ? rt_ldf(bias, WT, bo + j) : 0.0f, W, WT, wo + j * I, xb, I);
				float hr = rn_dot(bias ? rt_ldf(bias, WT, bo + GH + j) : 0.0f, R, WT, ro + j * H, h, H);
				g[j] = xw + hr;
			}
			/* gate order i, o, f, c; peepholes i o f */
			for (int j = 0; j < H; j++) {
				size_t po = d * 3 * (size_t)H + (size_t)j;
				float gi = g[j], go = g[H + j], gf = g[2 * H + j];
				if (P) {
					gi += rt_ldf(P, WT, po) * c[j];
					gf += rt_ldf(P, WT, po + 2 * (size_t)H) * c[j];
				}
				float ig = rt_sigm(rn_clip(p, gi));
				float fg = ifg ? 1 - ig : rt_sigm(rn_clip(p, gf));
				float cc = npu_tanhf(rn_clip(p, g[3 * H + j]));
				c[j] = rn_round(fg * c[j] + ig * cc, half);
				if (P)
					go += rt_ldf(P, WT, po + (size_t)H) * c[j];
				h[j] = rn_round(rt_sigm(rn_clip(p, go)) * npu_tanhf(c[j]), half);
			}
			if (Y)
				for (int j = 0; j < H; j++)
					rt_stf(Y, YT, rn_yoff(p, t, b) + (size_t)j, h[j]);
		}
		for (int j = 0; j < H; j++) {
			if (Yh)
				rt_stf(Yh, YT, so + (size_t)j, h[j]);
			if (Yc)
				rt_stf(Yc, YT, so + (size_t)j, c[j]);
		}
	}
	(void)tmp;
}
/* @npu-end */

/* @npu-kernel RNN_F */
static void k_rnn_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0], *W = a[1], *R = a[2], *bias = a[3], *h0 = a[4], *sl = a[7];
	void *Y = a[5], *Yh = a[6];
	int B = p[NPU_RN_B], I = p[NPU_RN_I], H = p[NPU_RN_H];
	int32_t XT = p[NPU_RN_XT], WT = p[NPU_RN_WT], YT = p[NPU_RN_YT];
	int half = YT == NPU_T_F16;
	float *h = scratch, *c = h + H, *tmp = c + H, *g = tmp + H, *xb = g + H;
	size_t GH = (size_t)H, d = (size_t)p[NPU_RN_DIR], wo = d * GH * (size_t)I, ro = d * GH * (size_t)H;
	size_t bo = d * 2 * GH;
	for (int b = 0; b < B; b++) {
		size_t so = rn_soff(p, b);
		for (int j = 0; j < H; j++)
			h[j] = h0 ? rt_ldf(h0, XT, so + (size_t)j) : 0.0f;
		int L = rn_len(p, sl, b);
		rn_zero_tail(p, Y, b, L);
		for (int s = 0; s < L; s++) {
			int t = p[NPU_RN_REVERSE] ? L - 1 - s : s;
			rn_input(p, x, t, b, xb);
			for (size_t j = 0; j < GH; j++) {
				float xw = rn_dot(bias ? rt_ldf(bias, WT, bo + j) : 0.0f, W, WT, wo + j * I, xb, I);
				float hr = rn_dot(bias ? rt_ldf(bias, WT, bo + GH + j) : 0.0f, R, WT, ro + j * H, h, H);
				g[j] = npu_tanhf(rn_clip(p, xw + hr));
			}
			for (int j = 0; j < H; j++)
				h[j] = rn_round(g[j], half);
			if (Y)
				for (int j = 0; j < H; j++)
					rt_stf(Y, YT, rn_yoff(p, t, b) + (size_t)j, h[j]);
		}
		if (Yh)
			for (int j = 0; j < H; j++)
				rt_stf(Yh, YT, so + (size_t)j, h[j]);
	}
}
/* @npu-end */

/* @npu-kernel CAST_F */
static int ca_is_float(int32_t t) { return t == NPU_T_F32 || t == NPU_T_F16; }

static void k_cast_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	void *y = a[1];
	int32_t n = p[NPU_CA_N], XT = p[NPU_CA_XT], YT = p[NPU_CA_YT];
	(void)scratch;
	if (XT == YT) {
		if (n > 0 && x != y)
			memmove(y, x, (size_t)n * (XT == NPU_T_F16 ? 2 : XT == NPU_T_I16 ? 2 : XT == NPU_T_I8 || XT == NPU_T_U8 ? 1 : 4));
		return;
	}
	if (XT == NPU_T_I64 || YT == NPU_T_I64) {	/* indices: i64 <-> i32, i64 -> float */
		for (int32_t i = 0; i < n; i++) {
			int64_t v = XT == NPU_T_I64 ? ((const int64_t *)x)[i] : rt_ldi(x, XT, (size_t)i);
			if (YT == NPU_T_I64)
				((int64_t *)y)[i] = v;
			else if (ca_is_float(YT))
				rt_stf(y, YT, (size_t)i, (float)v);
			else
				((int32_t *)y)[i] = v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : (int32_t)v;
		}
		return;
	}
	if (ca_is_float(YT)) {
		for (int32_t i = 0; i < n; i++)
			rt_stf(y, YT, (size_t)i, ca_is_float(XT) ? rt_ldf(x, XT, (size_t)i) : (float)rt_ldi(x, XT, (size_t)i));
		return;
	}
	/* float -> integer: truncation toward zero, saturated */
	float lo = YT == NPU_T_I8 ? -128.0f : YT == NPU_T_I16 ? -32768.0f : YT == NPU_T_U8 ? 0.0f : -2147483648.0f;
	float hi = YT == NPU_T_I8 ? 127.0f : YT == NPU_T_I16 ? 32767.0f : YT == NPU_T_U8 ? 255.0f : 2147483520.0f;
	for (int32_t i = 0; i < n; i++) {
		float v = rt_ldf(x, XT, (size_t)i);
		v = v != v ? 0.0f : v < lo ? lo : v > hi ? hi : v;
		rt_sti(y, YT, (size_t)i, (int32_t)v);
	}
}
/* @npu-end */

/* @npu-kernel COPY */
/* n elements of e bytes (1, 2, 4 or 8): every sx-th from xs to every
 * dy-th of yd */
static inline void rt_copy_run(uint8_t *yd, ptrdiff_t dy, const uint8_t *xs, ptrdiff_t sx, int32_t n, size_t e)
{
	switch (e) {
	case 1:
		for (int32_t i = 0; i < n; i++)
			yd[(ptrdiff_t)i * dy] = xs[(ptrdiff_t)i * sx];
		break;
	case 2:
		for (int32_t i = 0; i < n; i++)
			memcpy(yd + (ptrdiff_t)i * dy * 2, xs + (ptrdiff_t)i * sx * 2, 2);
		break;
	case 4:
		for (int32_t i = 0; i < n; i++)
			memcpy(yd + (ptrdiff_t)i * dy * 4, xs + (ptrdiff_t)i * sx * 4, 4);
		break;
	default:
		for (int32_t i = 0; i < n; i++)
			memcpy(yd + (ptrdiff_t)i * dy * 8, xs + (ptrdiff_t)i * sx * 8, 8);
		break;
	}
}

static void k_copy(const int32_t *p, void *const *a, void *scratch)
{
	const uint8_t *x = a[0];
	uint8_t *y = a[1];
	const int32_t *cnt = p + NPU_CP_COUNTS, *ss = p + NPU_CP_SS, *ds = p + NPU_CP_DS;
	size_t e = (size_t)p[NPU_CP_ELEM];
	int32_t idx[NPU_WALK_DIMS] = {0};
	size_t rows = rt_walk_rows(cnt);
	int32_t n5 = cnt[NPU_WALK_DIMS - 1], s5 = ss[NPU_WALK_DIMS - 1], d5 = ds[NPU_WALK_DIMS - 1];
	(void)scratch;
	if (e != 1 && e != 2 && e != 4 && e != 8)
		return;
	x += (ptrdiff_t)p[NPU_CP_SOFF] * (ptrdiff_t)e;
	y += (ptrdiff_t)p[NPU_CP_DOFF] * (ptrdiff_t)e;
	/* a short last dimension, not contiguous (a channel-last transpose's
	 * 3 channels): each of its indices as the outer loop over the
	 * dimension before it, one walk step per n4 n5 elements, not n5 */
	int32_t n4 = cnt[NPU_WALK_DIMS - 2];
	if (rows && n5 < 8 && n4 >= 4 * n5 && !(s5 == 1 && d5 == 1)) {
		int32_t c4[NPU_WALK_DIMS];
		ptrdiff_t s4 = ss[NPU_WALK_DIMS - 2], d4 = ds[NPU_WALK_DIMS - 2];
		for (int d = 0; d < NPU_WALK_DIMS; d++)
			c4[d] = cnt[d];
		c4[NPU_WALK_DIMS - 2] = 1;
		for (size_t r = 0, r4 = rows / (size_t)n4; r < r4; r++, rt_walk_next(idx, c4))
			for (int32_t j = 0; j < n5; j++) {
				const uint8_t *xs = x + (rt_walk_off(idx, ss) + (ptrdiff_t)j * s5) * (ptrdiff_t)e;
				uint8_t *yd = y + (rt_walk_off(idx, ds) + (ptrdiff_t)j * d5) * (ptrdiff_t)e;
				rt_copy_run(yd, d4, xs, s4, n4, e);
			}
		return;
	}
	for (size_t r = 0; r < rows; r++, rt_walk_next(idx, cnt)) {
		const uint8_t *xs = x + rt_walk_off(idx, ss) * (ptrdiff_t)e;
		uint8_t *yd = y + rt_walk_off(idx, ds) * (ptrdiff_t)e;
		if (s5 == 1 && d5 == 1) {
			memcpy(yd, xs, (size_t)n5 * e);
			continue;
		}
		rt_copy_run(yd, d5, xs, s5, n5, e);
	}
}
/* @npu-end */

/* @npu-kernel FILL */
static void k_fill(const int32_t *p, void *const *a, void *scratch)
{
	int32_t n = p[NPU_FI_N], e = p[NPU_FI_ELEM];
	uint32_t v = (uint32_t)p[NPU_FI_VALUE];
	(void)scratch;
	if (e == 1) {
		memset(a[0], (int)(v & 0xffu), n > 0 ? (size_t)n : 0);
	} else if (e == 2) {
		uint16_t *y = a[0];
		for (int32_t i = 0; i < n; i++)
			y[i] = (uint16_t)v;
	} else if (e == 4) {
		uint32_t *y = a[0];
		for (int32_t i = 0; i < n; i++)
			y[i] = v;
	}
}
/* @npu-end */

/* @npu-kernel REDUCE_F */
static void k_reduce_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	void *y = a[1];
	int32_t outer = p[NPU_RD_OUTER], n = p[NPU_RD_N], inner = p[NPU_RD_INNER], op = p[NPU_RD_OP];
	int32_t XT = p[NPU_RD_XT], YT = p[NPU_RD_YT];
	(void)scratch;
	for (int32_t o = 0; o < outer; o++)
		for (int32_t j = 0; j < inner; j++) {
			size_t base = (size_t)o * (size_t)n * (size_t)inner + (size_t)j;
			float acc = op == NPU_RED_MAX ? -INFINITY : op == NPU_RED_MIN ? INFINITY : 0;
			for (int32_t i = 0; i < n; i++) {
				float v = rt_ldf(x, XT, base + (size_t)i * (size_t)inner);
				if (op == NPU_RED_MAX)
					acc = v > acc || v != v ? v : acc;
				else if (op == NPU_RED_MIN)
					acc = v < acc || v != v ? v : acc;
				else
					acc += v;
			}
			if (op == NPU_RED_MEAN)
				acc /= (float)n;
			rt_stf(y, YT, (size_t)o * (size_t)inner + (size_t)j, acc);
		}
}
/* @npu-end */

/* @npu-kernel REDUCE_Q */
static void k_reduce_q(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	void *y = a[1];
	int32_t outer = p[NPU_RD_OUTER], n = p[NPU_RD_N], inner = p[NPU_RD_INNER], op = p[NPU_RD_OP];
	int32_t XT = p[NPU_RD_XT], YT = p[NPU_RD_YT], ZX = p[NPU_RD_ZX], ZY = p[NPU_RD_ZY];
	int32_t mult = p[NPU_RD_MULT], lo = p[NPU_RD_LO], hi = p[NPU_RD_HI];
	int sh = rt_shift(p[NPU_RD_SHIFT]);
	(void)scratch;
	for (int32_t o = 0; o < outer; o++)
		for (int32_t j = 0; j < inner; j++) {
			size_t base = (size_t)o * (size_t)n * (size_t)inner + (size_t)j;
			int64_t acc = 0;
			for (int32_t i = 0; i < n; i++) {
				int64_t v = (int64_t)rt_ldi(x, XT, base + (size_t)i * (size_t)inner) - ZX;
				if (i == 0 && (op == NPU_RED_MAX || op == NPU_RED_MIN))
					acc = v;
				else if (op == NPU_RED_MAX)
					acc = v > acc ? v : acc;
				else if (op == NPU_RED_MIN)
					acc = v < acc ? v : acc;
				else
					acc += v;
			}
			rt_sti(y, YT, (size_t)o * (size_t)inner + (size_t)j,
			       rt_clamp((int64_t)ZY + rt_mulshift(acc, mult, sh), lo, hi));
		}
}
/* @npu-end */

/* @npu-kernel GRU_Q LSTM_Q */
/* The integer recurrent cells (arithmetic: npu_rt.h, GRU_Q / LSTM_Q).
 * Scratch: int16 h [H], c [H], gates [3H], tmp [H]; one batch element at a
 * time. Sigmoid and tanh in Q0.15 at k/32 - 8, k = 0..512 (rounded
 * half up from double precision, saturated to +-32767). */
static const int16_t rq_sigm_tab[513] = {
	11, 11, 12, 12, 12, 13, 13, 14, 14, 15, 15, 15,
	16, 16, 17, 18, 18, 19, 19, 20, 21, 21, 22, 23,
	23, 24, 25, 26, 26, 27, 28, 29, 30, 31, 32, 33,
	34, 35, 36, 37, 38, 40, 41, 42, 43, 45, 46, 48,
	49, 51, 52, 54, 56, 57, 59, 61, 63, 65, 67, 69,
	72, 74, 76, 79, 81, 84, 86, 89, 92, 95, 98, 101,
	104, 107, 111, 114, 118, 121, 125, 129, 133, 138, 142, 146,
	151, 156, 161, 166, 171, 176, 182, 188, 194, 200, 206, 213,
	219, 226, 233, 241, 248, 256, 264, 272, 281, 290, 299, 308,
	318, 328, 338, 349, 360, 371, 383, 395, 407, 420, 433, 447,
	461, 475, 490, 505, 521, 537, 554, 572, 589, 608, 627, 646,
	666, 687, 708, 730, 753, 776, 800, 825, 851, 877, 904, 932,
	961, 990, 1021, 1052, 1084, 1117, 1152, 1187, 1223, 1260, 1299, 1338,
	1379, 1421, 1464, 1508, 1554, 1601, 1649, 1699, 1750, 1802, 1856, 1912,
	1969, 2028, 2088, 2150, 2213, 2279, 2346, 2415, 2486, 2558, 2633, 2710,
	2789, 2869, 2952, 3037, 3124, 3214, 3306, 3400, 3496, 3595, 3696, 3800,
	3906, 4015, 4126, 4240, 4357, 4476, 4599, 4723, 4851, 4982, 5115, 5252,
	5391, 5533, 5678, 5827, 5978, 6132, 6289, 6450, 6613, 6780, 6949, 7122,
	7297, 7476, 7658, 7843, 8031, 8222, 8416, 8613, 8813, 9015, 9221, 9430,
	9641, 9855, 10072, 10291, 10513, 10737, 10964, 11193, 11424, 11658, 11894, 12132,
	12371, 12613, 12856, 13101, 13348, 13595, 13845, 14095, 14347, 14599, 14852, 15107,
	15361, 15617, 15872, 16128, 16384, 16640, 16896, 17151, 17407, 17661, 17916, 18169,
	18421, 18673, 18923, 19173, 19420, 19667, 19912, 20155, 20397, 20636, 20874, 21110,
	21344, 21575, 21804, 22031, 22255, 22477, 22696, 22913, 23127, 23338, 23547, 23753,
	23955, 24155, 24352, 24546, 24737, 24925, 25110, 25292, 25471, 25646, 25819, 25988,
	26155, 26318, 26479, 26636, 26790, 26941, 27090, 27235, 27377, 27516, 27653, 27786,
	27917, 28045, 28169, 28292, 28411, 28528, 28642, 28753, 28862, 28968, 29072, 29173,
	29272, 29368, 29462, 29554, 29644, 29731, 29816, 29899, 29979, 30058, 30135, 30210,
	30282, 30353, 30422, 30489, 30555, 30618, 30680, 30740, 30799, 30856, 30912, 30966,
	31018, 31069, 31119, 31167, 31214, 31260, 31304, 31347, 31389, 31430, 31469, 31508,
	31545, 31581, 31616, 31651, 31684, 31716, 31747, 31778, 31807, 31836, 31864, 31891,
	31917, 31943, 31968, 31992, 32015, 32038, 32060, 32081, 32102, 32122, 32141, 32160,
	32179, 32196, 32214, 32231, 32247, 32263, 32278, 32293, 32307, 32321, 32335, 32348,
	32361, 32373, 32385, 32397, 32408, 32419, 32430, 32440, 32450, 32460, 32469, 32478,
	32487, 32496, 32504, 32512, 32520, 32527, 32535, 32542, 32549, 32555, 32562, 32568,
	32574, 32580, 32586, 32592, 32597, 32602, 32607, 32612, 32617, 32622, 32626, 32630,
	32635, 32639, 32643, 32647, 32650, 32654, 32657, 32661, 32664, 32667, 32670, 32673,
	32676, 32679, 32682, 32684, 32687, 32689, 32692, 32694, 32696, 32699, 32701, 32703,
	32705, 32707, 32709, 32711, 32712, 32714, 32716, 32717, 32719, 32720, 32722, 32723,
	32725, 32726, 32727, 32728, 32730, 32731, 32732, 32733, 32734, 32735, 32736, 32737,
	32738, 32739, 32740, 32741, 32742, 32742, 32743, 32744, 32745, 32745, 32746, 32747,
	32747, 32748, 32749, 32749, 32750, 32750, 32751, 32752, 32752, 32753, 32753, 32753,
	32754, 32754, 32755, 32755, 32756, 32756, 32756, 32757, 32757
};

static const int16_t rq_tanh_tab[513] = {
	-32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767,
	-32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767,
	-32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767,
	-32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767,
	-32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767,
	-32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767,
	-32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767, -32767,
	-32767, -32767, -32766, -32766, -32766, -32766, -32766, -32766, -32766, -32766, -32765, -32765,
	-32765, -32765, -32765, -32764, -32764, -32764, -32764, -32763, -32763, -32763, -32762, -32762,
	-32762, -32761, -32761, -32760, -32760, -32759, -32759, -32758, -32758, -32757, -32756, -32755,
	-32755, -32754, -32753, -32752, -32751, -32750, -32749, -32747, -32746, -32745, -32743, -32741,
	-32740, -32738, -32736, -32734, -32732, -32729, -32727, -32724, -32721, -32718, -32715, -32712,
	-32708, -32704, -32700, -32696, -32691, -32686, -32681, -32676, -32670, -32663, -32657, -32649,
	-32642, -32634, -32625, -32616, -32606, -32596, -32584, -32573, -32560, -32547, -32532, -32517,
	-32501, -32484, -32466, -32447, -32426, -32404, -32381, -32356, -32329, -32301, -32271, -32240,
	-32206, -32170, -32132, -32091, -32048, -32002, -31953, -31901, -31846, -31788, -31726, -31659,
	-31589, -31515, -31435, -31351, -31262, -31167, -31067, -30960, -30847, -30727, -30600, -30465,
	-30322, -30170, -30010, -29840, -29660, -29470, -29268, -29055, -28830, -28592, -28341, -28076,
	-27797, -27502, -27191, -26864, -26519, -26157, -25776, -25376, -24956, -24516, -24054, -23571,
	-23066, -22538, -21986, -21411, -20813, -20189, -19542, -18870, -18173, -17452, -16706, -15936,
	-15143, -14326, -13486, -12625, -11743, -10840, -9919, -8980, -8025, -7056, -6073, -5079,
	-4075, -3063, -2045, -1024, 0, 1024, 2045, 3063, 4075, 5079, 6073, 7056,
	8025, 8980, 9919, 10840, 11743, 12625, 13486, 14326, 15143, 15936, 16706, 17452,
	18173, 18870, 19542, 20189, 20813, 21411, 21986, 22538, 23066, 23571, 24054, 24516,
	24956, 25376, 25776, 26157, 26519, 26864, 27191, 27502, 27797, 28076, 28341, 28592,
	28830, 29055, 29268, 29470, 29660, 29840, 30010, 30170, 30322, 30465, 30600, 30727,
	30847, 30960, 31067, 31167, 31262, 31351, 31435, 31515, 31589, 31659, 31726, 31788,
	31846, 31901, 31953, 32002, 32048, 32091, 32132, 32170, 32206, 32240, 32271, 32301,
	32329, 32356, 32381, 32404, 32426, 32447, 32466, 32484, 32501, 32517, 32532, 32547,
	32560, 32573, 32584, 32596, 32606, 32616, 32625, 32634, 32642, 32649, 32657, 32663,
	32670, 32676, 32681, 32686, 32691, 32696, 32700, 32704, 32708, 32712, 32715, 32718,
	32721, 32724, 32727, 32729, 32732, 32734, 32736, 32738, 32740, 32741, 32743, 32745,
	32746, 32747, 32749, 32750, 32751, 32752, 32753, 32754, 32755, 32755, 32756, 32757,
	32758, 32758, 32759, 32759, 32760, 32760, 32761, 32761, 32762, 32762, 32762, 32763,
	32763, 32763, 32764, 32764, 32764, 32764, 32765, 32765, 32765, 32765, 32765, 32766,
	32766, 32766, 32766, 32766, 32766, 32766, 32766, 32767, 32767, 32767, 32767, 32767,
	32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767,
	32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767,
	32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767,
	32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767,
	32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767,
	32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767,
	32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767, 32767
};


static int32_t rq_lut(const int16_t *t, int32_t pre)
{
	uint32_t u = (uint32_t)(pre + 32768);
	uint32_t i = u >> 7;
	int32_t f = (int32_t)(u & 127u);
	return t[i] + (int32_t)npu_rshift_round((int64_t)(t[i + 1] - t[i]) * f, 7);
}

static int32_t rq_sat(int64_t v, int32_t lo, int32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

static int32_t rq_ldx(const void *x, int32_t t, size_t i)
{
	return t == NPU_T_I16 ? ((const int16_t *)x)[i] : ((const int8_t *)x)[i];
}

/* the two Q3.12 halves of gate row j's pre-activation: from x_t (batch b)
 * and from the state v */
static void rq_row(const int32_t *p, const void *x, size_t xoff, const int8_t *W, const int8_t *R, const int32_t *q,
		   size_t j, const int16_t *v, int64_t *px, int64_t *ph)
{
	int I = p[NPU_RNQ_I], H = p[NPU_RNQ_H];
	int32_t XT = p[NPU_RNQ_XT], ZX = p[NPU_RNQ_ZX];
	const int32_t *qr = q + j * NPU_RQN_ROW;
	const int8_t *w = W + j * (size_t)I, *r = R + j * (size_t)H;
	/* |sums| < 2^31: checked per row when the cell was lowered */
	int32_t ax = qr[NPU_RQN_BX], ah = qr[NPU_RQN_BH];
	for (int i = 0; i < I; i++)
		ax += (rq_ldx(x, XT, xoff + (size_t)i) - ZX) * w[i];
	for (int k = 0; k < H; k++)
		ah += v[k] * r[k];
	*px = npu_rshift_round((int64_t)ax * qr[NPU_RQN_MX], qr[NPU_RQN_SX]);
	*ph = npu_rshift_round((int64_t)ah * qr[NPU_RQN_MH], qr[NPU_RQN_SH]);
}

static void rq_out(const int32_t *p, void *Y, size_t off, int32_t h)
{
	int32_t y = rq_sat(p[NPU_RNQ_ZY] + npu_rshift_round((int64_t)h * p[NPU_RNQ_MULT], p[NPU_RNQ_SHIFT]),
			   p[NPU_RNQ_LO], p[NPU_RNQ_HI]);
	if (p[NPU_RNQ_YT] == NPU_T_I16)
		((int16_t *)Y)[off] = (int16_t)y;
	else
		((int8_t *)Y)[off] = (int8_t)y;
}

static uint32_t rq_scratch(const int32_t *p)
{
	int64_t h = p[NPU_RNQ_H] > 0 ? p[NPU_RNQ_H] : 0;
	return (uint32_t)((6 * h * 2 + 15) & ~(int64_t)15);
}
/* @npu-end */

/* @npu-kernel GRU_Q */
static void k_gru_q(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	const int8_t *W = a[1], *R = a[2];
	const int32_t *q = a[3];
	const int16_t *h0 = a[4];
	void *Y = a[5];
	int16_t *Yh = a[6];
	int T = p[NPU_RNQ_T], B = p[NPU_RNQ_B], I = p[NPU_RNQ_I], H = p[NPU_RNQ_H], lbr = p[NPU_RNQ_LBR] != 0;
	int16_t *h = scratch, *g = h + 2 * H, *tmp = g + 3 * H;
	for (int b = 0; b < B; b++) {
		for (int j = 0; j < H; j++)
			h[j] = h0 ? (int16_t)rq_sat(h0[(size_t)b * H + j], -32767, 32767) : 0;
		for (int s = 0; s < T; s++) {
			int t = p[NPU_RNQ_REVERSE] ? T - 1 - s : s;
			size_t xoff = ((size_t)t * B + b) * I;
			int64_t px, ph;
			/* z and r */
			for (int j = 0; j < 2 * H; j++) {
				rq_row(p, x, xoff, W, R, q, (size_t)j, h, &px, &ph);
				g[j] = (int16_t)rq_lut(rq_sigm_tab, rq_sat(px + ph, -32768, 32767));
			}
			/* h gate: R times h (linear_before_reset) or times r h */
			for (int j = 0; j < H; j++)
				tmp[j] = lbr ? h[j] : (int16_t)npu_rshift_round((int32_t)g[H + j] * h[j], 15);
			for (int j = 0; j < H; j++) {
				rq_row(p, x, xoff, W, R, q, (size_t)(2 * H + j), tmp, &px, &ph);
				if (lbr)
					ph = npu_rshift_round(g[H + j] * (int64_t)rq_sat(ph, INT32_MIN, INT32_MAX), 15);
				g[2 * H + j] = (int16_t)rq_lut(rq_tanh_tab, rq_sat(px + ph, -32768, 32767));
			}
			/* h = n + z (h - n): between n and h, so within +-32767 */
			for (int j = 0; j < H; j++) {
				int32_t n = g[2 * H + j];
				h[j] = (int16_t)(n + npu_rshift_round((int32_t)g[j] * (h[j] - n), 15));
			}
			if (Y)
				for (int j = 0; j < H; j++)
					rq_out(p, Y, ((size_t)t * B + b) * H + j, h[j]);
		}
		if (Yh)
			for (int j = 0; j < H; j++)
				Yh[(size_t)b * H + j] = h[j];
	}
}
/* @npu-end */

/* @npu-kernel LSTM_Q */
static void k_lstm_q(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	const int8_t *W = a[1], *R = a[2];
	const int32_t *q = a[3];
	const int16_t *h0 = a[4], *c0 = a[5];
	void *Y = a[6];
	int16_t *Yh = a[7], *Yc = a[8];
	int T = p[NPU_RNQ_T], B = p[NPU_RNQ_B], I = p[NPU_RNQ_I], H = p[NPU_RNQ_H];
	int cf = p[NPU_RNQ_CFRAC] < 0 ? 0 : p[NPU_RNQ_CFRAC] > 12 ? 12 : p[NPU_RNQ_CFRAC];
	int16_t *h = scratch, *c = h + H, *hn = c + H;
	for (int b = 0; b < B; b++) {
		for (int j = 0; j < H; j++) {
			h[j] = h0 ? (int16_t)rq_sat(h0[(size_t)b * H + j], -32767, 32767) : 0;
			c[j] = c0 ? c0[(size_t)b * H + j] : 0;
		}
		for (int s = 0; s < T; s++) {
			int t = p[NPU_RNQ_REVERSE] ? T - 1 - s : s;
			size_t xoff = ((size_t)t * B + b) * I;
			for (int j = 0; j < H; j++) {
				int32_t gv[4];
				/* gate order i, o, f, c */
				for (int k = 0; k < 4; k++) {
					int64_t px, ph;
					rq_row(p, x, xoff, W, R, q, (size_t)(k * H + j), h, &px, &ph);
					gv[k] = rq_lut(k == 3 ? rq_tanh_tab : rq_sigm_tab, rq_sat(px + ph, -32768, 32767));
				}
				int64_t cc = npu_rshift_round((int64_t)gv[2] * c[j], 15) +
					     npu_rshift_round((int64_t)gv[0] * gv[3], 30 - cf);
				c[j] = (int16_t)rq_sat(cc, -32768, 32767);
				int32_t tc = rq_sat((int64_t)c[j] * ((int64_t)1 << (12 - cf)), -32768, 32767);
				hn[j] = (int16_t)npu_rshift_round((int64_t)gv[1] * rq_lut(rq_tanh_tab, tc), 15);
			}
			for (int j = 0; j < H; j++)
				h[j] = hn[j];
			if (Y)
				for (int j = 0; j < H; j++)
					rq_out(p, Y, ((size_t)t * B + b) * H + j, h[j]);
		}
		for (int j = 0; j < H; j++) {
			if (Yh)
				Yh[(size_t)b * H + j] = h[j];
			if (Yc)
				Yc[(size_t)b * H + j] = c[j];
		}
	}
}
/* @npu-end */

/* @npu-kernel MATMUL_F MATMUL_Q */
/* batch b's start in an operand with batch strides bs (the walk's counts
 * cnt, outermost first) */
static size_t mm_batch(const int32_t *cnt, const int32_t *bs, size_t b)
{
	size_t o = 0;
	for (int d = NPU_MM_BDIMS - 1; d >= 0; d--) {
		size_t c = cnt[d] > 0 ? (size_t)cnt[d] : 1;
		o += (b % c) * (size_t)bs[d];
		b /= c;
	}
	return o;
}

static size_t mm_batches(const int32_t *cnt)
{
	size_t n = 1;
	for (int d = 0; d < NPU_MM_BDIMS; d++)
		n *= cnt[d] > 0 ? (size_t)cnt[d] : 0;
	return n;
}
/* @npu-end */

/* @npu-kernel MATMUL_F */
static void k_matmul_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *A = a[0], *Bm = a[1], *C = a[2];
	void *y = a[3];
	int32_t M = p[NPU_MM_M], N = p[NPU_MM_N], K = p[NPU_MM_K];
	int32_t AT = p[NPU_MM_AT], BT = p[NPU_MM_BT], CT = p[NPU_MM_CT], YT = p[NPU_MM_YT];
	const int32_t *cnt = p + NPU_MM_BCOUNTS;
	size_t am = (size_t)p[NPU_MM_AM], ak = (size_t)p[NPU_MM_AK], bk = (size_t)p[NPU_MM_BK];
	size_t bn = (size_t)p[NPU_MM_BN], cm = (size_t)p[NPU_MM_CM], cn = (size_t)p[NPU_MM_CN];
	float alpha = rt_pf(p, NPU_MM_ALPHA), beta = rt_pf(p, NPU_MM_BETA);
	float lo = rt_pf(p, NPU_MM_LO), hi = rt_pf(p, NPU_MM_HI);
	size_t nb = mm_batches(cnt), at = 0;
	(void)scratch;
	for (size_t b = 0; b < nb; b++) {
		size_t oa = mm_batch(cnt, p + NPU_MM_BSA, b), ob = mm_batch(cnt, p + NPU_MM_BSB, b);
		size_t oc = mm_batch(cnt, p + NPU_MM_BSC, b);
		for (int32_t m = 0; m < M; m++)
			for (int32_t n = 0; n < N; n++, at++) {
				float acc = 0;
				for (int32_t k = 0; k < K; k++)
					acc += rt_ldf(A, AT, oa + (size_t)m * am + (size_t)k * ak) *
					       rt_ldf(Bm, BT, ob + (size_t)k * bk + (size_t)n * bn);
				float v = alpha * acc;
				if (C)
					v += beta * rt_ldf(C, CT, oc + (size_t)m * cm + (size_t)n * cn);
				rt_stf(y, YT, at, rt_clampf(v, lo, hi));
			}
	}
}
/* @npu-end */

/* @npu-kernel MATMUL_Q */
static void k_matmul_q(const int32_t *p, void *const *a, void *scratch)
{
	const void *A = a[0], *Bm = a[1];
	void *y = a[3];
	int32_t M = p[NPU_MM_M], N = p[NPU_MM_N], K = p[NPU_MM_K];
	int32_t AT = p[NPU_MM_AT], BT = p[NPU_MM_BT], YT = p[NPU_MM_YT];
	int32_t ZA = p[NPU_MM_ZA], ZB = p[NPU_MM_ZB], ZY = p[NPU_MM_ZY], mult = p[NPU_MM_MULT];
	int32_t lo = p[NPU_MM_LO], hi = p[NPU_MM_HI];
	int sh = rt_shift(p[NPU_MM_SHIFT]);
	const int32_t *cnt = p + NPU_MM_BCOUNTS;
	size_t am = (size_t)p[NPU_MM_AM], ak = (size_t)p[NPU_MM_AK], bk = (size_t)p[NPU_MM_BK];
	size_t bn = (size_t)p[NPU_MM_BN];
	size_t nb = mm_batches(cnt), at = 0;
	(void)scratch;
	for (size_t b = 0; b < nb; b++) {
		size_t oa = mm_batch(cnt, p + NPU_MM_BSA, b), ob = mm_batch(cnt, p + NPU_MM_BSB, b);
		for (int32_t m = 0; m < M; m++)
			for (int32_t n = 0; n < N; n++, at++) {
				int64_t acc = 0;
				for (int32_t k = 0; k < K; k++)
					acc += (int64_t)(rt_ldi(A, AT, oa + (size_t)m * am + (size_t)k * ak) - ZA) *
					       (rt_ldi(Bm, BT, ob + (size_t)k * bk + (size_t)n * bn) - ZB);
				rt_sti(y, YT, at, rt_clamp((int64_t)ZY + rt_mulshift(acc, mult, sh), lo, hi));
			}
	}
}
/* @npu-end */

/* @npu-kernel GATHER */
static void k_gather(const int32_t *p, void *const *a, void *scratch)
{
	const uint8_t *x = a[0];
	const void *idx = a[1];
	uint8_t *y = a[2];
	int32_t outer = p[NPU_GA_OUTER], N = p[NPU_GA_N], nidx = p[NPU_GA_NIDX];
	size_t row = (size_t)p[NPU_GA_INNER] * (size_t)p[NPU_GA_ELEM];
	(void)scratch;
	for (int32_t o = 0; o < outer; o++)
		for (int32_t i = 0; i < nidx; i++) {
			int64_t k = p[NPU_GA_IT] == NPU_T_I64 ? ((const int64_t *)idx)[i] : ((const int32_t *)idx)[i];
			uint8_t *d = y + ((size_t)o * (size_t)nidx + (size_t)i) * row;
			if (k < 0)
				k += N;
			if (k < 0 || k >= N)
				memset(d, 0, row);
			else
				memcpy(d, x + ((size_t)o * (size_t)N + (size_t)k) * row, row);
		}
}
/* @npu-end */

/* @npu-kernel ARGMAX */
static void k_argmax(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	void *y = a[1];
	int32_t outer = p[NPU_AM_OUTER], n = p[NPU_AM_N], inner = p[NPU_AM_INNER], XT = p[NPU_AM_XT];
	int mn = p[NPU_AM_MIN] != 0, last = p[NPU_AM_LAST] != 0, fl = XT == NPU_T_F32 || XT == NPU_T_F16;
	(void)scratch;
	for (int32_t o = 0; o < outer; o++)
		for (int32_t j = 0; j < inner; j++) {
			size_t base = (size_t)o * (size_t)n * (size_t)inner + (size_t)j;
			int32_t best = 0;
			float bf = 0;
			int32_t bi = 0;
			for (int32_t i = 0; i < n; i++) {
				size_t k = base + (size_t)i * (size_t)inner;
				int take;
				if (fl) {
					float v = rt_ldf(x, XT, k);
					/* as libir's interpreter: comparisons with NaN are false */
					take = i == 0 || (mn ? v < bf : v > bf) || (last && v == bf);
					if (take)
						bf = v;
				} else {
					int32_t v = rt_ldi(x, XT, k);
					take = i == 0 || (mn ? v < bi : v > bi) || (last && v == bi);
					if (take)
						bi = v;
				}
				if (take)
					best = i;
			}
			size_t at = (size_t)o * (size_t)inner + (size_t)j;
			if (p[NPU_AM_YT] == NPU_T_I64)
				((int64_t *)y)[at] = best;
			else
				((int32_t *)y)[at] = best;
		}
}
/* @npu-end */

/* @npu-kernel LRN_F */
static void k_lrn_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	void *y = a[1];
	int32_t N = p[NPU_LR_N], C = p[NPU_LR_C], inner = p[NPU_LR_INNER], size = p[NPU_LR_SIZE];
	int32_t XT = p[NPU_LR_XT], YT = p[NPU_LR_YT];
	float alpha = rt_pf(p, NPU_LR_ALPHA), beta = rt_pf(p, NPU_LR_BETA), bias = rt_pf(p, NPU_LR_BIAS);
	int32_t before = (size - 1) / 2, after = size - 1 - before;
	(void)scratch;
	for (int32_t nn = 0; nn < N; nn++)
		for (int32_t c = 0; c < C; c++)
			for (int32_t j = 0; j < inner; j++) {
				size_t base = (size_t)nn * (size_t)C * (size_t)inner + (size_t)j;
				float sq = 0;
				int32_t c0 = c - before < 0 ? 0 : c - before, c1 = c + after > C - 1 ? C - 1 : c + after;
				for (int32_t k = c0; k <= c1; k++) {
					float v = rt_ldf(x, XT, base + (size_t)k * (size_t)inner);
					sq += v * v;
				}
				float d = bias + alpha / (float)size * sq;
				size_t at = base + (size_t)c * (size_t)inner;
				rt_stf(y, YT, at, rt_ldf(x, XT, at) / npu_expf(beta * npu_logf(d)));
			}
}
/* @npu-end */

/* @npu-kernel CONV_T_Q CONV_T_F CONV_T_NHWC_Q CONV_T_NHWC_F */
/* Transposed convolution as a gather: output row o reads input row i
 * through tap k when o + P - k D = i S. Shared geometry of both kernels. */
typedef struct {
	int N, C, H, W, OC, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW, cg, og;
} ct_geo;

static int ct_geometry(const int32_t *p, ct_geo *g)
{
	int G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1;
	g->N = p[NPU_CV_N], g->C = p[NPU_CV_C], g->H = p[NPU_CV_H], g->W = p[NPU_CV_W];
	g->OC = p[NPU_CV_OC], g->OH = p[NPU_CV_OH], g->OW = p[NPU_CV_OW];
	g->KH = p[NPU_CV_KH], g->KW = p[NPU_CV_KW], g->SH = p[NPU_CV_SH], g->SW = p[NPU_CV_SW];
	g->PT = p[NPU_CV_PT], g->PL = p[NPU_CV_PL], g->DH = p[NPU_CV_DH], g->DW = p[NPU_CV_DW];
	g->cg = g->C / G, g->og = g->OC / G;
	/* not a transposed convolution: nothing to compute */
	return g->cg < 1 || g->og < 1 || g->C % G || g->OC % G || g->SH < 1 || g->SW < 1 ? -1 : 0;
}

/* the input index o reads through tap k along one axis, or -1 */
static inline int ct_src(int o, int k, int P, int D, int S, int n)
{
	int t = o + P - k * D;
	if (t < 0 || t % S)
		return -1;
	t /= S;
	return t < n ? t : -1;
}
/* @npu-end */

/* @npu-kernel CONV_T_Q */
/* CONV_T_Q's int8 path (x int8 or uint8 with its zero point in range,
 * int8 w with every zero point in [-128, 127], an int32 bias): per output
 * channel and row, each kernel row kh that reaches the row (once per row,
 * not per output) adds x[ih] (w - z) over whole input rows into int32
 * accumulators of the output row, at columns iw SW - PL + kw DW (the
 * scratch: OW int32), then cq_requant. |x - ZX|, |w - z| <= 255 and at
 * most CTQ_MAX_TAPS = C/G KH KW taps per output keep every sum below
 * 2^30 (cq_requant's bound); the sums are exact, so they equal the
 * generic loop's. Otherwise (int16 x, larger windows, a scratch bound
 * below OW int32) the generic loop, in int64. */
#define CTQ_MAX_TAPS 16384
static size_t ctq_scratch(const int32_t *p)
{
	int32_t XT = p[NPU_CV_XT], ZX = p[NPU_CV_ZX], OW = p[NPU_CV_OW];
	int G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1;
	int64_t taps = (int64_t)(p[NPU_CV_C] / G) * p[NPU_CV_KH] * p[NPU_CV_KW];
	size_t need = ((size_t)(OW > 0 ? OW : 0) * 4 + 15) & ~(size_t)15;
	int xok = XT == NPU_T_I8 ? ZX >= -128 && ZX <= 127 : XT == NPU_T_U8 && ZX >= 0 && ZX <= 255;
	if (!xok || p[NPU_CV_WT] != NPU_T_I8 || p[NPU_CV_ACT] == NPU_T_I64 || OW < 1 || taps < 1 ||
	    taps > CTQ_MAX_TAPS || (p[NPU_CV_SMAX] > 0 && need > (size_t)p[NPU_CV_SMAX]))
		return 0;
	return need;
}

/* acc[iw SW + off] += (x[iw] - ZX) wv for the iw in [0, W) whose column
 * lies in [0, OW) */
static void ctq_row(int32_t *restrict acc, const void *xr, int32_t XT, int32_t ZX, int32_t wv, int off, int SW,
		    int W, int OW)
{
	int lo = off >= 0 ? 0 : (-off + SW - 1) / SW;
	int hi = OW - 1 - off < 0 ? 0 : (OW - 1 - off) / SW + 1;
	if (hi > W)
		hi = W;
	if (hi <= lo)
		return;
	int32_t *restrict ar = acc + (off + lo * SW);
	int n = hi - lo;
	if (XT == NPU_T_I8) {
		const int8_t *restrict xs = (const int8_t *)xr + lo;
		if (SW == 1)
			for (int i = 0; i < n; i++)
				ar[i] += (xs[i] - ZX) * wv;
		else
			for (int i = 0; i < n; i++)
				ar[(size_t)i * (size_t)SW] += (xs[i] - ZX) * wv;
	} else {
		const uint8_t *restrict xs = (const uint8_t *)xr + lo;
		if (SW == 1)
			for (int i = 0; i < n; i++)
				ar[i] += (xs[i] - ZX) * wv;
		else
			for (int i = 0; i < n; i++)
				ar[(size_t)i * (size_t)SW] += (xs[i] - ZX) * wv;
	}
}

static void ctq_fast(const int32_t *p, const ct_geo *g, void *const *a, int32_t *acc)
{
	const int8_t *w = a[1];
	const int32_t *bias = a[2], *mult = a[3], *shift = a[4], *wzp = a[5];
	void *y = a[6];
	int32_t XT = p[NPU_CV_XT], YT = p[NPU_CV_YT];
	int32_t ZX = p[NPU_CV_ZX], ZY = p[NPU_CV_ZY], LO = p[NPU_CV_LO], HI = p[NPU_CV_HI];
	size_t E = XT == NPU_T_I8 ? sizeof(int8_t) : sizeof(uint8_t), HW = (size_t)g->H * (size_t)g->W;
	size_t K = (size_t)g->KH * (size_t)g->KW, yi = 0;
	for (int n = 0; n < g->N; n++)
		for (int oc = 0; oc < g->OC; oc++) {
			int gr = oc / g->og, o = oc % g->og;
			int32_t z = wzp ? wzp[oc] : 0;
			for (int oh = 0; oh < g->OH; oh++, yi += (size_t)g->OW) {
				memset(acc, 0, sizeof *acc * (size_t)g->OW);
				for (int kh = 0; kh < g->KH; kh++) {
					int ih = ct_src(oh, kh, g->PT, g->DH, g->SH, g->H);
					if (ih < 0)
						continue;
					for (int ic = 0; ic < g->cg; ic++) {
						int c = gr * g->cg + ic;
						const int8_t *wr = w + ((size_t)c * (size_t)g->og + (size_t)o) * K + (size_t)kh * (size_t)g->KW;
						const uint8_t *xr = (const uint8_t *)a[0] +
								    (((size_t)n * (size_t)g->C + (size_t)c) * HW + (size_t)ih * (size_t)g->W) * E;
						for (int kw = 0; kw < g->KW; kw++)
							if (wr[kw] != z)
								ctq_row(acc, xr, XT, ZX, wr[kw] - z, kw * g->DW - g->PL, g->SW, g->W, g->OW);
					}
				}
				cq_requant(y, YT, yi, acc, NULL, 0, g->OW, 1, 0, bias ? bias[oc] : 0, mult[oc], shift[oc], ZY, LO, HI);
			}
		}
}

static void k_conv_t_q(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0], *w = a[1], *bias = a[2];
	const int32_t *mult = a[3], *shift = a[4], *wzp = a[5];
	void *y = a[6];
	int32_t XT = p[NPU_CV_XT], WT = p[NPU_CV_WT], YT = p[NPU_CV_YT];
	int32_t ZX = p[NPU_CV_ZX], ZY = p[NPU_CV_ZY], LO = p[NPU_CV_LO], HI = p[NPU_CV_HI];
	ct_geo g;
	size_t yi = 0;
	if (ct_geometry(p, &g))
		return;
	if (scratch && ctq_scratch(p)) {
		int zok = 1;
		for (int oc = 0; wzp && oc < g.OC; oc++)
			zok &= wzp[oc] >= -128 && wzp[oc] <= 127;
		if (zok) {
			ctq_fast(p, &g, a, scratch);
			return;
		}
	}
	for (int n = 0; n < g.N; n++)
		for (int oc = 0; oc < g.OC; oc++) {
			int gr = oc / g.og, o = oc % g.og;
			int64_t z = wzp ? wzp[oc] : 0;
			int s = rt_shift(shift[oc]);
			for (int oh = 0; oh < g.OH; oh++)
				for (int ow = 0; ow < g.OW; ow++) {
					int64_t acc = cq_bias(p, bias, oc);
					for (int ic = 0; ic < g.cg; ic++) {
						int c = gr * g.cg + ic;
						size_t xc = ((size_t)n * g.C + (size_t)c) * g.H * g.W;
						size_t wc = ((size_t)c * g.og + (size_t)o) * g.KH * g.KW;
						for (int kh = 0; kh < g.KH; kh++) {
							int ih = ct_src(oh, kh, g.PT, g.DH, g.SH, g.H);
							if (ih < 0)
								continue;
							for (int kw = 0; kw < g.KW; kw++) {
								int iw = ct_src(ow, kw, g.PL, g.DW, g.SW, g.W);
								if (iw < 0)
									continue;
								int64_t xv = rt_ldi(x, XT, xc + (size_t)ih * g.W + iw) - (int64_t)ZX;
								int64_t wv = rt_ldi(w, WT, wc + (size_t)kh * g.KW + kw) - z;
								acc += xv * wv;
							}
						}
					}
					rt_sti(y, YT, yi++, rt_clamp(ZY + rt_mulshift(acc, mult[oc], s), LO, HI));
				}
		}
}
/* @npu-end */

/* @npu-kernel CONV_T_F */
static void k_conv_t_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0], *w = a[1], *bias = a[2];
	const float *wscale = a[3];
	void *y = a[4];
	int32_t XT = p[NPU_CV_XT], WT = p[NPU_CV_WT], YT = p[NPU_CV_YT], act = p[NPU_CV_ACT];
	float lo = rt_pf(p, NPU_CV_LO), hi = rt_pf(p, NPU_CV_HI), p0 = rt_pf(p, NPU_CV_P0), p1 = rt_pf(p, NPU_CV_P1);
	int half = XT == NPU_T_F16;
	ct_geo g;
	size_t yi = 0;
	(void)scratch;
	if (ct_geometry(p, &g))
		return;
	for (int n = 0; n < g.N; n++)
		for (int oc = 0; oc < g.OC; oc++) {
			int gr = oc / g.og, o = oc % g.og;
			float ws = wscale ? wscale[oc] : 1.0f;
			for (int oh = 0; oh < g.OH; oh++)
				for (int ow = 0; ow < g.OW; ow++) {
					float acc = bias ? rt_ldf(bias, XT, (size_t)oc) : 0.0f;
					for (int ic = 0; ic < g.cg; ic++) {
						int c = gr * g.cg + ic;
						size_t xc = ((size_t)n * g.C + (size_t)c) * g.H * g.W;
						size_t wc = ((size_t)c * g.og + (size_t)o) * g.KH * g.KW;
						for (int kh = 0; kh < g.KH; kh++) {
							int ih = ct_src(oh, kh, g.PT, g.DH, g.SH, g.H);
							if (ih < 0)
								continue;
							for (int kw = 0; kw < g.KW; kw++) {
								int iw = ct_src(ow, kw, g.PL, g.DW, g.SW, g.W);
								if (iw < 0)
									continue;
								size_t wi = wc + (size_t)kh * g.KW + kw;
								float wv;
								if (WT == NPU_T_I8) {
									wv = (float)((const int8_t *)w)[wi] * ws;
									if (half)	/* decompressed to half, as CONV_F */
										wv = npu_f16_to_f32(npu_f32_to_f16(wv));
								} else {
									wv = rt_ldf(w, WT, wi);
								}
								float prod = rt_ldf(x, XT, xc + (size_t)ih * g.W + iw) * wv;
								acc += prod;
							}
						}
					}
					acc = rt_clampf(acc, lo, hi);
					if (act >= 0)
						acc = rt_unary(act, acc, p0, p1);
					rt_stf(y, YT, yi++, acc);
				}
		}
}
/* @npu-end */

/* @npu-kernel RESIZE */
/* RESIZE on 8-bit rows (x and y both int8 or both uint8, K 1 or 2): the
 * values of the loop in k_resize without its per-element type switches.
 * Linear: each column's blend of the two rows, wh[0] x0 + wh[1] x1, in
 * int32 (|wh| <= 2^15 checked first, |x| < 2^8), the blend of the two
 * columns in int64, as there; integers are exact in any order. Returns 0
 * (nothing written) where it does not apply. */
#define RS_Q8_ROWS(T) \
	do { \
		const T *x0 = (const T *)x + xc + (size_t)rh[0] * (size_t)W; \
		const T *x1 = (const T *)x + xc + (size_t)rh[K == 2] * (size_t)W; \
		T *yp = (T *)y + yi; \
		if (K == 1) { \
			for (int32_t ow = 0; ow < OW; ow++) \
				yp[ow] = x0[tw[2 * (size_t)ow]]; \
			break; \
		} \
		int32_t a0 = rh[2], a1 = rh[3]; \
		for (int32_t ow = 0; ow < OW; ow++) { \
			const int32_t *rw = tw + 4 * (size_t)ow; \
			int32_t t0 = a0 * x0[rw[0]] + a1 * x1[rw[0]], t1 = a0 * x0[rw[1]] + a1 * x1[rw[1]]; \
			yp[ow] = (T)rt_rsr((int64_t)rw[2] * t0 + (int64_t)rw[3] * t1, 30); \
		} \
	} while (0)
static int rs_q8(const int32_t *p, const void *x, const int32_t *th, const int32_t *tw, void *y)
{
	int32_t outer = p[NPU_RS_OUTER], H = p[NPU_RS_H], W = p[NPU_RS_W], OH = p[NPU_RS_OH], OW = p[NPU_RS_OW];
	int32_t K = p[NPU_RS_K], XT = p[NPU_RS_XT];
	size_t yi = 0;
	if ((XT != NPU_T_I8 && XT != NPU_T_U8) || p[NPU_RS_YT] != XT || p[NPU_RS_ELEM] != 1 || (K != 1 && K != 2))
		return 0;
	for (int32_t oh = 0; K == 2 && oh < OH; oh++) {
		const int32_t *rh = th + (size_t)oh * 4;
		if (rh[2] < -32768 || rh[2] > 32768 || rh[3] < -32768 || rh[3] > 32768)
			return 0;
	}
	for (int32_t n = 0; n < outer; n++) {
		size_t xc = (size_t)n * (size_t)H * (size_t)W;
		for (int32_t oh = 0; oh < OH; oh++, yi += (size_t)OW) {
			const int32_t *rh = th + (size_t)oh * 2 * (size_t)K;
			if (XT == NPU_T_I8)
				RS_Q8_ROWS(int8_t);
			else
				RS_Q8_ROWS(uint8_t);
		}
	}
	return 1;
}
#undef RS_Q8_ROWS

static void k_resize(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	const int32_t *th = a[1], *tw = a[2];
	void *y = a[3];
	int32_t outer = p[NPU_RS_OUTER], H = p[NPU_RS_H], W = p[NPU_RS_W], OH = p[NPU_RS_OH], OW = p[NPU_RS_OW];
	int32_t K = p[NPU_RS_K], XT = p[NPU_RS_XT], YT = p[NPU_RS_YT], E = p[NPU_RS_ELEM];
	int flt = XT == NPU_T_F32 || XT == NPU_T_F16;
	size_t yi = 0;
	(void)scratch;
	if (K < 1 || K > 4 || (!flt && K > 2) || rs_q8(p, x, th, tw, y))
		return;
	for (int32_t n = 0; n < outer; n++) {
		size_t xc = (size_t)n * (size_t)H * (size_t)W;
		for (int32_t oh = 0; oh < OH; oh++) {
			const int32_t *rh = th + (size_t)oh * 2 * (size_t)K;
			for (int32_t ow = 0; ow < OW; ow++, yi++) {
				const int32_t *rw = tw + (size_t)ow * 2 * (size_t)K;
				if (!flt && K == 1) {	/* nearest: one element */
					memcpy((uint8_t *)y + yi * (size_t)E,
					       (const uint8_t *)x + (xc + (size_t)rh[0] * W + (size_t)rw[0]) * (size_t)E,
					       (size_t)E);
					continue;
				}
				if (!flt) {	/* linear: Q15 weights summing to 2^15 per axis */
					int64_t acc = 0;
					for (int32_t b = 0; b < K; b++) {
						int64_t t = 0;
						for (int32_t i = 0; i < K; i++)
							t += (int64_t)rh[K + i] *
							     rt_ldi(x, XT, xc + (size_t)rh[i] * W + (size_t)rw[b]);
						acc += (int64_t)rw[K + b] * t;
					}
					rt_sti(y, YT, yi, (int32_t)rt_rsr(acc, 30));
					continue;
				}
				float acc = 0;
				for (int32_t b = 0; b < K; b++) {
					float t = 0;
					for (int32_t i = 0; i < K; i++) {
						float prod = npu_bits_f32((uint32_t)rh[K + i]) *
							     rt_ldf(x, XT, xc + (size_t)rh[i] * W + (size_t)rw[b]);
						t += prod;
					}
					float prod = npu_bits_f32((uint32_t)rw[K + b]) * t;
					acc += prod;
				}
				rt_stf(y, YT, yi, acc);
			}
		}
	}
}
/* @npu-end */

/* @npu-kernel PRELU_Q */
static void k_prelu_q(const int32_t *p, void *const *a, void *scratch)
{
	const void *x0 = a[0], *x1 = a[1];
	void *y = a[2];
	const int32_t *cnt = p + NPU_PR_COUNTS, *sa = p + NPU_PR_SA, *sb = p + NPU_PR_SB;
	int32_t AT = p[NPU_PR_AT], BT = p[NPU_PR_BT], YT = p[NPU_PR_YT];
	int64_t ZA = p[NPU_PR_ZA], ZB = p[NPU_PR_ZB];
	int32_t ZY = p[NPU_PR_ZY], MP = p[NPU_PR_MP], MN = p[NPU_PR_MN], LO = p[NPU_PR_LO], HI = p[NPU_PR_HI];
	int sp = rt_shift(p[NPU_PR_SP]), sn = rt_shift(p[NPU_PR_SN]);
	int32_t idx[NPU_WALK_DIMS] = {0};
	size_t rows = rt_walk_rows(cnt), yi = 0;
	int32_t n5 = cnt[NPU_WALK_DIMS - 1], a5 = sa[NPU_WALK_DIMS - 1], b5 = sb[NPU_WALK_DIMS - 1];
	rt_uq qp, qn;
	(void)scratch;
	/* int8 x, alpha and y: rt_uq's unsigned arithmetic, (x - ZA + 256) MP
	 * above zero (|v| <= 2^39), ((x - ZA)(a - ZB) + 2^16) MN below it
	 * (|v| <= 2^47); E raised to the shift where it is larger */
	if (AT == NPU_T_I8 && BT == NPU_T_I8 && YT == NPU_T_I8 && ZA >= -128 && ZA <= 127 && ZB >= -128 && ZB <= 127 &&
	    MP >= 0 && MN >= 0 && rt_uq_init(&qp, sp, sp > 39 ? sp : 39, (uint64_t)MP << 8, ZY, LO, HI) == 0 &&
	    rt_uq_init(&qn, sn, sn > 47 ? sn : 47, (uint64_t)MN << 16, ZY, LO, HI) == 0) {
		const int8_t *xa = x0, *xb = x1;
		for (size_t r = 0; r < rows; r++, rt_walk_next(idx, cnt)) {
			const int8_t *pa = xa + rt_walk_off(idx, sa), *pb = xb + rt_walk_off(idx, sb);
			int8_t *py = (int8_t *)y + yi;
			for (int32_t i = 0; i < n5; i++) {
				int32_t da = pa[(ptrdiff_t)i * a5] - (int32_t)ZA;
				const rt_uq *q = &qn;
				uint32_t u;
				if (da >= 0)
					q = &qp, u = (uint32_t)(((uint64_t)(uint32_t)(da + 256) * (uint32_t)MP + qp.D) >> sp);
				else
					u = (uint32_t)(((uint64_t)(uint32_t)(da * (pb[(ptrdiff_t)i * b5] - (int32_t)ZB) + 65536) *
							(uint32_t)MN + qn.D) >> sn);
				u = u < q->lu ? q->lu : u > q->hu ? q->hu : u;
				py[i] = (int8_t)(q->base + (int32_t)(u - q->lu));
			}
			yi += (size_t)n5;
		}
		return;
	}
	for (size_t r = 0; r < rows; r++, rt_walk_next(idx, cnt)) {
		ptrdiff_t oa = rt_walk_off(idx, sa), ob = rt_walk_off(idx, sb);
		for (int32_t i = 0; i < n5; i++, yi++) {
			/* int8/int16 operands: |products| < 2^34 */
			int64_t da = rt_ldi(x0, AT, (size_t)(oa + (ptrdiff_t)i * a5)) - ZA, v;
			if (da >= 0) {
				v = rt_mulshift(da, MP, sp);
			} else {
				int64_t db = rt_ldi(x1, BT, (size_t)(ob + (ptrdiff_t)i * b5)) - ZB;
				v = rt_mulshift(da * db, MN, sn);
			}
			rt_sti(y, YT, yi, rt_clamp(ZY + v, LO, HI));
		}
	}
}
/* @npu-end */

/* @npu-kernel NORM_F */
static void k_norm_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0], *sc = a[1], *bi = a[2], *gm = a[4], *gv = a[5];
	void *y = a[3];
	int32_t R = p[NPU_NM_R], D = p[NPU_NM_D], C = p[NPU_NM_C];
	int32_t XT = p[NPU_NM_XT], ST = p[NPU_NM_ST], YT = p[NPU_NM_YT];
	float eps = npu_bits_f32((uint32_t)p[NPU_NM_EPS]);
	(void)scratch;
	if (D < 1)
		return;
	for (int32_t r = 0; r < R; r++) {
		size_t base = (size_t)r * (size_t)D, rc = C > 0 ? (size_t)(r % C) : 0;
		float m = 0, v = 0;
		if (gm && gv) {
			m = rt_ldf(gm, ST, rc), v = rt_ldf(gv, ST, rc);
		} else {
			for (int32_t i = 0; i < D; i++)
				m += rt_ldf(x, XT, base + (size_t)i);
			m /= (float)D;
			for (int32_t i = 0; i < D; i++) {
				float d = rt_ldf(x, XT, base + (size_t)i) - m;
				float sq = d * d;
				v += sq;
			}
			v /= (float)D;
		}
		float inv = 1 / sqrtf(v + eps);
		for (int32_t i = 0; i < D; i++) {
			size_t k = C > 0 ? (size_t)(r % C) : (size_t)i;
			float t = (rt_ldf(x, XT, base + (size_t)i) - m) * inv;
			t = t * rt_ldf(sc, ST, k);
			if (bi)
				t = t + rt_ldf(bi, ST, k);
			rt_stf(y, YT, base + (size_t)i, t);
		}
	}
}
/* @npu-end */

/* @npu-kernel POOL3_F */
/* taps of window o along one axis inside the input, and those counted */
static int p3_taps(int o, int S, int P, int E, int K, int DL, int n, int cpad)
{
	int c = 0;
	for (int k = 0; k < K; k++) {
		int i = o * S - P + k * DL;
		c += cpad ? i < n + E : i >= 0 && i < n;
	}
	return c;
}

static void k_pool3_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	void *y = a[1];
	const int32_t *in = p + NPU_P3_D, *out = p + NPU_P3_OD, *K = p + NPU_P3_KD, *S = p + NPU_P3_SD;
	const int32_t *P = p + NPU_P3_PD, *E = p + NPU_P3_ED, *DL = p + NPU_P3_DD;
	int32_t XT = p[NPU_P3_XT], YT = p[NPU_P3_YT], cpad = p[NPU_P3_COUNT_PAD];
	int avg = p[NPU_P3_MODE] == NPU_POOL_AVG;
	size_t plane = (size_t)in[0] * (size_t)in[1] * (size_t)in[2], yi = 0;
	(void)scratch;
	for (int a3 = 0; a3 < 3; a3++)
		if (S[a3] < 1 || DL[a3] < 1 || K[a3] < 1)
			return;
	for (int32_t nc = 0; nc < p[NPU_P3_N] * p[NPU_P3_C]; nc++)
		for (int od = 0; od < out[0]; od++)
			for (int oh = 0; oh < out[1]; oh++)
				for (int ow = 0; ow < out[2]; ow++, yi++) {
					float r = 0;
					int first = 1;
					for (int kd = 0; kd < K[0]; kd++) {
						int id = od * S[0] - P[0] + kd * DL[0];
						if (id < 0 || id >= in[0])
							continue;
						for (int kh = 0; kh < K[1]; kh++) {
							int ih = oh * S[1] - P[1] + kh * DL[1];
							if (ih < 0 || ih >= in[1])
								continue;
							for (int kw = 0; kw < K[2]; kw++) {
								int iw = ow * S[2] - P[2] + kw * DL[2];
								if (iw < 0 || iw >= in[2])
									continue;
								float v = rt_ldf(x, XT, (size_t)nc * plane +
									((size_t)id * (size_t)in[1] + (size_t)ih) * (size_t)in[2] + (size_t)iw);
								if (avg)
									r += v;
								else if (first || v > r || v != v)
									r = v;
								first = 0;
							}
						}
					}
					if (avg) {
						int c = p3_taps(od, S[0], P[0], E[0], K[0], DL[0], in[0], cpad) *
							p3_taps(oh, S[1], P[1], E[1], K[1], DL[1], in[1], cpad) *
							p3_taps(ow, S[2], P[2], E[2], K[2], DL[2], in[2], cpad);
						r = r / (float)(c > 0 ? c : 1);
					}
					rt_stf(y, YT, yi, r);
				}
}
/* @npu-end */

/* @npu-kernel CONV3_F */
/* the input index output o reads through tap k along one axis, or -1 */
static inline int c3_src(int o, int k, int S, int P, int DL, int n, int tr)
{
	int t;
	if (!tr) {
		t = o * S - P + k * DL;
		return t >= 0 && t < n ? t : -1;
	}
	t = o + P - k * DL;
	if (t < 0 || t % S)
		return -1;
	t /= S;
	return t < n ? t : -1;
}

static void k_conv3_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0], *w = a[1], *bias = a[2];
	void *y = a[3];
	const int32_t *in = p + NPU_C3_D, *out = p + NPU_C3_OD, *K = p + NPU_C3_KD, *S = p + NPU_C3_SD;
	const int32_t *P = p + NPU_C3_PD, *DL = p + NPU_C3_DD;
	int N = p[NPU_C3_N], C = p[NPU_C3_C], OC = p[NPU_C3_OC], G = p[NPU_C3_G] > 0 ? p[NPU_C3_G] : 1;
	int tr = p[NPU_C3_TR] != 0;
	int32_t XT = p[NPU_C3_XT], WT = p[NPU_C3_WT], YT = p[NPU_C3_YT], act = p[NPU_C3_ACT];
	float lo = rt_pf(p, NPU_C3_LO), hi = rt_pf(p, NPU_C3_HI), p0 = rt_pf(p, NPU_C3_P0), p1 = rt_pf(p, NPU_C3_P1);
	int cg = C / G, og = OC / G;
	size_t plane = (size_t)in[0] * (size_t)in[1] * (size_t)in[2], kk = (size_t)K[0] * (size_t)K[1] * (size_t)K[2];
	size_t yi = 0;
	(void)scratch;
	if (cg < 1 || og < 1 || C % G || OC % G || S[0] < 1 || S[1] < 1 || S[2] < 1)
		return;
	for (int n = 0; n < N; n++)
		for (int oc = 0; oc < OC; oc++) {
			int gr = oc / og, o = oc % og;
			for (int od = 0; od < out[0]; od++)
				for (int oh = 0; oh < out[1]; oh++)
					for (int ow = 0; ow < out[2]; ow++) {
						float acc = bias ? rt_ldf(bias, XT, (size_t)oc) : 0.0f;
						for (int ic = 0; ic < cg; ic++) {
							int c = gr * cg + ic;
							size_t xc = ((size_t)n * (size_t)C + (size_t)c) * plane;
							size_t wc = (tr ? (size_t)c * (size_t)og + (size_t)o
									: (size_t)oc * (size_t)cg + (size_t)ic) * kk;
							for (int kd = 0; kd < K[0]; kd++) {
								int id = c3_src(od, kd, S[0], P[0], DL[0], in[0], tr);
								if (id < 0)
									continue;
								for (int kh = 0; kh < K[1]; kh++) {
									int ih = c3_src(oh, kh, S[1], P[1], DL[1], in[1], tr);
									if (ih < 0)
										continue;
									size_t xr = xc + ((size_t)id * (size_t)in[1] + (size_t)ih) * (size_t)in[2];
									size_t wr = wc + ((size_t)kd * (size_t)K[1] + (size_t)kh) * (size_t)K[2];
									for (int kw = 0; kw < K[2]; kw++) {
										int iw = c3_src(ow, kw, S[2], P[2], DL[2], in[2], tr);
										if (iw < 0)
											continue;
										float prod = rt_ldf(x, XT, xr + (size_t)iw) *
											     rt_ldf(w, WT, wr + (size_t)kw);
										acc += prod;
									}
								}
							}
						}
						acc = rt_clampf(acc, lo, hi);
						if (act >= 0)
							acc = rt_unary(act, acc, p0, p1);
						rt_stf(y, YT, yi++, acc);
					}
		}
}
/* @npu-end */

/* @npu-kernel CONV_NHWC_Q */
/* Channel-last integer convolution: per output pixel and channel, every
 * kernel tap is a dot product over the group's contiguous input channels
 * (x and OHWI weights alike). Depthwise: cn_depthwise; int8 ones of one
 * group on AMX tiles or AVX-512 VNNI: cn_amx; without tiles or wide
 * vector lanes (portable C, Cortex-M DSP and Helium) int8 ones of one group
 * without weight zero points: cn_win (2 pixels x 2 channels, windows as
 * runs); other int8
 * convolutions: cn_regular (4 output channels per load of x, a window
 * row's taps inside the image as one run, cn_dot4 per ISA); the rest: the
 * loop in k_conv_nhwc_q. int8 x int8 taps of at most CQ_NHWC_MAX_K
 * channels sum in int32 (|x - ZX| <= 255, |w - wzp| <= 255: < 2^30), the
 * rest in int64. */
#define CQ_NHWC_MAX_K 16384
/* Channel-last int8 depthwise (one input and one output channel per
 * group): per output pixel, each tap inside the input adds (x - ZX)(w - z)
 * to a row of C int32 sums, all channels at once (x contiguous; the
 * weights as int16 w - z in [tap][C] in the scratch, written once per
 * call), then every sum is requantized. |x - ZX| <= 255, |w - z| <= 255
 * and at most CN_DW_TAPS taps: exact in int32, any order. */
#define CN_DW_TAPS 64
static size_t cn_dw_scratch(const int32_t *p)
{
	int G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1, C = p[NPU_CV_C], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW];
	if (p[NPU_CV_XT] != NPU_T_I8 || p[NPU_CV_WT] != NPU_T_I8 || C < 1 || G != C || p[NPU_CV_OC] != C || KH < 1 ||
	    KW < 1 || KH > CN_DW_TAPS || KW > CN_DW_TAPS || KH * KW > CN_DW_TAPS)
		return 0;
	size_t n = (((size_t)KH * KW * C * 2 + 15) & ~(size_t)15) + (size_t)C * 4;
	return p[NPU_CV_SMAX] > 0 && n > (size_t)p[NPU_CV_SMAX] ? 0 : n;
}

/* One channel's int8 requantization by rt_uq's unsigned arithmetic:
 * with |v + b| < 2^31, u = v + b + 2^31 is a uint32 and u mult = (v + b)
 * mult + 2^31 mult (rt_uq's neg, E = 62), one 32 x 32 -> 64 multiply and a
 * shift. cn_uq_set says whether it takes the channel (int8 out, |b| <
 * room, shift 32 to 62); the callers bound |v| by 2^31 - room. */
typedef struct {
	rt_uq q;
	uint32_t bu, m;
	int s;
} cn_uq;

static int cn_uq_set(cn_uq *c, const int32_t *p, int64_t b, int32_t mult, int32_t shift, int64_t room)
{
	c->s = rt_shift(shift), c->m = (uint32_t)mult, c->bu = (uint32_t)b + 0x80000000u;
	return p[NPU_CV_YT] == NPU_T_I8 && b > -room && b < room && mult >= 0 &&
	       rt_uq_init(&c->q, c->s, 62, (uint64_t)mult << 31, p[NPU_CV_ZY], p[NPU_CV_LO], p[NPU_CV_HI]) == 0;
}

static inline int8_t cn_uq_do(const cn_uq *c, int32_t v)
{
	/* s >= 32 (rt_uq_init: E - s <= 30): the high word shifted by s - 32
	 * (a 32-bit core: UMLAL and a shift) */
	uint32_t u = (uint32_t)((((uint64_t)((uint32_t)v + c->bu) * c->m + c->q.D) >> 32) >> (c->s - 32));
	u = u < c->q.lu ? c->q.lu : u > c->q.hu ? c->q.hu : u;
	return (int8_t)(c->q.base + (int32_t)(u - c->q.lu));
}

/* output at of channel o from its sum v (bias not added): by cn_uq where
 * it takes the channel (uq), else rt_mulshift */
static inline void cn_put(const int32_t *p, const void *bias, const int32_t *mult, void *y, size_t at, int o,
			  const cn_uq *c, int uq, int32_t v)
{
	if (uq)
		((int8_t *)y)[at] = cn_uq_do(c, v);
	else
		rt_sti(y, p[NPU_CV_YT], at,
		       rt_clamp(p[NPU_CV_ZY] + rt_mulshift(cq_bias(p, bias, o) + v, mult[o], c->s), p[NPU_CV_LO], p[NPU_CV_HI]));
}

#if !defined(NPU_NO_SIMD) && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define CN_MVE 1
/* Helium: 4 channels' int32 sums v to clamp(ZY + rshift_round(v mult,
 * s), LO, HI) in lanes, exactly for s from 33 to 62 (cn_mve_ok): the
 * product's high word (vmulh, floor(v mult / 2^32)) shifted right by s -
 * 32 with rounding (vrshl by 32 - s); the low word cannot change the
 * result, as the rounding bit 2^(s - 1) lies above it. ns: 32 - s. */
static inline int32x4_t cn_rq4(int32x4_t v, int32x4_t m, int32x4_t ns, const int32_t *p)
{
	int32x4_t t = vaddq_n_s32(vrshlq_s32(vmulhq_s32(v, m), ns), p[NPU_CV_ZY]);
	return vminq_s32(vmaxq_s32(t, vdupq_n_s32(p[NPU_CV_LO])), vdupq_n_s32(p[NPU_CV_HI]));
}

/* whether cn_rq4 takes the layer's outputs: int8 within int8 bounds,
 * int32 biases under 2^30 (with sums under 2^30: within int32), every
 * shift 33 to 62 */
static int cn_mve_ok(const int32_t *p, const void *bias, const int32_t *shift)
{
	if (p[NPU_CV_YT] != NPU_T_I8 || p[NPU_CV_ACT] == NPU_T_I64 || p[NPU_CV_LO] < -128 || p[NPU_CV_HI] > 127)
		return 0;
	for (int o = 0; o < p[NPU_CV_OC]; o++)
		if (shift[o] < 33 || shift[o] > 62 ||
		    (bias && (((const int32_t *)bias)[o] <= -(1 << 30) || ((const int32_t *)bias)[o] >= 1 << 30)))
			return 0;
	return 1;
}
#endif

/* acc[c] += (x[c] - ZX) w[c] for c < C */
static void cn_dw_add(int32_t *restrict acc, const int8_t *restrict x, const int16_t *restrict w, int C, int32_t ZX)
{
	int c = 0;
#if !defined(NPU_NO_SIMD) && defined(__AVX512F__)	/* 16 channels as int32 lanes */
	const __m512i zx16 = _mm512_set1_epi32(ZX);
	for (; c + 16 <= C; c += 16) {
		__m512i v = _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(x + c))), zx16);
		__m512i wv = _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(w + c)));
		_mm512_storeu_si512((void *)(acc + c), _mm512_add_epi32(_mm512_loadu_si512((const void *)(acc + c)),
									  _mm512_mullo_epi32(v, wv)));
	}
#endif
#if !defined(NPU_NO_SIMD) && defined(__SSE2__)
	const __m128i zx = _mm_set1_epi16((int16_t)ZX), z = _mm_setzero_si128();
	for (; c + 8 <= C; c += 8) {
		__m128i v = _mm_loadl_epi64((const __m128i *)(const void *)(x + c));
#if defined(__SSE4_1__)
		v = _mm_cvtepi8_epi16(v);
#else
		v = _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8);
#endif
		v = _mm_sub_epi16(v, zx);
		__m128i wv = _mm_loadu_si128((const __m128i *)(const void *)(w + c));
		__m128i lo = _mm_madd_epi16(_mm_unpacklo_epi16(v, z), _mm_unpacklo_epi16(wv, z));
		__m128i hi = _mm_madd_epi16(_mm_unpackhi_epi16(v, z), _mm_unpackhi_epi16(wv, z));
		_mm_storeu_si128((__m128i *)(void *)(acc + c),
				 _mm_add_epi32(_mm_loadu_si128((const __m128i *)(const void *)(acc + c)), lo));
		_mm_storeu_si128((__m128i *)(void *)(acc + c + 4),
				 _mm_add_epi32(_mm_loadu_si128((const __m128i *)(const void *)(acc + c + 4)), hi));
	}
#elif !defined(NPU_NO_SIMD) && defined(__ARM_NEON) && defined(__aarch64__)
	const int16x8_t zx = vdupq_n_s16((int16_t)ZX);
	for (; c + 8 <= C; c += 8) {
		int16x8_t v = vsubq_s16(vmovl_s8(vld1_s8(x + c)), zx), wv = vld1q_s16(w + c);
		vst1q_s32(acc + c, vmlal_s16(vld1q_s32(acc + c), vget_low_s16(v), vget_low_s16(wv)));
		vst1q_s32(acc + c + 4, vmlal_high_s16(vld1q_s32(acc + c + 4), v, wv));
	}
#elif !defined(NPU_NO_SIMD) && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
	/* 4 channels a vector (widening loads), the last one predicated */
	for (; c < C; c += 4) {
		mve_pred16_t pr = vctp32q((uint32_t)(C - c));
		int32x4_t v = vsubq_n_s32(vldrbq_z_s32(x + c, pr), ZX);
		vstrwq_p_s32(acc + c, vaddq_s32(vldrwq_z_s32(acc + c, pr), vmulq_s32(v, vldrhq_z_s32(w + c, pr))), pr);
	}
#endif
	for (; c < C; c++)
		acc[c] += (x[c] - ZX) * w[c];
}

#if !defined(NPU_NO_SIMD) && ((defined(__ARM_NEON) && defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)) || \
				(defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
				 defined(__AVX512VNNI__) && defined(__AVX512VBMI__)))
#define CN_DW_QUADS 1
/* The depthwise by dot products of 4 taps (cn_dw_dot: aarch64's sdot;
 * cn_dw_vnni: AVX-512's vpdpbusd): 16 channels' sums in registers through
 * all taps, the taps by 4, each quad's 16-channel rows of x turned into
 * per-channel quads against the weights w - z as int8 quads per channel
 * ([taps / 4][C][4] in the scratch's int16 weight area, which also holds zc
 * sum w per channel, corr: it fits when 2 (taps / 4 + 1) <= taps). C < 16,
 * fewer taps or some w - z beyond int8: the other paths. */
static int cn_dw_quads_fit(const int32_t *p, const int8_t *w, const int32_t *wzp)
{
	int C = p[NPU_CV_C], taps = p[NPU_CV_KH] * p[NPU_CV_KW], tq = (taps + 3) / 4;
	if (C < 16 || 2 * (tq + 1) > taps)
		return 0;
	for (int c = 0; c < C; c++)
		for (int t = 0; t < taps; t++) {
			int32_t v = w[(size_t)c * taps + t] - (wzp ? wzp[c] : 0);
			if (v < -128 || v > 127)
				return 0;
		}
	return 1;
}

/* the quads of w - z at the scratch's start, zc sum w per channel after them (corr) */
static int32_t *cn_dw_pack(const int32_t *p, const int8_t *w, const int32_t *wzp, int32_t zc, void *scratch)
{
	int C = p[NPU_CV_C], taps = p[NPU_CV_KH] * p[NPU_CV_KW], tq = (taps + 3) / 4;
	int8_t *wi = scratch;
	int32_t *corr = (int32_t *)(void *)(wi + (size_t)tq * C * 4);
	memset(wi, 0, (size_t)tq * C * 4);
	for (int c = 0; c < C; c++) {
		int32_t z = wzp ? wzp[c] : 0, sw = 0;
		for (int t = 0; t < taps; t++) {
			int32_t v = w[(size_t)c * taps + t] - z;
			wi[((size_t)(t / 4) * C + c) * 4 + t % 4] = (int8_t)v;
			sw += v;
		}
		corr[c] = zc * sw;
	}
	return corr;
}
#endif

#if defined(CN_DW_QUADS) && defined(__ARM_NEON)
/* aarch64 with sdot: each tap's 16 channels (ZX for a tap in the padding,
 * whose x - ZX is 0) interleaved by zips into per-channel quads, sum (x -
 * ZX) w = sum x w - ZX sum w, then requantized from int32 sums in the
 * scratch. */
static int cn_dw_dot(const int32_t *p, void *const *a, void *scratch)
{
	const int8_t *x = a[0], *w = a[1];
	const void *bias = a[2];
	const int32_t *mult = a[3], *shift = a[4], *wzp = a[5];
	void *y = a[6];
	int N = p[NPU_CV_N], C = p[NPU_CV_C], H = p[NPU_CV_H], W = p[NPU_CV_W];
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW];
	int SH = p[NPU_CV_SH], SW = p[NPU_CV_SW], PT = p[NPU_CV_PT], PL = p[NPU_CV_PL];
	int DH = p[NPU_CV_DH], DW = p[NPU_CV_DW], taps = KH * KW, tq = (taps + 3) / 4;
	int32_t YT = p[NPU_CV_YT], ZX = p[NPU_CV_ZX], ZY = p[NPU_CV_ZY], LO = p[NPU_CV_LO], HI = p[NPU_CV_HI];
	if (!cn_dw_quads_fit(p, w, wzp))
		return 0;
	const int8_t *wi = scratch;
	const int32_t *corr = cn_dw_pack(p, w, wzp, ZX, scratch);
	int32_t *acc = (int32_t *)(void *)((uint8_t *)scratch + (((size_t)taps * C * 2 + 15) & ~(size_t)15));
	const int8x16_t vzx = vdupq_n_s8((int8_t)ZX);
	const int8_t *tp[CN_DW_TAPS + 3];
	for (int n = 0; n < N; n++)
		for (int oh = 0; oh < OH; oh++)
			for (int ow = 0; ow < OW; ow++) {
				for (int t = 0; t < 4 * tq; t++) {
					int ih = oh * SH - PT + t / KW * DH, iw = ow * SW - PL + t % KW * DW;
					tp[t] = t < taps && ih >= 0 && ih < H && iw >= 0 && iw < W
							? x + (((size_t)n * H + ih) * W + iw) * C
							: NULL;
				}
				for (int c0 = 0; c0 < C; c0 += 16) {
					int c = c0 + 16 <= C ? c0 : C - 16;	/* the last block overlaps */
					int32x4_t a0 = vnegq_s32(vld1q_s32(corr + c)), a1 = vnegq_s32(vld1q_s32(corr + c + 4));
					int32x4_t a2 = vnegq_s32(vld1q_s32(corr + c + 8)), a3 = vnegq_s32(vld1q_s32(corr + c + 12));
					for (int g = 0; g < tq; g++) {
						const int8_t *const *q = tp + 4 * g;
						int8x16_t x0 = q[0] ? vld1q_s8(q[0] + c) : vzx, x1 = q[1] ? vld1q_s8(q[1] + c) : vzx;
						int8x16_t x2 = q[2] ? vld1q_s8(q[2] + c) : vzx, x3 = q[3] ? vld1q_s8(q[3] + c) : vzx;
						int16x8_t l01 = vreinterpretq_s16_s8(vzip1q_s8(x0, x1)), h01 = vreinterpretq_s16_s8(vzip2q_s8(x0, x1));
						int16x8_t l23 = vreinterpretq_s16_s8(vzip1q_s8(x2, x3)), h23 = vreinterpretq_s16_s8(vzip2q_s8(x2, x3));
						int8x16x4_t wq = vld1q_s8_x4(wi + ((size_t)g * C + c) * 4);
						a0 = vdotq_s32(a0, vreinterpretq_s8_s16(vzip1q_s16(l01, l23)), wq.val[0]);
						a1 = vdotq_s32(a1, vreinterpretq_s8_s16(vzip2q_s16(l01, l23)), wq.val[1]);
						a2 = vdotq_s32(a2, vreinterpretq_s8_s16(vzip1q_s16(h01, h23)), wq.val[2]);
						a3 = vdotq_s32(a3, vreinterpretq_s8_s16(vzip2q_s16(h01, h23)), wq.val[3]);
					}
					vst1q_s32(acc + c, a0), vst1q_s32(acc + c + 4, a1);
					vst1q_s32(acc + c + 8, a2), vst1q_s32(acc + c + 12, a3);
				}
				size_t yo = (((size_t)n * OH + oh) * OW + ow) * C;
				for (int c = 0; c < C; c++)
					rt_sti(y, YT, yo + c,
					       rt_clamp(ZY + rt_mulshift(cq_bias(p, bias, c) + acc[c], mult[c], rt_shift(shift[c])),
							LO, HI));
			}
	return 1;
}
#endif

#if !defined(NPU_NO_SIMD) && defined(__AVX512F__) && \
	((defined(__AVX512BW__) && defined(__AVX512VL__)) || defined(RT_AMX))	/* cn_dw_lanes, cn_amx */
/* 16 sums v (|.| < 2^31) with their own mult and shift (clamped to [0,
 * 62]) to int8: rt_mulshift's first case and rt_clamp in int64 lanes, the
 * even lanes' and the odd ones' apart (vpmuldq takes the low half of each
 * 64-bit lane: no widening shuffles), clamped to [lo - zy, hi - zy]
 * before zy is added, which equals clamp(t + zy, lo, hi) while lo - zy and
 * hi - zy are inside int32 (cn_rq_fits: the clamped t's low half is t).
 * The per-lane constants (cn_rq_set) once per block of channels, for all
 * the pixels it requantizes. */
typedef struct {
	__m512i m[2], s[2], r[2], lz, hz, z;
} cn_rq;

static inline int cn_rq_fits(const int32_t *p)
{
	int64_t lo = (int64_t)p[NPU_CV_LO] - p[NPU_CV_ZY], hi = (int64_t)p[NPU_CV_HI] - p[NPU_CV_ZY];
	return lo >= INT32_MIN && lo <= INT32_MAX && hi >= INT32_MIN && hi <= INT32_MAX;
}

static inline void cn_rq_set(cn_rq *k, __m512i m, __m512i sh, const int32_t *p)
{
	const __m512i one = _mm512_set1_epi64(1);
	sh = _mm512_min_epi32(_mm512_max_epi32(sh, _mm512_setzero_si512()), _mm512_set1_epi32(62));
	k->m[0] = m, k->m[1] = _mm512_srli_epi64(m, 32);
	k->s[0] = _mm512_and_si512(sh, _mm512_set1_epi64(0xffffffff)), k->s[1] = _mm512_srli_epi64(sh, 32);
	for (int h = 0; h < 2; h++)	/* 2^(s-1), 0 for s = 0 (a shift count beyond 63 gives 0) */
		k->r[h] = _mm512_sllv_epi64(one, _mm512_sub_epi64(k->s[h], one));
	k->lz = _mm512_set1_epi64((int64_t)p[NPU_CV_LO] - p[NPU_CV_ZY]);
	k->hz = _mm512_set1_epi64((int64_t)p[NPU_CV_HI] - p[NPU_CV_ZY]);
	k->z = _mm512_set1_epi32(p[NPU_CV_ZY]);
}

static inline __m128i cn_rq_v16(const cn_rq *k, __m512i v)
{
	__m512i t[2];
	for (int h = 0; h < 2; h++) {
		__m512i a = _mm512_mul_epi32(h ? _mm512_srli_epi64(v, 32) : v, k->m[h]);
		a = _mm512_srav_epi64(_mm512_add_epi64(a, k->r[h]), k->s[h]);
		t[h] = _mm512_min_epi64(_mm512_max_epi64(a, k->lz), k->hz);
	}
	__m512i u = _mm512_mask_blend_epi32((__mmask16)0xaaaa, t[0], _mm512_slli_epi64(t[1], 32));
	return _mm512_cvtepi32_epi8(_mm512_add_epi32(u, k->z));
}
#endif

#if !defined(NPU_NO_SIMD) && defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define CN_RQ_LANES 1
/* the depthwise pixel by pixel with 16 channels' sums in a register over
 * the taps inside the input (tp: their x, wp: their int16 weights, nt of
 * them), requantized by cn_rq_v16; two: also the next pixel, whose taps
 * are the same ones ps bytes further in x, into y + C */
#if defined(__AVX512VNNI__)
#define CN_DPW(acc, v, w) _mm512_dpwssd_epi32(acc, v, w)
#else
#define CN_DPW(acc, v, w) _mm512_add_epi32(acc, _mm512_madd_epi16(v, w))
#endif
static void cn_dw_lanes(const int32_t *p, const void *bias, const int32_t *mult, const int32_t *shift,
			const int8_t *const *tp, const int16_t *const *wp, int nt, int two, size_t ps, int8_t *y)
{
	int C = p[NPU_CV_C];
	const __m512i zx = _mm512_set1_epi32(p[NPU_CV_ZX]);
	for (int c = 0; c < C; c += 16) {
		__mmask16 k = C - c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (C - c)) - 1);
		__m512i acc = bias ? _mm512_maskz_loadu_epi32(k, (const int32_t *)bias + c) : _mm512_setzero_si512(), acc2 = acc;
		for (int t = 0; t < nt; t++) {	/* v w by pmaddwd: w's upper int16 is 0 */
			__m512i v = _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(k, tp[t] + c)), zx);
			__m512i wv = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(k, wp[t] + c));
			acc = CN_DPW(acc, v, wv);
			if (two)
				acc2 = CN_DPW(acc2, _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(k, tp[t] + ps + c)), zx),
					      wv);
		}
		cn_rq r;
		cn_rq_set(&r, _mm512_maskz_loadu_epi32(k, mult + c), _mm512_maskz_loadu_epi32(k, shift + c), p);
		_mm_mask_storeu_epi8(y + c, k, cn_rq_v16(&r, acc));
		if (two)
			_mm_mask_storeu_epi8(y + C + c, k, cn_rq_v16(&r, acc2));
	}
}
#undef CN_DPW
#endif

#if defined(CN_RQ_LANES)
/* cn_dw_lanes and cn_dw_vnni requantize in lanes: int8 out, int32 biases
 * with room for the sums (|.| <= 255 255 taps) */
static int cn_dw_lanes_ok(const int32_t *p, const void *bias)
{
	int taps = p[NPU_CV_KH] * p[NPU_CV_KW];
	int ok = p[NPU_CV_YT] == NPU_T_I8 && p[NPU_CV_ACT] != NPU_T_I64 && cn_rq_fits(p);
	for (int c = 0; ok && bias && c < p[NPU_CV_C]; c++)
		ok = ((const int32_t *)bias)[c] <= INT32_MAX - 65025 * taps &&
		     ((const int32_t *)bias)[c] >= -INT32_MAX + 65025 * taps;
	return ok;
}
#endif

#if defined(CN_DW_QUADS) && defined(CN_RQ_LANES)
#define CN_DW_PX 16	/* output pixels whose taps' addresses cn_dw_vnni finds at once */
/* AVX-512 VNNI + VBMI: a quad's four 16-channel rows of x side by side in
 * a register, turned by vpermb into per-channel quads and made unsigned
 * (x ^ 0x80 = x + 128), against the quads of w - z by vpdpbusd: sum (x -
 * ZX) w = sum (x + 128) w - (ZX + 128) sum w, a tap in the padding reading
 * a row of ZX (in the scratch's sum area), a quad's missing taps not read
 * (their weights are 0). Per row of output pixels: the taps' addresses of
 * CN_DW_PX pixels at once, then per block of 16 channels (the last one
 * overlapping) the requantization's constants once for those pixels. The
 * sums wrap in int32, exact as their end (cn_dw_lanes_ok) fits. */
static int cn_dw_vnni(const int32_t *p, void *const *a, void *scratch)
{
	const int8_t *x = a[0], *w = a[1];
	const int32_t *bias = a[2], *mult = a[3], *shift = a[4], *wzp = a[5];
	int8_t *y = a[6];
	int N = p[NPU_CV_N], C = p[NPU_CV_C], H = p[NPU_CV_H], W = p[NPU_CV_W];
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW];
	int SH = p[NPU_CV_SH], SW = p[NPU_CV_SW], PT = p[NPU_CV_PT], PL = p[NPU_CV_PL];
	int DH = p[NPU_CV_DH], DW = p[NPU_CV_DW], taps = KH * KW, tf = taps / 4, tr = taps % 4;
	int32_t ZX = p[NPU_CV_ZX];
	if (!cn_dw_quads_fit(p, w, wzp))
		return 0;
	const int8_t *wi = scratch;
	const int32_t *corr = cn_dw_pack(p, w, wzp, ZX + 128, scratch);
	int8_t *zr = (int8_t *)scratch + (((size_t)taps * C * 2 + 15) & ~(size_t)15);
	memset(zr, ZX, (size_t)C);
	/* byte 4 c + k of a quad: channel c of its row k (byte 16 k + c) */
	int8_t ix[64];
	for (int i = 0; i < 64; i++)
		ix[i] = (int8_t)(i / 4 + 16 * (i % 4));
	const __m512i perm = _mm512_loadu_si512((const void *)ix), sg = _mm512_set1_epi8((char)0x80);
	const int8_t *tp[CN_DW_PX * CN_DW_TAPS];
	for (int n = 0; n < N; n++)
		for (int oh = 0; oh < OH; oh++)
			for (int o0 = 0; o0 < OW; o0 += CN_DW_PX) {
				int nj = OW - o0 < CN_DW_PX ? OW - o0 : CN_DW_PX;
				const int8_t **t = tp;
				for (int j = 0; j < nj; j++)
					for (int kh = 0; kh < KH; kh++) {
						int ih = oh * SH - PT + kh * DH, in = ih >= 0 && ih < H;
						for (int kw = 0, iw = (o0 + j) * SW - PL; kw < KW; kw++, iw += DW)
							*t++ = in && iw >= 0 && iw < W ? x + (((size_t)n * H + ih) * W + iw) * C : zr;
					}
				int8_t *yr = y + (((size_t)n * OH + oh) * OW + o0) * C;
				for (int c0 = 0; c0 < C; c0 += 16) {
					int c = c0 + 16 <= C ? c0 : C - 16;	/* the last block overlaps */
					cn_rq r;
					cn_rq_set(&r, _mm512_loadu_si512((const void *)(mult + c)),
						  _mm512_loadu_si512((const void *)(shift + c)), p);
					__m512i a0 = _mm512_sub_epi32(bias ? _mm512_loadu_si512((const void *)(bias + c))
									   : _mm512_setzero_si512(),
								      _mm512_loadu_si512((const void *)(corr + c)));
					const int8_t *wc = wi + (size_t)c * 4;
					for (int j = 0; j < nj; j++) {
						const int8_t *const *q = tp + j * taps;
						__m512i acc = a0, v;
						int g = 0;
						for (; g < tf; g++, q += 4) {
							v = _mm512_zextsi128_si512(_mm_loadu_si128((const __m128i *)(const void *)(q[0] + c)));
							v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)(q[1] + c)), 1);
							v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)(q[2] + c)), 2);
							v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)(q[3] + c)), 3);
							v = _mm512_xor_si512(_mm512_permutexvar_epi8(perm, v), sg);
							acc = _mm512_dpbusd_epi32(acc, v, _mm512_loadu_si512((const void *)(wc + (size_t)g * C * 4)));
						}
						if (tr) {	/* the last quad's taps */
							v = _mm512_zextsi128_si512(_mm_loadu_si128((const __m128i *)(const void *)(q[0] + c)));
							if (tr > 1)
								v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)(q[1] + c)), 1);
							if (tr > 2)
								v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)(q[2] + c)), 2);
							v = _mm512_xor_si512(_mm512_permutexvar_epi8(perm, v), sg);
							acc = _mm512_dpbusd_epi32(acc, v, _mm512_loadu_si512((const void *)(wc + (size_t)g * C * 4)));
						}
						_mm_storeu_si128((__m128i *)(void *)(yr + (size_t)j * C + c), cn_rq_v16(&r, acc));
					}
				}
			}
	return 1;
}
#endif

#if defined(CN_MVE) || defined(CN_RQ_LANES)
/* the taps of output pixel (n, oh, ow) inside the input: their x (tp)
 * and their weights in wt ([tap][C], wp); how many */
static int cn_dw_taps(const int32_t *p, const int8_t *x, const int16_t *wt, int n, int oh, int ow, const int8_t **tp,
		      const int16_t **wp)
{
	int C = p[NPU_CV_C], H = p[NPU_CV_H], W = p[NPU_CV_W], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW], nt = 0;
	for (int kh = 0; kh < KH; kh++)
		for (int kw = 0; kw < KW; kw++) {
			int ih = oh * p[NPU_CV_SH] - p[NPU_CV_PT] + kh * p[NPU_CV_DH];
			int iw = ow * p[NPU_CV_SW] - p[NPU_CV_PL] + kw * p[NPU_CV_DW];
			if (ih >= 0 && ih < H && iw >= 0 && iw < W)
				tp[nt] = x + (((size_t)n * H + ih) * W + iw) * C, wp[nt++] = wt + (size_t)(kh * KW + kw) * C;
		}
	return nt;
}
#endif

#if !defined(NPU_NO_SIMD) && defined(__SSE2__)
/* Channels' int32 sums requantized in lanes (AVX2: 8 a cn_lq, SSE2: 4),
 * each with its own constants (cn_lq_set, once per block of channels,
 * from channels that cn_uq takes): cn_uq_do's arithmetic in lanes, a = v
 * + b + 2^31 (mod 2^32), (a m + D) >> s
 * by pmuludq on the even and the odd lanes and a shift per lane (AVX2:
 * vpsrlvq; SSE2: psrlq by each lane's count, the two of a register merged
 * by movsd), the unsigned clamp to [lu, hu] (SSE2: signed compares on
 * values ^ 2^31) and the rebase; exact where every v + b fits an int32
 * (the callers' bound). The results lie in [LO, HI]. */
#if defined(__AVX2__)
#define CN_LQ 8
typedef __m256i cn_v;
typedef struct {
	__m256i b, m, d[2], s[2], l, h, z;
} cn_lq;
#else
#define CN_LQ 4
typedef __m128i cn_v;
typedef struct {
	__m128i b, m, d[2], s[4], l, h, z;	/* l, h: lu, hu ^ 2^31 */
} cn_lq;
#endif
#define CN_LQB (16 / CN_LQ)	/* cn_lq a block of 16 channels */

static void cn_lq_set(cn_lq *k, const cn_uq *c)
{
	int64_t d[CN_LQ], e[CN_LQ];
	int32_t lu[CN_LQ], hu[CN_LQ], zb[CN_LQ], bu[CN_LQ], m[CN_LQ];
	for (int j = 0; j < CN_LQ; j++) {
		d[j] = (int64_t)c[j].q.D, e[j] = c[j].s, lu[j] = (int32_t)c[j].q.lu, hu[j] = (int32_t)c[j].q.hu;
		zb[j] = c[j].q.base, bu[j] = (int32_t)c[j].bu, m[j] = (int32_t)c[j].m;
	}
#if defined(__AVX2__)
#define CN_LDV(v) _mm256_loadu_si256((const __m256i *)(const void *)(v))
	k->l = CN_LDV(lu), k->h = CN_LDV(hu);
	k->d[0] = _mm256_set_epi64x(d[6], d[4], d[2], d[0]), k->d[1] = _mm256_set_epi64x(d[7], d[5], d[3], d[1]);
	k->s[0] = _mm256_set_epi64x(e[6], e[4], e[2], e[0]), k->s[1] = _mm256_set_epi64x(e[7], e[5], e[3], e[1]);
#else
#define CN_LDV(v) _mm_loadu_si128((const __m128i *)(const void *)(v))
	const __m128i f = _mm_set1_epi32((int32_t)0x80000000u);
	k->l = _mm_xor_si128(CN_LDV(lu), f), k->h = _mm_xor_si128(CN_LDV(hu), f);
	k->d[0] = _mm_set_epi64x(d[2], d[0]), k->d[1] = _mm_set_epi64x(d[3], d[1]);
	for (int j = 0; j < 4; j++)
		k->s[j] = _mm_cvtsi32_si128((int)e[j]);
#endif
	k->b = CN_LDV(bu), k->m = CN_LDV(m), k->z = CN_LDV(zb);
#undef CN_LDV
}

static inline cn_v cn_lqv(const cn_lq *k, cn_v v)
{
#if defined(__AVX2__)
	__m256i a = _mm256_add_epi32(v, k->b);
	__m256i e = _mm256_srlv_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, k->m), k->d[0]), k->s[0]);
	__m256i o = _mm256_srlv_epi64(
		_mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(k->m, 32)), k->d[1]), k->s[1]);
	__m256i r = _mm256_blend_epi32(e, _mm256_slli_epi64(o, 32), 0xaa);
	r = _mm256_min_epu32(_mm256_max_epu32(r, k->l), k->h);
	return _mm256_add_epi32(k->z, _mm256_sub_epi32(r, k->l));
#else
	const __m128i f = _mm_set1_epi32((int32_t)0x80000000u), lo = _mm_set_epi32(0, -1, 0, -1);
	__m128i a = _mm_add_epi32(v, k->b);
	__m128i e = _mm_add_epi64(_mm_mul_epu32(a, k->m), k->d[0]);	/* lanes 0 and 2 */
	__m128i o = _mm_add_epi64(_mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(k->m, 32)), k->d[1]);
#define CN_SRL2(x, s0, s1) \
	_mm_castpd_si128(_mm_move_sd(_mm_castsi128_pd(_mm_srl_epi64(x, s1)), _mm_castsi128_pd(_mm_srl_epi64(x, s0))))
	e = CN_SRL2(e, k->s[0], k->s[2]), o = CN_SRL2(o, k->s[1], k->s[3]);
#undef CN_SRL2
	__m128i r = _mm_xor_si128(_mm_or_si128(_mm_and_si128(e, lo), _mm_slli_epi64(o, 32)), f);
	__m128i t = _mm_cmpgt_epi32(k->l, r);
	r = _mm_or_si128(_mm_and_si128(t, k->l), _mm_andnot_si128(t, r));
	t = _mm_cmpgt_epi32(r, k->h);
	r = _mm_or_si128(_mm_and_si128(t, k->h), _mm_andnot_si128(t, r));
	return _mm_add_epi32(k->z, _mm_sub_epi32(r, k->l));	/* (r ^ 2^31) - (lu ^ 2^31) = r - lu */
#endif
}

/* a block's 16 sums, r[i] the ones of cn_lq i, requantized to y[0 .. 15] */
static inline void cn_lq16(const cn_lq *k, const cn_v *r, int8_t *y)
{
#if defined(__AVX2__)
	__m256i w = _mm256_packs_epi32(cn_lqv(&k[0], r[0]), cn_lqv(&k[1], r[1]));	/* per half: 0-3, 8-11, 4-7, 12-15 */
	__m128i b = _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
	_mm_storeu_si128((__m128i *)(void *)y, _mm_shuffle_epi32(b, 0xd8));
#else
	__m128i w0 = _mm_packs_epi32(cn_lqv(&k[0], r[0]), cn_lqv(&k[1], r[1]));
	__m128i w1 = _mm_packs_epi32(cn_lqv(&k[2], r[2]), cn_lqv(&k[3], r[3]));
	_mm_storeu_si128((__m128i *)(void *)y, _mm_packs_epi16(w0, w1));
#endif
}

/* the same from 16 sums at s */
static inline void cn_lq16s(const cn_lq *k, const int32_t *s, int8_t *y)
{
	cn_v r[CN_LQB];
	for (int h = 0; h < CN_LQB; h++)
		memcpy(&r[h], s + CN_LQ * h, sizeof r[h]);
	cn_lq16(k, r, y);
}

/* the lanes of a block of 16 channels from their cn_uq (each taking its
 * channel) */
static void cn_lq16_set(cn_lq *k, const cn_uq *c)
{
	for (int h = 0; h < CN_LQB; h++)
		cn_lq_set(&k[h], c + CN_LQ * h);
}
#endif

#if !defined(NPU_NO_SIMD) && defined(__SSE2__)
/* s = a pixel's 16 channels' sums over a window inside the input: x's
 * rows at x + off[t], the int16 weights at w + t C, two taps a pmaddwd
 * (each channel's v and w of taps t and t + 1 side by side), the sums in
 * registers */
static void cn_dw_px16(const int8_t *x, const ptrdiff_t *off, const int16_t *w, size_t C, int taps, int32_t ZX, int32_t *s)
{
	int t = 0;
#if defined(__AVX2__)
	const __m256i zx = _mm256_set1_epi16((int16_t)ZX), z = _mm256_setzero_si256();
	__m256i a0 = z, a1 = z;	/* channels 0-3 | 8-11, 4-7 | 12-15 */
#define CN_XV(t) _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(x + off[t]))), zx)
#define CN_WV(t) _mm256_loadu_si256((const __m256i *)(const void *)(w + (size_t)(t) * C))
	for (; t < taps; t += 2) {
		__m256i v0 = CN_XV(t), w0 = CN_WV(t), v1 = v0, w1 = z;	/* an odd last tap: against 0 */
		if (t + 1 < taps)
			v1 = CN_XV(t + 1), w1 = CN_WV(t + 1);
		a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi16(v0, v1), _mm256_unpacklo_epi16(w0, w1)));
		a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi16(v0, v1), _mm256_unpackhi_epi16(w0, w1)));
	}
#undef CN_WV
#undef CN_XV
	_mm256_storeu_si256((__m256i *)(void *)s, _mm256_permute2x128_si256(a0, a1, 0x20));
	_mm256_storeu_si256((__m256i *)(void *)(s + 8), _mm256_permute2x128_si256(a0, a1, 0x31));
#else
	/* x - ZX = (x ^ 0x80) - (ZX + 128), x ^ 0x80 zero-extended */
	const __m128i zx = _mm_set1_epi16((int16_t)(ZX + 128)), f = _mm_set1_epi8((char)0x80), z = _mm_setzero_si128();
	__m128i a[4] = {z, z, z, z};
	for (; t < taps; t += 2) {
		__m128i b0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(x + off[t])), f), b1 = b0;
		const int16_t *w0 = w + (size_t)t * C, *w1 = NULL;
		if (t + 1 < taps)
			b1 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(x + off[t + 1])), f), w1 = w0 + C;
		for (int h = 0; h < 2; h++) {	/* channels 8 h .. 8 h + 7 */
			__m128i v0 = _mm_sub_epi16(h ? _mm_unpackhi_epi8(b0, z) : _mm_unpacklo_epi8(b0, z), zx);
			__m128i v1 = _mm_sub_epi16(h ? _mm_unpackhi_epi8(b1, z) : _mm_unpacklo_epi8(b1, z), zx);
			__m128i u0 = _mm_loadu_si128((const __m128i *)(const void *)(w0 + 8 * h));
			__m128i u1 = w1 ? _mm_loadu_si128((const __m128i *)(const void *)(w1 + 8 * h)) : z;
			a[2 * h] = _mm_add_epi32(a[2 * h], _mm_madd_epi16(_mm_unpacklo_epi16(v0, v1), _mm_unpacklo_epi16(u0, u1)));
			a[2 * h + 1] = _mm_add_epi32(a[2 * h + 1], _mm_madd_epi16(_mm_unpackhi_epi16(v0, v1), _mm_unpackhi_epi16(u0, u1)));
		}
	}
	for (int k = 0; k < 4; k++)
		_mm_storeu_si128((__m128i *)(void *)(s + 4 * k), a[k]);
#endif
}
#endif

#if defined(NPU_NO_SIMD) || !(defined(__SSE2__) || (defined(__ARM_NEON) && defined(__aarch64__)))
#define CN_DW_REG 1
/* s = a pixel's nc (<= 16) channels' sums over a window inside the input
 * (x's rows at x + off[t], the int16 weights at w + t C), 4 channels' sums
 * in registers through the taps, as sum x w - ZX sum w (ws: each
 * channel's sum of w over the taps): |sum x w| < 2^15 CN_DW_TAPS. Cortex-M
 * DSP: a word of x as (x0, x2), (x1, x3) by SXTB16, a product of one int16
 * half each by SMLAxy. */
static void cn_dw_px(const int8_t *x, const ptrdiff_t *off, const int16_t *w, size_t C, int taps, int32_t ZX,
		     const int32_t *ws, int nc, int32_t *s)
{
	int c = 0;
	for (; c + 4 <= nc; c += 4) {
		int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
		const int16_t *wt = w + c;
		for (int t = 0; t < taps; t++, wt += C) {
			const int8_t *xt = x + off[t] + c;
#if !defined(NPU_NO_SIMD) && defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32)
			uint32_t xw, w01, w23;
			memcpy(&xw, xt, 4), memcpy(&w01, wt, 4), memcpy(&w23, wt + 2, 4);
			int32_t xe = __sxtb16(xw), xo = __sxtb16((xw >> 8) | (xw << 24));
			a0 = __smlabb(xe, w01, a0), a1 = __smlabt(xo, w01, a1);
			a2 = __smlatb(xe, w23, a2), a3 = __smlatt(xo, w23, a3);
#else
			a0 += xt[0] * wt[0], a1 += xt[1] * wt[1], a2 += xt[2] * wt[2], a3 += xt[3] * wt[3];
#endif
		}
		s[c] = a0 - ZX * ws[c], s[c + 1] = a1 - ZX * ws[c + 1];
		s[c + 2] = a2 - ZX * ws[c + 2], s[c + 3] = a3 - ZX * ws[c + 3];
	}
	for (; c < nc; c++) {
		int32_t a = 0;
		for (int t = 0; t < taps; t++)
			a += x[off[t] + c] * w[(size_t)t * C + c];
		s[c] = a - ZX * ws[c];
	}
}
#endif

static void cn_depthwise(const int32_t *p, void *const *a, void *scratch)
{
#if defined(CN_DW_QUADS) && defined(__ARM_NEON)
	if (cn_dw_dot(p, a, scratch))
		return;
#endif
	const int8_t *x = a[0], *w = a[1];
	const void *bias = a[2];
	const int32_t *mult = a[3], *shift = a[4], *wzp = a[5];
	void *y = a[6];
	int N = p[NPU_CV_N], C = p[NPU_CV_C], H = p[NPU_CV_H], W = p[NPU_CV_W];
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW];
	int SH = p[NPU_CV_SH], SW = p[NPU_CV_SW], PT = p[NPU_CV_PT], PL = p[NPU_CV_PL];
	int DH = p[NPU_CV_DH], DW = p[NPU_CV_DW], taps = KH * KW;
	int32_t ZX = p[NPU_CV_ZX];
#if defined(CN_RQ_LANES)
	int lanes = cn_dw_lanes_ok(p, bias);
#if defined(CN_DW_QUADS)
	if (lanes && cn_dw_vnni(p, a, scratch))
		return;
#endif
#endif
	int16_t *wt = scratch;
	for (int c = 0; c < C; c++) {
		int32_t z = wzp ? wzp[c] : 0;
		for (int t = 0; t < taps; t++)
			wt[(size_t)t * C + c] = (int16_t)(w[(size_t)c * taps + t] - z);
	}
#if defined(CN_MVE)
	/* Helium: 4 channels' sums in a register through the taps inside the
	 * input, requantized in lanes (cn_rq4) */
	if (cn_mve_ok(p, bias, shift)) {
		const int8_t *tp[CN_DW_TAPS];
		const int16_t *wp[CN_DW_TAPS];
		for (int n = 0; n < N; n++)
			for (int oh = 0; oh < OH; oh++)
				for (int ow = 0; ow < OW; ow++) {
					int nt = cn_dw_taps(p, x, wt, n, oh, ow, tp, wp);
					int8_t *yp = (int8_t *)y + (((size_t)n * OH + oh) * OW + ow) * C;
					for (int c = 0; c < C; c += 4) {
						mve_pred16_t pr = vctp32q((uint32_t)(C - c));
						int32x4_t s4 = bias ? vldrwq_z_s32((const int32_t *)bias + c, pr) : vdupq_n_s32(0);
						for (int t = 0; t < nt; t++)
							s4 = vaddq_s32(s4, vmulq_s32(vsubq_n_s32(vldrbq_z_s32(tp[t] + c, pr), ZX),
										     vldrhq_z_s32(wp[t] + c, pr)));
						int32x4_t ns = vsubq_s32(vdupq_n_s32(32), vldrwq_z_s32(shift + c, pr));
						vstrbq_p_s32(yp + c, cn_rq4(s4, vldrwq_z_s32(mult + c, pr), ns, p), pr);
					}
				}
		return;
	}
#endif
#if defined(CN_RQ_LANES)
	if (lanes) {
		const int8_t *tp[CN_DW_TAPS];
		const int16_t *wp[CN_DW_TAPS];
		for (int n = 0; n < N; n++)
			for (int oh = 0; oh < OH; oh++)
				for (int ow = 0; ow < OW; ow++) {
					int nt = cn_dw_taps(p, x, wt, n, oh, ow, tp, wp);
					/* two pixels when both windows lie inside the row: the same taps */
					int two = ow + 1 < OW && ow * SW - PL >= 0 && (ow + 1) * SW - PL + (KW - 1) * DW < W;
					cn_dw_lanes(p, bias, mult, shift, tp, wp, nt, two, (size_t)SW * C,
						    (int8_t *)y + (((size_t)n * OH + oh) * OW + ow) * C);
					ow += two;
				}
		return;
	}
#endif
	/* 16 channels at a time through every pixel, their requantization's
	 * constants set once (cq_uq_row's unsigned arithmetic where
	 * cq_requant would take it, |acc| < 2^22 here; else rt_mulshift) */
#if (!defined(NPU_NO_SIMD) && defined(__SSE2__)) || defined(CN_DW_REG)
	ptrdiff_t off[CN_DW_TAPS];	/* the taps' x from a window's top left */
	for (int t = 0; t < taps; t++)
		off[t] = ((ptrdiff_t)(t / KW) * DH * W + (ptrdiff_t)(t % KW) * DW) * C;
#endif
	for (int c0 = 0; c0 < C; c0 += 16) {
		int nc = C - c0 < 16 ? C - c0 : 16, uq[16], all = 1;
		cn_uq q[16];
		for (int j = 0; j < nc; j++)
			all &= uq[j] = cn_uq_set(&q[j], p, cq_bias(p, bias, c0 + j), mult[c0 + j], shift[c0 + j], 1 << 30);
#if defined(CN_DW_REG)
		int32_t ws[16];
		for (int j = 0; j < nc; j++) {
			ws[j] = 0;
			for (int t = 0; t < taps; t++)
				ws[j] += wt[(size_t)t * C + c0 + j];
		}
#endif
#if defined(CN_LQ)
		/* the block requantized in lanes where all 16 channels take it */
		int lane = nc == 16 && all;
		cn_lq lq[CN_LQB];
		if (lane)
			cn_lq16_set(lq, q);
#endif
		for (int n = 0; n < N; n++)
			for (int oh = 0; oh < OH; oh++)
				for (int ow = 0; ow < OW; ow++) {
					int32_t s16[16];
#if (!defined(NPU_NO_SIMD) && defined(__SSE2__)) || defined(CN_DW_REG)
					/* a window inside the input: all taps from its top left */
					int ih0 = oh * SH - PT, iw0 = ow * SW - PL;
					int in = ih0 >= 0 && ih0 + (KH - 1) * DH < H && iw0 >= 0 && iw0 + (KW - 1) * DW < W;
#endif
#if !defined(NPU_NO_SIMD) && defined(__SSE2__)
					if (in && nc == 16) {
						cn_dw_px16(x + (((size_t)n * H + ih0) * W + iw0) * C + c0, off, wt + c0, (size_t)C, taps,
							   ZX, s16);
					} else	/* a window reaching into the padding: tap by tap */
#elif defined(CN_DW_REG)
					if (in) {
						cn_dw_px(x + (((size_t)n * H + ih0) * W + iw0) * C + c0, off, wt + c0, (size_t)C, taps,
							 ZX, ws, nc, s16);
					} else
#endif
					{
						memset(s16, 0, sizeof s16);
						for (int kh = 0; kh < KH; kh++) {
							int ih = oh * SH - PT + kh * DH;
							if (ih < 0 || ih >= H)
								continue;
							for (int kw = 0; kw < KW; kw++) {
								int iw = ow * SW - PL + kw * DW;
								if (iw >= 0 && iw < W)
									cn_dw_add(s16, x + (((size_t)n * H + ih) * W + iw) * C + c0,
										  wt + (size_t)(kh * KW + kw) * C + c0, nc, ZX);
							}
						}
					}
					size_t yo = (((size_t)n * OH + oh) * OW + ow) * C + c0;
#if defined(CN_LQ)
					if (lane) {
						cn_lq16s(lq, s16, (int8_t *)y + yo);
						continue;
					}
#endif
					if (all) {
						for (int j = 0; j < nc; j++)
							((int8_t *)y)[yo + j] = cn_uq_do(&q[j], s16[j]);
						continue;
					}
					for (int j = 0; j < nc; j++)
						cn_put(p, bias, mult, y, yo + j, c0 + j, &q[j], uq[j], s16[j]);
				}
	}
}

/* Channel-last regular int8 convolution (cn_regular): 4 output channels of
 * one group share each load of x. Per output pixel and kernel row, the
 * taps inside the image are one run of x (KW' C contiguous bytes when G ==
 * 1 and DW == 1, else one tap of cg bytes) against the same run of each
 * channel's OHWI weights; taps in the padding add (ZX - ZX) (w - z) = 0 and
 * are skipped, so nothing is staged and no scratch is needed. With v = x -
 * ZX (in [-255, 255], int16 lanes) the sums are sum v w and sum v, and
 * sum v (w - z) = sum v w - z sum v: |sum v w|, |z sum v| <= 255 * 128 *
 * K < 2^30 for K = cg KH KW <= CQ_NHWC_MAX_K, exact in int32. */
static void cn_dot4(const int8_t *restrict x, const int8_t *const w[4], int K, int32_t ZX, int32_t s[5])
{
	const int8_t *restrict w0 = w[0], *restrict w1 = w[1], *restrict w2 = w[2], *restrict w3 = w[3];
	int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, sx = 0;
	int i = 0;
#if !defined(NPU_NO_SIMD) && defined(__SSE2__)
	if (K >= 8) {
		const __m128i zx = _mm_set1_epi16((int16_t)ZX), one = _mm_set1_epi16(1);
		__m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0, ax = a0;
#if defined(__AVX2__)	/* 16 channels a step, then the 128-bit steps for the rest */
		if (K >= 16) {
			const __m256i zy = _mm256_set1_epi16((int16_t)ZX), on = _mm256_set1_epi16(1);
			__m256i b0 = _mm256_setzero_si256(), b1 = b0, b2 = b0, b3 = b0, bx = b0;
#define CN_W(p) _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)((p) + i)))
			for (; i + 16 <= K; i += 16) {
				__m256i v = _mm256_sub_epi16(CN_W(x), zy);
				bx = _mm256_add_epi32(bx, _mm256_madd_epi16(v, on));
				b0 = _mm256_add_epi32(b0, _mm256_madd_epi16(v, CN_W(w0)));
				b1 = _mm256_add_epi32(b1, _mm256_madd_epi16(v, CN_W(w1)));
				b2 = _mm256_add_epi32(b2, _mm256_madd_epi16(v, CN_W(w2)));
				b3 = _mm256_add_epi32(b3, _mm256_madd_epi16(v, CN_W(w3)));
			}
#undef CN_W
#define CN_H(b) _mm_add_epi32(_mm256_castsi256_si128(b), _mm256_extracti128_si256(b, 1))
			a0 = CN_H(b0), a1 = CN_H(b1), a2 = CN_H(b2), a3 = CN_H(b3), ax = CN_H(bx);
#undef CN_H
		}
#endif
#if defined(__SSE4_1__)
#define CN_W(p) _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)((p) + i)))
#else
#define CN_W(p) _mm_srai_epi16(_mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(const void *)((p) + i)), \
						   _mm_loadl_epi64((const __m128i *)(const void *)((p) + i))), 8)
#endif
		for (; i + 8 <= K; i += 8) {
			__m128i v = _mm_sub_epi16(CN_W(x), zx);
			ax = _mm_add_epi32(ax, _mm_madd_epi16(v, one));
			a0 = _mm_add_epi32(a0, _mm_madd_epi16(v, CN_W(w0)));
			a1 = _mm_add_epi32(a1, _mm_madd_epi16(v, CN_W(w1)));
			a2 = _mm_add_epi32(a2, _mm_madd_epi16(v, CN_W(w2)));
			a3 = _mm_add_epi32(a3, _mm_madd_epi16(v, CN_W(w3)));
		}
#undef CN_W
		/* transpose-and-add the 4 channel sums (unpacks), then sum v */
		__m128i u0 = _mm_add_epi32(_mm_unpacklo_epi32(a0, a1), _mm_unpackhi_epi32(a0, a1));
		__m128i u1 = _mm_add_epi32(_mm_unpacklo_epi32(a2, a3), _mm_unpackhi_epi32(a2, a3));
		__m128i r = _mm_add_epi32(_mm_unpacklo_epi64(u0, u1), _mm_unpackhi_epi64(u0, u1));
		ax = _mm_add_epi32(ax, _mm_shuffle_epi32(ax, 0x4e));
		ax = _mm_add_epi32(ax, _mm_shuffle_epi32(ax, 0xb1));
		s0 = _mm_cvtsi128_si32(r), s1 = _mm_cvtsi128_si32(_mm_shuffle_epi32(r, 0x55));
		s2 = _mm_cvtsi128_si32(_mm_shuffle_epi32(r, 0xaa)), s3 = _mm_cvtsi128_si32(_mm_shuffle_epi32(r, 0xff));
		sx = _mm_cvtsi128_si32(ax);
	}
#elif !defined(NPU_NO_SIMD) && defined(__ARM_NEON) && defined(__aarch64__)
	if (K >= 8) {
		const int16x8_t zx = vdupq_n_s16((int16_t)ZX);
		int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0, ax = a0;
		for (; i + 8 <= K; i += 8) {
			int16x8_t v = vsubq_s16(vmovl_s8(vld1_s8(x + i)), zx);
			int16x8_t b0 = vmovl_s8(vld1_s8(w0 + i)), b1 = vmovl_s8(vld1_s8(w1 + i));
			int16x8_t b2 = vmovl_s8(vld1_s8(w2 + i)), b3 = vmovl_s8(vld1_s8(w3 + i));
			ax = vpadalq_s16(ax, v);
			a0 = vmlal_high_s16(vmlal_s16(a0, vget_low_s16(v), vget_low_s16(b0)), v, b0);
			a1 = vmlal_high_s16(vmlal_s16(a1, vget_low_s16(v), vget_low_s16(b1)), v, b1);
			a2 = vmlal_high_s16(vmlal_s16(a2, vget_low_s16(v), vget_low_s16(b2)), v, b2);
			a3 = vmlal_high_s16(vmlal_s16(a3, vget_low_s16(v), vget_low_s16(b3)), v, b3);
		}
		s0 = vaddvq_s32(a0), s1 = vaddvq_s32(a1), s2 = vaddvq_s32(a2), s3 = vaddvq_s32(a3), sx = vaddvq_s32(ax);
	}
#elif !defined(NPU_NO_SIMD) && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
	/* 16 int8 products a vmladava on x and w as they are (the last
	 * vector predicated), with the sums of x and of each w: sum (x - ZX)
	 * w = sum x w - ZX sum w, sum (x - ZX) = sum x - ZX K */
	int32_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
	for (; i < K; i += 16) {
		mve_pred16_t pr = vctp8q((uint32_t)(K - i));
		int8x16_t v = vldrbq_z_s8(x + i, pr), b0 = vldrbq_z_s8(w0 + i, pr), b1 = vldrbq_z_s8(w1 + i, pr);
		int8x16_t b2 = vldrbq_z_s8(w2 + i, pr), b3 = vldrbq_z_s8(w3 + i, pr);
		sx = vaddvaq_s8(sx, v);
		s0 = vmladavaq_s8(s0, v, b0), t0 = vaddvaq_s8(t0, b0);
		s1 = vmladavaq_s8(s1, v, b1), t1 = vaddvaq_s8(t1, b1);
		s2 = vmladavaq_s8(s2, v, b2), t2 = vaddvaq_s8(t2, b2);
		s3 = vmladavaq_s8(s3, v, b3), t3 = vaddvaq_s8(t3, b3);
	}
	s0 -= ZX * t0, s1 -= ZX * t1, s2 -= ZX * t2, s3 -= ZX * t3, sx -= ZX * K;
#elif !defined(NPU_NO_SIMD) && defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32)
	/* Cortex-M DSP: a word of x or w as two int16 pairs (SXTB16: bytes 0
	 * and 2; rotated by 8, bytes 1 and 3), x - ZX by SSUB16 (in [-255,
	 * 255]), SMLAD adds a pair's two products */
	const uint32_t zz = (uint32_t)(uint16_t)ZX * 0x10001u, one = 0x10001u;
	for (; i + 4 <= K; i += 4) {
		uint32_t xw, t;
		memcpy(&xw, x + i, 4);
		uint32_t ve = __ssub16(__sxtb16(xw), zz), vo = __ssub16(__sxtb16((xw >> 8) | (xw << 24)), zz);
		sx = __smlad(vo, one, __smlad(ve, one, sx));
#define CN_D(j) memcpy(&t, w##j + i, 4), s##j = __smlad(vo, __sxtb16((t >> 8) | (t << 24)), __smlad(ve, __sxtb16(t), s##j))
		CN_D(0);
		CN_D(1);
		CN_D(2);
		CN_D(3);
#undef CN_D
	}
#endif
	for (; i < K; i++) {
		int32_t v = x[i] - ZX;
		sx += v, s0 += v * w0[i], s1 += v * w1[i], s2 += v * w2[i], s3 += v * w3[i];
	}
	s[0] += s0, s[1] += s1, s[2] += s2, s[3] += s3, s[4] += sx;
}

/* int8 x, int8 weights with int8 zero points, ZX in int8, K <= CQ_NHWC_MAX_K:
 * 4 output channels a time (the last block of a group overlaps the one
 * before it, or repeats its last channel when the group has fewer) */
#define CN_RB 16
static int cn_regular(const int32_t *p, void *const *a)
{
	const int8_t *x = a[0], *w = a[1];
	const void *bias = a[2];
	const int32_t *mult = a[3], *shift = a[4], *wzp = a[5];
	void *y = a[6];
	int N = p[NPU_CV_N], C = p[NPU_CV_C], H = p[NPU_CV_H], W = p[NPU_CV_W], OC = p[NPU_CV_OC];
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW];
	int SH = p[NPU_CV_SH], SW = p[NPU_CV_SW], PT = p[NPU_CV_PT], PL = p[NPU_CV_PL];
	int DH = p[NPU_CV_DH], DW = p[NPU_CV_DW], G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1;
	int32_t ZX = p[NPU_CV_ZX];
	int cg = C / G, og = OC / G;
	if (p[NPU_CV_XT] != NPU_T_I8 || p[NPU_CV_WT] != NPU_T_I8 || ZX < -128 || ZX > 127 || KH < 1 || KW < 1 ||
	    (int64_t)cg * KH * KW > CQ_NHWC_MAX_K)
		return 0;
	for (int o = 0; wzp && o < OC; o++)
		if (wzp[o] < -128 || wzp[o] > 127)
			return 0;
	size_t wk = (size_t)cg * KH * KW;	/* one output channel's weights */
#if defined(CN_MVE)
	int vq = cn_mve_ok(p, bias, shift);
#else
	const int vq = 0;
#endif
	/* blocks of CN_RB channels of a group through all pixels, their
	 * requantization set once (cn_uq: |sum (x - ZX)(w - z)| <= 255^2 K) */
	int rb = vq ? og : CN_RB, uq[CN_RB];
	cn_uq q[CN_RB];
	for (int gr = 0; gr < G; gr++)
		for (int c0 = 0; c0 < og; c0 += rb) {
			int c1 = og - c0 < rb ? og : c0 + rb;
			for (int o = c0; !vq && o < c1; o++)
				uq[o - c0] = cn_uq_set(&q[o - c0], p, cq_bias(p, bias, gr * og + o), mult[gr * og + o],
						       shift[gr * og + o], 0x7fffffff - (int64_t)65025 * (int64_t)wk);
			for (int n = 0; n < N; n++)
				for (int oh = 0; oh < OH; oh++)
					for (int ow = 0; ow < OW; ow++) {
						size_t yo = (((size_t)n * OH + oh) * OW + ow) * OC;
						int iw0 = ow * SW - PL, kw0 = 0, kw1 = KW;	/* the taps inside the row */
						while (kw0 < KW && iw0 + kw0 * DW < 0)
							kw0++;
						while (kw1 > kw0 && iw0 + (kw1 - 1) * DW >= W)
							kw1--;
						for (int o0 = c0; o0 < c1; o0 += 4) {
							int ob = o0 + 4 <= og ? o0 : og >= 4 ? og - 4 : 0;
							int oc = gr * og + ob;
							const int8_t *wr[4];
							for (int j = 0; j < 4; j++)
								wr[j] = w + (size_t)(oc + (ob + j < og ? j : og - 1 - ob)) * wk;
							int32_t s[5] = {0, 0, 0, 0, 0};
							for (int kh = 0; kh < KH && kw0 < kw1; kh++) {
								int ih = oh * SH - PT + kh * DH;
								if (ih < 0 || ih >= H)
									continue;
								const int8_t *xr = x + (((size_t)n * H + ih) * W + (iw0 + kw0 * DW)) * C +
										   (size_t)gr * cg;
								size_t wo = ((size_t)kh * KW + kw0) * cg;
								const int8_t *wt[4] = {wr[0] + wo, wr[1] + wo, wr[2] + wo, wr[3] + wo};
								if (G == 1 && DW == 1) {	/* one run of the row's taps */
									cn_dot4(xr, wt, (kw1 - kw0) * cg, ZX, s);
									continue;
								}
								for (int kw = kw0; kw < kw1; kw++, xr += (size_t)DW * C) {
									cn_dot4(xr, wt, cg, ZX, s);
									for (int j = 0; j < 4; j++)
										wt[j] += cg;
								}
							}
#if defined(CN_MVE)
							if (vq) {	/* |sum (x - ZX)(w - z)| < 2^30 (see above), |bias| < 2^30 */
								mve_pred16_t pr = vctp32q((uint32_t)(og - ob));
								int32x4_t v = vldrwq_z_s32(s, pr);
								if (bias)
									v = vaddq_s32(v, vldrwq_z_s32((const int32_t *)bias + oc, pr));
								if (wzp)
									v = vsubq_s32(v, vmulq_n_s32(vldrwq_z_s32(wzp + oc, pr), s[4]));
								int32x4_t ns = vsubq_s32(vdupq_n_s32(32), vldrwq_z_s32(shift + oc, pr));
								vstrbq_p_s32((int8_t *)y + yo + oc, cn_rq4(v, vldrwq_z_s32(mult + oc, pr), ns, p),
									     pr);
								continue;
							}
#endif
							/* the block's channels in this chunk (one before it overlaps) */
							for (int j = ob < c0 ? c0 - ob : 0; j < 4 && ob + j < og; j++)
								cn_put(p, bias, mult, y, yo + oc + j, oc + j, &q[ob + j - c0], uq[ob + j - c0],
								       s[j] - (wzp ? wzp[oc + j] : 0) * s[4]);
						}
					}
		}
	return 1;
}

/* Channel-last int8 convolution on AMX tiles (cn_amx; x86-64 Linux with
 * RT_AMX, the tile state granted; without tiles, on AVX-512 VNNI, the
 * same steps with their products by vpdpbusd: cn_vnni_band, cn_vnni_1x1;
 * on x86 without AVX-512 VNNI, by pmaddwd: cn_gen_band, cn_gen_1x1),
 * the transposed product as for the
 * panel path but with nothing rearranged in the weights: C (16 output
 * channels x 16 pixels, int32) += A (16 channels x kc bytes of one tap:
 * OHWI rows as they are, row stride K) times B (kc / 4 quads of input
 * channels x 16 pixels x 4 bytes) with tdpbssd (int8 by int8, so x needs
 * no flip). B comes from a band of nb output rows staged once per band in
 * the scratch: each input row the band reads, once (ZX for columns and
 * rows in the padding), as planes [C / 4 quads][SW column phases][NS row
 * slots][Rq rows of Wq columns][4 bytes]. Output row ol's kernel row kh
 * reads input row ol SH + kh DH of the band, which is row ol + kh DH / SH
 * of slot kh mod M (M = SH / gcd(SH, DH): the kernel rows of one row
 * phase share a slot), so a tap's 16 pixels of one quad are 64 contiguous
 * bytes (the band's rows one after the other, Wq - OW junk columns
 * between them, computed and dropped) and its quads a fixed stride apart;
 * a 3x3 stride-1 band of nb rows stages nb + 2 rows, not 3 nb. Padding
 * holds ZX, so every tap counts and sum (x - ZX) w = sum x w - ZX sum w
 * over all taps: one correction per channel, folded with the bias (bq,
 * in the scratch; each block's on the first band, cn_wsum). The band's rows are chosen for the fewest tiles
 * within CN_AMX_CAP bytes and NPU_CV_SMAX, then the fewest bands (each
 * reads all the weights; resnet18's 7x7 maps: one band of 7 rows of 9
 * columns, 4 pixel tiles where rows alone take 7). Staging is a dword
 * transpose (cn_tr16d) of 16 columns by 16 quads. Per step 2 channel
 * blocks x 2 pixel tiles (C 0-3, A 4-5, B 6-7); the last channel block
 * overlaps the one before it. The C tiles are transposed (a pixel's 16
 * channels in lanes) and requantized into the pixels' channel-last rows
 * (cn_amx_out) while the next step's tiles compute. kc: the largest multiple of 4 up to 64 dividing C.
 * C not a multiple of 4 (the stems): row mode, each kernel row's KW C
 * bytes (rounded up to 4, at most CN_AMX_ROW) are one tap's channels,
 * staged per pixel, with the weights padded by zeros in the scratch.
 * 1x1 at stride 1 with no padding, C a multiple of 4 and 16 pixels or
 * more (mobilenet_v2's and squeezenet's pointwise layers): direct mode
 * (cn_amx_1x1), the product the other way round with nothing staged.
 * Taken when G = 1, OC >= 16, int8 out, no weight zero points and |bias| +
 * 255 128 K < 2^31 (the sums exact in int32), the scratch (cn_amx_geo, the
 * same for every ISA) within CN_AMX_CAP and NPU_CV_SMAX; else cn_regular. */
#define CN_AMX_CAP 49152
#define CN_AMX_ROW 256	/* row mode: KW C at most */
typedef struct {
	int dm, im, Ce, KWe, SWe, DWe, kc, Cq, Wq, nb;	/* direct mode, row mode; per group of taps: channels, ... */
	int M, NS, Rq, L;	/* row slots: kernel rows kh mod M share one; NS of them, of Rq rows, L dwords */
	size_t wr, bq, need;	/* offsets: restaged weights (row mode), staged rows; all bytes */
} cn_ageo;

static size_t cn_amx_geo(const int32_t *p, cn_ageo *q)
{
	int G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1, C = p[NPU_CV_C], OC = p[NPU_CV_OC], OH = p[NPU_CV_OH];
	int OW = p[NPU_CV_OW], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW], SW = p[NPU_CV_SW], DW = p[NPU_CV_DW];
	if (p[NPU_CV_XT] != NPU_T_I8 || p[NPU_CV_WT] != NPU_T_I8 || p[NPU_CV_YT] != NPU_T_I8 || G != 1 || C < 1 ||
	    OC < 16 || KH < 1 || KW < 1 || OH < 1 || OW < 1 || SW < 1 || DW < 1 || p[NPU_CV_SH] < 1 ||
	    p[NPU_CV_DH] < 1 || (int64_t)C * KH * KW > CQ_NHWC_MAX_K || (int64_t)OW * SW + (int64_t)KW * DW > 65536 ||
	    (int64_t)KH * p[NPU_CV_DH] > 65536)
		return 0;
	size_t cap = p[NPU_CV_SMAX] > 0 && (size_t)p[NPU_CV_SMAX] < CN_AMX_CAP ? (size_t)p[NPU_CV_SMAX] : CN_AMX_CAP;
	q->bq = ((size_t)OC * 4 + 63) & ~(size_t)63;
	/* direct mode: bq, then a pair of blocks' regrouped weights */
	q->dm = KH == 1 && KW == 1 && p[NPU_CV_SH] == 1 && SW == 1 && p[NPU_CV_PT] == 0 && p[NPU_CV_PL] == 0 &&
		OH == p[NPU_CV_H] && OW == p[NPU_CV_W] && C % 4 == 0 && (int64_t)p[NPU_CV_N] * OH * OW >= 16 &&
		q->bq + (size_t)32 * C <= cap;
	q->im = C % 4 != 0;
	if (q->im && KW * C > CN_AMX_ROW)
		return 0;
	/* row mode: a kernel row's KW C bytes (rounded up to 4) as the channels of one tap */
	q->Ce = q->im ? (KW * C + 3) & ~3 : C, q->KWe = q->im ? 1 : KW;
	q->SWe = q->im ? 1 : SW, q->DWe = q->im ? 1 : DW;
	q->kc = 64;
	while (q->Ce % q->kc)
		q->kc -= 4;
	q->Cq = q->Ce / 4;
	q->Wq = q->im ? OW : ((OW - 1) * SW + (KW - 1) * DW + SW) / SW;
	int SH = p[NPU_CV_SH], DH = p[NPU_CV_DH], g = SH;
	for (int e = DH, t; e; g = e, e = t)	/* g = gcd(SH, DH) */
		t = g % e;
	q->M = SH / g, q->NS = KH < q->M ? KH : q->M;
	int E = (KH - 1) * DH / SH;	/* the band's rows in a slot: nb + E */
	size_t row = (size_t)q->NS * q->Ce * q->SWe * q->Wq;	/* the staged bytes of one row of every slot */
	size_t slack = ((size_t)(16 + (q->KWe - 1) * q->DWe / q->SWe) * 4 + 63) & ~(size_t)63;	/* B's reads past the last plane */
	q->wr = q->bq + (q->im ? ((size_t)OC * KH * q->Ce + 63) & ~(size_t)63 : 0);
	if (q->dm)
		return q->need = q->bq + (size_t)32 * C;
	if (q->wr + (size_t)(1 + E) * row + slack > cap)
		return 0;
	int64_t best = -1;
	q->nb = 1;
	for (int nb = 1; nb <= OH && q->wr + (size_t)(nb + E) * row + slack <= cap; nb++) {
		int64_t tiles = (int64_t)(OH / nb) * ((nb * q->Wq + 15) / 16) + (OH % nb ? (OH % nb * q->Wq + 15) / 16 : 0);
		if (best < 0 || tiles < best || (tiles == best && (OH + nb - 1) / nb < (OH + q->nb - 1) / q->nb))
			best = tiles, q->nb = nb;
	}
	q->Rq = q->nb + E, q->L = q->Rq * q->Wq;
	q->need = q->wr + (size_t)q->Rq * row + slack;
	return q->need;
}

#if !defined(NPU_NO_SIMD) && defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
	defined(__AVX512VNNI__)
#define CN_VNNI 1	/* cn_amx's products by vpdpbusd where the tiles are not there */
#endif
#if !defined(NPU_NO_SIMD) && !defined(RT_AMX) && !defined(CN_VNNI) && \
	(defined(__SSE2__) || (defined(__ARM_NEON) && defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)))
#define CN_GEN 1	/* cn_amx's steps by pmaddwd (SSE2, AVX2) or sdot */
#define CN_GEN_ON 1
#else
#define CN_GEN_ON 0
#endif
#if defined(RT_AMX) || defined(CN_VNNI) || defined(CN_GEN)
#define CN_TILES 1
#if defined(RT_AMX)
#define CN_ON_TILES() cq_amx_ready()
#else
#define CN_ON_TILES() 0
#endif
/* whether cn_amx runs (besides its geometry): tiles granted or VNNI, no
 * weight zero points, int32 biases with room for the sums, clamp bounds
 * that cn_rq_v16 takes */
static int cn_amx_use(const int32_t *p, void *const *a, cn_ageo *q)
{
	const int32_t *wzp = a[5];
	int OC = p[NPU_CV_OC];
	int64_t room = INT32_MAX - (int64_t)32640 * p[NPU_CV_C] * p[NPU_CV_KH] * p[NPU_CV_KW];
	if (!cn_amx_geo(p, q) || p[NPU_CV_ZX] < -128 || p[NPU_CV_ZX] > 127)
		return 0;
#if !defined(CN_GEN)	/* (cn_gen_out requantizes by cq_requant) */
	if (!cn_rq_fits(p))
		return 0;
#endif
	for (int o = 0; o < OC; o++) {
		int64_t b = cq_bias(p, a[2], o);
		if ((wzp && wzp[o]) || b > room || b < -room)
			return 0;
	}
#if defined(CN_VNNI) || defined(CN_GEN)
	return 1;
#else
	return cq_amx_ready();
#endif
}

#if !defined(CN_GEN)

/* 16 rows of 16 dwords transposed (32- and 64-bit unpacks within the
 * 128-bit lanes, then the lanes) */
static inline void cn_tr16d(__m512i *r)
{
	__m512i t[16], u[16];
	for (int i = 0; i < 8; i++)
		t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]), t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
	for (int g = 0; g < 4; g++) {	/* u[4 g + j]: rows 4 g .. 4 g + 3 of column 4 lane + j */
		u[4 * g] = _mm512_unpacklo_epi64(t[4 * g], t[4 * g + 2]);
		u[4 * g + 1] = _mm512_unpackhi_epi64(t[4 * g], t[4 * g + 2]);
		u[4 * g + 2] = _mm512_unpacklo_epi64(t[4 * g + 1], t[4 * g + 3]);
		u[4 * g + 3] = _mm512_unpackhi_epi64(t[4 * g + 1], t[4 * g + 3]);
	}
	for (int j = 0; j < 4; j++) {
		__m512i v0 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0x44), v1 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0x44);
		__m512i v2 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0xee), v3 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0xee);
		r[j] = _mm512_shuffle_i32x4(v0, v1, 0x88), r[4 + j] = _mm512_shuffle_i32x4(v0, v1, 0xdd);
		r[8 + j] = _mm512_shuffle_i32x4(v2, v3, 0x88), r[12 + j] = _mm512_shuffle_i32x4(v2, v3, 0xdd);
	}
}
#endif

/* the sum of K int8 weights (|.| <= 128 K < 2^31) */
static int32_t cn_wsum(const int8_t *w, size_t K)
{
	int64_t s = 0;
	size_t k = 0;
#if defined(__AVX512BW__)	/* sums of x ^ 0x80 (x + 128, unsigned) by psadbw */
	const __m512i f = _mm512_set1_epi8((char)0x80);
	__m512i acc = _mm512_setzero_si512();
	for (; k + 64 <= K; k += 64)
		acc = _mm512_add_epi64(acc, _mm512_sad_epu8(_mm512_xor_si512(_mm512_loadu_si512((const void *)(w + k)), f),
							  _mm512_setzero_si512()));
	s = _mm512_reduce_add_epi64(acc) - 128 * (int64_t)k;
#elif !defined(NPU_NO_SIMD) && defined(__SSE2__)
	const __m128i f = _mm_set1_epi8((char)0x80);
	__m128i acc = _mm_setzero_si128();
	for (; k + 16 <= K; k += 16)
		acc = _mm_add_epi64(acc, _mm_sad_epu8(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(w + k)), f),
						      _mm_setzero_si128()));
	int64_t h[2];
	_mm_storeu_si128((__m128i *)(void *)h, acc);
	s = h[0] + h[1] - 128 * (int64_t)k;
#elif !defined(NPU_NO_SIMD) && defined(__ARM_NEON) && defined(__aarch64__)
	for (; k + 16 <= K; k += 16)
		s += vaddlvq_s8(vld1q_s8(w + k));
#endif
	for (; k < K; k++)
		s += w[k];
	return (int32_t)s;
}

/* bq for the block of 32 output channels from o0: bias - zc sum w (zc:
 * ZX, or ZX + 128 for x staged as x + 128), kept mod 2^32 (the sums are
 * within int32); the weights' rows K bytes apart */
static void cn_amx_bq(const int32_t *p, void *const *a, int32_t *bq, int o0, size_t K, int32_t zc)
{
	for (int o = o0; o < o0 + 32 && o < p[NPU_CV_OC]; o++)
		bq[o] = (int32_t)(uint32_t)(cq_bias(p, a[2], o) - (int64_t)zc * cn_wsum((const int8_t *)a[1] + (size_t)o * K, K));
}

/* the channels of the block after the one from o0 (0: none), whose weights
 * a block's first step prefetches */
static inline int cn_amx_next(int o0, int OC)
{
	return o0 + 32 >= OC ? 0 : OC - o0 - 32 < 32 ? OC - o0 - 32 : 32;
}

/* a cn_amx step: its pixels (q0 of the band's nq, from output row oh0 of
 * image n) and channel blocks (ob[1] < 0: one) */
typedef struct {
	int n, oh0, nq, q0, ob[2];
} cn_astep;

#if !defined(CN_GEN)
/* step s's C tiles, stored in cb, requantized into y: each tile
 * transposed so that a pixel's 16 channels are lanes, with their own
 * bias (bq), mult and shift */
static void cn_amx_out(const int32_t *p, void *const *a, const int32_t *bq, int Wq, int32_t (*cb)[256],
		       const cn_astep *s)
{
	const int32_t *mult = a[3], *shift = a[4];
	int8_t *y = a[6];
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], OC = p[NPU_CV_OC];
	for (int t = 0; t < 4; t++) {
		int o = s->ob[t / 2], qt = s->q0 + 16 * (t % 2);
		if (o < 0 || qt >= s->nq)
			continue;
		__m512i v[16];
		for (int j = 0; j < 16; j++)
			v[j] = _mm512_load_si512((const void *)(cb[t] + 16 * j));
		cn_tr16d(v);
		__m512i bv = _mm512_loadu_si512((const void *)(bq + o));
		cn_rq r;
		cn_rq_set(&r, _mm512_loadu_si512((const void *)(mult + o)), _mm512_loadu_si512((const void *)(shift + o)), p);
		int ol = qt / Wq, ow = qt % Wq;
		for (int c = 0; c < 16 && qt + c < s->nq; c++) {
			if (ow < OW)
				_mm_storeu_si128((__m128i *)(void *)(y + (((size_t)s->n * OH + s->oh0 + ol) * OW + ow) * OC + o),
						 cn_rq_v16(&r, _mm512_add_epi32(v[c], bv)));
			if (++ow == Wq)
				ow = 0, ol++;
		}
	}
}

/* a step's C tiles (cb: pixel tile t % 2 from pixel pt[t % 2], (size_t)
 * -1: none; channel block po[t / 2], -1: none) requantized into y */
static void cn_amx_1x1_out(const int32_t *p, void *const *a, const int32_t *bq, int32_t (*cb)[256], const size_t pt[2],
			   const int po[2])
{
	const int32_t *mult = a[3], *shift = a[4];
	int8_t *y = a[6];
	int OC = p[NPU_CV_OC];
	for (int t = 0; t < 4; t++) {
		int o = po[t / 2];
		if (o < 0 || pt[t % 2] == (size_t)-1)
			continue;
		__m512i bv = _mm512_loadu_si512((const void *)(bq + o));
		cn_rq r;
		cn_rq_set(&r, _mm512_loadu_si512((const void *)(mult + o)), _mm512_loadu_si512((const void *)(shift + o)), p);
		for (int i = 0; i < 16; i++)
			_mm_storeu_si128((__m128i *)(void *)(y + (pt[t % 2] + i) * OC + o),
					 cn_rq_v16(&r, _mm512_add_epi32(_mm512_load_si512((const void *)(cb[t] + 16 * i)), bv)));
	}
}

/* the direct mode's B: the weights of the channel blocks ob[0] and ob[1]
 * (-1: none) regrouped into quads of input channels x 16 channels x 4
 * bytes, a block's 16 C bytes apart, each byte xor flip (0x80: w + 128) */
static void cn_amx_regroup(const int8_t *w, int C, const int ob[2], int8_t *wt, __m512i flip)
{
	for (int b = 0; b < 2 && ob[b] >= 0; b++)
		for (int c0 = 0; c0 < C; c0 += 64) {
			int nr = (C - c0 < 64 ? C - c0 : 64) / 4;
			__mmask16 m = (__mmask16)(nr == 16 ? 0xffff : (1u << nr) - 1);
			__m512i v[16];
			for (int j = 0; j < 16; j++)
				v[j] = _mm512_maskz_loadu_epi32(m, w + (size_t)(ob[b] + j) * C + c0);
			cn_tr16d(v);
			for (int r = 0; r < nr; r++)
				_mm512_storeu_si512((void *)(wt + (size_t)b * 16 * C + (size_t)(c0 / 4 + r) * 64),
						    _mm512_xor_si512(v[r], flip));
		}
}
#endif

#if defined(RT_AMX)
/* cn_amx's direct mode: C (16 pixels x 16 output channels, int32) += A
 * (16 pixels x kc bytes: the input's channel rows as they are, row stride
 * C; the N images' pixels one after the other, as a 1x1 stride-1
 * convolution without padding maps input pixel i to output pixel i) times
 * B (kc / 4 quads x 16 channels x 4 bytes: a pair of blocks' weights
 * regrouped by a dword transpose, once per call), 2 pixel tiles x 2
 * channel blocks per step. C's rows are pixels' channel-last outputs,
 * requantized in lanes with no transpose while the next step's tiles
 * compute. The last pixel tile ends at the last pixel (overlapping the
 * one before it: the same values written twice), as the last channel
 * block does. */
static void cn_amx_1x1(const int32_t *p, void *const *a, int kc, int32_t *bq, int8_t *wt)
{
	const int8_t *x = a[0], *w = a[1];
	int C = p[NPU_CV_C], OC = p[NPU_CV_OC];
	size_t P = (size_t)p[NPU_CV_N] * p[NPU_CV_OH] * p[NPU_CV_OW], bs = (size_t)16 * C;	/* a block's regrouped bytes */
	int32_t cb[4][256] __attribute__((aligned(64)));
	size_t pt[2] = {0, 0};	/* the step whose tiles are in cb: its pixel tiles and channel blocks */
	int po[2] = {-1, -1}, pend = 0;
	for (int o0 = 0; o0 < OC; o0 += 32) {
		int ob[2] = {o0 + 16 <= OC ? o0 : OC - 16, o0 + 16 < OC ? (o0 + 32 <= OC ? o0 + 16 : OC - 16) : -1};
		cn_amx_bq(p, a, bq, o0, (size_t)C, p[NPU_CV_ZX]);
		cn_amx_regroup(w, C, ob, wt, _mm512_setzero_si512());
		/* the first step fetches the next pair's weights into L2 */
		int npf = cn_amx_next(o0, OC);
		const int8_t *pf = npf ? w + (size_t)(o0 + 32) * C : w;
		for (size_t p0 = 0; p0 < P; p0 += 32, npf = 0) {
			size_t t0 = p0 + 16 <= P ? p0 : P - 16, t1 = p0 + 32 <= P ? p0 + 16 : P - 16;
			int two = p0 + 16 < P;
			_tile_zero(0);
			_tile_zero(1);
			_tile_zero(2);
			_tile_zero(3);
			for (int c0 = 0; c0 < C; c0 += kc) {
				_tile_loadd(4, x + t0 * C + c0, C);
				_tile_loadd(6, wt + (size_t)c0 / 4 * 64, 64);
				_tile_dpbssd(0, 4, 6);
				if (two) {
					_tile_loadd(5, x + t1 * C + c0, C);
					_tile_dpbssd(1, 5, 6);
				}
				if (ob[1] >= 0) {
					_tile_loadd(7, wt + bs + (size_t)c0 / 4 * 64, 64);
					_tile_dpbssd(2, 4, 7);
					if (two)
						_tile_dpbssd(3, 5, 7);
				}
				for (int r = 0; r < npf; r++)
					_mm_prefetch((const char *)(pf + (size_t)r * C + c0), _MM_HINT_T1);
			}
			if (pend)	/* the step before */
				cn_amx_1x1_out(p, a, bq, cb, pt, po);
			_tile_stored(0, cb[0], 64);
			_tile_stored(1, cb[1], 64);
			_tile_stored(2, cb[2], 64);
			_tile_stored(3, cb[3], 64);
			pt[0] = t0, pt[1] = two ? t1 : (size_t)-1, po[0] = ob[0], po[1] = ob[1], pend = 1;
		}
	}
	if (pend)
		cn_amx_1x1_out(p, a, bq, cb, pt, po);
}
#endif

#if defined(RT_AMX)
/* the banded mode's step on tiles: C 0-3 = (ob[0] | ob[1]) x (pixel tile
 * q0 | q0 + 16), A the weights' rows (Ke apart), B the band's staged
 * quads (qs apart) */
static void cn_amx_band(const int32_t *p, const cn_ageo *q, const int8_t *w, const uint8_t *st, const int ob[2],
			int o0, int q0, int two)
{
	int KH = p[NPU_CV_KH], SH = p[NPU_CV_SH], DH = p[NPU_CV_DH], OC = p[NPU_CV_OC], kc = q->kc, Ce = q->Ce;
	int KWe = q->KWe, SWe = q->SWe, DWe = q->DWe, M = q->M, NS = q->NS, L = q->L, Wq = q->Wq;
	size_t Ke = (size_t)KH * KWe * Ce, qs = (size_t)SWe * NS * L * 4;	/* A's and B's row strides */
	const int8_t *a0 = w + (size_t)ob[0] * Ke, *a1 = w + (size_t)(ob[1] < 0 ? 0 : ob[1]) * Ke;
	/* the first step of a block fetches the next block's weights into L2
	 * beside its products: their sums and tiles then find them there */
	int npf = q0 > 0 ? 0 : cn_amx_next(o0, OC);
	const int8_t *pf = npf ? w + (size_t)(o0 + 32) * Ke : w;
	_tile_zero(0);
	_tile_zero(1);
	_tile_zero(2);
	_tile_zero(3);
	for (int kh = 0; kh < KH; kh++)
		for (int kw = 0; kw < KWe; kw++) {
			int ph = kw * DWe % SWe, kwo = kw * DWe / SWe;
			size_t ao = (size_t)(kh * KWe + kw) * Ce;
			const uint8_t *b0 = st + (((size_t)ph * NS + kh % M) * L + (size_t)(kh * DH / SH) * Wq + q0 + kwo) * 4;
			for (int c0 = 0; c0 < Ce; c0 += kc, ao += kc, b0 += (size_t)kc / 4 * qs) {
				_tile_loadd(4, a0 + ao, Ke);
				_tile_loadd(6, b0, qs);
				_tile_dpbssd(0, 4, 6);
				if (two) {
					_tile_loadd(7, b0 + 64, qs);
					_tile_dpbssd(1, 4, 7);
				}
				if (ob[1] >= 0) {
					_tile_loadd(5, a1 + ao, Ke);
					_tile_dpbssd(2, 5, 6);
					if (two)
						_tile_dpbssd(3, 5, 7);
				}
				for (int r = 0; r < npf; r++)
					_mm_prefetch((const char *)(pf + (size_t)r * Ke + ao), _MM_HINT_T1);
			}
		}
}
#endif

#if defined(CN_VNNI)
/* Where there are no tiles (a CPU without AMX, or Linux refusing the tile
 * state), cn_amx runs its products by vpdpbusd (unsigned by signed bytes)
 * on the same operands: the banded mode's staged quads of x flipped to x
 * ^ 0x80 = x + 128 (so bq takes (ZX + 128) sum w), the direct mode's
 * regrouped weights flipped to w + 128 (so each pixel's C row loses 128
 * sum x). One product: 8 output channels (or pixels) as 8 accumulators of
 * 16 lanes for each of up to 2 pixel tiles (channel blocks), a quad's 4
 * bytes broadcast from the other operand; C as the tiles would store it
 * (cb), for cn_amx_out and cn_amx_1x1_out. */
static inline void cn_vnni8(__m512i *c0, __m512i *c1, const uint8_t *b0, const uint8_t *b1, size_t bs,
			    const int8_t *const *ar, int nq, int two)
{
	/* the 16 accumulators named, so that they stay in registers */
	__m512i a0 = c0[0], a1 = c0[1], a2 = c0[2], a3 = c0[3], a4 = c0[4], a5 = c0[5], a6 = c0[6], a7 = c0[7];
	__m512i e0 = c1[0], e1 = c1[1], e2 = c1[2], e3 = c1[3], e4 = c1[4], e5 = c1[5], e6 = c1[6], e7 = c1[7];
	for (int q = 0; q < nq; q++) {
		__m512i v0 = _mm512_loadu_si512((const void *)(b0 + (size_t)q * bs));
		__m512i v1 = two ? _mm512_loadu_si512((const void *)(b1 + (size_t)q * bs)) : v0;
#define CN_V8(o, a, e) \
	do { \
		int32_t d; \
		memcpy(&d, ar[o] + 4 * q, 4); \
		__m512i bc = _mm512_set1_epi32(d); \
		a = _mm512_dpbusd_epi32(a, v0, bc); \
		if (two) \
			e = _mm512_dpbusd_epi32(e, v1, bc); \
	} while (0)
		CN_V8(0, a0, e0);
		CN_V8(1, a1, e1);
		CN_V8(2, a2, e2);
		CN_V8(3, a3, e3);
		CN_V8(4, a4, e4);
		CN_V8(5, a5, e5);
		CN_V8(6, a6, e6);
		CN_V8(7, a7, e7);
#undef CN_V8
	}
	c0[0] = a0, c0[1] = a1, c0[2] = a2, c0[3] = a3, c0[4] = a4, c0[5] = a5, c0[6] = a6, c0[7] = a7;
	c1[0] = e0, c1[1] = e1, c1[2] = e2, c1[3] = e3, c1[4] = e4, c1[5] = e5, c1[6] = e6, c1[7] = e7;
}

/* the banded mode's step: C tiles (ob[0] | ob[1]) x (pixel tile q0 | q0
 * + 16) from the weights' rows (Ke apart) and the band's staged quads */
static void cn_vnni_band(const int32_t *p, const cn_ageo *g, const int8_t *w, const uint8_t *st, const int ob[2],
			 int q0, int two, int32_t (*cb)[256])
{
	int KH = p[NPU_CV_KH], SH = p[NPU_CV_SH], DH = p[NPU_CV_DH], Ce = g->Ce, KWe = g->KWe, SWe = g->SWe, DWe = g->DWe;
	size_t Ke = (size_t)KH * KWe * Ce, qs = (size_t)SWe * g->NS * g->L * 4;
	for (int t = 0; t < 2 && ob[t] >= 0; t++)
		for (int h = 0; h < 16; h += 8) {
			__m512i c0[8], c1[8];
			for (int o = 0; o < 8; o++)
				c0[o] = c1[o] = _mm512_setzero_si512();
			for (int kh = 0; kh < KH; kh++)
				for (int kw = 0; kw < KWe; kw++) {
					int ph = kw * DWe % SWe, kwo = kw * DWe / SWe;
					const uint8_t *b0 = st + (((size_t)ph * g->NS + kh % g->M) * g->L + (size_t)(kh * DH / SH) * g->Wq +
								  q0 + kwo) * 4;
					const int8_t *ar[8];
					for (int o = 0; o < 8; o++)
						ar[o] = w + (size_t)(ob[t] + h + o) * Ke + (size_t)(kh * KWe + kw) * Ce;
					if (two)
						cn_vnni8(c0, c1, b0, b0 + 64, qs, ar, g->Cq, 1);
					else
						cn_vnni8(c0, c1, b0, b0, qs, ar, g->Cq, 0);
				}
			for (int o = 0; o < 8; o++) {
				_mm512_store_si512((void *)(cb[2 * t] + 16 * (h + o)), c0[o]);
				_mm512_store_si512((void *)(cb[2 * t + 1] + 16 * (h + o)), c1[o]);
			}
		}
}

/* the direct mode (as cn_amx_1x1, one pixel tile a step) */
static void cn_vnni_1x1(const int32_t *p, void *const *a, int32_t *bq, int8_t *wt)
{
	const int8_t *x = a[0], *w = a[1];
	int C = p[NPU_CV_C], OC = p[NPU_CV_OC];
	size_t P = (size_t)p[NPU_CV_N] * p[NPU_CV_OH] * p[NPU_CV_OW], bs = (size_t)16 * C;
	const __m512i one = _mm512_set1_epi8(1);
	int32_t cb[4][256] __attribute__((aligned(64)));
	for (int o0 = 0; o0 < OC; o0 += 32) {
		int ob[2] = {o0 + 16 <= OC ? o0 : OC - 16, o0 + 16 < OC ? (o0 + 32 <= OC ? o0 + 16 : OC - 16) : -1};
		cn_amx_bq(p, a, bq, o0, (size_t)C, p[NPU_CV_ZX]);
		cn_amx_regroup(w, C, ob, wt, _mm512_set1_epi8((char)0x80));	/* w + 128 */
		for (size_t p0 = 0; p0 < P; p0 += 16) {
			size_t t0 = p0 + 16 <= P ? p0 : P - 16;
			const int8_t *xr = x + t0 * C;
			for (int h = 0; h < 16; h += 8) {
				__m512i c0[8], c1[8];
				const int8_t *ar[8];
				for (int i = 0; i < 8; i++) {	/* c = -128 sum x: the flip's share */
					__m512i s = _mm512_setzero_si512();
					ar[i] = xr + (size_t)(h + i) * C;
					for (int k = 0; k < C; k += 64) {
						__mmask64 km = C - k >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (C - k)) - 1;
						s = _mm512_dpbusd_epi32(s, one, _mm512_maskz_loadu_epi8(km, ar[i] + k));
					}
					c0[i] = c1[i] = _mm512_set1_epi32((int32_t)((uint32_t)_mm512_reduce_add_epi32(s) * 0xffffff80u));
				}
				if (ob[1] >= 0)	/* (constant arguments: cn_vnni8's branches go) */
					cn_vnni8(c0, c1, (const uint8_t *)wt, (const uint8_t *)wt + bs, 64, ar, C / 4, 1);
				else
					cn_vnni8(c0, c1, (const uint8_t *)wt, (const uint8_t *)wt, 64, ar, C / 4, 0);
				for (int i = 0; i < 8; i++) {
					_mm512_store_si512((void *)(cb[0] + 16 * (h + i)), c0[i]);
					_mm512_store_si512((void *)(cb[2] + 16 * (h + i)), c1[i]);
				}
			}
			const size_t pt[2] = {t0, (size_t)-1};
			cn_amx_1x1_out(p, a, bq, cb, pt, ob);
		}
	}
}
#endif

#if defined(CN_GEN)
/* x86 without AVX-512 VNNI (SSE2, AVX2: what cc -O2 targets there) and
 * aarch64 with the dot-product extension: cn_amx's bands staged as they are (quads of x, not flipped: bq takes ZX
 * sum w) by plain dword moves (cn_stage), their products by pmaddwd
 * on the quads sign-extended to int16 against a weight quad widened and
 * broadcast (cn_gen_dots: 2 output channels x 16 pixels a pass, each
 * pixel's two pair sums kept apart in lanes until the taps are done; on
 * aarch64 sdot on the quads as they are, 4 channels a pass), and
 * each C tile requantized channel by channel (cq_requant's vector rows)
 * and transposed into the pixels' channel-last rows (cn_gen_out). The
 * direct mode stages a tile of 16 pixels' channels as quads (the 32 C
 * bytes after bq hold it) and runs every channel block on it. */
static void cn_stage(const uint8_t *const src[16], int np, int Cq, int kb, int32_t ZX, uint8_t *d, size_t qs, int flip)
{
	(void)kb, (void)flip;	/* (the callers' bytes past kb are ZX or weigh 0; no flip here) */
	uint32_t zq = 0x01010101u * (uint8_t)ZX;
	for (int r = 0; r < Cq; r++, d += qs)
		for (int i = 0; i < np; i++) {
			uint32_t v = zq;
			if (src[i])
				memcpy(&v, src[i] + 4 * r, 4);
			memcpy(d + 4 * i, &v, 4);
		}
}

#if defined(__AVX2__)
/* the int8 quad at q widened to int16 in every 64-bit lane */
static inline __m256i cn_bquad(const void *q)
{
	int32_t d;
	memcpy(&d, q, 4);
	return _mm256_broadcastq_epi64(_mm_cvtepi8_epi16(_mm_cvtsi32_si128(d)));
}

/* u's and v's pair sums added: [u0 + u1, u2 + u3, v0 + v1, v2 + v3, u4 +
 * u5, ...] in order (hadd works within the 128-bit halves) */
static inline __m256i cn_hadd(__m256i u, __m256i v)
{
	return _mm256_permute4x64_epi64(_mm256_hadd_epi32(u, v), 0xd8);
}

/* o0 += m * v0, o1 += m * v1 by pmaddwd */
#define CN_MADD2(m, v0, v1, o0, o1) \
	do { \
		__m256i m_ = (m); \
		o0 = _mm256_add_epi32(o0, _mm256_madd_epi16(m_, v0)); \
		o1 = _mm256_add_epi32(o1, _mm256_madd_epi16(m_, v1)); \
	} while (0)
#endif

/* c[16 j + i] (+= unless first) sum over taps t < nt and quads q < nq of
 * x's quad at bt[t] + q bs + 4 i by w's at w + j Ke + t Ce + 4 q: 16
 * channels j of 16 pixels i */
static void cn_gen_dots(const uint8_t *const *bt, int nt, int nq, size_t bs, const int8_t *w, size_t Ke, int Ce,
			int first, int32_t *c)
{
#if defined(__ARM_NEON)
	/* sdot: 4 channels x 16 pixels in 16 named registers, x's quads as
	 * they are against a channel's weight quad in every lane */
	for (int j = 0; j < 16; j += 4) {
#define CN_NA(k) int32x4_t a##k##0 = vdupq_n_s32(0), a##k##1 = a##k##0, a##k##2 = a##k##0, a##k##3 = a##k##0
		CN_NA(0);
		CN_NA(1);
		CN_NA(2);
		CN_NA(3);
#undef CN_NA
		for (int t = 0; t < nt; t++) {
			const uint8_t *b = bt[t];
			const int8_t *u = w + (size_t)j * Ke + (size_t)t * Ce;
			for (int q = 0; q < nq; q++, b += bs) {
				int8x16_t x0 = vld1q_s8((const int8_t *)b), x1 = vld1q_s8((const int8_t *)b + 16);
				int8x16_t x2 = vld1q_s8((const int8_t *)b + 32), x3 = vld1q_s8((const int8_t *)b + 48);
#define CN_ND(k) \
	do { \
		int32_t d; \
		memcpy(&d, u + (size_t)(k) * Ke + 4 * q, 4); \
		int8x16_t v = vreinterpretq_s8_s32(vdupq_n_s32(d)); \
		a##k##0 = vdotq_s32(a##k##0, x0, v), a##k##1 = vdotq_s32(a##k##1, x1, v); \
		a##k##2 = vdotq_s32(a##k##2, x2, v), a##k##3 = vdotq_s32(a##k##3, x3, v); \
	} while (0)
				CN_ND(0);
				CN_ND(1);
				CN_ND(2);
				CN_ND(3);
#undef CN_ND
			}
		}
#define CN_NS(k, i) vst1q_s32(c + 16 * (j + k) + 4 * i, first ? a##k##i : vaddq_s32(a##k##i, vld1q_s32(c + 16 * (j + k) + 4 * i)))
#define CN_NS4(k) CN_NS(k, 0); CN_NS(k, 1); CN_NS(k, 2); CN_NS(k, 3)
		CN_NS4(0);
		CN_NS4(1);
		CN_NS4(2);
		CN_NS4(3);
#undef CN_NS4
#undef CN_NS
	}
#else
	for (int j = 0; j < 16; j += 2) {
		const int8_t *w0 = w + (size_t)j * Ke, *w1 = w0 + Ke;
		int32_t *c0 = c + 16 * j, *c1 = c0 + 16;
#if defined(__AVX2__)
		/* lanes: pixel 4 k + l's pair sums at 2 l, 2 l + 1 of register k
		 * (cvtepi8_epi16 keeps a pixel's quad in one 128-bit half) */
		__m256i s00 = _mm256_setzero_si256(), s01 = s00, s02 = s00, s03 = s00;
		__m256i s10 = s00, s11 = s00, s12 = s00, s13 = s00;
		for (int t = 0; t < nt; t++) {
			const uint8_t *b = bt[t];
			const int8_t *u0 = w0 + (size_t)t * Ce, *u1 = w1 + (size_t)t * Ce;
			for (int q = 0; q < nq; q++, b += bs) {
				__m256i v0 = cn_bquad(u0 + 4 * q), v1 = cn_bquad(u1 + 4 * q);
#define CN_GX(k) _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(b + 16 * (k))))
				CN_MADD2(CN_GX(0), v0, v1, s00, s10);
				CN_MADD2(CN_GX(1), v0, v1, s01, s11);
				CN_MADD2(CN_GX(2), v0, v1, s02, s12);
				CN_MADD2(CN_GX(3), v0, v1, s03, s13);
#undef CN_GX
			}
		}
		__m256i r[4] = {cn_hadd(s00, s01), cn_hadd(s02, s03), cn_hadd(s10, s11), cn_hadd(s12, s13)};
		for (int k = 0; k < 4; k++) {
			int32_t *o = (k < 2 ? c0 : c1) + 8 * (k & 1);
			if (!first)
				r[k] = _mm256_add_epi32(r[k], _mm256_loadu_si256((const __m256i *)(const void *)o));
			_mm256_storeu_si256((__m256i *)(void *)o, r[k]);
		}
#else
		/* 8 pixels a pass: pixel 2 k + l's pair sums at 2 l, 2 l + 1 */
		for (int h = 0; h < 16; h += 8) {
			__m128i s00 = _mm_setzero_si128(), s01 = s00, s02 = s00, s03 = s00;
			__m128i s10 = s00, s11 = s00, s12 = s00, s13 = s00;
			for (int t = 0; t < nt; t++) {
				const uint8_t *b = bt[t] + 4 * h;
				const int8_t *u0 = w0 + (size_t)t * Ce, *u1 = w1 + (size_t)t * Ce;
				for (int q = 0; q < nq; q++, b += bs) {
					int32_t d0, d1;
					memcpy(&d0, u0 + 4 * q, 4), memcpy(&d1, u1 + 4 * q, 4);
					__m128i v0 = _mm_cvtsi32_si128(d0), v1 = _mm_cvtsi32_si128(d1);
					v0 = _mm_srai_epi16(_mm_unpacklo_epi8(v0, v0), 8), v1 = _mm_srai_epi16(_mm_unpacklo_epi8(v1, v1), 8);
					v0 = _mm_unpacklo_epi64(v0, v0), v1 = _mm_unpacklo_epi64(v1, v1);
					__m128i xa = _mm_loadu_si128((const __m128i *)(const void *)b);
					__m128i xb = _mm_loadu_si128((const __m128i *)(const void *)(b + 16));
					__m128i x0 = _mm_srai_epi16(_mm_unpacklo_epi8(xa, xa), 8), x1 = _mm_srai_epi16(_mm_unpackhi_epi8(xa, xa), 8);
					__m128i x2 = _mm_srai_epi16(_mm_unpacklo_epi8(xb, xb), 8), x3 = _mm_srai_epi16(_mm_unpackhi_epi8(xb, xb), 8);
					s00 = _mm_add_epi32(s00, _mm_madd_epi16(x0, v0)), s10 = _mm_add_epi32(s10, _mm_madd_epi16(x0, v1));
					s01 = _mm_add_epi32(s01, _mm_madd_epi16(x1, v0)), s11 = _mm_add_epi32(s11, _mm_madd_epi16(x1, v1));
					s02 = _mm_add_epi32(s02, _mm_madd_epi16(x2, v0)), s12 = _mm_add_epi32(s12, _mm_madd_epi16(x2, v1));
					s03 = _mm_add_epi32(s03, _mm_madd_epi16(x3, v0)), s13 = _mm_add_epi32(s13, _mm_madd_epi16(x3, v1));
				}
			}
#define CN_GP(a, b) \
	_mm_add_epi32(_mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b), 0x88)), \
		      _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b), 0xdd)))
			__m128i r[4] = {CN_GP(s00, s01), CN_GP(s02, s03), CN_GP(s10, s11), CN_GP(s12, s13)};
#undef CN_GP
			for (int k = 0; k < 4; k++) {
				int32_t *o = (k < 2 ? c0 : c1) + h + 4 * (k & 1);
				if (!first)
					r[k] = _mm_add_epi32(r[k], _mm_loadu_si128((const __m128i *)(const void *)o));
				_mm_storeu_si128((__m128i *)(void *)o, r[k]);
			}
		}
#endif
	}
#endif
}

/* a C tile (c: 16 channels' rows of 16 pixels; bq: their bias - ZX sum
 * w from channel o) requantized into the pixels' rows yp[i] (NULL: a
 * pixel not written): with lq (the block's lanes) transposes (AVX2: 8 x
 * 8, SSE2: 4 x 4) put each pixel's channels in lanes for cn_lq16; else
 * channel by channel through cq_requant, then transposed byte by byte */
#if defined(CN_LQ)
static inline void cn_tr(cn_v *r)
{
#if defined(__AVX2__)
	__m256i t[8], u[8];
	for (int i = 0; i < 4; i++)
		t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]), t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
	for (int g = 0; g < 2; g++) {	/* u[4 g + k]: rows 4 g .. 4 g + 3 of columns k | k + 4 */
		u[4 * g] = _mm256_unpacklo_epi64(t[4 * g], t[4 * g + 2]);
		u[4 * g + 1] = _mm256_unpackhi_epi64(t[4 * g], t[4 * g + 2]);
		u[4 * g + 2] = _mm256_unpacklo_epi64(t[4 * g + 1], t[4 * g + 3]);
		u[4 * g + 3] = _mm256_unpackhi_epi64(t[4 * g + 1], t[4 * g + 3]);
	}
	for (int k = 0; k < 4; k++)
		r[k] = _mm256_permute2x128_si256(u[k], u[4 + k], 0x20), r[k + 4] = _mm256_permute2x128_si256(u[k], u[4 + k], 0x31);
#else
	__m128i t0 = _mm_unpacklo_epi32(r[0], r[1]), t1 = _mm_unpackhi_epi32(r[0], r[1]);
	__m128i t2 = _mm_unpacklo_epi32(r[2], r[3]), t3 = _mm_unpackhi_epi32(r[2], r[3]);
	r[0] = _mm_unpacklo_epi64(t0, t2), r[1] = _mm_unpackhi_epi64(t0, t2);
	r[2] = _mm_unpacklo_epi64(t1, t3), r[3] = _mm_unpackhi_epi64(t1, t3);
#endif
}
#else
#define CN_LQB 1
typedef struct {
	int none;
} cn_lq;	/* (no lanes) */
#endif

static void cn_gen_out(const int32_t *p, void *const *a, const int32_t *bq, int o, const int32_t *c, int8_t *const yp[16],
		       const cn_lq *lq)
{
	const int32_t *mult = a[3], *shift = a[4];
#if defined(CN_LQ)
	if (lq) {
		for (int g = 0; g < 16; g += CN_LQ) {	/* pixels g .. g + CN_LQ - 1 */
			cn_v r[CN_LQB][CN_LQ];	/* r[h][i]: pixel g + i's channels CN_LQ h .. */
			for (int h = 0; h < CN_LQB; h++) {
				for (int j = 0; j < CN_LQ; j++)
					memcpy(&r[h][j], c + 16 * (CN_LQ * h + j) + g, sizeof r[h][j]);
				cn_tr(r[h]);
			}
			for (int i = 0; i < CN_LQ; i++)
				if (yp[g + i]) {
					cn_v v[CN_LQB];
					for (int h = 0; h < CN_LQB; h++)
						v[h] = r[h][i];
					cn_lq16(lq, v, yp[g + i] + o);
				}
		}
		return;
	}
#else
	(void)lq;
#endif
	int8_t t[16][16];
	for (int j = 0; j < 16; j++)
		cq_requant(t[j], NPU_T_I8, 0, c + 16 * j, NULL, 0, 16, 1, 0, bq[o + j], mult[o + j], shift[o + j],
			   p[NPU_CV_ZY], p[NPU_CV_LO], p[NPU_CV_HI]);
	for (int i = 0; i < 16; i++)
		if (yp[i])
			for (int j = 0; j < 16; j++)
				yp[i][o + j] = t[j][i];
}

/* the block from channel o's lanes for cn_gen_out (NULL: none, the rows) */
static const cn_lq *cn_gen_lq(const int32_t *p, void *const *a, const int32_t *bq, int o, cn_lq *lq)
{
#if defined(CN_LQ)
	const int32_t *mult = a[3], *shift = a[4];
	cn_uq c[16];
	for (int j = 0; j < 16; j++)	/* (bq: int32; its bound is cn_amx_use's) */
		if (!cn_uq_set(&c[j], p, bq[o + j], mult[o + j], shift[o + j], (int64_t)1 << 32))
			return NULL;
	cn_lq16_set(lq, c);
	return lq;
#else
	(void)p, (void)a, (void)bq, (void)o, (void)lq;
#endif
	return NULL;
}

/* cn_amx's direct mode on the tiles of 16 pixels (the last one ending at
 * the last pixel), each staged as quads in st once, for the blocks of 16
 * output channels from o0 below o1: products by cn_gen_dots, cn_gen_out */
static void cn_gen_tiles(const int32_t *p, void *const *a, const int32_t *bq, uint8_t *st, int o0, int o1)
{
	const int8_t *x = a[0], *w = a[1];
	int8_t *y = a[6];
	int C = p[NPU_CV_C], OC = p[NPU_CV_OC];
	size_t P = (size_t)p[NPU_CV_N] * p[NPU_CV_OH] * p[NPU_CV_OW];
	int32_t cb[256];
	for (size_t p0 = 0; p0 < P; p0 += 16) {
		size_t t0 = p0 + 16 <= P ? p0 : P - 16;
		const uint8_t *src[16];
		int8_t *yp[16];
		for (int i = 0; i < 16; i++)
			src[i] = (const uint8_t *)x + (t0 + i) * C, yp[i] = y + (t0 + i) * OC;
		cn_stage(src, 16, C / 4, C, 0, st, 64, 0);
		const uint8_t *bt[1] = {st};
		for (int o = o0; o < o1; o += 16) {
			int ob = o + 16 <= OC ? o : OC - 16;
			cn_gen_dots(bt, 1, C / 4, 64, w + (size_t)ob * C, (size_t)C, C, 1, cb);
			cn_gen_out(p, a, bq, ob, cb, yp, NULL);
		}
	}
}

/* cn_amx's direct mode. With AVX2 a block of 16 output channels
 * at a time, the product turned around: the block's weights widened to
 * int16 once ([C / 4][16 channels][4] in the 32 C bytes after bq), each
 * pixel's quad widened and broadcast against them, 2 pixels x 16
 * channels in registers, the channels' pair sums added (hadd) into lanes
 * and requantized there (cn_lq16): each pixel's 16 bytes stored whole.
 * Otherwise (or where cn_lq_set refuses the block) cn_gen_tiles. */
static void cn_gen_1x1(const int32_t *p, void *const *a, int32_t *bq, uint8_t *st)
{
	int C = p[NPU_CV_C], OC = p[NPU_CV_OC];
	for (int o0 = 0; o0 < OC; o0 += 32)
		cn_amx_bq(p, a, bq, o0, (size_t)C, p[NPU_CV_ZX]);
#if defined(CN_LQ) && defined(__AVX2__)
	const int8_t *x = a[0], *w = a[1];
	int8_t *y = a[6];
	size_t P = (size_t)p[NPU_CV_N] * p[NPU_CV_OH] * p[NPU_CV_OW];
	for (int o = 0; o < OC; o += 16) {
		int ob = o + 16 <= OC ? o : OC - 16;
		cn_lq lq[CN_LQB];
		if (!cn_gen_lq(p, a, bq, ob, lq)) {
			cn_gen_tiles(p, a, bq, st, o, o + 16);
			continue;
		}
		int16_t *wt = (int16_t *)(void *)st;
		for (int j = 0; j < 16; j++)
			for (int k = 0; k < C; k++)
				wt[k / 4 * 64 + j * 4 + k % 4] = w[(size_t)(ob + j) * C + k];
		for (size_t p0 = 0; p0 < P; p0 += 2) {
			size_t t0 = p0 + 2 <= P ? p0 : P - 2;
			const int8_t *x0 = x + t0 * C, *x1 = x0 + C;
			const int16_t *wq = wt;
			__m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, e0 = a0, e1 = a0, e2 = a0, e3 = a0;
			for (int k = 0; k < C; k += 4, wq += 64) {
				__m256i v0 = cn_bquad(x0 + k), v1 = cn_bquad(x1 + k);
#define CN_GW(r) _mm256_loadu_si256((const __m256i *)(const void *)(wq + 16 * (r)))
				CN_MADD2(CN_GW(0), v0, v1, a0, e0);
				CN_MADD2(CN_GW(1), v0, v1, a1, e1);
				CN_MADD2(CN_GW(2), v0, v1, a2, e2);
				CN_MADD2(CN_GW(3), v0, v1, a3, e3);
#undef CN_GW
			}
			cn_v r0[2] = {cn_hadd(a0, a1), cn_hadd(a2, a3)}, r1[2] = {cn_hadd(e0, e1), cn_hadd(e2, e3)};
			cn_lq16(lq, r0, y + t0 * OC + ob);
			cn_lq16(lq, r1, y + (t0 + 1) * OC + ob);
		}
	}
#else
	cn_gen_tiles(p, a, bq, st, 0, OC);
#endif
}

/* the band's pixel tile from q0 (of nq) for channel block ob: its taps'
 * quads in the staged planes, in chunks of CN_GEN_TAPS */
#define CN_GEN_TAPS 64
static void cn_gen_band(const int32_t *p, const cn_ageo *g, void *const *a, const int8_t *w, const uint8_t *st,
			const int32_t *bq, int ob, const cn_lq *lq, int n, int oh0, int nq, int q0)
{
	int KH = p[NPU_CV_KH], SH = p[NPU_CV_SH], DH = p[NPU_CV_DH], OH = p[NPU_CV_OH], OW = p[NPU_CV_OW];
	int OC = p[NPU_CV_OC], KWe = g->KWe, SWe = g->SWe, DWe = g->DWe, Wq = g->Wq, nt = KH * KWe, t = 0;
	size_t Ke = (size_t)nt * g->Ce, qs = (size_t)SWe * g->NS * g->L * 4;
	int32_t cb[256];
	const uint8_t *bt[CN_GEN_TAPS];
	for (int t0 = 0; t0 < nt; t0 += CN_GEN_TAPS) {
		int m = nt - t0 < CN_GEN_TAPS ? nt - t0 : CN_GEN_TAPS;
		for (int i = 0; i < m; i++, t++) {
			int kh = t / KWe, kw = t % KWe, ph = kw * DWe % SWe, kwo = kw * DWe / SWe;
			bt[i] = st + (((size_t)ph * g->NS + kh % g->M) * g->L + (size_t)(kh * DH / SH) * Wq + q0 + kwo) * 4;
		}
		cn_gen_dots(bt, m, g->Cq, qs, w + (size_t)ob * Ke + (size_t)t0 * g->Ce, Ke, g->Ce, t0 == 0, cb);
	}
	int8_t *yp[16];
	for (int i = 0, ol = q0 / Wq, ow = q0 % Wq; i < 16; i++) {
		yp[i] = q0 + i < nq && ow < OW ? (int8_t *)a[6] + (((size_t)n * OH + oh0 + ol) * OW + ow) * OC : NULL;
		if (++ow == Wq)
			ow = 0, ol++;
	}
	cn_gen_out(p, a, bq, ob, cb, yp, lq);
}
#endif

#if !defined(CN_GEN)
/* np (<= 16) pixels' Cq quads (src[i]: the pixel's bytes, the first kb of
 * them, ZX past them; NULL: all ZX) to d + 4 i + r qs, each byte xor
 * flip: a transpose of dwords by 16 quads, masked at the ends */
static void cn_stage(const uint8_t *const src[16], int np, int Cq, int kb, int32_t ZX, uint8_t *d, size_t qs, int flip)
{
	const __m512i f = _mm512_set1_epi8((char)flip), zx = _mm512_set1_epi8((char)ZX);
	__mmask16 pm = (__mmask16)((1u << np) - 1);
	for (int r = 0; r < Cq; r += 16) {
		int nr = Cq - r < 16 ? Cq - r : 16, kr = kb - 4 * r;
		__mmask64 bm = kr >= 64 ? ~(__mmask64)0 : kr <= 0 ? 0 : ((__mmask64)1 << kr) - 1;
		__m512i v[16];
		for (int i = 0; i < 16; i++)
			v[i] = i >= np ? _mm512_setzero_si512() : src[i] ? _mm512_mask_loadu_epi8(zx, bm, src[i] + 4 * r) : zx;
		cn_tr16d(v);
		for (int k = 0; k < nr; k++)
			_mm512_mask_storeu_epi32((void *)(d + (size_t)(r + k) * qs), pm, _mm512_xor_si512(v[k], f));
	}
}
#endif

static int cn_amx(const int32_t *p, void *const *a, void *scratch)
{
	cn_ageo q;
	if (!scratch || !cn_amx_use(p, a, &q))
		return 0;
	const int8_t *x = a[0], *w = a[1];
	int N = p[NPU_CV_N], C = p[NPU_CV_C], H = p[NPU_CV_H], W = p[NPU_CV_W], OC = p[NPU_CV_OC];
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW];
	int SH = p[NPU_CV_SH], SW = p[NPU_CV_SW], PT = p[NPU_CV_PT], PL = p[NPU_CV_PL];
	int DH = p[NPU_CV_DH], DW = p[NPU_CV_DW], Cq = q.Cq, Wq = q.Wq, L = q.L;
	int Ce = q.Ce, SWe = q.SWe;
	int32_t ZX = p[NPU_CV_ZX];
	int M = q.M, NS = q.NS;
	size_t K = (size_t)KH * KW * C, qs = (size_t)SWe * NS * L * 4;	/* B's row stride */
	int32_t *bq = scratch;
	int8_t *wr = (int8_t *)scratch + q.bq;
	uint8_t *st = (uint8_t *)scratch + q.wr;
	if (q.im) {	/* row mode: each kernel row's weights padded with zeros to Ce */
		for (size_t r = 0; r < (size_t)OC * KH; r++) {
			memcpy(wr + r * Ce, w + r * KW * C, (size_t)KW * C);
			memset(wr + r * Ce + KW * C, 0, (size_t)(Ce - KW * C));
		}
		w = wr;
	}
	int tl = CN_ON_TILES();	/* else CN_VNNI's products (or CN_GEN's) */
	(void)tl;
#if defined(RT_AMX)
	if (tl) {	/* palette 1; C 0-3: 16 x 64 bytes; A 4-5: 16 x kc; B 6-7: kc / 4 x 64 */
		int kc = q.kc;
		uint8_t cfg[64] __attribute__((aligned(64))) = {0};
		cfg[0] = 1;
		for (int t = 0; t < 8; t++) {
			int cb = t == 4 || t == 5 ? kc : 64;
			cfg[16 + 2 * t] = (uint8_t)cb, cfg[17 + 2 * t] = (uint8_t)(cb >> 8);
			cfg[48 + t] = (uint8_t)(t >= 6 ? kc / 4 : 16);
		}
		__asm__ volatile("ldtilecfg %0" : : "m"(*(const uint8_t(*)[64])cfg));
		if (q.dm) {
			cn_amx_1x1(p, a, kc, bq, wr);
			_tile_release();
			return 1;
		}
	}
#endif
#if defined(CN_VNNI)
	if (!tl && q.dm) {
		cn_vnni_1x1(p, a, bq, wr);
		return 1;
	}
	const int flip = tl ? 0 : 0x80;	/* staged x + 128 for vpdpbusd */
#else
#if defined(CN_GEN)
	if (q.dm) {
		cn_gen_1x1(p, a, bq, st);
		return 1;
	}
#endif
	const int flip = 0;
#endif
	const int32_t zc = flip ? ZX + 128 : ZX;
#if !defined(CN_GEN)
	int32_t cb[4][256] __attribute__((aligned(64)));
	cn_astep pd = {-1, 0, 0, 0, {0, 0}};	/* the step whose tiles are in cb (n < 0: none) */
#endif
	for (int n = 0; n < N; n++)
		for (int oh0 = 0; oh0 < OH; oh0 += q.nb) {
			int nbr = OH - oh0 < q.nb ? OH - oh0 : q.nb, nq = nbr * Wq;
			for (int sl = 0; sl < NS; sl++)	/* the band's input rows: row lr of slot sl */
				for (int lr = 0; lr < q.Rq; lr++) {
					int used = 0;
					for (int kh = sl; kh < KH && !used; kh += M)
						used = lr >= kh * DH / SH && lr < kh * DH / SH + nbr;
					if (!used)
						continue;
					int ih = (oh0 + lr) * SH - PT + sl * DH % SH;
					if (q.im) {	/* row mode: each pixel's window row, ZX past it */
						for (int ow0 = 0; ow0 < OW; ow0 += 16) {	/* 16 pixels' window rows, then their quads */
							uint32_t row[16][CN_AMX_ROW / 4];
							const int8_t *src[16];	/* inside the input: read in place (ZX past KW C) */
							int np = OW - ow0 < 16 ? OW - ow0 : 16;
							for (int i = 0; i < np; i++) {
								uint8_t *rb = (uint8_t *)row[i];
								int iw0 = (ow0 + i) * SW - PL;
								src[i] = NULL;
								if (ih >= 0 && ih < H && iw0 >= 0 && iw0 + (KW - 1) * DW < W && DW == 1 &&
								    (!CN_GEN_ON || Ce == KW * C)) {	/* (cn_stage reads Ce bytes) */
									src[i] = x + (((size_t)n * H + ih) * W + iw0) * C;
									continue;
								}
								memset(rb, ZX, (size_t)Ce);
								for (int kw = 0; kw < KW && ih >= 0 && ih < H; kw++) {
									int iw = iw0 + kw * DW;
									if (iw >= 0 && iw < W)
										memcpy(rb + kw * C, x + (((size_t)n * H + ih) * W + iw) * C, (size_t)C);
								}
							}
							const uint8_t *s8[16];
							for (int i = 0; i < np; i++)
								s8[i] = src[i] ? (const uint8_t *)src[i] : (const uint8_t *)row[i];
							cn_stage(s8, np, Cq, KW * C, ZX, st + ((size_t)sl * L + (size_t)lr * Wq + ow0) * 4, qs, flip);
						}
						continue;
					}
					for (int ph = 0; ph < SW; ph++)
						for (int j0 = 0; j0 < Wq; j0 += 16) {
							uint8_t *d = st + (((size_t)ph * NS + sl) * L + (size_t)lr * Wq + j0) * 4;
							const uint8_t *src[16];
							for (int i = 0; i < 16 && j0 + i < Wq; i++) {
								int iw = (j0 + i) * SW + ph - PL;
								src[i] = ih >= 0 && ih < H && iw >= 0 && iw < W
										 ? (const uint8_t *)x + (((size_t)n * H + ih) * W + iw) * C
										 : NULL;
							}
							cn_stage(src, Wq - j0 < 16 ? Wq - j0 : 16, Cq, 4 * Cq, ZX, d, qs, flip);
						}
				}
			for (int o0 = 0; o0 < OC; o0 += 32) {
				int ob[2] = {o0 + 16 <= OC ? o0 : OC - 16, o0 + 16 < OC ? (o0 + 32 <= OC ? o0 + 16 : OC - 16) : -1};
				/* on the first band: the block's weights then stay in the
				 * cache for its tiles */
				if (n == 0 && oh0 == 0)
					cn_amx_bq(p, a, bq, o0, K, zc);
#if defined(CN_GEN)
				cn_lq lq[2][CN_LQB];	/* each block's lanes, once per band */
				const cn_lq *lb[2] = {cn_gen_lq(p, a, bq, ob[0], lq[0]), ob[1] >= 0 ? cn_gen_lq(p, a, bq, ob[1], lq[1]) : NULL};
				for (int q0 = 0; q0 < nq; q0 += 16)
					for (int t = 0; t < 2 && ob[t] >= 0; t++)
						cn_gen_band(p, &q, a, w, st, bq, ob[t], lb[t], n, oh0, nq, q0);
#else
				for (int q0 = 0; q0 < nq; q0 += 32) {
					int two = q0 + 16 < nq;
#if defined(RT_AMX)
					if (tl)
						cn_amx_band(p, &q, w, st, ob, o0, q0, two);
#endif
					/* the step before is requantized while these tiles
					 * compute: the vector units then work beside the tile
					 * unit instead of after it */
					if (pd.n >= 0)
						cn_amx_out(p, a, bq, Wq, cb, &pd);
#if defined(RT_AMX)
					if (tl) {
						_tile_stored(0, cb[0], 64);
						_tile_stored(1, cb[1], 64);
						_tile_stored(2, cb[2], 64);
						_tile_stored(3, cb[3], 64);
					}
#endif
#if defined(CN_VNNI)
					if (!tl)
						cn_vnni_band(p, &q, w, st, ob, q0, two, cb);
#endif
					pd = (cn_astep){n, oh0, nq, q0, {ob[0], ob[1]}};
				}
#endif
			}
		}
#if !defined(CN_GEN)
	if (pd.n >= 0)
		cn_amx_out(p, a, bq, Wq, cb, &pd);
#endif
#if defined(RT_AMX)
	if (tl)
		_tile_release();
#endif
	return 1;
}
#endif

#if !defined(CN_TILES) && (defined(NPU_NO_SIMD) || !(defined(__ARM_NEON) && defined(__aarch64__)))
#define CN_WIN 1
/* r = (add: r +) 2 pixels' x runs (x0, x1) against 2 output channels'
 * weight runs (w0, w1) of K bytes, as they are: r[2 h + j] = pixel h,
 * channel j. Helium: 16 products a vmladava, 4 of them from 4 loads.
 * Cortex-M DSP: each word of x and w as two int16 pairs (SXTB16; rotated
 * by 8), SMLAD adds a pair's products: 16 products from 4 loads. */
static inline void cn_win22(const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1, int K, int32_t *r,
			    int add)
{
	int32_t a00 = add ? r[0] : 0, a01 = add ? r[1] : 0, a10 = add ? r[2] : 0, a11 = add ? r[3] : 0;
	int k = 0;
#if defined(CN_MVE)
	for (; k < K; k += 16) {	/* 16 products a vmladava, the last vector predicated */
		mve_pred16_t pr = vctp8q((uint32_t)(K - k));
		int8x16_t u0 = vldrbq_z_s8(x0 + k, pr), u1 = vldrbq_z_s8(x1 + k, pr);
		int8x16_t v0 = vldrbq_z_s8(w0 + k, pr), v1 = vldrbq_z_s8(w1 + k, pr);
		a00 = vmladavaq_s8(a00, u0, v0), a01 = vmladavaq_s8(a01, u0, v1);
		a10 = vmladavaq_s8(a10, u1, v0), a11 = vmladavaq_s8(a11, u1, v1);
	}
#elif !defined(NPU_NO_SIMD) && defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32)
	for (; k + 4 <= K; k += 4) {
		uint32_t u0, u1, v;
		memcpy(&u0, x0 + k, 4), memcpy(&u1, x1 + k, 4);
		int32_t x0e = __sxtb16(u0), x0o = __sxtb16((u0 >> 8) | (u0 << 24));
		int32_t x1e = __sxtb16(u1), x1o = __sxtb16((u1 >> 8) | (u1 << 24));
		memcpy(&v, w0 + k, 4);
		int32_t we = __sxtb16(v), wo = __sxtb16((v >> 8) | (v << 24));
		a00 = __smlad(x0o, wo, __smlad(x0e, we, a00)), a10 = __smlad(x1o, wo, __smlad(x1e, we, a10));
		memcpy(&v, w1 + k, 4);
		we = __sxtb16(v), wo = __sxtb16((v >> 8) | (v << 24));
		a01 = __smlad(x0o, wo, __smlad(x0e, we, a01)), a11 = __smlad(x1o, wo, __smlad(x1e, we, a11));
	}
#endif
	for (; k < K; k++)
		a00 += x0[k] * w0[k], a01 += x0[k] * w1[k], a10 += x1[k] * w0[k], a11 += x1[k] * w1[k];
	r[0] = a00, r[1] = a01, r[2] = a10, r[3] = a11;
}

/* Channel-last int8 convolution of one group, DW 1, no weight zero points,
 * where neither tiles nor wide vector lanes run it (portable C, Cortex-M
 * DSP and Helium):
 * per block of CN_RB output channels, 2 output pixels x 2 channels a step.
 * A window inside the input is KH runs of KW C bytes of x (one per kernel
 * row) against the same runs of the OHWI weights, x as it is: sum (x - ZX)
 * w = sum x w - ZX sum w, the weight sums folded into cn_uq's bias once per
 * block (|sum x w| <= 2^14 K). A window reaching into the padding sums
 * (x - ZX) w over its taps inside (cn_dot4) and adds ZX sum w back. */
static int cn_win(const int32_t *p, void *const *a)
{
	const int8_t *x = a[0], *w = a[1];
	const void *bias = a[2];
	const int32_t *mult = a[3], *shift = a[4];
	void *y = a[6];
	int N = p[NPU_CV_N], C = p[NPU_CV_C], H = p[NPU_CV_H], W = p[NPU_CV_W], OC = p[NPU_CV_OC];
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW];
	int SH = p[NPU_CV_SH], SW = p[NPU_CV_SW], PT = p[NPU_CV_PT], PL = p[NPU_CV_PL], DH = p[NPU_CV_DH];
	int32_t ZX = p[NPU_CV_ZX];
	int64_t K = (int64_t)C * KH * KW;
	if (p[NPU_CV_XT] != NPU_T_I8 || p[NPU_CV_WT] != NPU_T_I8 || a[5] || p[NPU_CV_G] > 1 || p[NPU_CV_DW] != 1 ||
	    KH < 1 || KW < 1 || ZX < -128 || ZX > 127 || K > CQ_NHWC_MAX_K)
		return 0;
	if (K == C && SH == 1 && SW == 1 && OH == H && OW == W)	/* 1x1, no padding: the pixels as one row */
		OW = W = N * H * W, N = OH = H = 1;
	int run = KW * C, uq[CN_RB];
	cn_uq q[CN_RB];
	int32_t ws[CN_RB], r[2][CN_RB + 1];	/* (+ 1: a last odd channel's pair) */
	for (int c0 = 0; c0 < OC; c0 += CN_RB) {
		int c1 = OC - c0 < CN_RB ? OC : c0 + CN_RB, nc = c1 - c0, all = 1;
		for (int k = 0; k < nc; k++) {	/* - ZX sum w folded into cn_uq's bias */
			ws[k] = 0;
			for (int64_t i = 0; i < K; i++)
				ws[k] += w[(size_t)(c0 + k) * (size_t)K + (size_t)i];
			uq[k] = cn_uq_set(&q[k], p, cq_bias(p, bias, c0 + k) - (int64_t)ZX * ws[k], mult[c0 + k], shift[c0 + k],
					  0x7fffffff - (int64_t)65025 * K);
			all &= uq[k];
		}
		for (int n = 0; n < N; n++)
			for (int oh = 0; oh < OH; oh++) {
				int ih0 = oh * SH - PT, rows = ih0 >= 0 && ih0 + (KH - 1) * DH < H;
				for (int ow = 0; ow < OW; ow++) {
					int iw0 = ow * SW - PL, ni = 1;
					if (rows && iw0 >= 0 && iw0 + KW - 1 < W) {	/* inside: with the next pixel if it is */
						const int8_t *xr = x + (((size_t)n * H + ih0) * W + iw0) * C;
						ni = ow + 1 < OW && iw0 + SW + KW - 1 < W ? 2 : 1;
						const int8_t *x1 = xr + (ni - 1) * (ptrdiff_t)SW * C;
						for (int o = c0; o < c1; o += 2) {
							int32_t t[4];	/* a last odd channel against itself */
							const int8_t *w0 = w + (size_t)o * (size_t)K, *w1 = w0 + (c1 - o > 1 ? K : 0);
							cn_win22(xr, x1, w0, w1, run, t, 0);
							for (int kh = 1; kh < KH; kh++) {
								size_t xk = (size_t)kh * DH * W * C, wk = (size_t)kh * run;
								cn_win22(xr + xk, x1 + xk, w0 + wk, w1 + wk, run, t, 1);
							}
							r[0][o - c0] = t[0], r[0][o - c0 + 1] = t[1], r[1][o - c0] = t[2], r[1][o - c0 + 1] = t[3];
						}
					} else {	/* taps in the padding: 4 channels a cn_dot4 */
						int kw0 = 0, kw1 = KW;
						while (kw0 < KW && iw0 + kw0 < 0)
							kw0++;
						while (kw1 > kw0 && iw0 + kw1 - 1 >= W)
							kw1--;
						for (int o = c0; o < c1; o += 4) {
							const int8_t *wt[4];
							int32_t s4[5] = {0, 0, 0, 0, 0};
							for (int kh = 0; kh < KH && kw0 < kw1; kh++) {
								int ih = ih0 + kh * DH;
								if (ih < 0 || ih >= H)
									continue;
								for (int j = 0; j < 4; j++)	/* past the block: its last channel */
									wt[j] = w + (size_t)(o + j < c1 ? o + j : c1 - 1) * (size_t)K +
										(size_t)kh * run + (size_t)kw0 * C;
								cn_dot4(x + (((size_t)n * H + ih) * W + iw0 + kw0) * C, wt, (kw1 - kw0) * C, ZX, s4);
							}
							for (int j = 0; j < 4 && o + j < c1; j++)
								r[0][o - c0 + j] = s4[j] + ZX * ws[o - c0 + j];
						}
					}
					for (int h = 0; h < ni; h++) {
						size_t at = (((size_t)n * OH + oh) * OW + ow + h) * OC + c0;
						if (all) {
							int8_t *yr = (int8_t *)y + at;
							for (int k = 0; k < nc; k++)
								yr[k] = cn_uq_do(&q[k], r[h][k]);
							continue;
						}
						for (int k = 0; k < nc; k++)
							cn_put(p, bias, mult, y, at + k, c0 + k, &q[k], uq[k],
							       r[h][k] - (uq[k] ? 0 : ZX * ws[k]));
					}
					ow += ni - 1;
				}
			}
	}
	return 1;
}
#endif

static void k_conv_nhwc_q(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0], *w = a[1], *bias = a[2];
	const int32_t *mult = a[3], *shift = a[4], *wzp = a[5];
	void *y = a[6];
	int N = p[NPU_CV_N], C = p[NPU_CV_C], H = p[NPU_CV_H], W = p[NPU_CV_W], OC = p[NPU_CV_OC];
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW];
	int SH = p[NPU_CV_SH], SW = p[NPU_CV_SW], PT = p[NPU_CV_PT], PL = p[NPU_CV_PL];
	int DH = p[NPU_CV_DH], DW = p[NPU_CV_DW], G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1;
	int32_t XT = p[NPU_CV_XT], WT = p[NPU_CV_WT], YT = p[NPU_CV_YT];
	int32_t ZX = p[NPU_CV_ZX], ZY = p[NPU_CV_ZY], LO = p[NPU_CV_LO], HI = p[NPU_CV_HI];
	if (C < 1 || OC < 1 || C % G != 0 || OC % G != 0)	/* not a convolution */
		return;
	int cg = C / G, og = OC / G;
	int fast = XT == NPU_T_I8 && WT == NPU_T_I8 && cg <= CQ_NHWC_MAX_K;
	if (cn_dw_scratch(p) && ZX >= -128 && ZX <= 127) {
		int ok = 1;
		for (int o = 0; ok && wzp && o < OC; o++)
			ok = wzp[o] >= -128 && wzp[o] <= 127;
		if (ok) {
			cn_depthwise(p, a, scratch);
			return;
		}
	}
#if defined(CN_TILES)
	if (cn_amx(p, a, scratch))
		return;
#endif
#if defined(CN_WIN)
	if (cn_win(p, a))
		return;
#endif
	if (cn_regular(p, a))
		return;
	for (int n = 0; n < N; n++)
		for (int oh = 0; oh < OH; oh++)
			for (int ow = 0; ow < OW; ow++) {
				size_t yo = (((size_t)n * OH + oh) * OW + ow) * OC;
				for (int oc = 0; oc < OC; oc++) {
					int gr = oc / og;
					int32_t z = wzp ? wzp[oc] : 0;
					int64_t acc = cq_bias(p, bias, oc);
					for (int kh = 0; kh < KH; kh++) {
						int ih = oh * SH - PT + kh * DH;
						if (ih < 0 || ih >= H)
							continue;
						for (int kw = 0; kw < KW; kw++) {
							int iw = ow * SW - PL + kw * DW;
							if (iw < 0 || iw >= W)
								continue;
							size_t xo = (((size_t)n * H + ih) * W + iw) * C + (size_t)gr * cg;
							size_t wo = (((size_t)oc * KH + kh) * KW + kw) * cg;
							if (fast) {
								const int8_t *xp = (const int8_t *)x + xo, *wp = (const int8_t *)w + wo;
								int32_t s = 0;
								for (int ic = 0; ic < cg; ic++)
									s += ((int32_t)xp[ic] - ZX) * ((int32_t)wp[ic] - z);
								acc += s;
							} else {
								for (int ic = 0; ic < cg; ic++)
									acc += (rt_ldi(x, XT, xo + ic) - (int64_t)ZX) *
									       (rt_ldi(w, WT, wo + ic) - (int64_t)z);
							}
						}
					}
					rt_sti(y, YT, yo + oc, rt_clamp(ZY + rt_mulshift(acc, mult[oc], rt_shift(shift[oc])), LO, HI));
				}
			}
}
/* @npu-end */

/* @npu-kernel CONV_NHWC_F */
/* Channel-last float convolution in CONV_F's summation order: the
 * weights of one output channel are gathered (OHWI -> OIHW, int8 ones
 * decompressed as CONV_F does) into the scratch, then every output pixel
 * sums bias, input channels, kernel rows, kernel columns. */
static void k_conv_nhwc_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0], *w = a[1], *bias = a[2];
	const float *wscale = a[3];
	void *y = a[4];
	int N = p[NPU_CV_N], C = p[NPU_CV_C], H = p[NPU_CV_H], W = p[NPU_CV_W], OC = p[NPU_CV_OC];
	int OH = p[NPU_CV_OH], OW = p[NPU_CV_OW], KH = p[NPU_CV_KH], KW = p[NPU_CV_KW];
	int SH = p[NPU_CV_SH], SW = p[NPU_CV_SW], PT = p[NPU_CV_PT], PL = p[NPU_CV_PL];
	int DH = p[NPU_CV_DH], DW = p[NPU_CV_DW], G = p[NPU_CV_G] > 0 ? p[NPU_CV_G] : 1;
	int32_t XT = p[NPU_CV_XT], WT = p[NPU_CV_WT], YT = p[NPU_CV_YT], act = p[NPU_CV_ACT];
	float lo = rt_pf(p, NPU_CV_LO), hi = rt_pf(p, NPU_CV_HI), p0 = rt_pf(p, NPU_CV_P0), p1 = rt_pf(p, NPU_CV_P1);
	int cg = C / G, og = OC / G, k = cg * KH * KW, half = XT == NPU_T_F16;
	float *wf = scratch;
	if (cg < 1 || og < 1 || C % G != 0 || OC % G != 0 || k < 1)	/* not a convolution */
		return;
	for (int n = 0; n < N; n++)
		for (int oc = 0; oc < OC; oc++) {
			int gr = oc / og;
			for (int ic = 0; ic < cg; ic++)
				for (int t = 0; t < KH * KW; t++) {
					size_t wi = ((size_t)oc * KH * KW + t) * cg + ic;
					float v;
					if (WT == NPU_T_I8) {
						v = (float)((const int8_t *)w)[wi] * (wscale ? wscale[oc] : 1.0f);
						if (half)	/* the fp16 NPU decompresses weights to half */
							v = npu_f16_to_f32(npu_f32_to_f16(v));
					} else {
						v = rt_ldf(w, WT, wi);
					}
					wf[(size_t)ic * KH * KW + t] = v;
				}
			for (int oh = 0; oh < OH; oh++)
				for (int ow = 0; ow < OW; ow++) {
					float acc = bias ? rt_ldf(bias, XT, (size_t)oc) : 0.0f;
					for (int ic = 0; ic < cg; ic++) {
						size_t xc = (size_t)n * H * W * C + (size_t)gr * cg + ic;
						const float *wc = wf + (size_t)ic * KH * KW;
						for (int kh = 0; kh < KH; kh++) {
							int ih = oh * SH - PT + kh * DH;
							if (ih < 0 || ih >= H)
								continue;
							for (int kw = 0; kw < KW; kw++) {
								int iw = ow * SW - PL + kw * DW;
								if (iw < 0 || iw >= W)
									continue;
								acc = cf_mac(acc, rt_ldf(x, XT, xc + ((size_t)ih * W + iw) * C), wc[kh * KW + kw]);
							}
						}
					}
					acc = rt_clampf(acc, lo, hi);
					if (act >= 0)
						acc = rt_unary(act, acc, p0, p1);
					rt_stf(y, YT, (((size_t)n * OH + oh) * OW + ow) * OC + oc, acc);
				}
		}
}
/* @npu-end */

/* @npu-kernel POOL_NHWC_Q */
/* y[c] = max(y[c], x[c]) for c < C (int8) */
static void pn_max_row(int8_t *restrict y, const int8_t *restrict x, int C)
{
	int c = 0;
#if !defined(NPU_NO_SIMD) && defined(__AVX2__)
	for (; c + 32 <= C; c += 32)
		_mm256_storeu_si256((__m256i *)(void *)(y + c),
				    _mm256_max_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(y + c)),
						    _mm256_loadu_si256((const __m256i *)(const void *)(x + c))));
#elif !defined(NPU_NO_SIMD) && defined(__SSE2__)	/* unsigned max of x ^ 0x80 */
	const __m128i f = _mm_set1_epi8((char)0x80);
	for (; c + 16 <= C; c += 16) {
		__m128i u = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(y + c)), f);
		__m128i v = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(x + c)), f);
		_mm_storeu_si128((__m128i *)(void *)(y + c), _mm_xor_si128(_mm_max_epu8(u, v), f));
	}
#endif
	for (; c < C; c++)
		y[c] = x[c] > y[c] ? x[c] : y[c];
}

/* int8 in and out: whole channel rows per window cell (max: the output
 * row itself as the running maximum; average: int32 sums of up to
 * PN_CHUNK channels on the stack), the same results as the loop below */
#define PN_CHUNK 256
static void pn_rows_i8(const int32_t *p, const int8_t *x, int8_t *y)
{
	int N = p[NPU_PL_N], C = p[NPU_PL_C], H = p[NPU_PL_H], W = p[NPU_PL_W], OH = p[NPU_PL_OH], OW = p[NPU_PL_OW];
	int32_t ZX = p[NPU_PL_ZX], ZY = p[NPU_PL_ZY], LO = p[NPU_PL_LO], HI = p[NPU_PL_HI];
	int avg = p[NPU_PL_MODE] == NPU_POOL_AVG;
	for (int n = 0; n < N; n++)
		for (int oh = 0; oh < OH; oh++)
			for (int ow = 0; ow < OW; ow++) {
				pl_win w;
				pl_window(p, oh, ow, &w);
				int8_t *yr = y + (((size_t)n * OH + oh) * OW + ow) * C;
				const int8_t *xr = x + (size_t)n * H * W * C;
				if (!avg) {
					if (w.ih1 <= w.ih0 || w.iw1 <= w.iw0) {	/* no cell: ZY */
						for (int c = 0; c < C; c++)
							yr[c] = (int8_t)rt_clamp(ZY, LO, HI);
						continue;
					}
					memcpy(yr, xr + ((size_t)w.ih0 * W + w.iw0) * C, (size_t)C);
					for (int ih = w.ih0; ih < w.ih1; ih++)
						for (int iw = w.iw0; iw < w.iw1; iw++)
							if (ih != w.ih0 || iw != w.iw0)
								pn_max_row(yr, xr + ((size_t)ih * W + iw) * C, C);
					if (LO > -128 || HI < 127)
						for (int c = 0; c < C; c++)
							yr[c] = (int8_t)rt_clamp(yr[c], LO, HI);
					continue;
				}
				int64_t cnt = w.count > 0 ? w.count : 1;
				for (int c0 = 0; c0 < C; c0 += PN_CHUNK) {
					int nc = C - c0 < PN_CHUNK ? C - c0 : PN_CHUNK;
					int32_t acc[PN_CHUNK];
					for (int c = 0; c < nc; c++)
						acc[c] = 0;
					for (int ih = w.ih0; ih < w.ih1; ih++)
						for (int iw = w.iw0; iw < w.iw1; iw++) {
							const int8_t *xc = xr + ((size_t)ih * W + iw) * C + c0;
							for (int c = 0; c < nc; c++)
								acc[c] += xc[c] - ZX;
						}
					for (int c = 0; c < nc; c++) {	/* round half away from zero (POOL_Q) */
						int64_t sum = acc[c], m = sum < 0 ? -sum : sum, q = (2 * m + cnt) / (2 * cnt);
						yr[c0 + c] = (int8_t)rt_clamp(ZY + (sum < 0 ? -q : q), LO, HI);
					}
				}
			}
}

static void k_pool_nhwc_q(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	void *y = a[1];
	int N = p[NPU_PL_N], C = p[NPU_PL_C], H = p[NPU_PL_H], W = p[NPU_PL_W], OH = p[NPU_PL_OH], OW = p[NPU_PL_OW];
	int32_t XT = p[NPU_PL_XT], YT = p[NPU_PL_YT], ZX = p[NPU_PL_ZX], ZY = p[NPU_PL_ZY];
	int32_t LO = p[NPU_PL_LO], HI = p[NPU_PL_HI];
	int avg = p[NPU_PL_MODE] == NPU_POOL_AVG;
	(void)scratch;
	/* int8 rows; the int32 sums hold 2^23 cells of |x - ZX| <= 255 */
	if (XT == NPU_T_I8 && YT == NPU_T_I8 && ZX >= -128 && ZX <= 127 &&
	    (int64_t)p[NPU_PL_KH] * p[NPU_PL_KW] <= (1 << 23)) {
		pn_rows_i8(p, x, y);
		return;
	}
	for (int n = 0; n < N; n++)
		for (int oh = 0; oh < OH; oh++)
			for (int ow = 0; ow < OW; ow++) {
				pl_win w;
				pl_window(p, oh, ow, &w);
				size_t yo = (((size_t)n * OH + oh) * OW + ow) * C;
				for (int c = 0; c < C; c++) {
					int64_t r;
					if (avg) {
						int64_t sum = 0;
						for (int ih = w.ih0; ih < w.ih1; ih++)
							for (int iw = w.iw0; iw < w.iw1; iw++)
								sum += rt_ldi(x, XT, (((size_t)n * H + ih) * W + iw) * C + c) - ZX;
						/* round half away from zero (POOL_Q) */
						int64_t cnt = w.count > 0 ? w.count : 1, m = sum < 0 ? -sum : sum;
						int64_t q = (2 * m + cnt) / (2 * cnt);
						r = ZY + (sum < 0 ? -q : q);
					} else {
						r = ZY;
						int first = 1;
						for (int ih = w.ih0; ih < w.ih1; ih++)
							for (int iw = w.iw0; iw < w.iw1; iw++) {
								int32_t v = rt_ldi(x, XT, (((size_t)n * H + ih) * W + iw) * C + c);
								if (first || v > r)
									r = v;
								first = 0;
							}
					}
					rt_sti(y, YT, yo + c, rt_clamp(r, LO, HI));
				}
			}
}
/* @npu-end */

/* @npu-kernel POOL_NHWC_F */
static void k_pool_nhwc_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	void *y = a[1];
	int N = p[NPU_PL_N], C = p[NPU_PL_C], H = p[NPU_PL_H], W = p[NPU_PL_W], OH = p[NPU_PL_OH], OW = p[NPU_PL_OW];
	int32_t XT = p[NPU_PL_XT], YT = p[NPU_PL_YT];
	int avg = p[NPU_PL_MODE] == NPU_POOL_AVG;
	(void)scratch;
	for (int n = 0; n < N; n++)
		for (int oh = 0; oh < OH; oh++)
			for (int ow = 0; ow < OW; ow++) {
				pl_win w;
				pl_window(p, oh, ow, &w);
				size_t yo = (((size_t)n * OH + oh) * OW + ow) * C;
				for (int c = 0; c < C; c++) {
					float r = 0;
					int first = 1;
					for (int ih = w.ih0; ih < w.ih1; ih++)
						for (int iw = w.iw0; iw < w.iw1; iw++) {
							float v = rt_ldf(x, XT, (((size_t)n * H + ih) * W + iw) * C + c);
							if (avg)
								r += v;
							else if (first || v > r)
								r = v;
							first = 0;
						}
					if (avg)
						r = r / (float)(w.count > 0 ? w.count : 1);
					rt_stf(y, YT, yo + c, r);
				}
			}
}
/* @npu-end */

/* @npu-kernel RESIZE_NHWC */
static void k_resize_nhwc(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0];
	const int32_t *th = a[1], *tw = a[2];
	void *y = a[3];
	int32_t outer = p[NPU_RS_OUTER], H = p[NPU_RS_H], W = p[NPU_RS_W], OH = p[NPU_RS_OH], OW = p[NPU_RS_OW];
	int32_t K = p[NPU_RS_K], XT = p[NPU_RS_XT], YT = p[NPU_RS_YT], E = p[NPU_RS_ELEM], C = p[NPU_RSC_C];
	int flt = XT == NPU_T_F32 || XT == NPU_T_F16;
	(void)scratch;
	if (K < 1 || K > 4 || (!flt && K > 2) || C < 1)
		return;
	for (int32_t n = 0; n < outer; n++)
		for (int32_t oh = 0; oh < OH; oh++) {
			const int32_t *rh = th + (size_t)oh * 2 * (size_t)K;
			for (int32_t ow = 0; ow < OW; ow++) {
				const int32_t *rw = tw + (size_t)ow * 2 * (size_t)K;
				size_t yo = (((size_t)n * OH + oh) * OW + ow) * (size_t)C;
#define RSC_X(ih, iw) ((((size_t)n * H + (size_t)(ih)) * W + (size_t)(iw)) * (size_t)C + (size_t)c)
				if (!flt && K == 1) {	/* nearest: one pixel, all its channels */
					size_t c = 0;
					memcpy((uint8_t *)y + yo * (size_t)E, (const uint8_t *)x + RSC_X(rh[0], rw[0]) * (size_t)E,
					       (size_t)C * (size_t)E);
					continue;
				}
				if (!flt && XT == NPU_T_I8 && K == 2) {	/* linear int8: the 4 source pixels found once */
					const int8_t *x00 = (const int8_t *)x + ((((size_t)n * H + (size_t)rh[0]) * W + (size_t)rw[0]) * (size_t)C);
					const int8_t *x10 = (const int8_t *)x + ((((size_t)n * H + (size_t)rh[1]) * W + (size_t)rw[0]) * (size_t)C);
					const int8_t *x01 = (const int8_t *)x + ((((size_t)n * H + (size_t)rh[0]) * W + (size_t)rw[1]) * (size_t)C);
					const int8_t *x11 = (const int8_t *)x + ((((size_t)n * H + (size_t)rh[1]) * W + (size_t)rw[1]) * (size_t)C);
					int64_t h0 = rh[2], h1 = rh[3], w0 = rw[2], w1 = rw[3];
					for (int32_t c = 0; c < C; c++)
						rt_sti(y, YT, yo + c,
						       (int32_t)rt_rsr(w0 * (h0 * x00[c] + h1 * x10[c]) + w1 * (h0 * x01[c] + h1 * x11[c]), 30));
					continue;
				}
				for (int32_t c = 0; c < C; c++) {
					if (!flt) {	/* linear: Q15 weights summing to 2^15 per axis */
						int64_t acc = 0;
						for (int32_t b = 0; b < K; b++) {
							int64_t t = 0;
							for (int32_t i = 0; i < K; i++)
								t += (int64_t)rh[K + i] * rt_ldi(x, XT, RSC_X(rh[i], rw[b]));
							acc += (int64_t)rw[K + b] * t;
						}
						rt_sti(y, YT, yo + c, (int32_t)rt_rsr(acc, 30));
						continue;
					}
					float acc = 0;
					for (int32_t b = 0; b < K; b++) {
						float t = 0;
						for (int32_t i = 0; i < K; i++) {
							float prod = npu_bits_f32((uint32_t)rh[K + i]) * rt_ldf(x, XT, RSC_X(rh[i], rw[b]));
							t += prod;
						}
						float prod = npu_bits_f32((uint32_t)rw[K + b]) * t;
						acc += prod;
					}
					rt_stf(y, YT, yo + c, acc);
				}
#undef RSC_X
			}
		}
}
/* @npu-end */

/* @npu-kernel CONV_T_NHWC_Q */
#define CT_NHWC_TAPS 64	/* the taps of an output pixel found once for all its channels (more: per channel) */
static void k_conv_t_nhwc_q(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0], *w = a[1], *bias = a[2];
	const int32_t *mult = a[3], *shift = a[4], *wzp = a[5];
	void *y = a[6];
	int32_t XT = p[NPU_CV_XT], WT = p[NPU_CV_WT], YT = p[NPU_CV_YT];
	int32_t ZX = p[NPU_CV_ZX], ZY = p[NPU_CV_ZY], LO = p[NPU_CV_LO], HI = p[NPU_CV_HI];
	ct_geo g;
	(void)scratch;
	if (ct_geometry(p, &g))
		return;
	/* int8 x and w: each output pixel's taps (the kernel tap, the input
	 * pixel it reads) found once, then per channel a run of the input
	 * pixel's channels against the weights (og KH KW apart) */
	int i8 = XT == NPU_T_I8 && WT == NPU_T_I8 && g.KH * g.KW <= CT_NHWC_TAPS;
	size_t ws = (size_t)g.og * g.KH * g.KW;	/* from one input channel's weights to the next's */
	for (int n = 0; n < g.N; n++)
		for (int oh = 0; oh < g.OH; oh++)
			for (int ow = 0; ow < g.OW; ow++) {
				size_t yo = (((size_t)n * g.OH + oh) * g.OW + ow) * g.OC;
				if (i8) {
					int tk[CT_NHWC_TAPS], nt = 0;
					size_t tx[CT_NHWC_TAPS];
					for (int kh = 0; kh < g.KH; kh++) {
						int ih = ct_src(oh, kh, g.PT, g.DH, g.SH, g.H);
						for (int kw = 0; kw < g.KW && ih >= 0; kw++) {
							int iw = ct_src(ow, kw, g.PL, g.DW, g.SW, g.W);
							if (iw >= 0)
								tk[nt] = kh * g.KW + kw, tx[nt++] = (((size_t)n * g.H + ih) * g.W + iw) * g.C;
						}
					}
					for (int oc = 0; oc < g.OC; oc++) {
						int gr = oc / g.og, o = oc % g.og;
						int32_t z = wzp ? wzp[oc] : 0;
						int64_t acc = cq_bias(p, bias, oc);
						for (int t = 0; t < nt; t++) {
							const int8_t *xp = (const int8_t *)x + tx[t] + (size_t)gr * g.cg;
							const int8_t *wp = (const int8_t *)w + ((size_t)gr * g.cg * g.og + (size_t)o) * g.KH * g.KW + tk[t];
							for (int ic = 0; ic < g.cg; ic++)
								acc += (int64_t)(xp[ic] - ZX) * (wp[(size_t)ic * ws] - z);
						}
						rt_sti(y, YT, yo + oc, rt_clamp(ZY + rt_mulshift(acc, mult[oc], rt_shift(shift[oc])), LO, HI));
					}
					continue;
				}
				for (int oc = 0; oc < g.OC; oc++) {
					int gr = oc / g.og, o = oc % g.og;
					int64_t z = wzp ? wzp[oc] : 0, acc = cq_bias(p, bias, oc);
					for (int ic = 0; ic < g.cg; ic++) {
						int c = gr * g.cg + ic;
						size_t wc = ((size_t)c * g.og + (size_t)o) * g.KH * g.KW;
						for (int kh = 0; kh < g.KH; kh++) {
							int ih = ct_src(oh, kh, g.PT, g.DH, g.SH, g.H);
							if (ih < 0)
								continue;
							for (int kw = 0; kw < g.KW; kw++) {
								int iw = ct_src(ow, kw, g.PL, g.DW, g.SW, g.W);
								if (iw < 0)
									continue;
								size_t xi = (((size_t)n * g.H + ih) * g.W + iw) * g.C + (size_t)c;
								acc += (rt_ldi(x, XT, xi) - (int64_t)ZX) *
								       (rt_ldi(w, WT, wc + (size_t)kh * g.KW + kw) - z);
							}
						}
					}
					rt_sti(y, YT, yo + oc, rt_clamp(ZY + rt_mulshift(acc, mult[oc], rt_shift(shift[oc])), LO, HI));
				}
			}
}
/* @npu-end */

/* @npu-kernel CONV_T_NHWC_F */
static void k_conv_t_nhwc_f(const int32_t *p, void *const *a, void *scratch)
{
	const void *x = a[0], *w = a[1], *bias = a[2];
	const float *wscale = a[3];
	void *y = a[4];
	int32_t XT = p[NPU_CV_XT], WT = p[NPU_CV_WT], YT = p[NPU_CV_YT], act = p[NPU_CV_ACT];
	float lo = rt_pf(p, NPU_CV_LO), hi = rt_pf(p, NPU_CV_HI), p0 = rt_pf(p, NPU_CV_P0), p1 = rt_pf(p, NPU_CV_P1);
	int half = XT == NPU_T_F16;
	ct_geo g;
	(void)scratch;
	if (ct_geometry(p, &g))
		return;
	for (int n = 0; n < g.N; n++)
		for (int oh = 0; oh < g.OH; oh++)
			for (int ow = 0; ow < g.OW; ow++) {
				size_t yo = (((size_t)n * g.OH + oh) * g.OW + ow) * g.OC;
				for (int oc = 0; oc < g.OC; oc++) {
					int gr = oc / g.og, o = oc % g.og;
					float ws = wscale ? wscale[oc] : 1.0f;
					float acc = bias ? rt_ldf(bias, XT, (size_t)oc) : 0.0f;
					for (int ic = 0; ic < g.cg; ic++) {
						int c = gr * g.cg + ic;
						size_t wc = ((size_t)c * g.og + (size_t)o) * g.KH * g.KW;
						for (int kh = 0; kh < g.KH; kh++) {
							int ih = ct_src(oh, kh, g.PT, g.DH, g.SH, g.H);
							if (ih < 0)
								continue;
							for (int kw = 0; kw < g.KW; kw++) {
								int iw = ct_src(ow, kw, g.PL, g.DW, g.SW, g.W);
								if (iw < 0)
									continue;
								size_t wi = wc + (size_t)kh * g.KW + kw;
								float wv;
								if (WT == NPU_T_I8) {
									wv = (float)((const int8_t *)w)[wi] * ws;
									if (half)	/* decompressed to half, as CONV_F */
										wv = npu_f16_to_f32(npu_f32_to_f16(wv));
								} else {
									wv = rt_ldf(w, WT, wi);
								}
								size_t xi = (((size_t)n * g.H + ih) * g.W + iw) * g.C + (size_t)c;
								float prod = rt_ldf(x, XT, xi) * wv;
								acc += prod;
							}
						}
					}
					acc = rt_clampf(acc, lo, hi);
					if (act >= 0)
						acc = rt_unary(act, acc, p0, p1);
					rt_stf(y, YT, yo + oc, acc);
				}
			}
}
/* @npu-end */

/* ================================================================ executor */

/* parameter words of each kernel */
static const uint8_t npu_param_counts[NPU_K_COUNT] = {
	NPU_CV_COUNT, NPU_CV_COUNT, NPU_EW_COUNT, NPU_EW_COUNT, NPU_UN_COUNT, NPU_RQ_COUNT,
	NPU_QZ_COUNT, NPU_QZ_COUNT, NPU_LT_COUNT, NPU_PL_COUNT, NPU_PL_COUNT, NPU_SM_COUNT,
	NPU_RN_COUNT, NPU_RN_COUNT, NPU_CA_COUNT, NPU_CP_COUNT, NPU_FI_COUNT, NPU_RD_COUNT, NPU_RD_COUNT, NPU_RNQ_COUNT,
	NPU_RNQ_COUNT,
	NPU_MM_COUNT, NPU_MM_COUNT, NPU_GA_COUNT, NPU_AM_COUNT, NPU_RN_COUNT, NPU_LR_COUNT,
	[NPU_K_CONV_T_Q] = NPU_CV_COUNT, [NPU_K_CONV_T_F] = NPU_CV_COUNT, [NPU_K_RESIZE] = NPU_RS_COUNT,
	[NPU_K_PRELU_Q] = NPU_PR_COUNT, [NPU_K_NORM_F] = NPU_NM_COUNT, [NPU_K_POOL3_F] = NPU_P3_COUNT,
	[NPU_K_CONV3_F] = NPU_C3_COUNT,
	[NPU_K_CONV_NHWC_Q] = NPU_CV_COUNT, [NPU_K_CONV_NHWC_F] = NPU_CV_COUNT,
	[NPU_K_POOL_NHWC_Q] = NPU_PL_COUNT, [NPU_K_POOL_NHWC_F] = NPU_PL_COUNT, [NPU_K_RESIZE_NHWC] = NPU_RSC_COUNT,
	[NPU_K_CONV_T_NHWC_Q] = NPU_CV_COUNT, [NPU_K_CONV_T_NHWC_F] = NPU_CV_COUNT,
	[NPU_K_CUSTOM] = NPU_CU_COUNT,
};

size_t npu_param_count(uint32_t kernel)
{
	return kernel < NPU_K_COUNT ? npu_param_counts[kernel] : 0;
}

uint32_t npu_scratch_size(uint32_t kernel, const int32_t *p)
{
	(void)p;
	switch (kernel) {
	/* @npu-kernel CONV_Q */
	case NPU_K_CONV_Q: {
		cq_geo g;
		cq_geometry(p, &g);
		return (uint32_t)g.scratch;
	}
	/* @npu-end */
	/* @npu-kernel CONV_NHWC_Q */
	case NPU_K_CONV_NHWC_Q: {
		cn_ageo q;
		size_t d = cn_dw_scratch(p), r = cn_amx_geo(p, &q);
		return (uint32_t)(d > r ? d : r);
	}
	/* @npu-end */
	/* @npu-kernel CONV_T_Q */
	case NPU_K_CONV_T_Q: return (uint32_t)ctq_scratch(p);
	/* @npu-end */
	/* @npu-kernel CONV_F CONV_NHWC_F */
	case NPU_K_CONV_F: case NPU_K_CONV_NHWC_F: {
		int64_t k = (int64_t)(p[NPU_CV_G] > 0 ? p[NPU_CV_C] / p[NPU_CV_G] : p[NPU_CV_C]) * p[NPU_CV_KH] * p[NPU_CV_KW];
		size_t f = kernel == NPU_K_CONV_F ? cf_fast_scratch(p) : 0;
		size_t r = k > 0 ? (size_t)((k * 4 + 15) & ~(int64_t)15) : 0;
		return (uint32_t)(f > r ? f : r);
	}
	/* @npu-end */
	/* @npu-kernel POOL_Q */
	case NPU_K_POOL_Q: return pq_scratch(p);
	/* @npu-end */
	/* @npu-kernel GRU_F */
	case NPU_K_GRU_F: return rn_scratch(p, 3);
	/* @npu-end */
	/* @npu-kernel LSTM_F */
	case NPU_K_LSTM_F: return rn_scratch(p, 4);
	/* @npu-end */
	/* @npu-kernel GRU_Q LSTM_Q */
	case NPU_K_GRU_Q: case NPU_K_LSTM_Q: return rq_scratch(p);
	/* @npu-kernel RNN_F */
	case NPU_K_RNN_F: return rn_scratch(p, 1);
	/* @npu-end */
	default: return 0;
	}
}

void npu_exec_op(const npu_model *m, uint32_t i, const void *const in[], void *const out[], void *arena)
{
	const npu_op *op = &m->ops[i];
	const int32_t *p = m->params + op->params;
	void *a[NPU_MAX_ARGS];
	uint32_t n = op->n_args < NPU_MAX_ARGS ? op->n_args : NPU_MAX_ARGS;
	for (uint32_t j = 0; j < NPU_MAX_ARGS; j++) {
		int32_t t = j < n ? m->args[op->args + j] : -1;
		a[j] = NULL;
		if (t < 0)
			continue;
		const npu_tensor *te = &m->tensors[t];
		switch (te->mem) {
		case NPU_MEM_ARENA: a[j] = (uint8_t *)arena + te->offset; break;
		case NPU_MEM_WEIGHT: a[j] = (void *)(m->weights + te->offset); break;
		case NPU_MEM_INPUT: a[j] = (void *)in[te->offset]; break;
		case NPU_MEM_OUTPUT: a[j] = out[te->offset]; break;
		default: break;
		}
	}
	void *s = (uint8_t *)arena + m->scratch_offset;
	(void)p;
	(void)a;
	switch (op->kernel) {
	/* @npu-kernel CONV_Q */
	case NPU_K_CONV_Q: k_conv_q(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel CONV_F */
	case NPU_K_CONV_F: k_conv_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel ELTWISE_Q */
	case NPU_K_ELTWISE_Q: k_eltwise_q(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel ELTWISE_F */
	case NPU_K_ELTWISE_F: k_eltwise_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel UNARY_F */
	case NPU_K_UNARY_F: k_unary_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel REQUANT */
	case NPU_K_REQUANT: k_requant(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel QUANTIZE */
	case NPU_K_QUANTIZE: k_quantize(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel DEQUANTIZE */
	case NPU_K_DEQUANTIZE: k_dequantize(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel LUT */
	case NPU_K_LUT: k_lut(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel POOL_Q */
	case NPU_K_POOL_Q: k_pool_q(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel POOL_F */
	case NPU_K_POOL_F: k_pool_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel SOFTMAX_F */
	case NPU_K_SOFTMAX_F: k_softmax_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel GRU_F */
	case NPU_K_GRU_F: k_gru_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel LSTM_F */
	case NPU_K_LSTM_F: k_lstm_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel CAST_F */
	case NPU_K_CAST_F: k_cast_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel COPY */
	case NPU_K_COPY: k_copy(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel FILL */
	case NPU_K_FILL: k_fill(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel REDUCE_F */
	case NPU_K_REDUCE_F: k_reduce_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel REDUCE_Q */
	case NPU_K_REDUCE_Q: k_reduce_q(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel GRU_Q */
	case NPU_K_GRU_Q: k_gru_q(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel LSTM_Q */
	case NPU_K_LSTM_Q: k_lstm_q(p, a, s); break;
	/* @npu-kernel MATMUL_F */
	case NPU_K_MATMUL_F: k_matmul_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel MATMUL_Q */
	case NPU_K_MATMUL_Q: k_matmul_q(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel GATHER */
	case NPU_K_GATHER: k_gather(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel ARGMAX */
	case NPU_K_ARGMAX: k_argmax(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel RNN_F */
	case NPU_K_RNN_F: k_rnn_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel LRN_F */
	case NPU_K_LRN_F: k_lrn_f(p, a, s); break;
	/* @npu-kernel CONV_T_Q */
	case NPU_K_CONV_T_Q: k_conv_t_q(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel CONV_T_F */
	case NPU_K_CONV_T_F: k_conv_t_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel RESIZE */
	case NPU_K_RESIZE: k_resize(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel PRELU_Q */
	case NPU_K_PRELU_Q: k_prelu_q(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel NORM_F */
	case NPU_K_NORM_F: k_norm_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel POOL3_F */
	case NPU_K_POOL3_F: k_pool3_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel CONV3_F */
	case NPU_K_CONV3_F: k_conv3_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel CONV_NHWC_Q */
	case NPU_K_CONV_NHWC_Q: k_conv_nhwc_q(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel CONV_NHWC_F */
	case NPU_K_CONV_NHWC_F: k_conv_nhwc_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel POOL_NHWC_Q */
	case NPU_K_POOL_NHWC_Q: k_pool_nhwc_q(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel POOL_NHWC_F */
	case NPU_K_POOL_NHWC_F: k_pool_nhwc_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel RESIZE_NHWC */
	case NPU_K_RESIZE_NHWC: k_resize_nhwc(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel CONV_T_NHWC_Q */
	case NPU_K_CONV_T_NHWC_Q: k_conv_t_nhwc_q(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel CONV_T_NHWC_F */
	case NPU_K_CONV_T_NHWC_F: k_conv_t_nhwc_f(p, a, s); break;
	/* @npu-end */
	/* @npu-kernel CUSTOM */
	case NPU_K_CUSTOM:
		if (m->custom && p[NPU_CU_WORDS] >= 0 && (uint32_t)p[NPU_CU_WORDS] <= n)
			m->custom((uint32_t)p[NPU_CU_FN], (const void *const *)a, a + p[NPU_CU_WORDS],
				  p + NPU_CU_WORDS);
		break;
	/* @npu-end */
	default: (void)s; break;
	}
}

void npu_run(const npu_model *m, const void *const in[], void *const out[], void *arena)
{
	for (uint32_t i = 0; i < m->n_ops; i++)
		npu_exec_op(m, i, in, out, arena);
}

/* ================================================================ binary models */

/* The blob's header words (layout: npu_rt.h, under NPU_BIN_MAGIC). */
enum {
	BH_MAGIC, BH_VERSION, BH_N_TENSORS, BH_N_OPS, BH_N_ARGS, BH_N_PARAMS, BH_N_INPUTS, BH_N_OUTPUTS,
	BH_ARENA, BH_SCRATCH_OFF, BH_SCRATCH_SIZE, BH_WEIGHT_SIZE,
	BH_TENSORS, BH_OPS, BH_ARGS, BH_PARAMS, BH_WEIGHTS, BH_INPUTS, BH_OUTPUTS, BH_STRINGS, BH_STRINGS_SIZE,
	BH_COUNT
};

/* Arguments of each kernel, and which of them may be -1. */
static const uint8_t npu_arg_counts[NPU_K_COUNT] = {7, 5, 3, 3, 2, 2, 2, 2, 3, 2, 2, 2, 7, 9, 2, 2, 1, 2, 2, 7, 9,
						     4, 4, 3, 2, 7, 2,
	[NPU_K_CONV_T_Q] = 7, [NPU_K_CONV_T_F] = 5, [NPU_K_RESIZE] = 4, [NPU_K_PRELU_Q] = 3, [NPU_K_NORM_F] = 6,
	[NPU_K_POOL3_F] = 2, [NPU_K_CONV3_F] = 4,
	[NPU_K_CONV_NHWC_Q] = 7, [NPU_K_CONV_NHWC_F] = 5, [NPU_K_POOL_NHWC_Q] = 2, [NPU_K_POOL_NHWC_F] = 2,
	[NPU_K_RESIZE_NHWC] = 4, [NPU_K_CONV_T_NHWC_Q] = 7, [NPU_K_CONV_T_NHWC_F] = 5, [NPU_K_CUSTOM] = 2,
};
static const uint16_t npu_arg_optional[NPU_K_COUNT] = {
	[NPU_K_CONV_Q] = 1u << 2 | 1u << 5,
	[NPU_K_CONV_F] = 1u << 2 | 1u << 3,
	[NPU_K_GRU_F] = 1u << 3 | 1u << 4 | 1u << 5 | 1u << 6,
	[NPU_K_LSTM_F] = 1u << 3 | 1u << 4 | 1u << 5 | 1u << 6 | 1u << 7 | 1u << 8,
	[NPU_K_GRU_Q] = 1u << 4 | 1u << 5 | 1u << 6,
	[NPU_K_LSTM_Q] = 1u << 4 | 1u << 5 | 1u << 6 | 1u << 7 | 1u << 8,
	[NPU_K_MATMUL_F] = 1u << 2,
	[NPU_K_MATMUL_Q] = 1u << 2,
	[NPU_K_RNN_F] = 1u << 3 | 1u << 4 | 1u << 5 | 1u << 6,
	[NPU_K_CONV_T_Q] = 1u << 2 | 1u << 5,
	[NPU_K_CONV_T_F] = 1u << 2 | 1u << 3,
	[NPU_K_NORM_F] = 1u << 2 | 1u << 4 | 1u << 5,
	[NPU_K_CONV3_F] = 1u << 2,
	[NPU_K_CONV_NHWC_Q] = 1u << 2 | 1u << 5,
	[NPU_K_CONV_NHWC_F] = 1u << 2 | 1u << 3,
	[NPU_K_CONV_T_NHWC_Q] = 1u << 2 | 1u << 5,
	[NPU_K_CONV_T_NHWC_F] = 1u << 2 | 1u << 3,
};

static uint32_t ld_le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* a table of n elements of es bytes at byte offset off, aligned to al,
 * inside size bytes */
static int table_ok(uint32_t off, uint32_t n, uint32_t es, uint32_t al, size_t size)
{
	uint64_t end = (uint64_t)off + (uint64_t)n * es;
	return off % al == 0 && end <= (uint64_t)size;
}

static int io_ok(const npu_io *io, uint32_t n, uint32_t strings_size)
{
	for (uint32_t i = 0; i < n; i++) {
		if (io[i].name >= strings_size || io[i].dtype >= NPU_T_COUNT || io[i].rank > NPU_MAX_RANK)
			return 0;
		for (uint32_t d = 0; d < io[i].rank; d++)
			if (io[i].shape[d] < 0)
				return 0;
	}
	return 1;
}

int npu_load(npu_model *m, const void *blob, size_t size)
{
	const uint8_t *b = blob;
	uint32_t h[BH_COUNT];
	if (!m || !b || (uintptr_t)b % 4 != 0 || size < sizeof h)
		return -1;
	for (int i = 0; i < BH_COUNT; i++)
		h[i] = ld_le32(b + 4 * i);
	/* host order tables: a big-endian host reads the magic reversed */
	uint32_t magic;
	memcpy(&magic, b, 4);
	if (magic != NPU_BIN_MAGIC || h[BH_MAGIC] != NPU_BIN_MAGIC || h[BH_VERSION] != NPU_BIN_VERSION)
		return -1;
	if (!table_ok(h[BH_TENSORS], h[BH_N_TENSORS], sizeof(npu_tensor), 4, size) ||
	    !table_ok(h[BH_OPS], h[BH_N_OPS], sizeof(npu_op), 4, size) ||
	    !table_ok(h[BH_ARGS], h[BH_N_ARGS], 4, 4, size) || !table_ok(h[BH_PARAMS], h[BH_N_PARAMS], 4, 4, size) ||
	    !table_ok(h[BH_WEIGHTS], h[BH_WEIGHT_SIZE], 1, 16, size) ||
	    !table_ok(h[BH_INPUTS], h[BH_N_INPUTS], sizeof(npu_io), 4, size) ||
	    !table_ok(h[BH_OUTPUTS], h[BH_N_OUTPUTS], sizeof(npu_io), 4, size) ||
	    !table_ok(h[BH_STRINGS], h[BH_STRINGS_SIZE], 1, 1, size))
		return -1;
	if ((uint64_t)h[BH_SCRATCH_OFF] + h[BH_SCRATCH_SIZE] > h[BH_ARENA] || h[BH_SCRATCH_OFF] % 4 != 0)
		return -1;
	npu_model t;
	t.n_tensors = h[BH_N_TENSORS], t.n_ops = h[BH_N_OPS], t.n_args = h[BH_N_ARGS], t.n_params = h[BH_N_PARAMS];
	t.n_inputs = h[BH_N_INPUTS], t.n_outputs = h[BH_N_OUTPUTS];
	t.arena_size = h[BH_ARENA], t.scratch_offset = h[BH_SCRATCH_OFF], t.scratch_size = h[BH_SCRATCH_SIZE];
	t.weight_size = h[BH_WEIGHT_SIZE];
	t.tensors = (const npu_tensor *)(const void *)(b + h[BH_TENSORS]);
	t.ops = (const npu_op *)(const void *)(b + h[BH_OPS]);
	t.args = (const int32_t *)(const void *)(b + h[BH_ARGS]);
	t.params = (const int32_t *)(const void *)(b + h[BH_PARAMS]);
	t.weights = b + h[BH_WEIGHTS];
	t.inputs = (const npu_io *)(const void *)(b + h[BH_INPUTS]);
	t.outputs = (const npu_io *)(const void *)(b + h[BH_OUTPUTS]);
	t.strings = (const char *)(b + h[BH_STRINGS]);
	t.custom = NULL;	/* the host's to set for a model with CUSTOM ops */

	uint32_t ss = h[BH_STRINGS_SIZE];
	if (ss > 0 && t.strings[ss - 1] != '\0')
		return -1;
	if (!io_ok(t.inputs, t.n_inputs, ss) || !io_ok(t.outputs, t.n_outputs, ss))
		return -1;
	for (uint32_t i = 0; i < t.n_tensors; i++) {
		const npu_tensor *te = &t.tensors[i];
		uint32_t lim = te->mem == NPU_MEM_ARENA ? t.arena_size
			     : te->mem == NPU_MEM_WEIGHT ? t.weight_size
			     : te->mem == NPU_MEM_INPUT ? t.n_inputs
			     : te->mem == NPU_MEM_OUTPUT ? t.n_outputs : 0;
		if (te->offset >= lim)
			return -1;
	}
	for (uint32_t i = 0; i < t.n_ops; i++) {
		const npu_op *op = &t.ops[i];
		if (op->kernel >= NPU_K_COUNT || op->n_args > NPU_MAX_ARGS || op->n_args < npu_arg_counts[op->kernel])
			return -1;
		if ((uint64_t)op->args + op->n_args > t.n_args ||
		    (uint64_t)op->params + npu_param_count(op->kernel) > t.n_params)
			return -1;
		for (uint32_t j = 0; j < op->n_args; j++) {
			int32_t a = t.args[op->args + j];
			if (a < -1 || (a >= 0 && (uint32_t)a >= t.n_tensors))
				return -1;
			if (a == -1 && j < npu_arg_counts[op->kernel] && !(npu_arg_optional[op->kernel] >> j & 1u))
				return -1;
		}
		if (npu_scratch_size(op->kernel, t.params + op->params) > t.scratch_size)
			return -1;
	}
	*m = t;
	return 0;
}
