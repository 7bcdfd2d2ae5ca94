# SPDX-License-Identifier: MIT
"""Plots of what LISA users plot most, with matplotlib, each drawn from the
Trace's own frames and returning the Axes (ax= draws into yours):

    import trawl, trawl.plot
    tr = trawl.open("trace.dat")
    trawl.plot.latency_hist(tr, "wakeup")
    trawl.plot.latency_cdf(tr, "wakeup")
    trawl.plot.residency(tr)                 # per task: run/runnable/sleep
    trawl.plot.residency(tr, by="cpu")       # per CPU: busy/idle
    trawl.plot.task_states(tr, pid=1234)     # a task's states over time
    trawl.plot.frequency(tr)                 # cpu_frequency per CPU, steps
    trawl.plot.power_residency(tr)           # per CPU: share in each idle state
    trawl.plot.power_residency(tr, "frequency")   # ... at each frequency

Times are shown in ms from the trace's first event; durations in us.
Windows (start=, end=) are taken as the Trace's queries take them.
"""
import numpy as np

# the viewer's colours for the thread states (lib/view/chart-draw.c)
STATE_COLOURS = {"running": "#4a9a4a", "runnable": "#d9534f",
                 "sleeping": "#c8d8e8", "uninterruptible": "#e8a33d"}


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt
    return plt.subplots()[1]


def _durations_us(tr, kind, pid, comm, start, end):
    every = tr.latency(kind, table="all", pid=pid, comm=comm, start=start,
                       end=end)
    return every["duration"].to_numpy() / 1000.0


def latency_hist(tr, kind="wakeup", bins=50, log=True, pid=None, comm=None,
                 start=None, end=None, ax=None):
    """A histogram of every wakeup or preemption latency (us); log: a
    logarithmic count axis (the tail is what matters)."""
    ax = _axes(ax)
    d = _durations_us(tr, kind, pid, comm, start, end)
    ax.hist(d, bins=bins, log=log and len(d) > 0, color="#4a7ab0")
    ax.set_xlabel("%s latency (us)" % kind)
    ax.set_ylabel("instances")
    ax.set_title("%s latency: %d instances" % (kind, len(d)))
    return ax


def latency_cdf(tr, kind="wakeup", pid=None, comm=None, start=None,
                end=None, ax=None):
    """The cumulative distribution of every latency: the fraction of
    instances at or under each duration (us), with p50, p90, p99 marked."""
    ax = _axes(ax)
    d = np.sort(_durations_us(tr, kind, pid, comm, start, end))
    if len(d):
        y = np.arange(1, len(d) + 1) / len(d)
        ax.step(d, y, where="post", color="#4a7ab0")
        for q in (0.5, 0.9, 0.99):
            # the nearest-rank percentile, as the tables' p50..p99
            v = d[max(int(np.ceil(q * len(d))) - 1, 0)]
            ax.axvline(v, color="#999999", linewidth=0.8, linestyle=":")
            ax.annotate("p%d %.0f" % (q * 100, v), (v, q), fontsize=8)
    ax.set_xlabel("%s latency (us)" % kind)
    ax.set_ylabel("fraction of instances")
    ax.set_ylim(0, 1.02)
    return ax


def residency(tr, by="task", top=15, pid=None, comm=None, start=None,
              end=None, ax=None):
    """Where the time went, from tr.sched(): by="task", the top tasks by
    run time as stacked bars of run, runnable and sleep (ms); by="cpu",
    each CPU's busy and idle."""
    if by not in ("task", "cpu"):
        raise ValueError("by: 'task' or 'cpu', not %r" % (by,))
    ax = _axes(ax)
    s = tr.sched(pid=pid, comm=comm, start=start, end=end)
    if by == "task":
        rows = s[s["kind"] == "task"].head(top)
        labels = ["%s %d" % (c, p) for c, p in zip(rows["comm"], rows["pid"])]
        parts = [("run", STATE_COLOURS["running"]),
                 ("runnable", STATE_COLOURS["runnable"]),
                 ("sleep", STATE_COLOURS["sleeping"])]
    else:
        rows = s[s["kind"] == "cpu"]
        labels = ["CPU %d" % c for c in rows["cpu"]]
        parts = [("busy", STATE_COLOURS["running"]),
                 ("idle", STATE_COLOURS["sleeping"])]
    x = np.arange(len(rows))
    bottom = np.zeros(len(rows))
    for col, colour in parts:
        v = rows[col].fillna(0).to_numpy(dtype=float) / 1e6
        ax.bar(x, v, bottom=bottom, color=colour, label=col)
        bottom += v
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("ms")
    ax.legend(fontsize=8)
    return ax


def task_states(tr, pid=None, comm=None, start=None, end=None, ax=None):
    """tr.task_states() over time: a row per task, a bar per interval in
    the viewer's colours (running, runnable, sleeping, uninterruptible),
    time in ms from the trace's first event."""
    ax = _axes(ax)
    st = tr.task_states(pid=pid, comm=comm, start=start, end=end)
    origin = 0 if tr.relative else (tr.start_time or 0)
    pids = list(dict.fromkeys(st["pid"]))
    for row, p in enumerate(pids):
        mine = st[st["pid"] == p]
        for state, colour in STATE_COLOURS.items():
            iv = mine[mine["state"] == state]
            if len(iv):
                ax.broken_barh(
                    list(zip((iv["start"] - origin) / 1e6,
                             iv["duration"] / 1e6)),
                    (row - 0.4, 0.8), facecolors=colour, label=state)
    ax.set_yticks(range(len(pids)))
    names = st.groupby("pid", observed=True)["comm"].last()
    ax.set_yticklabels(["%s %d" % (names[p], p) for p in pids], fontsize=8)
    ax.set_xlabel("ms from the trace's start")
    handles, labels = ax.get_legend_handles_labels()
    seen = dict(zip(labels, handles))
    if seen:
        ax.legend(seen.values(), seen.keys(), fontsize=8)
    return ax


def frequency(tr, start=None, end=None, ax=None):
    """cpu_frequency per CPU as steps (kHz as the event gives it over ms
    from the trace's first event)."""
    ax = _axes(ax)
    f = tr.df("cpu_frequency", start=start, end=end)
    origin = 0 if tr.relative else (tr.start_time or 0)
    if not len(f):  # no cpu_frequency: no fields, no columns for them
        ax.set_title("no cpu_frequency events")
    for cpu, g in (f.groupby("cpu_id") if len(f) else ()):
        ax.step((g["time"] - origin) / 1e6, g["state"], where="post",
                label="CPU %d" % cpu)
    ax.set_xlabel("ms from the trace's start")
    ax.set_ylabel("kHz")
    if len(f):
        ax.legend(fontsize=8)
    return ax


def power_residency(tr, part="idle", start=None, end=None, ax=None):
    """Each CPU's time as one bar of 100 %, stacked by idle state ("active"
    first, then the states by number, with the kernel's names where the
    trace has them) or, part="frequency", by frequency (lowest first):
    tr.idle_residency()'s or tr.frequency_residency()'s share column."""
    if part not in ("idle", "frequency"):
        raise ValueError("part: 'idle' or 'frequency', not %r" % (part,))
    ax = _axes(ax)
    if part == "idle":
        r = tr.idle_residency(start=start, end=end)
        key, label = "state", "name"
    else:
        r = tr.frequency_residency(start=start, end=end)
        key, label = "khz", "frequency"
    cpus = sorted(r["cpu"].unique())
    if not cpus:
        ax.set_title("no cpu_%s events" % ("idle" if part == "idle"
                                           else "frequency"))
    x = np.arange(len(cpus))
    bottom = np.zeros(len(cpus))
    names = r.drop_duplicates(key).sort_values(key)
    colours = {"active": STATE_COLOURS["running"]}
    for k, name in zip(names[key], names[label]):
        mine = r[r[key] == k].set_index("cpu")["share"]
        v = np.array([100 * mine.get(c, 0.0) for c in cpus])
        ax.bar(x, v, bottom=bottom, label=name, color=colours.get(name))
        bottom += v
    ax.set_xticks(x)
    ax.set_xticklabels(["CPU %d" % c for c in cpus], fontsize=8)
    ax.set_ylabel("% of the CPU's known time")
    ax.set_ylim(0, 100)
    if cpus:
        ax.legend(fontsize=8)
    return ax
