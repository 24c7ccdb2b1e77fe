#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The measurement of one server's three instances, argv: server reps low
# sat workdir client mode=PID@TARGET... (TARGET: a port, or postgres'
# socket directory).
# Run by scripts/servers.sh.
import csv, glob, math, os, shutil, signal, socket, statistics, subprocess, sys, tempfile, time

MODES = ["none", "default", "relaxed"]
PERIOD_NS = 20_000_000  # the low load: one request per 20 ms
server, reps, low_s, sat_s, work, client = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                            int(sys.argv[4]), sys.argv[5], sys.argv[6])
inst = {}
for a in sys.argv[7:]:
    m, rest = a.split("=", 1)
    pid, target = rest.split("@", 1)
    inst[m] = (int(pid), target)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))

def pids(root):  # root and its descendants
    kids = {}
    for d in os.listdir("/proc"):
        try:
            with open(f"/proc/{d}/stat") as f:
                kids.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(d))
        except (OSError, ValueError, IndexError):  # not a process, or gone
            pass
    out, todo = [], [root]
    while todo:
        out.append(todo.pop())
        todo += kids.get(out[-1], [])
    return out

def cpu(root):  # {pid: ns on a CPU, all its threads}
    t = {}
    for p in pids(root):
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{p}/task/{task}/schedstat") as f:
                    t[p] = t.get(p, 0) + int(f.read().split()[0])
            except (OSError, ValueError):
                pass
    return t

def used(before, after):  # a process started in between counts from 0; one gone is lost
    return sum(v - before.get(p, 0) for p, v in after.items())

def check_preload(m, root):
    for p in pids(root):
        try:
            with open(f"/proc/{p}/maps") as f:
                maps = f.read()
        except OSError:
            continue
        mapped = "libcyclock-preload" in maps
        if not maps:  # exiting (a backend of the warm-up's), its memory gone
            continue
        if mapped != (m != "none"):
            sys.exit(f"servers: {server} {m}: process {p}: libcyclock-preload "
                     f"{'' if mapped else 'not '}mapped")

def pct(xs, q):  # nearest rank
    xs = sorted(xs)
    return xs[max(0, math.ceil(q * len(xs)) - 1)]

def run(args, during=lambda: None):  # client args run, during() meanwhile: (stdout, its value)
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        r = during()
        out, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode:
        sys.exit(f"servers: {os.path.basename(args[0])} exited {p.returncode}: {err.strip()[-400:]}")
    return out, r

def connect(port):  # waits for a server just started, 10 s at most
    for i in range(100):
        try:
            s = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return s
        except ConnectionRefusedError:
            time.sleep(0.1)
    sys.exit(f"servers: {server} on port {port}: not answering")

def exchange(s, req, complete):
    s.sendall(req)
    buf = b""
    while not complete(buf):
        b = s.recv(65536)
        if not b:
            raise ConnectionError(f"{server}: connection closed")
        buf += b
    return buf

VALUE = b"v" * 100
REDIS = (b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", lambda b: len(b) >= 108, b"$100\r\n" + VALUE + b"\r\n")

def http_complete(buf):
    h = buf.find(b"\r\n\r\n")
    if h < 0:
        return False
    for line in buf[:h].split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            return len(buf) >= h + 4 + int(v)
    raise ValueError(f"{server}: no Content-Length")

HTTP = (b"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", http_complete, b"HTTP/1.1 200 ")

def paced(pid, port):  # the low load: (CPU ns, requests, seconds, p50 ns, p99 ns)
    req, complete, want = REDIS if server == "redis" else HTTP
    s = connect(port)
    for _ in range(20):  # and the first replies checked
        if not exchange(s, req, complete).startswith(want):
            sys.exit(f"servers: {server}: unexpected reply")
    n, lat = low_s * 1_000_000_000 // PERIOD_NS, []
    before = cpu(pid)
    t0 = time.perf_counter_ns()
    for i in range(n):
        d = t0 + i * PERIOD_NS - time.perf_counter_ns()
        if d > 0:
            time.sleep(d / 1e9)
        a = time.perf_counter_ns()
        exchange(s, req, complete)
        lat.append(time.perf_counter_ns() - a)
    t1 = time.perf_counter_ns()
    after = cpu(pid)
    s.close()
    return used(before, after), n, (t1 - t0) / 1e9, pct(lat, .5), pct(lat, .99)

def redis_bench(port, n):  # (requests/s, p50 ns, p99 ns)
    out, _ = run([client, "-h", "127.0.0.1", "-p", port, "-c", "4", "-n", str(n), "--csv", "GET", "k"])
    row = list(csv.reader(out.splitlines()))[-1]  # test, rps, avg, min, p50, p95, p99, max (ms)
    return float(row[1]), float(row[4]) * 1e6, float(row[6]) * 1e6

LUA = os.path.join(work, "wrk-done.lua")
def wrk(port, seconds):  # (requests, seconds, p50 ns, p99 ns)
    out, _ = run([client, "-t", "2", "-c", "4", "-d", f"{seconds}s", "-s", LUA,
                  f"http://127.0.0.1:{port}/index.html"])
    n, us, p50, p99, errors = map(int, [l for l in out.splitlines() if l.startswith("wrk ")][-1].split()[1:])
    if errors:
        sys.exit(f"servers: wrk: {errors} errors")
    return n, us / 1e6, p50 * 1000, p99 * 1000

def pgbench(sock, seconds, extra, log=None):
    args = [client, "-h", sock, "-p", "5432", "-U", "postgres", "-n", "-S", "-M", "prepared",
            "-T", str(seconds)] + extra + (["-l", f"--log-prefix={log}"] if log else [])
    return args + ["postgres"]

def pg(pid, sock, low):  # both loads: (CPU ns, requests, seconds, p50 ns, p99 ns)
    sec = low_s if low else sat_s
    d = tempfile.mkdtemp(dir=work)
    extra = ["-c", "1", "-j", "1", f"--rate={1e9 / PERIOD_NS:g}"] if low else ["-c", "4", "-j", "2"]
    def window():  # the middle of the run: the backends connected and alive
        time.sleep(0.5)
        b, w0 = cpu(pid), time.time_ns() // 1000
        time.sleep(sec)
        a, w1 = cpu(pid), time.time_ns() // 1000
        return used(b, a), w0, w1
    _, (c, w0, w1) = run(pgbench(sock, sec + 1, extra, f"{d}/tx"), window)
    lat = []  # log: client tx time(us) script epoch(s) us [lag(us)], at the end of each
    for f in glob.glob(f"{d}/tx.*"):
        with open(f) as fh:
            for x in map(str.split, fh):
                if w0 <= int(x[4]) * 1_000_000 + int(x[5]) <= w1:
                    lat.append((int(x[2]) - (int(x[6]) if low else 0)) * 1000)
    shutil.rmtree(d)
    if not lat:
        sys.exit("servers: pgbench: no transaction in the window")
    return c, len(lat), (w1 - w0) / 1e6, pct(lat, .5), pct(lat, .99)

nsat = 0
def measure(load, m):
    pid, target = inst[m]
    if server == "postgres":
        return pg(pid, target, load == "low")
    if load == "low":
        return paced(pid, target)
    before = cpu(pid)
    if server == "redis":
        rps, p50, p99 = redis_bench(target, nsat)
        n, secs = nsat, nsat / rps
    else:
        n, secs, p50, p99 = wrk(target, sat_s)
    return used(before, cpu(pid)), n, secs, p50, p99

def warm_up():  # and the preload checked in each instance, redis' key set
    global nsat
    if server == "nginx":
        with open(LUA, "w") as f:
            f.write('done = function(s, lat, req)\n  local e = s.errors\n'
                    '  io.write(string.format("wrk %d %d %d %d %d\\n", s.requests, s.duration,\n'
                    '    lat:percentile(50), lat:percentile(99),'
                    ' e.connect + e.read + e.write + e.status + e.timeout))\nend\n')
    for m in MODES:
        pid, target = inst[m]
        if server == "redis":
            s = connect(target)
            exchange(s, b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\n" + VALUE + b"\r\n", lambda b: b.endswith(b"\r\n"))
            s.close()
            rps = redis_bench(target, 20000)[0]
            if m == "none":
                nsat = max(1000, round(rps * sat_s))
        elif server == "nginx":
            connect(target).close()
            wrk(target, 1)
        else:
            run(pgbench(target, 1, ["-c", "4", "-j", "2"]))
        check_preload(m, pid)

warm_up()
print(f"preload mapped in every process of the default and relaxed instances, in none of none's")
res = {}
t0 = time.monotonic()
for r in range(reps):
    order = MODES[r % 3:] + MODES[:r % 3]
    for load in ("low", "saturating"):
        for m in order:
            c, n, secs, p50, p99 = measure(load, m)
            res.setdefault((load, m), []).append((c / n / 1e3, n / secs, p50 / 1e3, p99 / 1e3, n))
    print(f"servers: {server}: repetition {r + 1}/{reps}, {time.monotonic() - t0:.0f} s", file=sys.stderr)

def cell(xs, fmt):
    return f"{statistics.median(xs):{fmt}} ({min(xs):{fmt}}..{max(xs):{fmt}})"
print("\n| load | mode | CPU/request (µs) | vs none | requests/s | p50 (µs) | p99 (µs) | requests |")
print("|---|---|---|---|---|---|---|---|")
for load in ("low", "saturating"):
    for m in MODES:
        rs = res[load, m]
        col = lambda i: [x[i] for x in rs]
        vs = "" if m == "none" else cell([a[0] / b[0] for a, b in zip(rs, res[load, "none"])], ".3f")
        print(f"| {load} | {m} | {cell(col(0), '.2f')} | {vs} | {cell(col(1), '.0f')} "
              f"| {cell(col(2), '.0f')} | {cell(col(3), '.0f')} | {statistics.median(col(4)):.0f} |")
print(f"\n{reps} repetitions in {time.monotonic() - t0:.0f} s; median (min..max) over them; vs none: "
      "CPU/request over none's in the same repetition; requests: the median measured")
