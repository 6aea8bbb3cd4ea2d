# lib.sh - TAP helpers for the pipeline tests (sourced by tests/pipeline/t*.sh).
# Tests run programs from $NPU_BIN (default: bin/) in a scratch directory $T.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
NPU_BIN=${NPU_BIN:-$TOP/bin}
PATH=$NPU_BIN:$PATH
DATA=$TOP/tests/data
ONNX_NODE=${ONNX_NODE:-/usr/share/libonnx-testdata/data/node}
# target profiles from the source tree, whichever build's programs run
NPU_TARGETS=${NPU_TARGETS:-$TOP/share/npu/targets}
export NPU_TARGETS
T=$(mktemp -d "${TMPDIR:-/tmp}/npukit-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
_n=0
_fail=0

ok() {	# ok COND-EXIT-STATUS DESCRIPTION
	_n=$((_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $_n - $2"
	else echo "not ok $_n - $2"; _fail=$((_fail + 1)); fi
}
diag() { printf '# %s\n' "$@" >&2; }

# family_model DIR: "IMPORTER MODEL" for a tests/data/families directory
# (the importer by the model file's extension), or status 1
family_model() {
	_m=$(ls "$1" | grep -E '^model\.(pt|onnx|pb|json)$' | head -n 1)
	case $_m in
	*.pt) echo "npu-import-pt $_m";; *.onnx) echo "npu-import-onnx $_m";; *.pb|*.json) echo "npu-import-tf $_m";;
	*) return 1;;
	esac
}

# expect_fail CODE 'STDERR-REGEX' DESC -- CMD...
# Runs CMD (which should use $T/out as its output file if it has one) and
# checks: exit status CODE, stderr is exactly one line matching the regex
# (for usage errors, CODE 2, followed by the line "Try 'PROG --help'."),
# and no $T/out (nor temporaries next to it) was left behind.
expect_fail() {
	code=$1 re=$2 desc=$3; shift 4
	rm -f "$T"/out "$T"/.out.* "$T"/err
	"$@" >"$T/stdout" 2>"$T/err" </dev/null
	st=$?
	res=0
	[ "$st" -eq "$code" ] || { diag "$desc: exit $st, want $code"; res=1; }
	lines=1
	[ "$code" -eq 2 ] && lines=2 && { sed -n 2p "$T/err" | grep -Eq "^Try '[a-z-]+ --help'\.\$" ||
		{ diag "$desc: no --help hint after the usage message"; res=1; }; }
	[ "$(wc -l <"$T/err")" -eq $lines ] || { diag "$desc: stderr has $(wc -l <"$T/err") lines"; res=1; }
	head -n 1 "$T/err" | grep -Eq -- "$re" || { diag "$desc: stderr '$(head -c 300 "$T/err")' does not match '$re'"; res=1; }
	ls -A "$T" | grep -q '^\(out\|\.out\..*\)$' && { diag "$desc: output file left behind"; res=1; }
	ok $res "$desc"
}

# probe_m32: CC32, a compiler for 32-bit x86 programs (Debian's i686 cross
# compiler, which can be installed beside the aarch64 one where gcc-multilib
# cannot; else $CC -m32), and M32=1 if it builds one
probe_m32() {
	CC32="i686-linux-gnu-gcc -static"
	command -v i686-linux-gnu-gcc >/dev/null || CC32="${CC:-cc} -m32"
	if printf '#include <errno.h>\n#include <math.h>\nint main(void){return errno;}\n' |
		$CC32 -x c - -o "$T/m32" 2>/dev/null; then M32=1; else M32=0; fi
}

done_testing() {
	echo "1..$_n"
	[ "$_fail" -eq 0 ]
}
