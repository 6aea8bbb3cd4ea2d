/* ir_kern.h - the reference interpreter's kernel interface (libir internal).
 *
 * Every op has one kernel, named in the kern column of ir_ops.def:
 * int ir_kern_<kern>(ir_kctx *k). The executor (ir_exec.c) calls it once
 * with k->prepare set when the executor is created
 * (check dtypes, layouts and attributes, fail with a diagnostic for anything
 * unsupported, and optionally leave per-node state such as packed weights in
 * *k->state, which is released with free()), and then once per run.
 *
 * Shapes and dtypes are those of the graph, which the executor verified
 * (ir_graph_verify), so kernels trust them. Input data of absent optional
 * inputs is NULL. Constant inputs point at the graph's data (or, in fp16
 * mode, at a copy rounded to half precision): never at anything a kernel
 * may write. */
#ifndef NPUKIT_IR_KERN_H
#define NPUKIT_IR_KERN_H

#include "ir_internal.h"

typedef struct ir_kctx {
	const ir_graph *g;
	int id;				/* node id */
	const ir_node *n;
	int nin, nout;
	const ir_tensor *const *it;	/* input tensors, NULL when absent */
	const void *const *in;		/* input data, NULL when absent */
	const ir_tensor *const *ot;
	void *const *out;
	bool prepare;
	const struct ir_act *act;	/* activation fused by the executor, or NULL */
	void **state;			/* per-node state (free()d by the executor) */
	ir_exec *e;
	ir_diag *d;
} ir_kctx;

typedef int (*ir_kernel)(ir_kctx *k);

#define IR_OP(id, nm, a, b, c, dd, shape, macs, kern, attrs) int ir_kern_##kern(ir_kctx *k);
#include "ir_ops.def"
#undef IR_OP

#define KFAIL(k, ...) ir_fail((k)->d, (k)->id, -1, __VA_ARGS__)

/* for (int64_t i = 0; i < n; i++) { BODY }, in blocks of 16 so that gcc -O2
 * (whose cost model only vectorizes loops with a known multiple of the
 * vector width) vectorizes it. BODY may read and write the same element
 * (in place) but must carry nothing from one iteration to the next. */
#if defined(__clang__)
#define IR_IVDEP	/* clang's cost model needs no hint (and has no ivdep) */
#else
#define IR_IVDEP _Pragma("GCC ivdep")
#endif
#define FOR_VEC(i, n, ...) do { \
	int64_t i##_b = 0, i##_n = (n); \
	for (; i##_b + 16 <= i##_n; i##_b += 16) { \
		IR_IVDEP for (int i##_j = 0; i##_j < 16; i##_j++) { \
			int64_t i = i##_b + i##_j; __VA_ARGS__ } } \
	for (int64_t i = i##_b; i < i##_n; i++) { __VA_ARGS__ } } while (0)

/* ---- services of the executor (ir_exec.c) */

/* Number of threads kernels may use (>= 1). */
int ir_kthreads(const ir_kctx *k);
/* Run fn(arg, task, thread) for task = 0..ntasks-1 on the executor's
 * threads (thread < ir_kthreads); returns when all are done. */
void ir_kparallel(ir_kctx *k, int ntasks, void (*fn)(void *arg, int task, int thread), void *arg);
/* A grow-only scratch buffer (64-byte aligned) owned by the executor, one per
 * (thread, slot); contents are undefined. NULL if out of memory. */
enum { IR_SCRATCH_GEMM_A, IR_SCRATCH_GEMM_B, IR_SCRATCH_K0, IR_SCRATCH_K1, IR_SCRATCH_K2, IR_SCRATCH_SLOTS };
void *ir_kscratch(ir_kctx *k, int thread, int slot, size_t nbytes);

/* 64-byte aligned allocation (free() releases it); NULL on overflow or OOM. */
void *ir_kalloc(size_t count, size_t size);

/* ---- fused activations (attributes act, act_params) and unary functions */

typedef struct ir_act {
	float lo, hi;		/* clamp first (relu, relu6, clip); +-inf if none */
	int op;			/* then this unary op, or -1 */
	float p[2];		/* its parameters */
} ir_act;

/* Read attributes act and act_params of a node (no act: identity). */
int ir_act_from_node(const ir_graph *g, int node, ir_act *a, ir_diag *d);
/* The activation a kernel applies at run time: the executor's fused one, or
 * the node's own attributes. */
void ir_kern_act(const ir_kctx *k, ir_act *a);
/* The activation equivalent to a unary float node (relu, clip, sigmoid, ...);
 * -1 if the node is not one. */
int ir_act_from_unary_node(const ir_graph *g, int node, ir_act *a);
bool ir_act_is_identity(const ir_act *a);
/* x[0..n) = act(x). */
void ir_act_apply(const ir_act *a, float *x, int64_t n);
/* y = op(x) for a unary op with parameters p (see ir_kernels.c); -1 if op is
 * not a unary float op. */
int ir_unary_f32(int op, const float *p, float *y, const float *x, int64_t n);

/* ---- SGEMM (ir_kern_gemm.c): C[M x N] = A[M x K] . B[K x N] + bias, clamp.
 *
 * A and B are packed into panels (A: MR rows interleaved per k; B: NR
 * columns per k) for a register-blocked micro-kernel chosen at run time for
 * the CPU (AVX-512, AVX2+FMA or portable C). Constant operands are packed
 * once (ir_gemm_pack_a/b at prepare time); others are packed on the fly,
 * either from a strided matrix or by a callback (convolution's implicit
 * im2col). */

/* Bytes needed by a packed A (M x K) or B (K x N). */
size_t ir_gemm_pack_a_size(int64_t M, int64_t K);
size_t ir_gemm_pack_b_size(int64_t K, int64_t N);
/* Element (i, k) of A is a[i * rs + k * cs]; (k, j) of B is b[k * rs + j * cs]. */
void ir_gemm_pack_a(float *dst, const float *a, int64_t M, int64_t K, ptrdiff_t rs, ptrdiff_t cs);
void ir_gemm_pack_b(float *dst, const float *b, int64_t K, int64_t N, ptrdiff_t rs, ptrdiff_t cs);
/* The panel width of packed B (columns a B-packing callback writes per panel). */
int ir_gemm_nr(void);

/* Pack rows k0..k0+kc and columns j0..j0+nc of B into dst as ceil(nc/NR)
 * panels of kc x NR floats (columns beyond nc zero). */
typedef void (*ir_gemm_bpack)(const void *ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float *dst);
/* Pack rows i0..i0+rows (rows <= w) of A over all K into dst as one panel of
 * K x w floats (rows beyond `rows` zero). */
typedef void (*ir_gemm_apack)(const void *ctx, int64_t i0, int64_t rows, int w, int64_t K, float *dst);

typedef struct {
	int64_t M, N, K;
	const float *ap;		/* packed A, or NULL: apack, or a (strided) */
	ir_gemm_apack apack;
	const void *actx;
	const float *a;
	ptrdiff_t a_rs, a_cs;
	const float *bp;		/* packed B, or NULL: brows, bpack, or b (strided) */
	const float *const *brows;	/* B row k is brows[k][0..N) (read in place) */
	ir_gemm_bpack bpack;
	const void *bctx;
	const float *b;
	ptrdiff_t b_rs, b_cs;
	float *c;
	ptrdiff_t ldc;
	const float *bias_m;		/* added to row i, or NULL */
	const float *bias_n;		/* added to column j, or NULL */
	float lo, hi;			/* clamp of the result (use -inf, inf for none) */
	bool serial;			/* do not split across threads */
} ir_gemm_args;

/* Run one GEMM (threads from k unless serial); -1 with k->d set if out of memory. */
int ir_gemm(ir_kctx *k, const ir_gemm_args *a);
/* Which micro-kernel runs ("avx512", "avx2", "generic"). */
const char *ir_gemm_isa(void);

/* ---- row primitives of sliding-window kernels (ir_kern_simd.c)
 * They compute `rows` rows of n outputs (row r at y + r * ys); taps[t]
 * points at the input of output 0 of row 0 for kernel position t, and
 * output x of row r reads taps[t][r * ts + x]. */

/* y = clamp(bias + sum_t w[t] * tap_t, lo, hi) */
void ir_rows_fma_taps(float *y, ptrdiff_t ys, int rows, int64_t n, const float *const *taps, ptrdiff_t ts,
		      const float *w, int nt, float bias, float lo, float hi);
/* The same reading the unpadded input with column stride sw (1 or 2): tap
 * t of column x reads taps[t][r * ts + sw * x], valid when
 * 0 <= sw * x + dx[t] < W and zero otherwise. -1 (nothing done) where no
 * SIMD version exists; the caller then pads a copy. */
int ir_rows_fma_taps_dx(int sw, float *y, ptrdiff_t ys, int rows, int64_t n, const float *const *taps, ptrdiff_t ts,
			const float *w, int nt, float bias, float lo, float hi, const int64_t *dx, int64_t W);
/* Stride-1 depthwise over a flattened plane (output rows as long as input
 * rows): y[i] = clamp(bias + sum_t w[t] * x[i + off[t]], lo, hi) where bit
 * i % 16 of bits[t * nwords + i / 16] is set (zero otherwise); nwords =
 * ceil(P / 16). -1 (nothing done) where no SIMD version exists. */
int ir_dw_flat(float *y, int64_t P, const float *x, const int64_t *off, const uint16_t *bits, int64_t nwords,
	       const float *w, int nt, float bias, float lo, float hi);
/* y = max_t tap_t (-inf if nt == 0) */
void ir_rows_max_taps(float *y, ptrdiff_t ys, int rows, int64_t n, const float *const *taps, ptrdiff_t ts, int nt);
/* y = sum_t tap_t */
void ir_rows_sum_taps(float *y, ptrdiff_t ys, int rows, int64_t n, const float *const *taps, ptrdiff_t ts, int nt);
/* d[t] = src[off + t * sw] where 0 <= off + t * sw < W, else fill, for t < n */
void ir_pad_row(float *d, int64_t n, const float *src, int64_t off, int64_t W, int64_t sw, float fill);
/* ir_pad_row with sw = 2 for both phases: d0 from off, d1 from off + 1 */
void ir_pad_row2(float *d0, float *d1, int64_t n, const float *src, int64_t off, int64_t W, float fill);

/* Implicit im2col for the GEMM's B operand (channel-first convolution,
 * spatial dims normalised to three): B[k][j] =
 * x[c][od*sd - pd + kz*dd][oh*sh - ph + ky*dh][ow*sw - pw + kx*dw] (0 outside)
 * with k = ((c*kd + kz)*kh + ky)*kw + kx and j = (od*OH + oh)*OW + ow. */
typedef struct {
	const float *x;			/* first input channel (of the group) */
	int64_t in[3], out[3], ks[3], st[3], pb[3], dil[3];
	int64_t KK, I;			/* kernel volume, input plane volume */
} ir_im2col;
/* An ir_gemm_bpack callback; ctx is an ir_im2col. */
void ir_im2col_pack(const void *ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float *dst);
/* An ir_gemm_apack callback for the transposed product (rows of A are
 * output positions); ctx is an ir_im2col. */
void ir_im2col_pack_a(const void *ctx, int64_t i0, int64_t rows, int w, int64_t K, float *dst);

/* ---- Winograd F(2x2, 3x3) for 3x3 stride-1 convolutions (ir_kern_wino.c) */

/* Floats of the 16 transformed, packed weight matrices for O x C filters. */
size_t ir_wino_packed_floats(int64_t O, int64_t C);
/* Transform and pack O x C x 3 x 3 weights w into dst; -1 if out of memory. */
int ir_wino_pack(float *dst, const float *w, int64_t O, int64_t C);
/* y (N x O x OH x OW) = clamp(conv(x) + bias, lo, hi) for x N x C x H x W,
 * top and left padding pt, pl (zeros beyond the input everywhere). */
int ir_conv_winograd(ir_kctx *k, const float *packed, int64_t N, int64_t C, int64_t O, int64_t H, int64_t W,
		     int64_t OH, int64_t OW, int64_t pt, int64_t pl, const float *x, const float *bias, float *y,
		     float lo, float hi);

/* ---- helpers shared by kernels */

/* Channel-last layout of input 0 (nhwc or nlc). */
bool ir_kern_channel_last(const ir_kctx *k);

/* ---- resize: the source taps of one output index along one axis, shared
 * by the interpreter and the runtime's lowering (ir_lower.c) */
enum { IR_CT_HALF_PIXEL, IR_CT_ASYMMETRIC, IR_CT_ALIGN_CORNERS, IR_CT_PYTORCH_HALF_PIXEL, IR_CT_TF_HALF_PIXEL_FOR_NN };
typedef struct {
	int mode;		/* 0 nearest, 1 linear, 2 cubic */
	int ct, nm;		/* coordinate transformation, nearest mode */
	double a;		/* cubic_coeff_a */
	bool exclude;		/* exclude_outside */
} ir_resize_spec;
/* The node's spec; -1 (with a message) for an unknown mode. */
int ir_resize_spec_of(const ir_graph *g, int node, ir_resize_spec *rs, ir_diag *d);
/* Output index i of an axis of n inputs resized with scale s: up to 4
 * source indices (in [0, n)) and their weights; returns their number. */
int ir_resize_taps(const ir_resize_spec *rs, int64_t n, double s, int64_t i, int64_t *idx, double *w);

#endif
