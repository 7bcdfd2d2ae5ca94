#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trawl run against trawl stats (and the analyses, and awk) on the same
file, interleaved so that load from other processes hits all alike.

usage: bench-script.py TRAWL [--runs N] FILE...

For each file: `trawl stats`, three scripts (count every event, count
sched_switch by next_comm, examples/wakeup-latency.tw), `trawl latency
wakeup`, and for text files awk counting sched_switch by next_comm. Prints
a Markdown table of medians, the ratio to `trawl stats` and peak RSS.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument('trawl')
ap.add_argument('files', nargs='+')
ap.add_argument('--runs', type=int, default=5)
a = ap.parse_args()
T = a.trawl
EX = os.path.join(here, '..', 'examples', 'wakeup-latency.tw')
AWK = ('/ sched_switch: / { if (match($0, /next_comm=[^ ]*/)) '
       'c[substr($0, RSTART + 10, RLENGTH - 10)]++ } '
       'END { for (k in c) print k, c[k] }')


def timed(argv):
    t0 = time.monotonic()
    r = subprocess.run(['/usr/bin/time', '-f', '%M'] + argv,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    el = time.monotonic() - t0
    if r.returncode:
        sys.exit(f'{argv}: exit {r.returncode}: {r.stderr}')
    return el, int(r.stderr.strip().splitlines()[-1])


print(f'| input | command | median s | vs trawl stats | peak RSS MB |')
print('| --- | --- | ---: | ---: | ---: |')
for f in a.files:
    text = not open(f, 'rb').read(10).startswith(b'\x17\x08\x44tracing')
    cmds = [
        ('trawl stats', [T, 'stats', f]),
        ("trawl run '* { @n = count(); }'",
         [T, 'run', '-e', '* { @n = count(); }', f]),
        ("trawl run '* { @[event] = count(); }'",
         [T, 'run', '-e', '* { @[event] = count(); }', f]),
        ("trawl run 'sched:sched_switch { @[args.next_comm] = count(); }'",
         [T, 'run', '-e', 'sched:sched_switch { @[args.next_comm] = '
          'count(); }', f]),
        ('trawl run examples/wakeup-latency.tw', [T, 'run', EX, f]),
        ('trawl latency wakeup', [T, 'latency', 'wakeup', f]),
    ]
    if text:
        cmds.append(('awk: sched_switch by next_comm', ['awk', AWK, f]))
    res = {name: [] for name, _ in cmds}
    rss = {}
    for i in range(a.runs):
        for name, argv in cmds:
            if name.startswith('awk') and i >= 2:
                continue  # slow: two runs are enough
            el, kb = timed(argv)
            res[name].append(el)
            rss[name] = max(rss.get(name, 0), kb)
    base = statistics.median(res['trawl stats'])
    size = os.path.getsize(f)
    for name, _ in cmds:
        m = statistics.median(res[name])
        print(f'| {os.path.basename(f)} ({size / 1e6:.0f} MB) | `{name}` | '
              f'{m:.3f} | {m / base:.2f}x | {rss[name] / 1024:.1f} |')
