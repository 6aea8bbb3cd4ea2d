/* npu_host.c - a tiny host program around an emitted model header.
 *
 * Build (NAME: the prefix given to npu-emit --name):
 *   npu-emit q.ir --name NAME -o npu_NAME.h
 *   cc -std=c99 -O2 -DNPU_HEADER='"npu_NAME.h"' -DNPU_MODEL=npu_NAME_model \
 *      -I. share/npu/examples/npu_host.c -o host -lm
 * Or, for a binary model (npu-emit --format bin), with the whole runtime:
 *   cc -std=c99 -O2 -Ishare/npu/runtime share/npu/examples/npu_host.c -o host -lm
 *   host MODEL.bin run|eval|bench ...
 * Use (one .npy per model input, in the model's input order):
 *   host run OUTDIR IN.npy...      one sample per input file (float32, or the
 *                                  input's own type); creates OUTDIR and
 *                                  writes OUTDIR/NAME.npy per output ('/' in
 *                                  names becomes '_')
 *   host [-k K] eval SAMPLES.npy... LABELS.npy
 *                                  first axis = samples; prints the top-1
 *                                  accuracy of output K (default 0) against
 *                                  int64 labels
 *   host bench IN.npy... N         runs N times after one warm-up run;
 *                                  prints "ms: MEDIAN (min MIN, max MAX)"
 *   host -w WEIGHTS.bin ...        the weights from a file (a header made
 *                                  with npu-emit --weights and built with
 *                                  -DNPU_NAME_WEIGHTS_ADDR=0)
 * Float inputs are converted to the model's input type (half, or quantized
 * with the input's scale) exactly as npu-run does.
 * Without POSIX (a bare-metal board with semihosting stdio, as in
 * tests/cross): run does not create OUTDIR and bench times with clock().
 * With -DNPU_HOST_HOOKS, run calls npu_host_before_run() and
 * npu_host_after_run() (the board's) around npu_run, e.g. to measure the
 * stack; with -DNPU_HOST_OPS also npu_host_after_op(i) after each op (run
 * calls npu_exec_op op by op), e.g. to count each op's instructions. */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/stat.h>
#include <unistd.h>
#endif
#ifdef NPU_HOST_HOOKS
void npu_host_before_run(void);
void npu_host_after_run(void);
#else
#define npu_host_before_run() ((void)0)
#define npu_host_after_run() ((void)0)
#endif
#ifdef NPU_HOST_OPS
void npu_host_after_op(unsigned i);
#endif

#ifdef NPU_HEADER
#define NPU_IMPLEMENTATION
#include NPU_HEADER
static const npu_model *mp = &NPU_MODEL;
#else
/* No header: the whole runtime (cc -I share/npu/runtime), and a binary
 * model (npu-emit --format bin) named by the first argument. */
#include "npu_rt.c"
static npu_model bin_model;
static const npu_model *mp = &bin_model;
#endif
#define M (*mp)

typedef struct {
	char descr[8];
	int rank;
	long shape[8];
	unsigned char *data;
	size_t nbytes;
	unsigned char *file;
} npy;

static int die(const char *msg, const char *arg)
{
	fprintf(stderr, "npu_host: %s%s%s\n", arg ? arg : "", arg ? ": " : "", msg);
	exit(1);
}

static size_t elem_size(const char *descr)
{
	return descr[2] == '8' ? 8 : descr[2] == '4' ? 4 : descr[2] == '2' ? 2 : 1;
}

/* A little-endian C-order .npy (version 1 or 2). */
static void npy_load(const char *path, npy *a)
{
	FILE *f = fopen(path, "rb");
	long size = 0;
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 16 || fseek(f, 0, SEEK_SET))
		die("cannot read", path);
	a->file = malloc((size_t)size);
	if (!a->file || fread(a->file, 1, (size_t)size, f) != (size_t)size)
		die("cannot read", path);
	fclose(f);
	if (memcmp(a->file, "\x93NUMPY", 6))
		die("not an .npy file", path);
	size_t hl = a->file[6] == 1 ? (size_t)(a->file[8] | a->file[9] << 8) : (size_t)(a->file[8] | a->file[9] << 8 | a->file[10] << 16);
	size_t off = (a->file[6] == 1 ? 10 : 12) + hl;
	char h[4096], *p, *s;
	if (off > (size_t)size || hl >= sizeof h)
		die("unsupported .npy header", path);
	memcpy(h, a->file + off - hl, hl);
	h[hl] = 0;
	p = strstr(h, "'descr': '");
	s = strstr(h, "'shape': (");
	if (!p || !s || strstr(h, "'fortran_order': True"))
		die("unsupported .npy header", path);
	sscanf(p + 10, "%7[^']", a->descr);
	a->rank = 0;
	for (s += 10; *s != ')' && a->rank < 8;) {
		char *e;
		long v = strtol(s, &e, 10);
		if (e == s)
			break;
		a->shape[a->rank++] = v;
		s = e + (*e == ',');
		while (*s == ' ')
			s++;
	}
	a->data = a->file + off;
	a->nbytes = (size_t)size - off;
}

/* Convert n float32 values into the model input's type. */
static void to_input(const npu_io *io, const float *x, unsigned char *dst)
{
	size_t n = io->nbytes / (io->dtype == NPU_T_F32 || io->dtype == NPU_T_I32 ? 4 : io->dtype == NPU_T_F16 || io->dtype == NPU_T_I16 ? 2 : 1);
	for (size_t i = 0; i < n; i++) {
		if (io->dtype == NPU_T_F32) {
			memcpy(dst + 4 * i, &x[i], 4);
		} else if (io->dtype == NPU_T_F16) {
			uint16_t h = npu_f32_to_f16(x[i]);
			memcpy(dst + 2 * i, &h, 2);
		} else {
			/* round half to even, as npu-run does */
			float q = x[i] / io->scale, r = (float)(long)q, d = q - r;
			long v;
			if (d > 0.5f || (d == 0.5f && ((long)r & 1)))
				r += 1;
			else if (d < -0.5f || (d == -0.5f && ((long)r & 1)))
				r -= 1;
			v = (long)r + io->zero_point;
			if (io->dtype == NPU_T_I8) {
				v = v < -128 ? -128 : v > 127 ? 127 : v;
				dst[i] = (unsigned char)(signed char)v;
			} else {
				int16_t h;
				v = v < -32768 ? -32768 : v > 32767 ? 32767 : v;
				h = (int16_t)v;
				memcpy(dst + 2 * i, &h, 2);
			}
		}
	}
}

/* Sample k of a (float32 samples of io's size, or io's own bytes). */
static void feed(const npu_io *io, const npy *a, size_t k, unsigned char *dst, const char *path)
{
	if (!strcmp(a->descr, "<f4") && io->dtype != NPU_T_F32) {
		size_t per = io->nbytes / elem_size(io->dtype == NPU_T_F16 || io->dtype == NPU_T_I16 ? "<i2" : io->dtype == NPU_T_I8 ? "|i1" : "<f4");
		if ((k + 1) * per * 4 > a->nbytes)
			die("too few values for the input", path);
		to_input(io, (const float *)(const void *)(a->data + k * per * 4), dst);
		return;
	}
	if ((k + 1) * io->nbytes > a->nbytes)
		die("too few bytes for the input", path);
	memcpy(dst, a->data + k * io->nbytes, io->nbytes);
}

static const char *npy_descr(uint32_t t)
{
	static const char *const d[] = {"<f4", "<f2", "|i1", "<i2", "<i4", "|u1", "<i8"};
	return t < 7 ? d[t] : "|u1";
}

static void npy_save(const char *path, const npu_io *io, const void *data)
{
	char h[256];
	int n = sprintf(h, "{'descr': '%s', 'fortran_order': False, 'shape': (", npy_descr(io->dtype));
	unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
	uint32_t k;
	FILE *f;
	for (k = 0; k < io->rank; k++)
		n += sprintf(h + n, "%ld%s", (long)io->shape[k], io->rank == 1 ? "," : k + 1 < io->rank ? ", " : "");
	n += sprintf(h + n, "), }");
	while ((10 + n + 1) % 64)
		h[n++] = ' ';
	h[n++] = '\n';
	pre[8] = (unsigned char)n;
	pre[9] = (unsigned char)(n >> 8);
	f = fopen(path, "wb");
	if (!f || fwrite(pre, 1, 10, f) != 10 || fwrite(h, 1, (size_t)n, f) != (size_t)n ||
	    fwrite(data, 1, io->nbytes, f) != io->nbytes || fclose(f))
		die("cannot write", path);
}

static float out_value(const npu_io *io, const unsigned char *p, size_t i)
{
	switch (io->dtype) {
	case NPU_T_F32: { float v; memcpy(&v, p + 4 * i, 4); return v; }
	case NPU_T_F16: { uint16_t h; memcpy(&h, p + 2 * i, 2); return npu_f16_to_f32(h); }
	case NPU_T_I8: return io->scale * (float)((signed char)p[i] - io->zero_point);
	case NPU_T_I16: { int16_t h; memcpy(&h, p + 2 * i, 2); return io->scale * (float)(h - io->zero_point); }
	default: return 0;
	}
}

static double now_ms(void)
{
#if defined(_POSIX_TIMERS) && _POSIX_TIMERS > 0
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
#else
	return (double)clock() * 1e3 / CLOCKS_PER_SEC;
#endif
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* mkdir -p */
static void make_dir(const char *path)
{
#if defined(__unix__) || defined(__APPLE__)
	char p[1024], *c;
	struct stat st;
	if (strlen(path) >= sizeof p)
		die("path too long", path);
	strcpy(p, path);
	for (c = p + 1;; c++) {
		if (*c == '/' || !*c) {
			char end = *c;
			*c = 0;
			if (mkdir(p, 0777) && (stat(p, &st) || !S_ISDIR(st.st_mode)))
				die("cannot create the directory", p);
			*c = end;
			if (!end)
				break;
		}
	}
#else
	(void)path;
#endif
}

/* A whole file in 64-byte aligned memory that outlives the run. */
static void *load_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long n = 0;
	unsigned char *raw = NULL;
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(raw = malloc((size_t)n + 64)))
		die("cannot read", path);
	raw += 64 - (size_t)raw % 64;	/* never freed */
	if (fread(raw, 1, (size_t)n, f) != (size_t)n)
		die("cannot read", path);
	fclose(f);
	*size = (size_t)n;
	return raw;
}

static size_t samples_of(const npu_io *io, const npy *a)
{
	size_t per = !strcmp(a->descr, "<f4") && io->dtype != NPU_T_F32 ?
		io->nbytes / elem_size(io->dtype == NPU_T_F16 || io->dtype == NPU_T_I16 ? "<i2" : io->dtype == NPU_T_I8 ? "|i1" : "<f4") * 4 :
		io->nbytes;
	return per ? a->nbytes / per : 0;
}

int main(int argc, char **argv)
{
	const void *in[16];
	void *out[16];
	unsigned char *arena;
	uint32_t i, k_out = 0;
	const char *wpath = NULL;
	static npu_model wmodel;
#ifndef NPU_HEADER
	{	/* the binary model, in memory that outlives the run */
		size_t size = 0;
		void *blob = argc > 1 ? load_file(argv[1], &size) : NULL;
		if (!blob)
			die("no model given", NULL);
		if (npu_load(&bin_model, blob, size))
			die("not a valid npukit model for this runtime", argv[1]);
		argv++;
		argc--;
	}
#endif
	while (argc >= 3 && (!strcmp(argv[1], "-w") || !strcmp(argv[1], "-k"))) {
		if (argv[1][1] == 'w')
			wpath = argv[2];
		else
			k_out = (uint32_t)atol(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (wpath) {	/* weights placed at run time: a copy of the model that points at them */
		size_t size = 0;
		const void *w = load_file(wpath, &size);
		if (size != M.weight_size)
			die("not the model's weights (wrong size)", wpath);
		wmodel = M;
		wmodel.weights = (const uint8_t *)w;
		mp = &wmodel;
	} else if (M.weight_size && !M.weights) {
		die("the model's weights are placed at run time: give them with -w WEIGHTS.bin", NULL);
	}
	arena = malloc(M.arena_size + 16);
	if (!arena || M.n_inputs > 16 || M.n_outputs > 16)
		die("out of memory", NULL);
	arena += 16 - (size_t)arena % 16;
	for (i = 0; i < M.n_outputs; i++)
		if (!(out[i] = malloc(M.outputs[i].nbytes + 1)))
			die("out of memory", NULL);
	if (argc >= 3 && !strcmp(argv[1], "run") && (uint32_t)argc == 3 + M.n_inputs) {
		for (i = 0; i < M.n_inputs; i++) {
			npy a;
			unsigned char *b = malloc(M.inputs[i].nbytes + 1);
			npy_load(argv[3 + i], &a);
			if (!b)
				die("out of memory", NULL);
			feed(&M.inputs[i], &a, 0, b, argv[3 + i]);
			in[i] = b;
		}
		npu_host_before_run();
#ifdef NPU_HOST_OPS
		for (i = 0; i < (int)M.n_ops; i++) {
			npu_exec_op(&M, (uint32_t)i, in, out, arena);
			npu_host_after_op((unsigned)i);
		}
#else
		npu_run(&M, in, out, arena);
#endif
		npu_host_after_run();
		make_dir(argv[2]);
		for (i = 0; i < M.n_outputs; i++) {
			char path[1024], *c;
			snprintf(path, sizeof path, "%s/%s.npy", argv[2], M.strings + M.outputs[i].name);
			for (c = path + strlen(argv[2]) + 1; *c; c++)
				if (*c == '/')
					*c = '_';
			npy_save(path, &M.outputs[i], out[i]);
		}
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "eval") && (uint32_t)argc == 3 + M.n_inputs) {
		npy x[16], y;
		unsigned char *ib[16];
		long k, n, right = 0;
		const npu_io *o = &M.outputs[k_out < M.n_outputs ? k_out : 0];
		size_t c, classes = o->nbytes / (o->dtype == NPU_T_F32 ? 4 : o->dtype == NPU_T_I8 ? 1 : 2);
		if (k_out >= M.n_outputs)
			die("-k: no such output", NULL);
		npy_load(argv[argc - 1], &y);
		n = y.rank ? y.shape[0] : 0;
		if (strcmp(y.descr, "<i8") || y.rank != 1)
			die("labels must be int64, one per sample", argv[argc - 1]);
		for (i = 0; i < M.n_inputs; i++) {
			unsigned char *b = malloc(M.inputs[i].nbytes + 1);
			npy_load(argv[2 + i], &x[i]);
			if (!b)
				die("out of memory", NULL);
			if (samples_of(&M.inputs[i], &x[i]) < (size_t)n)
				die("fewer samples than labels", argv[2 + i]);
			in[i] = ib[i] = b;
		}
		for (k = 0; k < n; k++) {
			size_t best = 0;
			long long label;
			for (i = 0; i < M.n_inputs; i++)
				feed(&M.inputs[i], &x[i], (size_t)k, ib[i], argv[2 + i]);
			npu_run(&M, in, out, arena);
			for (c = 1; c < classes; c++)
				if (out_value(o, out[k_out], c) > out_value(o, out[k_out], best))
					best = c;
			memcpy(&label, y.data + 8 * k, 8);
			right += (long long)best == label;
		}
		printf("accuracy: %.4f (%ld/%ld)\n", n ? (double)right / (double)n : 0.0, right, n);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "bench") && (uint32_t)argc == 3 + M.n_inputs) {
		long k, n = atol(argv[argc - 1]);
		double *t = malloc(sizeof *t * (size_t)(n > 0 ? n : 1));
		if (!t || n < 1)
			die("bench needs a positive run count", NULL);
		for (i = 0; i < M.n_inputs; i++) {
			npy x;
			unsigned char *b = malloc(M.inputs[i].nbytes + 1);
			npy_load(argv[2 + i], &x);
			if (!b)
				die("out of memory", NULL);
			feed(&M.inputs[i], &x, 0, b, argv[2 + i]);
			in[i] = b;
		}
		npu_run(&M, in, out, arena);	/* warm-up */
		for (k = 0; k < n; k++) {
			double t0 = now_ms();
			npu_run(&M, in, out, arena);
			t[k] = now_ms() - t0;
		}
		qsort(t, (size_t)n, sizeof *t, cmp_double);
		printf("ms: %.3f (min %.3f, max %.3f)\n", t[n / 2], t[0], t[n - 1]);
		return 0;
	}
	fprintf(stderr, "usage: %s [-w WEIGHTS.bin] run OUTDIR IN.npy...  |  [-k OUTPUT] eval SAMPLES.npy... LABELS.npy"
		"  |  bench IN.npy... N\n(one IN.npy or SAMPLES.npy per model input: this model has %u)\n",
		argv[0], (unsigned)M.n_inputs);
	return 2;
}
