#!/bin/bash
# SPDX-License-Identifier: MIT
# trawl record --app: an application's ring channel (examples/ring-demo)
# recorded with the kernel's sched_switch into one trace.dat v7. trace-cmd
# report opens it and shows the app's buffer; trawl report gives the same
# app events, as system "demo", in one time order with the kernel's; each
# app event's CPU and thread is the thread the kernel's sched_switch says
# ran on that CPU then; slices are whole and nothing is lost. Root,
# tracefs and trace-cmd only: skipped (exit 77) otherwise. tracefs is
# compared before and after.
# usage: test-record-app.sh TRAWL RING-DEMO
set -u
TRAWL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DEMO=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
TFS=/sys/kernel/tracing
export LC_ALL=C

. "$(dirname "$0")/live-lib.sh"
need_tracing "recording tests" trace-cmd

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
n=0

begin
check "record -e sched:sched_switch --app demo -- ring-demo" \
	status 0 "$TRAWL" record -e sched:sched_switch --app demo -o "$T/app.dat" -- "$DEMO" 1
check "tracefs is as it was" same_state

"$TRAWL" report --json "$T/app.dat" >"$T/app.json" 2>"$T/report.err"
trace-cmd report "$T/app.dat" >"$T/tc.txt" 2>"$T/tc.err"
check "trace-cmd report opens the file" test -s "$T/tc.txt"

# trace-cmd prints an instance's events with "NAME:" in front
tc_app=$(grep -c '^demo: ' "$T/tc.txt")
tc_frames=$(grep -c '^demo: .* frame: *id=[0-9]* thread=[0-9] work_ns=[0-9]* stage=[a-z]' "$T/tc.txt")
check "trace-cmd shows the app's buffer ($tc_app events, $tc_frames frames)" \
	test "$tc_app" -gt 100 -a "$tc_frames" -gt 20

python3 - "$T/app.json" "$tc_app" >"$T/check.txt" 2>&1 <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))
if isinstance(events, dict):
    events = events.get("events", [])
app = [e for e in events if e.get("system") == "demo"]
ok = True
def fail(msg):
    global ok
    ok = False
    print("FAIL:", msg)
print("app events", len(app), "trace-cmd", sys.argv[2])
if len(app) != int(sys.argv[2]):
    fail("trawl and trace-cmd disagree on the app's events")
times = [e["time"] for e in events]
if times != sorted(times):
    fail("not in one time order")
# which thread ran where: the kernel's sched_switch. An app event at time
# t on CPU c by thread p contradicts the kernel when the switches on c
# just before and just after t agree that another thread ran on c all
# along (the one switched to before is the one switched from after). When
# they disagree, the kernel's record has a hole there (on this machine a
# sandbox thread is switched to but never from, and a CPU's record can be
# thin): that event is not counted either way.
import bisect
switches = {}
for e in events:
    if e.get("event") == "sched_switch":
        switches.setdefault(e["cpu"], []).append(
            (e["time"], e["fields"]["prev_pid"], e["fields"]["next_pid"]))
times_of = {c: [x[0] for x in sw] for c, sw in switches.items()}
checked = mismatched = 0
for e in app:
    sw = switches.get(e["cpu"], [])
    k = bisect.bisect_right(times_of[e["cpu"]], e["time"]) if sw else 0
    if k == 0 or k == len(sw) or sw[k - 1][2] != sw[k][1]:
        continue
    checked += 1
    if sw[k - 1][2] != e["pid"]:
        mismatched += 1
        if mismatched < 5:
            print("mismatch:", e, "the kernel ran", sw[k - 1][2])
print("checked", checked, "mismatched", mismatched)
if checked < len(app) // 10 or mismatched:
    fail("app events on a CPU where the kernel ran another thread")
# slices whole, per thread
depth = {}
for e in app:
    if e["event"] == "slice_begin":
        depth[e["pid"]] = depth.get(e["pid"], 0) + 1
    elif e["event"] == "slice_end":
        depth[e["pid"]] = depth.get(e["pid"], 0) - 1
        if depth[e["pid"]] < 0:
            fail("an end before its begin")
if any(depth.values()) or len(depth) != 4:
    fail("slices not whole on four threads: %r" % depth)
frames = [e for e in app if e["event"] == "frame"]
if not frames or any(set(f["fields"]) != {"id", "thread", "work_ns", "stage"} for f in frames):
    fail("frame events without their fields")
sys.exit(0 if ok else 1)
PY
rc=$?
sed 's/^/# /' "$T/check.txt"
check "trawl report: app events in time order, on the threads the kernel ran, slices whole" test $rc = 0

"$TRAWL" run -e 'demo:frame /args.id == 3/ { @n[args.thread] = count(); }' "$T/app.dat" >"$T/run.txt" 2>&1
check "trawl run: a script on demo:frame's fields (each thread's frame 3)" \
	test "$(grep -c '^@n\[[0-3]\]: 1$' "$T/run.txt")" = 4

"$TRAWL" stats --json "$T/app.dat" >"$T/stats.json" 2>/dev/null
check "no events lost" python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(s.get("lost_events", 0) != 0)' "$T/stats.json"

# an app killed in the middle of its events: the recording goes on and
# keeps what the app finished (its unfinished events count as lost)
begin
"$TRAWL" record -e sched:sched_switch --app demo -d 1.5 -o "$T/killed.dat" >"$T/rec.out" 2>&1 &
rec=$!
sleep 0.2
"$DEMO" 5 &
demo=$!
sleep 0.6
kill -KILL $demo
wait $demo 2>/dev/null
wait $rec
check "record goes on after the app is killed" test $? = 0
killed=$("$TRAWL" report "$T/killed.dat" --events 'demo:*' 2>/dev/null | wc -l)
check "and keeps the app's events ($killed)" test "$killed" -gt 100
check "trace-cmd report opens it" sh -c "trace-cmd report '$T/killed.dat' 2>/dev/null | grep -q '^demo: '"
check "tracefs is as it was" same_state
rm -f /dev/shm/trawl-ring.demo

begin
check "--app with another clock is refused" \
	status 1 "$TRAWL" record -e sched:sched_switch --app demo --clock local -o "$T/bad.dat" -- true
check "  saying why" grep -q 'mono' "$T/err"
check "tracefs is as it was" same_state

echo "1..$n"
[ $fails = 0 ]
