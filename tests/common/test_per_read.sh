#!/bin/bash
# per_read.sh, the runner of the per-read variants, with the real
# read_forced probe ($1): a read this build does not have is skipped (77)
# with one line and the command never runs; a read the probe accepts runs
# the command with CYCLOCK_ORDERED_READ set and passes its status on; a
# probe that fails fails the variant.  Each read of this CPU either runs
# the command or is skipped with one line, never anything else.
set -u
probe=$1
here=$(dirname "${BASH_SOURCE[0]}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# run READ PROBE COMMAND...: per_read.sh's status in $rc, its output in $tmp/out.
run() {
	local read=$1 p=$2
	shift 2
	rc=0
	bash "$here/per_read.sh" "$p" "$read" "$@" >"$tmp/out" 2>&1 || rc=$?
}

# The command, when it runs, leaves what it was given.
cmd=(sh -c 'echo "$CYCLOCK_ORDERED_READ" >"$0"; exit 3' "$tmp/ran")

run bogus "$probe" "${cmd[@]}"
[[ $rc == 77 ]] || fail "bogus: exit $rc, want 77"
[[ $(wc -l <"$tmp/out") == 1 ]] && grep -q '^skip: CYCLOCK_ORDERED_READ=bogus: this build has no ordered read named bogus$' "$tmp/out" ||
	fail "bogus: '$(cat "$tmp/out")'"
[[ ! -e $tmp/ran ]] || fail "bogus: the command ran"

# A probe that says yes: the command runs with the read, its status passed on.
printf '#!/bin/sh\nexit 0\n' >"$tmp/yes" && chmod +x "$tmp/yes"
run lfence "$tmp/yes" "${cmd[@]}"
[[ $rc == 3 && $(cat "$tmp/ran" 2>/dev/null) == lfence ]] ||
	fail "a taken read: exit $rc, the command saw '$(cat "$tmp/ran" 2>/dev/null)'"
rm -f "$tmp/ran"

# A probe that fails: the variant fails, says why, and runs nothing.
printf '#!/bin/sh\necho "the library took another"\nexit 1\n' >"$tmp/no" && chmod +x "$tmp/no"
run rdtscp "$tmp/no" "${cmd[@]}"
[[ $rc == 1 ]] && grep -q '^FAIL: read_forced: the library took another$' "$tmp/out" ||
	fail "a failed probe: exit $rc: '$(cat "$tmp/out")'"
[[ ! -e $tmp/ran ]] || fail "a failed probe: the command ran"

# This CPU's reads, with the real probe: run, or skipped in one line.
for read in rdtscp lfence; do
	run "$read" "$probe" "${cmd[@]}"
	case $rc in
	3) [[ $(cat "$tmp/ran") == "$read" ]] || fail "$read: the command saw '$(cat "$tmp/ran")'" ;;
	77) [[ $(wc -l <"$tmp/out") == 1 ]] || fail "$read: skipped in more than one line: $(cat "$tmp/out")" ;;
	*) fail "$read: exit $rc: $(cat "$tmp/out")" ;;
	esac
	echo "$read: $( ((rc == 3)) && echo "taken" || cat "$tmp/out")"
	rm -f "$tmp/ran"
done

((failures == 0)) || exit 1
echo ok
