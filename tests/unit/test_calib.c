/* test_calib.c - calibration statistics (libir/ir_calib.c): every method on
 * small sets whose ranges are derived by hand in the comments, on synthetic
 * distributions with known parameters (a deterministic LCG and inverse
 * CDFs), shard merges equal to one run bit for bit, the stats file round
 * trip, hostile stats files, and constant memory. */
#include "check.h"
#include "ir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

static uint64_t lcg_state;

static void lcg_seed(uint64_t s) { lcg_state = s; }

/* Uniform in (0, 1), 53 bits. */
static double lcg_uniform(void)
{
	lcg_state = lcg_state * 6364136223846793005u + 1442695040888963407u;
	return ((double)(lcg_state >> 11) + 0.5) / 9007199254740992.0;
}

static float gauss(double sigma)	/* Box-Muller, one of the pair */
{
	double u1 = lcg_uniform(), u2 = lcg_uniform();
	return (float)(sigma * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2));
}

static float laplace(double b)		/* inverse CDF */
{
	double u = lcg_uniform() - 0.5;
	return (float)(u < 0 ? b * log(1 + 2 * u) : -b * log(1 - 2 * u));
}

static void observe(ir_calib *c, const char *t, const float *x, int64_t n)
{
	ir_diag d;
	CHECK_MSG(ir_calib_observe(c, t, x, n, &d) == 0, "%s", d.msg);
}

static ir_calib_method method(const char *s)
{
	ir_calib_method m = {IR_CALIB_MINMAX, 0};
	ir_diag d;
	if (ir_calib_method_parse(s, &m, &d) < 0)
		printf("# %s\n", d.msg);
	return m;
}

/* Range of t; lo = hi = NAN on failure (with a failed CHECK). */
static void range(const ir_calib *c, const char *t, const char *meth, int bits, bool sym,
		  float *lo, float *hi)
{
	ir_calib_method m = method(meth);
	ir_diag d;
	*lo = *hi = NAN;
	CHECK_MSG(ir_calib_range(c, t, &m, bits, sym, lo, hi, &d) == 0, "%s: %s", meth, d.msg);
	CHECK_MSG(*lo <= 0 && *hi >= 0 && *lo < *hi, "%s %s: [%g, %g]", t, meth, *lo, *hi);
}

#define NEAR(a, b, tol) CHECK_MSG(fabs((double)(a) - (double)(b)) <= (tol), \
				  "%s = %.9g, expected %.9g +- %g", #a, (double)(a), (double)(b), (double)(tol))

/* Everything c would write, as a string (caller frees). */
static char *dump(const ir_calib *c, size_t *size)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	ir_diag d;
	CHECK_MSG(f && ir_calib_write(c, f, &d) == 0, "%s", d.msg);
	fclose(f);
	if (size)
		*size = n;
	return buf;
}

static bool contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

/* ---------------------------------------------------------------- small sets by hand */

static void test_minmax_averaging(void)
{
	ir_calib *c = ir_calib_new();
	const float b1[] = {-1, 0.5f, 2}, b2[] = {3};
	observe(c, "x", b1, 3);
	observe(c, "x", b2, 1);
	double mn, mx;
	int64_t n, batches;
	CHECK(ir_calib_summary(c, "x", &mn, &mx, &n, &batches) == 0);
	CHECK(mn == -1 && mx == 3 && n == 4 && batches == 2);
	CHECK(ir_calib_summary(c, "y", &mn, &mx, &n, &batches) == -1);
	float lo, hi;
	range(c, "x", "minmax", 8, false, &lo, &hi);
	CHECK(lo == -1 && hi == 3);
	range(c, "x", "minmax", 8, true, &lo, &hi);
	CHECK(lo == -1 && hi == 3);
	/* batch minima -1, 3 -> 1, widened to include 0; maxima 2, 3 -> 2.5 */
	range(c, "x", "averaging", 8, false, &lo, &hi);
	CHECK(lo == 0 && hi == 2.5f);
	/* batches [-4, 1] and [-2, 5]: minima -4, -2 -> -3; maxima 1, 5 -> 3 */
	const float b3[] = {-4, 1}, b4[] = {5, -2};
	observe(c, "z", b3, 2);
	observe(c, "z", b4, 2);
	range(c, "z", "averaging", 8, false, &lo, &hi);
	CHECK(lo == -3 && hi == 3);
	ir_calib_free(c);
}

static void test_meanstd(void)
{
	/* {-3,-1,-1,-1,0,0,2,4}: mean 0, squares 9+1+1+1+0+0+4+16 = 32, var 4, std 2. */
	const float v[] = {-3, -1, -1, -1, 0, 0, 2, 4};
	ir_calib *c = ir_calib_new();
	observe(c, "t", v, 3);
	observe(c, "t", v + 3, 5);
	float lo, hi;
	range(c, "t", "meanstd:1", 8, false, &lo, &hi);
	CHECK(lo == -2 && hi == 2);
	range(c, "t", "meanstd:1.5", 8, false, &lo, &hi);
	CHECK(lo == -3 && hi == 3);
	range(c, "t", "meanstd", 8, false, &lo, &hi);	/* N = 3: [-6, 6] clipped to [-3, 4] */
	CHECK(lo == -3 && hi == 4);
	/* Shifted by +10 (mean 10, std 2): meanstd:1 -> [8, 12], widened to [0, 12]. */
	float w[8];
	for (int i = 0; i < 8; i++)
		w[i] = v[i] + 10;
	observe(c, "s", w, 8);
	range(c, "s", "meanstd:1", 8, false, &lo, &hi);
	CHECK(lo == 0 && hi == 12);
	ir_calib_free(c);
}

static void test_nan_inf_zero(void)
{
	ir_calib *c = ir_calib_new();
	ir_diag d;
	const float v[] = {NAN, 1, NAN, -0.5f};
	observe(c, "n", v, 4);
	int64_t n;
	CHECK(ir_calib_summary(c, "n", NULL, NULL, &n, NULL) == 0 && n == 2);
	CHECK(ir_calib_nan_count(c, "n") == 2);
	/* An infinity rejects the whole batch. */
	const float w[] = {7, INFINITY};
	CHECK(ir_calib_observe(c, "n", w, 2, &d) == -1);
	CHECK_MSG(contains(d.msg, "tensor 'n': calibration produced inf"), "%s", d.msg);
	double mx;
	CHECK(ir_calib_summary(c, "n", NULL, &mx, &n, NULL) == 0 && mx == 1 && n == 2);
	CHECK(ir_calib_observe(c, "", v, 1, &d) == -1);
	CHECK(ir_calib_observe(c, "n", NULL, 3, &d) == -1);
	CHECK(ir_calib_observe(c, "n", v, -1, &d) == -1);
	CHECK(ir_calib_observe(c, "n", NULL, 0, &d) == 0);

	/* Only NaNs: known, but no range. */
	observe(c, "allnan", v, 1);
	ir_calib_method m = method("minmax");
	float lo, hi;
	CHECK(ir_calib_range(c, "allnan", &m, 8, false, &lo, &hi, &d) == -1);
	CHECK_MSG(contains(d.msg, "no values"), "%s", d.msg);
	CHECK(ir_calib_range(c, "nosuch", &m, 8, false, &lo, &hi, &d) == -1);
	CHECK_MSG(contains(d.msg, "'nosuch'"), "%s", d.msg);
	CHECK(ir_calib_range(c, "n", &m, 1, false, &lo, &hi, &d) == -1);
	CHECK(ir_calib_range(c, "n", &m, 17, false, &lo, &hi, &d) == -1);
	ir_calib_method bad = {IR_CALIB_PERCENTILE, 10};
	CHECK(ir_calib_range(c, "n", &bad, 8, false, &lo, &hi, &d) == -1);
	bad = (ir_calib_method){IR_CALIB_MEANSTD, NAN};
	CHECK(ir_calib_range(c, "n", &bad, 8, false, &lo, &hi, &d) == -1);
	bad = (ir_calib_method){IR_CALIB_KIND_COUNT, 0};
	CHECK(ir_calib_range(c, "n", &bad, 8, false, &lo, &hi, &d) == -1);

	/* All zeros: every method gives a tiny non-empty range [0, 2^-20]. */
	const float z[] = {0, -0.0f, 0};
	observe(c, "zero", z, 3);
	static const char *const all[] = {"minmax", "averaging", "meanstd", "percentile", "kld", "aciq"};
	for (int i = 0; i < 6; i++)
		for (int sym = 0; sym < 2; sym++) {
			range(c, "zero", all[i], 8, sym, &lo, &hi);
			CHECK_MSG(lo == 0 && hi == 0x1p-20f, "%s: [%g, %g]", all[i], lo, hi);
		}
	/* All positive (a ReLU output): lo is 0 for every method. */
	const float pos[] = {1, 2, 3, 4};
	observe(c, "relu", pos, 4);
	for (int i = 0; i < 6; i++)
		for (int sym = 0; sym < 2; sym++) {
			range(c, "relu", all[i], 8, sym, &lo, &hi);
			CHECK_MSG(lo == 0 && hi > 0 && hi <= 4, "%s: [%g, %g]", all[i], lo, hi);
		}
	ir_calib_free(c);
}

/* ---------------------------------------------------------------- methods on distributions */

static void test_percentile(void)
{
	/* Ramp k/10000 * 8, k = 1..10000: the P-th percentile is P/100 * 8.
	 * R = 8 would not hold 8 (R > absmax), so R = 16 and bins are 1/128 wide. */
	enum { N = 10000 };
	static float v[N];
	for (int k = 0; k < N; k++)
		v[k] = (float)(k + 1) / N * 8;
	ir_calib *c = ir_calib_new();
	observe(c, "ramp", v, N);
	const double w = 1.0 / 128;
	float lo, hi;
	range(c, "ramp", "percentile:99", 8, true, &lo, &hi);
	NEAR(hi, 0.99 * 8, w);
	CHECK(lo == 0);
	range(c, "ramp", "percentile:99", 8, false, &lo, &hi);
	NEAR(hi, 0.99 * 8, w);
	CHECK(lo == 0);
	range(c, "ramp", "percentile:90", 8, false, &lo, &hi);
	NEAR(hi, 0.9 * 8, w);
	range(c, "ramp", "percentile:100", 8, false, &lo, &hi);
	CHECK(hi == 8);

	/* Symmetric ramp -8..8 (2N values): percentile:99 of |x| is 0.99 * 8;
	 * asymmetric: the 1st percentile of x is -0.98 * 8 (2% of 2N below), the
	 * 99th +0.98 * 8. */
	static float s[2 * N];
	for (int k = 0; k < N; k++) {
		s[2 * k] = v[k];
		s[2 * k + 1] = -v[k];
	}
	observe(c, "sym", s, 2 * N);
	range(c, "sym", "percentile:99", 8, true, &lo, &hi);
	NEAR(hi, 0.99 * 8, w);
	NEAR(lo, -0.99 * 8, w);
	range(c, "sym", "percentile:99", 8, false, &lo, &hi);
	NEAR(hi, 0.98 * 8, w);
	NEAR(lo, -0.98 * 8, w);
	ir_calib_free(c);
}

static void test_kld(void)
{
	enum { N = 200000 };
	static float v[N];
	lcg_seed(42);
	for (int k = 0; k < N; k++)
		v[k] = gauss(1.0);
	ir_calib *c = ir_calib_new();
	for (int b = 0; b < 10; b++)
		observe(c, "g", v + b * (N / 10), N / 10);
	double mn, mx;
	ir_calib_summary(c, "g", &mn, &mx, NULL, NULL);
	double absmax = fmax(-mn, mx);
	float lo, hi;
	/* 8 bits, Gaussian with sigma 1: the entropy threshold clips the sparse
	 * tail, above 3 sigma and below the absmax (about 5 sigma for 2e5
	 * values). (TensorRT's loop gives 4 to 4.5 sigma on such samples, also
	 * with its own 2048 bins over [0, absmax]; not 2 to 4.) */
	range(c, "g", "kld", 8, true, &lo, &hi);
	printf("# kld gauss 8 bits: [%g, %g], absmax %g\n", lo, hi, absmax);
	float t = fmaxf(-lo, hi);
	CHECK_MSG(t > 3 && t < absmax - 0.2, "t = %g", t);
	/* asymmetric: each side on its own, the same bounds */
	range(c, "g", "kld", 8, false, &lo, &hi);
	printf("# kld gauss 8 bits asymmetric: [%g, %g]\n", lo, hi);
	CHECK_MSG(lo < -3 && lo > mn && hi > 3 && hi < mx, "[%g, %g]", lo, hi);
	/* fewer bits clip more; 16 bits: 32768 levels > 2048 bins, so minmax */
	float lo4, hi4, lo16, hi16;
	range(c, "g", "kld", 4, true, &lo4, &hi4);
	range(c, "g", "kld", 16, true, &lo16, &hi16);
	printf("# kld gauss 4 bits: %g, 16 bits: %g\n", fmaxf(-lo4, hi4), fmaxf(-lo16, hi16));
	CHECK(fmaxf(-lo4, hi4) < t);
	CHECK(fmaxf(-lo16, hi16) == (float)absmax);

	/* Five outliers at +-100 among 2e5: R = 128, bin width 1/16, so the
	 * smallest candidate is 128 bins = 8; the threshold stays far below 100. */
	float *o = malloc(N * sizeof *o);
	memcpy(o, v, N * sizeof *o);
	for (int k = 0; k < 5; k++)
		o[k * 1000] = k % 2 ? 100.0f : -100.0f;
	observe(c, "outl", o, N);
	range(c, "outl", "kld", 8, true, &lo, &hi);
	printf("# kld outliers 8 bits: [%g, %g]\n", lo, hi);
	CHECK_MSG(fmaxf(-lo, hi) >= 8 && fmaxf(-lo, hi) < 25, "[%g, %g]", lo, hi);
	free(o);

	/* ReLU of the Gaussian: lo = 0 (asymmetric: one side, all 256 levels).
	 * Half the mass sits in bin 0, and the entropy loop clips hard: TensorRT's
	 * own binning gives about 1.9 sigma on such a sample. */
	for (int k = 0; k < N; k++)
		v[k] = fmaxf(v[k], 0);
	observe(c, "relu", v, N);
	ir_calib_summary(c, "relu", NULL, &mx, NULL, NULL);
	range(c, "relu", "kld", 8, false, &lo, &hi);
	printf("# kld relu 8 bits asymmetric: [%g, %g], max %g\n", lo, hi, mx);
	CHECK_MSG(lo == 0 && hi > 1.5 && hi < mx - 1, "[%g, %g]", lo, hi);
	range(c, "relu", "kld", 8, true, &lo, &hi);
	printf("# kld relu 8 bits symmetric: [%g, %g]\n", lo, hi);
	CHECK_MSG(lo == 0 && hi > 1.5 && hi < mx - 1, "[%g, %g]", lo, hi);

	/* Uniform on (-1, 1): nothing to gain by clipping a flat density, the
	 * threshold is within a few bins (w = 1/2048) of the absmax. */
	for (int k = 0; k < N; k++)
		v[k] = (float)(2 * lcg_uniform() - 1);
	observe(c, "unif", v, N);
	range(c, "unif", "kld", 8, true, &lo, &hi);
	printf("# kld uniform 8 bits: [%g, %g]\n", lo, hi);
	CHECK_MSG(fmaxf(-lo, hi) > 0.99f, "[%g, %g]", lo, hi);
	ir_calib_free(c);
}

static void test_aciq(void)
{
	/* The paper's table (Banner et al. 2019, Laplace, alpha/b by bits). */
	static const double table[][2] = {{2, 2.83}, {3, 3.89}, {4, 5.03}, {5, 6.2},
					  {6, 7.41}, {7, 8.64}, {8, 9.89}};
	for (int i = 0; i < 7; i++)
		NEAR(ir_calib_aciq_factor((int)table[i][0]), table[i][1], 0.01);
	CHECK(ir_calib_aciq_factor(16) > ir_calib_aciq_factor(8));
	CHECK(ir_calib_aciq_factor(1) == 0 && ir_calib_aciq_factor(17) == 0);

	/* Laplace with b = 0.25 and mean 0: alpha = 9.89 * 0.25 = 2.47 at 8 bits
	 * (the sample's absmax, about b ln(N/2) = 2.9, is larger). */
	enum { N = 200000 };
	static float v[N];
	lcg_seed(7);
	for (int k = 0; k < N; k++)
		v[k] = laplace(0.25);
	ir_calib *c = ir_calib_new();
	observe(c, "lap", v, N);
	float lo, hi;
	double alpha = ir_calib_aciq_factor(8) * 0.25;
	range(c, "lap", "aciq", 8, true, &lo, &hi);
	NEAR(hi, alpha, 0.02 * alpha);
	NEAR(lo, -alpha, 0.02 * alpha);
	range(c, "lap", "aciq", 8, false, &lo, &hi);
	NEAR(hi, alpha, 0.03 * alpha);
	NEAR(lo, -alpha, 0.03 * alpha);
	/* 4 bits: 5.03 * 0.25 */
	range(c, "lap", "aciq", 4, true, &lo, &hi);
	NEAR(hi, 5.03 * 0.25, 0.02 * 5.03 * 0.25);

	/* Shifted by +1 (mean 1): asymmetric is centred at the mean,
	 * [1 - 2.47, 1 + 2.47]; symmetric [-t, t] clipped: hi = 2.47. */
	for (int k = 0; k < N; k++)
		v[k] += 1;
	observe(c, "shift", v, N);
	range(c, "shift", "aciq", 8, false, &lo, &hi);
	NEAR(hi, 1 + alpha, 0.03 * alpha);
	NEAR(lo, 1 - alpha, 0.03 * alpha);
	range(c, "shift", "aciq", 8, true, &lo, &hi);
	NEAR(hi, alpha, 0.03 * alpha);
	ir_calib_free(c);
}

/* ---------------------------------------------------------------- merges and files */

static const char *const methods[] = {
	"minmax", "averaging", "meanstd:1", "meanstd:3", "percentile:90", "percentile:99.99",
	"percentile:100", "kld", "aciq", "mse",
};
#define N_METHODS (int)(sizeof methods / sizeof *methods)

/* Every method, bits and symmetry give bit-identical ranges in a and b. */
static void same_ranges(const ir_calib *a, const ir_calib *b, const char *what)
{
	CHECK(ir_calib_tensor_count(a) == ir_calib_tensor_count(b));
	int bad = 0, n = 0;
	for (int i = 0; i < ir_calib_tensor_count(a); i++) {
		const char *t = ir_calib_tensor_name(a, i);
		for (int k = 0; k < N_METHODS; k++)
			for (int bits = 4; bits <= 16; bits += 4)
				for (int sym = 0; sym < 2; sym++) {
					ir_calib_method m = method(methods[k]);
					float l1, h1, l2, h2;
					ir_diag d;
					int r1 = ir_calib_range(a, t, &m, bits, sym, &l1, &h1, &d);
					int r2 = ir_calib_range(b, t, &m, bits, sym, &l2, &h2, &d);
					n++;
					if (r1 != r2 || (r1 == 0 && (memcmp(&l1, &l2, sizeof l1) ||
								   memcmp(&h1, &h2, sizeof h1)))) {
						if (bad++ < 5)
							printf("# %s: %s %s %d %d: [%a, %a] vs [%a, %a]\n", what,
							       t, methods[k], bits, sym, l1, h1, l2, h2);
					}
				}
	}
	CHECK_MSG(bad == 0 && n > 0, "%s: %d of %d ranges differ", what, bad, n);
}

/* Batches of varied magnitudes, so that double sums would round and R grows. */
static void make_batch(float *x, int n, double scale)
{
	for (int k = 0; k < n; k++)
		x[k] = (float)(gauss(scale) + (k % 7 == 0 ? 0.1 * scale : 0)) *
		       (k % 13 == 0 ? 1e-5f : 1.0f);
}

static void test_merge(void)
{
	enum { B = 6, N = 3000 };
	static float x[B][N];
	static const double scale[B] = {0.01, 3.7, 0.5, 1e3, 0.0001, 42};
	lcg_seed(123);
	for (int b = 0; b < B; b++)
		make_batch(x[b], N, scale[b]);
	x[2][5] = NAN;
	static const char *const names[] = {"conv1", "a b\nc%d", "relu"};
	ir_calib *one = ir_calib_new(), *rev = ir_calib_new(), *sa = ir_calib_new(),
		 *sb = ir_calib_new();
	for (int b = 0; b < B; b++)
		for (int t = 0; t < 3; t++) {
			int n = N - 100 * t;
			observe(one, names[t], x[b], n);
			observe(rev, names[t], x[B - 1 - b], n);
			observe(b % 2 ? sa : sb, names[t], x[b], n);	/* interleaved shards */
		}
	/* only NaNs in one shard, values in the other */
	const float nans[] = {NAN, NAN};
	observe(sa, "late", nans, 2);
	observe(one, "late", nans, 2);
	observe(sb, "late", x[0], 50);
	observe(one, "late", x[0], 50);
	observe(rev, "late", x[0], 50);
	observe(rev, "late", nans, 2);
	/* a tensor only one shard saw */
	observe(sa, "only_a", x[1], 10);
	observe(one, "only_a", x[1], 10);
	observe(rev, "only_a", x[1], 10);

	same_ranges(one, rev, "reversed batch order");

	/* in-memory merge */
	ir_calib *m = ir_calib_new();
	ir_diag d;
	CHECK_MSG(ir_calib_merge(m, sa, &d) == 0, "%s", d.msg);
	CHECK_MSG(ir_calib_merge(m, sb, &d) == 0, "%s", d.msg);
	same_ranges(one, m, "merge(a, b)");

	/* through files, the other order */
	size_t na, nb;
	char *fa = dump(sa, &na), *fb = dump(sb, &nb);
	ir_calib *f = ir_calib_new();
	CHECK_MSG(ir_calib_read(f, (const uint8_t *)fb, nb, "b.stats", &d) == 0, "%s", d.msg);
	CHECK_MSG(ir_calib_read(f, (const uint8_t *)fa, na, "a.stats", &d) == 0, "%s", d.msg);
	same_ranges(one, f, "read(b) + read(a)");

	/* the statistics themselves are identical: same file bytes */
	size_t n1, n2, n3;
	char *d1 = dump(one, &n1), *d2 = dump(f, &n2), *d3 = dump(rev, &n3);
	CHECK(n1 == n2 && !memcmp(d1, d2, n1));
	CHECK(n1 == n3 && !memcmp(d1, d3, n1));
	int64_t cnt, batches;
	CHECK(ir_calib_summary(f, "conv1", NULL, NULL, &cnt, &batches) == 0);
	CHECK(cnt == B * N - 1 && batches == B);
	CHECK(ir_calib_nan_count(f, "conv1") == 1);
	/* names in strcmp order */
	CHECK(!strcmp(ir_calib_tensor_name(f, 0), "a b\nc%d"));
	CHECK(!strcmp(ir_calib_tensor_name(f, 4), "relu"));
	CHECK(ir_calib_tensor_name(f, 5) == NULL);
	CHECK(ir_calib_nan_count(f, "late") == 2);
	free(fa);
	free(fb);
	free(d1);
	free(d2);
	free(d3);
	ir_calib_free(one);
	ir_calib_free(rev);
	ir_calib_free(sa);
	ir_calib_free(sb);
	ir_calib_free(m);
	ir_calib_free(f);
}

static void test_roundtrip(void)
{
	ir_calib *c = ir_calib_new();
	float x[500];
	lcg_seed(99);
	make_batch(x, 500, 2.5);
	observe(c, "plain", x, 500);
	observe(c, "with space", x, 100);
	observe(c, "nl\nand%and\x01\xff", x + 100, 300);
	observe(c, "subnormal", (const float[]){0x1p-149f, -0x1p-140f, 0x1.fffffep127f}, 3);
	size_t n;
	char *text = dump(c, &n);
	CHECK(!strncmp(text, "npu-calib-stats 1\n", 18));
	CHECK(contains(text, "tensor with%20space "));
	CHECK(contains(text, "tensor nl%0Aand%25and%01%FF "));
	/* one header line and one line per tensor */
	int lines = 0;
	for (size_t i = 0; i < n; i++)
		lines += text[i] == '\n';
	CHECK(lines == 5);
	ir_calib *r = ir_calib_new();
	ir_diag d;
	CHECK_MSG(ir_calib_read(r, (const uint8_t *)text, n, "rt.stats", &d) == 0, "%s", d.msg);
	same_ranges(c, r, "write/read");
	size_t n2;
	char *again = dump(r, &n2);
	CHECK(n == n2 && !memcmp(text, again, n));
	/* the extreme float survived; ranges of it are finite */
	float lo, hi;
	range(r, "subnormal", "meanstd:1", 8, false, &lo, &hi);
	CHECK(isfinite(lo) && isfinite(hi));
	double mx;
	CHECK(ir_calib_summary(r, "subnormal", NULL, &mx, NULL, NULL) == 0 && mx == 0x1.fffffep127);
	/* a write error is reported */
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		CHECK(ir_calib_write(c, full, &d) == -1);
		CHECK_MSG(contains(d.msg, "write error"), "%s", d.msg);
		fclose(full);
	}
	/* an empty set of statistics writes just the header */
	ir_calib *e = ir_calib_new();
	char *et = dump(e, &n2);
	CHECK(n2 == 18 && !memcmp(et, "npu-calib-stats 1\n", 18));
	CHECK(ir_calib_read(e, (const uint8_t *)et, n2, "e", &d) == 0 && ir_calib_tensor_count(e) == 0);
	free(et);
	ir_calib_free(e);
	free(text);
	free(again);
	ir_calib_free(c);
	ir_calib_free(r);
}

/* Replace the first `from` in s by `to` (fresh string). */
static char *subst(const char *s, const char *from, const char *to)
{
	const char *p = strstr(s, from);
	if (!p)
		printf("# subst: '%s' not found\n", from);
	size_t n = strlen(s) + strlen(to) + 1;
	char *r = malloc(n);
	if (!p) {
		snprintf(r, n, "%s", s);
		return r;
	}
	snprintf(r, n, "%.*s%s%s", (int)(p - s), s, to, p + strlen(from));
	return r;
}

static void test_bad_files(void)
{
	ir_calib *src = ir_calib_new();
	observe(src, "a", (const float[]){1, 2, 3}, 3);	/* R = 4, w = 1/512: bins 2560, 3072, 3584 */
	char *good = dump(src, NULL);
	const char *rec = strchr(good, '\n') + 1;	/* "tensor a count 3 ..." */
	CHECK(contains(rec, " hist 2560:1 3072:1 3584:1\n"));

	/* The target already has statistics: a failed read must leave them. */
	ir_calib *c = ir_calib_new();
	observe(c, "a", (const float[]){-1}, 1);
	char *before = dump(c, NULL);

	char *two = malloc(strlen(good) + strlen(rec) + 1);
	sprintf(two, "%s%s", good, rec);
	char *cut = strdup(good);
	cut[strlen(cut) - 1] = 0;		/* no final newline */
	char *cut2 = strdup(good);
	*strstr(cut2, " sum ") = 0;		/* record stops after max */
	strcat(cut2, "\n");
	char *later = malloc(strlen(good) + 64);	/* good record, then a bad one */
	sprintf(later, "%stensor b count 1\n", good);

	struct {
		char *text;
		const char *msg;
	} cases[] = {
		{strdup(""), "f.stats:1: empty file"},
		{strdup("hello\n"), "f.stats:1: not a calibration statistics file"},
		{strdup("npu-calib-stats 2\n"), "f.stats:1: unsupported format version"},
		{cut, "f.stats:2: truncated line"},
		{cut2, "f.stats:2: tensor 'a': truncated record: missing 'sum'"},
		{strdup("npu-calib-stats 1\ntensor\n"), "f.stats:2: truncated record: missing the tensor name"},
		{strdup("npu-calib-stats 1\n\n"), "f.stats:2: empty line"},
		{strdup("npu-calib-stats 1\nfoo a\n"), "f.stats:2: expected 'tensor', found 'foo'"},
		{subst(good, "count 3", "count -3"), "f.stats:2: tensor 'a': negative count"},
		{subst(good, "count 3", "count 3x"), "tensor 'a': bad count '3x'"},
		{subst(good, "count 3", "count 99999999999999999999"), "bad count '99999999999999999999'"},
		{subst(good, "nan 0", "nan -1"), "negative nan"},
		{subst(good, "min 0x1p+0", "min zero"), "bad min 'zero'"},
		{subst(good, "min 0x1p+0", "min inf"), "bad min 'inf'"},
		{subst(good, "min 0x1p+0", "min 0x1.000001p+0"), "bad min"},	/* not a float */
		{subst(good, "max 0x1.8p+1", "max 0x1p-1"), "min greater than max"},
		{subst(good, "max 0x1.8p+1", "max 0x1.4p+1"), "histogram does not span min and max"},
		{subst(good, "max 0x1.8p+1", "max 0x1p+3"), "rexp does not match min and max"},
		{subst(good, " sum ", " sum g"), "bad sum"},
		{subst(good, " sum 0x", " sum 0xg"), "bad sum '0xg"},
		{subst(good, " sum 0x", " sum 0"), "bad sum"},
		{subst(good, " sumsq 0x", " sumsq 0xp"), "bad sumsq"},
		{subst(good, " bmin 0x", " bmin 0x1p-300 x"), "bmin '0x1p-300' out of range"},
		{subst(good, " bmax 0x", " bmax 0x1p+400 x"), "bmax '0x1p+400' out of range"},
		{subst(good, " bmax 0x", " bmax 0x1p+9223372036854775807 x"), "out of range"},
		{subst(good, " bmax 0x", " bmax 0x1p-9223372036854775807 x"), "out of range"},
		{subst(good, "3072:1", "4096:1"), "f.stats:2: tensor 'a': histogram bin index out of range in '4096:1'"},
		{subst(good, "3072:1", "3072:-1"), "histogram bin count not positive in '3072:-1'"},
		{subst(good, "3072:1", "3072:2"), "histogram holds a different number of values than count"},
		{subst(good, "3072:1 3584:1", "3584:1 3072:1"), "histogram bins out of order at '3072:1'"},
		{subst(good, "3072:1", "3072:1 3072:1"), "histogram bins out of order"},
		{subst(good, "3072:1", "3072"), "bad histogram entry '3072'"},
		{subst(good, "3072:1", "x:1"), "bad histogram entry 'x:1'"},
		{subst(good, "bins 4096", "bins 2048"), "tensor 'a': 2048 histogram bins, expected 4096"},
		{subst(good, "rexp 2", "rexp 200"), "bad rexp"},
		{subst(good, "batches 1", "batches 4"), "batches inconsistent with count"},
		{subst(good, "tensor a", "tensor a%4"), "bad %-escape in tensor name"},
		{subst(good, "tensor a", "tensor a%00"), "tensor name contains %00"},
		{subst(good, " hist", " hist2"), "expected 'hist', found 'hist2'"},
		{two, "f.stats:3: tensor 'a': appears twice in the file"},
		{later, "f.stats:3: tensor 'b': truncated record: missing 'nan'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		ir_diag d = {.msg = ""};
		int rc = ir_calib_read(c, (const uint8_t *)cases[i].text, strlen(cases[i].text),
				       "f.stats", &d);
		CHECK_MSG(rc == -1 && contains(d.msg, cases[i].msg), "case %zu: rc %d, '%s', expected '%s'",
			  i, rc, d.msg, cases[i].msg);
		CHECK_MSG(!strchr(d.msg, '\n'), "case %zu: multi-line message", i);
		free(cases[i].text);
	}
	/* NUL inside a line */
	const char nul[] = "npu-calib-stats 1\ntensor a\0b\n";
	ir_diag d;
	CHECK(ir_calib_read(c, (const uint8_t *)nul, sizeof nul - 1, "f.stats", &d) == -1);
	CHECK_MSG(contains(d.msg, "f.stats:2: NUL byte"), "%s", d.msg);
	/* nothing was merged by any of them */
	char *after = dump(c, NULL);
	CHECK(!strcmp(before, after));
	/* and the good file does merge */
	CHECK_MSG(ir_calib_read(c, (const uint8_t *)good, strlen(good), "f.stats", &d) == 0, "%s", d.msg);
	int64_t n;
	CHECK(ir_calib_summary(c, "a", NULL, NULL, &n, NULL) == 0 && n == 4);
	free(after);
	free(before);
	free(good);
	ir_calib_free(c);
	ir_calib_free(src);
}

/* Every truncation of a real file, and random corruptions: no crash; a
 * file cut right after a line end is a valid shorter file, any other cut is
 * refused. */
static void test_fuzz(void)
{
	ir_calib *src = ir_calib_new();
	float x[300];
	lcg_seed(5);
	make_batch(x, 300, 1.0);
	observe(src, "p", x, 300);
	observe(src, "q", x, 100);
	size_t n;
	char *text = dump(src, &n);
	int wrong = 0, valid = 0;
	for (size_t cut = 0; cut < n; cut++) {
		ir_calib *c = ir_calib_new();
		ir_diag d;
		int rc = ir_calib_read(c, (const uint8_t *)text, cut, "t", &d);
		bool line_end = cut > 0 && text[cut - 1] == '\n';
		valid += rc == 0;
		if ((rc == 0) != line_end || (rc < 0 && ir_calib_tensor_count(c) != 0)) {
			if (wrong++ < 3)
				printf("# cut at %zu: rc %d, %s\n", cut, rc, d.msg);
		}
		ir_calib_free(c);
	}
	CHECK_MSG(wrong == 0 && valid == 2, "%d wrong of %zu cuts, %d valid", wrong, n, valid);
	int accepted = 0;
	char *buf = malloc(n);
	for (int it = 0; it < 2000; it++) {
		memcpy(buf, text, n);
		for (int k = 0; k < 3; k++)
			buf[(size_t)(lcg_uniform() * n)] = (char)(lcg_uniform() * 256);
		ir_calib *t = ir_calib_new();
		ir_diag d;
		accepted += ir_calib_read(t, (const uint8_t *)buf, n, "t", &d) == 0;
		ir_calib_free(t);
	}
	printf("# fuzz: %d of 2000 corrupted files accepted\n", accepted);
	CHECK(accepted < 100);
	free(buf);
	free(text);
	ir_calib_free(src);
}

/* ---------------------------------------------------------------- methods, memory */

static void test_method_parse(void)
{
	ir_calib_method m;
	ir_diag d;
	char buf[64];
	CHECK(ir_calib_method_parse("minmax", &m, &d) == 0 && m.kind == IR_CALIB_MINMAX);
	CHECK(ir_calib_method_parse("averaging", &m, &d) == 0 && m.kind == IR_CALIB_AVERAGING);
	CHECK(ir_calib_method_parse("meanstd", &m, &d) == 0 && m.kind == IR_CALIB_MEANSTD && m.param == 3);
	CHECK(ir_calib_method_parse("meanstd:2.5", &m, &d) == 0 && m.param == 2.5);
	CHECK(!strcmp(ir_calib_method_str(&m, buf, sizeof buf), "meanstd:2.5"));
	CHECK(ir_calib_method_parse("percentile", &m, &d) == 0 && m.kind == IR_CALIB_PERCENTILE &&
	      m.param == 99.99);
	CHECK(!strcmp(ir_calib_method_str(&m, buf, sizeof buf), "percentile:99.99"));
	CHECK(ir_calib_method_parse("percentile:99.999", &m, &d) == 0 && m.param == 99.999);
	CHECK(!strcmp(ir_calib_method_str(&m, buf, sizeof buf), "percentile:99.999"));
	CHECK(ir_calib_method_parse("kld", &m, &d) == 0 && m.kind == IR_CALIB_KLD);
	CHECK(!strcmp(ir_calib_method_str(&m, buf, sizeof buf), "kld"));
	CHECK(ir_calib_method_parse("aciq", &m, &d) == 0 && m.kind == IR_CALIB_ACIQ);
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"entropy", "calibration method 'entropy': unknown"},
		{"", "calibration method '': unknown"},
		{"kld:3", "'kld:3': kld takes no parameter"},
		{"meanstd:", "'meanstd:': bad number ''"},
		{"meanstd:x", "bad number 'x'"},
		{"meanstd:3x", "bad number '3x'"},
		{"meanstd:-1", "'meanstd:-1': N must be in (0, 1000]"},
		{"meanstd: 2", "bad number ' 2'"},
		{"meanstd:nan", "bad number 'nan'"},
		{"percentile:40", "'percentile:40': P must be in (50, 100]"},
		{"percentile:100.5", "P must be"},
		{"MINMAX", "unknown"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		d.msg[0] = 0;
		CHECK_MSG(ir_calib_method_parse(bad[i].text, &m, &d) == -1 && contains(d.msg, bad[i].msg),
			  "'%s': '%s'", bad[i].text, d.msg);
	}
}

static void test_memory(void)
{
	ir_calib *c = ir_calib_new();
	float x[256];
	lcg_seed(1);
	make_batch(x, 256, 1.0);
	observe(c, "t", x, 256);
	size_t first = ir_calib_bytes(c);
	for (int b = 0; b < 1000; b++) {
		for (int k = 0; k < 256; k++)
			x[k] *= 1.01f;	/* growing magnitudes: R doubles several times */
		observe(c, "t", x, 256);
	}
	int64_t n, batches;
	ir_calib_summary(c, "t", NULL, NULL, &n, &batches);
	CHECK(n == 1001 * 256 && batches == 1001);
	CHECK_MSG(ir_calib_bytes(c) == first, "%zu bytes, then %zu", first, ir_calib_bytes(c));
	CHECK(first < 64 * 1024);
	ir_calib_free(c);
}

/* mse: 10000 values uniform on [0, 1) and 2 outliers at 100, asymmetric
 * range [0, t] with t >= 1: the outliers cost 2 (100 - t)^2 clipped, the
 * others their rounding noise 10000 (t / levels)^2 / 12. The minimum is at
 * t = 200 / (2 + 10000 / (6 levels^2)): 8 bits (255 levels) 99.36, so the
 * range stays at about [0, 100]; 4 bits (15 levels) 35.06 (the nearest
 * bin edge, 100/2048 wide, is 35.0625). Uniform data on [-1, 1) keeps
 * (about) its full range for 8 bits, symmetric or not. */
static void test_mse(void)
{
	ir_calib *c = ir_calib_new();
	float *x = malloc(sizeof *x * 10002), lo, hi;
	for (int k = 0; k < 10000; k++)
		x[k] = (float)k / 10000;
	x[10000] = x[10001] = 100;
	observe(c, "out", x, 10002);
	range(c, "out", "mse", 8, false, &lo, &hi);
	CHECK_MSG(lo == 0 && hi > 90, "8 bits: [%g, %g]", lo, hi);
	range(c, "out", "mse", 4, false, &lo, &hi);
	CHECK_MSG(lo == 0 && fabsf(hi - 35.06f) < 0.1f, "4 bits: [%g, %g]", lo, hi);
	for (int k = 0; k < 10000; k++)
		x[k] = (float)(2.0 * k / 10000 - 1);
	observe(c, "u", x, 10000);
	range(c, "u", "mse", 8, true, &lo, &hi);
	CHECK_MSG(hi > 0.95f && lo == -hi, "symmetric: [%g, %g]", lo, hi);
	range(c, "u", "mse", 8, false, &lo, &hi);
	CHECK_MSG(hi > 0.95f && lo < -0.95f, "asymmetric: [%g, %g]", lo, hi);
	free(x);
	ir_calib_free(c);
}

/* ir_calib_tie: a state input observed only zeros, its output [-2, 3] in
 * two batches: tied, both have the union (count 6, 3 batches, minmax
 * [-2, 3], averaging over the three batches); an unknown name and a name
 * given twice change nothing. */
static void test_tie(void)
{
	ir_calib *c = ir_calib_new();
	const float z[] = {0, 0}, o1[] = {-2, 1}, o2[] = {3, 0};
	observe(c, "in", z, 2);
	observe(c, "out", o1, 2);
	observe(c, "out", o2, 2);
	ir_diag d;
	const char *names[] = {"in", "out", "nobody", "out"};
	CHECK_MSG(ir_calib_tie(c, names, 4, &d) == 0, "%s", d.msg);
	double mn, mx;
	int64_t n, b;
	float lo, hi;
	for (int k = 0; k < 2; k++) {
		CHECK(ir_calib_summary(c, names[k], &mn, &mx, &n, &b) == 0 && mn == -2 && mx == 3 && n == 6 && b == 3);
		range(c, names[k], "minmax", 8, false, &lo, &hi);
		CHECK(lo == -2 && hi == 3);
		/* minima 0, -2, 0 -> -2/3; maxima 0, 1, 3 -> 4/3 */
		range(c, names[k], "averaging", 8, false, &lo, &hi);
		NEAR(lo, -2.0 / 3, 1e-6);
		NEAR(hi, 4.0 / 3, 1e-6);
	}
	CHECK(ir_calib_summary(c, "nobody", NULL, NULL, NULL, NULL) == -1);
	ir_calib_free(c);
}

int main(void)
{
	test_tie();
	test_mse();
	test_minmax_averaging();
	test_meanstd();
	test_nan_inf_zero();
	test_percentile();
	test_kld();
	test_aciq();
	test_merge();
	test_roundtrip();
	test_bad_files();
	test_fuzz();
	test_method_parse();
	test_memory();
	return check_done();
}
