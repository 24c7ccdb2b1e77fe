# Shared by scripts/test.sh and scripts/run.sh: source it, don't run it.
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
	python3) echo python3 ;;
	scipy) echo python3-scipy ;; # Google Benchmark's compare.py needs it
	xmllint) echo libxml2-utils ;;
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
	qemu-user) echo qemu-user ;;
	cmocka-arm64) echo libcmocka-dev:arm64 ;; # needs dpkg --add-architecture arm64
	jansson-arm64) echo libjansson-dev:arm64 ;;
	linux-source) echo linux-source ;;          # the realworld tests': timers selftests
	cyclictest) echo rt-tests ;;
	postgres) echo postgresql ;;
	psycopg2) echo python3-psycopg2 ;;
	*) echo "$1" ;; # cmake, make, g++, clang, pkg-config
	esac
}

# PostgreSQL's pg_test_timing, the newest installed, or nothing.
cyclock_pg_test_timing() {
	compgen -G '/usr/lib/postgresql/*/bin/pg_test_timing' | sort -V | tail -1
}

# Whether requirement @1 is met.
cyclock__have() {
	case $1 in
	cc) command -v cc || command -v gcc ;;
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
	qemu-user) command -v qemu-aarch64 && command -v qemu-riscv64 ;;
	cmocka-arm64 | jansson-arm64)
		dpkg-query -W -f='${Status}' "$(cyclock__package "$1")" |
			grep -q 'install ok installed'
		;;
	linux-source) compgen -G '/usr/src/linux-source-*.tar.*' ;;
	postgres) compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' ;;
	psycopg2) /usr/bin/python3 -c 'import psycopg2' ;;
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
# llvm-symbolizer;
# for scripts/crosscheck.sh: perf pg_test_timing benchmark taskset;
# for the firmware test: arm-none-eabi-gcc qemu-system-arm;
# for scripts/cross.sh: aarch64-gcc riscv64-gcc qemu-user cmocka-arm64
# jansson-arm64 (the last two after dpkg --add-architecture arm64);
# for the realworld tests: linux-source cyclictest postgres psycopg2.
# (clang's ThreadSanitizer runtime; check it after clang).
cyclock_ensure_deps() {
	local req missing=()
	for req; do
		cyclock__have "$req" || missing+=("$(cyclock__package "$req")")
	done
	((${#missing[@]} == 0)) && return 0
	if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
		echo "cyclock: missing build dependencies; install them first:" >&2
		echo "  sudo apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
	echo "cyclock: installing ${missing[*]}" >&2
	apt-get update >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >&2
}
