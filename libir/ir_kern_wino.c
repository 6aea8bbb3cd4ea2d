/* ir_kern_wino.c - 3x3 stride-1 convolution by Winograd's minimal filtering
 * F(2x2, 3x3) (Lavin & Gray, "Fast Algorithms for Convolutional Neural
 * Networks", 2016).
 *
 * Each 2x2 output tile is A^T [ (G g G^T) . (B^T d B) ] A for its 4x4 input
 * patch d and the 3x3 filter g, with
 *
 *   B^T = | 1  0 -1  0 |   G = | 1    0    0   |   A^T = | 1  1  1  0 |
 *         | 0  1  1  0 |       | 1/2  1/2  1/2 |         | 0  1 -1 -1 |
 *         | 0 -1  1  0 |       | 1/2 -1/2  1/2 |
 *         | 0  1  0 -1 |       | 0    0    1   |
 *
 * so the products become 16 GEMMs (one per position xi of the 4x4
 * transformed tile): M[xi] (O x T) = U[xi] (O x C) . V[xi] (C x T) over the
 * T tiles, 2.25 times fewer multiply-adds than the direct convolution. The
 * transforms only add and subtract (and halve, for the weights, once at
 * prepare time), so the result differs from the direct one by a few
 * roundings. The input is read as even and odd columns so that every loop
 * runs over consecutive tiles, which the compiler vectorizes. */
#include "ir_kern.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tiles per block (rounded up to whole tile rows): V and M of a block of a
 * 64-channel layer take 16 * 64 * 128 * 4 bytes = 512 KiB each. */
#define WINO_BLOCK_TILES 128

size_t ir_wino_packed_floats(int64_t O, int64_t C)
{
	size_t one = ir_gemm_pack_a_size(O, C) / sizeof(float);
	return 16 * ((one + 15) & ~(size_t)15);
}

int ir_wino_pack(float *dst, const float *w, int64_t O, int64_t C)
{
	size_t one = ir_wino_packed_floats(O, C) / 16;
	float *u = malloc(sizeof(float) * (size_t)(16 * O * C + 1));
	if (!u)
		return -1;
	for (int64_t o = 0; o < O; o++)
		for (int64_t c = 0; c < C; c++) {
			const float *g = w + (o * C + c) * 9;
			float t[4][3], r[4][4];
			for (int j = 0; j < 3; j++) {	/* G g: rows */
				t[0][j] = g[j];
				t[1][j] = 0.5f * (g[j] + g[3 + j] + g[6 + j]);
				t[2][j] = 0.5f * (g[j] - g[3 + j] + g[6 + j]);
				t[3][j] = g[6 + j];
			}
			for (int i = 0; i < 4; i++) {	/* (G g) G^T: columns */
				r[i][0] = t[i][0];
				r[i][1] = 0.5f * (t[i][0] + t[i][1] + t[i][2]);
				r[i][2] = 0.5f * (t[i][0] - t[i][1] + t[i][2]);
				r[i][3] = t[i][2];
			}
			for (int xi = 0; xi < 16; xi++)
				u[((size_t)xi * O + o) * C + c] = r[xi / 4][xi % 4];
		}
	for (int xi = 0; xi < 16; xi++)
		ir_gemm_pack_a(dst + xi * one, u + (size_t)xi * O * C, O, C, C, 1);
	free(u);
	return 0;
}

/* One block of tile rows [ty0, ty1) of one image: V and M hold only its
 * T = (ty1 - ty0) * tw tiles, so that they stay in cache between the
 * transforms and the GEMMs. */
typedef struct {
	ir_kctx *k;
	const float *x;		/* one image: C x H x W */
	float *v, *m;		/* 16 x C x T, 16 x O x T */
	float *y;		/* O x OH x OW */
	const float *bias;
	float lo, hi;
	int64_t C, O, H, W, OH, OW, pt, pl, tw, ty0, ty1, T;
} wino_job;

/* V[xi][c][ty][.] for one channel: B^T d B of every tile. */
static void input_task(void *arg, int c, int thread)
{
	const wino_job *j = arg;
	int64_t tw = j->tw, n = tw + 1;
	float *rows = ir_kscratch(j->k, thread, IR_SCRATCH_K2, sizeof(float) * (size_t)(8 * n + 16 * tw));
	if (!rows)
		return;	/* checked by the caller before the parallel run */
	float *h = rows + 8 * n;	/* 16 rows of tw: d B of the 4 patch rows */
	const float *xc = j->x + (int64_t)c * j->H * j->W;
	for (int64_t ty = j->ty0; ty < j->ty1; ty++) {
		int64_t tb = (ty - j->ty0) * tw;	/* first tile of the row in the block */
		for (int i = 0; i < 4; i++) {
			int64_t iy = 2 * ty - j->pt + i;
			bool in = iy >= 0 && iy < j->H;
			/* even and odd columns of the padded row, from column -pl */
			ir_pad_row2(rows + 2 * i * n, rows + (2 * i + 1) * n, n, in ? xc + iy * j->W : xc, -j->pl,
				    in ? j->W : 0, 0);
		}
		for (int i = 0; i < 4; i++) {
			const float *e = rows + 2 * i * n, *o = rows + (2 * i + 1) * n;
			float *h0 = h + (4 * i) * tw, *h1 = h0 + tw, *h2 = h1 + tw, *h3 = h2 + tw;
			/* patch columns 0..3 of tile tx: e[tx], o[tx], e[tx+1], o[tx+1] */
			FOR_VEC(t, tw, h0[t] = e[t] - e[t + 1]; h1[t] = o[t] + e[t + 1]; h2[t] = e[t + 1] - o[t];
				h3[t] = o[t] - o[t + 1];);
		}
		for (int col = 0; col < 4; col++) {
			const float *r0 = h + col * tw, *r1 = r0 + 4 * tw, *r2 = r1 + 4 * tw, *r3 = r2 + 4 * tw;
			float *v0 = j->v + ((int64_t)(0 + col) * j->C + c) * j->T + tb;
			float *v1 = j->v + ((int64_t)(4 + col) * j->C + c) * j->T + tb;
			float *v2 = j->v + ((int64_t)(8 + col) * j->C + c) * j->T + tb;
			float *v3 = j->v + ((int64_t)(12 + col) * j->C + c) * j->T + tb;
			FOR_VEC(t, tw, v0[t] = r0[t] - r2[t]; v1[t] = r1[t] + r2[t]; v2[t] = r2[t] - r1[t];
				v3[t] = r1[t] - r3[t];);
		}
	}
}

/* y[o] from M[xi][o]: A^T m A of every tile, bias, clamp. */
static void output_task(void *arg, int o, int thread)
{
	const wino_job *j = arg;
	int64_t tw = j->tw, T = j->T;
	float *q = ir_kscratch(j->k, thread, IR_SCRATCH_K2, sizeof(float) * (size_t)(12 * tw + 8 * tw + 1));
	if (!q)
		return;
	float *out = q + 8 * tw;	/* 4 rows: tile outputs (0,0) (0,1) (1,0) (1,1) */
	float b = j->bias ? j->bias[o] : 0.0f, lo = j->lo, hi = j->hi;
	float *yo = j->y + (int64_t)o * j->OH * j->OW;
	for (int64_t ty = j->ty0; ty < j->ty1; ty++) {
		int64_t tb = (ty - j->ty0) * tw;
		for (int i = 0; i < 4; i++) {	/* m A: two columns per row i */
			const float *m0 = j->m + ((int64_t)(4 * i + 0) * j->O + o) * T + tb;
			const float *m1 = j->m + ((int64_t)(4 * i + 1) * j->O + o) * T + tb;
			const float *m2 = j->m + ((int64_t)(4 * i + 2) * j->O + o) * T + tb;
			const float *m3 = j->m + ((int64_t)(4 * i + 3) * j->O + o) * T + tb;
			float *q0 = q + 2 * i * tw, *q1 = q0 + tw;
			FOR_VEC(t, tw, q0[t] = m0[t] + m1[t] + m2[t]; q1[t] = m1[t] - m2[t] - m3[t];);
		}
		for (int col = 0; col < 2; col++) {	/* A^T (m A) */
			const float *a0 = q + col * tw, *a1 = a0 + 2 * tw, *a2 = a1 + 2 * tw, *a3 = a2 + 2 * tw;
			float *top = out + col * tw, *bot = out + (2 + col) * tw;
			FOR_VEC(t, tw, float u = a0[t] + a1[t] + a2[t] + b; float l = a1[t] - a2[t] - a3[t] + b;
				u = u < lo ? lo : u; l = l < lo ? lo : l; top[t] = u > hi ? hi : u;
				bot[t] = l > hi ? hi : l;);
		}
		for (int r = 0; r < 2 && 2 * ty + r < j->OH; r++) {
			float *yr = yo + (2 * ty + r) * j->OW;
			const float *c0 = out + 2 * r * tw, *c1 = c0 + tw;
			int64_t full = j->OW / 2;
			for (int64_t t = 0; t < full; t++) {
				yr[2 * t] = c0[t];
				yr[2 * t + 1] = c1[t];
			}
			if (j->OW % 2)
				yr[2 * full] = c0[full];
		}
	}
}

int ir_conv_winograd(ir_kctx *k, const float *packed, int64_t N, int64_t C, int64_t O, int64_t H, int64_t W,
		     int64_t OH, int64_t OW, int64_t pt, int64_t pl, const float *x, const float *bias, float *y,
		     float lo, float hi)
{
	int64_t th = (OH + 1) / 2, tw = (OW + 1) / 2, rows = (WINO_BLOCK_TILES + tw - 1) / tw, T = rows * tw;
	size_t one = ir_wino_packed_floats(O, C) / 16;
	float *v = ir_kscratch(k, 0, IR_SCRATCH_K0, sizeof(float) * (size_t)(16 * C * T));
	float *m = ir_kscratch(k, 0, IR_SCRATCH_K1, sizeof(float) * (size_t)(16 * O * T));
	if (!v || !m)
		return KFAIL(k, "out of memory");
	for (int t = 0; t < ir_kthreads(k); t++)
		if (!ir_kscratch(k, t, IR_SCRATCH_K2, sizeof(float) * (size_t)(8 * (tw + 1) + 20 * tw + 1)))
			return KFAIL(k, "out of memory");
	for (int64_t n = 0; n < N; n++)
		for (int64_t ty0 = 0; ty0 < th; ty0 += rows) {
			int64_t ty1 = ty0 + rows < th ? ty0 + rows : th, nt = (ty1 - ty0) * tw;
			wino_job j = {k, x + n * C * H * W, v, m, y + n * O * OH * OW, bias, lo, hi,
				      C, O, H, W, OH, OW, pt, pl, tw, ty0, ty1, T};
			ir_kparallel(k, (int)C, input_task, &j);
			for (int xi = 0; xi < 16; xi++) {
				ir_gemm_args a = {
					.M = O, .N = nt, .K = C, .ap = packed + xi * one,
					.b = v + (int64_t)xi * C * T, .b_rs = T, .b_cs = 1,
					.c = m + (int64_t)xi * O * T, .ldc = T, .lo = -INFINITY, .hi = INFINITY,
				};
				if (ir_gemm(k, &a))
					return -1;
			}
			ir_kparallel(k, (int)O, output_task, &j);
		}
	return 0;
}
