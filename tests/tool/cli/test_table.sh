# The readable table: exact output for a stored run (cyclock plot --table),
# and, when the tool can measure here, the shape of a live one.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${CYCLOCK_TEST_DATA:?}"
out=$CYCLOCK_TEST_TMP/table.txt

# A stored run, byte for byte: headings, columns, number formats, the
# noisy mark and its legend, and the generic fallback for the unknown.
"$CYCLOCK" plot "$CYCLOCK_TEST_DATA/table_run.json" --table >"$out" ||
	fail "plot --table exited $?"
diff -u "$CYCLOCK_TEST_DATA/table_expected.txt" "$out" || fail "table differs from table_expected.txt"
awk 'length($0) > 100 { exit 1 }' "$out" || fail "a line is wider than 100 columns"
grep -q ' $' "$out" && fail "a line ends in blanks"

# A run whose context names its floor (files from before it did not): the
# legend says what x floor is vs, one line per ratio when too long, and
# nothing else changes.
named=$CYCLOCK_TEST_TMP/named.json
sed 's/^ "context": {$/&\n  "floor": "ordered_ns", "ordered_read": "lfence;rdtsc",/' \
	"$CYCLOCK_TEST_DATA/table_run.json" >"$named"
"$CYCLOCK" plot "$named" --table >"$out" || fail "plot --table of a named floor exited $?"
sed 's/; x floor = vs lfence;rdtsc, \(x vDSO = .*\)$/\n  x floor = vs ordered_ns (lfence;rdtsc, multiply, add, shift),\n  \1/' \
	"$CYCLOCK_TEST_DATA/table_expected.txt" | diff -u - "$out" ||
	fail "named floor: the table differs from table_expected.txt beyond its legend"

# A live run: a heading, one row per clock and variant, numbers that parse.
live=$CYCLOCK_TEST_TMP/live.txt
if ! "$CYCLOCK" bench warm --quick --clocks rdtsc,monotonic --quiet >"$live" 2>"$live.err"; then
	echo "skip (live part): 'cyclock bench warm' does not run here: $(head -n1 "$live.err")"
	exit 0
fi
grep -q '^warm: ' "$live" || fail "live: no warm heading"
rows="monotonic/throughput monotonic/latency"
case $(uname -m) in x86_64 | i?86) rows="rdtsc/throughput rdtsc/latency $rows" ;; esac
for row in $rows; do
	grep -Eq "^  $row +[0-9.]+ (ns|us|ms|s)~? " "$live" || fail "live: no row '$row' with a median"
done
exit 0
