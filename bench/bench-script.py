#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trawl run against trawl stats (and the built-in analysis, and awk) on the
same file, interleaved so that load from other processes hits all alike.

usage: bench-script.py TRAWL [--runs N] [--more] FILE...

For each file, N rounds (default 5); a round runs each command once:
`trawl stats`, `trawl run examples/wakeup-latency.tw`, `trawl latency
wakeup`, and for text files bench/wakeup-latency.awk (the same script in
awk) under mawk and gawk, those installed. --more adds three scripts
(count every event, count by event name, count sched_switch by next_comm).
Prints a Markdown table: the median time, the median over rounds of each
round's ratio to `trawl stats` (and, for awk, to `trawl run` in the same
round), and peak RSS. The first round's outputs of the script and of awk
are compared: they must be the same text.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument('trawl')
ap.add_argument('files', nargs='+')
ap.add_argument('--runs', type=int, default=5)
ap.add_argument('--more', action='store_true')
a = ap.parse_args()
T = a.trawl
EX = os.path.join(here, '..', 'examples', 'wakeup-latency.tw')
AWK = os.path.join(here, 'wakeup-latency.awk')
RUN = 'trawl run examples/wakeup-latency.tw'
env = dict(os.environ, LC_ALL='C')


def timed(argv, out=None):
    t0 = time.monotonic()
    with open(out, 'wb') if out else open(os.devnull, 'wb') as o:
        r = subprocess.run(['/usr/bin/time', '-f', '%M'] + argv, stdout=o,
                           stderr=subprocess.PIPE, text=True, env=env)
    el = time.monotonic() - t0
    if r.returncode:
        sys.exit(f'{argv}: exit {r.returncode}: {r.stderr}')
    return el, int(r.stderr.strip().splitlines()[-1])


def load():
    return os.getloadavg()[0]


tmp = tempfile.mkdtemp(prefix='bench-script-')
print('| input | command | median s | vs trawl stats (per round) '
      '| vs trawl run | peak RSS MB |')
print('| --- | --- | ---: | ---: | ---: | ---: |')
loads = []
for f in a.files:
    text = not open(f, 'rb').read(10).startswith(b'\x17\x08\x44tracing')
    cmds = [('trawl stats', [T, 'stats', f])]
    if a.more:
        cmds += [
            ("trawl run '* { @n = count(); }'",
             [T, 'run', '-e', '* { @n = count(); }', f]),
            ("trawl run '* { @[event] = count(); }'",
             [T, 'run', '-e', '* { @[event] = count(); }', f]),
            ("trawl run 'sched:sched_switch { @[args.next_comm] = "
             "count(); }'",
             [T, 'run', '-e', 'sched:sched_switch { @[args.next_comm] = '
              'count(); }', f]),
        ]
    cmds += [(RUN, [T, 'run', EX, f]),
             ('trawl latency wakeup', [T, 'latency', 'wakeup', f])]
    awks = []
    if text:
        for awk in ('mawk', 'gawk'):
            if shutil.which(awk):
                awks.append(f'{awk} -f bench/wakeup-latency.awk')
                cmds.append((awks[-1], [awk, '-f', AWK, f]))
    res = {name: [] for name, _ in cmds}
    rss = {}
    for i in range(a.runs):
        loads.append(load())
        for name, argv in cmds:
            out = None
            if i == 0 and (name == RUN or name in awks):
                out = os.path.join(tmp, name.split()[0] + '.out')
            el, kb = timed(argv, out)
            res[name].append(el)
            rss[name] = max(rss.get(name, 0), kb)
    for name in awks:
        ref = open(os.path.join(tmp, 'trawl.out'), 'rb').read()
        got = open(os.path.join(tmp, name.split()[0] + '.out'), 'rb').read()
        if got != ref:
            sys.exit(f'{name} on {f}: not the output of {RUN}')
    size = os.path.getsize(f)
    for name, _ in cmds:
        m = statistics.median(res[name])
        r = [x / b for x, b in zip(res[name], res['trawl stats'])]
        ratio = (f'{statistics.median(r):.2f}x '
                 f'({min(r):.2f}-{max(r):.2f})')
        vs_run = ''
        if name in awks:
            q = [x / b for x, b in zip(res[name], res[RUN])]
            vs_run = f'{statistics.median(q):.1f}x ({min(q):.1f}-{max(q):.1f})'
        print(f'| {os.path.basename(f)} ({size / 1e6:.0f} MB) | `{name}` | '
              f'{m:.3f} | {ratio} | {vs_run} | {rss[name] / 1024:.1f} |')
shutil.rmtree(tmp)
print(f'\n{a.runs} rounds; load average (1 min) at the rounds\' starts: '
      f'{min(loads):.1f}-{max(loads):.1f}')
