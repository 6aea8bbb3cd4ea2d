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
src '"    return self.forward(x)\n"'
expect_fail 1 "s.pt: error: .*(recursi|deep|depth)" "forward() calling itself" -- npu-import-pt "$T/s.pt" $PTI -o "$T/out"
src '"    while True:\n      x = torch.relu(x)\n    return x\n"'
expect_fail 1 "s.pt: error: " "an endless loop" -- npu-import-pt "$T/s.pt" $PTI -o "$T/out"

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
perl -e "$PB"' my $len = 0; my @p; for (1 .. 1000000) { my $t = "\xfa\x06" . v($len); push @p, $t; $len += length $t } print reverse(@p)' >"$T/g.pb"
expect_fail 1 "g.pb: error: not a TensorFlow GraphDef" "10^6-deep nested unknown protobuf field" -- npu-import-tf "$T/g.pb" --output y -o "$T/out"
head -c 4096 /dev/urandom >"$T/g.pb"
expect_fail 1 "g.pb: error: " "random bytes as a GraphDef" -- npu-import-tf "$T/g.pb" --output y -o "$T/out"
