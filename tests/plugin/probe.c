/* probe - a metric plugin for tests/pipeline/t9020-plugins.sh, built by the
 * Makefile three times: PROBE_VERSION 1 and 2 (which one a program uses
 * shows in its score: the version) and PROBE_ABI other than the program's
 * (to be refused with a warning). Args "fail" make update() fail on the
 * second sample, "nocreate" make create() fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

#ifndef PROBE_VERSION
#define PROBE_VERSION 1
#endif
#ifndef PROBE_ABI
#define PROBE_ABI NPU_PLUGIN_ABI
#endif

typedef struct {
	int fail;
	long n;
} probe;

static void *probe_create(const char *args, char *err, size_t len)
{
	if (!strcmp(args, "nocreate") || (*args && strcmp(args, "fail"))) {
		snprintf(err, len, "'%s': expected nothing or 'fail'", args);
		return NULL;
	}
	probe *m = calloc(1, sizeof *m);
	if (!m)
		snprintf(err, len, "out of memory");
	else
		m->fail = !strcmp(args, "fail");
	return m;
}

static void probe_reset(void *p)
{
	((probe *)p)->n = 0;
}

static int probe_update(void *p, const npu_plugin_tensor *out, int n_out, const npu_plugin_tensor *label, int n_label,
			char *err, size_t len)
{
	probe *m = p;
	(void)out, (void)n_out, (void)label, (void)n_label;
	if (m->fail && m->n == 1) {
		snprintf(err, len, "asked to fail at the second sample");
		return -1;
	}
	m->n++;
	return 0;
}

static double probe_compute(void *p)
{
	(void)p;
	return PROBE_VERSION;
}

static void probe_report(void *p, char *buf, size_t len)
{
	snprintf(buf, len, "probe version %d saw %ld samples", PROBE_VERSION, ((probe *)p)->n);
}

static const npu_plugin_metric impl = {probe_create, probe_reset, probe_update, probe_compute, probe_report, free};
static const npu_plugin_desc desc = {
	PROBE_ABI, NPU_PLUGIN_METRIC, "probe", PROBE_VERSION, "test metric: its score is its version", &impl,
};
static const npu_plugin_desc *const list[] = {&desc, NULL};

NPU_PLUGIN_EXPORT const npu_plugin_desc *const *npu_plugins(void)
{
	return list;
}
