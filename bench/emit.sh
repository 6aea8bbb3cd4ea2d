#!/bin/sh
# emit.sh - latency of int8 models, 1 thread: PyTorch (FX PTQ, qnnpack and
# onednn engines, traced and frozen) and npukit's emitted C code (built at
# -O3 by bench/emit_npu.sh) on torchvision mobilenet_v2, resnet18 and
# squeezenet1_1 at 224x224. See bench/emit.py for the options (--repeat N,
# --warmup N, --models). The work directory is kept in $EMIT_WORK (default
# a temporary directory, removed at the end).
#
#   bench/emit.sh [OPTIONS]        (run `make` first)
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
W=${EMIT_WORK:-$(mktemp -d)}
[ -n "${EMIT_WORK:-}" ] || trap 'rm -rf "$W"' EXIT
cmds=""
for m in mobilenet_v2 resnet18 squeezenet1_1; do
	cmds="$cmds --npu-cmd $m=$TOP/bench/emit_npu.sh\ $m\ $W"
done
eval /usr/bin/python3 "$TOP/bench/emit.py" --export "$W" $cmds '"$@"'
