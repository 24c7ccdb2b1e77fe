# cyclock's JSON and CSV files: what "bench --json/--csv" writes is Google
# Benchmark's schema (checked with python3 where there is one, else by
# reading it back with compare), compare.py reads it where its imports
# work, and a failed write leaves nothing behind and the old file whole.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${CYCLOCK_TEST_DATA:?}"
D=$CYCLOCK_TEST_DATA
T=$CYCLOCK_TEST_TMP
rm -rf "${T:?}"/*

# Reading: what the writer wrote reads back, and a file equals itself.
"$CYCLOCK" compare "$D/compare_new.json" "$D/compare_new.json" >"$T/self" 2>"$T/err" ||
	cli_fail "compare_new.json against itself: exit $?: $(cat "$T/err")"
[ "$(grep -c '(+0\.00%)$' "$T/self")" -eq 6 ] || cli_fail "compare_new.json: not 6 rows: $(cat "$T/self")"

# Old files: aggregates without time_unit (cyclock before it wrote one on
# the cv, and Google Benchmark's older versions) read as before.
cli_run compare "$D/json_old_cv.json" "$D/json_old_cv.json"
((rc == 0)) || cli_fail "a file without time_unit on its cv: exit $rc: $(cat "$err")"
grep -q '^warm/cyclock_now/throughput  *20.00  *20.00 (+0.00%)$' "$out" ||
	cli_fail "the file without time_unit on its cv: $(cat "$out")"

# A quick run of two clocks (or one, where there is no TSC).  Options come
# before the scenario: "bench" stops at its first operand.
bench() {
	"$CYCLOCK" bench --quick --clocks "$1" --quiet "${@:2}" warm
}
clocks=rdtsc,monotonic
if ! bench $clocks --json "$T/run.json" --csv "$T/run.csv" >"$T/bench.out" 2>"$T/bench.err"; then
	clocks=monotonic
	bench $clocks --json "$T/run.json" --csv "$T/run.csv" >"$T/bench.out" 2>"$T/bench.err" || {
		echo "skipped: bench --json does not work yet: $(head -3 "$T/bench.err")"
		((cli_failures == 0)) && exit 77
		exit 1
	}
fi
[ -s "$T/run.json" ] || cli_fail "bench --json wrote no file"
compgen -G "$T/.cyclock-*" >/dev/null && cli_fail "a temporary was left: $(ls -A "$T")"

# The schema: Google Benchmark's keys on every entry (time_unit too, the
# cv's included, as Google Benchmark 1.7.1 writes it), its context keys, iterations
# in repetition order, aggregates named NAME_mean..., and cyclock's keys.
if command -v python3 >/dev/null; then
	python3 - "$T/run.json" "$T/run.csv" <<'PY' || cli_fail "the JSON schema (see above)"
import csv, json, sys
d = json.load(open(sys.argv[1]))
ctx = d["context"]
for k in ("date", "num_cpus", "caches", "mhz_per_cpu", "library_build_type",
          "cyclock_version", "cpu_model", "kernel", "clocksource", "counter", "floor",
          "ordered_read"):
    assert k in ctx, "context lacks " + k
assert isinstance(ctx["caches"], list) and isinstance(ctx["num_cpus"], int)
runs = {}
for e in d["benchmarks"]:
    for k in ("name", "run_name", "run_type", "iterations", "real_time", "cpu_time",
              "time_unit"):
        assert k in e, "%s lacks %s" % (e.get("name"), k)
    assert e["real_time"] >= 0 and isinstance(e["iterations"], int)
    assert e["time_unit"] == "ns", e["name"]
    if e["run_type"] == "iteration":
        assert e["name"] == e["run_name"]
        r = runs.setdefault(e["name"], [])
        assert e["repetition_index"] == len(r), e["name"]
        assert e["repetitions"] >= 1 and "scenario" in e and "clock" in e
        r.append(e)
    else:
        assert e["run_type"] == "aggregate"
        assert e["name"] == e["run_name"] + "_" + e["aggregate_name"]
        assert e["aggregate_name"] in ("mean", "median", "stddev", "cv")
        if e["aggregate_name"] == "median":
            for k in ("min", "p90", "p99", "spread", "noisy", "higher_is_better"):
                assert k in e, "%s lacks %s" % (e["name"], k)
assert runs, "no iterations"
for name, r in runs.items():
    assert len(r) == r[0]["repetitions"], name
rows = list(csv.reader(open(sys.argv[2])))
assert rows[0][:15] == ["name", "scenario", "clock", "variant", "threads", "iterations",
    "repetitions", "median_ns", "min_ns", "p90_ns", "p99_ns", "mean_ns", "stddev_ns",
    "spread", "noisy"], rows[0]
assert sorted(r[0] for r in rows[1:]) == sorted(runs), "CSV rows != JSON benchmarks"
assert all(len(r) == len(rows[0]) for r in rows)
PY
else
	echo "no python3: checking the JSON by reading it back"
fi
# Without python3 too: the file reads back and equals itself, the CSV has
# the header and a row per benchmark.
n=$(grep -c '"repetition_index": 0,' "$T/run.json")
"$CYCLOCK" compare "$T/run.json" "$T/run.json" >"$T/rself" 2>"$T/err" ||
	cli_fail "run.json against itself: exit $?: $(cat "$T/err")"
[ "$(grep -c '(+0\.00%)$' "$T/rself")" -eq "$n" ] ||
	cli_fail "run.json against itself: not $n rows of +0.00%: $(cat "$T/rself")"
head -1 "$T/run.csv" | grep -q '^name,scenario,clock,variant,threads,iterations,repetitions,median_ns,min_ns,p90_ns,p99_ns,mean_ns,stddev_ns,spread,noisy' ||
	cli_fail "CSV header: $(head -1 "$T/run.csv")"
[ "$(($(wc -l <"$T/run.csv") - 1))" -eq "$n" ] || cli_fail "CSV: not $n rows"

# Google Benchmark's compare.py, where numpy and scipy are installed.
C=/usr/share/benchmark/compare.py
if [ -r "$C" ] && python3 -c 'import numpy, scipy' 2>/dev/null; then
	python3 "$C" benchmarks "$T/run.json" "$T/run.json" >"$T/cmp.out" 2>&1 ||
		cli_fail "compare.py: $(tail -5 "$T/cmp.out")"
else
	echo "skipped: compare.py (needs $C, numpy and scipy)"
fi

# Atomic writes.  Into a directory that does not exist: one line, nothing made.
bench $clocks --json "$T/nodir/run.json" >/dev/null 2>"$T/err" && cli_fail "--json into no directory succeeded"
# (bench may check the directory before measuring, in its own words.)
[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "^cyclock: .*$T/nodir/run.json.*No such file or directory" "$T/err" ||
	cli_fail "--json into no directory: $(cat "$T/err")"
[ -e "$T/nodir" ] && cli_fail "--json into no directory made something"
# Over a file, failing half-way (a file size limit): the old file stays.
echo old >"$T/keep.json"
(trap '' XFSZ; ulimit -f 1; bench $clocks --json "$T/keep.json" >/dev/null 2>"$T/err") &&
	cli_fail "--json beyond the file size limit succeeded"
grep -q "^cyclock: $T/keep.json: File too large\$" "$T/err" || cli_fail "file size limit: $(cat "$T/err")"
[ "$(cat "$T/keep.json")" = old ] || cli_fail "the old file was not left whole"
# Over a directory: refused before measuring.
mkdir -p "$T/adir"
bench $clocks --csv "$T/adir" >/dev/null 2>"$T/err" && cli_fail "--csv over a directory succeeded"
grep -q "^cyclock: bench: --csv: cannot write '$T/adir': Is a directory\$" "$T/err" ||
	cli_fail "over a directory: $(cat "$T/err")"
compgen -G "$T/.cyclock-*" >/dev/null && cli_fail "a temporary was left: $(ls -A "$T")"

cli_done
