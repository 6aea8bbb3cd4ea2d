/* npy.c - NumPy .npy / .npz reading and writing (see npy.h).
 *
 * The .npy header is a Python dict literal; it is parsed here by a small
 * strict grammar (exactly the keys descr, fortran_order and shape, string
 * and tuple literals) rather than by anything resembling eval. .npz
 * archives go through libzip; an entry is read up to the size its central
 * directory declares, growing the buffer as data actually arrives, so a
 * lying size costs no more memory than the data behind it. */
#include "npy/npy.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_ALIGN 64
#define NPZ_MAX_ENTRIES 65536
#define NPZ_MAX_ENTRY ((uint64_t)1 << 40)	/* bytes of one uncompressed entry */

npy_file_kind npy_sniff(const uint8_t *buf, size_t size)
{
	if (size >= 6 && !memcmp(buf, NPY_MAGIC, 6))
		return NPY_FILE_NPY;
	if (size >= 4 && (!memcmp(buf, "PK\3\4", 4) || !memcmp(buf, "PK\5\6", 4)))
		return NPY_FILE_NPZ;
	return NPY_FILE_UNKNOWN;
}

/* NumPy names and descrs by IR dtype (bf16 has no descr). */
static const char *const np_names[IR_DTYPE_COUNT] = {
	[IR_DTYPE_F32] = "float32", [IR_DTYPE_F16] = "float16", [IR_DTYPE_BF16] = "bfloat16",
	[IR_DTYPE_I64] = "int64", [IR_DTYPE_I32] = "int32", [IR_DTYPE_I16] = "int16",
	[IR_DTYPE_I8] = "int8", [IR_DTYPE_U8] = "uint8", [IR_DTYPE_BOOL] = "bool",
};
static const char *const np_descr[IR_DTYPE_COUNT] = {
	[IR_DTYPE_F32] = "<f4", [IR_DTYPE_F16] = "<f2", [IR_DTYPE_I64] = "<i8",
	[IR_DTYPE_I32] = "<i4", [IR_DTYPE_I16] = "<i2", [IR_DTYPE_I8] = "|i1",
	[IR_DTYPE_U8] = "|u1", [IR_DTYPE_BOOL] = "|b1",
};

const char *npy_dtype_name(ir_dtype t)
{
	return (unsigned)t < IR_DTYPE_COUNT ? np_names[t] : "?";
}

/* ================================================================ header */

typedef struct {
	const char *p, *end;
	ir_diag *d;
} lexer;

static void skip_ws(lexer *l)
{
	while (l->p < l->end && (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' || *l->p == '\r'))
		l->p++;
}

/* Consume c (after whitespace) or fail saying what was expected. */
static int expect(lexer *l, char c, const char *what)
{
	skip_ws(l);
	if (l->p < l->end && *l->p == c) {
		l->p++;
		return 0;
	}
	return ir_fail(l->d, -1, -1, "bad .npy header: expected %s", what);
}

static bool peek(lexer *l, char c)
{
	skip_ws(l);
	return l->p < l->end && *l->p == c;
}

/* A quoted string without escapes, copied into out (at most cap-1 bytes). */
static int lex_str(lexer *l, char *out, size_t cap, const char *what)
{
	skip_ws(l);
	if (l->p >= l->end || (*l->p != '\'' && *l->p != '"'))
		return ir_fail(l->d, -1, -1, "bad .npy header: expected %s", what);
	char q = *l->p++;
	const char *s = l->p;
	while (l->p < l->end && *l->p != q && *l->p != '\\' && *l->p != '\n')
		l->p++;
	if (l->p >= l->end || *l->p != q)
		return ir_fail(l->d, -1, -1, "bad .npy header: unterminated string");
	size_t n = (size_t)(l->p++ - s);
	if (n >= cap)
		return ir_fail(l->d, -1, -1, "bad .npy header: %s is too long", what);
	memcpy(out, s, n);
	out[n] = 0;
	return 0;
}

static bool lex_word(lexer *l, const char *w)
{
	size_t n = strlen(w);
	skip_ws(l);
	if ((size_t)(l->end - l->p) < n || memcmp(l->p, w, n))
		return false;
	l->p += n;
	return true;
}

/* A shape tuple: (), (N,), (N, M, ...) with an optional trailing comma. */
static int lex_shape(lexer *l, ir_shape *s)
{
	s->rank = 0;
	if (expect(l, '(', "a tuple for 'shape'"))
		return -1;
	while (!peek(l, ')')) {
		if (peek(l, '-'))
			return ir_fail(l->d, -1, -1, "shape has a negative dimension");
		if (l->p >= l->end || *l->p < '0' || *l->p > '9')
			return ir_fail(l->d, -1, -1, "bad .npy header: expected a dimension in 'shape'");
		int64_t v = 0;
		for (; l->p < l->end && *l->p >= '0' && *l->p <= '9'; l->p++) {
			v = v * 10 + (*l->p - '0');
			if (v > IR_MAX_DIM)
				return ir_fail(l->d, -1, -1, "shape dimension is too large (more than %lld)",
					       (long long)IR_MAX_DIM);
		}
		if (l->p < l->end && *l->p == 'L')	/* Python 2 long */
			l->p++;
		if (s->rank == IR_MAX_RANK)
			return ir_fail(l->d, -1, -1, "shape has more than %d dimensions", IR_MAX_RANK);
		s->dim[s->rank++] = v;
		if (peek(l, ','))
			l->p++;
		else if (!peek(l, ')'))
			return ir_fail(l->d, -1, -1, "bad .npy header: expected ',' or ')' in 'shape'");
		else if (s->rank == 1)
			return ir_fail(l->d, -1, -1, "bad .npy header: 'shape' is not a tuple (a 1-tuple needs a comma)");
	}
	l->p++;
	if (ir_shape_numel(s) < 0)
		return ir_fail(l->d, -1, -1, "shape has too many elements (more than %lld)", (long long)IR_MAX_ELEMS);
	return 0;
}

typedef struct {
	ir_dtype dtype;
	int size;		/* bytes per element in the file */
	bool swap, fortran, f64;
} layout;

/* Map a descr ("<f4", "|u1", ...) to a dtype. */
static int parse_descr(const char *s, layout *lo, ir_diag *d)
{
	static const struct {
		const char *code;
		ir_dtype t;
	} codes[] = {
		{"f4", IR_DTYPE_F32}, {"f2", IR_DTYPE_F16}, {"f8", IR_DTYPE_F32}, {"i8", IR_DTYPE_I64},
		{"i4", IR_DTYPE_I32}, {"i2", IR_DTYPE_I16}, {"i1", IR_DTYPE_I8}, {"u1", IR_DTYPE_U8},
		{"b1", IR_DTYPE_BOOL},
	};
	const char *c = s;
	bool big = false;
	if (*c == '<' || *c == '>' || *c == '|' || *c == '=')
		big = *c++ == '>';
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		if (!strcmp(c, codes[i].code)) {
			lo->dtype = codes[i].t;
			lo->size = c[1] - '0';
			lo->swap = big && lo->size > 1;
			lo->f64 = lo->size == 8 && c[0] == 'f';
			return 0;
		}
	return ir_fail(d, -1, -1, "unsupported dtype '%s' (supported: float16, float32, float64, "
		       "int8, int16, int32, int64, uint8, bool)", s);
}

/* Parse the dict literal hdr[0..n). */
static int parse_header(const char *hdr, size_t n, layout *lo, ir_shape *shape, ir_diag *d)
{
	lexer l = {hdr, hdr + n, d};
	bool seen[3] = {false, false, false};
	static const char *const keys[3] = {"descr", "fortran_order", "shape"};
	if (expect(&l, '{', "'{' (a dict)"))
		return -1;
	while (!peek(&l, '}')) {
		char key[32], descr[32];
		int k = 0;
		if (lex_str(&l, key, sizeof key, "a quoted key"))
			return -1;
		while (k < 3 && strcmp(key, keys[k]))
			k++;
		if (k == 3)
			return ir_fail(d, -1, -1, "bad .npy header: unknown key '%s'", key);
		if (seen[k])
			return ir_fail(d, -1, -1, "bad .npy header: key '%s' appears twice", key);
		seen[k] = true;
		if (expect(&l, ':', "':' after a key"))
			return -1;
		if (k == 0) {
			if (peek(&l, '[') || peek(&l, '{'))
				return ir_fail(d, -1, -1, "structured dtypes are not supported");
			if (lex_str(&l, descr, sizeof descr, "a string for 'descr'") || parse_descr(descr, lo, d))
				return -1;
		} else if (k == 1) {
			if (lex_word(&l, "True"))
				lo->fortran = true;
			else if (lex_word(&l, "False"))
				lo->fortran = false;
			else
				return ir_fail(d, -1, -1, "bad .npy header: 'fortran_order' is not True or False");
		} else if (lex_shape(&l, shape)) {
			return -1;
		}
		if (peek(&l, ','))
			l.p++;
		else if (!peek(&l, '}'))
			return ir_fail(d, -1, -1, "bad .npy header: expected ',' or '}' after '%s'", key);
	}
	l.p++;
	skip_ws(&l);
	if (l.p != l.end)
		return ir_fail(d, -1, -1, "bad .npy header: text after the dict");
	for (int k = 0; k < 3; k++)
		if (!seen[k])
			return ir_fail(d, -1, -1, "bad .npy header: no '%s' key", keys[k]);
	return 0;
}

/* ================================================================ read */

static void swap_bytes(uint8_t *p, size_t n, int size)
{
	for (size_t i = 0; i < n; i += (size_t)size)
		for (int a = 0, b = size - 1; a < b; a++, b--) {
			uint8_t t = p[i + a];
			p[i + a] = p[i + b];
			p[i + b] = t;
		}
}

/* Copy a column-major array to row-major order. */
static void fortran_to_c(const uint8_t *src, uint8_t *dst, const ir_shape *s, size_t size)
{
	int64_t n = ir_shape_numel(s), idx[IR_MAX_RANK] = {0}, stride[IR_MAX_RANK], off = 0;
	for (int i = 0; i < s->rank; i++)
		stride[i] = i ? stride[i - 1] * s->dim[i - 1] : 1;
	for (int64_t i = 0; i < n; i++) {
		memcpy(dst + (size_t)i * size, src + (size_t)off * size, size);
		for (int k = s->rank - 1; k >= 0; k--) {	/* next C-order index */
			off += stride[k];
			if (++idx[k] < s->dim[k])
				break;
			off -= stride[k] * s->dim[k];
			idx[k] = 0;
		}
	}
}

int npy_read(const uint8_t *buf, size_t size, npy_array *a, ir_diag *d)
{
	memset(a, 0, sizeof *a);
	if (size && memcmp(buf, NPY_MAGIC, size < 6 ? size : 6))
		return ir_fail(d, -1, -1, "not a .npy file (no \\x93NUMPY magic)");
	if (size < 10)
		return ir_fail(d, -1, -1, "truncated .npy file (%zu bytes)", size);
	int major = buf[6], minor = buf[7];
	if (major < 1 || major > 3 || minor != 0)
		return ir_fail(d, -1, -1, "unsupported .npy format version %d.%d", major, minor);
	size_t pre = major == 1 ? 10 : 12;
	if (size < pre)
		return ir_fail(d, -1, -1, "truncated .npy file (%zu bytes)", size);
	uint64_t hlen = buf[8] | (uint64_t)buf[9] << 8;
	if (major > 1)
		hlen |= (uint64_t)buf[10] << 16 | (uint64_t)buf[11] << 24;
	if (hlen > size - pre)
		return ir_fail(d, -1, -1, "truncated .npy header (%llu bytes announced, %zu present)",
			       (unsigned long long)hlen, size - pre);
	layout lo = {0};
	if (parse_header((const char *)buf + pre, (size_t)hlen, &lo, &a->shape, d))
		return -1;
	int64_t count = ir_shape_numel(&a->shape);
	if ((uint64_t)count > SIZE_MAX / 8)
		return ir_fail(d, -1, -1, "shape has too many elements for this machine");
	size_t numel = (size_t)count, have = size - pre - (size_t)hlen, want = numel * (size_t)lo.size;
	char sh[128];
	if (have < want)
		return ir_fail(d, -1, -1, "truncated data: shape %s of %s needs %zu bytes, the file has %zu",
			       ir_shape_str(&a->shape, sh, sizeof sh), lo.f64 ? "float64" : np_names[lo.dtype],
			       want, have);
	if (have > want)
		return ir_fail(d, -1, -1, "%zu bytes after the array data (one array per .npy)", have - want);
	const uint8_t *src = buf + pre + hlen;
	uint8_t *tmp = NULL;
	if (lo.swap || lo.fortran) {
		if (!(tmp = malloc(want ? want : 1)))
			return ir_fail(d, -1, -1, "out of memory (%zu bytes)", want);
		if (lo.fortran)
			fortran_to_c(src, tmp, &a->shape, (size_t)lo.size);
		else
			memcpy(tmp, src, want);
		if (lo.swap)
			swap_bytes(tmp, want, lo.size);
		src = tmp;
	}
	a->dtype = lo.dtype;
	a->from_f64 = lo.f64;
	a->nbytes = numel * ir_dtype_size(lo.dtype);
	if (!lo.f64 && tmp) {
		a->data = tmp;
	} else {
		a->data = malloc(a->nbytes ? a->nbytes : 1);
		if (!a->data) {
			free(tmp);
			return ir_fail(d, -1, -1, "out of memory (%zu bytes)", a->nbytes);
		}
		if (lo.f64)
			for (size_t i = 0; i < numel; i++) {
				double v;
				memcpy(&v, src + i * 8, 8);	/* out of float range: +-inf, as IEEE rounds */
				((float *)a->data)[i] = v > FLT_MAX ? INFINITY : v < -FLT_MAX ? -INFINITY : (float)v;
			}
		else
			memcpy(a->data, src, a->nbytes);
		free(tmp);
	}
	if (a->dtype == IR_DTYPE_BOOL)
		for (size_t i = 0; i < numel; i++)
			((uint8_t *)a->data)[i] = ((uint8_t *)a->data)[i] != 0;
	return 0;
}

/* ================================================================ write */

int npy_write_mem(const npy_array *a, uint8_t **out, size_t *size, ir_diag *d)
{
	if ((unsigned)a->dtype >= IR_DTYPE_COUNT || !np_descr[a->dtype])
		return ir_fail(d, -1, -1, "%s has no NumPy dtype", ir_dtype_name(a->dtype));
	int64_t numel = ir_shape_numel(&a->shape);
	if (numel < 0)
		return ir_fail(d, -1, -1, "invalid shape");
	if ((size_t)numel * ir_dtype_size(a->dtype) != a->nbytes)
		return ir_fail(d, -1, -1, "array has %zu bytes, its shape needs %zu", a->nbytes,
			       (size_t)numel * ir_dtype_size(a->dtype));
	char hdr[512];
	int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (", np_descr[a->dtype]);
	for (int i = 0; i < a->shape.rank; i++)
		n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%s%lld", i ? ", " : "", (long long)a->shape.dim[i]);
	n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%s), }", a->shape.rank == 1 ? "," : "");
	/* Pad with spaces and a newline so the data starts 64-byte aligned. */
	size_t total = ((size_t)10 + (size_t)n + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN, hlen = total - 10;
	uint8_t *p = malloc(total + a->nbytes);
	if (!p)
		return ir_fail(d, -1, -1, "out of memory (%zu bytes)", total + a->nbytes);
	memcpy(p, NPY_MAGIC "\1\0", 8);
	p[8] = (uint8_t)(hlen & 0xff);
	p[9] = (uint8_t)(hlen >> 8);
	memcpy(p + 10, hdr, (size_t)n);
	memset(p + 10 + n, ' ', hlen - (size_t)n - 1);
	p[total - 1] = '\n';
	if (a->nbytes)
		memcpy(p + total, a->data, a->nbytes);
	*out = p;
	*size = total + a->nbytes;
	return 0;
}

/* ================================================================ npz */

void npy_array_clear(npy_array *a)
{
	free(a->name);
	free(a->data);
	memset(a, 0, sizeof *a);
}

void npz_free(npy_array *arrs, int n)
{
	for (int i = 0; arrs && i < n; i++)
		npy_array_clear(&arrs[i]);
	free(arrs);
}

/* Read entry i (declared size st->size) completely into *out. */
static int read_entry(zip_t *za, const zip_stat_t *st, uint8_t **out, size_t *len, ir_diag *d)
{
	if (!(st->valid & ZIP_STAT_SIZE) || st->size > NPZ_MAX_ENTRY)
		return ir_fail(d, -1, -1, "entry '%s': size unknown or too large", st->name);
	zip_file_t *zf = zip_fopen_index(za, st->index, 0);
	if (!zf)
		return ir_fail(d, -1, -1, "entry '%s': %s", st->name, zip_strerror(za));
	size_t want = (size_t)st->size, cap = want < (1u << 20) ? want : 1u << 20, n = 0;
	uint8_t *p = malloc(cap ? cap : 1), extra;
	int rc = p ? 0 : ir_fail(d, -1, -1, "out of memory");
	while (!rc) {
		if (n == cap && cap < want) {
			size_t c = cap > want / 2 ? want : cap * 2;
			uint8_t *q = realloc(p, c);
			if (!q) {
				rc = ir_fail(d, -1, -1, "out of memory (%zu bytes)", c);
				break;
			}
			p = q;
			cap = c;
		}
		/* Once the declared size is in, one more read checks the end (CRC). */
		zip_int64_t k = n < cap ? zip_fread(zf, p + n, cap - n) : zip_fread(zf, &extra, 1);
		if (k < 0)
			rc = ir_fail(d, -1, -1, "entry '%s': %s", st->name, zip_file_strerror(zf));
		else if (k == 0)
			break;
		else if (n == cap)
			rc = ir_fail(d, -1, -1, "entry '%s': more data than its declared size", st->name);
		else
			n += (size_t)k;
	}
	if (!rc && n != want)
		rc = ir_fail(d, -1, -1, "entry '%s': truncated (%zu of %zu bytes)", st->name, n, want);
	zip_fclose(zf);
	if (rc) {
		free(p);
		return -1;
	}
	*out = p;
	*len = n;
	return 0;
}

/* The data bytes entry st's .npy header declares, from the first bytes of
 * the entry only (inflating at most NPY_PEEK bytes): checked against the
 * size the zip directory declares before anything is inflated whole. */
#define NPY_PEEK (12 + 65536)
static int peek_entry(zip_t *za, const zip_stat_t *st, ir_diag *d)
{
	if (!(st->valid & ZIP_STAT_SIZE) || st->size > NPZ_MAX_ENTRY)
		return ir_fail(d, -1, -1, "entry '%s': size unknown or too large", st->name);
	zip_file_t *zf = zip_fopen_index(za, st->index, 0);
	if (!zf)
		return ir_fail(d, -1, -1, "entry '%s': %s", st->name, zip_strerror(za));
	static const size_t cap = NPY_PEEK;
	uint8_t *b = malloc(cap);
	size_t want = st->size < cap ? (size_t)st->size : cap, n = 0;
	int rc = b ? 0 : ir_fail(d, -1, -1, "out of memory");
	while (!rc && n < want) {
		zip_int64_t k = zip_fread(zf, b + n, want - n);
		if (k < 0)
			rc = ir_fail(d, -1, -1, "entry '%s': %s", st->name, zip_file_strerror(zf));
		else if (k == 0)
			break;
		else
			n += (size_t)k;
	}
	zip_fclose(zf);
	size_t pre = n > 6 && b[6] > 1 ? 12 : 10;
	uint64_t hlen = n >= pre ? (b[8] | (uint64_t)b[9] << 8 | (pre == 12 ? (uint64_t)b[10] << 16 | (uint64_t)b[11] << 24 : 0)) : 0;
	layout lo = {0};
	ir_shape shape;
	ir_diag sub;
	if (rc) {
	} else if (n < pre || memcmp(b, NPY_MAGIC, 6)) {
		rc = ir_fail(d, -1, -1, "entry '%s': not a .npy file (no \\x93NUMPY magic)", st->name);
	} else if (hlen > n - pre) {
		rc = ir_fail(d, -1, -1, "entry '%s': truncated or oversized .npy header", st->name);
	} else if (parse_header((const char *)b + pre, (size_t)hlen, &lo, &shape, &sub)) {
		rc = ir_fail(d, -1, -1, "entry '%s': %s", st->name, sub.msg);
	} else {
		int64_t bytes = ir_shape_numel(&shape);
		if (bytes < 0 || ir_mul_checked(&bytes, lo.size, (int64_t)NPZ_MAX_ENTRY) ||
		    (uint64_t)bytes + pre + hlen != st->size)
			rc = ir_fail(d, -1, -1, "entry '%s': its .npy header declares %lld data bytes, the zip "
				     "directory %lld", st->name, (long long)bytes, (long long)(st->size - pre - hlen));
	}
	free(b);
	return rc;
}

npy_array *npz_read(const uint8_t *buf, size_t size, int *count, ir_diag *d)
{
	return npz_read_want(buf, size, NULL, 0, count, d);
}

npy_array *npz_read_want(const uint8_t *buf, size_t size, const char *const *want, int n_want, int *count,
			 ir_diag *d)
{
	zip_error_t ze;
	zip_error_init(&ze);
	zip_source_t *src = zip_source_buffer_create(buf, size, 0, &ze);
	zip_t *za = src ? zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze) : NULL;
	if (!za) {
		ir_fail(d, -1, -1, "not a valid .npz (zip) archive: %s", zip_error_code_zip(&ze) == ZIP_ER_EXISTS
			? "two entries have the same name" : zip_error_strerror(&ze));
		zip_source_free(src);
		zip_error_fini(&ze);
		return NULL;
	}
	zip_error_fini(&ze);
	zip_int64_t n = zip_get_num_entries(za, 0);
	npy_array *arrs = NULL;
	int rc = 0;
	if (n > NPZ_MAX_ENTRIES)
		rc = ir_fail(d, -1, -1, ".npz has too many entries (%lld)", (long long)n);
	else if (!(arrs = calloc((size_t)n + 1, sizeof *arrs)))
		rc = ir_fail(d, -1, -1, "out of memory");
	/* Names first: refuse bad archives before decompressing anything
	 * (libzip itself refuses duplicate names). */
	for (zip_int64_t i = 0; i < n && !rc; i++) {
		zip_stat_t st;
		if (zip_stat_index(za, (zip_uint64_t)i, 0, &st))
			rc = ir_fail(d, -1, -1, "entry %lld: %s", (long long)i, zip_strerror(za));
		else if (strlen(st.name) <= 4 || strcmp(st.name + strlen(st.name) - 4, ".npy"))
			rc = ir_fail(d, -1, -1, "entry '%s' is not a .npy array", st.name);
		else if (!(arrs[i].name = strndup(st.name, strlen(st.name) - 4)))
			rc = ir_fail(d, -1, -1, "out of memory");
	}
	/* Then the keys the caller needs, and every header against the sizes
	 * the directory declares: still nothing inflated whole. */
	for (int k = 0; k < n_want && !rc; k++) {
		zip_int64_t i = 0;
		while (i < n && strcmp(arrs[i].name, want[k]))
			i++;
		if (i == n) {
			char have[300] = "";
			size_t len = 0;
			for (zip_int64_t j = 0; j < n && len < sizeof have - 1; j++) {
				int w = snprintf(have + len, sizeof have - len, "%s'%s'", j ? ", " : "", arrs[j].name);
				len += w > 0 ? (size_t)w : 0;
			}
			rc = ir_fail(d, -1, -1, "no array for input '%s' (the archive holds %s)", want[k], n ? have : "none");
		}
	}
	for (zip_int64_t i = 0; i < n && !rc; i++) {
		zip_stat_t st;
		if (zip_stat_index(za, (zip_uint64_t)i, 0, &st))
			rc = ir_fail(d, -1, -1, "entry %lld: %s", (long long)i, zip_strerror(za));
		else
			rc = peek_entry(za, &st, d);
	}
	for (zip_int64_t i = 0; i < n && !rc; i++) {
		zip_stat_t st;
		uint8_t *p = NULL;
		size_t len = 0;
		ir_diag sub;
		char *name = arrs[i].name;
		if (zip_stat_index(za, (zip_uint64_t)i, 0, &st)) {
			rc = ir_fail(d, -1, -1, "entry %lld: %s", (long long)i, zip_strerror(za));
			break;
		}
		if (read_entry(za, &st, &p, &len, d)) {
			rc = -1;
			break;
		}
		if (npy_read(p, len, &arrs[i], &sub))
			rc = ir_fail(d, -1, -1, "entry '%s': %s", st.name, sub.msg);
		arrs[i].name = name;
		free(p);
	}
	zip_discard(za);
	if (rc) {
		npz_free(arrs, (int)(n > 0 && n <= NPZ_MAX_ENTRIES ? n : 0));
		return NULL;
	}
	*count = (int)n;
	return arrs;
}

int npz_write_mem(const npy_array *arrs, int n, uint8_t **out, size_t *size, ir_diag *d)
{
	zip_error_t ze;
	zip_error_init(&ze);
	zip_source_t *dst = zip_source_buffer_create(NULL, 0, 0, &ze);
	zip_t *za = dst ? zip_open_from_source(dst, ZIP_TRUNCATE, &ze) : NULL;
	if (!za) {
		ir_fail(d, -1, -1, "cannot create a zip archive: %s", zip_error_strerror(&ze));
		zip_source_free(dst);
		zip_error_fini(&ze);
		return -1;
	}
	zip_error_fini(&ze);
	zip_source_keep(dst);
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		uint8_t *b;
		size_t bn;
		ir_diag sub;
		size_t len = strlen(arrs[i].name);
		char *ename = malloc(len + 5);
		if (!ename) {
			rc = ir_fail(d, -1, -1, "out of memory");
			break;
		}
		memcpy(ename, arrs[i].name, len);
		memcpy(ename + len, ".npy", 5);
		if (npy_write_mem(&arrs[i], &b, &bn, &sub)) {
			rc = ir_fail(d, -1, -1, "array '%s': %s", arrs[i].name, sub.msg);
			free(ename);
			break;
		}
		zip_source_t *s = zip_source_buffer(za, b, bn, 1);
		zip_int64_t idx = s ? zip_file_add(za, ename, s, 0) : -1;
		if (idx < 0) {
			if (s)
				zip_source_free(s);
			else
				free(b);
			rc = zip_error_code_zip(zip_get_error(za)) == ZIP_ER_EXISTS
				? ir_fail(d, -1, -1, "array name '%s' is used twice", arrs[i].name)
				: ir_fail(d, -1, -1, "array '%s': %s", arrs[i].name, zip_strerror(za));
		} else if (zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0) ||
			   zip_file_set_dostime(za, (zip_uint64_t)idx, 0, 0x21, 0) ||	/* 1980-01-01 00:00 */
			   zip_file_set_external_attributes(za, (zip_uint64_t)idx, 0, ZIP_OPSYS_UNIX, 0100644u << 16)) {
			rc = ir_fail(d, -1, -1, "array '%s': %s", arrs[i].name, zip_strerror(za));
		}
		free(ename);
	}
	if (rc) {
		zip_discard(za);
		zip_source_free(dst);
		return -1;
	}
	if (zip_close(za)) {
		ir_fail(d, -1, -1, "cannot write the zip archive: %s", zip_strerror(za));
		zip_discard(za);
		zip_source_free(dst);
		return -1;
	}
	uint8_t *p = NULL;
	zip_stat_t st;
	if (n == 0 || zip_source_is_deleted(dst)) {
		/* libzip writes nothing for an empty archive: an end record alone. */
		zip_source_free(dst);
		if (!(p = calloc(1, 22)))
			return ir_fail(d, -1, -1, "out of memory");
		memcpy(p, "PK\5\6", 4);
		*out = p;
		*size = 22;
		return 0;
	}
	zip_stat_init(&st);
	if (zip_source_stat(dst, &st) == 0 && (st.valid & ZIP_STAT_SIZE) && zip_source_open(dst) == 0) {
		p = malloc(st.size ? (size_t)st.size : 1);
		if (p && zip_source_read(dst, p, st.size) != (zip_int64_t)st.size) {
			free(p);
			p = NULL;
		}
		zip_source_close(dst);
	}
	zip_source_free(dst);
	if (!p)
		return ir_fail(d, -1, -1, "cannot read back the zip archive");
	*out = p;
	*size = (size_t)st.size;
	return 0;
}

npy_array *npy_read_any(const uint8_t *buf, size_t size, int *n, bool *npz, ir_diag *d)
{
	return npy_read_want(buf, size, NULL, 0, n, npz, d);
}

npy_array *npy_read_want(const uint8_t *buf, size_t size, const char *const *want, int n_want, int *n, bool *npz,
			 ir_diag *d)
{
	npy_file_kind kind = npy_sniff(buf, size);
	*npz = kind == NPY_FILE_NPZ;
	if (kind == NPY_FILE_NPZ)
		return npz_read_want(buf, size, want, n_want, n, d);
	if (kind != NPY_FILE_NPY) {
		ir_fail(d, -1, -1, size ? "not a NumPy .npy or .npz file" : "empty file, not a NumPy .npy or .npz file");
		return NULL;
	}
	npy_array *a = calloc(1, sizeof *a);
	*n = 1;
	if (!a)
		ir_fail(d, -1, -1, "out of memory");
	else if (npy_read(buf, size, a, d))
		free(a), a = NULL;
	return a;
}
