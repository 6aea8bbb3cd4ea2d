#!/bin/sh
# npu-quant --report: local error per layer next to the cumulative one (a
# planted bad layer ranks first), saturation of every tensor including the
# outputs, NaN/inf counts, fp16 overflow. See npu-quant(1), REPORT.
. "$(dirname "$0")/lib.sh"
EX=$TOP/share/npu/examples
Q=$DATA/quant

npu-import-pt "$EX/digits.pt" --input 0:1,1,8,8 | npu-fuse --all >"$T/digits.ir"
ok $? "the digits CNN imports and fuses"

# field FILE SECTION FIELD N: FIELD of the N-th entry of "outputs" or "layers"
field() {
	sed -n "/^  \"$2\": \[/,/^  \]/p" "$1" | grep '"tensor"' | sed -n "$4p" |
		sed -n "s/.*\"$3\": \([^,}]*\).*/\1/p" | tr -d '"'
}
# entry FILE TENSOR FIELD: FIELD of the layer of that tensor
entry() {
	sed -n "/^  \"layers\": \[/,/^  \]/p" "$1" | grep "\"tensor\": \"$2\"" |
		sed -n "s/.*\"$3\": \([^,}]*\).*/\1/p" | tr -d '"'
}
above() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }

# a planted bad layer: conv1 (the first one) with 3-bit weights. Its own
# (local) error is the largest, while the cumulative SQNR is lowest deeper
# down, where conv1's error has been carried and added to.
printf 'layers:\n  conv1: {weight_bits: 3}\n' >"$T/bad.yaml"
npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --config "$T/bad.yaml" \
	--report "$T/bad.json" -o "$T/bad.ir" 2>"$T/err"
ok $? "int8 with a 3-bit conv1 quantizes and reports"
[ "$(field "$T/bad.json" layers node 1)" = conv1 ] && [ "$(field "$T/bad.json" layers rank_local 1)" = 1 ]
ok $? "the 3-bit layer ranks first by local SQNR ($(field "$T/bad.json" layers node 1))"
rc=$(entry "$T/bad.json" conv1 rank_cumulative)
c1=$(grep '"rank_cumulative": 1}' "$T/bad.json" | tail -n 1 | sed 's/.*"node": "\([^"]*\)".*/\1/')
[ -n "$rc" ] && [ "$rc" -gt 1 ] && [ -n "$c1" ] && [ "$c1" != conv1 ]
ok $? "by cumulative SQNR conv1 is only number $rc; $c1 (deeper) comes first"
above "$(entry "$T/bad.json" conv2 local_sqnr_db)" "$(entry "$T/bad.json" conv2 sqnr_db)" &&
	above "$(entry "$T/bad.json" conv2 local_sqnr_db)" 30 && above 15 "$(entry "$T/bad.json" conv1 local_sqnr_db)"
ok $? "conv2 alone is fine (local $(entry "$T/bad.json" conv2 local_sqnr_db) dB, cumulative $(entry "$T/bad.json" conv2 sqnr_db) dB); conv1 alone is not ($(entry "$T/bad.json" conv1 local_sqnr_db) dB)"
npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --report "$T/good.json" -o "$T/good.ir" &&
	[ "$(field "$T/good.json" layers node 1)" != conv1 ] && above "$(entry "$T/good.json" conv1 local_sqnr_db)" 30
ok $? "without the 3-bit weights conv1 is not the worst layer ($(field "$T/good.json" layers node 1) is)"
npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --config "$T/bad.yaml" -v -o /dev/null 2>"$T/err" &&
	grep -q 'worst  1: conv1  *local SQNR  *[0-9.]* dB  cumulative SQNR' "$T/err"
ok $? "-v lists the worst layers by local SQNR (conv1 first)"
grep -q '"ranking": "local_sqnr_db"' "$T/good.json" &&
	[ "$(field "$T/good.json" outputs tensor 1)" = output_0 ] && [ "$(field "$T/good.json" outputs node 1)" = fc ] &&
	[ "$(field "$T/good.json" outputs dtype 1)" = i8 ]
ok $? "the output's entry describes the int8 layer the final dequantize converts (fc)"

# an output that saturates: fc's range from the 60th percentile, so the
# larger logits are clamped to the int8 limits
printf 'layers:\n  fc: {method: "percentile:60"}\n' >"$T/sat.yaml"
npu-quant "$T/digits.ir" --target int8 --calib "$EX/digits.calib.npy" --config "$T/sat.yaml" \
	--report "$T/sat.json" -o /dev/null &&
	above "$(field "$T/sat.json" outputs saturated 1)" 0.01 && above "$(field "$T/sat.json" outputs clipped 1)" 0.01
ok $? "a clamped output shows saturation ($(field "$T/sat.json" outputs saturated 1)) and clipping ($(field "$T/sat.json" outputs clipped 1))"
[ "$(field "$T/good.json" outputs saturated 1)" = 0 ] && [ "$(field "$T/good.json" outputs clipped 1)" = 0 ]
ok $? "with the full range it does not"

# fp16: inputs times 10000 still fit in half, the convolutions' sums do not
npu-quant "$T/digits.ir" --target grus --eval "$Q/digits.big.npy" --report "$T/f16.json" -o /dev/null
ok $? "fp16 on inputs scaled by 10000 reports"
ov=$(entry "$T/f16.json" conv2 local_f16_overflow)
[ -n "$ov" ] && [ "$ov" -gt 0 ] && [ "$(entry "$T/f16.json" conv1 local_f16_overflow)" = 0 ]
ok $? "conv2 overflows the half range ($ov values), conv1 does not"
[ "$(entry "$T/f16.json" pool local_f16_overflow)" = 0 ] && [ "$(entry "$T/f16.json" pool inf)" -gt 0 ]
ok $? "max_pool after it has inf values ($(entry "$T/f16.json" pool inf)) but overflows nothing itself"
npu-quant "$T/digits.ir" --target grus --eval "$Q/digits.big.npy" -v -o /dev/null 2>"$T/err" &&
	grep -q "^npu-quant: fp16 overflow: node 'conv2' (conv): $ov values beyond the half range became inf\$" "$T/err" &&
	! grep -q "fp16 overflow: node 'pool'" "$T/err"
ok $? "-v names the ops that overflow"
[ "$(field "$T/f16.json" outputs nan 1)" -gt 0 ] && [ "$(field "$T/f16.json" outputs max_abs_err 1)" = 1e999 ] &&
	[ "$(field "$T/f16.json" outputs sqnr_db 1)" = -1e999 ]
ok $? "a NaN output: counted ($(field "$T/f16.json" outputs nan 1)), max_abs_err inf, SQNR -inf (not 0 error)"
npu-quant "$T/digits.ir" --target grus --eval "$EX/digits.calib.npy" --report "$T/f16ok.json" -o /dev/null &&
	! grep -q '"f16_overflow": [1-9]' "$T/f16ok.json" && ! grep -q '"nan": [1-9]' "$T/f16ok.json" &&
	above "$(field "$T/f16ok.json" outputs sqnr_db 1)" 55
ok $? "on the normal inputs: no overflow, no NaN"

# every field npu-quant(1) lists is in the report and vice versa
man_fields=$(sed -n '/^\.SH REPORT/,/^\.SH /p' "$TOP/man/npu-quant.1" | awk '/^\.BR? / { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z][a-z0-9_]*$/) print $i }' | sort -u)
# (with the reference_outputs of a directory of sampleN_inputs/outputs.npz)
npu-import-onnx "$DATA/mixp/model.onnx" | npu-fuse --all | npu-quant --target int8 --calib "$DATA/mixp/set" \
	--report "$T/ref.json" -o /dev/null
json_fields=$(cat "$T/good.json" "$T/ref.json" | grep -o '"[a-z0-9_]*":' | tr -d '":' | sort -u)
[ -n "$man_fields" ] && [ "$man_fields" = "$json_fields" ]
ok $? "npu-quant(1) documents every report field"

done_testing
