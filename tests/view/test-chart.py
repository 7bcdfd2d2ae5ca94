#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trawl chart: well-formed SVG (Python's xml parser) with the lanes the
trace has, a window and a width that change what is drawn, a size that
depends on the width and not on the events (a generated trace of 300 000
context switches), and usage errors.

  test-chart.py TRAWL FIXTURES_DIR SCRATCH_DIR
"""
import os
import random
import subprocess
import sys
import xml.etree.ElementTree as ET

TRAWL, FIX, OUT = sys.argv[1:4]
os.makedirs(OUT, exist_ok=True)
NS = '{http://www.w3.org/2000/svg}'
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL:', what)


def chart(trace, name, *args):
    out = os.path.join(OUT, name)
    r = subprocess.run([TRAWL, 'chart', trace, '-o', out, '--no-cache',
                        *args],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, 'chart %s %s: %s' % (trace, args, r.stderr))
    root = ET.parse(out).getroot()
    kinds = [g.get('data-kind') for g in root.iter(NS + 'g')]
    return out, root, kinds


def synthetic(path, switches):
    """A two-CPU ftrace text of `switches` context switches among 40
    tasks, with an irq now and then."""
    rnd = random.Random(switches)
    t = 1000.0
    running = {0: 0, 1: 0}
    with open(path, 'w') as f:
        for i in range(switches):
            cpu = i % 2
            t += rnd.uniform(2e-6, 40e-6)
            nxt = rnd.choice([0] + list(range(100, 140)))
            prev = running[cpu]
            pc = 'swapper/%d' % cpu if prev == 0 else 'task%d' % prev
            nc = 'swapper/%d' % cpu if nxt == 0 else 'task%d' % nxt
            f.write('%16s-%-7d [%03d] d..2. %12.6f: sched_switch: '
                    'prev_comm=%s prev_pid=%d prev_prio=120 prev_state=S '
                    '==> next_comm=%s next_pid=%d next_prio=120\n'
                    % (pc, prev, cpu, t, pc, prev, nc, nxt))
            running[cpu] = nxt
            if i % 50 == 0:
                f.write('%16s-%-7d [%03d] d.h1. %12.6f: irq_handler_entry: '
                        'irq=5 name=eth0\n' % (nc, nxt, cpu, t + 1e-6))
                f.write('%16s-%-7d [%03d] d.h1. %12.6f: irq_handler_exit: '
                        'irq=5 ret=handled\n' % (nc, nxt, cpu, t + 2e-6))


def main():
    tc = os.path.join(FIX, 'tc.dat')
    out, root, kinds = chart(tc, 'tc.svg')
    check(root.tag == NS + 'svg', 'an svg root')
    check(root.get('width') == str(170 + 1200), 'default width 1200')
    for k in ('cpu', 'softirq', 'marker'):
        check(k in kinds, 'tc.dat chart has a %s lane (%s)' % (k, kinds))
    check('task' not in kinds, 'no task lanes by default')
    rects = list(root.iter(NS + 'rect'))
    check(len(rects) > 20, 'runs are drawn (%d rects)' % len(rects))
    _, _, kinds = chart(tc, 'tc-tasks.svg', '--lanes', 'cpu,task')
    check(set(kinds) == {'cpu', 'task'}, '--lanes cpu,task: %s'
          % set(kinds))
    _, root, kinds = chart(os.path.join(FIX, 'systrace.txt'), 'sys.svg',
                           '--lanes', 'all')
    for k in ('slice', 'counter', 'cpu'):
        check(k in kinds, 'systrace chart has %s lanes (%s)' % (k, kinds))
    check(root.find('.//' + NS + 'polyline') is not None,
          'counters are step charts')
    _, root, _ = chart(os.path.join(FIX, 'ftrace-irqinfo.txt'), 'win.svg',
                       '--from', '4119.466', '--to', '4119.467',
                       '--width', '300')
    check(root.get('width') == str(170 + 300), '--width 300')
    check('4119.466000' in root.find(NS + 'title').text,
          'the window is in the title')
    # size by width, not by events
    small, big = os.path.join(OUT, 'small.txt'), os.path.join(OUT, 'big.txt')
    synthetic(small, 3000)
    synthetic(big, 300000)
    sizes = {}
    for trace in (small, big):
        for w in (400, 1600):
            out, root, kinds = chart(trace, 'gen-%d.svg' % w, '--width',
                                     str(w), '--lanes', 'all')
            sizes[trace, w] = os.path.getsize(out)
            lanes = len(kinds)
            check(sizes[trace, w] < 2000 + lanes * w * 130,
                  '%s at width %d: %d bytes for %d lanes is within the '
                  'width bound' % (trace, w, sizes[trace, w], lanes))
    check(sizes[big, 400] < 2 * sizes[small, 400] + 200000,
          '100x the events is not 100x the SVG: %d vs %d'
          % (sizes[big, 400], sizes[small, 400]))
    check(os.path.getsize(big) > 40 * sizes[big, 1600],
          'the SVG is far smaller than the trace')
    for args, word in ((['chart', tc], '-o'),
                       (['chart', tc, '-o', os.path.join(OUT, 'x.svg'),
                         '--width', '3'], 'width'),
                       (['chart', tc, '-o', os.path.join(OUT, 'x.svg'),
                         '--lanes', 'cpu,nope'], 'nope'),
                       (['chart', tc, '-o', os.path.join(OUT, 'x.svg'),
                         '--from', '4143.2', '--to', '4143.1'], 'after'),
                       (['chart', tc, '-o', '/nonexistent/dir/x.svg'],
                        'cannot write')):
        r = subprocess.run([TRAWL, *args], capture_output=True, text=True)
        check(r.returncode in (1, 2) and word in r.stderr,
              '%s: fails naming %s (%d %r)' % (args, word, r.returncode,
                                               r.stderr[:100]))
    if failures:
        print('%d failures' % len(failures))
        sys.exit(1)
    print('trawl chart: all checks passed')


main()
