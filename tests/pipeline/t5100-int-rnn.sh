#!/bin/sh
# The integer recurrent cells (GRU_Q / LSTM_Q, npu_rt.h) on a trained
# keyword-spotting GRU (tests/gen/kws_gru.py: GRU(10 -> 48) over 49 frames,
# Linear on out[:, -1]): the float IR matches PyTorch; int8 and int16 keep
# the float accuracy on 200 held-out utterances; the emitted header computes
# npu-run's bytes; --float-layers still keeps the GRU in float.
. "$(dirname "$0")/lib.sh"
F=$DATA/families/kws_gru
EVAL=${NPU_TESTS:-$TOP/build/rel/tests}/npu_eval
EX=$TOP/share/npu/examples
CC=${CC:-cc}
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"

npu-import-pt "$F/model.pt" $(cat "$F/args") | npu-fuse --all -v -o "$T/f.ir" 2>"$T/err" &&
	grep -q "gather: rewrote as 1 slice" "$T/err" && npu-dump "$T/f.ir" >"$T/d" && ! grep -q ' gather ' "$T/d"
ok $? "kws_gru imports; npu-fuse turns out[:, -1] (gather of one index) into a slice"
npu-run "$T/f.ir" -i "$F/in.npz" --compare "$F/out.npz" --rtol 0 --atol 1e-4 >/dev/null
ok $? "the float IR is within 1e-4 of PyTorch on in.npz"
# float: npu-run's interpreter (npu_eval runs ir_exec as npu-run does)
"$EVAL" "$T/f.ir" "$F/test.npz" >"$T/acc.f" && read fr n pr err <"$T/acc.f" &&
	[ "$fr" = "$pr" ] && awk -v e="$err" 'BEGIN { exit !(e <= 1e-4) }'
ok $? "float: $fr/$n test utterances right, PyTorch ${pr:-?}/$n, logits within ${err:-?} of PyTorch's"

for mode in int8 int16; do
	case $mode in int8) bits=8;; int16) bits=16;; esac
	npu-quant "$T/f.ir" --target int8 --bits $bits --calib "$F/calib.npz" -v -o "$T/$mode.ir" 2>"$T/q.$mode" &&
		npu-dump "$T/$mode.ir" >"$T/d" &&
		grep -q "gru  *gru  *i$bits 1x49x10, \[i8 1x144x10\], \[i8 1x144x48\], \[i32 1x288\], -, \[i16 1x1x48\] -> i$bits 1x49x1x48, i16 1x1x48 .*precision=i$bits" "$T/d"
	ok $? "$mode: the GRU runs as an integer cell (int8 weights per gate row, int32 biases, int16 Q0.15 state)"
	sq=$(sed -n 's/^npu-quant: worst  *[0-9]*: gru  *SQNR  *\([0-9.]*\) dB.*/\1/p' "$T/q.$mode")
	case $mode in int8) lim=38;; int16) lim=44;; esac
	awk -v s="${sq:-0}" -v l=$lim 'BEGIN { exit !(s >= l) }'
	ok $? "$mode: the GRU's output Y has an SQNR of $sq dB against the float GRU (at least $lim)"
	"$EVAL" "$T/$mode.ir" "$F/test.npz" >"$T/acc.$mode" && read r n pr err <"$T/acc.$mode" &&
		awk -v r="$r" -v f="$fr" -v n="$n" 'BEGIN { exit !((f - r) * 100 / n <= 0.3) }'
	ok $? "$mode: $r/$n test utterances right, float $fr/$n (at most 0.3 points lower)"
	# the header: strict C99, npu-run's bytes on five test utterances
	res=0
	npu-emit "$T/$mode.ir" --name m -o "$T/npu_m.h" &&
		$CC $STRICT -O2 -DNPU_HEADER='"npu_m.h"' -DNPU_MODEL=npu_m_model -I"$T" "$EX/npu_host.c" -o "$T/host" -lm \
			2>"$T/cc.err" || { diag "$(head -5 "$T/cc.err")"; res=1; }
	grep -q 'k_gru_q' "$T/npu_m.h" && ! grep -q 'k_gru_f\|k_lstm_q\|#include <math.h>' "$T/npu_m.h" || res=1
	for k in 0 1 2 3 4; do
		[ $res = 0 ] && "$EVAL" --sample $k "$F/test.npz" "$T/x.npy" && rm -rf "$T/res" && mkdir "$T/res" &&
			"$T/host" run "$T/res" "$T/x.npy" &&
			npu-run "$T/$mode.ir" -i "$T/x.npy" --compare "$T/res" --rtol 0 --atol 0 >/dev/null || res=1
	done
	ok $res "$mode: the header compiles ($STRICT), only GRU_Q of the cells, and computes npu-run's bytes"
done

# mixed precision: the GRU kept in float by --float-layers or --config
npu-quant "$T/f.ir" --target int8 --calib "$F/calib.npz" --float-layers gru -v -o "$T/mix.ir" 2>"$T/err" &&
	grep -q "node 'gru' (gru): kept in float: the configuration keeps it in float" "$T/err" &&
	npu-dump "$T/mix.ir" | grep -q "gru  *gru  *f32 1x49x10, \[f32"
ok $? "--float-layers gru keeps the GRU in float32 (float weights), the rest int8"
printf "layers:\n  gru: float\n" >"$T/cfg.yaml"
npu-quant "$T/f.ir" --target int8 --calib "$F/calib.npz" --config "$T/cfg.yaml" -o "$T/mix2.ir" &&
	npu-dump "$T/mix2.ir" | grep -q "gru  *gru  *f32 1x49x10, \[f32" &&
	"$EVAL" "$T/mix2.ir" "$F/test.npz" >"$T/acc.m" && read r n pr err <"$T/acc.m" && [ "$r" -ge $((fr - 1)) ]
ok $? "--config precision f32 does the same; $r/$n right"

done_testing
