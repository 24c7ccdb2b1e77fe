#!/usr/bin/env bash
# The test command: every test in seven builds, and the Debian packages.
#   release  build/release  RelWithDebInfo, all tests (test, sim, validate,
#                           build, realworld: the kernel's clock changed for real)
#   asan     build/asan     Debug, ASan+UBSan, all but the build and realworld tests
#   tsan     build/tsan     ThreadSanitizer (clang if present), the validate
#                           programs, the cyclock tool (its scenarios run
#                           threads), the preload
#   generic  build/generic  as an architecture without a counter (the kernel's
#                           clocks), all but the build and realworld tests
#   model    build/model    the Relacy model checker's harnesses (tests/model,
#                           docs/model.md): the latches under C11's memory model
#   aarch64  build/cross-aarch64  cross-built, tests run under qemu-user (a
#   riscv64  build/cross-riscv64  cross build registers only what runs there)
#   package  the Debian packages (debian/), built from a clean copy of the tree
#            in a temporary directory and linted: amd64's installed, used and
#            purged (tests/package/test_deb.sh; as root), arm64's and riscv64's
#            cross-built and used under qemu-user (test_deb_foreign.sh): its
#            checks are the counts
# Each stage installs what it needs as it starts (scripts/lib.sh's
# cyclock_stage_deps; a miss is that stage's failure): "scripts/test.sh
# --deps" lists it by stage and runs nothing.
# CYCLOCK_TEST_STAGES="release tsan" runs a subset.  Every stage runs even
# if one fails; the last line is "N passed, N failed" over all stages, and
# the exit status is non-zero if anything failed.  A stage whose configure
# or build fails counts as one failure.  Each stage is cyclock_stage (or
# cyclock_cross_stage, which scripts/cross.sh runs alone) of scripts/lib.sh.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stages=${CYCLOCK_TEST_STAGES:-release asan tsan generic model aarch64 riscv64 package}
for s in $stages; do
	cyclock_stage_deps "$s" >/dev/null || {
		echo "cyclock: unknown stage '$s' in CYCLOCK_TEST_STAGES" \
			"(release asan tsan generic model aarch64 riscv64 package)" >&2
		exit 2
	}
done
# --deps: what each stage would install (cyclock_stage_deps), and nothing run.
if [[ ${1:-} == --deps ]]; then
	for s in $stages; do
		echo "$s: $(cyclock_stage_deps "$s")"
	done
	exit 0
fi
cd "$CYCLOCK_ROOT"

total_passed=0 total_failed=0
results=()

# record NAME START: the summary line of the stage just run, from the
# counts cyclock_stage or cyclock_cross_stage left.
record() {
	local line
	printf -v line '%-8s %3d passed, %d failed, %d skipped  (%d s)%s' "$1" "$cyclock_passed" \
		"$cyclock_failed" "$cyclock_skipped" $((SECONDS - $2)) "${cyclock_note:+  -- $cyclock_note}"
	results+=("$line")
	total_passed=$((total_passed + cyclock_passed))
	total_failed=$((total_failed + cyclock_failed))
}

stage() {
	local start=$SECONDS
	# The stage's own requirements (a miss is its failure); the cross and
	# package stages install theirs themselves.
	# shellcheck disable=SC2046 # a list of words
	if [[ $1 != aarch64 && $1 != riscv64 && $1 != package ]] &&
		! (cyclock_ensure_deps $(cyclock_stage_deps "$1")); then
		cyclock_passed=0 cyclock_failed=1 cyclock_skipped=0 cyclock_note="missing dependencies"
		record "$1" "$start"
		return
	fi
	case $1 in
	release)
		cyclock_stage release build/release "" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DCYCLOCK_SANITIZE= -DCYCLOCK_BUILD_TESTS=ON -DCYCLOCK_BUILD_EXAMPLES=ON
		;;
	asan)
		cyclock_stage asan build/asan "-LE build|realworld" -DCMAKE_BUILD_TYPE=Debug \
			-DCYCLOCK_SANITIZE=address,undefined -DCYCLOCK_BUILD_TESTS=ON
		;;
	tsan)
		# clang: a second compiler in the matrix, and no -Wtsan noise (GCC 12
		# warns that TSan does not model atomic_thread_fence; neither does clang's).
		local cc=()
		command -v clang >/dev/null && cc=(-DCMAKE_C_COMPILER=clang)
		cyclock_stage tsan build/tsan "-L validate|tool|preload -LE realworld" \
			-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCYCLOCK_SANITIZE=thread \
			-DCYCLOCK_BUILD_TESTS=ON "${cc[@]}"
		;;
	generic)
		# Any architecture without a counter of its own: arch/generic.h,
		# the kernel's clocks, with the same tests.
		cyclock_stage generic build/generic "-LE build|realworld" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DCYCLOCK_SANITIZE= -DCYCLOCK_BUILD_TESTS=ON \
			-DCMAKE_C_FLAGS=-DCYCLOCK_ARCH_GENERIC
		;;
	model)
		# The library's own files as C++ against Relacy, nothing else.
		cyclock_stage model build/model "-L model" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DCYCLOCK_SANITIZE= -DCYCLOCK_BUILD_MODEL=ON -DCYCLOCK_BUILD_TESTS=OFF \
			-DCYCLOCK_BUILD_EXAMPLES=OFF -DCYCLOCK_BUILD_TOOL=OFF -DCYCLOCK_BUILD_BENCH=OFF
		;;
	aarch64 | riscv64)
		cyclock_cross_stage "$1"
		;;
	package)
		cyclock_package_stage
		;;
	esac
	record "$1" "$start"
}

for s in $stages; do
	stage "$s"
done

echo
echo "==== summary ($SECONDS s)"
printf '%s\n' "${results[@]}"
echo "$total_passed passed, $total_failed failed"
((total_failed == 0))
