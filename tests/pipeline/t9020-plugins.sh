#!/bin/sh
# Dataset and metric plugins (npu-plugin(7)) through npu-eval on the bundled
# digits CNN: the example plugins npy-pair and imgdir feed topk and f1, whose
# figures equal PyTorch's (tests/gen/plugin_fixtures.py: top-1/top-3 right
# counts from torch.topk, F1 from torch's confusion counts); the probe test
# plugin (tests/plugin/probe.c) built as versions 1 and 2 and for another
# ABI shows which version wins and that a foreign ABI is refused; bad names,
# bad arguments and failing plugins give one line naming them.
. "$(dirname "$0")/lib.sh"
NPU_TESTS=${NPU_TESTS:-$TOP/build/rel/tests}
PLUG=$NPU_TESTS/../plugins
E=$TOP/share/npu/examples
P=$DATA/plugin
X=$E/digits.test.npy Y=$E/digits.labels.npy
exp() { awk -v s="$1" -v k="$2" '$1 == s && $2 == k { print $3 }' "$P/expect.txt"; }
fig() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(a != "" && b != "" && d <= 1e-9 && d >= -1e-9) }'; }
cd "$T" || exit 1
NPU_PLUGIN_PATH=$PLUG
export NPU_PLUGIN_PATH

npu-import-pt "$E/digits.pt" --input 0:1,1,8,8 | npu-fuse --all -o "$T/d.ir"
ok $? "the digits CNN imports"

npu-eval --plugin >"$T/list" &&
	for n in "dataset npy-pair" "dataset imgdir" "metric topk" "metric f1"; do
		grep -q "^${n% *} *${n#* } *1  $PLUG/${n#* }.so: ." "$T/list" || exit 1
	done
ok $? "--plugin lists the four example plugins with version, object and summary"

# npy-pair feeding topk and f1, against PyTorch
npu-eval "$T/d.ir" --dataset "npy-pair:$X,$Y" --metric topk --metric topk:3 --metric f1 --metric f1:3 -j 2 >"$T/n.txt" &&
	[ "$(fig samples "$T/n.txt")" = "$(exp npy samples)" ] &&
	n=$(exp npy samples) && near "$(fig topk "$T/n.txt")" "$(awk -v r="$(exp npy top1_right)" -v n="$n" 'BEGIN { printf "%.17g", r / n }')" &&
	grep -q "^topk [0-9.]*  # top-1 accuracy [0-9.]* ($(exp npy top1_right)/$n)\$" "$T/n.txt" &&
	grep -q "^topk:3 [0-9.]*  # top-3 accuracy [0-9.]* ($(exp npy top3_right)/$n)\$" "$T/n.txt" &&
	near "$(fig f1 "$T/n.txt")" "$(exp npy f1)" && near "$(fig f1:3 "$T/n.txt")" "$(exp npy f1_3)"
ok $? "npy-pair -> topk, topk:3, f1, f1:3: $(exp npy top1_right)/$(exp npy samples) top-1, $(exp npy top3_right) top-3, macro F1 $(fig f1 "$T/n.txt") as PyTorch's"

# the same through the builtin top-1 (the dataset's label is the class id), -j 1 = -j 2
npu-eval "$T/d.ir" --dataset "npy-pair:$X,$Y" --metric topk --metric f1 --metric top1 -j 1 >"$T/n1.txt" &&
	[ "$(fig top1 "$T/n1.txt")" = "$(fig topk "$T/n1.txt")" ] &&
	grep -v '^top1 ' "$T/n1.txt" >"$T/n1b" && grep -E '^(samples|frames|topk|f1) ' "$T/n.txt" >"$T/n2b" && cmp -s "$T/n1b" "$T/n2b"
ok $? "the plugin datasets' labels feed the builtin top1 too; figures equal with -j 1 and -j 2"

# imgdir (PGM, P5 and P2) feeding topk and f1
npu-eval "$T/d.ir" --dataset "imgdir:$P/img" --metric topk --metric topk:3 --metric f1 --metric f1:3 >"$T/i.txt" &&
	n=$(exp img samples) && [ "$(fig samples "$T/i.txt")" = "$n" ] &&
	grep -q "^topk [0-9.]*  # top-1 accuracy [0-9.]* ($(exp img top1_right)/$n)\$" "$T/i.txt" &&
	grep -q "^topk:3 [0-9.]*  # top-3 accuracy [0-9.]* ($(exp img top3_right)/$n)\$" "$T/i.txt" &&
	near "$(fig f1 "$T/i.txt")" "$(exp img f1)" && near "$(fig f1:3 "$T/i.txt")" "$(exp img f1_3)"
ok $? "imgdir -> topk, f1: $(exp img top1_right)/$(exp img samples) top-1, macro F1 $(fig f1 "$T/i.txt") as PyTorch's"

# stream mode: npy-pair's samples are sequences [T, ...] (the streaming keyword spotter of t5150, its
# cache fed back); topk over the last frames gets as many right as PyTorch's logits in the .npz
K=$DATA/quant/kws_stream
npu-import-onnx "$K.onnx" | npu-fuse --all -o "$T/k.ir" &&
	unzip -p "$K.test.npz" x.npy >"$T/kx.npy" && unzip -p "$K.test.npz" labels.npy >"$T/ky.npy" &&
	npu-eval "$T/k.ir" --dataset "npy-pair:$T/kx.npy,$T/ky.npy" --stream cache_in=cache_out --metric topk -j 2 >"$T/ks.txt" &&
	npu-eval "$T/k.ir" "$K.test.npz" --stream cache_in=cache_out >"$T/kb.txt" &&
	[ "$(fig frames "$T/ks.txt")" = "$(fig frames "$T/kb.txt")" ] && [ "$(fig frames "$T/ks.txt")" -gt "$(fig samples "$T/ks.txt")" ] &&
	grep -q "^topk [0-9.]*  # top-1 accuracy [0-9.]* ($(fig ref_top1_right "$T/kb.txt")/$(fig samples "$T/kb.txt"))\$" "$T/ks.txt"
ok $? "--stream: npy-pair sequences, $(fig frames "$T/ks.txt") frames; topk $(fig ref_top1_right "$T/kb.txt")/$(fig samples "$T/kb.txt") right as PyTorch's logits"

# JSON carries the plugin metrics' values and reports; --print one
npu-eval "$T/d.ir" --dataset "imgdir:$P/img" --metric f1 --metric top1 --json >"$T/i.json" &&
	grep -q "^    {\"metric\": \"f1\", \"value\": $(fig f1 "$T/i.txt"), \"report\": \"macro F1 [0-9.]* over 10 classes ($(exp img samples) samples), worst class [0-9] at [0-9.]*\"}," "$T/i.json" &&
	grep -q "^    {\"metric\": \"top1\", \"value\": $(fig topk "$T/i.txt")}\$" "$T/i.json" &&
	[ "$(npu-eval "$T/d.ir" --dataset "imgdir:$P/img" --print f1:3)" = "$(fig f1:3 "$T/i.txt")" ]
ok $? "--json lists the metrics with values and reports; --print f1:3 prints the figure alone"

# a builtin data set (an .npy without labels) feeds a plugin metric; labels from npy-pair
npu-eval "$T/d.ir" "$X" --metric probe --plugin-file "$NPU_TESTS/plugin-v1/probe.so" >"$T/p.txt" &&
	grep -q "^probe 1  # probe version 1 saw $(exp npy samples) samples\$" "$T/p.txt"
ok $? "--plugin-file loads an object outside the search path; a builtin data set feeds a plugin metric"

# versions: v1 and v2 of probe in two directories; v2 wins, v1 is listed shadowed; the other ABI is refused
NPU_PLUGIN_PATH=$NPU_TESTS/plugin-v2:$NPU_TESTS/plugin-v1:$NPU_TESTS/plugin-abi npu-eval --plugin >"$T/l2" 2>"$T/l2.err" &&
	grep -q "^metric *probe *2  $NPU_TESTS/plugin-v2/probe.so: test metric" "$T/l2" &&
	grep -q "^metric *probe *1  $NPU_TESTS/plugin-v1/probe.so (shadowed): test metric" "$T/l2" &&
	! grep -q "plugin-abi" "$T/l2" &&
	grep -q "^npu-eval: $NPU_TESTS/plugin-abi/probe.so: warning: plugin 0 has ABI 99, this program 1: skipped\$" "$T/l2.err" &&
	[ "$(wc -l <"$T/l2.err")" = 1 ] &&
	NPU_PLUGIN_PATH=$NPU_TESTS/plugin-v1:$NPU_TESTS/plugin-v2 npu-eval "$T/d.ir" "$X" --print probe 2>/dev/null >"$T/v" &&
	[ "$(cat "$T/v")" = 2 ] &&
	NPU_PLUGIN_PATH=$NPU_TESTS/plugin-v2:$NPU_TESTS/plugin-v1 npu-eval "$T/d.ir" "$X" --print probe 2>/dev/null >"$T/v" &&
	[ "$(cat "$T/v")" = 2 ]
ok $? "version 2 wins over 1 in either search order, 1 is listed shadowed; ABI 99 is refused with a warning"

# ./plugin is searched after $NPU_PLUGIN_PATH
mkdir -p "$T/plugin" && cp "$NPU_TESTS/plugin-v1/probe.so" "$T/plugin/" &&
	NPU_PLUGIN_PATH= npu-eval --plugin >"$T/l3" && grep -q "^metric *probe *1  ./plugin/probe.so: " "$T/l3" &&
	[ "$(wc -l <"$T/l3")" = 1 ] && rm -r "$T/plugin"
ok $? "./plugin is searched (and alone without \$NPU_PLUGIN_PATH)"
NPU_PLUGIN_PATH=$PLUG:$PLUG/. npu-eval --plugin >"$T/l4" 2>"$T/l4.err" && [ "$(wc -l <"$T/l4")" = 4 ] && [ ! -s "$T/l4.err" ]
ok $? "a directory named twice in \$NPU_PLUGIN_PATH: each plugin listed once, nothing said"

# npu-mixp with a plugin metric as its criterion (the classifier of t9010, whose int8 loses accuracy):
# the same choice as --metric-cmd running npu-eval --print top1, as brute force, and with -j 2
M=$DATA/mixp
Q="-t int8 -c $M/calib.npz -d $M/test.npz"
kept() { sed -n 's/^kept in [a-z0-9]*: [0-9]* of [0-9]* candidate ops:* *//p' "$1" | tr ' ' '\n' | sort | tr '\n' ' '; }
npu-import-onnx "$M/model.onnx" | npu-fuse --all -o "$T/m.ir" &&
	npu-mixp "$T/m.ir" $Q --metric topk --min 0.99 --report "$T/mx.json" >"$T/mx.out" &&
	npu-mixp "$T/m.ir" $Q --metric topk --min 0.99 --brute-force >"$T/mxb.out" &&
	npu-mixp "$T/m.ir" $Q --metric topk --min 0.99 -j 2 >"$T/mxj.out" &&
	npu-mixp "$T/m.ir" $Q --metric-cmd "npu-eval {} $M/test.npz --print top1" --min 0.99 >"$T/mxc.out" &&
	[ -n "$(kept "$T/mx.out")" ] && [ "$(kept "$T/mx.out")" = "$(kept "$T/mxb.out")" ] &&
	[ "$(kept "$T/mx.out")" = "$(kept "$T/mxj.out")" ] && [ "$(kept "$T/mx.out")" = "$(kept "$T/mxc.out")" ] &&
	grep -q "^topk: fully quantized 0.[0-8][0-9]*, chosen 0.99" "$T/mx.out" &&
	grep -q '"criterion": "metric topk >= 0.98999999999999999"' "$T/mx.json" && grep -q '"met": true' "$T/mx.json"
ok $? "npu-mixp --metric topk --min 0.99: keeps $(kept "$T/mx.out")as brute force, -j 2 and --metric-cmd with npu-eval --print top1; $(sed -n 2p "$T/mx.out")"
npu-mixp --plugin --plugin-file "$NPU_TESTS/plugin-v2/probe.so" >"$T/ml" &&
	grep -q "^metric *probe *2  $NPU_TESTS/plugin-v2/probe.so: " "$T/ml" && grep -q "^metric *f1 *1  " "$T/ml"
ok $? "npu-mixp --plugin lists the plugins (--plugin-file's too)"
expect_fail 1 "^npu-mixp: probe: error: sample 1: asked to fail at the second sample\$" \
	"npu-mixp: a metric plugin's error" -- npu-mixp "$T/m.ir" $Q --plugin-file "$NPU_TESTS/plugin-v1/probe.so" --metric probe:fail --min 1 -o "$T/out"
expect_fail 1 "^npu-mixp: error: unknown metric 'nosuch': .*searched" \
	"npu-mixp: an unknown metric" -- npu-mixp "$T/m.ir" $Q --metric nosuch --min 1 -o "$T/out"

# errors: one line naming the plugin or the name, exit 1, no output file
expect_fail 1 "^npu-eval: error: 'nosuch:1': no such file or directory, and no dataset plugin 'nosuch' \(searched \\\$NPU_PLUGIN_PATH \($PLUG\), then ./plugin\)\$" \
	"an unknown dataset names it and where plugins were searched" -- npu-eval "$T/d.ir" --dataset nosuch:1 -o "$T/out"
expect_fail 1 "^npu-eval: error: unknown metric 'nosuch': no builtin figure .* and no metric plugin of that name \(searched \\\$NPU_PLUGIN_PATH \($PLUG\), then ./plugin\)\$" \
	"an unknown metric names it and where plugins were searched" -- npu-eval "$T/d.ir" "$X" --metric nosuch:3 -o "$T/out"
expect_fail 1 "^npu-eval: npy-pair: error: $T/nosuch.npy: No such file or directory\$" \
	"a dataset plugin's error" -- npu-eval "$T/d.ir" --dataset "npy-pair:$T/nosuch.npy" -o "$T/out"
head -c 300 "$X" >"$T/short.npy"
expect_fail 1 "^npu-eval: npy-pair: error: $T/short.npy: truncated data\$" \
	"a truncated .npy through npy-pair" -- npu-eval "$T/d.ir" --dataset "npy-pair:$T/short.npy" -o "$T/out"
expect_fail 1 "^npu-eval: npy-pair: error: sample 0: input 'x.1': 4 values, expected 64\$|^npu-eval: npy-pair: error: sample 0: input '.*': 1 values, expected 64\$" \
	"samples of the wrong size from a plugin" -- npu-eval "$T/d.ir" --dataset "npy-pair:$Y" -o "$T/out"
expect_fail 1 "^npu-eval: topk: error: '0': expected K, an integer from 1 to 1000\$" \
	"bad metric arguments fail before running" -- npu-eval "$T/d.ir" --dataset "npy-pair:$X,$Y" --metric topk:0 -o "$T/out"
expect_fail 1 "^npu-eval: f1: error: sample 0: needs the model's scores and one class id per sample as the first label\$" \
	"a metric plugin that needs labels, on a data set without" -- npu-eval "$T/d.ir" --dataset "npy-pair:$X" --metric f1 -o "$T/out"
expect_fail 1 "^npu-eval: probe: error: sample 1: asked to fail at the second sample\$" \
	"a metric plugin failing in update()" -- npu-eval "$T/d.ir" "$X" --plugin-file "$NPU_TESTS/plugin-v1/probe.so" --metric probe:fail -o "$T/out"
printf '000.pgm 2\nmissing.pgm 1\n' >"$T/list.txt"
expect_fail 1 "^npu-eval: imgdir: error: sample 1: $P/img/missing.pgm: No such file or directory\$" \
	"imgdir with a listed image missing" -- npu-eval "$T/d.ir" --dataset "imgdir:$P/img,$T/list.txt" -o "$T/out"
expect_fail 1 "^npu-eval: .*share/npu/examples/digits.pt: error: cannot load plugin: .*" \
	"--plugin-file of no shared object" -- npu-eval "$T/d.ir" "$X" --plugin-file "$E/digits.pt" -o "$T/out"
expect_fail 2 "^npu-eval: --dataset and --metric go with a graph, not --sample\$" \
	"--metric with --sample" -- npu-eval --sample 0 "$X" --metric f1 -o "$T/out"

done_testing
