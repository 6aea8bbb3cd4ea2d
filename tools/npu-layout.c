/* npu-layout - one data layout for a whole graph. See npu-layout(1). */
#include "ir_cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *in, *out;
	bool force;
	ir_layout to;
	ir_layout_io *inputs, *outputs;
	int n_inputs, n_outputs;
} options;

static void help(void)
{
	printf("Usage: %s [IR|-] --to nhwc|nchw [--input-layout NAME:nxc|ncx ...]\n"
	       "                  [--output-layout NAME:nxc|ncx ...] [-o OUT] [-f] [-v|-q]\n"
	       "Rewrite an npukit IR graph to one data layout: every 3-D/4-D activation\n"
	       "channel-last (nhwc, nlc) or channel-first (nchw, ncl), with transposes only\n"
	       "where an op or the graph's interface needs the other layout, then sunk,\n"
	       "merged and cancelled.\n"
	       "\n"
	       "  -t, --to LAYOUT          nhwc (also nlc for 3-D) or nchw (also ncl)\n"
	       "  -i, --input-layout NAME:L  the caller feeds graph input NAME as nxc\n"
	       "                           (channel-last) or ncx (channel-first); no transpose\n"
	       "                           runs where L is the target layout (gxnpuc's\n"
	       "                           INPUT_NCX_TO_NXC). Default: the model's layout\n"
	       "      --output-layout NAME:L  the same for graph output NAME\n"
	       "  -o, --out FILE           write the IR to FILE (default: standard output)\n"
	       "  -f, --force              write binary IR even to a terminal\n"
	       "  -v, --verbose            say how many transposes remain\n"
	       "  -q, --quiet              no warnings\n"
	       "      --help               show this help and exit\n"
	       "  -V, --version            show the version and exit\n"
	       "\n"
	       "Exit status: 0 success, 1 bad input or I/O failure, 2 usage.\n", cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static void add_io(ir_layout_io **v, int *n, const char *arg, const char *opt)
{
	const char *colon = strrchr(arg, ':');
	if (!colon || colon == arg)
		cli_usage("%s needs NAME:nxc or NAME:ncx, not '%s'", opt, arg);
	bool cl;
	if (!strcmp(colon + 1, "nxc"))
		cl = true;
	else if (!strcmp(colon + 1, "ncx"))
		cl = false;
	else
		cli_usage("%s '%s': layout '%s' is not nxc or ncx", opt, arg, colon + 1);
	ir_layout_io *p = realloc(*v, sizeof **v * (size_t)(*n + 1));
	char *name = strndup(arg, (size_t)(colon - arg));
	if (!p || !name) {
		cli_error(NULL, "out of memory");
		exit(CLI_FAIL);
	}
	*v = p;
	for (int i = 0; i < *n; i++)
		if (!strcmp(p[i].name, name))
			cli_usage("%s: '%s' is given twice", opt, name);
	p[*n] = (ir_layout_io){.name = name, .channel_last = cl};
	(*n)++;
}

static void parse_args(int argc, char **argv, options *o)
{
	enum { OPT_OUTPUT_LAYOUT = 256 };
	static const struct option longopts[] = {
		{"to", required_argument, NULL, 't'},
		{"input-layout", required_argument, NULL, 'i'},
		{"output-layout", required_argument, NULL, OPT_OUTPUT_LAYOUT},
		CLI_COMMON_OPTS,
		{NULL, 0, NULL, 0},
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:i:o:fVvq", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!strcmp(optarg, "nhwc") || !strcmp(optarg, "nlc") || !strcmp(optarg, "nxc"))
				o->to = IR_LAYOUT_NHWC;
			else if (!strcmp(optarg, "nchw") || !strcmp(optarg, "ncl") || !strcmp(optarg, "ncx"))
				o->to = IR_LAYOUT_NCHW;
			else
				cli_usage("--to '%s': expected nhwc or nchw", optarg);
			break;
		case 'i': add_io(&o->inputs, &o->n_inputs, optarg, "--input-layout"); break;
		case OPT_OUTPUT_LAYOUT: add_io(&o->outputs, &o->n_outputs, optarg, "--output-layout"); break;
		default: cli_common_option(c, argv, &o->out, &o->force, help);
		}
	}
	if (o->to == IR_LAYOUT_NONE)
		cli_usage("--to nhwc or --to nchw is required");
	if (optind < argc)
		o->in = argv[optind++];
	if (optind < argc)
		cli_usage("unexpected argument '%s' (one IR at a time)", argv[optind]);
}

static const char *in_name;

static int n_bad;

/* every bad --input-layout / --output-layout entry, one line each */
static void bad_entry(void *user, const ir_graph *g, int node, const char *msg)
{
	(void)user, (void)g, (void)node;
	cli_error(in_name, "%s", msg);
	n_bad++;
}

int main(int argc, char **argv)
{
	options o = {0};
	ir_diag d;
	cli_init("npu-layout", argc, argv);
	parse_args(argc, argv, &o);
	in_name = cli_name(o.in);
	int rc = CLI_FAIL;
	ir_graph *g = cli_read_ir(o.in);
	if (!g)
		goto out;
	if (ir_graph_is_lowered(g)) {
		cli_error(in_name, "the graph is quantized already; run npu-layout before npu-quant");
		goto out;
	}
	int before = ir_graph_transpose_count(g);
	ir_layout_opts lo = {.to = o.to, .inputs = o.inputs, .n_inputs = o.n_inputs, .outputs = o.outputs,
			     .n_outputs = o.n_outputs, .note = bad_entry};
	if (ir_graph_to_layout(g, &lo, &d)) {
		if (!n_bad)
			cli_diag(g, in_name, &d);
		goto out;
	}
	cli_info(1, "%s: %s: %d transposes, %d before", in_name, ir_layout_name(o.to), ir_graph_transpose_count(g),
		 before);
	if (cli_write_ir(g, o.out, o.force) == 0)
		rc = CLI_OK;
out:
	for (int i = 0; i < o.n_inputs; i++)
		free((char *)o.inputs[i].name);
	for (int i = 0; i < o.n_outputs; i++)
		free((char *)o.outputs[i].name);
	free(o.inputs);
	free(o.outputs);
	ir_graph_free(g);
	return rc;
}
