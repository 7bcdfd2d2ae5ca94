#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Issue 27: task_states() and latency(table="all") against `trawl stats`
on the same big text; a late 100 ms window against a read of the whole
file (Python's ranged runs).

usage: /usr/bin/python3 bench/bench-python-windows.py [--runs N]
                                                     [--build DIR] [FILE]

FILE defaults to bench/out/gen-1G.txt (bench/make-inputs.sh 1G). Every
measurement is its own process (a cold interpreter, the file in the page
cache after a first untimed read); the Python ones report the call's own
time (perf_counter around it, without starting Python and importing
pandas) and the process's max RSS. Medians of --runs (default 3), all in
one run of this script, so the ratios compare like with like.
"""
import argparse
import json
import os
import statistics
import subprocess
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = "/usr/bin/python3"

SNIPPET = r"""
import json, resource, sys, time
import trawl
path, what, lo, hi = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
lo = int(lo) if lo != "-" else None
hi = int(hi) if hi != "-" else None
tr = trawl.open(path)
t0 = time.perf_counter()
if what == "task_states":
    df = tr.task_states(start=lo, end=hi)
elif what == "latency_all":
    df = tr.latency("wakeup", table="all", start=lo, end=hi)
elif what == "latency":
    df = tr.latency("wakeup", start=lo, end=hi)
elif what == "df_switch":
    df = tr.df("sched_switch", start=lo, end=hi)
elif what == "span":
    df = tr.span
t = time.perf_counter() - t0
print(json.dumps(dict(
    s=t, rows=len(df), rss=resource.getrusage(
        resource.RUSAGE_SELF).ru_maxrss / 1024,
    span=list(tr.span) if what == "span" else None)))
"""


def python(build, path, what, lo=None, hi=None):
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    r = subprocess.run([PY, "-c", SNIPPET, path, what,
                        "-" if lo is None else str(lo),
                        "-" if hi is None else str(hi)],
                       capture_output=True, text=True, env=env, check=True)
    return json.loads(r.stdout)


def stats_wall(build, path):
    t0 = time.perf_counter()
    subprocess.run([os.path.join(build, "trawl"), "stats", path],
                   stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--build", default=os.path.join(TOP, "build"))
    ap.add_argument("file", nargs="?",
                    default=os.path.join(TOP, "bench", "out", "gen-1G.txt"))
    a = ap.parse_args()
    path = a.file
    print("# input: %s, %d bytes" % (path, os.path.getsize(path)))
    stats_wall(a.build, path)  # into the page cache
    span = python(a.build, path, "span")["span"]
    lo, hi = span[1] - 100_000_000, span[1]
    print("# span %d .. %d ns; late window: the last 100 ms" % tuple(span))

    def med(fn):
        vals = [fn() for _ in range(a.runs)]
        return statistics.median(v if isinstance(v, float) else v["s"]
                                 for v in vals), vals[-1]

    stats, _ = med(lambda: stats_wall(a.build, path))
    print("trawl stats (wall)                 %8.3f s" % stats)
    rows = []
    for what in ["task_states", "latency_all", "latency", "df_switch"]:
        whole, r = med(lambda: python(a.build, path, what))
        late, rl = med(lambda: python(a.build, path, what, lo, hi))
        rows.append((what, whole, r, late, rl))
        print("%-14s whole %8.3f s (%5.2fx stats) %9d rows %6.0f MiB | "
              "late 100 ms %7.4f s (%5.2f %% of whole) %7d rows" % (
                  what, whole, whole / stats, r["rows"], r["rss"], late,
                  100 * late / whole, rl["rows"]))


if __name__ == "__main__":
    main()
