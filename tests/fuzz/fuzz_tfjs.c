/* fuzz_tfjs.c - TensorFlow.js graph models: model.json (the GraphDef in
 * protobuf's JSON mapping and the weights manifest), through formats/json.
 * No directory is given, so no weight shard is ever opened: a model that
 * needs one fails, after everything in the JSON has been checked. */
#include "fuzz.h"
#include "tf/tf_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_diag d = {0};
	tf_import_opts o = {0};
	ir_graph *g = tfjs_import(data, size, NULL, &o, &d);
	if (g) {
		FUZZ_ASSERT(ir_graph_verify(g, &d) == 0);
		ir_graph_free(g);
	} else {
		fuzz_check_diag(&d);
	}
	return 0;
}
