#!/bin/sh
# Replay every fuzz harness over its committed corpus (corpus/NAME) and every
# crash reproducer kept for it (regress/NAME), through the plain driver
# (driver.c): no clang and no fuzzing time needed, and under SAN=1 with the
# sanitizers. A crash, sanitizer report, leak or failed property fails the test.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
NPU_TESTS=${NPU_TESTS:-$TOP/build/rel/tests}
F=$TOP/tests/fuzz
T=$(mktemp -d "${TMPDIR:-/tmp}/npukit-fuzz.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0 fail=0
for src in "$F"/fuzz_*.c; do
	name=${src##*/fuzz_}; name=${name%.c}
	n=$((n + 1))
	dirs=
	for d in "$F/corpus/$name" "$F/regress/$name"; do
		[ -d "$d" ] && dirs="$dirs $d"
	done
	if [ -z "$dirs" ]; then
		echo "not ok $n - $name: no corpus"; fail=$((fail + 1)); continue
	fi
	# shellcheck disable=SC2086
	count=$("$NPU_TESTS/fuzz/replay_$name" $dirs 2>"$T/err")
	st=$?
	if [ $st -eq 0 ] && [ "${count:-0}" -gt 0 ]; then
		echo "ok $n - $name: $count inputs replayed"
	else
		echo "not ok $n - $name: exit $st on $(grep "^$F/" "$T/err" | tail -n 1)"
		grep -v "^$F/" "$T/err" | head -n 20 | sed 's/^/# /' >&2
		fail=$((fail + 1))
	fi
done
echo "1..$n"
[ $fail -eq 0 ]
