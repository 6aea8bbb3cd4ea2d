#!/bin/sh
# t6040-simd: CONV_Q's int8 paths (test_simd: GEMM micro-kernel, depthwise,
# generic; channel-last depthwise) against the definition of the
# convolution, and CONV_F's fast float32 paths against its reference loop,
# once per instruction set: portable C (-DNPU_NO_SIMD), the compiler's
# default (SSE2 on x86-64), SSE4.1, AVX2 and AVX-VNNI (natively, or under
# qemu-x86_64 when this CPU lacks them), AVX-512, AVX-512 VNNI + VBMI, AMX-INT8 (natively,
# when /proc/cpuinfo has amx_int8), aarch64 NEON, without and with the
# dot-product extension (-march=armv8.2-a+dotprod), under qemu-aarch64,
# Cortex-M55 Helium (MVE) under qemu-system-arm -M mps3-an547 and the
# Cortex-M4F's DSP instructions under -M mps2-an386; and the
# float paths with -DNPU_F32_FMA (fused sums: the portable C's fmaf,
# AVX2+FMA, AVX-512, NEON) against the same reference.
# Then whole models:
# the int8 header built with each instruction set and with small scratch
# bounds (npu-emit --scratch-max) computes npu-run's bytes; the digits
# demo's arena stays within 1.5 times the activations' lower bound.
. "$(dirname "$0")/lib.sh"
B=${NPU_TESTS:-$TOP/build/rel/tests}

# run_simd NAME RUNNER...: one TAP line for the binary's whole run
run_simd() {
	name=$1; shift
	if [ ! -x "$B/$name" ]; then
		_n=$((_n + 1)); echo "ok $_n # SKIP $name not built (no cross compiler)"; return
	fi
	"$@" "$B/$name" > "$T/$name.out" 2>&1
	rc=$?
	grep '^# cq_micro' "$T/$name.out" >&2
	[ $rc -eq 0 ] || grep -v '^ok' "$T/$name.out" | head -20 >&2
	ok $rc "$name: every convolution equals the definition"
}

run_simd test_simd_portable
run_simd test_simd
if [ "$(uname -m)" = x86_64 ]; then
	run_simd test_simd_sse41
	if grep -qw avx2 /proc/cpuinfo; then run_simd test_simd_avx2
	elif command -v qemu-x86_64 >/dev/null; then run_simd test_simd_avx2 qemu-x86_64 -cpu max
	else _n=$((_n + 1)); echo "ok $_n # SKIP no AVX2 here and no qemu-x86_64"; fi
	if grep -qw avx_vnni /proc/cpuinfo; then run_simd test_simd_vnni
	elif command -v qemu-x86_64 >/dev/null; then run_simd test_simd_vnni qemu-x86_64 -cpu max
	else _n=$((_n + 1)); echo "ok $_n # SKIP no AVX-VNNI here and no qemu-x86_64"; fi
	# AMX tiles: natively only (qemu has no AMX); its output says whether
	# Linux granted the tile state (else the VNNI fallback ran)
	if grep -qw amx_int8 /proc/cpuinfo; then run_simd test_simd_amx
	else _n=$((_n + 1)); echo "ok $_n # SKIP no AMX-INT8 in /proc/cpuinfo (qemu does not emulate it)"; fi
	# AVX-512 (CONV_F's 16-lane path), and -DNPU_F32_FMA's fused sums
	# with AVX2+FMA and AVX-512
	for t in "test_simd_avx512 avx512f" "test_simd_fma_avx2 fma" "test_simd_fma_avx512 avx512f"; do
		set -- $t
		if grep -qw "$2" /proc/cpuinfo; then run_simd "$1"
		elif command -v qemu-x86_64 >/dev/null; then run_simd "$1" qemu-x86_64 -cpu max
		else _n=$((_n + 1)); echo "ok $_n # SKIP no $2 here and no qemu-x86_64"; fi
	done
	# AVX-512 VNNI + VBMI without AMX (cq_dw512, the panel on VNNI)
	if grep -qw avx512_vnni /proc/cpuinfo && grep -qw avx512vbmi /proc/cpuinfo; then run_simd test_simd_avx512vnni
	elif command -v qemu-x86_64 >/dev/null; then run_simd test_simd_avx512vnni qemu-x86_64 -cpu max
	else _n=$((_n + 1)); echo "ok $_n # SKIP no AVX-512 VNNI/VBMI here and no qemu-x86_64"; fi
fi
run_simd test_simd_fma_portable
if command -v qemu-aarch64 >/dev/null; then
	run_simd test_simd_neon qemu-aarch64 -L /usr/aarch64-linux-gnu
	run_simd test_simd_neondot qemu-aarch64 -cpu max -L /usr/aarch64-linux-gnu
	run_simd test_simd_fma_neon qemu-aarch64 -L /usr/aarch64-linux-gnu
else for b in neon neondot fma_neon; do _n=$((_n + 1)); echo "ok $_n # SKIP qemu-aarch64 not installed ($b)"; done; fi
if command -v qemu-system-arm >/dev/null; then
	run_simd test_simd_m55 timeout 600 qemu-system-arm -M mps3-an547 -display none -serial null -monitor none \
		-semihosting-config enable=on,target=native -kernel
	run_simd test_simd_m4 timeout 600 qemu-system-arm -M mps2-an386 -display none -serial null -monitor none \
		-semihosting-config enable=on,target=native -kernel
else for b in m55 m4; do _n=$((_n + 1)); echo "ok $_n # SKIP qemu-system-arm not installed ($b)"; done; fi

# whole models through the header: every ISA, every scratch bound, npu-run's bytes
EX=$TOP/share/npu/examples
PT=$DATA/pt
CC=${CC:-cc}
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"
npu-import-pt "$EX/digits.pt" --input 0:1,1,8,8 | npu-fuse --all |
	npu-quant --target int8 --calib "$EX/digits.calib.npy" -o "$T/digits.q.ir" 2>/dev/null
npu-import-pt "$PT/mobilenet_v2.pt" $(grep "^mobilenet_v2 " "$PT/cases.txt" | cut -d' ' -f2-) | npu-fuse --all |
	npu-quant --target int8 --calib "$DATA/quant/mobilenet_v2.calib.npy" -o "$T/mobilenet_v2.q.ir" 2>/dev/null
ok $? "the test models quantize"
# same_bytes MODEL.q.IR HOSTCC RUNNER EMIT-OPTIONS...: the header's outputs equal npu-run's
same_bytes() {
	ir=$1 hcc=$2 runner=$3; shift 3
	ins=$(case $ir in *digits*) echo "$DATA/quant/digits.x.npy";; *) ls "$PT"/mobilenet_v2.in*.npy;; esac)
	args=""; for i in $ins; do args="$args -i $i"; done
	rm -rf "$T/res" && mkdir "$T/res" &&
		npu-emit "$ir" --name m "$@" -o "$T/npu_m.h" 2>"$T/emit.err" &&
		$hcc $STRICT -O2 -DNPU_HEADER='"npu_m.h"' -DNPU_MODEL=npu_m_model -I"$T" "$EX/npu_host.c" -o "$T/host" -lm \
			2>"$T/cc.err" &&
		$runner "$T/host" run "$T/res" $ins && npu-run "$ir" $args --compare "$T/res" --rtol 0 --atol 0 >/dev/null
}
for m in digits mobilenet_v2; do
	same_bytes "$T/$m.q.ir" "$CC" ""
	ok $? "$m int8, portable: npu-run's bytes"
	if [ "$(uname -m)" = x86_64 ] && grep -qw avx2 /proc/cpuinfo; then
		same_bytes "$T/$m.q.ir" "$CC -mavx2" ""
		ok $? "$m int8, -mavx2: npu-run's bytes"
	fi
	if [ "$(uname -m)" = x86_64 ] && grep -qw avx_vnni /proc/cpuinfo; then
		same_bytes "$T/$m.q.ir" "$CC -mavx2 -mavxvnni" ""
		ok $? "$m int8, -mavx2 -mavxvnni: npu-run's bytes"
	fi
	if [ "$(uname -m)" = x86_64 ] && grep -qw amx_int8 /proc/cpuinfo &&
		$CC -march=sapphirerapids -E -x c /dev/null >/dev/null 2>&1; then
		same_bytes "$T/$m.q.ir" "$CC -march=sapphirerapids" ""
		ok $? "$m int8, -march=sapphirerapids (AMX tiles): npu-run's bytes"
	fi
	if command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null; then
		same_bytes "$T/$m.q.ir" "aarch64-linux-gnu-gcc" "qemu-aarch64 -L /usr/aarch64-linux-gnu"
		ok $? "$m int8, aarch64 NEON under qemu: npu-run's bytes"
		same_bytes "$T/$m.q.ir" "aarch64-linux-gnu-gcc -march=armv8.2-a+dotprod" \
			"qemu-aarch64 -cpu max -L /usr/aarch64-linux-gnu"
		ok $? "$m int8, aarch64 NEON dotprod under qemu: npu-run's bytes"
	fi
	bounds=300; [ $m = digits ] && bounds="4096 300 100"
	for smax in $bounds; do
		same_bytes "$T/$m.q.ir" "$CC" "" --scratch-max $smax &&
			s=$(sed -n 's/.*kernel scratch \([0-9]*\)).*/\1/p' "$T/npu_m.h" | head -1) &&
			{ [ "$s" -le $smax ] || grep -q "exceeds --scratch-max" "$T/emit.err"; }
		ok $? "$m int8, --scratch-max $smax: npu-run's bytes, scratch ${s:-?} within the bound (or warned)"
	done
done

# mobilenet_v2 channel-last (npu-layout): CONV_NHWC_Q, its depthwise on
# aarch64 with sdot (cn_dw_dot) and without, npu-run's bytes
if command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null; then
	npu-import-pt "$PT/mobilenet_v2.pt" $(grep "^mobilenet_v2 " "$PT/cases.txt" | cut -d' ' -f2-) | npu-fuse --all |
		npu-layout --to nhwc | npu-quant --target int8 --calib "$DATA/quant/mobilenet_v2.calib.npy" \
		-o "$T/mobilenet_v2_nhwc.q.ir" 2>/dev/null
	for fl in "" "-march=armv8.2-a+dotprod"; do
		same_bytes "$T/mobilenet_v2_nhwc.q.ir" "aarch64-linux-gnu-gcc $fl" "qemu-aarch64 -cpu max -L /usr/aarch64-linux-gnu" &&
			grep -q 'k_conv_nhwc_q' "$T/npu_m.h"
		ok $? "mobilenet_v2 int8 channel-last, aarch64 ${fl:-NEON} under qemu: npu-run's bytes"
	done
fi
# ... and on this machine: the regular convolutions' cn_regular in the
# portable C and with AVX2 (npu-run: the default build's SSE2)
if [ -s "$T/mobilenet_v2_nhwc.q.ir" ]; then
	same_bytes "$T/mobilenet_v2_nhwc.q.ir" "$CC -DNPU_NO_SIMD" ""
	ok $? "mobilenet_v2 int8 channel-last, portable C: npu-run's bytes"
	if [ "$(uname -m)" = x86_64 ] && grep -qw avx2 /proc/cpuinfo; then
		same_bytes "$T/mobilenet_v2_nhwc.q.ir" "$CC -mavx2" ""
		ok $? "mobilenet_v2 int8 channel-last, -mavx2: npu-run's bytes"
	fi
	# the regular convolutions on AMX tiles (cn_amx) where C is a multiple of 4
	if [ "$(uname -m)" = x86_64 ] && grep -qw amx_int8 /proc/cpuinfo &&
		$CC -march=sapphirerapids -E -x c /dev/null >/dev/null 2>&1; then
		same_bytes "$T/mobilenet_v2_nhwc.q.ir" "$CC -march=sapphirerapids" ""
		ok $? "mobilenet_v2 int8 channel-last, -march=sapphirerapids (cn_amx): npu-run's bytes"
	fi
else _n=$((_n + 1)); echo "ok $_n # SKIP the channel-last mobilenet_v2 needs the aarch64 tools above"; fi

# float32 mobilenet_v2 (pointwise panels, depthwise rows, packed weights,
# max pooling): the header built with each instruction set computes
# npu-run --mode runtime's bytes; with -DNPU_F32_FMA (fused sums) it stays
# close but is no longer required to be equal
npu-import-pt "$PT/mobilenet_v2.pt" $(grep "^mobilenet_v2 " "$PT/cases.txt" | cut -d' ' -f2-) | npu-fuse --all \
	-o "$T/mobilenet_v2.f32.ir"
same_f32() {
	hcc=$1 runner=$2 tol=$3; shift 3
	ins=$(ls "$PT"/mobilenet_v2.in*.npy); args=""; for i in $ins; do args="$args -i $i"; done
	rm -rf "$T/res" && mkdir "$T/res" && npu-emit "$T/mobilenet_v2.f32.ir" --name m "$@" -o "$T/npu_m.h" 2>"$T/emit.err" &&
		$hcc $STRICT -O2 -DNPU_HEADER='"npu_m.h"' -DNPU_MODEL=npu_m_model -I"$T" "$EX/npu_host.c" -o "$T/host" -lm \
			2>"$T/cc.err" &&
		$runner "$T/host" run "$T/res" $ins &&
		npu-run "$T/mobilenet_v2.f32.ir" $args --mode runtime --compare "$T/res" $tol >/dev/null
}
same_f32 "$CC" "" "--rtol 0 --atol 0"
ok $? "mobilenet_v2 float32, portable: npu-run --mode runtime's bytes"
if [ "$(uname -m)" = x86_64 ]; then
	for isa in "-mavx2" "-mavx512f"; do
		f=$(echo "$isa" | sed 's/-m//')
		if grep -qw "$f" /proc/cpuinfo; then
			same_f32 "$CC $isa" "" "--rtol 0 --atol 0"
			ok $? "mobilenet_v2 float32, $isa: npu-run --mode runtime's bytes"
		fi
	done
	# a scratch bound gives the float panels (cf_conv_packed, K x 56
	# floats) up: less scratch than without it, the same bytes
	if grep -qw avx512f /proc/cpuinfo; then
		s0=$(npu-emit "$T/mobilenet_v2.f32.ir" --name m -o - | sed -n 's/.*kernel scratch \([0-9]*\)).*/\1/p' | head -1)
		same_f32 "$CC -mavx512f" "" "--rtol 0 --atol 0" --scratch-max 32768 &&
			s=$(sed -n 's/.*kernel scratch \([0-9]*\)).*/\1/p' "$T/npu_m.h" | head -1) && [ "$s" -lt "$s0" ]
		ok $? "mobilenet_v2 float32, -mavx512f, --scratch-max 32768: npu-run's bytes, scratch ${s:-?} < ${s0:-?}"
	fi
	if grep -qw avx512f /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
		same_f32 "$CC -mavx512f -mfma -DNPU_F32_FMA" "" "--rtol 1e-4 --atol 1e-5"
		ok $? "mobilenet_v2 float32, -mavx512f -mfma -DNPU_F32_FMA: within 1e-4 of npu-run --mode runtime"
	fi
fi
if command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null; then
	same_f32 "aarch64-linux-gnu-gcc" "qemu-aarch64 -L /usr/aarch64-linux-gnu" "--rtol 0 --atol 0"
	ok $? "mobilenet_v2 float32, aarch64 NEON under qemu: npu-run --mode runtime's bytes"
fi

# the digits demo: the whole arena within 1.5 times the activations' lower bound
npu-emit -v "$T/digits.q.ir" -o "$T/npu_d.h" 2>"$T/v.err"
arena=$(sed -n 's/.*: arena \([0-9]*\) bytes (activations.*/\1/p' "$T/v.err")
lb=$(sed -n 's/.*lower bound: \([0-9]*\) bytes.*/\1/p' "$T/v.err" | head -1)
[ -n "$arena" ] && [ -n "$lb" ] && [ $((2 * arena)) -le $((3 * lb)) ]
ok $? "digits int8: arena ${arena:-?} bytes <= 1.5 x lower bound ${lb:-?}"
done_testing
