#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Issue 13: the Python API against trawl stats, the CSV route and the
frames' own size; trawl.fleet with 1 and 2 workers.

usage: /usr/bin/python3 bench/bench-python.py [--runs N] [--build DIR]
                                              [--no-fleet] [--fleet-traces N]

Inputs (bench/out/, gitignored): big.dat (bench/make-dat-input.sh: 11 M
events, v7 zstd) and py-150M.txt, the first 150 MiB of whole lines of
big.txt (its text, bench/dat-to-text.py), made here when missing. Every
measurement is its own process under /usr/bin/time -v (wall and max RSS);
the Python ones also print the time of the call itself (without starting
Python and importing pandas). Medians of --runs (default 3), all in one
run of this script, so the ratios compare like with like.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(TOP, "bench", "out")
PY = "/usr/bin/python3"


def text_input():
    p = os.path.join(OUT, "py-150M.txt")
    if not os.path.exists(p):
        src = os.path.join(OUT, "big.txt")
        with open(src, "rb") as f, open(p + ".tmp", "wb") as o:
            data = f.read(150 << 20)
            o.write(data[:data.rfind(b"\n") + 1])
        os.rename(p + ".tmp", p)
    return p


def timed(cmd, env=None):
    """(wall s, max RSS MiB, stdout) of one process (wall by the clock
    here: time -v rounds to 10 ms)."""
    t0 = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True,
                       text=True, env=env)
    elapsed = time.perf_counter() - t0
    if r.returncode:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr[-2000:]))
    rss = None
    for line in r.stderr.splitlines():
        line = line.strip()
        if line.startswith("Maximum resident set size"):
            rss = int(line.split(": ")[1]) / 1024
    return elapsed, rss, r.stdout


CHILD = r"""
import json, sys, time
import pandas as pd
import trawl
what, path = sys.argv[1], sys.argv[2]
tr = trawl.open(path) if what != "read_csv" else None
t = time.perf_counter()
extra = {}
if what == "import":
    n = 0
elif what == "df":
    df = tr.df("sched_switch"); n = len(df)
    extra["frame_mib"] = df.memory_usage(deep=True).sum() / 2**20
elif what == "df2":
    df = tr.df(["sched_switch", "sched_waking", "sched_wakeup"]); n = len(df)
    extra["frame_mib"] = df.memory_usage(deep=True).sum() / 2**20
elif what == "latency":
    n = int(tr.latency("wakeup")["count"].iloc[0])
elif what == "apply":
    acc = [0]
    def on(ev):
        acc[0] += ev.next_pid
    tr.apply({"sched_switch": on}); n = acc[0]
elif what == "read_csv":
    df = pd.read_csv(path); n = len(df)
    extra["frame_mib"] = df.memory_usage(deep=True).sum() / 2**20
print(json.dumps(dict(extra, op=time.perf_counter() - t, n=n)))
"""


# what tr.df("sched_switch") reads, in the script language: the cost of
# decoding those fields in libtrawl itself, without Python
FIELDS = ("sched:sched_switch { @a = sum(args.prev_pid + args.prev_prio + "
          "args.prev_state + args.next_pid + args.next_prio); "
          "@b[args.prev_comm, args.next_comm] = count(); }")


def py_op(what, path, env):
    wall, rss, out = timed([PY, "-c", CHILD, what, path], env)
    d = json.loads(out)
    return wall, rss, d


def med(xs):
    return statistics.median(xs)


def bench_file(path, runs, trawl, env, table):
    name = os.path.basename(path)
    res = {}

    tmp = tempfile.mkdtemp(dir=OUT, prefix="py-csv-")
    csv = os.path.join(tmp, "sched_switch.csv")
    steps = [("stats", lambda: timed([trawl, "stats", path])[:2])]
    for what in ["import", "df", "df2", "latency", "apply"]:
        steps.append((what, lambda w=what: py_op(w, path, env)))
    steps += [
        ("cli_latency", lambda: timed([trawl, "latency", "wakeup",
                                       path])[:2]),
        ("cli_fields", lambda: timed([trawl, "run", "-e", FIELDS,
                                      path])[:2]),
        ("export", lambda: timed([trawl, "export", path, "--to", "csv",
                                  "-o", tmp])[:2]),
        ("read_csv", lambda: py_op("read_csv", csv, env)),
    ]
    # interleaved: each round runs every step once, so that the load of a
    # shared machine falls on all of them alike
    try:
        for _ in range(runs):
            for key, f in steps:
                res.setdefault(key, []).append(f())
    finally:
        shutil.rmtree(tmp)
    base_rss = med([r for _, r, _ in res["import"]])

    stats_runs = [w for w, _ in res["stats"]]

    def row(label, key, py=True):
        # the ratio of each round's call to that round's trawl stats, then
        # the median: steadier than a ratio of medians on a loaded machine
        calls = [d["op"] if py else d for d in
                 ([x[2] for x in res[key]] if py else
                  [x[0] for x in res[key]])]
        ratio = med([c / s for c, s in zip(calls, stats_runs)])
        if py:
            op = med([d["op"] for _, _, d in res[key]])
            wall = med([w for w, _, _ in res[key]])
            rss = med([r for _, r, _ in res[key]])
            fm = res[key][0][2].get("frame_mib")
            n = res[key][0][2]["n"]
        else:
            op = wall = med([w for w, _ in res[key]])
            rss = med([r for _, r in res[key]])
            fm = n = None
        table.append((name, label, op, wall, ratio, rss,
                      rss - base_rss if py else None, fm, n))

    row("trawl stats (reference)", "stats", py=False)
    row("python + import trawl, pandas", "import")
    row("tr.df('sched_switch')", "df")
    row("tr.df([switch, waking, wakeup])", "df2")
    row("tr.latency('wakeup')", "latency")
    row("trawl latency wakeup (CLI)", "cli_latency", py=False)
    row("trawl run: every field of sched_switch (libtrawl's decoding)",
        "cli_fields", py=False)
    row("tr.apply({'sched_switch': f})", "apply")
    row("trawl export --to csv", "export", py=False)
    row("pd.read_csv(sched_switch.csv)", "read_csv")
    exp = med([w for w, _ in res["export"]])
    rc = med([d["op"] for _, _, d in res["read_csv"]])
    df = med([d["op"] for _, _, d in res["df"]])
    table.append((name, "export + read_csv vs tr.df: %.2f s vs %.2f s = "
                  "%.1fx" % (exp + rc, df, (exp + rc) / df), None, None,
                  None, None, None, None, None))


FLEET = r"""
import json, os, sys, time
import trawl.fleet
paths = sys.argv[2:]
mode = sys.argv[1]
fn = lambda tr: tr.latency("wakeup")
t = time.perf_counter()
if mode == "serial":
    df = trawl.fleet.run(paths, fn, scheduler="serial")
    startup = 0.0
else:
    from dask.distributed import Client, LocalCluster
    import logging
    with LocalCluster(n_workers=int(mode), threads_per_worker=1,
                      processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as c, Client(c) as cl:
        startup = time.perf_counter() - t
        t1 = time.perf_counter()
        df = trawl.fleet.run(paths, fn, scheduler=cl)
        work = time.perf_counter() - t1
assert df["error"].isna().all(), df["error"].dropna().tolist()
total = time.perf_counter() - t
print(json.dumps({"total": total, "startup": startup,
                  "work": total - startup if mode == "serial" else work,
                  "rows": len(df)}))
"""


def bench_fleet(runs, env, ntraces, table):
    src = os.path.join(OUT, "big.dat")
    tmp = tempfile.mkdtemp(dir=OUT, prefix="py-fleet-")
    try:
        paths = []
        for i in range(ntraces):
            p = os.path.join(tmp, "t%02d.dat" % i)
            os.symlink(src, p)
            paths.append(p)
        modes = ["serial", "1", "2"]
        vals = {m: [] for m in modes}
        for _ in range(runs):  # interleaved, as above
            for mode in modes:
                _, rss, out = timed([PY, "-c", FLEET, mode] + paths, env)
                vals[mode].append(json.loads(out))
        for mode in modes:
            v = vals[mode]
            table.append((mode, med([x["startup"] for x in v]),
                          med([x["work"] for x in v]),
                          med([x["total"] for x in v])))
    finally:
        shutil.rmtree(tmp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--build", default=os.path.join(TOP, "build"))
    ap.add_argument("--no-fleet", action="store_true")
    ap.add_argument("--fleet-traces", type=int, default=6)
    a = ap.parse_args()
    trawl = os.path.join(a.build, "tools", "trawl", "trawl")
    env = dict(os.environ, PYTHONPATH=os.path.join(a.build, "python"))
    table = []
    for p in [os.path.join(OUT, "big.dat"), text_input()]:
        bench_file(p, a.runs, trawl, env, table)
    print("| input | what | call s | process s | call / stats (per round) "
          "| max RSS MiB "
          "| RSS over import MiB | frame MiB | rows / n |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, label, op, wall, ratio, rss, over, fm, n in table:
        if op is None:
            print("| %s | %s | | | | | | | |" % (name, label))
            continue
        print("| %s | %s | %.3f | %.3f | %.2fx | %.0f | %s | %s | %s |" % (
            name, label, op, wall, ratio, rss,
            "" if over is None else "%.0f" % over,
            "" if fm is None else "%.0f" % fm, "" if n is None else n))
    if not a.no_fleet:
        ft = []
        bench_fleet(a.runs, env, a.fleet_traces, ft)
        print()
        print("fleet: tr.latency('wakeup') over %d copies of big.dat"
              % a.fleet_traces)
        print("| workers | cluster start s | work s | total s | work "
              "speed-up vs serial |")
        print("|---|---:|---:|---:|---:|")
        serial = ft[0][2]
        for mode, startup, work, total in ft:
            print("| %s | %.2f | %.2f | %.2f | %.2fx |" % (
                mode, startup, work, total, serial / work))


if __name__ == "__main__":
    main()
