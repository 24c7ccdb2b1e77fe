#!/usr/bin/env bash
# The public headers compile warning-free with -Wall -Wextra -Wshadow
# -Wpedantic (and -Werror) as C11 (gcc, clang, $CC) and as C++11 and
# C++17 (g++, clang++, $CXX): tests/build/headers.c and headers.cpp, each
# linked to libcyclock.a and run.
#   headers.sh SRC WORK LIBCYCLOCK_A
# Exit 0 on success, 1 on failure, 77 (skipped) if no compiler exists.
set -euo pipefail

src=$1 work=$2 lib=$3
mkdir -p "$work"
warn=(-Wall -Wextra -Wshadow -Wpedantic -Werror -I"$src/include")

status=0 ran=0 seen=" "
# check COMPILER STD FILE
check() {
	local exe=$work/headers-$(basename "$1")-$2
	ran=1
	if ! "$1" -std="$2" -O2 "${warn[@]}" "$src/tests/build/$3" "$lib" -pthread -o "$exe"; then
		echo "FAIL: $1 -std=$2 ${warn[*]} does not build $3"
		status=1
	elif ! "$exe"; then
		echo "FAIL: $exe (built by $1 -std=$2) failed"
		status=1
	else
		echo "ok   $1 -std=$2: the headers compile warning-free and the library links"
	fi
}

for cc in ${CC:-} gcc clang; do
	command -v "$cc" >/dev/null || continue
	[[ $seen == *" $cc "* ]] && continue
	seen+="$cc "
	check "$cc" c11 headers.c
done
for cxx in ${CXX:-} g++ clang++; do
	command -v "$cxx" >/dev/null || continue
	[[ $seen == *" $cxx "* ]] && continue
	seen+="$cxx "
	check "$cxx" c++11 headers.cpp
	check "$cxx" c++17 headers.cpp
done
((ran)) || { echo "skip: no compiler"; exit 77; }
exit $status
