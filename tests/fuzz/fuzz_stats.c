/* fuzz_stats.c - calibration statistics files (npu-quant --stats-in,
 * libir/ir_calib.c). A file that loads is written back (to memory) and must
 * load again: every statistic the reader accepts, the writer can express. */
#include <stdio.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_calib *c = ir_calib_new();
	if (!c)
		return 0;
	ir_diag d = {0};
	if (ir_calib_read(c, data, size, "s.stats", &d)) {
		fuzz_check_diag(&d);
		FUZZ_ASSERT(ir_calib_tensor_count(c) == 0);	/* left unchanged */
		ir_calib_free(c);
		return 0;
	}
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	if (f) {
		FUZZ_ASSERT(ir_calib_write(c, f, &d) == 0);
		fclose(f);
		ir_calib *c2 = ir_calib_new();
		if (c2) {
			FUZZ_ASSERT(ir_calib_read(c2, (const uint8_t *)text, n, "s2.stats", &d) == 0);
			FUZZ_ASSERT(ir_calib_tensor_count(c2) == ir_calib_tensor_count(c));
			ir_calib_free(c2);
		}
		free(text);
	}
	ir_calib_free(c);
	return 0;
}
