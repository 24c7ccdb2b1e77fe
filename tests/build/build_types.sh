#!/usr/bin/env bash
# Builds as users build: every CMake build type (Debug, Release,
# RelWithDebInfo, MinSizeRel) with gcc and with clang, the library, the
# tool and the examples as CMake's defaults make them but without the
# tests, and without -Werror (CYCLOCK_WERROR, cmake/CyclockOptions.cmake),
# so that every warning of every build shows: any warning fails.
#   build_types.sh SRC WORK CMAKE
# Exit 0 on success, 1 on failure.  clang missing: its builds are skipped,
# said.
set -uo pipefail

src=$1 work=$2 cmake=$3
status=0 built=0
mkdir -p "$work"
for pair in gcc:g++ clang:clang++; do
	cc=${pair%%:*} cxx=${pair##*:}
	if ! command -v "$cc" >/dev/null || ! command -v "$cxx" >/dev/null; then
		echo "note: no $cc/$cxx here: its builds skipped"
		continue
	fi
	for type in Debug Release RelWithDebInfo MinSizeRel; do
		dir=$work/$cc-$type log=$work/$cc-$type.log
		rm -rf "$dir"
		if ! { "$cmake" -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE="$type" \
			-DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DCYCLOCK_BUILD_TESTS=OFF &&
			"$cmake" --build "$dir" -j 2; } >"$log" 2>&1; then
			tail -20 "$log"
			echo "FAIL: $cc $type does not build"
			status=1
			continue
		fi
		if grep -E '(warning|error):' "$log"; then
			echo "FAIL: $cc $type builds with warnings (above)"
			status=1
			continue
		fi
		built=$((built + 1))
		echo "ok   $cc $type: no warning"
		rm -rf "$dir"
	done
done
((built > 0)) || { echo "FAIL: nothing built"; exit 1; }
exit "$status"
