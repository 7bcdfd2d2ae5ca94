# SPDX-License-Identifier: MIT
"""Many traces at once: a function of a Trace over every file, on Dask.

    import trawl.fleet
    df = trawl.fleet.run("traces/*.dat", lambda tr: tr.latency("wakeup"))

Each trace is opened and read in a Dask task (a LocalCluster of worker
processes by default, or the scheduler at the address given); what the
function returns becomes rows of one DataFrame with a "trace" column (the
path) first. A trace that fails (not a trace, cut, the function raised)
does not stop the others: it is a row with its "trace" and, in the "error"
column, "ExceptionType: message"; the "error" column is always there
(empty for good rows), so `df[df.error.isna()]` is the results and
`df[df.error.notna()]` the failures. Integer columns are nullable (Int64)
whether or not a trace failed, so their type does not depend on it;
errors="attrs" keeps the failures out of the rows instead (in
df.attrs["errors"]) and the columns as fn made them. df.attrs["rows"] says
how many rows each trace that ran gave, 0 for an empty result: no trace
goes missing without a word.

In a script, run it under `if __name__ == "__main__":` (Dask's worker
processes import the main module again).

From the command line, `trawl fleet SCRIPT.tw DIR` (or `python3 -m
trawl.fleet`) runs a script over every trace in DIR and prints the maps as
CSV with "trace" and "map" columns.
"""
import argparse
import glob
import logging
import os
import sys

import pandas as pd

import trawl


def expand(paths):
    """Paths from a glob, a directory (its files, not recursive, without
    hidden ones), a file, or a list of those, sorted within each."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out = []
    for p in paths:
        p = os.fspath(p)
        if os.path.isdir(p):
            out += sorted(os.path.join(p, f) for f in os.listdir(p)
                          if not f.startswith(".") and
                          os.path.isfile(os.path.join(p, f)))
        elif any(c in p for c in "*?[") and not os.path.exists(p):
            out += sorted(glob.glob(p))
        else:
            out.append(p)
    return out


def as_frame(result):
    """What a function returned, as a DataFrame: a DataFrame as it is; a
    dict of DataFrames (a script's maps) stacked with a "map" column; a
    Series, a dict or a scalar as one row; a list as rows."""
    if isinstance(result, pd.DataFrame):
        return result
    if isinstance(result, dict) and result and all(
            isinstance(v, pd.DataFrame) for v in result.values()):
        parts = [v.assign(map=k)[["map"] + list(v.columns)]
                 for k, v in result.items()]
        return pd.concat(parts, ignore_index=True)
    if isinstance(result, pd.Series):
        return result.to_frame().T.reset_index(drop=True)
    if isinstance(result, dict):
        return pd.DataFrame([result])
    if isinstance(result, (list, tuple)):
        return pd.DataFrame(list(result))
    return pd.DataFrame({"value": [result]})


def one(path, fn, opts):
    """The task of one trace: (path, frame or None, error or None)."""
    try:
        df = as_frame(fn(trawl.open(path, **(opts or {}))))
        return (path, df, None)
    except Exception as e:  # reported per trace, not fatal
        return (path, None, "%s: %s" % (type(e).__name__, e))


def combine(results, errors="rows"):
    """The good traces' frames, each with its "trace" column, then (errors
    "rows") a row per failed trace, "error" last; .attrs["rows"]: {trace:
    rows it gave}; errors "attrs" (checked by run()): .attrs["errors"]
    {trace: message}."""
    frames, failed, rows = [], [], {}
    for path, df, err in results:
        if err is not None:
            failed.append((path, err))
            continue
        rows[path] = len(df)
        df = df.copy()
        df.insert(0, "trace", path)
        frames.append(df)
    # pandas 1.5 makes integers float beside an empty frame lacking them
    frames = [f for f in frames if len(f)] or frames[:1]
    out = pd.concat(frames, ignore_index=True) if frames else \
        pd.DataFrame({"trace": pd.Series([], dtype=object)})
    if errors == "attrs":
        out.attrs["rows"] = rows
        out.attrs["errors"] = dict(failed)
        return out
    out["error"] = pd.Series([None] * len(out), dtype=object)
    # integers stay integers beside the failed traces' empty cells, and
    # are of one type whether or not a trace failed
    for c in out.columns:
        if pd.api.types.is_integer_dtype(out[c].dtype) and \
                not pd.api.types.is_extension_array_dtype(out[c].dtype):
            out[c] = out[c].astype("Int64")
    if failed:
        bad = pd.DataFrame({"trace": [p for p, _ in failed],
                            "error": [e for _, e in failed]})
        out = pd.concat([out, bad], ignore_index=True)
    out.attrs["rows"] = rows
    return out


def run(paths_or_glob, fn, scheduler=None, workers=None, opts=None,
        errors="rows"):
    """Run fn(trace) over every trace, in parallel; one DataFrame back.

    paths_or_glob: a glob ("traces/*.dat"), a directory, a path or a list.
    fn: a function of a trawl.Trace (it is sent to the workers with
        cloudpickle, so a lambda or a local function will do).
    scheduler: None for a LocalCluster of `workers` processes (default:
        the machine's CPUs), one thread each, made and closed here; a
        scheduler address ("tcp://host:8786") whose workers can import
        trawl; a dask.distributed.Client; or "serial" (in this process,
        one after the other, no Dask).
    opts: the options of trawl.open() for every trace.
    errors: "rows" (a row per failed trace, an "error" column) or "attrs"
        (df.attrs["errors"], no error rows); df.attrs["rows"] either way.
    """
    if errors not in ("rows", "attrs"):
        raise ValueError("errors: 'rows' or 'attrs', not %r" % (errors,))
    paths = expand(paths_or_glob)
    if scheduler == "serial":
        return combine([one(p, fn, opts) for p in paths], errors)
    from dask.distributed import Client, LocalCluster
    if isinstance(scheduler, Client):
        return combine(_gather(scheduler, paths, fn, opts), errors)
    if scheduler is not None:
        with Client(scheduler) as client:
            return combine(_gather(client, paths, fn, opts), errors)
    n = workers or min(os.cpu_count() or 1, max(len(paths), 1))
    with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                      dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        return combine(_gather(client, paths, fn, opts), errors)


def _gather(client, paths, fn, opts):
    futures = client.map(one, paths, fn=fn, opts=opts, pure=False)
    return client.gather(futures)


class Script:
    """A picklable function of a Trace that runs a trawl script."""

    def __init__(self, source, name="<script>"):
        self.source = source
        self.name = name

    def __call__(self, tr):
        return tr.run(self.source, name=self.name)


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="trawl fleet",
        description="Run a trawl script over many traces on Dask; print "
        "its maps as one table with trace and map columns.")
    ap.add_argument("script", help="the script (.tw), or -e PROGRAM")
    ap.add_argument("traces", nargs="+",
                    help="directories, globs or files of traces")
    ap.add_argument("-e", "--program", action="store_true",
                    help="SCRIPT is the program text, not a file")
    ap.add_argument("--workers", type=int, default=None,
                    help="local worker processes (default: the CPUs)")
    ap.add_argument("--scheduler", default=None,
                    help="a Dask scheduler address instead of a local "
                    "cluster, or 'serial'")
    ap.add_argument("--json", action="store_true",
                    help="JSON records instead of CSV")
    ap.add_argument("--formats", default=None,
                    help="event formats for text traces (as trawl run)")
    a = ap.parse_args(argv)
    if a.program:
        source, name = a.script, "<program>"
    else:
        try:
            with open(a.script) as f:
                source = f.read()
        except OSError as e:
            print("trawl fleet: cannot read %s: %s" % (a.script, e.strerror),
                  file=sys.stderr)
            return 1
        name = a.script
    paths = expand(a.traces)
    if not paths:
        print("trawl fleet: no traces in %s" % " ".join(a.traces),
              file=sys.stderr)
        return 1
    opts = {"formats": a.formats} if a.formats else None
    df = run(paths, Script(source, name), scheduler=a.scheduler,
             workers=a.workers, opts=opts)
    bad = df[df["error"].notna()]
    for path, err in zip(bad["trace"], bad["error"]):
        print("trawl fleet: %s: %s" % (path, err), file=sys.stderr)
    good = df[df["error"].isna()].drop(columns=["error"])
    try:
        if a.json:
            sys.stdout.write(good.to_json(orient="records", lines=True))
        else:
            good.to_csv(sys.stdout, index=False)
        sys.stdout.flush()
    except BrokenPipeError:  # | head: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 1 if len(bad) else 0


if __name__ == "__main__":
    sys.exit(main())
