#!/bin/sh
# Hostile input, the core: the IR checksum, overflow-checked shapes, npz
# keys and headers checked before inflating, YAML anchor budgets, reader
# messages in the one format, NaN and denormal calibration data, nothing
# left behind by a killed writer. Fixtures: tests/gen/hostile_fixtures.py.
. "$(dirname "$0")/lib.sh"
H=$DATA/hostile
B=$DATA/bad
EX=$TOP/share/npu/examples

# ---- the IR stream's checksum
npu-import-onnx "$DATA/tinycnn.onnx" -o "$T/m.ir"
ok $? "an IR stream to corrupt"
size=$(wc -c <"$T/m.ir")
# one bit flipped in the middle (the weights), one near the start (the tables)
for at in $((size / 2)) 40; do
	cp "$T/m.ir" "$T/flip.ir"
	b=$(od -An -tu1 -j "$at" -N1 "$T/flip.ir" | tr -d ' ')
	printf "$(printf '\\%03o' $((b ^ 4)))" | dd of="$T/flip.ir" bs=1 seek="$at" conv=notrunc 2>/dev/null
	expect_fail 1 "^npu-dump: .*flip.ir: error: IR stream is corrupt: checksum mismatch \(stored [0-9a-f]{8}, computed [0-9a-f]{8}\)$" \
		"a bit flipped at byte $at of $size is found" -- npu-dump "$T/flip.ir" -o "$T/out"
done
head -c $((size - 100)) "$T/m.ir" >"$T/cut.ir"
expect_fail 1 "^npu-fuse: .*cut.ir: error: truncated IR stream, or a corrupt one \(no checksum at its end\)$" \
	"a truncated stream" -- npu-fuse "$T/cut.ir" -o "$T/out"
npu-dump "$B/good.ir" >/dev/null
ok $? "a version 1 stream (no checksum) still reads"
npu-dump "$T/m.ir" --json -o "$T/m.json" && grep -q '"format_version": 2,' "$T/m.json"
ok $? "streams are written as version 2"

# ---- sizes a file dictates
expect_fail 1 "^npu-import-tf: reshape_overflow.pb: error: node 'y' \(Reshape\): shape has more than 1099511627776 elements$" \
	"TF Reshape to [2^30, 2^30, 2^30]" -- \
	sh -c "cd '$H' && npu-import-tf reshape_overflow.pb --input x:1,8 --output y -o '$T/out'"
expect_fail 1 "^npu-import-pt: .*empty_mark.pt: error: " "pickle MARK, TUPLE on an empty stack" -- \
	npu-import-pt "$H/empty_mark.pt" --input 0:1,8 -o "$T/out"

# ---- .npz: keys and headers before inflating; one line
npu-import-pt "$EX/digits.pt" --input 0:1,1,8,8 | npu-fuse --all >"$T/digits.ir"
ok $? "the digits model"
expect_fail 1 "^npu-run: .*npz_lying_header.npz: error: entry 'x.npy': its .npy header declares 1073741824 data bytes, the zip directory 16$" \
	"an .npz entry whose header lies about its size" -- npu-run "$T/digits.ir" -i "$H/npz_lying_header.npz" -o "$T/out"
expect_fail 1 "^npu-quant: .*npz_lying_header.npz: error: entry 'x.npy': its .npy header declares" \
	"the same as calibration data" -- \
	npu-quant "$T/digits.ir" --target int8 --calib "$H/npz_lying_header.npz" -o "$T/out"
expect_fail 1 "^npu-run: .*wrong_key.npz: error: no array for input 'x' \(the archive holds 'y'\)$" \
	"a key that is not the input's: one line (not missing plus extra)" -- \
	npu-run "$T/digits.ir" -i "$H/wrong_key.npz" -o "$T/out"

# ---- YAML: a budget for anchors and aliases, checked before loading
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "k%d: &a%d v\n", i, i }' >"$T/anchors.yaml"
expect_fail 1 "^npu-quant: .*anchors.yaml:1025: error: more than 1024 YAML anchors \(a configuration needs few\)$" \
	"a config of 3000 anchors" -- \
	npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --config "$T/anchors.yaml" -o "$T/out"
awk 'BEGIN { print "a: &a v"; for (i = 0; i < 3000; i++) printf "k%d: *a\n", i }' >"$T/aliases.yaml"
expect_fail 1 "^npuc: .*aliases.yaml:1026: error: more than 1024 YAML aliases" "an npuc config of 3000 aliases" -- \
	npuc "$T/aliases.yaml"
awk 'BEGIN { for (i = 0; i < 100; i++) printf "["; for (i = 0; i < 100; i++) printf "]"; print "" }' >"$T/deep.yaml"
expect_fail 1 "^npu-fuse: .*deep.yaml:1: error: nested deeper than 64 levels$" "a target profile nested 100 deep" -- \
	npu-fuse -t "$T/deep.yaml" "$T/digits.ir" -o "$T/out"

# ---- reader messages: FILE:LINE: error: (not error: FILE:LINE:)
printf 'default:\n  method: nosuch\n' >"$T/m.yaml"
# (the message was once built from its own buffer: "m.yaml:2: default:" twice)
expect_fail 1 "^npu-quant: .*m.yaml:2: error: default: calibration method 'nosuch': unknown \(expected minmax, " \
	"a --config error: its file and line first, the message whole" -- \
	npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --config "$T/m.yaml" -o "$T/out"
npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --stats-out "$T/s.stats" -o "$T/q.ir"
ok $? "statistics written"
sed 's/ sumsq [^ ]*/ sumsq -0x1p+4/' "$T/s.stats" | head -n 3 >"$T/neg.stats"
expect_fail 1 "^npu-quant: .*neg.stats:2: error: tensor '[^']*': negative sumsq$" "negative sumsq in --stats-in" -- \
	npu-quant "$T/digits.ir" --target int8 --stats-in "$T/neg.stats" -o "$T/out"

# ---- calibration data: NaNs are said, denormal-only data named
cp "$EX/digits.calib.npy" "$T/nan.npy"
# the first value of the first sample becomes a float32 NaN (0x7fc00000)
hdr=$(($(od -An -tu1 -j8 -N1 "$T/nan.npy") + 10))
printf '\000\000\300\177' | dd of="$T/nan.npy" bs=1 seek="$hdr" conv=notrunc 2>/dev/null
npu-quant "$T/digits.ir" --target int8 --calib "$T/nan.npy" -o "$T/q.ir" 2>"$T/err"
st=$?
[ $st -eq 0 ] && grep -q "^npu-quant: .*nan.npy: input 'x': warning: 1 NaN values (of [0-9]*) in the sample data; the statistics skip them$" "$T/err"
ok $? "a NaN in calibration data is a warning naming the file and input"
expect_fail 1 "^npu-quant: .*nan.npy: input 'x': error: 1 NaN values" "... an error with --strict" -- \
	npu-quant "$T/digits.ir" --target int8 --calib "$T/nan.npy" --strict -o "$T/out"

expect_fail 1 "^npu-quant: .*denormal.npy: input 'x': error: the calibration values are all zeros and denormals \([0-9.e+-]+ \.\. [0-9.e+-]+\): no quantization scale represents them$" \
	"denormal-only calibration data: the error names the data file" -- \
	npu-quant "$T/digits.ir" --target int8 --calib "$H/denormal.npy" -o "$T/out"

# ---- a writer killed mid-write leaves nothing (SIGXFSZ: not catchable
# by its handlers, like SIGKILL)
npu-import-onnx "$DATA/tinycnn.onnx" -o "$T/big.ir"
mkdir "$T/k"
sh -c 'ulimit -f 4; exec npu-fuse "$1" -o "$2"' sh "$T/big.ir" "$T/k/out" 2>/dev/null
st=$?
[ $st -gt 128 ] && [ -z "$(ls -A "$T/k")" ]
ok $? "a writer killed mid-write leaves no file, not even a hidden temporary (exit $st)"

done_testing
