/* npu-import-tf - TensorFlow frozen GraphDef or TensorFlow.js graph model to
 * npukit IR. See npu-import-tf(1). */
#include "ir_cli.h"
#include "tf/tf_import.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	tf_state v[CLI_MAX_NAMED];
	int n;
} states;

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
	       CLI_IMPORT_HELP
	       "\n"
	       CLI_IMPORT_EXIT
	       "The op mapping is in npu-import-tf(1).\n", cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

/* --state IN=OUT */
static bool add_state(cli_import *a, int c, const char *arg)
{
	states *o = a->ctx;
	if (c != CLI_OPT_OWN)
		return false;
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		cli_usage("--state '%s': expected IN=OUT, e.g. --state h_in=h_out", arg);
	if (o->n == CLI_MAX_NAMED)
		cli_usage("too many --state options");
	o->v[o->n++] = (tf_state){.in = cli_strndup(arg, (size_t)(eq - arg)), .out = eq + 1};
	return true;
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
	static const struct option longopts[] = {CLI_IMPORT_OPTS, {"state", required_argument, NULL, CLI_OPT_OWN},
						  CLI_COMMON_OPTS, {NULL, 0, NULL, 0}};
	static states st;
	static cli_import a = {.help = help, .output_what = "node name", .option = add_state, .ctx = &st};
	uint8_t *buf;
	size_t size;
	ir_diag d;
	ir_graph *g = NULL;
	cli_init("npu-import-tf", argc, argv);
	cli_import_args(&a, argc, argv, longopts);
	bool read = cli_read_file(a.in, true, &buf, &size) == 0;
	if (read) {
		bool json = is_json(buf, size);
		if (!json && a.n_outputs == 0) {
			free(buf);
			cli_usage("no --output given (a GraphDef does not name its outputs)");
		}
		/* a model.json's weight shards are next to it */
		char *dir = !json || !a.file ? NULL : a.file > a.name ? cli_strndup(a.name, (size_t)(a.file - a.name - 1))
									: cli_strndup(".", 1);
		tf_import_opts io = {.inputs = a.inputs, .n_inputs = a.n_inputs, .outputs = a.outputs,
				     .n_outputs = a.n_outputs, .consts = a.consts, .n_consts = a.n_consts,
				     .states = st.v, .n_states = st.n, .file = a.file};
		g = json ? tfjs_import(buf, size, dir, &io, &d) : tf_import(buf, size, &io, &d);
		free(buf);
		free(dir);
	}
	for (int i = 0; i < st.n; i++)
		free((char *)st.v[i].in);
	return cli_import_finish(&a, g, read ? &d : NULL);
}
