/* npu-import-pt - TorchScript archive (torch.jit.save) to npukit IR. See npu-import-pt(1). */
#include "ir_cli.h"
#include "torchscript/ts_import.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *in;		/* model file, "-" or NULL: stdin */
	const char *out;	/* IR file, NULL: stdout */
	bool force;
	ts_input_shape inputs[256];
	int n_inputs;
} options;

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
	       "  -o, --out FILE      write the IR to FILE (default: standard output)\n"
	       "  -f, --force         write binary IR even to a terminal\n"
	       "  -v, --verbose       report what was imported on standard error\n"
	       "  -q, --quiet         no warnings\n"
	       "      --help          show this help and exit\n"
	       "  -V, --version       show the version and exit\n"
	       "\n"
	       "Outputs are forward()'s returned tensors, tuples and lists flattened in order,\n"
	       "named output_0, output_1, ...; nodes are named after their module path.\n"
	       "Exit status: 0 success, 1 the model cannot be imported or I/O failed, 2 usage.\n"
	       "The op mapping and the limitations are in npu-import-pt(1).\n", cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static void add_input(options *o, const char *arg)
{
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
	for (int i = 0; i < o->n_inputs; i++)
		if (o->inputs[i].index == in.index)
			cli_usage("--input %d is given twice", in.index);
	if (o->n_inputs == (int)(sizeof o->inputs / sizeof o->inputs[0]))
		cli_usage("too many --input options");
	o->inputs[o->n_inputs++] = in;
}

static void parse_args(int argc, char **argv, options *o)
{
	enum { OPT_INPUT = 256 };
	static const struct option longopts[] = {
		{"input", required_argument, NULL, OPT_INPUT},
		CLI_COMMON_OPTS,
		{NULL, 0, NULL, 0},
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:fVvq", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_INPUT: add_input(o, optarg); break;
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
	cli_init("npu-import-pt", argc, argv);
	parse_args(argc, argv, &o);
	const char *name = cli_name(o.in), *slash = strrchr(name, '/');
	bool std = !o.in || !strcmp(o.in, "-");
	if (cli_read_file(o.in, true, &buf, &size))
		return CLI_FAIL;
	ts_import_opts io = {.inputs = o.inputs, .n_inputs = o.n_inputs, .file = std ? NULL : slash ? slash + 1 : name};
	ir_graph *g = ts_import(buf, size, &io, &d);
	free(buf);
	if (!g) {
		cli_diag(NULL, name, &d);
		return CLI_FAIL;
	}
	cli_info(1, "%s: %d nodes, %d tensors, %d inputs, %d outputs", name, ir_graph_node_count(g),
		 ir_graph_tensor_count(g), ir_graph_input_count(g), ir_graph_output_count(g));
	int rc = cli_write_ir(g, o.out, o.force) == 0 ? CLI_OK : CLI_FAIL;
	ir_graph_free(g);
	return rc;
}
