/* ir_io.c - the IR stream: msgpack (written with msgpack-c, read by a
 * bounds-checked cursor so hostile sizes never drive allocations) with the
 * weight blob zstd-compressed above a threshold. Layout: man/npu-ir.5. */
#include "ir_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define BLOB_ALIGN 64
#define ZSTD_THRESHOLD (64 * 1024)
#define ZSTD_LEVEL 3
#define MAX_BLOB ((uint64_t)1 << 36)
/* Version 2 ends with the key "crc32" and a uint32 (always 0xce + 4 bytes):
 * the CRC-32 of every byte before that uint32. */
#define CRC_KEY "\xa5" "crc32"
#define CRC_TRAILER 11	/* key (6) + 0xce + 4 */
#define IR_STR_(x) #x
#define IR_STR(x) IR_STR_(x)

/* ================================================================ writer */

static void pk_str(msgpack_packer *pk, const char *s)
{
	size_t n = strlen(s);
	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s, n);
}

static void pk_ints(msgpack_packer *pk, const int *v, int n)
{
	msgpack_pack_array(pk, (size_t)n);
	for (int i = 0; i < n; i++)
		msgpack_pack_int(pk, v[i]);
}

static void pk_shape(msgpack_packer *pk, const ir_shape *s)
{
	msgpack_pack_array(pk, (size_t)s->rank);
	for (int i = 0; i < s->rank; i++)
		msgpack_pack_int64(pk, s->dim[i]);
}

static void pk_meta(msgpack_packer *pk, const ir_graph *g)
{
	msgpack_pack_map(pk, (size_t)g->n_meta);
	for (int i = 0; i < g->n_meta; i++) {
		const ir_meta *m = &g->meta[i];
		pk_str(pk, m->key);
		switch (m->type) {
		case IR_META_STR: pk_str(pk, m->s); break;
		case IR_META_INT: msgpack_pack_int64(pk, m->i); break;
		case IR_META_FLOAT: msgpack_pack_double(pk, m->f); break;
		case IR_META_BOOL: m->i ? msgpack_pack_true(pk) : msgpack_pack_false(pk); break;
		}
	}
}

static void pk_history(msgpack_packer *pk, const ir_graph *g)
{
	msgpack_pack_array(pk, (size_t)g->n_history);
	for (int i = 0; i < g->n_history; i++) {
		const ir_history *h = &g->history[i];
		msgpack_pack_map(pk, 3);
		pk_str(pk, "program");
		pk_str(pk, h->program);
		pk_str(pk, "version");
		pk_str(pk, h->version);
		pk_str(pk, "args");
		msgpack_pack_array(pk, (size_t)h->argc);
		for (int k = 0; k < h->argc; k++)
			pk_str(pk, h->argv[k]);
	}
}

static void pk_quant(msgpack_packer *pk, const ir_quant *q)
{
	msgpack_pack_map(pk, q->has_range ? 6 : 5);
	pk_str(pk, "bits");
	msgpack_pack_int(pk, q->bits);
	pk_str(pk, "symmetric");
	q->symmetric ? msgpack_pack_true(pk) : msgpack_pack_false(pk);
	pk_str(pk, "axis");
	msgpack_pack_int(pk, q->axis);
	pk_str(pk, "scale");
	msgpack_pack_array(pk, (size_t)q->n);
	for (int i = 0; i < q->n; i++)
		msgpack_pack_float(pk, q->scale[i]);
	pk_str(pk, "zero_point");
	msgpack_pack_array(pk, (size_t)q->n);
	for (int i = 0; i < q->n; i++)
		msgpack_pack_int32(pk, q->zero_point[i]);
	if (q->has_range) {
		pk_str(pk, "range");
		msgpack_pack_array(pk, 2);
		msgpack_pack_float(pk, q->range_min);
		msgpack_pack_float(pk, q->range_max);
	}
}

static size_t align_up(size_t v) { return (v + BLOB_ALIGN - 1) / BLOB_ALIGN * BLOB_ALIGN; }

static void pk_tensors(msgpack_packer *pk, const ir_graph *g, size_t *offsets)
{
	msgpack_pack_array(pk, (size_t)g->n_tensors);
	for (int i = 0; i < g->n_tensors; i++) {
		const ir_tensor *t = &g->tensors[i];
		bool lay = t->layout != IR_LAYOUT_NONE, con = t->kind == IR_KIND_CONST;
		msgpack_pack_map(pk, 4 + lay + (t->quant != NULL) + con);
		pk_str(pk, "name");
		pk_str(pk, t->name);
		pk_str(pk, "dtype");
		pk_str(pk, ir_dtype_name(t->dtype));
		pk_str(pk, "shape");
		pk_shape(pk, &t->shape);
		pk_str(pk, "kind");
		pk_str(pk, ir_kind_name(t->kind));
		if (lay) {
			pk_str(pk, "layout");
			pk_str(pk, ir_layout_name(t->layout));
		}
		if (t->quant) {
			pk_str(pk, "quant");
			pk_quant(pk, t->quant);
		}
		if (con) {
			pk_str(pk, "data");
			msgpack_pack_array(pk, 2);
			msgpack_pack_uint64(pk, offsets[i]);
			msgpack_pack_uint64(pk, t->nbytes);
		}
	}
}

static void pk_attr(msgpack_packer *pk, const ir_attr *a)
{
	static const char *const tag[] = {"i", "f", "s", "I", "F"};
	msgpack_pack_array(pk, 2);
	pk_str(pk, tag[a->type]);
	switch (a->type) {
	case IR_ATTR_INT: msgpack_pack_int64(pk, a->i); break;
	case IR_ATTR_FLOAT: msgpack_pack_double(pk, a->f); break;
	case IR_ATTR_STR: pk_str(pk, a->s); break;
	case IR_ATTR_INTS:
		msgpack_pack_array(pk, (size_t)a->n);
		for (int i = 0; i < a->n; i++)
			msgpack_pack_int64(pk, a->ints[i]);
		break;
	case IR_ATTR_FLOATS:
		msgpack_pack_array(pk, (size_t)a->n);
		for (int i = 0; i < a->n; i++)
			msgpack_pack_double(pk, a->floats[i]);
		break;
	}
}

static void pk_nodes(msgpack_packer *pk, const ir_graph *g)
{
	msgpack_pack_array(pk, (size_t)g->n_nodes);
	for (int i = 0; i < g->n_nodes; i++) {
		const ir_node *n = &g->nodes[i];
		bool prec = n->precision != IR_PREC_NONE, orig = n->origin != NULL;
		msgpack_pack_map(pk, 5 + prec + orig);
		pk_str(pk, "name");
		pk_str(pk, n->name);
		pk_str(pk, "op");
		pk_str(pk, ir_op_name(n->op));
		pk_str(pk, "inputs");
		pk_ints(pk, n->inputs, n->n_inputs);
		pk_str(pk, "outputs");
		pk_ints(pk, n->outputs, n->n_outputs);
		pk_str(pk, "attrs");
		msgpack_pack_map(pk, (size_t)n->n_attrs);
		for (int k = 0; k < n->n_attrs; k++) {
			pk_str(pk, n->attrs[k].name);
			pk_attr(pk, &n->attrs[k]);
		}
		if (prec) {
			pk_str(pk, "precision");
			pk_str(pk, ir_precision_name(n->precision));
		}
		if (orig) {
			pk_str(pk, "origin");
			pk_str(pk, n->origin);
		}
	}
}

uint32_t ir_crc32(const void *buf, size_t size)
{
	uLong c = crc32(0L, Z_NULL, 0);
	const Bytef *p = buf;
	while (size > 0) {	/* zlib takes uInt lengths */
		uInt n = size > (1u << 30) ? 1u << 30 : (uInt)size;
		c = crc32(c, p, n);
		p += n;
		size -= n;
	}
	return (uint32_t)c;
}

/* Room for n more bytes in sb (exactly: msgpack's doubling would take up
 * to twice a large blob); -1 out of memory. */
static int sb_reserve(msgpack_sbuffer *sb, size_t n)
{
	if (sb->alloc - sb->size >= n)
		return 0;
	if (n > SIZE_MAX - sb->size)
		return -1;
	char *p = realloc(sb->data, sb->size + n);
	if (!p)
		return -1;
	sb->data = p;
	sb->alloc = sb->size + n;
	return 0;
}

/* The blob as a msgpack bin, written straight into sb from the tensors
 * (no contiguous copy of the weights): raw, or one zstd frame compressed
 * tensor by tensor (with its padding) into the reserved room. */
static int pk_blob(msgpack_sbuffer *sb, const ir_graph *g, size_t blob_size, bool zstd, ir_diag *d)
{
	static const uint8_t zeros[BLOB_ALIGN];
	size_t cap = zstd ? ZSTD_compressBound(blob_size) : blob_size;
	if (sb_reserve(sb, 5 + cap + CRC_TRAILER))
		return ir_fail(d, -1, -1, "out of memory");
	uint8_t *dst = (uint8_t *)sb->data + sb->size + 5;
	size_t len = 0, at = 0;
	ZSTD_CCtx *cc = zstd ? ZSTD_createCCtx() : NULL;
	if (zstd && (!cc || ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, ZSTD_LEVEL)) ||
		     ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(cc, blob_size)))) {
		ZSTD_freeCCtx(cc);
		return ir_fail(d, -1, -1, "out of memory");
	}
	ZSTD_outBuffer zo = {dst, cap, 0};
	size_t zr = 0;
	bool full = false;	/* cannot happen: cap is zstd's bound */
	for (int i = 0; i <= g->n_tensors && !ZSTD_isError(zr) && !full; i++) {
		const ir_tensor *t = i < g->n_tensors ? &g->tensors[i] : NULL;
		if (t && t->kind != IR_KIND_CONST)
			continue;
		/* tensor i's bytes, then zeros up to the next 64-byte boundary */
		size_t nb = t ? t->nbytes : 0, pad = (t ? align_up(at + nb) : blob_size) - at - nb;
		const void *parts[2] = {nb ? t->data : NULL, zeros};
		size_t sizes[2] = {nb, pad};
		for (int k = 0; k < 2 && !ZSTD_isError(zr); k++) {
			if (!zstd) {
				if (sizes[k])
					memcpy(dst + len, parts[k], sizes[k]);
				len += sizes[k];
				continue;
			}
			ZSTD_inBuffer zi = {parts[k], sizes[k], 0};
			while (zi.pos < zi.size && !ZSTD_isError(zr) && zo.pos < zo.size)
				zr = ZSTD_compressStream2(cc, &zo, &zi, ZSTD_e_continue);
			full |= zi.pos < zi.size;
		}
		at += nb + pad;
	}
	if (zstd) {
		ZSTD_inBuffer zi = {NULL, 0, 0};
		do
			zr = ZSTD_isError(zr) ? zr : ZSTD_compressStream2(cc, &zo, &zi, ZSTD_e_end);
		while (zr && !ZSTD_isError(zr) && zo.pos < zo.size);
		ZSTD_freeCCtx(cc);
		if (ZSTD_isError(zr) || zr || full)
			return ir_fail(d, -1, -1, "zstd: %s", ZSTD_isError(zr) ? ZSTD_getErrorName(zr) : "output too large");
		len = zo.pos;
	}
	/* the bin header msgpack_pack_bin would write, in front of the bytes */
	uint8_t *h = (uint8_t *)sb->data + sb->size;
	int hl = len < 256 ? 2 : len < 65536 ? 3 : 5;
	h[0] = hl == 2 ? 0xc4 : hl == 3 ? 0xc5 : 0xc6;
	for (int k = 1; k < hl; k++)
		h[k] = (uint8_t)(len >> (8 * (hl - 1 - k)));
	if (hl != 5)
		memmove(h + hl, dst, len);
	sb->size += (size_t)hl + len;
	return 0;
}

int ir_graph_serialize(const ir_graph *g, uint8_t **out, size_t *size, ir_diag *d)
{
	size_t *offsets = calloc((size_t)g->n_tensors + 1, sizeof *offsets), blob_size = 0;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	int rc = -1;
	msgpack_sbuffer_init(&sb);
	if (!offsets)
		goto oom;
	for (int i = 0; i < g->n_tensors; i++)
		if (g->tensors[i].kind == IR_KIND_CONST) {
			offsets[i] = blob_size;
			blob_size = align_up(blob_size + g->tensors[i].nbytes);
		}
	bool zstd = blob_size > ZSTD_THRESHOLD;
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 9);
	pk_str(&pk, "npu-ir");
	msgpack_pack_int(&pk, IR_FORMAT_VERSION);
	pk_str(&pk, "meta");
	pk_meta(&pk, g);
	pk_str(&pk, "history");
	pk_history(&pk, g);
	pk_str(&pk, "tensors");
	pk_tensors(&pk, g, offsets);
	pk_str(&pk, "nodes");
	pk_nodes(&pk, g);
	pk_str(&pk, "inputs");
	pk_ints(&pk, g->inputs, g->n_inputs);
	pk_str(&pk, "outputs");
	pk_ints(&pk, g->outputs, g->n_outputs);
	pk_str(&pk, "blob");
	msgpack_pack_map(&pk, 3);
	pk_str(&pk, "size");
	msgpack_pack_uint64(&pk, blob_size);
	pk_str(&pk, "compression");
	pk_str(&pk, zstd ? "zstd" : "none");
	pk_str(&pk, "data");
	if (!sb.data)
		goto oom;
	if (pk_blob(&sb, g, blob_size, zstd, d))
		goto out;
	msgpack_sbuffer_write(&sb, CRC_KEY, 6);
	if (!sb.data)
		goto oom;
	uint32_t crc = ir_crc32(sb.data, sb.size);
	char tail[5] = {(char)0xce, (char)(crc >> 24), (char)(crc >> 16), (char)(crc >> 8), (char)crc};
	msgpack_sbuffer_write(&sb, tail, sizeof tail);
	if (!sb.data)
		goto oom;
	*out = (uint8_t *)sb.data;
	*size = sb.size;
	sb.data = NULL;
	rc = 0;
	goto out;
oom:
	ir_fail(d, -1, -1, "out of memory");
out:
	msgpack_sbuffer_destroy(&sb);
	free(offsets);
	return rc;
}

int ir_graph_write_mem(const ir_graph *g, uint8_t **out, size_t *size, ir_diag *d)
{
	if (ir_graph_verify(g, d))
		return -1;
	return ir_graph_serialize(g, out, size, d);
}

/* ================================================================ reader */

/* A cursor over untrusted msgpack bytes. Every read checks bounds; the first
 * error is kept and later reads fail quietly. */
typedef struct {
	const uint8_t *p, *end;
	ir_diag *d;
	bool bad;
	char where[96];
} rd;

static int rd_fail(rd *r, const char *fmt, const char *arg)
{
	if (!r->bad) {
		char m[256];
		snprintf(m, sizeof m, fmt, arg);
		if (r->where[0])
			ir_fail(r->d, -1, -1, "%s: %s", r->where, m);
		else
			ir_fail(r->d, -1, -1, "%s", m);
	}
	r->bad = true;
	return -1;
}

static int rd_need(rd *r, size_t n)
{
	if (r->bad)
		return -1;
	if ((size_t)(r->end - r->p) < n)
		return rd_fail(r, "%struncated IR stream", "");
	return 0;
}

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

typedef enum { MP_NIL, MP_BOOL, MP_INT, MP_FLOAT, MP_STR, MP_BIN, MP_ARRAY, MP_MAP, MP_BAD } mp_type;

typedef struct {
	mp_type type;
	int64_t i;	/* int, bool */
	bool is_uint_big;	/* uint64 above INT64_MAX */
	double f;
	const uint8_t *s;	/* str, bin */
	uint64_t n;	/* str/bin length, array/map count */
} mp_val;

/* Read one value header; containers are left for the caller to walk. */
static int rd_val(rd *r, mp_val *v)
{
	memset(v, 0, sizeof *v);
	v->type = MP_BAD;
	if (rd_need(r, 1))
		return -1;
	uint8_t c = *r->p++;
	int len = 0;
	if (c <= 0x7f) {
		v->type = MP_INT;
		v->i = c;
		return 0;
	}
	if (c >= 0xe0) {
		v->type = MP_INT;
		v->i = (int8_t)c;
		return 0;
	}
	if ((c & 0xf0) == 0x80 || (c & 0xf0) == 0x90) {
		v->type = (c & 0xf0) == 0x80 ? MP_MAP : MP_ARRAY;
		v->n = c & 0x0f;
		goto container;
	}
	if ((c & 0xe0) == 0xa0) {
		v->type = MP_STR;
		v->n = c & 0x1f;
		goto bytes;
	}
	switch (c) {
	case 0xc0: v->type = MP_NIL; return 0;
	case 0xc2: case 0xc3: v->type = MP_BOOL; v->i = c == 0xc3; return 0;
	case 0xc4: case 0xc5: case 0xc6:
		len = 1 << (c - 0xc4);
		v->type = MP_BIN;
		goto sized;
	case 0xd9: case 0xda: case 0xdb:
		len = 1 << (c - 0xd9);
		v->type = MP_STR;
		goto sized;
	case 0xdc: case 0xdd:
		len = c == 0xdc ? 2 : 4;
		v->type = MP_ARRAY;
		goto counted;
	case 0xde: case 0xdf:
		len = c == 0xde ? 2 : 4;
		v->type = MP_MAP;
		goto counted;
	case 0xca:
		if (rd_need(r, 4))
			return -1;
		{
			uint32_t u = (uint32_t)be(r->p, 4);
			float f;
			memcpy(&f, &u, 4);
			v->f = f;
		}
		r->p += 4;
		v->type = MP_FLOAT;
		return 0;
	case 0xcb:
		if (rd_need(r, 8))
			return -1;
		{
			uint64_t u = be(r->p, 8);
			memcpy(&v->f, &u, 8);
		}
		r->p += 8;
		v->type = MP_FLOAT;
		return 0;
	case 0xcc: case 0xcd: case 0xce: case 0xcf: {
		int n = 1 << (c - 0xcc);
		if (rd_need(r, (size_t)n))
			return -1;
		uint64_t u = be(r->p, n);
		r->p += n;
		v->type = MP_INT;
		v->is_uint_big = u > INT64_MAX;
		v->i = (int64_t)(u & INT64_MAX);
		return 0;
	}
	case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
		int n = 1 << (c - 0xd0);
		if (rd_need(r, (size_t)n))
			return -1;
		uint64_t u = be(r->p, n);
		r->p += n;
		if (n < 8 && (u >> (8 * n - 1)))
			u |= ~(uint64_t)0 << (8 * n);
		v->type = MP_INT;
		v->i = (int64_t)u;
		return 0;
	}
	default:
		return rd_fail(r, "%sunexpected msgpack type in IR stream", "");
	}
sized:
	if (rd_need(r, (size_t)len))
		return -1;
	v->n = be(r->p, len);
	r->p += len;
bytes:
	if (rd_need(r, v->n))
		return -1;
	v->s = r->p;
	r->p += v->n;
	return 0;
counted:
	if (rd_need(r, (size_t)len))
		return -1;
	v->n = be(r->p, len);
	r->p += len;
container:
	/* Every element takes at least one byte: a count beyond the rest of
	 * the stream is a lie, caught before anything is allocated. */
	if (v->n > (uint64_t)(r->end - r->p))
		return rd_fail(r, "%struncated IR stream", "");
	return 0;
}

/* Skip one complete value (depth-limited). */
static int rd_skip(rd *r, int depth)
{
	mp_val v;
	if (depth > 32)
		return rd_fail(r, "%sIR stream nested too deeply", "");
	if (rd_val(r, &v))
		return -1;
	uint64_t n = v.type == MP_MAP ? 2 * v.n : v.type == MP_ARRAY ? v.n : 0;
	for (uint64_t i = 0; i < n; i++)
		if (rd_skip(r, depth + 1))
			return -1;
	return 0;
}

static int rd_expect(rd *r, mp_val *v, mp_type t, const char *what)
{
	if (rd_val(r, v))
		return -1;
	if (v->type != t)
		return rd_fail(r, "%s has the wrong type", what);
	return 0;
}

/* A string value, copied NUL-terminated into buf (too long or with NUL bytes: error). */
static int rd_str(rd *r, char *buf, size_t size, const char *what)
{
	mp_val v;
	if (rd_expect(r, &v, MP_STR, what))
		return -1;
	if (v.n >= size || memchr(v.s, 0, v.n))
		return rd_fail(r, "%s is too long or not text", what);
	memcpy(buf, v.s, v.n);
	buf[v.n] = 0;
	return 0;
}

/* A string value, newly allocated. */
static char *rd_strdup(rd *r, const char *what)
{
	mp_val v;
	if (rd_expect(r, &v, MP_STR, what))
		return NULL;
	if (memchr(v.s, 0, v.n)) {
		rd_fail(r, "%s contains a NUL byte", what);
		return NULL;
	}
	char *s = malloc(v.n + 1);
	if (!s) {
		rd_fail(r, "%sout of memory", "");
		return NULL;
	}
	memcpy(s, v.s, v.n);
	s[v.n] = 0;
	return s;
}

static int rd_int(rd *r, int64_t lo, int64_t hi, int64_t *out, const char *what)
{
	mp_val v;
	if (rd_expect(r, &v, MP_INT, what))
		return -1;
	if (v.is_uint_big || v.i < lo || v.i > hi)
		return rd_fail(r, "%s is out of range", what);
	*out = v.i;
	return 0;
}

static int rd_num(rd *r, double *out, const char *what)
{
	mp_val v;
	if (rd_val(r, &v))
		return -1;
	if (v.type == MP_FLOAT)
		*out = v.f;
	else if (v.type == MP_INT && !v.is_uint_big)
		*out = (double)v.i;
	else
		return rd_fail(r, "%s is not a number", what);
	return 0;
}

static int rd_bool(rd *r, bool *out, const char *what)
{
	mp_val v;
	if (rd_expect(r, &v, MP_BOOL, what))
		return -1;
	*out = v.i != 0;
	return 0;
}

/* Array of at most max ints in [lo, hi] into a new int array. */
static int rd_int_array(rd *r, int max, int64_t lo, int64_t hi, int **out, int *n, const char *what)
{
	mp_val v;
	if (rd_expect(r, &v, MP_ARRAY, what))
		return -1;
	if (v.n > (uint64_t)max)
		return rd_fail(r, "%s has too many entries", what);
	int *a = malloc(sizeof(int) * (v.n + 1));
	if (!a)
		return rd_fail(r, "%sout of memory", "");
	for (uint64_t i = 0; i < v.n; i++) {
		int64_t x;
		if (rd_int(r, lo, hi, &x, what)) {
			free(a);
			return -1;
		}
		a[i] = (int)x;
	}
	*out = a;
	*n = (int)v.n;
	return 0;
}

static int rd_shape(rd *r, ir_shape *s)
{
	mp_val v;
	if (rd_expect(r, &v, MP_ARRAY, "shape"))
		return -1;
	if (v.n > IR_MAX_RANK)
		return rd_fail(r, "%shas more dimensions than supported", "shape ");
	s->rank = (int)v.n;
	for (int i = 0; i < s->rank; i++)
		if (rd_int(r, 0, IR_MAX_DIM, &s->dim[i], "shape dimension"))
			return -1;
	if (ir_shape_numel(s) < 0)
		return rd_fail(r, "%sshape has too many elements", "");
	return 0;
}

static int rd_meta(rd *r, ir_graph *g)
{
	mp_val m, v;
	char key[256];
	if (rd_expect(r, &m, MP_MAP, "meta"))
		return -1;
	for (uint64_t i = 0; i < m.n; i++) {
		if (rd_str(r, key, sizeof key, "meta key") || rd_val(r, &v))
			return -1;
		int rc;
		if (v.type == MP_STR) {
			char *s = malloc(v.n + 1);
			if (!s)
				return rd_fail(r, "%sout of memory", "");
			memcpy(s, v.s, v.n);
			s[v.n] = 0;
			rc = memchr(v.s, 0, v.n) ? -1 : ir_meta_set_str(g, key, s);
			free(s);
		} else if (v.type == MP_INT && !v.is_uint_big) {
			rc = ir_meta_set_int(g, key, v.i);
		} else if (v.type == MP_FLOAT) {
			rc = ir_meta_set_float(g, key, v.f);
		} else if (v.type == MP_BOOL) {
			rc = ir_meta_set_bool(g, key, v.i != 0);
		} else {
			return rd_fail(r, "meta '%s' has an unsupported type", key);
		}
		if (rc)
			return rd_fail(r, "bad meta entry '%s'", key);
	}
	return 0;
}

static int rd_history(rd *r, ir_graph *g)
{
	mp_val a, m, v;
	char key[32];
	if (rd_expect(r, &a, MP_ARRAY, "history"))
		return -1;
	for (uint64_t i = 0; i < a.n; i++) {
		char *prog = NULL, *ver = NULL, **argv = NULL;
		uint64_t argc = 0;
		int rc = -1;
		if (rd_expect(r, &m, MP_MAP, "history entry"))
			return -1;
		for (uint64_t k = 0; k < m.n; k++) {
			if (rd_str(r, key, sizeof key, "history key"))
				goto next;
			if (!strcmp(key, "program") && !prog)
				prog = rd_strdup(r, "history program");
			else if (!strcmp(key, "version") && !ver)
				ver = rd_strdup(r, "history version");
			else if (!strcmp(key, "args") && !argv) {
				if (rd_expect(r, &v, MP_ARRAY, "history args"))
					goto next;
				if (!(argv = calloc(v.n + 1, sizeof *argv))) {
					rd_fail(r, "%sout of memory", "");
					goto next;
				}
				for (argc = 0; argc < v.n; argc++)
					if (!(argv[argc] = rd_strdup(r, "history argument")))
						goto next;
			} else if (rd_skip(r, 0))
				goto next;
		}
		if (!prog || !ver || !argv || argc > INT32_MAX)
			rd_fail(r, "%sincomplete history entry", "");
		else
			rc = ir_graph_add_history(g, prog, ver, (int)argc, argv);
	next:
		free(prog);
		free(ver);
		for (uint64_t k = 0; argv && k < argc; k++)
			free(argv[k]);
		free(argv);
		if (rc)
			return rd_fail(r, "%sbad history entry", "");
	}
	return 0;
}

static int rd_quant(rd *r, ir_quant *q)
{
	mp_val m, v;
	char key[32];
	bool have_scale = false, have_zp = false;
	int64_t x;
	q->axis = -1;
	if (rd_expect(r, &m, MP_MAP, "quant"))
		return -1;
	for (uint64_t i = 0; i < m.n; i++) {
		if (rd_str(r, key, sizeof key, "quant key"))
			return -1;
		if (!strcmp(key, "bits")) {
			if (rd_int(r, 2, 64, &x, "quant bits"))
				return -1;
			q->bits = (int)x;
		} else if (!strcmp(key, "symmetric")) {
			if (rd_bool(r, &q->symmetric, "quant symmetric"))
				return -1;
		} else if (!strcmp(key, "axis")) {
			if (rd_int(r, -1, IR_MAX_RANK - 1, &x, "quant axis"))
				return -1;
			q->axis = (int)x;
		} else if ((!strcmp(key, "scale") && !have_scale) || (!strcmp(key, "zero_point") && !have_zp)) {
			bool sc = key[0] == 's';
			if (rd_expect(r, &v, MP_ARRAY, key))
				return -1;
			if (v.n < 1 || v.n > (1 << 24) || (q->n && (uint64_t)q->n != v.n))
				return rd_fail(r, "quant %s has a bad length", key);
			q->n = (int)v.n;
			if (sc ? !(q->scale = malloc(sizeof(float) * v.n)) : !(q->zero_point = malloc(sizeof(int32_t) * v.n)))
				return rd_fail(r, "%sout of memory", "");
			for (uint64_t k = 0; k < v.n; k++) {
				double f;
				if (sc ? rd_num(r, &f, "quant scale") : rd_int(r, INT32_MIN, INT32_MAX, &x, "quant zero point"))
					return -1;
				if (sc)
					q->scale[k] = (float)f;
				else
					q->zero_point[k] = (int32_t)x;
			}
			*(sc ? &have_scale : &have_zp) = true;
		} else if (!strcmp(key, "range")) {
			double lo, hi;
			if (rd_expect(r, &v, MP_ARRAY, "quant range"))
				return -1;
			if (v.n != 2)
				return rd_fail(r, "%squant range needs two values", "");
			if (rd_num(r, &lo, "quant range") || rd_num(r, &hi, "quant range"))
				return -1;
			q->has_range = true;
			q->range_min = (float)lo;
			q->range_max = (float)hi;
		} else if (rd_skip(r, 0)) {
			return -1;
		}
	}
	if (!have_scale || !have_zp || !q->bits)
		return rd_fail(r, "%squant needs bits, scale and zero_point", "");
	return 0;
}

typedef struct {
	uint64_t off, len;
	bool has;
} data_ref;

static int rd_tensor(rd *r, ir_graph *g, data_ref *ref)
{
	mp_val m, v;
	char key[32], *name = NULL, dtype[16] = "", kind[16] = "", layout[16] = "";
	ir_shape shape = {0};
	ir_quant q = {0};
	bool have_shape = false, have_quant = false;
	int rc = -1, id;
	ir_diag dd;
	if (rd_expect(r, &m, MP_MAP, "tensor"))
		return -1;
	for (uint64_t i = 0; i < m.n; i++) {
		if (rd_str(r, key, sizeof key, "tensor key"))
			goto out;
		if (!strcmp(key, "name") && !name) {
			if (!(name = rd_strdup(r, "tensor name")))
				goto out;
		} else if (!strcmp(key, "dtype")) {
			if (rd_str(r, dtype, sizeof dtype, "tensor dtype"))
				goto out;
		} else if (!strcmp(key, "kind")) {
			if (rd_str(r, kind, sizeof kind, "tensor kind"))
				goto out;
		} else if (!strcmp(key, "layout")) {
			if (rd_str(r, layout, sizeof layout, "tensor layout"))
				goto out;
		} else if (!strcmp(key, "shape")) {
			if (rd_shape(r, &shape))
				goto out;
			have_shape = true;
		} else if (!strcmp(key, "quant") && !have_quant) {
			have_quant = true;
			if (rd_quant(r, &q))
				goto out;
		} else if (!strcmp(key, "data")) {
			if (rd_expect(r, &v, MP_ARRAY, "tensor data") )
				goto out;
			int64_t a, b;
			if (v.n != 2 || rd_int(r, 0, INT64_MAX, &a, "data offset") || rd_int(r, 0, INT64_MAX, &b, "data size")) {
				rd_fail(r, "%stensor data must be [offset, size]", "");
				goto out;
			}
			ref->off = (uint64_t)a;
			ref->len = (uint64_t)b;
			ref->has = true;
		} else if (rd_skip(r, 0)) {
			goto out;
		}
	}
	int dt = ir_dtype_from_name(dtype), kd = ir_kind_from_name(kind);
	int ly = layout[0] ? ir_layout_from_name(layout) : IR_LAYOUT_NONE;
	if (!name || !have_shape || dt < 0 || kd < 0 || ly < 0) {
		rd_fail(r, "tensor '%s' lacks a name, shape, or a valid dtype, kind or layout", name ? name : "?");
		goto out;
	}
	if ((kd == IR_KIND_CONST) != ref->has) {
		rd_fail(r, "tensor '%s': only constants have data, and every constant has", name);
		goto out;
	}
	if ((id = ir_graph_add_tensor(g, name, (ir_dtype)dt, &shape, (ir_kind)kd, &dd)) < 0) {
		rd_fail(r, "%s", dd.msg);
		goto out;
	}
	g->tensors[id].layout = (ir_layout)ly;
	if (have_quant && ir_tensor_set_quant(g, id, &q, &dd)) {
		rd_fail(r, "%s", dd.msg);
		goto out;
	}
	rc = 0;
out:
	free(name);
	free(q.scale);
	free(q.zero_point);
	return rc;
}

static int rd_attr(rd *r, ir_graph *g, int node, const char *key)
{
	mp_val v, x;
	char tag[4];
	if (rd_expect(r, &v, MP_ARRAY, "attribute"))
		return -1;
	if (v.n != 2 || rd_str(r, tag, sizeof tag, "attribute type") || strlen(tag) != 1)
		return rd_fail(r, "attribute '%s' must be [type, value]", key);
	int rc = -1;
	switch (tag[0]) {
	case 'i': {
		int64_t i;
		if (rd_int(r, INT64_MIN, INT64_MAX, &i, "attribute"))
			return -1;
		rc = ir_node_set_int(g, node, key, i);
		break;
	}
	case 'f': {
		double f;
		if (rd_num(r, &f, "attribute"))
			return -1;
		rc = ir_node_set_float(g, node, key, f);
		break;
	}
	case 's': {
		char *s = rd_strdup(r, "attribute");
		if (!s)
			return -1;
		rc = ir_node_set_str(g, node, key, s);
		free(s);
		break;
	}
	case 'I':
	case 'F': {
		if (rd_expect(r, &x, MP_ARRAY, "attribute"))
			return -1;
		if (x.n > 4096)
			return rd_fail(r, "attribute '%s' has too many values", key);
		int64_t *ints = malloc(sizeof(int64_t) * (x.n + 1));
		double *fl = malloc(sizeof(double) * (x.n + 1));
		if (!ints || !fl) {
			free(ints);
			free(fl);
			return rd_fail(r, "%sout of memory", "");
		}
		for (uint64_t k = 0; k < x.n && !r->bad; k++) {
			if (tag[0] == 'I')
				rd_int(r, INT64_MIN, INT64_MAX, &ints[k], "attribute");
			else
				rd_num(r, &fl[k], "attribute");
		}
		if (!r->bad)
			rc = tag[0] == 'I' ? ir_node_set_ints(g, node, key, ints, (int)x.n)
					   : ir_node_set_floats(g, node, key, fl, (int)x.n);
		free(ints);
		free(fl);
		if (r->bad)
			return -1;
		break;
	}
	default:
		return rd_fail(r, "attribute '%s' has an unknown type", key);
	}
	return rc ? rd_fail(r, "bad attribute '%s'", key) : 0;
}

static int rd_node(rd *r, ir_graph *g)
{
	mp_val m, a;
	char key[64], opname[64] = "", prec[16] = "", *name = NULL, *origin = NULL;
	int *in = NULL, *out = NULL, nin = -1, nout = -1, rc = -1, id;
	const uint8_t *attrs_at = NULL;
	ir_diag dd;
	if (rd_expect(r, &m, MP_MAP, "node"))
		return -1;
	for (uint64_t i = 0; i < m.n; i++) {
		if (rd_str(r, key, sizeof key, "node key"))
			goto out;
		if (!strcmp(key, "name") && !name) {
			if (!(name = rd_strdup(r, "node name")))
				goto out;
		} else if (!strcmp(key, "op")) {
			if (rd_str(r, opname, sizeof opname, "node op"))
				goto out;
		} else if (!strcmp(key, "inputs") && !in) {
			if (rd_int_array(r, 65536, -1, g->n_tensors - 1, &in, &nin, "node input id"))
				goto out;
		} else if (!strcmp(key, "outputs") && !out) {
			if (rd_int_array(r, 65536, 0, g->n_tensors - 1, &out, &nout, "node output id"))
				goto out;
		} else if (!strcmp(key, "attrs") && !attrs_at) {
			/* Remember where attributes are; read them once the node exists. */
			attrs_at = r->p;
			if (rd_skip(r, 0))
				goto out;
		} else if (!strcmp(key, "precision")) {
			if (rd_str(r, prec, sizeof prec, "node precision"))
				goto out;
		} else if (!strcmp(key, "origin") && !origin) {
			if (!(origin = rd_strdup(r, "node origin")))
				goto out;
		} else if (rd_skip(r, 0)) {
			goto out;
		}
	}
	int op = ir_op_from_name(opname), pr = ir_precision_from_name(prec);
	if (!name || op < 0 || nin < 0 || nout < 0 || pr < 0) {
		rd_fail(r, opname[0] && op < 0 ? "unknown op '%s'" : "node '%s' lacks a name, op, inputs or outputs",
			opname[0] && op < 0 ? opname : name ? name : "?");
		goto out;
	}
	if ((id = ir_graph_add_node(g, name, op, in, nin, out, nout, &dd)) < 0) {
		rd_fail(r, "%s", dd.msg);
		goto out;
	}
	g->nodes[id].precision = (ir_precision)pr;
	if (origin && ir_node_set_origin(g, id, origin)) {
		rd_fail(r, "%sout of memory", "");
		goto out;
	}
	if (attrs_at) {
		const uint8_t *resume = r->p;
		r->p = attrs_at;
		if (rd_expect(r, &a, MP_MAP, "node attrs"))
			goto out;
		for (uint64_t i = 0; i < a.n; i++)
			if (rd_str(r, key, sizeof key, "attribute name") || rd_attr(r, g, id, key))
				goto out;
		r->p = resume;
	}
	rc = 0;
out:
	free(name);
	free(origin);
	free(in);
	free(out);
	return rc;
}

/* The zstd frame v decompressed straight into the constants' own buffers,
 * for constants whose ranges come in id order without overlapping (as the
 * writer lays them out): no blob-sized buffer. 1: not so laid out (the
 * caller decompresses the whole blob), 0 done, -1 error. */
static int rd_zstd_tensors(rd *r, ir_graph *g, const data_ref *refs, const mp_val *v, uint64_t size)
{
	uint64_t end = 0;
	for (int t = 0; t < g->n_tensors; t++)
		if (refs[t].has) {
			if (refs[t].off < end || refs[t].off > size || refs[t].len > size - refs[t].off)
				return 1;
			end = refs[t].off + refs[t].len;
		}
	enum { SCRATCH = 1 << 16 };
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	uint8_t *scratch = malloc(SCRATCH);
	if (!dc || !scratch) {
		ZSTD_freeDCtx(dc);
		free(scratch);
		return rd_fail(r, "%sout of memory", "");
	}
	ZSTD_inBuffer in = {v->s, (size_t)v->n, 0};
	uint64_t at = 0;
	size_t ret = 1;
	const char *why = NULL;
	for (int t = 0; t <= g->n_tensors && !why; t++) {
		if (t < g->n_tensors && !refs[t].has)
			continue;
		uint64_t off = t < g->n_tensors ? refs[t].off : size, len = t < g->n_tensors ? refs[t].len : 0;
		uint8_t *buf = NULL;
		if (t < g->n_tensors && !(buf = malloc((size_t)len + 1))) {
			why = "out of memory";
			break;
		}
		/* padding before the constant (into scratch), then the constant */
		for (int part = 0; part < 2 && !why; part++) {
			uint64_t want = part ? len : off - at;
			for (uint64_t got = 0; got < want && !why;) {
				uint64_t n = want - got;
				ZSTD_outBuffer out = {part ? buf + got : scratch, (size_t)(part || n < SCRATCH ? n : SCRATCH), 0};
				ret = ZSTD_decompressStream(dc, &out, &in);
				if (ZSTD_isError(ret))
					why = ZSTD_getErrorName(ret);
				else if (!out.pos && in.pos == in.size)
					why = "short frame";
				got += out.pos;
			}
			at += want;
		}
		if (!why && buf) {
			ir_diag dd;
			if (ir_tensor_adopt_data(g, t, buf, (size_t)len, &dd)) {
				free(buf);
				free(scratch);
				ZSTD_freeDCtx(dc);
				return rd_fail(r, "%s", dd.msg);
			}
		} else {
			free(buf);
		}
	}
	/* the frame ends exactly here (its content size is the blob's) */
	if (!why && ret) {
		ZSTD_outBuffer out = {scratch, 1, 0};
		ret = ZSTD_decompressStream(dc, &out, &in);
		why = ZSTD_isError(ret) ? ZSTD_getErrorName(ret) : ret || out.pos ? "short frame" : NULL;
	}
	if (!why && in.pos != in.size)
		why = "data after the frame";
	free(scratch);
	ZSTD_freeDCtx(dc);
	return why ? rd_fail(r, "zstd: %s", why) : 0;
}

/* Decompress or copy the blob, then give each constant its bytes. */
static int rd_blob(rd *r, ir_graph *g, const data_ref *refs)
{
	mp_val m, v = {0};
	char key[32], comp[16] = "";
	int64_t size = -1;
	uint8_t *blob = NULL;
	int rc = -1;
	if (rd_expect(r, &m, MP_MAP, "blob"))
		return -1;
	for (uint64_t i = 0; i < m.n; i++) {
		if (rd_str(r, key, sizeof key, "blob key"))
			return -1;
		if (!strcmp(key, "size")) {
			if (rd_int(r, 0, (int64_t)MAX_BLOB, &size, "blob size"))
				return -1;
		} else if (!strcmp(key, "compression")) {
			if (rd_str(r, comp, sizeof comp, "blob compression"))
				return -1;
		} else if (!strcmp(key, "data")) {
			if (rd_expect(r, &v, MP_BIN, "blob data"))
				return -1;
		} else if (rd_skip(r, 0)) {
			return -1;
		}
	}
	if (size < 0 || !v.s || (strcmp(comp, "none") && strcmp(comp, "zstd")))
		return rd_fail(r, "%sblob needs size, compression (none or zstd) and data", "");
	snprintf(r->where, sizeof r->where, "blob");
	if (!strcmp(comp, "none")) {
		if (v.n != (uint64_t)size)
			return rd_fail(r, "%ssize does not match its data", "");
		blob = (uint8_t *)v.s;
	} else {
		unsigned long long fs = ZSTD_getFrameContentSize(v.s, v.n);
		if (fs == ZSTD_CONTENTSIZE_ERROR || fs == ZSTD_CONTENTSIZE_UNKNOWN || fs != (unsigned long long)size)
			return rd_fail(r, "%szstd frame is corrupt or does not match the blob size", "");
		int k = rd_zstd_tensors(r, g, refs, &v, (uint64_t)size);
		if (k <= 0)
			return k;
		if (!(blob = malloc((size_t)size + 1)))
			return rd_fail(r, "%sout of memory", "");
		size_t got = ZSTD_decompress(blob, (size_t)size, v.s, v.n);
		if (ZSTD_isError(got) || got != (size_t)size) {
			rd_fail(r, "zstd: %s", ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short frame");
			goto out;
		}
	}
	for (int t = 0; t < g->n_tensors; t++) {
		if (!refs[t].has)
			continue;
		ir_tensor *x = &g->tensors[t];
		ir_diag dd;
		if (refs[t].off > (uint64_t)size || refs[t].len > (uint64_t)size - refs[t].off) {
			rd_fail(r, "constant '%s' lies outside the blob", x->name);
			goto out;
		}
		if (ir_tensor_set_data(g, t, blob + refs[t].off, (size_t)refs[t].len, &dd)) {
			rd_fail(r, "%s", dd.msg);
			goto out;
		}
	}
	rc = 0;
out:
	if (blob != v.s)
		free(blob);
	return rc;
}

/* Whether bytes p..end could begin an IR stream: a map whose first key
 * is "npu-ir", or as much of that as there is. */
static bool ir_prefix(const uint8_t *p, const uint8_t *end)
{
	static const uint8_t key[7] = {0xa6, 'n', 'p', 'u', '-', 'i', 'r'};
	size_t n = (size_t)(end - p), h;
	if (!n)
		return false;
	h = (*p & 0xf0) == 0x80 ? 1 : *p == 0xde ? 3 : *p == 0xdf ? 5 : 0;
	if (!h)
		return false;
	return n <= h || !memcmp(p + h, key, n - h < sizeof key ? n - h : sizeof key);
}

static int rd_graph(rd *r, ir_graph *g)
{
	mp_val top, v;
	char key[32];
	data_ref *refs = NULL;
	int rc = -1, *ids = NULL, n = 0;
	bool seen[8] = {0};
	static const char *const keys[] = {"meta", "history", "tensors", "nodes", "inputs", "outputs", "blob"};
	const uint8_t *start = r->p;
	/* a cut stream says truncated; other bytes whose first value fails (a
	 * map count beyond the file included) are not an IR stream */
	if (rd_val(r, &top) || top.type != MP_MAP || top.n < 1) {
		r->bad = r->bad && ir_prefix(start, r->end);
		return rd_fail(r, "%snot an IR stream (nor a model format npukit recognises)", "");
	}
	/* whatever stands first, if it is not the string "npu-ir" this is
	 * not an IR stream: say that, not what the bytes failed to be */
	if (rd_val(r, &v) || v.type != MP_STR || v.n != 6 || memcmp(v.s, "npu-ir", 6)) {
		r->bad = false;
		return rd_fail(r, "%snot an IR stream (first key is not \"npu-ir\")", "");
	}
	if (rd_expect(r, &v, MP_INT, "format version"))
		return -1;
	if (v.i != IR_FORMAT_VERSION && v.i != 1) {
		char m[64];
		snprintf(m, sizeof m, "%lld", (long long)v.i);
		return rd_fail(r, "IR format version %s is not supported (this reader knows versions 1 to "
			       IR_STR(IR_FORMAT_VERSION) ")", m);
	}
	/* Version 1 streams carry no checksum; later ones are checked whole
	 * before anything else is believed. */
	bool checked = v.i >= 2;
	if (checked) {
		size_t size = (size_t)(r->end - start);
		const uint8_t *t = r->end - CRC_TRAILER;
		if (size < CRC_TRAILER + 16 || memcmp(t, CRC_KEY, 6) || t[6] != 0xce)
			return rd_fail(r, "%struncated IR stream, or a corrupt one (no checksum at its end)", "");
		uint32_t want = (uint32_t)be(t + 7, 4), got = ir_crc32(start, size - 5);
		if (want != got) {
			char m[96];
			snprintf(m, sizeof m, "stored %08x, computed %08x", (unsigned)want, (unsigned)got);
			return rd_fail(r, "IR stream is corrupt: checksum mismatch (%s)", m);
		}
	}
	for (uint64_t i = 1; i < top.n; i++) {
		int k;
		if (rd_str(r, key, sizeof key, "top-level key"))
			goto out;
		if (checked && !strcmp(key, "crc32")) {
			if (i + 1 != top.n || r->p != r->end - 5) {
				rd_fail(r, "%scrc32 is not the last entry of the stream", "");
				goto out;
			}
			r->p = r->end;	/* verified above */
			seen[7] = true;
			break;
		}
		for (k = 0; k < 7 && strcmp(key, keys[k]); k++)
			;
		if (k < 7 && seen[k]) {
			rd_fail(r, "duplicate top-level key '%s'", key);
			goto out;
		}
		/* The order the writer uses is required: ids refer backwards. */
		for (int j = k + 1; k < 7 && j < 7; j++)
			if (seen[j]) {
				rd_fail(r, "top-level key '%s' out of order", key);
				goto out;
			}
		if (k < 7)
			seen[k] = true;
		snprintf(r->where, sizeof r->where, "%s", key);
		switch (k) {
		case 0:
			if (rd_meta(r, g))
				goto out;
			break;
		case 1:
			if (rd_history(r, g))
				goto out;
			break;
		case 2:
			if (rd_expect(r, &v, MP_ARRAY, "tensors"))
				goto out;
			if (v.n > IR_MAX_NODES || !(refs = calloc(v.n + 1, sizeof *refs))) {
				rd_fail(r, "%stoo many tensors", "");
				goto out;
			}
			for (uint64_t t = 0; t < v.n; t++) {
				snprintf(r->where, sizeof r->where, "tensor %llu", (unsigned long long)t);
				if (rd_tensor(r, g, &refs[t]))
					goto out;
			}
			break;
		case 3:
			if (rd_expect(r, &v, MP_ARRAY, "nodes"))
				goto out;
			if (v.n > IR_MAX_NODES) {
				rd_fail(r, "%stoo many nodes", "");
				goto out;
			}
			for (uint64_t t = 0; t < v.n; t++) {
				snprintf(r->where, sizeof r->where, "node %llu", (unsigned long long)t);
				if (rd_node(r, g))
					goto out;
			}
			break;
		case 4:
		case 5:
			if (rd_int_array(r, 1 << 20, 0, g->n_tensors - 1, &ids, &n, "graph interface id"))
				goto out;
			ir_diag dd;
			if ((k == 4 ? ir_graph_set_inputs : ir_graph_set_outputs)(g, ids, n, &dd)) {
				rd_fail(r, "%s", dd.msg);
				goto out;
			}
			free(ids);
			ids = NULL;
			break;
		case 6:
			if (!seen[2]) {
				rd_fail(r, "%sblob before tensors", "");
				goto out;
			}
			if (rd_blob(r, g, refs))
				goto out;
			break;
		default:
			if (rd_skip(r, 0))
				goto out;
		}
		r->where[0] = 0;
	}
	for (int k = 0; k < 7; k++)
		if (!seen[k] && k != 1) {
			rd_fail(r, "IR stream lacks '%s'", keys[k]);
			goto out;
		}
	if (checked && !seen[7]) {
		rd_fail(r, "%sIR stream lacks its crc32 entry", "");
		goto out;
	}
	if (r->p != r->end) {
		rd_fail(r, "%strailing bytes after the IR stream", "");
		goto out;
	}
	rc = 0;
out:
	free(refs);
	free(ids);
	return rc;
}

ir_graph *ir_graph_read_mem(const uint8_t *buf, size_t size, ir_diag *d)
{
	const char *hint;
	const char *what = ir_sniff_format(buf, size, &hint);
	if (what) {
		ir_fail(d, -1, -1, "this looks like %s%s%s", what, hint ? "; " : "", hint ? hint : "");
		return NULL;
	}
	if (size == 0) {
		ir_fail(d, -1, -1, "empty input (expected an IR stream)");
		return NULL;
	}
	ir_graph *g = ir_graph_new();
	if (!g) {
		ir_fail(d, -1, -1, "out of memory");
		return NULL;
	}
	rd r = {.p = buf, .end = buf + size, .d = d};
	if (rd_graph(&r, g)) {
		ir_graph_free(g);
		return NULL;
	}
	if (ir_graph_verify(g, d)) {
		/* Name the node here: the caller never sees this graph. */
		const ir_node *n = ir_graph_node(g, d->node);
		if (n) {
			char m[2 * sizeof d->msg];
			snprintf(m, sizeof m, "node '%s' (%s): %s", n->name, ir_op_name(n->op), d->msg);
			ir_fail(d, -1, -1, "%s", m);
		}
		ir_graph_free(g);
		return NULL;
	}
	return g;
}

/* ================================================================ sniffing */

/* Read a protobuf varint; 0 on malformed. */
static size_t pb_varint(const uint8_t *p, size_t n, uint64_t *v)
{
	*v = 0;
	for (size_t i = 0; i < n && i < 10; i++) {
		*v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80))
			return i + 1;
	}
	return 0;
}

const char *ir_sniff_format(const uint8_t *buf, size_t size, const char **hint)
{
	*hint = NULL;
	if (size >= 8 && buf[0] >= 0x80 && buf[0] <= 0x8f && buf[1] == 0xa6 && !memcmp(buf + 2, "npu-ir", 6))
		return NULL;
	if (size >= 4 && !memcmp(buf, "PK\3\4", 4)) {
		*hint = "for a TorchScript archive run npu-import-pt first";
		return "a zip archive (TorchScript .pt?)";
	}
	if (size >= 6 && !memcmp(buf, "\x93NUMPY", 6))
		return "a NumPy .npy array (pass it to npu-run with -i)";
	if (size >= 2 && buf[0] == 0x80 && buf[1] >= 2 && buf[1] <= 5)
		return "a Python pickle (PyTorch .pth?); save the model with torch.jit.save";
	if (size >= 4 && !memcmp(buf, "\x7f" "ELF", 4))
		return "an ELF executable";
	if (size >= 4 && !memcmp(buf, "\x28\xb5\x2f\xfd", 4)) {
		*hint = "decompress it first";
		return "a zstd-compressed file";
	}
	if (size >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) {
		*hint = "decompress it first";
		return "a gzip-compressed file";
	}
	if (size >= 3 && (buf[0] & 0xf0) == 0x80 && buf[1] >= 0xa0 && buf[1] <= 0xbf)
		return "a msgpack map that is not an npukit IR stream (no leading \"npu-ir\" key)";
	if (size >= 2 && buf[0] == 0x08) {
		/* ONNX ModelProto starts with ir_version (field 1, varint). */
		uint64_t v;
		size_t k = pb_varint(buf + 1, size - 1, &v);
		if (k && v >= 1 && v <= 32 && (1 + k >= size || buf[1 + k] == 0x12 || buf[1 + k] == 0x1a ||
					     buf[1 + k] == 0x3a || buf[1 + k] == 0x42 || buf[1 + k] == 0x22)) {
			*hint = "run npu-import-onnx first";
			return "an ONNX model";
		}
	}
	if (size >= 4 && (buf[0] == 0x0a || buf[0] == 0x22 || buf[0] == 0x12)) {
		/* GraphDef: repeated NodeDef (field 1), each starting with its name (field 1). */
		uint64_t len;
		size_t k = pb_varint(buf + 1, size - 1, &len);
		if (k && buf[0] == 0x0a && 1 + k < size && buf[1 + k] == 0x0a && len <= size) {
			*hint = "run npu-import-tf first";
			return "a TensorFlow GraphDef";
		}
	}
	size_t text = 0, n = size < 512 ? size : 512;
	for (size_t i = 0; i < n; i++)
		text += (buf[i] >= 0x20 && buf[i] < 0x7f) || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t';
	if (n >= 4 && text == n) {
		if (buf[0] == '{' || buf[0] == '[')
			return "a JSON text (npu-dump --json output is not read back)";
		return "a text file";
	}
	return NULL;
}

/* ---------------------------------------------------------------- opening files */

FILE *ir_fopen_regular(const char *path, const char **why)
{
	/* O_NONBLOCK: opening a FIFO without a writer returns at once (a
	 * blocking open would wait for one forever) and is refused below */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		*why = strerror(errno);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	FILE *f = NULL;
	if (!S_ISREG(st.st_mode))
		*why = S_ISDIR(st.st_mode) ? "is a directory, not a file" :
		       S_ISFIFO(st.st_mode) ? "is a FIFO, not a regular file" : "is a device or socket, not a regular file";
	else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) || !(f = fdopen(fd, "rb")))
		*why = strerror(errno);
	if (!f)
		close(fd);
	return f;
}
