#!/bin/bash
# SPDX-License-Identifier: MIT
# trawl run --live against the real kernel: counts of a load whose numbers
# are known (dd's writes), the same answer from the --record file read off
# line, kernel filters (pushdown) set while running and gone after, the
# four endings (-d, exit(), CMD's exit, SIGINT), --json, and a bad script
# refused before tracefs is touched. Every group compares a snapshot of
# the tracefs settings a session could change before and after. Root and
# tracefs only: skipped (exit 77) otherwise. This is the ftrace path
# (--backend ftrace): every event copied out and run in user space, which
# a recording of the same events repeats exactly; the BPF back end, whose
# probes see no ftrace record (their ts is the program's clock read, and
# they run from attach to detach, not from enable to disable), is
# tests/live/test-run-bpf.sh's.
# usage: test-run-live.sh TRAWL PINGPONG [EXAMPLES_DIR]
set -u
TRAWL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
LOAD=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
EXAMPLES=${3:-$(dirname "$0")/../../examples}
TFS=/sys/kernel/tracing
export LC_ALL=C

. "$(dirname "$0")/live-lib.sh"
need_tracing "live tests"
if [ ! -d $TFS/events/syscalls/sys_enter_write ]; then
	echo "SKIP: no syscall events in $TFS"
	exit 77
fi

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
n=0

same_file() { cmp -s "$1" "$2" || { diff -u "$1" "$2" | head -20 >&2; return 1; }; }

# --- refusals, before tracefs is touched --------------------------------------
begin
check "a bad script exits 1" status 1 "$TRAWL" run --live --backend ftrace -e 'sched:sched_switch { @ = count( }'
check "with the compiler's line and column" grep -q -- '-e:1:' "$T/err"
check "an unknown field is named" status 1 "$TRAWL" run --live --backend ftrace -e 'sched:sched_switch { @[args.prev_cmm] = count(); }'
check "with the nearest one" grep -q 'prev_comm' "$T/err"
check "a FILE with --live exits 1" status 1 "$TRAWL" run --live --backend ftrace -e 'BEGIN { }' /etc/hostname
check "-d without --live exits 1" status 1 "$TRAWL" run -d 1 -e 'BEGIN { }' /etc/hostname
if command -v strace >/dev/null; then
	# nothing in tracefs is written, no instance is made
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=mkdir,write,openat -o "$T/strace" \
		"$TRAWL" run --live --backend ftrace -e 'sched:sched_switch { @ = count( }' 2>/dev/null
	check "a bad script writes nothing in tracefs" sh -c "! grep -E 'mkdir\(\"$TFS|openat\(.*$TFS.*O_WRONLY' '$T/strace'"
fi
if command -v setpriv >/dev/null; then
	check "not root exits 2" status 2 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TRAWL" run --live --backend ftrace -e 'BEGIN { }' -d 0.1
	check "not root says so" grep -q "root" "$T/err"
fi
check "tracefs unchanged after the refusals" same_state

# --- a load of known counts: dd's writes ------------------------------------
begin
N=3000
WRITES='syscalls:sys_enter_write /comm == "dd" && args.fd == 1/ { @writes = count(); @bytes = sum(args.count); }'
dd_load="dd if=/dev/zero of=/dev/null bs=7 count=$N"
check "live: dd's writes" status 0 "$TRAWL" run --live --backend ftrace -e "$WRITES" --record "$T/dd.dat" -- $dd_load
check "are all counted" grep -qx "@writes: $N" "$T/out"
check "with their bytes" grep -qx "@bytes: $((N * 7))" "$T/out"
check "and nothing was lost" grep -q ' 0 lost' "$T/err"
check "without --record nothing is said" status 0 "$TRAWL" run --live --backend ftrace -e "$WRITES" -- $dd_load status=none
check "(when nothing was lost or late)" test ! -s "$T/err"
cp "$T/out" "$T/dd.live"
check "the --record file off line" status 0 "$TRAWL" run -e "$WRITES" "$T/dd.dat"
check "gives the same answer" same_file "$T/dd.live" "$T/out"
check "without pushdown" status 0 "$TRAWL" run --live --backend ftrace --no-pushdown -e "$WRITES" -- $dd_load
check "the same counts" same_file "$T/dd.live" "$T/out"
check "tracefs unchanged after the load" same_state

# --- the same script live and on its recording ------------------------------
begin
SW='sched:sched_switch { @[args.prev_comm, args.prev_state & 0xff] = count(); @n = count(); }
sched:sched_wakeup /args.comm == "pingpong"/ { @wakeups = count(); }'
check "live sched_switch by comm around pingpong" status 0 \
	"$TRAWL" run --live --backend ftrace -e "$SW" --record "$T/sw.dat" -- sh -c "'$LOAD' 0.5 >/dev/null"
cp "$T/out" "$T/sw.live"
check "the load was seen" grep -q '^@\[pingpong, ' "$T/sw.live"
check "off line on the --record file" status 0 "$TRAWL" run -e "$SW" "$T/sw.dat"
check "every count the same" same_file "$T/sw.live" "$T/out"
check "live wakeup latency" status 0 \
	"$TRAWL" run --live --backend ftrace "$EXAMPLES/wakeup-latency.tw" --record "$T/wl.dat" -- sh -c "'$LOAD' 0.5 >/dev/null"
cp "$T/out" "$T/wl.live"
check "has a histogram" grep -q '^@usecs:' "$T/wl.live"
check "the same on its recording" status 0 "$TRAWL" run "$EXAMPLES/wakeup-latency.tw" "$T/wl.dat"
check "histogram and stats the same" same_file "$T/wl.live" "$T/out"
check "events came in time order" sh -c "! grep -q ' late' '$T/err'"
check "tracefs unchanged after the comparisons" same_state

# --- pushdown: the filter is in the instance while running, gone after -------
begin
"$TRAWL" run --live --backend ftrace -d 2 -e 'syscalls:sys_enter_write /args.fd == 1 && comm == "dd"/ { @ = count(); }' \
	>"$T/out" 2>"$T/err" &
pid=$!
f=""
for _ in $(seq 50); do
	f=$(cat $TFS/instances/trawl-$TRAWL_INSTANCE_TAG-$pid/events/syscalls/sys_enter_write/filter 2>/dev/null)
	[ -n "$f" ] && [ "$f" != none ] && break
	sleep 0.05
done
echo "  filter while running: $f"
check "the predicate is the event's filter" test "$f" = 'fd == 1 && COMM == "dd"'
check "the event is enabled in the instance" \
	test "$(cat $TFS/instances/trawl-$TRAWL_INSTANCE_TAG-$pid/events/syscalls/sys_enter_write/enable 2>/dev/null)" = 1
check "and not at the top level" test "$(cat $TFS/events/syscalls/sys_enter_write/enable)" = 0
check "the clock is mono" grep -q '\[mono\]' $TFS/instances/trawl-$TRAWL_INSTANCE_TAG-$pid/trace_clock
wait $pid
check "the run ended well" test $? = 0
check "the instance is gone" test ! -e $TFS/instances/trawl-$TRAWL_INSTANCE_TAG-$pid
"$TRAWL" run --live --backend ftrace --no-pushdown -d 1 -e 'syscalls:sys_enter_write /args.fd == 1/ { @ = count(); }' \
	>"$T/out" 2>"$T/err" &
pid=$!
f=""
for _ in $(seq 50); do
	[ "$(cat $TFS/instances/trawl-$TRAWL_INSTANCE_TAG-$pid/events/syscalls/sys_enter_write/enable 2>/dev/null)" = 1 ] && break
	sleep 0.05
done
f=$(cat $TFS/instances/trawl-$TRAWL_INSTANCE_TAG-$pid/events/syscalls/sys_enter_write/filter 2>/dev/null)
check "--no-pushdown sets no filter" test "$f" = none
wait $pid
check "a predicate the kernel cannot say is not pushed" status 0 \
	"$TRAWL" run --live --backend ftrace -d 0.2 -e 'syscalls:sys_enter_write /args.fd + 1 == 2/ { @ = count(); }'
check "tracefs unchanged after pushdown" same_state

# --- the endings --------------------------------------------------------------
begin
s0=$(date +%s%N)
check "-d ends it" status 0 "$TRAWL" run --live --backend ftrace -d 0.5 -e 'sched:sched_switch { @n = count(); } END { printf("end\n"); }'
s1=$(date +%s%N)
check "END ran" grep -qx end "$T/out"
check "after about -d" test $(((s1 - s0) / 1000000)) -ge 500
check "exit() ends it" status 0 "$TRAWL" run --live --backend ftrace -d 30 -e 'sched:sched_switch { @n = count(); if (@n >= 5) { exit(); } }'
check "at once" grep -qx '@n: 5' "$T/out"
s0=$(date +%s%N)
check "CMD's exit ends it" status 0 "$TRAWL" run --live --backend ftrace -e 'BEGIN { printf("begin\n"); }' -- sleep 0.3
s1=$(date +%s%N)
check "soon after CMD" test $(((s1 - s0) / 1000000)) -lt 10000
"$TRAWL" run --live --backend ftrace -e 'BEGIN { printf("begin\n"); } interval:100ms { @ticks = count(); } END { printf("end\n"); }' >"$T/out" 2>"$T/err" &
pid=$!
# BEGIN runs once tracing is on (later under ASan, which reads the formats slowly)
for _ in $(seq 100); do grep -q begin "$T/out" && break; sleep 0.05; done
s0=$(date +%s%N)
sleep 0.6
kill -INT $pid
wait $pid
rc=$?
s1=$(date +%s%N)
check "SIGINT ends it cleanly" test $rc = 0
check "END ran after SIGINT" grep -qx end "$T/out"
# as many ticks as 100 ms periods went by since BEGIN, give or take one
# (counted against the run's own wall time: a loaded machine is slower)
ticks=$(sed -n 's/^@ticks: //p' "$T/out")
check "interval probes fired on wall time without events" test "${ticks:-0}" -ge 2
check "no more ticks than periods" test "${ticks:-0}" -le $(((s1 - s0) / 100000000 + 1))
check "a command that cannot start exits 1" status 1 "$TRAWL" run --live --backend ftrace -e 'BEGIN { }' -- /nonexistent
check "and is named" grep -q /nonexistent "$T/err"
check "tracefs unchanged after the endings" same_state

# --- --json -------------------------------------------------------------------
begin
check "--json live" status 0 "$TRAWL" run --live --backend ftrace --json -e "$WRITES" -- sh -c "echo talk; $dd_load 2>/dev/null"
check "one JSON object on stdout" python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
assert o["@writes"] == [{"key": None, "value": int(sys.argv[2])}], o["@writes"]
assert o["lost_events"] == 0 and o["late_events"] == 0 and o["events"] >= int(sys.argv[2])
' "$T/out" $N
check "CMD's stdout went to stderr" grep -qx talk "$T/err"
check "tracefs unchanged after --json" same_state

echo "1..$n"
[ $fails = 0 ]
