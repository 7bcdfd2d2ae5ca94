# SPDX-License-Identifier: MIT
"""DataFrames from what the _trawl extension hands back: columns already
filled in C as numpy arrays (no Python object per row), analysis rows, and
the script language's JSON."""
import json

import numpy as np
import pandas as pd


def column(kind, values, mask, categories):
    """One column: numpy values with a mask of missing rows (or None), or
    codes into categories."""
    if kind == "cat":
        return pd.Categorical.from_codes(values, categories=categories)
    if kind == "obj":
        return values
    if mask is None:
        return values
    if kind == "i32":
        values = values.astype(np.int64)
    # a nullable integer column: the values and which rows lack them
    return pd.arrays.IntegerArray(values, mask)


def frame(columns):
    """A DataFrame of the columns; .attrs["display_only"] names the
    fields some event showed in a form that lost the value (a hashed %p
    pointer, a %pS symbol: text; or not shown: missing), as `trawl report
    --json` does per event."""
    data = {}
    shown = []
    for name, kind, values, mask, categories, display_only in columns:
        data[name] = column(kind, values, mask, categories)
        if display_only:
            shown.append(name)
    # a "<name>_label" column right after its field
    order = [k for k in data if not (k.endswith("_label") and
                                     k[:-6] in data)]
    for k in list(data):
        if k not in order:
            order.insert(order.index(k[:-6]) + 1, k)
    data = {k: data[k] for k in order}
    n = len(columns[0][2]) if columns else 0
    # copy=False: the arrays become the frame's own, not copied into
    # consolidated blocks (the frame is its columns' size)
    df = pd.DataFrame(data, index=pd.RangeIndex(n), copy=False)
    df.attrs["display_only"] = shown
    return df


SUMMARY = ["count", "min", "p50", "p90", "p99", "max", "total"]

# The --csv columns of each command: the key naming a row's id and name,
# and whether slices' self time and depth come along.
STYLES = {
    "wakeup": ("pid", "comm"), "preempt": ("pid", "comm"),
    "irq": ("irq", "name"),
    "execution": ("id", "function"), "queue_delay": ("id", "function"),
    "slices": ("tid", "name"), "async": ("pid", "name"),
    "counters": ("pid", "name"),
}


def _nullable(values):
    return pd.array(values, dtype="Int64")


def rows_frame(parts, self_depth=False):
    """Analysis parts as the command's --csv table: the overall row first
    (kind "overall", no id, cpu or name), then the rows. Several parts share
    one table with a "part" column and generic names (id, name)."""
    multi = len(parts) > 1
    out = []
    for p in parts:
        id_key, name_key = ("id", "name") if multi else STYLES.get(
            p["name"], ("id", "name"))
        recs = [("overall", None, None, None) + tuple(p["overall"]) +
                (None, None, None)]
        for kind, name, rid, cpu, summ, max_at, self_ns, depth in p["rows"]:
            recs.append((kind, rid if rid >= 0 else None,
                         cpu if cpu >= 0 else None, name) + tuple(summ) +
                        (max_at, self_ns, depth))
        cols = ["kind", id_key, "cpu", name_key] + SUMMARY + [
            "max_at", "self", "depth"]
        df = pd.DataFrame.from_records(recs, columns=cols)
        for c in [id_key, "cpu", "max_at", "self", "depth"]:
            df[c] = _nullable(df[c])
        # nothing measured (count 0) has no min, percentiles or max
        empty = df["count"] == 0
        for c in SUMMARY:
            if c in ("count", "total"):
                df[c] = df[c].astype("int64")
            else:
                df[c] = _nullable(df[c].where(~empty, None))
        if not self_depth:
            df = df.drop(columns=["self", "depth"])
        if multi:
            df.insert(0, "part", p["name"])
        out.append(df)
    return pd.concat(out, ignore_index=True) if len(out) > 1 else out[0]


def residency_frame(part, key, label):
    """A power part's rows: cpu, key (khz or state), label (frequency or
    name), count, total, share (of the CPU's known time: the totals of
    its rows), min, p50, p90, p99, max, max_at; by CPU, then key."""
    recs = [(cpu, rid, name) + tuple(summ) + (max_at,)
            for kind, name, rid, cpu, summ, max_at, _, _ in part["rows"]]
    df = pd.DataFrame.from_records(
        recs, columns=["cpu", key, label] + SUMMARY + ["max_at"])
    for c in ("cpu", key, "count", "total", "max_at"):
        df[c] = df[c].astype("int64")
    span = df.groupby("cpu")["total"].transform("sum")
    df["share"] = (df["total"] / span.where(span > 0)).fillna(0.0)
    return df[["cpu", key, label, "count", "total", "share", "min", "p50",
               "p90", "p99", "max", "max_at"]]


def worst_frame(parts, id_key=None):
    """The longest instances: part, then kind where the analysis has
    several in one part (irq: hardirq or softirq, whose numbers overlap),
    start, end, duration, pid, cpu, the id and the name."""
    recs = []
    kinds = any(w[6] is not None for p in parts for w in p["worst"])
    for p in parts:
        for start, end, pid, cpu, iid, name, kind in p["worst"]:
            recs.append((p["name"],) + ((kind,) if kinds else ()) +
                        (start, end, end - start, pid, cpu, iid, name))
    df = pd.DataFrame.from_records(
        recs, columns=["part"] + (["kind"] if kinds else []) + [
            "start", "end", "duration", "pid", "cpu", id_key or "id",
            "name"])
    return df


def _categorical(pair):
    codes, names = pair
    return pd.Categorical.from_codes(codes, categories=names)


def instances_frame(iv, id_key=None):
    """Every instance an analysis measured, the columns of worst_frame(),
    in the order they ended."""
    kinds = bool(len(iv["kind"][1]))
    data = {"part": _categorical(iv["part"])}
    if kinds:
        data["kind"] = _categorical(iv["kind"])
    data.update(start=iv["start"], end=iv["end"],
                duration=iv["end"] - iv["start"],
                pid=iv["pid"].astype(np.int64),
                cpu=iv["cpu"].astype(np.int64))
    data[id_key or "id"] = iv["id"]
    data["name"] = _categorical(iv["name"])
    return pd.DataFrame(data, copy=False)


# enum trawl_task_state_kind, as the viewer names the states
TASK_STATES = ["running", "runnable", "sleeping", "uninterruptible"]


def states_frame(iv):
    """Task state intervals (id: the state 1..4, name: the comm) by start,
    equal starts by pid."""
    order = np.lexsort((iv["pid"], iv["start"]))
    state = pd.Categorical.from_codes(
        iv["id"][order].astype(np.int32) - 1, categories=TASK_STATES)
    codes, comms = iv["name"]
    start, end = iv["start"][order], iv["end"][order]
    return pd.DataFrame({
        "pid": iv["pid"][order].astype(np.int64),
        "comm": pd.Categorical.from_codes(codes[order], categories=comms),
        "cpu": iv["cpu"][order].astype(np.int64),
        "state": state,
        "start": start, "end": end, "duration": end - start,
    }, copy=False)


def anomalies_frame(parts):
    recs = [(p["name"],) + tuple(a) for p in parts for a in p["anomalies"]]
    return pd.DataFrame.from_records(
        recs, columns=["part", "what", "count", "first"])


SCHED_TASK = ["count", "run", "runnable", "sleep", "switches", "preempted",
              "migrations"]


def sched_frame(r):
    """trawl sched --csv, its "id" split as everywhere else in Python: the
    overall row, a row per task (kind "task", its pid), a row per CPU
    (kind "cpu", its cpu, busy and idle)."""
    recs = [("overall", None, None, None) + tuple(r["overall"][2:]) +
            (None, None)]
    for t in r["tasks"]:
        recs.append(("task", t[0], None, t[1]) + tuple(t[2:]) +
                    (None, None))
    for cpu, busy, idle, switches in r["cpus"]:
        recs.append(("cpu", None, cpu, None, None, None, None, None,
                     switches, None, None, busy, idle))
    df = pd.DataFrame.from_records(
        recs, columns=["kind", "pid", "cpu", "comm"] + SCHED_TASK +
        ["busy", "idle"])
    for c in ["pid", "cpu"] + SCHED_TASK + ["busy", "idle"]:
        df[c] = _nullable(df[c])
    return df


def name_ids(df, analysis):
    """The commands' generic "id" as Python names it: the task is "pid"
    in every table (slices: the writing thread; async and counters: the
    process), a slice's nesting "depth" and an async slice's "cookie" in
    the instance tables, and workqueue's, which is never set, not at
    all."""
    if "id" not in df.columns:
        return df
    if analysis == "workqueue":
        return df.drop(columns=["id"])
    if analysis != "slices":
        return df
    if "duration" not in df.columns:  # the rows
        return df.rename(columns={"id": "pid"})
    at = list(df.columns).index("id")
    ids = df.pop("id")
    df.insert(at, "cookie", _nullable(ids.where(df["part"] == "async")))
    df.insert(at, "depth", _nullable(ids.where(df["part"] == "slices")))
    return df


def _key_columns(key):
    if key is None:
        return {}
    if isinstance(key, list):
        return {"key%d" % i: k for i, k in enumerate(key)} if len(
            key) > 1 else {"key": key[0]}
    return {"key": key}


def map_frame(entries):
    """One map of `trawl run --json`: a row per key (key, or key0, key1...
    for a tuple key) and its value; stats() values as count, sum, avg,
    min, max columns; hist() and lhist() as a row per bucket (min, max,
    count)."""
    recs = []
    for e in entries:
        keys = _key_columns(e.get("key"))
        v = e.get("value")
        if isinstance(v, list):
            for b in v:
                recs.append(dict(keys, **b))
        elif isinstance(v, dict):
            recs.append(dict(keys, **v))
        else:
            recs.append(dict(keys, value=v))
    return pd.DataFrame.from_records(recs) if recs else pd.DataFrame()


class ScriptResult(dict):
    """The maps of a script run by name ("@", "@name") as DataFrames; the
    text its printf and print() wrote is .output, and runtime faults
    (division by zero, a full map) are .faults, a list of (message,
    count)."""

    output = ""
    faults = ()


def script_result(text, faults):
    doc = json.loads(text) if text.strip() else {}
    res = ScriptResult()
    res.output = doc.pop("output", "")
    res.faults = list(faults)
    for name, entries in doc.items():
        res[name] = map_frame(entries)
    return res
