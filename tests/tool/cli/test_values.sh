# What a file's times become in a plot and a table: a time that no axis
# can hold (zero, subnormal, out of range) is left out of the plot, which
# says so, and a run with nothing else is "nothing to plot" (exit 3, no
# file); a figure that is not a number is a word in a table ("n/a"), never
# "nan" or "inf".
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${CYCLOCK_TEST_DATA:?}"
D=$CYCLOCK_TEST_DATA
T=$CYCLOCK_TEST_TMP
rm -rf "${T:?}"/*

# Subnormal, zero and huge times: the plot leaves them out and says so.
S=$D/values_subnormal.json
cli_run plot "$S" --out "$T/sub.svg"
((rc == 0)) || cli_fail "plot of some subnormal times: exit $rc: $(cat "$err")"
grep -qiE 'nan|inf' "$T/sub.svg" &&
	cli_fail "the SVG holds nan or inf: $(grep -iE 'nan|inf' "$T/sub.svg" | head -3)"
# (The caption may be wrapped: its lines are read as one.)
sed -n 's/.*<text[^>]*>\(.*\)<\/text>$/\1/p' "$T/sub.svg" | tr '\n' ' ' |
	grep -qF '3 figures left out (not finite, or not from 0.001 ns to 1e+18 ns)' ||
	cli_fail "the plot does not say what it left out"
grep -qF '<title>cyclock_now: 20.5 ns' "$T/sub.svg" || cli_fail "the usable bar is not drawn"
# Every time unusable: nothing to plot, one line, exit 3, no file.
cli_expect_error 3 'nothing to plot' plot "$D/values_allsubnormal.json" --out "$T/none.svg"
[[ -e $T/none.svg ]] && cli_fail "a plot with nothing to draw wrote a file"
# The tables: no nan or inf, words instead.
cli_run plot "$S" --table
((rc == 0)) || cli_fail "plot --table of subnormal times: exit $rc: $(cat "$err")"
grep -qiE 'nan|inf' "$out" && cli_fail "the table holds nan or inf: $(cat "$out")"
cli_run compare "$D/values_allsubnormal.json" "$S"
((rc == 0)) || cli_fail "compare against subnormal times: exit $rc: $(cat "$err")"
grep -qiE 'nan|inf' "$out" && cli_fail "compare printed nan or inf: $(cat "$out")"
grep -qF '(n/a)' "$out" || cli_fail "compare does not say n/a: $(cat "$out")"

cli_done
