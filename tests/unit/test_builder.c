/* test_builder.c - the importers' shared graph builder (formats/import):
 * the sticky error keeps the first message and makes emission a no-op,
 * names are made unique (also against names the importer reserves),
 * problems are grouped into one message and cut at a list boundary, and
 * sizes a file dictates are checked for overflow. */
#include "check.h"
#include "ir.h"
#include "import/builder.h"

#include <stdlib.h>
#include <string.h>

static bool reserved(const void *ctx, const char *name)
{
	(void)ctx;
	return !strcmp(name, "kept");
}

static void test_emit(void)
{
	ir_diag d;
	ib b;
	ib_init(&b, ir_graph_new(), &d, '/');
	b.taken = reserved;
	ib_begin(&b, "conv1", "Conv");
	int x = ib_const(&b, "x", IR_DTYPE_F32, &(ir_shape){.rank = 1, .dim = {4}}, (float[4]){1, -2, 3, -4});
	int y = ib_tensor(&b, ib_unique(&b, "conv1", false));
	int n = ib_emit(&b, NULL, IR_OP_RELU, &x, 1, &y, 1);
	CHECK(x >= 0 && y >= 0 && n >= 0);
	CHECK(!strcmp(ir_graph_node(b.g, n)->name, "conv1"));
	CHECK(!strcmp(ir_graph_node(b.g, n)->origin, "Conv"));
	CHECK(ib_done(&b, n) == 0);
	CHECK(ir_graph_tensor(b.g, y)->shape.rank == 1 && ir_graph_tensor(b.g, y)->shape.dim[0] == 4);
	/* a second node of the same framework node: "conv1_1", its temporary "conv1/pad" */
	int t = ib_tmp(&b, "pad");
	CHECK(t >= 0 && !strcmp(ir_graph_tensor(b.g, t)->name, "conv1/pad"));
	int n2 = ib_emit(&b, NULL, IR_OP_RELU, &y, 1, &t, 1);
	CHECK(n2 >= 0 && !strcmp(ir_graph_node(b.g, n2)->name, "conv1_1"));
	/* a tensor name the importer keeps for later is not given out */
	CHECK(!strcmp(ib_unique(&b, "kept", false), "kept_1"));
	CHECK(!strcmp(ib_unique(&b, "kept", true), "kept"));
	/* attributes */
	ib_set_i(&b, n2, "axis", 3);
	ib_set_is(&b, n2, "perm", (int64_t[]){0, 1}, 2);
	CHECK(!b.failed && ir_graph_node(b.g, n2)->n_attrs == 2);
	/* an absent output makes no node and keeps no error */
	int none = -1;
	CHECK(ib_emit(&b, "x", IR_OP_RELU, &x, 1, &none, 1) == -1 && !b.failed);
	/* the first error is kept; later ones and emission do nothing */
	CHECK(ib_fail(&b, "first %d", 1) == -1 && b.failed);
	CHECK(!strcmp(d.msg, "node 'conv1' (Conv): first 1"));
	ib_fail(&b, "second");
	ib_oom(&b);
	CHECK(!strcmp(d.msg, "node 'conv1' (Conv): first 1"));
	int cnt = ir_graph_node_count(b.g);
	int z = ib_tmp(&b, "later");
	CHECK(z == -1 && ib_emit(&b, "later", IR_OP_RELU, &x, 1, &y, 1) == -1);
	CHECK(ir_graph_node_count(b.g) == cnt);
	CHECK(ib_done(&b, n) == -1);
	ir_graph_free(b.g);
	ib_free(&b);
}

static void test_report(void)
{
	ir_diag d;
	ib b;
	ib_init(&b, NULL, &d, '#');
	static const char *const heads[] = {"unsupported ops: ", "quantized ops: "};
	ib_begin(&b, "n1", "Foo");
	CHECK(ib_unsup(&b, "attribute '%s' is not supported", "k") == 1);
	CHECK(ib_problem_add(&b, 0, "Bar", "a", NULL) == 0);
	CHECK(ib_problem_add(&b, 1, "QConv", "q", NULL) == 0);
	CHECK(ib_problem_add(&b, 0, "Bar", "b", NULL) == 0);
	CHECK(ib_problem_add(&b, 0, "Baz", "c", NULL) == 0);
	ib_report(&b, heads, 2);
	CHECK_MSG(!strcmp(d.msg, "unsupported ops: 'Bar' (nodes 'a', 'b'), 'Baz' (node 'c'); quantized ops: "
			  "'QConv' (node 'q'); node 'n1' (Foo): attribute 'k' is not supported"), "%s", d.msg);
	CHECK(b.failed);
	ib_free(&b);

	/* more than a diagnostic holds: cut after a list item */
	ib_init(&b, NULL, &d, '/');
	for (int i = 0; i < 100; i++) {
		char node[32];
		snprintf(node, sizeof node, "node_number_%d", i);
		ib_problem_add(&b, 0, "Big", node, NULL);
	}
	ib_report(&b, heads, 1);
	size_t len = strlen(d.msg);
	CHECK(len < sizeof d.msg && len > sizeof d.msg - 40);
	CHECK(!strncmp(d.msg, "unsupported ops: 'Big' (nodes 'node_number_0', ", 47));
	CHECK_MSG(!strcmp(d.msg + len - 5, ", ..."), "%s", d.msg + len - 20);
	ib_free(&b);

	/* the TorchScript form: what, then its places */
	ib_init(&b, NULL, &d, '/');
	ib_problem_add(&b, 0, "op 'aten::foo'", "code/a.py:3", NULL);
	ib_problem_add(&b, 0, "'while' loop", "code/a.py:7", NULL);
	ib_problem_add(&b, 0, "op 'aten::foo'", "code/b.py:1", NULL);
	ib_report_places(&b, "cannot import: ");
	CHECK_MSG(!strcmp(d.msg, "cannot import: op 'aten::foo' (code/a.py:3, code/b.py:1); 'while' loop (code/a.py:7)"),
		  "%s", d.msg);
	ib_free(&b);
}

static void test_sizes(void)
{
	CHECK(ib_nbytes(&(ir_shape){.rank = 2, .dim = {3, 5}}, IR_DTYPE_F32, 1000) == 60);
	CHECK(ib_nbytes(&(ir_shape){0}, IR_DTYPE_I64, 1000) == 8);
	CHECK(ib_nbytes(&(ir_shape){.rank = 2, .dim = {3, 5}}, IR_DTYPE_F32, 59) == -1);
	CHECK(ib_nbytes(&(ir_shape){.rank = 3, .dim = {1LL << 30, 1LL << 30, 1LL << 30}}, IR_DTYPE_F32, INT64_MAX) == -1);
	CHECK(ib_nbytes(&(ir_shape){.rank = 2, .dim = {-1, 4}}, IR_DTYPE_F32, 1000) == -1);
	CHECK(ib_f2i(1e30) == INT64_MAX && ib_f2i(-1e30) == INT64_MIN && ib_f2i(0.0 / 0.0) == 0 && ib_f2i(-2.7) == -2);
	int *a = NULL, cap = 0;
	for (int i = 0; i < 1000; i++) {
		if (ib_grow((void **)&a, &cap, i, sizeof *a))
			break;
		a[i] = i;
	}
	CHECK(cap >= 1000 && a[999] == 999);
	free(a);
}

static void test_format(void)
{
	ir_diag d;
	CHECK(ib_check_format((const uint8_t *)"", 0, "an ONNX model", "an ONNX model", &d) == -1);
	CHECK(!strcmp(d.msg, "empty file (expected an ONNX model)"));
	CHECK(ib_check_format((const uint8_t *)"\x81\xa6npu-ir\x01", 9, "a TorchScript archive", "zip", &d) == -1);
	CHECK(!strcmp(d.msg, "this is an npukit IR stream already, not a TorchScript archive"));
	CHECK(ib_check_format((const uint8_t *)"PK\x03\x04 rest", 9, "a TorchScript archive", "zip", &d) == 0);
	CHECK(ib_check_format((const uint8_t *)"PK\x03\x04 rest", 9, "an ONNX model", "an ONNX model", &d) == -1);
	CHECK_MSG(!strncmp(d.msg, "not an ONNX model (this looks like a zip", 40), "%s", d.msg);
}

int main(void)
{
	test_emit();
	test_report();
	test_sizes();
	test_format();
	return check_done();
}
