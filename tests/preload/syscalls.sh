#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The system calls the library and the preload make are the ones
# docs/hosted.md lists ("System calls"), and a read makes none.  A program
# (test_sandbox.c --trace) reads every clock on two threads for 200 ms,
# across initialisation and many resyncs, between two lines it writes
# ("reading", "read"), under strace:
#  - between the two lines, no system call at all, on any thread;
#  - in the whole run, every call the library adds is on the list: under
#    the preload, what the run makes beyond the same run under an empty
#    library preloaded; linked, beyond the same run with
#    CYCLOCK_SOURCE=kernel (which asks the machine nothing).
# Once with no machine's record (the first process of a boot, which
# writes one) and once with it.  Skipped (77) where strace cannot trace.
# Usage: syscalls.sh DOCS PROGRAM PRELOAD EMPTY LINKED
set -eu
docs=$1 prog=$2 preload=$3 empty=$4 linked=$5
tmp=$(mktemp -d)
record=/dev/shm/cyclock-test-record.$$ # a tmpfs, or it is never used
trap 'rm -rf "$tmp" "$record"' EXIT
fail=0

if ! command -v strace >/dev/null || ! strace -f -qq -o /dev/null true 2>/dev/null; then
	echo "syscalls: strace cannot trace here: skipped"
	exit 77
fi

# The list: the first column's names in the "System calls" table.
sed -n '/^## System calls/,/^## /p' "$docs" | grep '^| `' |
	sed -e 's/^| //' -e 's/ |.*//' | tr -d '`' | tr ',' '\n' | tr -d ' ' | sort -u >"$tmp/listed"
[ -s "$tmp/listed" ] || { echo "syscalls: no list in $docs"; exit 1; }

# trace NAME PROGRAM VAR=VALUE...: the run's calls, by name, in $tmp/NAME.
trace() {
	name=$1 program=$2
	shift 2
	# env under strace: strace itself must not load the preload.
	strace -f -qq -o "$tmp/$name.trace" env -i CYCLOCK_MACHINE_RECORD="$record" "$@" \
		"$program" --trace >"$tmp/$name.out" || {
		echo "syscalls: $name: the program failed: $(cat "$tmp/$name.out")"
		fail=1
	}
	sed -e 's/^[0-9]* *//' -e 's/(.*//' -e '/^+++/d' -e '/^---/d' -e '/resumed>/d' \
		"$tmp/$name.trace" | sort -u >"$tmp/$name"
}

# window NAME: the calls between the two lines, on any thread.
window() {
	awk '/write\(1, "reading/ { on = 1; next } /write\(1, "read\\n/ { on = 0 } on' \
		"$tmp/$1.trace" >"$tmp/$1.window"
	if [ -s "$tmp/$1.window" ]; then
		echo "syscalls: $1: system calls while the clocks were read:"
		cat "$tmp/$1.window"
		fail=1
	fi
}

# beyond NAME BASE: calls of NAME's run not in BASE's, each on the list.
beyond() {
	comm -23 "$tmp/$1" "$tmp/$2" >"$tmp/$1.added"
	if comm -23 "$tmp/$1.added" "$tmp/listed" | grep . >"$tmp/$1.unlisted"; then
		echo "syscalls: $1: calls not in docs/hosted.md's list: $(tr '\n' ' ' <"$tmp/$1.unlisted")"
		fail=1
	fi
	echo "syscalls: $1: adds $(tr '\n' ' ' <"$tmp/$1.added")"
}

for kept in none kept; do
	[ $kept = none ] && rm -f "$record"
	trace "preload-$kept" "$prog" LD_PRELOAD="$preload"
	trace "empty-$kept" "$prog" LD_PRELOAD="$empty"
	window "preload-$kept"
	beyond "preload-$kept" "empty-$kept"
done
rm -f "$record"
trace linked "$linked"
trace linked-kernel "$linked" CYCLOCK_SOURCE=kernel
window linked
beyond linked linked-kernel
[ $fail = 0 ] && echo "syscalls: no system call while reading; every one the library adds is listed"
exit $fail
