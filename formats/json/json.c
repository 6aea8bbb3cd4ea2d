/* json.c - a small strict JSON reader (see json.h). */
#include "json/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct block {
	struct block *next;
	size_t used, cap;
	max_align_t data[];
} block;

struct json_doc {
	block *blocks;
	json_value root;
};

typedef struct {
	json_doc *doc;
	const char *p, *end;
	int line, depth, max_depth;
	char *err;
	size_t errsize;
	bool failed;
} parser;

static void *arena(parser *ps, size_t n)
{
	json_doc *d = ps->doc;
	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (n == 0)
		n = sizeof(max_align_t);
	block *b = d->blocks;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		b = malloc(sizeof(block) + cap);
		if (!b)
			return NULL;
		b->next = d->blocks;
		b->used = 0;
		b->cap = cap;
		d->blocks = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	return p;
}

static int fail(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parser *ps, const char *fmt, ...)
{
	if (ps->failed)
		return -1;
	ps->failed = true;
	char m[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	if (ps->err && ps->errsize)
		snprintf(ps->err, ps->errsize, "line %d: %s", ps->line, m);
	return -1;
}

static int oom(parser *ps) { return fail(ps, "out of memory"); }

static void skip_ws(parser *ps)
{
	while (ps->p < ps->end) {
		char c = *ps->p;
		if (c == '\n')
			ps->line++;
		else if (c != ' ' && c != '\t' && c != '\r')
			return;
		ps->p++;
	}
}

static const char *what_at(const parser *ps)
{
	static char buf[32];
	if (ps->p >= ps->end)
		return "the end of the text";
	unsigned char c = (unsigned char)*ps->p;
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, sizeof buf, "'%c'", c);
	else
		snprintf(buf, sizeof buf, "byte 0x%02x", c);
	return buf;
}

static int hex4(const char *p, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) :
			     c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
		if (d == 16)
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Length of the valid UTF-8 sequence at p (lead byte >= 0x80), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0], cp;
	size_t n;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* A string after its opening quote: decoded into the arena. */
static int parse_string(parser *ps, const char **out, size_t *len)
{
	const char *s = ps->p;
	size_t n = 0;
	/* first pass: find the end (decoded text is never longer) */
	while (s < ps->end && *s != '"') {
		if (*s == '\\') {
			if (s + 1 >= ps->end)
				break;
			s++;
		}
		s++;
	}
	if (s >= ps->end)
		return fail(ps, "unexpected end of the text in a string (truncated?)");
	char *o = arena(ps, (size_t)(s - ps->p) + 1);
	if (!o)
		return oom(ps);
	const char *p = ps->p;
	while (p < s) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20)
			return fail(ps, "control character 0x%02x in a string (escape it)", c);
		if (c >= 0x80) {
			size_t k = utf8_len((const unsigned char *)p, (const unsigned char *)s);
			if (!k)
				return fail(ps, "invalid UTF-8 in a string");
			memcpy(o + n, p, k);
			n += k, p += k;
			continue;
		}
		if (c != '\\') {
			o[n++] = (char)c;
			p++;
			continue;
		}
		p++;
		char e = *p++;
		switch (e) {
		case '"': o[n++] = '"'; break;
		case '\\': o[n++] = '\\'; break;
		case '/': o[n++] = '/'; break;
		case 'b': o[n++] = '\b'; break;
		case 'f': o[n++] = '\f'; break;
		case 'n': o[n++] = '\n'; break;
		case 'r': o[n++] = '\r'; break;
		case 't': o[n++] = '\t'; break;
		case 'u': {
			unsigned cp, lo;
			if (s - p < 4 || hex4(p, &cp))
				return fail(ps, "bad \\u escape in a string");
			p += 4;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return fail(ps, "unpaired surrogate \\u%04x in a string", cp);
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (s - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, &lo) || lo < 0xdc00 || lo > 0xdfff)
					return fail(ps, "unpaired surrogate \\u%04x in a string", cp);
				p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			n += put_utf8(o + n, cp);
			break;
		}
		default:
			return fail(ps, "bad escape '\\%c' in a string", e >= 0x20 && e < 0x7f ? e : '?');
		}
	}
	o[n] = 0;
	*out = o;
	*len = n;
	ps->p = s + 1;
	return 0;
}

static int parse_number(parser *ps, json_value *v)
{
	const char *s = ps->p, *p = s;
	if (p < ps->end && *p == '-')
		p++;
	if (p < ps->end && *p == '0')
		p++;
	else if (p < ps->end && *p >= '1' && *p <= '9')
		while (p < ps->end && *p >= '0' && *p <= '9')
			p++;
	else
		return fail(ps, "bad number");
	if (p < ps->end && *p == '.') {
		p++;
		if (p >= ps->end || *p < '0' || *p > '9')
			return fail(ps, "bad number (digits must follow '.')");
		while (p < ps->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < ps->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < ps->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= ps->end || *p < '0' || *p > '9')
			return fail(ps, "bad number (digits must follow the exponent)");
		while (p < ps->end && *p >= '0' && *p <= '9')
			p++;
	}
	size_t n = (size_t)(p - s);
	char *t = arena(ps, n + 1);
	if (!t)
		return oom(ps);
	memcpy(t, s, n);
	t[n] = 0;
	v->type = JSON_NUMBER;
	v->text = t;
	v->num = strtod(t, NULL);	/* overflow gives +-HUGE_VAL */
	ps->p = p;
	return 0;
}

static int lit(parser *ps, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
		return fail(ps, "unexpected %s", what_at(ps));
	ps->p += n;
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int parse_value(parser *ps, json_value *v);

/* Elements of an array or members of an object after its opening bracket. */
static int parse_container(parser *ps, json_value *v, bool object)
{
	if (++ps->depth > ps->max_depth)
		return fail(ps, "nested deeper than %d levels", ps->max_depth);
	size_t n = 0, cap = 0;
	json_value *items = NULL;
	const char **keys = NULL;
	int rc = -1;
	char close = object ? '}' : ']';
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		rc = 0;
		goto done;
	}
	for (;;) {
		if (n == cap) {
			size_t c2 = cap ? cap * 2 : 8;
			json_value *ni = realloc(items, c2 * sizeof *ni);
			if (!ni)
				goto nomem;
			items = ni;
			if (object) {
				const char **nk = realloc(keys, c2 * sizeof *nk);
				if (!nk)
					goto nomem;
				keys = nk;
			}
			cap = c2;
		}
		skip_ws(ps);
		if (object) {
			size_t kl;
			if (ps->p >= ps->end) {
				fail(ps, "unexpected end of the text (truncated?)");
				goto done;
			}
			if (*ps->p != '"') {
				fail(ps, "expected a key string, found %s", what_at(ps));
				goto done;
			}
			ps->p++;
			if (parse_string(ps, &keys[n], &kl))
				goto done;
			if (strlen(keys[n]) != kl) {
				fail(ps, "key with a NUL character");
				goto done;
			}
			skip_ws(ps);
			if (ps->p >= ps->end) {
				fail(ps, "unexpected end of the text (truncated?)");
				goto done;
			}
			if (*ps->p != ':') {
				fail(ps, "expected ':' after key \"%.60s\", found %s", keys[n], what_at(ps));
				goto done;
			}
			ps->p++;
		}
		if (parse_value(ps, &items[n]))
			goto done;
		n++;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			break;
		}
		if (ps->p >= ps->end)
			fail(ps, "unexpected end of the text (truncated?)");
		else
			fail(ps, "expected ',' or '%c', found %s", close, what_at(ps));
		goto done;
	}
	if (object && n > 1) {	/* a repeated key is an error */
		const char **ks = malloc(n * sizeof *ks);
		if (!ks)
			goto nomem;
		memcpy(ks, keys, n * sizeof *ks);
		qsort(ks, n, sizeof *ks, key_cmp);
		for (size_t i = 1; i < n; i++)
			if (!strcmp(ks[i], ks[i - 1])) {
				fail(ps, "key \"%.60s\" appears twice in one object", ks[i]);
				free(ks);
				goto done;
			}
		free(ks);
	}
	rc = 0;
done:
	if (rc == 0) {
		v->type = object ? JSON_OBJECT : JSON_ARRAY;
		v->len = n;
		v->items = n ? arena(ps, n * sizeof *items) : NULL;
		v->keys = object && n ? arena(ps, n * sizeof *keys) : NULL;
		if (n && (!v->items || (object && !v->keys))) {
			rc = oom(ps);
		} else if (n) {
			memcpy(v->items, items, n * sizeof *items);
			if (object)
				memcpy(v->keys, keys, n * sizeof *keys);
		}
	}
	free(items);
	free(keys);
	ps->depth--;
	return rc;
nomem:
	rc = oom(ps);
	goto done;
}

static int parse_value(parser *ps, json_value *v)
{
	memset(v, 0, sizeof *v);
	skip_ws(ps);
	v->line = ps->line;
	if (ps->p >= ps->end)
		return fail(ps, "unexpected end of the text (truncated?)");
	switch (*ps->p) {
	case '{': ps->p++; return parse_container(ps, v, true);
	case '[': ps->p++; return parse_container(ps, v, false);
	case '"':
		ps->p++;
		v->type = JSON_STRING;
		return parse_string(ps, &v->text, &v->len);
	case 't': v->type = JSON_BOOL, v->b = true; return lit(ps, "true");
	case 'f': v->type = JSON_BOOL; return lit(ps, "false");
	case 'n': v->type = JSON_NULL; return lit(ps, "null");
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return parse_number(ps, v);
		return fail(ps, "unexpected %s", what_at(ps));
	}
}

json_doc *json_parse(const char *buf, size_t size, const json_limits *lim, char *err, size_t errsize)
{
	size_t max_size = lim && lim->max_size ? lim->max_size : (size_t)256 << 20;
	parser ps = {.p = buf, .end = buf + size, .line = 1, .max_depth = lim && lim->max_depth ? lim->max_depth : 64,
		     .err = err, .errsize = errsize};
	if (err && errsize)
		err[0] = 0;
	if (size > max_size) {
		fail(&ps, "text is %zu bytes, more than the limit of %zu", size, max_size);
		return NULL;
	}
	if (size >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))	/* a UTF-8 byte order mark */
		ps.p += 3;
	ps.doc = calloc(1, sizeof *ps.doc);
	if (!ps.doc) {
		oom(&ps);
		return NULL;
	}
	if (parse_value(&ps, &ps.doc->root) == 0) {
		skip_ws(&ps);
		if (ps.p == ps.end)
			return ps.doc;
		fail(&ps, "unexpected %s after the value", what_at(&ps));
	}
	json_free(ps.doc);
	return NULL;
}

const json_value *json_root(const json_doc *doc) { return doc ? &doc->root : NULL; }

void json_free(json_doc *doc)
{
	if (!doc)
		return;
	for (block *b = doc->blocks, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	free(doc);
}

const json_value *json_get(const json_value *v, const char *key)
{
	if (!v || v->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->len; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

int json_int64(const json_value *v, int64_t *out)
{
	if (!v || (v->type != JSON_NUMBER && v->type != JSON_STRING))
		return -1;
	const char *p = v->text;
	bool neg = *p == '-';
	p += neg;
	if (!*p)
		return -1;
	uint64_t acc = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		unsigned d = (unsigned)(*p - '0');
		if (acc > (lim - d) / 10)
			return -1;
		acc = acc * 10 + d;
	}
	if (v->type == JSON_STRING && strlen(v->text) != v->len)
		return -1;
	*out = neg ? (acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc) : (int64_t)acc;
	return 0;
}

int json_double(const json_value *v, double *out)
{
	if (!v)
		return -1;
	if (v->type == JSON_NUMBER) {
		*out = v->num;
		return 0;
	}
	if (v->type != JSON_STRING)
		return -1;
	if (!strcmp(v->text, "NaN"))
		*out = NAN;
	else if (!strcmp(v->text, "Infinity"))
		*out = INFINITY;
	else if (!strcmp(v->text, "-Infinity"))
		*out = -INFINITY;
	else {
		char *end;
		if (!v->len || strlen(v->text) != v->len)
			return -1;
		*out = strtod(v->text, &end);
		if (*end)
			return -1;
	}
	return 0;
}

const char *json_type_name(json_type t)
{
	static const char *const n[] = {"null", "a boolean", "a number", "a string", "an array", "an object"};
	return (unsigned)t < sizeof n / sizeof n[0] ? n[t] : "?";
}
