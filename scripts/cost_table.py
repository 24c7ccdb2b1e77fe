#!/usr/bin/env python3
"""docs/costs.md's table of what each clock costs, from a stored run.

    build/release/tools/cyclock/cyclock bench --json run.json
    scripts/cost_table.py run.json > table.md

One row per clock that the run's warm scenario measured: warm throughput
(the median of the repetitions) and its ratios to the floor and to the
vDSO, as the run computed them; cold, one call (median); two threads at
once (scale, median); the median step (resolution); and the warp test's
backward steps.  A figure the run does not have is "-".  Reads only what
`cyclock bench --json` writes (Google Benchmark's format, with cyclock's
fields); prints Markdown on standard output.
"""
import json
import sys


def fmt_ns(ns):
    """ns as the tool's tables print it: three significant digits."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:#.3g}".rstrip(".") + f" {unit}"
    return f"{ns:#.3g}".rstrip(".") + " ns"


def count(n):
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.0f}k" if n >= 1e3 else f"{n:.0f}"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: scripts/cost_table.py RUN.json")
    with open(sys.argv[1], encoding="utf-8") as f:
        run = json.load(f)
    median, one = {}, {}
    for b in run["benchmarks"]:
        if b.get("aggregate_name") == "median":
            median[b["run_name"]] = b
        elif b.get("run_type") == "iteration":
            one.setdefault(b["run_name"], b)
    ctx = run["context"]
    floor = ctx.get("floor", "the floor")
    print(f"| clock | warm, per call | x `{floor}` | x vDSO | cold, one call | "
          "2 threads at once | step (p50) | backward steps between CPUs |")
    print("|---|---|---|---|---|---|---|---|")
    for name, warm in median.items():
        if not name.startswith("warm/") or not name.endswith("/throughput"):
            continue
        clock = warm["clock"]
        cold = median.get(f"cold/{clock}")
        two = median.get(f"scale/{clock}/threads:2")
        step = one.get(f"resolution/{clock}")
        warp = one.get(f"warp/{clock}")
        cells = [
            f"`{clock}`",
            fmt_ns(warm["real_time"]),
            f"{warm['x_floor']:.2f}x" if "x_floor" in warm else "-",
            f"{warm['x_monotonic']:.2f}x" if "x_monotonic" in warm else "-",
            fmt_ns(cold["real_time"]) if cold else "-",
            fmt_ns(two["real_time"]) if two else "-",
            fmt_ns(step["step_p50_ns"]) if step and "step_p50_ns" in step else "-",
        ]
        if warp and "comparisons" in warp:
            back = warp.get("backward_steps", 0)
            cell = f"{count(back)} in {count(warp['comparisons'])}"
            if back:
                cell += f" (largest {fmt_ns(warp['real_time'])})"
            cells.append(cell)
        else:
            cells.append("-")
        print("| " + " | ".join(cells) + " |")
    print(f"\nFrom `{ctx.get('executable', 'cyclock')} bench` on {ctx.get('date', '?')}: "
          f"{ctx.get('cpu_model', '?')}, {ctx.get('num_cpus', '?')} CPUs, "
          f"{ctx.get('counter', '?')} at {ctx.get('counter_hz', 0) / 1e6:.0f} MHz, "
          f"ordered read {ctx.get('ordered_read', '?')}.")


if __name__ == "__main__":
    main()
