#!/bin/sh
# npu-emit: the header compiles as strict C99 (and for 32-bit x86 where the
# compiler can) and computes byte for byte what npu-run computes, in int8,
# int16 and fp16, for one- and multi-input/output models; the binary model
# through npu_load; digits accuracy against PyTorch's; the arena plan.
. "$(dirname "$0")/lib.sh"
EX=$TOP/share/npu/examples
Q=$DATA/quant
PT=$DATA/pt
CC=${CC:-cc}
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"
probe_m32

# models: name, import arguments, calibration data, one sample per input
npu-import-pt "$EX/digits.pt" --input 0:1,1,8,8 | npu-fuse --all >"$T/digits.ir"
for m in mobilenet_v2 gru multiout; do
	npu-import-pt "$PT/$m.pt" $(grep "^$m " "$PT/cases.txt" | cut -d' ' -f2-) | npu-fuse --all >"$T/$m.ir"
done
ok $? "the test models import"
calib() { case $1 in digits) echo "$EX/digits.calib.npy";; mobilenet_v2) echo "$Q/mobilenet_v2.calib.npy";; *) echo "$Q/$1.calib.npz";; esac; }
samples() { case $1 in digits) echo "$EX/digits.calib.npy";; *) ls "$PT/$1".in*.npy;; esac; }

# host programs: npu_host.c around a header, or around the whole runtime
HOSTCC=$CC
build_host() {	# build_host HEADER OUT [CFLAGS...], compiled with $HOSTCC
	h=$1 out=$2; shift 2
	$HOSTCC $STRICT -O2 "$@" -DNPU_HEADER="\"$(basename "$h")\"" -DNPU_MODEL=npu_m_model -I"$(dirname "$h")" \
		"$EX/npu_host.c" -o "$out" -lm 2>"$T/cc.err" || { diag "$(head -5 "$T/cc.err")"; return 1; }
}
for mode in int8 int16 fp16; do
	case $mode in int8) tg="--target int8";; int16) tg="--target int8 --bits 16";; fp16) tg="--target grus";; esac
	for m in digits mobilenet_v2 gru multiout; do
		res=0
		npu-quant "$T/$m.ir" $tg --calib "$(calib $m)" -o "$T/$m.$mode.ir" &&
			npu-emit "$T/$m.$mode.ir" --name m -o "$T/npu_m.h" && build_host "$T/npu_m.h" "$T/host" || res=1
		ins=$(if [ $m = digits ]; then echo "$DATA/quant/digits.x.npy"; else samples $m; fi)
		args=""; for i in $ins; do args="$args -i $i"; done
		rm -rf "$T/res" && mkdir "$T/res" && [ $res = 0 ] && "$T/host" run "$T/res" $ins &&
			npu-run "$T/$m.$mode.ir" $args --compare "$T/res" --rtol 0 --atol 0 >"$T/cmp" || res=1
		ok $res "$m $mode: the header compiles ($STRICT) and its outputs equal npu-run's byte for byte"
		if [ $M32 = 1 ]; then
			HOSTCC=$CC32
			rm -rf "$T/res" && mkdir "$T/res" && build_host "$T/npu_m.h" "$T/host32" -msse2 -mfpmath=sse &&
				"$T/host32" run "$T/res" $ins && npu-run "$T/$m.$mode.ir" $args --compare "$T/res" --rtol 0 --atol 0 >/dev/null
			ok $? "$m $mode: the same with -m32"
			HOSTCC=$CC
		else
			ok 0 "$m $mode: -m32 # SKIP the compiler cannot build 32-bit x86 programs (Debian: gcc-i686-linux-gnu)"
		fi
	done
done

# the streaming GRU with its state output kept in half (fed back as is)
npu-quant "$T/gru.ir" --target grus --fp16-outputs output_1 -o "$T/gru.state.ir" &&
	npu-emit "$T/gru.state.ir" --name m -o "$T/npu_m.h" && build_host "$T/npu_m.h" "$T/host" &&
	rm -rf "$T/res" && mkdir "$T/res" && "$T/host" run "$T/res" $(samples gru) &&
	npu-run "$T/gru.state.ir" $(for i in $(samples gru); do echo "-i $i"; done) --compare "$T/res" --rtol 0 --atol 0 >/dev/null &&
	grep -q "': f16 \[2,1,12\], 48 bytes" "$T/npu_m.h"
ok $? "gru fp16 with an fp16 state output: byte-identical, the descriptor says f16"

# the binary model: the whole runtime, npu_load, the same bytes
$CC $STRICT -O2 -I"$TOP/share/npu/runtime" "$EX/npu_host.c" -o "$T/hostbin" -lm 2>"$T/cc.err"
ok $? "the whole runtime compiles as strict C99 with the host: $(head -3 "$T/cc.err")"
for m in digits gru multiout; do
	ins=$(if [ $m = digits ]; then echo "$DATA/quant/digits.x.npy"; else samples $m; fi)
	args=""; for i in $ins; do args="$args -i $i"; done
	rm -rf "$T/res" && mkdir "$T/res" && npu-emit "$T/$m.int8.ir" --format bin -o "$T/$m.bin" &&
		"$T/hostbin" "$T/$m.bin" run "$T/res" $ins && npu-run "$T/$m.int8.ir" $args --compare "$T/res" --rtol 0 --atol 0 >/dev/null
	ok $? "$m int8 --format bin: npu_load runs it to npu-run's bytes"
done
head -c 1000 "$T/digits.bin" >"$T/trunc.bin"
"$T/hostbin" "$T/trunc.bin" run "$T/res" "$DATA/quant/digits.x.npy" 2>"$T/err"
[ $? -ne 0 ] && grep -q 'not a valid npukit model' "$T/err"
ok $? "npu_load refuses a truncated binary model"

# digits accuracy on the test split against PyTorch's fp32 (tests/gen/quant_fixtures.py)
read right total <"$Q/digits.fp32"
for mode in int8 int16 fp16; do
	npu-emit "$T/digits.$mode.ir" --name m -o "$T/npu_m.h" && build_host "$T/npu_m.h" "$T/host" &&
		"$T/host" eval "$EX/digits.test.npy" "$EX/digits.labels.npy" >"$T/acc"
	got=$(sed -n 's/.*(\([0-9]*\)\/.*/\1/p' "$T/acc")
	# int8 within 0.5 points of fp32, int16 within 0.1, fp16 the same
	case $mode in int8) lim=0.5;; int16) lim=0.1;; fp16) lim=0;; esac
	awk -v r="$right" -v g="${got:-0}" -v n="$total" -v l="$lim" 'BEGIN { exit !((r - g) * 100 / n <= l) }'
	ok $? "digits $mode: $got/$total right, PyTorch fp32 $right/$total (at most $lim points lower)"
done

# a float graph: float32 kernels, close to the interpreter
npu-emit "$T/digits.ir" --name m -o "$T/npu_m.h" && build_host "$T/npu_m.h" "$T/host" &&
	rm -rf "$T/res" && mkdir "$T/res" && "$T/host" run "$T/res" "$DATA/quant/digits.x.npy" &&
	npu-run "$T/digits.ir" -i "$DATA/quant/digits.x.npy" --compare "$T/res" --rtol 1e-5 --atol 1e-6 >/dev/null
ok $? "an unquantized graph is emitted in float32 and matches npu-run"

# deterministic output, sizes and the plan
npu-emit "$T/mobilenet_v2.int8.ir" --name m -o "$T/a.h" && npu-emit "$T/mobilenet_v2.int8.ir" --name m -o "$T/b.h" &&
	cmp -s "$T/a.h" "$T/b.h"
ok $? "the same IR gives the same header"
grep -q '^#define NPU_M_ARENA_SIZE [0-9]*u$' "$T/a.h" && grep -q '^#define NPU_M_WEIGHT_SIZE [0-9]*u$' "$T/a.h" &&
	grep -q '^void npu_m_run(const void \*const in\[\], void \*const out\[\], void \*arena);' "$T/a.h" &&
	! grep -q '#include <math.h>' "$T/a.h" && ! grep -q 'k_gru_f\|k_conv_f' "$T/a.h"
ok $? "the header has the API, and only the kernels the model uses (no libm for int8)"
for m in digits mobilenet_v2 gru multiout; do
	for mode in int8 fp16; do
		npu-emit -v "$T/$m.$mode.ir" -o /dev/null 2>"$T/err"
		r=$(sed -n 's/.*ratio \([0-9.]*\)$/\1/p' "$T/err")
		awk -v r="${r:-9}" 'BEGIN { exit !(r <= 1.02) }'
		ok $? "$m $mode: arena within 1.02 of the lower bound (ratio $r)"
	done
done

# ops2 (prelu, instance_norm, conv_transpose, resize, gather, argmax, matmul
# of activations, ...): every node lowers; the float header equals
# npu-run --mode runtime byte for byte
npu-import-pt "$PT/ops2.pt" $(grep '^ops2 ' "$PT/cases.txt" | cut -d' ' -f2-) | npu-fuse --all >"$T/ops2.ir" &&
	npu-emit "$T/ops2.ir" --name m -o "$T/npu_m.h" && build_host "$T/npu_m.h" "$T/host" &&
	rm -rf "$T/res" && mkdir "$T/res" && "$T/host" run "$T/res" "$PT/ops2.in0.npy" "$PT/ops2.in1.npy" &&
	npu-run "$T/ops2.ir" -i "$PT/ops2.in0.npy" -i "$PT/ops2.in1.npy" --mode runtime --compare "$T/res" --rtol 0 --atol 0 >/dev/null
ok $? "ops2: every op lowers; the float header equals npu-run --mode runtime byte for byte"

# errors: every node the runtime cannot run (mean-variance normalisation
# reduces axes 0, 2, 3: not neighbouring), one line each, nothing written
rm -f "$T/out"
npu-import-onnx "$ONNX_NODE/test_mvn_expanded/model.onnx" -o "$T/mvn.ir" &&
	{ npu-emit "$T/mvn.ir" -o "$T/out" 2>"$T/err"; [ $? = 1 ]; } && [ ! -e "$T/out" ] &&
	[ "$(grep -c "): error: the runtime reduces neighbouring axes only" "$T/err")" = 2 ] &&
	! grep -v "^npu-emit: .*: node '[^']*' ([a-z_0-9]*): error: " "$T/err"
ok $? "ops the runtime lacks are all reported, one line each, exit 1, no output"
expect_fail 2 "--format must be c or bin" "a bad --format" -- npu-emit "$T/digits.int8.ir" --format elf -o "$T/out"
expect_fail 2 "--name must be a C identifier" "a bad --name" -- npu-emit "$T/digits.int8.ir" --name 9-x -o "$T/out"
expect_fail 1 "refus|terminal|not an npukit IR|looks like" "not an IR" -- npu-emit "$EX/digits.pt" -o "$T/out"

done_testing
