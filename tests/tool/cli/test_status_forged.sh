#!/usr/bin/env bash
# cyclock status against a process that attacks it through what it writes
# and what it does, one attack a case (docs/tool.md, "cyclock status"):
#   block_text, block_json, block_prometheus
#                  a block (status_fake hostile) whose strings lack their
#                  NUL and hold escape sequences, CR and newlines, bytes
#                  that are not UTF-8 (a surrogate, a code point past
#                  U+10FFFF), whose counts are 2^63 and more and whose
#                  frequencies are negative or infinite, and a command name
#                  of the same kind: the text holds no control character
#                  and no forged line, the JSON follows its schema, the
#                  metrics pass promtool
#   v1_text, v1_json, v1_prometheus
#                  a block of version 1's layout (status_fake v1: a process
#                  of cyclock 0.1 before the one record), with the bit that
#                  is version 2's WARP_RAN set: read, each format saying its
#                  facts and none of version 2's (no warp check, no RAW
#                  error, no interval ceiling, no uncertainty)
#   v1_lost        both its parts LOST: said in the text and the JSON
#   v1_odd         its counts odd for good (a write a fork cut): busy
#   busy           a version 2 block whose counts' sequence moves at each
#                  read (moving.c, preloaded into the tool): busy, never a
#                  copy read under a sequence that moved
#   lead_text, lead_prometheus
#                  a command name of bytes 0xf5-0xff before continuation
#                  bytes, which no UTF-8 character starts with: escaped
#                  (the decoder once read them as three-byte characters
#                  and passed them on raw)
#   loader_cycle   its dynamic loader's list of objects made a circle
#   loader_forged  4096 forged objects in that list, each with a hash chain
#                  that never ends and a name that runs into unmapped
#                  memory: the read stays within ten times its budget
#   pid_reuse      the process replaced by root's at the same pid during
#                  the read (a PID namespace and ns_last_pid; strace holds
#                  the read at its first look at the memory): refused,
#                  never root's block under the attacker's pid and name
#   exit           the process killed half-way through the reads: refused,
#                  not answered with the blocks read before
#   own_user       a static program's block read by its own user, not root
#                  (through /proc/PID/exe: map_files is root's)
# pid_reuse and own_user need root, pid_reuse and exit strace: each is
# skipped with a line otherwise.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=tests/tool/cli/status_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/status_lib.sh"

root=0
((EUID == 0)) && command -v setpriv >/dev/null && root=1
skip_case() { echo "skip: $1: $2"; }
# LeakSanitizer's check at exit ptraces, which it cannot under strace.
strace_env=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")

start linked "$T/status_linked"
linked=$pid
status plain "$linked"
expect plain 0 || fail "a plain read failed"
plain_ms=$cpu_ms

# The block, and the command name: ESC, a surrogate, a code point past
# U+10FFFF, a quote and a backslash.
start block "$T/status_fake" --name $'\e[31m\xed\xa0\x80\xf4\x90\x80\x80"\\' hostile
status block_text "$pid" "$linked"
expect block_text 0 &&
	"$py" - "$out" "$pid" <<-'PY' || cli_fail "block_text: $(head -c 600 "$out" | cat -v)"
		import sys
		text = open(sys.argv[1], "rb").read().decode("utf-8")
		bad = [c for c in text if (ord(c) < 32 and c != "\n") or 0x7f <= ord(c) < 0xa0]
		assert not bad, bad
		assert not any(l.startswith("  forged") for l in text.splitlines())
		assert "pid %s (\\x1b[31m\\xed\\xa0\\x80" % sys.argv[2] in text
		assert "CCCCCCCCCCCCCCC," in text  # the counter, cut at its array
	PY
status block_json --json "$pid" "$linked"
expect block_json 0 && json_check "$out" "len(a) == 2 and a[0]['counter'] == 'C' * 15 \
	and a[0]['library_version'] == 'L' * 15 and a[0]['counts']['resyncs'] == 2**63 - 1 \
	and a[0]['init_ns'] == 2**63 - 1 and 'hz_first' not in a[0] and 'hz' not in a[0]['counts'] \
	and all(ord(c) >= 32 for b in a for v in list(b.values()) + list(b.get('counts', {}).values()) \
		if isinstance(v, str) for c in v)"
if command -v promtool >/dev/null; then
	status block_prometheus --format prometheus "$pid" "$linked"
	expect block_prometheus 0 && { promtool check metrics <"$out" >"$tmp/promtool.out" 2>&1 ||
		cli_fail "block_prometheus: promtool: $(cat "$tmp/promtool.out")"; }
else
	skip_case block_prometheus "no promtool"
fi
echo "block: text, JSON and metrics checked"

# Version 1's block: its facts, none of version 2's, in every format.
start v1 "$T/status_fake" v1
status v1_text "$pid"
if expect v1_text 0; then
	if ! grep -q "(status version 1)$" "$out" ||
		! grep -q '^  counts        7 resyncs, 1 anomalies, 2 spells .*(last: v1 why), 3 rate' "$out" ||
		grep -qE '^  warp check|raw |at most|ppm' "$out"; then
		cli_fail "v1_text: $(cat "$out")"
	fi
fi
status v1_json --json "$pid"
expect v1_json 0 && json_check "$out" "a[0]['status_version'] == 1 \
	and a[0]['setup_lost'] is False and a[0]['counts']['lost'] is False \
	and a[0]['counts']['resyncs'] == 7 and a[0]['counts']['last_error_ns'] == -12 \
	and a[0]['hz_first'] == 1e9 and 'warp_check' not in a[0] \
	and not {'raw_last_error_ns', 'resync_interval_max_ns', 'hz_uncertainty_ppm'} & set(a[0]['counts'])"
status v1_prometheus --format prometheus "$pid"
if expect v1_prometheus 0; then
	if ! grep -q "^cyclock_resyncs_total{pid=\"$pid\",command=\"status_fake\",mode=\"library\"} 7$" "$out" ||
		! grep -q "^cyclock_library_info{.*,status_version=\"1\"" "$out" ||
		grep -qE 'monotonic_raw|uncertainty|interval_max' "$out"; then
		cli_fail "v1_prometheus: $(cat "$out")"
	fi
	if command -v promtool >/dev/null; then
		promtool check metrics <"$out" >"$tmp/promtool.out" 2>&1 ||
			cli_fail "v1_prometheus: promtool: $(cat "$tmp/promtool.out")"
	fi
fi
start v1_lost "$T/status_fake" v1 lost
status v1_lost --json "$pid"
expect v1_lost 0 && json_check "$out" "a[0]['setup_lost'] and a[0]['counts']['lost']"
status v1_lost "$pid"
if ! grep -q '^  setup         lost: a fork cut' "$out" || ! grep -q '^  counts        lost: ' "$out"; then
	cli_fail "v1_lost: text: $(cat "$out")"
fi
start v1_odd "$T/status_fake" v1 odd
status v1_odd "$pid"
expect v1_odd 1 "process $pid's status counts was being written .* at each of 1000 reads"
echo "v1: read, with none of version 2's facts"

# A version 2 block whose counts never rest (moving.c, preloaded into the
# tool, moves the sequence under each of its reads): busy, never answered
# with a copy read while the sequence moved.
start busy "$T/status_linked"
out=$tmp/busy.out err=$tmp/busy.err rc=0
timeout -k 2 20 env LD_PRELOAD="$T/libstatus_moving.so" "$CYCLOCK" status "$pid" >"$out" 2>"$err" || rc=$?
expect busy 1 "process $pid's status counts moved at each of 1000 reads"
[[ -s $out ]] && cli_fail "busy: answered: $(head -3 "$out")"
echo "busy: exit $rc: $(cat "$err")"

# A command name of lead bytes no UTF-8 character starts with (0xf5-0xff),
# each before continuation bytes: escaped, never passed on as text.
start lead "$T/status_fake" --name $'\xf8\x80\x80\xfb\xbf\xbf\xff\x80\x80' hostile
for format in text prometheus; do
	status "lead_$format" --format "$format" "$pid"
	expect "lead_$format" 0 &&
		"$py" - "$out" <<-'PY' || cli_fail "lead_$format: $(head -c 300 "$out" | cat -v)"
			import re, sys
			text = open(sys.argv[1], "rb").read().decode("utf-8")
			# One backslash in text, two in a label (Prometheus escapes it).
			assert re.search(r"\\{1,2}xf8\\{1,2}x80\\{1,2}x80\\{1,2}xfb", text), text[:300]
		PY
done
echo "lead: the name escaped in text and metrics"

# The loader's list: a circle, then forged objects.
start loader_cycle "$T/status_linked" --loader cycle
status loader_cycle --json "$pid" "$linked"
expect loader_cycle 0 && json_check "$out" "[b['pid'] for b in a] == [$pid, $linked]"
echo "loader_cycle: exit $rc, $cpu_ms ms of CPU (a plain process: $plain_ms ms)"
start loader_forged "$T/status_linked" --loader hostile
status loader_forged "$pid" "$linked"
if ((rc == 1)); then
	expect loader_forged 1 "process $pid.*(took more than 50 ms of CPU|has no cyclock)"
else
	expect loader_forged 0
fi
grep -q "^pid $linked " "$out" || cli_fail "loader_forged: the other process not written"
((cpu_ms > plain_ms + 500)) && cli_fail "loader_forged: $cpu_ms ms of CPU"
echo "loader_forged: exit $rc, $cpu_ms ms of CPU (a plain process: $plain_ms ms): $(cat "$err")"

# The pid taken by root's process during the read: the attacker (nobody's)
# and root's run the same program without address randomisation, so that
# the addresses found in one are the other's.
if ((root)) && command -v strace >/dev/null && command -v unshare >/dev/null &&
	command -v setarch >/dev/null; then
	"${strace_env[@]}" unshare --pid --fork --mount-proc bash -s "$tmp" "$T" "$CYCLOCK" \
		>"$tmp/pid_reuse.log" 2>&1 <<-'SH'
		tmp=$1 T=$2 CYCLOCK=$3
		rm -f "$tmp/reuse_a" "$tmp/reuse_v" && mkfifo -m 666 "$tmp/reuse_a" "$tmp/reuse_v"
		setarch -R setpriv --reuid=nobody --regid=nogroup --clear-groups \
			"$T/status_linked" --name attacker >"$tmp/reuse_a" &
		a=$!
		read -r -t 20 line <"$tmp/reuse_a"
		strace -f -qq -o /dev/null -e trace=process_vm_readv \
			-e inject=process_vm_readv:delay_enter=3000000:when=1 \
			"$CYCLOCK" status "$a" >"$tmp/pid_reuse.out" 2>"$tmp/pid_reuse.err" &
		tool=$!
		sleep 1
		kill -9 "$a"
		wait "$a"
		echo $((a - 1)) >/proc/sys/kernel/ns_last_pid
		CYCLOCK_SOURCE=kernel setarch -R "$T/status_linked" >"$tmp/reuse_v" &
		v=$!
		read -r -t 20 line <"$tmp/reuse_v"
		wait "$tool"
		echo "rc=$? attacker=$a root=$v"
		kill "$v"
	SH
	read -r rc a v < <(sed -n 's/^rc=\([0-9]*\) attacker=\([0-9]*\) root=\([0-9]*\)$/\1 \2 \3/p' \
		"$tmp/pid_reuse.log")
	out=$tmp/pid_reuse.out err=$tmp/pid_reuse.err
	if [[ -z ${a:-} || $a != "${v:-}" ]]; then
		skip_case pid_reuse "root's process did not take the pid: $(cat "$tmp/pid_reuse.log")"
	else
		expect pid_reuse 1 "process $a \(attacker\): the process ended or was replaced during the read"
		[[ -s $out ]] && cli_fail "pid_reuse: answered: $(head -3 "$out")"
		echo "pid_reuse: exit $rc: $(cat "$err")"
	fi
else
	skip_case pid_reuse "needs root, strace, unshare and setarch"
fi

# The process killed half-way through the reads of its memory (strace
# holds the read there; the number is an undisturbed read's, halved): a
# program with a block of its own, under the preload, has two, far apart
# in its maps.
if command -v strace >/dev/null; then
	if [[ -n ${CYCLOCK_PRELOAD:-} ]]; then
		start exit LD_PRELOAD="$CYCLOCK_PRELOAD" "$T/status_fake" 1
	else
		start exit "$T/status_fake" 1
	fi
	"${strace_env[@]}" strace -f -qq -e trace=process_vm_readv -o "$tmp/exit.count" \
		"$CYCLOCK" status "$pid" >/dev/null 2>&1
	n=$(grep -c 'process_vm_readv(' "$tmp/exit.count")
	out=$tmp/exit.out err=$tmp/exit.err
	"${strace_env[@]}" strace -f -qq -o /dev/null -e trace=process_vm_readv \
		-e inject=process_vm_readv:delay_exit=3000000:when=$((n / 2 > 0 ? n / 2 : 1)) \
		"$CYCLOCK" status "$pid" "$linked" >"$out" 2>"$err" &
	tool=$!
	sleep 1
	{ kill -9 "$pid" && wait "$pid"; } 2>/dev/null
	rc=0
	wait "$tool" || rc=$?
	expect exit 1 "process $pid.*(ended or was replaced|has exited|unmapped)|no process $pid "
	grep -q "^pid $pid " "$out" && cli_fail "exit: a partial answer: $(grep "^pid $pid " "$out")"
	grep -q "^pid $linked " "$out" || cli_fail "exit: the other process not written"
	echo "exit: killed after $((n / 2)) of $n reads: exit $rc: $(cat "$err")"
else
	skip_case exit "needs strace"
fi

# A static program read by its own user: its .symtab through /proc/PID/exe.
# (Yama's ptrace_scope 1 and more lets only root read a process it did not
# start.)
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
if ((root && scope == 0)); then
	nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	start own_user "${nobody[@]}" "$T/status_fake" 1
	rc=0
	"${nobody[@]}" "$CYCLOCK" status --json "$pid" >"$tmp/own_user.out" 2>"$tmp/own_user.err" ||
		rc=$?
	out=$tmp/own_user.out err=$tmp/own_user.err
	expect own_user 0 && json_check "$out" "a[0]['object'].endswith('status_fake')"
else
	skip_case own_user "needs root (to run both as nobody) and Yama's ptrace_scope 0"
fi

((cli_failures == 0)) || exit 1
echo "status: no attack through what a process writes or does held"
