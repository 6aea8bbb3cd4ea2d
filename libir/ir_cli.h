/* ir_cli.h - helpers shared by the npukit programs (tools/npu-*.c).
 *
 * Unlike the rest of libir, these print diagnostics to stderr in the house
 * format ("prog: file: node 'name' (op): error: message") and some exit:
 * cli_usage() exits 2, cli_die() exits 1. Only programs use them. */
#ifndef NPUKIT_IR_CLI_H
#define NPUKIT_IR_CLI_H

#include "ir.h"

struct option;

/* Set once from main: program name (basename of argv[0] is not used, so
 * messages are stable) and verbosity (-1 quiet, 0 normal, 1.. verbose). */
extern const char *cli_prog;
extern int cli_verbose;
/* First thing in main: the program's name, and its arguments as given
 * (recorded in the history of the IR it writes). */
void cli_init(const char *prog, int argc, char **argv);

/* Exit codes */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* "prog: message\nTry 'prog --help'.\n", exit 2. */
void cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* getopt_long's ':' (missing argument) or '?' (unknown option; optstring
 * starts with ':', opterr = 0) as a usage error naming the option. */
void cli_bad_option(int c, char **argv) __attribute__((noreturn));

/* The options every program takes: -o/--out FILE, -f/--force (programs
 * that write binary output), -v/--verbose, -q/--quiet, --help, -V/--version.
 * CLI_COMMON_OPTS goes into a program's getopt_long table and "o:fvq" into
 * its short options; the program's switch hands every code it does not
 * handle itself to cli_common_option. */
enum { CLI_OPT_HELP = 0x1000, CLI_OPT_VERSION };
#define CLI_COMMON_OPTS \
	{"out", required_argument, NULL, 'o'}, {"force", no_argument, NULL, 'f'}, \
	{"verbose", no_argument, NULL, 'v'}, {"quiet", no_argument, NULL, 'q'}, \
	{"help", no_argument, NULL, CLI_OPT_HELP}, {"version", no_argument, NULL, 'V'}
/* Store -o in *out and -f in *force (force NULL: the program has no -f),
 * count -v, set -q, run help() (which exits) or print the version; any
 * other code is a usage error. */
void cli_common_option(int c, char **argv, const char **out, bool *force, void (*help)(void));
/* strndup that exits 1 ("out of memory") when it fails. */
char *cli_strndup(const char *s, size_t n);

/* The import programs (npu-import-onnx, npu-import-tf, npu-import-pt):
 * one model in, IR out. CLI_IMPORT_OPTS goes into their getopt_long
 * table: --input NAME:SHAPE (e.g. data:1,3,224,224), --output NAME and
 * --const NAME=VALUE (e.g. keep_prob=1.0), each repeatable. */
enum { CLI_OPT_INPUT = 0x1100, CLI_OPT_OUTPUT, CLI_OPT_CONST, CLI_OPT_OWN };
#define CLI_MAX_NAMED 256
#define CLI_IMPORT_OPTS \
	{"input", required_argument, NULL, CLI_OPT_INPUT}, {"output", required_argument, NULL, CLI_OPT_OUTPUT}, \
	{"const", required_argument, NULL, CLI_OPT_CONST}
/* The common lines of their --help, and its exit status line. */
#define CLI_IMPORT_HELP \
	"  -o, --out FILE      write the IR to FILE (default: standard output)\n" \
	"  -f, --force         write binary IR even to a terminal\n" \
	"  -v, --verbose       report what was imported on standard error\n" \
	"  -q, --quiet         no warnings\n" \
	"      --help          show this help and exit\n" \
	"  -V, --version       show the version and exit\n"
#define CLI_IMPORT_EXIT "Exit status: 0 success, 1 the model cannot be imported or I/O failed, 2 usage.\n"
typedef struct cli_import {
	/* set by the program */
	void (*help)(void);
	const char *output_what;	/* "value name": what --output names */
	/* the program's own options (codes from CLI_OPT_OWN, or CLI_OPT_INPUT
	 * to read --input its way): true if handled, else false */
	bool (*option)(struct cli_import *a, int c, const char *arg);
	void *ctx;			/* for option */
	/* parsed */
	const char *in;			/* model file, "-" or NULL: stdin */
	const char *out;		/* IR file, NULL: stdout */
	bool force;
	const char *name;		/* the model's display name */
	const char *file;		/* its base name (meta source.file; NULL: stdin) */
	ir_named_shape inputs[CLI_MAX_NAMED];
	int n_inputs;
	const char *outputs[CLI_MAX_NAMED];
	int n_outputs;
	ir_named_value consts[CLI_MAX_NAMED];
	int n_consts;
} cli_import;
/* Parse the command line (getopt_long with longopts, short options
 * "o:fVvq"); a malformed option, an --input or --const name given twice or
 * a second model file is a usage error (exit 2). */
void cli_import_args(cli_import *a, int argc, char **argv, const struct option *longopts);
/* After the importer ran: print d unless it made g (d NULL: the error is
 * printed already); else the -v summary, and write the IR. Frees g and the
 * names of a. Returns the exit status. */
int cli_import_finish(cli_import *a, ir_graph *g, const ir_diag *d);
/* s is a C identifier of at most 63 characters (a --name for emitted code). */
bool cli_c_identifier(const char *s);
/* "prog: file: error: message" (file may be NULL). Returns CLI_FAIL. */
int cli_error(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A reader's message that starts with its own location ("FILE: ..." or
 * "FILE:LINE: ..."; FILE given, or else a leading path-like token) printed
 * as "prog: FILE:LINE: error: ..."; any other message as cli_error(file).
 * Returns CLI_FAIL. */
int cli_error_msg(const char *file, const char *msg);
/* Same with "warning:"; suppressed by -q. */
void cli_warn(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Plugins for a program that takes them: the --plugin-file objects (an
 * error names the file), then the search path (npu-plugin(7)); with list
 * (--plugin) the registry on stdout. CLI_OK or CLI_FAIL. */
int cli_plugins(const char *const *files, int n, bool list);
/* Informational line on stderr when cli_verbose >= level. */
void cli_info(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print a libir diagnostic, naming the node (and its op) or tensor when set. */
int cli_diag(const ir_graph *g, const char *file, const ir_diag *d);
/* Print "prog (npukit) VERSION, IR format N" and exit 0. */
void cli_print_version(void) __attribute__((noreturn));

/* Display name of a path ("<stdin>" / "<stdout>" for "-" or NULL). */
const char *cli_name(const char *path);

/* Read a whole file ("-" or NULL: standard input). If binary is set,
 * refuse to read from a terminal. A directory, a socket or a device other
 * than a terminal is refused (/dev/zero would never end); a FIFO is read
 * (waiting for its writer, as cat does). Returns 0, or prints an error and
 * -1. */
int cli_read_file(const char *path, bool binary, uint8_t **buf, size_t *size);
/* The same for a file that must be regular (one a config or a dataset
 * names): a FIFO, device or directory is refused without blocking. */
int cli_read_regular(const char *path, bool binary, uint8_t **buf, size_t *size);
/* Read and parse an IR stream; prints the error (including "this looks like
 * ..." hints) and returns NULL on failure. */
ir_graph *cli_read_ir(const char *path);

/* An output that is atomic when it is a file: written to an unnamed
 * (O_TMPFILE) file in its directory on Linux, so even SIGKILL leaves nothing
 * behind, or else to a temporary file next to it; named and renamed into
 * place by cli_output_commit; removed on failure, on cli_output_abort and on
 * SIGINT/SIGTERM/SIGHUP. An existing path that is not a regular file
 * (/dev/null, a FIFO) is written in place. */
typedef struct {
	FILE *f;
	char *path;	/* NULL: standard output */
	char *tmp;	/* NULL: written in place (or not named yet) */
	int anon;	/* an unnamed O_TMPFILE file, linked in on commit */
} cli_output;

/* Open path ("-"/NULL: stdout). A binary output refuses a terminal unless
 * force is set. Returns 0 or prints an error and -1. */
int cli_output_open(cli_output *o, const char *path, bool binary, bool force);
/* Flush, check errors, close and rename into place. 0 ok, else prints, -1. */
int cli_output_commit(cli_output *o);
void cli_output_abort(cli_output *o);

/* Append history (prog, version, the arguments given to cli_init), serialize and write atomically.
 * Returns 0 or prints the error and -1. */
int cli_write_ir(ir_graph *g, const char *path, bool force);

/* Length of the valid UTF-8 sequence at p (no overlong forms, surrogates or
 * code points above U+10FFFF), or 0. */
int cli_utf8_len(const unsigned char *p);
/* Names come from files: text views show control characters and bytes that
 * are not UTF-8 as '?', so a hostile name cannot drive the terminal or break
 * a line. esc (may be NULL) maps ASCII characters to replacements (quoting).
 * Returns the number of characters shown; f NULL only counts. */
int cli_put_text(FILE *f, const char *s, const char *const esc[128]);
/* s as a JSON string: quotes, backslashes and control characters escaped,
 * other bytes as they are. */
void cli_json_str(FILE *f, const char *s);
/* "arena: N bytes, lower bound: M bytes (node ...), ratio R" and, with
 * timeline, one row per arena buffer (npu-dump -m, npu-emit -v). */
void cli_print_plan(FILE *f, const ir_graph *g, const ir_plan *p, bool timeline);

#endif
