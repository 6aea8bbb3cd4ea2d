/* ir_exec.c - the reference interpreter: buffers, node loop, threads, fp16
 * emulation, per-tensor hook and per-node timing.
 *
 * Activations whose lifetimes do not overlap share buffers (see
 * plan_slabs); graph inputs, outputs and constants have their own. Nodes
 * run in graph order (the graph is
 * verified, hence topologically sorted); each is dispatched through the
 * kern column of ir_ops.def.
 *
 * fp16 emulation (IR_MODE_F16) models an fp16 NPU: f32 constants and graph
 * inputs are rounded to IEEE half once, kernels compute in f32, and every
 * f32 op output is rounded to half (round to nearest even, subnormals,
 * inf/NaN: share/npu/runtime/npu_half.h, the code the emitted runtime uses).
 * ir_exec_f16_overflows counts finite values that became +-inf when rounded:
 * op outputs and graph inputs of the last run plus constants (counted once
 * at creation and included in every run's total, since every run uses them).
 *
 * In f32 mode without a hook, an activation node (relu, clip, sigmoid, ...)
 * whose input is used by nothing else is computed by the kernel producing
 * that input, which writes the activation's output directly (one pass less
 * over memory, bit-identical results); the intermediate tensor is then not
 * materialised and the activation's node time is 0. */
#include "ir_kern.h"
#include "../share/npu/runtime/npu_half.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- thread pool */

typedef struct {
	int n;			/* threads including the caller */
	pthread_t *th;
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	unsigned gen;
	int busy;
	bool quit;
	void (*fn)(void *, int, int);
	void *arg;
	int ntasks;
	atomic_int next;
} pool;

typedef struct {
	pool *p;
	int idx;
} worker_arg;

static void pool_work(pool *p, int idx)
{
	for (int t; (t = atomic_fetch_add(&p->next, 1)) < p->ntasks;)
		p->fn(p->arg, t, idx);
}

static void *pool_main(void *v)
{
	worker_arg *w = v;
	pool *p = w->p;
	unsigned seen = 0;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->gen == seen && !p->quit)
			pthread_cond_wait(&p->go, &p->mu);
		if (p->quit)
			break;
		seen = p->gen;
		pthread_mutex_unlock(&p->mu);
		pool_work(p, w->idx);
		pthread_mutex_lock(&p->mu);
		if (--p->busy == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void pool_free(pool *p, worker_arg *args, int started)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < started; i++)
		pthread_join(p->th[i], NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
	free(p->th);
	free(args);
	free(p);
}

/* ---------------------------------------------------------------- executor */

typedef struct {
	ir_kernel fn;
	const ir_tensor **it, **ot;
	const void **in;
	void **out;
	void *state;
	/* Fusion of a following activation node (f32 runs without a hook). */
	int fuse_into;		/* the activation node whose output this node writes, or -1 */
	bool fused_away;	/* an activation computed by its producer */
	ir_act act;
	void **fused_out;
	struct cl_view *cl;	/* a channel-first kernel run on channel-last data */
} enode;

struct ir_exec {
	const ir_graph *g;
	ir_exec_mode mode;
	int threads;
	void **buf;		/* per tensor */
	bool *owned;
	enode *nodes;
	double *times;
	int64_t overflows, const_overflows;
	ir_tensor_hook hook;
	void *user;
	pool *pool;
	worker_arg *wargs;
	int started;
	void **slabs;		/* activation buffers (shared by tensors with disjoint lifetimes) */
	int n_slabs;
	void **scratch;		/* [threads][IR_SCRATCH_SLOTS] */
	size_t *scratch_size;
	/* a graph with precisions runs through the runtime (ir_lower.c) */
	ir_lowered *low;
	void *arena;
	void **io_in, **io_out;
};

void *ir_kalloc(size_t count, size_t size)
{
	if (size && count > (SIZE_MAX - 64) / size)
		return NULL;
	size_t n = (count * size + 63) & ~(size_t)63;
	return aligned_alloc(64, n ? n : 64);
}

int ir_kthreads(const ir_kctx *k) { return k->e->threads; }

void ir_kparallel(ir_kctx *k, int ntasks, void (*fn)(void *, int, int), void *arg)
{
	pool *p = k->e->pool;
	if (!p || ntasks <= 1) {
		for (int t = 0; t < ntasks; t++)
			fn(arg, t, 0);
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->arg = arg;
	p->ntasks = ntasks;
	atomic_store(&p->next, 0);
	p->busy = p->n - 1;
	p->gen++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	pool_work(p, 0);
	pthread_mutex_lock(&p->mu);
	while (p->busy)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void *ir_kscratch(ir_kctx *k, int thread, int slot, size_t nbytes)
{
	ir_exec *e = k->e;
	size_t i = (size_t)thread * IR_SCRATCH_SLOTS + (size_t)slot;
	if (e->scratch_size[i] < nbytes || !e->scratch[i]) {
		free(e->scratch[i]);
		e->scratch[i] = ir_kalloc(nbytes, 1);
		e->scratch_size[i] = e->scratch[i] ? nbytes : 0;
	}
	return e->scratch[i];
}

static const ir_kernel kernels[IR_OP_COUNT] = {
#define IR_OP(id, nm, a, b, c, dd, shape, macs, kern, attrs) [IR_OP_##id] = ir_kern_##kern,
#include "ir_ops.def"
#undef IR_OP
};

/* Round n floats to half precision in place; returns how many finite values
 * became infinite. */
static int64_t round_f16(float *x, int64_t n)
{
	int64_t over = 0;
	for (int64_t i = 0; i < n; i++) {
		float v = x[i];
		float r = npu_f16_to_f32(npu_f32_to_f16(v));
		over += isinf(r) && isfinite(v);
		x[i] = r;
	}
	return over;
}

static void kctx_init(ir_exec *e, int id, ir_kctx *k, ir_diag *d)
{
	const ir_node *n = ir_graph_node(e->g, id);
	enode *en = &e->nodes[id];
	*k = (ir_kctx){.g = e->g, .id = id, .n = n, .nin = n->n_inputs, .nout = n->n_outputs,
		       .it = en->it, .in = en->in, .ot = en->ot, .out = en->out,
		       .state = &en->state, .e = e, .d = d};
}

/* Activation buffers: tensors whose lifetimes do not overlap share a slab
 * (greedy in node order, best fit), which keeps the working set in cache.
 * A tensor lives from the node producing it (for a fused activation: from
 * its producer) to its last reader; graph outputs live for ever. A node's
 * outputs never share with its inputs. The hook sees every tensor right
 * after its node, before anything can reuse the slab. */
typedef struct {
	size_t size;
	bool busy;
} slab;

static int plan_slabs(ir_exec *e, int *slab_of, ir_diag *d)
{
	const ir_graph *g = e->g;
	int nt = ir_graph_tensor_count(g), nn = ir_graph_node_count(g), ns = 0, cap = 16;
	int *last = malloc(sizeof *last * ((size_t)nt + 1));
	slab *sl = malloc(sizeof *sl * (size_t)cap);
	if (!last || !sl) {
		free(last);
		free(sl);
		return ir_fail(d, -1, -1, "out of memory");
	}
	for (int t = 0; t < nt; t++) {
		last[t] = -1;
		slab_of[t] = -1;
	}
	for (int i = 0; i < nn; i++) {
		const ir_node *n = ir_graph_node(g, i);
		for (int j = 0; j < n->n_inputs; j++)
			if (n->inputs[j] >= 0)
				last[n->inputs[j]] = i;
	}
	for (int i = 0; i < ir_graph_output_count(g); i++)
		last[ir_graph_output(g, i)] = INT_MAX;
	int rc = 0;
	for (int i = 0; i < nn && !rc; i++) {
		const ir_node *n = ir_graph_node(g, i);
		/* This node's outputs, and those of the activation it computes. */
		for (int pass = 0; pass < 2 && !rc; pass++) {
			int a = pass ? e->nodes[i].fuse_into : i;
			const ir_node *m = a >= 0 ? ir_graph_node(g, a) : NULL;
			for (int j = 0; m && j < m->n_outputs; j++) {
				int t = m->outputs[j];
				if (slab_of[t] >= 0)
					continue;
				size_t need = ir_tensor_nbytes(ir_graph_tensor(g, t));
				int best = -1;
				for (int k = 0; k < ns; k++)
					if (!sl[k].busy && (best < 0 ||
							    (sl[k].size >= need ? sl[best].size < need || sl[k].size < sl[best].size
										: sl[best].size < need && sl[k].size > sl[best].size)))
						best = k;
				if (best < 0) {
					if (ns == cap) {
						slab *q = realloc(sl, sizeof *sl * (size_t)(cap *= 2));
						if (!q) {
							rc = ir_fail(d, -1, -1, "out of memory");
							break;
						}
						sl = q;
					}
					best = ns++;
					sl[best].size = 0;
				}
				if (sl[best].size < need)
					sl[best].size = need;
				sl[best].busy = true;
				slab_of[t] = best;
			}
		}
		for (int j = 0; j < n->n_inputs; j++) {
			int t = n->inputs[j];
			if (t >= 0 && slab_of[t] >= 0 && last[t] == i)
				sl[slab_of[t]].busy = false;
		}
		for (int j = 0; j < n->n_outputs; j++)
			if (last[n->outputs[j]] < 0 && slab_of[n->outputs[j]] >= 0)
				sl[slab_of[n->outputs[j]]].busy = false;	/* nobody reads it */
	}
	if (!rc) {
		e->slabs = calloc((size_t)ns + 1, sizeof *e->slabs);
		e->n_slabs = e->slabs ? ns : 0;
		for (int k = 0; k < e->n_slabs && !rc; k++)
			if (!(e->slabs[k] = ir_kalloc(sl[k].size ? sl[k].size : 1, 1)))
				rc = ir_fail(d, -1, -1, "out of memory for activations (%zu bytes)", sl[k].size);
		if (!e->slabs)
			rc = ir_fail(d, -1, -1, "out of memory");
	}
	free(last);
	free(sl);
	return rc;
}

/* Find producer -> activation pairs to fuse (see the top of the file). */
static int plan_fusion(ir_exec *e, ir_diag *d)
{
	const ir_graph *g = e->g;
	int nt = ir_graph_tensor_count(g), nn = ir_graph_node_count(g);
	int *uses = calloc((size_t)nt + 1, sizeof *uses), *prod = malloc(sizeof *prod * ((size_t)nt + 1));
	if (!uses || !prod) {
		free(uses);
		free(prod);
		return ir_fail(d, -1, -1, "out of memory");
	}
	for (int t = 0; t < nt; t++)
		prod[t] = -1;
	for (int i = 0; i < nn; i++) {
		const ir_node *n = ir_graph_node(g, i);
		e->nodes[i].fuse_into = -1;
		for (int j = 0; j < n->n_inputs; j++)
			if (n->inputs[j] >= 0)
				uses[n->inputs[j]]++;
		for (int j = 0; j < n->n_outputs; j++)
			prod[n->outputs[j]] = i;
	}
	for (int i = 0; i < ir_graph_output_count(g); i++)
		uses[ir_graph_output(g, i)] += 2;
	for (int a = 0; a < nn; a++) {
		const ir_node *n = ir_graph_node(g, a);
		ir_act act, own;
		if (ir_act_from_unary_node(g, a, &act))
			continue;
		int t = n->inputs[0], p = prod[t];
		if (p < 0 || uses[t] != 1 || e->nodes[p].fuse_into >= 0 || e->nodes[p].fused_away)
			continue;
		const ir_node *pn = ir_graph_node(g, p);
		if (pn->n_outputs != 1 || !strstr(ir_op_attr_spec(pn->op), "act=s") ||
		    ir_graph_tensor(g, t)->dtype != IR_DTYPE_F32)
			continue;
		ir_diag tmp;
		if (ir_act_from_node(g, p, &own, &tmp) || !ir_act_is_identity(&own))
			continue;
		e->nodes[p].fused_out = calloc(1, sizeof(void *));
		if (!e->nodes[p].fused_out)
			break;
		e->nodes[p].fuse_into = a;
		e->nodes[p].act = act;
		e->nodes[a].fused_away = true;
	}
	free(uses);
	free(prod);
	return 0;
}

/* Channel-last (NHWC, NLC) input to an op whose reference kernel is
 * channel-first only: the kernel runs on channel-first copies of input 0
 * and output 0 (the same values in another order, so results equal the
 * channel-first graph's exactly). The runtime has its own channel-last
 * kernels (npu_rt.c); this is the reference interpreter's way. */
typedef struct cl_view {
	ir_kernel fn;
	ir_tensor xt, yt;	/* channel-first views of input 0 and output 0 */
	const ir_tensor **it, **ot;
	const void **in;
	void **out;
	void *xbuf, *ybuf;
} cl_view;

static bool cf_kernel_only(int op)
{
	switch (op) {
	case IR_OP_CONV: case IR_OP_CONV_TRANSPOSE: case IR_OP_INSTANCE_NORM:
	case IR_OP_MAX_POOL: case IR_OP_AVG_POOL: case IR_OP_GLOBAL_AVG_POOL: case IR_OP_GLOBAL_MAX_POOL:
	case IR_OP_DEPTH_TO_SPACE: case IR_OP_SPACE_TO_DEPTH:
		return true;
	default:
		return false;
	}
}

/* [N, S..., C] <-> [N, C, S...] (to_cf: from channel-last) */
static void cl_move(void *dst, const void *src, const ir_shape *cf, size_t es, bool to_cf)
{
	int64_t N = cf->dim[0], C = cf->dim[1], S = 1;
	for (int i = 2; i < cf->rank; i++)
		S *= cf->dim[i];
	char *d = dst;
	const char *s = src;
	for (int64_t n = 0; n < N; n++)
		for (int64_t c = 0; c < C; c++)
			for (int64_t k = 0; k < S; k++) {
				size_t f = (size_t)((n * C + c) * S + k), l = (size_t)((n * S + k) * C + c);
				memcpy(d + (to_cf ? f : l) * es, s + (to_cf ? l : f) * es, es);
			}
}

static void cl_view_of(const ir_tensor *t, ir_tensor *v)
{
	*v = *t;
	int r = t->shape.rank;
	v->shape.dim[1] = t->shape.dim[r - 1];
	for (int i = 2; i < r; i++)
		v->shape.dim[i] = t->shape.dim[i - 1];
	v->layout = r == 4 ? IR_LAYOUT_NCHW : IR_LAYOUT_NCL;
}

static int cl_kernel(ir_kctx *k)
{
	cl_view *w = k->e->nodes[k->id].cl;
	ir_kctx k2 = *k;
	k2.it = w->it, k2.ot = w->ot, k2.in = w->in, k2.out = w->out;
	for (int j = 0; j < k->nin; j++)
		w->in[j] = k->in[j];
	for (int j = 0; j < k->nout; j++)
		w->out[j] = k->out[j];
	if (k->prepare)
		return w->fn(&k2);
	w->in[0] = w->xbuf;
	w->out[0] = w->ybuf;
	cl_move(w->xbuf, k->in[0], &w->xt.shape, ir_dtype_size(w->xt.dtype), true);
	if (w->fn(&k2))
		return -1;
	cl_move(k->out[0], w->ybuf, &w->yt.shape, ir_dtype_size(w->yt.dtype), false);
	return 0;
}

static void cl_view_free(cl_view *w)
{
	if (!w)
		return;
	free(w->it), free(w->ot), free(w->in), free(w->out), free(w->xbuf), free(w->ybuf);
	free(w);
}

static int cl_view_make(ir_exec *e, int i, ir_diag *d)
{
	const ir_node *n = ir_graph_node(e->g, i);
	enode *en = &e->nodes[i];
	if (!cf_kernel_only(n->op) || n->n_inputs < 1 || n->inputs[0] < 0 || n->n_outputs < 1)
		return 0;
	const ir_tensor *x = ir_graph_tensor(e->g, n->inputs[0]), *y = ir_graph_tensor(e->g, n->outputs[0]);
	if ((x->layout != IR_LAYOUT_NHWC && x->layout != IR_LAYOUT_NLC) || x->shape.rank < 3 ||
	    y->shape.rank != x->shape.rank)
		return 0;
	cl_view *w = calloc(1, sizeof *w);
	if (!w)
		return ir_fail(d, -1, -1, "out of memory");
	en->cl = w;
	w->fn = en->fn;
	cl_view_of(x, &w->xt);
	cl_view_of(y, &w->yt);
	size_t ni = (size_t)n->n_inputs + 1, no = (size_t)n->n_outputs + 1;
	w->it = calloc(ni, sizeof *w->it), w->in = calloc(ni, sizeof *w->in);
	w->ot = calloc(no, sizeof *w->ot), w->out = calloc(no, sizeof *w->out);
	w->xbuf = malloc(ir_tensor_nbytes(x) + 1), w->ybuf = malloc(ir_tensor_nbytes(y) + 1);
	if (!w->it || !w->in || !w->ot || !w->out || !w->xbuf || !w->ybuf)
		return ir_fail(d, -1, -1, "out of memory");
	for (int j = 0; j < n->n_inputs; j++)
		w->it[j] = en->it[j];
	for (int j = 0; j < n->n_outputs; j++)
		w->ot[j] = en->ot[j];
	w->it[0] = &w->xt;
	w->ot[0] = &w->yt;
	en->fn = cl_kernel;
	return 0;
}

static int setup(ir_exec *e, ir_diag *d)
{
	const ir_graph *g = e->g;
	int nt = ir_graph_tensor_count(g), nn = ir_graph_node_count(g);
	e->buf = calloc((size_t)nt + 1, sizeof *e->buf);
	e->owned = calloc((size_t)nt + 1, sizeof *e->owned);
	e->nodes = calloc((size_t)nn + 1, sizeof *e->nodes);
	e->times = calloc((size_t)nn + 1, sizeof *e->times);
	size_t ns = (size_t)e->threads * IR_SCRATCH_SLOTS;
	e->scratch = calloc(ns, sizeof *e->scratch);
	e->scratch_size = calloc(ns, sizeof *e->scratch_size);
	int *slab_of = malloc(sizeof *slab_of * ((size_t)nt + 1));
	if (!e->buf || !e->owned || !e->nodes || !e->times || !e->scratch || !e->scratch_size || !slab_of) {
		free(slab_of);
		return ir_fail(d, -1, -1, "out of memory");
	}
	for (int i = 0; i < nn; i++)
		e->nodes[i].fuse_into = -1;
	if ((e->mode == IR_MODE_F32 && plan_fusion(e, d)) || plan_slabs(e, slab_of, d)) {
		free(slab_of);
		return -1;
	}
	for (int t = 0; t < nt; t++) {
		const ir_tensor *x = ir_graph_tensor(g, t);
		size_t nb = ir_tensor_nbytes(x);
		if (slab_of[t] >= 0) {
			e->buf[t] = e->slabs[slab_of[t]];
			continue;
		}
		if (x->kind == IR_KIND_CONST && !(e->mode == IR_MODE_F16 && x->dtype == IR_DTYPE_F32)) {
			e->buf[t] = x->data;
			continue;
		}
		e->buf[t] = ir_kalloc(nb ? nb : 1, 1);
		if (!e->buf[t]) {
			free(slab_of);
			return ir_fail(d, -1, t, "out of memory for tensor '%s' (%zu bytes)", x->name, nb);
		}
		e->owned[t] = true;
		if (x->kind == IR_KIND_CONST) {
			memcpy(e->buf[t], x->data, nb);
			e->const_overflows += round_f16(e->buf[t], (int64_t)(nb / sizeof(float)));
		} else {
			memset(e->buf[t], 0, nb);
		}
	}
	free(slab_of);
	for (int i = 0; i < nn; i++) {
		const ir_node *n = ir_graph_node(g, i);
		enode *en = &e->nodes[i];
		size_t ni = (size_t)n->n_inputs + 1, no = (size_t)n->n_outputs + 1;
		en->fn = kernels[n->op];
		en->it = calloc(ni, sizeof *en->it);
		en->in = calloc(ni, sizeof *en->in);
		en->ot = calloc(no, sizeof *en->ot);
		en->out = calloc(no, sizeof *en->out);
		if (!en->it || !en->in || !en->ot || !en->out)
			return ir_fail(d, -1, -1, "out of memory");
		for (int j = 0; j < n->n_inputs; j++)
			if (n->inputs[j] >= 0) {
				en->it[j] = ir_graph_tensor(g, n->inputs[j]);
				en->in[j] = e->buf[n->inputs[j]];
			}
		for (int j = 0; j < n->n_outputs; j++) {
			en->ot[j] = ir_graph_tensor(g, n->outputs[j]);
			en->out[j] = e->buf[n->outputs[j]];
		}
		if (en->fuse_into >= 0)
			en->fused_out[0] = e->buf[ir_graph_node(g, en->fuse_into)->outputs[0]];
		if (cl_view_make(e, i, d))
			return -1;
	}
	return 0;
}

static int start_pool(ir_exec *e, ir_diag *d)
{
	if (e->threads <= 1)
		return 0;
	pool *p = calloc(1, sizeof *p);
	e->wargs = calloc((size_t)e->threads, sizeof *e->wargs);
	if (!p || !e->wargs) {
		free(p);
		return ir_fail(d, -1, -1, "out of memory");
	}
	e->pool = p;
	p->n = e->threads;
	p->th = calloc((size_t)e->threads, sizeof *p->th);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	if (!p->th)
		return ir_fail(d, -1, -1, "out of memory");
	for (int i = 1; i < e->threads; i++) {
		e->wargs[i] = (worker_arg){p, i};
		if (pthread_create(&p->th[e->started], NULL, pool_main, &e->wargs[i]))
			return ir_fail(d, -1, -1, "cannot start thread %d of %d", i + 1, e->threads);
		e->started++;
	}
	return 0;
}

/* ---------------------------------------------------------------- runtime execution */

static int lowered_new(ir_exec *e, ir_diag *d)
{
	const ir_graph *g = e->g;
	e->low = calloc(1, sizeof *e->low);
	e->times = calloc((size_t)ir_graph_node_count(g) + 1, sizeof *e->times);
	if (!e->low || !e->times)
		return ir_fail(d, -1, -1, "out of memory");
	if (ir_lower(g, e->low, NULL, NULL, d)) {
		free(e->low);
		e->low = NULL;
		return -1;
	}
	const npu_model *m = &e->low->m;
	e->arena = ir_kalloc(m->arena_size ? m->arena_size : 1, 1);
	e->io_in = calloc((size_t)m->n_inputs + 1, sizeof *e->io_in);
	e->io_out = calloc((size_t)m->n_outputs + 1, sizeof *e->io_out);
	if (!e->arena || !e->io_in || !e->io_out)
		return ir_fail(d, -1, -1, "out of memory");
	for (uint32_t i = 0; i < m->n_inputs; i++)
		if (!(e->io_in[i] = ir_kalloc(m->inputs[i].nbytes, 1)))
			return ir_fail(d, -1, -1, "out of memory");
	for (uint32_t i = 0; i < m->n_outputs; i++)
		if (!(e->io_out[i] = ir_kalloc(m->outputs[i].nbytes, 1)))
			return ir_fail(d, -1, -1, "out of memory");
	return 0;
}

static void lowered_free(ir_exec *e)
{
	if (e->io_in)
		for (uint32_t i = 0; i < e->low->m.n_inputs; i++)
			free(e->io_in[i]);
	if (e->io_out)
		for (uint32_t i = 0; i < e->low->m.n_outputs; i++)
			free(e->io_out[i]);
	free(e->io_in);
	free(e->io_out);
	free(e->arena);
	ir_lowered_free(e->low);
	free(e->low);
	free(e->times);
	free(e);
}

/* Where runtime tensor r is during a run. */
static void *lowered_ptr(const ir_exec *e, int r)
{
	const npu_tensor *t = &e->low->m.tensors[r];
	switch (t->mem) {
	case NPU_MEM_ARENA: return (uint8_t *)e->arena + t->offset;
	case NPU_MEM_INPUT: return e->io_in[t->offset];
	case NPU_MEM_OUTPUT: return e->io_out[t->offset];
	default: return (void *)(e->low->m.weights + t->offset);
	}
}

static double now(void);

static int lowered_run(ir_exec *e, ir_diag *d)
{
	const ir_graph *g = e->g;
	const npu_model *m = &e->low->m;
	uint32_t op = 0;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		double t0 = now();
		for (; op < m->n_ops && e->low->op_node[op] == i; op++)
			npu_exec_op(m, op, (const void *const *)e->io_in, e->io_out, e->arena);
		e->times[i] = now() - t0;
		const ir_node *n = ir_graph_node(g, i);
		if (e->hook)
			for (int j = 0; j < n->n_outputs; j++) {
				int t = n->outputs[j];
				if (t >= 0 && e->low->rt_of[t] >= 0 &&
				    e->hook(e->user, g, i, t, lowered_ptr(e, e->low->rt_of[t])))
					return ir_fail(d, i, t, "run stopped by the tensor hook");
			}
	}
	return 0;
}

ir_exec *ir_exec_new(const ir_graph *g, ir_exec_mode mode, int threads, ir_diag *d)
{
	if (mode != IR_MODE_F32 && mode != IR_MODE_F16) {
		ir_fail(d, -1, -1, "unknown execution mode %d", (int)mode);
		return NULL;
	}
	if (ir_graph_verify(g, d))
		return NULL;
	ir_exec *e = calloc(1, sizeof *e);
	if (!e) {
		ir_fail(d, -1, -1, "out of memory");
		return NULL;
	}
	e->g = g;
	e->mode = mode;
	e->threads = threads < 1 ? 1 : threads > 256 ? 256 : threads;
	if (ir_graph_is_lowered(g)) {
		if (lowered_new(e, d))
			goto fail;
		return e;
	}
	if (setup(e, d))
		goto fail;
	/* Prepare every node; report the first failure and how many more. */
	int bad = 0;
	ir_diag first = {.node = -1, .tensor = -1}, tmp;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		ir_kctx k;
		kctx_init(e, i, &k, &tmp);
		k.prepare = true;
		tmp = (ir_diag){.node = i, .tensor = -1};
		if (e->nodes[i].fn(&k)) {
			if (!bad++)
				first = tmp;
		}
	}
	if (bad) {
		*d = first;
		if (bad > 1) {
			size_t l = strlen(d->msg);
			snprintf(d->msg + l, sizeof d->msg - l, " (and %d more node%s fail)", bad - 1, bad > 2 ? "s" : "");
		}
		goto fail;
	}
	if (start_pool(e, d))
		goto fail;
	return e;
fail:
	ir_exec_free(e);
	return NULL;
}

void ir_exec_free(ir_exec *e)
{
	if (!e)
		return;
	if (e->low) {
		lowered_free(e);
		return;
	}
	pool_free(e->pool, e->wargs, e->started);
	int nt = ir_graph_tensor_count(e->g), nn = ir_graph_node_count(e->g);
	if (e->buf)
		for (int t = 0; t < nt; t++)
			if (e->owned[t])
				free(e->buf[t]);
	if (e->nodes)
		for (int i = 0; i < nn; i++) {
			enode *en = &e->nodes[i];
			free(en->it);
			free(en->in);
			free(en->ot);
			free(en->out);
			free(en->state);
			free(en->fused_out);
			cl_view_free(en->cl);
		}
	if (e->scratch)
		for (size_t i = 0; i < (size_t)e->threads * IR_SCRATCH_SLOTS; i++)
			free(e->scratch[i]);
	for (int k = 0; k < e->n_slabs; k++)
		free(e->slabs[k]);
	free(e->slabs);
	free(e->scratch);
	free(e->scratch_size);
	free(e->buf);
	free(e->owned);
	free(e->nodes);
	free(e->times);
	free(e);
}

void ir_exec_set_hook(ir_exec *e, ir_tensor_hook hook, void *user)
{
	e->hook = hook;
	e->user = user;
}

int ir_exec_set_input(ir_exec *e, int i, const void *data, size_t nbytes, ir_diag *d)
{
	int t = ir_graph_input(e->g, i);
	if (t < 0)
		return ir_fail(d, -1, -1, "graph has no input %d (it has %d)", i, ir_graph_input_count(e->g));
	const ir_tensor *x = ir_graph_tensor(e->g, t);
	size_t want = ir_tensor_nbytes(x);
	if (nbytes != want)
		return ir_fail(d, -1, t, "input '%s' needs %zu bytes, got %zu", x->name, want, nbytes);
	if (nbytes)
		memcpy(e->low ? e->io_in[i] : e->buf[t], data, nbytes);
	return 0;
}

int ir_exec_set_input_f32(ir_exec *e, int i, const float *x, int64_t n, ir_diag *d)
{
	int t = ir_graph_input(e->g, i);
	if (t < 0)
		return ir_fail(d, -1, -1, "graph has no input %d (it has %d)", i, ir_graph_input_count(e->g));
	const ir_tensor *tt = ir_graph_tensor(e->g, t);
	if (n != ir_shape_numel(&tt->shape))
		return ir_fail(d, -1, t, "input '%s' needs %lld values, got %lld", tt->name,
			       (long long)ir_shape_numel(&tt->shape), (long long)n);
	if (tt->dtype == IR_DTYPE_F32)
		return ir_exec_set_input(e, i, x, (size_t)n * sizeof *x, d);
	size_t es = ir_dtype_size(tt->dtype);
	uint8_t *buf = malloc(es * (size_t)(n > 0 ? n : 1));
	if (!buf)
		return ir_fail(d, -1, t, "out of memory");
	const ir_quant *q = tt->quant;
	for (int64_t k = 0; k < n; k++) {
		switch (tt->dtype) {
		case IR_DTYPE_F16: { uint16_t h = npu_f32_to_f16(x[k]); memcpy(buf + 2 * k, &h, 2); break; }
		case IR_DTYPE_BF16: { uint16_t h = npu_f32_to_bf16(x[k]); memcpy(buf + 2 * k, &h, 2); break; }
		case IR_DTYPE_I8: case IR_DTYPE_I16: case IR_DTYPE_U8: {
			if (!q || q->n != 1) {
				free(buf);
				return ir_fail(d, -1, t, "input '%s' is %s without a per-tensor scale: give it as such",
					       tt->name, ir_dtype_name(tt->dtype));
			}
			int64_t lo = tt->dtype == IR_DTYPE_I8 ? INT8_MIN : tt->dtype == IR_DTYPE_I16 ? INT16_MIN : 0;
			int64_t hi = tt->dtype == IR_DTYPE_I8 ? INT8_MAX : tt->dtype == IR_DTYPE_I16 ? INT16_MAX : UINT8_MAX;
			double r = nearbyintf(x[k] / q->scale[0]) + (double)q->zero_point[0];
			int64_t v = r != r ? q->zero_point[0] : r < lo ? lo : r > hi ? hi : (int64_t)r;
			if (tt->dtype == IR_DTYPE_I16) {
				int16_t h = (int16_t)v;
				memcpy(buf + 2 * k, &h, 2);
			} else {
				buf[k] = (uint8_t)(tt->dtype == IR_DTYPE_I8 ? (uint8_t)(int8_t)v : (uint8_t)v);
			}
			break;
		}
		default:
			free(buf);
			return ir_fail(d, -1, t, "input '%s' is %s, not a float or quantized type", tt->name,
				       ir_dtype_name(tt->dtype));
		}
	}
	int rc = ir_exec_set_input(e, i, buf, es * (size_t)n, d);
	free(buf);
	return rc;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int64_t f32_count(const ir_tensor *x) { return (int64_t)(ir_tensor_nbytes(x) / sizeof(float)); }

int ir_exec_run(ir_exec *e, ir_diag *d)
{
	const ir_graph *g = e->g;
	if (e->low)
		return lowered_run(e, d);
	bool f16 = e->mode == IR_MODE_F16;
	e->overflows = e->const_overflows;
	for (int i = 0; i < ir_graph_node_count(g); i++)
		e->times[i] = 0;
	if (f16)
		for (int i = 0; i < ir_graph_input_count(g); i++) {
			int t = ir_graph_input(g, i);
			const ir_tensor *x = ir_graph_tensor(g, t);
			if (x->dtype == IR_DTYPE_F32)
				e->overflows += round_f16(e->buf[t], f32_count(x));
		}
	bool fuse = !f16 && !e->hook;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		enode *en = &e->nodes[i];
		if (fuse && en->fused_away)
			continue;
		ir_kctx k;
		kctx_init(e, i, &k, d);
		if (fuse && en->fuse_into >= 0) {
			k.out = en->fused_out;
			k.act = &en->act;
		}
		double t0 = now();
		if (e->nodes[i].fn(&k)) {
			if (d->node < 0)
				d->node = i;
			return -1;
		}
		if (f16)
			for (int j = 0; j < n->n_outputs; j++) {
				const ir_tensor *x = e->nodes[i].ot[j];
				if (x->dtype == IR_DTYPE_F32)
					e->overflows += round_f16(e->nodes[i].out[j], f32_count(x));
			}
		e->times[i] = now() - t0;
		if (e->hook)
			for (int j = 0; j < n->n_outputs; j++)
				if (e->hook(e->user, g, i, n->outputs[j], e->nodes[i].out[j]))
					return ir_fail(d, i, n->outputs[j], "run stopped by the tensor hook");
	}
	return 0;
}

const void *ir_exec_output(const ir_exec *e, int i, size_t *nbytes)
{
	int t = ir_graph_output(e->g, i);
	if (t < 0) {
		if (nbytes)
			*nbytes = 0;
		return NULL;
	}
	if (nbytes)
		*nbytes = ir_tensor_nbytes(ir_graph_tensor(e->g, t));
	return e->low ? e->io_out[i] : e->buf[t];
}

const double *ir_exec_node_times(const ir_exec *e) { return e->times; }

int64_t ir_exec_f16_overflows(const ir_exec *e) { return e->overflows; }
