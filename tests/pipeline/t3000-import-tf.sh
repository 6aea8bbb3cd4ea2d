#!/bin/sh
# t3000-import-tf.sh - npu-import-tf on frozen GraphDefs written by other
# projects (uTensor's TF 1.x unit graphs, tensorflow-onnx's test models),
# each run with npu-run and compared with the framework's own output
# (TensorFlow for uTensor, TensorFlow.js for tensorflow-onnx); TensorFlow.js
# graph models (model.json + weight shards) against TensorFlow.js; quantized
# graphs and the error cases: one line, exit status, no output left.
# tests/data/tf/* come from tests/gen/tf_fixtures.py (expected outputs from
# TensorFlow.js).
. "$(dirname "$0")/lib.sh"
EXT=${NPU_EXTERNAL:-$TOP/../shared/external-testdata}/tf
U=$EXT/utensor_cgen
TF=$EXT/tf2onnx
D=$DATA/tf

count() { npu-dump "$2" | grep -c " $1 "; }

# uTensor: every float graph with a reference output. Most read Const
# nodes only (the IR then has no inputs); reshape_2/3 feed placeholder x.
if [ -d "$U" ]; then
	for dir in "$U"/*/; do
		t=$(basename "$dir")
		pb=$(ls "$dir"test_*.pb | grep -v /test_quant_ | head -n 1)
		out=$(head -n 1 "$dir/output_nodes.txt")
		ref=$(ls "$dir"output_*.npy "$dir"dropout_output.npy 2>/dev/null | head -n 1)
		[ -n "$ref" ] || continue
		set -- --output "$out"
		in=""
		[ "$t" = dropout ] && set -- "$@" --const keep_prob=1.0
		[ "$t" = reshape_2 ] && set -- "$@" --input x:5,3 && in=$dir/input_x.npy
		[ "$t" = reshape_3 ] && set -- "$@" --input x:1,5 && in=$dir/input_x.npy
		tol=""
		# quantized_add's reference came from its quantized graph
		[ "$t" = quantized_add ] && tol="--atol 4e-3"
		npu-import-tf "$pb" "$@" -o "$T/u.ir" 2>"$T/err"
		st=$?
		[ -s "$T/err" ] && diag "$t: $(cat "$T/err")"
		# IDX files cannot hold a scalar: reductions over every axis are
		# stored with shape (1,); compare with a 0-d copy
		case $t in
		max_1|max_1_1|min_1|min_1_1)
			{ head -c 128 "$ref" | sed "s/'shape': (1,), }/'shape': (), }  /"; tail -c +129 "$ref"; } >"$T/ref.npy"
			ref=$T/ref.npy ;;
		esac
		if [ $st -eq 0 ]; then
			if [ -n "$in" ]; then
				npu-run "$T/u.ir" -i "$in" --compare "$ref" $tol >"$T/rep" 2>&1
			else
				npu-run "$T/u.ir" --compare "$ref" $tol >"$T/rep" 2>&1
			fi
			st=$?
			[ $st -eq 0 ] || diag "$t: $(cat "$T/rep")"
		fi
		ok $st "utensor $t matches TensorFlow"
	done
	npu-import-tf "$U/const/test_const.pb" --output x -o "$T/c.ir" && npu-run "$T/c.ir" -o "$T/c.npy" &&
		npu-run "$T/c.ir" --compare "$U/const/x_0.npy" >/dev/null
	ok $? "utensor const: a Const output (the IR has no inputs)"
	npu-import-tf "$U/placeholder/test_placeholder.pb" --output y --input x:1 -o "$T/p.ir" &&
		[ "$(npu-dump "$T/p.ir" | grep -c '^  x  *f32  *1 ')" -eq 1 ]
	ok $? "utensor placeholder: an unknown-rank placeholder takes its --input shape"
	npu-import-tf "$U/conv/test_conv.pb" --output out_conv -o "$T/conv.ir" &&
		[ "$(count conv "$T/conv.ir")" -eq 1 ] && [ "$(count transpose "$T/conv.ir")" -eq 2 ] &&
		npu-dump "$T/conv.ir" | grep -q "^  out_conv .* nhwc"
	ok $? "NHWC Conv2D: conv between two transposes, the output tagged nhwc"
	npu-import-tf "$U/dropout/test_dropout.pb" --output dropout_output/mul --const keep_prob=1.0 -o "$T/d.ir" &&
		[ "$(count RandomUniform "$T/d.ir")" -eq 0 ] && [ "$(count floor "$T/d.ir")" -eq 0 ]
	ok $? "dropout with keep_prob 1 folds away its random mask"

	# quantized ("eightbit") graphs: where the rewrite quantized something,
	# every quantized op is listed at once; the others are float graphs
	nq=0 nf=0
	for pb in "$U"/*/test_quant_*.pb; do
		dir=$(dirname "$pb") t=$(basename "$(dirname "$pb")")
		set -- --output "$(head -n 1 "$dir/output_nodes.txt")"
		case $t in
		dropout) continue ;;	# its quantized graph has other node names
		placeholder) set -- "$@" --input x:1 ;;
		reshape_2) set -- "$@" --input x:5,3 ;;
		reshape_3) set -- "$@" --input x:1,5 ;;
		esac
		if grep -q Dequantize "$pb"; then
			nq=$((nq + 1))
			expect_fail 1 "error: quantized ops \(import the float graph instead\): .*'Dequantize' \(node" \
				"utensor test_quant_$t: the quantized ops are listed" -- npu-import-tf "$pb" "$@" -o "$T/out"
		else
			nf=$((nf + 1))
			npu-import-tf "$pb" "$@" -o "$T/q.ir"
			ok $? "utensor test_quant_$t has no quantized op: it imports"
		fi
	done
	[ $nq -eq 15 ] && [ $nf -eq 19 ]
	ok $? "15 quantized graphs refused, 19 without quantized ops imported ($nq, $nf)"
	expect_fail 1 "quantized ops \(import the float graph instead\): 'QuantizeV2' \(nodes 'z_eightbit/x/quantize', 'z_eightbit/y/quantize'\), 'QuantizedAdd' \(node 'z/eightbit'\), 'RequantizationRange' \(node 'z/eightbit/requant_range'\), 'Requantize' \(node 'z/eightbit/requantize'\), 'Dequantize' \(node 'z'\)$" \
		"quantized ops grouped by op with their nodes" -- \
		npu-import-tf "$U/quantized_add/test_quant_quantized_add.pb" --output z -o "$T/out"
else
	diag "no external test data at $U: uTensor cases skipped"
fi

# tensorflow-onnx: both provided inputs, against TensorFlow.js
if [ -d "$TF" ]; then
	for m in fc-layers ae0 lstm gru regression_graphdef; do
		set -- --input X:1,784 --output output
		[ "$m" = regression_graphdef ] && set -- --input X:1 --output pred
		case $m in lstm|gru) set -- "$@" --const keep_prob=1.0 ;; esac
		npu-import-tf "$TF/$m/frozen.pb" "$@" -o "$T/m.ir"
		ok $? "tf2onnx $m: import"
		for k in ramp rand; do
			npu-run "$T/m.ir" -i "$TF/$m/input_X_$k.npy" --compare "$TF/$m/tfjs_output_$k.npy" >"$T/rep" 2>&1
			st=$?
			[ $st -eq 0 ] || diag "$m $k: $(cat "$T/rep")"
			ok $st "tf2onnx $m ($k input) matches TensorFlow.js"
		done
	done
	npu-import-tf "$TF/lstm/frozen.pb" --input X:1,784 --output output --const keep_prob=1.0 -o "$T/l.ir" &&
		[ "$(count Shape "$T/l.ir")" -eq 0 ] && [ "$(count Fill "$T/l.ir")" -eq 0 ] &&
		[ "$(count RandomUniform "$T/l.ir")" -eq 0 ]
	ok $? "lstm: Shape, Fill and the dropout mask are evaluated at import"
	expect_fail 1 "node 'keep_prob' \(Placeholder\): placeholder has no static shape \(unknown rank\); give it with --input keep_prob:SHAPE" \
		"lstm without --const keep_prob" -- npu-import-tf "$TF/lstm/frozen.pb" --input X:1,784 --output output -o "$T/out"
	expect_fail 1 "node 'X' \(Placeholder\): --input shape 1,3 does not match the placeholder's shape \?,784" \
		"--input disagreeing with the placeholder" -- \
		npu-import-tf "$TF/fc-layers/frozen.pb" --input X:1,3 --output output -o "$T/out"
	npu-import-tf "$TF/fc-layers/frozen.pb" --input X:1,784 --output output -o "$T/a.ir" && mv "$T/a.ir" "$T/b.ir" &&
		npu-import-tf "$TF/fc-layers/frozen.pb" --input X:1,784 --output output -o "$T/a.ir" && cmp -s "$T/a.ir" "$T/b.ir"
	ok $? "output is deterministic"
	npu-dump -v "$T/a.ir" 2>/dev/null | grep -q "source.framework.*tensorflow"
	ok $? "meta names the framework"
	npu-import-tf <"$TF/ae0/frozen.pb" --input X:1,784 --output output:0 >"$T/s.ir" &&
		npu-run "$T/s.ir" -i "$TF/ae0/input_X_rand.npy" --compare "$TF/ae0/tfjs_output_rand.npy" >/dev/null
	ok $? "standard input to standard output, name:0 output syntax"
else
	diag "no external test data at $TF: tensorflow-onnx cases skipped"
fi

# own fixtures, expected outputs from TensorFlow.js (tests/gen/tf_fixtures.py)
for c in conv:lr bn_pool:sm slicing:cat deconv_resize:mirror matrices:sum gather:gather argmin:amin \
	bn_patterns:kbn2/add_1 softmax_maxpool:p atrous_asym:y fused_bn:c2 fused_gelu:y floordiv:y nchw:elu; do	# nchw last: checked below
	n=${c%%:*}
	npu-import-tf "$D/$n.pb" --output "${c#*:}" -o "$T/f.ir" &&
		npu-run "$T/f.ir" -i "$D/$n.input.npy" --compare "$D/$n.expect.npy" >"$T/rep" 2>&1
	st=$?
	[ $st -eq 0 ] || diag "$n: $(cat "$T/rep")"
	ok $st "fixture $n matches TensorFlow.js"
done
npu-dump "$T/f.ir" | grep -q "^  x .* nchw" && [ "$(count transpose "$T/f.ir")" -eq 0 ]
ok $? "data_format NCHW: the input is tagged nchw, no transposes"
# the streaming FSMN-style model: state in and out, both outputs checked
npu-import-tf "$D/fsmn.pb" --input Feats:1,1,16 --input State_c0:1,3,16 --output Result \
	--state State_c0=new_state -o "$T/fsmn.ir" &&
	npu-dump "$T/fsmn.ir" | grep -q "1 input, 2 const, 1 state" &&
	npu-run "$T/fsmn.ir" -i "$D/fsmn.input.npz" --compare "$D/fsmn.expect.npz" >"$T/rep" 2>&1
ok $? "fsmn streaming model: state input marked, Result (TF.js) and new_state match"
npu-import-tf "$D/state.pb" --output y --state h=h_next -o "$T/st.ir" &&
	npu-dump "$T/st.ir" | grep -q "1 input, 1 const, 1 state" &&
	[ "$(npu-dump "$T/st.ir" | sed -n '/^outputs:/,/^$/p' | grep -c '^  ')" -eq 2 ]
ok $? "--state: a state input and its next value as a second output (unused nodes pruned)"
npu-import-tf "$D/switch.pb" --output y --const is_training=0 -o "$T/sw.ir" &&
	[ "$(count relu "$T/sw.ir")" -eq 1 ] && [ "$(npu-dump "$T/sw.ir" | grep -c Foo)" -eq 0 ]
ok $? "Switch/Merge with a constant predicate: only the taken side is imported"
expect_fail 1 "switch.pb: error: unsupported ops: 'Foo' \(node 'train'\)$" "the other predicate takes the unsupported side" -- \
	npu-import-tf "$D/switch.pb" --output y --const is_training=1 -o "$T/out"
npu-import-tf "$D/dynamic.pb" --output y --input x:2,4 -o "$T/dy.ir" && npu-dump "$T/dy.ir" | grep -q "^  x  *f32  *2x4"
ok $? "--input resolves an unknown batch dimension"

# GatherNd: computed indices (mul by strides, reduce_sum, gather) and constant ones
npu-import-tf "$D/gather_nd.pb" --output y -o "$T/gn.ir" &&
	npu-run "$T/gn.ir" -i "$D/gather_nd.input.npz" --compare "$D/gather_nd.expect.npy" >"$T/rep" 2>&1 &&
	[ "$(count gather "$T/gn.ir")" -eq 2 ] && [ "$(count reduce_sum "$T/gn.ir")" -eq 1 ]
st=$?
[ $st -eq 0 ] || diag "gather_nd: $(cat "$T/rep")"
ok $st "fixture gather_nd (computed and constant indices) matches TensorFlow.js"
# SpaceToBatchND/BatchToSpaceND with paddings [[2, 3], [2, 3]], crops [[0, 1], [0, 1]]
npu-import-tf "$D/atrous_asym.pb" --output y -o "$T/a.ir" &&
	npu-dump "$T/a.ir" | grep -q "space_to_batch .* pads=2,3,2,3" && npu-dump "$T/a.ir" | grep -q "batch_to_space .* crops=0,1,0,1"
ok $? "asymmetric atrous padding: paddings and crops kept as [begin, end] per axis"
# _FusedConv2D: FusedBatchNorm + Relu (fused_bn's c1), BiasAdd + Add + Relu (c2)
npu-import-tf "$D/fused_bn.pb" --output c2 -o "$T/fb.ir" &&
	[ "$(count batch_norm "$T/fb.ir")" -eq 1 ] && [ "$(count relu "$T/fb.ir")" -eq 2 ] &&
	npu-dump "$T/fb.ir" | grep -q "c2#conv .*conv .*\[f32 4\] ->"
ok $? "_FusedConv2D: batch norm, relu, side-input add become IR nodes; BiasAdd is the conv's bias"

# ---------------------------------------------------------------- TensorFlow.js graph models
# model.json + two weight shards as the tfjs converter writes them
# (tests/gen/tf_tfjs.py): fused convolutions and matrix products, Prelu,
# GatherNd, FloorDiv; uint8-quantized (blazeface) and float16 (landmark)
# weights. Expected outputs from TensorFlow.js, which dequantizes itself.
BF=$DATA/families/tfjs_blazeface
LM=$D/tfjs_landmark
npu-import-tf "$BF/model.json" --input input_1:1,32,32,3 -o "$T/bf.ir" &&
	npu-run "$T/bf.ir" -i "$BF/in.npz" --compare "$BF/out.npz" --rtol 1e-4 >"$T/rep" 2>&1
st=$?
[ $st -eq 0 ] || diag "blazeface: $(cat "$T/rep")"
ok $st "tfjs blazeface-like detector (uint8 weights) matches TensorFlow.js"
[ "$(count conv "$T/bf.ir")" -eq 9 ] && [ "$(count prelu "$T/bf.ir")" -eq 2 ] && [ "$(count gather "$T/bf.ir")" -eq 1 ] &&
	[ "$(npu-dump "$T/bf.ir" | sed -n '/^outputs:/,/^$/p' | grep -c '^  Identity')" -eq 3 ] &&
	npu-dump -v "$T/bf.ir" 2>/dev/null | grep -q "source.file.*model.json"
ok $? "tfjs blazeface: 9 fused convolutions, 2 prelu, GatherNd as a gather; the signature's 3 outputs"
npu-import-tf "$LM/model.json" --input input_1:1,24,24,3 -o "$T/lm.ir" &&
	npu-run "$T/lm.ir" -i "$LM/in.npz" --compare "$LM/out.npz" --rtol 1e-4 >"$T/rep" 2>&1
st=$?
[ $st -eq 0 ] || diag "landmark: $(cat "$T/rep")"
ok $st "tfjs landmark net (float16 and uint16 weights, _FusedMatMul) matches TensorFlow.js"
npu-import-tf "$LM/model.json" --input input_1:1,24,24,3 --output Identity_1 -o "$T/lm1.ir" &&
	[ "$(npu-dump "$T/lm1.ir" | sed -n '/^outputs:/,/^$/p' | grep -c '^  ')" -eq 1 ] && [ "$(count floor "$T/lm1.ir")" -eq 0 ]
ok $? "tfjs: --output overrides the signature (only what it needs is imported)"
(cd "$LM" && npu-import-tf model.json --input input_1:1,24,24,3 -o "$T/lm2.ir") &&
	npu-run "$T/lm2.ir" -i "$LM/in.npz" --compare "$LM/out.npz" --rtol 1e-4 >/dev/null 2>&1
ok $? "tfjs: shards found next to a model.json given without a directory"

# hostile or broken model.json and shards: one line naming file and key, exit 1, no output
J=$T/js
mkdir -p "$J"
cp "$LM"/model.json "$LM"/*.bin "$J/"
jfail() {	# jfail REGEX DESC: npu-import-tf on $J/model.json
	expect_fail 1 "^npu-import-tf: .*js/model.json: error: $1" "$2" -- \
		npu-import-tf "$J/model.json" --input input_1:1,24,24,3 -o "$T/out"
}
head -c 3000 "$LM/model.json" >"$J/model.json"
jfail "not valid JSON \(line [0-9]+: unexpected end of the text( in a string)? \(truncated\?\)\)$" "tfjs: truncated model.json"
printf '{"modelTopology": {"node": [1,]}}' >"$J/model.json"
jfail "not valid JSON \(line 1: unexpected '\]'\)$" "tfjs: invalid JSON (trailing comma)"
printf '{"modelTopology": {}, "modelTopology": {}}' >"$J/model.json"
jfail "not valid JSON \(line 1: key \"modelTopology\" appears twice in one object\)$" "tfjs: a repeated key"
{ printf '{"a":'; i=0; while [ $i -lt 100 ]; do printf '['; i=$((i + 1)); done; } >"$J/model.json"
jfail "not valid JSON \(line 1: nested deeper than 64 levels\)$" "tfjs: nesting depth limit"
printf '{"modelTopology": {"node": [{"name": "x", "op": "Relu", "attr": {"T": {"type": "DT_NOSUCH"}}}]}}' >"$J/model.json"
jfail "modelTopology.node\[0\] \('x'\).attr.T.type: unknown data type 'DT_NOSUCH' \(line 1\)$" "tfjs: unknown DataType name"
sed 's/"i": "1"/"i": "1x"/' "$LM/model.json" >"$J/model.json"
jfail "modelTopology.node\[[0-9]+\] \('conv0'\).attr.num_args.i: expected an integer \(line [0-9]+\)$" "tfjs: a bad int64 attribute"
cp "$LM/model.json" "$J/model.json"
rm "$J/group1-shard2of2.bin"
jfail "weightsManifest\[0\].paths\[1\]: cannot open weight shard 'group1-shard2of2.bin': No such file or directory$" \
	"tfjs: missing shard"
head -c 1000 "$LM/group1-shard2of2.bin" >"$J/group1-shard2of2.bin"
jfail "weightsManifest\[0\].weights\[[0-9]+\] \('[^']*'\): needs bytes [0-9]+\.\.[0-9]+ of the weight shards, which hold [0-9]+ \(shard too short\?\)$" \
	"tfjs: shard too short"
cp "$LM/group1-shard2of2.bin" "$J/"
sed '0,/"dtype": "float32"/s//"dtype": "complex128"/' "$LM/model.json" >"$J/model.json"
jfail "weightsManifest\[0\].weights\[0\] \('conv0/weights'\).dtype: unknown or unsupported dtype 'complex128'" \
	"tfjs: unknown weight dtype"
sed '0,/"dtype": "float16"/s//"dtype": "int4"/' "$LM/model.json" >"$J/model.json"
jfail "weightsManifest\[0\].weights\[0\] \('conv0/weights'\).quantization.dtype: unknown quantization dtype 'int4'" \
	"tfjs: unknown quantization dtype"
sed 's|"group1-shard1of2.bin"|"../tfjs_landmark/group1-shard1of2.bin"|' "$LM/model.json" >"$J/model.json"
jfail "weightsManifest\[0\].paths\[0\]: shard path '\.\./tfjs_landmark/group1-shard1of2.bin' leaves the model's directory" \
	"tfjs: shard path with '..' refused"
sed 's|"group1-shard1of2.bin"|"/etc/passwd"|' "$LM/model.json" >"$J/model.json"
jfail "weightsManifest\[0\].paths\[0\]: shard path '/etc/passwd' leaves the model's directory" "tfjs: absolute shard path refused"
awk '/"name": "fc2\/bias"/ && ++n == 2 { sub(/fc2\/bias/, "fc2/nosuch") } 1' "$LM/model.json" >"$J/model.json"
jfail "modelTopology.node\[[0-9]+\] \('fc2/bias'\) \(Const\): weightsManifest has no weight of this name$" \
	"tfjs: a Const without its weight"
awk '/"name": "fc2\/bias"/ && ++n == 2 { sub(/fc2\/bias/, "fc1/bias") } 1' "$LM/model.json" >"$J/model.json"
jfail "weightsManifest: two weights are named 'fc1/bias'$" "tfjs: a weight name given twice"
expect_fail 1 "^npu-import-tf: <stdin>: error: weightsManifest\[0\].paths\[0\]: weight shards are read next to model.json; give its path, not standard input$" \
	"tfjs: model.json on standard input cannot name its shards" -- \
	sh -c 'npu-import-tf --input input_1:1,24,24,3 -o "$2" <"$1"' - "$LM/model.json" "$T/out"
sed 's/"signature"/"signature_x"/' "$LM/model.json" >"$J/model.json"
jfail "signature.outputs: missing, so the outputs must be named \(--output NAME\)$" "tfjs: no signature and no --output"

# ---------------------------------------------------------------- errors
expect_fail 1 "unsupported.pb: error: unsupported ops: 'Foo' \(node 'a'\), 'Bar' \(nodes 'b', 'b2'\); training-only ops \(freeze an inference graph\): 'ApplyAdam' \(node 'c'\)$" \
	"every unsupported op is listed at once, training-only ops named as such" -- \
	npu-import-tf "$D/unsupported.pb" --output y -o "$T/out"
expect_fail 1 "dynamic.pb: error: node 'x' \(Placeholder\): placeholder has no static shape \(\?,4\); give it with --input x:SHAPE" \
	"placeholder without a static shape" -- npu-import-tf "$D/dynamic.pb" --output y -o "$T/out"
expect_fail 1 "error: the graph has no node named 'nosuch'" "missing output name" -- \
	npu-import-tf "$D/dynamic.pb" --output nosuch -o "$T/out"
expect_fail 1 "error: the graph has no node named 'nosuch'" "--input for a missing placeholder" -- \
	npu-import-tf "$D/state.pb" --output y --input nosuch:1 -o "$T/out"
expect_fail 1 "error: node 'two' is not a placeholder \(Const\)" "--const on a Const node" -- \
	npu-import-tf "$D/state.pb" --output y --const two=3 -o "$T/out"
expect_fail 1 "tinycnn.onnx: error: not a TensorFlow GraphDef \(this looks like an ONNX model\)" "an ONNX model" -- \
	npu-import-tf "$DATA/tinycnn.onnx" --output y -o "$T/out"
expect_fail 1 "error: not a TensorFlow GraphDef \(this looks like a NumPy .npy" "a .npy file" -- \
	npu-import-tf "$DATA/tinycnn.input.npy" --output y -o "$T/out"
printf 'this is not a graph\n' >"$T/text.pb"
expect_fail 1 "text.pb: error: not a TensorFlow GraphDef \(this looks like a text file\)" "a text file" -- \
	npu-import-tf "$T/text.pb" --output y -o "$T/out"
head -c 150 "$D/state.pb" >"$T/cut.pb"
expect_fail 1 "cut.pb: error: not a TensorFlow GraphDef \(protobuf parse failed\)" "truncated GraphDef" -- \
	npu-import-tf "$T/cut.pb" --output y -o "$T/out"
: >"$T/empty.pb"
expect_fail 1 "empty.pb: error: empty file" "empty file" -- npu-import-tf "$T/empty.pb" --output y -o "$T/out"
expect_fail 1 "nonexistent.pb: error: No such file or directory" "missing file" -- \
	npu-import-tf "$T/nonexistent.pb" --output y -o "$T/out"
expect_fail 2 "^npu-import-tf: no --output given" "no --output (usage)" -- npu-import-tf "$D/state.pb" -o "$T/out"
expect_fail 2 "^npu-import-tf: --input 'x': expected NAME:SHAPE" "bad --input (usage)" -- \
	npu-import-tf "$D/state.pb" --output y --input x -o "$T/out"
expect_fail 2 "^npu-import-tf: --const 'k=abc': bad value 'abc'" "bad --const (usage)" -- \
	npu-import-tf "$D/state.pb" --output y --const k=abc -o "$T/out"
npu-import-tf --help >"$T/help" 2>&1 && grep -q "^Usage: npu-import-tf" "$T/help" && grep -q -- "--const NAME=VALUE" "$T/help"
ok $? "--help"
npu-import-tf --version >"$T/version" && grep -q "^npu-import-tf (npukit) .*, IR format [0-9]" "$T/version"
ok $? "--version"

done_testing
