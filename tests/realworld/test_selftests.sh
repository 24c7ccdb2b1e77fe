#!/usr/bin/env bash
# realworld_test_selftests: the kernel's own timers selftests, natively and under
# libcyclock-preload.so.
#
# The kernel's tools/testing/selftests/timers are what its maintainers run to
# check that the clocks stay in order, that sleeps and timers never end early
# and that CLOCK_MONOTONIC follows adjtimex() frequency and tick changes.  A
# clock served from the TSC must pass them too.  They are GPL, so none of
# their code is kept here: they are taken from Debian's linux-source tarball
# and built in a temporary directory at test time.
#
# Each test runs natively, under the preload, and under the preload with the
# coarse clocks named (CYCLOCK_PRELOAD_CLOCKS):
#   inconsistency-check nanosleep nsleep-lat set-timer-lat mqueue-lat
#   posix_timers cyclictest (rt-tests), and, as root, the ones that change
#   the kernel's clock themselves: skew_consistency freq-step adjtick change_skew
# then natively and under the preload while kflip changes the kernel's clock
# every 0.5 s (-f 500, -t 100, both): inconsistency-check on CLOCK_MONOTONIC
# and CLOCK_REALTIME, nanosleep, cyclictest.  cyclictest sleeps to absolute
# deadlines read from the clock under test: a latency <= 0 means that clock
# reads behind the kernel's (natively the least is ~10 us here).
#
# Several tests are shortened at build time (shorten()) to keep the stage
# within ~7 minutes (6.5 here, as root); the patches only cut loop counts and sleep lengths,
# except two that make them safe on a shared machine: freq-step's zero
# ADJ_SETOFFSET (a clock_was_set() for the whole machine) becomes a read, and
# change_skew's "killall -9 ntpd" is dropped.  valid-adjtimex, leap-a-day,
# leapcrash, set-2038, set-tai, set-tz step CLOCK_REALTIME or its TAI offset
# (settimeofday, ADJ_SETOFFSET, ADJ_TAI) and are never run; raw_skew runs only
# inside change_skew; alarmtimer-suspend, clocksource-switch, rtcpie and
# threadtest are not about the clocks the preload serves.
#
# Every run holds /run/cyclock-kadj.lock (kadj.h's) so that no other test
# changes the clock meanwhile; the tests that change it run under kflip with
# no changes of its own, which saves the clock's state and puts it back on
# every way out (skew_consistency and change_skew leave +-500 ppm behind).
#
# Judging: a test that passes natively and fails preloaded is a regression.
# One that fails natively too (checked by one more native run) is reported
# and is not one.  Exit 0: no regression; 1: a regression, or the kernel's
# clock left changed; 77: cannot run here.
#
# Environment (from CTest): CYCLOCK_PRELOAD, CYCLOCK_KFLIP.  For a trial:
# CYCLOCK_SELFTESTS_ONLY=REGEX runs only the rows whose name matches.
#
# Over 400 lines: fetching, patching and building the selftests, the
# table of cases and their judging are one test; apart, each would need
# the others' state.
set -euo pipefail

readonly LOCK=/run/cyclock-kadj.lock
readonly COARSE=monotonic,monotonic_raw,realtime,boottime,monotonic_coarse,realtime_coarse
readonly BUDGET=780 # seconds: start no test after this (CTest's timeout is 900)
only=${CYCLOCK_SELFTESTS_ONLY:-}
work='' saved_state='' root=0 res=''
no_ct='' # why cyclictest cannot run, if it cannot
bin='' logs=''
declare -A cell detail
rows=() failed_logs=()

skip() {
	echo "skip: $*"
	exit 77
}

note() {
	printf '%s\n' "$*"
}

# ---------------------------------------------------------------------------
# The kernel's clock: saved before the first test, checked and put back on exit.

# kstate [FREQ TICK]: print "freq tick" (after setting them when given).
write_kstate() {
	cat >"$work/kstate.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <sys/timex.h>
int main(int argc, char **argv)
{
	struct timex tx = { 0 };

	if (argc == 3) {
		tx.modes = ADJ_FREQUENCY | ADJ_TICK;
		tx.freq = atol(argv[1]);
		tx.tick = atol(argv[2]);
	}
	if (adjtimex(&tx) < 0) {
		perror("adjtimex");
		return 1;
	}
	printf("%ld %ld\n", tx.freq, tx.tick);
	return 0;
}
EOF
	gcc -O2 -o "$work/kstate" "$work/kstate.c"
}

# Under the lock: no other test is half-way through changing the clock.
kstate() {
	if ((root)); then
		flock -w 300 "$LOCK" "$work/kstate" "$@"
	else
		"$work/kstate" "$@"
	fi
}

# shellcheck disable=SC2317 # called from the EXIT trap
check_clock_back() {
	local now
	[[ -n $saved_state ]] || return 0
	now=$(kstate) || return 0
	if [[ $now != "$saved_state" ]]; then
		# shellcheck disable=SC2086 # two numbers
		kstate $saved_state >/dev/null || true
		note "ERROR: the kernel's clock was left at freq/tick $now; put back to $saved_state"
		return 1
	fi
	note "kernel clock: freq/tick $now (as before: $saved_state)"
}

# shellcheck disable=SC2317 # the EXIT trap
on_exit() {
	local rc=$?
	trap - EXIT
	check_clock_back || rc=1
	[[ -n $work ]] && rm -rf "$work"
	exit "$rc"
}

# ---------------------------------------------------------------------------
# Getting and building the selftests.

# Debian's tarball; linux-source may be being installed right now.
find_tarball() {
	local t deadline=$((SECONDS + 240))
	while :; do
		t=$(compgen -G '/usr/src/linux-source-*.tar.xz' | sort -V | tail -n1 || true)
		[[ -n $t ]] && { echo "$t"; return 0; }
		# Wait only while a package manager is at work: it may be unpacking it.
		pgrep -x 'apt|apt-get|dpkg|aptitude|unattended-upgr' >/dev/null || break
		((SECONDS < deadline)) || break
		sleep 5
	done
	return 1
}

get_tarball() {
	local t
	if t=$(find_tarball); then
		echo "$t"
		return 0
	fi
	dpkg -l 'linux-source*' 2>/dev/null | grep '^.[^n]' >&2 || true
	((root)) || return 1
	echo "installing linux-source" >&2
	DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -q \
		-o DPkg::Lock::Timeout=120 linux-source >&2 || return 1
	find_tarball
}

# shorten FILE FROM TO: a fixed-string edit; a source that no longer has FROM
# runs unshortened (the timeouts still hold), and says so.
shorten() {
	local f=$1 from=$2 to=$3 text
	text=$(<"$f")
	if [[ $text != *"$from"* ]]; then
		note "note: $(basename "$f") has no '$from': runs unshortened"
		return 0
	fi
	printf '%s\n' "${text//"$from"/"$to"}" >"$f"
}

shorten_sources() {
	local s=$1
	cp "$s/nanosleep.c" "$s/nanosleep-short.c"
	# change_skew's nanosleep: sleeps up to 10 ms, not 1 s, five times over.
	shorten "$s/nanosleep-short.c" '(NSEC_PER_SEC * 10)' '(NSEC_PER_SEC / 10)'
	# 10 + 10 sleeps of up to 10 ms per clock, not of up to 1 s (80 s).
	shorten "$s/nsleep-lat.c" '(NSEC_PER_SEC * 10)' '(NSEC_PER_SEC / 10)'
	# 2 periods and a 1.3 s one-shot wait, not 5 and 5 s; only REALTIME,
	# MONOTONIC, BOOTTIME: the alarm clocks need an RTC (none here; some
	# versions wait forever for them) and TAI is passed through by the preload.
	shorten "$s/set-timer-lat.c" 'while (alarmcount < 5)' 'while (alarmcount < 2)'
	shorten "$s/set-timer-lat.c" 'timeout.tv_sec = 5;' 'timeout.tv_sec = 1; timeout.tv_usec = 300000;'
	shorten "$s/set-timer-lat.c" '(clock_id == CLOCK_HWSPECIFIC))' '(clock_id >= CLOCK_REALTIME_ALARM))'
	shorten "$s/mqueue-lat.c" 'count = 100;' 'count = 30;'
	shorten "$s/posix_timers.c" '#define DELAY 2' '#define DELAY 1'
	# One base frequency per step size (3 steps, not 15).  The samples stay
	# 0.1 s apart on average: its 20 ppb limit on the second interval's
	# frequency is only as strict as the kernel developers meant over their
	# 5 s (a clock that wanders by 30 ns reads as 20 ppb over 1.5 s).
	shorten "$s/freq-step.c" 'for (j = 0; j < 5; j++)' 'for (j = 0; j < 1; j++)'
	# Its reset_ntp_error() is ADJ_SETOFFSET by 0 s: no step, but the whole
	# machine's clock_was_set() (every TFD_TIMER_CANCEL_ON_SET timerfd fires).
	shorten "$s/freq-step.c" 'txc.modes = ADJ_SETOFFSET;' 'txc.modes = 0;'
	# Ticks 9000 and 10500 (-10%, +5%) measured 3 s each, not 8 for 15 s.
	shorten "$s/adjtick.c" 'sleep(15);' 'sleep(3);'
	shorten "$s/adjtick.c" 'interval = max/4;' 'interval = max*3/2;'
	# change_skew: 0, +500, -500 ppm (not also +-250), raw_skew for 2 s, not 120.
	shorten "$s/change_skew.c" '{0, 250, 500, -250, -500}' '{0, 500, -500, 250, -250}'
	shorten "$s/change_skew.c" 'for (i = 0; i < 5; i++)' 'for (i = 0; i < 3; i++)'
	shorten "$s/raw_skew.c" 'sleep(120);' 'sleep(2);'
	# Never kill anything on a shared machine.
	shorten "$s/change_skew.c" 'system("killall -9 ntpd")' '0'
}

# skew_consistency and change_skew run ./inconsistency-check (for 600 s and
# for 12 clocks x 10 s), ./raw_skew and ./nanosleep from their directory:
# give each a directory of shorter stand-ins.
write_standins() {
	mkdir -p "$work/skew" "$work/change"
	ln -s "$bin/skew_consistency" "$work/skew/skew_consistency"
	printf '#!/bin/sh\nexec %s -c 1 -t 5\n' "$bin/inconsistency-check" >"$work/skew/inconsistency-check"
	ln -s "$bin/change_skew" "$work/change/change_skew"
	ln -s "$bin/raw_skew" "$work/change/raw_skew"
	ln -s "$bin/nanosleep-short" "$work/change/nanosleep"
	printf '#!/bin/sh\nexec %s -c 1 -t 1\n' "$bin/inconsistency-check" >"$work/change/inconsistency-check"
	chmod +x "$work/skew/inconsistency-check" "$work/change/inconsistency-check"
}

build_selftests() {
	local tarball=$1 s t
	mkdir -p "$work/src" "$bin"
	tar -xJf "$tarball" -C "$work/src" --wildcards \
		'*/tools/testing/selftests/timers/*' '*/tools/testing/selftests/kselftest*'
	s=$(compgen -G "$work/src/*/tools/testing/selftests/timers" | head -n1 || true)
	[[ -n $s && -f $s/inconsistency-check.c ]] || skip "no timers selftests in $tarball"
	shorten_sources "$s"
	for t in inconsistency-check nanosleep nanosleep-short nsleep-lat set-timer-lat \
		mqueue-lat posix_timers skew_consistency freq-step adjtick change_skew raw_skew; do
		gcc -O2 -Wall -o "$bin/$t" "$s/$t.c" -lrt -lpthread -lm >>"$work/build.log" 2>&1 ||
			note "note: $t did not build (its rows say missing): $(grep -m1 error "$work/build.log" || true)"
	done
	write_standins
}

have_cyclictest() {
	command -v cyclictest >/dev/null && return 0
	((root)) || return 1
	DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -q \
		-o DPkg::Lock::Timeout=120 rt-tests >"$work/apt.log" 2>&1 || true
	command -v cyclictest >/dev/null
}

# Does the preload serve anything here?  Its marker is the mask of served ids.
preload_mask() {
	cat >"$work/probe.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
int main(void)
{
	struct timespec a, b;
	const unsigned int *mask;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do /* past the deferred half of the initialisation (500 us) */
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < 2000000);
	mask = dlsym(RTLD_DEFAULT, "cyclock_preload_active");
	printf("%u\n", mask ? *mask : 0u);
	return 0;
}
EOF
	gcc -O2 -o "$work/probe" "$work/probe.c" -ldl
	env "$@" "$work/probe"
}

# ---------------------------------------------------------------------------
# Running one case.

# Result of one run from its exit status (kselftest: 0 pass, 4 skip).
verdict() {
	case $1 in
	0) echo ok ;;
	4) echo skip ;;
	75) echo nolock ;;
	77) echo skip ;;
	124 | 137) echo TIMEOUT ;;
	126 | 127) echo missing ;; # did not build
	*) echo "FAIL($1)" ;;
	esac
}

# cyclictest -v prints "thread: loop: latency" (ns with -N; a latency below 0
# shows as 0).  A latency <= 0 is a wake-up before the deadline as the clock
# under test reads it: natively the least here is 6-12 us.
ct_judge() {
	awk -F: '
		NF == 3 && $1 ~ /^ *[0-9]+ *$/ && $3 ~ /^ *-?[0-9]+ *$/ {
			v = $3 + 0
			if (v > 9e18) v -= 18446744073709551616 # were it printed unsigned
			n++; sum += v; act = v
			if (n == 1 || v < min) min = v
			if (n == 1 || v > max) max = v
			if (v <= 0 && bad++ < 5) at = at (at == "" ? " (loops " : ",") ($2 + 0)
		}
		END {
			if (!n) { print "FAIL(no samples)"; exit }
			if (bad) at = at (bad > 5 ? ",...)" : ")")
			printf "%s %.1fus|%d loops: min %.1f avg %.1f max %.1f act %.1f us, %d <= 0%s\n",
				bad ? "FAIL" : "ok", min / 1000, n, min / 1000, sum / n / 1000,
				max / 1000, act / 1000, bad, at
		}' "$1"
}

# mode_env MODE: the environment of a run.
mode_env() {
	local -a e=(-u LD_PRELOAD -u CYCLOCK_PRELOAD_CLOCKS)
	case $1 in
	preload) e+=("LD_PRELOAD=$CYCLOCK_PRELOAD") ;;
	coarse) e+=("LD_PRELOAD=$CYCLOCK_PRELOAD" "CYCLOCK_PRELOAD_CLOCKS=$COARSE") ;;
	esac
	printf '%s\n' "${e[@]}"
}

# run_once ROW MODE GUARD LIMIT DIR CMD...: one run; its cell in $res (and
# cyclictest's numbers in detail[]).
# GUARD: steady (hold the lock: nobody changes the clock), kadj (the test
# changes it: kflip saves and restores), or kflip's options (it flips).
run_once() {
	local row=$1 mode=$2 guard=$3 limit=$4 dir=$5 log out rc=0 t0=$SECONDS
	shift 5
	local -a pre env
	mapfile -t env < <(mode_env "$mode")
	case $guard in
	steady) ((root)) && pre=(flock --verbose -E 75 -w 300 "$LOCK") || pre=() ;;
	kadj) pre=("$CYCLOCK_KFLIP" --) ;;
	*) read -r -a pre <<<"$guard" && pre=("$CYCLOCK_KFLIP" "${pre[@]}" --) ;;
	esac
	log="$logs/${row//[^A-Za-z0-9_.-]/_}.$mode.log" out=$logs/current
	{
		echo "### $row [$mode] $(date +%T): ${pre[*]} timeout $limit env ${env[*]} $*"
		(cd "$dir" && "${pre[@]}" timeout -k 10 "$limit" env "${env[@]}" "$@") 2>&1 || rc=$?
		echo "### exit $rc"
	} >"$out"
	res=$(verdict "$rc")
	if [[ $res == ok && $row == cyclictest* ]]; then
		res=$(ct_judge "$out")
		detail[$row|$mode]+="${detail[$row|$mode]:+; }${res#*|}"
		res=${res%%|*}
	fi
	cat "$out" >>"$log"
	if failed "$res" && [[ " ${failed_logs[*]} " != *" $log "* ]]; then
		failed_logs+=("$log")
	fi
	printf '  %-47s %-8s %-16s %3ds\n' "$row" "$mode" "$res" $((SECONDS - t0))
}

failed() {
	[[ $1 == *FAIL* || $1 == *TIMEOUT* ]]
}

# Every run of the cell passed ("ok", "ok,ok", "ok 11.5us").
passed() {
	[[ $1 == ok* ]] && ! failed "$1"
}

# case_row ROW GUARD LIMIT DIR MODES CMD...: the row's runs, in MODES.
case_row() {
	local row=$1 guard=$2 limit=$3 dir=$4 modes=$5 m v
	shift 5
	[[ -n $only && ! $row =~ $only ]] && return 0
	rows+=("$row")
	for m in native preload coarse; do
		if [[ $modes != *$m* ]]; then
			cell[$row|$m]=-
			continue
		fi
		if ((SECONDS > BUDGET)); then
			cell[$row|$m]=budget
			continue
		fi
		run_once "$row" "$m" "$guard" "$limit" "$dir" "$@"
		v=$res
		# A native failure is retried once: flaky, or failing here.
		if [[ $m == native ]] && failed "$v"; then
			run_once "$row" native "$guard" "$limit" "$dir" "$@"
			v="$v,$res"
		fi
		cell[$row|$m]=$v
	done
	control_run "$row" "$guard" "$limit" "$dir" "$@"
}

# A preloaded failure where native passed: one more native run tells a
# test that fails here anyway (load) from one the preload breaks.
control_run() {
	local row=$1 guard=$2 limit=$3 dir=$4
	shift 4
	passed "${cell[$row|native]}" || return 0
	failed "${cell[$row|preload]}" || failed "${cell[$row|coarse]}" || return 0
	((SECONDS <= BUDGET)) || return 0
	run_once "$row" native "$guard" "$limit" "$dir" "$@"
	cell[$row|native]+=",$res"
}

# skip_row ROW REASON
skip_row() {
	[[ -n $only && ! $1 =~ $only ]] && return 0
	rows+=("$1")
	cell[$1|native]=skip cell[$1|preload]=skip cell[$1|coarse]=skip
	detail[$1|native]=$2
}

# ---------------------------------------------------------------------------
# The stages.

cyclictest_cmd() {
	printf '%s\n' cyclictest -N -v -l 10000 -i 500 -m -p 80
}

steady_stage() {
	local all=native,preload,coarse ct
	local -a ctc
	note "== steady clock: native, preloaded, preloaded with the coarse clocks named"
	case_row inconsistency-check steady 90 "$bin" "$all" ./inconsistency-check -t 1
	case_row nanosleep steady 60 "$bin" "$all" ./nanosleep
	case_row nsleep-lat steady 60 "$bin" "$all" ./nsleep-lat
	case_row set-timer-lat steady 90 "$bin" "$all" ./set-timer-lat
	case_row mqueue-lat steady 30 "$bin" "$all" ./mqueue-lat
	case_row posix_timers steady 40 "$bin" "$all" ./posix_timers
	if [[ -z $no_ct ]]; then
		mapfile -t ctc < <(cyclictest_cmd)
		case_row cyclictest steady 40 "$bin" "$all" "${ctc[@]}"
	else
		skip_row cyclictest "$no_ct"
	fi
	if ! ((root)) || [[ ! -x ${CYCLOCK_KFLIP:-} ]]; then
		for ct in skew_consistency freq-step adjtick change_skew; do
			skip_row "$ct" "needs root and kflip to change the kernel's clock"
		done
		return 0
	fi
	case_row skew_consistency kadj 60 "$work/skew" "$all" ./skew_consistency
	case_row freq-step kadj 120 "$bin" "$all" ./freq-step
	case_row adjtick kadj 90 "$bin" "$all" ./adjtick
	case_row change_skew kadj 120 "$work/change" "$all" ./change_skew
}

flip_stage() {
	local f both=native,preload
	local -a ctc
	if ! ((root)) || [[ ! -x ${CYCLOCK_KFLIP:-} ]]; then
		skip_row "(under kflip)" "needs root and kflip to change the kernel's clock"
		return 0
	fi
	mapfile -t ctc < <(cyclictest_cmd)
	for f in "-f 500" "-t 100" "-f 500 -t 100"; do
		note "== kflip $f -p 500: native, preloaded"
		case_row "inconsistency-check -c 1 @kflip $f" "$f -p 500" 30 "$bin" "$both" \
			./inconsistency-check -c 1 -t 3
		case_row "inconsistency-check -c 0 @kflip $f" "$f -p 500" 30 "$bin" "$both" \
			./inconsistency-check -c 0 -t 3
		case_row "nanosleep @kflip $f" "$f -p 500" 60 "$bin" "$both" ./nanosleep
		if [[ -z $no_ct ]]; then
			case_row "cyclictest @kflip $f" "$f -p 500" 40 "$bin" "$both" "${ctc[@]}"
		fi
	done
}

# ---------------------------------------------------------------------------
# The table and the verdict.

judge_row() {
	local r=$1 n=${cell[$1|native]} p=${cell[$1|preload]} c=${cell[$1|coarse]}
	if failed "$p" || failed "$c"; then
		if passed "$n"; then
			echo REGRESSION
		elif failed "$n"; then
			echo "fails natively too"
		else
			echo "fails preloaded; not run natively ($n): not judged"
		fi
	elif [[ "$n $p $c" == *budget* ]]; then
		echo "not (all) run: out of time"
	elif failed "$n"; then
		echo "fails natively only"
	elif [[ $n == missing ]]; then
		echo "not built"
	elif [[ $n == skip && -n ${detail[$r|native]:-} ]]; then
		echo "skipped: ${detail[$r|native]}"
	fi
}

print_table() {
	local r j regressions=0
	printf '\n%-47s %-20s %-14s %-14s %s\n' test native preloaded "+coarse" verdict
	for r in "${rows[@]}"; do
		j=$(judge_row "$r")
		[[ $j == REGRESSION ]] && regressions=$((regressions + 1))
		printf '%-47s %-20s %-14s %-14s %s\n' "$r" "${cell[$r|native]}" \
			"${cell[$r|preload]}" "${cell[$r|coarse]}" "$j"
	done
	printf '\ncyclictest (-N, ns shown as us):\n'
	for r in "${rows[@]}"; do
		[[ $r == cyclictest* ]] || continue
		for j in native preload coarse; do
			[[ -n ${detail[$r|$j]:-} ]] && printf '  %-36s %-8s %s\n' "$r" "$j" "${detail[$r|$j]}"
		done
	done
	return $((regressions > 0))
}

# The tail of every failed run's log (cyclictest's samples left out), so
# that CTest's output says why.
print_failures() {
	local f
	for f in "${failed_logs[@]}"; do
		printf '\n--- %s\n' "$(basename "$f")"
		grep -v '^ *[0-9]*: *[0-9]*: *-\?[0-9]*$' "$f" | tail -n 25
	done
}

main() {
	local tarball mask rc=0 t0
	[[ $(uname -s) == Linux ]] || skip "Linux only"
	[[ -n ${CYCLOCK_PRELOAD:-} && -f $CYCLOCK_PRELOAD ]] || skip "no preload library (CYCLOCK_PRELOAD)"
	command -v gcc >/dev/null || skip "no gcc"
	((EUID == 0)) && root=1
	work=$(mktemp -d "${TMPDIR:-/tmp}/cyclock-selftests.XXXXXX")
	trap on_exit EXIT
	trap 'exit 130' INT TERM HUP
	bin=$work/bin logs=$work/logs
	mkdir -p "$logs"
	tarball=$(get_tarball) || skip "no /usr/src/linux-source-*.tar.xz and linux-source cannot be installed"
	t0=$SECONDS
	build_selftests "$tarball"
	note "selftests from $tarball, built in $((SECONDS - t0))s"
	mask=$(preload_mask "LD_PRELOAD=$CYCLOCK_PRELOAD")
	((mask)) || skip "the preload serves no clock here (cyclock uses the kernel's clocks)"
	note "preload serves clock ids mask $mask; with the coarse clocks named:" \
		"$(preload_mask "LD_PRELOAD=$CYCLOCK_PRELOAD" "CYCLOCK_PRELOAD_CLOCKS=$COARSE")"
	have_cyclictest || no_ct="no cyclictest, and rt-tests cannot be installed"
	if ((root)); then
		write_kstate
		saved_state=$(kstate) || skip "cannot read the kernel's clock state ($LOCK busy?)"
		note "kernel clock before: freq/tick $saved_state"
		[[ $saved_state == "0 10000" ]] ||
			note "note: not the nominal 0 10000; that is what is put back after"
	else
		note "not root: the tests that change the kernel's clock are skipped"
		no_ct="cyclictest needs root (a real-time scheduling policy)"
	fi
	steady_stage
	flip_stage
	print_failures
	print_table || rc=1
	note "took ${SECONDS}s"
	exit "$rc"
}

main "$@"
