/* ts_pickle.c - the value model, and the restricted unpickler for data.pkl
 * and constants.pkl.
 *
 * The pickle machine knows the binary opcodes of protocol 2 and those of
 * protocol 4 that newer torch writes. It never calls anything: GLOBAL
 * resolves only TorchScript's own names (tensor rebuilding, storage types,
 * OrderedDict, torch.jit._pickle helpers and __torch__ classes) to inert
 * values, and anything else is refused by name. Every length and count is
 * checked against the bytes that remain. */
#include "torchscript/ts_internal.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================ arena */

struct ts_chunk {
	ts_chunk *next;
	size_t size, used;
	alignas(max_align_t) unsigned char data[];
};

#define CHUNK_SIZE ((size_t)64 << 10)

void *ts_alloc(ts_arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (!n)
		n = 16;
	ts_chunk *c = a->head;
	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK_SIZE / 4 ? n : CHUNK_SIZE;
		if (size > SIZE_MAX - sizeof *c || (a->limit && a->total + size > a->limit))
			return NULL;
		c = malloc(sizeof *c + size);
		if (!c)
			return NULL;
		c->size = size;
		c->used = 0;
		a->total += size;
		if (size == n && a->head) {	/* a big block: keep filling the current chunk */
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	void *p = c->data + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

void *ts_alloc_array(ts_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return ts_alloc(a, n * size);
}

char *ts_strndup(ts_arena *a, const char *s, size_t n)
{
	if (n == SIZE_MAX)
		return NULL;
	char *p = ts_alloc(a, n + 1);
	if (p && n)
		memcpy(p, s, n);
	return p;
}

char *ts_sprintf(ts_arena *a, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	return ts_strndup(a, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

void ts_arena_free(ts_arena *a)
{
	for (ts_chunk *c = a->head, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
	a->total = 0;
}

/* ================================================================ string map */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211u;
	return h;
}

void *ts_map_get(const ts_map *m, const char *key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = hash_str(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->keys[i])
			return NULL;
		if (!strcmp(m->keys[i], key))
			return m->vals[i];
	}
}

int ts_map_put(ts_map *m, const char *key, void *val)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		const char **keys = calloc(cap, sizeof *keys);
		void **vals = calloc(cap, sizeof *vals);
		if (!keys || !vals) {
			free(keys);
			free(vals);
			return -1;
		}
		for (size_t j = 0; j < m->cap; j++) {
			if (!m->keys[j])
				continue;
			size_t i = hash_str(m->keys[j]) & (cap - 1);
			while (keys[i])
				i = (i + 1) & (cap - 1);
			keys[i] = m->keys[j];
			vals[i] = m->vals[j];
		}
		free(m->keys);
		free(m->vals);
		m->keys = keys;
		m->vals = vals;
		m->cap = cap;
	}
	size_t i = hash_str(key) & (m->cap - 1);
	while (m->keys[i] && strcmp(m->keys[i], key))
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

void ts_map_free(ts_map *m)
{
	free(m->keys);
	free(m->vals);
	*m = (ts_map){0};
}

/* ================================================================ values */

ts_val *ts_new(ts_arena *a, ts_kind k)
{
	ts_val *v = ts_alloc(a, sizeof *v);
	if (v)
		v->kind = k;
	return v;
}

ts_val *ts_new_int(ts_arena *a, int64_t i)
{
	ts_val *v = ts_new(a, TS_INT);
	if (v)
		v->i = i;
	return v;
}

ts_val *ts_new_str(ts_arena *a, const char *s, size_t len)
{
	ts_val *v = ts_new(a, TS_STR);
	if (v && !(v->s = ts_strndup(a, s, len)))
		return NULL;
	if (v)
		v->len = len;
	return v;
}

static int reserve(ts_arena *a, ts_val *v, int slots)
{
	if (slots <= v->cap)
		return 0;
	if (slots > (1 << 28))
		return -1;
	int cap = v->cap ? v->cap : 4;
	while (cap < slots)
		cap *= 2;
	ts_val **p = ts_alloc_array(a, (size_t)cap, sizeof *p);
	if (!p)
		return -1;
	if (v->n)
		memcpy(p, v->v, sizeof *p * (size_t)(v->kind == TS_DICT ? 2 * v->n : v->n));
	v->v = p;
	v->cap = cap;
	return 0;
}

int ts_append(ts_arena *a, ts_val *list, ts_val *item)
{
	if (reserve(a, list, list->n + 1))
		return -1;
	list->v[list->n++] = item;
	return 0;
}

static bool key_equal(const ts_val *a, const ts_val *b)
{
	if (a->kind == TS_STR && b->kind == TS_STR)
		return a->len == b->len && !memcmp(a->s, b->s, a->len);
	if ((a->kind == TS_INT || a->kind == TS_BOOL) && (b->kind == TS_INT || b->kind == TS_BOOL))
		return a->i == b->i;
	return a == b;
}

int ts_dict_set(ts_arena *a, ts_val *dict, ts_val *key, ts_val *value)
{
	for (int i = 0; i < dict->n; i++)
		if (key_equal(dict->v[2 * i], key)) {
			dict->v[2 * i + 1] = value;
			return 0;
		}
	if (dict->n >= (1 << 27) || reserve(a, dict, 2 * dict->n + 2))
		return -1;
	dict->v[2 * dict->n] = key;
	dict->v[2 * dict->n + 1] = value;
	dict->n++;
	return 0;
}

ts_val *ts_dict_get(const ts_val *dict, const char *key)
{
	if (!dict || dict->kind != TS_DICT)
		return NULL;
	size_t len = strlen(key);
	for (int i = 0; i < dict->n; i++) {
		const ts_val *k = dict->v[2 * i];
		if (k->kind == TS_STR && k->len == len && !memcmp(k->s, key, len))
			return dict->v[2 * i + 1];
	}
	return NULL;
}

const char *ts_kind_name(ts_kind k)
{
	static const char *const names[] = {
		"None", "a bool", "an int", "a float", "a string", "a tuple", "a list", "a dict", "a module object",
		"a tensor", "a storage", "a global", "a name", "a function", "a device", "a value computed at run time",
		"an unsupported value"};
	return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

/* ================================================================ the pickle machine */

typedef struct {
	ts_arena *a;
	const uint8_t *p, *end, *start;
	const char *what, *dir;
	ir_diag *d;
	ts_val **stack;
	size_t sp, scap;
	size_t *marks;
	size_t nm, mcap;
	ts_val **memo;
	size_t memo_cap, memo_count;
	ts_map storages;
} up;

static int ufail(up *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ufail(up *u, const char *fmt, ...)
{
	char m[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	return ir_fail(u->d, -1, -1, "%s: %s (at byte %zu)", u->what, m, (size_t)(u->p - u->start));
}

static int oom(up *u) { return ufail(u, "out of memory"); }

static int push(up *u, ts_val *v)
{
	if (!v)
		return oom(u);
	if (u->sp == u->scap) {
		size_t cap = u->scap ? u->scap * 2 : 256;
		ts_val **s = realloc(u->stack, cap * sizeof *s);
		if (!s)
			return oom(u);
		u->stack = s;
		u->scap = cap;
	}
	u->stack[u->sp++] = v;
	return 0;
}

static ts_val *pop(up *u)
{
	size_t floor = u->nm ? u->marks[u->nm - 1] : 0;
	if (u->sp <= floor) {
		ufail(u, "stack underflow");
		return NULL;
	}
	return u->stack[--u->sp];
}

static ts_val *top(up *u)
{
	size_t floor = u->nm ? u->marks[u->nm - 1] : 0;
	if (u->sp <= floor) {
		ufail(u, "stack underflow");
		return NULL;
	}
	return u->stack[u->sp - 1];
}

/* Pop everything down to the last mark; *items points into the stack
 * (valid until the next push). */
static int pop_mark(up *u, ts_val ***items, size_t *n)
{
	if (!u->nm)
		return ufail(u, "no mark on the stack");
	size_t m = u->marks[--u->nm];
	*items = u->stack ? u->stack + m : NULL;	/* no NULL + 0 on an empty stack */
	*n = u->sp - m;
	u->sp = m;
	return 0;
}

static int need(up *u, size_t n)
{
	if ((size_t)(u->end - u->p) < n)
		return ufail(u, "truncated pickle");
	return 0;
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int memo_put(up *u, uint64_t idx)
{
	ts_val *v = top(u);
	if (!v)
		return -1;
	/* picklers number memo entries from 0 up; each takes at least two bytes */
	if (idx > (uint64_t)(u->end - u->start))
		return ufail(u, "memo index %llu out of range", (unsigned long long)idx);
	if (idx >= u->memo_cap) {
		size_t cap = u->memo_cap ? u->memo_cap : 64;
		while (cap <= idx)
			cap *= 2;
		ts_val **m = realloc(u->memo, cap * sizeof *m);
		if (!m)
			return oom(u);
		memset(m + u->memo_cap, 0, (cap - u->memo_cap) * sizeof *m);
		u->memo = m;
		u->memo_cap = cap;
	}
	if (!u->memo[idx])
		u->memo_count++;
	u->memo[idx] = v;
	return 0;
}

static int memo_get(up *u, uint64_t idx)
{
	if (idx >= u->memo_cap || !u->memo[idx])
		return ufail(u, "memo entry %llu is not defined", (unsigned long long)idx);
	return push(u, u->memo[idx]);
}

static int push_tuple(up *u, ts_val **items, size_t n)
{
	ts_val *t = ts_new(u->a, TS_TUPLE);
	if (!t)
		return oom(u);
	for (size_t i = 0; i < n; i++)
		if (ts_append(u->a, t, items[i]))
			return oom(u);
	return push(u, t);
}

/* ---------------------------------------------------------------- globals */

static const struct {
	const char *name;
	ir_dtype dtype;
	int size;
	bool is_double;
} storage_types[] = {
	{"FloatStorage", IR_DTYPE_F32, 4, false},
	{"DoubleStorage", IR_DTYPE_F32, 8, true},
	{"HalfStorage", IR_DTYPE_F16, 2, false},
	{"BFloat16Storage", IR_DTYPE_BF16, 2, false},
	{"LongStorage", IR_DTYPE_I64, 8, false},
	{"IntStorage", IR_DTYPE_I32, 4, false},
	{"ShortStorage", IR_DTYPE_I16, 2, false},
	{"CharStorage", IR_DTYPE_I8, 1, false},
	{"ByteStorage", IR_DTYPE_U8, 1, false},
	{"BoolStorage", IR_DTYPE_BOOL, 1, false},
};

static int push_global(up *u, const char *mod, const char *name)
{
	ts_val *g = ts_new(u->a, TS_GLOBAL);
	if (!g || !(g->s = ts_sprintf(u->a, "%s.%s", mod, name)))
		return oom(u);
	size_t nl = strlen(name);
	if (!strcmp(mod, "torch._utils") && !strcmp(name, "_rebuild_tensor_v2")) {
		g->i = TG_REBUILD_TENSOR;
	} else if (!strcmp(mod, "torch") && nl > 7 && !strcmp(name + nl - 7, "Storage")) {
		size_t k = 0;
		while (k < sizeof storage_types / sizeof storage_types[0] && strcmp(storage_types[k].name, name))
			k++;
		if (k == sizeof storage_types / sizeof storage_types[0])
			return ufail(u, "tensors of type torch.%s are not supported", name);
		g->i = TG_STORAGE;
		g->gdtype = storage_types[k].dtype;
		g->gsize = storage_types[k].size;
		g->gdouble = storage_types[k].is_double;
	} else if (!strcmp(mod, "collections") && !strcmp(name, "OrderedDict")) {
		g->i = TG_ORDERED_DICT;
	} else if (!strcmp(mod, "torch.jit._pickle")) {
		g->i = TG_JIT_PICKLE;
	} else if (!strcmp(mod, "__torch__") || !strncmp(mod, "__torch__.", 10)) {
		g->i = TG_CLASS;
	} else {
		return ufail(u, "forbidden global '%s.%s' (only TorchScript's own globals are loaded; "
			     "this file may try to run code)", mod, name);
	}
	return push(u, g);
}

/* A name in a GLOBAL opcode: printable, no spaces. */
static int read_line(up *u, const char **s, size_t *n)
{
	const uint8_t *nl = memchr(u->p, '\n', (size_t)(u->end - u->p));
	if (!nl)
		return ufail(u, "truncated pickle");
	*s = (const char *)u->p;
	*n = (size_t)(nl - u->p);
	for (size_t i = 0; i < *n; i++)
		if (u->p[i] <= ' ' || u->p[i] >= 0x7f)
			return ufail(u, "bad character in a global's name");
	u->p = nl + 1;
	return 0;
}

/* ---------------------------------------------------------------- tensors and storages */

static bool as_int(const ts_val *v, int64_t *out)
{
	if (!v || (v->kind != TS_INT && v->kind != TS_BOOL))
		return false;
	*out = v->i;
	return true;
}

/* ('storage', storage_type, key, location, numel) */
static int persistent_load(up *u)
{
	ts_val *pid = pop(u);
	if (!pid)
		return -1;
	int64_t numel;
	if (pid->kind != TS_TUPLE || pid->n < 5 || pid->v[0]->kind != TS_STR || strcmp(pid->v[0]->s, "storage") ||
	    pid->v[1]->kind != TS_GLOBAL || pid->v[1]->i != TG_STORAGE || pid->v[2]->kind != TS_STR ||
	    !as_int(pid->v[4], &numel))
		return ufail(u, "unknown persistent id (expected a storage reference)");
	const ts_val *type = pid->v[1];
	const char *key = pid->v[2]->s;
	if (numel < 0 || numel > IR_MAX_ELEMS || pid->v[2]->len != strlen(key) || !*key)
		return ufail(u, "bad storage reference");
	ts_storage *st = ts_map_get(&u->storages, key);
	if (st && (st->dtype != type->gdtype || st->src_size != type->gsize || st->numel != numel))
		return ufail(u, "storage '%s' is referenced with different types or sizes", key);
	if (!st) {
		st = ts_alloc(u->a, sizeof *st);
		if (!st || !(st->key = ts_strndup(u->a, key, strlen(key))) || ts_map_put(&u->storages, st->key, st))
			return oom(u);
		st->dir = u->dir;
		st->dtype = type->gdtype;
		st->src_size = type->gsize;
		st->is_double = type->gdouble;
		st->numel = numel;
	}
	ts_val *v = ts_new(u->a, TS_STORAGE);
	if (!v)
		return oom(u);
	v->st = st;
	return push(u, v);
}

/* _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata]) */
static ts_val *rebuild_tensor(up *u, const ts_val *args)
{
	int64_t off;
	if (args->kind != TS_TUPLE || args->n < 4 || args->v[0]->kind != TS_STORAGE || !as_int(args->v[1], &off) ||
	    args->v[2]->kind != TS_TUPLE || args->v[3]->kind != TS_TUPLE) {
		ufail(u, "bad arguments to _rebuild_tensor_v2");
		return NULL;
	}
	const ts_val *size = args->v[2], *stride = args->v[3];
	ts_storage *st = args->v[0]->st;
	if (size->n > IR_MAX_RANK || stride->n != size->n) {
		ufail(u, "tensor of rank %d (at most %d is supported) or with mismatched strides", size->n, IR_MAX_RANK);
		return NULL;
	}
	ts_tensor *t = ts_alloc(u->a, sizeof *t);
	ts_val *v = ts_new(u->a, TS_TENSOR);
	if (!t || !v) {
		oom(u);
		return NULL;
	}
	t->dtype = st->dtype;
	t->st = st;
	t->offset = off;
	t->id = -1;
	t->shape.rank = size->n;
	int64_t last = off;
	bool empty = false;
	for (int i = 0; i < size->n; i++) {
		int64_t s, k, span;
		if (!as_int(size->v[i], &s) || !as_int(stride->v[i], &k) || s < 0 || s > IR_MAX_DIM || k < 0 ||
		    k > IR_MAX_ELEMS) {
			ufail(u, "bad tensor size or stride");
			return NULL;
		}
		t->shape.dim[i] = s;
		t->stride[i] = k;
		empty |= s == 0;
		if (s > 0 && (__builtin_mul_overflow(s - 1, k, &span) || __builtin_add_overflow(last, span, &last))) {
			ufail(u, "tensor view out of range");
			return NULL;
		}
	}
	if (ir_shape_numel(&t->shape) < 0 || off < 0 || (!empty && last >= st->numel)) {
		ufail(u, "tensor view lies outside its storage '%s' (%lld elements)", st->key, (long long)st->numel);
		return NULL;
	}
	v->t = t;
	return v;
}

static int reduce(up *u)
{
	ts_val *args = pop(u), *fn = pop(u), *r = NULL;
	if (!args || !fn)
		return -1;
	if (fn->kind != TS_GLOBAL)
		return ufail(u, "REDUCE on %s", ts_kind_name(fn->kind));
	if (args->kind != TS_TUPLE)
		return ufail(u, "REDUCE with %s as arguments", ts_kind_name(args->kind));
	switch ((ts_global)fn->i) {
	case TG_REBUILD_TENSOR:
		if (!(r = rebuild_tensor(u, args)))
			return -1;
		break;
	case TG_ORDERED_DICT:
		r = ts_new(u->a, TS_DICT);
		break;
	case TG_JIT_PICKLE: {
		/* build_intlist(list) and friends return their list;
		 * restore_type_tag(value, type) its value */
		const char *name = strrchr(fn->s, '.') + 1;
		if ((strncmp(name, "build_", 6) && strcmp(name, "restore_type_tag")) || args->n < 1)
			return ufail(u, "unknown function %s", fn->s);
		r = args->v[0];
		break;
	}
	case TG_CLASS:
		if ((r = ts_new(u->a, TS_OBJECT))) {
			r->s = fn->s;
			r->attrs = ts_new(u->a, TS_DICT);
		}
		break;
	default:
		return ufail(u, "%s cannot be called", fn->s);
	}
	return push(u, r);
}

static int newobj(up *u, bool ex)
{
	ts_val *kw = ex ? pop(u) : NULL, *args = pop(u), *cls = pop(u);
	if (!args || !cls || (ex && !kw))
		return -1;
	if (cls->kind != TS_GLOBAL || cls->i != TG_CLASS)
		return ufail(u, "cannot create an instance of %s", cls->kind == TS_GLOBAL ? cls->s : ts_kind_name(cls->kind));
	ts_val *o = ts_new(u->a, TS_OBJECT);
	if (!o || !(o->attrs = ts_new(u->a, TS_DICT)))
		return oom(u);
	o->s = cls->s;
	return push(u, o);
}

static int build(up *u)
{
	ts_val *state = pop(u), *obj = top(u);
	if (!state || !obj)
		return -1;
	if (obj->kind == TS_OBJECT && state->kind == TS_DICT)
		obj->attrs = state;
	/* other states (custom __setstate__, empty dicts on tensors) carry
	 * nothing the importer uses */
	return 0;
}

static int set_items(up *u, ts_val *dict, ts_val **items, size_t n)
{
	if (n % 2)
		return ufail(u, "odd number of items for a dict");
	if (dict->kind != TS_DICT)
		return ufail(u, "SETITEM on %s", ts_kind_name(dict->kind));
	for (size_t i = 0; i < n; i += 2)
		if (ts_dict_set(u->a, dict, items[i], items[i + 1]))
			return oom(u);
	return 0;
}

static int push_str(up *u, size_t lenbytes)
{
	if (need(u, lenbytes))
		return -1;
	uint64_t n = le(u->p, (int)lenbytes);
	u->p += lenbytes;
	if (n > (uint64_t)(u->end - u->p))
		return ufail(u, "truncated pickle (string of %llu bytes)", (unsigned long long)n);
	ts_val *s = ts_new_str(u->a, (const char *)u->p, (size_t)n);
	u->p += n;
	return push(u, s);
}

static int step(up *u, bool *stop)
{
	uint8_t op = *u->p++;
	ts_val **items = NULL, *v, *w;
	size_t n = 0;
	switch (op) {
	case 0x80:	/* PROTO */
		if (need(u, 1))
			return -1;
		if (*u->p > 5)
			return ufail(u, "pickle protocol %d is not supported", *u->p);
		u->p++;
		return 0;
	case 0x95:	/* FRAME */
		if (need(u, 8))
			return -1;
		u->p += 8;
		return 0;
	case '.':	/* STOP */
		*stop = true;
		return 0;
	case '(':	/* MARK */
		if (u->nm == u->mcap) {
			size_t cap = u->mcap ? u->mcap * 2 : 64;
			size_t *m = realloc(u->marks, cap * sizeof *m);
			if (!m)
				return oom(u);
			u->marks = m;
			u->mcap = cap;
		}
		u->marks[u->nm++] = u->sp;
		return 0;
	case '0':	/* POP */
		return pop(u) ? 0 : -1;
	case '1':	/* POP_MARK */
		return pop_mark(u, &items, &n);
	case '2':	/* DUP */
		return (v = top(u)) ? push(u, v) : -1;
	case 'N': return push(u, ts_new(u->a, TS_NONE));
	case 0x88:	/* NEWTRUE */
	case 0x89:	/* NEWFALSE */
		if ((v = ts_new(u->a, TS_BOOL)))
			v->i = op == 0x88;
		return push(u, v);
	case 'J':	/* BININT */
		if (need(u, 4))
			return -1;
		v = ts_new_int(u->a, (int32_t)(uint32_t)le(u->p, 4));
		u->p += 4;
		return push(u, v);
	case 'K':	/* BININT1 */
		if (need(u, 1))
			return -1;
		return push(u, ts_new_int(u->a, *u->p++));
	case 'M':	/* BININT2 */
		if (need(u, 2))
			return -1;
		v = ts_new_int(u->a, (int64_t)le(u->p, 2));
		u->p += 2;
		return push(u, v);
	case 0x8a:	/* LONG1 */
	case 0x8b: {	/* LONG4 */
		size_t lb = op == 0x8a ? 1 : 4;
		if (need(u, lb))
			return -1;
		uint64_t len = le(u->p, (int)lb);
		u->p += lb;
		if (need(u, len))
			return -1;
		if (len > 8)
			return ufail(u, "integer of %llu bytes is too large", (unsigned long long)len);
		uint64_t x = le(u->p, (int)len);
		if (len && len < 8 && (u->p[len - 1] & 0x80))
			x |= ~(uint64_t)0 << (8 * len);	/* sign extension */
		u->p += len;
		return push(u, ts_new_int(u->a, (int64_t)x));
	}
	case 'G': {	/* BINFLOAT: big-endian double */
		if (need(u, 8))
			return -1;
		uint64_t bits = 0;
		for (int i = 0; i < 8; i++)
			bits = bits << 8 | u->p[i];
		u->p += 8;
		if ((v = ts_new(u->a, TS_FLOAT)))
			memcpy(&v->f, &bits, 8);
		return push(u, v);
	}
	case 'X': return push_str(u, 4);	/* BINUNICODE */
	case 0x8c: return push_str(u, 1);	/* SHORT_BINUNICODE */
	case 0x8d: return push_str(u, 8);	/* BINUNICODE8 */
	case 'T': return push_str(u, 4);	/* BINSTRING */
	case 'U': return push_str(u, 1);	/* SHORT_BINSTRING */
	case 'B': return push_str(u, 4);	/* BINBYTES */
	case 'C': return push_str(u, 1);	/* SHORT_BINBYTES */
	case 0x8e: return push_str(u, 8);	/* BINBYTES8 */
	case ')': return push_tuple(u, NULL, 0);
	case 't':	/* TUPLE */
		return pop_mark(u, &items, &n) ? -1 : push_tuple(u, items, n);
	case 0x85:	/* TUPLE1..3 */
	case 0x86:
	case 0x87:
		n = (size_t)(op - 0x84);
		if (u->sp < n + (u->nm ? u->marks[u->nm - 1] : 0))
			return ufail(u, "stack underflow");
		u->sp -= n;
		return push_tuple(u, u->stack + u->sp, n);
	case ']': return push(u, ts_new(u->a, TS_LIST));
	case 0x8f: return push(u, ts_new(u->a, TS_LIST));	/* EMPTY_SET: a list will do */
	case 'l':	/* LIST */
	case 0x91:	/* FROZENSET */
		if (pop_mark(u, &items, &n))
			return -1;
		if (!(v = ts_new(u->a, TS_LIST)))
			return oom(u);
		for (size_t i = 0; i < n; i++)
			if (ts_append(u->a, v, items[i]))
				return oom(u);
		return push(u, v);
	case 'a':	/* APPEND */
		if (!(w = pop(u)) || !(v = top(u)))
			return -1;
		if (v->kind != TS_LIST)
			return ufail(u, "APPEND to %s", ts_kind_name(v->kind));
		return ts_append(u->a, v, w) ? oom(u) : 0;
	case 'e':	/* APPENDS */
	case 0x90:	/* ADDITEMS */
		if (pop_mark(u, &items, &n) || !(v = top(u)))
			return -1;
		if (v->kind != TS_LIST)
			return ufail(u, "APPENDS to %s", ts_kind_name(v->kind));
		for (size_t i = 0; i < n; i++)
			if (ts_append(u->a, v, items[i]))
				return oom(u);
		return 0;
	case '}': return push(u, ts_new(u->a, TS_DICT));
	case 'd':	/* DICT */
		if (pop_mark(u, &items, &n))
			return -1;
		if (!(v = ts_new(u->a, TS_DICT)))
			return oom(u);
		return set_items(u, v, items, n) ? -1 : push(u, v);
	case 's':	/* SETITEM */
		if (!(w = pop(u)) || !(v = pop(u)) || !top(u))
			return -1;
		{
			ts_val *kv[2] = {v, w};
			return set_items(u, top(u), kv, 2);
		}
	case 'u':	/* SETITEMS */
		if (pop_mark(u, &items, &n) || !(v = top(u)))
			return -1;
		return set_items(u, v, items, n);
	case 'c': {	/* GLOBAL */
		const char *m, *nm;
		size_t ml, nl;
		if (read_line(u, &m, &ml) || read_line(u, &nm, &nl))
			return -1;
		char *ms = ts_strndup(u->a, m, ml), *ns = ts_strndup(u->a, nm, nl);
		return ms && ns ? push_global(u, ms, ns) : oom(u);
	}
	case 0x93:	/* STACK_GLOBAL */
		if (!(w = pop(u)) || !(v = pop(u)))
			return -1;
		if (v->kind != TS_STR || w->kind != TS_STR || strlen(v->s) != v->len || strlen(w->s) != w->len)
			return ufail(u, "STACK_GLOBAL needs two strings");
		return push_global(u, v->s, w->s);
	case 'R': return reduce(u);
	case 0x81: return newobj(u, false);
	case 0x92: return newobj(u, true);
	case 'b': return build(u);
	case 'Q': return persistent_load(u);
	case 'q':	/* BINPUT */
		if (need(u, 1))
			return -1;
		return memo_put(u, *u->p++);
	case 'r':	/* LONG_BINPUT */
		if (need(u, 4))
			return -1;
		u->p += 4;
		return memo_put(u, le(u->p - 4, 4));
	case 0x94:	/* MEMOIZE */
		return memo_put(u, u->memo_count);
	case 'h':	/* BINGET */
		if (need(u, 1))
			return -1;
		return memo_get(u, *u->p++);
	case 'j':	/* LONG_BINGET */
		if (need(u, 4))
			return -1;
		u->p += 4;
		return memo_get(u, le(u->p - 4, 4));
	}
	u->p--;
	return ufail(u, "unsupported pickle opcode 0x%02x", op);
}

ts_val *ts_unpickle(ts_arena *a, const uint8_t *buf, size_t size, const char *dir, const char *what,
		    ir_diag *d)
{
	up u = {.a = a, .p = buf, .start = buf, .end = buf + size, .what = what, .dir = dir, .d = d};
	bool stop = false;
	ts_val *r = NULL;
	d->msg[0] = 0;
	while (!stop) {
		if (u.p >= u.end) {
			ufail(&u, "truncated pickle (no STOP)");
			goto out;
		}
		if (step(&u, &stop))
			goto out;
	}
	if (u.sp != 1 || u.nm) {
		ufail(&u, "pickle ends with %zu values on its stack", u.sp);
		goto out;
	}
	r = u.stack[0];
out:
	free(u.stack);
	free(u.marks);
	free(u.memo);
	ts_map_free(&u.storages);
	return r;
}
