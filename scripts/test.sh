#!/usr/bin/env bash
# The test command: every test in six builds.
#   release  build/release  RelWithDebInfo, all tests (unit, concurrency, build,
#                           realworld: the kernel's clock changed for real)
#   asan     build/asan     Debug, ASan+UBSan, all but the build and realworld tests
#   tsan     build/tsan     ThreadSanitizer (clang if present), concurrency, the
#                           cyclock tool (its scenarios run threads), the preload
#   generic  build/generic  as an architecture without a counter (the kernel's
#                           clocks), all but the build and realworld tests
#   aarch64  build/cross-aarch64  cross-built, tests run under qemu-user
#   riscv64  build/cross-riscv64  (scripts/cross.sh says which run)
# CYCLOCK_TEST_STAGES="release tsan" runs a subset.  Every stage runs even
# if one fails; the last line is "N passed, N failed" over all stages, and
# the exit status is non-zero if anything failed.  A stage whose configure
# or build fails counts as one failure.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cyclock_ensure_deps cmake cc make g++ clang pkg-config nm cmocka jansson
# The cyclock tool's tests: JSON checks, Google Benchmark's compare.py, SVG.
cyclock_ensure_deps python3 xmllint gbench-compare scipy
# The Cortex-M3 firmware, built and run in QEMU (a build test).
cyclock_ensure_deps arm-none-eabi-gcc qemu-system-arm
cyclock_ensure_deps clang-tsan llvm-symbolizer
# The realworld tests (release only): the kernel's timers selftests, built
# from Debian's linux-source at test time, rt-tests' cyclictest, PostgreSQL.
cyclock_ensure_deps linux-source cyclictest postgres psycopg2
cd "$CYCLOCK_ROOT"

total_passed=0 total_failed=0
results=()

# The counts in a ctest log: "<passed> <failed> <skipped>".  CTest counts a
# skipped test as passed in "N% tests passed, F tests failed out of T", so
# the skipped ones, listed under "did not run", are taken out.
ctest_counts() {
	local log=$1 line total failed skipped
	line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
	[[ -n $line ]] || { echo "0 0 0"; return; }
	failed=$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$line")
	total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
	skipped=$(sed -n '/^The following tests did not run:/,/^$/p' "$log" |
		grep -cE '\((Skipped|Disabled)\)$' || true)
	echo "$((total - failed - skipped)) $failed $skipped"
}

# run_stage NAME DIR "CTEST ARGS" CMAKE_ARGS...
run_stage() {
	local name=$1 dir=$2 ctest_args=$3
	shift 3
	local start=$SECONDS log=$dir/test-stage.log rc=0 passed failed skipped note=""
	echo "==== $name: configure and build ($dir)"
	if ! { cmake -S . -B "$dir" "$@" && cmake --build "$dir" -j "$CYCLOCK_JOBS"; }; then
		record "$name" 0 1 0 "$start" "configure/build failed"
		return
	fi
	echo "==== $name: ctest $ctest_args"
	# shellcheck disable=SC2086 # ctest_args is a list of words
	ctest --test-dir "$dir" --output-on-failure --no-tests=error \
		-j "$CYCLOCK_JOBS" $ctest_args 2>&1 | tee "$log" || rc=$?
	read -r passed failed skipped < <(ctest_counts "$log")
	if ((rc != 0 && failed == 0)); then
		failed=1 note="ctest exited $rc"
	fi
	record "$name" "$passed" "$failed" "$skipped" "$start" "$note"
}

# record NAME PASSED FAILED SKIPPED START NOTE
record() {
	local line
	printf -v line '%-8s %3d passed, %d failed, %d skipped  (%d s)%s' "$1" "$2" "$3" \
		"$4" $((SECONDS - $5)) "${6:+  -- $6}"
	results+=("$line")
	total_passed=$((total_passed + $2))
	total_failed=$((total_failed + $3))
}

stage() {
	case $1 in
	release)
		run_stage release build/release "" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DCYCLOCK_SANITIZE= -DCYCLOCK_BUILD_TESTS=ON -DCYCLOCK_BUILD_EXAMPLES=ON
		;;
	asan)
		run_stage asan build/asan "-LE build|realworld" -DCMAKE_BUILD_TYPE=Debug \
			-DCYCLOCK_SANITIZE=address,undefined -DCYCLOCK_BUILD_TESTS=ON
		;;
	tsan)
		# clang: a second compiler in the matrix, and no -Wtsan noise (GCC 12
		# warns that TSan does not model atomic_thread_fence; neither does clang's).
		local cc=()
		command -v clang >/dev/null && cc=(-DCMAKE_C_COMPILER=clang)
		run_stage tsan build/tsan "-L concurrency|cli|preload" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DCYCLOCK_SANITIZE=thread -DCYCLOCK_BUILD_TESTS=ON "${cc[@]}"
		;;
	generic)
		# Any architecture without a counter of its own: arch/generic.h,
		# the kernel's clocks, with the same tests.
		run_stage generic build/generic "-LE build|realworld" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DCYCLOCK_SANITIZE= -DCYCLOCK_BUILD_TESTS=ON \
			-DCMAKE_C_FLAGS=-DCYCLOCK_ARCH_GENERIC
		;;
	aarch64 | riscv64)
		cross_stage "$1"
		;;
	*)
		echo "cyclock: unknown stage '$1' in CYCLOCK_TEST_STAGES" \
			"(release asan tsan generic aarch64 riscv64)" >&2
		exit 2
		;;
	esac
}

# A cross stage: scripts/cross.sh builds build/cross-ARCH and runs its tests
# under qemu-user; its summary line is "cross-ARCH N passed, N failed, N skipped".
cross_stage() {
	local start=$SECONDS log=build/cross-$1.log passed=0 failed=0 skipped=0 line rc=0
	mkdir -p build
	bash scripts/cross.sh "$1" 2>&1 | tee "$log" || rc=$?
	line=$(grep -E "^cross-$1 +[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped" "$log" | tail -1)
	if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped ]]; then
		passed=${BASH_REMATCH[1]} failed=${BASH_REMATCH[2]} skipped=${BASH_REMATCH[3]}
	fi
	((rc != 0 && failed == 0)) && failed=1
	record "$1" "$passed" "$failed" "$skipped" "$start" ""
}

for s in ${CYCLOCK_TEST_STAGES:-release asan tsan generic aarch64 riscv64}; do
	stage "$s"
done

echo
echo "==== summary ($SECONDS s)"
printf '%s\n' "${results[@]}"
echo "$total_passed passed, $total_failed failed"
((total_failed == 0))
