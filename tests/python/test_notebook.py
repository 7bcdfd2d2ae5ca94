# SPDX-License-Identifier: MIT
"""examples/trace-notebook.ipynb runs headless and its numbers are the
trawl command's: its code cells are run here in order (as Jupyter would,
in examples/) and the values they leave checked against `trawl latency
--json` and `trawl sched --csv`; where Debian's nbconvert and ipykernel
are installed (python3-nbconvert, python3-ipykernel) the notebook is also
executed by Jupyter itself and its printed output checked."""
import json
import os
import subprocess
import tempfile
import unittest

import matplotlib
matplotlib.use("Agg")

from helpers import TOP, cli_csv, cli_json, fixture  # noqa: E402

NOTEBOOK = os.path.join(TOP, "examples", "trace-notebook.ipynb")
TRACE = fixture("pair-broad.dat")


def code_cells():
    with open(NOTEBOOK) as f:
        nb = json.load(f)
    return ["".join(c["source"]) for c in nb["cells"]
            if c["cell_type"] == "code"]


class NotebookTest(unittest.TestCase):
    def check(self, ns):
        want = cli_json("latency", "wakeup", "--json", TRACE)["overall"]
        self.assertEqual(int(ns["overall"]["count"]), want["count"])
        self.assertEqual(int(ns["overall"]["p99"]), want["p99"])
        self.assertEqual(len(ns["every"]), want["count"])
        self.assertEqual(int(ns["every"].duration.max()), want["max"])
        sched = cli_csv("sched", "--csv", TRACE)
        sched = sched[sched["kind"] == "task"]
        share = ns["share"]
        for _, r in sched.iterrows():
            got = share.loc[int(r["id"])]
            self.assertEqual(got.get("running", 0), r["run"])
        lo = ns["first"] + 10_000_000
        mid = cli_json("latency", "wakeup", "--json", "--from",
                       "%dns" % lo, "--to", "%dns" % (lo + 10_000_000),
                       TRACE)["overall"]
        self.assertEqual(int(ns["mid"].iloc[0]["count"]), mid["count"])

    def test_cells_run_and_agree_with_the_command(self):
        here = os.getcwd()
        os.chdir(os.path.dirname(NOTEBOOK))
        try:
            ns = {}
            for i, src in enumerate(code_cells()):
                exec(compile(src, "%s cell %d" % (NOTEBOOK, i), "exec"), ns)
            svg = ns["tr"].chart(width=900, lanes="cpu,task")._repr_svg_()
        finally:
            os.chdir(here)
        self.check(ns)
        self.assertTrue(svg.startswith("<?xml"))

    @unittest.skipUnless(subprocess.run(["/usr/bin/python3", "-c",
                                         "import nbconvert, ipykernel"],
                                        capture_output=True).returncode == 0,
                         "Debian's python3-nbconvert and python3-ipykernel "
                         "are not installed")
    def test_jupyter_executes_it(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.ipynb")
            # this process's environment: the kernel is this Python, with
            # the sanitizer runtime an ASan build preloads
            env = dict(os.environ)
            r = subprocess.run(
                ["/usr/bin/python3", "-m", "nbconvert", "--to", "notebook",
                 "--execute",
                 "--ExecutePreprocessor.timeout=120", "--output", out,
                 NOTEBOOK], capture_output=True, text=True, env=env,
                cwd=os.path.dirname(NOTEBOOK))
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
            with open(out) as f:
                nb = json.load(f)
            text = "".join("".join(o.get("text", ""))
                           for c in nb["cells"] if c["cell_type"] == "code"
                           for o in c.get("outputs", []))
            want = cli_json("latency", "wakeup", "--json", TRACE)["overall"]
            self.assertIn("wakeups: %d" % want["count"], text)


if __name__ == "__main__":
    unittest.main()
