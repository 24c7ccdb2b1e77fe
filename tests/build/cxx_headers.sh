#!/usr/bin/env bash
# The public headers in C++: compiles tests/build/cxx_headers.cpp with every
# C++ compiler present (g++, clang++, $CXX) in strict C++11, links it to
# libcyclock.a and runs it.
#   cxx_headers.sh SRC WORK LIBCYCLOCK_A
# Exit 0 on success, 1 on failure, 77 (skipped) if no C++ compiler exists.
set -euo pipefail

src=$1 work=$2 lib=$3
mkdir -p "$work"
cxxflags=(-std=c++11 -Wall -Wextra -Werror -pedantic -I"$src/include")

status=0 ran=0 seen=" "
for cxx in ${CXX:-} g++ clang++; do
	command -v "$cxx" >/dev/null || continue
	[[ $seen == *" $cxx "* ]] && continue
	seen+="$cxx "
	ran=1
	exe=$work/cxx_headers-$(basename "$cxx")
	if ! "$cxx" "${cxxflags[@]}" "$src/tests/build/cxx_headers.cpp" "$lib" -pthread -o "$exe"; then
		echo "FAIL: $cxx ${cxxflags[*]} does not build cxx_headers.cpp"
		status=1
	elif ! "$exe"; then
		echo "FAIL: $exe (built by $cxx) failed"
		status=1
	else
		echo "ok   $cxx: headers compile as C++11 and the library links"
	fi
done
((ran)) || { echo "skip: no C++ compiler"; exit 77; }
exit $status
