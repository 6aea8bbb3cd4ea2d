/* ir_pass.c - the graph rewrites behind npu-fuse (table: ir_passes.def).
 *
 * A pass walks the nodes, rewrites each pattern whose preconditions hold and
 * reports through r->note why it left the others alone. Folding never
 * changes a constant in place (other nodes may share it): it adds new
 * constants and ir_graph_prune drops the old ones once unused. Removing a
 * node whose output is a graph output renames the value instead (its
 * producer writes the output tensor), so graph output names never change.
 * A removed node is killed (ir_graph_kill_node: O(1), ids stay) and the
 * ir_graph_prune after every pass drops it: a pass removing k of n nodes
 * costs O(n + k), not O(n * k). */
#include "ir_kern.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	ir_graph *g;
	ir_pass_report *r;
	ir_diag *d;
	int count[IR_OP_COUNT];	/* rewrites by the op they went into */
} pass_ctx;

static void note(pass_ctx *c, int node, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(pass_ctx *c, int node, const char *fmt, ...)
{
	if (!c->r || !c->r->note)
		return;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->r->note(c->r->user, c->g, node, msg);
}

/* ---------------------------------------------------------------- helpers */

static bool is_output(const ir_graph *g, int t)
{
	for (int i = 0; i < ir_graph_output_count(g); i++)
		if (ir_graph_output(g, i) == t)
			return true;
	return false;
}

/* Constant f32 data of tensor t, or NULL. */
static const float *const_f32(const ir_graph *g, int t)
{
	const ir_tensor *x = t >= 0 ? ir_graph_tensor(g, t) : NULL;
	return x && x->kind == IR_KIND_CONST && x->dtype == IR_DTYPE_F32 ? x->data : NULL;
}

static bool channel_last(const ir_tensor *t) { return t->layout == IR_LAYOUT_NHWC || t->layout == IR_LAYOUT_NLC; }

static bool has_act(const ir_graph *g, int node)
{
	const char *a = ir_node_str(g, node, "act", NULL);
	return a && *a && strcmp(a, "none");
}

/* Remove node `node` that computes y from x without changing values (so
 * dtype and shape agree): its consumers read x instead, or, when y is a
 * graph output, x's producer writes y. -1 (nothing changed) when neither is
 * possible. */
static int bypass(ir_graph *g, int node, int x, int y)
{
	if (!is_output(g, y)) {
		ir_graph_replace_uses(g, y, x);
		ir_graph_kill_node(g, node);
		return 0;
	}
	int p = ir_graph_producer(g, x);
	if (p < 0 || is_output(g, x) || ir_graph_consumers(g, x) != 1)
		return -1;
	ir_node *pn = ir_graph_node(g, p);
	for (int j = 0; j < pn->n_outputs; j++)
		if (pn->outputs[j] == x)
			pn->outputs[j] = y;
	ir_graph_kill_node(g, node);
	return 0;
}

/* The single node reading tensor t (which is no graph output), or -1. */
static int only_consumer(const ir_graph *g, int t)
{
	if (is_output(g, t) || ir_graph_consumers(g, t) != 1)
		return -1;
	return ir_graph_sole_consumer(g, t);
}

/* Add a constant named after `base` (made unique). */
static int add_const(ir_graph *g, const char *base, ir_dtype dt, const ir_shape *s, const void *data, ir_diag *d)
{
	char *name = ir_graph_unique_name(g, base);
	if (!name)
		return ir_fail(d, -1, -1, "out of memory");
	int id = ir_graph_add_const(g, name, dt, s, data, d);
	free(name);
	return id;
}

static int copy_attrs(ir_graph *dst, int dn, const ir_node *n)
{
	for (int i = 0; i < n->n_attrs; i++) {
		const ir_attr *a = &n->attrs[i];
		int rc = 0;
		switch (a->type) {
		case IR_ATTR_INT: rc = ir_node_set_int(dst, dn, a->name, a->i); break;
		case IR_ATTR_FLOAT: rc = ir_node_set_float(dst, dn, a->name, a->f); break;
		case IR_ATTR_STR: rc = ir_node_set_str(dst, dn, a->name, a->s); break;
		case IR_ATTR_INTS: rc = ir_node_set_ints(dst, dn, a->name, a->ints, a->n); break;
		case IR_ATTR_FLOATS: rc = ir_node_set_floats(dst, dn, a->name, a->floats, a->n); break;
		}
		if (rc)
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- identity, dce */

static int pass_identity(pass_ctx *c)
{
	ir_graph *g = c->g;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		if (n->op != IR_OP_IDENTITY)
			continue;
		if (bypass(g, i, n->inputs[0], n->outputs[0]) == 0)
			c->count[IR_OP_IDENTITY]++;
		else
			note(c, i, "kept: it copies graph input or output '%s' to graph output '%s'",
			     ir_graph_tensor(g, n->inputs[0])->name, ir_graph_tensor(g, n->outputs[0])->name);
	}
	return 0;
}

static int pass_dce(pass_ctx *c)
{
	int before = ir_graph_node_count(c->g);
	ir_graph_prune(c->g);
	c->count[0] += before - ir_graph_node_count(c->g);
	return 0;
}

/* ---------------------------------------------------------------- constant folding */

#define FOLD_MAX_BYTES ((size_t)64 << 20)

/* Run node i alone on its constant inputs: a graph h holding a copy of
 * it, and *ex, the executor that ran h (its outputs are node i's). */
static ir_graph *eval_node(const ir_graph *g, int i, ir_exec **ex, ir_diag *d)
{
	const ir_node *n = ir_graph_node(g, i);
	ir_graph *h = ir_graph_new();
	int *ids = malloc(sizeof(int) * (size_t)(n->n_inputs + n->n_outputs + 1)), *out = ids + n->n_inputs;
	if (!h || !ids) {
		ir_fail(d, i, -1, "out of memory");
		goto fail;
	}
	for (int j = 0; j < n->n_inputs + n->n_outputs; j++) {
		bool input = j < n->n_inputs;
		int t = input ? n->inputs[j] : n->outputs[j - n->n_inputs];
		const ir_tensor *x = t >= 0 ? ir_graph_tensor(g, t) : NULL;
		ids[j] = !x ? -1 : input ? ir_graph_add_const(h, x->name, x->dtype, &x->shape, x->data, d)
					 : ir_graph_add_tensor(h, x->name, x->dtype, NULL, IR_KIND_ACTIVATION, d);
		if (x && ids[j] < 0)
			goto fail;
		if (x)
			ir_graph_tensor(h, ids[j])->layout = x->layout;
	}
	int hn = ir_graph_add_node(h, n->name, n->op, ids, n->n_inputs, out, n->n_outputs, d);
	if (hn < 0 || copy_attrs(h, hn, n) || ir_graph_set_outputs(h, out, n->n_outputs, d) ||
	    ir_graph_infer_shapes(h, d) || !(*ex = ir_exec_new(h, IR_MODE_F32, 1, d)))
		goto fail;
	if (ir_exec_run(*ex, d)) {
		ir_exec_free(*ex);
		goto fail;
	}
	free(ids);
	return h;
fail:
	free(ids);
	ir_graph_free(h);
	return NULL;
}

static int pass_fold(pass_ctx *c)
{
	ir_graph *g = c->g;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		bool all_const = n->n_inputs > 0;
		size_t bytes = 0;
		for (int j = 0; j < n->n_inputs && all_const; j++)
			all_const = n->inputs[j] < 0 || ir_graph_tensor(g, n->inputs[j])->kind == IR_KIND_CONST;
		for (int j = 0; j < n->n_outputs; j++)
			bytes += ir_tensor_nbytes(ir_graph_tensor(g, n->outputs[j]));
		if (!all_const)
			continue;
		if (bytes > FOLD_MAX_BYTES) {
			note(c, i, "not folded: its outputs would add %zu bytes of constants", bytes);
			continue;
		}
		ir_diag tmp;
		ir_exec *ex = NULL;
		ir_graph *h = eval_node(g, i, &ex, &tmp);
		if (!h) {
			note(c, i, "not folded: %s", tmp.msg);
			continue;
		}
		/* the outputs become constants (names kept), the node goes */
		int rc = 0, op = n->op;
		for (int j = 0; j < n->n_outputs && !rc; j++) {
			size_t nb;
			const void *v = ir_exec_output(ex, j, &nb);
			ir_graph_tensor(g, n->outputs[j])->kind = IR_KIND_CONST;
			rc = ir_tensor_set_data(g, n->outputs[j], v, nb, c->d);
		}
		ir_graph_kill_node(g, i);
		ir_exec_free(ex);
		ir_graph_free(h);
		if (rc)
			return -1;
		c->count[op]++;
	}
	return 0;
}

/* ---------------------------------------------------------------- reshape chains, transposes */

static bool is_reshape_like(int op)
{
	return op == IR_OP_RESHAPE || op == IR_OP_FLATTEN || op == IR_OP_SQUEEZE || op == IR_OP_UNSQUEEZE;
}

/* Turn node i into `reshape` of tensor x to its own output shape. */
static int make_reshape(ir_graph *g, int i, int x, ir_diag *d)
{
	ir_node *n = ir_graph_node(g, i);
	const ir_shape *s = &ir_graph_tensor(g, n->outputs[0])->shape;
	int64_t dims[IR_MAX_RANK];
	for (int k = 0; k < s->rank; k++)
		dims[k] = s->dim[k];
	if (ir_node_set_inputs(g, i, &x, 1, d))
		return -1;
	n = ir_graph_node(g, i);
	n->op = IR_OP_RESHAPE;
	while (n->n_attrs)
		ir_node_remove_attr(g, i, n->attrs[0].name);
	return ir_node_set_ints(g, i, "shape", dims, s->rank);
}

static int pass_reshape(pass_ctx *c)
{
	ir_graph *g = c->g;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		if (!is_reshape_like(n->op))
			continue;
		int x = n->inputs[0], y = n->outputs[0], p = ir_graph_producer(g, x);
		const ir_tensor *tx = ir_graph_tensor(g, x), *ty = ir_graph_tensor(g, y);
		if (ir_shape_equal(&tx->shape, &ty->shape)) {
			if (bypass(g, i, x, y) == 0) {
				c->count[IR_OP_RESHAPE]++;
			}
			continue;
		}
		const ir_node *pn = p >= 0 ? ir_graph_node(g, p) : NULL;
		if (!pn || !is_reshape_like(pn->op))
			continue;
		if (only_consumer(g, x) != i) {
			note(c, i, "not merged with '%s': its output has other consumers", pn->name);
			continue;
		}
		if (make_reshape(g, i, pn->inputs[0], c->d))
			return -1;
		c->count[IR_OP_RESHAPE]++;
	}
	return 0;
}

static int pass_transpose(pass_ctx *c)
{
	ir_graph *g = c->g;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		if (n->op != IR_OP_TRANSPOSE)
			continue;
		int x = n->inputs[0], p = ir_graph_producer(g, x);
		if (p < 0 || ir_graph_node(g, p)->op != IR_OP_TRANSPOSE)
			continue;
		if (only_consumer(g, x) != i) {
			note(c, i, "not merged with '%s': its output has other consumers", ir_graph_node(g, p)->name);
			continue;
		}
		const int64_t *p1, *p2;
		int r1 = ir_node_ints(g, p, "perm", &p1), r2 = ir_node_ints(g, i, "perm", &p2);
		int rank = ir_graph_tensor(g, x)->shape.rank;
		int64_t q[IR_MAX_RANK];
		bool ident = true;
		/* y = x^p1 has y[k] = x[p1[k]]; z = y^p2 has z[k] = x[p1[p2[k]]]
		 * (an absent perm reverses the axes) */
		for (int k = 0; k < rank; k++) {
			int64_t a = r2 == rank ? p2[k] : rank - 1 - k;
			q[k] = r1 == rank ? p1[a] : rank - 1 - a;
			ident &= q[k] == k;
		}
		int src = ir_graph_node(g, p)->inputs[0];
		if (ident) {
			if (bypass(g, i, src, n->outputs[0]) == 0) {
				c->count[IR_OP_TRANSPOSE]++;
			}
			continue;
		}
		if (ir_node_set_inputs(g, i, &src, 1, c->d) || ir_node_set_ints(g, i, "perm", q, rank))
			return -1;
		c->count[IR_OP_TRANSPOSE]++;
	}
	return 0;
}

/* ---------------------------------------------------------------- transpose sinking */

/* The perm of transpose node i over rank r (absent: reversed axes). */
static void perm_of(const ir_graph *g, int i, int r, int64_t *p)
{
	const int64_t *v;
	int n = ir_node_ints(g, i, "perm", &v);
	for (int k = 0; k < r; k++)
		p[k] = n == r ? v[k] : r - 1 - k;
}

/* Transpose node producing t, read only by node `user`, or -1. */
static int sinkable(const ir_graph *g, int t, int user)
{
	int p = t >= 0 ? ir_graph_producer(g, t) : -1;
	return p >= 0 && ir_graph_node(g, p)->op == IR_OP_TRANSPOSE && only_consumer(g, t) == user ? p : -1;
}

/* Constant c (rank <= r, broadcast against a transpose's output by perm p)
 * as the constant to use before the transpose: padded to rank r, then
 * permuted by p's inverse. */
static int unpermute_const(pass_ctx *c, int t, int r, const int64_t *p, int *out)
{
	const ir_tensor *x = ir_graph_tensor(c->g, t);
	ir_shape e = {.rank = r}, s = {.rank = r};
	int pad = r - x->shape.rank;
	int64_t pi[IR_MAX_RANK], st[IR_MAX_RANK], v = 1, idx[IR_MAX_RANK] = {0};
	for (int i = 0; i < r; i++)
		e.dim[i] = i < pad ? 1 : x->shape.dim[i - pad];
	for (int i = r - 1; i >= 0; i--)
		st[i] = v, v *= e.dim[i];
	for (int i = 0; i < r; i++)
		pi[p[i]] = i;
	for (int i = 0; i < r; i++)
		s.dim[i] = e.dim[pi[i]];
	int64_t n = ir_shape_numel(&s);
	size_t es = ir_dtype_size(x->dtype);
	char *buf = malloc(es * (size_t)(n > 0 ? n : 1));
	if (!buf)
		return ir_fail(c->d, -1, -1, "out of memory");
	for (int64_t k = 0; k < n; k++) {
		int64_t off = 0;
		for (int i = 0; i < r; i++)
			off += idx[i] * st[pi[i]];
		memcpy(buf + (size_t)k * es, (const char *)x->data + (size_t)off * es, es);
		for (int i = r - 1; i >= 0; i--) {
			if (++idx[i] < s.dim[i])
				break;
			idx[i] = 0;
		}
	}
	*out = add_const(c->g, x->name, x->dtype, &s, buf, c->d);
	free(buf);
	return *out < 0 ? -1 : 0;
}

/* Node i (reading the transposes' inputs now) writes a new tensor shaped
 * like src; transpose node tr moves it into i's old output. */
static int sink_after(pass_ctx *c, int i, int tr, int src)
{
	ir_graph *g = c->g;
	int y = ir_graph_node(g, i)->outputs[0];
	const ir_tensor *ts = ir_graph_tensor(g, src);
	ir_shape sh = ts->shape;
	ir_layout l = ts->layout;
	char *name = ir_graph_unique_name(g, ir_graph_tensor(g, y)->name);
	if (!name)
		return ir_fail(c->d, -1, -1, "out of memory");
	int z = ir_graph_add_tensor(g, name, ir_graph_tensor(g, y)->dtype, &sh, IR_KIND_ACTIVATION, c->d);
	free(name);
	if (z < 0)
		return -1;
	ir_graph_tensor(g, z)->layout = l;
	ir_graph_node(g, i)->outputs[0] = z;
	ir_node *t = ir_graph_node(g, tr);
	t->inputs[0] = z;
	t->outputs[0] = y;
	ir_graph_touch(g);	/* operands rewritten in place: the use-def cache is stale */
	return 0;
}

/* Move transposes below elementwise ops, concats and pads (towards the
 * outputs), where they meet their inverses (the transpose pass cancels
 * those): f(x^p) = f(x)^p. A transpose whose output has other readers
 * stays. */
static int pass_transpose_sink(pass_ctx *c)
{
	ir_graph *g = c->g;
	int moved = 0;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		ir_node *n = ir_graph_node(g, i);
		int op = n->op;
		if (n->n_outputs != 1 || n->n_inputs < 1 || n->inputs[0] < 0)
			continue;
		bool unary = (op >= IR_OP_RELU && op <= IR_OP_ERF) || op == IR_OP_CAST;
		bool binary = op >= IR_OP_ADD && op <= IR_OP_PRELU;
		if (!unary && !binary && op != IR_OP_CONCAT && op != IR_OP_PAD)
			continue;
		int r = ir_graph_tensor(g, n->outputs[0])->shape.rank;
		int t0 = sinkable(g, n->inputs[0], i);
		if (t0 < 0 && binary && n->n_inputs == 2)
			t0 = sinkable(g, n->inputs[1], i);
		if (t0 < 0 || ir_graph_tensor(g, ir_graph_node(g, t0)->inputs[0])->shape.rank != r)
			continue;
		int64_t p[IR_MAX_RANK], pj[IR_MAX_RANK];
		perm_of(g, t0, r, p);
		int nin = n->n_inputs, in[2], src = ir_graph_node(g, t0)->inputs[0];
		if (unary || op == IR_OP_PAD) {
			if (nin != 1)
				continue;
			if (op == IR_OP_PAD) {
				const int64_t *pd;
				int64_t np[2 * IR_MAX_RANK];
				if (ir_node_ints(g, i, "pads", &pd) != 2 * r)
					continue;
				for (int k = 0; k < r; k++)
					np[p[k]] = pd[k], np[r + p[k]] = pd[r + k];
				if (ir_node_set_ints(g, i, "pads", np, 2 * r))
					return -1;
			}
			in[0] = src;
		} else if (binary) {
			bool ok = nin == 2;
			for (int j = 0; ok && j < 2; j++) {
				int t = n->inputs[j], tj = sinkable(g, t, i);
				const ir_tensor *x = ir_graph_tensor(g, t);
				if (tj >= 0) {
					perm_of(g, tj, r, pj);
					ok = !memcmp(p, pj, sizeof *p * (size_t)r) &&
					     ir_graph_tensor(g, ir_graph_node(g, tj)->inputs[0])->shape.rank == r;
					in[j] = ir_graph_node(g, tj)->inputs[0];
				} else if (x->kind == IR_KIND_CONST && x->shape.rank <= r) {
					in[j] = t;
					if (ir_shape_numel(&x->shape) > 1 && (unpermute_const(c, t, r, p, &in[j])))
						return -1;
				} else {
					ok = false;
				}
			}
			if (!ok)
				continue;
		} else {	/* concat: every input the same transpose */
			bool ok = nin <= 64;
			int ins[64];
			for (int j = 0; ok && j < nin; j++) {
				int tj = sinkable(g, n->inputs[j], i);
				if (tj >= 0)
					perm_of(g, tj, r, pj);
				ok = tj >= 0 && !memcmp(p, pj, sizeof *p * (size_t)r);
				if (ok)
					ins[j] = ir_graph_node(g, tj)->inputs[0];
			}
			if (!ok)
				continue;
			int ax = ir_axis(ir_node_int(g, i, "axis", 0), r);
			if (ax < 0 || ir_node_set_int(g, i, "axis", p[ax]) || ir_node_set_inputs(g, i, ins, nin, c->d))
				return -1;
			if (sink_after(c, i, t0, src))
				return -1;
			moved++;
			c->count[IR_OP_TRANSPOSE]++;
			continue;
		}
		if (ir_node_set_inputs(g, i, in, nin, c->d) || sink_after(c, i, t0, src))
			return -1;
		moved++;
		c->count[IR_OP_TRANSPOSE]++;
	}
	/* the moved transposes now follow their new producers; the new
	 * tensors' shapes (a pad or concat changes them) are inferred */
	return moved && (ir_graph_toposort(g, c->d) || ir_graph_infer_shapes(g, c->d)) ? -1 : 0;
}

/* A transpose (keeping axis 0) flattened into [N, K] for fully connected
 * layers with constant weights: the layers read the untransposed tensor
 * flattened, with their weight columns permuted to match (what a
 * channel-last graph's classifier head needs: no transpose before it). */
static int pass_transpose_fc(pass_ctx *c)
{
	ir_graph *g = c->g;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		if (n->op != IR_OP_RESHAPE && n->op != IR_OP_FLATTEN)
			continue;
		int t = n->inputs[0], y = n->outputs[0], tr = sinkable(g, t, i);
		if (tr < 0 || is_output(g, y))
			continue;
		int x = ir_graph_node(g, tr)->inputs[0];
		const ir_shape *xs = &ir_graph_tensor(g, x)->shape, *ys = &ir_graph_tensor(g, y)->shape;
		int r = xs->rank;
		int64_t p[IR_MAX_RANK];
		perm_of(g, tr, r, p);
		if (r < 2 || p[0] != 0 || ys->rank != 2 || ys->dim[0] != xs->dim[0])
			continue;
		/* every reader: fully_connected, input 0, constant 2-D weights */
		bool ok = true;
		int readers = 0;
		for (int j = 0; j < ir_graph_node_count(g) && ok; j++) {
			const ir_node *m = ir_graph_node(g, j);
			for (int k = 0; k < m->n_inputs; k++)
				if (m->inputs[k] == y) {
					const ir_tensor *w = m->n_inputs > 1 ? ir_graph_tensor(g, m->inputs[1]) : NULL;
					ok = ok && m->op == IR_OP_FULLY_CONNECTED && k == 0 && w && w->kind == IR_KIND_CONST &&
					     w->shape.rank == 2 && w->shape.dim[1] == ys->dim[1];
					readers++;
				}
		}
		if (!ok || !readers) {
			note(c, i, "transpose '%s' not folded: the flattened tensor is read by something other than fully connected layers with constant weights",
			     ir_graph_node(g, tr)->name);
			continue;
		}
		/* sigma[k]: the element of x's row at column k of the transposed row */
		int64_t K = ys->dim[1], idx[IR_MAX_RANK] = {0}, st[IR_MAX_RANK], v = 1, td[IR_MAX_RANK];
		for (int a = r - 1; a >= 1; a--)
			st[a] = v, v *= xs->dim[a];
		for (int a = 0; a < r; a++)
			td[a] = xs->dim[p[a]];
		int64_t *sigma = malloc(sizeof *sigma * (size_t)(K > 0 ? K : 1));
		if (!sigma)
			return ir_fail(c->d, -1, -1, "out of memory");
		for (int64_t k = 0; k < K; k++) {
			int64_t off = 0;
			for (int a = 1; a < r; a++)
				off += idx[a] * st[p[a]];
			sigma[k] = off;
			for (int a = r - 1; a >= 1; a--) {
				if (++idx[a] < td[a])
					break;
				idx[a] = 0;
			}
		}
		for (int j = 0; j < ir_graph_node_count(g); j++) {
			const ir_node *m = ir_graph_node(g, j);
			if (m->op != IR_OP_FULLY_CONNECTED || m->inputs[0] != y)
				continue;
			const ir_tensor *w = ir_graph_tensor(g, m->inputs[1]);
			int64_t O = w->shape.dim[0];
			size_t es = ir_dtype_size(w->dtype);
			char *buf = malloc(es * (size_t)(O * K > 0 ? O * K : 1));
			if (!buf) {
				free(sigma);
				return ir_fail(c->d, -1, -1, "out of memory");
			}
			for (int64_t o = 0; o < O; o++)
				for (int64_t k = 0; k < K; k++)
					memcpy(buf + (size_t)(o * K + sigma[k]) * es, (const char *)w->data + (size_t)(o * K + k) * es, es);
			ir_shape ws = w->shape;
			int nw = add_const(g, w->name, w->dtype, &ws, buf, c->d);
			free(buf);
			if (nw < 0) {
				free(sigma);
				return -1;
			}
			int in[3] = {m->inputs[0], nw, m->n_inputs > 2 ? m->inputs[2] : -1};
			if (ir_node_set_inputs(g, j, in, m->n_inputs, c->d)) {
				free(sigma);
				return -1;
			}
		}
		free(sigma);
		int in0 = x;
		if (ir_node_set_inputs(g, i, &in0, 1, c->d))
			return -1;
		if (n->op == IR_OP_FLATTEN) {	/* flatten's axis counted in the transposed shape: say it plainly */
			ir_graph_node(g, i)->op = IR_OP_RESHAPE;
			ir_node_remove_attr(g, i, "axis");
			if (ir_node_set_ints(g, i, "shape", ys->dim, 2))
				return -1;
		}
		c->count[IR_OP_FULLY_CONNECTED]++;
	}
	return 0;
}

/* ---------------------------------------------------------------- grouped convolution */

/* Do convs a and b compute with the same geometry? */
static bool same_conv(const ir_graph *g, int a, int b)
{
	static const char *const keys[] = {"strides", "pads", "dilations"};
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		const int64_t *va, *vb;
		int na = ir_node_ints(g, a, keys[k], &va), nb = ir_node_ints(g, b, keys[k], &vb);
		if (na != nb || (na > 0 && memcmp(va, vb, sizeof *va * (size_t)na)))
			return false;
	}
	const ir_node *x = ir_graph_node(g, a), *y = ir_graph_node(g, b);
	return x->n_inputs == y->n_inputs &&
	       ir_shape_equal(&ir_graph_tensor(g, x->inputs[1])->shape, &ir_graph_tensor(g, y->inputs[1])->shape);
}

/* Is tensor t part j of G equal channel parts of a tensor (split output j,
 * or a slice of channels [j*n, (j+1)*n))? Returns that tensor, or -1. */
static int channel_part(const ir_graph *g, int t, int j, int G)
{
	int p = ir_graph_producer(g, t);
	if (p < 0)
		return -1;
	const ir_node *n = ir_graph_node(g, p);
	const ir_tensor *x = ir_graph_tensor(g, n->inputs[0]);
	if (x->shape.rank < 3 || channel_last(x) || x->shape.dim[1] % G)
		return -1;
	int64_t part = x->shape.dim[1] / G;
	if (n->op == IR_OP_SPLIT)
		return n->n_outputs == G && n->outputs[j] == t && ir_axis(ir_node_int(g, p, "axis", 0), x->shape.rank) == 1 &&
		       ir_graph_tensor(g, t)->shape.dim[1] == part ? n->inputs[0] : -1;
	if (n->op != IR_OP_SLICE)
		return -1;
	const int64_t *st, *en, *ax, *sp;
	int ns = ir_node_ints(g, p, "starts", &st), ne = ir_node_ints(g, p, "ends", &en);
	int na = ir_node_ints(g, p, "axes", &ax), nsp = ir_node_ints(g, p, "steps", &sp);
	int64_t first, count;
	if (ns != 1 || ne != 1 || na != 1 || ir_axis(ax[0], x->shape.rank) != 1 || (nsp >= 0 && (nsp != 1 || sp[0] != 1)) ||
	    ir_slice_axis(x->shape.dim[1], st[0], en[0], 1, &first, &count) || first != j * part || count != part)
		return -1;
	return n->inputs[0];
}

/* G equal channel parts of x (split or slices) -> G convs -> concat along
 * the channels, in order, as one conv with group G (how exporters write
 * grouped convolutions that a framework ran as separate layers). */
static int pass_group_conv(pass_ctx *c)
{
	ir_graph *g = c->g;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *cat = ir_graph_node(g, i);
		int G = cat->n_inputs;
		if (cat->op != IR_OP_CONCAT || G < 2 || G > 1024 ||
		    ir_axis(ir_node_int(g, i, "axis", 0), ir_graph_tensor(g, cat->outputs[0])->shape.rank) != 1)
			continue;
		int conv[1024], x = -1;
		const char *why = NULL;
		for (int j = 0; j < G && !why; j++) {
			int cj = ir_graph_producer(g, cat->inputs[j]);
			const ir_node *cn = cj >= 0 ? ir_graph_node(g, cj) : NULL;
			conv[j] = cj;
			if (!cn || cn->op != IR_OP_CONV) {
				why = "not every input is made by a conv";
				break;
			}
			int xj = channel_part(g, cn->inputs[0], j, G);
			if (xj < 0 || (j && xj != x))
				why = "the convs do not read equal channel parts of one tensor, in order";
			else if (only_consumer(g, cat->inputs[j]) != i || only_consumer(g, cn->inputs[0]) != cj)
				why = "a part or a conv output has other consumers";
			else if (ir_node_int(g, cj, "group", 1) != 1 || has_act(g, cj) || !const_f32(g, cn->inputs[1]) ||
				 (cn->n_inputs > 2 && !const_f32(g, cn->inputs[2])))
				why = "a conv is grouped, has an activation or non-constant weights";
			else if (j && !same_conv(g, conv[0], cj))
				why = "the convs differ in geometry or weight shape";
			x = xj;
		}
		if (why) {
			if (conv[0] >= 0 && ir_graph_node(g, conv[0])->op == IR_OP_CONV)
				note(c, i, "not a grouped conv: %s", why);
			continue;
		}
		const ir_node *c0 = ir_graph_node(g, conv[0]);
		const ir_tensor *w0 = ir_graph_tensor(g, c0->inputs[1]);
		bool bias = c0->n_inputs > 2;
		int64_t nw = ir_shape_numel(&w0->shape), co = w0->shape.dim[0];
		float *w = malloc(sizeof(float) * (size_t)(nw * G + co * G + 1)), *b = w + nw * G;
		if (!w)
			return ir_fail(c->d, i, -1, "out of memory");
		for (int j = 0; j < G; j++) {
			const ir_node *cj = ir_graph_node(g, conv[j]);
			memcpy(w + nw * j, const_f32(g, cj->inputs[1]), sizeof(float) * (size_t)nw);
			if (bias)
				memcpy(b + co * j, const_f32(g, cj->inputs[2]), sizeof(float) * (size_t)co);
		}
		ir_shape ws = w0->shape, bs = {.rank = 1, .dim = {co * G}};
		ws.dim[0] *= G;
		char base[300];
		snprintf(base, sizeof base, "%s.weight", c0->name);
		int wid = add_const(g, base, IR_DTYPE_F32, &ws, w, c->d);
		snprintf(base, sizeof base, "%s.bias", ir_graph_node(g, conv[0])->name);
		int bid = wid >= 0 && bias ? add_const(g, base, IR_DTYPE_F32, &bs, b, c->d) : -1;
		free(w);
		int in[3] = {x, wid, bid};
		if (wid < 0 || (bias && bid < 0) || ir_node_set_inputs(g, conv[0], in, bias ? 3 : 2, c->d) ||
		    ir_node_set_int(g, conv[0], "group", G))
			return -1;
		int y = ir_graph_node(g, i)->outputs[0];
		ir_graph_kill_node(g, i);	/* the concat */
		ir_graph_node(g, conv[0])->outputs[0] = y;
		c->count[IR_OP_CONV]++;
	}
	return 0;
}

/* ---------------------------------------------------------------- folding into weights */

/* A producer whose output channels can absorb a per-channel y = x * s + t. */
typedef struct {
	int node, w, b;		/* node, weight and bias tensor ids (b: -1 absent) */
	int64_t cout;		/* output channels */
	int64_t per;		/* weights per output channel and group layout (see scale_weights) */
} foldable;

/* Can node p's output channels (axis 1 of its output) absorb an affine map?
 * Fills f, or returns a reason. */
static const char *foldable_producer(const ir_graph *g, int p, foldable *f)
{
	const ir_node *n = ir_graph_node(g, p);
	if (n->op == IR_OP_MATMUL) {	/* x[M,K] . W[K,N] folds as a gemm */
		const ir_tensor *w = ir_graph_tensor(g, n->inputs[1]), *x = ir_graph_tensor(g, n->inputs[0]);
		if (w->shape.rank != 2 || x->shape.rank != 2)
			return "the matmul is not 2-D by 2-D";
	} else if (n->op != IR_OP_CONV && n->op != IR_OP_CONV_TRANSPOSE && n->op != IR_OP_FULLY_CONNECTED &&
		   n->op != IR_OP_GEMM) {
		return "its input is not made by conv, conv_transpose, fully_connected, gemm or matmul";
	}
	if (has_act(g, p))
		return "the producer has a fused activation";
	const ir_tensor *y = ir_graph_tensor(g, n->outputs[0]);
	if (channel_last(y))
		return "channel-last layout";
	f->node = p;
	f->w = n->inputs[1];
	f->b = n->n_inputs > 2 ? n->inputs[2] : -1;
	if (!const_f32(g, f->w) || (f->b >= 0 && !const_f32(g, f->b)))
		return "the producer's weights or bias are not f32 constants";
	if (y->shape.rank < 2)
		return "the producer's output has no channel axis";
	f->cout = y->shape.dim[1];
	if (n->op == IR_OP_GEMM || n->op == IR_OP_MATMUL) {
		if (y->shape.rank != 2)
			return "gemm output is not 2-D";
		if (f->b >= 0 && ir_shape_numel(&ir_graph_tensor(g, f->b)->shape) != f->cout)
			return "gemm's C is not one value per column";
		if (ir_node_float(g, p, "beta", 1.0) != 1.0 && f->b >= 0)
			return "gemm has beta != 1";
	}
	return NULL;
}

/* The channel axis of a tensor as batch_norm reads it. */
static int channel_axis(const ir_tensor *t) { return channel_last(t) ? t->shape.rank - 1 : 1; }

/* The axis of node q's input that its output axis a comes from, when q
 * moves whole channels and nothing else is mixed into them (transpose,
 * batch_to_space on its channel axis, a reshape that keeps axis a and
 * everything before it); -1 otherwise. A per-channel affine map after q
 * can then move before it. */
static int axis_source(const ir_graph *g, int q, int a)
{
	const ir_node *n = ir_graph_node(g, q);
	if (n->n_inputs < 1 || n->inputs[0] < 0)
		return -1;
	const ir_tensor *x = ir_graph_tensor(g, n->inputs[0]), *y = ir_graph_tensor(g, n->outputs[0]);
	if (n->op == IR_OP_TRANSPOSE) {
		const int64_t *perm;
		int r = ir_node_ints(g, q, "perm", &perm);
		return r == y->shape.rank ? (int)perm[a] : y->shape.rank - 1 - a;
	}
	if (n->op == IR_OP_BATCH_TO_SPACE)
		return a == channel_axis(x) && a == channel_axis(y) ? a : -1;
	if (!is_reshape_like(n->op))
		return -1;
	int64_t before = 1;
	for (int k = 0; k < a; k++)
		before *= y->shape.dim[k];
	int64_t p = 1;
	for (int b = 0; b < x->shape.rank; p *= x->shape.dim[b++])
		if (p == before && x->shape.dim[b] == y->shape.dim[a])
			return b;
	return -1;
}

/* The node whose output channels (axis 1) become axis `axis` of tensor x,
 * through single-consumer channel-moving ops; -1 if there is none. */
static int channel_source(const ir_graph *g, int x, int axis)
{
	int p = ir_graph_producer(g, x);
	while (p >= 0) {
		const ir_node *n = ir_graph_node(g, p);
		int a = axis_source(g, p, axis);
		if (a < 0)
			break;
		int in = n->inputs[0], q = ir_graph_producer(g, in);
		if (q < 0 || only_consumer(g, in) != p)
			break;
		p = q;
		axis = a;
	}
	return axis == 1 ? p : -1;
}

/* Write new weight and bias constants for y' = y * s + t per output channel
 * (s may be NULL: 1) and make the producer use them. */
static int fold_affine(pass_ctx *c, const foldable *f, const float *s, const float *t)
{
	ir_graph *g = c->g;
	ir_node *n = ir_graph_node(g, f->node);
	if (n->op == IR_OP_MATMUL)
		n->op = IR_OP_GEMM;	/* same product, and it takes a bias */
	const ir_tensor *wt = ir_graph_tensor(g, f->w);
	int64_t nw = ir_shape_numel(&wt->shape), C = f->cout;
	float *w = malloc(sizeof(float) * (size_t)(nw + 1)), *b = malloc(sizeof(float) * (size_t)(C + 1));
	if (!w || !b) {
		free(w);
		free(b);
		return ir_fail(c->d, f->node, -1, "out of memory");
	}
	memcpy(w, wt->data, sizeof(float) * (size_t)nw);
	const float *b0 = f->b >= 0 ? const_f32(g, f->b) : NULL;
	for (int64_t o = 0; o < C; o++)
		b[o] = (b0 ? b0[o] : 0.0f) * (s ? s[o] : 1.0f) + (t ? t[o] : 0.0f);
	if (s) {
		if (n->op == IR_OP_CONV || n->op == IR_OP_FULLY_CONNECTED ||
		    (n->op == IR_OP_GEMM && ir_node_int(g, f->node, "trans_b", 0))) {
			int64_t per = nw / C;	/* [C, ...] */
			for (int64_t i = 0; i < nw; i++)
				w[i] *= s[i / per];
		} else if (n->op == IR_OP_GEMM) {	/* B is [K, N] */
			for (int64_t i = 0; i < nw; i++)
				w[i] *= s[i % C];
		} else {	/* conv_transpose: [Cin, Cout/group, k...] */
			int64_t group = ir_node_int(g, f->node, "group", 1), cin = wt->shape.dim[0];
			int64_t cg = wt->shape.dim[1], ksz = nw / (cin * cg);
			for (int64_t ci = 0; ci < cin; ci++)
				for (int64_t j = 0; j < cg; j++) {
					int64_t o = ci / (cin / group) * cg + j;
					for (int64_t k = 0; k < ksz; k++)
						w[(ci * cg + j) * ksz + k] *= s[o];
				}
		}
	}
	char base[300];
	snprintf(base, sizeof base, "%s.weight", n->name);
	int nwid = s ? add_const(g, base, IR_DTYPE_F32, &wt->shape, w, c->d) : f->w;
	ir_shape bs = {.rank = 1, .dim = {C}};
	if (n->op == IR_OP_GEMM && f->b >= 0)
		bs = ir_graph_tensor(g, f->b)->shape;
	snprintf(base, sizeof base, "%s.bias", ir_graph_node(g, f->node)->name);
	int nbid = nwid < 0 ? -1 : add_const(g, base, IR_DTYPE_F32, &bs, b, c->d);
	free(w);
	free(b);
	if (nbid < 0)
		return -1;
	n = ir_graph_node(g, f->node);
	int in[3] = {n->inputs[0], nwid, nbid};
	if (ir_node_set_inputs(g, f->node, in, 3, c->d))
		return -1;
	if (n->op == IR_OP_GEMM && ir_node_set_float(g, f->node, "beta", 1.0))
		return ir_fail(c->d, f->node, -1, "out of memory");
	return 0;
}

/* y = x OP k with a constant k as an affine map of x: scale (mul, div) or
 * shift (add, sub). Only add and mul commute. */
static bool affine_op(const ir_graph *g, const ir_node *n, int *x, int *k)
{
	if (n->op != IR_OP_MUL && n->op != IR_OP_ADD && n->op != IR_OP_SUB && n->op != IR_OP_DIV)
		return false;
	*x = n->inputs[0];
	*k = n->inputs[1];
	if ((n->op == IR_OP_MUL || n->op == IR_OP_ADD) && !const_f32(g, *k) && const_f32(g, *x)) {
		*k = n->inputs[0];
		*x = n->inputs[1];
	}
	return true;
}

/* Values of constant k broadcast against tensor x when k varies only along
 * x's channel axis (or not at all): n = channels floats into v; NULL (and
 * the reason) otherwise. */
static float *per_channel(const ir_graph *g, int k, int x, const char **why)
{
	const ir_tensor *tx = ir_graph_tensor(g, x), *tk = ir_graph_tensor(g, k);
	const float *kv = const_f32(g, k);
	int cax = channel_axis(tx);
	*why = NULL;
	if (!kv || tk->shape.rank > tx->shape.rank || tx->shape.rank < 2) {
		*why = "the other operand is not a suitable f32 constant";
		return NULL;
	}
	for (int d = 0; d < tk->shape.rank; d++)
		if (tk->shape.dim[d] != 1 && tx->shape.rank - tk->shape.rank + d != cax) {
			*why = "the constant varies along an axis other than the channels";
			return NULL;
		}
	int64_t C = tx->shape.dim[cax], nk = ir_shape_numel(&tk->shape);
	float *v = malloc(sizeof(float) * (size_t)(C + 1));
	for (int64_t o = 0; v && o < C; o++)
		v[o] = kv[nk == 1 ? 0 : o];
	if (!v)
		*why = "out of memory";
	return v;
}

/* x * s + t with s and t constant per channel (Keras' unfused batch norm
 * after constant folding: x * gamma / sqrt(var + eps) + (beta - mean * ...))
 * as batch_norm(x, s, t, 0, 1) with epsilon 0: one op an NPU runs as
 * such, and one the bn pass folds into a producing conv. */
static int pass_bn_recognize(pass_ctx *c)
{
	ir_graph *g = c->g;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		int x, k;
		if (n->op != IR_OP_MUL || !affine_op(g, n, &x, &k) || !const_f32(g, k) || has_act(g, i))
			continue;
		int m = n->outputs[0], a = only_consumer(g, m), tx, tk;
		const ir_node *an = a >= 0 ? ir_graph_node(g, a) : NULL;
		if (!an || an->op != IR_OP_ADD || !affine_op(g, an, &tx, &tk) || tx != m || has_act(g, a) ||
		    ir_graph_tensor(g, x)->dtype != IR_DTYPE_F32)
			continue;
		const char *why;
		float *s = per_channel(g, k, x, &why), *t = s ? per_channel(g, tk, x, &why) : NULL;
		if (!t) {
			free(s);
			note(c, i, "not a batch norm with '%s': %s", an->name, why);
			continue;
		}
		int64_t C = ir_graph_tensor(g, x)->shape.dim[channel_axis(ir_graph_tensor(g, x))];
		float *zero = calloc((size_t)C + 1, sizeof(float)), *one = malloc(sizeof(float) * (size_t)(C + 1));
		for (int64_t o = 0; one && o < C; o++)
			one[o] = 1;
		char base[300];
		int ids[5] = {x};
		ir_shape cs = {.rank = 1, .dim = {C}};
		const float *vals[4] = {s, t, zero, one};
		static const char *const what[4] = {"scale", "bias", "mean", "var"};
		for (int j = 0; j < 4 && zero && one; j++) {
			snprintf(base, sizeof base, "%s.%s", ir_graph_node(g, i)->name, what[j]);
			ids[j + 1] = add_const(g, base, IR_DTYPE_F32, &cs, vals[j], c->d);
		}
		free(s);
		free(t);
		free(zero);
		free(one);
		if (!zero || !one || ids[1] < 0 || ids[2] < 0 || ids[3] < 0 || ids[4] < 0)
			return ids[1] < 0 ? -1 : ir_fail(c->d, i, -1, "out of memory");
		/* the add becomes the batch_norm (it writes the output), the mul goes */
		if (ir_node_set_inputs(g, a, ids, 5, c->d))
			return -1;
		ir_node *bn = ir_graph_node(g, a);
		bn->op = IR_OP_BATCH_NORM;
		if (ir_node_set_float(g, a, "epsilon", 0.0))
			return ir_fail(c->d, a, -1, "out of memory");
		ir_node_remove_attr(g, a, "act");
		ir_node_remove_attr(g, a, "act_params");
		ir_graph_kill_node(g, i);
		c->count[IR_OP_BATCH_NORM]++;
	}
	return 0;
}

static int pass_bn(pass_ctx *c)
{
	ir_graph *g = c->g;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		if (n->op != IR_OP_BATCH_NORM)
			continue;
		int x = n->inputs[0], p = channel_source(g, x, channel_axis(ir_graph_tensor(g, x)));
		foldable f;
		const char *why = p < 0 ? "its channels do not come from a node's channel axis" : foldable_producer(g, p, &f);
		if (!why && only_consumer(g, x) != i)
			why = "the producer's output has other consumers";
		const float *sc = const_f32(g, n->inputs[1]), *bi = const_f32(g, n->inputs[2]),
			    *mean = const_f32(g, n->inputs[3]), *var = const_f32(g, n->inputs[4]);
		if (!why && (!sc || !bi || !mean || !var))
			why = "its statistics are not f32 constants";
		if (why) {
			note(c, i, "not folded: %s", why);
			continue;
		}
		int64_t C = f.cout;
		float *s = malloc(sizeof(float) * (size_t)(2 * C + 1)), *t = s + C;
		if (!s)
			return ir_fail(c->d, i, -1, "out of memory");
		double eps = ir_node_float(g, i, "epsilon", 1e-5);
		for (int64_t o = 0; o < C; o++) {
			s[o] = (float)(sc[o] / sqrt((double)var[o] + eps));
			t[o] = bi[o] - mean[o] * s[o];
		}
		int pop = ir_graph_node(g, p)->op, y = n->outputs[0];
		int rc = fold_affine(c, &f, s, t);
		free(s);
		if (rc)
			return -1;
		if (bypass(g, i, x, y))	/* cannot fail: x has this one consumer */
			return ir_fail(c->d, i, -1, "internal error: batch_norm not removable");
		c->count[pop]++;
	}
	return 0;
}

static int pass_mul_add(pass_ctx *c)
{
	ir_graph *g = c->g;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		int a, k;
		if (!affine_op(g, n, &a, &k))
			continue;
		int cax = channel_axis(ir_graph_tensor(g, a)), p = channel_source(g, a, cax);
		foldable f;
		if (p < 0 || foldable_producer(g, p, &f))
			continue;	/* not this pattern */
		const char *why = NULL;
		const ir_tensor *ta = ir_graph_tensor(g, a), *tk = ir_graph_tensor(g, k);
		const float *kv = const_f32(g, k);
		if (!kv)
			why = "the other operand is not an f32 constant";
		else if (only_consumer(g, a) != i)
			why = "the producer's output has other consumers";
		else if (has_act(g, i))
			why = "it has a fused activation";
		else if (tk->shape.rank > ta->shape.rank)
			why = "the constant has more dimensions than the output";
		int64_t nk = ir_shape_numel(&tk->shape);
		for (int d = 0; !why && d < tk->shape.rank; d++) {
			int axis = ta->shape.rank - tk->shape.rank + d;
			if (tk->shape.dim[d] != 1 && axis != cax)
				why = "the constant varies along an axis other than the channels";
		}
		for (int64_t o = 0; !why && n->op == IR_OP_DIV && o < nk; o++)
			if (kv[o] == 0)
				why = "it divides by zero";
		if (why) {
			note(c, i, "not folded into '%s': %s", ir_graph_node(g, p)->name, why);
			continue;
		}
		int64_t C = f.cout;
		float *v = malloc(sizeof(float) * (size_t)(C + 1));
		if (!v)
			return ir_fail(c->d, i, -1, "out of memory");
		int op = n->op;
		for (int64_t o = 0; o < C; o++) {
			float e = kv[nk == 1 ? 0 : o];
			v[o] = op == IR_OP_DIV ? 1.0f / e : op == IR_OP_SUB ? -e : e;
		}
		bool scale = op == IR_OP_MUL || op == IR_OP_DIV;
		int pop = ir_graph_node(g, p)->op, y = n->outputs[0];
		int rc = fold_affine(c, &f, scale ? v : NULL, scale ? NULL : v);
		free(v);
		if (rc)
			return -1;
		if (bypass(g, i, a, y))
			return ir_fail(c->d, i, -1, "internal error: %s not removable", ir_op_name(op));
		c->count[pop]++;
	}
	return 0;
}

/* ---------------------------------------------------------------- activations */

static int pass_act(pass_ctx *c)
{
	ir_graph *g = c->g;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		ir_act act;
		if (ir_act_from_unary_node(g, i, &act))
			continue;
		const ir_node *n = ir_graph_node(g, i);
		int x = n->inputs[0], y = n->outputs[0], p = ir_graph_producer(g, x);
		if (p < 0)
			continue;
		/* An elementwise function commutes with ops that only move values
		 * (transpose, reshapes, batch_to_space): look through a chain of
		 * them, each the only reader of the one before, to the op that
		 * computes the values (a channel-last conv between transposes). */
		bool chain_ok = only_consumer(g, x) == i;
		for (const ir_node *q = ir_graph_node(g, p); chain_ok && (q->op == IR_OP_TRANSPOSE ||
		     q->op == IR_OP_BATCH_TO_SPACE || is_reshape_like(q->op)) && ir_graph_producer(g, q->inputs[0]) >= 0;
		     q = ir_graph_node(g, p)) {
			if (only_consumer(g, q->inputs[0]) != p)
				break;
			p = ir_graph_producer(g, q->inputs[0]);
		}
		const ir_node *pn = ir_graph_node(g, p);
		const char *why = NULL;
		if (!ir_lower_fusable_act(n->op))
			why = "the runtime has no fused form of it";
		else if (c->r && c->r->target_ops && !c->r->target_ops[n->op])
			why = "the target does not run it";
		else if (!strstr(ir_op_attr_spec(pn->op), "act=s"))
			why = "its producer cannot carry an activation";
		else if (has_act(g, p))
			why = "its producer has an activation already";
		else if (!chain_ok)
			why = "its input has other consumers";
		if (why) {
			note(c, i, "not fused into '%s': %s", pn->name, why);
			continue;
		}
		double params[2];
		int np = 0;
		if (n->op == IR_OP_CLIP) {
			params[np++] = ir_node_float(g, i, "min", -INFINITY);
			params[np++] = ir_node_float(g, i, "max", INFINITY);
		} else {
			const char *spec = ir_op_attr_spec(n->op);
			if (strstr(spec, "alpha=f"))
				params[np++] = ir_node_float(g, i, "alpha", act.p[0]);
			if (strstr(spec, "beta=f"))
				params[np++] = ir_node_float(g, i, "beta", act.p[1]);
		}
		if (ir_node_set_str(g, p, "act", ir_op_name(n->op)) ||
		    (np && ir_node_set_floats(g, p, "act_params", params, np)))
			return ir_fail(c->d, p, -1, "out of memory");
		int pop = pn->op;
		if (bypass(g, i, x, y))
			return ir_fail(c->d, i, -1, "internal error: activation not removable");
		c->count[pop]++;
	}
	return 0;
}

/* ---------------------------------------------------------------- relu6 under a quantized range */

/* A clamp to [0, 6] is a relu when the quantized output cannot exceed 6
 * anyway (AMCT does this before requantization: the clip then costs
 * nothing and the range calibration decided). */
static int pass_relu6(pass_ctx *c)
{
	ir_graph *g = c->g;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		const char *act = ir_node_str(g, i, "act", "");
		const double *p;
		bool clip06 = (n->op == IR_OP_CLIP && ir_node_float(g, i, "min", -INFINITY) == 0 &&
			       ir_node_float(g, i, "max", INFINITY) == 6) ||
			      (!strcmp(act, "clip") && ir_node_floats(g, i, "act_params", &p) == 2 && p[0] == 0 && p[1] == 6);
		if (n->op != IR_OP_RELU6 && strcmp(act, "relu6") && !clip06)
			continue;
		const ir_tensor *y = ir_graph_tensor(g, n->outputs[0]);
		if (!y->quant || !y->quant->has_range || y->quant->range_max > 6) {
			note(c, i, "kept: the output has no quantized range ending at or below 6");
			continue;
		}
		if (n->op == IR_OP_RELU6 || n->op == IR_OP_CLIP) {
			ir_node_remove_attr(g, i, "min");
			ir_node_remove_attr(g, i, "max");
			ir_graph_node(g, i)->op = IR_OP_RELU;
		} else {
			ir_node_remove_attr(g, i, "act_params");
			if (ir_node_set_str(g, i, "act", "relu"))
				return ir_fail(c->d, i, -1, "out of memory");
		}
		c->count[IR_OP_RELU]++;
	}
	return 0;
}

/* ---------------------------------------------------------------- softmax for NPUs without it */

/* Add node OP(in...) -> a new activation named NAME (shape inferred);
 * returns the output tensor, or -1. out >= 0: write that tensor instead. */
static int add_op(pass_ctx *c, const char *name, int op, const int *in, int nin, int out)
{
	ir_graph *g = c->g;
	char *nm = ir_graph_unique_name(g, name);
	if (!nm)
		return ir_fail(c->d, -1, -1, "out of memory");
	int t = out >= 0 ? out : ir_graph_add_tensor(g, nm, IR_DTYPE_F32, NULL, IR_KIND_ACTIVATION, c->d);
	int n = t < 0 ? -1 : ir_graph_add_node(g, nm, op, in, nin, &t, 1, c->d);
	free(nm);
	return n < 0 ? -1 : t;
}

/* The output of node n computed from x (1 x len) as gxnpuc's manual
 * rewrites softmax by hand: the maximum by max_pools over windows of at
 * most 15 (exact divisors where there are, else ceil mode), subtracted,
 * exp, reduce_sum, div (log_softmax: x - max - log(sum)). */
static int rewrite_softmax(pass_ctx *c, int i)
{
	ir_graph *g = c->g;
	const ir_node *n = ir_graph_node(g, i);
	int x = n->inputs[0], y = n->outputs[0], op = n->op;
	int64_t len = ir_graph_tensor(g, x)->shape.dim[1];
	char base[300], nm[340];
	snprintf(base, sizeof base, "%s", n->name);
	ir_graph_kill_node(g, i);
	int64_t shape4[4] = {1, 1, 1, len}, shape2[2] = {1, 1};
	snprintf(nm, sizeof nm, "%s/reshape", base);
	int t = add_op(c, nm, IR_OP_RESHAPE, &x, 1, -1);
	if (t < 0 || ir_node_set_ints(g, ir_graph_node_count(g) - 1, "shape", shape4, 4))
		return -1;
	for (int step = 0; len > 1; step++) {
		int64_t k = 0;
		for (int64_t d = 15; d >= 2 && !k; d--)
			if (len % d == 0)
				k = d;
		bool ceil = !k;
		if (!k)
			k = len < 15 ? len : 15;
		snprintf(nm, sizeof nm, "%s/max%d", base, step);
		if ((t = add_op(c, nm, IR_OP_MAX_POOL, &t, 1, -1)) < 0)
			return -1;
		int nn = ir_graph_node_count(g) - 1;
		int64_t ker[2] = {1, k};
		if (ir_node_set_ints(g, nn, "kernel", ker, 2) || ir_node_set_ints(g, nn, "strides", ker, 2) ||
		    (ceil && ir_node_set_int(g, nn, "ceil_mode", 1)))
			return ir_fail(c->d, -1, -1, "out of memory");
		len = (len + k - 1) / k;
	}
	snprintf(nm, sizeof nm, "%s/max", base);
	if ((t = add_op(c, nm, IR_OP_RESHAPE, &t, 1, -1)) < 0 ||
	    ir_node_set_ints(g, ir_graph_node_count(g) - 1, "shape", shape2, 2))
		return -1;
	int in[2] = {x, t}, d, e, s;
	snprintf(nm, sizeof nm, "%s/sub", base);
	if ((d = add_op(c, nm, IR_OP_SUB, in, 2, -1)) < 0)
		return -1;
	snprintf(nm, sizeof nm, "%s/exp", base);
	if ((e = add_op(c, nm, IR_OP_EXP, &d, 1, -1)) < 0)
		return -1;
	int64_t axis = 1;
	snprintf(nm, sizeof nm, "%s/sum", base);
	if ((s = add_op(c, nm, IR_OP_REDUCE_SUM, &e, 1, -1)) < 0 ||
	    ir_node_set_ints(g, ir_graph_node_count(g) - 1, "axes", &axis, 1) ||
	    ir_node_set_int(g, ir_graph_node_count(g) - 1, "keepdims", 1))
		return -1;
	if (op == IR_OP_LOG_SOFTMAX) {
		snprintf(nm, sizeof nm, "%s/log", base);
		if ((s = add_op(c, nm, IR_OP_LOG, &s, 1, -1)) < 0)
			return -1;
		in[0] = d;
		in[1] = s;
		snprintf(nm, sizeof nm, "%s/logsub", base);
		return add_op(c, nm, IR_OP_SUB, in, 2, y) < 0 ? -1 : 0;
	}
	in[0] = e;
	in[1] = s;
	snprintf(nm, sizeof nm, "%s/div", base);
	return add_op(c, nm, IR_OP_DIV, in, 2, y) < 0 ? -1 : 0;
}

static int pass_softmax(pass_ctx *c)
{
	ir_graph *g = c->g;
	bool done = false;	/* the new nodes, at the end, are no softmax */
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		if (n->op != IR_OP_SOFTMAX && n->op != IR_OP_LOG_SOFTMAX)
			continue;
		const ir_tensor *x = ir_graph_tensor(g, n->inputs[0]);
		if (x->shape.rank != 2 || x->shape.dim[0] != 1 || x->dtype != IR_DTYPE_F32 ||
		    ir_axis(ir_node_int(g, i, "axis", -1), 2) != 1) {
			note(c, i, "not rewritten: the input is not 1xN with the softmax along N");
			continue;
		}
		int op = n->op;
		if (rewrite_softmax(c, i))
			return -1;
		done = true;
		c->count[op]++;
	}
	if (done)
		ir_graph_drop_killed(g);	/* the softmaxes, before the sort */
	if (done && ir_graph_toposort(g, c->d))
		return -1;
	for (int i = 0; done && i < ir_graph_node_count(g); i++)
		if (ir_graph_infer_node(g, i, c->d))
			return -1;
	return 0;
}

/* ---------------------------------------------------------------- pow with a constant exponent */

/* The value of a constant f32 scalar (one element), or false. */
static bool const_scalar(const ir_graph *g, int t, float *v)
{
	const float *p = const_f32(g, t);
	if (!p || ir_shape_numel(&ir_graph_tensor(g, t)->shape) != 1)
		return false;
	*v = p[0];
	return true;
}

/* x^2 as mul(x, x), x^0.5 as sqrt, x^1 as identity, x^-1 as reciprocal,
 * x^-0.5 as rsqrt: ops runtimes and NPU profiles have where few have pow
 * (x * x is also one rounding, whatever the libm). */
static int pass_pow(pass_ctx *c)
{
	ir_graph *g = c->g;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		float e;
		const ir_tensor *te = n->op == IR_OP_POW ? ir_graph_tensor(g, n->inputs[1]) : NULL;
		if (!te || te->kind != IR_KIND_CONST || ir_shape_numel(&te->shape) != 1)
			continue;
		if (te->dtype == IR_DTYPE_I64 || te->dtype == IR_DTYPE_I32)	/* ONNX allows integer exponents */
			e = te->dtype == IR_DTYPE_I64 ? (float)*(const int64_t *)te->data : (float)*(const int32_t *)te->data;
		else if (!const_scalar(g, n->inputs[1], &e))
			continue;
		int x = n->inputs[0], op;
		const ir_tensor *tx = ir_graph_tensor(g, x);
		if (tx->dtype != IR_DTYPE_F32 || !ir_shape_equal(&tx->shape, &ir_graph_tensor(g, n->outputs[0])->shape)) {
			note(c, i, "kept: the exponent broadcasts the base to another shape, or the base is not f32");
			continue;
		}
		if (e == 2.0f)
			op = IR_OP_MUL;
		else if (e == 0.5f)
			op = IR_OP_SQRT;
		else if (e == 1.0f)
			op = IR_OP_IDENTITY;
		else if (e == -1.0f)
			op = IR_OP_RECIPROCAL;
		else if (e == -0.5f)
			op = IR_OP_RSQRT;
		else {
			note(c, i, "kept: exponent %g is not 2, 0.5, 1, -1 or -0.5", (double)e);
			continue;
		}
		int in[2] = {x, x};
		if (ir_node_set_inputs(g, i, in, op == IR_OP_MUL ? 2 : 1, c->d))
			return -1;
		ir_graph_node(g, i)->op = op;	/* pow has no attributes to drop */
		c->count[IR_OP_POW]++;
	}
	return 0;
}

/* ---------------------------------------------------------------- gather of one index as slice */

/* gather(x, k) with a constant single index k (how exporters write
 * x[:, -1]) as slice(x, k, k+1) on the gather's axis, then squeeze of that
 * axis when k is a scalar: a view the runtime copies, no index tensor. */
static int pass_gather_slice(pass_ctx *c)
{
	ir_graph *g = c->g;
	bool added = false;	/* squeezes, appended at the end */
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		if (n->op != IR_OP_GATHER)
			continue;
		const ir_tensor *tx = ir_graph_tensor(g, n->inputs[0]), *tk = ir_graph_tensor(g, n->inputs[1]);
		if (tk->kind != IR_KIND_CONST || (tk->dtype != IR_DTYPE_I64 && tk->dtype != IR_DTYPE_I32) ||
		    ir_shape_numel(&tk->shape) != 1 || tk->shape.rank > 1) {
			if (tk->kind == IR_KIND_CONST)
				note(c, i, "kept: the indices are not one constant integer (a scalar or [1])");
			continue;
		}
		int axis = ir_axis(ir_node_int(g, i, "axis", 0), tx->shape.rank);
		int64_t k = tk->dtype == IR_DTYPE_I64 ? *(const int64_t *)tk->data : *(const int32_t *)tk->data;
		if (axis < 0 || k < -tx->shape.dim[axis] || k >= tx->shape.dim[axis]) {
			note(c, i, "kept: axis or index out of range");
			continue;
		}
		if (k < 0)
			k += tx->shape.dim[axis];
		bool scalar = tk->shape.rank == 0;
		int x = n->inputs[0], y = n->outputs[0], t = y;
		if (scalar && ir_graph_tensor(g, y)->quant) {
			note(c, i, "kept: its output is quantized (the slice between would not be)");
			continue;
		}
		int64_t st = k, en = k + 1, ax = axis, one = 1;
		char base[300];
		snprintf(base, sizeof base, "%s", n->name);
		if (scalar) {	/* the slice writes a new tensor, a squeeze y */
			char nm[320];
			snprintf(nm, sizeof nm, "%s/slice", base);
			char *u = ir_graph_unique_name(g, nm);
			t = u ? ir_graph_add_tensor(g, u, tx->dtype, NULL, IR_KIND_ACTIVATION, c->d) : -1;
			free(u);
			if (t < 0)
				return u ? -1 : ir_fail(c->d, i, -1, "out of memory");
			ir_graph_tensor(g, t)->layout = ir_graph_tensor(g, y)->layout;
		}
		if (ir_node_set_inputs(g, i, &x, 1, c->d))
			return -1;
		ir_node *sn = ir_graph_node(g, i);
		sn->op = IR_OP_SLICE;
		sn->outputs[0] = t;
		ir_node_remove_attr(g, i, "axis");
		if (ir_node_set_ints(g, i, "starts", &st, 1) || ir_node_set_ints(g, i, "ends", &en, 1) ||
		    ir_node_set_ints(g, i, "axes", &ax, 1) || ir_node_set_ints(g, i, "steps", &one, 1))
			return ir_fail(c->d, i, -1, "out of memory");
		if (scalar) {
			char nm[320];
			snprintf(nm, sizeof nm, "%s/squeeze", base);
			if (add_op(c, nm, IR_OP_SQUEEZE, &t, 1, y) < 0 ||
			    ir_node_set_ints(g, ir_graph_node_count(g) - 1, "axes", &ax, 1))
				return -1;
			added = true;
		}
		c->count[IR_OP_GATHER]++;
	}
	if (added && ir_graph_toposort(g, c->d))
		return -1;
	for (int i = 0; added && i < ir_graph_node_count(g); i++)
		if (ir_graph_infer_node(g, i, c->d))
			return -1;
	return 0;
}

/* ---------------------------------------------------------------- layer norm */

/* The node (other than `not`) reading tensor t, and how many distinct
 * nodes read it (graph outputs count as readers that are no node). */
static int readers(const ir_graph *g, int t, int not, int *count)
{
	int found = -1;
	*count = is_output(g, t) ? 1 : 0;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		for (int j = 0; j < n->n_inputs; j++)
			if (n->inputs[j] == t) {
				++*count;
				if (i != not && found < 0)
					found = i;
				break;
			}
	}
	return found;
}

/* The first of the trailing axes a reduce_mean averages over (keepdims),
 * or -1 when its axes are not the last ones of its input. */
static int trailing_mean(const ir_graph *g, int node)
{
	const ir_node *n = ir_graph_node(g, node);
	if (n->op != IR_OP_REDUCE_MEAN || !ir_node_int(g, node, "keepdims", 1))
		return -1;
	int rank = ir_graph_tensor(g, n->inputs[0])->shape.rank;
	bool mask[IR_MAX_RANK] = {false};
	const int64_t *v;
	int na = ir_node_ints(g, node, "axes", &v);
	for (int k = 0; k < rank; k++)
		mask[k] = na <= 0;
	for (int k = 0; k < na; k++) {
		int a = ir_axis(v[k], rank);
		if (a < 0)
			return -1;
		mask[a] = true;
	}
	int first = rank;
	while (first > 0 && mask[first - 1])
		first--;
	for (int k = 0; k < first; k++)
		if (mask[k])
			return -1;
	return first < rank ? first : -1;
}

/* The other operand of a binary node n whose one operand is a. */
static int other(const ir_node *n, int a) { return n->inputs[0] == a ? n->inputs[1] : n->inputs[0]; }

/* If node `node` is a binary OP reading tensor a (its only reader, no
 * activation), the node; else -1. */
static int next_op(const ir_graph *g, int a, int op)
{
	int m = only_consumer(g, a);
	return m >= 0 && ir_graph_node(g, m)->op == op && !has_act(g, m) ? m : -1;
}

/* Constant f32 k broadcast to shape `norm` (the trailing axes of x from
 * `axis` on): a new array, or NULL when k varies along an axis before
 * `axis` or does not broadcast. */
static float *expand_trailing(const ir_graph *g, int k, const ir_tensor *x, int axis, int64_t *D)
{
	const ir_tensor *tk = ir_graph_tensor(g, k);
	const float *kv = const_f32(g, k);
	int rank = x->shape.rank, nr = rank - axis;
	if (!kv || tk->shape.rank > rank)
		return NULL;
	int64_t kd[IR_MAX_RANK];	/* k's dims aligned to x's last nr axes */
	for (int d = 0; d < rank; d++) {
		int j = d - (rank - tk->shape.rank);
		int64_t kdim = j >= 0 ? tk->shape.dim[j] : 1;
		if ((d < axis && kdim != 1) || (d >= axis && kdim != 1 && kdim != x->shape.dim[d]))
			return NULL;
		if (d >= axis)
			kd[d - axis] = kdim;
	}
	*D = 1;
	for (int d = axis; d < rank; d++)
		*D *= x->shape.dim[d];
	float *v = malloc(sizeof(float) * (size_t)(*D + 1));
	for (int64_t i = 0; v && i < *D; i++) {
		int64_t r = i, src = 0, stride = 1;
		for (int d = nr - 1; d >= 0; d--) {	/* i's coordinates, last axis first */
			int64_t xd = x->shape.dim[axis + d], coord = r % xd;
			r /= xd;
			src += (kd[d] == 1 ? 0 : coord) * stride;
			stride *= kd[d];
		}
		v[i] = kv[src];
	}
	return v;
}

/* m = mean(x), c = x - m, v = mean(c^2) (pow 2 or c*c), s = sqrt(v + eps),
 * n = c / s (or c * rsqrt(v + eps), c * reciprocal(s)), then optionally
 * n * gamma and + beta, all means over the same trailing axes: one
 * layer_norm(x, gamma, beta) over those axes, when no intermediate value
 * is read elsewhere. */
typedef struct {
	int x, axis;		/* normalised: x's axes from axis on */
	float eps;
	int norm, mul, add;	/* the nodes writing c / s, * gamma, + beta (-1: absent) */
	int gamma, beta;	/* constants (-1: absent) */
} ln_match;

static const char *match_layer_norm(const ir_graph *g, int m1, ln_match *lm)
{
	int *x = &lm->x, *axis = &lm->axis;
	float *eps = &lm->eps;
	const ir_node *n = ir_graph_node(g, m1);
	*x = n->inputs[0];
	*axis = trailing_mean(g, m1);
	const ir_tensor *tx = ir_graph_tensor(g, *x);
	if (*axis < 0 || tx->dtype != IR_DTYPE_F32)
		return NULL;
	int s = next_op(g, n->outputs[0], IR_OP_SUB);
	if (s < 0 || ir_graph_node(g, s)->inputs[0] != *x || ir_graph_node(g, s)->inputs[1] != n->outputs[0])
		return NULL;
	int c = ir_graph_node(g, s)->outputs[0];
	if (!ir_shape_equal(&ir_graph_tensor(g, c)->shape, &tx->shape))
		return NULL;
	/* c feeds the square and the normalisation, nothing else */
	int cnt, r1 = readers(g, c, -1, &cnt), r2 = r1 >= 0 ? readers(g, c, r1, &cnt) : -1;
	if (cnt != 2 || r2 < 0)
		return "the centred input has other readers";
	int sq = -1, nz = -1;
	for (int k = 0; k < 2; k++) {
		int r = k ? r2 : r1;
		const ir_node *rn = ir_graph_node(g, r);
		float e;
		bool square = (rn->op == IR_OP_MUL && rn->inputs[0] == c && rn->inputs[1] == c) ||
			      (rn->op == IR_OP_POW && rn->inputs[0] == c && const_scalar(g, rn->inputs[1], &e) && e == 2);
		if (square && sq < 0 && !has_act(g, r))
			sq = r;
		else
			nz = r;
	}
	if (sq < 0)
		return "no square of the centred input";
	int m2 = only_consumer(g, ir_graph_node(g, sq)->outputs[0]);
	if (m2 < 0 || trailing_mean(g, m2) != *axis)
		return "the square is not averaged over the same axes";
	/* the add of epsilon, with the square root fused into it as an
	 * activation (npu-fuse --target for an NPU without layer_norm) or not */
	int v = ir_graph_node(g, m2)->outputs[0], a = only_consumer(g, v);
	const char *act = a >= 0 ? ir_node_str(g, a, "act", "none") : "none";
	bool fused_sqrt = !strcmp(act, "sqrt");
	if (a < 0 || ir_graph_node(g, a)->op != IR_OP_ADD || (has_act(g, a) && !fused_sqrt) ||
	    !const_scalar(g, other(ir_graph_node(g, a), v), eps) || !(*eps >= 0))
		return "the variance is not plus a constant epsilon";
	int t = ir_graph_node(g, a)->outputs[0], q = fused_sqrt ? a : only_consumer(g, t);
	const ir_node *qn = q >= 0 ? ir_graph_node(g, q) : NULL;
	if (!qn)
		return "the variance plus epsilon has other readers";
	const ir_node *zn = ir_graph_node(g, nz);
	if (qn->op == IR_OP_SQRT || fused_sqrt) {
		int sd = qn->outputs[0], r = only_consumer(g, sd);
		if (r == nz && zn->op == IR_OP_DIV && zn->inputs[0] == c && zn->inputs[1] == sd)
			;	/* c / sqrt(v + eps) */
		else if (r >= 0 && ir_graph_node(g, r)->op == IR_OP_RECIPROCAL &&
			 only_consumer(g, ir_graph_node(g, r)->outputs[0]) == nz && zn->op == IR_OP_MUL)
			;	/* c * reciprocal(sqrt(v + eps)) */
		else
			return "the standard deviation does not divide the centred input";
	} else if (qn->op == IR_OP_RSQRT) {
		if (q == nz || only_consumer(g, qn->outputs[0]) != nz || zn->op != IR_OP_MUL)
			return "the reciprocal deviation does not scale the centred input";
	} else {
		return "no square root of the variance";
	}
	if (has_act(g, nz))
		return "the normalisation has a fused activation";
	lm->norm = nz;
	lm->mul = lm->add = lm->gamma = lm->beta = -1;
	int y = zn->outputs[0], k = next_op(g, y, IR_OP_MUL);
	if (k >= 0 && const_f32(g, other(ir_graph_node(g, k), y))) {
		lm->gamma = other(ir_graph_node(g, k), y);
		lm->mul = k;
		y = ir_graph_node(g, k)->outputs[0];
	}
	k = next_op(g, y, IR_OP_ADD);
	if (k >= 0 && const_f32(g, other(ir_graph_node(g, k), y))) {
		lm->beta = other(ir_graph_node(g, k), y);
		lm->add = k;
	}
	return "";
}

static int pass_layer_norm(pass_ctx *c)
{
	ir_graph *g = c->g;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		ln_match lm;
		const char *why = match_layer_norm(g, i, &lm);
		if (!why)
			continue;
		if (*why) {
			note(c, i, "not a layer norm: %s", why);
			continue;
		}
		const ir_tensor *tx = ir_graph_tensor(g, lm.x);
		int64_t D = 1;
		for (int d = lm.axis; d < tx->shape.rank; d++)
			D *= tx->shape.dim[d];
		/* gamma and beta join the layer_norm when they are constant along
		 * the other axes; otherwise their mul or add stays after it */
		float *sv = lm.gamma >= 0 ? expand_trailing(g, lm.gamma, tx, lm.axis, &D) : NULL;
		if (lm.gamma >= 0 && !sv)
			lm.mul = lm.add = lm.beta = -1;
		float *bv = lm.beta >= 0 ? expand_trailing(g, lm.beta, tx, lm.axis, &D) : NULL;
		if (!bv)
			lm.add = -1;
		int last = lm.add >= 0 ? lm.add : lm.mul >= 0 ? lm.mul : lm.norm;
		if (!sv && (sv = malloc(sizeof(float) * (size_t)(D + 1))))
			for (int64_t k = 0; k < D; k++)
				sv[k] = 1;
		if (!sv) {
			free(bv);
			return ir_fail(c->d, i, -1, "out of memory");
		}
		ir_shape ns = {.rank = tx->shape.rank - lm.axis};
		memcpy(ns.dim, &tx->shape.dim[lm.axis], sizeof(int64_t) * (size_t)ns.rank);
		char base[300];
		snprintf(base, sizeof base, "%s.scale", ir_graph_node(g, last)->name);
		int in[3] = {lm.x, add_const(g, base, IR_DTYPE_F32, &ns, sv, c->d), -1};
		snprintf(base, sizeof base, "%s.bias", ir_graph_node(g, last)->name);
		if (in[1] >= 0 && bv)
			in[2] = add_const(g, base, IR_DTYPE_F32, &ns, bv, c->d);
		free(sv);
		free(bv);
		if (in[1] < 0 || (lm.add >= 0 && in[2] < 0) || ir_node_set_inputs(g, last, in, lm.add >= 0 ? 3 : 2, c->d))
			return -1;
		/* the last node of the pattern becomes the layer_norm (it writes
		 * the output); the others are dead now */
		ir_node *ln = ir_graph_node(g, last);
		ln->op = IR_OP_LAYER_NORM;
		while (ln->n_attrs)
			ir_node_remove_attr(g, last, ln->attrs[0].name);
		if (ir_node_set_int(g, last, "axis", lm.axis - tx->shape.rank) ||
		    ir_node_set_float(g, last, "epsilon", lm.eps))
			return ir_fail(c->d, last, -1, "out of memory");
		ir_graph_prune(g);
		c->count[IR_OP_LAYER_NORM]++;
		i = -1;	/* ids changed */
	}
	return 0;
}

/* ---------------------------------------------------------------- table */

static const struct {
	const char *name, *help;
	int (*fn)(pass_ctx *c);
	bool in_all;
} passes[] = {
#define IR_PASS(id, name, fn, in_all, help) {name, help, pass_##fn, in_all},
#include "ir_passes.def"
#undef IR_PASS
};
_Static_assert(sizeof passes / sizeof passes[0] == IR_PASS_COUNT, "pass table");

/* How each pass words its summary. */
static const char *const verbs[IR_PASS_COUNT] = {
	[IR_PASS_IDENTITY] = "removed", [IR_PASS_FOLD] = "folded", [IR_PASS_RESHAPE] = "simplified",
	[IR_PASS_TRANSPOSE] = "simplified", [IR_PASS_TRANSPOSE_SINK] = "sank", [IR_PASS_TRANSPOSE_FC] = "folded", [IR_PASS_GROUP_CONV] = "merged", [IR_PASS_BN_RECOGNIZE] = "recognised", [IR_PASS_BN] = "folded", [IR_PASS_MUL_ADD] = "folded",
	[IR_PASS_ACT] = "fused", [IR_PASS_RELU6] = "relaxed", [IR_PASS_SOFTMAX] = "rewrote", [IR_PASS_DCE] = "removed",
	[IR_PASS_POW] = "rewrote", [IR_PASS_GATHER_SLICE] = "rewrote", [IR_PASS_LAYER_NORM] = "recognised",
};

const char *ir_pass_name(int p) { return p >= 0 && p < IR_PASS_COUNT ? passes[p].name : "?"; }
const char *ir_pass_help(int p) { return p >= 0 && p < IR_PASS_COUNT ? passes[p].help : "?"; }
bool ir_pass_in_all(int p) { return p >= 0 && p < IR_PASS_COUNT && passes[p].in_all; }

int ir_pass_from_name(const char *name)
{
	for (int p = 0; p < IR_PASS_COUNT; p++)
		if (!strcmp(passes[p].name, name))
			return p;
	return -1;
}

static void cat(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t cap, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + len, cap - len, fmt, ap);
	va_end(ap);
}

/* "folded batch_norm: 20 into conv, 1 into fully_connected", "removed 3 identity" */
static void summarize(int pass, const int *count, ir_pass_report *r)
{
	static const char *const into[IR_PASS_COUNT] = {
		[IR_PASS_GROUP_CONV] = "split/concat convs", [IR_PASS_TRANSPOSE_FC] = "transposes", [IR_PASS_BN] = "batch_norm", [IR_PASS_MUL_ADD] = "mul/add", [IR_PASS_ACT] = "activations",
	};
	r->summary[0] = 0;
	if (pass == IR_PASS_DCE) {
		if (count[0])
			cat(r->summary, sizeof r->summary, "removed %d dead nodes", count[0]);
		return;
	}
	for (int op = 0; op < IR_OP_COUNT; op++) {
		if (!count[op])
			continue;
		if (!r->summary[0])
			cat(r->summary, sizeof r->summary, "%s%s%s ", verbs[pass], into[pass] ? " " : "",
			    into[pass] ? into[pass] : "");
		else
			cat(r->summary, sizeof r->summary, ", ");
		cat(r->summary, sizeof r->summary, into[pass] ? "%d into %s" : "%d %s", count[op], ir_op_name(op));
	}
}

int ir_pass_run(ir_graph *g, int pass, ir_pass_report *r, ir_diag *d)
{
	if (pass < 0 || pass >= IR_PASS_COUNT)
		return ir_fail(d, -1, -1, "no pass %d", pass);
	pass_ctx c = {.g = g, .r = r, .d = d};
	int rc = passes[pass].fn(&c);
	ir_graph_prune(g);
	if (r) {
		r->changed = 0;
		for (int op = 0; op < IR_OP_COUNT; op++)
			r->changed += c.count[op];
		summarize(pass, c.count, r);
	}
	return rc;
}
