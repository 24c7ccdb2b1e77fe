#!/usr/bin/env bash
# The Debian packages as a user gets them (scripts/test.sh's package stage;
# as root, on Debian): built with dpkg-buildpackage from a clean copy of the
# tree, linted, installed with dpkg, used, purged.  Each check prints "ok
# NAME" or "FAIL: NAME: why"; the last line is "package: N passed, N failed".
#   tests/package/test_deb.sh [WORKDIR]   (default: a new temporary directory)
# What it checks:
#   version     debian/rules refuses a changelog whose version is not CMake's
#   build       DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -us -uc (no
#               network; dpkg-gensymbols -c4 against debian/libcyclock0.symbols,
#               dh_missing: every installed file in a package)
#   lintian     no error and no warning but the overridden ones (debian/*.lintian-overrides)
#   install     dpkg -i of the three packages; each holds what it should, the
#               libraries in /usr/lib/<triplet>
#   info        the installed cyclock info runs; its first line names the
#               build "Debian -O2" (debian/rules), not CMake's "None"
#   pkg-config, cmake   a C and a C++ consumer built against libcyclock-dev
#               both ways, and run
#   run         cyclock run serves a program with the installed preload
#   units as fleet.md   the installed units are docs/fleet.md's recipe
#   units, drop-in      systemd-analyze verify, offline (PID 1 need not be
#               systemd): the fleet units; the drop-in applied to a unit, and
#               a broken copy of it refused
#   purge       dpkg --purge leaves nothing in /usr, /etc, /var/lib/systemd
# Cyclock packages already installed (a run killed before its cleanup) are
# purged first, and said so.  Everything is undone on every way out.
# arm64 and riscv64: test_deb_foreign.sh.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
packages=(cyclock libcyclock0 libcyclock-dev)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
# shellcheck source=tests/package/lib.sh
source "$here/lib.sh"
installed() { dpkg-query -W -f='${Package} ${Version}\n' "${packages[@]}" 2>/dev/null |
	awk 'NF == 2'; }
# dpkg ARGS..., waiting for its lock while another apt-get or dpkg of this
# shared machine holds it (up to 10 minutes).
dpkg_wait() {
	local i out rc=1
	for ((i = 0; i < 120; i++)); do
		out=$(dpkg "$@" 2>&1) && { echo "$out"; return 0; }
		rc=$?
		grep -q 'lock was locked by another process' <<<"$out" || break
		sleep 5
	done
	echo "$out"
	return "$rc"
}
purge() { dpkg_wait --purge "${packages[@]}" >"$work/purge.log" 2>&1; }
# On every way out; to fd 3, the script's stdout, as a signal may come
# while a check's output goes to its log.
finish() {
	[[ -n $(installed) ]] && purge
	[[ -n ${own_work:-} ]] && rm -rf "$work"
	echo "package: $passed passed, $failed failed" >&3
}
exec 3>&1

if [[ $(id -u) != 0 ]]; then
	echo "FAIL: package: needs root (dpkg -i)"
	echo "package: 0 passed, 1 failed"
	exit 1
fi
if [[ -n ${1:-} ]]; then
	work=$1
	rm -rf "$work" && mkdir -p "$work"
else
	work=$(mktemp -d /tmp/cyclock-package.XXXXXX) own_work=1
fi
trap finish EXIT
trap 'fail interrupted "by a signal" >&3; exit 130' INT TERM HUP

if [[ -n $(installed) ]]; then
	echo "note: already installed, purged first: $(installed | tr '\n' ' ')"
	purge || { fail purge-first "$(tail -3 "$work/purge.log")"; exit 1; }
fi

src=$work/src
copy_tree "$root" "$src"

# The one version: a changelog that disagrees with CMakeLists.txt stops the build.
cp "$src/debian/changelog" "$work/changelog"
sed -i '1s/(\([^)]*\))/(\1.99)/' "$src/debian/changelog"
if (cd "$src" && debian/rules clean) >"$work/version.log" 2>&1; then
	fail version "debian/rules ran with a changelog that is not CMake's version"
elif grep -q "is not CMakeLists.txt's" "$work/version.log"; then
	ok version
else
	fail version "$(tail -3 "$work/version.log")"
fi
cp "$work/changelog" "$src/debian/changelog"

build_debs build "$src" || exit 1
changes=$(compgen -G "$work/cyclock_*.changes")
debs=()
for p in "${packages[@]}"; do
	debs+=("$(compgen -G "$work/${p}_*.deb")")
done

lint lintian "$changes"

# What was there before, to compare after the purge.
snapshot() {
	find /usr /etc /var/lib/systemd -xdev 2>/dev/null | sort
}
snapshot >"$work/before"

check install dpkg_wait -i "${debs[@]}"
for p in "${packages[@]}"; do
	dpkg -L "$p" >"$work/$p.list" 2>/dev/null
	echo "     $p: $(stat -c %s "$work/${p}_"*.deb) bytes, $(dpkg-deb -c "$work/${p}_"*.deb |
		grep -vc '/$') files"
done
# Each package's content, by path as dpkg lists it.
expect() { # expect PACKAGE PATH...: every PATH in PACKAGE's list and on disk
	local p=$1 f missing=()
	shift
	for f; do
		grep -qx "$f" "$work/$p.list" && [[ -e $f ]] || missing+=("$f")
	done
	if ((${#missing[@]} == 0)); then
		ok "contents $p"
	else
		fail "contents $p" "missing: ${missing[*]}"
	fi
}
lib=/usr/lib/$triplet
expect cyclock /usr/bin/cyclock /usr/share/man/man1/cyclock.1.gz \
	/lib/systemd/system/cyclock-info.service /lib/systemd/system/cyclock-info.timer \
	/usr/share/doc/cyclock/examples/cyclock-preload.conf /usr/share/doc/cyclock/copyright
expect libcyclock0 "$lib/libcyclock.so.0" "$lib"/libcyclock.so.0.* "$lib/libcyclock-preload.so" \
	/usr/share/man/man7/cyclock-preload.7.gz
expect libcyclock-dev /usr/include/cyclock.h /usr/include/cyclock.hpp /usr/include/cyclock/core.h \
	/usr/include/cyclock/arch/x86_64.h "$lib/libcyclock.a" "$lib/libcyclock.so" \
	"$lib/pkgconfig/cyclock.pc" "$lib/cmake/cyclock/cyclockConfig.cmake" \
	/usr/share/man/man3/cyclock_now.3.gz

check info /usr/bin/cyclock info
sed -n '1,3p' "$work/info.log"
first=$(head -1 "$work/info.log")
if [[ $first == "$(info_line "$root")" ]]; then ok "info's build"; else fail "info's build" "$first"; fi

# (Not "ldd | grep -q": grep's early exit fails the pipe under pipefail.)
uses_lib() { # the program @1 loads the packaged libcyclock.so.0 (/lib is /usr/lib)
	local out
	out=$(ldd "$1") && grep -qE "libcyclock.so.0 => (/usr)?/lib/$triplet/libcyclock.so.0 " <<<"$out"
}

# Consumers: pkg-config's flags alone, then find_package(cyclock); no prefix given.
cdir=$root/tests/build/consumer
pc() {
	local flags
	flags=$(pkg-config --cflags --libs cyclock) || return 1
	# shellcheck disable=SC2086 # a list of words
	cc -std=c11 -Wall -Wextra -Werror "$cdir/main.c" $flags -o "$work/pc_c" &&
		g++ -std=c++11 -Wall -Wextra -Werror "$here/consumer/main.cpp" $flags -o "$work/pc_cxx" &&
		"$work/pc_c" && "$work/pc_cxx" &&
		uses_lib "$work/pc_c"
}
check pkg-config pc
cm() {
	cmake -S "$here/consumer" -B "$work/cmake" && cmake --build "$work/cmake" &&
		"$work/cmake/consumer_c" && "$work/cmake/consumer_cxx" &&
		uses_lib "$work/cmake/consumer_cxx"
}
check cmake cm
grep -h '^consumer' "$work/pkg-config.log" "$work/cmake.log"

# cyclock run: the installed tool finds the installed preload, the program
# sees it (its marker) and maps it.
run() {
	cc -o "$work/preloaded" "$here/preloaded.c" &&
		/usr/bin/cyclock run -v -- "$work/preloaded" &&
		/usr/bin/cyclock run -- cat /proc/self/maps >"$work/maps" &&
		grep -q " $lib/libcyclock-preload.so\$" "$work/maps"
}
check run run
grep -h 'preload' "$work/run.log"

# systemd-analyze verify says what is wrong on stderr and exits 0 for most
# of it: any output is a failure.  Offline: the units as installed (their
# ExecStart and man page must exist), and the drop-in on a unit of a unit
# path of our own (SYSTEMD_UNIT_PATH).
quiet() { # quiet COMMAND...: succeeds and prints nothing
	local out
	if ! out=$("$@" 2>&1) || [[ -n $out ]]; then
		echo "$out"
		return 1
	fi
}
check units quiet systemd-analyze verify /lib/systemd/system/cyclock-info.service \
	/lib/systemd/system/cyclock-info.timer
# The units are docs/fleet.md's recipe, with the package's path to the tool.
fleet_block() { # the ini block after "`/etc/systemd/system/@1`:" in fleet.md
	awk -v f="\`/etc/systemd/system/$1\`:" '$0 == f { on = 1; next }
		on && /^```ini/ { next } on && /^```/ { exit } on' "$root/docs/fleet.md"
}
as_fleet() {
	local u
	for u in cyclock-info.service cyclock-info.timer; do
		diff <(fleet_block "$u" | sed 's|/usr/local/bin/cyclock|/usr/bin/cyclock|') \
			<(grep -v '^#' "/lib/systemd/system/$u") || return 1
	done
}
check "units as fleet.md" as_fleet
units=$work/units
mkdir -p "$units/cyclock-demo.service.d"
printf '[Unit]\nDescription=a service served by the preload\n\n[Service]\nExecStart=/bin/sleep 60\n' \
	>"$units/cyclock-demo.service"
cp /usr/share/doc/cyclock/examples/cyclock-preload.conf "$units/cyclock-demo.service.d/"
verify() { SYSTEMD_UNIT_PATH=$units: systemd-analyze verify cyclock-demo.service; }
dropin() {
	local out
	grep -qx "Environment=LD_PRELOAD=$lib/libcyclock-preload.so" \
		"$units/cyclock-demo.service.d/cyclock-preload.conf" && quiet verify || return 1
	# The same check must see a broken drop-in, or it proves nothing.
	echo 'Enviroment=CYCLOCK_PRELOAD_RELAXED=1' >>"$units/cyclock-demo.service.d/cyclock-preload.conf"
	out=$(verify 2>&1)
	grep -q "cyclock-preload.conf.*Enviroment" <<<"$out"
}
check drop-in dropin

# Purge: nothing of the packages left, and nothing else new.
check purge purge
[[ -z $(installed) ]] || fail purged "still installed: $(installed)"
snapshot >"$work/after"
left=$(comm -13 "$work/before" "$work/after")
gone=$(comm -23 "$work/before" "$work/after")
ours=$(cat "$work"/*.list | sort -u)
stray=$(grep -i cyclock <<<"$left" || true)
stray+=$(comm -12 <(sort -u <<<"$left") <(sort -u <<<"$ours") | grep -vi cyclock || true)
if [[ -n $stray || -n $gone ]]; then
	fail "nothing left" "left: ${stray:-none}; gone: ${gone:-none}"
else
	ok "nothing left"
	[[ -z $left ]] || echo "note: new meanwhile, not the packages': $(head -5 <<<"$left" | tr '\n' ' ')"
fi
((failed == 0))
