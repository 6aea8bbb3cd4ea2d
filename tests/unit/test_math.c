/* test_math.c - the runtime's libm-free float math (npu_math.h): the error
 * of every function in ulps against libm's double functions (error =
 * |result - exact| / ulp(exact), so a correctly rounded result is <= 0.5),
 * over a sweep of bit patterns across the whole float range and a denser
 * one over the range where the function is not saturated; the special
 * values; the symmetries tanh(-x) == -tanh(x) and erf(-x) == -erf(x)
 * bitwise.
 *
 * Size knob: TEST_MATH_SHIFT (environment) = log2 of the bit-pattern
 * stride of the dense sweep (default 8; 10 under the sanitizers);
 * TEST_MATH_SHIFT=0 tests every float in the dense ranges (slow). */
#include "check.h"
#include "../../share/npu/runtime/npu_math.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define SAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SAN_BUILD 1
#endif
#endif
#ifndef SAN_BUILD
#define SAN_BUILD 0
#endif

static float f_of(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static uint32_t u_of(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

/* Error of got in ulps of the exact value ref (double). Overflow to inf,
 * NaN and exact infinities must match exactly (else 1e9). */
static double ulp_err(float got, double ref)
{
	int e;
	double ulp;
	if (isnan(ref))
		return isnan(got) ? 0 : 1e9;
	if (isinf((float)ref) || isinf(got))
		return (float)ref == got ? 0 : 1e9;
	if (ref == 0)
		return got == 0 ? 0 : fabs(got) / 0x1p-149;
	frexp(ref, &e); /* ref = m 2^e, m in [0.5, 1) */
	ulp = ldexp(1.0, e - 24 < -149 ? -149 : e - 24);
	return fabs((double)got - ref) / ulp;
}

static double ref_sigmoid(double x)
{
	return x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x));
}

typedef struct {
	const char *name;
	float (*f)(float);
	double (*ref)(double);
	uint32_t lo, hi; /* dense range of |x| as bit patterns */
	double bound;    /* asserted max ulp error */
	int odd;         /* f(-x) == -f(x) bitwise */
	double max_err;
	float worst;
} fn;

static void measure(fn *t, float x)
{
	float y = t->f(x);
	double e = ulp_err(y, t->ref(x));
	if (e > t->max_err || (e == t->max_err && t->worst != t->worst)) {
		t->max_err = e;
		t->worst = x;
	}
	if (t->odd && u_of(t->f(-x)) != (u_of(y) ^ 0x80000000u) && !(y != y)) {
		t->max_err = 1e9;
		t->worst = x;
	}
}

static void sweep(fn *t, int shift)
{
	uint32_t step = 1u << (shift + 8), u;
	/* every float's magnitude, both signs, coarse: 2^31/step points */
	for (u = 0; u < 0x7f800000u; u += step) {
		measure(t, f_of(u));
		measure(t, f_of(u | 0x80000000u));
	}
	/* dense over the interesting range */
	step = 1u << shift;
	for (u = t->lo; u <= t->hi && u >= t->lo; u += step) {
		measure(t, f_of(u));
		if (!t->odd)
			measure(t, f_of(u | 0x80000000u));
	}
	/* and the edges of the range exactly */
	for (u = 0; u < 64; u++) {
		measure(t, f_of(t->lo + u));
		measure(t, f_of(t->hi - u));
		measure(t, -f_of(t->lo + u));
		measure(t, -f_of(t->hi - u));
	}
	printf("# %-10s max error %.3f ulp at %a (%.9g)\n", t->name, t->max_err,
	       (double)t->worst, (double)t->worst);
	CHECK_MSG(t->max_err <= t->bound, "%s: %.3f ulp > %.1f at %a", t->name,
		  t->max_err, t->bound, (double)t->worst);
}

#define B(f) u_of(f)

static void test_accuracy(void)
{
	static fn fns[] = {
		/* exp: below 2^-26 the result is 1; beyond 104 saturated */
		{"expf", npu_expf, exp, 0x32800000u, 0x42d00000u /* 104 */, 2, 0, 0, 0},
		{"expm1f", npu_expm1f, expm1, 0x00000001u, 0x42b20000u /* 89 */, 2, 0, 0, 0},
		/* log: the same code for every binade; the coarse sweep covers the
		 * rest, logf-sub below the subnormals */
		{"logf", npu_logf, log, 0x3e800000u /* 0.25 */, 0x40800000u /* 4 */, 2, 0, 0, 0},
		{"log1pf", npu_log1pf, log1p, 0x30800000u /* 2^-30 */, 0x40800000u, 2, 0, 0, 0},
		{"tanhf", npu_tanhf, tanh, 0x39000000u, 0x41200000u /* 10 */, 3, 1, 0, 0},
		{"sigmoidf", npu_sigmoidf, ref_sigmoid, 0x32800000u, 0x42d00000u, 3, 0, 0, 0},
		{"erff", npu_erff, erf, 0x00000001u, 0x40900000u /* 4.5 */, 3, 1, 0, 0},
	};
	int shift = SAN_BUILD ? 10 : 8;
	const char *env = getenv("TEST_MATH_SHIFT");
	size_t i;
	if (env)
		shift = atoi(env);
	for (i = 0; i < sizeof fns / sizeof fns[0]; i++)
		sweep(&fns[i], shift);
	/* log/log1p over all floats with a coarser dense stride is above;
	 * subnormal arguments of log once more, densely */
	{
		fn t = {"logf-sub", npu_logf, log, 0x00000001u, 0x00800000u, 2, 0, 0, 0};
		sweep(&t, shift > 4 ? shift - 4 : 0);
	}
	{
		fn t = {"erff-tiny", npu_erff, erf, 0x00000001u, 0x39800000u, 3, 1, 0, 0};
		sweep(&t, shift);
	}
}

static int same(float a, float b)
{
	return u_of(a) == u_of(b) || (a != a && b != b);
}

static void test_special(void)
{
	float inf = f_of(0x7f800000u), nan = f_of(0x7fc00000u);
	float sub = f_of(0x00000001u), nsub = f_of(0x80000001u);

	CHECK(same(npu_expf(-inf), 0.0f));
	CHECK(same(npu_expf(inf), inf));
	CHECK(npu_expf(nan) != npu_expf(nan));
	CHECK(same(npu_expf(0.0f), 1.0f));
	CHECK(same(npu_expf(-0.0f), 1.0f));
	CHECK(same(npu_expf(88.72283f), 3.40279851e38f));
	CHECK(same(npu_expf(88.7229f), inf));
	CHECK(same(npu_expf(1000.0f), inf));
	CHECK(same(npu_expf(-87.33654f), 0x1.00004cp-126f)); /* just above FLT_MIN */
	CHECK(npu_expf(-100.0f) > 0 && npu_expf(-100.0f) < FLT_MIN); /* subnormal */
	CHECK(same(npu_expf(-103.972f), sub));              /* 2^-149.9997 rounds up */
	CHECK(same(npu_expf(-104.0f), 0.0f));
	CHECK(same(npu_expf(-1000.0f), 0.0f));
	CHECK(same(npu_expf(1.0f), 2.71828183f));

	CHECK(same(npu_expm1f(0.0f), 0.0f));
	CHECK(same(npu_expm1f(-0.0f), -0.0f));
	CHECK(same(npu_expm1f(-inf), -1.0f));
	CHECK(same(npu_expm1f(inf), inf));
	CHECK(same(npu_expm1f(sub), sub));
	CHECK(same(npu_expm1f(nsub), nsub));
	CHECK(npu_expm1f(nan) != npu_expm1f(nan));

	CHECK(same(npu_logf(0.0f), -inf));
	CHECK(same(npu_logf(-0.0f), -inf));
	CHECK(npu_logf(-1.0f) != npu_logf(-1.0f));
	CHECK(npu_logf(-inf) != npu_logf(-inf));
	CHECK(npu_logf(nsub) != npu_logf(nsub));
	CHECK(npu_logf(nan) != npu_logf(nan));
	CHECK(same(npu_logf(inf), inf));
	CHECK(same(npu_logf(1.0f), 0.0f));
	CHECK(same(npu_logf(sub), -103.278931f));          /* log(2^-149) */
	CHECK(same(npu_logf(FLT_MAX), 88.7228394f));
	CHECK(same(npu_logf(2.0f), 0.693147182f));

	CHECK(same(npu_log1pf(0.0f), 0.0f));
	CHECK(same(npu_log1pf(-0.0f), -0.0f));
	CHECK(same(npu_log1pf(-1.0f), -inf));
	CHECK(npu_log1pf(-2.0f) != npu_log1pf(-2.0f));
	CHECK(same(npu_log1pf(inf), inf));
	CHECK(same(npu_log1pf(sub), sub));
	CHECK(npu_log1pf(nan) != npu_log1pf(nan));

	CHECK(same(npu_tanhf(inf), 1.0f));
	CHECK(same(npu_tanhf(-inf), -1.0f));
	CHECK(same(npu_tanhf(0.0f), 0.0f));
	CHECK(same(npu_tanhf(-0.0f), -0.0f));
	CHECK(same(npu_tanhf(sub), sub));
	CHECK(same(npu_tanhf(nsub), nsub));
	CHECK(same(npu_tanhf(1e-5f), 1e-5f));
	CHECK(same(npu_tanhf(20.0f), 1.0f));
	CHECK(same(npu_tanhf(-20.0f), -1.0f));
	CHECK(npu_tanhf(nan) != npu_tanhf(nan));

	CHECK(same(npu_sigmoidf(-inf), 0.0f));
	CHECK(same(npu_sigmoidf(inf), 1.0f));
	CHECK(same(npu_sigmoidf(0.0f), 0.5f));
	CHECK(same(npu_sigmoidf(-0.0f), 0.5f));
	CHECK(same(npu_sigmoidf(100.0f), 1.0f));
	CHECK(same(npu_sigmoidf(-200.0f), 0.0f));
	CHECK(npu_sigmoidf(-100.0f) > 0 && npu_sigmoidf(-100.0f) < FLT_MIN);
	CHECK(npu_sigmoidf(nan) != npu_sigmoidf(nan));

	CHECK(same(npu_erff(inf), 1.0f));
	CHECK(same(npu_erff(-inf), -1.0f));
	CHECK(same(npu_erff(0.0f), 0.0f));
	CHECK(same(npu_erff(-0.0f), -0.0f));
	CHECK(same(npu_erff(10.0f), 1.0f));
	CHECK(same(npu_erff(-10.0f), -1.0f));
	CHECK(npu_erff(sub) > 0 && npu_erff(nsub) < 0);
	CHECK(npu_erff(nan) != npu_erff(nan));

	/* NaN payloads pass through unchanged */
	{
		float p = f_of(0x7fc12345u);
		CHECK(u_of(npu_expf(p)) == 0x7fc12345u);
		CHECK(u_of(npu_logf(p)) == 0x7fc12345u);
		CHECK(u_of(npu_tanhf(p)) == 0x7fc12345u);
		CHECK(u_of(npu_sigmoidf(p)) == 0x7fc12345u);
		CHECK(u_of(npu_erff(p)) == 0x7fc12345u);
		CHECK(u_of(npu_expm1f(p)) == 0x7fc12345u);
		CHECK(u_of(npu_log1pf(p)) == 0x7fc12345u);
	}
	/* a signaling NaN comes back quieted, payload kept */
	{
		float p = f_of(0xff812345u);
		CHECK(u_of(npu_expf(p)) == 0xffc12345u);
		CHECK(u_of(npu_logf(p)) == 0xffc12345u);
		CHECK(u_of(npu_tanhf(p)) == 0xffc12345u);
		CHECK(u_of(npu_erff(p)) == 0xffc12345u);
	}
	/* a NaN made from a number is the canonical quiet NaN */
	CHECK(u_of(npu_logf(-1.0f)) == 0x7fc00000u);
	CHECK(u_of(npu_log1pf(-2.0f)) == 0x7fc00000u);
}

int main(void)
{
	test_special();
	test_accuracy();
	return check_done();
}
