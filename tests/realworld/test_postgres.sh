#!/usr/bin/env bash
# realworld_test_postgres: PostgreSQL, every backend served by libcyclock-preload.so.
#
# A throwaway cluster (Unix socket only) is started with the preload in the
# postmaster's environment, so that every backend forked from it reads its
# clocks from cyclock.  The postmaster is left idle while kflip runs the
# kernel's clock fast (ADJ_FREQUENCY +500 ppm), so that the timeline a fresh
# backend inherits from it is long past its horizon, then postgres_check.py compares what
# sessions see with the client's (the kernel's) clock: fresh connections'
# first now()/clock_timestamp(), clock_timestamp() under an advisory lock in
# lock order, the log written under the lock, pg_sleep, statement_timeout and
# EXPLAIN ANALYZE; once with the kernel steady, once while kflip slews it.
#
# Environment (from CTest): CYCLOCK_PRELOAD, CYCLOCK_KFLIP.  For a trial of
# the test itself: POSTGRES_NO_PRELOAD=1 runs the server on the kernel's
# clocks (everything must pass), PGBIN picks the PostgreSQL binaries.
# Exit 0 all held, 1 a check failed, 77 (skip) it cannot run here.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly LOCK=/run/cyclock-kadj.lock # kadj.h's: whoever holds it owns the clock
python=/usr/bin/python3 # Debian's, where apt puts psycopg2
checker=$here/postgres_check.py
no_preload=${POSTGRES_NO_PRELOAD:-0}
pgbin='' work='' pgdata='' sockdir='' pglog=''
checker_cmd=() step_pid=''

skip() {
	echo "skip: $*"
	exit 77
}

have_psycopg2() {
	"$python" -c 'import psycopg2' 2>/dev/null
}

find_pgbin() {
	local d
	[[ -n ${PGBIN:-} ]] && { echo "$PGBIN"; return; }
	# The newest version installed.
	while read -r d; do
		[[ -x $d/postgres && -x $d/initdb && -x $d/pg_ctl ]] && { echo "$d"; return; }
	done < <(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V -r)
}

check_prereqs() {
	((EUID == 0)) || skip "not root (adjtimex, and postgres runs as user postgres)"
	pgbin=$(find_pgbin)
	[[ -n $pgbin ]] || skip "no PostgreSQL server (/usr/lib/postgresql/*/bin)"
	id postgres >/dev/null 2>&1 || skip "no user postgres"
	command -v runuser >/dev/null || skip "no runuser"
	command -v flock >/dev/null || skip "no flock"
	[[ -x $python ]] || skip "no $python"
	[[ -x ${CYCLOCK_KFLIP:-} ]] || skip "no kflip (CYCLOCK_KFLIP)"
	if ((!no_preload)); then
		[[ -f ${CYCLOCK_PRELOAD:-} ]] || skip "no preload library (CYCLOCK_PRELOAD)"
	fi
	if ! have_psycopg2; then
		echo "installing python3-psycopg2"
		apt-get install -y -q -o DPkg::Lock::Timeout=120 python3-psycopg2 \
			>/dev/null 2>&1 || true
		have_psycopg2 || skip "no psycopg2 for $python (apt-get install python3-psycopg2 failed)"
	fi
}

as_postgres() {
	runuser -u postgres -- "$@"
}

# Run a command holding kadj.h's lock, as kflip does: no other test changes
# the kernel's clock meanwhile (kflip itself takes it: never around kflip).
locked() {
	local rc=0
	flock -o -E 75 -w 300 "$LOCK" "$@" || rc=$?
	((rc != 75)) || echo "FAIL: $LOCK still held by another test after 300 s" >&2
	return "$rc"
}

postmaster_pid() {
	[[ -f $pgdata/postmaster.pid ]] && head -n 1 "$pgdata/postmaster.pid"
}

# A long step (kflip and its command) in the background: bash runs a
# signal's trap only once a foreground command is done, wait returns at once.
step() {
	local rc=0
	"$@" &
	step_pid=$!
	wait "$step_pid" || rc=$?
	step_pid=''
	return "$rc"
}

# The processes under @1, each after its parent.
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}

# Stop the step: kflip puts the clock back on SIGTERM, the rest just goes;
# but not kflip's watchdog (a kflip whose parent is a kflip), which
# restores the clock should kflip not.
stop_step() {
	local p parent
	[[ -n $step_pid ]] || return 0
	for p in $step_pid $(descendants "$step_pid"); do
		parent=$(ps -o ppid= -p "$p") || continue
		[[ $(ps -o comm= -p "$p") == kflip &&
			$(ps -o comm= -p "${parent// /}") == kflip ]] && continue
		kill -TERM "$p" 2>/dev/null || true
	done
	wait "$step_pid" 2>/dev/null || true
}

# Every way out: stop the cluster (immediately: nothing in it is worth
# keeping), make sure no process of it is left, remove it.
cleanup() {
	local rc=$? pid
	trap - EXIT INT TERM HUP
	stop_step
	if [[ -n $pgdata ]] && pid=$(postmaster_pid); then
		as_postgres "$pgbin/pg_ctl" -D "$pgdata" -m immediate -w -t 20 stop \
			>/dev/null 2>&1 || true
		if kill -0 "$pid" 2>/dev/null; then
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	[[ -n $work ]] && rm -rf "$work"
	exit "$rc"
}

# The preload must be readable by user postgres; a build tree may not be.
preload_for_postgres() {
	if as_postgres test -r "$CYCLOCK_PRELOAD"; then
		echo "$CYCLOCK_PRELOAD"
	else
		cp "$CYCLOCK_PRELOAD" "$work/libcyclock-preload.so"
		chmod 644 "$work/libcyclock-preload.so"
		echo "$work/libcyclock-preload.so"
	fi
}

make_cluster() {
	work=$(mktemp -d /tmp/cyclock-pg.XXXXXX)
	chown postgres:postgres "$work"
	chmod 711 "$work"
	pgdata=$work/data sockdir=$work/sock pglog=$work/server.log
	as_postgres mkdir -m 700 "$sockdir"
	as_postgres "$pgbin/initdb" -D "$pgdata" -U postgres --auth=trust \
		--no-sync >"$work/initdb.log" 2>&1 || {
		cat "$work/initdb.log"
		echo "FAIL: initdb"
		exit 1
	}
	# No TCP; nothing to keep (no fsync); %n: log time as epoch.ms, to
	# compare the log's order with the clock's.
	cat >>"$pgdata/postgresql.conf" <<-EOF
		listen_addresses = ''
		unix_socket_directories = '$sockdir'
		port = 5432
		max_connections = 30
		shared_buffers = 32MB
		fsync = off
		synchronous_commit = off
		full_page_writes = off
		autovacuum = off
		log_line_prefix = '%n [%p] '
		log_connections = on
		log_timezone = 'UTC'
	EOF
	# The checker, on the kernel's clocks itself.
	checker_cmd=(env -u LD_PRELOAD "$python" "$checker" --host "$sockdir"
		--log "$pglog" --expect-preload $((!no_preload)))
}

start_cluster() {
	local env=(env -u LD_PRELOAD)
	((no_preload)) || env=(env "LD_PRELOAD=$(preload_for_postgres)")
	# pg_ctl starts the postmaster through the shell with its own environment.
	as_postgres "${env[@]}" "$pgbin/pg_ctl" -D "$pgdata" -l "$pglog" -w -t 30 \
		start >/dev/null || {
		cat "$pglog"
		echo "FAIL: the server did not start"
		exit 1
	}
	local pid
	pid=$(postmaster_pid)
	if grep -q libcyclock-preload "/proc/$pid/maps"; then
		echo "postmaster $pid: libcyclock-preload.so loaded"
	elif ((!no_preload)); then
		echo "FAIL: postmaster $pid does not have libcyclock-preload.so mapped"
		exit 1
	else
		echo "postmaster $pid: no preload (POSTGRES_NO_PRELOAD=1)"
	fi
}

# adjtimex's frequency and tick ("freq 0 ppm, tick 10000"), read under the
# lock (another test may be changing them otherwise): kflip must put back
# what it found.
kernel_clock() {
	locked "$python" -c '
import ctypes
class Timex(ctypes.Structure):  # struct timex, up to tick
    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long),
                ("freq", ctypes.c_long), ("rest", ctypes.c_long * 8),
                ("tick", ctypes.c_long), ("more", ctypes.c_long * 32)]
t = Timex()
ctypes.CDLL(None).adjtimex(ctypes.byref(t))
print("freq %g ppm, tick %d" % (t.freq / 65536.0, t.tick))'
}

main() {
	local status=0 t0=$SECONDS before after
	check_prereqs
	trap cleanup EXIT
	trap 'exit 1' INT TERM HUP
	before=$(kernel_clock)
	echo "PostgreSQL: $("$pgbin/postgres" --version); kernel clock: $before"
	make_cluster
	start_cluster

	# The postmaster idle (it reads no clock then) while the kernel runs
	# 500 ppm fast: 2.5 ms gained on the timeline its children inherit,
	# within what cyclock takes for a rate change, not an anomaly.  Then
	# everything with the kernel steady (the lock held: no other test
	# changes it meanwhile).
	step "$CYCLOCK_KFLIP" -f 500 -p 3600000 -- sleep 5
	echo "steady ($((SECONDS - t0)) s): after 5 s idle with the kernel at +500 ppm"
	step locked "${checker_cmd[@]}" --phase steady || status=1

	# Idle again and then everything while the kernel's rate flips between
	# +-500 ppm with tick +-100 every 0.5 s.
	echo "slewing ($((SECONDS - t0)) s): under kflip -f 500 -t 100 -p 500, 3 s idle first"
	step "$CYCLOCK_KFLIP" -f 500 -t 100 -p 500 -- \
		"${checker_cmd[@]}" --phase slewing --idle 3 || status=1

	after=$(kernel_clock)
	echo "kernel clock after: $after"
	if [[ $after != "$before" ]]; then
		echo "FAIL: the kernel's clock was not put back ($before before)"
		status=1
	fi
	local what=libcyclock-preload.so verdict=ok
	((no_preload)) && what="the kernel's clocks (POSTGRES_NO_PRELOAD)"
	((status)) && verdict=FAIL
	echo "$verdict: postgres under $what, $((SECONDS - t0)) s"
	return $status
}

main "$@"
