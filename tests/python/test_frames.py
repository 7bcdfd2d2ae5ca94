# SPDX-License-Identifier: MIT
"""Trace.df(), dfs(), events, span: the frames against `trawl report
--json` (every field of every event) and `trawl stats --json`, on a
trace.dat and ftrace text; and one recording read as text and as trace.dat
(pair-broad) gives the same frames."""
import unittest

import numpy as np
import pandas as pd

import trawl
from helpers import fixture, cli_json, report, cell

BASE = ["seq", "time", "cpu", "pid", "comm"]


def rename(k):
    return "field_" + k if k in BASE + ["event"] else k


class StatsTest(unittest.TestCase):
    def test_events_span_lost_as_stats(self):
        for name in ["tc.dat", "ftrace-irqinfo.txt", "pair-broad.dat",
                     "lost-events.txt"]:
            with self.subTest(name):
                path = fixture(name)
                want = cli_json("stats", "--json", path)
                tr = trawl.open(path)
                self.assertEqual(tr.events, want["events"])
                self.assertEqual(sum(tr.events.values()), want["total_events"])
                self.assertEqual(tr.span, (want["first_time"],
                                           want["last_time"]))
                self.assertEqual(tr.lost_events, want["lost_events"])
                self.assertEqual(tr.stats["bad_lines"], want["bad_lines"])


class FrameTest(unittest.TestCase):
    def check_against_report(self, path, events):
        tr = trawl.open(path)
        df = tr.df(events.split(",") if "," in events else events)
        want = report(path, events)
        self.assertEqual(len(df), len(want))
        multi = "," in events or "*" in events
        tgid = "tgid" in df.columns
        base = BASE[:4] + ["tgid"] + BASE[4:] if tgid else BASE
        self.assertEqual(list(df.columns[:len(base)]), base)
        if multi:
            self.assertEqual(df.columns[len(base)], "event")
        rows = df.to_dict("records")
        names = set()
        for row, ev in zip(rows, want):
            for k in BASE:
                self.assertEqual(cell(row[k]), ev[k], (k, ev))
            if multi:
                self.assertEqual(row["event"], ev["event"])
            for k, v in ev["fields"].items():
                names.add(rename(k))
                self.assertEqual(cell(row[rename(k)]), v, (k, ev))
            # a field this event does not have is missing
            mine = set(rename(k) for k in ev["fields"])
            for c in df.columns[len(base) + multi:]:
                if c not in mine:
                    self.assertIsNone(cell(row[c]), (c, ev))
        self.assertEqual(set(df.columns[len(base) + multi:]), names)
        return df

    def test_sched_switch_dat(self):
        df = self.check_against_report(fixture("tc.dat"), "sched_switch")
        self.assertEqual(list(df.columns), BASE + [
            "prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm",
            "next_pid", "next_prio"])
        self.assertEqual(df["time"].dtype, np.int64)
        for c in ["comm", "prev_comm", "next_comm"]:
            self.assertIsInstance(df[c].dtype, pd.CategoricalDtype)
        self.assertTrue((np.diff(df["time"].values) >= 0).all())

    def test_tgid_where_the_source_has_it(self):
        for name in ["ftrace-tgid.txt", "systrace.txt"]:
            with self.subTest(name):
                path = fixture(name)
                df = trawl.open(path).df("*")
                self.assertEqual(list(df.columns[:6]),
                                 BASE[:4] + ["tgid", "comm"])
                self.assertEqual(str(df["tgid"].dtype), "Int64")
                want = report(path, "*")
                # the report's tgid per event; missing where the line
                # had "-------"
                self.assertEqual(
                    [cell(v) for v in df["tgid"]],
                    [ev.get("tgid") if ev.get("tgid", -1) >= 0 else None
                     for ev in want])
                self.assertGreater(df["tgid"].notna().sum(), 0)
        # a source without it has no such column
        self.assertNotIn("tgid", trawl.open(fixture("tc.dat")).df("*"))

    def test_sched_wakeup_fields_named_like_base(self):
        df = self.check_against_report(fixture("tc.dat"), "sched_wakeup")
        self.assertIn("field_pid", df.columns)
        self.assertIn("field_comm", df.columns)

    def test_every_event_dat(self):
        self.check_against_report(fixture("tc.dat"), "*")

    def test_every_event_text(self):
        self.check_against_report(fixture("ftrace-irqinfo.txt"), "*")

    def test_list_is_one_order_with_missing_fields(self):
        df = self.check_against_report(fixture("pair-broad.dat"),
                                       "sched_switch,sched_wakeup")
        sw = df[df["event"] == "sched_switch"]
        wk = df[df["event"] == "sched_wakeup"]
        self.assertTrue(sw["target_cpu"].isna().all())
        self.assertTrue(wk["next_pid"].isna().all())
        self.assertFalse(sw["next_pid"].isna().any())
        self.assertEqual(str(df["next_pid"].dtype), "Int64")
        # the delivered order: time, then seq among equal times
        t, s = df["time"].values, df["seq"].values
        ok = (t[1:] > t[:-1]) | ((t[1:] == t[:-1]) & (s[1:] > s[:-1]))
        self.assertTrue(ok.all())

    def test_glob_and_overlapping_patterns_once(self):
        tr = trawl.open(fixture("tc.dat"))
        a = tr.df("sched_*")
        b = tr.df(["sched_*", "sched_switch"])
        self.assertEqual(len(a), sum(n for k, n in tr.events.items()
                                     if k.startswith("sched_")))
        pd.testing.assert_frame_equal(a, b)

    def test_dfs_is_df_of_each(self):
        tr = trawl.open(fixture("tc.dat"))
        names = ["sched_switch", "sched_waking", "irq:*"]
        got = tr.dfs(names)
        self.assertEqual(list(got), names)
        for n in names:
            pd.testing.assert_frame_equal(got[n], tr.df(n))

    def test_labels_as_report(self):
        for name in ["tc.dat", "ftrace-irqinfo.txt", "pair-broad.dat"]:
            with self.subTest(name):
                path = fixture(name)
                df = trawl.open(path).df("*", labels=True)
                want = report(path, "*")
                self.assertEqual(len(df), len(want))
                labelled = [c for c in df.columns if c.endswith("_label")]
                self.assertTrue(labelled)
                for c in labelled:  # right after its field
                    i = list(df.columns).index(c)
                    self.assertEqual(df.columns[i - 1] + "_label", c)
                n = 0
                for row, ev in zip(df[labelled].to_dict("records"), want):
                    got = {c[:-6]: v for c, v in row.items()
                           if cell(v) is not None}
                    exp = {rename(k): v for k, v in
                           ev.get("labels", {}).items()}
                    self.assertEqual(got, exp, ev)
                    n += len(got)
                self.assertGreater(n, 50)
        plain = trawl.open(fixture("tc.dat")).df("sched_switch")
        self.assertNotIn("prev_state_label", plain.columns)

    def test_unknown_event_raises_a_known_one_is_empty(self):
        tr = trawl.open(fixture("tc.dat"))
        with self.assertRaisesRegex(trawl.TrawlError, "no_such_event"):
            tr.df("no_such_event")
        # an event of the kernel that was not recorded: no rows
        df = tr.df("block_rq_issue")
        self.assertEqual(len(df), 0)
        self.assertEqual(list(df.columns), BASE)


class AppEventsTest(unittest.TestCase):
    """An application's ring channel (app-demo.dat, `trawl record --app
    demo` of examples/ring-demo): its events by system:name, with the
    typed fields its types declared, as the report has them and as many
    per thread as ring-demo said it wrote (app-demo.written)."""

    check_against_report = FrameTest.check_against_report

    def written(self):
        out = {}
        with open(fixture("app-demo.written")) as f:
            for line in f:
                w = line.split()
                out[int(w[4])] = {w[i]: int(w[i + 1])
                                  for i in range(5, len(w), 2)}
        return out

    def test_frame_typed_fields(self):
        df = self.check_against_report(fixture("app-demo.dat"), "demo:frame")
        self.assertEqual(list(df.columns),
                         BASE + ["id", "thread", "work_ns", "stage"])
        for c in ["id", "thread", "work_ns"]:  # the ring's U32, U32, U64
            self.assertEqual(df[c].dtype, np.uint64, c)
        self.assertIsInstance(df["stage"].dtype, pd.CategoricalDtype)
        self.assertEqual(set(df["stage"]), {"layout", "paint", "composite"})
        self.assertEqual(df.groupby("pid").size().to_dict(),
                         {t: w["frames"] for t, w in self.written().items()})
        # each thread numbers its frames 0, 1, 2...
        for _, g in df.groupby("pid"):
            self.assertEqual(list(g["id"]), list(range(len(g))))

    def test_builtin_types(self):
        tr = trawl.open(fixture("app-demo.dat"))
        c = self.check_against_report(fixture("app-demo.dat"), "demo:counter")
        self.assertEqual(list(c.columns), BASE + ["value", "name"])
        self.assertEqual(c["value"].dtype, np.int64)
        w = self.written()
        self.assertEqual(len(c), sum(x["counters"] for x in w.values()))
        b = tr.df("demo:slice_begin")
        self.assertEqual(b.groupby("pid").size().to_dict(),
                         {t: x["slices"] for t, x in w.items()})


class PairTest(unittest.TestCase):
    """pair-broad.txt and .dat are one recording: for every event type the
    same columns, rows and values, but for the text's microsecond times and
    the fields it printed in a form that lost them (display_only)."""

    def test_same_frames(self):
        t = trawl.open(fixture("pair-broad.txt"))
        d = trawl.open(fixture("pair-broad.dat"))
        self.assertEqual(t.events, d.events)
        names = sorted(t.events)
        ft, fd = t.dfs(names), d.dfs(names)
        compared = 0
        for n in names:
            a, b = ft[n], fd[n]
            with self.subTest(n):
                self.assertEqual(list(a.columns), list(b.columns))
                self.assertEqual(len(a), len(b))
                skip = set(a.attrs["display_only"]) | set(
                    b.attrs["display_only"])
                # the kernel prints us rounded from ns
                a = a.assign(us=a["time"] // 1000)
                b = b.assign(us=(b["time"] + 500) // 1000)
                key = ["us", "cpu", "pid"]
                a = a.sort_values(key, kind="stable").reset_index(drop=True)
                b = b.sort_values(key, kind="stable").reset_index(drop=True)
                for c in a.columns:
                    if c in ("seq", "time") or c in skip:
                        continue
                    if not isinstance(a[c].dtype, pd.CategoricalDtype):
                        self.assertEqual(a[c].dtype, b[c].dtype, c)
                    self.assertEqual(list(a[c].astype(object)),
                                     list(b[c].astype(object)), c)
                    compared += 1
        self.assertGreater(compared, 200)


if __name__ == "__main__":
    unittest.main()
