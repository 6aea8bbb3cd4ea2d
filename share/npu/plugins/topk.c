/* topk - a metric plugin (npu-plugin(7)): top-K accuracy against class ids.
 *
 *     --metric topk[:K]         (K from 1 to 1000, default 1)
 *
 * The model's first output holds one score per class (any shape, all of it
 * is one sample's scores); the data set's first label is the class id (one
 * integer). A sample is right when fewer than K classes score above its
 * class, ties counted against it when they come first (the order a stable
 * sort by descending score gives, as torch.topk on distinct scores). The
 * score is right / samples.
 *
 * Build: cc -shared -fPIC -I<npukit>/share/npu topk.c -o topk.so */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

typedef struct {
	long k;
	int64_t right, n;
} topk;

static void *topk_create(const char *args, char *err, size_t len)
{
	long k = 1;
	if (*args) {
		char *end;
		k = strtol(args, &end, 10);
		if (*end || end == args || k < 1 || k > 1000) {
			snprintf(err, len, "'%s': expected K, an integer from 1 to 1000", args);
			return NULL;
		}
	}
	topk *m = calloc(1, sizeof *m);
	if (!m) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	m->k = k;
	return m;
}

static void topk_reset(void *p)
{
	topk *m = p;
	m->right = m->n = 0;
}

static int64_t numel(const npu_plugin_tensor *t)
{
	int64_t n = 1;
	for (int i = 0; i < t->ndim; i++)
		n *= t->dims[i];
	return n;
}

/* Element i as a double. */
static double get(const npu_plugin_tensor *t, int64_t i)
{
	switch (t->dtype) {
	case NPU_PT_F32: return ((const float *)t->data)[i];
	case NPU_PT_I32: return ((const int32_t *)t->data)[i];
	case NPU_PT_I64: return (double)((const int64_t *)t->data)[i];
	case NPU_PT_I8: return ((const int8_t *)t->data)[i];
	case NPU_PT_U8: return ((const uint8_t *)t->data)[i];
	}
	return NAN;
}

static int topk_update(void *p, const npu_plugin_tensor *out, int n_out, const npu_plugin_tensor *label, int n_label,
		       char *err, size_t len)
{
	topk *m = p;
	if (n_out < 1 || n_label < 1 || numel(&label[0]) != 1) {
		snprintf(err, len, "needs the model's scores and one class id per sample as the first label");
		return -1;
	}
	int64_t classes = numel(&out[0]);
	double c = get(&label[0], 0);
	if (!(c >= 0 && c < (double)classes) || c != floor(c)) {
		snprintf(err, len, "label %g is no class id of the %lld scores", c, (long long)classes);
		return -1;
	}
	int64_t lab = (int64_t)c, above = 0;
	double v = get(&out[0], lab);
	for (int64_t i = 0; i < classes; i++) {
		double s = get(&out[0], i);
		above += s > v || (i < lab && s == v) || (isnan(v) && !isnan(s));
	}
	m->right += above < m->k;
	m->n++;
	return 0;
}

static double topk_compute(void *p)
{
	topk *m = p;
	return m->n ? (double)m->right / (double)m->n : 0;
}

static void topk_report(void *p, char *buf, size_t len)
{
	topk *m = p;
	snprintf(buf, len, "top-%ld accuracy %.4f (%lld/%lld)", m->k, topk_compute(p), (long long)m->right,
		 (long long)m->n);
}

static const npu_plugin_metric impl = {topk_create, topk_reset, topk_update, topk_compute, topk_report, free};
static const npu_plugin_desc desc = {
	NPU_PLUGIN_ABI, NPU_PLUGIN_METRIC, "topk", 1, "top-K accuracy against class ids (topk:K, default 1)", &impl,
};
static const npu_plugin_desc *const list[] = {&desc, NULL};

NPU_PLUGIN_EXPORT const npu_plugin_desc *const *npu_plugins(void)
{
	return list;
}
