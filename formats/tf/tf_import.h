/* tf_import.h - TensorFlow frozen GraphDef (TF 1.x freeze_graph output, TF 2.x
 * frozen concrete functions) and TensorFlow.js graph models (model.json,
 * tfjs.c) to IR.
 *
 * Like libir, nothing here prints or exits: failures return NULL with the
 * ir_diag filled. Every byte of the input is treated as hostile. The op
 * mapping and its deviations are documented in npu-import-tf(1). */
#ifndef NPUKIT_TF_IMPORT_H
#define NPUKIT_TF_IMPORT_H

#include "ir.h"

/* A shape for a placeholder (--input NAME:SHAPE). */
typedef ir_named_shape tf_input_shape;

/* A scalar placeholder frozen to a value (--const NAME=VALUE), e.g. a
 * dropout keep_prob fed as 1.0. */
typedef ir_named_value tf_const_value;

/* A state placeholder and the node output that carries its next value
 * (--state IN=OUT): IN becomes an input of kind state, OUT an output. */
typedef struct {
	const char *in;
	const char *out;
} tf_state;

typedef struct {
	const tf_input_shape *inputs;
	int n_inputs;
	/* Node outputs to make the graph outputs, in order: "name", "name:0",
	 * "name:1". At least one is required (a GraphDef does not say which
	 * nodes are its outputs). Only what they need is imported. */
	const char *const *outputs;
	int n_outputs;
	const tf_const_value *consts;
	int n_consts;
	const tf_state *states;
	int n_states;
	/* Recorded as meta source.file (a base name; NULL: not recorded). */
	const char *file;
} tf_import_opts;

/* Import a serialized GraphDef. Returns a verified graph with every
 * tensor's dtype, shape and (for 4-D activations) layout set, or NULL with
 * d filled; all unsupported ops are listed in one message. */
ir_graph *tf_import(const uint8_t *buf, size_t size, const tf_import_opts *opts, ir_diag *d);

/* Import a TensorFlow.js graph model: buf is model.json (GraphDef JSON and
 * weights manifest), dir the directory its weight shards are read from
 * (NULL: none can be read). Without opts->outputs the model's signature
 * names them. Errors name the JSON key ("weightsManifest[0].paths[1]: ..."). */
ir_graph *tfjs_import(const uint8_t *buf, size_t size, const char *dir, const tf_import_opts *opts, ir_diag *d);

/* Entry i of the importer's op table (TensorFlow op names) for listings;
 * NULL past the end. *irop: -1 (each converter chooses its IR ops). */
const char *tf_import_op_at(int i, int *irop);

#endif
