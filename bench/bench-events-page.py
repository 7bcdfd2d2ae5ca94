#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trawl view's event list pages, the server alone: one page of 100 rows
of the whole trace's list at rows 0, 100, a third, a half, the end and
one more place, each timed (a fresh server without cache).

usage: bench/bench-events-page.py TRAWL FILE
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'tests', 'view'))
from viewserver import Server  # noqa: E402

s = Server(sys.argv[1], sys.argv[2], '--no-cache')
try:
    info = s.api('/api/info', {'lanes': 0})
    n, first, last = info['events'], info['first'], info['last']
    for row in (0, 100, n // 3, n // 2, n - 200, 12345678 % n):
        t = time.perf_counter()
        j = s.api('/api/events', {'from': first, 'to': last + 1, 'row': row,
                                  'limit': 100})
        print('row %d: %d events in %.1f ms' % (
            row, len(j['events']), (time.perf_counter() - t) * 1000))
finally:
    s.stop()
