#!/bin/sh
# emit_npu.sh MODEL DIR [RUNS] - npukit's side of bench/emit.sh: the float
# TorchScript DIR/MODEL.pt (exported by emit.py --export DIR) through
# import, fuse, int8 quantization on DIR/MODEL.calib.npy and npu-emit, the
# header built with the host program at -O3, then timed on
# DIR/MODEL.input.npy. Prints the header size, the compile time and, last,
# "ms: MEDIAN" of RUNS runs (default 20) after one warm-up run.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${NPU_BIN:-$TOP/bin}
m=$1 d=$2 runs=${3:-20}
CC=${CC:-cc}
"$B/npu-import-pt" "$d/$m.pt" --input 0:1,3,224,224 | "$B/npu-fuse" --all -o "$d/$m.ir"
"$B/npu-quant" "$d/$m.ir" --target int8 --calib "$d/$m.calib.npy" -o "$d/$m.q.ir"
"$B/npu-emit" "$d/$m.q.ir" --name bench -o "$d/npu_$m.h"
t0=$(date +%s.%N)
$CC -std=c99 -O3 -DNPU_HEADER="\"npu_$m.h\"" -DNPU_MODEL=npu_bench_model -I"$d" \
	"$TOP/share/npu/examples/npu_host.c" -o "$d/host_$m" -lm
t1=$(date +%s.%N)
echo "header: $(wc -c <"$d/npu_$m.h") bytes, cc -O3: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s" >&2
"$d/host_$m" bench "$d/$m.input.npy" "$runs"
