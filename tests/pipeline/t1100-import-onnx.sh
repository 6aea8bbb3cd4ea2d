#!/bin/sh
# npu-import-onnx: models from the ONNX node test suite and hand-made ones
# (tests/data/onnx/, made by tests/gen/onnx_fixtures.py) import; every
# malformed or unsupported model fails with one line naming the problem,
# exit status 1, and no output file; bad options exit 2.
. "$(dirname "$0")/lib.sh"
O=$DATA/onnx

# expect_usage 'STDERR-REGEX' DESC -- CMD...: exit 2, the message line and
# "Try 'npu-import-onnx --help'.", no output file.
expect_usage() {
	re=$1 desc=$2; shift 3
	rm -f "$T"/out "$T"/.out.* "$T"/err
	"$@" >"$T/stdout" 2>"$T/err" </dev/null
	st=$?
	res=0
	[ "$st" -eq 2 ] || { diag "$desc: exit $st, want 2"; res=1; }
	[ "$(wc -l <"$T/err")" -eq 2 ] && [ "$(sed -n 2p "$T/err")" = "Try 'npu-import-onnx --help'." ] ||
		{ diag "$desc: stderr is not a message and the --help hint: $(cat "$T/err")"; res=1; }
	head -n 1 "$T/err" | grep -Eq -- "$re" || { diag "$desc: '$(head -n 1 "$T/err")' does not match '$re'"; res=1; }
	ls -A "$T" | grep -q '^\(out\|\.out\..*\)$' && { diag "$desc: output file left behind"; res=1; }
	ok $res "$desc"
}

# imports: exit 0, nothing on stderr, an IR stream written
imports() {	# imports DESC MODEL [OPTIONS...]
	desc=$1; shift
	rm -f "$T/a.ir"
	npu-import-onnx "$@" -o "$T/a.ir" 2>"$T/err"
	st=$?
	res=0
	[ "$st" -eq 0 ] || { diag "$desc: exit $st: $(cat "$T/err")"; res=1; }
	[ -s "$T/err" ] && { diag "$desc: stderr: $(cat "$T/err")"; res=1; }
	[ -s "$T/a.ir" ] && [ "$(head -c 8 "$T/a.ir" | tail -c 6)" = "npu-ir" ] || { diag "$desc: no IR written"; res=1; }
	ok $res "$desc"
}

# count STRING FILE: how often an IR stream holds exactly STRING (shorter
# than 32 bytes: msgpack stores it after one byte 0xa0 + length), e.g. an
# op name or a meta value
count() {
	pat=$(printf "\\$(printf %03o $((160 + ${#1})))")$1
	LC_ALL=C grep -a -o -F -- "$pat" "$2" | wc -l
}

# ---------------------------------------------------------------- imports

for t in conv_with_strides_padding conv_with_autopad_same convtranspose_autopad_same \
	convtranspose_output_shape maxpool_2d_same_lower averagepool_2d_pads_count_include_pad \
	gemm_all_attributes batchnorm_epsilon layer_normalization_4d_axis1_expanded lstm_defaults gru_seq_length \
	rnn_seq_length depthtospace_crd_mode spacetodepth transpose_default flatten_negative_axis1 \
	max_example mean_example selu argmin_keepdims_example reduce_l2_do_not_keepdims_example reduce_log_sum_negative_axes \
	softmax_axis_0 shape constant globalaveragepool instancenorm_example dequantizelinear; do
	imports "node test $t" "$ONNX_NODE/test_$t/model.onnx"
done

imports "tinycnn (PyTorch export)" "$DATA/tinycnn.onnx"
[ "$(count source.framework "$T/a.ir")" -eq 1 ] && [ "$(count onnx "$T/a.ir")" -eq 1 ] &&
	[ "$(count tinycnn.onnx "$T/a.ir")" -eq 1 ] && [ "$(count "pytorch 1.13.0" "$T/a.ir")" -eq 1 ]
ok $? "tinycnn: meta names the framework, the file and the producer"
imports "squeezenet1_1" "$TOP/share/npu/examples/squeezenet1_1.onnx"

npu-import-onnx <"$DATA/tinycnn.onnx" >"$T/stdin.ir" 2>"$T/err" && [ ! -s "$T/err" ] &&
	npu-import-onnx - -o "$T/dash.ir" <"$DATA/tinycnn.onnx" && [ "$(count source.file "$T/stdin.ir")" -eq 0 ] &&
	[ "$(count source.file "$T/dash.ir")" -eq 0 ] && [ "$(count conv "$T/dash.ir")" -eq 3 ]
ok $? "reads standard input (no source.file then)"
npu-import-onnx "$DATA/tinycnn.onnx" -o "$T/one.ir" && mv "$T/one.ir" "$T/first.ir" &&
	npu-import-onnx "$DATA/tinycnn.onnx" -o "$T/one.ir" && cmp -s "$T/one.ir" "$T/first.ir"
ok $? "output is deterministic"

imports "dynamic batch given with --input" "$O/dynamic.onnx" --input data:2,3,4,4
imports "old Softmax on a middle axis" "$O/softmax11.onnx"
[ "$(count reshape "$T/a.ir")" -eq 2 ] && [ "$(count softmax "$T/a.ir")" -eq 1 ]
ok $? "old Softmax becomes reshape, softmax, reshape"
imports "Shape/Gather/Concat/Reshape arithmetic" "$O/shapecalc.onnx"
[ "$(count reshape "$T/a.ir")" -eq 1 ] && [ "$(count gather "$T/a.ir")" -eq 0 ] && [ "$(count Shape "$T/a.ir")" -eq 0 ]
ok $? "shape arithmetic is evaluated at import, one reshape remains"
imports "--output cuts before unsupported ops" "$O/unsupported.onnx" --output r
[ "$(count Relu "$T/a.ir")" -eq 1 ] && [ "$(count Foo "$T/a.ir")" -eq 0 ] && [ "$(count Bar "$T/a.ir")" -eq 0 ]
ok $? "--output imports only what the value needs"

# a VAD exported the way real ones are (tests/gen/onnx_vad.py): Pad's pads
# from Shape/Gather/Div/Where/Split/Concat/ConstantOfShape/Reshape/Slice/
# Transpose/Cast of constants and the sample rate, the network in
# If(Not(Equal(sr, 8000))); references from PyTorch
VAD=$DATA/families/vad_if
imports "VAD: --const sr=16000 keeps the then branch" "$VAD/model.onnx" $(cat "$VAD/args")
[ "$(npu-dump "$T/a.ir" | sed -n '/^nodes:/,$p' | tail -n +3 | awk '{print $3}' | sort | uniq -c | tr -s ' \n' ' ')" = \
	" 1 add 1 concat 2 conv 2 identity 1 lstm 1 matmul 1 pad 1 reduce_mean 2 relu 1 sigmoid 2 slice 1 squeeze 2 transpose 1 unsqueeze " ] &&
	[ "$(count sr "$T/a.ir")" -eq 0 ] && npu-run "$T/a.ir" -i "$VAD/in.npz" --compare "$VAD/out.npz" -q
ok $? "VAD at 16 kHz: one branch, sr gone, outputs equal PyTorch's (rtol 1e-4)"
imports "VAD: --const sr=8000 keeps the else branch" "$VAD/model.onnx" --const sr=8000
npu-run "$T/a.ir" -i "$VAD/in.npz" --compare "$O/vad_if_8k.out.npz" -q &&
	npu-dump "$T/a.ir" | grep -q "pad .*1x1x544  mode=reflect pads=0,0,0,0,0,32"
ok $? "VAD at 8 kHz: the other weights and pads (Where), outputs equal PyTorch's"
expect_fail 1 "model.onnx: error: node 'is8k' \(Equal\): it is computed only at import, and input 0 \('sr'\) is not known then; node 'rate_switch' \(If\): the condition 'not8k' is not known at import .*--const" \
	"If on a non-constant condition" -- npu-import-onnx "$VAD/model.onnx" -o "$T/out"
expect_fail 1 "the model has no input 'rate' \(its inputs: 'input', 'sr', 'state'\)" "--const for an unknown input" -- \
	npu-import-onnx "$VAD/model.onnx" --const rate=16000 -o "$T/out"
expect_fail 1 "error: --const sr=16000.5: input 'sr' is i64, the value must be an integer" \
	"--const with a fraction for an integer input" -- npu-import-onnx "$VAD/model.onnx" --const sr=16000.5 -o "$T/out"

imports "VAD: --output with --const" "$VAD/model.onnx" --const sr=16000 --output stateN
[ "$(npu-dump "$T/a.ir" | sed -n '/^inputs:/,/^outputs:/p' | awk 'NF > 1 {print $1}' | tr '\n' ' ')" = "input state " ]
ok $? "VAD: the inputs only the If branch reads are kept, in the model's order"
imports "torch.onnx export of F.pad with a dynamic length" "$O/pad_dynamic.onnx" --input x:1,2,64
npu-run "$T/a.ir" -i "$O/pad_dynamic.input.npy" --compare "$O/pad_dynamic.output.npy" -q &&
	npu-dump "$T/a.ir" | grep -q " pad .*mode=reflect pads=0,0,0,0,0,8"
ok $? "F.pad's pads (Shape, Gather, Div, ConstantOfShape, Concat, Reshape, Slice, Transpose, Cast) resolve"
imports "nested If, --const flag=1" "$O/if_nested.onnx" --const flag=1
[ "$(npu-dump "$T/a.ir" | sed -n '/^nodes:/,$p' | tail -n +3 | awk '{print $2 "=" $3}' | tr '\n' ' ')" = \
	"relu=relu double=mul inner=identity outer=identity " ]
ok $? "nested If: the inner then branch (its own initializer), the untaken branches' ops never read"
imports "nested If, --const flag=0" "$O/if_nested.onnx" --const flag=0
[ "$(count neg "$T/a.ir")" -eq 1 ] && [ "$(count mul "$T/a.ir")" -eq 0 ]
ok $? "nested If: flag=0 takes the inner else branch"
expect_fail 1 "error: node 'inner' \(If\): the condition 'flag' is not known at import" "If in a branch on an input" -- \
	npu-import-onnx "$O/if_nested.onnx" -o "$T/out"
expect_fail 1 "error: node 'bad_if' \(If\): then_branch has 2 outputs, the node 1$" "If branch with more outputs" -- \
	npu-import-onnx "$O/if_outputs.onnx" -o "$T/out"

npu-import-onnx -v "$DATA/tinycnn.onnx" -o "$T/v.ir" 2>"$T/err" &&
	grep -q "^npu-import-onnx: .*tinycnn.onnx: opset 13: 11 nodes" "$T/err"
ok $? "-v reports what was imported"
npu-import-onnx --help >"$T/help" 2>&1 && grep -q "^Usage: npu-import-onnx" "$T/help" && grep -q -- "--input NAME:SHAPE" "$T/help"
ok $? "--help"
npu-import-onnx --version >"$T/version" && grep -q "^npu-import-onnx (npukit) .*, IR format [0-9]" "$T/version"
ok $? "--version"

# ---------------------------------------------------------------- errors

expect_fail 1 "error: unsupported ops: 'Foo' \(node 'a'\), 'Bar' \(nodes 'b', 'c'\)$" \
	"every unsupported op is listed, grouped by op" -- npu-import-onnx "$O/unsupported.onnx" -o "$T/out"
expect_fail 1 "unsupported ops: 'Acos' \(node 'Acos_0'\)" "unnamed nodes are named after op and index" -- \
	npu-import-onnx "$ONNX_NODE/test_acos/model.onnx" -o "$T/out"
expect_fail 1 "dynamic.onnx: error: input 'data' has dynamic dimensions \(N,3,4,4\); give its shape with --input data:SHAPE" \
	"unresolved dynamic dimension" -- npu-import-onnx "$O/dynamic.onnx" -o "$T/out"
expect_fail 1 "the shape given for input 'data' \(2x2x4x4\) does not fit the model's \(N,3,4,4\)" \
	"--input disagreeing with fixed dimensions" -- npu-import-onnx "$O/dynamic.onnx" --input data:2,2,4,4 -o "$T/out"
expect_fail 1 "the model has no input 'nosuch' \(its inputs: 'data'\)" "--input for an unknown input" -- \
	npu-import-onnx "$O/dynamic.onnx" --input data:1,3,4,4 --input nosuch:1 -o "$T/out"
expect_fail 1 "the model has no value named 'nosuch'" "--output for an unknown value" -- \
	npu-import-onnx "$O/unsupported.onnx" --output nosuch -o "$T/out"
expect_fail 1 "node 'reshape' \(Reshape\): input 1 \(shape\) must be constant" "non-constant Reshape shape" -- \
	npu-import-onnx "$O/reshape_input.onnx" -o "$T/out"
expect_fail 1 "node 'Reshape_0' \(Reshape\): input 1 \(shape\) must be constant" "non-constant shape (node test)" -- \
	npu-import-onnx "$ONNX_NODE/test_reshape_reordered_all_dims/model.onnx" -o "$T/out"
expect_fail 1 "initializer 'w' has 8 bytes of data, its shape needs 24" "initializer shorter than its shape" -- \
	npu-import-onnx "$O/short_initializer.onnx" -o "$T/out"
expect_fail 1 "output 'y' has shape 3x2 in the model, the import gives 2x3" "declared output shape disagrees" -- \
	npu-import-onnx "$O/wrong_output_shape.onnx" -o "$T/out"
expect_fail 1 "the graph has a cycle through node '(one|two)' \(Relu\)" "cycle" -- npu-import-onnx "$O/cycle.onnx" -o "$T/out"
expect_fail 1 "opset 18 is newer than this importer knows" "opset too new" -- npu-import-onnx "$O/opset18.onnx" -o "$T/out"
expect_fail 1 "input 'input' has element type double, which the IR does not support" "double input" -- \
	npu-import-onnx "$ONNX_NODE/test_cast_DOUBLE_to_FLOAT/model.onnx" -o "$T/out"
expect_fail 1 "node 'Resize_0' \(Resize\): coordinate_transformation_mode 'tf_crop_and_resize' is not supported" \
	"unsupported attribute value" -- npu-import-onnx "$ONNX_NODE/test_resize_tf_crop_and_resize/model.onnx" -o "$T/out"
expect_fail 1 "\(BatchNormalization\): training mode is not supported" "BatchNormalization in training mode" -- \
	npu-import-onnx "$ONNX_NODE/test_batchnorm_example_training_mode/model.onnx" -o "$T/out"
expect_fail 1 "\(MaxPool\): output 1 \(indices, 'z'\) is not supported" "MaxPool's indices used" -- \
	npu-import-onnx "$ONNX_NODE/test_maxpool_with_argmax_2d_precomputed_pads/model.onnx" -o "$T/out"

expect_fail 1 "random.bin: error: not an ONNX model \(protobuf parse failed\)" "random bytes" -- \
	npu-import-onnx "$DATA/bad/random.bin" -o "$T/out"
expect_fail 1 "good.ir: error: this is an npukit IR stream already" "an IR stream" -- \
	npu-import-onnx "$DATA/bad/good.ir" -o "$T/out"
expect_fail 1 "not an ONNX model \(this looks like a NumPy .npy" "a .npy file" -- \
	npu-import-onnx "$DATA/tinycnn.input.npy" -o "$T/out"
head -c 3000 "$DATA/tinycnn.onnx" >"$T/cut.onnx"
expect_fail 1 "cut.onnx: error: not an ONNX model \(protobuf parse failed\)" "truncated model" -- \
	npu-import-onnx "$T/cut.onnx" -o "$T/out"
: >"$T/empty.onnx"
expect_fail 1 "empty.onnx: error: empty file" "empty file" -- npu-import-onnx "$T/empty.onnx" -o "$T/out"
expect_fail 1 "nonexistent.onnx: error: No such file or directory" "missing file" -- \
	npu-import-onnx "$T/nonexistent.onnx" -o "$T/out"
# 100000 nested TypeProtos (sequence of sequence of ...): refused, not a
# stack overflow in the protobuf reader
perl -e '
	sub v { my ($n, $s) = (shift, ""); while ($n >= 128) { $s .= chr(($n & 127) | 128); $n >>= 7 } $s . chr($n) }
	my ($len, @parts) = (0);
	for (1 .. 100000) {
		my $in = "\x0a" . v($len); $len += length $in;
		my $out = "\x22" . v($len); $len += length $out;
		push @parts, $out . $in;
	}
	my $tp = join "", reverse @parts;
	my $vi = "\x0a\x01x\x12" . v(length $tp) . $tp;
	my $g = "\x5a" . v(length $vi) . $vi;
	print "\x08\x07\x3a" . v(length $g) . $g;' >"$T/deep.onnx"
expect_fail 1 "deep.onnx: error: not an ONNX model" "deeply nested messages" -- npu-import-onnx "$T/deep.onnx" -o "$T/out"

expect_usage "--input 'data': expected NAME:SHAPE" "--input without a shape" -- \
	npu-import-onnx "$O/dynamic.onnx" --input data -o "$T/out"
expect_usage "--input 'data:1,a': bad shape '1,a'" "--input with a bad shape" -- \
	npu-import-onnx "$O/dynamic.onnx" --input data:1,a -o "$T/out"
expect_usage "--input 'data' is given twice" "--input twice" -- \
	npu-import-onnx "$O/dynamic.onnx" --input data:1,3,4,4 --input data:1,3,4,4 -o "$T/out"
expect_usage "--const 'sr=16k': bad value '16k' \(expected a number\)" "--const with a bad value" -- \
	npu-import-onnx "$DATA/families/vad_if/model.onnx" --const sr=16k -o "$T/out"
expect_usage "--const 'sr': expected NAME=VALUE" "--const without a value" -- \
	npu-import-onnx "$DATA/families/vad_if/model.onnx" --const sr -o "$T/out"
expect_usage "--const 'sr' is given twice" "--const twice" -- \
	npu-import-onnx "$DATA/families/vad_if/model.onnx" --const sr=1 --const sr=2 -o "$T/out"
expect_usage "unknown option '--frobnicate'" "unknown option" -- npu-import-onnx --frobnicate "$O/dynamic.onnx" -o "$T/out"
expect_usage "unexpected argument" "two models" -- npu-import-onnx "$O/dynamic.onnx" "$O/cycle.onnx" -o "$T/out"
done_testing
