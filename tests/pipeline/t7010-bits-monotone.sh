#!/bin/sh
# More bits never cost accuracy (issue 13): on every model family
# (tests/data/families/NAME/, layout in t7000-families.sh) the graph after
# npu-fuse --all is quantized by npu-quant --target int8 with calib.npz at
# a8w8, a8w16 (--weight-bits 16), a16w8 (--bits 16) and a16w16, and
# --report gives every output's SQNR against the float graph over the
# calibration samples (the quantized graph runs through the runtime, as
# npu-run runs it; one sample alone moves an SQNR by a dB or two when the
# weights' rounding changes). Going from fewer to more activation or weight
# bits (a8w8 -> a8w16, a8w8 -> a16w8, a8w16 -> a16w16, a16w8 -> a16w16)
# must not lose more than $MARGIN dB on any output. The SQNR table is
# printed as TAP diagnostics.
. "$(dirname "$0")/lib.sh"
MARGIN=0.5

# sqnr REPORT.json: "TENSOR DB" per output of the report
sqnr() {
	sed -n '/"outputs"/,/"layers"/p' "$1" | grep '"tensor"' |
		sed 's/.*"tensor": "\([^"]*\)".*"sqnr_db": \([-0-9.e]*\).*/\1 \2/'
}

cfg_args() {
	case $1 in
	a8w8) echo "";; a8w16) echo "--weight-bits 16";; a16w8) echo "--bits 16";;
	a16w16) echo "--bits 16 --weight-bits 16";;
	esac
}

for dir in "$DATA"/families/*/; do
	n=$(basename "$dir")
	fm=$(family_model "$dir") || { ok 1 "$n: no model.pt, model.onnx, model.pb or model.json"; continue; }
	imp=${fm% *} model=${fm#* }
	# shellcheck disable=SC2046  # args is a word list
	$imp "$dir/$model" $(cat "$dir/args") -o "$T/$n.ir" 2>"$T/err" &&
		npu-fuse --all "$T/$n.ir" -o "$T/$n.f.ir" 2>>"$T/err"
	st=$?
	[ $st = 0 ] || diag "$n: $(head -n 1 "$T/err")"
	ok $st "$n: import, npu-fuse --all"
	[ $st = 0 ] || continue
	good=0
	for c in a8w8 a8w16 a16w8 a16w16; do
		# shellcheck disable=SC2046  # cfg_args is a word list
		npu-quant "$T/$n.f.ir" --target int8 $(cfg_args $c) --calib "$dir/calib.npz" --report "$T/$n.$c.json" \
			-o "$T/$n.$c.ir" 2>"$T/err" && sqnr "$T/$n.$c.json" >"$T/$n.$c.db" &&
			[ "$(wc -l <"$T/$n.$c.db")" -eq "$(npu-dump "$T/$n.$c.ir" | sed -n '/^outputs:/,/^nodes:/p' | grep -c '^  ')" ]
		st=$?
		[ $st = 0 ] || { diag "$n $c: $(grep -m1 error "$T/err" || echo "no SQNR for every output")"; good=1; }
		ok $st "$n $c: npu-quant --report, an SQNR per output"
	done
	[ $good = 0 ] || continue
	echo "# $n: $(for c in a8w8 a8w16 a16w8 a16w16; do printf '%s [%s] ' $c "$(tr '\n' ' ' <"$T/$n.$c.db" | sed 's/ $//')"; done)"
	for pair in a8w8:a8w16 a8w8:a16w8 a8w16:a16w16 a16w8:a16w16; do
		lo=${pair%:*} hi=${pair#*:}
		bad=$(paste "$T/$n.$lo.db" "$T/$n.$hi.db" | awk -v m=$MARGIN '$4 + m < $2 { printf "%s %.2f -> %.2f dB; ", $1, $2, $4 }')
		[ -z "$bad" ] || diag "$n $lo -> $hi: $bad"
		ok $([ -z "$bad" ]; echo $?) "$n: $lo -> $hi loses no more than $MARGIN dB on any output"
	done
done

# the segmenter's biases at s_x s_w overflow int32 at a16w16 only (issue
# 13: saturated, its SQNR fell below a8w8's): int64 there, int32 elsewhere
convs() { npu-dump "$1" | sed -n '/^nodes:/,$p' | awk '$3 == "conv"' | grep -c "$2"; }
if [ -s "$T/segmenter.a16w16.ir" ] && [ -s "$T/segmenter.a16w8.ir" ]; then
	[ "$(convs "$T/segmenter.a16w16.ir" '\[i64 ')" -gt 0 ] && [ "$(convs "$T/segmenter.a16w8.ir" '\[i64 ')" -eq 0 ]
	ok $? "segmenter: int64 conv biases at a16w16 (beyond int32 at s_x s_w), none at a16w8"
fi

done_testing
