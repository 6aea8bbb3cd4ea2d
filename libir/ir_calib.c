/* ir_calib.c - calibration statistics: exact accumulators, a doubling
 * histogram, the clipping-range methods, and the stats file.
 *
 * Exactness. Every float32 is m * 2^e with m < 2^24 and e >= -149, so x and
 * x^2 are integers times 2^-298: sums are kept as fixed-point integers in
 * 32-bit limbs (acc) and never rounded. The histogram covers [-R, R) with
 * R = 2^rexp the smallest power of two above the absolute maximum (at least
 * 2^IR_CALIB_MIN_EXP); bin i holds [(i - 2048) w, (i - 2047) w), w = R/2048.
 * Growing R merges bins pairwise, so the histogram is a function of the
 * multiset of values alone. Hence a merge of shards equals one run, exactly.
 *
 * Stats file (text, one record per line, deterministic):
 *
 *   npu-calib-stats 1
 *   tensor NAME count N nan N batches N min A max A sum H sumsq H bmin H
 *          bmax H rexp E bins 4096 hist I:C I:C ...          (one line)
 *
 * NAME is percent-encoded (bytes outside '!'..'~' and '%' as %XX); A is a
 * C99 hex float; H an exact sum as a hex float with an integer mantissa
 * ([-]0xHEXpEXP, EXP >= -298); E the histogram exponent; then the non-empty bins as
 * index:count, indices increasing. */
#include "ir.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NBINS IR_CALIB_BINS
#define HALF_LOG2 11
#define HALF (1 << HALF_LOG2)	/* bins per side; bin width R / HALF */
_Static_assert(IR_CALIB_BINS == 2 * HALF, "IR_CALIB_BINS is 2^(HALF_LOG2 + 1)");
#define NLIMB 20
#define ACC_BASE (-298)		/* limb k weighs 2^(ACC_BASE + 32 k) */
#define NORM_EVERY (1 << 20)	/* values between carry propagations */
#define KLD_EPS 1e-4
#define TINY_RANGE 0x1p-20

/* ---------------------------------------------------------------- exact sums */

typedef struct {
	int64_t l[NLIMB];
} acc;

/* Propagate carries: limbs 0..NLIMB-2 in [0, 2^32), the sign in the top. */
static void acc_norm(acc *a)
{
	for (int k = 0; k < NLIMB - 1; k++) {
		int64_t lo = (int64_t)((uint64_t)a->l[k] & 0xffffffffu);
		a->l[k + 1] += (a->l[k] - lo) / ((int64_t)1 << 32);
		a->l[k] = lo;
	}
}

/* a += (neg ? -1 : 1) * m * 2^p, m < 2^24, p >= ACC_BASE. */
static void acc_add24(acc *a, uint32_t m, int p, bool neg)
{
	int sh = p - ACC_BASE, k = sh / 32;
	uint64_t v = (uint64_t)m << (sh % 32);
	int64_t lo = (int64_t)(v & 0xffffffffu), hi = (int64_t)(v >> 32);
	if (neg) {
		a->l[k] -= lo;
		a->l[k + 1] -= hi;
	} else {
		a->l[k] += lo;
		a->l[k + 1] += hi;
	}
}

static void acc_add(acc *a, const acc *b)
{
	for (int k = 0; k < NLIMB; k++)
		a->l[k] += b->l[k];
	acc_norm(a);
}

static bool acc_is_zero(const acc *a)
{
	for (int k = 0; k < NLIMB; k++)
		if (a->l[k])
			return false;
	return true;
}

/* Magnitude of a normalized a (negated in place if negative). */
static bool acc_abs(acc *a)
{
	bool neg = a->l[NLIMB - 1] < 0;
	if (neg) {
		for (int k = 0; k < NLIMB; k++)
			a->l[k] = -a->l[k];
		acc_norm(a);
	}
	return neg;
}

static double acc_double(const acc *src)
{
	acc a = *src;
	acc_norm(&a);
	bool neg = acc_abs(&a);
	double v = 0;
	for (int k = NLIMB - 1; k >= 0; k--)
		v = v * 4294967296.0 + (double)a.l[k];
	return ldexp(neg ? -v : v, ACC_BASE);
}

/* float -> sign, integer mantissa, exponent (x = m * 2^e). */
static void float_parts(float x, uint32_t *m, int *e, bool *neg)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	uint32_t ex = (u >> 23) & 0xff, f = u & 0x7fffff;
	*neg = u >> 31;
	*m = ex ? f | 0x800000 : f;
	*e = ex ? (int)ex - 150 : -149;
}

/* ---------------------------------------------------------------- tensors */

typedef struct {
	char *name;
	int64_t count, nan, batches;
	double min, max;		/* 0 when count == 0 */
	acc sum, sumsq, bmin, bmax;	/* of x, x^2, batch minima, batch maxima */
	int rexp;
	int64_t hist[NBINS];
} ctensor;

struct ir_calib {
	ctensor **t;	/* sorted by name (strcmp) */
	int n, cap;
};

ir_calib *ir_calib_new(void)
{
	return calloc(1, sizeof(ir_calib));
}

void ir_calib_free(ir_calib *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++) {
		free(c->t[i]->name);
		free(c->t[i]);
	}
	free(c->t);
	free(c);
}

/* Index of name, or -(insertion point) - 1. */
static int find(const ir_calib *c, const char *name)
{
	int lo = 0, hi = c->n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2, r = strcmp(c->t[mid]->name, name);
		if (r == 0)
			return mid;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -lo - 1;
}

static ctensor *lookup(const ir_calib *c, const char *name)
{
	int i = c && name ? find(c, name) : -1;
	return i >= 0 ? c->t[i] : NULL;
}

static ctensor *tensor_alloc(const char *name, size_t len)
{
	ctensor *t = calloc(1, sizeof *t);
	char *s = malloc(len + 1);
	if (!t || !s) {
		free(t);
		free(s);
		return NULL;
	}
	memcpy(s, name, len);
	s[len] = 0;
	t->name = s;
	t->rexp = IR_CALIB_MIN_EXP;
	return t;
}

static int reserve(ir_calib *c, int extra)
{
	if (extra > INT32_MAX / 2 - c->n)
		return -1;
	if (c->n + extra <= c->cap)
		return 0;
	int cap = c->cap ? c->cap : 16;
	while (cap < c->n + extra)
		cap *= 2;
	ctensor **p = realloc(c->t, (size_t)cap * sizeof *p);
	if (!p)
		return -1;
	c->t = p;
	c->cap = cap;
	return 0;
}

/* Insert t at position pos (capacity reserved by the caller). */
static void insert_at(ir_calib *c, int pos, ctensor *t)
{
	memmove(c->t + pos + 1, c->t + pos, (size_t)(c->n - pos) * sizeof *c->t);
	c->t[pos] = t;
	c->n++;
}

/* The histogram exponent for values of absolute maximum a. */
static int rexp_for(double a)
{
	int e = IR_CALIB_MIN_EXP;
	if (a > 0) {
		frexp(a, &e);	/* a < 2^e */
		if (e < IR_CALIB_MIN_EXP)
			e = IR_CALIB_MIN_EXP;
	}
	return e;
}

/* Bin i at exponent e moved to exponent e + s (s >= 0). */
static int bin_shift(int i, int s)
{
	int v = i - HALF;
	if (s > 30)
		s = 30;
	v = v >= 0 ? v >> s : -((-v - 1) >> s) - 1;
	return v + HALF;
}

static void hist_grow(ctensor *t, int e)
{
	if (e <= t->rexp)
		return;
	int s = e - t->rexp;
	int64_t h[NBINS] = {0};
	for (int i = 0; i < NBINS; i++)
		if (t->hist[i])
			h[bin_shift(i, s)] += t->hist[i];
	memcpy(t->hist, h, sizeof h);
	t->rexp = e;
}

static int bin_of(double x, int rexp)
{
	int i = (int)floor(x * ldexp(1.0, HALF_LOG2 - rexp)) + HALF;
	return i < 0 ? 0 : i >= NBINS ? NBINS - 1 : i;	/* clamps never fire: |x| < R */
}

int ir_calib_observe(ir_calib *c, const char *tensor, const float *x, int64_t n, ir_diag *d)
{
	if (!c || !tensor || !*tensor)
		return ir_fail(d, -1, -1, "calibration: empty tensor name");
	if (n < 0 || (n > 0 && !x))
		return ir_fail(d, -1, -1, "tensor '%s': bad calibration batch (%" PRId64 " values)",
			       tensor, n);
	float bmin = INFINITY, bmax = -INFINITY;
	int64_t nan = 0;
	for (int64_t i = 0; i < n; i++) {
		float v = x[i];
		if (isnan(v)) {
			nan++;
		} else if (isinf(v)) {
			return ir_fail(d, -1, -1, "tensor '%s': calibration produced inf (value %" PRId64
				       " of %" PRId64 ")", tensor, i, n);
		} else {
			if (v < bmin)
				bmin = v;
			if (v > bmax)
				bmax = v;
		}
	}
	int64_t good = n - nan;
	int pos = find(c, tensor);
	ctensor *t = pos >= 0 ? c->t[pos] : NULL;
	if (t && (good > INT64_MAX - t->count || nan > INT64_MAX - t->nan))
		return ir_fail(d, -1, -1, "tensor '%s': calibration value count overflows", tensor);
	if (!t) {
		if (reserve(c, 1) < 0 || !(t = tensor_alloc(tensor, strlen(tensor))))
			return ir_fail(d, -1, -1, "tensor '%s': out of memory", tensor);
		insert_at(c, -pos - 1, t);
	}
	t->nan += nan;
	if (good == 0)
		return 0;
	if (bmin == 0)
		bmin = 0;	/* +0, whatever the order of 0 and -0 */
	if (bmax == 0)
		bmax = 0;
	double absmax = fmax(-(double)bmin, (double)bmax);
	hist_grow(t, rexp_for(absmax));
	double scale = ldexp(1.0, HALF_LOG2 - t->rexp);
	int since = 0;
	for (int64_t i = 0; i < n; i++) {
		float v = x[i];
		if (isnan(v))
			continue;
		t->hist[(int)floor((double)v * scale) + HALF]++;
		uint32_t m;
		int e;
		bool neg;
		float_parts(v, &m, &e, &neg);
		if (m) {
			uint64_t sq = (uint64_t)m * m;
			acc_add24(&t->sum, m, e, neg);
			acc_add24(&t->sumsq, (uint32_t)(sq & 0xffffff), 2 * e, false);
			acc_add24(&t->sumsq, (uint32_t)(sq >> 24), 2 * e + 24, false);
		}
		if (++since == NORM_EVERY) {
			acc_norm(&t->sum);
			acc_norm(&t->sumsq);
			since = 0;
		}
	}
	acc_norm(&t->sum);
	acc_norm(&t->sumsq);
	uint32_t m;
	int e;
	bool neg;
	float_parts(bmin, &m, &e, &neg);
	acc_add24(&t->bmin, m, e, neg);
	acc_norm(&t->bmin);
	float_parts(bmax, &m, &e, &neg);
	acc_add24(&t->bmax, m, e, neg);
	acc_norm(&t->bmax);
	if (t->count == 0 || bmin < t->min)
		t->min = bmin;
	if (t->count == 0 || bmax > t->max)
		t->max = bmax;
	t->count += good;
	t->batches++;
	return 0;
}

/* ---------------------------------------------------------------- merging */

static bool merge_overflows(const ctensor *a, const ctensor *b)
{
	return b->count > INT64_MAX - a->count || b->nan > INT64_MAX - a->nan ||
	       b->batches > INT64_MAX - a->batches;
}

static void merge_into(ctensor *a, const ctensor *b)
{
	a->nan += b->nan;
	if (b->count == 0)
		return;
	int e = a->rexp > b->rexp ? a->rexp : b->rexp;
	hist_grow(a, e);
	for (int i = 0; i < NBINS; i++)
		if (b->hist[i])
			a->hist[bin_shift(i, e - b->rexp)] += b->hist[i];
	acc_add(&a->sum, &b->sum);
	acc_add(&a->sumsq, &b->sumsq);
	acc_add(&a->bmin, &b->bmin);
	acc_add(&a->bmax, &b->bmax);
	if (a->count == 0 || b->min < a->min)
		a->min = b->min;
	if (a->count == 0 || b->max > a->max)
		a->max = b->max;
	a->count += b->count;
	a->batches += b->batches;
}

int ir_calib_merge(ir_calib *dst, const ir_calib *src, ir_diag *d)
{
	if (!dst || !src)
		return ir_fail(d, -1, -1, "calibration merge: no statistics");
	if (dst == src)
		return ir_fail(d, -1, -1, "calibration merge: statistics merged into themselves");
	/* Check and allocate everything first: dst changes only if all succeeds. */
	int fresh = 0;
	for (int i = 0; i < src->n; i++) {
		const ctensor *a = lookup(dst, src->t[i]->name);
		if (!a)
			fresh++;
		else if (merge_overflows(a, src->t[i]))
			return ir_fail(d, -1, -1, "tensor '%s': calibration value count overflows",
				       a->name);
	}
	ctensor **made = fresh ? calloc((size_t)fresh, sizeof *made) : NULL;
	if ((fresh && !made) || reserve(dst, fresh) < 0) {
		free(made);
		return ir_fail(d, -1, -1, "calibration merge: out of memory");
	}
	for (int i = 0, k = 0; i < src->n; i++) {
		if (lookup(dst, src->t[i]->name))
			continue;
		const char *nm = src->t[i]->name;
		if (!(made[k++] = tensor_alloc(nm, strlen(nm)))) {
			for (int j = 0; j < k; j++) {
				if (made[j])
					free(made[j]->name);
				free(made[j]);
			}
			free(made);
			return ir_fail(d, -1, -1, "calibration merge: out of memory");
		}
	}
	for (int i = 0, k = 0; i < src->n; i++) {
		int pos = find(dst, src->t[i]->name);
		if (pos < 0) {
			pos = -pos - 1;
			insert_at(dst, pos, made[k++]);
		}
		merge_into(dst->t[pos], src->t[i]);
	}
	free(made);
	return 0;
}

int ir_calib_tie(ir_calib *c, const char *const *names, int n, ir_diag *d)
{
	ctensor *u = calloc(1, sizeof *u);
	if (!u)
		return ir_fail(d, -1, -1, "calibration tie: out of memory");
	u->rexp = IR_CALIB_MIN_EXP;
	int seen = 0;
	for (int i = 0; i < n; i++) {
		const ctensor *t = lookup(c, names[i]);
		bool dup = false;
		for (int j = 0; j < i && !dup; j++)
			dup = !strcmp(names[j], names[i]);
		if (!t || dup)
			continue;
		if (merge_overflows(u, t)) {
			free(u);
			return ir_fail(d, -1, -1, "tensor '%s': calibration value count overflows", t->name);
		}
		merge_into(u, t);
		seen++;
	}
	for (int i = 0; seen > 1 && i < n; i++) {
		ctensor *t = lookup(c, names[i]);
		if (t) {
			char *name = t->name;
			*t = *u;
			t->name = name;
		}
	}
	free(u);
	return 0;
}

/* ---------------------------------------------------------------- methods */

static const char *const kind_names[IR_CALIB_KIND_COUNT] = {
	"minmax", "averaging", "meanstd", "percentile", "kld", "aciq", "mse",
};

int ir_calib_method_parse(const char *s, ir_calib_method *m, ir_diag *d)
{
	if (!s)
		s = "";
	const char *colon = strchr(s, ':');
	size_t len = colon ? (size_t)(colon - s) : strlen(s);
	int kind = -1;
	for (int k = 0; k < IR_CALIB_KIND_COUNT; k++)
		if (strlen(kind_names[k]) == len && !strncmp(s, kind_names[k], len))
			kind = k;
	if (kind < 0)
		return ir_fail(d, -1, -1, "calibration method '%s': unknown (expected minmax, "
			       "averaging, meanstd[:N], percentile[:P], kld, aciq or mse)", s);
	ir_calib_method r = {(ir_calib_kind)kind, 0};
	if (kind == IR_CALIB_MEANSTD)
		r.param = 3;
	else if (kind == IR_CALIB_PERCENTILE)
		r.param = 99.99;
	if (colon) {
		if (kind != IR_CALIB_MEANSTD && kind != IR_CALIB_PERCENTILE)
			return ir_fail(d, -1, -1, "calibration method '%s': %s takes no parameter",
				       s, kind_names[kind]);
		char *end;
		errno = 0;
		double v = strtod(colon + 1, &end);
		if (end == colon + 1 || *end || errno || !isfinite(v) || isspace((unsigned char)colon[1]))
			return ir_fail(d, -1, -1, "calibration method '%s': bad number '%s'",
				       s, colon + 1);
		if (kind == IR_CALIB_MEANSTD && !(v > 0 && v <= 1000))
			return ir_fail(d, -1, -1, "calibration method '%s': N must be in (0, 1000]", s);
		if (kind == IR_CALIB_PERCENTILE && !(v > 50 && v <= 100))
			return ir_fail(d, -1, -1, "calibration method '%s': P must be in (50, 100]", s);
		r.param = v;
	}
	*m = r;
	return 0;
}

const char *ir_calib_method_str(const ir_calib_method *m, char *buf, size_t size)
{
	if (!buf || !size)
		return buf;
	if (!m || (unsigned)m->kind >= IR_CALIB_KIND_COUNT) {
		snprintf(buf, size, "?");
		return buf;
	}
	const char *name = kind_names[m->kind];
	if (m->kind != IR_CALIB_MEANSTD && m->kind != IR_CALIB_PERCENTILE) {
		snprintf(buf, size, "%s", name);
		return buf;
	}
	char num[40];
	for (int p = 1; p <= 17; p++) {	/* the shortest text that reads back exactly */
		snprintf(num, sizeof num, "%.*g", p, m->param);
		if (strtod(num, NULL) == m->param)
			break;
	}
	snprintf(buf, size, "%s:%s", name, num);
	return buf;
}

double ir_calib_aciq_factor(int bits)
{
	if (bits < 2 || bits > 16)
		return 0;
	/* Root of e^-k = k / (3 * 4^bits): d/dk of the MSE. Decreasing in k. */
	double q = 3 * ldexp(1.0, 2 * bits), lo = 0, hi = 64;
	for (int it = 0; it < 200; it++) {
		double mid = 0.5 * (lo + hi);
		if (exp(-mid) - mid / q > 0)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* Value at quantile q (0..1) of a histogram whose bin j covers
 * [edge + j w, edge + (j+1) w), interpolating linearly inside the bin. */
static double hist_quantile(const int64_t *h, int nb, double edge, double w, double q)
{
	int64_t total = 0;
	for (int j = 0; j < nb; j++)
		total += h[j];
	double target = q * (double)total, cum = 0;
	for (int j = 0; j < nb; j++) {
		if (!h[j])
			continue;
		if (cum + (double)h[j] >= target) {
			double f = (target - cum) / (double)h[j];
			return edge + ((double)j + (f > 0 ? f : 0)) * w;
		}
		cum += (double)h[j];
	}
	return edge + nb * w;
}

/* MXNet/TVM _smooth_distribution: zeros become eps, taken from the rest.
 * false if every entry is zero or one would go non-positive. */
static bool smooth(double *v, int n)
{
	int zeros = 0;
	for (int k = 0; k < n; k++)
		zeros += v[k] == 0;
	if (zeros == n)
		return false;
	double eps1 = KLD_EPS * zeros / (n - zeros);
	for (int k = 0; k < n; k++) {
		v[k] = v[k] == 0 ? KLD_EPS : v[k] - eps1;
		if (v[k] <= 0)
			return false;
	}
	return true;
}

/* TensorRT entropy calibration on a |x| histogram h[0..HALF) of bin width w
 * (TensorRT's 2048 bins over [0, absmax]), L levels: the threshold. */
static double kld_threshold(const double *h, int64_t L, double w)
{
	double p[HALF], q[HALF], pre[HALF + 1];	/* pre: prefix sums */
	pre[0] = 0;
	for (int k = 0; k < HALF; k++)
		pre[k + 1] = pre[k] + h[k];
	double best = INFINITY;
	int best_i = HALF;
	for (int i = (int)L; i <= HALF; i++) {
		for (int k = 0; k < i; k++)
			p[k] = h[k];
		p[i - 1] += pre[HALF] - pre[i];	/* outliers into the last bin */
		int merged = i / (int)L;
		for (int j = 0; j < L; j++) {
			int start = j * merged, stop = j == L - 1 ? i : start + merged;
			int norm = 0;
			for (int k = start; k < stop; k++)
				norm += p[k] != 0;
			double v = norm ? (pre[stop] - pre[start]) / norm : 0;
			for (int k = start; k < stop; k++)
				q[k] = p[k] != 0 ? v : 0;
		}
		if (!smooth(p, i) || !smooth(q, i))
			continue;
		double ps = 0, qs = 0;
		for (int k = 0; k < i; k++) {
			ps += p[k];
			qs += q[k];
		}
		double kl = 0;
		for (int k = 0; k < i; k++) {
			double pn = p[k] / ps;
			kl += pn * log(pn / (q[k] / qs));
		}
		if (kl < best) {
			best = kl;
			best_i = i;
		}
	}
	return ((double)best_i + 0.5) * w;
}

/* Spread h[0..nb) (nb <= HALF) evenly over HALF bins covering the same
 * [0, nb w): source bin j is [j HALF, (j+1) HALF) and target bin k is
 * [k nb, (k+1) nb) in units of w / HALF, so overlaps are exact integers. */
static void rebin(const int64_t *h, int nb, double *g)
{
	for (int k = 0; k < HALF; k++)
		g[k] = 0;
	for (int j = 0; j < nb; j++) {
		if (!h[j])
			continue;
		int64_t lo = (int64_t)j * HALF, hi = lo + HALF;
		for (int k = (int)(lo / nb); k < HALF && (int64_t)k * nb < hi; k++) {
			int64_t a = (int64_t)k * nb > lo ? (int64_t)k * nb : lo;
			int64_t b = (int64_t)(k + 1) * nb < hi ? (int64_t)(k + 1) * nb : hi;
			if (b > a)
				g[k] += (double)h[j] * (double)(b - a) / HALF;
		}
	}
}

/* Side histograms: pos[j] = h[HALF + j] covers [j w, (j+1) w); neg[j] =
 * h[HALF - 1 - j] covers |x| in (j w, (j+1) w]. Returns the bin count up to
 * the last non-empty bin. */
static int side(const ctensor *t, int which, int64_t *out)
{
	int nb = 0;
	for (int j = 0; j < HALF; j++) {
		int64_t v = 0;
		if (which >= 0)
			v += t->hist[HALF + j];
		if (which <= 0)
			v += t->hist[HALF - 1 - j];
		out[j] = v;
		if (v)
			nb = j + 1;
	}
	return nb;
}

/* One side's (or |x|'s) entropy threshold, at most absmax. The side's bins
 * up to its last non-empty one are spread over 2048 bins first, as
 * TensorRT's histogram has 2048 bins over [0, absmax]. */
static double kld_side(const ctensor *t, int which, int64_t L, double w, double absmax)
{
	int64_t h[HALF];
	double g[HALF];
	int nb = side(t, which, h);
	if (nb == 0 || L >= HALF)
		return absmax;
	rebin(h, nb, g);
	double th = kld_threshold(g, L, nb * w / HALF);
	return th < absmax ? th : absmax;
}

static double hist_mad(const ctensor *t, double mean)
{
	double w = ldexp(1.0, t->rexp - HALF_LOG2), s = 0;
	for (int i = 0; i < NBINS; i++)
		if (t->hist[i])
			s += (double)t->hist[i] * fabs(((double)(i - HALF) + 0.5) * w - mean);
	return s / (double)t->count;
}

/* ---- mse: prefix sums of count, count x, count x^2 over bin centres make
 * the error of clipping to [edge(L), edge(U)] O(1). */
typedef struct {
	double p0[NBINS + 1], p1[NBINS + 1], p2[NBINS + 1];
	double w, r;		/* bin width, half range */
} msectx;

static double edge(const msectx *m, int i) { return -m->r + i * m->w; }

/* Expected squared error with the range [edge(L), edge(U)] and step q. */
static double mse_cost(const msectx *m, int L, int U, double q)
{
	double a = edge(m, L), b = edge(m, U);
	double below = a * a * m->p0[L] - 2 * a * m->p1[L] + m->p2[L];
	double n_above = m->p0[NBINS] - m->p0[U], s1 = m->p1[NBINS] - m->p1[U], s2 = m->p2[NBINS] - m->p2[U];
	double above = s2 - 2 * b * s1 + b * b * n_above;
	return below + above + (m->p0[U] - m->p0[L]) * q * q / 12;
}

static void mse_range(const ctensor *t, int bits, bool symmetric, double *a, double *b)
{
	msectx *m = malloc(sizeof *m);
	if (!m)
		return;	/* keep [min, max] */
	m->w = ldexp(1.0, t->rexp - HALF_LOG2);
	m->r = ldexp(1.0, t->rexp);
	m->p0[0] = m->p1[0] = m->p2[0] = 0;
	for (int i = 0; i < NBINS; i++) {
		double c = edge(m, i) + m->w / 2, h = (double)t->hist[i];
		m->p0[i + 1] = m->p0[i] + h;
		m->p1[i + 1] = m->p1[i] + h * c;
		m->p2[i + 1] = m->p2[i] + h * c * c;
	}
	int first = 0, last = NBINS;	/* the occupied bins: [first, last) */
	while (first < HALF && !t->hist[first])
		first++;
	while (last > HALF && !t->hist[last - 1])
		last--;
	double levels = ldexp(1.0, bits) - 1, half = ldexp(1.0, bits - 1) - 1;
	if (symmetric) {
		int hi = HALF - first > last - HALF ? HALF - first : last - HALF, best = hi;
		double bc = INFINITY;
		for (int k = 1; k <= hi; k++) {
			double c = mse_cost(m, HALF - k, HALF + k, k * m->w / half);
			if (c < bc)
				bc = c, best = k;
		}
		*a = -best * m->w;
		*b = best * m->w;
	} else {
		int L = first, U = last;
		for (int round = 0; round < 8; round++) {
			int L0 = L, U0 = U;
			double bc = INFINITY;
			for (int l = first; l <= HALF; l++) {
				double c = mse_cost(m, l, U, (edge(m, U) - edge(m, l)) / levels);
				if (c < bc)
					bc = c, L = l;
			}
			bc = INFINITY;
			for (int u = HALF; u <= last; u++) {
				double c = mse_cost(m, L, u, (edge(m, u) - edge(m, L)) / levels);
				if (c < bc)
					bc = c, U = u;
			}
			if (L == L0 && U == U0)
				break;
		}
		*a = edge(m, L);
		*b = edge(m, U);
	}
	free(m);
}

int ir_calib_range(const ir_calib *c, const char *tensor, const ir_calib_method *m,
		   int bits, bool symmetric, float *lo, float *hi, ir_diag *d)
{
	const ctensor *t = lookup(c, tensor);
	if (!t)
		return ir_fail(d, -1, -1, "tensor '%s': no calibration statistics", tensor ? tensor : "");
	if (t->count == 0)
		return ir_fail(d, -1, -1, "tensor '%s': calibration saw no values (%" PRId64 " NaN)",
			       tensor, t->nan);
	if (bits < 2 || bits > 16)
		return ir_fail(d, -1, -1, "tensor '%s': cannot calibrate for %d bits (2..16)", tensor, bits);
	if (!m || (unsigned)m->kind >= IR_CALIB_KIND_COUNT ||
	    (m->kind == IR_CALIB_MEANSTD && !(m->param > 0 && m->param <= 1000)) ||
	    (m->kind == IR_CALIB_PERCENTILE && !(m->param > 50 && m->param <= 100)))
		return ir_fail(d, -1, -1, "tensor '%s': bad calibration method", tensor);
	double mn = t->min, mx = t->max, absmax = fmax(-mn, mx), n = (double)t->count;
	double w = ldexp(1.0, t->rexp - HALF_LOG2);
	double mean = acc_double(&t->sum) / n;
	double a = mn, b = mx, th = -1;	/* th >= 0: symmetric threshold */
	switch (m->kind) {
	case IR_CALIB_MINMAX:
		break;
	case IR_CALIB_AVERAGING:
		a = acc_double(&t->bmin) / (double)t->batches;
		b = acc_double(&t->bmax) / (double)t->batches;
		break;
	case IR_CALIB_MEANSTD: {
		double var = acc_double(&t->sumsq) / n - mean * mean;
		double sd = var > 0 ? sqrt(var) : 0;
		a = mean - m->param * sd;
		b = mean + m->param * sd;
		break;
	}
	case IR_CALIB_PERCENTILE:
		if (symmetric) {
			int64_t h[HALF];
			int nb = side(t, 0, h);
			th = hist_quantile(h, nb, 0, w, m->param / 100);
		} else {
			a = hist_quantile(t->hist, NBINS, -ldexp(1.0, t->rexp), w, 1 - m->param / 100);
			b = hist_quantile(t->hist, NBINS, -ldexp(1.0, t->rexp), w, m->param / 100);
		}
		break;
	case IR_CALIB_KLD:
		if (symmetric) {
			th = kld_side(t, 0, (int64_t)1 << (bits - 1), w, absmax);
		} else if (mn < 0 && mx > 0) {
			a = -kld_side(t, -1, (int64_t)1 << (bits - 1), w, -mn);
			b = kld_side(t, 1, (int64_t)1 << (bits - 1), w, mx);
		} else if (mx > 0) {
			b = kld_side(t, 1, (int64_t)1 << bits, w, mx);
		} else if (mn < 0) {
			a = -kld_side(t, -1, (int64_t)1 << bits, w, -mn);
		}
		break;
	case IR_CALIB_ACIQ: {
		double alpha = ir_calib_aciq_factor(bits) * hist_mad(t, mean);
		if (symmetric) {
			th = alpha;
		} else {
			a = mean - alpha;
			b = mean + alpha;
		}
		break;
	}
	case IR_CALIB_MSE:
		mse_range(t, bits, symmetric, &a, &b);
		break;
	default:
		break;
	}
	if (th >= 0) {
		a = -th;
		b = th;
	}
	/* Clip to what was seen, include zero. */
	a = fmin(fmax(a, mn), 0);
	b = fmax(fmin(b, mx), 0);
	float fa = (float)a, fb = (float)b;
	if (!(fb > fa))
		fb = fa + (float)TINY_RANGE;
	*lo = fa;
	*hi = fb;
	return 0;
}

/* ---------------------------------------------------------------- queries */

int ir_calib_summary(const ir_calib *c, const char *tensor, double *min, double *max,
		     int64_t *count, int64_t *batches)
{
	const ctensor *t = lookup(c, tensor);
	if (!t)
		return -1;
	if (min)
		*min = t->min;
	if (max)
		*max = t->max;
	if (count)
		*count = t->count;
	if (batches)
		*batches = t->batches;
	return 0;
}

int64_t ir_calib_nan_count(const ir_calib *c, const char *tensor)
{
	const ctensor *t = lookup(c, tensor);
	return t ? t->nan : 0;
}

int ir_calib_tensor_count(const ir_calib *c)
{
	return c ? c->n : 0;
}

const char *ir_calib_tensor_name(const ir_calib *c, int i)
{
	return c && i >= 0 && i < c->n ? c->t[i]->name : NULL;
}

size_t ir_calib_bytes(const ir_calib *c)
{
	if (!c)
		return 0;
	size_t s = sizeof *c + (size_t)c->cap * sizeof *c->t;
	for (int i = 0; i < c->n; i++)
		s += sizeof *c->t[i] + strlen(c->t[i]->name) + 1;
	return s;
}

/* ---------------------------------------------------------------- writing */

static void put_name(const char *s, FILE *f)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p > ' ' && *p < 0x7f && *p != '%')
			putc(*p, f);
		else
			fprintf(f, "%%%02X", *p);
	}
}

/* As an exact hex float with an integer mantissa: [-]0xHEXpEXP. */
static void put_acc(const acc *src, FILE *f)
{
	acc a = *src;
	acc_norm(&a);
	bool neg = acc_abs(&a);
	char hex[NLIMB * 16 + 1];
	int n = 0;
	for (int k = NLIMB - 1; k >= 0; k--)
		n += snprintf(hex + n, sizeof hex - (size_t)n, k == NLIMB - 1 ? "%" PRIx64 : "%08" PRIx64,
			      (uint64_t)a.l[k]);
	int start = 0, end = n;
	while (start < n - 1 && hex[start] == '0')
		start++;
	while (end - 1 > start && hex[end - 1] == '0')
		end--;
	if (end - start == 1 && hex[start] == '0') {
		fputs("0x0p+0", f);
		return;
	}
	fprintf(f, "%s0x%.*sp%+d", neg ? "-" : "", end - start, hex + start, ACC_BASE + 4 * (n - end));
}

int ir_calib_write(const ir_calib *c, FILE *f, ir_diag *d)
{
	if (!c || !f)
		return ir_fail(d, -1, -1, "calibration statistics: nothing to write");
	fprintf(f, "%s %d\n", IR_CALIB_FILE_MAGIC, IR_CALIB_FILE_VERSION);
	for (int i = 0; i < c->n; i++) {
		const ctensor *t = c->t[i];
		fputs("tensor ", f);
		put_name(t->name, f);
		fprintf(f, " count %" PRId64 " nan %" PRId64 " batches %" PRId64 " min %a max %a",
			t->count, t->nan, t->batches, t->min, t->max);
		const acc *accs[4] = {&t->sum, &t->sumsq, &t->bmin, &t->bmax};
		static const char *const names[4] = {"sum", "sumsq", "bmin", "bmax"};
		for (int k = 0; k < 4; k++) {
			fprintf(f, " %s ", names[k]);
			put_acc(accs[k], f);
		}
		fprintf(f, " rexp %d bins %d hist", t->rexp, NBINS);
		for (int j = 0; j < NBINS; j++)
			if (t->hist[j])
				fprintf(f, " %d:%" PRId64, j, t->hist[j]);
		putc('\n', f);
	}
	if (fflush(f) != 0 || ferror(f))
		return ir_fail(d, -1, -1, "calibration statistics: write error: %s", strerror(errno));
	return 0;
}

/* ---------------------------------------------------------------- reading */

typedef struct {
	const char *file;
	int line;
	ir_diag *d;
	const char *p, *end;	/* rest of the current line */
	const char *name;	/* tensor of the current record, for messages */
} reader;

static int rfail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int rfail(reader *r, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (r->name)
		return ir_fail(r->d, -1, -1, "%s:%d: tensor '%.80s': %s", r->file, r->line, r->name, msg);
	return ir_fail(r->d, -1, -1, "%s:%d: %s", r->file, r->line, msg);
}

/* Next space-separated token; false at the end of the line. */
static bool token(reader *r, const char **s, size_t *len)
{
	while (r->p < r->end && *r->p == ' ')
		r->p++;
	if (r->p == r->end)
		return false;
	*s = r->p;
	while (r->p < r->end && *r->p != ' ')
		r->p++;
	*len = (size_t)(r->p - *s);
	return true;
}

/* A short token as a C string (for messages and number parsing). */
static void tok_str(const char *s, size_t len, char *buf, size_t size)
{
	if (len < size) {
		memcpy(buf, s, len);
		buf[len] = 0;
	} else {
		memcpy(buf, s, size - 4);
		memcpy(buf + size - 4, "...", 4);
	}
}

static bool tok_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(s, word, len);
}

static int expect_key(reader *r, const char *key)
{
	const char *s;
	size_t len;
	if (!token(r, &s, &len))
		return rfail(r, "truncated record: missing '%s'", key);
	if (!tok_is(s, len, key)) {
		char got[40];
		tok_str(s, len, got, sizeof got);
		return rfail(r, "expected '%s', found '%s'", key, got);
	}
	return 0;
}

/* key, then its value's token. */
static int key_value(reader *r, const char *key, const char **s, size_t *len)
{
	if (expect_key(r, key) < 0)
		return -1;
	if (!token(r, s, len))
		return rfail(r, "truncated record: missing the value of '%s'", key);
	return 0;
}

static int parse_i64(const char *s, size_t len, bool allow_neg, int64_t *out)
{
	bool neg = false;
	if (allow_neg && len && *s == '-') {
		neg = true;
		s++;
		len--;
	}
	if (!len || len > 19)
		return -1;
	int64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (INT64_MAX - (s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = neg ? -v : v;
	return 0;
}

/* key, then a non-negative decimal integer. */
static int read_count(reader *r, const char *key, int64_t *out)
{
	const char *s;
	size_t len;
	if (key_value(r, key, &s, &len) < 0)
		return -1;
	if (len && *s == '-')
		return rfail(r, "negative %s", key);
	if (parse_i64(s, len, false, out) < 0) {
		char got[40];
		tok_str(s, len, got, sizeof got);
		return rfail(r, "bad %s '%s'", key, got);
	}
	return 0;
}

static int read_float(reader *r, const char *key, double *out)
{
	const char *s;
	size_t len;
	char buf[64];
	if (key_value(r, key, &s, &len) < 0)
		return -1;
	tok_str(s, len, buf, sizeof buf);
	char *end;
	errno = 0;
	double v = len < sizeof buf ? strtod(buf, &end) : 0;
	if (len >= sizeof buf || end == buf || *end || !isfinite(v) || (double)(float)v != v)
		return rfail(r, "bad %s '%s' (expected a finite float)", key, buf);
	*out = v == 0 ? 0 : v;
	return 0;
}

static int hexval(char ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 :
	       ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

static int read_acc(reader *r, const char *key, acc *a)
{
	const char *s;
	size_t len;
	if (key_value(r, key, &s, &len) < 0)
		return -1;
	char got[40];
	tok_str(s, len, got, sizeof got);
	/* [-]0xHEXpEXP, value HEX * 2^EXP, within the accumulator */
	bool neg = len && *s == '-';
	const char *q = s + neg, *end = s + len, *pp = memchr(q, 'p', (size_t)(end - q));
	int64_t ex;
	const char *es = pp ? pp + 1 : end;
	if (es < end && *es == '+' && end - es > 1 && es[1] != '-')
		es++;
	if (end - q < 4 || q[0] != '0' || q[1] != 'x' || !pp || pp == q + 2 ||
	    parse_i64(es, (size_t)(end - es), true, &ex) < 0)
		return rfail(r, "bad %s '%s' (expected an exact hex float)", key, got);
	int64_t digits = pp - (q + 2);
	if (ex < ACC_BASE || ex > ACC_BASE + (NLIMB - 1) * 32 || digits > NLIMB * 8 ||
	    ex - ACC_BASE + 4 * digits > (NLIMB - 1) * 32)
		return rfail(r, "%s '%s' out of range", key, got);
	memset(a, 0, sizeof *a);
	for (int64_t i = 0; i < digits; i++) {	/* digit i from the right */
		int v = hexval(pp[-1 - i]);
		if (v < 0)
			return rfail(r, "bad %s '%s' (expected an exact hex float)", key, got);
		int64_t bit = ex - ACC_BASE + 4 * i;
		a->l[bit / 32] += (int64_t)v << (bit % 32);
	}
	acc_norm(a);
	if (neg)
		for (int k = 0; k < NLIMB; k++)
			a->l[k] = -a->l[k];
	acc_norm(a);
	return 0;
}

/* Percent-decode a name token into a fresh string. */
static char *decode_name(reader *r, const char *s, size_t len)
{
	char *out = malloc(len + 1);
	if (!out) {
		rfail(r, "out of memory");
		return NULL;
	}
	size_t k = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '%') {
			if (len - i < 3 || hexval(s[i + 1]) < 0 || hexval(s[i + 2]) < 0) {
				free(out);
				rfail(r, "bad %%-escape in tensor name");
				return NULL;
			}
			ch = (unsigned char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			if (!ch) {
				free(out);
				rfail(r, "tensor name contains %%00");
				return NULL;
			}
			i += 2;
		} else if (ch <= ' ' || ch >= 0x7f) {
			free(out);
			rfail(r, "unescaped byte in tensor name");
			return NULL;
		}
		out[k++] = (char)ch;
	}
	out[k] = 0;
	return out;
}

static int parse_record(reader *r, ctensor *t)
{
	const char *s;
	size_t len;
	if (read_count(r, "count", &t->count) < 0 || read_count(r, "nan", &t->nan) < 0 ||
	    read_count(r, "batches", &t->batches) < 0 || read_float(r, "min", &t->min) < 0 ||
	    read_float(r, "max", &t->max) < 0 || read_acc(r, "sum", &t->sum) < 0 ||
	    read_acc(r, "sumsq", &t->sumsq) < 0 || read_acc(r, "bmin", &t->bmin) < 0 ||
	    read_acc(r, "bmax", &t->bmax) < 0)
		return -1;
	int64_t v;
	if (expect_key(r, "rexp") < 0)
		return -1;
	if (!token(r, &s, &len) || parse_i64(s, len, true, &v) < 0 ||
	    v < IR_CALIB_MIN_EXP || v > IR_CALIB_MAX_EXP)
		return rfail(r, "bad rexp (expected an integer in [%d, %d])", IR_CALIB_MIN_EXP, IR_CALIB_MAX_EXP);
	t->rexp = (int)v;
	if (expect_key(r, "bins") < 0)
		return -1;
	if (!token(r, &s, &len) || parse_i64(s, len, false, &v) < 0)
		return rfail(r, "bad bin count");
	if (v != NBINS) {
		return rfail(r, "%" PRId64 " histogram bins, expected %d", v, NBINS);
	}
	if (expect_key(r, "hist") < 0)
		return -1;
	int64_t total = 0;
	int last = -1;
	while (token(r, &s, &len)) {
		const char *colon = memchr(s, ':', len);
		char got[40];
		tok_str(s, len, got, sizeof got);
		int64_t idx, cnt;
		if (!colon || parse_i64(s, (size_t)(colon - s), false, &idx) < 0 ||
		    parse_i64(colon + 1, len - (size_t)(colon - s) - 1, true, &cnt) < 0)
			return rfail(r, "bad histogram entry '%s' (expected index:count)", got);
		if (idx >= NBINS)
			return rfail(r, "histogram bin index out of range in '%s'", got);
		if (idx <= last)
			return rfail(r, "histogram bins out of order at '%s'", got);
		if (cnt <= 0)
			return rfail(r, "histogram bin count not positive in '%s'", got);
		if (cnt > INT64_MAX - total)
			return rfail(r, "histogram counts overflow");
		total += cnt;
		t->hist[idx] = cnt;
		last = (int)idx;
	}
	/* Consistency: everything observe could have produced, nothing else. */
	if (total != t->count)
		return rfail(r, "histogram holds a different number of values than count");
	if (t->batches > t->count || (t->count > 0) != (t->batches > 0))
		return rfail(r, "batches inconsistent with count");
	if (t->count == 0) {
		if (t->min != 0 || t->max != 0 || t->rexp != IR_CALIB_MIN_EXP ||
		    !acc_is_zero(&t->sum) || !acc_is_zero(&t->sumsq) ||
		    !acc_is_zero(&t->bmin) || !acc_is_zero(&t->bmax))
			return rfail(r, "statistics without values");
		return 0;
	}
	if (t->min > t->max)
		return rfail(r, "min greater than max");
	/* What count values in [min, max] can sum to (a little slack for the
	 * rounding of acc_double). */
	double n = (double)t->count, sum = acc_double(&t->sum), sq = acc_double(&t->sumsq);
	double top = fmax(t->min * t->min, t->max * t->max), slack = 1e-9;
	if (sq < 0)
		return rfail(r, "negative sumsq");
	if (sq > n * top * (1 + slack) || sq < sum * sum / n * (1 - slack))
		return rfail(r, "sumsq impossible for count, min and max");
	if (sum < n * t->min - fabs(n * t->min) * slack || sum > n * t->max + fabs(n * t->max) * slack)
		return rfail(r, "sum outside count times [min, max]");
	if (t->rexp != rexp_for(fmax(-t->min, t->max)))
		return rfail(r, "rexp does not match min and max");
	int first = 0;
	while (!t->hist[first])
		first++;
	if (first != bin_of(t->min, t->rexp) || last != bin_of(t->max, t->rexp))
		return rfail(r, "histogram does not span min and max");
	return 0;
}

/* One record (after "tensor NAME") into tmp; duplicates are an error. */
static int read_tensor(reader *r, ir_calib *tmp, const char *s, size_t len)
{
	char *name = decode_name(r, s, len);
	if (!name)
		return -1;
	int rc, pos = find(tmp, name);
	ctensor *t = NULL;
	r->name = name;
	if (pos >= 0)
		rc = rfail(r, "appears twice in the file");
	else if (reserve(tmp, 1) < 0 || !(t = tensor_alloc(name, strlen(name))))
		rc = rfail(r, "out of memory");
	else if ((rc = parse_record(r, t)) == 0) {
		insert_at(tmp, -pos - 1, t);
		t = NULL;
	}
	r->name = NULL;
	if (t) {
		free(t->name);
		free(t);
	}
	free(name);
	return rc;
}

int ir_calib_read(ir_calib *c, const uint8_t *buf, size_t size, const char *file, ir_diag *d)
{
	reader r = {file ? file : "<calibration statistics>", 0, d, NULL, NULL, NULL};
	if (!c || (!buf && size))
		return ir_fail(d, -1, -1, "%s: nothing to read", r.file);
	ir_calib *tmp = ir_calib_new();
	if (!tmp)
		return ir_fail(d, -1, -1, "%s: out of memory", r.file);
	const char *p = (const char *)buf, *end = p + size;
	int rc = 0;
	while (rc == 0 && (r.line == 0 || p < end)) {
		r.line++;
		const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
		if (!nl) {
			rc = p == end ? rfail(&r, "empty file, expected '%s %d'", IR_CALIB_FILE_MAGIC,
					      IR_CALIB_FILE_VERSION)
				      : rfail(&r, "truncated line (no newline at the end)");
			break;
		}
		r.p = p;
		r.end = nl;
		p = nl + 1;
		const char *s;
		size_t len;
		if (memchr(r.p, 0, (size_t)(r.end - r.p))) {
			rc = rfail(&r, "NUL byte in the line");
		} else if (r.line == 1) {
			if (!token(&r, &s, &len) || !tok_is(s, len, IR_CALIB_FILE_MAGIC))
				rc = rfail(&r, "not a calibration statistics file (expected '%s %d')",
					   IR_CALIB_FILE_MAGIC, IR_CALIB_FILE_VERSION);
			else if (!token(&r, &s, &len) || !tok_is(s, len, "1") || token(&r, &s, &len))
				rc = rfail(&r, "unsupported format version (expected '%s %d')",
					   IR_CALIB_FILE_MAGIC, IR_CALIB_FILE_VERSION);
		} else if (!token(&r, &s, &len)) {
			rc = rfail(&r, "empty line");
		} else if (!tok_is(s, len, "tensor")) {
			char got[40];
			tok_str(s, len, got, sizeof got);
			rc = rfail(&r, "expected 'tensor', found '%s'", got);
		} else if (!token(&r, &s, &len)) {
			rc = rfail(&r, "truncated record: missing the tensor name");
		} else {
			rc = read_tensor(&r, tmp, s, len);
		}
	}
	if (rc == 0)
		rc = ir_calib_merge(c, tmp, d);
	ir_calib_free(tmp);
	return rc;
}
