#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trawl chart: well-formed SVG (Python's xml parser) with the lanes the
trace has, a window and a width that change what is drawn, a size that
depends on the width and not on the events (a generated trace of 300 000
context switches), and usage errors. PNG: decoded here (zlib and struct),
the image as wide and high as the SVG, its lanes' pixels the colours of
the SVG's rectangles; without its module (or with a broken one), a clear
error and exit status 2.

  test-chart.py TRAWL FIXTURES_DIR SCRATCH_DIR
"""
import colorsys
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

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
    kinds = [g.get('data-kind') for g in root.iter(NS + 'g')
             if g.get('data-kind') != 'legend']
    return out, root, kinds


def names_and_legend(tc):
    """Names inside the runs wide enough for them (the running task's
    "comm pid" on a CPU, the slice's name), each inside a run of its lane;
    a legend of the colours under the lanes, the thread states only when
    task lanes are drawn, in the task lanes' colours."""
    sched = json.loads(subprocess.run([TRAWL, 'sched', tc, '--json'],
                                      capture_output=True, text=True,
                                      check=True).stdout)
    tasks = {'%s %d' % (t['comm'], t['pid']) for t in sched['tasks']}
    _, root, _ = chart(tc, 'names.svg', '--lanes', 'all', '--width', '1200')
    named = {}
    for g in root.iter(NS + 'g'):
        kind = g.get('data-kind')
        # a run: rects of one fill side by side (a run's rects part where
        # its busy share changes)
        rects = []
        for r in g.iter(NS + 'rect'):
            rx, rw, f = float(r.get('x')), float(r.get('width')), r.get('fill')
            if rects and rects[-1][2] == f and rects[-1][0] + rects[-1][1] == rx:
                rects[-1][1] += rw
            else:
                rects.append([rx, rw, f])
        for t in g.iter(NS + 'text'):
            x = float(t.get('x'))
            if x < 170 or kind == 'legend':
                continue
            named.setdefault(kind, []).append(t.text)
            inside = any(rx <= x - 2 and x + 6 * len(t.text) <= rx + rw + 6
                         for rx, rw, _ in rects)
            check(inside, '%s name %r at %s is inside a run' % (kind, t.text,
                                                               x))
            if kind == 'cpu':
                check(any(n.startswith(t.text) for n in tasks),
                      'CPU run name %r is a task\'s "comm pid"' % t.text)
    check(named.get('cpu') and named.get('slice'),
          'runs of CPU and slice lanes are named (%s)' % {
              k: len(v) for k, v in named.items()})
    for lanes, want in (('all', True), ('cpu,softirq', False)):
        _, root, _ = chart(tc, 'legend.svg', '--lanes', lanes)
        legend = [g for g in root.iter(NS + 'g')
                  if g.get('data-kind') == 'legend']
        check(len(legend) == 1, '--lanes %s: one legend' % lanes)
        if not legend:
            continue
        words = [t.text for t in legend[0].iter(NS + 'text')]
        fills = dict(zip(words, (r.get('fill') for r in
                                 legend[0].iter(NS + 'rect'))))
        check(('running' in words) == want and 'marker' in words,
              '--lanes %s: legend %s' % (lanes, words))
        if want:
            task_fills = {r.get('fill') for g in root.iter(NS + 'g')
                          if g.get('data-kind') == 'task'
                          for r in g.iter(NS + 'rect')}
            check(fills['running'] in task_fills and
                  fills['sleeping'] in task_fills,
                  'the legend\'s state colours are the task lanes\' (%s)'
                  % fills)


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


def read_png(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB PNG."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('%s: no PNG signature' % path)
    pos, idat, ihdr = 8, b'', None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if zlib.crc32(kind + body) != struct.unpack(
                '>I', data[pos + 8 + n:pos + 12 + n])[0]:
            raise ValueError('%s: bad CRC in %s' % (path, kind))
        if kind == b'IHDR':
            ihdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        elif kind == b'IEND':
            break
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    if (depth, ctype, interlace) != (8, 2, 0):
        raise ValueError('%s: not 8-bit RGB (%d, %d, %d)'
                         % (path, depth, ctype, interlace))
    raw, bpp, stride = zlib.decompress(idat), 3, 3 * w
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, 3)])
        prev = line
    return w, h, rows


def css_rgb(css):
    """#rgb, #rrggbb, hsl(H,S%,L%) as 0..255 integers."""
    if css.startswith('#'):
        d = css[1:]
        if len(d) == 3:
            d = ''.join(c * 2 for c in d)
        return tuple(int(d[i:i + 2], 16) for i in (0, 2, 4))
    h, s, l = map(float, re.match(r'hsl\(([\d.]+),([\d.]+)%,([\d.]+)%\)',
                                  css).groups())
    return tuple(round(v * 255) for v in
                 colorsys.hls_to_rgb(h / 360, l / 100, s / 100))


def png_checks(tc):
    """The PNG of tc.dat against its SVG: size, and every lane rectangle
    that covers a whole pixel has its colour there."""
    svg, root, _ = chart(tc, 'pix.svg', '--lanes', 'cpu,task,softirq',
                         '--width', '700')
    png = os.path.join(OUT, 'pix.png')
    r = subprocess.run([TRAWL, 'chart', tc, '-o', png, '--no-cache',
                        '--lanes', 'cpu,task,softirq', '--width', '700'],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, 'chart -o x.png: %s' % r.stderr)
    w, h, rows = read_png(png)
    check(w == 170 + 700 and str(w) == root.get('width'),
          'PNG width is --width + the labels, as the SVG (%d)' % w)
    check(str(h) == root.get('height'), 'PNG height as the SVG (%d, %s)'
          % (h, root.get('height')))
    checked = wrong = 0
    kinds = set()
    for g in root.iter(NS + 'g'):
        for rect in g.iter(NS + 'rect'):
            x, y = int(rect.get('x')), float(rect.get('y'))
            rw, rh = int(rect.get('width')), float(rect.get('height'))
            # the first pixel row inside (y and height are rounded to
            # 0.05 in the SVG's text)
            row = math.ceil(y + 0.05)
            if row + 1 > y + rh - 0.05:
                continue
            want = css_rgb(rect.get('fill'))
            got = rows[row][x + rw // 2]
            checked += 1
            kinds.add(g.get('data-kind'))
            if max(abs(a - b) for a, b in zip(want, got)) > 2:
                wrong += 1
                if wrong < 5:
                    print('pixel %d,%d: %s, the SVG says %s (%s)'
                          % (x + rw // 2, row, got, want, rect.get('fill')))
    check(checked > 100 and not wrong and kinds >= {'cpu', 'task'},
          'PNG pixels have the colours of the SVG\'s rects: %d of %d '
          'wrong (%s)' % (wrong, checked, sorted(kinds)))
    print('PNG: %d rectangles of the SVG checked on its pixels (%s)'
          % (checked, ', '.join(sorted(kinds))))
    check(rows[2][5] == (255, 255, 255), 'the background is white')
    # --format, whatever the name; standard output
    out = os.path.join(OUT, 'fmt.img')
    r = subprocess.run([TRAWL, 'chart', tc, '-o', out, '--format', 'png'],
                       capture_output=True, timeout=120)
    check(r.returncode == 0 and read_png(out)[0] == 1370,
          '--format png writes a PNG whatever the name')
    out = os.path.join(OUT, 'fmt.png')
    r = subprocess.run([TRAWL, 'chart', tc, '-o', out, '--format', 'svg'],
                       capture_output=True, timeout=120)
    check(r.returncode == 0 and ET.parse(out).getroot().tag == NS + 'svg',
          '--format svg writes an SVG whatever the name')
    r = subprocess.run([TRAWL, 'chart', tc, '-o', '-', '--format', 'png'],
                       capture_output=True, timeout=120)
    check(r.returncode == 0 and r.stdout[:4] == b'\x89PNG',
          'a PNG on standard output')


def module_missing(tc):
    """The program copied away from its module: a PNG is an environment
    error (2) that names the module and what to install, before the trace
    is read; an SVG still works. A broken module: 2, naming cairo."""
    r = subprocess.run([TRAWL, 'chart', '--help'], capture_output=True,
                       text=True)
    installed = re.search(r'then (/\S+)', r.stdout).group(1)
    if os.path.exists(os.path.join(installed, 'trawl-chart-png.so')):
        print('(the PNG module is installed in %s: its absence not '
              'checked)' % installed)
        return
    alone = os.path.join(OUT, 'alone')
    os.makedirs(alone, exist_ok=True)
    shutil.copy(TRAWL, os.path.join(alone, 'trawl'))
    env = dict(os.environ, TRAWL_MODULE_DIR=os.path.join(OUT, 'nothing'))
    out = os.path.join(alone, 'x.png')
    r = subprocess.run([os.path.join(alone, 'trawl'), 'chart', tc, '-o', out],
                       capture_output=True, text=True, env=env)
    check(r.returncode == 2 and 'trawl-chart-png.so' in r.stderr and
          'libcairo2-dev' in r.stderr and installed in r.stderr and
          not os.path.exists(out),
          'no module: exit 2 naming it and what to install (%d %r)'
          % (r.returncode, r.stderr))
    r = subprocess.run([os.path.join(alone, 'trawl'), 'chart', tc, '-o',
                        os.path.join(alone, 'x.svg')],
                       capture_output=True, text=True, env=env)
    check(r.returncode == 0, 'no module: an SVG still (%s)' % r.stderr)
    bad = os.path.join(OUT, 'bad')
    os.makedirs(bad, exist_ok=True)
    with open(os.path.join(bad, 'trawl-chart-png.so'), 'w') as f:
        f.write('not a library\n')
    r = subprocess.run([os.path.join(alone, 'trawl'), 'chart', tc, '-o', out],
                       capture_output=True, text=True,
                       env=dict(os.environ, TRAWL_MODULE_DIR=bad))
    check(r.returncode == 2 and 'cannot load' in r.stderr and
          'libcairo2' in r.stderr,
          'a broken module: exit 2 naming cairo (%d %r)'
          % (r.returncode, r.stderr))


def main():
    global NOT_A_TRACE
    NOT_A_TRACE = os.path.join(OUT, 'not-a-trace.txt')
    with open(NOT_A_TRACE, 'w') as f:
        f.write('this is a note, not a trace\n')
    EMPTY_TRACE = os.path.join(OUT, 'empty-trace.txt')
    with open(EMPTY_TRACE, 'w') as f:
        f.write('# tracer: nop\n#\n')
    tc = os.path.join(FIX, 'tc.dat')
    out, root, kinds = chart(tc, 'tc.svg')
    check(root.tag == NS + 'svg', 'an svg root')
    check(root.get('width') == str(170 + 1200), 'default width 1200')
    for k in ('cpu', 'softirq', 'marker'):
        check(k in kinds, 'tc.dat chart has a %s lane (%s)' % (k, kinds))
    check('task' not in kinds, 'no task lanes by default')
    rects = list(root.iter(NS + 'rect'))
    check(len(rects) > 20, 'runs are drawn (%d rects)' % len(rects))
    names_and_legend(tc)
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
                        'cannot write'),
                       (['chart', tc, '-o', os.path.join(OUT, 'x.svg'),
                         '--format', 'gif'], 'format'),
                       (['chart', tc, '-o', '/nonexistent/dir/x.png'],
                        'cannot write'),
                       # a name that says another format: not SVG in it
                       (['chart', tc, '-o', os.path.join(OUT, 'x.jpg')],
                        'not jpg'),
                       # a window outside the trace: no empty chart
                       (['chart', tc, '-o', os.path.join(OUT, 'x.svg'),
                         '--from', '1', '--to', '2'], 'outside the trace'),
                       (['chart', tc, '-o', os.path.join(OUT, 'x.svg'),
                         '--from', '5000'], 'outside the trace'),
                       # a text that is not a trace, and a trace without
                       # events: said, no empty chart
                       (['chart', NOT_A_TRACE, '-o',
                         os.path.join(OUT, 'x.svg')], 'not a trace'),
                       (['chart', EMPTY_TRACE, '-o',
                         os.path.join(OUT, 'x.svg')], 'no events')):
        for name in ('x.jpg', 'x.svg'):
            if os.path.exists(os.path.join(OUT, name)):
                os.unlink(os.path.join(OUT, name))
        r = subprocess.run([TRAWL, *args], capture_output=True, text=True)
        check(r.returncode in (1, 2) and word in r.stderr,
              '%s: fails naming %s (%d %r)' % (args, word, r.returncode,
                                               r.stderr[:100]))
        check(not os.path.exists(os.path.join(OUT, 'x.jpg')) and
              not os.path.exists(os.path.join(OUT, 'x.svg')),
              '%s: and writes nothing' % args)
    # trawl view of a non-trace says so instead of an empty page
    r = subprocess.run([TRAWL, 'view', NOT_A_TRACE, '--port', '0'],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and 'not a trace' in r.stderr,
          'view of a non-trace: %d %r' % (r.returncode, r.stderr[:120]))
    r = subprocess.run([TRAWL, 'view', EMPTY_TRACE, '--port', '0'],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and 'no events' in r.stderr,
          'view of a trace without events: %d %r' % (r.returncode,
                                                     r.stderr[:120]))
    png_checks(tc)
    module_missing(tc)
    if failures:
        print('%d failures' % len(failures))
        sys.exit(1)
    print('trawl chart: all checks passed')


main()
