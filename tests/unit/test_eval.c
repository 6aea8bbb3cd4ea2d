/* test_eval.c - npu-eval's figures (formats/eval) on arrays worked out by hand. */
#include "eval/eval.h"
#include "check.h"

#include <math.h>
#include <string.h>

static npy_array arr(float *v, int n)
{
	npy_array a = {.dtype = IR_DTYPE_F32, .shape = {1, {n}}, .data = v, .nbytes = sizeof(float) * (size_t)n};
	return a;
}

int main(void)
{
	float y[] = {1, 2, 3, 4}, r[] = {1, 2, 3, 5};
	npy_array a = arr(y, 4), b = arr(r, 4);
	ev_opts o = {.rtol = 0, .atol = 0.5, .ntol = 0.25};
	ev_result res;
	ir_diag d;
	double v;
	CHECK(ev_compare_arrays(&a, &b, &o, &res, &d) == 0);
	/* SQNR 10 log10(1+4+9+25 / 1) */
	CHECK(ev_metric(&res, "sqnr_db", &v) == 0 && fabs(v - 10 * log10(39.0)) < 1e-9);
	/* cosine (1+4+9+20) / sqrt(30 * 39) */
	CHECK(ev_metric(&res, "cosine", &v) == 0 && fabs(v - 34 / sqrt(30.0 * 39)) < 1e-12);
	CHECK(ev_metric(&res, "max_abs_err", &v) == 0 && v == 1);
	CHECK(ev_metric(&res, "max_rel_err", &v) == 0 && fabs(v - 0.2) < 1e-12);
	/* one value of four is beyond atol 0.5: a share 0.25, allowed by ntol 0.25 */
	CHECK(ev_metric(&res, "mismatch", &v) == 0 && v == 0.25);
	CHECK(ev_metric(&res, "allclose", &v) == 0 && v == 1);
	o.ntol = 0.2;
	CHECK(ev_compare_arrays(&a, &b, &o, &res, &d) == 0 && ev_metric(&res, "allclose", &v) == 0 && v == 0);
	/* rtol: |4 - 5| <= 0 + 0.2 * 5 */
	o.atol = 0, o.rtol = 0.2, o.ntol = 0;
	CHECK(ev_compare_arrays(&a, &b, &o, &res, &d) == 0 && ev_metric(&res, "allclose", &v) == 0 && v == 1);
	o.rtol = 0.19;
	CHECK(ev_compare_arrays(&a, &b, &o, &res, &d) == 0 && ev_metric(&res, "allclose", &v) == 0 && v == 0);
	/* no labels: no accuracy figures */
	CHECK(ev_metric(&res, "top1", &v) == -1);
	CHECK(ev_metric(&res, "nosuch", &v) == -1);

	/* identical arrays: SQNR inf, cosine 1, no error */
	CHECK(ev_compare_arrays(&b, &b, &o, &res, &d) == 0);
	CHECK(ev_metric(&res, "sqnr_db", &v) == 0 && isinf(v) && v > 0);
	CHECK(ev_metric(&res, "cosine", &v) == 0 && fabs(v - 1) < 1e-15);
	CHECK(ev_metric(&res, "max_abs_err", &v) == 0 && v == 0);

	/* a NaN where the reference is finite: a mismatch, SQNR -inf, errors inf, counted */
	float n[] = {1, NAN, 3, 5};
	npy_array c = arr(n, 4);
	o.rtol = 1, o.atol = 1, o.ntol = 0.3;
	CHECK(ev_compare_arrays(&c, &b, &o, &res, &d) == 0);
	CHECK(ev_metric(&res, "sqnr_db", &v) == 0 && isinf(v) && v < 0);
	CHECK(ev_metric(&res, "max_abs_err", &v) == 0 && isinf(v));
	CHECK(ev_metric(&res, "nan", &v) == 0 && v == 1);
	CHECK(ev_metric(&res, "mismatch", &v) == 0 && v == 0.25);
	/* NaN on both sides is no mismatch */
	CHECK(ev_compare_arrays(&c, &c, &o, &res, &d) == 0 && ev_metric(&res, "mismatch", &v) == 0 && v == 0);

	/* different counts: an error, not a comparison */
	npy_array e = arr(y, 3);
	CHECK(ev_compare_arrays(&e, &b, &o, &res, &d) == -1 && strstr(d.msg, "3 values against 4"));
	return check_done();
}
