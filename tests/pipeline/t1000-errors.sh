#!/bin/sh
# The error corpus: every malformed input gets one line naming the problem,
# the documented exit status, and no output file. The malformed IR streams
# are made by tests/gen/bad_ir.py (each wrong in one way).
. "$(dirname "$0")/lib.sh"
B=$DATA/bad

# IR readers (npu-dump reads through the same libir code as every stage)
expect_fail 1 "bad/random.bin: error: not an IR stream" "random bytes" -- npu-dump "$B/random.bin" -o "$T/out"
expect_fail 1 "empty input" "empty file" -- npu-dump "$B/empty.ir" -o "$T/out"
expect_fail 1 "not an IR stream \(first key" "msgpack that is not IR" -- npu-dump "$B/not-ir.msgpack" -o "$T/out"
expect_fail 1 "IR format version 7 is not supported" "wrong format version" -- npu-dump "$B/version.ir" -o "$T/out"
expect_fail 1 "node input id is out of range" "dangling tensor id" -- npu-dump "$B/dangling-id.ir" -o "$T/out"
expect_fail 1 "node 'relu' \(relu\): input 'z' is not produced before" "cycle" -- npu-dump "$B/cycle.ir" -o "$T/out"
expect_fail 1 "shape dimension is out of range" "huge dimension" -- npu-dump "$B/huge-dim.ir" -o "$T/out"
expect_fail 1 "shape has too many elements" "overflowing shape product" -- npu-dump "$B/overflow-shape.ir" -o "$T/out"
expect_fail 1 "constant 'w' lies outside the blob" "constant outside the blob" -- npu-dump "$B/data-outside-blob.ir" -o "$T/out"
expect_fail 1 "blob: size does not match" "blob size mismatch" -- npu-dump "$B/blob-size.ir" -o "$T/out"
expect_fail 1 "unknown op 'frobnicate'" "unknown op" -- npu-dump "$B/unknown-op.ir" -o "$T/out"
expect_fail 1 "tensor 'x' lacks .* valid dtype" "unknown dtype" -- npu-dump "$B/bad-dtype.ir" -o "$T/out"
expect_fail 1 "node 'mul' \(mul\): attribute 'act' has the wrong type" "mistyped attribute" -- npu-dump "$B/attr-type.ir" -o "$T/out"
expect_fail 1 "zstd frame is corrupt" "corrupt zstd blob" -- npu-dump "$B/zstd-corrupt.ir" -o "$T/out"
expect_fail 1 "duplicate tensor name 'y'" "duplicate tensor name" -- npu-dump "$B/dup-name.ir" -o "$T/out"
expect_fail 1 "output 'y' is f32 1x5, shape inference gives f32 1x4" "stored shape disagrees" -- npu-dump "$B/wrong-shape.ir" -o "$T/out"
expect_fail 1 "output 'y' is already produced" "tensor with two producers" -- npu-dump "$B/two-producers.ir" -o "$T/out"
expect_fail 1 "meta: truncated IR stream" "count larger than the stream" -- npu-dump "$B/count-lie.ir" -o "$T/out"
expect_fail 1 "trailing bytes" "trailing garbage" -- npu-dump "$B/trailing.ir" -o "$T/out"
expect_fail 1 "No such file or directory" "missing file" -- npu-dump "$T/nonexistent.ir" -o "$T/out"

# other formats handed to an IR reader are named, with the program to use
expect_fail 1 "looks like an ONNX model; run npu-import-onnx first" "ONNX model to npu-dump" -- npu-dump "$DATA/tinycnn.onnx" -o "$T/out"
printf '\n\017\n\001x\022\013Placeholder' >"$T/graph.pb"
expect_fail 1 "looks like a TensorFlow GraphDef; run npu-import-tf first" "GraphDef to npu-dump" -- npu-dump "$T/graph.pb" -o "$T/out"
expect_fail 1 "looks like a NumPy .npy" "npy to npu-dump" -- npu-dump "$DATA/tinycnn.input.npy" -o "$T/out"

# a valid stream truncated anywhere is refused
npu-import-onnx "$DATA/tinycnn.onnx" -o "$T/tiny.ir"
ok $? "import tinycnn"
size=$(wc -c <"$T/tiny.ir")
bad=0
for n in 1 9 100 1000 $((size / 2)) $((size - 1)); do
	head -c "$n" "$T/tiny.ir" >"$T/cut.ir"
	npu-dump "$T/cut.ir" >/dev/null 2>"$T/err" && bad=1
	grep -q "truncated IR stream" "$T/err" || { bad=1; diag "cut at $n: $(cat "$T/err")"; }
done
ok $bad "truncated IR streams are refused as truncated"
head -c 100 "$T/tiny.ir" >"$T/cut.ir"
expect_fail 1 "error: .*truncated IR stream" "truncated stream (one line, no output)" -- npu-dump "$T/cut.ir" -o "$T/out"

# importer errors
expect_fail 2 "npu-import-onnx: .*--input" "bad --input syntax" -- npu-import-onnx "$DATA/tinycnn.onnx" --input input -o "$T/out"
expect_fail 2 "npu-import-onnx: .*--input" "bad --input shape" -- npu-import-onnx "$DATA/tinycnn.onnx" --input input:1,a -o "$T/out"
expect_fail 2 "unrecognized option|unknown option" "unknown option" -- npu-import-onnx --frobnicate "$DATA/tinycnn.onnx" -o "$T/out"
expect_fail 1 "npu-import-onnx: .*error: " "IR given to the ONNX importer" -- npu-import-onnx "$B/good.ir" -o "$T/out"
head -c 5000 "$DATA/tinycnn.onnx" >"$T/cut.onnx"
expect_fail 1 "npu-import-onnx: .*cut.onnx: error: " "truncated ONNX model" -- npu-import-onnx "$T/cut.onnx" -o "$T/out"

# output errors: a full device fails the run
npu-dump "$B/good.ir" >/dev/full 2>"$T/err"
st=$?
[ $st -eq 1 ] && grep -q "write error" "$T/err"
ok $? "writing to /dev/full fails with exit 1"
npu-import-onnx "$DATA/tinycnn.onnx" >/dev/full 2>"$T/err"
[ $? -eq 1 ]
ok $? "binary output to /dev/full fails with exit 1"

# -V and --version on every program: the same line, naming the program
for p in "$NPU_BIN"/npu*; do
	n=$(basename "$p")
	a=$("$p" -V) && b=$("$p" --version) && [ "$a" = "$b" ] && case $a in "$n (npukit) "*) true;; *) false;; esac
	ok $? "$n -V and --version: '$a'"
done
done_testing
