/* eval.c - data sets and accuracy metrics (eval.h). */
#include "eval/eval.h"
#include "ir_cli.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int fail(ir_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void labels_free(struct ev_labels *l);
static int run_meters(const ev_set *s, const ir_graph *g, const ev_opts *o, const float *out, int64_t per,
		      ev_result *r, ir_diag *d);
static int fail(ir_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	va_end(ap);
	d->node = d->tensor = -1;
	return -1;
}

static int read_whole(const char *path, uint8_t **buf, size_t *size, ir_diag *d)
{
	const char *why;
	FILE *f = ir_fopen_regular(path, &why);
	if (!f)
		return fail(d, "%s: %s", path, why);
	size_t cap = 1 << 16, n = 0;
	uint8_t *b = malloc(cap);
	while (b) {
		n += fread(b + n, 1, cap - n, f);
		if (n < cap)
			break;
		uint8_t *nb = cap > SIZE_MAX / 2 ? NULL : realloc(b, cap * 2);
		if (!nb) {
			free(b);
			b = NULL;
			break;
		}
		b = nb;
		cap *= 2;
	}
	int err = ferror(f);
	fclose(f);
	if (!b || err) {
		free(b);
		return fail(d, "%s: %s", path, b ? "read error" : "out of memory");
	}
	*buf = b;
	*size = n;
	return 0;
}

/* Keep the arrays of one more file. */
static npy_array *add_file(ev_set *s, const char *path, int *n, ir_diag *d)
{
	uint8_t *buf = NULL;
	size_t size = 0;
	bool npz;
	if (read_whole(path, &buf, &size, d))
		return NULL;
	npy_array *a = npy_read_any(buf, size, n, &npz, d);
	free(buf);
	if (!a) {
		char m[sizeof d->msg];
		snprintf(m, sizeof m, "%s", d->msg);
		fail(d, "%s: %s", path, m);
		return NULL;
	}
	npy_array **f = realloc(s->files, sizeof *f * (size_t)(s->nfiles + 1));
	int *nf = realloc(s->nfile, sizeof *nf * (size_t)(s->nfiles + 1));
	if (f)
		s->files = f;
	if (nf)
		s->nfile = nf;
	if (!f || !nf) {
		npz_free(a, *n);
		fail(d, "out of memory");
		return NULL;
	}
	s->files[s->nfiles] = a;
	s->nfile[s->nfiles++] = *n;
	return a;
}

static bool is_state(const ev_opts *o, const char *name)
{
	for (int i = 0; i < o->nstate; i++)
		if (!strcmp(o->state[i].in, name))
			return true;
	return false;
}

static bool is_state_out(const ev_opts *o, const char *name)
{
	for (int i = 0; i < o->nstate; i++)
		if (!strcmp(o->state[i].out, name))
			return true;
	return false;
}

static const npy_array *find(const npy_array *a, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (a[i].name && !strcmp(a[i].name, name))
			return &a[i];
	return NULL;
}

/* The array for data input j of a file's arrays. */
static const npy_array *input_array(const ev_set *s, const ir_graph *g, int j, const npy_array *a, int n)
{
	const char *name = ir_graph_tensor(g, ir_graph_input(g, s->xin[j]))->name;
	if (n == 1 && !a[0].name)
		return s->nx == 1 ? &a[0] : NULL;
	const npy_array *r = find(a, n, name);
	if (!r && s->nx == 1)
		r = find(a, n, "x");
	return r;
}

static int set_alloc(ev_set *s, int n, ir_diag *d)
{
	s->n = n;
	s->x = calloc((size_t)n * (size_t)s->nx + 1, sizeof *s->x);
	if (!s->x)
		return fail(d, "out of memory");
	return 0;
}

static int take_labels(ev_set *s, int at, const npy_array *l, int64_t count, const char *file, ir_diag *d)
{
	if (!l)
		return 0;
	if (l->dtype == IR_DTYPE_F32 || l->dtype == IR_DTYPE_F16 || l->dtype == IR_DTYPE_BF16 ||
	    ir_shape_numel(&l->shape) != count)
		return fail(d, "%s: labels: expected %lld integers, not %s with %lld values", file, (long long)count,
			    ir_dtype_name(l->dtype), (long long)ir_shape_numel(&l->shape));
	if (!s->labels && !(s->labels = calloc((size_t)s->n + 1, sizeof *s->labels)))
		return fail(d, "out of memory");
	for (int64_t i = 0; i < count; i++)
		s->labels[at + i] = (int64_t)ir_elem_get(l->data, l->dtype, i);
	return 0;
}

/* Reference outputs of sample at.. (count of them) from arrays a. */
static int take_refs(ev_set *s, const ir_graph *g, int at, const npy_array *a, int n, int64_t count,
		     const char *file, bool only_one, const ev_opts *eo, ir_diag *d)
{
	int no = ir_graph_output_count(g), want = 0;
	const npy_array **r = calloc((size_t)no + 1, sizeof *r);
	if (!r)
		return fail(d, "out of memory");
	int found = 0;
	for (int o = 0; o < no; o++) {
		if (is_state_out(eo, ir_graph_tensor(g, ir_graph_output(g, o))->name))
			continue;	/* state fed back: not compared */
		want++;
		r[o] = find(a, n, ir_graph_tensor(g, ir_graph_output(g, o))->name);
		if (!r[o] && o == 0)
			r[o] = find(a, n, "logits");
		if (!r[o] && o == 0 && no == 1 && only_one) {
			for (int i = 0; i < n; i++)
				if (a[i].name && strcmp(a[i].name, "labels") && strcmp(a[i].name, "label"))
					r[o] = r[o] ? NULL : &a[i];
		}
		found += r[o] != NULL;
	}
	int rc = 0;
	if (found && found < want) {
		for (int o = 0; o < no && !rc; o++)
			if (!r[o] && !is_state_out(eo, ir_graph_tensor(g, ir_graph_output(g, o))->name))
				rc = fail(d, "%s: no reference for output '%s'", file,
					  ir_graph_tensor(g, ir_graph_output(g, o))->name);
	}
	if (found && found == want && !rc) {
		if (!s->ref) {
			s->nref = no;
			s->refper = calloc((size_t)no, sizeof *s->refper);
			s->ref = calloc((size_t)s->n * (size_t)no + 1, sizeof *s->ref);
			if (!s->refper || !s->ref)
				rc = fail(d, "out of memory");
			for (int o = 0; o < no && !rc; o++)
				s->refper[o] = ir_shape_numel(&ir_graph_tensor(g, ir_graph_output(g, o))->shape);
		}
		for (int o = 0; o < no && !rc; o++) {
			if (!r[o])
				continue;
			if (r[o]->dtype != IR_DTYPE_F32 || ir_shape_numel(&r[o]->shape) != count * s->refper[o])
				rc = fail(d, "%s: reference '%s': expected float32 with %lld values, not %s with %lld",
					  file, r[o]->name, (long long)(count * s->refper[o]),
					  ir_dtype_name(r[o]->dtype), (long long)ir_shape_numel(&r[o]->shape));
			for (int64_t i = 0; i < count && !rc; i++)
				s->ref[(at + i) * no + o] = (const float *)r[o]->data + i * s->refper[o];
		}
	}
	free(r);
	return rc;
}

static int parse_sample_name(const char *nm, long *k, const char *suffix)
{
	if (strncmp(nm, "sample", 6))
		return -1;
	char *end;
	errno = 0;
	if (nm[6] < '0' || nm[6] > '9')
		return -1;
	*k = strtol(nm + 6, &end, 10);
	if (errno || strcmp(end, suffix) || *k > 100000000)
		return -1;
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

static int load_dir(ev_set *s, const char *path, const ir_graph *g, const ev_opts *eo, ir_diag *d)
{
	DIR *dir = opendir(path);
	if (!dir)
		return fail(d, "%s: %s", path, strerror(errno));
	long *ks = NULL, k;
	int n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (parse_sample_name(e->d_name, &k, "_inputs.npz"))
			continue;
		if (n == cap) {
			long *nk = realloc(ks, sizeof *nk * (size_t)(cap = cap ? cap * 2 : 64));
			if (!nk) {
				closedir(dir);
				free(ks);
				return fail(d, "out of memory");
			}
			ks = nk;
		}
		ks[n++] = k;
	}
	closedir(dir);
	if (!n) {
		free(ks);
		return fail(d, "%s: no sampleN_inputs.npz files in the directory", path);
	}
	qsort(ks, (size_t)n, sizeof *ks, cmp_long);
	int rc = set_alloc(s, n, d);
	size_t plen = strlen(path) + 64;
	char *fn = malloc(plen);
	if (!fn && !rc)
		rc = fail(d, "out of memory");
	bool any_out = false;
	int nlab = 0;		/* samples with a label */
	for (int i = 0; i < n && !rc; i++) {
		int na;
		if (i && ks[i] == ks[i - 1]) {
			rc = fail(d, "%s: sample%ld_inputs.npz twice (leading zeros?)", path, ks[i]);
			break;
		}
		snprintf(fn, plen, "%s/sample%ld_inputs.npz", path, ks[i]);
		const npy_array *a = add_file(s, fn, &na, d);
		if (!a) {
			rc = -1;
			break;
		}
		for (int j = 0; j < s->nx && !rc; j++) {
			const npy_array *x = input_array(s, g, j, a, na);
			const char *nm = ir_graph_tensor(g, ir_graph_input(g, s->xin[j]))->name;
			if (!x)
				rc = fail(d, "%s: no array for input '%s'", fn, nm);
			else if (x->dtype != IR_DTYPE_F32 || ir_shape_numel(&x->shape) != s->xper[j])
				rc = fail(d, "%s: input '%s': expected float32 with %lld values, not %s with %lld", fn, nm,
					  (long long)s->xper[j], ir_dtype_name(x->dtype),
					  (long long)ir_shape_numel(&x->shape));
			else
				s->x[i * s->nx + j] = x->data;
		}
		const npy_array *lab = find(a, na, "labels") ? find(a, na, "labels") : find(a, na, "label");
		if (!rc && lab) {
			rc = take_labels(s, i, lab, 1, fn, d);
			nlab++;
		}
		snprintf(fn, plen, "%s/sample%ld_outputs.npz", path, ks[i]);
		struct stat st;
		if (rc || stat(fn, &st)) {
			if (!rc && any_out)
				rc = fail(d, "%s: missing (other samples have outputs)", fn);
			continue;
		}
		if (i && !any_out) {
			rc = fail(d, "%s/sample%ld_outputs.npz: missing (other samples have outputs)", path, ks[0]);
			break;
		}
		any_out = true;
		const npy_array *o = add_file(s, fn, &na, d);
		if (!o) {
			rc = -1;
			break;
		}
		if (!lab && (lab = find(o, na, "labels") ? find(o, na, "labels") : find(o, na, "label"))) {
			rc = take_labels(s, i, lab, 1, fn, d);
			nlab++;
		}
		if (!rc)
			rc = take_refs(s, g, i, o, na, 1, fn, true, eo, d);
		if (!rc && !s->ref)
			rc = fail(d, "%s: no array for output '%s'", fn, ir_graph_tensor(g, ir_graph_output(g, 0))->name);
	}
	if (!rc && nlab && nlab < n)
		rc = fail(d, "%s: labels in %d of the %d samples (all or none)", path, nlab, n);
	free(fn);
	free(ks);
	return rc;
}

static int load_file(ev_set *s, const char *path, const ir_graph *g, const ev_opts *eo, ir_diag *d)
{
	bool stream = eo->nstate > 0;
	int na;
	const npy_array *a = add_file(s, path, &na, d);
	if (!a)
		return -1;
	int64_t n = -1, t = 1;
	const npy_array **x = calloc((size_t)s->nx + 1, sizeof *x);
	if (!x)
		return fail(d, "out of memory");
	int rc = 0;
	for (int j = 0; j < s->nx && !rc; j++) {
		const char *nm = ir_graph_tensor(g, ir_graph_input(g, s->xin[j]))->name;
		x[j] = input_array(s, g, j, a, na);
		if (!x[j]) {
			rc = fail(d, "%s: no array for input '%s'", path, nm);
			break;
		}
		const ir_shape *sh = &x[j]->shape;
		int64_t numel = ir_shape_numel(sh);
		int64_t per = s->xper[j] * (stream ? (sh->rank >= 2 ? sh->dim[1] : 0) : 1);
		if (x[j]->dtype != IR_DTYPE_F32 || sh->rank < (stream ? 2 : 1) || per <= 0 ||
		    numel != sh->dim[0] * per || (n >= 0 && sh->dim[0] != n) ||
		    (stream && j && sh->dim[1] != t))
			rc = fail(d, "%s: input '%s': expected float32 [N, %s%lld values]%s, not %s with %lld values", path,
				  nm, stream ? "T, " : "", (long long)s->xper[j],
				  n >= 0 ? " with the other inputs' N (and T)" : "", ir_dtype_name(x[j]->dtype),
				  (long long)numel);
		n = sh->dim[0];
		if (stream)
			t = sh->dim[1];
	}
	if (!rc && (n <= 0 || n > 100000000))
		rc = fail(d, "%s: no samples", path);
	if (!rc)
		rc = set_alloc(s, (int)n, d);
	s->frames = (int)t;
	for (int j = 0; j < s->nx && !rc; j++)
		for (int64_t i = 0; i < n; i++)
			s->x[i * s->nx + j] = (const float *)x[j]->data + i * t * s->xper[j];
	free(x);
	if (!rc)
		rc = take_labels(s, 0, find(a, na, "labels"), n, path, d);
	if (!rc)
		rc = take_refs(s, g, 0, a, na, n, path, false, eo, d);
	return rc;
}

static int set_load(ev_set *s, const char *path, const ir_graph *g, const ev_opts *o, ir_diag *d)
{
	memset(s, 0, sizeof *s);
	s->frames = 1;
	int ni = ir_graph_input_count(g);
	s->xin = calloc((size_t)ni + 1, sizeof *s->xin);
	s->xper = calloc((size_t)ni + 1, sizeof *s->xper);
	if (!s->xin || !s->xper)
		return fail(d, "out of memory");
	for (int i = 0; i < o->nstate; i++) {
		bool in = false, out = false;
		for (int k = 0; k < ni; k++)
			in |= !strcmp(ir_graph_tensor(g, ir_graph_input(g, k))->name, o->state[i].in);
		for (int k = 0; k < ir_graph_output_count(g); k++)
			out |= !strcmp(ir_graph_tensor(g, ir_graph_output(g, k))->name, o->state[i].out);
		if (!in || !out)
			return fail(d, "--stream %s=%s: '%s' is no %s of the graph", o->state[i].in, o->state[i].out,
				    in ? o->state[i].out : o->state[i].in, in ? "output" : "input");
	}
	for (int i = 0; i < ni; i++) {
		const ir_tensor *t = ir_graph_tensor(g, ir_graph_input(g, i));
		if (is_state(o, t->name))
			continue;
		s->xin[s->nx] = i;
		s->xper[s->nx++] = ir_shape_numel(&t->shape);
	}
	if (!s->nx)
		return fail(d, "the graph has no data input");
	struct stat st;
	if (stat(path, &st))
		return fail(d, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		if (o->nstate)
			return fail(d, "%s: stream mode needs one .npz of sequences, not a directory", path);
		return load_dir(s, path, g, o, d);
	}
	return load_file(s, path, g, o, d);
}

/* Messages name files relative to path (the caller names path). */
int ev_set_load(ev_set *s, const char *path, const ir_graph *g, const ev_opts *o, ir_diag *d)
{
	if (!set_load(s, path, g, o, d))
		return 0;
	size_t n = strlen(path);
	if (n && !strncmp(d->msg, path, n) && (d->msg[n] == ':' || d->msg[n] == '/')) {
		const char *rest = d->msg + n + (d->msg[n] == ':' && d->msg[n + 1] == ' ' ? 2 : 1);
		memmove(d->msg, rest, strlen(rest) + 1);
	}
	return -1;
}

void ev_set_free(ev_set *s)
{
	for (int i = 0; i < s->nfiles; i++)
		npz_free(s->files[i], s->nfile[i]);
	free(s->files);
	free(s->nfile);
	free(s->xin);
	free(s->xper);
	free(s->x);
	free(s->labels);
	free(s->refper);
	free(s->ref);
	free(s->own_ref);
	free(s->own_x);
	for (int i = 0; s->tlabels && i < s->n; i++)
		labels_free(&s->tlabels[i]);
	free(s->tlabels);
	memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------- running */

typedef struct {
	const ir_graph *g;
	ir_exec *e;
	float *tmp;		/* state fed back */
	const char *cmd;	/* ev_opts.cmd: the outputs come from it */
	char *dir;		/* its scratch directory */
	npy_array **arr;	/* per output: the array it wrote */
	int *narr;
} runner;

typedef struct {
	const ev_set *s;
	const ir_graph *g, *ref;
	const ev_opts *o;
	ev_acc *acc;
	float *capture;		/* ev_set_capture: outputs per sample */
	int64_t capper;
	float *mout;		/* plugin metrics: last frame's outputs per sample */
	pthread_mutex_t mu;
	int next, done, failed;
	ir_diag d;
	double last;
} job;

/* Output i of r as a real value (integers dequantized with the tensor's scale). */
static double out_val(const runner *r, int i, int64_t j)
{
	const ir_tensor *t = ir_graph_tensor(r->g, ir_graph_output(r->g, i));
	double v = ir_elem_get(r->cmd ? r->arr[i]->data : ir_exec_output(r->e, i, NULL), t->dtype, j);
	if (t->quant && t->quant->n == 1 && t->dtype != IR_DTYPE_F32 && t->dtype != IR_DTYPE_F16 &&
	    t->dtype != IR_DTYPE_BF16)
		v = (v - t->quant->zero_point[0]) * t->quant->scale[0];
	return v;
}

static int runner_open(runner *r, const ir_graph *g, const char *cmd, ir_diag *d)
{
	r->g = g;
	if (cmd) {
		const char *tmp = getenv("TMPDIR");
		size_t n = strlen(tmp && *tmp ? tmp : "/tmp") + 20;
		int no = ir_graph_output_count(g);
		if (!(r->dir = malloc(n)) || !(r->arr = calloc((size_t)no + 1, sizeof *r->arr)) ||
		    !(r->narr = calloc((size_t)no + 1, sizeof *r->narr)))
			return fail(d, "out of memory");
		snprintf(r->dir, n, "%s/npu-eval.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(r->dir)) {
			free(r->dir);
			r->dir = NULL;
			return fail(d, "--cmd: a scratch directory: %s", strerror(errno));
		}
		r->cmd = cmd;
	}
	int64_t mx = 1;
	for (int i = 0; i < ir_graph_input_count(g); i++) {
		int64_t n = ir_shape_numel(&ir_graph_tensor(g, ir_graph_input(g, i))->shape);
		mx = n > mx ? n : mx;
	}
	/* 8 bytes a value: room for any dtype fed back as is */
	if (!(r->tmp = calloc((size_t)mx, 8)))
		return fail(d, "out of memory");
	if (!(r->e = ir_exec_new(g, IR_MODE_F32, 1, d)))
		return -1;
	return 0;
}

/* Remove the files of directory p (one level below too), then p. */
static void remove_dir(const char *p, int depth)
{
	DIR *dir = opendir(p);
	char f[4200];
	for (struct dirent *e; dir && (e = readdir(dir));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(f, sizeof f, "%s/%s", p, e->d_name);
		if (unlink(f) && depth < 1)
			remove_dir(f, depth + 1);
	}
	if (dir)
		closedir(dir);
	rmdir(p);
}

static void runner_close(runner *r)
{
	ir_exec_free(r->e);
	free(r->tmp);
	for (int i = 0; r->arr && i < ir_graph_output_count(r->g); i++)
		if (r->arr[i])
			npz_free(r->arr[i], r->narr[i]);
	free(r->arr);
	free(r->narr);
	if (r->dir)
		remove_dir(r->dir, 0);
	free(r->dir);
}

/* Sample smp through the command: each graph input written as
 * DIR/inK.npy (float32, one sample), "CMD run DIR/out DIR/in0.npy ..."
 * run by sh (its standard output to standard error), and each output
 * read back from DIR/out/NAME.npy ('/' in NAME as '_'), as npu_host's
 * run mode writes them (share/npu/examples/npu_host.c). */
static int run_cmd(runner *r, const ev_set *s, int smp, ir_diag *d)
{
	const ir_graph *g = r->g;
	int ni = ir_graph_input_count(g), no = ir_graph_output_count(g), rc = -1, st;
	size_t dl = strlen(r->dir) + 8;
	char *script = malloc(strlen(r->cmd) + 8), **argv = calloc((size_t)ni + 8, sizeof *argv);
	if (!script || !argv) {
		free(script);
		free(argv);
		return fail(d, "out of memory");
	}
	sprintf(script, "%s \"$@\"", r->cmd);
	argv[0] = "sh", argv[1] = "-c", argv[2] = script, argv[3] = "sh", argv[4] = "run";
	if (!(argv[5] = malloc(dl)))
		goto out;
	snprintf(argv[5], dl, "%s/out", r->dir);
	if (s->nx != ni) {
		fail(d, "--cmd: every graph input needs data (%d of %d have)", s->nx, ni);
		goto out;
	}
	for (int j = 0; j < s->nx; j++) {
		const ir_tensor *t = ir_graph_tensor(g, ir_graph_input(g, s->xin[j]));
		npy_array a = {.dtype = IR_DTYPE_F32, .shape = t->shape, .data = (void *)s->x[smp * s->nx + j],
			       .nbytes = (size_t)s->xper[j] * sizeof(float)};
		uint8_t *w = NULL;
		size_t wn = 0;
		char *path = argv[6 + s->xin[j]] = malloc(dl + 16);
		if (!path) {
			fail(d, "out of memory");
			goto out;
		}
		snprintf(path, dl + 16, "%s/in%d.npy", r->dir, s->xin[j]);
		if (npy_write_mem(&a, &w, &wn, d))
			goto out;
		FILE *f = fopen(path, "wb");
		bool bad = !f || fwrite(w, 1, wn, f) != wn;
		if (f && fclose(f))
			bad = true;
		free(w);
		if (bad) {
			fail(d, "%s: %s", path, strerror(errno));
			goto out;
		}
	}
	posix_spawn_file_actions_t fa;
	pid_t pid;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	int e = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e) {
		fail(d, "--cmd: /bin/sh: %s", strerror(e));
		goto out;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fail(d, "--cmd '%s' failed on sample %d (%s %d)", r->cmd, smp, WIFEXITED(st) ? "exit status" : "signal",
		     WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		goto out;
	}
	for (int i = 0; i < no; i++) {
		const ir_tensor *t = ir_graph_tensor(g, ir_graph_output(g, i));
		char path[4200];
		uint8_t *buf;
		size_t size;
		bool npz;
		int n = snprintf(path, sizeof path, "%s/", argv[5]);
		for (const char *c = t->name; *c && n < (int)sizeof path - 5; c++)
			path[n++] = *c == '/' ? '_' : *c;
		snprintf(path + n, sizeof path - (size_t)n, ".npy");
		if (r->arr[i])
			npz_free(r->arr[i], r->narr[i]);
		r->arr[i] = NULL;
		if (read_whole(path, &buf, &size, d)) {
			fail(d, "--cmd '%s' wrote no OUTDIR/%s on sample %d", r->cmd, path + strlen(argv[5]) + 1, smp);
			goto out;
		}
		r->arr[i] = npy_read_any(buf, size, &r->narr[i], &npz, d);
		free(buf);
		unlink(path);
		if (!r->arr[i])
			goto out;
		if (r->arr[i]->dtype != t->dtype || ir_shape_numel(&r->arr[i]->shape) != ir_shape_numel(&t->shape)) {
			fail(d, "--cmd: %s: %s [%lld values], the graph's output '%s' is %s [%lld values]", path,
			     npy_dtype_name(r->arr[i]->dtype), (long long)ir_shape_numel(&r->arr[i]->shape), t->name,
			     npy_dtype_name(t->dtype), (long long)ir_shape_numel(&t->shape));
			goto out;
		}
	}
	rc = 0;
out:
	for (int k = 5; k < ni + 6; k++)
		free(argv[k]);
	free(argv);
	free(script);
	return rc;
}

static int find_output(const ir_graph *g, const char *name)
{
	for (int k = 0; k < ir_graph_output_count(g); k++)
		if (!strcmp(ir_graph_tensor(g, ir_graph_output(g, k))->name, name))
			return k;
	return -1;
}

static int find_input(const ir_graph *g, const char *name)
{
	for (int k = 0; k < ir_graph_input_count(g); k++)
		if (!strcmp(ir_graph_tensor(g, ir_graph_input(g, k))->name, name))
			return k;
	return -1;
}

/* Frame f of sample s; the state outputs of the frame before fed back. */
static int runner_step(runner *r, const ev_set *s, const ev_opts *o, int smp, int f, ir_diag *d)
{
	const ir_graph *g = r->g;
	if (r->cmd)
		return run_cmd(r, s, smp, d);
	for (int j = 0; j < s->nx; j++) {
		const char *nm = ir_graph_tensor(g, ir_graph_input(g, s->xin[j]))->name;
		int in = find_input(g, nm);
		if (in < 0)
			return fail(d, "the graph has no input '%s'", nm);
		if (ir_exec_set_input_f32(r->e, in, s->x[smp * s->nx + j] + (int64_t)f * s->xper[j], s->xper[j], d))
			return -1;
	}
	for (int k = 0; k < o->nstate; k++) {
		int in = find_input(g, o->state[k].in), out = find_output(g, o->state[k].out);
		if (in < 0 || out < 0)
			return fail(d, "--stream %s=%s: no such input and output", o->state[k].in, o->state[k].out);
		const ir_tensor *ti = ir_graph_tensor(g, ir_graph_input(g, in));
		const ir_tensor *to = ir_graph_tensor(g, ir_graph_output(g, out));
		int64_t ns = ir_shape_numel(&ti->shape);
		if (ir_shape_numel(&to->shape) != ns)
			return fail(d, "--stream %s=%s: %lld values in, %lld out", o->state[k].in, o->state[k].out,
				    (long long)ns, (long long)ir_shape_numel(&to->shape));
		int rc;
		if (f == 0) {
			memset(r->tmp, 0, sizeof(float) * (size_t)ns);
			rc = ir_exec_set_input_f32(r->e, in, r->tmp, ns, d);
		} else if (ti->dtype == to->dtype) {
			size_t nb;
			const void *y = ir_exec_output(r->e, out, &nb);
			memcpy(r->tmp, y, nb);	/* the executor's buffers are its own */
			rc = ir_exec_set_input(r->e, in, r->tmp, nb, d);
		} else {
			for (int64_t j = 0; j < ns; j++)
				r->tmp[j] = (float)out_val(r, out, j);
			rc = ir_exec_set_input_f32(r->e, in, r->tmp, ns, d);
		}
		if (rc)
			return -1;
	}
	return ir_exec_run(r->e, d);
}

static int64_t argmax_exec(const runner *r, int64_t n)
{
	int64_t b = 0;
	double bv = out_val(r, 0, 0);
	for (int64_t c = 1; c < n; c++) {
		double v = out_val(r, 0, c);
		if (v > bv || (isnan(bv) && !isnan(v))) {
			b = c;
			bv = v;
		}
	}
	return b;
}

/* rank of the label among the scores (0 = best; ties count against) */
static int64_t label_rank_exec(const runner *r, int64_t n, int64_t label)
{
	if (label < 0 || label >= n)
		return n;
	double lv = out_val(r, 0, label);
	int64_t rank = 0;
	for (int64_t c = 0; c < n; c++)
		if (c != label && (out_val(r, 0, c) > lv || (c < label && out_val(r, 0, c) == lv)))
			rank++;
	return rank;
}

static void compare(ev_acc *a, double q, double r, const ev_opts *o)
{
	a->count++;
	if (!isfinite(q) || !isfinite(r)) {
		a->nan += isnan(q);
		a->inf += isinf(q);
		if (!(isnan(q) && isnan(r)) && !(isinf(q) && q == r)) {
			a->nonfinite++;
			a->mismatch++;
		}
		return;
	}
	double e = fabs(q - r);
	a->ref2 += r * r;
	a->q2 += q * q;
	a->dot += q * r;
	a->err2 += e * e;
	a->maxabs = e > a->maxabs ? e : a->maxabs;
	if (r != 0 && e / fabs(r) > a->maxrel)
		a->maxrel = e / fabs(r);
	if (e > o->atol + o->rtol * fabs(r))
		a->mismatch++;
}

static int run_sample(job *j, runner *q, runner *rf, int smp, ir_diag *d)
{
	const ev_set *s = j->s;
	const ev_opts *o = j->o;
	ev_acc *a = &j->acc[smp];
	memset(a, 0, sizeof *a);
	const ir_graph *g = j->g;
	int no = ir_graph_output_count(g);
	int64_t classes = ir_shape_numel(&ir_graph_tensor(g, ir_graph_output(g, 0))->shape);
	int k = o->topk > 0 ? o->topk : 5;
	for (int f = 0; f < s->frames; f++) {
		if (runner_step(q, s, o, smp, f, d) || (rf && runner_step(rf, s, o, smp, f, d)))
			return -1;
		a->frames++;
		bool last = f + 1 == s->frames;
		if (j->capture) {
			float *c = j->capture + (int64_t)smp * j->capper;
			for (int i = 0; i < no; i++) {
				int64_t n = ir_shape_numel(&ir_graph_tensor(g, ir_graph_output(g, i))->shape);
				for (int64_t e = 0; e < n; e++)
					*c++ = (float)out_val(q, i, e);
			}
			continue;
		}
		if (last && j->mout) {
			float *c = j->mout + (int64_t)smp * j->capper;
			for (int i = 0; i < no; i++) {
				int64_t n = ir_shape_numel(&ir_graph_tensor(g, ir_graph_output(g, i))->shape);
				for (int64_t e = 0; e < n; e++)
					*c++ = (float)out_val(q, i, e);
			}
		}
		if (rf) {
			for (int i = 0; i < no; i++) {
				if (is_state_out(o, ir_graph_tensor(g, ir_graph_output(g, i))->name))
					continue;
				int64_t n = ir_shape_numel(&ir_graph_tensor(g, ir_graph_output(g, i))->shape);
				for (int64_t e = 0; e < n; e++)
					compare(a, out_val(q, i, e), out_val(rf, i, e), o);
			}
			a->agree += argmax_exec(q, classes) == argmax_exec(rf, classes);
			a->compared_frames++;
		} else if (s->ref && last) {
			int64_t qa = argmax_exec(q, classes), ra = 0;
			for (int i = 0; i < no; i++) {
				const float *r = s->ref[(int64_t)smp * s->nref + i];
				if (!r)
					continue;
				for (int64_t e = 0; e < s->refper[i]; e++)
					compare(a, out_val(q, i, e), r[e], o);
			}
			const float *r0 = s->ref[(int64_t)smp * s->nref];
			for (int64_t c = 1; c < classes; c++)
				ra = r0[c] > r0[ra] ? c : ra;
			a->agree += qa == ra;
			a->compared_frames++;
		}
		if (last && s->labels) {
			int64_t lab = s->labels[smp];
			int64_t rank = label_rank_exec(q, classes, lab);
			a->labelled++;
			a->top1 += rank == 0;
			a->topk += rank < k;
			if (rf)
				a->ref_top1 += argmax_exec(rf, classes) == lab;
			else if (s->ref) {
				const float *r0 = s->ref[(int64_t)smp * s->nref];
				int64_t ra = 0;
				for (int64_t c = 1; c < classes; c++)
					ra = r0[c] > r0[ra] ? c : ra;
				a->ref_top1 += ra == lab;
			}
		}
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *worker(void *arg)
{
	job *j = arg;
	runner q = {0}, rf = {0};
	ir_diag d = {{0}, -1, -1};
	int rc = runner_open(&q, j->g, j->o->cmd, &d);
	if (!rc && j->ref)
		rc = runner_open(&rf, j->ref, NULL, &d);
	for (;;) {
		pthread_mutex_lock(&j->mu);
		if (rc && !j->failed) {
			j->failed = 1;
			j->d = d;
		}
		int smp = j->failed ? j->s->n : j->next++;
		if (smp > 0 && !rc && j->o->progress) {
			double t = now();
			if (j->done == j->s->n || t - j->last >= 0.25) {
				j->last = t;
				fprintf(stderr, "\r%s: evaluating %d/%d samples%s", j->o->prog ? j->o->prog : "eval", j->done,
					j->s->n, j->done == j->s->n ? "\n" : "");
			}
		}
		pthread_mutex_unlock(&j->mu);
		if (smp >= j->s->n)
			break;
		rc = run_sample(j, &q, j->ref ? &rf : NULL, smp, &d);
		pthread_mutex_lock(&j->mu);
		j->done++;
		pthread_mutex_unlock(&j->mu);
	}
	runner_close(&q);
	if (j->ref)
		runner_close(&rf);
	return NULL;
}

static int run_job(job *j, ir_diag *d)
{
	int nt = j->o->threads > 1 ? j->o->threads : 1;
	nt = nt > j->s->n ? j->s->n : nt;
	pthread_t *th = calloc((size_t)nt, sizeof *th);
	if (!th)
		return fail(d, "out of memory");
	pthread_mutex_init(&j->mu, NULL);
	int started = 0;
	for (int i = 1; i < nt; i++, started++)
		if (pthread_create(&th[i], NULL, worker, j))
			break;
	worker(j);
	for (int i = 1; i <= started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&j->mu);
	free(th);
	if (j->o->progress && j->done == j->s->n && !j->failed)
		fprintf(stderr, "\r%s: evaluating %d/%d samples\n", j->o->prog ? j->o->prog : "eval", j->done, j->s->n);
	if (j->failed) {
		*d = j->d;
		return -1;
	}
	return 0;
}

int ev_set_capture(ev_set *s, const ir_graph *g, const ev_opts *o, ir_diag *d)
{
	if (o->nstate)
		return fail(d, "reference outputs of a streaming graph are not captured");
	int no = ir_graph_output_count(g);
	int64_t per = 0;
	for (int i = 0; i < no; i++)
		per += ir_shape_numel(&ir_graph_tensor(g, ir_graph_output(g, i))->shape);
	job j = {.s = s, .g = g, .o = o, .capper = per};
	if (!(j.capture = malloc(sizeof(float) * (size_t)(per * s->n + 1))) ||
	    !(j.acc = calloc((size_t)s->n, sizeof *j.acc))) {
		free(j.capture);
		return fail(d, "out of memory");
	}
	ev_opts quiet = *o;
	quiet.progress = false;
	j.o = &quiet;
	int rc = run_job(&j, d);
	free(j.acc);
	if (rc) {
		free(j.capture);
		return -1;
	}
	free(s->ref);
	free(s->refper);
	free(s->own_ref);
	s->own_ref = j.capture;
	s->nref = no;
	s->refper = calloc((size_t)no, sizeof *s->refper);
	s->ref = calloc((size_t)s->n * (size_t)no + 1, sizeof *s->ref);
	if (!s->refper || !s->ref)
		return fail(d, "out of memory");
	int64_t off = 0;
	for (int i = 0; i < no; i++) {
		s->refper[i] = ir_shape_numel(&ir_graph_tensor(g, ir_graph_output(g, i))->shape);
		for (int k = 0; k < s->n; k++)
			s->ref[k * no + i] = j.capture + k * per + off;
		off += s->refper[i];
	}
	return 0;
}

int ev_run(const ev_set *s, const ir_graph *g, const ir_graph *ref, const ev_opts *o, ev_result *r, ir_diag *d)
{
	memset(r, 0, sizeof *r);
	int no = ir_graph_output_count(g);
	if (o->cmd && o->nstate)
		return fail(d, "--cmd runs whole samples, not streams (--stream)");
	if (ref) {
		if (ir_graph_output_count(ref) != no)
			return fail(d, "the reference graph has %d outputs, the graph %d", ir_graph_output_count(ref), no);
		for (int i = 0; i < no; i++) {
			int64_t a = ir_shape_numel(&ir_graph_tensor(g, ir_graph_output(g, i))->shape);
			int64_t b = ir_shape_numel(&ir_graph_tensor(ref, ir_graph_output(ref, i))->shape);
			if (a != b)
				return fail(d, "output %d: %lld values, the reference's %lld", i, (long long)a, (long long)b);
		}
		for (int j = 0; j < s->nx; j++) {
			const char *nm = ir_graph_tensor(g, ir_graph_input(g, s->xin[j]))->name;
			if (find_input(ref, nm) < 0)
				return fail(d, "the reference graph has no input '%s'", nm);
		}
	} else if (s->ref && s->nref != no)
		return fail(d, "the data set has references for %d outputs, the graph has %d", s->nref, no);
	job j = {.s = s, .g = g, .ref = ref, .o = o};
	bool meters = false;
	if (o->nmeter > EV_MAX_METERS)
		return fail(d, "at most %d metrics", EV_MAX_METERS);
	for (int i = 0; i < o->nmeter; i++)
		meters |= o->meter[i].plugin != NULL;
	if (meters) {
		for (int i = 0; i < no; i++)
			j.capper += ir_shape_numel(&ir_graph_tensor(g, ir_graph_output(g, i))->shape);
		if (j.capper > ((int64_t)1 << 36) / (s->n + 1) ||
		    !(j.mout = malloc(sizeof(float) * (size_t)(j.capper * s->n + 1))))
			return fail(d, "out of memory keeping %d samples' outputs for the metrics", s->n);
	}
	if (!(j.acc = calloc((size_t)s->n, sizeof *j.acc))) {
		free(j.mout);
		return fail(d, "out of memory");
	}
	if (run_job(&j, d) || (meters && run_meters(s, g, o, j.mout, j.capper, r, d))) {
		free(j.acc);
		free(j.mout);
		return -1;
	}
	free(j.mout);
	ev_acc *t = &r->sum;
	for (int i = 0; i < s->n; i++) {	/* in sample order: the same sums for any thread count */
		const ev_acc *a = &j.acc[i];
		t->ref2 += a->ref2;
		t->err2 += a->err2;
		t->dot += a->dot;
		t->q2 += a->q2;
		t->maxabs = fmax(t->maxabs, a->maxabs);
		t->maxrel = fmax(t->maxrel, a->maxrel);
		t->count += a->count;
		t->mismatch += a->mismatch;
		t->nonfinite += a->nonfinite;
		t->nan += a->nan;
		t->inf += a->inf;
		t->top1 += a->top1;
		t->topk += a->topk;
		t->ref_top1 += a->ref_top1;
		t->agree += a->agree;
		t->frames += a->frames;
		t->labelled += a->labelled;
		t->compared_frames += a->compared_frames;
	}
	free(j.acc);
	r->samples = s->n;
	r->frames = (int)t->frames;
	r->classes = (int)ir_shape_numel(&ir_graph_tensor(g, ir_graph_output(g, 0))->shape);
	r->k = o->topk > 0 ? o->topk : 5;
	r->has_labels = s->labels != NULL;
	r->has_ref = ref || s->ref;
	if (r->has_ref) {
		r->cosine = t->ref2 > 0 && t->q2 > 0 ? t->dot / sqrt(t->ref2 * t->q2) : (t->err2 == 0 ? 1 : 0);
		if (t->nonfinite)
			r->sqnr_db = -INFINITY;
		else
			r->sqnr_db = t->err2 > 0 ? 10 * log10(t->ref2 / t->err2) : INFINITY;
		if (t->nonfinite) {
			r->cosine = -1;
			t->maxabs = t->maxrel = INFINITY;
		}
		r->mismatch_frac = t->count ? (double)t->mismatch / (double)t->count : 0;
		r->allclose = r->mismatch_frac <= o->ntol;
	}
	return 0;
}

int ev_metric(const ev_result *r, const char *name, double *v)
{
	const ev_acc *t = &r->sum;
	double lab = t->labelled ? (double)t->labelled : 1;
	if (r->has_labels && !strcmp(name, "top1"))
		*v = (double)t->top1 / lab;
	else if (r->has_labels && !strcmp(name, "topk"))
		*v = (double)t->topk / lab;
	else if (r->has_labels && r->has_ref && !strcmp(name, "ref_top1"))
		*v = (double)t->ref_top1 / lab;
	else if (r->has_ref && !strcmp(name, "agree_top1"))
		*v = t->compared_frames ? (double)t->agree / (double)t->compared_frames : 0;
	else if (r->has_ref && !strcmp(name, "cosine"))
		*v = r->cosine;
	else if (r->has_ref && !strcmp(name, "sqnr_db"))
		*v = r->sqnr_db;
	else if (r->has_ref && !strcmp(name, "max_abs_err"))
		*v = t->maxabs;
	else if (r->has_ref && !strcmp(name, "max_rel_err"))
		*v = t->maxrel;
	else if (r->has_ref && !strcmp(name, "mismatch"))
		*v = r->mismatch_frac;
	else if (r->has_ref && !strcmp(name, "allclose"))
		*v = r->allclose;
	else if (!strcmp(name, "nan"))
		*v = (double)t->nan;
	else if (!strcmp(name, "inf"))
		*v = (double)t->inf;
	else
		return -1;
	return 0;
}

/* JSON has no inf: +-1e999 (read back as +-inf by JSON readers that allow it, as npu-quant's report does) */
static void num(FILE *f, double v, bool json)
{
	if (isinf(v))
		fputs(json ? (v > 0 ? "1e999" : "-1e999") : (v > 0 ? "inf" : "-inf"), f);
	else if (isnan(v))
		fputs(json ? "null" : "nan", f);
	else
		fprintf(f, "%.9g", v);
}

/* With o->meter: the sample counts and those metrics only. */
static void print_meters(FILE *f, const ev_result *r, const ev_opts *o, bool json)
{
	if (json)
		fprintf(f, "{\n  \"samples\": %d,\n  \"frames\": %d,\n  \"metrics\": [", r->samples, r->frames);
	else
		fprintf(f, "samples %d\nframes %d\n", r->samples, r->frames);
	for (int i = 0; i < o->nmeter; i++) {
		const ev_meter *m = &o->meter[i];
		double v;
		bool have = !ev_meter_value(m, i, r, &v);
		if (json) {
			fprintf(f, "%s\n    {\"metric\": ", i ? "," : "");
			cli_json_str(f, m->spec);
			fputs(", \"value\": ", f);
			if (have)
				num(f, v, true);
			else
				fputs("null", f);
			if (m->plugin) {
				fputs(", \"report\": ", f);
				cli_json_str(f, r->mreport[i]);
			}
			fputs("}", f);
		} else {
			fprintf(f, "%s ", m->spec);
			if (have)
				num(f, v, false);
			else
				fputs("-", f);
			if (m->plugin && r->mreport[i][0])
				fprintf(f, "  # %s", r->mreport[i]);
			fputs("\n", f);
		}
	}
	if (json)
		fputs(o->nmeter ? "\n  ]\n}\n" : "]\n}\n", f);
}

void ev_print(FILE *f, const ev_result *r, const ev_opts *o, bool json)
{
	if (o->nmeter) {
		print_meters(f, r, o, json);
		return;
	}
	const ev_acc *t = &r->sum;
	const char *sep = json ? ",\n  " : "\n";
#define KEY(k) (json ? fprintf(f, "%s\"%s\": ", first ? "{\n  " : sep, k) : fprintf(f, "%s%s ", first ? "" : sep, k)), first = false
	bool first = true;
	KEY("samples");
	fprintf(f, "%d", r->samples);
	KEY("frames");
	fprintf(f, "%d", r->frames);
	if (r->has_labels) {
		KEY("top1");
		num(f, (double)t->top1 / (t->labelled ? (double)t->labelled : 1), json);
		KEY("top1_right");
		fprintf(f, "%lld", (long long)t->top1);
		char k[32];
		snprintf(k, sizeof k, "top%d", r->k);
		KEY(k);
		num(f, (double)t->topk / (t->labelled ? (double)t->labelled : 1), json);
		if (r->has_ref) {
			KEY("ref_top1");
			num(f, (double)t->ref_top1 / (t->labelled ? (double)t->labelled : 1), json);
			KEY("ref_top1_right");
			fprintf(f, "%lld", (long long)t->ref_top1);
		}
	}
	if (r->has_ref) {
		KEY("agree_top1");
		num(f, t->compared_frames ? (double)t->agree / (double)t->compared_frames : 0, json);
		KEY("agree_frames");
		fprintf(f, "%lld", (long long)t->agree);
		KEY("compared_frames");
		fprintf(f, "%lld", (long long)t->compared_frames);
		KEY("cosine");
		num(f, r->cosine, json);
		KEY("sqnr_db");
		num(f, r->sqnr_db, json);
		KEY("max_abs_err");
		num(f, t->maxabs, json);
		KEY("max_rel_err");
		num(f, t->maxrel, json);
		KEY("mismatch");
		num(f, r->mismatch_frac, json);
		KEY("mismatches");
		fprintf(f, "%lld", (long long)t->mismatch);
		KEY("compared");
		fprintf(f, "%lld", (long long)t->count);
		KEY("allclose");
		fputs(json ? (r->allclose ? "true" : "false") : (r->allclose ? "1" : "0"), f);
		if (json) {
			fprintf(f, "%s\"rtol\": ", sep);
			num(f, o->rtol, true);
			fprintf(f, "%s\"atol\": ", sep);
			num(f, o->atol, true);
			fprintf(f, "%s\"ntol\": ", sep);
			num(f, o->ntol, true);
		}
	}
	KEY("nan");
	fprintf(f, "%lld", (long long)t->nan);
	KEY("inf");
	fprintf(f, "%lld", (long long)t->inf);
	fputs(json ? "\n}\n" : "\n", f);
#undef KEY
}

int ev_compare_arrays(const npy_array *a, const npy_array *b, const ev_opts *o, ev_result *r, ir_diag *d)
{
	memset(r, 0, sizeof *r);
	int64_t n = ir_shape_numel(&a->shape);
	if (n != ir_shape_numel(&b->shape))
		return fail(d, "%lld values against %lld", (long long)n, (long long)ir_shape_numel(&b->shape));
	ev_acc *t = &r->sum;
	for (int64_t i = 0; i < n; i++)
		compare(t, ir_elem_get(a->data, a->dtype, i), ir_elem_get(b->data, b->dtype, i), o);
	r->samples = r->frames = 1;
	r->has_ref = true;
	r->cosine = t->ref2 > 0 && t->q2 > 0 ? t->dot / sqrt(t->ref2 * t->q2) : (t->err2 == 0 ? 1 : 0);
	r->sqnr_db = t->nonfinite ? -INFINITY : t->err2 > 0 ? 10 * log10(t->ref2 / t->err2) : INFINITY;
	if (t->nonfinite) {
		r->cosine = -1;
		t->maxabs = t->maxrel = INFINITY;
	}
	r->mismatch_frac = n ? (double)t->mismatch / (double)n : 0;
	r->allclose = r->mismatch_frac <= o->ntol;
	return 0;
}

/* ---------------------------------------------------------------- plugins */

static size_t pt_size(int dtype)
{
	switch (dtype) {
	case NPU_PT_F32: case NPU_PT_I32: return 4;
	case NPU_PT_I64: return 8;
	case NPU_PT_I8: case NPU_PT_U8: return 1;
	}
	return 0;
}

static double pt_get(const npu_plugin_tensor *t, int64_t i)
{
	switch (t->dtype) {
	case NPU_PT_F32: return ((const float *)t->data)[i];
	case NPU_PT_I32: return ((const int32_t *)t->data)[i];
	case NPU_PT_I64: return (double)((const int64_t *)t->data)[i];
	case NPU_PT_I8: return ((const int8_t *)t->data)[i];
	case NPU_PT_U8: return ((const uint8_t *)t->data)[i];
	}
	return 0;
}

/* Values of a plugin's tensor, -1 when its description is bad. */
static int64_t pt_numel(const npu_plugin_tensor *t)
{
	if (!pt_size(t->dtype) || t->ndim < 0 || t->ndim > NPU_PLUGIN_MAX_DIMS)
		return -1;
	int64_t n = 1;
	for (int i = 0; i < t->ndim; i++) {
		if (t->dims[i] < 0 || (t->dims[i] && n > ((int64_t)1 << 40) / t->dims[i]))
			return -1;
		n *= t->dims[i];
	}
	if (n && !t->data)
		return -1;
	return n;
}

static void labels_free(struct ev_labels *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->t[i].data);
	l->n = 0;
}

static const ir_plugin *find_plugin(int kind, const char *spec, char *name, size_t size, const char **args,
				    ir_diag *d)
{
	if (ir_plugin_spec(spec, name, size, args) || !*name) {
		fail(d, "'%s': expected NAME or NAME:ARGS", spec);
		return NULL;
	}
	const ir_plugin *p = ir_plugin_find(kind, name);
	if (!p) {
		char where[1024];
		fail(d, "no %s plugin '%s' (searched %s)", ir_plugin_kind_name(kind), name,
		     ir_plugin_where(where, sizeof where));
	}
	return p;
}

int ev_set_plugin(ev_set *s, const char *spec, const ir_graph *g, const ev_opts *o, ir_diag *d)
{
	char name[72];
	const char *args;
	memset(s, 0, sizeof *s);
	s->frames = 1;
	const ir_plugin *p = find_plugin(NPU_PLUGIN_DATASET, spec, name, sizeof name, &args, d);
	if (!p)
		return -1;
	s->plugin = p->desc->name;
	const npu_plugin_dataset *ds = p->desc->impl;
	/* the graph's data inputs, as set_load finds them */
	int ni = ir_graph_input_count(g);
	s->xin = calloc((size_t)ni + 1, sizeof *s->xin);
	s->xper = calloc((size_t)ni + 1, sizeof *s->xper);
	if (!s->xin || !s->xper)
		return fail(d, "out of memory");
	for (int i = 0; i < ni; i++) {
		const ir_tensor *t = ir_graph_tensor(g, ir_graph_input(g, i));
		if (is_state(o, t->name))
			continue;
		s->xin[s->nx] = i;
		s->xper[s->nx++] = ir_shape_numel(&t->shape);
	}
	if (!s->nx) {
		s->plugin = NULL;
		return fail(d, "the graph has no data input");
	}
	char err[512] = "";
	void *h = ds->open(args, err, sizeof err);
	if (!h)
		return fail(d, "%s", *err ? err : "open failed");
	int64_t *off = NULL;	/* [n * nx] offsets into own_x */
	size_t cap = 0, xcap = 0, xlen = 0;
	int n = 0, rc = 0, t = -1, with_labels = -1;
	npu_plugin_tensor in[64], lab[EV_MAX_LABELS];
	for (;;) {
		int n_in = 0, n_lab = 0;
		err[0] = 0;
		int r = ds->next(h, in, 64, &n_in, lab, EV_MAX_LABELS, &n_lab, err, sizeof err);
		if (r < 0) {
			rc = fail(d, "sample %d: %s", n, *err ? err : "next() failed");
			break;
		}
		if (r == 0)
			break;
		if (n >= 100000000) {
			rc = fail(d, "more than 100000000 samples");
			break;
		}
		if (n_in != s->nx || n_lab < 0 || n_lab > EV_MAX_LABELS) {
			rc = n_in != s->nx ? fail(d, "sample %d: %d inputs, the graph has %d data inputs", n, n_in, s->nx)
					   : fail(d, "sample %d: %d labels (at most %d)", n, n_lab, EV_MAX_LABELS);
			break;
		}
		if ((size_t)n == cap) {
			cap = cap ? 2 * cap : 256;
			int64_t *no = realloc(off, sizeof *no * cap * (size_t)s->nx);
			struct ev_labels *nl = realloc(s->tlabels, sizeof *nl * cap);
			if (no)
				off = no;
			if (nl)
				s->tlabels = nl;
			if (!no || !nl) {
				rc = fail(d, "out of memory");
				break;
			}
		}
		s->tlabels[n].n = 0;
		n++;
		for (int j = 0; j < s->nx && !rc; j++) {
			const char *nm = ir_graph_tensor(g, ir_graph_input(g, s->xin[j]))->name;
			int64_t numel = pt_numel(&in[j]);
			int64_t frames = numel > 0 && numel % s->xper[j] == 0 ? numel / s->xper[j] : 0;
			if (numel < 0)
				rc = fail(d, "sample %d: input %d: bad tensor (dtype, ndim, dims or no data)", n - 1, j);
			else if (!frames || (!o->nstate && frames != 1) || (t >= 0 && frames != t))
				rc = fail(d, "sample %d: input '%s': %lld values, expected %lld%s", n - 1, nm,
					  (long long)numel, (long long)s->xper[j] * (t > 0 ? t : 1),
					  o->nstate ? " times the frames of the other inputs" : "");
			else {
				t = (int)frames;
				if (xlen + (size_t)numel > xcap) {
					size_t c = xcap ? 2 * xcap : 1 << 16;
					while (c < xlen + (size_t)numel)
						c *= 2;
					float *nx = realloc(s->own_x, sizeof *nx * c);
					if (!nx) {
						rc = fail(d, "out of memory");
						break;
					}
					s->own_x = nx;
					xcap = c;
				}
				for (int64_t e = 0; e < numel; e++)
					s->own_x[xlen + (size_t)e] = (float)pt_get(&in[j], e);
				off[(size_t)(n - 1) * (size_t)s->nx + (size_t)j] = (int64_t)xlen;
				xlen += (size_t)numel;
			}
		}
		if (rc)
			break;
		if (with_labels >= 0 && (n_lab > 0) != with_labels) {
			rc = fail(d, "sample %d: %s labels where the samples before %s", n - 1, n_lab ? "has" : "has no",
				  with_labels ? "have" : "have none");
			break;
		}
		with_labels = n_lab > 0;
		struct ev_labels *l = &s->tlabels[n - 1];
		for (int k = 0; k < n_lab && !rc; k++) {
			int64_t numel = pt_numel(&lab[k]);
			if (numel < 0) {
				rc = fail(d, "sample %d: label %d: bad tensor (dtype, ndim, dims or no data)", n - 1, k);
				break;
			}
			l->t[k] = lab[k];
			size_t nb = (size_t)numel * pt_size(lab[k].dtype);
			if (!(l->t[k].data = malloc(nb ? nb : 1))) {
				rc = fail(d, "out of memory");
				break;
			}
			l->n = k + 1;
			memcpy(l->t[k].data, lab[k].data, nb);
		}
	}
	ds->close(h);
	s->n = n;
	s->frames = t > 0 ? t : 1;
	if (!rc && !n)
		rc = fail(d, "no samples");
	if (!rc)
		rc = set_alloc(s, n, d);
	for (int i = 0; i < n && !rc; i++)
		for (int j = 0; j < s->nx; j++)
			s->x[(size_t)i * (size_t)s->nx + (size_t)j] = s->own_x + off[(size_t)i * (size_t)s->nx + (size_t)j];
	free(off);
	/* a first label of one integer value: the class label of the builtin top-k */
	bool classes = !rc && with_labels > 0;
	for (int i = 0; i < n && classes; i++) {
		const npu_plugin_tensor *l = &s->tlabels[i].t[0];
		classes = l->dtype != NPU_PT_F32 && pt_numel(l) == 1;
	}
	if (classes && !(s->labels = calloc((size_t)n + 1, sizeof *s->labels)))
		rc = fail(d, "out of memory");
	for (int i = 0; i < n && classes && !rc; i++)
		s->labels[i] = (int64_t)pt_get(&s->tlabels[i].t[0], 0);
	if (!rc)
		s->plugin = NULL;	/* only failures name it */
	else if (!s->plugin)
		s->plugin = p->desc->name;
	return rc;
}

int ev_dataset_open(ev_set *s, const char *spec, const ir_graph *g, const ev_opts *o, ir_diag *d)
{
	struct stat st;
	memset(s, 0, sizeof *s);
	if (!stat(spec, &st))
		return ev_set_load(s, spec, g, o, d);
	char name[72];
	const char *args;
	if (!ir_plugin_spec(spec, name, sizeof name, &args) && *name && !ir_plugin_find(NPU_PLUGIN_DATASET, name)) {
		char where[1024];
		return fail(d, "'%s': no such file or directory, and no dataset plugin '%s' (searched %s)", spec, name,
			    ir_plugin_where(where, sizeof where));
	}
	return ev_set_plugin(s, spec, g, o, d);
}

static const char *const builtin_metrics[] = {
	"top1", "topk", "ref_top1", "agree_top1", "cosine", "sqnr_db", "max_abs_err", "max_rel_err",
	"mismatch", "allclose", "nan", "inf",
};

int ev_meter_parse(ev_meter *m, const char *spec, const ev_opts *o, ir_diag *d)
{
	memset(m, 0, sizeof *m);
	if (strlen(spec) >= sizeof m->spec)
		return fail(d, "metric '%.40s...': too long", spec);
	strcpy(m->spec, spec);
	m->args = "";
	char k[32];
	snprintf(k, sizeof k, "top%d", o->topk > 0 ? o->topk : 5);
	/* "topk" is the plugin of that name when there is one (the builtin is "topN") */
	bool plugin_topk = !strcmp(spec, "topk") && ir_plugin_find(NPU_PLUGIN_METRIC, "topk");
	for (size_t i = 0; i < sizeof builtin_metrics / sizeof *builtin_metrics && !plugin_topk; i++)
		if (!strcmp(spec, builtin_metrics[i]) || (!strcmp(spec, k) && !strcmp(builtin_metrics[i], "topk"))) {
			snprintf(m->name, sizeof m->name, "%s", builtin_metrics[i]);
			return 0;
		}
	const char *args;
	const ir_plugin *p = find_plugin(NPU_PLUGIN_METRIC, spec, m->name, sizeof m->name, &args, d);
	if (!p) {
		char where[1024];
		ir_plugin_where(where, sizeof where);
		if (!strchr(spec, ':') && !strncmp(spec, "top", 3) && spec[3] >= '0' && spec[3] <= '9')
			return fail(d, "metric '%s': the builtin top-k is %s (-k), and there is no metric plugin '%s' "
				    "(searched %s)", spec, k, spec, where);
		if (*m->name)
			return fail(d, "unknown metric '%s': no builtin figure (top1, %s, ref_top1, agree_top1, cosine, "
				    "sqnr_db, max_abs_err, max_rel_err, mismatch, allclose, nan, inf) and no metric plugin "
				    "of that name (searched %s)", m->name, k, where);
		return -1;
	}
	m->plugin = p->desc->impl;
	m->args = *args ? m->spec + (args - spec) : "";
	char err[512] = "";
	void *h = m->plugin->create(m->args, err, sizeof err);
	if (!h)
		return fail(d, "%s", *err ? err : "create() failed");
	m->plugin->destroy(h);
	return 0;
}

int ev_meter_value(const ev_meter *m, int i, const ev_result *r, double *v)
{
	if (!m->plugin)
		return ev_metric(r, m->name, v);
	if (i < 0 || i >= EV_MAX_METERS)
		return -1;
	*v = r->mvalue[i];
	return 0;
}

/* Plugin metrics over the outputs ev_run kept (out: [n * per] floats). */
static int run_meters(const ev_set *s, const ir_graph *g, const ev_opts *o, const float *out, int64_t per,
		      ev_result *r, ir_diag *d)
{
	int no = ir_graph_output_count(g);
	npu_plugin_tensor *ot = calloc((size_t)no + 1, sizeof *ot);
	if (!ot)
		return fail(d, "out of memory");
	for (int i = 0; i < no; i++) {
		const ir_shape *sh = &ir_graph_tensor(g, ir_graph_output(g, i))->shape;
		ot[i].dtype = NPU_PT_F32;
		ot[i].ndim = sh->rank < NPU_PLUGIN_MAX_DIMS ? sh->rank : NPU_PLUGIN_MAX_DIMS;
		for (int k = 0; k < ot[i].ndim; k++)
			ot[i].dims[k] = sh->dim[k];
	}
	int rc = 0;
	for (int mi = 0; mi < o->nmeter && !rc; mi++) {
		const ev_meter *m = &o->meter[mi];
		if (!m->plugin)
			continue;
		char err[512] = "";
		void *h = m->plugin->create(m->args, err, sizeof err);
		if (!h) {
			r->failed = m->name;
			rc = fail(d, "%s", *err ? err : "create() failed");
			break;
		}
		m->plugin->reset(h);
		for (int smp = 0; smp < s->n && !rc; smp++) {
			const float *y = out + (int64_t)smp * per;
			for (int i = 0; i < no; i++) {
				ot[i].data = (void *)y;
				y += ir_shape_numel(&ir_graph_tensor(g, ir_graph_output(g, i))->shape);
			}
			int64_t cls = s->labels ? s->labels[smp] : 0;
			npu_plugin_tensor one = {.dtype = NPU_PT_I64, .ndim = 0, .data = &cls};
			const npu_plugin_tensor *lab = s->tlabels ? s->tlabels[smp].t : s->labels ? &one : NULL;
			int nlab = s->tlabels ? s->tlabels[smp].n : s->labels ? 1 : 0;
			err[0] = 0;
			if (m->plugin->update(h, ot, no, lab, nlab, err, sizeof err)) {
				r->failed = m->name;
				rc = fail(d, "sample %d: %s", smp, *err ? err : "update() failed");
			}
		}
		if (!rc) {
			r->mvalue[mi] = m->plugin->compute(h);
			r->mreport[mi][0] = 0;
			if (m->plugin->report) {
				m->plugin->report(h, r->mreport[mi], sizeof r->mreport[mi]);
				r->mreport[mi][sizeof r->mreport[mi] - 1] = 0;
				r->mreport[mi][strcspn(r->mreport[mi], "\n")] = 0;
			}
		}
		m->plugin->destroy(h);
	}
	free(ot);
	return rc;
}
