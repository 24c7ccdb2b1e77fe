#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A program that reads the clock once and exits makes, under the preload,
# exactly the system calls it makes under an empty library preloaded, less
# the dynamic loader's mappings of a larger library (mmap, mprotect): the
# preload's constructor asks the machine nothing, and the first read serves
# the kernel's clock through the vDSO (docs/hosted.md, "A process's start,
# summed").  Each with no CYCLOCK_ variable set, as a program under the
# systemd drop-in runs.  Skipped (77) where strace cannot trace (qemu-user).
# Usage: quiet_start.sh PROGRAM PRELOAD EMPTY (PROGRAM --once reads once)
set -eu
prog=$1 preload=$2 empty=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v strace >/dev/null || ! strace -f -qq -o /dev/null true 2>/dev/null; then
	echo "quiet_start: strace cannot trace here: skipped"
	exit 77
fi

# The system calls' names and counts, the loader's mappings left out.
calls() {
	env -i LD_PRELOAD="$1" strace -f -qq -o "$tmp/trace" "$prog" --once
	sed -e 's/^[0-9]* *//' -e 's/(.*//' "$tmp/trace" | grep -v -e '^mmap$' -e '^mprotect$' |
		sort | uniq -c
}

calls "$empty" > "$tmp/empty"
calls "$preload" > "$tmp/preload"
if ! diff -u "$tmp/empty" "$tmp/preload"; then
	echo "quiet_start: the preload adds system calls to a one-read program (above, +)"
	grep -v -e ' mmap(' -e ' mprotect(' "$tmp/trace" | tail -25
	exit 1
fi
echo "quiet_start: $(awk '{ n += $1 } END { print n }' "$tmp/preload") system calls, the same as" \
	"under an empty library"
