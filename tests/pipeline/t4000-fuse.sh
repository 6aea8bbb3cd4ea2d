#!/bin/sh
# npu-fuse: every pass keeps what the graph computes and removes its
# pattern. Fixtures (tests/gen/fuse_fixtures.py) are PyTorch models exported
# with their BatchNormalization nodes kept, with PyTorch's outputs; each is
# run with npu-run before and after npu-fuse: the fused graph must match the
# unfused one within 1e-5 relative to the output's magnitude, and PyTorch's
# output within 1e-4. Node counts come from npu-dump --json.
. "$(dirname "$0")/lib.sh"
F=$DATA/fuse

ops() {	# ops OP IR: how many nodes of op OP the IR has
	npu-dump --json "$2" | grep -o "\"op\": \"$1\"" | wc -l
}

# fused M PASSES...: import M, fuse, check outputs; leaves $T/M.ir, $T/M.fused.ir
fused() {
	m=$1; shift
	res=0
	d=${FD:-$F}
	npu-import-onnx "$d/$m.onnx" -o "$T/$m.ir" &&
		npu-run "$T/$m.ir" -i "$d/$m.input.npy" -o "$T/$m.ref.npy" || res=1
	npu-fuse --verify-each "$@" "$T/$m.ir" -o "$T/$m.fused.ir" 2>"$T/err" || { diag "$m: $(cat "$T/err")"; res=1; }
	npu-run -q "$T/$m.fused.ir" -i "$d/$m.input.npy" --compare "$T/$m.ref.npy" --rtol 1e-5 --atol 0 ||
		{ diag "$m: fused output differs from the unfused one"; res=1; }
	npu-run -q "$T/$m.fused.ir" -i "$d/$m.input.npy" --compare "$d/$m.output.npy" ||
		{ diag "$m: fused output differs from PyTorch's"; res=1; }
	ok $res "$m: fused graph computes the same ($*)"
}

fused convbn --bn
[ "$(ops batch_norm "$T/convbn.ir")" -eq 4 ] && [ "$(ops batch_norm "$T/convbn.fused.ir")" -eq 0 ] &&
	[ "$(ops conv "$T/convbn.fused.ir")" -eq 2 ] && [ "$(ops conv_transpose "$T/convbn.fused.ir")" -eq 1 ]
ok $? "convbn: batch_norm folded into conv, depthwise conv, conv_transpose and gemm"
npu-fuse -v --bn "$T/convbn.ir" -o "$T/x.ir" 2>"$T/err"
grep -q "^npu-fuse: .*: bn: folded batch_norm 2 into conv, 1 into conv_transpose, 1 into gemm$" "$T/err"
ok $? "convbn: -v says what the pass folded"

fused convbn --all
[ "$(ops relu "$T/convbn.fused.ir")" -eq 0 ] && [ "$(ops clip "$T/convbn.fused.ir")" -eq 0 ] &&
	[ "$(npu-dump --json "$T/convbn.fused.ir" | grep -c '"act": "relu"')" -eq 1 ] &&
	[ "$(npu-dump --json "$T/convbn.fused.ir" | grep -c '"act": "clip", "act_params": \[0, 6\]')" -eq 1 ]
ok $? "convbn: relu and relu6 recorded as the convs' activations"

fused shared --all
[ "$(ops batch_norm "$T/shared.fused.ir")" -eq 1 ]
ok $? "shared: a batch_norm whose conv output has another consumer stays"
npu-fuse -v -v --bn "$T/shared.ir" -o "$T/x.ir" 2>"$T/err"
grep -q "bn: node '.*' (batch_norm): not folded: the producer's output has other consumers" "$T/err"
ok $? "shared: -v -v says why"

fused muladd --passes=mul-add
[ "$(ops mul "$T/muladd.ir")" -eq 3 ] && [ "$(ops add "$T/muladd.ir")" -eq 1 ] &&
	[ "$(ops mul "$T/muladd.fused.ir")" -eq 2 ] && [ "$(ops add "$T/muladd.fused.ir")" -eq 0 ]
ok $? "muladd: per-channel constant mul and add folded; mul by a tensor and along H stay"
npu-fuse -v -v --passes=mul-add "$T/muladd.ir" -o "$T/x.ir" 2>"$T/err"
grep -q "not an f32 constant" "$T/err" && grep -q "varies along an axis other than the channels" "$T/err"
ok $? "muladd: -v -v says why the two others stay"

fused shapes --passes=reshape
[ "$(ops reshape "$T/shapes.fused.ir")" -eq 1 ] && [ "$(ops unsqueeze "$T/shapes.fused.ir")" -eq 0 ] &&
	[ "$(ops flatten "$T/shapes.fused.ir")" -eq 0 ]
ok $? "shapes: reshape, unsqueeze, flatten chain merged into one reshape"

fused transposes --passes=transpose
[ "$(ops transpose "$T/transposes.ir")" -eq 5 ] && [ "$(ops transpose "$T/transposes.fused.ir")" -eq 2 ]
ok $? "transposes: a cancelling pair removed, a pair merged, a shared one kept"

fused splitconv --all
[ "$(ops conv "$T/splitconv.ir")" -eq 3 ] && [ "$(ops batch_norm "$T/splitconv.ir")" -eq 1 ] &&
	[ "$(npu-dump "$T/splitconv.fused.ir" | sed -n '/^nodes:/,$p' | tail -n +3 | awk '{print $3}' | tr '\n' ' ')" = "conv conv " ] &&
	npu-dump --json "$T/splitconv.fused.ir" | grep -q '"group": 2'
ok $? "splitconv: slices -> convs -> concat made one grouped conv; bn, relu and the hand-written batch norm folded"
npu-fuse -v "$T/splitconv.ir" -o "$T/x.ir" 2>"$T/err"
grep -q "fold-constants: folded 1 sqrt" "$T/err" && grep -q "mul-add: folded mul/add 2 into conv" "$T/err" &&
	grep -q "bn-recognize: recognised 1 batch_norm" "$T/err"
ok $? "splitconv: the hand-written batch norm: sqrt folded, sub and div folded, mul and add recognised as batch_norm"

fused matmulbn --all
[ "$(ops batch_norm "$T/matmulbn.fused.ir")" -eq 0 ] && [ "$(ops matmul "$T/matmulbn.fused.ir")" -eq 0 ] &&
	[ "$(ops gemm "$T/matmulbn.fused.ir")" -eq 1 ] && [ "$(ops reshape "$T/matmulbn.fused.ir")" -eq 0 ]
ok $? "matmulbn: batch_norm folded through the reshape into the matmul (now a gemm with bias)"

fused softmax --passes=softmax
[ "$(ops softmax "$T/softmax.fused.ir")" -eq 0 ] && [ "$(ops log_softmax "$T/softmax.fused.ir")" -eq 0 ] &&
	[ "$(ops max_pool "$T/softmax.fused.ir")" -eq 5 ] && [ "$(ops exp "$T/softmax.fused.ir")" -eq 3 ] &&
	[ "$(npu-dump --json "$T/softmax.fused.ir" | grep -c '"ceil_mode": 1')" -eq 1 ]
ok $? "softmax: 1x10, 1x17 and 1x40 softmax/log_softmax rewritten with max_pool windows of at most 15"
npu-fuse --all "$T/softmax.ir" -o "$T/x.ir" && [ "$(ops softmax "$T/x.ir")" -eq 2 ]
ok $? "softmax: --all leaves softmax alone (the rewrite is for NPUs without it)"

# a TensorFlow graph (tests/gen/tf_fixtures.py, reference from TF.js):
# channel-last convs between transposes with FusedBatchNormV3 + relu6/relu,
# a depthwise conv, an atrous conv (space_to_batch, conv, batch_to_space),
# and Keras' unfused batch norm with and without center/scale
TF=$DATA/tf/bn_patterns
npu-import-tf "$TF.pb" --input x:1,8,8,3 --output kbn2/add_1 -o "$T/tf.ir" &&
	npu-run "$T/tf.ir" -i "$TF.input.npy" -o "$T/tf.ref.npy" &&
	npu-fuse --verify-each "$T/tf.ir" -o "$T/tf.fused.ir" &&
	npu-run -q "$T/tf.fused.ir" -i "$TF.input.npy" --compare "$T/tf.ref.npy" --rtol 1e-5 --atol 0 &&
	npu-run -q "$T/tf.fused.ir" -i "$TF.input.npy" --compare "$TF.expect.npy"
ok $? "tf bn_patterns: fused graph computes the same (and matches TF.js)"
[ "$(ops batch_norm "$T/tf.ir")" -eq 3 ] && [ "$(ops batch_norm "$T/tf.fused.ir")" -eq 0 ] &&
	[ "$(ops mul "$T/tf.fused.ir")" -eq 0 ] && [ "$(ops add "$T/tf.fused.ir")" -eq 0 ] &&
	[ "$(ops relu "$T/tf.fused.ir")" -eq 0 ] && [ "$(ops relu6 "$T/tf.fused.ir")" -eq 0 ] &&
	[ "$(ops conv "$T/tf.fused.ir")" -eq 5 ] && [ "$(ops transpose "$T/tf.fused.ir")" -lt "$(ops transpose "$T/tf.ir")" ]
ok $? "tf bn_patterns: 3 fused and 2 Keras batch norms folded (through transposes and batch_to_space), activations on the convs"

# target profiles (share/npu/targets, npu-target(5))
npu-fuse --target grus "$T/softmax.ir" -o "$T/x.ir" && [ "$(ops softmax "$T/x.ir")" -eq 0 ] &&
	[ "$(npu-dump --json "$T/x.ir" | grep -c '"target.name": "grus"')" -eq 1 ]
ok $? "--target grus (no softmax on that NPU) rewrites softmax and records the target"
npu-fuse --target int8 "$T/softmax.ir" -o "$T/x.ir" && [ "$(ops softmax "$T/x.ir")" -eq 2 ]
ok $? "--target int8 (softmax supported) keeps it"
if [ -d "$NPU_BIN/../share/npu/targets" ]; then
	env -u NPU_TARGETS npu-fuse --target grus "$T/softmax.ir" -o "$T/x.ir"
	ok $? "profiles are found next to the program (bin/../share/npu/targets)"
else
	echo "ok $((_n += 1)) # SKIP no share/npu/targets next to $NPU_BIN"
fi
printf 'name: x\nfamily: fp32\n' >"$T/bad1.yaml"
printf 'name: x\nfamily: int\nops: [conv, frob]\n' >"$T/bad2.yaml"
printf 'name: [x\n' >"$T/bad3.yaml"
printf 'name: x\nfamily: int\nspeed: 3\n' >"$T/bad4.yaml"
expect_fail 1 "bad1.yaml: error: 'family' must be fp16 or int" "profile with a bad family" -- npu-fuse -t "$T/bad1.yaml" "$T/softmax.ir" -o "$T/out"
expect_fail 1 "bad2.yaml: error: 'ops': unknown entry 'frob'" "profile with an unknown op" -- npu-fuse -t "$T/bad2.yaml" "$T/softmax.ir" -o "$T/out"
expect_fail 1 "bad3.yaml:2: error: " "profile that is not YAML" -- npu-fuse -t "$T/bad3.yaml" "$T/softmax.ir" -o "$T/out"
expect_fail 1 "bad4.yaml: error: unknown key 'speed'" "profile with an unknown key" -- npu-fuse -t "$T/bad4.yaml" "$T/softmax.ir" -o "$T/out"
expect_fail 1 "target 'nosuch': .*No such file" "unknown target name" -- npu-fuse -t nosuch "$T/softmax.ir" -o "$T/out"
expect_fail 1 "target 'x;y': not a profile name or path" "target name with odd characters" -- npu-fuse -t 'x;y' "$T/softmax.ir" -o "$T/out"

fused mobilenet_v2 --all
[ "$(ops batch_norm "$T/mobilenet_v2.ir")" -eq 52 ] && [ "$(ops batch_norm "$T/mobilenet_v2.fused.ir")" -eq 0 ] &&
	[ "$(ops identity "$T/mobilenet_v2.fused.ir")" -eq 0 ] && [ "$(ops clip "$T/mobilenet_v2.fused.ir")" -eq 0 ]
ok $? "mobilenet_v2: no batch_norm, identity or relu6 node left"

FD=$DATA fused tinycnn --all
npu-import-onnx "$DATA/tinycnn.onnx" -o "$T/t.ir" && npu-fuse "$T/t.ir" -o "$T/t1.ir" && npu-fuse "$T/t1.ir" -o "$T/t2.ir" &&
	[ "$(npu-dump "$T/t1.ir" | sed -n '/^nodes:/,$p')" = "$(npu-dump "$T/t2.ir" | sed -n '/^nodes:/,$p')" ]
ok $? "running npu-fuse twice changes nothing the second time"
npu-fuse "$T/mobilenet_v2.fused.ir" -o "$T/m2.ir" && cmp -s "$T/mobilenet_v2.fused.ir" "$T/m2.ir"
[ $? -ne 0 ] && [ "$(npu-dump "$T/mobilenet_v2.fused.ir" | sed -n '/^nodes:/,$p')" = "$(npu-dump "$T/m2.ir" | sed -n '/^nodes:/,$p')" ]
ok $? "mobilenet_v2: a second --all keeps every node (only the history grows)"

npu-fuse "$T/t.ir" --bn -o "$T/h.ir" && [ "$(npu-dump --history "$T/h.ir" | tail -n 1 | sed 's/^npu-fuse [^ ]* //')" = "$T/t.ir --bn -o $T/h.ir" ]
ok $? "the history records the arguments in the order given"

# the pass table
npu-fuse --list >"$T/list" && [ "$(wc -l <"$T/list")" -ge 10 ] && head -n 1 "$T/list" | grep -q "^identity " &&
	tail -n 1 "$T/list" | grep -q "^dce " && grep -q "^softmax .*\[not in --all\]$" "$T/list"
ok $? "--list shows the passes in run order"

# errors
expect_fail 2 "unknown pass 'frobnicate'" "unknown pass" -- npu-fuse --passes=bn,frobnicate "$T/t.ir" -o "$T/out"
expect_fail 2 "unknown option '--frob'" "unknown option" -- npu-fuse --frob "$T/t.ir" -o "$T/out"
expect_fail 1 "looks like an ONNX model" "ONNX model given to npu-fuse" -- npu-fuse "$DATA/tinycnn.onnx" -o "$T/out"
expect_fail 1 "truncated IR stream" "truncated IR" -- sh -c "head -c 300 '$T/t.ir' | npu-fuse -o '$T/out'"
done_testing
