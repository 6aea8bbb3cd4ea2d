/* target.c - NPU target profiles from YAML (libyaml's document API). */
#include "config/target.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#define MAX_PROFILE_BYTES (1 << 20)

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A list of names into flags[] via lookup(); -1 naming the first unknown. */
static int name_list(yaml_document_t *doc, yaml_node_t *n, const char *file, const char *key, bool *flags,
		     int count, int (*lookup)(const char *), ir_diag *d)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return ir_fail(d, -1, -1, "%s: '%s' must be a list", file, key);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		const char *s = scalar(yaml_document_get_node(doc, *it));
		int v = s ? lookup(s) : -1;
		if (v < 0 || v >= count)
			return ir_fail(d, -1, -1, "%s: '%s': unknown entry '%s'", file, key, s ? s : "(not a name)");
		flags[v] = true;
	}
	return 0;
}

static int op_lookup(const char *s) { return ir_op_from_name(s); }
static int dtype_lookup(const char *s) { return ir_dtype_from_name(s); }

static int set_string(char **dst, const char *s, const char *file, const char *key, ir_diag *d)
{
	if (!s)
		return ir_fail(d, -1, -1, "%s: '%s' must be a string", file, key);
	free(*dst);
	if (!(*dst = strdup(s)))
		return ir_fail(d, -1, -1, "out of memory");
	return 0;
}

static int parse_doc(yaml_document_t *doc, const char *file, npu_target *t, ir_diag *d)
{
	yaml_node_t *root = yaml_document_get_root_node(doc);
	if (!root || root->type != YAML_MAPPING_NODE)
		return ir_fail(d, -1, -1, "%s: a target profile is a YAML mapping", file);
	bool have_family = false;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const char *key = scalar(yaml_document_get_node(doc, p->key));
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		const char *s = scalar(v);
		int rc = 0;
		if (!key)
			return ir_fail(d, -1, -1, "%s: keys must be names", file);
		if (!strcmp(key, "name")) {
			rc = set_string(&t->name, s, file, key, d);
		} else if (!strcmp(key, "description")) {
			rc = set_string(&t->description, s, file, key, d);
		} else if (!strcmp(key, "family")) {
			if (!s || (strcmp(s, "fp16") && strcmp(s, "int")))
				return ir_fail(d, -1, -1, "%s: 'family' must be fp16 or int", file);
			t->family = strcmp(s, "fp16") ? NPU_FAMILY_INT : NPU_FAMILY_FP16;
			have_family = true;
		} else if (!strcmp(key, "output_f32")) {
			if (!s || (strcmp(s, "true") && strcmp(s, "false")))
				return ir_fail(d, -1, -1, "%s: 'output_f32' must be true or false", file);
			t->output_f32 = !strcmp(s, "true");
		} else if (!strcmp(key, "sram_bytes")) {
			char *end;
			errno = 0;
			long long n = s ? strtoll(s, &end, 0) : -1;
			if (!s || *end || errno || n < 0 || n > (1LL << 40))
				return ir_fail(d, -1, -1, "%s: 'sram_bytes' must be a byte count", file);
			t->sram_bytes = n;
		} else if (!strcmp(key, "sram_overflow")) {
			if (!s || (strcmp(s, "error") && strcmp(s, "warn")))
				return ir_fail(d, -1, -1, "%s: 'sram_overflow' must be error or warn", file);
			t->sram_overflow_warn = !strcmp(s, "warn");
		} else if (!strcmp(key, "layout")) {
			if (!s || (strcmp(s, "nchw") && strcmp(s, "nhwc")))
				return ir_fail(d, -1, -1, "%s: 'layout' must be nchw or nhwc", file);
			t->layout = !strcmp(s, "nhwc") ? IR_LAYOUT_NHWC : IR_LAYOUT_NCHW;
		} else if (!strcmp(key, "ops")) {
			rc = name_list(doc, v, file, key, t->ops, IR_OP_COUNT, op_lookup, d);
		} else if (!strcmp(key, "same_scale_inputs")) {
			rc = name_list(doc, v, file, key, t->same_scale, IR_OP_COUNT, op_lookup, d);
		} else if (!strcmp(key, "activation_types")) {
			rc = name_list(doc, v, file, key, t->activation_types, IR_DTYPE_COUNT, dtype_lookup, d);
		} else if (!strcmp(key, "weight_types")) {
			rc = name_list(doc, v, file, key, t->weight_types, IR_DTYPE_COUNT, dtype_lookup, d);
		} else {
			return ir_fail(d, -1, -1, "%s: unknown key '%s' (see npu-target(5))", file, key);
		}
		if (rc)
			return -1;
	}
	if (!t->name || !have_family)
		return ir_fail(d, -1, -1, "%s: a profile needs 'name' and 'family'", file);
	return 0;
}

int npu_yaml_check(const uint8_t *buf, size_t size, const char *file, ir_diag *d)
{
	if (size > NPU_YAML_MAX_BYTES)
		return ir_fail(d, -1, -1, "%s: %zu bytes is too large for a configuration (at most %d)", file, size,
			       NPU_YAML_MAX_BYTES);
	/* Events only: linear, no document built, nothing resolved. */
	yaml_parser_t parser;
	yaml_event_t ev;
	if (!yaml_parser_initialize(&parser))
		return ir_fail(d, -1, -1, "out of memory");
	yaml_parser_set_input_string(&parser, buf, size);
	int rc = 0, anchors = 0, aliases = 0, depth = 0;
	for (bool done = false; !done && !rc;) {
		if (!yaml_parser_parse(&parser, &ev))
			break;	/* the loader reports syntax errors, with their line */
		size_t line = ev.start_mark.line + 1;
		const yaml_char_t *anchor = ev.type == YAML_SCALAR_EVENT ? ev.data.scalar.anchor :
			ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.anchor :
			ev.type == YAML_MAPPING_START_EVENT ? ev.data.mapping_start.anchor : NULL;
		anchors += anchor != NULL;
		aliases += ev.type == YAML_ALIAS_EVENT;
		depth += ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT;
		depth -= ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT;
		done = ev.type == YAML_STREAM_END_EVENT;
		if (anchors > NPU_YAML_MAX_ANCHORS || aliases > NPU_YAML_MAX_ANCHORS)
			rc = ir_fail(d, -1, -1, "%s:%zu: more than %d YAML %s (a configuration needs few)", file, line,
				     NPU_YAML_MAX_ANCHORS, anchors > NPU_YAML_MAX_ANCHORS ? "anchors" : "aliases");
		else if (depth > NPU_YAML_MAX_DEPTH)
			rc = ir_fail(d, -1, -1, "%s:%zu: nested deeper than %d levels", file, line, NPU_YAML_MAX_DEPTH);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

typedef struct {
	const char *key;
	size_t line, pos;	/* pos: order in the file */
} yaml_key;

static int key_cmp(const void *a, const void *b)
{
	const yaml_key *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

int npu_yaml_dup_key(const void *vdoc, size_t *line, size_t *first, const char **key)
{
	const yaml_document_t *doc = vdoc;
	int found = 0;
	*line = 0;
	/* every mapping once (aliases share nodes); sorted keys: O(k log k) */
	for (yaml_node_t *m = doc->nodes.start; m < doc->nodes.top; m++) {
		if (m->type != YAML_MAPPING_NODE)
			continue;
		size_t n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start), k = 0;
		yaml_key *v = n > 1 ? malloc(n * sizeof *v) : NULL;
		if (n > 1 && !v)
			return -1;
		for (yaml_node_pair_t *p = m->data.mapping.pairs.start; v && p < m->data.mapping.pairs.top; p++) {
			const yaml_node_t *kn = yaml_document_get_node((yaml_document_t *)doc, p->key);
			if (kn && kn->type == YAML_SCALAR_NODE)
				v[k++] = (yaml_key){(const char *)kn->data.scalar.value, kn->start_mark.line + 1,
						    kn->start_mark.index};
		}
		if (k > 1)
			qsort(v, k, sizeof *v, key_cmp);
		/* the first repetition in the file */
		for (size_t i = 1, g = 0; i < k; i++) {
			if (strcmp(v[i].key, v[g].key))
				g = i;
			else if (!found || v[i].line < *line) {
				found = 1;
				*line = v[i].line;
				*first = v[g].line;
				*key = v[i].key;
			}
		}
		free(v);
	}
	return found;
}

int npu_yaml_parse(const uint8_t *buf, size_t size, const char *file,
		   int (*fn)(void *doc, const char *file, void *arg, ir_diag *d), void *arg, ir_diag *d)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	if (npu_yaml_check(buf, size, file, d))
		return -1;
	if (!yaml_parser_initialize(&parser))
		return ir_fail(d, -1, -1, "out of memory");
	yaml_parser_set_input_string(&parser, buf, size);
	int rc;
	if (!yaml_parser_load(&parser, &doc)) {
		rc = ir_fail(d, -1, -1, "%s:%zu: %s", file, parser.problem_mark.line + 1,
			     parser.problem ? parser.problem : "not YAML");
	} else {
		size_t line, first;
		const char *key;
		int dup = npu_yaml_dup_key(&doc, &line, &first, &key);
		rc = dup < 0 ? ir_fail(d, -1, -1, "out of memory")
		   : dup ? ir_fail(d, -1, -1, "%s:%zu: key '%s' is given twice (first on line %zu)", file, line, key, first)
			 : fn(&doc, file, arg, d);
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	return rc;
}

static int parse_profile(void *doc, const char *file, void *t, ir_diag *d) { return parse_doc(doc, file, t, d); }

int npu_target_parse(const uint8_t *buf, size_t size, const char *file, npu_target *t, ir_diag *d)
{
	memset(t, 0, sizeof *t);
	if (size > MAX_PROFILE_BYTES)
		return ir_fail(d, -1, -1, "%s: too large for a target profile", file);
	int rc = npu_yaml_parse(buf, size, file, parse_profile, t, d);
	if (rc)
		npu_target_free(t);
	return rc;
}

/* <directory of this program>/../share/npu/targets, or $NPU_TARGETS */
static int targets_dir(char *out, size_t size)
{
	const char *env = getenv("NPU_TARGETS");
	if (env && *env)
		return snprintf(out, size, "%s", env) < (int)size ? 0 : -1;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return -1;
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = 0;
	return snprintf(out, size, "%s/../share/npu/targets", exe) < (int)size ? 0 : -1;
}

int npu_target_load(const char *arg, npu_target *t, ir_diag *d)
{
	char path[PATH_MAX + 64];
	size_t len = strlen(arg);
	memset(t, 0, sizeof *t);
	if (strchr(arg, '/') || (len > 5 && !strcmp(arg + len - 5, ".yaml"))) {
		snprintf(path, sizeof path, "%s", arg);
	} else {
		char dir[PATH_MAX];
		for (const char *c = arg; *c; c++)
			if (!(*c >= 'a' && *c <= 'z') && !(*c >= '0' && *c <= '9') && *c != '_' && *c != '-')
				return ir_fail(d, -1, -1, "target '%s': not a profile name or path", arg);
		if (targets_dir(dir, sizeof dir))
			return ir_fail(d, -1, -1, "target '%s': cannot find the profiles directory", arg);
		snprintf(path, sizeof path, "%s/%s.yaml", dir, arg);
	}
	const char *why;
	FILE *f = ir_fopen_regular(path, &why);
	if (!f)
		return ir_fail(d, -1, -1, "target '%s': %s: %s", arg, path, why);
	uint8_t *buf = malloc(MAX_PROFILE_BYTES + 1);
	size_t n = buf ? fread(buf, 1, MAX_PROFILE_BYTES + 1, f) : 0;
	int err = ferror(f);
	fclose(f);
	if (!buf || err) {
		free(buf);
		return ir_fail(d, -1, -1, "target '%s': cannot read %s", arg, path);
	}
	int rc = npu_target_parse(buf, n, strchr(arg, '/') ? arg : path, t, d);
	free(buf);
	return rc;
}

void npu_target_free(npu_target *t)
{
	free(t->name);
	free(t->description);
	memset(t, 0, sizeof *t);
}
