#!/bin/sh
# cpu_ab.sh - CPU time per inference of two builds of an emitted model
# (npu_host programs: e.g. bench/emit.sh's DIR/host_MODEL_base and
# DIR/host_MODEL, kept with EMIT_WORK=DIR), interleaved round by round with
# the order rotated. A measurement is perf stat's task-clock of `PROG bench
# IN.npy RUNS` (RUNS runs after one warm-up) divided by RUNS + 1. On a
# loaded machine wall-clock medians follow the load; CPU time follows it
# much less (it still sees shared caches and a busy sibling hyperthread),
# so say the load when quoting it. Prints each round, then the medians
# (min-max) of A, B and A / B (> 1: B is faster).
#
#   bench/cpu_ab.sh A B IN.npy [ROUNDS [RUNS]]   (default 5 rounds of 20 runs)
set -eu
[ $# -ge 3 ] || { echo "usage: bench/cpu_ab.sh A B IN.npy [ROUNDS [RUNS]]" >&2; exit 2; }
a=$1 b=$2 in=$3 rounds=${4:-5} runs=${5:-20}
command -v perf >/dev/null || { echo "cpu_ab.sh: perf is not installed" >&2; exit 1; }
for p in "$a" "$b"; do [ -x "$p" ] || { echo "cpu_ab.sh: $p: not an executable" >&2; exit 1; }; done
# ms of CPU per inference of program $1
cpu() {
	perf stat -x, -e task-clock "$1" bench "$in" "$runs" 2>&1 >/dev/null |
		awk -F, -v n=$((runs + 1)) '$3 ~ /^task-clock/ { printf "%.3f\n", $1 / n; ok = 1 } END { exit !ok }'
}
echo "CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); load: $(cut -d' ' -f1-3 /proc/loadavg)"
T=$(mktemp)
trap 'rm -f "$T"' EXIT
i=1
while [ "$i" -le "$rounds" ]; do
	if [ $((i % 2)) -eq 1 ]; then ta=$(cpu "$a"); tb=$(cpu "$b"); else tb=$(cpu "$b"); ta=$(cpu "$a"); fi
	echo "round $i/$rounds: A $ta ms, B $tb ms"
	echo "$ta $tb" >>"$T"
	i=$((i + 1))
done
# median (min-max) of column $1 of $T (3: A / B)
stat() {
	awk -v c="$1" '{ print c == 3 ? $1 / $2 : $c }' "$T" | sort -g |
		awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
			printf "%.3f (%.3f-%.3f)", m, v[1], v[NR] }'
}
echo "A $a: $(stat 1) ms CPU per inference"
echo "B $b: $(stat 2) ms CPU per inference"
echo "A / B: $(stat 3); load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
