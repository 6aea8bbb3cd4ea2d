/* npu-import-onnx - ONNX model to npukit IR. See npu-import-onnx(1). */
#include "ir_cli.h"
#include "onnx/onnx_import.h"

#include <getopt.h>
#include <stdlib.h>

static void help(void)
{
	printf("Usage: %s [MODEL.onnx|-] [--input NAME:SHAPE]... [--output NAME]... [--const NAME=VALUE]...\n"
	       "       [-o OUT] [-f] [-v|-q]\n"
	       "Convert an ONNX model (opsets 7 to 17) into an npukit IR stream.\n"
	       "\n"
	       "  --input NAME:SHAPE  shape of graph input NAME, e.g. data:1,3,224,224\n"
	       "                      (needed for inputs with dynamic dimensions)\n"
	       "  --output NAME       make value NAME a graph output (repeatable; default:\n"
	       "                      the model's outputs); only what it needs is imported\n"
	       "  --const NAME=VALUE  freeze graph input NAME to the constant VALUE (every\n"
	       "                      element), e.g. a sample rate sr=16000; what depends only\n"
	       "                      on it is computed at import, an If on it keeps one branch\n"
	       CLI_IMPORT_HELP
	       "\n"
	       CLI_IMPORT_EXIT
	       "The op mapping is in npu-import-onnx(1).\n", cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {CLI_IMPORT_OPTS, CLI_COMMON_OPTS, {NULL, 0, NULL, 0}};
	static cli_import a = {.help = help, .output_what = "value name"};
	uint8_t *buf;
	size_t size;
	ir_diag d;
	cli_init("npu-import-onnx", argc, argv);
	cli_import_args(&a, argc, argv, longopts);
	if (cli_read_file(a.in, true, &buf, &size))
		return cli_import_finish(&a, NULL, NULL);
	onnx_import_opts io = {.inputs = a.inputs, .n_inputs = a.n_inputs, .outputs = a.outputs,
			       .n_outputs = a.n_outputs, .consts = a.consts, .n_consts = a.n_consts, .file = a.file};
	ir_graph *g = onnx_import(buf, size, &io, &d);
	free(buf);
	return cli_import_finish(&a, g, &d);
}
