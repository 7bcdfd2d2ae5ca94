# SPDX-License-Identifier: MIT
"""trawl.fleet on a Dask LocalCluster of two worker processes: a function
over a few small traces and one that is not readable; the rows equal each
trace's own result, the bad one is a row with its error; `trawl fleet`
from the command line prints the maps of every trace and reports the bad
one on stderr."""
import io
import os
import shutil
import subprocess
import tempfile
import unittest

import pandas as pd

import trawl
import trawl.fleet
from helpers import fixture, TRAWL

GOOD = ["tc.dat", "pair-broad.dat", "ftrace-irqinfo.txt", "tc-v6.dat"]


def latency(tr):
    return tr.latency("wakeup")


class FleetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        for f in GOOD:
            shutil.copy(fixture(f), cls.dir)
        with open(fixture("tc.dat"), "rb") as f:
            head = f.read(3000)
        cls.bad = os.path.join(cls.dir, "cut.dat")
        with open(cls.bad, "wb") as f:
            f.write(head)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def check(self, df, fn):
        self.assertEqual(df.columns[0], "trace")
        self.assertEqual(df.columns[-1], "error")
        bad = df[df["error"].notna()]
        self.assertEqual(bad["trace"].tolist(), [self.bad])
        self.assertIn("cut short", bad["error"].iloc[0])
        good = df[df["error"].isna()]
        self.assertEqual(sorted(set(good["trace"])),
                         sorted(os.path.join(self.dir, f) for f in GOOD))
        for path, rows in good.groupby("trace", sort=False):
            want = fn(trawl.open(path))
            got = rows.drop(columns=["trace", "error"]).reset_index(
                drop=True)
            self.assertEqual(len(got), len(want))
            for c in want.columns:
                self.assertEqual(
                    [None if pd.isna(v) else v for v in got[c]],
                    [None if pd.isna(v) else v for v in want[c]], c)

    def test_local_cluster(self):
        df = trawl.fleet.run(os.path.join(self.dir, "*"), latency, workers=2)
        self.check(df, latency)
        # a lambda travels too (cloudpickle), and the same answer serially
        fn = lambda tr: tr.df("sched_switch").groupby(  # noqa: E731
            "prev_comm", observed=True).size().rename("n").reset_index()
        serial = trawl.fleet.run(self.dir, fn, scheduler="serial")
        self.check(serial, fn)

    def test_empty_results_and_failures(self):
        """A trace whose function gave no rows is in attrs["rows"] with 0;
        a text that is not a trace fails with its own row; integer columns
        are nullable whether or not one failed, and errors="attrs" keeps
        the failures out of the rows and the columns as fn made them."""
        d = tempfile.mkdtemp()
        try:
            for f in ["tc.dat", "ftrace-irqinfo.txt"]:
                shutil.copy(fixture(f), d)
            readme = os.path.join(d, "notes.txt")
            shutil.copy(fixture("README.md"), readme)

            def none_on_text(tr):
                sw = tr.df("sched_switch")[["prev_pid", "next_pid"]]
                return sw if tr.format == "trace-dat" else sw.iloc[:0]

            df = trawl.fleet.run(d, none_on_text, scheduler="serial")
            dat, txt = (os.path.join(d, "tc.dat"),
                        os.path.join(d, "ftrace-irqinfo.txt"))
            self.assertEqual(df.attrs["rows"],
                             {dat: len(trawl.open(dat).df("sched_switch")),
                              txt: 0})
            bad = df[df["error"].notna()]
            self.assertEqual(bad["trace"].tolist(), [readme])
            self.assertIn("not a trace", bad["error"].iloc[0])
            self.assertEqual(str(df["prev_pid"].dtype), "Int64")
            good = trawl.fleet.run([dat, txt], none_on_text,
                                   scheduler="serial")
            self.assertEqual(str(good["prev_pid"].dtype), "Int64")
            self.assertTrue(good["error"].isna().all())
            plain = trawl.fleet.run(d, none_on_text, scheduler="serial",
                                    errors="attrs")
            self.assertNotIn("error", plain.columns)
            self.assertEqual(str(plain["prev_pid"].dtype), "int64")
            self.assertEqual(list(plain.attrs["errors"]), [readme])
            self.assertEqual(len(plain), df.attrs["rows"][dat])
            with self.assertRaisesRegex(ValueError, "errors"):
                trawl.fleet.run(d, none_on_text, scheduler="serial",
                                errors="drop")
        finally:
            shutil.rmtree(d)

    def test_command(self):
        prog = "sched:sched_switch { @[args.prev_comm] = count(); }"
        r = subprocess.run([TRAWL, "fleet", "-e", prog, self.dir,
                            "--workers", "2"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stderr)  # one trace failed
        self.assertIn(self.bad, r.stderr)
        df = pd.read_csv(io.StringIO(r.stdout), keep_default_na=False)
        self.assertEqual(list(df.columns), ["trace", "map", "key", "value"])
        for f in GOOD:
            path = os.path.join(self.dir, f)
            counts = trawl.open(path).df("sched_switch")[
                "prev_comm"].value_counts()
            rows = df[df["trace"] == path]
            self.assertEqual(dict(zip(rows["key"], rows["value"])),
                             {k: v for k, v in counts.items() if v})
        h = subprocess.run([TRAWL, "fleet", "--help"], capture_output=True,
                           text=True)
        self.assertEqual(h.returncode, 0)
        self.assertIn("--scheduler", h.stdout)


if __name__ == "__main__":
    unittest.main()
