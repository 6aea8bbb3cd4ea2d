/* ir_kern_gemm.c - single-precision GEMM for the interpreter's conv,
 * fully connected, matmul, gemm and recurrent kernels.
 *
 * The classic packed design (Goto/BLIS): B is packed into panels of NR
 * columns per k, A into panels of MR rows per k, and a register-blocked
 * micro-kernel computes an MR x NR tile of C over a KC slice of K. Cache
 * blocking: a KC x NC block of B per task, an MC x KC block of A reused from
 * L2 across it, one KC x NR micro-panel of B reused from L1 across the MC rows.
 *
 * The micro-kernel is chosen at run time for the CPU: AVX-512 (12 x 32),
 * AVX2+FMA (6 x 16) or portable C (4 x 8). The last row panel of a packed A
 * is only as wide as needed (a narrower kernel runs it), so matrix-vector
 * products do not pay for MR rows. Partial column panels use masked loads
 * and stores. Bias (per row or per column) initialises the accumulators and
 * a clamp (relu, relu6, clip) is applied before the final store.
 *
 * Results do not depend on the thread count: every C element is accumulated
 * in the same order (KC slices in order, k in order within a slice). */
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

enum { F_FIRST = 1, F_LAST = 2, F_CLAMP = 4 };

/* kc steps of C[mr x nr] (+)= A panel . B rows; B row k at b + k * ldb
 * (ldb == NR for packed panels), or, when brows is not NULL, at
 * brows[k] + ldb (ldb is then a column offset). Only nr columns are read. */
#define UKERN_PARAMS int64_t kc, const float *a, const float *b, ptrdiff_t ldb, const float *const *brows, \
	float *c, ptrdiff_t ldc, int mr, int nr, int flags, const float *bm, const float *bn, float lo, float hi
#define UKERN_ARGS kc, a, b, ldb, brows, c, ldc, mr, nr, flags, bm, bn, lo, hi
typedef void (*ukern)(UKERN_PARAMS);

#define MAX_WIDTHS 6
typedef struct {
	const char *name;
	int mr, nr;
	int nw;
	int width[MAX_WIDTHS];		/* row-panel widths, descending; width[0] == mr */
	ukern kern[MAX_WIDTHS];
} isa_desc;

/* ---------------------------------------------------------------- portable micro-kernel */

#define GEN_NR 8
static inline __attribute__((always_inline)) void kgen_body(const int W, UKERN_PARAMS)
{
	float acc[4][GEN_NR];
	for (int i = 0; i < W; i++)
		for (int j = 0; j < GEN_NR; j++) {
			if (flags & F_FIRST)
				acc[i][j] = (bm && i < mr ? bm[i] : 0) + (bn && j < nr ? bn[j] : 0);
			else
				acc[i][j] = i < mr && j < nr ? c[i * ldc + j] : 0;
		}
	for (int64_t k = 0; k < kc; k++) {
		float bv[GEN_NR];
		if (brows)
			b = brows[k] + ldb;
		for (int j = 0; j < GEN_NR; j++)
			bv[j] = j < nr ? b[j] : 0;
		for (int i = 0; i < W; i++)
			for (int j = 0; j < GEN_NR; j++)
				acc[i][j] += a[i] * bv[j];
		a += W;
		if (!brows)
			b += ldb;
	}
	for (int i = 0; i < mr; i++)
		for (int j = 0; j < nr; j++) {
			float v = acc[i][j];
			if (flags & F_CLAMP)
				v = v < lo ? lo : v > hi ? hi : v;
			c[i * ldc + j] = v;
		}
}

#define KGEN(W) static void kgen_##W(UKERN_PARAMS) { kgen_body(W, UKERN_ARGS); }
KGEN(4)
KGEN(2)
KGEN(1)

static const isa_desc isa_generic = {"generic", 4, GEN_NR, 3, {4, 2, 1}, {kgen_4, kgen_2, kgen_1}};

#if HAVE_X86
/* ---------------------------------------------------------------- AVX2 + FMA: 6 x 16 */

#define T_AVX2 __attribute__((target("avx2,fma")))

static inline __attribute__((always_inline)) T_AVX2 __m256i avx2_mask(int n)
{
	return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline __attribute__((always_inline)) T_AVX2 void k256_body(const int W, UKERN_PARAMS)
{
	__m256 acc0[6], acc1[6];
	__m256i m0 = avx2_mask(nr), m1 = avx2_mask(nr - 8);
	if (flags & F_FIRST) {
		__m256 v0 = bn ? _mm256_maskload_ps(bn, m0) : _mm256_setzero_ps();
		__m256 v1 = bn ? _mm256_maskload_ps(bn + 8, m1) : _mm256_setzero_ps();
#pragma GCC unroll 8
		for (int i = 0; i < W; i++) {
			__m256 s = _mm256_set1_ps(bm && i < mr ? bm[i] : 0);
			acc0[i] = _mm256_add_ps(v0, s);
			acc1[i] = _mm256_add_ps(v1, s);
		}
	} else {
#pragma GCC unroll 8
		for (int i = 0; i < W; i++) {
			acc0[i] = i < mr ? _mm256_maskload_ps(c + i * ldc, m0) : _mm256_setzero_ps();
			acc1[i] = i < mr ? _mm256_maskload_ps(c + i * ldc + 8, m1) : _mm256_setzero_ps();
		}
	}
	if (brows) {
		for (int64_t k = 0; k < kc; k++) {
			const float *bk = brows[k] + ldb;
			__m256 b0 = _mm256_maskload_ps(bk, m0), b1 = _mm256_maskload_ps(bk + 8, m1);
#pragma GCC unroll 8
			for (int i = 0; i < W; i++) {
				__m256 ai = _mm256_broadcast_ss(a + i);
				acc0[i] = _mm256_fmadd_ps(ai, b0, acc0[i]);
				acc1[i] = _mm256_fmadd_ps(ai, b1, acc1[i]);
			}
			a += W;
		}
	} else if (ldb == 16) {		/* packed panel: full loads */
		for (int64_t k = 0; k < kc; k++) {
			__m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 8
			for (int i = 0; i < W; i++) {
				__m256 ai = _mm256_broadcast_ss(a + i);
				acc0[i] = _mm256_fmadd_ps(ai, b0, acc0[i]);
				acc1[i] = _mm256_fmadd_ps(ai, b1, acc1[i]);
			}
			a += W;
			b += 16;
		}
	} else {
		for (int64_t k = 0; k < kc; k++) {
			__m256 b0 = _mm256_maskload_ps(b, m0), b1 = _mm256_maskload_ps(b + 8, m1);
#pragma GCC unroll 8
			for (int i = 0; i < W; i++) {
				__m256 ai = _mm256_broadcast_ss(a + i);
				acc0[i] = _mm256_fmadd_ps(ai, b0, acc0[i]);
				acc1[i] = _mm256_fmadd_ps(ai, b1, acc1[i]);
			}
			a += W;
			b += ldb;
		}
	}
	if (flags & F_CLAMP) {
		__m256 l = _mm256_set1_ps(lo), h = _mm256_set1_ps(hi);
#pragma GCC unroll 8
		for (int i = 0; i < W; i++) {
			acc0[i] = _mm256_min_ps(_mm256_max_ps(acc0[i], l), h);
			acc1[i] = _mm256_min_ps(_mm256_max_ps(acc1[i], l), h);
		}
	}
	if (nr == 16) {
#pragma GCC unroll 8
		for (int i = 0; i < W; i++)
			if (i < mr) {
				_mm256_storeu_ps(c + i * ldc, acc0[i]);
				_mm256_storeu_ps(c + i * ldc + 8, acc1[i]);
			}
	} else {
#pragma GCC unroll 8
		for (int i = 0; i < W; i++)
			if (i < mr) {
				_mm256_maskstore_ps(c + i * ldc, m0, acc0[i]);
				_mm256_maskstore_ps(c + i * ldc + 8, m1, acc1[i]);
			}
	}
}

#define K256(W) T_AVX2 static void k256_##W(UKERN_PARAMS) { k256_body(W, UKERN_ARGS); }
K256(6)
K256(4)
K256(2)
K256(1)

static const isa_desc isa_avx2 = {"avx2", 6, 16, 4, {6, 4, 2, 1}, {k256_6, k256_4, k256_2, k256_1}};

/* ---------------------------------------------------------------- AVX-512: 12 x 32 */

#define T_AVX512 __attribute__((target("avx512f")))

static inline __attribute__((always_inline)) T_AVX512 void k512_body(const int W, UKERN_PARAMS)
{
	__m512 acc0[12], acc1[12];
	__mmask16 m0 = nr >= 16 ? 0xffff : (__mmask16)((1u << nr) - 1);
	__mmask16 m1 = nr >= 32 ? 0xffff : nr > 16 ? (__mmask16)((1u << (nr - 16)) - 1) : 0;
	if (flags & F_FIRST) {
		__m512 v0 = bn ? _mm512_maskz_loadu_ps(m0, bn) : _mm512_setzero_ps();
		__m512 v1 = bn ? _mm512_maskz_loadu_ps(m1, bn + 16) : _mm512_setzero_ps();
#pragma GCC unroll 16
		for (int i = 0; i < W; i++) {
			__m512 s = _mm512_set1_ps(bm && i < mr ? bm[i] : 0);
			acc0[i] = _mm512_add_ps(v0, s);
			acc1[i] = _mm512_add_ps(v1, s);
		}
	} else {
#pragma GCC unroll 16
		for (int i = 0; i < W; i++) {
			acc0[i] = i < mr ? _mm512_maskz_loadu_ps(m0, c + i * ldc) : _mm512_setzero_ps();
			acc1[i] = i < mr ? _mm512_maskz_loadu_ps(m1, c + i * ldc + 16) : _mm512_setzero_ps();
		}
	}
	if (brows) {
		for (int64_t k = 0; k < kc; k++) {
			const float *bk = brows[k] + ldb;
			__m512 b0 = _mm512_maskz_loadu_ps(m0, bk), b1 = _mm512_maskz_loadu_ps(m1, bk + 16);
#pragma GCC unroll 16
			for (int i = 0; i < W; i++) {
				__m512 ai = _mm512_set1_ps(a[i]);
				acc0[i] = _mm512_fmadd_ps(ai, b0, acc0[i]);
				acc1[i] = _mm512_fmadd_ps(ai, b1, acc1[i]);
			}
			a += W;
		}
	} else if (ldb == 32) {		/* packed panel: full loads */
		for (int64_t k = 0; k < kc; k++) {
			__m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 16
			for (int i = 0; i < W; i++) {
				__m512 ai = _mm512_set1_ps(a[i]);
				acc0[i] = _mm512_fmadd_ps(ai, b0, acc0[i]);
				acc1[i] = _mm512_fmadd_ps(ai, b1, acc1[i]);
			}
			a += W;
			b += 32;
		}
	} else {
		for (int64_t k = 0; k < kc; k++) {
			__m512 b0 = _mm512_maskz_loadu_ps(m0, b), b1 = _mm512_maskz_loadu_ps(m1, b + 16);
#pragma GCC unroll 16
			for (int i = 0; i < W; i++) {
				__m512 ai = _mm512_set1_ps(a[i]);
				acc0[i] = _mm512_fmadd_ps(ai, b0, acc0[i]);
				acc1[i] = _mm512_fmadd_ps(ai, b1, acc1[i]);
			}
			a += W;
			b += ldb;
		}
	}
	if (flags & F_CLAMP) {
		__m512 l = _mm512_set1_ps(lo), h = _mm512_set1_ps(hi);
#pragma GCC unroll 16
		for (int i = 0; i < W; i++) {
			acc0[i] = _mm512_min_ps(_mm512_max_ps(acc0[i], l), h);
			acc1[i] = _mm512_min_ps(_mm512_max_ps(acc1[i], l), h);
		}
	}
#pragma GCC unroll 16
	for (int i = 0; i < W; i++)
		if (i < mr) {
			_mm512_mask_storeu_ps(c + i * ldc, m0, acc0[i]);
			_mm512_mask_storeu_ps(c + i * ldc + 16, m1, acc1[i]);
		}
}

#define K512(W) T_AVX512 static void k512_##W(UKERN_PARAMS) { k512_body(W, UKERN_ARGS); }
K512(12)
K512(8)
K512(4)
K512(2)
K512(1)

static const isa_desc isa_avx512 = {"avx512", 12, 32, 5, {12, 8, 4, 2, 1}, {k512_12, k512_8, k512_4, k512_2, k512_1}};
#endif

/* ---------------------------------------------------------------- dispatch */

static const isa_desc *isa(void)
{
	static const isa_desc *chosen;
	const isa_desc *d = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
	if (d)
		return d;
	d = &isa_generic;
#if HAVE_X86
	const char *force = getenv("NPU_GEMM_ISA");	/* testing aid: generic, avx2 */
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		d = &isa_avx2;
	if (__builtin_cpu_supports("avx512f"))
		d = &isa_avx512;
	if (force && !strcmp(force, "generic"))
		d = &isa_generic;
	else if (force && !strcmp(force, "avx2") && d == &isa_avx512)
		d = &isa_avx2;
#endif
	__atomic_store_n(&chosen, d, __ATOMIC_RELEASE);
	return d;
}

const char *ir_gemm_isa(void) { return isa()->name; }
int ir_gemm_nr(void) { return isa()->nr; }

/* Width index of the panel holding r (< mr) remaining rows. */
static int width_index(const isa_desc *d, int64_t r)
{
	int w = 0;
	while (w + 1 < d->nw && d->width[w + 1] >= r)
		w++;
	return w;
}

size_t ir_gemm_pack_a_size(int64_t M, int64_t K)
{
	const isa_desc *d = isa();
	int64_t full = M / d->mr, rem = M % d->mr;
	int64_t w = rem ? d->width[width_index(d, rem)] : 0;
	return (size_t)((full * d->mr + w) * K) * sizeof(float);
}

size_t ir_gemm_pack_b_size(int64_t K, int64_t N)
{
	int64_t nr = isa()->nr;
	return (size_t)(((N + nr - 1) / nr) * nr * K) * sizeof(float);
}

void ir_gemm_pack_a(float *dst, const float *a, int64_t M, int64_t K, ptrdiff_t rs, ptrdiff_t cs)
{
	const isa_desc *d = isa();
	for (int64_t i0 = 0; i0 < M; i0 += d->mr) {
		int64_t rows = M - i0 < d->mr ? M - i0 : d->mr;
		int w = rows == d->mr ? d->mr : d->width[width_index(d, rows)];
		for (int64_t k = 0; k < K; k++) {
			for (int64_t i = 0; i < rows; i++)
				dst[k * w + i] = a[(i0 + i) * rs + k * cs];
			for (int64_t i = rows; i < w; i++)
				dst[k * w + i] = 0;
		}
		dst += K * w;
	}
}

/* Pack rows k0.. of B (strided) for columns j0..j0+nc into panels of kc x nr. */
static void pack_b_strided(const float *b, ptrdiff_t rs, ptrdiff_t cs, int nr, int64_t k0, int64_t kc,
			   int64_t j0, int64_t nc, float *dst)
{
	if (cs == 1) {
		/* Rows of B are the "channels" of a one-dimensional image. */
		ir_im2col g = {.x = b, .in = {1, 1, j0 + nc}, .out = {1, 1, j0 + nc}, .ks = {1, 1, 1},
			       .st = {1, 1, 1}, .dil = {1, 1, 1}, .KK = 1, .I = rs};
		ir_im2col_pack(&g, k0, kc, j0, nc, dst);
		return;
	}
	for (int64_t p = 0; p < nc; p += nr) {
		int64_t cols = nc - p < nr ? nc - p : nr;
		const float *src = b + k0 * rs + (j0 + p) * cs;
		for (int64_t k = 0; k < kc; k++) {
			for (int64_t j = 0; j < cols; j++)
				dst[k * nr + j] = src[k * rs + j * cs];
			for (int64_t j = cols; j < nr; j++)
				dst[k * nr + j] = 0;
		}
		dst += kc * nr;
	}
}

void ir_gemm_pack_b(float *dst, const float *b, int64_t K, int64_t N, ptrdiff_t rs, ptrdiff_t cs)
{
	pack_b_strided(b, rs, cs, isa()->nr, 0, K, 0, N, dst);
}

/* ---------------------------------------------------------------- driver */

enum { KC = 256, MC_TARGET = 144, NC = 512 };

typedef struct {
	const ir_gemm_args *g;
	const isa_desc *d;
	const float *ap;
	int64_t tj, ti;			/* task grid: column chunks x row chunks */
	int64_t jchunk, ichunk;		/* chunk sizes (multiples of nr, mr) */
	ir_kctx *k;
	bool direct_b;			/* the kernel reads B rows in place */
	int failed;
} job;

/* Packed A panel for rows starting at i (a multiple of mr), at k offset pc. */
static const float *a_panel(const job *jb, int64_t i, int64_t pc, int *w, ukern *kern)
{
	const isa_desc *d = jb->d;
	int64_t rows = jb->g->M - i;
	int wi = rows >= d->mr ? 0 : width_index(d, rows);
	*w = d->width[wi];
	*kern = d->kern[wi];
	return jb->ap + i * jb->g->K + pc * *w;
}

static void run_task(void *arg, int t, int thread)
{
	job *jb = arg;
	const ir_gemm_args *g = jb->g;
	const isa_desc *d = jb->d;
	int64_t tj = t % jb->tj, ti = t / jb->tj;
	int64_t j0 = tj * jb->jchunk, j1 = j0 + jb->jchunk < g->N ? j0 + jb->jchunk : g->N;
	int64_t i0 = ti * jb->ichunk, i1 = i0 + jb->ichunk < g->M ? i0 + jb->ichunk : g->M;
	if (j0 >= j1 || i0 >= i1)
		return;
	int nr = d->nr, mr = d->mr;
	int64_t mc = MC_TARGET / mr * mr, K = g->K;
	float *bbuf = NULL;
	if (!g->bp && !g->brows && !jb->direct_b) {
		int64_t ncmax = j1 - j0 < NC ? j1 - j0 : NC;
		int64_t kcmax = K < KC ? K : KC;
		bbuf = ir_kscratch(jb->k, thread, IR_SCRATCH_GEMM_B,
				   (size_t)(((ncmax + nr - 1) / nr) * nr * (kcmax ? kcmax : 1)) * sizeof(float));
		if (!bbuf) {
			jb->failed = 1;
			return;
		}
	}
	bool clamp = g->lo != -INFINITY || g->hi != INFINITY;
	for (int64_t jc = j0; jc < j1; jc += NC) {
		int64_t nc = j1 - jc < NC ? j1 - jc : NC;
		for (int64_t pc = 0; pc < K || (K == 0 && pc == 0); pc += KC) {
			int64_t kc = K - pc < KC ? K - pc : KC;
			int flags = (pc == 0 ? F_FIRST : 0) | (pc + kc >= K ? F_LAST | (clamp ? F_CLAMP : 0) : 0);
			const float *bblk = NULL;
			int64_t bstride = 0, ldb = nr;	/* floats between column panels, between B rows */
			if (g->brows) {
				ldb = jc;		/* column offset of the block */
			} else if (g->bp) {
				bblk = g->bp + jc * K + pc * nr;
				bstride = K * nr;
			} else if (jb->direct_b) {
				bblk = g->b + pc * g->b_rs + jc;
				bstride = nr;
				ldb = g->b_rs;
			} else {
				if (kc > 0) {
					if (g->bpack)
						g->bpack(g->bctx, pc, kc, jc, nc, bbuf);
					else
						pack_b_strided(g->b, g->b_rs, g->b_cs, nr, pc, kc, jc, nc, bbuf);
				}
				bblk = bbuf;
				bstride = kc * nr;
			}
			for (int64_t ic = i0; ic < i1; ic += mc) {
				int64_t ie = ic + mc < i1 ? ic + mc : i1;
				for (int64_t jr = 0; jr < nc; jr += nr) {
					const float *bp = bblk ? bblk + (jr / nr) * bstride : NULL;
					int64_t lb = g->brows ? ldb + jr : ldb;
					const float *const *br = g->brows ? g->brows + pc : NULL;
					int ncol = nc - jr < nr ? (int)(nc - jr) : nr;
					const float *bn = g->bias_n ? g->bias_n + jc + jr : NULL;
					for (int64_t ir = ic; ir < ie; ir += mr) {
						int w;
						ukern kern;
						const float *ap = a_panel(jb, ir, pc, &w, &kern);
						int nrow = ie - ir < mr ? (int)(ie - ir) : mr;
						kern(kc, ap, bp, lb, br, g->c + ir * g->ldc + jc + jr, g->ldc, nrow, ncol, flags,
						     g->bias_m ? g->bias_m + ir : NULL, bn, g->lo, g->hi);
					}
				}
			}
			if (K == 0)
				break;
		}
	}
}

int ir_gemm(ir_kctx *k, const ir_gemm_args *g)
{
	if (g->M <= 0 || g->N <= 0)
		return 0;
	const isa_desc *d = isa();
	job jb = {.g = g, .d = d, .ap = g->ap, .k = k};
	/* A row-major B is read in place unless its row stride would map the
	 * rows of a micro-panel onto few cache sets. */
	jb.direct_b = !g->bp && !g->brows && !g->bpack && g->b_cs == 1 && g->b_rs % 256 != 0;
	if (!jb.ap) {
		float *p = ir_kscratch(k, 0, IR_SCRATCH_GEMM_A, ir_gemm_pack_a_size(g->M, g->K) + 64);
		if (!p)
			return KFAIL(k, "out of memory packing a %lldx%lld matrix", (long long)g->M, (long long)g->K);
		if (g->apack) {
			float *dst = p;
			for (int64_t i0 = 0; i0 < g->M; i0 += d->mr) {
				int64_t rows = g->M - i0 < d->mr ? g->M - i0 : d->mr;
				int w = rows == d->mr ? d->mr : d->width[width_index(d, rows)];
				g->apack(g->actx, i0, rows, w, g->K, dst);
				dst += g->K * w;
			}
		} else {
			ir_gemm_pack_a(p, g->a, g->M, g->K, g->a_rs, g->a_cs);
		}
		jb.ap = p;
	}
	int T = g->serial ? 1 : ir_kthreads(k);
	int64_t ntj = (g->N + d->nr - 1) / d->nr, nti = (g->M + d->mr - 1) / d->mr;
	double work = (double)g->M * (double)g->N * (double)(g->K + 1);
	if (T > 1 && work < 65536)
		T = 1;
	/* Columns split first (each task packs only its own B); a few tasks per
	 * thread so that a thread the OS preempts holds back little work. */
	int64_t want = T > 1 ? 4 * (int64_t)T : 1;
	jb.tj = ntj < want ? ntj : want;
	jb.ti = 1;
	if (jb.tj < T) {
		int64_t rows = T / jb.tj;
		jb.ti = nti < rows ? nti : rows;
	}
	jb.jchunk = (ntj + jb.tj - 1) / jb.tj * d->nr;
	jb.ichunk = (nti + jb.ti - 1) / jb.ti * d->mr;
	ir_kparallel(k, (int)(jb.tj * jb.ti), run_task, &jb);
	if (jb.failed)
		return KFAIL(k, "out of memory in GEMM");
	return 0;
}
