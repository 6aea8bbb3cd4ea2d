#!/bin/sh
# npu-dump: every view of two imported models against the golden files in
# tests/data/dump/ (made by npu-dump, read line by line when committed); the
# numbers in them against facts from outside npukit (ONNX shape inference in
# tests/data/*.expect, the models' definitions in tests/gen/onnx_models.py);
# a hand-made stream with every dtype, quantization and hostile names; the
# command line.
. "$(dirname "$0")/lib.sh"
G=$DATA/dump
MODELS="tinycnn squeezenet1_1"

# Imported from the top directory by relative paths, so the history (and
# with it the golden files) is the same on every machine.
(cd "$TOP" && npu-import-onnx tests/data/tinycnn.onnx) >"$T/tinycnn.ir" &&
	(cd "$TOP" && npu-import-onnx share/npu/examples/squeezenet1_1.onnx) >"$T/squeezenet1_1.ir"
ok $? "import the models"

# ---------------------------------------------------------------- golden files

# golden FILE MODEL [OPTIONS...]: npu-dump's output equals $G/FILE, nothing on stderr
golden() {
	file=$1 model=$2; shift 2
	npu-dump "$@" "$T/$model.ir" >"$T/$file" 2>"$T/err"
	st=$?
	res=0
	[ "$st" -eq 0 ] && [ ! -s "$T/err" ] || { diag "$file: exit $st: $(cat "$T/err")"; res=1; }
	diff -u "$G/$file" "$T/$file" >"$T/diff" || { diag "$file differs:" "$(head -n 20 "$T/diff")"; res=1; }
	ok $res "$file: npu-dump $* $model.ir"
}
for m in $MODELS; do
	golden "$m.list" "$m"
	golden "$m.memory" "$m" -m
	golden "$m.weights" "$m" -w
	golden "$m.json" "$m" --json
	golden "$m.dot" "$m" --dot
done
golden tinycnn.list-v tinycnn -v
golden tinycnn.history tinycnn --history

# ---------------------------------------------------------------- against outside facts

# product of comma-separated dimensions (1 for a scalar) in awk
NUMEL='function numel(dims,   d, k, i, n) { n = 1; k = split(dims, d, ","); for (i = 1; i <= k; i++) n *= d[i]; return n }'

# Every tensor's shape in --json agrees with ONNX shape inference.
for m in $MODELS; do
	npu-dump --json "$T/$m.ir" |
		sed -n 's/^ *{"id": [0-9]*, "name": "\([^"]*\)", "dtype": "[a-z0-9]*", "shape": \[\([-0-9, ]*\)\].*/\1 \2/p' |
		sed 's/, /,/g' >"$T/shapes"
	awk 'NR == FNR { have[$1] = $2; next }
	     $1 == "shape" && ($2 in have) { n++; if (have[$2] != $3) { bad++; print "# " $2 ": npu-dump " have[$2] ", ONNX " $3 >"/dev/stderr" } }
	     END { print n + 0, bad + 0 }' "$T/shapes" "$DATA/$m.expect" >"$T/res"
	read -r n bad <"$T/res"
	[ "$n" -gt 10 ] && [ "$bad" -eq 0 ]
	ok $? "$m: --json shapes agree with ONNX shape inference ($n tensors, $bad differ)"
	# one node per ONNX node but the Constants (folded at import), by origin
	bad=0
	while read -r kind op count; do
		[ "$kind" = count ] && [ "$op" != Constant ] || continue
		have=$(npu-dump --json "$T/$m.ir" | grep -c "\"origin\": \"$op\"}")
		[ "$have" -eq "$count" ] || { diag "$m: $have nodes from $op, ONNX has $count"; bad=1; }
	done <"$DATA/$m.expect"
	nodes=$(awk '$1 == "count" && $2 != "Constant" { n += $3 } END { print n }' "$DATA/$m.expect")
	grep -q "^graph: $nodes nodes," "$T/$m.list" || { diag "$m: listing does not say $nodes nodes"; bad=1; }
	ok $bad "$m: nodes per ONNX op type in --json, and the node count in the listing"
	# activations: the input and every value ONNX infers a shape for, in f32
	want=$(awk "$NUMEL"' $1 == "shape" && $3 != "" { s += numel($3) } END { printf "%.0f", 4 * s }' "$DATA/$m.expect")
	input=$(sed -n 's/^  input  *f32  *\([0-9x]*\) .*/\1/p' "$T/$m.list" | tr x ,)
	want=$((want + 4 * $(echo "$input" | awk "$NUMEL"' { print numel($1) }')))
	grep -q "^activation bytes:  $want (" "$T/$m.memory"
	ok $? "$m: -m activation bytes are the input's and ONNX's value shapes' ($want)"
done

# MACs. tinycnn (tests/gen/onnx_models.py, shapes in tinycnn.expect): conv1
# 1->8 3x3 on a 16x16 output, depthwise 3x3 on 8 8x8 channels, pointwise
# 8->16 on 8x8, fc 256->10.
want=$((8 * 16 * 16 * 1 * 9 + 8 * 8 * 8 * 9 + 16 * 8 * 8 * 8 + 10 * 256))
grep -q "^total MACs:        $want$" "$T/tinycnn.memory"
ok $? "tinycnn: total MACs are the convolutions' and fc's ($want)"
# squeezenet1_1: every Conv output's numel times its filter size: 3x3 for
# features.0 (3 input channels) and the expand3x3 convs, 1x1 for the others,
# with the input channels of the value before the conv (the last MaxPool,
# Concat or squeeze activation). torchvision gives 0.349 GMACs.
want=$(awk "$NUMEL"' $1 != "shape" { next }
	$2 ~ /Conv_output_0$/ { k = $2 ~ /expand3x3|features\.0\// ? 9 : 1; cin = $2 ~ /features\.0\// ? 3 : c; macs += numel($3) * cin * k }
	$2 ~ /(MaxPool|Concat|squeeze_activation\/Relu)_output_0$/ { split($3, d, ","); c = d[2] }
	END { printf "%.0f", macs }' "$DATA/squeezenet1_1.expect")
grep -q "^total MACs:        $want$" "$T/squeezenet1_1.memory"
ok $? "squeezenet1_1: total MACs from ONNX's shapes ($want)"
for m in $MODELS; do
	awk '$1 ~ /^[0-9]+$/ && NF == 8 { s += $7 } /^total MACs:/ { t = $3 } END { exit !(s == t && t > 0) }' "$T/$m.memory"
	ok $? "$m: -m per-node MACs add up to the total"
done

# The arena plan. tinycnn (shapes in tinycnn.expect, f32): conv1's output
# 1x8x16x16 (8192 bytes) is alive from node 0 to the pool at node 2 (the
# relu writes over it in place), the pool's 1x8x8x8 output (2048) is born
# there: 10240 bytes at node 2 is the most ever alive, and the greedy plan
# reaches it. Offsets: conv1 and the relu at 0, the pool above them at 8192.
grep -q "^arena:             10240 bytes, lower bound: 10240 bytes (node 2 '/pool/MaxPool'), ratio 1.000$" "$T/tinycnn.memory" &&
	grep -Eq '^     1  /Relu .* 0$' "$T/tinycnn.memory" && grep -Eq '^     2  /pool/MaxPool .* 8192$' "$T/tinycnn.memory"
ok $? "tinycnn: -m arena and lower bound (10240 at the first pool), offsets"
# squeezenet1_1: at the first MaxPool (node 20) the relu'd features.0 output
# 1x64x111x111 and the pool's 1x64x55x55 are alive, with the 18 biases the
# export passes through Identity nodes (every one read later): the lower
# bound, and the arena equals it.
want=$(awk "$NUMEL"' $1 == "shape" && ($2 ~ /features\.0\/Conv_output_0$|features\.2\/MaxPool_output_0$/ || $2 ~ /bias$/) { s += 4 * numel($3) } END { print s }' "$DATA/squeezenet1_1.expect")
grep -q "^arena:             $want bytes, lower bound: $want bytes (node 20 '/features/features.2/MaxPool'), ratio 1.000$" "$T/squeezenet1_1.memory"
ok $? "squeezenet1_1: -m arena and lower bound ($want at the first MaxPool)"
# --io-outside: the graph input and output have no offset; the output's
# producer shows '-'.
npu-dump -m --io-outside "$T/tinycnn.ir" >"$T/io.memory" &&
	grep -Eq '^    10  /Softmax .* -$' "$T/io.memory" && ! grep -Eq '^    10  /Softmax .* -$' "$T/tinycnn.memory" &&
	grep -q '^arena:             10240 bytes' "$T/io.memory"
ok $? "-m --io-outside: graph inputs and outputs outside the arena"
# -v -v: a timeline row per buffer; conv1's output and the relu over it
# alive at nodes 0-2; one column per node up to 100, 100 columns beyond.
npu-dump -m -v -v "$T/tinycnn.ir" >"$T/timeline" &&
	grep -q "^           0        8192  ###........  /conv1/Conv_output_0 (+1 sharing)$" "$T/timeline" &&
	[ "$(sed -n '/^arena timeline/,$p' "$T/timeline" | grep -c '^ *[0-9]')" -eq 8 ] &&
	! npu-dump -m -v "$T/tinycnn.ir" | grep -q '^arena timeline'
ok $? "-m -v -v: the arena timeline"
(cd "$TOP" && npu-import-onnx tests/data/fuse/mobilenet_v2.onnx) | npu-dump -m -v -v |
	awk '/^arena timeline/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { n++; if (length($3) != 100 || $3 !~ /^[#.]+$/) bad++ } END { exit !(n > 50 && !bad) }'
ok $? "-m -v -v: 100 columns for a model of more than 100 nodes"

# Weight bytes. tinycnn after export's BN folding: conv1 8x1x3x3 + 8,
# depthwise 8x1x3x3, pointwise 16x8 + 16, fc 10x256 + 10 floats.
want=$((4 * (72 + 8 + 72 + 128 + 16 + 2560 + 10)))
grep -q "^weight bytes:      $want (" "$T/tinycnn.memory" && grep -q "^7 constants, $want bytes$" "$T/tinycnn.weights"
ok $? "tinycnn: weight bytes in -m and -w ($want)"
# squeezenet1_1 has 1235496 parameters (torchvision); the export passes the
# biases whose shapes squeezenet1_1.expect lists through Identity nodes, so
# they are activations, not constants.
biases=$(awk "$NUMEL"' $1 == "shape" && $2 ~ /bias$/ { s += numel($3) } END { print s }' "$DATA/squeezenet1_1.expect")
want=$((4 * (1235496 - biases)))
grep -q "^weight bytes:      $want (" "$T/squeezenet1_1.memory" && grep -q "^34 constants, $want bytes$" "$T/squeezenet1_1.weights"
ok $? "squeezenet1_1: weight bytes in -m and -w ($want)"

# ---------------------------------------------------------------- JSON

# json_ok FILE: valid JSON, checked without jq or Python: UTF-8 with no raw
# control characters; strings, numbers and literals reduced to one token S,
# then arrays and objects of S reduced until only S is left.
json_ok() {
	iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 || return 1
	tr -d '\n' <"$1" | LC_ALL=C grep -q '[[:cntrl:]]' && return 1
	LC_ALL=C sed -E 's/"([^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/S/g' "$1" | LC_ALL=C awk '
		{ s = s $0 " " }
		END {
			gsub(/true|false|null/, "S", s)
			gsub(/-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/, "S", s)
			gsub(/[ \t]/, "", s)
			if (s ~ /[^][{}:,S]/)
				exit 1
			do {
				before = s
				gsub(/\[(S(,S)*)?\]/, "S", s)
				gsub(/\{(S:S(,S:S)*)?\}/, "S", s)
			} while (s != before)
			exit s != "S"
		}'
}
bad=0
for m in $MODELS; do
	json_ok "$T/$m.json" || { diag "$m.json is not valid JSON"; bad=1; }
done
head -c 3000 "$T/tinycnn.json" >"$T/cut.json"
json_ok "$T/cut.json" && { diag "the JSON check passes a truncated file"; bad=1; }
sed 's/"op": /"op" /' "$T/tinycnn.json" >"$T/broken.json"
json_ok "$T/broken.json" && { diag "the JSON check passes a missing colon"; bad=1; }
ok $bad "--json is valid JSON (and the check refuses broken JSON)"
if command -v jq >/dev/null 2>&1; then
	jq -e '.format_version == 2 and (.nodes | length) == 83 and .inputs == ["input"]' "$T/squeezenet1_1.json" >/dev/null &&
		jq -e '(.tensors | map(select(.kind == "const")) | length) == 7' "$T/tinycnn.json" >/dev/null
	ok $? "jq reads --json"
else
	ok 0 "jq reads --json # SKIP jq is not installed"
fi

npu-dump --json - <"$T/tinycnn.ir" >"$T/stdin.json" && cmp -s "$T/stdin.json" "$T/tinycnn.json" &&
	(cd "$TOP" && npu-import-onnx tests/data/tinycnn.onnx) | npu-dump --json >"$T/again.json" &&
	cmp -s "$T/again.json" "$T/tinycnn.json"
ok $? "--json is the same from a file, from standard input, and from a second import"

# ---------------------------------------------------------------- a hand-made stream

# Every dtype as a constant (values chosen so the statistics are easy to
# check by hand), per-channel and per-tensor quantization, names with quotes,
# backslashes, a tab, UTF-8, control characters, an invalid byte and a
# terminal escape, non-finite and empty attributes, an absent optional
# input, precision and origin, typed metadata, awkward history arguments.
perl -e '
	sub I { "\xd3" . pack("q>", shift) }
	sub F { "\xcb" . pack("d>", shift) }
	sub S { my $s = shift; "\xdb" . pack("N", length $s) . $s }
	sub A { "\xdd" . pack("N", scalar @_) . join("", @_) }
	sub M { "\xdf" . pack("N", @_ / 2) . join("", @_) }
	my ($true, $false, $inf) = ("\xc3", "\xc2", 9**9**9);
	my ($blob, @t) = ("");
	sub tensor {
		my ($name, $dtype, $shape, $kind, @x) = @_;
		push @t, M(S("name"), S($name), S("dtype"), S($dtype), S("shape"), A(map { I($_) } @$shape),
			   S("kind"), S($kind), @x);
	}
	sub const {
		my ($name, $dtype, $shape, $bytes, @x) = @_;
		$blob .= "\0" x (-length($blob) % 64);
		tensor($name, $dtype, $shape, "const", S("data"), A(I(length $blob), I(length $bytes)), @x);
		$blob .= $bytes;
	}
	sub node {
		my ($name, $op, $in, $out, @x) = @_;
		M(S("name"), S($name), S("op"), S($op), S("inputs"), A(map { I($_) } @$in),
		  S("outputs"), A(map { I($_) } @$out), @x);
	}
	tensor("x \"q\" \\ \t\xc3\xa9\x01\xff\x1b[31m", "f32", [1, 4], "input", S("layout"), S("nc"));
	const("w_f16", "f16", [4], pack("v*", 0x3c00, 0xc000, 0x3800, 0x3800));
	const("w_i8", "i8", [2, 2], pack("c*", -128, 127, 0, 1), S("quant"),
	      M(S("bits"), I(8), S("symmetric"), $true, S("axis"), I(0), S("scale"), A(F(0.5), F(0.25)),
		S("zero_point"), A(I(0), I(0)), S("range"), A(F(-1), F(1))));
	const("w_i64", "i64", [3], pack("q<*", -5, 0, 5));
	const("w_bool", "bool", [2], pack("C*", 0, 3));
	const("w_u8", "u8", [2], pack("C*", 200, 255));
	const("w_bf16", "bf16", [2], pack("v*", 0x3fc0, 0xc040));
	const("w_i16", "i16", [2], pack("s<*", -300, 300));
	const("w_i32", "i32", [1], pack("l<*", 100000));
	const("w_f32", "f32", [4], pack("f<*", 0.125, -0.125, 1, 3), S("quant"),
	      M(S("bits"), I(16), S("symmetric"), $false, S("axis"), I(-1), S("scale"), A(F(0.001)),
		S("zero_point"), A(I(-3))));
	tensor("y \"q\" \\ \t\xc3\xa9\x01\xff", "f32", [1, 4], "activation");
	tensor("z", "f32", [1, 4], "activation");
	tensor("out", "f32", [1, 4], "activation");
	tensor("deq", "f32", [2, 2], "activation");
	my @nodes = (
		node("leaky\nrelu", "leaky_relu", [0], [10], S("attrs"), M(S("alpha"), A(S("f"), F(0.5))),
		     S("precision"), S("f32"), S("origin"), S("Leaky\"Relu")),
		node("mul", "mul", [10, 9], [11], S("attrs"), M(S("act_params"), A(S("F"), A()))),
		node("clip", "clip", [11], [12], S("attrs"), M(S("max"), A(S("f"), F($inf)), S("min"), A(S("f"), F(-$inf)))),
		node("deq", "dequantize", [2, -1], [13], S("attrs"), M(S("axis"), A(S("i"), I(0)))));
	print M(S("npu-ir"), I(1),
		S("meta"), M(S("note.count"), I(3), S("note.flag"), $true, S("note.float"), F(0.25),
			     S("source.framework"), S("hand"), S("source.text"), S("a \"q\"\tb")),
		S("history"), A(M(S("program"), S("zoo.pl"), S("version"), S("1"),
				  S("args"), A(S("--opt"), S("two words"), S("it\x27s"), S("")))),
		S("tensors"), A(@t), S("nodes"), A(@nodes), S("inputs"), A(I(0)), S("outputs"), A(I(12), I(13)),
		S("blob"), M(S("size"), I(length $blob), S("compression"), S("none"),
			     S("data"), "\xc6" . pack("N", length $blob) . $blob));' >"$T/zoo.ir"
npu-dump -w "$T/zoo.ir" >"$T/zoo.weights" 2>"$T/err"
ok $? "a hand-made stream with every dtype is read: $(cat "$T/err")"

# name dtype shape bytes min max mean std [quant]: worked out by hand
cat >"$T/want" <<'EOF'
w_f16 f16 4 8 -2 1 0 1.1726
w_i8 i8 2x2 4 -128 127 0 90.1582 q8 sym axis=0 n=2 scale=0.25..0.5 zp=0 range=-1..1
w_i64 i64 3 24 -5 5 0 4.08248
w_bool bool 2 2 0 1 0.5 0.5
w_u8 u8 2 2 200 255 227.5 27.5
w_bf16 bf16 2 4 -3 1.5 -0.75 2.25
w_i16 i16 2 4 -300 300 0 300
w_i32 i32 1 4 100000 100000 100000 0
w_f32 f32 4 16 -0.125 3 1 1.22793 q16 asym scale=0.001 zp=-3
EOF
grep '^  w_' "$T/zoo.weights" | tr -s ' ' | sed 's/^ //' | diff -u "$T/want" - >"$T/diff" || diag "$(cat "$T/diff")"
[ ! -s "$T/diff" ]
ok $? "-w: statistics of every dtype and the quantization parameters"

npu-dump --json "$T/zoo.ir" >"$T/zoo.json" && json_ok "$T/zoo.json" &&
	grep -qF '"name": "x \"q\" \\ \u0009é\u0001\ufffd\u001b[31m", "dtype": "f32", "shape": [1, 4], "layout": "nc", "kind": "input"' "$T/zoo.json" &&
	grep -qF '{"id": 0, "name": "leaky\u000arelu", "op": "leaky_relu", "inputs": ["x ' "$T/zoo.json" &&
	grep -qF '"attrs": {"alpha": 0.5}, "precision": "f32", "origin": "Leaky\"Relu"}' "$T/zoo.json" &&
	grep -qF '"attrs": {"act_params": []}' "$T/zoo.json" &&
	grep -qF '"attrs": {"max": "inf", "min": "-inf"}' "$T/zoo.json" &&
	grep -qF '"inputs": ["w_i8", null], "outputs": ["deq"]' "$T/zoo.json" &&
	grep -qF '"quant": {"bits": 8, "symmetric": true, "axis": 0, "scale": [0.5, 0.25], "zero_point": [0, 0], "range": [-1, 1]}' "$T/zoo.json" &&
	grep -qF '"quant": {"bits": 16, "symmetric": false, "axis": -1, "scale": [0.00100000005], "zero_point": [-3]}' "$T/zoo.json" &&
	grep -qF '"note.count": 3,' "$T/zoo.json" && grep -qF '"note.flag": true,' "$T/zoo.json" &&
	grep -qF '"source.text": "a \"q\"\u0009b"' "$T/zoo.json" &&
	grep -qF '"args": ["--opt", "two words", "it'"'"'s", ""]' "$T/zoo.json" &&
	grep -qF '"outputs": ["out", "deq"]' "$T/zoo.json"
ok $? "--json: escaped names, non-finite floats, empty lists, null inputs, quantization, typed metadata"
if command -v jq >/dev/null 2>&1; then
	[ "$(jq -r '.nodes[0].name' "$T/zoo.json")" = "leaky
relu" ] && [ "$(jq -r '.meta."note.float"' "$T/zoo.json")" = 0.25 ]
	ok $? "jq reads the escaped names back"
else
	ok 0 "jq reads the escaped names back # SKIP jq is not installed"
fi

bad=0
for v in "" -v -m -w --dot --history; do
	npu-dump $v "$T/zoo.ir" >"$T/view" || bad=1
	tr -d '\n' <"$T/view" | LC_ALL=C grep -q '[[:cntrl:]]' && { diag "npu-dump $v writes control characters"; bad=1; }
done
npu-dump -v "$T/zoo.ir" | grep -q '^     0  leaky?relu  leaky_relu  f32 1x4 -> f32 1x4  alpha=0.5  precision=f32  origin=Leaky"Relu$' &&
	npu-dump "$T/zoo.ir" | grep -q '^     3  deq         dequantize  \[i8 2x2\], - -> f32 2x2  axis=0$' &&
	npu-dump "$T/zoo.ir" | grep -q '^  x "q" \\ ?é???\[31m  f32   1x4  nc$' || bad=1
ok $bad "text views show control characters and invalid bytes as '?' and stay aligned"
[ "$(npu-dump --history "$T/zoo.ir")" = "zoo.pl 1 --opt 'two words' 'it'\\''s' ''" ]
ok $? "--history quotes arguments for the shell"
npu-dump --dot "$T/zoo.ir" | grep -qF 't0 [shape=ellipse, label="x \"q\" \\ ?é???[31m\nf32 1x4"];' &&
	npu-dump --dot "$T/zoo.ir" | grep -qF 'n3 -> out1 [label="2x2"];' &&
	! npu-dump --dot "$T/zoo.ir" | grep -q 'w_'
ok $? "--dot: quoted labels, every graph output, no constants"

# ---------------------------------------------------------------- command line

# expect_usage 'STDERR-REGEX' DESC -- CMD...: exit 2, the message line and
# "Try 'npu-dump --help'.", nothing written.
expect_usage() {
	re=$1 desc=$2; shift 3
	rm -f "$T"/out "$T"/.out.* "$T"/err
	"$@" >"$T/stdout" 2>"$T/err" </dev/null
	st=$?
	res=0
	[ "$st" -eq 2 ] || { diag "$desc: exit $st, want 2"; res=1; }
	[ "$(wc -l <"$T/err")" -eq 2 ] && [ "$(sed -n 2p "$T/err")" = "Try 'npu-dump --help'." ] ||
		{ diag "$desc: stderr is not a message and the --help hint: $(cat "$T/err")"; res=1; }
	head -n 1 "$T/err" | grep -Eq -- "$re" || { diag "$desc: '$(head -n 1 "$T/err")' does not match '$re'"; res=1; }
	[ -s "$T/stdout" ] && { diag "$desc: wrote to standard output"; res=1; }
	ls -A "$T" | grep -q '^\(out\|\.out\..*\)$' && { diag "$desc: output file left behind"; res=1; }
	ok $res "$desc"
}
I=$T/tinycnn.ir
expect_usage "^npu-dump: -m and --json cannot be combined \(one view at a time\)$" "two views" -- npu-dump -m --json "$I" -o "$T/out"
expect_usage "^npu-dump: --dot and -w cannot be combined" "two views, long and short" -- npu-dump --dot -w "$I" -o "$T/out"
expect_usage "^npu-dump: --history and --json cannot be combined" "two long views" -- npu-dump --history --json "$I" -o "$T/out"
expect_usage "^npu-dump: unknown option '--frobnicate'$" "unknown long option" -- npu-dump --frobnicate "$I" -o "$T/out"
expect_usage "^npu-dump: unknown option '-x'$" "unknown short option" -- npu-dump -x "$I" -o "$T/out"
expect_usage "^npu-dump: option '--json' takes no argument$" "argument to a flag" -- npu-dump --json=1 "$I" -o "$T/out"
expect_usage "^npu-dump: option '-o' needs an argument$" "-o without a file" -- npu-dump "$I" -o
expect_usage "^npu-dump: unexpected argument '.*' \(one IR stream at a time\)$" "two inputs" -- npu-dump "$I" "$I" -o "$T/out"
npu-dump -m -m --memory "$I" >"$T/mm" && cmp -s "$T/mm" "$G/tinycnn.memory"
ok $? "the same view twice is not an error"

npu-dump "$I" >/dev/full 2>"$T/err"
[ $? -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "^npu-dump: <stdout>: error: write error: " "$T/err"
ok $? "writing to /dev/full fails with exit 1 and one line"
npu-dump --json "$I" -o "$T/out.json" 2>"$T/err" && [ ! -s "$T/err" ] && cmp -s "$T/out.json" "$G/tinycnn.json" &&
	npu-dump -m "$I" -o "$T/out.json" && cmp -s "$T/out.json" "$G/tinycnn.memory" &&
	[ -z "$(ls -A "$T" | grep '^\.out')" ]
ok $? "-o writes the file (and replaces it), no temporary left"
expect_fail 1 "^npu-dump: $T/nodir/out: error: cannot create a temporary file: " "-o into a missing directory" -- \
	npu-dump "$I" -o "$T/nodir/out"
# -o to something that is not a regular file writes into it (a FIFO here;
# /dev/null in real life) instead of renaming a temporary file over it
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/from-fifo" &
reader=$!
npu-dump -m "$I" -o "$T/fifo"
st=$?
if [ -p "$T/fifo" ]; then wait $reader; else kill $reader; fi
[ $st -eq 0 ] && [ -p "$T/fifo" ] && cmp -s "$T/from-fifo" "$G/tinycnn.memory"
ok $? "-o FIFO writes into the FIFO and leaves it in place"

(cd "$TOP" && npu-import-onnx tests/data/tinycnn.onnx) | npu-dump >"$T/piped" 2>"$T/err" && [ ! -s "$T/err" ] &&
	cmp -s "$T/piped" "$G/tinycnn.list" && npu-dump - -m <"$I" | cmp -s - "$G/tinycnn.memory"
ok $? "reads standard input (no argument or -)"

npu-dump --version >"$T/version" && grep -Eq "^npu-dump \(npukit\) [0-9]+\.[0-9]+\.[0-9]+, IR format [0-9]+$" "$T/version" &&
	[ "$(wc -l <"$T/version")" -eq 1 ]
ok $? "--version: $(cat "$T/version")"
npu-dump --help >"$T/help" 2>&1
st=$?
missing=$(for o in --memory --io-outside --weights --json --dot --history --out --verbose --quiet --version; do
	grep -q -- "$o" "$T/help" || echo "$o"; done)
[ $st -eq 0 ] && grep -q "^Usage: npu-dump \[IR|-\]" "$T/help" && [ -z "$missing" ]
ok $? "--help lists every option $missing"
npu-dump --help >/dev/full 2>/dev/null
[ $? -eq 1 ]
ok $? "--help to /dev/full fails"
done_testing
