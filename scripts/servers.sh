#!/usr/bin/env bash
# scripts/servers.sh: what libcyclock-preload.so does to the CPU time real
# servers spend per request: Debian's redis-server, nginx and PostgreSQL.  A
# benchmark: it prints figures and asserts nothing.
#
# Each server runs three times at once, one instance per mode: `none` (the
# kernel's clocks), `default` (LD_PRELOAD=the preload in its environment),
# `relaxed` (that and CYCLOCK_PRELOAD_RELAXED=1); no client is ever
# preloaded.  Two loads on each: `low`, one request per 20 ms on one
# connection, and `saturating`, a closed loop on 4 connections as fast as
# the client goes.
#   redis: GET of a 100-byte value (TCP, 127.0.0.1, a free port; --save ''
#     --appendonly no).  low: a python3 client (Debian's, standard library)
#     pacing its requests and timing each round trip; saturating:
#     redis-benchmark -c 4 (its p50 and p99), as many requests as the none
#     instance answered in the saturating seconds at its warm-up.
#   nginx: GET of a 1 KiB static file over HTTP/1.1 keep-alive, one worker
#     process (worker_processes 1, access_log off).  low: the python3 client;
#     saturating: wrk -t 2 -c 4 (a Lua done() prints its figures).
#   postgres: pgbench -S -M prepared (select-only, scale 1) on throwaway
#     clusters (the newest /usr/lib/postgresql/*/bin, run as postgres by
#     runuser, Unix sockets in a temporary directory, no TCP).  low: -c 1
#     --rate=50 (pgbench's arrivals are Poisson, one per 20 ms on average;
#     latency less its schedule lag); saturating: -c 4 -j 2.  pgbench runs
#     a second longer than measured and the middle is measured, its
#     connections open: the backends' CPU time is lost when they exit.
# CPU/request: the server's CPU time over the measured window (the first
# field of /proc/PID/task/*/schedstat summed over the server's process and
# its descendants: redis' threads, nginx's master and worker, the
# postmaster and all its children) over the requests answered in it.  At
# the low load it includes what the server does while idle (redis' timers,
# postgres' background processes).  Nothing is pinned: server and client
# go where the scheduler puts them, as they would.  Repetitions
# interleaved (each load's modes in turn, their order rotated); a Markdown
# table per server: for each load and mode the median over the repetitions
# and (min..max) of CPU/request, of its ratio to none's in the same
# repetition, of requests/s, and of the client's p50 and p99 round trip.
#
#   scripts/servers.sh [--preload PATH] [--reps N] [--seconds LOW[,SAT]]
#                      [--servers redis,nginx,postgres] [--quick]
#
# --preload or CYCLOCK_PRELOAD: the library (build/release's); `cyclock
# info` is looked for next to it for its ordered counter read.  --reps or
# SERVERS_REPS: 5.  --seconds or SERVERS_SECONDS: each measurement's, the
# low load's and the saturating one's (whole seconds), 10,3 (500 requests
# at the low load): about 11 minutes on 2 CPUs for the three servers.
# --servers or SERVERS_LIST: which, in that order.  --quick: 2 repetitions of
# 2,1: under a minute and a half.  PGBIN: PostgreSQL's binaries.  Run as root;
# installs redis-server, redis-tools, nginx, wrk and postgresql when missing.
# Progress on stderr, the report on stdout; every server stopped, all
# removed, on every way out.  Exit 0 done, 1 failed, 2 not root or a bad
# option.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly MODES=(none default relaxed)
python=/usr/bin/python3 # Debian's
preload=${CYCLOCK_PRELOAD:-$CYCLOCK_ROOT/build/release/src/preload/libcyclock-preload.so}
reps=${SERVERS_REPS:-5} seconds=${SERVERS_SECONDS:-10,3} servers=${SERVERS_LIST:-redis,nginx,postgres}
low='' sat='' pgbin='' work='' lib='' child=''
chosen=() pids=() targets=() menv=()

die() { echo "servers: $*" >&2; exit 1; }
usage() {
	echo "usage: $0 [--preload PATH] [--reps N] [--seconds LOW[,SAT]] [--servers redis,nginx,postgres] [--quick]" >&2
	exit 2
}

parse_args() {
	local s
	while (($#)); do
		case $1 in
		--preload) (($# > 1)) || usage; preload=$2; shift ;;
		--reps) (($# > 1)) || usage; reps=$2; shift ;;
		--seconds) (($# > 1)) || usage; seconds=$2; shift ;;
		--servers) (($# > 1)) || usage; servers=$2; shift ;;
		--quick) reps=2 seconds=2,1 ;;
		*) usage ;;
		esac
		shift
	done
	[[ $seconds == *,* ]] || seconds+=,3
	low=${seconds%%,*} sat=${seconds#*,}
	if ! [[ $reps =~ ^[0-9]+$ && $low =~ ^[0-9]+$ && $sat =~ ^[0-9]+$ ]] ||
		((reps < 2 || low < 1 || sat < 1)); then
		echo "servers: --reps: at least 2, --seconds: whole seconds, at least 1" >&2
		usage
	fi
	IFS=, read -r -a chosen <<<"$servers"
	((${#chosen[@]})) || usage
	for s in "${chosen[@]}"; do
		case $s in
		redis | nginx | postgres) ;;
		*) echo "servers: --servers: some of redis, nginx, postgres, comma-separated" >&2; usage ;;
		esac
	done
}

# A TCP port free on 127.0.0.1 now.
free_port() {
	env -u LD_PRELOAD "$python" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# menv: the environment of a server in mode @1, as an env command's words.
server_env() {
	menv=(env -u LD_PRELOAD -u CYCLOCK_PRELOAD_RELAXED)
	case $1 in
	default) menv+=("LD_PRELOAD=$lib") ;;
	relaxed) menv+=("LD_PRELOAD=$lib" CYCLOCK_PRELOAD_RELAXED=1) ;;
	esac
}

# The redis and nginx instances (pids) stopped; the clusters too, @1: how.
stop_servers() {
	local pid i d
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do
		for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	pids=()
	[[ -d $work/pg ]] || return 0
	for d in "$work"/pg/*/; do
		[[ -f $d/postmaster.pid ]] || continue
		pid=$(head -n 1 "$d/postmaster.pid")
		cyclock_as_postgres "$pgbin/pg_ctl" -D "$d" -m "$1" -w -t 20 stop >/dev/null 2>&1 || true
		if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
	done
}

# Every way out: the measurement stopped, the servers stopped (immediately:
# nothing in them is worth keeping), the directory removed.
cleanup() {
	local rc=$?
	trap - EXIT INT TERM HUP
	if [[ -n $child ]]; then
		kill -TERM "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	[[ -n $work ]] || exit "$rc"
	stop_servers immediate
	rm -rf "$work"
	exit "$rc"
}

start_redis() {
	local m port d
	for m in "${MODES[@]}"; do
		port=$(free_port) d=$work/redis-$m
		mkdir "$d"
		server_env "$m"
		"${menv[@]}" redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
			--daemonize no --dir "$d" --logfile "$d/server.log" >/dev/null 2>&1 &
		pids+=("$!") targets+=("$m=$!@$port")
	done
}

# nginx in the foreground (daemon off), a master and one worker (as nobody:
# the directory is searchable, the page readable), every path in its
# directory.
start_nginx() {
	local m port d t
	for m in "${MODES[@]}"; do
		port=$(free_port) d=$work/nginx-$m
		mkdir -p "$d/html"
		head -c 1024 /dev/zero | tr '\0' x >"$d/html/index.html"
		chmod 755 "$d" "$d/html"
		chmod 644 "$d/html/index.html"
		{
			echo "daemon off; master_process on; worker_processes 1;"
			echo "pid $d/nginx.pid; error_log $d/server.log;"
			echo "events { worker_connections 64; }"
			echo "http {"
			echo "  access_log off; keepalive_requests 1000000; keepalive_timeout 300s;"
			for t in client_body proxy fastcgi uwsgi scgi; do echo "  ${t}_temp_path $d/$t;"; done
			echo "  server { listen 127.0.0.1:$port; root $d/html; }"
			echo "}"
		} >"$d/nginx.conf"
		server_env "$m"
		"${menv[@]}" nginx -e "$d/server.log" -p "$d" -c "$d/nginx.conf" >/dev/null 2>&1 &
		pids+=("$!") targets+=("$m=$!@$port")
	done
}

# One cluster made (pgbench -i, scale 1; no preload) and stopped, copied
# twice: three with the same files, each on its own socket, started.
start_postgres() {
	local m
	install -d -o postgres -g postgres -m 711 "$work/pg"
	cyclock_as_postgres "$pgbin/initdb" -D "$work/pg/none" -U postgres --auth=trust --no-sync \
		>"$work/pg/initdb.log" 2>&1 || { cat "$work/pg/initdb.log" >&2; die "initdb failed"; }
	cat >>"$work/pg/none/postgresql.conf" <<-EOF
		listen_addresses = ''
		port = 5432
		jit = off
		autovacuum = off
		fsync = off
		synchronous_commit = off
	EOF
	for m in "${MODES[@]}"; do cyclock_as_postgres mkdir -m 700 "$work/pg/$m.sock"; done
	echo "unix_socket_directories = '$work/pg/none.sock'" >>"$work/pg/none/postgresql.conf"
	echo "servers: postgres: pgbench -i -s 1" >&2
	pg_start none
	env -u LD_PRELOAD "$pgbin/pgbench" -i -s 1 -q -h "$work/pg/none.sock" -p 5432 -U postgres \
		postgres >"$work/pg/init.log" 2>&1 || { cat "$work/pg/init.log" >&2; die "pgbench -i failed"; }
	cyclock_as_postgres "$pgbin/pg_ctl" -D "$work/pg/none" -m fast -w -t 60 stop >/dev/null
	for m in default relaxed; do
		cyclock_as_postgres cp -a "$work/pg/none" "$work/pg/$m"
		echo "unix_socket_directories = '$work/pg/$m.sock'" >>"$work/pg/$m/postgresql.conf"
	done
	for m in "${MODES[@]}"; do
		pg_start "$m"
		targets+=("$m=$(head -n 1 "$work/pg/$m/postmaster.pid")@$work/pg/$m.sock")
	done
}

pg_start() {
	server_env "$1"
	# pg_ctl starts the postmaster through the shell with its own environment.
	cyclock_as_postgres "${menv[@]}" "$pgbin/pg_ctl" -D "$work/pg/$1" -l "$work/pg/$1.log" -w -t 60 \
		start >/dev/null || { cat "$work/pg/$1.log" >&2; die "the $1 cluster did not start"; }
}

machine_info() {
	local s

	cyclock_machine_line
	for s in "${chosen[@]}"; do
		case $s in
		redis) echo "redis: $(redis-server --version)" ;;
		nginx) echo "nginx: $(nginx -v 2>&1)" ;;
		postgres) echo "postgres: $("$pgbin/postgres" --version)" ;;
		esac
	done
	echo "preload: $preload"
	cyclock_ordered_line "$preload"
	echo "$reps repetitions; each measurement: low load ${low} s, saturating ${sat} s"
}

# The measurement of one server's three instances, argv: server reps low
# sat workdir client mode=PID@TARGET... (TARGET: a port, or postgres'
# socket directory).
measure_py() {
	cat <<'EOF'
import csv, glob, math, os, shutil, signal, socket, statistics, subprocess, sys, tempfile, time

MODES = ["none", "default", "relaxed"]
PERIOD_NS = 20_000_000  # the low load: one request per 20 ms
server, reps, low_s, sat_s, work, client = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                            int(sys.argv[4]), sys.argv[5], sys.argv[6])
inst = {}
for a in sys.argv[7:]:
    m, rest = a.split("=", 1)
    pid, target = rest.split("@", 1)
    inst[m] = (int(pid), target)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))

def pids(root):  # root and its descendants
    kids = {}
    for d in os.listdir("/proc"):
        try:
            with open(f"/proc/{d}/stat") as f:
                kids.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(d))
        except (OSError, ValueError, IndexError):  # not a process, or gone
            pass
    out, todo = [], [root]
    while todo:
        out.append(todo.pop())
        todo += kids.get(out[-1], [])
    return out

def cpu(root):  # {pid: ns on a CPU, all its threads}
    t = {}
    for p in pids(root):
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{p}/task/{task}/schedstat") as f:
                    t[p] = t.get(p, 0) + int(f.read().split()[0])
            except (OSError, ValueError):
                pass
    return t

def used(before, after):  # a process started in between counts from 0; one gone is lost
    return sum(v - before.get(p, 0) for p, v in after.items())

def check_preload(m, root):
    for p in pids(root):
        try:
            with open(f"/proc/{p}/maps") as f:
                maps = f.read()
        except OSError:
            continue
        mapped = "libcyclock-preload" in maps
        if not maps:  # exiting (a backend of the warm-up's), its memory gone
            continue
        if mapped != (m != "none"):
            sys.exit(f"servers: {server} {m}: process {p}: libcyclock-preload "
                     f"{'' if mapped else 'not '}mapped")

def pct(xs, q):  # nearest rank
    xs = sorted(xs)
    return xs[max(0, math.ceil(q * len(xs)) - 1)]

def run(args, during=lambda: None):  # client args run, during() meanwhile: (stdout, its value)
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        r = during()
        out, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode:
        sys.exit(f"servers: {os.path.basename(args[0])} exited {p.returncode}: {err.strip()[-400:]}")
    return out, r

def connect(port):  # waits for a server just started, 10 s at most
    for i in range(100):
        try:
            s = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return s
        except ConnectionRefusedError:
            time.sleep(0.1)
    sys.exit(f"servers: {server} on port {port}: not answering")

def exchange(s, req, complete):
    s.sendall(req)
    buf = b""
    while not complete(buf):
        b = s.recv(65536)
        if not b:
            raise ConnectionError(f"{server}: connection closed")
        buf += b
    return buf

VALUE = b"v" * 100
REDIS = (b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", lambda b: len(b) >= 108, b"$100\r\n" + VALUE + b"\r\n")

def http_complete(buf):
    h = buf.find(b"\r\n\r\n")
    if h < 0:
        return False
    for line in buf[:h].split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            return len(buf) >= h + 4 + int(v)
    raise ValueError(f"{server}: no Content-Length")

HTTP = (b"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", http_complete, b"HTTP/1.1 200 ")

def paced(pid, port):  # the low load: (CPU ns, requests, seconds, p50 ns, p99 ns)
    req, complete, want = REDIS if server == "redis" else HTTP
    s = connect(port)
    for _ in range(20):  # and the first replies checked
        if not exchange(s, req, complete).startswith(want):
            sys.exit(f"servers: {server}: unexpected reply")
    n, lat = low_s * 1_000_000_000 // PERIOD_NS, []
    before = cpu(pid)
    t0 = time.perf_counter_ns()
    for i in range(n):
        d = t0 + i * PERIOD_NS - time.perf_counter_ns()
        if d > 0:
            time.sleep(d / 1e9)
        a = time.perf_counter_ns()
        exchange(s, req, complete)
        lat.append(time.perf_counter_ns() - a)
    t1 = time.perf_counter_ns()
    after = cpu(pid)
    s.close()
    return used(before, after), n, (t1 - t0) / 1e9, pct(lat, .5), pct(lat, .99)

def redis_bench(port, n):  # (requests/s, p50 ns, p99 ns)
    out, _ = run([client, "-h", "127.0.0.1", "-p", port, "-c", "4", "-n", str(n), "--csv", "GET", "k"])
    row = list(csv.reader(out.splitlines()))[-1]  # test, rps, avg, min, p50, p95, p99, max (ms)
    return float(row[1]), float(row[4]) * 1e6, float(row[6]) * 1e6

LUA = os.path.join(work, "wrk-done.lua")
def wrk(port, seconds):  # (requests, seconds, p50 ns, p99 ns)
    out, _ = run([client, "-t", "2", "-c", "4", "-d", f"{seconds}s", "-s", LUA,
                  f"http://127.0.0.1:{port}/index.html"])
    n, us, p50, p99, errors = map(int, [l for l in out.splitlines() if l.startswith("wrk ")][-1].split()[1:])
    if errors:
        sys.exit(f"servers: wrk: {errors} errors")
    return n, us / 1e6, p50 * 1000, p99 * 1000

def pgbench(sock, seconds, extra, log=None):
    args = [client, "-h", sock, "-p", "5432", "-U", "postgres", "-n", "-S", "-M", "prepared",
            "-T", str(seconds)] + extra + (["-l", f"--log-prefix={log}"] if log else [])
    return args + ["postgres"]

def pg(pid, sock, low):  # both loads: (CPU ns, requests, seconds, p50 ns, p99 ns)
    sec = low_s if low else sat_s
    d = tempfile.mkdtemp(dir=work)
    extra = ["-c", "1", "-j", "1", f"--rate={1e9 / PERIOD_NS:g}"] if low else ["-c", "4", "-j", "2"]
    def window():  # the middle of the run: the backends connected and alive
        time.sleep(0.5)
        b, w0 = cpu(pid), time.time_ns() // 1000
        time.sleep(sec)
        a, w1 = cpu(pid), time.time_ns() // 1000
        return used(b, a), w0, w1
    _, (c, w0, w1) = run(pgbench(sock, sec + 1, extra, f"{d}/tx"), window)
    lat = []  # log: client tx time(us) script epoch(s) us [lag(us)], at the end of each
    for f in glob.glob(f"{d}/tx.*"):
        with open(f) as fh:
            for x in map(str.split, fh):
                if w0 <= int(x[4]) * 1_000_000 + int(x[5]) <= w1:
                    lat.append((int(x[2]) - (int(x[6]) if low else 0)) * 1000)
    shutil.rmtree(d)
    if not lat:
        sys.exit("servers: pgbench: no transaction in the window")
    return c, len(lat), (w1 - w0) / 1e6, pct(lat, .5), pct(lat, .99)

nsat = 0
def measure(load, m):
    pid, target = inst[m]
    if server == "postgres":
        return pg(pid, target, load == "low")
    if load == "low":
        return paced(pid, target)
    before = cpu(pid)
    if server == "redis":
        rps, p50, p99 = redis_bench(target, nsat)
        n, secs = nsat, nsat / rps
    else:
        n, secs, p50, p99 = wrk(target, sat_s)
    return used(before, cpu(pid)), n, secs, p50, p99

def warm_up():  # and the preload checked in each instance, redis' key set
    global nsat
    if server == "nginx":
        with open(LUA, "w") as f:
            f.write('done = function(s, lat, req)\n  local e = s.errors\n'
                    '  io.write(string.format("wrk %d %d %d %d %d\\n", s.requests, s.duration,\n'
                    '    lat:percentile(50), lat:percentile(99),'
                    ' e.connect + e.read + e.write + e.status + e.timeout))\nend\n')
    for m in MODES:
        pid, target = inst[m]
        if server == "redis":
            s = connect(target)
            exchange(s, b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\n" + VALUE + b"\r\n", lambda b: b.endswith(b"\r\n"))
            s.close()
            rps = redis_bench(target, 20000)[0]
            if m == "none":
                nsat = max(1000, round(rps * sat_s))
        elif server == "nginx":
            connect(target).close()
            wrk(target, 1)
        else:
            run(pgbench(target, 1, ["-c", "4", "-j", "2"]))
        check_preload(m, pid)

warm_up()
print(f"preload mapped in every process of the default and relaxed instances, in none of none's")
res = {}
t0 = time.monotonic()
for r in range(reps):
    order = MODES[r % 3:] + MODES[:r % 3]
    for load in ("low", "saturating"):
        for m in order:
            c, n, secs, p50, p99 = measure(load, m)
            res.setdefault((load, m), []).append((c / n / 1e3, n / secs, p50 / 1e3, p99 / 1e3, n))
    print(f"servers: {server}: repetition {r + 1}/{reps}, {time.monotonic() - t0:.0f} s", file=sys.stderr)

def cell(xs, fmt):
    return f"{statistics.median(xs):{fmt}} ({min(xs):{fmt}}..{max(xs):{fmt}})"
print("\n| load | mode | CPU/request (µs) | vs none | requests/s | p50 (µs) | p99 (µs) | requests |")
print("|---|---|---|---|---|---|---|---|")
for load in ("low", "saturating"):
    for m in MODES:
        rs = res[load, m]
        col = lambda i: [x[i] for x in rs]
        vs = "" if m == "none" else cell([a[0] / b[0] for a, b in zip(rs, res[load, "none"])], ".3f")
        print(f"| {load} | {m} | {cell(col(0), '.2f')} | {vs} | {cell(col(1), '.0f')} "
              f"| {cell(col(2), '.0f')} | {cell(col(3), '.0f')} | {statistics.median(col(4)):.0f} |")
print(f"\n{reps} repetitions in {time.monotonic() - t0:.0f} s; median (min..max) over them; vs none: "
      "CPU/request over none's in the same repetition; requests: the median measured")
EOF
}

# What the clients of server @1 do.
describe() {
	case $1 in
	redis)
		echo "GET of a 100-byte value over TCP; low: python3, one connection; saturating:" \
			"redis-benchmark -c 4 (p50, p99 its own)"
		;;
	nginx)
		echo "GET of a 1 KiB file, HTTP/1.1 keep-alive, 1 worker; low: python3, one connection;" \
			"saturating: wrk -t 2 -c 4"
		;;
	postgres)
		echo "pgbench -S -M prepared, scale 1, Unix socket; low: -c 1 --rate=50 (Poisson arrivals," \
			"latency less the schedule lag); saturating: -c 4 -j 2"
		;;
	esac
}

main() {
	local t0=$SECONDS s client reqs=(python3)
	parse_args "$@"
	((EUID == 0)) || {
		echo "servers: must be run as root (postgres runs as user postgres, by runuser): sudo $0" >&2
		exit 2
	}
	[[ -f $preload ]] || die "no preload library $preload (build it: cmake --build build/release" \
		"--target cyclock_preload; or --preload PATH / CYCLOCK_PRELOAD)"
	preload=$(realpath "$preload")
	for s in "${chosen[@]}"; do
		case $s in
		redis) reqs+=(redis-server redis-benchmark) ;;
		nginx) reqs+=(nginx wrk) ;;
		postgres) reqs+=(postgres) ;;
		esac
	done
	cyclock_ensure_deps "${reqs[@]}"
	if [[ " ${chosen[*]} " == *" postgres "* ]]; then
		pgbin=$(cyclock_pgbin pgbench)
		[[ -n $pgbin ]] || die "no PostgreSQL server with pgbench (/usr/lib/postgresql/*/bin)"
		id postgres >/dev/null 2>&1 || die "no user postgres"
	fi
	trap cleanup EXIT
	trap 'exit 1' INT TERM HUP
	work=$(mktemp -d /tmp/cyclock-servers.XXXXXX)
	chmod 711 "$work" # nginx's worker (nobody) and postgres go through it
	lib=$preload
	if [[ -n $pgbin ]] && ! cyclock_as_postgres test -r "$preload"; then
		lib=$work/libcyclock-preload.so # a build tree postgres cannot read
		cp "$preload" "$lib"
		chmod 644 "$lib"
	fi
	machine_info
	for s in "${chosen[@]}"; do
		echo "servers: $s: starting its three instances" >&2
		targets=()
		"start_$s"
		echo
		echo "### $s: $(describe "$s")"
		case $s in
		redis) client=$(command -v redis-benchmark) ;;
		nginx) client=$(command -v wrk) ;;
		postgres) client=$pgbin/pgbench ;;
		esac
		# In the background: bash runs a signal's trap only once a foreground
		# command is done, wait returns at once.
		env -u LD_PRELOAD -u CYCLOCK_PRELOAD_RELAXED "$python" -u -c "$(measure_py)" \
			"$s" "$reps" "$low" "$sat" "$work" "$client" "${targets[@]}" &
		child=$!
		if ! wait "$child"; then
			{ tail -n 5 "$work/$s"-*/server.log "$work"/pg/{none,default,relaxed}.log 2>/dev/null || true; } >&2
			die "the $s measurement failed"
		fi
		child=''
		stop_servers fast
	done
	echo
	echo "load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg); $((SECONDS - t0)) s in all"
}

main "$@"
