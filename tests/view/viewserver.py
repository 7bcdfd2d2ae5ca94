# SPDX-License-Identifier: MIT
"""Start a real `trawl view --port 0` and talk to it (stdlib only)."""
import json
import re
import signal
import socket
import subprocess
import urllib.parse

LINE = re.compile(r'^trawl view: serving (http://127\.0\.0\.1:(\d+)/'
                  r'(?:\?token=([0-9a-f]{32}))?)\n$')


class Server:
    def __init__(self, trawl, trace, *extra, env=None):
        self.proc = subprocess.Popen([trawl, 'view', trace, '--port', '0',
                                      *extra],
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True,
                                     env=env)
        self.line = self.proc.stdout.readline()
        m = LINE.match(self.line)
        if not m:
            err = self.proc.stderr.read() if self.proc.poll() is not None \
                else ''
            self.proc.kill()
            raise AssertionError('unexpected first line %r (stderr %r)'
                                 % (self.line, err))
        self.url, self.port, self.token = m.group(1), int(m.group(2)), \
            m.group(3) or ''

    def raw(self, request, timeout=10):
        """Send bytes, return (status, headers dict, body bytes)."""
        s = socket.create_connection(('127.0.0.1', self.port),
                                     timeout=timeout)
        try:
            s.sendall(request)
            data = b''
            while True:
                try:
                    chunk = s.recv(65536)
                except (ConnectionResetError, socket.timeout):
                    break
                if not chunk:
                    break
                data += chunk
        finally:
            s.close()
        if not data:
            return 0, {}, b''
        head, _, body = data.partition(b'\r\n\r\n')
        lines = head.decode('latin-1').split('\r\n')
        status = int(lines[0].split()[1])
        headers = {}
        for l in lines[1:]:
            k, _, v = l.partition(':')
            headers[k.strip().lower()] = v.strip()
        return status, headers, body

    def get(self, path, params=None, token=True, host=None, headers=()):
        q = dict(params or {})
        if token and self.token:
            q['token'] = self.token
        target = path + ('?' + urllib.parse.urlencode(q) if q else '')
        req = 'GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n' % (
            target, host or '127.0.0.1:%d' % self.port)
        for h in headers:
            req += h + '\r\n'
        return self.raw((req + '\r\n').encode())

    def json(self, path, params=None, **kw):
        status, headers, body = self.get(path, params, **kw)
        return status, json.loads(body) if body else None

    def api(self, path, params=None):
        status, j = self.json(path, params)
        if status != 200:
            raise AssertionError('%s %s: %d %s' % (path, params, status, j))
        return j

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return self.proc.returncode
