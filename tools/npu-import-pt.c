/* npu-import-pt - TorchScript archive (torch.jit.save) to npukit IR. See npu-import-pt(1). */
#include "ir_cli.h"
#include "torchscript/ts_import.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	ts_input_shape v[CLI_MAX_NAMED];
	int n;
} inputs;

static void help(void)
{
	printf("Usage: %s [MODEL.pt|-] [--input IDX:SHAPE[:DTYPE]]... [-o OUT] [-f] [-v|-q]\n"
	       "Convert a TorchScript archive (torch.jit.trace or torch.jit.script, saved with\n"
	       "torch.jit.save) into an npukit IR stream.\n"
	       "\n"
	       "  --input IDX:SHAPE[:DTYPE]\n"
	       "                      shape of forward()'s tensor argument IDX (0 is the first\n"
	       "                      after self), e.g. 0:1,3,32,32; 'scalar' for rank 0;\n"
	       "                      DTYPE f32 (default), i64, i32, ... ; every tensor input\n"
	       "                      without a default value needs one\n"
	       CLI_IMPORT_HELP
	       "\n"
	       "Outputs are forward()'s returned tensors, tuples and lists flattened in order,\n"
	       "named output_0, output_1, ...; nodes are named after their module path.\n"
	       CLI_IMPORT_EXIT
	       "The op mapping and the limitations are in npu-import-pt(1).\n", cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

/* --input IDX:SHAPE[:DTYPE] */
static bool add_input(cli_import *a, int c, const char *arg)
{
	inputs *o = a->ctx;
	if (c != CLI_OPT_INPUT)
		return false;
	char *end;
	const char *colon = strchr(arg, ':');
	long idx = strtol(arg, &end, 10);
	if (!colon || end != colon || colon == arg || idx < 0 || idx > 65535)
		cli_usage("--input '%s': expected IDX:SHAPE, e.g. --input 0:1,3,32,32", arg);
	char shape[256];
	const char *dt = strchr(colon + 1, ':');
	size_t len = dt ? (size_t)(dt - colon - 1) : strlen(colon + 1);
	if (len >= sizeof shape)
		cli_usage("--input '%s': the shape is too long", arg);
	memcpy(shape, colon + 1, len);
	shape[len] = 0;
	ts_input_shape in = {.index = (int)idx, .dtype = IR_DTYPE_F32};
	if (strcmp(shape, "scalar") && ir_shape_parse(shape, &in.shape))
		cli_usage("--input '%s': bad shape '%s' (expected dimensions separated by commas, or 'scalar')", arg, shape);
	if (dt) {
		int t = ir_dtype_from_name(dt + 1);
		if (t < 0)
			cli_usage("--input '%s': unknown dtype '%s' (f32, f16, i64, i32, i16, i8, u8, bool)", arg, dt + 1);
		in.dtype = (ir_dtype)t;
	}
	for (int i = 0; i < o->n; i++)
		if (o->v[i].index == in.index)
			cli_usage("--input %d is given twice", in.index);
	if (o->n == CLI_MAX_NAMED)
		cli_usage("too many --input options");
	o->v[o->n++] = in;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {{"input", required_argument, NULL, CLI_OPT_INPUT}, CLI_COMMON_OPTS,
						  {NULL, 0, NULL, 0}};
	static inputs in;
	static cli_import a = {.help = help, .option = add_input, .ctx = &in};
	uint8_t *buf;
	size_t size;
	ir_diag d;
	cli_init("npu-import-pt", argc, argv);
	cli_import_args(&a, argc, argv, longopts);
	if (cli_read_file(a.in, true, &buf, &size))
		return cli_import_finish(&a, NULL, NULL);
	ts_import_opts io = {.inputs = in.v, .n_inputs = in.n, .file = a.file};
	ir_graph *g = ts_import(buf, size, &io, &d);
	free(buf);
	return cli_import_finish(&a, g, &d);
}
