#!/usr/bin/env bash
# realworld_test_node_exporter: cyclock info's metrics read by Debian's
# prometheus-node-exporter, as a fleet would (docs/fleet.md).
#
# "cyclock info --format prometheus --bench --output DIR/cyclock.prom" is
# linted with promtool check metrics, then node_exporter is started on
# 127.0.0.1, on a free port, with only its textfile collector, reading DIR.
# The file is written the way node_exporter's documentation asks: to a
# temporary in the same directory, then renamed (the tool's --output does
# that; the temporary's name, .cyclock-XXXXXX, does not end in
# .prom, so the collector never reads half a file).  /metrics is scraped
# with curl while the file is rewritten 20 times: every scrape must have
# every cyclock series and no textfile error.  The values must be those of
# "cyclock info --json" on the same machine: the counter's name, the
# frequency within the two runs' stated uncertainties, the trusted flag and
# its reason, the clocksource, the ordered read, the version; then again
# with CYCLOCK_SOURCE=kernel (not trusted, and why).  node_exporter is
# stopped on every way out; a node_exporter the Debian package may have
# started on :9100 is neither used nor touched.
#
# Environment (from CTest): CYCLOCK (the tool), CYCLOCK_SOURCE_DIR.
# Exit 0 all held, 1 a check failed, 77 (skip) node_exporter, promtool or
# curl are not installed and cannot be.
set -euo pipefail

python=/usr/bin/python3
tool=${CYCLOCK:-}
work='' ne_pid='' writer_pid='' port=''

skip() {
	echo "skip: $*"
	exit 77
}

failed() {
	echo "FAIL: $*" >&2
	exit 1
}

# Installs what is missing through scripts/lib.sh (as scripts/test.sh
# does); a skip when that cannot be done.
check_prereqs() {
	[[ -x $tool ]] || skip "no cyclock tool (CYCLOCK)"
	[[ -x $python ]] || skip "no $python"
	if ! command -v prometheus-node-exporter >/dev/null || ! command -v promtool >/dev/null ||
		! command -v curl >/dev/null; then
		[[ -r ${CYCLOCK_SOURCE_DIR:-}/scripts/lib.sh ]] || skip "no scripts/lib.sh"
		# shellcheck source=scripts/lib.sh
		(source "$CYCLOCK_SOURCE_DIR/scripts/lib.sh" &&
			cyclock_ensure_deps node-exporter promtool curl) >/dev/null 2>&1 ||
			skip "cannot install prometheus-node-exporter, prometheus (promtool) and curl"
	fi
}

# Every way out: the writer and node_exporter stopped, the directory gone.
cleanup() {
	local rc=$? pid
	trap - EXIT INT TERM HUP
	for pid in $writer_pid $ne_pid; do
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	[[ -n $work ]] && rm -rf "$work"
	exit "$rc"
}

# A port nothing listens on now: the kernel's choice for port 0.
free_port() {
	"$python" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

scrape() {
	curl -sf --max-time 5 "http://127.0.0.1:$port/metrics"
}

# node_exporter on 127.0.0.1 with only the textfile collector; another
# port if the one chosen was taken meanwhile.  Ready once /metrics answers.
start_exporter() {
	local i
	for _ in 1 2 3; do
		port=$(free_port)
		prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
			--collector.disable-defaults --collector.textfile \
			--collector.textfile.directory="$work/textfile" >"$work/exporter.log" 2>&1 &
		ne_pid=$!
		for i in $(seq 50); do
			scrape >/dev/null 2>&1 && return 0
			kill -0 "$ne_pid" 2>/dev/null || break
			sleep 0.2
		done
		kill -TERM "$ne_pid" 2>/dev/null || true
		wait "$ne_pid" 2>/dev/null || true
		ne_pid=''
	done
	cat "$work/exporter.log" >&2
	failed "node_exporter did not answer on 127.0.0.1 (3 ports tried)"
}

# write [ENV...]: cyclock info's metrics into the textfile directory,
# linted first.
write() {
	env "$@" "$tool" info --format prometheus --bench --output "$work/textfile/cyclock.prom" ||
		failed "cyclock info --format prometheus --output exited $?"
	promtool check metrics <"$work/textfile/cyclock.prom" >"$work/promtool.out" 2>&1 ||
		failed "promtool check metrics: $(cat "$work/promtool.out")"
}

# compare FILE SCRAPE JSON: node_exporter served every series of the file,
# with the values of the JSON.
compare() {
	"$python" - "$@" <<'PY'
import json, re, sys
SAMPLE = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')

def parse(path):
    out = {}
    for ln in open(path):
        m = SAMPLE.match(ln.rstrip('\n'))
        if ln.startswith('#') or not m:
            continue
        labels = dict((k, re.sub(r'\\(.)', r'\1', v)) for k, v in LABEL.findall(m.group(2) or ''))
        out.setdefault(m.group(1), []).append((labels, float(m.group(3))))
    return out

written, got, j = parse(sys.argv[1]), parse(sys.argv[2]), json.load(open(sys.argv[3]))
bad = []
def one(name):
    v = got.get(name, [])
    if len(v) != 1:
        bad.append('%d samples of %s in the scrape' % (len(v), name))
        return {}, float('nan')
    return v[0]

ours = set(n for n in written if n.startswith('cyclock_'))
served = set(n for n in got if n.startswith('cyclock_'))
if ours != served or not ours:
    bad.append('written %s, served %s' % (sorted(ours), sorted(served)))
def norm(samples):
    return sorted((sorted(l.items()), v) for l, v in samples)
for n in ours & served:
    if norm(written[n]) != norm(got[n]):
        bad.append('%s: written %s, served %s' % (n, written[n], got[n]))
if one('node_textfile_scrape_error')[1] != 0:
    bad.append('node_textfile_scrape_error is not 0')
trusted = j['clocks'] == 'counter'
lab, v = one('cyclock_trusted')
if v != (1 if trusted else 0) or lab.get('reason', '') != ('' if trusted else j['why']):
    bad.append('cyclock_trusted %s %s; JSON clocks %s, why %r' % (lab, v, j['clocks'], j['why']))
if one('cyclock_source_info')[0].get('source') != j['counter']:
    bad.append('cyclock_source_info against JSON counter %s' % j['counter'])
if one('cyclock_clocksource_info')[0].get('clocksource') != j['machine']['clocksource']:
    bad.append('cyclock_clocksource_info against %s' % j['machine']['clocksource'])
if one('cyclock_build_info')[0].get('version') != j['cyclock_version']:
    bad.append('cyclock_build_info against %s' % j['cyclock_version'])
if trusted:
    # Two processes, each within its own stated uncertainty of the truth.
    hz, unc = one('cyclock_frequency_hertz')[1], one('cyclock_frequency_uncertainty_ratio')[1]
    c = j['counts']
    if not abs(hz - c['hz']) <= hz * unc + c['hz'] * c['hz_uncertainty_ppm'] * 1e-6:
        bad.append('%.1f Hz +- %.3g against the JSON %.1f Hz +- %.3g ppm'
                   % (hz, unc, c['hz'], c['hz_uncertainty_ppm']))
    if one('cyclock_ordered_read_info')[0].get('read') != j['ordered_read']:
        bad.append('cyclock_ordered_read_info against %s' % j['ordered_read'])
elif 'cyclock_frequency_hertz' in got:
    bad.append('a frequency although not trusted')
costs = dict((l['clock'], v) for l, v in got.get('cyclock_read_cost_seconds', []))
if not {'cyclock_now', 'monotonic'} <= set(costs) or min(costs.values()) <= 0:
    bad.append('cyclock_read_cost_seconds: %s' % costs)
for b in bad:
    print('FAIL:', b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# phase NAME [ENV...]: the file written, scraped, compared with the JSON.
phase() {
	local name=$1
	shift
	write "$@"
	env "$@" "$tool" info --json >"$work/$name.json" || failed "cyclock info --json exited $?"
	scrape >"$work/$name.scrape" || failed "scraping 127.0.0.1:$port failed"
	echo "---- $name: the cyclock series node_exporter served on 127.0.0.1:$port"
	grep '^cyclock_' "$work/$name.scrape" || true
	compare "$work/textfile/cyclock.prom" "$work/$name.scrape" "$work/$name.json" ||
		failed "$name: the scrape does not match cyclock info (above)"
}

# Scrapes while the file is rewritten: whole every time.
rewrites() {
	local i
	(for i in $(seq 20); do
		"$tool" info --format prometheus --output "$work/textfile/cyclock.prom" || exit 1
	done) &
	writer_pid=$!
	for i in $(seq 20); do
		scrape >"$work/during" || failed "scrape $i during rewrites failed"
		grep -q '^node_textfile_scrape_error 0$' "$work/during" &&
			grep -q '^cyclock_trusted{' "$work/during" &&
			grep -q '^cyclock_resolution_step_seconds{' "$work/during" ||
			failed "scrape $i during rewrites: $(grep -E '^(cyclock_trusted|node_textfile)' "$work/during")"
	done
	wait "$writer_pid" || failed "a rewrite failed"
	writer_pid=''
	echo "20 scrapes during 20 rewrites: every one whole"
}

main() {
	local ordered
	check_prereqs
	trap cleanup EXIT
	trap 'exit 1' INT TERM HUP
	work=$(mktemp -d /tmp/cyclock-node-exporter.XXXXXX)
	mkdir "$work/textfile"
	write
	start_exporter
	echo "$(prometheus-node-exporter --version 2>&1 | head -1); on 127.0.0.1:$port"
	# The ordered read is chosen by measuring in each process, and on a CPU
	# where two cost the same two runs may choose differently: name one.
	ordered=$("$tool" info --json | python3 -c 'import json, sys
print(json.load(sys.stdin).get("ordered_read", ""))') ||
		failed "cyclock info --json exited $?"
	phase trusted ${ordered:+"CYCLOCK_ORDERED_READ=$ordered"}
	rewrites
	phase kernel CYCLOCK_SOURCE=kernel
	echo "ok: node_exporter serves cyclock info's metrics as cyclock info --json says"
}

main "$@"
