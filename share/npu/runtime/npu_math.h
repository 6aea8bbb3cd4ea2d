/* npu_math.h - the runtime's own float math: exp, expm1, log, log1p, tanh,
 * sigmoid, erf, without libm.
 *
 * Every result is a function of the argument's bits alone, given IEEE-754
 * binary32 arithmetic with round-to-nearest-even and no contraction of a*b+c
 * into an FMA (build with -ffp-contract=off; on 32-bit x86 with -msse2
 * -mfpmath=sse so that float expressions are not evaluated in x87 extended
 * precision). Only float +, -, *, / and integer/bit manipulation through
 * memcpy are used: no double, no libm, branches only on values. So the
 * interpreter and the emitted code get bit-identical results on any such
 * platform, MCUs without libm included.
 *
 * Accuracy (measured by tests/unit/test_math.c against libm's double
 * functions, error in ulps of the float result; max over every float,
 * measured once exhaustively): expf 0.96, logf 0.86, expm1f 1.49,
 * log1pf 1.44, tanhf 1.44, erff 1.34, sigmoidf 2.41. Subnormal arguments
 * and results are handled (exp scales in two steps so subnormal results
 * get a single rounding). A NaN argument is
 * returned as x + x: a quiet NaN unchanged, a signaling one quieted (so the
 * i386 ABI, which returns floats through x87 and quiets them there, gives
 * the same bits as the others); NaNs made from non-NaN arguments (log of a
 * negative number) are the quiet NaN 0x7fc00000, on every platform.
 *
 * The polynomial coefficients were fitted for this file (Chebyshev fits
 * with mpmath, rounded to float); the structure (Cody-Waite reduction,
 * log via s = f/(2+f)) is the textbook one.
 */
#ifndef NPU_MATH_H
#define NPU_MATH_H

#include "npu_half.h"	/* npu_f32_bits, npu_bits_f32 */

#include <stdint.h>
#include <string.h>

/* a*b + c must not become an FMA: the includer compiles with
 * -ffp-contract=off (GCC's default in GNU modes is to contract where the
 * target has FMA, e.g. AArch64, ARMv7E-M with FPv5, x86 with -mfma); clang
 * is also told here, per function, by the standard pragma (GCC ignores
 * that pragma, with a warning, so it is not given to GCC). */
#if defined(__clang__)
#define NPU_M_NOCONTRACT _Pragma("STDC FP_CONTRACT OFF")
#else
#define NPU_M_NOCONTRACT
#endif

/* ---------------------------------------------------------------- bits */

#define NPU_M_INF npu_bits_f32(0x7f800000u)
#define NPU_M_NAN npu_bits_f32(0x7fc00000u)

/* |x| with the sign of s (s is 0 or 0x80000000). */
static inline float npu_m_with_sign(float a, uint32_t s)
{
	return npu_bits_f32(npu_f32_bits(a) | s);
}

/* 2^k for -126 <= k <= 127, exactly. */
static inline float npu_m_pow2(int k)
{
	return npu_bits_f32((uint32_t)(k + 127) << 23);
}

/* y * 2^k for y in [0.5, 4) and -189 <= k <= 190, with one rounding: out of
 * the normal range of 2^k the scaling is done in two steps, the first exact,
 * so a subnormal result is rounded once and an overflow gives inf. */
static inline float npu_m_scale(float y, int k)
{
	NPU_M_NOCONTRACT
	if (k > 126) {
		y *= 0x1p64f;
		k -= 64;
	} else if (k < -125) {
		y *= 0x1p-64f;
		k += 64;
	}
	return y * npu_m_pow2(k);
}

/* ---------------------------------------------------------------- exp */

/* ln 2 = NPU_M_LN2_HI + NPU_M_LN2_LO; _HI has 9 significant bits so k*_HI
 * is exact for |k| < 2^15. */
#define NPU_M_LN2_HI 0.693359375f
#define NPU_M_LN2_LO (-2.12194440e-4f)
#define NPU_M_LOG2E 1.44269502f

/* x = k ln2 + r, |r| <= ~0.3466 (k = round(x / ln2)); |x| < ~200. */
static inline float npu_m_reduce(float x, int *k)
{
	NPU_M_NOCONTRACT
	float kf = x * NPU_M_LOG2E;
	int ki = (int)(kf + (kf < 0 ? -0.5f : 0.5f));
	float fk = (float)ki;
	*k = ki;
	return (x - fk * NPU_M_LN2_HI) - fk * NPU_M_LN2_LO;
}

/* expm1(r) for |r| <= 0.35: r + r^2 Q(r), Q a degree-5 fit of
 * (expm1(r) - r) / r^2 (error < 5e-9). */
static inline float npu_m_expm1_poly(float r)
{
	NPU_M_NOCONTRACT
	float q = 1.989197044e-04f;
	q = q * r + 1.393453218e-03f;
	q = q * r + 8.333310485e-03f;
	q = q * r + 4.166645557e-02f;
	q = q * r + 1.666666716e-01f;
	q = q * r + 0.5f;
	return r + (r * r) * q;
}

static inline float npu_expf(float x)
{
	NPU_M_NOCONTRACT
	int k;
	float r;
	if (x != x)
		return x + x; /* quiets a signaling NaN */
	if (x > 89.0f)
		return NPU_M_INF; /* exp(x) > FLT_MAX above 88.7228 anyway */
	if (x < -104.0f)
		return 0.0f; /* exp(-104) < 2^-150: rounds to 0 */
	r = npu_m_reduce(x, &k);
	return npu_m_scale(1.0f + npu_m_expm1_poly(r), k);
}

static inline float npu_expm1f(float x)
{
	NPU_M_NOCONTRACT
	int k;
	float r, e;
	if (x != x)
		return x + x; /* quiets a signaling NaN */
	if (x > 89.0f)
		return NPU_M_INF;
	if (x < -17.5f)
		return -1.0f; /* e^x < 2^-25: -1 + e^x rounds to -1 */
	if (x <= 0.34657359f && x >= -0.34657359f) {
		if (x == 0.0f)
			return x; /* keeps -0 */
		return npu_m_expm1_poly(x);
	}
	r = npu_m_reduce(x, &k);
	e = npu_m_expm1_poly(r);
	/* expm1(x) = 2^k (1 + e) - 1 */
	if (k >= -24 && k <= 24) {
		float t = npu_m_pow2(k);
		return (t - 1.0f) + t * e; /* t - 1 and t * e are exact */
	}
	return npu_m_scale(1.0f + e, k) - 1.0f;
}

/* ---------------------------------------------------------------- log */

#define NPU_M_LN2_HI2 0.693145751953125f /* 16 bits: k*_HI2 exact */
#define NPU_M_LN2_LO2 1.42860677e-06f

/* log(x) for finite positive normal x, in parts: x = 2^k (1 + f) with
 * 1 + f in [sqrt(2)/2, sqrt(2)). log(1 + f) = 2 atanh(s), s = f / (2 + f),
 * |s| <= 0.1716; 2 atanh(s) = 2s + s R, R = z (2/3 + 2/5 z + 2/7 z^2 +
 * 2/9 z^3), z = s^2 (truncation error < 2e-9 relative); and
 * 2s = f - s f = f - f^2/2 + s f^2/2, so log(1 + f) = f - (h - s (h + R))
 * with h = f^2/2: the large part f is exact. */
static inline float npu_m_log_normal(uint32_t ix, int k)
{
	NPU_M_NOCONTRACT
	float f, s, z, R, h, fk;
	/* shift the mantissa range to [sqrt(2)/2, sqrt(2)) */
	ix += 0x3f800000u - 0x3f3504f3u;
	k += (int)(ix >> 23) - 127;
	ix = (ix & 0x007fffffu) + 0x3f3504f3u;
	f = npu_bits_f32(ix) - 1.0f;
	s = f / (2.0f + f);
	z = s * s;
	R = 2.0f / 9.0f;
	R = R * z + 2.0f / 7.0f;
	R = R * z + 2.0f / 5.0f;
	R = R * z + 2.0f / 3.0f;
	R = R * z;
	h = 0.5f * f * f;
	fk = (float)k;
	return fk * NPU_M_LN2_HI2 + (f - (h - (s * (h + R) + fk * NPU_M_LN2_LO2)));
}

static inline float npu_logf(float x)
{
	NPU_M_NOCONTRACT
	uint32_t ix = npu_f32_bits(x);
	int k = 0;
	if (x != x)
		return x + x; /* quiets a signaling NaN */
	if (x < 0.0f)
		return NPU_M_NAN;
	if (x == 0.0f)
		return -NPU_M_INF;
	if (ix >= 0x7f800000u)
		return x; /* +inf */
	if (ix < 0x00800000u) { /* subnormal: scale by 2^25 */
		ix = npu_f32_bits(x * 0x1p25f);
		k = -25;
	}
	return npu_m_log_normal(ix, k);
}

/* log(1 + x): u = 1 + x rounded, log1p(x) = log(u) + c/u with
 * c = x - (u - 1) the rounding error of u (first order correction). */
static inline float npu_log1pf(float x)
{
	NPU_M_NOCONTRACT
	float u, c;
	if (x != x)
		return x + x; /* quiets a signaling NaN */
	if (x < -1.0f)
		return NPU_M_NAN;
	if (x == -1.0f)
		return -NPU_M_INF;
	if (x > 3.40282347e38f)
		return x; /* +inf */
	if (x < 0x1p-24f && x > -0x1p-24f)
		return x; /* log1p(x) = x - x^2/2 rounds to x; keeps -0 */
	u = 1.0f + x;
	c = x - (u - 1.0f);
	return npu_logf(u) + c / u;
}

/* ---------------------------------------------------------------- tanh, sigmoid */

/* tanh(x) = sign(x) tanh(|x|):
 *   |x| < 2^-12           x
 *   |x| < 0.55            a + a u P(u), u = a^2, P a degree-5 fit of
 *                         (tanh(a) - a) / a^3 (error < 4e-10)
 *   |x| < 9.1             1 - 2 / (exp(2a) + 1)
 *   beyond                1 (1 - tanh(9.1) < 2^-26) */
static inline float npu_tanhf(float x)
{
	NPU_M_NOCONTRACT
	uint32_t s = npu_f32_bits(x) & 0x80000000u;
	float a = npu_bits_f32(npu_f32_bits(x) & 0x7fffffffu), r;
	if (x != x)
		return x + x; /* quiets a signaling NaN */
	if (a < 0x1p-12f)
		return x;
	if (a < 0.55f) {
		float u = a * a;
		float p = 2.526390599e-03f;
		p = p * u - 8.526332676e-03f;
		p = p * u + 2.181844972e-02f;
		p = p * u - 5.396470055e-02f;
		p = p * u + 1.333332360e-01f;
		p = p * u - 3.333333433e-01f;
		r = a + a * (u * p);
	} else if (a < 9.1f) {
		r = 1.0f - 2.0f / (npu_expf(2.0f * a) + 1.0f);
	} else {
		r = 1.0f;
	}
	return npu_m_with_sign(r, s);
}

/* 1 / (1 + exp(-x)), computed from exp of a non-positive number for both
 * signs so nothing overflows. sigmoid(-inf) = 0, sigmoid(inf) = 1. */
static inline float npu_sigmoidf(float x)
{
	NPU_M_NOCONTRACT
	float e;
	if (x != x)
		return x + x; /* quiets a signaling NaN */
	if (x >= 0.0f)
		return 1.0f / (1.0f + npu_expf(-x));
	e = npu_expf(x);
	return e / (1.0f + e);
}

/* ---------------------------------------------------------------- erf */

/* erf(x) = sign(x) erf(|x|):
 *   |x| < 1      a + a P(a^2), P a degree-6 fit of erf(a)/a - 1 in a^2
 *                (error < 1.3e-9)
 *   |x| < 4      1 - erfc(a), erfc(a) = exp(-a^2 + H(a - 2.5)), H a
 *                degree-9 fit of log(erfc(a)) + a^2 (error < 1e-8); only
 *                the absolute error of erfc matters here
 *   beyond       1 (erfc(4) < 2^-26) */
static inline float npu_erff(float x)
{
	NPU_M_NOCONTRACT
	uint32_t s = npu_f32_bits(x) & 0x80000000u;
	float a = npu_bits_f32(npu_f32_bits(x) & 0x7fffffffu), r;
	if (x != x)
		return x + x; /* quiets a signaling NaN */
	if (a < 1.0f) {
		float u = a * a;
		float p = 7.875874871e-05f;
		p = p * u - 8.016864303e-04f;
		p = p * u + 5.189087242e-03f;
		p = p * u - 2.685421146e-02f;
		p = p * u + 1.128359437e-01f;
		p = p * u - 3.761262596e-01f;
		p = p * u + 1.283791661e-01f;
		r = a + a * p;
	} else if (a < 4.0f) {
		float t = a - 2.5f;
		float h = -7.582681860e-08f;
		h = h * t + 1.615581141e-06f;
		h = h * t - 1.292569596e-05f;
		h = h * t + 7.738760178e-05f;
		h = h * t - 4.207916500e-04f;
		h = h * t + 2.165169921e-03f;
		h = h * t - 1.085811295e-02f;
		h = h * t + 5.610635504e-02f;
		h = h * t - 3.526807427e-01f;
		h = h * t - 1.556815267e+00f;
		r = 1.0f - npu_expf(h - a * a);
	} else {
		r = 1.0f;
	}
	return npu_m_with_sign(r, s);
}

/* ---------------------------------------------------------------- pow */

/* x^y: exp(y log|x|) with the sign of an odd integer power, and exact
 * special cases (IEEE pow): y == 0 or x == 1 give 1; integer exponents
 * |y| <= 64 by repeated squaring (exact for small results); a negative
 * base with a non-integer exponent gives NaN; zero and infinite bases by
 * the sign of y. */
static inline float npu_powf(float x, float y)
{
	NPU_M_NOCONTRACT
	float ay = npu_bits_f32(npu_f32_bits(y) & 0x7fffffffu);
	float ax = npu_bits_f32(npu_f32_bits(x) & 0x7fffffffu);
	if (y == 0 || x == 1)
		return 1.0f;
	if (x != x || y != y)
		return x + y;
	int yint = 0, odd = 0;
	if (ay >= 16777216.0f) {	/* every such float is an even integer */
		yint = 1;
	} else {
		int32_t iy = (int32_t)ay;
		if ((float)iy == ay) {
			yint = 1;
			odd = iy & 1;
		}
	}
	if (x < 0 && !yint)
		return NPU_M_NAN;
	uint32_t sign = x < 0 && odd ? 0x80000000u : 0;
	if (ax == 0)
		return npu_m_with_sign(y < 0 ? NPU_M_INF : 0.0f, npu_f32_bits(x) & 0x80000000u & (odd ? ~0u : 0u));
	if (ax == NPU_M_INF)
		return npu_m_with_sign(y < 0 ? 0.0f : NPU_M_INF, sign);
	if (ay == NPU_M_INF)
		return ax == 1 ? 1.0f : (ax > 1) == (y > 0) ? NPU_M_INF : 0.0f;
	float r;
	if (yint && ay <= 64) {
		uint32_t n = (uint32_t)ay;
		float b = ax;
		r = 1.0f;
		while (n) {
			if (n & 1)
				r *= b;
			n >>= 1;
			if (n)
				b *= b;
		}
		if (y < 0)
			r = 1.0f / r;
	} else {
		float t = y * npu_logf(ax);
		r = npu_expf(t);
	}
	return npu_m_with_sign(r, sign);
}

#endif
