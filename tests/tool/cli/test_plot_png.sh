# Every chart "cyclock plot" draws, rendered to PNG by rsvg-convert
# (Debian's librsvg2-bin) at its own size, has nothing but background in
# its two outermost columns and rows: no text or shape was cut at an edge.
# The pictures are test_plot_layout.sh's, which checks their geometry.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${CYCLOCK_TEST_DATA:?}"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
command -v rsvg-convert >/dev/null || { echo "skip: no rsvg-convert (librsvg2-bin)"; exit 77; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$tmp" || exit 1
rm -rf ./*

# png NAME: NAME.svg rendered as NAME.png, checked (and its geometry too).
png() {
	rsvg-convert "$1.svg" -o "$1.png" || { cli_fail "rsvg-convert $1.svg: exit $?"; return 1; }
	python3 "$here/svg_layout.py" "$1.svg" "$1.png" >&2
}

# The checker itself: the cost chart's old footnote, centred and too long,
# is cut at both edges of the image.
cat >cut.svg <<'SVG'
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 60" width="800" height="60">
<style>text { font-family: sans-serif; font-size: 10.5px; } .mid { text-anchor: middle; }</style>
<rect width="100%" height="100%" fill="#fff"/>
<text x="445.0" y="30.0" class="mid">median ns per call, log scale: each grid line is 10x the one before; (1.04x): against ordered_ns, the least an ordered ns clock can cost; ~ marks a noisy figure</text>
</svg>
SVG
png cut 2>err.txt && cli_fail "svg_layout.py passed cut.png"
grep -q "cut.png: drawn at its right edge" err.txt || cli_fail "no cut seen at the right edge: $(cat err.txt)"

python3 "$here/plot_stress.py" >stress.json && python3 "$here/plot_stress.py" bars >bars.json ||
	fail "plot_stress.py failed"
for run in "$CYCLOCK_TEST_DATA/plot_run.json" stress.json bars.json "$here/../../../docs/img/bench.json"; do
	name=$(basename "$run" .json)
	"$CYCLOCK" plot "$run" --out "$name.svg" || { cli_fail "plot $run: exit $?"; continue; }
	png "$name" || cli_fail "$name.png: something is cut at an edge, or its geometry is wrong"
done
cli_done
