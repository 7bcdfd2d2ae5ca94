#!/bin/bash
# SPDX-License-Identifier: MIT
# Recording tests: trawl record against the real kernel, checked with
# `trace-cmd report` (Debian trace-cmd 3.1.6). Root and tracefs only: skipped
# (exit 77) otherwise. Every test snapshots every tracefs setting a recorder
# could change and checks it is identical afterwards, also after failures.
# Each recording lasts a second or less.
# usage: test-record.sh TRAWL PINGPONG
set -u
TRAWL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
LOAD=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
TFS=/sys/kernel/tracing
export LC_ALL=C

# need_tracing, check, snapshot (every setting a recorder may touch),
# begin, same_state, status
. "$(dirname "$0")/live-lib.sh"
need_tracing "recording tests" trace-cmd

T=$(mktemp -d)
SMALL=$T/small
trap 'mountpoint -q "$SMALL" && umount "$SMALL"; rm -rf "$T"' EXIT
fails=0
n=0

# Events per CPU as trace-cmd report shows them, as JSON {"0": n, ...}.
report_counts() {
	trace-cmd report "$1" 2>/dev/null | python3 -c '
import collections, json, re, sys
c = collections.Counter()
for line in sys.stdin:
    m = re.search(r"\[(\d+)\]\s+\d+\.\d+:", line)
    if m:
        c[str(int(m.group(1)))] += 1
print(json.dumps(c))'
}

counts_match() { # counts_match SUMMARY.json FILE.dat
	report_counts "$2" >"$T/counts"
	python3 - "$1" "$T/counts" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
ok = True
for cpu, x in s["cpus"].items():
    if x["events"] != got.get(cpu, 0):
        print("  cpu %s: trawl saved %d, trace-cmd report shows %d"
              % (cpu, x["events"], got.get(cpu, 0)), file=sys.stderr)
        ok = False
if s["total_events"] != sum(got.values()):
    ok = False
sys.exit(0 if ok else 1)
PY
}

# --- usage and environment -------------------------------------------------
begin
check "record --help" status 0 "$TRAWL" record --help
check "record --help shows usage" grep -q "usage: trawl record" "$T/out"
check "no events is a usage error" status 1 "$TRAWL" record -o "$T/x.dat" -d 0.1
check "-f before any -e is a usage error" status 1 "$TRAWL" record -f 'prev_pid==0' -e sched:sched_switch
check "bad -d" status 1 "$TRAWL" record -e sched:sched_switch -d abc
check "--trigger without --flight-recorder" status 1 "$TRAWL" record -e sched:sched_switch --trigger sched:sched_switch
check "unknown event exits 1" status 1 "$TRAWL" record -e no_such_event -o "$T/x.dat" -d 0.1
check "unknown event is named" grep -q "no_such_event" "$T/err"
check "bad filter exits 1" status 1 "$TRAWL" record -e sched:sched_switch -f 'no_field==1' -o "$T/x.dat" -d 0.1
check "bad filter says where the fields are" grep -q "format" "$T/err"
check "unknown clock exits 1" status 1 "$TRAWL" record -e sched:sched_switch --clock sundial -o "$T/x.dat" -d 0.1
check "unwritable output exits 1" status 1 "$TRAWL" record -e sched:sched_switch -o "$T/no/such/dir/x.dat" -d 0.1
check "unwritable output says what to do" grep -q -- "-o" "$T/err"
if command -v setpriv >/dev/null; then
	check "not root exits 2" status 2 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TRAWL" record -e sched:sched_switch -o /tmp/trawl-nobody.dat -d 0.1
	check "not root says so" grep -q "root" "$T/err"
fi
check "tracefs unchanged after the refusals" same_state

# --- round trip -------------------------------------------------------------
begin
check "record sched and irq around a load" status 0 \
	"$TRAWL" record -e 'sched:*' -e 'irq:*' -o "$T/rt.dat" --json -- sh -c "'$LOAD' 0.5 >/dev/null"
cp "$T/out" "$T/rt.json"
check "summary is JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/rt.json"
check "command status in the summary" python3 -c '
import json, sys; assert json.load(open(sys.argv[1]))["command_status"] == 0' "$T/rt.json"
check "trace-cmd report opens it" sh -c "trace-cmd report '$T/rt.dat' >'$T/rt.txt' 2>'$T/rt.err'"
check "with sched_switch events" grep -q "sched_switch:" "$T/rt.txt"
check "and wakeups from the load" grep -q "sched_wakeup:.*pingpong" "$T/rt.txt"
check "events per CPU match trace-cmd report" counts_match "$T/rt.json" "$T/rt.dat"
# the round trip: trawl's reader and trace-cmd agree on every event
check "trawl report and trace-cmd report agree, event by event" \
	python3 "$(dirname "$0")/../tools/check-dat-report.py" "$TRAWL" "$T/rt.dat"
check "events on both CPUs" python3 -c '
import json, sys; s = json.load(open(sys.argv[1]))
sys.exit(0 if sum(1 for x in s["cpus"].values() if x["events"]) >= min(2, len(s["cpus"])) else 1)' "$T/rt.json"
check "tracefs unchanged after a recording" same_state

# --- filter -----------------------------------------------------------------
begin
check "record with a kernel filter" status 0 \
	"$TRAWL" record -e sched:sched_switch -f 'prev_pid==0' -o "$T/f.dat" \
	-- sh -c "'$LOAD' 0.2 >/dev/null; sleep 0.1; sleep 0.1"
check "filtered file opens" sh -c "trace-cmd report -R '$T/f.dat' >'$T/f.txt' 2>/dev/null"
# The sleeps leave CPUs idle, unless other work keeps both busy: then there
# may be no switch from idle at all, which is no failure of the filter.
grep -q "sched_switch:" "$T/f.txt" || echo "# note: no switch from idle recorded (busy machine?)"
check "every switch has prev_pid=0" sh -c "! grep 'sched_switch:' '$T/f.txt' | grep -v 'prev_pid=0 '"
check "record with a filter on the load's comm" status 0 \
	"$TRAWL" record -e sched:sched_switch -f 'prev_comm=="pingpong"' -o "$T/f2.dat" \
	-- sh -c "'$LOAD' 0.2 >/dev/null"
check "that file opens" sh -c "trace-cmd report -R '$T/f2.dat' >'$T/f2.txt' 2>/dev/null"
check "and has the load's switches" grep -q "sched_switch:.*prev_comm=pingpong" "$T/f2.txt"
check "and no other switch" sh -c "! grep 'sched_switch:' '$T/f2.txt' | grep -v 'prev_comm=pingpong '"
check "tracefs unchanged after a filter" same_state

# --- the command does not start ----------------------------------------------
begin
check "a missing command exits 1" status 1 \
	"$TRAWL" record -e sched:sched_switch -o "$T/n.dat" -- /nonexistent
check "the error names it" grep -q "/nonexistent" "$T/err"
check "the file is still valid" sh -c "trace-cmd report '$T/n.dat' >/dev/null 2>&1"
check "tracefs unchanged after a failed command" same_state

# --- the JSON summary alone on stdout, or in a file ----------------------------
begin
check "--json with a talking command" status 0 \
	"$TRAWL" record -e sched:sched_switch -o "$T/j.dat" --json -- sh -c 'echo CMD-SAYS-HI'
check "stdout is the JSON alone" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out"
check "the command's output went to stderr" grep -q CMD-SAYS-HI "$T/err"
check "--json=FILE" status 0 \
	"$TRAWL" record -e sched:sched_switch -o "$T/j2.dat" --json="$T/j2.json" -- sh -c 'echo CMD-SAYS-HI'
check "FILE is the JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/j2.json"
check "and the command kept stdout" grep -qx CMD-SAYS-HI "$T/out"
check "tracefs unchanged after the JSON runs" same_state

# --- the status line, on a terminal only ---------------------------------------
begin
if command -v script >/dev/null; then
	check "a status line on a terminal" script -qfec \
		"'$TRAWL' record -e 'sched:*' -o '$T/tty.dat' -d 2.5 -- '$LOAD' 2" "$T/tty.txt"
	check "with time, events, bytes, rates and lost" python3 -c '
import re, sys
t = open(sys.argv[1], errors="replace").read().replace("\r", "\n")
line = r"^recording \d+ s: [\d.]+( [kMG])? events \([\d.]+( [kMG])?/s\), " \
       r"[\d.]+ [kMG]?B \([\d.]+ [kMG]?B/s\), \d+ lost"
sys.exit(0 if re.search(line, t, re.M) else 1)' "$T/tty.txt"
	check "and none when stderr is not a terminal" status 0 \
		"$TRAWL" record -e 'sched:*' -o "$T/notty.dat" -d 1.2
	check "(nothing but the summary)" sh -c "! grep -q 'recording [0-9]* s:' '$T/err'"
	check "tracefs unchanged after the status line" same_state
else
	echo "# SKIP status line tests: no script(1) to give trawl a terminal"
fi

# --- stop by time and by signal ----------------------------------------------
begin
check "-d stops" status 0 "$TRAWL" record -e sched:sched_switch -o "$T/d.dat" -d 0.3
check "-d file opens" sh -c "trace-cmd report '$T/d.dat' >/dev/null 2>&1"
sigint_stops() {
	"$TRAWL" record -e 'sched:*' -o "$T/int.dat" 2>"$T/err" &
	local pid=$!
	sleep 0.4
	kill -INT $pid
	wait $pid && trace-cmd report "$T/int.dat" 2>/dev/null | grep -q sched_
}
check "SIGINT stops and saves" sigint_stops
sigterm_reaches_cmd() {
	"$TRAWL" record -e sched:sched_switch -o "$T/term.dat" \
		-- sh -c "echo \$\$ >'$T/cmd.pid'; exec sleep 30" 2>"$T/err" &
	local pid=$!
	sleep 0.4
	kill -TERM $pid
	wait $pid && trace-cmd report "$T/term.dat" >/dev/null 2>&1 || return 1
	sleep 0.2
	! kill -0 "$(cat "$T/cmd.pid")" 2>/dev/null
}
check "SIGTERM stops, saves and ends CMD" sigterm_reaches_cmd
check "tracefs unchanged after signals" same_state

# --- top level: settings changed and put back ----------------------------------
begin
check "--top-level with buffer size, clock, filter" status 0 \
	"$TRAWL" record --top-level -b 2048 --clock mono -e sched:sched_switch -f 'prev_comm=="pingpong"' \
	-e 'irq:*' -o "$T/top.dat" -- "$LOAD" 0.2
check "the file says clock mono" sh -c "trace-cmd dump --options '$T/top.dat' 2>&1 | grep -q '\[mono\]'"
check "top-level file opens" sh -c "trace-cmd report '$T/top.dat' 2>/dev/null | grep -q sched_switch"
check "top-level settings put back" same_state
check "--top-level with a failing command" status 1 \
	"$TRAWL" record --top-level -b 2048 --clock global -e sched:sched_switch -o "$T/top2.dat" -- /nonexistent
check "top-level settings put back after it" same_state
check "--top-level with a bad filter" status 1 \
	"$TRAWL" record --top-level -b 2048 -e 'sched:*' -f 'prev_pid==0' -o "$T/top3.dat" -d 0.1
check "top-level settings put back after that" same_state

# --- flight recorder -----------------------------------------------------------
begin
check "flight recorder around a load" status 0 \
	"$TRAWL" record --flight-recorder -b 64 -e 'sched:*' -o "$T/fl.dat" --json -- sh -c "'$LOAD' 0.5 >/dev/null"
cp "$T/out" "$T/fl.json"
check "flight file opens with the load's last events" sh -c \
	"trace-cmd report '$T/fl.dat' 2>/dev/null | grep -q 'pingpong'"
check "flight file holds no more than the buffer" python3 -c '
import json, sys; s = json.load(open(sys.argv[1]))
# 64 KiB per CPU, plus the page the writer was on
sys.exit(0 if all(x["bytes"] <= 64 * 1024 + 2 * 4096 for x in s["cpus"].values()) else 1)' "$T/fl.json"
check "older events were overwritten" python3 -c '
import json, sys; s = json.load(open(sys.argv[1]))
sys.exit(0 if sum(x["overrun"] for x in s["cpus"].values()) > 0 else 1)' "$T/fl.json"
check "flight counts match trace-cmd report" counts_match "$T/fl.json" "$T/fl.dat"
sigusr1_saves() {
	"$TRAWL" record --flight-recorder -b 64 -e sched:sched_switch -o "$T/us.dat" -d 1 2>"$T/err" &
	local pid=$!
	sleep 0.4
	kill -USR1 $pid
	wait $pid && trace-cmd report "$T/us.1.dat" >/dev/null 2>&1 &&
		trace-cmd report "$T/us.dat" >/dev/null 2>&1
}
check "SIGUSR1 saves FILE.1.dat and goes on" sigusr1_saves
check "trigger stops the buffer at the event" status 0 \
	"$TRAWL" record --flight-recorder -b 64 -e sched:sched_switch -e sched:sched_process_exec \
	--trigger 'sched:sched_process_exec if filename ~ "*true"' -o "$T/tr.dat" \
	-- sh -c "'$LOAD' 0.2 >/dev/null; /bin/true; sleep 0.3"
check "trigger message" grep -q "trigger fired" "$T/err"
check "the triggering exec is the last exec saved" sh -c \
	"trace-cmd report '$T/tr.dat' 2>/dev/null | grep sched_process_exec | tail -1 | grep -q 'filename=/bin/true'"
check "tracefs unchanged after flight recordings" same_state

# --- the kernel's stack after each event of a selection (-T, --stack) ----------
# ftrace's stacktrace trigger with the selection's filter: a kernel_stack
# record after each event kept, on its CPU; none after an event the filter
# drops (the kernel runs triggers on those too); removed at the end.
GP=events/syscalls/sys_enter_getppid
own_instances() { find $TFS/instances -maxdepth 1 -name "trawl-$TRAWL_INSTANCE_TAG-*" | sort; }
# stacks_follow FILE.dat [MIN]: each sys_enter_getppid of perl is followed on
# its CPU by a kernel_stack of perl, as many stacks as events, at least MIN
stacks_follow() {
	trace-cmd report "$1" 2>/dev/null | python3 -c '
import re, sys
want = int(sys.argv[1])
line = re.compile(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+[\d.]+:\s+(\w+):")
events, stacks, last, bad = 0, 0, {}, 0
for l in sys.stdin:
    m = line.match(l)
    if not m:
        continue
    comm, pid, cpu, name = m.groups()
    prev = last.get(cpu)
    if prev and prev[0] == "perl" and prev[2] == "sys_enter_getppid":
        if not (name == "kernel_stack" and pid == prev[1]):
            bad += 1
    if comm == "perl" and name == "sys_enter_getppid":
        events += 1
    if comm == "perl" and name == "kernel_stack":
        stacks += 1
    last[cpu] = (comm, pid, name)
bad += sum(1 for x in last.values() if x[0] == "perl" and x[2] == "sys_enter_getppid")
print("  perl: %d getppid events, %d stacks, %d events not followed by "
      "their stack" % (events, stacks, bad), file=sys.stderr)
sys.exit(0 if stacks >= want and stacks == events and not bad else 1)' "${2:-10}"
}
begin
own_instances >"$T/inst.before"
check "-T before any -e is a usage error" status 1 "$TRAWL" record -T -e sched:sched_switch
check "--help names --stack" sh -c "'$TRAWL' record --help | grep -q -- '-T, --stack'"
check "record getppid with --stack" status 0 \
	"$TRAWL" record -e syscalls:sys_enter_getppid -f 'common_pid > 0' --stack -o "$T/st.dat" \
	-- sh -c "cat $TFS/instances/trawl-$TRAWL_INSTANCE_TAG-*/$GP/trigger >'$T/st.trig'; perl -e 'getppid() for 1..10'"
check "the trigger has the selection's filter" grep -qx 'stacktrace:unlimited if common_pid > 0' "$T/st.trig"
check "each getppid of perl is followed by its stack (10 or more)" stacks_follow "$T/st.dat" 10
check "trace-cmd shows them as stack traces" sh -c \
	"trace-cmd report '$T/st.dat' 2>/dev/null | grep 'perl-.*kernel_stack:' | grep -q '<stack trace'"
check "trawl's reader names them kernel_stack" sh -c \
	"'$TRAWL' report '$T/st.dat' 2>/dev/null | grep -q 'perl-.*kernel_stack'"
# the filter on the trigger: stacks after the events kept only
check "a filter that drops perl's events" status 0 \
	"$TRAWL" record -e syscalls:sys_enter_getppid -f 'common_pid == 1' -T -o "$T/st0.dat" \
	-- perl -e 'getppid() for 1..10'
check "leaves no stacks of perl" sh -c \
	"! trace-cmd report '$T/st0.dat' 2>/dev/null | grep -q 'perl-.*kernel_stack'"
check "every event of a glob gets the trigger, with the filter" status 0 \
	"$TRAWL" record -e 'syscalls:sys_enter_getp*' -f 'common_pid > 0' -T -e sched:sched_switch \
	-o "$T/sg.dat" -- sh -c "grep -H . $TFS/instances/trawl-$TRAWL_INSTANCE_TAG-*/events/*/*/trigger | grep -v ':#' >'$T/sg.trig'"
check "(getpid, getppid, getpgid, ...: all of them)" sh -c "
	[ \$(grep -c 'sys_enter_getp[a-z]*/trigger:stacktrace:unlimited if common_pid > 0\$' '$T/sg.trig') -eq \
	  \$(ls -d $TFS/events/syscalls/sys_enter_getp* | wc -l) ]"
check "(and no other event: sched_switch had no -T)" sh -c "! grep -v 'sys_enter_getp' '$T/sg.trig'"
own_instances >"$T/inst.after"
check "no instance left after the stacks" diff "$T/inst.before" "$T/inst.after"
check "tracefs unchanged after the stacks (top-level triggers too)" same_state
begin
check "--top-level --stack" status 0 \
	"$TRAWL" record --top-level -e syscalls:sys_enter_getppid -f 'common_pid > 0' -T -o "$T/stt.dat" \
	-- sh -c "cat $TFS/$GP/trigger >'$T/stt.trig'; perl -e 'getppid() for 1..10'"
check "the trigger was at the top level" grep -qx 'stacktrace:unlimited if common_pid > 0' "$T/stt.trig"
check "top level: each getppid of perl followed by its stack" stacks_follow "$T/stt.dat" 10
check "top-level trigger removed, settings put back" same_state
check "flight recorder --stack, with a trigger on the same event" status 0 \
	"$TRAWL" record --flight-recorder -b 64 -e syscalls:sys_enter_getppid -T \
	--trigger 'syscalls:sys_enter_getppid if common_pid > 0' -o "$T/stf.dat" \
	-- sh -c "perl -e 'getppid() for 1..10'; sleep 0.3"
# (the kernel runs an event's triggers newest first: traceoff goes in first)
check "the triggering event is saved with its stack" sh -c \
	"trace-cmd report '$T/stf.dat' 2>/dev/null | grep ': [a-z_]*: ' | tail -2 | tr '\n' ' ' |
	 grep -q 'sys_enter_getppid: .*kernel_stack: '"
check "--top-level --flight-recorder --stack" status 0 \
	"$TRAWL" record --top-level --flight-recorder -b 64 -e syscalls:sys_enter_getppid -f 'common_pid > 0' -T \
	-o "$T/stft.dat" -- perl -e 'getppid() for 1..10'
check "its file has the stacks" stacks_follow "$T/stft.dat" 10
check "tracefs unchanged after the flight recorder's stacks" same_state
# a recorder killed with its triggers set: the next start removes them and
# its instance
begin
"$TRAWL" record -e syscalls:sys_enter_getppid -f 'common_pid > 0' -T -e sched:sched_switch -T \
	-o "$T/stk.dat" -- sh -c "echo \$\$ >'$T/stk.pid'; exec sleep 30" >/dev/null 2>&1 &
REC=$!
sleep 0.5
kill -9 $REC
wait $REC 2>/dev/null
kill "$(cat "$T/stk.pid")" 2>/dev/null
check "the killed recorder left its instance with the triggers" sh -c \
	"grep -qx 'stacktrace:unlimited if common_pid > 0' $TFS/instances/trawl-$TRAWL_INSTANCE_TAG-$REC/$GP/trigger"
check "the next start removes it" status 0 "$TRAWL" record -e sched:sched_switch -o "$T/stk2.dat" -d 0.1
check "(it says so)" grep -q "removed [0-9]* tracefs instances*.*killed" "$T/err"
check "it is gone" test ! -e "$TFS/instances/trawl-$TRAWL_INSTANCE_TAG-$REC"
check "tracefs as before the killed recorder with stacks" same_state

# --- disk full -------------------------------------------------------------------
begin
mkdir -p "$SMALL"
if mount -t tmpfs -o size=2m tmpfs "$SMALL" 2>/dev/null; then
	# uncompressed, so a second of the load surely fills 2 MB (zstd's
	# files are ~10x smaller, and under ASan the load is slower)
	check "disk full exits 2" status 2 "$TRAWL" record --no-kallsyms --compression none \
		-e 'sched:*' -e 'irq:*' -o "$SMALL/full.dat" -- "$LOAD" 1
	check "disk full says what to do" grep -q "free some space" "$T/err"
	check "disk full stops the command too" status 2 "$TRAWL" record --no-kallsyms --compression none \
		-e 'sched:*' -e 'irq:*' -o "$SMALL/full2.dat" -- sh -c "'$LOAD' 2; sleep 30; echo NOT-STOPPED"
	check "(it says so)" grep -q "stopped sh: the recording failed" "$T/err"
	check "(and the command did not go on)" sh -c "! grep -q NOT-STOPPED '$T/out'"
	check "the partial file is readable" sh -c \
		"trace-cmd report '$SMALL/full.dat' 2>/dev/null | grep -q sched_switch"
	umount "$SMALL"
	check "tracefs unchanged after a full disk" same_state
else
	echo "# SKIP disk-full tests: cannot mount a tmpfs"
fi

check "no instance of this test left behind" sh -c "! ls $TFS/instances | grep -q -F 'trawl-$TRAWL_INSTANCE_TAG-'"
echo "1..$n"
[ $fails = 0 ]
