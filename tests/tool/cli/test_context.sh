# The machine's context from sysfs and /proc values no real machine has,
# read under $CYCLOCK_TEST_SYSROOT (bench/context.c): numbers that overflow
# any integer make their cache unknown (left out) or their count 1, never
# undefined behaviour (the ASan+UBSan build aborts on it); text with
# escape sequences is stored visible ("\x1b").
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
T=$CYCLOCK_TEST_TMP
rm -rf "${T:?}"/*
R=$T/root
c=$R/sys/devices/system/cpu/cpu0/cache
# index0: a fine L1d; index1: 2^63 K; index2: a level past any int;
# index3: a size past 2^64; index4: a shared list whose range overflows.
mkdir -p "$c"/index{0,1,2,3,4} "$R/proc" "$R/sys/devices/system/clocksource/clocksource0" \
	"$R/sys/devices/system/cpu/cpu0/cpufreq"
cache() {
	printf '%s\n' "$2" >"$c/index$1/level"
	printf '%s\n' "$3" >"$c/index$1/type"
	printf '%s\n' "$4" >"$c/index$1/size"
	printf '%s\n' "$5" >"$c/index$1/shared_cpu_list"
}
cache 0 1 Data 32K 0
cache 1 2 Unified 9223372036854775808K 0-1
cache 2 99999999999999999999 Unified 1024K 0
cache 3 3 Unified 18446744073709551617 0
cache 4 3 Unified 8M 0-99999999999999999999,1
printf 'model name\t: evil\033[31mcpu\nflags\t\t: x\n' >"$R/proc/cpuinfo"
printf 'fake\033]0;x\007\n' >"$R/sys/devices/system/clocksource/clocksource0/current_clocksource"
printf 'performance\n' >"$R/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"

CYCLOCK_TEST_SYSROOT=$R "$CYCLOCK" bench --quick --quiet --clocks monotonic \
	--json "$T/run.json" warm >"$T/out" 2>"$T/err" || fail "bench under the fake root: $(cat "$T/err")"
python3 - "$T/run.json" <<'PY' || cli_fail "the context (see above)"
import json, sys
ctx = json.load(open(sys.argv[1]))["context"]
caches = ctx["caches"]
assert [(c["level"], c["size"]) for c in caches] == [(1, 32768), (3, 8 << 20)], caches
assert caches[1]["num_sharing"] == 1, caches[1]
assert ctx["cpu_model"] == "evil\\x1b[31mcpu", ctx["cpu_model"]
assert ctx["clocksource"] == "fake\\x1b]0;x\\x07", ctx["clocksource"]
PY
LC_ALL=C grep -qP '[\x00-\x09\x0b-\x1f\x7f]' "$T/out" &&
	cli_fail "the table printed a control character"
cli_done
