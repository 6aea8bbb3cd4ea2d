/* ts_internal.h - what the TorchScript importer's files share (not public).
 *
 *   ts_zip.c     the archive (libzip over the caller's buffer)
 *   ts_pickle.c  the restricted unpickler: values from an allow-list of
 *                globals only, nothing is ever executed
 *   ts_parse.c   lexer and parser of the Python subset TorchScript writes
 *   ts_import.c  the interpreter that inlines forward() into IR nodes
 *
 * Everything an import allocates lives in one arena freed at the end, so
 * values can be shared freely (pickle memo, module attributes, variables). */
#ifndef NPUKIT_TS_INTERNAL_H
#define NPUKIT_TS_INTERNAL_H

#include "ir.h"

/* ================================================================ arena */

typedef struct ts_chunk ts_chunk;
typedef struct {
	ts_chunk *head;
	size_t total;		/* bytes allocated so far */
	size_t limit;		/* refuse to grow beyond (0: no limit) */
} ts_arena;

void *ts_alloc(ts_arena *a, size_t n);	/* zeroed; NULL when out of memory */
void *ts_alloc_array(ts_arena *a, size_t n, size_t size);	/* overflow-checked */
char *ts_strndup(ts_arena *a, const char *s, size_t n);
char *ts_sprintf(ts_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ts_arena_free(ts_arena *a);

/* A string-keyed hash map (keys are not copied; the map itself is malloc'ed). */
typedef struct {
	const char **keys;
	void **vals;
	size_t cap, n;
} ts_map;

void *ts_map_get(const ts_map *m, const char *key);
int ts_map_put(ts_map *m, const char *key, void *val);	/* 0 or -1 (out of memory) */
void ts_map_free(ts_map *m);

/* ================================================================ values */

typedef enum {
	TS_NONE, TS_BOOL, TS_INT, TS_FLOAT, TS_STR, TS_TUPLE, TS_LIST, TS_DICT,
	TS_OBJECT,	/* an instance of a __torch__ class: s = qualified class name */
	TS_TENSOR,
	TS_STORAGE,	/* pickle only */
	TS_GLOBAL,	/* pickle only: an allowed global (g = kind) */
	TS_NS,		/* interpreter: a dotted name not resolved yet (torch.nn, ops.aten) */
	TS_FUNC,	/* interpreter: a function or method bound to obj */
	TS_DEVICE,
	TS_RUNTIME,	/* interpreter: a Python value that depends on tensor data */
	TS_POISON	/* interpreter: the result of something unsupported */
} ts_kind;

typedef enum { TG_REBUILD_TENSOR, TG_STORAGE, TG_ORDERED_DICT, TG_JIT_PICKLE, TG_CLASS } ts_global;

typedef struct ts_storage {
	const char *key;	/* data/KEY (constants.pkl: constants/KEY first) */
	const char *dir;	/* "data" or "constants" */
	ir_dtype dtype;		/* element type in the IR (double becomes f32) */
	int src_size;		/* bytes per element in the archive */
	bool is_double;
	int64_t numel;
	uint8_t *data;		/* loaded on first use (malloc'ed, freed with the import) */
	size_t nbytes;
} ts_storage;

typedef struct ts_val ts_val;

typedef struct {
	ir_dtype dtype;
	ir_shape shape;
	/* a tensor from a pickle: a view of a storage */
	ts_storage *st;
	int64_t offset;
	int64_t stride[IR_MAX_RANK];
	/* host data, contiguous, ir_dtype_size(dtype) per element (NULL: not
	 * known at import time, or not loaded yet) */
	void *data;
	int id;			/* IR tensor, -1 until it is in the graph */
	const char *name;	/* name for the IR constant (parameter path) */
} ts_tensor;

struct ts_val {
	ts_kind kind;
	int64_t i;		/* bool, int; global kind */
	double f;
	const char *s;		/* str (NUL-terminated, may hold NULs: len); class, ns, func name */
	size_t len;
	ts_val **v;		/* tuple, list: n items; dict: n (key, value) pairs, 2n slots */
	int n, cap;
	ts_val *attrs;		/* object: its state (a dict) */
	ts_tensor *t;
	ts_storage *st;
	ir_dtype gdtype;	/* storage global: element type */
	int gsize;
	bool gdouble;
	const char *path;	/* object: module path ("" for the root) */
	const void *cls;	/* object, func: resolved class / def (interpreter cache) */
	ts_val *self;		/* func: bound object, or NULL */
};

ts_val *ts_new(ts_arena *a, ts_kind k);
ts_val *ts_new_int(ts_arena *a, int64_t i);
ts_val *ts_new_str(ts_arena *a, const char *s, size_t len);
/* Append to a tuple, list or set; 0 or -1 (out of memory). */
int ts_append(ts_arena *a, ts_val *list, ts_val *item);
/* Set key to value in a dict (replacing an equal string or int key). */
int ts_dict_set(ts_arena *a, ts_val *dict, ts_val *key, ts_val *value);
/* Value of string key in a dict, or NULL. */
ts_val *ts_dict_get(const ts_val *dict, const char *key);
const char *ts_kind_name(ts_kind k);

/* ================================================================ archive */

typedef struct ts_zip ts_zip;

/* Open a zip held in memory (not copied). The TorchScript top folder is
 * found from its data.pkl. NULL with d filled if this is no such archive. */
ts_zip *ts_zip_open(const uint8_t *buf, size_t size, ir_diag *d);
void ts_zip_close(ts_zip *z);
const char *ts_zip_prefix(const ts_zip *z);	/* "top/" */
/* Is there an entry top/name? */
bool ts_zip_has(ts_zip *z, const char *name);
/* Read entry top/name (at most max bytes): 0 ok (malloc'ed *data, NUL
 * terminated for convenience), 1 absent, -1 error (d filled). */
int ts_zip_read(ts_zip *z, const char *name, size_t max, uint8_t **data, size_t *size, ir_diag *d);
/* Is any entry under top/dir/ ? */
bool ts_zip_has_dir(ts_zip *z, const char *dir);

/* ================================================================ pickle */

/* Unpickle buf (protocol 2, and the protocol 4 opcodes). Storages are
 * recorded with dir ("data" or "constants") and their key; tensors are views
 * of them. what names the file in messages. NULL with d filled on error. */
ts_val *ts_unpickle(ts_arena *a, const uint8_t *buf, size_t size, const char *dir, const char *what,
		    ir_diag *d);

/* ================================================================ TorchScript source */

typedef enum {
	/* top level and classes */
	A_MODULE, A_CLASS, A_DEF, A_PARAM, A_CLASSATTR,
	/* statements */
	A_BLOCK, A_ASSIGN, A_EXPR, A_RETURN, A_PASS, A_IF, A_FOR, A_WHILE, A_BREAK, A_CONTINUE,
	A_OTHER,	/* a statement the importer does not handle (s: its keyword) */
	/* expressions */
	A_NAME, A_INT, A_FLOAT, A_STR, A_NONE, A_BOOL, A_ATTR, A_CALL, A_KWARG, A_SUBSCRIPT, A_SLICE,
	A_TUPLE, A_LIST, A_DICT, A_UNARY, A_BINOP, A_BOOLOP, A_IFEXP
} ts_ast_kind;

typedef struct ts_ast ts_ast;
struct ts_ast {
	ts_ast_kind kind;
	int line;
	const char *s;		/* name, operator, string (len bytes) */
	size_t len;
	int64_t i;
	double f;
	ts_ast **k;		/* children (kind-specific; NULL entries for absent parts) */
	int n;
};

/* Parse one file of TorchScript source. file names it in messages
 * ("code/__torch__.py:3: ..."). NULL with d filled on a syntax error. */
ts_ast *ts_parse(ts_arena *a, const char *src, size_t len, const char *file, ir_diag *d);

#endif
