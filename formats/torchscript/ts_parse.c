/* ts_parse.c - lexer and parser of the Python subset TorchScript writes in
 * code/ (classes with attribute annotations, defs, assignments, calls,
 * attributes, subscripts, literals, if/for/while, return).
 *
 * A recursive-descent parser over an indentation-aware lexer, producing the
 * ts_ast of ts_internal.h. Nesting is bounded so hostile source cannot
 * exhaust the stack; constructs the importer does not run (with, raise,
 * assert, ...) become A_OTHER statements, to be reported only if they are
 * reached. */
#include "torchscript/ts_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 100
#define MAX_INDENT 100

enum { T_EOF, T_NAME, T_INT, T_FLOAT, T_STR, T_OP, T_NEWLINE, T_INDENT, T_DEDENT };

typedef struct {
	int type;
	int line;
	const char *s;		/* name, op (NUL-terminated copy), decoded string */
	size_t len;
	int64_t i;
	double f;
} token;

typedef struct {
	ts_arena *a;
	const char *src, *p, *end;
	const char *file;
	ir_diag *d;
	int line;
	int paren;
	int indents[MAX_INDENT];
	int nindent;
	int pending_dedents;
	bool line_start;
	bool need_newline;	/* a token since the last NEWLINE */
	bool failed;
	token tok;		/* current token */
	int depth;
} ps;

static int perr(ps *P, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int perr(ps *P, int line, const char *fmt, ...)
{
	char m[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	if (!P->failed)
		ir_fail(P->d, -1, -1, "%s:%d: %s", P->file, line, m);
	P->failed = true;
	return -1;
}

static int oom(ps *P) { return perr(P, P->line, "out of memory"); }

/* ================================================================ lexer */

static bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static void put_utf8(char *out, size_t *n, uint32_t c)
{
	if (c < 0x80) {
		out[(*n)++] = (char)c;
	} else if (c < 0x800) {
		out[(*n)++] = (char)(0xc0 | c >> 6);
		out[(*n)++] = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		out[(*n)++] = (char)(0xe0 | c >> 12);
		out[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (c & 0x3f));
	} else {
		out[(*n)++] = (char)(0xf0 | c >> 18);
		out[(*n)++] = (char)(0x80 | ((c >> 12) & 0x3f));
		out[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (c & 0x3f));
	}
}

static int hexval(char c) { return is_digit(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; }

static int lex_string(ps *P, token *t)
{
	char q = *P->p++;
	if (P->end - P->p >= 2 && P->p[0] == q && P->p[1] == q)
		return perr(P, P->line, "triple-quoted strings are not supported");
	const char *s = P->p;
	while (P->p < P->end && *P->p != q && *P->p != '\n')
		P->p += *P->p == '\\' && P->p + 1 < P->end ? 2 : 1;
	if (P->p >= P->end || *P->p != q)
		return perr(P, P->line, "unterminated string");
	size_t raw = (size_t)(P->p - s);
	char *out = ts_alloc(P->a, raw + 1);
	size_t n = 0;
	if (!out)
		return oom(P);
	for (const char *c = s; c < P->p; c++) {
		if (*c != '\\') {
			out[n++] = *c;
			continue;
		}
		c++;
		switch (*c) {
		case 'n': out[n++] = '\n'; break;
		case 't': out[n++] = '\t'; break;
		case 'r': out[n++] = '\r'; break;
		case '0': out[n++] = 0; break;
		case 'x':
		case 'u': {
			int digits = *c == 'x' ? 2 : 4;
			uint32_t v = 0;
			for (int k = 0; k < digits; k++) {
				int h = c + 1 < P->p ? hexval(c[1]) : -1;
				if (h < 0)
					return perr(P, P->line, "bad escape in a string");
				v = v << 4 | (uint32_t)h;
				c++;
			}
			if (digits == 2)
				out[n++] = (char)v;
			else if (n + 4 <= raw)	/* \uXXXX is 6 bytes, at most 3 in UTF-8 */
				put_utf8(out, &n, v);
			break;
		}
		default: out[n++] = *c; break;	/* \\ \' \" and anything else as itself */
		}
	}
	out[n] = 0;
	P->p++;
	t->type = T_STR;
	t->s = out;
	t->len = n;
	return 0;
}

static int lex_number(ps *P, token *t)
{
	const char *s = P->p;
	bool flt = false;
	if (P->end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		P->p += 2;
		while (P->p < P->end && hexval(*P->p) >= 0)
			P->p++;
	} else {
		while (P->p < P->end && is_digit(*P->p))
			P->p++;
		if (P->p < P->end && *P->p == '.') {
			flt = true;
			P->p++;
			while (P->p < P->end && is_digit(*P->p))
				P->p++;
		}
		if (P->p < P->end && (*P->p == 'e' || *P->p == 'E')) {
			const char *e = P->p + 1;
			if (e < P->end && (*e == '+' || *e == '-'))
				e++;
			if (e < P->end && is_digit(*e)) {
				flt = true;
				P->p = e;
				while (P->p < P->end && is_digit(*P->p))
					P->p++;
			}
		}
	}
	if (P->p < P->end && (is_name_start(*P->p) || is_digit(*P->p)))
		return perr(P, P->line, "bad number");
	char buf[64];
	size_t n = (size_t)(P->p - s);
	if (n >= sizeof buf)
		return perr(P, P->line, "number too long");
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	if (flt) {
		t->type = T_FLOAT;
		t->f = strtod(buf, NULL);
	} else {
		t->type = T_INT;
		unsigned long long v = strtoull(buf, NULL, 0);
		if (errno || v > (unsigned long long)INT64_MAX)
			return perr(P, P->line, "integer %s is out of range", buf);
		t->i = (int64_t)v;
	}
	return 0;
}

static const char *const ops3[] = {"**=", "//=", ">>=", "<<=", "..."};
static const char *const ops2[] = {"**", "//", "==", "!=", "<=", ">=", "->", "<<", ">>", "+=", "-=", "*=", "/=",
				   "%=", "&=", "|=", "^=", "@=", ":="};

static int next(ps *P)
{
	token *t = &P->tok;
	*t = (token){.line = P->line};
	if (P->failed)
		return -1;
	if (P->pending_dedents > 0) {
		P->pending_dedents--;
		t->type = T_DEDENT;
		return 0;
	}
	for (;;) {
		if (P->line_start && P->paren == 0) {
			/* measure indentation; blank and comment lines do not count */
			int col = 0;
			const char *q = P->p;
			while (q < P->end && (*q == ' ' || *q == '\t' || *q == '\f'))
				col = *q++ == '\t' ? (col / 8 + 1) * 8 : col + 1;
			if (q < P->end && (*q == '\n' || *q == '#' || *q == '\r')) {
				while (q < P->end && *q != '\n')
					q++;
				if (q < P->end) {
					P->p = q + 1;
					P->line++;
					continue;
				}
				P->p = q;
			}
			P->line_start = false;
			t->line = P->line;
			if (q >= P->end) {
				P->p = q;
				break;
			}
			P->p = q;
			if (col > P->indents[P->nindent - 1]) {
				if (P->nindent == MAX_INDENT)
					return perr(P, P->line, "too deeply indented");
				P->indents[P->nindent++] = col;
				t->type = T_INDENT;
				return 0;
			}
			int k = 0;
			while (col < P->indents[P->nindent - 1]) {
				P->nindent--;
				k++;
			}
			if (col != P->indents[P->nindent - 1])
				return perr(P, P->line, "inconsistent indentation");
			if (k) {
				P->pending_dedents = k - 1;
				t->type = T_DEDENT;
				return 0;
			}
		}
		while (P->p < P->end && (*P->p == ' ' || *P->p == '\t' || *P->p == '\f' || *P->p == '\r'))
			P->p++;
		if (P->p < P->end && *P->p == '#')
			while (P->p < P->end && *P->p != '\n')
				P->p++;
		if (P->p < P->end && *P->p == '\\' && P->p + 1 < P->end && P->p[1] == '\n') {
			P->p += 2;
			P->line++;
			continue;
		}
		if (P->p < P->end && *P->p == '\n') {
			P->p++;
			P->line++;
			if (P->paren > 0)
				continue;
			P->line_start = true;
			P->need_newline = false;
			t->type = T_NEWLINE;
			return 0;
		}
		break;
	}
	t->line = P->line;
	if (P->p >= P->end) {
		/* end: close the last line, then every open block */
		if (P->need_newline) {
			P->need_newline = false;
			t->type = T_NEWLINE;
			return 0;
		}
		if (P->nindent > 1) {
			P->nindent--;
			t->type = T_DEDENT;
			return 0;
		}
		t->type = T_EOF;
		return 0;
	}
	char c = *P->p;
	P->need_newline = true;
	if (is_name_start(c)) {
		const char *s = P->p;
		while (P->p < P->end && (is_name_start(*P->p) || is_digit(*P->p)))
			P->p++;
		t->type = T_NAME;
		t->len = (size_t)(P->p - s);
		return (t->s = ts_strndup(P->a, s, t->len)) ? 0 : oom(P);
	}
	if (is_digit(c) || (c == '.' && P->p + 1 < P->end && is_digit(P->p[1])))
		return lex_number(P, t);
	if (c == '"' || c == '\'')
		return lex_string(P, t);
	if ((unsigned char)c < ' ' || (unsigned char)c >= 0x7f)
		return perr(P, P->line, "unexpected character 0x%02x", (unsigned char)c);
	size_t n = 1;
	for (size_t i = 0; i < sizeof ops3 / sizeof ops3[0] && n == 1; i++)
		if (P->end - P->p >= 3 && !memcmp(P->p, ops3[i], 3))
			n = 3;
	for (size_t i = 0; i < sizeof ops2 / sizeof ops2[0] && n == 1; i++)
		if (P->end - P->p >= 2 && !memcmp(P->p, ops2[i], 2))
			n = 2;
	if (n == 1 && !strchr("()[]{}:,.;+-*/%@&|^~<>=!", c))
		return perr(P, P->line, "unexpected character '%c'", c);
	if (c == '(' || c == '[' || c == '{')
		P->paren++;
	if ((c == ')' || c == ']' || c == '}') && P->paren > 0)
		P->paren--;
	t->type = T_OP;
	t->len = n;
	t->s = ts_strndup(P->a, P->p, n);
	P->p += n;
	return t->s ? 0 : oom(P);
}

/* ================================================================ parser helpers */

static bool is_op(const ps *P, const char *op) { return P->tok.type == T_OP && !strcmp(P->tok.s, op); }
static bool is_kw(const ps *P, const char *kw) { return P->tok.type == T_NAME && !strcmp(P->tok.s, kw); }

static int expect_op(ps *P, const char *op)
{
	if (!is_op(P, op))
		return perr(P, P->tok.line, "expected '%s'", op);
	return next(P);
}

static const char *tok_desc(const ps *P)
{
	switch (P->tok.type) {
	case T_EOF: return "end of file";
	case T_NEWLINE: return "end of line";
	case T_INDENT: return "indentation";
	case T_DEDENT: return "dedent";
	case T_STR: return "a string";
	case T_INT:
	case T_FLOAT: return "a number";
	default: return P->tok.s;
	}
}

static ts_ast *node(ps *P, ts_ast_kind k, int line)
{
	ts_ast *n = ts_alloc(P->a, sizeof *n);
	if (!n) {
		oom(P);
		return NULL;
	}
	n->kind = k;
	n->line = line;
	return n;
}

/* Growable child list (arena-backed; the waste of doubling is bounded). */
typedef struct {
	ts_ast **v;
	int n, cap;
} kids;

static int kpush(ps *P, kids *k, ts_ast *c)
{
	if (k->n == k->cap) {
		if (k->cap >= (1 << 24))
			return perr(P, P->tok.line, "too many items");
		int cap = k->cap ? 2 * k->cap : 4;
		ts_ast **v = ts_alloc_array(P->a, (size_t)cap, sizeof *v);
		if (!v)
			return oom(P);
		if (k->n)
			memcpy(v, k->v, sizeof *v * (size_t)k->n);
		k->v = v;
		k->cap = cap;
	}
	k->v[k->n++] = c;
	return 0;
}

static ts_ast *with_kids(ps *P, ts_ast_kind kind, int line, kids *k)
{
	ts_ast *n = node(P, kind, line);
	if (n) {
		n->k = k->v;
		n->n = k->n;
	}
	return n;
}

static ts_ast *node2(ps *P, ts_ast_kind kind, int line, const char *s, ts_ast *a, ts_ast *b, ts_ast *c)
{
	ts_ast *n = node(P, kind, line);
	if (!n || !(n->k = ts_alloc_array(P->a, 3, sizeof *n->k)))
		return n ? (oom(P), NULL) : NULL;
	n->s = s;
	n->k[0] = a;
	n->k[1] = b;
	n->k[2] = c;
	n->n = c ? 3 : b ? 2 : a ? 1 : 0;
	return n;
}

/* ================================================================ expressions */

static ts_ast *test(ps *P);

static ts_ast *enter(ps *P)
{
	if (++P->depth > MAX_DEPTH)
		perr(P, P->tok.line, "expression nested too deeply");
	return NULL;
}

/* A comma-separated list up to a closing bracket; *trailing_comma set if
 * the list ends with a comma. */
static int list_until(ps *P, const char *close, kids *k, bool *trailing_comma)
{
	*trailing_comma = false;
	while (!is_op(P, close)) {
		ts_ast *e = test(P);
		if (!e || kpush(P, k, e))
			return -1;
		*trailing_comma = false;
		if (!is_op(P, ","))
			break;
		*trailing_comma = true;
		if (next(P))
			return -1;
	}
	return expect_op(P, close);
}

static ts_ast *atom(ps *P)
{
	token t = P->tok;
	ts_ast *n;
	kids k = {0};
	bool comma;
	switch (t.type) {
	case T_INT:
		if ((n = node(P, A_INT, t.line)))
			n->i = t.i;
		return n && !next(P) ? n : NULL;
	case T_FLOAT:
		if ((n = node(P, A_FLOAT, t.line)))
			n->f = t.f;
		return n && !next(P) ? n : NULL;
	case T_STR: {
		/* adjacent literals concatenate */
		const char *s = t.s;
		size_t len = t.len;
		if (next(P))
			return NULL;
		while (P->tok.type == T_STR) {
			char *c = ts_alloc(P->a, len + P->tok.len + 1);
			if (!c)
				return oom(P), NULL;
			memcpy(c, s, len);
			memcpy(c + len, P->tok.s, P->tok.len);
			s = c;
			len += P->tok.len;
			if (next(P))
				return NULL;
		}
		if ((n = node(P, A_STR, t.line))) {
			n->s = s;
			n->len = len;
		}
		return n;
	}
	case T_NAME:
		if (!strcmp(t.s, "None"))
			n = node(P, A_NONE, t.line);
		else if (!strcmp(t.s, "True") || !strcmp(t.s, "False")) {
			if ((n = node(P, A_BOOL, t.line)))
				n->i = t.s[0] == 'T';
		} else if (!strcmp(t.s, "lambda") || !strcmp(t.s, "yield") || !strcmp(t.s, "await")) {
			perr(P, t.line, "'%s' is not supported", t.s);
			return NULL;
		} else if ((n = node(P, A_NAME, t.line)))
			n->s = t.s;
		return n && !next(P) ? n : NULL;
	case T_OP:
		if (!strcmp(t.s, "(")) {
			if (next(P) || list_until(P, ")", &k, &comma))
				return NULL;
			if (k.n == 1 && !comma)
				return k.v[0];
			return with_kids(P, A_TUPLE, t.line, &k);
		}
		if (!strcmp(t.s, "[")) {
			if (next(P) || list_until(P, "]", &k, &comma))
				return NULL;
			return with_kids(P, A_LIST, t.line, &k);
		}
		if (!strcmp(t.s, "{")) {
			if (next(P))
				return NULL;
			while (!is_op(P, "}")) {
				ts_ast *key = test(P), *val;
				if (!key || expect_op(P, ":") || !(val = test(P)) || kpush(P, &k, key) || kpush(P, &k, val))
					return NULL;
				if (!is_op(P, ","))
					break;
				if (next(P))
					return NULL;
			}
			if (expect_op(P, "}"))
				return NULL;
			return with_kids(P, A_DICT, t.line, &k);
		}
		if (!strcmp(t.s, "...")) {
			n = node(P, A_NONE, t.line);
			return n && !next(P) ? n : NULL;
		}
		break;
	default:
		break;
	}
	perr(P, t.line, "unexpected %s", tok_desc(P));
	return NULL;
}

static ts_ast *subscript(ps *P)
{
	int line = P->tok.line;
	ts_ast *part[3] = {NULL, NULL, NULL};
	int np = 0;
	bool slice = false;
	for (;;) {
		if (!is_op(P, ":") && !is_op(P, "]") && !is_op(P, ",") && !(part[np] = test(P)))
			return NULL;
		if (!is_op(P, ":") || np == 2)
			break;
		slice = true;
		np++;
		if (next(P))
			return NULL;
	}
	if (!slice && !part[0])	/* a ',' where an index belongs: x[,] */
		return perr(P, P->tok.line, "unexpected %s", tok_desc(P)), NULL;
	if (!slice)
		return part[0];
	return node2(P, A_SLICE, line, NULL, part[0], part[1], part[2]);
}

static ts_ast *atom_expr(ps *P)
{
	ts_ast *e = atom(P);
	while (e) {
		int line = P->tok.line;
		if (is_op(P, ".")) {
			if (next(P))
				return NULL;
			if (P->tok.type != T_NAME)
				return perr(P, P->tok.line, "expected a name after '.'"), NULL;
			e = node2(P, A_ATTR, line, P->tok.s, e, NULL, NULL);
			if (next(P))
				return NULL;
		} else if (is_op(P, "(")) {
			kids k = {0};
			if (kpush(P, &k, e) || next(P))
				return NULL;
			while (!is_op(P, ")")) {
				ts_ast *arg;
				if (is_op(P, "*") || is_op(P, "**"))
					return perr(P, P->tok.line, "'*' arguments are not supported"), NULL;
				if (P->tok.type == T_NAME && P->end - P->p >= 1) {
					/* name=value: peek past spaces for a single '=' */
					const char *q = P->p;
					while (q < P->end && (*q == ' ' || *q == '\t'))
						q++;
					if (q < P->end && *q == '=' && (q + 1 >= P->end || q[1] != '=')) {
						const char *name = P->tok.s;
						if (next(P) || expect_op(P, "=") || !(arg = test(P)))
							return NULL;
						if (!(arg = node2(P, A_KWARG, line, name, arg, NULL, NULL)) || kpush(P, &k, arg))
							return NULL;
						goto sep;
					}
				}
				if (!(arg = test(P)) || kpush(P, &k, arg))
					return NULL;
sep:
				if (!is_op(P, ","))
					break;
				if (next(P))
					return NULL;
			}
			if (expect_op(P, ")"))
				return NULL;
			e = with_kids(P, A_CALL, line, &k);
		} else if (is_op(P, "[")) {
			kids k = {0};
			bool comma;
			if (next(P))
				return NULL;
			while (!is_op(P, "]")) {
				ts_ast *s = subscript(P);
				if (!s || kpush(P, &k, s))
					return NULL;
				comma = is_op(P, ",");
				if (!comma)
					break;
				if (next(P))
					return NULL;
			}
			if (expect_op(P, "]"))
				return NULL;
			if (k.n == 0)
				return perr(P, line, "empty subscript"), NULL;
			ts_ast *idx = k.n == 1 ? k.v[0] : with_kids(P, A_TUPLE, line, &k);
			e = idx ? node2(P, A_SUBSCRIPT, line, NULL, e, idx, NULL) : NULL;
		} else {
			break;
		}
	}
	return e;
}

static ts_ast *factor(ps *P);

static ts_ast *power(ps *P)
{
	ts_ast *e = atom_expr(P);
	if (e && is_op(P, "**")) {
		int line = P->tok.line;
		ts_ast *r;
		if (next(P) || !(r = factor(P)))
			return NULL;
		e = node2(P, A_BINOP, line, "**", e, r, NULL);
	}
	return e;
}

static ts_ast *factor(ps *P)
{
	if (is_op(P, "-") || is_op(P, "+") || is_op(P, "~")) {
		int line = P->tok.line;
		const char *op = P->tok.s;
		ts_ast *e;
		enter(P);
		if (P->failed || next(P) || !(e = factor(P)))
			return NULL;
		P->depth--;
		/* fold negative literals so -9223372036854775808 and -1 are plain numbers */
		if (op[0] == '-' && e->kind == A_INT) {
			e->i = -e->i;
			return e;
		}
		if (op[0] == '-' && e->kind == A_FLOAT) {
			e->f = -e->f;
			return e;
		}
		return node2(P, A_UNARY, line, op, e, NULL, NULL);
	}
	return power(P);
}

/* Left-associative binary levels, loosest first. */
static const char *const levels[][6] = {
	{"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "//", "%", "@"},
};

static ts_ast *binary(ps *P, int level)
{
	if (level == (int)(sizeof levels / sizeof levels[0]))
		return factor(P);
	ts_ast *e = binary(P, level + 1);
	while (e && P->tok.type == T_OP) {
		const char *op = NULL;
		for (int i = 0; i < 6 && levels[level][i]; i++)
			if (!strcmp(P->tok.s, levels[level][i]))
				op = levels[level][i];
		if (!op)
			break;
		int line = P->tok.line;
		ts_ast *r;
		if (next(P) || !(r = binary(P, level + 1)))
			return NULL;
		e = node2(P, A_BINOP, line, op, e, r, NULL);
	}
	return e;
}

static const char *comp_op(ps *P)
{
	static const char *const ops[] = {"<", ">", "==", ">=", "<=", "!="};
	if (P->tok.type == T_OP)
		for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
			if (!strcmp(P->tok.s, ops[i]))
				return ops[i];
	if (is_kw(P, "in"))
		return "in";
	if (is_kw(P, "is"))
		return "is";
	if (is_kw(P, "not"))
		return "not in";
	return NULL;
}

static ts_ast *comparison(ps *P)
{
	ts_ast *e = binary(P, 0), *prev = e, *chain = NULL;
	const char *op;
	while (e && (op = comp_op(P))) {
		int line = P->tok.line;
		if (next(P))
			return NULL;
		if (!strcmp(op, "is") && is_kw(P, "not")) {
			op = "is not";
			if (next(P))
				return NULL;
		} else if (!strcmp(op, "not in")) {
			if (!is_kw(P, "in"))
				return perr(P, P->tok.line, "expected 'in' after 'not'"), NULL;
			if (next(P))
				return NULL;
		}
		ts_ast *r = binary(P, 0);
		if (!r)
			return NULL;
		ts_ast *c = node2(P, A_BINOP, line, op, prev, r, NULL);
		/* a < b < c is (a < b) and (b < c) */
		chain = chain ? node2(P, A_BOOLOP, line, "and", chain, c, NULL) : c;
		prev = r;
		if (!chain)
			return NULL;
	}
	return chain ? chain : e;
}

static ts_ast *not_test(ps *P)
{
	if (is_kw(P, "not")) {
		int line = P->tok.line;
		ts_ast *e;
		enter(P);
		if (P->failed || next(P) || !(e = not_test(P)))
			return NULL;
		P->depth--;
		return node2(P, A_UNARY, line, "not", e, NULL, NULL);
	}
	return comparison(P);
}

static ts_ast *bool_level(ps *P, const char *kw)
{
	bool is_or = !strcmp(kw, "or");
	ts_ast *e = is_or ? bool_level(P, "and") : not_test(P);
	while (e && is_kw(P, kw)) {
		int line = P->tok.line;
		ts_ast *r;
		if (next(P) || !(r = is_or ? bool_level(P, "and") : not_test(P)))
			return NULL;
		e = node2(P, A_BOOLOP, line, kw, e, r, NULL);
	}
	return e;
}

static ts_ast *test(ps *P)
{
	enter(P);
	if (P->failed)
		return NULL;
	ts_ast *e = bool_level(P, "or");
	if (e && is_kw(P, "if")) {
		int line = P->tok.line;
		ts_ast *c, *o;
		if (next(P) || !(c = bool_level(P, "or")))
			return NULL;
		if (!is_kw(P, "else"))
			return perr(P, P->tok.line, "expected 'else'"), NULL;
		if (next(P) || !(o = test(P)))
			return NULL;
		e = node2(P, A_IFEXP, line, NULL, e, c, o);
	}
	P->depth--;
	return e;
}

/* test, test, ... (a bare tuple when there is a comma) */
static ts_ast *testlist(ps *P)
{
	int line = P->tok.line;
	ts_ast *e = test(P);
	if (!e || !is_op(P, ","))
		return e;
	kids k = {0};
	if (kpush(P, &k, e))
		return NULL;
	while (is_op(P, ",")) {
		if (next(P))
			return NULL;
		if (P->tok.type == T_NEWLINE || is_op(P, "=") || is_op(P, ":") || is_kw(P, "in"))
			break;
		if (!(e = test(P)) || kpush(P, &k, e))
			return NULL;
	}
	return with_kids(P, A_TUPLE, line, &k);
}

/* ================================================================ statements */

static ts_ast *block(ps *P);
static ts_ast *statement(ps *P);

/* Skip to the end of the logical line. */
static int skip_line(ps *P)
{
	while (P->tok.type != T_NEWLINE && P->tok.type != T_EOF)
		if (next(P))
			return -1;
	return P->tok.type == T_NEWLINE ? next(P) : 0;
}

static int end_line(ps *P)
{
	if (P->tok.type != T_NEWLINE)
		return perr(P, P->tok.line, "unexpected %s", tok_desc(P));
	return next(P);
}

/* ':' then an indented block (or one simple statement on the same line). */
static ts_ast *suite(ps *P)
{
	if (expect_op(P, ":"))
		return NULL;
	if (P->tok.type != T_NEWLINE) {
		kids k = {0};
		int line = P->tok.line;
		ts_ast *s = statement(P);
		if (!s || kpush(P, &k, s))
			return NULL;
		return with_kids(P, A_BLOCK, line, &k);
	}
	if (next(P))
		return NULL;
	if (P->tok.type != T_INDENT)
		return perr(P, P->tok.line, "expected an indented block"), NULL;
	return block(P);
}

static ts_ast *block(ps *P)
{
	int line = P->tok.line;
	kids k = {0};
	if (next(P))	/* the INDENT */
		return NULL;
	while (P->tok.type != T_DEDENT && P->tok.type != T_EOF) {
		ts_ast *s = statement(P);
		if (!s || kpush(P, &k, s))
			return NULL;
	}
	if (P->tok.type == T_DEDENT && next(P))
		return NULL;
	return with_kids(P, A_BLOCK, line, &k);
}

static ts_ast *if_stmt(ps *P)
{
	int line = P->tok.line;
	ts_ast *c, *body, *orelse = NULL;
	if (next(P) || !(c = test(P)) || !(body = suite(P)))
		return NULL;
	if (is_kw(P, "elif")) {
		if (!(orelse = if_stmt(P)))
			return NULL;
		kids k = {0};
		if (kpush(P, &k, orelse) || !(orelse = with_kids(P, A_BLOCK, orelse->line, &k)))
			return NULL;
	} else if (is_kw(P, "else")) {
		if (next(P) || !(orelse = suite(P)))
			return NULL;
	}
	return node2(P, A_IF, line, NULL, c, body, orelse);
}

static ts_ast *def_stmt(ps *P)
{
	int line = P->tok.line;
	if (next(P))
		return NULL;
	if (P->tok.type != T_NAME)
		return perr(P, P->tok.line, "expected a function name"), NULL;
	const char *name = P->tok.s;
	kids params = {0};
	if (next(P) || expect_op(P, "("))
		return NULL;
	while (!is_op(P, ")")) {
		if (P->tok.type != T_NAME)
			return perr(P, P->tok.line, "expected a parameter name"), NULL;
		ts_ast *p = node(P, A_PARAM, P->tok.line);
		if (!p || !(p->k = ts_alloc_array(P->a, 2, sizeof *p->k)))
			return NULL;
		p->s = P->tok.s;
		p->n = 2;
		if (next(P))
			return NULL;
		if (is_op(P, ":") && (next(P) || !(p->k[0] = test(P))))
			return NULL;
		if (is_op(P, "=") && (next(P) || !(p->k[1] = test(P))))
			return NULL;
		if (kpush(P, &params, p))
			return NULL;
		if (!is_op(P, ","))
			break;
		if (next(P))
			return NULL;
	}
	if (expect_op(P, ")"))
		return NULL;
	if (is_op(P, "->") && (next(P) || !test(P)))
		return NULL;
	ts_ast *plist = with_kids(P, A_TUPLE, line, &params), *body = plist ? suite(P) : NULL;
	return body ? node2(P, A_DEF, line, name, plist, body, NULL) : NULL;
}

static ts_ast *class_stmt(ps *P)
{
	int line = P->tok.line;
	if (next(P))
		return NULL;
	if (P->tok.type != T_NAME)
		return perr(P, P->tok.line, "expected a class name"), NULL;
	const char *name = P->tok.s;
	if (next(P))
		return NULL;
	if (is_op(P, "(")) {
		kids bases = {0};
		bool comma;
		if (next(P) || list_until(P, ")", &bases, &comma))
			return NULL;
	}
	ts_ast *body = suite(P);
	if (!body)
		return NULL;
	/* keep methods and class attributes with values (Final constants) */
	kids k = {0};
	for (int i = 0; i < body->n; i++) {
		ts_ast *s = body->k[i];
		if ((s->kind == A_DEF || s->kind == A_CLASSATTR) && kpush(P, &k, s))
			return NULL;
	}
	ts_ast *c = with_kids(P, A_CLASS, line, &k);
	if (c)
		c->s = name;
	return c;
}

static ts_ast *simple_other(ps *P, const char *kw)
{
	ts_ast *n = node(P, A_OTHER, P->tok.line);
	if (n)
		n->s = kw;
	return n && !skip_line(P) ? n : NULL;
}

static ts_ast *statement1(ps *P);

static ts_ast *statement(ps *P)
{
	enter(P);
	ts_ast *n = P->failed ? NULL : statement1(P);
	P->depth--;
	return n;
}

static ts_ast *statement1(ps *P)
{
	int line = P->tok.line;
	ts_ast *n;
	if (P->tok.type == T_INDENT)
		return perr(P, line, "unexpected indentation"), NULL;
	if (P->tok.type == T_NAME) {
		const char *kw = P->tok.s;
		if (!strcmp(kw, "if"))
			return if_stmt(P);
		if (!strcmp(kw, "def"))
			return def_stmt(P);
		if (!strcmp(kw, "class"))
			return class_stmt(P);
		if (!strcmp(kw, "for")) {
			ts_ast *t, *it, *body;
			if (next(P))
				return NULL;
			/* the target list stops at 'in' */
			kids k = {0};
			while (!is_kw(P, "in")) {
				ts_ast *e = binary(P, 0);
				if (!e || kpush(P, &k, e))
					return NULL;
				if (!is_op(P, ","))
					break;
				if (next(P))
					return NULL;
			}
			if (k.n == 0 || !is_kw(P, "in"))
				return perr(P, P->tok.line, "expected 'in'"), NULL;
			t = k.n == 1 ? k.v[0] : with_kids(P, A_TUPLE, line, &k);
			if (!t || next(P) || !(it = testlist(P)) || !(body = suite(P)))
				return NULL;
			if (is_kw(P, "else"))
				return perr(P, P->tok.line, "'for ... else' is not supported"), NULL;
			return node2(P, A_FOR, line, NULL, t, it, body);
		}
		if (!strcmp(kw, "while")) {
			ts_ast *c, *body;
			if (next(P) || !(c = test(P)) || !(body = suite(P)))
				return NULL;
			return node2(P, A_WHILE, line, NULL, c, body, NULL);
		}
		if (!strcmp(kw, "with")) {
			/* header up to ':' (outside brackets), then its suite */
			if ((n = node(P, A_OTHER, line)))
				n->s = kw;
			while (n && !is_op(P, ":") && P->tok.type != T_NEWLINE && P->tok.type != T_EOF)
				if (next(P))
					return NULL;
			return n && suite(P) ? n : NULL;
		}
		if (!strcmp(kw, "try") || !strcmp(kw, "async"))
			return perr(P, line, "'%s' is not supported", kw), NULL;
		if (!strcmp(kw, "pass") || !strcmp(kw, "break") || !strcmp(kw, "continue")) {
			n = node(P, kw[0] == 'p' ? A_PASS : kw[0] == 'b' ? A_BREAK : A_CONTINUE, line);
			return n && !next(P) && !end_line(P) ? n : NULL;
		}
		if (!strcmp(kw, "import") || !strcmp(kw, "from")) {
			n = node(P, A_PASS, line);
			return n && !skip_line(P) ? n : NULL;
		}
		if (!strcmp(kw, "raise") || !strcmp(kw, "assert") || !strcmp(kw, "del") || !strcmp(kw, "global") ||
		    !strcmp(kw, "nonlocal"))
			return simple_other(P, kw);
		if (!strcmp(kw, "return")) {
			ts_ast *v = NULL;
			if (next(P))
				return NULL;
			if (P->tok.type != T_NEWLINE && !(v = testlist(P)))
				return NULL;
			n = node2(P, A_RETURN, line, NULL, v, NULL, NULL);
			return n && !end_line(P) ? n : NULL;
		}
	}
	ts_ast *e = testlist(P);
	if (!e)
		return NULL;
	if (is_op(P, ":")) {
		/* name : type [= value] (class attributes; annotated locals) */
		ts_ast *type, *val = NULL;
		if (next(P) || !(type = test(P)))
			return NULL;
		if (is_op(P, "=") && (next(P) || !(val = testlist(P))))
			return NULL;
		if (end_line(P))
			return NULL;
		if (e->kind != A_NAME)
			return node(P, A_PASS, line);
		return node2(P, A_CLASSATTR, line, e->s, val, type, NULL);
	}
	if (is_op(P, "=")) {
		ts_ast *v;
		if (next(P) || !(v = testlist(P)))
			return NULL;
		if (is_op(P, "="))
			return perr(P, P->tok.line, "chained assignment is not supported"), NULL;
		n = node2(P, A_ASSIGN, line, NULL, e, v, NULL);
		return n && !end_line(P) ? n : NULL;
	}
	if (P->tok.type == T_OP && P->tok.len >= 2 && P->tok.s[P->tok.len - 1] == '=' && strcmp(P->tok.s, "==") &&
	    strcmp(P->tok.s, "<=") && strcmp(P->tok.s, ">=") && strcmp(P->tok.s, "!="))
		return simple_other(P, "augmented assignment");
	n = node2(P, A_EXPR, line, NULL, e, NULL, NULL);
	return n && !end_line(P) ? n : NULL;
}

ts_ast *ts_parse(ts_arena *a, const char *src, size_t len, const char *file, ir_diag *d)
{
	ps P = {.a = a, .src = src, .p = src, .end = src + len, .file = file, .d = d, .line = 1,
		.nindent = 1, .line_start = true};
	kids k = {0};
	if (memchr(src, 0, len)) {
		perr(&P, 1, "the source holds a NUL byte");
		return NULL;
	}
	if (next(&P))
		return NULL;
	while (P.tok.type != T_EOF) {
		if (P.tok.type == T_NEWLINE) {
			if (next(&P))
				return NULL;
			continue;
		}
		ts_ast *s = statement(&P);
		if (!s || kpush(&P, &k, s))
			return NULL;
	}
	return P.failed ? NULL : with_kids(&P, A_MODULE, 1, &k);
}
