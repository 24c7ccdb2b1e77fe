# compare's column headers are file names cut in the middle to 24 columns:
# at characters' boundaries, never inside a multibyte one, counted in the
# columns a terminal gives them ("時" 2, "ü" 1), so the headers stay
# valid UTF-8 and line up with the figures under them.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${CYCLOCK_TEST_DATA:?}"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
cd "$tmp" || exit 1
rm -rf ./*
base=base_時計時計時計時計時計時計_run.json
new=new_zürich_zürich_zürich_ünïcödé_run.json
cp "$CYCLOCK_TEST_DATA/compare_base.json" "$base"
cp "$CYCLOCK_TEST_DATA/compare_new.json" "$new"

for loc in C C.UTF-8; do
	LC_ALL=$loc "$CYCLOCK" compare "$base" "$new" >out.txt 2>err.txt ||
		cli_fail "LC_ALL=$loc compare: exit $?: $(cat err.txt)"
	# The head's 10 columns and the tail's 11 at most, whole characters.
	python3 - out.txt <<'PY' || cli_fail "LC_ALL=$loc: the headers are not cut right"
import sys, unicodedata
def cols(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
text = open(sys.argv[1], "rb").read().decode("utf-8")  # strict: no broken character
lines = text.split("\n")
head = next(l for l in lines if l.startswith("benchmark "))
row = next(l for l in lines if l.startswith("warm/rdtsc/throughput "))
want = ["base_時計...計_run.json", "new_zürich...dé_run.json"]
ok = "\\x" not in text and all(w in head for w in want)
ok &= all(cols(w) <= 24 for w in want)
# Under the first header, the base's figure ends where the header does: it
# is the column's widest text, so they line up only if counted in columns.
if ok:
    end = cols(head[:head.index(want[0]) + len(want[0])])
    ok = cols(row[:row.index("20.00") + 5]) == end
if not ok:
    print(head, file=sys.stderr)
sys.exit(0 if ok else 1)
PY
done
cli_done
