/* npu-dump - show an IR stream: a listing of the graph, its memory and
 * weights, or all of it as JSON or Graphviz. See npu-dump(1). */
#include "ir_cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { VIEW_LIST, VIEW_MEMORY, VIEW_WEIGHTS, VIEW_JSON, VIEW_DOT, VIEW_HISTORY } view;

typedef struct {
	const char *in;		/* IR file, "-" or NULL: stdin */
	const char *out;	/* text file, NULL: stdout */
	view view;
	const char *view_flag;	/* the option that chose the view, for messages */
	bool io_outside;	/* -m: graph inputs and outputs outside the arena */
} options;

/* ---------------------------------------------------------------- small helpers */

/* "1x3x224x224" in a buffer that lives until the end of the statement. */
#define SHAPE(t) ir_shape_str(&(t)->shape, (char[160]){0}, 160)

/* A number as %g, but NaN always as "nan" (printf may write "-nan"). */
#define NUM(v) num_str((v), (char[32]){0}, 32)
static const char *num_str(double v, char *buf, size_t size)
{
	if (isnan(v))
		return "nan";
	snprintf(buf, size, "%g", v);
	return buf;
}

/* Sum that sticks at INT64_MAX instead of overflowing (sizes come from files). */
static int64_t add_sat(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int max_int(int a, int b) { return a > b ? a : b; }

static bool is_const(const ir_graph *g, int t)
{
	const ir_tensor *x = ir_graph_tensor(g, t);
	return x && x->kind == IR_KIND_CONST;
}

static const char *meta_str(const ir_graph *g, const char *key)
{
	const ir_meta *m = ir_meta_get(g, key);
	return m && m->type == IR_META_STR ? m->s : NULL;
}

/* A name padded with spaces to width characters. */
static void put_name(FILE *f, const char *s, int width)
{
	for (int n = cli_put_text(f, s, NULL); n < width; n++)
		fputc(' ', f);
}

static int text_width(const char *s) { return cli_put_text(NULL, s, NULL); }

static void print_meta_value(FILE *f, const ir_meta *m)
{
	switch (m->type) {
	case IR_META_STR: cli_put_text(f, m->s, NULL); break;
	case IR_META_INT: fprintf(f, "%" PRId64, m->i); break;
	case IR_META_FLOAT: fputs(NUM(m->f), f); break;
	case IR_META_BOOL: fputs(m->i ? "true" : "false", f); break;
	}
}

/* A history argument as a shell word: quoted only when it needs to be. */
static void print_shell_word(FILE *f, const char *s)
{
	static const char *const quote[128] = {['\''] = "'\\''"};
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_-+=./:,@%^") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	cli_put_text(f, s, quote);
	fputc('\'', f);
}

static void print_history_entry(FILE *f, const ir_history *h)
{
	cli_put_text(f, h->program, NULL);
	fputc(' ', f);
	cli_put_text(f, h->version, NULL);
	for (int a = 0; a < h->argc; a++) {
		fputc(' ', f);
		print_shell_word(f, h->argv[a]);
	}
	fputc('\n', f);
}

/* Attribute values: ints and floats joined by commas, "[]" if empty. */
static void print_attr_value(FILE *f, const ir_attr *a)
{
	switch (a->type) {
	case IR_ATTR_INT: fprintf(f, "%" PRId64, a->i); return;
	case IR_ATTR_FLOAT: fputs(NUM(a->f), f); return;
	case IR_ATTR_STR: cli_put_text(f, a->s, NULL); return;
	case IR_ATTR_INTS:
	case IR_ATTR_FLOATS:
		if (!a->n)
			fputs("[]", f);
		for (int i = 0; i < a->n; i++) {
			if (a->type == IR_ATTR_INTS)
				fprintf(f, "%s%" PRId64, i ? "," : "", a->ints[i]);
			else
				fprintf(f, "%s%s", i ? "," : "", NUM(a->floats[i]));
		}
		return;
	}
}

/* ---------------------------------------------------------------- text views */

/* "model: FILE (framework opset N, producer)" and the counts; with -v the
 * metadata and the history too. Shared by the listing, -m and -w. */
static void print_header(FILE *f, const ir_graph *g)
{
	const char *file = meta_str(g, "source.file"), *fw = meta_str(g, "source.framework");
	const char *producer = meta_str(g, "source.producer");
	const ir_meta *opset = ir_meta_get(g, "source.opset");
	bool has_opset = opset && opset->type == IR_META_INT;
	fputs("model: ", f);
	cli_put_text(f, file ? file : "-", NULL);
	if (fw || has_opset || producer) {
		fputs(" (", f);
		cli_put_text(f, fw ? fw : "", NULL);
		if (has_opset)
			fprintf(f, "%sopset %" PRId64, fw ? " " : "", opset->i);
		if (producer) {
			fputs(fw || has_opset ? ", " : "", f);
			cli_put_text(f, producer, NULL);
		}
		fputc(')', f);
	}
	int count[IR_KIND_COUNT] = {0};
	for (int t = 0; t < ir_graph_tensor_count(g); t++)
		count[ir_graph_tensor(g, t)->kind]++;
	fprintf(f, "\ngraph: %d nodes, %d tensors (", ir_graph_node_count(g), ir_graph_tensor_count(g));
	for (int k = 0, first = 1; k < IR_KIND_COUNT; k++)
		if (count[k]) {
			fprintf(f, "%s%d %s", first ? "" : ", ", count[k], ir_kind_name(k));
			first = 0;
		}
	fputs(")\n", f);
	/* what npu-layout leaves (and what a layout would remove) */
	const ir_meta *lay = ir_meta_get(g, "layout.to");
	int ntr = ir_graph_transpose_count(g);
	if (ntr || lay)
		fprintf(f, "transposes: %d%s%s\n", ntr, lay && lay->type == IR_META_STR ? ", layout " : "",
			lay && lay->type == IR_META_STR ? lay->s : "");
	if (cli_verbose < 1)
		return;
	fputs("meta:\n", f);
	for (int i = 0; i < ir_meta_count(g); i++) {
		const ir_meta *m = ir_meta_at(g, i);
		fputs("  ", f);
		cli_put_text(f, m->key, NULL);
		fputs(" = ", f);
		print_meta_value(f, m);
		fputc('\n', f);
	}
	fputs("history:\n", f);
	for (int i = 0; i < ir_history_count(g); i++) {
		fputs("  ", f);
		print_history_entry(f, ir_history_at(g, i));
	}
}

/* Widths of the node name and op columns. */
static void node_columns(const ir_graph *g, int *name_w, int *op_w)
{
	*name_w = 4, *op_w = 2;
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		*name_w = max_int(*name_w, text_width(n->name));
		*op_w = max_int(*op_w, (int)strlen(ir_op_name(n->op)));
	}
}

/* "   12  name  op  " of a node line. */
static void print_node_start(FILE *f, const ir_graph *g, int i, int name_w, int op_w)
{
	const ir_node *n = ir_graph_node(g, i);
	fprintf(f, "  %4d  ", i);
	put_name(f, n->name, name_w);
	fprintf(f, "  %-*s  ", op_w, ir_op_name(n->op));
}

/* The graph's inputs and outputs: name, dtype, shape, layout. */
static void print_interface(FILE *f, const ir_graph *g)
{
	static const struct {
		const char *title;
		int (*count)(const ir_graph *);
		int (*id)(const ir_graph *, int);
	} side[] = {{"inputs", ir_graph_input_count, ir_graph_input}, {"outputs", ir_graph_output_count, ir_graph_output}};
	int nw = 0, sw = 0;
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < side[s].count(g); i++) {
			const ir_tensor *t = ir_graph_tensor(g, side[s].id(g, i));
			nw = max_int(nw, text_width(t->name));
			sw = max_int(sw, (int)strlen(SHAPE(t)));
		}
	for (int s = 0; s < 2; s++) {
		fprintf(f, "%s:\n", side[s].title);
		for (int i = 0; i < side[s].count(g); i++) {
			const ir_tensor *t = ir_graph_tensor(g, side[s].id(g, i));
			const char *layout = ir_layout_name(t->layout);
			fputs("  ", f);
			put_name(f, t->name, nw);
			fprintf(f, "  %-4s  %-*s  %s\n", ir_dtype_name(t->dtype), sw, SHAPE(t), *layout ? layout : "-");
		}
	}
}

/* "f32 1x8x16x16"; constants in brackets, absent optional inputs "-". */
static void print_operands(FILE *f, const ir_graph *g, const int *ids, int n)
{
	for (int i = 0; i < n; i++) {
		const ir_tensor *t = ir_graph_tensor(g, ids[i]);
		fputs(i ? ", " : "", f);
		if (!t)
			fputs("-", f);
		else
			fprintf(f, t->kind == IR_KIND_CONST ? "[%s %s]" : "%s %s", ir_dtype_name(t->dtype), SHAPE(t));
	}
}

static void view_list(FILE *f, const ir_graph *g)
{
	int nw, ow;
	node_columns(g, &nw, &ow);
	print_header(f, g);
	fputc('\n', f);
	print_interface(f, g);
	fprintf(f, "\nnodes:\n  %4s  %-*s  %-*s  inputs -> outputs  attributes\n", "#", nw, "name", ow, "op");
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		print_node_start(f, g, i, nw, ow);
		print_operands(f, g, n->inputs, n->n_inputs);
		fputs(" -> ", f);
		print_operands(f, g, n->outputs, n->n_outputs);
		for (int a = 0; a < n->n_attrs; a++) {
			fputs(a ? " " : "  ", f);
			cli_put_text(f, n->attrs[a].name, NULL);
			fputc('=', f);
			print_attr_value(f, &n->attrs[a]);
		}
		if (n->precision != IR_PREC_NONE)
			fprintf(f, "  precision=%s", ir_precision_name(n->precision));
		if (cli_verbose >= 1 && n->origin) {
			fputs("  origin=", f);
			cli_put_text(f, n->origin, NULL);
		}
		fputc('\n', f);
	}
}

/* Activation bytes read and written, constant bytes read, and MACs of a node. */
typedef struct {
	int64_t in, out, weights, macs;
} node_cost;

static node_cost cost_of(const ir_graph *g, int id)
{
	const ir_node *n = ir_graph_node(g, id);
	node_cost c = {.macs = ir_node_macs(g, id)};
	for (int i = 0; i < n->n_inputs; i++) {
		const ir_tensor *t = ir_graph_tensor(g, n->inputs[i]);
		if (t && t->kind == IR_KIND_CONST)
			c.weights = add_sat(c.weights, (int64_t)ir_tensor_nbytes(t));
		else if (t)
			c.in = add_sat(c.in, (int64_t)ir_tensor_nbytes(t));
	}
	for (int i = 0; i < n->n_outputs; i++)
		c.out = add_sat(c.out, (int64_t)ir_tensor_nbytes(ir_graph_tensor(g, n->outputs[i])));
	return c;
}

/* Node i's outputs' arena offsets, joined by commas ("-": not in the arena). */
static void print_offsets(FILE *f, const ir_graph *g, const ir_plan *p, int i)
{
	const ir_node *n = ir_graph_node(g, i);
	char buf[128] = "", *at = buf;
	for (int k = 0; k < n->n_outputs && at < buf + sizeof buf - 24; k++) {
		int t = n->outputs[k];
		int64_t off = p && t >= 0 && t < p->n ? p->buf[t].offset : -1;
		at += off >= 0 ? sprintf(at, "%s%" PRId64, k ? "," : "", off) : sprintf(at, "%s-", k ? "," : "");
	}
	fprintf(f, "  %12s", buf);
}

static void view_memory(FILE *f, const ir_graph *g, const options *o)
{
	int nw, ow, peak_node = -1, n_const = 0, n_act = 0;
	int64_t macs = 0, weights = 0, acts = 0, peak = 0;
	ir_plan plan;
	ir_diag d;
	ir_plan_opts po = {.io_outside = o->io_outside};
	bool planned = ir_plan_make(g, &po, &plan, &d) == 0;
	node_columns(g, &nw, &ow);
	print_header(f, g);
	fprintf(f, "\n  %4s  %-*s  %-*s  %10s  %10s  %10s  %12s  %12s\n", "#", nw, "name", ow, "op",
		"in bytes", "out bytes", "weights", "MACs", "arena offset");
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		node_cost c = cost_of(g, i);
		print_node_start(f, g, i, nw, ow);
		fprintf(f, "%10" PRId64 "  %10" PRId64 "  %10" PRId64 "  %12" PRId64, c.in, c.out, c.weights, c.macs);
		print_offsets(f, g, planned ? &plan : NULL, i);
		fputc('\n', f);
		macs = add_sat(macs, c.macs);
		if (peak_node < 0 || add_sat(c.in, c.out) > peak) {
			peak = add_sat(c.in, c.out);
			peak_node = i;
		}
	}
	/* Totals count every tensor once, however many nodes read it. */
	for (int t = 0; t < ir_graph_tensor_count(g); t++) {
		const ir_tensor *x = ir_graph_tensor(g, t);
		if (x->kind == IR_KIND_CONST)
			weights = add_sat(weights, (int64_t)ir_tensor_nbytes(x)), n_const++;
		else
			acts = add_sat(acts, (int64_t)ir_tensor_nbytes(x)), n_act++;
	}
	fprintf(f, "\ntotal MACs:        %" PRId64 "\n", macs);
	fprintf(f, "weight bytes:      %" PRId64 " (%d constants)\n", weights, n_const);
	fprintf(f, "activation bytes:  %" PRId64 " (%d tensors, without buffer reuse)\n", acts, n_act);
	fprintf(f, "peak node in+out:  %" PRId64, peak);
	if (peak_node >= 0) {
		fprintf(f, " (node %d '", peak_node);
		cli_put_text(f, ir_graph_node(g, peak_node)->name, NULL);
		fputs("')", f);
	}
	fputc('\n', f);
	if (!planned) {
		fputs("arena:             - (", f);
		cli_put_text(f, d.msg, NULL);
		fputs(")\n", f);
		return;
	}
	cli_print_plan(f, g, &plan, cli_verbose >= 2);
	ir_plan_free(&plan);
}

/* Quantization parameters, abbreviated: per-channel values as their range. */
static void print_quant(FILE *f, const ir_quant *q)
{
	fprintf(f, "q%d %s", q->bits, q->symmetric ? "sym" : "asym");
	if (q->n > 1)
		fprintf(f, " axis=%d n=%d", q->axis, q->n);
	double smin = q->n ? q->scale[0] : 0, smax = smin;
	int64_t zmin = q->n ? q->zero_point[0] : 0, zmax = zmin;
	for (int i = 1; i < q->n; i++) {
		smin = fmin(smin, q->scale[i]), smax = fmax(smax, q->scale[i]);
		zmin = q->zero_point[i] < zmin ? q->zero_point[i] : zmin;
		zmax = q->zero_point[i] > zmax ? q->zero_point[i] : zmax;
	}
	fprintf(f, " scale=%s", NUM(smin));
	if (smax != smin)
		fprintf(f, "..%s", NUM(smax));
	fprintf(f, " zp=%" PRId64, zmin);
	if (zmax != zmin)
		fprintf(f, "..%" PRId64, zmax);
	if (q->has_range)
		fprintf(f, " range=%s..%s", NUM(q->range_min), NUM(q->range_max));
}

/* Every constant with statistics of its values. */
static void view_weights(FILE *f, const ir_graph *g)
{
	int nw = 4, sw = 5, n = 0;
	int64_t total = 0;
	for (int t = 0; t < ir_graph_tensor_count(g); t++) {
		const ir_tensor *x = ir_graph_tensor(g, t);
		if (x->kind == IR_KIND_CONST) {
			nw = max_int(nw, text_width(x->name));
			sw = max_int(sw, (int)strlen(SHAPE(x)));
		}
	}
	print_header(f, g);
	fprintf(f, "\n  %-*s  %-5s  %-*s  %10s  %12s  %12s  %12s  %12s  quant\n", nw, "name", "dtype", sw,
		"shape", "bytes", "min", "max", "mean", "std");
	for (int t = 0; t < ir_graph_tensor_count(g); t++) {
		const ir_tensor *x = ir_graph_tensor(g, t);
		if (x->kind != IR_KIND_CONST)
			continue;
		int64_t numel = x->data ? ir_shape_numel(&x->shape) : 0;
		double lo = INFINITY, hi = -INFINITY, sum = 0, dev = 0;
		for (int64_t i = 0; i < numel; i++) {
			double v = ir_elem_get(x->data, x->dtype, i);
			lo = fmin(lo, v), hi = fmax(hi, v), sum += v;
		}
		double mean = numel > 0 ? sum / (double)numel : 0;
		for (int64_t i = 0; i < numel; i++) {
			double d = ir_elem_get(x->data, x->dtype, i) - mean;
			dev += d * d;
		}
		fputs("  ", f);
		put_name(f, x->name, nw);
		fprintf(f, "  %-5s  %-*s  %10zu", ir_dtype_name(x->dtype), sw, SHAPE(x), x->nbytes);
		if (numel > 0)
			fprintf(f, "  %12s  %12s  %12s  %12s", NUM(lo), NUM(hi), NUM(mean), NUM(sqrt(dev / (double)numel)));
		else
			fprintf(f, "  %12s  %12s  %12s  %12s", "-", "-", "-", "-");
		if (x->quant) {
			fputs("  ", f);
			print_quant(f, x->quant);
		}
		fputc('\n', f);
		total = add_sat(total, (int64_t)x->nbytes);
		n++;
	}
	fprintf(f, "\n%d constants, %" PRId64 " bytes\n", n, total);
}

static void view_history(FILE *f, const ir_graph *g)
{
	for (int i = 0; i < ir_history_count(g); i++)
		print_history_entry(f, ir_history_at(g, i));
}

/* ---------------------------------------------------------------- JSON */

/* A JSON string: UTF-8 passes through, control characters are escaped and
 * bytes that are not UTF-8 become U+FFFD, so the output always parses. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		int len = cli_utf8_len(p);
		if (!len)
			fputs("\\ufffd", f), len = 1;
		else if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fwrite(p, 1, (size_t)len, f);
		p += len;
	}
	fputc('"', f);
}

/* Finite numbers with 9 significant digits (exact for floats); "nan",
 * "inf", "-inf" as strings, which JSON has no numbers for. */
static void json_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("\"nan\"", f);
	else if (isinf(v))
		fputs(v > 0 ? "\"inf\"" : "\"-inf\"", f);
	else
		fprintf(f, "%.9g", v);
}

static void json_tensor_name(FILE *f, const ir_graph *g, int id)
{
	const ir_tensor *t = ir_graph_tensor(g, id);
	if (t)
		json_str(f, t->name);
	else
		fputs("null", f);
}

static void json_names(FILE *f, const ir_graph *g, int n, const int *ids, int (*id)(const ir_graph *, int))
{
	fputc('[', f);
	for (int i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		json_tensor_name(f, g, ids ? ids[i] : id(g, i));
	}
	fputc(']', f);
}

static void json_quant(FILE *f, const ir_quant *q)
{
	fprintf(f, ", \"quant\": {\"bits\": %d, \"symmetric\": %s, \"axis\": %d, \"scale\": [",
		q->bits, q->symmetric ? "true" : "false", q->axis);
	for (int i = 0; i < q->n; i++) {
		fputs(i ? ", " : "", f);
		json_num(f, q->scale[i]);
	}
	fputs("], \"zero_point\": [", f);
	for (int i = 0; i < q->n; i++)
		fprintf(f, "%s%d", i ? ", " : "", (int)q->zero_point[i]);
	fputc(']', f);
	if (q->has_range) {
		fputs(", \"range\": [", f);
		json_num(f, q->range_min);
		fputs(", ", f);
		json_num(f, q->range_max);
		fputc(']', f);
	}
	fputc('}', f);
}

static void json_attr(FILE *f, const ir_attr *a)
{
	json_str(f, a->name);
	fputs(": ", f);
	switch (a->type) {
	case IR_ATTR_INT: fprintf(f, "%" PRId64, a->i); return;
	case IR_ATTR_FLOAT: json_num(f, a->f); return;
	case IR_ATTR_STR: json_str(f, a->s); return;
	case IR_ATTR_INTS:
	case IR_ATTR_FLOATS:
		fputc('[', f);
		for (int i = 0; i < a->n; i++) {
			fputs(i ? ", " : "", f);
			if (a->type == IR_ATTR_INTS)
				fprintf(f, "%" PRId64, a->ints[i]);
			else
				json_num(f, a->floats[i]);
		}
		fputc(']', f);
		return;
	}
}

static void json_meta(FILE *f, const ir_graph *g, int i)
{
	const ir_meta *m = ir_meta_at(g, i);
	json_str(f, m->key);
	fputs(": ", f);
	switch (m->type) {
	case IR_META_STR: json_str(f, m->s); break;
	case IR_META_INT: fprintf(f, "%" PRId64, m->i); break;
	case IR_META_FLOAT: json_num(f, m->f); break;
	case IR_META_BOOL: fputs(m->i ? "true" : "false", f); break;
	}
}

static void json_history(FILE *f, const ir_graph *g, int i)
{
	const ir_history *h = ir_history_at(g, i);
	fputs("{\"program\": ", f);
	json_str(f, h->program);
	fputs(", \"version\": ", f);
	json_str(f, h->version);
	fputs(", \"args\": [", f);
	for (int a = 0; a < h->argc; a++) {
		fputs(a ? ", " : "", f);
		json_str(f, h->argv[a]);
	}
	fputs("]}", f);
}

static void json_tensor(FILE *f, const ir_graph *g, int i)
{
	const ir_tensor *t = ir_graph_tensor(g, i);
	const char *layout = ir_layout_name(t->layout);
	fprintf(f, "{\"id\": %d, \"name\": ", i);
	json_str(f, t->name);
	fprintf(f, ", \"dtype\": \"%s\", \"shape\": [", ir_dtype_name(t->dtype));
	for (int d = 0; d < t->shape.rank; d++)
		fprintf(f, "%s%" PRId64, d ? ", " : "", t->shape.dim[d]);
	fprintf(f, *layout ? "], \"layout\": \"%s\"" : "], \"layout\": null%s", layout);
	fprintf(f, ", \"kind\": \"%s\", \"nbytes\": %zu", ir_kind_name(t->kind), ir_tensor_nbytes(t));
	if (t->quant)
		json_quant(f, t->quant);
	fputc('}', f);
}

static void json_node(FILE *f, const ir_graph *g, int i)
{
	const ir_node *n = ir_graph_node(g, i);
	fprintf(f, "{\"id\": %d, \"name\": ", i);
	json_str(f, n->name);
	fprintf(f, ", \"op\": \"%s\", \"inputs\": ", ir_op_name(n->op));
	json_names(f, g, n->n_inputs, n->inputs, NULL);
	fputs(", \"outputs\": ", f);
	json_names(f, g, n->n_outputs, n->outputs, NULL);
	fputs(", \"attrs\": {", f);
	for (int a = 0; a < n->n_attrs; a++) {
		fputs(a ? ", " : "", f);
		json_attr(f, &n->attrs[a]);
	}
	fputc('}', f);
	if (n->precision != IR_PREC_NONE)
		fprintf(f, ", \"precision\": \"%s\"", ir_precision_name(n->precision));
	if (n->origin) {
		fputs(", \"origin\": ", f);
		json_str(f, n->origin);
	}
	fputc('}', f);
}

/* The whole graph but the constants' bytes, one entry of each section per
 * line so that diff and grep work on it too. */
static void view_json(FILE *f, const ir_graph *g)
{
	static const struct {
		const char *key, *brackets;
		int (*count)(const ir_graph *);
		void (*entry)(FILE *, const ir_graph *, int);
	} sections[] = {
		{"meta", "{}", ir_meta_count, json_meta},
		{"history", "[]", ir_history_count, json_history},
		{"tensors", "[]", ir_graph_tensor_count, json_tensor},
		{"nodes", "[]", ir_graph_node_count, json_node},
	};
	fprintf(f, "{\n  \"format_version\": %d,\n", IR_FORMAT_VERSION);
	for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
		int n = sections[s].count(g);
		fprintf(f, "  \"%s\": %c", sections[s].key, sections[s].brackets[0]);
		for (int i = 0; i < n; i++) {
			fputs(i ? ",\n    " : "\n    ", f);
			sections[s].entry(f, g, i);
		}
		fprintf(f, "%s%c,\n", n ? "\n  " : "", sections[s].brackets[1]);
	}
	fputs("  \"inputs\": ", f);
	json_names(f, g, ir_graph_input_count(g), NULL, ir_graph_input);
	fputs(",\n  \"outputs\": ", f);
	json_names(f, g, ir_graph_output_count(g), NULL, ir_graph_output);
	fputs("\n}\n", f);
}

/* ---------------------------------------------------------------- Graphviz */

/* A quoted DOT string "NAME\nSECOND" (SECOND may be NULL). */
static void dot_label(FILE *f, const char *name, const char *second)
{
	static const char *const quote[128] = {['"'] = "\\\"", ['\\'] = "\\\\"};
	fputc('"', f);
	cli_put_text(f, name, quote);
	if (second)
		fprintf(f, "\\n%s", second);
	fputc('"', f);
}

static void dot_ellipse(FILE *f, const char *id, const ir_tensor *t)
{
	char desc[192];
	snprintf(desc, sizeof desc, "%s %s", ir_dtype_name(t->dtype), SHAPE(t));
	fprintf(f, "  %s [shape=ellipse, label=", id);
	dot_label(f, t->name, desc);
	fputs("];\n", f);
}

/* The DOT id of what feeds tensor t: its producer, or its own ellipse. */
static void dot_source(FILE *f, const ir_graph *g, int t)
{
	int p = ir_graph_producer(g, t);
	if (p >= 0)
		fprintf(f, "n%d", p);
	else
		fprintf(f, "t%d", t);
}

/* Nodes as boxes, graph inputs and outputs as ellipses, edges labelled with
 * the tensor's shape; constants are left out. */
static void view_dot(FILE *f, const ir_graph *g)
{
	const char *file = meta_str(g, "source.file");
	char id[24];
	fputs("digraph ", f);
	dot_label(f, file ? file : "npu", NULL);
	fputs(" {\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
	      "  edge [fontname=\"Helvetica\", fontsize=9];\n", f);
	for (int t = 0; t < ir_graph_tensor_count(g); t++)
		if (!is_const(g, t) && ir_graph_producer(g, t) < 0) {
			snprintf(id, sizeof id, "t%d", t);
			dot_ellipse(f, id, ir_graph_tensor(g, t));
		}
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		fprintf(f, "  n%d [label=", i);
		dot_label(f, n->name, ir_op_name(n->op));
		fputs("];\n", f);
	}
	for (int i = 0; i < ir_graph_node_count(g); i++) {
		const ir_node *n = ir_graph_node(g, i);
		for (int k = 0; k < n->n_inputs; k++) {
			int t = n->inputs[k];
			if (t < 0 || is_const(g, t))
				continue;
			fputs("  ", f);
			dot_source(f, g, t);
			fprintf(f, " -> n%d [label=\"%s\"];\n", i, SHAPE(ir_graph_tensor(g, t)));
		}
	}
	for (int i = 0; i < ir_graph_output_count(g); i++) {
		int t = ir_graph_output(g, i);
		snprintf(id, sizeof id, "out%d", i);
		dot_ellipse(f, id, ir_graph_tensor(g, t));
		fputs("  ", f);
		dot_source(f, g, t);
		fprintf(f, " -> %s [label=\"%s\"];\n", id, SHAPE(ir_graph_tensor(g, t)));
	}
	fputs("}\n", f);
}

/* ---------------------------------------------------------------- main */

static void help(void)
{
	printf("Usage: %s [IR|-] [-m [--io-outside]|-w|--json|--dot|--history] [-o OUT] [-v|-q]\n"
	       "Show an npukit IR stream: by default a listing of its inputs, outputs and\n"
	       "nodes (op, input and output shapes, attributes).\n"
	       "\n"
	       "  -m, --memory     per node: activation bytes in and out, weight bytes, MACs,\n"
	       "                   the arena offsets of its outputs; totals, the arena size\n"
	       "                   and its lower bound (-v -v: a timeline of the buffers)\n"
	       "      --io-outside (-m) plan graph inputs and outputs outside the arena\n"
	       "  -w, --weights    per constant: shape, bytes, min, max, mean, std, quantization\n"
	       "      --json       the whole IR but the weight bytes as JSON\n"
	       "      --dot        the graph for Graphviz (dot -Tsvg)\n"
	       "      --history    the programs that made the stream, one per line\n"
	       "  -o, --out FILE   write to FILE (default: standard output)\n"
	       "  -v, --verbose    also show the metadata and history (listing, -m, -w)\n"
	       "                   and the nodes' origins (listing)\n"
	       "  -q, --quiet      no warnings\n"
	       "      --help       show this help and exit\n"
	       "  -V, --version    show the version and exit\n"
	       "\n"
	       "One view at a time. Exit status: 0 success, 1 the IR cannot be read or\n"
	       "writing failed, 2 usage.\n", cli_prog);
	exit(fclose(stdout) ? CLI_FAIL : CLI_OK);
}

static void set_view(options *o, view v, const char *flag)
{
	if (o->view_flag && o->view != v)
		cli_usage("%s and %s cannot be combined (one view at a time)", o->view_flag, flag);
	o->view = v;
	o->view_flag = flag;
}

static void parse_args(int argc, char **argv, options *o)
{
	enum { OPT_JSON = 256, OPT_DOT, OPT_HISTORY, OPT_IO_OUTSIDE };
	static const struct option longopts[] = {
		{"memory", no_argument, NULL, 'm'},
		{"weights", no_argument, NULL, 'w'},
		{"json", no_argument, NULL, OPT_JSON},
		{"dot", no_argument, NULL, OPT_DOT},
		{"history", no_argument, NULL, OPT_HISTORY},
		{"io-outside", no_argument, NULL, OPT_IO_OUTSIDE},
		CLI_COMMON_OPTS,
		{NULL, 0, NULL, 0},
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:mwVvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': set_view(o, VIEW_MEMORY, "-m"); break;
		case 'w': set_view(o, VIEW_WEIGHTS, "-w"); break;
		case OPT_JSON: set_view(o, VIEW_JSON, "--json"); break;
		case OPT_DOT: set_view(o, VIEW_DOT, "--dot"); break;
		case OPT_HISTORY: set_view(o, VIEW_HISTORY, "--history"); break;
		case OPT_IO_OUTSIDE: o->io_outside = true; break;
		default: cli_common_option(c, argv, &o->out, NULL, help);
		}
	}
	if (optind < argc)
		o->in = argv[optind++];
	if (optind < argc)
		cli_usage("unexpected argument '%s' (one IR stream at a time)", argv[optind]);
}

int main(int argc, char **argv)
{
	static void (*const print[])(FILE *, const ir_graph *) = {
		[VIEW_LIST] = view_list, [VIEW_WEIGHTS] = view_weights,
		[VIEW_JSON] = view_json, [VIEW_DOT] = view_dot, [VIEW_HISTORY] = view_history,
	};
	options o = {0};
	cli_output out;
	cli_init("npu-dump", argc, argv);
	parse_args(argc, argv, &o);
	ir_graph *g = cli_read_ir(o.in);
	if (!g)
		return CLI_FAIL;
	int rc = CLI_FAIL;
	if (cli_output_open(&out, o.out, false, false) == 0) {
		if (o.view == VIEW_MEMORY)
			view_memory(out.f, g, &o);
		else
			print[o.view](out.f, g);
		rc = cli_output_commit(&out) ? CLI_FAIL : CLI_OK;
	}
	ir_graph_free(g);
	return rc;
}
