/* ir_custom.c - the IR op `custom`: an op plugin's shape function and
 * kernels (npu-plugin(7), share/npu/plugin.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ir_kern.h"
#include "ir_plugin.h"

_Static_assert(NPU_CU_COUNT == NPU_CU_WORDS + NPU_PK_WORDS, "the runtime's CUSTOM words are the plugin's");
_Static_assert(NPU_PK_MAX_TENSORS + 0 <= NPU_MAX_ARGS, "a CUSTOM op's tensors are its arguments");

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* Plugins load once per process, on the first custom op met. */
static void scan(void)
{
	pthread_mutex_lock(&mu);
	ir_plugin_scan(NULL);
	pthread_mutex_unlock(&mu);
}

const ir_plugin *ir_plugin_find_op(const char *domain, const char *op_type)
{
	scan();
	for (size_t i = 0; i < ir_plugin_count(); i++) {
		const ir_plugin *p = ir_plugin_at(i);
		const npu_plugin_op *op = p->desc->impl;
		if (!p->shadowed && p->desc->kind == NPU_PLUGIN_OP && op->op_type &&
		    !strcmp(op->domain ? op->domain : "", domain ? domain : "") && !strcmp(op->op_type, op_type))
			return p;
	}
	return NULL;
}

const npu_plugin_op *ir_custom_op(const ir_graph *g, int node, const ir_plugin **pl, ir_diag *d)
{
	const char *type = ir_node_str(g, node, "type", NULL);
	if (!type || !*type)
		return ir_fail(d, node, -1, "custom op without a 'type' (the op plugin's name)"), NULL;
	scan();
	const ir_plugin *p = ir_plugin_find(NPU_PLUGIN_OP, type);
	if (!p)
		return ir_fail(d, node, -1, "op plugin '%s' not found (searched $NPU_PLUGIN_PATH, then ./plugin/)",
			       type), NULL;
	const npu_plugin_op *op = p->desc->impl;
	if (!op->shape || !op->run_f32 || op->n_outputs < 1 || op->min_inputs < 0 ||
	    op->max_inputs < op->min_inputs || op->max_inputs + op->n_outputs > NPU_PK_MAX_TENSORS ||
	    (op->quant != NPU_PQ_FLOAT && op->quant != NPU_PQ_SAME_SCALE) ||
	    (op->quant == NPU_PQ_SAME_SCALE && !op->run_i8))
		return ir_fail(d, node, -1, "op plugin '%s' (%s) is incomplete: shape, run_f32, counts or quant rule",
			       type, p->path), NULL;
	if (pl)
		*pl = p;
	return op;
}

/* The node's attributes but `type`, as the plugin sees them (attr[n],
 * pointing into the graph). */
static int plugin_attrs(const ir_graph *g, int node, npu_plugin_attr **out, ir_diag *d)
{
	const ir_node *n = ir_graph_node(g, node);
	npu_plugin_attr *a = calloc((size_t)n->n_attrs + 1, sizeof *a);
	if (!a)
		return ir_fail(d, node, -1, "out of memory");
	static const int type[] = {[IR_ATTR_INT] = NPU_PA_INT, [IR_ATTR_FLOAT] = NPU_PA_FLOAT,
				   [IR_ATTR_STR] = NPU_PA_STRING, [IR_ATTR_INTS] = NPU_PA_INTS,
				   [IR_ATTR_FLOATS] = NPU_PA_FLOATS};
	int k = 0;
	for (int i = 0; i < n->n_attrs; i++) {
		const ir_attr *x = &n->attrs[i];
		if (!strcmp(x->name, "type"))
			continue;
		a[k++] = (npu_plugin_attr){x->name, type[x->type], x->i, x->f, x->s, x->n, x->ints, x->floats};
	}
	*out = a;
	return k;
}

static void tensor_dims(npu_plugin_tensor *t, const ir_shape *s)
{
	*t = (npu_plugin_tensor){.dtype = NPU_PT_F32, .ndim = s->rank};
	for (int j = 0; j < s->rank && j < NPU_PLUGIN_MAX_DIMS; j++)
		t->dims[j] = s->dim[j];
}

/* The node's inputs as plugin tensors (dims only). */
static int plugin_inputs(const ir_graph *g, int node, const npu_plugin_op *op, const ir_tensor *const *in,
			 int nin, npu_plugin_tensor *t, ir_diag *d)
{
	const ir_node *n = ir_graph_node(g, node);
	const char *type = ir_node_str(g, node, "type", "");
	if (nin < op->min_inputs || nin > op->max_inputs)
		return ir_fail(d, node, -1, "op plugin '%s' takes %d to %d inputs, not %d", type, op->min_inputs,
			       op->max_inputs, nin);
	if (n->n_outputs != op->n_outputs)
		return ir_fail(d, node, -1, "op plugin '%s' gives %d outputs, not %d", type, op->n_outputs,
			       n->n_outputs);
	for (int i = 0; i < nin; i++) {
		if (!in[i])
			return ir_fail(d, node, -1, "op plugin '%s': input %d is missing", type, i);
		if (in[i]->dtype != IR_DTYPE_F32)
			return ir_fail(d, node, -1, "op plugin '%s' takes float32 inputs, input %d is %s", type, i,
				       ir_dtype_name(in[i]->dtype));
		if (in[i]->shape.rank > NPU_PLUGIN_MAX_DIMS)
			return ir_fail(d, node, -1, "op plugin '%s': input %d has more than %d dimensions", type, i,
				       NPU_PLUGIN_MAX_DIMS);
		tensor_dims(&t[i], &in[i]->shape);
	}
	return 0;
}

int ir_custom_infer(const ir_graph *g, int node, const ir_tensor *const *in, int nin, ir_dtype *dt,
		    ir_shape *sh, ir_diag *d)
{
	const ir_plugin *pl;
	const npu_plugin_op *op = ir_custom_op(g, node, &pl, d);
	npu_plugin_tensor tin[NPU_PK_MAX_TENSORS], tout[NPU_PK_MAX_TENSORS];
	if (!op || plugin_inputs(g, node, op, in, nin, tin, d))
		return -1;
	npu_plugin_attr *attr;
	int na = plugin_attrs(g, node, &attr, d);
	if (na < 0)
		return -1;
	memset(tout, 0, sizeof tout);
	char err[256] = "";
	int rc = op->shape(attr, na, tin, nin, tout, op->n_outputs, err, sizeof err);
	free(attr);
	if (rc) {
		err[sizeof err - 1] = 0;
		return ir_fail(d, node, -1, "op plugin '%s': %s", pl->desc->name, *err ? err : "shape function failed");
	}
	for (int k = 0; k < op->n_outputs; k++) {
		if (tout[k].ndim < 0 || tout[k].ndim > NPU_PLUGIN_MAX_DIMS || tout[k].ndim > IR_MAX_RANK)
			return ir_fail(d, node, -1, "op plugin '%s' gave output %d a bad rank %d", pl->desc->name, k,
				       tout[k].ndim);
		sh[k] = (ir_shape){.rank = tout[k].ndim};
		for (int j = 0; j < tout[k].ndim; j++) {
			if (tout[k].dims[j] < 0 || tout[k].dims[j] > INT32_MAX)
				return ir_fail(d, node, -1, "op plugin '%s' gave output %d a bad dimension", pl->desc->name,
					       k);
			sh[k].dim[j] = tout[k].dims[j];
		}
		dt[k] = IR_DTYPE_F32;
	}
	return 0;
}

int ir_custom_words(const ir_graph *g, int node, bool i8, int32_t *p, ir_diag *d)
{
	const ir_plugin *pl;
	const npu_plugin_op *op = ir_custom_op(g, node, &pl, d);
	if (!op)
		return -1;
	const ir_node *n = ir_graph_node(g, node);
	memset(p, 0, sizeof *p * NPU_PK_WORDS);
	if (n->n_inputs + n->n_outputs > NPU_PK_MAX_TENSORS)
		return ir_fail(d, node, -1, "op plugin '%s': more than %d tensors", pl->desc->name, NPU_PK_MAX_TENSORS);
	p[NPU_PK_NIN] = n->n_inputs;
	p[NPU_PK_NOUT] = n->n_outputs;
	if (i8) {
		const ir_tensor *x = ir_graph_tensor(g, n->inputs[0]);
		if (!x->quant || x->quant->n != 1)
			return ir_fail(d, node, -1, "op plugin '%s': input 0 has no per-tensor scale", pl->desc->name);
		float s = x->quant->scale[0];
		p[NPU_PK_ZP] = x->quant->zero_point[0];
		memcpy(&p[NPU_PK_SCALE], &s, 4);
	}
	npu_plugin_tensor tin[NPU_PK_MAX_TENSORS];
	for (int k = 0; k < n->n_inputs + n->n_outputs; k++) {
		int t = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
		if (t < 0)
			return ir_fail(d, node, -1, "op plugin '%s': input %d is missing", pl->desc->name, k);
		const ir_shape *s = &ir_graph_tensor(g, t)->shape;
		if (s->rank > NPU_PLUGIN_MAX_DIMS)
			return ir_fail(d, node, t, "op plugin '%s': too many dimensions", pl->desc->name);
		NPU_PK_RANK(p, k) = s->rank;
		for (int j = 0; j < s->rank; j++) {
			if (s->dim[j] > INT32_MAX)
				return ir_fail(d, node, t, "op plugin '%s': a dimension beyond int32", pl->desc->name);
			NPU_PK_DIM(p, k, j) = (int32_t)s->dim[j];
		}
		if (k < n->n_inputs)
			tensor_dims(&tin[k], s);
	}
	if (!op->params)
		return 0;
	npu_plugin_attr *attr;
	int na = plugin_attrs(g, node, &attr, d);
	if (na < 0)
		return -1;
	char err[256] = "";
	int32_t extra[NPU_PK_MAX_EXTRA] = {0};
	int ne = op->params(attr, na, tin, n->n_inputs, extra, err, sizeof err);
	free(attr);
	err[sizeof err - 1] = 0;
	if (ne < 0 || ne > NPU_PK_MAX_EXTRA)
		return ir_fail(d, node, -1, "op plugin '%s': %s", pl->desc->name, *err ? err : "params() failed");
	memcpy(NPU_PK_EXTRA(p), extra, sizeof extra);
	return 0;
}

/* ---------------------------------------------------------------- the runtime's CUSTOM kernels */

#define MAX_FNS 256
static struct {
	const ir_plugin *pl;
	bool i8;
} fns[MAX_FNS];
static int n_fns;

int ir_custom_fn_id(const ir_plugin *pl, bool i8)
{
	int id = -1;
	pthread_mutex_lock(&mu);
	for (int i = 0; i < n_fns && id < 0; i++)
		if (fns[i].pl == pl && fns[i].i8 == i8)
			id = i;
	if (id < 0 && n_fns < MAX_FNS) {
		fns[n_fns].pl = pl;
		fns[n_fns].i8 = i8;
		id = n_fns++;
	}
	pthread_mutex_unlock(&mu);
	return id;
}

const ir_plugin *ir_custom_fn_plugin(int id, bool *i8)
{
	pthread_mutex_lock(&mu);
	const ir_plugin *pl = id >= 0 && id < n_fns ? fns[id].pl : NULL;
	if (pl && i8)
		*i8 = fns[id].i8;
	pthread_mutex_unlock(&mu);
	return pl;
}

void ir_custom_call(uint32_t fn, const void *const in[], void *const out[], const int32_t *p)
{
	bool i8 = false;
	const ir_plugin *pl = ir_custom_fn_plugin((int)fn, &i8);
	if (!pl)
		return;
	const npu_plugin_op *op = pl->desc->impl;
	(i8 ? op->run_i8 : op->run_f32)(in, out, p);
}

/* ---------------------------------------------------------------- the interpreter's kernel (float) */

typedef struct {
	const npu_plugin_op *op;
	int32_t p[NPU_PK_WORDS];
} kstate;

int ir_kern_custom(ir_kctx *k)
{
	if (k->prepare) {
		for (int i = 0; i < k->nout; i++)
			if (k->ot[i]->dtype != IR_DTYPE_F32)
				return KFAIL(k, "op plugins compute float32, output %d is %s", i,
					     ir_dtype_name(k->ot[i]->dtype));
		kstate *s = malloc(sizeof *s);
		if (!s)
			return KFAIL(k, "out of memory");
		if (!(s->op = ir_custom_op(k->g, k->id, NULL, k->d)) || ir_custom_words(k->g, k->id, false, s->p, k->d)) {
			free(s);
			return -1;
		}
		*k->state = s;
		return 0;
	}
	const kstate *s = *k->state;
	s->op->run_f32(k->in, k->out, s->p);
	return 0;
}
