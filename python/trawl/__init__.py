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

from . import _trawl
from ._frames import (frame, rows_frame, worst_frame, anomalies_frame,
                      sched_frame, script_result, ScriptResult)
from ._timeline import Chart, Viewer, chart as _chart

TrawlError = _trawl.TrawlError
Event = _trawl.Event

__all__ = ["open", "Trace", "TrawlError", "Event", "ScriptResult", "Chart",
           "Viewer"]
__version__ = _trawl.version()

_LATENCY = {"wakeup": 0, "preempt": 1}


def open(path, **opts):
    """Open a trace file; the format is recognised from its content.

    Options: threads (parser threads, default 2), formats (where text
    traces' event formats are: an events/ tree or a file of formats;
    "none" for none), strict (the first malformed line raises),
    source_order (no sorting by time), sort_memory (bytes), tmpdir.

    Raises TrawlError (with the reader's message) when the file cannot be
    read or is not a trace.
    """
    return Trace(path, **opts)


class Trace:
    """A trace file and the options to read it with."""

    def __init__(self, path, **opts):
        self.path = path if isinstance(path, (str, bytes)) else str(path)
        self.opts = opts
        self._stats = None
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
    def lost_events(self):
        """Events the kernel said it lost."""
        return self.stats["lost_events"]

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

    def df(self, events, labels=False):
        """The events of one name (or a glob, or a list of names and globs)
        as one DataFrame in the delivered order: seq, time (int64 ns), cpu,
        pid, comm, then "event" when the frame can hold several, then each
        field by the kernel's name (a field named like one of those is
        field_<name>). Text is categorical; a field an event lacks is
        missing (nullable Int64 / UInt64, NaN in a categorical).

        labels=True: beside each integer field its print format shows by
        name, a categorical "<field>_label" (sched_switch's prev_state 1 is
        "S", softirq_entry's vec 1 "TIMER"), missing where it has none."""
        spec = self._spec(events)
        unknown = self._unknown(spec[0])
        if self.format in self._COMPLETE:
            self._misspelt(unknown)
        cols, stats = _trawl.frames(self.path, self.opts,
                                    [spec + (labels,)])
        if self._stats is None and events == "*":
            self._stats = stats
        if unknown:
            self._misspelt(unknown, set(stats.get("events", {})))
        return frame(cols[0])

    def dfs(self, events, labels=False):
        """{name: DataFrame} for each name or glob, in one pass."""
        events = [events] if isinstance(events, str) else list(events)
        specs = [self._spec(e) + (labels,) for e in events]
        unknown = self._unknown([p for s in specs for p in s[0]])
        if self.format in self._COMPLETE:
            self._misspelt(unknown)
        cols, stats = _trawl.frames(self.path, self.opts, specs)
        if unknown:
            self._misspelt(unknown, set(stats.get("events", {})))
        return {e: frame(c) for e, c in zip(events, cols)}

    def apply(self, callbacks):
        """Call callbacks[pattern](ev) for each event the pattern matches,
        in the one time order. ev is a trawl.Event: ev.seq, ev.time,
        ev.cpu, ev.pid, ev.comm, ev.name, and the fields as attributes
        (ev.next_pid; ev["pid"] or ev.field_pid where a field is named like
        a header attribute) or ev.fields(). It is valid during its call
        only. An exception in a callback stops the run and is raised.
        Returns the pass's counters (as .stats)."""
        callbacks = dict(callbacks)
        unknown = self._unknown([p for p in callbacks if isinstance(p, str)])
        if self.format in self._COMPLETE:
            self._misspelt(unknown)
        stats = _trawl.apply(self.path, self.opts, callbacks)
        if unknown:
            self._misspelt(unknown, set(stats.get("events", {})))
        return stats

    def run(self, script, map_size=0, name="<script>"):
        """Run a trawl script (docs/script.md; the source, or a path ending
        in .tw). Returns a ScriptResult: {map name: DataFrame}, with
        .output (the printf text) and .faults."""
        if isinstance(script, str) and script.endswith(".tw") and \
                "\n" not in script and "{" not in script:
            name = script
            with _builtin_open(script) as f:
                script = f.read()
        text, faults = _trawl.script(self.path, self.opts, script, name,
                                     map_size)
        return script_result(text, faults)

    # -- timelines -----------------------------------------------------------
    def chart(self, start=None, end=None, width=1200, lanes=None,
              irq_threshold=None, cache=True):
        """The trace's timeline as an SVG chart, shown inline by Jupyter:
        `trawl chart`'s lanes over [start, end) (ns of trace time, as the
        analyses take them; None: the trace's ends), width pixels of
        timeline, lanes as `trawl chart --lanes` takes them ("cpu,slice",
        "all"; None: all but the thread states). The index is kept in the
        user's cache (cache=False: neither read nor written), so a second
        chart of the same file starts at once. Returns a trawl.Chart."""
        return _chart(self, start, end, width, lanes, irq_threshold, cache)

    def view(self, port=0, follow=False, cache=True, env=None):
        """Start `trawl view` of the trace on a loopback port (0: a free
        one) and return a trawl.Viewer: Jupyter shows it in a frame with
        its link (the URL carries the access token); .stop() ends it.
        follow: serve the file as it grows (a recording); env: the
        command's environment (None: this process's)."""
        return Viewer(self, port, follow, cache, env)

    # -- the analyses --------------------------------------------------------
    def _analysis(self, name, **kw):
        kw = {k: v for k, v in kw.items() if v is not None}
        worst = kw.get("worst")
        # as the command's --worst: 1 to 10000, said rather than clamped
        if worst is not None and (isinstance(worst, bool) or
                                  not isinstance(worst, int) or
                                  not 1 <= worst <= 10000):
            raise ValueError("worst: a number from 1 to 10000, not %r"
                             % (worst,))
        return _trawl.analysis(self.path, self.opts, name, **kw)

    def latency(self, kind="wakeup", table="rows", worst=None, pid=None,
                comm=None, start=None, end=None):
        """Wakeup or preemption latency per task: the table of `trawl
        latency KIND --csv` (kind, pid, cpu, comm, count, min, p50, p90,
        p99, max, total, max_at; the overall row first). table="worst":
        the longest instances; table="anomalies"."""
        if kind not in _LATENCY:
            raise ValueError("latency: 'wakeup' or 'preempt', not %r" % kind)
        parts = self._analysis("latency", kind=_LATENCY[kind], worst=worst,
                               pid=pid, comm=comm, start=start, end=end)
        return _table(parts, table, "from_cpu")

    def irq(self, threshold=None, table="rows", worst=None, pid=None,
            comm=None, start=None, end=None):
        """Hardirq and softirq handler durations: `trawl irq --csv` (kind,
        irq, cpu, name, ...). threshold (ns, default 1 ms): handlers longer
        than it are counted, in .attrs["long"]."""
        parts, long_count = self._analysis(
            "irq", threshold=threshold, worst=worst, pid=pid, comm=comm,
            start=start, end=end)
        df = _table(parts, table, "irq")
        df.attrs["long"] = long_count
        return df

    def workqueue(self, table="rows", worst=None, pid=None, comm=None,
                  start=None, end=None):
        """Work item execution time and queueing delay per function: `trawl
        workqueue --csv` (part, kind, id, cpu, name, ...)."""
        parts = self._analysis("workqueue", worst=worst, pid=pid, comm=comm,
                               start=start, end=end)
        return _table(parts, table, None)

    def slices(self, table="rows", worst=None, pid=None, comm=None,
               start=None, end=None):
        """systrace/atrace slices, async slices and counters: `trawl slices
        --csv` (part, kind, id, cpu, name, ..., self, depth)."""
        parts = self._analysis("slices", worst=worst, pid=pid, comm=comm,
                               start=start, end=end)
        return _table(parts, table, None, self_depth=True)

    def sched(self, pid=None, comm=None, start=None, end=None, table=None):
        """Run, runnable and sleep time per task, busy and idle per CPU:
        `trawl sched --csv`. A CPU runs what its last sched_switch switched
        in until its next one, whatever that one's prev_pid says, so the
        tasks' run never exceeds the CPUs' busy time; the disagreements are
        anomalies. .attrs: start, end, migrations_from, anomalies (how many
        in all); table="anomalies": them, one row per kind (what, count,
        first)."""
        r = self._analysis("sched", pid=pid, comm=comm, start=start, end=end)
        if table == "anomalies":
            return anomalies_frame([dict(name="sched",
                                         anomalies=r["anomalies"])])
        if table is not None:
            raise ValueError("table: None or 'anomalies', not %r" % table)
        df = sched_frame(r)
        df.attrs.update(start=r["start"], end=r["end"],
                        migrations_from=r["migrations_from"],
                        anomalies=sum(a[1] for a in r["anomalies"]))
        return df


_builtin_open = builtins.open


def _table(parts, table, worst_id, self_depth=False):
    if table == "rows":
        return rows_frame(parts, self_depth)
    if table == "worst":
        return worst_frame(parts, worst_id)
    if table == "anomalies":
        return anomalies_frame(parts)
    raise ValueError("table: 'rows', 'worst' or 'anomalies', not %r" % table)
