#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trawl run against answers made without it, on real recordings.

1. Counts recomputed by Python from the fixture's text (regular expressions
   over the lines) equal what scripts count: events per type, sched_switch
   per (prev_comm, prev_state), sys_enter per syscall number, systrace
   slice begins per name.
2. The same script gives the same output on the text and the trace.dat of
   one recording (pair-broad: issue 9 made their fields identical). Times
   are compared in microseconds, the text's precision: the kernel's text
   rounds to the nearest microsecond, so the scripts use (ts + 500) / 1000.
3. Hardirq and softirq handler counts, maxima and totals from a script
   equal `trawl irq --json` (lib/analysis/irq.c) on the same file.
4. --json parses and holds the same numbers as the text output.

usage: check-script.py TRAWL FIXTURES_DIR
"""
import collections
import json
import re
import subprocess
import sys

TRAWL, FIX = sys.argv[1], sys.argv[2]
failures = 0


def run(prog, path, *extra):
    r = subprocess.run([TRAWL, 'run', '-e', prog, path, *extra],
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stderr:
        raise SystemExit(f'trawl run failed ({r.returncode}) on {path}:\n'
                         f'{prog}\n{r.stderr}')
    return r.stdout


def run_json(prog, path):
    return json.loads(run(prog, path, '--json'))


def check(what, got, want):
    global failures
    if got != want:
        failures += 1
        print(f'FAIL {what}')
        for k in sorted(set(got) | set(want), key=str):
            if got.get(k) != want.get(k):
                print(f'  {k!r}: script {got.get(k)!r}, expected '
                      f'{want.get(k)!r}')
    else:
        print(f'ok   {what} ({len(want)} rows)')


def as_dict(m):
    out = {}
    for e in m:
        k = tuple(e['key']) if isinstance(e['key'], list) else e['key']
        out[k] = e['value']
    return out


LINE = re.compile(r'^\s*(.+?)-(\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(\d+)\]\s+'
                  r'(?:\S{4,5}\s+)?(\d+\.\d+):\s+([^:\s]+):\s?(.*)$')


def text_events(path):
    with open(path, errors='replace') as f:
        for line in f:
            m = LINE.match(line.rstrip('\n'))
            if m:
                yield m.group(5), m.group(6)


# ---- 1. independent counts over the text ----
txt = f'{FIX}/pair-broad.txt'
dat = f'{FIX}/pair-broad.dat'
per_event = collections.Counter()
switches = collections.Counter()
syscalls = collections.Counter()
sysargs = collections.Counter()
begins = collections.Counter()
STATE = {'R': 0, 'S': 1, 'D': 2, 'T': 4, 't': 8, 'X': 16, 'Z': 32,
         'P': 64, 'I': 128, 'R+': 256}
for name, payload in text_events(txt):
    name = 'print' if name == 'tracing_mark_write' else name
    per_event[name] += 1
    if name == 'sched_switch':
        m = re.match(r'prev_comm=(.*) prev_pid=\d+ prev_prio=\d+ '
                     r'prev_state=(\S+) ==>', payload)
        switches[(m.group(1), STATE[m.group(2)])] += 1
    elif name == 'sys_enter':
        m = re.match(r'NR (\d+) \(([^)]*)\)', payload)
        syscalls[int(m.group(1))] += 1
        # unsigned long in the kernel; a script's integers are int64
        a = [(lambda v: v - (1 << 64) if v >= 1 << 63 else v)(int(x, 16))
             for x in m.group(2).split(', ')]
        sysargs[(int(m.group(1)), a[0], a[2])] += 1
    elif name == 'print':
        m = re.search(r'B\|\d+\|(.*)$', payload)
        if m:
            begins[m.group(1).rstrip()] += 1

for path in (txt, dat):
    j = run_json('* { @[event] = count(); }', path)
    check(f'events per type, {path}', as_dict(j['@']), dict(per_event))
    j = run_json('sched:sched_switch { @[args.prev_comm, args.prev_state]'
                 ' = count(); }', path)
    check(f'sched_switch per prev_comm and prev_state, {path}',
          as_dict(j['@']), dict(switches))
    j = run_json('raw_syscalls:sys_enter { @[args.id] = count(); }', path)
    check(f'sys_enter per syscall, {path}', as_dict(j['@']), dict(syscalls))
    j = run_json('raw_syscalls:sys_enter { @[args.id, args.args[0], '
                 'args.args[2]] = count(); }', path)
    check(f'sys_enter per id and arguments 0 and 2 (an array field), '
          f'{path}', as_dict(j['@']), dict(sysargs))
    j = run_json('ftrace:print /args.kind == "B"/ { @[args.name] = '
                 'count(); }', path)
    check(f'systrace slice begins per name, {path}', as_dict(j['@']),
          dict(begins))
    st = json.loads(subprocess.run([TRAWL, 'stats', path, '--json'],
                                   capture_output=True, text=True).stdout)
    j = run_json('* { @[event] = count(); }', path)
    check(f'events per type against trawl stats, {path}', as_dict(j['@']),
          st['events'])

# ---- 2. the same script on the text and the trace.dat ----
SAME = [
    # wakeup latency in microseconds, per task, as a histogram and stats
    'sched:sched_waking { @w[args.pid] = (ts + 500) / 1000; }\n'
    'sched:sched_switch /@w[args.next_pid]/ {\n'
    '  $us = (ts + 500) / 1000 - @w[args.next_pid];\n'
    '  @lat = hist($us); @per[args.next_comm] = stats($us);\n'
    '  delete(@w[args.next_pid]);\n'
    '}\nEND { clear(@w); }',
    # off-CPU time per task by prev_state (us)
    'sched:sched_switch { @off[args.prev_pid] = (ts + 500) / 1000;'
    ' @st[args.prev_pid] = args.prev_state; }\n'
    'sched:sched_switch /@off[args.next_pid]/ {\n'
    '  @offcpu[args.next_comm, @st[args.next_pid]] ='
    ' sum((ts + 500) / 1000 - @off[args.next_pid]);\n'
    '}\nEND { clear(@off); clear(@st); }',
    # syscalls per process, and their latency in us
    'raw_syscalls:sys_enter { @s[tid] = (ts + 500) / 1000; @n[comm] = count(); }\n'
    'raw_syscalls:sys_exit /@s[tid]/ { @lat[comm] = lhist((ts + 500) / 1000 - '
    '@s[tid], 0, 100, 10); delete(@s[tid]); }\nEND { clear(@s); }',
    # strings and typed fields of several systems
    'kmem:kmalloc { @b[args.bytes_req] = count(); }\n'
    'block:* { @blk[event, args.dev] = count(); }\n'
    'irq:softirq_entry { @vec[args.vec] = count(); }\n'
    'timer:hrtimer_start { @mode[args.mode] = count(); }',
    # systrace slices: duration per name in us (B/E per thread)
    'ftrace:print /args.kind == "B"/ { @d[tid] = @d[tid] + 1; '
    '@b[tid, @d[tid]] = (ts + 500) / 1000; @nm[tid, @d[tid]] = args.name; }\n'
    'ftrace:print /args.kind == "E" && @d[tid]/ {\n'
    '  @slice[@nm[tid, @d[tid]]] = sum((ts + 500) / 1000 - @b[tid, @d[tid]]);\n'
    '  delete(@b[tid, @d[tid]]); delete(@nm[tid, @d[tid]]); '
    '@d[tid] = @d[tid] - 1;\n}\nEND { clear(@d); }',
    # events per 10 ms interval (trace time)
    'interval:10ms { printf("%d events\\n", @n); @n = 0; }\n'
    '* { @n = @n + 1; }',
]
for prog in SAME:
    a, b = run(prog, txt), run(prog, dat)
    first = prog.splitlines()[0][:60]
    if a != b:
        failures += 1
        print(f'FAIL text and trace.dat differ for: {first}')
        import difflib
        for line in list(difflib.unified_diff(a.splitlines(),
                                              b.splitlines(), 'text',
                                              'dat', lineterm=''))[:30]:
            print('  ' + line)
    elif len(a.splitlines()) < 3:
        failures += 1
        print(f'FAIL too little output for: {first}\n{a}')
    else:
        print(f'ok   same on text and trace.dat: {first} '
              f'({len(a.splitlines())} lines)')

# ---- 3. irq handler durations against trawl irq ----
IRQ = '''
irq:irq_handler_entry { @hs[cpu] = ts; @hi[cpu] = args.irq; }
irq:irq_handler_exit /@hs[cpu]/ {
  $d = ts - @hs[cpu];
  @n["hardirq", @hi[cpu], cpu] = count();
  @mx["hardirq", @hi[cpu], cpu] = max($d);
  @tot["hardirq", @hi[cpu], cpu] = sum($d);
  delete(@hs[cpu]);
}
irq:softirq_entry { @ss[cpu] = ts; @si[cpu] = args.vec; }
irq:softirq_exit /@ss[cpu]/ {
  $d = ts - @ss[cpu];
  @n["softirq", @si[cpu], cpu] = count();
  @mx["softirq", @si[cpu], cpu] = max($d);
  @tot["softirq", @si[cpu], cpu] = sum($d);
  delete(@ss[cpu]);
}
END { clear(@hs); clear(@hi); clear(@ss); clear(@si); }
'''
for f in ('pair-broad.dat', 'pair-broad.txt', 'tc.dat',
          'same-recording.dat', 'ftrace-irqinfo.txt'):
    path = f'{FIX}/{f}'
    j = run_json(IRQ, path)
    a = json.loads(subprocess.run([TRAWL, 'irq', path, '--json'],
                                  capture_output=True, text=True).stdout)
    want = {}
    for r in a['irqs']:
        want[(r['kind'], r['irq'], r['cpu'])] = (r['count'], r['max'],
                                                 r['total'])
    got = {}
    n, mx, tot = as_dict(j['@n']), as_dict(j['@mx']), as_dict(j['@tot'])
    for k in n:
        got[k] = (n[k], mx[k], tot[k])
    check(f'irq count, max, total against trawl irq, {f}', got, want)

# ---- 5. examples/*.tw: the same output on a recording's text and
# trace.dat; wakeup latency and slices as the analyses compute them ----
import glob
import os
EX = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                  'examples')


def run_file(script, path, *extra):
    r = subprocess.run([TRAWL, 'run', script, path, *extra],
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stderr:
        raise SystemExit(f'trawl run {script} {path} failed: {r.stderr}')
    return r.stdout


examples = sorted(glob.glob(os.path.join(EX, '*.tw')))
if len(examples) < 7:
    failures += 1
    print(f'FAIL only {len(examples)} examples in {EX}')
for ex in examples:
    name = os.path.basename(ex)
    # latency_ns is in nanoseconds, which the text does not have
    a = [l for l in run_file(ex, txt).splitlines() if 'latency_ns' not in l]
    b = [l for l in run_file(ex, dat).splitlines() if 'latency_ns' not in l]
    if a != b or len(a) < 3:
        failures += 1
        print(f'FAIL {name}: text and trace.dat differ ({len(a)} lines)')
    else:
        print(f'ok   {name}: same on text and trace.dat ({len(a)} lines)')

for f in ('pair-broad.dat', 'pair-broad.txt', 'tc.dat', 'tc-v6.dat',
          'same-recording.dat', 'same-recording.txt', 'ftrace-irqinfo.txt',
          'ftrace-noirqinfo.txt', 'trace-pipe.txt'):
    path = f'{FIX}/{f}'
    j = json.loads(run_file(os.path.join(EX, 'wakeup-latency.tw'), path,
                            '--json'))
    got = {}
    for e in j['@latency_ns']:
        pid, v = e['key'][0], e['value']
        g = got.setdefault(pid, [0, 0, v['min'], v['max']])
        g[0] += v['count']
        g[1] += v['sum']
        g[2] = min(g[2], v['min'])
        g[3] = max(g[3], v['max'])
    a = json.loads(subprocess.run([TRAWL, 'latency', 'wakeup', path,
                                   '--json'], capture_output=True,
                                  text=True).stdout)
    want = {r['pid']: [r['count'], r['total'], r['min'], r['max']]
            for r in a['tasks']}
    check(f'wakeup-latency.tw against trawl latency wakeup, {f}', got, want)

for f in ('systrace.txt', 'systrace.html', 'pair-broad.txt'):
    path = f'{FIX}/{f}'
    j = json.loads(run_file(os.path.join(EX, 'slices.tw'), path, '--json'))
    got = {e['key']: [e['value']['count'], e['value']['sum'] * 1000]
           for e in j['@slice_us']}
    a = json.loads(subprocess.run([TRAWL, 'slices', path, '--json'],
                                  capture_output=True, text=True).stdout)
    want = {}
    for r in a['slices']:
        w = want.setdefault(r['name'], [0, 0])
        w[0] += r['count']
        w[1] += r['total']
    check(f'slices.tw against trawl slices, {f}', got, want)

# irq-durations.tw: handler runs per irq as trawl irq counts them
for f in ('pair-broad.dat', 'pair-broad.txt', 'tc.dat', 'ftrace-irqinfo.txt'):
    path = f'{FIX}/{f}'
    j = json.loads(run_file(os.path.join(EX, 'irq-durations.tw'), path,
                            '--json'))
    got = collections.Counter()
    for e in j['@usecs']:
        got[e['key'][0]] += sum(b['count'] for b in e['value'])
    a = json.loads(subprocess.run([TRAWL, 'irq', path, '--json'],
                                  capture_output=True, text=True).stdout)
    want = collections.Counter()
    for r in a['irqs']:
        if r['kind'] == 'hardirq':
            want[r['irq']] += r['count']
    check(f'irq-durations.tw against trawl irq, {f}', dict(got), dict(want))

# syscalls.tw: calls per process, counted from the text by Python
calls = collections.Counter()
with open(txt, errors='replace') as fh:
    for line in fh:
        m = LINE.match(line.rstrip('\n'))
        if m and m.group(5) == 'sys_enter':
            calls[m.group(1).strip()] += 1
for path in (txt, dat):
    j = json.loads(run_file(os.path.join(EX, 'syscalls.tw'), path, '--json'))
    check(f'syscalls.tw calls per process, {path}', as_dict(j['@calls']),
          dict(calls))

# ---- 6. events a trace.dat did not record ----
tc = f'{FIX}/tc.dat'
r = subprocess.run([TRAWL, 'run', '-e', 'kmem:kmalloc, sched:sched_switch '
                    '{ @ = count(); }', tc], capture_output=True, text=True)
st = json.loads(subprocess.run([TRAWL, 'stats', tc, '--json'],
                               capture_output=True, text=True).stdout)
want = f"\n\n@: {st['events']['sched_switch']}\n"
if r.returncode or r.stdout != want:
    failures += 1
    print(f'FAIL a list with an event not recorded: {r.stdout!r} {r.stderr}')
else:
    print('ok   a list with an event the trace.dat did not record')
for prog, msg in [
        ('kmem:kmalloc { }', "-e:1:1: event 'kmem:kmalloc' is not in this "
         "trace (its format is not in the file: was it recorded?)"),
        ('kmem:* { }', "-e:1:1: probe 'kmem:*' matches no event of this "
         "trace"),
        ('kmem:kmallco { }', "-e:1:1: unknown event 'kmem:kmallco' (did you "
         "mean 'kmem:kmalloc'?)")]:
    r = subprocess.run([TRAWL, 'run', '-e', prog, tc], capture_output=True,
                       text=True)
    if r.returncode != 1 or r.stderr != f'trawl: {msg}\n':
        failures += 1
        print(f'FAIL {prog}: {r.returncode} {r.stderr!r}')
    else:
        print(f'ok   {prog} -> {msg[:50]}')

# ---- 7. the command: inputs and usage ----
irq = f'{FIX}/ftrace-irqinfo.txt'
prog = 'sched:sched_switch { @n = count(); }'
n_switch = sum(1 for name, _ in text_events(irq) if name == 'sched_switch')
want = f'\n\n@n: {n_switch}\n'
cases = [
    ('compressed input', [TRAWL, 'run', '-e', prog, irq + '.zst'], None, 0,
     want),
    ('trace on stdin', [TRAWL, 'run', '-e', prog, '-'], open(irq, 'rb'), 0,
     want),
    ('script on stdin', [TRAWL, 'run', '-', irq], prog.encode(), 0, want),
    ('both on stdin', [TRAWL, 'run', '-', '-'], b'', 1, ''),
    ('no such script', [TRAWL, 'run', 'nosuch.tw', irq], None, 1, ''),
    ('bad --map-size', [TRAWL, 'run', '--map-size', '0', '-e', prog, irq],
     None, 1, ''),
    ('no FILE', [TRAWL, 'run', '-e', prog], None, 1, ''),
    ('--live with a FILE', [TRAWL, 'run', '--live', '-e', prog, irq], None,
     1, ''),
    ('-d without --live', [TRAWL, 'run', '-d', '1', '-e', prog, irq], None,
     1, ''),
    ('--window with --live', [TRAWL, 'run', '--live', '--window', '10',
                              '-e', prog], None, 1, ''),
    ('--help', [TRAWL, 'run', '--help'], None, 0, None),
]
for what, argv, stdin, rc, out in cases:
    kw = {'stdin': stdin} if hasattr(stdin, 'read') else {'input': stdin}
    r = subprocess.run(argv, capture_output=True, **kw)
    o = r.stdout.decode()
    ok = r.returncode == rc and (out is None or o == out) and \
        (rc == 0 or r.stderr.startswith(b'trawl: '))
    if not ok:
        failures += 1
        print(f'FAIL {what}: exit {r.returncode}, {o!r}, {r.stderr!r}')
    else:
        print(f'ok   {what}: exit {rc}')

# ---- 4. --json and the text agree ----
prog = 'sched:sched_switch { @[args.next_comm] = count(); }'
text = run(prog, dat)
rows = {}
for line in text.splitlines():
    m = re.match(r'@\[(.*)\]: (\d+)$', line)
    if m:
        rows[m.group(1)] = int(m.group(2))
check('--json against the text output', as_dict(run_json(prog, dat)['@']),
      rows)

if failures:
    print(f'{failures} check(s) failed')
    sys.exit(1)
print('all script checks passed')
