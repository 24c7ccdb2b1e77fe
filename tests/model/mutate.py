#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Weaken each fence and order of the latches, one at a time, and see which
model harness catches it (docs/model.md, "What each order is for").

    tests/model/mutate.py [--iterations N] [--only ID,...] [--markdown FILE]

For every mutation below: the tree is copied to a temporary directory
(git ls-files), the one line changed there (its text must occur exactly
once, or the mutation is stale and the run fails), the model harnesses
rebuilt and each run with --iterations N (200000 by default) until it fails
or ends.  A mutation expected to be caught must fail at least one harness;
one explained (not caught, with the reason) must fail none, or the
explanation is stale.  Exits 0 when every mutation did as expected.
--markdown writes the results table (docs/model.md sums up the last one by harness).
Takes about half an hour on 2 CPUs: run it by hand after changing an order
or a harness, not in CI (the model stage runs the harnesses as they are).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HARNESSES = ["model_latch", "model_percpu", "model_publish", "model_coarse", "model_record"]

# (id, file, text, mutated text, "caught" or the reason it is not, what)
MUTATIONS = [
    # The engine's latch: include/cyclock/latch.h (every latch of the
    # library: the engine's clock, the per-CPU slots).
    ("latch-begin", "include/cyclock/latch.h",
     "return cyclock_atomic_load(seq, CYCLOCK_ACQUIRE);",
     "return cyclock_atomic_load(seq, CYCLOCK_RELAXED);",
     "caught", "a latch read's sequence load: acquire to relaxed"),
    ("latch-retry-fence", "include/cyclock/latch.h",
     "\tcyclock_atomic_fence(CYCLOCK_ACQUIRE);\n\treturn cyclock_atomic_load(seq, CYCLOCK_RELAXED) != start;",
     "\treturn cyclock_atomic_load(seq, CYCLOCK_RELAXED) != start;",
     "caught", "a latch read's acquire fence before the re-check: removed"),
    ("latch-bump", "include/cyclock/latch.h",
     "cyclock_atomic_store(seq, s + 1, CYCLOCK_RELEASE);",
     "cyclock_atomic_store(seq, s + 1, CYCLOCK_RELAXED);",
     "caught", "the writer's bump of the sequence: release to relaxed"),
    ("latch-bump-fence", "include/cyclock/latch.h",
     "\tcyclock_atomic_fence(CYCLOCK_RELEASE);\n}",
     "}",
     "caught", "the writer's release fence after a bump: removed"),
    ("writer-trylock", "include/cyclock/latch.h",
     "cyclock_atomic_cas(writer, &free_, 1, CYCLOCK_ACQUIRE, CYCLOCK_RELAXED);",
     "cyclock_atomic_cas(writer, &free_, 1, CYCLOCK_RELAXED, CYCLOCK_RELAXED);",
     "caught", "taking a latch's writer flag: acquire to relaxed"),
    ("writer-unlock", "include/cyclock/latch.h",
     "cyclock_atomic_store(writer, 0, CYCLOCK_RELEASE);",
     "cyclock_atomic_store(writer, 0, CYCLOCK_RELAXED);",
     "caught", "releasing a latch's writer flag: release to relaxed"),
    # The per-CPU mode: src/core/percpu.c.
    ("percpu-mode", "src/core/percpu.c",
     "return cyclock_atomic_load(&pc->read, CYCLOCK_ACQUIRE);",
     "return cyclock_atomic_load(&pc->read, CYCLOCK_RELAXED);",
     "stronger than needed: the switch's last stamp bumps a slot's sequence "
     "and fences (release) before it stores the mode, and a reader's slot "
     "latch fences (acquire) after it loads it, so the two synchronise "
     "through the mode word itself and the reader sees the stamps and the "
     "offset; kept (a load-acquire on arm64 at every per-CPU read, which "
     "no machine here can measure)",
     "a reader's look at the mode: acquire to relaxed"),
    ("percpu-init", "src/core/percpu.c",
     "cyclock_atomic_store(&pc->read, read_stable, CYCLOCK_RELEASE);",
     "cyclock_atomic_store(&pc->read, read_stable, CYCLOCK_RELAXED);",
     "init finishes before any other call (core.h), as before() does here: "
     "nothing reads what it publishes unordered with it",
     "init's publication of the stable mode: release to relaxed"),
    ("percpu-switch", "src/core/percpu.c",
     "cyclock_atomic_store(&pc->read, read_unstable, CYCLOCK_RELEASE);",
     "cyclock_atomic_store(&pc->read, read_unstable, CYCLOCK_RELAXED);",
     "stronger than needed, as percpu-mode's acquire is: the release fence "
     "of the last stamp before it orders the switch's stores for a reader "
     "whose slot latch fences; kept, as the pair's documented half",
     "the switch's publication of the unstable mode: release to relaxed"),
    ("percpu-switch-fence", "src/core/percpu.c",
     "\t\tcyclock_atomic_fence(CYCLOCK_SEQ_CST);\n",
     "",
     "caught", "the switch's fence before its second look at the raw clock: removed"),
    # The hosted timelines: include/cyclock/timeline.h, src/linux/segment.c,
    # read.c, resync.c.
    ("timeline-begin", "include/cyclock/timeline.h",
     "return cyclock_atomic_load(&tl->seq, CYCLOCK_ACQUIRE);",
     "return cyclock_atomic_load(&tl->seq, CYCLOCK_RELAXED);",
     "caught", "a timeline read's word load: acquire to relaxed"),
    ("timeline-retry-fence", "include/cyclock/timeline.h",
     "\tcyclock_atomic_fence(CYCLOCK_ACQUIRE);\n\treturn CYCLOCK__SEQ",
     "\treturn CYCLOCK__SEQ",
     "caught", "a timeline read's acquire fence before the re-check: removed"),
    ("publish-copy-fence", "src/linux/segment.c",
     "\tcyclock_atomic_fence(CYCLOCK_RELEASE);\n\tcyclock__store64(&s->epoch_cyc",
     "\tcyclock__store64(&s->epoch_cyc",
     "caught", "the writer's release fence before it writes a copy: removed"),
    ("publish-word", "src/linux/segment.c",
     "uint64_t word = cyclock_atomic_load(&tl->seq, CYCLOCK_ACQUIRE);",
     "uint64_t word = cyclock_atomic_load(&tl->seq, CYCLOCK_RELAXED);",
     "caught", "the publish's first look at the word: acquire to relaxed"),
    ("publish-swap-release", "src/linux/segment.c",
     "next_word(word, false), CYCLOCK_ACQ_REL,\n\t\t\t\t       CYCLOCK_ACQUIRE)",
     "next_word(word, false), CYCLOCK_ACQUIRE,\n\t\t\t\t       CYCLOCK_ACQUIRE)",
     "caught", "the publish's swap: its release dropped (acq_rel to acquire)"),
    ("publish-swap-acquire", "src/linux/segment.c",
     "next_word(word, false), CYCLOCK_ACQ_REL,\n\t\t\t\t       CYCLOCK_ACQUIRE)",
     "next_word(word, false), CYCLOCK_RELEASE,\n\t\t\t\t       CYCLOCK_RELAXED)",
     "caught", "the publish's swap: its acquire dropped (acq_rel/acquire to release/relaxed)"),
    ("publish-copy-back", "src/linux/segment.c",
     "CYCLOCK_RELEASE, CYCLOCK_RELAXED) &&",
     "CYCLOCK_RELAXED, CYCLOCK_RELAXED) &&",
     "caught", "the swap back to the even copy: release to relaxed"),
    ("serve-count", "src/linux/read.c",
     "CYCLOCK_RELEASE, CYCLOCK_RELAXED))\n\t\t\treturn true;",
     "CYCLOCK_RELAXED, CYCLOCK_RELAXED))\n\t\t\treturn true;",
     "caught", "a served read's count in the word: release to relaxed"),
    ("resync-flag", "src/linux/resync.c",
     "if (cyclock_atomic_cas(&cyclock__host.writer, &held, me, CYCLOCK_ACQUIRE, CYCLOCK_RELAXED))",
     "if (cyclock_atomic_cas(&cyclock__host.writer, &held, me, CYCLOCK_RELAXED, CYCLOCK_RELAXED))",
     "caught", "taking the resync's writer flag: acquire to relaxed"),
    ("resync-flag-takeover", "src/linux/resync.c",
     "!cyclock_atomic_cas(&cyclock__host.writer, &held, me, CYCLOCK_ACQUIRE,\n",
     "!cyclock_atomic_cas(&cyclock__host.writer, &held, me, CYCLOCK_RELAXED,\n",
     "taking over a flag another process left (a raw fork's child): the "
     "model runs one process, and a child's only other thread is gone",
     "taking over the flag of another process: acquire to relaxed"),
    ("resync-flag-release", "src/linux/resync.c",
     "cyclock_atomic_store(&cyclock__host.writer, 0, CYCLOCK_RELEASE);",
     "cyclock_atomic_store(&cyclock__host.writer, 0, CYCLOCK_RELAXED);",
     "caught", "releasing the resync's writer flag: release to relaxed"),
    ("slow-how", "src/linux/read.c",
     "return cyclock_atomic_load(&tl->how, CYCLOCK_ACQUIRE) == CYCLOCK__HOW_KERNEL;",
     "return cyclock_atomic_load(&tl->how, CYCLOCK_RELAXED) == CYCLOCK__HOW_KERNEL;",
     "pairs with initialisation's release of its choice (init.c), which the "
     "model does not run: its harnesses start initialised",
     "the slow path's look at the chosen read: acquire to relaxed"),
    ("slow-state", "src/linux/read.c",
     "return r->H || (cyclock_atomic_load(&cyclock__host.state, CYCLOCK_ACQUIRE) ==",
     "return r->H || (cyclock_atomic_load(&cyclock__host.state, CYCLOCK_RELAXED) ==",
     "pairs with initialisation's release of INIT_DONE (init.c), which the "
     "model does not run",
     "the slow path's look at initialisation's state: acquire to relaxed"),
    ("slow-using-counter", "src/linux/read.c",
     "\t\t\tcyclock_atomic_load(&cyclock__setup.using_counter, CYCLOCK_SEQ_CST));",
     "\t\t\tcyclock_atomic_load(&cyclock__setup.using_counter, CYCLOCK_RELAXED));",
     "written by initialisation before its release of INIT_DONE, which the "
     "model does not run",
     "the slow path's look at whether the counter is in use: seq_cst to relaxed"),
    # cyclock_coarse(): include/cyclock/timeline.h, src/linux/coarse.c.
    ("coarse-ticker-load", "include/cyclock/timeline.h",
     "uint64_t ns = cyclock_atomic_load(&cyclock__coarse.ns, CYCLOCK_ACQUIRE);",
     "uint64_t ns = cyclock_atomic_load(&cyclock__coarse.ns, CYCLOCK_RELAXED);",
     "caught", "a coarse read's load of the ticker's value: acquire to relaxed"),
    ("coarse-raise-load", "src/linux/coarse.c",
     "uint64_t old = cyclock_atomic_load(&cyclock__coarse.ns, CYCLOCK_ACQUIRE);",
     "uint64_t old = cyclock_atomic_load(&cyclock__coarse.ns, CYCLOCK_RELAXED);",
     "caught", "a raise's first look at the ticker's value: acquire to relaxed"),
    ("coarse-raise-swap", "src/linux/coarse.c",
     "&old, ns, CYCLOCK_SEQ_CST,\n\t\t\t\t\t\t    CYCLOCK_SEQ_CST))",
     "&old, ns, CYCLOCK_RELAXED,\n\t\t\t\t\t\t    CYCLOCK_RELAXED))",
     "caught", "a raise's swap of the ticker's value: seq_cst to relaxed"),
    ("coarse-raise-sc", "src/linux/coarse.c",
     "&old, ns, CYCLOCK_SEQ_CST,\n\t\t\t\t\t\t    CYCLOCK_SEQ_CST))",
     "&old, ns, CYCLOCK_ACQ_REL,\n\t\t\t\t\t\t    CYCLOCK_ACQUIRE))",
     "its seq_cst orders it with the look at the ticker's state after it, "
     "for a ticker that failed to start (coarse.c): the model's ticker starts",
     "a raise's swap of the ticker's value: seq_cst to acq_rel"),
    ("coarse-ticker-state", "src/linux/coarse.c",
     "if (cyclock_likely(cyclock_atomic_load(&ticker_state, CYCLOCK_SEQ_CST) != TICKER_RUNNING))",
     "if (cyclock_likely(cyclock_atomic_load(&ticker_state, CYCLOCK_RELAXED) != TICKER_RUNNING))",
     "with the raise before it, a store-load pair against a ticker that "
     "failed to start (coarse.c): the model's ticker starts",
     "a coarse read's look at the ticker's state: seq_cst to relaxed"),
    ("coarse-ticker-failed", "src/linux/coarse.c",
     "cyclock_atomic_store(&ticker_state, TICKER_FAILED, CYCLOCK_SEQ_CST);\n\t\t/*",
     "cyclock_atomic_store(&ticker_state, TICKER_FAILED, CYCLOCK_RELAXED);\n\t\t/*",
     "the other half of that pair, for a ticker that failed to start: the "
     "model's ticker starts",
     "a failed start's word that no ticker runs: seq_cst to relaxed"),
    ("coarse-cap-init", "src/linux/coarse.c",
     "\tif (cyclock_atomic_load(&cyclock__host.state, CYCLOCK_ACQUIRE) == INIT_DONE &&",
     "\tif (cyclock_atomic_load(&cyclock__host.state, CYCLOCK_RELAXED) == INIT_DONE &&",
     "pairs with initialisation's release of INIT_DONE (init.c), which the "
     "model does not run",
     "past the cap, the look at initialisation's state: acquire to relaxed"),
    ("coarse-cap-read", "src/linux/coarse.c",
     "if (cyclock_unlikely(ns > cyclock_atomic_load(&cyclock__coarse.below, CYCLOCK_ACQUIRE)))",
     "if (cyclock_unlikely(ns > cyclock_atomic_load(&cyclock__coarse.below, CYCLOCK_RELAXED)))",
     "caught", "a coarse read's look at the cap: acquire to relaxed"),
    ("coarse-cap-load", "src/linux/coarse.c",
     "uint64_t b = cyclock_atomic_load(&cyclock__coarse.below, CYCLOCK_ACQUIRE);",
     "uint64_t b = cyclock_atomic_load(&cyclock__coarse.below, CYCLOCK_RELAXED);",
     "caught", "raising the cap, its first look: acquire to relaxed"),
    ("coarse-cap-swap", "src/linux/coarse.c",
     "&b, ns, CYCLOCK_ACQ_REL,\n\t\t\t\t\t\t  CYCLOCK_ACQUIRE))",
     "&b, ns, CYCLOCK_RELEASE,\n\t\t\t\t\t\t  CYCLOCK_RELAXED))",
     "caught", "raising the cap, its swap: acq_rel/acquire to release/relaxed"),
    ("coarse-cap-release", "src/linux/coarse.c",
     "&b, ns, CYCLOCK_ACQ_REL,\n\t\t\t\t\t\t  CYCLOCK_ACQUIRE))",
     "&b, ns, CYCLOCK_ACQUIRE,\n\t\t\t\t\t\t  CYCLOCK_ACQUIRE))",
     "caught", "raising the cap, its swap: its release dropped"),
]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def copy_tree(root, dest):
    files = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], check=True,
                           capture_output=True).stdout.split(b"\0")
    for f in files:
        if not f:
            continue
        src = os.path.join(root, f.decode())
        dst = os.path.join(dest, f.decode())
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.isfile(src):
            shutil.copy2(src, dst)


def run_harness(build, name, iterations):
    """(caught, what): the harness's first FAILED line, or its ok lines."""
    exe = os.path.join(build, "tests", "model", name)
    p = subprocess.run([exe, "--iterations", str(iterations)], capture_output=True, text=True)
    lines = [l for l in p.stdout.splitlines() if l.startswith(name + ":")]
    failed = [l for l in lines if "FAILED" in l]
    checks = [l for l in p.stderr.splitlines() if l.startswith("model: ")]
    if p.returncode != 0:
        first = failed[0] if failed else "exit %d" % p.returncode
        m = re.search(r": ([^:]*): random search, (\d+) iterations.*FAILED \((.*)\)", first)
        # What failed first, and in which iteration (Relacy's own line says
        # where its replay stopped, which may be the run's end).
        detail, at = "", m.group(2) if m else "?"
        if checks:
            c = re.search(r"model: (?:.*/)?([^/:]+:\d+): check failed: (.*) \(iteration (\d+)", checks[0])
            r = re.search(r"model: Relacy: (.*) \(iteration (\d+)", checks[0])
            if c:
                detail, at = "%s, at %s" % (c.group(2), c.group(1)), c.group(3)
            elif r:
                detail, at = r.group(1), r.group(2)
        if m:
            return True, "%s, iteration %s: %s" % (m.group(1), at, detail or m.group(3))
        return True, first
    return False, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=200000)
    ap.add_argument("--only", default="")
    ap.add_argument("--markdown", default="")
    args = ap.parse_args()
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True, capture_output=True,
                          text=True).stdout.strip()
    only = set(filter(None, args.only.split(",")))
    todo = [m for m in MUTATIONS if not only or m[0] in only]
    work = tempfile.mkdtemp(prefix="cyclock-mutate-")
    tree, build = os.path.join(work, "tree"), os.path.join(work, "build")
    copy_tree(root, tree)
    run(["cmake", "-S", tree, "-B", build, "-DCYCLOCK_BUILD_MODEL=ON", "-DCYCLOCK_BUILD_TESTS=OFF",
         "-DCYCLOCK_BUILD_EXAMPLES=OFF", "-DCYCLOCK_BUILD_TOOL=OFF", "-DCYCLOCK_BUILD_BENCH=OFF",
         "-DCYCLOCK_SANITIZE="], stdout=subprocess.DEVNULL)
    rows, bad = [], 0
    for ident, path, text, mutated, expect, what in todo:
        f = os.path.join(tree, path)
        orig = open(f).read()
        if orig.count(text) != 1:
            print("%s: STALE: the text occurs %d times in %s" % (ident, orig.count(text), path))
            bad += 1
            continue
        open(f, "w").write(orig.replace(text, mutated))
        t0 = time.time()
        try:
            run(["cmake", "--build", build, "-j", str(os.cpu_count() or 2), "--target"] + HARNESSES,
                stdout=subprocess.DEVNULL)
            caught = {h: run_harness(build, h, args.iterations) for h in HARNESSES}
        finally:
            open(f, "w").write(orig)
        by = [h for h in HARNESSES if caught[h][0]]
        ok = bool(by) == (expect == "caught")
        bad += not ok
        verdict = ("caught by " + ", ".join(by)) if by else "not caught"
        print("%s: %s: %s (%.0f s)%s" % (ident, what, verdict, time.time() - t0,
                                          "" if ok else "  << NOT AS EXPECTED"), flush=True)
        for h in by:
            print("    %s: %s" % (h, caught[h][1]), flush=True)
        rows.append((ident, path, what, by, caught, expect, ok))
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write("| mutation | where | caught by (configuration, iteration: what failed) | "
                      "or why no harness catches it |\n|---|---|---|---|\n")
            for ident, path, what, by, caught, expect, ok in rows:
                cells = "; ".join("`%s` (%s)" % (h, caught[h][1]) for h in by) or "none"
                out.write("| `%s`: %s | `%s` | %s | %s |\n" % (
                    ident, what, path, cells, "" if expect == "caught" else expect))
            n_caught = sum(1 for r in rows if r[3])
            out.write("\n%d mutations: %d caught, %d explained, %d not as expected "
                      "(%d iterations a configuration).\n" % (
                          len(rows), n_caught, len(rows) - n_caught,
                          sum(1 for r in rows if not r[6]), args.iterations))
    shutil.rmtree(work)
    print("%d mutations, %d not as expected" % (len(todo), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
