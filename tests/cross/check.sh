#!/bin/sh
# make check-cross: emitted headers on real cores under qemu. The model
# families of tests/data/families go through the pipelines of t7000 (float:
# npu-fuse --all only; int8; int16; grus), npu-emit writes the header, and
# npu_host.c around it is built
#   m4   arm-none-eabi-gcc -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard,
#        qemu-system-arm -M mps2-an386
#   m7   -mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard, -M mps2-an500
#   m55  -mcpu=cortex-m55 -mfloat-abi=hard (Helium), -M mps3-an547
#   a64  aarch64-linux-gnu-gcc -static (NEON), qemu-aarch64
#   a64dot  the same with -march=armv8.2-a+dotprod (sdot), qemu-aarch64 -cpu max
# (Cortex-M: newlib with semihosting I/O, tests/cross/startup.c and the
# board's linker script), runs one sample under qemu, and its outputs must
# equal npu-run's byte for byte (float: npu-run --mode runtime); an M55
# image with CONV_Q must hold its Helium kernel (vmladava). For every
# build it reports flash (.text + .rodata of the image; of those the
# model's: runtime code, tables and weights, without the host program and
# newlib or, for aarch64, the static glibc) and RAM (the arena, and the
# stack npu_run used, measured by painting: tests/cross/startup.c,
# hooks_a64.c) in $CROSS_REPORT (default build/cross-report.txt).
#
# CROSS_FAMILIES, CROSS_TARGETS, CROSS_CORES: space-separated subsets.
# Missing compilers or qemu: the check fails (make cross-deps installs them).
. "$(dirname "$0")/../pipeline/lib.sh"
EX=$TOP/share/npu/examples
X=$TOP/tests/cross
FAMILIES=${CROSS_FAMILIES:-$(cd "$DATA/families" && ls)}
TARGETS=${CROSS_TARGETS:-float int8 int16 grus}
CORES=${CROSS_CORES:-m4 m7 m55 a64 a64dot}
REPORT=${CROSS_REPORT:-$TOP/build/cross-report.txt}
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror -O2"
ARM="$STRICT -mthumb -ffunction-sections -fdata-sections -DNPU_HOST_HOOKS"
A64="$STRICT -ffunction-sections -fdata-sections -DNPU_HOST_HOOKS"
QEMU_TIMEOUT=${QEMU_TIMEOUT:-300}

flags() {	# flags CORE: compiler flags; board() the qemu machine
	case $1 in
	m4) echo "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard";;
	m7) echo "-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard";;
	m55) echo "-mcpu=cortex-m55 -mfloat-abi=hard";;
	a64dot) echo "-march=armv8.2-a+dotprod";;
	esac
}
board() { case $1 in m4) echo mps2-an386;; m7) echo mps2-an500;; m55) echo mps3-an547;; esac; }

need=""
for p in arm-none-eabi-gcc arm-none-eabi-size qemu-system-arm aarch64-linux-gnu-gcc aarch64-linux-gnu-size qemu-aarch64 unzip; do
	command -v $p >/dev/null || need="$need $p"
done
if [ -n "$need" ]; then
	ok 1 "cross tools present (missing:$need; make cross-deps)"
	done_testing
	exit 1
fi
for c in $CORES; do
	# shellcheck disable=SC2046
	case $c in
	a64*) aarch64-linux-gnu-gcc $A64 $(flags $c) -c "$X/hooks_a64.c" -o "$T/startup.$c.o" 2>"$T/err";;
	*) arm-none-eabi-gcc $ARM $(flags $c) -c "$X/startup.c" -o "$T/startup.$c.o" 2>"$T/err";;
	esac
	ok $? "$c: startup.c (hooks_a64.c) builds ($(head -n 1 "$T/err"))"
done

# host functions (their code is the host's, not the model's)
HOSTFN="main die elem_size npy_load to_input feed npy_descr npy_save out_value now_ms cmp_double make_dir load_file samples_of"
# model_flash MAP OBJ: bytes of .text*/.rodata* input sections of OBJ in the
# link map that are not host functions or merged host strings
model_flash() {
	awk -v obj="$2" -v hostfn="$HOSTFN" '
		BEGIN { n = split(hostfn, h, " "); for (i = 1; i <= n; i++) host[".text." h[i]] = 1 }
		/^ \.(text|rodata|npu_weights)/ {
			name = $1
			if (NF >= 4) { size = $3; file = $4 } else { getline; size = $2; file = $3 }
			if (file == obj && !(name in host) && name !~ /^\.rodata\.str/ && name !~ /\.str1\./)
				sum += strtonum_(size)
		}
		function strtonum_(s,   v, i, c) { v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
			return v }
		END { print sum + 0 }' "$1"
}

printf '%-16s %-6s %-6s %10s %12s %10s %8s\n' family target core image_flash model_flash arena stack >"$T/report"
for n in $FAMILIES; do
	dir=$DATA/families/$n
	fm=$(family_model "$dir") || { ok 1 "$n: no model file"; continue; }
	imp=${fm% *} model=${fm#* }
	mkdir -p "$T/$n.in" && unzip -o -q "$dir/in.npz" -d "$T/$n.in"
	# shellcheck disable=SC2046
	if ! { $imp "$dir/$model" $(cat "$dir/args") -o "$T/$n.ir" 2>"$T/err" &&
		npu-fuse --all "$T/$n.ir" -o "$T/$n.fused.ir" 2>>"$T/err"; }; then
		ok 1 "$n: imports and fuses: $(head -n 1 "$T/err")"
		continue
	fi
	ins=$(npu-dump "$T/$n.ir" | sed -n '/^inputs:/,/^outputs:/p' | sed '1d;$d' | awk -v d="$T/$n.in" '{ print d "/" $1 ".npy" }')
	for tg in $TARGETS; do
		q=$T/$n.$tg.ir
		: >"$T/err"
		if ! { case $tg in
		float) cp "$T/$n.fused.ir" "$q";;
		grus) npu-fuse --all --target grus "$T/$n.ir" | npu-quant --target grus --calib "$dir/calib.npz" -o "$q" 2>"$T/err";;
		int8) npu-quant "$T/$n.fused.ir" --target int8 --calib "$dir/calib.npz" -o "$q" 2>"$T/err";;
		int16) npu-quant "$T/$n.fused.ir" --target int8 --bits 16 --calib "$dir/calib.npz" -o "$q" 2>"$T/err";;
		*) false;;
		esac &&
			rm -f "$T/npu_m.h" && npu-emit "$q" --name m -o "$T/npu_m.h" 2>>"$T/err"; }; then
			ok 1 "$n $tg: npu-quant and npu-emit: $(grep -m1 error "$T/err")"
			continue
		fi
		md=""; [ $tg = float ] && md="--mode runtime"
		arena=$(sed -n 's/^#define NPU_M_ARENA_SIZE \([0-9]*\)u$/\1/p' "$T/npu_m.h")
		for c in $CORES; do
			e=$T/$n.$tg.$c
			rm -rf "$e.res" && mkdir "$e.res"
			case $c in a64*) a64=1;; *) a64="";; esac
			if [ -n "$a64" ]; then
				# shellcheck disable=SC2046
				aarch64-linux-gnu-gcc $A64 $(flags $c) -DNPU_HEADER='"npu_m.h"' -DNPU_MODEL=npu_m_model -I"$T" \
					-c "$EX/npu_host.c" -o "$e.o" 2>"$T/err" &&
					aarch64-linux-gnu-gcc -static "$e.o" "$T/startup.$c.o" -Wl,--gc-sections -Wl,-Map="$e.map" \
					-o "$e.elf" -lm 2>>"$T/err" ||
					{ ok 1 "$n $tg $c: builds: $(head -n 1 "$T/err")"; continue; }
				timeout "$QEMU_TIMEOUT" qemu-aarch64 -cpu max "$e.elf" run "$e.res" $ins 2>"$T/err" >"$T/out"
			else
				# shellcheck disable=SC2046
				arm-none-eabi-gcc $ARM $(flags $c) -DNPU_HEADER='"npu_m.h"' -DNPU_MODEL=npu_m_model -I"$T" \
					-c "$EX/npu_host.c" -o "$e.o" 2>"$T/err" &&
					arm-none-eabi-gcc $ARM $(flags $c) "$e.o" "$T/startup.$c.o" -nostartfiles --specs=rdimon.specs \
					-L"$X" -T"$X/$(board $c).ld" -Wl,--gc-sections -Wl,-Map="$e.map" -o "$e.elf" -lm 2>>"$T/err" ||
					{ ok 1 "$n $tg $c: builds: $(grep -m1 -i error "$T/err")"; continue; }
				args=$(printf ',arg=%s' host run "$e.res" $ins)
				timeout "$QEMU_TIMEOUT" qemu-system-arm -M "$(board $c)" -display none -serial null -monitor none \
					-semihosting-config "enable=on,target=native$args" -kernel "$e.elf" 2>"$T/err" >"$T/out"
			fi
			st=$?
			[ $st = 0 ] && npu-run "$q" $(for i in $ins; do printf ' -i %s' "$i"; done) $md --compare "$e.res" \
				--rtol 0 --atol 0 >/dev/null 2>"$T/cmp"
			r=$?
			[ $st = 0 ] || diag "$n $tg $c: exit $st: $(cat "$T/out" "$T/err" | head -n 2)"
			[ $st != 0 ] || [ $r = 0 ] || diag "$n $tg $c: $(grep -v ': ok$' "$T/cmp" | head -n 2)"
			ok $r "$n $tg $c: the outputs equal npu-run's byte for byte"
			if [ $st = 0 ]; then
				size=arm-none-eabi-size; [ -n "$a64" ] && size=aarch64-linux-gnu-size
				sizes=$($size -A "$e.elf" | awk '$1 == ".text" || $1 == ".rodata" { s += $2 } END { print s }')
				stack=$(sed -n 's/^stack: \([0-9]*\) bytes$/\1/p' "$T/err" "$T/out" | head -n 1)
				printf '%-16s %-6s %-6s %10s %12s %10s %8s\n' "$n" "$tg" "$c" "$sizes" \
					"$(model_flash "$e.map" "$e.o")" "$arena" "${stack:-?}" >>"$T/report"
			fi
			# the M55's header compiled the Helium (MVE) paths: the panel
			# kernel's vmladava is in the image whenever CONV_Q's is
			if [ $c = m55 ] && [ $st = 0 ] && grep -q 'cq_dmicro' "$T/npu_m.h"; then
				arm-none-eabi-objdump -d -marmv8.1-m.main "$e.elf" | grep -q 'vmlava\.s8'
				ok $? "$n $tg $c: the Helium kernels (vmladava) are in the image"
			fi
			rm -f "$e.o" "$e.elf" "$e.map"
		done
	done
done
mkdir -p "$(dirname "$REPORT")" && cp "$T/report" "$REPORT"
sed 's/^/# /' "$T/report" >&2
done_testing
