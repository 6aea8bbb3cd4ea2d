#!/bin/sh
# A tiny self-attention block (tests/gen/attention.py: q k^T / sqrt(d),
# softmax over the last axis, times v, argmax of the output) through the
# whole pipeline: import, npu-fuse --all, npu-quant (float, int8, grus),
# npu-emit; the header compiles as strict C99 and it (and the binary
# model) equals npu-run byte for byte; the float runtime is within 1e-4 of
# PyTorch.
. "$(dirname "$0")/lib.sh"
F=$DATA/families/attn_block
EX=$TOP/share/npu/examples
CC=${CC:-cc}
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"

npu-import-onnx "$F/model.onnx" $(cat "$F/args") | npu-fuse --all >"$T/m.ir"
ok $? "the attention block imports and fuses"
printf 'default: {precision: float}\n' >"$T/float.yaml"
npu-quant "$T/m.ir" --target int8 --calib "$F/calib.npz" --config "$T/float.yaml" -o "$T/m.f32.ir" &&
	npu-run "$T/m.f32.ir" -i "$F/in.npz" --compare "$F/out.npz" --rtol 1e-4 --atol 0 >/dev/null
ok $? "float32 through the runtime (matmul of two activations, softmax, argmax): within 1e-4 of PyTorch"
npu-quant "$T/m.ir" --target int8 --calib "$F/calib.npz" -o "$T/m.int8.ir" &&
	npu-dump "$T/m.int8.ir" | grep -c ' matmul .*i8 1x2x.*-> i8 .*precision=i8' >"$T/n" && [ "$(cat "$T/n")" = 2 ]
ok $? "int8: both attention matmuls run in integers"
npu-quant "$T/m.ir" --target grus --calib "$F/calib.npz" -o "$T/m.grus.ir"
ok $? "grus: quantizes"
for mode in f32 int8 grus; do
	# int8: the softmax island and 8-bit attention weights cost a few percent
	case $mode in f32) tol=1e-4;; int8) tol=0.05;; grus) tol=0.005;; esac
	npu-run "$T/m.$mode.ir" -i "$F/in.npz" --compare "$F/out.npz" --rtol $tol >/dev/null
	ok $? "$mode: npu-run within $tol of PyTorch (and the same argmax)"
	rm -rf "$T/res" && mkdir "$T/res" &&
		npu-emit "$T/m.$mode.ir" --name m -o "$T/npu_m.h" &&
		$CC $STRICT -O2 -DNPU_HEADER='"npu_m.h"' -DNPU_MODEL=npu_m_model -I"$T" "$EX/npu_host.c" -o "$T/host" -lm \
			2>"$T/cc.err" && "$T/host" run "$T/res" "$F/x.npy" &&
		npu-run "$T/m.$mode.ir" -i "$F/in.npz" --compare "$T/res" --rtol 0 --atol 0 >/dev/null
	ok $? "$mode: the header compiles ($STRICT) and equals npu-run byte for byte $(head -3 "$T/cc.err" 2>/dev/null)"
done
# the binary model: npu_load accepts the new kernels (and the int64 output)
$CC $STRICT -O2 -I"$TOP/share/npu/runtime" "$EX/npu_host.c" -o "$T/hostbin" -lm &&
	rm -rf "$T/res" && mkdir "$T/res" && npu-emit "$T/m.int8.ir" --format bin -o "$T/m.bin" &&
	"$T/hostbin" "$T/m.bin" run "$T/res" "$F/x.npy" &&
	npu-run "$T/m.int8.ir" -i "$F/in.npz" --compare "$T/res" --rtol 0 --atol 0 >/dev/null
ok $? "int8 --format bin: npu_load runs it to npu-run's bytes"
done_testing
