#!/usr/bin/env bash
# realworld_test_status_servers: "cyclock status" on servers nobody here
# wrote, under libcyclock-preload.so: Debian's redis-server, and nginx's
# master and its worker (which runs as nobody, another user than its
# master).  Each is started with the preload, given work (Redis commands,
# HTTP requests, back to back), and read from outside in each format while it runs: the
# preload found, its clocks and why, and, on the counter, counts that a
# resync wrote and that grow while the server works.  As nobody, the
# master (root's) is refused, the worker (nobody's) read unless nginx left
# it not dumpable; a server stopped is "no process".
#
# Environment (from CTest): CYCLOCK (the tool), CYCLOCK_PRELOAD,
# CYCLOCK_SOURCE_DIR.  Exit 0 all held, 1 a check failed, 77 (skip) it
# cannot run here (not root, no redis-server or nginx: scripts/test.sh
# installs them).
set -uo pipefail

py=/usr/bin/python3
schema=${CYCLOCK_SOURCE_DIR:?}/docs/schemas/status.schema.json
failures=0 work='' pids=()

skip() {
	echo "skip: $*"
	exit 77
}
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}
cleanup() {
	kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	[[ -n $work ]] && rm -rf "$work"
}
trap cleanup EXIT

((EUID == 0)) || skip "not root (nginx's worker runs as nobody)"
[[ -x ${CYCLOCK:-} && -e ${CYCLOCK_PRELOAD:-} ]] || skip "no cyclock tool or preload in this build"
command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
	skip "no redis-server (Debian's redis-server)"
command -v nginx >/dev/null || skip "no nginx (Debian's nginx)"
work=$(mktemp -d /tmp/cyclock-status.XXXXXX) && chmod 755 "$work" || exit 1

free_port() {
	"$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# check NAME PID PYTHON: the JSON of PID follows the schema, has one block,
# the preload's, and PYTHON (given the block as "b") holds; the text and
# the metrics (promtool) agree.
check() {
	local name=$1 pid=$2 expr=$3 rc=0
	"$CYCLOCK" status --json "$pid" >"$work/$name.json" 2>"$work/$name.err" || rc=$?
	((rc == 0)) || { fail "$name: status exit $rc: $(cat "$work/$name.err")"; return; }
	"$py" - "$schema" "$work/$name.json" "$expr" "$CYCLOCK_SOURCE_DIR/tests/tool/cli" <<-'PY' || fail "$name: $expr: $(cat "$work/$name.json")"
		import json, sys
		sys.path.insert(0, sys.argv[4])
		import json_schema  # block.schema.json for the $ref
		a = json.load(open(sys.argv[2]))
		json_schema.validate(sys.argv[1], a)
		assert len(a) == 1 and a[0]['mode'] == 'preload', a
		b = a[0]
		assert b['object'].endswith('libcyclock-preload.so'), b
		assert eval(sys.argv[3]), b
	PY
	"$CYCLOCK" status "$pid" >"$work/$name.txt" 2>&1 || fail "$name: text"
	grep -q "^pid $pid (.*): .*libcyclock-preload.so" "$work/$name.txt" || fail "$name: text: $(head -1 "$work/$name.txt")"
	"$CYCLOCK" status --format prometheus "$pid" >"$work/$name.prom" 2>&1 || fail "$name: prometheus"
	if command -v promtool >/dev/null; then
		promtool check metrics <"$work/$name.prom" >"$work/$name.lint" 2>&1 ||
			fail "$name: promtool: $(cat "$work/$name.lint")"
	fi
	echo "$name (pid $pid): $(sed -n 's/^  clocks *//p' "$work/$name.txt"); $(sed -n 's/^  counts *//p' "$work/$name.txt")"
}

# The counts as "clocks resyncs", from the JSON of @1.
counts() {
	"$py" -c 'import json, sys
b = json.load(open(sys.argv[1]))[0]
print(b["clocks"], b.get("counts", {}).get("resyncs", 0))' "$1"
}

# On the counter, the counts are there and grew between @1 and @2 (JSON).
grew() {
	local a b
	read -r ca a <<<"$(counts "$1")"
	read -r cb b <<<"$(counts "$2")"
	[[ $ca == counter ]] || { echo "  (the kernel's clocks: no counts to grow)"; return; }
	((b > a)) || fail "$3: resyncs did not grow while it worked: $a, then $b"
}

# Redis, asked 2000 commands between two reads.
port=$(free_port)
LD_PRELOAD=$CYCLOCK_PRELOAD redis-server --port "$port" --bind 127.0.0.1 --save '' \
	--appendonly no --daemonize no --dir "$work" --logfile "$work/redis.log" &
redis=$!
pids+=("$redis")
for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
redis-cli -p "$port" ping >/dev/null 2>&1 || fail "redis did not start: $(tail -3 "$work/redis.log")"
sleep 0.5
check redis "$redis" "b['command'] == 'redis-server' and 'monotonic' in b['served'] or b['clocks'] == 'kernel'"
cp "$work/redis.json" "$work/redis0.json"
for i in $(seq 2000); do echo "SET k$i $i"; done | redis-cli -p "$port" >/dev/null
sleep 0.3
check redis "$redis" "True"
grew "$work/redis0.json" "$work/redis.json" redis

# nginx: a master and one worker (as nobody), 200 requests between reads.
port=$(free_port)
mkdir -p "$work/nginx/html" && echo hello >"$work/nginx/html/index.html"
chmod -R a+rX "$work/nginx"
{
	echo "daemon off; master_process on; worker_processes 1; user nobody nogroup;"
	echo "pid $work/nginx/nginx.pid; error_log $work/nginx/error.log;"
	echo "events { worker_connections 64; }"
	echo "http { access_log off;"
	for t in client_body proxy fastcgi uwsgi scgi; do echo "  ${t}_temp_path $work/nginx/$t;"; done
	echo "  server { listen 127.0.0.1:$port; root $work/nginx/html; } }"
} >"$work/nginx/nginx.conf"
LD_PRELOAD=$CYCLOCK_PRELOAD nginx -e "$work/nginx/error.log" -p "$work/nginx" \
	-c "$work/nginx/nginx.conf" >/dev/null 2>&1 &
master=$!
pids+=("$master")
get() {
	exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
	printf 'GET / HTTP/1.0\r\n\r\n' >&3
	cat <&3 >/dev/null
	exec 3<&-
}
for _ in $(seq 100); do get 2>/dev/null && break; sleep 0.05; done
worker=$(pgrep -P "$master" | head -1)
[[ -n $worker ]] || fail "nginx has no worker: $(cat "$work/nginx/error.log")"
if [[ -n $worker ]]; then
	sleep 0.3
	check nginx-master "$master" "b['command'] == 'nginx'"
	check nginx-worker "$worker" "b['command'] == 'nginx'"
	cp "$work/nginx-worker.json" "$work/nginx-worker0.json"
	# 2000 requests on one keep-alive connection, back to back: reads in
	# a row resync (a read every few milliseconds is served the kernel's
	# clock instead, docs/hosted.md).
	"$py" - "$port" <<-'PY' || fail "nginx: the requests failed"
		import http.client, sys
		c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
		for _ in range(2000):
		    c.request("GET", "/")
		    c.getresponse().read()
	PY
	check nginx-worker "$worker" "True"
	grew "$work/nginx-worker0.json" "$work/nginx-worker.json" nginx-worker
	# As nobody: the master is root's, refused; the worker is nobody's,
	# read unless nginx left it not dumpable (then refused, saying so).
	rc=0
	runuser -u nobody -- "$CYCLOCK" status "$master" >/dev/null 2>"$work/nobody.err" || rc=$?
	((rc == 1)) && grep -q "^cyclock: status: permission denied: process $master belongs to uid 0" \
		"$work/nobody.err" || fail "nginx-master as nobody: exit $rc: $(cat "$work/nobody.err")"
	rc=0
	runuser -u nobody -- "$CYCLOCK" status "$worker" >"$work/nobody.out" 2>"$work/nobody.err" || rc=$?
	if ((rc == 0)); then
		grep -q "^pid $worker (nginx): " "$work/nobody.out" || fail "nginx-worker as nobody: $(cat "$work/nobody.out")"
		echo "nginx-worker as nobody (its own user): read"
	else
		grep -q "^cyclock: status: permission denied: .*not dumpable" "$work/nobody.err" ||
			fail "nginx-worker as nobody: exit $rc: $(cat "$work/nobody.err")"
		echo "nginx-worker as nobody: $(cat "$work/nobody.err")"
	fi
fi

# A server stopped: no process.
kill "$redis" && wait "$redis" 2>/dev/null
rc=0
"$CYCLOCK" status "$redis" >/dev/null 2>"$work/gone.err" || rc=$?
((rc == 1)) && grep -q "no process $redis" "$work/gone.err" || fail "redis stopped: exit $rc: $(cat "$work/gone.err")"

((failures == 0)) || exit 1
echo "status_servers: Redis and nginx read from outside under the preload"
