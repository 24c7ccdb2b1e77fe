#!/usr/bin/env bash
# The Debian packages of another architecture, cross-built here and used
# under qemu-user (scripts/test.sh's package stage, after test_deb.sh):
#   tests/package/test_deb_foreign.sh arm64|riscv64 [WORKDIR]
# (default WORKDIR: a new temporary directory, removed at the end).  Nothing
# is installed: the packages are extracted (dpkg-deb -x) into WORKDIR/root,
# whose libraries the programs are given with LD_LIBRARY_PATH, and qemu-user
# runs them with the target's C library (-L: Debian's multiarch one where it
# is installed, arm64; else the cross toolchain's, /usr/TRIPLET).  Each
# check prints "ok NAME" or "FAIL: NAME: why"; the last line is
# "package-ARCH: N passed, N failed".
# What it checks:
#   build       dpkg-buildpackage -a ARCH, as test_deb.sh's (symbols -c4,
#               dh_missing); riscv64 with the pkg.cyclock.nojson profile:
#               Debian 12 has no riscv64 port, so no libjansson-dev:riscv64
#               (debian/rules), and the tool there has no JSON
#   lintian     as for amd64
#   contents    each package is ARCH's and holds what amd64's does, the
#               libraries in /usr/lib/TRIPLET, ARCH's counter header
#   info        the packaged cyclock info runs; its first line names the
#               build "Debian -O2"
#   json        arm64: cyclock info --json is JSON; riscv64: refused, saying
#               why (a build without jansson)
#   pkg-config, cmake   the C and C++ consumers cross-built against the
#               extracted libcyclock-dev (pkg-config with the root as its
#               sysroot; find_package(cyclock) with the root's /usr as
#               CMAKE_PREFIX_PATH), run, and loading the packaged libcyclock.so.0
#   preload     a plain program run with the packaged libcyclock-preload.so
#               in LD_PRELOAD sees it loaded (not "cyclock run": qemu-user
#               cannot follow its exec of the command without binfmt_misc)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
arch=${1:-}
case $arch in
arm64) cpu=aarch64 profile=() ;;
riscv64) cpu=riscv64 profile=(-Ppkg.cyclock.nojson) ;;
*)
	echo "usage: tests/package/test_deb_foreign.sh arm64|riscv64 [WORKDIR]" >&2
	exit 2
	;;
esac
triplet=$cpu-linux-gnu
packages=(cyclock libcyclock0 libcyclock-dev)
# shellcheck source=tests/package/lib.sh
source "$here/lib.sh"

if [[ -n ${2:-} ]]; then
	work=$2
	rm -rf "$work" && mkdir -p "$work"
else
	work=$(mktemp -d "/tmp/cyclock-package-$arch.XXXXXX") own_work=1
fi
finish() {
	[[ -n ${own_work:-} ]] && rm -rf "$work"
	echo "package-$arch: $passed passed, $failed failed" >&3
}
exec 3>&1
trap finish EXIT
trap 'fail interrupted "by a signal" >&3; exit 130' INT TERM HUP

copy_tree "$root" "$work/src"
build_debs build "$work/src" -a "$arch" "${profile[@]}" || exit 1
lint lintian "$(compgen -G "$work/cyclock_*_$arch.changes")"

# Each package's content, from the .deb.
dest=$work/root lib=/usr/lib/$triplet
mkdir -p "$dest"
for p in "${packages[@]}"; do
	deb=$(compgen -G "$work/${p}_*_$arch.deb")
	dpkg-deb -x "$deb" "$dest"
	dpkg-deb -c "$deb" | awk '{ sub(/^\./, "", $6); print $6 }' | sed 's|/$||' >"$work/$p.list"
	echo "     $p: $(dpkg-deb -f "$deb" Version) $(dpkg-deb -f "$deb" Architecture)," \
		"$(stat -c %s "$deb") bytes, $(dpkg-deb -c "$deb" | grep -vc '/$') files"
done
expect() { # expect PACKAGE PATH...: the package is ARCH's, every PATH in its list
	local p=$1 f missing=() a
	shift
	a=$(dpkg-deb -f "$(compgen -G "$work/${p}_*_$arch.deb")" Architecture)
	for f; do
		grep -qx "$f" "$work/$p.list" || missing+=("$f")
	done
	if [[ $a == "$arch" ]] && ((${#missing[@]} == 0)); then
		ok "contents $p"
	else
		fail "contents $p" "Architecture $a; missing: ${missing[*]}"
	fi
}
expect cyclock /usr/bin/cyclock /usr/share/man/man1/cyclock.1.gz \
	/lib/systemd/system/cyclock-info.service /lib/systemd/system/cyclock-info.timer \
	/usr/share/doc/cyclock/examples/cyclock-preload.conf /usr/share/doc/cyclock/copyright
expect libcyclock0 "$lib/libcyclock.so.0" "$lib/libcyclock.so.0.1.0" "$lib/libcyclock-preload.so" \
	/usr/share/man/man7/cyclock-preload.7.gz
expect libcyclock-dev /usr/include/cyclock.h /usr/include/cyclock.hpp /usr/include/cyclock/core.h \
	"/usr/include/cyclock/arch/$arch.h" "$lib/libcyclock.a" "$lib/libcyclock.so" \
	"$lib/pkgconfig/cyclock.pc" "$lib/cmake/cyclock/cyclockConfig.cmake" \
	/usr/share/man/man3/cyclock_now.3.gz

# A program of ARCH with the packaged libraries.  Under emulation the
# kernel's clocksource is the build machine's, so the library would rightly
# not trust the counter: CYCLOCK_SOURCE=counter, as the cross stages do.
sysroot=/usr/$triplet
[[ -e /usr/lib/$triplet/libc.so.6 ]] && sysroot=/ # (cmake/CyclockCrossLinux.cmake says why)
emu() {
	"qemu-$cpu" -L "$sysroot" -E "LD_LIBRARY_PATH=$dest$lib" -E CYCLOCK_SOURCE=counter "$@"
}
uses_lib() { # the program @1 loads the packaged libcyclock.so.0
	local out
	out=$(emu -E LD_TRACE_LOADED_OBJECTS=1 "$1") &&
		grep -qF "libcyclock.so.0 => $dest$lib/libcyclock.so.0 " <<<"$out"
}

check info emu "$dest/usr/bin/cyclock" info
sed -n '1,3p' "$work/info.log"
first=$(head -1 "$work/info.log")
if [[ $first == "$(info_line "$root")" ]]; then ok "info's build"; else fail "info's build" "$first"; fi
json() {
	local out
	if [[ $arch == riscv64 ]]; then
		! out=$(emu "$dest/usr/bin/cyclock" info --json 2>&1) && grep -q 'without jansson' <<<"$out"
	else
		emu "$dest/usr/bin/cyclock" info --json | python3 -c 'import json, sys; json.load(sys.stdin)'
	fi
}
check json json

# Consumers: pkg-config's flags with the root as sysroot, then
# find_package(cyclock) with the root's /usr as a prefix.
cdir=$root/tests/build/consumer
pc() {
	local flags
	flags=$(PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_LIBDIR=$dest$lib/pkgconfig \
		pkg-config --cflags --libs cyclock) || return 1
	# shellcheck disable=SC2086 # a list of words
	"$triplet-gcc" -std=c11 -Wall -Wextra -Werror "$cdir/main.c" $flags -o "$work/pc_c" &&
		"$triplet-g++" -std=c++11 -Wall -Wextra -Werror "$here/consumer/main.cpp" $flags \
			-o "$work/pc_cxx" &&
		emu "$work/pc_c" && emu "$work/pc_cxx" && uses_lib "$work/pc_c"
}
check pkg-config pc
cm() {
	cmake -S "$here/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$dest/usr" \
		-DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchain-$cpu-linux-gnu.cmake" &&
		cmake --build "$work/cmake" &&
		emu "$work/cmake/consumer_c" && emu "$work/cmake/consumer_cxx" &&
		uses_lib "$work/cmake/consumer_cxx"
}
check cmake cm
grep -h '^consumer' "$work/pkg-config.log" "$work/cmake.log"

preload() {
	"$triplet-gcc" -o "$work/preloaded" "$here/preloaded.c" &&
		emu -E "LD_PRELOAD=$dest$lib/libcyclock-preload.so" "$work/preloaded" >"$work/preloaded.out" &&
		cat "$work/preloaded.out" &&
		grep -q " from $dest$lib/libcyclock-preload.so;" "$work/preloaded.out"
}
check preload preload
grep -h 'preload' "$work/preload.log"
((failed == 0))
