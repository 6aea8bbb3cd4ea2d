#!/bin/sh
# npu-emit's weights: the string-literal rows of the header hold exactly the
# model's bytes, 64-byte aligned, optionally in a named section; --weights
# FILE leaves them out of the header and every way of providing them
# (.incbin, objcopy -I binary, FILE.c, an address or a run-time load) runs
# to npu-run's bytes. npu_host: multi-input/multi-output run, eval and bench,
# and run creates its output directory.
. "$(dirname "$0")/lib.sh"
EX=$TOP/share/npu/examples
PT=$DATA/pt
CC=${CC:-cc}
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"
X=$DATA/quant/digits.x.npy

npu-import-pt "$EX/digits.pt" --input 0:1,1,8,8 | npu-fuse --all |
	npu-quant --target int8 --calib "$EX/digits.calib.npy" -o "$T/d.ir" &&
	npu-import-pt "$PT/multiout.pt" $(grep '^multiout ' "$PT/cases.txt" | cut -d' ' -f2-) | npu-fuse --all -o "$T/mo.ir" &&
	npu-quant "$T/mo.ir" --target int8 --calib "$DATA/quant/multiout.calib.npz" -o "$T/mo.q.ir"
ok $? "the test models import and quantize"

host() {	# host OUT CFLAGS... (npu_host.c around $T/npu_m.h)
	out=$1; shift
	$CC $STRICT -O2 "$@" -DNPU_HEADER='"npu_m.h"' -DNPU_MODEL=npu_m_model -I"$T" "$EX/npu_host.c" -o "$out" -lm \
		2>"$T/cc.err" || { diag "$(head -3 "$T/cc.err")"; return 1; }
}
same_as_run() {	# same_as_run IR HOST [HOST-ARGS...]: digits sample, byte for byte
	ir=$1; shift
	rm -rf "$T/res" && "$@" run "$T/res" "$X" && npu-run "$ir" -i "$X" --compare "$T/res" --rtol 0 --atol 0 >/dev/null
}

# the bytes in the header: a program prints them and their alignment
cat >"$T/wdump.c" <<'EOF'
#define NPU_IMPLEMENTATION
#include "npu_m.h"
#include <stdio.h>
int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "wb") : NULL;
	if (!f || fwrite(npu_m_model.weights, 1, npu_m_model.weight_size, f) != npu_m_model.weight_size || fclose(f))
		return 1;
	printf("%u\n", (unsigned)((size_t)npu_m_model.weights % 64));
	return 0;
}
EOF
npu-emit "$T/d.ir" --name m -o "$T/npu_m.h" && npu-emit "$T/d.ir" --name m --weights "$T/w.bin" -o "$T/ext.h" &&
	$CC $STRICT -O2 -I"$T" "$T/wdump.c" -o "$T/wdump" && [ "$("$T/wdump" "$T/hw.bin")" = 0 ] &&
	cmp "$T/hw.bin" "$T/w.bin" && [ "$(wc -c <"$T/w.bin")" = "$(sed -n 's/^#define NPU_M_WEIGHT_SIZE \([0-9]*\)u$/\1/p' "$T/npu_m.h")" ]
ok $? "the header's weights are the --weights file's bytes, NPU_M_WEIGHT_SIZE of them, 64-byte aligned"
n=$(od -An -v -tu1 "$T/w.bin" | tr -s ' ' '\n' | sed '/^$/d' | sort -u | wc -l)
[ "$n" -ge 200 ] && [ "$(wc -c <"$T/w.bin")" -gt 8064 ]
ok $? "the weights cover $n byte values and more than two 4032-byte rows"
! grep -q 'long double' "$T/npu_m.h" && grep -q '^NPU_ALIGN64 NPU_WEIGHTS_ATTR static const struct npu_m_weights_s { unsigned char r\[3\]\[4032\]; unsigned char t\[' "$T/npu_m.h" &&
	[ "$(awk 'length > 300' "$T/npu_m.h" | wc -l)" = 0 ]
ok $? "weights as rows of string literals (no long double union), no line over 300 characters"
host "$T/h" && same_as_run "$T/d.ir" "$T/h"
ok $? "the header (weights inside) runs to npu-run's bytes"
if command -v objdump >/dev/null; then
	host "$T/hs" -DNPU_WEIGHTS_SECTION='".npu_weights"' && same_as_run "$T/d.ir" "$T/hs" &&
		sz=$(objdump -h "$T/hs" | awk '$2 == ".npu_weights" { print $3 }') && [ -n "$sz" ] &&
		[ $((0x$sz)) -ge "$(wc -c <"$T/w.bin")" ]
	ok $? "NPU_WEIGHTS_SECTION puts the weights in that section; the same bytes out"
else
	ok 0 "NPU_WEIGHTS_SECTION # SKIP no objdump (Debian: binutils)"
fi
[ "$(wc -c <"$T/ext.h")" -lt "$(($(wc -c <"$T/npu_m.h") - 30000))" ] && ! grep -q 'NPU_ALIGN64 NPU_WEIGHTS_ATTR static' "$T/ext.h" &&
	grep -q '^#define NPU_M_WEIGHTS_FILE ".*w.bin"$' "$T/ext.h"
ok $? "with --weights the header holds no weights, and names their file"

# --weights: every way to provide them
cp "$T/ext.h" "$T/npu_m.h"
(cd "$T" && npu-emit d.ir --name m --weights w.bin -o npu_m.h && host "$T/hi" -DNPU_M_WEIGHTS_INCBIN) &&
	same_as_run "$T/d.ir" "$T/hi"
ok $? "--weights w.bin with NPU_M_WEIGHTS_INCBIN (.incbin): npu-run's bytes"
(cd "$T" && npu-emit d.ir --name m --weights w.bin -o npu_m.h && host "$T/his" -DNPU_M_WEIGHTS_INCBIN \
	-DNPU_WEIGHTS_SECTION='".npu_weights"') && same_as_run "$T/d.ir" "$T/his" &&
	{ ! command -v objdump >/dev/null || objdump -h "$T/his" | grep -q ' \.npu_weights '; }
ok $? "the same with NPU_WEIGHTS_SECTION: the weights in that section"
if command -v objcopy >/dev/null && objcopy --help | grep -q set-section-alignment; then
	fmt=$(objdump -f "$T/hi" | sed -n 's/.*file format \(.*\)$/\1/p')
	(cd "$T" && objcopy -I binary -O "$fmt" --set-section-alignment .data=64 \
		--rename-section .data=.rodata,alloc,load,readonly,data,contents --add-section .note.GNU-stack=/dev/null \
		w.bin wbin.o) && host "$T/ho" -DNPU_M_WEIGHTS_SYMBOL=_binary_w_bin_start "$T/wbin.o" &&
		same_as_run "$T/d.ir" "$T/ho"
	ok $? "--weights w.bin linked from objcopy -I binary ($fmt): npu-run's bytes"
else
	ok 0 "objcopy -I binary # SKIP no objcopy with --set-section-alignment (Debian: binutils)"
fi
npu-emit "$T/d.ir" --name m --weights "$T/w.c" -o "$T/npu_m.h" && $CC $STRICT -O2 -c "$T/w.c" -o "$T/w.o" &&
	host "$T/hc" "$T/w.o" && same_as_run "$T/d.ir" "$T/hc"
ok $? "--weights w.c compiles alone ($STRICT) and links: npu-run's bytes"
npu-emit "$T/d.ir" --name m --weights "$T/w.bin" -o "$T/npu_m.h" && host "$T/ha" -DNPU_M_WEIGHTS_ADDR=0 &&
	same_as_run "$T/d.ir" "$T/ha" -w "$T/w.bin"
ok $? "NPU_M_WEIGHTS_ADDR=0 and the weights loaded at run time (npu_host -w): npu-run's bytes"
"$T/ha" run "$T/res" "$X" 2>"$T/err"; st=$?
[ $st = 1 ] && grep -q 'placed at run time' "$T/err"
ok $? "npu_host refuses to run a model without its weights"
head -c 100 "$T/w.bin" >"$T/short.bin"
"$T/ha" -w "$T/short.bin" run "$T/res" "$X" 2>"$T/err"; st=$?
[ $st = 1 ] && grep -q 'wrong size' "$T/err"
ok $? "npu_host -w refuses a weights file of the wrong size"
npu-emit "$T/d.ir" --name m --weights "$T/a.bin" -o "$T/a.h" && npu-emit "$T/d.ir" --name m --weights "$T/a.bin" -o "$T/b.h" &&
	cmp -s "$T/a.h" "$T/b.h" && npu-emit "$T/d.ir" --name m --weights "$T/b.c" -o /dev/null &&
	npu-emit "$T/d.ir" --name m --weights "$T/a.c" -o /dev/null && cmp -s "$T/a.c" "$T/b.c"
ok $? "--weights output is deterministic"

# errors: nothing written
expect_fail 2 "--weights goes with --format c" "--weights with --format bin" -- \
	npu-emit "$T/d.ir" --format bin --weights "$T/x.bin" -o "$T/out"
expect_fail 2 "--weights and -o name the same file" "--weights the same file as -o" -- \
	npu-emit "$T/d.ir" --weights "$T/out" -o "$T/out"
expect_fail 1 "no/such/dir" "--weights into a missing directory: no header either" -- \
	npu-emit "$T/d.ir" --weights "$T/no/such/dir/w.bin" -o "$T/out"
rm -f "$T/w2.bin"
npu-emit "$T/d.ir" --weights "$T/w2.bin" -o "$T/no/such/dir/h" 2>/dev/null; st=$?
[ $st = 1 ] && [ ! -e "$T/w2.bin" ] && [ -z "$(ls -A "$T" | grep '^\.w2\.bin')" ]
ok $? "a header that cannot be written leaves no weights file"

# npu_host: two inputs, seven outputs
npu-emit "$T/mo.q.ir" --name m -o "$T/npu_m.h" && host "$T/hm"
ok $? "multiout (2 inputs, 7 outputs) int8 builds"
rm -rf "$T/deep" && "$T/hm" run "$T/deep/a/b" "$PT/multiout.in0.npy" "$PT/multiout.in1.npy" &&
	[ "$(ls "$T/deep/a/b" | wc -l)" = 7 ] &&
	npu-run "$T/mo.q.ir" -i "$PT/multiout.in0.npy" -i "$PT/multiout.in1.npy" --compare "$T/deep/a/b" --rtol 0 --atol 0 >/dev/null
ok $? "npu_host run creates its output directory (and parents); 7 outputs, npu-run's bytes"
"$T/hm" bench "$PT/multiout.in0.npy" "$PT/multiout.in1.npy" 5 >"$T/bench" &&
	grep -Eq '^ms: [0-9.]+ \(min [0-9.]+, max [0-9.]+\)$' "$T/bench"
ok $? "npu_host bench with two inputs prints the median, min and max"
# eval: top-1 of output 4 (6 classes); PyTorch's output_4 in
# multiout.out.npz has its largest value at index 3 (tests/gen/pt_fixtures.py)
npy_i64() {	# npy_i64 FILE VALUE: a one-element int64 .npy (VALUE < 256)
	h="{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }"
	while [ $(( (10 + ${#h} + 1) % 64 )) != 0 ]; do h="$h "; done
	{ printf '\223NUMPY\001\000'; printf "\\$(printf '%03o' $((${#h} + 1)))\\000"; printf '%s\n' "$h"
	  printf "\\$(printf '%03o' "$2")\\000\\000\\000\\000\\000\\000\\000"; } >"$1"
}
npu-emit "$T/mo.ir" --name m -o "$T/npu_m.h" && host "$T/hf" && res=0 || res=1
for l in 0 1 2 3 4 5; do
	npy_i64 "$T/l$l.npy" $l
	"$T/hf" -k 4 eval "$PT/multiout.in0.npy" "$PT/multiout.in1.npy" "$T/l$l.npy" >"$T/acc$l" || res=1
done
grep -q '(1/1)' "$T/acc3" && [ "$(cat "$T"/acc? | grep -c '(0/1)')" = 5 ] || res=1
ok $res "npu_host -k 4 eval with two inputs: top-1 of output 4 is PyTorch's (index 3), the other labels miss"
"$T/hf" -k 7 eval "$PT/multiout.in0.npy" "$PT/multiout.in1.npy" "$T/l3.npy" 2>"$T/err"; st=$?
[ $st = 1 ] && grep -q 'no such output' "$T/err"
ok $? "npu_host eval -k beyond the outputs: an error"
"$T/hf" run "$T/res" "$PT/multiout.in0.npy" 2>"$T/err"; st=$?
[ $st = 2 ] && grep -q 'this model has 2' "$T/err"
ok $? "npu_host with too few inputs: usage naming the model's input count"

done_testing
