/* test_ts.c - the TorchScript importer's pickle machine and parser on
 * hand-made inputs: values, shared tensor views, the allow-list, and
 * hostile input (truncation at every byte, absurd lengths, deep nesting). */
#include "check.h"
#include "torchscript/ts_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- pickle builder */

typedef struct {
	uint8_t b[4096];
	size_t n;
} pk;

static void raw(pk *p, const void *s, size_t n)
{
	memcpy(p->b + p->n, s, n);
	p->n += n;
}

static void op(pk *p, const char *s) { raw(p, s, strlen(s)); }

static void uni(pk *p, const char *s)	/* BINUNICODE */
{
	uint32_t n = (uint32_t)strlen(s);
	uint8_t h[5] = {'X', (uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
	raw(p, h, 5);
	raw(p, s, n);
}

static void k1(pk *p, int v)		/* BININT1 */
{
	uint8_t h[2] = {'K', (uint8_t)v};
	raw(p, h, 2);
}

/* _rebuild_tensor_v2(storage key of 6 floats, offset, size, stride, False, OrderedDict()) */
static void tensor(pk *p, const char *key, int off, int rank, const int *size, const int *stride)
{
	op(p, "ctorch._utils\n_rebuild_tensor_v2\n((");
	uni(p, "storage");
	op(p, "ctorch\nFloatStorage\n");
	uni(p, key);
	uni(p, "cpu");
	k1(p, 6);
	op(p, "tQ");
	k1(p, off);
	op(p, "(");
	for (int i = 0; i < rank; i++)
		k1(p, size[i]);
	op(p, "t(");
	for (int i = 0; i < rank; i++)
		k1(p, stride[i]);
	op(p, "t\x89" "ccollections\nOrderedDict\n)RtR");
}

static ts_val *unpickle(ts_arena *a, const pk *p, ir_diag *d)
{
	return ts_unpickle(a, p->b, p->n, "data", "test.pkl", d);
}

static void test_values(void)
{
	/* pickle.dumps({'a': (1, -2, 300, 70000, -2**40, 2**62), 'b': [1.5, 'xé', None, True, False],
	 * 'c': b'by', 'd': <same list as b>}, protocol=4) */
	static const uint8_t p4[] =
		"\x80\x04\x95\x56\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x01\x61\x94\x28\x4b\x01\x4a\xfe\xff\xff"
		"\xff\x4d\x2c\x01\x4a\x70\x11\x01\x00\x8a\x06\x00\x00\x00\x00\x00\xff\x8a\x08\x00\x00\x00\x00\x00\x00"
		"\x00\x40\x74\x94\x8c\x01\x62\x94\x5d\x94\x28\x47\x3f\xf8\x00\x00\x00\x00\x00\x00\x8c\x03\x78\xc3\xa9"
		"\x94\x4e\x88\x89\x65\x8c\x01\x63\x94\x43\x02\x62\x79\x94\x8c\x01\x64\x94\x68\x04\x75\x2e";
	ts_arena a = {0};
	ir_diag d;
	ts_val *v = ts_unpickle(&a, p4, sizeof p4 - 1, "data", "p4", &d);
	CHECK_MSG(v && v->kind == TS_DICT && v->n == 4, "%s", v ? "" : d.msg);
	if (v) {
		ts_val *t = ts_dict_get(v, "a"), *l = ts_dict_get(v, "b");
		CHECK(t && t->kind == TS_TUPLE && t->n == 6);
		if (t && t->n == 6) {
			CHECK(t->v[0]->i == 1 && t->v[1]->i == -2 && t->v[2]->i == 300 && t->v[3]->i == 70000);
			CHECK(t->v[4]->i == -((int64_t)1 << 40) && t->v[5]->i == (int64_t)1 << 62);
		}
		CHECK(l && l->kind == TS_LIST && l->n == 5);
		if (l && l->n == 5) {
			CHECK(l->v[0]->kind == TS_FLOAT && l->v[0]->f == 1.5);
			CHECK(l->v[1]->kind == TS_STR && !strcmp(l->v[1]->s, "x\xc3\xa9"));
			CHECK(l->v[2]->kind == TS_NONE && l->v[3]->kind == TS_BOOL && l->v[3]->i == 1 && l->v[4]->i == 0);
		}
		CHECK(ts_dict_get(v, "d") == l);	/* the memo shares the list */
		CHECK(ts_dict_get(v, "c") && ts_dict_get(v, "c")->len == 2);
	}
	/* every prefix is refused cleanly */
	int bad = 0;
	for (size_t n = 0; n < sizeof p4 - 1; n++)
		bad += ts_unpickle(&a, p4, n, "data", "p4", &d) != NULL;
	CHECK(bad == 0);
	ts_arena_free(&a);
}

static void test_tensors(void)
{
	ts_arena a = {0};
	ir_diag d;
	pk p = {.n = 0};
	/* two views of one storage: a 2x2 transposed view at offset 1 and the whole */
	op(&p, "\x80\x02");
	tensor(&p, "0", 1, 2, (const int[]){2, 2}, (const int[]){1, 2});
	tensor(&p, "0", 0, 1, (const int[]){6}, (const int[]){1});
	op(&p, "\x86.");
	ts_val *v = unpickle(&a, &p, &d);
	CHECK_MSG(v && v->kind == TS_TUPLE && v->n == 2, "%s", v ? "" : d.msg);
	if (v && v->n == 2) {
		ts_tensor *x = v->v[0]->t, *y = v->v[1]->t;
		CHECK(x->st == y->st && x->st->numel == 6 && !strcmp(x->st->key, "0") && x->dtype == IR_DTYPE_F32);
		CHECK(x->offset == 1 && x->shape.rank == 2 && x->stride[0] == 1 && x->stride[1] == 2);
		CHECK(y->shape.rank == 1 && y->shape.dim[0] == 6);
	}
	/* a view reaching past its storage */
	p.n = 0;
	op(&p, "\x80\x02");
	tensor(&p, "0", 3, 2, (const int[]){2, 2}, (const int[]){1, 2});
	op(&p, ".");
	CHECK(!unpickle(&a, &p, &d) && strstr(d.msg, "outside its storage"));
	ts_arena_free(&a);
}

static void test_refused(void)
{
	ts_arena a = {0};
	ir_diag d;
	pk p = {.n = 0};
	op(&p, "\x80\x02" "cos\nsystem\n");
	uni(&p, "true");
	op(&p, "\x85R.");
	CHECK(!unpickle(&a, &p, &d) && strstr(d.msg, "forbidden global 'os.system'"));
	p.n = 0;	/* protocol 4 STACK_GLOBAL of builtins.eval */
	op(&p, "\x80\x04\x8c\x08" "builtins" "\x8c\x04" "eval" "\x93");
	CHECK(!unpickle(&a, &p, &d) && strstr(d.msg, "forbidden global 'builtins.eval'"));
	p.n = 0;
	op(&p, "\x80\x02" "ctorch\nQInt8Storage\n.");
	CHECK(!unpickle(&a, &p, &d) && strstr(d.msg, "torch.QInt8Storage are not supported"));
	p.n = 0;	/* a class is inert: REDUCE makes an object, never runs anything */
	op(&p, "\x80\x02" "c__torch__.foo\nBar\n)R.");
	ts_val *v = unpickle(&a, &p, &d);
	CHECK(v && v->kind == TS_OBJECT && !strcmp(v->s, "__torch__.foo.Bar"));
	static const char *const broken[] = {
		"\x80\x02h\x05.",				/* memo entry never stored */
		"\x80\x02K\x01r\xff\xff\xff\x7f.",		/* memo index far beyond the pickle */
		"\x80\x02X\xff\xff\xff\x7f" "abc.",		/* a string longer than the pickle */
		"\x80\x02\x8a\x09\x01\x02\x03\x04\x05\x06\x07\x08\x09.",	/* an integer of 9 bytes */
		"\x80\x02t.",					/* TUPLE without a mark */
		"\x80\x02a.",					/* APPEND to nothing */
		"\x80\x02K\x01K\x02.",				/* two values left */
		"\x80\x02I1\n.",				/* protocol 0 INT */
		"\x80\x02K\x01K\x02s.",				/* SETITEM on an int */
		"\x80\x02(ctorch._utils\n_rebuild_tensor_v2\n(K\x01tR.",	/* rebuild without a storage */
	};
	int refused = 0;
	for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
		ts_val *r = ts_unpickle(&a, (const uint8_t *)broken[i], strlen(broken[i]), "data", "b", &d);
		refused += !r && d.msg[0];
		if (r)
			printf("# broken pickle %zu was accepted\n", i);
	}
	CHECK(refused == (int)(sizeof broken / sizeof broken[0]));
	ts_arena_free(&a);
}

/* ---------------------------------------------------------------- parser */

static const char source[] =
	"class Net(Module):\n"
	"  __parameters__ = [\"weight\", ]\n"
	"  weight : Tensor\n"
	"  __annotations__[\"0\"] = __torch__.torch.nn.modules.conv.___torch_mangle_3.Conv2d\n"
	"  size : Final[int] = -4\n"
	"  def forward(self: __torch__.Net,\n"
	"    x: Tensor,\n"
	"    h: Optional[Tensor]=None) -> Tuple[Tensor, Tensor]:\n"
	"    _0 = getattr(self, \"0\")  # a comment\n"
	"    a, b, = torch.split(x, [2, 2], 1)\n"
	"    y = torch.zeros([1, 2], dtype=6, device=torch.device(\"cpu\"))\n"
	"    if torch.eq(torch.dim(x), 4):\n"
	"      z = x[1:2] if a is not None else -1.5e-3\n"
	"    elif not b:\n"
	"      pass\n"
	"    else:\n"
	"      for i in range(3):\n"
	"        z = (_0).forward1(x, )\n"
	"    return (a, \"q\\\"\\x41\\n\")\n"
	"def f(x: int=2) -> int:\n"
	"  return x // 2 ** 3\n";

static int count_kind(const ts_ast *n, ts_ast_kind k, int depth)
{
	if (!n || depth > 100)
		return 0;
	int c = n->kind == k;
	for (int i = 0; i < n->n; i++)
		c += count_kind(n->k[i], k, depth + 1);
	return c;
}

static void test_parser(void)
{
	ts_arena a = {0};
	ir_diag d;
	ts_ast *m = ts_parse(&a, source, sizeof source - 1, "t.py", &d);
	CHECK_MSG(m && m->kind == A_MODULE && m->n == 2, "%s", m ? "" : d.msg);
	if (m && m->n == 2) {
		const ts_ast *c = m->k[0], *fn = m->k[1];
		CHECK(c->kind == A_CLASS && !strcmp(c->s, "Net"));
		CHECK(c->n == 3 && c->k[0]->kind == A_CLASSATTR && c->k[1]->kind == A_CLASSATTR && c->k[2]->kind == A_DEF);
		CHECK(c->k[1]->k[0] && c->k[1]->k[0]->kind == A_INT && c->k[1]->k[0]->i == -4);
		const ts_ast *fwd = c->k[2];
		CHECK(!strcmp(fwd->s, "forward") && fwd->k[0]->n == 3 && fwd->k[0]->k[2]->k[1]->kind == A_NONE);
		CHECK(fwd->k[1]->kind == A_BLOCK && fwd->k[1]->n == 5);
		CHECK(count_kind(fwd, A_IF, 0) == 2 && count_kind(fwd, A_FOR, 0) == 1 && count_kind(fwd, A_KWARG, 0) == 2);
		CHECK(count_kind(fwd, A_IFEXP, 0) == 1 && count_kind(fwd, A_SLICE, 0) == 1);
		const ts_ast *ret = fwd->k[1]->k[4]->k[0];
		CHECK(ret->kind == A_TUPLE && ret->n == 2 && ret->k[1]->kind == A_STR && !strcmp(ret->k[1]->s, "q\"A\n"));
		CHECK(fn->kind == A_DEF && !strcmp(fn->s, "f") && fn->k[0]->k[0]->k[1]->i == 2);
		/* x // 2 ** 3 is x // (2 ** 3) */
		const ts_ast *e = fn->k[1]->k[0]->k[0];
		CHECK(e->kind == A_BINOP && !strcmp(e->s, "//") && e->k[1]->kind == A_BINOP && !strcmp(e->k[1]->s, "**"));
	}
	/* errors name the file and line; nesting is bounded */
	static const char *const bad[] = {
		"def f(x):\n  return (x\n",
		"def f(x):\n    a = 1\n  b = 2\n",
		"def f(x):\n  return 'abc\n",
		"x = 99999999999999999999\n",
		"x = lambda y: y\n",
		"def f(x):\nreturn x\n",
	};
	int refused = 0;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		refused += !ts_parse(&a, bad[i], strlen(bad[i]), "b.py", &d) && !strncmp(d.msg, "b.py:", 5);
	CHECK(refused == (int)(sizeof bad / sizeof bad[0]));
	size_t n = 200000;
	char *deep = malloc(2 * n + 16);
	if (deep) {
		memcpy(deep, "x = ", 4);
		memset(deep + 4, '(', n);
		memset(deep + 4 + n, ')', n);
		memcpy(deep + 4 + 2 * n, "\n", 2);
		CHECK(!ts_parse(&a, deep, strlen(deep), "deep.py", &d) && strstr(d.msg, "nested too deeply"));
		memset(deep, ' ', 2 * n);	/* a one-line suite chain: if a: if a: if a: ... */
		size_t k = 0;
		for (int i = 0; i < 50000; i++)
			k += (size_t)sprintf(deep + k, "if a: ");
		memcpy(deep + k, "pass\n", 6);
		CHECK(!ts_parse(&a, deep, strlen(deep), "deep.py", &d));
		free(deep);
	}
	ts_arena_free(&a);
}

int main(void)
{
	test_values();
	test_tensors();
	test_refused();
	test_parser();
	return check_done();
}
