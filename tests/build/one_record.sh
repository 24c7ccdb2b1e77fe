#!/usr/bin/env bash
# One record of the library's state (include/cyclock/status.h): a copy of
# the tree whose src/linux/status.c derives one fact, the resync interval,
# otherwise (a constant no resync would give), built, and all four readers
# of the record say the new value: cyclock_get_state(), cyclock_describe(),
# "cyclock info" (its own process) and "cyclock status" (another).  Exit 77
# where the library has no counter to be on (the counts are the counter's).
#   one_record.sh SRC WORK CMAKE CC
set -euo pipefail

src=$1 work=$2 cmake=$3 cc=$4
value=123456789000 # ns: "every 123456.8 ms"
rm -rf "$work"
mkdir -p "$work/src"
tar -C "$src" --exclude=./build --exclude=./.git -cf - . | tar -C "$work/src" -xf -
status=$work/src/src/linux/status.c
if [ "$(grep -c '\.interval_ns = ' "$status")" != 1 ]; then
	echo "FAIL the interval's derivation is not one line of status.c: update this test"
	exit 1
fi
sed -i "s/\(\.interval_ns = \).*/\1${value}u,/" "$status"
"$cmake" -S "$work/src" -B "$work/b" -DCMAKE_BUILD_TYPE=Release -DCYCLOCK_BUILD_TESTS=OFF \
	>"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
"$cmake" --build "$work/b" -j2 --target cyclock cyclock_static >"$work/build.log" 2>&1 ||
	{ tail -30 "$work/build.log"; exit 1; }
tool=$work/b/tools/cyclock/cyclock
"$cc" -std=c11 -O2 -I"$src/include" "$src/tests/build/one_record.c" \
	"$(find "$work/b" -name libcyclock.a | head -1)" -lpthread -o "$work/one_record"

export CYCLOCK_SOURCE
CYCLOCK_SOURCE=$("$tool" info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counter"])')
coproc PROG { exec "$work/one_record"; }
pid=$PROG_PID out=${PROG[0]} in=${PROG[1]} # unset by bash once it has exited
read -r -u "$out" _ got_state || { wait "$pid" || [ $? != 77 ] || exit 77; exit 1; }
read -r -u "$out" got_describe
got_info=$("$tool" info --json |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"]["resync_interval_ns"])')
got_status=$("$tool" status --json "$pid" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["counts"]["resync_interval_ns"])')
exec {in}>&-
wait "$pid" || true

fail=0
check() { # what, got, want
	if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else echo "FAIL $1: $2, not $3"; fail=1; fi
}
check "cyclock_get_state().interval_ns" "$got_state" "$value"
check "cyclock_describe()'s interval" "$(grep -o 'every [0-9.]* ms' <<<"$got_describe")" \
	"every 123456.8 ms"
check "cyclock info --json's counts.resync_interval_ns" "$got_info" "$value"
check "cyclock status --json's counts.resync_interval_ns" "$got_status" "$value"
exit $fail
