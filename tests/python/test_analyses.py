# SPDX-License-Identifier: MIT
"""The analyses as DataFrames equal the commands' --csv tables (and their
--json worst lists and anomalies) on the same fixtures."""
import tempfile
import unittest

import pandas as pd

import trawl
from helpers import fixture, cli_csv, cli_json


def same(test, got, want):
    """got (ours) and want (pandas.read_csv of the command's --csv) hold
    the same columns and cells."""
    test.assertEqual(list(got.columns), list(want.columns))
    test.assertEqual(len(got), len(want))
    for c in got.columns:
        a = [None if pd.isna(v) else v for v in got[c].astype(object)]
        b = [None if pd.isna(v) else v for v in want[c].astype(object)]
        b = [int(v) if isinstance(v, float) and v == int(v) else v
             for v in b]
        a = [str(v) if isinstance(v, str) else v for v in a]
        b = [str(v) if isinstance(v, str) else v for v in b]
        test.assertEqual(a, b, c)


class AnalysesTest(unittest.TestCase):
    def test_latency(self):
        for name in ["tc.dat", "pair-broad.dat", "ftrace-irqinfo.txt"]:
            for kind in ["wakeup", "preempt"]:
                with self.subTest(name + " " + kind):
                    path = fixture(name)
                    tr = trawl.open(path)
                    same(self, tr.latency(kind),
                         cli_csv("latency", kind, "--csv", path))
                    worst = tr.latency(kind, table="worst")
                    want = cli_json("latency", kind, "--json", path)
                    self.assertEqual(
                        worst[["start", "end", "duration", "pid", "cpu",
                               "from_cpu", "name"]].values.tolist(),
                        [[w["start"], w["end"], w["duration"], w["pid"],
                          w["cpu"], w["from_cpu"], w["comm"]]
                         for w in want["worst"]])

    def test_latency_filters(self):
        path = fixture("tc.dat")
        tr = trawl.open(path)
        # comm=: the tasks that had the name at any time, as --pid of
        # them all
        pids = ",".join(map(str, tr.pids("Chrome_IOThread")))
        same(self, tr.latency("wakeup", comm="Chrome_IOThread", worst=3),
             cli_csv("latency", "wakeup", "--csv", "--pid", pids,
                     "--worst", "3", path))
        # nothing measured: no min, percentiles or max, not 0 (as the
        # command's empty CSV cells and JSON nulls)
        none = tr.latency("wakeup", pid=424242)
        same(self, none, cli_csv("latency", "wakeup", "--csv", "--pid",
                                 "424242", path))
        self.assertEqual(none["count"].tolist(), [0])
        for c in ("min", "p50", "p90", "p99", "max"):
            self.assertTrue(pd.isna(none[c][0]), c)
        self.assertEqual(none["total"].tolist(), [0])
        j = cli_json("latency", "wakeup", "--json", "--pid", "424242", path)
        self.assertIsNone(j["overall"]["max"])
        t0 = tr.span[0] + 5000000
        same(self, tr.latency("wakeup", start=t0),
             cli_csv("latency", "wakeup", "--csv", "--from",
                     "%.9f" % (t0 / 1e9), path))

    def test_irq(self):
        for name in ["ftrace-irqinfo.txt", "tc.dat", "pair-broad.txt"]:
            with self.subTest(name):
                path = fixture(name)
                df = trawl.open(path).irq(threshold=10000)
                same(self, df, cli_csv("irq", "--csv", "--threshold",
                                       "10us", path))
                want = cli_json("irq", "--json", "--threshold", "10us", path)
                self.assertEqual(df.attrs["long"], want["long_count"])
                # the worst handlers say which kind they were: irq 9 and
                # softirq 9 (RCU) are other handlers
                worst = trawl.open(path).irq(table="worst")
                self.assertEqual(
                    worst[["kind", "start", "end", "pid", "cpu", "irq",
                           "name"]].values.tolist(),
                    [[w["kind"], w["start"], w["end"], w["pid"], w["cpu"],
                      w["irq"], w["name"]] for w in want["worst"]])
                self.assertTrue(set(worst["kind"]) <= {"hardirq",
                                                       "softirq"})
                an = trawl.open(path).irq(table="anomalies")
                self.assertEqual(an[["what", "count", "first"]].values
                                 .tolist(),
                                 [[a["what"], a["count"], a["first"]]
                                  for a in want["anomalies"]])

    def test_workqueue(self):
        for name in ["tc.dat", "pair-broad.dat"]:
            with self.subTest(name):
                path = fixture(name)
                want = cli_csv("workqueue", "--csv", path)
                # a work function has no id: the CSV's column is empty
                self.assertTrue(want["id"].isna().all())
                same(self, trawl.open(path).workqueue(),
                     want.drop(columns=["id"]))

    def test_slices(self):
        for name in ["systrace.txt", "pair-broad.dat"]:
            with self.subTest(name):
                path = fixture(name)
                tr = trawl.open(path)
                same(self, tr.slices(), cli_csv(
                    "slices", "--csv", path).rename(columns={"id": "pid"}))
                # the instances' id: a slice's depth, an async's cookie
                worst = tr.slices(table="worst", worst=10000)
                want = cli_json("slices", "--json", "--worst", "10000",
                                path)
                refs = {"slices": want["worst"],
                        "async": want["async"]["worst"]}
                for part, col in (("slices", "depth"), ("async", "cookie")):
                    got = worst[worst["part"] == part]
                    other = "cookie" if col == "depth" else "depth"
                    self.assertTrue(got[col].notna().all(), part)
                    self.assertTrue(got[other].isna().all(), part)
                    self.assertEqual(
                        sorted(zip(got["start"], got[col])),
                        sorted((w["start"], w[col]) for w in refs[part]),
                        part)

    def test_sched(self):
        for name in ["tc.dat", "pair-broad.dat", "ftrace-irqinfo.txt"]:
            with self.subTest(name):
                path = fixture(name)
                df = trawl.open(path).sched()
                want = cli_csv("sched", "--csv", path)
                # the CSV's id: the pid of a task row, the cpu of a CPU row
                want.insert(1, "pid", want["id"].where(want.kind == "task"))
                want.insert(2, "cpu", want["id"].where(want.kind == "cpu"))
                same(self, df, want.drop(columns=["id"]))
                want = cli_json("sched", "--json", path)
                self.assertEqual((df.attrs["start"], df.attrs["end"],
                                  df.attrs["migrations_from"]),
                                 (want["start"], want["end"],
                                  want["migrations_from"]))
                an = trawl.open(path).sched(table="anomalies")
                self.assertEqual(
                    [(a.what, a.count, a.first) for a in an.itertuples()],
                    [(a["what"], a["count"], a["first"])
                     for a in want["anomalies"]])
                self.assertEqual(df.attrs["anomalies"], an["count"].sum())
                # a CPU runs what it switched in until its next switch:
                # the tasks ran exactly as long as the CPUs were busy
                tasks = df[df.kind == "task"]
                cpus = df[df.kind == "cpu"]
                self.assertEqual(tasks.run.sum(), cpus.busy.sum())

    def test_sched_a_missing_switch_out_ends_at_the_next_switch(self):
        # pair-broad: pid 69's switch-out is not in the trace; the CPU's
        # next sched_switch (prev_pid another task) ends its run: 0.678 ms
        # by the CPU lanes (tests/analysis/check-sched-lanes.py), not the
        # 38.5 ms to the end of the trace it had before
        for name in ["pair-broad.txt", "pair-broad.dat"]:
            with self.subTest(name):
                df = trawl.open(fixture(name)).sched()
                run = df[(df.kind == "task") & (df.pid == 69)].run.iloc[0]
                self.assertLess(abs(run - 678000), 1000, run)
                self.assertGreater(df.attrs["anomalies"], 0)

    def test_comm_and_pid_across_a_rename(self):
        # ftrace-irqinfo.txt: pid 15774 was record-fixtures, then (exec)
        # trawl-workload; 15775 and 15777 were trawl-workload, then
        # (prctl) Web Content and Binder:543_2. comm= and a name in pid=
        # select them all, with their events under every name: what
        # --comm (the name at each event) misses
        path = fixture("ftrace-irqinfo.txt")
        tr = trawl.open(path)
        pids = tr.pids("trawl-workload")
        self.assertEqual(pids, [15774, 15775, 15777])
        want = cli_csv("latency", "wakeup", "--csv", "--pid",
                       ",".join(map(str, pids)), path)
        for kw in ({"comm": "trawl-workload"}, {"pid": "trawl-workload"},
                   {"pid": pids}, {"pid": ["trawl-workload"],
                                   "comm": ["trawl-workload"]}):
            with self.subTest(kw):
                got = tr.latency("wakeup", **kw)
                same(self, got, want)
                self.assertIn("Web Content", set(got["comm"].dropna()))
        at_the_time = cli_csv("latency", "wakeup", "--csv", "--comm",
                              "trawl-workload", path)
        self.assertLess(at_the_time["count"][0], want["count"][0])
        # every analysis with a task takes them so
        for fn in (tr.irq, tr.workqueue, tr.slices):
            self.assertEqual(fn(comm="trawl-workload")["count"][0],
                             fn(pid=pids)["count"][0])
        sched = tr.sched(comm="trawl-workload")
        self.assertEqual(sorted(sched.loc[sched.kind == "task", "pid"]),
                         pids)
        # both: the tasks both select
        both = tr.latency("wakeup", pid=[15775, 15776],
                          comm="trawl-workload")
        self.assertEqual(both["pid"].dropna().tolist(), [15775])
        with self.assertRaisesRegex(ValueError, "did you mean "
                                                "'trawl-workload'"):
            tr.latency("wakeup", comm="trawl-wrkload")
        with self.assertRaises(TypeError):
            tr.latency("wakeup", pid=True)
        with self.assertRaises(TypeError):
            tr.latency("wakeup", comm=15774)

    def test_power(self):
        # cpu-idle.txt: real kernel text, cpu 0 in and out of idle state 1;
        # a hand-made kernel text for the frequencies (this VM has no
        # cpufreq): cpu 0 at 1.8 GHz, then 600 MHz (set twice), then 1.8
        # GHz again; cpu 1 at 2400.5 MHz
        freq = "".join(
            "  kw-5 [00%d] d..2.  %s: cpu_frequency: state=%d cpu_id=%d\n"
            % (cpu, ts, khz, target) for cpu, ts, khz, target in [
                (0, "1.000000", 1800000, 0), (1, "1.004000", 600000, 0),
                (1, "1.005000", 600000, 0), (1, "1.006000", 2400500, 1),
                (1, "1.008000", 1800000, 0), (1, "1.010000", 1800000, 0)])
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
            f.write(freq)
            f.flush()
            for path, method, part, key, label in [
                    (fixture("cpu-idle.txt"), "idle_residency", "idle",
                     "state", "name"),
                    (f.name, "frequency_residency", "frequency", "khz",
                     "frequency")]:
                with self.subTest(path):
                    tr = trawl.open(path)
                    df = getattr(tr, method)()
                    j = cli_json("power", "--json", path)
                    rows = j["cpus"] if part == "frequency" else \
                        j[part]["cpus"]
                    self.assertTrue(len(rows))
                    self.assertEqual(
                        df[["cpu", key, label, "count", "total"]]
                        .assign(share=df.share.round(6)).values.tolist(),
                        [[r["cpu"], r[key], r["name" if part == "idle"
                                              else "frequency"],
                          r["count"], r["total"], round(r["share"], 6)]
                         for r in rows])
                    for cpu, g in df.groupby("cpu"):
                        self.assertAlmostEqual(g.share.sum(), 1.0)
                    every = getattr(tr, method)(table="all")
                    self.assertEqual(len(every), df["count"].sum())
                    sums = every.groupby(["cpu", key]).duration.sum()
                    self.assertEqual(
                        sums.to_dict(),
                        {(r[0], r[1]): r[2] for r in
                         df[["cpu", key, "total"]].values.tolist()})
            fr = trawl.open(f.name).frequency_residency()
            self.assertEqual(fr[["cpu", "khz", "frequency", "count",
                                 "total"]].values.tolist(),
                             [[0, 600000, "600 MHz", 1, 4000000],
                              [0, 1800000, "1800 MHz", 2, 6000000],
                              [1, 2400500, "2400.500 MHz", 1, 4000000]])
        idle = trawl.open(fixture("cpu-idle.txt"))
        # a window: what --from/--to give (the first event is at
        # 1148.458174)
        late = idle.idle_residency(start="+0.1", end="+0.2")
        j = cli_json("power", "--json", "--from", "1148.558174", "--to",
                     "1148.658174", fixture("cpu-idle.txt"))
        self.assertEqual(late[["state", "total"]].values.tolist(),
                         [[r["state"], r["total"]] for r in j["idle"]["cpus"]])
        self.assertLessEqual(late.total.sum(), 100_000_000)
        with self.assertRaises(ValueError):
            idle.idle_residency(table="nope")

    def test_bad_arguments(self):
        tr = trawl.open(fixture("tc.dat"))
        with self.assertRaises(ValueError):
            tr.latency("nope")
        with self.assertRaises(ValueError):
            tr.irq(table="nope")


if __name__ == "__main__":
    unittest.main()
