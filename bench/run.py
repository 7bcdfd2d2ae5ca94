#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Benchmark driver: trawl stats and the C callback benchmark on the generated
100 MB and 1 GB ftrace text, against `wc -l` on the same bytes, same run.

usage: bench/run.py [--build build] [--runs 5] [--sizes 100M,1G]
Prints a Markdown section to paste into bench/RESULTS.md. Timings are medians
of --runs runs with a warm page cache; peak RSS is the largest seen.
"""
import argparse
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--sizes", default="100M,1G")
args = ap.parse_args()

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
trawl = os.path.join(root, args.build, "tools/trawl/trawl")
cb = os.path.join(root, args.build, "bench/bench-callback")
subprocess.run([os.path.join(root, "bench/make-inputs.sh")], check=True,
               stdout=subprocess.DEVNULL)


def timed(cmd, shell=False):
    """Wall seconds and peak RSS (KB) of one run of cmd."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, shell=shell, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"failed: {cmd}\n{p.stderr.decode()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_maxrss, after.ru_utime - before.ru_utime, p.stdout


def median_of(cmd, shell=False):
    walls, rss, user, out = [], 0, [], b""
    for _ in range(args.runs):
        w, r, u, out = timed(cmd, shell)
        walls.append(w)
        user.append(u)
        rss = max(rss, r)
    return statistics.median(walls), rss, statistics.median(user), out


def rss_of(cmd):
    # ru_maxrss of RUSAGE_CHILDREN is a running maximum: measure alone
    out = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return int(out.stderr.decode().strip().splitlines()[-1])


lines = []
emit = lines.append
emit(f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, "
     f"kernel {platform.release()}; {args.runs} runs each, medians, warm cache.")
emit("")
emit("| input | command | median s | MB/s | vs `wc -l` | M events/s | peak RSS |")
emit("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for size in args.sizes.split(","):
    path = os.path.join(root, "bench/out", f"gen-{size}.txt")
    mb = os.path.getsize(path) / 1e6
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL)  # warm
    wc, _, _, out = median_of(["wc", "-l", path])
    nlines = int(out.split()[0])
    emit(f"| gen-{size} ({mb:.0f} MB, {nlines} lines) | `wc -l` | {wc:.3f} | "
         f"{mb / wc:.0f} | 1.00 | | |")
    for label, cmd in (
            ("`trawl stats` (default: 2 threads)", [trawl, "stats", path]),
            ("`trawl stats --threads 1`", [trawl, "stats", "--threads", "1", path])):
        t, _, user, out = median_of(cmd)
        events = int(re.search(rb"events:\s+(\d+)", out).group(1))
        rss = rss_of(cmd)
        emit(f"| gen-{size} | {label} | {t:.3f} | {mb / t:.0f} | "
             f"{t / wc:.2f}x | {events / t / 1e6:.1f} | {rss / 1024:.1f} MB |")
    out = subprocess.run([cb, path, str(args.runs)], capture_output=True,
                         check=True).stdout.decode()
    m = re.search(r"median ([\d.]+) s .*?(\d+) events \(([\d.]+) M/s\), (\d+) .*?\(([\d.]+) M/s\)", out)
    t = float(m.group(1))
    emit(f"| gen-{size} | `bench-callback` (next_pid/prev_pid/pid via handles) | "
         f"{t:.3f} | {mb / t:.0f} | {t / wc:.2f}x | {m.group(3)} all, "
         f"{m.group(5)} callbacks | |")
    t, _, _, _ = median_of(f"cat {path} | {trawl} stats -", shell=True)
    emit(f"| gen-{size} | `cat FILE \\| trawl stats -` (pipe: external sort path) | "
         f"{t:.3f} | {mb / t:.0f} | {t / wc:.2f}x | | |")
print("\n".join(lines))
