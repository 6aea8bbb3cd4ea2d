#!/bin/sh
# scale.sh - how the pipeline's time grows with the graph: synthetic ONNX
# chains of N nodes through npu-import-onnx, npu-dump, npu-fuse --all and
# npu-emit. Prints each stage's median CPU seconds over ROUNDS rounds per size and
# the growth of that time from the previous size (time ratio / size ratio:
# 1.0 is linear, 10 at a tenfold size step is quadratic).
#
#   bench/scale.sh [-k relu|mix] [-r ROUNDS] [-t SECONDS] [N ...]
#
# Defaults: -k mix, -r 3, -t 300, N = 10000 100000 1000000.
#   relu: x -> Relu -> Relu -> ... (nothing to fuse)
#   mix:  Add(c) Relu Mul(c) Sigmoid repeated, one shared [8] constant c;
#         npu-fuse fuses every activation into its add/mul (removes N/2 nodes)
# A stage over -t SECONDS is stopped and shown as ">T"; later stages of that
# size are skipped. Needs python3-onnx (run with Debian's /usr/bin/python3)
# and GNU time (/usr/bin/time);
# run `make` first. Not part of `make check`.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NPU_BIN:-$TOP/bin}
KIND=mix
R=3
LIMIT=300
while getopts k:r:t: opt; do
	case $opt in
	k) KIND=$OPTARG ;;
	r) R=$OPTARG ;;
	t) LIMIT=$OPTARG ;;
	*) echo "usage: $0 [-k relu|mix] [-r ROUNDS] [-t SECONDS] [N ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 10000 100000 1000000
W=$(mktemp -d "${TMPDIR:-/tmp}/npukit-scale.XXXXXX")
trap 'rm -rf "$W"' EXIT

gen() { # N KIND OUT
	/usr/bin/python3 - "$@" <<'EOF'
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
n, kind, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ops = ('Relu',) if kind == 'relu' else ('Add', 'Relu', 'Mul', 'Sigmoid')
nodes, prev = [], 'x'
for i in range(n):
    op = ops[i % len(ops)]
    o = 'y' if i == n - 1 else 't%d' % i
    nodes.append(helper.make_node(op, [prev, 'c'] if op in ('Add', 'Mul') else [prev], [o], name='n%d' % i))
    prev = o
init = [numpy_helper.from_array(np.full([8], 0.5, np.float32), 'c')] if kind != 'relu' else []
g = helper.make_graph(nodes, 'chain', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 8])],
                      [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 8])], initializer=init)
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)])
open(out, 'wb').write(m.SerializeToString())
EOF
}

# CPU seconds (user + system, 3 decimals) one command takes, or "" when it
# failed or timed out. CPU time, not wall time: on a shared, loaded machine
# the wall clock mostly measures the other jobs.
timed() {
	if timeout "$LIMIT" /usr/bin/time -f '%U %S' -o "$W/time" "$@" >/dev/null 2>"$W/err"; then
		awk '{printf "%.3f", $1 + $2}' "$W/time"
	fi
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}'; }

stage() { # NAME CMD...: median over R rounds into $NAME
	name=$1
	shift
	all=
	i=0
	while [ "$i" -lt "$R" ]; do
		t=$(timed "$@")
		if [ -z "$t" ]; then
			all=
			break
		fi
		all="$all $t"
		i=$((i + 1))
	done
	eval "$name=\$(echo \"\$all\" | median)"
}

cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
echo "# npukit scale: $KIND chain, CPU seconds (user+sys), median of $R rounds, CPU: $cpu"
printf '%-9s %10s %10s %10s %10s   %s\n' nodes import dump fuse emit "growth vs previous size (1.0 = linear)"
prev_n=
for n in "$@"; do
	gen "$n" "$KIND" "$W/m.onnx"
	imp= dmp= fus= emt=
	stage imp "$BIN/npu-import-onnx" "$W/m.onnx" -o "$W/m.ir"
	[ -z "$imp" ] || stage dmp "$BIN/npu-dump" "$W/m.ir" -o /dev/null
	[ -z "$imp" ] || stage fus "$BIN/npu-fuse" --all "$W/m.ir" -o "$W/f.ir"
	[ -z "$fus" ] || stage emt "$BIN/npu-emit" "$W/f.ir" -o "$W/m.h"
	growth=
	if [ -n "$prev_n" ]; then
		for pair in "$imp:$p_imp" "$dmp:$p_dmp" "$fus:$p_fus" "$emt:$p_emt"; do
			g=$(echo "$pair" | awk -F: -v n="$n" -v pn="$prev_n" \
				'$1 != "" && $2 != "" && $2 > 0 {printf "%.2f", ($1 / $2) / (n / pn); next} {printf "-"}')
			growth="$growth $g"
		done
	fi
	printf '%-9s %10s %10s %10s %10s  %s\n' "$n" "${imp:->$LIMIT}" "${dmp:->$LIMIT}" "${fus:->$LIMIT}" "${emt:->$LIMIT}" "$growth"
	p_imp=$imp p_dmp=$dmp p_fus=$fus p_emt=$emt prev_n=$n
done
