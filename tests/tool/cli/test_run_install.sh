# cyclock run finds the preload relative to its own location: two
# installs of this build (cmake --install --prefix) and a copy of one
# moved elsewhere each preload their own libcyclock-preload.so, as -v says
# and the command's /proc/self/maps shows.
# shellcheck shell=bash
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
T=$(cd "$CYCLOCK_TEST_TMP" && pwd -P) || exit 1
rm -rf "${T:?}"/*
build=$(cd "$(dirname "$CYCLOCK")/../.." && pwd -P)

if [[ ! -f $build/cmake_install.cmake || ! -e $build/src/preload/libcyclock-preload.so ]] ||
	! command -v cmake >/dev/null; then
	echo "skip: no preload in $build, or no cmake to install it"
	exit 77
fi
for p in one two; do
	cmake --install "$build" --prefix "$T/$p" >"$T/install.log" 2>&1 ||
		fail "cmake --install --prefix $T/$p: $(tail -3 "$T/install.log")"
done
cp -a "$T/one" "$T/copy"

for p in one two copy; do
	"$T/$p/bin/cyclock" run -v -- cat /proc/self/maps >"$T/maps" 2>"$T/err"
	rc=$?
	if ((rc != 0)) && grep -qE 'undefined symbol: __[a-z]*san|ASan runtime does not come first' "$T/err"; then
		echo "skip: a sanitizer build's preload cannot run cat"
		exit 77
	fi
	((rc == 0)) || cli_fail "$p: run cat: exit $rc: $(cat "$T/err")"
	lib=$(sed -n 's/^cyclock: run: preload \(.*\) (found beside the tool)$/\1/p' "$T/err")
	[[ $lib == "$T/$p/"*/libcyclock-preload.so && -f $lib ]] ||
		cli_fail "$p: run -v: '$(cat "$T/err")'"
	grep -q " $lib\$" "$T/maps" || cli_fail "$p: $lib is not mapped in the command"
	other=$(grep 'libcyclock-preload\.so$' "$T/maps" | grep -v " $lib\$")
	[[ -z $other ]] || cli_fail "$p: another preload is mapped: $other"
done
cli_done
