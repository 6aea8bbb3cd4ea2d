/* test_ir.c - libir: builders, attributes, verification, shape inference,
 * the IR stream (round trip, determinism, hostile input). Expected shapes
 * are the ONNX operator definitions' formulas worked by hand. */
#include "check.h"
#include "ir.h"

#include <stdlib.h>
#include <string.h>

static ir_shape S(int rank, ...)
{
	ir_shape s = {.rank = rank};
	__builtin_va_list ap;
	__builtin_va_start(ap, rank);
	for (int i = 0; i < rank; i++)
		s.dim[i] = __builtin_va_arg(ap, int);
	__builtin_va_end(ap);
	return s;
}

static int act(ir_graph *g, const char *name)
{
	ir_diag d;
	return ir_graph_add_tensor(g, name, IR_DTYPE_F32, NULL, IR_KIND_ACTIVATION, &d);
}

static int cnst(ir_graph *g, const char *name, ir_shape s)
{
	ir_diag d;
	int64_t n = ir_shape_numel(&s);
	float *v = calloc((size_t)n + 1, sizeof(float));
	for (int64_t i = 0; i < n; i++)
		v[i] = (float)i * 0.5f;
	int id = ir_graph_add_const(g, name, IR_DTYPE_F32, &s, v, &d);
	free(v);
	return id;
}

/* x[1,3,8,8] -> conv(4,3,3,3, stride 2, pads 1) -> relu -> max_pool(2) -> flatten */
static ir_graph *small_net(void)
{
	ir_diag d;
	ir_graph *g = ir_graph_new();
	ir_shape xs = S(4, 1, 3, 8, 8);
	int x = ir_graph_add_tensor(g, "x", IR_DTYPE_F32, &xs, IR_KIND_INPUT, &d);
	int w = cnst(g, "w", S(4, 4, 3, 3, 3)), b = cnst(g, "b", S(1, 4));
	int c = act(g, "c"), r = act(g, "r"), p = act(g, "p"), f = act(g, "f");
	int in1[] = {x, w, b};
	int n = ir_graph_add_node(g, "conv1", IR_OP_CONV, in1, 3, &c, 1, &d);
	int64_t st[] = {2, 2}, pads[] = {1, 1, 1, 1}, k[] = {2, 2};
	ir_node_set_ints(g, n, "strides", st, 2);
	ir_node_set_ints(g, n, "pads", pads, 4);
	ir_graph_add_node(g, "relu1", IR_OP_RELU, &c, 1, &r, 1, &d);
	n = ir_graph_add_node(g, "pool1", IR_OP_MAX_POOL, &r, 1, &p, 1, &d);
	ir_node_set_ints(g, n, "kernel", k, 2);
	ir_node_set_ints(g, n, "strides", k, 2);
	ir_graph_add_node(g, "flat", IR_OP_FLATTEN, &p, 1, &f, 1, &d);
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, &f, 1, &d);
	ir_meta_set_str(g, "source.framework", "test");
	ir_meta_set_int(g, "source.opset", 13);
	return g;
}

static void test_build_and_infer(void)
{
	ir_diag d;
	ir_graph *g = small_net();
	CHECK(ir_graph_verify(g, &d) == -1);	/* shapes not inferred yet */
	CHECK(ir_graph_infer_shapes(g, &d) == 0);
	CHECK_MSG(ir_graph_verify(g, &d) == 0, "%s", d.msg);
	/* conv: floor((8 + 1 + 1 - 3) / 2) + 1 = 4 */
	ir_shape cs = S(4, 1, 4, 4, 4), ps = S(4, 1, 4, 2, 2), fs = S(2, 1, 16);
	CHECK(ir_shape_equal(&ir_graph_tensor(g, ir_graph_find_tensor(g, "c"))->shape, &cs));
	CHECK(ir_shape_equal(&ir_graph_tensor(g, ir_graph_find_tensor(g, "p"))->shape, &ps));
	CHECK(ir_shape_equal(&ir_graph_tensor(g, ir_graph_find_tensor(g, "f"))->shape, &fs));
	/* MACs: 4*4*4 outputs x 3*3*3 weights each */
	CHECK(ir_node_macs(g, ir_graph_find_node(g, "conv1")) == 64 * 27);
	/* attribute lookups */
	const int64_t *v;
	CHECK(ir_node_ints(g, 0, "pads", &v) == 4 && v[3] == 1);
	CHECK(ir_node_int(g, 0, "group", 1) == 1);
	/* duplicate names are refused */
	CHECK(act(g, "c") == -1);
	ir_graph_free(g);
}

static void test_round_trip(void)
{
	ir_diag d;
	ir_graph *g = small_net();
	ir_graph_infer_shapes(g, &d);
	char *argv[] = {"--bn", "x.pt"};
	ir_graph_add_history(g, "npu-test", "0", 2, argv);
	uint8_t *a, *b;
	size_t na, nb;
	CHECK(ir_graph_write_mem(g, &a, &na, &d) == 0);
	CHECK(memcmp(a, "\x89\xa6npu-ir\x02", 9) == 0);
	ir_graph *h = ir_graph_read_mem(a, na, &d);
	CHECK_MSG(h != NULL, "%s", d.msg);
	CHECK(ir_graph_write_mem(h, &b, &nb, &d) == 0);
	CHECK(na == nb && memcmp(a, b, na) == 0);
	CHECK(ir_history_count(h) == 1 && !strcmp(ir_history_at(h, 0)->argv[1], "x.pt"));
	CHECK(ir_meta_get(h, "source.opset")->i == 13);
	const ir_tensor *w = ir_graph_tensor(h, ir_graph_find_tensor(h, "w"));
	CHECK(w->nbytes == 4 * 27 * 4 && ((float *)w->data)[5] == 2.5f);

	/* every truncation of a valid stream is an error, never a crash */
	int bad = 0;
	for (size_t n = 0; n < na; n++) {
		ir_graph *t = ir_graph_read_mem(a, n, &d);
		bad += t == NULL;
		ir_graph_free(t);
	}
	CHECK(bad == (int)na);
	/* single-byte corruptions: never a crash (result may parse) */
	for (size_t i = 0; i < na; i++) {
		uint8_t *c = malloc(na);
		memcpy(c, a, na);
		c[i] ^= 0xff;
		ir_graph_free(ir_graph_read_mem(c, na, &d));
		free(c);
	}
	CHECK(1);
	free(a);
	free(b);
	ir_graph_free(g);
	ir_graph_free(h);
}

static void test_big_blob_zstd(void)
{
	ir_diag d;
	ir_graph *g = ir_graph_new();
	ir_shape s = S(2, 256, 256);
	int w = cnst(g, "big", s);
	ir_graph_set_outputs(g, &w, 1, &d);
	uint8_t *a, *b;
	size_t na, nb;
	CHECK(ir_graph_write_mem(g, &a, &na, &d) == 0);
	CHECK(na < 256 * 256 * 4);	/* compressed */
	ir_graph *h = ir_graph_read_mem(a, na, &d);
	CHECK(h && !memcmp(ir_graph_tensor(h, 0)->data, ir_graph_tensor(g, 0)->data, 256 * 256 * 4));
	CHECK(h && ir_graph_write_mem(h, &b, &nb, &d) == 0 && nb == na && !memcmp(a, b, na));
	free(a);
	if (h)
		free(b);
	ir_graph_free(g);
	ir_graph_free(h);
}

/* Constants of odd sizes (padding between them in the blob), an input
 * among them, a zstd blob: the reader decompresses straight into each
 * constant; every byte comes back, and a cut stream is refused. */
static void test_zstd_many(void)
{
	ir_diag d;
	ir_graph *g = ir_graph_new();
	int ids[5];
	ir_shape xs = S(1, 4);
	ids[0] = cnst(g, "a", S(1, 3));
	int x = ir_graph_add_tensor(g, "x", IR_DTYPE_F32, &xs, IR_KIND_INPUT, &d);
	ids[1] = cnst(g, "b", S(2, 50001, 1));
	ids[2] = cnst(g, "c", S(1, 0));
	ids[3] = cnst(g, "d", S(1, 17));
	ids[4] = cnst(g, "e", S(3, 7, 9, 311));
	ir_graph_set_inputs(g, &x, 1, &d);
	ir_graph_set_outputs(g, ids, 5, &d);
	uint8_t *a;
	size_t na;
	int wr = ir_graph_write_mem(g, &a, &na, &d);
	CHECK(wr == 0);
	if (wr) {
		printf("# %s\n", d.msg);
		ir_graph_free(g);
		return;
	}
	ir_graph *h = ir_graph_read_mem(a, na, &d);
	CHECK(h != NULL);
	for (int k = 0; h && k < 5; k++) {
		const ir_tensor *x = ir_graph_tensor(g, ids[k]), *y = ir_graph_tensor(h, ids[k]);
		CHECK(y->kind == IR_KIND_CONST && y->nbytes == x->nbytes && !memcmp(x->data, y->data, x->nbytes));
	}
	ir_graph_free(h);
	for (size_t cut = 1; cut < 40; cut += 7) {
		h = ir_graph_read_mem(a, na - cut, &d);
		CHECK(!h && d.msg[0]);
		ir_graph_free(h);
	}
	free(a);
	ir_graph_free(g);
}

static void test_verify_errors(void)
{
	ir_diag d;
	ir_graph *g = small_net();
	ir_graph_infer_shapes(g, &d);
	/* a cycle: relu1 reads what pool1 writes */
	ir_node *relu = ir_graph_node(g, 1);
	int old = relu->inputs[0];
	relu->inputs[0] = ir_graph_find_tensor(g, "p");
	CHECK(ir_graph_verify(g, &d) == -1 && strstr(d.msg, "not produced before"));
	CHECK(ir_graph_toposort(g, &d) == -1 && strstr(d.msg, "cycle"));
	relu->inputs[0] = old;
	/* wrong stored shape */
	ir_graph_tensor(g, ir_graph_find_tensor(g, "r"))->shape.dim[1] = 5;
	CHECK(ir_graph_verify(g, &d) == -1 && strstr(d.msg, "shape inference gives") && d.node == 1);
	ir_graph_infer_shapes(g, &d);
	/* unknown and mistyped attributes */
	ir_node_set_int(g, 0, "bogus", 1);
	CHECK(ir_graph_verify(g, &d) == -1 && strstr(d.msg, "unknown attribute 'bogus'"));
	ir_node_remove_attr(g, 0, "bogus");
	ir_node_set_str(g, 0, "group", "two");
	CHECK(ir_graph_verify(g, &d) == -1 && strstr(d.msg, "wrong type"));
	ir_node_set_int(g, 0, "group", 2);
	CHECK(ir_graph_verify(g, &d) == -1 && strstr(d.msg, "group"));
	ir_node_remove_attr(g, 0, "group");
	CHECK(ir_graph_verify(g, &d) == 0);
	ir_graph_free(g);
}

static void test_shapes(void)
{
	ir_diag d;
	/* ceil-mode pooling, pads: ONNX maxpool_2d_ceil: 4x4, k3, s2 -> 2x2 */
	ir_graph *g = ir_graph_new();
	ir_shape xs = S(4, 1, 1, 4, 4);
	int x = ir_graph_add_tensor(g, "x", IR_DTYPE_F32, &xs, IR_KIND_INPUT, &d), y = act(g, "y");
	int n = ir_graph_add_node(g, "p", IR_OP_MAX_POOL, &x, 1, &y, 1, &d);
	int64_t k[] = {3, 3}, s[] = {2, 2};
	ir_node_set_ints(g, n, "kernel", k, 2);
	ir_node_set_ints(g, n, "strides", s, 2);
	ir_node_set_int(g, n, "ceil_mode", 1);
	CHECK(ir_graph_infer_shapes(g, &d) == 0);
	ir_shape want = S(4, 1, 1, 2, 2);
	CHECK(ir_shape_equal(&ir_graph_tensor(g, y)->shape, &want));
	ir_graph_free(g);

	/* broadcasting, slicing, reshape -1, transpose */
	ir_shape a = S(3, 2, 1, 4), b = S(2, 3, 1), o;
	CHECK(ir_shape_broadcast(&a, &b, &o) == 0 && o.rank == 3 && o.dim[0] == 2 && o.dim[1] == 3 && o.dim[2] == 4);
	ir_shape c = S(2, 3, 5);
	CHECK(ir_shape_broadcast(&a, &c, &o) == -1);
	/* shape parsing */
	CHECK(ir_shape_parse("1,3,224,224", &o) == 0 && o.rank == 4 && o.dim[3] == 224);
	CHECK(ir_shape_parse("1x64", &o) == 0 && o.rank == 2);
	CHECK(ir_shape_parse("1,,2", &o) == -1);
	CHECK(ir_shape_parse("a", &o) == -1);
	CHECK(ir_shape_parse("99999999999999,99999999999999", &o) == -1);
	/* overflowing products are refused */
	ir_shape huge = S(4, 1 << 20, 1 << 20, 1 << 20, 2);
	CHECK(ir_shape_numel(&huge) == -1);
}

static void test_sniff(void)
{
	ir_diag d;
	const uint8_t pb[] = {0x0a, 0x10, 0x0a, 0x01, 'x', 0x12, 0x0b, 'P', 'l', 'a', 'c', 'e', 'h', 'o', 'l', 'd', 'e', 'r'};
	CHECK(ir_graph_read_mem(pb, sizeof pb, &d) == NULL && strstr(d.msg, "TensorFlow GraphDef"));
	const uint8_t onnx[] = {0x08, 0x07, 0x12, 0x07, 'p', 'y', 't', 'o', 'r', 'c', 'h'};
	CHECK(ir_graph_read_mem(onnx, sizeof onnx, &d) == NULL && strstr(d.msg, "ONNX model"));
	const uint8_t zip[] = "PK\3\4rest";
	CHECK(ir_graph_read_mem(zip, 8, &d) == NULL && strstr(d.msg, "npu-import-pt"));
	const uint8_t v3[] = {0x81, 0xa6, 'n', 'p', 'u', '-', 'i', 'r', 0x03};
	CHECK(ir_graph_read_mem(v3, sizeof v3, &d) == NULL && strstr(d.msg, "version 3 is not supported"));
	/* a container that claims 4 billion elements in 9 bytes */
	const uint8_t lie[] = {0x88, 0xa6, 'n', 'p', 'u', '-', 'i', 'r', 0x01, 0xa4, 'm', 'e', 't', 'a', 0xdf, 0xff, 0xff, 0xff, 0xff};
	CHECK(ir_graph_read_mem(lie, sizeof lie, &d) == NULL && strstr(d.msg, "truncated"));
}

int main(void)
{
	test_build_and_infer();
	test_round_trip();
	test_big_blob_zstd();
	test_zstd_many();
	test_verify_errors();
	test_shapes();
	test_sniff();
	return check_done();
}
