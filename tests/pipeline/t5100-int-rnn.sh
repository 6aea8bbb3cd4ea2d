#!/bin/sh
# The integer recurrent cells (GRU_Q / LSTM_Q, npu_rt.h) on trained
# keyword-spotting models (tests/gen/kws_gru.py: GRU(10 -> 48), LSTM(10 ->
# 32) over 49 frames, Linear on out[:, -1]): the float IRs match PyTorch;
# int8 and int16 keep the float accuracy on 200 held-out utterances; the
# emitted header computes npu-run's bytes; --float-layers and --config still
# keep the layer in float; a layer whose int32 sums could overflow is
# refused.
. "$(dirname "$0")/lib.sh"
F=$DATA/families/kws_gru
# npu-eval's figures as "RIGHT N REF_RIGHT MAXERR" (top-1 right, samples,
# the reference's top-1 right and the largest error against it)
evals() {
	npu-eval "$@" >"$T/ev" && awk '{ v[$1] = $2 } END { print v["top1_right"], v["samples"], v["ref_top1_right"], v["max_abs_err"] }' "$T/ev"
}
EX=$TOP/share/npu/examples
CC=${CC:-cc}
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"

npu-import-pt "$F/model.pt" $(cat "$F/args") | npu-fuse --all -v -o "$T/f.ir" 2>"$T/err" &&
	grep -q "gather-slice: rewrote 1 gather" "$T/err" && npu-dump "$T/f.ir" >"$T/d" && ! grep -q ' gather ' "$T/d"
ok $? "kws_gru imports; npu-fuse turns out[:, -1] (gather of one index) into a slice"
npu-run "$T/f.ir" -i "$F/in.npz" --compare "$F/out.npz" --rtol 0 --atol 1e-4 >/dev/null
ok $? "the float IR is within 1e-4 of PyTorch on in.npz"
# float: npu-run's interpreter (npu-eval runs ir_exec as npu-run does)
evals "$T/f.ir" "$F/test.npz" >"$T/acc.f" && read fr n pr err <"$T/acc.f" &&
	[ "$fr" = "$pr" ] && awk -v e="$err" 'BEGIN { exit !(e <= 1e-4) }'
ok $? "float: $fr/$n test utterances right, PyTorch ${pr:-?}/$n, logits within ${err:-?} of PyTorch's"

L=$DATA/families/kws_lstm_pt
npu-import-pt "$L/model.pt" $(cat "$L/args") | npu-fuse --all -o "$T/fl.ir" &&
	npu-run "$T/fl.ir" -i "$L/in.npz" --compare "$L/out.npz" --rtol 0 --atol 1e-4 >/dev/null
ok $? "kws_lstm_pt: the float IR is within 1e-4 of PyTorch on in.npz"
evals "$T/fl.ir" "$F/test.npz" >"$T/acc.fl" && read flr n pr err <"$T/acc.fl" && [ "$flr" -ge 196 ]
ok $? "kws_lstm_pt float: $flr/$n test utterances right (the same test set)"

for cell in gru lstm; do
for mode in int8 int16; do
	case $mode in int8) bits=8;; int16) bits=16;; esac
	case $cell in
	gru) fir=$T/f.ir cal=$F/calib.npz fref=$fr kern=k_gru_q other=k_lstm_q
	     sig="gru  *gru  *i$bits 1x49x10, \[i8 1x144x10\], \[i8 1x144x48\], \[i32 1x288\], -, \[i16 1x1x48\] -> i$bits 1x49x1x48, i16 1x1x48 .*precision=i$bits"
	     what="int16 Q0.15 state";;
	lstm) fir=$T/fl.ir cal=$L/calib.npz fref=$flr kern=k_lstm_q other=k_gru_q
	     sig="gru  *lstm  *i$bits 1x49x10, \[i8 1x128x10\], \[i8 1x128x32\], \[i32 1x256\], -, \[i16 1x1x32\], \[i16 1x1x32\] -> i$bits 1x49x1x32, i16 1x1x32, i16 1x1x32 .*precision=i$bits"
	     what="int16 Q0.15 hidden and calibrated int16 cell state";;
	esac
	q=$T/$cell.$mode.ir
	npu-quant "$fir" --target int8 --bits $bits --calib "$cal" -v -o "$q" 2>"$T/q.$cell.$mode" &&
		npu-dump "$q" >"$T/d" && grep -q "$sig" "$T/d"
	ok $? "$cell $mode: an integer cell (int8 weights per gate row, int32 biases, $what)"
	sq=$(sed -n 's/^npu-quant: worst  *[0-9]*: gru  .*cumulative SQNR  *\([0-9.]*\) dB.*/\1/p' "$T/q.$cell.$mode")
	case $mode in int8) lim=38;; int16) lim=44;; esac
	awk -v s="${sq:-0}" -v l=$lim 'BEGIN { exit !(s >= l) }'
	ok $? "$cell $mode: the layer's output Y has an SQNR of $sq dB against the float layer (at least $lim)"
	evals "$q" "$F/test.npz" >"$T/acc" && read r n pr err <"$T/acc" &&
		awk -v r="$r" -v f="$fref" -v n="$n" 'BEGIN { exit !((f - r) * 100 / n <= 0.3) }'
	ok $? "$cell $mode: $r/$n test utterances right, float $fref/$n (at most 0.3 points lower)"
	# the header: strict C99, npu-run's bytes on five test utterances
	res=0
	npu-emit "$q" --name m -o "$T/npu_m.h" &&
		$CC $STRICT -O2 -DNPU_HEADER='"npu_m.h"' -DNPU_MODEL=npu_m_model -I"$T" "$EX/npu_host.c" -o "$T/host" -lm \
			2>"$T/cc.err" || { diag "$(head -5 "$T/cc.err")"; res=1; }
	grep -q "$kern" "$T/npu_m.h" && ! grep -q "k_gru_f\|k_lstm_f\|$other\|#include <math.h>" "$T/npu_m.h" || res=1
	for k in 0 1 2 3 4; do
		[ $res = 0 ] && npu-eval --sample $k "$F/test.npz" -o "$T/x.npy" && rm -rf "$T/res" && mkdir "$T/res" &&
			"$T/host" run "$T/res" "$T/x.npy" &&
			npu-run "$q" -i "$T/x.npy" --compare "$T/res" --rtol 0 --atol 0 >/dev/null || res=1
	done
	ok $res "$cell $mode: the header compiles ($STRICT), has only its cell's kernel, and computes npu-run's bytes"
done
done

# sums that could overflow int32: refused (int16 inputs), accepted (int8)
npu-import-pt "$DATA/quant/gru_wide.pt" --input 0:1,1,600 -o "$T/w.ir" &&
	npu-quant "$T/w.ir" --target int8 --calib "$DATA/quant/gru_wide.calib.npz" -o "$T/w8.ir" &&
	npu-dump "$T/w8.ir" | grep -q "gru  *gru  *i8 1x1x600, \[i8 1x12x600\]"
ok $? "a GRU with 600 inputs of full-scale weights is an integer cell with int8 inputs"
expect_fail 1 "error: node 'gru' \(gru\): gate row 0's int32 sums could overflow in the integer cell; keep the layer in float \(--float-layers gru\)" \
	"the same with int16 inputs is refused, naming the layer" -- \
	npu-quant "$T/w.ir" --target int8 --bits 16 --calib "$DATA/quant/gru_wide.calib.npz" -o "$T/out"
npu-quant "$T/w.ir" --target int8 --bits 16 --calib "$DATA/quant/gru_wide.calib.npz" --float-layers gru -o "$T/w16.ir"
ok $? "... and quantizes with --float-layers gru"

# streaming (tests/data/quant/gru_stream.*: the KWS GRU as a 7-frame step
# with its state in and out): with --int-io the state input and output have
# one format, so 7 calls feeding h back as h0 run without requantization;
# the header and npu-run agree byte for byte at every call, and the final
# state (Q0.15 codes) is within 0.02 of PyTorch's
S=$DATA/quant/gru_stream
npu-import-onnx "$S.onnx" | npu-fuse --all -o "$T/s.ir" &&
	npu-quant "$T/s.ir" --target int8 --int-io --calib "$S.calib.npz" -o "$T/s8.ir" &&
	npu-emit "$T/s8.ir" --name m -o "$T/npu_m.h" &&
	grep -q "input  1 'h0': i16 \[1,1,48\], 96 bytes, real = 3.05175781e-05 \* (q - 0)" "$T/npu_m.h" &&
	grep -q "output 1 'h': i16 \[1,1,48\], 96 bytes, real = 3.05175781e-05 \* (q - 0)" "$T/npu_m.h"
ok $? "streaming GRU with --int-io: state input and output are both int16 Q0.15"
res=0
$CC $STRICT -O2 -DNPU_HEADER='"npu_m.h"' -DNPU_MODEL=npu_m_model -I"$T" "$EX/npu_host.c" -o "$T/host" -lm 2>"$T/cc.err" &&
	npu-eval --sample 0 "$S.chunks.npz" --key h0 -o "$T/h.npy" || res=1
for k in 0 1 2 3 4 5 6; do
	[ $res = 0 ] && npu-eval --sample $k "$S.chunks.npz" --key x -o "$T/x.npy" && rm -rf "$T/res" && mkdir "$T/res" &&
		"$T/host" run "$T/res" "$T/x.npy" "$T/h.npy" &&
		npu-run "$T/s8.ir" -i "$T/x.npy" -i "$T/h.npy" --compare "$T/res" --rtol 0 --atol 0 >/dev/null &&
		cp "$T/res/h.npy" "$T/h.npy" || res=1
done
ok $res "7 streaming calls, each call's int16 state fed back as is: the header computes npu-run's bytes"
d=$(npu-eval --arrays "$T/h.npy" "$S.h.npz" --key h --print max_abs_err) && awk -v d="$d" 'BEGIN { exit !(d <= 655) }'
ok $? "the final state is within $d / 32768 of PyTorch's (at most 0.02)"

# mixed precision: the GRU kept in float by --float-layers or --config
npu-quant "$T/f.ir" --target int8 --calib "$F/calib.npz" --float-layers gru -v -o "$T/mix.ir" 2>"$T/err" &&
	grep -q "node 'gru' (gru): kept in float: the configuration keeps it in float" "$T/err" &&
	npu-dump "$T/mix.ir" | grep -q "gru  *gru  *f32 1x49x10, \[f32"
ok $? "--float-layers gru keeps the GRU in float32 (float weights), the rest int8"
printf "layers:\n  gru: float\n" >"$T/cfg.yaml"
npu-quant "$T/f.ir" --target int8 --calib "$F/calib.npz" --config "$T/cfg.yaml" -o "$T/mix2.ir" &&
	npu-dump "$T/mix2.ir" | grep -q "gru  *gru  *f32 1x49x10, \[f32" &&
	evals "$T/mix2.ir" "$F/test.npz" >"$T/acc.m" && read r n pr err <"$T/acc.m" && [ "$r" -ge $((fr - 1)) ]
ok $? "--config precision f32 does the same; $r/$n right"

done_testing
