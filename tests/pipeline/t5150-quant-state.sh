#!/bin/sh
# Streaming state (npu-quant --state IN=OUT) on the FSMN-style streaming
# model tests/data/tf/fsmn.pb (State_c0 holds the last 3 frames, new_state
# its next value) with the sequences of tests/gen/stream_fixtures.py:
# calibrated per frame with an all-zero state, the constant state range is
# a warning (an error with --strict); calibrated over sequences with the
# state fed back, the state input and output share one quantization and,
# run frame by frame with the state fed back, the int8 outputs track the
# float ones far better (SQNR and argmax agreement over 4 x 32 frames
# against the float graph run the same way). The same on a trained
# streaming keyword spotter from PyTorch via ONNX (tests/gen/kws_stream.py):
# int8 accuracy as float's with sequence calibration, most of it lost with
# zero-cache calibration. Statistics read with --stats-in are tied per
# state pair like sequence calibration's.
. "$(dirname "$0")/lib.sh"
Q=$DATA/quant/fsmn_stream
# npu-eval over sequences, the state fed back: "SQNR AGREE FRAMES" of
# QIR's first output against FIR's frame by frame, then with labels
# "QRIGHT FRIGHT" (the last frame's argmax) and with the framework's logits
# FIR's largest error against them
streams() {	# QIR FIR SEQ.npz IN=OUT
	npu-eval "$1" --ref "$2" "$3" --stream "$4" >"$T/ev" && npu-eval -q "$2" "$3" --stream "$4" >"$T/ev2" &&
		awk '{ v[$1] = $2 } END { printf "%s %s %s", v["sqnr_db"], v["agree_frames"], v["compared_frames"]
			if ("top1_right" in v) printf " %s %s", v["top1_right"], v["ref_top1_right"] }' "$T/ev" &&
		awk '$1 == "max_abs_err" { printf " %s", $2 } END { print "" }' "$T/ev2"
}

npu-import-tf "$DATA/tf/fsmn.pb" --input Feats:1,1,16 --input State_c0:1,3,16 --output Result \
	--state State_c0=new_state -o "$T/f.ir"
ok $? "the streaming model imports with its state"

# zero-state calibration: exit 0, one warning naming the input
npu-quant "$T/f.ir" --target int8 --calib "$Q.zero.npz" -o "$T/z.ir" 2>"$T/err" &&
	[ "$(wc -l <"$T/err")" -eq 1 ] &&
	grep -q "^npu-quant: .*f.ir: input 'State_c0': warning: calibrated range is constant (0 \.\. 0): hint: .*calibrate over sequences with --state IN=OUT\$" "$T/err"
ok $? "zero-state calibration warns that State_c0's range is constant (0 .. 0)"
npu-quant "$T/f.ir" --target int8 --calib "$Q.zero.npz" -q -o "$T/zq.ir" 2>"$T/err" && [ ! -s "$T/err" ]
ok $? "... not with -q"
expect_fail 1 "^npu-quant: .*f.ir: input 'State_c0': error: calibrated range is constant \(0 \.\. 0\): hint: " \
	"... and with --strict it is an error" -- \
	npu-quant "$T/f.ir" --target int8 --calib "$Q.zero.npz" --strict -o "$T/out"

# sequence calibration: silent, and one format for the state in and out
npu-quant "$T/f.ir" --target int8 --state State_c0=new_state --calib "$Q.seq.npz" --strict -o "$T/s.ir" 2>"$T/err" &&
	[ ! -s "$T/err" ]
ok $? "--state State_c0=new_state: calibrated over 6 sequences of 20 frames, no warning even with --strict"
npu-quant "$T/f.ir" --target int8 --int-io --state State_c0=new_state --calib "$Q.seq.npz" -o "$T/si.ir" &&
	npu-emit "$T/si.ir" --name m -o "$T/m.h" &&
	a=$(sed -n "s/.*input  1 'State_c0': i8 \[1,3,16\], 48 bytes, real = \(.*\)/\1/p" "$T/m.h") &&
	b=$(sed -n "s/.*output 1 'new_state': i8 \[1,3,16\], 48 bytes, real = \(.*\)/\1/p" "$T/m.h") &&
	[ -n "$a" ] && [ "$a" = "$b" ]
ok $? "with --int-io State_c0 and new_state are both int8 'real = ${a:-?}'"

# statistics written without --state (frames alone: State_c0 constant 0,
# new_state not) are tied again when read with --state: one format
npu-quant "$T/f.ir" --target int8 --calib "$Q.zero.npz" -q --stats-out "$T/zero.stats" -o "$T/zs.ir" &&
	npu-quant "$T/f.ir" --target int8 --int-io --state State_c0=new_state --stats-in "$T/zero.stats" \
		-o "$T/st.ir" 2>"$T/err" && [ ! -s "$T/err" ] &&
	npu-emit "$T/st.ir" --name m -o "$T/st.h" &&
	a=$(sed -n "s/.*input  1 'State_c0': i8 \[1,3,16\], 48 bytes, real = \(.*\)/\1/p" "$T/st.h") &&
	b=$(sed -n "s/.*output 1 'new_state': i8 \[1,3,16\], 48 bytes, real = \(.*\)/\1/p" "$T/st.h") &&
	[ -n "$a" ] && [ "$a" = "$b" ]
ok $? "--stats-in from a run without --state: the pair is tied again, both int8 'real = ${a:-?}', no warning"

# 4 test sequences of 32 frames, each graph feeding its own state back
streams "$T/z.ir" "$T/f.ir" "$Q.test.npz" State_c0=new_state >"$T/z.acc" && read zs za n <"$T/z.acc" &&
	streams "$T/s.ir" "$T/f.ir" "$Q.test.npz" State_c0=new_state >"$T/s.acc" && read ss sa n <"$T/s.acc" &&
	streams "$T/si.ir" "$T/f.ir" "$Q.test.npz" State_c0=new_state >"$T/si.acc" && read is ia n <"$T/si.acc" &&
	awk -v z="$zs" -v s="$ss" -v i="$is" 'BEGIN { exit !(s >= 20 && s >= z + 10 && i - s < 0.005 && s - i < 0.005) }' &&
	[ "$sa" -ge $((n * 9 / 10)) ] && [ "$sa" -gt "$za" ]
ok $? "frame by frame: SQNR ${ss:-?} dB, argmax as float's ${sa:-?}/${n:-?} (zero-state calibration: ${zs:-?} dB, ${za:-?}/${n:-?}; --int-io with the int8 state fed back as is: ${is:-?} dB)"

# the same with npu-run over the first test sequence, the state fed back
# from --dump-dir: after 32 frames the sequence-calibrated Result is closer
# to the float one than the zero-state-calibrated one
res=0
for m in f z s; do
	st=new_state_dequantize
	[ $m = f ] && st=new_state
	npu-eval --sample 0 "$Q.test.npz" --key zero -o "$T/h.npy" || res=1
	k=0
	while [ $res = 0 ] && [ $k -lt 32 ]; do
		npu-eval --sample $k "$Q.test.npz" --key frames -o "$T/x.npy" && rm -rf "$T/dd" &&
			npu-run "$T/$m.ir" -i "$T/x.npy" -i "$T/h.npy" --dump-dir "$T/dd" -o "$T/$m.out.npz" &&
			cp "$T/dd/$st.npy" "$T/h.npy" || res=1
		k=$((k + 1))
	done
	[ $m = f ] || cp "$T/dd/Result_dequantize.npy" "$T/$m.res.npy" || res=1
done
[ $res = 0 ] && dz=$(npu-eval --arrays "$T/z.res.npy" "$T/f.out.npz" --key Result --print max_abs_err) &&
	ds=$(npu-eval --arrays "$T/s.res.npy" "$T/f.out.npz" --key Result --print max_abs_err) &&
	awk -v z="$dz" -v s="$ds" 'BEGIN { exit !(s <= 0.15 && s < z / 4) }' || res=1
ok $res "npu-run, 32 frames with the state fed back: final Result within ${ds:-?} of float's (zero-state calibration: ${dz:-?})"

# a trained streaming keyword spotter (tests/gen/kws_stream.py: FSMN-style
# memory of 12 hidden frames as cache_in/cache_out, 4 classes, 24 frames an
# utterance) from ONNX, where only npu-quant --state declares the state:
# the float graph run frame by frame matches PyTorch and gets 200/200
# held-out utterances; zero-cache calibration warns and loses most of
# them; sequence calibration keeps the float accuracy (within 0.5 pp)
K=$DATA/quant/kws_stream
npu-import-onnx "$K.onnx" | npu-fuse --all -o "$T/k.ir" &&
	npu-quant "$T/k.ir" --target int8 --calib "$K.zero.npz" -o "$T/kz.ir" 2>"$T/err" &&
	grep -q "input 'cache_in': warning: calibrated range is constant (0 \.\. 0): hint: if it is recurrent state, calibrate over sequences with --state IN=OUT" "$T/err" &&
	streams "$T/kz.ir" "$T/k.ir" "$K.test.npz" cache_in=cache_out >"$T/kz.acc" &&
	read zs za n zr fr err <"$T/kz.acc" && [ "$fr" -eq 200 ] && awk -v e="$err" 'BEGIN { exit !(e <= 1e-4) }'
ok $? "kws_stream: float frame by frame ${fr:-?}/200 right, logits within ${err:-?} of PyTorch's; zero-cache int8 calibration warns"
npu-quant "$T/k.ir" --target int8 --int-io --state cache_in=cache_out --calib "$K.seq.npz" --strict -o "$T/ks.ir" &&
	streams "$T/ks.ir" "$T/k.ir" "$K.test.npz" cache_in=cache_out >"$T/ks.acc" &&
	read ss sa n sr fr err <"$T/ks.acc" && [ $((fr - sr)) -le 1 ] && [ "$zr" -lt 150 ] &&
	awk -v z="$zs" -v s="$ss" 'BEGIN { exit !(s >= z + 10) }'
ok $? "kws_stream int8 over sequences (--int-io, the int8 cache fed back): ${sr:-?}/200 right, SQNR ${ss:-?} dB; zero-cache calibration: ${zr:-?}/200, ${zs:-?} dB"

# the integer GRU keeps its fixed int16 Q0.15 state with --state: the
# streaming GRU of t5100 with its calibration data read as 64 sequences of
# one step each starting from the given h0 ([N, ...] initial states)
S=$DATA/quant/gru_stream
npu-import-onnx "$S.onnx" | npu-fuse --all -o "$T/g.ir" &&
	npu-quant "$T/g.ir" --target int8 --int-io --state h0=h --calib "$S.calib.npz" -v -o "$T/g8.ir" 2>"$T/err" &&
	grep -q "calibrated on 64 sequences, 64 steps" "$T/err" &&
	npu-emit "$T/g8.ir" --name m -o "$T/g.h" &&
	grep -q "input  1 'h0': i16 \[1,1,48\], 96 bytes, real = 3.05175781e-05 \* (q - 0)" "$T/g.h" &&
	grep -q "output 1 'h': i16 \[1,1,48\], 96 bytes, real = 3.05175781e-05 \* (q - 0)" "$T/g.h"
ok $? "--state h0=h on the streaming GRU: initial states from the data, h0 and h stay int16 Q0.15"

# bad --state and sequence data
expect_fail 2 "^npu-quant: --state 'State_c0': expected IN=OUT" "--state without =OUT (usage)" -- \
	npu-quant "$T/f.ir" --target int8 --state State_c0 --calib "$Q.seq.npz" -o "$T/out"
expect_fail 1 "^npu-quant: .*f.ir: error: --state nosuch=new_state: 'nosuch' is no input of the graph" "--state naming no input" -- \
	npu-quant "$T/f.ir" --target int8 --state nosuch=new_state --calib "$Q.seq.npz" -o "$T/out"
expect_fail 1 "^npu-quant: .*f.ir: error: --state State_c0=Result: the input is f32 1x3x16, the output f32 1x8" \
	"--state pairing tensors of different sizes" -- \
	npu-quant "$T/f.ir" --target int8 --state State_c0=Result --calib "$Q.seq.npz" -o "$T/out"
expect_fail 1 "^npu-quant: .*fsmn_stream.test.npz: error: no array for input 'Feats'" "sequences without the input's array" -- \
	npu-quant "$T/f.ir" --target int8 --state State_c0=new_state --calib "$Q.test.npz" -o "$T/out"

done_testing
