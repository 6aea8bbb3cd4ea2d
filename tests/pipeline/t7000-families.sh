#!/bin/sh
# Model families (tests/data/families/NAME/, made by tests/gen/families.py
# and other generators; layout in that script): the pipeline rule of
# DESIGN.md on real models. For each family: import (importer by the model's
# extension) -> the float IR computes the framework's outputs (rtol 1e-4)
# -> npu-fuse --all (still the framework's outputs; a second run changes
# nothing) -> for each target
# (float: no npu-quant; int8; int16; int16w16: --bits 16 --weight-bits 16,
# int64 biases; grus after npu-fuse --all --target
# grus) npu-quant with calib.npz -> npu-emit -> the header compiles as
# strict C99 -> the host program's outputs equal npu-run's byte for byte
# (float: npu-run --mode runtime, the float kernels the header has).
# One TAP line per (family, target, step); a step after a failed one is
# reported as not run. A new family is covered by adding its directory.
. "$(dirname "$0")/lib.sh"
EX=$TOP/share/npu/examples
CC=${CC:-cc}
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"

# step DESC CMD...: run CMD with stderr in $T/err; one TAP line whose
# diagnostic is the command's first error line
step() {
	desc=$1; shift
	"$@" 2>"$T/err" >"$T/stdout"
	st=$?
	[ $st = 0 ] || diag "$desc: $(grep -m1 -i 'error' "$T/err" || head -n 1 "$T/err")"
	ok $st "$desc"
	return $st
}
skipped() { ok 1 "$1 (not run: $2 failed)"; }

build_host() {	# build_host HEADER OUT
	$CC $STRICT -O2 -DNPU_HEADER="\"$(basename "$1")\"" -DNPU_MODEL=npu_m_model -I"$(dirname "$1")" \
		"$EX/npu_host.c" -o "$2" -lm
}

# host_vs_run IR DIR TOL...: the host built in $T/host runs the inputs in
# DIR (one .npy per graph input, in the graph's order); npu-run gets the
# same inputs and compares with the host's outputs within TOL
host_vs_run() {
	hir=$1 hdir=$2; shift 2
	ins=$(npu-dump "$hir" | sed -n '/^inputs:/,/^outputs:/p' | sed '1d;$d' | awk -v d="$hdir" '{ print d "/" $1 ".npy" }')
	rm -rf "$T/res" && mkdir "$T/res" && "$T/host" run "$T/res" $ins &&
		npu-run "$hir" $(for i in $ins; do printf ' -i %s' "$i"; done) --compare "$T/res" "$@"
}

if ! command -v unzip >/dev/null; then
	ok 0 "families # SKIP unzip is needed to give the host program the samples of in.npz"
	done_testing
	exit
fi

for dir in "$DATA"/families/*/; do
	n=$(basename "$dir")
	fm=$(family_model "$dir") || { ok 1 "$n: no model.pt, model.onnx, model.pb or model.json"; continue; }
	imp=${fm% *} model=${fm#* }
	mkdir -p "$T/$n.in" && unzip -o -q "$dir/in.npz" -d "$T/$n.in"
	# shellcheck disable=SC2046  # args is a word list
	if ! step "$n: $imp" $imp "$dir/$model" $(cat "$dir/args") -o "$T/$n.ir"; then
		skipped "$n: float IR matches the framework" import
		skipped "$n: npu-fuse --all" import
		skipped "$n: a second npu-fuse --all changes nothing" import
		for tg in float int8 int16 int16w16 grus; do
			for s in npu-quant npu-emit cc host; do
				[ $tg = float ] && [ $s = npu-quant ] && continue
				skipped "$n $tg: $s" import
			done
		done
		continue
	fi
	step "$n: float IR matches the framework (rtol 1e-4)" \
		npu-run "$T/$n.ir" -i "$dir/in.npz" --compare "$dir/out.npz" --rtol 1e-4
	fused=0
	step "$n: npu-fuse --all, still the framework's outputs (rtol 1e-4)" sh -c \
		'npu-fuse --all "$1" -o "$2" && npu-run "$2" -i "$3" --compare "$4" --rtol 1e-4' - \
		"$T/$n.ir" "$T/$n.fused.ir" "$dir/in.npz" "$dir/out.npz" || fused=1
	if [ $fused = 0 ]; then
		npu-fuse --all "$T/$n.fused.ir" -o "$T/$n.again.ir" &&
			[ "$(npu-dump "$T/$n.fused.ir" | sed -n '/^nodes:/,$p')" = "$(npu-dump "$T/$n.again.ir" | sed -n '/^nodes:/,$p')" ]
		ok $? "$n: a second npu-fuse --all changes nothing"
	else
		skipped "$n: a second npu-fuse --all changes nothing" npu-fuse
	fi
	for tg in float int8 int16 int16w16 grus; do
		q=$T/$n.$tg.ir
		last=""
		case $tg in
		float)	cp "$T/$n.fused.ir" "$q" 2>/dev/null;;
		grus)	if [ $fused = 0 ]; then
				step "$n $tg: npu-quant" sh -c 'npu-fuse --all --target grus "$1" |
					npu-quant --target grus --calib "$2" -o "$3"' - "$T/$n.ir" "$dir/calib.npz" "$q" || last=npu-quant
			else skipped "$n $tg: npu-quant" npu-fuse; last=npu-fuse; fi;;
		*)	qa="--target int8"; [ $tg = int16 ] && qa="--target int8 --bits 16"
			[ $tg = int16w16 ] && qa="--target int8 --bits 16 --weight-bits 16"
			if [ $fused = 0 ]; then
				step "$n $tg: npu-quant" npu-quant "$T/$n.fused.ir" $qa --calib "$dir/calib.npz" -o "$q" ||
					last=npu-quant
			else skipped "$n $tg: npu-quant" npu-fuse; last=npu-fuse; fi;;
		esac
		[ $tg = float ] && [ $fused = 1 ] && last=npu-fuse
		if [ -n "$last" ]; then
			for s in npu-emit cc host; do skipped "$n $tg: $s" $last; done
			continue
		fi
		step "$n $tg: npu-emit" npu-emit "$q" --name m -o "$T/npu_m.h" || {
			skipped "$n $tg: cc" npu-emit; skipped "$n $tg: host" npu-emit; continue; }
		step "$n $tg: the header compiles ($STRICT)" build_host "$T/npu_m.h" "$T/host" || {
			skipped "$n $tg: host" cc; continue; }
		# float: npu-run --mode runtime lowers the graph as npu-emit does
		md=""; [ $tg = float ] && md="--mode runtime"
		step "$n $tg: the host's outputs equal npu-run's byte for byte" \
			host_vs_run "$q" "$T/$n.in" $md --rtol 0 --atol 0
	done
done

# the rewrites these exports need, on the real exports (tests/gen/families.py)
ops() { npu-dump "$2" | sed -n '/^nodes:/,$p' | awk -v op="$1" '$3 == op' | wc -l; }
if [ -s "$T/attention.fused.ir" ]; then
	[ "$(ops layer_norm "$T/attention.fused.ir")" -eq 2 ] && [ "$(ops pow "$T/attention.fused.ir")" -eq 0 ] &&
		[ "$(ops reduce_mean "$T/attention.fused.ir")" -eq 0 ] && [ "$(ops reduce_mean "$T/attention.ir")" -eq 4 ]
	ok $? "attention: both written-out LayerNorms (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add) are one layer_norm each"
	npu-fuse --all --target grus "$T/attention.ir" -o "$T/attention.grus.ir" &&
		[ "$(ops layer_norm "$T/attention.grus.ir")" -eq 0 ] && [ "$(ops pow "$T/attention.grus.ir")" -eq 0 ] &&
		[ "$(ops reduce_mean "$T/attention.grus.ir")" -eq 4 ]
	ok $? "attention --target grus (no layer_norm in the profile): the written-out form stays, its pows are muls"
	npu-fuse --all "$T/attention.grus.ir" -o "$T/attention.again.ir" &&
		[ "$(ops layer_norm "$T/attention.again.ir")" -eq 2 ] &&
		npu-run "$T/attention.again.ir" -i "$DATA/families/attention/in.npz" --compare "$DATA/families/attention/out.npz" >/dev/null
	ok $? "attention: that graph (sqrt fused into the add of eps) through npu-fuse --all: two layer_norm, the same outputs"
fi
if [ -s "$T/kws_lstm.fused.ir" ]; then
	[ "$(ops gather "$T/kws_lstm.ir")" -eq 1 ] && [ "$(ops gather "$T/kws_lstm.fused.ir")" -eq 0 ] &&
		[ "$(ops slice "$T/kws_lstm.fused.ir")" -eq 1 ]
	ok $? "kws_lstm: out[:, -1] (Gather of index -1) is a slice"
fi

done_testing
