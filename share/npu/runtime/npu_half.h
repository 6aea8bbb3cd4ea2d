/* npu_half.h - IEEE 754 binary16 conversions for the npukit runtime.
 *
 * Portable C99, no libm, no stdio: the emitted code and libir's interpreter
 * (fp16 emulation) include this same file, so both round identically.
 * Float to half rounds to nearest, ties to even; values too large become
 * +-inf, tiny ones become half subnormals (or signed zero); NaN stays NaN
 * (quiet, payload's top bits kept). bfloat16 conversions too. */
#ifndef NPU_HALF_H
#define NPU_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t npu_f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

static inline float npu_bits_f32(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static inline uint16_t npu_f32_to_f16(float f)
{
	uint32_t x = npu_f32_bits(f);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
	uint32_t exp = (x >> 23) & 0xffu;
	uint32_t man = x & 0x7fffffu;

	if (exp == 0xffu)	/* inf or NaN */
		return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0u));
	/* unbiased exponent e = exp - 127; half normal needs e in [-14, 15] */
	if (exp > 127 + 15)
		return (uint16_t)(sign | 0x7c00u);
	if (exp >= 127 - 14) {
		uint32_t h = ((exp - 127 + 15) << 10) | (man >> 13);
		uint32_t rest = man & 0x1fffu;
		/* round to nearest even; a carry into the exponent is correct
		 * (it may produce inf, which is the right answer) */
		if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
			h++;
		return (uint16_t)(sign | h);
	}
	/* subnormal half (or zero): value = m * 2^-24, m < 1024 */
	if (exp < 127 - 25)	/* below half the smallest subnormal: zero */
		return sign;
	{
		uint32_t m = man | 0x800000u;	/* 24-bit significand */
		uint32_t shift = (127 - 14) - exp + 13;	/* 14..24 */
		uint32_t h = m >> shift;
		uint32_t rest = m & ((1u << shift) - 1u);
		uint32_t halfway = 1u << (shift - 1);
		if (rest > halfway || (rest == halfway && (h & 1u)))
			h++;
		return (uint16_t)(sign | h);
	}
}

static inline float npu_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu;
	uint32_t man = h & 0x3ffu;

	if (exp == 0x1fu)
		return npu_bits_f32(sign | 0x7f800000u | (man << 13));
	if (exp == 0) {
		if (man == 0)
			return npu_bits_f32(sign);
		/* subnormal: normalize */
		exp = 127 - 14;
		while (!(man & 0x400u)) {
			man <<= 1;
			exp--;
		}
		man &= 0x3ffu;
		return npu_bits_f32(sign | (exp << 23) | (man << 13));
	}
	return npu_bits_f32(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

/* bfloat16: the top half of a float32. Rounding to nearest even; NaN
 * stays a (quiet) NaN. */
static inline uint16_t npu_f32_to_bf16(float f)
{
	uint32_t u = npu_f32_bits(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static inline float npu_bf16_to_f32(uint16_t h) { return npu_bits_f32((uint32_t)h << 16); }

#endif
