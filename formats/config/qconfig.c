/* qconfig.c - per-layer quantization settings from YAML/JSON (libyaml). */
#include "config/qconfig.h"
#include "config/target.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_CONFIG_BYTES (16 << 20)

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

void npu_qlayer_unset(ir_qlayer *l)
{
	*l = (ir_qlayer){.prec = IR_PREC_NONE, .wbits = 0, .wscheme = -1, .per_channel = -1};
}

int npu_qprecision_parse(const char *s)
{
	static const struct {
		const char *name;
		ir_precision p;
	} names[] = {
		{"float", IR_PREC_F32}, {"f32", IR_PREC_F32}, {"fp32", IR_PREC_F32}, {"fp16", IR_PREC_F16},
		{"f16", IR_PREC_F16}, {"int8", IR_PREC_I8}, {"i8", IR_PREC_I8}, {"8", IR_PREC_I8},
		{"int16", IR_PREC_I16}, {"i16", IR_PREC_I16}, {"16", IR_PREC_I16},
	};
	for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(s, names[i].name))
			return names[i].p;
	return -1;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	errno = 0;
	long v = s ? strtol(s, &end, 10) : 0;
	if (!s || !*s || *end || errno || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* One rule's value: a precision name, or a mapping of settings. */
static int parse_setting(yaml_document_t *doc, yaml_node_t *v, const char *file, const char *what, ir_qlayer *l,
			 ir_diag *d)
{
	int line = (int)v->start_mark.line + 1;
	npu_qlayer_unset(l);
	const char *s = scalar(v);
	if (s) {
		int p = npu_qprecision_parse(s);
		if (p < 0)
			return ir_fail(d, -1, -1, "%s:%d: %s: '%s' is not a precision (float, fp16, int8, int16)", file,
				       line, what, s);
		l->prec = (ir_precision)p;
		return 0;
	}
	if (v->type != YAML_MAPPING_NODE)
		return ir_fail(d, -1, -1, "%s:%d: %s: expected a precision or a mapping of settings", file, line, what);
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		const char *key = scalar(yaml_document_get_node(doc, p->key));
		yaml_node_t *vn = yaml_document_get_node(doc, p->value);
		const char *val = scalar(vn);
		line = (int)vn->start_mark.line + 1;
		if (!key || !val)
			return ir_fail(d, -1, -1, "%s:%d: %s: settings are 'key: value' pairs", file, line, what);
		if (!strcmp(key, "bits") || !strcmp(key, "precision")) {
			int pr = npu_qprecision_parse(val);
			if (pr < 0)
				return ir_fail(d, -1, -1, "%s:%d: %s: %s '%s' is not 8, 16, float or fp16", file, line,
					       what, key, val);
			l->prec = (ir_precision)pr;
		} else if (!strcmp(key, "method")) {
			if (ir_calib_method_parse(val, &l->method, d)) {
				char why[sizeof d->msg];
				snprintf(why, sizeof why, "%s", d->msg);
				return ir_fail(d, -1, -1, "%s:%d: %s: %s", file, line, what, why);
			}
			l->has_method = true;
		} else if (!strcmp(key, "weight_bits")) {
			if (parse_int(val, 2, 16, &l->wbits))
				return ir_fail(d, -1, -1, "%s:%d: %s: weight_bits '%s' is not 2..16", file, line, what, val);
		} else if (!strcmp(key, "weight_scheme") || !strcmp(key, "weight_method")) {
			if ((l->wscheme = ir_wq_scheme_parse(val, &l->per_channel)) < 0)
				return ir_fail(d, -1, -1, "%s:%d: %s: unknown weight scheme '%s'", file, line, what, val);
		} else if (!strcmp(key, "q_bits_activation")) {	/* Compass' per-layer names */
			if (strcmp(val, "8") && strcmp(val, "16"))
				return ir_fail(d, -1, -1, "%s:%d: %s: q_bits_activation '%s' is not 8 or 16", file, line,
					       what, val);
			l->prec = !strcmp(val, "8") ? IR_PREC_I8 : IR_PREC_I16;
		} else if (!strcmp(key, "q_bits_weight")) {
			if (parse_int(val, 2, 16, &l->wbits))
				return ir_fail(d, -1, -1, "%s:%d: %s: q_bits_weight '%s' is not 2..16", file, line, what, val);
		} else if (!strcmp(key, "q_mode_weight")) {
			if ((l->wscheme = ir_wq_scheme_parse(val, &l->per_channel)) < 0)
				return ir_fail(d, -1, -1, "%s:%d: %s: unknown q_mode_weight '%s'", file, line, what, val);
		} else if (!strcmp(key, "q_bits_bias")) {
			if (strcmp(val, "32"))
				return ir_fail(d, -1, -1, "%s:%d: %s: q_bits_bias '%s': biases are 32-bit here", file, line,
					       what, val);
		} else if (!strcmp(key, "per_channel")) {
			if (strcmp(val, "true") && strcmp(val, "false"))
				return ir_fail(d, -1, -1, "%s:%d: %s: per_channel must be true or false", file, line, what);
			l->per_channel = !strcmp(val, "true");
		} else {
			return ir_fail(d, -1, -1, "%s:%d: %s: unknown setting '%s' (bits, method, weight_bits, weight_scheme, "
				       "per_channel; Compass' q_bits_activation, q_bits_weight, q_bits_bias, q_mode_weight)",
				       file, line, what, key);
		}
	}
	return 0;
}

/* One rule: name (kn) -> settings (vn). */
static int add_rule(yaml_document_t *doc, yaml_node_t *kn, yaml_node_t *vn, const char *file, bool is_op, npu_qconfig *c,
		    ir_diag *d)
{
	const char *name = scalar(kn);
	if (!name || !*name)
		return ir_fail(d, -1, -1, "%s:%d: names must be strings", file, (int)kn->start_mark.line + 1);
	if (is_op && ir_op_from_name(name) < 0)
		return ir_fail(d, -1, -1, "%s:%d: unknown op '%s'", file, (int)kn->start_mark.line + 1, name);
	npu_qrule *r = realloc(c->rules, sizeof *r * (size_t)(c->n + 1));
	if (!r)
		return ir_fail(d, -1, -1, "out of memory");
	c->rules = r;
	r = &c->rules[c->n];
	*r = (npu_qrule){.name = strdup(name), .is_op = is_op, .line = (int)kn->start_mark.line + 1};
	if (!r->name)
		return ir_fail(d, -1, -1, "out of memory");
	c->n++;
	char what[300];
	snprintf(what, sizeof what, "%s '%s'", is_op ? "op" : "layer", name);
	return parse_setting(doc, vn, file, what, &r->l, d);
}

static int parse_rules(yaml_document_t *doc, yaml_node_t *v, const char *file, bool is_op, npu_qconfig *c,
		       ir_diag *d)
{
	if (v->type != YAML_MAPPING_NODE)
		return ir_fail(d, -1, -1, "%s:%d: '%s' must map names to settings", file, (int)v->start_mark.line + 1,
			       is_op ? "ops" : "layers");
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++)
		if (add_rule(doc, yaml_document_get_node(doc, p->key), yaml_document_get_node(doc, p->value), file, is_op,
			     c, d))
			return -1;
	return 0;
}

/* Compass' per-layer form (its opt_config JSON): a layer's name mapping to
 * settings whose first is one of its q_* keys. */
static bool compass_layer(yaml_document_t *doc, yaml_node_t *v)
{
	if (v->type != YAML_MAPPING_NODE || v->data.mapping.pairs.start == v->data.mapping.pairs.top)
		return false;
	const char *k = scalar(yaml_document_get_node(doc, v->data.mapping.pairs.start->key));
	return k && !strncmp(k, "q_", 2);
}

static int parse_doc(yaml_document_t *doc, const char *file, npu_qconfig *c, ir_diag *d)
{
	yaml_node_t *root = yaml_document_get_root_node(doc);
	if (!root || root->type != YAML_MAPPING_NODE)
		return ir_fail(d, -1, -1, "%s: a quantization config is a mapping (default, layers, ops)", file);
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const char *key = scalar(yaml_document_get_node(doc, p->key));
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		int rc;
		if (key && !strcmp(key, "default")) {
			rc = parse_setting(doc, v, file, "default", &c->def, d);
			c->has_default = true;
		} else if (key && (!strcmp(key, "layers") || !strcmp(key, "ops"))) {
			rc = parse_rules(doc, v, file, !strcmp(key, "ops"), c, d);
		} else if (key && compass_layer(doc, v)) {
			rc = add_rule(doc, yaml_document_get_node(doc, p->key), v, file, false, c, d);
		} else {
			return ir_fail(d, -1, -1, "%s:%d: unknown key '%s' (default, layers, ops, or a layer's name with "
				       "Compass' q_* settings)", file,
				       (int)v->start_mark.line + 1, key ? key : "?");
		}
		if (rc)
			return -1;
	}
	return 0;
}

static int parse_config(void *doc, const char *file, void *c, ir_diag *d) { return parse_doc(doc, file, c, d); }

int npu_qconfig_parse(const uint8_t *buf, size_t size, const char *file, npu_qconfig *c, ir_diag *d)
{
	memset(c, 0, sizeof *c);
	npu_qlayer_unset(&c->def);
	if (size > MAX_CONFIG_BYTES)
		return ir_fail(d, -1, -1, "%s: too large for a quantization config", file);
	int rc = npu_yaml_parse(buf, size, file, parse_config, c, d);
	if (rc)
		npu_qconfig_free(c);
	return rc;
}

void npu_qconfig_free(npu_qconfig *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->rules[i].name);
	free(c->rules);
	memset(c, 0, sizeof *c);
}

/* Fields set in src override dst's. */
static void overlay(ir_qlayer *dst, const ir_qlayer *src)
{
	if (src->prec != IR_PREC_NONE)
		dst->prec = src->prec;
	if (src->wbits)
		dst->wbits = src->wbits;
	if (src->wscheme >= 0)
		dst->wscheme = src->wscheme;
	if (src->per_channel >= 0)
		dst->per_channel = src->per_channel;
	if (src->has_method)
		dst->has_method = true, dst->method = src->method;
}

static bool op_rule_hits(const npu_qrule *r, const ir_graph *g, const int *was_op, int i)
{
	int op = ir_op_from_name(r->name);
	return ir_graph_node(g, i)->op == op || (was_op && was_op[i] == op);
}

int npu_qconfig_apply(const npu_qconfig *c, const ir_graph *g, const int *was_op, ir_qlayer *layers,
		      const char *file, ir_diag *d)
{
	int nn = ir_graph_node_count(g), bad = 0;
	char missing[400] = "";
	for (int r = 0; r < c->n; r++) {
		bool hit = false;
		for (int i = 0; i < nn; i++) {
			const ir_node *n = ir_graph_node(g, i);
			hit |= c->rules[r].is_op ? op_rule_hits(&c->rules[r], g, was_op, i) : !strcmp(n->name, c->rules[r].name);
		}
		if (!hit && c->rules[r].is_op)
			continue;	/* an op the model does not use is fine */
		if (!hit) {
			size_t len = strlen(missing);
			snprintf(missing + len, sizeof missing - len, "%s'%s' (line %d)", bad ? ", " : "",
				 c->rules[r].name, c->rules[r].line);
			bad++;
		}
	}
	if (bad)
		return ir_fail(d, -1, -1, "%s: %s %s no node of the graph (npu-dump lists them)", file, missing,
			       bad == 1 ? "names" : "name");
	for (int i = 0; i < nn; i++) {
		const ir_node *n = ir_graph_node(g, i);
		if (c->has_default)
			overlay(&layers[i], &c->def);
		for (int r = 0; r < c->n; r++)
			if (c->rules[r].is_op && op_rule_hits(&c->rules[r], g, was_op, i))
				overlay(&layers[i], &c->rules[r].l);
		for (int r = 0; r < c->n; r++)
			if (!c->rules[r].is_op && !strcmp(n->name, c->rules[r].name))
				overlay(&layers[i], &c->rules[r].l);
	}
	return 0;
}
