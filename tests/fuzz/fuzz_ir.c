/* fuzz_ir.c - the IR stream reader (libir/ir_io.c, as every stage reads).
 * A stream that loads must verify, serialize, and load again identically
 * (writers are deterministic: the second write equals the first). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_diag d = {0};
	ir_graph *g = ir_graph_read_mem(data, size, &d);
	if (!g) {
		fuzz_check_diag(&d);
		(void)ir_sniff_format(data, size, &(const char *){NULL});
		return 0;
	}
	uint8_t *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	FUZZ_ASSERT(ir_graph_verify(g, &d) == 0);
	FUZZ_ASSERT(ir_graph_write_mem(g, &a, &na, &d) == 0);
	ir_graph *g2 = ir_graph_read_mem(a, na, &d);
	FUZZ_ASSERT(g2);
	FUZZ_ASSERT(ir_graph_write_mem(g2, &b, &nb, &d) == 0);
	FUZZ_ASSERT(na == nb && !memcmp(a, b, na));
	free(a);
	free(b);
	ir_graph_free(g2);
	ir_graph_free(g);
	return 0;
}
