# Tables pad by the columns a name takes on a terminal, not by its bytes:
# "zürich" (7 bytes) is 6 columns, "時計" (6 bytes) is 4.  The same golden
# output under every locale, "C" included, where wcwidth() knows nothing
# beyond ASCII: the text is UTF-8 whatever LC_CTYPE says.  And again, as
# root, with C.UTF-8 itself missing.
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

# Where the system has no C.UTF-8 (its files hidden here in a mount
# namespace of the test's own, which needs root): the built-in table
# (report/text.c), to the same columns.
if unshare -m true 2>/dev/null; then
	# shellcheck disable=SC2016 # expanded by the inner shell
	hide='mount -t tmpfs none /usr/lib/locale && exec "$@"'
	unshare -m sh -c "$hide" sh env LC_ALL=C "$CYCLOCK" plot widths_base.json --table \
		>"$T/table" 2>"$T/err" ||
		cli_fail "no C.UTF-8: plot --table: exit $?: $(cat "$T/err")"
	diff -u widths_table_expected.txt "$T/table" ||
		cli_fail "no C.UTF-8: the table differs from widths_table_expected.txt"
	unshare -m sh -c "$hide" sh env LC_ALL=C "$CYCLOCK" compare widths_base.json \
		widths_new.json >"$T/compare" 2>"$T/err" ||
		cli_fail "no C.UTF-8: compare: exit $?: $(cat "$T/err")"
	diff -u widths_compare_expected.txt "$T/compare" ||
		cli_fail "no C.UTF-8: the comparison differs from widths_compare_expected.txt"
else
	echo "note: not root: the table without C.UTF-8 is not checked"
fi
cli_done
