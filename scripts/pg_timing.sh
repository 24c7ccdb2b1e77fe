#!/usr/bin/env bash
# scripts/pg_timing.sh: what libcyclock-preload.so saves of the timing
# overhead of PostgreSQL's EXPLAIN ANALYZE.  A benchmark: it prints figures
# and asserts nothing.
#
# With TIMING ON, EXPLAIN ANALYZE reads the clock (clock_gettime) twice per
# call of each plan node, about twice per row per node; with TIMING OFF not
# at all.  Three throwaway clusters (the newest /usr/lib/postgresql/*/bin,
# Unix sockets in a temporary directory, no TCP) run at once on copies of the
# same data: `none` (the kernel's clocks), `default` (LD_PRELOAD=the preload
# in the postmaster's environment), `relaxed` (that and
# CYCLOCK_PRELOAD_RELAXED=1).  Five plans (count(*), a hash join, a nested
# loop over a materialized inner, a sort, a count with 2 parallel workers)
# run both ways, one session per server, repetitions interleaved (the modes'
# order rotated).  A Markdown table per plan and mode: median "Execution
# Time" with TIMING ON and OFF, the overhead (the median of the repetitions'
# ON - OFF, its interquartile range), the overhead per clock read, and the
# overhead over none's in the same repetition (median, IQR; one minus it is
# the share of the overhead the preload removes).
#
#   scripts/pg_timing.sh [--preload PATH] [--reps N] [--rows N] [--quick]
#
# --preload or CYCLOCK_PRELOAD: the library (build/release's); `cyclock info`
# is looked for next to it (../../tools/cyclock/cyclock) for its ordered
# counter read.  --reps or PG_TIMING_REPS: 15.  --rows or PG_TIMING_ROWS:
# the big table's, 2000000 (the small one has a twentieth): about 3 minutes
# on 2 CPUs.  --quick: 5 of 1000000, under a minute.  PGBIN: PostgreSQL's
# binaries.  Run as root (the servers run as postgres, by runuser); installs
# postgresql and python3-psycopg2 when missing.  Progress on stderr, the
# report on stdout; all removed, the servers stopped, on every way out.
# Exit 0 done, 1 failed, 2 not root or a bad option.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly MODES=(none default relaxed)
python=/usr/bin/python3 # Debian's, where apt puts psycopg2
preload=${CYCLOCK_PRELOAD:-$CYCLOCK_ROOT/build/release/src/preload/libcyclock-preload.so}
reps=${PG_TIMING_REPS:-15} rows=${PG_TIMING_ROWS:-2000000}
pgbin='' work='' lib='' child=''

die() { echo "pg_timing: $*" >&2; exit 1; }
usage() { echo "usage: $0 [--preload PATH] [--reps N] [--rows N] [--quick]" >&2; exit 2; }

parse_args() {
	while (($#)); do
		case $1 in
		--preload) (($# > 1)) || usage; preload=$2; shift ;;
		--reps) (($# > 1)) || usage; reps=$2; shift ;;
		--rows) (($# > 1)) || usage; rows=$2; shift ;;
		--quick) reps=5 rows=1000000 ;;
		*) usage ;;
		esac
		shift
	done
	if ! [[ $reps =~ ^[0-9]+$ && $rows =~ ^[0-9]+$ ]] || ((reps < 2 || rows < 20000)); then
		echo "pg_timing: --reps: at least 2, --rows: at least 20000" >&2
		usage
	fi
}

# Every way out: the measurement stopped, the servers stopped (immediately:
# nothing in them is worth keeping) and gone, the directory removed.
cleanup() {
	local rc=$? d pid
	trap - EXIT INT TERM HUP
	if [[ -n $child ]]; then
		kill -TERM "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	[[ -n $work ]] || exit "$rc"
	for d in "$work"/*/; do
		[[ -f $d/postmaster.pid ]] || continue
		pid=$(head -n 1 "$d/postmaster.pid")
		cyclock_as_postgres "$pgbin/pg_ctl" -D "$d" -m immediate -w -t 20 stop >/dev/null 2>&1 || true
		if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
	done
	rm -rf "$work"
	exit "$rc"
}

start_server() {
	local mode=$1 env=(env -u LD_PRELOAD -u CYCLOCK_PRELOAD_RELAXED)
	case $mode in
	default) env+=("LD_PRELOAD=$lib") ;;
	relaxed) env+=("LD_PRELOAD=$lib" CYCLOCK_PRELOAD_RELAXED=1) ;;
	esac
	# pg_ctl starts the postmaster through the shell with its own environment.
	cyclock_as_postgres "${env[@]}" "$pgbin/pg_ctl" -D "$work/$mode" -l "$work/$mode.log" -w -t 60 \
		start >/dev/null || { cat "$work/$mode.log" >&2; die "the $mode server did not start"; }
}

# One cluster made and loaded, stopped (a checkpoint), copied twice: three
# with the same files, each on its own socket.
make_clusters() {
	local m small=$((rows / 20)) outer=$((rows / 1000))
	work=$(mktemp -d /tmp/cyclock-pgtiming.XXXXXX)
	chown postgres:postgres "$work"
	chmod 711 "$work"
	if cyclock_as_postgres test -r "$preload"; then lib=$preload; else
		lib=$work/libcyclock-preload.so # a build tree postgres cannot read
		cp "$preload" "$lib"
		chmod 644 "$lib"
	fi
	cyclock_as_postgres "$pgbin/initdb" -D "$work/none" -U postgres --auth=trust --no-sync \
		>"$work/initdb.log" 2>&1 || { cat "$work/initdb.log" >&2; die "initdb failed"; }
	# The table cached in shared_buffers; sorts and hashes in work_mem.
	cat >>"$work/none/postgresql.conf" <<-EOF
		listen_addresses = ''
		port = 5432
		shared_buffers = $((rows / 10000 + 64))MB
		work_mem = '$((rows / 4000 + 64))MB'
		jit = off
		max_parallel_workers_per_gather = 0
		autovacuum = off
		fsync = off
		synchronous_commit = off
		max_wal_size = 4GB
	EOF
	for m in "${MODES[@]}"; do cyclock_as_postgres mkdir -m 700 "$work/$m.sock"; done
	echo "unix_socket_directories = '$work/none.sock'" >>"$work/none/postgresql.conf"
	echo "pg_timing: loading $rows rows" >&2
	start_server none
	# v: the same pseudo-random order on every run (for the sort).
	env -u LD_PRELOAD "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h "$work/none.sock" -p 5432 \
		-U postgres -d postgres <<-EOF
		create table big (id int, k int, v int) with (parallel_workers = 2);
		insert into big select i, i % $small + 1, (i::bigint * 2654435761 % 1000000007)::int
		  from generate_series(1, $rows) i;
		create table small as select i as id, i % 1000 as g from generate_series(1, $small) i;
		vacuum (freeze, analyze) big, small;
		-- for the nested loop: $outer outer rows by 1000 inner ones
		create view nl as select count(*) from small a join small b on a.g = b.g
		  where a.id <= $outer and b.id <= 1000;
	EOF
	cyclock_as_postgres "$pgbin/pg_ctl" -D "$work/none" -m fast -w -t 60 stop >/dev/null
	for m in default relaxed; do
		cyclock_as_postgres cp -a "$work/none" "$work/$m"
		echo "unix_socket_directories = '$work/$m.sock'" >>"$work/$m/postgresql.conf"
	done
	for m in "${MODES[@]}"; do start_server "$m"; done
}

machine_info() {
	cyclock_machine_line
	echo "PostgreSQL: $("$pgbin/postgres" --version)"
	echo "preload: $preload"
	cyclock_ordered_line "$preload"
	echo "big: $rows rows, small: $((rows / 20)); $reps repetitions; median of each, IQR of the overhead"
}


main() {
	local t0=$SECONDS m socks=()
	parse_args "$@"
	((EUID == 0)) || {
		echo "pg_timing: must be run as root (the servers run as user postgres, by runuser): sudo $0" >&2
		exit 2
	}
	[[ -f $preload ]] || die "no preload library $preload (build it, or --preload PATH / CYCLOCK_PRELOAD)"
	preload=$(realpath "$preload")
	cyclock_ensure_deps postgres psycopg2
	pgbin=$(cyclock_pgbin psql)
	[[ -n $pgbin ]] || die "no PostgreSQL server (/usr/lib/postgresql/*/bin)"
	id postgres >/dev/null 2>&1 || die "no user postgres"
	trap cleanup EXIT
	trap 'exit 1' INT TERM HUP
	make_clusters
	machine_info
	for m in "${MODES[@]}"; do socks+=("$work/$m.sock"); done
	# In the background: bash runs a signal's trap only once a foreground
	# command is done, wait returns at once.
	env -u LD_PRELOAD "$python" -u "$(dirname "${BASH_SOURCE[0]}")/pg_measure.py" "$reps" "${socks[@]}" &
	child=$!
	wait "$child" || die "the measurement failed"
	child=''
	echo "load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg); $((SECONDS - t0)) s in all"
}

main "$@"
