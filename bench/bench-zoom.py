#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trawl view's zoom steps on a trace: a fresh server without cache, the
first 64 lanes at 1500 columns, the window divided by four from the whole
trace down to 20 us around the middle; prints each step's time, the
budget and the kept levels. Run it on the v6 and v7 copies of one
recording (bench/make-dat-input.sh) to compare them.

usage: bench/bench-zoom.py TRAWL FILE...
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'tests', 'view'))
from viewserver import Server  # noqa: E402

trawl = sys.argv[1]
for trace in sys.argv[2:]:
    s = Server(trawl, trace, '--no-cache')
    try:
        info = s.api('/api/info')
        ids = ','.join(str(l['id']) for l in info['lanes'][:64])
        first, last = info['first'], info['last']
        mid = (first + last) // 2 + 12345
        span = last - first
        out = []
        while span > 20000:
            f, t = mid - span // 2, mid + span // 2
            t0 = time.perf_counter()
            s.api('/api/window', {'lanes': ids, 'from': f, 'to': t,
                                  'width': 1500})
            out.append(time.perf_counter() - t0)
            span //= 4
        print('%s: budget %s, kept levels %s; steps (ms) %s; slowest %.0f ms,'
              ' median %.0f ms' % (
                  os.path.basename(trace), info.get('budget_bytes'),
                  sorted({l.get('kept_level') for l in info['lanes']},
                         key=str),
                  ' '.join('%.0f' % (x * 1000) for x in out),
                  max(out) * 1000, statistics.median(out) * 1000))
    finally:
        s.stop()
