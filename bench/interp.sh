#!/bin/sh
# interp.sh - npu-run (fp32, 1 thread) against PyTorch (TorchScript frozen
# with optimize_for_inference, 1 thread) on torchvision mobilenet_v2,
# resnet18 and squeezenet1_1 at 224x224, interleaved round by round (the
# order rotated each round): per side and round the mean of RUNS runs;
# printed: the median of the per-round speed ratios torch_ms / npu_ms with
# min-max (>= 1 means npu-run is faster), the CPU, and a check of npu-run's
# output against PyTorch's. Model loading is not counted on either side.
#
#   bench/interp.sh [ROUNDS [RUNS]]        (default 10 rounds of 3 runs; run `make` first)
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NPU_BIN:-$TOP/bin}
W=$(mktemp -d "${TMPDIR:-/tmp}/npukit-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
/usr/bin/python3 "$TOP/bench/interp_models.py" "$W" "${1:-10}" "${2:-3}" "$BIN"
