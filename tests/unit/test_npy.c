/* test_npy.c - formats/npy: .npy/.npz round trips for every dtype, byte
 * order and Fortran order worked by hand, files written by NumPy
 * (tests/data/npy, see tests/gen/npy_fixtures.py), deterministic .npz
 * output, and one malformed input per check with its message. */
#include "check.h"
#include "npy/npy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

static const ir_dtype all_dtypes[] = {IR_DTYPE_F32, IR_DTYPE_F16, IR_DTYPE_I64, IR_DTYPE_I32,
				      IR_DTYPE_I16, IR_DTYPE_I8, IR_DTYPE_U8, IR_DTYPE_BOOL};

/* A version 1.0 .npy made of a header text and data bytes. */
static uint8_t *make_npy(int major, const char *hdr, const void *data, size_t n, size_t *size)
{
	size_t h = strlen(hdr), pre = major == 1 ? 10 : 12;
	uint8_t *p = malloc(pre + h + n + 1);
	memcpy(p, "\x93NUMPY", 6);
	p[6] = (uint8_t)major;
	p[7] = 0;
	p[8] = (uint8_t)h;
	p[9] = (uint8_t)(h >> 8);
	if (major > 1)
		p[10] = p[11] = 0;
	memcpy(p + pre, hdr, h);
	if (n)
		memcpy(p + pre + h, data, n);
	*size = pre + h + n;
	return p;
}

/* npy_read must fail with a message containing want. */
static void npy_fails(const uint8_t *buf, size_t size, const char *want, int line)
{
	npy_array a;
	ir_diag d = {0};
	int rc = npy_read(buf, size, &a, &d);
	if (!CHECK_MSG(rc == -1 && strstr(d.msg, want), "line %d: rc %d, message '%s', want '%s'", line, rc, d.msg, want))
		return;
	CHECK(a.data == NULL);
}

static void hdr_fails(const char *hdr, size_t ndata, const char *want, int line)
{
	size_t size;
	uint8_t *data = calloc(1, ndata + 1), *p = make_npy(1, hdr, data, ndata, &size);
	npy_fails(p, size, want, line);
	free(p);
	free(data);
}
#define HDR_FAILS(hdr, n, want) hdr_fails(hdr, n, want, __LINE__)

static uint8_t *slurp(const char *name, size_t *size)
{
	/* tests/unit/test_npy.c -> tests/data/npy/NAME */
	char path[1024];
	const char *f = __FILE__, *u = strstr(f, "unit/test_npy.c");
	snprintf(path, sizeof path, "%.*sdata/npy/%s", (int)(u - f), f, name);
	FILE *fp = fopen(path, "rb");
	if (!CHECK_MSG(fp != NULL, "cannot open %s", path))
		return NULL;
	static uint8_t buf[1 << 16];
	*size = fread(buf, 1, sizeof buf, fp);
	fclose(fp);
	uint8_t *p = malloc(*size);
	memcpy(p, buf, *size);
	return p;
}

static void test_roundtrip(void)
{
	uint8_t raw[48];
	for (int i = 0; i < 48; i++)
		raw[i] = (uint8_t)(i * 37 + 1);
	for (size_t k = 0; k < sizeof all_dtypes / sizeof all_dtypes[0]; k++) {
		ir_dtype t = all_dtypes[k];
		if (t == IR_DTYPE_BOOL)
			for (int i = 0; i < 48; i++)
				raw[i] = (uint8_t)(i % 3 == 0);
		npy_array a = {.dtype = t, .shape = {2, {2, 3}}, .data = raw, .nbytes = 6 * ir_dtype_size(t)}, b;
		uint8_t *buf;
		size_t size;
		ir_diag d;
		CHECK(npy_write_mem(&a, &buf, &size, &d) == 0);
		/* version 1.0, data 64-byte aligned, header ends in a newline */
		size_t off = 10 + (size_t)(buf[8] | buf[9] << 8);
		CHECK(!memcmp(buf, "\x93NUMPY\1\0", 8) && off % 64 == 0 && buf[off - 1] == '\n');
		CHECK_MSG(npy_read(buf, size, &b, &d) == 0, "%s: %s", ir_dtype_name(t), d.msg);
		CHECK(b.dtype == t && ir_shape_equal(&a.shape, &b.shape) && b.nbytes == a.nbytes &&
		      !memcmp(b.data, raw, a.nbytes) && !b.from_f64 && b.name == NULL);
		npy_array_clear(&b);
		free(buf);
	}
	/* the header text NumPy would parse; rank 1 needs the tuple comma, rank 0 is () */
	struct {
		ir_shape s;
		const char *hdr;
	} h[] = {
		{{2, {1, 10}}, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 10), }"},
		{{1, {5}}, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }"},
		{{0, {0}}, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }"},
		{{3, {2, 0, 4}}, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 0, 4), }"},
	};
	for (int i = 0; i < 4; i++) {
		float v[10] = {0};
		npy_array a = {.dtype = IR_DTYPE_F32, .shape = h[i].s, .data = v,
			       .nbytes = 4 * (size_t)ir_shape_numel(&h[i].s)}, b;
		uint8_t *buf;
		size_t size;
		ir_diag d;
		CHECK(npy_write_mem(&a, &buf, &size, &d) == 0);
		CHECK_MSG(!memcmp(buf + 10, h[i].hdr, strlen(h[i].hdr)), "%.60s", (char *)buf + 10);
		CHECK(size == 128 + a.nbytes);	/* 10 + 60ish header bytes, padded */
		CHECK(npy_read(buf, size, &b, &d) == 0 && ir_shape_equal(&b.shape, &h[i].s) && b.nbytes == a.nbytes);
		npy_array_clear(&b);
		free(buf);
	}
	/* bf16 has no NumPy dtype; a size that disagrees with the shape is refused */
	uint16_t bf[2] = {0};
	npy_array a = {.dtype = IR_DTYPE_BF16, .shape = {1, {2}}, .data = bf, .nbytes = 4};
	uint8_t *buf;
	size_t size;
	ir_diag d;
	CHECK(npy_write_mem(&a, &buf, &size, &d) == -1 && strstr(d.msg, "bf16 has no NumPy dtype"));
	a.dtype = IR_DTYPE_F32;
	CHECK(npy_write_mem(&a, &buf, &size, &d) == -1 && strstr(d.msg, "its shape needs 8"));
}

static void test_byte_order(void)
{
	size_t size;
	npy_array a;
	ir_diag d;
	/* >i2 (3,): 0x0001 = 1, 0x0102 = 258, 0xfffe = -2 */
	const uint8_t i2[] = {0x00, 0x01, 0x01, 0x02, 0xff, 0xfe};
	uint8_t *p = make_npy(1, "{'descr': '>i2', 'fortran_order': False, 'shape': (3,), }\n", i2, 6, &size);
	CHECK(npy_read(p, size, &a, &d) == 0 && a.dtype == IR_DTYPE_I16);
	CHECK(((int16_t *)a.data)[0] == 1 && ((int16_t *)a.data)[1] == 258 && ((int16_t *)a.data)[2] == -2);
	npy_array_clear(&a);
	free(p);
	/* >f4 1.0 = 3f800000, -2.5 = c0200000 */
	const uint8_t f4[] = {0x3f, 0x80, 0, 0, 0xc0, 0x20, 0, 0};
	p = make_npy(1, "{\"descr\": \">f4\", \"fortran_order\": False, \"shape\": (2,)}", f4, 8, &size);
	CHECK(npy_read(p, size, &a, &d) == 0 && a.dtype == IR_DTYPE_F32);
	CHECK(((float *)a.data)[0] == 1.0f && ((float *)a.data)[1] == -2.5f);
	npy_array_clear(&a);
	free(p);
	/* >f8 1.5 = 3ff8000000000000: converted to f32 and flagged */
	const uint8_t f8[] = {0x3f, 0xf8, 0, 0, 0, 0, 0, 0};
	p = make_npy(1, "{'descr': '>f8', 'fortran_order': False, 'shape': ()}", f8, 8, &size);
	CHECK(npy_read(p, size, &a, &d) == 0 && a.dtype == IR_DTYPE_F32 && a.from_f64 && a.nbytes == 4 &&
	      a.shape.rank == 0 && ((float *)a.data)[0] == 1.5f);
	npy_array_clear(&a);
	free(p);
	/* <f8 beyond the float range becomes -inf: 1e300 = 7e37e43c8800759c, negated */
	const uint8_t big[] = {0x9c, 0x75, 0x00, 0x88, 0x3c, 0xe4, 0x37, 0xfe};
	p = make_npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)}", big, 8, &size);
	CHECK(npy_read(p, size, &a, &d) == 0 && ((float *)a.data)[0] == -INFINITY);
	npy_array_clear(&a);
	free(p);
	/* '=' (native, taken as little-endian) and '|' on a 1-byte type; bool bytes normalized to 0/1 */
	const uint8_t b1[] = {0, 2, 1};
	p = make_npy(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,)}", b1, 3, &size);
	CHECK(npy_read(p, size, &a, &d) == 0 && a.dtype == IR_DTYPE_BOOL &&
	      !memcmp(a.data, (uint8_t[]){0, 1, 1}, 3));
	npy_array_clear(&a);
	free(p);
	const uint8_t i4[] = {7, 0, 0, 0};
	p = make_npy(1, "{'descr': '=i4', 'fortran_order': False, 'shape': (1,)}", i4, 4, &size);
	CHECK(npy_read(p, size, &a, &d) == 0 && ((int32_t *)a.data)[0] == 7);
	npy_array_clear(&a);
	free(p);
}

static void test_fortran(void)
{
	size_t size;
	npy_array a;
	ir_diag d;
	/* A = [[1, 2, 3], [4, 5, 6]] (2x3). Fortran order stores column by
	 * column: A[0][0] A[1][0] A[0][1] A[1][1] A[0][2] A[1][2] = 1 4 2 5 3 6. */
	const int8_t f[] = {1, 4, 2, 5, 3, 6};
	uint8_t *p = make_npy(1, "{'descr': '|i1', 'fortran_order': True, 'shape': (2, 3), }", f, 6, &size);
	CHECK(npy_read(p, size, &a, &d) == 0 && a.shape.rank == 2 && a.shape.dim[0] == 2 && a.shape.dim[1] == 3);
	CHECK(!memcmp(a.data, (int8_t[]){1, 2, 3, 4, 5, 6}, 6));
	npy_array_clear(&a);
	free(p);
	/* big-endian and Fortran together: >i2 [[1, 2], [3, 4]] stored 1 3 2 4 */
	const uint8_t g[] = {0, 1, 0, 3, 0, 2, 0, 4};
	p = make_npy(1, "{'descr': '>i2', 'fortran_order': True, 'shape': (2, 2), }", g, 8, &size);
	CHECK(npy_read(p, size, &a, &d) == 0 && !memcmp(a.data, (int16_t[]){1, 2, 3, 4}, 8));
	npy_array_clear(&a);
	free(p);
	/* 2x3x2, A[i][j][k] = 100i + 10j + k, at Fortran offset i + 2j + 6k */
	int32_t h[12], want[12];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 2; k++) {
				h[i + 2 * j + 6 * k] = 100 * i + 10 * j + k;
				want[(i * 3 + j) * 2 + k] = 100 * i + 10 * j + k;
			}
	p = make_npy(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3, 2), }", h, sizeof h, &size);
	CHECK(npy_read(p, size, &a, &d) == 0 && !memcmp(a.data, want, sizeof want));
	npy_array_clear(&a);
	free(p);
}

/* Files NumPy wrote: float32 arange(6).reshape(2, 3) in versions 2.0 and 3.0,
 * and every dtype in a deflated and a stored .npz. */
static void test_numpy_files(void)
{
	const char *vs[] = {"v2.npy", "v3.npy"};
	for (int i = 0; i < 2; i++) {
		size_t size;
		uint8_t *p = slurp(vs[i], &size);
		npy_array a;
		ir_diag d;
		if (!p)
			continue;
		CHECK(p[6] == 2 + i);
		CHECK_MSG(npy_read(p, size, &a, &d) == 0, "%s: %s", vs[i], d.msg);
		CHECK(a.dtype == IR_DTYPE_F32 && a.shape.rank == 2 && !memcmp(a.data, (float[]){0, 1, 2, 3, 4, 5}, 24));
		npy_array_clear(&a);
		free(p);
	}
	static const char *const keys[] = {"f4", "f2", "f8", "i1", "i2", "i4", "i8", "u1", "b1"};
	static const ir_dtype types[] = {IR_DTYPE_F32, IR_DTYPE_F16, IR_DTYPE_F32, IR_DTYPE_I8, IR_DTYPE_I16,
					 IR_DTYPE_I32, IR_DTYPE_I64, IR_DTYPE_U8, IR_DTYPE_BOOL};
	const float f4[] = {0, 1, 2, 3, 4, 5};
	const uint16_t f2[] = {0x0000, 0x3c00, 0x4000, 0x4200, 0x4400, 0x4500};	/* half 0..5 */
	const char *files[] = {"arange.npz", "arange_stored.npz"};
	for (int f = 0; f < 2; f++) {
		size_t size;
		uint8_t *p = slurp(files[f], &size);
		int n = -1;
		ir_diag d;
		if (!p)
			continue;
		CHECK(npy_sniff(p, size) == NPY_FILE_NPZ);
		npy_array *a = npz_read(p, size, &n, &d);
		CHECK_MSG(a && n == 9, "%s: %s", files[f], a ? "" : d.msg);
		for (int i = 0; a && i < n && i < 9; i++) {
			const npy_array *x = &a[i];
			bool ok = !strcmp(x->name, keys[i]) && x->dtype == types[i] && x->shape.rank == 2 &&
				  x->shape.dim[0] == 2 && x->shape.dim[1] == 3 && x->from_f64 == (i == 2);
			for (int j = 0; ok && j < 6; j++)
				switch (x->dtype) {
				case IR_DTYPE_F32: ok = ((float *)x->data)[j] == f4[j]; break;
				case IR_DTYPE_F16: ok = ((uint16_t *)x->data)[j] == f2[j]; break;
				case IR_DTYPE_I64: ok = ((int64_t *)x->data)[j] == j; break;
				case IR_DTYPE_I32: ok = ((int32_t *)x->data)[j] == j; break;
				case IR_DTYPE_I16: ok = ((int16_t *)x->data)[j] == j; break;
				case IR_DTYPE_I8: ok = ((int8_t *)x->data)[j] == j; break;
				case IR_DTYPE_U8: ok = ((uint8_t *)x->data)[j] == j; break;
				case IR_DTYPE_BOOL: ok = ((uint8_t *)x->data)[j] == j % 2; break;
				default: ok = false;
				}
			CHECK_MSG(ok, "%s: entry %d ('%s')", files[f], i, x->name);
		}
		npz_free(a, n);
		free(p);
	}
}

static void test_npz(void)
{
	float x[6] = {1, 2, 3, 4, 5, 6};
	int64_t y[2] = {-1, 1LL << 40};
	npy_array in[3] = {
		{.name = "x", .dtype = IR_DTYPE_F32, .shape = {2, {2, 3}}, .data = x, .nbytes = sizeof x},
		{.name = "/fc/Gemm_output_0", .dtype = IR_DTYPE_I64, .shape = {1, {2}}, .data = y, .nbytes = sizeof y},
		{.name = "s", .dtype = IR_DTYPE_F32, .shape = {0, {0}}, .data = x, .nbytes = 4},
	};
	uint8_t *buf, *buf2;
	size_t size, size2;
	ir_diag d;
	int n = -1;
	CHECK_MSG(npz_write_mem(in, 3, &buf, &size, &d) == 0, "%s", d.msg);
	CHECK(npy_sniff(buf, size) == NPY_FILE_NPZ);
	/* stored, dated 1980-01-01 00:00 (DOS time 0, date 0x21) */
	CHECK(!memcmp(buf, "PK\3\4", 4) && buf[8] == 0 && buf[9] == 0 && buf[10] == 0 && buf[11] == 0 &&
	      buf[12] == 0x21 && buf[13] == 0);
	CHECK(npz_write_mem(in, 3, &buf2, &size2, &d) == 0 && size2 == size && !memcmp(buf, buf2, size));
	free(buf2);
	npy_array *a = npz_read(buf, size, &n, &d);
	CHECK_MSG(a && n == 3, "%s", a ? "" : d.msg);
	for (int i = 0; a && i < 3; i++)
		CHECK(!strcmp(a[i].name, in[i].name) && a[i].dtype == in[i].dtype &&
		      ir_shape_equal(&a[i].shape, &in[i].shape) && a[i].nbytes == in[i].nbytes &&
		      !memcmp(a[i].data, in[i].data, in[i].nbytes));
	npz_free(a, n);

	/* a flipped byte in a stored entry's data fails the CRC check */
	buf[size / 4] ^= 0x55;
	a = npz_read(buf, size, &n, &d);
	CHECK_MSG(!a && strstr(d.msg, "entry 'x.npy': CRC error"), "%s", d.msg);
	buf[size / 4] ^= 0x55;
	/* truncated or garbage archives */
	a = npz_read(buf, size / 2, &n, &d);
	CHECK_MSG(!a && strstr(d.msg, "not a valid .npz (zip) archive"), "%s", d.msg);
	uint8_t junk[100] = "PK\3\4 this is not really a zip archive";
	a = npz_read(junk, sizeof junk, &n, &d);
	CHECK_MSG(!a && strstr(d.msg, "not a valid .npz (zip) archive"), "%s", d.msg);
	/* two entries of the same name (the second name patched to the first) */
	in[1].name = "y";
	free(buf);
	CHECK(npz_write_mem(in, 2, &buf, &size, &d) == 0);
	for (size_t i = 0; i + 5 <= size; i++)
		if (!memcmp(buf + i, "y.npy", 5))
			buf[i] = 'x';
	a = npz_read(buf, size, &n, &d);
	CHECK_MSG(!a && strstr(d.msg, "two entries have the same name"), "%s", d.msg);
	free(buf);
	in[1].name = "x";
	CHECK(npz_write_mem(in, 2, &buf, &size, &d) == -1 && strstr(d.msg, "array name 'x' is used twice"));
	in[1].dtype = IR_DTYPE_BF16;
	in[1].name = "b";
	CHECK(npz_write_mem(in, 2, &buf, &size, &d) == -1 && strstr(d.msg, "array 'b': bf16 has no NumPy dtype"));

	/* no arrays: an end-of-central-directory record alone */
	CHECK(npz_write_mem(in, 0, &buf, &size, &d) == 0 && size == 22 && npy_sniff(buf, size) == NPY_FILE_NPZ);
	a = npz_read(buf, size, &n, &d);
	CHECK_MSG(a && n == 0, "%s", d.msg);
	npz_free(a, n);
	free(buf);
}

/* An archive made here with libzip: entries (name, data) deflated. */
static uint8_t *make_zip(const char *const *names, uint8_t *const *data, const size_t *sizes, int n, size_t *size)
{
	zip_source_t *dst = zip_source_buffer_create(NULL, 0, 0, NULL);
	zip_t *za = zip_open_from_source(dst, ZIP_TRUNCATE, NULL);
	zip_source_keep(dst);
	for (int i = 0; i < n; i++) {
		zip_int64_t idx = zip_file_add(za, names[i], zip_source_buffer(za, data[i], sizes[i], 0), 0);
		zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_DEFLATE, 9);
	}
	zip_close(za);
	zip_stat_t st;
	zip_source_stat(dst, &st);
	uint8_t *p = malloc(st.size);
	zip_source_open(dst);
	zip_source_read(dst, p, st.size);
	zip_source_close(dst);
	zip_source_free(dst);
	*size = (size_t)st.size;
	return p;
}

static void test_npz_deflated(void)
{
	float v[64];
	for (int i = 0; i < 64; i++)
		v[i] = (float)(i % 4);
	npy_array x = {.dtype = IR_DTYPE_F32, .shape = {2, {8, 8}}, .data = v, .nbytes = sizeof v};
	uint8_t *e[2], *z;
	size_t es[2], size;
	ir_diag d;
	int n;
	CHECK(npy_write_mem(&x, &e[0], &es[0], &d) == 0);
	e[1] = (uint8_t *)"just text";
	es[1] = 9;
	z = make_zip((const char *[]){"w.npy"}, e, es, 1, &size);
	CHECK(z[8] == 8);	/* deflated */
	npy_array *a = npz_read(z, size, &n, &d);
	CHECK_MSG(a && n == 1 && !strcmp(a[0].name, "w") && a[0].nbytes == sizeof v && !memcmp(a[0].data, v, sizeof v),
		  "%s", a ? "" : d.msg);
	npz_free(a, n);
	free(z);
	/* an entry that is not .npy, and one that is a bad .npy */
	z = make_zip((const char *[]){"w.npy", "readme.txt"}, e, es, 2, &size);
	a = npz_read(z, size, &n, &d);
	CHECK_MSG(!a && strstr(d.msg, "entry 'readme.txt' is not a .npy array"), "%s", d.msg);
	free(z);
	z = make_zip((const char *[]){"w.npy", "t.npy"}, e, es, 2, &size);
	a = npz_read(z, size, &n, &d);
	CHECK_MSG(!a && strstr(d.msg, "entry 't.npy': not a .npy file"), "%s", d.msg);
	free(z);
	es[0] -= 4;
	z = make_zip((const char *[]){"w.npy"}, e, es, 1, &size);
	a = npz_read(z, size, &n, &d);
	/* found from the header and the zip directory, before inflating */
	CHECK_MSG(!a && strstr(d.msg, "entry 'w.npy': its .npy header declares 256 data bytes, the zip directory 252"),
		  "%s", d.msg);
	free(z);
	/* the declared size lies (larger than the data): patched in both headers */
	es[0] += 4;
	z = make_zip((const char *[]){"w.npy"}, e, es, 1, &size);
	uint32_t real = (uint32_t)es[0], fake = real + 1000;
	for (size_t i = 0; i + 4 <= size; i++)
		if (!memcmp(z + i, &real, 4))
			memcpy(z + i, &fake, 4);
	a = npz_read(z, size, &n, &d);
	CHECK_MSG(!a && strstr(d.msg, "entry 'w.npy': its .npy header declares 256 data bytes, the zip directory 1256"),
		  "%s", d.msg);
	free(z);
	free(e[0]);
}

static void test_malformed(void)
{
	const char *ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
	size_t size;
	uint8_t *p;
	npy_fails((const uint8_t *)"\x93NUM", 4, "truncated .npy file (4 bytes)", __LINE__);
	npy_fails((const uint8_t *)"", 0, "truncated .npy file (0 bytes)", __LINE__);
	npy_fails((const uint8_t *)"hello world, not numpy", 22, "not a .npy file", __LINE__);
	p = make_npy(1, ok, "\0\0\0\0\0\0\0\0", 8, &size);
	p[6] = 4;
	npy_fails(p, size, "unsupported .npy format version 4.0", __LINE__);
	p[6] = 1;
	p[7] = 1;
	npy_fails(p, size, "unsupported .npy format version 1.1", __LINE__);
	p[7] = 0;
	p[9] = 1;	/* header length + 256 */
	npy_fails(p, size, "truncated .npy header (", __LINE__);
	p[9] = 0;
	npy_fails(p, 11, "truncated .npy header (", __LINE__);
	npy_fails(p, size - 1, "truncated data: shape 2 of float32 needs 8 bytes, the file has 7", __LINE__);
	free(p);
	p = make_npy(2, ok, "\0\0\0\0\0\0\0\0", 8, &size);
	p[11] = 0x80;	/* a 2 GiB header in a version 2.0 file */
	npy_fails(p, size, "truncated .npy header", __LINE__);
	free(p);

	HDR_FAILS(ok, 9, "1 bytes after the array data");
	HDR_FAILS("{'descr': '<f4', 'fortran_order': False}", 8, "no 'shape' key");
	HDR_FAILS("{'shape': (2,), 'fortran_order': False}", 8, "no 'descr' key");
	HDR_FAILS("{'descr': '<f4', 'shape': (2,)}", 8, "no 'fortran_order' key");
	HDR_FAILS("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", 8, "unknown key 'extra'");
	HDR_FAILS("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", 8,
		  "key 'descr' appears twice");
	HDR_FAILS("{'descr': '<u2', 'fortran_order': False, 'shape': (2,)}", 4, "unsupported dtype '<u2'");
	HDR_FAILS("{'descr': '<c8', 'fortran_order': False, 'shape': (2,)}", 16, "unsupported dtype '<c8'");
	HDR_FAILS("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", 8,
		  "structured dtypes are not supported");
	HDR_FAILS("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", 8, "'fortran_order' is not True or False");
	HDR_FAILS("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}", 8, "shape has a negative dimension");
	HDR_FAILS("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", 8,
		  "shape dimension is too large");
	HDR_FAILS("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776)}", 8,
		  "shape has too many elements");
	HDR_FAILS("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 2)}", 8,
		  "shape has more than 8 dimensions");
	HDR_FAILS("{'descr': '<f4', 'fortran_order': False, 'shape': (2)}", 8, "'shape' is not a tuple");
	HDR_FAILS("{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", 8, "expected a tuple for 'shape'");
	HDR_FAILS("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", 8, "text after the dict");
	HDR_FAILS("{'descr' '<f4', 'fortran_order': False, 'shape': (2,)}", 8, "expected ':' after a key");
	HDR_FAILS("{'descr': '<f4", 8, "unterminated string");
	HDR_FAILS("{'descr': '<f4' 'shape': (2,)}", 8, "expected ',' or '}' after 'descr'");
	HDR_FAILS("['descr', '<f4']", 8, "expected '{'");
	HDR_FAILS("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", 8, "expected ',' or '}' after 'shape'");
	HDR_FAILS("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ", 8, "expected a quoted key");
	HDR_FAILS("", 8, "expected '{'");
}

int main(void)
{
	test_roundtrip();
	test_byte_order();
	test_fortran();
	test_numpy_files();
	test_npz();
	test_npz_deflated();
	test_malformed();
	return check_done();
}
