/* fuzz_pickle.c - the restricted unpickler alone (ts_pickle.c), as it
 * reads data.pkl: whole TorchScript archives rarely get past the zip CRCs
 * once mutated, so the inner formats are fuzzed on their own. */
#include "fuzz.h"
#include "torchscript/ts_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ts_arena a = {.limit = (size_t)256 << 20};
	ir_diag d = {0};
	ts_val *v = ts_unpickle(&a, data, size, "data", "data.pkl", &d);
	if (!v)
		fuzz_check_diag(&d);
	ts_arena_free(&a);
	return 0;
}
