/* ir_cli.c - diagnostics, input, atomic output for the npukit programs. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE	/* O_TMPFILE */
#endif
#include "ir_cli.h"
#include "ir_plugin.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cli_prog = "npu";
int cli_verbose;
/* The arguments as given (getopt_long reorders argv), for the history. */
static char **cli_args;
static int cli_nargs;

static void plugin_warn(const char *path, const char *msg)
{
	cli_warn(path, "%s", msg);
}

int cli_plugins(const char *const *files, int n, bool list)
{
	char err[1024];
	for (int i = 0; i < n; i++)
		if (ir_plugin_load(files[i], NULL, err, sizeof err))
			return cli_error(files[i], "%s", err);
	ir_plugin_scan(NULL);
	if (!list)
		return CLI_OK;
	ir_plugin_list(stdout);
	if (!ir_plugin_count())
		cli_info(0, "no plugins found (searched %s)", ir_plugin_where(err, sizeof err));
	return fclose(stdout) ? cli_error(NULL, "write error on standard output") : CLI_OK;
}

void cli_init(const char *prog, int argc, char **argv)
{
	cli_prog = prog;
	ir_plugin_set_warn(plugin_warn);
	cli_nargs = argc > 1 ? argc - 1 : 0;
	cli_args = malloc(sizeof *cli_args * (size_t)(cli_nargs + 1));
	if (!cli_args)
		cli_nargs = 0;
	for (int i = 0; i < cli_nargs; i++)
		cli_args[i] = argv[i + 1];
}

/* Write s with control characters escaped: messages quote names from
 * hostile files (a tensor named "a\nb"), and a diagnostic stays one line. */
static void put_escaped(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\n')
			fputs("\\n", stderr);
		else if (*p == '\r')
			fputs("\\r", stderr);
		else if (*p == '\t')
			fputs("\\t", stderr);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(stderr, "\\x%02x", *p);
		else
			fputc(*p, stderr);
	}
}

static void vmsg(const char *file, const char *level, const char *fmt, va_list ap)
{
	char buf[1024], *text = buf;
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	if (n >= (int)sizeof buf && (text = malloc((size_t)n + 1)))
		vsnprintf(text, (size_t)n + 1, fmt, aq);
	va_end(aq);
	if (!text)
		text = buf;	/* out of memory: the message cut short */
	fflush(stdout);
	fprintf(stderr, "%s: ", cli_prog);
	if (file) {
		put_escaped(file);
		fputs(": ", stderr);
	}
	if (level)
		fprintf(stderr, "%s: ", level);
	put_escaped(n < 0 ? fmt : text);
	fputc('\n', stderr);
	if (text != buf)
		free(text);
}

void cli_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(NULL, NULL, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", cli_prog);
	exit(CLI_USAGE);
}

void cli_bad_option(int c, char **argv)
{
	const char *arg = argv[optind - 1], *eq = strchr(arg, '=');
	if (c == ':')
		cli_usage("option '%s' needs an argument", arg);
	if (strncmp(arg, "--", 2))
		cli_usage("unknown option '-%c'", optopt);
	if (optopt && eq)
		cli_usage("option '%.*s' takes no argument", (int)(eq - arg), arg);
	cli_usage("unknown option '%s'", arg);
}

void cli_common_option(int c, char **argv, const char **out, bool *force, void (*help)(void))
{
	switch (c) {
	case 'o': *out = optarg; return;
	case 'f':
		if (!force)
			break;
		*force = true;
		return;
	case 'v': cli_verbose = cli_verbose < 0 ? 1 : cli_verbose + 1; return;
	case 'q': cli_verbose = -1; return;
	case CLI_OPT_HELP: help(); return;
	case 'V':
	case CLI_OPT_VERSION: cli_print_version();
	}
	cli_bad_option(c, argv);
}

char *cli_strndup(const char *s, size_t n)
{
	char *c = strndup(s, n);
	if (!c) {
		cli_error(NULL, "out of memory");
		exit(CLI_FAIL);
	}
	return c;
}

/* --input NAME:SHAPE, --const NAME=VALUE, --output NAME: each name once. */
static void add_input(cli_import *a, const char *arg)
{
	const char *colon = strrchr(arg, ':');
	ir_shape s;
	if (!colon || colon == arg)
		cli_usage("--input '%s': expected NAME:SHAPE, e.g. --input data:1,3,224,224", arg);
	if (ir_shape_parse(colon + 1, &s))
		cli_usage("--input '%s': bad shape '%s' (expected dimensions separated by commas)", arg, colon + 1);
	char *name = cli_strndup(arg, (size_t)(colon - arg));
	for (int i = 0; i < a->n_inputs; i++)
		if (!strcmp(a->inputs[i].name, name))
			cli_usage("--input '%s' is given twice", name);
	if (a->n_inputs == CLI_MAX_NAMED)
		cli_usage("too many --input options");
	a->inputs[a->n_inputs++] = (ir_named_shape){.name = name, .shape = s};
}

static void add_const(cli_import *a, const char *arg)
{
	const char *eq = strrchr(arg, '=');
	char *end;
	if (!eq || eq == arg)
		cli_usage("--const '%s': expected NAME=VALUE, e.g. --const keep_prob=1.0", arg);
	double v = strtod(eq + 1, &end);
	if (!eq[1] || *end || isspace((unsigned char)eq[1]))
		cli_usage("--const '%s': bad value '%s' (expected a number)", arg, eq + 1);
	char *name = cli_strndup(arg, (size_t)(eq - arg));
	for (int i = 0; i < a->n_consts; i++)
		if (!strcmp(a->consts[i].name, name))
			cli_usage("--const '%s' is given twice", name);
	if (a->n_consts == CLI_MAX_NAMED)
		cli_usage("too many --const options");
	a->consts[a->n_consts++] = (ir_named_value){.name = name, .value = v};
}

void cli_import_args(cli_import *a, int argc, char **argv, const struct option *longopts)
{
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:fVvq", longopts, NULL)) != -1) {
		if (a->option && a->option(a, c, optarg))
			continue;
		switch (c) {
		case CLI_OPT_INPUT: add_input(a, optarg); break;
		case CLI_OPT_CONST: add_const(a, optarg); break;
		case CLI_OPT_OUTPUT:
			if (!*optarg)
				cli_usage("--output needs a %s", a->output_what);
			if (a->n_outputs == CLI_MAX_NAMED)
				cli_usage("too many --output options");
			a->outputs[a->n_outputs++] = optarg;
			break;
		default: cli_common_option(c, argv, &a->out, &a->force, a->help);
		}
	}
	if (optind < argc)
		a->in = argv[optind++];
	if (optind < argc)
		cli_usage("unexpected argument '%s' (one model at a time)", argv[optind]);
	a->name = cli_name(a->in);
	const char *slash = strrchr(a->name, '/');
	a->file = !a->in || !strcmp(a->in, "-") ? NULL : slash ? slash + 1 : a->name;
}

int cli_import_finish(cli_import *a, ir_graph *g, const ir_diag *d)
{
	int rc = CLI_FAIL;
	if (!g && d) {
		cli_diag(NULL, a->name, d);
	} else if (g) {
		const ir_meta *opset = ir_meta_get(g, "source.opset");
		char os[40] = "";
		if (opset)
			snprintf(os, sizeof os, "opset %lld: ", (long long)opset->i);
		cli_info(1, "%s: %s%d nodes, %d tensors, %d inputs, %d outputs", a->name, os,
			 ir_graph_node_count(g), ir_graph_tensor_count(g), ir_graph_input_count(g),
			 ir_graph_output_count(g));
		if (cli_write_ir(g, a->out, a->force) == 0)
			rc = CLI_OK;
		ir_graph_free(g);
	}
	for (int i = 0; i < a->n_inputs; i++)
		free((char *)a->inputs[i].name);
	for (int i = 0; i < a->n_consts; i++)
		free((char *)a->consts[i].name);
	return rc;
}

int cli_error(const char *file, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(file, "error", fmt, ap);
	va_end(ap);
	return CLI_FAIL;
}

int cli_error_msg(const char *file, const char *msg)
{
	size_t n = file ? strlen(file) : strcspn(msg, ": ");
	bool located = file ? !strncmp(msg, file, n) : n > 0 && strcspn(msg, "./") < n;
	if (!located || msg[n] != ':')
		return cli_error(file, "%s", msg);
	const char *p = msg + n + 1, *q = p;
	while (*q >= '0' && *q <= '9')
		q++;
	if (q > p && *q == ':')
		n = (size_t)(q - msg), p = q + 1;
	while (*p == ' ')
		p++;
	char *loc = strndup(msg, n);	/* FILE or FILE:LINE, printed escaped as any name */
	int rc = cli_error(loc ? loc : file, "%s", p);
	free(loc);
	return rc;
}

void cli_warn(const char *file, const char *fmt, ...)
{
	if (cli_verbose < 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vmsg(file, "warning", fmt, ap);
	va_end(ap);
}

void cli_info(int level, const char *fmt, ...)
{
	if (cli_verbose < level)
		return;
	va_list ap;
	va_start(ap, fmt);
	vmsg(NULL, NULL, fmt, ap);
	va_end(ap);
}

int cli_diag(const ir_graph *g, const char *file, const ir_diag *d)
{
	const ir_node *n = g ? ir_graph_node(g, d->node) : NULL;
	const ir_tensor *t = g ? ir_graph_tensor(g, d->tensor) : NULL;
	if (n)
		return cli_error(file, "node '%s' (%s): %s", n->name, ir_op_name(n->op), d->msg);
	if (t && !strstr(d->msg, t->name))
		return cli_error(file, "tensor '%s': %s", t->name, d->msg);
	return cli_error(file, "%s", d->msg);
}

void cli_print_version(void)
{
	printf("%s (npukit) %s, IR format %d\n", cli_prog, NPUKIT_VERSION, IR_FORMAT_VERSION);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

const char *cli_name(const char *path)
{
	return !path || !strcmp(path, "-") ? "<stdin>" : path;
}

static int read_file(const char *path, bool binary, bool regular, uint8_t **buf, size_t *size)
{
	bool std = !path || !strcmp(path, "-");
	const char *name = cli_name(path), *why = NULL;
	FILE *f = std ? stdin : regular ? ir_fopen_regular(path, &why) : fopen(path, "rb");
	if (!f)
		return cli_error(name, "%s", why ? why : strerror(errno)), -1;
	struct stat st;
	if (!std && !regular && fstat(fileno(f), &st) == 0 &&
	    (S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode) ||
	     (S_ISCHR(st.st_mode) && !isatty(fileno(f))))) {
		/* a device such as /dev/zero would be read until memory runs out */
		fclose(f);
		return cli_error(name, "%s", S_ISDIR(st.st_mode) ? "is a directory, not a file" :
				 "is a device or socket, not a regular file or pipe"), -1;
	}
	if (binary && isatty(fileno(f))) {
		if (!std)
			fclose(f);
		return cli_error(name, "refusing to read binary input from a terminal (pipe a file in)"), -1;
	}
	/* a regular file's size is known: one allocation, no doubling (a
	 * 47 MB model would take 64 MB) */
	size_t cap = 1 << 16, n = 0;
	if (!std && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < IR_MAX_FILE)
		cap = (size_t)st.st_size + 1;
	uint8_t *p = malloc(cap);
	while (p) {
		if (n == cap) {
			uint8_t *q = cap > SIZE_MAX / 2 ? NULL : realloc(p, cap * 2);
			if (!q) {
				free(p);
				p = NULL;
				break;
			}
			p = q;
			cap *= 2;
		}
		size_t k = fread(p + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
		if ((uint64_t)n > IR_MAX_FILE) {
			free(p);
			if (!std)
				fclose(f);
			return cli_error(name, "larger than %llu bytes, the input size limit (npu(7), LIMITS)",
					 (unsigned long long)IR_MAX_FILE), -1;
		}
	}
	int err = ferror(f);
	if (!std)
		fclose(f);
	if (!p)
		return cli_error(name, "out of memory"), -1;
	if (err) {
		free(p);
		return cli_error(name, "read error: %s", strerror(errno)), -1;
	}
	*buf = p;
	*size = n;
	return 0;
}

int cli_read_file(const char *path, bool binary, uint8_t **buf, size_t *size)
{
	return read_file(path, binary, false, buf, size);
}

int cli_read_regular(const char *path, bool binary, uint8_t **buf, size_t *size)
{
	return read_file(path, binary, true, buf, size);
}

ir_graph *cli_read_ir(const char *path)
{
	uint8_t *buf;
	size_t size;
	ir_diag d;
	if (cli_read_file(path, true, &buf, &size))
		return NULL;
	ir_graph *g = ir_graph_read_mem(buf, size, &d);
	free(buf);
	if (!g)
		cli_error(cli_name(path), "%s", d.msg);
	return g;
}

/* ---------------------------------------------------------------- atomic output */

/* The one temporary file in flight, removed if a signal ends the program. */
static volatile sig_atomic_t have_tmp;
static char tmp_path[4096];

static void on_signal(int sig)
{
	if (have_tmp)
		unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

int cli_output_open(cli_output *o, const char *path, bool binary, bool force)
{
	memset(o, 0, sizeof *o);
	if (!path || !strcmp(path, "-")) {
		if (binary && !force && isatty(STDOUT_FILENO))
			return cli_error(NULL, "refusing to write binary output to a terminal; "
				       "pipe it into another program (npu-dump reads IR), use -o FILE, or -f to force"), -1;
		o->f = stdout;
		return 0;
	}
	/* A device or FIFO (-o /dev/null) is written in place: renaming a
	 * temporary file over it would replace the device. */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (!(o->path = strdup(path)))
			return cli_error(path, "out of memory"), -1;
		if (!(o->f = fopen(path, binary ? "wb" : "w"))) {
			int e = errno;
			free(o->path);
			o->path = NULL;
			return cli_error(path, "%s", strerror(e)), -1;
		}
		return 0;
	}
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	int n = snprintf(tmp_path, sizeof tmp_path, "%.*s.%s.XXXXXX", dirlen, path, path + dirlen);
	if (n < 0 || (size_t)n >= sizeof tmp_path)
		return cli_error(path, "path too long"), -1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	mode_t mask = umask(0);
	umask(mask);
#ifdef O_TMPFILE
	/* An unnamed file in the target's directory: nothing is left behind
	 * even by SIGKILL; it gets a name only once complete (commit). */
	char dir[4096];
	snprintf(dir, sizeof dir, "%.*s", dirlen ? dirlen : 1, dirlen ? path : ".");
	int afd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666 & ~mask);
	if (afd >= 0) {
		fchmod(afd, 0666 & ~mask);
		o->f = fdopen(afd, binary ? "wb" : "w");
		o->path = strdup(path);
		o->anon = 1;
		if (!o->f || !o->path) {
			if (o->f)
				fclose(o->f);
			else
				close(afd);
			free(o->path);
			memset(o, 0, sizeof *o);
			return cli_error(path, "out of memory"), -1;
		}
		return 0;
	}
	/* Unsupported by the file system (EOPNOTSUPP, EISDIR on old kernels):
	 * a named temporary file, renamed on commit. */
#endif
	int fd = mkstemp(tmp_path);
	if (fd < 0)
		return cli_error(path, "cannot create a temporary file: %s", strerror(errno)), -1;
	have_tmp = 1;
	fchmod(fd, 0666 & ~mask);
	o->f = fdopen(fd, binary ? "wb" : "w");
	o->path = strdup(path);
	o->tmp = strdup(tmp_path);
	if (!o->f || !o->path || !o->tmp) {
		if (o->f)
			fclose(o->f);
		else
			close(fd);
		unlink(tmp_path);
		have_tmp = 0;
		free(o->path);
		free(o->tmp);
		return cli_error(path, "out of memory"), -1;
	}
	return 0;
}

void cli_output_abort(cli_output *o)
{
	if (o->path) {
		fclose(o->f);
		if (o->tmp) {
			unlink(o->tmp);
			have_tmp = 0;
		}
		free(o->path);
		free(o->tmp);
	}
	memset(o, 0, sizeof *o);
}

/* Give the complete O_TMPFILE file a temporary name next to the target
 * (renamed over it by the caller, as a named temporary file would be). */
static int link_anon(cli_output *o)
{
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fileno(o->f));
	const char *slash = strrchr(o->path, '/');
	int dirlen = slash ? (int)(slash - o->path + 1) : 0;
	for (unsigned k = 0; k < 1000; k++) {
		int n = snprintf(tmp_path, sizeof tmp_path, "%.*s.%s.%ld.%u", dirlen, o->path, o->path + dirlen,
				 (long)getpid(), k);
		if (n < 0 || (size_t)n >= sizeof tmp_path)
			return -1;
		have_tmp = 1;
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp_path, AT_SYMLINK_FOLLOW) == 0) {
			o->tmp = strdup(tmp_path);
			if (!o->tmp) {
				unlink(tmp_path);
				have_tmp = 0;
				return -1;
			}
			return 0;
		}
		have_tmp = 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

int cli_output_commit(cli_output *o)
{
	const char *name = o->path ? o->path : "<stdout>";
	int err = fflush(o->f) != 0 || ferror(o->f);
	if (!o->path) {
		/* Standard output is closed here so write errors (a full disk,
		 * /dev/full) are seen before the exit status is decided. */
		err |= fclose(stdout) != 0;
		o->f = NULL;
		if (err)
			return cli_error(name, "write error: %s", strerror(errno)), -1;
		return 0;
	}
	if (!err && o->anon && link_anon(o) != 0)
		err = 1;
	err |= fclose(o->f) != 0;
	o->f = NULL;
	if (!err && o->tmp && rename(o->tmp, o->path) != 0)
		err = 1;
	if (err) {
		cli_error(name, "write error: %s", strerror(errno));
		if (o->tmp)
			unlink(o->tmp);
	}
	if (o->tmp)
		have_tmp = 0;
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	return err ? -1 : 0;
}

int cli_write_ir(ir_graph *g, const char *path, bool force)
{
	uint8_t *buf = NULL;
	size_t size = 0;
	ir_diag d;
	cli_output o;
	if (ir_graph_add_history(g, cli_prog, NPUKIT_VERSION, cli_nargs, cli_args))
		return cli_error(NULL, "out of memory"), -1;
	if (ir_graph_write_mem(g, &buf, &size, &d))
		return cli_diag(g, path ? cli_name(path) : "<output>", &d), -1;
	if (cli_output_open(&o, path, true, force)) {
		free(buf);
		return -1;
	}
	if (fwrite(buf, 1, size, o.f) != size) {
		cli_error(o.path ? o.path : "<stdout>", "write error: %s", strerror(errno));
		cli_output_abort(&o);
		free(buf);
		return -1;
	}
	free(buf);
	return cli_output_commit(&o);
}

/* ---------------------------------------------------------------- text */

/* Length of the valid UTF-8 sequence at p (no overlong forms, surrogates or
 * code points above U+10FFFF), or 0. */
int cli_utf8_len(const unsigned char *p)
{
	unsigned c = p[0];
	int len = c < 0x80 ? 1 : c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
	for (int i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))
		return 0;
	return len;
}

/* Names come from files: text views show control characters and bytes that
 * are not UTF-8 as '?', so a hostile name cannot drive the terminal or break
 * a line. esc (may be NULL) maps ASCII characters to replacements (quoting).
 * Returns the number of characters shown; f NULL only counts. */
void cli_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

int cli_put_text(FILE *f, const char *s, const char *const esc[128])
{
	int n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; n++) {
		int len = cli_utf8_len(p);
		if (len == 1 && esc && esc[*p]) {
			if (f)
				fputs(esc[*p], f);
		} else if (len == 0 || (len == 1 && (*p < 0x20 || *p == 0x7f))) {
			if (f)
				fputc('?', f);
			len = 1;
		} else if (f) {
			fwrite(p, 1, (size_t)len, f);
		}
		p += len;
	}
	return n;
}

/* -v -v: one row per arena buffer (by offset), one column per node (or per
 * run of nodes beyond 100), '#' where the buffer is alive. */
static void print_timeline(FILE *f, const ir_graph *g, const ir_plan *p)
{
	int nn = ir_graph_node_count(g), cols = nn > 100 ? 100 : nn;
	fprintf(f, "\narena timeline (one row per buffer, '#' alive; ");
	if (cols == nn)
		fprintf(f, "one column per node, 0 to %d):\n", nn - 1);
	else
		fprintf(f, "%d columns over nodes 0 to %d):\n", cols, nn - 1);
	fprintf(f, "  %10s  %10s  %-*s  tensor\n", "offset", "size", cols, "nodes");
	/* buffers by offset, then first use: selection over the owners */
	int64_t last_off = -1;
	int last_first = -1, last_id = -1;
	for (;;) {
		int best = -1;
		for (int t = 0; t < p->n; t++) {
			const ir_plan_buf *b = &p->buf[t], *c = best >= 0 ? &p->buf[best] : NULL;
			if (b->offset < 0 || b->alias_of >= 0)
				continue;
			bool after = b->offset > last_off || (b->offset == last_off &&
				     (b->first > last_first || (b->first == last_first && t > last_id)));
			if (after && (!c || b->offset < c->offset || (b->offset == c->offset && b->first < c->first)))
				best = t;
		}
		if (best < 0)
			break;
		/* the group's lifetime and size: the union over its members */
		int first = p->buf[best].first, last = p->buf[best].last, members = 0;
		int64_t size = p->buf[best].size;
		for (int t = 0; t < p->n; t++)
			if (p->buf[t].alias_of == best) {
				first = p->buf[t].first < first ? p->buf[t].first : first;
				last = p->buf[t].last > last ? p->buf[t].last : last;
				size = p->buf[t].size > size ? p->buf[t].size : size;
				members++;
			}
		fprintf(f, "  %10" PRId64 "  %10" PRId64 "  ", p->buf[best].offset, size);
		for (int c = 0; c < cols; c++) {
			int lo = (int)((int64_t)c * nn / cols), hi = (int)((int64_t)(c + 1) * nn / cols) - 1;
			fputc(first <= hi && last >= lo ? '#' : '.', f);
		}
		fputs("  ", f);
		cli_put_text(f, ir_graph_tensor(g, best)->name, NULL);
		if (members)
			fprintf(f, " (+%d sharing)", members);
		fputc('\n', f);
		last_off = p->buf[best].offset, last_first = p->buf[best].first, last_id = best;
	}
}

void cli_print_plan(FILE *f, const ir_graph *g, const ir_plan *p, bool timeline)
{
	fprintf(f, "arena:             %" PRId64 " bytes, lower bound: %" PRId64 " bytes", p->arena, p->lower_bound);
	if (p->peak_node >= 0) {
		fprintf(f, " (node %d '", p->peak_node);
		cli_put_text(f, ir_graph_node(g, p->peak_node)->name, NULL);
		fputs("')", f);
	}
	fprintf(f, ", ratio %.3f\n", p->lower_bound ? (double)p->arena / (double)p->lower_bound : 1.0);
	if (timeline && ir_graph_node_count(g) > 0)
		print_timeline(f, g, p);
}

bool cli_c_identifier(const char *s)
{
	bool ok = (isalpha((unsigned char)s[0]) || s[0] == '_') && strlen(s) < 64;
	for (const char *p = s; *p && ok; p++)
		ok = isalnum((unsigned char)*p) || *p == '_';
	return ok;
}
