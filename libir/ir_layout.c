/* ir_layout.c - one data layout for a whole graph (npu-layout).
 *
 * Every activation in the source layout (channel-first NCHW/NCL when going
 * to nhwc: tensors so labelled, and unlabelled 3-D/4-D tensors that reach a
 * convolution or pooling through layout-neutral ops; channel-last NHWC/NLC
 * when going to nchw) is stored permuted: its shape and label change, its
 * name stays. Each node is then rewritten for its operands' new storage:
 *
 *   conv, pooling,    nothing: their channel axis follows input 0's label
 *   conv_transpose,
 *   batch_norm
 *                     (weights stay OIHW in the IR; the runtime lowering
 *                     re-lays them out for its channel-last kernels)
 *   neutral ops       elementwise, concat, split, pad, slice, softmax,
 *                     reductions with keepdims, gather, argmax, resize:
 *                     axis attributes remapped, constant operands permuted
 *   reshape-likes     kept (as a reshape) where the permuted storage has the
 *                     same element order (all moved dims but one are 1: a
 *                     1x1 feature map before a classifier); otherwise their
 *                     operand is transposed back to the source layout
 *   transpose         its permutation composed with the storages on both
 *                     sides (an identity becomes an identity node)
 *   anything else     its operands transposed back to the source layout
 *
 * Graph inputs and outputs keep the caller's layout unless an ir_layout_io
 * entry asks otherwise (gxnpuc INPUT_NCX_TO_NXC: the caller feeds
 * channel-last data, so no transpose runs at that input); a kept interface
 * gets one transpose. Then identity nodes go and transpose pairs cancel
 * or merge (the identity, transpose-sink, transpose and dce passes; not
 * transpose-fc, which would change a classifier's float summation order). */
#include "ir_internal.h"

#include <stdlib.h>
#include <string.h>

static bool is_cl(ir_layout l) { return l == IR_LAYOUT_NHWC || l == IR_LAYOUT_NLC; }
static bool is_cf(ir_layout l) { return l == IR_LAYOUT_NCHW || l == IR_LAYOUT_NCL; }

/* Storage permutation of rank r going channel-last (to_cl) or channel-first:
 * stored axis i holds axis q[i] of the tensor as the model defines it. */
void ir_layout_perm(int r, bool to_cl, int64_t *q)
{
	q[0] = 0;
	if (r < 2) {
		for (int i = 1; i < r; i++)
			q[i] = i;
		return;
	}
	if (to_cl) {
		for (int i = 1; i < r - 1; i++)
			q[i] = i + 1;
		q[r - 1] = 1;
	} else {
		q[1] = r - 1;
		for (int i = 2; i < r; i++)
			q[i] = i - 1;
	}
}

static void inverse(int r, const int64_t *q, int64_t *qi)
{
	for (int i = 0; i < r; i++)
		qi[q[i]] = i;
}

int ir_graph_transpose_count(const ir_graph *g)
{
	int n = 0;
	for (int i = 0; i < ir_graph_node_count(g); i++)
		n += ir_graph_node(g, i)->op == IR_OP_TRANSPOSE;
	return n;
}

typedef struct {
	ir_graph *g;
	const ir_layout_opts *o;
	bool to_cl;
	int nt0;		/* tensors before the rewrite */
	int lim;		/* marks index tensors below this */
	bool *mark;		/* stored permuted */
	ir_shape *orig;		/* shape before */
	ir_layout *olay;	/* label before */
	int *back;		/* a copy in the source layout, made once */
	int inserted;
	ir_diag *d;
} lctx;

static bool act(const ir_tensor *t) { return t->kind != IR_KIND_CONST; }
static bool spatial_rank(int r) { return r == 3 || r == 4; }
static bool marked(const lctx *c, int t) { return t >= 0 && t < c->lim && c->mark[t]; }

static ir_layout dst_layout(const lctx *c, int r)
{
	return c->to_cl ? (r == 4 ? IR_LAYOUT_NHWC : IR_LAYOUT_NLC) : (r == 4 ? IR_LAYOUT_NCHW : IR_LAYOUT_NCL);
}

/* Does the op read its channel axis from input 0's label, with a layout
 * both the interpreter and the runtime run channel-last? */
static bool layout_aware(const ir_graph *g, int i)
{
	const ir_node *n = ir_graph_node(g, i);
	int r = ir_graph_tensor(g, n->inputs[0])->shape.rank;
	if (!spatial_rank(r))
		return false;
	switch (n->op) {
	case IR_OP_CONV: case IR_OP_CONV_TRANSPOSE:
	case IR_OP_GLOBAL_AVG_POOL: case IR_OP_GLOBAL_MAX_POOL:
		return true;
	case IR_OP_BATCH_NORM:	/* constant parameters: the runtime's depthwise 1x1 */
		for (int k = 1; k < n->n_inputs; k++)
			if (n->inputs[k] < 0 || ir_graph_tensor(g, n->inputs[k])->kind != IR_KIND_CONST)
				return false;
		return true;
	case IR_OP_MAX_POOL: case IR_OP_AVG_POOL: {
		const int64_t *dl;
		int nd = ir_node_ints(g, i, "dilations", &dl);
		for (int k = 0; k < nd; k++)
			if (dl[k] != 1)
				return false;
		return true;
	}
	default:
		return false;
	}
}

static bool is_unary(int op) { return (op >= IR_OP_RELU && op <= IR_OP_ERF) || op == IR_OP_IDENTITY || op == IR_OP_CAST; }
static bool is_binary(int op) { return op >= IR_OP_ADD && op <= IR_OP_PRELU; }

/* Can the node work on permuted operands with remapped attributes? */
static bool neutral(const ir_graph *g, int i)
{
	const ir_node *n = ir_graph_node(g, i);
	if (n->n_outputs < 1 || n->outputs[0] < 0 || n->inputs[0] < 0)
		return false;
	int r = ir_graph_tensor(g, n->outputs[0])->shape.rank;
	if (!spatial_rank(r))
		return false;
	if (is_unary(n->op))
		return true;
	if (is_binary(n->op)) {
		for (int j = 0; j < n->n_inputs; j++) {
			const ir_tensor *t = ir_graph_tensor(g, n->inputs[j]);
			if (act(t) ? t->shape.rank != r : t->shape.rank > r)
				return false;
		}
		return true;
	}
	switch (n->op) {
	case IR_OP_QUANTIZE: case IR_OP_DEQUANTIZE:
	case IR_OP_PAD: case IR_OP_SLICE: case IR_OP_SPLIT:
	case IR_OP_SOFTMAX: case IR_OP_LOG_SOFTMAX:
		return n->n_inputs == 1;
	case IR_OP_CONCAT:
		for (int j = 0; j < n->n_inputs; j++)
			if (ir_graph_tensor(g, n->inputs[j])->shape.rank != r)
				return false;
		return true;
	case IR_OP_REDUCE_MEAN: case IR_OP_REDUCE_SUM: case IR_OP_REDUCE_MAX: case IR_OP_REDUCE_MIN:
	case IR_OP_ARGMAX:
		return ir_node_int(g, i, "keepdims", 1) != 0;
	case IR_OP_RESIZE:	/* per-axis scales and sizes; the runtime resizes the spatial axes */
		return n->n_inputs == 1;
	case IR_OP_GATHER: {
		const ir_tensor *ix = ir_graph_tensor(g, n->inputs[1]);
		return ix->shape.rank == 1 && !act(ix);
	}
	default:
		return false;
	}
}

static bool reshape_like(int op)
{
	return op == IR_OP_RESHAPE || op == IR_OP_FLATTEN || op == IR_OP_SQUEEZE || op == IR_OP_UNSQUEEZE;
}

static void mark(lctx *c, int t, int *changed)
{
	if (t < 0 || t >= c->nt0 || c->mark[t])
		return;
	const ir_tensor *x = ir_graph_tensor(c->g, t);
	if (!act(x) || !spatial_rank(x->shape.rank))
		return;
	c->mark[t] = true;
	(*changed)++;
}

/* Which tensors are in the source layout. */
static void find_marks(lctx *c)
{
	ir_graph *g = c->g;
	int changed = 0;
	for (int t = 0; t < c->nt0; t++) {
		const ir_tensor *x = ir_graph_tensor(g, t);
		if (c->to_cl ? is_cf(x->layout) : is_cl(x->layout))
			mark(c, t, &changed);
	}
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		if (!layout_aware(g, i))
			continue;
		ir_layout l = ir_graph_tensor(g, n->inputs[0])->layout;
		if (c->to_cl ? !is_cl(l) : is_cl(l)) {
			mark(c, n->inputs[0], &changed);
			mark(c, n->outputs[0], &changed);
		}
	}
	/* neutral ops share one index space among their same-rank operands */
	do {
		changed = 0;
		for (int i = 0; i < ir_graph_node_count(g); i++) {
			const ir_node *n = ir_graph_node(g, i);
			if (!neutral(g, i))
				continue;
			int r = ir_graph_tensor(g, n->outputs[0])->shape.rank;
			bool any = false;
			for (int j = 0; j < n->n_inputs; j++)
				any |= n->inputs[j] >= 0 && ir_graph_tensor(g, n->inputs[j])->shape.rank == r &&
				       marked(c, n->inputs[j]) && (j == 0 || n->op == IR_OP_CONCAT || is_binary(n->op));
			for (int j = 0; j < n->n_outputs; j++)
				any |= marked(c, n->outputs[j]);
			if (!any)
				continue;
			for (int j = 0; j < n->n_inputs; j++)
				if (j == 0 || n->op == IR_OP_CONCAT || is_binary(n->op))
					mark(c, n->inputs[j], &changed);
			for (int j = 0; j < n->n_outputs; j++)
				mark(c, n->outputs[j], &changed);
		}
	} while (changed);
}

/* A transpose of `from` by perm into `to`; a reshape (a view: no data
 * moves) when the dims other than 1 keep their order. */
static int add_transpose(lctx *c, const char *base, int from, int to, const int64_t *perm, int r)
{
	const ir_shape *fs = &ir_graph_tensor(c->g, from)->shape;
	int last = -1;
	bool view = true;
	for (int i = 0; i < r && view; i++) {
		if (fs->dim[perm[i]] == 1)
			continue;
		view = perm[i] > last;
		last = (int)perm[i];
	}
	char *name = ir_graph_unique_name(c->g, base);
	if (!name)
		return ir_fail(c->d, -1, -1, "out of memory");
	int k = ir_graph_add_node(c->g, name, view ? IR_OP_RESHAPE : IR_OP_TRANSPOSE, &from, 1, &to, 1, c->d);
	free(name);
	if (k < 0)
		return -1;
	if (view) {
		int64_t dims[IR_MAX_RANK];
		for (int i = 0; i < r; i++)
			dims[i] = fs->dim[perm[i]];
		if (ir_node_set_ints(c->g, k, "shape", dims, r))
			return -1;
	} else if (ir_node_set_ints(c->g, k, "perm", perm, r)) {
		return -1;
	}
	ir_node_set_origin(c->g, k, "npu-layout");
	c->inserted++;
	return 0;
}

/* A new activation like t, with shape sh and label l. */
static int new_tensor(lctx *c, int t, const char *suffix, const ir_shape *sh, ir_layout l)
{
	ir_tensor *x = ir_graph_tensor(c->g, t);
	size_t len = strlen(x->name) + strlen(suffix) + 2;
	char *base = malloc(len);
	if (!base)
		return ir_fail(c->d, -1, -1, "out of memory");
	snprintf(base, len, "%s_%s", x->name, suffix);
	char *name = ir_graph_unique_name(c->g, base);
	free(base);
	if (!name)
		return ir_fail(c->d, -1, -1, "out of memory");
	ir_dtype dt = x->dtype;
	int id = ir_graph_add_tensor(c->g, name, dt, sh, IR_KIND_ACTIVATION, c->d);
	free(name);
	if (id >= 0)
		ir_graph_tensor(c->g, id)->layout = l;
	return id;
}

/* Marked t as the source layout (for a consumer that needs it). */
static int bridge_in(lctx *c, int t)
{
	if (c->back[t] >= 0)
		return c->back[t];
	int r = c->orig[t].rank;
	int64_t q[IR_MAX_RANK], qi[IR_MAX_RANK];
	ir_layout_perm(r, c->to_cl, q);
	inverse(r, q, qi);
	int b = new_tensor(c, t, ir_layout_name(c->olay[t])[0] ? ir_layout_name(c->olay[t]) : "ncx", &c->orig[t],
			   c->olay[t]);
	if (b < 0 || add_transpose(c, ir_graph_tensor(c->g, b)->name, t, b, qi, r))
		return -1;
	return c->back[t] = b;
}

/* Node i writes its output slot s in the source layout; a transpose makes
 * the marked tensor. */
static int bridge_out(lctx *c, int i, int s)
{
	int t = ir_graph_node(c->g, i)->outputs[s], r = c->orig[t].rank;
	int64_t q[IR_MAX_RANK];
	ir_layout_perm(r, c->to_cl, q);
	int b = new_tensor(c, t, ir_layout_name(c->olay[t])[0] ? ir_layout_name(c->olay[t]) : "ncx", &c->orig[t],
			   c->olay[t]);
	if (b < 0)
		return -1;
	ir_graph_node(c->g, i)->outputs[s] = b;
	return add_transpose(c, ir_graph_tensor(c->g, t)->name, b, t, q, r);
}

/* The node on source-layout operands. */
static int fallback(lctx *c, int i)
{
	const ir_node *n = ir_graph_node(c->g, i);
	int nin = n->n_inputs, *in = malloc(sizeof *in * (size_t)(nin ? nin : 1));
	if (!in)
		return ir_fail(c->d, -1, -1, "out of memory");
	memcpy(in, n->inputs, sizeof *in * (size_t)nin);
	bool any = false;
	for (int j = 0; j < nin; j++)
		if (marked(c, in[j])) {
			if ((in[j] = bridge_in(c, in[j])) < 0) {
				free(in);
				return -1;
			}
			any = true;
		}
	int rc = any ? ir_node_set_inputs(c->g, i, in, nin, c->d) : 0;
	free(in);
	for (int s = 0; !rc && s < ir_graph_node(c->g, i)->n_outputs; s++)
		if (marked(c, ir_graph_node(c->g, i)->outputs[s]))
			rc = bridge_out(c, i, s);
	return rc;
}

/* Same element order in both storages: the dims other than 1 keep their
 * relative order under the permutation. */
static bool order_kept(const lctx *c, int t)
{
	int r = c->orig[t].rank;
	int64_t q[IR_MAX_RANK];
	ir_layout_perm(r, c->to_cl, q);
	int last = -1;
	for (int i = 0; i < r; i++) {
		if (c->orig[t].dim[q[i]] == 1)
			continue;
		if (q[i] < last)
			return false;
		last = (int)q[i];
	}
	return true;
}

static int rewrite_reshape(lctx *c, int i)
{
	ir_node *n = ir_graph_node(c->g, i);
	int x = n->inputs[0], y = n->outputs[0];
	bool mx = marked(c, x), my = marked(c, y);
	if (!mx && !my)
		return 0;
	if (mx && !order_kept(c, x))
		return fallback(c, i);
	if (my && !order_kept(c, y))
		return fallback(c, i);
	/* the same bytes: a reshape to the output's stored shape */
	const ir_shape *s = &ir_graph_tensor(c->g, y)->shape;
	int64_t dims[IR_MAX_RANK];
	memcpy(dims, s->dim, sizeof *dims * (size_t)s->rank);
	while (n->n_attrs)
		ir_node_remove_attr(c->g, i, n->attrs[0].name);
	n->op = IR_OP_RESHAPE;
	return ir_node_set_ints(c->g, i, "shape", dims, s->rank);
}

static int rewrite_transpose(lctx *c, int i)
{
	ir_node *n = ir_graph_node(c->g, i);
	int x = n->inputs[0], y = n->outputs[0];
	bool mx = marked(c, x), my = marked(c, y);
	if (!mx && !my)
		return 0;
	int r = (mx ? c->orig[x] : ir_graph_tensor(c->g, x)->shape).rank;
	const int64_t *p;
	int np = ir_node_ints(c->g, i, "perm", &p);
	int64_t t[IR_MAX_RANK], qx[IR_MAX_RANK], qxi[IR_MAX_RANK], qy[IR_MAX_RANK], np2[IR_MAX_RANK];
	for (int k = 0; k < r; k++) {
		t[k] = np == r ? p[k] : r - 1 - k;
		qx[k] = qy[k] = k;
	}
	if (mx)
		ir_layout_perm(r, c->to_cl, qx);
	if (my)
		ir_layout_perm(r, c->to_cl, qy);
	inverse(r, qx, qxi);
	/* y_s[j] = y[qy[j]] = x[t[qy[j]]] = x_s[qxi[t[qy[j]]]] */
	bool ident = true;
	for (int j = 0; j < r; j++) {
		np2[j] = qxi[t[qy[j]]];
		ident &= np2[j] == j;
	}
	if (ident) {
		ir_node_remove_attr(c->g, i, "perm");
		n->op = IR_OP_IDENTITY;
		return 0;
	}
	return ir_node_set_ints(c->g, i, "perm", np2, r);
}

/* A constant operand of a neutral node whose output has rank r: padded to
 * rank r (numpy broadcasting) and permuted. */
static int permute_const(lctx *c, int t, int r, int *out)
{
	const ir_tensor *x = ir_graph_tensor(c->g, t);
	ir_shape e = {.rank = r}, s = {.rank = r};
	int pad = r - x->shape.rank;
	for (int i = 0; i < r; i++)
		e.dim[i] = i < pad ? 1 : x->shape.dim[i - pad];
	int64_t q[IR_MAX_RANK], st[IR_MAX_RANK], v = 1;
	ir_layout_perm(r, c->to_cl, q);
	for (int i = r - 1; i >= 0; i--)
		st[i] = v, v *= e.dim[i];
	for (int i = 0; i < r; i++)
		s.dim[i] = e.dim[q[i]];
	int64_t n = ir_shape_numel(&s);
	size_t es = ir_dtype_size(x->dtype);
	char *buf = malloc(es * (size_t)(n > 0 ? n : 1));
	if (!buf)
		return ir_fail(c->d, -1, -1, "out of memory");
	int64_t idx[IR_MAX_RANK] = {0};
	for (int64_t k = 0; k < n; k++) {
		int64_t off = 0;
		for (int i = 0; i < r; i++)
			off += idx[i] * st[q[i]];
		memcpy(buf + (size_t)k * es, (const char *)x->data + (size_t)off * es, es);
		for (int i = r - 1; i >= 0; i--) {
			if (++idx[i] < s.dim[i])
				break;
			idx[i] = 0;
		}
	}
	size_t len = strlen(x->name) + 8;
	char *base = malloc(len), *name = NULL;
	if (base) {
		snprintf(base, len, "%s_%s", x->name, ir_layout_name(dst_layout(c, r)));
		name = ir_graph_unique_name(c->g, base);
	}
	free(base);
	int id = name ? ir_graph_add_const(c->g, name, x->dtype, &s, buf, c->d) : ir_fail(c->d, -1, -1, "out of memory");
	free(name);
	free(buf);
	if (id < 0)
		return -1;
	*out = id;
	return 0;
}

/* An axis attribute (or each of a list) as the stored axis. */
static int remap_axis(lctx *c, int i, const char *key, int r, const int64_t *qi)
{
	const ir_attr *a = ir_node_attr(c->g, i, key);
	if (!a)
		return 0;
	if (a->type == IR_ATTR_INT) {
		int ax = ir_axis(a->i, r);
		return ax < 0 ? 0 : ir_node_set_int(c->g, i, key, qi[ax]);
	}
	if (a->type != IR_ATTR_INTS)
		return 0;
	int64_t v[IR_MAX_RANK];
	int n = a->n;
	if (n > IR_MAX_RANK)
		return 0;
	for (int k = 0; k < n; k++) {
		int ax = ir_axis(a->ints[k], r);
		v[k] = ax < 0 ? a->ints[k] : qi[ax];
	}
	return ir_node_set_ints(c->g, i, key, v, n);
}

static int rewrite_neutral(lctx *c, int i)
{
	ir_node *n = ir_graph_node(c->g, i);
	int y = n->outputs[0];
	if (!marked(c, y))
		return 0;
	int r = c->orig[y].rank;
	int64_t q[IR_MAX_RANK], qi[IR_MAX_RANK];
	ir_layout_perm(r, c->to_cl, q);
	inverse(r, q, qi);
	if (is_binary(n->op)) {
		int in[2] = {n->inputs[0], n->inputs[1]};
		for (int j = 0; j < 2; j++) {
			const ir_tensor *t = ir_graph_tensor(c->g, in[j]);
			if (!act(t) && ir_shape_numel(&t->shape) > 1 && permute_const(c, in[j], r, &in[j]))
				return -1;
		}
		return ir_node_set_inputs(c->g, i, in, 2, c->d);
	}
	switch (n->op) {
	case IR_OP_CONCAT: case IR_OP_SPLIT: case IR_OP_SOFTMAX: case IR_OP_LOG_SOFTMAX:
	case IR_OP_ARGMAX: case IR_OP_GATHER: case IR_OP_QUANTIZE: case IR_OP_DEQUANTIZE:
		return remap_axis(c, i, "axis", r, qi);
	case IR_OP_REDUCE_MEAN: case IR_OP_REDUCE_SUM: case IR_OP_REDUCE_MAX: case IR_OP_REDUCE_MIN:
		return remap_axis(c, i, "axes", r, qi);
	case IR_OP_RESIZE: {
		const double *sc;
		const int64_t *sz;
		double vs[IR_MAX_RANK];
		int64_t vz[IR_MAX_RANK];
		if (ir_node_floats(c->g, i, "scales", &sc) == r) {
			for (int k = 0; k < r; k++)
				vs[k] = sc[q[k]];
			if (ir_node_set_floats(c->g, i, "scales", vs, r))
				return -1;
		}
		if (ir_node_ints(c->g, i, "sizes", &sz) == r) {
			for (int k = 0; k < r; k++)
				vz[k] = sz[q[k]];
			if (ir_node_set_ints(c->g, i, "sizes", vz, r))
				return -1;
		}
		return 0;
	}
	case IR_OP_PAD: {
		const int64_t *p;
		if (ir_node_ints(c->g, i, "pads", &p) != 2 * r)
			return 0;
		int64_t v[2 * IR_MAX_RANK];
		for (int k = 0; k < r; k++)
			v[k] = p[q[k]], v[r + k] = p[r + q[k]];
		return ir_node_set_ints(c->g, i, "pads", v, 2 * r);
	}
	case IR_OP_SLICE: {
		const int64_t *s;
		int ns = ir_node_ints(c->g, i, "starts", &s);
		if (ns > 0 && !ir_node_attr(c->g, i, "axes")) {
			int64_t ax[IR_MAX_RANK];
			for (int k = 0; k < ns && k < IR_MAX_RANK; k++)
				ax[k] = k;
			if (ir_node_set_ints(c->g, i, "axes", ax, ns))
				return -1;
		}
		return remap_axis(c, i, "axes", r, qi);
	}
	default:
		return 0;
	}
}

/* The caller's side of graph input or output t stays in the model's
 * layout: a new tensor takes t's place (and mark) in the graph, and a
 * transpose joins the two. */
static int interface(lctx *c, int t, bool output)
{
	ir_graph *g = c->g;
	int r = c->orig[t].rank;
	int64_t q[IR_MAX_RANK], qi[IR_MAX_RANK];
	ir_layout_perm(r, c->to_cl, q);
	inverse(r, q, qi);
	ir_tensor *x = ir_graph_tensor(g, t);
	ir_shape s = x->shape;
	int n = new_tensor(c, t, ir_layout_name(x->layout), &s, x->layout);
	if (n < 0)
		return -1;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		ir_node *nd = ir_graph_node(g, i);
		for (int j = 0; j < nd->n_inputs; j++)
			if (nd->inputs[j] == t)
				nd->inputs[j] = n;
		if (output)
			for (int j = 0; j < nd->n_outputs; j++)
				if (nd->outputs[j] == t)
					nd->outputs[j] = n;
	}
	ir_graph_touch(g);	/* operands rewritten in place: the use-def cache is stale */
	x = ir_graph_tensor(g, t);
	x->shape = c->orig[t];
	x->layout = c->olay[t];
	c->mark[n] = true;
	c->orig[n] = c->orig[t];
	c->olay[n] = c->olay[t];
	c->back[n] = -1;
	c->mark[t] = false;
	c->lim = n + 1;
	return output ? add_transpose(c, x->name, n, t, qi, r) : add_transpose(c, ir_graph_tensor(g, n)->name, t, n, q, r);
}

static const ir_layout_io *find_io(const ir_layout_io *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* Check the io entries against g: names of inputs (outputs), rank 3 or 4.
 * Every bad entry goes to note; the first to d. */
static int check_io(const ir_graph *g, const ir_layout_io *v, int n, bool output, ir_pass_note note, void *user,
		    ir_diag *d)
{
	int bad = 0;
	for (int k = 0; k < n; k++) {
		int t = -1, cnt = output ? ir_graph_output_count(g) : ir_graph_input_count(g);
		for (int i = 0; i < cnt; i++) {
			int id = output ? ir_graph_output(g, i) : ir_graph_input(g, i);
			if (!strcmp(ir_graph_tensor(g, id)->name, v[k].name))
				t = id;
		}
		ir_diag e = {.node = -1, .tensor = -1};
		if (t < 0) {
			int id = ir_graph_find_tensor(g, v[k].name);
			ir_fail(&e, -1, -1, "%s layout '%s': '%s' is not a graph %s%s", output ? "output" : "input",
				v[k].name, v[k].name, output ? "output" : "input", id >= 0 ? " (it is an inner tensor)" : "");
		} else if (!spatial_rank(ir_graph_tensor(g, t)->shape.rank)) {
			ir_fail(&e, -1, t, "%s layout '%s': the %s has rank %d; NCX and NXC need rank 3 or 4",
				output ? "output" : "input", v[k].name, output ? "output" : "input",
				ir_graph_tensor(g, t)->shape.rank);
		} else {
			continue;
		}
		if (!bad++)
			*d = e;
		if (note)
			note(user, g, -1, e.msg);
	}
	if (bad > 1 && !note) {
		size_t l = strlen(d->msg);
		snprintf(d->msg + l, sizeof d->msg - l, " (and %d more)", bad - 1);
	}
	return bad ? -1 : 0;
}

int ir_graph_to_layout(ir_graph *g, const ir_layout_opts *o, ir_diag *d)
{
	if (o->to != IR_LAYOUT_NHWC && o->to != IR_LAYOUT_NCHW)
		return ir_fail(d, -1, -1, "the target layout must be nhwc or nchw");
	if (check_io(g, o->inputs, o->n_inputs, false, o->note, o->user, d) ||
	    check_io(g, o->outputs, o->n_outputs, true, o->note, o->user, d))
		return -1;
	lctx c = {.g = g, .o = o, .to_cl = o->to == IR_LAYOUT_NHWC, .nt0 = ir_graph_tensor_count(g), .d = d};
	c.lim = c.nt0;
	int nn0 = ir_graph_node_count(g), rc = -1;
	size_t nt = (size_t)c.nt0 + (size_t)ir_graph_input_count(g) + (size_t)ir_graph_output_count(g) + 1;
	c.mark = calloc(nt, sizeof *c.mark);
	c.orig = calloc(nt, sizeof *c.orig);
	c.olay = calloc(nt, sizeof *c.olay);
	c.back = malloc(nt * sizeof *c.back);
	if (!c.mark || !c.orig || !c.olay || !c.back) {
		ir_fail(d, -1, -1, "out of memory");
		goto out;
	}
	find_marks(&c);
	/* what the caller feeds and takes: the model's layout unless asked */
	int changed = 0;
	bool *want = calloc(nt, sizeof *want);	/* interface in the target layout, by tensor */
	if (!want) {
		ir_fail(d, -1, -1, "out of memory");
		goto out;
	}
	for (int pass = 0; pass < 2; pass++) {
		int cnt = pass ? ir_graph_output_count(g) : ir_graph_input_count(g);
		for (int i = 0; i < cnt; i++) {
			int t = pass ? ir_graph_output(g, i) : ir_graph_input(g, i);
			const ir_tensor *x = ir_graph_tensor(g, t);
			const ir_layout_io *e = pass ? find_io(o->outputs, o->n_outputs, x->name)
						     : find_io(o->inputs, o->n_inputs, x->name);
			if (!e)
				continue;
			bool in_target = c.to_cl ? is_cl(x->layout) : !is_cl(x->layout);
			if (e->channel_last == c.to_cl) {
				if (!in_target)
					mark(&c, t, &changed);
				want[t] = true;
			} else if (!c.mark[t] && in_target) {
				ir_fail(d, -1, t, "%s layout '%s': the model's %s is %s already; it cannot be %s %s",
					pass ? "output" : "input", e->name, pass ? "output" : "input",
					c.to_cl ? "channel-last" : "channel-first", pass ? "taken as" : "fed as",
					c.to_cl ? "ncx" : "nxc");
				free(want);
				goto out;
			}
		}
	}
	c.lim = c.nt0;
	for (int t = 0; t < c.nt0; t++) {
		ir_tensor *x = ir_graph_tensor(g, t);
		c.back[t] = -1;
		c.orig[t] = x->shape;
		c.olay[t] = x->layout;
		if (!c.mark[t])
			continue;
		int64_t q[IR_MAX_RANK];
		ir_layout_perm(x->shape.rank, c.to_cl, q);
		for (int k = 0; k < x->shape.rank; k++)
			x->shape.dim[k] = c.orig[t].dim[q[k]];
		x->layout = dst_layout(&c, x->shape.rank);
	}
	for (int pass = 0; pass < 2; pass++) {
		int cnt = pass ? ir_graph_output_count(g) : ir_graph_input_count(g);
		for (int i = 0; i < cnt; i++) {
			int t = pass ? ir_graph_output(g, i) : ir_graph_input(g, i);
			if (c.mark[t] && !want[t] && interface(&c, t, pass == 1)) {
				free(want);
				goto out;
			}
		}
	}
	free(want);
	/* the interface transposes were added after nn0: leave them */
	for (int i = 0; i < nn0; i++) {
		const ir_node *n = ir_graph_node(g, i);
		int r;
		if (n->op == IR_OP_TRANSPOSE)
			r = rewrite_transpose(&c, i);
		else if (reshape_like(n->op))
			r = rewrite_reshape(&c, i);
		else if (layout_aware(g, i) && marked(&c, n->inputs[0]) && marked(&c, n->outputs[0]))
			r = 0;
		else if (neutral(g, i) && (marked(&c, n->outputs[0]) || !n->n_outputs))
			r = rewrite_neutral(&c, i);
		else
			r = fallback(&c, i);
		if (r)
			goto out;
	}
	if (ir_graph_toposort(g, d) || ir_graph_infer_shapes(g, d))
		goto out;
	/* identity nodes out, transposes sunk, merged, cancelled */
	static const int passes[] = {IR_PASS_IDENTITY, IR_PASS_TRANSPOSE_SINK, IR_PASS_TRANSPOSE, IR_PASS_DCE};
	for (int round = 0, ch = 1; ch && round < 16; round++) {
		ch = 0;
		for (size_t k = 0; k < sizeof passes / sizeof passes[0]; k++) {
			ir_pass_report rep = {0};
			if (ir_pass_run(g, passes[k], &rep, d))
				goto out;
			ch += rep.changed;
		}
	}
	if (ir_meta_set_str(g, "layout.to", ir_layout_name(o->to)))
		goto out;
	rc = ir_graph_verify(g, d);
out:
	free(c.mark);
	free(c.orig);
	free(c.olay);
	free(c.back);
	return rc;
}
