#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Application events (lib/ring, `trawl record --app`) downstream, on the
fixture app-demo.dat (tests/fixtures/record-app.sh): ring-demo's channel
"demo" recorded beside the kernel's sched_switch. Checked independently of
trawl's own analyses, from `trawl report --json` and from what ring-demo
said it wrote (app-demo.written):

- report: the demo:* events, each type counted per thread as ring-demo
  wrote them, in one time order with the kernel's sched_switch (and
  interleaved with it, not one after the other);
- the merge against the kernel's record of which thread ran where: every
  app event on CPU c at time t was written by the thread the last
  sched_switch on c before t switched in (where this VM's kernel left a
  hole in that record, by one of the two threads the switches around it
  name);
- slices nest per thread and are whole; `trawl slices --json` counts per
  thread what ring-demo wrote, and their durations are the report's
  end - begin;
- stats --json: per type counts, no app event lost on any CPU;
- `trawl export --to perfetto`: the app slices as B/E on their threads,
  the counter as C, the instants as i;
- `trawl run`: scripts on demo:frame with predicates on its fields, against
  the same counts made here from the report;
- app-lost.dat (tests/ring/ring-flood): events the app dropped and the one
  it died inside, counted lost per buffer and CPU by stats.

usage: check-app-events.py TRAWL FIXTURES-DIR
"""
import bisect
import collections
import json
import os
import re
import subprocess
import sys

trawl, fixtures = sys.argv[1], sys.argv[2]
dat = os.path.join(fixtures, "app-demo.dat")
failures = 0
checks = 0


def check(ok, what):
    global failures, checks
    checks += 1
    print(("ok %d - " if ok else "not ok %d - ") % checks + what)
    if not ok:
        failures += 1


def run(*args):
    return subprocess.run([trawl, *args], check=True, capture_output=True,
                          text=True).stdout


written = {}  # tid -> {slices, frames, counters, instants, dropped}
for line in open(os.path.join(fixtures, "app-demo.written")):
    m = re.match(r"ring-demo: thread (\d+) tid (\d+) (.*)", line)
    words = m.group(3).split()
    written[int(m.group(2))] = {words[i]: int(words[i + 1])
                                for i in range(0, len(words), 2)}

events = json.loads(run("report", "--json", dat))
app = [e for e in events if e["system"] == "demo"]
kernel = [e for e in events if e["event"] == "sched_switch"]
check(len(app) > 1000 and len(kernel) > 500,
      "report: %d demo events, %d sched_switch" % (len(app), len(kernel)))
check(all(e.get("instance") == "demo" for e in app),
      "report: every demo event from the channel's buffer")

# per thread and type, as ring-demo wrote them
per = collections.Counter((e["pid"], e["event"]) for e in app)
want = collections.Counter()
for tid, w in written.items():
    want[(tid, "slice_begin")] = w["slices"]
    want[(tid, "slice_end")] = w["slices"]
    want[(tid, "frame")] = w["frames"]
    want[(tid, "counter")] = w["counters"]
    want[(tid, "instant")] = w["instants"]
check(per == want and all(w["dropped"] == 0 for w in written.values()),
      "report: each thread's events are what ring-demo wrote")

# one time order, ties in the order of the file
keys = [(e["time"], e["seq"]) for e in events]
check(keys == sorted(keys), "report: one time order")
switches_between = 0
for a, b in zip(events, events[1:]):
    if (a["system"] == "demo") != (b["system"] == "demo"):
        switches_between += 1
check(switches_between > 500,
      "report: app and kernel events interleaved (%d changes)"
      % switches_between)

# which thread ran where: the kernel's sched_switch per CPU. The thread
# the last switch on the CPU before the event put on it must be the
# writer. This VM's kernel has holes in that record (a sandbox thread is
# switched in and never out; the next switch then switches out a thread
# that was never switched in): where the switches before and after the
# event disagree, the writer must be one of the two they name, and the
# events in such holes are counted, and must be few.
on_cpu = collections.defaultdict(list)
for e in kernel:
    on_cpu[e["cpu"]].append((e["time"], e["fields"]["next_pid"],
                             e["fields"]["prev_pid"]))
times = {c: [t for t, _, _ in v] for c, v in on_cpu.items()}
before_first = mismatched = in_holes = 0
for e in app:
    sw = on_cpu.get(e["cpu"], [])
    k = bisect.bisect_left(times.get(e["cpu"], []), e["time"])
    if k == 0:
        before_first += 1
        continue
    ran = sw[k - 1][1]
    after = sw[k][2] if k < len(sw) else ran
    if ran != after:
        in_holes += 1
    if e["pid"] != ran and (ran == after or e["pid"] != after):
        mismatched += 1
        if mismatched <= 5:
            print("# %s at %d on CPU %d by %d: the kernel ran %d" %
                  (e["event"], e["time"], e["cpu"], e["pid"], ran))
check(mismatched == 0 and before_first < len(app) // 100 and
      in_holes < len(app) // 20,
      "merge: each app event's thread is the one the kernel's sched_switch "
      "put on that CPU (%d checked, %d where the kernel's record has a "
      "hole, %d before a CPU's first switch)"
      % (len(app) - before_first, in_holes, before_first))

# slices nest per thread and are whole
stack = collections.defaultdict(list)
durations = collections.defaultdict(list)
for e in app:
    if e["event"] == "slice_begin":
        stack[e["pid"]].append((e["time"], e["fields"]["name"]))
    elif e["event"] == "slice_end":
        if not stack[e["pid"]]:
            durations[e["pid"]].append(None)
            continue
        t0, name = stack[e["pid"]].pop()
        durations[e["pid"]].append(
            (e["time"] - t0) if name == e["fields"]["name"] else None)
check(not any(stack.values()) and
      all(None not in d for d in durations.values()),
      "report: slices whole and nested on each thread")

sl = json.loads(run("slices", "--json", dat))
rows = collections.defaultdict(dict)
rows.update({(r["tid"], r["name"]): r for r in sl["slices"]})
check(len(rows) == len(written) and
      all(rows[(tid, "frame")].get("count") == w["slices"]
          for tid, w in written.items()),
      "slices: each thread's frame slices as ring-demo wrote them")
check(all(rows[(tid, "frame")].get("total") == sum(durations[tid]) and
          rows[(tid, "frame")].get("max") == max(durations[tid]) and
          rows[(tid, "frame")].get("min") == min(durations[tid])
          for tid in written),
      "slices: durations (total, min, max) as end - begin in the report")
counters = sl["counters"]["counters"]
values = [e["fields"]["value"] for e in app if e["event"] == "counter"]
check(len(counters) == 1 and counters[0]["name"] == "queue_depth" and
      counters[0]["count"] == len(values) and
      counters[0]["total"] == sum(values) and
      counters[0]["max"] == max(values),
      "slices: the counter queue_depth (%d values)" % len(values))

st = json.loads(run("stats", "--json", dat))
by_type = collections.Counter(e["event"] for e in events)
check(st["events"] == dict(by_type) and st["total_events"] == len(events),
      "stats: per type counts as the report's")
check(st["lost_events"] == 0 and
      all(c["lost_events"] == 0 for c in st["cpus"].values()),
      "stats: nothing lost")

out = run("export", "--to", "perfetto", "-o", "-", dat)
pf = json.loads(out)["traceEvents"]
ph = collections.Counter((e["ph"], e.get("tid"), e.get("name"))
                         for e in pf if e["ph"] in "BEi")
check(all(ph[("B", tid, "frame")] == w["slices"] and
          ph[("E", tid, None)] == w["slices"] and
          ph[("i", tid, "vsync")] == w["instants"] and
          ph[("i", tid, "frame")] == w["frames"]
          for tid, w in written.items()),
      "perfetto: each thread's slices as B/E, instants and frames as i")
cs = [e for e in pf if e["ph"] == "C" and e["name"] == "queue_depth"]
check(len(cs) == len(values) and
      sorted(e["args"]["value"] for e in cs) == sorted(values),
      "perfetto: the counter's values as C events")
frame_args = [e["args"] for e in pf if e["ph"] == "i" and
              e["name"] == "frame"]
check(frame_args and all(set(a) == {"id", "thread", "work_ns", "stage"}
                         for a in frame_args),
      "perfetto: frame instants carry their typed fields")

# scripts on the typed fields, against counts made here
frames = [e for e in app if e["event"] == "frame"]
out = run("run", "-e",
          "demo:frame /args.id == 3/ { @n[args.thread] = count(); }", dat)
check(sorted(re.findall(r"^@n\[(\d+)\]: (\d+)$", out, re.M)) ==
      [(str(i), "1") for i in range(len(written))],
      "run: demo:frame /args.id == 3/ once per thread")
out = run("run", "-e",
          'demo:frame /args.work_ns > 150000 && args.stage == "paint"/ '
          "{ @n[tid] = count(); @w[tid] = sum(args.work_ns); }", dat)
got = {(k, int(t)): int(v)
       for k, t, v in re.findall(r"^@(\w)\[(\d+)\]: (\d+)$", out, re.M)}
want = collections.Counter()
for f in frames:
    a = f["fields"]
    if a["work_ns"] > 150000 and a["stage"] == "paint":
        want[("n", f["pid"])] += 1
        want[("w", f["pid"])] += a["work_ns"]
check(got == dict(want) and len(want) == 2 * len(written),
      "run: a predicate on two fields, count() and sum() per thread")
out = run("run", "-e", "demo:counter { @v = max(args.value); } "
          "demo:slice_begin /args.name == \"frame\"/ { @b = count(); }", dat)
check(re.search(r"^@v: %d$" % max(values), out, re.M) and
      re.search(r"^@b: %d$" % sum(w["slices"] for w in written.values()),
                out, re.M),
      "run: the built-in counter's and slice's fields")

# app-lost.dat: ring-flood on CPU 0 dropped most of what it wrote and
# died inside its last event; the recording says where, per buffer and CPU
lost_dat = os.path.join(fixtures, "app-lost.dat")
m = re.match(r"ring-flood: written (\d+) dropped (\d+) torn (\d+)",
             open(os.path.join(fixtures, "app-lost.written")).read())
flood_written, dropped, torn = map(int, m.groups())
st = json.loads(run("stats", "--json", lost_dat))
check(st["lost_by_buffer"] == [{"buffer": "flood", "cpu": 0,
                                "lost_events": dropped + torn}] and
      st["lost_events"] == dropped + torn and
      st["cpus"]["0"]["lost_events"] == dropped + torn,
      "stats --json: the app's %d dropped and %d torn events lost in "
      "buffer flood on CPU 0" % (dropped, torn))
check(st["events"].get("counter") == flood_written,
      "stats --json: the %d it wrote delivered" % flood_written)
text = run("stats", lost_dat)
check(re.search(r"^lost in buffer +cpu +lost\nflood +0 +%d$"
                % (dropped + torn), text, re.M) is not None,
      "stats: the lost table names the buffer")
check(json.loads(run("stats", "--json", dat))["lost_by_buffer"] == [],
      "stats --json: nothing lost in app-demo.dat")

print("1..%d" % checks)
sys.exit(1 if failures else 0)
