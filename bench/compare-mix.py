#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare the shape of ftrace text traces: event mix, line lengths, comms,
pids, flags, markers. Meant for checking bench/gen-ftrace output against real
captures (tests/fixtures/pair-broad.txt and the other fixtures).

usage: bench/compare-mix.py [--max-bytes N] [--top N] [--sections LIST] FILE...

The first FILE is the reference: event types are listed in its order (then
the others' extra types). Each FILE is read up to --max-bytes (default 20 MB,
0 = all), so a 1 GB generated file is sampled from its start. Prints Markdown
tables, one column per file. Python 3 standard library only.

Sections (--sections, comma-separated; default all): systems, events, lines,
comms, pids, flags, cpus, markers.
"""
import argparse
import collections
import os
import re
import sys

ap = argparse.ArgumentParser()
ap.add_argument("files", nargs="+")
ap.add_argument("--max-bytes", type=int, default=20_000_000)
ap.add_argument("--top", type=int, default=40, help="event types listed")
ap.add_argument("--sections", default="systems,events,lines,comms,pids,flags,cpus,markers")
args = ap.parse_args()
sections = set(args.sections.split(","))

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# event name -> system, from the kernel table the library uses
SYSTEM = {}
try:
    with open(os.path.join(root, "lib/core/event-systems.inc")) as f:
        for m in re.finditer(r'\{ "([^"]+)", "([^"]+)" \}', f.read()):
            SYSTEM[m.group(1)] = m.group(2)
except OSError:
    pass
SYSTEM["tracing_mark_write"] = "ftrace(print)"
SYSTEM["print"] = "ftrace(print)"

# "%16s-%-7d [%03d] FFFFF %5lu.%06lu: name: payload" (tgid and no-flags
# layouts too); the comm is everything before the last "-digits" in front of
# the cpu column.
LINE = re.compile(rb"^(?P<comm>.*)-(?P<pid>\d+)\s+(?:\((?P<tgid>[\s\d-]+)\)\s+)?"
                  rb"\[(?P<cpu>\d+)\]\s+(?:(?P<flags>[^\s]{4,5})\s+)?"
                  rb"(?P<ts>\d+\.\d+):\s(?P<name>[^:\s]+):\s?(?P<payload>.*)$")


class Stats:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.lines = 0          # event lines
        self.other = 0          # comments, blank, LOST, unparsed
        self.bytes = 0
        self.events = collections.Counter()
        self.ev_bytes = collections.Counter()
        self.lens = collections.Counter()
        self.comm_len = collections.Counter()
        self.comm_kind = collections.Counter()
        self.comms = collections.Counter()
        self.pid_w = collections.Counter()
        self.flags = collections.Counter()
        self.flag_pos = [collections.Counter() for _ in range(5)]
        self.cpus = collections.Counter()
        self.markers = collections.Counter()
        self.payload_comm = collections.Counter()

    def read(self, limit):
        with open(self.path, "rb") as f:
            data = f.read(limit) if limit else f.read()
        if limit and len(data) == limit:
            data = data[:data.rfind(b"\n") + 1]     # whole lines only
        self.bytes = len(data)
        for raw in data.split(b"\n"):
            if not raw:
                continue
            m = LINE.match(raw)
            if not m:
                self.other += 1
                continue
            self.lines += 1
            n = len(raw) + 1
            name = m.group("name").decode("latin-1")
            self.events[name] += 1
            self.ev_bytes[name] += n
            self.lens[n] += 1
            comm = m.group("comm").lstrip(b" ").decode("latin-1")
            self.comms[comm] += 1
            self.comm_len[len(comm)] += 1
            kind = []
            for ch, label in ((" ", "space"), (":", "colon"), ("/", "slash"), ("-", "dash")):
                if ch in comm:
                    kind.append(label)
            self.comm_kind["+".join(kind) or "plain"] += 1
            self.pid_w[len(m.group("pid"))] += 1
            fl = m.group("flags")
            if fl:
                fl = fl.decode("latin-1")
                self.flags[fl] += 1
                for i, ch in enumerate(fl[:5]):
                    self.flag_pos[i][ch] += 1
            self.cpus[int(m.group("cpu"))] += 1
            if name in ("tracing_mark_write", "print"):
                p = m.group("payload")
                if len(p) >= 2 and p[1:2] == b"|" and p[:1] in b"BECSFNGHTUI":
                    self.markers[p[:1].decode()] += 1
                elif p == b"E":
                    self.markers["E (bare)"] += 1
                else:
                    self.markers["text"] += 1


files = [Stats(p) for p in args.files]
for s in files:
    s.read(args.max_bytes)
ref = files[0]


def pct(n, d):
    return f"{100.0 * n / d:.2f}%" if d else "-"


def header(first):
    out = ["| " + first + " | " + " | ".join(f"`{s.name}`" for s in files) + " |",
           "| --- |" + " ---: |" * len(files)]
    return out


out = []
emit = out.append
emit("Files (" + (f"first {args.max_bytes} bytes" if args.max_bytes else "whole") + "):")
emit("")
for line in header("file"):
    emit(line)
emit("| bytes read | " + " | ".join(f"{s.bytes:,}" for s in files) + " |")
emit("| event lines | " + " | ".join(f"{s.lines:,}" for s in files) + " |")
emit("| other lines | " + " | ".join(f"{s.other:,}" for s in files) + " |")
emit("| event types | " + " | ".join(str(len(s.events)) for s in files) + " |")
emit("")

if "systems" in sections:
    sysc = [collections.Counter() for _ in files]
    for i, s in enumerate(files):
        for name, n in s.events.items():
            sysc[i][SYSTEM.get(name, "other (trace_printk etc.)")] += n
    order = [k for k, _ in sysc[0].most_common()]
    for c in sysc[1:]:
        order += [k for k, _ in c.most_common() if k not in order]
    emit("Share of event lines per system:")
    emit("")
    for line in header("system"):
        emit(line)
    for k in order:
        emit(f"| {k} | " + " | ".join(pct(c[k], s.lines) for c, s in zip(sysc, files)) + " |")
    emit("")

if "events" in sections:
    order = [k for k, _ in ref.events.most_common()]
    for s in files[1:]:
        order += [k for k, _ in s.events.most_common() if k not in order]
    shown = order[:args.top]
    emit(f"Share of event lines per event type (first {len(shown)} of {len(order)}; "
         "mean line bytes in parentheses):")
    emit("")
    for line in header("event"):
        emit(line)
    for k in shown:
        cells = []
        for s in files:
            n = s.events[k]
            cells.append(f"{pct(n, s.lines)} ({s.ev_bytes[k] / n:.0f})" if n else "-")
        emit(f"| {k} | " + " | ".join(cells) + " |")
    rest = order[args.top:]
    if rest:
        emit("| (the rest) | " + " | ".join(
            pct(sum(s.events[k] for k in rest), s.lines) for s in files) + " |")
    emit("")

if "lines" in sections:
    def quantile(c, total, q):
        want, acc = q * total, 0
        for k in sorted(c):
            acc += c[k]
            if acc >= want:
                return k
        return 0
    emit("Line length (bytes, newline included):")
    emit("")
    for line in header("length"):
        emit(line)
    edges = [0, 80, 100, 120, 140, 160, 180, 200, 240, 300, 10 ** 9]
    for lo, hi in zip(edges, edges[1:]):
        label = f"< {hi}" if lo == 0 else (f">= {lo}" if hi == 10 ** 9 else f"{lo}-{hi - 1}")
        emit(f"| {label} | " + " | ".join(
            pct(sum(n for k, n in s.lens.items() if lo <= k < hi), s.lines) for s in files) + " |")
    emit("| mean | " + " | ".join(
        f"{sum(k * n for k, n in s.lens.items()) / max(s.lines, 1):.1f}" for s in files) + " |")
    for q, label in ((0.5, "median"), (0.9, "p90"), (0.99, "p99")):
        emit(f"| {label} | " + " | ".join(str(quantile(s.lens, s.lines, q)) for s in files) + " |")
    emit("| max | " + " | ".join(str(max(s.lens) if s.lens else 0) for s in files) + " |")
    emit("")

if "comms" in sections:
    emit("Task column comms (share of event lines):")
    emit("")
    for line in header("comm"):
        emit(line)
    for lo, hi in ((1, 4), (5, 8), (9, 12), (13, 15), (16, 99)):
        emit(f"| length {lo}-{hi} | " + " | ".join(
            pct(sum(n for k, n in s.comm_len.items() if lo <= k <= hi), s.lines)
            for s in files) + " |")
    kinds = ["plain"] + sorted({k for s in files for k in s.comm_kind if k != "plain"})
    for k in kinds:
        emit(f"| {k} | " + " | ".join(pct(s.comm_kind[k], s.lines) for s in files) + " |")
    emit("| `<idle>` | " + " | ".join(pct(s.comms["<idle>"], s.lines) for s in files) + " |")
    emit("| `<...>` | " + " | ".join(pct(s.comms["<...>"], s.lines) for s in files) + " |")
    emit("| distinct | " + " | ".join(str(len(s.comms)) for s in files) + " |")
    emit("| top 5 | " + " | ".join(
        ", ".join(f"`{k}`" for k, _ in s.comms.most_common(5)) for s in files) + " |")
    emit("")

if "pids" in sections:
    emit("Pid digits in the task column:")
    emit("")
    for line in header("digits"):
        emit(line)
    for w in range(1, 8):
        emit(f"| {w} | " + " | ".join(pct(s.pid_w[w], s.lines) for s in files) + " |")
    emit("")

if "flags" in sections:
    emit("irq-info flags column:")
    emit("")
    for line in header("flags"):
        emit(line)
    emit("| distinct | " + " | ".join(str(len(s.flags)) for s in files) + " |")
    names = ("irqs-off", "need-resched", "hardirq/softirq", "preempt-depth", "migrate-disable")
    for i, label in enumerate(names):
        emit(f"| {label} | " + " | ".join(
            " ".join(f"`{k}` {100.0 * n / max(s.lines, 1):.1f}"
                     for k, n in sorted(s.flag_pos[i].items(), key=lambda kv: -kv[1]))
            for s in files) + " |")
    emit("| top 8 | " + " | ".join(
        " ".join(f"`{k}`" for k, _ in s.flags.most_common(8)) for s in files) + " |")
    emit("")

if "cpus" in sections:
    emit("CPUs (share of event lines per CPU):")
    emit("")
    for line in header("cpus"):
        emit(line)
    emit("| count | " + " | ".join(str(len(s.cpus)) for s in files) + " |")
    emit("| shares | " + " | ".join(
        " ".join(f"{100.0 * s.cpus[c] / max(s.lines, 1):.0f}" for c in sorted(s.cpus))
        for s in files) + " |")
    emit("")

if "markers" in sections:
    emit("print (trace_marker) lines by kind (share of all event lines):")
    emit("")
    for line in header("kind"):
        emit(line)
    kinds = sorted({k for s in files for k in s.markers})
    for k in kinds:
        emit(f"| {k} | " + " | ".join(pct(s.markers[k], s.lines) for s in files) + " |")
    emit("")

print("\n".join(out))
