# Shared by the tests of "cyclock status" (test_status*.sh), after lib.sh:
# source it, don't run it.  The processes are tests/tool/status's.
# shellcheck shell=bash

T=${CYCLOCK_STATUS_TARGETS:?the directory of status_linked, status_plain, status_fake}
schema=${CYCLOCK_SCHEMAS:?docs/schemas}/status.schema.json
py=/usr/bin/python3
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null' EXIT
# GCC's ASan wants its runtime first; the preload intercepts nothing it
# does but the clocks (tests/preload/CMakeLists.txt).
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

# start NAME [VAR=VALUE...] PROGRAM ARGS...: runs it in the background until it
# says "ready" (it has read the clock for 50 ms); its pid in $pid.  PROGRAM may
# be a command that execs the target (setpriv, unshare, setarch).
start() {
	local name=$1 fifo=$tmp/$1.ready line=""
	shift
	rm -f "$fifo" && mkfifo "$fifo" && chmod 666 "$fifo" || fail "mkfifo"
	env "$@" >"$fifo" 2>"$tmp/$name.err" &
	pid=$!
	pids+=("$pid")
	read -r -t 20 line <"$fifo" || true
	[[ $line == ready ]] || fail "$name did not start: $(cat "$tmp/$name.err")"
}

# json_check FILE PYTHON: FILE follows the schema (json_schema.py, with
# block.schema.json for its $ref), and PYTHON (given the array as "a")
# holds.
json_check() {
	"$py" - "$schema" "$1" "$2" "$(dirname "${BASH_SOURCE[0]}")" <<-'PY' || cli_fail "$1: $2"
		import json, sys
		sys.path.insert(0, sys.argv[4])
		import json_schema
		a = json.load(open(sys.argv[2]))
		json_schema.validate(sys.argv[1], a)
		assert eval(sys.argv[3]), a
	PY
}

# status NAME ARGS...: "cyclock status ARGS" stopped after 20 s (a hang):
# $rc (124: it hung), its output in $out and $err, the CPU it took (user
# and system, its children's too) in $cpu_ms.
status() {
	local name=$1 t
	shift
	out=$tmp/$name.out err=$tmp/$name.err rc=0
	TIMEFORMAT='%3U %3S'
	{ time timeout -k 2 20 "$CYCLOCK" status "$@" >"$out" 2>"$err"; } 2>"$tmp/$name.time" || rc=$?
	t=$(tail -1 "$tmp/$name.time")
	cpu_ms=$(awk '{ printf "%d", ($1 + $2) * 1000 }' <<<"$t")
}

# expect NAME RC [PATTERN]: the last status exited RC without hanging or
# dying, and, if PATTERN, said it on stderr; else a failure naming the case.
expect() {
	local name=$1 want=$2 pattern=${3:-}
	if ((rc == 124)); then
		cli_fail "$name: the tool hung (stopped after 20 s)"
	elif ((rc > 128)); then
		cli_fail "$name: the tool died of signal $((rc - 128)): $(head -c 300 "$err")"
	elif ((rc != want)); then
		cli_fail "$name: exit $rc, want $want: $(head -c 300 "$err")"
	elif [[ -n $pattern ]] && ! grep -qE "$pattern" "$err"; then
		cli_fail "$name: stderr '$(head -c 300 "$err")' !~ $pattern"
	else
		return 0
	fi
	return 1
}
