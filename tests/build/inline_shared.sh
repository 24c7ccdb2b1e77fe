#!/usr/bin/env bash
# Inline readers in a program linking libcyclock.so (inline_shared.c): the
# timeline the program copy-relocated is the one the library keeps.
#   inline_shared.sh SRC WORK LIBDIR CC
set -euo pipefail

src=$1 work=$2 libdir=$3 cc=$4
mkdir -p "$work"
"$cc" -std=c11 -O2 -fPIE -pie -I"$src/include" "$src/tests/build/inline_shared.c" \
	-L"$libdir" -lcyclock -Wl,-rpath,"$libdir" -o "$work/inline_shared"
if ! readelf -r "$work/inline_shared" | grep 'R_X86_64_COPY.*cyclock__mono' >/dev/null; then
	echo "note: no copy relocation of cyclock__mono here: the program reads the library's own"
fi
"$work/inline_shared"
echo "ok   inline readers in a program linking libcyclock.so read the timeline the library keeps"
