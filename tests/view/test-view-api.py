#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trawl view's HTTP API against a real server on real fixtures:
analyses of the whole window equal trawl sched and trawl latency; windows
at every level and at the edges add up to the width asked; bad parameters
are 400 with a message; the token, the Host check, no CORS headers, path
traversal refused, oversized requests bounded, many concurrent clients;
SIGINT ends it.

  test-view-api.py TRAWL FIXTURES_DIR
"""
import http.client
import importlib.util
import fnmatch
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from viewserver import Server  # noqa: E402

# the CPU lanes read alone (tests/analysis/check-sched-lanes.py)
_spec = importlib.util.spec_from_file_location(
    'sched_lanes', os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'analysis', 'check-sched-lanes.py'))
SCHED_LANES = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(SCHED_LANES)

TRAWL, FIX = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL:', what)


def trawl_json(*args):
    return json.loads(subprocess.run([TRAWL, *args, '--json'], check=True,
                                     capture_output=True, text=True).stdout)


def trawl_json_lines(*args):
    return json.loads(subprocess.run([TRAWL, *args, '--json'], check=True,
                                     capture_output=True, text=True).stdout)


def lanes_of(info, kind):
    return [l for l in info['lanes'] if l['kind'] == kind]


def cols_width(cols):
    return sum(c[0] for c in cols)


def analyses_agree(s, trace):
    """The window analyses of the whole trace are trawl sched's and trawl
    latency wakeup's numbers."""
    info = s.api('/api/info')
    a = s.api('/api/analysis', {'top': 1000})
    sched = trawl_json('sched', trace)
    want = {t['pid']: t['run'] for t in sched['tasks'] if t['run']}
    got = {t['pid']: t['run'] for t in a['top_tasks']}
    # one rule for both, and for the CPU lanes read independently: a CPU
    # runs what its last sched_switch switched in until its next one,
    # whatever that one's prev_pid says (a lost event); instances (two
    # buffers) have CPU lanes each, the tasks' states from the first
    multi = any(l['buffer'] for l in info['lanes'])
    if multi:
        bufs = {l['buffer'] for l in info['lanes'] if l['kind'] == 'cpu'}
        check(len(bufs) > 1, '%s: CPU lanes per instance' % trace)
    check(got == want, '%s: run time per task %s != trawl sched %s'
          % (trace, sorted(got.items())[:5], sorted(want.items())[:5]))
    if trace.endswith('.txt') or trace.endswith('.dat'):
        run, _ = SCHED_LANES.lanes(trace)
        lanes = {p: r for p, r in run.items() if r}
        check(got == lanes, '%s: run time per task %s != the CPU lanes read '
              'alone %s' % (trace, sorted(got.items())[:5],
                            sorted(lanes.items())[:5]))
    disagree = sum(x['count'] for x in sched['anomalies'] if
                   x['what'].startswith("sched_switch's prev_pid"))
    check(info['switch_anomalies'] == disagree,
          '%s: %d switches that disagree with their CPU, trawl sched %d'
          % (trace, info['switch_anomalies'], disagree))
    names = {t['pid']: t['comm'] for t in sched['tasks']}
    check(all(names.get(t['pid']) == t['comm'] for t in a['top_tasks']),
          '%s: each task by its last comm, as trawl sched names it' % trace)
    busy = {c['cpu']: c['busy'] for c in sched['cpus']}
    gotb = {c['cpu']: c['busy'] for c in a['cpus']}
    if not multi:
        check(gotb == busy, '%s: CPU busy %s != %s' % (trace, gotb, busy))
    lj = trawl_json('latency', 'wakeup', trace)
    lat = lj['overall']
    w = a['wakeup_latency']
    for k in ('count', 'min', 'max', 'p50', 'p90', 'p99'):
        check(w[k] == lat[k], '%s: wakeup latency %s %s != %s'
              % (trace, k, w[k], lat[k]))
    # where the longest ends (the panel's link): trawl latency's worst
    if lat['count']:
        ends = {x['end'] for x in lj['worst'] if x['duration'] == lat['max']}
        check(w.get('max_at') in ends, '%s: the longest wakeup ends at %s, '
              'trawl latency says %s' % (trace, w.get('max_at'), ends))
    irq = trawl_json('irq', trace)
    check(a['irq_over_threshold']['count'] == irq['long_count'] ==
          info['irq_over_threshold'],
          '%s: ISR warnings %s vs trawl irq %s' %
          (trace, a['irq_over_threshold']['count'], irq['long_count']))
    return info


def lives(info, trace):
    """A task lane's life: its first change is the task's first sched event
    (a switch or a wakeup naming it), and a task whose last switch-out is
    as dead (X, Z) and is never seen again is dead from then."""
    if any(l['buffer'] for l in info['lanes']):
        return
    first, last_out, last_any = {}, {}, {}
    for e in trawl_json_lines('report', trace):
        f = e['fields']
        pids = []
        if e['event'] == 'sched_switch':
            pids = [f['prev_pid'], f['next_pid']]
            last_out[f['prev_pid']] = (e['time'], e.get('labels', {}).get(
                'prev_state', str(f['prev_state'])))
        elif e['event'] in ('sched_waking', 'sched_wakeup',
                            'sched_wakeup_new'):
            pids = [f['pid']]
        for p in pids:
            first.setdefault(p, e['time'])
            last_any[p] = e['time']
    dead = 0
    for l in lanes_of(info, 'task'):
        p = l['pid']
        if p in first:
            check(l.get('first') == first[p], '%s pid %d: first %s, the trace '
                  '%s' % (trace, p, l.get('first'), first[p]))
        t, st = last_out.get(p, (None, ''))
        gone = st[:1] in ('X', 'Z') and last_any[p] == t
        check(('dead_at' in l) == gone and (not gone or l['dead_at'] == t),
              '%s pid %d: dead_at %s, the trace: last out %s as %s' % (
                  trace, p, l.get('dead_at'), t, st))
        dead += gone
    return dead


def summary(s, trace):
    """The trace info page says what trawl stats --json says."""
    got = s.api('/api/summary')['summary']
    want = trawl_json('stats', trace)
    for k in ('format', 'compression', 'total_events', 'events', 'cpus',
              'lost_events', 'overwritten_events', 'bad_lines',
              'reordered_events'):
        check(got.get(k) == want.get(k), '%s info page %s: %s, trawl stats '
              '%s' % (trace, k, str(got.get(k))[:120], str(want.get(k))[:120]))


def event_list(s, info, trace):
    """The event list's pages are trawl report --json's events: rows by
    their place in the whole run (seq), in windows, by time, filtered."""
    rep = trawl_json_lines('report', trace)
    n = len(rep)
    j = s.api('/api/events', {'row': 0, 'limit': 1})
    check(j['count'] == n == info['events'], '%s: the list has every event '
          '(%d, report %d)' % (trace, j['count'], n))
    for row in (0, 1, n // 3, n // 2, n - 7):
        j = s.api('/api/events', {'row': row, 'limit': 5})
        got = [(e['seq'], e['time'], e['event'], e['cpu'], e['text'])
               for e in j['events']]
        want = [(e['seq'], e['time'], e['event'], e['cpu'], e['text'])
                for e in rep[row:row + 5]]
        check(got == want, '%s: rows %d..: %s, report %s' % (
            trace, row, got[:2], want[:2]))
    a, b = rep[n // 4]['time'], rep[n // 2]['time']
    j = s.api('/api/events', {'from': a, 'to': b, 'limit': 3})
    inside = [e for e in rep if a <= e['time'] < b]
    check(j['count'] == len(inside) and
          [e['seq'] for e in j['events']] == [e['seq'] for e in inside[:3]],
          '%s: a window\'s list is its events (%d, report %d)' % (
              trace, j['count'], len(inside)))
    t = rep[2 * n // 3]['time']
    j = s.api('/api/events', {'t': t, 'limit': 1})
    first = next(i for i, e in enumerate(rep) if e['time'] >= t)
    check(j['row'] == first, '%s: the row at a time: %d, report %d' % (
        trace, j['row'], first))
    # a filter: the events it names, page after page, nothing skipped
    got, row = [], 0
    while True:
        j = s.api('/api/events', {'q': 'sched_switch,pid=0', 'row': row,
                                  'limit': 7})
        got += [e['seq'] for e in j['events']]
        if j['ended']:
            break
        row = j['next']
    want = [e['seq'] for e in rep if e['event'] == 'sched_switch' and
            e['pid'] == 0]
    check(got == want, '%s: filtered pages %d events, report %d' % (
        trace, len(got), len(want)))
    # field conditions: a number against the field's value, text against
    # its label (prev_state S), a glob on the comm; read here from the
    # events' text as trawl report prints it
    def listed(q):
        got, row = [], 0
        while True:
            j = s.api('/api/events', {'q': q, 'row': row, 'limit': 50})
            got += [e['seq'] for e in j['events']]
            if j['ended']:
                return got
            row = j['next']

    def field(e, name):
        m = re.search(r'(?:^| )%s=(\S+)' % name, e['text'])
        return m.group(1) if m else None

    want = [e['seq'] for e in rep if e['event'] == 'sched_switch' and
            field(e, 'prev_state') == 'S' and
            int(field(e, 'next_pid')) > 100]
    got = listed('sched_switch,prev_state==S,next_pid>100')
    check(got == want and (want or 'tc' not in trace),
          '%s: field conditions %d events, report %d' % (
              trace, len(got), len(want)))
    want = [e['seq'] for e in rep if fnmatch.fnmatchcase(e['comm'], 'kw*')
            and e['cpu'] == 0]
    got = listed('comm~kw*,cpu=0')
    check(got == want, '%s: a glob on comm %d events, report %d' % (
        trace, len(got), len(want)))
    j = s.api('/api/events', {'q': 'next_pid=>3'})
    check(not j['events'] and 'cannot read the condition' in
          j.get('events_error', ''),
          '%s: a condition it cannot read is refused, saying so: %s' % (
              trace, j))


def windows(s, info, trace):
    first, last = info['first'], info['last']
    ids = ','.join(str(l['id']) for l in info['lanes'])
    for width in (1, 7, 300, 1000, 8192):
        for (f, t) in ((first, last + 1), (first - 10**9, last + 10**9),
                       (first, first + 1), ((first + last) // 2,
                                            (first + last) // 2 + 1000),
                       (last, last + 5)):
            w = s.api('/api/window', {'lanes': ids, 'from': f, 'to': t,
                                      'width': width})
            check(len(w['lanes']) == len(info['lanes']),
                  '%s: window returns every lane' % trace)
            for l in w['lanes']:
                check(cols_width(l['cols']) == width,
                      '%s lane %d [%d,%d) w %d: columns add up to %d' % (
                          trace, l['id'], f, t, width,
                          cols_width(l['cols'])))
    # every level of every lane, at one pixel per bucket
    for l in info['lanes']:
        for k, bw in enumerate(l['levels']):
            width = max(1, min(8192, (last - first + 1) // bw))
            w = s.api('/api/window', {'lanes': l['id'], 'width': width,
                                      'level': k})
            got = w['lanes'][0]
            check(got['level'] == k and got['bucket'] == bw,
                  '%s lane %d level %d is used (%s)' % (trace, l['id'], k,
                                                        got['level']))
            check(cols_width(got['cols']) == width, 'level width adds up')
    # under a nanosecond a column: every column shows what holds at its
    # time, none is left empty between full ones (a comb of stripes)
    cpus = lanes_of(info, 'cpu')
    w = s.api('/api/window', {'lanes': cpus[0]['id'], 'width': 2000,
                              'level': 'raw'})
    span = (last + 1 - first) / 2000
    x = 0
    for col in w['lanes'][0]['cols']:
        if col[1] and col[0] > 2:  # a run held for more than two columns
            t = int(first + (x + 1) * span)
            for width in (1000, 8192):
                sub = s.api('/api/window', {'lanes': cpus[0]['id'],
                                            'from': t, 'to': t + 300,
                                            'width': width})['lanes'][0]
                runs = [c for c in sub['cols'] if c[1] != col[1]]
                check(sub['cols'] == [[width, col[1], 65535, 0, 65535]],
                      '%s: 300 ns in %d columns inside a run of %d: %s'
                      % (trace, width, col[1], runs[:4]))
            break
        x += col[0]
    # the CPU lanes' busy time from columns agrees with trawl sched's
    sched = {c['cpu']: c['busy'] for c in trawl_json('sched', trace)['cpus']}
    if any(l['buffer'] for l in info['lanes']):
        return
    for level in ('raw', 'auto', '0'):
        width = 2000
        cpus = lanes_of(info, 'cpu')
        w = s.api('/api/window', {'lanes': ','.join(str(c['id'])
                                                    for c in cpus),
                                  'width': width, 'level': level})
        span = (last + 1 - first) / width
        for c, l in zip(cpus, w['lanes']):
            busy = sum(col[0] * col[2] / 65535 * span for col in l['cols'])
            want = sched.get(c['cpu'], 0)
            check(abs(busy - want) <= 0.02 * want + 2 * span,
                  '%s CPU %d busy from %s columns %.0f vs trawl sched %d'
                  % (trace, c['cpu'], level, busy, want))


def details(s, info, trace):
    cpus = lanes_of(info, 'cpu')
    w = s.api('/api/window', {'lanes': cpus[0]['id'], 'width': 2000,
                              'level': 'raw'})
    span = (info['last'] + 1 - info['first']) / 2000
    x = 0
    found = 0
    for col in w['lanes'][0]['cols']:
        if col[1] and col[2] > 30000:
            t = int(info['first'] + (x + 0.5) * span)
            d = s.api('/api/detail', {'lane': cpus[0]['id'], 't': t,
                                      'fields': 1})
            check(d['found'] and d['start'] <= t < d['end'],
                  '%s: detail covers t' % trace)
            task = w['tasks'].get(str(col[1]))
            check(task and d['task']['pid'] == task['pid'],
                  '%s: detail names the window\'s task' % trace)
            check(any(e['event'] == 'sched_switch' and
                      e['fields'].get('next_pid') == d['task']['pid']
                      for e in d['events']),
                  '%s: detail fields hold the switch-in' % trace)
            if 'wakeup' in d:
                check(0 <= d['wakeup']['latency'] == d['start'] -
                      d['wakeup']['time'], 'latency is start - wakeup')
                check('waker' in d['wakeup'] or 'preempted' in d['wakeup'],
                      'a run says what made it runnable')
            found += 1
            if found > 3:
                break
        x += col[0]
    check(found, '%s: some run to click' % trace)
    # an empty stretch of a handler, work or slice lane is nothing, with
    # the item before it and the next one (it was shown as an item, "a
    # 31 ms hardirq"); an item itself is found, with its name
    empty = 0
    for l in info['lanes']:
        if l['kind'] not in ('hardirq', 'softirq', 'workqueue', 'slice', 'async'):
            continue
        w = s.api('/api/window', {'lanes': l['id'], 'width': 2000,
                                  'level': 'raw'})
        x = 0
        for col in w['lanes'][0]['cols']:
            t = int(info['first'] + (x + 0.5) * span)
            d = s.api('/api/detail', {'lane': l['id'], 't': t})
            if col[1] == 0 and col[2] == 0 and col[3] == 0:
                check(not d['found'] and d.get('empty'),
                      '%s lane %d: nothing at %d, not %s' % (trace, l['id'],
                                                             t, d))
                if d.get('before'):
                    check(d['before']['end'] <= t and d['before']['label'],
                          '%s: the item before ends before it' % trace)
                if d.get('after'):
                    check(d['after']['start'] > t and d['after']['label'],
                          '%s: the next item begins after it' % trace)
                empty += 1
            elif col[2] == 65535:
                check(d['found'] and d.get('label') and d['duration'] > 0,
                      '%s lane %d: an item at %d: %s' % (trace, l['id'], t,
                                                         d))
            x += col[0]
            if x > 400:
                break
    check(empty or not any(l['kind'] == 'hardirq' for l in info['lanes']),
          '%s: some empty stretch of a handler lane clicked' % trace)
    # an event's fields as trawl report --json has them, exact in a
    # browser: integers past 2^53 (a work struct's address) as strings;
    # the labels and the text too
    rep = [e for e in trawl_json_lines('report', trace)
           if e['event'] == 'workqueue_execute_start']
    works = lanes_of(info, 'workqueue')
    if rep and works:
        e = rep[0]
        lane = [l for l in works if l['cpu'] == e['cpu']][0]
        st, _, body = s.get('/api/detail', {'lane': lane['id'],
                                            't': e['time'], 'fields': 1})
        text = body.decode()
        check(not re.search(r'[:\[,]-?\d{17,}', text),
              '%s: no integer JSON cannot hold in %s' % (trace, text[:300]))
        d = json.loads(text)
        got = [x for x in d['events'] if x['seq'] == e['seq']]
        check(got and got[0]['fields']['work'] == str(e['fields']['work']),
              '%s: the work struct exact: %s vs %s' % (
                  trace, got and got[0]['fields']['work'],
                  e['fields']['work']))
        check(got and got[0].get('labels') == e.get('labels') and
              got[0].get('text') == e['text'],
              '%s: labels and text as trawl report: %s' % (
                  trace, got and (got[0].get('labels'), got[0].get('text'))))
    tasks = lanes_of(info, 'task')
    t0 = tasks[0]
    r = s.api('/api/search', {'q': str(t0['pid'])})
    check(any(t['pid'] == t0['pid'] for t in r['tasks']), 'search by pid')
    r = s.api('/api/search', {'q': t0['name'][:4].upper()})
    check(any(t['pid'] == t0['pid'] for t in r['tasks']),
          'search by name, any case')
    # a part of a pid finds it (only whole pids did)
    part = str(t0['pid'])[1:]
    if part:
        r = s.api('/api/search', {'q': part})
        check(any(t['pid'] == t0['pid'] for t in r['tasks']),
              'search by a part of a pid (%s in %d)' % (part, t0['pid']))
    # slices by name: the first of each name on each lane, as the lane
    # has it (they were never found)
    for l in info['lanes']:
        if l['kind'] not in ('slice', 'async') or not l['changes']:
            continue
        w = s.api('/api/window', {'lanes': l['id'], 'level': 'raw',
                                  'width': 4000})
        names = w['labels']
        if not names:
            continue
        name = sorted(names.values())[0]
        r = s.api('/api/search', {'q': name[1:].upper()})
        got = [x for x in r['slices'] if x['lane'] == l['id']]
        check(any(x['name'] == name for x in got) and
              all(x['start'] < x['end'] for x in got),
              '%s: search finds slice %r on lane %d: %s' % (
                  trace, name, l['id'], got[:3]))
        d = got and s.api('/api/detail', {'lane': l['id'],
                                            't': got[0]['start']})
        check(d and d['found'] and d['label'] == got[0]['name'] and
              d['start'] == got[0]['start'] and d['end'] == got[0]['end'],
              '%s: the slice found is the lane\'s there: %s' % (trace, d))
        break


def idle_lanes(s, info, trace):
    """Each CPU's idle state lane (cpu_idle: the state entered, -1 when
    the CPU leaves idle, as Perfetto's cpuidle counter) holds, between two
    events, what the first of them said, read from the text alone."""
    events = {}
    for line in open(trace):
        m = re.search(r'\s(\d+)\.(\d+): cpu_idle: state=(\d+) '
                      r'cpu_id=(\d+)', line)
        if m:
            t = int(m.group(1)) * 10**9 + int(m.group(2).ljust(9, '0'))
            v = int(m.group(3))
            events.setdefault(int(m.group(4)), []).append(
                (t, -1 if v == 4294967295 else v))
    lanes = {l['cpu']: l for l in lanes_of(info, 'counter')
             if l['name'].endswith('idle state')}
    check(sorted(lanes) == sorted(events),
          '%s: idle lanes of CPUs %s, cpu_idle on %s' % (
              trace, sorted(lanes), sorted(events)))
    for cpu, evs in events.items():
        if cpu not in lanes:
            continue
        lane = lanes[cpu]
        check(lane['name'] == 'CPU %d idle state' % cpu,
              '%s: idle lane name %r' % (trace, lane['name']))
        for (t0, v), (t1, _) in list(zip(evs, evs[1:]))[::7]:
            if t1 - t0 < 2:
                continue
            t = (t0 + t1) // 2
            w = s.api('/api/window', {'lanes': lane['id'], 'from': t,
                                      'to': t + 1, 'width': 1})
            got = w['lanes'][0]['cols'][0][1]
            check(got == v, '%s CPU %d idle state at %d: %s, the text '
                  'says %d' % (trace, cpu, t, got, v))


def bad_parameters(s, info):
    n = len(info['lanes'])
    cases = [
        ('/api/window', {'lanes': '0', 'width': '0'}, 'width'),
        ('/api/window', {'lanes': '0', 'width': 'abc'}, 'width'),
        ('/api/window', {'lanes': '0', 'width': '99999'}, 'width'),
        ('/api/window', {'lanes': str(n)}, 'lane'),
        ('/api/window', {'lanes': ''}, 'lanes'),
        ('/api/window', {'lanes': '0,x'}, 'lanes'),
        ('/api/window', {'lanes': '3-1'}, 'lanes'),
        ('/api/window', {'lanes': '0', 'from': '10', 'to': '5'}, 'after'),
        ('/api/window', {'lanes': '0', 'from': '1e9'}, 'from'),
        ('/api/window', {'lanes': '0', 'from': '99999999999999999999999'},
         'from'),
        ('/api/window', {'lanes': '0', 'level': 'x'}, 'level'),
        ('/api/window', {'lanes': '0', 'bogus': '1'}, 'unknown'),
        ('/api/window', {'lanes': '0', 'width': '8192',
                         'from': str(info['first'])}, None),
        ('/api/window', {'lanes': '0-%d' % (n - 1) if n > 200 else '0',
                         'width': '8192'}, None),
        ('/api/detail', {'lane': '0'}, "'t'"),
        ('/api/detail', {'lane': '-1', 't': '0'}, 'lane'),
        ('/api/search', {}, "'q'"),
        ('/api/search', {'q': 'a', 'limit': '0'}, 'limit'),
        ('/api/analysis', {'top': '100000'}, 'top'),
        ('/api/info', {'lanes': '2'}, 'lanes'),
        ('/api/info', {'lanes': '0'}, None),
        ('/api/window', {'lanes': '0', 'x': 'y' * 5000}, 'long'),
        ('/api/window', dict({'lanes': '0'}, **{'k%d' % i: '1'
                                                 for i in range(20)}),
         'too many'),
    ]
    for path, params, word in cases:
        status, j = s.json(path, params)
        if word is None:
            check(status == 200, '%s %s is fine' % (path, params))
            continue
        check(status == 400 and word in j.get('error', ''),
              '%s %s: 400 naming %s, got %d %s' % (path, params, word,
                                                   status, j))
    status, j = s.json('/api/nothing')
    check(status == 404 and 'error' in j, 'unknown API is 404')
    # without --follow: no following, the first index; lanes=0 leaves the
    # lanes out and nothing else
    check(info['follow'] is False and info['generation'] == 0,
          'info: follow %s, generation %s' % (info['follow'],
                                              info['generation']))
    short = s.api('/api/info', {'lanes': '0'})
    check('lanes' not in short and
          {k: v for k, v in info.items() if k not in ('lanes', 'read_back')}
          == {k: v for k, v in short.items() if k != 'read_back'},
          'info with lanes=0 is info without the lanes')
    # lanes x width bounded
    many = ','.join(['0'] * 512)
    status, j = s.json('/api/window', {'lanes': many, 'width': 8192})
    check(status == 400 and 'lanes x width' in j['error'],
          'lanes x width is bounded: %d %s' % (status, j))


def security(s):
    port = s.port
    status, _ = s.json('/api/info', token=False)
    check(status == 403, 'no token: 403 (%d)' % status)
    status, _ = s.json('/api/info', {'token': '0' * 32}, token=False)
    check(status == 403, 'wrong token: 403')
    status, _ = s.json('/api/info', {'token': s.token[:-1]}, token=False)
    check(status == 403, 'a prefix of the token: 403')
    status, _, _ = s.get('/api/info', token=False,
                         headers=['X-Trawl-Token: ' + s.token])
    check(status == 200, 'the token as a header: 200')
    status, _, page = s.get('/', token=False)
    check(status == 200 and b'<canvas' in page, 'the page needs no token')
    for host in ('evil.example:%d' % port, 'evil.example',
                 '127.0.0.1:%d' % (port + 1), '127.0.0.1.evil.example:%d'
                 % port):
        status, _, _ = s.get('/api/info', host=host)
        check(status == 403, 'Host %s refused (%d)' % (host, status))
        status, _, _ = s.get('/', host=host)
        check(status == 403, 'Host %s refused for the page too' % host)
    for host in ('localhost:%d' % port, '127.0.0.1:%d' % port):
        status, _, _ = s.get('/api/info', host=host)
        check(status == 200, 'Host %s served' % host)
    status, _, _ = s.raw(b'GET / HTTP/1.0\r\n\r\n')
    check(status in (400, 403), 'no Host header refused (%d)' % status)
    # no CORS, whatever the Origin
    for path in ('/', '/api/info', '/api/window?lanes=0', '/api/nothing'):
        status, headers, _ = s.get(path, headers=[
            'Origin: http://evil.example'])
        check(not any(k.startswith('access-control') for k in headers),
              'no CORS header on %s: %s' % (path, headers))
    # path traversal: only the three built-in assets exist
    for target in ('/../../../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd',
                   '/app.js/../../../etc/passwd', '//etc/passwd',
                   '/index.html%00', '/..%2f..%2fetc%2fpasswd',
                   '/api/../../etc/passwd'):
        req = 'GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n' \
            'Connection: close\r\n\r\n' % (target, port)
        status, _, body = s.raw(req.encode())
        # (%00 is decoded and the path ends there: the page itself)
        check((status in (400, 403, 404) or
               (status == 200 and body == page)) and b'root:' not in body,
              'traversal %s refused (%d)' % (target, status))
    # oversized requests
    status, _, _ = s.get('/api/info', headers=['X-Big: ' + 'a' * 200000])
    check(status in (0, 413, 431, 400), 'a 200 KB header is refused (%d)'
          % status)
    status, _, _ = s.get('/api/window', {'lanes': '0', 'x': 'y' * 3000})
    check(status in (400, 414, 431), 'a long URL is refused (%d)' % status)
    req = ('POST /api/info?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n'
           'Content-Length: 5\r\nConnection: close\r\n\r\nhello'
           % (s.token, port)).encode()
    status, _, _ = s.raw(req)
    check(status == 405, 'POST refused (%d)' % status)
    req = ('GET /api/info?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n'
           'Content-Length: 5\r\nConnection: close\r\n\r\nhello'
           % (s.token, port)).encode()
    status, _, _ = s.raw(req)
    check(status == 413, 'a GET with a body refused (%d)' % status)
    # still serving after all that
    check(s.api('/api/info')['events'] > 0, 'still serving')


def concurrent(s, info):
    ids = ','.join(str(l['id']) for l in info['lanes'][:64])
    want = s.get('/api/window', {'lanes': ids, 'width': 1500})[2]
    errors = []

    def client():
        for i in range(15):
            status, _, body = s.get('/api/window', {'lanes': ids,
                                                    'width': 1500})
            if status != 200 or body != want:
                errors.append(status)
            s.get('/api/analysis')

    threads = [threading.Thread(target=client) for _ in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(not errors, '24 concurrent clients all served alike (%s)'
          % errors[:5])


def cache(trace):
    """The index in $XDG_CACHE_HOME/trawl: written by the first start, read
    by the next (the same answers), a damaged one refused and made again,
    none with --no-cache."""
    d = os.path.join(os.environ['XDG_CACHE_HOME'], 'trawl')
    for f in os.listdir(d) if os.path.isdir(d) else []:
        os.unlink(os.path.join(d, f))

    def start(*extra):
        s = Server(TRAWL, trace, *extra)
        try:
            info = s.api('/api/info')
            ids = '0-%d' % (len(info['lanes']) - 1)
            body = s.get('/api/window', {'lanes': ids, 'width': 777})[2]
            body += s.get('/api/analysis')[2]
            body += s.get('/api/summary')[2]
            body += s.get('/api/detail', {'lane': 1, 't': info['first'] +
                                          12345, 'fields': 1})[2]
        finally:
            check(s.stop() == 0, 'cache: server ends cleanly')
        return info['cached'], body

    cached, want = start()
    files = os.listdir(d)
    check(not cached and len(files) == 1, 'the first start writes the '
          'cache (%s)' % files)
    cached, got = start()
    check(cached and got == want, 'the second start reads it, same answers')
    path = os.path.join(d, files[0])
    data = open(path, 'rb').read()
    for damage in (data[:len(data) // 2], data[:-1], data + b'x',
                   b'TRAWLVIX' + b'\xff' * 64, data[:200] +
                   bytes(b ^ 0x5a for b in data[200:400]) + data[400:]):
        with open(path, 'wb') as f:
            f.write(damage)
        cached, got = start()
        if not cached:
            check(got == want, 'a damaged cache is built again')
    with open(path, 'wb') as f:
        f.write(data[:100])
    cached, _ = start()
    check(not cached and open(path, 'rb').read() == data,
          'a cut cache is refused and written again')
    os.unlink(path)
    start('--no-cache')
    check(not os.listdir(d), '--no-cache writes none')


def ipv6():
    """--bind ::1 serves over IPv6 (Debian's civetweb is built without
    IPv6: view-http.c's own socket takes the place of its listener)."""
    try:
        socket.socket(socket.AF_INET6).bind(('::1', 0))
    except OSError:
        print('no IPv6 loopback: --bind ::1 not tried')
        return
    p = subprocess.Popen([TRAWL, 'view', os.path.join(FIX, 'tc.dat'),
                          '--bind', '::1', '--port', '0'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        line = p.stdout.readline()
        m = re.match(r'trawl view: serving http://\[::1\]:(\d+)/'
                     r'\?token=([0-9a-f]{32})\n$', line)
        check(m, '--bind ::1 prints its URL (%r)' % line)
        if not m:
            return
        port, token = int(m.group(1)), m.group(2)

        def get(path, host):
            c = http.client.HTTPConnection('::1', port, timeout=10)
            try:
                c.request('GET', path, headers={'Host': host})
                r = c.getresponse()
                return r.status, r.read()
            finally:
                c.close()
        for i in range(3):
            status, body = get('/api/info?token=' + token, '[::1]:%d' % port)
            check(status == 200 and json.loads(body)['events'] > 0,
                  '--bind ::1: /api/info over IPv6 (%d)' % status)
        status, _ = get('/api/info?token=' + token, 'evil.example:%d' % port)
        check(status == 403, '--bind ::1: another Host refused (%d)' % status)
    finally:
        p.send_signal(signal.SIGINT)
        try:
            rc = p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        p.stdout.close()
        p.stderr.close()
    check(rc == 0, '--bind ::1: SIGINT ends it with 0 (%s)' % rc)


def main():
    # the caches of this test, not the user's
    os.environ['XDG_CACHE_HOME'] = tempfile.mkdtemp(prefix='trawl-view-')
    cache(os.path.join(FIX, 'tc.dat'))
    traces = ['tc.dat', 'ftrace-irqinfo.txt', 'same-recording.dat',
              'systrace.txt', 'tc-instance.dat', 'pair-broad.dat',
              'cpu-idle.txt']
    for name in traces:
        trace = os.path.join(FIX, name)
        s = Server(TRAWL, trace)
        try:
            info = analyses_agree(s, trace)
            summary(s, trace)
            if name in ('tc.dat', 'systrace.txt', 'pair-broad.dat'):
                event_list(s, info, trace)
            if name in ('tc.dat', 'same-recording.dat'):
                check(lives(info, trace), '%s: some task died' % trace)
            windows(s, info, trace)
            if lanes_of(info, 'cpu'):
                details(s, info, trace)
            if name == 'cpu-idle.txt':
                idle_lanes(s, info, trace)
            if name == 'tc.dat':
                bad_parameters(s, info)
                security(s)
                concurrent(s, info)
            kinds = {l['kind'] for l in info['lanes']}
            if name == 'systrace.txt':
                check({'slice', 'counter'} <= kinds,
                      'systrace: slice and counter lanes (%s)' % kinds)
            if name == 'tc.dat':
                check({'cpu', 'task', 'softirq', 'marker'} <= kinds,
                      'tc.dat lanes: %s' % kinds)
        finally:
            rc = s.stop()
        check(rc == 0, '%s: SIGINT ends trawl view with 0 (%s)' % (name, rc))
    # the event list read back from checkpoints (one every 100 events: a
    # page starts at the one before it and numbers by its seq)
    for name in ('pair-broad.dat', 'systrace.txt'):
        trace = os.path.join(FIX, name)
        s = Server(TRAWL, trace, '--no-cache', env=dict(
            os.environ, TRAWL_VIEW_CHECK_EVENTS='100'))
        try:
            info = s.api('/api/info')
            check(info['checkpoints'] >= 3, '%s: checkpoints %d' % (
                name, info['checkpoints']))
            event_list(s, info, trace)
        finally:
            s.stop()
    # one recording as v7 zstd, v6 and v7 uncompressed: the same data
    # size, so the same budget and index (a zstd file's was ten times
    # smaller: coarser levels, more read back, another look), and the
    # same lanes at every level
    seen = []
    for name in ('tc.dat', 'tc-v6.dat', 'tc-v7-nocomp.dat'):
        s = Server(TRAWL, os.path.join(FIX, name), '--no-cache')
        try:
            info = s.api('/api/info')
            ids = ','.join(str(l['id']) for l in info['lanes'])
            w = s.api('/api/window', {'lanes': ids, 'width': 3000})
            seen.append((name, info['data_bytes'], info['budget_bytes'],
                         [(l['name'], l['levels'], l.get('kept_level'))
                          for l in info['lanes']], w['lanes']))
        finally:
            s.stop()
    for name, data, budget, lanes, cols in seen[1:]:
        check(data == seen[0][1] and budget == seen[0][2],
              '%s: data %d, budget %d; tc.dat: %d, %d' % (
                  name, data, budget, seen[0][1], seen[0][2]))
        check(lanes == seen[0][3] and cols == seen[0][4],
              '%s: the same lanes, levels and columns as tc.dat' % name)
    check(seen[0][1] != os.path.getsize(os.path.join(FIX, 'tc.dat')),
          'tc.dat: the data size is not the zstd file\'s size')
    # an area's detail: the slices by name, their count and time, against
    # the markers of systrace.txt (B/E nested per thread); every task's
    # run the same with and without the detail
    sys_trace = os.path.join(FIX, 'systrace.txt')
    stack, want = {}, {}
    for l in open(sys_trace):
        m = re.search(r'-(\d+)\s.*?(\d+)\.(\d+): tracing_mark_write: '
                      r'([BE])(?:\|\d+(?:\|(.*))?)?$', l.rstrip('\n'))
        if not m:
            continue
        t = int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, '0'))
        st = stack.setdefault(int(m.group(1)), [])
        if m.group(4) == 'B':
            st.append((m.group(5), t))
        elif st:
            name, t0 = st.pop()
            c = want.setdefault(name, [0, 0])
            c[0] += 1
            c[1] += t - t0
    s = Server(TRAWL, sys_trace, '--no-cache')
    try:
        a = s.api('/api/analysis', {'detail': 1, 'top': 1000})
        b0 = s.api('/api/analysis', {'top': 1000})
        got = {x['name']: [x['count'], x['total']] for x in a['slices']}
        for name, c in want.items():
            check(got.get(name) == c, 'systrace slice %r: %s, the markers %s'
                  % (name, got.get(name), c))
        runs = {t['pid']: t['run'] for t in a['top_tasks'] if t['run']}
        check(runs == {t['pid']: t['run'] for t in b0['top_tasks']},
              'run per task the same with the detail')
        span = b0['to'] - b0['from']
        check(all(t['run'] + t['runnable'] + t['sleep'] <= span
                  for t in a['top_tasks']), 'a task\'s times fit the window')
    finally:
        s.stop()
    # slices begun and never ended, counted: systrace.txt without its last
    # two E lines and its last F line, against a count of its markers
    lines = open(os.path.join(FIX, 'systrace.txt')).read().splitlines(True)
    drop = [i for i, l in enumerate(lines) if 'tracing_mark_write: E' in l][-2:]
    drop += [i for i, l in enumerate(lines) if 'tracing_mark_write: F|' in l][-1:]
    cut = os.path.join(tempfile.mkdtemp(prefix='trawl-view-'), 'unended.txt')
    with open(cut, 'w') as f:
        f.writelines(l for i, l in enumerate(lines) if i not in drop)
    depth, want = {}, 0
    for l in open(cut):
        m = re.search(r'-(\d+)\s.*tracing_mark_write: ([BE])', l)
        if m:
            p = int(m.group(1))
            depth[p] = max(0, depth.get(p, 0) + (1 if m.group(2) == 'B' else -1))
    want = sum(depth.values())
    async_open = set()
    for l in open(cut):
        m = re.search(r'tracing_mark_write: ([SF])\|(\d+)\|([^|]*)\|(-?\d+)', l)
        if m:
            k = m.group(2, 3, 4)
            (async_open.add if m.group(1) == 'S' else async_open.discard)(k)
    want += len(async_open)
    s = Server(TRAWL, cut, '--no-cache')
    try:
        got = s.api('/api/info')['unended_slices']
        check(got == want == 3, 'unended slices %d, the markers say %d' % (
            got, want))
    finally:
        s.stop()
    # lost events
    s = Server(TRAWL, os.path.join(FIX, 'lost-events.txt'))
    try:
        info = s.api('/api/info')
        lost = lanes_of(info, 'lost')
        check(lost and info['lost_events'] > 0, 'a lost-events lane')
        if lost:
            w = s.api('/api/window', {'lanes': lost[0]['id'],
                                      'width': 500})
            marks = sum(c[3] for c in w['lanes'][0]['cols'])
            check(marks >= 1, 'lost-events markers in the window')
    finally:
        s.stop()
    # --no-token, and the threshold option reaches the analyses
    s = Server(TRAWL, os.path.join(FIX, 'tc.dat'), '--no-token',
               '--irq-threshold', '1us')
    try:
        check(s.token == '' and s.url.endswith('/'),
              '--no-token prints no token: %r' % s.line)
        status, j = s.json('/api/info', token=False)
        check(status == 200 and j['irq_threshold'] == 1000,
              '--no-token serves the API; --irq-threshold 1us')
        irq = trawl_json('irq', os.path.join(FIX, 'tc.dat'), '--threshold',
                         '1us')
        check(j['irq_over_threshold'] == irq['long_count'] > 0,
              'ISR warnings at 1us: %d vs trawl irq %d'
              % (j['irq_over_threshold'], irq['long_count']))
    finally:
        s.stop()
    ipv6()
    # usage errors
    for args in (['view'], ['view', 'nonexistent.dat', '--port', '0'],
                 ['view', os.path.join(FIX, 'tc.dat'), '--port', '70000'],
                 ['view', os.path.join(FIX, 'tc.dat'), '--bind', 'x.y']):
        r = subprocess.run([TRAWL, *args], capture_output=True, text=True,
                           timeout=30)
        check(r.returncode in (1, 2) and r.stderr.startswith('trawl:'),
              '%s fails with a message (%d %r)' % (args, r.returncode,
                                                   r.stderr[:80]))
    if failures:
        print('%d failures' % len(failures))
        sys.exit(1)
    print('trawl view API: all checks passed')


main()
