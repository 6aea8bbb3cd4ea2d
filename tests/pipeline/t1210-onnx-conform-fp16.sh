#!/bin/sh
# t1210-onnx-conform-fp16.sh - the tests of t1200 in the interpreter's fp16
# emulation, against the same fp32 references. Half precision has a unit
# roundoff of 2^-11 (4.9e-4) and inputs and every op output are rounded, so
# the tolerance is rtol 4e-3, atol 1e-3 (see npu-run(1)); what half precision
# cannot represent at all is listed as known gaps in onnx_conform.c.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
NPU_TESTS=${NPU_TESTS:-$TOP/build/rel/tests}
exec "$NPU_TESTS/onnx_conform" --mode fp16 --rtol 4e-3 --atol 1e-3 --suite "$TOP/tests/data/conform"
