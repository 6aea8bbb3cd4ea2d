/* test_import_shapes.c - imported models have the shapes ONNX's own shape
 * inference gives and one IR node per ONNX node (by origin). Expectations:
 * tests/data/MODEL.expect, written by tests/gen/onnx_models.py. */
#include "check.h"
#include "ir.h"
#include "onnx/onnx_import.h"

#include <stdlib.h>
#include <string.h>

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc((size_t)len + 1);
	*n = p ? fread(p, 1, (size_t)len, f) : 0;
	fclose(f);
	return p;
}

static void check_model(const char *model, const char *expect)
{
	size_t n;
	uint8_t *buf = slurp(model, &n);
	ir_diag d;
	onnx_import_opts opts = {0};
	ir_graph *g = buf ? onnx_import(buf, n, &opts, &d) : NULL;
	free(buf);
	if (!CHECK_MSG(g != NULL, "%s: %s", model, g || !buf ? d.msg : "cannot read"))
		return;
	FILE *f = fopen(expect, "r");
	if (!CHECK_MSG(f != NULL, "cannot read %s", expect)) {
		ir_graph_free(g);
		return;
	}
	char line[1024], kind[16], name[512], dims[256];
	int shapes = 0, shape_ok = 0, counts = 0, count_ok = 0;
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "%15s %511s %255s", kind, name, dims) != 3)
			continue;
		if (!strcmp(kind, "shape")) {
			int t = ir_graph_find_tensor(g, name);
			if (t < 0)
				continue;	/* folded away or an unused initializer */
			ir_shape want;
			shapes++;
			bool ok = ir_shape_parse(dims, &want) == 0 &&
				  ir_shape_equal(&ir_graph_tensor(g, t)->shape, &want);
			if (!ok) {
				char s[64];
				printf("# %s: tensor %s is %s, ONNX says %s\n", model, name,
				       ir_shape_str(&ir_graph_tensor(g, t)->shape, s, sizeof s), dims);
			}
			shape_ok += ok;
		} else if (!strcmp(kind, "count") && strcmp(name, "Constant")) {
			int want = atoi(dims), have = 0;
			for (int i = 0; i < ir_graph_node_count(g); i++) {
				const char *o = ir_graph_node(g, i)->origin;
				have += o && !strcmp(o, name);
			}
			counts++;
			if (have != want)
				printf("# %s: %d nodes from %s, ONNX has %d\n", model, have, name, want);
			count_ok += have == want;
		}
	}
	fclose(f);
	printf("# %s: %d/%d shapes, %d/%d op counts agree\n", model, shape_ok, shapes, count_ok, counts);
	CHECK(shapes > 10 && shape_ok == shapes);
	CHECK(counts > 3 && count_ok == counts);
	CHECK(ir_graph_verify(g, &d) == 0);
	ir_graph_free(g);
}

int main(void)
{
	check_model("share/npu/examples/squeezenet1_1.onnx", "tests/data/squeezenet1_1.expect");
	check_model("tests/data/tinycnn.onnx", "tests/data/tinycnn.expect");
	return check_done();
}
