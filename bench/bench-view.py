#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 12: trawl view on big traces (bench/RESULTS.md, "Issue 12: viewer").

  bench/bench-view.py [--trawl build/trawl] [--runs 3] [FILE...]

Per input (default bench/out/big.dat, big-nocomp.dat and big.txt when
present):
  - index build: `trawl view FILE --port 0` from start to its serving line,
    against `trawl stats FILE` in the same run (median of --runs each)
  - server RSS (VmRSS, its anonymous and file-backed parts, VmHWM: the
    peak, which is while indexing) and the index's own bytes (/api/info),
    as a share of the file's size; which lanes read their changes back
  - server time of a window request at every level of the CPU lanes at one
    pixel per bucket, at 9 places each (every one a new read back of the
    trace where the level is not kept), and the same window again (the
    replay cache); a click's details with the events' fields at 10 %, 50 %
    and 95 % of the trace; the analyses of a 1 % and a 25 % window
  - server time of a window request at every level of the CPU lanes at one
    pixel per bucket (2000 px), and of raw detail, and of every lane over
    the whole trace (median of 9 client round trips, loopback)
  - time to the first full draw and frame time while panning in chromium
    (bench/view-browser.js; needs playwright-core from the browser test's
    npm ci: BUILD/tests/view/browser/npm)
  - KernelShark's load time and memory on the same trace.dat, under
    xvfb-run, when both are installed: the time until its CPU time stops
    growing, and its peak RSS
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'tests', 'view'))
from viewserver import Server  # noqa: E402


def median_time(cmd, runs):
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def status(pid, key):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith(key + ':'):
                return int(line.split()[1]) * 1024
    return 0


def index_runs(trawl, path, runs, *extra, env=None):
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        s = Server(trawl, path, *extra, env=env)
        ts.append(time.perf_counter() - t)
        s.stop()
    return statistics.median(ts)


def cached_start(trawl, path, runs):
    """Start time with the index in a scratch cache directory."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, XDG_CACHE_HOME=d)
        Server(trawl, path, env=env).stop()  # writes it
        size = sum(os.path.getsize(os.path.join(r, f))
                   for r, _, fs in os.walk(d) for f in fs)
        return index_runs(trawl, path, runs, env=env), size


def request_ms(s, params, n=9):
    ts = []
    for i in range(n):
        t = time.perf_counter()
        s.api('/api/window', params(i))
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1000


def api_ms(s, path, params, n=1):
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        s.api(path, params)
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1000


def windows(s, info):
    first, last = info['first'], info['last']
    span = last + 1 - first
    cpus = [l for l in info['lanes'] if l['kind'] == 'cpu']
    ids = ','.join(str(l['id']) for l in cpus)
    out = []
    W = 2000
    busiest = max(cpus, key=lambda l: l['changes'])
    for k, bw in enumerate(busiest['levels']):
        wspan = bw * W
        def params(i, wspan=wspan):
            room = max(0, span - wspan)
            f = first + (i * 7919 * 104729) % room if room else first
            return {'lanes': ids, 'from': f, 'to': f + wspan, 'width': W}
        out.append(('level %d (%s ns/bucket)' % (k, bw), request_ms(s, params)))
        out.append(('  the same window again', request_ms(
            s, lambda i, p=params(0): p)))
    # raw detail: a window whose pixels are finer than level 0
    wspan = busiest['levels'][0] * W // 8
    out.append(('raw changes (%d ns/px)' % (wspan // W), request_ms(
        s, lambda i: {'lanes': ids, 'from': first + span // 3 + i * wspan,
                      'to': first + span // 3 + (i + 1) * wspan,
                      'width': W})))
    all_ids = ','.join(str(l['id']) for l in info['lanes'][:512])
    out.append(('all %d lanes, whole trace, 2000 px' % min(512, len(
        info['lanes'])), request_ms(s, lambda i: {'lanes': all_ids,
                                                  'width': W}, 5)))
    return out


def browser(trawl, path, build):
    npm = os.path.join(build, 'tests', 'view', 'browser', 'npm',
                       'node_modules')
    if not os.path.isdir(os.path.join(npm, 'playwright-core')):
        return None
    r = subprocess.run(['node', os.path.join(HERE, 'view-browser.js'), trawl,
                        path], env=dict(os.environ, NODE_PATH=npm),
                       capture_output=True, text=True, timeout=600)
    if r.returncode:
        return {'error': r.stdout[-300:] + r.stderr[-300:]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def kernelshark(path):
    if not path.endswith('.dat'):
        return None
    for tool in ('kernelshark', 'xvfb-run'):
        if subprocess.run(['sh', '-c', 'command -v ' + tool],
                          capture_output=True).returncode:
            return {'error': tool + ' is not installed'}
    # as root KernelShark 2.2.1 sits in its event loop without opening the
    # file (a dialog under Xvfb, seen: no file descriptor on it), so it runs
    # as nobody, which must be able to read the file
    cmd = ['xvfb-run', '-a', 'kernelshark', '-i', os.path.abspath(path)]
    if os.getuid() == 0:
        cmd = ['runuser', '-u', 'nobody', '--', 'env', 'HOME=/tmp'] + cmd
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    ks = None
    try:
        # its pid: the kernelshark child of xvfb-run
        while ks is None and time.perf_counter() - t0 < 30:
            for d in os.listdir('/proc'):
                if d.isdigit():
                    try:
                        with open('/proc/%s/stat' % d) as f:
                            st = f.read().split()
                        if st[1] == '(kernelshark)' and int(st[4]) == \
                                p.pid:
                            ks = int(d)
                    except (OSError, IndexError):
                        pass
            time.sleep(0.05)
        if ks is None:
            return {'error': 'kernelshark did not start'}
        last, still, done = -1, 0, None
        while time.perf_counter() - t0 < 600:
            with open('/proc/%d/stat' % ks) as f:
                st = f.read().split()
            cpu = int(st[13]) + int(st[14])
            if cpu == last:
                still += 1
                if still >= 20:  # 2 s without CPU time: loaded and idle
                    break
            else:
                still, last, done = 0, cpu, time.perf_counter() - t0
            time.sleep(0.1)
        return {'load_s': done, 'peak_rss': status(ks, 'VmHWM'),
                'rss': status(ks, 'VmRSS')}
    finally:
        os.killpg(os.getpgid(p.pid), 15)
        p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--trawl', default=os.path.join(HERE, '..', 'build',
                                                    'trawl'))
    ap.add_argument('--build', default=None,
                    help='build dir holding the browser test\'s npm install')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--no-kernelshark', action='store_true')
    ap.add_argument('files', nargs='*')
    a = ap.parse_args()
    build = a.build or os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.realpath(a.trawl))))
    files = a.files or [f for f in (os.path.join(HERE, 'out', 'big.dat'),
                                    os.path.join(HERE, 'out',
                                                 'big-nocomp.dat'),
                                    os.path.join(HERE, 'out', 'big.txt'))
                        if os.path.exists(f)]
    for path in files:
        size = os.path.getsize(path)
        print('## %s (%.1f MB)' % (path, size / 1e6))
        # interleaved, so a busy moment of the machine hits both alike
        st, ix = [], []
        for _ in range(a.runs):
            st.append(median_time([a.trawl, 'stats', path], 1))
            ix.append(index_runs(a.trawl, path, 1, '--no-cache'))
        stats, index = statistics.median(st), statistics.median(ix)
        ratios = sorted(i / s for i, s in zip(ix, st))
        print('index build %.2f s, trawl stats %.2f s: %.2fx (pairs: %s)' % (
            index, stats, index / stats,
            ' '.join('%.2f' % r for r in ratios)))
        cached, csize = cached_start(a.trawl, path, a.runs)
        print('start from the cache %.2f s (%.2fx trawl stats), cache file '
              '%.1f MB' % (cached, cached / stats, csize / 1e6))
        for forced in (False, True):
            if not serve(a, path, size, forced):
                break
        b = browser(a.trawl, path, build)
        if b:
            print('browser: %s' % json.dumps(b))
        k = None if a.no_kernelshark else kernelshark(path)
        if k:
            print('kernelshark: %s' % json.dumps(k))
        sys.stdout.flush()


def serve(a, path, size, forced):
    """The server's memory and request times; forced: with nothing kept
    that can be read back (TRAWL_VIEW_BUDGET=0), as a trace too big for
    its budget would be. Return: whether anything was read back."""
    env = dict(os.environ)
    if forced:
        env['TRAWL_VIEW_BUDGET'] = '0'
        print('-- everything that can be read back given back '
              '(TRAWL_VIEW_BUDGET=0):')
    if True:
        s = Server(a.trawl, path, '--no-cache', env=env)
        try:
            info = s.api('/api/info')
            rss, hwm = status(s.proc.pid, 'VmRSS'), status(s.proc.pid,
                                                          'VmHWM')
            anon, fil = status(s.proc.pid, 'RssAnon'), status(s.proc.pid,
                                                             'RssFile')
            print('index %.2f MB (%.1f %% of the file), server RSS %.1f MB '
                  '(%.1f %%: %.1f MB anonymous %.1f %%, %.1f MB of files, '
                  'the program and its libraries), peak %.1f MB (%.1f %%); '
                  '%d lanes, %d tasks, %d events' % (
                      info['index_bytes'] / 1e6,
                      100 * info['index_bytes'] / size, rss / 1e6,
                      100 * rss / size, anon / 1e6, 100 * anon / size,
                      fil / 1e6, hwm / 1e6, 100 * hwm / size,
                      len(info['lanes']), info['tasks'], info['events']))
            back = [l for l in info['lanes'] if l.get('read_back')]
            print('lanes read back from the trace: %d of %d (kept from '
                  'level %s), %d checkpoints' % (
                      len(back), len(info['lanes']),
                      sorted(set(l['kept_level'] for l in back)),
                      info.get('checkpoints', 0)))
            for what, ms in windows(s, info):
                print('  window %-40s %6.2f ms' % (what, ms))
            t = time.perf_counter()
            s.api('/api/analysis')
            print('  analysis of the whole trace %.0f ms' % (
                (time.perf_counter() - t) * 1000))
            first, last = info['first'], info['last']
            span = last - first
            for w in (100, 4):
                print('  analysis of a %d %% window %.0f ms' % (
                    100 // w, api_ms(s, '/api/analysis', {
                        'from': first + span // 3,
                        'to': first + span // 3 + span // w})))
            cpu = max((l for l in info['lanes'] if l['kind'] == 'cpu'),
                      key=lambda l: l['changes'])
            for frac in (0.1, 0.5, 0.95):
                print('  click details with fields at %2d %% %.0f ms' % (
                    frac * 100, api_ms(s, '/api/detail', {
                        'lane': cpu['id'], 't': first + int(span * frac),
                        'fields': 1})))
            print('server RSS after the requests %.1f MB, %d windows read '
                  'back' % (status(s.proc.pid, 'VmRSS') / 1e6,
                            s.api('/api/info')['read_back']))
            sys.stdout.flush()
            return not back
        finally:
            s.stop()


if __name__ == '__main__':
    main()
