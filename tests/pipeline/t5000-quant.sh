#!/bin/sh
# npu-quant: calibration methods, int8/int16/fp16 results against the float
# graph, statistics shards, mixed precision, fp16 options, error cases.
. "$(dirname "$0")/lib.sh"
EX=$TOP/share/npu/examples
Q=$DATA/quant
PT=$DATA/pt

npu-import-pt "$EX/digits.pt" --input 0:1,1,8,8 | npu-fuse --all >"$T/digits.ir"
ok $? "the digits CNN imports and fuses"

# The report's SQNR of the output against the float graph: the float graph
# matches PyTorch (t2000), so these bounds are against the framework.
sqnr() {	# sqnr REPORT: the first output's SQNR in dB
	sed -n 's/.*"outputs": \[//; /"tensor"/{s/.*"sqnr_db": \([-0-9.e]*\).*/\1/p;q}' "$1"
}
above() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }

for m in minmax averaging meanstd:3 percentile:99.99 kld aciq mse; do
	npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --method "$m" \
		--report "$T/r.json" -o "$T/q.ir" 2>"$T/err"
	s=$(sqnr "$T/r.json")
	[ -n "$s" ] && above "$s" 10
	ok $? "int8 with $m runs and reports the output's SQNR ($s dB > 10)"
done

npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --report "$T/r8.json" -o "$T/q8.ir" &&
	above "$(sqnr "$T/r8.json")" 30
ok $? "int8 minmax: output SQNR above 30 dB ($(sqnr "$T/r8.json"))"
npu-quant "$T/digits.ir" --target int8 --bits 16 --calib "$EX/digits.calib.npy" --report "$T/r16.json" -o "$T/q16.ir" &&
	above "$(sqnr "$T/r16.json")" "$(sqnr "$T/r8.json")"
ok $? "int16 activations beat int8 ($(sqnr "$T/r16.json") dB)"
npu-quant "$T/digits.ir" --target int8 --bits 16 --weight-bits 16 --calib "$EX/digits.calib.npy" \
	--report "$T/r1616.json" -o "$T/q1616.ir" && above "$(sqnr "$T/r1616.json")" 70
ok $? "int16 activations with 16-bit weights: above 70 dB ($(sqnr "$T/r1616.json"))"
npu-quant "$T/digits.ir" --target grus --eval "$EX/digits.calib.npy" --report "$T/rf16.json" -o "$T/qf16.ir" &&
	above "$(sqnr "$T/rf16.json")" 55
ok $? "fp16: above 55 dB, no calibration needed ($(sqnr "$T/rf16.json"))"

# what the quantized graphs look like
npu-dump "$T/q8.ir" >"$T/d8"
grep -q '^     0  x/quantize  *quantize  *f32 1x1x8x8 -> i8 1x1x8x8' "$T/d8" &&
	grep -q 'conv1  *conv  *i8 1x1x8x8, \[i8 16x1x3x3\], \[i32 16\] -> i8 1x16x8x8 .*precision=i8' "$T/d8" &&
	grep -q 'output_0/dequantize  *dequantize  *i8 1x10 -> f32 1x10' "$T/d8"
ok $? "int8: quantize at the input, i8 weights, i32 bias, dequantize at the output"
npu-dump -w "$T/q8.ir" | tr -s ' ' >"$T/w" &&
	grep -q '^ conv1.weight[_0-9]*:q i8 16x1x3x3 144 -127 127 .* q8 sym axis=0 n=16 scale=.* zp=0$' "$T/w" &&
	grep -q '^ conv1.bias:q i32 16 64 .* q32 sym axis=0 n=16 ' "$T/w"
ok $? "weights per output channel, symmetric restricted range (-127..127)"
npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --weight-scheme per_tensor_asymmetric \
	-o "$T/qa.ir" && npu-dump -w "$T/qa.ir" | tr -s ' ' | grep -q 'conv1.weight[_0-9]*:q i8 16x1x3x3 144 .* q8 asym scale=[0-9.e-]* zp=-*[0-9]*$'
ok $? "Compass' per_tensor_asymmetric: one scale and zero point, full range"
npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --weight-bits 4 -o "$T/q4.ir" &&
	npu-dump -w "$T/q4.ir" | tr -s ' ' | grep -q 'conv2.weight[_0-9]*:q i8 32x16x3x3 4608 -7 7 .* q4 sym'
ok $? "4-bit weights stay within -7..7"
npu-dump -v "$T/qf16.ir" | grep -q 'conv1  *conv  *f16 1x1x8x8, \[f16 16x1x3x3\], \[f16 16\] -> f16 1x16x8x8' &&
	npu-dump "$T/qf16.ir" | grep -q 'output_0/cast  *cast  *f16 1x10 -> f32 1x10'
ok $? "fp16: half weights and activations, the output cast to f32"
npu-quant "$T/digits.ir" --target grus --compress-fc --compress-conv --exclude-compress conv1 \
	--weight-min-max fc.weight:-0.5:0.5 -o "$T/qc.ir" && npu-dump -w "$T/qc.ir" | tr -s ' ' >"$T/w" &&
	grep -q 'conv2.weight[_0-9]*:q i8 ' "$T/w" && grep -q 'conv1.weight[_0-9]*:f16 f16 ' "$T/w" &&
	grep 'fc.weight:q' "$T/w" | grep -q 'scale=0.00393701 zp=0'
ok $? "fp16 weight compression: int8 per channel, exclusions, a fixed range (0.5/127)"

# statistics in shards: two files merged = one run over both
npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --calib "$EX/digits.test.npy" \
	--method kld -o "$T/both.ir" &&
	npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --stats-out "$T/a.stats" -o /dev/null &&
	npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.test.npy" --stats-out "$T/b.stats" -o /dev/null &&
	npu-quant "$T/digits.ir" --target int8 --stats-in "$T/a.stats" --stats-in "$T/b.stats" --method kld -o "$T/merged.ir" &&
	npu-dump -w "$T/both.ir" >"$T/w1" && npu-dump -w "$T/merged.ir" >"$T/w2" && cmp -s "$T/w1" "$T/w2" &&
	npu-dump --json "$T/both.ir" | grep '"quant"' >"$T/j1" && npu-dump --json "$T/merged.ir" | grep '"quant"' >"$T/j2" &&
	cmp -s "$T/j1" "$T/j2"
ok $? "--stats-out shards merged with --stats-in give the same scales as one run"
head -n 1 "$T/a.stats" | grep -q '^npu-calib-stats 1'
ok $? "the statistics file is text with a version"

# mixed precision
npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --float-layers conv2 -o "$T/mx.ir" &&
	npu-dump "$T/mx.ir" >"$T/d" &&
	grep -q 'conv2  *conv  *f32 1x16x8x8, \[f32 32x16x3x3\], \[f32 32\] -> f32 1x32x8x8 .*precision=f32' "$T/d" &&
	grep -q 'conv1/dequantize  *dequantize  *i8 1x16x8x8 -> f32' "$T/d" &&
	grep -q 'pool  *max_pool  *f32 1x32x8x8 -> f32 1x32x4x4 .*precision=f32' "$T/d" &&
	grep -q 'pool/quantize  *quantize  *f32 1x32x4x4 -> i8' "$T/d"
ok $? "--float-layers: the layer in f32 between dequantize and quantize"
cat >"$T/cfg.yaml" <<'EOF'
default: {method: percentile:99.99}
layers:
  conv3: {bits: 16, weight_bits: 16}
ops:
  fully_connected: int16
EOF
npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --config "$T/cfg.yaml" -o "$T/cf.ir" &&
	npu-dump "$T/cf.ir" >"$T/d" && grep -q 'conv3  *conv  *i8 1x32x4x4, \[i16 32x32x3x3\], \[i32 32\] -> i16 1x32x4x4' "$T/d" &&
	grep -q 'fc  *fully_connected  *i16 1x32, \[i8 10x32\], \[i32 10\] -> i16 1x10' "$T/d"
ok $? "--config: per-layer and per-op precision and weight bits"
printf '{"layers": {"conv2": "float"}}\n' >"$T/cfg.json"
npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --config "$T/cfg.json" -o "$T/cj.ir" &&
	npu-dump "$T/cj.ir" | grep -q 'conv2  *conv  *f32 .*precision=f32'
ok $? "--config reads JSON too"
npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --int-io -o "$T/io.ir" &&
	npu-dump "$T/io.ir" | grep -q '^  x  *i8  *1x1x8x8'
ok $? "--int-io: quantized inputs and outputs"

# a target whose concat does not rescale: requantize nodes in front
sed 's/^name: int8/name: int8ss/' "$TOP/share/npu/targets/int8.yaml" >"$T/ss.yaml"
echo 'same_scale_inputs: [concat]' >>"$T/ss.yaml"
npu-import-pt "$PT/squeezenet.pt" $(grep '^squeezenet ' "$PT/cases.txt" | cut -d' ' -f2-) | npu-fuse --all >"$T/sq.ir" &&
	npu-quant "$T/sq.ir" --target "$T/ss.yaml" --calib "$PT/squeezenet.in0.npy" -o "$T/ss.ir" &&
	npu-dump --json "$T/ss.ir" >"$T/ss.json" && npu-dump "$T/ss.ir" >"$T/d" &&
	[ "$(grep -c ' quantize  *i8 .* -> i8 ' "$T/d")" -ge 2 ] &&
	npu-run "$T/ss.ir" -i "$PT/squeezenet.in0.npy" --compare "$PT/squeezenet.out.npz" --rtol 0.1 --atol 0.05 >/dev/null
ok $? "same_scale_inputs: concat inputs requantized by their own nodes, the model still close to PyTorch"

# streaming GRU on the fp16 NPU: state output kept in half
args=$(grep '^gru ' "$PT/cases.txt" | cut -d' ' -f2-)
npu-import-pt "$PT/gru.pt" $args | npu-fuse --all >"$T/gru.ir" &&
	npu-quant "$T/gru.ir" --target grus --fp16-outputs output_1 -o "$T/gru16.ir" &&
	npu-dump "$T/gru16.ir" >"$T/d" && grep -q '^  h0  *f16  *2x1x12' "$T/d" &&
	grep -q '^  output_1  *f16  *2x1x12' "$T/d" && grep -q '^  output_0  *f32  *1x20x4' "$T/d"
ok $? "fp16: state input and --fp16-outputs state output in half, the others converted to f32"
npu-run "$T/gru16.ir" -i "$PT/gru.in0.npy" -i "$PT/gru.in1.npy" --compare "$PT/gru.out.npz" --rtol 5e-3 --atol 2e-3 >/dev/null
ok $? "fp16 GRU matches PyTorch within half precision"
npu-quant "$T/gru.ir" --target int8 --calib "$Q/gru.calib.npz" -v --float-layers gru,gru/l1 -o "$T/gru8.ir" 2>"$T/err" &&
	grep -q "node 'gru' (gru): kept in float: the configuration keeps it in float" "$T/err" &&
	npu-run "$T/gru8.ir" -i "$PT/gru.in0.npy" -i "$PT/gru.in1.npy" --compare "$PT/gru.out.npz" --rtol 3e-2 --atol 3e-2 >/dev/null
ok $? "int8: --float-layers keeps the GRUs in float (said with -v), the rest int8, close to PyTorch"
# the integer cells (the fixture's h0 is randn, so |h0| > 1 saturates in Q0.15: loose)
npu-quant "$T/gru.ir" --target int8 --calib "$Q/gru.calib.npz" -o "$T/gru8q.ir" && npu-dump "$T/gru8q.ir" >"$T/d" &&
	grep -q "^ *6  gru  *gru  *i8 1x20x16, \[i8 1x36x16\], \[i8 1x36x12\], \[i32 1x72\], -, i16 1x1x12 -> i8 1x20x1x12, i16 1x1x12" "$T/d" &&
	npu-run "$T/gru8q.ir" -i "$PT/gru.in0.npy" -i "$PT/gru.in1.npy" --compare "$PT/gru.out.npz" --rtol 3e-2 --atol 3e-2 >/dev/null
ok $? "int8: the GRUs run as integer cells (int8 weights, int16 Q0.15 state), close to PyTorch"

# errors: one line, nothing written
expect_fail 1 "bad-shape.npy: error: array 'x' is 4x1x1x7x7; input 'x' is 1x1x8x8" "calibration data of the wrong shape" -- \
	npu-quant "$T/digits.ir" --target int8 --calib "$Q/bad-shape.npy" -o "$T/out"
expect_fail 1 "bad-dtype.npy: error: array 'x' is int64; calibration data for input 'x' is float32" "calibration data of the wrong dtype" -- \
	npu-quant "$T/digits.ir" --target int8 --calib "$Q/bad-dtype.npy" -o "$T/out"
expect_fail 1 "empty.npy: .*no samples" "an empty calibration set" -- \
	npu-quant "$T/digits.ir" --target int8 --calib "$Q/empty.npy" -o "$T/out"
expect_fail 2 "--method: calibration method 'entropy': unknown" "an unknown method" -- \
	npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --method entropy -o "$T/out"
printf 'layers:\n  conv9: int16\n  conv2: float\n  nope: int8\n' >"$T/bad.yaml"
expect_fail 1 "bad.yaml: error: 'conv9' \(line 2\), 'nope' \(line 4\) name no node of the graph" "config layers that do not exist (all named)" -- \
	npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --config "$T/bad.yaml" -o "$T/out"
expect_fail 1 "needs calibration data" "an integer target without calibration" -- \
	npu-quant "$T/digits.ir" --target int8 -o "$T/out"
expect_fail 2 "--target is required" "no target" -- npu-quant "$T/digits.ir" -o "$T/out"
expect_fail 1 "target 'tpu9': .*No such file" "an unknown target" -- npu-quant "$T/digits.ir" --target tpu9 -o "$T/out"
expect_fail 2 "--bits must be 8 or 16" "bad --bits" -- \
	npu-quant "$T/digits.ir" --target int8 --bits 12 --calib "$EX/digits.calib.npy" -o "$T/out"
expect_fail 1 "already quantized" "a quantized graph again" -- \
	npu-quant "$T/q8.ir" --target int8 --calib "$EX/digits.calib.npy" -o "$T/out"
printf 'npu-calib-stats 1\ntensor x bogus\n' >"$T/bad.stats"
expect_fail 1 "bad.stats:2: error: " "a malformed statistics file" -- \
	npu-quant "$T/digits.ir" --target int8 --stats-in "$T/bad.stats" -o "$T/out"

done_testing
