/* fuzz_tsparse.c - the TorchScript source parser alone (ts_parse.c), as it
 * reads code/__torch__/NAME.py from an archive. */
#include "fuzz.h"
#include "torchscript/ts_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ts_arena a = {.limit = (size_t)256 << 20};
	ir_diag d = {0};
	/* the importer hands over a NUL-terminated copy of the entry */
	char *src = fuzz_strdup(data, size);
	if (!src)
		return 0;
	ts_ast *m = ts_parse(&a, src, size, "code/__torch__.py", &d);
	if (!m)
		fuzz_check_diag(&d);
	free(src);
	ts_arena_free(&a);
	return 0;
}
