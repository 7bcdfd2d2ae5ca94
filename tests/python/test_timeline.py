# SPDX-License-Identifier: MIT
"""Trace.chart() and Trace.view(): the library's chart is `trawl chart`'s,
byte for byte, for the same window, lanes and width; a viewer started from
Python serves the trace (its /api/info against trawl stats) and stops;
bad windows, lanes and widths raise with a message."""
import json
import os
import tempfile
import unittest
import urllib.request

import trawl
from helpers import TRAWL, clean_env, cli, fixture


def seconds(ns):
    return "%d.%09d" % (ns // 10**9, ns % 10**9)


class Chart(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="trawl-py-chart-")
        os.environ["XDG_CACHE_HOME"] = os.path.join(self.dir, "cache")

    def same_as_cli(self, name, start=None, end=None, width=1200,
                    lanes=None):
        trace = fixture(name)
        got = trawl.open(trace).chart(start=start, end=end, width=width,
                                      lanes=lanes)
        out = os.path.join(self.dir, "cli.svg")
        args = ["chart", trace, "-o", out, "--width", width, "--no-cache"]
        if lanes:
            args += ["--lanes", lanes]
        if start is not None:
            args += ["--from", seconds(start)]
        if end is not None:
            args += ["--to", seconds(end)]
        cli(*args)
        with open(out, encoding="utf-8") as f:
            want = f.read()
        self.assertEqual(got.svg, want, "%s %s" % (name, args))
        self.assertEqual(got._repr_svg_(), want)
        return got

    def test_the_cli_chart_byte_for_byte(self):
        self.same_as_cli("tc.dat")
        self.same_as_cli("systrace.txt", lanes="all", width=700)
        c = self.same_as_cli("cpu-idle.txt", lanes="cpu,counter")
        self.assertIn("CPU 0 idle state", c.svg)
        first, last = trawl.open(fixture("tc.dat")).span
        mid = (first + last) // 2
        self.same_as_cli("tc.dat", start=mid, end=last + 1, lanes="cpu,task")

    def test_save_and_the_cache(self):
        tr = trawl.open(fixture("tc.dat"))
        c = tr.chart(width=500)
        path = c.save(os.path.join(self.dir, "x.svg"))
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), c.svg)
        cache = os.path.join(self.dir, "cache", "trawl")
        self.assertTrue(os.listdir(cache), "the index is cached")
        self.assertEqual(tr.chart(width=500).svg, c.svg)
        self.assertEqual(tr.chart(width=500, cache=False).svg, c.svg)

    def test_bad_arguments(self):
        tr = trawl.open(fixture("tc.dat"))
        first, last = tr.span
        with self.assertRaisesRegex(ValueError, "no lane kind 'nope'"):
            tr.chart(lanes="cpu,nope")
        with self.assertRaisesRegex(ValueError, "width must be 10"):
            tr.chart(width=3)
        with self.assertRaisesRegex(TypeError, "width must be an int"):
            tr.chart(width=12.5)
        # times as df() takes them: 1.5 is seconds, before this trace
        with self.assertRaisesRegex(ValueError, "outside the trace"):
            tr.chart(start=1.5, end=2.5)
        with self.assertRaisesRegex(ValueError, "start: a trace time"):
            tr.chart(start="soon")
        with self.assertRaisesRegex(ValueError, "outside the trace"):
            tr.chart(start=1, end=2)
        with self.assertRaisesRegex(ValueError, "before start"):
            tr.chart(start=last, end=first)
        with self.assertRaisesRegex(ValueError, "end must be after start"):
            tr.chart(start=first, end=first)


class View(unittest.TestCase):
    def test_a_viewer_from_python(self):
        os.environ["TRAWL"] = TRAWL
        tr = trawl.open(fixture("tc.dat"))
        v = tr.view(cache=False, env=clean_env())
        try:
            self.assertTrue(v.url.startswith("http://127.0.0.1:"))
            self.assertIn("?token=", v.url)
            html = v._repr_html_()
            self.assertIn("<iframe", html)
            self.assertIn(v.url.replace("&", "&amp;"), html)
            url = v.url.replace("/?token=", "/api/info?lanes=0&token=")
            info = json.load(urllib.request.urlopen(url, timeout=10))
            self.assertEqual(info["events"], sum(tr.events.values()))
        finally:
            self.assertEqual(v.stop(), 0)
        self.assertIn("stopped", repr(v))

    def test_a_viewer_that_cannot_start(self):
        os.environ["TRAWL"] = TRAWL
        tr = trawl.open(fixture("tc.dat"))
        tr.path = os.path.join(tempfile.mkdtemp(), "gone.dat")
        with self.assertRaisesRegex(trawl.TrawlError, "gone.dat"):
            tr.view(env=clean_env())


if __name__ == "__main__":
    unittest.main()
