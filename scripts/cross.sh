#!/usr/bin/env bash
# Cross build and test under qemu-user:
#   scripts/cross.sh aarch64|riscv64
# Builds build/cross-ARCH with cmake/toolchain-ARCH-linux-gnu.cmake, runs
# its tests under qemu-user (the toolchain file makes CTest do so, with
# CYCLOCK_SOURCE=counter, since the kernel's clocksource seen under
# emulation is the build machine's; a cross build registers only the tests
# that run there, tests/CMakeLists.txt says which not and why), then
# "cyclock info" and "cyclock bench --quick" when the tool was built: the
# stage scripts/test.sh runs too (cyclock_cross_stage in scripts/lib.sh).
# The last line is "N passed, N failed"; the exit status is non-zero if
# anything failed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

arch=${1:-}
if [[ $arch != aarch64 && $arch != riscv64 ]]; then
	echo "usage: scripts/cross.sh aarch64|riscv64" >&2
	exit 2
fi
start=$SECONDS
cyclock_cross_stage "$arch"

echo
printf 'cross-%s %3d passed, %d failed, %d skipped  (%d s)%s\n' "$arch" "$cyclock_passed" \
	"$cyclock_failed" "$cyclock_skipped" $((SECONDS - start)) "${cyclock_note:+  -- $cyclock_note}"
echo "$cyclock_passed passed, $cyclock_failed failed"
((cyclock_failed == 0))
