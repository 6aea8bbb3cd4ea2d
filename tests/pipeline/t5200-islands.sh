#!/bin/sh
# What npu-fuse --all [--target grus] produces goes through npu-quant and
# npu-emit: fused activations on element-wise ops (a softmax rewritten for
# the grus target, x*sigmoid(x*y), sqrt(a+b)) for int8, int16 and fp16,
# byte for byte between npu-run and the emitted header and close to PyTorch;
# float islands reported one line each (-q, --strict); conv, gemm and fully
# connected layers with one output channel; graph outputs named like nodes
# keep their names. Fixtures: tests/gen/island_fixtures.py.
. "$(dirname "$0")/lib.sh"
EX=$TOP/share/npu/examples
D=$DATA/islands
CC=${CC:-cc}
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"

build_host() {	# build_host HEADER OUT
	$CC $STRICT -O2 -DNPU_HEADER="\"$(basename "$1")\"" -DNPU_MODEL=npu_m_model -I"$(dirname "$1")" \
		"$EX/npu_host.c" -o "$2" -lm 2>"$T/cc.err" || { diag "$(head -5 "$T/cc.err")"; return 1; }
}
ins() { ls "$D/$1".in[0-9].npy; }
# same_bytes IR MODEL: npu-emit's header computes what npu-run computes
same_bytes() {
	rm -rf "$T/res" && mkdir "$T/res" &&
		npu-emit "$1" --name m -o "$T/npu_m.h" && build_host "$T/npu_m.h" "$T/host" &&
		"$T/host" run "$T/res" $(ins "$2") &&
		npu-run "$1" -i "$D/$2.in.npz" --compare "$T/res" --rtol 0 --atol 0 >/dev/null
}
# tolerances against PyTorch per mode
tol() { case $1 in int8) echo "--rtol 0.06 --atol 0.02";; int16) echo "--rtol 1e-2 --atol 5e-3";;
	fp16) echo "--rtol 5e-3 --atol 2e-3";; esac; }
qargs() { case $1 in int8) echo "--target int8";; int16) echo "--target int8 --bits 16";; fp16) echo "--target grus";; esac; }

npu-import-pt "$D/softmax.pt" --input 0:1,16 | npu-fuse --all --target grus >"$T/softmax.ir" &&
	npu-dump "$T/softmax.ir" | grep -q 'softmax/sub  *sub  *f32 1x10, f32 1x1 -> f32 1x10  act=exp$'
ok $? "softmax for grus: npu-fuse --all --target grus puts the exp on the sub"
npu-import-pt "$D/swish.pt" --input 0:1,4,6,6 --input 1:1,4,6,6 | npu-fuse --all >"$T/swish.ir" &&
	npu-dump "$T/swish.ir" | grep -q ' mul  *mul  *f32 1x4x6x6, f32 1x4x6x6 -> f32 1x4x6x6  act=sigmoid$'
ok $? "x*sigmoid(x*y): the sigmoid on the inner mul"
npu-import-pt "$D/sqrtsum.pt" --input 0:1,3,5,5 --input 1:1,3,5,5 | npu-fuse --all >"$T/sqrtsum.ir" &&
	npu-dump "$T/sqrtsum.ir" | grep -q ' add  *add  *f32 1x3x5x5, f32 1x3x5x5 -> f32 1x3x5x5  act=sqrt$'
ok $? "sqrt(a+b): the sqrt on the add"

for m in softmax swish sqrtsum; do
	# float: the fused graph runs as PyTorch does, and so does its header
	npu-run "$T/$m.ir" -i "$D/$m.in.npz" --compare "$D/$m.out.npz" >/dev/null
	ok $? "$m float: npu-run matches PyTorch"
	rm -rf "$T/res" && mkdir "$T/res" && npu-emit "$T/$m.ir" --name m -o "$T/npu_m.h" &&
		build_host "$T/npu_m.h" "$T/host" && "$T/host" run "$T/res" $(ins $m) &&
		npu-run "$T/$m.ir" -i "$D/$m.in.npz" --compare "$T/res" --rtol 1e-5 --atol 1e-6 >/dev/null &&
		npu-run "$T/$m.ir" -i "$D/$m.in.npz" -o "$T/f.npz" && rm -rf "$T/res"
	ok $? "$m float: the header (fused activation in ELTWISE_F) compiles and agrees"
	for mode in int8 int16 fp16; do
		npu-quant "$T/$m.ir" $(qargs $mode) --calib "$D/$m.calib.npz" -q -o "$T/$m.$mode.ir" &&
			same_bytes "$T/$m.$mode.ir" $m
		ok $? "$m $mode: npu-quant, npu-emit, the header computes npu-run's bytes"
		npu-run "$T/$m.$mode.ir" -i "$D/$m.in.npz" --compare "$D/$m.out.npz" $(tol $mode) >/dev/null
		ok $? "$m $mode: close to PyTorch ($(tol $mode))"
	done
done
npu-dump "$T/swish.int8.ir" | grep -q 'mul.sigmoid  *lut  *i8 1x4x6x6, \[i8 256\] -> i8 1x4x6x6  fn=sigmoid' &&
	npu-dump "$T/softmax.int8.ir" | grep -q 'softmax/sub.exp  *lut  *i8 1x10, \[i8 256\] -> i8 1x10  fn=exp' &&
	npu-dump "$T/sqrtsum.fp16.ir" | grep -q ' add  *add  *f16 1x3x5x5, f16 1x3x5x5 -> f16 1x3x5x5  act=sqrt  precision=f16'
ok $? "integer targets split the activation off (a lut), fp16 keeps it fused"
printf 'name: f16t\nfamily: fp16\nactivation_types: [f16]\nweight_types: [f16]\nops: [add, mul, cast]\n' >"$T/f16t.yaml"
npu-quant "$T/swish.ir" --target "$T/f16t.yaml" -v -o "$T/q.ir" 2>"$T/err" &&
	grep -qx "npu-quant: $T/swish.ir: node 'mul' (mul): the target does not run its fused sigmoid: the node runs on the host in fp16" "$T/err"
ok $? "fp16: npu-quant -v names a fused activation the target lacks"

# float islands: one warning per node, -q, --strict
npu-quant "$T/sqrtsum.ir" --target int8 --calib "$D/sqrtsum.calib.npz" -o "$T/q.ir" 2>"$T/err" &&
	[ "$(cat "$T/err")" = "npu-quant: $T/sqrtsum.ir: node 'add.sqrt' (sqrt): warning: kept in float: the target does not run it" ]
ok $? "an island is a warning naming the node, its op and the reason: $(cat "$T/err")"
npu-quant "$T/softmax.ir" --target int8 --calib "$D/softmax.calib.npz" -o "$T/q.ir" 2>"$T/err" &&
	[ "$(cat "$T/err")" = "npu-quant: $T/softmax.ir: node 'softmax/div' (div): warning: kept in float: it has no integer kernel" ]
ok $? "softmax for grus on int8: only the div stays float, said once"
npu-quant "$T/softmax.ir" --target int8 --calib "$D/softmax.calib.npz" -q -o "$T/q.ir" 2>"$T/err" && [ ! -s "$T/err" ]
ok $? "-q: no warnings"
expect_fail 1 "^npu-quant: $T/softmax.ir: node 'softmax/div' \(div\): error: kept in float: it has no integer kernel\$" \
	"--strict: an island is an error, nothing written" -- \
	npu-quant "$T/softmax.ir" --target int8 --calib "$D/softmax.calib.npz" --strict -o "$T/out"
npu-quant "$T/softmax.ir" --target int8 --calib "$D/softmax.calib.npz" --strict --float-layers softmax/div \
	-o "$T/q.ir" 2>"$T/err" && [ ! -s "$T/err" ] && same_bytes "$T/q.ir" softmax
ok $? "--strict accepts nodes kept in float on purpose (--float-layers)"
printf 'ops:\n  div: int16\n  max_pool: float\nlayers:\n  softmax/sub.exp: float\n  softmax/sum: float\n' >"$T/c.yaml"
npu-quant "$T/softmax.ir" --target int8 --calib "$D/softmax.calib.npz" --config "$T/c.yaml" -o "$T/q.ir" 2>"$T/err" &&
	[ "$(cat "$T/err")" = "npu-quant: $T/softmax.ir: node 'softmax/div' (div): warning: kept in float: it has no integer kernel" ] &&
	npu-dump "$T/q.ir" | grep -q 'softmax/max0  *max_pool  *f32' && same_bytes "$T/q.ir" softmax
ok $? "--config: any op float or int16, also ops without an integer kernel"
npu-quant "$T/softmax.ir" --target int8 --calib "$D/softmax.calib.npz" \
	--float-layers fc,softmax/reshape,softmax/max0,softmax/max,softmax/sub,softmax/sub.exp,softmax/sum,softmax/div \
	-o "$T/q.ir" 2>"$T/err" && [ ! -s "$T/err" ] && same_bytes "$T/q.ir" softmax
ok $? "--float-layers: every node float, whatever its op"
expect_fail 1 "^npu-quant: error: --float-layers: 'nonesuch' is no node of the graph" "--float-layers: an unknown node" -- \
	npu-quant "$T/softmax.ir" --target int8 --calib "$D/softmax.calib.npz" --float-layers nonesuch -o "$T/out"

# one output channel: a heatmap conv and a linear to one logit (TorchScript:
# fully_connected; ONNX: Gemm), per channel
npu-import-pt "$D/head1.pt" --input 0:1,3,12,12 | npu-fuse --all >"$T/head1.ir" &&
	npu-import-onnx "$D/head1.onnx" | npu-fuse --all >"$T/head1o.ir" &&
	npu-dump "$T/head1o.ir" | grep -q 'gemm  *f32 1x8, \[f32 1x8\], \[f32 1\] -> f32 1x1' &&
	npu-dump "$T/head1o.ir" | grep -q 'matmul  *f32 1x8, \[f32 8x1\] -> f32 1x1'
ok $? "one-output heads import (ONNX: a Gemm to one logit, a MatMul by [8,1])"
for m in head1 head1o; do
	ref=$D/head1.out.npz; [ $m = head1o ] && ref=$D/head1.onnx.out.npz
	for mode in int8 int16 fp16; do
		npu-quant "$T/$m.ir" $(qargs $mode) --calib "$D/head1.calib.npz" -o "$T/$m.$mode.ir" 2>"$T/err" &&
			[ ! -s "$T/err" ] && same_bytes "$T/$m.$mode.ir" head1 &&
			npu-run "$T/$m.$mode.ir" -i "$D/head1.in.npz" --compare "$ref" $(tol $mode) >/dev/null
		ok $? "$m $mode: one output channel quantizes, byte-identical header, close to PyTorch"
	done
done
npu-dump -w "$T/head1.int8.ir" | tr -s ' ' >"$T/w" && grep -q '^ heat.weight[_0-9]*:q i8 1x8x1x1 8 .* q8 sym scale=' "$T/w" &&
	grep -q '^ logit.weight[_0-9]*:q i8 1x8 8 .* q8 sym scale=' "$T/w" && grep -q '^ body.weight[_0-9]*:q .* axis=0 n=8 ' "$T/w" &&
	grep -q '^ matmul.weight[_0-9]*:q i8 1x8 8 .* q8 sym scale=' "$T/w"
ok $? "one channel: one weight scale (also the [8,1] matmul weight, transposed); eight channels: eight"
for ws in per_tensor_asymmetric symmetric_full_range; do
	npu-quant "$T/head1o.ir" --target int8 --weight-scheme $ws --calib "$D/head1.calib.npz" -o "$T/q.ir" &&
		same_bytes "$T/q.ir" head1
	ok $? "one channel with --weight-scheme $ws"
done
npu-quant "$T/head1o.ir" --target grus --compress-fc --compress-conv -o "$T/q.ir" && same_bytes "$T/q.ir" head1 &&
	npu-run "$T/q.ir" -i "$D/head1.in.npz" --compare "$D/head1.onnx.out.npz" --rtol 2e-2 --atol 1e-2 >/dev/null
ok $? "one channel: fp16 with int8-compressed weights, byte-identical, close to PyTorch"
printf 'ops:\n  gemm: float\n  matmul: int16\n' >"$T/c.yaml"
npu-quant "$T/head1o.ir" --target int8 --calib "$D/head1.calib.npz" --config "$T/c.yaml" -o "$T/q.ir" 2>"$T/err" &&
	[ ! -s "$T/err" ] && npu-dump "$T/q.ir" >"$T/d" &&
	grep -q '/logit/Gemm  *fully_connected  *f32 1x8, \[f32 1x8\], \[f32 1\] -> f32 1x1  precision=f32' "$T/d" &&
	grep -q '/MatMul  *fully_connected  .* -> i16 1x1  precision=i16' "$T/d" && same_bytes "$T/q.ir" head1
ok $? "--config op rules match gemm and matmul made fully_connected by npu-quant"

# outputs named like the nodes that make them (TensorFlow style)
npu-import-onnx "$D/names.onnx" | npu-fuse --all >"$T/names.ir" &&
	npu-dump "$T/names.ir" | grep -q '^     1  max_value  *reduce_max '
ok $? "names.onnx: node 'max_value' writes output 'max_value'"
for mode in int8 int16 fp16; do
	npu-quant "$T/names.ir" $(qargs $mode) --calib "$D/names.calib.npz" -o "$T/names.$mode.ir" &&
		npu-dump "$T/names.$mode.ir" | sed -n '/^outputs:/,/^$/p' | awk 'NF > 1 { print $1 }' | tr '\n' ' ' >"$T/o" &&
		[ "$(cat "$T/o")" = "Result max_value " ] &&
		npu-run "$T/names.$mode.ir" -i "$D/names.in.npz" --compare "$D/names.out.npz" $(tol $mode) >/dev/null &&
		same_bytes "$T/names.$mode.ir" names && [ -f "$T/res/max_value.npy" ] && [ -f "$T/res/Result.npy" ] &&
		npu-emit "$T/names.$mode.ir" --name m | grep -q "output 1 'max_value': f32 \[1,4\]"
	ok $? "names $mode: the outputs keep their names ($(cat "$T/o"))"
done
done_testing
