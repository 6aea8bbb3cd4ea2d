/* target.h - NPU target profiles (share/npu/targets/NAME.yaml, described in
 * npu-target(5)). Like libir, nothing here prints or exits: failures return
 * -1 with the ir_diag filled. Profiles are read as hostile input. */
#ifndef NPUKIT_TARGET_H
#define NPUKIT_TARGET_H

#include "ir.h"

typedef enum { NPU_FAMILY_FP16, NPU_FAMILY_INT } npu_family;

typedef struct {
	char *name;
	char *description;
	npu_family family;
	bool activation_types[IR_DTYPE_COUNT];
	bool weight_types[IR_DTYPE_COUNT];
	bool output_f32;		/* outputs converted to float32 */
	int64_t sram_bytes;		/* on-chip memory for the arena; 0: unknown */
	bool ops[IR_OP_COUNT];		/* what the NPU runs */
	bool same_scale[IR_OP_COUNT];	/* ops whose integer inputs must share the output's scale */
	bool sram_overflow_warn;	/* sram_overflow: warn (an arena over sram_bytes is a warning) */
	ir_layout layout;		/* the data layout its kernels run best (NONE: not said) */
} npu_target;

/* Parse a profile from memory (file: the name used in messages). */
int npu_target_parse(const uint8_t *buf, size_t size, const char *file, npu_target *t, ir_diag *d);
/* Load NAME (share/npu/targets/NAME.yaml, found next to the program:
 * <bindir>/../share/npu/targets, or $NPU_TARGETS) or a PATH (containing
 * '/' or ending in .yaml). */
int npu_target_load(const char *name_or_path, npu_target *t, ir_diag *d);
void npu_target_free(npu_target *t);
/* Limits on configuration text (target profiles, --config, npuc configs),
 * checked by a linear pass before libyaml builds a document (its anchor
 * lookup is quadratic): bytes, anchors, aliases, nesting depth. */
#define NPU_YAML_MAX_BYTES (16 << 20)
#define NPU_YAML_MAX_ANCHORS 1024
#define NPU_YAML_MAX_DEPTH 64
int npu_yaml_check(const uint8_t *buf, size_t size, const char *file, ir_diag *d);
/* A key repeated in one mapping of a loaded yaml_document_t (libyaml keeps
 * both silently): 1 with the repetition's line, the first occurrence's and
 * the key, 0 none, -1 out of memory. */
int npu_yaml_dup_key(const void *doc, size_t *line, size_t *first, const char **key);
/* Parse YAML (or JSON) text (after npu_yaml_check; a repeated key is an
 * error) and hand the document (a
 * yaml_document_t *) to fn; a syntax error is "FILE:LINE: problem". Returns
 * fn's result. */
int npu_yaml_parse(const uint8_t *buf, size_t size, const char *file,
		   int (*fn)(void *doc, const char *file, void *arg, ir_diag *d), void *arg, ir_diag *d);

#endif
