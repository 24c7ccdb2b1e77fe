# The cold scenario's eviction does not grow with the last-level cache:
# under a fake sysfs root ($CYCLOCK_TEST_SYSROOT, bench/context.c) whose
# last level is 32 MiB, 480 MiB and 2 GiB, "bench cold --quick" writes
# the same buffer and flushes the same bytes (its evict_bytes and
# flush_bytes), and its peak memory stays the same and under 256 MiB; so
# does the default run ("cyclock", info then bench --quick) on the 2 GiB
# one.  Times are printed, never compared: the machine is shared.  A
# sanitizer's own memory is above the bound, so there only the growth is
# checked.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
T=$CYCLOCK_TEST_TMP
rm -rf "${T:?}"/*

# root NAME LLC: a sysfs root whose CPU 0 has this machine's L1 and L2
# and a last level of LLC (sysfs's notation, "32768K").
root() {
	local c=$T/$1/sys/devices/system/cpu/cpu0/cache
	mkdir -p "$c"/index{0,1,2,3}
	cache() {
		printf '%s\n' "$2" >"$c/index$1/level"
		printf '%s\n' "$3" >"$c/index$1/type"
		printf '%s\n' "$4" >"$c/index$1/size"
		printf '0-1\n' >"$c/index$1/shared_cpu_list"
	}
	cache 0 1 Data 48K
	cache 1 1 Instruction 64K
	cache 2 2 Unified 2048K
	cache 3 3 Unified "$2"
}
root llc32m 32768K
root llc480m 491520K
root llc2g 2097152K

sanitized=0
grep -qaE '__(asan|tsan)_init' "$CYCLOCK" && sanitized=1

python3 - "$CYCLOCK" "$T" "$sanitized" <<'PY' || cli_fail "the cold eviction grew with the cache (see above)"
import json, os, subprocess, sys, time

tool, tmp, sanitized = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
BOUND = 256 << 10  # KiB

def run(root, args):
    """The tool under @root: (peak RSS in KiB, seconds); fails on an error."""
    env = dict(os.environ, CYCLOCK_TEST_SYSROOT=os.path.join(tmp, root))
    start = time.monotonic()
    with open(os.path.join(tmp, root + ".err"), "w") as err:
        p = subprocess.Popen([tool] + args, env=env, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
    secs = time.monotonic() - start
    assert os.waitstatus_to_exitcode(status) == 0, \
        f"{args} under {root}: exit {status}: " + open(os.path.join(tmp, root + ".err")).read()
    print(f"{root}: {' '.join(args[:3]) or 'the default run'}: "
          f"{usage.ru_maxrss >> 10} MiB peak, {secs:.1f} s")
    return usage.ru_maxrss, secs

def eviction(root):
    """Peak RSS of bench cold --quick under @root, and its eviction's sizes."""
    js = os.path.join(tmp, root + ".json")
    rss, _ = run(root, ["bench", "cold", "--quick", "--quiet", "--json", js])
    rows = [r for r in json.load(open(js))["benchmarks"] if r.get("scenario") == "cold"]
    assert rows, f"{root}: no cold rows"
    sizes = {(r.get("evict_bytes"), r.get("flush_bytes")) for r in rows}
    assert len(sizes) == 1, f"{root}: rows disagree on the eviction: {sizes}"
    assert sanitized or rss < BOUND, f"{root}: bench cold --quick peaked at {rss >> 10} MiB"
    return rss, sizes.pop()

# In this order, so that the old sweep (twice the cache) fails at 480 MiB
# without taking minutes and gigabytes at 2 GiB.
seen = {root: eviction(root) for root in ("llc32m", "llc480m", "llc2g")}
small = seen["llc32m"]
for root, (rss, sizes) in seen.items():
    assert sizes == small[1], f"{root}: eviction {sizes}, at 32 MiB {small[1]}"
    assert rss < small[0] + (64 << 10), f"{root}: {rss >> 10} MiB, at 32 MiB {small[0] >> 10}"
rss, _ = run("llc2g", [])
assert sanitized or rss < BOUND, f"the default run peaked at {rss >> 10} MiB"
PY
cli_done
