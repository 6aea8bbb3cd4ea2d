#!/bin/sh
# Op plugins (npu-plugin(7)): an ONNX model with two vendor ops
# (com.vendor SpaceToDepthX and MishX, tests/gen/opplugin_fixtures.py) and
# the example plugins that claim them (share/npu/plugins/op_*.c, built by
# make into $O/plugins): imported as custom nodes with their attributes,
# run as PyTorch computed them, quantized (SpaceToDepthX int8 on its
# input's scale, MishX a float island; fp16 casts around both), emitted
# into npu.h with the plugins' C source, which compiles and computes
# npu-run's bytes. Errors: no plugin (at import: the node and its op type;
# later: the node and the plugin), the plugin's shape function refusing.
. "$(dirname "$0")/lib.sh"
D=$DATA/opplugin
EX=$TOP/share/npu/examples
NPU_TESTS=${NPU_TESTS:-$TOP/build/rel/tests}
PLUGINS=$(cd "$(dirname "$NPU_TESTS")/plugins" 2>/dev/null && pwd)
CC=${CC:-cc}
STRICT="-std=c99 -Wall -Wextra -pedantic -Werror"
NPU_PLUGIN_PATH=$PLUGINS
export NPU_PLUGIN_PATH

[ -f "$PLUGINS/op_mishx.so" ] && [ -f "$PLUGINS/op_space_to_depthx.so" ]
ok $? "the example op plugins are built ($PLUGINS)"

# header HEADER-BASE IR: emit npu.h, build npu_host.c with it, run the sample into $T/res
header() {
	rm -rf "$T/res" && mkdir "$T/res" && npu-emit "$2" --name m -o "$T/$1.h" &&
		$CC $STRICT -O2 -DNPU_HEADER="\"$1.h\"" -DNPU_MODEL=npu_m_model -I"$T" "$EX/npu_host.c" -o "$T/host" -lm \
			2>"$T/cc.err" && "$T/host" run "$T/res" "$D/vendor.in0.npy" ||
		{ diag "$(head -5 "$T/cc.err" 2>/dev/null)"; return 1; }
}

npu-import-onnx "$D/vendor.onnx" -o "$T/f.ir" && npu-dump "$T/f.ir" >"$T/dump" &&
	grep -q ' /SpaceToDepthX  *custom  *f32 1x8x8x8 -> f32 1x32x4x4  blocksize=2 type=SpaceToDepthX$' "$T/dump" &&
	grep -q ' /MishX  *custom  *f32 1x32x4x4 -> f32 1x32x4x4  alpha=1.5 type=MishX$' "$T/dump"
ok $? "import: each vendor op is a custom node naming its plugin, its ONNX attributes kept through the IR stream"

npu-run "$T/f.ir" -i "$D/vendor.in.npz" --compare "$D/vendor.out.npz" --rtol 1e-5 --atol 1e-6 >/dev/null
ok $? "npu-run (float) matches PyTorch (rtol 1e-5, atol 1e-6)"
npu-fuse --all "$T/f.ir" | npu-run - -i "$D/vendor.in.npz" --compare "$D/vendor.out.npz" --rtol 1e-5 --atol 1e-6 >/dev/null
ok $? "npu-fuse --all keeps the custom nodes; the result still matches PyTorch"

npu-layout "$T/f.ir" --to nhwc -o "$T/l.ir" && npu-dump "$T/l.ir" | grep -q ' /MishX  *custom  *f32 1x32x4x4 -> f32 1x32x4x4 ' &&
	npu-run "$T/l.ir" -i "$D/vendor.in.npz" --compare "$D/vendor.out.npz" --rtol 1e-5 --atol 1e-6 >/dev/null
ok $? "npu-layout --to nhwc leaves the custom nodes channel-first between transposes; still PyTorch's result"

header f "$T/f.ir" && npu-run "$T/f.ir" --mode runtime -i "$D/vendor.in.npz" --compare "$T/res" --rtol 0 --atol 0 >/dev/null &&
	npu-run "$T/f.ir" -i "$D/vendor.in.npz" --compare "$T/res" --rtol 1e-5 --atol 1e-6 >/dev/null
ok $? "float npu.h: compiles ($STRICT) and computes npu-run's runtime bytes"

npu-quant "$T/f.ir" --target int8 --calib "$D/vendor.calib.npz" -o "$T/q.ir" 2>"$T/err" &&
	[ "$(cat "$T/err")" = "npu-quant: $T/f.ir: node '/MishX' (custom): warning: kept in float: its op plugin computes it in float" ] &&
	npu-dump "$T/q.ir" >"$T/dump" &&
	grep -q ' /SpaceToDepthX  *custom  *i8 1x8x8x8 -> i8 1x32x4x4  blocksize=2 type=SpaceToDepthX  precision=i8$' "$T/dump" &&
	grep -q ' /MishX  *custom  *f32 1x32x4x4 -> f32 1x32x4x4  alpha=1.5 type=MishX  precision=f32$' "$T/dump"
ok $? "int8: SpaceToDepthX runs in int8 on its input's scale, MishX is a float island (one warning: $(cat "$T/err"))"
npu-run "$T/q.ir" -i "$D/vendor.in.npz" --compare "$D/vendor.out.npz" --rtol 0.06 --atol 0.03 >"$T/cmp"
ok $? "int8: close to PyTorch ($(sed 's/.*max abs error \([^,]*\),.*/max abs error \1/' "$T/cmp"))"
header q "$T/q.ir" && npu-run "$T/q.ir" -i "$D/vendor.in.npz" --compare "$T/res" --rtol 0 --atol 0 >/dev/null &&
	grep -q 'case [0-9]*: npu_s2dx_i8(in, out, p); break;' "$T/q.h" && grep -q 'case [0-9]*: npu_mishx_f32(in, out, p); break;' "$T/q.h" &&
	[ "$(grep -c '^/\* op plugin ' "$T/q.h")" = 2 ]
ok $? "int8 npu.h: each plugin's C source once, the int8 and float kernels called; byte-identical to npu-run"

npu-quant "$T/f.ir" --target grus -o "$T/g.ir" && npu-dump "$T/g.ir" | grep -q ' /MishX_output_0/cast  *cast  *f32 1x32x4x4 -> f16 1x32x4x4' &&
	npu-run "$T/g.ir" -i "$D/vendor.in.npz" --compare "$D/vendor.out.npz" --rtol 5e-3 --atol 2e-3 >/dev/null &&
	header g "$T/g.ir" && npu-run "$T/g.ir" -i "$D/vendor.in.npz" --compare "$T/res" --rtol 0 --atol 0 >/dev/null
ok $? "fp16 (grus): the plugin ops run in float32 between casts; close to PyTorch, the header byte-identical"

npu-quant "$T/f.ir" --target int8 --bits 16 --calib "$D/vendor.calib.npz" -o "$T/q16.ir" 2>"$T/err" &&
	grep -qx "npu-quant: $T/f.ir: node '/SpaceToDepthX' (custom): warning: kept in float: its op plugin's integer kernel is int8" "$T/err" &&
	header q16 "$T/q16.ir" && npu-run "$T/q16.ir" -i "$D/vendor.in.npz" --compare "$T/res" --rtol 0 --atol 0 >/dev/null
ok $? "int16: the int8-only plugin kernel becomes a float island, said; the header byte-identical"

expect_fail 1 "^npu-quant: $T/f.ir: node '/MishX' \(custom\): error: kept in float: its op plugin computes it in float\$" \
	"--strict: a plugin's float island is an error, nothing written" -- \
	npu-quant "$T/f.ir" --target int8 --calib "$D/vendor.calib.npz" --strict -o "$T/out"
npu-emit "$T/q.ir" --format bin -o "$T/q.bin" 2>"$T/err" &&
	[ "$(cat "$T/err")" = "npu-emit: $T/q.ir: warning: the binary model calls op plugin kernels: its host sets npu_model.custom" ]
ok $? "--format bin: a warning that the host must set npu_model.custom"

# ./plugin/ is searched after $NPU_PLUGIN_PATH
mkdir "$T/cwd" "$T/cwd/plugin" && cp "$PLUGINS"/op_*.so "$T/cwd/plugin/" &&
	(cd "$T/cwd" && NPU_PLUGIN_PATH= npu-run "$T/q.ir" -i "$D/vendor.in.npz" -o "$T/p.npz") &&
	npu-run "$T/q.ir" -i "$D/vendor.in.npz" --compare "$T/p.npz" --rtol 0 --atol 0 >/dev/null
ok $? "plugins found in ./plugin/ when NPU_PLUGIN_PATH is empty"

# errors: one line, non-zero, nothing written
mkdir -p "$T/empty"
expect_fail 1 "^npu-import-onnx: $D/vendor.onnx: error: unsupported ops: 'com.vendor.SpaceToDepthX' \(node '/SpaceToDepthX'\), 'com.vendor.MishX' \(node '/MishX'\)\$" \
	"import without the plugins: every vendor node and its op type named" -- \
	env NPU_PLUGIN_PATH="$T/empty" npu-import-onnx "$D/vendor.onnx" -o "$T/out"
expect_fail 1 "^npu-run: $T/q.ir: error: node '/SpaceToDepthX' \(custom\): op plugin 'SpaceToDepthX' not found \(searched \\\$NPU_PLUGIN_PATH, then \./plugin/\)\$" \
	"running an IR whose plugin is missing names the node and the plugin" -- \
	env NPU_PLUGIN_PATH="$T/empty" npu-run "$T/q.ir" -i "$D/vendor.in.npz" -o "$T/out"
expect_fail 1 "^npu-import-onnx: $D/badblock.onnx: error: node '/SpaceToDepthX' \(SpaceToDepthX\): op plugin 'SpaceToDepthX': H 6 and W 6 must be multiples of blocksize 4\$" \
	"the plugin's shape function refuses a shape: its message, with the node" -- \
	npu-import-onnx "$D/badblock.onnx" -o "$T/out"
# an object of another ABI on the path: skipped with a warning naming it, the import goes on
env NPU_PLUGIN_PATH="$NPU_TESTS/plugin-abi:$PLUGINS" npu-import-onnx "$D/vendor.onnx" -o "$T/abi.ir" 2>"$T/abi.err" &&
	[ -s "$T/abi.ir" ] && [ "$(wc -l <"$T/abi.err")" = 1 ] &&
	grep -q "^npu-import-onnx: $NPU_TESTS/plugin-abi/probe.so: warning: plugin 0 has ABI 99, this program 1: skipped\$" "$T/abi.err"
ok $? "a plugin of another ABI met by the importer: one warning naming its file"
done_testing
