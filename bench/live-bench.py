#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""On-line against off-line: the same one-liners (a) live with `trawl run
--live`: in the kernel (--backend bpf), and on ftrace's events with and
without pushing the predicate into the kernel's filter,
(b) recorded with `trawl record --clock mono` (the clock live mode uses)
then run on the file with `trawl run`,
(c) with bpftrace (Debian's 0.17), under the same generated load
(bench/pingpong: a pair of threads per CPU passing a byte through pipes,
every hop a wakeup and two switches).

Cost runs: each tracer alone, started first (one second to set up, two
for bpftrace, which compiles), then the load as a separate process for
SECONDS, then SIGINT. The tracer's CPU is utime + stime from wait4()
(all threads; bpftrace's BPF programs run in the traced tasks and are
charged to them, so the load's round trips say what tracing cost it).
Events: what trawl's summary says it delivered (live) or the file holds;
lost: the kernel's overrun counts (trawl), "Lost" lines (bpftrace).

Agreement runs: trawl run --live, trawl record and bpftrace all at once
on one load started after all three are ready; the load's own counts
(the pingpong task's switches, its wakeup latency histogram) compared
between the three and trawl run on the recorded file.

usage: bench/live-bench.py [--runs 3] [--seconds 3]  (root)
"""
import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.path.join(ROOT, os.environ.get("TRAWL_BUILD", "build"))
TRAWL = (os.path.join(BUILD, "trawl") if os.path.exists(os.path.join(BUILD, "trawl"))
         else os.path.join(BUILD, "tools", "trawl", "trawl"))
PINGPONG = os.path.join(BUILD, "bench", "pingpong")

# name: (trawl program, bpftrace program, events for trawl record)
SCRIPTS = {
    "switches by comm": (
        'sched:sched_switch { @[args.prev_comm] = count(); }',
        'tracepoint:sched:sched_switch { @[args->prev_comm] = count(); }',
        ["sched:sched_switch"]),
    "wakeup latency hist": (
        'sched:sched_wakeup /args.comm == "pingpong"/ { @ts[args.pid] = ts; } '
        'sched:sched_switch /@ts[args.next_pid]/ { '
        '@us = hist((ts - @ts[args.next_pid]) / 1000); '
        'delete(@ts[args.next_pid]); } END { clear(@ts); }',
        'tracepoint:sched:sched_wakeup /args->comm == "pingpong"/ '
        '{ @ts[args->pid] = nsecs; } '
        'tracepoint:sched:sched_switch /@ts[args->next_pid]/ { '
        '@us = hist((nsecs - @ts[args->next_pid]) / 1000); '
        'delete(@ts[args->next_pid]); } END { clear(@ts); }',
        ["sched:sched_switch", "sched:sched_wakeup"]),
    "rt switches (selective)": (
        'sched:sched_switch /args.next_prio < 100/ { @[args.next_comm] = count(); }',
        'tracepoint:sched:sched_switch /args->next_prio < 100/ '
        '{ @[args->next_comm] = count(); }',
        ["sched:sched_switch"]),
}


def load(seconds):
    r = subprocess.run([PINGPONG, str(seconds)], capture_output=True,
                       text=True, check=True)
    return int(r.stdout.split()[0])


def stop(p):
    # (Popen.send_signal() would poll, and reap it if it ended already);
    # again every 2 s: bpftrace misses a SIGINT that comes while it attaches
    for i in range(100):
        if i % 20 == 0:
            os.kill(p.pid, signal.SIGINT)
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        time.sleep(0.1)
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped: not again
    out = p.stdout.read().decode(errors="replace") if p.stdout else ""
    err = p.stderr.read().decode(errors="replace") if p.stderr else ""
    return os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime, out, err


def live_summary(err):
    m = re.search(r"live ([\d.]+) s: (\d+) events \(([\d.]+) MB.*?, (\d+) lost", err)
    if not m:
        sys.exit("no summary from trawl: " + err)
    late = re.search(r"(\d+) late", err)
    return {"seconds": float(m.group(1)), "events": int(m.group(2)),
            "lost": int(m.group(4)), "late": int(late.group(1)) if late else 0}


def run_trawl_live(prog, seconds, pushdown, backend="ftrace"):
    cmd = [TRAWL, "run", "--live", "--backend", backend, "--json", "-e", prog] + \
        ([] if pushdown else ["--no-pushdown"])
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(1.0)
    trips = load(seconds)
    time.sleep(0.3)
    rc, cpu, out, err = stop(p)
    if rc:
        sys.exit("trawl run --live failed: " + err)
    s = json.loads(out)
    return {"cpu": cpu, "trips": trips, "events": s["events"],
            "lost": s["lost_events"], "late": s["late_events"], "out": out}


def run_trawl_record(prog, events, seconds, d):
    f = os.path.join(d, "rec.dat")
    cmd = [TRAWL, "record", "-o", f, "--json", "--clock", "mono"]
    for e in events:
        cmd += ["-e", e]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(1.0)
    trips = load(seconds)
    time.sleep(0.3)
    rc, cpu_rec, out, err = stop(p)
    if rc:
        sys.exit("trawl record failed: " + err)
    s = json.loads(out)
    t0 = time.time()
    q = subprocess.Popen([TRAWL, "run", "-e", prog, f], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    _, status, ru = os.wait4(q.pid, 0)
    q.returncode = os.waitstatus_to_exitcode(status)
    wall = time.time() - t0
    res = q.stdout.read().decode()
    return {"cpu": cpu_rec + ru.ru_utime + ru.ru_stime, "cpu_record": cpu_rec,
            "cpu_run": ru.ru_utime + ru.ru_stime, "run_wall": wall,
            "trips": trips, "events": s["total_events"], "lost": s["lost_events"],
            "out": res}


def run_bpftrace(prog, seconds):
    p = subprocess.Popen(["bpftrace", "-e", prog], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    time.sleep(2.0)
    trips = load(seconds)
    time.sleep(0.3)
    rc, cpu, out, err = stop(p)
    lost = sum(int(x) for x in re.findall(r"Lost (\d+) events", out + err))
    return {"cpu": cpu, "trips": trips, "events": None, "lost": lost, "out": out}


def counts(out):
    """@[key]: n lines as a dict; hist lines as (lo, hi) -> n."""
    d = {}
    for line in out.splitlines():
        m = re.match(r"@\[(.*)\]: (\d+)$", line)
        if m:
            d[m.group(1)] = int(m.group(2))
        m = re.match(r"\[([\dKM]+), ([\dKM]+)\)\s+(\d+)", line)
        if m:
            d[(m.group(1), m.group(2))] = int(m.group(3))
        m = re.match(r"\[(\d+)\]\s+(\d+)", line)
        if m:
            d[(m.group(1), m.group(1))] = int(m.group(2))
    return d


def agreement(name, trawl_prog, bt_prog, events, seconds, d):
    """All three tracers on one load; the load's counts compared."""
    f = os.path.join(d, "agree.dat")
    rec = [TRAWL, "record", "-o", f, "--clock", "mono"]
    for e in events:
        rec += ["-e", e]
    ps = {
        "live": subprocess.Popen([TRAWL, "run", "--live", "--backend", "ftrace",
                                  "-e", trawl_prog,
                                  "--record", os.path.join(d, "live.dat")],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE),
        "record": subprocess.Popen(rec, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE),
        "bpftrace": subprocess.Popen(["bpftrace", "-e", bt_prog],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE),
    }
    time.sleep(2.5)
    load(seconds)
    time.sleep(0.5)
    outs = {}
    for k, p in ps.items():
        rc, _, out, err = stop(p)
        outs[k] = out
        if k == "live":
            outs["live-summary"] = live_summary(err)
    outs["record+run"] = subprocess.run([TRAWL, "run", "-e", trawl_prog, f],
                                        capture_output=True, text=True).stdout
    outs["live --record, off line"] = subprocess.run(
        [TRAWL, "run", "-e", trawl_prog, os.path.join(d, "live.dat")],
        capture_output=True, text=True).stdout
    return outs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--only", default=None)
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("live-bench: needs root")
    d = tempfile.mkdtemp(prefix="live-bench.")
    print("trawl: %s\nload: %s %g s, %d runs each, interleaved\n" %
          (TRAWL, PINGPONG, a.seconds, a.runs))

    for name, (tp, bp, events) in SCRIPTS.items():
        if a.only and a.only not in name:
            continue
        print("== %s\n   trawl:    %s\n   bpftrace: %s" % (name, tp, bp))
        res = {k: [] for k in ("untraced", "live in-kernel (bpf)", "live",
                               "live no pushdown", "record + run", "bpftrace")}
        for _ in range(a.runs):
            res["untraced"].append({"cpu": 0.0, "trips": load(a.seconds),
                                    "events": None, "lost": 0})
            res["live in-kernel (bpf)"].append(
                run_trawl_live(tp, a.seconds, True, "bpf"))
            res["live"].append(run_trawl_live(tp, a.seconds, True))
            res["live no pushdown"].append(run_trawl_live(tp, a.seconds, False))
            res["record + run"].append(run_trawl_record(tp, events, a.seconds, d))
            res["bpftrace"].append(run_bpftrace(bp, a.seconds))
        base = statistics.median(r["trips"] for r in res["untraced"])
        for k, rs in res.items():
            med = lambda f: statistics.median(r[f] for r in rs)
            kernel = k == "bpftrace" or "bpf" in k
            ev = ("%9d events %8.0f/s" % (med("events"), med("events") / a.seconds)
                  if rs[0]["events"] is not None and not kernel else "%26s" % (
                      "(in-kernel maps)" if kernel else ""))
            extra = ""
            if k == "record + run":
                extra = "  (record %.3f s + run %.3f s)" % (med("cpu_record"), med("cpu_run"))
            print("   %-17s cpu %6.3f s  lost %7d  %s  load %7d trips (%.2f of untraced)%s" %
                  (k, med("cpu"), med("lost"), ev, med("trips"),
                   med("trips") / base, extra))
        outs = agreement(name, tp, bp, events, a.seconds, d)
        c = {k: counts(v) for k, v in outs.items()
             if isinstance(v, str) and k != "record"}
        key = "pingpong" if "comm" in name else None
        print("   agreement on one load (all at once):")
        for k, v in c.items():
            if key:
                print("     %-24s @[pingpong] = %s" % (k, v.get(key)))
            else:
                print("     %-24s %d in all: %s" % (k, sum(v.values()),
                                                    sorted(v.items())))
        print("     live summary: %s\n" % outs["live-summary"], flush=True)


if __name__ == "__main__":
    main()
