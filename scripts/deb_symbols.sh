#!/usr/bin/env bash
# Updates debian/libcyclock0.symbols to the libraries this tree builds
# (libcyclock.so.0 and libcyclock-preload.so), after a change to what they
# export: a new symbol is added with CMakeLists.txt's version, the version
# that first has it (bump that first if the last release has it).  A removed
# one is left in the file, for you to delete by hand: one that a release
# exported breaks its users, so the SONAME goes up with it.  The package
# build (dpkg-gensymbols -c4, debian/rules) fails on any difference, so run
# this and commit the file with the change that makes it.
#   scripts/deb_symbols.sh          (needs cmake, cc, dpkg-dev)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cyclock_ensure_deps cmake cc make dpkg-buildpackage
cd "$CYCLOCK_ROOT"

version=$(sed -n 's/^project(cyclock VERSION \([^ )]*\).*/\1/p' CMakeLists.txt)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake -S . -B "$tmp" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCYCLOCK_BUILD_TESTS=OFF \
	-DCYCLOCK_BUILD_EXAMPLES=OFF -DCYCLOCK_BUILD_BENCH=OFF -DCYCLOCK_BUILD_TOOL=OFF >/dev/null
cmake --build "$tmp" -j 2 --target cyclock_shared cyclock_preload >/dev/null
symbols=debian/libcyclock0.symbols
[[ -e $symbols ]] || printf 'libcyclock.so.0 libcyclock0 #MINVER#\n* Build-Depends-Package: libcyclock-dev\n' >"$symbols"
dpkg-gensymbols -plibcyclock0 -v"$version" -I"$symbols" -O"$symbols" \
	-e"$tmp/src/libcyclock.so.0" -e"$tmp/src/preload/libcyclock-preload.so" -c0
echo "$symbols: $(grep -c '^ ' "$symbols") symbols; git diff $symbols shows the change"
