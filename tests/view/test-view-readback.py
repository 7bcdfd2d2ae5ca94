#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trawl view with its changes read back from the trace (ranged runs from
checkpoints) answers exactly as with every change in memory: two servers on
each fixture, one keeping everything, one made to keep nothing it can read
back (TRAWL_VIEW_BUDGET=0: dense lanes' changes and their finest levels
dropped), and the same requests to both: windows at every level of every
lane and at several zooms and places, raw windows, details of every change
kind (with the events and their fields, the wakeup and the waker), points,
and the analyses of windows; with checkpoints every 50 events
(TRAWL_VIEW_CHECK_EVENTS), and on a few fixtures with none; the second
server spills its dense lanes to the spill file while indexing, in
segments of 64 bytes (TRAWL_VIEW_SPILL_SEGMENT), but where there are no
checkpoints, and once where no spill file can be made. Also a cache
written by one and read by the other.

usage: test-view-readback.py TRAWL FIXTURES_DIR
"""
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from viewserver import Server  # noqa: E402

FIXTURES = ['tc.dat', 'tc-v6.dat', 'tc-v7-nocomp.dat', 'same-recording.dat',
            'tc-instance.dat', 'pair-broad.dat', 'ftrace-irqinfo.txt',
            'trace-pipe.txt', 'systrace.txt', 'ftrace-irqinfo.txt.gz']

failures = 0
counts = [0, 0, 0]  # replays, checkpoints, fixtures spilled


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print('FAIL:', what)


def same(a, b, what):
    check(a == b, '%s:\n  kept:     %.600s\n  read back: %.600s'
          % (what, a, b))


def compare(trawl, trace, env_base, checks, spill=64):
    full = Server(trawl, trace, '--no-cache', '--no-token',
                  env=dict(env_base, TRAWL_VIEW_BUDGET='100000000000'))
    back = Server(trawl, trace, '--no-cache', '--no-token',
                  env=dict(env_base, TRAWL_VIEW_BUDGET='0',
                           TRAWL_VIEW_CHECK_EVENTS=str(checks),
                           TRAWL_VIEW_SPILL_SEGMENT=str(spill)))
    try:
        name = os.path.basename(trace)
        fi, bi = full.api('/api/info'), back.api('/api/info')
        for k in ('first', 'last', 'events', 'cpus', 'tasks'):
            same(fi[k], bi[k], '%s info %s' % (name, k))
        strip = ('read_back', 'kept_level')
        same([{k: v for k, v in l.items() if k not in strip}
              for l in fi['lanes']],
             [{k: v for k, v in l.items() if k not in strip}
              for l in bi['lanes']], '%s info lanes' % name)
        check(fi['spilled_bytes'] == 0, '%s: spilled within budget' % name)
        if spill <= 64 and 'TMPDIR' not in env_base:
            counts[2] += bi['spilled_bytes'] > 0
        check(bi['index_bytes'] < fi['index_bytes'] or
              fi['index_bytes'] < 200000,
              '%s: nothing was dropped (%d vs %d bytes)'
              % (name, bi['index_bytes'], fi['index_bytes']))
        first, last = fi['first'], fi['last']
        span = last - first + 1
        lanes = fi['lanes']
        ids = ','.join(str(l['id']) for l in lanes)
        rnd = random.Random(name)
        # windows: the whole, zooms at several places, every level
        wins = [(first, last + 1)]
        for z in (4, 64, 1024, 16384):
            for _ in range(3):
                w = max(span // z, 1)
                a = first + rnd.randrange(max(span - w, 1))
                wins.append((a, a + w))
        for (a, b) in wins:
            for width in (1, 97, 1000):
                q = {'lanes': ids, 'from': a, 'to': b, 'width': width}
                same(full.api('/api/window', q), back.api('/api/window', q),
                     '%s window %s' % (name, q))
                q['level'] = 'raw'
                same(full.api('/api/window', q), back.api('/api/window', q),
                     '%s window %s' % (name, q))
        for l in lanes:
            for k in range(len(l['levels'])):
                w = l['levels'][k]
                a = first + rnd.randrange(span)
                q = {'lanes': l['id'], 'from': a, 'to': a + 300 * w,
                     'width': 300, 'level': k}
                same(full.api('/api/window', q), back.api('/api/window', q),
                     '%s lane %d level %d' % (name, l['id'], k))
        # details: at change times found from raw windows, and between
        for l in lanes:
            if not l['changes']:
                continue
            times = [first + rnd.randrange(span) for _ in range(6)]
            times += [first, last]
            for t in times:
                q = {'lane': l['id'], 't': t, 'fields': 1}
                if l['kind'] in ('marker', 'lost'):
                    q['tol'] = span // 20
                same(full.api('/api/detail', q), back.api('/api/detail', q),
                     '%s detail %s' % (name, q))
        # clicks on runs: the start of each CPU lane's runs in a zoom
        for l in lanes:
            if l['kind'] not in ('cpu', 'task'):
                continue
            a = first + span // 3
            d = full.api('/api/detail', {'lane': l['id'], 't': a})
            if d.get('found'):
                for t in (d['start'], d['end'], d['end'] + 1):
                    q = {'lane': l['id'], 't': t, 'fields': 1}
                    same(full.api('/api/detail', q),
                         back.api('/api/detail', q),
                         '%s run detail %s' % (name, q))
        # analyses
        for (a, b) in wins[:8]:
            q = {'from': a, 'to': b}
            same(full.api('/api/analysis', q), back.api('/api/analysis', q),
                 '%s analysis %s' % (name, q))
        bi = back.api('/api/info')
        check(bi['read_back'] > 0, '%s: nothing was read back' % name)
        check(any(l['read_back'] for l in bi['lanes']),
              '%s: no lane reads back' % name)
        if checks < 10 ** 6 and fi['events'] > 1000:
            check(bi['checkpoints'] > 2, '%s: %d checkpoints'
                  % (name, bi['checkpoints']))
        counts[0] += bi['read_back']
        counts[1] += bi['checkpoints']
    finally:
        full.stop()
        back.stop()


def cache_roundtrip(trawl, trace, env_base):
    """The cache of a trimmed index reads back and answers the same."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(env_base, XDG_CACHE_HOME=d, TRAWL_VIEW_BUDGET='0',
                   TRAWL_VIEW_CHECK_EVENTS='100')
        one = Server(trawl, trace, '--no-token', env=env)
        try:
            i1 = one.api('/api/info')
            check(not i1['cached'], 'first run cached')
        finally:
            one.stop()
        two = Server(trawl, trace, '--no-token', env=env)
        try:
            i2 = two.api('/api/info')
            check(i2['cached'], 'second run not from the cache')
            ids = ','.join(str(l['id']) for l in i2['lanes'])
            span = i2['last'] - i2['first'] + 1
            for z in (1, 50, 5000):
                q = {'lanes': ids, 'from': i2['first'] + span // 3,
                     'to': i2['first'] + span // 3 + span // z,
                     'width': 500}
                ref = Server(trawl, trace, '--no-cache', '--no-token',
                             env=dict(env_base,
                                      TRAWL_VIEW_BUDGET='100000000000'))
                try:
                    same(ref.api('/api/window', q),
                         two.api('/api/window', q),
                         'cache window %s' % q)
                finally:
                    ref.stop()
        finally:
            two.stop()


def main():
    trawl, fixtures = sys.argv[1], sys.argv[2]
    env = dict(os.environ)
    env.pop('TRAWL_VIEW_BUDGET', None)
    for i, f in enumerate(FIXTURES):
        # checkpoints every 50 events; for a few, none but the start
        compare(trawl, os.path.join(fixtures, f), env, 50)
        if i % 3 == 0:
            compare(trawl, os.path.join(fixtures, f), env, 10 ** 9,
                    spill=10 ** 9)
    # no spill file to be had: everything stays in memory until trimmed
    compare(trawl, os.path.join(fixtures, 'tc.dat'),
            dict(env, XDG_CACHE_HOME='/proc/none', TMPDIR='/proc/none'), 50)
    check(counts[2] >= len(FIXTURES) // 2,
          'only %d fixtures spilled' % counts[2])
    cache_roundtrip(trawl, os.path.join(fixtures, 'pair-broad.dat'), env)
    if failures:
        print('%d failures' % failures)
        sys.exit(1)
    print('ok: %d fixtures, read back = kept (%d windows read back, %d '
          'checkpoints, %d spilled)' % (len(FIXTURES), counts[0], counts[1],
                                        counts[2]))


if __name__ == '__main__':
    main()
