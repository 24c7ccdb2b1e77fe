#!/usr/bin/env bash
# A fully static program (-static) linking libcyclock.a: it links with no
# warning (-Wl,--fatal-warnings: the library calls no dlopen(), which
# glibc's static libc warns of) and runs, its clock going forward.
#   static.sh SRC WORK LIBCYCLOCK_A CC
# Exit 0 on success, 1 on failure, 77 (skipped) without a static libc.
set -euo pipefail

src=$1 work=$2 lib=$3 cc=$4
mkdir -p "$work"
if ! echo 'int main(void) { return 0; }' | "$cc" -static -x c - -o "$work/probe" 2>/dev/null; then
	echo "SKIP: $cc cannot link a static program here (no libc.a)"
	exit 77
fi
if ! "$cc" -static -std=c11 -O2 -I"$src/include" "$src/tests/build/headers.c" "$lib" -pthread \
	-Wl,--fatal-warnings -o "$work/static" 2>"$work/link.log"; then
	cat "$work/link.log"
	echo "FAIL: a static program linking libcyclock.a does not link without warnings"
	exit 1
fi
if ! "$work/static"; then
	echo "FAIL: the static program failed"
	exit 1
fi
echo "ok   $cc -static: libcyclock.a links with no warning and runs"
