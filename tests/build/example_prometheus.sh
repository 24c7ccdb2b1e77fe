#!/usr/bin/env bash
# examples/prometheus/cyclock_exporter, a program exporting
# cyclock_get_state() through prometheus-cpp's pull endpoint: started on a
# free port of 127.0.0.1, scraped twice over HTTP, each scrape linted by
# promtool check metrics and holding cyclock's families; the counts only
# grow between the scrapes and the trusted gauge names the counter; then
# SIGTERM ends it with status 0.
#   example_prometheus.sh EXPORTER
# Exit 0 on success, 1 on failure, 77 (skipped) without the example (no
# prometheus-cpp-dev, which scripts/test.sh installs) or promtool.
set -euo pipefail

exe=$1
[[ -n $exe && -x $exe ]] || { echo "SKIP: cyclock_exporter not built (prometheus-cpp-dev)"; exit 77; }
command -v promtool >/dev/null || { echo "SKIP: no promtool (apt-get install prometheus)"; exit 77; }

work=$(mktemp -d)
pid=
cleanup() {
	[[ -n $pid ]] && kill "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
status=0
fail() {
	echo "FAIL: $*"
	status=1
}

# There before the sed below reads it: the shell that starts the exporter
# opens it, maybe later (a busy machine ran the sed first once).
: >"$work/out"
"$exe" 127.0.0.1:0 60 >"$work/out" 2>"$work/err" &
pid=$!
port=
for _ in $(seq 100); do
	port=$(sed -n 's/^listening on \([0-9]*\)$/\1/p' "$work/out")
	[[ -n $port ]] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
[[ -n $port ]] || { cat "$work/err"; echo "FAIL: the exporter did not say its port"; exit 1; }

# scrape N: the endpoint's text in $work/scrape.N, linted.
scrape() {
	/usr/bin/python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
		"http://127.0.0.1:$port/metrics" >"$work/scrape.$1" || { fail "scrape $1"; return; }
	if promtool check metrics <"$work/scrape.$1" >"$work/lint.$1" 2>&1; then
		echo "ok   scrape $1: promtool check metrics is clean"
	else
		fail "scrape $1: promtool check metrics:"
		cat "$work/lint.$1"
	fi
}
# value N METRIC: the sample's value in scrape N (labels and all, as written).
value() {
	awk -v m="$2" '$1 == m { print $2; exit }' "$work/scrape.$1"
}

scrape 1
sleep 1
scrape 2
for m in cyclock_resyncs_total cyclock_anomalies_total cyclock_kernel_spells_total \
	cyclock_rate_changes_total cyclock_frequency_hertz cyclock_resync_interval_seconds; do
	a=$(value 1 "$m") b=$(value 2 "$m")
	if [[ -z $a || -z $b ]]; then
		fail "$m missing from a scrape"
	elif [[ $m == *_total ]] && ! awk -v a="$a" -v b="$b" 'BEGIN { exit !(b >= a) }'; then
		fail "$m went from $a to $b"
	fi
done
# The families cyclock info and cyclock status write, by the same names
# and labels (docs/tool.md, "One name per fact").
grep -q '^cyclock_trusted{reason=' "$work/scrape.2" || fail "no cyclock_trusted{reason} sample"
grep -q '^cyclock_source_info{.*source="[a-z]' "$work/scrape.2" ||
	fail "cyclock_source_info names no counter"
grep -q '^cyclock_kernel_mode{last_reason=' "$work/scrape.2" ||
	fail "no cyclock_kernel_mode{last_reason} sample"
grep -q '^# TYPE cyclock_resyncs_total counter$' "$work/scrape.2" ||
	fail "cyclock_resyncs_total is not a counter"
echo "     scrape 2: $(value 2 cyclock_resyncs_total) resyncs; $(grep "^cyclock_trusted{" "$work/scrape.2")"

kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=
((rc == 0)) || fail "the exporter exited with $rc after SIGTERM"
exit $status
