/* f1 - a metric plugin (npu-plugin(7)): F1 score of a classifier (keyword
 * spotters: the keyword classes matter, not overall accuracy).
 *
 *     --metric f1            macro F1: the mean over classes of each class's F1
 *     --metric f1:C          the F1 of class C alone
 *
 * The predicted class is the argmax of the first output (the first of equal
 * scores); the data set's first label is the class id. Per class,
 * F1 = 2 TP / (2 TP + FP + FN); a class that is neither predicted nor a
 * label has F1 0 and counts in the mean (as scikit-learn's f1_score with
 * average='macro', labels=range(number of scores), zero_division=0).
 * report() also names the worst class.
 *
 * Build: cc -shared -fPIC -I<npukit>/share/npu f1.c -o f1.so */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

typedef struct {
	long only;		/* -1: macro */
	int64_t classes;	/* fixed by the first sample */
	int64_t *tp, *fp, *fn;
	int64_t n;
} f1;

static void f1_destroy(void *p)
{
	f1 *m = p;
	if (!m)
		return;
	free(m->tp);
	free(m->fp);
	free(m->fn);
	free(m);
}

static void *f1_create(const char *args, char *err, size_t len)
{
	long only = -1;
	if (*args) {
		char *end;
		only = strtol(args, &end, 10);
		if (*end || end == args || only < 0 || only > 1000000) {
			snprintf(err, len, "'%s': expected nothing (macro F1) or a class id", args);
			return NULL;
		}
	}
	f1 *m = calloc(1, sizeof *m);
	if (!m) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	m->only = only;
	return m;
}

static void f1_reset(void *p)
{
	f1 *m = p;
	free(m->tp);
	free(m->fp);
	free(m->fn);
	m->tp = m->fp = m->fn = NULL;
	m->classes = m->n = 0;
}

static int64_t numel(const npu_plugin_tensor *t)
{
	int64_t n = 1;
	for (int i = 0; i < t->ndim; i++)
		n *= t->dims[i];
	return n;
}

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

static int f1_update(void *p, const npu_plugin_tensor *out, int n_out, const npu_plugin_tensor *label, int n_label,
		     char *err, size_t len)
{
	f1 *m = p;
	if (n_out < 1 || n_label < 1 || numel(&label[0]) != 1) {
		snprintf(err, len, "needs the model's scores and one class id per sample as the first label");
		return -1;
	}
	int64_t classes = numel(&out[0]);
	if (!m->tp) {
		if (classes < 1 || classes > 1000000 || (m->only >= 0 && m->only >= classes)) {
			snprintf(err, len, "class %ld: the model has %lld scores", m->only, (long long)classes);
			return -1;
		}
		m->tp = calloc((size_t)classes, sizeof *m->tp);
		m->fp = calloc((size_t)classes, sizeof *m->fp);
		m->fn = calloc((size_t)classes, sizeof *m->fn);
		if (!m->tp || !m->fp || !m->fn) {
			snprintf(err, len, "out of memory");
			return -1;
		}
		m->classes = classes;
	}
	if (classes != m->classes) {
		snprintf(err, len, "%lld scores, the first sample had %lld", (long long)classes, (long long)m->classes);
		return -1;
	}
	double c = get(&label[0], 0);
	if (!(c >= 0 && c < (double)classes) || c != floor(c)) {
		snprintf(err, len, "label %g is no class id of the %lld scores", c, (long long)classes);
		return -1;
	}
	int64_t lab = (int64_t)c, pred = 0;
	for (int64_t i = 1; i < classes; i++)
		if (get(&out[0], i) > get(&out[0], pred) || (isnan(get(&out[0], pred)) && !isnan(get(&out[0], i))))
			pred = i;
	if (pred == lab)
		m->tp[lab]++;
	else {
		m->fp[pred]++;
		m->fn[lab]++;
	}
	m->n++;
	return 0;
}

static double class_f1(const f1 *m, int64_t c)
{
	int64_t d = 2 * m->tp[c] + m->fp[c] + m->fn[c];
	return d ? 2.0 * (double)m->tp[c] / (double)d : 0;
}

static double f1_compute(void *p)
{
	f1 *m = p;
	if (!m->classes)
		return 0;
	if (m->only >= 0)
		return class_f1(m, m->only);
	double s = 0;
	for (int64_t c = 0; c < m->classes; c++)
		s += class_f1(m, c);
	return s / (double)m->classes;
}

static void f1_report(void *p, char *buf, size_t len)
{
	f1 *m = p;
	if (!m->classes) {
		snprintf(buf, len, "F1: no samples");
		return;
	}
	if (m->only >= 0) {
		snprintf(buf, len, "class %ld F1 %.4f (%lld right, %lld false, %lld missed of %lld samples)", m->only,
			 f1_compute(p), (long long)m->tp[m->only], (long long)m->fp[m->only],
			 (long long)m->fn[m->only], (long long)m->n);
		return;
	}
	int64_t worst = 0;
	for (int64_t c = 1; c < m->classes; c++)
		if (class_f1(m, c) < class_f1(m, worst))
			worst = c;
	snprintf(buf, len, "macro F1 %.4f over %lld classes (%lld samples), worst class %lld at %.4f", f1_compute(p),
		 (long long)m->classes, (long long)m->n, (long long)worst, class_f1(m, worst));
}

static const npu_plugin_metric impl = {f1_create, f1_reset, f1_update, f1_compute, f1_report, f1_destroy};
static const npu_plugin_desc desc = {
	NPU_PLUGIN_ABI, NPU_PLUGIN_METRIC, "f1", 1, "macro F1 of a classifier, or one class's (f1[:CLASS])", &impl,
};
static const npu_plugin_desc *const list[] = {&desc, NULL};

NPU_PLUGIN_EXPORT const npu_plugin_desc *const *npu_plugins(void)
{
	return list;
}
