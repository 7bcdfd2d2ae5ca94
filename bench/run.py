#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Benchmark driver: trawl stats and the C callback benchmark on the generated
100 MB and 1 GB ftrace text, against `wc -l` on the same bytes, same run.

usage: bench/run.py [--build build] [--runs 5] [--sizes 100M,1G]
                    [--mix real,sched] [--skip pipe,threads1] [--callgrind]
Prints a Markdown section to paste into bench/RESULTS.md. Timings are medians
of --runs runs with a warm page cache; peak RSS is the largest seen; user s is
the median user CPU time of a run (for bench-callback: its total over its
--runs runs, divided by them), steadier than wall time on a shared machine.

--mix: which generator mixes to measure (bench/make-inputs.sh --mix; real is
gen-SIZE.txt, sched is gen-sched-SIZE.txt, the mix before issue 9). For each
size the mixes are measured one after the other, each with its own `wc -l`.
--skip: leave out rows (pipe: `cat FILE | trawl stats -`; threads1: `trawl
stats --threads 1`).
--callgrind: also count instructions (valgrind --tool=callgrind) of
`bench-callback FILE 1` and `trawl stats --threads 1 FILE` on the first
20,000,000 bytes of each mix's smallest file (cut at a line end).
"""
import argparse
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--sizes", default="100M,1G")
ap.add_argument("--mix", default="real")
ap.add_argument("--skip", default="")
ap.add_argument("--callgrind", action="store_true")
args = ap.parse_args()
mixes = args.mix.split(",")
skip = set(filter(None, args.skip.split(",")))
for m in mixes:
    if m not in ("real", "sched"):
        sys.exit(f"--mix: real or sched, not {m}")

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
trawl = os.path.join(root, args.build, "tools/trawl/trawl")
cb = os.path.join(root, args.build, "bench/bench-callback")
sizes = args.sizes.split(",")
for m in mixes:
    subprocess.run([os.path.join(root, "bench/make-inputs.sh"), "--mix", m, *sizes],
                   check=True, stdout=subprocess.DEVNULL)


def input_path(mix, size):
    prefix = "gen-" if mix == "real" else "gen-sched-"
    return os.path.join(root, "bench/out", f"{prefix}{size}.txt")


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
emit("| input | command | median s | user s | MB/s | vs `wc -l` | M events/s | peak RSS |")
emit("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for size in sizes:
    for mix in mixes:
        path = input_path(mix, size)
        name = os.path.basename(path)[:-4]
        mb = os.path.getsize(path) / 1e6
        subprocess.run(["cat", path], stdout=subprocess.DEVNULL)  # warm
        wc, _, wcu, out = median_of(["wc", "-l", path])
        nlines = int(out.split()[0])
        emit(f"| {name} ({mb:.0f} MB, {nlines} lines) | `wc -l` | {wc:.3f} | {wcu:.3f} | "
             f"{mb / wc:.0f} | 1.00 | | |")
        rows = [("`trawl stats` (default: 2 threads)", [trawl, "stats", path])]
        if "threads1" not in skip:
            rows.append(("`trawl stats --threads 1`",
                         [trawl, "stats", "--threads", "1", path]))
        for label, cmd in rows:
            t, _, user, out = median_of(cmd)
            events = int(re.search(rb"events:\s+(\d+)", out).group(1))
            bad = int(re.search(rb"bad lines:\s+(\d+)", out).group(1))
            if bad:
                sys.exit(f"{path}: {bad} bad lines")
            rss = rss_of(cmd)
            emit(f"| {name} | {label} | {t:.3f} | {user:.3f} | {mb / t:.0f} | "
                 f"{t / wc:.2f}x | {events / t / 1e6:.1f} | {rss / 1024:.1f} MB |")
        _, _, user, out = timed([cb, path, str(args.runs)])
        m = re.search(r"median ([\d.]+) s .*?(\d+) events \(([\d.]+) M/s\), (\d+) .*?\(([\d.]+) M/s\)",
                      out.decode())
        t = float(m.group(1))
        emit(f"| {name} | `bench-callback` (next_pid/prev_pid/pid via handles) | "
             f"{t:.3f} | {user / args.runs:.3f} | {mb / t:.0f} | {t / wc:.2f}x | {m.group(3)} all, "
             f"{m.group(5)} callbacks | |")
        if "pipe" not in skip:
            t, _, _, _ = median_of(f"cat {path} | {trawl} stats -", shell=True)
            emit(f"| {name} | `cat FILE \\| trawl stats -` (pipe: external sort path) | "
                 f"{t:.3f} | | {mb / t:.0f} | {t / wc:.2f}x | | |")


def callgrind_ir(cmd):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                            *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode != 0:
            sys.exit(f"failed: {cmd}\n{p.stderr.decode()}")
        m = re.search(rb"Collected : (\d+)", p.stderr)
        return int(m.group(1))


if args.callgrind:
    emit("")
    emit("Instructions (callgrind), first 20,000,000 bytes (cut at a line end) of "
         f"each mix's {sizes[0]} file:")
    emit("")
    emit("| input | lines | `bench-callback PREFIX 1` | per line | "
         "`trawl stats --threads 1 PREFIX` | per line |")
    emit("| --- | ---: | ---: | ---: | ---: | ---: |")
    for mix in mixes:
        path = input_path(mix, sizes[0])
        with open(path, "rb") as f:
            data = f.read(20_000_000)
        data = data[:data.rfind(b"\n") + 1]
        with tempfile.NamedTemporaryFile(prefix="trawl-prefix-", suffix=".txt") as tmp:
            tmp.write(data)
            tmp.flush()
            nl = data.count(b"\n")
            a = callgrind_ir([cb, tmp.name, "1"])
            b = callgrind_ir([trawl, "stats", "--threads", "1", tmp.name])
            emit(f"| {os.path.basename(path)[:-4]} prefix | {nl} | {a:,} | {a / nl:.0f} | "
                 f"{b:,} | {b / nl:.0f} |")
print("\n".join(lines))
