/* ir_plugin.h - the process's plugin registry (npu-plugin(7)).
 *
 * ir_plugin_scan() loads every "*.so" of $NPU_PLUGIN_PATH's directories,
 * then of ./plugin/, once per process; ir_plugin_load() one file given by
 * path. Objects that cannot be loaded, lack npu_plugins() or carry a
 * descriptor of another ABI are skipped with a warning through `warn`
 * (path, message), or when that is NULL through ir_plugin_set_warn()'s. Among plugins of one kind and name the
 * highest version wins (the first loaded among equals). Not thread-safe
 * while loading; lookups afterwards are. */
#ifndef IR_PLUGIN_H
#define IR_PLUGIN_H

#include <stdbool.h>
#include <stdio.h>
#include "../share/npu/plugin.h"

typedef void (*ir_plugin_warn_fn)(const char *path, const char *msg);

typedef struct {
	const npu_plugin_desc *desc;
	const char *path;		/* the object it came from */
	bool shadowed;			/* a higher version of its kind and name wins */
} ir_plugin;

void ir_plugin_scan(ir_plugin_warn_fn warn);
/* The warn used when a call passes NULL (cli_init sets cli_warn's). */
void ir_plugin_set_warn(ir_plugin_warn_fn warn);
/* 0 ok (also when every descriptor was skipped with a warning); -1 with a
 * message in err (the file cannot be used at all). */
int ir_plugin_load(const char *path, ir_plugin_warn_fn warn, char *err, size_t errlen);
/* The winning plugin of kind and name, or NULL. */
const ir_plugin *ir_plugin_find(int kind, const char *name);
size_t ir_plugin_count(void);
const ir_plugin *ir_plugin_at(size_t i);
const char *ir_plugin_kind_name(int kind);	/* "dataset", "metric", "op" */
/* Split "NAME:ARGS" (args "" if no colon) into name[size]; -1 if too long. */
int ir_plugin_spec(const char *spec, char *name, size_t size, const char **args);
/* The listing of --plugin: one line per plugin, kind name version path
 * summary, shadowed ones marked. */
void ir_plugin_list(FILE *f);
/* Where ir_plugin_scan() looks, for "not found" messages:
 * "$NPU_PLUGIN_PATH (DIRS), then ./plugin". Returns buf. */
const char *ir_plugin_where(char *buf, size_t size);

/* ---------------------------------------------------------------- op plugins (ir_custom.c)
 * The IR op `custom` (attribute type = the plugin's name) runs through an
 * op plugin; these find it (scanning on first use) and feed it. */
#include "ir.h"

/* The op plugin claiming ONNX (domain, op_type), or NULL. */
const ir_plugin *ir_plugin_find_op(const char *domain, const char *op_type);
/* The plugin of custom node `node`, or NULL with d naming the plugin. */
const npu_plugin_op *ir_custom_op(const ir_graph *g, int node, const ir_plugin **pl, ir_diag *d);
/* The node's kernel words p[NPU_PK_WORDS] (plugin.h); i8: the int8
 * kernel's (input 0's zero point and scale). */
int ir_custom_words(const ir_graph *g, int node, bool i8, int32_t *p, ir_diag *d);
/* The runtime's CUSTOM kernels: a number for (plugin, int8 or float
 * kernel), the same for the same pair within a process (-1: too many),
 * the pair back, and npu_model.custom for models lowered here. */
int ir_custom_fn_id(const ir_plugin *pl, bool i8);
const ir_plugin *ir_custom_fn_plugin(int id, bool *i8);
void ir_custom_call(uint32_t fn, const void *const in[], void *const out[], const int32_t *p);

#endif
