/* npu_rt.h - the npukit runtime: the kernels and the op-program executor
 * shared by the emitted code (npu-emit) and by libir's interpreter for
 * quantized and fp16 graphs (npu-run), so both compute bit-identical results.
 *
 * Portable C99: no malloc, no stdio; libm only for the float unary kernels
 * (sigmoid, tanh, exp, ...), which integer models never need (npu-quant
 * replaces them by lookup tables). Float kernels accumulate in float32 in a
 * fixed order; build them without FMA contraction (-ffp-contract=off, the
 * default of -std=c99) and with SSE arithmetic on 32-bit x86
 * (-msse2 -mfpmath=sse), or results differ from npu-run's in the last bit.
 * NPU_F32_FMA (opt-in, defined before the implementation is compiled):
 * CONV_F and CONV_NHWC_F sum in the same order but fuse each multiply-add
 * (fmaf, one rounding; the SIMD paths with FMA instructions: AVX2 with
 * FMA, AVX-512, aarch64 NEON; x86 without FMA takes the portable C), so
 * every ISA still computes the same bits, which are no longer npu-run's.
 *
 * A model is a set of tables, all made of 32-bit words so that the binary
 * form (npu-emit --format bin) can be used in place:
 *   tensors  where each buffer lives: arena, weights, or graph input/output
 *   ops      one per kernel call: kernel id, its arguments (tensor indices,
 *            -1 for an absent optional one) and its parameters (int32
 *            words at params[op.params], layout given by the NPU_P_* enums
 *            below; floats are stored as their IEEE bit patterns)
 *   weights  the constant bytes (weights, biases, multipliers, tables)
 *
 * Integer arithmetic (see npu-ir(5) and npu-quant(1)): a quantized value q
 * means scale * (q - zero_point). Requantization multiplies an int32 (or
 * int64) accumulator by a 31-bit multiplier and divides by 2^shift with
 * rounding half up: npu_rshift_round(v * mult, shift), exactly for any
 * int64 accumulator (a 128-bit product where needed).
 *
 * Accumulator widths (integer operands are int8, uint8 or int16; so
 * |x - zx|, |w - zw| <= 2^16 - 1 and every product is below 2^32):
 *   CONV_Q, CONV_T_Q  int64 acc = bias + sum (x - ZX)(w - wzp) over
 *       K = C/G KH KW terms. The weights of one output channel fit the 2 GiB
 *       weight area, so K <= 2^30 for int16 weights (|sum| < 2^62) and
 *       K <= 2^31 for int8 ones (products < 2^24, |sum| < 2^55); the bias,
 *       int32, or int64 with |bias| <= 2^62 (16-bit activations and weights:
 *       see NPU_CV_ACT), leaves |acc| < 2^63. The int8 x int8 fast paths
 *       (int32 bias only) sum at most CQ_MAX_K = 2^14 products of
 *       |x - ZX| <= 255 and |w| <= 128 in int32 (< 2^29) and add bias and
 *       zero-point terms in int64.
 *   MATMUL_Q  int64 sum of K < 2^31 products below 2^32: < 2^63.
 *   ELTWISE_Q, REQUANT, PRELU_Q  one int64 product or sum of two per
 *       element ((a - ZA) MA: |a - ZA| <= 2^32, |MA| < 2^31).
 *   POOL_Q, REDUCE_Q  int64 sums of at most 2^31 terms below 2^17 (the
 *       int8 average path: int32 sums of fewer than 2^23 terms of |x| <= 128).
 *   GRU_Q, LSTM_Q  int32 sums whose bound the lowering proves per
 *       gate row (|bias| + max|x| sum|w| < 2^31; npu-quant refuses others).
 * No combination of bit widths can overflow these. */
#ifndef NPU_RT_H
#define NPU_RT_H

#include <stddef.h>
#include <stdint.h>

/* element types (numbering is part of the binary format) */
enum { NPU_T_F32, NPU_T_F16, NPU_T_I8, NPU_T_I16, NPU_T_I32, NPU_T_U8,
       NPU_T_I64,	/* indices (ARGMAX's output, GATHER's moves, COPY) and
			 * CONV_Q / CONV_T_Q biases */
       NPU_T_COUNT };

/* where a tensor lives */
enum { NPU_MEM_ARENA, NPU_MEM_WEIGHT, NPU_MEM_INPUT, NPU_MEM_OUTPUT };

/* kernels (numbering is part of the binary format) */
enum {
	NPU_K_CONV_Q,		/* int conv / depthwise / grouped / fully connected */
	NPU_K_CONV_F,		/* the same in float (f32 or f16 storage) */
	NPU_K_ELTWISE_Q,	/* int add, sub, mul with broadcasting */
	NPU_K_ELTWISE_F,	/* float add, sub, mul, div, max, min with broadcasting */
	NPU_K_UNARY_F,		/* float unary function */
	NPU_K_REQUANT,		/* int -> int rescale + clamp, strided (concat, relu, copy) */
	NPU_K_QUANTIZE,		/* float -> int */
	NPU_K_DEQUANTIZE,	/* int -> float */
	NPU_K_LUT,		/* int -> int through a table (sigmoid, tanh, exp, ...) */
	NPU_K_POOL_Q,		/* int max / average pooling */
	NPU_K_POOL_F,		/* float max / average pooling */
	NPU_K_SOFTMAX_F,	/* float softmax / log_softmax over one axis */
	NPU_K_GRU_F,		/* float GRU over a sequence (one direction) */
	NPU_K_LSTM_F,		/* float LSTM over a sequence (one direction) */
	NPU_K_CAST_F,		/* f32 <-> f16 */
	NPU_K_COPY,		/* strided copy of elements of any size (slice, concat, transpose) */
	NPU_K_FILL,		/* fill with one element value (padding) */
	NPU_K_REDUCE_F,		/* float sum / mean / max / min over one axis */
	NPU_K_REDUCE_Q,		/* the same on integers, requantized */
	NPU_K_GRU_Q,		/* integer GRU: int8 weights, int16 gates and state */
	NPU_K_LSTM_Q,		/* integer LSTM: int8 weights, int16 gates and state */
	NPU_K_MATMUL_F,		/* float batched matmul / gemm of two activations */
	NPU_K_MATMUL_Q,		/* int8/int16 batched matmul, requantized */
	NPU_K_GATHER,		/* pick slices along one axis by index (any element size) */
	NPU_K_ARGMAX,		/* index of the max / min along one axis (float or int) */
	NPU_K_RNN_F,		/* float vanilla RNN (tanh) over a sequence (one direction) */
	NPU_K_LRN_F,		/* float local response normalisation across channels */
	NPU_K_CONV_T_Q,		/* int transposed convolution (conv_transpose) */
	NPU_K_CONV_T_F,		/* the same in float (f32 or f16 storage) */
	NPU_K_RESIZE,		/* nearest / linear / cubic resize of the last two axes */
	NPU_K_PRELU_Q,		/* int prelu with broadcasting */
	NPU_K_NORM_F,		/* float instance / layer normalisation */
	NPU_K_POOL3_F,		/* float pooling of 3 spatial axes, with dilations */
	NPU_K_CONV3_F,		/* float (transposed) convolution of 3 spatial axes */
	NPU_K_CONV_NHWC_Q,	/* CONV_Q on channel-last data (x NHWC, w OHWI, y NHWC) */
	NPU_K_CONV_NHWC_F,	/* CONV_F on channel-last data */
	NPU_K_POOL_NHWC_Q,	/* POOL_Q on channel-last data */
	NPU_K_POOL_NHWC_F,	/* POOL_F on channel-last data */
	NPU_K_RESIZE_NHWC,	/* RESIZE of the two axes before the last (channel-last data) */
	NPU_K_CONV_T_NHWC_Q,	/* CONV_T_Q on channel-last data (weights as CONV_T_Q's) */
	NPU_K_CONV_T_NHWC_F,	/* CONV_T_F on channel-last data */
	NPU_K_CUSTOM,		/* an op plugin's kernel, called through npu_model.custom */
	NPU_K_COUNT
};

/* ---- parameter layouts (index into the op's parameter words) */

#define NPU_WALK_DIMS 6
/* A strided walk over up to 6 dimensions (innermost last), shared by COPY,
 * REQUANT and the broadcasting ELTWISE kernels: counts, then source strides
 * and destination strides in elements. Unused leading dims have count 1. */

/* CONV_Q / CONV_F. Input x [N, C, H, W], weights [OC, C/G, KH, KW],
 * output y [N, OC, OH, OW] (fully connected: H = W = KH = KW = 1).
 * Args Q: x, w, bias (i32 [OC], i64 [OC] when NPU_CV_ACT is NPU_T_I64, or
 *         -1), mult (i32 [OC]), shift (i32 [OC]), wzp (i32 [OC] weight zero
 *         points, or -1 for symmetric), y.
 * Args F: x, w, bias (f32/f16 [OC] in the activation type, or -1),
 *         wscale (f32 [OC] when w is i8-compressed, else -1), y.
 * Q with int8 x and w, K = C/G KH KW <= 16384, except the depthwise
 * convolutions CONV_Q computes per channel (C/G == OC/G == 1, KH KW <= 64,
 * strides <= 4): w is packed (npu_conv_q_pack) for the GEMM micro-kernel.
 * Per group, blocks of 8 output channels (the last one zero-filled), each
 * Kq = ceil(K / 4) quads of 8 channels x 4 consecutive k (zero past K):
 * w[oc][k] with oc = g OC/G + 8 b + j is at byte
 * ((g nb + b) Kq + k / 4) 32 + 4 j + k % 4, nb = ceil(OC/G / 8); the
 * packed size is G nb Kq 32 bytes.
 * F with f32 x, w and y, except depthwise convolutions (C/G == 1,
 * OC == G): w may be packed (npu_conv_f_pack; NPU_CV_WPACK = 1 says so) in
 * the layout the fast paths stream: per group, blocks of 16 output
 * channels (the last one zero-filled), K = C/G KH KW rows of 16:
 * w[oc][k] with oc = g OC/G + 16 b + j is at float ((g nb + b) K + k) 16 + j,
 * nb = ceil(OC/G / 16); G nb K 16 floats. */
enum {
	NPU_CV_N, NPU_CV_C, NPU_CV_H, NPU_CV_W, NPU_CV_OC, NPU_CV_OH, NPU_CV_OW,
	NPU_CV_KH, NPU_CV_KW, NPU_CV_SH, NPU_CV_SW, NPU_CV_PT, NPU_CV_PL,
	NPU_CV_DH, NPU_CV_DW, NPU_CV_G,
	NPU_CV_XT, NPU_CV_WT, NPU_CV_YT,	/* element types */
	NPU_CV_ZX, NPU_CV_ZY,			/* Q: input / output zero points; F: ZX is
						 * NPU_CV_WPACK, 1 when w is packed */
	NPU_CV_LO, NPU_CV_HI,			/* clamp of y: Q int, F float bits */
	NPU_CV_ACT,				/* F: NPU_U_* applied after the clamp, or -1;
						 * Q: NPU_T_I64 for an int64 bias (|bias| <=
						 * 2^62), else (-1) an int32 one */
	NPU_CV_P0, NPU_CV_P1,			/* F: its parameters (float bits) */
	NPU_CV_SMAX,				/* Q: the most scratch bytes the call may
						 * use (0: no bound); beyond its fast
						 * paths' need it takes smaller tiles,
						 * then windows gathered from x, at last
						 * the generic path (no scratch) */
	NPU_CV_COUNT
};
#define NPU_CV_WPACK NPU_CV_ZX

/* CONV_NHWC_Q / CONV_NHWC_F: the parameters and arguments of CONV_Q /
 * CONV_F on channel-last tensors: x [N, H, W, C], weights [OC, KH, KW, C/G]
 * (OHWI), y [N, OH, OW, OC]. The float kernel sums in CONV_F's order (bias,
 * then input channel, kernel row, kernel column), so the results equal
 * CONV_F's on the same values bit for bit; the integer one sums each
 * kernel tap over contiguous channels (exact, like every integer path).
 * POOL_NHWC_Q / POOL_NHWC_F: POOL_Q / POOL_F on x [N, H, W, C] ->
 * y [N, OH, OW, C], same windows, same arithmetic. */

/* ELTWISE_Q / ELTWISE_F: y = a OP b over a walk of the output shape
 * (counts), with a's and b's strides (0 along broadcast dims); y is dense.
 * Args: a, b, y. */
enum { NPU_BIN_ADD, NPU_BIN_SUB, NPU_BIN_MUL, NPU_BIN_DIV, NPU_BIN_MAX, NPU_BIN_MIN,
       NPU_BIN_POW, NPU_BIN_PRELU };	/* F only: a^b (npu_powf), a < 0 ? a * b : a */
enum {
	NPU_EW_OP,
	NPU_EW_COUNTS,				/* 6 counts */
	NPU_EW_SA = NPU_EW_COUNTS + NPU_WALK_DIMS,	/* 6 strides of a */
	NPU_EW_SB = NPU_EW_SA + NPU_WALK_DIMS,		/* 6 strides of b */
	NPU_EW_AT = NPU_EW_SB + NPU_WALK_DIMS, NPU_EW_BT, NPU_EW_YT,
	/* Q: add/sub: acc = (a - ZA) * MA +- (b - ZB) * MB (int64),
	 *    mul:     acc = (a - ZA) * (b - ZB) * MA (int64, MB unused);
	 *    y = clamp(ZY + rshift_round(acc, SHIFT), LO, HI).
	 * F: y = ACT(clamp(a OP b, LO, HI)) (float bits). */
	NPU_EW_ZA, NPU_EW_ZB, NPU_EW_ZY, NPU_EW_MA, NPU_EW_MB, NPU_EW_SHIFT,
	NPU_EW_LO, NPU_EW_HI,
	NPU_EW_ACT,				/* F: NPU_U_* applied after the clamp, or -1 (Q: -1) */
	NPU_EW_P0, NPU_EW_P1,			/* F: its parameters (float bits) */
	NPU_EW_COUNT
};

/* UNARY_F: y = f(x) elementwise. Args: x, y. */
enum {
	NPU_U_RELU, NPU_U_CLIP, NPU_U_LEAKY_RELU, NPU_U_ELU, NPU_U_SIGMOID,
	NPU_U_TANH, NPU_U_HARD_SIGMOID, NPU_U_HARD_SWISH, NPU_U_SOFTPLUS,
	NPU_U_SILU, NPU_U_EXP, NPU_U_LOG, NPU_U_SQRT, NPU_U_RSQRT,
	NPU_U_RECIPROCAL, NPU_U_NEG, NPU_U_ABS, NPU_U_GELU,
	NPU_U_FLOOR, NPU_U_CEIL, NPU_U_ERF, NPU_U_COUNT
};
/* CLIP: P0 = min, P1 = max; LEAKY_RELU, ELU: P0 = alpha;
 * HARD_SIGMOID: P0 = alpha, P1 = beta; GELU: P0 = 1 for the tanh form. */
enum { NPU_UN_N, NPU_UN_FN, NPU_UN_P0, NPU_UN_P1, NPU_UN_XT, NPU_UN_YT, NPU_UN_COUNT };

/* REQUANT: y[walk] = clamp(ZY + rshift_round((x[walk] - ZX) * MULT, SHIFT), LO, HI)
 * over a walk with source and destination strides, starting at element
 * offsets SOFF and DOFF. MULT = 1, SHIFT = 0 copies (with clamping).
 * Args: x, y. */
enum {
	NPU_RQ_COUNTS,
	NPU_RQ_SS = NPU_RQ_COUNTS + NPU_WALK_DIMS,
	NPU_RQ_DS = NPU_RQ_SS + NPU_WALK_DIMS,
	NPU_RQ_SOFF = NPU_RQ_DS + NPU_WALK_DIMS, NPU_RQ_DOFF,
	NPU_RQ_XT, NPU_RQ_YT, NPU_RQ_ZX, NPU_RQ_ZY, NPU_RQ_MULT, NPU_RQ_SHIFT,
	NPU_RQ_LO, NPU_RQ_HI,
	NPU_RQ_COUNT
};

/* QUANTIZE: y = clamp(round_half_even(x / SCALE) + ZP, LO, HI), x float
 * (division in float32). DEQUANTIZE: y = (float)(x - ZP) * SCALE (float32
 * product, then rounded to the output type). Args: x, y. */
enum { NPU_QZ_N, NPU_QZ_XT, NPU_QZ_YT, NPU_QZ_SCALE, NPU_QZ_ZP, NPU_QZ_LO, NPU_QZ_HI, NPU_QZ_COUNT };

/* LUT: x int8 -> y = table[x + 128] (256 entries); x int16 -> with
 * BITS < 16: i = (x + 32768) >> (16 - BITS), f = the bits shifted out,
 * y = t[i] + rshift_round((t[i+1] - t[i]) * f, 16 - BITS) (2^BITS + 1
 * entries). Table entries have the output type. Args: x, table, y. */
enum { NPU_LT_N, NPU_LT_XT, NPU_LT_YT, NPU_LT_BITS, NPU_LT_COUNT };

/* POOL_Q / POOL_F over x [N, C, H, W] -> y [N, C, OH, OW]; global pooling
 * is a window of H x W. Max ignores padding; average divides by the
 * window's cells inside the input (plus padding cells when
 * COUNT_PAD; never cells beyond the padding (ceil_mode overhang)).
 * Q: input and output share the scale; average is
 *    ZY + round_div(sum(x - ZX), count) with rounding half away from zero,
 *    max is the maximum (ZX == ZY), both clamped to [LO, HI].
 * Args: x, y. */
enum { NPU_POOL_MAX, NPU_POOL_AVG };
enum {
	NPU_PL_N, NPU_PL_C, NPU_PL_H, NPU_PL_W, NPU_PL_OH, NPU_PL_OW,
	NPU_PL_KH, NPU_PL_KW, NPU_PL_SH, NPU_PL_SW, NPU_PL_PT, NPU_PL_PL,
	NPU_PL_PB, NPU_PL_PR, NPU_PL_MODE, NPU_PL_COUNT_PAD,
	NPU_PL_XT, NPU_PL_YT, NPU_PL_ZX, NPU_PL_ZY, NPU_PL_LO, NPU_PL_HI,
	NPU_PL_COUNT
};

/* SOFTMAX_F over the middle axis of [OUTER, N, INNER]. Args: x, y. */
enum { NPU_SM_OUTER, NPU_SM_N, NPU_SM_INNER, NPU_SM_LOG, NPU_SM_XT, NPU_SM_YT, NPU_SM_COUNT };

/* GRU_F / LSTM_F / RNN_F: ONNX semantics (gate order zrh for GRU, iofc
 * for LSTM, tanh for RNN); one call computes direction DIR of DIRS (a
 * bidirectional node is two calls on the same tensors), running backwards
 * when REVERSE. x [T, B, I] -> Y [T, DIRS, B, H], states [DIRS, B, H]; with
 * BF (batch first, ONNX layout 1) x [B, T, I], Y [B, T, DIRS, H], states
 * [B, DIRS, H]. Weights W [DIRS, G*H, I], R [DIRS, G*H, H], bias
 * [DIRS, 2*G*H] in WT. CLIP (float bits, 0: none) clamps every
 * pre-activation to [-CLIP, CLIP]; IFG (LSTM input_forget): f = 1 - i.
 * Optional sequence lengths SL [B] (int32 or int64: SLT): batch b runs
 * min(SL[b], T) steps (backwards from its last one when REVERSE), Y is
 * zero beyond them and the final states are those of its last step.
 * Args GRU, RNN: x, W, R, bias|-1, h0|-1, Y|-1, Yh|-1 [, SL|-1].
 * Args LSTM: x, W, R, bias|-1, h0|-1, c0|-1, Y|-1, Yh|-1, Yc|-1
 * [, P|-1 [, SL|-1]] with peepholes P ([DIRS, 3*H] in WT, order i o f: i
 * and f see the previous c, o the new one; CLIP applies after them). */
enum { NPU_RN_T, NPU_RN_B, NPU_RN_I, NPU_RN_H, NPU_RN_LBR, NPU_RN_REVERSE,
       NPU_RN_XT, NPU_RN_WT, NPU_RN_YT,
       NPU_RN_DIRS, NPU_RN_DIR, NPU_RN_BF, NPU_RN_CLIP, NPU_RN_IFG, NPU_RN_SLT,
       NPU_RN_COUNT };

/* CAST_F: N elements from XT to YT by value (no scales): f32 <-> f16,
 * i8/i16/i32/u8 -> f32/f16 (through float32), and f32/f16 -> i8/i16/i32/u8
 * truncating toward zero, saturated to the type's range (NaN -> 0);
 * indices i64 -> i32 (saturated) / f32 / f16 and i32 -> i64.
 * Args: x, y. */
enum { NPU_CA_N, NPU_CA_XT, NPU_CA_YT, NPU_CA_COUNT };

/* COPY: ELEM-byte elements over a walk (counts, source and destination
 * strides in elements) from element offset SOFF to DOFF. Args: x, y. */
enum {
	NPU_CP_ELEM,
	NPU_CP_COUNTS,
	NPU_CP_SS = NPU_CP_COUNTS + NPU_WALK_DIMS,
	NPU_CP_DS = NPU_CP_SS + NPU_WALK_DIMS,
	NPU_CP_SOFF = NPU_CP_DS + NPU_WALK_DIMS, NPU_CP_DOFF,
	NPU_CP_COUNT
};

/* FILL: N elements of ELEM bytes (1, 2 or 4) set to VALUE's low bytes
 * (little-endian). Args: y. */
enum { NPU_FI_N, NPU_FI_ELEM, NPU_FI_VALUE, NPU_FI_COUNT };

/* REDUCE_F / REDUCE_Q over the middle axis of [OUTER, N, INNER] (several
 * neighbouring axes merged into one). F: float32 accumulation in index
 * order; mean = sum / N. Q: acc = sum of (x - ZX) (sum, mean) or the
 * max / min of (x - ZX), in int64; y = clamp(ZY + rshift_round(acc * MULT,
 * SHIFT), LO, HI), the mean's 1/N folded into MULT. Args: x, y. */
enum { NPU_RED_SUM, NPU_RED_MEAN, NPU_RED_MAX, NPU_RED_MIN };
enum {
	NPU_RD_OUTER, NPU_RD_N, NPU_RD_INNER, NPU_RD_OP, NPU_RD_XT, NPU_RD_YT,
	NPU_RD_ZX, NPU_RD_ZY, NPU_RD_MULT, NPU_RD_SHIFT, NPU_RD_LO, NPU_RD_HI,
	NPU_RD_COUNT
};

/* GRU_Q / LSTM_Q: the integer recurrent cells (as TFLite Micro's and
 * CMSIS-NN's integer LSTM), same semantics, shapes and gate order as
 * GRU_F / LSTM_F. Fixed formats (Qm.n: int16 holding value * 2^n):
 *   hidden state h, h0, Yh   int16 Q0.15 (scale 2^-15, zero point 0);
 *                            GRU and LSTM keep |h| <= 1 (h0 is clamped)
 *   LSTM cell state c, c0, Yc  int16 with CFRAC fraction bits, 0..12
 *                            (Q3.12 unless npu-quant's calibration saw a
 *                            larger cell state; saturating)
 *   gate pre-activations     int16 Q3.12 (saturating to [-8, 8))
 *   gate values              int16 Q0.15 (sigmoid / tanh tables)
 * x: XT (int8 / int16) with zero point ZX; W [G*H, I] and R [G*H, H] int8
 * symmetric, one scale per gate row j (sw_j, sr_j). Arg q: int32 [G*H][6]
 * per row: bx, bh, mx, sx, mh, sh. With the real scales sx_in of x:
 *   ax = bx + sum_i (x_i - ZX) W[j][i]    bx = round(Wb_j / (sx_in sw_j))
 *   ah = bh + sum_k h_k R[j][k]           bh = round(Rb_j / (2^-15 sr_j))
 *   (for the GRU's h gate without linear_before_reset, h_k is
 *    rh_k = rshift_round(r_k h_k, 15))
 * npu-quant and the lowering (ir_lower.c) admit a layer only if every row's
 * |bias| + max|x - ZX| sum |W[j]| (and |bh| + 2^15 sum |R[j]|) < 2^31,
 * so ax and ah are exact in int32; then
 *   px = rshift_round(ax mx, sx), ph = rshift_round(ah mh, sh)
 * (int64 products, |.| < 2^62; mx ~ sx_in sw_j 2^12 2^sx, mh ~ sr_j 2^-3
 * 2^sh) are the two halves of the pre-activation in Q3.12, and
 *   pre = sat16(px + ph)   (GRU h gate with linear_before_reset:
 *                           pre = sat16(px + rshift_round(r sat32(ph), 15)))
 * Gates: sigm(pre), tanh(pre) through 513-entry tables t[k] = 32768 f(k/32 - 8)
 * rounded half up, saturated to +-32767 (npu_rt.c): u = pre + 32768,
 * i = u >> 7, f = u & 127,
 * g = t[i] + rshift_round((t[i+1] - t[i]) f, 7).
 *   GRU:  h = n + rshift_round(z (h - n), 15)          (= (1-z) n + z h)
 *   LSTM: c = sat16(rshift_round(f c, 15) + rshift_round(i g, 30 - CFRAC)),
 *         h = rshift_round(o tanh(sat16(c 2^(12 - CFRAC))), 15)   (tanh's
 *         input in Q3.12: c itself when CFRAC = 12)
 * Y = clamp(ZY + rshift_round(h MULT, SHIFT), LO, HI) in YT; Yh, Yc are
 * the states in their fixed formats, so a streaming model feeds them back
 * as the next call's h0, c0 unchanged.
 * Args GRU: x, W, R, q, h0|-1, Y|-1, Yh|-1.
 * Args LSTM: x, W, R, q, h0|-1, c0|-1, Y|-1, Yh|-1, Yc|-1. */
enum { NPU_RQN_BX, NPU_RQN_BH, NPU_RQN_MX, NPU_RQN_SX, NPU_RQN_MH, NPU_RQN_SH, NPU_RQN_ROW };
enum { NPU_RNQ_T, NPU_RNQ_B, NPU_RNQ_I, NPU_RNQ_H, NPU_RNQ_LBR, NPU_RNQ_REVERSE,
       NPU_RNQ_XT, NPU_RNQ_YT, NPU_RNQ_ZX, NPU_RNQ_ZY, NPU_RNQ_MULT, NPU_RNQ_SHIFT,
       NPU_RNQ_LO, NPU_RNQ_HI, NPU_RNQ_CFRAC, NPU_RNQ_COUNT };
/* MATMUL_F / MATMUL_Q: y[b, m, n] = sum_k A[b, m, k] B[b, k, n] over a
 * batch walk of up to 4 dims (counts BCOUNTS, batch strides BSA, BSB, BSC
 * of A, B, C in elements, 0 along broadcast dims); A's element (m, k) is at
 * m * AM + k * AK from its batch start (a transposed operand swaps the
 * strides), B's (k, n) at k * BK + n * BN, C's (m, n) at m * CM + n * CN;
 * y is dense [batch..., M, N].
 * F: acc = sum over k in order (float32), y = clamp(ALPHA * acc (+ BETA *
 *    C), LO, HI) (float bits).
 * Q: acc = sum (A - ZA) * (B - ZB) in int64; y = clamp(ZY +
 *    rshift_round(acc * MULT, SHIFT), LO, HI); C unused.
 * Args: a, b, c|-1, y. */
#define NPU_MM_BDIMS 4
enum {
	NPU_MM_M, NPU_MM_N, NPU_MM_K,
	NPU_MM_BCOUNTS,
	NPU_MM_BSA = NPU_MM_BCOUNTS + NPU_MM_BDIMS,
	NPU_MM_BSB = NPU_MM_BSA + NPU_MM_BDIMS,
	NPU_MM_BSC = NPU_MM_BSB + NPU_MM_BDIMS,
	NPU_MM_AM = NPU_MM_BSC + NPU_MM_BDIMS, NPU_MM_AK, NPU_MM_BK, NPU_MM_BN, NPU_MM_CM, NPU_MM_CN,
	NPU_MM_AT, NPU_MM_BT, NPU_MM_CT, NPU_MM_YT,
	NPU_MM_ALPHA, NPU_MM_BETA,
	NPU_MM_ZA, NPU_MM_ZB, NPU_MM_ZY, NPU_MM_MULT, NPU_MM_SHIFT, NPU_MM_LO, NPU_MM_HI,
	NPU_MM_COUNT
};

/* GATHER: x viewed as [OUTER, N, INNER] of ELEM-byte elements (1, 2, 4 or
 * 8), y [OUTER, NIDX, INNER]: y[o, i, j] = x[o, idx[i], j]; idx is int32
 * (IT NPU_T_I32) or int64 (NPU_T_I64), a negative index counts from N, and
 * an index outside [-N, N) gives zero bytes. Args: x, idx, y. */
enum { NPU_GA_OUTER, NPU_GA_N, NPU_GA_INNER, NPU_GA_NIDX, NPU_GA_ELEM, NPU_GA_IT, NPU_GA_COUNT };

/* ARGMAX over the middle axis of [OUTER, N, INNER]: y = the index of the
 * largest (MIN: smallest) element, the first one (LAST: the last one);
 * XT any float or integer type (integer codes compare like their values,
 * the scale being positive), y int32 or int64 (YT). Comparisons with a
 * float NaN are false (as in libir's interpreter). Args: x, y. */
enum { NPU_AM_OUTER, NPU_AM_N, NPU_AM_INNER, NPU_AM_MIN, NPU_AM_LAST, NPU_AM_XT, NPU_AM_YT, NPU_AM_COUNT };

/* LRN_F across channels of x [N, C, INNER] (ONNX LRN): y = x / (BIAS +
 * ALPHA / SIZE * sum of x^2 over channels c - floor((SIZE-1)/2) ..
 * c + ceil((SIZE-1)/2))^BETA, in float32 (floats as bits; the power as
 * exp(BETA * log(.))). Args: x, y. */
enum { NPU_LR_N, NPU_LR_C, NPU_LR_INNER, NPU_LR_SIZE, NPU_LR_ALPHA, NPU_LR_BETA, NPU_LR_BIAS,
       NPU_LR_XT, NPU_LR_YT, NPU_LR_COUNT };
/* CONV_T_Q / CONV_T_F: transposed convolution with the NPU_CV_* layout:
 * x [N, C, H, W], weights [C, OC/G, KH, KW] (ONNX ConvTranspose), y [N,
 * OC, OH, OW] (OH, OW include output_padding); y[oh] gathers x[ih] * w[kh]
 * where oh = ih * SH - PT + kh * DH. F sums in the order ic, kh, kw after
 * the bias, then clamps and applies ACT as CONV_F. Args as CONV_Q / CONV_F
 * (mult, shift, wzp, wscale: one per output channel). CONV_T_Q with int8
 * or uint8 x, int8 w and an int32 bias uses OW int32 of scratch (unless
 * NPU_CV_SMAX is smaller: then the generic loop, no scratch).
 * CONV_T_NHWC_Q / CONV_T_NHWC_F: the same on x [N, H, W, C] -> y [N, OH,
 * OW, OC], weights unchanged, sums in the same order. */

/* RESIZE: x [OUTER, H, W] -> y [OUTER, OH, OW]. Along each axis, output
 * index o reads K taps (1 nearest, 2 linear, 4 cubic) from a table of
 * int32 words: K source indices, then K weights as float bits, per o
 * (index tables made by the lowering in double precision, as libir's
 * interpreter computes them). Float (XT f32/f16): y = sum_b ww[b] *
 * (sum_a wh[a] * x[ih[a], iw[b]]) in float32, in that order. Integer types
 * keep the scale and zero point: K = 1 copies ELEM-byte elements; K = 2
 * has weights in Q15 that sum to 2^15 along each axis, y = rshift_round(
 * sum_b ww[b] sum_a wh[a] x[ih[a], iw[b]], 30) (int64).
 * Args: x, table_h, table_w, y. */
enum { NPU_RS_OUTER, NPU_RS_H, NPU_RS_W, NPU_RS_OH, NPU_RS_OW, NPU_RS_K, NPU_RS_XT, NPU_RS_YT, NPU_RS_ELEM,
       NPU_RS_COUNT };
/* RESIZE_NHWC: x [OUTER, H, W, C] -> y [OUTER, OH, OW, C], RESIZE's
 * parameters plus C, the same tables and the same arithmetic per element. */
enum { NPU_RSC_C = NPU_RS_COUNT, NPU_RSC_COUNT };

/* PRELU_Q: y = clamp(ZY + v, LO, HI) over a walk as ELTWISE_Q with a = x
 * and b = slope, where for x >= ZA v = rshift_round((x - ZA) * MP, SP) and
 * otherwise v = rshift_round((x - ZA) * (b - ZB) * MN, SN) (int64, exact).
 * Args: x, slope, y. */
enum {
	NPU_PR_COUNTS,
	NPU_PR_SA = NPU_PR_COUNTS + NPU_WALK_DIMS,
	NPU_PR_SB = NPU_PR_SA + NPU_WALK_DIMS,
	NPU_PR_AT = NPU_PR_SB + NPU_WALK_DIMS, NPU_PR_BT, NPU_PR_YT,
	NPU_PR_ZA, NPU_PR_ZB, NPU_PR_ZY, NPU_PR_MP, NPU_PR_SP, NPU_PR_MN, NPU_PR_SN, NPU_PR_LO, NPU_PR_HI,
	NPU_PR_COUNT
};

/* NORM_F: x as [R, D]; each row normalised over its D elements (float32:
 * mean = sum / D, var = sum (x - mean)^2 / D, in index order), then
 * y = (x - mean) * (1 / sqrt(var + EPS)) * s + b with s, b (type ST) read
 * at (r % C) when C > 0 (instance_norm: one per channel) or at the
 * element's index in the row when C == 0 (layer_norm). With mean and var
 * given (type ST, read as s; batch_norm with computed statistics) they
 * replace the row's. Args: x, scale, bias|-1, y, mean|-1, var|-1. */
enum { NPU_NM_R, NPU_NM_D, NPU_NM_C, NPU_NM_EPS, NPU_NM_XT, NPU_NM_ST, NPU_NM_YT, NPU_NM_COUNT };

/* POOL3_F: x [N, C, D, H, W] -> y [N, C, OD, OH, OW] (1-D and 2-D: D = 1
 * and H = 1 as needed); window taps i = o S - P + k DL for k < K along each
 * axis, those outside the input skipped. Max of the taps; average: their
 * float32 sum (order d, h, w) divided by the product over the axes of the
 * taps inside the input (COUNT_PAD: inside the input and its padding).
 * Pads: begin P* then end E* per axis. Args: x, y. */
enum {
	NPU_P3_N, NPU_P3_C, NPU_P3_D, NPU_P3_H, NPU_P3_W, NPU_P3_OD, NPU_P3_OH, NPU_P3_OW,
	NPU_P3_KD, NPU_P3_KH, NPU_P3_KW, NPU_P3_SD, NPU_P3_SH, NPU_P3_SW,
	NPU_P3_PD, NPU_P3_PH, NPU_P3_PW, NPU_P3_ED, NPU_P3_EH, NPU_P3_EW,
	NPU_P3_DD, NPU_P3_DH, NPU_P3_DW, NPU_P3_MODE, NPU_P3_COUNT_PAD, NPU_P3_XT, NPU_P3_YT,
	NPU_P3_COUNT
};

/* CONV3_F: convolution (TR = 0; weights [OC, C/G, KD, KH, KW]) or
 * transposed convolution (TR = 1; weights [C, OC/G, KD, KH, KW]) of x [N,
 * C, D, H, W] into y [N, OC, OD, OH, OW] in float32: output o reads input
 * i = o S - P + k DL (transposed: o = i S - P + k DL) along each axis;
 * bias first, then the products in the order ic, kd, kh, kw; clamp and ACT
 * as CONV_F. Args: x, w, bias|-1, y. */
enum {
	NPU_C3_N, NPU_C3_C, NPU_C3_D, NPU_C3_H, NPU_C3_W, NPU_C3_OC, NPU_C3_OD, NPU_C3_OH, NPU_C3_OW,
	NPU_C3_KD, NPU_C3_KH, NPU_C3_KW, NPU_C3_SD, NPU_C3_SH, NPU_C3_SW, NPU_C3_PD, NPU_C3_PH, NPU_C3_PW,
	NPU_C3_DD, NPU_C3_DH, NPU_C3_DW, NPU_C3_G, NPU_C3_TR, NPU_C3_XT, NPU_C3_WT, NPU_C3_YT,
	NPU_C3_LO, NPU_C3_HI, NPU_C3_ACT, NPU_C3_P0, NPU_C3_P1,
	NPU_C3_COUNT
};

/* CUSTOM: an op plugin's kernel (npu-plugin(7), share/npu/plugin.h):
 * m->custom(FN, in, out, p + NPU_CU_WORDS) with in = the first NIN
 * arguments, out = the rest, and the plugin's words (its NPU_PK_* layout,
 * NIN at their start). FN names the kernel to the model's custom
 * function (npu-emit writes one per header; a binary model's host sets
 * npu_model.custom itself). Args: inputs, then outputs. */
enum { NPU_CU_FN, NPU_CU_WORDS, NPU_CU_COUNT = NPU_CU_WORDS + 92 };

/* ---- the model */

typedef struct {
	uint32_t mem;		/* NPU_MEM_* */
	uint32_t offset;	/* arena/weight byte offset, or input/output index */
} npu_tensor;

typedef struct {
	uint32_t kernel;	/* NPU_K_* */
	uint32_t n_args;
	uint32_t args;		/* first argument in the args table */
	uint32_t params;	/* first word in the params table */
} npu_op;

#define NPU_MAX_ARGS 11
#define NPU_MAX_RANK 8

/* a graph input or output */
typedef struct {
	uint32_t name;		/* offset in the string table */
	uint32_t dtype;		/* NPU_T_* */
	uint32_t rank;
	int32_t shape[NPU_MAX_RANK];
	float scale;		/* quantized types: real = scale * (q - zero_point) */
	int32_t zero_point;
	uint32_t nbytes;
} npu_io;

typedef struct {
	uint32_t n_tensors, n_ops, n_args, n_params, n_inputs, n_outputs;
	uint32_t arena_size;	/* bytes, including the scratch area */
	uint32_t scratch_offset, scratch_size;	/* kernel scratch inside the arena */
	uint32_t weight_size;
	const npu_tensor *tensors;
	const npu_op *ops;
	const int32_t *args;
	const int32_t *params;
	const uint8_t *weights;	/* 16-byte aligned */
	const npu_io *inputs, *outputs;
	const char *strings;
	/* CUSTOM ops' kernels (NULL when the model has none) */
	void (*custom)(uint32_t fn, const void *const in[], void *const out[], const int32_t *p);
} npu_model;

/* Run op i of m (arena: arena_size bytes, 16-byte aligned; in/out: the
 * graph's input and output buffers, in order). */
void npu_exec_op(const npu_model *m, uint32_t i, const void *const in[], void *const out[], void *arena);
/* Run the whole program. */
void npu_run(const npu_model *m, const void *const in[], void *const out[], void *arena);

/* Scratch bytes kernel k needs for parameters p (0 for most kernels). */
uint32_t npu_scratch_size(uint32_t kernel, const int32_t *p);
/* CONV_Q's int8 weights w [OC, C/G, KH, KW] packed as the kernel reads
 * them for parameters p (see NPU_CV_*) into out (when not NULL); returns
 * the packed size in bytes, 0 when these parameters take w unpacked. */
size_t npu_conv_q_pack(const int32_t *p, const int8_t *w, int8_t *out);
/* CONV_F's float32 weights w [OC, C/G, KH, KW] packed as its fast paths
 * read them (blocks of 16 channels, see NPU_CV_*) into out (when not NULL);
 * returns the packed size in bytes, 0 when these parameters take w
 * unpacked. The caller sets NPU_CV_WPACK to 1 with the packed weights. */
size_t npu_conv_f_pack(const int32_t *p, const float *w, float *out);
/* Parameter words kernel k reads (its NPU_*_COUNT), 0 for an unknown k. */
size_t npu_param_count(uint32_t kernel);

/* Rounding right shift: floor((v + 2^(s-1)) / 2^s) for s >= 1, v for
 * s == 0; s at most 62. */
static inline int64_t npu_rshift_round(int64_t v, int s)
{
	if (s <= 0)
		return v;
	int64_t h = (int64_t)1 << (s - 1);
	/* v + h cannot overflow for the accumulators the kernels produce
	 * (|v| < 2^62); floor division without relying on >> of negatives */
	int64_t t = v + h;
	return t >= 0 ? t >> s : -(((-t) + ((int64_t)1 << s) - 1) >> s);
}

/* The binary model format (npu-emit --format bin): a header of 32-bit
 * little-endian words, then the tables and weights at the offsets it
 * gives; see npu-emit(1). npu_load checks a blob (4-byte aligned, in
 * memory that outlives m) and points m's tables into it; it returns 0, or
 * -1 if the blob is not a valid model for this runtime. */
#define NPU_BIN_MAGIC 0x4d55504eu	/* "NPUM" */
/* The blob: 21 little-endian uint32 header words
 *    0 magic NPU_BIN_MAGIC        1 version NPU_BIN_VERSION
 *    2 n_tensors   3 n_ops   4 n_args   5 n_params   6 n_inputs   7 n_outputs
 *    8 arena_size  9 scratch_offset  10 scratch_size  11 weight_size
 *   12 tensors  13 ops  14 args  15 params  16 weights  17 inputs  18 outputs
 *   19 strings: the byte offsets of the tables from the blob's start
 *   20 the strings' size in bytes
 * then the tables, each an array of the structs above in host order (the
 * runtime reads them in place; a host whose order is not little-endian
 * sees a wrong magic): tensors (npu_tensor, 2 words), ops (npu_op, 4
 * words), args and params (int32), inputs and outputs (npu_io, 14 words),
 * all at 4-byte aligned offsets; the weights (weight_size bytes) at a
 * 16-byte aligned offset; the strings (NUL-terminated names, the last byte
 * NUL). npu_load checks every offset and size against the blob, every op
 * (kernel, argument and parameter ranges, required arguments present,
 * scratch need <= scratch_size), every tensor's place (arena and weight
 * offsets inside their areas, input/output indices in range), the io
 * records and the strings; not the consistency of a kernel's parameters
 * with its buffers' sizes. */
#define NPU_BIN_VERSION 3u	/* 2: ELTWISE parameters gained ACT, P0, P1; 3: CONV_Q int8 weights packed, NPU_CV_SMAX */
int npu_load(npu_model *m, const void *blob, size_t size);

#endif
