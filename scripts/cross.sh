#!/usr/bin/env bash
# Cross build and test under qemu-user:
#   scripts/cross.sh aarch64|riscv64
# Builds build/cross-ARCH with cmake/toolchain-ARCH-linux-gnu.cmake, runs
# its tests under qemu-user (the toolchain file makes CTest do so, with
# CYCLOCK_SOURCE=counter, since the kernel's clocksource seen under
# emulation is the build machine's), then "cyclock info" and
# "cyclock bench --quick" when the tool was built.  Not run:
#   build  the install and C++ checks build consumers with the host's
#          compilers; freestanding_cross is the native stage's
#   cli    the scripts run the tool directly, which needs binfmt_misc
#   preload  LD_PRELOAD would reach qemu itself, a build-machine program
# riscv64: Debian bookworm has no riscv64 port, so no cmocka or jansson for
# it: the library, the stress and simulation programs (no cmocka unit
# tests), and the tool without JSON.  The last line is "N passed, N failed"; the exit status is
# non-zero if anything failed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

arch=${1:-}
case $arch in
aarch64)
	# libcmocka-dev:arm64 and libjansson-dev:arm64 need the architecture.
	if [[ $(id -u) == 0 ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
		apt-get update >&2
	fi
	cyclock_ensure_deps cmake cc make pkg-config aarch64-gcc qemu-user cmocka-arm64 jansson-arm64
	;;
riscv64)
	cyclock_ensure_deps cmake cc make pkg-config riscv64-gcc qemu-user
	;;
*)
	echo "usage: scripts/cross.sh aarch64|riscv64" >&2
	exit 2
	;;
esac
cd "$CYCLOCK_ROOT"
dir=build/cross-$arch
log=$dir/test-stage.log
start=$SECONDS passed=0 failed=0 skipped=0 rc=0

echo "==== cross-$arch: configure and build ($dir)"
if ! { cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE="cmake/toolchain-$arch-linux-gnu.cmake" \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCYCLOCK_SANITIZE= -DCYCLOCK_BUILD_TESTS=ON &&
	cmake --build "$dir" -j "$CYCLOCK_JOBS"; }; then
	echo "cross-$arch: configure/build failed"
	echo "0 passed, 1 failed"
	exit 1
fi

echo "==== cross-$arch: ctest -LE 'build|cli|preload|realworld' (under qemu-$arch)"
ctest --test-dir "$dir" --output-on-failure --no-tests=error -j "$CYCLOCK_JOBS" \
	-LE 'build|cli|preload|realworld' 2>&1 | tee "$log" || rc=$?
# As scripts/test.sh counts: CTest counts a skipped test as passed.
if line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1); then
	failed=$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$line")
	total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
	skipped=$(sed -n '/^The following tests did not run:/,/^$/p' "$log" |
		grep -cE '\((Skipped|Disabled)\)$' || true)
	passed=$((total - failed - skipped))
fi
((rc != 0 && failed == 0)) && failed=1

tool=$dir/tools/cyclock/cyclock
if [[ -x $tool ]]; then
	# The C library the toolchain file runs the tests with: the multiarch
	# one where it is installed (arm64), else the cross toolchain's.
	sysroot=/usr/$arch-linux-gnu
	[[ -e /usr/lib/$arch-linux-gnu/libc.so.6 ]] && sysroot=/
	qemu=(qemu-"$arch" -L "$sysroot" -E CYCLOCK_SOURCE=counter)
	echo "==== cross-$arch: cyclock info, cyclock bench --quick (under qemu-$arch)"
	"${qemu[@]}" "$tool" info || failed=$((failed + 1))
	"${qemu[@]}" "$tool" bench --quick || failed=$((failed + 1))
else
	echo "==== cross-$arch: no cyclock tool: not run"
fi

echo
printf 'cross-%s %3d passed, %d failed, %d skipped  (%d s)\n' "$arch" "$passed" "$failed" \
	"$skipped" $((SECONDS - start))
echo "$passed passed, $failed failed"
((failed == 0))
