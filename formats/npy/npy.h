/* npy.h - NumPy .npy arrays and .npz archives (zip files of NAME.npy).
 *
 * Like libir, nothing here prints or exits: failures return -1 (or NULL)
 * with the ir_diag filled, and every byte of the input is treated as
 * hostile. Arrays in memory are always little-endian and in C order.
 *
 * Read: format versions 1.0, 2.0 and 3.0; dtypes f2 f4 i1 i2 i4 i8 u1 b1
 * in any byte order ('<', '>', '|', and '=' taken as little-endian), and
 * f8, converted to f32 (npy_array.from_f64 says so: numpy's default float
 * type is float64); fortran_order arrays are transposed to C order.
 * Write: version 1.0, little-endian, C order, the data 64-byte aligned;
 * .npz archives stored (not compressed), with fixed timestamps and modes,
 * so the same arrays give the same bytes. */
#ifndef NPUKIT_NPY_H
#define NPUKIT_NPY_H

#include "ir.h"

typedef struct {
	char *name;		/* npz key (entry name without ".npy"); NULL from npy_read */
	ir_dtype dtype;
	ir_shape shape;
	void *data;		/* nbytes bytes, malloc'ed */
	size_t nbytes;
	bool from_f64;		/* the file held float64, converted to f32 */
} npy_array;

typedef enum { NPY_FILE_UNKNOWN, NPY_FILE_NPY, NPY_FILE_NPZ } npy_file_kind;

/* .npy ("\x93NUMPY") or .npz (a zip: "PK\3\4", or "PK\5\6" when empty). */
npy_file_kind npy_sniff(const uint8_t *buf, size_t size);

/* NumPy's name of a dtype ("float32", "int64", "bool"); bf16, which NumPy
 * lacks, is "bfloat16". */
const char *npy_dtype_name(ir_dtype t);

/* Parse one .npy file; fills *a (name NULL) or returns -1 with nothing
 * allocated. */
int npy_read(const uint8_t *buf, size_t size, npy_array *a, ir_diag *d);

/* Serialize a->dtype, a->shape and a->data (a->nbytes must match) as .npy
 * into a malloc'ed buffer. bf16 has no NumPy dtype and is refused. */
int npy_write_mem(const npy_array *a, uint8_t **out, size_t *size, ir_diag *d);

/* Read every NAME.npy entry of an .npz, in archive order (stored or
 * deflated). Entries that are not .npy, duplicate names and bad arrays are
 * errors naming the entry. Returns the array (n may be 0; free with
 * npz_free) or NULL with d filled. */
npy_array *npz_read(const uint8_t *buf, size_t size, int *n, ir_diag *d);

/* An .npy (one array, name NULL) or an .npz (its arrays), recognised by
 * their first bytes; *npz says which. NULL with d filled on error. */
npy_array *npy_read_any(const uint8_t *buf, size_t size, int *n, bool *npz, ir_diag *d);
/* The same, for an .npz first checking (from its zip directory and the
 * first bytes of each entry, before inflating any array) that it holds a
 * NAME.npy for every name in want[] (a model's inputs) and that every entry's .npy header
 * declares the size the directory does. An .npy is read as is. */
npy_array *npy_read_want(const uint8_t *buf, size_t size, const char *const *want, int n_want, int *n, bool *npz,
			 ir_diag *d);
npy_array *npz_read_want(const uint8_t *buf, size_t size, const char *const *want, int n_want, int *n,
			 ir_diag *d);

/* Write n arrays as an .npz keyed by their names (names must be distinct). */
int npz_write_mem(const npy_array *arrs, int n, uint8_t **out, size_t *size, ir_diag *d);

/* Free an array's contents (not a itself) / an array list from npz_read. */
void npy_array_clear(npy_array *a);
void npz_free(npy_array *arrs, int n);

#endif
