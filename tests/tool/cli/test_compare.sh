# cyclock compare: the table against a golden file, the verdicts, and every
# way the input can be wrong (one line on stderr, nothing on stdout, the
# documented exit status).  Runs the tool only on files in data/.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${CYCLOCK_TEST_DATA:?}"
D=$CYCLOCK_TEST_DATA
T=$CYCLOCK_TEST_TMP

# expect_error STATUS PATTERN ARGS...: compare ARGS must exit STATUS with
# nothing on stdout and one line on stderr, "cyclock: " then PATTERN.
expect_error() {
	local want=$1 pattern=$2
	shift 2
	cli_expect_error "$want" "$pattern" compare "$@"
}

# The golden table: -10% better, +25% worse, +2% within the threshold,
# +10% within its own spread of 30%, a benchmark missing from the new
# file, one higher-is-better going down, one only in the new file, and the
# kernels that differ said first.
cd "$D" || exit 1
"$CYCLOCK" compare compare_base.json compare_new.json >"$T/table" 2>"$T/err" ||
	cli_fail "compare base new: exit $?: $(cat "$T/err")"
[ -s "$T/err" ] && cli_fail "compare base new: wrote to stderr: $(cat "$T/err")"
diff -u compare_expected.txt "$T/table" || cli_fail "the table differs from compare_expected.txt"
cd - >/dev/null || exit 1

# A lower threshold makes +2.00% (beyond both files' 0.67% spread) count.
"$CYCLOCK" compare --threshold 1 "$D/compare_base.json" "$D/compare_new.json" >"$T/t1" ||
	cli_fail "--threshold 1: exit $?"
grep -Eq '^warm/cyclock_now/throughput +15\.00 +15\.30 +\(\+2\.00%\) worse$' "$T/t1" ||
	cli_fail "--threshold 1: +2.00% not worse: $(grep cyclock_now/throughput "$T/t1")"
# ... and a high one silences everything.
"$CYCLOCK" compare "$D/compare_base.json" "$D/compare_new.json" --threshold 50 >"$T/t50" ||
	cli_fail "--threshold 50 after the files: exit $?"
grep -Eq '(better|worse)$' "$T/t50" && cli_fail "--threshold 50: still a verdict: $(cat "$T/t50")"

# A file against itself: every change 0.00%, no verdict, no context line.
"$CYCLOCK" compare "$D/compare_base.json" "$D/compare_base.json" >"$T/self" || cli_fail "self: exit $?"
[ "$(grep -c '(+0\.00%)$' "$T/self")" -eq 6 ] || cli_fail "self: not six rows of +0.00%: $(cat "$T/self")"
grep -q 'context differs' "$T/self" && cli_fail "self: a context difference"
# Three files, the base read from stdin.
"$CYCLOCK" compare - "$D/compare_new.json" "$D/compare_base.json" <"$D/compare_base.json" >"$T/three" ||
	cli_fail "three files: exit $?"
grep -Eq '^warm/rdtsc/throughput +20\.00 +18\.00 \(-10\.00%\) better +20\.00 +\(\+0\.00%\)$' "$T/three" ||
	cli_fail "three files: $(grep rdtsc "$T/three")"

# Units: us, s (an aggregates-only median) and ms all become ns.
"$CYCLOCK" compare "$D/json_units.json" "$D/compare_base.json" >"$T/units" || cli_fail "units: exit $?"
grep -Eq '^warm/monotonic/throughput +10\.00 ' "$T/units" || cli_fail "units: s: $(cat "$T/units")"
grep -Eq '^warm/rdtsc/throughput +20\.00 ' "$T/units" || cli_fail "units: us"
grep -Eq '^warm/cyclock_now/throughput +15\.00 ' "$T/units" || cli_fail "units: ms"

"$CYCLOCK" compare --help >"$T/help" 2>&1 || cli_fail "--help: exit $?"
grep -q '^usage: cyclock compare' "$T/help" || cli_fail "--help: no usage"

expect_error 2 'two files' "$D/compare_base.json"
expect_error 2 'two files'
expect_error 2 "bad option '--frobnicate'" --frobnicate "$D/compare_base.json" "$D/compare_new.json"
expect_error 2 'threshold' --threshold -3 "$D/compare_base.json" "$D/compare_new.json"
expect_error 2 'needs a value' "$D/compare_base.json" "$D/compare_new.json" --threshold
expect_error 3 "^cyclock: $T/absent.json: No such file or directory\$" \
	"$D/compare_base.json" "$T/absent.json"
expect_error 3 'compare_malformed.json: not JSON: line 5' \
	"$D/compare_base.json" "$D/compare_malformed.json"
expect_error 3 'compare_nobench.json: .*empty' "$D/compare_nobench.json" "$D/compare_base.json"
expect_error 3 'json_badunit.json: benchmarks\[0\]: unknown time_unit "fortnights"' \
	"$D/compare_base.json" "$D/json_badunit.json"
expect_error 3 'json_negative.json: benchmarks\[1\]: "real_time" is negative' \
	"$D/compare_base.json" "$D/json_negative.json"
expect_error 3 'json_notnumber.json: benchmarks\[3\]: "real_time" is not a number' \
	"$D/compare_base.json" "$D/json_notnumber.json"
expect_error 3 'Is a directory' "$D/compare_base.json" "$D"
expect_error 3 "^cyclock: mismatched: no benchmark in common between $D/compare_base.json and $D/compare_other.json\$" \
	"$D/compare_base.json" "$D/compare_other.json"

# Google Benchmark's own output, from Debian's libbenchmark-tools.
G=/usr/share/benchmark/gbench/Inputs
if [ -r "$G/test1_run1.json" ] && [ -r "$G/test1_run2.json" ]; then
	"$CYCLOCK" compare "$G/test1_run1.json" "$G/test1_run2.json" >"$T/gb" 2>"$T/err" ||
		cli_fail "Google Benchmark's test1: exit $?: $(cat "$T/err")"
	grep -Eq '^BM_2xFaster +50\.00 +25\.00 +\(-50\.00%\) better$' "$T/gb" ||
		cli_fail "Google Benchmark's test1: $(cat "$T/gb")"
	grep -Eq '^BM_1PercentSlower +100\.00 +101\.00 +\(\+1\.00%\)$' "$T/gb" ||
		cli_fail "Google Benchmark's test1: 1% slower is noise"
else
	echo "skipped: no $G/test1_run1.json (install libbenchmark-tools)"
fi

cli_done
