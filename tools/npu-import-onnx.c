/* npu-import-onnx - ONNX model to npukit IR. See npu-import-onnx(1). */
#include "ir_cli.h"
#include "onnx/onnx_import.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *in;		/* model file, "-" or NULL: stdin */
	const char *out;	/* IR file, NULL: stdout */
	bool force;
	onnx_input_shape inputs[256];
	int n_inputs;
	const char *outputs[256];
	int n_outputs;
	onnx_const_value consts[256];
	int n_consts;
} options;

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
	       "  -o, --out FILE      write the IR to FILE (default: standard output)\n"
	       "  -f, --force         write binary IR even to a terminal\n"
	       "  -v, --verbose       report what was imported on standard error\n"
	       "  -q, --quiet         no warnings\n"
	       "      --help          show this help and exit\n"
	       "  -V, --version       show the version and exit\n"
	       "\n"
	       "Exit status: 0 success, 1 the model cannot be imported or I/O failed, 2 usage.\n"
	       "The op mapping is in npu-import-onnx(1).\n", cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static void add_input(options *o, const char *arg)
{
	ir_shape s;
	char *name = cli_named_shape(arg, &s);
	for (int i = 0; i < o->n_inputs; i++)
		if (!strcmp(o->inputs[i].name, name))
			cli_usage("--input '%s' is given twice", name);
	if (o->n_inputs == (int)(sizeof o->inputs / sizeof o->inputs[0]))
		cli_usage("too many --input options");
	o->inputs[o->n_inputs++] = (onnx_input_shape){.name = name, .shape = s};
}

static void add_const(options *o, const char *arg)
{
	double v;
	char *name = cli_named_number(arg, &v);
	for (int i = 0; i < o->n_consts; i++)
		if (!strcmp(o->consts[i].name, name))
			cli_usage("--const '%s' is given twice", name);
	if (o->n_consts == (int)(sizeof o->consts / sizeof o->consts[0]))
		cli_usage("too many --const options");
	o->consts[o->n_consts++] = (onnx_const_value){.name = name, .value = v};
}

static void parse_args(int argc, char **argv, options *o)
{
	enum { OPT_INPUT = 256, OPT_OUTPUT, OPT_CONST };
	static const struct option longopts[] = {
		{"input", required_argument, NULL, OPT_INPUT},
		{"output", required_argument, NULL, OPT_OUTPUT},
		{"const", required_argument, NULL, OPT_CONST},
		CLI_COMMON_OPTS,
		{NULL, 0, NULL, 0},
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:fVvq", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_INPUT: add_input(o, optarg); break;
		case OPT_CONST: add_const(o, optarg); break;
		case OPT_OUTPUT:
			if (!*optarg)
				cli_usage("--output needs a value name");
			if (o->n_outputs == (int)(sizeof o->outputs / sizeof o->outputs[0]))
				cli_usage("too many --output options");
			o->outputs[o->n_outputs++] = optarg;
			break;
		default: cli_common_option(c, argv, &o->out, &o->force, help);
		}
	}
	if (optind < argc)
		o->in = argv[optind++];
	if (optind < argc)
		cli_usage("unexpected argument '%s' (one model at a time)", argv[optind]);
}

int main(int argc, char **argv)
{
	options o = {0};
	uint8_t *buf;
	size_t size;
	ir_diag d;
	cli_init("npu-import-onnx", argc, argv);
	parse_args(argc, argv, &o);
	const char *name = cli_name(o.in), *slash = strrchr(name, '/');
	bool std = !o.in || !strcmp(o.in, "-");
	int rc = CLI_FAIL;
	if (cli_read_file(o.in, true, &buf, &size))
		goto out;
	onnx_import_opts io = {.inputs = o.inputs, .n_inputs = o.n_inputs, .outputs = o.outputs,
			       .n_outputs = o.n_outputs, .consts = o.consts, .n_consts = o.n_consts, .file = std ? NULL : slash ? slash + 1 : name};
	ir_graph *g = onnx_import(buf, size, &io, &d);
	free(buf);
	if (!g) {
		cli_diag(NULL, name, &d);
		goto out;
	}
	const ir_meta *opset = ir_meta_get(g, "source.opset");
	cli_info(1, "%s: opset %lld: %d nodes, %d tensors, %d inputs, %d outputs", name,
		 opset ? (long long)opset->i : 0LL, ir_graph_node_count(g), ir_graph_tensor_count(g),
		 ir_graph_input_count(g), ir_graph_output_count(g));
	if (cli_write_ir(g, o.out, o.force) == 0)
		rc = CLI_OK;
	ir_graph_free(g);
out:
	for (int i = 0; i < o.n_inputs; i++)
		free((char *)o.inputs[i].name);
	for (int i = 0; i < o.n_consts; i++)
		free((char *)o.consts[i].name);
	return rc;
}
