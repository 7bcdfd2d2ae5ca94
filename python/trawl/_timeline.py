# SPDX-License-Identifier: MIT
"""Timelines in a notebook: Trace.chart() draws the library's chart (the
same lanes and colours as `trawl chart` and `trawl view`), Trace.view()
starts the viewer on a free loopback port."""
import html
import os
import shutil
import subprocess

from . import _trawl


class Chart:
    """An SVG chart of a trace's window. Jupyter shows it inline
    (_repr_svg_); .svg is the text, .save(path) writes it."""

    def __init__(self, svg, trace, start, end, width, lanes):
        self.svg = svg
        self.trace, self.start, self.end = trace, start, end
        self.width, self.lanes = width, lanes

    def _repr_svg_(self):
        return self.svg

    def __repr__(self):
        return "trawl.Chart(%r, width=%d, lanes=%r, %d bytes of SVG)" % (
            self.trace, self.width, self.lanes, len(self.svg))

    def save(self, path):
        """Write the SVG to path; returns path."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.svg)
        return path


def chart(trace, start=None, end=None, width=1200, lanes=None,
          irq_threshold=None, cache=True):
    """The chart of trace (a Trace) over [start, end) (ns of trace time,
    as Trace.chart() makes them from what it takes; None: the trace's own
    ends), width pixels of timeline, the lane kinds
    in lanes ("cpu,slice", "all"; None: all but the thread states)."""
    if isinstance(width, bool) or not isinstance(width, int):
        raise TypeError("chart: width must be an int, not %r" % (width,))
    for name, v in (("start", start), ("end", end)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise TypeError("chart: %s must be an int of ns, not %r"
                            % (name, v))
    thr = 0 if irq_threshold is None else int(irq_threshold)
    svg = _trawl.chart(trace.path, trace.opts, start, end, width, lanes,
                       thr, bool(cache))
    return Chart(svg, trace.path, start, end, width, lanes)


def _trawl_program():
    """The trawl command: $TRAWL, else the build tree this package was
    built in, else the one on PATH."""
    env = os.environ.get("TRAWL")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", "tools", "trawl", "trawl")
    if os.access(built, os.X_OK):
        return os.path.normpath(built)
    found = shutil.which("trawl")
    if not found:
        raise FileNotFoundError(
            "trawl view: the trawl command is not on PATH (install trawl, "
            "or set TRAWL to its path)")
    return found


class Viewer:
    """A running `trawl view` of a trace on a loopback port. Shows in
    Jupyter as the viewer in a frame with its link (the URL holds the
    access token); .url, .stop() (also when it is garbage-collected)."""

    def __init__(self, trace, port=0, follow=False, cache=True, env=None):
        cmd = [_trawl_program(), "view", trace.path, "--port", str(port),
               "--bind", "127.0.0.1"]
        if follow:
            cmd.append("--follow")
        if not cache:
            cmd.append("--no-cache")
        self.trace = trace.path
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True,
                                     env=env)
        line = self.proc.stdout.readline()
        prefix = "trawl view: serving "
        if not line.startswith(prefix):
            err = self.proc.stderr.read().strip()
            self.proc.wait()
            raise _trawl.TrawlError("trawl view %s: %s" % (
                trace.path, err or "exited %s" % self.proc.returncode))
        self.url = line[len(prefix):].strip()

    def __repr__(self):
        state = "stopped" if self.proc.poll() is not None else self.url
        return "trawl.Viewer(%r, %s)" % (self.trace, state)

    def _repr_html_(self):
        u = html.escape(self.url, quote=True)
        return ('<a href="%s" target="_blank">trawl view of %s</a><br>'
                '<iframe src="%s" width="100%%" height="640" '
                'style="border:1px solid #ccc"></iframe>'
                % (u, html.escape(self.trace), u))

    def stop(self):
        """Stop the server (SIGINT, as Ctrl-C would); returns its exit
        status."""
        if self.proc.poll() is None:
            self.proc.send_signal(2)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            if f:
                f.close()
        return self.proc.returncode

    def __del__(self):
        proc = getattr(self, "proc", None)
        if proc is not None and proc.poll() is None:
            self.stop()
