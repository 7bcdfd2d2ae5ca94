# SPDX-License-Identifier: MIT
"""Times as the queries take them (start=, end=): what a notebook user
has at hand, turned into the trace's int64 ns.

- an int (Python or numpy): ns of trace time, as the frames' time column
  holds them (tr.df(...).time.iloc[0] goes straight back in);
- a float: seconds of trace time, as the text traces show them (1037.5);
- a str: as the command line's --from/--to take it, seconds or a number
  with a unit ("1037.512345", "1037512ms", "500us"), exact (no float);
  with a leading "+" an offset from the trace's first event ("+0.5",
  "+500us");
- a timedelta (datetime, numpy or pandas): an offset from the first event.

On a Trace opened with relative=True every time is an offset from the
first event, numbers and strings too.
"""
import datetime
import decimal
import numbers
import re

import numpy as np

_UNITS = {"ns": 1, "us": 1000, "ms": 10**6, "s": 10**9, "sec": 10**9}
_TEXT = re.compile(r"^\s*(\+?)\s*(-?(?:\d+\.?\d*|\.\d+))\s*([a-z]*)\s*$")

_WHAT = ("%s: a trace time: ns as an int (the frames' time), seconds as a "
         "float or a string (1037.5, '1037.5', '500us'), or an offset "
         "from the trace's first event ('+0.5', '+500us', a timedelta); "
         "not %r")


def _text_ns(what, value):
    m = _TEXT.match(value)
    if not m or m.group(3) not in ("",) + tuple(_UNITS):
        raise ValueError(_WHAT % (what, value))
    scale = _UNITS[m.group(3)] if m.group(3) else 10**9
    ns = decimal.Decimal(m.group(2)) * scale
    return int(ns.to_integral_value(decimal.ROUND_HALF_EVEN)), \
        m.group(1) == "+"


def to_ns(what, value, origin, relative=False):
    """value as ns of trace time, or None for None; origin() gives the
    trace's first event time (called only for an offset)."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(_WHAT % (what, value))
    if isinstance(value, (datetime.timedelta, np.timedelta64)):
        # (before the ints: numpy's timedelta64 is a signedinteger)
        ns = int(np.timedelta64(value, "ns").astype(np.int64))
        offset = True
    elif isinstance(value, numbers.Integral):
        ns, offset = int(value), relative
    elif isinstance(value, numbers.Real):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(_WHAT % (what, value))
        # the shortest decimal that is this float: 1037.1 is 1037.1 s,
        # not 1037.0999999999999 s
        ns = decimal.Decimal(repr(float(value))) * 10**9
        ns, offset = int(ns.to_integral_value(decimal.ROUND_HALF_EVEN)), \
            relative
    elif isinstance(value, str):
        ns, offset = _text_ns(what, value)
        offset = offset or relative
    else:
        raise TypeError(_WHAT % (what, value))
    if offset:
        first = origin()
        ns += first if first is not None else 0
    if not -2**63 <= ns < 2**63:
        raise ValueError(_WHAT % (what, value))
    return ns


def window(start, end, origin, relative=False):
    """(start ns or None, end ns or None), checked."""
    lo = to_ns("start", start, origin, relative)
    hi = to_ns("end", end, origin, relative)
    if lo is not None and hi is not None and hi < lo:
        raise ValueError("end (%r) is before start (%r)" % (end, start))
    return lo, hi
