#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trawl view's zoom steps on a trace: a fresh server without cache, the
first 64 lanes at 1500 columns, the window divided by four from the whole
trace down to 20 us around the middle; prints each step's time (the median
of --runs fresh servers), the budget and the kept levels, and each step's
ratio to the first file's. Run it on the v6 and v7 copies of one
recording (bench/make-dat-input.sh) to compare them.

usage: bench/bench-zoom.py [--runs N] TRAWL FILE...
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'tests', 'view'))
from viewserver import Server  # noqa: E402

args = sys.argv[1:]
runs = 1
if args[:1] == ['--runs']:
    runs, args = int(args[1]), args[2:]
trawl = args[0]


def steps(trace):
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
        return info, out
    finally:
        s.stop()


base = None
for trace in args[1:]:
    got = [steps(trace) for _ in range(runs)]
    info = got[0][0]
    med = [statistics.median(r[1][i] for r in got)
           for i in range(len(got[0][1]))]
    line = ('%s: budget %s, kept levels %s; steps (ms, median of %d) %s; '
            'slowest %.0f ms, median %.0f ms' % (
                os.path.basename(trace), info.get('budget_bytes'),
                sorted({l.get('kept_level') for l in info['lanes']},
                       key=str),
                runs, ' '.join('%.1f' % (x * 1000) for x in med),
                max(med) * 1000, statistics.median(med) * 1000))
    if base is None:
        base = med
    else:
        line += '; ratio to %s per step %s (largest %.2f)' % (
            os.path.basename(args[1]),
            ' '.join('%.2f' % (a / b) for a, b in zip(med, base)),
            max(a / b for a, b in zip(med, base)))
    print(line, flush=True)
