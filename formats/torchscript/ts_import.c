/* ts_import.c - TorchScript archive to npukit IR (op mapping: npu-import-pt(1)).
 *
 * The archive's data.pkl gives the module tree (objects with parameters and
 * submodules); code/ gives each class's TorchScript source. forward() of the
 * root is interpreted symbolically: Python values (ints, lists, strings,
 * module objects) are evaluated at import time, so shape arithmetic, static
 * if/for and submodule calls disappear; tensors are IR tensor ids, and each
 * torch.* / ops.aten.* call becomes IR nodes through the op table at the
 * end of this file. Parameters become IR constants named after their module
 * path. Every IR node is shape-inferred as it is added, because later calls
 * (size, view, linear on N-D inputs) need shapes.
 *
 * What cannot be imported (unknown ops, data-dependent control flow) is
 * recorded with its file and line, its result becomes a "poison" value that
 * silently propagates, and all problems are reported together at the end. */
#include "torchscript/ts_import.h"
#include "torchscript/ts_internal.h"
#include "import/builder.h"
#include "../../share/npu/runtime/npu_half.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the TorchScript importer assumes a little-endian host (archives and IR are little-endian)"
#endif

#define MAX_PICKLE ((size_t)256 << 20)
#define MAX_SOURCE ((size_t)16 << 20)
#define MAX_CALL_DEPTH 64
#define MAX_EVAL_DEPTH 1000
#define MAX_STEPS 20000000L
#define MAX_HOST_BYTES ((size_t)1 << 28)	/* tensors made at import time */
#define MAX_FOLD ((int64_t)1 << 16)		/* elements folded at import time */
#define MAX_RANGE ((int64_t)1 << 20)
#define ARENA_LIMIT ((size_t)2 << 30)
#define MAX_NODES (1 << 22)		/* ops of one model (npu(7), LIMITS) */
#define MAX_OUTPUTS 4096
#define MAX_PROBLEMS 200

typedef struct {
	ts_arena a;
	ts_zip *z;
	ib b;			/* the graph, diagnostics; problems: op is what cannot be
				 * imported ("op 'aten::foo'"), node where ("code/__torch__.py:12") */
	const ts_import_opts *o;
	ts_map files;		/* code path -> parsed module (or &missing) */
	ts_map ops;		/* op name -> opdef */
	ts_map node_names, tensor_names;
	ts_map node_suffix, tensor_suffix;	/* base -> the last suffix given */
	ts_val *constants;	/* constants.pkl: a tuple */
	ts_val *none, *poison;
	uint8_t **bufs;		/* storage data, freed at the end */
	int nbufs, capbufs;
	long steps;
	int depth;		/* calls */
	int eval_depth;		/* nested evaluations */
	const char *file;	/* the code being run, for problems */
	int line;
	int version;
} imp;

typedef struct {
	const char *name;
	ts_val *v;
} var;

typedef struct {
	var *vars;
	int n, cap;
	const char *file;	/* "code/__torch__/torch/nn/modules/conv.py" */
	ts_val *self;
	const char *path;	/* module path of self, names nodes */
	ts_val *ret;
} frame;

enum { X_OK, X_RETURN, X_BREAK, X_CONTINUE, X_FAIL = -1 };

typedef struct cx cx;
typedef ts_val *(*op_fn)(cx *c);

typedef struct {
	const char *name;	/* aten or prim name, without namespace */
	const char *schema;	/* "self,other,alpha=1": parameters and defaults */
	op_fn fn;
	int op;			/* IR op, for the handlers that map to one */
	double p;		/* handler parameter */
} opdef;

/* One call of a torch op being converted. */
struct cx {
	imp *im;
	ib *b;			/* &im->b */
	frame *f;
	const opdef *e;
	const char *op;		/* "aten::conv2d", for messages and node origins */
	ts_val *a[16];		/* arguments bound to the schema */
	int n;
	const char *base;	/* node name of this call (made on first use) */
};

static int missing_file;	/* marks a code path known to be absent */

/* ================================================================ diagnostics */

static ts_val *fail(imp *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static ts_val *fail(imp *im, const char *fmt, ...)
{
	char m[sizeof im->b.d->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	ir_fail(im->b.d, -1, -1, "%s", m);
	return NULL;
}

static ts_val *oom(imp *im) { return fail(im, "out of memory"); }

/* Record something that cannot be imported here; returns the poison value
 * (NULL only when out of memory). */
static ts_val *problem_at(imp *im, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static ts_val *problem_at(imp *im, int line, const char *fmt, ...)
{
	char m[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	const char *where = ts_sprintf(&im->a, "%s:%d", im->file ? im->file : "?", line);
	if (!where)
		return oom(im);
	for (int i = 0; i < im->b.npb; i++)
		if (!strcmp(im->b.pb[i].op, m) && !strcmp(im->b.pb[i].node, where))
			return im->poison;
	if (im->b.npb >= MAX_PROBLEMS)	/* more would not fit the message anyway */
		return im->poison;
	return ib_problem_add(&im->b, 0, m, where, NULL) ? NULL : im->poison;
}

/* ================================================================ names */

/* base, or base_1, base_2, ...: unused in m; the name is then taken. The
 * next suffix to try is remembered per base (a module called 1000 times). */
static const char *unique(imp *im, ts_map *m, const char *base)
{
	const char *s = ts_strndup(&im->a, base, strlen(base));
	if (s && ts_map_get(m, s)) {
		ts_map *sfx = m == &im->node_names ? &im->node_suffix : &im->tensor_suffix;
		int64_t *next = ts_map_get(sfx, s);
		if (!next && (!(next = ts_alloc(&im->a, sizeof *next)) || ts_map_put(sfx, s, next)))
			return oom(im), NULL;
		do
			s = ts_sprintf(&im->a, "%s_%lld", base, (long long)++*next);
		while (s && ts_map_get(m, s));
	}
	if (!s || ts_map_put(m, s, (void *)1))
		return oom(im), NULL;
	return s;
}

/* ================================================================ values */

static ts_val *mk(imp *im, ts_kind k)
{
	ts_val *v = ts_new(&im->a, k);
	return v ? v : oom(im);
}

static ts_val *mk_int(imp *im, int64_t i)
{
	ts_val *v = mk(im, TS_INT);
	if (v)
		v->i = i;
	return v;
}

static ts_val *mk_float(imp *im, double f)
{
	ts_val *v = mk(im, TS_FLOAT);
	if (v)
		v->f = f;
	return v;
}

static ts_val *mk_bool(imp *im, bool b)
{
	ts_val *v = mk(im, TS_BOOL);
	if (v)
		v->i = b;
	return v;
}

static ts_val *mk_str(imp *im, const char *s)
{
	ts_val *v = ts_new_str(&im->a, s, strlen(s));
	return v ? v : oom(im);
}

static ts_val *mk_seq(imp *im, ts_kind k, ts_val **items, int n)
{
	ts_val *v = mk(im, k);
	for (int i = 0; v && i < n; i++)
		if (ts_append(&im->a, v, items[i]))
			return oom(im);
	return v;
}

static bool is_tensor(const ts_val *v) { return v && v->kind == TS_TENSOR; }
static bool is_num(const ts_val *v) { return v && (v->kind == TS_INT || v->kind == TS_FLOAT || v->kind == TS_BOOL); }
static bool is_seq(const ts_val *v) { return v && (v->kind == TS_LIST || v->kind == TS_TUPLE); }
static bool is_none(const ts_val *v) { return !v || v->kind == TS_NONE; }
/* A tensor whose value is known at import time (a parameter, a constant). */
static bool is_host(const ts_val *v) { return is_tensor(v) && (v->t->data || v->t->st); }

static double num(const ts_val *v) { return v->kind == TS_FLOAT ? v->f : (double)v->i; }

static bool dt_float(ir_dtype t) { return t == IR_DTYPE_F32 || t == IR_DTYPE_F16 || t == IR_DTYPE_BF16; }

/* Does v hold a poison value (itself or inside a list or tuple)? */
static bool poisoned(const ts_val *v, int depth)
{
	if (!v || depth > 32)
		return false;
	if (v->kind == TS_POISON)
		return true;
	if (is_seq(v))
		for (int i = 0; i < v->n; i++)
			if (poisoned(v->v[i], depth + 1))
				return true;
	return false;
}

/* torch ScalarType codes as TorchScript prints them (dtype=6). */
static int dtype_from_scalar_type(int64_t code)
{
	switch (code) {
	case 0: return IR_DTYPE_U8;
	case 1: return IR_DTYPE_I8;
	case 2: return IR_DTYPE_I16;
	case 3: return IR_DTYPE_I32;
	case 4: return IR_DTYPE_I64;
	case 5: return IR_DTYPE_F16;
	case 6: return IR_DTYPE_F32;
	case 7: return IR_DTYPE_F32;	/* double: the IR computes in f32 */
	case 11: return IR_DTYPE_BOOL;
	case 15: return IR_DTYPE_BF16;
	}
	return -1;
}

static int64_t scalar_type_of(ir_dtype t)
{
	static const int64_t codes[IR_DTYPE_COUNT] = {
		[IR_DTYPE_F32] = 6, [IR_DTYPE_F16] = 5, [IR_DTYPE_BF16] = 15, [IR_DTYPE_I64] = 4, [IR_DTYPE_I32] = 3,
		[IR_DTYPE_I16] = 2, [IR_DTYPE_I8] = 1, [IR_DTYPE_U8] = 0, [IR_DTYPE_BOOL] = 11};
	return codes[t];
}

/* ================================================================ host tensors */

static double hget(const ts_tensor *t, int64_t i) { return ir_elem_get(t->data, t->dtype, i); }

static int64_t hgeti(const ts_tensor *t, int64_t i)
{
	if (t->dtype == IR_DTYPE_I64) {
		int64_t v;
		memcpy(&v, (const uint8_t *)t->data + (size_t)i * 8, 8);
		return v;
	}
	double f = hget(t, i);
	return ib_f2i(f);
}

static void hput(ts_tensor *t, int64_t i, double f, int64_t iv)
{
	uint8_t *p = (uint8_t *)t->data + (size_t)i * ir_dtype_size(t->dtype);
	uint64_t u = (uint64_t)iv;
	switch (t->dtype) {
	case IR_DTYPE_F32: { float v = (float)f; memcpy(p, &v, 4); break; }
	case IR_DTYPE_F16: { uint16_t h = npu_f32_to_f16((float)f); memcpy(p, &h, 2); break; }
	case IR_DTYPE_BF16: { uint16_t h = npu_f32_to_bf16((float)f); memcpy(p, &h, 2); break; }
	case IR_DTYPE_I64: memcpy(p, &u, 8); break;
	case IR_DTYPE_I32: { uint32_t w = (uint32_t)u; memcpy(p, &w, 4); break; }
	case IR_DTYPE_I16: { uint16_t w = (uint16_t)u; memcpy(p, &w, 2); break; }
	case IR_DTYPE_BOOL: p[0] = iv != 0; break;
	default: p[0] = (uint8_t)u; break;
	}
}

/* A new host tensor of zeros (its data in the arena). */
static ts_val *host_new(imp *im, ir_dtype dt, const ir_shape *s)
{
	int64_t n = ib_nbytes(s, dt, (int64_t)MAX_HOST_BYTES);
	if (n < 0)
		return fail(im, "a tensor made at import time is too large");
	ts_val *v = mk(im, TS_TENSOR);
	ts_tensor *t = ts_alloc(&im->a, sizeof *t);
	if (!v || !t || !(t->data = ts_alloc(&im->a, (size_t)n)))
		return oom(im);
	t->dtype = dt;
	t->shape = *s;
	t->id = -1;
	v->t = t;
	return v;
}

static ts_val *host_scalar(imp *im, ir_dtype dt, double f, int64_t iv)
{
	ts_val *v = host_new(im, dt, &(ir_shape){0});
	if (v)
		hput(v->t, 0, f, iv);
	return v;
}

/* Read a storage's bytes from the archive (once), doubles as floats. */
static int load_storage(imp *im, ts_storage *st)
{
	if (st->data)
		return 0;
	uint64_t need = (uint64_t)st->numel * (uint64_t)st->src_size;
	if (need > SIZE_MAX / 2)
		return fail(im, "storage '%s' is too large", st->key), -1;
	char name[300];
	uint8_t *p;
	size_t size;
	int rc = 1;
	if (!strcmp(st->dir, "constants")) {
		snprintf(name, sizeof name, "constants/%s", st->key);
		rc = ts_zip_read(im->z, name, (size_t)need, &p, &size, im->b.d);
	}
	if (rc == 1) {
		snprintf(name, sizeof name, "data/%s", st->key);
		rc = ts_zip_read(im->z, name, (size_t)need, &p, &size, im->b.d);
	}
	if (rc == 1)
		return fail(im, "the archive has no %s (a tensor's data)", name), -1;
	if (rc < 0)
		return -1;
	if (size != need) {
		free(p);
		return fail(im, "%s has %zu bytes, its tensors need %llu", name, size, (unsigned long long)need), -1;
	}
	if (st->is_double) {
		float *f = malloc(need / 2 + 1);
		if (!f) {
			free(p);
			return oom(im), -1;
		}
		for (int64_t i = 0; i < st->numel; i++) {
			double v;
			memcpy(&v, p + 8 * i, 8);
			f[i] = (float)v;
		}
		free(p);
		p = (uint8_t *)f;
		size = need / 2;
	}
	if (ib_grow((void **)&im->bufs, &im->capbufs, im->nbufs, sizeof *im->bufs)) {
		free(p);
		return oom(im), -1;
	}
	im->bufs[im->nbufs++] = p;
	st->data = p;
	st->nbytes = size;
	return 0;
}

/* Make a pickled tensor's data contiguous host data. */
static int load(imp *im, ts_tensor *t)
{
	if (t->data || !t->st)
		return 0;
	if (load_storage(im, t->st))
		return -1;
	size_t es = ir_dtype_size(t->dtype);
	int64_t n = ir_shape_numel(&t->shape), expect = 1;
	bool contiguous = true;
	for (int i = t->shape.rank - 1; i >= 0; i--) {
		if (t->shape.dim[i] != 1 && t->stride[i] != expect)
			contiguous = false;
		expect *= t->shape.dim[i];
	}
	if (contiguous || n == 0) {
		t->data = t->st->data + (size_t)t->offset * es;
		return 0;
	}
	uint8_t *dst = ts_alloc_array(&im->a, (size_t)n, es);
	if (!dst)
		return oom(im), -1;
	int64_t idx[IR_MAX_RANK] = {0};
	for (int64_t k = 0; k < n; k++) {
		int64_t src = t->offset;
		for (int i = 0; i < t->shape.rank; i++)
			src += idx[i] * t->stride[i];
		memcpy(dst + (size_t)k * es, t->st->data + (size_t)src * es, es);
		for (int i = t->shape.rank - 1; i >= 0 && ++idx[i] == t->shape.dim[i]; i--)
			idx[i] = 0;
	}
	t->data = dst;
	return 0;
}

/* The IR tensor of a tensor value: host tensors become constants. */
static int tid(imp *im, ts_val *v)
{
	ts_tensor *t = v->t;
	if (t->id >= 0)
		return t->id;
	if (load(im, t))
		return -1;
	const char *name = unique(im, &im->tensor_names, t->name ? t->name : "const");
	static const uint8_t empty[8];
	if (!name)
		return -1;
	/* the graph being built holds no constant data: copy_renamed adds it
	 * once, from the names map (47 MB of resnet18 are copied once less) */
	if (ts_map_put(&im->tensor_names, name, t->data ? t->data : (void *)empty))
		return oom(im), -1;
	t->id = ir_graph_add_tensor(im->b.g, name, t->dtype, &t->shape, IR_KIND_CONST, im->b.d);
	return t->id;
}

/* A runtime tensor value for IR tensor id (dtype and shape from the graph). */
static ts_val *tval(imp *im, int id)
{
	ts_val *v = mk(im, TS_TENSOR);
	ts_tensor *t = ts_alloc(&im->a, sizeof *t);
	if (!v || !t)
		return oom(im);
	const ir_tensor *x = ir_graph_tensor(im->b.g, id);
	t->dtype = x->dtype;
	t->shape = x->shape;
	t->id = id;
	v->t = t;
	return v;
}

/* ================================================================ IR nodes */

/* The node name of a call: its module path, or the op's name at the root. */
static const char *base_name(cx *c)
{
	if (!c->base) {
		const char *path = c->f && c->f->path && *c->f->path ? c->f->path : NULL;
		const char *op = strstr(c->op, "::");
		char shortop[64];
		snprintf(shortop, sizeof shortop, "%s", op ? op + 2 : c->op);
		size_t n = strlen(shortop);
		while (n > 1 && shortop[n - 1] == '_')	/* add_ -> add */
			shortop[--n] = 0;
		c->base = unique(c->im, &c->im->node_names, path ? path : shortop[0] == '_' ? shortop + 1 : shortop);
		if (!c->base)
			c->b->failed = true;
	}
	return c->base;
}

/* Add an IR node named after the call (suffix NULL) or "<name>/<suffix>",
 * with nout new activations (their ids in outs). Attributes go on before
 * done() infers the node's shapes. Returns the node id or -1. */
static int emit(cx *c, const char *suffix, int op, const int *in, int nin, int *outs, int nout)
{
	imp *im = c->im;
	const char *base = base_name(c), *name;
	if (!base || c->b->failed)
		return -1;
	if (ir_graph_node_count(im->b.g) >= MAX_NODES) {
		fail(im, "%s:%d: the model has more than %d ops (a loop unrolled too far?)", im->file, im->line, MAX_NODES);
		c->b->failed = true;
		return -1;
	}
	if (suffix)
		name = (name = ts_sprintf(&im->a, "%s/%s", base, suffix)) ? unique(im, &im->node_names, name) : NULL;
	else
		name = base;
	ib_begin(c->b, name, c->op);
	for (int i = 0; name && i < nout; i++) {
		const char *tn = i ? ts_sprintf(&im->a, "%s:%d", name, i) : name;
		if ((outs[i] = ib_tensor(c->b, tn ? unique(im, &im->tensor_names, tn) : NULL)) < 0)
			return -1;
	}
	return ib_node(c->b, name, op, in, nin, outs, nout);
}

static ts_val *unsup(cx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Shape inference of one new node. 0 ok, 1 the node is wrong (a problem
 * is recorded), -1 fatal. */
static int infer(cx *c, int node)
{
	ir_diag sd;
	if (ir_graph_infer_node(c->b->g, node, &sd) == 0)
		return 0;
	return unsup(c, "%s", sd.msg) ? 1 : -1;
}

/* After the attributes: infer the node. 0 ok, 1 problem, -1 fatal. */
static int done(cx *c, int n)
{
	if (c->b->failed || n < 0)
		return -1;
	return infer(c, n);
}

/* One IR node with one output: its value (poison on a problem, NULL fatal). */
static ts_val *done1(cx *c, int n)
{
	int r = done(c, n);
	if (r)
		return r > 0 ? c->im->poison : NULL;
	return tval(c->im, ir_graph_node(c->b->g, n)->outputs[0]);
}

/* ================================================================ op arguments */

static ts_val *unsup(cx *c, const char *fmt, ...)
{
	char m[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	return problem_at(c->im, c->im->line, "%s: %s", c->op, m);
}

/* The IR tensor of argument v (a tensor, or -1 with a problem recorded:
 * *bad set; or fatal: c->b->failed). */
static int arg_id(cx *c, ts_val *v, const char *what, bool *bad)
{
	if (!is_tensor(v)) {
		if (!unsup(c, "%s must be a tensor (it is %s)", what, v ? ts_kind_name(v->kind) : "missing"))
			c->b->failed = true;
		*bad = true;
		return -1;
	}
	int id = tid(c->im, v);
	if (id < 0)
		c->b->failed = true;
	return id;
}

static const ir_tensor *irt(cx *c, int id) { return ir_graph_tensor(c->b->g, id); }

/* An int argument (bool counts, as in Python). */
static bool get_int(const ts_val *v, int64_t *out)
{
	if (!v || (v->kind != TS_INT && v->kind != TS_BOOL))
		return false;
	*out = v->i;
	return true;
}

/* A list of ints, or a single int (count 1). -1 if it is neither. */
static int get_ints(const ts_val *v, int64_t *out, int max)
{
	if (get_int(v, out))
		return 1;
	if (!is_seq(v) || v->n > max)
		return -1;
	for (int i = 0; i < v->n; i++)
		if (!get_int(v->v[i], &out[i]))
			return -1;
	return v->n;
}

/* Argument i as exactly n ints; one int stands for n copies of itself. */
static int ints_n(cx *c, int i, int n, int64_t *out, const char *what)
{
	int k = get_ints(c->a[i], out, IR_MAX_RANK);
	if (k == 1)
		for (int j = 1; j < n; j++)
			out[j] = out[0];
	if (k != 1 && k != n) {
		unsup(c, "%s must be %d ints", what, n);
		return -1;
	}
	return 0;
}

static int int_arg(cx *c, int i, const char *what, int64_t *out)
{
	if (!get_int(c->a[i], out)) {
		unsup(c, "%s must be an int (it is %s)", what, ts_kind_name(c->a[i]->kind));
		return -1;
	}
	return 0;
}

static int num_arg(cx *c, int i, const char *what, double *out)
{
	if (!is_num(c->a[i])) {
		unsup(c, "%s must be a number (it is %s)", what, ts_kind_name(c->a[i]->kind));
		return -1;
	}
	*out = num(c->a[i]);
	return 0;
}

/* Normalize a dimension index for a rank; -1 (problem recorded) if bad. */
static int axis_arg(cx *c, int i, int rank, const char *what)
{
	int64_t d;
	if (int_arg(c, i, what, &d))
		return -1;
	int a = ir_axis(d, rank);
	if (a < 0)
		unsup(c, "%s %lld is out of range for rank %d", what, (long long)d, rank);
	return a;
}

/* A scalar constant (rank 0) of dtype dt. */
static int scalar_id(cx *c, ir_dtype dt, double f)
{
	ts_val *v = host_scalar(c->im, dt, f, ib_f2i(f));
	const char *base = base_name(c);
	if (!v || !base)
		return c->b->failed = true, -1;
	v->t->name = ts_sprintf(&c->im->a, "%s/const", base);
	int id = tid(c->im, v);
	if (id < 0)
		c->b->failed = true;
	return id;
}

/* A host tensor as an IR constant named "<node>/<suffix>". */
static int const_id(cx *c, ts_val *v, const char *suffix)
{
	const char *base = base_name(c);
	if (!v || !base)
		return c->b->failed = true, -1;
	v->t->name = ts_sprintf(&c->im->a, "%s/%s", base, suffix);
	int id = tid(c->im, v);
	if (id < 0)
		c->b->failed = true;
	return id;
}

/* One node: op over inputs, one output. */
static ts_val *node1(cx *c, const char *suffix, int op, const int *in, int nin)
{
	int out;
	return done1(c, emit(c, suffix, op, in, nin, &out, 1));
}

/* The result of a handler that emitted nothing, or failed fatally. */
static ts_val *bail(cx *c) { return c->b->failed ? NULL : c->im->poison; }

#define TENSOR(var, i, what) \
	bool bad_##var = false; \
	int var = arg_id(c, c->a[i], what, &bad_##var); \
	if (var < 0) \
		return bail(c)

static ts_val *reshape_to(cx *c, const char *suffix, int x, const ir_shape *s)
{
	if (ir_shape_equal(s, &irt(c, x)->shape))
		return tval(c->im, x);
	int out, n = emit(c, suffix, IR_OP_RESHAPE, &x, 1, &out, 1);
	ib_set_is(c->b, n, "shape", s->dim, s->rank);
	return done1(c, n);
}

static ts_val *transpose_to(cx *c, const char *suffix, int x, const int64_t *perm, int rank)
{
	int out, n = emit(c, suffix, IR_OP_TRANSPOSE, &x, 1, &out, 1);
	ib_set_is(c->b, n, "perm", perm, rank);
	return done1(c, n);
}

static int cast_to(cx *c, int x, ir_dtype dt)
{
	if (irt(c, x)->dtype == dt)
		return x;
	int out, n = emit(c, "cast", IR_OP_CAST, &x, 1, &out, 1);
	ib_set_s(c->b, n, "to", ir_dtype_name(dt));
	int r = done(c, n);
	return r ? -1 : out;
}

/* ================================================================ arithmetic */

typedef enum { B_ADD, B_SUB, B_MUL, B_DIV, B_FLOORDIV, B_MOD, B_POW, B_MAX, B_MIN } binop;

static const int binop_ir[] = {IR_OP_ADD, IR_OP_SUB, IR_OP_MUL, IR_OP_DIV, -1, -1, IR_OP_POW, IR_OP_MAX, IR_OP_MIN};

static int64_t ifloordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Python arithmetic on two numbers. NULL with *zero set on division by zero. */
static ts_val *py_arith(imp *im, binop op, const ts_val *x, const ts_val *y, bool *zero)
{
	bool ints = x->kind != TS_FLOAT && y->kind != TS_FLOAT;
	double a = num(x), b = num(y);
	*zero = false;
	if (ints && op != B_DIV && !(op == B_POW && y->i < 0)) {
		int64_t p = x->i, q = y->i, r = 0;
		bool ovf = false;
		switch (op) {
		case B_ADD: ovf = __builtin_add_overflow(p, q, &r); break;
		case B_SUB: ovf = __builtin_sub_overflow(p, q, &r); break;
		case B_MUL: ovf = __builtin_mul_overflow(p, q, &r); break;
		case B_FLOORDIV:
		case B_MOD:
			if (q == 0 || (p == INT64_MIN && q == -1)) {
				*zero = q == 0;
				return NULL;
			}
			r = op == B_FLOORDIV ? ifloordiv(p, q) : p - ifloordiv(p, q) * q;
			break;
		case B_POW:
			r = 1;
			for (int64_t k = 0; k < q && !ovf; k++)
				ovf = __builtin_mul_overflow(r, p, &r);
			break;
		case B_MAX: r = p > q ? p : q; break;
		case B_MIN: r = p < q ? p : q; break;
		default: break;
		}
		return ovf ? NULL : mk_int(im, r);
	}
	double r;
	switch (op) {
	case B_ADD: r = a + b; break;
	case B_SUB: r = a - b; break;
	case B_MUL: r = a * b; break;
	case B_DIV:
		if (b == 0) {
			*zero = true;
			return NULL;
		}
		r = a / b;
		break;
	case B_FLOORDIV:
	case B_MOD:
		if (b == 0) {
			*zero = true;
			return NULL;
		}
		r = op == B_FLOORDIV ? floor(a / b) : a - floor(a / b) * b;
		break;
	case B_POW: r = pow(a, b); break;
	case B_MAX: r = a > b ? a : b; break;
	default: r = a < b ? a : b; break;
	}
	return mk_float(im, r);
}

/* torch's type promotion, simplified: operands with dimensions (and
 * runtime tensors) decide; 0-dim tensors and Python numbers only lift an
 * integer result to float. */
static ir_dtype promote_dt(ir_dtype a, ir_dtype b)
{
	if (dt_float(a) || dt_float(b))
		return dt_float(a) && dt_float(b) ? (a == b ? a : IR_DTYPE_F32) : dt_float(a) ? a : b;
	if (a == IR_DTYPE_BOOL)
		return b;
	if (b == IR_DTYPE_BOOL)
		return a;
	return ir_dtype_size(a) >= ir_dtype_size(b) ? a : b;
}

static ir_dtype result_dtype(ts_val **v, int n)
{
	int best = -1;
	bool any_float = false;
	for (int prio = 0; prio < 3 && best < 0; prio++)
		for (int i = 0; i < n; i++) {
			const ts_val *x = v[i];
			ir_dtype dt = is_tensor(x) ? x->t->dtype : x->kind == TS_FLOAT ? IR_DTYPE_F32 :
				      x->kind == TS_BOOL ? IR_DTYPE_BOOL : IR_DTYPE_I64;
			int p = !is_tensor(x) ? 2 : (!is_host(x) || x->t->shape.rank > 0) ? 0 : 1;
			any_float |= dt_float(dt);
			if (p == prio)
				best = best < 0 ? (int)dt : (int)promote_dt((ir_dtype)best, dt);
		}
	if (best < 0)
		best = IR_DTYPE_F32;
	if (!dt_float((ir_dtype)best) && any_float)
		best = IR_DTYPE_F32;
	return (ir_dtype)best;
}

/* Fold a binary op over host tensors and numbers (small ones). */
static ts_val *host_binary(cx *c, binop op, ts_val *x, ts_val *y, ir_dtype dt)
{
	imp *im = c->im;
	ts_val *v[2] = {x, y};
	ir_shape s[2], o;
	for (int i = 0; i < 2; i++) {
		s[i] = is_tensor(v[i]) ? v[i]->t->shape : (ir_shape){0};
		if (is_tensor(v[i]) && load(im, v[i]->t))
			return NULL;
	}
	if (ir_shape_broadcast(&s[0], &s[1], &o) < 0)
		return unsup(c, "shapes do not broadcast");
	if ((op == B_DIV) && !dt_float(dt))
		dt = IR_DTYPE_F32;	/* true division */
	ts_val *r = host_new(im, dt, &o);
	if (!r)
		return NULL;
	int64_t n = ir_shape_numel(&o), idx[IR_MAX_RANK] = {0};
	for (int64_t k = 0; k < n; k++) {
		double f[2];
		int64_t iv[2];
		for (int i = 0; i < 2; i++) {
			if (!is_tensor(v[i])) {
				f[i] = num(v[i]);
				iv[i] = v[i]->kind == TS_FLOAT ? (int64_t)v[i]->f : v[i]->i;
				continue;
			}
			int64_t off = 0;
			const ir_shape *si = &s[i];
			for (int d = 0; d < si->rank; d++) {
				int64_t j = idx[o.rank - si->rank + d];
				off = off * si->dim[d] + (si->dim[d] == 1 ? 0 : j);
			}
			f[i] = hget(v[i]->t, off);
			iv[i] = hgeti(v[i]->t, off);
		}
		double rf = 0;
		int64_t ri = 0;
		if (dt_float(dt)) {
			switch (op) {
			case B_ADD: rf = f[0] + f[1]; break;
			case B_SUB: rf = f[0] - f[1]; break;
			case B_MUL: rf = f[0] * f[1]; break;
			case B_DIV: rf = f[0] / f[1]; break;
			case B_FLOORDIV: rf = floor(f[0] / f[1]); break;
			case B_MOD: rf = f[0] - floor(f[0] / f[1]) * f[1]; break;
			case B_POW: rf = pow(f[0], f[1]); break;
			case B_MAX: rf = f[0] > f[1] ? f[0] : f[1]; break;
			case B_MIN: rf = f[0] < f[1] ? f[0] : f[1]; break;
			}
		} else {
			uint64_t a = (uint64_t)iv[0], b = (uint64_t)iv[1];
			switch (op) {
			case B_ADD: ri = (int64_t)(a + b); break;
			case B_SUB: ri = (int64_t)(a - b); break;
			case B_MUL: ri = (int64_t)(a * b); break;
			case B_FLOORDIV:
			case B_MOD:
				if (iv[1] == 0 || (iv[0] == INT64_MIN && iv[1] == -1))
					return unsup(c, "integer division by zero");
				ri = op == B_FLOORDIV ? ifloordiv(iv[0], iv[1]) : iv[0] - ifloordiv(iv[0], iv[1]) * iv[1];
				break;
			case B_POW: ri = (int64_t)pow((double)iv[0], (double)iv[1]); break;
			case B_MAX: ri = iv[0] > iv[1] ? iv[0] : iv[1]; break;
			case B_MIN: ri = iv[0] < iv[1] ? iv[0] : iv[1]; break;
			default: break;
			}
			rf = (double)ri;
		}
		hput(r->t, k, rf, dt_float(dt) ? (int64_t)rf : ri);
		for (int d = o.rank - 1; d >= 0 && ++idx[d] == o.dim[d]; d--)
			idx[d] = 0;
	}
	return r;
}

/* An operand of an IR elementwise op, as dtype dt. */
static int operand(cx *c, ts_val *v, ir_dtype dt)
{
	if (!is_tensor(v))
		return scalar_id(c, dt, num(v));
	if (is_host(v) && v->t->dtype != dt && v->t->id < 0) {
		/* convert the constant rather than adding a cast node */
		if (load(c->im, v->t))
			return c->b->failed = true, -1;
		ts_val *w = host_new(c->im, dt, &v->t->shape);
		if (!w)
			return c->b->failed = true, -1;
		for (int64_t k = 0, n = ir_shape_numel(&v->t->shape); k < n; k++)
			hput(w->t, k, hget(v->t, k), hgeti(v->t, k));
		return const_id(c, w, "const");
	}
	bool bad = false;
	int id = arg_id(c, v, "operand", &bad);
	return id < 0 ? -1 : cast_to(c, id, dt);
}

/* x op y for tensors and numbers, with torch's promotion. */
static ts_val *binary(cx *c, binop op, ts_val *x, ts_val *y)
{
	imp *im = c->im;
	if (is_num(x) && is_num(y)) {
		bool zero;
		ts_val *r = py_arith(im, op, x, y, &zero);
		return r ? r : zero ? unsup(c, "division by zero") : unsup(c, "integer overflow");
	}
	if ((!is_tensor(x) && !is_num(x)) || (!is_tensor(y) && !is_num(y)))
		return unsup(c, "operands must be tensors or numbers (they are %s and %s)", ts_kind_name(x->kind),
			     ts_kind_name(y->kind));
	ts_val *v[2] = {x, y};
	ir_dtype dt = result_dtype(v, 2);
	bool host = (!is_tensor(x) || is_host(x)) && (!is_tensor(y) || is_host(y));
	int64_t nx = is_tensor(x) ? ir_shape_numel(&x->t->shape) : 1, ny = is_tensor(y) ? ir_shape_numel(&y->t->shape) : 1;
	if (host && nx <= MAX_FOLD && ny <= MAX_FOLD)
		return host_binary(c, op, x, y, dt);
	if (binop_ir[op] < 0)
		return unsup(c, "not supported on tensors computed at run time");
	if (op == B_DIV && !dt_float(dt))
		dt = IR_DTYPE_F32;
	int in[2] = {operand(c, x, dt), -1};
	if (in[0] >= 0)
		in[1] = operand(c, y, dt);
	if (in[0] < 0 || in[1] < 0)
		return bail(c);
	return node1(c, NULL, binop_ir[op], in, 2);
}

/* y * alpha, for add/sub's alpha (folded when possible). */
static ts_val *scale_by(cx *c, ts_val *y, ts_val *alpha)
{
	if (is_num(alpha) && num(alpha) == 1)
		return y;
	return binary(c, B_MUL, y, alpha);
}

/* ================================================================ op handlers
 *
 * Each gets its arguments bound to its schema in c->a and returns the
 * result value, the poison value after recording a problem, or NULL on a
 * fatal error (d set). */

/* ---------------------------------------------------------------- elementwise */

static ts_val *h_unary(cx *c)
{
	ts_val *x = c->a[0];
	if (is_num(x) && (c->e->op == IR_OP_NEG || c->e->op == IR_OP_ABS)) {
		if (x->kind == TS_FLOAT)
			return mk_float(c->im, c->e->op == IR_OP_NEG ? -x->f : fabs(x->f));
		if (x->i == INT64_MIN)
			return unsup(c, "integer overflow");
		return mk_int(c->im, c->e->op == IR_OP_NEG || x->i < 0 ? -x->i : x->i);
	}
	TENSOR(id, 0, "input");
	return node1(c, NULL, c->e->op, &id, 1);
}

static ts_val *h_hardsigmoid(cx *c)
{
	TENSOR(x, 0, "input");
	int out, n = emit(c, NULL, IR_OP_HARD_SIGMOID, &x, 1, &out, 1);
	ib_set_f(c->b, n, "alpha", 1.0 / 6);
	ib_set_f(c->b, n, "beta", 0.5);
	return done1(c, n);
}

/* clip, relu or relu6 for hardtanh and clamp (bounds may be None) */
static ts_val *clip(cx *c, int x, bool has_lo, double lo, bool has_hi, double hi)
{
	if (has_lo && lo == 0 && !has_hi)
		return node1(c, NULL, IR_OP_RELU, &x, 1);
	if (has_lo && lo == 0 && has_hi && hi == 6)
		return node1(c, NULL, IR_OP_RELU6, &x, 1);
	int out, n = emit(c, NULL, IR_OP_CLIP, &x, 1, &out, 1);
	if (has_lo)
		ib_set_f(c->b, n, "min", lo);
	if (has_hi)
		ib_set_f(c->b, n, "max", hi);
	return done1(c, n);
}

static ts_val *h_hardtanh(cx *c)
{
	double lo, hi;
	TENSOR(x, 0, "input");
	if (num_arg(c, 1, "min_val", &lo) || num_arg(c, 2, "max_val", &hi))
		return bail(c);
	return clip(c, x, true, lo, true, hi);
}

static ts_val *h_clamp(cx *c)
{
	TENSOR(x, 0, "input");
	for (int i = 1; i < 3; i++)
		if (!is_none(c->a[i]) && !is_num(c->a[i]))
			return unsup(c, "bounds that are tensors are not supported");
	return clip(c, x, !is_none(c->a[1]), is_none(c->a[1]) ? 0 : num(c->a[1]), !is_none(c->a[2]),
		    is_none(c->a[2]) ? 0 : num(c->a[2]));
}

static ts_val *h_leaky_relu(cx *c)
{
	double alpha;
	TENSOR(x, 0, "input");
	if (num_arg(c, 1, "negative_slope", &alpha))
		return bail(c);
	int out, n = emit(c, NULL, IR_OP_LEAKY_RELU, &x, 1, &out, 1);
	ib_set_f(c->b, n, "alpha", alpha);
	return done1(c, n);
}

static ts_val *h_elu(cx *c)
{
	double alpha, scale, in_scale;
	TENSOR(x, 0, "input");
	if (num_arg(c, 1, "alpha", &alpha) || num_arg(c, 2, "scale", &scale) || num_arg(c, 3, "input_scale", &in_scale))
		return bail(c);
	if (scale != 1 || in_scale != 1)
		return unsup(c, "scale and input_scale other than 1 are not supported");
	int out, n = emit(c, NULL, IR_OP_ELU, &x, 1, &out, 1);
	ib_set_f(c->b, n, "alpha", alpha);
	return done1(c, n);
}

static ts_val *h_gelu(cx *c)
{
	TENSOR(x, 0, "input");
	const ts_val *ap = c->a[1];
	if (ap->kind != TS_STR || (strcmp(ap->s, "none") && strcmp(ap->s, "tanh")))
		return unsup(c, "approximate must be \"none\" or \"tanh\"");
	int out, n = emit(c, NULL, IR_OP_GELU, &x, 1, &out, 1);
	ib_set_s(c->b, n, "approximate", ap->s);
	return done1(c, n);
}

static ts_val *h_softplus(cx *c)
{
	double beta;
	TENSOR(x, 0, "input");
	if (num_arg(c, 1, "beta", &beta))
		return bail(c);
	if (beta != 1)
		return unsup(c, "beta other than 1 is not supported");
	return node1(c, NULL, IR_OP_SOFTPLUS, &x, 1);
}

static ts_val *h_prelu(cx *c)
{
	TENSOR(x, 0, "input");
	ts_val *w = c->a[1];
	int r = irt(c, x)->shape.rank;
	if (!is_host(w) || w->t->shape.rank != 1)
		return unsup(c, "the weight must be a constant vector");
	int64_t k = w->t->shape.dim[0];
	/* [C] slopes broadcast over channel-first [N, C, ...]: make them [C, 1, ...] */
	ir_shape s = {.rank = k == 1 ? 1 : r - 1};
	s.dim[0] = k;
	for (int i = 1; i < s.rank; i++)
		s.dim[i] = 1;
	if (k != 1 && (r < 2 || irt(c, x)->shape.dim[1] != k))
		return unsup(c, "%lld slopes do not match the input's channels", (long long)k);
	if (load(c->im, w->t))
		return NULL;
	ts_val *ws = host_new(c->im, w->t->dtype, &s);
	if (!ws)
		return NULL;
	memcpy(ws->t->data, w->t->data, (size_t)k * ir_dtype_size(w->t->dtype));
	int in[2] = {x, operand(c, ws, irt(c, x)->dtype)};
	if (in[1] < 0)
		return bail(c);
	return node1(c, NULL, IR_OP_PRELU, in, 2);
}

/* contiguous, detach, clone, dropout in eval mode: the input itself */
static ts_val *h_identity(cx *c)
{
	if (c->e->p) {	/* dropout(input, p, train) */
		int64_t train;
		if (int_arg(c, 2, "train", &train))
			return bail(c);
		if (train)
			return unsup(c, "dropout in training mode is not supported (save the model in eval mode)");
	}
	if (!is_tensor(c->a[0]))
		return unsup(c, "the input must be a tensor");
	return c->a[0];
}

static ts_val *h_binary(cx *c)
{
	binop op = (binop)c->e->p;
	ts_val *x = c->a[0], *y = c->a[1];
	if (op == B_ADD && is_seq(x) && is_seq(y)) {	/* list + list */
		ts_val *r = mk_seq(c->im, x->kind, x->v, x->n);
		for (int i = 0; r && i < y->n; i++)
			if (ts_append(&c->im->a, r, y->v[i]))
				return oom(c->im);
		return r;
	}
	if ((op == B_ADD || op == B_SUB) && c->n > 2 && !(y = scale_by(c, y, c->a[2])))
		return NULL;
	if (y->kind == TS_POISON)
		return y;
	return binary(c, op, x, y);
}

static ts_val *h_rsub(cx *c)
{
	ts_val *x = scale_by(c, c->a[0], c->a[2]);
	return x && x->kind != TS_POISON ? binary(c, B_SUB, c->a[1], x) : x;
}

static ts_val *h_div(cx *c)
{
	const ts_val *mode = c->a[2];
	if (is_none(mode))
		return binary(c, B_DIV, c->a[0], c->a[1]);
	if (mode->kind == TS_STR && !strcmp(mode->s, "floor"))
		return binary(c, B_FLOORDIV, c->a[0], c->a[1]);
	return unsup(c, "rounding_mode '%s' is not supported", mode->kind == TS_STR ? mode->s : "?");
}

/* eq ne lt le gt ge on Python values */
static ts_val *h_compare(cx *c)
{
	int k = (int)c->e->p;
	ts_val *x = c->a[0], *y = c->a[1];
	int cmp;
	if ((is_tensor(x) && !is_host(x)) || (is_tensor(y) && !is_host(y)) || x->kind == TS_RUNTIME ||
	    y->kind == TS_RUNTIME)
		return mk(c->im, TS_RUNTIME);	/* an error only where it is used */
	if (is_host(x) && ir_shape_numel(&x->t->shape) == 1 && !load(c->im, x->t))
		x = dt_float(x->t->dtype) ? mk_float(c->im, hget(x->t, 0)) : mk_int(c->im, hgeti(x->t, 0));
	if (y && is_host(y) && ir_shape_numel(&y->t->shape) == 1 && !load(c->im, y->t))
		y = dt_float(y->t->dtype) ? mk_float(c->im, hget(y->t, 0)) : mk_int(c->im, hgeti(y->t, 0));
	if (!x || !y)
		return NULL;
	if (is_num(x) && is_num(y)) {
		double a = num(x), b = num(y);
		if (x->kind != TS_FLOAT && y->kind != TS_FLOAT)
			cmp = x->i < y->i ? -1 : x->i > y->i;
		else
			cmp = a < b ? -1 : a > b;
	} else if (x->kind == TS_STR && y->kind == TS_STR) {
		size_t n = x->len < y->len ? x->len : y->len;
		cmp = memcmp(x->s, y->s, n);
		cmp = cmp ? (cmp < 0 ? -1 : 1) : x->len < y->len ? -1 : x->len > y->len;
	} else if (k < 2 && (is_none(x) || is_none(y) || x->kind == TS_DEVICE || y->kind == TS_DEVICE)) {
		cmp = !(x->kind == y->kind);
	} else if (k < 2 && is_seq(x) && is_seq(y)) {
		cmp = x->n != y->n;
		for (int i = 0; !cmp && i < x->n; i++) {
			int64_t p, q;
			cmp = !(get_int(x->v[i], &p) && get_int(y->v[i], &q) && p == q);
		}
	} else {
		return unsup(c, "comparing %s and %s (comparisons of tensors are not supported)", ts_kind_name(x->kind),
			     ts_kind_name(y->kind));
	}
	static const int want[6][3] = {{0, 1, 0}, {1, 0, 1}, {1, 0, 0}, {1, 1, 0}, {0, 0, 1}, {0, 1, 1}};
	return mk_bool(c->im, want[k][cmp + 1]);
}

static bool truth_of(const ts_val *v, bool *out);

static ts_val *h_logic(cx *c)	/* __not__ __and__ __or__ __xor__ on Python values */
{
	int k = (int)c->e->p;
	bool a, b = false;
	if (c->a[0]->kind == TS_RUNTIME || (k > 0 && c->a[1]->kind == TS_RUNTIME))
		return c->a[0]->kind == TS_RUNTIME ? c->a[0] : c->a[1];
	if (!truth_of(c->a[0], &a) || (k > 0 && !truth_of(c->a[1], &b)))
		return unsup(c, "operands must be known at import time (data-dependent logic is not supported)");
	if (k > 0 && c->a[0]->kind == TS_INT && c->a[1]->kind == TS_INT) {
		int64_t p = c->a[0]->i, q = c->a[1]->i;
		return mk_int(c->im, k == 1 ? p & q : k == 2 ? p | q : p ^ q);
	}
	return mk_bool(c->im, k == 0 ? !a : k == 1 ? a && b : k == 2 ? a || b : a != b);
}

static ts_val *h_is(cx *c)	/* __is__ / __isnot__ */
{
	const ts_val *x = c->a[0], *y = c->a[1];
	bool same = x == y || (is_none(x) && is_none(y));
	return mk_bool(c->im, c->e->p ? !same : same);
}

/* ---------------------------------------------------------------- linear algebra */

static ts_val *h_linear(cx *c)
{
	TENSOR(x, 0, "input");
	TENSOR(w, 1, "weight");
	int in[3] = {x, w, -1}, nin = 2;
	if (irt(c, w)->shape.rank != 2)
		return unsup(c, "the weight must be a matrix");
	if (!is_none(c->a[2])) {
		TENSOR(b, 2, "bias");
		in[nin++] = b;
	}
	return node1(c, NULL, IR_OP_FULLY_CONNECTED, in, nin);
}

static ts_val *h_matmul(cx *c)
{
	TENSOR(a, 0, "input");
	TENSOR(b, 1, "other");
	int in[2] = {a, b};
	return node1(c, NULL, IR_OP_MATMUL, in, 2);
}

static ts_val *h_t(cx *c)
{
	TENSOR(x, 0, "input");
	if (irt(c, x)->shape.rank < 2)
		return c->a[0];
	if (irt(c, x)->shape.rank > 2)
		return unsup(c, "the input must have at most 2 dimensions");
	return transpose_to(c, NULL, x, (const int64_t[]){1, 0}, 2);
}

static ts_val *h_addmm(cx *c)
{
	double beta, alpha;
	TENSOR(bias, 0, "input");
	TENSOR(a, 1, "mat1");
	TENSOR(b, 2, "mat2");
	if (num_arg(c, 3, "beta", &beta) || num_arg(c, 4, "alpha", &alpha))
		return bail(c);
	int in[3] = {a, b, bias}, out, n = emit(c, NULL, IR_OP_GEMM, in, 3, &out, 1);
	ib_set_f(c->b, n, "alpha", alpha);
	ib_set_f(c->b, n, "beta", beta);
	return done1(c, n);
}

/* ---------------------------------------------------------------- convolution */

/* Shared by _convolution, convolution, convNd and conv_transposeNd:
 * arguments input, weight, bias at 0..2, the rest at the given indexes. */
static ts_val *conv(cx *c, int i_stride, int i_pad, int i_dil, bool transposed, int i_outpad, int i_groups)
{
	TENSOR(x, 0, "input");
	TENSOR(w, 1, "weight");
	const ir_tensor *xt = irt(c, x), *wt = irt(c, w);
	int r = xt->shape.rank, nsp = r - 2;
	if (r < 3 || r > 5 || wt->shape.rank != r)
		return unsup(c, "input of rank %d and weight of rank %d are not supported", r, wt->shape.rank);
	int64_t st[3], pad[3], dil[3], op[3] = {0, 0, 0}, groups, pads[6];
	if (ints_n(c, i_stride, nsp, st, "stride") || ints_n(c, i_dil, nsp, dil, "dilation") ||
	    int_arg(c, i_groups, "groups", &groups) || (transposed && ints_n(c, i_outpad, nsp, op, "output_padding")))
		return bail(c);
	const ts_val *pv = c->a[i_pad];
	if (pv->kind == TS_STR && !transposed) {
		for (int i = 0; i < nsp; i++) {
			int64_t total = !strcmp(pv->s, "same") ? dil[i] * (wt->shape.dim[2 + i] - 1) : 0;
			if (strcmp(pv->s, "same") && strcmp(pv->s, "valid"))
				return unsup(c, "padding '%s' is not supported", pv->s);
			pads[i] = total / 2;
			pads[nsp + i] = total - total / 2;
		}
	} else {
		if (ints_n(c, i_pad, nsp, pad, "padding"))
			return bail(c);
		for (int i = 0; i < nsp; i++)
			pads[i] = pads[nsp + i] = pad[i];
	}
	int in[3] = {x, w, -1}, nin = 2;
	if (!is_none(c->a[2])) {
		TENSOR(b, 2, "bias");
		in[nin++] = b;
	}
	int out, n = emit(c, NULL, transposed ? IR_OP_CONV_TRANSPOSE : IR_OP_CONV, in, nin, &out, 1);
	ib_set_is(c->b, n, "strides", st, nsp);
	ib_set_is(c->b, n, "pads", pads, 2 * nsp);
	ib_set_is(c->b, n, "dilations", dil, nsp);
	ib_set_i(c->b, n, "group", groups);
	if (transposed)
		ib_set_is(c->b, n, "output_padding", op, nsp);
	return done1(c, n);
}

static ts_val *h__convolution(cx *c)
{
	int64_t transposed;
	if (int_arg(c, 6, "transposed", &transposed))
		return bail(c);
	return conv(c, 3, 4, 5, transposed != 0, 7, 8);
}

static ts_val *h_conv(cx *c) { return conv(c, 3, 4, 5, false, 0, 6); }
static ts_val *h_conv_transpose(cx *c) { return conv(c, 3, 4, 7, true, 5, 6); }

/* ---------------------------------------------------------------- normalization */

/* A vector of n copies of v (missing affine parameters). */
static int filled(cx *c, int64_t n, double v, ir_dtype dt, const char *suffix)
{
	ts_val *t = host_new(c->im, dt, &(ir_shape){.rank = 1, .dim = {n}});
	if (!t)
		return c->b->failed = true, -1;
	for (int64_t i = 0; i < n; i++)
		hput(t->t, i, v, (int64_t)v);
	return const_id(c, t, suffix);
}

static ts_val *h_batch_norm(cx *c)
{
	int64_t training;
	double eps;
	TENSOR(x, 0, "input");
	const ir_tensor *xt = irt(c, x);
	if (int_arg(c, 5, "training", &training) || num_arg(c, 7, "eps", &eps))
		return bail(c);
	if (training)
		return unsup(c, "batch normalization in training mode is not supported (save the model in eval mode)");
	if (is_none(c->a[3]) || is_none(c->a[4]))
		return unsup(c, "batch normalization without running statistics is not supported");
	if (xt->shape.rank < 2)
		return unsup(c, "the input needs a channel dimension");
	int64_t C = xt->shape.dim[1];
	int in[5] = {x, -1, -1, -1, -1};
	for (int i = 1; i < 5; i++) {
		static const char *const what[] = {"", "weight", "bias", "running_mean", "running_var"};
		if (is_none(c->a[i])) {
			in[i] = filled(c, C, i == 1 ? 1 : 0, xt->dtype, what[i]);
		} else {
			bool bad = false;
			in[i] = arg_id(c, c->a[i], what[i], &bad);
		}
		if (in[i] < 0)
			return bail(c);
	}
	int out, n = emit(c, NULL, IR_OP_BATCH_NORM, in, 5, &out, 1);
	ib_set_f(c->b, n, "epsilon", eps);
	return done1(c, n);
}

static ts_val *h_instance_norm(cx *c)
{
	int64_t use_stats;
	double eps;
	TENSOR(x, 0, "input");
	const ir_tensor *xt = irt(c, x);
	if (int_arg(c, 5, "use_input_stats", &use_stats) || num_arg(c, 7, "eps", &eps))
		return bail(c);
	if (!use_stats)
		return unsup(c, "instance normalization with running statistics is not supported");
	if (xt->shape.rank < 3)
		return unsup(c, "the input needs channel and spatial dimensions");
	int in[3] = {x, -1, -1};
	for (int i = 1; i < 3; i++) {
		if (is_none(c->a[i])) {
			in[i] = filled(c, xt->shape.dim[1], i == 1 ? 1 : 0, xt->dtype, i == 1 ? "weight" : "bias");
		} else {
			bool bad = false;
			in[i] = arg_id(c, c->a[i], i == 1 ? "weight" : "bias", &bad);
		}
		if (in[i] < 0)
			return bail(c);
	}
	int out, n = emit(c, NULL, IR_OP_INSTANCE_NORM, in, 3, &out, 1);
	ib_set_f(c->b, n, "epsilon", eps);
	return done1(c, n);
}

static ts_val *h_layer_norm(cx *c)
{
	int64_t shape[IR_MAX_RANK];
	double eps;
	TENSOR(x, 0, "input");
	const ir_tensor *xt = irt(c, x);
	int k = get_ints(c->a[1], shape, IR_MAX_RANK), r = xt->shape.rank;
	if (k < 1 || k > r)
		return unsup(c, "normalized_shape must be 1 to %d ints", r);
	for (int i = 0; i < k; i++)
		if (shape[i] != xt->shape.dim[r - k + i])
			return unsup(c, "normalized_shape does not match the input's last dimensions");
	if (num_arg(c, 4, "eps", &eps))
		return bail(c);
	int64_t count = 1;
	for (int i = 0; i < k; i++)
		count *= shape[i];
	int in[3] = {x, -1, -1}, nin = 2;
	for (int i = 2; i < 4; i++) {
		ts_val *p = c->a[i];
		if (is_none(p)) {
			if (i == 3)
				continue;
			ts_val *ones = host_new(c->im, xt->dtype, &(ir_shape){.rank = k});
			if (!ones)
				return NULL;
			memcpy(ones->t->shape.dim, shape, sizeof(int64_t) * (size_t)k);
			for (int64_t j = 0; j < count; j++)
				hput(ones->t, j, 1, 1);
			in[1] = const_id(c, ones, "weight");
		} else {
			bool bad = false;
			in[i - 1] = arg_id(c, p, i == 2 ? "weight" : "bias", &bad);
		}
		if (in[i - 1] < 0)
			return bail(c);
		nin = i;
	}
	int out, n = emit(c, NULL, IR_OP_LAYER_NORM, in, nin, &out, 1);
	ib_set_i(c->b, n, "axis", r - k);
	ib_set_f(c->b, n, "epsilon", eps);
	return done1(c, n);
}

static ts_val *h_softmax(cx *c)
{
	TENSOR(x, 0, "input");
	int axis = axis_arg(c, 1, irt(c, x)->shape.rank, "dim");
	if (axis < 0)
		return bail(c);
	int out, n = emit(c, NULL, c->e->op, &x, 1, &out, 1);
	ib_set_i(c->b, n, "axis", axis);
	return done1(c, n);
}

/* ---------------------------------------------------------------- pooling */

static ts_val *h_pool(cx *c)
{
	bool max = c->e->op == IR_OP_MAX_POOL;
	TENSOR(x, 0, "input");
	int nsp = irt(c, x)->shape.rank - 2;
	if (nsp != (int)c->e->p)
		return unsup(c, "the input has rank %d, expected %d", nsp + 2, (int)c->e->p + 2);
	int64_t k[3], st[3], pad[3], dil[3] = {1, 1, 1}, ceil_mode, pads[6];
	if (ints_n(c, 1, nsp, k, "kernel_size") || ints_n(c, 3, nsp, pad, "padding") ||
	    (max && ints_n(c, 4, nsp, dil, "dilation")) || int_arg(c, max ? 5 : 4, "ceil_mode", &ceil_mode))
		return bail(c);
	if (is_seq(c->a[2]) && c->a[2]->n == 0)
		memcpy(st, k, sizeof st);	/* stride [] means the kernel size */
	else if (ints_n(c, 2, nsp, st, "stride"))
		return bail(c);
	for (int i = 0; i < nsp; i++)
		pads[i] = pads[nsp + i] = pad[i];
	int out, n = emit(c, NULL, c->e->op, &x, 1, &out, 1);
	ib_set_is(c->b, n, "kernel", k, nsp);
	ib_set_is(c->b, n, "strides", st, nsp);
	ib_set_is(c->b, n, "pads", pads, 2 * nsp);
	ib_set_i(c->b, n, "ceil_mode", ceil_mode != 0);
	if (max) {
		ib_set_is(c->b, n, "dilations", dil, nsp);
	} else {
		int64_t cip;
		if (int_arg(c, 5, "count_include_pad", &cip))
			return bail(c);
		if (c->n > 6 && !is_none(c->a[6]))
			return unsup(c, "divisor_override is not supported");
		ib_set_i(c->b, n, "count_include_pad", cip != 0);
	}
	return done1(c, n);
}

/* Adaptive pooling (average, or max with c->e->op IR_OP_MAX_POOL). Output
 * position i of a dimension of size in pools the window from floor(i*in/out)
 * to ceil((i+1)*in/out) (PyTorch's definition). When out divides in, the
 * windows are a pooling kernel (global pooling for out 1); otherwise that
 * dimension becomes one slice and keepdims reduction per window and a
 * concat. Windows are rectangles, so pooling one dimension after the other
 * gives the same maximum and the same mean. */
#define ADAPTIVE_MAX_WINDOWS 256
static ts_val *slice_node(cx *c, int x, int axis, int64_t start, int64_t end, int64_t step, const char *suffix);

static ts_val *h_adaptive_pool(cx *c)
{
	bool max = c->e->op == IR_OP_MAX_POOL;
	TENSOR(x, 0, "input");
	const ir_tensor *xt = irt(c, x);
	int nsp = (int)c->e->p, r = xt->shape.rank;
	if (r != nsp + 2)
		return unsup(c, "the input has rank %d, expected %d", r, nsp + 2);
	int64_t osz[3], in[3], k[3], ones[3] = {1, 1, 1}, pads[6] = {0};
	bool global = true, even = true;
	const ts_val *ov = c->a[1];
	if (is_seq(ov) && ov->n != nsp)
		return unsup(c, "output_size must have %d values", nsp);
	for (int i = 0; i < nsp; i++) {
		const ts_val *e = is_seq(ov) ? ov->v[i] : ov;
		in[i] = xt->shape.dim[2 + i];
		if (is_none(e))
			osz[i] = in[i];
		else if (!get_int(e, &osz[i]) || osz[i] < 1)
			return unsup(c, "output_size must be positive ints");
		if (in[i] < 1)
			return unsup(c, "the input has an empty dimension");
		k[i] = in[i] % osz[i] ? 0 : in[i] / osz[i];
		even &= k[i] > 0;
		global &= osz[i] == 1;
		if (!k[i] && osz[i] > ADAPTIVE_MAX_WINDOWS)
			return unsup(c, "from size %lld to %lld: more than %d uneven windows are not supported",
				     (long long)in[i], (long long)osz[i], ADAPTIVE_MAX_WINDOWS);
	}
	ts_val *res;
	if (global) {
		res = node1(c, NULL, max ? IR_OP_GLOBAL_MAX_POOL : IR_OP_GLOBAL_AVG_POOL, &x, 1);
	} else if (even) {
		int out, n = emit(c, NULL, max ? IR_OP_MAX_POOL : IR_OP_AVG_POOL, &x, 1, &out, 1);
		ib_set_is(c->b, n, "kernel", k, nsp);
		ib_set_is(c->b, n, "strides", k, nsp);
		ib_set_is(c->b, n, "pads", pads, 2 * nsp);
		if (max)
			ib_set_is(c->b, n, "dilations", ones, nsp);
		res = done1(c, n);
	} else {
		res = tval(c->im, x);
		for (int d = 0; d < nsp && res && res->kind == TS_TENSOR; d++) {
			int cur = res->t->id;
			if (osz[d] == in[d])
				continue;
			if (k[d]) {	/* this dimension pools evenly */
				int64_t kk[3] = {1, 1, 1};
				kk[d] = k[d];
				int out, n = emit(c, ts_sprintf(&c->im->a, "dim%d", d), max ? IR_OP_MAX_POOL : IR_OP_AVG_POOL,
						  &cur, 1, &out, 1);
				ib_set_is(c->b, n, "kernel", kk, nsp);
				ib_set_is(c->b, n, "strides", kk, nsp);
				ib_set_is(c->b, n, "pads", pads, 2 * nsp);
				if (max)
					ib_set_is(c->b, n, "dilations", ones, nsp);
				res = done1(c, n);
				continue;
			}
			int parts[ADAPTIVE_MAX_WINDOWS];
			int64_t axis = 2 + d;
			for (int64_t i = 0; i < osz[d]; i++) {
				int64_t lo = i * in[d] / osz[d], hi = ((i + 1) * in[d] + osz[d] - 1) / osz[d];
				ts_val *w = slice_node(c, cur, (int)axis, lo, hi, 1,
						       ts_sprintf(&c->im->a, "dim%d/window%lld", d, (long long)i));
				if (!w || w->kind != TS_TENSOR)
					return w;
				int wid = w->t->id, out;
				int n = emit(c, ts_sprintf(&c->im->a, "dim%d/pool%lld", d, (long long)i),
					     max ? IR_OP_REDUCE_MAX : IR_OP_REDUCE_MEAN, &wid, 1, &out, 1);
				ib_set_is(c->b, n, "axes", &axis, 1);
				ib_set_i(c->b, n, "keepdims", 1);
				if (!(w = done1(c, n)) || w->kind != TS_TENSOR)
					return w;
				parts[i] = w->t->id;
			}
			int out, n = emit(c, d + 1 < nsp ? ts_sprintf(&c->im->a, "dim%d", d) : NULL, IR_OP_CONCAT, parts,
					  (int)osz[d], &out, 1);
			ib_set_i(c->b, n, "axis", axis);
			res = done1(c, n);
		}
		/* only dimensions already of the output size: a copy */
		if (res && res->kind == TS_TENSOR && res->t->id == x)
			res = node1(c, NULL, IR_OP_IDENTITY, &x, 1);
	}
	if (!max || !res || res->kind != TS_TENSOR)
		return res;
	/* adaptive_max_pool returns (values, indices); the indices are not
	 * computed: a model that uses them fails on a non-tensor output or
	 * argument */
	ts_val *pair[2] = {res, c->im->poison};
	return mk_seq(c->im, TS_TUPLE, pair, 2);
}

/* ---------------------------------------------------------------- reductions */

/* dim: None or [] (all), an int or a list of ints, into axes. -1 on a problem. */
static int dims_arg(cx *c, const ts_val *dv, int rank, int64_t *axes)
{
	int64_t d[IR_MAX_RANK];
	if (is_none(dv) || (is_seq(dv) && dv->n == 0)) {
		for (int i = 0; i < rank; i++)
			axes[i] = i;
		return rank;
	}
	int k = get_ints(dv, d, IR_MAX_RANK);
	for (int i = 0; i < k; i++)
		if ((axes[i] = ir_axis(d[i], rank)) < 0)
			return unsup(c, "dim %lld is out of range", (long long)d[i]), -1;
	if (k < 0)
		unsup(c, "dim must be an int or a list of ints");
	return k;
}

static ts_val *h_reduce(cx *c)
{
	TENSOR(x, 0, "input");
	int64_t axes[IR_MAX_RANK], keep = 0;
	int rank = irt(c, x)->shape.rank;
	const ts_val *dv = c->a[1];
	int k = dims_arg(c, dv, rank, axes);
	if (k < 0 || int_arg(c, 2, "keepdim", &keep))
		return bail(c);
	if (c->n > 3 && !is_none(c->a[3]))
		return unsup(c, "the dtype argument is not supported");
	if (c->e->op == IR_OP_ARGMAX) {
		if (is_none(dv))
			return unsup(c, "argmax over all dimensions is not supported");
		int out, n = emit(c, NULL, IR_OP_ARGMAX, &x, 1, &out, 1);
		ib_set_i(c->b, n, "axis", axes[0]);
		ib_set_i(c->b, n, "keepdims", keep != 0);
		return done1(c, n);
	}
	int out, n = emit(c, NULL, c->e->op, &x, 1, &out, 1);
	ib_set_is(c->b, n, "axes", axes, k);
	ib_set_i(c->b, n, "keepdims", keep != 0);
	return done1(c, n);
}

/* max / min: elementwise with a tensor, or the whole input */
static ts_val *h_maxmin(cx *c)
{
	bool is_max = c->e->op == IR_OP_MAX;
	if (is_tensor(c->a[1]) || (is_num(c->a[0]) && is_num(c->a[1])))
		return binary(c, is_max ? B_MAX : B_MIN, c->a[0], c->a[1]);
	if (!is_none(c->a[1]))
		return unsup(c, "max/min over one dimension (with indices) is not supported; use amax/amin");
	TENSOR(x, 0, "input");
	int out, n = emit(c, NULL, is_max ? IR_OP_REDUCE_MAX : IR_OP_REDUCE_MIN, &x, 1, &out, 1);
	int64_t axes[IR_MAX_RANK];
	int rank = irt(c, x)->shape.rank;
	for (int i = 0; i < rank; i++)
		axes[i] = i;
	ib_set_is(c->b, n, "axes", axes, rank);
	ib_set_i(c->b, n, "keepdims", 0);
	return done1(c, n);
}

/* ---------------------------------------------------------------- shapes */

static ts_val *h_flatten(cx *c)
{
	TENSOR(x, 0, "input");
	const ir_shape *s = &irt(c, x)->shape;
	int r = s->rank;
	int64_t st, en;
	if (int_arg(c, 1, "start_dim", &st) || int_arg(c, 2, "end_dim", &en))
		return bail(c);
	if (r == 0)
		return reshape_to(c, NULL, x, &(ir_shape){.rank = 1, .dim = {1}});
	int a = ir_axis(st, r), b = ir_axis(en, r);
	if (a < 0 || b < 0 || a > b)
		return unsup(c, "dims %lld..%lld are out of range for rank %d", (long long)st, (long long)en, r);
	if (a == b)
		return c->a[0];
	if (a == 1 && b == r - 1) {
		int out, n = emit(c, NULL, IR_OP_FLATTEN, &x, 1, &out, 1);
		ib_set_i(c->b, n, "axis", 1);
		return done1(c, n);
	}
	ir_shape o = {0};
	for (int i = 0; i < r; i++) {
		if (i <= a || i > b)
			o.dim[o.rank++] = s->dim[i];
		else
			o.dim[o.rank - 1] *= s->dim[i];
	}
	return reshape_to(c, NULL, x, &o);
}

/* view/reshape to a size list (with at most one -1) */
static ts_val *reshape_list(cx *c, int x, const ts_val *sv)
{
	int64_t d[IR_MAX_RANK];
	int k = get_ints(sv, d, IR_MAX_RANK);
	if (k < 0)
		return unsup(c, "the size must be a list of at most %d ints", IR_MAX_RANK);
	int64_t total = ir_shape_numel(&irt(c, x)->shape), known = 1;
	int infer = -1;
	ir_shape o = {.rank = k};
	for (int i = 0; i < k; i++) {
		if (d[i] == -1 && infer < 0) {
			infer = i;
			continue;
		}
		if (d[i] > IR_MAX_DIM || ir_mul_checked(&known, d[i], IR_MAX_ELEMS))
			return unsup(c, "bad size %lld", (long long)d[i]);
		o.dim[i] = d[i];
	}
	if (infer >= 0) {
		if (!known || total % known)
			return unsup(c, "cannot infer -1 for %lld elements", (long long)total);
		o.dim[infer] = total / known;
	}
	if (ir_shape_numel(&o) != total)
		return unsup(c, "cannot view %lld elements as the size given", (long long)total);
	if (ir_shape_equal(&o, &irt(c, x)->shape))
		return tval(c->im, x);
	return reshape_to(c, NULL, x, &o);
}

static ts_val *h_view(cx *c)
{
	TENSOR(x, 0, "input");
	return reshape_list(c, x, c->a[1]);
}

static ts_val *h_view_as(cx *c)
{
	TENSOR(x, 0, "input");
	if (!is_tensor(c->a[1]))
		return unsup(c, "other must be a tensor");
	const ir_shape *s = &c->a[1]->t->shape;
	if (ir_shape_equal(s, &irt(c, x)->shape))
		return c->a[0];
	return reshape_to(c, NULL, x, s);
}

static ts_val *h_unsqueeze(cx *c)
{
	TENSOR(x, 0, "input");
	int a = axis_arg(c, 1, irt(c, x)->shape.rank + 1, "dim");
	if (a < 0)
		return bail(c);
	int out, n = emit(c, NULL, IR_OP_UNSQUEEZE, &x, 1, &out, 1);
	ib_set_is(c->b, n, "axes", (const int64_t[]){a}, 1);
	return done1(c, n);
}

static ts_val *h_squeeze(cx *c)
{
	TENSOR(x, 0, "input");
	const ir_shape *s = &irt(c, x)->shape;
	int64_t axes[IR_MAX_RANK], keep[IR_MAX_RANK];
	int k = dims_arg(c, c->a[1], s->rank, axes), m = 0;
	if (k < 0)
		return bail(c);
	for (int i = 0; i < k; i++)	/* torch leaves dimensions other than 1 alone */
		if (s->dim[axes[i]] == 1)
			keep[m++] = axes[i];
	if (!m)
		return c->a[0];
	int out, n = emit(c, NULL, IR_OP_SQUEEZE, &x, 1, &out, 1);
	ib_set_is(c->b, n, "axes", keep, m);
	return done1(c, n);
}

static ts_val *h_permute(cx *c)
{
	TENSOR(x, 0, "input");
	int r = irt(c, x)->shape.rank;
	int64_t p[IR_MAX_RANK];
	int k = get_ints(c->a[1], p, IR_MAX_RANK);
	bool seen[IR_MAX_RANK] = {0}, ident = true;
	if (k != r)
		return unsup(c, "dims must list all %d dimensions", r);
	for (int i = 0; i < r; i++) {
		int a = ir_axis(p[i], r);
		if (a < 0 || seen[a])
			return unsup(c, "dims is not a permutation");
		seen[a] = true;
		p[i] = a;
		ident &= a == i;
	}
	return ident ? c->a[0] : transpose_to(c, NULL, x, p, r);
}

static ts_val *h_transpose(cx *c)
{
	TENSOR(x, 0, "input");
	int r = irt(c, x)->shape.rank, a = axis_arg(c, 1, r, "dim0"), b = a < 0 ? -1 : axis_arg(c, 2, r, "dim1");
	if (a < 0 || b < 0)
		return bail(c);
	if (a == b)
		return c->a[0];
	int64_t p[IR_MAX_RANK];
	for (int i = 0; i < r; i++)
		p[i] = i;
	p[a] = b;
	p[b] = a;
	return transpose_to(c, NULL, x, p, r);
}

/* The tensors of a list argument (at most max); count or -1. */
static int tensor_list(cx *c, const ts_val *l, int *ids, int max)
{
	if (!is_seq(l) || l->n < 1 || l->n > max)
		return unsup(c, "expected a list of 1 to %d tensors", max), -1;
	ts_val *v[1024];
	for (int i = 0; i < l->n; i++)
		v[i] = l->v[i];
	ir_dtype dt = result_dtype(v, l->n);
	for (int i = 0; i < l->n; i++) {
		if (!is_tensor(l->v[i]))
			return unsup(c, "expected a list of tensors"), -1;
		if ((ids[i] = operand(c, l->v[i], dt)) < 0)
			return -1;
	}
	return l->n;
}

static ts_val *h_cat(cx *c)
{
	int ids[1024], k = tensor_list(c, c->a[0], ids, 1024);
	if (k < 0)
		return bail(c);
	int a = axis_arg(c, 1, irt(c, ids[0])->shape.rank, "dim");
	if (a < 0)
		return bail(c);
	if (k == 1)
		return tval(c->im, ids[0]);
	int out, n = emit(c, NULL, IR_OP_CONCAT, ids, k, &out, 1);
	ib_set_i(c->b, n, "axis", a);
	return done1(c, n);
}

static ts_val *h_stack(cx *c)
{
	int ids[1024], k = tensor_list(c, c->a[0], ids, 1024);
	if (k < 0)
		return bail(c);
	int a = axis_arg(c, 1, irt(c, ids[0])->shape.rank + 1, "dim");
	if (a < 0)
		return bail(c);
	for (int i = 0; i < k; i++) {
		int out, n = emit(c, ts_sprintf(&c->im->a, "unsqueeze%d", i), IR_OP_UNSQUEEZE, &ids[i], 1, &out, 1);
		ib_set_is(c->b, n, "axes", (const int64_t[]){a}, 1);
		if (done(c, n))
			return bail(c);
		ids[i] = out;
	}
	if (k == 1)
		return tval(c->im, ids[0]);
	int out, n = emit(c, NULL, IR_OP_CONCAT, ids, k, &out, 1);
	ib_set_i(c->b, n, "axis", a);
	return done1(c, n);
}

/* Split x along axis into pieces of the given sizes: a list of values;
 * squeeze drops the axis from each (unbind). */
static ts_val *split_into(cx *c, int x, int axis, const int64_t *sizes, int k, bool squeeze)
{
	imp *im = c->im;
	ts_val *list = mk(im, TS_LIST);
	int *outs = malloc(sizeof(int) * (size_t)k);
	if (!list || !outs) {
		free(outs);
		return oom(im);
	}
	int n = k == 1 ? -1 : emit(c, squeeze ? "split" : NULL, IR_OP_SPLIT, &x, 1, outs, k);
	if (k == 1)
		outs[0] = x;
	ib_set_i(c->b, n, "axis", axis);
	ib_set_is(c->b, n, "split", sizes, k);
	int r = k == 1 ? 0 : done(c, n);
	for (int i = 0; r == 0 && i < k; i++) {
		int o = outs[i];
		if (squeeze) {
			int sq = emit(c, ts_sprintf(&im->a, "%d", i), IR_OP_SQUEEZE, &outs[i], 1, &o, 1);
			ib_set_is(c->b, sq, "axes", (const int64_t[]){axis}, 1);
			r = done(c, sq);
		}
		ts_val *v = r ? NULL : tval(im, o);
		if (!r && (!v || ts_append(&im->a, list, v)))
			r = -1;
	}
	free(outs);
	if (r)
		return r > 0 ? im->poison : bail(c);
	return list;
}

/* split (an int size or a list), split_with_sizes, chunk, unbind */
static ts_val *h_split(cx *c)
{
	TENSOR(x, 0, "input");
	const ir_shape *s = &irt(c, x)->shape;
	int kind = (int)c->e->p;	/* 0 split, 1 chunk, 2 unbind */
	int a = axis_arg(c, kind == 2 ? 1 : 2, s->rank, "dim");
	if (a < 0)
		return bail(c);
	int64_t total = s->dim[a], each, sizes[1024];
	int k = 0;
	if (kind == 2) {
		if (total < 1 || total > 1024)
			return unsup(c, "unbinding %lld pieces is not supported", (long long)total);
		for (k = 0; k < total; k++)
			sizes[k] = 1;
		return split_into(c, x, a, sizes, k, true);
	}
	if (is_seq(c->a[1])) {
		if ((k = get_ints(c->a[1], sizes, 1024)) < 1)
			return unsup(c, "split sizes must be 1 to 1024 ints");
		return split_into(c, x, a, sizes, k, false);
	}
	if (int_arg(c, 1, kind ? "chunks" : "split_size", &each))
		return bail(c);
	if (each < 1)
		return unsup(c, "%s must be positive", kind ? "chunks" : "split_size");
	if (kind == 1)	/* chunk: pieces of ceil(total / chunks) */
		each = total ? (total + each - 1) / each : 1;
	if (total / each >= 1024)
		return unsup(c, "more than 1024 pieces are not supported");
	for (int64_t done_ = 0; done_ < total || k == 0; done_ += each)
		sizes[k++] = total - done_ < each ? total - done_ : each;
	return split_into(c, x, a, sizes, k, false);
}

static ts_val *slice_node(cx *c, int x, int axis, int64_t start, int64_t end, int64_t step, const char *suffix)
{
	int out, n = emit(c, suffix, IR_OP_SLICE, &x, 1, &out, 1);
	ib_set_is(c->b, n, "starts", &start, 1);
	ib_set_is(c->b, n, "ends", &end, 1);
	ib_set_is(c->b, n, "axes", (const int64_t[]){axis}, 1);
	ib_set_is(c->b, n, "steps", &step, 1);
	return done1(c, n);
}

static ts_val *h_slice(cx *c)
{
	TENSOR(x, 0, "input");
	const ir_shape *s = &irt(c, x)->shape;
	int a = axis_arg(c, 1, s->rank, "dim");
	int64_t start = 0, end = INT64_MAX, step;
	if (a < 0 || (!is_none(c->a[2]) && int_arg(c, 2, "start", &start)) ||
	    (!is_none(c->a[3]) && int_arg(c, 3, "end", &end)) || int_arg(c, 4, "step", &step))
		return bail(c);
	if (step < 1)
		return unsup(c, "step must be positive");
	int64_t dim = s->dim[a];
	if (step == 1 && (start == 0 || start <= -dim) && end >= dim)
		return c->a[0];	/* the whole dimension: TorchScript writes these for x[:, 1] */
	return slice_node(c, x, a, start, end, step, NULL);
}

static ts_val *h_narrow(cx *c)
{
	TENSOR(x, 0, "input");
	int a = axis_arg(c, 1, irt(c, x)->shape.rank, "dim");
	int64_t start, len;
	if (a < 0 || int_arg(c, 2, "start", &start) || int_arg(c, 3, "length", &len))
		return bail(c);
	if (start < 0)
		start += irt(c, x)->shape.dim[a];
	return slice_node(c, x, a, start, start + len, 1, NULL);
}

static ts_val *h_select(cx *c)
{
	TENSOR(x, 0, "input");
	const ir_shape *s = &irt(c, x)->shape;
	int a = axis_arg(c, 1, s->rank, "dim");
	int64_t idx;
	if (a < 0 || int_arg(c, 2, "index", &idx))
		return bail(c);
	if (idx < -s->dim[a] || idx >= s->dim[a])
		return unsup(c, "index %lld is out of range for size %lld", (long long)idx, (long long)s->dim[a]);
	if (idx < 0)
		idx += s->dim[a];
	ts_val *iv = host_scalar(c->im, IR_DTYPE_I64, (double)idx, idx);
	int in[2] = {x, const_id(c, iv, "index")};
	if (in[1] < 0)
		return bail(c);
	int out, n = emit(c, NULL, IR_OP_GATHER, in, 2, &out, 1);
	ib_set_i(c->b, n, "axis", a);
	return done1(c, n);
}

/* pad list (last dimension first, begin/end pairs) to IR pads */
static ts_val *pad(cx *c, int x, const ts_val *pv, const char *mode, double value, int64_t pairs_expected)
{
	int64_t p[2 * IR_MAX_RANK], pads[2 * IR_MAX_RANK] = {0};
	int r = irt(c, x)->shape.rank, k = get_ints(pv, p, 2 * IR_MAX_RANK);
	if (k < 0 || k % 2 || k / 2 > r || (pairs_expected && k != 2 * pairs_expected))
		return unsup(c, "pad must be pairs of ints for at most %d dimensions", r);
	for (int i = 0; i < k / 2; i++) {
		pads[r - 1 - i] = p[2 * i];
		pads[2 * r - 1 - i] = p[2 * i + 1];
	}
	int out, n = emit(c, NULL, IR_OP_PAD, &x, 1, &out, 1);
	ib_set_is(c->b, n, "pads", pads, 2 * r);
	ib_set_s(c->b, n, "mode", mode);
	if (!strcmp(mode, "constant"))
		ib_set_f(c->b, n, "value", value);
	return done1(c, n);
}

static ts_val *h_pad(cx *c)	/* pad(x, pad, mode, value) and constant_pad_nd(x, pad, value) */
{
	TENSOR(x, 0, "input");
	bool nd = c->e->p == 1;
	const ts_val *mv = nd ? NULL : c->a[2], *vv = c->a[nd ? 2 : 3];
	const char *mode = "constant";
	if (mv) {
		if (mv->kind != TS_STR)
			return unsup(c, "mode must be a string");
		mode = !strcmp(mv->s, "replicate") ? "edge" : mv->s;
		if (strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "edge"))
			return unsup(c, "mode '%s' is not supported", mv->s);
	}
	if (!is_none(vv) && !is_num(vv))
		return unsup(c, "value must be a number");
	return pad(c, x, c->a[1], mode, is_none(vv) ? 0 : num(vv), 0);
}

static ts_val *h_pad_mode(cx *c)	/* reflection_padNd, replication_padNd */
{
	TENSOR(x, 0, "input");
	return pad(c, x, c->a[1], c->e->p ? "edge" : "reflect", 0, 0);
}

/* upsample_{nearest,bilinear}Nd in their two signatures:
 *   (x, output_size or None, [align_corners,] scale_factors or None)   torch >= 1.7
 *   (x, output_size, [align_corners,] scales_d..., )                    older */
static ts_val *h_upsample(cx *c)
{
	TENSOR(x, 0, "input");
	bool linear = c->e->op == 1;
	const ir_tensor *xt = irt(c, x);
	int r = xt->shape.rank, nsp = r - 2, first = linear ? 3 : 2;
	if (nsp != (int)c->e->p)
		return unsup(c, "the input has rank %d, expected %d", r, (int)c->e->p + 2);
	int64_t sizes[IR_MAX_RANK], osz[3];
	double scales[IR_MAX_RANK], sf[3];
	bool has_size = !is_none(c->a[1]), has_scales = false;
	if (has_size && ints_n(c, 1, nsp, osz, "output_size"))
		return bail(c);
	const ts_val *sv = c->a[first];
	if (is_seq(sv)) {
		if (sv->n != nsp)
			return unsup(c, "scale_factors must have %d values", nsp);
		for (int i = 0; i < nsp; i++) {
			if (!is_num(sv->v[i]))
				return unsup(c, "scale_factors must be numbers");
			sf[i] = num(sv->v[i]);
		}
		has_scales = true;
	} else {
		for (int i = 0; i < nsp; i++) {
			const ts_val *e = first + i < c->n ? c->a[first + i] : NULL;
			if (!is_none(e) && !is_num(e))
				return unsup(c, "scales must be numbers");
			sf[i] = is_none(e) ? 0 : num(e);
			has_scales |= !is_none(e);
		}
		for (int i = 0; i < nsp && has_scales; i++)
			if (sf[i] == 0)
				return unsup(c, "scales must be given for every dimension");
	}
	if (!has_size && !has_scales)
		return unsup(c, "either output_size or scale_factors is required");
	for (int i = 0; i < r; i++) {
		sizes[i] = xt->shape.dim[i];
		scales[i] = 1;
	}
	for (int i = 0; i < nsp; i++) {
		if (has_scales && !(sf[i] > 0 && sf[i] < 1e6))
			return unsup(c, "bad scale factor %g", sf[i]);
		sizes[2 + i] = has_size ? osz[i] : (int64_t)floor((double)xt->shape.dim[2 + i] * sf[i]);
		if (sizes[2 + i] < 1 || sizes[2 + i] > IR_MAX_DIM)
			return unsup(c, "bad output size");
		scales[2 + i] = has_scales ? sf[i] : 1;
	}
	int64_t align = 0;
	if (linear && int_arg(c, 2, "align_corners", &align))
		return bail(c);
	int out, n = emit(c, NULL, IR_OP_RESIZE, &x, 1, &out, 1);
	ib_set_is(c->b, n, "sizes", sizes, r);
	/* torch maps coordinates with 1/scale_factor when one is given,
	 * with in/out otherwise */
	if (has_scales)
		ib_set_fs(c->b, n, "scales", scales, r);
	ib_set_s(c->b, n, "mode", linear ? "linear" : "nearest");
	ib_set_s(c->b, n, "coordinate_transformation_mode",
	      !linear ? "asymmetric" : align ? "align_corners" : "pytorch_half_pixel");
	if (!linear)
		ib_set_s(c->b, n, "nearest_mode", "floor");
	return done1(c, n);
}

static ts_val *h_pixel_shuffle(cx *c)
{
	int64_t b;
	TENSOR(x, 0, "input");
	if (int_arg(c, 1, "upscale_factor", &b))
		return bail(c);
	int out, n = emit(c, NULL, IR_OP_DEPTH_TO_SPACE, &x, 1, &out, 1);
	ib_set_i(c->b, n, "blocksize", b);
	ib_set_s(c->b, n, "mode", "CRD");
	return done1(c, n);
}

static ts_val *h_embedding(cx *c)
{
	TENSOR(w, 0, "weight");
	TENSOR(idx, 1, "indices");
	int in[2] = {w, idx};
	int out, n = emit(c, NULL, IR_OP_GATHER, in, 2, &out, 1);
	ib_set_i(c->b, n, "axis", 0);
	return done1(c, n);
}

static ts_val *h_to(cx *c)	/* to(x, dtype | device | other, ...), type_as */
{
	if (!is_tensor(c->a[0]))
		return unsup(c, "the input must be a tensor");
	int dt = -1;
	for (int i = 1; i < c->n && dt < 0; i++) {
		if (c->a[i]->kind == TS_INT && (i == 1 || c->a[i - 1]->kind == TS_DEVICE || is_none(c->a[i - 1]) ||
						c->a[i - 1]->kind == TS_STR))
			dt = dtype_from_scalar_type(c->a[i]->i);
		else if (i == 1 && is_tensor(c->a[1]))
			dt = c->a[1]->t->dtype;
	}
	if (dt < 0 || (ir_dtype)dt == c->a[0]->t->dtype)
		return c->a[0];
	TENSOR(x, 0, "input");
	int out, n = emit(c, NULL, IR_OP_CAST, &x, 1, &out, 1);
	ib_set_s(c->b, n, "to", ir_dtype_name((ir_dtype)dt));
	return done1(c, n);
}

/* ---------------------------------------------------------------- recurrent */

/* A float parameter as f32 host data. */
static const float *host_f32(cx *c, ts_val *v, int64_t numel)
{
	if (!is_host(v) || ir_shape_numel(&v->t->shape) != numel || !dt_float(v->t->dtype)) {
		unsup(c, "the weights must be float constants of the expected sizes");
		return NULL;
	}
	if (load(c->im, v->t))
		return c->b->failed = true, NULL;
	if (v->t->dtype == IR_DTYPE_F32)
		return v->t->data;
	float *f = ts_alloc_array(&c->im->a, (size_t)numel, sizeof *f);
	if (!f)
		return oom(c->im), c->b->failed = true, NULL;
	for (int64_t i = 0; i < numel; i++)
		f[i] = (float)hget(v->t, i);
	return f;
}

/* A torch state [D, B, H] (rows l*D .. l*D+D-1 of hx) in the IR's layout. */
static int state_in(cx *c, ts_val *hx, int l, int64_t D, int64_t B, int64_t H, bool batch_first, const char *what)
{
	imp *im = c->im;
	ir_shape s = {.rank = 3, .dim = {D, B, H}};
	int x;
	if (is_host(hx)) {
		if (load(im, hx->t))
			return c->b->failed = true, -1;
		ts_val *part = host_new(im, hx->t->dtype, &s);
		if (!part)
			return c->b->failed = true, -1;
		size_t bytes = (size_t)(D * B * H) * ir_dtype_size(hx->t->dtype);
		memcpy(part->t->data, (uint8_t *)hx->t->data + (size_t)l * bytes, bytes);
		if ((x = operand(c, part, IR_DTYPE_F32)) < 0)
			return -1;
	} else {
		bool bad = false;
		if ((x = arg_id(c, hx, what, &bad)) < 0)
			return -1;
		if (irt(c, x)->shape.dim[0] != D) {
			ts_val *v = slice_node(c, x, 0, l * D, (l + 1) * D, 1, ts_sprintf(&im->a, "l%d/%s", l, what));
			if (!v || v->kind != TS_TENSOR)
				return -1;
			x = v->t->id;
		}
	}
	if (!batch_first)
		return x;
	/* layout 1 wants [B, D, H] */
	ts_val *v = D == 1 || B == 1 ? reshape_to(c, ts_sprintf(&im->a, "l%d/%s_bf", l, what), x,
						  &(ir_shape){.rank = 3, .dim = {B, D, H}})
				     : transpose_to(c, ts_sprintf(&im->a, "l%d/%s_bf", l, what), x, (const int64_t[]){1, 0, 2}, 3);
	return v && v->kind == TS_TENSOR ? v->t->id : -1;
}

/* rnn_tanh, gru, lstm(input, hx, params, has_biases, num_layers, dropout,
 * train, bidirectional, batch_first): one IR node per layer, weights
 * reordered to ONNX's gate order. */
static ts_val *h_rnn(cx *c)
{
	imp *im = c->im;
	int kind = (int)c->e->p;	/* 0 rnn_tanh, 1 gru, 2 lstm */
	static const int gates[3] = {1, 3, 4}, ir_op[3] = {IR_OP_RNN, IR_OP_GRU, IR_OP_LSTM};
	/* ONNX gate k comes from torch gate perm[k]: GRU z,r,h <- r,z,n; LSTM i,o,f,c <- i,f,g,o */
	static const int perm[3][4] = {{0}, {1, 0, 2}, {0, 3, 1, 2}};
	int64_t has_b, L, train, bidir, bf;
	TENSOR(x, 0, "input");
	if (int_arg(c, 3, "has_biases", &has_b) || int_arg(c, 4, "num_layers", &L) || int_arg(c, 6, "train", &train) ||
	    int_arg(c, 7, "bidirectional", &bidir) || int_arg(c, 8, "batch_first", &bf))
		return bail(c);
	if (train)
		return unsup(c, "training mode is not supported (save the model in eval mode)");
	const ts_val *params = c->a[2];
	int64_t D = bidir ? 2 : 1, G = gates[kind], per = has_b ? 4 : 2;
	if (L < 1 || L > 64 || !is_seq(params) || params->n != L * D * per)
		return unsup(c, "%s weights (projections, or a packed sequence input, are not supported)",
			     is_seq(params) ? "unexpected number of" : "missing");
	ts_val *h0 = c->a[1], *c0 = NULL;
	if (kind == 2) {
		if (!is_seq(h0) || h0->n != 2)
			return unsup(c, "hx must be a list of two tensors");
		c0 = h0->v[1];
		h0 = h0->v[0];
	}
	const ir_shape xs = irt(c, x)->shape;
	if (xs.rank != 3)
		return unsup(c, "the input must have rank 3 (unbatched input is not supported)");
	if (!is_tensor(params->v[1]) || params->v[1]->t->shape.rank != 2)
		return unsup(c, "bad weight_hh");
	int64_t H = params->v[1]->t->shape.dim[1], B = xs.dim[bf ? 0 : 1], S = xs.dim[bf ? 1 : 0];
	ts_val *hs[64], *cs[64];
	int in = x;
	for (int l = 0; l < L; l++) {
		int64_t I = irt(c, in)->shape.dim[2], GH = G * H;
		ir_shape ws = {.rank = 3, .dim = {D, GH, I}}, rs = {.rank = 3, .dim = {D, GH, H}},
			 bs = {.rank = 2, .dim = {D, 2 * GH}};
		ts_val *W = host_new(im, IR_DTYPE_F32, &ws), *R = host_new(im, IR_DTYPE_F32, &rs),
		       *Bv = has_b ? host_new(im, IR_DTYPE_F32, &bs) : NULL;
		if (!W || !R || (has_b && !Bv))
			return NULL;
		for (int64_t d = 0; d < D; d++) {
			ts_val *const *p = params->v + (l * D + d) * per;
			const float *wi = host_f32(c, p[0], GH * I), *wh = wi ? host_f32(c, p[1], GH * H) : NULL;
			const float *bi = wh && has_b ? host_f32(c, p[2], GH) : NULL, *bh = bi ? host_f32(c, p[3], GH) : NULL;
			if (!wh || (has_b && !bh))
				return bail(c);
			float *wo = (float *)W->t->data + d * GH * I, *ro = (float *)R->t->data + d * GH * H;
			float *bo = has_b ? (float *)Bv->t->data + d * 2 * GH : NULL;
			for (int g = 0; g < G; g++) {
				int64_t src = perm[kind][g] * H;
				memcpy(wo + g * H * I, wi + src * I, sizeof(float) * (size_t)(H * I));
				memcpy(ro + g * H * H, wh + src * H, sizeof(float) * (size_t)(H * H));
				if (has_b) {
					memcpy(bo + g * H, bi + src, sizeof(float) * (size_t)H);
					memcpy(bo + GH + g * H, bh + src, sizeof(float) * (size_t)H);
				}
			}
		}
		const char *sfx = l ? ts_sprintf(&im->a, "l%d", l) : NULL;
		int ins[8] = {cast_to(c, in, IR_DTYPE_F32), const_id(c, W, ts_sprintf(&im->a, "l%d/W", l)),
			      const_id(c, R, ts_sprintf(&im->a, "l%d/R", l)),
			      has_b ? const_id(c, Bv, ts_sprintf(&im->a, "l%d/B", l)) : -1, -1, -1, -1};
		int nin = 6;
		if (ins[0] < 0 || ins[1] < 0 || ins[2] < 0 || (has_b && ins[3] < 0))
			return bail(c);
		if (!is_none(h0) && (ins[5] = state_in(c, h0, l, D, B, H, bf, "h0")) < 0)
			return bail(c);
		if (kind == 2 && !is_none(c0)) {
			if ((ins[6] = state_in(c, c0, l, D, B, H, bf, "c0")) < 0)
				return bail(c);
			nin = 7;
		}
		int outs[3], no = kind == 2 ? 3 : 2;
		int n = emit(c, sfx, ir_op[kind], ins, nin, outs, no);
		ib_set_i(c->b, n, "hidden_size", H);
		ib_set_s(c->b, n, "direction", D == 2 ? "bidirectional" : "forward");
		ib_set_i(c->b, n, "layout", bf != 0);
		if (kind == 1)
			ib_set_i(c->b, n, "linear_before_reset", 1);
		int r = done(c, n);
		if (r)
			return r > 0 ? im->poison : NULL;
		/* Y [S, D, B, H] (layout 1: [B, S, D, H]) to torch's [S, B, D*H] */
		ir_shape ys = bf ? (ir_shape){.rank = 3, .dim = {B, S, D * H}} : (ir_shape){.rank = 3, .dim = {S, B, D * H}};
		ts_val *y;
		if (bf || D == 1) {
			y = reshape_to(c, ts_sprintf(&im->a, "l%d/y", l), outs[0], &ys);
		} else {
			y = transpose_to(c, ts_sprintf(&im->a, "l%d/y_t", l), outs[0], (const int64_t[]){0, 2, 1, 3}, 4);
			if (y && y->kind == TS_TENSOR)
				y = reshape_to(c, ts_sprintf(&im->a, "l%d/y", l), y->t->id, &ys);
		}
		if (!y || y->kind != TS_TENSOR)
			return y;
		in = y->t->id;
		/* states back to torch's [D, B, H] */
		for (int k = 1; k < no; k++) {
			ts_val *s = tval(im, outs[k]);
			if (s && bf)
				s = D == 1 || B == 1 ? reshape_to(c, ts_sprintf(&im->a, "l%d/%s", l, k == 1 ? "h" : "c"), outs[k],
								  &(ir_shape){.rank = 3, .dim = {D, B, H}})
						     : transpose_to(c, ts_sprintf(&im->a, "l%d/%s", l, k == 1 ? "h" : "c"),
								    outs[k], (const int64_t[]){1, 0, 2}, 3);
			if (!s || s->kind != TS_TENSOR)
				return s;
			(k == 1 ? hs : cs)[l] = s;
		}
	}
	ts_val *res[3] = {tval(im, in), hs[0], kind == 2 ? cs[0] : NULL};
	for (int k = 1; k < (kind == 2 ? 3 : 2) && L > 1; k++) {
		ts_val **st = k == 1 ? hs : cs;
		int ids[64], out;
		for (int l = 0; l < L; l++)
			ids[l] = st[l]->t->id;
		int n = emit(c, k == 1 ? "h_n" : "c_n", IR_OP_CONCAT, ids, (int)L, &out, 1);
		ib_set_i(c->b, n, "axis", 0);
		if (!(res[k] = done1(c, n)) || res[k]->kind != TS_TENSOR)
			return res[k];
	}
	return res[0] ? mk_seq(im, TS_TUPLE, res, kind == 2 ? 3 : 2) : NULL;
}

/* ---------------------------------------------------------------- values made at import time */

static int dtype_arg(cx *c, const ts_val *v, ir_dtype def)
{
	if (is_none(v))
		return def;
	int dt = v->kind == TS_INT ? dtype_from_scalar_type(v->i) : -1;
	if (dt < 0)
		unsup(c, "dtype %s is not supported", v->kind == TS_INT ? "code" : ts_kind_name(v->kind));
	return dt;
}

/* zeros, ones, full, and their _like forms */
static ts_val *h_fill(cx *c)
{
	bool like = c->e->op == 1, full = c->e->p < 0;
	ir_shape s = {0};
	ir_dtype def = IR_DTYPE_F32;
	if (like) {
		if (!is_tensor(c->a[0]))
			return unsup(c, "the input must be a tensor");
		s = c->a[0]->t->shape;
		def = c->a[0]->t->dtype;
	} else {
		int k = get_ints(c->a[0], s.dim, IR_MAX_RANK);
		if (k < 0)
			return unsup(c, "the size must be a list of ints");
		s.rank = k;
		for (int i = 0; i < k; i++)
			if (s.dim[i] < 0 || s.dim[i] > IR_MAX_DIM)
				return unsup(c, "bad size");
	}
	double v = full ? 0 : c->e->p;
	int iv = full ? 1 : 0;	/* index of fill_value */
	if (full) {
		if (num_arg(c, iv, "fill_value", &v))
			return bail(c);
		if (c->a[iv]->kind == TS_FLOAT && !like)
			def = IR_DTYPE_F32;
		else if (!like)
			def = c->a[iv]->kind == TS_BOOL ? IR_DTYPE_BOOL : IR_DTYPE_I64;
	}
	int dt = dtype_arg(c, c->a[full ? 2 : 1], def);
	if (dt < 0)
		return bail(c);
	if (ir_shape_numel(&s) < 0 || (uint64_t)ir_shape_numel(&s) > MAX_HOST_BYTES / ir_dtype_size((ir_dtype)dt))
		return unsup(c, "the tensor is too large to make at import time");
	ts_val *t = host_new(c->im, (ir_dtype)dt, &s);
	for (int64_t i = 0, n = ir_shape_numel(&s); t && i < n; i++)
		hput(t->t, i, v, (int64_t)v);
	return t;
}

/* torch.tensor(data, dtype, device, requires_grad) of numbers */
static int flatten_nums(const ts_val *v, ir_shape *s, int depth, double *out, int64_t *n, int64_t max, bool *flt)
{
	if (is_num(v)) {
		if (depth != s->rank || *n >= max)
			return -1;
		*flt |= v->kind == TS_FLOAT;
		out[(*n)++] = num(v);
		return 0;
	}
	if (!is_seq(v) || depth >= IR_MAX_RANK)
		return -1;
	if (depth == s->rank) {
		s->dim[s->rank++] = v->n;
	} else if (s->dim[depth] != v->n) {
		return -1;
	}
	for (int i = 0; i < v->n; i++)
		if (flatten_nums(v->v[i], s, depth + 1, out, n, max, flt))
			return -1;
	return 0;
}

static ts_val *h_tensor(cx *c)
{
	ir_shape s = {0};
	int64_t n = 0;
	bool flt = false;
	double *vals = ts_alloc_array(&c->im->a, (size_t)MAX_FOLD, sizeof *vals);
	if (!vals)
		return oom(c->im);
	if (flatten_nums(c->a[0], &s, 0, vals, &n, MAX_FOLD, &flt))
		return unsup(c, "only (nested) lists of numbers are supported");
	int dt = dtype_arg(c, c->a[1], flt ? IR_DTYPE_F32 : c->a[0]->kind == TS_BOOL ? IR_DTYPE_BOOL : IR_DTYPE_I64);
	if (dt < 0)
		return bail(c);
	ts_val *t = host_new(c->im, (ir_dtype)dt, &s);
	for (int64_t i = 0; t && i < n; i++)
		hput(t->t, i, vals[i], (int64_t)vals[i]);
	return t;
}

static ts_val *h_arange(cx *c)
{
	double a[3] = {0, 0, 1};
	int k = 0;
	bool flt = false;
	for (int i = 0; i < 3 && is_num(c->a[i]); i++) {
		a[k++] = num(c->a[i]);
		flt |= c->a[i]->kind == TS_FLOAT;
	}
	if (k == 0)
		return unsup(c, "the bounds must be numbers");
	double lo = k == 1 ? 0 : a[0], hi = k == 1 ? a[0] : a[1], step = k == 3 ? a[2] : 1;
	double cnt = step == 0 ? -1 : ceil((hi - lo) / step);
	if (!(cnt >= 0 && cnt <= (double)MAX_FOLD))
		return unsup(c, "bad range");
	int dt = dtype_arg(c, c->a[3], flt ? IR_DTYPE_F32 : IR_DTYPE_I64);
	if (dt < 0)
		return bail(c);
	ts_val *t = host_new(c->im, (ir_dtype)dt, &(ir_shape){.rank = 1, .dim = {(int64_t)cnt}});
	for (int64_t i = 0; t && i < (int64_t)cnt; i++)
		hput(t->t, i, lo + (double)i * step, (int64_t)(lo + (double)i * step));
	return t;
}

/* ---------------------------------------------------------------- shapes and Python values */

static ts_val *h_size(cx *c)
{
	if (!is_tensor(c->a[0]))
		return unsup(c, "the input must be a tensor");
	const ir_shape *s = &c->a[0]->t->shape;
	if (!is_none(c->a[1])) {
		int a = axis_arg(c, 1, s->rank, "dim");
		return a < 0 ? bail(c) : mk_int(c->im, s->dim[a]);
	}
	ts_val *l = mk(c->im, TS_LIST);
	for (int i = 0; l && i < s->rank; i++)
		if (ts_append(&c->im->a, l, mk_int(c->im, s->dim[i])) || !l->v[i])
			return oom(c->im);
	return l;
}

static ts_val *h_dim(cx *c)
{
	if (!is_tensor(c->a[0]))
		return unsup(c, "the input must be a tensor");
	const ir_shape *s = &c->a[0]->t->shape;
	return mk_int(c->im, c->e->p ? ir_shape_numel(s) : s->rank);
}

static ts_val *h_len(cx *c)
{
	const ts_val *v = c->a[0];
	if (is_seq(v) || v->kind == TS_DICT)
		return mk_int(c->im, v->n);
	if (v->kind == TS_STR)
		return mk_int(c->im, (int64_t)v->len);
	if (is_tensor(v) && v->t->shape.rank > 0)
		return mk_int(c->im, v->t->shape.dim[0]);
	return unsup(c, "len() of %s", ts_kind_name(v->kind));
}

/* NumToTensor: a number as a 0-dim tensor known at import time */
static ts_val *h_num_to_tensor(cx *c)
{
	const ts_val *v = c->a[0];
	if (!is_num(v))
		return unsup(c, "the input must be a number");
	ir_dtype dt = v->kind == TS_FLOAT ? IR_DTYPE_F32 : v->kind == TS_BOOL ? IR_DTYPE_BOOL : IR_DTYPE_I64;
	return host_scalar(c->im, dt, num(v), v->kind == TS_FLOAT ? (int64_t)v->f : v->i);
}

/* int(x), float(x), bool(x) and aten::Int/Float/Bool/ScalarImplicit: Python numbers */
static ts_val *h_to_number(cx *c)
{
	int kind = (int)c->e->p;	/* 0 int, 1 float, 2 bool, 3 keep */
	ts_val *v = c->a[0];
	double f;
	int64_t i;
	bool flt;
	if (v->kind == TS_RUNTIME || (is_tensor(v) && !is_host(v) && ir_shape_numel(&v->t->shape) == 1))
		return v->kind == TS_RUNTIME ? v : mk(c->im, TS_RUNTIME);
	if (is_num(v)) {
		f = num(v);
		i = v->kind == TS_FLOAT ? (int64_t)v->f : v->i;
		flt = v->kind == TS_FLOAT;
	} else if (is_host(v) && ir_shape_numel(&v->t->shape) == 1) {
		if (load(c->im, v->t))
			return NULL;
		f = hget(v->t, 0);
		i = hgeti(v->t, 0);
		flt = dt_float(v->t->dtype);
	} else if (v->kind == TS_STR && kind == 1) {
		char *end;
		f = strtod(v->s, &end);
		if (*end || end == v->s)
			return unsup(c, "float('%s')", v->s);
		return mk_float(c->im, f);
	} else if (is_tensor(v)) {
		return unsup(c, "converting a tensor computed at run time to a number (data-dependent shapes or values "
			     "are not supported)");
	} else {
		return unsup(c, "converting %s to a number", ts_kind_name(v->kind));
	}
	if (kind == 3)
		kind = flt ? 1 : 0;
	if (kind == 1)
		return mk_float(c->im, f);
	if (kind == 2)
		return mk_bool(c->im, f != 0);
	if (flt && !(f > -9.2e18 && f < 9.2e18))
		return unsup(c, "the number %g does not fit an int", f);
	return mk_int(c->im, flt ? (int64_t)f : i);
}

static ts_val *h_getitem(cx *c)
{
	const ts_val *l = c->a[0];
	int64_t i;
	if (l->kind == TS_DICT) {
		for (int k = 0; k < l->n; k++) {
			const ts_val *key = l->v[2 * k];
			if ((key->kind == TS_STR && c->a[1]->kind == TS_STR && key->len == c->a[1]->len &&
			     !memcmp(key->s, c->a[1]->s, key->len)) ||
			    (key->kind == TS_INT && c->a[1]->kind == TS_INT && key->i == c->a[1]->i))
				return l->v[2 * k + 1];
		}
		return unsup(c, "key not found in the dict");
	}
	if (!is_seq(l) || !get_int(c->a[1], &i))
		return unsup(c, "indexing %s (tensor indexing other than select/slice is not supported)",
			     ts_kind_name(l->kind));
	if (i < -(int64_t)l->n || i >= l->n)
		return unsup(c, "index %lld is out of range for a list of %d", (long long)i, l->n);
	return l->v[i < 0 ? i + l->n : i];
}

static ts_val *h_append(cx *c)
{
	if (c->a[0]->kind != TS_LIST)
		return unsup(c, "append to %s", ts_kind_name(c->a[0]->kind));
	return ts_append(&c->im->a, c->a[0], c->a[1]) ? oom(c->im) : c->a[0];
}

static ts_val *h_list(cx *c)
{
	if (!is_seq(c->a[0]))
		return unsup(c, "list() of %s", ts_kind_name(c->a[0]->kind));
	return mk_seq(c->im, c->e->p ? TS_TUPLE : TS_LIST, c->a[0]->v, c->a[0]->n);
}

static ts_val *h_range(cx *c)
{
	int64_t a[3] = {0, 0, 1};
	int k = 0;
	for (int i = 0; i < 3 && !is_none(c->a[i]); i++)
		if (int_arg(c, i, "range bound", &a[k++]))
			return bail(c);
	int64_t lo = k == 1 ? 0 : a[0], hi = k == 1 ? a[0] : a[1], step = k == 3 ? a[2] : 1;
	if (step == 0)
		return unsup(c, "range() step must not be zero");
	double cnt = ceil(((double)hi - (double)lo) / (double)step);
	if (cnt > (double)MAX_RANGE)
		return unsup(c, "range() of %g items is too long to unroll", cnt);
	ts_val *l = mk(c->im, TS_LIST);
	for (int64_t i = 0; l && i < (int64_t)cnt; i++) {
		ts_val *v = mk_int(c->im, lo + i * step);
		if (!v || ts_append(&c->im->a, l, v))
			return oom(c->im);
	}
	return l;
}

static ts_val *h_range_length(cx *c)	/* aten::__range_length(lo, hi, step) */
{
	int64_t lo, hi, st;
	if (int_arg(c, 0, "lo", &lo) || int_arg(c, 1, "hi", &hi) || int_arg(c, 2, "step", &st))
		return bail(c);
	if (st == 0)
		return unsup(c, "step must not be zero");
	double n = ceil(((double)hi - (double)lo) / (double)st);
	return mk_int(c->im, n > 0 ? (int64_t)n : 0);
}

static ts_val *h_derive_index(cx *c)	/* aten::__derive_index(index, start, step) */
{
	int64_t i, s, st;
	if (int_arg(c, 0, "index", &i) || int_arg(c, 1, "start", &s) || int_arg(c, 2, "step", &st))
		return bail(c);
	return mk_int(c->im, s + i * st);
}

static ts_val *h_none(cx *c) { return c->im->none; }
static ts_val *h_first(cx *c) { return c->a[0]; }	/* unchecked_unwrap_optional, ... */

static ts_val *h_format(cx *c)	/* the message of a branch never taken, usually */
{
	return c->a[0]->kind == TS_STR ? c->a[0] : mk_str(c->im, "");
}

static ts_val *h_raise(cx *c)
{
	const ts_val *m = c->a[0];
	return problem_at(c->im, c->im->line, "the model raises an exception here%s%.200s%s", m->kind == TS_STR ? " ('" : "",
			  m->kind == TS_STR ? m->s : "", m->kind == TS_STR ? "')" : "");
}

static ts_val *h_device(cx *c)
{
	ts_val *d = mk(c->im, TS_DEVICE);
	if (d)
		d->s = c->a[0]->kind == TS_STR ? c->a[0]->s : "cpu";
	return d;
}

static ts_val *h_dtype(cx *c)	/* prim::dtype(x): the ScalarType code */
{
	if (!is_tensor(c->a[0]))
		return unsup(c, "the input must be a tensor");
	return mk_int(c->im, scalar_type_of(c->a[0]->t->dtype));
}

/* ================================================================ the op table
 *
 * torch.X and ops.aten.X look up X, ops.prim.X looks up X too (the names
 * do not collide). A name ending in '_' is the in-place form: its result
 * replaces its first argument's value. */

#define U(name, irop) {name, "self", h_unary, IR_OP_##irop, 0}
#define U_(name, irop) U(name, irop), U(name "_", irop)
static const opdef op_table[] = {
	/* elementwise */
	U_("relu", RELU), U_("sigmoid", SIGMOID), U_("tanh", TANH), U_("hardswish", HARD_SWISH), U_("silu", SILU),
	U_("exp", EXP), U_("log", LOG), U_("sqrt", SQRT), U_("rsqrt", RSQRT), U_("reciprocal", RECIPROCAL),
	U_("neg", NEG), U_("abs", ABS), U_("erf", ERF), U_("floor", FLOOR), U_("ceil", CEIL), U("relu6", RELU6),
	{"hardsigmoid", "self", h_hardsigmoid, 0, 0},
	{"hardsigmoid_", "self", h_hardsigmoid, 0, 0},
	{"hardtanh", "self,min_val=-1.0,max_val=1.0", h_hardtanh, 0, 0},
	{"hardtanh_", "self,min_val=-1.0,max_val=1.0", h_hardtanh, 0, 0},
	{"clamp", "self,min=None,max=None", h_clamp, 0, 0},
	{"clamp_", "self,min=None,max=None", h_clamp, 0, 0},
	{"clip", "self,min=None,max=None", h_clamp, 0, 0},
	{"leaky_relu", "self,negative_slope=0.01", h_leaky_relu, 0, 0},
	{"leaky_relu_", "self,negative_slope=0.01", h_leaky_relu, 0, 0},
	{"elu", "self,alpha=1.0,scale=1.0,input_scale=1.0", h_elu, 0, 0},
	{"elu_", "self,alpha=1.0,scale=1.0,input_scale=1.0", h_elu, 0, 0},
	{"gelu", "self,approximate=\"none\"", h_gelu, 0, 0},
	{"softplus", "self,beta=1,threshold=20", h_softplus, 0, 0},
	{"prelu", "self,weight", h_prelu, 0, 0},
	{"dropout", "input,p,train", h_identity, 0, 1},
	{"dropout_", "input,p,train", h_identity, 0, 1},
	{"feature_dropout", "input,p,train", h_identity, 0, 1},
	{"alpha_dropout", "input,p,train", h_identity, 0, 1},
	{"feature_alpha_dropout", "input,p,train", h_identity, 0, 1},
	{"contiguous", "self,memory_format=0", h_identity, 0, 0},
	{"detach", "self", h_identity, 0, 0},
	{"clone", "self,memory_format=None", h_identity, 0, 0},
	{"to", "self,a=None,b=None,c=None,d=None,e=None,f=None", h_to, 0, 0},
	{"type_as", "self,other", h_to, 0, 0},
	/* arithmetic (tensors and Python numbers) */
	{"add", "self,other,alpha=1", h_binary, 0, B_ADD},
	{"add_", "self,other,alpha=1", h_binary, 0, B_ADD},
	{"sub", "self,other,alpha=1", h_binary, 0, B_SUB},
	{"sub_", "self,other,alpha=1", h_binary, 0, B_SUB},
	{"rsub", "self,other,alpha=1", h_rsub, 0, 0},
	{"mul", "self,other", h_binary, 0, B_MUL},
	{"mul_", "self,other", h_binary, 0, B_MUL},
	{"div", "self,other,rounding_mode=None", h_div, 0, 0},
	{"div_", "self,other,rounding_mode=None", h_div, 0, 0},
	{"true_divide", "self,other", h_binary, 0, B_DIV},
	{"floor_divide", "self,other", h_binary, 0, B_FLOORDIV},
	{"floordiv", "self,other", h_binary, 0, B_FLOORDIV},
	{"remainder", "self,other", h_binary, 0, B_MOD},
	{"pow", "self,exponent", h_binary, 0, B_POW},
	{"maximum", "self,other", h_binary, 0, B_MAX},
	{"minimum", "self,other", h_binary, 0, B_MIN},
	{"max", "self,other=None,keepdim=None", h_maxmin, IR_OP_MAX, 0},
	{"min", "self,other=None,keepdim=None", h_maxmin, IR_OP_MIN, 0},
	{"eq", "self,other", h_compare, 0, 0},
	{"ne", "self,other", h_compare, 0, 1},
	{"lt", "self,other", h_compare, 0, 2},
	{"le", "self,other", h_compare, 0, 3},
	{"gt", "self,other", h_compare, 0, 4},
	{"ge", "self,other", h_compare, 0, 5},
	{"__not__", "self", h_logic, 0, 0},
	{"__and__", "self,other", h_logic, 0, 1},
	{"__or__", "self,other", h_logic, 0, 2},
	{"__xor__", "self,other", h_logic, 0, 3},
	{"__is__", "self,obj", h_is, 0, 0},
	{"__isnot__", "self,obj", h_is, 0, 1},
	/* linear algebra, convolution, normalization */
	{"linear", "input,weight,bias=None", h_linear, 0, 0},
	{"matmul", "self,other", h_matmul, 0, 0},
	{"mm", "self,other", h_matmul, 0, 0},
	{"bmm", "self,other", h_matmul, 0, 0},
	{"mv", "self,vec", h_matmul, 0, 0},
	{"t", "self", h_t, 0, 0},
	{"addmm", "self,mat1,mat2,beta=1,alpha=1", h_addmm, 0, 0},
	{"_convolution", "input,weight,bias,stride,padding,dilation,transposed,output_padding,groups,benchmark=False,"
			 "deterministic=False,cudnn_enabled=True,allow_tf32=True", h__convolution, 0, 0},
	{"convolution", "input,weight,bias,stride,padding,dilation,transposed,output_padding,groups", h__convolution, 0, 0},
	{"conv1d", "input,weight,bias=None,stride=1,padding=0,dilation=1,groups=1", h_conv, 0, 0},
	{"conv2d", "input,weight,bias=None,stride=1,padding=0,dilation=1,groups=1", h_conv, 0, 0},
	{"conv3d", "input,weight,bias=None,stride=1,padding=0,dilation=1,groups=1", h_conv, 0, 0},
	{"conv_transpose1d", "input,weight,bias=None,stride=1,padding=0,output_padding=0,groups=1,dilation=1",
	 h_conv_transpose, 0, 0},
	{"conv_transpose2d", "input,weight,bias=None,stride=1,padding=0,output_padding=0,groups=1,dilation=1",
	 h_conv_transpose, 0, 0},
	{"batch_norm", "input,weight,bias,running_mean,running_var,training,momentum,eps,cudnn_enabled=True",
	 h_batch_norm, 0, 0},
	{"instance_norm", "input,weight,bias,running_mean,running_var,use_input_stats,momentum,eps,cudnn_enabled=True",
	 h_instance_norm, 0, 0},
	{"layer_norm", "input,normalized_shape,weight=None,bias=None,eps=1e-05,cudnn_enable=True", h_layer_norm, 0, 0},
	{"softmax", "self,dim,dtype=None,half_to_float=False", h_softmax, IR_OP_SOFTMAX, 0},
	{"log_softmax", "self,dim,dtype=None,half_to_float=False", h_softmax, IR_OP_LOG_SOFTMAX, 0},
	/* pooling and reductions */
	{"max_pool1d", "self,kernel_size,stride=[],padding=0,dilation=1,ceil_mode=False", h_pool, IR_OP_MAX_POOL, 1},
	{"max_pool2d", "self,kernel_size,stride=[],padding=0,dilation=1,ceil_mode=False", h_pool, IR_OP_MAX_POOL, 2},
	{"avg_pool1d", "self,kernel_size,stride=[],padding=0,ceil_mode=False,count_include_pad=True", h_pool,
	 IR_OP_AVG_POOL, 1},
	{"avg_pool2d", "self,kernel_size,stride=[],padding=0,ceil_mode=False,count_include_pad=True,divisor_override=None",
	 h_pool, IR_OP_AVG_POOL, 2},
	{"adaptive_avg_pool1d", "self,output_size", h_adaptive_pool, 0, 1},
	{"adaptive_avg_pool2d", "self,output_size", h_adaptive_pool, 0, 2},
	{"adaptive_max_pool1d", "self,output_size", h_adaptive_pool, IR_OP_MAX_POOL, 1},
	{"adaptive_max_pool2d", "self,output_size", h_adaptive_pool, IR_OP_MAX_POOL, 2},
	{"mean", "self,dim=None,keepdim=False,dtype=None", h_reduce, IR_OP_REDUCE_MEAN, 0},
	{"sum", "self,dim=None,keepdim=False,dtype=None", h_reduce, IR_OP_REDUCE_SUM, 0},
	{"amax", "self,dim=None,keepdim=False", h_reduce, IR_OP_REDUCE_MAX, 0},
	{"amin", "self,dim=None,keepdim=False", h_reduce, IR_OP_REDUCE_MIN, 0},
	{"argmax", "self,dim=None,keepdim=False", h_reduce, IR_OP_ARGMAX, 0},
	/* shapes */
	{"flatten", "self,start_dim=0,end_dim=-1", h_flatten, 0, 0},
	{"view", "self,size", h_view, 0, 0},
	{"reshape", "self,shape", h_view, 0, 0},
	{"view_as", "self,other", h_view_as, 0, 0},
	{"reshape_as", "self,other", h_view_as, 0, 0},
	{"unsqueeze", "self,dim", h_unsqueeze, 0, 0},
	{"squeeze", "self,dim=None", h_squeeze, 0, 0},
	{"permute", "self,dims", h_permute, 0, 0},
	{"transpose", "self,dim0,dim1", h_transpose, 0, 0},
	{"cat", "tensors,dim=0", h_cat, 0, 0},
	{"concat", "tensors,dim=0", h_cat, 0, 0},
	{"stack", "tensors,dim=0", h_stack, 0, 0},
	{"split", "self,split_size,dim=0", h_split, 0, 0},
	{"split_with_sizes", "self,split_sizes,dim=0", h_split, 0, 0},
	{"chunk", "self,chunks,dim=0", h_split, 0, 1},
	{"unbind", "self,dim=0", h_split, 0, 2},
	{"slice", "self,dim=0,start=None,end=None,step=1", h_slice, 0, 0},
	{"narrow", "self,dim,start,length", h_narrow, 0, 0},
	{"select", "self,dim,index", h_select, 0, 0},
	{"pad", "self,pad,mode=\"constant\",value=None", h_pad, 0, 0},
	{"constant_pad_nd", "self,pad,value=0", h_pad, 0, 1},
	{"reflection_pad1d", "self,padding", h_pad_mode, 0, 0},
	{"reflection_pad2d", "self,padding", h_pad_mode, 0, 0},
	{"replication_pad1d", "self,padding", h_pad_mode, 0, 1},
	{"replication_pad2d", "self,padding", h_pad_mode, 0, 1},
	{"upsample_nearest1d", "self,a=None,b=None,c=None,d=None", h_upsample, 0, 1},
	{"upsample_nearest2d", "self,a=None,b=None,c=None,d=None", h_upsample, 0, 2},
	{"upsample_linear1d", "self,a=None,b=None,c=None,d=None", h_upsample, 1, 1},
	{"upsample_bilinear2d", "self,a=None,b=None,c=None,d=None", h_upsample, 1, 2},
	{"pixel_shuffle", "self,upscale_factor", h_pixel_shuffle, 0, 0},
	{"embedding", "weight,indices,padding_idx=-1,scale_grad_by_freq=False,sparse=False", h_embedding, 0, 0},
	/* recurrent */
	{"rnn_tanh", "input,hx,params,has_biases,num_layers,dropout,train,bidirectional,batch_first", h_rnn, 0, 0},
	{"gru", "input,hx,params,has_biases,num_layers,dropout,train,bidirectional,batch_first", h_rnn, 0, 1},
	{"lstm", "input,hx,params,has_biases,num_layers,dropout,train,bidirectional,batch_first", h_rnn, 0, 2},
	/* made at import time */
	{"zeros", "size,dtype=None,layout=None,device=None,pin_memory=None", h_fill, 0, 0},
	{"ones", "size,dtype=None,layout=None,device=None,pin_memory=None", h_fill, 0, 1},
	{"full", "size,fill_value,dtype=None,layout=None,device=None,pin_memory=None", h_fill, 0, -1},
	{"zeros_like", "self,dtype=None,layout=None,device=None,pin_memory=None,memory_format=None", h_fill, 1, 0},
	{"ones_like", "self,dtype=None,layout=None,device=None,pin_memory=None,memory_format=None", h_fill, 1, 1},
	{"full_like", "self,fill_value,dtype=None,layout=None,device=None,pin_memory=None,memory_format=None", h_fill, 1,
	 -1},
	{"tensor", "data,dtype=None,device=None,requires_grad=False", h_tensor, 0, 0},
	{"arange", "a,b=None,c=None,dtype=None,layout=None,device=None,pin_memory=None", h_arange, 0, 0},
	/* shapes and Python values */
	{"size", "self,dim=None", h_size, 0, 0},
	{"dim", "self", h_dim, 0, 0},
	{"numel", "self", h_dim, 0, 1},
	{"len", "self", h_len, 0, 0},
	{"NumToTensor", "self", h_num_to_tensor, 0, 0},
	{"Int", "self", h_to_number, 0, 0},
	{"IntImplicit", "self", h_to_number, 0, 0},
	{"Float", "self", h_to_number, 0, 1},
	{"FloatImplicit", "self", h_to_number, 0, 1},
	{"Bool", "self", h_to_number, 0, 2},
	{"ScalarImplicit", "self", h_to_number, 0, 3},
	{"__getitem__", "self,idx", h_getitem, 0, 0},
	{"append", "self,el", h_append, 0, 0},
	{"list", "self", h_list, 0, 0},
	{"__range_length", "lo,hi,step", h_range_length, 0, 0},
	{"__derive_index", "index,start,step", h_derive_index, 0, 0},
	{"format", "self,a=None,b=None,c=None,d=None,e=None,f=None,g=None", h_format, 0, 0},
	{"RaiseException", "msg,cls=None", h_raise, 0, 0},
	{"warn", "message,stacklevel=2", h_none, 0, 0},
	{"device", "type", h_device, 0, 0},
	{"dtype", "self", h_dtype, 0, 0},
	{"unchecked_unwrap_optional", "self", h_first, 0, 0},
	{"unchecked_cast", "self", h_first, 0, 0},
};
#undef U
#undef U_

/* Python builtins called by bare name. */
static const opdef builtin_table[] = {
	{"int", "self", h_to_number, 0, 0},
	{"float", "self", h_to_number, 0, 1},
	{"bool", "self", h_to_number, 0, 2},
	{"len", "self", h_len, 0, 0},
	{"range", "a,b=None,c=None", h_range, 0, 0},
	{"list", "self", h_list, 0, 0},
	{"tuple", "self", h_list, 0, 1},
	{"min", "self,other", h_binary, 0, B_MIN},
	{"max", "self,other", h_binary, 0, B_MAX},
	{"abs", "self", h_unary, IR_OP_ABS, 0},
	{"print", "a=None,b=None,c=None,d=None,e=None,f=None,g=None,h=None", h_none, 0, 0},
};

static const opdef *find_op(imp *im, const char *name)
{
	if (!im->ops.n)
		for (size_t i = 0; i < sizeof op_table / sizeof op_table[0]; i++)
			if (ts_map_put(&im->ops, op_table[i].name, (void *)&op_table[i]))
				return NULL;
	return ts_map_get(&im->ops, name);
}

static const opdef *find_builtin(const char *name)
{
	for (size_t i = 0; i < sizeof builtin_table / sizeof builtin_table[0]; i++)
		if (!strcmp(builtin_table[i].name, name))
			return &builtin_table[i];
	return NULL;
}

/* ================================================================ the interpreter */

typedef struct {
	ts_val **pos;
	int npos;
	const char **kwn;
	ts_val **kwv;
	int nkw;
} args;

static ts_val *eval(imp *im, frame *f, const ts_ast *e);
static int exec_block(imp *im, frame *f, const ts_ast *b);

/* A schema default: None True False 1 -1.5 "str" [] */
static ts_val *parse_lit(imp *im, const char *s, size_t n)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%.*s", (int)(n < 63 ? n : 63), s);
	if (!strcmp(buf, "None"))
		return im->none;
	if (!strcmp(buf, "True") || !strcmp(buf, "False"))
		return mk_bool(im, buf[0] == 'T');
	if (!strcmp(buf, "[]"))
		return mk(im, TS_LIST);
	if (buf[0] == '"') {
		buf[strlen(buf) - 1] = 0;
		return mk_str(im, buf + 1);
	}
	if (strpbrk(buf, ".e"))
		return mk_float(im, strtod(buf, NULL));
	return mk_int(im, strtoll(buf, NULL, 10));
}

/* Bind a call's arguments to a schema. 0 ok, 1 problem recorded, -1 fatal. */
static int bind(cx *c, const args *a)
{
	const char *names[16];
	size_t lens[16];
	const char *defs[16];
	size_t dlens[16];
	int n = 0;
	for (const char *p = c->e->schema; *p && n < 16;) {
		size_t len = strcspn(p, ",");
		const char *eq = memchr(p, '=', len);
		names[n] = p;
		lens[n] = eq ? (size_t)(eq - p) : len;
		defs[n] = eq ? eq + 1 : NULL;
		dlens[n] = eq ? len - lens[n] - 1 : 0;
		n++;
		p += len + (p[len] == ',');
	}
	c->n = n;
	if (a->npos > n)
		return unsup(c, "%d arguments, at most %d were expected", a->npos, n) ? 1 : -1;
	for (int i = 0; i < n; i++)
		c->a[i] = i < a->npos ? a->pos[i] : NULL;
	for (int k = 0; k < a->nkw; k++) {
		int i = 0;
		while (i < n && (strlen(a->kwn[k]) != lens[i] || strncmp(a->kwn[k], names[i], lens[i])))
			i++;
		if (i == n)
			return unsup(c, "unknown argument '%s'", a->kwn[k]) ? 1 : -1;
		if (c->a[i])
			return unsup(c, "argument '%s' is given twice", a->kwn[k]) ? 1 : -1;
		c->a[i] = a->kwv[k];
	}
	for (int i = 0; i < n; i++) {
		if (c->a[i])
			continue;
		if (!defs[i])
			return unsup(c, "argument '%.*s' is missing", (int)lens[i], names[i]) ? 1 : -1;
		if (!(c->a[i] = parse_lit(c->im, defs[i], dlens[i])))
			return -1;
	}
	return 0;
}

static bool args_poisoned(const args *a)
{
	for (int i = 0; i < a->npos; i++)
		if (poisoned(a->pos[i], 0))
			return true;
	for (int i = 0; i < a->nkw; i++)
		if (poisoned(a->kwv[i], 0))
			return true;
	return false;
}

static ts_val *call_op(imp *im, frame *f, const opdef *e, const char *ns, const args *a)
{
	cx c = {.im = im, .b = &im->b, .f = f, .e = e};
	if (args_poisoned(a))
		return im->poison;
	if (!(c.op = ts_sprintf(&im->a, "%s::%s", ns, e->name)))
		return oom(im);
	if (e->fn != h_compare && e->fn != h_to_number && e->fn != h_logic && e->fn != h_is)
		for (int i = 0; i < a->npos + a->nkw; i++)
			if ((i < a->npos ? a->pos[i] : a->kwv[i - a->npos])->kind == TS_RUNTIME)
				return problem_at(im, im->line, "%s of a value computed at run time (data-dependent values are "
						  "not supported)", c.op);
	int r = bind(&c, a);
	if (r)
		return r > 0 ? im->poison : NULL;
	ts_val *v = e->fn(&c);
	if (c.b->failed || !v)
		return NULL;
	size_t len = strlen(e->name);
	/* in place: the first argument now holds the result */
	if (e->name[len - 1] == '_' && e->name[0] != '_' && is_tensor(c.a[0]) && is_tensor(v) && v != c.a[0]) {
		c.a[0]->t = v->t;
		return c.a[0];
	}
	return v;
}

/* ---------------------------------------------------------------- code */

/* The parsed file code/<path>.py (NULL: absent or fatal; *err set if fatal). */
static ts_ast *code_file(imp *im, const char *path, bool *err)
{
	*err = false;
	ts_ast *m = ts_map_get(&im->files, path);
	if (m)
		return m == (ts_ast *)&missing_file ? NULL : m;
	uint8_t *src;
	size_t size;
	char *key = ts_strndup(&im->a, path, strlen(path));
	if (!key)
		return *err = true, oom(im), NULL;
	int rc = ts_zip_read(im->z, path, MAX_SOURCE, &src, &size, im->b.d);
	if (rc < 0)
		return *err = true, NULL;
	if (rc == 0) {
		m = ts_parse(&im->a, (const char *)src, size, path, im->b.d);
		free(src);
		if (!m)
			return *err = true, NULL;
	}
	if (ts_map_put(&im->files, key, m ? (void *)m : (void *)&missing_file))
		return *err = true, oom(im), NULL;
	return m;
}

static const ts_ast *find_in(const ts_ast *m, ts_ast_kind kind, const char *name)
{
	for (int i = 0; m && i < m->n; i++)
		if (m->k[i]->kind == kind && !strcmp(m->k[i]->s, name))
			return m->k[i];
	return NULL;
}

/* A class or function by qualified name (__torch__.a.b.Name lives in
 * code/__torch__/a/b.py); *file gets the code path. NULL and *err clear
 * if it is not in the archive. */
static const ts_ast *find_code(imp *im, const char *qual, ts_ast_kind kind, const char **file, bool *err)
{
	*err = false;
	const char *dot = strrchr(qual, '.');
	if (!dot)
		return NULL;
	/* with and without a ___torch_mangle_N component */
	for (int pass = 0; pass < 2; pass++) {
		char path[1024];
		size_t len = 0;
		len += (size_t)snprintf(path, sizeof path, "code/");
		for (const char *p = qual; p < dot && len < sizeof path - 4; p++)
			path[len++] = *p == '.' ? '/' : *p;
		path[len] = 0;
		if (pass == 1) {
			char *mg = strstr(path, "/___torch_mangle_");
			if (!mg)
				break;
			char *end = strchr(mg + 1, '/');
			memmove(mg, end ? end : mg + strlen(mg), strlen(end ? end : mg + strlen(mg)) + 1);
			len = strlen(path);
		}
		if (len >= sizeof path - 4)
			return NULL;
		memcpy(path + len, ".py", 4);
		ts_ast *m = code_file(im, path, err);
		if (*err)
			return NULL;
		const ts_ast *def = find_in(m, kind, dot + 1);
		if (def) {
			*file = ts_strndup(&im->a, path, strlen(path));
			return *file ? def : (*err = true, oom(im), NULL);
		}
	}
	return NULL;
}

typedef struct {
	const ts_ast *cls;
	const char *file;
} class_ref;

static const class_ref *class_of(imp *im, ts_val *obj, bool *err)
{
	*err = false;
	if (obj->cls)
		return obj->cls;
	const char *file;
	const ts_ast *k = find_code(im, obj->s, A_CLASS, &file, err);
	if (!k)
		return NULL;
	class_ref *r = ts_alloc(&im->a, sizeof *r);
	if (!r)
		return *err = true, oom(im), NULL;
	r->cls = k;
	r->file = file;
	obj->cls = r;
	return r;
}

/* ---------------------------------------------------------------- frames */

static ts_val *get_var(frame *f, const char *name)
{
	for (int i = f->n - 1; i >= 0; i--)
		if (!strcmp(f->vars[i].name, name))
			return f->vars[i].v;
	return NULL;
}

static int set_var(imp *im, frame *f, const char *name, ts_val *v)
{
	for (int i = f->n - 1; i >= 0; i--)
		if (!strcmp(f->vars[i].name, name)) {
			f->vars[i].v = v;
			return 0;
		}
	if (f->n == f->cap) {
		int cap = f->cap ? 2 * f->cap : 16;
		var *p = ts_alloc_array(&im->a, (size_t)cap, sizeof *p);
		if (!p)
			return oom(im), -1;
		if (f->n)
			memcpy(p, f->vars, sizeof *p * (size_t)f->n);
		f->vars = p;
		f->cap = cap;
	}
	f->vars[f->n++] = (var){name, v};
	return 0;
}

/* Call a def: self (or NULL for a function), arguments by position and name. */
static ts_val *call_def(imp *im, const ts_ast *def, const char *file, ts_val *self, const char *path,
			const args *a, int line)
{
	if (args_poisoned(a))
		return im->poison;
	if (im->depth >= MAX_CALL_DEPTH)
		return problem_at(im, line, "calls nested more than %d deep (recursion is not supported)", MAX_CALL_DEPTH);
	const ts_ast *params = def->k[0];
	frame f = {.file = file, .self = self, .path = path};
	int first = self ? 1 : 0, np = params->n;
	if (self && np < 1)
		return problem_at(im, line, "method '%s' takes no self", def->s);
	if (a->npos > np - first)
		return problem_at(im, line, "'%s' takes %d arguments, %d were given", def->s, np - first, a->npos);
	ts_val **vals = ts_alloc_array(&im->a, (size_t)np + 1, sizeof *vals);
	if (!vals)
		return oom(im);
	if (self)
		vals[0] = self;
	for (int i = 0; i < a->npos; i++)
		vals[first + i] = a->pos[i];
	for (int k = 0; k < a->nkw; k++) {
		int i = first;
		while (i < np && strcmp(params->k[i]->s, a->kwn[k]))
			i++;
		if (i == np || vals[i])
			return problem_at(im, line, "bad argument '%s' to '%s'", a->kwn[k], def->s);
		vals[i] = a->kwv[k];
	}
	const char *saved_file = im->file;
	int saved_line = im->line;
	im->file = file;
	im->depth++;
	ts_val *ret = NULL;
	for (int i = 0; i < np; i++) {
		if (!vals[i]) {
			const ts_ast *dflt = params->k[i]->k[1];
			if (!dflt) {
				im->file = saved_file;
				ret = problem_at(im, line, "argument '%s' of '%s' is missing", params->k[i]->s, def->s);
				goto out;
			}
			if (!(vals[i] = eval(im, &f, dflt)))
				goto out;
		}
		if (set_var(im, &f, params->k[i]->s, vals[i]))
			goto out;
	}
	int r = exec_block(im, &f, def->k[1]);
	if (r != X_FAIL)
		ret = f.ret ? f.ret : im->none;
out:
	im->depth--;
	im->file = saved_file;
	im->line = saved_line;
	return ret;
}

/* ---------------------------------------------------------------- attributes */

static ts_val *obj_attr(imp *im, ts_val *obj, const char *name, int line)
{
	ts_val *v = ts_dict_get(obj->attrs, name);
	if (v) {
		const char *path = *obj->path ? ts_sprintf(&im->a, "%s.%s", obj->path, name) : name;
		if (!path)
			return oom(im);
		if (v->kind == TS_OBJECT && !v->path)
			v->path = path;
		if (is_tensor(v) && !v->t->name)
			v->t->name = path;
		return v;
	}
	bool err;
	const class_ref *k = class_of(im, obj, &err);
	if (err)
		return NULL;
	const ts_ast *ca = k ? find_in(k->cls, A_CLASSATTR, name) : NULL;
	if (ca && ca->k[0]) {	/* a class constant: in_features : Final[int] = 2 */
		frame f = {.file = k->file, .self = obj, .path = obj->path};
		const char *saved = im->file;
		im->file = k->file;
		v = eval(im, &f, ca->k[0]);
		im->file = saved;
		return v;
	}
	return problem_at(im, line, "module '%s' (%s) has no attribute '%s'", *obj->path ? obj->path : "<root>",
			  obj->s, name);
}

static ts_val *attr(imp *im, ts_val *o, const char *name, int line)
{
	if (o->kind == TS_POISON)
		return o;
	if (o->kind == TS_OBJECT)
		return obj_attr(im, o, name, line);
	if (o->kind == TS_NS) {
		if (!strcmp(o->s, "CONSTANTS")) {
			char *end;
			long k = name[0] == 'c' ? strtol(name + 1, &end, 10) : -1;
			if (k < 0 || *end || !is_seq(im->constants) || k >= im->constants->n)
				return problem_at(im, line, "CONSTANTS.%s is not in constants.pkl", name);
			ts_val *v = im->constants->v[k];
			if (is_tensor(v) && !v->t->name)
				v->t->name = ts_sprintf(&im->a, "CONSTANTS.%s", name);
			return v;
		}
		ts_val *v = mk(im, TS_NS);
		if (v && !(v->s = ts_sprintf(&im->a, "%s.%s", o->s, name)))
			return oom(im);
		return v;
	}
	if (o->kind == TS_DEVICE && !strcmp(name, "type"))
		return mk_str(im, o->s);
	return problem_at(im, line, "attribute '%s' of %s is not supported", name, ts_kind_name(o->kind));
}

/* ---------------------------------------------------------------- calls */

static ts_val *call_qualified(imp *im, frame *f, const char *q, const args *a, int line)
{
	const char *ns = NULL, *name = NULL;
	if (!strncmp(q, "torch.", 6))
		ns = "aten", name = q + 6;
	else if (!strncmp(q, "ops.aten.", 9))
		ns = "aten", name = q + 9;
	else if (!strncmp(q, "ops.prim.", 9))
		ns = "prim", name = q + 9;
	if (name && !strchr(name, '.')) {
		const opdef *e = find_op(im, name);
		if (e)
			return call_op(im, f, e, ns, a);
		if (args_poisoned(a))
			return im->poison;
		return problem_at(im, line, "unsupported op '%s::%s'", ns, name);
	}
	if (!strncmp(q, "__torch__.", 10)) {
		const char *file;
		bool err;
		const ts_ast *def = find_code(im, q, A_DEF, &file, &err);
		if (err)
			return NULL;
		if (def)
			return call_def(im, def, file, NULL, f->path, a, line);
		if (find_code(im, q, A_CLASS, &file, &err))
			return problem_at(im, line, "creating an object of class '%s'", q);
		if (err)
			return NULL;
		return problem_at(im, line, "function '%s' is not in the archive's code", q);
	}
	if (args_poisoned(a))
		return im->poison;
	return problem_at(im, line, "call of '%s'", q);
}

static bool type_is(const ts_ast *t, const char *name)
{
	return t && ((t->kind == A_NAME && !strcmp(t->s, name)) ||
		     (t->kind == A_SUBSCRIPT && t->k[0]->kind == A_NAME && !strcmp(t->k[0]->s, name)));
}

/* isinstance(v, T) for the types TorchScript names */
static ts_val *isinstance(imp *im, const ts_val *v, const ts_ast *t)
{
	if (t->kind == A_TUPLE) {
		for (int i = 0; i < t->n; i++) {
			ts_val *r = isinstance(im, v, t->k[i]);
			if (!r || r->i)
				return r;
		}
		return mk_bool(im, false);
	}
	bool r = type_is(t, "Tensor") ? is_tensor(v) : type_is(t, "int") ? v->kind == TS_INT :
		 type_is(t, "float") ? v->kind == TS_FLOAT : type_is(t, "bool") ? v->kind == TS_BOOL :
		 type_is(t, "str") ? v->kind == TS_STR : type_is(t, "List") ? v->kind == TS_LIST :
		 type_is(t, "Tuple") ? v->kind == TS_TUPLE : type_is(t, "Dict") ? v->kind == TS_DICT :
		 type_is(t, "NoneType") ? v->kind == TS_NONE : false;
	return mk_bool(im, r);
}

static ts_val *eval_call(imp *im, frame *f, const ts_ast *e)
{
	const ts_ast *fn = e->k[0];
	int line = e->line;
	/* special forms, whose first argument is a type */
	if (fn->kind == A_NAME && !get_var(f, fn->s)) {
		const char *n = fn->s;
		if ((!strcmp(n, "annotate") || !strcmp(n, "unchecked_cast")) && e->n == 3)
			return eval(im, f, e->k[2]);
		if (!strcmp(n, "uninitialized"))
			return im->none;
		if (!strcmp(n, "isinstance") && e->n == 3) {
			ts_val *v = eval(im, f, e->k[1]);
			return !v || v->kind == TS_POISON ? v : isinstance(im, v, e->k[2]);
		}
	}
	args a = {0};
	ts_val **vals = ts_alloc_array(&im->a, (size_t)e->n + 1, sizeof *vals);
	const char **names = ts_alloc_array(&im->a, (size_t)e->n + 1, sizeof *names);
	if (!vals || !names)
		return oom(im);
	a.pos = vals;
	a.kwv = vals + e->n;
	for (int i = 1; i < e->n; i++) {
		const ts_ast *ae = e->k[i];
		if (ae->kind == A_KWARG) {
			if (!(vals[e->n - 1 - a.nkw] = eval(im, f, ae->k[0])))
				return NULL;
			names[a.nkw++] = ae->s;
		} else {
			if (a.nkw)
				return problem_at(im, line, "a positional argument after a keyword argument");
			if (!(vals[a.npos++] = eval(im, f, ae)))
				return NULL;
		}
	}
	/* keyword values were stored backwards from the end */
	a.kwv = vals + e->n - a.nkw;
	for (int i = 0; i < a.nkw / 2; i++) {
		ts_val *t = a.kwv[i];
		a.kwv[i] = a.kwv[a.nkw - 1 - i];
		a.kwv[a.nkw - 1 - i] = t;
	}
	a.kwn = names;
	im->line = line;
	if (fn->kind == A_NAME && !get_var(f, fn->s)) {
		if (!strcmp(fn->s, "getattr") && a.npos == 2 && a.pos[1]->kind == TS_STR)
			return attr(im, a.pos[0], a.pos[1]->s, line);
		if (!strcmp(fn->s, "hasattr") && a.npos == 2 && a.pos[0]->kind == TS_OBJECT && a.pos[1]->kind == TS_STR)
			return mk_bool(im, ts_dict_get(a.pos[0]->attrs, a.pos[1]->s) != NULL);
		const opdef *b = find_builtin(fn->s);
		if (b)
			return call_op(im, f, b, "builtins", &a);
		if (args_poisoned(&a))
			return im->poison;
		return problem_at(im, line, "call of unknown function '%s'", fn->s);
	}
	ts_val *callee;
	if (fn->kind == A_ATTR) {
		ts_val *o = eval(im, f, fn->k[0]);
		if (!o || o->kind == TS_POISON)
			return o;
		if (o->kind == TS_OBJECT) {
			bool err;
			const class_ref *k = class_of(im, o, &err);
			const ts_ast *def = k ? find_in(k->cls, A_DEF, fn->s) : NULL;
			if (err)
				return NULL;
			if (def)
				return call_def(im, def, k->file, o, o->path, &a, line);
			if (!k)
				return problem_at(im, line, "class '%s' is not in the archive's code", o->s);
			return problem_at(im, line, "class '%s' has no method '%s'", o->s, fn->s);
		}
		if (o->kind != TS_NS) {
			/* a method of a value: x.size(0) is torch.size(x, 0) */
			const opdef *op = find_op(im, fn->s);
			ts_val **pos = ts_alloc_array(&im->a, (size_t)a.npos + 1, sizeof *pos);
			if (!pos)
				return oom(im);
			pos[0] = o;
			memcpy(pos + 1, a.pos, sizeof *pos * (size_t)a.npos);
			a.pos = pos;
			a.npos++;
			if (op)
				return call_op(im, f, op, "aten", &a);
			return problem_at(im, line, "method '%s' of %s", fn->s, ts_kind_name(o->kind));
		}
		if (!(callee = attr(im, o, fn->s, line)))
			return NULL;
	} else if (!(callee = eval(im, f, fn))) {
		return NULL;
	}
	if (callee->kind == TS_POISON)
		return callee;
	if (callee->kind == TS_NS)
		return call_qualified(im, f, callee->s, &a, line);
	return problem_at(im, line, "calling %s", ts_kind_name(callee->kind));
}

/* ---------------------------------------------------------------- expressions */

/* Truth of a value known at import time; false if it is not known. */
static bool truth_of(const ts_val *v, bool *out)
{
	switch (v->kind) {
	case TS_NONE: *out = false; return true;
	case TS_BOOL:
	case TS_INT: *out = v->i != 0; return true;
	case TS_FLOAT: *out = v->f != 0; return true;
	case TS_STR: *out = v->len != 0; return true;
	case TS_TUPLE:
	case TS_LIST:
	case TS_DICT: *out = v->n != 0; return true;
	case TS_OBJECT:
	case TS_DEVICE: *out = true; return true;
	case TS_TENSOR:
		if (v->t->data && ir_shape_numel(&v->t->shape) == 1) {
			*out = hget(v->t, 0) != 0;
			return true;
		}
		return false;
	default: return false;
	}
}

/* The truth of a condition: 1 true, 0 false, 2 poison, 3 not known at import
 * time (a problem is recorded), -1 fatal. */
static int condition(imp *im, frame *f, const ts_ast *e, const char *what)
{
	ts_val *v = eval(im, f, e);
	bool b;
	if (!v)
		return -1;
	if (v->kind == TS_POISON)
		return 2;
	if (v->kind != TS_RUNTIME && truth_of(v, &b))
		return b;
	if (is_host(v) && ir_shape_numel(&v->t->shape) == 1) {
		if (load(im, v->t))
			return -1;
		return hget(v->t, 0) != 0;
	}
	return problem_at(im, e->line, "%s on a value computed at run time (data-dependent control flow)", what) ? 3 : -1;
}

static binop binop_of(const char *s)
{
	switch (s[0]) {
	case '+': return B_ADD;
	case '-': return B_SUB;
	case '*': return s[1] == '*' ? B_POW : B_MUL;
	case '/': return s[1] == '/' ? B_FLOORDIV : B_DIV;
	default: return B_MOD;
	}
}

static ts_val *eval_binop(imp *im, frame *f, const ts_ast *e)
{
	const char *op = e->s;
	ts_val *x = eval(im, f, e->k[0]), *y = x ? eval(im, f, e->k[1]) : NULL;
	if (!y)
		return NULL;
	if (x->kind == TS_POISON || y->kind == TS_POISON)
		return im->poison;
	im->line = e->line;
	static const char *const cmps[] = {"==", "!=", "<", "<=", ">", ">="};
	const char *name = NULL;
	for (int i = 0; i < 6; i++)
		if (!strcmp(op, cmps[i]))
			name = (const char *[]){"eq", "ne", "lt", "le", "gt", "ge"}[i];
	if (!strcmp(op, "is") || !strcmp(op, "is not"))
		name = op[2] ? "__isnot__" : "__is__";
	if (!strcmp(op, "in") || !strcmp(op, "not in")) {
		bool found = false;
		if (y->kind == TS_DICT || is_seq(y)) {
			for (int i = 0; i < y->n && !found; i++) {
				const ts_val *k = y->kind == TS_DICT ? y->v[2 * i] : y->v[i];
				found = (k->kind == TS_STR && x->kind == TS_STR && k->len == x->len && !memcmp(k->s, x->s, k->len)) ||
					(is_num(k) && is_num(x) && num(k) == num(x));
			}
		} else if (y->kind == TS_STR && x->kind == TS_STR) {
			found = strstr(y->s, x->s) != NULL;
		} else {
			return problem_at(im, e->line, "'in' on %s", ts_kind_name(y->kind));
		}
		return mk_bool(im, op[0] == 'n' ? !found : found);
	}
	if (!strcmp(op, "@"))
		name = "matmul";
	args a = {.pos = (ts_val *[]){x, y}, .npos = 2};
	if (name)
		return call_op(im, f, find_op(im, name), "aten", &a);
	if (strchr("&|^", op[0]) || !strcmp(op, "<<") || !strcmp(op, ">>")) {
		if (x->kind != TS_INT && x->kind != TS_BOOL)
			return problem_at(im, e->line, "operator '%s' on %s", op, ts_kind_name(x->kind));
		int64_t p = x->i, q = y->i;
		if (y->kind != TS_INT && y->kind != TS_BOOL)
			return problem_at(im, e->line, "operator '%s' on %s", op, ts_kind_name(y->kind));
		if ((op[0] == '<' || op[0] == '>') && (q < 0 || q > 62))
			return problem_at(im, e->line, "shift by %lld", (long long)q);
		return mk_int(im, op[0] == '&' ? p & q : op[0] == '|' ? p | q : op[0] == '^' ? p ^ q :
			      op[0] == '<' ? (int64_t)((uint64_t)p << q) : p >> q);
	}
	if (op[0] == '*' && !op[1] && is_seq(x) && y->kind == TS_INT) {	/* [0] * n */
		ts_val *r = mk(im, x->kind);
		if (y->i * (int64_t)x->n > MAX_RANGE)
			return problem_at(im, e->line, "list repetition too long");
		for (int64_t k = 0; r && k < y->i; k++)
			for (int i = 0; i < x->n; i++)
				if (ts_append(&im->a, r, x->v[i]))
					return oom(im);
		return r;
	}
	static const opdef arith = {"arith", "self,other", h_binary, 0, 0};
	opdef e2 = arith;
	e2.p = binop_of(op);
	e2.name = op[0] == '+' ? "add" : op[0] == '-' ? "sub" : op[0] == '*' ? (op[1] ? "pow" : "mul") :
		  op[0] == '/' ? (op[1] ? "floordiv" : "div") : "remainder";
	return call_op(im, f, &e2, "aten", &a);
}

static ts_val *eval1(imp *im, frame *f, const ts_ast *e);

/* Evaluation nests (expressions in calls in expressions ...): bounded, so
 * hostile code cannot exhaust the stack. */
static ts_val *eval(imp *im, frame *f, const ts_ast *e)
{
	if (++im->steps > MAX_STEPS)
		return fail(im, "%s:%d: the TorchScript code runs too long (a loop over a large range?)", im->file, e->line);
	if (im->eval_depth >= MAX_EVAL_DEPTH)
		return fail(im, "%s:%d: expressions and calls nested too deeply", im->file, e->line);
	im->eval_depth++;
	ts_val *v = eval1(im, f, e);
	im->eval_depth--;
	return v;
}

static ts_val *eval1(imp *im, frame *f, const ts_ast *e)
{
	switch (e->kind) {
	case A_INT: return mk_int(im, e->i);
	case A_FLOAT: return mk_float(im, e->f);
	case A_BOOL: return mk_bool(im, e->i != 0);
	case A_NONE: return im->none;
	case A_STR: {
		ts_val *v = ts_new_str(&im->a, e->s, e->len);
		return v ? v : oom(im);
	}
	case A_NAME: {
		ts_val *v = get_var(f, e->s);
		if (v)
			return v;
		static const char *const roots[] = {"torch", "ops", "__torch__", "CONSTANTS", "math", "typing"};
		for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
			if (!strcmp(e->s, roots[i])) {
				if ((v = mk(im, TS_NS)))
					v->s = roots[i];
				return v;
			}
		if (!strcmp(e->s, "inf") || !strcmp(e->s, "nan"))
			return mk_float(im, e->s[0] == 'i' ? INFINITY : NAN);
		return problem_at(im, e->line, "name '%s' is not defined", e->s);
	}
	case A_ATTR: {
		ts_val *o = eval(im, f, e->k[0]);
		return o ? attr(im, o, e->s, e->line) : NULL;
	}
	case A_CALL: return eval_call(im, f, e);
	case A_SUBSCRIPT: {
		ts_val *o = eval(im, f, e->k[0]), *i;
		if (!o || o->kind == TS_POISON)
			return o;
		const ts_ast *ix = e->k[1];
		if (ix->kind == A_SLICE) {
			int64_t b[3] = {0, o->n, 1};
			for (int k = 0; k < 3; k++) {
				if (!ix->k[k])
					continue;
				if (!(i = eval(im, f, ix->k[k])))
					return NULL;
				if (i->kind == TS_POISON)
					return i;
				if (!get_int(i, &b[k]))
					return problem_at(im, e->line, "slice bounds must be ints");
			}
			if (!is_seq(o) || b[2] != 1)
				return problem_at(im, e->line, "slicing %s", ts_kind_name(o->kind));
			for (int k = 0; k < 2; k++) {
				if (b[k] < 0)
					b[k] += o->n;
				b[k] = b[k] < 0 ? 0 : b[k] > o->n ? o->n : b[k];
			}
			return mk_seq(im, o->kind, o->v + b[0], b[1] > b[0] ? (int)(b[1] - b[0]) : 0);
		}
		if (!(i = eval(im, f, ix)))
			return NULL;
		args a = {.pos = (ts_val *[]){o, i}, .npos = 2};
		im->line = e->line;
		return call_op(im, f, find_op(im, "__getitem__"), "aten", &a);
	}
	case A_TUPLE:
	case A_LIST: {
		ts_val *v = mk(im, e->kind == A_TUPLE ? TS_TUPLE : TS_LIST);
		for (int i = 0; v && i < e->n; i++) {
			ts_val *x = eval(im, f, e->k[i]);
			if (!x)
				return NULL;
			if (ts_append(&im->a, v, x))
				return oom(im);
		}
		return v;
	}
	case A_DICT: {
		ts_val *v = mk(im, TS_DICT);
		for (int i = 0; v && i + 1 < e->n; i += 2) {
			ts_val *k = eval(im, f, e->k[i]), *x = k ? eval(im, f, e->k[i + 1]) : NULL;
			if (!x)
				return NULL;
			if (ts_dict_set(&im->a, v, k, x))
				return oom(im);
		}
		return v;
	}
	case A_UNARY: {
		ts_val *x = eval(im, f, e->k[0]);
		if (!x || x->kind == TS_POISON)
			return x;
		im->line = e->line;
		if (e->s[0] == '+')
			return x;
		if (!strcmp(e->s, "not")) {
			args a = {.pos = &x, .npos = 1};
			return call_op(im, f, find_op(im, "__not__"), "aten", &a);
		}
		if (e->s[0] == '~' && x->kind == TS_INT)
			return mk_int(im, ~x->i);
		if (e->s[0] == '~')
			return problem_at(im, e->line, "operator '~' on %s", ts_kind_name(x->kind));
		args a = {.pos = &x, .npos = 1};
		return call_op(im, f, find_op(im, "neg"), "aten", &a);
	}
	case A_BINOP: return eval_binop(im, f, e);
	case A_BOOLOP: {
		int c = condition(im, f, e->k[0], "'and'/'or'");
		if (c < 0)
			return NULL;
		if (c >= 2)
			return im->poison;
		bool is_and = e->s[0] == 'a';
		if (is_and != (c == 1))
			return mk_bool(im, c == 1);
		int d = condition(im, f, e->k[1], "'and'/'or'");
		return d < 0 ? NULL : d >= 2 ? im->poison : mk_bool(im, d == 1);
	}
	case A_IFEXP: {
		int c = condition(im, f, e->k[1], "'if' expression");
		return c < 0 ? NULL : c >= 2 ? im->poison : eval(im, f, e->k[c ? 0 : 2]);
	}
	default:
		return problem_at(im, e->line, "unsupported expression");
	}
}

/* ---------------------------------------------------------------- statements */

static int assign(imp *im, frame *f, const ts_ast *t, ts_val *v)
{
	if (t->kind == A_NAME)
		return set_var(im, f, t->s, v);
	if (t->kind == A_TUPLE || t->kind == A_LIST) {
		if (v->kind == TS_POISON) {
			for (int i = 0; i < t->n; i++)
				if (assign(im, f, t->k[i], v))
					return -1;
			return 0;
		}
		if (!is_seq(v) || v->n != t->n) {
			if (!problem_at(im, t->line, "unpacking %s into %d names", is_seq(v) ? "a sequence of another length" :
					ts_kind_name(v->kind), t->n))
				return -1;
			return assign(im, f, t, im->poison);
		}
		for (int i = 0; i < t->n; i++)
			if (assign(im, f, t->k[i], v->v[i]))
				return -1;
		return 0;
	}
	if (t->kind == A_ATTR) {
		ts_val *o = eval(im, f, t->k[0]);
		if (!o)
			return -1;
		if (o->kind == TS_POISON)
			return 0;
		if (o->kind != TS_OBJECT)
			return problem_at(im, t->line, "setting an attribute of %s", ts_kind_name(o->kind)) ? 0 : -1;
		ts_val *k = mk_str(im, t->s);
		return k && !ts_dict_set(&im->a, o->attrs, k, v) ? 0 : (oom(im), -1);
	}
	if (t->kind == A_SUBSCRIPT) {
		ts_val *o = eval(im, f, t->k[0]), *i = o ? eval(im, f, t->k[1]) : NULL;
		int64_t k;
		if (!i)
			return -1;
		if (o->kind == TS_POISON || i->kind == TS_POISON)
			return 0;
		if (o->kind == TS_LIST && get_int(i, &k) && k >= -(int64_t)o->n && k < o->n) {
			o->v[k < 0 ? k + o->n : k] = v;
			return 0;
		}
		if (o->kind == TS_DICT)
			return ts_dict_set(&im->a, o, i, v) ? (oom(im), -1) : 0;
		return problem_at(im, t->line, "item assignment to %s", ts_kind_name(o->kind)) ? 0 : -1;
	}
	return problem_at(im, t->line, "assignment to this expression") ? 0 : -1;
}

/* The names a statement list may assign: poisoned when it cannot run. */
static int poison_assigned(imp *im, frame *f, const ts_ast *b)
{
	for (int i = 0; b && i < b->n; i++) {
		const ts_ast *s = b->k[i];
		const ts_ast *target = s->kind == A_ASSIGN || s->kind == A_FOR ? s->k[0] : NULL;
		if (target && (target->kind == A_NAME || target->kind == A_TUPLE || target->kind == A_LIST) &&
		    assign(im, f, target, im->poison))
			return -1;
		if (s->kind == A_CLASSATTR && set_var(im, f, s->s, im->poison))
			return -1;
		if (s->kind == A_IF && (poison_assigned(im, f, s->k[1]) || poison_assigned(im, f, s->k[2])))
			return -1;
		if ((s->kind == A_FOR && poison_assigned(im, f, s->k[2])) ||
		    (s->kind == A_WHILE && poison_assigned(im, f, s->k[1])))
			return -1;
	}
	return 0;
}

static int exec_stmt(imp *im, frame *f, const ts_ast *s)
{
	if (++im->steps > MAX_STEPS)
		return fail(im, "%s:%d: the TorchScript code runs too long (a loop over a large range?)", im->file,
			    s->line), X_FAIL;
	im->line = s->line;
	im->file = f->file;
	switch (s->kind) {
	case A_PASS:
		return X_OK;
	case A_EXPR:
		return eval(im, f, s->k[0]) ? X_OK : X_FAIL;
	case A_ASSIGN:
	case A_CLASSATTR: {
		const ts_ast *ve = s->kind == A_ASSIGN ? s->k[1] : s->k[0];
		if (!ve)
			return X_OK;
		ts_val *v = eval(im, f, ve);
		if (!v)
			return X_FAIL;
		if (s->kind == A_CLASSATTR)
			return set_var(im, f, s->s, v) ? X_FAIL : X_OK;
		return assign(im, f, s->k[0], v) ? X_FAIL : X_OK;
	}
	case A_RETURN:
		f->ret = s->k[0] ? eval(im, f, s->k[0]) : im->none;
		return f->ret ? X_RETURN : X_FAIL;
	case A_BREAK:
		return X_BREAK;
	case A_CONTINUE:
		return X_CONTINUE;
	case A_IF: {
		int c = condition(im, f, s->k[0], "'if'");
		if (c < 0)
			return X_FAIL;
		if (c >= 2)
			return poison_assigned(im, f, s->k[1]) || poison_assigned(im, f, s->k[2]) ? X_FAIL : X_OK;
		const ts_ast *b = c ? s->k[1] : s->k[2];
		return b ? exec_block(im, f, b) : X_OK;
	}
	case A_FOR: {
		ts_val *it = eval(im, f, s->k[1]);
		if (!it)
			return X_FAIL;
		if (it->kind == TS_POISON)
			return poison_assigned(im, f, s->k[2]) || assign(im, f, s->k[0], it) ? X_FAIL : X_OK;
		if (!is_seq(it) && it->kind != TS_DICT) {
			if (!problem_at(im, s->line, "'for' loop over %s (only loops over values known at import time "
					"are unrolled)", ts_kind_name(it->kind)))
				return X_FAIL;
			return poison_assigned(im, f, s->k[2]) || assign(im, f, s->k[0], im->poison) ? X_FAIL : X_OK;
		}
		for (int i = 0; i < it->n; i++) {
			if (assign(im, f, s->k[0], it->kind == TS_DICT ? it->v[2 * i] : it->v[i]))
				return X_FAIL;
			int r = exec_block(im, f, s->k[2]);
			if (r == X_FAIL || r == X_RETURN)
				return r;
			if (r == X_BREAK)
				break;
		}
		return X_OK;
	}
	case A_WHILE:
		for (;;) {
			int c = condition(im, f, s->k[0], "'while' loop");
			if (c < 0)
				return X_FAIL;
			if (c >= 2)
				return poison_assigned(im, f, s->k[1]) ? X_FAIL : X_OK;
			if (!c)
				return X_OK;
			int r = exec_block(im, f, s->k[1]);
			if (r == X_FAIL || r == X_RETURN)
				return r;
			if (r == X_BREAK)
				return X_OK;
		}
	case A_DEF:
	case A_CLASS:
		return problem_at(im, s->line, "a nested definition") ? X_OK : X_FAIL;
	default:
		return problem_at(im, s->line, "'%s' statement", s->s ? s->s : "?") ? X_OK : X_FAIL;
	}
}

static int exec_block(imp *im, frame *f, const ts_ast *b)
{
	for (int i = 0; i < b->n; i++) {
		int r = exec_stmt(im, f, b->k[i]);
		if (r != X_OK)
			return r;
	}
	return X_OK;
}

/* ================================================================ the model */

/* A type annotation as text ("Tuple[Tensor, Tensor]"). */
static void type_text(const ts_ast *t, char *buf, size_t size)
{
	size_t len = strlen(buf);
	if (!t || len >= size - 1)
		return;
	switch (t->kind) {
	case A_NAME: snprintf(buf + len, size - len, "%s", t->s); break;
	case A_NONE: snprintf(buf + len, size - len, "None"); break;
	case A_ATTR:
		type_text(t->k[0], buf, size);
		len = strlen(buf);
		snprintf(buf + len, size - len, ".%s", t->s);
		break;
	case A_SUBSCRIPT:
		type_text(t->k[0], buf, size);
		snprintf(buf + strlen(buf), size - strlen(buf), "[");
		if (t->k[1]->kind == A_TUPLE) {
			for (int i = 0; i < t->k[1]->n; i++) {
				if (i)
					snprintf(buf + strlen(buf), size - strlen(buf), ", ");
				type_text(t->k[1]->k[i], buf, size);
			}
		} else {
			type_text(t->k[1], buf, size);
		}
		snprintf(buf + strlen(buf), size - strlen(buf), "]");
		break;
	default: snprintf(buf + len, size - len, "?"); break;
	}
}

/* Graph inputs from forward()'s arguments; values for the call in *a. */
static int bind_inputs(imp *im, const ts_ast *def, args *a, int *in_ids, int *n_in)
{
	const ts_ast *params = def->k[0];
	const ts_import_opts *o = im->o;
	int n = params->n - 1;
	for (int j = 0; j < o->n_inputs; j++)
		if (o->inputs[j].index < 0 || o->inputs[j].index >= n) {
			char range[64] = "";
			if (n > 0)
				snprintf(range, sizeof range, n == 1 ? " (index 0)" : " (indexes 0 to %d)", n - 1);
			return fail(im, "--input %d: the model's forward() takes %d input%s%s", o->inputs[j].index, n,
				    n == 1 ? "" : "s", range), -1;
		}
	if (!(a->pos = ts_alloc_array(&im->a, (size_t)n + 1, sizeof *a->pos)))
		return oom(im), -1;
	for (int i = 0; i < n; i++) {
		const ts_ast *p = params->k[i + 1], *type = p->k[0];
		const ts_input_shape *given = NULL;
		for (int j = 0; j < o->n_inputs; j++)
			if (o->inputs[j].index == i)
				given = &o->inputs[j];
		char tt[200] = "";
		type_text(type, tt, sizeof tt);
		bool tensor = !type || type_is(type, "Tensor") ||
			      (type_is(type, "Optional") && type->k[1]->kind == A_NAME && !strcmp(type->k[1]->s, "Tensor"));
		bool seq = type_is(type, "List") || type_is(type, "Tuple") || type_is(type, "Dict") ||
			   (type_is(type, "Optional") && (type_is(type->k[1], "List") || type_is(type->k[1], "Tuple")));
		if (seq && (given || !p->k[1]))
			return fail(im, "input %d ('%s') is a %s: inputs that are lists or tuples are not supported; "
				    "change forward() to take each tensor as its own argument", i, p->s, tt), -1;
		if (!given && p->k[1]) {
			frame f = {.file = im->file, .path = ""};
			if (!(a->pos[a->npos++] = eval(im, &f, p->k[1])))
				return -1;
			continue;
		}
		if (!tensor)
			return fail(im, "input %d ('%s') is %s%s, not a tensor: only tensor inputs are supported", i, p->s,
				    strchr("AEIOUaeiou", tt[0]) ? "an " : "a ", tt), -1;
		if (!given)
			return fail(im, "input %d ('%s') needs a shape: give it with --input %d:SHAPE", i, p->s, i), -1;
		const char *name = unique(im, &im->tensor_names, p->s);
		int id = name ? ir_graph_add_tensor(im->b.g, name, given->dtype, &given->shape, IR_KIND_INPUT, im->b.d) : -1;
		if (id < 0 || !(a->pos[a->npos++] = tval(im, id)))
			return -1;
		in_ids[(*n_in)++] = id;
	}
	return 0;
}

/* The returned value's tensors, tuples and lists flattened in order. */
static int flatten_outputs(imp *im, ts_val *v, int *ids, int *n, int depth)
{
	if ((is_seq(v) || v->kind == TS_DICT) && depth < 32) {
		for (int i = 0; i < v->n; i++)	/* a dict: its values in order */
			if (flatten_outputs(im, v->v[v->kind == TS_DICT ? 2 * i + 1 : i], ids, n, depth + 1))
				return -1;
		return 0;
	}
	if (!is_tensor(v))
		return fail(im, "forward() returns %s (as output %d): only tensors, and tuples, lists and dicts of them, can be "
			    "outputs", ts_kind_name(v->kind), *n), -1;
	if (*n == MAX_OUTPUTS)
		return fail(im, "more than %d outputs", MAX_OUTPUTS), -1;
	if ((ids[*n] = tid(im, v)) < 0)
		return -1;
	(*n)++;
	return 0;
}

typedef struct {
	uintptr_t p;
	int k;
} buf_ix;

static int buf_ix_cmp(const void *a, const void *b)
{
	uintptr_t x = ((const buf_ix *)a)->p, y = ((const buf_ix *)b)->p;
	return (x > y) - (x < y);
}

/* Constant `name` in h holding x's data. A storage buffer that starts with
 * the data moves into h (the weights are not held twice; views into it,
 * copied before or after, read it there), anything else is copied. */
static int add_const_moved(imp *im, ir_graph *h, const char *name, const ir_tensor *x, const buf_ix *ix)
{
	const void *data = ts_map_get(&im->tensor_names, x->name);
	buf_ix key = {(uintptr_t)data, 0};
	const buf_ix *b = ix && data ? bsearch(&key, ix, (size_t)im->nbufs, sizeof *ix, buf_ix_cmp) : NULL;
	if (!b || !im->bufs[b->k] || !ir_tensor_nbytes(x))
		return ir_graph_add_const(h, name, x->dtype, &x->shape, data, im->b.d);
	int id = ir_graph_add_tensor(h, name, x->dtype, &x->shape, IR_KIND_CONST, im->b.d);
	if (id >= 0 && ir_tensor_adopt_data(h, id, im->bufs[b->k], ir_tensor_nbytes(x), im->b.d))
		return -1;
	if (id >= 0)
		im->bufs[b->k] = NULL;
	return id;
}

/* A copy of g with tensor ids kept, the outputs renamed output_0, ... and
 * the constants given their data (moved where it can be, see
 * add_const_moved). */
static ir_graph *copy_renamed(imp *im, const ir_graph *g)
{
	ir_graph *h = ir_graph_new();
	buf_ix *ix = malloc(sizeof *ix * (size_t)(im->nbufs + 1));
	for (int k = 0; ix && k < im->nbufs; k++)
		ix[k] = (buf_ix){(uintptr_t)im->bufs[k], k};
	if (ix)
		qsort(ix, (size_t)im->nbufs, sizeof *ix, buf_ix_cmp);
	int nt = ir_graph_tensor_count(g), no = ir_graph_output_count(g);
	char **names = calloc((size_t)nt + 1, sizeof *names);
	ts_map used = {0};
	bool ok = h && names;
	for (int i = 0; ok && i < no; i++) {
		int t = ir_graph_output(g, i);
		names[t] = ts_sprintf(&im->a, "output_%d", i);
		ok = names[t] && !ts_map_put(&used, names[t], (void *)1);
	}
	for (int t = 0; ok && t < nt; t++) {
		const ir_tensor *x = ir_graph_tensor(g, t);
		const char *name = names[t];
		if (!name) {	/* a clash with output_N keeps the tensor unique */
			name = x->name;
			for (int k = 1; name && ts_map_get(&used, name); k++)
				name = ts_sprintf(&im->a, "%s_%d", x->name, k);
			ok = name && !ts_map_put(&used, name, (void *)1);
		}
		int id = !ok ? -1 : x->kind == IR_KIND_CONST ? add_const_moved(im, h, name, x, ix) :
			 ir_graph_add_tensor(h, name, x->dtype, &x->shape, x->kind, im->b.d);
		ok = id == t;
		if (ok)
			ir_graph_tensor(h, id)->layout = x->layout;
	}
	for (int i = 0; ok && i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		int id = ir_graph_add_node(h, n->name, n->op, n->inputs, n->n_inputs, n->outputs, n->n_outputs, im->b.d);
		ok = id >= 0 && (!n->origin || !ir_node_set_origin(h, id, n->origin));
		for (int k = 0; ok && k < n->n_attrs; k++) {
			const ir_attr *a = &n->attrs[k];
			ok = !(a->type == IR_ATTR_INT ? ir_node_set_int(h, id, a->name, a->i) :
			       a->type == IR_ATTR_FLOAT ? ir_node_set_float(h, id, a->name, a->f) :
			       a->type == IR_ATTR_STR ? ir_node_set_str(h, id, a->name, a->s) :
			       a->type == IR_ATTR_INTS ? ir_node_set_ints(h, id, a->name, a->ints, a->n) :
			       ir_node_set_floats(h, id, a->name, a->floats, a->n));
		}
	}
	int *ids = malloc(sizeof(int) * (size_t)(ir_graph_input_count(g) + no + 1));
	ok = ok && ids;
	for (int i = 0; ok && i < ir_graph_input_count(g); i++)
		ids[i] = ir_graph_input(g, i);
	ok = ok && !ir_graph_set_inputs(h, ids, ir_graph_input_count(g), im->b.d);
	for (int i = 0; ok && i < no; i++)
		ids[i] = ir_graph_output(g, i);
	ok = ok && !ir_graph_set_outputs(h, ids, no, im->b.d);
	free(ids);
	free(names);
	free(ix);
	ts_map_free(&used);
	if (!ok) {
		if (!im->b.d->msg[0])
			oom(im);
		ir_graph_free(h);
		return NULL;
	}
	return h;
}

static ir_graph *build(imp *im)
{
	uint8_t *buf;
	size_t size;
	int rc;
	/* the archive version: torch 1.10-1.13 write 3 (in version or .data/version) */
	if ((rc = ts_zip_read(im->z, "version", 64, &buf, &size, im->b.d)) == 1)
		rc = ts_zip_read(im->z, ".data/version", 64, &buf, &size, im->b.d);
	if (rc < 0)
		return NULL;
	if (rc == 0) {
		im->version = atoi((const char *)buf);
		free(buf);
	}
	if (ts_zip_has(im->z, "model.json"))
		return (ir_graph *)fail(im, "this is a TorchScript archive of PyTorch 1.0-1.2 (model.json), which is not "
					"supported; load and save it again with a newer torch");
	if ((rc = ts_zip_read(im->z, "byteorder", 64, &buf, &size, im->b.d)) < 0)
		return NULL;
	if (rc == 0) {
		bool big = !strncmp((const char *)buf, "big", 3);
		free(buf);
		if (big)
			return (ir_graph *)fail(im, "big-endian archives are not supported");
	}
	if (!ts_zip_has_dir(im->z, "code"))
		return (ir_graph *)fail(im, "the archive has no TorchScript code (code/): this looks like torch.save output; "
					"trace or script the model and save it with torch.jit.save");
	/* the module tree, then the constants the code refers to */
	if ((rc = ts_zip_read(im->z, "data.pkl", MAX_PICKLE, &buf, &size, im->b.d)) != 0)
		return rc > 0 ? (ir_graph *)fail(im, "the archive has no data.pkl") : NULL;
	ts_val *root = ts_unpickle(&im->a, buf, size, "data", "data.pkl", im->b.d);
	free(buf);
	if (!root)
		return NULL;
	if ((rc = ts_zip_read(im->z, "constants.pkl", MAX_PICKLE, &buf, &size, im->b.d)) < 0)
		return NULL;
	if (rc == 0) {
		im->constants = ts_unpickle(&im->a, buf, size, "constants", "constants.pkl", im->b.d);
		free(buf);
		if (!im->constants)
			return NULL;
	}
	if (root->kind != TS_OBJECT)
		return (ir_graph *)fail(im, "data.pkl holds %s, not a module", ts_kind_name(root->kind));
	root->path = "";
	bool err;
	const class_ref *k = class_of(im, root, &err);
	const ts_ast *fwd = k ? find_in(k->cls, A_DEF, "forward") : NULL;
	if (err)
		return NULL;
	if (!k)
		return (ir_graph *)fail(im, "the code of the model's class %s is not in the archive", root->s);
	if (!fwd)
		return (ir_graph *)fail(im, "class %s has no forward()", root->s);
	if (fwd->k[0]->n < 1)
		return (ir_graph *)fail(im, "%s.forward() takes no self", root->s);
	args a = {0};
	int *in_ids = malloc(sizeof(int) * (size_t)(fwd->k[0]->n + 1)), n_in = 0;
	int *out_ids = malloc(sizeof(int) * (MAX_OUTPUTS + 1)), n_out = 0;
	ir_graph *result = NULL;
	if (!in_ids || !out_ids) {
		oom(im);
		goto out;
	}
	im->file = k->file;
	im->line = fwd->line;
	if (bind_inputs(im, fwd, &a, in_ids, &n_in))
		goto out;
	ts_val *ret = call_def(im, fwd, k->file, root, "", &a, fwd->line);
	if (!ret)
		goto out;
	if (im->b.npb) {
		ib_report_places(&im->b, "cannot import: ");
		goto out;
	}
	if (flatten_outputs(im, ret, out_ids, &n_out, 0))
		goto out;
	if (!n_out) {
		fail(im, "forward() returns no tensors");
		goto out;
	}
	/* outputs that are inputs, constants or repeated get their own tensor */
	for (int i = 0; i < n_out; i++) {
		const ir_tensor *t = ir_graph_tensor(im->b.g, out_ids[i]);
		bool again = false;
		for (int j = 0; j < i; j++)
			again |= out_ids[j] == out_ids[i];
		if (t->kind == IR_KIND_ACTIVATION && !again)
			continue;
		cx c = {.im = im, .b = &im->b, .op = "aten::clone"};
		char oname[32];
		snprintf(oname, sizeof oname, "output_%d", i);
		c.base = unique(im, &im->node_names, oname);
		ts_val *v = c.base ? node1(&c, NULL, IR_OP_IDENTITY, &out_ids[i], 1) : NULL;
		if (!v || v->kind != TS_TENSOR)
			goto out;
		out_ids[i] = v->t->id;
	}
	if (ir_graph_set_inputs(im->b.g, in_ids, n_in, im->b.d) || ir_graph_set_outputs(im->b.g, out_ids, n_out, im->b.d))
		goto out;
	ir_graph_prune(im->b.g);
	result = copy_renamed(im, im->b.g);
	if (!result)
		goto out;
	if (ir_graph_infer_shapes(result, im->b.d) || ir_graph_verify(result, im->b.d)) {
		ib_graph_fail(result, im->b.d);
		ir_graph_free(result);
		result = NULL;
		goto out;
	}
	char prod[64];
	snprintf(prod, sizeof prod, "torch.jit archive version %d", im->version);
	if (ir_meta_set_str(result, "source.framework", "pytorch") ||
	    (im->o->file && ir_meta_set_str(result, "source.file", im->o->file)) ||
	    ir_meta_set_str(result, "source.producer", prod)) {
		oom(im);
		ir_graph_free(result);
		result = NULL;
	}
out:
	free(in_ids);
	free(out_ids);
	return result;
}

ir_graph *ts_import(const uint8_t *buf, size_t size, const ts_import_opts *opts, ir_diag *d)
{
	static const ts_import_opts defaults;
	ir_diag scratch;
	if (!d)
		d = &scratch;
	d->msg[0] = 0;
	if (ib_check_format(buf, size, "a TorchScript archive", "zip", d))
		return NULL;
	imp im = {.o = opts ? opts : &defaults, .a = {.limit = ARENA_LIMIT}};
	ib_init(&im.b, NULL, d, '/');
	ir_graph *g = NULL;
	if (!(im.z = ts_zip_open(buf, size, d)))
		return NULL;
	if (!(im.b.g = ir_graph_new()) || !(im.none = mk(&im, TS_NONE)) || !(im.poison = mk(&im, TS_POISON)))
		oom(&im);
	else
		g = build(&im);
	ir_graph_free(im.b.g);
	ts_zip_close(im.z);
	for (int i = 0; i < im.nbufs; i++)
		free(im.bufs[i]);
	free(im.bufs);
	ib_free(&im.b);
	ts_map_free(&im.files);
	ts_map_free(&im.ops);
	ts_map_free(&im.node_names);
	ts_map_free(&im.tensor_names);
	ts_map_free(&im.node_suffix);
	ts_map_free(&im.tensor_suffix);
	ts_arena_free(&im.a);
	return g;
}

/* The op table for listings (npuc --list -f PT): entry i, NULL past the end.
 * *irop: the IR op of entries that map to one, else -1. */
const char *ts_import_op_at(int i, int *irop)
{
	if (i < 0 || (size_t)i >= sizeof op_table / sizeof op_table[0])
		return NULL;
	*irop = op_table[i].op ? op_table[i].op : -1;
	return op_table[i].name;
}
