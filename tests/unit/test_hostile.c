/* test_hostile.c - libir against hostile input and sizes: hashed name
 * lookup and the use-def cache agree with brute-force scans through every
 * kind of graph edit, topological order on large and reversed graphs, the
 * IR stream's checksum (every single-bit flip of a stream is refused; a
 * version 1 stream without checksum still loads), overflow-checked sizes. */
#include "check.h"
#include "ir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int scan_tensor(const ir_graph *g, const char *name)
{
	for (int i = 0; i < ir_graph_tensor_count(g); i++)
		if (!strcmp(ir_graph_tensor(g, i)->name, name))
			return i;
	return -1;
}

static int scan_node(const ir_graph *g, const char *name)
{
	for (int i = 0; i < ir_graph_node_count(g); i++)
		if (!strcmp(ir_graph_node(g, i)->name, name))
			return i;
	return -1;
}

static int scan_producer(const ir_graph *g, int t)
{
	for (int i = 0; i < ir_graph_node_count(g); i++)
		for (int k = 0; k < ir_graph_node(g, i)->n_outputs; k++)
			if (ir_graph_node(g, i)->outputs[k] == t)
				return i;
	return -1;
}

static int scan_uses(const ir_graph *g, int t, int *last)
{
	int n = 0;
	for (int i = 0; i < ir_graph_node_count(g); i++)
		for (int k = 0; k < ir_graph_node(g, i)->n_inputs; k++)
			if (ir_graph_node(g, i)->inputs[k] == t)
				n++, *last = i;
	return n;
}

/* Every lookup the caches answer, against a scan: the number that differ. */
static int disagreements(const ir_graph *g)
{
	int bad = 0, nt = ir_graph_tensor_count(g), nn = ir_graph_node_count(g);
	for (int t = 0; t < nt; t++) {
		const char *name = ir_graph_tensor(g, t)->name;
		int last = -1, uses = scan_uses(g, t, &last), outs = 0;
		for (int k = 0; k < ir_graph_output_count(g); k++)
			outs += ir_graph_output(g, k) == t;
		bad += ir_graph_find_tensor(g, name) != scan_tensor(g, name);
		bad += ir_graph_producer(g, t) != scan_producer(g, t);
		bad += ir_graph_consumers(g, t) != uses + outs;
		bad += ir_graph_sole_consumer(g, t) != (uses == 1 ? last : -1);
	}
	for (int i = 0; i < nn; i++)
		bad += ir_graph_find_node(g, ir_graph_node(g, i)->name) != scan_node(g, ir_graph_node(g, i)->name);
	bad += ir_graph_find_tensor(g, "no such tensor") != -1;
	bad += ir_graph_find_node(g, "no such node") != -1;
	return bad;
}

/* x -> relu -> ... (n nodes) -> y */
static ir_graph *chain(int n)
{
	ir_graph *g = ir_graph_new();
	ir_diag d;
	char name[32];
	ir_shape s = {.rank = 2, .dim = {1, 4}};
	int x = ir_graph_add_tensor(g, "x", IR_DTYPE_F32, &s, IR_KIND_INPUT, &d);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "t%d", i);
		int y = ir_graph_add_tensor(g, name, IR_DTYPE_F32, &s, IR_KIND_ACTIVATION, &d);
		snprintf(name, sizeof name, "n%d", i);
		if (y < 0 || ir_graph_add_node(g, name, IR_OP_RELU, &x, 1, &y, 1, &d) < 0)
			break;
		x = y;
	}
	int in = 0;
	ir_graph_set_inputs(g, &in, 1, &d);
	ir_graph_set_outputs(g, &x, 1, &d);
	return g;
}

static void test_index(void)
{
	ir_diag d;
	/* 200,000 nodes: a quadratic build would take minutes. */
	ir_graph *g = chain(200000);
	CHECK(ir_graph_node_count(g) == 200000 && ir_graph_tensor_count(g) == 200001);
	CHECK(ir_graph_find_tensor(g, "t123456") == 123457 && ir_graph_find_node(g, "n199999") == 199999);
	int x = 0;
	CHECK(ir_graph_add_tensor(g, "t77", IR_DTYPE_F32, NULL, IR_KIND_ACTIVATION, &d) < 0 &&
	      strstr(d.msg, "duplicate tensor name 't77'"));
	CHECK(ir_graph_add_node(g, "n5", IR_OP_RELU, &x, 1, &x, 1, &d) < 0 && strstr(d.msg, "duplicate node name 'n5'"));
	CHECK(ir_graph_producer(g, 200000) == 199999 && ir_graph_sole_consumer(g, 5) == 5 &&
	      ir_graph_consumers(g, 200000) == 1);
	CHECK(ir_graph_toposort(g, &d) == 0 && ir_graph_find_node(g, "n1000") == 1000);
	ir_graph_free(g);

	/* Edits of every kind, checked against scans after each. */
	g = chain(40);
	CHECK(disagreements(g) == 0);
	CHECK(ir_graph_remove_node(g, 10) == 0 && disagreements(g) == 0);	/* ids shift */
	CHECK(ir_graph_replace_uses(g, 11, 10) == 1 && disagreements(g) == 0);
	int in2[2] = {3, 3};
	CHECK(ir_node_set_inputs(g, 20, in2, 2, &d) == 0 && disagreements(g) == 0);	/* t3 read twice */
	CHECK(ir_graph_sole_consumer(g, 3) == -1 && ir_graph_consumers(g, 3) == 3);
	CHECK(ir_tensor_rename(g, 7, "renamed", &d) == 0 && ir_graph_find_tensor(g, "t6") == -1 &&
	      ir_graph_find_tensor(g, "renamed") == 7 && disagreements(g) == 0);
	CHECK(ir_tensor_rename(g, 8, "renamed", &d) < 0 && strstr(d.msg, "duplicate"));
	int t = ir_graph_add_tensor(g, "fresh", IR_DTYPE_F32, NULL, IR_KIND_ACTIVATION, &d);
	ir_graph_node(g, 30)->outputs[0] = t;	/* a pass rewiring a node in place */
	CHECK(ir_graph_producer(g, t) == 30 && disagreements(g) == 0);
	int tail = ir_graph_output(g, 0);
	CHECK(ir_graph_add_node(g, "last", IR_OP_RELU, &tail, 1, &t, 1, &d) >= 0 && disagreements(g) == 0);
	ir_graph_prune(g);
	CHECK(disagreements(g) == 0);
	/* inputs rewired in place, then ir_graph_touch: the caches follow */
	int a = ir_graph_node(g, 2)->inputs[0];
	ir_graph_node(g, 2)->inputs[0] = ir_graph_node(g, 1)->inputs[0];
	ir_graph_touch(g);
	CHECK(disagreements(g) == 0);
	ir_graph_node(g, 2)->inputs[0] = a;
	ir_graph_touch(g);
	CHECK(disagreements(g) == 0);
	const char *taken = ir_graph_node(g, 0)->name;
	char *u = ir_graph_unique_name(g, taken);
	CHECK(u && strcmp(u, taken) && ir_graph_find_node(g, u) < 0 && ir_graph_find_tensor(g, u) < 0);
	free(u);
	ir_graph_free(g);
}

static void test_topo(void)
{
	ir_diag d;
	/* Nodes stored in reverse order: the sort must restore the chain. */
	int n = 100000;
	ir_graph *g = ir_graph_new();
	char name[32];
	ir_shape s = {.rank = 1, .dim = {4}};
	for (int i = 0; i <= n; i++) {
		snprintf(name, sizeof name, "t%d", i);
		ir_graph_add_tensor(g, name, IR_DTYPE_F32, &s, i ? IR_KIND_ACTIVATION : IR_KIND_INPUT, &d);
	}
	for (int i = n - 1; i >= 0; i--) {
		int x = i, y = i + 1;
		snprintf(name, sizeof name, "n%d", i);
		ir_graph_add_node(g, name, IR_OP_RELU, &x, 1, &y, 1, &d);
	}
	CHECK(ir_graph_toposort(g, &d) == 0);
	int sorted = 1;
	for (int i = 0; i < n; i++)
		sorted &= ir_graph_node(g, i)->inputs[0] == i;
	CHECK(sorted && ir_graph_producer(g, n) == n - 1 && ir_graph_sole_consumer(g, 0) == 0);
	/* A cycle: t0 -> n0 -> t1 -> back into n0's input. */
	int one = 1;
	CHECK(ir_node_set_inputs(g, 0, &one, 1, &d) == 0);
	CHECK(ir_graph_toposort(g, &d) < 0 && strstr(d.msg, "cycle through node 'n0'"));
	ir_graph_free(g);
}

static void test_checksum(void)
{
	ir_diag d;
	ir_graph *g = chain(3);
	float w[16] = {1, 2, 3};
	ir_shape s = {.rank = 1, .dim = {16}};
	ir_graph_add_const(g, "w", IR_DTYPE_F32, &s, w, &d);
	ir_meta_set_str(g, "source.file", "x.onnx");
	uint8_t *buf = NULL;
	size_t n = 0;
	CHECK(ir_graph_write_mem(g, &buf, &n, &d) == 0);
	ir_graph *h = ir_graph_read_mem(buf, n, &d);
	CHECK(h != NULL);
	ir_graph_free(h);
	long loaded = 0, flips = 0;
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 8; b++) {
			buf[i] ^= (uint8_t)(1 << b);
			ir_graph *f = ir_graph_read_mem(buf, n, &d);
			loaded += f != NULL;
			flips++;
			ir_graph_free(f);
			buf[i] ^= (uint8_t)(1 << b);
		}
	CHECK_MSG(loaded == 0, "%ld of %ld single-bit flips of a %zu-byte stream load", loaded, flips, n);
	buf[n / 2] ^= 0x10;
	CHECK(ir_graph_read_mem(buf, n, &d) == NULL && strstr(d.msg, "checksum mismatch"));
	CHECK(ir_graph_read_mem(buf, n - 3, &d) == NULL && strstr(d.msg, "truncated IR stream, or a corrupt one"));
	free(buf);
	ir_graph_free(g);

	/* Version 1 (no checksum) still reads: a committed fixture. */
	FILE *f = fopen("tests/data/bad/good.ir", "rb");
	uint8_t v1[4096];
	size_t k = f ? fread(v1, 1, sizeof v1, f) : 0;
	if (f)
		fclose(f);
	CHECK(k > 10 && v1[10] == 1);	/* map16 of 8, "npu-ir": 1 */
	h = ir_graph_read_mem(v1, k, &d);
	CHECK(h && ir_graph_node_count(h) == 2);
	ir_graph_free(h);
}

static void test_sizes(void)
{
	int64_t acc = 1;
	CHECK(ir_mul_checked(&acc, (int64_t)1 << 30, IR_MAX_ELEMS) == 0 && acc == (int64_t)1 << 30);
	CHECK(ir_mul_checked(&acc, (int64_t)1 << 30, IR_MAX_ELEMS) < 0 && acc == (int64_t)1 << 30);
	CHECK(ir_mul_checked(&acc, 0, IR_MAX_ELEMS) == 0 && acc == 0);
	acc = 5;
	CHECK(ir_mul_checked(&acc, -1, IR_MAX_ELEMS) < 0 && acc == 5);
	acc = INT64_MAX;
	CHECK(ir_mul_checked(&acc, 2, INT64_MAX) < 0);
	ir_shape s = {.rank = 3, .dim = {(int64_t)1 << 30, (int64_t)1 << 30, (int64_t)1 << 30}};
	CHECK(ir_shape_numel(&s) == -1);
}

/* NaN in any float attribute, infinity outside bounds: refused by
 * verification (so by the IR reader, every importer and every stage). */
static void test_nonfinite_attrs(void)
{
	ir_diag d;
	ir_graph *g = ir_graph_new();
	ir_shape s = {.rank = 2, .dim = {1, 4}};
	int x = ir_graph_add_tensor(g, "x", IR_DTYPE_F32, &s, IR_KIND_INPUT, &d);
	int y = ir_graph_add_tensor(g, "y", IR_DTYPE_F32, &s, IR_KIND_ACTIVATION, &d);
	int n = ir_graph_add_node(g, "lrelu", IR_OP_LEAKY_RELU, &x, 1, &y, 1, &d);
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &y, 1, &d);
	CHECK(ir_node_set_float(g, n, "alpha", NAN) == 0);
	CHECK(ir_graph_verify(g, &d) < 0 && d.node == n && !strcmp(d.msg, "attribute 'alpha' is NaN"));
	CHECK(ir_node_set_float(g, n, "alpha", -INFINITY) == 0);
	CHECK(ir_graph_verify(g, &d) < 0 && strstr(d.msg, "attribute 'alpha' is infinite"));
	CHECK(ir_node_set_float(g, n, "alpha", 0.25) == 0 && ir_graph_verify(g, &d) == 0);
	ir_graph_node(g, n)->op = IR_OP_CLIP;
	ir_node_remove_attr(g, n, "alpha");
	CHECK(ir_node_set_float(g, n, "max", INFINITY) == 0 && ir_graph_verify(g, &d) == 0);	/* a bound */
	CHECK(ir_node_set_float(g, n, "min", NAN) == 0 && ir_graph_verify(g, &d) < 0 && strstr(d.msg, "'min' is NaN"));
	ir_graph_free(g);
}

int main(void)
{
	test_nonfinite_attrs();
	test_index();
	test_topo();
	test_checksum();
	test_sizes();
	return check_done();
}
