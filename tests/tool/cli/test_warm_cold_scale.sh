#!/bin/bash
# cyclock bench warm, cold and scale on short budgets: each exits 0, names
# its results as documented, takes the repetitions it was asked for, and
# shows the properties that hold whatever the machine's speed:
#   warm   a throughput and a latency row per clock, each with its cost in
#          counter ticks (the median times the counter's rate) and the
#          ratios to the floors of the same run (the floor's own is 1; the
#          context names the floor, ordered_ns, and the read it is made of;
#          a build without a counter has no ordered_ns, so no x_floor).
#   cold   one row per clock, one call per sample, the bracket's cost as
#          an extra; under --quick with no --repetitions, a sample count
#          between the minimum and the default (a time budget cuts it).
#   scale  a row per clock and thread count; the slowest thread is never
#          faster than the threads' mean; idle-thread rows only for the
#          CPU-time clocks the kernel sums over threads; --threads obeyed.
# No figure is compared with a time or a speed.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cpus=$(nproc 2>/dev/null || echo 1)
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3 to read the JSON"; exit 77; }
# The floor x_floor is vs, or "" in a build without a counter (generic).
floor=ordered_ns
cli_clock_here ordered_ns || floor=
# The bare ordered read of this architecture's counter (arch/'s), or "" in
# a build without one: a generic build has no counter reads at all.
ordered=$("$CYCLOCK" bench --help | awk '$1 == "lfence_rdtsc" || $1 == "isb_cntvct" { print $1; exit }')

# bench NAME SCENARIO ARGS...: runs it into $tmp/NAME.json; fails unless 0.
bench() {
	local name=$1 scenario=$2 rc=0
	shift 2
	"$CYCLOCK" bench --quiet --json "$tmp/$name.json" "$@" "$scenario" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	[ "$rc" = 0 ] || { cat "$tmp/$name.err" >&2; fail "$name: exited $rc"; }
}

# check NAME PYTHON: runs PYTHON over $tmp/NAME.json with r(name) -> the
# median aggregate of that result (it carries the extras), reps(name) ->
# its repetitions' entries (its(name)) and figures (reps(name)), names() ->
# every result's name, floor, the floor's name or "", and ordered, the
# bare ordered read's name or "".
check() {
	python3 - "$tmp/$1.json" <<EOF || fail "$1: property check"
import json, math, sys
d = json.load(open(sys.argv[1]))
hz = d["context"].get("counter_hz", 0)
floor = "$floor"
ordered = "$ordered"
def r(name):
    for b in d["benchmarks"]:
        if b.get("run_name") == name and b.get("aggregate_name") == "median":
            return b
    for b in d["benchmarks"]:
        if b["name"] == name:
            return b
    sys.exit("no result " + name)
def its(name):
    return [b for b in d["benchmarks"]
            if b["name"] == name and b.get("run_type", "iteration") == "iteration"]
def reps(name):
    return [b["real_time"] for b in its(name)]
def names():
    return sorted({b.get("run_name", b["name"]) for b in d["benchmarks"]})
$2
EOF
}

# ---- warm ----
bench warm warm --repetitions 2 --clocks cyclock_now,${floor:+$floor,}${ordered:+$ordered,}monotonic,cyclock_coarse
check warm '
clocks = ("cyclock_now", "monotonic", "cyclock_coarse") + ((floor,) if floor else ()) + \
    ((ordered,) if ordered else ())
want = sorted("warm/%s/%s" % (c, v) for c in clocks for v in ("throughput", "latency"))
assert names() == want, "names: %s" % names()
for n in want:
    v = reps(n)
    assert len(v) == 2, n + ": %d repetitions, want 2" % len(v)
    assert all(x > 0 and math.isfinite(x) for x in v), n + ": %s" % v
    b = r(n)
    assert all(i["iterations"] > 0 for i in its(n)), n + ": no calls"
    if hz > 0:
        want_ticks = b["real_time"] * hz / 1e9
        assert abs(b["ticks"] - want_ticks) <= 1e-6 * want_ticks, n + ": ticks"
    assert ("x_floor" in b) == bool(floor) and "x_monotonic" in b, n + ": ratios"
for v in ("throughput", "latency"):
    if floor:
        assert abs(r("warm/%s/%s" % (floor, v))["x_floor"] - 1) < 1e-9, "floor vs itself"
    assert abs(r("warm/monotonic/" + v)["x_monotonic"] - 1) < 1e-9, "vDSO vs itself"
assert d["context"]["floor"] == floor, "context floor: %s" % d["context"].get("floor")
assert bool(d["context"]["ordered_read"]) == bool(floor), "context ordered_read"
'

# The floors group, quick: ordered_ns is one of them, every row has its
# ratio to it, its own is 1, and the table says what x floor is vs.
if [[ -n $floor ]]; then
	bench floors warm --quick --clocks floors,cyclock_now
	check floors '
floors = sorted({n.split("/")[1] for n in names()} - {"cyclock_now"})
assert floor in floors, "floors: %s" % floors
for n in names():
    assert r(n).get("x_floor", 0) > 0, n + ": no ratio to the floor"
for v in ("throughput", "latency"):
    assert abs(r("warm/%s/%s" % (floor, v))["x_floor"] - 1) < 1e-9, "floor vs itself"
'
	# The read ordered_ns is made of: the library's choice, which is not
	# a clock's name ("lfence;rdtsc"), or the one CYCLOCK_ORDERED_READ forced.
	read=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["context"]["ordered_read"])' \
		"$tmp/floors.json")
	grep -qF "x floor = vs ordered_ns ($read, multiply, add, shift)" "$tmp/floors.out" ||
		fail "floors: the table does not say what x floor is vs: $(head -4 "$tmp/floors.out")"
	forced=${CYCLOCK_ORDERED_READ:-}
	[[ -z $forced || $read == "$forced" || $read == "$forced;"* ]] ||
		fail "floors: ordered_ns reads with $read, not CYCLOCK_ORDERED_READ=$forced"
fi

# ---- cold ----
bench cold cold --repetitions 3 --clocks cyclock_now,${floor:+$floor,}monotonic
check cold '
want = sorted(["cold/cyclock_now", "cold/monotonic"] + (["cold/" + floor] if floor else []))
assert names() == want, "names: %s" % names()
for n in want:
    v = reps(n)
    assert len(v) == 3, n + ": %d samples, want 3" % len(v)
    assert all(x >= 0 and math.isfinite(x) for x in v), n + ": %s" % v
    b = r(n)
    assert all(i["iterations"] == 1 for i in its(n)), n + ": not one call per sample"
    assert b["bracket_ns"] > 0, n + ": no bracket cost"
    assert ("x_floor" in b) == bool(floor) and "x_monotonic" in b, n + ": ratios"
'
bench cold_quick cold --quick --clocks "${ordered:-realtime}",monotonic
check cold_quick '
first = "cold/" + (ordered or "realtime")
for n in (first, "cold/monotonic"):
    assert 5 <= len(reps(n)) <= 100, n + ": %d samples" % len(reps(n))
assert len(reps(first)) == len(reps("cold/monotonic")), "clocks took turns"
'

# ---- scale ----
bench scale scale --repetitions 2 --threads 1,2 --clocks ${floor:+$floor,}monotonic,process_cputime
check scale '
clocks = ("monotonic", "process_cputime") + ((floor,) if floor else ())
want = ["scale/%s/threads:%d" % (c, t) for c in clocks for t in (1, 2)]
want += ["scale/process_cputime/idle_threads:%d/threads:1" % n for n in (1, 8, 64, 256)]
assert names() == sorted(want), "names: %s" % names()
for n in want:
    v = reps(n)
    assert len(v) == 2, n + ": %d repetitions, want 2" % len(v)
    assert all(x > 0 and math.isfinite(x) for x in v), n + ": %s" % v
    b = r(n)
    assert b["threads"] == int(n.rsplit(":", 1)[1]), n + ": threads %s" % b["threads"]
    if b["threads"] > 1:
        assert b["slowest_ns"] >= b["real_time"] * (1 - 1e-9), n + ": slowest below mean"
assert ("x_floor" in r("scale/monotonic/threads:2")) == bool(floor), "the ratio to the floor"
'
bench scale_quick scale --quick --clocks monotonic,times,thread_cputime
check scale_quick "
counts = sorted({1, $cpus, 2 * $cpus})
want = ['scale/%s/threads:%d' % (c, t) for c in ('monotonic', 'times', 'thread_cputime')
        for t in counts]
want += ['scale/times/idle_threads:%d/threads:1' % n for n in (1, 64, 256)]
assert names() == sorted(want), 'names: %s' % names()
assert all(len(reps(n)) == 3 for n in want), 'quick: 3 repetitions'
"
bench scale_three scale --repetitions 1 --threads 3 --clocks cyclock_now
check scale_three '
assert names() == ["scale/cyclock_now/threads:3"], "names: %s" % names()
'

echo ok
exit 0
