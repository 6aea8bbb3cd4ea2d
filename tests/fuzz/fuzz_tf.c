/* fuzz_tf.c - the TensorFlow GraphDef importer. A GraphDef does not name
 * its outputs, so the harness asks for the last node's output (as a user
 * naming the graph's result would); the bytes are the .pb file as it is. */
#include "fuzz.h"
#include "tf/graph.pb-c.h"
#include "tf/tf_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = NULL;
	NpuTf__GraphDef *gd = npu_tf__graph_def__unpack(NULL, size, data);
	if (gd) {
		if (gd->n_node && gd->node[gd->n_node - 1]->name)
			out = strdup(gd->node[gd->n_node - 1]->name);
		npu_tf__graph_def__free_unpacked(gd, NULL);
	}
	const char *outs[1] = {out ? out : "output"};
	tf_import_opts o = {.outputs = outs, .n_outputs = 1};
	ir_diag d = {0};
	ir_graph *g = tf_import(data, size, &o, &d);
	if (g) {
		FUZZ_ASSERT(ir_graph_verify(g, &d) == 0);
		ir_graph_free(g);
	} else {
		fuzz_check_diag(&d);
	}
	free(out);
	return 0;
}
