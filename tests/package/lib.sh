# What test_deb.sh (amd64, installed) and test_deb_foreign.sh (arm64 and
# riscv64, extracted and run under qemu-user) share: source it, don't run it.
# The sourcing script sets $work (its work directory) first.
# shellcheck shell=bash disable=SC2154 # $work: the sourcing script's

passed=0 failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1: $2"; failed=$((failed + 1)); }
check() { # check NAME COMMAND...: ok if the command succeeds
	local name=$1
	shift
	if "$@" >"$work/$name.log" 2>&1; then ok "$name"; else fail "$name" "$(tail -5 "$work/$name.log")"; fi
}

# copy_tree ROOT DEST: a clean copy of the tree at ROOT in DEST: the
# checkout's files as git knows them (tracked and new, not ignored, so no
# build/), or the tree less build/ outside git.
copy_tree() {
	mkdir -p "$2"
	if git -C "$1" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$1" ls-files -z -co --exclude-standard |
			tar -C "$1" --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -C "$2" -xf -
	else
		tar -C "$1" --exclude=./build --exclude=./.git -cf - . | tar -C "$2" -xf -
	fi
}

# build_debs NAME SRC ARGS...: dpkg-buildpackage -b -us -uc ARGS in SRC (no
# network, no tests; dpkg-gensymbols -c4 against debian/libcyclock0.symbols,
# dh_missing: every installed file in a package), output in $work/NAME.log;
# check NAME with its time.  Fails if the build does.
build_debs() {
	local name=$1 src=$2 start=$SECONDS
	shift 2
	echo "==== dpkg-buildpackage -b -us -uc${*:+ $*} (log: $work/$name.log)"
	if ! (cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=${CYCLOCK_JOBS:-2}" \
		dpkg-buildpackage -b -us -uc "$@") >"$work/$name.log" 2>&1; then
		fail "$name" "$(grep -E '^(dh_[a-z]+|dpkg-[a-z]+|make(\[[0-9]+\])?): |error: ' "$work/$name.log" |
			grep -v 'directory' | tail -8)"
		return 1
	fi
	ok "$name ($((SECONDS - start)) s)"
}

# lint NAME CHANGES: lintian on the .changes (its .debs): errors and
# warnings fail; overrides (debian/*.lintian-overrides) say why for each one kept.
lint() {
	local rc=0
	lintian --fail-on error,warning --info --pedantic "$2" >"$work/$1.log" 2>&1 || rc=$?
	grep -v 'running with root privileges' "$work/$1.log"
	if ((rc == 0)); then ok "$1"; else fail "$1" "exit $rc, see above"; fi
}

# The first line "cyclock info" prints, for the packages' build: debhelper's
# CMAKE_BUILD_TYPE=None with dpkg-buildflags' -O2, named in debian/rules.
info_line() {
	echo "cyclock $(sed -n 's/^project(cyclock VERSION \([^ )]*\).*/\1/p' "$1/CMakeLists.txt") (Debian -O2 build)"
}
