# Tables pad by the columns a name takes on a terminal, not by its bytes:
# "zürich" (7 bytes) is 6 columns, "時計" (6 bytes) is 4.  The same golden
# output under every locale, "C" included, where wcwidth() knows nothing
# beyond ASCII: the text is UTF-8 whatever LC_CTYPE says.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${CYCLOCK_TEST_DATA:?}"
cd "$CYCLOCK_TEST_DATA" || exit 1
T=$CYCLOCK_TEST_TMP

for loc in C C.UTF-8 POSIX; do
	LC_ALL=$loc "$CYCLOCK" plot widths_base.json --table >"$T/table" 2>"$T/err" ||
		cli_fail "LC_ALL=$loc plot --table: exit $?: $(cat "$T/err")"
	diff -u widths_table_expected.txt "$T/table" ||
		cli_fail "LC_ALL=$loc: the table differs from widths_table_expected.txt"
	LC_ALL=$loc "$CYCLOCK" compare widths_base.json widths_new.json >"$T/compare" 2>"$T/err" ||
		cli_fail "LC_ALL=$loc compare: exit $?: $(cat "$T/err")"
	diff -u widths_compare_expected.txt "$T/compare" ||
		cli_fail "LC_ALL=$loc: the comparison differs from widths_compare_expected.txt"
done
cli_done
