#!/bin/sh
# t1400-run.sh - npu-run: imported models against PyTorch's own outputs
# (fp32 and fp16 emulation), inputs as .npy and .npz, outputs as .npz, .npy
# and per-node dumps, and the errors: one line, exit status, no output left.
# The .npy/.npz fixtures are NumPy's (tests/gen/npy_fixtures.py).
. "$(dirname "$0")/lib.sh"
N=$DATA/npy
EX=$TOP/share/npu/examples

npu-import-onnx "$DATA/tinycnn.onnx" -o "$T/tiny.ir"
ok $? "import tinycnn"
npu-import-onnx "$EX/squeezenet1_1.onnx" -o "$T/sq.ir"
ok $? "import squeezenet1_1"
npu-import-onnx "$N/two_io.onnx" -o "$T/two.ir"
ok $? "import two_io (two inputs, f32 and i64 outputs)"

# fp32 against PyTorch: max |error| <= 1e-6 + 1e-4 * max |reference|
npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" --compare "$DATA/tinycnn.output.npy" >"$T/rep"
ok $? "tinycnn matches PyTorch"
grep -q "^output 'output': max abs error .*: ok$" "$T/rep"
ok $? "the comparison is reported per output"
npu-run "$T/sq.ir" -i "$EX/squeezenet1_1.input.npy" --compare "$EX/squeezenet1_1.output.npy" >/dev/null
ok $? "squeezenet1_1 matches PyTorch"
npu-run "$T/two.ir" -i "$N/two_io.input.npz" --compare "$N/two_io.output.npz" >/dev/null
ok $? "two_io (.npz input keyed by name, f32 and i64 outputs) matches PyTorch"
npu-run "$T/two.ir" -i "$N/two_io.x.npy" -i "$N/two_io.y0.npy" --compare "$N/two_io.output.npz" >/dev/null
ok $? "two_io with one .npy per input"

# outputs: .npz by default (also on stdout), .npy for one output, deterministic
npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" -o "$T/a.npz"
ok $? "write an .npz"
npu-import-onnx "$DATA/tinycnn.onnx" | npu-run -i "$DATA/tinycnn.input.npy" >"$T/b.npz"
cmp -s "$T/a.npz" "$T/b.npz"
ok $? "IR from standard input, .npz to standard output, same bytes"
npu-run "$T/tiny.ir" -i "$N/tinycnn.input.npz" -o "$T/c.npz" && cmp -s "$T/a.npz" "$T/c.npz"
ok $? ".npz input keyed by name gives the same output"
npu-run "$T/tiny.ir" -i "$N/tinycnn.input.f64.npy" -o "$T/c.npz" && cmp -s "$T/a.npz" "$T/c.npz"
ok $? "a float64 input is converted to float32"
npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" -o "$T/c.npz" --repeat 3 --threads 2 && cmp -s "$T/a.npz" "$T/c.npz"
ok $? "--repeat 3 --threads 2 gives identical output"
npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" -o "$T/one.npy" && npu-run "$T/tiny.ir" \
	-i "$DATA/tinycnn.input.npy" --compare "$T/one.npy" --rtol 0 --atol 0 >/dev/null
ok $? "-o x.npy with one output (and read back exactly)"
head -c 128 "$T/one.npy" | grep -q "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 10), }"
ok $? ".npy header as NumPy writes it"

# --dump-dir: one .npy per node, '/' in names as '_'
npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" --dump-dir "$T/dump" -o "$T/c.npz" && cmp -s "$T/a.npz" "$T/c.npz"
ok $? "--dump-dir does not change the output"
[ "$(ls "$T/dump" | wc -l)" -eq 11 ] && [ -f "$T/dump/_conv1_Conv.npy" ] && [ -f "$T/dump/_fc_Gemm.npy" ]
ok $? "--dump-dir writes one .npy per node (11)"
cmp -s "$T/dump/_Softmax.npy" "$T/one.npy"
ok $? "the last node's dump is the output"

npu-run "$T/sq.ir" -i "$EX/squeezenet1_1.input.npy" -o "$T/s1.npz" &&
	npu-run "$T/sq.ir" -i "$EX/squeezenet1_1.input.npy" -o "$T/s3.npz" --threads 3 && cmp -s "$T/s1.npz" "$T/s3.npz"
ok $? "squeezenet1_1: --threads 3 gives identical output"
mkdir -p "$T/dump2/_Relu.npy"
expect_fail 1 "dump2/_Relu.npy: error: (write error: )?Is a directory" "a dump file that cannot be written stops the run" -- \
	npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" --dump-dir "$T/dump2" -o "$T/out"

# fp16 emulation: close to PyTorch (5e-3 of the largest magnitude), not equal
npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" --mode fp16 --compare "$DATA/tinycnn.output.npy" --rtol 5e-3 >/dev/null
ok $? "tinycnn in fp16 within 5e-3"
npu-run "$T/sq.ir" -i "$EX/squeezenet1_1.input.npy" --mode fp16 --compare "$EX/squeezenet1_1.output.npy" --rtol 5e-3 >/dev/null
ok $? "squeezenet1_1 in fp16 within 5e-3"
npu-run "$T/sq.ir" -i "$EX/squeezenet1_1.input.npy" --mode fp16 --compare "$EX/squeezenet1_1.output.npy" \
	>"$T/rep" 2>"$T/err"
[ $? -eq 1 ] && grep -q "MISMATCH at \[0, " "$T/rep" && grep -q "error: 1 of 1 output differs" "$T/err"
ok $? "fp16 differs beyond the fp32 tolerance (exit 1, position reported)"
npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" --mode fp16 -o "$T/h.npz" -v 2>"$T/err"
[ $? -eq 0 ] && grep -q "fp16: no value overflowed" "$T/err" && grep -q "^ *[0-9.]* *[0-9.]*% *conv *\/conv1\/Conv$" "$T/err"
ok $? "-v reports fp16 overflows and per-node times"
cmp -s "$T/a.npz" "$T/h.npz"
[ $? -eq 1 ]
ok $? "fp16 output differs from fp32"

# input errors
expect_fail 1 "v2.npy: error: input 'input': shape 2x3 does not match the model's 1x1x16x16" \
	"wrong input shape" -- npu-run "$T/tiny.ir" -i "$N/v2.npy" -o "$T/out"
expect_fail 1 "two_io.x_i32.npy: error: input 'x': dtype int32 does not match the model's float32 \(save it as float32" \
	"wrong input dtype" -- npu-run "$T/two.ir" -i "$N/two_io.x_i32.npy" -i "$N/two_io.y0.npy" -o "$T/out"
expect_fail 1 "i64.npy: error: input 'input': int64 2x3 does not match the model's float32 1x1x16x16" \
	"wrong dtype and shape" -- npu-run "$T/tiny.ir" -i "$N/i64.npy" -o "$T/out"
expect_fail 1 "two_io.x_only.npz: error: no array for input 'y0' \(the archive holds 'x'\)$" \
	"input missing from an .npz" -- npu-run "$T/two.ir" -i "$N/two_io.x_only.npz" -o "$T/out"
expect_fail 1 "two_io.extra.npz: error: array 'z' is not an input of the model" \
	"extra array in an .npz" -- npu-run "$T/two.ir" -i "$N/two_io.extra.npz" -o "$T/out"
expect_fail 1 "npu-run: error: 1 input file given for the model's 2 inputs \('x' and 'y0'\)" \
	"missing input file" -- npu-run "$T/two.ir" -i "$N/two_io.x.npy" -o "$T/out"
expect_fail 1 "npu-run: error: 2 input files given for the model's 1 input \('input'\)" \
	"too many input files" -- npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" -i "$DATA/tinycnn.input.npy" -o "$T/out"
expect_fail 1 "error: an .npz holds all the inputs, keyed by name: give it as the only -i" \
	".npz among several inputs" -- npu-run "$T/two.ir" -i "$N/two_io.x_only.npz" -i "$N/two_io.y0.npy" -o "$T/out"
expect_fail 1 "tinycnn.onnx: error: not a NumPy .npy or .npz file" \
	"input that is not NumPy" -- npu-run "$T/tiny.ir" -i "$DATA/tinycnn.onnx" -o "$T/out"
head -c 100 "$DATA/tinycnn.input.npy" >"$T/cut.npy"
expect_fail 1 "cut.npy: error: truncated .npy header" "truncated .npy header" -- npu-run "$T/tiny.ir" -i "$T/cut.npy" -o "$T/out"
head -c 1000 "$DATA/tinycnn.input.npy" >"$T/cut.npy"
expect_fail 1 "cut.npy: error: truncated data: shape 1x1x16x16 of float32 needs 1024 bytes, the file has 872" \
	"truncated .npy data" -- npu-run "$T/tiny.ir" -i "$T/cut.npy" -o "$T/out"
head -c 300 "$N/tinycnn.input.npz" >"$T/cut.npz"
expect_fail 1 "cut.npz: error: not a valid .npz \(zip\) archive" "truncated .npz" -- npu-run "$T/tiny.ir" -i "$T/cut.npz" -o "$T/out"
expect_fail 1 "looks like an ONNX model; run npu-import-onnx first" "ONNX model instead of IR" -- \
	npu-run "$DATA/tinycnn.onnx" -i "$DATA/tinycnn.input.npy" -o "$T/out"

# output and --compare errors
expect_fail 1 "error: a .npy holds one array and the model has 2 outputs \('sum' and 'idx'\): write an .npz" \
	".npy output for two outputs" -- npu-run "$T/two.ir" -i "$N/two_io.input.npz" -o "$T/two.npy"
[ ! -e "$T/two.npy" ] && [ -z "$(ls -A "$T" | grep '^\.two')" ]
ok $? "nothing written for a refused .npy output"
npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" --compare "$N/two_io.x_only.npz" -o "$T/out" >/dev/null 2>"$T/err"
[ $? -eq 1 ] && [ ! -e "$T/out" ] && grep -q "x_only.npz: error: no reference for output 'output'$" "$T/err" &&
	grep -q "x_only.npz: error: array 'x' is not an output of the model (its outputs are 'output')$" "$T/err"
ok $? "a reference without the output, or with other arrays, is refused before the run"
expect_fail 1 "squeezenet1_1.output.npy: error: output 'output': the reference's shape 1x1000 does not match the model's 1x10" \
	"reference of the wrong shape" -- npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" --compare "$EX/squeezenet1_1.output.npy"
npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" >/dev/full 2>"$T/err"
[ $? -eq 1 ] && grep -q "write error" "$T/err"
ok $? "writing to /dev/full fails with exit 1"

# usage errors: the message, then "Try 'npu-run --help'." (exit 2, no output)
expect_usage() {	# like expect_fail 2, for the two-line usage message
	re=$1 desc=$2; shift 3
	rm -f "$T"/out "$T"/.out.*
	"$@" >"$T/stdout" 2>"$T/err" </dev/null
	[ $? -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 2 ] && head -n 1 "$T/err" | grep -Eq -- "$re" &&
		[ "$(sed -n 2p "$T/err")" = "Try 'npu-run --help'." ] && ! ls -A "$T" | grep -q '^\(out\|\.out\..*\)$'
	res=$?
	[ $res -eq 0 ] || diag "$desc: $(cat "$T/err")"
	ok $res "$desc"
}
expect_usage "npu-run: --mode 'fp8': expected fp32, fp16 or runtime" "bad --mode" -- \
	npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" --mode fp8 -o "$T/out"
expect_usage "npu-run: --repeat '0': expected a whole number" "bad --repeat" -- \
	npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" --repeat 0 -o "$T/out"
expect_usage "npu-run: --rtol '-1': expected a non-negative number" "bad --rtol" -- \
	npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" --rtol -1 -o "$T/out"
expect_usage "npu-run: unknown option '--frobnicate'" "unknown option" -- \
	npu-run "$T/tiny.ir" --frobnicate -o "$T/out"
expect_usage "npu-run: standard input can be read only once" "stdin twice" -- npu-run -i - -o "$T/out"
npu-run --help | grep -q -- "--dump-dir DIR"
ok $? "--help"
npu-run --version | grep -q "^npu-run (npukit) "
ok $? "--version"
done_testing
