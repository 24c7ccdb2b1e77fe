# Shared by the tests/tool/cli/test_*.sh scripts: source it, don't run it.
# shellcheck shell=bash
set -uo pipefail

if [[ -z ${CYCLOCK:-} || ! -x $CYCLOCK ]]; then
	echo "skip: CYCLOCK is not the tool"
	exit 77
fi
: "${CYCLOCK_TEST_TMP:=$(mktemp -d)}"
mkdir -p "$CYCLOCK_TEST_TMP" || exit 1
tmp=$CYCLOCK_TEST_TMP
cli_failures=0

# fail MESSAGE: the test fails here and now.
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# cli_run ARGS...: runs the tool; sets $rc, and $out/$err to the files
# holding its standard output and error.
cli_run() {
	out=$CYCLOCK_TEST_TMP/out err=$CYCLOCK_TEST_TMP/err
	rc=0
	"$CYCLOCK" "$@" >"$out" 2>"$err" || rc=$?
}

cli_fail() {
	echo "FAIL: $*" >&2
	cli_failures=$((cli_failures + 1))
}

# cli_expect_error RC PATTERN ARGS...: the tool exits RC with nothing on
# standard output and exactly one line on standard error matching
# "^cyclock: .*PATTERN", or PATTERN itself if it starts with "^".
cli_expect_error() {
	local want=$1 pattern=$2 re
	shift 2
	re="^cyclock: .*$pattern"
	[[ $pattern == ^* ]] && re=$pattern
	cli_run "$@"
	((rc == want)) || cli_fail "'$*': exit $rc, want $want"
	[[ ! -s $out ]] || cli_fail "'$*': wrote to stdout: $(head -c 200 "$out")"
	(($(wc -l <"$err") == 1)) || cli_fail "'$*': stderr is not one line: $(cat "$err")"
	grep -qE "$re" "$err" || cli_fail "'$*': stderr '$(cat "$err")' !~ $re"
}

# cli_clock_here NAME: bench --help lists clock NAME, and not as "(not on
# this machine)", however its description wraps.
cli_clock_here() {
	local entry
	entry=$("$CYCLOCK" bench --help | awk -v n="$1" '/^  [^ ]/ { on = $1 == n } on' | tr -s ' \n' ' ')
	[[ -n $entry && $entry != *"(not on this machine)"* ]]
}

# cli_bench SCENARIO JSON ARGS...: runs "cyclock bench" on SCENARIO with
# ARGS, its results in JSON, its output in $tmp/SCENARIO.out and .err;
# fails unless it exits 0.
cli_bench() {
	local scenario=$1 json=$2 rc=0
	shift 2
	"$CYCLOCK" bench --quiet --json "$json" "$@" "$scenario" >"$tmp/$scenario.out" \
		2>"$tmp/$scenario.err" || rc=$?
	((rc == 0)) || { cat "$tmp/$scenario.err" >&2; fail "$scenario exited $rc"; }
}

# cli_has JSON NAME...: every result name is in the file (else it fails).
cli_has() {
	local json=$1 name
	shift
	for name in "$@"; do
		grep -q "\"name\": *\"$name\"" "$json" || fail "no result $name in $json"
	done
}

# cli_hasnt JSON NAME...: no result of these names (else it fails).
cli_hasnt() {
	local json=$1 name
	shift
	for name in "$@"; do
		! grep -q "\"name\": *\"$name\"" "$json" || fail "unexpected result $name in $json"
	done
}

# cli_done: the script's exit status.
cli_done() {
	if ((cli_failures > 0)); then
		echo "$cli_failures failure(s)" >&2
		exit 1
	fi
	echo "ok"
	exit 0
}
