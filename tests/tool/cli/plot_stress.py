#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""plot_stress.py [bars]: a run for "cyclock plot" that crowds every panel,
as JSON on standard output, for test_plot_layout.sh and test_plot_png.sh:
every clock the tool knows in warm (throughput and latency, ratios, noisy
marks), names and a CPU model as long as a file may make them (multibyte
ones too), figures from 0.001 ns to 10^17 ns (21 decades on one axis) and
some left out, ten lines over 14 thread counts, and a histogram per
clock; with "bars", resolution as bars (no histograms) instead."""
import json
import sys

CLOCKS = """cyclock_now cyclock_now_inline cyclock_now_relaxed cyclock_raw cyclock_realtime
cyclock_boottime cyclock_coarse cyclock_local cyclock_cycles cyclock_now_relaxed_inline
cyclock_raw_inline cyclock_realtime_inline cyclock_boottime_inline cyclock_coarse_inline
cyclock_local_inline cxx_steady_clock cxx_system_clock engine_read engine_read_inline
engine_percpu engine_percpu_unstable rdtsc rdtscp lfence_rdtsc cntvct isb_cntvct ordered_ns
monotonic monotonic_raw realtime boottime monotonic_coarse realtime_coarse thread_cputime
process_cputime times gettimeofday syscall_monotonic""".split()
# Names of 47 bytes, the most a label holds: the widest letters, a
# multibyte script, markup to escape.
ODD = ["W" * 47, "時計" * 7 + "zürich_clock", "a<b&c\"'" + "m" * 40]


def result(name, ns, **extra):
    scenario, clock = name.split("/")[:2]
    r = {"name": name + "_median", "run_name": name, "run_type": "aggregate",
         "aggregate_name": "median", "repetitions": 3, "threads": 1, "iterations": 3,
         "real_time": ns, "cpu_time": ns, "time_unit": "ns", "scenario": scenario,
         "clock": clock, "variant": name.split("/")[2] if name.count("/") > 1 else "",
         "noisy": False, "higher_is_better": False}
    r.update(extra)
    return r


def main():
    bars = sys.argv[1:] == ["bars"]
    clocks = CLOCKS + ODD
    out = []
    for i, c in enumerate(clocks):
        ns = 10 ** (i % 9 - 1) * (1 + i % 7) / 1.7
        for variant, f in (("throughput", 1), ("latency", 1.3)):
            out.append(result(f"warm/{c}/{variant}", ns * f, x_floor=ns * f / 19.9,
                              noisy=i % 3 == 0))
    out.append(result("warm/tiny_clock/throughput", 0.001, x_floor=0.00005))
    out.append(result("warm/huge_clock/throughput", 1e17, x_floor=123456789.0))
    out.append(result("warm/zero_clock/throughput", 0.0))
    for i, c in enumerate(CLOCKS[:7] + ODD):
        for t in (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128):
            r = result(f"scale/{c}/threads:{t}", (5 + 40 * i) * (1 + t / 50))
            r["variant"] = ""
            out.append(r)
    for i, c in enumerate(CLOCKS[::3] + ODD):
        hist = {f"hist_{10 ** k:g}": (k * 37 + i) % 11 for k in range(-3, 16, 2)}
        out.append(result(f"resolution/{c}", 10 ** (i % 12 - 2), **({} if bars else hist)))
    ctx = {"date": "2024-05-01T10:00:00+00:00", "cpu_model": "Überbreite CPU " + "W" * 120,
           "arch": "x86_64", "kernel": "Linux 6.1.0-" + "long-version-" * 20,
           "clocksource": "tsc", "floor": "ordered_ns", "ordered_read": "rdtscp"}
    json.dump({"context": ctx, "benchmarks": out}, sys.stdout, ensure_ascii=False, indent=0)


main()
