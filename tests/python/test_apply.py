# SPDX-License-Identifier: MIT
"""Trace.apply(): callbacks in the one time order with a light Event (the
same values as the frames and `trawl report --json`), exceptions out of
callbacks, an Event kept past its callback."""
import unittest

import trawl
from helpers import fixture, report


class ApplyTest(unittest.TestCase):
    def test_order_and_values_as_report(self):
        for name in ["tc.dat", "ftrace-irqinfo.txt"]:
            with self.subTest(name):
                path = fixture(name)
                seen = []

                def on(ev):
                    seen.append((ev.seq, ev.time, ev.cpu, ev.pid, ev.comm,
                                 ev.name, ev.fields()))

                st = trawl.open(path).apply({"*": on})
                want = report(path, "*")
                self.assertEqual(len(seen), len(want))
                self.assertEqual(st["total_events"], len(want))
                for got, ev in zip(seen, want):
                    self.assertEqual(got[:6], (ev["seq"], ev["time"],
                                               ev["cpu"], ev["pid"],
                                               ev["comm"], ev["event"]))
                    fields = {k: list(v) if isinstance(v, tuple) else v
                              for k, v in got[6].items()}
                    self.assertEqual(fields, ev["fields"])

    def test_attributes_are_fields(self):
        tr = trawl.open(fixture("tc.dat"))
        df = tr.df(["sched_switch", "sched_wakeup"])
        rows = []

        def switch(ev):
            rows.append(("sched_switch", ev.seq, ev.prev_comm, ev.next_pid,
                         ev.prev_state))

        def wakeup(ev):
            # sched_wakeup's pid is the woken task: ev["pid"], ev.field_pid
            self.assertEqual(ev["pid"], ev.field_pid)
            rows.append(("sched_wakeup", ev.seq, ev.field_comm, ev["pid"],
                         ev.target_cpu))

        tr.apply({"sched_switch": switch, "sched_wakeup": wakeup})
        self.assertEqual(len(rows), len(df))
        for r, (_, d) in zip(rows, df.iterrows()):
            self.assertEqual(r[0], d["event"])
            self.assertEqual(r[1], d["seq"])
            if r[0] == "sched_switch":
                self.assertEqual(r[2:], (d["prev_comm"], d["next_pid"],
                                         d["prev_state"]))
            else:
                self.assertEqual(r[2:], (d["field_comm"], d["field_pid"],
                                         d["target_cpu"]))

    def test_unknown_field_is_attribute_error(self):
        def on(ev):
            ev.no_such_field

        with self.assertRaises(AttributeError):
            trawl.open(fixture("tc.dat")).apply({"sched_switch": on})

    def test_exception_stops_the_run(self):
        n = []

        def on(ev):
            n.append(ev.seq)
            if len(n) == 3:
                raise KeyError("stop here")

        with self.assertRaises(KeyError):
            trawl.open(fixture("tc.dat")).apply({"*": on})
        self.assertEqual(len(n), 3)

    def test_kept_event_is_detached(self):
        kept = []
        trawl.open(fixture("tc.dat")).apply({"sched_switch": kept.append})
        self.assertGreater(len(kept), 1)
        # each kept event was its own object, and none is valid now
        self.assertEqual(len(set(map(id, kept))), len(kept))
        with self.assertRaises(RuntimeError):
            kept[0].next_pid
        with self.assertRaises(RuntimeError):
            kept[-1].time
        self.assertIn("detached", repr(kept[0]))

    def test_not_callable(self):
        with self.assertRaises(TypeError):
            trawl.open(fixture("tc.dat")).apply({"sched_switch": 3})


if __name__ == "__main__":
    unittest.main()
