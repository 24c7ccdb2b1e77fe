# Shared by scripts/run.sh, test.sh and cross.sh: source it, don't run it.
# shellcheck shell=bash

# shellcheck disable=SC2034 # used by the scripts that source this file
CYCLOCK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck disable=SC2034
CYCLOCK_JOBS=$(nproc 2>/dev/null || echo 2)

# The Debian package that provides requirement @1.
cyclock__package() {
	case $1 in
	cc) echo gcc ;;
	nm) echo binutils ;;
	cmocka) echo libcmocka-dev ;;
	jansson) echo libjansson-dev ;;
	seccomp) echo libseccomp-dev ;; # the preload's sandbox tests: a filter of the program's own
	python3) echo python3 ;;
	scipy) echo python3-scipy ;; # Google Benchmark's compare.py needs it
	xmllint) echo libxml2-utils ;;
	rsvg-convert) echo librsvg2-bin ;; # the tool's tests render its SVG charts
	gbench-compare) echo libbenchmark-tools ;;
	perf) echo linux-perf ;;                # scripts/crosscheck.sh's
	pg_test_timing) echo postgresql ;;
	benchmark) echo libbenchmark-dev ;;
	taskset) echo util-linux ;;
	clang-tsan) echo libclang-rt-dev ;; # a Recommends of clang: may be missing
	llvm-symbolizer) echo llvm ;;     # TSan's reports (and the preload tests' suppressions)
	arm-none-eabi-gcc) echo gcc-arm-none-eabi ;; # the firmware test's
	aarch64-gcc) echo gcc-aarch64-linux-gnu ;; # scripts/cross.sh's
	riscv64-gcc) echo gcc-riscv64-linux-gnu ;;
	aarch64-g++) echo g++-aarch64-linux-gnu ;; # the package stage's cross builds
	riscv64-g++) echo g++-riscv64-linux-gnu ;;
	qemu-user) echo qemu-user ;;
	# Of arm64, after dpkg --add-architecture arm64 (cyclock_ensure_deps does it)
	cmocka-arm64) echo libcmocka-dev:arm64 ;;
	jansson-arm64) echo libjansson-dev:arm64 ;;
	pkg-config-arm64) echo pkg-config:arm64 ;; # aarch64-linux-gnu-pkg-config
	libstdcxx-arm64) echo libstdc++6:arm64 ;;  # C++ programs under qemu -L /
	linux-source) echo linux-source ;;          # the realworld tests': timers selftests
	cyclictest) echo rt-tests ;;
	postgres) echo postgresql ;;
	psycopg2) echo python3-psycopg2 ;;
	redis-benchmark) echo redis-tools ;; # scripts/servers.sh's (redis-server, nginx, wrk: as named)
	systemd-nspawn) echo systemd-container ;; # realworld: Debian's units under a booted systemd
	sshd) echo openssh-server ;;              # and its ssh.service (the client comes with it)
	mandoc) echo mandoc ;; # tests/build/man.sh's lint
	relacy) echo relacy-dev ;; # the model stage: Relacy, header-only
	jsonschema) echo python3-jsonschema ;;           # cyclock info --json's schema
	prometheus-client) echo python3-prometheus-client ;; # an OpenMetrics parser
	promtool) echo prometheus ;;                     # promtool check metrics
	prometheus-cpp) echo prometheus-cpp-dev ;;       # examples/prometheus
	node-exporter) echo prometheus-node-exporter ;;  # realworld: the textfile collector
	dh) echo debhelper ;;                    # the package stage: dpkg-buildpackage's helpers
	dpkg-buildpackage) echo dpkg-dev ;;      # and dpkg-gensymbols, dpkg-shlibdeps
	systemd-analyze) echo systemd ;;         # verify the units and the drop-in
	man) echo man-db ;;                      # and their man: links
	*) echo "$1" ;; # cmake, make, g++, clang, pkg-config
	esac
}

# PostgreSQL's pg_test_timing, the newest installed, or nothing.
cyclock_pg_test_timing() {
	compgen -G '/usr/lib/postgresql/*/bin/pg_test_timing' | sort -V | tail -1
}

# The newest PostgreSQL's binaries with postgres, initdb, pg_ctl and
# @1 in them ($PGBIN if set), or nothing: for pg_timing.sh and servers.sh.
cyclock_pgbin() {
	local d
	[[ -n ${PGBIN:-} ]] && { echo "$PGBIN"; return; }
	while read -r d; do
		[[ -x $d/postgres && -x $d/initdb && -x $d/pg_ctl && -x $d/$1 ]] && { echo "$d"; return; }
	done < <(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V -r)
}

# A command as the postgres user (a cluster's owner).
cyclock_as_postgres() { runuser -u postgres -- "$@"; }

# What a benchmark ran on, for pg_timing.sh and servers.sh: the machine's
# line; and the ordered read the library chose, from the cyclock tool
# built beside the preload @1 (not preloaded itself).
cyclock_machine_line() {
	local cpu cs
	cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null) || cs=unknown
	echo "machine: ${cpu:-unknown CPU}, $(nproc) CPUs, clocksource $cs, Linux $(uname -r)," \
		"load average $(cut -d ' ' -f 1-3 /proc/loadavg)"
}

cyclock_ordered_line() {
	local tool ordered=''
	tool=$(dirname "$1")/../../tools/cyclock/cyclock
	if [[ -x $tool ]]; then
		ordered=$(env -u LD_PRELOAD "$tool" info 2>/dev/null |
			sed -n 's/^ordered read  *//p' | head -n 1) || true
	fi
	echo "ordered read (cyclock info): ${ordered:-not printed}"
}

# Whether requirement @1 is met.
cyclock__have() {
	case $1 in
	cc) command -v cc || command -v gcc ;;
	seccomp) pkg-config --exists libseccomp ;;
	cmocka | jansson)
		pkg-config --exists "$1" ||
			dpkg-query -W -f='${Status}' "$(cyclock__package "$1")" |
			grep -q 'install ok installed'
		;;
	python3) [[ -x /usr/bin/python3 ]] ;;
	scipy) /usr/bin/python3 -c 'import numpy, scipy' ;;
	gbench-compare) [[ -r /usr/share/benchmark/compare.py ]] ;;
	perf) perf bench sched pipe -l 1 ;;
	pg_test_timing) [[ -n $(cyclock_pg_test_timing) ]] ;;
	benchmark) pkg-config --exists benchmark || [[ -e /usr/include/benchmark/benchmark.h ]] ;;
	aarch64-gcc) command -v aarch64-linux-gnu-gcc ;;
	riscv64-gcc) command -v riscv64-linux-gnu-gcc ;;
	aarch64-g++) command -v aarch64-linux-gnu-g++ ;;
	riscv64-g++) command -v riscv64-linux-gnu-g++ ;;
	qemu-user) command -v qemu-aarch64 && command -v qemu-riscv64 ;;
	*-arm64)
		dpkg-query -W -f='${Status}' "$(cyclock__package "$1")" |
			grep -q 'install ok installed'
		;;
	linux-source) compgen -G '/usr/src/linux-source-*.tar.*' ;;
	postgres) compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' ;;
	psycopg2) /usr/bin/python3 -c 'import psycopg2' ;;
	jsonschema) /usr/bin/python3 -c 'import jsonschema' ;;
	prometheus-client) /usr/bin/python3 -c 'import prometheus_client' ;;
	prometheus-cpp) pkg-config --exists prometheus-cpp-pull ;;
	node-exporter) command -v prometheus-node-exporter ;;
	sshd) [[ -x /usr/sbin/sshd ]] ;; # not on a user's PATH
	relacy) [[ -r /usr/include/relacy/relacy.hpp ]] ;;
	clang-tsan)
		echo 'int main(void) { return 0; }' |
			clang -fsanitize=thread -x c - -o /dev/null
		;;
	*) command -v "$1" ;;
	esac >/dev/null 2>&1
}

# cyclock_ensure_deps REQUIREMENT...: installs the missing ones with
# apt-get when root; otherwise says what to install and exits 1.
# Requirements: cmake cc make g++ clang pkg-config nm cmocka jansson
# python3 (Debian's, /usr/bin/python3) scipy xmllint gbench-compare clang-tsan
# llvm-symbolizer jsonschema prometheus-client promtool rsvg-convert; for the
# man pages' build test: mandoc; for the Prometheus example: prometheus-cpp;
# for the model stage: relacy (cyclock_stage_deps says which stage needs what);
# for scripts/crosscheck.sh: perf pg_test_timing benchmark taskset;
# for the firmware test: arm-none-eabi-gcc qemu-system-arm;
# for scripts/cross.sh: aarch64-gcc riscv64-gcc qemu-user cmocka-arm64
# jansson-arm64 (those of arm64: the architecture is added first);
# for the realworld tests: linux-source cyclictest postgres psycopg2 node-exporter
# redis-server nginx, and for Debian's units booted in a container
# (test_units.sh) systemd-nspawn sshd redis-benchmark wrk;
# for the package stage: dh dpkg-buildpackage lintian systemd-analyze man,
# and for its arm64 and riscv64 packages aarch64-gcc aarch64-g++ riscv64-gcc
# riscv64-g++ qemu-user jansson-arm64 pkg-config-arm64 libstdcxx-arm64;
# for scripts/deb_symbols.sh: dpkg-buildpackage;
# for scripts/pg_timing.sh: postgres psycopg2; for scripts/servers.sh:
# python3 taskset redis-server redis-benchmark nginx wrk postgres.
# (clang's ThreadSanitizer runtime; check it after clang).
cyclock_ensure_deps() {
	local req missing=()
	for req; do
		cyclock__have "$req" || missing+=("$(cyclock__package "$req")")
	done
	((${#missing[@]} == 0)) && return 0
	if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
		echo "cyclock: missing build dependencies; install them first:" >&2
		[[ " ${missing[*]}" != *:arm64* ]] ||
			echo "  sudo dpkg --add-architecture arm64 && sudo apt-get update" >&2
		echo "  sudo apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
	echo "cyclock: installing ${missing[*]}" >&2
	# A package of arm64 (libjansson-dev:arm64) needs the architecture.
	if [[ " ${missing[*]}" == *:arm64* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
	fi
	apt-get update >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >&2
}

# cyclock_stage_deps STAGE: the requirements (cyclock_ensure_deps's names)
# of a stage of scripts/test.sh: what its build and the tests its ctest label
# filter selects need, and nothing more; each stage installs its own as it
# starts ("scripts/test.sh --deps" lists them).
cyclock_stage_deps() {
	# Every build with tests; the cyclock tool's tests (label tool, in the
	# release, asan, tsan and generic stages): JSON checks, Google
	# Benchmark's compare.py, the SVG charts checked (xmllint) and rendered
	# (rsvg-convert), cyclock info's formats (its JSON schema, OpenMetrics,
	# promtool's lint).
	local build="cmake cc make g++ pkg-config nm cmocka jansson"
	local tool="python3 xmllint gbench-compare scipy rsvg-convert jsonschema prometheus-client promtool"
	case $1 in
	release)
		# And the preload's system calls (strace lists them; not under a
		# sanitizer) and a program that sandboxes itself (libseccomp); the
		# build tests: the headers and
		# cyclock.hpp with clang too, the man pages' lint, the Cortex-M3
		# firmware built and run in QEMU, the example exporting
		# cyclock_get_state() through prometheus-cpp; the realworld tests:
		# the kernel's timers selftests, built from Debian's linux-source at
		# test time, rt-tests' cyclictest, PostgreSQL, node_exporter's
		# textfile collector reading cyclock info's metrics, Redis and
		# nginx read by cyclock status under the preload; Debian's own
		# units (Redis, nginx, PostgreSQL, sshd) under a systemd booted in
		# a container, with the drop-in, given work by redis-benchmark, wrk,
		# pgbench (PostgreSQL's) and ssh.
		echo "$build $tool strace seccomp clang mandoc arm-none-eabi-gcc qemu-system-arm prometheus-cpp" \
			"linux-source cyclictest postgres psycopg2 node-exporter redis-server nginx" \
			"systemd-nspawn sshd redis-benchmark wrk"
		;;
	asan) echo "$build $tool" ;;
	# clang's ThreadSanitizer runtime; llvm-symbolizer for its reports.
	tsan) echo "$build $tool clang clang-tsan llvm-symbolizer" ;;
	generic) echo "$build $tool strace seccomp" ;;
	model) echo "cmake cc make g++ relacy" ;; # Debian's Relacy Race Detector, header-only C++
	aarch64) echo "cmake cc make pkg-config aarch64-gcc qemu-user cmocka-arm64 jansson-arm64" ;;
	riscv64) echo "cmake cc make pkg-config riscv64-gcc qemu-user" ;;
	package)
		echo "cmake cc make g++ pkg-config jansson dh dpkg-buildpackage lintian systemd-analyze" \
			"man python3 aarch64-gcc aarch64-g++ riscv64-gcc riscv64-g++ qemu-user jansson-arm64" \
			"pkg-config-arm64 libstdcxx-arm64"
		;;
	*) return 1 ;;
	esac
}

# The counts in CTest's JUnit report @1: "<passed> <failed> <skipped>".
# CTest says "notrun" both for a skip (SKIP_RETURN_CODE, SKIP_REGULAR_EXPRESSION)
# and for a test that could not start (no executable), which is a failure:
# the message of its <skipped/> element tells them apart.
cyclock__junit_counts() {
	awk '
	function count() {
		if (status == "run") p++
		else if (status == "disabled" || (status == "notrun" && msg ~ /^SKIP_/)) s++
		else if (status != "") f++
		status = ""; msg = ""
	}
	/<testcase / {
		count()
		match($0, /status="[^"]*"/); status = substr($0, RSTART + 8, RLENGTH - 9)
	}
	/<skipped message="/ { match($0, /message="[^"]*"/); msg = substr($0, RSTART + 9, RLENGTH - 10) }
	END { count(); printf "%d %d %d\n", p, f, s }' "$1"
}

# cyclock_stage NAME DIR "CTEST ARGS" CMAKE_ARGS...: configures DIR (relative
# to the repository) with CMAKE_ARGS, builds it, runs its tests with CTEST ARGS
# (a list of words; output in DIR/test-stage.log, CTest's JUnit report in
# DIR/test-stage.xml) and sets cyclock_passed, cyclock_failed and
# cyclock_skipped from that report, and cyclock_note.  A failed configure or
# build counts as one failure; so does a ctest that fails with no failed test.
cyclock_stage() {
	local name=$1 rel=$2 dir=$CYCLOCK_ROOT/$2 ctest_args=$3 rc=0 v
	shift 3
	cyclock_passed=0 cyclock_failed=0 cyclock_skipped=0 cyclock_note=""
	# --output-junit is CTest 3.21's (Debian 12 has 3.25).
	v=$(ctest --version | sed -n '1s/^ctest version \([0-9]*\.[0-9]*\).*/\1/p')
	if [[ $(printf '%s\n' 3.21 "$v" | sort -V | head -1) != 3.21 ]]; then
		cyclock_failed=1 cyclock_note="ctest ${v:-?}: 3.21 or later needed"
		return 0
	fi
	echo "==== $name: configure and build ($rel)"
	# Our own test builds make warnings errors (cmake/CyclockOptions.cmake).
	if ! { cmake -S "$CYCLOCK_ROOT" -B "$dir" -DCYCLOCK_WERROR=ON "$@" &&
		cmake --build "$dir" -j "$CYCLOCK_JOBS"; }; then
		cyclock_failed=1 cyclock_note="configure/build failed"
		return 0
	fi
	echo "==== $name: ctest $ctest_args"
	rm -f "$dir/test-stage.xml"
	# shellcheck disable=SC2086 # ctest_args is a list of words
	ctest --test-dir "$dir" --output-on-failure --no-tests=error -j "$CYCLOCK_JOBS" \
		--output-junit "$dir/test-stage.xml" $ctest_args 2>&1 | tee "$dir/test-stage.log" || rc=$?
	if [[ -r $dir/test-stage.xml ]]; then
		read -r cyclock_passed cyclock_failed cyclock_skipped < <(cyclock__junit_counts "$dir/test-stage.xml")
	fi
	if ((rc != 0 && cyclock_failed == 0)); then
		cyclock_failed=1 cyclock_note="ctest exited $rc"
	fi
	return 0
}

# cyclock_cross_stage ARCH (aarch64 or riscv64): what is missing of ARCH's
# cross toolchain and qemu-user installed (cyclock_stage_deps ARCH, in a
# subshell: a miss is this stage's failure), then cyclock_stage in build/cross-ARCH
# with cmake/toolchain-ARCH-linux-gnu.cmake, whose tests CTest runs under
# qemu-user (the toolchain file says how, and the cross build registers only
# what runs there: tests/CMakeLists.txt); then "cyclock info" and
# "cyclock bench --quick" under qemu-user when the tool was built, each one
# more failure if it fails.  riscv64: Debian bookworm has no riscv64 port, so
# no cmocka or jansson for it: the library, the validate and simulation
# programs (no cmocka tests), and the tool without JSON.
cyclock_cross_stage() {
	local arch=$1 dir=build/cross-$1 tool sysroot
	# shellcheck disable=SC2046 # a list of words
	if ! (cyclock_ensure_deps $(cyclock_stage_deps "$arch")); then
		cyclock_passed=0 cyclock_failed=1 cyclock_skipped=0
		cyclock_note="missing dependencies"
		return 0
	fi
	cyclock_stage "cross-$arch" "$dir" "" -DCMAKE_TOOLCHAIN_FILE="cmake/toolchain-$arch-linux-gnu.cmake" \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCYCLOCK_SANITIZE= -DCYCLOCK_BUILD_TESTS=ON
	[[ $cyclock_note != "configure/build failed" ]] || return 0
	tool=$CYCLOCK_ROOT/$dir/tools/cyclock/cyclock
	if [[ ! -x $tool ]]; then
		echo "==== cross-$arch: no cyclock tool: not run"
		return 0
	fi
	# The C library the toolchain file runs the tests with: the multiarch
	# one where it is installed (arm64), else the cross toolchain's.
	sysroot=/usr/$arch-linux-gnu
	[[ -e /usr/lib/$arch-linux-gnu/libc.so.6 ]] && sysroot=/
	echo "==== cross-$arch: cyclock info, cyclock bench --quick (under qemu-$arch)"
	qemu-"$arch" -L "$sysroot" -E CYCLOCK_SOURCE=counter "$tool" info ||
		cyclock_failed=$((cyclock_failed + 1))
	qemu-"$arch" -L "$sysroot" -E CYCLOCK_SOURCE=counter "$tool" bench --quick ||
		cyclock_failed=$((cyclock_failed + 1))
	return 0
}

# cyclock_package_stage: the Debian packages, each architecture's built
# from a clean copy of the tree in a temporary directory and linted: amd64's
# installed, used and purged (tests/package/test_deb.sh; as root), arm64's
# and riscv64's cross-built, extracted and used under qemu-user
# (tests/package/test_deb_foreign.sh), with what they need installed first
# (in a subshell: a miss is this stage's failure).  The output goes to
# build/package/test-stage.log; the checks of the three are the counts.
cyclock_package_stage() {
	local log=$CYCLOCK_ROOT/build/package/test-stage.log line arch n=0
	cyclock_passed=0 cyclock_failed=0 cyclock_skipped=0 cyclock_note=""
	if [[ $(id -u) != 0 ]] || ! command -v dpkg >/dev/null; then
		cyclock_failed=1 cyclock_note="needs root on Debian (dpkg -i)"
		return 0
	fi
	# shellcheck disable=SC2046 # a list of words
	if ! (cyclock_ensure_deps $(cyclock_stage_deps package)); then
		cyclock_failed=1 cyclock_note="missing dependencies"
		return 0
	fi
	mkdir -p "${log%/*}"
	echo "==== package: tests/package/test_deb.sh, test_deb_foreign.sh arm64 and riscv64" \
		"(log: build/package/test-stage.log)"
	# Each runs whatever the others did (and test.sh's set -e stops nothing).
	{
		CYCLOCK_JOBS=$CYCLOCK_JOBS "$CYCLOCK_ROOT/tests/package/test_deb.sh" || true
		for arch in arm64 riscv64; do
			CYCLOCK_JOBS=$CYCLOCK_JOBS "$CYCLOCK_ROOT/tests/package/test_deb_foreign.sh" "$arch" || true
		done
	} 2>&1 | tee "$log"
	while read -r line; do
		[[ $line =~ ^package(-[a-z0-9]+)?:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]] || continue
		cyclock_passed=$((cyclock_passed + BASH_REMATCH[2]))
		cyclock_failed=$((cyclock_failed + BASH_REMATCH[3]))
		n=$((n + 1))
	done <"$log"
	if ((n != 3)); then
		cyclock_failed=$((cyclock_failed + 1))
		cyclock_note="$n of the 3 scripts printed their counts"
	fi
}
