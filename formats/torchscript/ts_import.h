/* ts_import.h - TorchScript archives (torch.jit.save, file format version 3
 * as torch 1.10-1.13 write it, and newer ones of the same layout) to IR.
 *
 * Like libir, nothing here prints or exits: failures return NULL with the
 * ir_diag filled. The archive is treated as hostile: the pickles are read by
 * a machine that builds inert values from an allow-list of globals and
 * never runs anything, and every size is bounded. The op mapping and the
 * limitations are documented in npu-import-pt(1). */
#ifndef NPUKIT_TS_IMPORT_H
#define NPUKIT_TS_IMPORT_H

#include "ir.h"

/* The shape (and element type) of forward()'s tensor argument `index`
 * (0 is the first argument after self), as gxnpuc's "0: [1,3,32,32]". */
typedef struct {
	int index;
	ir_shape shape;
	ir_dtype dtype;		/* IR_DTYPE_F32 unless given */
} ts_input_shape;

typedef struct {
	/* One entry per tensor argument of forward(); an argument without an
	 * entry keeps its default value if it has one, else it is an error. */
	const ts_input_shape *inputs;
	int n_inputs;
	/* Recorded as meta source.file (a base name; NULL: not recorded). */
	const char *file;
} ts_import_opts;

/* Import a TorchScript archive held in memory. Returns a verified graph
 * whose inputs are forward()'s tensor arguments in order (named after them)
 * and whose outputs are its returned tensors, tuples and lists flattened in
 * order (named output_0, output_1, ...); nodes are named after the module
 * path (layer1.0.conv1). NULL with d filled on failure: every unsupported op
 * and construct is listed in one message with its file and line. */
ir_graph *ts_import(const uint8_t *buf, size_t size, const ts_import_opts *opts, ir_diag *d);

/* Entry i of the importer's op table (aten/prim names) for listings;
 * NULL past the end. *irop: the IR op it maps to, or -1 (depends). */
const char *ts_import_op_at(int i, int *irop);

#endif
