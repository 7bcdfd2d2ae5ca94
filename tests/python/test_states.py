# SPDX-License-Identifier: MIT
"""Per-state and per-instance frames: task_states() adds up to `trawl
sched`'s times, task by task and state by state, and its D intervals are
the trace's D switch-outs; table="all" is every instance the summaries
count (the rows' count, max and total, the worst list its top)."""
import unittest

import pandas as pd

import trawl
from helpers import fixture, cli_csv, cli_json

TRACES = ["tc.dat", "pair-broad.dat", "ftrace-irqinfo.txt",
          "lost-events-trace.txt"]


def state_sums(states):
    g = states.groupby(["pid", "state"], observed=True)["duration"].sum()
    return g.unstack(fill_value=0)


class TaskStatesTest(unittest.TestCase):
    def check_sums(self, path, *window):
        tr = trawl.open(path)
        kw = dict(zip(("start", "end"), window))
        states = tr.task_states(**kw)
        args = ["sched", "--csv"]
        if window:
            args += ["--from", "%dns" % window[0], "--to",
                     "%dns" % window[1]]
        want = cli_csv(*args, path)
        want = want[want["kind"] == "task"]
        self.assertGreater(len(want), 0)
        sums = state_sums(states)
        for _, row in want.iterrows():
            pid = int(row["id"])
            got = sums.loc[pid] if pid in sums.index else {}
            self.assertEqual(
                (got.get("running", 0), got.get("runnable", 0),
                 got.get("sleeping", 0) + got.get("uninterruptible", 0)),
                (row["run"], row["runnable"], row["sleep"]),
                "pid %d" % pid)
        # no task outside sched's table, no pid 0 (idle is not a task)
        self.assertLessEqual(set(states["pid"]),
                             set(int(i) for i in want["id"]))
        return states

    def test_sums_equal_sched(self):
        for name in TRACES:
            with self.subTest(name):
                self.check_sums(fixture(name))

    def test_sums_in_a_window(self):
        path = fixture("tc.dat")
        lo, hi = trawl.open(path).span
        third = (hi - lo) // 3
        states = self.check_sums(path, lo + third, hi - third)
        self.assertGreaterEqual(states["start"].min(), lo + third)
        self.assertLessEqual(states["end"].max(), hi - third)

    def test_intervals_are_one_at_a_time(self):
        states = trawl.open(fixture("pair-broad.dat")).task_states()
        self.assertTrue(states["start"].is_monotonic_increasing)
        self.assertTrue((states["duration"] >= 0).all())
        for pid, g in states.groupby("pid"):
            g = g.sort_values(["start", "end"])
            # each state begins where (or after) the one before it ends
            self.assertTrue((g["start"].values[1:] >=
                             g["end"].values[:-1]).all(), pid)
        running = states[states["state"] == "running"]
        self.assertTrue((running["cpu"] >= 0).all())

    def test_uninterruptible_are_d_switch_outs(self):
        for name in ["ftrace-irqinfo.txt", "pair-broad.dat"]:
            with self.subTest(name):
                tr = trawl.open(fixture(name))
                sw = tr.df("sched_switch", labels=True)
                label = ("prev_state_label" if "prev_state_label" in sw
                         else "prev_state")
                d = sw[sw[label].astype(str) == "D"]
                self.assertGreater(len(d), 0)
                states = tr.task_states()
                blocked = states[states["state"] == "uninterruptible"]
                # each D interval starts at one of those switch-outs, by
                # the task switched out; the last D switch-out of a task
                # may be still open and closed at the end, or dropped
                # when a lost switch-in left the task unknown
                starts = set(zip(d["time"], d["prev_pid"]))
                self.assertTrue(len(blocked) > 0)
                for t, pid in zip(blocked["start"], blocked["pid"]):
                    self.assertIn((t, pid), starts)

    def test_comm_across_a_rename(self):
        path = fixture("ftrace-irqinfo.txt")
        tr = trawl.open(path)
        states = tr.task_states()
        # a task seen under two names (exec): record-fixtures, then
        # trawl-workload
        names = states.groupby("pid", observed=True)["comm"].nunique()
        renamed = names[names > 1].index
        self.assertGreater(len(renamed), 0)
        pid = int(renamed[0])
        comms = list(states.loc[states["pid"] == pid, "comm"].unique())
        later = tr.task_states(comm=comms[-1])
        self.assertEqual(
            len(later[later["pid"] == pid]),
            len(states[states["pid"] == pid]),
            "the intervals from before the rename are there")
        self.assertIn(comms[0],
                      set(later.loc[later["pid"] == pid, "comm"]))
        self.assertEqual(tr.task_states(pid=pid)["pid"].unique().tolist(),
                         [pid])

    def test_columns(self):
        states = trawl.open(fixture("tc.dat")).task_states()
        self.assertEqual(list(states.columns),
                         ["pid", "comm", "cpu", "state", "start", "end",
                          "duration"])
        self.assertEqual(list(states["state"].cat.categories),
                         ["running", "runnable", "sleeping",
                          "uninterruptible"])
        self.assertEqual(str(states["start"].dtype), "int64")


class TasksTest(unittest.TestCase):
    def test_tasks_and_renames(self):
        path = fixture("ftrace-irqinfo.txt")
        tr = trawl.open(path)
        tasks = tr.tasks()
        self.assertEqual(list(tasks.columns),
                         ["pid", "tgid", "comm", "first", "last", "events"])
        df = tr.df("*")
        # every event's own (pid, comm) is a row, with its first, last
        # and count of events
        own = df[df["pid"] > 0].groupby(["pid", "comm"], observed=True)[
            "time"].agg(["min", "max", "count"])
        for (pid, comm), r in own.iterrows():
            row = tasks[(tasks["pid"] == pid) & (tasks["comm"] == comm)]
            self.assertEqual(len(row), 1, (pid, comm))
            self.assertLessEqual(row["first"].iloc[0], r["min"])
            self.assertGreaterEqual(row["last"].iloc[0], r["max"])
            self.assertEqual(row["events"].iloc[0], r["count"])
        # the renamed task: a row per name, in order
        names = tasks.groupby("pid")["comm"].count()
        pid = int(names[names > 1].index[0])
        rows = tasks[tasks["pid"] == pid]
        self.assertTrue(rows["first"].is_monotonic_increasing)
        for comm in rows["comm"]:
            self.assertIn(pid, tr.pids(comm))
        self.assertEqual(tr.pids("no-such-task"), [])

    def test_dat_renames_from_the_fields(self):
        # trace.dat's headers name a pid by one saved cmdline; the
        # switches' prev_comm/next_comm say the name of the moment
        tr = trawl.open(fixture("tc.dat"))
        tasks = tr.tasks()
        sw = tr.df("sched_switch")
        for pid, comm in set(zip(sw["prev_pid"], sw["prev_comm"])):
            if pid > 0:
                self.assertEqual(len(tasks[(tasks["pid"] == pid) &
                                           (tasks["comm"] == comm)]), 1)

    def test_tgid(self):
        tasks = trawl.open(fixture("ftrace-tgid.txt")).tasks()
        self.assertGreater(tasks["tgid"].notna().sum(), 0)
        self.assertTrue(trawl.open(fixture("tc.dat")).tasks()["tgid"]
                        .isna().all())


class AllInstancesTest(unittest.TestCase):
    def check(self, rows, all_, worst=None):
        overall = rows.iloc[0]
        self.assertEqual(len(all_), overall["count"])
        if len(all_):
            self.assertEqual(all_["duration"].max(), overall["max"])
            self.assertEqual(all_["duration"].min(), overall["min"])
            self.assertEqual(all_["duration"].sum(), overall["total"])
        if worst is not None:
            top = sorted(all_["duration"], reverse=True)[:len(worst)]
            self.assertEqual(list(worst["duration"]), top)

    def test_latency_all(self):
        for name in TRACES:
            for kind in ["wakeup", "preempt"]:
                with self.subTest(name + " " + kind):
                    tr = trawl.open(fixture(name))
                    self.check(tr.latency(kind),
                               tr.latency(kind, table="all"),
                               tr.latency(kind, table="worst", worst=25))

    def test_latency_all_per_task(self):
        path = fixture("tc.dat")
        tr = trawl.open(path)
        rows = tr.latency("wakeup")
        all_ = tr.latency("wakeup", table="all")
        for _, r in rows.iloc[1:].iterrows():
            mine = all_[all_["pid"] == r["pid"]]
            self.assertEqual(len(mine), r["count"], r["pid"])
            self.assertEqual(mine["duration"].max(), r["max"])
        # every instance, not the worst 10,000 nor the worst 10
        want = cli_json("latency", "wakeup", "--json", path)
        self.assertEqual(len(all_), want["overall"]["count"])

    def test_irq_workqueue_slices_all(self):
        tr = trawl.open(fixture("tc.dat"))
        irq = tr.irq(table="all")
        self.check(tr.irq(), irq)
        self.assertEqual(set(irq["kind"].astype(str)),
                         {"hardirq", "softirq"})
        self.assertIn("long", irq.attrs)
        wq = tr.workqueue(table="all")
        for part in ["execution", "queue_delay"]:
            rows = tr.workqueue()
            rows = rows[rows["part"] == part]
            got = wq[wq["part"] == part]
            self.assertEqual(len(got), rows.iloc[0]["count"], part)
        sl = trawl.open(fixture("systrace.txt")).slices(table="all")
        rows = trawl.open(fixture("systrace.txt")).slices()
        for part in ["slices", "async"]:
            want = rows[(rows["part"] == part) &
                        (rows["kind"] == "overall")]
            self.assertEqual(len(sl[sl["part"] == part]),
                             want.iloc[0]["count"], part)

    def test_bad_table(self):
        tr = trawl.open(fixture("tc.dat"))
        with self.assertRaisesRegex(ValueError, "'all'"):
            tr.latency("wakeup", table="everything")


if __name__ == "__main__":
    unittest.main()
