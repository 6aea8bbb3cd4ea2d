/* fuzz_config.c - configuration files (formats/config): the same bytes as
 * an npu-quant --config file, a target profile and a Compass opt.cfg. */
#include "fuzz.h"
#include "config/optcfg.h"
#include "config/qconfig.h"
#include "config/target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ir_diag d = {0};
	npu_qconfig c = {0};
	if (npu_qconfig_parse(data, size, "q.yaml", &c, &d) == 0)
		npu_qconfig_free(&c);
	else
		fuzz_check_diag(&d);
	npu_target t = {0};
	memset(&d, 0, sizeof d);
	if (npu_target_parse(data, size, "t.yaml", &t, &d) == 0)
		npu_target_free(&t);
	else
		fuzz_check_diag(&d);
	npu_optcfg o = {0};
	memset(&d, 0, sizeof d);
	if (npu_optcfg_parse(data, size, "opt.cfg", &o, &d) == 0) {
		for (int i = 0; i < o.n; i++)
			FUZZ_ASSERT(o.e[i].key && o.e[i].val && npu_optcfg_default(o.e[i].key));
		npu_optcfg_free(&o);
	} else
		fuzz_check_diag(&d);
	return 0;
}
