/* npu-fuse - graph rewrites that keep what the graph computes. See npu-fuse(1). */
#include "config/target.h"
#include "ir_cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *in, *out, *target;
	bool force, list, verify_each;
	bool pass[IR_PASS_COUNT];
	bool any;
} options;

static void help(void)
{
	printf("Usage: %s [IR|-] [--passes=a,b,...] [--bn] [--all] [--target T] [--verify-each] [-o OUT] [-f] [-v|-q]\n"
	       "       %s --list\n"
	       "Rewrite an npukit IR graph without changing what it computes.\n"
	       "\n"
	       "  -p, --passes=LIST   run these passes (comma-separated; see --list)\n"
	       "      --bn            shorthand for --passes=identity,fold-constants,bn,dce\n"
	       "      --all           every pass but those marked in --list (the default)\n"
	       "      --list          list the passes in the order they run, and exit\n"
	       "      --verify-each   verify the graph after every pass\n"
	       "  -t, --target NAME|PATH  also the rewrites this NPU profile needs (softmax when it\n"
	       "                      has none), fuse only activations it lists, and none into\n"
	       "                      ops it lacks (layer-norm); see npu-target(5)\n"
	       "  -o, --out FILE      write the IR to FILE (default: standard output)\n"
	       "  -f, --force         write binary IR even to a terminal\n"
	       "  -v, --verbose       say what each pass changed; twice: also why patterns were left alone\n"
	       "  -q, --quiet         no warnings\n"
	       "      --help          show this help and exit\n"
	       "  -V, --version       show the version and exit\n"
	       "\n"
	       "Passes run in the fixed order of --list, repeated until nothing changes.\n"
	       "Exit status: 0 success, 1 bad input or I/O failure, 2 usage.\n", cli_prog, cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static void list_passes(void)
{
	for (int p = 0; p < IR_PASS_COUNT; p++)
		printf("%-15s %s%s\n", ir_pass_name(p), ir_pass_help(p), ir_pass_in_all(p) ? "" : " [not in --all]");
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static void select_passes(options *o, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	if (!copy) {
		cli_error(NULL, "out of memory");
		exit(CLI_FAIL);
	}
	if (!*list)
		cli_usage("--passes needs a list of pass names (see --list)");
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		int p = ir_pass_from_name(name);
		if (p < 0)
			cli_usage("unknown pass '%s' (see --list)", name);
		o->pass[p] = o->any = true;
	}
	free(copy);
}

static void parse_args(int argc, char **argv, options *o)
{
	enum { OPT_BN = 256, OPT_ALL, OPT_LIST, OPT_VERIFY };
	static const struct option longopts[] = {
		{"passes", required_argument, NULL, 'p'},
		{"bn", no_argument, NULL, OPT_BN},
		{"all", no_argument, NULL, OPT_ALL},
		{"list", no_argument, NULL, OPT_LIST},
		{"verify-each", no_argument, NULL, OPT_VERIFY},
		{"target", required_argument, NULL, 't'},
		CLI_COMMON_OPTS,
		{NULL, 0, NULL, 0},
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:o:t:fVvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': select_passes(o, optarg); break;
		case OPT_BN:	/* with the clean-up that exposes constant weights */
			o->pass[IR_PASS_IDENTITY] = o->pass[IR_PASS_FOLD] = o->pass[IR_PASS_BN] = true;
			o->pass[IR_PASS_DCE] = o->any = true;
			break;
		case OPT_ALL:
			for (int p = 0; p < IR_PASS_COUNT; p++)
				o->pass[p] |= ir_pass_in_all(p);
			o->any = true;
			break;
		case OPT_LIST: o->list = true; break;
		case OPT_VERIFY: o->verify_each = true; break;
		case 't': o->target = optarg; break;
		default: cli_common_option(c, argv, &o->out, &o->force, help);
		}
	}
	if (o->list)
		list_passes();
	if (!o->any)
		for (int p = 0; p < IR_PASS_COUNT; p++)
			o->pass[p] = ir_pass_in_all(p);
	if (optind < argc)
		o->in = argv[optind++];
	if (optind < argc)
		cli_usage("unexpected argument '%s' (one IR at a time)", argv[optind]);
}

static const char *in_name;

/* -v -v notes of one round: only the last round's (the one that changed
 * nothing) are printed, so each pattern left alone is reported once. */
static struct {
	char *text;
	size_t len, cap;
	const char *pass;
} notes;

static void keep_note(void *user, const ir_graph *g, int node, const char *msg)
{
	(void)user;
	const ir_node *n = ir_graph_node(g, node);
	char line[768];
	int len = snprintf(line, sizeof line, "%s: %s: %s: node '%s' (%s): %s\n", cli_prog, in_name, notes.pass,
			   n ? n->name : "?", n ? ir_op_name(n->op) : "?", msg);
	if (len < 0)
		return;
	if (notes.len + (size_t)len + 1 > notes.cap) {
		size_t cap = (notes.cap + (size_t)len + 1) * 2;
		char *p = realloc(notes.text, cap);
		if (!p)
			return;
		notes.text = p;
		notes.cap = cap;
	}
	memcpy(notes.text + notes.len, line, (size_t)len + 1);
	notes.len += (size_t)len;
}

int main(int argc, char **argv)
{
	options o = {0};
	ir_diag d;
	cli_init("npu-fuse", argc, argv);
	parse_args(argc, argv, &o);
	in_name = cli_name(o.in);
	npu_target t = {0};
	if (o.target) {
		if (npu_target_load(o.target, &t, &d))
			return cli_error_msg(NULL, d.msg);
		if (!t.ops[IR_OP_SOFTMAX] || !t.ops[IR_OP_LOG_SOFTMAX])
			o.pass[IR_PASS_SOFTMAX] = true;
		/* the NPU runs the written-out form, not one it has no layer_norm for */
		if (!t.ops[IR_OP_LAYER_NORM] && o.pass[IR_PASS_LAYER_NORM]) {
			o.pass[IR_PASS_LAYER_NORM] = false;
			cli_info(1, "%s: layer-norm: not run: target '%s' has no layer_norm", cli_name(o.in), t.name);
		}
	}
	ir_graph *g = cli_read_ir(o.in);
	if (!g || (o.target && ir_meta_set_str(g, "target.name", t.name))) {
		npu_target_free(&t);
		ir_graph_free(g);
		return g ? cli_error(NULL, "out of memory") : CLI_FAIL;
	}
	int rc = CLI_FAIL, nodes = ir_graph_node_count(g);
	/* Repeat until a round changes nothing: one pass can make room for
	 * another that ran before it (a mul folded, then a batch_norm). */
	for (int round = 0, changed = 1; changed && round < 16; round++) {
		changed = 0;
		notes.len = 0;
		for (int p = 0; p < IR_PASS_COUNT; p++) {
			if (!o.pass[p])
				continue;
			notes.pass = ir_pass_name(p);
			ir_pass_report r = {.note = cli_verbose >= 2 ? keep_note : NULL, .target_ops = o.target ? t.ops : NULL};
			if (ir_pass_run(g, p, &r, &d)) {
				cli_diag(g, in_name, &d);
				goto out;
			}
			if (r.changed)
				cli_info(1, "%s: %s: %s", in_name, ir_pass_name(p), r.summary);
			changed += r.changed;
			if (o.verify_each && ir_graph_verify(g, &d)) {
				cli_error(in_name, "after pass %s: %s", ir_pass_name(p), d.msg);
				goto out;
			}
		}
	}
	if (notes.len)
		fputs(notes.text, stderr);
	cli_info(1, "%s: %d nodes, %d before", in_name, ir_graph_node_count(g), nodes);
	if (cli_write_ir(g, o.out, o.force) == 0)
		rc = CLI_OK;
out:
	free(notes.text);
	ir_graph_free(g);
	npu_target_free(&t);
	return rc;
}
