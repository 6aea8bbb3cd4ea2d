#!/bin/sh
# conv_q.sh [ROUNDS] - the runtime's CONV_Q int8 throughput per layer shape
# (bench/conv_q.c), portable -O2 and -O2 -march=native (on an AMX CPU also
# -O2 -march=native -DNPU_NO_AMX: the VNNI path beside the tiles; NHWC=1:
# the channel-last CONV_NHWC_Q on its regular shapes instead, cn_amx and
# with -DNPU_NO_AMX cn_regular), 1
# thread, the builds run in turn ROUNDS times (default 3; each run prints
# the median of its own 5 repeats; compare the runs' spread for the
# noise). With
# BASE=DIR (a directory holding another npu_rt.c, npu_rt.h and their
# headers, e.g. an older checkout's share/npu/runtime) its builds join the
# rotation, for before/after numbers.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
rounds=${1:-3}
builds=""
nhwc=""; [ -n "${NHWC:-}" ] && nhwc="-DCONV_NHWC"
for side in new ${BASE:+base}; do
	dir=$TOP/share/npu/runtime
	[ $side = base ] && dir=$BASE
	# shellcheck disable=SC2086  # $nhwc is a word list
	$CC -std=c11 -O2 $nhwc -I"$dir" "$TOP/bench/conv_q.c" -o "$W/$side-portable" -lm
	# shellcheck disable=SC2086
	$CC -std=c11 -O2 -march=native $nhwc -I"$dir" "$TOP/bench/conv_q.c" -o "$W/$side-native" -lm
	builds="$builds $side-portable $side-native"
	# on AMX the native build runs the panel path on tiles: the VNNI path beside it
	# (NHWC=1: cn_amx, and cn_regular beside it)
	if [ $side = new ] && grep -qw amx_int8 /proc/cpuinfo; then
		# shellcheck disable=SC2086
		$CC -std=c11 -O2 -march=native -DNPU_NO_AMX $nhwc -I"$dir" "$TOP/bench/conv_q.c" -o "$W/$side-native-noamx" -lm
		builds="$builds $side-native-noamx"
	fi
done
echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
r=1
while [ $r -le "$rounds" ]; do
	for b in $builds; do
		echo "## round $r: $b"
		"$W/$b" 5
	done
	# rotate the order round by round
	builds="$(echo $builds | cut -d' ' -f2-) $(echo $builds | cut -d' ' -f1)"
	r=$((r + 1))
done
