#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The analyses against an independent computation on real traces.

Events come from `trace-cmd report -t -R` for a trace.dat (trace-cmd's own
reader and its raw field values) or from the ftrace text itself, parsed here
with regular expressions; nothing of trawl's reader is used. The rules are
re-implemented from their definitions (docs/ARCHITECTURE.md, "Analyses"),
then the per-task / per-irq / per-function / per-slice numbers and the
overall ones are compared with `trawl latency|irq|workqueue|slices --json`,
and every task's and CPU's times and counts with `trawl sched --json`.

usage: check-analyses.py TRAWL FILE...
"""
import json
import math
import re
import subprocess
import sys

MARK = re.compile(r"(?:buf=)?([BECSF])(?:\|(\d+)(?:\|([^|]*)(?:\|(-?\d+))?)?)?\s*$")
LINE = re.compile(
    r"^(?:(?P<buf>\w+):)?\s*(?P<comm>.*?)-(?P<pid>\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(?P<cpu>\d+)\]\s+"
    r"(?:[^\s]{4,5}\s+)?(?P<ts>\d+\.\d+):\s+(?P<event>\w+):\s*(?P<rest>.*)$")
KV = re.compile(r"(\w+)=(.*?)(?=\s+\[?\w+=|\s+==>|\]?\s*$)")
WQ_TEXT = re.compile(r"work struct[ =](\w+):?(?: function[ =](\S+))?")


def to_ns(ts):
    sec, frac = ts.split(".")
    return int(sec) * 10**9 + int(frac.ljust(9, "0"))


def events(path):
    # trace.dat starts with "\x17\x08\x44tracing"
    if open(path, "rb").read(10)[3:10] == b"tracing":
        text = subprocess.run(["trace-cmd", "report", "-t", "-R", path],
                              capture_output=True, text=True,
                              check=True).stdout
    else:
        text = open(path, errors="replace").read()
    out = []
    for n, line in enumerate(text.splitlines()):
        m = LINE.match(line)
        if not m:
            continue
        f = dict((k, v.strip()) for k, v in KV.findall(m["rest"]))
        w = WQ_TEXT.search(m["rest"])
        if w:
            f.setdefault("work", w[1])
            if w[2]:
                f.setdefault("function", w[2])
        if "struct" in f and "work" not in f:
            f["work"] = f["struct"]
        # trace-cmd report puts "NAME:" before an instance's lines
        f["_buffer"] = m["buf"] or ""
        if m["event"] in ("print", "tracing_mark_write"):
            b = m["rest"].split("buf=", 1)[-1]
            mk = MARK.match(b)
            f = {"marker": (mk[1], int(mk[2] or -1), mk[3], int(mk[4] or 0))
                 if mk else None}
        out.append((to_ns(m["ts"]), n, int(m["cpu"]), int(m["pid"]),
                    m["comm"], m["event"], f))
    out.sort(key=lambda e: (e[0], e[1]))  # time, then record order
    return out


def runnable(state):
    if state[:1].isdigit():
        return int(state) & 0xff == 0
    return state.startswith("R")


def first_buffer(evs):
    """The events of the buffer (trace.dat instance) of the first
    sched_switch: instances often trace the same switches again."""
    first = [e[6].get("_buffer", "") for e in evs if e[5] == "sched_switch"]
    return [e for e in evs if not first or e[6].get("_buffer", "") == first[0]]


def latency(evs, kind):
    """A CPU runs what its last switch switched in until its next one: the
    task found there by a switch naming another prev_pid is in no known
    state; a switch-out of a task another CPU runs changes nothing."""
    st, start, samples = {}, {}, {}
    on_cpu, where = {}, {}
    for ts, _, cpu, pid, comm, ev, f in first_buffer(evs):
        if ev == "sched_switch":
            prev, nxt = int(f["prev_pid"]), int(f["next_pid"])
            cur = on_cpu.get(cpu, prev)
            if cur > 0 and cur != prev and st.get(cur) == "running" and \
                    where.get(cur) == cpu:
                st[cur] = "unknown"
            on_cpu[cpu] = nxt
            if prev > 0 and not (st.get(prev) == "running" and
                                 where.get(prev) != cpu):
                if runnable(f["prev_state"]):
                    st[prev], start[prev] = "runnable", ts
                else:
                    st[prev] = "off"
            if nxt > 0:
                want = "woken" if kind == "wakeup" else "runnable"
                if st.get(nxt) == want:
                    samples.setdefault(nxt, []).append(ts - start[nxt])
                st[nxt], where[nxt] = "running", cpu
        elif kind == "wakeup" and ev in ("sched_waking", "sched_wakeup",
                                         "sched_wakeup_new"):
            p = int(f["pid"])
            if p > 0 and p != pid and st.get(p, "unknown") in ("off",
                                                               "unknown"):
                st[p], start[p] = "woken", ts
    return {("task", p, -1): v for p, v in samples.items()}


SOFTIRQ = ["HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
           "SCHED", "HRTIMER", "RCU"]


def irq(evs):
    open_, samples = {}, {}
    for ts, _, cpu, pid, comm, ev, f in evs:
        kind = {"irq_handler_entry": "hardirq", "irq_handler_exit": "hardirq",
                "softirq_entry": "softirq", "softirq_exit": "softirq"}.get(ev)
        if not kind:
            continue
        num = int(f["irq" if kind == "hardirq" else "vec"])
        if ev.endswith("entry"):
            open_[(kind, cpu)] = (num, ts)
        else:
            o = open_.pop((kind, cpu), None)
            if o and o[0] == num:
                samples.setdefault((kind, num, cpu), []).append(ts - o[1])
    return samples


def workqueue(evs):
    queued, running, ex, qd = {}, {}, {}, {}
    for ts, _, cpu, pid, comm, ev, f in evs:
        if ev in ("workqueue_queue_work", "workqueue_activate_work"):
            queued.setdefault(int(f["work"], 16), ts)
        elif ev == "workqueue_execute_start":
            w = int(f["work"], 16)
            running[pid] = (w, ts, f["function"])
            if w in queued:
                qd.setdefault(("work", f["function"], -1), []).append(
                    ts - queued.pop(w))
        elif ev == "workqueue_execute_end":
            r = running.pop(pid, None)
            if r and r[0] == int(f["work"], 16):
                ex.setdefault(("work", r[2], -1), []).append(ts - r[1])
    return ex, qd


def slices(evs):
    stacks, sl, asy, open_async, counters = {}, {}, {}, {}, {}
    self_time = {}
    for ts, _, cpu, pid, comm, ev, f in evs:
        mk = f.get("marker") if ev in ("print", "tracing_mark_write") else None
        if not mk:
            continue
        kind, mpid, name, val = mk
        st = stacks.setdefault(pid, [])
        if kind == "B":
            st.append([name, ts, 0])
        elif kind == "E" and st:
            name, t0, children = st.pop()
            if st:
                st[-1][2] += ts - t0
            sl.setdefault(("slice", pid, name), []).append(ts - t0)
            self_time[(pid, name)] = self_time.get((pid, name), 0) + \
                ts - t0 - children
        elif kind == "S":
            open_async.setdefault((mpid, name, val), ts)
        elif kind == "F" and (mpid, name, val) in open_async:
            asy.setdefault(("async", mpid, name), []).append(
                ts - open_async.pop((mpid, name, val)))
        elif kind == "C":
            counters.setdefault((mpid, name), []).append(val)
    return sl, self_time, asy, counters


def after_switch_out(state):
    """prev_state -> the state the task is left in."""
    if state[:1].isdigit():
        v = int(state) & 0xff
        return "runnable" if v == 0 else "dead" if v & 0x30 else "asleep"
    return ("runnable" if state.startswith("R") else
            "dead" if state[:1] in ("X", "Z") else "asleep")


def sched(evs):
    """Per task: times in each state, counted only once a state's start was
    seen; per CPU: busy (not pid 0) and idle from its first switch. A CPU
    runs what its last sched_switch switched in until its next one, whatever
    that one's prev_pid says: that switch ends the run of the task found
    there (then in no known state); a task switched in while running on
    another CPU ends its run there, and a switch-out of a task another CPU
    runs changes nothing of it. Only the buffer of the first sched_switch
    counts."""
    st, tot, cpus = {}, {}, {}
    end = evs[-1][0] if evs else 0
    evs = first_buffer(evs)
    migrate_traced = any(e[5] == "sched_migrate_task" for e in evs)
    on_cpu = {}  # cpu -> the pid its last switch switched in

    def task(p):
        return tot.setdefault(p, dict(count=0, run=0, runnable=0, sleep=0,
                                      switches=0, preempted=0, migrations=0))

    def close(p, ts):
        # st[p] = (state, since, guessed, last_cpu)
        s, since, guessed, _ = st.get(p, ("unknown", 0, False, -1))
        if s in ("running", "runnable", "asleep") and not guessed:
            key = {"running": "run", "runnable": "runnable",
                   "asleep": "sleep"}[s]
            task(p)[key] += ts - since

    for ts, _, cpu, pid, comm, ev, f in evs:
        if ev == "sched_switch":
            prev, nxt = int(f["prev_pid"]), int(f["next_pid"])
            cur = on_cpu.get(cpu, prev)
            if cur != prev and cur > 0:
                s = st.get(cur, ("unknown", 0, False, -1))
                if s[0] == "running" and s[3] == cpu:
                    close(cur, ts)
                    st[cur] = ("unknown", ts, False, cpu)
            on_cpu[cpu] = nxt
            s = st.get(prev, ("unknown", 0, False, -1))
            if prev > 0 and s[0] == "running" and s[3] != cpu:
                pass  # another CPU runs it: this one's switch is wrong
            elif prev > 0:
                if s[0] == "running":
                    close(prev, ts)
                t = task(prev)
                t["switches"] += 1
                new = after_switch_out(f["prev_state"])
                t["preempted"] += new == "runnable"
                st[prev] = (new, ts, False, cpu)
            if nxt > 0:
                s = st.get(nxt, ("unknown", 0, False, -1))
                if s[0] == "runnable" and s[2]:
                    # a wakeup of an unknown task, then its switch-in:
                    # it did wait from the wakeup
                    task(nxt)["runnable"] += ts - s[1]
                else:  # running elsewhere: that run ends here
                    close(nxt, ts)
                t = task(nxt)
                t["count"] += 1
                if not migrate_traced and s[3] >= 0 and s[3] != cpu:
                    t["migrations"] += 1
                st[nxt] = ("running", ts, False, cpu)
            c = cpus.get(cpu)
            if c:
                c[0 if c[2] else 1] += ts - c[3]
            else:
                c = cpus[cpu] = [0, 0, False, 0, 0]  # busy idle idle? since n
            c[2], c[3] = nxt == 0, ts
            c[4] += 1
        elif ev in ("sched_waking", "sched_wakeup", "sched_wakeup_new"):
            p = int(f["pid"])
            if p <= 0:
                continue
            s = st.get(p, ("unknown", 0, False, -1))
            if s[0] in ("asleep", "dead"):  # dead: a new task, same pid
                close(p, ts)
                st[p] = ("runnable", ts, False, s[3])
            elif s[0] == "unknown" and p != pid:
                task(p)
                st[p] = ("runnable", ts, True, s[3])
        elif ev == "sched_migrate_task":
            p = int(f["pid"])
            if p > 0 and f["orig_cpu"] != f["dest_cpu"]:
                task(p)["migrations"] += 1
    for p in tot:
        close(p, end)
    for c in cpus.values():
        c[0 if c[2] else 1] += end - c[3]
    return tot, {k: dict(busy=v[1], idle=v[0], switches=v[4])
                 for k, v in cpus.items()}, end, migrate_traced


def pct(v, p):
    v = sorted(v)
    return v[max(1, math.ceil(p / 100 * len(v))) - 1]


fails = 0


def check(name, want, got, exact=True):
    global fails
    ok = want == got if exact else abs(want - got) * 256 <= want
    if not ok:
        print(f"  {name}: trawl {got}, independent {want}")
        fails += 1


def compare(label, samples, part, rows_key, rowkey):
    rows = {rowkey(r): r for r in part[rows_key]}
    check(f"{label} rows", sorted(samples), sorted(rows))
    allv = []
    for key, v in samples.items():
        allv += v
        r = rows.get(key)
        if not r:
            continue
        for k, want in (("count", len(v)), ("min", min(v)), ("max", max(v)),
                        ("total", sum(v)), ("p50", pct(v, 50)),
                        ("p90", pct(v, 90)), ("p99", pct(v, 99))):
            check(f"{label} {key} {k}", want, r[k], len(v) <= 256 or
                  k in ("count", "min", "max", "total"))
    o = part["overall"]
    check(f"{label} overall count", len(allv), o["count"])
    if allv:
        for k, p in (("p50", 50), ("p90", 90), ("p99", 99)):
            check(f"{label} overall {k}", pct(allv, p), o[k],
                  len(allv) <= 256)
        check(f"{label} overall max", max(allv), o["max"])
    return len(allv)


def trawl(args):
    return json.loads(subprocess.run([sys.argv[1]] + args, check=True,
                                     capture_output=True, text=True).stdout)


for path in sys.argv[2:]:
    evs = events(path)
    n = []
    for kind in ("wakeup", "preempt"):
        n.append(compare(f"{path} latency {kind}", latency(evs, kind),
                         trawl(["latency", kind, "--json", path]), "tasks",
                         lambda r: ("task", r["pid"], -1)))
    n.append(compare(f"{path} irq", irq(evs), trawl(["irq", "--json", path]), "irqs",
                     lambda r: (r["kind"], r["irq"], r["cpu"])))
    ex, qd = workqueue(evs)
    wq = trawl(["workqueue", "--json", path])
    n.append(compare(f"{path} workqueue execution", ex, wq, "functions",
                     lambda r: ("work", r["function"], -1)))
    n.append(compare(f"{path} workqueue queue_delay", qd, wq["queue_delay"],
                     "functions",
                     lambda r: ("work", r["function"], -1)))
    sl, self_time, asy, counters = slices(evs)
    js = trawl(["slices", "--json", path])
    n.append(compare(f"{path} slices", sl, js, "slices",
                     lambda r: ("slice", r["tid"], r["name"])))
    for r in js["slices"]:
        check(f"{path} slice {r['name']} self",
              self_time.get((r["tid"], r["name"])), r["self"])
    n.append(compare(f"{path} async", asy, js["async"], "slices",
                     lambda r: ("async", r["pid"], r["name"])))
    got = {(r["pid"], r["name"]): r for r in js["counters"]["counters"]}
    check(f"{path} counters", sorted(counters), sorted(got))
    for k, v in counters.items():
        if k in got:
            check(f"{path} counter {k}", (len(v), min(v), max(v), sum(v)),
                  tuple(got[k][x] for x in ("count", "min", "max", "total")))
    tasks, cpus, end, mig = sched(evs)
    js = trawl(["sched", "--json", path])
    check(f"{path} sched end", end, js["end"])
    check(f"{path} sched migrations_from",
          "sched_migrate_task" if mig else "switch_in", js["migrations_from"])
    got = {r["pid"]: r for r in js["tasks"]}
    check(f"{path} sched tasks", sorted(tasks), sorted(got))
    for p, want in tasks.items():
        if p in got:
            check(f"{path} sched task {p}", want,
                  {k: got[p][k] for k in want})
    for k in ("count", "run", "runnable", "sleep", "switches", "preempted",
              "migrations"):
        check(f"{path} sched overall {k}",
              sum(t[k] for t in tasks.values()), js["overall"][k])
    check(f"{path} sched cpus", cpus,
          {c["cpu"]: {k: c[k] for k in ("busy", "idle", "switches")}
           for c in js["cpus"]})
    n.append(sum(t["switches"] for t in tasks.values()))
    print(f"{path}: wakeup {n[0]}, preempt {n[1]}, irq {n[2]}, "
          f"work {n[3]}, queue delay {n[4]}, slices {n[5]}, async {n[6]}, "
          f"counters {sum(map(len, counters.values()))} samples, "
          f"sched {len(tasks)} tasks / {n[7]} switches agree"
          if not fails else f"{path}: {fails} differences")
    if not all(n[:3]):
        print(f"  {path}: expected samples of every kind")
        fails += 1
sys.exit(1 if fails else 0)
