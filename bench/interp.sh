#!/bin/sh
# interp.sh - npu-run (fp32, 1 thread) against PyTorch (TorchScript frozen
# with optimize_for_inference, 1 thread) on torchvision mobilenet_v2,
# resnet18 and squeezenet1_1 at 224x224. Prints per-model times and the
# speed ratio torch_ms / npu_ms (>= 1 means npu-run is faster).
#
#   bench/interp.sh [REPEAT]        (default 10; run `make` first)
#
# Both sides report the best of REPEAT runs after warm-up: npu-run's time
# per run is the minimum in its own -v report of the timed runs, so model
# loading is not counted on either side.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NPU_BIN:-$TOP/bin}
R=${1:-10}
W=$(mktemp -d "${TMPDIR:-/tmp}/npukit-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
/usr/bin/python3 "$TOP/bench/interp_models.py" "$W" "$R" >"$W/torch.txt"
printf '%-14s %10s %10s %8s  %s\n' model torch_ms npu_ms ratio check
while read -r name tms; do
	"$BIN/npu-import-onnx" "$W/$name.onnx" -o "$W/$name.ir"
	"$BIN/npu-run" "$W/$name.ir" -i "$W/$name.input.npy" --threads 1 --repeat "$R" \
		-o "$W/$name.out.npy" -v 2>"$W/$name.log"
	nms=$(sed -n "s/.*ms per run (min \([0-9.]*\),.*/\1/p" "$W/$name.log")
	if "$BIN/npu-run" "$W/$name.ir" -i "$W/$name.input.npy" -o "$W/$name.out2.npy" \
		--compare "$W/$name.output.npy" >/dev/null 2>&1; then chk="matches torch"; else chk="MISMATCH"; fi
	printf '%-14s %10.2f %10.2f %8.2f  %s\n' "$name" "$tms" "$nms" \
		"$(echo "$tms $nms" | awk '{print $1 / $2}')" "$chk"
done <"$W/torch.txt"
