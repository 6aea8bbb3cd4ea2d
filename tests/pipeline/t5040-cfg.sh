#!/bin/sh
# npu-quant --cfg: a Zhouyi Compass Optimizer opt.cfg quantizes exactly as
# the equivalent options (the same IR but its history line, the same npu.h
# byte for byte); options override fields; unknown fields, bad values and
# (with --strict) fields without meaning here fail with one line naming
# file:line; --field lists every field; metric/dataset/data/label print
# the figures of the float graph (PyTorch's) and of the quantized one
# (npu-eval's) through a dataset and a metric plugin. Directories in
# Enflame's layout
# (sampleN_inputs.npz + sampleN_outputs.npz) calibrate and evaluate, the
# outputs being the report's reference. npu-eval --cmd runs a compiled
# npu.h host program and gets the interpreter's figures exactly.
. "$(dirname "$0")/lib.sh"
M=$DATA/mixp
EX=$TOP/share/npu/examples
CC=${CC:-cc}
same_ir() {	# same_ir A.ir B.ir: the same JSON view but the history, the same npu.h
	npu-dump --json "$1" | grep -v '"program": "npu-quant"' >"$T/a.json" &&
		npu-dump --json "$2" | grep -v '"program": "npu-quant"' >"$T/b.json" && cmp -s "$T/a.json" "$T/b.json" &&
		npu-emit "$1" -o "$T/a.h" && npu-emit "$2" -o "$T/b.h" && cmp -s "$T/a.h" "$T/b.h"
}

npu-import-onnx "$M/model.onnx" | npu-fuse --all -o "$T/f.ir"
ok $? "the mixp classifier imports"

cat >"$T/opt.cfg" <<EOF
; as Compass' optimizer_main.py --cfg reads it
[Common]
graph = $T/f.ir
model_name = mixp
calibration_data = $M/calib.npz
calibration_batch_size = 4
calibration_strategy_for_activation = 3std
calibration_strategy_for_weight = extrema
quantize_method_for_weight = per_tensor_symmetric_full_range
Quantize_Method_For_Activation: per_tensor_asymmetric
weight_bits = 6
activation_bits = 8
bias_bits = 32
lut_items_in_bits = 8
global_calibration = none
mixed_precision_auto_search = 0,0.,L
dump = False
EOF
npu-quant --target int8 --cfg "$T/opt.cfg" -o "$T/c.ir" 2>"$T/err" && [ ! -s "$T/err" ] &&
	npu-quant "$T/f.ir" --target int8 --calib "$M/calib.npz" --calib-batch 4 --method meanstd:3 \
		--weight-scheme symmetric_full_range --per-tensor --asymmetric --weight-bits 6 --bits 8 --lut-bits 8 -o "$T/o.ir" &&
	same_ir "$T/c.ir" "$T/o.ir" &&
	npu-quant "$T/f.ir" --target int8 --calib "$M/calib.npz" -o "$T/d.ir" && ! same_ir "$T/c.ir" "$T/d.ir"
ok $? "a Compass cfg quantizes as the equivalent options (the same IR but the history, the same npu.h), not as the defaults"

# Compass' spellings of the calibration strategies
for p in "extrema minmax" "mean averaging" "2std meanstd:2" "kld kld" "aciq_laplace aciq" "percentile minmax" "mse mse"; do
	set -- $p
	sed "s/^calibration_strategy_for_activation = .*/calibration_strategy_for_activation = $1/" "$T/opt.cfg" >"$T/s.cfg"
	npu-quant --target int8 --cfg "$T/s.cfg" -o "$T/s.ir" && npu-quant --target int8 --cfg "$T/s.cfg" --method "$2" -o "$T/m.ir" &&
		same_ir "$T/s.ir" "$T/m.ir" || { diag "calibration_strategy_for_activation = $1 is not --method $2"; false; } || break
done
ok $? "calibration_strategy_for_activation: extrema, mean, Nstd, kld, aciq_laplace, percentile as --method minmax, averaging, meanstd:N, kld, aciq, minmax"

# options override fields; output_dir/model_name name the output
npu-quant --target int8 --cfg "$T/opt.cfg" --weight-bits 8 --method mse --symmetric -o "$T/c8.ir" &&
	npu-quant "$T/f.ir" --target int8 --calib "$M/calib.npz" --calib-batch 4 --method mse \
		--weight-scheme symmetric_full_range --per-tensor --symmetric --weight-bits 8 --lut-bits 8 -o "$T/o8.ir" &&
	same_ir "$T/c8.ir" "$T/o8.ir"
ok $? "options given beside --cfg override its fields"
{ cat "$T/opt.cfg"; echo "output_dir = $T/opt_log"; } >"$T/dir.cfg"
npu-quant --target int8 --cfg "$T/dir.cfg" && same_ir "$T/opt_log/mixp.ir" "$T/c.ir"
ok $? "output_dir and model_name: the IR written to output_dir/mixp.ir"

# every field Compass defines is accepted (at its default: silently); --field lists them
npu-quant --field >"$T/fields" && grep -q '^  calibration_strategy_for_activation  *--method' "$T/fields" &&
	grep -q '^  with_winograd  *(default' "$T/fields"
ok $? "--field lists the mapped fields with their meaning and the accepted others"
n=0 bad=0
for f in $(awk '/^  [a-z]/ { print $1 }' "$T/fields"); do
	d=$(grep "^  $f " "$T/fields" | sed -n "s/.*(default '\(.*\)')\$/\1/p")
	case $f in graph|model_name|calibration_data|calibration_batch_size|calibration_strategy_for_activation|\
		calibration_strategy_for_weight|quantize_method_for_weight|quantize_method_for_activation|weight_bits|\
		activation_bits|bias_bits|lut_items_in_bits|global_calibration|mixed_precision_auto_search|dump|\
		eval_original_model|metric_batch_size) continue;;
	output_dir|quant_ir_name|opt_config|statistic_file|data) d=;;
	esac
	n=$((n + 1))
	{ cat "$T/opt.cfg"; echo "$f = $d"; } >"$T/one.cfg"
	npu-quant --target int8 --cfg "$T/one.cfg" --strict -o "$T/one.ir" 2>"$T/err" && [ ! -s "$T/err" ] ||
		{ diag "field $f = '$d': $(cat "$T/err")"; bad=1; }
done
[ "$n" -gt 50 ]
ok $((bad + $?)) "each of the $n other fields --field lists is accepted at its default, even with --strict"

# errors: one line, FILE:LINE, no output
{ cat "$T/opt.cfg"; echo "calibration_strategy = mean"; } >"$T/bad.cfg"
expect_fail 1 "^npu-quant: .*bad\.cfg:18: error: unknown field 'calibration_strategy' \(npu-quant --field lists them\)\$" \
	"an unknown field is an error naming it" -- npu-quant --target int8 --cfg "$T/bad.cfg" -o "$T/out"
sed 's/^weight_bits = 6/weight_bits = 40/' "$T/opt.cfg" >"$T/bad.cfg"
expect_fail 1 "^npu-quant: .*bad\.cfg:11: error: weight_bits '40': expected a number from 2 to 16\$" \
	"a bad value: an error with its line" -- npu-quant --target int8 --cfg "$T/bad.cfg" -o "$T/out"
sed 's/^calibration_strategy_for_activation = .*/calibration_strategy_for_activation = 1.5percentile/' "$T/opt.cfg" >"$T/bad.cfg"
expect_fail 1 "^npu-quant: .*bad\.cfg:7: error: calibration_strategy_for_activation '1.5percentile': .*no equivalent" \
	"a Compass strategy without equivalent is an error" -- npu-quant --target int8 --cfg "$T/bad.cfg" -o "$T/out"
sed 's/^bias_bits = 32/bias_bits = 16/' "$T/opt.cfg" >"$T/bad.cfg"
expect_fail 1 "^npu-quant: .*bad\.cfg:13: error: bias_bits '16': biases are int32 here" \
	"bias_bits other than 32 is an error" -- npu-quant --target int8 --cfg "$T/bad.cfg" -o "$T/out"
{ cat "$T/opt.cfg"; echo "weight_bits = 8"; } >"$T/bad.cfg"
expect_fail 1 "^npu-quant: .*bad\.cfg:18: error: field 'weight_bits' again \(first on line 11\)\$" \
	"a field twice is an error" -- npu-quant --target int8 --cfg "$T/bad.cfg" -o "$T/out"
{ echo "[Other]"; tail -n +3 "$T/opt.cfg"; } >"$T/bad.cfg"
expect_fail 1 "^npu-quant: .*bad\.cfg:1: error: section \[Other\]: every field goes in \[Common\]\$" \
	"a section other than [Common] is an error" -- npu-quant --target int8 --cfg "$T/bad.cfg" -o "$T/out"
{ cat "$T/opt.cfg"; echo "with_winograd = True"; } >"$T/w.cfg"
npu-quant --target int8 --cfg "$T/w.cfg" -o "$T/w.ir" 2>"$T/err" && same_ir "$T/w.ir" "$T/c.ir" &&
	grep -q "^npu-quant: .*w\.cfg:18: warning: with_winograd 'True': a Compass setting with no meaning here\$" "$T/err"
ok $? "a field without meaning here, not at Compass' default: a warning naming it and its line"
expect_fail 1 "^npu-quant: .*w\.cfg:18: error: with_winograd 'True': a Compass setting with no meaning here\$" \
	"... an error with --strict" -- npu-quant --target int8 --cfg "$T/w.cfg" --strict -o "$T/out"
expect_fail 1 "^npu-quant: .*nosuch\.cfg: error: .*No such file" \
	"a missing cfg" -- npu-quant --target int8 --cfg "$T/nosuch.cfg" -o "$T/out"

# dataset, data, label, metric: the figures of both graphs after quantizing
NPU_TESTS=${NPU_TESTS:-$TOP/build/rel/tests}
NPU_PLUGIN_PATH=$NPU_TESTS/../plugins
export NPU_PLUGIN_PATH
P=$DATA/plugin
npu-import-pt "$EX/digits.pt" --input 0:1,1,8,8 | npu-fuse --all -o "$T/dg.ir"
cat >"$T/m.cfg" <<EOF
[Common]
graph = $T/dg.ir
calibration_data = $EX/digits.calib.npy
dataset = npy-pair
data = $EX/digits.test.npy
label = $EX/digits.labels.npy
metric = topk(3),f1,top1
metric_batch_size = 32
EOF
npu-quant --target int8 --cfg "$T/m.cfg" -o "$T/mq.ir" 2>"$T/err" &&
	npu-eval "$T/mq.ir" --dataset "npy-pair:$EX/digits.test.npy,$EX/digits.labels.npy" --metric topk:3 --metric f1 \
		--metric top1 >"$T/ev.txt" &&
	grep -q "^npu-quant: metric topk:3 over 450 samples: float 1, quantized $(awk '$1 == "topk:3" { print $2 }' "$T/ev.txt")\$" "$T/err" &&
	grep -q "^npu-quant: metric top1 over 450 samples: float 0.986666667, quantized $(awk '$1 == "top1" { print $2 }' "$T/ev.txt")\$" "$T/err" &&
	f1=$(sed -n 's/^npu-quant: metric f1 over 450 samples: float \([^,]*\), quantized \(.*\)$/\1 \2/p' "$T/err") &&
	awk -v f="${f1% *}" -v q="${f1#* }" -v e="$(awk '$1 == "npy" && $2 == "f1" { print $3 }' "$P/expect.txt")" \
		-v n="$(awk '$1 == "f1" { print $2 }' "$T/ev.txt")" 'BEGIN { d = f - e; exit !(d < 1e-9 && d > -1e-9 && q == n) }' &&
	[ "$(awk '$1 == "npy" && $2 == "top1_right" { print $3 }' "$P/expect.txt")" = 444 ] &&
	[ "$(awk '$1 == "npy" && $2 == "top3_right" { print $3 }' "$P/expect.txt")" = 450 ]
ok $? "metric through the dataset plugin npy-pair (data, label): the float graph's top-1 (444/450), top-3 and F1 are PyTorch's, the int8 graph's npu-eval's"
{ grep -v '^metric = ' "$T/m.cfg"; echo "metric = nosuch(2)"; } >"$T/bad.cfg"
expect_fail 1 "^npu-quant: .*bad\.cfg:8: error: metric 'nosuch:2': unknown metric 'nosuch'" \
	"an unknown metric: an error naming it and the cfg line" -- npu-quant --target int8 --cfg "$T/bad.cfg" -o "$T/out"
grep -v '^dataset = ' "$T/m.cfg" >"$T/bad.cfg"
expect_fail 1 "^npu-quant: .*bad\.cfg:5: error: label '.*labels\.npy': labels in a file of their own need a dataset plugin" \
	"label without a dataset plugin is an error" -- npu-quant --target int8 --cfg "$T/bad.cfg" -o "$T/out"
sed 's/^dataset = npy-pair/dataset = nosuch/' "$T/m.cfg" >"$T/bad.cfg"
expect_fail 1 "^npu-quant: .*bad\.cfg:4: error: 'nosuch:.*': no such file or directory, and no dataset plugin 'nosuch'" \
	"an unknown dataset: an error naming it and its line" -- npu-quant --target int8 --cfg "$T/bad.cfg" -o "$T/out"
printf '[Common]\ngraph = %s\ncalibration_data = %s\ndata = %s\nmetric = top1,cosine\neval_original_model = false\n' \
	"$T/f.ir" "$M/calib.npz" "$M/set" >"$T/m2.cfg"
npu-quant --target int8 --cfg "$T/m2.cfg" -o "$T/m2.ir" 2>"$T/err" &&
	grep -q "^npu-quant: metric top1 over 12 samples: quantized $(npu-eval "$T/m2.ir" "$M/set" --print top1)\$" "$T/err" &&
	grep -q "^npu-quant: metric cosine over 12 samples: quantized $(npu-eval "$T/m2.ir" "$M/set" --print cosine)\$" "$T/err" &&
	[ "$(wc -l <"$T/err")" = 2 ]
ok $? "metric over data (a sampleN directory, builtin figures, eval_original_model = false): npu-eval's figures of the quantized graph"

# Enflame's sample directories: sampleN_inputs.npz samples, sampleN_outputs.npz the reference
npu-quant "$T/f.ir" --target int8 --calib "$M/set" -q -o "$T/qs.ir" &&
	npu-quant "$T/f.ir" --target int8 --calib "$M/calib.npz" --eval "$M/set" --report "$T/r.json" -o "$T/q.ir" &&
	grep -q '"samples": 12,' "$T/r.json" && grep '"data": ".*set", "samples": 12' "$T/r.json" >"$T/ref" &&
	fc=$(sed 's/.*"float": {"cosine": \([^,]*\),.*/\1/' "$T/ref") &&
	qc=$(sed 's/.*"quantized": {"cosine": \([^,]*\),.*/\1/' "$T/ref") &&
	ec=$(npu-eval "$T/q.ir" "$M/set" --print cosine) &&
	awk -v f="$fc" -v q="$qc" -v e="$ec" 'BEGIN { d = q - e; exit !(f >= 0.999999 && q < 0.9 && d < 1e-5 && d > -1e-5) }'
ok $? "sampleN_inputs/outputs.npz directory: calibrates; the report's reference: float cosine $fc against PyTorch's outputs, int8 $qc (npu-eval: $ec)"

# npu-eval --cmd: a compiled npu.h host program, the interpreter's figures exactly
build() {	# build IR NAME: host program $T/NAME around the IR's npu.h
	npu-emit "$1" --name "$2" -o "$T/npu_$2.h" &&
		$CC -std=c99 -O2 -I"$T" -DNPU_HEADER="\"npu_$2.h\"" -DNPU_MODEL="npu_$2_model" "$EX/npu_host.c" -o "$T/$2" -lm
}
build "$T/q.ir" mixp && npu-eval "$T/q.ir" "$M/test.npz" --cmd "$T/mixp" -j 2 >"$T/cmd.txt" &&
	npu-eval "$T/q.ir" "$M/test.npz" >"$T/run.txt" && cmp -s "$T/cmd.txt" "$T/run.txt" &&
	grep -q '^samples 200$' "$T/cmd.txt"
ok $? "--cmd: the int8 classifier's npu.h host over 200 samples: every figure equals the interpreter's (top-1 $(awk '$1 == "top1" { print $2 }' "$T/cmd.txt"))"
npu-quant "$T/dg.ir" --target int8 --calib "$EX/digits.calib.npy" -q -o "$T/dgq.ir" && build "$T/dgq.ir" digits &&
	npu-eval "$T/dgq.ir" "$EX/digits.test.npy" --ref "$T/dg.ir" --cmd "$T/digits" >"$T/cmd.txt" &&
	npu-eval "$T/dgq.ir" "$EX/digits.test.npy" --ref "$T/dg.ir" >"$T/run.txt" && cmp -s "$T/cmd.txt" "$T/run.txt" &&
	grep -q '^samples 450$' "$T/cmd.txt"
ok $? "--cmd: the digits demo's int8 npu.h against the float graph: the interpreter's figures (cosine $(awk '$1 == "cosine" { print $2 }' "$T/cmd.txt"))"
expect_fail 1 "^npu-eval: .*q\.ir: error: --cmd 'false' failed on sample 0 \(exit status 1\)\$" \
	"--cmd: a failing command" -- npu-eval "$T/q.ir" "$M/test.npz" --cmd false -o "$T/out"
expect_fail 1 "^npu-eval: .*q\.ir: error: --cmd 'true' wrote no OUTDIR/logits\.npy on sample 0\$" \
	"--cmd: a command writing no output" -- npu-eval "$T/q.ir" "$M/test.npz" --cmd true -o "$T/out"

# Compass' per-layer JSON (opt_config) as --config: the same IR as npu-quant's own form
cat >"$T/pl.json" <<EOF
{
  "/fc3/Gemm": {"q_bits_activation": 16, "q_bits_weight": 4, "q_bits_bias": 32, "q_mode_weight": "per_channel_symmetric_restricted_range"},
  "/fc4/Gemm": {"q_bits_activation": 8, "q_bits_weight": 6}
}
EOF
cat >"$T/own.yaml" <<EOF
layers:
  /fc3/Gemm: {bits: 16, weight_bits: 4, weight_scheme: per_channel_symmetric_restricted_range}
  /fc4/Gemm: {bits: 8, weight_bits: 6}
EOF
npu-quant "$T/f.ir" --target int8 --calib "$M/calib.npz" --config "$T/pl.json" -o "$T/pl.ir" &&
	npu-quant "$T/f.ir" --target int8 --calib "$M/calib.npz" --config "$T/own.yaml" -o "$T/own.ir" &&
	npu-quant "$T/f.ir" --target int8 --calib "$M/calib.npz" -o "$T/plain.ir" &&
	same_ir "$T/pl.ir" "$T/own.ir" && ! same_ir "$T/pl.ir" "$T/plain.ir" &&
	npu-dump "$T/pl.ir" | grep -q '/fc3/Gemm.*i16'
ok $? "Compass' per-layer JSON: the same IR as npu-quant's own per-layer form, /fc3/Gemm in int16"
printf '{"/fc3/Gemm": {"q_bits_activation": 16, "q_mode_activation": "per_tensor_asymmetric"}}' >"$T/pl2.json"
expect_fail 1 "^npu-quant: .*pl2\.json:1: error: layer '/fc3/Gemm': unknown setting 'q_mode_activation'" \
	"Compass' per-layer JSON: a setting without meaning here is named" -- \
	npu-quant "$T/f.ir" --target int8 --calib "$M/calib.npz" --config "$T/pl2.json" -o "$T/out"

done_testing
