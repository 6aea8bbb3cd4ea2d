#!/bin/sh
# Regenerate the seed corpora (corpus/NAME) from the test fixtures in
# tests/data and share/npu, with the programs of bin/ (run from the top of
# the tree after `make`). The committed corpora are these seeds plus what
# fuzzing added (make fuzz-merge); rerunning this adds the seeds back
# without removing anything.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
C=tests/fuzz/corpus
B=${NPU_BIN:-bin}
D=tests/data
T=$(mktemp -d "${TMPDIR:-/tmp}/npukit-seeds.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir -p $C/ir $C/onnx $C/tf $C/tfjs $C/pt $C/pickle $C/tsparse $C/npy $C/config $C/json $C/stats

# IR: the malformed streams of t1000 and a few imported models
cp $D/bad/*.ir $D/bad/not-ir.msgpack $C/ir/
$B/npu-import-onnx $D/tinycnn.onnx -o $C/ir/tinycnn.ir
$B/npu-import-onnx $D/tinycnn.onnx | $B/npu-fuse --all -o $C/ir/tinycnn.fused.ir
$B/npu-import-pt $D/pt/gru.pt --input 0:1,10,20 --input 1:2,1,12 -o $C/ir/gru.ir
$B/npu-import-pt $D/pt/ops2.pt --input 0:1,4,6,6 --input 1:1,5:i64 -o $C/ir/ops2.ir
$B/npu-quant $C/ir/tinycnn.fused.ir --target int8 --calib $D/tinycnn.input.npy -q -o $C/ir/tinycnn.q.ir

# ONNX models and TensorProto files
cp $D/onnx/*.onnx $D/tinycnn.onnx $C/onnx/
N=/usr/share/libonnx-testdata/data/node
for t in test_conv_with_strides_padding test_gru_defaults test_resize_upsample_scales_nearest \
	test_slice test_gather_0 test_softmax_axis_1 test_reshape_negative_dim; do
	[ -d $N/$t ] || continue
	cp $N/$t/model.onnx $C/onnx/$t.onnx
	cp $N/$t/test_data_set_0/input_0.pb $C/onnx/$t.input_0.pb
done

# TensorFlow GraphDefs (the small ones) and TensorFlow.js models
for f in $D/tf/*.pb; do
	[ "$(wc -c <"$f")" -le 16384 ] && cp "$f" $C/tf/
done
cp $D/tf/tfjs_landmark/model.json $C/tfjs/landmark.json
cp $D/families/tfjs_blazeface/model.json $C/tfjs/blazeface.json

# TorchScript archives, each with its --input list as the archive comment
# (fuzz_pt.c), and their pickles and sources on their own
while read -r name opts; do
	case $name in ''|'#'*) continue;; esac
	f=$D/pt/$name.pt
	[ "$(wc -c <"$f")" -le 12288 ] || continue
	cmt=$(echo "$opts" | sed -e 's/--input //g' -e 's/ /;/g')
	perl -e 'local $/; my ($f, $c) = @ARGV; open my $h, "<:raw", $f or die; my $z = <$h>;
		my $i = rindex($z, "PK\5\6"); die "$f: no zip end record\n" if $i < 0;
		substr($z, $i + 20) = pack("v", length $c) . $c; print $z' "$f" "$cmt" >$C/pt/$name.pt
	rm -rf "$T/x"; mkdir "$T/x"; (cd "$T/x" && unzip -q "$TOP/$f")
	for p in "$T"/x/*/data.pkl "$T"/x/*/constants.pkl; do
		[ -f "$p" ] && cp "$p" "$C/pickle/$name.$(basename "$p")"
	done
	find "$T/x" -name '*.py' | while read -r s; do
		cp "$s" "$C/tsparse/$name.$(echo "${s#"$T"/x/*/code/}" | tr / .)"
	done
done <$D/pt/cases.txt
for f in $D/pt/bad/*.pt; do
	[ "$(wc -c <"$f")" -le 12288 ] && cp "$f" $C/pt/
	rm -rf "$T/x"; mkdir "$T/x"; (cd "$T/x" && unzip -q "$TOP/$f") || continue
	for p in "$T"/x/*/data.pkl; do
		[ -f "$p" ] && cp "$p" "$C/pickle/bad.$(basename "$f" .pt).data.pkl"
	done
done

# npy and npz files
for f in $D/npy/*.npy $D/npy/*.npz $D/quant/*.npy $D/tinycnn.input.npy $D/onnx/*.npz; do
	[ "$(wc -c <"$f")" -le 8192 ] && cp "$f" $C/npy/
done

# configuration files: target profiles, npuc configs, npu-quant --config
cp share/npu/targets/*.yaml $D/npuc/*.yaml $C/config/
printf 'default: {method: percentile:99.99}\nlayers:\n  conv3: {bits: 16, weight_bits: 16}\nops:\n  fully_connected: int16\n' >$C/config/q1.yaml
printf '{"layers": {"conv2": "float"}}\n' >$C/config/q2.json
printf 'layers:\n  conv9: int16\n  conv2: float\n  nope: int8\n' >$C/config/q3.yaml
printf 'default: &d {method: kld, bits: 8}\nlayers:\n  a: *d\n  b: {<<: *d, weight_bits: 4, per_channel: false}\nops:\n  softmax: float\n' >$C/config/anchors.yaml
# npu-quant --cfg: Compass opt.cfg files
printf '# opt\n[Common]\ngraph = f.ir\nmodel_name: m\ncalibration_strategy_for_activation = 3std\nmetric = topk(5),f1\nweight_bits=8\n; c\n' >$C/config/opt1.cfg
printf '[Common]\nfoo = 1\nweight_bits = 8\nweight_bits = 4\n[Other]\nx\n' >$C/config/opt2.cfg

# JSON: TensorFlow.js models and npu-dump's JSON view
cp $C/tfjs/landmark.json $D/dump/tinycnn.json $C/json/
cp $C/config/q2.json $C/json/

# calibration statistics (npu-quant --stats-out)
$B/npu-quant $C/ir/tinycnn.fused.ir --target int8 --calib $D/tinycnn.input.npy --stats-out $C/stats/tinycnn.stats -q -o "$T/q.ir"
du -sh $C
