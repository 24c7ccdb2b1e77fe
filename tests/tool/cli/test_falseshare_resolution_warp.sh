#!/bin/bash
# cyclock bench falseshare, resolution and warp on short budgets: each
# exits 0, names its results as documented, and shows the properties that
# must hold whatever the machine's speed:
#   resolution  every clock steps forward, never back, on one thread; a
#               coarse clock stalls between ticks and steps no finer than
#               half what clock_getres() says; the histogram adds up;
#               cyclock_coarse, with no ticker, claims the kernel's tick.
#   warp        the ordered clocks (cyclock_now, cyclock_raw, monotonic)
#               never go backwards between two CPUs; per-thread and CPU-time
#               clocks get no result; one CPU means no result and a line.
#   falseshare  three layouts, each with readers that read and a writer that
#               wrote; one CPU means no result and a line.
# No figure is compared with a time or a speed.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cpus=$(nproc 2>/dev/null || echo 1)
have_python=0
command -v python3 >/dev/null 2>&1 && have_python=1

# check JSON PYTHON: runs PYTHON with r(name) -> the first entry of that name.
check() {
	[ "$have_python" = 1 ] || return 0
	python3 - "$1" <<EOF || fail "property check on $1"
import json, sys
d = json.load(open(sys.argv[1]))
def r(name):
    for b in d["benchmarks"]:
        if b["name"] == name and b.get("run_type", "iteration") == "iteration":
            return b
    sys.exit("no result " + name)
def names():
    return [b["name"] for b in d["benchmarks"]]
$2
EOF
}

# ---- resolution ----
cli_bench resolution "$tmp/res.json" --quick --clocks cyclock_now,monotonic,monotonic_coarse,cyclock_coarse
cli_has "$tmp/res.json" resolution/cyclock_now resolution/monotonic resolution/monotonic_coarse \
	resolution/cyclock_coarse
check "$tmp/res.json" '
for c in ("cyclock_now", "monotonic", "monotonic_coarse"):
    b = r("resolution/" + c)
    assert b["real_time"] > 0, c + ": no smallest step"
    assert b["steps"] > 0, c + ": no steps"
    assert "backward" not in b, c + ": went backwards on one thread"
    hist = sum(v for k, v in b.items() if k.startswith("hist_"))
    assert hist == b["steps"], c + ": the histogram does not add up to the steps"
    assert sum(k.startswith("hist_") for k in b) <= 6, c + ": too many buckets"
b = r("resolution/monotonic_coarse")
assert b["stall_fraction"] > 0, "a coarse clock read back to back never repeated"
assert b["real_time"] >= 0.5 * b["clock_getres_ns"], "coarse steps finer than its tick"
# With no ticker (the tool starts none), cyclock_coarse is the coarse
# clock of the kernel on the timeline of cyclock_now: it claims its tick.
c = r("resolution/cyclock_coarse")
assert c["clock_getres_ns"] == b["clock_getres_ns"], \
    "cyclock_coarse claims %g ns, monotonic_coarse %g" % (c["clock_getres_ns"], b["clock_getres_ns"])
'

# ---- warp ----
ordered="cyclock_now cyclock_raw monotonic"
if [ "$cpus" -ge 2 ]; then
	cli_bench warp "$tmp/warp.json" --quick --clocks cyclock_now,cyclock_raw,monotonic,thread_cputime
	for c in $ordered; do cli_has "$tmp/warp.json" "warp/$c"; done
	grep -q '"warp/thread_cputime"' "$tmp/warp.json" && fail "warp measured a per-thread clock"
	check "$tmp/warp.json" '
for c in ("cyclock_now", "cyclock_raw", "monotonic"):
    b = r("warp/" + c)
    assert b["comparisons"] > 0, c + ": no comparisons"
    assert b["backward_steps"] == 0, c + ": %d backward steps" % b["backward_steps"]
    assert b["real_time"] == 0, c + ": went back %g ns" % b["real_time"]
'
fi

# ---- falseshare ----
layouts="falseshare/split/threads:1 falseshare/packed/threads:1 falseshare/lock_adjacent/threads:1"
if [ "$cpus" -ge 2 ]; then
	cli_bench falseshare "$tmp/fs.json" --quick --threads 1
	cli_has "$tmp/fs.json" $layouts
	check "$tmp/fs.json" '
for n in "'"$layouts"'".split():
    b = r(n)
    assert b["real_time"] > 0 and b["reads_per_s"] > 0, n + ": no reads"
    assert b["writer_hz"] > 0, n + ": the writer never updated"
    assert b["retries_per_read"] >= 0, n
    assert b["clock"] == "" and b["threads"] == 1, n + ": labels"
'
fi

# ---- one CPU: no cross-CPU result, one line, exit 0 ----
if command -v taskset >/dev/null 2>&1; then
	for s in warp falseshare; do
		taskset -c 0 "$CYCLOCK" bench --quiet --quick --clocks monotonic \
			--json "$tmp/one_$s.json" "$s" >/dev/null 2>"$tmp/one_$s.err" ||
			fail "$s on one CPU exited $?"
		grep -q "\"name\": *\"$s/" "$tmp/one_$s.json" && fail "$s on one CPU gave results"
		[ "$(grep -c "cyclock: $s:" "$tmp/one_$s.err")" = 1 ] ||
			fail "$s on one CPU did not say why, once"
	done
fi
echo "ok: falseshare, resolution, warp"
exit 0
