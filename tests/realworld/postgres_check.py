#!/usr/bin/python3
"""PostgreSQL's clocks against the client's, for tests/realworld/test_postgres.sh.

Connects over the Unix socket in --host to a cluster whose postmaster may
run under libcyclock-preload.so, and checks what a user of the server sees:

  first     fresh connections' now(), clock_timestamp() and backend_start
            at their first query lie within the client's CLOCK_REALTIME
            bracket (before - bound, after + bound)
  lock      clock_timestamp() read under pg_advisory_lock by concurrent
            sessions, warm ones (long-lived) and fresh ones (a new
            connection every 20 stamps), never goes back in lock order,
            nor do the server log's timestamps of the lines written under
            the lock
  sleep     pg_sleep(0.2) timed by clock_timestamp() inside the server is
            at least 0.2 s and within the client's round trip
  timeout   statement_timeout = 200 ms cancels pg_sleep(1) after 150-1000
            ms of the client's time
  explain   EXPLAIN ANALYZE's execution time is no longer than the
            client's CLOCK_MONOTONIC round trip

Every check but the warm sessions' runs on fresh connections: a backend
forked from an idle postmaster is where a timeline long past its horizon
shows.  Prints the figures, one line each, and "FAIL ..." lines; exits 0 if all hold, 1
otherwise.  The client (this process) must not run under the preload: its
clock is the kernel's.

Over 400 lines: one checker, its five checks sharing the connections
and the client's clock brackets.
"""

import argparse
import json
import os
import re
import sys
import threading
import time

import psycopg2
import psycopg2.errors

LOCK_KEY = 4242
STAMP_SQL = """
CREATE TABLE IF NOT EXISTS stamps (
    id bigserial PRIMARY KEY,
    phase text NOT NULL,
    pid int NOT NULL,
    ts_us bigint NOT NULL
);
CREATE OR REPLACE FUNCTION cyclock_stamp(p text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    -- The id (nextval), the timestamp and the log line are all taken
    -- while the lock is held: the id's order is the lock's order.
    PERFORM pg_advisory_lock({key});
    INSERT INTO stamps (phase, pid, ts_us)
        VALUES (p, pg_backend_pid(),
                (extract(epoch FROM clock_timestamp()) * 1000000)::bigint)
        RETURNING id INTO n;
    RAISE LOG 'cyclock-stamp % %', p, n;
    PERFORM pg_advisory_unlock({key});
END
$$;
""".format(key=LOCK_KEY)

# Timestamps as integer microseconds since the epoch, so nothing is
# rounded through a float or a Python datetime.
EPOCH_US = "(extract(epoch FROM {}) * 1000000)::bigint"


def rt_us():
    """The client's CLOCK_REALTIME (the kernel's), in microseconds."""
    return time.clock_gettime_ns(time.CLOCK_REALTIME) // 1000


def mono_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class Checker:
    def __init__(self, args):
        self.args = args
        self.failures = []

    def connect(self):
        conn = psycopg2.connect(host=self.args.host, port=self.args.port,
                                user="postgres", dbname="postgres",
                                connect_timeout=10)
        conn.autocommit = True
        return conn

    def fail(self, what):
        self.failures.append(what)
        print("FAIL %s: %s" % (self.args.phase, what), flush=True)

    def figure(self, text):
        print("  %-8s %s" % (self.args.phase, text), flush=True)

    def offset(self, value, lo, hi):
        """How far @value lies outside [lo, hi]: < 0 before, > 0 after."""
        if value < lo:
            return value - lo
        if value > hi:
            return value - hi
        return 0

    def check_preload(self):
        """Is the preload mapped in a backend, as the driver expects?"""
        with self.connect() as conn, conn.cursor() as cur:
            cur.execute("SELECT pg_backend_pid()")
            pid = cur.fetchone()[0]
            with open("/proc/%d/maps" % pid) as maps:
                mapped = "libcyclock-preload" in maps.read()
        expected = bool(self.args.expect_preload)
        conn.close()
        self.figure("preload mapped in backend %d: %s"
                    % (pid, "yes" if mapped else "no"))
        if mapped != expected:
            self.fail("preload %s in backend %d, expected %s"
                      % ("mapped" if mapped else "not mapped", pid,
                         "mapped" if expected else "not"))
            return False
        return True

    def check_first_reads(self):
        """Fresh connections' first timestamps against the client's."""
        bound = self.args.bound_us
        query = "SELECT %s, %s, %s FROM pg_stat_activity WHERE pid = %s" % (
            EPOCH_US.format("now()"), EPOCH_US.format("clock_timestamp()"),
            EPOCH_US.format("backend_start"), "pg_backend_pid()")
        worst = {"now": 0, "clock": 0, "start": 0}
        bad = reversed_ = 0
        widths = []
        for _ in range(self.args.connections):
            t_conn = rt_us()
            conn = self.connect()
            with conn.cursor() as cur:
                t0 = rt_us()
                cur.execute(query)
                t1 = rt_us() + 1  # the server's values are truncated to us
                now, clock, start = cur.fetchone()
            conn.close()
            widths.append(t1 - t0)
            offs = {"now": self.offset(now, t0, t1),
                    "clock": self.offset(clock, t0, t1),
                    "start": self.offset(start, t_conn, t1)}
            for k, v in offs.items():
                if abs(v) > abs(worst[k]):
                    worst[k] = v
            if any(abs(v) > bound for v in offs.values()):
                bad += 1
            if clock < now:
                reversed_ += 1
        self.figure("first reads of %d fresh connections: worst offset "
                    "now() %+d us, clock_timestamp() %+d us, backend_start "
                    "%+d us (bound %d us; bracket median %d us), %d outside, "
                    "%d with clock_timestamp() < now()"
                    % (self.args.connections, worst["now"], worst["clock"],
                       worst["start"], bound, sorted(widths)[len(widths) // 2],
                       bad, reversed_))
        if bad:
            self.fail("%d of %d fresh connections read a time outside the "
                      "client's bracket +-%d us (worst now() %+d us, "
                      "clock_timestamp() %+d us, backend_start %+d us)"
                      % (bad, self.args.connections, bound, worst["now"],
                         worst["clock"], worst["start"]))
        if reversed_:
            self.fail("%d fresh connections read clock_timestamp() before "
                      "their now()" % reversed_)

    def stamp(self, cur):
        cur.execute("SELECT cyclock_stamp(%s)", (self.args.phase,))

    def warm_worker(self, start, errors):
        """One session for all its stamps, opened early and read from for
        a while first: a backend past its first resyncs, whose clock fresh
        ones must not fall behind."""
        try:
            conn = self.connect()
            with conn.cursor() as cur:
                end = time.monotonic() + self.args.warm_up
                while time.monotonic() < end:
                    cur.execute("SELECT clock_timestamp()")
                    time.sleep(0.01)
                start.wait()
                for _ in range(self.args.iterations):
                    self.stamp(cur)
            conn.close()
        except (psycopg2.Error, threading.BrokenBarrierError) as e:
            errors.append(str(e).strip() or type(e).__name__)
            start.abort()  # nobody waits for a worker that is gone

    def fresh_worker(self, start, errors):
        """A new session every --per-connection stamps: fresh backends."""
        try:
            start.wait()
            per_conn = self.args.per_connection
            for _ in range(self.args.iterations // per_conn):
                conn = self.connect()
                with conn.cursor() as cur:
                    for _ in range(per_conn):
                        self.stamp(cur)
                conn.close()
        except (psycopg2.Error, threading.BrokenBarrierError) as e:
            errors.append(str(e).strip() or type(e).__name__)
            start.abort()

    def check_lock_order(self):
        """clock_timestamp() under an advisory lock, in the lock's order,
        by warm and fresh sessions at once."""
        log_start = os.path.getsize(self.args.log) if self.args.log else 0
        errors = []
        n = self.args.workers
        fresh, warm = n // 2, n - n // 2
        start = threading.Barrier(n)  # all at once, the warm ones warmed
        workers = [threading.Thread(
            target=self.warm_worker if i % 2 == 0 else self.fresh_worker,
            args=(start, errors)) for i in range(n)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        for e in errors:
            self.fail("stamp worker: %s" % e)
        with self.connect() as conn, conn.cursor() as cur:
            cur.execute("SELECT id, pid, ts_us FROM stamps WHERE phase = %s "
                        "ORDER BY id", (self.args.phase,))
            rows = cur.fetchall()
        conn.close()
        pids = {r[1] for r in rows}
        steps = [b[2] - a[2] for a, b in zip(rows, rows[1:])]
        backs = sum(1 for d in steps if d < 0)
        worst = -min(steps + [0])
        self.figure("lock order: %d stamps from %d sessions (%d warm), %d "
                    "back steps, worst back step %d us"
                    % (len(rows), len(pids), warm, backs, worst))
        per_conn = self.args.per_connection
        expected = (warm * self.args.iterations
                    + fresh * (self.args.iterations // per_conn * per_conn))
        if len(rows) != expected:
            self.fail("%d stamps taken, not %d" % (len(rows), expected))
        if backs:
            self.fail("clock_timestamp() under the advisory lock went back "
                      "%d times in lock order, by up to %d us"
                      % (backs, worst))
        if self.args.log:
            self.check_log(log_start)

    def check_log(self, start):
        """The server log's lines, in the order written: those written
        under the lock must have non-decreasing timestamps (%n: ms)."""
        stamp = re.compile(r"^(\d+)\.(\d{3}) \[\d+\] LOG:  cyclock-stamp "
                           + re.escape(self.args.phase) + r" (\d+)$")
        line_ts = re.compile(r"^(\d+)\.(\d{3}) \[\d+\] ")
        with open(self.args.log, errors="replace") as log:
            log.seek(start)
            lines = log.read().splitlines()
        stamps, any_ts = [], []
        for line in lines:
            m = line_ts.match(line)
            if m:
                any_ts.append(int(m.group(1)) * 1000 + int(m.group(2)))
            m = stamp.match(line)
            if m:
                stamps.append((int(m.group(3)),
                               int(m.group(1)) * 1000 + int(m.group(2))))
        backs = sum(1 for a, b in zip(stamps, stamps[1:]) if b[1] < a[1])
        worst = max([a[1] - b[1] for a, b in zip(stamps, stamps[1:])] + [0])
        misordered = sum(1 for a, b in zip(stamps, stamps[1:]) if b[0] < a[0])
        # All lines: written by many backends without a lock, so a line
        # may legitimately trail another by a scheduling delay; reported.
        all_back = max([a - b for a, b in zip(any_ts, any_ts[1:])] + [0])
        self.figure("server log: %d lines under the lock, %d back steps "
                    "(worst %d ms); all %d lines: worst back step %d ms"
                    % (len(stamps), backs, worst, len(any_ts), all_back))
        if not stamps:
            self.fail("no cyclock-stamp lines in the server log")
        if misordered:
            self.fail("%d log lines under the lock out of id order: the log "
                      "is not written under the lock" % misordered)
        if backs:
            self.fail("server log lines written under the advisory lock go "
                      "back %d times, by up to %d ms" % (backs, worst))

    def check_sleep(self):
        """pg_sleep(0.2) as the server and the client time it."""
        srv_all, cli_all = [], []
        for _ in range(self.args.sleeps):
            conn = self.connect()
            with conn.cursor() as cur:
                t0 = mono_ns()
                cur.execute("SELECT %s, pg_sleep(0.2), %s" % (
                    EPOCH_US.format("clock_timestamp()"),
                    EPOCH_US.format("clock_timestamp()")))
                t1 = mono_ns()
                a, _, b = cur.fetchone()
            conn.close()
            srv_all.append(b - a)
            cli_all.append((t1 - t0) // 1000)
        worst_short = min(srv_all)
        worst_long = max(s - c for s, c in zip(srv_all, cli_all))
        worst_slack = max(c - s for s, c in zip(srv_all, cli_all))
        self.figure("pg_sleep(0.2) x%d: server %d..%d us, client %d..%d us, "
                    "server - client up to %+d us, client - server up to %d us"
                    % (len(srv_all), min(srv_all), max(srv_all), min(cli_all),
                       max(cli_all), worst_long, worst_slack))
        if worst_short < 200000:
            self.fail("pg_sleep(0.2) lasted %d us by clock_timestamp()"
                      % worst_short)
        if min(cli_all) < 200000:
            self.fail("pg_sleep(0.2) returned after %d us of the client's "
                      "time" % min(cli_all))
        if worst_long > self.args.bound_us:
            self.fail("pg_sleep(0.2) lasted %d us longer by clock_timestamp() "
                      "than the client's round trip" % worst_long)
        if worst_slack > self.args.slack_us:
            self.fail("pg_sleep(0.2) by clock_timestamp() was %d us shorter "
                      "than the client's round trip (slack %d us)"
                      % (worst_slack, self.args.slack_us))

    def check_timeout(self):
        """statement_timeout = 200 ms, measured by the client."""
        times = []
        for _ in range(self.args.timeouts):
            conn = self.connect()
            with conn.cursor() as cur:
                cur.execute("SET statement_timeout = 200")
                t0 = mono_ns()
                try:
                    cur.execute("SELECT pg_sleep(1)")
                    times.append(None)
                except psycopg2.errors.QueryCanceled:
                    times.append((mono_ns() - t0) // 1000000)
            conn.close()
        fired = [t for t in times if t is not None]
        self.figure("statement_timeout 200 ms x%d: fired after %s ms"
                    % (len(times), ", ".join(str(t) for t in fired) or "-"))
        if len(fired) != len(times):
            self.fail("statement_timeout did not cancel pg_sleep(1) %d times"
                      % (len(times) - len(fired)))
        out = [t for t in fired if not 150 <= t <= 1000]
        if out:
            self.fail("statement_timeout 200 ms fired after %s ms (150-1000)"
                      % ", ".join(str(t) for t in out))

    def check_explain(self):
        """EXPLAIN ANALYZE's execution time against the round trip."""
        worst, execs = None, []
        query = ("EXPLAIN (ANALYZE, FORMAT JSON) SELECT pg_sleep(0.1), "
                 "count(*) FROM generate_series(1, 100000)")
        for _ in range(self.args.explains):
            conn = self.connect()
            with conn.cursor() as cur:
                t0 = mono_ns()
                cur.execute(query)
                t1 = mono_ns()
                plan = cur.fetchone()[0]
            conn.close()
            if isinstance(plan, str):
                plan = json.loads(plan)
            exec_us = int(round(plan[0]["Execution Time"] * 1000))
            over = exec_us - (t1 - t0) // 1000
            execs.append(exec_us)
            worst = over if worst is None else max(worst, over)
        self.figure("EXPLAIN ANALYZE x%d: execution %d..%d us, execution - "
                    "round trip up to %+d us"
                    % (len(execs), min(execs), max(execs), worst))
        if worst > self.args.bound_us:
            self.fail("EXPLAIN ANALYZE's execution time exceeded the client's "
                      "round trip by %d us" % worst)
        if min(execs) < 100000:
            self.fail("EXPLAIN ANALYZE's execution time %d us is shorter than "
                      "its pg_sleep(0.1)" % min(execs))

    def run(self):
        with self.connect() as conn, conn.cursor() as cur:
            cur.execute(STAMP_SQL)
        conn.close()
        if self.args.idle > 0:
            # Leave the postmaster idle: its timeline goes past its horizon
            # while the kernel's clock changes rate (under kflip).
            time.sleep(self.args.idle)
        if not self.check_preload():
            return 1
        self.check_first_reads()
        self.check_lock_order()
        self.check_sleep()
        self.check_timeout()
        self.check_explain()
        return 1 if self.failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", required=True, help="the socket's directory")
    ap.add_argument("--port", type=int, default=5432)
    ap.add_argument("--phase", default="steady", help="a name for the output")
    ap.add_argument("--log", help="the server's log file (%%n prefix)")
    ap.add_argument("--expect-preload", type=int, default=1)
    ap.add_argument("--idle", type=float, default=0,
                    help="seconds to leave the server idle first")
    ap.add_argument("--bound-us", type=int, default=1000)
    ap.add_argument("--slack-us", type=int, default=50000,
                    help="how much shorter than the client's round trip "
                         "the server's pg_sleep may be")
    ap.add_argument("--connections", type=int, default=50)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--per-connection", type=int, default=20,
                    help="stamps per session of a fresh worker")
    ap.add_argument("--warm-up", type=float, default=0.4,
                    help="seconds a warm worker reads its clock first")
    ap.add_argument("--sleeps", type=int, default=5)
    ap.add_argument("--timeouts", type=int, default=3)
    ap.add_argument("--explains", type=int, default=5)
    args = ap.parse_args()
    if os.environ.get("LD_PRELOAD"):
        print("FAIL %s: the client runs under LD_PRELOAD=%s"
              % (args.phase, os.environ["LD_PRELOAD"]))
        return 1
    try:
        return Checker(args).run()
    except psycopg2.Error as e:
        print("FAIL %s: %s" % (args.phase, str(e).strip()))
        return 1


if __name__ == "__main__":
    sys.exit(main())
