# SPDX-License-Identifier: MIT
"""trawl: Linux kernel traces in pandas, read by libtrawl.

    import trawl
    tr = trawl.open("trace.dat")
    tr.events                      # {"sched_switch": 125, ...}
    sw = tr.df("sched_switch")     # seq, time, cpu, pid, comm + its fields
    lat = tr.latency("wakeup")     # the `trawl latency wakeup --csv` table

Every event of a trace (ftrace text, trace_pipe, systrace, `trace-cmd
report` output, trace.dat; gzip or zstd) comes in one time order, equal
times in record order (seq). A Trace is a file and its options: each query
is one pass over the file in C, with the GIL released (apply() is the
exception: Python runs on every event). See docs/python.md.
"""
import builtins
import difflib

import numpy as np
import pandas as pd

from . import _trawl
from ._frames import (frame, rows_frame, worst_frame, anomalies_frame,
                      sched_frame, script_result, ScriptResult,
                      instances_frame, states_frame, name_ids,
                      residency_frame)
from ._timeline import Chart, Viewer, chart as _chart
from ._window import window as _window

TrawlError = _trawl.TrawlError
Event = _trawl.Event

__all__ = ["open", "Trace", "TrawlError", "Event", "ScriptResult", "Chart",
           "Viewer"]
__version__ = _trawl.version()

_LATENCY = {"wakeup": 0, "preempt": 1}
_TABLES = ("rows", "worst", "anomalies", "all")


def open(path, **opts):
    """Open a trace file; the format is recognised from its content.

    Options: threads (parser threads, default 2), formats (where text
    traces' event formats are: an events/ tree or a file of formats;
    "none" for none), strict (the first malformed line raises),
    source_order (no sorting by time), sort_memory (bytes), tmpdir;
    relative=True: every time the Trace takes (start=, end=) and gives
    (the frames' time, start, end, max_at) counts from the trace's first
    event (Trace.start_time) instead of the trace's clock.

    Raises TrawlError (with the reader's message) when the file cannot be
    read or is not a trace.
    """
    return Trace(path, **opts)


class Trace:
    """A trace file and the options to read it with."""

    def __init__(self, path, **opts):
        self.path = path if isinstance(path, (str, bytes)) else str(path)
        opts = dict(opts)
        self.relative = bool(opts.pop("relative", False))
        self.opts = opts
        self._stats = None
        self._first = None
        self._tasks = None
        # fail now on a file that is missing or not a trace
        self.format = _trawl.check(self.path, self.opts)

    def __repr__(self):
        return "trawl.Trace(%r)" % (self.path,)

    # -- what is in it -----------------------------------------------------
    @property
    def stats(self):
        """The counters of a pass over every event: total_events, events
        (per name), systems, cpus ({cpu: (events, lost)}), first_time,
        last_time, lost_events, bad_lines, bad_line (where), reordered,
        format, compression, bytes, lines..., and hostname and os_release
        where the source says them (a perf.data)."""
        if self._stats is None:
            self._stats = _trawl.info(self.path, self.opts)
        return self._stats

    @property
    def events(self):
        """{event name: count} of the whole trace."""
        return dict(self.stats["events"])

    @property
    def span(self):
        """(first, last) event time in ns."""
        return (self.stats["first_time"], self.stats["last_time"])

    @property
    def start_time(self):
        """The first event's time (ns of the trace's clock), read from the
        start of the file only; None for a trace without events. Offsets
        ("+0.5", timedeltas, relative=True) count from it."""
        if self._first is None:
            if self._stats is not None:
                self._first = (self._stats["first_time"] if
                               self._stats["total_events"] else None,)
            else:
                self._first = (_trawl.first_time(self.path, self.opts),)
        return self._first[0]

    def _origin(self):
        first = self.start_time
        if first is None:
            raise TrawlError("%s: no events, so no first event for an "
                             "offset to count from" % (self.path,))
        return first

    def _range(self, start, end, to_end=False):
        """(options for one ranged pass, start ns, end ns): the library
        enters the file at start where the format allows (trace.dat,
        plain text) instead of reading it from the beginning. to_end:
        read on to the end of the trace (an analysis that closes what is
        open at the trace's end)."""
        lo, hi = _window(start, end, self._origin, self.relative)
        if lo is None and hi is None:
            return self.opts, lo, hi
        opts = dict(self.opts)
        opts["from"] = lo if lo is not None else -2**63
        opts["to"] = hi if hi is not None and not to_end else 2**63 - 1
        return opts, lo, hi

    def _shift(self, df, cols):
        """relative=True: the time columns as offsets from the first
        event."""
        if self.relative and len(df):
            first = self._origin()
            for c in cols:
                if c in df.columns:
                    df[c] = df[c] - first
        return df

    @property
    def lost_events(self):
        """Events the kernel said it lost."""
        return self.stats["lost_events"]

    def tasks(self):
        """Every task the trace shows, one row per (pid, name): pid, tgid
        (where the source has it), comm, first and last (ns: when it was
        seen under that name), events (events of its own under that
        name); by pid, then first. A task renamed by exec has a row per
        name in order. Names come from each event's task and from what
        sched_switch and the wakeups say of the task they switch or wake
        (a trace.dat names a pid in its event headers by one saved
        cmdline, so a rename shows only there). One pass."""
        c = _trawl.tasks(self.path, self.opts)
        order = np.lexsort((c["first"], c["pid"]))
        tgid = c["tgid"][order].astype(np.int64)
        df = pd.DataFrame({
            "pid": c["pid"][order].astype(np.int64),
            "tgid": pd.arrays.IntegerArray(tgid, tgid < 0),
            "comm": pd.Categorical.from_codes(c["comm"][order],
                                              categories=c["names"]),
            "first": c["first"][order], "last": c["last"][order],
            "events": c["events"][order],
        }, copy=False)
        return self._shift(df, ("first", "last"))

    def pids(self, comm):
        """The pids that had the name comm at any time (before or after a
        rename), sorted; [] when no task had it."""
        t = self._task_table()
        return sorted(int(p) for p in t.loc[t["comm"] == comm, "pid"]
                      .unique())

    def _task_table(self):
        """tasks(), made once per Trace (names resolve through it)."""
        if self._tasks is None:
            self._tasks = self.tasks()
        return self._tasks

    def _named(self, arg, name):
        """The pids that had name at any time; a name no task had is an
        error naming the nearest one."""
        pids = self.pids(name)
        if not pids:
            names = [str(c) for c in
                     self._task_table()["comm"].cat.categories]
            near = difflib.get_close_matches(name, names, n=1)
            raise ValueError("%s: no task of %s was named %r%s" % (
                arg, self.path, name,
                "; did you mean %r?" % near[0] if near else ""))
        return pids

    def _select(self, pid, comm):
        """pid= and comm= as every analysis takes them, resolved to the
        tasks meant: None (all), an int (one thread), or a list of pids.
        pid: a thread id, a name (every pid that had it at any time), or a
        list of either; comm: a name or a list of names, each matching the
        tasks that had it at any time, before and after a rename. Both:
        the tasks both select."""
        def ids(arg, v, names_only):
            items = list(v) if isinstance(v, (list, tuple, set, frozenset,
                                                np.ndarray, pd.Series)) \
                else [v]
            out = set()
            for x in items:
                if isinstance(x, str):
                    out.update(self._named(arg, x))
                elif (not names_only and isinstance(x, (int, np.integer))
                      and not isinstance(x, bool)):
                    out.add(int(x))
                else:
                    raise TypeError("%s: %s, not %r" % (
                        arg, "a name or a list of names" if names_only else
                        "a pid, a name, or a list of them", x))
            return out
        if comm is None and (pid is None or (
                isinstance(pid, (int, np.integer)) and
                not isinstance(pid, bool))):
            return None if pid is None else int(pid)
        sel = None
        for arg, v, names_only in (("pid", pid, False), ("comm", comm, True)):
            if v is not None:
                s = ids(arg, v, names_only)
                sel = s if sel is None else sel & s
        return sorted(sel)

    # -- events as frames ----------------------------------------------------
    @staticmethod
    def _spec(events):
        if isinstance(events, str):
            pats = [events]
            many = any(c in events for c in "*?[")
        else:
            pats = list(events)
            if not pats or not all(isinstance(p, str) for p in pats):
                raise TypeError("events: a name, a glob, or a list of them")
            many = len(pats) > 1 or any(c in p for p in pats for c in "*?[")
        return (pats, many)

    # formats that list every event the file can hold
    _COMPLETE = ("trace-dat", "perf-data")

    def _unknown(self, pats):
        """The names in pats (globs aside) no event of this trace can
        have: [(name, nearest or None)]."""
        names = [p for p in pats if not any(c in p for c in "*?[")]
        if not names:
            return []
        return [(n, near) for n, known, near in
                _trawl.known(self.path, self.opts, names) if not known]

    def _misspelt(self, unknown, seen=None):
        """Raise for the first unknown name, naming the nearest one, as
        a script's compiler does; with seen (the names that had events),
        only for one that had none."""
        for name, near in unknown:
            ev = name.split(":")[-1]
            if seen is not None and ev in seen:
                continue
            raise TrawlError("%s: no event %r in this trace or the "
                             "kernel's%s" % (
                                 self.path, name,
                                 " (did you mean %r?)" % near if near
                                 else ""))

    def df(self, events, labels=False, start=None, end=None):
        """The events of one name (or a glob, or a list of names and globs)
        as one DataFrame in the delivered order: seq, time (int64 ns), cpu,
        pid, tgid (nullable; only where the source has it: a record-tgid
        column, systrace), comm, then "event" when the frame can hold
        several, then each
        field by the kernel's name (a field named like one of those is
        field_<name>). Text is categorical; a field an event lacks is
        missing (nullable Int64 / UInt64, NaN in a categorical).

        labels=True: beside each integer field its print format shows by
        name, a categorical "<field>_label" (sched_switch's prev_state 1 is
        "S", softirq_entry's vec 1 "TIMER"), missing where it has none.

        start, end: only the events from start to end (both included), as
        `trawl report --from --to`: an int is ns as the time column holds
        them, a float or a string seconds ("1037.5", "500us"), "+0.5" or a
        timedelta an offset from the first event. A trace.dat or plain
        text file is entered at start, not read from its beginning; seq
        then numbers the window's events from 0."""
        spec = self._spec(events)
        opts, lo, hi = self._range(start, end)
        unknown = self._unknown(spec[0])
        if self.format in self._COMPLETE:
            self._misspelt(unknown)
        cols, stats = _trawl.frames(self.path, opts, [spec + (labels,)])
        if self._stats is None and events == "*" and opts is self.opts:
            self._stats = stats
        if unknown:
            self._misspelt(unknown, set(stats.get("events", {})))
        return self._shift(frame(cols[0]), ("time",))

    def dfs(self, events, labels=False, start=None, end=None):
        """{name: DataFrame} for each name or glob, in one pass (start,
        end: as df())."""
        events = [events] if isinstance(events, str) else list(events)
        specs = [self._spec(e) + (labels,) for e in events]
        opts, lo, hi = self._range(start, end)
        unknown = self._unknown([p for s in specs for p in s[0]])
        if self.format in self._COMPLETE:
            self._misspelt(unknown)
        cols, stats = _trawl.frames(self.path, opts, specs)
        if unknown:
            self._misspelt(unknown, set(stats.get("events", {})))
        return {e: self._shift(frame(c), ("time",))
                for e, c in zip(events, cols)}

    def apply(self, callbacks, start=None, end=None):
        """Call callbacks[pattern](ev) for each event the pattern matches,
        in the one time order. ev is a trawl.Event: ev.seq, ev.time,
        ev.cpu, ev.pid, ev.comm, ev.name, and the fields as attributes
        (ev.next_pid; ev["pid"] or ev.field_pid where a field is named like
        a header attribute) or ev.fields(). It is valid during its call
        only. An exception in a callback stops the run and is raised.
        start, end: only the events of that window (as df()); ev.time is
        the trace's clock even with relative=True. Returns the pass's
        counters (as .stats)."""
        callbacks = dict(callbacks)
        opts, lo, hi = self._range(start, end)
        unknown = self._unknown([p for p in callbacks if isinstance(p, str)])
        if self.format in self._COMPLETE:
            self._misspelt(unknown)
        stats = _trawl.apply(self.path, opts, callbacks)
        if unknown:
            self._misspelt(unknown, set(stats.get("events", {})))
        return stats

    def run(self, script, map_size=0, name="<script>", start=None,
            end=None):
        """Run a trawl script (docs/script.md; the source, or a path ending
        in .tw) over the trace, or over the events from start to end (as
        df()). Returns a ScriptResult: {map name: DataFrame}, with
        .output (the printf text) and .faults."""
        opts, lo, hi = self._range(start, end)
        if isinstance(script, str) and script.endswith(".tw") and \
                "\n" not in script and "{" not in script:
            name = script
            with _builtin_open(script) as f:
                script = f.read()
        text, faults = _trawl.script(self.path, opts, script, name,
                                     map_size)
        return script_result(text, faults)

    # -- timelines -----------------------------------------------------------
    def chart(self, start=None, end=None, width=1200, lanes=None,
              irq_threshold=None, cache=True):
        """The trace's timeline as an SVG chart, shown inline by Jupyter:
        `trawl chart`'s lanes over [start, end) (as df() takes them; None:
        the trace's ends), width pixels of timeline, lanes as `trawl chart
        --lanes` takes them ("cpu,slice", "all"; None: all but the thread
        states). The index is kept in the user's cache (cache=False:
        neither read nor written), so a second chart of the same file
        starts at once. Returns a trawl.Chart."""
        lo, hi = _window(start, end, self._origin, self.relative)
        return _chart(self, lo, hi, width, lanes, irq_threshold, cache)

    def view(self, port=0, follow=False, cache=True, env=None):
        """Start `trawl view` of the trace on a loopback port (0: a free
        one) and return a trawl.Viewer: Jupyter shows it in a frame with
        its link (the URL carries the access token); .stop() ends it.
        follow: serve the file as it grows (a recording); env: the
        command's environment (None: this process's)."""
        return Viewer(self, port, follow, cache, env)

    # -- the analyses --------------------------------------------------------
    def _analysis(self, name, start=None, end=None, to_end=False, **kw):
        # pid=/comm=: names resolved to every pid that had them
        kw["pid"] = self._select(kw.pop("pid", None), kw.pop("comm", None))
        kw = {k: v for k, v in kw.items() if v is not None}
        worst = kw.get("worst")
        # as the command's --worst: 1 to 10000, said rather than clamped
        if worst is not None and (isinstance(worst, bool) or
                                  not isinstance(worst, int) or
                                  not 1 <= worst <= 10000):
            raise ValueError("worst: a number from 1 to 10000, not %r"
                             % (worst,))
        # as the command's --from/--to: a ranged pass, and the window
        # hides the rest from the analysis as if the trace began and
        # ended there
        opts, lo, hi = self._range(start, end, to_end)
        if lo is not None:
            kw["start"] = lo
        if hi is not None:
            kw["end"] = hi
        return _trawl.analysis(self.path, opts, name, **kw)

    def _parts(self, name, table, worst_id, self_depth=False, **kw):
        """An analysis's table: rows, worst, anomalies, or all (every
        instance)."""
        if table not in _TABLES:
            raise ValueError("table: 'rows', 'worst', 'anomalies' or "
                             "'all', not %r" % (table,))
        if table == "all":
            res, iv = self._analysis(name, instances=True, **kw)
            return name_ids(self._shift(instances_frame(iv, worst_id),
                                        ("start", "end")), name), res
        res = self._analysis(name, **kw)
        parts = res[0] if name == "irq" else res
        if table == "rows":
            df = self._shift(rows_frame(parts, self_depth), ("max_at",))
        elif table == "worst":
            df = self._shift(worst_frame(parts, worst_id), ("start", "end"))
        else:
            df = self._shift(anomalies_frame(parts), ("first",))
        return name_ids(df, name), res

    def latency(self, kind="wakeup", table="rows", worst=None, pid=None,
                comm=None, start=None, end=None):
        """Wakeup or preemption latency per task: the table of `trawl
        latency KIND --csv` (kind, pid, cpu, comm, count, min, p50, p90,
        p99, max, total, max_at; the overall row first). table="worst":
        the longest instances; "all": every instance (part, start, end,
        duration, pid, cpu, from_cpu, name), the whole distribution in
        order of end; "anomalies". start, end: as df()."""
        if kind not in _LATENCY:
            raise ValueError("latency: 'wakeup' or 'preempt', not %r" % kind)
        return self._parts("latency", table, "from_cpu",
                           kind=_LATENCY[kind], worst=worst, pid=pid,
                           comm=comm, start=start, end=end)[0]

    def irq(self, threshold=None, table="rows", worst=None, pid=None,
            comm=None, start=None, end=None):
        """Hardirq and softirq handler durations: `trawl irq --csv` (kind,
        irq, cpu, name, ...); table as latency(). threshold (ns, default
        1 ms): handlers longer than it are counted, in .attrs["long"]."""
        df, res = self._parts("irq", table, "irq", threshold=threshold,
                              worst=worst, pid=pid, comm=comm, start=start,
                              end=end)
        df.attrs["long"] = res[1]
        return df

    def workqueue(self, table="rows", worst=None, pid=None, comm=None,
                  start=None, end=None):
        """Work item execution time and queueing delay per function: `trawl
        workqueue --csv` (part, kind, cpu, name, ...; without its id
        column, which a work function does not have); table as
        latency()."""
        return self._parts("workqueue", table, None, worst=worst, pid=pid,
                           comm=comm, start=start, end=end)[0]

    def slices(self, table="rows", worst=None, pid=None, comm=None,
               start=None, end=None):
        """systrace/atrace slices, async slices and counters: `trawl slices
        --csv` (part, kind, pid, cpu, name, ..., self, depth: the CSV's id
        is the writing thread for slices, the process for async slices and
        counters, pid as in every frame); table as latency(), whose
        instances have depth (slices) and cookie (async) where the CSV
        has id."""
        return self._parts("slices", table, None, self_depth=True,
                           worst=worst, pid=pid, comm=comm, start=start,
                           end=end)[0]

    def _power(self, part, key, label, table, worst, start, end):
        """One part of the power analysis as a frame of its own."""
        if table not in _TABLES:
            raise ValueError("table: 'rows', 'worst', 'anomalies' or "
                             "'all', not %r" % (table,))
        # the last state runs to the trace's end (or end=): read on
        if table == "all":
            res, iv = self._analysis("power", instances=True, worst=worst,
                                     start=start, end=end, to_end=True)
            df = instances_frame(iv, key)
            df = df[df["part"] == part].drop(columns=["part", "kind", "pid"])
            df = df.rename(columns={"name": label}).reset_index(drop=True)
            return self._shift(df, ("start", "end"))
        res = self._analysis("power", worst=worst, start=start, end=end,
                             to_end=True)
        parts = [p for p in res if p["name"] == part]
        if table == "anomalies":
            return self._shift(anomalies_frame(parts), ("first",))
        if table == "worst":
            df = worst_frame(parts, key).drop(columns=["part", "kind",
                                                       "pid"])
            return self._shift(df.rename(columns={"name": label}),
                               ("start", "end"))
        return self._shift(residency_frame(parts[0], key, label),
                           ("max_at",))

    def frequency_residency(self, table="rows", worst=None, start=None,
                            end=None):
        """Time each CPU spent at each frequency (cpu_frequency), as
        LISA's df_cpu_frequency_residency and `trawl power`'s frequency
        part: cpu, khz, frequency ("1800 MHz"), count (times set), total
        (ns), share (of the CPU's known time), min, p50, p90, p99, max of
        the intervals, max_at; by CPU, then khz. A frequency lasts until
        the CPU's next one, the last to the end of the trace; nothing
        before a CPU's first event. table="all": every interval (start,
        end, duration, cpu, khz, frequency); "worst": the longest;
        "anomalies". start, end: as df()."""
        return self._power("frequency", "khz", "frequency", table, worst,
                           start, end)

    def idle_residency(self, table="rows", worst=None, start=None,
                       end=None):
        """Time each CPU spent in each idle state (cpu_idle), as LISA's
        df_cpu_idle_state_residency and `trawl power`'s idle part: cpu,
        state (-1: active, out of idle), name (the kernel's, "POLL",
        "C1E" ..., in files trawl record wrote; else "state N"), count,
        total, share, min ... max, max_at; by CPU, then state; table as
        frequency_residency()."""
        return self._power("idle", "state", "name", table, worst, start,
                           end)

    def sched(self, pid=None, comm=None, start=None, end=None, table=None):
        """Run, runnable and sleep time per task, busy and idle per CPU:
        `trawl sched --csv` with its id split into pid (task rows) and cpu
        (CPU rows). A CPU runs what its last sched_switch switched
        in until its next one, whatever that one's prev_pid says, so the
        tasks' run never exceeds the CPUs' busy time; the disagreements are
        anomalies. .attrs: start, end, migrations_from, anomalies (how many
        in all); table="anomalies": them, one row per kind (what, count,
        first)."""
        if table not in (None, "anomalies"):
            raise ValueError("table: None or 'anomalies', not %r" % table)
        # the last state runs to the trace's end (or end=): read on
        r = self._analysis("sched", pid=pid, comm=comm, start=start,
                           end=end, to_end=True)
        if table == "anomalies":
            return self._shift(anomalies_frame(
                [dict(name="sched", anomalies=r["anomalies"])]), ("first",))
        df = sched_frame(r)
        first = self._origin() if self.relative and r["end"] else 0
        df.attrs.update(start=r["start"] - first, end=r["end"] - first,
                        migrations_from=r["migrations_from"],
                        anomalies=sum(a[1] for a in r["anomalies"]))
        return df

    def task_states(self, pid=None, comm=None, start=None, end=None):
        """Every interval each task spent in one state, as LISA's
        df_task_states: pid, comm (its name then), cpu (where it ran, or
        last ran), state ("running", "runnable", "sleeping",
        "uninterruptible"), start, end, duration; by start. The intervals
        are the ones `trawl sched` adds up, by its rule (per task and
        state their durations sum to its run, runnable and sleep), so a
        task whose switch-out the trace lacks stops running at its CPU's
        next switch. comm: the tasks that had that name at any time, all
        their intervals (before and after a rename). start, end: as
        df()."""
        iv = self._analysis("task_states", pid=pid, comm=comm, start=start,
                            end=end, to_end=True)
        return self._shift(states_frame(iv), ("start", "end"))


_builtin_open = builtins.open
