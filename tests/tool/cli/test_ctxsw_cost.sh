# ctxsw's clock cost is a difference of two noisy figures: within its
# noise (clock_cost_noise_ns) or below zero the table says "~0 (+-NOISE)",
# never a negative cost; the JSON keeps both raw figures.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${CYCLOCK_TEST_DATA:?}"
D=$CYCLOCK_TEST_DATA
T=$CYCLOCK_TEST_TMP
rm -rf "${T:?}"/*

# ctxsw's clock cost: within its noise "~0 (+-noise)", never negative; a
# file from before the noise was stored shows a negative cost as noise.
cli_run plot "$D/ctxsw_cost.json" --table
((rc == 0)) || cli_fail "plot --table of ctxsw: exit $rc: $(cat "$err")"
grep -E 'cyclock_now/cross_cpu' "$out" | grep -qF '~0 (+-400 ns)' ||
	cli_fail "a negative cost within the noise is not ~0: $(cat "$out")"
grep -E ' monotonic/same_cpu' "$out" | grep -qF '~0 (+-30.0 ns)' ||
	cli_fail "a cost within the noise is not ~0: $(cat "$out")"
grep -E 'syscall_monotonic/same_cpu' "$out" | grep -qF '289 ns (+-25.0 ns)' ||
	cli_fail "a cost beyond the noise is not shown with it: $(cat "$out")"
grep -E 'thread_cputime/same_cpu' "$out" | grep -qF '~0 (noise)' ||
	cli_fail "a negative cost without a noise figure is not noise: $(cat "$out")"
grep -qE -- '(^|[^+])-[0-9.]+ ns' "$out" && cli_fail "a negative cost is printed: $(cat "$out")"
grep -qF 'clock cost noise' "$out" && cli_fail "the noise has a column of its own"

# A real ctxsw run keeps the raw cost and its noise in JSON, and its
# table shows no negative cost.
if "$CYCLOCK" bench --quick --quiet --clocks cyclock_now --json "$T/ctxsw.json" ctxsw \
	>"$T/ctxsw.out" 2>"$T/ctxsw.err"; then
	python3 - "$T/ctxsw.json" <<'PY' || cli_fail "ctxsw's JSON (see above)"
import json, sys
rows = [e for e in json.load(open(sys.argv[1]))["benchmarks"]
        if e.get("clock") and e["run_type"] == "iteration"]
assert rows, "no clock rows"
for e in rows:
    assert "clock_cost_ns" in e and e["clock_cost_noise_ns"] >= 0, e
PY
	grep -qE -- '(^|[^+])-[0-9.]+ ns' "$T/ctxsw.out" &&
		cli_fail "ctxsw printed a negative cost: $(cat "$T/ctxsw.out")"
else
	cli_fail "bench ctxsw: $(cat "$T/ctxsw.err")"
fi

cli_done
