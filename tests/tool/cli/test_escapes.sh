# Names, labels and context with escape sequences, C1 controls and bidi
# overrides, read from a file: compare's table, plot --table, the SVG and
# an error line quoting the input show them visibly ("\x1b"), never raw.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${CYCLOCK_TEST_DATA:?}"
D=$CYCLOCK_TEST_DATA
T=$CYCLOCK_TEST_TMP
rm -rf "${T:?}"/*

# raw FILE: fails when FILE holds a C0 control (other than a newline), DEL,
# or a C1 control in UTF-8 (0xc2 0x80..0x9f).
raw() {
	LC_ALL=C grep -qP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1"
}

# Names with escape sequences, C1 controls and bidi overrides.
E=$D/escapes.json
cli_run compare "$E" "$E"
((rc == 0)) || cli_fail "compare of escapes: exit $rc: $(cat "$err")"
raw "$out" && cli_fail "compare printed a control character: $(od -c "$out" | head)"
grep -qF 'warm/\x1b[2J\x1b[31mred/throughput' "$out" ||
	cli_fail "compare does not show the escape as \\x1b: $(cat "$out")"
grep -qF '\u202e' "$out" || cli_fail "compare does not show the bidi override: $(cat "$out")"
grep -qF 'c1\x85\x9b\x7f' "$out" || cli_fail "compare does not show C1 and DEL: $(cat "$out")"
cli_run plot "$E" --table
((rc == 0)) || cli_fail "plot --table of escapes: exit $rc: $(cat "$err")"
raw "$out" && cli_fail "plot --table printed a control character: $(od -c "$out" | head)"
cli_run plot "$E" --out "$T/esc.svg"
((rc == 0)) || cli_fail "plot of escapes: exit $rc: $(cat "$err")"
raw "$T/esc.svg" && cli_fail "the SVG holds a control character"
if command -v xmllint >/dev/null; then
	xmllint --noout "$T/esc.svg" || cli_fail "the SVG of escapes is not well-formed"
fi
grep -qF 'evil\x1b]0;pwned\x07cpu' "$T/esc.svg" || cli_fail "the SVG lost the cpu model"
# A file name with an escape sequence: compare's column header shows it.
cp "$E" "$T/$(printf 'run\033[2Jx.json')"
cli_run compare "$E" "$T/$(printf 'run\033[2Jx.json')"
((rc == 0)) || cli_fail "compare of an escaped file name: exit $rc: $(cat "$err")"
raw "$out" && cli_fail "compare printed a file name's control character: $(od -c "$out" | head)"
grep -qF 'run\x1b[2Jx.json' "$out" || cli_fail "compare's header lost the file name: $(head -2 "$out")"
# An error quoting the input quotes it visibly.
printf '{"benchmarks":[{"name":"a","real_time":1,"run_type":"\\u001b[31mred"}]}' >"$T/bad.json"
cli_expect_error 3 'unknown run_type "\\x1b\[31mred"' compare "$T/bad.json" "$T/bad.json"
raw "$err" && cli_fail "the error line holds a control character"

cli_done
