/* ir_graph.c - the graph model: tensors, nodes, attributes, metadata,
 * history, topological order and pruning. */
#include "ir_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- names of enums */

static const char *const dtype_names[IR_DTYPE_COUNT] = {
	"f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u8", "bool"};
static const size_t dtype_sizes[IR_DTYPE_COUNT] = {4, 2, 2, 8, 4, 2, 1, 1, 1};
static const char *const layout_names[IR_LAYOUT_COUNT] = {
	"", "nchw", "nhwc", "ncl", "nlc", "nc"};
static const char *const kind_names[IR_KIND_COUNT] = {
	"activation", "input", "const", "state"};
static const char *const precision_names[IR_PREC_COUNT] = {
	"", "f32", "f16", "i16", "i8"};

static int name_index(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (s && strcmp(names[i], s) == 0)
			return i;
	return -1;
}

const char *ir_dtype_name(ir_dtype t) { return (unsigned)t < IR_DTYPE_COUNT ? dtype_names[t] : "?"; }
size_t ir_dtype_size(ir_dtype t) { return (unsigned)t < IR_DTYPE_COUNT ? dtype_sizes[t] : 0; }
int ir_dtype_from_name(const char *s) { return name_index(dtype_names, IR_DTYPE_COUNT, s); }
const char *ir_layout_name(ir_layout l) { return (unsigned)l < IR_LAYOUT_COUNT ? layout_names[l] : "?"; }
int ir_layout_from_name(const char *s) { return name_index(layout_names, IR_LAYOUT_COUNT, s); }
const char *ir_kind_name(ir_kind k) { return (unsigned)k < IR_KIND_COUNT ? kind_names[k] : "?"; }
int ir_kind_from_name(const char *s) { return name_index(kind_names, IR_KIND_COUNT, s); }
const char *ir_precision_name(ir_precision p) { return (unsigned)p < IR_PREC_COUNT ? precision_names[p] : "?"; }
int ir_precision_from_name(const char *s) { return name_index(precision_names, IR_PREC_COUNT, s); }

int ir_fail(ir_diag *d, int node, int tensor, const char *fmt, ...)
{
	if (d) {
		/* Format apart: callers may pass d->msg itself as an argument. */
		char m[sizeof d->msg];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(m, sizeof m, fmt, ap);
		va_end(ap);
		memcpy(d->msg, m, sizeof m);
		d->node = node;
		d->tensor = tensor;
	}
	return -1;
}

/* ---------------------------------------------------------------- shapes */

int ir_mul_checked(int64_t *acc, int64_t v, int64_t limit)
{
	if (*acc < 0 || v < 0 || (v != 0 && *acc > limit / v))
		return -1;
	*acc *= v;
	return 0;
}

int64_t ir_shape_numel(const ir_shape *s)
{
	if (s->rank < 0 || s->rank > IR_MAX_RANK)
		return -1;
	int64_t n = 1;
	for (int i = 0; i < s->rank; i++) {
		int64_t d = s->dim[i];
		if (d < 0 || d > IR_MAX_DIM)
			return -1;
		if (ir_mul_checked(&n, d, IR_MAX_ELEMS))
			return -1;
	}
	return n;
}

bool ir_shape_equal(const ir_shape *a, const ir_shape *b)
{
	if (a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (a->dim[i] != b->dim[i])
			return false;
	return true;
}

char *ir_shape_str(const ir_shape *s, char *buf, size_t size)
{
	size_t len = 0;
	if (size == 0)
		return buf;
	buf[0] = 0;
	if (s->rank == 0) {
		snprintf(buf, size, "scalar");
		return buf;
	}
	for (int i = 0; i < s->rank && len < size; i++) {
		int k = snprintf(buf + len, size - len, "%s%lld", i ? "x" : "", (long long)s->dim[i]);
		if (k < 0)
			break;
		len += (size_t)k;
	}
	return buf;
}

int ir_shape_parse(const char *text, ir_shape *out)
{
	const char *p = text;
	memset(out, 0, sizeof *out);
	if (!p || !*p)
		return -1;
	for (;;) {
		if (out->rank == IR_MAX_RANK || *p < '0' || *p > '9')
			return -1;
		char *end;
		long long v = strtoll(p, &end, 10);
		if (v < 0 || v > IR_MAX_DIM)
			return -1;
		out->dim[out->rank++] = v;
		p = end;
		if (!*p)
			break;
		if (*p != ',' && *p != 'x')
			return -1;
		p++;
	}
	return ir_shape_numel(out) < 0 ? -1 : 0;
}

int ir_axis(int64_t axis, int rank)
{
	if (axis < 0)
		axis += rank;
	return axis < 0 || axis >= rank ? -1 : (int)axis;
}

int ir_shape_broadcast(const ir_shape *a, const ir_shape *b, ir_shape *out)
{
	int r = a->rank > b->rank ? a->rank : b->rank;
	ir_shape o = {.rank = r};
	for (int i = 0; i < r; i++) {
		int ia = i - (r - a->rank), ib = i - (r - b->rank);
		int64_t da = ia >= 0 ? a->dim[ia] : 1, db = ib >= 0 ? b->dim[ib] : 1;
		if (da != db && da != 1 && db != 1)
			return -1;
		o.dim[i] = da == 1 ? db : da;
	}
	*out = o;
	return 0;
}

/* ---------------------------------------------------------------- memory helpers */

void *ir_xrealloc(void *p, size_t n, size_t size)
{
	if (n && size > SIZE_MAX / n)
		return NULL;
	return realloc(p, n * size > 0 ? n * size : 1);
}

char *ir_strdup(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

/* Grow an array to hold at least n elements; capacity doubles. */
#define GROW(arr, cap, n)                                                      \
	((n) <= (cap) ? 0 : ir_grow((void **)&(arr), &(cap), (n), sizeof *(arr)))

static int ir_grow(void **arr, int *cap, int n, size_t size)
{
	int c = *cap ? *cap : 16;
	while (c < n)
		c *= 2;
	void *p = ir_xrealloc(*arr, (size_t)c, size);
	if (!p)
		return -1;
	*arr = p;
	*cap = c;
	return 0;
}

/* ---------------------------------------------------------------- graph */

ir_graph *ir_graph_new(void)
{
	return calloc(1, sizeof(ir_graph));
}

void ir_quant_free(ir_quant *q)
{
	if (q) {
		free(q->scale);
		free(q->zero_point);
		free(q);
	}
}

ir_quant *ir_quant_dup(const ir_quant *q)
{
	ir_quant *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	*c = *q;
	c->scale = NULL;
	c->zero_point = NULL;
	if (q->n < 1 || q->n > (1 << 24))
		goto fail;
	c->scale = malloc(sizeof(float) * (size_t)q->n);
	c->zero_point = malloc(sizeof(int32_t) * (size_t)q->n);
	if (!c->scale || !c->zero_point)
		goto fail;
	memcpy(c->scale, q->scale, sizeof(float) * (size_t)q->n);
	memcpy(c->zero_point, q->zero_point, sizeof(int32_t) * (size_t)q->n);
	return c;
fail:
	ir_quant_free(c);
	return NULL;
}

static void attr_clear(ir_attr *a)
{
	free(a->name);
	free(a->s);
	free(a->ints);
	free(a->floats);
}

static void tensor_clear(ir_tensor *t)
{
	free(t->name);
	ir_quant_free(t->quant);
	free(t->data);
}

static void node_clear(ir_node *n)
{
	free(n->name);
	free(n->inputs);
	free(n->outputs);
	for (int i = 0; i < n->n_attrs; i++)
		attr_clear(&n->attrs[i]);
	free(n->attrs);
	free(n->origin);
}

static void history_clear(ir_history *h)
{
	free(h->program);
	free(h->version);
	for (int i = 0; i < h->argc; i++)
		free(h->argv[i]);
	free(h->argv);
}

void ir_graph_free(ir_graph *g)
{
	if (!g)
		return;
	for (int i = 0; i < g->n_tensors; i++)
		tensor_clear(&g->tensors[i]);
	for (int i = 0; i < g->n_nodes; i++)
		node_clear(&g->nodes[i]);
	for (int i = 0; i < g->n_meta; i++) {
		free(g->meta[i].key);
		free(g->meta[i].s);
	}
	for (int i = 0; i < g->n_history; i++)
		history_clear(&g->history[i]);
	free(g->tensors);
	free(g->nodes);
	free(g->meta);
	free(g->history);
	free(g->inputs);
	free(g->outputs);
	free(g->tindex.slot);
	free(g->nindex.slot);
	free(g->use.prod);
	free(g->use.uses);
	free(g->use.usum);
	free(g);
}

int ir_graph_tensor_count(const ir_graph *g) { return g->n_tensors; }
int ir_graph_node_count(const ir_graph *g) { return g->n_nodes; }

ir_tensor *ir_graph_tensor(const ir_graph *g, int id)
{
	return id >= 0 && id < g->n_tensors ? &g->tensors[id] : NULL;
}

ir_node *ir_graph_node(const ir_graph *g, int id)
{
	return id >= 0 && id < g->n_nodes ? &g->nodes[id] : NULL;
}

/* ---------------------------------------------------------------- name index */

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;	/* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	return h ^ (h >> 29);
}

static const char *index_name(const ir_graph *g, bool nodes, int id)
{
	return nodes ? g->nodes[id].name : g->tensors[id].name;
}

static void index_put(ir_name_index *x, const ir_graph *g, bool nodes, int id)
{
	size_t mask = x->cap - 1, i = (size_t)name_hash(index_name(g, nodes, id)) & mask;
	while (x->slot[i])
		i = (i + 1) & mask;
	x->slot[i] = id + 1;
}

/* Make x index ids 0..n-1 (room for one more); -1: out of memory. */
static int index_sync(ir_name_index *x, const ir_graph *g, bool nodes, int n)
{
	if (!x->stale && x->count == n && (size_t)n + 1 <= x->cap / 2)
		return 0;
	size_t cap = x->cap ? x->cap : 64;
	while (cap / 2 < (size_t)n + 1)
		cap *= 2;
	if (x->stale || x->count > n || cap != x->cap) {
		int *slot = calloc(cap, sizeof *slot);
		if (!slot)
			return -1;
		free(x->slot);
		x->slot = slot;
		x->cap = cap;
		x->count = 0;
		x->stale = 0;
	}
	for (; x->count < n; x->count++)
		if (*index_name(g, nodes, x->count))	/* "": a node killed in a pass */
			index_put(x, g, nodes, x->count);
	return 0;
}

static int index_find(const ir_graph *cg, bool nodes, const char *name)
{
	/* The index is a cache: graphs come from ir_graph_new (never const
	 * objects), so refreshing it under a const lookup is sound. */
	ir_graph *g = (ir_graph *)cg;
	ir_name_index *x = nodes ? &g->nindex : &g->tindex;
	int n = nodes ? g->n_nodes : g->n_tensors;
	if (!name)
		return -1;
	if (index_sync(x, g, nodes, n) < 0) {
		for (int i = 0; i < n; i++)	/* out of memory: scan */
			if (strcmp(index_name(g, nodes, i), name) == 0)
				return i;
		return -1;
	}
	size_t mask = x->cap - 1, i = (size_t)name_hash(name) & mask;
	for (; x->slot[i]; i = (i + 1) & mask) {
		int id = x->slot[i] - 1;
		if (strcmp(index_name(g, nodes, id), name) == 0)
			return id;
	}
	return -1;
}

/* After appending id n-1: index it if the index is current. */
static void index_added(ir_name_index *x, const ir_graph *g, bool nodes, int n)
{
	if (!x->stale && x->count == n - 1 && (size_t)n + 1 <= x->cap / 2) {
		index_put(x, g, nodes, n - 1);
		x->count = n;
	}
}

int ir_graph_find_tensor(const ir_graph *g, const char *name)
{
	return index_find(g, false, name);
}

int ir_graph_find_node(const ir_graph *g, const char *name)
{
	return index_find(g, true, name);
}

int ir_tensor_rename(ir_graph *g, int id, const char *name, ir_diag *d)
{
	ir_tensor *t = ir_graph_tensor(g, id);
	if (!t)
		return ir_fail(d, -1, id, "no tensor %d", id);
	if (!name || !*name)
		return ir_fail(d, -1, id, "tensor with an empty name");
	int other = ir_graph_find_tensor(g, name);
	if (other >= 0 && other != id)
		return ir_fail(d, -1, id, "duplicate tensor name '%s'", name);
	char *s = ir_strdup(name);
	if (!s)
		return ir_fail(d, -1, id, "out of memory");
	free(t->name);
	t->name = s;
	g->tindex.stale = 1;
	return 0;
}

/* ---------------------------------------------------------------- use-def cache */

static int use_reserve(ir_use_cache *u, int n)
{
	if (n <= u->cap)
		return 0;
	int c = u->cap ? u->cap : 64;
	while (c < n)
		c = c > INT32_MAX / 2 ? n : c * 2;
	int *p = ir_xrealloc(u->prod, (size_t)c, sizeof *p);
	if (p)
		u->prod = p;
	int *q = ir_xrealloc(u->uses, (size_t)c, sizeof *q);
	if (q)
		u->uses = q;
	int64_t *r = ir_xrealloc(u->usum, (size_t)c, sizeof *r);
	if (r)
		u->usum = r;
	if (!p || !q || !r)
		return -1;
	u->cap = c;
	return 0;
}

static void use_read(ir_use_cache *u, int t, int node, int sign)
{
	if (t >= 0) {
		u->uses[t] += sign;
		u->usum[t] += sign * (int64_t)node;
	}
}

/* Valid cache (rebuilt when dropped); -1 when out of memory. */
static int use_sync(const ir_graph *cg)
{
	ir_graph *g = (ir_graph *)cg;	/* a cache: see index_find */
	ir_use_cache *u = &g->use;
	if (u->valid)
		return 0;
	if (use_reserve(u, g->n_tensors + 1) < 0)
		return -1;
	for (int t = 0; t < g->n_tensors; t++) {
		u->prod[t] = -1;
		u->uses[t] = 0;
		u->usum[t] = 0;
	}
	for (int i = 0; i < g->n_nodes; i++) {
		const ir_node *n = &g->nodes[i];
		for (int j = 0; j < n->n_inputs; j++)
			use_read(u, n->inputs[j], i, 1);
		for (int j = 0; j < n->n_outputs; j++)
			if (u->prod[n->outputs[j]] < 0)
				u->prod[n->outputs[j]] = i;
	}
	u->valid = 1;
	return 0;
}

static void use_drop(ir_graph *g) { g->use.valid = 0; }

static bool node_writes(const ir_graph *g, int node, int t)
{
	if (node < 0 || node >= g->n_nodes)
		return false;
	for (int k = 0; k < g->nodes[node].n_outputs; k++)
		if (g->nodes[node].outputs[k] == t)
			return true;
	return false;
}

int ir_graph_producer(const ir_graph *g, int t)
{
	if (t < 0 || t >= g->n_tensors)
		return -1;
	if (use_sync(g) == 0) {
		int p = g->use.prod[t];
		if (p == -1 || (p >= 0 && node_writes(g, p, t)))
			return p;
		/* Unknown, or a node's outputs were rewritten in place. */
		use_drop((ir_graph *)g);
		if (use_sync(g) == 0)
			return g->use.prod[t];
	}
	for (int i = 0; i < g->n_nodes; i++)
		if (node_writes(g, i, t))
			return i;
	return -1;
}

void ir_graph_touch(ir_graph *g)
{
	use_drop(g);
	g->tindex.stale = 1;
	g->nindex.stale = 1;
}

int ir_graph_sole_consumer(const ir_graph *g, int t)
{
	if (t < 0 || t >= g->n_tensors)
		return -1;
	for (int pass = 0; pass < 2 && use_sync(g) == 0; pass++) {
		if (g->use.uses[t] != 1)
			return -1;
		int64_t c = g->use.usum[t];
		if (c >= 0 && c < g->n_nodes)
			for (int j = 0; j < g->nodes[c].n_inputs; j++)
				if (g->nodes[c].inputs[j] == t)
					return (int)c;
		use_drop((ir_graph *)g);	/* inputs rewritten in place: rebuild once */
	}
	int found = -1;
	for (int i = 0; i < g->n_nodes; i++)
		for (int j = 0; j < g->nodes[i].n_inputs; j++)
			if (g->nodes[i].inputs[j] == t) {
				if (found >= 0)
					return -1;
				found = i;
			}
	return found;
}

size_t ir_tensor_nbytes(const ir_tensor *t)
{
	int64_t n = ir_shape_numel(&t->shape);
	return n < 0 ? 0 : (size_t)n * ir_dtype_size(t->dtype);
}

int ir_graph_add_tensor(ir_graph *g, const char *name, ir_dtype dtype,
			const ir_shape *shape, ir_kind kind, ir_diag *d)
{
	if (!name || !*name)
		return ir_fail(d, -1, -1, "tensor with an empty name");
	if ((unsigned)dtype >= IR_DTYPE_COUNT || (unsigned)kind >= IR_KIND_COUNT)
		return ir_fail(d, -1, -1, "tensor '%s': bad dtype or kind", name);
	ir_shape s = {0};
	if (shape) {
		s = *shape;
		if (ir_shape_numel(&s) < 0)
			return ir_fail(d, -1, -1, "tensor '%s': invalid or too large shape", name);
	}
	if (ir_graph_find_tensor(g, name) >= 0)
		return ir_fail(d, -1, -1, "duplicate tensor name '%s'", name);
	if (GROW(g->tensors, g->cap_tensors, g->n_tensors + 1))
		return ir_fail(d, -1, -1, "out of memory");
	ir_tensor *t = &g->tensors[g->n_tensors];
	memset(t, 0, sizeof *t);
	if (!(t->name = ir_strdup(name)))
		return ir_fail(d, -1, -1, "out of memory");
	t->dtype = dtype;
	t->shape = s;
	t->kind = kind;
	g->n_tensors++;
	index_added(&g->tindex, g, false, g->n_tensors);
	if (g->use.valid) {
		if (use_reserve(&g->use, g->n_tensors + 1) < 0) {
			use_drop(g);
		} else {
			int id = g->n_tensors - 1;
			g->use.prod[id] = kind == IR_KIND_ACTIVATION || kind == IR_KIND_STATE ? -2 : -1;
			g->use.uses[id] = 0;
			g->use.usum[id] = 0;
		}
	}
	return g->n_tensors - 1;
}

int ir_tensor_set_data(ir_graph *g, int id, const void *data, size_t nbytes, ir_diag *d)
{
	ir_tensor *t = ir_graph_tensor(g, id);
	if (!t)
		return ir_fail(d, -1, id, "no tensor %d", id);
	if (nbytes != ir_tensor_nbytes(t))
		return ir_fail(d, -1, id, "tensor '%s': %zu data bytes for shape needing %zu",
			       t->name, nbytes, ir_tensor_nbytes(t));
	void *p = malloc(nbytes ? nbytes : 1);
	if (!p)
		return ir_fail(d, -1, id, "out of memory");
	if (nbytes)
		memcpy(p, data, nbytes);
	free(t->data);
	t->data = p;
	t->nbytes = nbytes;
	return 0;
}

int ir_tensor_adopt_data(ir_graph *g, int id, void *data, size_t nbytes, ir_diag *d)
{
	ir_tensor *t = ir_graph_tensor(g, id);
	if (!t)
		return ir_fail(d, -1, id, "no tensor %d", id);
	if (nbytes != ir_tensor_nbytes(t) || !data)
		return ir_fail(d, -1, id, "tensor '%s': %zu data bytes for shape needing %zu",
			       t->name, nbytes, ir_tensor_nbytes(t));
	free(t->data);
	t->data = data;
	t->nbytes = nbytes;
	return 0;
}

int ir_graph_add_const(ir_graph *g, const char *name, ir_dtype dtype,
		       const ir_shape *shape, const void *data, ir_diag *d)
{
	int id = ir_graph_add_tensor(g, name, dtype, shape, IR_KIND_CONST, d);
	if (id < 0)
		return -1;
	if (ir_tensor_set_data(g, id, data, ir_tensor_nbytes(&g->tensors[id]), d) < 0) {
		tensor_clear(&g->tensors[--g->n_tensors]);
		g->tindex.stale = 1;
		use_drop(g);
		return -1;
	}
	return id;
}

int ir_tensor_set_quant(ir_graph *g, int id, const ir_quant *q, ir_diag *d)
{
	ir_tensor *t = ir_graph_tensor(g, id);
	if (!t)
		return ir_fail(d, -1, id, "no tensor %d", id);
	ir_quant *c = NULL;
	if (q && !(c = ir_quant_dup(q)))
		return ir_fail(d, -1, id, "tensor '%s': bad quantization parameters", t->name);
	ir_quant_free(t->quant);
	t->quant = c;
	return 0;
}

int ir_graph_add_node(ir_graph *g, const char *name, int op, const int *inputs,
		      int n_inputs, const int *outputs, int n_outputs, ir_diag *d)
{
	if (!name || !*name)
		return ir_fail(d, -1, -1, "node with an empty name");
	if (op < 0 || op >= IR_OP_COUNT)
		return ir_fail(d, -1, -1, "node '%s': unknown op %d", name, op);
	if (n_inputs < 0 || n_outputs < 0 || n_inputs > 65536 || n_outputs > 65536)
		return ir_fail(d, -1, -1, "node '%s': bad arity", name);
	for (int i = 0; i < n_inputs; i++)
		if (inputs[i] < -1 || inputs[i] >= g->n_tensors)
			return ir_fail(d, -1, -1, "node '%s': input %d refers to no tensor", name, i);
	for (int i = 0; i < n_outputs; i++)
		if (outputs[i] < 0 || outputs[i] >= g->n_tensors)
			return ir_fail(d, -1, -1, "node '%s': output %d refers to no tensor", name, i);
	if (ir_graph_find_node(g, name) >= 0)
		return ir_fail(d, -1, -1, "duplicate node name '%s'", name);
	if (GROW(g->nodes, g->cap_nodes, g->n_nodes + 1))
		return ir_fail(d, -1, -1, "out of memory");
	ir_node *n = &g->nodes[g->n_nodes];
	memset(n, 0, sizeof *n);
	n->name = ir_strdup(name);
	n->op = op;
	n->inputs = malloc(sizeof(int) * (size_t)(n_inputs + 1));
	n->outputs = malloc(sizeof(int) * (size_t)(n_outputs + 1));
	if (!n->name || !n->inputs || !n->outputs) {
		node_clear(n);
		return ir_fail(d, -1, -1, "out of memory");
	}
	if (n_inputs)
		memcpy(n->inputs, inputs, sizeof(int) * (size_t)n_inputs);
	if (n_outputs)
		memcpy(n->outputs, outputs, sizeof(int) * (size_t)n_outputs);
	n->n_inputs = n_inputs;
	n->n_outputs = n_outputs;
	g->n_nodes++;
	index_added(&g->nindex, g, true, g->n_nodes);
	if (g->use.valid) {
		int id = g->n_nodes - 1;
		for (int i = 0; i < n_inputs; i++)
			use_read(&g->use, inputs[i], id, 1);
		for (int i = 0; i < n_outputs; i++)
			if (g->use.prod[outputs[i]] < 0)
				g->use.prod[outputs[i]] = id;
	}
	return g->n_nodes - 1;
}

int ir_node_set_inputs(ir_graph *g, int node, const int *inputs, int n_inputs, ir_diag *d)
{
	ir_node *n = ir_graph_node(g, node);
	if (!n)
		return ir_fail(d, node, -1, "no node %d", node);
	if (n_inputs < 0 || n_inputs > 65536)
		return ir_fail(d, node, -1, "node '%s': bad arity", n->name);
	for (int i = 0; i < n_inputs; i++)
		if (inputs[i] < -1 || inputs[i] >= g->n_tensors)
			return ir_fail(d, node, -1, "node '%s': input %d refers to no tensor", n->name, i);
	int *v = malloc(sizeof(int) * (size_t)(n_inputs + 1));
	if (!v)
		return ir_fail(d, node, -1, "out of memory");
	if (n_inputs)
		memcpy(v, inputs, sizeof(int) * (size_t)n_inputs);
	if (g->use.valid) {
		for (int i = 0; i < n->n_inputs; i++)
			use_read(&g->use, n->inputs[i], node, -1);
		for (int i = 0; i < n_inputs; i++)
			use_read(&g->use, inputs[i], node, 1);
	}
	free(n->inputs);
	n->inputs = v;
	n->n_inputs = n_inputs;
	return 0;
}

int ir_graph_remove_node(ir_graph *g, int node)
{
	if (node < 0 || node >= g->n_nodes)
		return -1;
	node_clear(&g->nodes[node]);
	memmove(&g->nodes[node], &g->nodes[node + 1], sizeof *g->nodes * (size_t)(g->n_nodes - node - 1));
	g->n_nodes--;
	g->nindex.stale = 1;
	use_drop(g);
	return 0;
}

void ir_graph_kill_node(ir_graph *g, int node)
{
	ir_node *n = ir_graph_node(g, node);
	if (!n)
		return;
	if (g->use.valid) {
		for (int i = 0; i < n->n_inputs; i++)
			use_read(&g->use, n->inputs[i], node, -1);
		for (int i = 0; i < n->n_outputs; i++)
			if (g->use.prod[n->outputs[i]] == node)
				g->use.prod[n->outputs[i]] = -2;	/* unknown: checked on a query */
	}
	for (int i = 0; i < n->n_attrs; i++)
		attr_clear(&n->attrs[i]);
	n->n_attrs = 0;
	n->n_inputs = n->n_outputs = 0;
	n->name[0] = 0;	/* in the name index still, matching no name */
}

void ir_graph_drop_killed(ir_graph *g)
{
	int k = 0;
	for (int i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].name[0])
			g->nodes[k++] = g->nodes[i];
		else
			node_clear(&g->nodes[i]);
	if (k < g->n_nodes) {
		g->n_nodes = k;
		g->nindex.stale = 1;
		use_drop(g);
	}
}

int ir_graph_replace_uses(ir_graph *g, int from, int to)
{
	if (!ir_graph_tensor(g, from) || !ir_graph_tensor(g, to))
		return -1;
	int count = 0, lo = 0, hi = g->n_nodes;
	/* One reader known from the use-def cache: rewrite it alone (a pass
	 * bypassing node after node stays linear); else look at every node. */
	if (use_sync(g) == 0 && g->use.uses[from] <= 1) {
		int64_t c = g->use.uses[from] ? g->use.usum[from] : -1;
		bool reads = false;
		for (int j = 0; c >= 0 && c < g->n_nodes && j < g->nodes[c].n_inputs; j++)
			reads |= g->nodes[c].inputs[j] == from;
		if (reads || !g->use.uses[from]) {
			lo = reads ? (int)c : 0;
			hi = reads ? lo + 1 : 0;
		}
	}
	for (int i = lo; i < hi; i++)
		for (int j = 0; j < g->nodes[i].n_inputs; j++)
			if (g->nodes[i].inputs[j] == from) {
				g->nodes[i].inputs[j] = to;
				if (g->use.valid) {
					use_read(&g->use, from, i, -1);
					use_read(&g->use, to, i, 1);
				}
				count++;
			}
	for (int i = 0; i < g->n_outputs; i++)
		if (g->outputs[i] == from) {
			g->outputs[i] = to;
			count++;
		}
	return count;
}

int ir_graph_consumers(const ir_graph *g, int t)
{
	int count = 0;
	if (t >= 0 && t < g->n_tensors && use_sync(g) == 0)
		count = g->use.uses[t];
	else
		for (int i = 0; i < g->n_nodes; i++)
			for (int j = 0; j < g->nodes[i].n_inputs; j++)
				count += g->nodes[i].inputs[j] == t;
	for (int i = 0; i < g->n_outputs; i++)
		count += g->outputs[i] == t;
	return count;
}

char *ir_graph_unique_name(const ir_graph *g, const char *base)
{
	size_t len = strlen(base) + 24;
	char *s = malloc(len);
	if (!s)
		return NULL;
	snprintf(s, len, "%s", base);
	for (int k = 1; ir_graph_find_tensor(g, s) >= 0 || ir_graph_find_node(g, s) >= 0; k++)
		snprintf(s, len, "%s_%d", base, k);
	return s;
}

int ir_node_set_origin(ir_graph *g, int node, const char *origin)
{
	ir_node *n = ir_graph_node(g, node);
	if (!n)
		return -1;
	char *o = origin ? ir_strdup(origin) : NULL;
	if (origin && !o)
		return -1;
	free(n->origin);
	n->origin = o;
	return 0;
}

/* ---------------------------------------------------------------- attributes */

static int attr_find(const ir_node *n, const char *key, bool *found)
{
	int lo = 0, hi = n->n_attrs;
	while (lo < hi) {
		int mid = (lo + hi) / 2, c = strcmp(n->attrs[mid].name, key);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* Slot for key in node (created empty, or the existing one cleared). */
static ir_attr *attr_slot(ir_graph *g, int node, const char *key)
{
	ir_node *n = ir_graph_node(g, node);
	if (!n || !key || !*key)
		return NULL;
	bool found;
	int i = attr_find(n, key, &found);
	if (found) {
		ir_attr *a = &n->attrs[i];
		free(a->s);
		free(a->ints);
		free(a->floats);
		char *name = a->name;
		memset(a, 0, sizeof *a);
		a->name = name;
		return a;
	}
	char *name = ir_strdup(key);
	ir_attr *p = ir_xrealloc(n->attrs, (size_t)n->n_attrs + 1, sizeof *p);
	if (!name || !p) {
		free(name);
		if (p)
			n->attrs = p;
		return NULL;
	}
	n->attrs = p;
	memmove(&p[i + 1], &p[i], sizeof *p * (size_t)(n->n_attrs - i));
	memset(&p[i], 0, sizeof *p);
	p[i].name = name;
	n->n_attrs++;
	return &p[i];
}

int ir_node_set_int(ir_graph *g, int node, const char *key, int64_t v)
{
	ir_attr *a = attr_slot(g, node, key);
	if (!a)
		return -1;
	a->type = IR_ATTR_INT;
	a->i = v;
	return 0;
}

int ir_node_set_float(ir_graph *g, int node, const char *key, double v)
{
	ir_attr *a = attr_slot(g, node, key);
	if (!a)
		return -1;
	a->type = IR_ATTR_FLOAT;
	a->f = v;
	return 0;
}

int ir_node_set_str(ir_graph *g, int node, const char *key, const char *v)
{
	ir_attr *a = attr_slot(g, node, key);
	if (!a)
		return -1;
	a->type = IR_ATTR_STR;
	a->s = ir_strdup(v ? v : "");
	return a->s ? 0 : -1;
}

int ir_node_set_ints(ir_graph *g, int node, const char *key, const int64_t *v, int n)
{
	ir_attr *a = attr_slot(g, node, key);
	if (!a || n < 0)
		return -1;
	a->type = IR_ATTR_INTS;
	a->ints = ir_xrealloc(NULL, (size_t)n, sizeof *v);
	if (!a->ints)
		return -1;
	if (n)
		memcpy(a->ints, v, sizeof *v * (size_t)n);
	a->n = n;
	return 0;
}

int ir_node_set_floats(ir_graph *g, int node, const char *key, const double *v, int n)
{
	ir_attr *a = attr_slot(g, node, key);
	if (!a || n < 0)
		return -1;
	a->type = IR_ATTR_FLOATS;
	a->floats = ir_xrealloc(NULL, (size_t)n, sizeof *v);
	if (!a->floats)
		return -1;
	if (n)
		memcpy(a->floats, v, sizeof *v * (size_t)n);
	a->n = n;
	return 0;
}

void ir_node_remove_attr(ir_graph *g, int node, const char *key)
{
	ir_node *n = ir_graph_node(g, node);
	bool found;
	if (!n)
		return;
	int i = attr_find(n, key, &found);
	if (!found)
		return;
	attr_clear(&n->attrs[i]);
	memmove(&n->attrs[i], &n->attrs[i + 1], sizeof *n->attrs * (size_t)(n->n_attrs - i - 1));
	n->n_attrs--;
}

const ir_attr *ir_node_attr(const ir_graph *g, int node, const char *key)
{
	const ir_node *n = ir_graph_node(g, node);
	bool found;
	if (!n)
		return NULL;
	int i = attr_find(n, key, &found);
	return found ? &n->attrs[i] : NULL;
}

int64_t ir_node_int(const ir_graph *g, int node, const char *key, int64_t def)
{
	const ir_attr *a = ir_node_attr(g, node, key);
	return a && a->type == IR_ATTR_INT ? a->i : def;
}

double ir_node_float(const ir_graph *g, int node, const char *key, double def)
{
	const ir_attr *a = ir_node_attr(g, node, key);
	return a && a->type == IR_ATTR_FLOAT ? a->f : def;
}

const char *ir_node_str(const ir_graph *g, int node, const char *key, const char *def)
{
	const ir_attr *a = ir_node_attr(g, node, key);
	return a && a->type == IR_ATTR_STR ? a->s : def;
}

int ir_node_ints(const ir_graph *g, int node, const char *key, const int64_t **v)
{
	const ir_attr *a = ir_node_attr(g, node, key);
	if (!a || a->type != IR_ATTR_INTS)
		return -1;
	*v = a->ints;
	return a->n;
}

int ir_node_floats(const ir_graph *g, int node, const char *key, const double **v)
{
	const ir_attr *a = ir_node_attr(g, node, key);
	if (!a || a->type != IR_ATTR_FLOATS)
		return -1;
	*v = a->floats;
	return a->n;
}

/* ---------------------------------------------------------------- interface */

static int set_ids(ir_graph *g, int **dst, int *ndst, const int *ids, int n, ir_diag *d)
{
	for (int i = 0; i < n; i++)
		if (ids[i] < 0 || ids[i] >= g->n_tensors)
			return ir_fail(d, -1, -1, "graph interface refers to no tensor (%d)", ids[i]);
	int *p = ir_xrealloc(NULL, (size_t)n, sizeof(int));
	if (!p)
		return ir_fail(d, -1, -1, "out of memory");
	if (n)
		memcpy(p, ids, sizeof(int) * (size_t)n);
	free(*dst);
	*dst = p;
	*ndst = n;
	return 0;
}

int ir_graph_set_inputs(ir_graph *g, const int *ids, int n, ir_diag *d)
{
	return set_ids(g, &g->inputs, &g->n_inputs, ids, n, d);
}

int ir_graph_set_outputs(ir_graph *g, const int *ids, int n, ir_diag *d)
{
	return set_ids(g, &g->outputs, &g->n_outputs, ids, n, d);
}

int ir_graph_input_count(const ir_graph *g) { return g->n_inputs; }
int ir_graph_output_count(const ir_graph *g) { return g->n_outputs; }
int ir_graph_input(const ir_graph *g, int i) { return i >= 0 && i < g->n_inputs ? g->inputs[i] : -1; }
int ir_graph_output(const ir_graph *g, int i) { return i >= 0 && i < g->n_outputs ? g->outputs[i] : -1; }

/* ---------------------------------------------------------------- metadata */

static ir_meta *meta_slot(ir_graph *g, const char *key)
{
	if (!key || !*key)
		return NULL;
	int i = 0;
	while (i < g->n_meta && strcmp(g->meta[i].key, key) < 0)
		i++;
	if (i < g->n_meta && strcmp(g->meta[i].key, key) == 0) {
		free(g->meta[i].s);
		g->meta[i].s = NULL;
		return &g->meta[i];
	}
	char *k = ir_strdup(key);
	ir_meta *p = ir_xrealloc(g->meta, (size_t)g->n_meta + 1, sizeof *p);
	if (!k || !p) {
		free(k);
		if (p)
			g->meta = p;
		return NULL;
	}
	g->meta = p;
	memmove(&p[i + 1], &p[i], sizeof *p * (size_t)(g->n_meta - i));
	memset(&p[i], 0, sizeof *p);
	p[i].key = k;
	g->n_meta++;
	return &p[i];
}

int ir_meta_set_str(ir_graph *g, const char *key, const char *v)
{
	ir_meta *m = meta_slot(g, key);
	if (!m)
		return -1;
	m->type = IR_META_STR;
	m->s = ir_strdup(v ? v : "");
	return m->s ? 0 : -1;
}

int ir_meta_set_int(ir_graph *g, const char *key, int64_t v)
{
	ir_meta *m = meta_slot(g, key);
	if (!m)
		return -1;
	m->type = IR_META_INT;
	m->i = v;
	return 0;
}

int ir_meta_set_float(ir_graph *g, const char *key, double v)
{
	ir_meta *m = meta_slot(g, key);
	if (!m)
		return -1;
	m->type = IR_META_FLOAT;
	m->f = v;
	return 0;
}

int ir_meta_set_bool(ir_graph *g, const char *key, bool v)
{
	ir_meta *m = meta_slot(g, key);
	if (!m)
		return -1;
	m->type = IR_META_BOOL;
	m->i = v;
	return 0;
}

const ir_meta *ir_meta_get(const ir_graph *g, const char *key)
{
	for (int i = 0; i < g->n_meta; i++)
		if (strcmp(g->meta[i].key, key) == 0)
			return &g->meta[i];
	return NULL;
}

int ir_meta_count(const ir_graph *g) { return g->n_meta; }
const ir_meta *ir_meta_at(const ir_graph *g, int i) { return i >= 0 && i < g->n_meta ? &g->meta[i] : NULL; }

/* ---------------------------------------------------------------- history */

int ir_graph_add_history(ir_graph *g, const char *program, const char *version,
			 int argc, char *const argv[])
{
	ir_history *p = ir_xrealloc(g->history, (size_t)g->n_history + 1, sizeof *p);
	if (!p || argc < 0)
		return -1;
	g->history = p;
	ir_history *h = &p[g->n_history];
	memset(h, 0, sizeof *h);
	h->program = ir_strdup(program ? program : "");
	h->version = ir_strdup(version ? version : "");
	h->argv = calloc((size_t)argc + 1, sizeof(char *));
	if (!h->program || !h->version || !h->argv)
		goto fail;
	for (; h->argc < argc; h->argc++)
		if (!(h->argv[h->argc] = ir_strdup(argv[h->argc])))
			goto fail;
	g->n_history++;
	return 0;
fail:
	history_clear(h);
	return -1;
}

int ir_history_count(const ir_graph *g) { return g->n_history; }
const ir_history *ir_history_at(const ir_graph *g, int i) { return i >= 0 && i < g->n_history ? &g->history[i] : NULL; }

/* ---------------------------------------------------------------- order */

/* Min-heap of node ids: the ready set of ir_topo_order. */
static void heap_push(int *h, int *n, int v)
{
	int i = (*n)++;
	while (i > 0 && h[(i - 1) / 2] > v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static int heap_pop(int *h, int *n)
{
	int top = h[0], v = h[--*n], i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] < h[c])
			c++;
		if (h[c] >= v)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
	return top;
}

/* Kahn's algorithm, taking the lowest-numbered ready node each time so an
 * already valid order is kept. order[] receives node ids. O(E log n): the
 * consumers of each tensor are listed once (CSR), the ready set is a heap. */
int ir_topo_order(const ir_graph *g, int *order, ir_diag *d)
{
	int nn = g->n_nodes, nt = g->n_tensors;
	size_t ne = 0;
	for (int i = 0; i < nn; i++)
		ne += (size_t)g->nodes[i].n_inputs;
	int *prod = malloc(sizeof(int) * (size_t)(nt + 1));
	int *pending = calloc((size_t)nn + 1, sizeof(int));
	int *first = calloc((size_t)nt + 2, sizeof(int));	/* CSR: consumers of t */
	int *users = ir_xrealloc(NULL, ne + 1, sizeof(int));
	int *heap = malloc(sizeof(int) * (size_t)(nn + 1));
	int rc = -1, k = 0, nh = 0;
	if (!prod || !pending || !first || !users || !heap) {
		ir_fail(d, -1, -1, "out of memory");
		goto out;
	}
	for (int t = 0; t < nt; t++)
		prod[t] = -1;
	for (int i = 0; i < nn; i++)
		for (int j = 0; j < g->nodes[i].n_outputs; j++) {
			int t = g->nodes[i].outputs[j];
			if (prod[t] >= 0) {
				ir_fail(d, i, t, "tensor '%s' is produced by two nodes ('%s' and '%s')",
					g->tensors[t].name, g->nodes[prod[t]].name, g->nodes[i].name);
				goto out;
			}
			prod[t] = i;
		}
	for (int i = 0; i < nn; i++)
		for (int j = 0; j < g->nodes[i].n_inputs; j++) {
			int t = g->nodes[i].inputs[j];
			if (t >= 0 && prod[t] >= 0) {
				pending[i]++;
				first[t + 1]++;
			}
		}
	for (int t = 0; t < nt; t++)
		first[t + 1] += first[t];
	for (int i = 0; i < nn; i++)	/* first[t] runs ahead while filling... */
		for (int j = 0; j < g->nodes[i].n_inputs; j++) {
			int t = g->nodes[i].inputs[j];
			if (t >= 0 && prod[t] >= 0)
				users[first[t]++] = i;
		}
	for (int t = nt; t > 0; t--)	/* ...and is shifted back here */
		first[t] = first[t - 1];
	first[0] = 0;
	for (int i = 0; i < nn; i++)
		if (pending[i] == 0)
			heap_push(heap, &nh, i);
	while (nh > 0) {
		int pick = heap_pop(heap, &nh);
		order[k++] = pick;
		for (int j = 0; j < g->nodes[pick].n_outputs; j++) {
			int t = g->nodes[pick].outputs[j];
			for (int u = first[t]; u < first[t + 1]; u++)
				if (--pending[users[u]] == 0)
					heap_push(heap, &nh, users[u]);
		}
	}
	if (k < nn) {
		for (int i = 0; i < nn; i++)
			if (pending[i] > 0) {
				ir_fail(d, i, -1, "graph has a cycle through node '%s'", g->nodes[i].name);
				break;
			}
		goto out;
	}
	rc = 0;
out:
	free(prod);
	free(pending);
	free(first);
	free(users);
	free(heap);
	return rc;
}

int ir_graph_toposort(ir_graph *g, ir_diag *d)
{
	int nn = g->n_nodes;
	int *order = malloc(sizeof(int) * (size_t)(nn + 1));
	ir_node *nodes = malloc(sizeof(ir_node) * (size_t)(nn + 1));
	if (!order || !nodes) {
		free(order);
		free(nodes);
		return ir_fail(d, -1, -1, "out of memory");
	}
	int rc = ir_topo_order(g, order, d);
	if (rc == 0) {
		for (int i = 0; i < nn; i++)
			nodes[i] = g->nodes[order[i]];
		memcpy(g->nodes, nodes, sizeof(ir_node) * (size_t)nn);
		g->nindex.stale = 1;
		use_drop(g);
	}
	free(order);
	free(nodes);
	return rc;
}

/* ---------------------------------------------------------------- pruning */

void ir_graph_prune(ir_graph *g)
{
	int nt = g->n_tensors, nn = g->n_nodes;
	char *live = calloc((size_t)nt + 1, 1);
	char *keep = calloc((size_t)nn + 1, 1);
	int *remap = malloc(sizeof(int) * (size_t)(nt + 1));
	if (!live || !keep || !remap)
		goto out;
	for (int i = 0; i < g->n_outputs; i++)
		live[g->outputs[i]] = 1;
	for (int i = 0; i < g->n_inputs; i++)
		live[g->inputs[i]] = 1;
	/* Nodes are in topological order: walk backwards. */
	for (int i = nn - 1; i >= 0; i--) {
		ir_node *n = &g->nodes[i];
		for (int j = 0; j < n->n_outputs && !keep[i]; j++)
			keep[i] = live[n->outputs[j]];
		if (!keep[i])
			continue;
		for (int j = 0; j < n->n_inputs; j++)
			if (n->inputs[j] >= 0)
				live[n->inputs[j]] = 1;
		for (int j = 0; j < n->n_outputs; j++)
			live[n->outputs[j]] = 1;
	}
	int k = 0;
	for (int t = 0; t < nt; t++) {
		if (live[t]) {
			remap[t] = k;
			g->tensors[k++] = g->tensors[t];
		} else {
			remap[t] = -1;
			tensor_clear(&g->tensors[t]);
		}
	}
	g->n_tensors = k;
	k = 0;
	for (int i = 0; i < nn; i++) {
		if (!keep[i]) {
			node_clear(&g->nodes[i]);
			continue;
		}
		ir_node *n = &g->nodes[i];
		for (int j = 0; j < n->n_inputs; j++)
			if (n->inputs[j] >= 0)
				n->inputs[j] = remap[n->inputs[j]];
		for (int j = 0; j < n->n_outputs; j++)
			n->outputs[j] = remap[n->outputs[j]];
		g->nodes[k++] = *n;
	}
	g->n_nodes = k;
	g->tindex.stale = 1;
	g->nindex.stale = 1;
	use_drop(g);
	for (int i = 0; i < g->n_inputs; i++)
		g->inputs[i] = remap[g->inputs[i]];
	for (int i = 0; i < g->n_outputs; i++)
		g->outputs[i] = remap[g->outputs[i]];
out:
	free(live);
	free(keep);
	free(remap);
}

/* ---------------------------------------------------------------- clone */

ir_graph *ir_graph_clone(const ir_graph *g)
{
	uint8_t *buf = NULL;
	size_t size = 0;
	ir_diag d;
	/* Serialization is the one complete deep copy; cloning is rare. */
	if (ir_graph_serialize(g, &buf, &size, &d) < 0)
		return NULL;
	ir_graph *c = ir_graph_read_mem(buf, size, &d);
	free(buf);
	return c;
}
