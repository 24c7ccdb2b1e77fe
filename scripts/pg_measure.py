#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The measurement: one psycopg2 session per server, argv: reps socket...
# Run by scripts/pg_timing.sh.
import json, statistics, sys, time
import psycopg2

MODES = ["none", "default", "relaxed"]
reps, socks = int(sys.argv[1]), dict(zip(MODES, sys.argv[2:]))
BASE = {"max_parallel_workers_per_gather": 0, "enable_hashjoin": "on",
        "enable_mergejoin": "on", "enable_nestloop": "on"}
PLANS = [  # name, query, settings over BASE, the node the plan must have
    ("count", "select count(*) from big", {}, "Seq Scan"),
    ("hash join", "select count(*) from big b join small s on s.id = b.k",
     {"enable_mergejoin": "off", "enable_nestloop": "off"}, "Hash Join"),
    ("nested loop", "select * from nl",
     {"enable_hashjoin": "off", "enable_mergejoin": "off"}, "Materialize"),
    ("sort", "select v from big order by v", {}, "Sort"),
    ("parallel count", "select count(*) from big",
     {"max_parallel_workers_per_gather": 2}, "Gather"),
]

def connect(mode):
    conn = psycopg2.connect(host=socks[mode], port=5432, dbname="postgres", user="postgres")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("select pg_backend_pid()")
    pid = cur.fetchone()[0]
    with open(f"/proc/{pid}/maps") as f:
        mapped = "libcyclock-preload" in f.read()
    # The backend's environment as a child of it sees it: its own
    # /proc/PID/environ holds the process title (postgres writes it there).
    cur.execute("create temp table env (v text);"
                "copy env from program 'printenv CYCLOCK_PRELOAD_RELAXED; true'")
    cur.execute("select count(*) from env where v = '1'")
    relaxed = cur.fetchone()[0] > 0
    if mapped != (mode != "none") or relaxed != (mode == "relaxed"):
        sys.exit(f"pg_timing: {mode} server, backend {pid}: libcyclock-preload "
                 f"{'' if mapped else 'not '}in /proc/{pid}/maps, CYCLOCK_PRELOAD_RELAXED "
                 f"{'' if relaxed else 'un'}set")
    return cur

def explain(cur, plan, timing):
    sets = {**BASE, **plan[2]}
    cur.execute("".join(f"set {k} = {v};" for k, v in sets.items()))
    cur.execute(f"explain (analyze, timing {timing}, format json) {plan[1]}")
    doc = cur.fetchone()[0]
    return (json.loads(doc) if isinstance(doc, str) else doc)[0]

def nodes(n):
    yield n
    for c in n.get("Plans", []):
        yield from nodes(c)

def reads(root):  # two per call of each node (a Hash node is called once)
    return sum(2 * n["Actual Loops"] * (1 if n["Node Type"] == "Hash" else n["Actual Rows"] + 1)
               for n in nodes(root))

def shape(doc, want):
    ns = list(nodes(doc["Plan"]))
    s = " > ".join("Parallel " * n.get("Parallel Aware", False) + n["Node Type"]
                   + (f" ({n['Workers Launched']} workers)" if "Workers Launched" in n else "")
                   for n in ns)
    s += "" if want in s else f"  (NOT the plan meant: no {want})"
    disk = [n for n in ns if n.get("Sort Space Type", "Memory") != "Memory"
            or n.get("Hash Batches", 1) > 1]
    return s + "  (NOT in memory: raise work_mem)" * bool(disk)

curs = {m: connect(m) for m in MODES}
print("preload mapped in the default and relaxed servers' backends, not in none's")
nread = {}
for plan in PLANS:  # a warm-up run, both ways, on each server
    for m in MODES:
        explain(curs[m], plan, "off")
        doc = explain(curs[m], plan, "on")
    nread[plan[0]] = reads(doc["Plan"])
    print(f"{plan[0]}: {shape(doc, plan[3])}; {nread[plan[0]] / 1e6:.1f} M clock reads")

t = {}
t0 = time.monotonic()
for r in range(reps):
    order = MODES[r % 3:] + MODES[:r % 3]
    for plan in PLANS:
        for m in order:
            for timing in ("on", "off") if r % 2 == 0 else ("off", "on"):
                doc = explain(curs[m], plan, timing)
                t.setdefault((plan[0], m, timing), []).append(doc["Execution Time"])
    print(f"pg_timing: repetition {r + 1}/{reps}, {time.monotonic() - t0:.0f} s",
          file=sys.stderr)

med = statistics.median
def quartiles(xs):
    return statistics.quantiles(xs, n=4, method="inclusive")
print("\n| plan | mode | TIMING ON | TIMING OFF | overhead (IQR) | per read "
      "| vs none (IQR) | removed |")
print("|---|---|---|---|---|---|---|---|")
for plan in PLANS:
    p = plan[0]
    over = {m: [a - b for a, b in zip(t[p, m, "on"], t[p, m, "off"])] for m in MODES}
    for m in MODES:
        q1, q2, q3 = quartiles(over[m])
        vs = removed = ""
        if m != "none":  # paired: the same repetition's none, seconds apart
            r1, r2, r3 = quartiles([a / (b or 1e-9) for a, b in zip(over[m], over["none"])])
            vs, removed = f"{r2:.3f} ({r1:.2f}..{r3:.2f})", f"{100 * (1 - r2):.1f} %"
        print(f"| {p} | {m} | {med(t[p, m, 'on']):.1f} ms | {med(t[p, m, 'off']):.1f} ms "
              f"| {q2:.1f} ms ({q1:.1f}..{q3:.1f}) | {q2 * 1e6 / nread[p]:.1f} ns "
              f"| {vs} | {removed} |")
print(f"\n{reps} repetitions in {time.monotonic() - t0:.0f} s.  per read: the overhead "
      "over the clock reads counted from the plan (the parallel count's spread over 3 "
      "processes); vs none: the median of the repetitions' overhead / none's")
