#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The measurement of one start of a server's three instances, argv: server
# reps low sat window workdir client part parts mode=PID@TARGET... (TARGET:
# a port, or postgres' socket directory): the low load for low seconds, its
# blocks kept in workdir/SERVER.PART.json; after the last part, the
# saturating load and the report.  Environment: SERVERS_AA=1, no instance
# preloaded (the A/A check); SERVERS_WINDOWS=DIR, the low load's windows
# added to DIR/SERVER.csv.  Run by scripts/servers.sh, whose header says
# what is measured and how.
import csv, glob, json, math, os, random, shutil, signal, socket, statistics, struct, subprocess, \
    sys, tempfile, time

MODES = ["none", "default", "relaxed"]
PERIOD_NS = 20_000_000  # the low load: one request per 20 ms to each instance
STEP_NS = PERIOD_NS // len(MODES)  # the instances' requests staggered by this
BLOCK = len(MODES) + 1  # the low load's windows a block: one a mode's order, then one idle
# Student's t, two-sided 95 %, by degrees of freedom (servers.sh allows 2-21 parts)
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
       2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086]
AA, WINDOWS = os.environ.get("SERVERS_AA") == "1", os.environ.get("SERVERS_WINDOWS")
server, reps, low_s, sat_s, window_s, work, client, part, parts = (
    sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]),
    sys.argv[6], sys.argv[7], int(sys.argv[8]), int(sys.argv[9]))
inst = {}
for a in sys.argv[10:]:
    m, rest = a.split("=", 1)
    pid, target = rest.split("@", 1)
    inst[m] = (int(pid), target)
START = MODES[(part - 1) % 3:] + MODES[:(part - 1) % 3]  # the order they were started in
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))

def children():  # {pid: [its children]}, every process now
    kids = {}
    for d in os.listdir("/proc"):
        try:
            with open(f"/proc/{d}/stat") as f:
                kids.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(d))
        except (OSError, ValueError, IndexError):  # not a process, or gone
            pass
    return kids

def pids(root, kids=None):  # root and its descendants
    kids = children() if kids is None else kids
    out, todo = [], [root]
    while todo:
        out.append(todo.pop())
        todo += kids.get(out[-1], [])
    return out

def cpu(root, kids=None):  # {pid: ns on a CPU, all its threads}
    t = {}
    for p in pids(root, kids):
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

def snapshot():  # cpu() of the three instances, one look at /proc
    kids = children()
    return {m: cpu(inst[m][0], kids) for m in MODES}

def used(before, after):  # a process started in between counts from 0; one gone is lost
    return sum(v - before.get(p, 0) for p, v in after.items())

def mapped(p):  # whether process p maps the preload; None: gone, or exiting (its memory gone)
    try:
        with open(f"/proc/{p}/maps") as f:
            maps = f.read()
    except OSError:
        return None
    return "libcyclock-preload" in maps if maps else None

def check_preload(m, root):
    want = m != "none" and not AA
    for p in pids(root):
        if mapped(p) in (None, want):
            continue
        time.sleep(0.5)  # a process caught forking or exiting once read so; a mismatch stays
        if mapped(p) not in (None, want):
            sys.exit(f"servers: {server} {m}: process {p}: libcyclock-preload "
                     f"{'not ' if want else ''}mapped")

def pct(xs, q):  # nearest rank
    xs = sorted(xs)
    return xs[max(0, math.ceil(q * len(xs)) - 1)]

def trimmed(xs):  # the mean of the middle 60 %
    xs, k = sorted(xs), len(xs) // 5
    return statistics.fmean(xs[k:len(xs) - k])

def estimate(xs):  # (mean, its 95 % interval's half-width) of the parts' figures: Student's t
    return statistics.fmean(xs), T95[len(xs) - 2] * statistics.stdev(xs) / math.sqrt(len(xs))

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

def connect(addr, family=socket.AF_INET):  # waits for a server just started, 10 s at most
    for i in range(100):
        try:
            s = socket.socket(family)
            s.settimeout(10)
            s.connect(addr)
            if family == socket.AF_INET:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return s
        except (ConnectionRefusedError, FileNotFoundError):
            s.close()
            time.sleep(0.1)
    sys.exit(f"servers: {server} at {addr}: not answering")

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

# PostgreSQL's protocol 3, as libpq speaks it for pgbench -S -M prepared:
# the statement parsed once, then Bind, Describe, Execute, Sync a request.
PG_SELECT = b"SELECT abalance FROM pgbench_accounts WHERE aid = $1"

def pg_msg(kind, body=b""):
    return kind + struct.pack("!i", len(body) + 4) + body

def pg_reply(s):  # the message types up to ReadyForQuery; an ErrorResponse ends the run
    buf, kinds = b"", []
    while True:
        while len(buf) >= 5 and len(buf) >= 1 + struct.unpack("!i", buf[1:5])[0]:
            n = 1 + struct.unpack("!i", buf[1:5])[0]
            kind, body, buf = buf[:1], buf[5:n], buf[n:]
            if kind == b"E" or (kind == b"R" and body[:4] != b"\0\0\0\0"):
                sys.exit(f"servers: postgres: {kind.decode()} {body!r}")
            kinds.append(kind)
            if kind == b"Z":
                return kinds
        b = s.recv(65536)
        if not b:
            raise ConnectionError("postgres: connection closed")
        buf += b

def pg_client(sockdir):  # () -> one request, its reply checked
    s = connect(f"{sockdir}/.s.PGSQL.5432", socket.AF_UNIX)
    s.sendall(struct.pack("!ii", 8 + 33, 196608) + b"user\0postgres\0database\0postgres\0\0")
    pg_reply(s)
    s.sendall(pg_msg(b"P", b"s\0" + PG_SELECT + b"\0" + struct.pack("!hi", 1, 23)) + pg_msg(b"S"))
    pg_reply(s)
    aids = random.Random(1)  # the same accounts, in the same order, on every instance
    def one():
        aid = str(aids.randint(1, 100000)).encode()
        s.sendall(pg_msg(b"B", b"\0s\0" + struct.pack("!hhi", 0, 1, len(aid)) + aid + b"\0\0")
                  + pg_msg(b"D", b"P\0") + pg_msg(b"E", b"\0\0\0\0\0") + pg_msg(b"S"))
        if b"D" not in pg_reply(s):
            sys.exit("servers: postgres: no row")
    return one

def request(target):  # () -> one request to the instance, its reply checked
    if server == "postgres":
        return pg_client(target)
    req, complete, want = REDIS if server == "redis" else HTTP
    s = connect(("127.0.0.1", int(target)))
    def one():
        if not exchange(s, req, complete).startswith(want):
            sys.exit(f"servers: {server}: unexpected reply")
    return one

def until(t):
    d = t - time.perf_counter_ns()
    if d > 0:
        time.sleep(d / 1e9)

# The low load, the three instances at once: (requests to each in a busy window, the blocks
# [(CPU ns in its busy windows, in its idle one), each {mode: ns}], the windows [(idle,
# {mode: CPU ns})], the round trips {mode: [ns]}).
def low():
    one = {m: request(inst[m][1]) for m in START}
    for m in START:
        for _ in range(20):
            one[m]()
    per, lat, wins = window_s * 1_000_000_000 // PERIOD_NS, {m: [] for m in MODES}, []
    nblocks = low_s // (BLOCK * window_s)
    t0 = time.perf_counter_ns() + PERIOD_NS
    until(t0 - STEP_NS // 2)
    prev = snapshot()
    for k in range(nblocks * BLOCK):
        b, j = divmod(k, BLOCK)  # block b's window j: the busy ones in orders b, b+1, b+2
        order, idle = MODES[(b + j) % 3:] + MODES[:(b + j) % 3], j == BLOCK - 1
        base = t0 + k * per * PERIOD_NS
        for i in range(0 if idle else per):
            for n, m in enumerate(order):
                until(base + i * PERIOD_NS + n * STEP_NS)
                a = time.perf_counter_ns()
                one[m]()
                lat[m].append(time.perf_counter_ns() - a)
        until(base + per * PERIOD_NS - STEP_NS // 2)  # half a step from any request
        now = snapshot()
        wins.append((idle, {m: used(prev[m], now[m]) for m in MODES}))
        prev = now
        if j == BLOCK - 1 and b % 10 == 9:
            print(f"servers: {server}: low load, {b + 1} blocks of {nblocks}", file=sys.stderr)
    blocks = [({m: sum(w[m] for _, w in wins[i:i + BLOCK - 1]) for m in MODES}, wins[i + BLOCK - 1][1])
              for i in range(0, len(wins), BLOCK)]
    return per, blocks, wins, lat

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

def pgbench(sock, seconds, log=None):  # -c 4 -j 2, closed loop
    return [client, "-h", sock, "-p", "5432", "-U", "postgres", "-n", "-S", "-M", "prepared",
            "-T", str(seconds), "-c", "4", "-j", "2"] + \
        (["-l", f"--log-prefix={log}"] if log else []) + ["postgres"]

def pg(pid, sock):  # saturating: (CPU ns, requests, seconds, p50 ns, p99 ns)
    d = tempfile.mkdtemp(dir=work)
    def window():  # the middle of the run: the backends connected and alive
        time.sleep(0.5)
        b, w0 = cpu(pid), time.time_ns() // 1000
        time.sleep(sat_s)
        a, w1 = cpu(pid), time.time_ns() // 1000
        return used(b, a), w0, w1
    _, (c, w0, w1) = run(pgbench(sock, sat_s + 1, f"{d}/tx"), window)
    lat = []  # log: client tx time(us) script epoch(s) us, at the end of each
    for f in glob.glob(f"{d}/tx.*"):
        with open(f) as fh:
            for x in map(str.split, fh):
                if w0 <= int(x[4]) * 1_000_000 + int(x[5]) <= w1:
                    lat.append(int(x[2]) * 1000)
    shutil.rmtree(d)
    if not lat:
        sys.exit("servers: pgbench: no transaction in the window")
    return c, len(lat), (w1 - w0) / 1e6, pct(lat, .5), pct(lat, .99)

nsat = 0
def saturating(m):  # (CPU ns, requests, seconds, p50 ns, p99 ns)
    pid, target = inst[m]
    if server == "postgres":
        return pg(pid, target)
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
    for m in START:
        pid, target = inst[m]
        if server == "redis":
            s = connect(("127.0.0.1", int(target)))
            exchange(s, b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\n" + VALUE + b"\r\n", lambda b: b.endswith(b"\r\n"))
            s.close()
            rps = redis_bench(target, 20000)[0]
            if m == "none":
                nsat = max(1000, round(rps * sat_s))
        elif server == "nginx":
            connect(("127.0.0.1", int(target))).close()
            wrk(target, 1)
        else:
            run(pgbench(target, 1))
        check_preload(m, pid)

def verdict(r, h):  # of a ratio r ± h
    if r - h <= 1 <= r + h:
        return f"cannot tell at ±{100 * h:.1f} %"
    more = "more" if r > 1 else "less"
    return f"the instances differ, this one costs {more} (A/A: none preloaded)" if AA else \
        f"the preload costs {more}"

def report_low():
    ps = []
    for p in range(1, parts + 1):
        with open(f"{work}/{server}.{p}.json") as f:
            ps.append(json.load(f))
    n = ps[0]["per"] * (BLOCK - 1)  # requests to each instance in a block
    print(f"\nlow load, the three instances at once: {parts} parts, the instances started anew for "
          f"each, of {len(ps[0]['blocks'])} blocks of {BLOCK} windows of {window_s} s ({n} requests to "
          f"each instance in a block), {sum(p['seconds'] for p in ps):.0f} s in all")
    print("\n| mode | CPU/request (µs) | vs none | spread | idle CPU (µs/20 ms) | idle less none's "
          "| p50 (µs) | p99 (µs) |")
    print("|---|---|---|---|---|---|---|---|")
    said = []
    idle_us = lambda ns: ns * PERIOD_NS / window_s / 1e12  # an idle window's CPU ns, µs per 20 ms
    each = lambda f: estimate([trimmed([f(*b) for b in p["blocks"]]) for p in ps])  # a part's, then all
    for m in MODES:
        c, i = each(lambda b, w: b[m] / n / 1e3), each(lambda b, w: idle_us(w[m]))
        lat = [x for p in ps for x in p["lat"][m]]
        cells = [m, f"{c[0]:.2f} ±{c[1]:.2f}", "", "", f"{i[0]:.2f} ±{i[1]:.2f}", "",
                 f"{pct(lat, .5) / 1e3:.0f}", f"{pct(lat, .99) / 1e3:.0f}"]
        if m != "none":
            r, d = each(lambda b, w: b[m] / b["none"]), each(lambda b, w: idle_us(w[m] - w["none"]))
            cells[2:4] = f"{r[0]:.3f} ±{r[1]:.3f}", f"±{100 * r[1]:.1f} %"
            cells[5] = f"{d[0]:+.2f} ±{d[1]:.2f}"
            said.append(f"{m}: {100 * (r[0] - 1):+.1f} % CPU per request ±{100 * r[1]:.1f} %: "
                        f"{verdict(*r)}; idle {d[0]:+.2f} ±{d[1]:.2f} µs per 20 ms")
        print(f"| {' | '.join(cells)} |")
    print(f"\nin each part the mean of the middle 60 % of its blocks, then the mean over the parts ±"
          f" its 95 % interval's half-width (Student's t, {parts} parts); vs none: the "
          "instance's CPU in a block over none's in the same block; spread: the ratio's half-width; "
          "idle: the blocks' windows without requests, their CPU per 20 ms; p50, p99: the client's "
          "round trip, every request")
    print("\n".join(said))

def cell(xs, fmt):
    return f"{statistics.median(xs):{fmt}} ({min(xs):{fmt}}..{max(xs):{fmt}})"

def report_saturating(res):
    print("\n| load | mode | CPU/request (µs) | vs none | requests/s | p50 (µs) | p99 (µs) | requests |")
    print("|---|---|---|---|---|---|---|---|")
    for m in MODES:
        rs = res[m]
        col = lambda i: [x[i] for x in rs]
        vs = "" if m == "none" else cell([a[0] / b[0] for a, b in zip(rs, res["none"])], ".3f")
        print(f"| saturating | {m} | {cell(col(0), '.2f')} | {vs} | {cell(col(1), '.0f')} "
              f"| {cell(col(2), '.0f')} | {cell(col(3), '.0f')} | {statistics.median(col(4)):.0f} |")
    print(f"\n{reps} repetitions, one mode at a time; median (min..max) over them; vs none: "
          "CPU/request over none's in the same repetition; requests: the median measured")

def write_windows(wins):  # the low load's windows, each instance's CPU ns in each
    with open(os.path.join(WINDOWS, f"{server}.csv"), "w" if part == 1 else "a", newline="") as f:
        w = csv.writer(f)
        if part == 1:
            w.writerow(["part", "block", "window", "idle", "first"] + [f"{m}_ns" for m in MODES])
        for k, (idle, c) in enumerate(wins):
            b, j = divmod(k, BLOCK)
            w.writerow([part, b, j, int(idle), "" if idle else MODES[(b + j) % 3]] + [c[m] for m in MODES])

warm_up()
t0 = time.monotonic()
per, blocks, wins, lat = low()
with open(f"{work}/{server}.{part}.json", "w") as f:
    json.dump({"per": per, "blocks": blocks, "lat": lat, "seconds": time.monotonic() - t0}, f)
if WINDOWS:
    write_windows(wins)
print(f"servers: {server}: low load, part {part}/{parts} done", file=sys.stderr)
if part < parts:
    sys.exit(0)
print("A/A check: no instance preloaded (checked at each start), default and relaxed are none by "
      "other names" if AA else
      "preload mapped in every process of the default and relaxed instances, in none of none's, "
      "checked at each start")
report_low()
res, t0 = {}, time.monotonic()
for r in range(reps):
    for m in MODES[r % 3:] + MODES[:r % 3]:
        c, n, secs, p50, p99 = saturating(m)
        res.setdefault(m, []).append((c / n / 1e3, n / secs, p50 / 1e3, p99 / 1e3, n))
    print(f"servers: {server}: saturating, repetition {r + 1}/{reps}, {time.monotonic() - t0:.0f} s",
          file=sys.stderr)
report_saturating(res)
