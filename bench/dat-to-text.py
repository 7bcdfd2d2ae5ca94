#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The kernel's text of a trace.dat's events, from `trawl report`: the same
events as a tracefs `trace` file would show them (microseconds, rounded as
the kernel rounds), so a benchmark can read one recording both ways.

usage: bench/dat-to-text.py TRAWL FILE.dat > FILE.txt
"""
import re
import subprocess
import sys

LINE = re.compile(r"^\s*\d+ (\d+)\.(\d{9}) \[(\d+)\] (.*)-(\d+) (\S+) "
                  r"([^:\s]+): (.*)$")


def main():
    trawl, path = sys.argv[1], sys.argv[2]
    p = subprocess.Popen([trawl, "report", path], stdout=subprocess.PIPE,
                         bufsize=1 << 20)
    out = sys.stdout
    out.write("# tracer: nop\n#\n")
    for raw in p.stdout:
        m = LINE.match(raw.decode("utf-8", "replace").rstrip("\n"))
        if not m:
            continue
        sec, ns, cpu, comm, pid, flags, name, text = m.groups()
        us = (int(sec) * 10**9 + int(ns) + 500) // 1000
        if name == "print" and text.startswith("tracing_mark_write: "):
            name, text = "tracing_mark_write", text[20:]
        out.write(f"{comm:>16}-{int(pid):<7} [{int(cpu):03d}] "
                  f"{flags}. {us // 10**6:5d}.{us % 10**6:06d}: "
                  f"{name}: {text}\n")
    return p.wait()


if __name__ == "__main__":
    sys.exit(main())
