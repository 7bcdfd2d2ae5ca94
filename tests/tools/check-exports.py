#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trawl export, checked from the outside.

--to csv: every per-event file has as many rows as `trawl stats` counts for
that event and the header's number of columns; their seq numbers are the
one order (unique, and sorted by seq the rows are in time order); with
--all, all.csv holds every event, in (time, seq) order, and agrees with the
per-event files row by row, and an export without --all removes it; a
field with commas, quotes and spaces survives Python's csv module.

--to perfetto: the file is JSON in the Chrome trace-event format (what
ui.perfetto.dev and chrome://tracing read; not opened in either here, there
is no network): known "ph" types with their required keys, ts in
microseconds (checked against the events' nanosecond times from `trawl
report --json`), B/E balanced per thread, X with dur >= 0, async b/e
matched, counts per kind against the events of the trace.

usage: check-exports.py TRAWL FILE...
"""
import collections
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

TRAWL = sys.argv[1]
fails = 0


def check(name, ok, detail=""):
    global fails
    if not ok:
        print(f"  FAIL {name} {detail}")
        fails += 1


def run(*args):
    return subprocess.run([TRAWL] + list(args), check=True,
                          capture_output=True, text=True).stdout


def csv_name(event):
    base = "".join(c if c.isalnum() or c in "_-" or (c == "." and i)
                   else "_" for i, c in enumerate(event))
    return ("all_" if base == "all" else base) + ".csv"


def check_csv(path, tmp):
    out = os.path.join(tmp, "csv")
    shutil.rmtree(out, ignore_errors=True)
    run("export", path, "--to", "csv", "-o", out, "--all")
    stats = json.loads(run("stats", "--json", path))
    files = set(os.listdir(out))
    want = {csv_name(e): n for e, n in stats["events"].items()}
    check(f"{path} csv files", files == set(want) | {"all.csv"},
          sorted(files ^ (set(want) | {"all.csv"})))
    by_seq = {}
    for name, n in want.items():
        if name not in files:
            continue
        rows = list(csv.reader(open(os.path.join(out, name), newline="")))
        head, rows = rows[0], rows[1:]
        check(f"{path} {name} rows", len(rows) == n, f"{len(rows)} != {n}")
        check(f"{path} {name} header", head[:5] ==
              ["seq", "time", "cpu", "pid", "comm"] and head[-1] == "other"
              and len(set(head)) == len(head), head)
        check(f"{path} {name} columns",
              all(len(r) == len(head) for r in rows))
        for r in rows:
            check(f"{path} {name} seq {r[0]} once", int(r[0]) not in by_seq)
            by_seq[int(r[0])] = (name, r[:5])
    check(f"{path} per-event files hold every event",
          len(by_seq) == stats["total_events"])
    order = [int(by_seq[k][1][1]) for k in sorted(by_seq)]
    check(f"{path} per-event rows by seq are in time order",
          order == sorted(order))
    rows = list(csv.reader(open(os.path.join(out, "all.csv"), newline="")))
    check(f"{path} all.csv header",
          rows[0] == ["seq", "time", "cpu", "pid", "comm", "event",
                      "fields"], rows[0])
    rows = rows[1:]
    check(f"{path} all.csv rows", len(rows) == stats["total_events"])
    keys = [(int(r[1]), int(r[0])) for r in rows]
    check(f"{path} all.csv in (time, seq) order", keys == sorted(keys))
    check(f"{path} all.csv seq unique", len(set(k[1] for k in keys)) ==
          len(keys))
    agree = all(by_seq.get(int(r[0])) == (csv_name(r[5]), r[:5])
                for r in rows)
    check(f"{path} all.csv agrees with the per-event files", agree)
    # without --all: the same per-event files, and no stale all.csv
    before = {n: open(os.path.join(out, n), "rb").read() for n in want}
    run("export", path, "--to", "csv", "-o", out)
    files = set(os.listdir(out))
    check(f"{path} csv without --all", files == set(want),
          sorted(files ^ set(want)))
    check(f"{path} csv files the same without --all",
          all(open(os.path.join(out, n), "rb").read() == b
              for n, b in before.items()))
    return len(rows)


SPECIAL = {"sched_switch", "irq_handler_entry", "irq_handler_exit",
           "softirq_entry", "softirq_exit", "cpu_frequency"}
CPU_PID = 1000000000


def check_perfetto(path, tmp):
    out = os.path.join(tmp, "trace.json")
    run("export", path, "--to", "perfetto", "-o", out)
    doc = json.load(open(out))
    evs = doc["traceEvents"]
    check(f"{path} perfetto displayTimeUnit", doc["displayTimeUnit"] == "ns")
    kinds = collections.Counter(e["ph"] for e in evs)
    check(f"{path} perfetto ph types",
          set(kinds) <= set("XBEiCbeM"), kinds)
    for e in evs:
        ok = isinstance(e["pid"], int) and isinstance(e["tid"], int) and \
            isinstance(e["ts"], (int, float))
        if e["ph"] != "E":
            ok = ok and isinstance(e.get("name"), str)
        if e["ph"] == "X":
            ok = ok and e["dur"] >= 0
        if e["ph"] in "be":
            ok = ok and "id" in e and "cat" in e
        if e["ph"] == "i":
            ok = ok and e["s"] in "tpg"
        if e["ph"] == "C":
            ok = ok and all(isinstance(v, (int, float))
                            for v in e["args"].values())
        if not ok:
            check(f"{path} perfetto event keys", False, e)
            break
    # B/E balanced per thread, in time order
    depth, last = collections.Counter(), {}
    for e in evs:
        if e["ph"] in "BE":
            k = (e["pid"], e["tid"])
            check(f"{path} B/E time order", e["ts"] >= last.get(k, 0), e)
            last[k] = e["ts"]
            depth[k] += 1 if e["ph"] == "B" else -1
            if depth[k] < 0:
                check(f"{path} E without B", False, e)
    check(f"{path} B/E balanced", not any(depth.values()))
    opened = collections.Counter()
    for e in evs:
        if e["ph"] in "be":
            k = (e["pid"], e["cat"], e["id"], e["name"])
            opened[k] += 1 if e["ph"] == "b" else -1
            check(f"{path} e without b", opened[k] >= 0, e)
    check(f"{path} async balanced", not any(opened.values()))

    # against the events themselves (trawl report, ns)
    rep = json.loads(run("report", "--json", path))
    ns = lambda e: round(e["ts"] * 1000)
    instants = collections.Counter((e["name"], ns(e)) for e in evs
                                   if e["ph"] == "i")
    want_i = collections.Counter()
    marks = collections.Counter()
    task_slices, irq_open, irq_slices = 0, {}, 0
    for r in rep:
        f, name = r["fields"], r["event"]
        if name == "sched_switch":
            task_slices += int(f["next_pid"]) != 0
        elif name in ("irq_handler_entry", "softirq_entry"):
            irq_open[(name, r["cpu"])] = f.get("irq", f.get("vec"))
        elif name in ("irq_handler_exit", "softirq_exit"):
            k = (name.replace("handler_exit", "handler_entry")
                 .replace("softirq_exit", "softirq_entry"), r["cpu"])
            if k in irq_open and irq_open.pop(k) == f.get("irq", f.get("vec")):
                irq_slices += 1
        elif name == "print" and f.get("kind") in tuple("BECSF"):
            marks[f["kind"]] += 1
        elif name == "cpu_frequency":
            marks["freq"] += 1
        else:
            want_i[(name, r["time"])] += 1
    irq_slices += len(irq_open)  # still open at the end: closed there
    check(f"{path} instants (name, time in us) match the events",
          instants == want_i, (instants - want_i, want_i - instants))
    cpu_x = [e for e in evs if e["ph"] == "X" and e["pid"] == CPU_PID]
    task_x = [e for e in cpu_x if (e["tid"] - CPU_PID - 1) % 3 == 0]
    check(f"{path} one CPU slice per switch to a task",
          len(task_x) == task_slices, f"{len(task_x)} != {task_slices}")
    tracks = collections.defaultdict(list)
    for e in cpu_x:
        tracks[e["tid"]].append((ns(e), ns(e) + round(e["dur"] * 1000)))
    overlaps = sum(b[0] < a[1] for v in tracks.values()
                   for a, b in zip(sorted(v), sorted(v)[1:]))
    check(f"{path} CPU track slices do not overlap", overlaps == 0,
          overlaps)
    check(f"{path} irq slices", len(cpu_x) - len(task_x) == irq_slices,
          f"{len(cpu_x) - len(task_x)} != {irq_slices}")
    check(f"{path} B per B marker", kinds["B"] == marks["B"])
    check(f"{path} C per counter", kinds["C"] == marks["C"] + marks["freq"])
    check(f"{path} b per S marker", kinds["b"] == marks["S"])
    first, last_t = rep[0]["time"], rep[-1]["time"]
    check(f"{path} times within the trace",
          all(first <= ns(e) and ns(e) + round(e.get("dur", 0) * 1000)
              <= last_t for e in evs if e["ph"] != "M"))
    return len(evs)


HANDMADE = """# tracer: nop
          <idle>-0     [000] d..2.  100.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=my app next_pid=42 next_prio=120
          my app-42    [000] ....1  100.000001: tracing_mark_write: B|42|say "hi", then, bye
          my app-42    [000] d..1.  100.000002: cpu_frequency: state=1800000 cpu_id=0
          my app-42    [000] ....1  100.000003: tracing_mark_write: E|42
          my app-42    [000] ....1  100.000004: tracing_mark_write: plain, "quoted" text
          my app-42    [000] d..2.  100.000005: sched_switch: prev_comm=my app prev_pid=42 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
"""


def check_handmade(tmp):
    path = os.path.join(tmp, "handmade.txt")
    open(path, "w").write(HANDMADE)
    check_csv(path, tmp)
    rows = list(csv.DictReader(open(os.path.join(tmp, "csv", "print.csv"),
                                    newline="")))
    check("csv round trip: buf with commas and quotes",
          [r["buf"] for r in rows] == ['B|42|say "hi", then, bye', "E|42",
                                       'plain, "quoted" text'],
          [r["buf"] for r in rows])
    check("csv round trip: marker name", rows[0]["name"] ==
          'say "hi", then, bye', rows[0])
    check("csv round trip: comm with a space",
          all(r["comm"] == "my app" for r in rows))
    check("csv time in ns", rows[0]["time"] == "100000001000")
    check_perfetto(path, tmp)
    evs = json.load(open(os.path.join(tmp, "trace.json")))["traceEvents"]
    x = [e for e in evs if e["ph"] == "X"]
    check("perfetto: the task's CPU slice", len(x) == 1 and
          x[0]["name"] == "my app" and x[0]["ts"] == 100000000.0 and
          x[0]["dur"] == 5.0 and x[0]["args"] == {"tid": 42,
                                                  "end_state": "S"}, x)
    b = [e for e in evs if e["ph"] == "B"]
    check("perfetto: B on the writing thread", len(b) == 1 and
          b[0]["name"] == 'say "hi", then, bye' and b[0]["tid"] == 42 and
          b[0]["ts"] == 100000001.0, b)
    c = [e for e in evs if e["ph"] == "C"]
    check("perfetto: cpu_frequency counter",
          [(e["name"], e["args"]) for e in c] ==
          [("CPU 0 frequency", {"value": 1800000})], c)
    names = {(e["name"], e["args"].get("name")) for e in evs if e["ph"] == "M"}
    check("perfetto: track names", ("thread_name", "CPU 0") in names and
          ("process_name", "CPUs") in names and
          ("thread_name", "my app") in names, names)


def check_many_types(tmp):
    """More event types than files kept open: closed ones reopen to append."""
    path = os.path.join(tmp, "many.txt")
    with open(path, "w") as f:
        for rnd in range(3):
            for i in range(250):
                f.write(f"  app-7 [000] ....1 {1 + rnd * 0.001 + i * 1e-6:.6f}"
                        f": ev_{i}: n={rnd} note=x,{i}\n")
    check_csv(path, tmp)
    rows = list(csv.DictReader(open(os.path.join(tmp, "csv", "ev_249.csv"),
                                    newline="")))
    check("reopened files keep their rows in order",
          [(r["n"], r["note"]) for r in rows] ==
          [("0", "x,249"), ("1", "x,249"), ("2", "x,249")], rows)


def check_pair(fixtures, tmp):
    """One recording read as the kernel's text and as trace.dat exports the
    same task slices, with the same end states ("S", not the number a
    trace.dat holds): one event model, whatever the file."""
    sides = []
    for ext in ("txt", "dat"):
        out = os.path.join(tmp, f"pair.{ext}.json")
        run("export", os.path.join(fixtures, f"pair-broad.{ext}"), "--to",
            "perfetto", "-o", out)
        evs = json.load(open(out))["traceEvents"]
        sides.append(collections.Counter(
            (e.get("name"), e.get("args", {}).get("end_state"))
            for e in evs if e.get("ph") == "X"))
    check("pair: the same task slices and end states from text and trace.dat",
          sides[0] == sides[1] and sides[0],
          f"{(sides[0] - sides[1]).most_common(3)} vs "
          f"{(sides[1] - sides[0]).most_common(3)}")
    states = {s for _, s in sides[1] if s}
    check("pair: end states are the kernel's letters", states and
          all(not s.startswith("0x") for s in states), states)


with tempfile.TemporaryDirectory() as tmp:
    check_handmade(tmp)
    check_many_types(tmp)
    check_pair(os.path.dirname(sys.argv[2]), tmp)
    for path in sys.argv[2:]:
        n = check_csv(path, tmp)
        m = check_perfetto(path, tmp)
        print(f"{path}: csv {n} rows, perfetto {m} events"
              + ("" if not fails else f" ({fails} failures so far)"))
sys.exit(1 if fails else 0)
