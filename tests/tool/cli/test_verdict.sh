# The default run ("cyclock" with no command: info, then bench --quick)
# ends with the verdict: at most ten lines after the tables, each ratio
# the very cell the tables show for the row it names (x vDSO, or x floor
# where it says so), cyclock_now() warm, after a gap, cold, the relaxed
# clock warm, and, where the counter is used, the ordered read info
# named.  No speed is asserted: only that the verdict says what the
# tables say.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
T=$CYCLOCK_TEST_TMP
rm -rf "${T:?}"/*

"$CYCLOCK" --quiet >"$T/out" 2>"$T/err" || fail "the default run: $(cat "$T/err")"
python3 - "$T/out" <<'PY' || cli_fail "the verdict (see above)"
import re, sys

lines = open(sys.argv[1]).read().split("\n")
while lines and lines[-1] == "":
    lines.pop()
starts = [i for i, l in enumerate(lines) if l.startswith("verdict:")]
assert len(starts) == 1, f"{len(starts)} verdicts"
verdict = lines[starts[0]:]
assert len(verdict) <= 10, f"{len(verdict)} lines:\n" + "\n".join(verdict)

def cell(scenario, row, column):
    """The cell of @row under @column in @scenario's table, as printed."""
    g = next(i for i, l in enumerate(lines) if l.startswith(scenario + ": "))
    head = next(l for l in lines[g:] if l.startswith("  clock"))
    end = head.index(column) + len(column)  # ratios are right-aligned
    text = next(l for l in lines[g:starts[0]] if l.startswith("  " + row + " "))
    return text[:end].split()[-1]

seen = set()
for l in verdict[1:]:
    m = re.match(r"  (.+?)\s+(\S+x)  \((x floor: )?([a-z]+)/(\S+)\)$", l)
    if not m:
        continue
    label, ratio, floor, scenario, row = m.groups()
    column = "x floor" if floor else "x vDSO"
    want = cell(scenario, row, column)
    assert ratio == want, f"{label}: {ratio}, the {scenario} table's {row} {column}: {want}"
    seen.add(label.split()[0] + " " + scenario)
for need in ("cyclock_now() warm", "cyclock_now() sparse", "cyclock_now() cold",
             "cyclock_now_relaxed() warm"):
    assert need in seen, f"no verdict line for {need}: {sorted(seen)}"
counter = [l for l in verdict if l.startswith("  counter ")]
assert len(counter) == 1 and "trusted" in counter[0], counter
if ", trusted:" in counter[0]:
    info = next(l for l in lines if l.startswith("ordered read "))
    mine = next(l for l in verdict if l.startswith("  ordered read "))
    assert mine.split()[2] == info.split()[2], f"verdict {mine!r}, info {info!r}"
PY
cli_done
