#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 4 benchmark: `trawl latency wakeup` (and the other analyses, `trawl
sched` and `trawl export`) against `trawl stats` on the same file, same run,
runs interleaved so that load from other users of the machine hits both
alike.

usage: bench/bench-analyses.py [--build build] [--runs 5] [--also CMDS]
                               [--exports perfetto,csv] [--out DIR] FILE...
Exports write into --out (removed after each run, not timed); their output
size is printed too.
Prints a Markdown table: median wall seconds, the ratio to stats, and peak
RSS per command (each process measured on its own with wait4).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import time

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--also", default="latency preempt,irq,workqueue,sched",
                help="more commands, comma-separated ('' for none)")
ap.add_argument("--exports", default="perfetto,csv",
                help="export formats to time, comma-separated ('' for none)")
ap.add_argument("--out", default="bench/out/export-tmp",
                help="where exports write (emptied after each run)")
ap.add_argument("files", nargs="+")
args = ap.parse_args()
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
trawl = os.path.join(root, args.build, "tools/trawl/trawl")


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if status:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return wall, ru.ru_maxrss // 1024


cmds = [["stats"], ["latency", "wakeup", "--json"]]
cmds += [c.split() + ["--json"] for c in args.also.split(",") if c]
out = os.path.join(root, args.out)
for fmt in (x for x in args.exports.split(",") if x):
    dest = os.path.join(out, "trace.json" if fmt == "perfetto" else "csv")
    cmds.append(["export", "{f}", "--to", fmt, "-o", dest])


def du(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f))
               for d, _, fs in os.walk(path) for f in fs)


sizes = {}
print("| file | command | median s | runs | vs stats | peak RSS MB |")
print("| --- | --- | --- | --- | --- | --- |")
for f in args.files:
    walls = {i: [] for i in range(len(cmds))}
    rss = {i: 0 for i in range(len(cmds))}
    for _ in range(args.runs):
        for i, c in enumerate(cmds):
            argv = [x.replace("{f}", f) for x in c]
            if "{f}" not in c:
                argv.append(f)
            os.makedirs(out, exist_ok=True)
            w, r = run([trawl] + argv)
            if c[0] == "export":
                sizes[(f, i)] = du(c[-1])
            shutil.rmtree(out, ignore_errors=True)
            walls[i].append(w)
            rss[i] = max(rss[i], r)
    base = statistics.median(walls[0])
    for i, c in enumerate(cmds):
        m = statistics.median(walls[i])
        shown = " ".join("FILE" if x == "{f}" else
                         "OUT" if x == c[-1] and c[0] == "export" else x
                         for x in c)
        label = f"`trawl {shown}`"
        if (f, i) in sizes:
            label += f" ({sizes[(f, i)] / 1e6:.0f} MB written)"
        print(f"| {os.path.basename(f)} | {label} | {m:.2f} | "
              f"{' '.join(f'{w:.2f}' for w in walls[i])} | "
              f"{m / base:.2f}x | {rss[i]} |", flush=True)
