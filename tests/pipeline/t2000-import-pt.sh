#!/bin/sh
# npu-import-pt: TorchScript fixtures (tests/data/pt/, made by
# tests/gen/pt_fixtures.py with torch 1.13: stripped of debug_pkl entries and
# unaligned) import and match PyTorch's outputs within 1e-4 of each output's
# largest magnitude; archives written by other projects (TorchSharp, tch-rs:
# torch-written, with debug_pkl entries and 64-byte alignment) match their
# upstream test values; broken, hostile and unsupported archives fail with one
# line, exit status 1, and no output file; bad options exit 2.
. "$(dirname "$0")/lib.sh"
P=$DATA/pt
EXT=${NPU_EXTERNAL:-$TOP/../shared/external-testdata}/torch

# expect_usage 'STDERR-REGEX' DESC -- CMD...: exit 2, the message and the --help hint
expect_usage() {
	re=$1 desc=$2; shift 3
	rm -f "$T"/out "$T"/.out.* "$T"/err
	"$@" >"$T/stdout" 2>"$T/err" </dev/null
	st=$?
	res=0
	[ "$st" -eq 2 ] || { diag "$desc: exit $st, want 2"; res=1; }
	[ "$(wc -l <"$T/err")" -eq 2 ] && [ "$(sed -n 2p "$T/err")" = "Try 'npu-import-pt --help'." ] ||
		{ diag "$desc: stderr is not a message and the --help hint: $(cat "$T/err")"; res=1; }
	head -n 1 "$T/err" | grep -Eq -- "$re" || { diag "$desc: '$(head -n 1 "$T/err")' does not match '$re'"; res=1; }
	ls -A "$T" | grep -q '^\(out\|\.out\..*\)$' && { diag "$desc: output file left behind"; res=1; }
	ok $res "$desc"
}

# imports DESC MODEL [OPTIONS...]: exit 0, nothing on stderr, IR in $T/a.ir
imports() {
	desc=$1; shift
	rm -f "$T/a.ir"
	npu-import-pt "$@" -o "$T/a.ir" 2>"$T/err"
	st=$?
	res=0
	[ "$st" -eq 0 ] || { diag "$desc: exit $st: $(cat "$T/err")"; res=1; }
	[ -s "$T/err" ] && { diag "$desc: stderr: $(cat "$T/err")"; res=1; }
	[ -s "$T/a.ir" ] && [ "$(head -c 8 "$T/a.ir" | tail -c 6)" = "npu-ir" ] || { diag "$desc: no IR written"; res=1; }
	ok $res "$desc"
}

# matches DESC REF [RTOL ATOL] -- INPUTS...: $T/a.ir run on INPUTS agrees with REF
matches() {
	desc=$1 ref=$2 rtol=1e-4 atol=0; shift 2
	[ "$1" != "--" ] && { rtol=$1 atol=$2; shift 2; }
	shift
	args=
	for i in "$@"; do args="$args -i $i"; done
	# shellcheck disable=SC2086
	npu-run "$T/a.ir" $args --compare "$ref" --rtol "$rtol" --atol "$atol" >"$T/run" 2>&1
	st=$?
	[ $st -eq 0 ] || diag "$desc: $(cat "$T/run")"
	ok $st "$desc"
}

# mknpy FILE DESCR SHAPE VALUES...: a .npy (DESCR <f4 <f8 <i8; SHAPE "(5,)", "()")
mknpy() {
	perl -e '
		my ($file, $descr, $shape, @v) = @ARGV;
		my %fmt = ("<f4" => "f<", "<f8" => "d<", "<i8" => "q<");
		my $h = "{\x27descr\x27: \x27$descr\x27, \x27fortran_order\x27: False, \x27shape\x27: $shape, }";
		$h .= " " x (63 - (10 + length($h)) % 64) . "\n";
		open(my $f, ">:raw", $file) or die;
		print $f "\x93NUMPY\x01\x00", pack("v", length $h), $h, pack($fmt{$descr} . "*", @v);' "$@"
}

# mknpz FILE NAME=NPY...: the .npy files stored in an .npz under NAME.npy
mknpz() {
	out=$1; shift
	perl -MIO::Compress::Zip=:all -e '
		my ($out, @items) = @ARGV;
		my $z;
		for (@items) {
			my ($name, $file) = split /=/, $_, 2;
			local $/;
			open(my $f, "<:raw", $file) or die;
			my $data = <$f>;
			if ($z) { $z->newStream(Name => "$name.npy", Method => ZIP_CM_STORE) }
			else { $z = IO::Compress::Zip->new($out, Name => "$name.npy", Method => ZIP_CM_STORE) or die }
			$z->print($data);
		}
		$z->close;' "$out" "$@"
}

# count STRING FILE: how often an IR stream holds exactly STRING (< 32 bytes)
count() {
	pat=$(printf "\\$(printf %03o $((160 + ${#1})))")$1
	LC_ALL=C grep -a -o -F -- "$pat" "$2" | wc -l
}

# ---------------------------------------------------------------- fixtures against PyTorch

grep -v '^#' "$P/cases.txt" | while read -r name opts; do
	# shellcheck disable=SC2086
	imports "$name: imports" "$P/$name.pt" $opts
	# shellcheck disable=SC2046
	matches "$name: matches PyTorch" "$P/$name.out.npz" -- $(ls "$P/$name".in*.npy | sort)
done >"$T/fixtures"
cat "$T/fixtures"
n_fix=$(grep -c '^ok' "$T/fixtures")
bad_fix=$(grep -c '^not ok' "$T/fixtures")
_n=$((_n + n_fix + bad_fix))
_fail=$((_fail + bad_fix))

# adaptive pooling (tests/gen/pt_adaptive.py): uneven windows, even ones,
# global, larger than the input, 1-d, and max with return_indices
imports "adaptive pooling" "$P/adaptive.pt" --input 0:1,3,10,11
matches "adaptive pooling: matches PyTorch" "$P/adaptive.out.npz" -- "$P/adaptive.in0.npy"
npu-dump "$T/a.ir" >"$T/dump"
grep -q ' max_even  *max_pool .*kernel=2,3 ' "$T/dump" && grep -q ' max_global  *global_max_pool ' "$T/dump" &&
	grep -q ' avg_mixed/dim1  *avg_pool .*kernel=1,3 ' "$T/dump" &&
	grep -q ' max_uneven/dim0/window1  *slice .*ends=6 starts=2 ' "$T/dump" &&
	grep -q ' max_uneven  *concat ' "$T/dump"
ok $? "adaptive pooling: a pool where sizes divide, else a slice and reduction per window (rows 2..5 of 8 for 3)"

imports "cnn again" "$P/cnn.pt" --input 0:1,3,16,16
npu-dump "$T/a.ir" >"$T/dump"
grep -q '^ *[0-9]* *conv1  *conv ' "$T/dump" && grep -q '^ *[0-9]* *bn1  *batch_norm ' "$T/dump" &&
	grep -q '^ *[0-9]* *fc2  *fully_connected ' "$T/dump" && grep -q '^  output_0 ' "$T/dump" &&
	grep -q '^  x  ' "$T/dump"
ok $? "nodes are named after their module, inputs after forward()'s arguments, outputs output_N"
[ "$(count source.framework "$T/a.ir")" -eq 1 ] && [ "$(count pytorch "$T/a.ir")" -eq 1 ] &&
	[ "$(count cnn.pt "$T/a.ir")" -eq 1 ] && [ "$(count conv1.weight "$T/a.ir")" -eq 1 ]
ok $? "meta names the framework and the file; parameters are named after their path"
imports "squeezenet names" "$P/squeezenet.pt" --input 0:1,3,64,64
npu-dump "$T/a.ir" >"$T/dump"
grep -q ' features\.3\.expand3x3  *conv ' "$T/dump" && grep -q ' features\.3  *concat ' "$T/dump" &&
	grep -q ' classifier\.1  *conv ' "$T/dump"
ok $? "nested module paths name the nodes (features.3.expand3x3)"
imports "residual names" "$P/residual.pt" --input 0:1,8,10,10
npu-dump "$T/a.ir" >"$T/dump"
grep -q ' down\.0  *conv ' "$T/dump" && grep -q ' relu  *relu ' "$T/dump" && grep -q ' relu_1  *relu ' "$T/dump"
ok $? "a module called twice names its second node relu_1"
imports "multiout" "$P/multiout.pt" --input 0:1,8,12 --input 1:1,1,6
npu-dump "$T/a.ir" >"$T/dump"
[ "$(sed -n '/^outputs:/,/^$/p' "$T/dump" | grep -c '^  output_[0-6] ')" -eq 7 ]
ok $? "nested tuple outputs (4 + 2 + 1) flatten to 7 outputs"

npu-import-pt --input 0:1,3,16,16 <"$P/cnn.pt" >"$T/stdin.ir" 2>"$T/err" && [ ! -s "$T/err" ] &&
	[ "$(count source.file "$T/stdin.ir")" -eq 0 ] && [ "$(count conv "$T/stdin.ir")" -eq 2 ]
ok $? "reads standard input (no source.file then)"
npu-import-pt "$P/cnn.pt" --input 0:1,3,16,16 -o "$T/one.ir" && mv "$T/one.ir" "$T/first.ir" &&
	npu-import-pt "$P/cnn.pt" --input 0:1,3,16,16 -o "$T/one.ir" && cmp -s "$T/one.ir" "$T/first.ir"
ok $? "output is deterministic"
npu-import-pt -v "$P/cnn.pt" --input 0:1,3,16,16 -o "$T/v.ir" 2>"$T/err" &&
	grep -q "^npu-import-pt: .*cnn.pt: [0-9]* nodes, [0-9]* tensors, 1 inputs, 1 outputs" "$T/err"
ok $? "-v reports what was imported"
npu-import-pt --help >"$T/help" 2>&1 && grep -q "^Usage: npu-import-pt" "$T/help" && grep -q -- "--input IDX:SHAPE" "$T/help"
ok $? "--help"
npu-import-pt --version >"$T/version" && grep -q "^npu-import-pt (npukit) .*, IR format [0-9]" "$T/version"
ok $? "--version"
! LC_ALL=C grep -a -l -e /work -e /root -e /home "$P"/*.pt "$P"/bad/*.pt >/dev/null
ok $? "fixtures hold no absolute paths"

# ---------------------------------------------------------------- archives from other projects

if [ -d "$EXT" ]; then
	TS=$EXT/torchsharp
	imports "TorchSharp linrelu (scripted Sequential, mangled classes)" "$TS/linrelu.script.dat" --input 0:10
	matches "TorchSharp linrelu matches upstream" "$TS/linrelu_expected_output_0.npy" 1e-5 1e-8 -- "$TS/linrelu_input_0.npy"
	imports "TorchSharp scripted (torch.mv, functional.linear)" "$TS/scripted.script.dat" --input 0:6
	matches "TorchSharp scripted matches upstream" "$TS/scripted_expected_output_0.npy" 1e-5 1e-8 -- "$TS/scripted_input_0.npy"
	imports "TorchSharp l1000_100_10 (nested Sequential)" "$TS/l1000_100_10.script.dat" --input 0:1000
	matches "TorchSharp l1000_100_10 matches upstream" "$TS/l1000_100_10_expected_output_0.npy" 1e-4 1e-5 -- \
		"$TS/l1000_100_10_input_0.npy"

	CH=$EXT/tch-rs
	mknpy "$T/x.npy" "<f4" "(5,)" 3 1 4 1 5
	mknpy "$T/y.npy" "<f4" "(1,)" 7
	mknpy "$T/foo.npy" "<f4" "(5,)" 55 51 57 51 59
	imports "tch-rs foo (scripted, a buffer)" "$CH/foo.pt" --input 0:5 --input 1:1
	matches "tch-rs foo: 2*x+y+42" "$T/foo.npy" 0 0 -- "$T/x.npy" "$T/y.npy"
	mknpy "$T/a42.npy" "<i8" "()" 42
	mknpy "$T/b1337.npy" "<i8" "()" 1337
	mknpy "$T/foo1.npy" "<i8" "()" 1421
	imports "tch-rs foo1 (int64 scalar inputs)" "$CH/foo1.pt" --input 0:scalar:i64 --input 1:scalar:i64
	matches "tch-rs foo1: 2*x+y" "$T/foo1.npy" 0 0 -- "$T/a42.npy" "$T/b1337.npy"
	mknpy "$T/o0.npy" "<i8" "()" 1421
	mknpy "$T/o1.npy" "<i8" "()" -1295
	mknpz "$T/foo2.npz" "output_0=$T/o0.npy" "output_1=$T/o1.npy"
	imports "tch-rs foo2 (a tuple output)" "$CH/foo2.pt" --input 0:scalar:i64 --input 1:scalar:i64
	matches "tch-rs foo2: (2*x+y, x-y)" "$T/foo2.npz" 0 0 -- "$T/a42.npy" "$T/b1337.npy"
	mknpy "$T/x5.npy" "<f8" "(5,)" 1 2 3 4 5
	mknpy "$T/foo3.npy" "<f4" "()" 120
	imports "tch-rs foo3 (a scripted loop over a static range, unrolled)" "$CH/foo3.pt" --input 0:5
	matches "tch-rs foo3: product 120" "$T/foo3.npy" 0 0 -- "$T/x5.npy"
else
	diag "no external test data at $EXT: skipped"
fi

# ---------------------------------------------------------------- errors

B=$P/bad
head -c 20000 "$P/cnn.pt" >"$T/cut.pt"
expect_fail 1 "cut.pt: error: not a TorchScript archive \(not a zip file, or a truncated one\)$" "truncated zip" -- \
	npu-import-pt "$T/cut.pt" --input 0:1,3,16,16 -o "$T/out"
expect_fail 1 "error: not a TorchScript archive: the zip file has no data.pkl$" "zip without data.pkl" -- \
	npu-import-pt "$B/no_data_pkl.pt" --input 0:1,3,16,16 -o "$T/out"
expect_fail 1 "error: data.pkl: forbidden global 'os.system' \(only TorchScript's own globals" "pickle with a forbidden global" -- \
	npu-import-pt "$B/evil_global.pt" --input 0:1,3,16,16 -o "$T/out"
expect_fail 1 "error: input 1 \('hc'\) is a Tuple\[Tensor, Tensor\]: inputs that are lists or tuples are not supported; change forward\(\) to take each tensor as its own argument$" \
	"tuple input" -- npu-import-pt "$B/list_input.pt" --input 0:2 --input 1:2 -o "$T/out"
expect_fail 1 "error: cannot import: unsupported op 'aten::cumsum' \(code/__torch__.py:8, code/__torch__.py:9\); unsupported op 'aten::flip' \(code/__torch__.py:8\)$" \
	"every unsupported op is listed with its file and lines" -- npu-import-pt "$B/unsupported.pt" --input 0:2,3 -o "$T/out"
expect_fail 1 "cannot import: 'if' on a value computed at run time \(data-dependent control flow\) \(code/__torch__.py:[0-9]+\); 'while' loop on a value computed at run time .*\(code/__torch__.py:[0-9]+\)$" \
	"data-dependent control flow in scripted code is listed" -- npu-import-pt "$B/control.pt" --input 0:3 --input 1:3 -o "$T/out"
expect_fail 1 "error: data/0 has 860 bytes, its tensors need 864$" "storage shorter than its tensors" -- \
	npu-import-pt "$B/short_storage.pt" --input 0:1,3,16,16 -o "$T/out"
expect_fail 1 "error: the archive has no TorchScript code \(code/\): this looks like torch.save output" "no code/" -- \
	npu-import-pt "$B/no_code.pt" --input 0:1,3,16,16 -o "$T/out"
expect_fail 1 "error: input 0 \('x'\) needs a shape: give it with --input 0:SHAPE$" "input without a shape" -- \
	npu-import-pt "$P/cnn.pt" -o "$T/out"
expect_fail 1 "error: --input 2: the model's forward\(\) takes 2 inputs \(indexes 0 to 1\)$" "--input for an input the model lacks" -- \
	npu-import-pt "$P/concat.pt" --input 0:1,3,8,8 --input 1:1,2,8,8 --input 2:1 -o "$T/out"
expect_fail 1 "cannot import: aten::_convolution: 2 input channels do not fit" "input shape that does not fit the weights" -- \
	npu-import-pt "$P/cnn.pt" --input 0:1,2,16,16 -o "$T/out"
expect_fail 1 "error: this is an npukit IR stream already" "an IR stream" -- npu-import-pt "$DATA/bad/good.ir" -o "$T/out"
expect_fail 1 "not a TorchScript archive \(this looks like an ONNX model" "an ONNX model" -- \
	npu-import-pt "$DATA/tinycnn.onnx" -o "$T/out"
expect_fail 1 "random.bin: error: not a TorchScript archive" "random bytes" -- npu-import-pt "$DATA/bad/random.bin" -o "$T/out"
: >"$T/empty.pt"
expect_fail 1 "empty.pt: error: empty file" "empty file" -- npu-import-pt "$T/empty.pt" -o "$T/out"
expect_fail 1 "nonexistent.pt: error: No such file or directory" "missing file" -- npu-import-pt "$T/nonexistent.pt" -o "$T/out"

expect_usage "--input '0': expected IDX:SHAPE" "--input without a shape" -- npu-import-pt "$P/cnn.pt" --input 0 -o "$T/out"
expect_usage "--input 'x:1,3': expected IDX:SHAPE" "--input with a name" -- npu-import-pt "$P/cnn.pt" --input x:1,3 -o "$T/out"
expect_usage "--input '0:1,a': bad shape '1,a'" "--input with a bad shape" -- npu-import-pt "$P/cnn.pt" --input 0:1,a -o "$T/out"
expect_usage "--input '0:1:f64': unknown dtype 'f64'" "--input with a bad dtype" -- npu-import-pt "$P/cnn.pt" --input 0:1:f64 -o "$T/out"
expect_usage "--input 0 is given twice" "--input twice" -- npu-import-pt "$P/cnn.pt" --input 0:1 --input 0:2 -o "$T/out"
expect_usage "unknown option '--frobnicate'" "unknown option" -- npu-import-pt --frobnicate "$P/cnn.pt" -o "$T/out"
expect_usage "unexpected argument" "two models" -- npu-import-pt "$P/cnn.pt" "$P/gru.pt" -o "$T/out"
done_testing
