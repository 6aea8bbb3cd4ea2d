/* npu_eval.c - top-1 accuracy of an IR on a labelled sample set, run the
 * way npu-run runs it (ir_exec: the float interpreter, or the runtime for
 * quantized graphs), for the pipeline tests.
 *
 *   npu_eval IR SET.npz
 *   npu_eval --sample K SET.npz OUT.npy [KEY]
 *   npu_eval --diff A.npy REF.npz KEY
 *
 * SET.npz holds x: [N, <the graph input's shape>] float32 (fed as npu-run
 * feeds a float32 array: quantized inputs are converted), labels: int64
 * [N] and optionally logits: float32 [N, classes], the framework's own
 * outputs. The graph has one input and its first output holds the class
 * scores (float, or integers of one scale). Prints "right N", then with
 * logits "REF_RIGHT MAXERR": the logits' own right answers and the largest
 * |output - logit| (float outputs). --sample writes KEY[K] (default x) as
 * an .npy (for host programs that read .npy); --diff prints the largest
 * |A - REF[KEY]| over their elements (any dtypes, the same count). Exit 1 on errors. */
#include "ir.h"
#include "ir_cli.h"
#include "npy/npy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double score(const void *y, ir_dtype t, int64_t i)
{
	return ir_elem_get(y, t, i);
}

static int sample(const char *k, const char *set, const char *out, const char *key)
{
	uint8_t *buf, *w = NULL;
	size_t size, wn;
	int n = 0, rc = 1;
	ir_diag d;
	if (cli_read_file(set, true, &buf, &size))
		return 1;
	npy_array *a = npz_read(buf, size, &n, &d);
	free(buf);
	for (int i = 0; a && i < n; i++) {
		if (strcmp(a[i].name, key) || a[i].dtype != IR_DTYPE_F32 || a[i].shape.rank < 2)
			continue;
		npy_array s = {.dtype = IR_DTYPE_F32, .shape = {a[i].shape.rank - 1, {0}}};
		memcpy(s.shape.dim, a[i].shape.dim + 1, sizeof s.shape.dim[0] * (size_t)s.shape.rank);
		int64_t per = ir_shape_numel(&s.shape), j = atoll(k);
		if (j < 0 || j >= a[i].shape.dim[0])
			break;
		s.data = (float *)a[i].data + j * per;
		s.nbytes = (size_t)per * 4;
		FILE *f = npy_write_mem(&s, &w, &wn, &d) ? NULL : fopen(out, "wb");
		if (f && fwrite(w, 1, wn, f) == wn && fclose(f) == 0)
			rc = 0;
		free(w);
	}
	if (a)
		npz_free(a, n);
	if (rc)
		cli_error(set, "cannot write sample %s of %s as %s", k, key, out);
	return rc;
}

static npy_array *load(const char *path, int *n)
{
	uint8_t *buf;
	size_t size;
	ir_diag d;
	bool npz;
	if (cli_read_file(path, true, &buf, &size))
		return NULL;
	npy_array *a = npy_read_any(buf, size, n, &npz, &d);
	free(buf);
	if (!a)
		cli_error(path, "%s", d.msg);
	return a;
}

static int diff(const char *fa, const char *fr, const char *key)
{
	int na = 0, nr = 0, rc = 1;
	npy_array *a = load(fa, &na), *r = load(fr, &nr);
	for (int i = 0; a && r && i < nr; i++) {
		int64_t n = ir_shape_numel(&r[i].shape);
		if (strcmp(r[i].name, key) || n != ir_shape_numel(&a[0].shape))
			continue;
		double m = 0;
		for (int64_t k = 0; k < n; k++)
			m = fmax(m, fabs(ir_elem_get(a[0].data, a[0].dtype, k) - ir_elem_get(r[i].data, r[i].dtype, k)));
		printf("%.6g\n", m);
		rc = 0;
	}
	if (rc && a && r)
		cli_error(fr, "no array '%s' of %s's size", key, fa);
	if (a)
		npz_free(a, na);
	if (r)
		npz_free(r, nr);
	return rc;
}

int main(int argc, char **argv)
{
	cli_init("npu_eval", argc, argv);
	if (argc == 5 && !strcmp(argv[1], "--diff"))
		return diff(argv[2], argv[3], argv[4]);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "--sample"))
		return sample(argv[2], argv[3], argv[4], argc == 6 ? argv[5] : "x");
	if (argc != 3) {
		fprintf(stderr, "usage: npu_eval IR SET.npz\n");
		return 2;
	}
	ir_graph *g = cli_read_ir(argv[1]);
	uint8_t *buf;
	size_t size;
	int n = 0, rc = 1;
	ir_diag d;
	npy_array *a = NULL;
	ir_exec *e = NULL;
	if (!g || cli_read_file(argv[2], true, &buf, &size))
		return 1;
	a = npz_read(buf, size, &n, &d);
	free(buf);
	const npy_array *x = NULL, *lab = NULL, *ref = NULL;
	for (int i = 0; a && i < n; i++) {
		if (!strcmp(a[i].name, "x"))
			x = &a[i];
		else if (!strcmp(a[i].name, "labels"))
			lab = &a[i];
		else if (!strcmp(a[i].name, "logits"))
			ref = &a[i];
	}
	const ir_tensor *in = ir_graph_tensor(g, ir_graph_input(g, 0));
	const ir_tensor *out = ir_graph_tensor(g, ir_graph_output(g, 0));
	int64_t per = ir_shape_numel(&in->shape), classes = ir_shape_numel(&out->shape);
	if (!x || !lab || x->dtype != IR_DTYPE_F32 || lab->dtype != IR_DTYPE_I64 || x->shape.rank < 1 ||
	    ir_shape_numel(&x->shape) != x->shape.dim[0] * per || ir_shape_numel(&lab->shape) != x->shape.dim[0]) {
		cli_error(argv[2], "expected x: float32 [N, %lld values] and labels: int64 [N]", (long long)per);
		goto done;
	}
	if (!(e = ir_exec_new(g, IR_MODE_F32, 1, &d))) {
		cli_diag(g, argv[1], &d);
		goto done;
	}
	int64_t right = 0, ref_right = 0, N = x->shape.dim[0];
	double maxerr = 0;
	if (ref && (ref->dtype != IR_DTYPE_F32 || ir_shape_numel(&ref->shape) != N * classes)) {
		cli_error(argv[2], "logits must be float32 [N, %lld]", (long long)classes);
		goto done;
	}
	for (int64_t k = 0; k < N; k++) {
		if (ir_exec_set_input_f32(e, 0, (const float *)x->data + k * per, per, &d) || ir_exec_run(e, &d)) {
			cli_diag(g, argv[1], &d);
			goto done;
		}
		const void *y = ir_exec_output(e, 0, NULL);
		int64_t best = 0;
		for (int64_t c = 1; c < classes; c++)
			if (score(y, out->dtype, c) > score(y, out->dtype, best))
				best = c;
		right += best == ((const int64_t *)lab->data)[k];
		if (!ref)
			continue;
		const float *r = (const float *)ref->data + k * classes;
		int64_t rb = 0;
		for (int64_t c = 0; c < classes; c++) {
			rb = r[c] > r[rb] ? c : rb;
			double e = fabs(score(y, out->dtype, c) - r[c]);
			maxerr = e > maxerr ? e : maxerr;
		}
		ref_right += rb == ((const int64_t *)lab->data)[k];
	}
	if (ref)
		printf("%lld %lld %lld %.3g\n", (long long)right, (long long)N, (long long)ref_right, maxerr);
	else
		printf("%lld %lld\n", (long long)right, (long long)N);
	rc = 0;
done:
	ir_exec_free(e);
	if (a)
		npz_free(a, n);
	ir_graph_free(g);
	return rc;
}
