#!/bin/sh
# conv_t_q.sh [ROUNDS] - CONV_T_Q int8 per layer shape (bench/conv_t_q.c):
# the int32 row path against the generic int64 loop it replaced,
# interleaved round by round (default 9 rounds), -O2 and -O2 -march=native,
# 1 thread; medians of the per-round ratios with min-max.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); $($CC --version | head -n 1)"
for f in "" "-march=native"; do
	$CC -std=c11 -O2 $f -I"$TOP/share/npu/runtime" "$TOP/bench/conv_t_q.c" -o "$W/b" -lm
	echo "## -O2 $f"
	"$W/b" "${1:-9}"
done
