#!/bin/bash
# SPDX-License-Identifier: MIT
# CLI tests: exit codes, --help, formats, stdin, strict mode, golden output.
# usage: test-cli.sh TRAWL FIXTURES_DIR
set -u
TRAWL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
FIX=$2
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'umount "$T/small" 2>/dev/null; rm -rf "$T"' EXIT
fails=0
n=0

check() { # check NAME CONDITION-COMMAND...
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		fails=$((fails + 1))
	fi
}

status() { # status WANT CMD... : run, keep stdout/stderr in $T/out $T/err
	local want=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	local got=$?
	[ "$got" = "$want" ] || { echo "  exit $got, wanted $want: $*" >&2; cat "$T/err" >&2; return 1; }
}

valid_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"; }

check "top-level --help" status 0 "$TRAWL" --help
check "--help lists stats" grep -q "stats" "$T/out"
check "no arguments is a usage error" status 1 "$TRAWL"
check "unknown command" status 1 "$TRAWL" frobnicate
check "unknown command says what to do" grep -q "trawl --help" "$T/err"
for cmd in stats report; do
	check "$cmd --help" status 0 "$TRAWL" $cmd --help
	check "$cmd --help shows usage" grep -q "usage: trawl $cmd" "$T/out"
	check "$cmd without FILE" status 1 "$TRAWL" $cmd
	check "$cmd bad option" status 1 "$TRAWL" $cmd --bogus x
done

check "missing file exits 1" status 1 "$TRAWL" stats "$T/nope.txt"
check "missing file is named" grep -q "nope.txt" "$T/err"

SAMPLE=$FIX/ftrace-irqinfo.txt
check "stats --json" status 0 "$TRAWL" stats --json "$SAMPLE"
check "stats --json is valid JSON" valid_json "$T/out"
cp "$T/out" "$T/file.json"
check "stats from stdin" status 0 sh -c "cat '$SAMPLE' | '$TRAWL' stats --json -"
check "stdin gives the same counts" python3 - "$T/file.json" "$T/out" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in ("file",):
    a.pop(k); b.pop(k)
a.pop("spilled_runs"); b.pop("spilled_runs")
sys.exit(0 if a == b else 1)
PY
check "json keys follow DESIGN.md" python3 - "$T/file.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
need = ["total_events", "events", "cpus", "first_time", "last_time", "span",
        "lost_events", "bad_lines", "reordered_events", "format"]
assert all(k in d for k in need), [k for k in need if k not in d]
assert isinstance(d["first_time"], int) and d["span"] == d["last_time"] - d["first_time"]
assert sum(d["events"].values()) == d["total_events"]
assert sum(c["events"] for c in d["cpus"].values()) == d["total_events"]
PY

check "report --json" status 0 "$TRAWL" report --json --events 'sched_switch,irq:*' "$SAMPLE"
check "report --json is valid JSON" valid_json "$T/out"
check "report --events filters" python3 - "$T/out" <<'PY'
import json, sys
evs = json.load(open(sys.argv[1]))
names = {e["event"] for e in evs}
assert names and names <= {"sched_switch", "irq_handler_entry", "irq_handler_exit", "softirq_raise", "softirq_entry", "softirq_exit"}, names
assert "softirq_entry" in names  # irq:* is the irq system, softirqs included
assert all(isinstance(e["fields"]["next_pid"], int) for e in evs if e["event"] == "sched_switch")
keys = [(e["time"], e["seq"]) for e in evs]
assert keys == sorted(keys)
PY
check "report --csv" status 0 "$TRAWL" report --csv "$SAMPLE"
check "csv header" sh -c "head -1 '$T/out' | grep -q '^seq,time,cpu,pid,tgid,comm,event,flags,fields$'"
check "csv has a row per event" sh -c "[ \$(($(wc -l <"$T/out") - 1)) = $(python3 -c "import json;print(json.load(open('$T/file.json'))['total_events'])") ]"
check "bad event pattern" status 1 "$TRAWL" report --events 'irq:' "$SAMPLE"
# names with quotes and control bytes stay valid JSON
printf '  a-1 [000] d..2. 1.000001: e"v\001: x="q" y=\001\n' >"$T/odd.txt"
check "report --json of odd names" status 0 "$TRAWL" report --json "$T/odd.txt"
check "odd names are escaped" python3 - "$T/out" <<'PY'
import json, sys
evs = json.load(open(sys.argv[1]))
assert evs[0]["event"] == 'e"v\x01', evs
assert evs[0]["fields"] == {"x": '"q"', "y": "\x01"}, evs
PY

# malformed input: counted by default, an error with --strict
{ head -20 "$SAMPLE"; echo "this is not an event"; tail -5 "$SAMPLE"; } >"$T/bad.txt"
check "bad line counted" status 0 "$TRAWL" stats "$T/bad.txt"
check "bad line number shown" grep -q "bad lines:    1 (lines 21)" "$T/out"
check "--strict fails" status 1 "$TRAWL" stats --strict "$T/bad.txt"
check "--strict names file and line" grep -q "bad.txt:21:1: cannot parse line" "$T/err"
check "report warns about bad lines" status 0 "$TRAWL" report "$T/bad.txt"
check "report warning" grep -q "1 malformed line skipped" "$T/err"

# damaged compressed input: the readable part is counted, the damage named
for z in gz zst; do
	head -c 6000 "$SAMPLE.$z" >"$T/cut.$z"
	check "truncated $z exits 1" status 1 "$TRAWL" stats "$T/cut.$z"
	check "truncated $z is named" grep -q "cut.$z: .* data is truncated at byte 6000" "$T/err"
	check "truncated $z still counts what it read" grep -Eq "^events: +[1-9]" "$T/out"
	check "truncated $z from a pipe" status 1 sh -c "cat '$T/cut.$z' | '$TRAWL' stats -"
done
printf 'x' | cat "$SAMPLE.gz" - >"$T/trailing.gz"
check "garbage after gzip data exits 1" status 1 "$TRAWL" stats "$T/trailing.gz"

# binary and trace.dat
head -c 3000 /dev/urandom >"$T/junk.bin"
check "binary input exits 1" status 1 "$TRAWL" stats "$T/junk.bin"
check "trace.dat is read" status 0 "$TRAWL" stats "$FIX/tc.dat"
check "trace.dat format named" grep -q "^format: *trace-dat, zstd" "$T/out"
check "trace.dat from a pipe" status 0 sh -c "cat '$FIX/tc.dat' | '$TRAWL' stats --json - >'$T/pipe.json'"
check "trace.dat from a pipe counts the same" grep -q '"total_events": 1222' "$T/pipe.json"
gzip -c "$FIX/tc-v6.dat" >"$T/tc6.dat.gz"
check "gzipped trace.dat" status 0 "$TRAWL" stats --json "$T/tc6.dat.gz"
check "gzipped trace.dat counts the same" grep -q '"total_events": 1222' "$T/out"
head -c 20000 "$FIX/tc-v7-nocomp.dat" >"$T/cut.dat"
check "trace.dat cut in its header exits 1" status 1 "$TRAWL" stats "$T/cut.dat"
check "cut header is named with its offset" grep -q "cut.dat: not a readable trace.dat: .* at offset [0-9]" "$T/err"
head -c 120000 "$FIX/tc-v6.dat" >"$T/cut6.dat"
check "trace.dat cut in its data exits 1" status 1 "$TRAWL" stats "$T/cut6.dat"
check "cut data is named with its offset" grep -q "cut6.dat: the file is truncated at offset 120000" "$T/err"
check "cut data still counts what it read" grep -Eq "^events: +[1-9]" "$T/out"
check "cut data is counted as damage at its offset" grep -Eq "^damaged: *[1-9][0-9]* \(at offsets 120000" "$T/out"
# a CPU whose time goes backwards (page 3 of CPU 0 moved 5 ms back):
# the merge alone would be out of order; the sorter puts it right
python3 - "$FIX/tc-v7-nocomp.dat" "$T/back.dat" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off = 90112 + 2 * 4096  # CPU 0's data (BUFFER option), third page
struct.pack_into("<Q", d, off, struct.unpack_from("<Q", d, off)[0] - 5000000)
open(sys.argv[2], "wb").write(d)
PY
check "trace.dat with time going back" status 0 "$TRAWL" report --json "$T/back.dat"
check "is delivered complete and in (time, seq) order" python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))
keys = [(e["time"], e["seq"]) for e in ev]
sys.exit(0 if len(ev) == 1222 and keys == sorted(keys) else 1)' "$T/out"
check "and says it reordered" grep -q "out of time order and were sorted" "$T/err"

# out of order: two halves swapped are sorted back
grep -v '^#' "$SAMPLE" >"$T/body.txt"
half=$(($(wc -l <"$T/body.txt") / 2))
{ tail -n +$((half + 1)) "$T/body.txt"; head -n $half "$T/body.txt"; } >"$T/swapped.txt"
check "swapped halves" status 0 "$TRAWL" stats --json "$T/swapped.txt"
check "swapped halves reordered and complete" python3 - "$T/out" "$T/file.json" <<'PY'
import json, sys
s, f = (json.load(open(p)) for p in sys.argv[1:3])
assert s["reordered_events"] > 0
assert s["events"] == f["events"] and s["first_time"] == f["first_time"]
PY
check "swapped report in time order" status 0 "$TRAWL" report --json "$T/swapped.txt"
check "swapped report sorted" python3 -c "
import json,sys; e=json.load(open('$T/out')); k=[x['time'] for x in e]; sys.exit(k!=sorted(k))"

# streaming with a window: late events are delivered and counted
check "window too small" status 0 sh -c "cat '$T/swapped.txt' | '$TRAWL' stats --json --window 10 -"
check "window too small counts late events" python3 -c "
import json,sys; d=json.load(open('$T/out')); sys.exit(not (d['late_events'] > 0 and d['total_events'] == json.load(open('$T/file.json'))['total_events']))"
check "window as large as the input" status 0 sh -c "cat '$T/swapped.txt' | '$TRAWL' report --json --window 100000 -"
check "large window is exact" python3 -c "
import json,sys; e=json.load(open('$T/out')); k=[(x['time'],x['seq']) for x in e]; sys.exit(k!=sorted(k))"
check "bad --window" status 1 "$TRAWL" stats --window 0 "$SAMPLE"

# analyses: help, options, JSON per DESIGN.md (tests/tools/check-analyses.py
# checks the numbers against an independent computation)
for cmd in "latency wakeup" "latency preempt" irq workqueue slices; do
	check "$cmd --help" status 0 "$TRAWL" $cmd --help
	check "$cmd --help shows usage" grep -q "usage: trawl ${cmd%% *}" "$T/out"
	check "$cmd without FILE" status 1 "$TRAWL" $cmd
	check "$cmd bad option" status 1 "$TRAWL" $cmd --bogus "$SAMPLE"
	check "$cmd --json and --csv together" status 1 "$TRAWL" $cmd --json --csv "$SAMPLE"
	check "$cmd text" status 0 "$TRAWL" $cmd "$SAMPLE"
	check "$cmd text has the overall row" grep -q "(overall)" "$T/out"
	check "$cmd --csv" status 0 "$TRAWL" $cmd --csv "$SAMPLE"
	check "$cmd csv rows have the header's columns" python3 -c "
import csv,sys; r=list(csv.reader(open('$T/out'))); sys.exit(not (len(r) > 1 and all(len(x) == len(r[0]) for x in r) and r[1][r[0].index('kind')] == 'overall'))"
	check "$cmd --json on trace.dat" status 0 "$TRAWL" $cmd --json "$FIX/tc.dat"
	check "$cmd json follows DESIGN.md" python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
o = d["overall"]
assert all(isinstance(o[k], int) for k in ("count", "min", "p50", "p90", "p99", "max")), o
assert o["count"] > 0 and o["min"] <= o["p50"] <= o["p90"] <= o["p99"] <= o["max"]
rows = next(v for k, v in d.items() if k in ("tasks", "irqs", "functions", "slices"))
assert sum(r["count"] for r in rows) == o["count"]
assert all("count" in r and isinstance(r["max_at"], int) for r in rows)
assert max(r["max"] for r in rows) == o["max"]
assert all(w["end"] - w["start"] == w["duration"] for w in d["worst"])
PY
done
check "latency needs a kind" status 1 "$TRAWL" latency
check "latency unknown kind" status 1 "$TRAWL" latency frobs "$SAMPLE"
check "latency unknown kind is named" grep -q "not 'frobs'" "$T/err"
check "latency --pid" status 0 "$TRAWL" latency wakeup --json --pid 15776 "$SAMPLE"
check "latency --pid keeps one task" python3 -c "
import json,sys; d=json.load(open('$T/out')); sys.exit(not ([r['pid'] for r in d['tasks']] == [15776] and d['overall']['count'] == d['tasks'][0]['count']))"
check "latency --comm with a space" status 0 "$TRAWL" latency wakeup --json --comm "Web Content" "$SAMPLE"
check "latency --comm keeps that name" python3 -c "
import json,sys; d=json.load(open('$T/out')); sys.exit(not (d['tasks'] and all(r['comm'] == 'Web Content' for r in d['tasks'])))"
check "latency --from/--to" status 0 "$TRAWL" latency wakeup --json --from 4119.47 --to 4119.475 "$SAMPLE"
check "the window keeps instances inside it" python3 -c "
import json,sys; d=json.load(open('$T/out')); sys.exit(not (d['worst'] and all(4119470000000 <= w['start'] and w['end'] <= 4119475000000 for w in d['worst'])))"
check "bad --from" status 1 "$TRAWL" latency wakeup --from 12x "$SAMPLE"
check "--to before --from" status 1 "$TRAWL" latency wakeup --from 5 --to 4 "$SAMPLE"
check "--worst 3" status 0 "$TRAWL" latency wakeup --json --worst 3 "$SAMPLE"
check "--worst 3 keeps three, longest first" python3 -c "
import json,sys; w=json.load(open('$T/out'))['worst']; d=[x['duration'] for x in w]; sys.exit(not (len(w) == 3 and d == sorted(d, reverse=True)))"
check "latency from stdin" status 0 sh -c "cat '$SAMPLE' | '$TRAWL' latency wakeup -"
check "irq --threshold 8us warns" status 0 "$TRAWL" irq --threshold 8us "$SAMPLE"
check "irq warning lines" grep -q "^warning: softirq 4 (BLOCK) on cpu 1 ran 10.0 us at 4119.466134000" "$T/out"
check "irq --json long list" status 0 "$TRAWL" irq --json --threshold 8us "$SAMPLE"
check "irq long entries are over the threshold" python3 -c "
import json,sys; d=json.load(open('$T/out')); sys.exit(not (d['threshold'] == 8000 and d['long_count'] == len(d['long']) > 0 and all(x['duration'] > 8000 for x in d['long'])))"
check "irq bad --threshold" status 1 "$TRAWL" irq --threshold fast "$SAMPLE"
check "workqueue has queue_delay" status 0 "$TRAWL" workqueue --json "$SAMPLE"
check "workqueue queue_delay object" python3 -c "
import json,sys; d=json.load(open('$T/out')); sys.exit(not (d['queue_delay']['overall']['count'] > 0))"
check "slices on systrace HTML" status 0 "$TRAWL" slices --json "$FIX/systrace.html"
check "slices self <= total" python3 -c "
import json,sys; d=json.load(open('$T/out')); sys.exit(not (d['slices'] and all(0 <= r['self'] <= r['total'] for r in d['slices']) and d['counters']['counters']))"
check "analysis of a file without the events" status 0 "$TRAWL" workqueue --json "$FIX/handmade/function-tracer.txt"
check "empty overall is all zeros" python3 -c "
import json,sys; d=json.load(open('$T/out')); sys.exit(not (d['overall']['count'] == 0 and d['functions'] == []))"

# trawl sched (the numbers: tests/analysis/test-sched.c by hand,
# check-analyses.py against an independent computation)
check "sched --help" status 0 "$TRAWL" sched --help
check "sched --help shows usage" grep -q "usage: trawl sched" "$T/out"
check "sched without FILE" status 1 "$TRAWL" sched
check "sched bad option" status 1 "$TRAWL" sched --bogus "$SAMPLE"
check "sched --json and --csv together" status 1 "$TRAWL" sched --json --csv "$SAMPLE"
check "sched text" status 0 "$TRAWL" sched "$SAMPLE"
check "sched text has tasks, overall and cpus" sh -c "grep -q '(overall)' '$T/out' && grep -q 'Web Content' '$T/out' && grep -q '^ *cpu  *busy' '$T/out'"
check "sched --csv" status 0 "$TRAWL" sched --csv "$SAMPLE"
check "sched csv rows have the header's columns" python3 -c "
import csv,sys; r=list(csv.reader(open('$T/out'))); k=[x[0] for x in r[1:]]
sys.exit(not (all(len(x) == len(r[0]) for x in r) and k[0] == 'overall' and 'task' in k and k[-1] == 'cpu'))"
for f in "$SAMPLE" "$FIX/tc.dat"; do
	check "sched --json $(basename "$f")" status 0 "$TRAWL" sched --json "$f"
	check "sched json: integer ns, rows with count, sums, cpu spans" python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keys = ("count", "run", "runnable", "sleep", "switches", "preempted", "migrations")
assert d["analysis"] == "sched" and d["end"] >= d["start"] > 0
assert all(isinstance(d["overall"][k], int) for k in keys)
assert d["tasks"] and all(isinstance(r[k], int) and r[k] >= 0 for r in d["tasks"] for k in keys)
assert all(sum(r[k] for r in d["tasks"]) == d["overall"][k] for k in keys)
assert [r["run"] for r in d["tasks"]] == sorted((r["run"] for r in d["tasks"]), reverse=True)
assert all(r["preempted"] <= r["switches"] for r in d["tasks"])
span = d["end"] - d["start"]
for c in d["cpus"]:
    assert 0 < c["busy"] + c["idle"] <= span, c
    assert abs(c["busy_share"] - c["busy"] / (c["busy"] + c["idle"])) < 1e-4
# every task's known time fits in the trace
assert all(r["run"] + r["runnable"] + r["sleep"] <= span for r in d["tasks"])
PY
done
check "sched --pid" status 0 "$TRAWL" sched --json --pid 15776 "$SAMPLE"
check "sched --pid keeps one task, overall is its row" python3 -c "
import json,sys; d=json.load(open('$T/out')); t=d['tasks']
sys.exit(not ([r['pid'] for r in t] == [15776] and all(d['overall'][k] == t[0][k] for k in ('count','run','sleep'))))"
check "sched --comm with a space" status 0 "$TRAWL" sched --json --comm "Web Content" "$SAMPLE"
check "sched --comm keeps that name" python3 -c "
import json,sys; d=json.load(open('$T/out')); sys.exit(not (d['tasks'] and all(r['comm'] == 'Web Content' for r in d['tasks'])))"
check "sched --from/--to" status 0 "$TRAWL" sched --json --from 4119.47 --to 4119.475 "$SAMPLE"
check "sched window bounds every time" python3 -c "
import json,sys; d=json.load(open('$T/out'))
sys.exit(not (d['start'] >= 4119470000000 and d['end'] == 4119475000000 and all(c['busy'] + c['idle'] <= 5000000 for c in d['cpus'])))"
check "sched from stdin" status 0 sh -c "cat '$SAMPLE' | '$TRAWL' sched -"
check "sched of a file without sched events" status 0 "$TRAWL" sched --json "$FIX/handmade/function-tracer.txt"
check "sched without events is empty" python3 -c "
import json,sys; d=json.load(open('$T/out')); sys.exit(not (d['tasks'] == [] and d['cpus'] == [] and d['overall']['run'] == 0))"

# trawl export (tests/tools/check-exports.py checks the contents)
check "export --help" status 0 "$TRAWL" export --help
check "export --help shows usage" grep -q "usage: trawl export" "$T/out"
check "export without FILE" status 1 "$TRAWL" export --to csv -o "$T/x"
check "export without --to" status 1 "$TRAWL" export "$SAMPLE" -o "$T/x"
check "export bad --to" status 1 "$TRAWL" export "$SAMPLE" --to svg -o "$T/x"
check "export bad --to is named" grep -q "not 'svg'" "$T/err"
check "export without -o" status 1 "$TRAWL" export "$SAMPLE" --to perfetto
check "export unwritable -o is an environment error" status 2 "$TRAWL" export "$SAMPLE" --to perfetto -o /nonexistent/dir/x.json
check "export csv into a file's place" status 2 "$TRAWL" export "$SAMPLE" --to csv -o "$SAMPLE/x"
check "export csv to stdout is refused" status 1 "$TRAWL" export "$SAMPLE" --to csv -o -
check "export perfetto to stdout" status 0 "$TRAWL" export "$SAMPLE" --to perfetto -o -
check "export perfetto to stdout is JSON" valid_json "$T/out"
check "export perfetto from stdin" status 0 sh -c "cat '$FIX/tc.dat' | '$TRAWL' export - --to perfetto -o '$T/p.json'"
check "export perfetto from stdin is JSON" valid_json "$T/p.json"
check "export csv" status 0 "$TRAWL" export "$FIX/ftrace-irqinfo.txt.zst" --to csv -o "$T/csv"
check "export csv made sched_switch.csv" test -s "$T/csv/sched_switch.csv"
check "export csv made no all.csv without --all" test ! -e "$T/csv/all.csv"
check "export csv --all" status 0 "$TRAWL" export "$FIX/ftrace-irqinfo.txt.zst" --to csv --all -o "$T/csv"
check "export csv --all made all.csv" test -s "$T/csv/all.csv"
check "export --all is for csv" status 1 "$TRAWL" export "$SAMPLE" --to perfetto --all -o "$T/x.json"
# a full disk: the CSV export stops with the file it could not write, from
# the writer thread as from the one thread
mkdir -p "$T/small"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=256k tmpfs "$T/small" 2>/dev/null; then
	check "export csv to a full disk" status 2 "$TRAWL" export "$FIX/pair-broad.dat" --to csv -o "$T/small/a"
	check "export csv to a full disk names a file" grep -q "cannot write $T/small/a/.*\.csv: No space left on device" "$T/err"
	rm -rf "$T/small/a"
	check "export csv --threads 1 to a full disk" status 2 "$TRAWL" export "$FIX/pair-broad.dat" --threads 1 --to csv -o "$T/small/a"
	check "export csv --threads 1 to a full disk names a file" grep -q "cannot write $T/small/a/.*\.csv: No space left on device" "$T/err"
	check "export perfetto to a full disk" status 2 "$TRAWL" export "$FIX/pair-broad.dat" --to perfetto -o "$T/small/p.json"
	check "export perfetto to a full disk names the file" grep -q "cannot write $T/small/p.json: No space left on device" "$T/err"
	rm -f "$T/small/p.json"
	check "export perfetto --threads 1 to a full disk" status 2 "$TRAWL" export "$FIX/pair-broad.dat" --threads 1 --to perfetto -o "$T/small/p.json"
	check "export perfetto --threads 1 to a full disk names the file" grep -q "cannot write $T/small/p.json: No space left on device" "$T/err"
	umount "$T/small"
else
	echo "# SKIP export to a full disk: not root or cannot mount a tmpfs"
fi
check "export perfetto to a full standard output" status 2 sh -c "'$TRAWL' export '$FIX/pair-broad.dat' --to perfetto -o - >/dev/full"
check "export perfetto to a full standard output says so" grep -q "cannot write standard output: No space left on device" "$T/err"

# event formats for text traces: the same fields from the bundled table,
# from a trace.dat's formats and from none (the text's own names)
check "--formats FILE.dat names the text's fields" status 0 "$TRAWL" report \
	--json --formats "$FIX/pair-broad.dat" "$FIX/pair-broad.txt"
cp "$T/out" "$T/by-dat.json"
check "the bundled formats name them the same" status 0 "$TRAWL" report \
	--json "$FIX/pair-broad.txt"
check "the same typed fields either way" cmp -s "$T/out" "$T/by-dat.json"
check "sched_process_fork has the kernel's field names" grep -q \
	'"parent_comm":' "$T/out"
check "--formats none keeps the text's own names" status 0 "$TRAWL" report \
	--json --formats none "$FIX/same-recording.txt"
check "... which are the print labels" grep -q '"comm":"record-same.sh","pid":' \
	"$T/out"
check "--formats of a missing path is an error" status 1 "$TRAWL" report \
	--formats "$T/no-such-events" "$FIX/pair-broad.txt"
check "... naming it" grep -q "no-such-events" "$T/err"
check "--formats of a text trace is an error naming the line" status 1 \
	"$TRAWL" report --formats "$FIX/pair-broad.txt" "$FIX/pair-broad.txt"
check "... with file and line" grep -q "pair-broad.txt:[0-9]*:" "$T/err"
check "report --raw prints typed values" status 0 "$TRAWL" report --raw \
	--events sys_enter "$FIX/pair-broad.txt"
check "... sys_enter's args as numbers" grep -q "id=[0-9]* args={" "$T/out"

# golden files (tests/tools/golden, regenerate with regen-golden.sh)
for g in "$HERE"/golden/*.cmd; do
	[ -e "$g" ] || continue
	base=${g%.cmd}
	args=$(cat "$g")
	(cd "$FIX" && eval "\"$TRAWL\" $args") >"$T/golden.out" 2>&1
	check "golden $(basename "$base")" diff -u "$base.out" "$T/golden.out"
done

echo "1..$n"
[ $fails = 0 ]
