#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 4 benchmark: `trawl latency wakeup` (and the other analyses) against
`trawl stats` on the same file, same run, runs interleaved so that load from
other users of the machine hits both alike.

usage: bench/bench-analyses.py [--build build] [--runs 5] FILE...
Prints a Markdown table: median wall seconds, the ratio to stats, and peak
RSS per command (each process measured on its own with wait4).
"""
import argparse
import os
import statistics
import subprocess
import time

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--also", default="latency preempt,irq,workqueue",
                help="more commands, comma-separated ('' for none)")
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
print("| file | command | median s | runs | vs stats | peak RSS MB |")
print("| --- | --- | --- | --- | --- | --- |")
for f in args.files:
    walls = {i: [] for i in range(len(cmds))}
    rss = {i: 0 for i in range(len(cmds))}
    for _ in range(args.runs):
        for i, c in enumerate(cmds):
            w, r = run([trawl] + c[:1] + c[1:] + [f])
            walls[i].append(w)
            rss[i] = max(rss[i], r)
    base = statistics.median(walls[0])
    for i, c in enumerate(cmds):
        m = statistics.median(walls[i])
        print(f"| {os.path.basename(f)} | `trawl {' '.join(c)}` | {m:.2f} | "
              f"{' '.join(f'{w:.2f}' for w in walls[i])} | "
              f"{m / base:.2f}x | {rss[i]} |", flush=True)
