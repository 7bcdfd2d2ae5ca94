#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`trawl power --json` against an independent reading of the trace: per CPU
(the events' cpu_id), a frequency lasts from its cpu_frequency to the CPU's
next one with another frequency, an idle state from its cpu_idle to the
CPU's next cpu_idle (state 4294967295: the CPU leaves idle, "active" until
the next entry; an exit while active changes nothing), the last to the
trace's last event; nothing before a CPU's first event. Text traces are read
with a regex of the kernel's own lines, trace.dat files through `trace-cmd
report` (not trawl). Each row's count and total must be equal, and the
rows' totals of a CPU add up to its known time. With --names, every idle
row of a trace.dat must have the name /sys/devices/system/cpu gives.

usage: check-power.py TRAWL [--names] FILE...
"""
import collections
import json
import re
import subprocess
import sys

LINE = re.compile(r"^\s*.*?\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d+):\s+(\S+?):?\s(.*)$")
FIELD = re.compile(r"\b(state|cpu_id)=(-?\d+)")
EXIT = 4294967295


def lines_of(path):
    if path.endswith(".dat"):
        out = subprocess.run(["trace-cmd", "report", "-N", "-t", path],
                             capture_output=True, text=True, errors="replace",
                             check=True).stdout
        return out.splitlines()
    with open(path, errors="replace") as f:
        return f.read().splitlines()


def ns(sec, frac):
    return int(sec) * 10**9 + int(frac.ljust(9, "0")[:9])


def residency(path):
    """{(part, cpu, id): [count, total]} and the trace's last time"""
    rows = collections.defaultdict(lambda: [0, 0])
    now = {}  # (part, cpu) -> (value, since)
    last = None
    for line in lines_of(path):
        m = LINE.match(line)
        if not m:
            continue
        ts = ns(m.group(2), m.group(3))
        last = ts if last is None or ts > last else last
        event = m.group(4)
        if event not in ("cpu_idle", "cpu_frequency"):
            continue
        f = dict((k, int(v)) for k, v in FIELD.findall(m.group(5)))
        part = "idle" if event == "cpu_idle" else "frequency"
        cpu, value = f["cpu_id"], f["state"]
        if cpu < 0:
            continue
        if part == "idle" and value in (EXIT, -1):
            value = -1
        cur = now.get((part, cpu))
        if cur and cur[0] == value and (part == "frequency" or value == -1):
            continue  # the same frequency again; an exit while active
        if cur:
            r = rows[(part, cpu, cur[0])]
            r[0] += 1
            r[1] += ts - cur[1]
        now[(part, cpu)] = (value, ts)
    for (part, cpu), (value, since) in now.items():
        r = rows[(part, cpu, value)]
        r[0] += 1
        r[1] += last - since
    return rows


def main():
    trawl = sys.argv[1]
    names = "--names" in sys.argv[2:]
    files = [a for a in sys.argv[2:] if a != "--names"]
    bad = 0
    for path in files:
        want = residency(path)
        out = subprocess.run([trawl, "power", "--json", path],
                             capture_output=True, text=True, check=True).stdout
        j = json.loads(out)
        got = {}
        for part, rows in (("frequency", j["cpus"]), ("idle", j["idle"]["cpus"])):
            key = "khz" if part == "frequency" else "state"
            for r in rows:
                got[(part, r["cpu"], r[key])] = [r["count"], r["total"]]
                if names and part == "idle" and r[key] >= 0:
                    sysfs = "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name" % (
                        r["cpu"], r[key])
                    with open(sysfs) as f:
                        kernel = f.read().strip()
                    if r["name"] != kernel:
                        print("%s: cpu %d state %d named %r, the kernel says %r"
                              % (path, r["cpu"], r[key], r["name"], kernel))
                        bad += 1
        if got != dict(want):
            bad += 1
            print("%s: trawl power differs from the independent reading" % path)
            for k in sorted(set(got) | set(want), key=str):
                if got.get(k) != want.get(k):
                    print("  %s: trawl %s, independent %s" % (k, got.get(k), want.get(k)))
        else:
            print("ok %s: %d rows equal (%d intervals)" % (
                path, len(got), sum(v[0] for v in got.values())))
        if not want:
            print("%s: no cpu_idle or cpu_frequency: nothing checked" % path)
            bad += 1
    sys.exit(1 if bad else 0)


main()
