# SPDX-License-Identifier: MIT
"""What the Python API tests share: the trawl command and the fixtures (from
the environment meson test sets: TRAWL_EXE, TRAWL_FIXTURES; PYTHONPATH
names the build tree's python/), and the command's own answers to check
against."""
import json
import os
import subprocess

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.environ.get("TRAWL_FIXTURES", os.path.join(TOP, "tests",
                                                         "fixtures"))
TRAWL = os.environ.get("TRAWL_EXE", os.path.join(TOP, "build", "trawl"))


def fixture(name):
    return os.path.join(FIXTURES, name)


def clean_env():
    """The environment for the trawl command: without the sanitizer runtime
    an ASan build preloads into Python (the command has its own)."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


def cli(*args, check=True):
    r = subprocess.run([TRAWL] + [str(a) for a in args], capture_output=True,
                       text=True, env=clean_env())
    if check and r.returncode != 0:
        raise AssertionError("trawl %s: %s" % (" ".join(map(str, args)),
                                               r.stderr))
    return r


def cli_json(*args):
    return json.loads(cli(*args).stdout)


def cli_csv(*args):
    import io
    return pd.read_csv(io.StringIO(cli(*args).stdout), keep_default_na=False,
                       na_values=[""])


def report(path, events):
    """trawl report --json FILE --events EVENTS: the events as dicts."""
    return cli_json("report", "--json", "--events", events, path)


def cell(v):
    """A frame's cell as plain Python (NA, NaN -> None)."""
    if v is None or v is pd.NA:
        return None
    try:
        if pd.isna(v):
            return None
    except (TypeError, ValueError):
        pass
    if hasattr(v, "item"):
        return v.item()
    if isinstance(v, tuple):
        return list(v)
    return v
