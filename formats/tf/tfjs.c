/* tfjs.c - TensorFlow.js graph models (model.json + weight shards) to IR.
 *
 * model.json holds a GraphDef in protobuf's JSON mapping (modelTopology)
 * and a weights manifest. The GraphDef is rebuilt as the protobuf messages
 * of graph.proto, the manifest's weights are decoded (dequantized as
 * TensorFlow.js does) into the Const nodes of the same names, and the
 * result goes through the binary GraphDef importer, so every op converter
 * is shared. Hostile input: JSON limits (json.h), checked sizes, shard
 * paths confined to model.json's directory. */
#include "tf/tf_import.h"
#include "tf/graph.pb-c.h"
#include "json/json.h"
#include "../../share/npu/runtime/npu_half.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHARD_MAX ((size_t)1 << 31)	/* bytes of all shards together */

typedef struct {
	ir_diag *d;
	void **mem;
	size_t nmem, capmem;
	bool failed;
} tj;

static void *alloc(tj *t, size_t n)
{
	if (t->nmem == t->capmem) {
		size_t c = t->capmem ? t->capmem * 2 : 256;
		void **m = realloc(t->mem, c * sizeof *m);
		if (!m)
			return NULL;
		t->mem = m;
		t->capmem = c;
	}
	void *p = calloc(1, n ? n : 1);
	if (p)
		t->mem[t->nmem++] = p;
	return p;
}

/* calloc of n elements of size s, overflow-checked. */
static void *alloc_n(tj *t, size_t n, size_t s)
{
	if (s && n > SIZE_MAX / s)
		return NULL;
	return alloc(t, n * s);
}

static void *fail(tj *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void *fail(tj *t, const char *fmt, ...)
{
	if (!t->failed) {
		char m[sizeof t->d->msg];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(m, sizeof m, fmt, ap);
		va_end(ap);
		ir_fail(t->d, -1, -1, "%s", m);
	}
	t->failed = true;
	return NULL;
}

static void *oom(tj *t) { return fail(t, "out of memory"); }

/* A JSON key path for messages (cut at the buffer's size). */
static void kf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void kf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------- JSON values */

static const json_value *want(tj *t, const json_value *v, json_type ty, const char *key)
{
	if (!v)
		return fail(t, "%s: missing", key);
	if (v->type != ty)
		return fail(t, "%s: expected %s, found %s (line %d)", key, json_type_name(ty), json_type_name(v->type), v->line);
	return v;
}

/* Member k of object o (NULL if absent), or of its snake_case spelling. */
static const json_value *member(const json_value *o, const char *camel, const char *snake)
{
	const json_value *v = json_get(o, camel);
	return v ? v : snake ? json_get(o, snake) : NULL;
}

static int get_i64(tj *t, const json_value *v, const char *key, int64_t *out)
{
	if (json_int64(v, out)) {
		fail(t, "%s: expected an integer (line %d)", key, v ? v->line : 0);
		return -1;
	}
	return 0;
}

static int get_f(tj *t, const json_value *v, const char *key, double *out)
{
	if (json_double(v, out)) {
		fail(t, "%s: expected a number (line %d)", key, v ? v->line : 0);
		return -1;
	}
	return 0;
}

static int b64val(char c)
{
	if (c >= 'A' && c <= 'Z') return c - 'A';
	if (c >= 'a' && c <= 'z') return c - 'a' + 26;
	if (c >= '0' && c <= '9') return c - '0' + 52;
	if (c == '+' || c == '-') return 62;
	if (c == '/' || c == '_') return 63;
	return -1;
}

/* base64 (standard or URL alphabet, padding optional) as protobuf's JSON
 * mapping writes bytes. */
static int get_bytes(tj *t, const json_value *v, const char *key, ProtobufCBinaryData *out)
{
	if (!want(t, v, JSON_STRING, key))
		return -1;
	size_t n = v->len;
	while (n > 0 && v->text[n - 1] == '=' && v->len - n < 2)
		n--;
	uint8_t *o = alloc(t, n / 4 * 3 + 3);
	if (!o)
		return oom(t), -1;
	size_t len = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		int k = b64val(v->text[i]);
		if (k < 0) {
			fail(t, "%s: not base64 (line %d)", key, v->line);
			return -1;
		}
		acc = acc << 6 | (uint32_t)k;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			o[len++] = (uint8_t)(acc >> bits);
		}
	}
	if (n % 4 == 1) {
		fail(t, "%s: not base64 (line %d)", key, v->line);
		return -1;
	}
	out->data = o;
	out->len = len;
	return 0;
}

static char *get_str(tj *t, const json_value *v, const char *key)
{
	if (!want(t, v, JSON_STRING, key))
		return NULL;
	if (strlen(v->text) != v->len)
		return fail(t, "%s: string with a NUL character (line %d)", key, v->line);
	return (char *)v->text;
}

static const char *const dt_names[] = {
	"DT_INVALID", "DT_FLOAT", "DT_DOUBLE", "DT_INT32", "DT_UINT8", "DT_INT16", "DT_INT8", "DT_STRING",
	"DT_COMPLEX64", "DT_INT64", "DT_BOOL", "DT_QINT8", "DT_QUINT8", "DT_QINT32", "DT_BFLOAT16", "DT_QINT16",
	"DT_QUINT16", "DT_UINT16", "DT_COMPLEX128", "DT_HALF", "DT_RESOURCE", "DT_VARIANT", "DT_UINT32", "DT_UINT64"};

/* A DataType: its enum name ("DT_FLOAT", "DT_FLOAT_REF") or number. */
static int get_dtype(tj *t, const json_value *v, const char *key, int32_t *out)
{
	if (v && v->type == JSON_STRING) {
		for (int i = 0; i < (int)(sizeof dt_names / sizeof dt_names[0]); i++) {
			size_t n = strlen(dt_names[i]);
			if (!strncmp(v->text, dt_names[i], n) && (!v->text[n] || !strcmp(v->text + n, "_REF"))) {
				*out = i + (v->text[n] ? 100 : 0);
				return 0;
			}
		}
		fail(t, "%s: unknown data type '%.40s' (line %d)", key, v->text, v->line);
		return -1;
	}
	int64_t i;
	if (!v || json_int64(v, &i) || i < 0 || i > 1000) {
		fail(t, "%s: expected a data type such as \"DT_FLOAT\" (line %d)", key, v ? v->line : 0);
		return -1;
	}
	*out = (int32_t)i;
	return 0;
}

/* ---------------------------------------------------------------- GraphDef messages */

static NpuTf__TensorShapeProto *get_shape(tj *t, const json_value *v, const char *key)
{
	char k[512];
	if (!want(t, v, JSON_OBJECT, key))
		return NULL;
	NpuTf__TensorShapeProto *s = alloc(t, sizeof *s);
	if (!s)
		return oom(t);
	npu_tf__tensor_shape_proto__init(s);
	const json_value *ur = member(v, "unknownRank", "unknown_rank"), *dims = json_get(v, "dim");
	if (ur) {
		kf(k, sizeof k, "%s.unknownRank", key);
		if (!want(t, ur, JSON_BOOL, k))
			return NULL;
		s->unknown_rank = ur->b;
	}
	if (!dims)
		return s;
	kf(k, sizeof k, "%s.dim", key);
	if (!want(t, dims, JSON_ARRAY, k))
		return NULL;
	if (dims->len > IR_MAX_RANK)
		return fail(t, "%s: %zu dimensions, at most %d are supported", k, dims->len, IR_MAX_RANK);
	s->n_dim = dims->len;
	s->dim = alloc_n(t, dims->len, sizeof *s->dim);
	if (!s->dim)
		return oom(t);
	for (size_t i = 0; i < dims->len; i++) {
		kf(k, sizeof k, "%s.dim[%zu]", key, i);
		const json_value *dv = &dims->items[i];
		if (!want(t, dv, JSON_OBJECT, k))
			return NULL;
		NpuTf__TensorShapeProto__Dim *d = alloc(t, sizeof *d);
		if (!d)
			return oom(t);
		npu_tf__tensor_shape_proto__dim__init(d);
		const json_value *sz = json_get(dv, "size");
		kf(k, sizeof k, "%s.dim[%zu].size", key, i);
		if (sz && get_i64(t, sz, k, &d->size))	/* absent: 0 (proto3 default) */
			return NULL;
		if (d->size < -1 || d->size > IR_MAX_DIM)
			return fail(t, "%s: %lld is not a dimension", k, (long long)d->size);
		s->dim[i] = d;
	}
	return s;
}

/* A repeated field of a TensorProto or ListValue: the array under key, its
 * count in *n and storage of n elements of size es. */
static const json_value *rep(tj *t, const json_value *o, const char *camel, const char *snake, const char *key,
			     size_t *n, void **store, size_t es)
{
	const json_value *a = member(o, camel, snake);
	char k[512];
	*n = 0;
	if (!a)
		return NULL;
	kf(k, sizeof k, "%s.%s", key, camel);
	if (!want(t, a, JSON_ARRAY, k))
		return NULL;
	*store = alloc_n(t, a->len, es);
	if (!*store)
		return oom(t);
	*n = a->len;
	return a;
}

static NpuTf__TensorProto *get_tensor(tj *t, const json_value *v, const char *key)
{
	char k[512];
	if (!want(t, v, JSON_OBJECT, key))
		return NULL;
	NpuTf__TensorProto *p = alloc(t, sizeof *p);
	if (!p)
		return oom(t);
	npu_tf__tensor_proto__init(p);
	const json_value *x;
	kf(k, sizeof k, "%s.dtype", key);
	if ((x = json_get(v, "dtype")) && get_dtype(t, x, k, &p->dtype))
		return NULL;
	kf(k, sizeof k, "%s.tensorShape", key);
	if ((x = member(v, "tensorShape", "tensor_shape")) && !(p->tensor_shape = get_shape(t, x, k)))
		return NULL;
	kf(k, sizeof k, "%s.tensorContent", key);
	if ((x = member(v, "tensorContent", "tensor_content")) && get_bytes(t, x, k, &p->tensor_content))
		return NULL;
	const json_value *a;
	size_t n;
	void *st;
#define REP(camel, snake, field, ty, conv)                                                        \
	if ((a = rep(t, v, camel, snake, key, &n, &st, sizeof(ty)))) {                            \
		p->n_##field = n;                                                                 \
		p->field = st;                                                                    \
		for (size_t i = 0; i < n; i++) {                                                  \
			kf(k, sizeof k, "%s.%s[%zu]", key, camel, i);                       \
			conv;                                                                     \
		}                                                                                 \
	} else if (t->failed) {                                                                   \
		return NULL;                                                                      \
	}
	int64_t iv;
	double fv;
	REP("floatVal", "float_val", float_val, float,
	    { if (get_f(t, &a->items[i], k, &fv)) return NULL; p->float_val[i] = (float)fv; })
	REP("doubleVal", "double_val", double_val, double,
	    { if (get_f(t, &a->items[i], k, &fv)) return NULL; p->double_val[i] = fv; })
	REP("halfVal", "half_val", half_val, int32_t,
	    { if (get_i64(t, &a->items[i], k, &iv) || iv < 0 || iv > 65535) return fail(t, "%s: not a half", k); p->half_val[i] = (int32_t)iv; })
	REP("intVal", "int_val", int_val, int32_t,
	    { if (get_i64(t, &a->items[i], k, &iv) || iv < INT32_MIN || iv > INT32_MAX) return fail(t, "%s: not an int32", k); p->int_val[i] = (int32_t)iv; })
	REP("int64Val", "int64_val", int64_val, int64_t,
	    { if (get_i64(t, &a->items[i], k, &p->int64_val[i])) return NULL; })
	REP("boolVal", "bool_val", bool_val, protobuf_c_boolean,
	    { if (!want(t, &a->items[i], JSON_BOOL, k)) return NULL; p->bool_val[i] = a->items[i].b; })
	REP("stringVal", "string_val", string_val, ProtobufCBinaryData,
	    { if (get_bytes(t, &a->items[i], k, &p->string_val[i])) return NULL; })
#undef REP
	return p;
}

static NpuTf__AttrValue *get_attr(tj *t, const json_value *v, const char *key)
{
	char k[512];
	if (!want(t, v, JSON_OBJECT, key))
		return NULL;
	NpuTf__AttrValue *a = alloc(t, sizeof *a);
	if (!a)
		return oom(t);
	npu_tf__attr_value__init(a);
	if (v->len > 1)
		return fail(t, "%s: %zu values, an attribute has one (line %d)", key, v->len, v->line);
	if (v->len == 0)
		return a;
	const char *kind = v->keys[0];
	const json_value *x = &v->items[0];
	kf(k, sizeof k, "%s.%s", key, kind);
	if (!strcmp(kind, "s")) {
		a->value_case = NPU_TF__ATTR_VALUE__VALUE_S;
		if (get_bytes(t, x, k, &a->s))
			return NULL;
	} else if (!strcmp(kind, "i")) {
		a->value_case = NPU_TF__ATTR_VALUE__VALUE_I;
		if (get_i64(t, x, k, &a->i))
			return NULL;
	} else if (!strcmp(kind, "f")) {
		double f;
		a->value_case = NPU_TF__ATTR_VALUE__VALUE_F;
		if (get_f(t, x, k, &f))
			return NULL;
		a->f = (float)f;
	} else if (!strcmp(kind, "b")) {
		a->value_case = NPU_TF__ATTR_VALUE__VALUE_B;
		if (!want(t, x, JSON_BOOL, k))
			return NULL;
		a->b = x->b;
	} else if (!strcmp(kind, "type")) {
		a->value_case = NPU_TF__ATTR_VALUE__VALUE_TYPE;
		if (get_dtype(t, x, k, &a->type))
			return NULL;
	} else if (!strcmp(kind, "shape")) {
		a->value_case = NPU_TF__ATTR_VALUE__VALUE_SHAPE;
		if (!(a->shape = get_shape(t, x, k)))
			return NULL;
	} else if (!strcmp(kind, "tensor")) {
		a->value_case = NPU_TF__ATTR_VALUE__VALUE_TENSOR;
		if (!(a->tensor = get_tensor(t, x, k)))
			return NULL;
	} else if (!strcmp(kind, "placeholder")) {
		a->value_case = NPU_TF__ATTR_VALUE__VALUE_PLACEHOLDER;
		if (!(a->placeholder = get_str(t, x, k)))
			return NULL;
	} else if (!strcmp(kind, "func")) {
		/* function attributes are not read (as in graph.proto) */
	} else if (!strcmp(kind, "list")) {
		if (!want(t, x, JSON_OBJECT, k))
			return NULL;
		NpuTf__AttrValue__ListValue *l = alloc(t, sizeof *l);
		if (!l)
			return oom(t);
		npu_tf__attr_value__list_value__init(l);
		a->value_case = NPU_TF__ATTR_VALUE__VALUE_LIST;
		a->list = l;
		char kk[512];
		const json_value *e;
		size_t n;
		void *st;
#define LREP(name, field, ty, conv)                                                               \
	if ((e = rep(t, x, name, NULL, k, &n, &st, sizeof(ty)))) {                                \
		l->n_##field = n;                                                                 \
		l->field = st;                                                                    \
		for (size_t i = 0; i < n; i++) {                                                  \
			kf(kk, sizeof kk, "%s.%s[%zu]", k, name, i);                        \
			conv;                                                                     \
		}                                                                                 \
	} else if (t->failed) {                                                                   \
		return NULL;                                                                      \
	}
		double fv;
		LREP("s", s, ProtobufCBinaryData, { if (get_bytes(t, &e->items[i], kk, &l->s[i])) return NULL; })
		LREP("i", i, int64_t, { if (get_i64(t, &e->items[i], kk, &l->i[i])) return NULL; })
		LREP("f", f, float, { if (get_f(t, &e->items[i], kk, &fv)) return NULL; l->f[i] = (float)fv; })
		LREP("b", b, protobuf_c_boolean, { if (!want(t, &e->items[i], JSON_BOOL, kk)) return NULL; l->b[i] = e->items[i].b; })
		LREP("type", type, int32_t, { if (get_dtype(t, &e->items[i], kk, &l->type[i])) return NULL; })
		LREP("shape", shape, NpuTf__TensorShapeProto *, { if (!(l->shape[i] = get_shape(t, &e->items[i], kk))) return NULL; })
		LREP("tensor", tensor, NpuTf__TensorProto *, { if (!(l->tensor[i] = get_tensor(t, &e->items[i], kk))) return NULL; })
#undef LREP
	} else {
		return fail(t, "%s: unknown attribute value kind '%.40s' (line %d)", key, kind, x->line);
	}
	return a;
}

static NpuTf__NodeDef *get_node(tj *t, const json_value *v, size_t idx)
{
	char key[512], k[600];
	kf(key, sizeof key, "modelTopology.node[%zu]", idx);
	if (!want(t, v, JSON_OBJECT, key))
		return NULL;
	NpuTf__NodeDef *nd = alloc(t, sizeof *nd);
	if (!nd)
		return oom(t);
	npu_tf__node_def__init(nd);
	kf(k, sizeof k, "%s.name", key);
	if (!(nd->name = get_str(t, json_get(v, "name"), k)))
		return NULL;
	kf(key, sizeof key, "modelTopology.node[%zu] ('%.200s')", idx, nd->name);
	kf(k, sizeof k, "%s.op", key);
	if (!(nd->op = get_str(t, json_get(v, "op"), k)))
		return NULL;
	const json_value *in = json_get(v, "input"), *at = json_get(v, "attr");
	if (in) {
		kf(k, sizeof k, "%s.input", key);
		if (!want(t, in, JSON_ARRAY, k))
			return NULL;
		nd->n_input = in->len;
		if (!(nd->input = alloc_n(t, in->len, sizeof(char *))))
			return oom(t);
		for (size_t i = 0; i < in->len; i++) {
			kf(k, sizeof k, "%s.input[%zu]", key, i);
			if (!(nd->input[i] = get_str(t, &in->items[i], k)))
				return NULL;
		}
	}
	if (at) {
		kf(k, sizeof k, "%s.attr", key);
		if (!want(t, at, JSON_OBJECT, k))
			return NULL;
		nd->n_attr = at->len;
		if (!(nd->attr = alloc_n(t, at->len + 1, sizeof(NpuTf__AttrEntry *))))	/* + a weight's value */
			return oom(t);
		for (size_t i = 0; i < at->len; i++) {
			NpuTf__AttrEntry *e = alloc(t, sizeof *e);
			if (!e)
				return oom(t);
			npu_tf__attr_entry__init(e);
			e->key = (char *)at->keys[i];
			kf(k, sizeof k, "%s.attr.%.60s", key, e->key);
			if (!(e->value = get_attr(t, &at->items[i], k)))
				return NULL;
			nd->attr[i] = e;
		}
	} else if (!(nd->attr = alloc_n(t, 1, sizeof(NpuTf__AttrEntry *)))) {
		return oom(t);
	}
	return nd;
}

/* ---------------------------------------------------------------- weights */

/* A shard path must stay inside model.json's directory. */
static bool safe_path(const char *p)
{
	if (!*p || p[0] == '/' || p[0] == '\\' || strchr(p, '\\') || strchr(p, ':'))
		return false;
	for (const char *s = p; *s;) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n == 2 && s[0] == '.' && s[1] == '.')
			return false;
		s += n + (e != NULL);
	}
	return true;
}

/* Append file dir/path to buf (growing it). */
static int read_shard(tj *t, const char *dir, const char *path, const char *key, uint8_t **buf, size_t *size,
		      size_t *cap)
{
	char full[4096];
	if ((size_t)snprintf(full, sizeof full, "%s/%s", dir, path) >= sizeof full) {
		fail(t, "%s: path too long", key);
		return -1;
	}
	const char *why;
	FILE *f = ir_fopen_regular(full, &why);
	if (!f) {
		fail(t, "%s: cannot open weight shard '%s': %s", key, path, why);
		return -1;
	}
	for (;;) {
		if (*cap - *size < 65536) {
			size_t c = *cap ? *cap * 2 : 1 << 20;
			if (c > SHARD_MAX + 65536) {
				fclose(f);
				fail(t, "%s: the weight shards hold more than %zu bytes", key, SHARD_MAX);
				return -1;
			}
			uint8_t *nb = realloc(*buf, c);
			if (!nb) {
				fclose(f);
				oom(t);
				return -1;
			}
			*buf = nb;
			*cap = c;
		}
		size_t n = fread(*buf + *size, 1, *cap - *size, f);
		*size += n;
		if (*size > SHARD_MAX) {
			fclose(f);
			fail(t, "%s: the weight shards hold more than %zu bytes", key, SHARD_MAX);
			return -1;
		}
		if (n == 0)
			break;
	}
	bool err = ferror(f);
	fclose(f);
	if (err) {
		fail(t, "%s: cannot read weight shard '%s'", key, path);
		return -1;
	}
	return 0;
}

typedef struct {
	const char *name;
	NpuTf__TensorProto *tp;
} weight;

/* Decode one weight spec at data[*off]. */
static NpuTf__TensorProto *decode_weight(tj *t, const json_value *w, const char *key, const uint8_t *data,
					 size_t size, size_t *off, const char **name)
{
	char k[600];
	if (!want(t, w, JSON_OBJECT, key))
		return NULL;
	kf(k, sizeof k, "%s.name", key);
	if (!(*name = get_str(t, json_get(w, "name"), k)))
		return NULL;
	char key2[600];
	kf(key2, sizeof key2, "%s ('%.200s')", key, *name);
	key = key2;
	const json_value *sh = json_get(w, "shape"), *dtv = json_get(w, "dtype"), *q = json_get(w, "quantization");
	kf(k, sizeof k, "%s.shape", key);
	if (!want(t, sh, JSON_ARRAY, k))
		return NULL;
	if (sh->len > IR_MAX_RANK)
		return fail(t, "%s: %zu dimensions, at most %d are supported", k, sh->len, IR_MAX_RANK);
	NpuTf__TensorProto *tp = alloc(t, sizeof *tp);
	NpuTf__TensorShapeProto *tsp = alloc(t, sizeof *tsp);
	NpuTf__TensorShapeProto__Dim **dims = alloc_n(t, sh->len, sizeof *dims);
	if (!tp || !tsp || !dims)
		return oom(t);
	npu_tf__tensor_proto__init(tp);
	npu_tf__tensor_shape_proto__init(tsp);
	tsp->n_dim = sh->len;
	tsp->dim = dims;
	tp->tensor_shape = tsp;
	uint64_t numel = 1;
	for (size_t i = 0; i < sh->len; i++) {
		int64_t dv;
		kf(k, sizeof k, "%s.shape[%zu]", key, i);
		if (get_i64(t, &sh->items[i], k, &dv))
			return NULL;
		if (dv < 0 || dv > IR_MAX_DIM)
			return fail(t, "%s: %lld is not a dimension", k, (long long)dv);
		if (dv && numel > (uint64_t)SHARD_MAX / (uint64_t)dv)
			return fail(t, "%s: the weight is larger than %zu elements", k, SHARD_MAX);
		numel *= (uint64_t)dv;
		if (!(dims[i] = alloc(t, sizeof *dims[i])))
			return oom(t);
		npu_tf__tensor_shape_proto__dim__init(dims[i]);
		dims[i]->size = dv;
	}
	kf(k, sizeof k, "%s.dtype", key);
	const char *dt = get_str(t, dtv, k);
	if (!dt)
		return NULL;
	int kind;	/* 0 float32, 1 int32, 2 bool */
	if (!strcmp(dt, "float32"))
		kind = 0, tp->dtype = 1;
	else if (!strcmp(dt, "int32"))
		kind = 1, tp->dtype = 3;
	else if (!strcmp(dt, "bool"))
		kind = 2, tp->dtype = 10;
	else
		return fail(t, "%s: unknown or unsupported dtype '%.40s' (float32, int32 and bool are read)", k, dt);
	int qk = -1;	/* quantized as 0 uint8, 1 uint16, 2 float16 */
	double scale = 1, mn = 0;
	if (q) {
		kf(k, sizeof k, "%s.quantization", key);
		if (!want(t, q, JSON_OBJECT, k))
			return NULL;
		kf(k, sizeof k, "%s.quantization.dtype", key);
		const char *qd = get_str(t, json_get(q, "dtype"), k);
		if (!qd)
			return NULL;
		qk = !strcmp(qd, "uint8") ? 0 : !strcmp(qd, "uint16") ? 1 : !strcmp(qd, "float16") ? 2 : -1;
		if (qk < 0)
			return fail(t, "%s: unknown quantization dtype '%.40s' (uint8, uint16, float16)", k, qd);
		if (qk == 2 && kind != 0)
			return fail(t, "%s: float16 quantization of a %s weight", k, dt);
		if (qk < 2 && kind == 2)
			return fail(t, "%s: %s quantization of a bool weight", k, qd);
		if (qk < 2) {
			kf(k, sizeof k, "%s.quantization.scale", key);
			if (get_f(t, json_get(q, "scale"), k, &scale))
				return NULL;
			kf(k, sizeof k, "%s.quantization.min", key);
			if (get_f(t, json_get(q, "min"), k, &mn))
				return NULL;
			if (!isfinite(scale) || !isfinite(mn))
				return fail(t, "%s.quantization: scale and min must be finite", key);
		}
	}
	size_t in_es = qk == 0 ? 1 : qk >= 1 ? 2 : kind == 2 ? 1 : 4, out_es = kind == 2 ? 1 : 4;
	size_t nbytes = (size_t)numel * in_es;
	if (*off > size || size - *off < nbytes)
		return fail(t, "%s: needs bytes %zu..%zu of the weight shards, which hold %zu (shard too short?)", key,
			    *off, *off + nbytes, size);
	const uint8_t *p = data + *off;
	*off += nbytes;
	if (qk < 0) {
		tp->tensor_content.data = (uint8_t *)p;	/* already little-endian float32/int32/bool */
		tp->tensor_content.len = nbytes;
		return tp;
	}
	uint8_t *o = alloc_n(t, (size_t)numel, out_es);
	if (!o)
		return oom(t);
	for (size_t i = 0; i < (size_t)numel; i++) {
		float f;
		if (qk == 2) {
			f = npu_f16_to_f32((uint16_t)(p[2 * i] | p[2 * i + 1] << 8));
		} else {
			unsigned v = qk == 0 ? p[i] : (unsigned)(p[2 * i] | p[2 * i + 1] << 8);
			double x = v * scale + mn;	/* as TensorFlow.js: in double, then stored */
			if (kind == 1) {
				double r = floor(x + 0.5);	/* Math.round */
				int32_t iv = r >= 2147483647.0 ? INT32_MAX : r <= -2147483648.0 ? INT32_MIN : (int32_t)r;
				memcpy(o + 4 * i, &iv, 4);
				continue;
			}
			f = (float)x;
		}
		memcpy(o + 4 * i, &f, 4);
	}
	tp->tensor_content.data = o;
	tp->tensor_content.len = (size_t)numel * out_es;
	return tp;
}

static int load_weights(tj *t, const json_value *man, const char *dir, weight **ws, size_t *nw, uint8_t **data)
{
	size_t size = 0, cap = 0, total = 0;
	char k[512];
	*ws = NULL;
	*nw = 0;
	*data = NULL;
	if (!man)
		return 0;
	if (!want(t, man, JSON_ARRAY, "weightsManifest"))
		return -1;
	for (size_t g = 0; g < man->len; g++) {
		const json_value *grp = &man->items[g];
		kf(k, sizeof k, "weightsManifest[%zu]", g);
		if (!want(t, grp, JSON_OBJECT, k))
			return -1;
		const json_value *paths = json_get(grp, "paths"), *wts = json_get(grp, "weights");
		kf(k, sizeof k, "weightsManifest[%zu].paths", g);
		if (!want(t, paths, JSON_ARRAY, k))
			return -1;
		kf(k, sizeof k, "weightsManifest[%zu].weights", g);
		if (!want(t, wts, JSON_ARRAY, k))
			return -1;
		total += wts->len;
		for (size_t i = 0; i < paths->len; i++) {
			kf(k, sizeof k, "weightsManifest[%zu].paths[%zu]", g, i);
			const char *p = get_str(t, &paths->items[i], k);
			if (!p)
				return -1;
			if (!safe_path(p))
				return fail(t, "%s: shard path '%.200s' leaves the model's directory (relative paths "
					    "without '..' only)", k, p), -1;
			if (!dir)
				return fail(t, "%s: weight shards are read next to model.json; give its path, "
					    "not standard input", k), -1;
			if (read_shard(t, dir, p, k, data, &size, &cap))
				return -1;
		}
	}
	if (!(*ws = alloc_n(t, total, sizeof **ws)))
		return oom(t), -1;
	/* the weights follow one another through the shards of all groups in
	 * manifest order, as TensorFlow.js reads them */
	size_t off = 0;
	for (size_t g = 0; g < man->len; g++) {
		const json_value *wts = json_get(&man->items[g], "weights");
		for (size_t i = 0; i < wts->len; i++) {
			kf(k, sizeof k, "weightsManifest[%zu].weights[%zu]", g, i);
			weight *w = &(*ws)[*nw];
			if (!(w->tp = decode_weight(t, &wts->items[i], k, *data, size, &off, &w->name)))
				return -1;
			++*nw;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- model.json */

static int cmp_weight(const void *a, const void *b)
{
	return strcmp(((const weight *)a)->name, ((const weight *)b)->name);
}

ir_graph *tfjs_import(const uint8_t *buf, size_t size, const char *dir, const tf_import_opts *opts, ir_diag *d)
{
	static const tf_import_opts defaults;
	ir_diag scratch;
	if (!d)
		d = &scratch;
	if (!opts)
		opts = &defaults;
	char err[256];
	json_doc *doc = json_parse((const char *)buf, size, &(json_limits){.max_depth = 64}, err, sizeof err);
	if (!doc) {
		ir_fail(d, -1, -1, "not valid JSON (%s)", err);
		return NULL;
	}
	tj t = {.d = d};
	ir_graph *g = NULL;
	uint8_t *data = NULL, *pb = NULL;
	char **outs = NULL;
	size_t nouts = 0;
	const json_value *root = json_root(doc), *topo, *nodes;
	if (root->type != JSON_OBJECT) {
		fail(&t, "not a TensorFlow.js model (the JSON text is %s, not an object)", json_type_name(root->type));
		goto out;
	}
	topo = json_get(root, "modelTopology");
	if (!topo) {
		fail(&t, "modelTopology: missing (not a TensorFlow.js graph model)");
		goto out;
	}
	if (!want(&t, topo, JSON_OBJECT, "modelTopology"))
		goto out;
	if (json_get(topo, "model_config") || json_get(topo, "class_name")) {
		fail(&t, "modelTopology: this is a TensorFlow.js layers model (Keras JSON); convert it to a graph "
		     "model (tensorflowjs_converter --output_format=tfjs_graph_model)");
		goto out;
	}
	nodes = json_get(topo, "node");
	if (!want(&t, nodes, JSON_ARRAY, "modelTopology.node"))
		goto out;
	if (nodes->len == 0 || nodes->len > (1u << 24)) {
		fail(&t, "modelTopology.node: %zu nodes", nodes->len);
		goto out;
	}
	NpuTf__GraphDef gd;
	npu_tf__graph_def__init(&gd);
	NpuTf__VersionDef ver;
	npu_tf__version_def__init(&ver);
	gd.n_node = nodes->len;
	if (!(gd.node = alloc_n(&t, nodes->len, sizeof *gd.node))) {
		oom(&t);
		goto out;
	}
	for (size_t i = 0; i < nodes->len; i++)
		if (!(gd.node[i] = get_node(&t, &nodes->items[i], i)))
			goto out;
	const json_value *vs = json_get(topo, "versions"), *pr = json_get(vs, "producer");
	int64_t prod;
	if (pr && !json_int64(pr, &prod) && prod > 0 && prod < INT32_MAX) {
		ver.producer = (int32_t)prod;
		gd.versions = &ver;
	}
	/* weights into the Const nodes of the same names */
	weight *ws;
	size_t nw;
	if (load_weights(&t, json_get(root, "weightsManifest"), dir, &ws, &nw, &data))
		goto out;
	if (nw)	/* ws is NULL for a manifest without weights */
		qsort(ws, nw, sizeof *ws, cmp_weight);
	for (size_t i = 1; i < nw; i++)
		if (!strcmp(ws[i].name, ws[i - 1].name)) {
			fail(&t, "weightsManifest: two weights are named '%.200s'", ws[i].name);
			goto out;
		}
	for (size_t i = 0; i < gd.n_node; i++) {
		NpuTf__NodeDef *nd = gd.node[i];
		if (strcmp(nd->op, "Const"))
			continue;
		weight key = {.name = nd->name}, *w = nw ? bsearch(&key, ws, nw, sizeof *ws, cmp_weight) : NULL;
		NpuTf__AttrEntry *e = NULL;
		for (size_t k = 0; k < nd->n_attr; k++)
			if (!strcmp(nd->attr[k]->key, "value"))
				e = nd->attr[k];
		if (!w) {
			const NpuTf__TensorProto *tp = e && e->value->value_case == NPU_TF__ATTR_VALUE__VALUE_TENSOR ?
						       e->value->tensor : NULL;
			bool inline_data = tp && (tp->tensor_content.len || tp->n_float_val || tp->n_double_val ||
						  tp->n_int_val || tp->n_int64_val || tp->n_bool_val || tp->n_half_val);
			if (!inline_data) {
				fail(&t, "modelTopology.node[%zu] ('%.200s') (Const): weightsManifest has no weight "
				     "of this name", i, nd->name);
				goto out;
			}
			continue;
		}
		if (!e) {
			if (!(e = alloc(&t, sizeof *e))) {
				oom(&t);
				goto out;
			}
			npu_tf__attr_entry__init(e);
			e->key = "value";
			nd->attr[nd->n_attr++] = e;
		}
		NpuTf__AttrValue *av = alloc(&t, sizeof *av);
		if (!av) {
			oom(&t);
			goto out;
		}
		npu_tf__attr_value__init(av);
		av->value_case = NPU_TF__ATTR_VALUE__VALUE_TENSOR;
		av->tensor = w->tp;
		e->value = av;
	}
	/* outputs: the given ones, else the model's signature */
	tf_import_opts o = *opts;
	if (o.n_outputs == 0) {
		const json_value *sig = json_get(root, "signature"), *so = json_get(sig, "outputs");
		if (!so && (sig = json_get(topo, "signature")))
			so = json_get(sig, "outputs");
		if (!so || so->type != JSON_OBJECT || so->len == 0) {
			fail(&t, "signature.outputs: missing, so the outputs must be named (--output NAME)");
			goto out;
		}
		if (!(outs = calloc(so->len, sizeof *outs))) {
			oom(&t);
			goto out;
		}
		for (size_t i = 0; i < so->len; i++) {
			const json_value *nm = json_get(&so->items[i], "name");
			char k[300];
			kf(k, sizeof k, "signature.outputs.%.200s.name", so->keys[i]);
			const char *s = nm ? get_str(&t, nm, k) : so->keys[i];
			if (!s)
				goto out;
			if (!(outs[nouts++] = strdup(s))) {
				oom(&t);
				goto out;
			}
		}
		o.outputs = (const char *const *)outs;
		o.n_outputs = so->len > 256 ? 256 : (int)so->len;
	}
	size_t n = npu_tf__graph_def__get_packed_size(&gd);
	if (!(pb = malloc(n ? n : 1))) {
		oom(&t);
		goto out;
	}
	npu_tf__graph_def__pack(&gd, pb);
	json_free(doc);	/* the packed GraphDef no longer needs the text */
	doc = NULL;
	for (size_t i = 0; i < t.nmem; i++)
		free(t.mem[i]);
	t.nmem = 0;
	free(data);
	data = NULL;
	g = tf_import(pb, n, &o, d);
out:
	json_free(doc);
	for (size_t i = 0; i < t.nmem; i++)
		free(t.mem[i]);
	free(t.mem);
	free(data);
	free(pb);
	for (size_t i = 0; i < nouts; i++)
		free(outs[i]);
	free(outs);
	return g;
}
