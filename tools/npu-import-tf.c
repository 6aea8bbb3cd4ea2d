/* npu-import-tf - TensorFlow frozen GraphDef or TensorFlow.js graph model to
 * npukit IR. See npu-import-tf(1). */
#include "ir_cli.h"
#include "tf/tf_import.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *in;		/* model file, "-" or NULL: stdin */
	const char *out;	/* IR file, NULL: stdout */
	bool force;
	tf_input_shape inputs[256];
	int n_inputs;
	const char *outputs[256];
	int n_outputs;
	tf_const_value consts[256];
	int n_consts;
	tf_state states[256];
	int n_states;
} options;

static void help(void)
{
	printf("Usage: %s [MODEL.pb|MODEL.json|-] [--input NAME:SHAPE]... --output NAME[:K]...\n"
	       "       [--const NAME=VALUE]... [--state IN=OUT]... [-o OUT] [-f] [-v|-q]\n"
	       "Convert a frozen TensorFlow GraphDef (TF 1.x freeze_graph, TF 2.x frozen\n"
	       "concrete function) or a TensorFlow.js graph model (model.json and its\n"
	       "weight shards) into an npukit IR stream.\n"
	       "\n"
	       "  --input NAME:SHAPE  shape of placeholder NAME, e.g. Feats:1,1,64 (needed\n"
	       "                      when the placeholder's shape is not fully known)\n"
	       "  --output NAME[:K]   make output K (default 0) of node NAME a graph output\n"
	       "                      (repeatable; a model.json's signature names them when\n"
	       "                      none is given); only what they need is imported\n"
	       "  --const NAME=VALUE  freeze scalar placeholder NAME to VALUE (e.g. a dropout\n"
	       "                      keep_prob=1.0)\n"
	       "  --state IN=OUT      placeholder IN is recurrent state whose next value is\n"
	       "                      node output OUT (IN becomes a state input, OUT an output)\n"
	       "  -o, --out FILE      write the IR to FILE (default: standard output)\n"
	       "  -f, --force         write binary IR even to a terminal\n"
	       "  -v, --verbose       report what was imported on standard error\n"
	       "  -q, --quiet         no warnings\n"
	       "      --help          show this help and exit\n"
	       "  -V, --version       show the version and exit\n"
	       "\n"
	       "Exit status: 0 success, 1 the model cannot be imported or I/O failed, 2 usage.\n"
	       "The op mapping is in npu-import-tf(1).\n", cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static char *dup_n(const char *s, size_t len)
{
	char *name = malloc(len + 1);
	if (!name) {
		cli_error(NULL, "out of memory");
		exit(CLI_FAIL);
	}
	memcpy(name, s, len);
	name[len] = 0;
	return name;
}

static void add_const(options *o, const char *arg)
{
	double v;
	char *name = cli_named_number(arg, &v);
	if (o->n_consts == (int)(sizeof o->consts / sizeof o->consts[0]))
		cli_usage("too many --const options");
	o->consts[o->n_consts++] = (tf_const_value){.name = name, .value = v};
}

static void add_state(options *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		cli_usage("--state '%s': expected IN=OUT, e.g. --state h_in=h_out", arg);
	if (o->n_states == (int)(sizeof o->states / sizeof o->states[0]))
		cli_usage("too many --state options");
	o->states[o->n_states++] = (tf_state){.in = dup_n(arg, (size_t)(eq - arg)), .out = eq + 1};
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
	o->inputs[o->n_inputs++] = (tf_input_shape){.name = name, .shape = s};
}

static void parse_args(int argc, char **argv, options *o)
{
	enum { OPT_INPUT = 256, OPT_OUTPUT, OPT_CONST, OPT_STATE };
	static const struct option longopts[] = {
		{"input", required_argument, NULL, OPT_INPUT},
		{"output", required_argument, NULL, OPT_OUTPUT},
		{"const", required_argument, NULL, OPT_CONST},
		{"state", required_argument, NULL, OPT_STATE},
		CLI_COMMON_OPTS,
		{NULL, 0, NULL, 0},
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:fVvq", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_INPUT: add_input(o, optarg); break;
		case OPT_CONST: add_const(o, optarg); break;
		case OPT_STATE: add_state(o, optarg); break;
		case OPT_OUTPUT:
			if (!*optarg)
				cli_usage("--output needs a node name");
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

/* A TensorFlow.js model.json: the text starts with '{'. */
static bool is_json(const uint8_t *buf, size_t size)
{
	size_t i = size >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
	while (i < size && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
		i++;
	return i < size && buf[i] == '{';
}

int main(int argc, char **argv)
{
	options o = {0};
	uint8_t *buf;
	size_t size;
	ir_diag d;
	cli_init("npu-import-tf", argc, argv);
	parse_args(argc, argv, &o);
	const char *name = cli_name(o.in), *slash = strrchr(name, '/');
	bool std = !o.in || !strcmp(o.in, "-");
	int rc = CLI_FAIL;
	char *dir = NULL;
	if (cli_read_file(o.in, true, &buf, &size))
		goto out;
	bool json = is_json(buf, size);
	if (!json && o.n_outputs == 0) {
		free(buf);
		cli_usage("no --output given (a GraphDef does not name its outputs)");
	}
	if (json && !std)
		dir = slash ? dup_n(name, (size_t)(slash - name)) : dup_n(".", 1);
	tf_import_opts io = {.inputs = o.inputs, .n_inputs = o.n_inputs, .outputs = o.outputs,
			     .n_outputs = o.n_outputs, .consts = o.consts, .n_consts = o.n_consts,
			     .states = o.states, .n_states = o.n_states,
			     .file = std ? NULL : slash ? slash + 1 : name};
	ir_graph *g = json ? tfjs_import(buf, size, dir, &io, &d) : tf_import(buf, size, &io, &d);
	free(buf);
	free(dir);
	if (!g) {
		cli_diag(NULL, name, &d);
		goto out;
	}
	cli_info(1, "%s: %d nodes, %d tensors, %d inputs, %d outputs", name, ir_graph_node_count(g),
		 ir_graph_tensor_count(g), ir_graph_input_count(g), ir_graph_output_count(g));
	if (cli_write_ir(g, o.out, o.force) == 0)
		rc = CLI_OK;
	ir_graph_free(g);
out:
	for (int i = 0; i < o.n_inputs; i++)
		free((char *)o.inputs[i].name);
	for (int i = 0; i < o.n_consts; i++)
		free((char *)o.consts[i].name);
	for (int i = 0; i < o.n_states; i++)
		free((char *)o.states[i].in);
	return rc;
}
