/* onnx_import.h - ONNX models (opsets 7-17) and TensorProto files to IR.
 *
 * Like libir, nothing here prints or exits: failures return NULL (or -1)
 * with the ir_diag filled. Every byte of the input is treated as hostile.
 * The op mapping and its deviations are documented in npu-import-onnx(1). */
#ifndef NPUKIT_ONNX_IMPORT_H
#define NPUKIT_ONNX_IMPORT_H

#include "ir.h"

/* A shape for a graph input (--input NAME:SHAPE). */
typedef ir_named_shape onnx_input_shape;

/* A graph input frozen to a constant (--const NAME=VALUE): every element
 * of it is value (a sample rate, a flag), so what depends only on it is
 * computed at import and an If on it keeps the branch taken. */
typedef ir_named_value onnx_const_value;

/* Options; a zero-initialized struct means "the model as it is". */
typedef struct {
	/* Shapes for graph inputs: they resolve dynamic dimensions (dim_param
	 * or missing) and must agree with the model's fixed ones. */
	const onnx_input_shape *inputs;
	int n_inputs;
	/* Values to make the graph outputs, in order (none: the model's
	 * outputs). Only what they need is imported, so a model can be cut
	 * before unsupported parts; graph inputs they do not need are dropped. */
	const char *const *outputs;
	int n_outputs;
	/* Graph inputs that become constants. */
	const onnx_const_value *consts;
	int n_consts;
	/* Recorded as meta source.file (a base name; NULL: not recorded). */
	const char *file;
} onnx_import_opts;

/* Import a serialized ModelProto. opts may be NULL. Returns a verified
 * graph with every tensor's dtype and shape set, or NULL with d filled;
 * all unsupported ops and constructs are listed in one message. */
ir_graph *onnx_import(const uint8_t *buf, size_t size, const onnx_import_opts *opts, ir_diag *d);

/* Read a serialized TensorProto (the ONNX test suites' input_N.pb and
 * output_N.pb). On success returns 0 and hands over malloc'ed *data
 * (*nbytes bytes, little-endian) and *name ("" if the tensor has none);
 * on failure returns -1 with d filled and nothing allocated. */
int onnx_tensor_read(const uint8_t *buf, size_t size, ir_dtype *dt, ir_shape *shape,
		     void **data, size_t *nbytes, char **name, ir_diag *d);

/* Entry i of the importer's op table (ONNX op types) for listings;
 * NULL past the end. *irop: the IR op it maps to, or -1 (depends). */
const char *onnx_import_op_at(int i, int *irop);

#endif
