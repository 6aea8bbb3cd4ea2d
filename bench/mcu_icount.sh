#!/bin/sh
# bench/mcu_icount.sh [FAMILY...]: instructions a Cortex-M core executes for
# one npu_run of an int8 model, with the header's SIMD kernels (Helium on
# the M55, the DSP extension's SMLAD and friends on the M4 and M7) and
# with the portable C (-DNPU_NO_SIMD), counted by qemu-system-arm -icount
# shift=0 (one instruction per ns of virtual time; SysTick at the board's
# core clock, tests/cross/startup.c with -DNPU_HOST_TICKS). NPU_CORE picks
# the core and board as tests/cross/check.sh does: m55 (mps3-an547, 32 MHz,
# the default), m4 (mps2-an386, 25 MHz), m7 (mps2-an500, 25 MHz). qemu
# counts instructions, not cycles (an MVE instruction is one, as a scalar
# one); the count is deterministic, so one run per build. The models:
# tests/data/families (default: the int8 ones with convolutions), through
# the pipeline of tests/cross/check.sh; both builds must give npu-run's
# bytes. NPU_LAYOUT=nhwc (or nchw) runs npu-layout --to it after fusion
# (the interface stays the model's). NPU_OPS=1 also prints each op's
# instructions under its model's line (npu_host.c and startup.c with
# -DNPU_HOST_OPS: npu_exec_op op by op). Needs make (bin/),
# arm-none-eabi-gcc with newlib, qemu.
set -e
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NPU_BIN:-$TOP/bin}
PATH=$BIN:$PATH
DATA=$TOP/tests/data
X=$TOP/tests/cross
EX=$TOP/share/npu/examples
T=$(mktemp -d "${TMPDIR:-/tmp}/mcu_icount.XXXXXX")
[ -n "$KEEP" ] || trap 'rm -rf "$T"' EXIT
FAMILIES=${*:-"detector image_u8 landmark segmenter tfjs_blazeface unet_prelu attention"}
CORE=${NPU_CORE:-m55}
case $CORE in
m4) CPU="-mcpu=cortex-m4 -mfpu=fpv4-sp-d16" BOARD=mps2-an386 MHZ=25;;
m7) CPU="-mcpu=cortex-m7 -mfpu=fpv5-d16" BOARD=mps2-an500 MHZ=25;;
m55) CPU="-mcpu=cortex-m55" BOARD=mps3-an547 MHZ=32;;
*) echo "mcu_icount.sh: NPU_CORE=$CORE: not m4, m7 or m55" >&2; exit 2;;
esac
CF="-std=c99 -O2 -mthumb $CPU -mfloat-abi=hard -ffunction-sections -fdata-sections -DNPU_HOST_HOOKS"
[ -z "${NPU_OPS:-}" ] || CF="$CF -DNPU_HOST_OPS"
arm-none-eabi-gcc $CF -DNPU_HOST_TICKS -c "$X/startup.c" -o "$T/startup.o"
printf '# %s: %s; qemu %s\n' "$CORE ($BOARD)" "$(arm-none-eabi-gcc --version | head -n 1)" \
	"$(qemu-system-arm --version | head -n 1 | sed 's/.*version //')"
printf '%-16s %14s %14s %7s\n' model portable_insns simd_insns ratio
for n in $FAMILIES; do
	dir=$DATA/families/$n
	m=$(ls "$dir" | grep -E '^model\.(pt|onnx|pb|json)$' | head -n 1)
	case $m in
	*.pt) imp=npu-import-pt;; *.onnx) imp=npu-import-onnx;; *) imp=npu-import-tf;;
	esac
	rm -rf "$T/in" && mkdir "$T/in" && unzip -o -q "$dir/in.npz" -d "$T/in"
	# shellcheck disable=SC2046
	$imp "$dir/$m" $(cat "$dir/args") -o "$T/m.ir" 2>/dev/null
	npu-fuse --all "$T/m.ir" -o "$T/f.ir" 2>/dev/null
	if [ -n "${NPU_LAYOUT:-}" ]; then
		npu-layout "$T/f.ir" --to "$NPU_LAYOUT" -o "$T/l.ir" 2>/dev/null
		mv "$T/l.ir" "$T/f.ir"
	fi
	npu-quant "$T/f.ir" --target int8 --calib "$dir/calib.npz" -o "$T/q.ir" 2>/dev/null
	npu-emit "$T/q.ir" --name m -o "$T/npu_m.h" 2>/dev/null
	ins=$(npu-dump "$T/m.ir" | sed -n '/^inputs:/,/^outputs:/p' | sed '1d;$d' | awk -v d="$T/in" '{ print d "/" $1 ".npy" }')
	for v in portable simd; do
		d=""; [ $v = portable ] && d="-DNPU_NO_SIMD"
		arm-none-eabi-gcc $CF $d -DNPU_HEADER='"npu_m.h"' -DNPU_MODEL=npu_m_model -I"$T" -c "$EX/npu_host.c" -o "$T/h.o"
		arm-none-eabi-gcc $CF "$T/h.o" "$T/startup.o" -nostartfiles --specs=rdimon.specs -L"$X" -T"$X/$BOARD.ld" \
			-Wl,--gc-sections -o "$T/h.elf" -lm
		rm -rf "$T/res" && mkdir "$T/res"
		args=$(printf ',arg=%s' host run "$T/res" $ins)
		qemu-system-arm -M $BOARD -icount shift=0 -display none -serial null -monitor none \
			-semihosting-config "enable=on,target=native$args" -kernel "$T/h.elf" >"$T/out" 2>&1
		npu-run "$T/q.ir" $(for i in $ins; do printf ' -i %s' "$i"; done) --compare "$T/res" --rtol 0 --atol 0 \
			>/dev/null 2>&1 || { echo "$n $v: outputs differ from npu-run's" >&2; exit 1; }
		ticks=$(sed -n 's/^systick: \([0-9]*\) ticks$/\1/p' "$T/out")
		eval "$v=$((ticks * 1000 / MHZ))"
		sed -n "s/^op \([0-9]*\): \([0-9]*\) ticks$/\1 \2/p" "$T/out" >"$T/ops_$v"
	done
	# shellcheck disable=SC2154
	printf '%-16s %14s %14s %7s\n' "$n" "$portable" "$simd" "$(awk -v a="$portable" -v b="$simd" 'BEGIN { printf "%.2f", a / b }')"
	# each op's name and op from the ops table's comments in the header
	[ -z "${NPU_OPS:-}" ] || sed -n '/npu_m_ops\[/,/^};/s/.*\/\* \(.*\) (\(.*\)) \*\/$/\1 \2/p' "$T/npu_m.h" |
		awk -v mhz="$MHZ" -v P="$T/ops_portable" -v S="$T/ops_simd" '
		BEGIN { while ((getline l < P) > 0) { split(l, f); p[f[1]] = f[2] }
			while ((getline l < S) > 0) { split(l, f); s[f[1]] = f[2] } }
		{ i = NR - 1; a = p[i] * 1000 / mhz; b = s[i] * 1000 / mhz
		  printf "  %3d %-28s %-10s %12d %12d %7s\n", i, substr($1, 1, 28), $2, a, b, b ? sprintf("%.2f", a / b) : "-" }'
done
