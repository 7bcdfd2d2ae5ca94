# SPDX-License-Identifier: MIT
"""Trace.run(): the script language's maps as DataFrames, equal to `trawl
run --json` on the same trace; printf output and compile errors."""
import unittest

import trawl
from helpers import fixture, cli_json

PROGRAM = """
sched:sched_switch { @switches[args.prev_comm] = count(); @n = count();
                     @by[args.prev_comm, args.prev_pid] = sum(1); }
sched:sched_wakeup { @prio = stats(args.prio); @h = hist(args.prio); }
END { printf("done %d\\n", 1); }
"""


class ScriptTest(unittest.TestCase):
    def test_maps_as_run_json(self):
        for name in ["tc.dat", "pair-broad.txt"]:
            with self.subTest(name):
                path = fixture(name)
                res = trawl.open(path).run(PROGRAM)
                want = cli_json("run", "--json", "-e", PROGRAM, path)
                self.assertEqual(res.output, want["output"])
                self.assertEqual(res.faults, [])
                self.assertEqual(sorted(res), sorted(k for k in want
                                                     if k != "output"))
                sw = res["@switches"]
                self.assertEqual(dict(zip(sw["key"], sw["value"])),
                                 {e["key"]: e["value"]
                                  for e in want["@switches"]})
                by = res["@by"]
                self.assertEqual(
                    sorted(zip(by["key0"], by["key1"], by["value"])),
                    sorted((e["key"][0], e["key"][1], e["value"])
                           for e in want["@by"]))
                self.assertEqual(res["@n"]["value"].tolist(),
                                 [want["@n"][0]["value"]])
                st = res["@prio"].iloc[0].to_dict()
                self.assertEqual(st, want["@prio"][0]["value"])
                h = res["@h"]
                self.assertEqual(h[["min", "max", "count"]].to_dict("records"),
                                 want["@h"][0]["value"])
                # the same counts as the frames
                df = trawl.open(path).df("sched_switch")
                self.assertEqual(res["@n"]["value"][0], len(df))
                counts = df["prev_comm"].value_counts()
                for k, v in zip(sw["key"], sw["value"]):
                    self.assertEqual(counts[k], v)

    def test_script_file(self):
        import os
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "count.tw")
            with open(p, "w") as f:
                f.write("sched:sched_switch { @ = count(); }\n")
            res = trawl.open(fixture("tc.dat")).run(p)
            self.assertEqual(res["@"]["value"][0],
                             trawl.open(fixture("tc.dat")).events[
                                 "sched_switch"])

    def test_compile_error(self):
        with self.assertRaises(trawl.TrawlError) as cm:
            trawl.open(fixture("tc.dat")).run(
                "sched:sched_switch { @ = sum(args.no_such); }")
        self.assertIn("no_such", str(cm.exception))
        with self.assertRaises(trawl.TrawlError) as cm:
            trawl.open(fixture("tc.dat")).run("sched:sched_switch { @ = ")
        self.assertEqual(cm.exception.code, "TRAWL_EPARSE")


if __name__ == "__main__":
    unittest.main()
