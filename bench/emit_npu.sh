#!/bin/sh
# emit_npu.sh MODEL DIR build | run [RUNS] [fp32] - npukit's side of bench/emit.sh.
#   build: the float TorchScript DIR/MODEL.pt (exported by emit.py --export
#          DIR) through import, fuse, int8 quantization on
#          DIR/MODEL.calib.npy and npu-emit; prints the header size and the
#          arena (activations, kernel scratch, weights: npu-emit -v), then
#          builds the header with the host program ($CC, default cc, with
#          $NPU_CFLAGS, default -O2: the portable build) and prints the
#          compile's wall and CPU time and peak memory (/usr/bin/time).
#          $NPU_EMIT_FLAGS go to npu-emit (e.g. --scratch-max BYTES: the int8
#          target's 1 MiB SRAM leaves resnet18 45 KiB of scratch).
#          $NPU_BASE_CFLAGS: also DIR/host_MODEL_base, built with those.
#          $NPU_LAYOUT=nhwc: npu-layout --to nhwc after npu-fuse (the
#          channel-last pipeline: CONV_NHWC_Q and its neighbours);
#          $NPU_BASE_LAYOUT: the base build's header from its own pipeline
#          with that layout (nchw: none), so one run times channel-last
#          against channel-first in the same rounds.
#   run:   times the built program on DIR/MODEL.input.npy: "ms: MEDIAN"
#          of RUNS runs (default 5) after one warm-up run (NPU_SIDE=base:
#          host_MODEL_base).
#   fp32:  the same for the unquantized float32 graph (no npu-quant; the
#          program is DIR/host_MODEL_fp32, beside the int8 one).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${NPU_BIN:-$TOP/bin}
m=$1 d=$2 what=$3 runs=${4:-${NPU_RUNS:-5}} mode=${5:-int8}
case $runs in fp32) mode=fp32 runs=${NPU_RUNS:-5};; esac
CC=${CC:-cc}
sfx=""; [ "$mode" = fp32 ] && sfx=_fp32
if [ "$what" = run ]; then	# NPU_SIDE=base: the $NPU_BASE_CFLAGS build
	exec "$d/host_$m$sfx${NPU_SIDE:+_$NPU_SIDE}" bench "$d/$m.input.npy" "$runs"
fi
# the quantized IR DIR/$2.q.ir of model $1 with layout $3 (nhwc, or
# nchw / empty: as imported)
pipeline() {
	"$B/npu-import-pt" "$d/$1.pt" --input 0:1,3,224,224 | "$B/npu-fuse" --all -o "$d/$2.ir"
	if [ "$3" = nhwc ]; then
		"$B/npu-layout" "$d/$2.ir" --to nhwc -o "$d/$2.l.ir"
		mv "$d/$2.l.ir" "$d/$2.ir"
	fi
	if [ "$mode" = fp32 ]; then
		cp "$d/$2.ir" "$d/$2.q.ir"
	else
		"$B/npu-quant" "$d/$2.ir" --target int8 --calib "$d/$1.calib.npy" -o "$d/$2.q.ir"
	fi
}
pipeline "$m" "$m$sfx" "${NPU_LAYOUT:-}"
base_hdr=""
if [ -n "${NPU_BASE_CFLAGS:-}" ] && [ -n "${NPU_BASE_LAYOUT:-}" ]; then
	pipeline "$m" "${m}${sfx}_base" "$NPU_BASE_LAYOUT"
	# shellcheck disable=SC2086
	"$B/npu-emit" -v "$d/${m}${sfx}_base.q.ir" --name bench ${NPU_EMIT_FLAGS:-} -o "$d/npu_${m}${sfx}_base.h" \
		2>"$d/${m}${sfx}_base.emit.log"
	base_hdr=npu_${m}${sfx}_base.h
	echo "base header (layout $NPU_BASE_LAYOUT): $(wc -c <"$d/$base_hdr") bytes"
	sed -n 's/.*: arena \([0-9]*\) bytes (activations \([0-9]*\) + kernel scratch \([0-9]*\)), weights \([0-9]*\) bytes.*/base arena: \1 bytes = activations \2 + kernel scratch \3; weights \4 bytes/p' "$d/${m}${sfx}_base.emit.log"
fi
m=$m$sfx
# shellcheck disable=SC2086  # NPU_EMIT_FLAGS is a word list (e.g. --scratch-max 4194304)
"$B/npu-emit" -v "$d/$m.q.ir" --name bench ${NPU_EMIT_FLAGS:-} -o "$d/npu_$m.h" 2>"$d/$m.emit.log"
echo "header: $(wc -c <"$d/npu_$m.h") bytes"
sed -n 's/.*: arena \([0-9]*\) bytes (activations \([0-9]*\) + kernel scratch \([0-9]*\)), weights \([0-9]*\) bytes.*/arena: \1 bytes = activations \2 + kernel scratch \3; weights \4 bytes/p' "$d/$m.emit.log"
sed -n 's/.*arena: *[0-9]* bytes, lower bound: *\([0-9]*\) bytes.*ratio \([0-9.]*\)$/arena: activations lower bound \1 bytes (plan ratio \2)/p' "$d/$m.emit.log"
# shellcheck disable=SC2086  # NPU_CFLAGS is a word list
/usr/bin/time -f "%e %U %S %M" -o "$d/$m.cc.time" $CC -std=c99 ${NPU_CFLAGS:--O2} -DNPU_HEADER="\"npu_$m.h\"" \
	-DNPU_MODEL=npu_bench_model -I"$d" "$TOP/share/npu/examples/npu_host.c" -o "$d/host_$m" -lm
read -r wall usr sys rss <"$d/$m.cc.time"
echo "compile: $CC ${NPU_CFLAGS:--O2}: wall $wall s, CPU $(awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') s, peak memory $((rss / 1024)) MB"
if [ -n "${NPU_BASE_CFLAGS:-}" ]; then	# the same header, another build (bench/emit.sh)
	# shellcheck disable=SC2086  # NPU_BASE_CFLAGS is a word list
	$CC -std=c99 $NPU_BASE_CFLAGS -DNPU_HEADER="\"${base_hdr:-npu_$m.h}\"" -DNPU_MODEL=npu_bench_model -I"$d" \
		"$TOP/share/npu/examples/npu_host.c" -o "$d/host_${m}_base" -lm
	echo "compile: base build: $CC $NPU_BASE_CFLAGS${base_hdr:+ ($base_hdr)}"
fi
