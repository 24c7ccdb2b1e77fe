# cyclock plot: a well-formed standalone SVG with a bar per clock and the
# panels the run has; errors are one line, the right status, no file left.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${CYCLOCK_TEST_DATA:?}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$CYCLOCK_TEST_TMP" || exit 1
rm -rf ./*
data=$CYCLOCK_TEST_DATA

# Well-formed XML, with the best checker present (xmllint: libxml2-utils).
well_formed() {
	if command -v xmllint >/dev/null; then
		xmllint --noout "$1"
	elif command -v python3 >/dev/null; then
		python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$1"
	else
		head -n2 "$1" | grep -q '<svg ' && tail -n1 "$1" | grep -qx '</svg>' &&
			! grep -q '<[^>]*&[^a-z#]' "$1"
	fi
}

# An error case: exit status @1, one line on stderr, no file left in the
# scratch directory; the rest is the command line.
expect_error() {
	local want=$1 rc
	shift
	"$CYCLOCK" plot "$@" >out.txt 2>err.txt
	rc=$?
	[ "$rc" = "$want" ] || fail "plot $*: exit $rc, not $want"
	[ "$(wc -l <err.txt)" = 1 ] || fail "plot $*: stderr is not one line: $(cat err.txt)"
	grep -q '^cyclock: ' err.txt || fail "plot $*: stderr does not start 'cyclock: '"
	[ -z "$(ls -A | grep -v -e '^out.txt$' -e '^err.txt$')" ] ||
		fail "plot $*: left $(ls -A)"
	rm -f out.txt err.txt
}

"$CYCLOCK" plot --help >help.txt || fail "--help exited $?"
grep -q -- '--out' help.txt && grep -q -- '--table' help.txt || fail "--help lacks --out or --table"
rm -f help.txt

"$CYCLOCK" plot "$data/plot_run.json" --out run.svg || fail "plot exited $?"
well_formed run.svg || fail "run.svg is not well-formed XML"
grep -q 'viewBox="0 0 800 ' run.svg || fail "no viewBox 800 wide"
grep -Eqi '<script|xlink:href|@import|url\(' run.svg && fail "run.svg refers outside itself"
for panel in 'What one call costs (warm' 'as threads read at once' 'How finely each clock ticks'; do
	grep -qF "$panel" run.svg || fail "no panel '$panel'"
done
# A bar per clock: every warm clock of the input names one (escaped).
for clock in cyclock_now cyclock_now_relaxed rdtsc lfence_rdtsc monotonic realtime_coarse \
	process_cputime 'a&lt;b&amp;c&quot;&apos;'; do
	grep -qF "<title>$clock: " run.svg || fail "no bar for '$clock'"
done
grep -q '>cyclock<' run.svg && grep -q '>floors' run.svg && grep -q '>kernel' run.svg ||
	fail "the bars are not grouped"
[ "$(grep -c '<polyline' run.svg)" = 3 ] || fail "not one line per scale clock"
grep -q 'log scale' run.svg || fail "the log scale is not labelled"
# ordered_ns, the floor the ratios are to, is drawn among the floors.
cat >floor.json <<'EOF'
{"benchmarks": [
 {"name": "warm/cyclock_now/throughput", "real_time": 20.5, "time_unit": "ns"},
 {"name": "warm/monotonic/throughput", "real_time": 23.5, "time_unit": "ns"},
 {"name": "warm/ordered_ns/throughput", "real_time": 19.9, "time_unit": "ns"}
]}
EOF
"$CYCLOCK" plot floor.json --out floor.svg || fail "plot of ordered_ns exited $?"
grep -A3 '>floors' floor.svg | grep -qF '<title>ordered_ns: ' || fail "ordered_ns is not among the floors"
grep -q '(1\.[0-9][0-9]x)' floor.svg && fail "ratios drawn where the file has none"
# With the ratios (a file the tool wrote), each bar says its own, the floor's 1.00x.
cat >floor.json <<'EOF'
{"context": {"floor": "ordered_ns"}, "benchmarks": [
 {"name": "warm/cyclock_now/throughput", "real_time": 20.5, "time_unit": "ns", "x_floor": 1.03},
 {"name": "warm/ordered_ns/throughput", "real_time": 19.9, "time_unit": "ns", "x_floor": 1.0}
]}
EOF
"$CYCLOCK" plot floor.json --out floor.svg || fail "plot with ratios exited $?"
grep -qF '>19.9 ns (1.00x)<' floor.svg && grep -qF '>20.5 ns (1.03x)<' floor.svg ||
	fail "the bars do not say their ratio to the floor"
grep -qF 'against ordered_ns, the least an ordered ns clock can cost' floor.svg ||
	fail "the caption does not say what the ratio is to"
rm -f floor.json floor.svg

# Colour means the group, in every panel: each bar, point and histogram
# of a clock has its group's colour, as the panel's legend names it (a
# swatch, then the group's name), and the C++ clocks are cyclock's own.
python3 "$here/plot_stress.py" >stress.json || fail "plot_stress.py failed"
"$CYCLOCK" plot stress.json --out stress.svg || fail "plot of stress.json exited $?"
python3 - stress.svg <<'PY' || fail "a clock is not in its group's colour"
import re, sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
def group(clock):
    for prefix, g in (("cyclock", "cyclock"), ("cxx_", "C++ on cyclock"), ("engine_", "engine")):
        if clock.startswith(prefix):
            return g
    floors = "rdtsc rdtscp lfence_rdtsc cntvct isb_cntvct ordered_ns".split()
    return "floors" if clock in floors else "kernel and libc"
els = list(ET.parse(sys.argv[1]).getroot())
# The legends: a swatch (a rect without a tooltip) right before its name.
legend = {}
for a, b in zip(els, els[1:]):
    if a.tag == NS + "rect" and b.tag == NS + "text" and a.find(NS + "title") is None:
        legend.setdefault(b.text, set()).add(a.get("fill"))
ok = True
for g in ("cyclock", "C++ on cyclock", "kernel and libc", "engine", "floors"):
    if len(legend.get(g, ())) != 1:
        print(f"legend of {g}: {legend.get(g)}"); ok = False
seen = set()
for e in els:
    t = e.find(NS + "title")
    if t is None or "fill" not in e.attrib:
        continue
    clock = re.split(r"[:,] ", t.text)[0]
    want = legend.get(group(clock), {None})
    seen.add((e.tag, group(clock)))
    if e.get("fill") not in want:
        print(f"{e.tag[len(NS):]} of {clock}: {e.get('fill')}, not {want}"); ok = False
# Bars, points and histograms of each group that the run has in them.
ok &= {(NS + "rect", "C++ on cyclock"), (NS + "circle", "cyclock"),
       (NS + "circle", "kernel and libc"), (NS + "rect", "floors")} <= seen
sys.exit(0 if ok else 1)
PY
grep -A3 '>C++ on cyclock' stress.svg | grep -qF '>cxx_steady_clock<' ||
	fail "cxx_steady_clock is not among the C++ clocks on cyclock"
rm -f stress.json stress.svg

# Standard output, and the table beside the picture.
"$CYCLOCK" plot "$data/plot_run.json" --out - >stdout.svg || fail "--out - exited $?"
cmp -s run.svg stdout.svg || fail "--out - differs from the file"
"$CYCLOCK" plot "$data/plot_run.json" --out run.svg --table >table.txt || fail "--table exited $?"
grep -q '^warm: ' table.txt || fail "--table printed no table"
rm -f run.svg stdout.svg table.txt

expect_error 2 "$data/plot_run.json"
expect_error 2 --out x.svg
expect_error 2 "$data/plot_run.json" --out
expect_error 2 "$data/plot_run.json" --out x.svg --bogus
expect_error 3 "$data/plot_malformed.json" --out x.svg
expect_error 3 "$data/no_such_file.json" --out x.svg
expect_error 3 "$data/plot_nothing.json" --out x.svg
grep -q 'nothing to plot' <("$CYCLOCK" plot "$data/plot_nothing.json" --out x.svg 2>&1) ||
	fail "no 'nothing to plot'"
expect_error 2 "$data/plot_run.json" --out no_such_dir/x.svg
# A failed write leaves an existing file as it was.
echo old >keep.svg
"$CYCLOCK" plot "$data/plot_malformed.json" --out keep.svg 2>/dev/null
[ "$(cat keep.svg)" = old ] || fail "a failed plot touched its output"
exit 0
