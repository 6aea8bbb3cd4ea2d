#!/bin/sh
# emit.sh - latency of int8 models, 1 thread: PyTorch (FX PTQ, qnnpack and
# onednn engines, traced and frozen) and npukit's emitted C code (built by
# bench/emit_npu.sh, which also reports the header's compile time and
# memory and the arena) on torchvision mobilenet_v2, resnet18 and
# squeezenet1_1 at 224x224, interleaved round by round. See bench/emit.py
# for the options (--rounds N, --runs N, --warmup N, --models). The work
# directory is kept in $EMIT_WORK (default a temporary directory, removed at
# the end); $CC and $NPU_CFLAGS (default -O2) choose the build. --fp32
# compares float32: the unquantized graph's emitted code against PyTorch's
# float model, traced and torch.jit.optimize_for_inference'd (oneDNN);
# NPU_CFLAGS="-O2 -march=native -DNPU_F32_FMA" times the float
# convolutions with fused multiply-adds (not npu-run's bits, npu-emit(1)).
# $NPU_BASE_CFLAGS builds the same header a second time with those flags
# (e.g. "-O2 -march=native -DNPU_NO_AMX"), timed in the same rounds: the
# table adds its time, its ratios and base_ms / npu_ms. NPU_LAYOUT=nhwc
# times the channel-last pipeline (npu-layout --to nhwc after npu-fuse);
# with NPU_BASE_LAYOUT=nchw the base build gets its own channel-first
# header, so base_ms / npu_ms compares the two layouts in the same rounds.
#
#   bench/emit.sh [--fp32] [OPTIONS]        (run `make` first)
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
W=${EMIT_WORK:-$(mktemp -d)}
[ -n "${EMIT_WORK:-}" ] || trap 'rm -rf "$W"' EXIT
cmds="" mode=""
for a in "$@"; do [ "$a" = --fp32 ] && mode="\\ fp32"; done
for m in mobilenet_v2 resnet18 squeezenet1_1; do
	cmds="$cmds --npu-build $m=$TOP/bench/emit_npu.sh\ $m\ $W\ build$mode --npu-cmd $m=$TOP/bench/emit_npu.sh\ $m\ $W\ run$mode"
	[ -z "${NPU_BASE_CFLAGS:-}" ] ||
		cmds="$cmds --npu-base $m=NPU_SIDE=base\ $TOP/bench/emit_npu.sh\ $m\ $W\ run$mode"
done
eval /usr/bin/python3 "$TOP/bench/emit.py" --export "$W" $cmds '"$@"'
