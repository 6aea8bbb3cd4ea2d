#!/bin/sh
# Hostile input: files made to attack the readers (code execution through
# pickles, zip bombs, deep nesting, sizes that lie, tensors outside their
# storage) and hostile surroundings (unwritable outputs, signals). Every case
# must fail cleanly: the documented exit status, one line naming the file,
# and no output file or temporary left behind. The inputs are made here, by
# printf and perl, from the fixtures in tests/data.
. "$(dirname "$0")/lib.sh"

# ---------------------------------------------------------------- TorchScript archives
# mkpt OUT ENTRY FILE: tests/data/pt/ops.pt with archive/ENTRY replaced by
# FILE (entries stored, as torch.jit.save writes them)
mkdir "$T/base" && (cd "$T/base" && unzip -q "$DATA/pt/ops.pt") || diag "cannot unpack ops.pt"
mkzip() {	# mkzip OUT DIR [deflate]: every file under DIR, in name order
	(cd "$2" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$T/names"
	perl -MIO::Compress::Zip=:all -e '
		my ($out, $dir, $m) = @ARGV; my $z; open my $l, "<", "'"$T/names"'" or die;
		while (my $n = <$l>) { chomp $n; open my $h, "<:raw", "$dir/$n" or die; local $/; my $c = <$h> // "";
			my %o = (Name => $n, Method => $m ? ZIP_CM_DEFLATE : ZIP_CM_STORE, Minimal => 1);
			if ($z) { $z->newStream(%o) } else { $z = IO::Compress::Zip->new($out, %o) or die }
			$z->print($c) }
		$z->close' "$1" "$2" "${3:-}"
}
mkpt() {
	rm -rf "$T/w" && cp -R "$T/base" "$T/w" && cp "$3" "$T/w/archive/$2" && mkzip "$1" "$T/w"
}
# pkl 'PERL-EXPRESSION': the pickle it prints, as data.pkl of $T/p.pt
pkl() {
	perl -e "print $1" >"$T/p.pkl" && mkpt "$T/p.pt" data.pkl "$T/p.pkl"
}
PTI="--input 0:1,3,16,16"
FORBID="forbidden global '%s' \\(only TorchScript's own globals are loaded; this file may try to run code\\)"

# Every global outside TorchScript's own is refused by name, however the
# pickle asks for it, before anything could call it.
for g in os.system posix.system nt.system subprocess.Popen subprocess.check_output \
	builtins.eval builtins.exec builtins.getattr builtins.__import__ builtins.open __builtin__.eval \
	torch.load torch.hub.load sys.modules importlib.import_module runpy._run_code shutil.rmtree \
	socket.socket pickle.loads ctypes.CDLL numpy.load; do
	mod=${g%.*} name=${g##*.}
	pkl "\"\\x80\\x02c$mod\\n$name\\nX\\x02\\x00\\x00\\x00ls\\x85R.\""
	expect_fail 1 "npu-import-pt: .*p.pt: error: data.pkl: $(printf "$FORBID" "$g")" "pickle GLOBAL $g refused" -- \
		npu-import-pt "$T/p.pt" $PTI -o "$T/out"
done
for g in os.system posix.system subprocess.run builtins.eval torch.load; do
	mod=${g%.*} name=${g##*.}
	pkl "\"\\x80\\x04\\x8c\" . chr(length '$mod') . '$mod' . \"\\x94\\x8c\" . chr(length '$name') . '$name' . \"\\x94\\x93X\\x02\\x00\\x00\\x00ls\\x85R.\""
	expect_fail 1 "data.pkl: $(printf "$FORBID" "$g")" "pickle STACK_GLOBAL $g refused" -- \
		npu-import-pt "$T/p.pt" $PTI -o "$T/out"
done
pkl '"\x80\x02(cos\nsystem\nX\x02\x00\x00\x00lso."'
expect_fail 1 "data.pkl: $(printf "$FORBID" os.system)" "pickle OBJ on os.system refused" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"
pkl '"\x80\x04\x8c\x0asubprocess\x8c\x05Popen\x93)}\x92."'
expect_fail 1 "data.pkl: $(printf "$FORBID" subprocess.Popen)" "pickle NEWOBJ_EX on subprocess.Popen refused" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"
pkl '"\x80\x02cbuiltins\nexec\n)\x81}X\x08\x00\x00\x00__code__Nsb."'
expect_fail 1 "data.pkl: $(printf "$FORBID" builtins.exec)" "pickle NEWOBJ+BUILD on builtins.exec refused" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"
pkl '"\x80\x02(X\x02\x00\x00\x00lsios\nsystem\n."'
expect_fail 1 "data.pkl: unsupported pickle opcode 0x69 \(at byte 10\)" "pickle INST (never loads its global) refused" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"
pkl '"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(cos\nsystem\nt\x85R."'
expect_fail 1 "data.pkl: $(printf "$FORBID" os.system)" "a forbidden global as an argument of an allowed one" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"
printf '\200\002cposix\nsystem\nX\002\000\000\000ls\205R.' >"$T/c.pkl"
mkpt "$T/p.pt" constants.pkl "$T/c.pkl"
expect_fail 1 "constants.pkl: $(printf "$FORBID" posix.system)" "constants.pkl is held to the same rules" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"
pkl '"\x80\x02Pls\n."'
expect_fail 1 "data.pkl: unsupported pickle opcode 0x50" "pickle PERSID (text persistent id) refused" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"

# pickle structure: deep nesting, sizes beyond the file, undefined memo
pkl '"\x80\x02", "]" x 1000000, "a" x 999999, "."'
expect_fail 1 "data.pkl holds a list, not a module" "10^6-deep nested lists in a pickle" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"
pkl '"\x80\x02", "(" x 1000000, "t" x 1000000, "."'
expect_fail 1 "data.pkl holds a tuple, not a module" "10^6 nested MARK/TUPLE in a pickle" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"
pkl '"\x80\x02", "}" x 200000, "."'
expect_fail 1 "data.pkl: pickle ends with 200000 values on its stack" "10^5 values left on the pickle stack" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"
pkl '"\x80\x02X", pack("V", 0xffffffff), "ab."'
expect_fail 1 "data.pkl: truncated pickle \(string of 4294967295 bytes\)" "pickle string longer than the file" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"
pkl '"\x80\x02\x8d", pack("Q<", 1 << 62), "ab."'
expect_fail 1 "data.pkl: truncated pickle \(string of 4611686018427387904 bytes\)" "pickle BINUNICODE8 of 2^62 bytes" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"
pkl '"\x80\x02h\x05."'
expect_fail 1 "data.pkl: memo entry 5 is not defined" "pickle reads an undefined memo entry" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"
pkl '"\x80\x02]q\x00h\x00a."'
expect_fail 1 "data.pkl holds a list, not a module" "a list that contains itself" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"
pkl '"\x80\x02N"'
expect_fail 1 "data.pkl: .*(truncated|STOP|end)" "pickle without STOP" -- npu-import-pt "$T/p.pt" $PTI -o "$T/out"

# zip: bombs, sizes that lie, archives that are not TorchScript
# zpatch ENTRY SIZE <IN >OUT: ENTRY's uncompressed size in both zip headers
zpatch() {
	perl -e 'my ($e, $s) = @ARGV; local $/; binmode STDIN; binmode STDOUT; my $z = <STDIN>;
		for (my $i = index($z, "PK\3\4"); $i >= 0; $i = index($z, "PK\3\4", $i + 4)) {
			substr($z, $i + 22, 4) = pack("V", $s) if substr($z, $i + 30, unpack("v", substr($z, $i + 26, 2))) eq $e }
		for (my $i = index($z, "PK\1\2"); $i >= 0; $i = index($z, "PK\1\2", $i + 4)) {
			substr($z, $i + 24, 4) = pack("V", $s) if substr($z, $i + 46, unpack("v", substr($z, $i + 28, 2))) eq $e }
		print $z' "$1" "$2"
}
rm -rf "$T/w" && cp -R "$T/base" "$T/w" && head -c 8388608 /dev/zero >"$T/w/archive/data/0" && mkzip "$T/bomb.pt" "$T/w" deflate
rm -rf "$T/w"
expect_fail 1 "bomb.pt: error: data/0 is too large \(8388608 bytes\)" "zip bomb: a storage inflating far beyond its tensor" -- \
	npu-import-pt "$T/bomb.pt" $PTI -o "$T/out"
zpatch archive/data/0 432 <"$T/bomb.pt" >"$T/lie.pt"
expect_fail 1 "lie.pt: error: corrupt zip archive" "zip bomb whose headers claim the storage's size" -- npu-import-pt "$T/lie.pt" $PTI -o "$T/out"
zpatch archive/data.pkl 4294967280 <"$DATA/pt/ops.pt" >"$T/lie.pt"
expect_fail 1 "lie.pt: error: .*data.pkl" "zip entry claiming 4 GiB" -- npu-import-pt "$T/lie.pt" $PTI -o "$T/out"
zpatch archive/data.pkl 10 <"$DATA/pt/ops.pt" >"$T/lie.pt"
expect_fail 1 "lie.pt: error: data.pkl: corrupt zip entry \\(longer than its directory entry says\\)" "zip entry claiming fewer bytes than it holds" -- npu-import-pt "$T/lie.pt" $PTI -o "$T/out"
head -c 3000 "$DATA/pt/ops.pt" >"$T/cut.pt"
expect_fail 1 "npu-import-pt: .*cut.pt: error: " "truncated archive" -- npu-import-pt "$T/cut.pt" $PTI -o "$T/out"
printf 'PK\005\006\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' >"$T/empty.pt"
expect_fail 1 "empty.pt: error: " "empty zip archive" -- npu-import-pt "$T/empty.pt" $PTI -o "$T/out"
rm -rf "$T/w" && mkdir -p "$T/w/m" && printf 'x' >"$T/w/m/data.pkl" && mkzip "$T/plain.pt" "$T/w"
expect_fail 1 "plain.pt: error: " "zip without TorchScript code" -- npu-import-pt "$T/plain.pt" $PTI -o "$T/out"
expect_fail 1 "npu-import-pt: .*tinycnn.onnx: error: not a TorchScript archive" "ONNX model given to the TorchScript importer" -- \
	npu-import-pt "$DATA/tinycnn.onnx" $PTI -o "$T/out"

# TorchScript source: nesting and size
src() {	# src 'PERL-EXPRESSION': code/__torch__.py of $T/s.pt
	perl -e "print \"class Ops(Module):\\n  def forward(self, x):\\n\", $1" >"$T/s.py" && mkpt "$T/s.pt" code/__torch__.py "$T/s.py"
}
src '"    return ", "(" x 100000, "x", ")" x 100000, "\n"'
expect_fail 1 "s.pt: error: code/__torch__.py:3: expression nested too deeply" "10^5 nested parentheses" -- npu-import-pt "$T/s.pt" $PTI -o "$T/out"
src '"    return ", "-" x 100000, "x\n"'
expect_fail 1 "code/__torch__.py:3: expression nested too deeply" "10^5 unary minus" -- npu-import-pt "$T/s.pt" $PTI -o "$T/out"
src '"    return ", "x[" x 100000, "0", "]" x 100000, "\n"'
expect_fail 1 "code/__torch__.py:3: expression nested too deeply" "10^5 nested subscripts" -- npu-import-pt "$T/s.pt" $PTI -o "$T/out"
src 'map({ " " x ($_ + 3) . "if x:\n" } 1..3000), " " x 3004, "pass\n"'
expect_fail 1 "s.pt: error: code/__torch__.py:[0-9]+: " "3000 nested if blocks" -- npu-import-pt "$T/s.pt" $PTI -o "$T/out"
src '"    return \"", "a" x 1000, "\n"'
expect_fail 1 "s.pt: error: code/__torch__.py:3: " "unterminated string" -- npu-import-pt "$T/s.pt" $PTI -o "$T/out"
src '"    raise Exception(\"x\")\n    return x\n"'
expect_fail 1 "s.pt: error: cannot import: 'raise' statement \(code/__torch__.py:3\)" "raise statement reached in forward()" -- npu-import-pt "$T/s.pt" $PTI -o "$T/out"
src '"    return x\n\0\0\0\n"'
expect_fail 1 "s.pt: error: code/__torch__.py:[0-9]+: the source holds a NUL byte" "NUL bytes in TorchScript source" -- npu-import-pt "$T/s.pt" $PTI -o "$T/out"
src '"    return x[,]\n"'
expect_fail 1 "s.pt: error: code/__torch__.py:3: unexpected" "a subscript without an index" -- npu-import-pt "$T/s.pt" $PTI -o "$T/out"
src '"    return self.forward(x)\n"'
expect_fail 1 "s.pt: error: .*(recursi|deep|depth)" "forward() calling itself" -- npu-import-pt "$T/s.pt" $PTI -o "$T/out"
src '"    while True:\n      pass\n    return x\n"'
expect_fail 1 "s.pt: error: code/__torch__.py:[0-9]+: the TorchScript code runs too long" "an endless loop" -- npu-import-pt "$T/s.pt" $PTI -o "$T/out"

# tensors outside their storage
expect_fail 1 "npu-import-pt: .*short_storage.pt: error: " "a tensor reaching past its storage" -- npu-import-pt "$DATA/pt/bad/short_storage.pt" $PTI -o "$T/out"

# ---------------------------------------------------------------- ONNX
# protobuf by hand: v (varint), f (length-delimited field), i (varint field);
# model(GRAPH) prints a ModelProto (IR version 7, opset 13); vi(NAME, DIMS)
# is a float tensor ValueInfoProto
PB='sub v { my $n = shift; my $s = ""; while ($n >= 0x80) { $s .= chr(($n & 0x7f) | 0x80); $n >>= 7 } $s . chr($n) }
sub f { my ($k, $b) = @_; v($k << 3 | 2) . v(length $b) . $b } sub i { my ($k, $n) = @_; v($k << 3) . v($n) }
sub model { print i(1, 7), f(8, i(2, 13)), f(7, $_[0]) }
sub vi { my ($n, @d) = @_; f(1, $n) . f(2, f(1, i(1, 1) . f(2, join "", map { f(1, i(1, $_)) } @d))) }
$| = 1;'
onnx() {	# onnx 'PERL': $T/m.onnx
	perl -e "$PB $1" >"$T/m.onnx"
}
IO='f(11, vi("x", 1, 4)) . f(12, vi("y", 1, 4))'
# 10^4 If branches nested in each other (each level: graph, node, attribute)
onnx 'my $in = f(1, f(4, "Relu") . f(1, "x") . f(2, "y")); my $len = length $in; my @p;
	for (1 .. 10000) { my $a = f(1, "then_branch") . i(20, 5) . "\x32" . v($len); my $al = length($a) + $len;
		my $n = f(4, "If") . f(1, "c") . f(2, "y") . "\x2a" . v($al); my $g = "\x0a" . v(length($n) + $al);
		push @p, $g . $n . $a; $len += length($g . $n . $a) }
	print i(1, 7), f(8, i(2, 13)), "\x3a", v($len), reverse(@p), $in'
expect_fail 1 "m.onnx: error: not an ONNX model \(protobuf parse failed\)" "10^4 nested If subgraphs (protobuf nesting)" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
# 10^5 nested sequence types in a graph input's TypeProto
onnx 'my $in = i(1, 1); my $len = length $in; my @p;
	for (1 .. 100000) { my $e = "\x0a" . v($len); my $t = "\x22" . v($len + length $e); push @p, $t . $e; $len += length($t . $e) }
	my $vi = f(1, "x") . "\x12" . v($len); my $tot = length($vi) + $len; my $g = f(1, f(4, "Relu") . f(1, "x") . f(2, "y")) . "\x5a" . v($tot);
	print i(1, 7), f(8, i(2, 13)), "\x3a", v(length($g) + $tot), $g, $vi, reverse(@p), $in'
expect_fail 1 "m.onnx: error: not an ONNX model \(protobuf parse failed\)" "10^5 nested TypeProtos (protobuf nesting)" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
onnx 'print "\x0a\xff\xff\xff\xff\x0f"'
expect_fail 1 "m.onnx: error: not an ONNX model \(protobuf parse failed\)" "protobuf field longer than the file" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
onnx 'print "\x08", "\xff" x 20'
expect_fail 1 "m.onnx: error: not an ONNX model" "protobuf varint of 20 bytes" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
onnx 'model(f(1, f(1,"x") . f(1,"w") . f(2,"y") . f(4,"Add")) . f(5, i(1, 1 << 40) . i(1, 1 << 40) . i(2, 1) . f(8, "w")) . '"$IO"')'
expect_fail 1 "m.onnx: error: initializer 'w' has an invalid or too large shape" "initializer of 2^80 elements" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
onnx 'model(f(1, f(1,"x") . f(1,"w") . f(2,"y") . f(4,"Add")) . f(5, "\x08" . "\xff" x 9 . "\x01" . i(2, 1) . f(8, "w")) . '"$IO"')'
expect_fail 1 "m.onnx: error: initializer 'w' has an invalid or too large shape" "initializer with a negative dimension" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
onnx 'model(f(1, f(1,"x") . f(1,"w") . f(2,"y") . f(4,"Add")) . f(5, i(1, 4) . i(2, 1) . f(8, "w") . f(9, "abc")) . '"$IO"')'
expect_fail 1 "m.onnx: error: initializer 'w' has 3 bytes of data, its shape needs 16" "initializer data shorter than its shape" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
onnx 'model(f(1, f(1,"x") . f(1,"w") . f(2,"y") . f(4,"Add")) . f(5, i(1, 4) . i(2, 99) . f(8, "w") . f(9, "a" x 16)) . '"$IO"')'
expect_fail 1 "m.onnx: error: initializer 'w' has element type unknown" "initializer of an unknown element type" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
onnx 'model(f(1, f(1,"x") . f(2,"y") . f(4,"Relu")) . f(11, vi("x", 1 << 62, 1 << 62)) . f(12, vi("y", 1, 4)))'
expect_fail 1 "m.onnx: error: input 'x' has an invalid or too large shape" "graph input of 2^124 elements" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
onnx 'model(f(1, f(1,"x") . f(2,"y") . f(4,"Relu")) . '"$IO"' . f(1, f(1,"x") . f(2,"y") . f(4,"Relu")))'
expect_fail 1 "m.onnx: error: value 'y' is produced twice" "two nodes producing one value" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
onnx 'model(f(1, f(1,"x") . f(1, "w") . f(2,"y") . f(4,"Conv") . f(5, f(1, "pads") . i(20, 7) . join("", map { i(8, 1 << 62) } 1..4))) .
	f(5, i(1, 1) x 4 . i(2, 1) . f(8, "w") . f(9, "abcd")) . f(11, vi("x", 1, 1, 4, 4)) . f(12, vi("y", 1, 1, 4, 4)))'
expect_fail 1 "m.onnx: error: node 'Conv_0' \(Conv\): pads" "convolution pads of 2^62" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
onnx 'model(f(1, f(1,"x") . f(1, "s") . f(2,"y") . f(4,"Reshape")) . f(5, i(1, 3) . i(2, 7) . f(8, "s") . f(9, pack("q<3", 1 << 30, 1 << 30, 1 << 30))) . '"$IO"')'
expect_fail 1 "m.onnx: error: node 'Reshape_0' \(Reshape\): shape is too large" "reshape to 2^90 elements" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
onnx 'model(f(1, f(1,"x") . f(2,"y") . f(4,"Relu")) . f(11, vi("x", 1, 4)))'
expect_fail 1 "m.onnx: error: the model has no outputs" "graph without outputs" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
onnx 'print i(1, 7), f(8, i(2, 99)), f(7, f(1, f(1,"x") . f(2,"y") . f(4,"Relu")) . '"$IO"')'
expect_fail 1 "m.onnx: error: .*opset" "opset 99" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
onnx 'model(f(1, f(1,"x") . f(1,"w") . f(2,"y") . f(4,"Add")) . f(5, i(1, 4) . i(2, 1) . f(8, "w") . f(13, f(1, "location") . f(2, "/etc/passwd")) . i(14, 1)) . '"$IO"')'
expect_fail 1 "m.onnx: error: .*('w'|extern)" "initializer stored in an external file" -- npu-import-onnx "$T/m.onnx" -o "$T/out"
onnx 'model(f(1, f(2, "c") . f(4, "Constant") . f(5, f(1, "value") . i(20, 4))) . f(1, f(1, "x") . f(1, "c") . f(2, "y") . f(4, "Add")) . '"$IO"')'
expect_fail 1 "m.onnx: error: node 'Constant_0' \\(Constant\\): attribute 'value' holds no tensor" "Constant typed a tensor without one" -- \
	npu-import-onnx "$T/m.onnx" -o "$T/out"
expect_fail 1 "short_initializer.onnx: error: " "initializer shorter than its dims (fixture)" -- npu-import-onnx "$DATA/onnx/short_initializer.onnx" -o "$T/out"

# ---------------------------------------------------------------- TensorFlow GraphDef
# node(NAME, OP, INPUTS..., [ATTRS]) and attr(KEY, ATTRVALUE); a tensor value
# tensor(DTYPE, [DIMS], CONTENT)
TFPB="$PB"'
sub attr { f(5, f(1, $_[0]) . f(2, $_[1])) }
sub node { my ($n, $op, $in, $a) = @_; f(1, f(1, $n) . f(2, $op) . join("", map { f(3, $_) } @$in) . ($a // "")) }
sub tensor { my ($dt, $d, $c) = @_; f(8, i(1, $dt) . f(2, join "", map { f(2, i(1, $_)) } @$d) . f(4, $c)) }
sub ph { node($_[0], "Placeholder", [], attr("dtype", i(6, 1)) . attr("shape", f(7, join "", map { f(2, i(1, $_)) } 1, 4))) }'
tf() {	# tf 'PERL': $T/g.pb
	perl -e "$TFPB print $1" >"$T/g.pb"
}
tf 'ph("x"), node("w", "Const", [], attr("dtype", i(6, 1)) . attr("value", tensor(1, [4], "abc"))), node("y", "Add", ["x", "w"])'
expect_fail 1 "g.pb: error: .*'w'" "Const shorter than its shape" -- npu-import-tf "$T/g.pb" --output y -o "$T/out"
tf 'ph("x"), node("w", "Const", [], attr("dtype", i(6, 1)) . attr("value", tensor(1, [1 << 40, 1 << 40], ""))), node("y", "Add", ["x", "w"])'
expect_fail 1 "g.pb: error: .*'w'" "Const of 2^80 elements" -- npu-import-tf "$T/g.pb" --output y -o "$T/out"
tf 'ph("x"), node("a", "Relu", ["b"]), node("b", "Relu", ["a"]), node("y", "Add", ["x", "b"])'
expect_fail 1 "g.pb: error: .*(cycle|loop)" "a cycle in the graph" -- npu-import-tf "$T/g.pb" --output y -o "$T/out"
tf 'ph("x"), node("y", "Relu", ["y"])'
expect_fail 1 "g.pb: error: " "a node that is its own input" -- npu-import-tf "$T/g.pb" --output y -o "$T/out"
tf 'ph("x"), node("y", "Relu", ["nowhere"])'
expect_fail 1 "g.pb: error: .*nowhere" "an input naming no node" -- npu-import-tf "$T/g.pb" --output y -o "$T/out"
tf 'ph("x"), node("y", "Relu", ["x:7"])'
expect_fail 1 "g.pb: error: .*x:7" "an input naming an output the node lacks" -- npu-import-tf "$T/g.pb" --output y -o "$T/out"
tf 'ph("x"), node("y", "Relu", ["x"])'
expect_fail 1 "g.pb: error: .*missing" "--output naming no node" -- npu-import-tf "$T/g.pb" --output missing -o "$T/out"
tf 'ph("x"), node("y", "MaxPool", ["x"], attr("ksize", f(1, f(3, join "", map { v(1 << 62) } 1..4))) . attr("strides", f(1, f(3, join "", map { v(1) } 1..4))) . attr("padding", f(2, "VALID")))'
expect_fail 1 "g.pb: error: node 'y' \(MaxPool\)" "pooling window of 2^62" -- npu-import-tf "$T/g.pb" --output y -o "$T/out"
perl -e "$PB"' my $len = 0; my @p; for (1 .. 100000) { my $t = "\xfa\x06" . v($len); push @p, $t; $len += length $t } print reverse(@p)' >"$T/g.pb"
expect_fail 1 "g.pb: error: not a TensorFlow GraphDef" "10^5-deep nested unknown protobuf field" -- npu-import-tf "$T/g.pb" --output y -o "$T/out"
head -c 4096 /dev/urandom >"$T/g.pb"
expect_fail 1 "g.pb: error: " "random bytes as a GraphDef" -- npu-import-tf "$T/g.pb" --output y -o "$T/out"

# ---------------------------------------------------------------- TensorFlow.js model.json
TJ=$DATA/tf/tfjs_landmark
TJI="--input input_1:1,24,24,3"
tfjs() {	# tfjs 'PERL-SUBSTITUTION' [SHELL]: $T/j/model.json and the shards, edited
	rm -rf "$T/j" && cp -R "$TJ" "$T/j" && perl -0pi -e "$1" "$T/j/model.json" && { [ -z "${2:-}" ] || sh -c "$2"; }
}
perl -e 'print "{\"modelTopology\": ", "[" x 100000, "]" x 100000, "}"' >"$T/deep.json"
expect_fail 1 "deep.json: error: not valid JSON \(line 1: nested deeper than 64 levels\)" "10^5-deep JSON arrays" -- npu-import-tf "$T/deep.json" -o "$T/out"
printf '{"modelTopology": {"node": [{"name": "c", "op": "Const"}]}}' >"$T/nw.json"
expect_fail 1 "nw.json: error: modelTopology.node\\[0\\] \\('c'\\) \\(Const\\): weightsManifest has no weight of this name" \
	"a Const without weights and no weightsManifest" -- npu-import-tf "$T/nw.json" -o "$T/out"
tfjs 's|"group1-shard1of2.bin"|"../../../../etc/passwd"|'
expect_fail 1 "model.json: error: weightsManifest\[0\].paths\[0\]: shard path '../../../../etc/passwd' leaves the model's directory" \
	"weight shard path climbing out of the model's directory" -- npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
tfjs 's|"group1-shard2of2.bin"|"/proc/self/mem"|'
expect_fail 1 "model.json: error: weightsManifest\[0\].paths\[1\]: shard path '/proc/self/mem' leaves the model's directory" \
	"absolute weight shard path" -- npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
tfjs '' "head -c 100 $T/j/group1-shard2of2.bin >$T/j/x && mv $T/j/x $T/j/group1-shard2of2.bin"
expect_fail 1 "model.json: error: weightsManifest\[0\].weights\[[0-9]+\] \('[^']*'\): needs bytes [0-9]+\.\.[0-9]+ of the weight shards, which hold [0-9]+" \
	"weight shard shorter than the manifest" -- npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
tfjs '' "rm $T/j/group1-shard2of2.bin"
expect_fail 1 "model.json: error: weightsManifest\[0\].paths\[1\]: cannot open weight shard 'group1-shard2of2.bin'" \
	"missing weight shard" -- npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
tfjs 's|"group1-shard2of2.bin"|"sub"|' "mkdir $T/j/sub"
expect_fail 1 "model.json: error: weightsManifest\[0\].paths\[1\]: cannot open weight shard 'sub': is a directory, not a file$" \
	"a directory as a weight shard" -- npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
# a FIFO without a writer: a blocking open would wait forever (timeout: the
# test fails instead of hanging)
tfjs '' "rm $T/j/group1-shard2of2.bin && mkfifo $T/j/group1-shard2of2.bin"
expect_fail 1 "model.json: error: weightsManifest\[0\].paths\[1\]: cannot open weight shard 'group1-shard2of2.bin': is a FIFO, not a regular file$" \
	"a FIFO as a weight shard" -- timeout 20 npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
tfjs 's|"group1-shard2of2.bin"|"zero"|' "ln -s /dev/zero $T/j/zero"
expect_fail 1 "model.json: error: weightsManifest\[0\].paths\[1\]: cannot open weight shard 'zero': is a device or socket, not a regular file$" \
	"a link to /dev/zero as a weight shard" -- timeout 20 npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
expect_fail 1 "npu-dump: /dev/zero: error: is a device or socket, not a regular file or pipe$" \
	"/dev/zero as an IR stream (would be read until memory runs out)" -- timeout 20 npu-dump /dev/zero -o "$T/out"
tfjs 's|("name": "conv0/weights",\s*"shape": \[)\s*3,|${1}3000000000, 3000000000,|'
expect_fail 1 "model.json: error: weightsManifest\[0\].weights\[0\] \('conv0/weights'\).shape\[[0-9]\]: " \
	"manifest weight of 2^60 elements" -- npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
tfjs 's|("name": "conv0/weights",\s*"shape": \[)\s*3,|${1}-3,|'
expect_fail 1 "model.json: error: weightsManifest\[0\].weights\[0\] \('conv0/weights'\).shape\[0\]: -3 is not a dimension" \
	"manifest weight with a negative dimension" -- npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
tfjs 's|("name": "conv0/weights",\s*"shape": \[)\s*3,|${1}3.5,|'
expect_fail 1 "model.json: error: weightsManifest\[0\].weights\[0\] \('conv0/weights'\).shape\[0\]" \
	"manifest weight with a fractional dimension" -- npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
tfjs 's|"format"|"format": 1, "format"|'
expect_fail 1 "model.json: error: not valid JSON \(line [0-9]+: key \"format\" appears twice in one object\)" "duplicate JSON key" -- \
	npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
tfjs 's|"conv0/bias"|"conv0/b\xff\xfeias"|'
expect_fail 1 "model.json: error: not valid JSON \(line [0-9]+: invalid UTF-8 in a string\)" "invalid UTF-8 in a JSON string" -- \
	npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
tfjs 's|"conv0/bias"|"conv0/b\\ud800ias"|'
expect_fail 1 "model.json: error: not valid JSON \(line [0-9]+: .*surrogate" "unpaired surrogate escape in a JSON string" -- \
	npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
tfjs 's|\}\s*$||'
expect_fail 1 "model.json: error: not valid JSON \(line [0-9]+: unexpected end of the text" "truncated JSON" -- \
	npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
tfjs 's|"float32"|1e999|'
expect_fail 1 "model.json: error: " "a number beyond double range where a dtype belongs" -- npu-import-tf "$T/j/model.json" $TJI -o "$T/out"
tfjs 's|("dtype": "float16")|"dtype": "uint8", "scale": 1e308, "min": -1e308|'
expect_fail 1 "model.json: error: " "uint8 quantization with a scale of 1e308" -- npu-import-tf "$T/j/model.json" $TJI -o "$T/out"

# ---------------------------------------------------------------- NumPy .npy and .npz
npu-import-onnx "$DATA/tinycnn.onnx" -o "$T/tiny.ir" || diag "cannot import tinycnn.onnx"
npy() {	# npy HEADER DATA-BYTES [VERSION]: $T/a.npy (header padded to 64 bytes)
	perl -e 'my ($h, $n, $v) = @ARGV; $v ||= 1; $h .= " " x ((64 - (10 + length($h) + 1) % 64) % 64) . "\n";
		print "\x93NUMPY", chr($v), "\x00", pack("v", length $h), $h, "\0" x $n' "$@" >"$T/a.npy"
}
H="'descr': '<f4', 'fortran_order': False"
npy "{$H, 'shape': (1, 1, 16, 16), }" 1000
expect_fail 1 "npu-run: .*a.npy: error: truncated data: shape 1x1x16x16 of float32 needs 1024 bytes, the file has 1000" \
	"npy data shorter than its header says" -- npu-run "$T/tiny.ir" -i "$T/a.npy" -o "$T/out"
npy "{$H, 'shape': (1, 1, -16, 16), }" 1024
expect_fail 1 "a.npy: error: shape has a negative dimension" "npy negative dimension" -- npu-run "$T/tiny.ir" -i "$T/a.npy" -o "$T/out"
npy "{$H, 'shape': (1099511627776, 1099511627776), }" 1024
expect_fail 1 "a.npy: error: shape has too many elements" "npy of 2^80 elements" -- npu-run "$T/tiny.ir" -i "$T/a.npy" -o "$T/out"
npy "{$H, 'shape': (18446744073709551617, 1), }" 1024
expect_fail 1 "a.npy: error: " "npy dimension beyond 2^64" -- npu-run "$T/tiny.ir" -i "$T/a.npy" -o "$T/out"
npy "{'descr': '|O', 'fortran_order': False, 'shape': (1, 1, 16, 16), }" 2048
expect_fail 1 "a.npy: error: unsupported dtype '\|O'" "npy of Python objects (pickles)" -- npu-run "$T/tiny.ir" -i "$T/a.npy" -o "$T/out"
npy "{'descr': '<c8', 'fortran_order': False, 'shape': (1, 1, 16, 16), }" 2048
expect_fail 1 "a.npy: error: unsupported dtype '<c8'" "npy of complex numbers" -- npu-run "$T/tiny.ir" -i "$T/a.npy" -o "$T/out"
npy "{'descr': '<f4', 'fortran_order': maybe, 'shape': (1, 1, 16, 16), }" 1024
expect_fail 1 "a.npy: error: bad .npy header: 'fortran_order' is not True or False" "npy fortran_order neither True nor False" -- \
	npu-run "$T/tiny.ir" -i "$T/a.npy" -o "$T/out"
npy "{$H, }" 1024
expect_fail 1 "a.npy: error: bad .npy header: no 'shape' key" "npy header without a shape" -- npu-run "$T/tiny.ir" -i "$T/a.npy" -o "$T/out"
npy "{$H, 'shape': (1, 1, 16, 16), 'descr': '<f8', }" 1024
expect_fail 1 "a.npy: error: bad .npy header: key 'descr' appears twice" "npy header repeating a key" -- npu-run "$T/tiny.ir" -i "$T/a.npy" -o "$T/out"
npy "{$H, 'shape': (1, 1, 16, 16), 'x': __import__('os').system('ls'), }" 1024
expect_fail 1 "a.npy: error: bad .npy header: unknown key 'x'" "npy header with Python code" -- npu-run "$T/tiny.ir" -i "$T/a.npy" -o "$T/out"
npy "{$H, 'shape': ($(perl -e 'print "1, " x 100')), }" 1024
expect_fail 1 "a.npy: error: shape has more than 8 dimensions" "npy of 100 dimensions" -- npu-run "$T/tiny.ir" -i "$T/a.npy" -o "$T/out"
npy "{$H, 'shape': (1, 1, 16, 16), }" 1024 9
expect_fail 1 "a.npy: error: unsupported .npy format version 9.0" "npy format version 9" -- npu-run "$T/tiny.ir" -i "$T/a.npy" -o "$T/out"
printf '\223NUMPY\002\000\377\377\377\377{' >"$T/a.npy"
expect_fail 1 "a.npy: error: truncated .npy header \(4294967295 bytes announced, 1 present\)" "npy v2 header length of 4 GiB" -- \
	npu-run "$T/tiny.ir" -i "$T/a.npy" -o "$T/out"
npy "{$H, 'shape': (1, 1, 16, 16), }" 4096
expect_fail 1 "a.npy: error: 3072 bytes after the array data" "npy with trailing bytes" -- npu-run "$T/tiny.ir" -i "$T/a.npy" -o "$T/out"
npy "{$H, 'shape': (1000000, 1, 16, 16), }" 1024
expect_fail 1 "npu-quant: .*a.npy.*truncated data" "calibration npy shorter than its header says" -- \
	npu-quant "$T/tiny.ir" --target int8 --calib "$T/a.npy" -o "$T/out"
# npz: zips of .npy files
rm -rf "$T/z" && mkdir "$T/z" && cp "$DATA/tinycnn.input.npy" "$T/z/input.npy" && cp "$DATA/tinycnn.input.npy" "$T/z/evil.py"
mkzip "$T/a.npz" "$T/z"
expect_fail 1 "a.npz: error: .*evil.py" "npz entry that is not an .npy" -- npu-run "$T/tiny.ir" -i "$T/a.npz" -o "$T/out"
rm -rf "$T/z" && mkdir "$T/z" && cp "$DATA/tinycnn.input.npy" "$T/z/input.npy" && mkzip "$T/a.npz" "$T/z" deflate
zpatch input.npy 4294967280 <"$T/a.npz" >"$T/b.npz"
expect_fail 1 "b.npz: error: " "npz entry claiming 4 GiB" -- npu-run "$T/tiny.ir" -i "$T/b.npz" -o "$T/out"
head -c 600 "$T/a.npz" >"$T/b.npz"
expect_fail 1 "b.npz: error: " "truncated npz" -- npu-run "$T/tiny.ir" -i "$T/b.npz" -o "$T/out"
rm -rf "$T/z" && mkdir "$T/z" && npy "{$H, 'shape': (1, 1, 16, 16), }" 1000 && mv "$T/a.npy" "$T/z/input.npy" && mkzip "$T/a.npz" "$T/z"
expect_fail 1 "a.npz: error: entry .input.npy.: its .npy header declares 1024 data bytes, the zip directory 1000" "npz holding a lying npy" -- npu-run "$T/tiny.ir" -i "$T/a.npz" -o "$T/out"

# ---------------------------------------------------------------- configuration files and target profiles
Q="npu-quant $T/tiny.ir --target int8 --calib $DATA/tinycnn.input.npy"
printf 'layers: %s\n' "$(perl -e 'print "[" x 1000, "]" x 1000')" >"$T/c.yaml"
expect_fail 1 "npu-quant: .*c.yaml:1: error: nested deeper than 64 levels" "config: 1000-deep YAML flow sequences" -- $Q --config "$T/c.yaml" -o "$T/out"
printf 'layers:\n  conv1: {bits: 99}\n' >"$T/c.yaml"
expect_fail 1 "c.yaml:2: error: .*layer 'conv1': bits '99' is not 8, 16, float or fp16" "config: 99 bits" -- $Q --config "$T/c.yaml" -o "$T/out"
printf 'layers:\n\tconv1: int8\n' >"$T/c.yaml"
expect_fail 1 "c.yaml:2: error: .*found character that cannot start any token" "config: a tab in YAML indentation" -- $Q --config "$T/c.yaml" -o "$T/out"
printf '\377\376l\000a\000' >"$T/c.yaml"
expect_fail 1 "npu-quant: .*c.yaml: error: .*a quantization config is a mapping" "config: UTF-16 garbage" -- $Q --config "$T/c.yaml" -o "$T/out"
printf 'a: &a [*a, *a]\nb: &b [*a, *a]\nc: &c [*b, *b]\n' >"$T/c.yaml"
expect_fail 1 "c.yaml:1: error: .*unknown key 'a'" "config: aliases of aliases" -- $Q --config "$T/c.yaml" -o "$T/out"
printf 'default: {method: "percentile:1e999"}\n' >"$T/c.yaml"
expect_fail 1 "c.yaml:1: error: [a-z0-9]*: calibration method 'percentile:1e999': bad number '1e999'$" "config: percentile 1e999" -- $Q --config "$T/c.yaml" -o "$T/out"
printf 'name: x\nfamily: int\nsram_bytes: 99999999999999999999999\n' >"$T/t.yaml"
expect_fail 1 "npu-quant: .*t.yaml: error: .*'sram_bytes' must be a byte count" "target: sram_bytes beyond int64" -- \
	npu-quant "$T/tiny.ir" --target "$T/t.yaml" --calib "$DATA/tinycnn.input.npy" -o "$T/out"
printf 'name: x\nfamily: int\nsram_bytes: -5\n' >"$T/t.yaml"
expect_fail 1 "npu-quant: .*t.yaml: error: .*'sram_bytes' must be a byte count" "target: negative sram_bytes" -- \
	npu-quant "$T/tiny.ir" --target "$T/t.yaml" --calib "$DATA/tinycnn.input.npy" -o "$T/out"
printf -- '- %s\n' x x x >"$T/t.yaml"
expect_fail 1 "npu-quant: .*t.yaml: error: .*a target profile is a YAML mapping" "target: a YAML list" -- \
	npu-quant "$T/tiny.ir" --target "$T/t.yaml" --calib "$DATA/tinycnn.input.npy" -o "$T/out"
printf 'CORENAME: GRUS\nFRAMEWORK: ONNX\nMODEL_FILE: %s\nOUTPUT_FILE: %s\nINPUT_OPS: {input: [1, 1, 16, 16]}\nOUTPUT_OPS: [output]\n' \
	"$(perl -e 'print "../" x 50')etc/passwd" "$T/out" >"$T/n.yaml"
expect_fail 1 "npuc: .*etc/passwd: error: not an ONNX model" "npuc: a model path pointing at a non-model" -- npuc "$T/n.yaml"
mkfifo "$T/fifo.yaml"
expect_fail 1 "npu-quant: error: target '.*fifo.yaml': .*fifo.yaml: is a FIFO, not a regular file$" \
	"a FIFO as a target profile" -- timeout 20 npu-quant "$T/tiny.ir" --target "$T/fifo.yaml" -o "$T/out"
mkdir "$T/cal" && mkfifo "$T/cal/a.npz"
expect_fail 1 "npu-quant: .*cal/a.npz: error: is a FIFO, not a regular file$" \
	"a FIFO in a --calib directory" -- timeout 20 npu-quant "$T/tiny.ir" --target int8 --calib "$T/cal" -o "$T/out"
printf 'CORENAME: GRUS\nFRAMEWORK: ONNX\nMODEL_FILE: %s\nOUTPUT_FILE: %s\n' "$T/fifo.yaml" "$T/out" >"$T/n.yaml"
expect_fail 1 "npuc: .*fifo.yaml: error: is a FIFO, not a regular file$" "npuc: a FIFO as MODEL_FILE" -- timeout 20 npuc "$T/n.yaml"
perl -e 'print "layers: ", "[" x 100000, "\n"' >"$T/c.yaml"
expect_fail 1 "npu-quant: .*c.yaml:1: error: nested deeper than 64 levels" "config: 10^5-deep YAML flow sequences" -- $Q --config "$T/c.yaml" -o "$T/out"
printf 'layers:\n  conv1: int8\n  conv2: int16\n  conv1: float\n' >"$T/c.yaml"
expect_fail 1 "npu-quant: .*c.yaml:4: error: key 'conv1' is given twice \(first on line 2\)$" "config: a layer given twice" -- $Q --config "$T/c.yaml" -o "$T/out"
printf '{"default": "int8", "ops": {"conv": "int16"}, "default": "float"}\n' >"$T/c.json"
expect_fail 1 "npu-quant: .*c.json:1: error: key 'default' is given twice \(first on line 1\)$" "config: a JSON key given twice" -- $Q --config "$T/c.json" -o "$T/out"
printf 'name: x\nfamily: int\nsram_bytes: 1000\nsram_bytes: 2000\n' >"$T/t.yaml"
expect_fail 1 "npu-quant: .*t.yaml:4: error: key 'sram_bytes' is given twice \(first on line 3\)$" "target: a key given twice" -- \
	npu-quant "$T/tiny.ir" --target "$T/t.yaml" --calib "$DATA/tinycnn.input.npy" -o "$T/out"
printf 'CORENAME: GRUS\nFRAMEWORK: ONNX\nMODEL_FILE: %s\nOUTPUT_FILE: %s\nOUTPUT_FILE: %s\n' "$DATA/tinycnn.onnx" "$T/out" "$T/out2" >"$T/n.yaml"
expect_fail 1 "npuc: .*n.yaml:5: error: key 'OUTPUT_FILE' is given twice \(first on line 4\)$" "npuc: a key given twice" -- npuc "$T/n.yaml"

# ---------------------------------------------------------------- float attributes
expect_fail 1 "npu-import-onnx: .*nan_alpha.onnx: error: node 'lrelu' \(LeakyRelu\): attribute 'alpha' is NaN$" "ONNX LeakyRelu alpha NaN" -- \
	npu-import-onnx "$DATA/hostile/nan_alpha.onnx" -o "$T/out"
expect_fail 1 "npu-import-onnx: .*inf_alpha.onnx: error: node 'elu' \(Elu\): attribute 'alpha' is infinite" "ONNX Elu alpha +inf" -- \
	npu-import-onnx "$DATA/hostile/inf_alpha.onnx" -o "$T/out"

# ---------------------------------------------------------------- calibration statistics (--stats-in)
npu-quant "$T/tiny.ir" --target int8 --calib "$DATA/tinycnn.input.npy" --stats-out "$T/good.stats" -o "$T/q.ir" -q || diag "no stats"
S="npu-quant $T/tiny.ir --target int8"
stats() {	# stats SED-SCRIPT: $T/s.stats from good.stats
	sed "$1" "$T/good.stats" >"$T/s.stats"
}
stats '1s/.*/npu-calib-stats 2/'
expect_fail 1 "s.stats:1: error: .*unsupported format version" "stats: format version 2" -- $S --stats-in "$T/s.stats" -o "$T/out"
: >"$T/s.stats"
expect_fail 1 "s.stats:1: error: .*empty file" "stats: empty file" -- $S --stats-in "$T/s.stats" -o "$T/out"
head -c 500 "$T/good.stats" >"$T/s.stats"
expect_fail 1 "s.stats:2: error: .*truncated line" "stats: truncated" -- $S --stats-in "$T/s.stats" -o "$T/out"
stats '2s/ count [0-9]*/ count -5/'
expect_fail 1 "s.stats:2: error: .*negative count" "stats: negative count" -- $S --stats-in "$T/s.stats" -o "$T/out"
stats '2s/ count [0-9]*/ count 99999999999999999999999/'
expect_fail 1 "s.stats:2: error: .*bad count" "stats: count beyond int64" -- $S --stats-in "$T/s.stats" -o "$T/out"
stats '2s/ rexp [-0-9]*/ rexp 100000/'
expect_fail 1 "s.stats:2: error: .*bad rexp" "stats: histogram range 2^100000" -- $S --stats-in "$T/s.stats" -o "$T/out"
stats '2s/ bins [0-9]*/ bins 999999999/'
expect_fail 1 "s.stats:2: error: .*999999999 histogram bins" "stats: 10^9 histogram bins" -- $S --stats-in "$T/s.stats" -o "$T/out"
stats '2s/ max [^ ]*/ max nan/'
expect_fail 1 "s.stats:2: error: .*bad max 'nan'" "stats: NaN maximum" -- $S --stats-in "$T/s.stats" -o "$T/out"
stats '2s/ min [^ ]*/ min 0x1p+200/'
expect_fail 1 "s.stats:2: error: .*bad min '0x1p\+200'" "stats: minimum beyond float range" -- $S --stats-in "$T/s.stats" -o "$T/out"
stats '2p'
expect_fail 1 "s.stats:3: error: .*appears twice" "stats: a tensor twice" -- $S --stats-in "$T/s.stats" -o "$T/out"
stats '2s/ hist .*/ hist 5000:1/'
expect_fail 1 "s.stats:2: " "stats: histogram bin past the end" -- $S --stats-in "$T/s.stats" -o "$T/out"

# ---------------------------------------------------------------- IR streams into every stage
head -c 1000 "$T/tiny.ir" >"$T/cut.ir"
head -c 2000 /dev/urandom >"$T/rand.ir"
# a map32 whose count is beyond the file (random bytes starting 0xdf)
{ printf '\337\026\252\062'; head -c 1996 "$T/rand.ir"; } >"$T/map32.ir"
for p in "npu-fuse" "npu-quant --target int8 --calib $DATA/tinycnn.input.npy" "npu-emit" "npu-run -i $DATA/tinycnn.input.npy"; do
	expect_fail 1 "${p%% *}: .*cut.ir: error: .*truncated IR stream" "${p%% *}: truncated IR" -- $p "$T/cut.ir" -o "$T/out"
	expect_fail 1 "${p%% *}: .*rand.ir: error: not an IR stream" "${p%% *}: random bytes as IR" -- $p "$T/rand.ir" -o "$T/out"
	expect_fail 1 "${p%% *}: .*map32.ir: error: not an IR stream" "${p%% *}: a map count beyond the file" -- $p "$T/map32.ir" -o "$T/out"
	expect_fail 1 "${p%% *}: .*tinycnn.onnx: error: .*looks like an ONNX model" "${p%% *}: an ONNX model as IR" -- $p "$DATA/tinycnn.onnx" -o "$T/out"
done

# ---------------------------------------------------------------- options given hostile values
expect_fail 2 "npu-import-pt: .*--input" "--input with a negative dimension" -- npu-import-pt "$DATA/pt/ops.pt" --input 0:1,-3,16,16 -o "$T/out"
expect_fail 2 "npu-import-pt: .*--input" "--input with a dimension beyond 2^63" -- npu-import-pt "$DATA/pt/ops.pt" --input 0:1,99999999999999999999,16,16 -o "$T/out"
expect_fail 2 "npu-import-pt: .*--input" "--input with 9 dimensions" -- npu-import-pt "$DATA/pt/ops.pt" --input 0:1,1,1,1,1,1,1,1,1 -o "$T/out"
expect_fail 2 "npu-import-pt: .*--input" "--input of an unknown dtype" -- npu-import-pt "$DATA/pt/ops.pt" --input 0:1,3,16,16:c64 -o "$T/out"
expect_fail 2 "npu-import-onnx: .*--input" "--input with an empty name" -- npu-import-onnx "$DATA/tinycnn.onnx" --input :1,1,16,16 -o "$T/out"
expect_fail 2 "npu-quant: .*--bits" "--bits 7" -- npu-quant "$T/tiny.ir" --target int8 --calib "$DATA/tinycnn.input.npy" --bits 7 -o "$T/out"
expect_fail 2 "npu-quant: .*--calib-max" "--calib-max beyond int64" -- \
	npu-quant "$T/tiny.ir" --target int8 --calib "$DATA/tinycnn.input.npy" --calib-max 99999999999999999999999 -o "$T/out"
expect_fail 2 "npu-run: .*--threads" "--threads -1" -- npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" --threads -1 -o "$T/out"
expect_fail 2 "npu-emit: .*--format" "--format of no kind" -- npu-emit "$T/tiny.ir" --format exe -o "$T/out"
expect_fail 2 "npu-emit: .*--name" "--name that is no C identifier" -- npu-emit "$T/tiny.ir" --name '1;system("x")' -o "$T/out"

# ---------------------------------------------------------------- outputs that cannot be written
if [ "$(id -u)" -eq 0 ]; then RO=/sys/npukit-test; else RO=$T/ro; mkdir "$RO"; chmod 555 "$RO"; fi
for p in "npu-import-onnx $DATA/tinycnn.onnx" "npu-import-pt $DATA/pt/ops.pt $PTI" "npu-fuse $T/tiny.ir" \
	"npu-quant $T/tiny.ir -q --target int8 --calib $DATA/tinycnn.input.npy" "npu-emit $T/tiny.ir" "npu-dump $T/tiny.ir" \
	"npu-run $T/tiny.ir -i $DATA/tinycnn.input.npy"; do
	expect_fail 1 "${p%% *}: /dev/full: error: write error" "${p%% *}: -o /dev/full" -- $p -o /dev/full
	expect_fail 1 "${p%% *}: $RO/out: error: cannot create a temporary file" "${p%% *}: -o into a read-only directory" -- $p -o "$RO/out"
done
expect_fail 1 "npu-fuse: $T/none/out: error: cannot create a temporary file: No such file or directory" "npu-fuse: -o into a missing directory" -- \
	npu-fuse "$T/tiny.ir" -o "$T/none/out"
expect_fail 1 "npu-quant: /dev/full: error: calibration statistics: write error" "npu-quant: --stats-out /dev/full writes no IR" -- \
	npu-quant "$T/tiny.ir" -q --target int8 --calib "$DATA/tinycnn.input.npy" --stats-out /dev/full -o "$T/out"
expect_fail 1 "npu-run: $RO/d: error: cannot create the dump directory" "npu-run: --dump-dir in a read-only directory" -- \
	npu-run "$T/tiny.ir" -i "$DATA/tinycnn.input.npy" --dump-dir "$RO/d" -o "$T/out"

# ---------------------------------------------------------------- control characters in quoted names
# A name from the file is quoted in the message with its control
# characters escaped: the diagnostic stays one line.
printf 'npu-calib-stats 1\ntensor a%%0ab%%07c\n' >"$T/s.stats"
expect_fail 1 "s.stats:2: error: .*tensor 'a\\\\nb\\\\x07c': truncated record" "a newline in a tensor name (stats)" -- \
	npu-quant "$T/tiny.ir" --target int8 --stats-in "$T/s.stats" -o "$T/out"
printf '{"a\\nb": 1, "a\\nb": 2}' >"$T/k.json"
expect_fail 1 "k.json: error: not valid JSON \\(line 1: key \"a\\\\nb\" appears twice" "a newline in a JSON key" -- npu-import-tf "$T/k.json" -o "$T/out"
printf 'name: x\nfamily: int\nops: ["a\\nb"]\n' >"$T/t.yaml"
expect_fail 1 "t.yaml: error: .*'ops': unknown entry 'a\\\\nb'" "a newline in a target profile's op name" -- \
	npu-quant "$T/tiny.ir" --target "$T/t.yaml" --calib "$DATA/tinycnn.input.npy" -o "$T/out"
mkdir "$T/a
b" && head -c 100 "$T/tiny.ir" >"$T/a
b/x.ir"
expect_fail 1 "npu-dump: .*a\\\\nb/x.ir: error: .*truncated IR stream" "a newline in the file name" -- npu-dump "$T/a
b/x.ir" -o "$T/out"

# ---------------------------------------------------------------- signals during a long run
# 20000 calibration samples keep npu-quant busy for seconds; SIGINT and
# SIGTERM end it by the signal, leaving no output, no temporary, and an
# existing output file untouched. (perl restores SIGINT, which a
# non-interactive shell ignores in background jobs.)
perl -e 'my $n = 20000; my $h = "{\x27descr\x27: \x27<f4\x27, \x27fortran_order\x27: False, \x27shape\x27: ($n, 1, 16, 16), }";
	$h .= " " x ((64 - (10 + length($h) + 1) % 64) % 64) . "\n"; print "\x93NUMPY\x01\x00", pack("v", length $h), $h;
	print pack("f<*", map { sin($_) } 1 .. 256) x $n' >"$T/big.npy"
for sig in INT:2 TERM:15; do
	num=${sig#*:} sig=${sig%:*}
	rm -f "$T"/out "$T"/.out.*
	[ $sig = TERM ] && echo old >"$T/out"
	perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' npu-quant "$T/tiny.ir" -q --target int8 --calib "$T/big.npy" -o "$T/out" 2>"$T/err" &
	pid=$!
	sleep 1
	kill -$sig $pid
	{ wait $pid; } 2>/dev/null
	st=$?
	res=0
	want=$((128 + num))
	[ $st -eq $want ] || { diag "SIG$sig: exit $st, want $want"; res=1; }
	ls -A "$T" | grep -q '^\.out\.' && { diag "SIG$sig: temporary file left"; res=1; }
	if [ $sig = TERM ]; then
		[ "$(cat "$T/out" 2>/dev/null)" = old ] || { diag "SIG$sig: the existing output changed"; res=1; }
	else
		[ -e "$T/out" ] && { diag "SIG$sig: output file left"; res=1; }
	fi
	ok $res "SIG$sig during calibration: no output, no temporary"
done
rm -f "$T/big.npy"

done_testing
