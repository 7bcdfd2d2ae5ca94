# SPDX-License-Identifier: MIT
"""Windows (start=, end=) on every query, in the forms a notebook has at
hand (ns ints, seconds, the command line's strings, offsets from the first
event), read by the library's ranged runs; and relative=True."""
import datetime
import unittest

import numpy as np
import pandas as pd

import trawl
from helpers import fixture, cli_csv

RANGED = ["tc.dat", "tc-v6.dat", "ftrace-irqinfo.txt", "pair-broad.txt"]


def seconds(ns):
    return "%d.%09d" % divmod(ns, 10**9)


class WindowTest(unittest.TestCase):
    def window_of(self, tr):
        lo, hi = tr.span
        return lo + (hi - lo) // 4, hi - (hi - lo) // 3

    def test_df_window_is_the_whole_frame_cut(self):
        for name in RANGED:
            with self.subTest(name):
                tr = trawl.open(fixture(name))
                lo, hi = self.window_of(tr)
                whole = tr.df("*")
                want = whole[(whole["time"] >= lo) & (whole["time"] <= hi)]
                got = tr.df("*", start=lo, end=hi)
                self.assertGreater(len(got), 0)
                self.assertEqual(len(got), len(want))
                for c in ["time", "cpu", "pid", "event"]:
                    self.assertEqual(got[c].astype(str).tolist(),
                                     want[c].astype(str).tolist(), c)
                # the window's events numbered from 0 in record order
                self.assertEqual(got["seq"].tolist(),
                                 list(range(len(got))))

    def test_forms_agree(self):
        tr = trawl.open(fixture("tc.dat"))
        lo, hi = self.window_of(tr)
        first = tr.start_time
        n = len(tr.df("sched_switch", start=lo, end=hi))
        forms = [
            (np.int64(lo), np.int64(hi)),
            (seconds(lo), seconds(hi)),
            ("%dns" % lo, "%dus" % (hi // 1000 + 1)),
            ("+%dns" % (lo - first), "+%.9f" % ((hi - first) / 1e9)),
            (datetime.timedelta(microseconds=(lo - first) / 1000),
             pd.Timedelta(hi - first, "ns")),
            (np.timedelta64(lo - first, "ns"), "+%dns" % (hi - first)),
        ]
        for start, end in forms:
            with self.subTest(repr((start, end))):
                self.assertEqual(
                    len(tr.df("sched_switch", start=start, end=end)), n)
        # a float is seconds, taken at its shortest decimal
        s = tr.df("sched_switch", start=float(seconds(lo)), end=None)
        self.assertEqual(s["time"].min(),
                         tr.df("sched_switch", start=lo)["time"].min())

    def test_bad_windows(self):
        tr = trawl.open(fixture("tc.dat"))
        for bad in ["abc", "12 parsecs", "1..2", float("nan"), True,
                    [1], "+"]:
            with self.subTest(repr(bad)):
                with self.assertRaisesRegex((ValueError, TypeError),
                                            "start: a trace time"):
                    tr.df("sched_switch", start=bad)
        with self.assertRaisesRegex(ValueError, "before start"):
            tr.latency("wakeup", start="5", end="4")

    def test_relative(self):
        path = fixture("tc.dat")
        tr = trawl.open(path)
        rel = trawl.open(path, relative=True)
        self.assertEqual(rel.start_time, tr.stats["first_time"])
        whole = rel.df("*")
        self.assertEqual(whole["time"].iloc[0], 0)
        lo, hi = self.window_of(tr)
        first = tr.start_time
        a = tr.df("sched_switch", start=lo, end=hi)
        b = rel.df("sched_switch", start=lo - first, end=hi - first)
        self.assertEqual((a["time"] - first).tolist(), b["time"].tolist())
        c = rel.df("sched_switch", start=(lo - first) / 1e9)
        self.assertEqual(c["time"].iloc[0], b["time"].iloc[0])
        w = rel.latency("wakeup", table="worst")
        w0 = tr.latency("wakeup", table="worst")
        self.assertEqual((w0["start"] - first).tolist(), w["start"].tolist())
        r = rel.latency("wakeup")
        r0 = tr.latency("wakeup")
        self.assertEqual(r["max_at"].iloc[1], r0["max_at"].iloc[1] - first)
        st = rel.task_states()
        self.assertGreaterEqual(st["start"].min(), 0)
        self.assertEqual(rel.sched().attrs["end"],
                         tr.sched().attrs["end"] - first)

    def test_analyses_windows_equal_the_command(self):
        from test_analyses import same
        for name in ["tc.dat", "ftrace-irqinfo.txt"]:
            with self.subTest(name):
                path = fixture(name)
                tr = trawl.open(path)
                lo, hi = self.window_of(tr)
                cli_win = ["--from", seconds(lo), "--to", seconds(hi)]
                same(self, tr.latency("wakeup", start=seconds(lo),
                                      end=seconds(hi)),
                     cli_csv("latency", "wakeup", "--csv", *cli_win, path))
                same(self, tr.irq(start=lo, end=hi),
                     cli_csv("irq", "--csv", *cli_win, path))
                got = tr.sched(start=lo, end=hi)
                want = cli_csv("sched", "--csv", *cli_win, path)
                self.assertEqual(got["run"].fillna(-1).tolist(),
                                 want["run"].fillna(-1).tolist())

    def test_apply_run_chart_windows(self):
        tr = trawl.open(fixture("tc.dat"))
        lo, hi = self.window_of(tr)
        n = len(tr.df("sched_switch", start=lo, end=hi))
        seen = []
        tr.apply({"sched_switch": lambda ev: seen.append(ev.time)},
                 start=lo, end=hi)
        self.assertEqual(len(seen), n)
        self.assertTrue(lo <= min(seen) and max(seen) <= hi)
        res = tr.run("sched_switch { @n = count() }", start=lo, end=hi)
        self.assertEqual(int(res["@n"]["value"].iloc[0]), n)
        a = tr.chart(start=lo, end=hi, width=300)
        b = tr.chart(start=seconds(lo), end=seconds(hi), width=300)
        self.assertEqual(a.svg, b.svg)


if __name__ == "__main__":
    unittest.main()
