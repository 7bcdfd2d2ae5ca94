#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Event by event, trawl's reading of a perf.data against `perf script`'s.

usage: check-perf-script.py TRAWL [--expected SCRIPT] FILE.perf...

--expected names a file holding what `perf script` (with the options
below) printed for the next FILE, made when it was recorded
(tests/fixtures/record-perf.sh), so the check runs without perf.

For each file, `perf script --ns -F comm,tid,cpu,time,event,trace` is
compared with `trawl report --json`: the same number of events of each
type, and the same events in the same order, each with the same time, CPU,
pid, comm, system:name and text (the print format's). Every sched_switch's
(time, cpu, pid, prev_pid, next_pid) and every sched_wakeup's and
sched_waking's (time, cpu, pid, woken pid) are also compared as numbers,
trawl's typed fields against the numbers in perf's text. Skips (exit 77)
when perf is missing.

One known difference: the kernel gives a sample's TID as -1 once the task
is past its exit (its pid no longer alive: the last sched_switch away from
it, prev_state=X), and perf script shows "-1" and ":-1"; trawl's pid is
the record's common_pid, as for the same event in a trace.dat. Such events
are counted and compared without pid and comm. When the COMM of a task
was lost (a full buffer), perf script names it ":TID"; trawl takes the
name from the saved cmdlines of the tracing data, or says "<...>": such
events are counted and compared without comm.

perf's libtraceevent (1.x on Debian 12) also prints some texts unlike the
kernel, and trawl prints them as the kernel does: enum constants the
format leaves undefined as numbers (hrtimer_start "mode=0x0", trawl
"mode=ABS", lib/pfmt/constants.c), and timer_start's __print_flags of
"REC->flags & (A | B | ...)" as if the mask were not applied ("flags=D|P|I"
for a value with none of those bits; the kernel and trawl print
"flags="). A text differing only in such values (perf's a number where
trawl's is a name, or those flags) is counted as explained; anything else
differing fails.
"""
import collections
import json
import re
import shutil
import subprocess
import sys

LINE = re.compile(r"^\s*(?P<comm>.*?)\s+(?P<tid>-?\d+)\s+\[(?P<cpu>\d+)\]\s+"
                  r"(?P<sec>\d+)\.(?P<ns>\d{9}):\s+(?P<sys>[^:\s]+):"
                  r"(?P<event>[^:\s]+):\s?(?P<rest>.*)$")
NUM = re.compile(r"\b(prev_pid|next_pid|pid)=(-?\d+)")


def perf_script(path, expected=None):
    if expected:
        with open(expected, "rb") as f:
            text = f.read()
    else:
        text = subprocess.run(["perf", "script", "-i", path, "--ns", "-F",
                               "comm,tid,cpu,time,event,trace"],
                              capture_output=True, check=True).stdout
    events = []
    for raw in text.decode("utf-8", "replace").splitlines():
        if not raw.strip():
            continue
        m = LINE.match(raw)
        if not m:
            raise SystemExit(f"cannot parse perf script line: {raw!r}")
        d = m.groupdict()
        events.append({
            "comm": d["comm"].strip(), "pid": int(d["tid"]),
            "cpu": int(d["cpu"]),
            "time": int(d["sec"]) * 10**9 + int(d["ns"]),
            "event": d["sys"] + ":" + d["event"], "text": d["rest"].rstrip(),
        })
    return events


def trawl_report(trawl, path):
    out = subprocess.run([trawl, "report", "--json", path],
                         capture_output=True, check=True)
    events = []
    for e in json.loads(out.stdout):
        if e["system"] == "ftrace" and e["event"] in ("kernel_stack",
                                                      "user_stack"):
            continue  # a callchain (-g): check-perf-callchain.py's
        events.append({
            "comm": e["comm"], "pid": e["pid"], "cpu": e["cpu"],
            "time": e["time"], "event": e["system"] + ":" + e["event"],
            "text": e.get("text", "").rstrip(), "fields": e["fields"],
        })
    return events


def numbers(e, perf):
    """(time, cpu, pid, the pids of the event) of a sched event."""
    if perf:
        f = dict(NUM.findall(e["text"]))
        f = {k: int(v) for k, v in f.items()}
    else:
        f = e["fields"]
    pid = None if e.get("exited") else e["pid"]
    keys = (["prev_pid", "next_pid"] if e["event"] == "sched:sched_switch"
            else ["pid"])
    return (e["time"], e["cpu"], pid) + tuple(f.get(k) for k in keys)


HEX = re.compile(r"^0x[0-9a-f]+$")
NAME = re.compile(r"^[A-Z_][A-Z0-9_|]*$")


def explained(event, a, b):
    """Whether perf's text a and trawl's b differ only as described."""
    ta, tb = a.split(" "), b.split(" ")
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb):
        if x == y:
            continue
        kx, _, vx = x.partition("=")
        ky, _, vy = y.partition("=")
        if kx != ky:
            return False
        if HEX.match(vx) and NAME.match(vy):
            continue  # an enum perf's libtraceevent cannot resolve
        if event == "timer:timer_start" and kx == "flags" and NAME.match(vx):
            continue  # perf ignores the mask; trawl's is the kernel's
        return False
    return True


def check(trawl, path, expected=None):
    want = perf_script(path, expected)
    got = trawl_report(trawl, path)
    # perf delivers a record that comes later than its round allows (a
    # full buffer) where it comes ("Timestamp below last timeslice
    # flush"); trawl sorts it into place. Compared in time order, ties
    # in perf's order.
    late = sum(1 for a, b in zip(want, want[1:]) if b["time"] < a["time"])
    if late:
        want.sort(key=lambda e: e["time"])
    exited = 0
    for w, g in zip(want, got):
        if w["pid"] == -1 and w["comm"] == ":-1" and g["pid"] > 0:
            w["exited"] = g["exited"] = True
            exited += 1
    bad = 0
    cw = collections.Counter(e["event"] for e in want)
    cg = collections.Counter(e["event"] for e in got)
    if cw != cg:
        print(f"{path}: events per type differ:\n  perf:  {dict(cw)}\n"
              f"  trawl: {dict(cg)}")
        bad += 1
    for kind in ("sched:sched_switch", "sched:sched_wakeup",
                 "sched:sched_waking"):
        a = [numbers(e, True) for e in want if e["event"] == kind]
        b = [numbers(e, False) for e in got if e["event"] == kind]
        if a != b:
            i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y),
                     min(len(a), len(b)))
            print(f"{path}: {kind} #{i} differs: perf "
                  f"{a[i] if i < len(a) else None} trawl "
                  f"{b[i] if i < len(b) else None}")
            bad += 1
    shown = 0
    known = unnamed = 0
    for i, (w, g) in enumerate(zip(want, got)):
        nameless = not w.get("exited") and w["comm"] == f":{w['pid']}"
        unnamed += nameless
        for k in ("time", "cpu", "pid", "comm", "event", "text"):
            if w.get("exited") and k in ("pid", "comm"):
                continue
            if nameless and k == "comm":
                continue
            if k == "text" and w[k] != g[k] and explained(
                    w["event"], w[k], g[k]):
                known += 1
                continue
            if w[k] != g[k]:
                bad += 1
                if shown < 5:
                    shown += 1
                    print(f"{path}: event {i}: {k}: perf {w[k]!r} "
                          f"trawl {g[k]!r}")
                break
    if len(want) != len(got):
        print(f"{path}: perf script has {len(want)} events, trawl "
              f"{len(got)}")
        bad += 1
    print(f"{path}: {len(got)} events, {len(cg)} types, {late} late in "
          f"perf's order, {exited} of tasks "
          f"past exit (perf: pid -1), {unnamed} of tasks perf lost the name "
          f"of, {known} texts as the kernel prints "
          f"them, not perf: "
          f"{'same as perf script' if not bad else f'{bad} differences'}")
    return bad


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    args = sys.argv[2:]
    jobs = []
    while args:
        if args[0] == "--expected" and len(args) >= 3:
            jobs.append((args[2], args[1]))
            args = args[3:]
        else:
            jobs.append((args[0], None))
            args = args[1:]
    if any(e is None for _, e in jobs) and not shutil.which("perf"):
        print("perf is not installed: skipped")
        return 77
    bad = sum(check(sys.argv[1], p, e) for p, e in jobs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
