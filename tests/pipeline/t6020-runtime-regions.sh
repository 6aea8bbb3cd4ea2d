#!/bin/sh
# npu-emit copies into a header only the runtime regions of the kernels a
# model uses (/* @npu-kernel NAMES */ ... /* @npu-end */ in npu_math.h and
# npu_rt.c; unmarked code always). Every kernel's own selection must
# compile alone as strict C99 without warnings: a helper whose region does
# not name a kernel that calls it, or a region named by a kernel that does
# not use it (an unused static function), breaks only the headers of the
# models using that kernel. The selection here follows put_source() in
# tools/npu-emit.c. With aarch64-linux-gnu-gcc, also for aarch64 NEON and
# NEON with the dot-product extension.
. "$(dirname "$0")/lib.sh"
CC=${CC:-cc}
RT=$TOP/share/npu/runtime
select_regions() {	# select_regions KERNEL FILE
	awk -v K="$1" '
	BEGIN { keep = 1 }
	{
		t = $0; sub(/^[ \t]+/, "", t)
		if (index(t, "/* @npu-kernel ") == 1) { keep = index(t, " " K " ") > 0 || index(t, " " K "*") > 0; next }
		if (index(t, "/* @npu-end */") == 1) { keep = 1; next }
		if (keep && index($0, "#include \"npu_") != 1) print
	}' "$2"
}
kernels=$(sed -n '/^enum {$/,/NPU_K_COUNT/p' "$RT/npu_rt.h" | grep -o 'NPU_K_[A-Z0-9_]*' | sed 's/^NPU_K_//' | grep -v '^COUNT$')
[ "$(echo $kernels | wc -w)" -ge 30 ]
ok $? "the kernel list is read from npu_rt.h ($(echo $kernels | wc -w) kernels)"
for k in $kernels; do
	{ echo '#include "npu_rt.h"'; echo '#include "npu_half.h"'
	  select_regions "$k" "$RT/npu_math.h"; select_regions "$k" "$RT/npu_rt.c"; } >"$T/$k.c"
	$CC -std=c99 -Wall -Wextra -pedantic -Werror -I"$RT" -c "$T/$k.c" -o "$T/$k.o" 2>"$T/err"
	st=$?
	[ $st = 0 ] || diag "$(grep -m2 'error' "$T/err")"
	ok $st "the runtime with only $k's regions compiles (-std=c99 -Wall -Wextra -pedantic -Werror)"
done
# the same selections for aarch64, NEON and NEON with sdot (other #if
# branches, other helpers): one line per instruction set
if command -v aarch64-linux-gnu-gcc >/dev/null; then
	for fl in -march=armv8-a -march=armv8.2-a+dotprod; do
		bad=""
		for k in $kernels; do
			aarch64-linux-gnu-gcc $fl -std=c99 -Wall -Wextra -pedantic -Werror -I"$RT" -c "$T/$k.c" -o "$T/$k.o" \
				2>"$T/err" || { bad="$bad $k"; diag "$k $fl: $(grep -m1 'error' "$T/err")"; }
		done
		[ -z "$bad" ]
		ok $? "aarch64 $fl: every kernel's selection compiles (failed:${bad:- none})"
	done
fi
# CONV_Q's AMX-INT8 path is compiled only for such targets
if $CC -march=sapphirerapids -E -x c /dev/null >/dev/null 2>&1; then
	$CC -std=c99 -Wall -Wextra -pedantic -Werror -march=sapphirerapids -I"$RT" -c "$T/CONV_Q.c" -o "$T/CONV_Q.o" \
		2>"$T/err" && nm "$T/CONV_Q.o" | grep -q cq_amx_tile
	st=$?
	[ $st = 0 ] || diag "$(grep -m2 'error' "$T/err")"
	ok $st "CONV_Q's regions with -march=sapphirerapids (AMX tiles) compile alike"
fi
done_testing
