# Every text of every chart "cyclock plot" draws stays inside the picture
# and clear of every other, by the SVG's geometry and the font's metrics
# (svg_layout.py): for the test run, for runs that crowd every panel
# (plot_stress.py: every clock, names as long as a file may make them,
# 21 decades on one axis, long captions), and for the README's picture,
# which must be what plot makes of its run, docs/img/bench.json.
# test_plot_png.sh checks the same pictures rendered.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${CYCLOCK_TEST_DATA:?}"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
img=$here/../../../docs/img
cd "$tmp" || exit 1
rm -rf ./*

# The checker itself: a text cut at the right edge (the cost chart's old
# footnote) and two labels on one another are faults.
cat >faults.svg <<'SVG'
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 100" width="800" height="100">
<style>
text { font-family: sans-serif; font-size: 12px; }
.small { font-size: 10.5px; }
.mid { text-anchor: middle; }
</style>
<text x="445.0" y="40.0" class="small mid">median ns per call, log scale: each grid line is 10x the one before; (1.04x): against ordered_ns, the least an ordered ns clock can cost; ~ marks a noisy figure</text>
<text x="100.0" y="80.0">cyclock_now</text>
<text x="150.0" y="84.0">monotonic</text>
</svg>
SVG
python3 "$here/svg_layout.py" faults.svg >faults.txt
grep -q "'median ns per call.*runs past the picture" faults.txt &&
	grep -q "'cyclock_now' .* overlaps 'monotonic'" faults.txt ||
	cli_fail "svg_layout.py missed a fault: $(cat faults.txt)"

python3 "$here/plot_stress.py" >stress.json && python3 "$here/plot_stress.py" bars >bars.json ||
	fail "plot_stress.py failed"
# The README's from docs/img, as it was made: the title names the input.
(cd "$img" && "$CYCLOCK" plot bench.json --out "$tmp/bench.svg") || cli_fail "plot bench.json: exit $?"
for run in "$CYCLOCK_TEST_DATA/plot_run.json" stress.json bars.json; do
	"$CYCLOCK" plot "$run" --out "$(basename "$run" .json).svg" || cli_fail "plot $run: exit $?"
done
for svg in plot_run stress bars bench; do
	python3 "$here/svg_layout.py" "$svg.svg" >&2 || cli_fail "$svg.svg: a text is cut or overlaps"
done
# The crowded runs drew what they crowd: every group, lines, histograms, bars.
for group in '>cyclock<' '>C++ on cyclock' '>kernel and libc' '>engine' '>floors'; do
	grep -qF "$group" stress.svg || cli_fail "stress.svg lacks the group $group"
done
grep -q '<polyline' stress.svg && grep -q 'of steps below' stress.svg || cli_fail "stress.svg lacks a panel"
grep -q 'How finely' bars.svg && ! grep -q 'of steps below' bars.svg || cli_fail "bars.svg has no bars"
cmp -s bench.svg "$img/bench.svg" ||
	cli_fail "docs/img/bench.svg is not what plot makes of docs/img/bench.json (regenerate it)"
cli_done
