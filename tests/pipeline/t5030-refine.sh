#!/bin/sh
# Weight refinement on a trained model (issue 13): npu-quant --adaround
# and --bias-correction on the detector of tests/data/quant/detector
# (tests/gen/detector_ptq.py) at --weight-bits 4, where rounding matters
# most. SQNR of the boxes (output_0) and class logits (output_1) on the
# held-out eval.npz, against the float graph (--report), must beat nearest
# rounding: AdaRound by 3 dB on the boxes and 1 dB on the logits, bias
# correction by 1 dB on the boxes and not worse on the logits (measured:
# nearest 20.2 / 26.0 dB, --adaround=300 25.4 / 30.8, --bias-correction
# 21.8 / 27.6). The options' usage errors.
. "$(dirname "$0")/lib.sh"
D=$DATA/quant/detector

npu-import-pt "$D/model.pt" --input 0:1,3,64,64 -o "$T/d.ir" && npu-fuse --all "$T/d.ir" -o "$T/f.ir"
ok $? "the detector imports and fuses"

sqnr() {
	sed -n '/"outputs"/,/"layers"/p' "$1" | grep '"tensor"' |
		sed 's/.*"tensor": "\([^"]*\)".*"sqnr_db": \([-0-9.e]*\).*/\1 \2/'
}
for c in nearest adaround bias; do
	case $c in nearest) arg=;; adaround) arg=--adaround=300;; bias) arg=--bias-correction;; esac
	# shellcheck disable=SC2086  # arg is a word list
	npu-quant "$T/f.ir" --target int8 --weight-bits 4 $arg --calib "$D/calib.npz" --eval "$D/eval.npz" \
		--report "$T/$c.json" -o "$T/$c.ir" 2>"$T/err" && sqnr "$T/$c.json" >"$T/$c.db" &&
		[ "$(wc -l <"$T/$c.db")" -eq 2 ] && [ ! -s "$T/err" ]
	st=$?
	[ $st = 0 ] || diag "$c: $(head -n 1 "$T/err")"
	ok $st "w4 $c: quantizes silently, SQNR of both outputs"
	diag "w4 $c: $(tr '\n' ' ' <"$T/$c.db")"
done
# better DB0 DB1 FILE: FILE's SQNRs beat nearest's by DB0 and DB1 dB
better() {
	paste "$T/nearest.db" "$3" | awk -v m0="$1" -v m1="$2" '
		$1 == "output_0" && $4 < $2 + m0 { bad = 1 }
		$1 == "output_1" && $4 < $2 + m1 { bad = 1 }
		END { exit bad }'
}
better 3 1 "$T/adaround.db"
ok $? "w4: AdaRound beats nearest rounding by 3 dB on the boxes and 1 dB on the logits"
better 1 0 "$T/bias.db"
ok $? "w4: bias correction beats nearest rounding by 1 dB on the boxes, not worse on the logits"

# -v names the refined layers
npu-quant "$T/f.ir" --target int8 --bias-correction --calib "$D/calib.npz" -v -o "$T/v.ir" 2>"$T/err" &&
	grep -q "node 'box8' (conv): bias correction\$" "$T/err" &&
	[ "$(grep -c ': bias correction$' "$T/err")" -eq 13 ]
ok $? "-v: every one of the 13 convolutions is bias-corrected"

expect_fail 2 "^npu-quant: --adaround, --bias-correction and --easyquant need --calib samples \(and no --state\)\$" \
	"--adaround without --calib is a usage error" -- \
	npu-quant "$T/f.ir" --target int8 --stats-in /dev/null --adaround -o "$T/out"
expect_fail 2 "^npu-quant: --adaround needs a number from 1 to 1000000, not '0'\$" \
	"--adaround=0 is a usage error" -- \
	npu-quant "$T/f.ir" --target int8 --calib "$D/calib.npz" --adaround=0 -o "$T/out"
expect_fail 2 "^npu-quant: --adaround, --bias-correction and --easyquant need --calib samples \(and no --state\)\$" \
	"--bias-correction with --state is a usage error" -- \
	npu-quant "$T/f.ir" --target int8 --calib "$D/calib.npz" --state x=output_0 --bias-correction -o "$T/out"

done_testing
