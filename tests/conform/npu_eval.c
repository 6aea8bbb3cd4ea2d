/* npu_eval.c - top-1 accuracy of an IR on a labelled sample set, run the
 * way npu-run runs it (ir_exec: the float interpreter, or the runtime for
 * quantized graphs), for the pipeline tests.
 *
 *   npu_eval IR SET.npz
 *   npu_eval --sample K SET.npz OUT.npy [KEY]
 *   npu_eval --diff A.npy REF.npz KEY
 *   npu_eval --stream IR REF_IR SEQ.npz IN=OUT
 *
 * SET.npz holds x: [N, <the graph input's shape>] float32 (fed as npu-run
 * feeds a float32 array: quantized inputs are converted), labels: int64
 * [N] and optionally logits: float32 [N, classes], the framework's own
 * outputs. The graph has one input and its first output holds the class
 * scores (float, or integers of one scale). Prints "right N", then with
 * logits "REF_RIGHT MAXERR": the logits' own right answers and the largest
 * |output - logit| (float outputs). --sample writes KEY[K] (default x) as
 * an .npy (for host programs that read .npy); --diff prints the largest
 * |A - REF[KEY]| over their elements (any dtypes, the same count).
 * --stream runs IR and REF_IR (its float original) over the sequences x:
 * float32 [N, T, <the other input's shape>] of SEQ.npz frame by frame,
 * each graph's state output OUT fed back as its state input IN (starting
 * at zero; as is when the dtypes agree, else as float32), and prints the
 * SQNR in dB of IR's first output against REF_IR's over all frames, and
 * how often their argmax agrees ("SQNR AGREE FRAMES"); with labels: int64
 * [N] in SEQ.npz also "QRIGHT FRIGHT": the utterances whose argmax after
 * the last frame is the label, for IR and REF_IR, and with logits: float32
 * [N, classes] (the framework's, after the last frame) also the largest
 * |REF_IR's output - logit|. Exit 1 on errors. */
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

/* Output i of e as double j (dequantized with the tensor's scale). */
static double out_val(const ir_graph *g, const ir_exec *e, int i, int64_t j)
{
	const ir_tensor *t = ir_graph_tensor(g, ir_graph_output(g, i));
	double v = ir_elem_get(ir_exec_output(e, i, NULL), t->dtype, j);
	if (t->quant && t->quant->n == 1 && t->dtype != IR_DTYPE_F32)
		v = (v - t->quant->zero_point[0]) * t->quant->scale[0];
	return v;
}

typedef struct {
	ir_graph *g;
	ir_exec *e;
	int x, in, out;		/* the data input, the state input and output */
} stream_model;

static int stream_open(stream_model *m, const char *path, const char *pair)
{
	ir_diag d;
	const char *eq = strchr(pair, '=');
	if (!eq || !(m->g = cli_read_ir(path)))
		return 1;
	m->x = m->in = m->out = -1;
	for (int i = 0; i < ir_graph_input_count(m->g); i++) {
		const char *nm = ir_graph_tensor(m->g, ir_graph_input(m->g, i))->name;
		if (strlen(nm) == (size_t)(eq - pair) && !strncmp(nm, pair, (size_t)(eq - pair)))
			m->in = i;
		else
			m->x = i;
	}
	for (int i = 0; i < ir_graph_output_count(m->g); i++)
		if (!strcmp(ir_graph_tensor(m->g, ir_graph_output(m->g, i))->name, eq + 1))
			m->out = i;
	if (ir_graph_input_count(m->g) != 2 || m->in < 0 || m->out < 0)
		return cli_error(path, "expected two inputs, one of them the state of %s", pair), 1;
	if (!(m->e = ir_exec_new(m->g, IR_MODE_F32, 1, &d)))
		return cli_diag(m->g, path, &d), 1;
	return 0;
}

/* One frame x (per floats); the state fed back. */
static int stream_step(stream_model *m, const float *x, int64_t per, float *tmp, bool first)
{
	ir_diag d;
	const ir_tensor *ti = ir_graph_tensor(m->g, ir_graph_input(m->g, m->in));
	const ir_tensor *to = ir_graph_tensor(m->g, ir_graph_output(m->g, m->out));
	int64_t ns = ir_shape_numel(&ti->shape);
	int rc = ir_exec_set_input_f32(m->e, m->x, x, per, &d);
	if (!rc && first) {
		memset(tmp, 0, sizeof(float) * (size_t)ns);
		rc = ir_exec_set_input_f32(m->e, m->in, tmp, ns, &d);
	} else if (!rc && ti->dtype == to->dtype) {
		size_t nb;
		const void *y = ir_exec_output(m->e, m->out, &nb);
		memcpy(tmp, y, nb);	/* the executor's buffers are its own */
		rc = ir_exec_set_input(m->e, m->in, tmp, nb, &d);
	} else if (!rc) {
		for (int64_t j = 0; j < ns; j++)
			tmp[j] = (float)out_val(m->g, m->e, m->out, j);
		rc = ir_exec_set_input_f32(m->e, m->in, tmp, ns, &d);
	}
	if (rc || ir_exec_run(m->e, &d))
		return cli_diag(m->g, NULL, &d), 1;
	return 0;
}

static int stream(const char *qpath, const char *fpath, const char *set, const char *pair)
{
	stream_model q = {0}, f = {0};
	int n = 0, rc = 1;
	npy_array *a = NULL;
	float *tmp = NULL;
	if (stream_open(&q, qpath, pair) || stream_open(&f, fpath, pair))
		goto done;
	a = load(set, &n);
	const npy_array *x = NULL, *lab = NULL, *ref = NULL;
	for (int i = 0; a && i < n; i++)
		if (a[i].name && !strcmp(a[i].name, "x"))
			x = &a[i];
		else if (a[i].name && !strcmp(a[i].name, "labels"))
			lab = &a[i];
		else if (a[i].name && !strcmp(a[i].name, "logits"))
			ref = &a[i];
	int64_t per = ir_shape_numel(&ir_graph_tensor(f.g, ir_graph_input(f.g, f.x))->shape);
	if (!x || x->dtype != IR_DTYPE_F32 || x->shape.rank < 2 ||
	    ir_shape_numel(&x->shape) != x->shape.dim[0] * x->shape.dim[1] * per) {
		cli_error(set, "expected x: float32 [N, T, %lld values]", (long long)per);
		goto done;
	}
	int64_t ns = ir_shape_numel(&ir_graph_tensor(f.g, ir_graph_input(f.g, f.in))->shape);
	int64_t nc = ir_shape_numel(&ir_graph_tensor(f.g, ir_graph_output(f.g, 0))->shape);
	if ((lab && (lab->dtype != IR_DTYPE_I64 || ir_shape_numel(&lab->shape) != x->shape.dim[0])) ||
	    (ref && (ref->dtype != IR_DTYPE_F32 || ir_shape_numel(&ref->shape) != x->shape.dim[0] * nc))) {
		cli_error(set, "expected labels: int64 [N] and logits: float32 [N, %lld]", (long long)nc);
		goto done;
	}
	if (!(tmp = malloc(sizeof(float) * (size_t)(ns + 1) * 2)))
		goto done;
	double ref2 = 0, err2 = 0, maxerr = 0;
	int64_t agree = 0, frames = 0, qright = 0, fright = 0;
	for (int64_t s = 0; s < x->shape.dim[0]; s++)
		for (int64_t k = 0; k < x->shape.dim[1]; k++) {
			const float *xf = (const float *)x->data + (s * x->shape.dim[1] + k) * per;
			if (stream_step(&q, xf, per, tmp, k == 0) || stream_step(&f, xf, per, tmp, k == 0))
				goto done;
			int64_t bq = 0, bf = 0;
			for (int64_t c = 0; c < nc; c++) {
				double vq = out_val(q.g, q.e, 0, c), vf = out_val(f.g, f.e, 0, c);
				ref2 += vf * vf;
				err2 += (vq - vf) * (vq - vf);
				bq = vq > out_val(q.g, q.e, 0, bq) ? c : bq;
				bf = vf > out_val(f.g, f.e, 0, bf) ? c : bf;
			}
			agree += bq == bf;
			frames++;
			if (k + 1 < x->shape.dim[1])
				continue;
			if (lab) {
				qright += bq == ((const int64_t *)lab->data)[s];
				fright += bf == ((const int64_t *)lab->data)[s];
			}
			for (int64_t c = 0; ref && c < nc; c++)
				maxerr = fmax(maxerr, fabs(out_val(f.g, f.e, 0, c) - ((const float *)ref->data)[s * nc + c]));
		}
	printf("%.2f %lld %lld", err2 > 0 ? 10 * log10(ref2 / err2) : 999.0, (long long)agree, (long long)frames);
	if (lab)
		printf(" %lld %lld", (long long)qright, (long long)fright);
	if (ref)
		printf(" %.3g", maxerr);
	printf("\n");
	rc = 0;
done:
	free(tmp);
	if (a)
		npz_free(a, n);
	ir_exec_free(q.e);
	ir_exec_free(f.e);
	ir_graph_free(q.g);
	ir_graph_free(f.g);
	return rc;
}

int main(int argc, char **argv)
{
	cli_init("npu_eval", argc, argv);
	if (argc == 5 && !strcmp(argv[1], "--diff"))
		return diff(argv[2], argv[3], argv[4]);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "--sample"))
		return sample(argv[2], argv[3], argv[4], argc == 6 ? argv[5] : "x");
	if (argc == 6 && !strcmp(argv[1], "--stream"))
		return stream(argv[2], argv[3], argv[4], argv[5]);
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
