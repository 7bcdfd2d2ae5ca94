#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A real capture repeated to a size, each copy shifted in time to after the
previous one, so the file stays in time order (a plain concatenation would
not be, and would be read through the external sorter).

usage: bench/repeat-capture.py CAPTURE BYTES OUT
e.g.   bench/repeat-capture.py tests/fixtures/pair-broad.txt 20000000 /tmp/pair-20M.txt

The header comment lines are copied once; the timestamp column keeps the
kernel's width ("%5lu.%06lu"). OUT is at most BYTES, cut at a line end.
Python 3 standard library only.
"""
import re
import sys

src, size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = open(src, "rb").read().split(b"\n")
hdr = [l for l in lines if l.startswith(b"#")]
ev = [l for l in lines if l and not l.startswith(b"#")]
TS = re.compile(rb"(\s)(\d+)\.(\d{6}):")


def ts_of(line):
    m = TS.search(line, 24)
    return int(m.group(2)) * 10**6 + int(m.group(3))


span = ts_of(ev[-1]) - ts_of(ev[0]) + 1000       # microseconds per copy
with open(out, "wb") as o:
    n = 0
    for h in hdr:
        o.write(h + b"\n")
        n += len(h) + 1
    k = 0
    while True:
        for line in ev:
            m = TS.search(line, 24)
            t = int(m.group(2)) * 10**6 + int(m.group(3)) + k * span
            stamp = b"%d.%06d" % (t // 10**6, t % 10**6)
            width = len(m.group(2)) + 7
            new = line[:m.start()] + m.group(1) + stamp.rjust(width) + b":" + line[m.end():]
            if n + len(new) + 1 > size:
                sys.exit(0)
            o.write(new + b"\n")
            n += len(new) + 1
        k += 1
