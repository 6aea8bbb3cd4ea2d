/* test_roundtrip.c - every ONNX node-test model that imports survives
 * write -> read -> write with identical bytes, and its stream reads back
 * with the same tensor and node tables. (Directory: $ONNX_NODE, default
 * Debian's libonnx-testdata.) */
#include "check.h"
#include "ir.h"
#include "onnx/onnx_import.h"

#include <dirent.h>
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

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(void)
{
	const char *dir = getenv("ONNX_NODE") ? getenv("ONNX_NODE") : "/usr/share/libonnx-testdata/data/node";
	DIR *dp = opendir(dir);
	if (!CHECK_MSG(dp != NULL, "cannot open %s", dir))
		return check_done();
	char **names = NULL;
	int count = 0;
	for (struct dirent *e; (e = readdir(dp));)
		if (e->d_name[0] != '.') {
			names = realloc(names, sizeof *names * (size_t)(count + 1));
			names[count++] = strdup(e->d_name);
		}
	closedir(dp);
	qsort(names, (size_t)count, sizeof *names, cmp);
	int imported = 0, same = 0;
	for (int i = 0; i < count; i++) {
		char path[4096];
		size_t n;
		snprintf(path, sizeof path, "%s/%s/model.onnx", dir, names[i]);
		uint8_t *buf = slurp(path, &n);
		ir_diag d;
		onnx_import_opts opts = {0};
		ir_graph *g = buf ? onnx_import(buf, n, &opts, &d) : NULL;
		free(buf);
		if (!g)
			continue;
		imported++;
		uint8_t *a = NULL, *b = NULL;
		size_t na = 0, nb = 0;
		ir_graph *h = NULL;
		int ok = ir_graph_write_mem(g, &a, &na, &d) == 0 &&
			 (h = ir_graph_read_mem(a, na, &d)) != NULL &&
			 ir_graph_write_mem(h, &b, &nb, &d) == 0 && na == nb && !memcmp(a, b, na) &&
			 ir_graph_node_count(h) == ir_graph_node_count(g) &&
			 ir_graph_tensor_count(h) == ir_graph_tensor_count(g);
		if (!ok)
			printf("# %s: round trip differs: %s\n", names[i], d.msg);
		same += ok;
		free(a);
		free(b);
		ir_graph_free(g);
		ir_graph_free(h);
	}
	printf("# %d models, %d imported, %d round-trip identical\n", count, imported, same);
	CHECK(imported > 0);
	CHECK(same == imported);
	for (int i = 0; i < count; i++)
		free(names[i]);
	free(names);
	return check_done();
}
