#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trace.dat benchmark: `trawl stats` against `trace-cmd report > /dev/null`
and against the smallest loop over libtracecmd's record iterator
(bench-tracecmd), on the same file, same run.

usage: bench/run-dat.py [--build build] [--runs 5] [--report-runs 3]
Inputs: bench/out/big.dat (v7, zstd) and big-nocomp.dat, recorded by
bench/make-dat-input.sh (as root). Prints a Markdown table.
"""
import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--report-runs", type=int, default=3)
args = ap.parse_args()

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
trawl = os.path.join(root, args.build, "tools/trawl/trawl")
loop = os.path.join(root, args.build, "bench/bench-tracecmd")
inputs = [os.path.join(root, "bench/out", n) for n in ("big.dat", "big-nocomp.dat")]
if not all(os.path.exists(p) for p in inputs):
    sys.exit("missing inputs: run `sudo bench/make-dat-input.sh` first")


def wall(cmd, runs, shell=False):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, shell=shell, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
        if p.returncode != 0:
            sys.exit(f"failed: {cmd}")
    return statistics.median(times), p.stdout


def rss(cmd):
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return int(p.stderr.decode().strip().splitlines()[-1]) / 1024


print(f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, kernel "
      f"{platform.release()}; medians of {args.runs} runs "
      f"({args.report_runs} for trace-cmd report), warm cache.")
print()
print("| input | command | median s | M events/s | vs trace-cmd report | "
      "vs libtracecmd loop | peak RSS |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for path in inputs:
    name = os.path.basename(path)
    mb = os.path.getsize(path) / 1e6
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL)  # warm
    rep, _ = wall(f"trace-cmd report {path} >/dev/null 2>&1",
                  args.report_runs, shell=True)
    out = subprocess.run([loop, path, str(args.runs)], capture_output=True,
                         check=True).stdout.decode()
    lt = float(re.search(r"median ([\d.]+) s", out).group(1))
    records = int(re.search(r"; (\d+) records", out).group(1))
    label = f"{name} ({mb:.0f} MB, {records} events)"
    print(f"| {label} | `trace-cmd report > /dev/null` | {rep:.3f} | "
          f"{records / rep / 1e6:.2f} | 1.00 | | |")
    print(f"| {name} | `bench-tracecmd` (tracecmd_iterate_events, no text) | "
          f"{lt:.3f} | {records / lt / 1e6:.1f} | {rep / lt:.1f}x faster | "
          f"1.00 | |")
    for lab, cmd in (("`trawl stats` (default: 2 threads)", [trawl, "stats", path]),
                     ("`trawl stats --threads 1`",
                      [trawl, "stats", "--threads", "1", path])):
        t, out = wall(cmd, args.runs)
        events = int(re.search(rb"events:\s+(\d+)", out).group(1))
        if events != records:
            sys.exit(f"{name}: trawl counted {events}, libtracecmd {records}")
        print(f"| {name} | {lab} | {t:.3f} | {events / t / 1e6:.1f} | "
              f"{rep / t:.1f}x faster | {lt / t:.1f}x faster | "
              f"{rss(cmd):.1f} MB |")
