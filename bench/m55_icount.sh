#!/bin/sh
# bench/m55_icount.sh [FAMILY...]: instructions the Cortex-M55 executes for
# one npu_run of an int8 model, with the Helium (MVE) kernels and with the
# portable C (-DNPU_NO_SIMD, what the M55 ran before them), counted by
# qemu-system-arm -M mps3-an547 -icount shift=0 (one instruction per ns of
# virtual time; SysTick at the AN547's 32 MHz core clock: 31.25
# instructions per tick, tests/cross/startup.c with -DNPU_HOST_TICKS).
# qemu counts instructions, not cycles (an MVE instruction is one, as a
# scalar one); the count is deterministic, so one run per build. The
# models: tests/data/families (default: the int8 ones with convolutions),
# through the pipeline of tests/cross/check.sh; both builds must give
# npu-run's bytes. NPU_LAYOUT=nhwc (or nchw) runs npu-layout --to it after
# fusion (the interface stays the model's). Needs make (bin/),
# arm-none-eabi-gcc with newlib, qemu.
set -e
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NPU_BIN:-$TOP/bin}
PATH=$BIN:$PATH
DATA=$TOP/tests/data
X=$TOP/tests/cross
EX=$TOP/share/npu/examples
T=$(mktemp -d "${TMPDIR:-/tmp}/m55_icount.XXXXXX")
[ -n "$KEEP" ] || trap 'rm -rf "$T"' EXIT
FAMILIES=${*:-"detector image_u8 landmark segmenter tfjs_blazeface unet_prelu attention"}
CF="-std=c99 -O2 -mthumb -mcpu=cortex-m55 -mfloat-abi=hard -ffunction-sections -fdata-sections -DNPU_HOST_HOOKS"
arm-none-eabi-gcc $CF -DNPU_HOST_TICKS -c "$X/startup.c" -o "$T/startup.o"
printf '# %s; qemu %s\n' "$(arm-none-eabi-gcc --version | head -n 1)" \
	"$(qemu-system-arm --version | head -n 1 | sed 's/.*version //')"
printf '%-16s %14s %14s %7s\n' model portable_insns mve_insns ratio
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
	row="$n"
	for v in portable mve; do
		d=""; [ $v = portable ] && d="-DNPU_NO_SIMD"
		arm-none-eabi-gcc $CF $d -DNPU_HEADER='"npu_m.h"' -DNPU_MODEL=npu_m_model -I"$T" -c "$EX/npu_host.c" -o "$T/h.o"
		arm-none-eabi-gcc $CF "$T/h.o" "$T/startup.o" -nostartfiles --specs=rdimon.specs -L"$X" -T"$X/mps3-an547.ld" \
			-Wl,--gc-sections -o "$T/h.elf" -lm
		rm -rf "$T/res" && mkdir "$T/res"
		args=$(printf ',arg=%s' host run "$T/res" $ins)
		qemu-system-arm -M mps3-an547 -icount shift=0 -display none -serial null -monitor none \
			-semihosting-config "enable=on,target=native$args" -kernel "$T/h.elf" >"$T/out" 2>&1
		npu-run "$T/q.ir" $(for i in $ins; do printf ' -i %s' "$i"; done) --compare "$T/res" --rtol 0 --atol 0 \
			>/dev/null 2>&1 || { echo "$n $v: outputs differ from npu-run's" >&2; exit 1; }
		ticks=$(sed -n 's/^systick: \([0-9]*\) ticks$/\1/p' "$T/out")
		eval "$v=$((ticks * 125 / 4))"
	done
	# shellcheck disable=SC2154
	printf '%-16s %14s %14s %7s\n' "$n" "$portable" "$mve" "$(awk -v a="$portable" -v b="$mve" 'BEGIN { printf "%.2f", a / b }')"
done
