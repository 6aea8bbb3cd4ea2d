/* fuzz_onnx.c - the ONNX importer (a ModelProto, the model as it is) and
 * the TensorProto reader of the ONNX test suites, on the same bytes. */
#include "fuzz.h"
#include "onnx/onnx_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_diag d = {0};
	ir_graph *g = onnx_import(data, size, NULL, &d);
	if (g) {
		FUZZ_ASSERT(ir_graph_verify(g, &d) == 0);
		ir_graph_free(g);
	} else {
		fuzz_check_diag(&d);
	}
	ir_dtype dt;
	ir_shape shape;
	void *t = NULL;
	size_t nbytes = 0;
	char *name = NULL;
	memset(&d, 0, sizeof d);
	if (onnx_tensor_read(data, size, &dt, &shape, &t, &nbytes, &name, &d) == 0) {
		free(t);
		free(name);
	} else {
		fuzz_check_diag(&d);
	}
	return 0;
}
