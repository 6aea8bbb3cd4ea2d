#!/bin/sh
# a64_loops.sh - the aarch64 int8 kernels' inner loops read from the
# disassembly (no Arm hardware here, and instruction counts under qemu say
# nothing about cycles): npu_rt.c built with aarch64-linux-gnu-gcc -O2,
# plain NEON and -march=armv8.2-a+dotprod; for each kernel function every
# loop (a backward branch) that multiplies, with its instructions, the
# multiply-accumulate instructions in it (sdot: 16 int8 MACs, smlal/smlal2
# on int16 lanes: 4) and MACs per instruction. A function without such a
# loop (a block kernel called per block) is counted whole, entry to ret.
# With BASE=DIR (a directory holding another npu_rt.c and its headers, e.g.
# an older checkout's share/npu/runtime) its builds come first, for
# before/after numbers.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
A64_CC=${A64_CC:-aarch64-linux-gnu-gcc}
DUMP=${DUMP:-aarch64-linux-gnu-objdump}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
FUNCS="cq_dmicro cq_dw3 cq_dw3x8 cn_dw_dot cn_dw_add cn_depthwise k_conv_nhwc_q cn_dot4 cn_gen_dots"

# loops OBJ: one line per loop (or loop-less function) with MACs
loops() {
	$DUMP -d --no-show-raw-insn "$1" | awk -v funcs="$FUNCS" '
		BEGIN { n = split(funcs, f, " "); for (i = 1; i <= n; i++) want[f[i]] = 1 }
		function hex(s,   v, i) { v = 0; s = tolower(s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		function flush(   i, j, k, lo, hi, ins, mac, any, inner) {
			if (fn == "") return
			any = 0
			for (i = 1; i <= cnt; i++) {
				if (tgt[i] == "" || tgt[i] >= addr[i]) continue
				lo = tgt[i]; hi = addr[i]; ins = 0; mac = 0
				for (j = 1; j <= cnt; j++)
					if (addr[j] >= lo && addr[j] <= hi) { ins++; mac += m[j] }
				if (mac == 0) continue
				any = 1
				inner = 1	# innermost: no other multiplying loop inside
				for (k = 1; k <= cnt && inner; k++) {
					if (k == i || tgt[k] == "" || tgt[k] >= addr[k] || tgt[k] < lo || addr[k] > hi) continue
					for (j = 1; j <= cnt; j++)
						if (addr[j] >= tgt[k] && addr[j] <= addr[k] && m[j] > 0) { inner = 0; break }
				}
				if (inner)
					printf "  %-14s loop %x-%x: %3d instructions, %4d MACs, %5.2f MACs/instruction\n", fn, lo, hi, ins, mac, mac / ins
			}
			if (!any) {
				ins = 0; mac = 0
				for (j = 1; j <= cnt; j++) { ins++; mac += m[j] }
				if (mac > 0)
					printf "  %-14s whole function (no loop): %3d instructions, %4d MACs\n", fn, ins, mac
			}
		}
		/^[0-9a-f]+ <.*>:$/ {
			flush(); fn = ""; cnt = 0
			name = $2; gsub(/[<>:]/, "", name); sub(/\..*/, "", name)
			if (name in want) fn = name
			next
		}
		fn != "" && /^ *[0-9a-f]+:\t/ {
			split($0, p, "\t"); a = p[1]; gsub(/[ :]/, "", a)
			op = p[2]; sub(/ .*/, "", op)
			cnt++; addr[cnt] = hex(a); tgt[cnt] = ""; m[cnt] = 0
			if (op == "sdot" || op == "udot") m[cnt] = 16
			else if (op ~ /^[su]mlal2?$/ || op ~ /^[su]mlsl2?$/) m[cnt] = 4
			if (op ~ /^b\./ || op == "b" || op == "cbz" || op == "cbnz" || op == "tbz" || op == "tbnz") {
				if (match($0, /[0-9a-f]+ </)) tgt[cnt] = hex(substr($0, RSTART, RLENGTH - 2))
			}
		}
		END { flush() }'
}

for side in ${BASE:+base} new; do
	dir=$TOP/share/npu/runtime
	[ $side = base ] && dir=$BASE
	for isa in neon dotprod; do
		fl=""; [ $isa = dotprod ] && fl="-march=armv8.2-a+dotprod"
		# shellcheck disable=SC2086
		$A64_CC -std=c11 -O2 $fl -I"$dir" -c "$dir/npu_rt.c" -o "$W/$side-$isa.o"
		echo "# $side, $isa ($($A64_CC --version | head -n 1))"
		loops "$W/$side-$isa.o"
	done
done
