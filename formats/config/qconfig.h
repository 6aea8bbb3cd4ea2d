/* qconfig.h - per-layer quantization settings (npu-quant --config FILE),
 * YAML or JSON; see npu-quant(1):
 *
 *   default: {method: kld}
 *   layers:                 # node names
 *     conv1: int16
 *     fc: float
 *     block.2.conv: {bits: 16, method: "percentile:99.9", weight_bits: 4}
 *   ops:                    # op types (npu-dump shows them)
 *     sigmoid: {bits: 16}
 *     softmax: float
 *
 * A layer rule beats an op rule, which beats the default. Nothing here
 * prints or exits. */
#ifndef NPUKIT_QCONFIG_H
#define NPUKIT_QCONFIG_H

#include "ir.h"

typedef struct {
	char *name;		/* node name, or op name when is_op */
	bool is_op;
	int line;		/* in the file, for messages */
	ir_qlayer l;
} npu_qrule;

typedef struct {
	npu_qrule *rules;
	int n;
	bool has_default;
	ir_qlayer def;
} npu_qconfig;

/* An empty setting (every field "use the global one"). */
void npu_qlayer_unset(ir_qlayer *l);
/* "float", "f32", "fp16", "int8", "int16", "8", "16" -> precision; -1 if none. */
int npu_qprecision_parse(const char *s);

int npu_qconfig_parse(const uint8_t *buf, size_t size, const char *file, npu_qconfig *c, ir_diag *d);
void npu_qconfig_free(npu_qconfig *c);
/* Settings of every node of g (layers[node count], preset by the caller);
 * rules naming no node of g are errors (all listed in one message). was_op
 * (may be NULL): per node, the op it had before ir_quant_prepare changed it
 * (a gemm now a fully_connected), or -1; op rules match either. */
int npu_qconfig_apply(const npu_qconfig *c, const ir_graph *g, const int *was_op, ir_qlayer *layers,
		      const char *file, ir_diag *d);

#endif
