#!/usr/bin/env bash
# Builds the MPS2 AN385 firmware (examples/firmware/mps2-an385) with
# arm-none-eabi-gcc, runs it headless in qemu-system-arm, and checks from
# its output that the clock crossed several wraps of the board's 32-bit
# timer without going backwards and that its nanoseconds are the timer's
# counts times 40 ns (25 MHz).  Then it proves the check can fail: the same
# firmware built never to call cyclock_update() must be rejected.
#   firmware.sh SRC WORK CMAKE [GENERATOR]
# Exit 0 on success, 1 on failure, 77 (skipped) without the cross tools.
set -euo pipefail

src=$1 work=$2 cmake=$3 generator=${4:-}
project=$src/examples/firmware/mps2-an385

for tool in arm-none-eabi-gcc arm-none-eabi-size qemu-system-arm; do
	if ! command -v "$tool" >/dev/null; then
		echo "skip: $tool not found"
		exit 77
	fi
done
if ! qemu-system-arm -M help | grep '^mps2-an385 ' >/dev/null; then
	echo "skip: qemu-system-arm has no mps2-an385 machine"
	exit 77
fi

rm -rf "$work"
mkdir -p "$work"

# build NAME [CMAKE ARGS...]: configures and builds one variant in WORK/NAME.
build() {
	local name=$1 dir=$work/$1
	shift
	local gen=()
	[[ -n $generator ]] && gen=(-G "$generator")
	if ! "$cmake" -S "$project" -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=MinSizeRel "$@" \
		>"$work/$name-build.log" 2>&1 ||
		! "$cmake" --build "$dir" >>"$work/$name-build.log" 2>&1; then
		cat "$work/$name-build.log"
		echo "FAIL: the $name firmware does not build"
		exit 1
	fi
}

# run NAME: runs WORK/NAME's image; its output goes to WORK/NAME.log.
# -icount shift=auto,sleep=off: emulated time jumps over the idle periods
# (the firmware sleeps in WFI between interrupts), so 5 wraps of the
# counter, 859 s of board time, take about a second.  A fixed shift with
# sleep=off wakes the sleeping core only at every second expiry of the
# timer in QEMU 7.2 (docs/porting.md), so the shift is left to QEMU.
run() {
	local name=$1 rc=0
	timeout 30 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
		-icount shift=auto,sleep=off -semihosting-config enable=on,target=native \
		-kernel "$work/$name/cyclock-an385.elf" >"$work/$name.log" 2>&1 || rc=$?
	echo "$rc" >"$work/$name.rc"
	if ((rc == 124)); then
		echo "note: the $name firmware ran out of time (30 s)"
	fi
}

# check LOG: prints every problem the output shows; fails if there is one.
# ns must lie in [lo, hi] x 1e9 / rate, where lo and hi are the counts the
# timer made since registration, read just before and after the clock
# (lo also subtracts the counts cyclock_register() took); that window must
# be under 25000 counts (1 ms) for the comparison to mean anything.  The
# firmware's own verdict is checked separately.
check() {
	awk '
	function bad(msg) { print "  " msg; nbad++ }
	/^clock / {
		for (i = 1; i < NF; i++)
			if ($(i + 1) == "Hz,") {
				rate = $i
				per = 1e9 / rate
			}
	}
	/^sample / {
		n++
		lo = $5; hi = $6; ns = $8
		if (ns < last)
			bad(sprintf("sample %d: %.0f ns after %.0f ns: backwards", $2, ns, last))
		last = ns
		if (ns < lo * per || ns > hi * per)
			bad(sprintf("sample %d: %.0f ns for %.0f..%.0f counts (%.0f..%.0f ns)",
				    $2, ns, lo, hi, lo * per, hi * per))
		if (hi - lo >= 25000)
			bad("sample " $2 ": a window of " hi - lo " counts")
	}
	/^summary / {
		summary = 1
		for (i = 2; i < NF; i += 2)
			s[$i] = $(i + 1)
	}
	END {
		if (!rate || 1e9 % rate)
			bad("no clock line with a rate that is a whole number of ns a count")
		if (n < 10)
			bad("only " n " samples")
		if (!summary)
			bad("no summary line")
		if (s["wraps"] < 3)
			bad(s["wraps"] + 0 " wraps of the 32-bit counter, not several")
		if (s["counter_wraps"] != s["wraps"])
			bad("the samples counted " s["counter_wraps"] " wraps, TIMER0 interrupted " s["wraps"] " times")
		if (s["updates"] < 1)
			bad("no cyclock_update()")
		if (s["backwards"] != 0 || s["mismatches"] != 0)
			bad("the firmware saw " s["backwards"] " backward reads and " s["mismatches"] " mismatches")
		exit nbad > 0
	}' "$1"
}

# The clock as it should run.
build good
build skip -DCYCLOCK_FW_SKIP_UPDATE=ON
echo "sizes (arm-none-eabi-size, Cortex-M3, -Os): the engine's objects, then the image"
grep -E '^ +[0-9].*(TOTALS|\.elf)' "$work/good-build.log" | sed 's/^/  /' || true

status=0
run good
sed -n '/^calibrate/p; /^clock/p; /^summary/p' "$work/good.log" | sed 's/^/  /'
if ! check "$work/good.log"; then
	echo "FAIL: the firmware's clock is wrong (output: $work/good.log)"
	status=1
fi
if [[ $(cat "$work/good.rc") != 0 ]] || ! grep -qx PASS "$work/good.log"; then
	echo "FAIL: the firmware did not end with PASS and exit status 0"
	tail -5 "$work/good.log"
	status=1
fi
((status == 0)) && echo "ok   readings monotonic and equal to the counts across the wraps"

# Never updated, the clock must lose the wraps, and both checks must see it.
run skip
if check "$work/skip.log" >"$work/skip.check"; then
	echo "FAIL: the check accepts a firmware that never updates (output: $work/skip.log)"
	status=1
elif grep -qx PASS "$work/skip.log" || [[ $(cat "$work/skip.rc") == 0 ]]; then
	echo "FAIL: the firmware passes without cyclock_update()"
	status=1
else
	echo "ok   without cyclock_update() the check fails, as it must: $(wc -l <"$work/skip.check") problems, first:"
	head -1 "$work/skip.check"
fi
exit $status
