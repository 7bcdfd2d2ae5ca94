#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The analyses' --from/--to read only that part of a file (a ranged run
entered by a binary search of the trace) and must answer exactly as a
read of the whole: the same command on the same bytes from standard
input, which cannot be entered at a time, so it reads everything and
hides what is outside. Every analysis command, several windows (inside,
at the edges, from only, to only, empty) on each fixture.

usage: check-ranges.py TRAWL FIXTURE...
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

COMMANDS = [['sched', '--json'], ['latency', 'wakeup', '--json'], ['irq'],
            ['workqueue'], ['slices']]
# (from, to) as shares of the span; None: not given
WINDOWS = [(0.1, 0.4), (0.45, 0.55), (0.7, None), (None, 0.3),
           (0.5, 0.5000001), (-0.5, 0.2)]


def secs(ns):
    sign = '-' if ns < 0 else ''
    ns = abs(ns)
    return '%s%d.%09d' % (sign, ns // 10**9, ns % 10**9)


def run(cmd, stdin=None):
    p = subprocess.run(cmd, stdin=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120)
    return p.returncode, p.stdout


TS = re.compile(rb' (\d+)\.(\d{6}): ')


def long_text(src, copies, out):
    """src's events again and again, each copy later by its span: long
    enough that a ranged run skips most of the file (the small fixtures
    are read whole whatever the window, a page or the text margin of
    10 ms being all of them)."""
    with open(src, 'rb') as f:
        lines = f.read().splitlines(True)
    head = [l for l in lines if l.startswith(b'#')]
    events = [l for l in lines if not l.startswith(b'#')]
    us = [int(m.group(1)) * 10**6 + int(m.group(2))
          for m in (TS.search(l) for l in events) if m]
    step = max(us) - min(us) + 1000
    with open(out, 'wb') as f:
        f.writelines(head)
        for k in range(copies):
            for l in events:
                def shift(m):
                    t = int(m.group(1)) * 10**6 + int(m.group(2)) + k * step
                    return b' %d.%06d: ' % (t // 10**6, t % 10**6)
                f.write(TS.sub(shift, l, count=1))
    with open(out, 'rb') as f, gzip.open(out + '.gz', 'wb') as g:
        shutil.copyfileobj(f, g)
    return [out, out + '.gz']


def main():
    trawl, fixtures = sys.argv[1], sys.argv[2:]
    failures = checks = 0
    tmp = tempfile.mkdtemp(prefix='trawl-ranges-')
    text = [f for f in fixtures if f.endswith('ftrace-irqinfo.txt')]
    if text:
        fixtures = fixtures + long_text(text[0], 40,
                                        os.path.join(tmp, 'long.txt'))
    for path in fixtures:
        rc, out = run([trawl, 'stats', '--json', path])
        if rc:
            print('FAIL: trawl stats %s: %s' % (path, out.decode()))
            failures += 1
            continue
        st = json.loads(out)
        first, span = st['first_time'], max(st['span'], 1)
        name = os.path.basename(path)
        for a, b in WINDOWS:
            opts = []
            if a is not None:
                opts += ['--from', secs(first + int(span * a))]
            if b is not None:
                opts += ['--to', secs(first + int(span * b))]
            for c in COMMANDS:
                rc, out = run([trawl] + c + opts + [path])
                # the JSON names the file
                ranged = (rc, out.replace(json.dumps(path).encode(),
                                          b'"-"'))
                # a pipe: a regular file as standard input can be
                # entered at a time as well
                cat = subprocess.Popen(['cat', path], stdout=subprocess.PIPE)
                whole = run([trawl] + c + opts + ['-'], stdin=cat.stdout)
                cat.stdout.close()
                cat.wait()
                checks += 1
                if ranged != whole:
                    failures += 1
                    print('FAIL: %s %s %s: ranged (exit %d) and whole '
                          '(exit %d) differ:\n--- ranged\n%s\n--- whole\n%s'
                          % (name, ' '.join(c), ' '.join(opts), ranged[0],
                             whole[0], ranged[1].decode()[:1500],
                             whole[1].decode()[:1500]))
    shutil.rmtree(tmp)
    if failures:
        print('%d of %d failed' % (failures, checks))
        sys.exit(1)
    print('ok: %d ranged runs equal the whole read on %d fixtures'
          % (checks, len(fixtures)))


if __name__ == '__main__':
    main()
