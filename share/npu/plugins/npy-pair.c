/* npy-pair - a dataset plugin (npu-plugin(7)): samples from an .npy array
 * with a sample axis, labels from a second one.
 *
 *     --dataset npy-pair:INPUTS.npy[,LABELS.npy]
 *
 * INPUTS is [N, ...] of float32, float64, int64, int32, int8 or uint8
 * (little-endian, C order); sample i is INPUTS[i], the model's one input.
 * LABELS, when given, is [N] or [N, ...] of the same types; sample i's
 * label is LABELS[i] (one class id for [N]). Paths may not contain ','.
 *
 * Build: cc -shared -fPIC -I<npukit>/share/npu npy-pair.c -o npy-pair.so */
#define _POSIX_C_SOURCE 200809L	/* strdup */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

typedef struct {
	int dtype;		/* NPU_PT_* after conversion (float64 becomes float32) */
	int ndim;		/* without the sample axis */
	int64_t dims[NPU_PLUGIN_MAX_DIMS];
	int64_t n;		/* samples */
	size_t per;		/* bytes per sample */
	unsigned char *data;
} array;

typedef struct {
	array x, y;
	int has_y;
	int64_t at;
} pair;

static int bad(char *err, size_t len, const char *path, const char *msg)
{
	snprintf(err, len, "%s: %s", path, msg);
	return -1;
}

/* The header's value for key, e.g. 'descr': '<f4' -> "<f4". */
static const char *field(const char *h, const char *key)
{
	const char *p = strstr(h, key);
	if (!p)
		return NULL;
	p += strlen(key);
	while (*p == ' ' || *p == '\'' || *p == ':')
		p++;
	return p;
}

static int read_npy(const char *path, array *a, char *err, size_t len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return bad(err, len, path, strerror(errno));
	unsigned char pre[12];
	char *h = NULL;
	int rc = -1;
	size_t hl = 0;
	if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6)) {
		bad(err, len, path, "not an .npy file");
		goto out;
	}
	if (pre[6] == 1)
		hl = pre[8] | (size_t)pre[9] << 8;
	else if (pre[6] == 2 || pre[6] == 3) {
		if (fread(pre + 10, 1, 2, f) != 2) {
			bad(err, len, path, "truncated header");
			goto out;
		}
		hl = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
	} else {
		bad(err, len, path, "unknown .npy version");
		goto out;
	}
	if (hl > 65536 || !(h = calloc(hl + 1, 1)) || fread(h, 1, hl, f) != hl) {
		bad(err, len, path, "bad or truncated header");
		goto out;
	}
	const char *d = field(h, "'descr'"), *fo = field(h, "'fortran_order'"), *sh = field(h, "'shape'");
	if (!d || !fo || !sh || *sh != '(') {
		bad(err, len, path, "header without descr, fortran_order or shape");
		goto out;
	}
	if (strncmp(fo, "False", 5)) {
		bad(err, len, path, "Fortran order is not supported");
		goto out;
	}
	static const struct { const char *descr; int dtype; size_t size; } types[] = {
		{"<f4", NPU_PT_F32, 4}, {"<f8", NPU_PT_F32, 8}, {"<i8", NPU_PT_I64, 8},
		{"<i4", NPU_PT_I32, 4}, {"|i1", NPU_PT_I8, 1}, {"|u1", NPU_PT_U8, 1},
	};
	size_t esize = 0;
	for (size_t i = 0; i < sizeof types / sizeof *types; i++)
		if (!strncmp(d, types[i].descr, 3) && d[3] == '\'') {
			a->dtype = types[i].dtype;
			esize = types[i].size;
		}
	if (!esize) {
		bad(err, len, path, "dtype is none of float32, float64, int64, int32, int8, uint8 (little-endian)");
		goto out;
	}
	int64_t dims[NPU_PLUGIN_MAX_DIMS + 1], total = 1;
	int nd = 0;
	for (const char *p = sh + 1; *p && *p != ')';) {
		char *end;
		long long v = strtoll(p, &end, 10);
		if (end == p || v < 0 || nd == NPU_PLUGIN_MAX_DIMS + 1 || (v && total > ((int64_t)1 << 40) / v)) {
			bad(err, len, path, "bad shape (at most 9 dimensions)");
			goto out;
		}
		dims[nd++] = v;
		total *= v;
		for (p = end; *p == ',' || *p == ' '; p++)
			;
	}
	if (nd < 1) {
		bad(err, len, path, "a scalar: expected a sample axis first");
		goto out;
	}
	a->n = dims[0];
	a->ndim = nd - 1;
	for (int i = 1; i < nd; i++)
		a->dims[i - 1] = dims[i];
	size_t count = (size_t)total, out_size = esize == 8 && a->dtype == NPU_PT_F32 ? 4 : esize;
	unsigned char *raw = malloc(count * esize + 1);
	if (!raw || fread(raw, esize, count, f) != count) {
		free(raw);
		bad(err, len, path, raw ? "truncated data" : "out of memory");
		goto out;
	}
	if (out_size != esize) {	/* float64 -> float32 in place */
		for (size_t i = 0; i < count; i++) {
			double v;
			float w;
			memcpy(&v, raw + 8 * i, 8);
			w = (float)v;
			memcpy(raw + 4 * i, &w, 4);
		}
	}
	a->data = raw;
	a->per = a->n ? count / (size_t)a->n * out_size : 0;
	rc = 0;
out:
	free(h);
	fclose(f);
	return rc;
}

static void pair_close(void *p)
{
	pair *s = p;
	if (!s)
		return;
	free(s->x.data);
	free(s->y.data);
	free(s);
}

static void *pair_open(const char *args, char *err, size_t len)
{
	if (!*args) {
		snprintf(err, len, "expected npy-pair:INPUTS.npy[,LABELS.npy]");
		return NULL;
	}
	char *xs = strdup(args), *ys = xs ? strchr(xs, ',') : NULL;
	pair *s = calloc(1, sizeof *s);
	if (!xs || !s) {
		snprintf(err, len, "out of memory");
		free(xs);
		free(s);
		return NULL;
	}
	if (ys)
		*ys++ = 0;
	if (ys && (!*ys || strchr(ys, ','))) {
		snprintf(err, len, "'%s': expected INPUTS.npy[,LABELS.npy]", args);
		goto fail;
	}
	if (read_npy(xs, &s->x, err, len) || (ys && read_npy(ys, &s->y, err, len)))
		goto fail;
	s->has_y = ys != NULL;
	if (s->has_y && s->y.n != s->x.n) {
		snprintf(err, len, "%s has %lld samples, %s %lld", xs, (long long)s->x.n, ys, (long long)s->y.n);
		goto fail;
	}
	free(xs);
	return s;
fail:
	free(xs);
	pair_close(s);
	return NULL;
}

static int64_t pair_count(void *p)
{
	return ((pair *)p)->x.n;
}

static void view(const array *a, int64_t i, npu_plugin_tensor *t)
{
	t->dtype = a->dtype;
	t->ndim = a->ndim;
	memcpy(t->dims, a->dims, sizeof t->dims);
	t->data = a->data + (size_t)i * a->per;
}

static int pair_next(void *p, npu_plugin_tensor *in, int max_in, int *n_in, npu_plugin_tensor *label, int max_label,
		     int *n_label, char *err, size_t len)
{
	pair *s = p;
	if (s->at >= s->x.n)
		return 0;
	if (max_in < 1 || (s->has_y && max_label < 1)) {
		snprintf(err, len, "no room for a sample");
		return -1;
	}
	view(&s->x, s->at, &in[0]);
	*n_in = 1;
	*n_label = 0;
	if (s->has_y) {
		view(&s->y, s->at, &label[0]);
		*n_label = 1;
	}
	s->at++;
	return 1;
}

static const npu_plugin_dataset impl = {pair_open, pair_count, pair_next, pair_close};
static const npu_plugin_desc desc = {
	NPU_PLUGIN_ABI, NPU_PLUGIN_DATASET, "npy-pair", 1,
	"samples from INPUTS.npy [N,...], labels from LABELS.npy [N] (npy-pair:X.npy[,Y.npy])", &impl,
};
static const npu_plugin_desc *const list[] = {&desc, NULL};

NPU_PLUGIN_EXPORT const npu_plugin_desc *const *npu_plugins(void)
{
	return list;
}
