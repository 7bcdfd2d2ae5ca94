#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Event by event, trawl's reading of a trace.dat against trace-cmd's.

usage: check-dat-report.py TRAWL FILE.dat...

For each file, `trace-cmd report -t -R` (raw fields, nanoseconds) and
`trace-cmd report -t` (print formats) are compared with
`trawl report --json`: the same events in the same order, each with the same
time, CPU, pid, comm, instance, event name, field values (trawl's fields
against -R's "name=value" text) and formatted text. Ties (equal timestamps)
may be ordered differently by the two tools only across CPUs; within one
timestamp the sets must match. Skips (exit 77) when trace-cmd is missing.
"""
import json
import re
import shutil
import subprocess
import sys

LINE = re.compile(r"^(?:(?P<inst>\S+): )?\s*(?P<comm>.*)-(?P<pid>-?\d+)\s+"
                  r"\[(?P<cpu>\d+)\]\s+(?P<sec>\d+)\.(?P<ns>\d{9}):\s+"
                  r"(?P<event>[^:\s]+):\s?(?P<rest>.*)$")
MARKER_FIELDS = {"kind", "pid", "name", "value", "cookie"}


def trace_cmd(*args):
    out = subprocess.run(["trace-cmd", "report", *args], capture_output=True,
                         check=True)
    events = []
    for raw in out.stdout.decode("utf-8", "replace").splitlines():
        if raw.startswith("cpus=") or not raw.strip():
            continue
        m = LINE.match(raw)
        if not m:
            raise SystemExit(f"cannot parse trace-cmd line: {raw!r}")
        d = m.groupdict()
        events.append({
            "instance": d["inst"] or "",
            "comm": d["comm"].strip(),
            "pid": int(d["pid"]),
            "cpu": int(d["cpu"]),
            "time": int(d["sec"]) * 10**9 + int(d["ns"]),
            "event": d["event"],
            "rest": d["rest"].strip(),
        })
    return events


def fields_text(ev):
    fields = ev["fields"]
    parts = []
    for k, v in fields.items():
        if ev["event"] == "print" and k in MARKER_FIELDS:
            continue  # trawl's structured marker, not in the format
        parts.append(f"{k}={v}")
    return " ".join(parts)


HEX = re.compile(r"^0x[0-9a-f]+$")
SYMBOL = re.compile(r"^[A-Za-z_][\w.]*(\+0x[0-9a-f]+(/0x[0-9a-f]+)?)?$")


def same_fields(have, want):
    """Field texts agree. libtraceevent names a pointer by its symbol or
    shows its address depending on state trace-cmd and trawl do not share
    (whether the event's print format was used yet); either is the same
    value, so an address against a symbol is accepted, nothing else."""
    if have == want:
        return True
    a, b = have.split(" "), want.split(" ")
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y:
            continue
        kx, _, vx = x.partition("=")
        ky, _, vy = y.partition("=")
        if kx != ky or not ((HEX.match(vx) and SYMBOL.match(vy)) or
                            (HEX.match(vy) and SYMBOL.match(vx))):
            return False
    return True


def main():
    if shutil.which("trace-cmd") is None:
        print("SKIP: trace-cmd is not installed")
        return 77
    trawl, files = sys.argv[1], sys.argv[2:]
    failures = 0
    for path in files:
        raw = trace_cmd("-t", "-R", path)
        # the print formats alone (-N: no plugins), as the kernel prints
        fmt = trace_cmd("-N", "-t", path)
        out = subprocess.run([trawl, "report", "--json", path],
                             capture_output=True, check=True)
        got = json.loads(out.stdout)
        problems = []
        if not (len(got) == len(raw) == len(fmt)):
            problems.append(f"{len(got)} events, trace-cmd {len(raw)}")
        # equal timestamps: order by CPU as both tools agree to
        got_s = sorted(got, key=lambda e: (e["time"], e.get("instance", ""),
                                           e["cpu"], e["seq"]))
        if [e["seq"] for e in got_s] != [e["seq"] for e in got]:
            problems.append("trawl's order is not (time, buffer, CPU)")
        order = sorted(range(len(raw)), key=lambda i: (raw[i]["time"],
                                                      raw[i]["instance"],
                                                      raw[i]["cpu"], i))
        for n, (g, i) in enumerate(zip(got_s, order)):
            r, f = raw[i], fmt[i]
            want = (r["time"], r["cpu"], r["pid"], r["comm"], r["instance"],
                    r["event"])
            have = (g["time"], g["cpu"], g["pid"], g["comm"],
                    g.get("instance", ""), g["event"])
            if want != have:
                problems.append(f"event {n}: header {have} != {want}")
            elif not same_fields(fields_text(g), r["rest"]):
                problems.append(f"event {n} ({g['event']}): fields "
                                f"{fields_text(g)!r} != {r['rest']!r}")
            elif g.get("text", "").strip() != f["rest"]:
                problems.append(f"event {n} ({g['event']}): text "
                                f"{g.get('text')!r} != {f['rest']!r}")
            if len(problems) > 5:
                break
        if problems:
            failures += 1
            print(f"FAIL {path}:")
            for p in problems:
                print(f"  {p}")
        else:
            print(f"ok {path}: {len(got)} events match trace-cmd report "
                  f"(header, raw fields, formatted text)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
