/* ir_kern_simd.c - row primitives of the sliding-window kernels (depthwise
 * convolution, pooling), chosen at run time for the CPU like the GEMM
 * micro-kernel: AVX-512, AVX2+FMA or portable C.
 *
 * A call computes `rows` output rows of n values (row r at y + r * ys). Tap t
 * points at the input value of output 0 of row 0 for one kernel position;
 * row r, output x reads taps[t][r * ts + x]. Up to four rows run together so
 * that enough independent accumulator chains hide the FMA latency; each
 * output is accumulated in registers over all taps and stored once. Tap
 * order is fixed, so results depend on the ISA only through fused
 * multiply-add rounding. */
#include "ir_kern.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_X86 1
#else
#define HAVE_X86 0
#endif

enum { OP_FMA, OP_MAX, OP_SUM };

typedef struct {
	void (*im2col)(const ir_im2col *g, int nr, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float *dst);
	void (*taps)(int op, float *y, ptrdiff_t ys, int rows, int64_t n, const float *const *taps, ptrdiff_t ts,
		     const float *w, int nt, float bias, float lo, float hi);
	void (*pad_row)(float *d, int64_t n, const float *src, int64_t off, int64_t W, int64_t sw, float fill);
	void (*pad_row2)(float *d0, float *d1, int64_t n, const float *src, int64_t off, int64_t W, float fill);
} simd_ops;

/* ---------------------------------------------------------------- portable */

/* ---------------------------------------------------------------- implicit im2col
 *
 * One panel row (nr columns) per k: the columns are cut into runs within one
 * output row (seg[]), each copied with its own bounds; COPY_SEG(r, src, ix0,
 * sw, len, W) copies r[t] = src[ix0 + t*sw] (0 outside 0..W-1) for t < len. */
#define IM2COL_FN(NAME, ATTR, COPY_SEG, ZERO_SEG) \
	ATTR static void NAME(const ir_im2col *g, int nr, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float *dst) \
	{ \
		int64_t D = g->in[0], H = g->in[1], W = g->in[2], OH = g->out[1], OW = g->out[2]; \
		struct { int64_t z0, y0, x0, len, off; } seg[256]; \
		int64_t p = 0; \
		while (p < nc) { \
			/* Segments of as many panels as fit seg[] (a panel needs at \
			 * most nr + 1 of them). */ \
			int ns = 0; \
			int64_t pstart = p; \
			for (; p < nc && ns + nr + 1 <= 256; p += nr) { \
				int64_t cols = nc - p < nr ? nc - p : nr; \
				float *pdst = dst + (p / nr) * kc * nr; \
				for (int64_t t = 0; t < cols;) { \
					int64_t j = j0 + p + t, ow = j % OW, oh = (j / OW) % OH, od = j / (OW * OH); \
					int64_t len = OW - ow < cols - t ? OW - ow : cols - t; \
					seg[ns].z0 = od * g->st[0] - g->pb[0]; \
					seg[ns].y0 = oh * g->st[1] - g->pb[1]; \
					seg[ns].x0 = ow * g->st[2] - g->pb[2]; \
					seg[ns].len = len; \
					seg[ns].off = pdst + t - dst; \
					ns++; \
					t += len; \
				} \
				if (cols < nr) { \
					seg[ns].z0 = -1 - (g->ks[0] - 1) * g->dil[0]; \
					seg[ns].y0 = seg[ns].x0 = 0; \
					seg[ns].len = nr - cols; \
					seg[ns].off = pdst + cols - dst; \
					ns++; \
				} \
			} \
			(void)pstart; \
			int64_t kx = k0 % g->ks[2], ky = (k0 / g->ks[2]) % g->ks[1]; \
			int64_t kz = (k0 / (g->ks[2] * g->ks[1])) % g->ks[0], c = k0 / g->KK; \
			int64_t sw = g->st[2]; \
			for (int64_t k = 0; k < kc; k++) { \
				float *row = dst + k * nr; \
				const float *xc = g->x + c * g->I; \
				int64_t dz = kz * g->dil[0], dy = ky * g->dil[1], dx = kx * g->dil[2]; \
				for (int s = 0; s < ns; s++) { \
					float *r = row + seg[s].off; \
					int64_t iz = seg[s].z0 + dz, iy = seg[s].y0 + dy; \
					int64_t len = seg[s].len; \
					if (iz < 0 || iz >= D || iy < 0 || iy >= H) { \
						ZERO_SEG(r, len); \
						continue; \
					} \
					const float *src = xc + (iz * H + iy) * W; \
					int64_t ix0 = seg[s].x0 + dx; \
					COPY_SEG(r, src, ix0, sw, len, W); \
				} \
				if (++kx == g->ks[2]) { \
					kx = 0; \
					if (++ky == g->ks[1]) { \
						ky = 0; \
						if (++kz == g->ks[0]) { \
							kz = 0; \
							c++; \
						} \
					} \
				} \
			} \
		} \
	}

#define C_ZERO_SEG(r, len) memset(r, 0, sizeof(float) * (size_t)(len))
#define C_COPY_SEG(r, src, ix0, sw, len, W) do { \
		if (sw == 1 && ix0 >= 0 && ix0 + len <= W) { \
			memcpy(r, src + ix0, sizeof(float) * (size_t)len); \
		} else { \
			for (int64_t t = 0; t < len; t++) { \
				int64_t ix = ix0 + t * sw; \
				r[t] = ix >= 0 && ix < W ? src[ix] : 0; \
			} \
		} \
	} while (0)

IM2COL_FN(im2col_c, , C_COPY_SEG, C_ZERO_SEG)


static void taps_c(int op, float *y, ptrdiff_t ys, int rows, int64_t n, const float *const *taps, ptrdiff_t ts,
		   const float *w, int nt, float bias, float lo, float hi)
{
	for (int r = 0; r < rows; r++) {
		float *yr = y + r * ys;
		ptrdiff_t ro = r * ts;
		int64_t x = 0;
		for (; x + 16 <= n; x += 16) {
			float acc[16];
			for (int j = 0; j < 16; j++)
				acc[j] = op == OP_FMA ? bias : op == OP_MAX ? -INFINITY : 0;
			for (int t = 0; t < nt; t++) {
				const float *s = taps[t] + ro + x;
				float wv = op == OP_FMA ? w[t] : 1;
				if (op == OP_MAX)
					for (int j = 0; j < 16; j++)
						acc[j] = s[j] > acc[j] ? s[j] : acc[j];
				else
					for (int j = 0; j < 16; j++)
						acc[j] += wv * s[j];
			}
			for (int j = 0; j < 16; j++) {
				float v = acc[j];
				if (op == OP_FMA) {
					v = v < lo ? lo : v;
					v = v > hi ? hi : v;
				}
				yr[x + j] = v;
			}
		}
		for (; x < n; x++) {
			float acc = op == OP_FMA ? bias : op == OP_MAX ? -INFINITY : 0;
			for (int t = 0; t < nt; t++) {
				float s = taps[t][ro + x];
				if (op == OP_MAX)
					acc = s > acc ? s : acc;
				else
					acc += (op == OP_FMA ? w[t] : 1) * s;
			}
			if (op == OP_FMA) {
				acc = acc < lo ? lo : acc;
				acc = acc > hi ? hi : acc;
			}
			yr[x] = acc;
		}
	}
}

static void pad_row_c(float *d, int64_t n, const float *src, int64_t off, int64_t W, int64_t sw, float fill)
{
	for (int64_t t = 0; t < n; t++) {
		int64_t i = off + t * sw;
		d[t] = i >= 0 && i < W ? src[i] : fill;
	}
}

static void pad_row2_c(float *d0, float *d1, int64_t n, const float *src, int64_t off, int64_t W, float fill)
{
	pad_row_c(d0, n, src, off, W, 2, fill);
	pad_row_c(d1, n, src, off + 1, W, 2, fill);
}

static const simd_ops ops_c = {im2col_c, taps_c, pad_row_c, pad_row2_c};

#if HAVE_X86
/* ---------------------------------------------------------------- AVX-512: 4 rows x 32 */

#define T512 __attribute__((target("avx512f")))

static inline __attribute__((always_inline)) T512 __mmask16 mask16(int64_t left)
{
	return left >= 16 ? (__mmask16)0xffff : left <= 0 ? (__mmask16)0 : (__mmask16)((1u << left) - 1);
}

/* Runs of up to 2 x 16 columns with masked loads (stride 1) or gathers. */
#define Z_ZERO_SEG(r, len) do { \
		for (int64_t t0 = 0; t0 < len; t0 += 16) \
			_mm512_mask_storeu_ps(r + t0, mask16(len - t0), _mm512_setzero_ps()); \
	} while (0)
#define Z_COPY_SEG(r, src, ix0, sw, len, W) do { \
		for (int64_t t0 = 0; t0 < len; t0 += 16) { \
			__mmask16 ml = mask16(len - t0); \
			__m512 v; \
			if (sw == 1) { \
				int64_t lo = -(ix0 + t0), hi = W - (ix0 + t0); \
				__mmask16 m = (__mmask16)(ml & mask16(hi) & (__mmask16)~mask16(lo)); \
				v = _mm512_maskz_loadu_ps(m, src + ix0 + t0); \
			} else if (sw == 2) { \
				int64_t base = ix0 + 2 * t0; \
				__mmask16 ma = (__mmask16)(mask16(W - base) & (__mmask16)~mask16(-base)); \
				__mmask16 mb = (__mmask16)(mask16(W - base - 16) & (__mmask16)~mask16(-base - 16)); \
				v = _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(ma, src + base), evens16(), \
							   _mm512_maskz_loadu_ps(mb, src + base + 16)); \
			} else { \
				__m512i idx = _mm512_add_epi32(_mm512_set1_epi32((int)(ix0 + t0 * sw)), \
							       _mm512_mullo_epi32(_mm512_set1_epi32((int)sw), lanes16())); \
				__mmask16 m = _mm512_mask_cmpge_epi32_mask(ml, idx, _mm512_setzero_si512()); \
				m = _mm512_mask_cmplt_epi32_mask(m, idx, _mm512_set1_epi32((int)W)); \
				v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, idx, src, 4); \
			} \
			_mm512_mask_storeu_ps(r + t0, ml, v); \
		} \
	} while (0)

static inline __attribute__((always_inline)) T512 __m512i lanes16(void)
{
	return _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

static inline __attribute__((always_inline)) T512 __m512i evens16(void)
{
	return _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
}

IM2COL_FN(im2col_512, T512, Z_COPY_SEG, Z_ZERO_SEG)

/* Rows beyond `rows` repeat the last row (computed, not stored): no
 * branches in the tap loop. */
static inline __attribute__((always_inline)) T512 void taps512_body(const int op, float *y, ptrdiff_t ys, int rows,
								    int64_t n, const float *const *taps,
								    ptrdiff_t ts, const float *w, int nt,
								    float bias, float lo, float hi)
{
	__m512 l = _mm512_set1_ps(lo), h = _mm512_set1_ps(hi);
	__m512 init = _mm512_set1_ps(op == OP_FMA ? bias : op == OP_MAX ? -INFINITY : 0);
	for (int r0 = 0; r0 < rows; r0 += 4) {
		ptrdiff_t ro[4];
#pragma GCC unroll 4
		for (int r = 0; r < 4; r++)
			ro[r] = (r0 + r < rows ? r0 + r : rows - 1) * ts;
		for (int64_t x = 0; x < n; x += 32) {
			__mmask16 m0 = mask16(n - x), m1 = mask16(n - x - 16);
			__m512 acc[4][2];
#pragma GCC unroll 4
			for (int r = 0; r < 4; r++)
				acc[r][0] = acc[r][1] = init;
			for (int t = 0; t < nt; t++) {
				const float *s = taps[t] + x;
				__m512 wv = _mm512_set1_ps(op == OP_FMA ? w[t] : 0);
#pragma GCC unroll 4
				for (int r = 0; r < 4; r++) {
					__m512 v0 = _mm512_maskz_loadu_ps(m0, s + ro[r]);
					__m512 v1 = _mm512_maskz_loadu_ps(m1, s + ro[r] + 16);
					if (op == OP_FMA) {
						acc[r][0] = _mm512_fmadd_ps(wv, v0, acc[r][0]);
						acc[r][1] = _mm512_fmadd_ps(wv, v1, acc[r][1]);
					} else if (op == OP_MAX) {
						acc[r][0] = _mm512_max_ps(acc[r][0], v0);
						acc[r][1] = _mm512_max_ps(acc[r][1], v1);
					} else {
						acc[r][0] = _mm512_add_ps(acc[r][0], v0);
						acc[r][1] = _mm512_add_ps(acc[r][1], v1);
					}
				}
			}
#pragma GCC unroll 4
			for (int r = 0; r < 4; r++) {
				if (r0 + r >= rows)
					break;
				__m512 a0 = acc[r][0], a1 = acc[r][1];
				if (op == OP_FMA) {
					a0 = _mm512_min_ps(_mm512_max_ps(a0, l), h);
					a1 = _mm512_min_ps(_mm512_max_ps(a1, l), h);
				}
				_mm512_mask_storeu_ps(y + (r0 + r) * ys + x, m0, a0);
				_mm512_mask_storeu_ps(y + (r0 + r) * ys + x + 16, m1, a1);
			}
		}
	}
}

T512 static void taps_512(int op, float *y, ptrdiff_t ys, int rows, int64_t n, const float *const *taps, ptrdiff_t ts,
			  const float *w, int nt, float bias, float lo, float hi)
{
	if (op == OP_FMA)
		taps512_body(OP_FMA, y, ys, rows, n, taps, ts, w, nt, bias, lo, hi);
	else if (op == OP_MAX)
		taps512_body(OP_MAX, y, ys, rows, n, taps, ts, w, nt, bias, lo, hi);
	else
		taps512_body(OP_SUM, y, ys, rows, n, taps, ts, w, nt, bias, lo, hi);
}

T512 static void pad_row_512(float *d, int64_t n, const float *src, int64_t off, int64_t W, int64_t sw, float fill)
{
	__m512 f = _mm512_set1_ps(fill);
	for (int64_t t0 = 0; t0 < n; t0 += 16) {
		__mmask16 ml = mask16(n - t0);
		__m512 v;
		if (sw == 1) {
			int64_t lo = -(off + t0), hi = W - (off + t0);
			__mmask16 m = (__mmask16)(ml & mask16(hi) & (__mmask16)~mask16(lo));
			v = _mm512_mask_loadu_ps(f, m, src + off + t0);
		} else {
			__m512i idx = _mm512_add_epi32(_mm512_set1_epi32((int)(off + t0 * sw)),
						       _mm512_mullo_epi32(_mm512_set1_epi32((int)sw), lanes16()));
			__mmask16 m = _mm512_mask_cmpge_epi32_mask(ml, idx, _mm512_setzero_si512());
			m = _mm512_mask_cmplt_epi32_mask(m, idx, _mm512_set1_epi32((int)W));
			v = _mm512_mask_i32gather_ps(f, m, idx, src, 4);
		}
		_mm512_mask_storeu_ps(d + t0, ml, v);
	}
}

/* Both phases of a stride-2 padded row: d0[q] = src[off + 2q], d1[q] = src[off + 2q + 1]. */
T512 static void pad_row2_512(float *d0, float *d1, int64_t n, const float *src, int64_t off, int64_t W, float fill)
{
	const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
	const __m512i od = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
	__m512 f = _mm512_set1_ps(fill);
	for (int64_t q0 = 0; q0 < n; q0 += 16) {
		int64_t base = off + 2 * q0;
		__mmask16 ma = (__mmask16)(mask16(W - base) & (__mmask16)~mask16(-base));
		__mmask16 mb = (__mmask16)(mask16(W - base - 16) & (__mmask16)~mask16(-base - 16));
		__m512 a = _mm512_mask_loadu_ps(f, ma, src + base), b = _mm512_mask_loadu_ps(f, mb, src + base + 16);
		__mmask16 ms = mask16(n - q0);
		_mm512_mask_storeu_ps(d0 + q0, ms, _mm512_permutex2var_ps(a, ev, b));
		_mm512_mask_storeu_ps(d1 + q0, ms, _mm512_permutex2var_ps(a, od, b));
	}
}

/* Depthwise rows read straight from the input: tap t of output column x
 * reads taps[t][r * ts + sw * x] (sw 1 or 2), valid when
 * 0 <= sw * x + dx[t] < W (zero outside). */
static inline __attribute__((always_inline)) T512 __m512 load_s(const int sw, const float *p, __mmask16 m0,
								__mmask16 m1)
{
	if (sw == 1)
		return _mm512_maskz_loadu_ps(m0, p);
	return _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(m0, p), evens16(), _mm512_maskz_loadu_ps(m1, p + 16));
}

static inline __attribute__((always_inline)) T512 void taps_dx_body(const int sw, float *y, ptrdiff_t ys, int rows,
								    int64_t n, const float *const *taps, ptrdiff_t ts,
								    const float *w, int nt, float bias, float lo,
								    float hi, const int64_t *dx, int64_t W)
{
	__m512 l = _mm512_set1_ps(lo), h = _mm512_set1_ps(hi), b = _mm512_set1_ps(bias);
	for (int r0 = 0; r0 < rows; r0 += 4) {
		ptrdiff_t ro[4];
#pragma GCC unroll 4
		for (int r = 0; r < 4; r++)
			ro[r] = (r0 + r < rows ? r0 + r : rows - 1) * ts;
		for (int64_t x = 0; x < n; x += 32) {
			__m512 acc[4][2];
#pragma GCC unroll 4
			for (int r = 0; r < 4; r++)
				acc[r][0] = acc[r][1] = b;
			for (int t = 0; t < nt; t++) {
				const float *s = taps[t] + sw * x;
				/* Masks of the input elements each output vector reads. */
				__mmask16 m[2][2];
#pragma GCC unroll 2
				for (int v = 0; v < 2; v++) {
					int64_t c = sw * (x + 16 * v) + dx[t], left = n - x - 16 * v;
					if (sw == 1) {
						m[v][0] = (__mmask16)(mask16(W - c) & (__mmask16)~mask16(-c) & mask16(left));
						m[v][1] = 0;
					} else {
						m[v][0] = (__mmask16)(mask16(W - c) & (__mmask16)~mask16(-c) & mask16(2 * left));
						m[v][1] = (__mmask16)(mask16(W - c - 16) & (__mmask16)~mask16(-c - 16) &
								      mask16(2 * left - 16));
					}
				}
				__m512 wv = _mm512_set1_ps(w[t]);
#pragma GCC unroll 4
				for (int r = 0; r < 4; r++) {
					acc[r][0] = _mm512_fmadd_ps(wv, load_s(sw, s + ro[r], m[0][0], m[0][1]), acc[r][0]);
					acc[r][1] = _mm512_fmadd_ps(wv, load_s(sw, s + ro[r] + 16 * sw, m[1][0], m[1][1]),
								    acc[r][1]);
				}
			}
			__mmask16 s0 = mask16(n - x), s1 = mask16(n - x - 16);
#pragma GCC unroll 4
			for (int r = 0; r < 4; r++) {
				if (r0 + r >= rows)
					break;
				_mm512_mask_storeu_ps(y + (r0 + r) * ys + x, s0, _mm512_min_ps(_mm512_max_ps(acc[r][0], l), h));
				_mm512_mask_storeu_ps(y + (r0 + r) * ys + x + 16, s1, _mm512_min_ps(_mm512_max_ps(acc[r][1], l), h));
			}
		}
	}
}

T512 static void fma_taps_dx_512(int sw, float *y, ptrdiff_t ys, int rows, int64_t n, const float *const *taps,
				 ptrdiff_t ts, const float *w, int nt, float bias, float lo, float hi, const int64_t *dx,
				 int64_t W)
{
	(void)sw;	/* stride 2 through permutes measured slower than a padded copy */
	taps_dx_body(1, y, ys, rows, n, taps, ts, w, nt, bias, lo, hi, dx, W);
}

/* Stride-1 depthwise over a flattened plane whose output and input rows
 * have the same length: y[i] = clamp(bias + sum_t w[t] * x[i + off[t]])
 * where bit i of tap t's mask (bits[t * nwords + i / 16]) says the tap is
 * inside the input. Four vectors in flight. */
T512 static void dw_flat_512(float *y, int64_t P, const float *x, const int64_t *off, const uint16_t *bits,
			     int64_t nwords, const float *w, int nt, float bias, float lo, float hi)
{
	__m512 l = _mm512_set1_ps(lo), h = _mm512_set1_ps(hi), b = _mm512_set1_ps(bias);
	for (int64_t x0 = 0; x0 < P; x0 += 64) {
		int64_t q = x0 / 16;
		__m512 acc[4] = {b, b, b, b};
		for (int t = 0; t < nt; t++) {
			const float *s = x + x0 + off[t];
			const uint16_t *m = bits + t * nwords + q;
			__m512 wv = _mm512_set1_ps(w[t]);
#pragma GCC unroll 4
			for (int v = 0; v < 4; v++)
				if (q + v < nwords)
					acc[v] = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(m[v], s + 16 * v), acc[v]);
		}
#pragma GCC unroll 4
		for (int v = 0; v < 4; v++)
			_mm512_mask_storeu_ps(y + x0 + 16 * v, mask16(P - x0 - 16 * v),
					      _mm512_min_ps(_mm512_max_ps(acc[v], l), h));
	}
}

static const simd_ops ops_512 = {im2col_512, taps_512, pad_row_512, pad_row2_512};

/* ---------------------------------------------------------------- AVX2 + FMA: 4 rows x 16 */

#define T256 __attribute__((target("avx2,fma")))

static inline __attribute__((always_inline)) T256 __m256i mask8(int64_t left)
{
	int v = left > 8 ? 8 : left < 0 ? 0 : (int)left;
	return _mm256_cmpgt_epi32(_mm256_set1_epi32(v), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline __attribute__((always_inline)) T256 void taps256_body(const int op, float *y, ptrdiff_t ys, int rows,
								    int64_t n, const float *const *taps,
								    ptrdiff_t ts, const float *w, int nt,
								    float bias, float lo, float hi)
{
	__m256 l = _mm256_set1_ps(lo), h = _mm256_set1_ps(hi);
	__m256 init = _mm256_set1_ps(op == OP_FMA ? bias : op == OP_MAX ? -INFINITY : 0);
	for (int r0 = 0; r0 < rows; r0 += 4) {
		ptrdiff_t ro[4];
#pragma GCC unroll 4
		for (int r = 0; r < 4; r++)
			ro[r] = (r0 + r < rows ? r0 + r : rows - 1) * ts;
		for (int64_t x = 0; x < n; x += 16) {
			__m256i m0 = mask8(n - x), m1 = mask8(n - x - 8);
			__m256 acc[4][2];
#pragma GCC unroll 4
			for (int r = 0; r < 4; r++)
				acc[r][0] = acc[r][1] = init;
			for (int t = 0; t < nt; t++) {
				const float *s = taps[t] + x;
				__m256 wv = _mm256_set1_ps(op == OP_FMA ? w[t] : 0);
#pragma GCC unroll 4
				for (int r = 0; r < 4; r++) {
					__m256 v0 = _mm256_maskload_ps(s + ro[r], m0);
					__m256 v1 = _mm256_maskload_ps(s + ro[r] + 8, m1);
					if (op == OP_FMA) {
						acc[r][0] = _mm256_fmadd_ps(wv, v0, acc[r][0]);
						acc[r][1] = _mm256_fmadd_ps(wv, v1, acc[r][1]);
					} else if (op == OP_MAX) {
						acc[r][0] = _mm256_max_ps(acc[r][0], v0);
						acc[r][1] = _mm256_max_ps(acc[r][1], v1);
					} else {
						acc[r][0] = _mm256_add_ps(acc[r][0], v0);
						acc[r][1] = _mm256_add_ps(acc[r][1], v1);
					}
				}
			}
#pragma GCC unroll 4
			for (int r = 0; r < 4; r++) {
				if (r0 + r >= rows)
					break;
				__m256 a0 = acc[r][0], a1 = acc[r][1];
				if (op == OP_FMA) {
					a0 = _mm256_min_ps(_mm256_max_ps(a0, l), h);
					a1 = _mm256_min_ps(_mm256_max_ps(a1, l), h);
				}
				_mm256_maskstore_ps(y + (r0 + r) * ys + x, m0, a0);
				_mm256_maskstore_ps(y + (r0 + r) * ys + x + 8, m1, a1);
			}
		}
	}
}

T256 static void taps_256(int op, float *y, ptrdiff_t ys, int rows, int64_t n, const float *const *taps, ptrdiff_t ts,
			  const float *w, int nt, float bias, float lo, float hi)
{
	if (op == OP_FMA)
		taps256_body(OP_FMA, y, ys, rows, n, taps, ts, w, nt, bias, lo, hi);
	else if (op == OP_MAX)
		taps256_body(OP_MAX, y, ys, rows, n, taps, ts, w, nt, bias, lo, hi);
	else
		taps256_body(OP_SUM, y, ys, rows, n, taps, ts, w, nt, bias, lo, hi);
}

static const simd_ops ops_256 = {im2col_c, taps_256, pad_row_c, pad_row2_c};
#endif

static const simd_ops *ops(void)
{
	static const simd_ops *chosen;
	const simd_ops *o = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
	if (o)
		return o;
	const char *isa = ir_gemm_isa();
	o = &ops_c;
#if HAVE_X86
	if (!strcmp(isa, "avx512"))
		o = &ops_512;
	else if (!strcmp(isa, "avx2"))
		o = &ops_256;
#endif
	__atomic_store_n(&chosen, o, __ATOMIC_RELEASE);
	return o;
}

void ir_im2col_pack(const void *ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float *dst)
{
	ops()->im2col(ctx, ir_gemm_nr(), k0, kc, j0, nc, dst);
}

void ir_im2col_pack_a(const void *ctx, int64_t i0, int64_t rows, int w, int64_t K, float *dst)
{
	ops()->im2col(ctx, w, 0, K, i0, rows, dst);
}

void ir_pad_row(float *d, int64_t n, const float *src, int64_t off, int64_t W, int64_t sw, float fill)
{
	ops()->pad_row(d, n, src, off, W, sw, fill);
}

void ir_pad_row2(float *d0, float *d1, int64_t n, const float *src, int64_t off, int64_t W, float fill)
{
	ops()->pad_row2(d0, d1, n, src, off, W, fill);
}

int ir_dw_flat(float *y, int64_t P, const float *x, const int64_t *off, const uint16_t *bits, int64_t nwords,
	       const float *w, int nt, float bias, float lo, float hi)
{
#if HAVE_X86
	if (ops() == &ops_512) {
		dw_flat_512(y, P, x, off, bits, nwords, w, nt, bias, lo, hi);
		return 0;
	}
#endif
	(void)y, (void)P, (void)x, (void)off, (void)bits, (void)nwords, (void)w, (void)nt, (void)bias, (void)lo;
	(void)hi;
	return -1;
}

int ir_rows_fma_taps_dx(int sw, float *y, ptrdiff_t ys, int rows, int64_t n, const float *const *taps, ptrdiff_t ts,
			const float *w, int nt, float bias, float lo, float hi, const int64_t *dx, int64_t W)
{
#if HAVE_X86
	if (ops() == &ops_512 && sw == 1) {
		fma_taps_dx_512(sw, y, ys, rows, n, taps, ts, w, nt, bias, lo, hi, dx, W);
		return 0;
	}
#endif
	(void)sw, (void)y, (void)ys, (void)rows, (void)n, (void)taps, (void)ts, (void)w, (void)nt, (void)bias;
	(void)lo, (void)hi, (void)dx, (void)W;
	return -1;
}

void ir_rows_fma_taps(float *y, ptrdiff_t ys, int rows, int64_t n, const float *const *taps, ptrdiff_t ts,
		      const float *w, int nt, float bias, float lo, float hi)
{
	ops()->taps(OP_FMA, y, ys, rows, n, taps, ts, w, nt, bias, lo, hi);
}

void ir_rows_max_taps(float *y, ptrdiff_t ys, int rows, int64_t n, const float *const *taps, ptrdiff_t ts, int nt)
{
	ops()->taps(OP_MAX, y, ys, rows, n, taps, ts, NULL, nt, 0, 0, 0);
}

void ir_rows_sum_taps(float *y, ptrdiff_t ys, int rows, int64_t n, const float *const *taps, ptrdiff_t ts, int nt)
{
	ops()->taps(OP_SUM, y, ys, rows, n, taps, ts, NULL, nt, 0, 0, 0);
}

