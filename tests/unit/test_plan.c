/* test_plan.c - the memory planner (libir/ir_plan.c): hand-built graphs
 * with offsets derived by hand in the comments, ir_plan_check refusing
 * broken plans, and every real model fixture planned, checked, and within
 * 2% of its lower bound. The graphs here are not shape-checked: the planner
 * reads only the op, the node order and the tensors' sizes. */
#include "check.h"
#include "ir.h"
#include "onnx/onnx_import.h"
#include "torchscript/ts_import.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- builders */

static int act(ir_graph *g, const char *name, int64_t floats, ir_kind kind)
{
	ir_shape s = {1, {floats}};
	ir_diag d;
	int t = ir_graph_add_tensor(g, name, IR_DTYPE_F32, &s, kind, &d);
	if (t < 0)
		printf("# %s: %s\n", name, d.msg);
	return t;
}

static int act2(ir_graph *g, const char *name, int64_t a, int64_t b)
{
	ir_shape s = {2, {a, b}};
	ir_diag d;
	return ir_graph_add_tensor(g, name, IR_DTYPE_F32, &s, IR_KIND_ACTIVATION, &d);
}

static void node(ir_graph *g, const char *name, int op, int in0, int in1, int out)
{
	int in[2] = {in0, in1};
	ir_diag d;
	if (ir_graph_add_node(g, name, op, in, in1 >= 0 ? 2 : 1, &out, 1, &d) < 0)
		printf("# %s: %s\n", name, d.msg);
}

static void io(ir_graph *g, int in, int out)
{
	ir_diag d;
	ir_graph_set_inputs(g, &in, 1, &d);
	ir_graph_set_outputs(g, &out, 1, &d);
}

/* Plan and check; the plan is returned for the test's own checks. */
static bool plan(const ir_graph *g, const ir_plan_opts *o, ir_plan *p)
{
	ir_diag d;
	if (!CHECK_MSG(ir_plan_make(g, o, p, &d) == 0, "%s", d.msg))
		return false;
	CHECK_MSG(ir_plan_check(g, p, &d) == 0, "%s", d.msg);
	CHECK(p->arena >= p->lower_bound);
	return true;
}

/* ---------------------------------------------------------------- hand-built graphs */

/* A -> concat -> B -> slice -> C, 100, 200, 100 bytes (25, 50, 25 floats),
 * alignment 4 so the sizes stay as they are. Lifetimes (node indices): A
 * [0,0] (graph input: from the start to its last reader, node 0), B [0,1],
 * C [1,1] (graph output: to the end, node 1). Alive at node 0: A+B = 300;
 * at node 1: B+C = 300: the lower bound is 300 at node 0. Largest first: B
 * at 0; A (alive with B) in the first gap above B, 200; C (alive with B,
 * not with A) also 200. Arena 300. */
static void test_chain(void)
{
	ir_graph *g = ir_graph_new();
	int a = act(g, "A", 25, IR_KIND_INPUT), b = act(g, "B", 50, IR_KIND_ACTIVATION);
	int c = act(g, "C", 25, IR_KIND_ACTIVATION);
	node(g, "cat", IR_OP_CONCAT, a, a, b);
	node(g, "cut", IR_OP_SLICE, b, -1, c);
	io(g, a, c);
	ir_plan p;
	ir_plan_opts o = {.align = 4};
	if (plan(g, &o, &p)) {
		CHECK(p.arena == 300 && p.lower_bound == 300 && p.peak_node == 0);
		CHECK(p.buf[b].offset == 0 && p.buf[a].offset == 200 && p.buf[c].offset == 200);
		CHECK(p.buf[a].first == 0 && p.buf[a].last == 0 && p.buf[b].first == 0 && p.buf[b].last == 1);
		CHECK(p.buf[c].first == 1 && p.buf[c].last == 1 && p.buf[c].size == 100);
		/* broken plans are refused: C over B while both are alive, an
		 * offset past the arena, a misaligned offset */
		ir_diag d;
		p.buf[c].offset = 100;
		CHECK(ir_plan_check(g, &p, &d) < 0 && strstr(d.msg, "'B' and 'C'"));
		p.buf[c].offset = 204;
		CHECK(ir_plan_check(g, &p, &d) < 0 && strstr(d.msg, "does not fit"));
		p.buf[c].offset = 202;
		CHECK(ir_plan_check(g, &p, &d) < 0 && strstr(d.msg, "aligned"));
		p.buf[c].offset = 200;
		p.buf[b].last = 0;
		CHECK(ir_plan_check(g, &p, &d) < 0 && strstr(d.msg, "lives from"));
		ir_plan_free(&p);
	}
	/* Default alignment 16: 100 -> 112, 200 -> 208; B at 0, A and C at 208. */
	if (plan(g, NULL, &p)) {
		CHECK(p.arena == 320 && p.lower_bound == 320 && p.buf[a].offset == 208 && p.buf[a].size == 112);
		ir_plan_free(&p);
	}
	/* Inputs and outputs outside: only B, 200 bytes at 0. */
	o.io_outside = true;
	if (plan(g, &o, &p)) {
		CHECK(p.arena == 200 && p.lower_bound == 200 && p.buf[b].offset == 0);
		CHECK(p.buf[a].offset == -1 && p.buf[a].size == 0 && p.buf[c].offset == -1 && p.buf[c].size == 0);
		ir_plan_free(&p);
	}
	ir_graph_free(g);
}

/* X [4x8 input] -> reshape R1 [32] -> flatten R2 -> softmax Y [output],
 * 128 bytes each. X, R1, R2 are one buffer alive over [0,2] (X from the
 * start, R2 read by node 2); Y [2,2]. At node 2 both: lower bound and
 * arena 256. Equal sizes go by first use: the group at 0, Y at 128.
 * Outside the arena (io_outside) X cannot lend its buffer: R1 [0,1] and
 * R2 [1,2] are one group at 0, arena 128. */
static void test_reshape_chain(void)
{
	ir_graph *g = ir_graph_new();
	ir_shape s = {2, {4, 8}};
	ir_diag d;
	int x = ir_graph_add_tensor(g, "X", IR_DTYPE_F32, &s, IR_KIND_INPUT, &d);
	int r1 = act(g, "R1", 32, IR_KIND_ACTIVATION), r2 = act(g, "R2", 32, IR_KIND_ACTIVATION);
	int y = act(g, "Y", 32, IR_KIND_ACTIVATION);
	node(g, "r1", IR_OP_RESHAPE, x, -1, r1);
	node(g, "r2", IR_OP_FLATTEN, r1, -1, r2);
	node(g, "sm", IR_OP_SOFTMAX, r2, -1, y);
	io(g, x, y);
	ir_plan p;
	if (plan(g, NULL, &p)) {
		CHECK(p.arena == 256 && p.lower_bound == 256 && p.peak_node == 2);
		CHECK(p.buf[x].offset == 0 && p.buf[r1].offset == 0 && p.buf[r2].offset == 0 && p.buf[y].offset == 128);
		CHECK(p.buf[x].alias_of == -1 && p.buf[r1].alias_of == x && p.buf[r2].alias_of == x);
		/* Y over the group while R2 is read: refused */
		p.buf[y].offset = 0;
		CHECK(ir_plan_check(g, &p, &d) < 0 && strstr(d.msg, "overlap"));
		ir_plan_free(&p);
	}
	ir_plan_opts o = {.io_outside = true};
	if (plan(g, &o, &p)) {
		CHECK(p.arena == 128 && p.lower_bound == 128);
		CHECK(p.buf[x].offset == -1 && p.buf[y].offset == -1 && p.buf[r1].offset == 0);
		CHECK(p.buf[r1].alias_of == -1 && p.buf[r2].alias_of == r1);
		ir_plan_free(&p);
	}
	ir_graph_free(g);
}

/* X [input] -> softmax A -> relu B -> sigmoid C -> softmax Y [output], 128
 * bytes each. A dies at node 1, where relu may write B over it; B dies at
 * node 2, C over it: A, B, C one buffer [0,3]. Nothing is written over X
 * (a graph input) or into Y (a graph output). Alive: node 0 X+A, node 3
 * A+Y: 256; the group (first 0, id 1) goes after X (first 0, id 0) at 128,
 * Y (alive with the group only) at 0. Without in place, A [0,1], B [1,2],
 * C [2,3]: still 256 (two alive at every node), but three buffers. */
static void test_in_place(void)
{
	ir_graph *g = ir_graph_new();
	int x = act(g, "X", 32, IR_KIND_INPUT), a = act(g, "A", 32, IR_KIND_ACTIVATION);
	int b = act(g, "B", 32, IR_KIND_ACTIVATION), c = act(g, "C", 32, IR_KIND_ACTIVATION);
	int y = act(g, "Y", 32, IR_KIND_ACTIVATION);
	node(g, "a", IR_OP_SOFTMAX, x, -1, a);
	node(g, "b", IR_OP_RELU, a, -1, b);
	node(g, "c", IR_OP_SIGMOID, b, -1, c);
	node(g, "y", IR_OP_SOFTMAX, c, -1, y);
	io(g, x, y);
	ir_plan p;
	if (plan(g, NULL, &p)) {
		CHECK(p.arena == 256 && p.lower_bound == 256);
		CHECK(p.buf[b].alias_of == a && p.buf[c].alias_of == a && p.buf[a].alias_of == -1);
		CHECK(p.buf[x].offset == 0 && p.buf[a].offset == 128 && p.buf[c].offset == 128 && p.buf[y].offset == 0);
		ir_plan_free(&p);
	}
	ir_plan_opts o = {.no_in_place = true};
	if (plan(g, &o, &p)) {
		CHECK(p.arena == 256 && p.buf[b].alias_of == -1 && p.buf[c].alias_of == -1);
		CHECK(p.buf[a].offset != p.buf[b].offset && p.buf[b].offset != p.buf[c].offset);
		ir_plan_free(&p);
	}
	ir_graph_free(g);

	/* relu straight on the graph input, and into the graph output: no
	 * aliasing (the caller's buffers), X [0,0] and Y [0,0]: 256. */
	g = ir_graph_new();
	x = act(g, "X", 32, IR_KIND_INPUT), y = act(g, "Y", 32, IR_KIND_ACTIVATION);
	node(g, "y", IR_OP_RELU, x, -1, y);
	io(g, x, y);
	if (plan(g, NULL, &p)) {
		CHECK(p.arena == 256 && p.buf[y].alias_of == -1 && p.buf[x].offset != p.buf[y].offset);
		ir_plan_free(&p);
	}
	ir_graph_free(g);
}

/* The residual diamond: X -> softmax A -> relu B -> add C(A, B) -> softmax
 * Y. relu must not write over A: A is read again by the add (node 2). The
 * add may write over A (first input, same shape, dies at node 2) -- B is
 * alive there too but is not in A's buffer. Tensor ids X0 A1 B2 C3 Y4;
 * lifetimes X [0,0], {A,C} [0,3], B [1,2], Y [3,3]; two buffers alive at
 * every node: 256. Placement (equal sizes, by first use then id): X 0,
 * {A,C} 128, B 0 (X is dead by node 1), Y 0. */
static void test_diamond(void)
{
	ir_graph *g = ir_graph_new();
	int x = act(g, "X", 32, IR_KIND_INPUT), a = act(g, "A", 32, IR_KIND_ACTIVATION);
	int b = act(g, "B", 32, IR_KIND_ACTIVATION), c = act(g, "C", 32, IR_KIND_ACTIVATION);
	int y = act(g, "Y", 32, IR_KIND_ACTIVATION);
	node(g, "a", IR_OP_SOFTMAX, x, -1, a);
	node(g, "b", IR_OP_RELU, a, -1, b);
	node(g, "c", IR_OP_ADD, a, b, c);
	node(g, "y", IR_OP_SOFTMAX, c, -1, y);
	io(g, x, y);
	ir_plan p;
	ir_diag d;
	if (plan(g, NULL, &p)) {
		CHECK(p.buf[b].alias_of == -1 && p.buf[b].offset != p.buf[a].offset);
		CHECK(p.buf[c].alias_of == a && p.buf[c].offset == p.buf[a].offset);
		CHECK(p.arena == 256 && p.lower_bound == 256);
		CHECK(p.buf[x].offset == 0 && p.buf[a].offset == 128 && p.buf[b].offset == 0 && p.buf[y].offset == 0);
		/* B written over A while A is still needed: refused */
		p.buf[b].offset = 128;
		p.buf[b].alias_of = a;
		CHECK(ir_plan_check(g, &p, &d) < 0 && strstr(d.msg, "'A' and 'B'"));
		ir_plan_free(&p);
	}
	ir_graph_free(g);

	/* add(S, A) with S [8] broadcast over A [4x8]: the output may take
	 * A's buffer (its shape, dies here) but never S's. */
	g = ir_graph_new();
	ir_shape s2 = {2, {4, 8}};
	x = ir_graph_add_tensor(g, "X", IR_DTYPE_F32, &s2, IR_KIND_INPUT, &d);
	a = act2(g, "A", 4, 8);
	int sm = act(g, "S", 8, IR_KIND_ACTIVATION);
	c = act2(g, "C", 4, 8);
	y = act2(g, "Y", 4, 8);
	node(g, "a", IR_OP_SOFTMAX, x, -1, a);
	node(g, "s", IR_OP_REDUCE_MEAN, a, -1, sm);
	node(g, "c", IR_OP_ADD, sm, a, c);
	node(g, "y", IR_OP_SOFTMAX, c, -1, y);
	io(g, x, y);
	if (plan(g, NULL, &p)) {
		CHECK(p.buf[c].alias_of == a && p.buf[sm].offset != p.buf[c].offset);
		ir_plan_free(&p);
	}
	ir_graph_free(g);
}

/* Bad input is a status and a message: a node reading what a later node
 * produces, an alignment that is not a power of two. */
static void test_errors(void)
{
	ir_graph *g = ir_graph_new();
	int x = act(g, "X", 4, IR_KIND_INPUT), a = act(g, "A", 4, IR_KIND_ACTIVATION);
	int y = act(g, "Y", 4, IR_KIND_ACTIVATION);
	node(g, "late", IR_OP_SOFTMAX, a, -1, y);
	node(g, "early", IR_OP_SOFTMAX, x, -1, a);
	io(g, x, y);
	ir_plan p;
	ir_diag d;
	CHECK(ir_plan_make(g, NULL, &p, &d) < 0 && strstr(d.msg, "topological") && p.buf == NULL);
	ir_plan_free(&p);
	ir_graph_free(g);
	g = ir_graph_new();
	x = act(g, "X", 4, IR_KIND_INPUT), y = act(g, "Y", 4, IR_KIND_ACTIVATION);
	node(g, "n", IR_OP_SOFTMAX, x, -1, y);
	io(g, x, y);
	ir_plan_opts o = {.align = 24};
	CHECK(ir_plan_make(g, &o, &p, &d) < 0 && strstr(d.msg, "power of two"));
	ir_plan_free(&p);
	ir_graph_free(g);
}

/* ---------------------------------------------------------------- random graphs */

static uint32_t rnd_state = 12345;
static uint32_t rnd(uint32_t n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

/* Random graphs of views, elementwise ops (some broadcasting, some reading
 * a tensor again later) and concats over a few sizes: every plan checks,
 * and moving one buffer onto another alive at the same time is caught. */
static void test_random(void)
{
	static const int64_t sizes[] = {4, 8, 16, 33, 64};
	int failed_plans = 0, caught = 0, mutated = 0, over = 0;
	double worst = 1;
	for (int round = 0; round < 300; round++) {
		ir_graph *g = ir_graph_new();
		int ids[64], n = 0, nodes = 2 + (int)rnd(30);
		char name[32];
		ir_diag d;
		for (int i = 0; i < 1 + (int)rnd(2); i++) {
			snprintf(name, sizeof name, "in%d", i);
			ids[n++] = act(g, name, sizes[rnd(5)], IR_KIND_INPUT);
		}
		ir_graph_set_inputs(g, ids, n, &d);
		for (int i = 0; i < nodes && n < 64; i++) {
			int x = ids[n - 1 - (int)rnd(n < 4 ? (uint32_t)n : 4)], y = -1, u = -1, op;
			const ir_tensor *tx = ir_graph_tensor(g, x);
			int64_t numel = ir_shape_numel(&tx->shape);
			snprintf(name, sizeof name, "t%d", n);
			switch (rnd(4)) {
			case 0:	/* a view, rank changing */
				op = IR_OP_RESHAPE;
				y = tx->shape.rank == 1 ? act2(g, name, 1, numel) : act(g, name, numel, IR_KIND_ACTIVATION);
				break;
			case 1:	/* unary elementwise */
				op = IR_OP_RELU;
				y = ir_graph_add_tensor(g, name, IR_DTYPE_F32, &tx->shape, IR_KIND_ACTIVATION, &d);
				break;
			case 2:	/* binary: with a tensor of the same numel (maybe broadcast) or itself */
				op = IR_OP_ADD;
				u = x;
				for (int k = 0; k < n; k++)
					if (ids[k] != x && ir_shape_numel(&ir_graph_tensor(g, ids[k])->shape) == numel && rnd(2))
						u = ids[k];
				y = ir_graph_add_tensor(g, name, IR_DTYPE_F32, &tx->shape, IR_KIND_ACTIVATION, &d);
				break;
			default:	/* a new size */
				op = IR_OP_SOFTMAX;
				y = act(g, name, sizes[rnd(5)], IR_KIND_ACTIVATION);
				break;
			}
			snprintf(name, sizeof name, "n%d", i);
			node(g, name, op, rnd(2) ? x : u >= 0 ? u : x, op == IR_OP_ADD ? (u == x ? x : u) : -1, y);
			ids[n++] = y;
		}
		int outs[3] = {ids[n - 1], ids[rnd((uint32_t)n)], ids[rnd((uint32_t)n)]};
		int n_out = outs[1] == outs[0] ? 1 : 2;
		ir_graph_set_outputs(g, outs, n_out, &d);
		for (int v = 0; v < 4; v++) {
			ir_plan_opts o = {.io_outside = v & 1, .no_in_place = v & 2, .align = v == 3 ? 64 : 0};
			ir_plan p;
			if (ir_plan_make(g, &o, &p, &d) || ir_plan_check(g, &p, &d) || p.arena < p.lower_bound) {
				if (failed_plans++ < 3)
					printf("# round %d options %d: %s\n", round, v, d.msg);
				ir_plan_free(&p);
				continue;
			}
			over += v == 0 && p.arena * 50 > p.lower_bound * 51;
			if (p.lower_bound && (double)p.arena / (double)p.lower_bound > worst)
				worst = (double)p.arena / (double)p.lower_bound;
			/* two buffers alive together that do not share: put one on the other */
			for (int a = 0; a < p.n && v == 0; a++)
				for (int b = 0; b < p.n; b++) {
					ir_plan_buf *A = &p.buf[a], *B = &p.buf[b];
					int ra = A->alias_of >= 0 ? A->alias_of : a, rb = B->alias_of >= 0 ? B->alias_of : b;
					if (a == b || A->offset < 0 || B->offset < 0 || ra == rb || A->first > B->last || B->first > A->last)
						continue;
					int64_t keep = B->offset;
					B->offset = A->offset;
					mutated++;
					if (ir_plan_check(g, &p, &d) < 0)
						caught++;
					else
						printf("# round %d: '%s' moved onto '%s' is not caught\n", round,
						       ir_graph_tensor(g, b)->name, ir_graph_tensor(g, a)->name);
					B->offset = keep;
					a = b = p.n;
				}
			ir_plan_free(&p);
		}
		ir_graph_free(g);
	}
	CHECK_MSG(failed_plans == 0, "%d random plans fail", failed_plans);
	CHECK_MSG(mutated > 100 && caught == mutated, "%d of %d broken plans caught", caught, mutated);
	/* The clique bound is not always reachable (dynamic storage allocation
	 * is NP-hard), but random graphs rarely miss it by more than 2%: 2 of
	 * 300 when this was written. */
	CHECK_MSG(over <= 6, "%d of 300 random graphs have an arena above 1.02 * the lower bound", over);
	printf("# random graphs: %d of 300 above 1.02, worst arena / lower bound %.4f\n", over, worst);
}

/* ---------------------------------------------------------------- real models */

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = len >= 0 ? malloc((size_t)len + 1) : NULL;
	*n = p ? fread(p, 1, (size_t)len, f) : 0;
	fclose(f);
	return p;
}

/* Every option combination plans and checks; the default plan is within 2%
 * of the lower bound (the target). */
static void check_model(const char *path, ir_graph *g, const char *msg)
{
	if (!CHECK_MSG(g != NULL, "%s: %s", path, msg))
		return;
	for (int v = 0; v < 4; v++) {
		ir_plan_opts o = {.io_outside = v & 1, .no_in_place = v & 2};
		ir_plan p;
		if (!plan(g, &o, &p))
			continue;
		printf("# %s%s%s: arena %lld, lower bound %lld, ratio %.4f (%s)\n", path,
		       o.io_outside ? " io-outside" : "", o.no_in_place ? " no-in-place" : "",
		       (long long)p.arena, (long long)p.lower_bound,
		       p.lower_bound ? (double)p.arena / (double)p.lower_bound : 1.0, p.strategy);
		if (v == 0)
			CHECK_MSG(p.arena * 50 <= p.lower_bound * 51, "%s: arena %lld > 1.02 * %lld", path,
				  (long long)p.arena, (long long)p.lower_bound);
		ir_plan_free(&p);
	}
	ir_graph_free(g);
}

static void test_onnx(const char *path)
{
	size_t n;
	uint8_t *buf = slurp(path, &n);
	ir_diag d = {.msg = "cannot read the file"};
	ir_graph *g = buf ? onnx_import(buf, n, NULL, &d) : NULL;
	free(buf);
	check_model(path, g, d.msg);
}

/* TorchScript fixtures with forward()'s shapes from tests/data/pt/cases.txt. */
static void test_pt(void)
{
	FILE *f = fopen("tests/data/pt/cases.txt", "r");
	if (!CHECK_MSG(f != NULL, "cannot read tests/data/pt/cases.txt"))
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		ts_input_shape in[8];
		int n_in = 0;
		char *save, *name = strtok_r(line, " \n", &save), *w;
		bool ok = name != NULL;
		while (ok && (w = strtok_r(NULL, " \n", &save)) != NULL) {
			if (strcmp(w, "--input") || !(w = strtok_r(NULL, " \n", &save)) || n_in == 8) {
				ok = false;
				break;
			}
			char *colon = strchr(w, ':'), *type = colon ? strchr(colon + 1, ':') : NULL;
			ts_input_shape *s = &in[n_in++];
			s->dtype = IR_DTYPE_F32;
			if (type) {
				*type = 0;
				s->dtype = ir_dtype_from_name(type + 1);
			}
			ok = colon && (s->index = atoi(w), ir_shape_parse(colon + 1, &s->shape) == 0) && (int)s->dtype >= 0;
		}
		if (!CHECK_MSG(ok, "bad line in cases.txt: %s", name ? name : ""))
			continue;
		char path[256];
		snprintf(path, sizeof path, "tests/data/pt/%s.pt", name);
		size_t n;
		uint8_t *buf = slurp(path, &n);
		ir_diag d = {.msg = "cannot read the file"};
		ts_import_opts o = {.inputs = in, .n_inputs = n_in};
		ir_graph *g = buf ? ts_import(buf, n, &o, &d) : NULL;
		free(buf);
		check_model(path, g, d.msg);
	}
	fclose(f);
}

int main(void)
{
	test_chain();
	test_reshape_chain();
	test_in_place();
	test_diamond();
	test_errors();
	test_random();
	test_onnx("tests/data/tinycnn.onnx");
	test_onnx("share/npu/examples/squeezenet1_1.onnx");
	test_onnx("tests/data/fuse/mobilenet_v2.onnx");
	test_pt();
	return check_done();
}
