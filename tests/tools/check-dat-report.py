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


def split_raw(rest, names):
    """-R's "a=1 b=x y c=3" cut at each " name=" of the fields, in order."""
    out, at = {}, 0
    for i, name in enumerate(names):
        key = name + "="
        if i == 0:
            if not rest.startswith(key):
                return None
            start = len(key)
        else:
            hit = rest.find(" " + key, at)
            if hit < 0:
                return None
            out[names[i - 1]] = rest[at:hit]
            start = hit + 1 + len(key)
        at = start
    if names:
        out[names[-1]] = rest[at:]
    return out


SYMBOL = re.compile(r"^[A-Za-z_][\w.]*(\+0x[0-9a-f]+(/0x[0-9a-f]+)?)?$")
ARRAY = re.compile(r"^ARRAY\[([0-9a-f, ]*)\]$")


def same_value(have, text):
    """A typed value of trawl's against -R's text of it. libtraceevent shows
    some addresses as their symbol (depending on state trawl does not
    share): a number against a symbol is accepted, nothing else."""
    if isinstance(have, bool) or have is None:
        return False
    if isinstance(have, int):
        if text == "(nil)":
            return have == 0
        for base in ((16,) if text.startswith("0x") else (10, 16, 8)):
            # -R prints some fields as their print format does: longs
            # in hex without 0x (clone_flags=1200000), %o in octal
            try:
                if (int(text, base) - have) % 2**64 == 0:
                    return True
            except ValueError:
                pass
        return bool(SYMBOL.match(text))
    if isinstance(have, list):
        m = ARRAY.match(text)
        if not m:
            return False
        raw = bytes(int(x, 16) for x in m.group(1).split(", ") if x)
        if not have:
            return not raw
        size = len(raw) // len(have)
        if size not in (1, 2, 4, 8) or size * len(have) != len(raw):
            return False
        return all((int.from_bytes(raw[i * size:(i + 1) * size], "little")
                    - v) % 2**(8 * size) == 0 for i, v in enumerate(have))
    return have == text


def same_fields(ev, rest):
    """Every field of the format (the marker fields of print are trawl's
    own) against -R's line."""
    names = [k for k in ev["fields"]
             if not (ev["event"] == "print" and k in MARKER_FIELDS)]
    if ev["event"] == "print" and "buf" in ev["fields"] and rest:
        # -R keeps the newline a marker write may end with
        rest = rest.rstrip("\n")
    texts = split_raw(rest, names)
    if texts is None:
        return False
    return all(same_value(ev["fields"][k], texts[k].rstrip("\n")
                          if k == "buf" else texts[k]) for k in names)


# Print arguments libtraceevent parses wrong (it drops the parentheses of
# "REC->flags & (A | B | C | D)"): the token trawl prints as the kernel does
# (check-pair.py compares it with the kernel's own text).
TEP_MISPARSED = {"timer_start": "flags"}

SIZED = re.compile(r"(\+0x[0-9a-f]+)/0x[0-9a-f]+")


def same_text(ev, want):
    """trawl's text of the event against libtraceevent's (-N: the print
    format alone). Where they differ trawl prints as the kernel does: a
    %pS symbol with its size (sym+0xoff/0xsize, libtraceevent knows no
    sizes), and a symbol whose number the format leaves undefined but
    trawl knows (HRTIMER_MODE_REL: "REL", libtraceevent "0x1"), which must
    then be the field's label."""
    have = SIZED.sub(r"\1", ev.get("text", "").strip())
    if have == want:
        return True
    labels = set(ev.get("labels", {}).values())
    a, b = have.split(" "), want.split(" ")
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y:
            continue
        bad = TEP_MISPARSED.get(ev["event"])
        if bad and x.startswith(bad + "=") and y.startswith(bad + "="):
            continue
        # a 0x number of libtraceevent's where trawl has the label
        if any(y.replace(h, lab, 1) == x
               for h in re.findall(r"0x[0-9a-f]+", y) for lab in labels):
            continue
        # a name the format leaves undefined (I_DIRTY_SYNC): libtraceevent
        # takes it for 0 and prints it; trawl prints what the kernel does
        # without it (the rest in hex, nothing for 0)
        kx, _, vx = x.rpartition("=")
        ky, _, vy = y.rpartition("=")
        if kx == ky and re.match(r"^[A-Z][A-Z0-9_|]*$", vy) and \
                re.match(r"^(0x[0-9a-f]+)?$", vx):
            continue
        return False
    return True


def fields_text(ev):
    return " ".join(f"{k}={v}" for k, v in ev["fields"].items())


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
            elif not same_fields(g, r["rest"]):
                problems.append(f"event {n} ({g['event']}): fields "
                                f"{fields_text(g)!r} != {r['rest']!r}")
            elif not same_text(g, f["rest"]):
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
