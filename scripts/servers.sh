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
		env -u LD_PRELOAD -u CYCLOCK_PRELOAD_RELAXED "$python" -u "$(dirname "${BASH_SOURCE[0]}")/servers_measure.py" \
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
