/* op_mishx.c - an example op plugin (npu-plugin(7)): a vendor activation,
 * com.vendor MishX with a float attribute alpha (default 1):
 *     y = alpha * x * tanh(softplus(x)),  softplus(x) = x above 20, else log1p(exp(x))
 * (PyTorch's alpha * F.mish(x)). No integer kernel: npu-quant keeps it a
 * float island, npu-emit pastes KERNELS below into npu.h.
 *
 * The kernels are written once, inside KERNELS(X): X(...) expands to the
 * code itself here and to its text for c_source, so the plugin and the
 * emitted header compile the same source (byte-identical results). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plugin.h"

#define CODE(...) __VA_ARGS__
#define TEXT(...) #__VA_ARGS__

/* p: NPU_PK_* words; the element count is input 0's, alpha the float bits
 * of the first extra word (offset 4 + 8 * 9). */
#define KERNELS(X) X( \
static void npu_mishx_f32(const void *const in[], void *const out[], const int32_t *p) \
{ \
	const float *x = (const float *)in[0]; \
	float *y = (float *)out[0]; \
	int64_t n = 1; \
	float alpha; \
	for (int32_t j = 0; j < p[4]; j++) \
		n *= p[5 + j]; \
	memcpy(&alpha, &p[4 + 8 * 9], sizeof alpha); \
	for (int64_t i = 0; i < n; i++) { \
		float v = x[i], sp = v > 20.0f ? v : log1pf(expf(v)); \
		y[i] = alpha * (v * tanhf(sp)); \
	} \
} \
)

KERNELS(CODE)
static const char source[] = KERNELS(TEXT) "\n";

static int alpha_of(const npu_plugin_attr *a, int na, float *alpha, char *err, size_t errlen)
{
	*alpha = 1.0f;
	for (int i = 0; i < na; i++) {
		if (strcmp(a[i].name, "alpha")) {
			snprintf(err, errlen, "unknown attribute '%s' (MishX takes alpha)", a[i].name);
			return -1;
		}
		if (a[i].type != NPU_PA_FLOAT || !isfinite(a[i].f)) {
			snprintf(err, errlen, "attribute 'alpha' must be a finite float");
			return -1;
		}
		*alpha = (float)a[i].f;
	}
	return 0;
}

static int shape(const npu_plugin_attr *a, int na, const npu_plugin_tensor *in, int n_in, npu_plugin_tensor *out,
		 int n_out, char *err, size_t errlen)
{
	float alpha;
	(void)n_in, (void)n_out;
	if (alpha_of(a, na, &alpha, err, errlen))
		return -1;
	out[0] = in[0];
	return 0;
}

static int params(const npu_plugin_attr *a, int na, const npu_plugin_tensor *in, int n_in, int32_t *extra,
		  char *err, size_t errlen)
{
	float alpha;
	(void)in, (void)n_in;
	if (alpha_of(a, na, &alpha, err, errlen))
		return -1;
	memcpy(&extra[0], &alpha, sizeof alpha);
	return 1;
}

static const npu_plugin_op mishx = {
	.domain = "com.vendor",
	.op_type = "MishX",
	.min_inputs = 1,
	.max_inputs = 1,
	.n_outputs = 1,
	.shape = shape,
	.params = params,
	.run_f32 = npu_mishx_f32,
	.quant = NPU_PQ_FLOAT,
	.c_source = source,
	.c_f32 = "npu_mishx_f32",
};

static const npu_plugin_desc desc = {
	NPU_PLUGIN_ABI, NPU_PLUGIN_OP, "MishX", 1, "com.vendor MishX: alpha * x * tanh(softplus(x)), float island", &mishx,
};
static const npu_plugin_desc *const list[] = {&desc, NULL};

NPU_PLUGIN_EXPORT const npu_plugin_desc *const *npu_plugins(void)
{
	return list;
}
