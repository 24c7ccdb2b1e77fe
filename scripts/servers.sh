#!/usr/bin/env bash
# scripts/servers.sh: what libcyclock-preload.so does to the CPU time real
# servers spend per request: Debian's redis-server, nginx and PostgreSQL.  A
# benchmark: it prints figures and asserts nothing.
#
# Each server runs three times at once, one instance per mode: `none` (the
# kernel's clocks), `default` (LD_PRELOAD=the preload in its environment),
# `relaxed` (that and CYCLOCK_PRELOAD_RELAXED=1); no client is ever
# preloaded.  Every instance is pinned (taskset) to one CPU, the last the
# script may use, and every client to the first: the three modes run on the
# same CPU, which the clients never touch (on one CPU, all share it).
#   redis: GET of a 100-byte value (TCP, 127.0.0.1, a free port; --save ''
#     --appendonly no).
#   nginx: GET of a 1 KiB static file over HTTP/1.1 keep-alive, one worker
#     process (worker_processes 1, access_log off).
#   postgres: the select of pgbench -S -M prepared (scale 1) on throwaway
#     clusters (the newest /usr/lib/postgresql/*/bin, run as postgres by
#     runuser, Unix sockets in a temporary directory, no TCP; the background
#     writer off, bgwriter_lru_maxpages 0: it has nothing to write here, and
#     whether it hibernated differed between identical clusters by 2-5 µs
#     of CPU per 20 ms, 1-2 % of a request).
# CPU: the first field of /proc/PID/task/*/schedstat (ns on a CPU) summed
# over the server's process and its descendants: redis' threads, nginx's
# master and worker, the postmaster and all its children.
#
# The low load, one request per 20 ms to each instance on one connection,
# measures the three instances at the same time: one python3 client
# (Debian's, standard library; for postgres it speaks the protocol as libpq
# does for pgbench -M prepared, the same accounts in the same order on each
# instance) sends to none, default and relaxed in turn, 20/3 ms apart (a
# request takes well under 1 ms), so the three see the same drift of the
# host, which on a shared virtual machine moves CPU/request by tens of %
# within minutes.
# The load is cut into windows of 1 s, their CPU read half a step (3.3 ms)
# after the last request, when every instance is idle, and the windows into
# blocks of four: three with 50 requests to each instance, the instances'
# order in the 20 ms cycle rotated from one to the next (in a block each is
# first, second and third once), then one without requests, the servers'
# idle CPU (redis' timers, postgres' background processes), reported per
# 20 ms.  The place in the cycle costs an instance differently for a whole
# run (nginx's second of the three cost 10 % more than its first and third,
# whichever instance was second): a window's ratio scattered by 13 %, a
# block's by 2-3 %.  In a block, CPU/request is the instance's CPU over its
# 150 requests, idle included; its ratio to none's is taken in the same
# block.  And the run is cut into parts (6), the three instances started
# anew for each (postgres' clusters copied anew), one after the other in
# an order rotated from part to part, and so warmed up and connected to:
# identical instances (--aa) kept ratios of up to 0.983 or 1.012 for a
# whole start, their blocks' intervals leaving 1 out (where an instance's
# memory landed, say), a difference the blocks of one start cannot show.
# Reported: in each part, the mean of the middle 60 % of its blocks; over
# the parts, their mean and its 95 % interval by Student's t (the spread:
# its half-width), which counts each start's own difference (the median by
# order statistics, or a bootstrap, over one start's blocks were 0.4-1 %
# wide and left 1 out for identical instances); idle, the same per mode
# and of the difference to none's in the same block; the client's p50 and
# p99 round trip over every request.  One line a mode says whether the
# preload costs more or less per request (the interval leaves 1 out) or
# that the run cannot tell at ±spread.  On the 2-vCPU KVM guest this was
# written on, --aa over 6 parts of 40 s gave ratios of 0.993-0.998 with
# spreads of 0.7-1.6 %, every interval holding 1: a 3 % difference is
# resolved.
#
# The saturating load, after the last part, on its instances: a closed loop
# on 4 connections as fast as the client goes, one mode at a time (the
# order rotated each repetition), for the rates and round trips; a few
# seconds each, its ratios scatter by 5-20 %, unresolved.  The server's
# CPU over the requests answered, the median (min..max) over repetitions of
# CPU/request, of its ratio to none's in the same repetition, of requests/s,
# p50 and p99.  redis: redis-benchmark -c 4 (its p50 and p99), as many
# requests as the none instance answered in the saturating seconds at its
# warm-up.  nginx: wrk -t 2 -c 4 (a Lua done() prints its figures).
# postgres: pgbench -S -M prepared -c 4 -j 2, run a second longer than
# measured and the middle measured, its connections open (the backends' CPU
# time is lost when they exit).
#
#   scripts/servers.sh [--preload PATH] [--cyclock PATH] [--reps N]
#                      [--seconds LOW[,SAT]] [--parts N]
#                      [--servers redis,nginx,postgres] [--quick] [--aa]
#                      [--windows DIR]
#
# --preload or CYCLOCK_PRELOAD: the library (build/release's).  --cyclock or
# CYCLOCK_TOOL: the cyclock tool whose `cyclock info` names the ordered
# counter read (for the header); by default the one beside the library, or
# the build tree's (../../tools/cyclock/cyclock from it).  --reps or
# SERVERS_REPS: the saturating load's repetitions, 3.  --seconds or
# SERVERS_SECONDS: the low load's length (all its parts; each part whole
# blocks of 4 s) and each saturating measurement's, whole seconds: 240,3.
# --parts or SERVERS_PARTS: 6 (2-21); more, shorter parts narrow a server
# whose restarts differ most (redis on an Intel guest: ±5.6 % over 6, ±2.4 %
# over 21, README).  The three servers: about 15 minutes on 2 CPUs.  --servers or SERVERS_LIST: which, in that order.  --quick: 2
# repetitions, 24,1, 2 parts: about 2 minutes, a check that all works (its
# spreads 4-30 %).  --aa or SERVERS_AA=1: the A/A check, no instance
# preloaded (default and relaxed are none by other names): what identical
# instances differ by.  --windows or SERVERS_WINDOWS: a directory for each
# server's windows, DIR/SERVER.csv (part, block, window, idle, which mode
# was first, each instance's CPU ns).  PGBIN: PostgreSQL's binaries.  Run as
# root; installs redis-server, redis-tools, nginx, wrk, postgresql and
# taskset when missing.  Progress on stderr, the report on stdout; every
# server stopped, all removed, on every way out.  Exit 0 done, 1 failed, 2
# not root or a bad option.
set -euo pipefail

# shellcheck source=scripts/lib.sh disable=SC1091 # followed with shellcheck -x
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly MODES=(none default relaxed)
readonly window=1 # s, the low load's; a block is 4
python=/usr/bin/python3 # Debian's
preload=${CYCLOCK_PRELOAD:-$CYCLOCK_ROOT/build/release/src/preload/libcyclock-preload.so}
tool=${CYCLOCK_TOOL:-} aa=${SERVERS_AA:-0} windows=${SERVERS_WINDOWS:-}
reps=${SERVERS_REPS:-3} seconds=${SERVERS_SECONDS:-240,3} servers=${SERVERS_LIST:-redis,nginx,postgres}
parts=${SERVERS_PARTS:-6}
low='' part_s='' sat='' pgbin='' work='' lib='' child='' client_cpu='' server_cpu=''
chosen=() pids=() targets=() menv=() order=()

die() { echo "servers: $*" >&2; exit 1; }
usage() {
	echo "usage: $0 [--preload PATH] [--cyclock PATH] [--reps N] [--seconds LOW[,SAT]] [--parts N]" \
		"[--servers redis,nginx,postgres] [--quick] [--aa] [--windows DIR]" >&2
	exit 2
}

parse_args() {
	local s
	while (($#)); do
		case $1 in
		--preload) (($# > 1)) || usage; preload=$2; shift ;;
		--cyclock) (($# > 1)) || usage; tool=$2; shift ;;
		--reps) (($# > 1)) || usage; reps=$2; shift ;;
		--seconds) (($# > 1)) || usage; seconds=$2; shift ;;
		--servers) (($# > 1)) || usage; servers=$2; shift ;;
		--parts) (($# > 1)) || usage; parts=$2; shift ;;
		--quick) reps=2 seconds=24,1 parts=2 ;;
		--aa) aa=1 ;;
		--windows) (($# > 1)) || usage; windows=$2; shift ;;
		*) usage ;;
		esac
		shift
	done
	[[ $seconds == *,* ]] || seconds+=,3
	low=${seconds%%,*} sat=${seconds#*,}
	if ! [[ $reps =~ ^[0-9]+$ && $low =~ ^[0-9]+$ && $sat =~ ^[0-9]+$ && $parts =~ ^[0-9]+$ ]] ||
		((reps < 2 || parts < 2 || parts > 21 || low < 4 * parts || sat < 1)); then
		echo "servers: --reps: at least 2; --parts: 2-21; --seconds: whole seconds, the low load" \
			"at least 4 a part" >&2
		usage
	fi
	part_s=$((low / parts / 4 * 4)) # whole blocks of four 1-s windows
	[[ $aa == [01] ]] || { echo "servers: SERVERS_AA: 0 or 1" >&2; usage; }
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

# menv: the CPU and environment of a server in mode @1, as a command's words
# (--aa: every mode's none's).
server_env() {
	menv=(taskset -c "$server_cpu" env -u LD_PRELOAD -u CYCLOCK_PRELOAD_RELAXED)
	((aa)) && return
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
		if kill -0 "$pid" 2>/dev/null; then # and nginx's worker with its master
			pkill -KILL -P "$pid" 2>/dev/null || true
			kill -KILL "$pid" 2>/dev/null || true
		fi
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

# Each start_SERVER: the three instances started, in the order of order.
start_redis() {
	local m port d
	for m in "${order[@]}"; do
		port=$(free_port) d=$work/redis-$m
		mkdir -p "$d"
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
	for m in "${order[@]}"; do
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

# At the first start, a template cluster made (pgbench -i, scale 1; no
# preload) and stopped; at each, three fresh copies of it, each on its own
# socket (identical clusters, none the original and the others its copies
# for the whole run, differed by 0.5 % at every start).
start_postgres() {
	local m
	[[ -d $work/pg/template ]] || make_postgres
	for m in "${order[@]}"; do
		rm -rf "${work:?}/pg/$m"
		cyclock_as_postgres cp -a "$work/pg/template" "$work/pg/$m"
		pg_start "$m" "$m"
		targets+=("$m=$(head -n 1 "$work/pg/$m/postmaster.pid")@$work/pg/$m.sock")
	done
}

make_postgres() {
	local d
	install -d -o postgres -g postgres -m 711 "$work/pg"
	cyclock_as_postgres "$pgbin/initdb" -D "$work/pg/template" -U postgres --auth=trust --no-sync \
		>"$work/pg/initdb.log" 2>&1 || { cat "$work/pg/initdb.log" >&2; die "initdb failed"; }
	cat >>"$work/pg/template/postgresql.conf" <<-EOF
		listen_addresses = ''
		port = 5432
		jit = off
		autovacuum = off
		fsync = off
		synchronous_commit = off
		bgwriter_lru_maxpages = 0
	EOF
	for d in template "${MODES[@]}"; do cyclock_as_postgres mkdir -m 700 "$work/pg/$d.sock"; done
	echo "servers: postgres: pgbench -i -s 1" >&2
	pg_start template none
	env -u LD_PRELOAD "$pgbin/pgbench" -i -s 1 -q -h "$work/pg/template.sock" -p 5432 -U postgres \
		postgres >"$work/pg/init.log" 2>&1 || { cat "$work/pg/init.log" >&2; die "pgbench -i failed"; }
	cyclock_as_postgres "$pgbin/pg_ctl" -D "$work/pg/template" -m fast -w -t 60 stop >/dev/null
}

# The cluster $work/pg/@1 started in mode @2, its socket in $work/pg/@1.sock.
pg_start() {
	server_env "$2"
	# pg_ctl starts the postmaster through the shell with its own environment.
	cyclock_as_postgres "${menv[@]}" "$pgbin/pg_ctl" -D "$work/pg/$1" -l "$work/pg/$1.log" \
		-o "-k $work/pg/$1.sock" -w -t 60 start >/dev/null ||
		{ cat "$work/pg/$1.log" >&2; die "the $1 cluster did not start"; }
}

# The cyclock tool for `cyclock info`'s ordered read: --cyclock's, or the
# one beside the library, or the build tree's (../../tools/cyclock from it).
find_tool() {
	local t
	[[ -n $tool ]] && return
	for t in "$(dirname "$preload")/cyclock" "$(dirname "$preload")/../../tools/cyclock/cyclock"; do
		[[ -x $t ]] && { tool=$(realpath "$t"); return; }
	done
}

machine_info() {
	local s ordered=''

	echo "run: $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -n)"
	cyclock_machine_line
	for s in "${chosen[@]}"; do
		case $s in
		redis) echo "redis: $(redis-server --version)" ;;
		nginx) echo "nginx: $(nginx -v 2>&1)" ;;
		postgres) echo "postgres: $("$pgbin/postgres" --version)" ;;
		esac
	done
	echo "preload: $preload ($(stat -c %y "$preload" | cut -d . -f 1), sha256 $(sha256sum "$preload" | head -c 12))"
	if [[ -x $tool ]]; then
		ordered=$(env -u LD_PRELOAD "$tool" info 2>/dev/null | sed -n 's/^ordered read  *//p' | head -n 1) || true
	fi
	echo "ordered read (cyclock info${tool:+, $tool}): ${ordered:-not printed}"
	echo "servers on CPU $server_cpu, clients on CPU $client_cpu; low load: $parts parts of" \
		"$part_s s, the three instances at once, started anew for each;" \
		"saturating: $reps repetitions of ${sat} s"
	((aa == 0)) || echo "A/A check (--aa): no instance preloaded; default and relaxed are none by other names"
}


# What the clients of server @1 do.
describe() {
	case $1 in
	redis)
		echo "GET of a 100-byte value over TCP; low: python3, one connection each; saturating:" \
			"redis-benchmark -c 4 (p50, p99 its own)"
		;;
	nginx)
		echo "GET of a 1 KiB file, HTTP/1.1 keep-alive, 1 worker; low: python3, one connection each;" \
			"saturating: wrk -t 2 -c 4"
		;;
	postgres)
		echo "pgbench -S -M prepared's select, scale 1, Unix socket; low: python3, one connection" \
			"each, as libpq's; saturating: pgbench -c 4 -j 2"
		;;
	esac
}

main() {
	local t0=$SECONDS s part k client reqs=(python3 taskset)
	parse_args "$@"
	((EUID == 0)) || {
		echo "servers: must be run as root (postgres runs as user postgres, by runuser): sudo $0" >&2
		exit 2
	}
	[[ -f $preload ]] || die "no preload library $preload (build it: cmake --build build/release" \
		"--target cyclock_preload; or --preload PATH / CYCLOCK_PRELOAD)"
	preload=$(realpath "$preload")
	find_tool
	if [[ -n $windows ]]; then
		mkdir -p "$windows"
		windows=$(realpath "$windows")
	fi
	for s in "${chosen[@]}"; do
		case $s in
		redis) reqs+=(redis-server redis-benchmark) ;;
		nginx) reqs+=(nginx wrk) ;;
		postgres) reqs+=(postgres) ;;
		esac
	done
	cyclock_ensure_deps "${reqs[@]}"
	read -r client_cpu server_cpu < <("$python" -c 'import os
c = sorted(os.sched_getaffinity(0))
print(c[0], c[-1])')
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
		echo
		echo "### $s: $(describe "$s")"
		case $s in
		redis) client=$(command -v redis-benchmark) ;;
		nginx) client=$(command -v wrk) ;;
		postgres) client=$pgbin/pgbench ;;
		esac
		for ((part = 1; part <= parts; part++)); do
			echo "servers: $s: part $part/$parts: starting its three instances" >&2
			k=$(((part - 1) % ${#MODES[@]}))
			order=("${MODES[@]:k}" "${MODES[@]:0:k}")
			targets=()
			"start_$s"
			# In the background: bash runs a signal's trap only once a foreground
			# command is done, wait returns at once.
			taskset -c "$client_cpu" env -u LD_PRELOAD -u CYCLOCK_PRELOAD_RELAXED SERVERS_AA="$aa" \
				SERVERS_WINDOWS="$windows" "$python" -u "$(dirname "${BASH_SOURCE[0]}")/servers_measure.py" \
				"$s" "$reps" "$part_s" "$sat" "$window" "$work" "$client" "$part" "$parts" \
				"${targets[@]}" &
			child=$!
			if ! wait "$child"; then
				{ tail -n 5 "$work/$s"-*/server.log "$work"/pg/{none,default,relaxed}.log 2>/dev/null || true; } >&2
				die "the $s measurement failed"
			fi
			child=''
			stop_servers fast
		done
	done
	echo
	echo "load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg); $((SECONDS - t0)) s in all"
}

main "$@"
