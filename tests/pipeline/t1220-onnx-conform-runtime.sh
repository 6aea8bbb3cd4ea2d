#!/bin/sh
# t1220-onnx-conform-runtime.sh - the tests of t1200 through the runtime the
# emitted code uses (share/npu/runtime: every node lowered to its fp32
# kernels, the op program and the static arena plan), against the ONNX
# suite's references at the default tolerances. Models with ops the runtime
# does not have are skipped, naming the op.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
NPU_TESTS=${NPU_TESTS:-$TOP/build/rel/tests}
exec "$NPU_TESTS/onnx_conform" --mode runtime --suite "$TOP/tests/data/conform"
