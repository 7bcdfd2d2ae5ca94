#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trawl report and exports of a trace.dat against `trace-cmd report` on the
same file, and against `trawl report` of the same events as the kernel's
text (bench/dat-to-text.py), all in the same run.

usage: bench/run-report.py [--build build] [--runs 3] [--tc-runs 2]
Inputs: bench/out/big.dat (v7, zstd) and big-nocomp.dat from
bench/make-dat-input.sh (as root); bench/out/big.txt is made from big.dat
when missing. Output goes to /dev/null, exports to a scratch directory.
Prints a Markdown table: median seconds, M events/s, and the ratios.
"""
import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--runs", type=int, default=3)
ap.add_argument("--tc-runs", type=int, default=2)
args = ap.parse_args()

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
trawl = os.path.join(root, args.build, "tools/trawl/trawl")
out = os.path.join(root, "bench/out")
dat, nocomp, txt = (os.path.join(out, n)
                    for n in ("big.dat", "big-nocomp.dat", "big.txt"))
if not (os.path.exists(dat) and os.path.exists(nocomp)):
    sys.exit("missing inputs: run `sudo bench/make-dat-input.sh` first")
if not os.path.exists(txt):
    with open(txt, "wb") as f:
        subprocess.run([sys.executable, os.path.join(root, "bench/dat-to-text.py"),
                        trawl, dat], stdout=f, check=True)


def wall(cmd, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def events(path):
    p = subprocess.run([trawl, "stats", "--json", path], capture_output=True,
                       check=True)
    import json
    return json.loads(p.stdout)["total_events"]


n = events(dat)
scratch = tempfile.mkdtemp(prefix="trawl-bench-report.")
print(f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, kernel "
      f"{platform.release()}; {n} events; medians of {args.runs} runs "
      f"({args.tc_runs} for trace-cmd report), warm cache, output to "
      f"/dev/null.")
print()
rows = []
tc = wall(["trace-cmd", "report", dat], args.tc_runs)
rows.append(("big.dat", "trace-cmd report", tc))
text_report = wall([trawl, "report", txt], args.runs)
cases = [
    ("big.dat", [trawl, "report", dat]),
    ("big-nocomp.dat", [trawl, "report", nocomp]),
    ("big.dat", [trawl, "report", "--raw", dat]),
    ("big.dat", [trawl, "report", "--json", dat]),
    ("big.dat", [trawl, "export", dat, "--to", "csv", "-o",
                 os.path.join(scratch, "csv")]),
    ("big.dat", [trawl, "export", dat, "--to", "perfetto", "-o",
                 os.path.join(scratch, "p.json")]),
    ("big.dat", [trawl, "stats", dat]),
    ("big.txt", [trawl, "stats", txt]),
]
for name, cmd in cases:
    if "csv" in cmd:
        shutil.rmtree(os.path.join(scratch, "csv"), ignore_errors=True)
    rows.append((name, " ".join(["trawl"] + cmd[1:2] + [c for c in cmd[2:]
                                 if c.startswith("--")]), wall(cmd, args.runs)))
rows.insert(2, ("big.txt", "trawl report", text_report))
print("| input | command | median s | M events/s | vs trace-cmd report | "
      "vs trawl report of the text |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for name, cmd, t in rows:
    print(f"| {name} | `{cmd}` | {t:.2f} | {n / t / 1e6:.1f} | "
          f"{tc / t:.1f}x | {t / text_report:.2f} |")
shutil.rmtree(scratch, ignore_errors=True)
