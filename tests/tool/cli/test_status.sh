#!/usr/bin/env bash
# cyclock status PID...: running processes read from outside, in every
# format, and every refusal worded: a program linked with libcyclock, one
# under the preload (default, relaxed, CYCLOCK_SOURCE=kernel), one with
# both, one with no cyclock, a block of a newer layout and one that is no
# block, a process gone, a zombie, another user's process, and several
# processes at once.  The tool neither stops nor writes into its target
# (no ptrace, no process_vm_writev: strace).  The processes are
# tests/tool/status's; the JSON is checked against
# docs/schemas/status.schema.json, the metrics by promtool.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=tests/tool/cli/status_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/status_lib.sh"

# The command line.
cli_expect_error 2 "status: which process" status
cli_expect_error 2 "status: 'x1' is not a process id" status x1
cli_expect_error 2 "status: '0' is not a process id" status 0
cli_expect_error 2 "status: --format wants text, json or prometheus, not 'xml'" status --format xml 1
cli_run status --help
((rc == 0)) && grep -q '^usage: cyclock status' "$out" || cli_fail "status --help"

# A program linked with libcyclock.
start linked "$T/status_linked"
linked=$pid
cli_run status "$linked"
((rc == 0)) || cli_fail "status of the linked program: exit $rc: $(cat "$err")"
grep -q "^pid $linked (status_linked): .*libcyclock\.so.*, cyclock [0-9]" "$out" ||
	cli_fail "linked: the first line: $(head -1 "$out")"
grep -qE '^  clocks        (on the counter: |the kernel.s: )' "$out" || cli_fail "linked: clocks"
grep -q '^  preload' "$out" && cli_fail "linked: a preload line"
cli_run status --json "$linked"
json_check "$out" "len(a) == 1 and a[0]['pid'] == $linked and a[0]['mode'] == 'library' \
	and a[0]['clocks'] in ('counter', 'kernel') and 'served' not in a[0] \
	and (a[0]['clocks'] == 'kernel' or 'ordered_read' in a[0])"
cli_run status --format prometheus "$linked"
((rc == 0)) || cli_fail "prometheus: exit $rc"
grep -q "^cyclock_process_info{pid=\"$linked\",command=\"status_linked\",mode=\"library\"," "$out" ||
	cli_fail "prometheus: the info sample: $(grep info "$out")"
promtool check metrics <"$out" >"$tmp/promtool.out" 2>&1 ||
	cli_fail "promtool check metrics: $(cat "$tmp/promtool.out")"

# The same program, read while it is not stopped and nothing is written
# into it: no ptrace(), no process_vm_writev().
if command -v strace >/dev/null; then
	# LeakSanitizer's check at exit ptraces, which it cannot under strace.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=ptrace,process_vm_writev,process_vm_readv -o "$tmp/strace" \
		"$CYCLOCK" status "$linked" >/dev/null 2>&1 || cli_fail "status under strace"
	grep -qE 'ptrace|process_vm_writev' "$tmp/strace" && cli_fail "it traced or wrote: $(cat "$tmp/strace")"
	grep -q 'process_vm_readv' "$tmp/strace" || cli_fail "no process_vm_readv under strace"
else
	echo "note: no strace: what status calls is not checked"
fi

# Under the preload: default, relaxed, CYCLOCK_SOURCE=kernel; and with the
# library linked too, two blocks.
if [[ -n ${CYCLOCK_PRELOAD:-} ]]; then
	start preload LD_PRELOAD="$CYCLOCK_PRELOAD" "$T/status_plain"
	cli_run status --json "$pid"
	json_check "$out" "len(a) == 1 and a[0]['mode'] == 'preload' \
		and a[0]['object'].endswith('libcyclock-preload.so') \
		and (a[0]['clocks'] == 'counter') == ('monotonic' in a[0]['served'])"
	cli_run status "$pid"
	grep -q '^  preload       serves' "$out" || cli_fail "preload: text: $(cat "$out")"
	start relaxed LD_PRELOAD="$CYCLOCK_PRELOAD" CYCLOCK_PRELOAD_RELAXED=1 "$T/status_plain"
	cli_run status --json "$pid"
	json_check "$out" "a[0]['mode'] == 'preload-relaxed' or a[0]['clocks'] == 'kernel'"
	start kernel LD_PRELOAD="$CYCLOCK_PRELOAD" CYCLOCK_SOURCE=kernel "$T/status_plain"
	cli_run status --json "$pid"
	json_check "$out" "a[0]['clocks'] == 'kernel' and a[0]['served'] == '' \
		and 'CYCLOCK_SOURCE=kernel' in a[0]['why'] and 'counts' not in a[0]"
	start both LD_PRELOAD="$CYCLOCK_PRELOAD" "$T/status_linked"
	cli_run status --json "$pid"
	json_check "$out" "sorted(b['mode'] for b in a) == ['library', 'preload']"
else
	echo "note: no preload in this build: its processes are not read"
fi

# Refusals, each one line, and the exit status 1.
start plain "$T/status_plain"
cli_expect_error 1 "status: process $pid \(status_plain\) has no cyclock" status "$pid"
start newer "$T/status_fake" 99
cli_expect_error 1 "version 99, newer than this cyclock knows \(2\)" status "$pid"
start nomagic "$T/status_fake" 1 nocyclok
cli_expect_error 1 "holds no cyclock status block" status "$pid"
sh -c 'exit 0' &
gone=$!
wait "$gone"
cli_expect_error 1 "status: no process $gone " status "$gone"
# A zombie: the child of a process that never reaps it.
bash -c 'sleep 0.05 & exec sleep 30' &
reaper=$!
pids+=("$reaper")
sleep 0.3
zombie=$(pgrep -P "$reaper" | head -1)
[[ -n $zombie ]] || fail "no zombie to read"
cli_expect_error 1 "status: process $zombie has exited \(a zombie" status "$zombie"
# Another user's: as nobody, the linked program (root's) when we are root;
# else pid 1.
if ((EUID == 0)) && command -v runuser >/dev/null; then
	rc=0
	runuser -u nobody -- "$CYCLOCK" status "$linked" >"$tmp/other.out" 2>"$tmp/other.err" || rc=$?
	((rc == 1)) || cli_fail "another user's: exit $rc"
	grep -qE "^cyclock: status: permission denied: process $linked belongs to uid 0" \
		"$tmp/other.err" || cli_fail "another user's: $(cat "$tmp/other.err")"
elif ((EUID != 0)); then
	cli_expect_error 1 "status: permission denied" status 1
fi

# Several at once: each read or refused, the others written.
cli_run status --json "$linked" "$gone"
((rc == 1)) || cli_fail "one gone of two: exit $rc"
grep -q "no process $gone" "$err" || cli_fail "one gone of two: $(cat "$err")"
json_check "$out" "len(a) == 1 and a[0]['pid'] == $linked"

((cli_failures == 0)) || exit 1
echo "status: every format and refusal as documented"
