#!/bin/sh
# npu-eval: accuracy of a float or quantized graph over a data set, on the
# classifier of tests/gen/mixp_fixtures.py (200 held-out samples with
# PyTorch's logits and labels, and the first 12 as a directory of one-sample
# files) and the kws_gru family: the float graph matches PyTorch's logits
# and accuracy; plain int8 (a fragile tensor) loses accuracy; the figures do
# not depend on -j; bad input fails with one line.
. "$(dirname "$0")/lib.sh"
M=$DATA/mixp
F=$DATA/families/kws_gru
fig() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

npu-import-onnx "$M/model.onnx" | npu-fuse --all -o "$T/f.ir" &&
	npu-eval "$T/f.ir" "$M/test.npz" >"$T/f.txt" &&
	[ "$(fig samples "$T/f.txt")" = 200 ] && [ "$(fig top1_right "$T/f.txt")" = "$(fig ref_top1_right "$T/f.txt")" ] &&
	awk -v e="$(fig max_abs_err "$T/f.txt")" -v c="$(fig cosine "$T/f.txt")" 'BEGIN { exit !(e <= 1e-4 && c >= 0.999999) }'
ok $? "float: $(fig top1_right "$T/f.txt")/200 right as PyTorch's logits ($(fig ref_top1_right "$T/f.txt")), within $(fig max_abs_err "$T/f.txt") of them"

npu-eval "$T/f.ir" "$M/test.npz" --atol 1e-4 --rtol 0 --print allclose >"$T/a" && [ "$(cat "$T/a")" = 1 ] &&
	npu-eval "$T/f.ir" "$M/test.npz" --atol 1e-9 --rtol 0 --print allclose >"$T/a" && [ "$(cat "$T/a")" = 0 ] &&
	npu-eval "$T/f.ir" "$M/test.npz" --atol 1e-9 --rtol 0 --ntol 1 --print allclose >"$T/a" && [ "$(cat "$T/a")" = 1 ]
ok $? "allclose against PyTorch holds at atol 1e-4, not at 1e-9, and again with --ntol 1"

npu-quant "$T/f.ir" --target int8 --calib "$M/calib.npz" -q -o "$T/q.ir" &&
	npu-eval "$T/q.ir" "$M/test.npz" >"$T/q.txt" &&
	[ "$(fig top1_right "$T/q.txt")" -lt 150 ] && awk -v c="$(fig cosine "$T/q.txt")" 'BEGIN { exit !(c < 0.9) }'
ok $? "plain int8 loses accuracy: $(fig top1_right "$T/q.txt")/200 right, cosine $(fig cosine "$T/q.txt") against PyTorch's logits"

npu-eval "$T/q.ir" "$M/test.npz" --ref "$T/f.ir" -j 1 >"$T/j1" && npu-eval "$T/q.ir" "$M/test.npz" --ref "$T/f.ir" -j 3 >"$T/j3" &&
	cmp -s "$T/j1" "$T/j3" && [ "$(fig ref_top1_right "$T/j1")" = "$(fig ref_top1_right "$T/f.txt")" ]
ok $? "--ref f.ir: the same figures with -j 1 and -j 3; the float graph's top-1 as PyTorch's"
npu-eval "$T/q.ir" "$M/test.npz" -j 2 >/dev/null 2>"$T/err" && [ ! -s "$T/err" ]
ok $? "no progress (nor anything else) on a standard error that is no terminal"

npu-eval "$T/q.ir" "$M/test.npz" --json >"$T/q.json" && head -n 1 "$T/q.json" | grep -q '^{$' &&
	grep -q "^  \"top1\": $(fig top1 "$T/q.txt"),\$" "$T/q.json" && grep -q '"allclose": false' "$T/q.json" &&
	[ "$(npu-eval "$T/q.ir" "$M/test.npz" --print top1)" = "$(fig top1 "$T/q.txt")" ] &&
	npu-eval "$T/q.ir" "$M/test.npz" -k 3 >"$T/k3" && [ -n "$(fig top3 "$T/k3")" ] &&
	[ "$(npu-eval "$T/q.ir" "$M/test.npz" -k 3 --print top3)" = "$(fig top3 "$T/k3")" ]
ok $? "--json and --print give the text form's figures"

# the directory form: sampleN_inputs.npz + sampleN_outputs.npz (12 samples: 10 and 11 after 9)
npu-eval "$T/f.ir" "$M/set" >"$T/d.txt" && [ "$(fig samples "$T/d.txt")" = 12 ] &&
	[ "$(fig top1_right "$T/d.txt")" = "$(fig ref_top1_right "$T/d.txt")" ] &&
	awk -v e="$(fig max_abs_err "$T/d.txt")" 'BEGIN { exit !(e <= 1e-4) }'
ok $? "a directory of sampleN_inputs.npz / sampleN_outputs.npz: 12 samples, within $(fig max_abs_err "$T/d.txt") of PyTorch"

# an .npy data set (one input, samples along the first axis) against the float graph
npu-eval --sample 0 "$M/test.npz" -o "$T/x0.npy" && npu-eval "$T/q.ir" "$T/x0.npy" --ref "$T/f.ir" >"$T/n.txt" &&
	[ "$(fig samples "$T/n.txt")" = 1 ] && [ -n "$(fig sqnr_db "$T/n.txt")" ]
ok $? "--sample writes one sample as .npy; an .npy data set runs against --ref"

# --arrays: two array files
npu-run "$T/f.ir" -i "$M/in.npz" -o "$T/y.npz" &&
	d=$(npu-eval --arrays "$T/y.npz" "$M/out.npz" --key logits --print max_abs_err) &&
	awk -v d="$d" 'BEGIN { exit !(d <= 1e-4) }' &&
	[ "$(npu-eval --arrays "$M/out.npz" "$M/out.npz" --key logits --print sqnr_db)" = inf ]
ok $? "--arrays: npu-run's logits within $d of PyTorch's; an array against itself has SQNR inf"

# the keyword spotter (same as t5100 helper figures): float as PyTorch
npu-import-pt "$F/model.pt" $(cat "$F/args") | npu-fuse --all -o "$T/k.ir" &&
	npu-eval "$T/k.ir" "$F/test.npz" -j 2 >"$T/k.txt" && [ "$(fig top1_right "$T/k.txt")" = "$(fig ref_top1_right "$T/k.txt")" ]
ok $? "kws_gru float: $(fig top1_right "$T/k.txt")/200 right, PyTorch $(fig ref_top1_right "$T/k.txt")/200"

# bad input: one line, exit 1 (data) or 2 (usage), no output file
expect_fail 1 "^npu-eval: .*calib.npz: error: --print top1: needs labels in the data set\$" \
	"--print top1 on data without labels" -- npu-eval "$T/f.ir" "$M/calib.npz" --print top1 -o "$T/out"
expect_fail 1 "^npu-eval: .*in.npz: error: no array for input 'x'\$|^npu-eval: .*out.npz: error: no array for input 'x'\$" \
	"a data set without the input's array" -- npu-eval "$T/f.ir" "$M/out.npz" -o "$T/out"
expect_fail 1 "^npu-eval: .*kws_gru/test.npz: error: input 'x': expected float32 \[N, 16 values\]" \
	"samples of the wrong size" -- npu-eval "$T/f.ir" "$F/test.npz" -o "$T/out"
expect_fail 1 "^npu-eval: .*: error: --stream h=y: 'h' is no input of the graph\$" \
	"--stream naming no state input" -- npu-eval "$T/f.ir" "$M/test.npz" --stream h=y -o "$T/out"
expect_fail 1 "^npu-eval: .*nosuch: error: .*No such file or directory" \
	"a missing data set" -- npu-eval "$T/f.ir" "$T/nosuch" -o "$T/out"
mkdir "$T/empty"
expect_fail 1 "^npu-eval: .*empty: error: no sampleN_inputs.npz files in the directory\$" \
	"an empty directory" -- npu-eval "$T/f.ir" "$T/empty" -o "$T/out"
mkdir "$T/part" "$T/nolab" && cp "$M/set/sample0_inputs.npz" "$M/set/sample1_inputs.npz" "$M/set/sample0_outputs.npz" "$T/part" &&
	cp "$T/part/"* "$T/nolab" && cp "$M/out.npz" "$T/nolab/sample1_outputs.npz"
expect_fail 1 "^npu-eval: .*part: error: sample1_outputs.npz: missing \(other samples have outputs\)\$" \
	"a directory where one sample has no outputs file" -- npu-eval "$T/f.ir" "$T/part" -o "$T/out"
expect_fail 1 "^npu-eval: .*nolab: error: labels in 1 of the 2 samples \(all or none\)\$" \
	"a directory where one sample has no label" -- npu-eval "$T/f.ir" "$T/nolab" -o "$T/out"
expect_fail 2 "^npu-eval: --stream 'abc': expected IN=OUT\$" "--stream without =OUT" -- \
	npu-eval "$T/f.ir" "$M/test.npz" --stream abc -o "$T/out"
expect_fail 2 "^npu-eval: --print 'f1': unknown metric" "an unknown --print metric" -- \
	npu-eval "$T/f.ir" "$M/test.npz" --print f1 -o "$T/out"
expect_fail 2 "^npu-eval: expected IR and DATA\$" "no data set" -- npu-eval "$T/f.ir" -o "$T/out"
expect_fail 1 "^npu-eval: .*test.npz: error: sample 500: the array has 200\$" "--sample out of range" -- \
	npu-eval --sample 500 "$M/test.npz" -o "$T/out"

done_testing
