#!/bin/sh
# t1200-onnx-conform.sh - the ONNX project's node tests (Debian's
# libonnx-testdata) and tests/data/conform (PyTorch models, see
# tests/gen/exec_fixtures.py) through the importer and the reference
# interpreter. TAP comes from tests/conform/onnx_conform.c: one line per
# test, unsupported ops and dtypes as SKIP with the reason, known gaps as
# TODO; a mismatch fails.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
NPU_TESTS=${NPU_TESTS:-$TOP/build/rel/tests}
exec "$NPU_TESTS/onnx_conform" --suite "$TOP/tests/data/conform"
