#!/bin/sh
# The runtime's spatial kernels on a tiny encoder-decoder segmenter
# (tests/gen/segmenter.py: strided convs, PReLU per channel and shared, a
# transposed convolution, nearest and bilinear upsampling): close to
# PyTorch in fp32, int8, int16 and fp16; integer prelu, conv_transpose,
# nearest and bilinear resize (no float islands); and the
# emitted header compiles as strict C99 and equals npu-run byte for byte.
. "$(dirname "$0")/lib.sh"
EX=$TOP/share/npu/examples
F=$DATA/families/unet_prelu
CC=${CC:-cc}
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"
probe_m32

npu-import-pt "$F/model.pt" $(cat "$F/args") | npu-fuse --all >"$T/seg.ir" &&
	npu-run "$T/seg.ir" -i "$F/in.npz" --compare "$F/out.npz" >/dev/null
ok $? "segmenter: imports, and the interpreter matches PyTorch"

HOSTCC=$CC
build_host() {	# build_host HEADER OUT [CFLAGS...], compiled with $HOSTCC
	h=$1 out=$2; shift 2
	$HOSTCC $STRICT -O2 "$@" -DNPU_HEADER="\"$(basename "$h")\"" -DNPU_MODEL=npu_m_model -I"$(dirname "$h")" \
		"$EX/npu_host.c" -o "$out" -lm 2>"$T/cc.err" || { diag "$(head -5 "$T/cc.err")"; return 1; }
}
for mode in int8 int16 fp16; do
	# tolerances against PyTorch: relative to max|ref| (about 0.43)
	case $mode in
	int8) tg="--target int8"; rtol=0.03; kern="k_conv_t_q k_prelu_q k_resize";;
	int16) tg="--target int8 --bits 16"; rtol=0.01; kern="k_conv_t_q k_prelu_q k_resize";;
	fp16) tg="--target grus"; rtol=0.002; kern="k_conv_t_f k_resize k_eltwise_f";;
	esac
	npu-quant "$T/seg.ir" $tg --calib "$F/calib.npz" -o "$T/seg.$mode.ir" 2>"$T/qerr" &&
		npu-run "$T/seg.$mode.ir" -i "$F/in.npz" --compare "$F/out.npz" --rtol $rtol --atol 0 >"$T/cmp"
	ok $? "segmenter $mode: within $rtol of PyTorch ($(sed -n 's/.*relative \([^ ]*\) .*/\1/p' "$T/cmp"))"
	if [ $mode != fp16 ]; then
		npu-dump "$T/seg.$mode.ir" >"$T/dump"
		n=$(grep -c ' \(prelu\|conv_transpose\|resize\) .*-> i[18]' "$T/dump")
		[ "$n" = 6 ] && ! grep -q 'precision=f32' "$T/dump"
		ok $? "segmenter $mode: prelu, conv_transpose, nearest and bilinear resize in integers ($n of 6)"
	fi
	rm -rf "$T/res" && mkdir "$T/res" &&
		npu-emit "$T/seg.$mode.ir" --name m -o "$T/npu_m.h" && build_host "$T/npu_m.h" "$T/host" &&
		"$T/host" run "$T/res" "$F/in.x.npy" &&
		npu-run "$T/seg.$mode.ir" -i "$F/in.x.npy" --compare "$T/res" --rtol 0 --atol 0 >/dev/null
	ok $? "segmenter $mode: the header compiles ($STRICT) and equals npu-run byte for byte"
	if [ $M32 = 1 ]; then
		HOSTCC=$CC32
		rm -rf "$T/res" && mkdir "$T/res" && build_host "$T/npu_m.h" "$T/host32" -msse2 -mfpmath=sse &&
			"$T/host32" run "$T/res" "$F/in.x.npy" &&
			npu-run "$T/seg.$mode.ir" -i "$F/in.x.npy" --compare "$T/res" --rtol 0 --atol 0 >/dev/null
		ok $? "segmenter $mode: the same with -m32"
		HOSTCC=$CC
	else
		ok 0 "segmenter $mode: -m32 # SKIP the compiler cannot build 32-bit x86 programs (Debian: gcc-i686-linux-gnu)"
	fi
	res=0
	for k in $kern; do grep -q "$k" "$T/npu_m.h" || { diag "no $k in the header"; res=1; }; done
	[ $mode = fp16 ] || ! grep -q '#include <math.h>' "$T/npu_m.h" || { diag "libm in an integer header"; res=1; }
	ok $res "segmenter $mode: the header has $kern (and no libm for integers)"
done

# the float graph through the runtime's float32 kernels: close to npu-run
npu-emit "$T/seg.ir" --name m -o "$T/npu_m.h" && build_host "$T/npu_m.h" "$T/host" &&
	rm -rf "$T/res" && mkdir "$T/res" && "$T/host" run "$T/res" "$F/in.x.npy" &&
	npu-run "$T/seg.ir" -i "$F/in.x.npy" --compare "$T/res" --rtol 1e-5 --atol 1e-6 >/dev/null
ok $? "segmenter f32: the header matches npu-run"

done_testing
