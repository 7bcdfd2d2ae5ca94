#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Callchains and samples of any event: trawl's reading of a perf.data
against `perf script`'s, frame by frame.

usage: check-perf-callchain.py TRAWL [--expected SCRIPT] FILE.perf...

--expected names a file holding what `perf script` (with the options
below) printed for the next FILE, made when it was recorded
(tests/fixtures/record-perf.sh), so the check runs without perf.

perf script --ns --show-mmap-events --show-task-events -F comm,tid,cpu,time,event,ip,sym,
dso,period prints each sample, then its callchain a frame a line. trawl
gives a sample as its event (a tracepoint's, or perf:NAME with ip and
period for other events: cpu-clock is perf:cpu_clock), then the stacks
ftrace writes after an event: ftrace:kernel_stack (the kernel frames,
maybe none) and ftrace:user_stack (when there are user frames).

Checked, for every sample in order: time, CPU, pid, the event; period and
ip for events that are not tracepoints; the kernel frames' addresses one
by one, and their symbols where perf names one; the user frames one by
one. perf prints a user frame's address within its mapping (ip - start +
pgoff, from the MMAP records it shows), trawl the address itself and,
in the user stack's `maps`, the file and place it maps it to: trawl's
address is mapped the same way from the MMAP records perf script shows,
which this script keeps per pid (a frame perf puts in no mapping,
"[unknown]", is compared as it is), and trawl's mapping must be perf's
(file+0xaddress, or none for "[unknown]"); a process has its parent's mappings from its fork,
and a new mapping takes the place of what it overlaps, as in perf. Two known differences, counted: a
user frame of 0 (where a frame-pointer walk ended, which perf prints as
"0 [unknown]") is not in trawl's user stack, as ftrace's user stacks end
at a 0; and where two kernel symbols share an address (__do_sys_vfork
and __x64_sys_vfork) perf and trawl may name it differently, which is
accepted when this machine's /proc/kallsyms has both there (the file
recorded on this boot). A fixture (--expected) read on another boot has
its kernel frames as addresses, not names: compared by address only.
Skips (exit 77) when perf is missing.
"""
import bisect
import collections
import json
import re
import shutil
import subprocess
import sys

HEAD = re.compile(r"^\s*(?P<comm>.*?)\s+(?P<tid>-?\d+)\s+(?:\[(?P<cpu>\d+)\]\s+)?"
                  r"(?P<sec>\d+)\.(?P<ns>\d{9}):\s+(?P<rest>.*)$")
MMAP = re.compile(r"PERF_RECORD_MMAP2? (?P<pid>-?\d+)/(?P<tid>-?\d+): "
                  r"\[0x(?P<start>[0-9a-f]+)\(0x(?P<len>[0-9a-f]+)\) @ "
                  r"(?:0x)?(?P<pgoff>[0-9a-f]+)[ \]]")
SAMPLE = re.compile(r"^(?:(?P<period>\d+)\s+)?(?P<event>[^\s:]+(?::[^\s:]+)?):"
                    r"\s*(?P<ip>[0-9a-f]+)?")
FORK = re.compile(r"PERF_RECORD_FORK\((?P<pid>\d+):\d+\):\((?P<ppid>\d+):\d+\)")
FRAME = re.compile(r"^\s+(?P<ip>[0-9a-f]+)\s+(?P<sym>.*?)\s+\((?P<dso>.*)\)$")
FIELDS = "comm,tid,cpu,time,event,ip,sym,dso,period"


def perf_script(path, expected=None):
    if expected:
        with open(expected, "rb") as f:
            text = f.read()
    else:
        for fields in (FIELDS, FIELDS.replace("cpu,", "")):
            # a recording of one task has no CPU in its samples, and
            # perf script refuses to show one
            run = subprocess.run(["perf", "script", "-i", path, "--ns",
                                  "--show-mmap-events", "--show-task-events",
                                  "-F", fields], capture_output=True)
            if run.returncode == 0:
                break
        run.check_returncode()
        text = run.stdout
    samples, maps = [], collections.defaultdict(list)
    cur = None
    for raw in text.decode("utf-8", "replace").splitlines():
        if not raw.strip():
            cur = None
            continue
        fm = FRAME.match(raw)
        if fm and cur is not None and raw[0] == "\t":
            cur["frames"].append((int(fm["ip"], 16), fm["sym"], fm["dso"]))
            continue
        m = HEAD.match(raw)
        if not m:
            raise SystemExit(f"cannot parse perf script line: {raw!r}")
        rest = m["rest"]
        mm = MMAP.search(rest)
        if mm:
            # perf's own maps of the kernel (pid -1) and each task's
            maps[int(mm["pid"])].append((int(mm["start"], 16),
                                         int(mm["len"], 16),
                                         int(mm["pgoff"], 16)))
            cur = None
            continue
        fk = FORK.search(rest)
        if fk and fk["pid"] != fk["ppid"]:  # a process: its parent's maps
            maps[int(fk["pid"])] = list(maps.get(int(fk["ppid"]), []))
        if rest.startswith("PERF_RECORD_"):
            cur = None
            continue
        sm = SAMPLE.match(rest)
        if not sm:
            raise SystemExit(f"cannot parse perf script sample: {raw!r}")
        cur = {"comm": m["comm"].strip(), "tid": int(m["tid"]),
               "cpu": int(m["cpu"]) if m["cpu"] is not None else -1,
               "time": int(m["sec"]) * 10**9 + int(m["ns"]),
               "event": sm["event"],
               "period": int(sm["period"]) if sm["period"] else None,
               "frames": []}
        samples.append(cur)
    return samples, maps


def trawl_events(trawl, path):
    out = subprocess.run([trawl, "report", "--json", path],
                         capture_output=True, check=True)
    samples = []
    for ev in json.loads(out.stdout):
        name = ev["system"] + ":" + ev["event"]
        if name == "ftrace:kernel_stack":
            samples[-1]["kernel"] = ev["fields"]["caller"]
            samples[-1]["ktext"] = ev["text"].split("\n")[1:]
        elif name == "ftrace:user_stack":
            samples[-1]["user"] = ev["fields"]["caller"]
            samples[-1]["tgid"] = ev["fields"]["tgid"]
            samples[-1]["umaps"] = ev["fields"].get("maps", "").split("\n")
        else:
            ev["kernel"], ev["user"], ev["ktext"] = None, [], []
            samples.append(ev)
    return samples


def kernel_aliases():
    """Names by address, from this machine's kallsyms (empty if hidden)."""
    names = collections.defaultdict(set)
    try:
        with open("/proc/kallsyms") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and int(parts[0], 16):
                    names[int(parts[0], 16)].add(parts[2])
    except OSError:
        pass
    by_name = {}
    for addr, ns in names.items():
        for n in ns:
            by_name.setdefault(n, ns)
    return by_name


def relative(maps, pid, addr):
    """perf's address of a user frame in its mapping, if one has it."""
    for start, length, pgoff in reversed(maps.get(pid, [])):
        if start <= addr < start + length:
            return addr - start + pgoff
    return None


def check(trawl, path, expected=None):
    perf, maps = perf_script(path, expected)
    mine = trawl_events(trawl, path)
    fails = []
    kframes = uframes = named = zeros = aliased = unnamed = mapped = 0
    aliases = kernel_aliases()
    if len(perf) != len(mine):
        fails.append(f"{len(perf)} samples in perf script, {len(mine)} "
                     f"events in trawl")
    for i, (p, t) in enumerate(zip(perf, mine)):
        where = f"sample {i} at {p['time']}"
        event = p["event"]
        if ":" not in event:  # perf's name of an event not a tracepoint
            event = "perf:" + re.sub(r"[^A-Za-z0-9_]", "_", event)
        got = (t["time"], t["cpu"] if p["cpu"] >= 0 else -1,
               t["system"] + ":" + t["event"])
        if got != (p["time"], p["cpu"], event):
            fails.append(f"{where}: perf {p['time'], p['cpu'], event}, "
                         f"trawl {got}")
            continue
        if p["tid"] != -1 and t["pid"] != p["tid"]:
            fails.append(f"{where}: pid perf {p['tid']} trawl {t['pid']}")
        if t["system"] == "perf" and p["period"] is not None and \
                t["fields"]["period"] != p["period"]:
            fails.append(f"{where}: period perf {p['period']} trawl "
                         f"{t['fields']['period']}")
        kernel = [f for f in p["frames"] if f[2] == "[kernel.kallsyms]"]
        user = [f for f in p["frames"] if f[2] != "[kernel.kallsyms]"]
        zeros += sum(1 for f in user if f[0] == 0)
        user = [f for f in user if f[0] != 0]
        if t["kernel"] is None:
            fails.append(f"{where}: no ftrace:kernel_stack after it")
            continue
        if [f[0] for f in kernel] != [a % 2**64 for a in t["kernel"]]:
            fails.append(f"{where}: kernel frames perf "
                         f"{[hex(f[0]) for f in kernel]} trawl "
                         f"{[hex(a % 2**64) for a in t['kernel']]}")
            continue
        kframes += len(kernel)
        for (addr, sym, _), line in zip(kernel, t["ktext"]):
            if sym != "[unknown]":
                named += 1
                theirs = line.strip()[3:]
                if expected and theirs.startswith("0x"):
                    # a fixture read on another boot: trawl names kernel
                    # frames from this machine's kallsyms only when the
                    # file was recorded on this boot
                    unnamed += 1
                elif theirs in aliases.get(sym, ()) and theirs != sym:
                    aliased += 1
                elif theirs != sym:
                    fails.append(f"{where}: frame {addr:x} perf {sym} "
                                 f"trawl {line.strip()}")
        if len(user) != len(t["user"]):
            fails.append(f"{where}: {len(user)} user frames in perf, "
                         f"{len(t['user'])} in trawl")
            continue
        tgid = t.get("tgid", t["pid"])
        umaps = t.get("umaps", [])
        for k, ((addr, sym, dso), abs_) in enumerate(zip(user, t["user"])):
            abs_ %= 2**64
            rel = relative(maps, tgid, abs_) if dso != "[unknown]" else None
            want = rel if rel is not None else abs_
            if addr != want:
                fails.append(f"{where}: user frame perf {addr:x} ({dso}) "
                             f"trawl {abs_:x} -> {want:x}")
            # trawl's own mapping of it, from the same MMAP records
            mine = umaps[k] if k < len(umaps) else ""
            theirs = f"{dso}+0x{addr:x}" if dso != "[unknown]" else ""
            if mine != theirs:
                fails.append(f"{where}: user frame {abs_:x}: perf "
                             f"{theirs!r}, trawl's mapping {mine!r}")
            mapped += mine != ""
            uframes += 1
    for f in fails[:20]:
        print(f"FAIL {path}: {f}")
    if len(fails) > 20:
        print(f"FAIL {path}: ... {len(fails) - 20} more")
    print(f"{path}: {len(perf)} samples, {kframes} kernel frames "
          f"({named} named, {aliased} by another name of the address, "
          f"{unnamed} not named: recorded on another boot), "
          f"{uframes} user frames ({mapped} in a file, as perf maps them; "
          f"{zeros} zero frames left out): "
          f"{'equal' if not fails else 'DIFFER'}")
    return not fails


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    trawl, args = argv[1], argv[2:]
    jobs, expected = [], None
    while args:
        a = args.pop(0)
        if a == "--expected":
            expected = args.pop(0)
            continue
        jobs.append((a, expected))
        expected = None
    if any(e is None for _, e in jobs) and not shutil.which("perf"):
        print("SKIP: perf is not installed (apt-get install linux-perf)")
        return 77
    ok = True
    for path, exp in jobs:
        ok &= check(trawl, path, exp)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
