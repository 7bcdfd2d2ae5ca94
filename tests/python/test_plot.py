# SPDX-License-Identifier: MIT
"""trawl.plot draws what the frames hold: the histogram's bars count every
instance, the CDF ends at 1 with the tables' percentiles marked, the
residency bars are sched()'s times, the state bars are task_states()'
intervals, the frequency steps are the cpu_frequency events. Headless
(Agg)."""
import os
import tempfile
import unittest

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import trawl  # noqa: E402
import trawl.plot  # noqa: E402
from helpers import fixture  # noqa: E402

FREQ = """# tracer: nop
#
          <idle>-0       [000] d..1.   100.000000: cpu_frequency: state=800000 cpu_id=0
          <idle>-0       [001] d..1.   100.001000: cpu_frequency: state=1200000 cpu_id=1
          <idle>-0       [000] d..1.   100.002000: cpu_frequency: state=2400000 cpu_id=0
          <idle>-0       [000] d..1.   100.005000: cpu_frequency: state=1600000 cpu_id=0
"""


class PlotTest(unittest.TestCase):
    def tearDown(self):
        plt.close("all")

    def test_latency_hist_counts_every_instance(self):
        tr = trawl.open(fixture("pair-broad.dat"))
        ax = trawl.plot.latency_hist(tr, "wakeup", bins=20, log=False)
        heights = sum(p.get_height() for p in ax.patches)
        self.assertEqual(heights, tr.latency("wakeup")["count"][0])
        self.assertEqual(len(ax.patches), 20)

    def test_latency_cdf(self):
        tr = trawl.open(fixture("tc.dat"))
        ax = trawl.plot.latency_cdf(tr, "wakeup")
        x, y = ax.lines[0].get_data()
        self.assertEqual(y[-1], 1.0)
        rows = tr.latency("wakeup")
        self.assertAlmostEqual(x[-1], rows["max"][0] / 1000)
        marks = [t.get_text() for t in ax.texts]
        self.assertIn("p50 %.0f" % (rows["p50"][0] / 1000), marks)
        self.assertIn("p99 %.0f" % (rows["p99"][0] / 1000), marks)

    def test_residency_bars_are_sched(self):
        tr = trawl.open(fixture("tc.dat"))
        s = tr.sched()
        tasks = s[s["kind"] == "task"].head(5)
        ax = trawl.plot.residency(tr, top=5)
        run = [p.get_height() for p in ax.patches[:5]]
        np.testing.assert_allclose(run, tasks["run"].to_numpy(float) / 1e6)
        ax = trawl.plot.residency(tr, by="cpu")
        cpus = s[s["kind"] == "cpu"]
        busy = [p.get_height() for p in ax.patches[:len(cpus)]]
        np.testing.assert_allclose(busy, cpus["busy"].to_numpy(float) / 1e6)
        with self.assertRaises(ValueError):
            trawl.plot.residency(tr, by="irq")

    def test_task_states_bars_are_the_intervals(self):
        tr = trawl.open(fixture("ftrace-irqinfo.txt"))
        pid = int(tr.sched().query("kind == 'task'")["pid"].iloc[0])
        ax = trawl.plot.task_states(tr, pid=pid)
        bars = sum(len(c.get_paths()) for c in ax.collections)
        self.assertEqual(bars, len(tr.task_states(pid=pid)))
        self.assertEqual(len(ax.get_yticks()), 1)

    def test_frequency_steps(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "freq.txt")
            with open(path, "w") as f:
                f.write(FREQ)
            ax = trawl.plot.frequency(trawl.open(path))
            by_cpu = {l.get_label(): l.get_data() for l in ax.lines}
            self.assertEqual(sorted(by_cpu), ["CPU 0", "CPU 1"])
            x, y = by_cpu["CPU 0"]
            self.assertEqual(list(y), [800000, 2400000, 1600000])
            np.testing.assert_allclose(list(x), [0, 2, 5])
        # a trace without the event: an empty plot that says so
        ax = trawl.plot.frequency(trawl.open(fixture("tc.dat")))
        self.assertEqual(len(ax.lines), 0)
        self.assertIn("no cpu_frequency", ax.get_title())

    def test_power_residency_is_the_shares(self):
        tr = trawl.open(fixture("cpu-idle.txt"))
        r = tr.idle_residency()
        ax = trawl.plot.power_residency(tr)
        # one bar per CPU and state, stacked in state order, their
        # heights the shares in %
        heights = [p.get_height() for p in ax.patches]
        np.testing.assert_allclose(heights, 100 * r["share"].to_numpy())
        self.assertEqual([t.get_text() for t in ax.get_legend().get_texts()],
                         list(r["name"]))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "freq.txt")
            with open(path, "w") as f:
                f.write(FREQ)
            tr = trawl.open(path)
            ax = trawl.plot.power_residency(tr, "frequency")
            f = tr.frequency_residency()
            # CPU 0: 800 MHz 2 ms, 2400 MHz 3 ms, 1600 MHz 0 (the end);
            # CPU 1: 1200 MHz all along; a bar per CPU and frequency
            self.assertEqual(len(ax.patches), 4 * 2)
            tops = {round(p.get_y() + p.get_height(), 6)
                    for p in ax.patches}
            self.assertEqual(tops, {0.0, 40.0, 100.0})
            self.assertAlmostEqual(f["share"].sum(), 2.0)
        ax = trawl.plot.power_residency(trawl.open(fixture("tc.dat")))
        self.assertIn("no cpu_idle", ax.get_title())
        with self.assertRaises(ValueError):
            trawl.plot.power_residency(tr, "irq")

    def test_into_given_axes(self):
        tr = trawl.open(fixture("tc.dat"))
        fig, ax = plt.subplots()
        self.assertIs(trawl.plot.latency_hist(tr, ax=ax), ax)


if __name__ == "__main__":
    unittest.main()
