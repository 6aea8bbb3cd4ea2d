#!/bin/sh
# npuc: gxnpuc's example configs (TF streaming FSMN with state, PyTorch
# GRU with a channel-last input, PyTorch multi-output with an fp16 state
# output and compressed weights, TF npu_softmax, an ONNX CNN) give headers
# that compile as strict C99, equal npu-run on the same quantized IR byte
# for byte, and match the framework's outputs; OUTPUT_TYPE raw; the
# listings; config errors as one line naming file:line and no output.
. "$(dirname "$0")/lib.sh"
EX=$TOP/share/npu/examples
N=$DATA/npuc
CC=${CC:-cc}
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"

build_host() {	# build_host HEADER OUT
	$CC $STRICT -O2 -DNPU_HEADER="\"$(basename "$1")\"" -DNPU_MODEL=npu_m_model -I"$(dirname "$1")" \
		"$EX/npu_host.c" -o "$2" -lm 2>"$T/cc.err" || { diag "$(head -5 "$T/cc.err")"; return 1; }
}

# config, the samples (one .npy per input, in order), the framework's outputs
for c in "fsmn $N/fsmn.Feats.npy $N/fsmn.State_c0.npy|$DATA/tf/fsmn.expect.npz" \
	 "gru $N/gru.in0.nlc.npy $DATA/pt/gru.in1.npy|$DATA/pt/gru.out.npz" \
	 "multiout $DATA/pt/multiout.in0.npy $DATA/pt/multiout.in1.npy|$DATA/pt/multiout.out.npz" \
	 "softmax $DATA/tf/softmax_maxpool.input.npy|$DATA/tf/softmax_maxpool.expect.npy" \
	 "tinycnn $DATA/tinycnn.input.npy|$DATA/tinycnn.output.npy"; do
	set -- ${c%%|*}
	m=$1; shift
	ins=$*
	ref=${c#*|}
	args=""; for i in $ins; do args="$args -i $i"; done
	rm -rf "$T/k" "$T/res" && mkdir "$T/res"
	npuc "$N/$m.yaml" --name m --keep "$T/k" -o "$T/npu_m.h" 2>"$T/err" && [ ! -s "$T/err" ] &&
		[ -f "$T/k/import.ir" ] && [ -f "$T/k/fuse.ir" ] && build_host "$T/npu_m.h" "$T/host" &&
		"$T/host" run "$T/res" $ins &&
		npu-run "$T/k/quant.ir" $args --compare "$T/res" --rtol 0 --atol 0 >/dev/null
	ok $? "$m: npuc's header compiles ($STRICT) and equals npu-run on its quantized IR byte for byte $(head -c 300 "$T/err")"
	npu-run "$T/k/quant.ir" $args --compare "$ref" --rtol 1e-2 --atol 1e-3 >"$T/cmp" 2>&1
	ok $? "$m: outputs match the framework's within fp16 (and int8 weight) tolerance"
done

# the fp16 state outputs stay fp16 (FP16_OUT_OPS by TF name and PT index)
npuc "$N/fsmn.yaml" --name m -o "$T/a.h" && grep -q "output 0 'new_state': f16 \[1,3,16\]" "$T/a.h" &&
	grep -q "output 1 'Result': f32 \[1,8\]" "$T/a.h"
ok $? "fsmn: OUTPUT_OPS order kept, FP16_OUT_OPS new_state is f16, Result f32"
npuc "$N/gru.yaml" --name m -o "$T/a.h" && grep -q "input  0 'x': f16 \[1,20,10\]" "$T/a.h" &&
	grep -q "output 1 'output_1': f16 \[2,1,12\]" "$T/a.h" && grep -q "output 0 'output_0': f32" "$T/a.h"
ok $? "gru: INPUT_NCX_TO_NXC input 0 takes [1,20,10]; FP16_OUT_OPS [1] is f16"
npuc "$N/multiout.yaml" --keep "$T/k" -o "$T/a.h" && npu-dump -w "$T/k/quant.ir" >"$T/w" &&
	grep -q '^  conv.weight:q .*i8 .*scale=0.00393701 ' "$T/w" && grep -q '^  conv2.weight:f16 .*f16' "$T/w" &&
	grep -q "output 4 'output_4': f16 \[1,1,6\]" "$T/a.h"
ok $? "multiout: conv weights compressed with WEIGHT_MIN_MAX 0.5 (scale 0.5/127), conv2.weight excluded, output 4 f16"
npuc "$N/multiout.yaml" -o "$T/b.h" && cmp -s "$T/a.h" "$T/b.h"
ok $? "the same config gives the same header"

# OUTPUT_TYPE raw: npu-emit --format bin, run through npu_load
sed 's/^OUTPUT_TYPE: c_code/OUTPUT_TYPE: raw/; s|\.\./pt/|'"$DATA"'/pt/|' "$N/gru.yaml" >"$T/raw.yaml"
$CC $STRICT -O2 -I"$TOP/share/npu/runtime" "$EX/npu_host.c" -o "$T/hostbin" -lm &&
	npuc "$T/raw.yaml" --keep "$T/k" -o "$T/gru.bin" && rm -rf "$T/res" && mkdir "$T/res" &&
	"$T/hostbin" "$T/gru.bin" run "$T/res" "$N/gru.in0.nlc.npy" "$DATA/pt/gru.in1.npy" &&
	npu-run "$T/k/quant.ir" -i "$N/gru.in0.nlc.npy" -i "$DATA/pt/gru.in1.npy" --compare "$T/res" --rtol 0 --atol 0 >/dev/null
ok $? "OUTPUT_TYPE raw: a binary model npu_load runs to npu-run's bytes"

# the example config in share/npu/examples (OUTPUT_FILE next to the config
# unless -o): digits accuracy of the header
npuc "$EX/digits.yaml" --name m -o "$T/npu_m.h" && build_host "$T/npu_m.h" "$T/host" &&
	"$T/host" eval "$EX/digits.test.npy" "$EX/digits.labels.npy" >"$T/acc"
read right total <"$DATA/quant/digits.fp32"
got=$(sed -n 's/.*(\([0-9]*\)\/.*/\1/p' "$T/acc")
awk -v r="$right" -v g="${got:-0}" -v n="$total" 'BEGIN { exit !((r - g) * 100 / n <= 1) }'
ok $? "share/npu/examples/digits.yaml: $got/$total right, PyTorch fp32 $right/$total"
cp "$N/softmax.yaml" "$T/" && sed -i 's|\.\./tf/|'"$DATA"'/tf/|' "$T/softmax.yaml" &&
	(cd / && npuc "$T/softmax.yaml") && [ -f "$T/npu.h" ]
ok $? "OUTPUT_FILE is relative to the config's directory"

# -v -m -w -q -s
npuc "$N/fsmn.yaml" -v -m -w -o "$T/a.h" >"$T/out.txt" &&
	grep -q '^     6  proj .*fully_connected .*act=relu' "$T/out.txt" &&
	grep -q '^arena: *[0-9]* bytes, lower bound' "$T/out.txt" && grep -q '^  proj.weight:q  *i8 ' "$T/out.txt" &&
	grep -q '^budget: *arena [0-9]* of 514048 bytes of grus SRAM (524288 less WEIGHT_CACHE_SIZE 10240), weights 256 of 10240$' "$T/out.txt"
ok $? "-v lists the processed ops, -m the memory per op, -w the (compressed) weights"
npuc "$N/fsmn.yaml" -q -i "$DATA/tf/fsmn.input.npz" -o "$T/a.h" >"$T/q.txt" &&
	awk '$1 == "Result" && $2 > 30 && $3 > 0.999 { f = 1 } END { exit !f }' "$T/q.txt"
ok $? "-q: SQNR and cosine of the quantized against the float model: $(grep Result "$T/q.txt")"
npuc "$N/fsmn.yaml" --hist-dir "$T/h" -o "$T/a.h" && [ -f "$T/h/taps_f16.svg" ] && [ -f "$T/h/proj.weight_q.svg" ] &&
	grep -q '^<svg' "$T/h/taps_f16.svg"
ok $? "-s/--hist-dir: one SVG histogram per weight"

# listings, generated from the tables
nops=$(npuc --list | grep -c '^[a-z_0-9]*$')
nir=$(grep -c '^IR_OP(' "$TOP/libir/ir_ops.def")
[ "$nops" -eq "$nir" ]
ok $? "--list: every IR op ($nops of $nir)"
npuc --list -c grus >"$T/l" && grep -q '^conv  *yes' "$T/l" && grep -q '^softmax  *no' "$T/l"
ok $? "--list -c GRUS: what the profile runs"
npuc --list -f TF | grep -q '^Conv2D ' && npuc --list -f PT | grep -q '^gru ' &&
	npuc --list -c GRUS -f ONNX | grep -q '^Conv  *conv  *yes'
ok $? "--list -f TF|PT|ONNX: the importers' op tables"
npuc --cmpt | grep -q '^PT:' && npuc -V | grep -q '^npuc (npukit)'
ok $? "--cmpt and -V"
expect_fail 1 "^npuc: error: -c LEO: npukit has no target profile for this core" "--list -c a core without a profile" -- npuc --list -c leo
expect_fail 1 "error: -q: the sample for input 'x' is float32 1x10x20; the input is float32 1x20x10" \
	"-q refuses a sample of the wrong shape (here the channel-first one)" -- \
	npuc "$N/gru.yaml" -o "$T/out" -q -i "$DATA/pt/gru.in0.npy" -i "$DATA/pt/gru.in1.npy"

# TF names: the Const w1 (imported as c1#weights, used by c1#conv) and the
# op name dw (its weight dw#weights)
printf 'CORENAME: GRUS\nFRAMEWORK: TF\nMODEL_FILE: %s\nOUTPUT_FILE: out\nINPUT_OPS:\n    x: [1, 7, 7, 3]\nOUTPUT_OPS: [lr]\nCONV2D_COMPRESS: true\nEXCLUDE_COMPRESS_OPS: [w1]\nWEIGHT_MIN_MAX:\n    dw: [-1, 1]\n' \
	"$DATA/tf/conv.pb" >"$T/conv.yaml"
npuc "$T/conv.yaml" --keep "$T/k" && npu-dump -w "$T/k/quant.ir" >"$T/w" && grep -q '^  c1#weights:f16 ' "$T/w" &&
	grep -q '^  dw#weights:q .* scale=0.00787402 ' "$T/w" &&
	npu-run "$T/k/quant.ir" -i "$DATA/tf/conv.input.npy" --compare "$DATA/tf/conv.expect.npy" --rtol 1e-2 --atol 1e-3 >/dev/null
ok $? "TF: EXCLUDE_COMPRESS_OPS by Const name (w1), WEIGHT_MIN_MAX by op name (dw: scale 1/127); TF.js's outputs"
sed -i 's/\[w1\]/[w2]/' "$T/conv.yaml"
expect_fail 1 "conv.yaml:9: error: EXCLUDE_COMPRESS_OPS: 'w2' is no weight or op of the model \(closest: 'w1'\)" \
	"a TF Const name that does not exist names the closest Const" -- npuc "$T/conv.yaml"

# errors: one line, file:line, exit 1, no OUTPUT_FILE
base() {
	printf 'CORENAME: GRUS\nFRAMEWORK: TF\nMODEL_FILE: %s\nOUTPUT_FILE: out\n' "$DATA/tf/fsmn.pb"
	printf 'INPUT_OPS:\n    Feats: [1, 1, 16]\n    State_c0: [1, 3, 16]\nCOMPRESS: true\n'
}
cfg() { { base; printf '%s\n' "$@"; } >"$T/c.yaml"; }
cfg "OUTPUT_OP: [Result]"
expect_fail 1 "^npuc: .*c.yaml:9: error: unknown key 'OUTPUT_OP' \(did you mean 'OUTPUT_OPS'\?\)" \
	"an unknown key names the closest known one" -- npuc "$T/c.yaml"
cfg "OUTPUT_OPS: [Result]" "Fuse_BN: true"
expect_fail 1 "c.yaml:10: error: unknown key 'Fuse_BN' \(did you mean 'FUSE_BN'\?\)" "a misspelt key" -- npuc "$T/c.yaml"
cfg "OUTPUT_OPS: [Result]" "EXCLUDE_COMPRESS_OPS: [wq]"
expect_fail 1 "c.yaml:10: error: EXCLUDE_COMPRESS_OPS: 'wq' is no weight or op of the model \(closest: 'wo'\)" \
	"EXCLUDE_COMPRESS_OPS naming nothing" -- npuc "$T/c.yaml"
cfg "OUTPUT_OPS: [Result]" "WEIGHT_MIN_MAX:" "    conv9/weights: [-1, 1]"
expect_fail 1 "c.yaml:11: error: WEIGHT_MIN_MAX: 'conv9/weights' is no weight or op" \
	"WEIGHT_MIN_MAX naming nothing" -- npuc "$T/c.yaml"
cfg "OUTPUT_OPS: [Result, nosuch]"
expect_fail 1 "c.yaml:9: error: OUTPUT_OPS 'nosuch': .*fsmn.pb: .*'nosuch'" "OUTPUT_OPS naming nothing" -- npuc "$T/c.yaml"
cfg "OUTPUT_OPS: [Result]" "FP16_OUT_OPS: [new_state]"
expect_fail 1 "c.yaml:10: error: FP16_OUT_OPS: 'new_state' is not in OUTPUT_OPS" "FP16_OUT_OPS not an output" -- npuc "$T/c.yaml"
cfg "OUTPUT_OPS: [Result]" "WEIGHT_CACHE_SIZE: 524200"
expect_fail 1 "c.yaml: error: the arena needs [0-9]+ bytes, grus has 524288 bytes of SRAM \(88 after WEIGHT_CACHE_SIZE\): [0-9]+ over; largest live set [0-9]+ bytes at node '[a-z]+': '" \
	"an arena over the SRAM budget names the overflow and the largest live set" -- npuc "$T/c.yaml"
rm -rf "$T/kb" "$T/out"
npuc "$T/c.yaml" --keep "$T/kb" 2>/dev/null
[ $? -eq 1 ] && [ -f "$T/kb/quant.ir" ] && [ ! -e "$T/out" ] && npu-dump -m "$T/kb/quant.ir" >/dev/null
ok $? "--keep keeps quant.ir when the budget fails (no OUTPUT_FILE)"
cfg "OUTPUT_OPS: [Result]" "WEIGHT_CACHE_SIZE: 100"
expect_fail 1 "c.yaml:10: error: the weights take [0-9]+ bytes, WEIGHT_CACHE_SIZE is 100 \([0-9]+ over\)" \
	"weights over WEIGHT_CACHE_SIZE" -- npuc "$T/c.yaml"
sed 's/^name: grus/name: grus_warn/' "$TOP/share/npu/targets/grus.yaml" >"$T/grus_warn.yaml" &&
	echo "sram_overflow: warn" >>"$T/grus_warn.yaml"
cfg "OUTPUT_OPS: [Result]" "WEIGHT_CACHE_SIZE: 524200"
sed -i "s|^CORENAME: GRUS|CORENAME: grus_warn|" "$T/c.yaml"
NPU_TARGETS=$T npuc "$T/c.yaml" 2>"$T/err" && [ -f "$T/out" ] && grep -q "warning: the arena needs" "$T/err"
ok $? "a profile with sram_overflow: warn makes the overflow a warning"
cfg "OUTPUT_OPS: [Result"
expect_fail 1 "c.yaml:10: error: not valid YAML" "bad YAML: the line" -- npuc "$T/c.yaml"
cfg "OUTPUT_OPS: [Result]" "FUSE_BN: maybe"
expect_fail 1 "c.yaml:10: error: FUSE_BN must be true or false, not 'maybe'" "a bad boolean" -- npuc "$T/c.yaml"
cfg "OUTPUT_OPS: [Result]" "COMPRESS: false"
expect_fail 1 "c.yaml:10: error: key 'COMPRESS' is given twice \(first on line 8\)" "a key given twice" -- npuc "$T/c.yaml"
{ base | sed 's/GRUS/LEO/'; echo "OUTPUT_OPS: [Result]"; } >"$T/c.yaml"
expect_fail 1 "c.yaml:1: error: CORENAME LEO: npukit has no target profile for this core" "a core without a profile" -- npuc "$T/c.yaml"
{ base | sed 's/TF/MXNET/'; echo "OUTPUT_OPS: [Result]"; } >"$T/c.yaml"
expect_fail 1 "c.yaml:2: error: FRAMEWORK must be TF, PT or ONNX, not 'MXNET'" "an unknown framework" -- npuc "$T/c.yaml"
{ base | sed 's/Feats:/Feat:/'; echo "OUTPUT_OPS: [Result]"; } >"$T/c.yaml"
expect_fail 1 "c.yaml:6: error: INPUT_OPS 'Feat': .*'Feat'" "INPUT_OPS naming no input" -- npuc "$T/c.yaml"
printf 'CORENAME: GRUS\n' >"$T/c.yaml"
expect_fail 1 "c.yaml: error: FRAMEWORK is missing" "a required key missing" -- npuc "$T/c.yaml"
printf 'CORENAME: GRUS\nFRAMEWORK: PT\nMODEL_FILE: %s\nOUTPUT_FILE: out\nINPUT_OPS:\n    0: [1, 8, 12]\n    1: [1, 1, 6]\nCONV2D_COMPRESS: true\nEXCLUDE_COMPRESS_OPS: [conv3.weight]\n' \
	"$DATA/pt/multiout.pt" >"$T/c.yaml"
expect_fail 1 "c.yaml:9: error: EXCLUDE_COMPRESS_OPS: 'conv3.weight' is no weight or op of the model \(closest: 'conv2?.weight'\)" \
	"a PyTorch parameter name that does not exist" -- npuc "$T/c.yaml"
expect_fail 2 "^npuc: no config file given" "no config (usage)" -- npuc
expect_fail 2 "^npuc: -c and -f go with --list" "-c without --list (usage)" -- npuc -c GRUS "$T/c.yaml"
expect_fail 2 "^npuc: -q needs samples" "-q without samples (usage)" -- npuc -q "$T/c.yaml"

done_testing
