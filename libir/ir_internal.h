/* ir_internal.h - what libir's own files share; not installed. */
#ifndef NPUKIT_IR_INTERNAL_H
#define NPUKIT_IR_INTERNAL_H

#include "ir.h"

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
};

void *ir_xrealloc(void *p, size_t n, size_t size);	/* overflow-checked */
char *ir_strdup(const char *s);
void ir_quant_free(ir_quant *q);
ir_quant *ir_quant_dup(const ir_quant *q);
/* Topological order of node ids into order[n_nodes]. */
int ir_topo_order(const ir_graph *g, int *order, ir_diag *d);
/* Serialize without verifying. */
int ir_graph_serialize(const ir_graph *g, uint8_t **out, size_t *size, ir_diag *d);
/* Shape inference of one node into out[] (dtype+shape of each output). */
int ir_node_infer(const ir_graph *g, int node, ir_dtype *dt, ir_shape *sh, ir_diag *d);

/* ONNX Slice on one axis of size dim: first index and element count. */
int ir_slice_axis(int64_t dim, int64_t start, int64_t end, int64_t step,
		  int64_t *first, int64_t *count);

#endif
