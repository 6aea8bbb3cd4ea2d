#!/bin/sh
# npu-layout: a TensorFlow CNN (conv, bias, relu6, dilated depthwise, SAME
# average pooling) rewritten to nhwc runs with zero transposes; PyTorch CNNs
# with --input-layout x:nxc take channel-last input with no transpose at the
# input. Both equal the channel-first graphs exactly: float interpreter,
# float runtime kernels, int8 and fp16 (grus) quantized graphs, and the
# emitted header byte for byte; and they match the frameworks' outputs
# (TensorFlow.js; PyTorch, tests/gen/layout_fixtures.py). Error cases.
. "$(dirname "$0")/lib.sh"
EX=$TOP/share/npu/examples
L=$DATA/layout
CC=${CC:-cc}
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"
printf 'default: {precision: float}\n' >"$T/float.yaml"
transposes() { npu-dump "$1" | sed -n 's/^transposes: \([0-9]*\).*/\1/p'; }
first_op() { npu-dump "$1" | awk '$1 == "0" { print $3; exit }'; }

# --- TensorFlow CNN: NHWC in the model, NCHW inside after import
npu-import-tf "$DATA/tf/conv.pb" --input x:1,7,7,3 --output lr | npu-fuse --all -o "$T/tf.ir" &&
	[ "$(transposes "$T/tf.ir")" -eq 2 ] && npu-layout "$T/tf.ir" --to nhwc -o "$T/tf.nhwc.ir" &&
	[ "$(transposes "$T/tf.nhwc.ir")" -eq 0 ] && ! npu-dump "$T/tf.nhwc.ir" | grep -q ' transpose '
ok $? "TF conv.pb: 2 transposes after import, none after npu-layout --to nhwc"
npu-run "$T/tf.nhwc.ir" -i "$DATA/tf/conv.input.npy" --compare "$DATA/tf/conv.expect.npy" >/dev/null
ok $? "TF conv.pb in nhwc matches TensorFlow.js"
npu-run "$T/tf.ir" -i "$DATA/tf/conv.input.npy" -o "$T/a.npz" && npu-run "$T/tf.nhwc.ir" -i "$DATA/tf/conv.input.npy" -o "$T/b.npz" &&
	cmp -s "$T/a.npz" "$T/b.npz"
ok $? "TF conv.pb: the nhwc graph's float output equals the nchw graph's bit for bit"
npu-run "$T/tf.ir" --mode runtime -i "$DATA/tf/conv.input.npy" -o "$T/ra.npz" &&
	npu-run "$T/tf.nhwc.ir" --mode runtime -i "$DATA/tf/conv.input.npy" -o "$T/rb.npz" && cmp -s "$T/ra.npz" "$T/rb.npz"
ok $? "TF conv.pb: npu-run --mode runtime (the float32 kernels) gives the same bits in nhwc and nchw"
npu-layout "$T/tf.nhwc.ir" --to nchw -o "$T/tf.back.ir" && [ "$(transposes "$T/tf.back.ir")" -eq 2 ] &&
	npu-run "$T/tf.back.ir" -i "$DATA/tf/conv.input.npy" -o "$T/c.npz" && cmp -s "$T/a.npz" "$T/c.npz"
ok $? "TF conv.pb back to nchw: the two interface transposes again, same output"

# the same through the runtime: float kernels (CONV_NHWC_F sums in CONV_F's
# order), int8 and fp16; the header of the nhwc int8 model has no transpose
for mode in float int8 grus; do
	case $mode in float) q="--target int8 --config $T/float.yaml";; int8) q="--target int8";; grus) q="--target grus";; esac
	npu-quant "$T/tf.ir" $q --calib "$DATA/tf/conv.input.npy" -o "$T/q.ir" 2>/dev/null &&
		npu-quant "$T/tf.nhwc.ir" $q --calib "$DATA/tf/conv.input.npy" -o "$T/q.nhwc.ir" 2>/dev/null &&
		npu-run "$T/q.ir" -i "$DATA/tf/conv.input.npy" -o "$T/a.npz" &&
		npu-run "$T/q.nhwc.ir" -i "$DATA/tf/conv.input.npy" -o "$T/b.npz" && cmp -s "$T/a.npz" "$T/b.npz" &&
		[ "$(transposes "$T/q.nhwc.ir")" -eq 0 ]
	ok $? "TF conv.pb $mode: nhwc through the runtime equals nchw bit for bit, zero transposes"
	npu-emit "$T/q.nhwc.ir" --name m -o "$T/npu_m.h" &&
		grep -q 'k_conv_nhwc_[qf]' "$T/npu_m.h" && ! grep -q 'k_copy\b' "$T/npu_m.h" &&
		$CC $STRICT -O2 -DNPU_HEADER='"npu_m.h"' -DNPU_MODEL=npu_m_model -I"$T" "$EX/npu_host.c" -o "$T/host" -lm \
			2>"$T/cc.err" && rm -rf "$T/res" && mkdir "$T/res" && "$T/host" run "$T/res" "$DATA/tf/conv.input.npy" &&
		npu-run "$T/q.nhwc.ir" -i "$DATA/tf/conv.input.npy" --compare "$T/res" --rtol 0 --atol 0 >/dev/null
	st=$?
	[ $st -eq 0 ] || diag "$(head -3 "$T/cc.err")"
	ok $st "TF conv.pb $mode nhwc: the header uses the NHWC kernels and no copy, compiles ($STRICT), equals npu-run byte for byte"
done

# --- PyTorch CNN fed channel-last (gxnpuc INPUT_NCX_TO_NXC)
npu-import-pt "$DATA/pt/cnn.pt" --input 0:1,3,16,16 | npu-fuse --all -o "$T/cnn.ir" &&
	npu-layout "$T/cnn.ir" --to nhwc --input-layout x:nxc -o "$T/cnn.nhwc.ir" &&
	[ "$(first_op "$T/cnn.nhwc.ir")" = conv ] && npu-dump "$T/cnn.nhwc.ir" | grep -q '^  x .*1x16x16x3  nhwc' &&
	[ "$(transposes "$T/cnn.nhwc.ir")" -eq 1 ]
ok $? "PT cnn with -i x:nxc: input 1x16x16x3 nhwc read by the conv directly; one transpose (before the flatten)"
npu-run "$T/cnn.nhwc.ir" -i "$L/cnn.nhwc.in.npy" --compare "$L/cnn.nhwc.out.npy" >/dev/null &&
	npu-run "$T/cnn.ir" -i "$DATA/pt/cnn.in0.npy" -o "$T/a.npz" && npu-run "$T/cnn.nhwc.ir" -i "$L/cnn.nhwc.in.npy" -o "$T/b.npz" &&
	cmp -s "$T/a.npz" "$T/b.npz"
ok $? "PT cnn nhwc matches PyTorch, and equals the nchw graph on the transposed input bit for bit"
for mode in int8 grus; do
	npu-quant "$T/cnn.ir" --target $mode --calib "$DATA/pt/cnn.in0.npy" -o "$T/q.ir" 2>/dev/null &&
		npu-quant "$T/cnn.nhwc.ir" --target $mode --calib "$L/cnn.nhwc.in.npy" -o "$T/q.nhwc.ir" 2>/dev/null &&
		npu-run "$T/q.ir" -i "$DATA/pt/cnn.in0.npy" -o "$T/a.npz" && npu-run "$T/q.nhwc.ir" -i "$L/cnn.nhwc.in.npy" -o "$T/b.npz" &&
		cmp -s "$T/a.npz" "$T/b.npz"
	ok $? "PT cnn $mode: nhwc input through the runtime equals the nchw pipeline bit for bit"
done
npu-import-pt "$DATA/pt/depthwise.pt" --input 0:1,4,12,12 | npu-fuse --all -o "$T/dw.ir" &&
	npu-layout "$T/dw.ir" --to nhwc -i x:nxc --output-layout output_0:nxc -o "$T/dw.nhwc.ir" &&
	[ "$(first_op "$T/dw.nhwc.ir")" = conv ] && [ "$(transposes "$T/dw.nhwc.ir")" -eq 0 ] &&
	npu-run "$T/dw.nhwc.ir" -i "$L/depthwise.nhwc.in.npy" --compare "$L/depthwise.nhwc.out.npy" >/dev/null
ok $? "PT depthwise/grouped/transposed convs, nhwc in and out: zero transposes, matches PyTorch's output (channel-last)"
# the same taking the output channel-first (one transpose, at the output)
# against the nchw pipeline; the all-nhwc header against npu-run
npu-layout "$T/dw.ir" --to nhwc -i x:nxc -o "$T/dw.in.ir"
for mode in int8 grus; do
	npu-quant "$T/dw.ir" --target $mode --calib "$DATA/pt/depthwise.in0.npy" -o "$T/q.ir" 2>/dev/null &&
		npu-quant "$T/dw.in.ir" --target $mode --calib "$L/depthwise.nhwc.in.npy" -o "$T/q.in.ir" 2>/dev/null &&
		npu-run "$T/q.ir" -i "$DATA/pt/depthwise.in0.npy" -o "$T/a.npz" &&
		npu-run "$T/q.in.ir" -i "$L/depthwise.nhwc.in.npy" -o "$T/b.npz" && cmp -s "$T/a.npz" "$T/b.npz" &&
		npu-quant "$T/dw.nhwc.ir" --target $mode --calib "$L/depthwise.nhwc.in.npy" -o "$T/q.nhwc.ir" 2>/dev/null &&
		npu-emit "$T/q.nhwc.ir" --name m -o "$T/npu_m.h" && grep -q 'k_conv_t_nhwc_[qf]' "$T/npu_m.h" &&
		$CC $STRICT -O2 -DNPU_HEADER='"npu_m.h"' -DNPU_MODEL=npu_m_model -I"$T" "$EX/npu_host.c" -o "$T/host" -lm &&
		rm -rf "$T/res" && mkdir "$T/res" && "$T/host" run "$T/res" "$L/depthwise.nhwc.in.npy" &&
		npu-run "$T/q.nhwc.ir" -i "$L/depthwise.nhwc.in.npy" --compare "$T/res" --rtol 0 --atol 0 >/dev/null
	ok $? "PT depthwise $mode: nhwc input equals the nchw pipeline bit for bit; the all-nhwc header equals npu-run byte for byte"
done

# the flatten's transpose into the classifier's weights (npu-fuse
# transpose-fc, not part of npu-layout: it changes the float summation
# order of the fully connected layer, so float is close, integer exact)
npu-fuse "$T/cnn.nhwc.ir" --passes=transpose-fc,dce -o "$T/cnn.fc.ir" && [ "$(transposes "$T/cnn.fc.ir")" -eq 0 ] &&
	npu-run "$T/cnn.fc.ir" -i "$L/cnn.nhwc.in.npy" --compare "$L/cnn.nhwc.out.npy" >/dev/null &&
	npu-quant "$T/cnn.ir" --target int8 --calib "$DATA/pt/cnn.in0.npy" -o "$T/q.ir" 2>/dev/null &&
	npu-quant "$T/cnn.fc.ir" --target int8 --calib "$L/cnn.nhwc.in.npy" -o "$T/q.fc.ir" 2>/dev/null &&
	npu-run "$T/q.ir" -i "$DATA/pt/cnn.in0.npy" -o "$T/a.npz" && npu-run "$T/q.fc.ir" -i "$L/cnn.nhwc.in.npy" -o "$T/b.npz" &&
	cmp -s "$T/a.npz" "$T/b.npz"
ok $? "PT cnn nhwc + transpose-fc: zero transposes, matches PyTorch, int8 equals the nchw pipeline bit for bit"

# --- a TensorFlow.js detector (BlazeFace-like: residual adds, channel pad,
# prelu, max pooling): 11 transposes after import and fusion, none left
B=$DATA/families/tfjs_blazeface
npu-import-tf "$B/model.json" $(cat "$B/args") 2>/dev/null | npu-fuse --all -o "$T/bf.ir" &&
	[ "$(transposes "$T/bf.ir")" -gt 0 ] && npu-layout "$T/bf.ir" --to nhwc -o "$T/bf.nhwc.ir" &&
	[ "$(transposes "$T/bf.nhwc.ir")" -eq 0 ] &&
	npu-run "$T/bf.nhwc.ir" -i "$B/in.npz" --compare "$B/out.npz" >/dev/null &&
	npu-run "$T/bf.ir" -i "$B/in.npz" -o "$T/a.npz" && npu-run "$T/bf.nhwc.ir" -i "$B/in.npz" -o "$T/b.npz" &&
	cmp -s "$T/a.npz" "$T/b.npz"
ok $? "TF.js blazeface: zero transposes in nhwc, matches TensorFlow.js, equals the nchw graph bit for bit"
for mode in int8 grus; do
	npu-quant "$T/bf.ir" --target $mode --calib "$B/calib.npz" -o "$T/q.ir" 2>/dev/null &&
		npu-quant "$T/bf.nhwc.ir" --target $mode --calib "$B/calib.npz" -o "$T/q.nhwc.ir" 2>/dev/null &&
		[ "$(transposes "$T/q.nhwc.ir")" -eq 0 ] &&
		npu-run "$T/q.ir" -i "$B/in.npz" -o "$T/a.npz" && npu-run "$T/q.nhwc.ir" -i "$B/in.npz" -o "$T/b.npz" &&
		cmp -s "$T/a.npz" "$T/b.npz"
	ok $? "TF.js blazeface $mode: nhwc with zero transposes equals nchw bit for bit"
done

# --- every model family (tests/data/families): the nhwc graph computes what
# the nchw one does, bit for bit, in float, int8 and fp16
for f in "$DATA"/families/*/; do
	n=$(basename "$f")
	set -- $(family_model "$f") || continue
	in=$(ls "$f"in.npz 2>/dev/null || ls "$f"in*.npy | head -n 1)
	cal=$(ls "$f"calib.npz 2>/dev/null || echo "$in")
	res=0
	(cd "$f" && $1 $2 $(cat args 2>/dev/null) 2>/dev/null) | npu-fuse --all -o "$T/f.ir" &&
		npu-layout "$T/f.ir" --to nhwc -o "$T/f.nhwc.ir" && npu-run "$T/f.ir" -i "$in" -o "$T/a.npz" &&
		npu-run "$T/f.nhwc.ir" -i "$in" -o "$T/b.npz" && cmp -s "$T/a.npz" "$T/b.npz" || res=1
	for mode in int8 grus; do
		[ $res = 0 ] && npu-quant "$T/f.ir" --target $mode --calib "$cal" -o "$T/q.ir" 2>/dev/null &&
			npu-quant "$T/f.nhwc.ir" --target $mode --calib "$cal" -o "$T/q.nhwc.ir" 2>/dev/null &&
			npu-run "$T/q.ir" -i "$in" -o "$T/a.npz" && npu-run "$T/q.nhwc.ir" -i "$in" -o "$T/b.npz" &&
			cmp -s "$T/a.npz" "$T/b.npz" || res=1
	done
	ok $res "family $n: nhwc ($(transposes "$T/f.nhwc.ir" 2>/dev/null) transposes) equals nchw in float, int8 and grus bit for bit"
done

# --- npuc: INPUT_NCX_TO_NXC runs the graph channel-last, no transpose at the input
cnn_cfg() {	# cnn_cfg INPUT-SHAPE
	printf 'CORENAME: GRUS\nFRAMEWORK: PT\nMODEL_FILE: %s\nOUTPUT_TYPE: c_code\nOUTPUT_FILE: npu.h\n' "$DATA/pt/cnn.pt"
	printf 'INPUT_NCX_TO_NXC: [0]\nINPUT_OPS:\n    0: %s\n' "$1"
}
cnn_cfg '[1, 16, 16, 3]' >"$T/cnn.yaml"
npuc "$T/cnn.yaml" --name m --keep "$T/k" -o "$T/npu_m.h" 2>"$T/err" && [ ! -s "$T/err" ] &&
	[ "$(first_op "$T/k/layout.ir")" = conv ] && [ "$(transposes "$T/k/quant.ir")" -eq 1 ] &&
	grep -q "input  0 'x': f16 \[1,16,16,3\]" "$T/npu_m.h" &&
	$CC $STRICT -O2 -DNPU_HEADER='"npu_m.h"' -DNPU_MODEL=npu_m_model -I"$T" "$EX/npu_host.c" -o "$T/host" -lm &&
	rm -rf "$T/res" && mkdir "$T/res" && "$T/host" run "$T/res" "$L/cnn.nhwc.in.npy" &&
	npu-run "$T/k/quant.ir" -i "$L/cnn.nhwc.in.npy" --compare "$T/res" --rtol 0 --atol 0 >/dev/null &&
	npu-run "$T/k/quant.ir" -i "$L/cnn.nhwc.in.npy" --compare "$L/cnn.nhwc.out.npy" --rtol 1e-2 --atol 1e-3 >/dev/null
ok $? "npuc, PT cnn with INPUT_NCX_TO_NXC: conv reads the NHWC input, header equals npu-run byte for byte, matches PyTorch (fp16)"
# a profile saying 'layout: nhwc' (npu-target(5)): npuc runs the ONNX
# tinycnn channel-last, the header the same bytes as the default profile's
mkdir "$T/targets" && cp "$TOP"/share/npu/targets/*.yaml "$T/targets/" && echo 'layout: nhwc' >>"$T/targets/grus.yaml" &&
	npuc "$DATA/npuc/tinycnn.yaml" --name m --keep "$T/k2" -o "$T/a.h" 2>/dev/null &&
	NPU_TARGETS=$T/targets npuc "$DATA/npuc/tinycnn.yaml" --name m --keep "$T/k3" -o "$T/b.h" 2>"$T/err" && [ ! -s "$T/err" ] &&
	npu-dump "$T/k3/quant.ir" | grep -q '^transposes: .*layout nhwc' && grep -q 'k_conv_nhwc_f' "$T/b.h" &&
	npu-run "$T/k2/quant.ir" -i "$DATA/tinycnn.input.npy" -o "$T/a.npz" &&
	npu-run "$T/k3/quant.ir" -i "$DATA/tinycnn.input.npy" -o "$T/b.npz" && cmp -s "$T/a.npz" "$T/b.npz"
ok $? "npuc with a 'layout: nhwc' profile: tinycnn runs the NHWC kernels, same outputs as channel-first"
sed -i 's/^layout: nhwc$/layout: hwcn/' "$T/targets/grus.yaml"	# replaced: a key given twice is an error of its own
NPU_TARGETS=$T/targets npuc "$DATA/npuc/tinycnn.yaml" -o "$T/out" 2>"$T/err"
[ $? -eq 1 ] && grep -q "grus.yaml: 'layout' must be nchw or nhwc" "$T/err" && [ ! -e "$T/out" ]
ok $? "a profile with layout: hwcn is refused"
cnn_cfg '[1, 768]' >"$T/bad.yaml"
expect_fail 1 "bad.yaml:6: error: INPUT_NCX_TO_NXC: input '0' has rank 2 \(needs 3, N C L, or 4, N C H W\)" \
	"npuc: an INPUT_NCX_TO_NXC entry of rank 2" -- npuc "$T/bad.yaml" -o "$T/out"

# --- transpose sinking in npu-fuse
npu-fuse --list | grep -q '^transpose-sink ' && npu-fuse --list | grep -q '^transpose-fc .*\[not in --all\]'
ok $? "npu-fuse --list has transpose-sink and transpose-fc"

# --- errors: one line, exit 1 (data) or 2 (usage), nothing written
expect_fail 1 "^npu-layout: .*tf.ir: error: input layout 'y': 'y' is not a graph input" "unknown input name" -- \
	npu-layout "$T/tf.ir" --to nhwc -i y:nxc -o "$T/out"
expect_fail 2 "^npu-layout: --input-layout 'x:nhcw': layout 'nhcw' is not nxc or ncx" "bad layout word" -- \
	npu-layout "$T/tf.ir" --to nhwc -i x:nhcw -o "$T/out"
expect_fail 2 "^npu-layout: --to 'hwcn': expected nhwc or nchw" "bad target layout" -- \
	npu-layout "$T/tf.ir" --to hwcn -o "$T/out"
expect_fail 2 "^npu-layout: --to nhwc or --to nchw is required" "no target layout" -- npu-layout "$T/tf.ir" -o "$T/out"
npu-import-tf "$DATA/tf/argmin.pb" --output amin -o "$T/am.ir"
expect_fail 1 "^npu-layout: .*am.ir: error: input layout 'x': the input has rank 2; NCX and NXC need rank 3 or 4" \
	"rank mismatch" -- npu-layout "$T/am.ir" --to nhwc -i x:nxc -o "$T/out"
npu-layout "$T/tf.ir" --to nhwc -i y:nxc -i z:nxc -o "$T/out" 2>"$T/err"
[ $? -eq 1 ] && [ "$(grep -c 'is not a graph input' "$T/err")" -eq 2 ] && [ ! -e "$T/out" ]
ok $? "two bad entries: both reported, one line each"
done_testing
