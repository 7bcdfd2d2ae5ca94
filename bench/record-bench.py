#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Recording benchmark: trawl record against trace-cmd record (3.1.6).

Both record the same events (sched and irq) with the same buffer size while
bench/pingpong makes wakeups and switches on every CPU for SECONDS. The load
runs as a separate process, so the recorder's CPU time is its own: utime +
stime from wait4() on the recorder, which include its reaped children
(trace-cmd's per-CPU recorder processes) and all threads (trawl's readers).
Lost events are the kernel's overrun + dropped counts per CPU, taken for
both from the CPUSTAT options in the file (`trace-cmd dump --options`);
saved events are what `trace-cmd report` prints. Runs alternate between the
two recorders; medians are reported.

trace-cmd record fails on machines where the function tracer's files are
EPERM; it runs under /work/shared/tools/ftshim (FTSHIM_DIR, built here when
missing). Needs root.

usage: bench/record-bench.py [--runs 5] [--seconds 3] [--buffer-kb 1410]
"""
import argparse
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
# TRAWL_BUILD=DIR: another build directory (default build/)
BUILD = os.path.join(ROOT, os.environ.get("TRAWL_BUILD", "build"))
TRAWL = (os.path.join(BUILD, "trawl") if os.path.exists(os.path.join(BUILD, "trawl"))
         else os.path.join(BUILD, "tools", "trawl", "trawl"))
PINGPONG = os.path.join(BUILD, "bench", "pingpong")
SHIM_C = "/work/shared/tools/ftshim.c"


def ftshim():
    d = os.environ.get("FTSHIM_DIR")
    if d and os.path.exists(os.path.join(d, "ftshim.so")):
        return d
    d = tempfile.mkdtemp(prefix="ftshim.")
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o",
                    os.path.join(d, "ftshim.so"), SHIM_C, "-ldl"], check=True)
    files = {"set_ftrace_pid": "no pid\n", "set_ftrace_notrace_pid": "no pid\n",
             "set_ftrace_filter": "#### all functions enabled ####\n",
             "set_ftrace_notrace": "", "set_graph_function": "",
             "set_graph_notrace": "", "ftrace_enabled": "1\n"}
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    return d


def lost_from_file(path):
    out = subprocess.run(["trace-cmd", "dump", "--options", path],
                         capture_output=True, text=True).stdout
    lost = {}
    for m in re.finditer(r"CPU: (\d+)\n(.*?)(?=\n\s*\[Option|\Z)", out, re.S):
        body = m.group(2)
        ov = re.search(r"^overrun: (\d+)", body, re.M)
        dr = re.search(r"^dropped events: (\d+)", body, re.M)
        lost[int(m.group(1))] = (int(ov.group(1)) if ov else 0) + \
                                (int(dr.group(1)) if dr else 0)
    return lost


def saved_events(path):
    p = subprocess.Popen(["trace-cmd", "report", path], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    n = 0
    pat = re.compile(rb"\[\d+\]\s+\d+\.\d+:")
    for line in p.stdout:
        if pat.search(line):
            n += 1
    p.wait()
    return n


TFS = "/sys/kernel/tracing"
# trace-cmd record leaves buffer_size_kb as -b set it (64 KiB becomes 67);
# these are saved before the runs and written back after, whatever happens.
SETTINGS = ["buffer_size_kb", "tracing_on", "options/overwrite",
            "buffer_percent"]


def save_tracefs():
    saved = {}
    for f in SETTINGS:
        with open(os.path.join(TFS, f)) as fh:
            saved[f] = fh.read().strip()
    with open(os.path.join(TFS, "trace_clock")) as fh:
        saved["trace_clock"] = re.search(r"\[(\S+)\]", fh.read()).group(1)
    return saved


def restore_tracefs(saved):
    for f, v in saved.items():
        with open(os.path.join(TFS, f), "w") as fh:
            fh.write(v)


def run_one(cmd, env, seconds, out):
    """Start the recorder, run the load beside it, stop it with SIGINT."""
    if os.path.exists(out):
        os.unlink(out)
    rec = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    time.sleep(1.0)  # set-up (kallsyms, formats) before the load starts
    load = subprocess.run([PINGPONG, str(seconds)], capture_output=True,
                          text=True, check=True)
    time.sleep(0.3)
    rec.send_signal(signal.SIGINT)
    _, status, ru = os.wait4(rec.pid, 0)
    rec.returncode = os.waitstatus_to_exitcode(status)
    err = rec.stderr.read().decode(errors="replace")
    if rec.returncode != 0 or not os.path.exists(out):
        sys.exit("recorder failed (%d): %s\n%s" % (rec.returncode,
                                                    " ".join(cmd), err))
    lost = lost_from_file(out)
    return {"cpu": ru.ru_utime + ru.ru_stime, "user": ru.ru_utime,
            "sys": ru.ru_stime, "lost": sum(lost.values()), "lost_cpu": lost,
            "events": saved_events(out), "trips": int(load.stdout.split()[0]),
            "size": os.path.getsize(out)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--buffer-kb", type=int, default=1410)
    ap.add_argument("--dir", default=None, help="where the files go")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("record-bench: needs root")
    d = a.dir or tempfile.mkdtemp(prefix="record-bench.")
    os.makedirs(d, exist_ok=True)
    shim = ftshim()
    tc_env = dict(os.environ, FTSHIM_DIR=shim,
                  LD_PRELOAD=os.path.join(shim, "ftshim.so"))
    b = str(a.buffer_kb)
    tools = {
        "trawl": ([TRAWL, "record", "-e", "sched", "-e", "irq", "-b", b,
                   "-o", os.path.join(d, "trawl.dat")], os.environ,
                  os.path.join(d, "trawl.dat")),
        "trace-cmd": (["trace-cmd", "record", "-e", "sched", "-e", "irq",
                       "-b", b, "-o", os.path.join(d, "tc.dat")], tc_env,
                      os.path.join(d, "tc.dat")),
    }
    for name, (cmd, _, _) in tools.items():
        print("%-9s: %s" % (name, " ".join(cmd)))
    print("load     : %s %g (separate process), %d runs each, alternating\n"
          % (PINGPONG, a.seconds, a.runs))
    res = {k: [] for k in tools}
    saved = save_tracefs()
    try:
        runs(a, tools, res)
    finally:
        restore_tracefs(saved)
    report(tools, res)


def runs(a, tools, res):
    for i in range(a.runs):
        for name, (cmd, env, out) in tools.items():
            r = run_one(cmd, env, a.seconds, out)
            res[name].append(r)
            print("run %d %-9s cpu %.3f s (user %.3f sys %.3f)  lost %7d %s"
                  "  saved %8d events  %6.1f MB  load %d trips" %
                  (i + 1, name, r["cpu"], r["user"], r["sys"], r["lost"],
                   dict(sorted(r["lost_cpu"].items())), r["events"],
                   r["size"] / 1e6, r["trips"]), flush=True)


def report(tools, res):
    print()
    med = {}
    for name in tools:
        med[name] = {k: statistics.median(r[k] for r in res[name])
                     for k in ("cpu", "lost", "events", "trips")}
        m = med[name]
        print("median %-9s cpu %.3f s  lost %d  saved %d events  load %d trips"
              % (name, m["cpu"], m["lost"], m["events"], m["trips"]))
    t, c = med["trawl"], med["trace-cmd"]
    print("\nratio trawl / trace-cmd: cpu %.2f, lost %s, saved events %.2f" %
          (t["cpu"] / c["cpu"] if c["cpu"] else float("nan"),
           "%.2f" % (t["lost"] / c["lost"]) if c["lost"] else
           ("0 = 0" if not t["lost"] else "%d vs 0" % t["lost"]),
           t["events"] / c["events"] if c["events"] else float("nan")))


if __name__ == "__main__":
    main()
