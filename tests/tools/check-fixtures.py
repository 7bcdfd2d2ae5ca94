#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Cross-check `trawl stats --json` and `trawl report --json` on every real
fixture against counts made independently (tests/fixtures/count-events.sh:
awk over the text, or over `trace-cmd report` for trace.dat recordings).

usage: check-fixtures.py TRAWL FIXTURES_DIR
"""
import json
import os
import subprocess
import sys

trawl, fixtures = sys.argv[1], sys.argv[2]
expected_dir = os.path.join(fixtures, "expected")
failures = []
checked = 0


def fail(name, msg):
    failures.append(f"{name}: {msg}")


def read_counts(path):
    want = {"cpu": {}, "event": {}, "marker": {}, "lost_cpu": {}}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            parts = line.split()
            key = parts[0]
            if key in ("cpu", "event", "marker", "lost_cpu"):
                want[key][parts[1]] = int(parts[2])
            else:
                want[key] = parts[1]
    return want


def ns(text):
    sec, _, frac = text.partition(".")
    return int(sec) * 10**9 + int((frac + "000000000")[:9])


def run_json(*args):
    out = subprocess.run([trawl, *args], capture_output=True, check=True)
    return json.loads(out.stdout)


def canonical(name):
    # trawl names ftrace's print event "print" whatever the text called it
    return "print" if name == "tracing_mark_write" else name


for counts in sorted(os.listdir(expected_dir)):
    name = counts[: -len(".counts")]
    # expected/handmade_X.counts describes handmade/X
    path = os.path.join(fixtures, name.replace("handmade_", "handmade/", 1))
    # provenance is not a trace
    if not os.path.exists(path) or name.startswith("provenance"):
        continue
    want = read_counts(os.path.join(expected_dir, counts))
    try:
        got = run_json("stats", "--json", path)
    except subprocess.CalledProcessError as e:
        fail(name, f"trawl stats failed: {e.stderr.decode(errors='replace')}")
        continue
    checked += 1
    if got["total_events"] != int(want["total"]):
        fail(name, f"total {got['total_events']} != {want['total']}")
    events = {}
    for ev, n in want["event"].items():
        events[canonical(ev)] = events.get(canonical(ev), 0) + n
    if got["events"] != events:
        diff = {k: (got["events"].get(k), events.get(k))
                for k in set(got["events"]) | set(events)
                if got["events"].get(k) != events.get(k)}
        fail(name, f"per-event counts differ (trawl, expected): {diff}")
    cpus = {c: v["events"] for c, v in got["cpus"].items() if v["events"]}
    want_cpus = {str(int(c)): n for c, n in want["cpu"].items()}
    if cpus != want_cpus:
        fail(name, f"per-cpu {cpus} != {want_cpus}")
    if got["lost_events"] != int(want.get("lost_events", 0)):
        fail(name, f"lost {got['lost_events']} != {want.get('lost_events')}")
    lost = {c: v["lost_events"] for c, v in got["cpus"].items() if v["lost_events"]}
    want_lost = {str(int(c)): n for c, n in want["lost_cpu"].items()}
    if lost != want_lost:
        fail(name, f"lost per cpu {lost} != {want_lost}")
    if got["bad_lines"] != int(want.get("unparsed", 0)):
        fail(name, f"bad lines {got['bad_lines']} != {want.get('unparsed')}")
    if got["total_events"] and "first_ts" in want:
        # the expected side keeps the text's precision; so does trawl,
        # except that trace.dat has nanoseconds where trace-cmd report
        # shows microseconds
        def same(a, b):
            if name.endswith(".dat"):  # trace-cmd report rounds to µs
                return (a + 500) // 1000 == ns(b) // 1000
            return a == ns(b)
        if not same(got["first_time"], want["first_ts"]) and got["reordered_events"] == 0:
            fail(name, f"first time {got['first_time']} != {want['first_ts']}")
        if not same(got["last_time"], want["last_ts"]) and got["reordered_events"] == 0:
            fail(name, f"last time {got['last_time']} != {want['last_ts']}")
    # markers, from the structured fields of the print events
    if want["marker"]:
        report = run_json("report", "--json", "--events", "tracing_mark_write", path)
        kinds = {}
        for ev in report:
            kind = ev["fields"].get("kind", "other")
            kinds[kind] = kinds.get(kind, 0) + 1
        if kinds != want["marker"]:
            fail(name, f"markers {kinds} != {want['marker']}")
        # delivered order: by time, ties by seq
        keys = [(e["time"], e["seq"]) for e in report]
        if keys != sorted(keys):
            fail(name, "report is not in (time, seq) order")

# The same recording two ways: `trace-cmd report` of tc.dat (counted by
# count-events.sh from trace-cmd's own output) and trawl on the report text.
# same-recording.txt is the kernel's own text of the buffer that
# same-recording.dat was extracted from (record-same.sh).
pairs = {"tc.dat": ["tcreport.txt", "tcreport-t.txt", "tcreport-l.txt"],
         "same-recording.dat": ["same-recording.txt"]}
for dat, texts in pairs.items():
    cpath = os.path.join(expected_dir, dat + ".counts")
    if not os.path.exists(cpath):
        continue
    want = read_counts(cpath)
    for text in texts:
        path = os.path.join(fixtures, text)
        if not os.path.exists(path):
            continue
        got = run_json("stats", "--json", path)
        checked += 1
        events = {}
        for ev, n in want["event"].items():
            events[canonical(ev)] = events.get(canonical(ev), 0) + n
        if got["events"] != events or got["total_events"] != int(want["total"]):
            fail(text, f"differs from trace-cmd report of {dat}: "
                       f"{got['total_events']} vs {want['total']}")
        cpus = {c: v["events"] for c, v in got["cpus"].items() if v["events"]}
        if cpus != {str(int(c)): n for c, n in want["cpu"].items()}:
            fail(text, f"per-cpu counts differ from trace-cmd report of {dat}")

print(f"checked {checked} fixtures against independent counts")
if checked == 0:
    failures.append("no fixture was checked")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
