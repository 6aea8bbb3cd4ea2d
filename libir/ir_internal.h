/* ir_internal.h - what libir's own files share; not installed. */
#ifndef NPUKIT_IR_INTERNAL_H
#define NPUKIT_IR_INTERNAL_H

#include "ir.h"

/* Hashed name -> id lookup: open addressing over ids (slot = id + 1, 0 is
 * empty), probed by the name's hash and confirmed by comparing the current
 * name, so the table never decides output order. Rebuilt lazily (O(n)) when
 * stale: after removals, reordering, renames or a count mismatch. */
typedef struct {
	int *slot;
	size_t cap;	/* power of two, or 0 */
	int count;	/* ids 0..count-1 are indexed */
	int stale;
} ir_name_index;

/* Use-def cache: per tensor its producer (-1 none, -2 not yet known: a
 * tensor added since the last rebuild that no node claimed through
 * ir_graph_add_node), how many node input slots read it and the sum of those
 * nodes' ids (the node itself when there is one use). Kept current by the
 * graph's own mutators; removals and reorders drop it (rebuilt in O(N+E) on
 * the next query); a producer answer is checked against the node. */
typedef struct {
	int *prod, *uses;
	int64_t *usum;
	int cap, valid;
} ir_use_cache;

struct ir_graph {
	ir_tensor *tensors;
	int n_tensors, cap_tensors;
	ir_node *nodes;
	int n_nodes, cap_nodes;
	int *inputs, *outputs;
	int n_inputs, n_outputs;
	ir_meta *meta;
	int n_meta;
	ir_history *history;
	int n_history;
	ir_name_index tindex, nindex;	/* see ir_graph.c; lookups may rebuild them */
	ir_use_cache use;
};

void *ir_xrealloc(void *p, size_t n, size_t size);	/* overflow-checked */
char *ir_strdup(const char *s);
void ir_quant_free(ir_quant *q);
ir_quant *ir_quant_dup(const ir_quant *q);
/* Remove node `node` in O(1) inside a pass: it keeps its id but reads and
 * writes nothing and its name is "" (matching no lookup). ir_graph_prune
 * (which ir_pass_run calls after every pass) or ir_graph_drop_killed
 * deletes them; nothing outside the pass may see them. */
void ir_graph_kill_node(ir_graph *g, int node);
/* Delete the killed nodes (later ids shift down), O(n). */
void ir_graph_drop_killed(ir_graph *g);
/* Topological order of node ids into order[n_nodes]. */
int ir_topo_order(const ir_graph *g, int *order, ir_diag *d);
/* Serialize without verifying. */
int ir_graph_serialize(const ir_graph *g, uint8_t **out, size_t *size, ir_diag *d);
/* Shape inference of one node into out[] (dtype+shape of each output). */
int ir_node_infer(const ir_graph *g, int node, ir_dtype *dt, ir_shape *sh, ir_diag *d);

/* custom ops (ir_custom.c): output types and shapes of node from its
 * plugin's shape function, in[0..nin) its inputs (nin <= 8) */
int ir_custom_infer(const ir_graph *g, int node, const ir_tensor *const *in, int nin, ir_dtype *dt,
		    ir_shape *sh, ir_diag *d);

/* ONNX Slice on one axis of size dim: first index and element count. */
int ir_slice_axis(int64_t dim, int64_t start, int64_t end, int64_t step,
		  int64_t *first, int64_t *count);

#endif
