#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The trace.dat reader's merge-ahead thread: where it pays and where not.

Runs light and heavy consumers (`trawl stats`, a script reading a few
integers, `trawl report`, `export --to csv`) on trace.dat files with the
default thread setting and with --threads 1, interleaved round by round, and
prints medians of wall and CPU (user + sys) time and the ratio of the
default to --threads 1. With --before BINARY the same runs of another trawl
(an older build) go into the same rounds, so before and after are measured
on the same machine at the same time.

usage: bench/bench-ahead.py [--build build] [--runs 7] [--before /tmp/trawl-old]
                            FILE.dat...
"""
import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--runs", type=int, default=7)
ap.add_argument("--before", help="another trawl binary, run in the same rounds")
ap.add_argument("--only", default="", help="comma list of consumers to run")
ap.add_argument("files", nargs="+")
args = ap.parse_args()

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
trawl = os.path.join(root, args.build, "tools/trawl/trawl")
script = ("sched:sched_switch { @n[cpu] = count(); @s = sum(args.prev_pid); }\n"
          "sched:sched_wakeup { @w = count(); }\n")
script_file = "/tmp/bench-ahead.tw"
with open(script_file, "w") as f:
    f.write(script)
consumers = {
    "stats": lambda p: ["stats", p],
    "script": lambda p: ["run", script_file, p],
    "report": lambda p: ["report", p],
    "csv": lambda p: ["export", "--to", "csv", "-o", "/tmp/bench-ahead-csv", p],
}
if args.only:
    consumers = {k: v for k, v in consumers.items() if k in args.only.split(",")}
binaries = [("after", trawl)] + ([("before", args.before)] if args.before else [])


def warm(path):
    # this machine's page cache loses a few % of a file within seconds
    # (seen with fincore), so every run reads it warm just before
    with open(path, "rb") as f:
        while f.read(1 << 22):
            pass


def run(cmd):
    warm(cmd[-1])
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("failed: %s" % " ".join(cmd))
    return t, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def events(path):
    out = subprocess.run([trawl, "stats", "--json", path], capture_output=True,
                         check=True, text=True).stdout
    import json
    return json.loads(out)["total_events"]


print("Machine: %s, %d CPUs, kernel %s; medians of %d interleaved rounds, "
      "warm cache." % (platform.machine(), os.cpu_count(), platform.release(),
                       args.runs))
print()
print("| file | consumer | trawl | threads | wall s | CPU s | M events/s | "
      "default / --threads 1 |")
print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
for path in args.files:
    n = events(path)
    name = "%s (%.0f MB, %.2f M events)" % (os.path.basename(path),
                                            os.path.getsize(path) / 1e6, n / 1e6)
    for cname, mk in consumers.items():
        cells = {}
        keys = [(b, th) for b, _ in binaries for th in ("default", "1")]
        for _ in range(args.runs):
            for b, binary in binaries:
                for th in ("default", "1"):
                    cmd = [binary] + mk(path)
                    if th == "1":
                        cmd[2:2] = ["--threads", "1"]
                    cells.setdefault((b, th), []).append(run(cmd))
        for b, th in keys:
            walls = [w for w, _ in cells[(b, th)]]
            cpus = [c for _, c in cells[(b, th)]]
            w = statistics.median(walls)
            ratio = ""
            if th == "default":
                w1 = statistics.median(x for x, _ in cells[(b, "1")])
                ratio = "%.2fx" % (w / w1)
            print("| %s | %s | %s | %s | %.3f | %.3f | %.1f | %s |" %
                  (name, cname, b, th, w, statistics.median(cpus), n / w / 1e6,
                   ratio))
        sys.stdout.flush()
