#!/bin/bash
# cyclock bench ctxsw and accuracy on short budgets: each exits 0, names its
# results as documented, and shows the properties that must hold whatever
# the machine's speed:
#   ctxsw     a bare row and one per timed clock for each variant; cross_cpu
#             only with two CPUs, else a line on stderr; the default run
#             times only its representative clocks; cyclock_coarse is left
#             out; no child process outlives the tool; the extras agree
#             with the primary figure.
#   accuracy  offsets only for cyclock's clocks, each against the kernel
#             clock it follows; the percentiles are ordered; cyclock_now
#             agrees with CLOCK_MONOTONIC within a generous bound and
#             cyclock_coarse lags it; in the busy loop, monotonic agrees
#             with the reference, thread CPU time never exceeds it, and
#             times() reads whole clock ticks.
# No figure is compared with a speed.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
allowed=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))' 2>/dev/null ||
	nproc 2>/dev/null || echo 1)
have_python=0
python3 -c 'import json' >/dev/null 2>&1 && have_python=1

# check JSON PYTHON: runs PYTHON with r(name) -> the first iteration of
# that name and its(name) -> all of them.
check() {
	[ "$have_python" = 1 ] || return 0
	python3 - "$1" <<EOF || fail "property check on $1"
import json, sys
d = json.load(open(sys.argv[1]))
def its(name):
    v = [b for b in d["benchmarks"]
         if b["name"] == name and b.get("run_type", "iteration") == "iteration"]
    if not v:
        sys.exit("no result " + name)
    return v
def r(name):
    return its(name)[0]
def med(name):
    for b in d["benchmarks"]:
        if b.get("run_name") == name and b.get("aggregate_name") == "median":
            return b
    return r(name)  # one repetition: no aggregates
$2
EOF
}

# ---- ctxsw ----
# The JSON file's name is unique to this run and is in the children's
# command lines too (fork() keeps argv): none may be left once the tool
# has exited.
json=$tmp/ctxsw-$$.json
cli_bench ctxsw "$json" --quick --clocks monotonic,cyclock_coarse
if pgrep -f -- "ctxsw-$$.json" >/dev/null 2>&1; then
	fail "a ctxsw child process outlived the tool"
fi
variants=same_cpu
if [ "$allowed" -ge 2 ]; then
	variants="same_cpu cross_cpu"
else
	grep -q "cross_cpu" "$tmp/ctxsw.err" || fail "one CPU, but no line saying cross_cpu is skipped"
fi
for v in $variants; do
	cli_has "$json" "ctxsw/$v" "ctxsw/monotonic/$v"
	cli_hasnt "$json" "ctxsw/cyclock_coarse/$v"
	check "$json" "
bare, timed = r('ctxsw/$v'), r('ctxsw/monotonic/$v')
for b in (bare, timed):
    m = med(b['name'])
    assert b['real_time'] > 0, b['name'] + ': no round trip time'
    assert b['iterations'] > 0, b['name'] + ': no round trips'
    assert abs(m['switch_ns'] * 2 - m['real_time']) <= 1e-6 * m['real_time'], \
        b['name'] + ': switch_ns is not half the median round trip'
    assert abs(m['switches_per_s'] * m['real_time'] - 2e9) <= 1e-3 * 2e9, \
        b['name'] + ': switches_per_s does not match the round trip'
assert 'clock_cost_ns' not in bare, 'the bare row has a clock cost'
assert 'clock_cost_ns' in timed, 'the timed row has no clock cost'
"
done

# The default selection times only the representative clocks.
cli_bench ctxsw "$tmp/ctxsw-default.json" --quick
cli_has "$tmp/ctxsw-default.json" ctxsw/same_cpu ctxsw/cyclock_now/same_cpu \
	ctxsw/monotonic/same_cpu ctxsw/syscall_monotonic/same_cpu
cli_hasnt "$tmp/ctxsw-default.json" ctxsw/cyclock_raw/same_cpu ctxsw/realtime/same_cpu \
	ctxsw/times/same_cpu

# One allowed CPU: same_cpu only, and a line saying so.
if command -v taskset >/dev/null 2>&1; then
	cpu=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))' 2>/dev/null || echo 0)
	taskset -c "$cpu" "$CYCLOCK" bench --quiet --quick --repetitions 1 \
		--clocks monotonic --json "$tmp/ctxsw-one.json" ctxsw >/dev/null \
		2>"$tmp/ctxsw-one.err" || fail "ctxsw on one CPU exited $?"
	cli_has "$tmp/ctxsw-one.json" ctxsw/same_cpu ctxsw/monotonic/same_cpu
	cli_hasnt "$tmp/ctxsw-one.json" ctxsw/cross_cpu ctxsw/monotonic/cross_cpu
	grep -q "cross_cpu" "$tmp/ctxsw-one.err" || fail "one CPU: no line about cross_cpu"
fi

# ---- accuracy ----
json=$tmp/accuracy.json
clocks=cyclock_now,cyclock_coarse,monotonic,monotonic_coarse,times,thread_cputime
cli_bench accuracy "$json" --quick --duration 0.3 --clocks "$clocks"
cli_has "$json" accuracy/cyclock_now accuracy/cyclock_coarse
cli_hasnt "$json" accuracy/monotonic accuracy/times accuracy/thread_cputime
for c in ${clocks//,/ }; do
	cli_has "$json" "accuracy/$c/busyloop"
done
tick_ns=$((1000000000 / $(getconf CLK_TCK 2>/dev/null || echo 100)))
check "$json" "
for c in ('cyclock_now', 'cyclock_coarse'):
    b = r('accuracy/' + c)
    assert b['samples'] > 0, c + ': no samples'
    assert b['p50_ns'] <= b['real_time'] <= b['p999_ns'] <= b['max_ns'], \
        c + ': percentiles out of order'
    assert b['bracket_p50_ns'] <= 2000, c + ': kept a bracket wider than the limit'
    assert 'monotonic' in b['note'], c + ': the note does not name the kernel clock'
# Agreement, with a bound a thousand times the documented p99.9.
assert r('accuracy/cyclock_now')['p50_ns'] < 100000, 'cyclock_now far from CLOCK_MONOTONIC'
assert r('accuracy/cyclock_coarse')['mean_ns'] < 0, 'cyclock_coarse does not lag'
m = r('accuracy/monotonic/busyloop')
assert abs(m['error_ns']) < 0.1 * m['reference_ns'], 'monotonic disagrees with the reference'
t = r('accuracy/thread_cputime/busyloop')
assert t['error_ns'] <= 0.01 * t['reference_ns'], 'more CPU time than wall time'
for b in its('accuracy/times/busyloop'):
    assert b['real_time'] % $tick_ns == 0, 'times() read a fraction of a tick'
"
echo ok
