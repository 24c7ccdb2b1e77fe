#!/bin/bash
# scripts/crosscheck.sh: cyclock's figures beside independent tools' on
# this machine, in one run (docs/crosscheck.md says how to read them).
#
#   ctxsw round trip   cyclock bench ctxsw     perf bench sched pipe
#   warm monotonic     cyclock bench warm      pg_test_timing (PostgreSQL)
#   warm, four clocks  cyclock bench warm      gbench_clocks (Google Benchmark)
#
# Builds what it needs into build/release (CYCLOCK_CROSSCHECK_BUILD to
# change it), installs missing tools with apt-get when root, prints a table
# (figure, cyclock's, the other tool's, cyclock / other) and exits non-zero
# when a tool fails to run or prints nothing readable.  Agreement is for a
# reader to judge: two timings on a shared machine are never asserted.
set -uo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BUILD=${CYCLOCK_CROSSCHECK_BUILD:-$CYCLOCK_ROOT/build/release}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
ROWS=()
ALLOWED=0

die() {
	echo "crosscheck: $*" >&2
	exit 1
}

# ---- building ----
build() {
	cmake -S "$CYCLOCK_ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCYCLOCK_BUILD_TESTS=OFF >"$TMP/cmake.log" 2>&1 ||
		{ cat "$TMP/cmake.log" >&2; die "cmake configure failed"; }
	cmake --build "$BUILD" -j"$CYCLOCK_JOBS" --target cyclock >"$TMP/build.log" 2>&1 ||
		{ tail -30 "$TMP/build.log" >&2; die "building cyclock failed"; }
	CYCLOCK=$BUILD/tools/cyclock/cyclock
	GBENCH=$BUILD/tools/crosscheck/gbench_clocks
	if cmake --build "$BUILD" --target help 2>/dev/null | grep gbench_clocks >/dev/null; then
		cmake --build "$BUILD" -j"$CYCLOCK_JOBS" --target gbench_clocks \
			>"$TMP/build.log" 2>&1 ||
			{ tail -30 "$TMP/build.log" >&2; die "building gbench_clocks failed"; }
		return
	fi
	# tools/crosscheck is not part of this build: compile it by hand.
	local lib
	lib=$(find "$BUILD/src" -name libcyclock.a | head -1)
	[[ -n $lib ]] || die "no libcyclock.a under $BUILD/src"
	cmake --build "$BUILD" --target cyclock_static >/dev/null 2>&1 || true
	GBENCH=$TMP/gbench_clocks
	g++ -O2 -std=c++17 -I"$CYCLOCK_ROOT/include" -o "$GBENCH" \
		"$CYCLOCK_ROOT/tools/crosscheck/gbench_clocks.cc" "$lib" -lbenchmark -lpthread ||
		die "compiling gbench_clocks failed"
}

# ---- reading figures ----
# csv_median FILE NAME: the median_ns column of row NAME of cyclock's CSV.
csv_median() {
	awk -F, -v name="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "median_ns") col = i; next }
		$1 == name && col { print $col; exit }' "$1"
}

# median NUMBERS...: the middle one (the lower middle for an even count).
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# row FIGURE UNIT CYCLOCK OTHER OTHER_TOOL: one line of the table.
row() {
	[[ -n $3 && -n $4 ]] || die "no figure for '$1' (cyclock '$3', $5 '$4')"
	ROWS+=("$(awk -v f="$1" -v u="$2" -v a="$3" -v b="$4" -v t="$5" 'BEGIN {
		printf "%-30s %10.1f %-2s %10.1f %-2s %6.3f  %s", f, a, u, b, u, a / b, t }')")
}

# ---- (1) context switches: ctxsw vs perf bench sched pipe ----
# perf_pipe CPU LOOPS [CPU2]: ns per op (one op is one round trip: each
# task writes, then reads) with both processes on CPU, or with the second
# one moved to CPU2: perf has no option to pin its two processes apart,
# and left to itself the scheduler may keep them together.  perf forks at
# once; the shell's own read of /proc (no process to start, unlike pgrep,
# which let thousands of same-CPU round trips through first) sees the
# child within microseconds, and taskset moves it ~3 ms later: ~600 fast
# round trips, which make a 40,000-loop figure ~1.5% too low.
perf_pipe() {
	local pid child='' out=$TMP/perf.out i
	taskset -c "$1" perf bench sched pipe -l "$2" >"$out" 2>&1 &
	pid=$!
	if [[ -n ${3:-} ]]; then
		for ((i = 0; i < 1000000; i++)); do
			read -r child _ <"/proc/$pid/task/$pid/children" 2>/dev/null
			[[ -n $child ]] && break
		done
		if [[ -z $child ]] || ! taskset -c -p "$3" "$child" >/dev/null; then
			wait "$pid"
			die "could not move perf's second process to CPU $3"
		fi
	fi
	wait "$pid" || { cat "$out" >&2; die "perf bench sched pipe failed"; }
	awk '/usecs\/op/ { print $1 * 1000 }' "$out"
}

# collect ARRAY WHAT COMMAND...: appends COMMAND's output, which must be
# a number, to ARRAY; the run fails otherwise (a tool that failed inside a
# command substitution would else only leave an empty string behind).
collect() {
	local -n into=$1
	local what=$2 v
	shift 2
	v=$("$@") || exit 1
	[[ $v =~ ^[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$ ]] || die "no figure from $what (got '$v')"
	into+=("$v")
}

# Rounds of cyclock, then perf on one CPU, then perf across two, so that
# a change in the machine's load falls on both tools; medians of each.
check_ctxsw() {
	local cpus=$1 csv=$TMP/ctxsw.csv cpu0 cpu1
	local -a a=() b=() c=() d=()
	cpu0=$(cut -d, -f1 <<<"$ALLOWED")
	cpu1=$(cut -d, -f2 <<<"$ALLOWED")
	for _ in 1 2 3; do
		"$CYCLOCK" bench --clocks monotonic --repetitions 3 --quiet --csv "$csv" ctxsw \
			>/dev/null || die "cyclock bench ctxsw failed"
		collect a "cyclock's ctxsw/same_cpu" csv_median "$csv" ctxsw/same_cpu
		collect b "perf bench sched pipe" perf_pipe "$cpu0" 50000
		((cpus >= 2)) || continue
		collect c "cyclock's ctxsw/cross_cpu" csv_median "$csv" ctxsw/cross_cpu
		collect d "perf bench sched pipe" perf_pipe "$cpu0" 40000 "$cpu1"
	done
	row "ctxsw same_cpu round trip" ns "$(median "${a[@]}")" "$(median "${b[@]}")" \
		"perf bench sched pipe, both on CPU $cpu0"
	((cpus >= 2)) || return 0
	row "ctxsw cross_cpu round trip" ns "$(median "${c[@]}")" "$(median "${d[@]}")" \
		"perf bench sched pipe, CPUs $cpu0 and $cpu1"
}

# ---- (2) and (3): warm reads vs pg_test_timing and Google Benchmark ----
# gbench_median CSV CLOCK: Google Benchmark's median real_time of CLOCK.
gbench_median() {
	awk -F, -v n="\"${2}_median\"" '$1 == n { print $3 }' "$1"
}

# pg_loop_ns: pg_test_timing's "Per loop time including overhead" over 1 s.
pg_loop_ns() {
	local out
	out=$("$(cyclock_pg_test_timing)" -d 1 2>&1) || { echo "$out" >&2; die "pg_test_timing failed"; }
	awk '/Per loop time including overhead/ { print $(NF - 1) }' <<<"$out"
}

# Rounds of cyclock, pg_test_timing and Google Benchmark; medians of each.
# The figures of clock C go to the arrays mine_C and gb_C.
check_warm() {
	local csv=$TMP/warm.csv gb=$TMP/gbench.csv clocks=(monotonic cyclock_now) c
	local -a pg=()
	[[ $(uname -m) == x86_64 ]] && clocks+=(rdtsc lfence_rdtsc)
	for c in "${clocks[@]}"; do
		local -a "mine_$c=()" "gb_$c=()"
	done
	for _ in 1 2 3; do
		"$CYCLOCK" bench --clocks "$(IFS=,; echo "${clocks[*]}")" --quiet --csv "$csv" \
			warm >/dev/null || die "cyclock bench warm failed"
		collect pg "pg_test_timing" pg_loop_ns
		"$GBENCH" --benchmark_repetitions=3 --benchmark_min_time=0.1 \
			--benchmark_report_aggregates_only=true --benchmark_format=csv \
			>"$gb" 2>"$TMP/gbench.err" || { cat "$TMP/gbench.err" >&2; die "gbench_clocks failed"; }
		for c in "${clocks[@]}"; do
			collect "mine_$c" "cyclock's warm/$c" csv_median "$csv" "warm/$c/throughput"
			collect "gb_$c" "gbench_clocks' $c" gbench_median "$gb" "$c"
		done
	done
	local -n mono=mine_monotonic
	row "warm monotonic (throughput)" ns "$(median "${mono[@]}")" "$(median "${pg[@]}")" \
		"pg_test_timing -d 1, per loop"
	for c in "${clocks[@]}"; do
		local -n m="mine_$c" g="gb_$c"
		row "warm $c (throughput)" ns "$(median "${m[@]}")" "$(median "${g[@]}")" \
			"Google Benchmark, real_time"
	done
}

main() {
	local cpus
	cyclock_ensure_deps cmake cc make g++ pkg-config jansson
	cyclock_ensure_deps benchmark perf pg_test_timing taskset
	build
	# The CPUs this shell may use, as cyclock's bench_allowed_cpus() sees them.
	ALLOWED=$(taskset -c -p $$ | awk -F': ' '{ print $2 }' | tr ',' '\n' |
		awk -F- '{ for (c = $1; c <= (NF == 2 ? $2 : $1); c++) printf "%s%d", n++ ? "," : "", c }')
	cpus=$(tr ',' '\n' <<<"$ALLOWED" | wc -l)
	echo "crosscheck: $(nproc) CPUs online, $cpus allowed; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	check_ctxsw "$cpus"
	check_warm
	printf '\n%-30s %13s %13s %6s  %s\n' figure cyclock other ratio "other tool"
	printf '%s\n' "${ROWS[@]}"
	echo "(ratio: cyclock / other; load average now $(cut -d' ' -f1-3 /proc/loadavg))"
}

main "$@"
