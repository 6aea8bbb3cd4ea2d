/* builder.c - the importers' shared graph builder (see builder.h). */
#include "import/builder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ib_grow(void **p, int *cap, int n, size_t size)
{
	if (n < *cap)
		return 0;
	int c = *cap ? *cap * 2 : 16;
	if (c <= n || (size_t)c > SIZE_MAX / size)
		return -1;
	void *q = realloc(*p, (size_t)c * size);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

uint64_t ib_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211u;
	return h;
}

int64_t ib_nbytes(const ir_shape *s, ir_dtype dt, int64_t limit)
{
	int64_t n = (int64_t)ir_dtype_size(dt);
	for (int i = 0; i < s->rank; i++)
		if (ir_mul_checked(&n, s->dim[i], limit))
			return -1;
	return n <= limit ? n : -1;
}

int64_t ib_f2i(double f)
{
	if (isnan(f))
		return 0;
	if (f >= 9.2e18)
		return INT64_MAX;
	if (f <= -9.2e18)
		return INT64_MIN;
	return (int64_t)f;
}

bool ib_dtype_is_int(ir_dtype t)
{
	return t == IR_DTYPE_I64 || t == IR_DTYPE_I32 || t == IR_DTYPE_I16 || t == IR_DTYPE_I8 ||
	       t == IR_DTYPE_U8 || t == IR_DTYPE_BOOL;
}

int ib_check_format(const uint8_t *buf, size_t size, const char *noun, const char *own, ir_diag *d)
{
	const char *hint, *what;
	if (size == 0)
		return ir_fail(d, -1, -1, "empty file (expected %s)", noun);
	/* an IR stream: a msgpack map (fix, 16 or 32 bits) whose first key is "npu-ir" */
	size_t key = (buf[0] & 0xf0) == 0x80 ? 1 : buf[0] == 0xde ? 3 : 5;
	if (size >= key + 7 && buf[key] == 0xa6 && !memcmp(buf + key + 1, "npu-ir", 6))
		return ir_fail(d, -1, -1, "this is an npukit IR stream already, not %s", noun);
	if ((what = ir_sniff_format(buf, size, &hint)) && !strstr(what, own))
		return ir_fail(d, -1, -1, "not %s (this looks like %s)", noun, what);
	return 0;
}

int ib_graph_fail(const ir_graph *g, ir_diag *d)
{
	const ir_node *n = ir_graph_node(g, d->node);
	const ir_tensor *t = ir_graph_tensor(g, d->tensor);
	char m[sizeof d->msg];
	snprintf(m, sizeof m, "%s", d->msg);
	if (n)
		return ir_fail(d, -1, -1, "node '%s' (%s): %s", n->name, n->origin ? n->origin : ir_op_name(n->op), m);
	if (t && !strstr(m, t->name))
		return ir_fail(d, -1, -1, "tensor '%s': %s", t->name, m);
	return ir_fail(d, -1, -1, "%s", m);
}

void ib_init(ib *b, ir_graph *g, ir_diag *d, char sep)
{
	*b = (ib){.g = g, .d = d, .sep = sep};
}

void ib_free(ib *b)
{
	for (int i = 0; i < b->nstrs; i++)
		free(b->strs[i]);
	free(b->strs);
	free(b->pb);
	b->strs = NULL;
	b->pb = NULL;
	b->nstrs = b->capstrs = b->npb = b->cappb = 0;
}

char *ib_strn(ib *b, const char *s, size_t n)
{
	if (ib_grow((void **)&b->strs, &b->capstrs, b->nstrs, sizeof(char *)))
		return NULL;
	char *c = malloc(n + 1);
	if (!c)
		return NULL;
	memcpy(c, s, n);
	c[n] = 0;
	return b->strs[b->nstrs++] = c;
}

char *ib_fmt(ib *b, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return ib_strn(b, buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* ---------------------------------------------------------------- errors */

int ib_oom(ib *b)
{
	if (!b->failed)
		ir_fail(b->d, -1, -1, "out of memory");
	b->failed = true;
	return -1;
}

int ib_vfail(ib *b, const char *fmt, va_list ap)
{
	char m[sizeof b->d->msg];
	vsnprintf(m, sizeof m, fmt, ap);
	if (!b->failed)
		ir_fail(b->d, -1, -1, "node '%s' (%s): %s", b->name, b->op, m);
	b->failed = true;
	return -1;
}

int ib_fail(ib *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ib_vfail(b, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---------------------------------------------------------------- names */

void ib_begin(ib *b, const char *name, const char *op)
{
	b->name = name;
	b->op = op;
}

const char *ib_unique(ib *b, const char *base, bool node)
{
	const char *s = base;
	for (int k = 1; s; k++) {
		bool used = node ? ir_graph_find_node(b->g, s) >= 0
				 : (b->taken && b->taken(b->ctx, s)) || ir_graph_find_tensor(b->g, s) >= 0;
		if (!used)
			return s;
		s = ib_fmt(b, "%s_%d", base, k);
	}
	return NULL;
}

const char *ib_suffixed(ib *b, const char *suffix, bool node)
{
	return ib_unique(b, ib_fmt(b, "%s%c%s", b->name, b->sep, suffix), node);
}

/* ---------------------------------------------------------------- tensors and nodes */

int ib_tensor(ib *b, const char *name)
{
	if (b->failed)
		return -1;
	int id = name ? ir_graph_add_tensor(b->g, name, IR_DTYPE_F32, NULL, IR_KIND_ACTIVATION, b->d) : ib_oom(b);
	if (id < 0)
		b->failed = true;
	return id;
}

int ib_tmp(ib *b, const char *suffix)
{
	return b->failed ? -1 : ib_tensor(b, ib_suffixed(b, suffix, false));
}

int ib_const(ib *b, const char *name, ir_dtype dt, const ir_shape *s, const void *data)
{
	if (b->failed)
		return -1;
	int id = name ? ir_graph_add_const(b->g, name, dt, s, data, b->d) : ib_oom(b);
	if (id < 0)
		b->failed = true;
	return id;
}

int ib_node(ib *b, const char *name, int op, const int *in, int nin, const int *out, int nout)
{
	if (b->failed)
		return -1;
	for (int i = 0; i < nout; i++)
		if (out[i] < 0)
			return -1;
	int id = name ? ir_graph_add_node(b->g, name, op, in, nin, out, nout, b->d) : ib_oom(b);
	if (id >= 0 && ir_node_set_origin(b->g, id, b->op))
		return ib_oom(b);
	if (id < 0)
		b->failed = true;
	return id;
}

int ib_emit(ib *b, const char *suffix, int op, const int *in, int nin, const int *out, int nout)
{
	if (b->failed)
		return -1;
	for (int i = 0; i < nout; i++)
		if (out[i] < 0)
			return -1;
	const char *name = suffix ? ib_suffixed(b, suffix, true) : ib_unique(b, b->name, true);
	return ib_node(b, name, op, in, nin, out, nout);
}

void ib_set_i(ib *b, int n, const char *key, int64_t v)
{
	if (n >= 0 && ir_node_set_int(b->g, n, key, v))
		ib_oom(b);
}

void ib_set_f(ib *b, int n, const char *key, double v)
{
	if (n >= 0 && ir_node_set_float(b->g, n, key, v))
		ib_oom(b);
}

void ib_set_s(ib *b, int n, const char *key, const char *v)
{
	if (n >= 0 && ir_node_set_str(b->g, n, key, v))
		ib_oom(b);
}

void ib_set_is(ib *b, int n, const char *key, const int64_t *v, int cnt)
{
	if (n >= 0 && ir_node_set_ints(b->g, n, key, v, cnt))
		ib_oom(b);
}

void ib_set_fs(ib *b, int n, const char *key, const double *v, int cnt)
{
	if (n >= 0 && ir_node_set_floats(b->g, n, key, v, cnt))
		ib_oom(b);
}

int ib_done(ib *b, int n)
{
	ir_diag sd;
	if (b->failed || n < 0)
		return -1;
	if (ir_graph_infer_node(b->g, n, &sd) == 0)
		return 0;
	const ir_node *x = ir_graph_node(b->g, n);
	if (strcmp(x->name, b->name))
		return ib_fail(b, "%s (%s): %s", x->name, ir_op_name(x->op), sd.msg);
	return ib_fail(b, "%s", sd.msg);
}

int ib_finish(ib *b, const int *in, int nin, const int *out, int nout)
{
	if (ir_graph_set_inputs(b->g, in, nin, b->d) || ir_graph_set_outputs(b->g, out, nout, b->d))
		return -1;
	ir_graph_prune(b->g);
	if (ir_graph_infer_shapes(b->g, b->d) || ir_graph_verify(b->g, b->d))
		return ib_graph_fail(b->g, b->d);
	return 0;
}

/* ---------------------------------------------------------------- problems */

int ib_problem_add(ib *b, int kind, const char *op, const char *node, const char *detail)
{
	if (ib_grow((void **)&b->pb, &b->cappb, b->npb, sizeof(ib_problem)))
		return ib_oom(b);
	ib_problem *p = &b->pb[b->npb];
	p->op = ib_strn(b, op, strlen(op));
	p->node = ib_strn(b, node, strlen(node));
	p->detail = detail ? ib_strn(b, detail, strlen(detail)) : NULL;
	p->kind = kind;
	if (!p->op || !p->node || (detail && !p->detail))
		return ib_oom(b);
	b->npb++;
	return 0;
}

int ib_unsup(ib *b, const char *fmt, ...)
{
	char m[sizeof b->d->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	return ib_problem_add(b, 0, b->op, b->name, m) ? -1 : 1;
}

#define PUT(...) do { if (len < sizeof m) { int k_ = snprintf(m + len, sizeof m - len, __VA_ARGS__); len += k_ > 0 ? (size_t)k_ : 0; } } while (0)

/* d := m[0..len) (m holds msize bytes), cut after a list item if long. */
static void fail_list(ir_diag *d, char *m, size_t msize, size_t len)
{
	size_t cap = sizeof d->msg;
	if (len >= cap) {
		size_t cut = cap - 8;
		while (cut > 0 && m[cut] != ',' && m[cut] != ';')
			cut--;
		snprintf(m + cut, msize - cut, "%s ...", m[cut] == ';' ? ";" : ",");
	}
	ir_fail(d, -1, -1, "%s", m);
}

void ib_report(ib *b, const char *const *heads, int nkinds)
{
	char m[4096];
	size_t len = 0;
	bool any = false;
	for (int kind = 0; kind < nkinds; kind++) {
		bool head = false;
		for (int i = 0; i < b->npb; i++) {
			const ib_problem *p = &b->pb[i];
			bool first = true;
			if (p->detail || p->kind != kind)
				continue;
			for (int j = 0; j < i && first; j++)
				first = b->pb[j].detail || strcmp(b->pb[j].op, p->op);
			if (!first)
				continue;
			int count = 0;
			for (int j = i; j < b->npb; j++)
				count += !b->pb[j].detail && !strcmp(b->pb[j].op, p->op);
			PUT("%s%s'%s' (node%s ", head ? ", " : any ? "; " : "", head ? "" : heads[kind], p->op,
			    count > 1 ? "s" : "");
			head = any = true;
			for (int j = i, k = 0; j < b->npb; j++)
				if (!b->pb[j].detail && !strcmp(b->pb[j].op, p->op))
					PUT("%s'%s'", k++ ? ", " : "", b->pb[j].node);
			PUT(")");
		}
	}
	for (int i = 0; i < b->npb; i++) {
		const ib_problem *p = &b->pb[i];
		if (p->detail) {
			PUT("%snode '%s' (%s): %s", any ? "; " : "", p->node, p->op, p->detail);
			any = true;
		}
	}
	fail_list(b->d, m, sizeof m, len);
	b->failed = true;
}

void ib_report_places(ib *b, const char *head)
{
	char m[4096];
	size_t len = 0;
	bool *done = calloc((size_t)b->npb + 1, 1);
	PUT("%s", head);
	for (int i = 0; i < b->npb; i++) {
		if (done && done[i])
			continue;
		PUT("%s%s (%s", i ? "; " : "", b->pb[i].op, b->pb[i].node);
		for (int j = i + 1; j < b->npb && done; j++)
			if (!done[j] && !strcmp(b->pb[j].op, b->pb[i].op)) {
				PUT(", %s", b->pb[j].node);
				done[j] = true;
			}
		PUT(")");
	}
	free(done);
	fail_list(b->d, m, sizeof m, len);
	b->failed = true;
}
#undef PUT
