/* op_space_to_depthx.c - an example op plugin (npu-plugin(7)): a vendor
 * data-movement op, com.vendor SpaceToDepthX with int attribute blocksize
 * (required, >= 1) on [N, C, H, W] (H, W multiples of it):
 *     y[n, c*b*b + i*b + j, h, w] = x[n, c, h*b + i, w*b + j]
 * (PyTorch's F.pixel_unshuffle). It moves values without changing them, so
 * npu-quant keeps the int8 scale of its input (NPU_PQ_SAME_SCALE) and the
 * int8 kernel moves bytes.
 *
 * The kernels are written once, inside KERNELS(X) (see op_mishx.c). */
#include <stdio.h>
#include <string.h>

#include "plugin.h"

#define CODE(...) __VA_ARGS__
#define TEXT(...) #__VA_ARGS__

/* p: NPU_PK_* words: input 0's rank at 4, dims at 5..; blocksize is the
 * first extra word (offset 4 + 8 * 9). */
#define KERNELS(X) X( \
static void npu_s2dx_move(const void *x0, void *y0, const int32_t *p, size_t es) \
{ \
	const unsigned char *x = (const unsigned char *)x0; \
	unsigned char *y = (unsigned char *)y0; \
	int64_t N = p[5], C = p[6], H = p[7], W = p[8], b = p[4 + 8 * 9]; \
	int64_t Ho = H / b, Wo = W / b, k = 0; \
	for (int64_t n = 0; n < N; n++) \
		for (int64_t c = 0; c < C; c++) \
			for (int64_t i = 0; i < b; i++) \
				for (int64_t j = 0; j < b; j++) \
					for (int64_t h = 0; h < Ho; h++) \
						for (int64_t w = 0; w < Wo; w++, k++) \
							memcpy(y + k * es, x + (((n * C + c) * H + h * b + i) * W + w * b + j) * es, es); \
} \
static void npu_s2dx_f32(const void *const in[], void *const out[], const int32_t *p) \
{ \
	npu_s2dx_move(in[0], out[0], p, 4); \
} \
static void npu_s2dx_i8(const void *const in[], void *const out[], const int32_t *p) \
{ \
	npu_s2dx_move(in[0], out[0], p, 1); \
} \
)

KERNELS(CODE)
static const char source[] = KERNELS(TEXT) "\n";

static int block_of(const npu_plugin_attr *a, int na, int64_t *b, char *err, size_t errlen)
{
	*b = 0;
	for (int i = 0; i < na; i++) {
		if (strcmp(a[i].name, "blocksize")) {
			snprintf(err, errlen, "unknown attribute '%s' (SpaceToDepthX takes blocksize)", a[i].name);
			return -1;
		}
		if (a[i].type != NPU_PA_INT || a[i].i < 1 || a[i].i > 4096) {
			snprintf(err, errlen, "attribute 'blocksize' must be an int from 1 to 4096");
			return -1;
		}
		*b = a[i].i;
	}
	if (!*b) {
		snprintf(err, errlen, "attribute 'blocksize' is required");
		return -1;
	}
	return 0;
}

static int shape(const npu_plugin_attr *a, int na, const npu_plugin_tensor *in, int n_in, npu_plugin_tensor *out,
		 int n_out, char *err, size_t errlen)
{
	int64_t b;
	(void)n_in, (void)n_out;
	if (block_of(a, na, &b, err, errlen))
		return -1;
	if (in[0].ndim != 4) {
		snprintf(err, errlen, "input must be [N, C, H, W], not of rank %d", in[0].ndim);
		return -1;
	}
	if (in[0].dims[2] % b || in[0].dims[3] % b) {
		snprintf(err, errlen, "H %lld and W %lld must be multiples of blocksize %lld",
			 (long long)in[0].dims[2], (long long)in[0].dims[3], (long long)b);
		return -1;
	}
	out[0] = in[0];
	out[0].dims[1] = in[0].dims[1] * b * b;
	out[0].dims[2] = in[0].dims[2] / b;
	out[0].dims[3] = in[0].dims[3] / b;
	return 0;
}

static int params(const npu_plugin_attr *a, int na, const npu_plugin_tensor *in, int n_in, int32_t *extra,
		  char *err, size_t errlen)
{
	int64_t b;
	(void)in, (void)n_in;
	if (block_of(a, na, &b, err, errlen))
		return -1;
	extra[0] = (int32_t)b;
	return 1;
}

static const npu_plugin_op s2dx = {
	.domain = "com.vendor",
	.op_type = "SpaceToDepthX",
	.min_inputs = 1,
	.max_inputs = 1,
	.n_outputs = 1,
	.shape = shape,
	.params = params,
	.run_f32 = npu_s2dx_f32,
	.quant = NPU_PQ_SAME_SCALE,
	.run_i8 = npu_s2dx_i8,
	.c_source = source,
	.c_f32 = "npu_s2dx_f32",
	.c_i8 = "npu_s2dx_i8",
};

static const npu_plugin_desc desc = {
	NPU_PLUGIN_ABI, NPU_PLUGIN_OP, "SpaceToDepthX", 1,
	"com.vendor SpaceToDepthX: pixel_unshuffle by blocksize, int8 on the input's scale", &s2dx,
};
static const npu_plugin_desc *const list[] = {&desc, NULL};

NPU_PLUGIN_EXPORT const npu_plugin_desc *const *npu_plugins(void)
{
	return list;
}
