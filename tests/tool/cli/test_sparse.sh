#!/bin/bash
# cyclock bench sparse on a short budget: one read after each gap, every
# clock in turn; names as documented (sparse/CLOCK/idle:100us ...), the
# repetitions asked for, the ratios, and the system calls per read
# counted: none for the vDSO's clock and the bare counter, one for the
# clock read through a real system call (so the count can see one); the
# idle gaps spent in epoll, or said otherwise.
# No figure is compared with a time or a speed.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3 to read the JSON"; exit 77; }
floor=ordered_ns
cli_clock_here ordered_ns || floor=

# check NAME PYTHON: PYTHON over $tmp/NAME.json, with its(name) -> the
# repetitions' entries of a result, r(name) -> its median aggregate.
check() {
	python3 - "$tmp/$1.json" <<EOF || fail "$1: property check"
import json, math, sys
d = json.load(open(sys.argv[1]))
floor = "$floor"
def its(name):
    return [b for b in d["benchmarks"]
            if b["name"] == name and b.get("run_type", "iteration") == "iteration"]
def r(name):
    for b in d["benchmarks"]:
        if b.get("run_name") == name and b.get("aggregate_name") == "median":
            return b
    sys.exit("no result " + name)
def names():
    return sorted({b.get("run_name", b["name"]) for b in d["benchmarks"]})
$2
EOF
}

clocks=monotonic,syscall_monotonic${floor:+,$floor}
cli_bench sparse "$tmp/quick.json" --quick --clocks "$clocks"
check quick '
gaps = ("idle:100us", "idle:3ms", "busy:3ms")
clocks = ["monotonic", "syscall_monotonic"] + ([floor] if floor else [])
want = sorted("sparse/%s/%s" % (c, g) for c in clocks for g in gaps)
assert names() == want, "names: %s" % names()
for n in want:
    v = its(n)
    assert 5 <= len(v) <= 40, n + ": %d samples" % len(v)
    assert all(b["iterations"] == 1 and b["real_time"] >= 0 and math.isfinite(b["real_time"])
               for b in v), n + ": not one read per sample"
    b = r(n)
    assert "x_monotonic" in b and "x_monotonic_p99" in b, n + ": no ratio to the vDSO"
    assert ("x_floor" in b) == bool(floor), n + ": the ratio to the floor"
    assert "syscalls_per_read" in b, n + ": system calls not counted"
for g in gaps:
    assert r("sparse/monotonic/" + g)["syscalls_per_read"] == 0, g + ": the vDSO made a call"
    n = r("sparse/syscall_monotonic/" + g)["syscalls_per_read"]
    assert n == 1, g + ": %s system calls per syscall_monotonic read" % n
    if floor:
        assert r("sparse/%s/%s" % (floor, g))["syscalls_per_read"] == 0, g + ": the floor made a call"
'
grep -q '^sparse: ' "$tmp/sparse.out" && grep -q 'syscalls/read' "$tmp/sparse.out" ||
	fail "the table lacks its heading or the system calls: $(head -5 "$tmp/sparse.out")"

# cyclock's clocks after gaps longer than a resync interval serve the
# kernel's clock, with no system call (docs/hosted.md, "When a resync
# happens"); so does the preload's clock_gettime(), where it was built.
if "$CYCLOCK" info | grep '^trusted  *yes' >/dev/null; then
	preload=
	cli_clock_here preload_monotonic && preload=preload_monotonic
	cli_bench sparse "$tmp/cyclock.json" --quick --clocks cyclock_now,cyclock_realtime${preload:+,$preload}
	check cyclock '
for c in ["cyclock_now", "cyclock_realtime"] + (["'"$preload"'"] if "'"$preload"'" else []):
    for g in ("idle:3ms", "busy:3ms"):
        n = r("sparse/%s/%s" % (c, g)).get("syscalls_per_read")
        assert n == 0, "%s after %s: %s system calls per read" % (c, g, n)
'
fi

# Idle gaps are spent in epoll_pwait2(), as a server's are, not in
# clock_nanosleep(), which shares a page of libc with clock_gettime(); where
# epoll_pwait2() is refused, in clock_nanosleep(), said once.
# idle_calls [STRACE OPTION...]: the run under strace; "EPOLL SLEEP" counts.
idle_calls() {
	# LeakSanitizer's check at exit ptraces, which it cannot under strace.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq \
		-e trace=epoll_pwait2,clock_nanosleep "$@" -o "$tmp/idle.strace" \
		"$CYCLOCK" bench --quick --repetitions 5 --clocks monotonic sparse \
		>/dev/null 2>"$tmp/idle.err" || fail "sparse under strace $*: $(cat "$tmp/idle.err")"
	echo "$(grep -c 'epoll_pwait2(' "$tmp/idle.strace") $(grep -c 'clock_nanosleep(' "$tmp/idle.strace")"
}
if command -v strace >/dev/null; then
	read -r epoll sleep < <(idle_calls)
	((epoll >= 10 && sleep == 0)) || fail "idle gaps: $epoll epoll_pwait2(), $sleep clock_nanosleep()"
	read -r epoll sleep < <(idle_calls -e inject=epoll_pwait2:error=EPERM)
	((sleep >= 10)) || fail "epoll_pwait2() refused: $sleep clock_nanosleep()"
	[[ $(grep -c 'idle gaps in clock_nanosleep()' "$tmp/idle.err") == 1 ]] ||
		fail "epoll_pwait2() refused, not said once: $(cat "$tmp/idle.err")"
fi

cli_bench sparse "$tmp/three.json" --quick --repetitions 3 --clocks monotonic
check three '
assert all(len(its(n)) == 3 for n in names()), "--repetitions 3: %s" % [len(its(n)) for n in names()]
'
echo ok
exit 0
