#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Each task's run time in `trawl sched --json` against an independent
reading of the CPU lanes: a CPU runs what its last sched_switch switched in
(next_pid) until its next sched_switch, whatever that one's prev_pid says,
and a task switched in on one CPU while another runs it (its switch-out
there was lost) runs only on the new one from then on;
the time before a CPU's first switch is not known, the last run lasts to
the trace's last event. Text traces are read here with a regex of the
kernel's own lines, trace.dat files through `trace-cmd report` (not trawl).
Also: the tasks' run times add up to no more than the CPUs' busy time, and
trawl's per-CPU busy time is the lanes' too.

usage: check-sched-lanes.py TRAWL FILE...
"""
import collections
import json
import re
import subprocess
import sys

# "  comm-pid  [001] d..2. 1234.567890: sched_switch: ... prev_pid=N ...
#  ==> next_comm=... next_pid=M ..." (ftrace text and trace-cmd report)
LINE = re.compile(r"^(?:(\w+):)?\s*.*?\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d+):\s+(\S+?):?\s(.*)$")
PREV = re.compile(r"\bprev_pid=(-?\d+)")
NEXT = re.compile(r"\bnext_pid=(-?\d+)")


def lines_of(path):
    if path.endswith(".dat"):
        # -N: the events' own print formats (prev_pid=...), not plugins; -t: ns
        out = subprocess.run(["trace-cmd", "report", "-N", "-t", path], capture_output=True,
                             text=True, errors="replace", check=True).stdout
        return out.splitlines()
    with open(path, errors="replace") as f:
        return f.read().splitlines()


def lanes(path):
    """run[pid] and busy[cpu] in ns from the lanes of the first buffer
    (trace.dat instance, "name:" before the line) with a sched_switch."""
    buffer = None
    running = {}  # cpu -> (pid, since)
    run = collections.Counter()
    busy = collections.Counter()
    last = None
    for line in lines_of(path):
        if line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m:
            continue
        cpu = int(m.group(2))
        frac = m.group(4)
        ts = int(m.group(3)) * 10**9 + int(frac.ljust(9, "0")[:9])
        last = ts if last is None or ts > last else last
        if m.group(5).rstrip(":") != "sched_switch":
            continue
        n = NEXT.search(m.group(6))
        if not n or not PREV.search(m.group(6)):
            continue
        if buffer is None:
            buffer = m.group(1) or ""
        if (m.group(1) or "") != buffer:
            continue
        if cpu in running:
            pid, since, credited = running[cpu]
            if pid > 0:
                busy[cpu] += ts - since
                if credited:
                    run[pid] += ts - since
        nxt = int(n.group(1))
        # a task switched in while another CPU runs it (that CPU's
        # switch-out was lost) runs here from now on: its run there ends,
        # though that CPU stays busy until its own next switch
        for other, (pid, since, credited) in running.items():
            if other != cpu and pid == nxt and nxt > 0 and credited:
                run[pid] += ts - since
                running[other] = (pid, since, False)
        running[cpu] = (nxt, ts, True)
    for cpu, (pid, since, credited) in running.items():
        if pid > 0 and last is not None:
            busy[cpu] += last - since
            if credited:
                run[pid] += last - since
    return run, busy


def main():
    trawl, files = sys.argv[1], sys.argv[2:]
    bad = 0
    for path in files:
        run, busy = lanes(path)
        out = subprocess.run([trawl, "sched", "--json", path],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print("%s: trawl sched failed: %s" % (path, out.stderr.strip()))
            bad += 1
            continue
        s = json.loads(out.stdout)
        got = {t["pid"]: t["run"] for t in s["tasks"]}
        cpus = {c["cpu"]: c["busy"] for c in s["cpus"]}
        wrong = [(p, got.get(p, 0), run[p]) for p in set(run) | set(got)
                 if got.get(p, 0) != run[p]]
        total = sum(got.values())
        cpu_busy = sum(cpus.values())
        anomalies = {a["what"]: a["count"] for a in s.get("anomalies", [])}
        print("%s: %d tasks, run %.3f ms, CPUs busy %.3f ms (lanes %.3f ms), "
              "anomalies %s" % (path, len(got), total / 1e6, cpu_busy / 1e6,
                                sum(busy.values()) / 1e6, anomalies or "none"))
        for p, g, w in sorted(wrong, key=lambda x: -abs(x[1] - x[2]))[:5]:
            print("  pid %d: trawl %d ns, lanes %d ns" % (p, g, w))
        if wrong or total > cpu_busy or cpus != dict(busy):
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
