#!/usr/bin/env python3
"""The clocks read under a hardened unit of test_units.sh's.

  units_clocks.py SECONDS

Reads CLOCK_MONOTONIC, MONOTONIC_RAW and BOOTTIME, and time.time_ns()
(REALTIME), for SECONDS from three threads, in bursts with gaps of 0 to
15 ms: none goes back on a thread, and MONOTONIC stays within 1 ms of the
kernel's, read by its system call (ctypes' syscall(): no callback, so
nothing MemoryDenyWriteExecute= refuses).  Prints one line, "clocks: ...",
and exits 0 if all held and the preload is mapped here, 1 otherwise.
"""
import ctypes
import sys
import threading
import time

SYS_clock_gettime = 228  # x86-64
CLOCKS = [time.CLOCK_MONOTONIC, time.CLOCK_MONOTONIC_RAW, time.CLOCK_BOOTTIME]
libc = ctypes.CDLL(None, use_errno=True)


class Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


def kernel_monotonic():
    ts = Timespec()
    if libc.syscall(SYS_clock_gettime, time.CLOCK_MONOTONIC, ctypes.byref(ts)) != 0:
        raise OSError(ctypes.get_errno(), "clock_gettime")
    return ts.sec * 10**9 + ts.nsec


def reader(secs, reads, problems, lock):
    last, n, end = [0] * len(CLOCKS), 0, time.monotonic() + secs
    while time.monotonic() < end:
        for i, c in enumerate(CLOCKS):
            v = time.clock_gettime_ns(c)
            if v < last[i]:
                with lock:
                    problems.append("clock %d went back %d ns" % (c, last[i] - v))
            last[i] = v
        time.time_ns()
        n += 1
        if n % 5000 == 0:
            k0 = kernel_monotonic()
            v = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
            k1 = kernel_monotonic()
            if not k0 - 10**6 <= v <= k1 + 10**6:
                with lock:
                    problems.append("MONOTONIC %d ns off the kernel's" % (v - k0 if v < k0 else v - k1))
            time.sleep((n // 5000 % 4) * 0.005)
    with lock:
        reads[0] += n * (len(CLOCKS) + 1)


def main():
    secs = float(sys.argv[1])
    loaded = "libcyclock-preload.so" in open("/proc/self/maps").read()
    reads, problems, lock = [0], [], threading.Lock()
    threads = [threading.Thread(target=reader, args=(secs, reads, problems, lock)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("clocks: %d reads in %.0f s from 3 threads, preload %s, %s" % (
        reads[0], secs, "mapped" if loaded else "NOT mapped",
        "; ".join(problems[:3]) or "monotonic, within 1 ms of the kernel's"))
    sys.exit(0 if loaded and not problems else 1)


if __name__ == "__main__":
    main()
