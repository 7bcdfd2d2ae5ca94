# SPDX-License-Identifier: MIT
"""Bad input raises trawl.TrawlError with the reader's message, and never
crashes the interpreter: cut and damaged trace.dat files, random bytes,
empty files, missing files, strict text, bad patterns and options. The
damaged files are read in a child interpreter so that a crash is seen as
one (a signal), not as a dead test run."""
import os
import random
import subprocess
import sys
import tempfile
import unittest

import trawl
from helpers import fixture


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def read(path):
    with open(path, "rb") as f:
        return f.read()

CHILD = r"""
import sys, trawl
for path in sys.argv[1:]:
    try:
        tr = trawl.open(path)
        n = len(tr.df("*"))
        tr.dfs(["sched_switch", "irq:*"])
        tr.apply({"*": lambda ev: (ev.time, ev.fields())})
        tr.latency("wakeup"); tr.irq(); tr.sched(); tr.workqueue()
        tr.slices()
        tr.run("sched:sched_switch { @[args.prev_comm] = count(); }")
        print("ok", n, tr.stats["bad_lines"], path)
    except trawl.TrawlError as e:
        assert str(e), "empty message"
        print("error", e.code, path, str(e).replace("\n", " "))
"""


class ErrorsTest(unittest.TestCase):
    def test_missing_file(self):
        path = "/nonexistent/trace.dat"
        with self.assertRaises(trawl.TrawlError) as cm:
            trawl.open(path)
        self.assertIn(path, str(cm.exception))
        self.assertEqual(cm.exception.errno, 2)

    def test_directory_and_empty(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(trawl.TrawlError):
                trawl.open(d).df("*")
            empty = os.path.join(d, "empty.txt")
            open(empty, "w").close()
            try:
                tr = trawl.open(empty)
                self.assertEqual(len(tr.df("*")), 0)
            except trawl.TrawlError as e:
                self.assertIn(empty, str(e))

    def test_a_text_that_is_not_a_trace(self):
        # docs/python.md's example: a README (it quotes a few event lines
        # among its prose) is not opened as a trace with bad lines
        with self.assertRaises(trawl.TrawlError) as cm:
            trawl.open(fixture("README.md"))
        self.assertEqual(cm.exception.code, "TRAWL_EFORMAT")
        self.assertIn("not a trace", str(cm.exception))
        self.assertEqual(cm.exception.file, fixture("README.md"))
        with tempfile.TemporaryDirectory() as d:
            empty = write(os.path.join(d, "empty.txt"),
                          b"# tracer: nop\n#\n")
            self.assertEqual(trawl.open(empty).events, {})

    def test_strict_names_the_line(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "bad.txt")
            with open(fixture("ftrace-irqinfo.txt")) as f:
                lines = f.readlines()
            body = [i for i, l in enumerate(lines) if not l.startswith("#")]
            lines.insert(body[10], "this is not an event line\n")
            with open(p, "w") as f:
                f.writelines(lines)
            tr = trawl.open(p)
            self.assertEqual(tr.stats["bad_lines"], 1)
            with self.assertRaises(trawl.TrawlError) as cm:
                trawl.open(p, strict=True).df("*")
            self.assertEqual(cm.exception.line, body[10] + 1)
            self.assertIn(p, str(cm.exception))

    def test_bad_pattern_and_options(self):
        tr = trawl.open(fixture("tc.dat"))
        with self.assertRaises(trawl.TrawlError):
            tr.df("sched:")
        with self.assertRaises(TypeError):
            trawl.open(fixture("tc.dat"), no_such_option=1)
        with self.assertRaises(TypeError):
            tr.df([1, 2])

    def test_a_misspelt_event_names_the_nearest(self):
        # it was an empty frame, and apply read everything and called
        # nothing; a trace.dat says so before reading, a text trace
        # after a pass that met none
        for name in ("tc.dat", "ftrace-irqinfo.txt", "systrace.txt"):
            tr = trawl.open(fixture(name))
            called = []
            for call in (lambda: tr.df("sched_swtich"),
                         lambda: tr.dfs(["sched_switch", "sched_swtich"]),
                         lambda: tr.apply({"sched_swtich": called.append})):
                with self.assertRaisesRegex(
                        trawl.TrawlError,
                        "no event 'sched_swtich'.*did you mean "
                        "'sched_switch'"):
                    call()
            self.assertEqual(called, [])
            # a real event that did not happen is an empty frame, a glob
            # that matches nothing too
            self.assertEqual(len(tr.df("mm_page_alloc")), 0, name)
            self.assertEqual(len(tr.df("nosuch_*")), 0, name)
            self.assertGreater(len(tr.df("sched:sched_switch")), 0, name)

    def test_worst_is_the_commands(self):
        # --worst takes 1 to 10000: 0 gave 10 rows and 10**6 10000, unsaid
        tr = trawl.open(fixture("tc.dat"))
        for bad in (0, -1, 10001, 10**6, 2.5, "3", True):
            with self.assertRaisesRegex(ValueError, "from 1 to 10000"):
                tr.latency("wakeup", table="worst", worst=bad)
            with self.assertRaisesRegex(ValueError, "from 1 to 10000"):
                tr.irq(table="worst", worst=bad)
        self.assertEqual(len(tr.latency("wakeup", table="worst", worst=3)), 3)
        self.assertGreater(len(tr.latency("wakeup", table="worst",
                                          worst=10000)), 3)

    def test_damaged_files_do_not_crash(self):
        rnd = random.Random(13)
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name in ["tc.dat", "pair-broad.dat"]:
                data = read(fixture(name))
                for i, cut in enumerate(sorted(rnd.sample(
                        range(1, len(data)), 12))):
                    p = os.path.join(d, "%s.cut%d" % (name, i))
                    write(p, data[:cut])
                    paths.append(p)
                for i in range(8):
                    b = bytearray(data)
                    for _ in range(16):
                        b[rnd.randrange(len(b))] = rnd.randrange(256)
                    p = os.path.join(d, "%s.flip%d" % (name, i))
                    write(p, bytes(b))
                    paths.append(p)
            p = os.path.join(d, "random.bin")
            write(p, bytes(rnd.randrange(256) for _ in range(4096)))
            paths.append(p)
            gz = read(fixture("ftrace-irqinfo.txt.gz"))
            p = os.path.join(d, "cut.txt.gz")
            write(p, gz[:len(gz) // 2])
            paths.append(p)
            r = subprocess.run([sys.executable, "-c", CHILD] + paths,
                               capture_output=True, text=True,
                               env=os.environ)
            self.assertEqual(r.returncode, 0, r.stderr[-3000:])
            out = r.stdout.splitlines()
            self.assertEqual(len(out), len(paths), r.stderr[-3000:])
            errors = [l for l in out if l.startswith("error")]
            # the cut headers raise; a cut in the data reads what is there
            self.assertTrue(errors)
            self.assertTrue([l for l in out if l.startswith("ok")])
            for l in errors:
                self.assertIn(l.split()[2], l.split(None, 3)[3])


class ThreadsTest(unittest.TestCase):
    def test_frames_from_threads(self):
        # reading releases the GIL: two threads read at once, same answers
        import threading
        tr = trawl.open(fixture("pair-broad.dat"))
        want = len(tr.df("*"))
        got = []
        ts = [threading.Thread(target=lambda: got.append(len(tr.df("*"))))
              for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(got, [want] * 4)


if __name__ == "__main__":
    unittest.main()
