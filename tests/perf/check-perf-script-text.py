#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`perf script` text read by trawl against the perf.data it was made from.

usage: check-perf-script-text.py TRAWL TEXT PERF.DATA [--prefix] [--min N]

Both are read with `trawl report --json`. The text must give the same
events in the same order (with --prefix: the perf.data's first ones, the
text being the head of perf script's output): per type the same count,
and each event the perf.data's time (to the precision perf script
printed: microseconds, or ns with --ns), cpu, pid, system and name, and
every sched_switch's prev_pid and next_pid. Typed fields are compared
too, all of them, with these exceptions, which are what the text does not
hold: a field the text's format shows as display only; the tgid
(printed only with -F pid); user frames and a user-space sample's ip,
which perf script prints relative to their file (the text's caller is
then each frame's offset, checked against the perf.data's maps); the pid
of a task past its exit, which perf script prints as -1.
--min N: fail when fewer than N events were compared.
"""
import json
import re
import subprocess
import sys
from collections import Counter


def events(trawl, path):
    out = subprocess.run([trawl, 'report', '--json', path],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f'FAIL: trawl report --json {path}: {out.stderr}')
    evs = []
    for line in out.stdout.splitlines():
        line = line.rstrip(',')
        if line.startswith('{'):
            evs.append(json.loads(line))
    return evs


def precision(path):
    """1 for ns times (--ns), 1000 for perf script's default usecs."""
    with open(path, errors='replace') as f:
        for line in f:
            m = re.search(r' (\d+)\.(\d+): ', line)
            if m and not line.startswith(('#', '\t')):
                return 1 if len(m.group(2)) == 9 else 1000
    return 1000


KERNEL = 0xffff800000000000


def check(trawl, text, perf, prefix):
    txt, ref = events(trawl, text), events(trawl, perf)
    div = precision(text)
    if prefix:
        ref = ref[:len(txt)]
    fails = []
    ct = Counter((e['system'], e['event']) for e in txt)
    cr = Counter((e['system'], e['event']) for e in ref)
    if ct != cr:
        fails.append(f'events per type differ: text {dict(ct)} '
                     f'perf.data {dict(cr)}')
    switches = skipped = exited = 0
    for i, (t, r) in enumerate(zip(txt, ref)):
        where = f'event {i} ({r["event"]} at {r["time"]})'
        head = ('time', 'cpu', 'pid', 'system', 'event')
        rt = dict(r, time=r['time'] // div * div)
        if t.get('pid') == -1 and r['pid'] >= 0:
            exited += 1  # perf script prints -1 for a task past its exit
            rt['pid'] = -1
        if any(t.get(k) != rt.get(k) for k in head):
            fails.append(f'{where}: text {[t.get(k) for k in head]} '
                         f'perf.data {[rt.get(k) for k in head]}')
            continue
        tf, rf = t.get('fields', {}), r.get('fields', {})
        if r['event'] == 'sched_switch':
            switches += 1
            for k in ('prev_pid', 'next_pid'):
                if tf.get(k) != rf.get(k):
                    fails.append(f'{where}: {k} {tf.get(k)} != {rf.get(k)}')
        display = set(t.get('display_only', []))
        for k, v in rf.items():
            if k in display:
                skipped += 1
                continue
            tv = tf.get(k)
            if k == 'tgid' and tv is None:
                continue
            if r['event'] == 'user_stack' and k == 'caller':
                offs = [int(m.rsplit('+0x', 1)[1], 16) if '+0x' in m else a
                        for m, a in zip(rf['maps'].splitlines(), v)]
                if tv != offs:
                    fails.append(f'{where}: user frames {tv} != {offs}')
                continue
            if r['system'] == 'perf' and k == 'ip' and v < KERNEL:
                continue  # relative to its file in the text
            if tv != v:
                fails.append(f'{where}: {k}={tv!r}, perf.data {v!r}')
    if len(txt) != len(ref):
        fails.append(f'{len(txt)} events in the text, {len(ref)} in the '
                     f'perf.data')
    print(f'{text}: {len(txt)} events against {perf} ({switches} '
          f'sched_switch; {skipped} display-only values not compared; '
          f'{exited} pids printed as -1)')
    return fails, len(txt)


def main():
    args = sys.argv[1:]
    prefix = '--prefix' in args
    args = [a for a in args if a != '--prefix']
    least = 1
    if '--min' in args:
        k = args.index('--min')
        least = int(args[k + 1])
        del args[k:k + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    fails, n = check(*args, prefix)
    if n < least:
        fails.append(f'only {n} events compared, expected {least} or more')
    for f in fails[:20]:
        print('FAIL:', f)
    if len(fails) > 20:
        print(f'... {len(fails) - 20} more')
    sys.exit(1 if fails else 0)


if __name__ == '__main__':
    main()
