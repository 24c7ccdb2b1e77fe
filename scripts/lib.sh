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
	clang-tsan) echo libclang-rt-dev ;; # a Recommends of clang: may be missing
	*) echo "$1" ;; # cmake, make, g++, clang, pkg-config
	esac
}

# Whether requirement @1 is met.
cyclock__have() {
	case $1 in
	cc) command -v cc || command -v gcc ;;
	cmocka)
		pkg-config --exists cmocka ||
			dpkg-query -W -f='${Status}' libcmocka-dev | grep -q 'install ok installed'
		;;
	clang-tsan)
		echo 'int main(void) { return 0; }' |
			clang -fsanitize=thread -x c - -o /dev/null
		;;
	*) command -v "$1" ;;
	esac >/dev/null 2>&1
}

# cyclock_ensure_deps REQUIREMENT...: installs the missing ones with
# apt-get when root; otherwise says what to install and exits 1.
# Requirements: cmake cc make g++ clang pkg-config nm cmocka clang-tsan
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
