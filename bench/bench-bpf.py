#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The BPF back end of `trawl run --live` against its ftrace path and
bpftrace (Debian's 0.17), on the same loads:

  cost:     bench/syscall-loop N (N getppid() calls, its own ns per call)
            alone and under each tracer running the same one-liner; the
            load's slowdown is what tracing costs it (BPF programs run in
            the traced task), the tracer's own CPU is utime + stime from
            wait4() after SIGINT;
  pingpong: bench/pingpong's round trips in SECONDS (wakeups and switches
            on both CPUs) under a sched_switch count by comm;
  start-up: from exec to the tracer's BEGIN output (printed after its
            probes are attached), and its peak RSS then (VmHWM: wait4's
            ru_maxrss would also count the forked Python before exec).

Medians of --runs. usage: bench/bench-bpf.py [--runs 5] [--calls 2000000]
[--seconds 2] [--startup-only | --kstack-only] (root)
"""
import argparse
import os
import select
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.path.join(ROOT, os.environ.get("TRAWL_BUILD", "build"))
TRAWL = os.path.join(BUILD, "tools", "trawl", "trawl")
LOOP = os.path.join(BUILD, "bench", "syscall-loop")
PINGPONG = os.path.join(BUILD, "bench", "pingpong")

COUNT_T = 'tracepoint:syscalls:sys_enter_getppid { @[pid] = count(); }'
HIST_T = 'tracepoint:syscalls:sys_exit_getppid { @ = hist(args.ret); }'
SW_T = 'tracepoint:sched:sched_switch { @[args.prev_comm] = count(); }'
KSTACK_T = 'tracepoint:syscalls:sys_enter_getppid { @[kstack] = count(); }'
TRACERS = {
    "trawl bpf": lambda p: [TRAWL, "run", "--live", "--backend", "bpf", "-e", p],
    "trawl ftrace": lambda p: [TRAWL, "run", "--live", "--backend", "ftrace", "-e", p],
    "bpftrace": lambda p: ["bpftrace", "-e", p.replace("args.", "args->")],
}


def start(cmd):
    """Start a tracer; return (proc, seconds to its 'ready' line)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    buf = b""
    while b"ready" not in buf:
        r, _, _ = select.select([p.stdout], [], [], 30)
        if not r:
            p.kill()
            sys.exit(f"{cmd[0]} did not start")
        chunk = os.read(p.stdout.fileno(), 4096)
        if not chunk:
            sys.exit(f"{cmd[0]} exited before it was ready")
        buf += chunk
    return p, time.monotonic() - t0


def stop(p):
    p.send_signal(signal.SIGINT)
    out = b""
    deadline = time.monotonic() + 20
    while True:
        r, _, _ = select.select([p.stdout], [], [], 1)
        if not r:
            # bpftrace 0.17 now and then keeps polling after a SIGINT
            # that came right after its BEGIN (minutes, once)
            if time.monotonic() > deadline:
                print(f"# {p.args[0]} did not stop 20 s after SIGINT: "
                      "killed", file=sys.stderr)
                p.kill()
                deadline = float("inf")
            continue
        chunk = os.read(p.stdout.fileno(), 65536)
        if not chunk:
            break
        out += chunk
    _, status, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss, out.decode(errors="replace")


def peak_rss_kb(pid):
    """The process's peak resident set so far (its own, since exec)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def load_ns(calls):
    return float(subprocess.run([LOOP, str(calls)], capture_output=True,
                                text=True, check=True).stdout)


def pingpong(seconds):
    out = subprocess.run([PINGPONG, str(seconds)], capture_output=True,
                         text=True, check=True).stdout
    return int(out.split()[0])


def table(runs, prog, measure, what, delta_name, delta):
    """The load alone, then under each tracer running prog: medians."""
    ready = ' BEGIN { printf("ready\\n"); }'
    base = statistics.median(measure() for _ in range(runs))
    print(f"| tracer | {what} | {delta_name} | tracer CPU s |")
    print("|---|---|---|---|")
    print(f"| none | {base:.0f} | | |")
    for tr, mk in TRACERS.items():
        got, cpu = [], []
        for _ in range(runs):
            p, _ = start(mk(prog + ready))
            got.append(measure())
            c, _, _ = stop(p)
            cpu.append(c)
        m = statistics.median(got)
        print(f"| {tr} | {m:.0f} | {delta(m, base)} | "
              f"{statistics.median(cpu):.3f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--calls", type=int, default=2000000)
    ap.add_argument("--seconds", type=float, default=2)
    ap.add_argument("--startup-only", action="store_true",
                    help="only the start-up table")
    ap.add_argument("--kstack-only", action="store_true",
                    help="only the cost of a count by kstack")
    a = ap.parse_args()
    ready = ' BEGIN { printf("ready\\n"); }'
    print(f"# {a.calls} getppid() calls, pingpong {a.seconds} s, "
          f"medians of {a.runs} runs")
    costs = (("count by pid", COUNT_T), ("hist of ret", HIST_T),
             ("count by kstack", KSTACK_T))
    if a.kstack_only:
        costs = costs[2:]
    for name, prog in (() if a.startup_only else costs):
        print(f"\n## {name}: {prog}\n")
        table(a.runs, prog, lambda: load_ns(a.calls),
              "ns per call", "slowdown (ns)", lambda m, base: f"{m - base:.0f}")
    if a.kstack_only:
        return
    if not a.startup_only:
        print(f"\n## pingpong round trips in {a.seconds} s: {SW_T}\n")
        table(a.runs, SW_T, lambda: pingpong(a.seconds), "round trips",
              "lost to tracing",
              lambda m, base: f"{100 * (1 - m / base):.1f} %")
    print("\n## start-up: exec to BEGIN's output (probes attached)\n")
    print("| tracer | one-liner | start-up ms | peak RSS at ready MB |")
    print("|---|---|---|---|")
    for prog in (COUNT_T, HIST_T):
        for tr, mk in TRACERS.items():
            secs, rss = [], []
            for _ in range(a.runs):
                p, s = start(mk(prog + ready))
                rss.append(peak_rss_kb(p.pid))
                stop(p)
                secs.append(s)
            print(f"| {tr} | {prog.split('{')[1].strip(' }')} | "
                  f"{1000 * statistics.median(secs):.1f} | "
                  f"{statistics.median(rss) / 1024:.1f} |")


if __name__ == "__main__":
    main()
