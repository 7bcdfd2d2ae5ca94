#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that one kernel buffer read two ways is the same trace in trawl.

usage: check-pair.py TRAWL TEXT DAT [--summary] [--json] [--diffs N]

TEXT is the kernel's `trace` text of a buffer and DAT `trace-cmd extract` of
the same buffer (tests/fixtures/record-pair.sh makes such pairs). Both must
give the same events with the same field names, values, text, `trawl
report` lines and analysis results:

- `trawl report FILE --json` and `trawl report FILE` of both. Events are
  matched one to one by (time in us, cpu, event, pid), in order within
  equal keys (seq order may differ between equal times). The kernel prints
  a time in us rounded from its ns (ns2usecs() adds 500), so a .dat time is
  rounded the same way; a match by truncation is taken too and counted.
- Per matched pair:
  names   the field names, as ordered lists, are identical;
  values  every field has the same value and JSON type (1 is not "1" nor
          true), the "labels" objects are identical; fields named in either
          side's "display_only" list are not compared by value (a hashed %p
          or a %pS symbol in a text trace), but must exist on both sides;
  text    "text" is identical (where an event has no "text", the payload of
          its line in the TEXT file, or of its `trawl report` line);
  report  the `trawl report` lines are identical without the seq column
          and with the time rounded to us.
  In text and report lines the printed values of display_only fields are
  masked (each field's value, as a whole word, at its first place after
  the previous field's), and a hashed pointer of the TEXT ("00000000" and
  8 hex digits, as %p prints) matches any pointer of the DAT (hex, 0x hex,
  "(nil)"): a hashed %p can only be printed from the kernel's text.
- `trawl latency wakeup`, `trawl irq`, `trawl sched` and `trawl workqueue`
  with --json: counts exactly; a sum of N intervals within 1000 * N ns
  (total: N = count; run/runnable/sleep: count + switches + 1; busy/idle:
  switches + 1); min/max/percentiles and times within 1000 ns (percentiles
  of more than 256 samples also within twice their 0.4 % binning); rows matched
  by their key (pid/comm, irq, function...), "worst" rows by key and a
  start within 1000 ns (a row at the cut-off of a full list may be missing
  on one side if it is within 1000 ns of the other side's shortest). Each
  analysis but sched runs again with --worst 10000, whose lists of every
  instance are compared the same way, and which tell a max_at that differs
  because two instances are within 1000 ns of the longest (a near-tie,
  noted) from a wrong one.

Prints a table per event type (events, names/values/text/report agree %),
then (without --summary) the kinds of field differences seen, the first
--diffs N (default 3) differences of each check per type with both sides,
and the analyses. The last line is the overall verdict. --json prints all
of it as one JSON object instead.

Exit status: 0 when everything agrees, 1 when anything disagrees (or trawl
fails on a file), 2 on usage errors. Python 3 standard library only.
"""
import collections
import gzip
import json
import math
import os
import re
import subprocess
import sys

USAGE = "usage: check-pair.py TRAWL TEXT DAT [--summary] [--json] [--diffs N]"
ANALYSES = [["latency", "wakeup"], ["irq"], ["sched"], ["workqueue"]]
SIDES = ("text", "dat")


class Failed(Exception):
    pass


def usage(msg=None):
    if msg:
        print("check-pair: " + msg, file=sys.stderr)
    print(USAGE, file=sys.stderr)
    sys.exit(2)


def run_trawl(trawl, args):
    p = subprocess.run([trawl] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise Failed("trawl %s: exit %d: %s" % (
            " ".join(args), p.returncode,
            p.stderr.decode("utf-8", "replace").strip()[:500]))
    return p.stdout.decode("utf-8", "surrogateescape")


# ---------------------------------------------------------------- times ---

def kernel_us(ns):
    """The kernel's ns -> us for its text (ns2usecs: +500, then / 1000)."""
    return (ns + 500) // 1000


def ts_ns(s):
    """'6018.274208611' -> ns (any number of decimals up to 9)."""
    sec, _, frac = s.partition(".")
    return int(sec) * 1000000000 + int((frac + "000000000")[:9])


def ts_us_text(s):
    if not re.match(r"^\d+\.\d{1,9}$", s):
        return s  # not a time (an instance name: compared as it is)
    us = kernel_us(ts_ns(s))
    return "%d.%06d" % (us // 1000000, us % 1000000)


# --------------------------------------------------------------- inputs ---

# A kernel text line: comm-pid [(tgid)] [cpu] [flags] secs.us: name: rest
KLINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+(?:\(\s*[\d-]+\)\s+)?"
                   r"\[(?P<cpu>\d+)\]\s+(?:[^\s\[]{4,5}\s+)?"
                   r"(?P<ts>\d+\.\d+):\s(?P<rest>.*)$")


def file_payloads(path):
    """Event lines of a kernel text file in order: (pid, cpu, name, text
    after the name, text after the timestamp). None if not readable so."""
    try:
        if path.endswith(".gz"):
            f = gzip.open(path, "rt", encoding="utf-8", errors="surrogateescape")
        elif path.endswith((".txt", ".trace")) or "." not in os.path.basename(path):
            f = open(path, encoding="utf-8", errors="surrogateescape")
        else:
            return None
        out = []
        with f:
            for line in f:
                line = line.rstrip("\n")
                if (not line.strip() or line.startswith("#")
                        or re.match(r"^CPU:\d+ \[LOST \d+ EVENTS\]", line)):
                    continue
                m = KLINE.match(line)
                if not m:
                    out.append(None)
                    continue
                rest = m.group("rest")
                name, sep, after = rest.partition(":")
                out.append((int(m.group("pid")), int(m.group("cpu")), name,
                            after[1:] if after.startswith(" ") else after,
                            rest))
        return out
    except OSError:
        return None


PLAIN = re.compile(r"^\s*(\d+) (\S+) (.*)$")


class Side:
    def __init__(self, trawl, path, label):
        self.path = path
        self.label = label
        self.events = json.loads(run_trawl(trawl, ["report", path, "--json"]))
        plain = run_trawl(trawl, ["report", path]).split("\n")
        if plain and plain[-1] == "":
            plain.pop()
        if len(plain) != len(self.events):
            raise Failed("%s: trawl report prints %d lines, --json %d events"
                         % (path, len(plain), len(self.events)))
        self.plain = []      # normalised report line (no seq, time in us)
        self.plain_raw = []
        self.plain_payload = []
        for ev, line in zip(self.events, plain):
            m = PLAIN.match(line)
            if not m or int(m.group(1)) != ev["seq"]:
                raise Failed("%s: report line and JSON event %d differ: %s"
                             % (path, ev["seq"], line[:200]))
            self.plain.append(ts_us_text(m.group(2)) + " " + m.group(3))
            self.plain_raw.append(line)
            pre = "%s-%d" % (ev["comm"], ev["pid"])
            rest = m.group(3)
            i = rest.find("] ")
            rest = rest[i + 2:] if i >= 0 else rest
            pl = None
            if rest.startswith(pre + " ") or rest.startswith(pre + " ("):
                j = rest.find(" %s: " % ev["event"], len(pre))
                if j >= 0:
                    pl = rest[j + len(ev["event"]) + 3:]
                elif rest.endswith(" %s:" % ev["event"]):
                    pl = ""
            self.plain_payload.append(pl)
        self.lines = None
        if not any("text" in ev and ev.get("fields") for ev in self.events):
            self.lines = file_payloads(path)
            if self.lines is not None and len(self.lines) < len(self.events):
                self.lines = None
        self.text_from = collections.Counter()

    def text(self, i):
        """The event's text: "text", else its line's payload in the file,
        else its `trawl report` line's payload."""
        ev = self.events[i]
        if "text" in ev:
            self.text_from["json"] += 1
            return ev["text"]
        seq = ev["seq"]
        if self.lines is not None and seq < len(self.lines) and self.lines[seq]:
            pid, cpu, name, after, whole = self.lines[seq]
            if pid == ev["pid"] and cpu == ev["cpu"]:
                self.text_from["file"] += 1
                # print, bprint, function: the "name" is the text's symbol
                return after if name == ev["event"] else whole
        self.text_from["report"] += 1
        return self.plain_payload[i]


# ------------------------------------------------------------- matching ---

def match(a, b):
    """Pairs (i, j) of a's and b's events, and the unmatched of each.
    Returns also how many matched by rounding / by truncation."""
    by_key = collections.defaultdict(collections.deque)
    for i, ev in enumerate(a.events):
        by_key[(kernel_us(ev["time"]), ev["cpu"], ev["event"], ev["pid"])].append(i)
    pairs, only_b = [], []
    rule = collections.Counter()
    for j, ev in enumerate(b.events):
        rest = (ev["cpu"], ev["event"], ev["pid"])
        for how, us in (("round", kernel_us(ev["time"])),
                        ("trunc", ev["time"] // 1000)):
            q = by_key.get((us,) + rest)
            if q:
                pairs.append((q.popleft(), j))
                rule[how] += 1
                break
        else:
            only_b.append(j)
    only_a = sorted(i for q in by_key.values() for i in q)
    pairs.sort()
    return pairs, only_a, only_b, rule


# --------------------------------------------------------------- values ---

def same(x, y):
    """Equal value and JSON type (bool, int, float, str, list, dict)."""
    if type(x) is not type(y):
        return False
    if isinstance(x, list):
        return len(x) == len(y) and all(same(p, q) for p, q in zip(x, y))
    if isinstance(x, dict):
        return list(x) == list(y) and all(same(x[k], y[k]) for k in x)
    return x == y


HASHED = re.compile(r"^0{8}[0-9a-f]{8}$")
RAWPTR = re.compile(r"^(0x)?ffff[0-9a-f]{12}$")
SYMOFF = re.compile(r"^[A-Za-z_.][\w.]*\+0x[0-9a-f]+(/0x[0-9a-f]+)?$")
SYMBOLIC = re.compile(r"^[A-Za-z_][\w+]*( ?\| ?[A-Za-z_][\w+]*)*$")
NUMSTR = re.compile(r"^-?(0x[0-9a-fA-F]+|\d+)$")
UNIT = re.compile(r"^-?\d+ ?(\[\w+\]|[A-Za-z]+)$")


def jtype(v):
    return {bool: "bool", int: "number", float: "number", str: "string",
            list: "list", dict: "object", type(None): "null"}.get(type(v), "?")


def value_kind(x, y):
    """A short name for how a text value x and a dat value y differ."""
    for u, v in ((x, y), (y, x)):
        if u == "" and (isinstance(v, int) or (isinstance(v, str) and NUMSTR.match(v))):
            return "empty __print_flags text vs number"
        if u == "0000000000000000" and v in ("(nil)", 0, "0x0"):
            return "NULL %p: 0000000000000000 vs (nil)/0"
        if u in ("true", "false") and (v in (0, 1) or isinstance(v, bool)):
            return "true/false words vs 0/1"
    for u, v in ((x, y), (y, x)):
        if isinstance(u, str) and HASHED.match(u) and (
                isinstance(v, int) or (isinstance(v, str) and RAWPTR.match(v))):
            return "hashed %p pointer vs raw address"
    for u, v in ((x, y), (y, x)):
        if isinstance(u, str) and re.match(r"^[A-Za-z_.][\w.]*$", u) and (
                (isinstance(v, str) and re.match(r"^(0x)?ffffffff[0-9a-f]{8}$", v))
                or (isinstance(v, int) and v >= 0xffffffff80000000)):
            return "%ps symbol (as a string) vs kernel address"
    if isinstance(x, str) and isinstance(y, str) and SYMOFF.match(x) and SYMOFF.match(y):
        if x.split("/")[0] == y.split("/")[0]:
            return "%pS sym+off/size vs sym+off"
        return "%pS symbols differ"
    for u, v in ((x, y), (y, x)):
        if isinstance(u, str) and u.startswith("ARRAY["):
            return "array as an ARRAY[...] string"
        if isinstance(u, str) and UNIT.match(u) and isinstance(v, int):
            return "value with a unit (\"N [ns]\", \"NB\") vs number"
    for u, v in ((x, y), (y, x)):
        if isinstance(u, str) and SYMBOLIC.match(u) and not NUMSTR.match(u) and (
                isinstance(v, (int, bool)) or (isinstance(v, str) and NUMSTR.match(v))):
            return "symbolic value (print_symbolic/flags, ?:) vs number"
    if isinstance(x, str) and isinstance(y, str) and NUMSTR.match(x) and NUMSTR.match(y):
        return "numbers spelled differently"
    for u, v in ((x, y), (y, x)):
        if isinstance(u, str) and NUMSTR.match(u) and isinstance(v, int):
            try:
                if int(u, 0 if u.lower().startswith(("0x", "-0x")) else 10) == v:
                    return "number as a string vs number"
            except ValueError:
                pass
            return "number as a string vs another number"
    if jtype(x) != jtype(y):
        return "JSON types differ (%s vs %s)" % (jtype(x), jtype(y))
    return "values differ"


def names_kinds(na, nb):
    """Kinds of a field-name difference (text names na, dat names nb)."""
    if not na and nb:
        return ["text: no fields (payload not key=value)"]
    if na and not nb:
        return ["dat: no fields"]
    sa, sb = set(na), set(nb)
    if sa == sb:
        return ["same names, other order"]
    kinds = []
    if sa - sb:
        kinds.append("field only in text (a print label or computed argument)")
    if sb - sa:
        kinds.append("field only in dat (a format field not printed, or printed under a label)")
    return kinds


def values_differ(ea, eb):
    """[(field, text value, dat value, kind)] of a matched pair; display_only
    fields are skipped; labels compared as a whole."""
    fa, fb = ea.get("fields") or {}, eb.get("fields") or {}
    skip = set(ea.get("display_only") or []) | set(eb.get("display_only") or [])
    out = []
    for k in list(fa) + [k for k in fb if k not in fa]:
        if k in skip:
            if (k in fa) != (k in fb):
                out.append((k, fa.get(k, "(missing)"), fb.get(k, "(missing)"),
                            "display_only field missing on one side"))
            continue
        if k not in fa or k not in fb:
            continue  # a names difference; counted there
        if not same(fa[k], fb[k]):
            out.append((k, fa[k], fb[k], value_kind(fa[k], fb[k])))
    la, lb = ea.get("labels") or {}, eb.get("labels") or {}
    for k in list(la) + [k for k in lb if k not in la]:
        if k not in lb:
            if not (undefined_name(eb, k) or unnamed_address(ea, eb, k)):
                out.append(("labels." + k, la[k], "(none)",
                            "label only in text"))
        elif k not in la:
            out.append(("labels." + k, "(none)", lb[k], "label only in dat"))
        elif not same(la[k], lb[k]):
            out.append(("labels." + k, la[k], lb[k], "labels differ: " + value_kind(la[k], lb[k])))
    return out


def spellings(v):
    """How a value may be printed in a text."""
    if isinstance(v, bool) or v is None:
        return []
    if isinstance(v, int):
        return ([str(v), "0x%x" % v, "%x" % v, "%016x" % v] + (["(nil)"] if v == 0 else [])
                if v >= 0 else [str(v)])
    if isinstance(v, str) and v:
        return [v, v[2:]] if v.startswith("0x") and len(v) > 2 else [v]
    return []


def mask(text, ev, other, names):
    """text with the printed value of each field in names (in field order,
    first occurrence after the previous one, as a whole word, spelled as
    this event or the other side's has it) replaced by a mark."""
    fields = ev.get("fields") or {}
    ofields = other.get("fields") or {}
    pos = 0
    for k in fields:
        if k not in names:
            continue
        for sp in sorted(set(spellings(fields[k]) + spellings(ofields.get(k))),
                         key=lambda x: -len(x)):
            m = re.compile(r"(?<![\w.])%s(?![\w.])" % re.escape(sp)).search(text, pos)
            if m:
                text = text[:m.start()] + "\x01" + text[m.end():]
                pos = m.start() + 1
                break
    return text


HASHED_WORD = re.compile(r"(?<![\w.])0{8}[0-9a-f]{8}(?![\w.])")
ANY_POINTER = r"(?:(?:0x)?[0-9a-f]{1,16}|\(nil\)|\x01)"


# Printed values the record does not hold: the kernel computed them from
# its own state when it printed the event (writeback's "age" is
# jiffies - dirtied_when), so a trace.dat cannot print them again.
KERNEL_STATE = {"writeback_single_inode": "age",
                "writeback_single_inode_start": "age"}


def same_but_kernel_state(ea, eb, ta, tb):
    """The same texts but for what only the kernel knew when it printed:
    values it computed from its own state (KERNEL_STATE), and names of
    constants the format leaves undefined (the text has I_SYNC, the
    trace.dat 0x2: its value is compared as a field)."""
    words = [KERNEL_STATE[ea["event"]]] if ea.get("event") in KERNEL_STATE \
        else []
    lb = eb.get("labels") or {}
    words += [k for k in (ea.get("labels") or {})
              if k not in lb and undefined_name(eb, k)]
    if not words:
        return False
    for w in words:
        pat = r"(\b" + re.escape(w) + r"[= ])\S+"
        ta, tb = re.sub(pat, r"\1?", ta), re.sub(pat, r"\1?", tb)
    return ta == tb


def same_but_display_only(ea, eb, ta, tb):
    """Are two texts (or report lines) the same but for the printed values
    of the fields either side lists in "display_only", and but for the
    kernel's hashed pointers (%p: "00000000" and 8 hex digits) in the first
    (the kernel text), which match any pointer in the second? No trace.dat
    can print the hash of a pointer, be it a field or computed (page=)."""
    if same_but_kernel_state(ea, eb, ta, tb):
        return True
    names = set(ea.get("display_only") or []) | set(eb.get("display_only") or [])
    if names:
        ta, tb = mask(ta, ea, eb, names), mask(tb, eb, ea, names)
        if ta == tb:
            return True
    parts = HASHED_WORD.split(ta.replace("\x01", "0000000000000000"))
    if len(parts) == 1:
        return False
    return re.fullmatch(ANY_POINTER.join(re.escape(x) for x in parts), tb) is not None


def undefined_name(eb, k):
    """A label the kernel's text has and the trace.dat cannot: the format
    names the value with a constant it does not define (I_DIRTY_PAGES), so
    trawl renders the number in hex there ("flags=0x40"), as the kernel
    would without the name; the value itself is compared."""
    return re.search(r"(^|[ ,(])" + re.escape(k) + r"[= ]0x[0-9a-f]+",
                     eb.get("text") or "") is not None


def unnamed_address(ea, eb, k):
    """A label of a function the text names and the trace.dat cannot: the
    file has no kallsyms (trace-cmd extract without symbols), so it prints
    the address where the text has the name."""
    la = (ea.get("labels") or {}).get(k)
    ta, tb = ea.get("text") or "", eb.get("text") or ""
    at = ta.find(la) if la else -1
    return at >= 0 and re.match(r"0x[0-9a-f]+", tb[at:]) is not None


def labels_agree(ea, eb):
    la, lb = ea.get("labels") or {}, eb.get("labels") or {}
    for k in set(la) | set(lb):
        if k in la and k not in lb and (undefined_name(eb, k) or
                                         unnamed_address(ea, eb, k)):
            continue
        if not same(la.get(k), lb.get(k)):
            return False
    return True


def values_agree(ea, eb):
    fa, fb = ea.get("fields") or {}, eb.get("fields") or {}
    skip = set(ea.get("display_only") or []) | set(eb.get("display_only") or [])
    for k in set(fa) | set(fb):
        if k not in fa or k not in fb:
            return False
        if k not in skip and not same(fa[k], fb[k]):
            return False
    return labels_agree(ea, eb)


# ------------------------------------------------------------- analyses ---

IDKEYS = ("kind", "irq", "cpu", "from_cpu", "pid", "comm", "name", "function", "what")
POINTS = {"min", "max", "p50", "p90", "p99", "duration", "start", "end",
          "max_at", "first", "last"}
PCTS = {"p50", "p90", "p99"}


def sum_intervals(key, pa, pb):
    """How many intervals a summed field of parent rows pa/pb adds up."""
    def get(k):
        return max(int(pa.get(k, 0) or 0), int(pb.get(k, 0) or 0))
    if key == "total":
        return get("count")
    if key in ("run", "runnable", "sleep"):
        return get("count") + get("switches") + 1
    if key in ("busy", "idle"):
        return get("switches") + 1
    return None


def tolerance(key, x, y, pa, pb):
    n = sum_intervals(key, pa, pb)
    if n is not None:
        return 1000 * n, "1000 ns x %d intervals" % n
    if key in POINTS:
        tol = 1000
        cnt = max(int(pa.get("count", 0) or 0), int(pb.get("count", 0) or 0))
        if key in PCTS and cnt > 256:
            # each side's percentile is within 0.4 % of its own exact
            # answer (half a bucket): the two within 0.8 % of each other
            tol += int(0.008 * max(abs(x), abs(y))) + 1
            return tol, "1000 ns + 2 x 0.4 %"
        return tol, "1000 ns"
    if key == "busy_share":
        span = max(1, min(pa.get("busy", 0) + pa.get("idle", 0),
                          pb.get("busy", 0) + pb.get("idle", 0)))
        tol = 0.0001 + 2 * 1000 * (max(pa.get("switches", 0), pb.get("switches", 0)) + 1) / span
        return tol, "busy/idle tolerance over the span"
    return 0, "exact"


def identity(row):
    return tuple((k, row[k]) for k in IDKEYS if k in row)


def fmt_num(v):
    return ("%.6g" % v) if isinstance(v, float) else str(v)


WORST_DEFAULT = 10
WORST_ALL = 10000   # the most trawl's --worst takes


class Ctx:
    """What a comparison of one analysis needs besides the two values: the
    lists of all instances of both sides (--worst 10000), to tell a max_at
    or a worst row that differs because of a near-tie from a wrong one."""

    def __init__(self, wa, wb, limit, notes):
        self.wa, self.wb, self.limit, self.notes = wa or [], wb or [], limit, notes

    def sub(self, ia, ib, key):
        """The context inside a nested section (workqueue "queue_delay")."""
        if isinstance(ia, dict) and isinstance(ib, dict) and key in ia and key in ib \
                and isinstance(ia[key], dict):
            return Ctx(ia[key].get("worst"), ib[key].get("worst"), self.limit, self.notes)
        return self


def near_max(instances, row, start, mx):
    """Is there an instance of row's key (pid, irq, function...) starting
    within 1000 ns of start that is within 2000 ns of the longest (mx)? A
    duration from the text is off by up to 1000 ns (each end rounded to the
    us), so the longest on one side can be 2000 ns shorter than the
    other's longest on the other side."""
    key = [kv for kv in identity(row) if kv[0] != "comm"]  # an instance has the comm of then
    return any(abs(r.get("start", 0) - start) <= 1000 and r.get("duration", 0) >= mx - 2000
               and all(r[k] == v for k, v in key if k in r)
               for r in instances)


def cmp_json(a, b, path, diffs, ctx, pa=None, pb=None, key=None, ia=None, ib=None):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k == "file":
                continue
            if k not in a or k not in b:
                diffs.append((path + "." + k, a.get(k, "(missing)"),
                              b.get(k, "(missing)"), "only on one side"))
                continue
            sub = ctx.sub(ia, ib, k) if ia is not None else ctx
            cmp_json(a[k], b[k], path + "." + k, diffs, sub, a, b, k,
                     ia.get(k) if isinstance(ia, dict) else None,
                     ib.get(k) if isinstance(ib, dict) else None)
        return
    if isinstance(a, list) and isinstance(b, list):
        if all(isinstance(r, dict) for r in a + b):
            cmp_rows(a, b, path, diffs, key, ctx)
        elif len(a) != len(b):
            diffs.append((path, a, b, "lengths differ"))
        else:
            for i, (x, y) in enumerate(zip(a, b)):
                cmp_json(x, y, "%s[%d]" % (path, i), diffs, ctx, pa, pb, key)
        return
    if (isinstance(a, (int, float)) and isinstance(b, (int, float))
            and not isinstance(a, bool) and not isinstance(b, bool)):
        tol, why = tolerance(key, a, b, pa or {}, pb or {})
        if abs(a - b) <= tol:
            return
        if (key == "max_at" and "max" in (pa or {}) and "max" in (pb or {})
                and near_max(ctx.wb, pb, a, pb["max"]) and near_max(ctx.wa, pa, b, pa["max"])):
            ctx.notes.append("%s: %s vs %s, a near-tie of the longest (both are within "
                             "1000 ns of it on both sides)" % (path, a, b))
            return
        diffs.append((path, a, b, "differ by %s (allowed %s: %s)"
                      % (fmt_num(abs(a - b)), fmt_num(tol), why)))
        return
    if not same(a, b):
        diffs.append((path, a, b, "differ"))


def cmp_rows(a, b, path, diffs, key, ctx):
    """Rows matched by their key; rows with a start time (instances) also by
    a start within 1000 ns."""
    used = set()
    unmatched_a = []
    pairs = []

    def us_key(r):  # an instance's times as the kernel's text has them
        return (identity(r), kernel_us(r.get("start", 0)), kernel_us(r.get("end", 0)))
    exact = collections.defaultdict(collections.deque)
    index = collections.defaultdict(list)
    for j, rb in enumerate(b):
        index[identity(rb)].append(j)
        if "start" in rb:
            exact[us_key(rb)].append(j)
    rest = []
    for ra in a:
        q = exact.get(us_key(ra)) if "start" in ra else None
        if q:
            j = q.popleft()
            used.add(j)
            pairs.append((ra, j))
        else:
            rest.append(ra)
    for ra in rest:
        best = None
        for j in index.get(identity(ra), []):
            if j in used:
                continue
            d = abs(ra.get("start", 0) - b[j].get("start", 0))
            if "start" in ra and d > 1000:
                continue
            d += abs(ra.get("end", 0) - b[j].get("end", 0))
            if best is None or d < best[0]:
                best = (d, j)
            if d == 0:
                break
        if best is None:
            unmatched_a.append(ra)
            continue
        used.add(best[1])
        pairs.append((ra, best[1]))
    for ra, j in pairs:
        label = ",".join("%s=%s" % kv for kv in identity(ra))
        if "start" in ra:
            label += ",start=%s" % ra["start"]
        cmp_json(ra, b[j], "%s[%s]" % (path, label), diffs, ctx, key=key)
    unmatched_b = [rb for j, rb in enumerate(b) if j not in used]
    full = len(a) == len(b) == ctx.limit
    for side, rows, other in (("text", unmatched_a, b), ("dat", unmatched_b, a)):
        for r in rows:
            label = ",".join("%s=%s" % kv for kv in identity(r))
            if "start" in r:
                label += ",start=%s" % r["start"]
            if (key == "worst" and full and "duration" in r
                    and r["duration"] <= min(o.get("duration", 0) for o in other) + 1000):
                ctx.notes.append("%s[%s]: only in %s, a near-tie at the cut-off of the "
                                 "list" % (path, label, side))
                continue
            diffs.append(("%s[%s]" % (path, label),
                          r if side == "text" else "(missing)",
                          r if side == "dat" else "(missing)",
                          "row only in %s" % side))


def compare_analyses(trawl, text_path, dat_path):
    out = []
    for an in ANALYSES:
        name = " ".join(an)
        has_worst = an[0] != "sched"
        try:
            ja = json.loads(run_trawl(trawl, an + [text_path, "--json"]))
            jb = json.loads(run_trawl(trawl, an + [dat_path, "--json"]))
            ia = ib = None
            if has_worst:
                ia = json.loads(run_trawl(trawl, an + [text_path, "--json", "--worst",
                                                       str(WORST_ALL)]))
                ib = json.loads(run_trawl(trawl, an + [dat_path, "--json", "--worst",
                                                       str(WORST_ALL)]))
        except (Failed, ValueError) as e:
            out.append({"analysis": name, "error": str(e), "differences": [], "notes": []})
            continue
        notes = []
        diffs = []
        ctx = Ctx(ia.get("worst") if ia else None, ib.get("worst") if ib else None,
                  WORST_DEFAULT, notes)
        cmp_json(ja, jb, "", diffs, ctx, ia=ia, ib=ib)
        out.append({"analysis": name, "differences": [
            {"path": p or ".", "text": x, "dat": y, "why": w} for p, x, y, w in diffs],
            "notes": notes})
        if has_worst:
            # every instance (up to 10000 of the longest), not only the worst 10
            notes = []
            diffs = []
            ctx = Ctx(ia.get("worst"), ib.get("worst"), WORST_ALL, notes)
            for sect in ("", "queue_delay"):
                xa = ia.get(sect) if sect else ia
                xb = ib.get(sect) if sect else ib
                if not isinstance(xa, dict) or not isinstance(xb, dict):
                    continue
                c = Ctx(xa.get("worst"), xb.get("worst"), WORST_ALL, notes)
                cmp_rows(xa.get("worst", []), xb.get("worst", []),
                         (("." + sect) if sect else "") + ".worst", diffs, "worst", c)
            out.append({"analysis": name + " (every instance)", "differences": [
                {"path": p or ".", "text": x, "dat": y, "why": w} for p, x, y, w in diffs],
                "notes": notes})
    return out


# ---------------------------------------------------------------- check ---

def pct(ok, n):
    if n == 0:
        return "-"
    if ok == n:
        return "100"
    return "%.1f" % (math.floor(1000.0 * ok / n) / 10)


def short(v, n=160):
    s = v if isinstance(v, str) else json.dumps(v)
    return s if len(s) <= n else s[:n - 3] + "..."


def check(trawl, text_path, dat_path, ndiffs):
    a = Side(trawl, text_path, "text")
    b = Side(trawl, dat_path, "dat")
    pairs, only_a, only_b, rule = match(a, b)

    types = collections.OrderedDict()

    def row(ev):
        name = ev["event"]
        if name not in types:
            types[name] = {"event": name, "system": ev.get("system", ""),
                           "events": 0, "only_text": 0, "only_dat": 0,
                           "names": 0, "values": 0, "text": 0, "report": 0,
                           "all": 0, "examples": collections.defaultdict(list)}
        elif not types[name]["system"] and ev.get("system"):
            types[name]["system"] = ev["system"]
        return types[name]

    kinds = collections.OrderedDict()

    def kind(k, event, example):
        e = kinds.setdefault(k, {"kind": k, "count": 0, "types": collections.Counter(),
                                 "example": example})
        e["count"] += 1
        e["types"][event] += 1

    for i, j in pairs:
        ea, eb = a.events[i], b.events[j]
        r = row(eb)
        r["events"] += 1
        ok = 0
        where = "text seq %d / dat seq %d at %s cpu %d pid %d" % (
            ea["seq"], eb["seq"], ts_us_text("%d.%09d" % divmod(eb["time"], 10 ** 9)),
            eb["cpu"], eb["pid"])
        na, nb = list((ea.get("fields") or {})), list((eb.get("fields") or {}))
        if na == nb:
            r["names"] += 1
            ok += 1
        else:
            for k in names_kinds(na, nb):
                kind(k, eb["event"], "%s: text %s | dat %s" % (eb["event"], na, nb))
            if len(r["examples"]["names"]) < ndiffs:
                r["examples"]["names"].append({"where": where, "text": na, "dat": nb})
        if values_agree(ea, eb):
            r["values"] += 1
            ok += 1
        else:
            vd = values_differ(ea, eb)
            for f, x, y, k in vd:
                kind(k, eb["event"], "%s.%s: text %s | dat %s"
                     % (eb["event"], f, short(x, 60), short(y, 60)))
            if len(r["examples"]["values"]) < ndiffs:
                r["examples"]["values"].append({"where": where, "fields": [
                    {"field": f, "text": x, "dat": y, "kind": k} for f, x, y, k in vd]
                    or [{"field": "(names)", "text": na, "dat": nb,
                         "kind": "fields missing on one side"}]})
        ta, tb = a.text(i), b.text(j)
        if ta is not None and tb is not None and (
                ta == tb or same_but_display_only(ea, eb, ta, tb)):
            r["text"] += 1
            ok += 1
        elif len(r["examples"]["text"]) < ndiffs:
            r["examples"]["text"].append({"where": where, "text": ta, "dat": tb})
        if a.plain[i] == b.plain[j] or same_but_display_only(ea, eb, a.plain[i], b.plain[j]):
            r["report"] += 1
            ok += 1
        elif len(r["examples"]["report"]) < ndiffs:
            r["examples"]["report"].append({"where": where, "text": a.plain_raw[i],
                                            "dat": b.plain_raw[j]})
        if ok == 4:
            r["all"] += 1
    for side, idx, s in (("text", only_a, a), ("dat", only_b, b)):
        for i in idx:
            ev = s.events[i]
            r = row(ev)
            r["only_" + side] += 1
            if len(r["examples"]["only_" + side]) < ndiffs:
                r["examples"]["only_" + side].append({"where": "%s seq %d at %d cpu %d pid %d" % (
                    side, ev["seq"], ev["time"], ev["cpu"], ev["pid"]), side: s.plain_raw[i]})

    analyses = compare_analyses(trawl, text_path, dat_path)
    rows = sorted(types.values(), key=lambda r: (-(r["events"] + r["only_text"] + r["only_dat"]),
                                                  r["event"]))
    total = {k: sum(r[k] for r in rows) for k in
             ("events", "only_text", "only_dat", "names", "values", "text", "report", "all")}
    an_ok = sum(1 for x in analyses if not x["differences"] and "error" not in x)
    agree = (total["all"] == total["events"] and not total["only_text"]
             and not total["only_dat"] and an_ok == len(analyses))
    return {
        "text_file": text_path, "dat_file": dat_path,
        "text_events": len(a.events), "dat_events": len(b.events),
        "matched": len(pairs), "matched_by": dict(rule),
        "text_from": {"text": dict(a.text_from), "dat": dict(b.text_from)},
        "types": rows, "total": total,
        "kinds": sorted(kinds.values(), key=lambda k: -k["count"]),
        "analyses": analyses, "analyses_agree": an_ok,
        "agree": agree,
    }


# --------------------------------------------------------------- output ---

def table(res, out):
    w = max([len(r["event"]) for r in res["types"]] + [10])
    hdr = "%-*s %-12s %7s %6s %6s %7s %7s %6s %7s %6s" % (
        w, "event", "system", "events", "only_t", "only_d", "names%", "values%",
        "text%", "report%", "all%")
    out.append(hdr)
    for r in res["types"] + [dict(res["total"], event="TOTAL", system="")]:
        n = r["events"]
        out.append("%-*s %-12s %7d %6d %6d %7s %7s %6s %7s %6s" % (
            w, r["event"], r["system"], n, r["only_text"], r["only_dat"],
            pct(r["names"], n), pct(r["values"], n), pct(r["text"], n),
            pct(r["report"], n), pct(r["all"], n)))


def overall(res):
    t = res["total"]
    n = t["events"]
    an = res["analyses"]
    return ("overall: %d of %d matched events (%s %%) agree in names, values, text and "
            "report; %d only in text, %d only in dat; analyses %d of %d agree: %s" % (
                t["all"], n, pct(t["all"], n), t["only_text"], t["only_dat"],
                res["analyses_agree"], len(an), "AGREE" if res["agree"] else "DISAGREE"))


def report(res, summary, ndiffs, out):
    if not summary:
        mb = res["matched_by"]
        out.append("check-pair: %s (%d events) vs %s (%d events): %d matched" % (
            res["text_file"], res["text_events"], res["dat_file"], res["dat_events"],
            res["matched"]))
        out.append("times: %d matched with the .dat time rounded to us (as the kernel "
                   "prints), %d only truncated" % (mb.get("round", 0), mb.get("trunc", 0)))
        tf = res["text_from"]
        names = {"json": "\"text\"", "file": "the line in the file",
                 "report": "the trawl report line"}
        out.append("event text taken from: TEXT %s; DAT %s" % tuple(
            ", ".join("%s %d" % (names[k], v) for k, v in sorted(tf[side].items())) or "-"
            for side in SIDES))
        out.append("")
    table(res, out)
    if not summary:
        if res["kinds"]:
            out.append("")
            out.append("kinds of field differences (field instances, event types, example):")
            for k in res["kinds"]:
                tys = k["types"].most_common()
                out.append("  %6d  %-3d %s" % (k["count"], len(tys), k["kind"]))
                out.append("          e.g. %s" % short(k["example"], 150))
                out.append("          in %s" % short(", ".join("%s %d" % t for t in tys), 150))
        for r in res["types"]:
            ex = r["examples"]
            if not any(ex.values()):
                continue
            out.append("")
            out.append("== %s (%s): %d events, names %s %%, values %s %%, text %s %%, "
                       "report %s %%" % (r["event"], r["system"], r["events"],
                                         pct(r["names"], r["events"]),
                                         pct(r["values"], r["events"]),
                                         pct(r["text"], r["events"]),
                                         pct(r["report"], r["events"])))
            for what in ("names", "values", "text", "report", "only_text", "only_dat"):
                for e in ex.get(what, []):
                    out.append("  %s, %s:" % (what, e["where"]))
                    if what == "values":
                        for f in e["fields"]:
                            out.append("    %s: text %s | dat %s   [%s]" % (
                                f["field"], short(f["text"], 70), short(f["dat"], 70),
                                f["kind"]))
                    else:
                        for side in SIDES:
                            if side in e:
                                out.append("    %-4s %s" % (side, short(e[side], 300)))
        out.append("")
        for an in res["analyses"]:
            if "error" in an:
                out.append("analysis %s: ERROR %s" % (an["analysis"], an["error"]))
                continue
            d = an["differences"]
            out.append("analysis %s: %s" % (an["analysis"], "agree" if not d else
                                              "%d differences" % len(d)))
            for n in an.get("notes", [])[:3]:
                out.append("    note: " + short(n, 200))
            if len(an.get("notes", [])) > 3:
                out.append("    note: ... %d more near-ties" % (len(an["notes"]) - 3))
            for x in d[:max(ndiffs, 1) * 3]:
                out.append("    %s: text %s | dat %s   [%s]" % (
                    x["path"], short(x["text"], 80), short(x["dat"], 80), x["why"]))
            if len(d) > max(ndiffs, 1) * 3:
                out.append("    ... %d more" % (len(d) - max(ndiffs, 1) * 3))
        out.append("")
    out.append(overall(res))


def main(argv):
    pos, summary, as_json, ndiffs = [], False, False, 3
    it = iter(argv)
    for arg in it:
        if arg == "--summary":
            summary = True
        elif arg == "--json":
            as_json = True
        elif arg == "--diffs":
            v = next(it, None)
            if v is None or not v.isdigit():
                usage("--diffs needs a number")
            ndiffs = int(v)
        elif arg in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        elif arg.startswith("-") and arg != "-":
            usage("unknown option " + arg)
        else:
            pos.append(arg)
    if len(pos) != 3:
        usage()
    trawl, text_path, dat_path = pos
    if not (os.path.isfile(trawl) and os.access(trawl, os.X_OK)):
        usage("not an executable: " + trawl)
    for p in (text_path, dat_path):
        if not os.path.isfile(p):
            usage("no such file: " + p)
    try:
        res = check(trawl, text_path, dat_path, ndiffs)
    except Failed as e:
        print("check-pair: " + str(e), file=sys.stderr)
        return 1
    if as_json:
        def clean(o):
            if isinstance(o, dict):
                return {k: clean(v) for k, v in o.items()
                        if not (summary and k in ("examples",))}
            if isinstance(o, list):
                return [clean(v) for v in o]
            if isinstance(o, collections.Counter):
                return dict(o)
            return o
        res2 = dict(res)
        if summary:
            for k in ("kinds", "analyses"):
                res2.pop(k)
        json.dump(clean(res2), sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        out = []
        report(res, summary, ndiffs, out)
        sys.stdout.write("\n".join(out) + "\n")
    return 0 if res["agree"] else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:
        sys.exit(1)
