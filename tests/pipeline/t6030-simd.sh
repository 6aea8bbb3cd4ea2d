#!/bin/sh
# t6030-simd: CONV_Q's int8 paths (test_simd: GEMM micro-kernel, depthwise,
# generic) against the definition of the convolution, once per instruction
# set: portable C, SSE4.1, AVX2 (natively, or under qemu-x86_64 when this
# CPU lacks AVX2) and aarch64 NEON under qemu-aarch64.
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

run_simd test_simd
if [ "$(uname -m)" = x86_64 ]; then
	run_simd test_simd_sse41
	if grep -qw avx2 /proc/cpuinfo; then run_simd test_simd_avx2
	elif command -v qemu-x86_64 >/dev/null; then run_simd test_simd_avx2 qemu-x86_64 -cpu max
	else _n=$((_n + 1)); echo "ok $_n # SKIP no AVX2 here and no qemu-x86_64"; fi
fi
if command -v qemu-aarch64 >/dev/null; then run_simd test_simd_neon qemu-aarch64 -L /usr/aarch64-linux-gnu
else _n=$((_n + 1)); echo "ok $_n # SKIP qemu-aarch64 not installed"; fi
done_testing
