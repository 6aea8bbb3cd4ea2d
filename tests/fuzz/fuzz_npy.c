/* fuzz_npy.c - .npy arrays and .npz archives (formats/npy), as npu-run and
 * npu-quant read inputs and calibration data. An array that loads is
 * written back and must read back with the same type, shape and bytes. */
#include "fuzz.h"
#include "npy/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_diag d = {0};
	int n = 0;
	bool npz = false;
	npy_array *arrs = npy_read_any(data, size, &n, &npz, &d);
	if (!arrs) {
		fuzz_check_diag(&d);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		const npy_array *a = &arrs[i];
		uint8_t *out = NULL;
		size_t nout = 0;
		if (a->dtype == IR_DTYPE_BF16 || npy_write_mem(a, &out, &nout, &d))
			continue;
		npy_array b = {0};
		FUZZ_ASSERT(npy_read(out, nout, &b, &d) == 0);
		FUZZ_ASSERT(b.dtype == a->dtype && b.shape.rank == a->shape.rank);
		FUZZ_ASSERT(!memcmp(b.shape.dim, a->shape.dim, sizeof(b.shape.dim[0]) * (size_t)a->shape.rank));
		FUZZ_ASSERT(b.nbytes == a->nbytes && (!a->nbytes || !memcmp(b.data, a->data, a->nbytes)));
		npy_array_clear(&b);
		free(out);
	}
	npz_free(arrs, n);
	return 0;
}
