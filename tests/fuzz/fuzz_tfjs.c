/* fuzz_tfjs.c - TensorFlow.js graph models: model.json (the GraphDef in
 * protobuf's JSON mapping and the weights manifest), through formats/json.
 * Weight shards are read from the landmark fixture's directory when run
 * from the top of the tree (make fuzz, make check), so its model.json
 * and mutations of it get past the weights into the graph; elsewhere no
 * shard is opened. Shards are only read. */
#include <unistd.h>

#include "fuzz.h"
#include "tf/tf_import.h"

#define SHARDS "tests/data/tf/tfjs_landmark"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int have = -1;
	if (have < 0)
		have = access(SHARDS "/group1-shard1of2.bin", R_OK) == 0;
	/* the fixture's input (its placeholder's batch dimension is open) */
	static const tf_input_shape in = {"input_1", {4, {1, 24, 24, 3}}};
	ir_diag d = {0};
	tf_import_opts o = {.inputs = &in, .n_inputs = 1};
	ir_graph *g = tfjs_import(data, size, have ? SHARDS : NULL, &o, &d);
	if (g) {
		FUZZ_ASSERT(ir_graph_verify(g, &d) == 0);
		ir_graph_free(g);
	} else {
		fuzz_check_diag(&d);
	}
	return 0;
}
