#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""examples/timeline-chart.c, the public timeline API from C: its counts
are trawl stats', its /api/info answers, and its SVG is trawl chart's of
the same lanes and width, byte for byte.

  test-timeline-example.py EXAMPLE TRAWL FIXTURES_DIR OUTDIR
"""
import json
import os
import subprocess
import sys

example, trawl, fix, out = sys.argv[1:5]
os.makedirs(out, exist_ok=True)
os.environ['XDG_CACHE_HOME'] = os.path.join(out, 'cache')
failures = 0
for name in ('tc.dat', 'systrace.txt', 'cpu-idle.txt'):
    trace = os.path.join(fix, name)
    svg = os.path.join(out, name + '.svg')
    r = subprocess.run([example, trace, svg], capture_output=True, text=True)
    stats = json.loads(subprocess.run([trawl, 'stats', trace, '--json'],
                                      capture_output=True, text=True,
                                      check=True).stdout)
    events = stats['events']
    if isinstance(events, dict):
        events = sum(events.values())
    want = os.path.join(out, name + '.chart.svg')
    subprocess.run([trawl, 'chart', trace, '-o', want, '--lanes',
                    'cpu,slice', '--width', '1000', '--no-cache'], check=True)
    ok = (r.returncode == 0 and
          r.stdout.startswith('%d events in ' % events) and
          '/api/info: 200,' in r.stdout and
          open(svg, 'rb').read() == open(want, 'rb').read())
    print('%s: %s' % ('ok' if ok else 'FAIL', name), r.stdout.strip(),
          r.stderr.strip())
    failures += not ok
r = subprocess.run([example, os.path.join(out, 'no-such.dat'),
                    os.path.join(out, 'x.svg')], capture_output=True,
                   text=True)
ok = r.returncode == 1 and 'no-such.dat' in r.stderr
print('%s: a file that is not there: %s' % ('ok' if ok else 'FAIL',
                                            r.stderr.strip()))
failures += not ok
sys.exit(1 if failures else 0)
