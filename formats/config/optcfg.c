/* optcfg.c - the Compass Optimizer's opt.cfg (INI text). */
#include "config/optcfg.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPTCFG_BYTES (1 << 20)

/* The fields of Compass' cfg_fields.py (its documented and hidden ones),
 * with their defaults. */
const npu_optcfg_field npu_optcfg_fields[] = {
	{"graph", ""}, {"bin", ""}, {"model_name", ""}, {"quant_ir_name", ""}, {"output_dir", "./opt_log"},
	{"dataset", ""}, {"metric", ""}, {"eval_original_model", "true"}, {"data", ""}, {"label", ""},
	{"data_batch_dim", "0"}, {"label_batch_dim", "0"}, {"without_batch_dim", "false"},
	{"dataloader_workers", "0"}, {"calibration_batch_size", "1"}, {"metric_batch_size", "1"},
	{"dump", "false"}, {"dump_dir", "./opt_dump"}, {"opt_config", ""}, {"statistic_file", ""},
	{"calibration_strategy_for_weight", "extrema"}, {"calibration_strategy_for_activation", "mean"},
	{"global_calibration", "none"}, {"calibration_data", ""}, {"calibration_shuffe", "false"},
	{"quantize_method_for_weight", "per_tensor_symmetric_restricted_range"},
	{"quantize_method_for_activation", "per_tensor_symmetric_full_range"}, {"weight_bits", "8"},
	{"activation_bits", "8"}, {"lut_items_in_bits", "8"}, {"bias_bits", "32"}, {"bias_effective_bits", "31"},
	{"unify_shifts_for_aiff", "true"}, {"cast_dtypes_for_lib", "false"}, {"force_dtype_int", "false"},
	{"force_shift_positive", "false"}, {"running_statistic_momentum", "0.9"}, {"histc_bins", "2048"},
	{"set_qinvariant_for_start_nodes", ""}, {"fake_quant_scopes_for_debug", ""},
	{"fake_quant_operators_for_debug", ""}, {"resize_degrade_to_nearest", "false"},
	{"unify_scales_for_concat", "false"}, {"unify_scales_for_concat_threshold", "1.05"},
	{"unify_scales_for_concat_max_depth", "20"}, {"unify_scales_for_multi_inputs_operators", ""},
	{"with_winograd", "false"}, {"mixed_precision_auto_search", "0,0.,L"}, {"featuremap_tiling_param", ""},
	{"featuremap_splits_item_x", "1"}, {"featuremap_splits_item_y", "1"}, {"featuremap_splits_concat_blk", "3"},
	{"featuremap_splits_overlap_rate", "50"}, {"featuremap_splits_sram_size", "0"}, {"scaling_bits", ""},
	{"trigger_float_op", "disable"}, {"save_statistic_info", "false"}, {"trim_infinity_before_statistic", ""},
	{"similarity_data_num", "1"}, {"run_mode", "default"}, {"record_debug_acc_info", "false"},
	{"compat_quantized_model", "false"}, {"compat_quantized_model_eliminate_cast", "true"},
	{"compat_quantized_model_strategy", "8bSymWeightUnchange"}, {"compat_quantized_model_multiplier_bits", "13"},
	{"compat_quantized_model_int8_to_uint8", "false"}, {"compat_quantized_model_ops", ""},
	{"compat_quantized_model_unify_shifts_mode", "auto"}, {"compat_quantized_model_left_shift_bits", "8"},
};
const int npu_optcfg_nfields = (int)(sizeof npu_optcfg_fields / sizeof npu_optcfg_fields[0]);

const char *npu_optcfg_default(const char *name)
{
	for (int i = 0; i < npu_optcfg_nfields; i++)
		if (!strcmp(npu_optcfg_fields[i].name, name))
			return npu_optcfg_fields[i].def;
	return NULL;
}

void npu_optcfg_free(npu_optcfg *c)
{
	for (int i = 0; i < c->n; i++) {
		free(c->e[i].key);
		free(c->e[i].val);
	}
	free(c->e);
	c->e = NULL;
	c->n = 0;
}

static char *trimmed(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

static int parse(const char *text, size_t size, const char *file, npu_optcfg *c, ir_diag *d)
{
	int line = 0;
	bool common = false;
	for (size_t at = 0; at < size;) {
		const char *s = text + at, *nl = memchr(s, '\n', size - at);
		size_t len = nl ? (size_t)(nl - s) : size - at;
		at += len + 1;
		line++;
		if (memchr(s, '\0', len))
			return ir_fail(d, -1, -1, "%s:%d: a NUL byte (this is no text file)", file, line);
		while (len && isspace((unsigned char)*s))
			s++, len--;
		while (len && isspace((unsigned char)s[len - 1]))
			len--;
		if (!len || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			if (s[len - 1] != ']')
				return ir_fail(d, -1, -1, "%s:%d: a section header is [NAME]", file, line);
			char *name = trimmed(s + 1, len - 2);
			if (!name)
				return ir_fail(d, -1, -1, "out of memory");
			common = !strcmp(name, "Common");
			if (!common) {
				ir_fail(d, -1, -1, "%s:%d: section [%.60s]: every field goes in [Common]", file, line, name);
				free(name);
				return -1;
			}
			free(name);
			continue;
		}
		const char *eq = memchr(s, '=', len), *colon = memchr(s, ':', len);
		if (!eq || (colon && colon < eq))
			eq = colon;
		if (!eq || eq == s)
			return ir_fail(d, -1, -1, "%s:%d: expected 'field = value'", file, line);
		if (!common)
			return ir_fail(d, -1, -1, "%s:%d: a field before the [Common] section header", file, line);
		char *key = trimmed(s, (size_t)(eq - s)), *val = trimmed(eq + 1, len - (size_t)(eq + 1 - s));
		npu_optcfg_entry *e = key && val ? realloc(c->e, sizeof *e * (size_t)(c->n + 1)) : NULL;
		if (!e) {
			free(key);
			free(val);
			return ir_fail(d, -1, -1, "out of memory");
		}
		c->e = e;
		c->e[c->n++] = (npu_optcfg_entry){key, val, line};
		for (char *p = key; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		if (!npu_optcfg_default(key))
			return ir_fail(d, -1, -1, "%s:%d: unknown field '%.80s' (npu-quant --field lists them)", file, line,
				       key);
		for (int i = 0; i + 1 < c->n; i++)
			if (!strcmp(c->e[i].key, key))
				return ir_fail(d, -1, -1, "%s:%d: field '%s' again (first on line %d)", file, line, key,
					       c->e[i].line);
	}
	return 0;
}

int npu_optcfg_parse(const uint8_t *buf, size_t size, const char *file, npu_optcfg *c, ir_diag *d)
{
	c->e = NULL;
	c->n = 0;
	if (size > MAX_OPTCFG_BYTES)
		return ir_fail(d, -1, -1, "%s: larger than %d bytes: no optimizer configuration", file, MAX_OPTCFG_BYTES);
	if (parse((const char *)buf, size, file, c, d)) {
		npu_optcfg_free(c);
		return -1;
	}
	return 0;
}
