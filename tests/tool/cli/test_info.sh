# cyclock info's formats (docs/tool.md, "cyclock info"): --json validated
# against docs/schemas/info.schema.json (python3-jsonschema), trusted and
# with CYCLOCK_SOURCE=kernel; --format openmetrics read by a strict
# OpenMetrics parser (python3-prometheus-client) and --format prometheus
# linted by promtool where they are installed, and both checked line by
# line here in any case (HELP, TYPE, UNIT, EOF, escaped label values); the
# same series in each, agreeing with the JSON; --output written atomically;
# label values with a double quote and a backslash escaped (a CPU model
# bind-mounted over /proc/cpuinfo, as root); bad options refused with one
# line.  Checks that need a missing package are skipped with a line (exit
# 77 if nothing failed but something was skipped).
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
T=$CYCLOCK_TEST_TMP
rm -rf "${T:?}"/*
schema=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/docs/schemas/info.schema.json
py=/usr/bin/python3
[[ -x $py ]] || py=python3
skipped=()

# has_module NAME: whether python3 imports it.
has_module() {
	"$py" -c "import $1" 2>/dev/null
}

# info FILE ARGS...: cyclock info ARGS with standard output in FILE; fails
# the test unless it exits 0 with nothing on stderr.
info() {
	local file=$1 rc=0
	shift
	"$CYCLOCK" info "$@" >"$file" 2>"$T/info.err" || rc=$?
	((rc == 0)) && [[ ! -s $T/info.err ]] ||
		fail "info $*: exit $rc: $(cat "$T/info.err")"
}

# The ordered read is chosen by measuring in each process, and where two
# cost the same, two processes may choose differently: every run below
# uses the one a first run chose.  Where CYCLOCK_ORDERED_READ forces one
# (a per-read variant), the first run says it took that one, and why.
forced=${CYCLOCK_ORDERED_READ:-}
read -r ordered why < <("$CYCLOCK" info --json | python3 -c 'import json, sys
r = json.load(sys.stdin)
print(r.get("ordered_read", ""), r.get("ordered_why", ""))') ||
	fail "info --json: exit $?"
if [[ -n $forced ]]; then
	[[ $ordered == "$forced" || $ordered == "$forced;"* ]] && [[ $why == "forced by CYCLOCK_ORDERED_READ;"* ]] ||
		fail "CYCLOCK_ORDERED_READ=$forced: info says '$ordered': '$why'"
fi
[[ -n $ordered ]] && export CYCLOCK_ORDERED_READ=$ordered

# The facts, each format from one process; CYCLOCK_SOURCE=kernel once too.
info "$T/info.json" --json --bench
info "$T/format.json" --format json
info "$T/info.om" --format openmetrics --bench
info "$T/info.prom" --format prometheus --bench
CYCLOCK_SOURCE=kernel info "$T/kernel.json" --json
CYCLOCK_SOURCE=kernel info "$T/kernel.om" --format openmetrics
CYCLOCK_SOURCE=kernel info "$T/kernel.prom" --format prometheus

# JSON: the schema (and block.schema.json, its $ref), where
# python3-jsonschema is installed.
if has_module jsonschema; then
	for f in info.json format.json kernel.json; do
		"$py" "$(dirname "${BASH_SOURCE[0]}")/json_schema.py" "$schema" "$T/$f" ||
			cli_fail "$f does not follow info.schema.json"
	done
else
	skipped+=("the JSON schema (no python3-jsonschema)")
fi

# JSON and the metrics, line by line (no package needed), and against
# each other: OpenMetrics has "info" families, "# UNIT" and "# EOF", the
# Prometheus format none of them; both the same samples, agreeing with
# the JSON on trust, the counter, the clocksource and the version.
"$py" - "$T" <<'PY' || cli_fail "the metrics (see above)"
import json, re, sys
T = sys.argv[1]
bad = []
NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
VALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(r'(%s)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*=%s,?)*)\})? (\S+)$' % (NAME, VALUE))
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)=(%s)' % VALUE)

def unescape(v):
    return re.sub(r'\\(.)', lambda m: '\n' if m.group(1) == 'n' else m.group(1), v[1:-1])

def parse(path, om):
    """{(name, frozenset(labels)): value}; problems into bad."""
    lines = open(path).read().split('\n')
    if lines[-1] != '':
        bad.append('%s: no newline at the end' % path)
    lines = lines[:-1]
    if om != (lines[-1] == '# EOF'):
        bad.append('%s: "# EOF" %s' % (path, 'missing' if om else 'present'))
    if om:
        lines = lines[:-1]
    typed, helped, out = {}, set(), {}
    for ln in lines:
        m = re.match(r'# (HELP|TYPE|UNIT) (%s) (.+)$' % NAME, ln)
        if m:
            kind, name, rest = m.groups()
            if kind == 'TYPE':
                ok = ('gauge', 'info') if om else ('gauge',)
                if rest not in ok or name in typed:
                    bad.append('%s: %s' % (path, ln))
                typed[name] = rest
            elif kind == 'UNIT' and (not om or not name.endswith('_' + rest)):
                bad.append('%s: %s' % (path, ln))
            elif kind == 'HELP':
                helped.add(name)
            continue
        m = SAMPLE.match(ln)
        if not m:
            bad.append('%s: not a sample: %r' % (path, ln))
            continue
        name, labels, value = m.groups()
        fam = name[:-5] if om and name.endswith('_info') and typed.get(name[:-5]) == 'info' else name
        if fam not in typed or fam not in helped:
            bad.append('%s: %s has no TYPE or HELP before it' % (path, name))
        lab = frozenset((k, unescape(v)) for k, v in LABEL.findall(labels or ''))
        out[(name, lab)] = float(value)
    return out

def one(m, name):
    """The labels and value of the one sample called name."""
    got = [(dict(k[1]), v) for k, v in m.items() if k[0] == name]
    if len(got) != 1:
        bad.append('%d samples %s' % (len(got), name))
        return {}, float('nan')
    return got[0]

for kind in ('info', 'kernel'):
    j = json.load(open('%s/%s.json' % (T, kind)))
    om, prom = parse('%s/%s.om' % (T, kind), True), parse('%s/%s.prom' % (T, kind), False)
    if set(k[0] for k in om) != set(k[0] for k in prom):
        bad.append('%s: openmetrics and prometheus differ: %s' % (kind,
                   set(k[0] for k in om) ^ set(k[0] for k in prom)))
    for m in (om, prom):
        trusted = j['clocks'] == 'counter'
        lab, v = one(m, 'cyclock_trusted')
        if v != (1 if trusted else 0) or lab.get('reason') != ('' if trusted else j['why']):
            bad.append('%s: cyclock_trusted %s %s, JSON %s %r' % (kind, lab, v, j['clocks'], j['why']))
        if one(m, 'cyclock_source_info')[0].get('source') != j['counter']:
            bad.append('%s: cyclock_source_info against %s' % (kind, j['counter']))
        if one(m, 'cyclock_build_info')[0].get('version') != j['cyclock_version']:
            bad.append('%s: cyclock_build_info' % kind)
        cs = one(m, 'cyclock_clocksource_info')[0]
        if cs.get('clocksource') != j['machine']['clocksource'] or \
           cs.get('available', '').split() != j['machine']['clocksources_available']:
            bad.append('%s: cyclock_clocksource_info %s' % (kind, cs))
        if one(m, 'cyclock_machine_info')[0].get('cpu_model') != j['machine']['cpu_model']:
            bad.append('%s: cyclock_machine_info' % kind)
        has_hz = any(k[0] == 'cyclock_frequency_hertz' for k in m)
        if has_hz != trusted:
            bad.append('%s: cyclock_frequency_hertz %s, clocks %s' % (kind, has_hz, j['clocks']))
        if trusted:
            # Two processes, each within its stated uncertainty of the truth.
            hz, ppm = one(m, 'cyclock_frequency_hertz')[1], one(m, 'cyclock_frequency_uncertainty_ratio')[1]
            c = j['counts']
            if not abs(hz - c['hz']) <= hz * ppm + c['hz'] * c['hz_uncertainty_ppm'] * 1e-6:
                bad.append('%s: %g Hz +- %g against the JSON %s' % (kind, hz, ppm, c))
            if one(m, 'cyclock_ordered_read_info')[0].get('read') != j['ordered_read']:
                bad.append('%s: cyclock_ordered_read_info' % kind)
    if kind == 'info':
        costs = dict((dict(k[1])['clock'], v) for k, v in om.items() if k[0] == 'cyclock_read_cost_seconds')
        if 'cyclock_now' not in costs or 'monotonic' not in costs or min(costs.values()) <= 0:
            bad.append('--bench: cyclock_read_cost_seconds %s' % costs)
        if sorted(j.get('read_cost_ns', {})) != sorted(costs):
            bad.append('--bench: JSON read_cost_ns %s against %s' % (j.get('read_cost_ns'), costs))
if 'read_cost_ns' in json.load(open(T + '/format.json')):
    bad.append('--format json has read_cost_ns without --bench')
for b in bad:
    print('FAIL:', b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# A strict OpenMetrics parser, and promtool's lint of the Prometheus format.
if has_module prometheus_client; then
	for f in info.om kernel.om; do
		"$py" - "$T/$f" <<-'PY' || cli_fail "$f is not OpenMetrics (prometheus_client)"
			import sys
			from prometheus_client.openmetrics.parser import text_string_to_metric_families
			list(text_string_to_metric_families(open(sys.argv[1]).read()))
		PY
	done
else
	skipped+=("the OpenMetrics parser (no python3-prometheus-client)")
fi
if command -v promtool >/dev/null; then
	for f in info.prom kernel.prom; do
		promtool check metrics <"$T/$f" >"$T/promtool.out" 2>&1 ||
			cli_fail "promtool check metrics $f: $(cat "$T/promtool.out")"
	done
else
	skipped+=("promtool check metrics (no promtool: Debian's prometheus)")
fi

# --output: the file, written whole (a temporary beside it, renamed),
# nothing on standard output, no temporary left; then replaced.
echo old >"$T/cyclock.prom"
info "$T/stdout" --format prometheus --output "$T/cyclock.prom"
[[ ! -s $T/stdout ]] || cli_fail "--output also wrote to stdout"
grep -q '^cyclock_trusted{' "$T/cyclock.prom" || cli_fail "--output: $(head -3 "$T/cyclock.prom")"
compgen -G "$T/.cyclock-*" >/dev/null && cli_fail "a temporary was left: $(ls -A "$T")"
info "$T/stdout" --output "$T/info.txt"
grep -q '^trusted ' "$T/info.txt" || cli_fail "--output with text: $(head -3 "$T/info.txt")"
# The text is still the default, and --format text is it.
info "$T/default.txt"
info "$T/text.txt" --format text
diff <(cut -c1-16 "$T/default.txt") <(cut -c1-16 "$T/text.txt") >/dev/null ||
	cli_fail "--format text differs from the default: $(diff "$T/default.txt" "$T/text.txt")"
# --bench adds one line to the text, after the machine; without it, none.
info "$T/bench.txt" --bench
grep -qE '^read cost +cyclock_now [0-9.]+ [nu]s, .*monotonic [0-9.]+ [nu]s' "$T/bench.txt" ||
	cli_fail "info --bench: $(tail -2 "$T/bench.txt")"
! grep -q '^read cost' "$T/default.txt" || cli_fail "info without --bench has a read cost"

# Label values escaped: a CPU model with a double quote, a backslash and a
# byte that is not UTF-8 (which the context already shows as the text
# \xff), over /proc/cpuinfo in a mount namespace of its own.
if ((EUID == 0)) && command -v unshare >/dev/null &&
	unshare -m true 2>/dev/null; then
	printf 'processor\t: 0\nmodel name\t: Fake "Q" \\ CPU \377\n' >"$T/cpuinfo"
	unshare -m sh -c 'mount --bind "$1" /proc/cpuinfo && exec "$2" info --format openmetrics' \
		sh "$T/cpuinfo" "$CYCLOCK" >"$T/escaped.om" 2>"$T/escaped.err" ||
		cli_fail "info under a fake /proc/cpuinfo: $(cat "$T/escaped.err")"
	grep -qF 'cpu_model="Fake \"Q\" \\ CPU \\xff"' "$T/escaped.om" ||
		cli_fail "cpu_model not escaped: $(grep machine_info "$T/escaped.om")"
else
	skipped+=("label escaping (needs root and unshare -m)")
fi

# Bad options: one line each, exit 2, nothing measured or written.
cli_expect_error 2 "--format wants text, json, prometheus or openmetrics, not 'xml'" \
	info --format xml
cli_expect_error 2 "--format needs a value" info --format
cli_expect_error 2 "--output needs a value" info --output
cli_expect_error 2 "bad option '-x'" info -xq
cli_expect_error 2 "'--json=1': --json takes no value" info --json=1
cli_expect_error 2 "bad option '--bogus'" info --bogus
cli_expect_error 2 "unexpected argument 'extra'" info --json extra
cli_expect_error 2 "cannot write '/nonexistent/x.prom'" info --format prometheus \
	--output /nonexistent/x.prom
[[ ! -e /nonexistent/x.prom ]] || cli_fail "created /nonexistent/x.prom"

if ((cli_failures == 0 && ${#skipped[@]} > 0)); then
	printf 'skipped: %s\n' "${skipped[@]}"
	exit 77
fi
cli_done
