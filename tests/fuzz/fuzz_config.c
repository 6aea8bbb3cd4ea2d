/* fuzz_config.c - YAML/JSON configuration files (formats/config): the same
 * bytes as an npu-quant --config file and as a target profile. */
#include "fuzz.h"
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
	return 0;
}
