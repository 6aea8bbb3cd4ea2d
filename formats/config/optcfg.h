/* optcfg.h - the Zhouyi Compass Optimizer's configuration file (opt.cfg),
 * read by npu-quant --cfg (npu-quant(1), COMPASS CONFIGURATION):
 *
 *   [Common]
 *   graph = model.ir
 *   calibration_data = calib.npz
 *   calibration_strategy_for_activation = extrema
 *   quantize_method_for_weight = per_channel_symmetric_restricted_range
 *   weight_bits = 8
 *
 * INI text as Python's configparser reads it: one [Common] section,
 * "key = value" or "key: value" lines, whole-line '#' and ';' comments,
 * keys case-insensitive. Every key must be a field Compass defines
 * (npu_optcfg_fields); which of them mean something here is the caller's
 * table. Nothing here prints or exits. */
#ifndef NPUKIT_OPTCFG_H
#define NPUKIT_OPTCFG_H

#include "ir.h"

typedef struct {
	char *key;		/* lower case */
	char *val;		/* without surrounding blanks */
	int line;
} npu_optcfg_entry;

typedef struct {
	npu_optcfg_entry *e;
	int n;
} npu_optcfg;

/* Compass' field names and their default values (as Compass spells them). */
typedef struct {
	const char *name, *def;
} npu_optcfg_field;
extern const npu_optcfg_field npu_optcfg_fields[];
extern const int npu_optcfg_nfields;

/* Parse text; an unknown field, a duplicate, a line outside [Common] or a
 * line that is no "key = value" fails with "FILE:LINE: ..." in d. */
int npu_optcfg_parse(const uint8_t *buf, size_t size, const char *file, npu_optcfg *c, ir_diag *d);
void npu_optcfg_free(npu_optcfg *c);
/* The field's Compass default, or NULL if name is no field. */
const char *npu_optcfg_default(const char *name);

#endif
