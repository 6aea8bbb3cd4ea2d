#!/bin/sh
# A BlazeFace/SSD-shaped detector against PyTorch's post-training
# quantization (issue 13). tests/data/quant/detector (tests/gen/detector_ptq.py):
# a trained depthwise-separable detector whose box and class heads at two
# scales (very different ranges) are permuted, reshaped and concatenated
# into boxes [1,160,4] (output_0) and class logits [1,160,3] (output_1);
# torch.txt holds the SQNR of torch FX PTQ (prepare_fx/convert_fx, every
# engine and qconfig tried, calibrated on calib.npz) on eval.npz, computed
# by PyTorch at generation time. npu-quant --target int8 calibrated on the
# same calib.npz must give, on eval.npz (--report: 10 log10(sum ref^2 /
# sum err^2) over all samples, as torch.txt), at least the best torch SQNR
# + 1 dB on both outputs with the default method and with minmax; the
# other methods' SQNRs are printed as TAP diagnostics.
. "$(dirname "$0")/lib.sh"
D=$DATA/quant/detector

npu-import-pt "$D/model.pt" --input 0:1,3,64,64 -o "$T/d.ir" && npu-fuse --all "$T/d.ir" -o "$T/f.ir"
ok $? "the detector imports and fuses"
npu-run "$T/f.ir" -i "$D/in.npz" --compare "$D/out.npz" --rtol 1e-4 --atol 1e-4 -q
ok $? "its float graph computes PyTorch's boxes and logits"

# sqnr REPORT.json: "TENSOR DB" per output of the report
sqnr() {
	sed -n '/"outputs"/,/"layers"/p' "$1" | grep '"tensor"' |
		sed 's/.*"tensor": "\([^"]*\)".*"sqnr_db": \([-0-9.e]*\).*/\1 \2/'
}
floor() { awk -v o="$1" '$1 == "best" && $2 == o { print $3 + 1 }' "$D/torch.txt"; }
f0=$(floor output_0) f1=$(floor output_1)
[ -n "$f0" ] && [ -n "$f1" ]
ok $? "torch.txt gives PyTorch's best SQNR of both outputs"
diag "floors (torch best + 1 dB): output_0 $f0 dB, output_1 $f1 dB"

for m in default minmax mse percentile:99.99 kld aciq averaging; do
	arg="--method $m"
	[ $m = default ] && arg=
	# shellcheck disable=SC2086  # arg is a word list
	npu-quant "$T/f.ir" --target int8 $arg --calib "$D/calib.npz" --eval "$D/eval.npz" \
		--report "$T/r.json" -o "$T/q.ir" 2>"$T/err" && sqnr "$T/r.json" >"$T/$m.db"
	st=$?
	[ $st = 0 ] || diag "$m: $(head -n 1 "$T/err")"
	ok $st "npu-quant $m: quantizes, a report with both outputs"
	diag "$m: $(tr '\n' ' ' <"$T/$m.db")"
	case $m in default|minmax) ;; *) continue;; esac
	bad=$(awk -v f0="$f0" -v f1="$f1" '($1 == "output_0" && $2 < f0) || ($1 == "output_1" && $2 < f1) { print }' "$T/$m.db")
	[ -z "$bad" ] && [ "$(wc -l <"$T/$m.db")" -eq 2 ]
	st=$?
	[ $st = 0 ] || diag "$m below PyTorch + 1 dB: $bad"
	ok $st "npu-quant $m: SQNR of boxes and logits >= PyTorch's best + 1 dB"
done
# the default is mse (npu-quant(1))
cmp -s "$T/default.db" "$T/mse.db"
ok $? "the default method is mse"

done_testing
