/* ir_plan.c - the static memory planner: arena offsets for activations.
 *
 * Lifetimes come from the node order (nodes are topologically sorted). Views
 * (reshape and friends) and elementwise ops writing over a dying input join
 * their input's "group": one buffer whose lifetime is the union of its
 * members'. Groups are placed greedily, largest first, each at the lowest
 * offset where it overlaps no placed group alive at the same time (the
 * TensorFlow Lite Micro planner). A few orderings are tried and the smallest
 * arena wins; ties go to the first, so the plan is deterministic. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_ALIGN 16

/* Outputs are the same bytes in the same order as input 0. */
static bool is_view(int op)
{
	return op == IR_OP_RESHAPE || op == IR_OP_FLATTEN || op == IR_OP_SQUEEZE ||
	       op == IR_OP_UNSQUEEZE || op == IR_OP_IDENTITY;
}

/* out[i] depends on in[i] only (and, for binary ops, on the other input at
 * the broadcast index), so the output may overwrite an input of its shape. */
static bool is_elementwise(int op)
{
	static const int ops[] = {
		IR_OP_ADD, IR_OP_SUB, IR_OP_MUL, IR_OP_DIV, IR_OP_MAX, IR_OP_MIN,
		IR_OP_RELU, IR_OP_RELU6, IR_OP_CLIP, IR_OP_LEAKY_RELU, IR_OP_ELU, IR_OP_SIGMOID,
		IR_OP_TANH, IR_OP_HARD_SIGMOID, IR_OP_HARD_SWISH, IR_OP_SOFTPLUS, IR_OP_SILU,
		IR_OP_GELU, IR_OP_EXP, IR_OP_LOG, IR_OP_SQRT, IR_OP_RSQRT, IR_OP_RECIPROCAL,
		IR_OP_NEG, IR_OP_ABS, IR_OP_FLOOR, IR_OP_CEIL, IR_OP_ERF,
	};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (ops[i] == op)
			return true;
	return false;
}

/* ---------------------------------------------------------------- lifetimes */

typedef struct {
	int nt, nn;
	int *first, *last;	/* per tensor; -1: not in the arena */
	int *producer;		/* node index or -1 */
	bool *io;		/* graph input or output */
	int64_t *size;		/* rounded bytes; 0: not in the arena */
} lifetimes;

static void lifetimes_free(lifetimes *l)
{
	free(l->first), free(l->last), free(l->producer), free(l->io), free(l->size);
	memset(l, 0, sizeof *l);
}

/* Which tensors need arena memory, from when to when, how many bytes. */
static int lifetimes_make(const ir_graph *g, bool io_outside, int64_t align, lifetimes *l, ir_diag *d)
{
	int nt = ir_graph_tensor_count(g), nn = ir_graph_node_count(g);
	memset(l, 0, sizeof *l);
	l->nt = nt, l->nn = nn;
	size_t k = nt > 0 ? (size_t)nt : 1;
	l->first = malloc(k * sizeof *l->first), l->last = malloc(k * sizeof *l->last);
	l->producer = malloc(k * sizeof *l->producer), l->io = calloc(k, sizeof *l->io);
	l->size = calloc(k, sizeof *l->size);
	if (!l->first || !l->last || !l->producer || !l->io || !l->size) {
		lifetimes_free(l);
		return ir_fail(d, -1, -1, "out of memory");
	}
	bool *used = calloc(k, sizeof *used);
	if (!used) {
		lifetimes_free(l);
		return ir_fail(d, -1, -1, "out of memory");
	}
	for (int t = 0; t < nt; t++)
		l->first[t] = l->last[t] = l->producer[t] = -1;
	for (int i = 0; i < ir_graph_input_count(g); i++)
		l->io[ir_graph_input(g, i)] = used[ir_graph_input(g, i)] = true;
	for (int i = 0; i < ir_graph_output_count(g); i++)
		l->io[ir_graph_output(g, i)] = used[ir_graph_output(g, i)] = true;
	for (int i = 0; i < nn; i++) {
		const ir_node *n = ir_graph_node(g, i);
		for (int j = 0; j < n->n_outputs; j++) {
			int t = n->outputs[j];
			if (t >= 0 && l->producer[t] < 0)
				l->producer[t] = i, used[t] = true;
		}
	}
	int rc = 0;
	for (int i = 0; i < nn && !rc; i++) {
		const ir_node *n = ir_graph_node(g, i);
		for (int j = 0; j < n->n_inputs && !rc; j++) {
			int t = n->inputs[j];
			if (t < 0)
				continue;
			if (l->producer[t] >= i)
				rc = ir_fail(d, i, t, "tensor '%s' is used before it is produced (nodes not in topological order)",
					     ir_graph_tensor(g, t)->name);
			used[t] = true;
			l->last[t] = i;
		}
	}
	for (int t = 0; t < nt && !rc; t++) {
		const ir_tensor *x = ir_graph_tensor(g, t);
		size_t nbytes = ir_tensor_nbytes(x);
		if (x->kind == IR_KIND_CONST || !used[t] || nbytes == 0 || (io_outside && l->io[t])) {
			l->last[t] = -1;
			continue;
		}
		if (nbytes > (size_t)(INT64_MAX - align)) {
			rc = ir_fail(d, -1, t, "tensor '%s' is too large for an arena", x->name);
			break;
		}
		l->size[t] = ((int64_t)nbytes + align - 1) & ~(align - 1);
		l->first[t] = l->producer[t] >= 0 ? l->producer[t] : 0;
		if (l->last[t] < l->first[t])
			l->last[t] = l->first[t];	/* nobody reads it: alive while written */
		for (int i = 0; i < ir_graph_output_count(g); i++)
			if (ir_graph_output(g, i) == t && nn > 0)
				l->last[t] = nn - 1;
	}
	free(used);
	if (rc)
		lifetimes_free(l);
	return rc;
}

/* ---------------------------------------------------------------- groups */

static int root_of(int *parent, int t)
{
	while (parent[t] != t)
		t = parent[t] = parent[parent[t]];
	return t;
}

typedef struct {
	int *parent;		/* union-find over tensors */
	int64_t *size;		/* per root */
	int *first, *last;
	bool *io;
} groups;

/* Join y (a fresh output, its own group) to x's group. */
static void join(groups *gr, int x, int y)
{
	int r = root_of(gr->parent, x);
	gr->parent[y] = r;
	if (gr->size[y] > gr->size[r])
		gr->size[r] = gr->size[y];
	if (gr->first[y] < gr->first[r])
		gr->first[r] = gr->first[y];
	if (gr->last[y] > gr->last[r])
		gr->last[r] = gr->last[y];
	gr->io[r] = gr->io[r] || gr->io[y];
}

/* The input of node i that its elementwise output may overwrite, or -1: one
 * of its shape, dtype and size whose group dies at i and holds no graph
 * input or output, and that no other input of i reads at other indices. */
static int in_place_input(const ir_graph *g, const lifetimes *l, groups *gr, int i)
{
	const ir_node *n = ir_graph_node(g, i);
	if (n->n_outputs != 1 || n->outputs[0] < 0 || !is_elementwise(n->op))
		return -1;
	int y = n->outputs[0];
	const ir_tensor *ty = ir_graph_tensor(g, y);
	if (l->last[y] < 0 || l->io[y])
		return -1;
	for (int k = 0; k < n->n_inputs; k++) {
		int x = n->inputs[k];
		if (x < 0 || l->last[x] < 0)
			continue;
		const ir_tensor *tx = ir_graph_tensor(g, x);
		int r = root_of(gr->parent, x);
		if (gr->io[r] || gr->last[r] != i || tx->dtype != ty->dtype ||
		    l->size[x] != l->size[y] || !ir_shape_equal(&tx->shape, &ty->shape))
			continue;
		bool ok = true;
		for (int j = 0; j < n->n_inputs; j++) {
			int o = n->inputs[j];
			if (j != k && o >= 0 && l->last[o] >= 0 && root_of(gr->parent, o) == r &&
			    !ir_shape_equal(&ir_graph_tensor(g, o)->shape, &tx->shape))
				ok = false;
		}
		if (ok)
			return x;
	}
	return -1;
}

/* ---------------------------------------------------------------- placement */

typedef struct {
	int64_t size, key;	/* key: the strategy's first sort key (descending) */
	int first, last, id;
} item;

static int cmp_item(const void *pa, const void *pb)
{
	const item *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

typedef struct {
	int64_t offset, size;
} span;

static int cmp_span(const void *pa, const void *pb)
{
	const span *a = pa, *b = pb;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return (a->size > b->size) - (a->size < b->size);
}

/* Place items in their order: each at the lowest offset that overlaps no
 * placed item alive at the same time (first fit). off[k] for item k;
 * returns the arena. */
static int64_t place(const item *it, int n, int64_t *off, span *tmp)
{
	int64_t arena = 0;
	for (int k = 0; k < n; k++) {
		int m = 0;
		for (int j = 0; j < k; j++)
			if (it[j].first <= it[k].last && it[k].first <= it[j].last)
				tmp[m++] = (span){off[j], it[j].size};
		qsort(tmp, (size_t)m, sizeof *tmp, cmp_span);
		int64_t at = 0;
		for (int j = 0; j < m; j++) {
			if (at + it[k].size <= tmp[j].offset)
				break;
			if (tmp[j].offset + tmp[j].size > at)
				at = tmp[j].offset + tmp[j].size;
		}
		off[k] = at;
		if (at + it[k].size > arena)
			arena = at + it[k].size;
	}
	return arena;
}

/* Orderings tried until one meets the lower bound; the best arena is kept
 * (ties: the earlier one). The first is TFLM's; the others help where a
 * long-lived small buffer or the order of equal sizes splits the arena
 * badly. */
enum { BY_SIZE, BY_AREA, BY_LIFETIME, BY_FIRST, N_STRATEGIES };
static const char *const strategy_name[N_STRATEGIES] = {"size", "size*lifetime", "lifetime", "first use"};

static int64_t sort_key(int s, const item *x)
{
	int64_t len = (int64_t)x->last - x->first + 1;
	switch (s) {
	case BY_AREA: return len > 0 && x->size > INT64_MAX / len ? INT64_MAX : x->size * len;
	case BY_LIFETIME: return len;
	case BY_FIRST: return -(int64_t)x->first;
	default: return x->size;
	}
}

/* Then sizes scaled by a pseudo-random factor in [0.5, 1.5) fixed by the
 * round and the buffer (a hash, so the plan stays deterministic): orders
 * near "largest first" that the fixed ones miss. Up to 64 rounds, fewer
 * for big graphs (a round costs about n^2). */
#define MAX_SHUFFLES 64
static int64_t shuffled_key(int round, const item *x)
{
	uint32_t h = (uint32_t)x->id * 2654435761u ^ (uint32_t)round * 2246822519u;
	h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
	int64_t f = 512 + (int64_t)(h % 1024);	/* /1024 */
	return x->size > INT64_MAX / 1536 ? x->size : x->size * f / 1024;
}

/* ---------------------------------------------------------------- API */

void ir_plan_free(ir_plan *p)
{
	if (p) {
		free(p->buf);
		memset(p, 0, sizeof *p);
	}
}

int ir_plan_make(const ir_graph *g, const ir_plan_opts *o, ir_plan *p, ir_diag *d)
{
	ir_plan_opts def = {0};
	if (!o)
		o = &def;
	memset(p, 0, sizeof *p);
	p->peak_node = -1;
	int64_t align = o->align ? o->align : DEFAULT_ALIGN;
	if (align < 1 || (align & (align - 1)) || align > ((int64_t)1 << 30))
		return ir_fail(d, -1, -1, "alignment %lld is not a power of two up to 2^30", (long long)align);
	lifetimes l;
	if (lifetimes_make(g, o->io_outside, align, &l, d))
		return -1;
	int nt = l.nt, nn = l.nn;
	size_t k = nt > 0 ? (size_t)nt : 1;
	groups gr = {malloc(k * sizeof(int)), malloc(k * sizeof(int64_t)), malloc(k * sizeof(int)),
		     malloc(k * sizeof(int)), malloc(k * sizeof(bool))};
	item *it = malloc(k * sizeof *it), *best_it = malloc(k * sizeof *best_it);
	int64_t *off = malloc(k * sizeof *off), *best_off = malloc(k * sizeof *best_off);
	int64_t *delta = calloc((size_t)nn + 2, sizeof *delta);
	span *tmp = malloc(k * sizeof *tmp);
	p->buf = malloc(k * sizeof *p->buf);
	int rc = 0;
	if (!gr.parent || !gr.size || !gr.first || !gr.last || !gr.io || !it || !best_it || !off ||
	    !best_off || !delta || !tmp || !p->buf) {
		rc = ir_fail(d, -1, -1, "out of memory");
		goto out;
	}
	for (int t = 0; t < nt; t++) {
		gr.parent[t] = t, gr.size[t] = l.size[t], gr.first[t] = l.first[t];
		gr.last[t] = l.last[t], gr.io[t] = l.io[t];
		p->buf[t] = (ir_plan_buf){-1, 0, -1, -1, -1};
	}

	/* Groups, in node order, so that a group's lifetime so far is final
	 * for everything born before the node (see in_place_input). */
	for (int i = 0; i < nn; i++) {
		const ir_node *n = ir_graph_node(g, i);
		if (n->n_outputs < 1 || n->outputs[0] < 0 || l.last[n->outputs[0]] < 0)
			continue;
		int y = n->outputs[0], x = n->n_inputs > 0 ? n->inputs[0] : -1;
		if (is_view(n->op) && n->n_outputs == 1 && x >= 0 && l.last[x] >= 0 && l.size[x] == l.size[y])
			join(&gr, x, y);
		else if (!o->no_in_place && (x = in_place_input(g, &l, &gr, i)) >= 0)
			join(&gr, x, y);
	}

	/* The lower bound: the largest sum of groups alive at one node. */
	int n = 0;
	for (int t = 0; t < nt; t++)
		if (l.last[t] >= 0 && root_of(gr.parent, t) == t) {
			it[n++] = (item){gr.size[t], 0, gr.first[t], gr.last[t], t};
			delta[gr.first[t]] += gr.size[t];
			delta[gr.last[t] + 1] -= gr.size[t];
		}
	int64_t live = 0;
	for (int i = 0; i < nn; i++) {
		live += delta[i];
		if (live > p->lower_bound)
			p->lower_bound = live, p->peak_node = i;
	}
	if (nn == 0)	/* inputs that are outputs: all alive at once */
		for (int j = 0; j < n; j++)
			p->lower_bound += it[j].size;

	int64_t best = -1;
	int shuffles = n > 0 ? (int)(20000000 / ((int64_t)n * n)) : 0;
	shuffles = shuffles > MAX_SHUFFLES ? MAX_SHUFFLES : shuffles;
	for (int s = 0; s < N_STRATEGIES + shuffles && best != p->lower_bound; s++) {
		for (int j = 0; j < n; j++)
			it[j].key = s < N_STRATEGIES ? sort_key(s, &it[j]) : shuffled_key(s, &it[j]);
		qsort(it, (size_t)n, sizeof *it, cmp_item);
		int64_t arena = place(it, n, off, tmp);
		if (best < 0 || arena < best) {
			best = arena;
			p->strategy = s < N_STRATEGIES ? strategy_name[s] : "size, perturbed";
			memcpy(best_it, it, (size_t)n * sizeof *it);
			memcpy(best_off, off, (size_t)n * sizeof *off);
		}
	}
	p->arena = best < 0 ? 0 : best;
	for (int j = 0; j < n; j++)
		gr.size[best_it[j].id] = best_off[j];	/* reused: the root's offset */
	for (int t = 0; t < nt; t++) {
		if (l.last[t] < 0)
			continue;
		int r = root_of(gr.parent, t);
		p->buf[t] = (ir_plan_buf){gr.size[r], l.size[t], l.first[t], l.last[t], r == t ? -1 : r};
	}
	p->n = nt;
	p->align = align;
	p->io_outside = o->io_outside;
out:
	free(gr.parent), free(gr.size), free(gr.first), free(gr.last), free(gr.io);
	free(it), free(best_it), free(off), free(best_off), free(delta), free(tmp);
	lifetimes_free(&l);
	if (rc)
		ir_plan_free(p);
	return rc;
}

/* ---------------------------------------------------------------- checking */

static const char *tname(const ir_graph *g, int t) { return ir_graph_tensor(g, t)->name; }

/* Node first[b] is an elementwise op producing b from input a of its
 * dtype and shape, where a dies and is not a graph input or output: b may
 * be written over a. */
static bool written_over(const ir_graph *g, const lifetimes *l, int a, int b)
{
	int i = l->producer[b];
	const ir_tensor *ta = ir_graph_tensor(g, a), *tb = ir_graph_tensor(g, b);
	if (i < 0 || i != l->first[b] || l->last[a] != i || !is_elementwise(ir_graph_node(g, i)->op) ||
	    l->io[a] || l->io[b] || ta->dtype != tb->dtype || !ir_shape_equal(&ta->shape, &tb->shape))
		return false;
	const ir_node *n = ir_graph_node(g, i);
	for (int k = 0; k < n->n_inputs; k++)
		if (n->inputs[k] == a)
			return true;
	return false;
}

int ir_plan_check(const ir_graph *g, const ir_plan *p, ir_diag *d)
{
	int nt = ir_graph_tensor_count(g);
	if (p->n != nt || (nt && !p->buf))
		return ir_fail(d, -1, -1, "the plan has %d tensors, the graph %d", p->n, nt);
	if (p->align < 1 || (p->align & (p->align - 1)))
		return ir_fail(d, -1, -1, "alignment %lld is not a power of two", (long long)p->align);
	lifetimes l;
	if (lifetimes_make(g, p->io_outside, p->align, &l, d))
		return -1;
	int rc = 0;
	int *version = malloc((nt > 0 ? (size_t)nt : 1) * sizeof *version);
	if (!version) {
		rc = ir_fail(d, -1, -1, "out of memory");
		goto out;
	}
	for (int t = 0; t < nt && !rc; t++) {
		const ir_plan_buf *b = &p->buf[t];
		const char *name = tname(g, t);
		version[t] = t;
		if (l.last[t] < 0) {
			if (b->offset >= 0 && ir_graph_tensor(g, t)->kind == IR_KIND_CONST)
				rc = ir_fail(d, -1, t, "constant '%s' is in the arena", name);
			continue;
		}
		if (b->offset < 0)
			rc = ir_fail(d, -1, t, "tensor '%s' has no place in the arena", name);
		else if (b->offset % p->align || b->size % p->align)
			rc = ir_fail(d, -1, t, "tensor '%s' is not aligned to %lld bytes", name, (long long)p->align);
		else if (b->size < l.size[t] || b->offset > p->arena - b->size)
			rc = ir_fail(d, -1, t, "tensor '%s' (%lld bytes at %lld) does not fit in the arena of %lld bytes",
				     name, (long long)b->size, (long long)b->offset, (long long)p->arena);
		else if (b->first != l.first[t] || b->last != l.last[t])
			rc = ir_fail(d, -1, t, "tensor '%s' lives from node %d to %d, not %d to %d", name,
				     l.first[t], l.last[t], b->first, b->last);
		else if (b->alias_of >= 0 && (b->alias_of >= nt || p->buf[b->alias_of].alias_of >= 0 ||
					      p->buf[b->alias_of].offset != b->offset))
			rc = ir_fail(d, -1, t, "tensor '%s' is an alias of a tensor that owns no buffer there", name);
	}
	/* A view's bytes are its input's: same version of the data. */
	for (int i = 0; i < l.nn && !rc; i++) {
		const ir_node *n = ir_graph_node(g, i);
		if (!is_view(n->op) || n->n_inputs < 1 || n->n_outputs != 1)
			continue;
		int x = n->inputs[0], y = n->outputs[0];
		if (x >= 0 && y >= 0 && l.last[x] >= 0 && l.last[y] >= 0 && p->buf[x].offset == p->buf[y].offset)
			version[y] = version[x];
	}
	for (int a = 0; a < nt && !rc; a++) {
		if (l.last[a] < 0)
			continue;
		const ir_plan_buf *A = &p->buf[a];
		for (int b = a + 1; b < nt && !rc; b++) {
			const ir_plan_buf *B = &p->buf[b];
			if (l.last[b] < 0 || l.first[a] > l.last[b] || l.first[b] > l.last[a] ||
			    A->offset >= B->offset + B->size || B->offset >= A->offset + A->size)
				continue;
			if (version[a] == version[b])
				continue;
			if (A->offset == B->offset && (written_over(g, &l, a, b) || written_over(g, &l, b, a)))
				continue;
			int at = l.first[a] > l.first[b] ? l.first[a] : l.first[b];
			rc = ir_fail(d, at, a, "tensors '%s' and '%s' are both alive at node %d and overlap in the arena",
				     tname(g, a), tname(g, b), at);
		}
	}
out:
	free(version);
	lifetimes_free(&l);
	return rc;
}
