#!/usr/bin/env bash
# Installs the build into a scratch prefix and uses it as a user would:
# the layout, the shared library's SONAME and exports, a CMake consumer
# (find_package, shared and static) and a pkg-config consumer.
#   install.sh SRC BUILD WORK CMAKE CC GENERATOR LIBDIR
set -euo pipefail

src=$1 build=$2 work=$3 cmake=$4 cc=$5 generator=$6 libdir=$7
prefix=$work/prefix
lib=$prefix/$libdir
rm -rf "$work"
mkdir -p "$work"
status=0
fail() {
	echo "FAIL: $*"
	status=1
}

"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" ||
	{ cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }

# Layout: every public header (C and C++), both libraries, both package files, the
# library's man pages (their link pages are man.sh's to check), the tool's
# and the preload's with them; the tests' simulated counter (arch/sim.h)
# stays in the tree.
expected=("$libdir"/{libcyclock.a,libcyclock.so,libcyclock.so.0,pkgconfig/cyclock.pc}
	"$libdir"/cmake/cyclock/cyclock{Config,ConfigVersion,Targets}.cmake)
while IFS= read -r h; do
	expected+=("include/${h#"$src"/include/}")
done < <(find "$src/include" \( -name '*.h' -o -name '*.hpp' \) ! -name sim.h)
for page in "$src"/docs/man/*.3; do
	expected+=("share/man/man3/${page##*/}")
done
[[ -e $prefix/bin/cyclock ]] && expected+=(share/man/man1/cyclock.1)
[[ -e $lib/libcyclock-preload.so ]] && expected+=(share/man/man7/cyclock-preload.7)
for f in "${expected[@]}"; do
	[[ -e $prefix/$f ]] || fail "not installed: $f"
done
[[ ! -e $prefix/include/cyclock/arch/sim.h ]] || fail "installed: the test-only arch/sim.h"

# The shared library: its SONAME, and nothing exported but the API.
so=$lib/libcyclock.so
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ $soname == libcyclock.so.0 ]] || fail "SONAME is '$soname', not libcyclock.so.0"
exports=$(nm -D --defined-only "$so" | awk '{ print $NF }')
[[ -n $exports ]] || fail "libcyclock.so exports nothing"
# cyclock__* are the inline readers' shared state and slow path (cyclock/timeline.h).
stray=$(grep -Ev '^cyclock__?[a-z0-9]' <<<"$exports" || true)
[[ -z $stray ]] || fail "libcyclock.so exports more than cyclock_*:"$'\n'"$stray"
((status == 0)) && echo "ok   layout, SONAME $soname, $(wc -l <<<"$exports") exports, all cyclock_*"

# A CMake project using the package, linked both ways.
cb=$work/consumer-build
if "$cmake" -S "$src/tests/build/consumer" -B "$cb" -G "$generator" \
	-DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" >"$work/consumer.log" 2>&1 &&
	"$cmake" --build "$cb" >>"$work/consumer.log" 2>&1; then
	"$cb/consumer" || fail "CMake consumer (shared) did not run"
	"$cb/consumer_static" || fail "CMake consumer (static) did not run"
else
	cat "$work/consumer.log"
	fail "CMake consumer (find_package(cyclock)) does not build"
fi

# The same program built from pkg-config's flags alone.
export PKG_CONFIG_PATH=$lib/pkgconfig
# shellcheck disable=SC2086 # $flags is a list of words
if flags=$(pkg-config --cflags --libs cyclock) &&
	"$cc" -std=c11 -Wall -Wextra -Werror "$src/tests/build/consumer/main.c" \
		$flags -o "$work/consumer-pc"; then
	LD_LIBRARY_PATH=$lib "$work/consumer-pc" || fail "pkg-config consumer did not run"
	ldd_out=$(LD_LIBRARY_PATH=$lib ldd "$work/consumer-pc")
	grep -q "libcyclock.so.0 => $lib/" <<<"$ldd_out" ||
		fail "pkg-config consumer did not use the installed libcyclock.so.0"
else
	fail "pkg-config consumer does not build (flags: ${flags:-none})"
fi
exit $status
