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
ap.add_argument("--old", help="another build dir to time on big.dat too")
ap.add_argument("--only", action="append",
                help="time only this command (e.g. 'export csv'); repeat")
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


def clear_outputs():
    """What the exports wrote before goes before each run (outside the
    time): each run writes new files, as trace-cmd report > file does,
    instead of truncating the last run's first."""
    for name in os.listdir(scratch):
        path = os.path.join(scratch, name)
        if os.path.isdir(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)


def wall(cmd, runs):
    times = []
    for _ in range(runs):
        clear_outputs()
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
      f"/dev/null (exports to {tempfile.gettempdir()}).")
print()


def cmd_of(binary, what, path):
    if what == "export perfetto -o /dev/null":
        return [binary, "export", path, "--to", "perfetto", "-o", "/dev/null"]
    if what.startswith("export csv"):
        shutil.rmtree(os.path.join(scratch, "csv"), ignore_errors=True)
        return [binary, "export", path, "--to", "csv", "-o",
                os.path.join(scratch, "csv")] + what.split()[2:]
    if what == "export perfetto":
        return [binary, "export", path, "--to", "perfetto", "-o",
                os.path.join(scratch, "p.json")]
    return [binary] + what.split() + [path]


tc = wall(["trace-cmd", "report", dat], args.tc_runs)
# The commands that write files are compared with trace-cmd report writing
# its text to a file on the same file system too (the same kind of work:
# the page cache's copy of the output is in both).
tc_file_out = os.path.join(scratch, "trace-cmd-report.txt")
tc_file = wall(["sh", "-c", 'trace-cmd report "$0" > "$1"', dat, tc_file_out],
               args.tc_runs)
tc_file_bytes = os.path.getsize(tc_file_out)
clear_outputs()
TO_FILE = ("export csv", "export csv --all", "export perfetto")
print("| command | big.dat s | M events/s | vs trace-cmd report | "
      "same on big.txt s | big.dat / big.txt |" +
      (" before (--old) big.dat s |" if args.old else ""))
print("| --- | ---: | ---: | ---: | ---: | ---: |" +
      (" ---: |" if args.old else ""))
print(f"| `trace-cmd report` | {tc:.2f} | {n / tc / 1e6:.1f} | 1.0x | | |" +
      (" |" if args.old else ""))
print(f"| `trace-cmd report > file` ({tc_file_bytes / 1e9:.2f} GB) | "
      f"{tc_file:.2f} | {n / tc_file / 1e6:.1f} | {tc / tc_file:.2f}x | | |" +
      (" |" if args.old else ""))
csv_bytes = 0
for what in ("report", "report --threads 1", "report --raw",
             "report --json", "export csv", "export csv --all",
             "export perfetto", "export perfetto -o /dev/null", "stats"):
    if args.only and what not in args.only:
        continue
    td = wall(cmd_of(trawl, what, dat), args.runs)
    if what == "export csv" and not csv_bytes:
        csv_bytes = sum(os.path.getsize(os.path.join(scratch, "csv", f))
                        for f in os.listdir(os.path.join(scratch, "csv")))
    tt = wall(cmd_of(trawl, what, txt), args.runs)
    vs = f"{tc / td:.1f}x"
    if what in TO_FILE:
        vs += f" ({tc_file / td:.1f}x vs `> file`)"
    row = (f"| `trawl {what}` | {td:.2f} | {n / td / 1e6:.1f} | "
           f"{vs} | {tt:.2f} | {td / tt:.2f} |")
    if args.old:
        old = os.path.join(root, args.old, "tools/trawl/trawl")
        w = what if what != "report --raw" else "report"
        w = w.replace(" --threads 1", "").replace(" --all", "")
        to = wall(cmd_of(old, w, dat), args.runs)
        row += f" {to:.2f} |"
    print(row)
if not csv_bytes:
    shutil.rmtree(scratch, ignore_errors=True)
    sys.exit(0)
# What writing the CSV's bytes alone costs on this file system: the floor
# under `export csv`, whatever trawl does.
floor = os.path.join(scratch, "floor")
mb = max(1, csv_bytes >> 20)
tf = wall(["dd", "if=/dev/zero", "of=" + floor, "bs=1M", f"count={mb}"],
          args.runs)
os.unlink(floor)
print()
print(f"`export csv` writes {csv_bytes / 1e9:.2f} GB; `dd` of as many bytes "
      f"to the same file system takes {tf:.2f} s ({tc / tf:.1f}x under "
      f"trace-cmd report's time).")
tn = wall([trawl, "report", nocomp], args.runs)
print()
print(f"`trawl report big-nocomp.dat` (the same file uncompressed): {tn:.2f} s, "
      f"{tc / tn:.1f}x trace-cmd report of big.dat.")
shutil.rmtree(scratch, ignore_errors=True)
