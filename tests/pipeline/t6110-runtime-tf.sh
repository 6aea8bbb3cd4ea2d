#!/bin/sh
# Ops new in the runtime on TensorFlow fixtures (tests/gen/tf_fixtures.py,
# expected outputs from TensorFlow.js), every node kept in float32 by a
# --config so npu-run runs the lowered program: gather, argmin (argmax of
# the negation, cast from int64 to int32), batched matmuls; space_to_batch
# (with padding) and batch_to_space in NHWC and LRN against the interpreter.
. "$(dirname "$0")/lib.sh"
D=$DATA/tf
printf 'default: {precision: float}\n' >"$T/float.yaml"
runtime() {	# runtime IN.ir OUT.ir CALIB
	npu-quant "$1" --target int8 --calib "$3" --config "$T/float.yaml" -o "$2" &&
		npu-dump "$2" | grep -q 'precision=f32'
}
for c in gather:gather argmin:amin matrices:sum; do
	n=${c%%:*}
	npu-import-tf "$D/$n.pb" --output "${c#*:}" -o "$T/f.ir" && runtime "$T/f.ir" "$T/r.ir" "$D/$n.input.npy" &&
		npu-run "$T/r.ir" -i "$D/$n.input.npy" --compare "$D/$n.expect.npy" >"$T/rep" 2>&1
	st=$?
	[ $st -eq 0 ] || diag "$n: $(cat "$T/rep")"
	ok $st "fixture $n through the runtime matches TensorFlow.js"
done
for o in s2b b2s; do
	# the interpreter's convolutions sum in another order: a few ulps
	npu-import-tf "$D/bn_patterns.pb" --output $o | npu-fuse --all -o "$T/b.ir" &&
		npu-run "$T/b.ir" -i "$D/bn_patterns.input.npy" -o "$T/ref.npz" &&
		runtime "$T/b.ir" "$T/r.ir" "$D/bn_patterns.input.npy" &&
		npu-run "$T/r.ir" -i "$D/bn_patterns.input.npy" --compare "$T/ref.npz" --rtol 1e-6 --atol 0 >/dev/null
	ok $? "bn_patterns up to $o (NHWC, padded blocks) through the runtime equals the interpreter"
done
# LRN: TF's depth_radius r and per-element alpha become size 2r+1 and
# alpha (2r+1) (tf_fixtures.py: r 2, alpha 0.1); the runtime's LRN_F equals
# the interpreter's (no TensorFlow.js values for this fixture)
npu-import-tf "$D/lrn.pb" --output y -o "$T/l.ir" &&
	npu-dump "$T/l.ir" | grep -q ' lrn .*alpha=0.5 beta=0.75 bias=2 size=5' &&
	npu-run "$T/l.ir" -i "$D/lrn.input.npy" -o "$T/ref.npz" && runtime "$T/l.ir" "$T/r.ir" "$D/lrn.input.npy" &&
	npu-run "$T/r.ir" -i "$D/lrn.input.npy" --compare "$T/ref.npz" --rtol 1e-6 --atol 0 >/dev/null
ok $? "TF LRN imports as lrn size 5 alpha 0.5; through the runtime it equals the interpreter"
done_testing
