#!/usr/bin/env bash
# cyclock.hpp's std::chrono clocks: builds tests/build/cxx_chrono.cpp as
# C++11 and as C++20 with every C++ compiler present (g++, clang++, $CXX),
# links it to libcyclock.a and runs it.
#   cxx_chrono.sh SRC WORK LIBCYCLOCK_A
# Exit 0 on success, 1 on failure, 77 (skipped) if no C++ compiler exists.
set -euo pipefail

src=$1 work=$2 lib=$3
mkdir -p "$work"

status=0 ran=0 seen=" "
for cxx in ${CXX:-} g++ clang++; do
	command -v "$cxx" >/dev/null || { echo "skip: no $cxx"; continue; }
	[[ $seen == *" $cxx "* ]] && continue
	seen+="$cxx "
	ran=1
	for std in c++11 c++20; do
		exe=$work/cxx_chrono-$(basename "$cxx")-$std
		if ! "$cxx" -std=$std -O2 -Wall -Wextra -Wshadow -Wpedantic -Werror -I"$src/include" \
			"$src/tests/build/cxx_chrono.cpp" "$lib" -pthread -o "$exe"; then
			echo "FAIL: $cxx -std=$std does not build cxx_chrono.cpp"
			status=1
		elif ! "$exe"; then
			echo "FAIL: $exe (built by $cxx -std=$std) failed"
			status=1
		else
			echo "ok   $cxx -std=$std: the chrono clocks behave"
		fi
	done
done
((ran)) || { echo "skip: no C++ compiler"; exit 77; }
exit $status
