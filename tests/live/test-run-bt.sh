#!/bin/bash
# SPDX-License-Identifier: MIT
# trawl run --live as a bpftrace user runs it: nsecs in BEGIN and END is
# the monotonic clock now (it was 0), elapsed, -l [PATTERN], -f json, -c
# CMD, -p PID, positional parameters, and a kprobe: script told that this
# kernel has no kprobe_events. Every group compares the tracefs settings
# before and after. Root and tracefs only: skipped (exit 77) otherwise.
# usage: test-run-bt.sh TRAWL
set -u
TRAWL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TFS=/sys/kernel/tracing
export LC_ALL=C

. "$(dirname "$0")/live-lib.sh"
need_tracing "live tests"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
n=0

# --- nsecs and elapsed outside events ------------------------------------
begin
check "BEGIN/END only, -d 0.3" status 0 "$TRAWL" run --live -d 0.3 -e \
	'BEGIN { printf("begin %d\n", nsecs); } END { printf("end %d %d\n", nsecs, elapsed); }'
up=$(awk '{ printf "%d", $1 }' /proc/uptime)
b=$(awk '$1 == "begin" { print $2 }' "$T/out")
e=$(awk '$1 == "end" { print $2 }' "$T/out")
el=$(awk '$1 == "end" { print $3 }' "$T/out")
# CLOCK_MONOTONIC is about the uptime (less time suspended)
check "nsecs in BEGIN is the clock now, not 0" test "${b:-0}" -gt $(((up - 5) * 1000000000))
check "nsecs in END is 0.3 s later" test $((${e:-0} - ${b:-0})) -ge 290000000
check "elapsed in END counts from the start" test "${el:-0}" -ge 290000000 -a "${el:-0}" -lt 5000000000
check "tracefs unchanged" same_state

# --- tgid live: the process of a thread (it was always -1) -------------------
begin
# a python of its own name, so that no other python's sleeps come in
cp /usr/bin/python3 "$T/pytrawltest"
check "tgid of a thread" status 0 "$TRAWL" run --live -e 'tracepoint:syscalls:sys_enter_clock_nanosleep /comm == "pytrawltest"/ { printf("%d %d\n", tid, tgid); }' -- "$T/pytrawltest" -c 'import threading, time; t = threading.Thread(target=time.sleep, args=(0.1,)); t.start(); t.join(); time.sleep(0.1)'
check "is its process's pid, not -1" awk '$2 <= 0 { exit 1 } END { exit NR < 2 }' "$T/out"
check "for the thread (tid != tgid) and the main one" awk '$1 != $2 { t = 1 } $1 == $2 { m = 1 } END { exit !(t && m) }' "$T/out"
check "one process" sh -c "[ \$(awk '{ print \$2 }' '$T/out' | sort -u | wc -l) = 1 ]"
check "tracefs unchanged" same_state

# --- the command line ----------------------------------------------------
begin
check "-l PATTERN" status 0 "$TRAWL" run -l 'tracepoint:sched:sched_sw*'
check "lists as bpftrace does" grep -qx 'tracepoint:sched:sched_switch' "$T/out"
check "-l without tracepoint:" status 0 "$TRAWL" run -l 'sched:sched_process_f*'
check "matches SYS:EVENT" grep -qx 'tracepoint:sched:sched_process_fork' "$T/out"
check "-f json" status 0 "$TRAWL" run --live -f json -d 0.1 -e 'BEGIN { @x = 1; }'
check "is --json" grep -q '"@x":\[{"key":null,"value":1}\]' "$T/out"
check "-f other is refused" status 1 "$TRAWL" run --live -f yaml -d 0.1 -e 'BEGIN { }'
check "-c CMD" status 0 "$TRAWL" run -e 'tracepoint:sched:sched_process_exec /comm == "true"/ { @ = count(); }' -c '/bin/true'
check "runs it and stops at its exit" grep -qx '@: 1' "$T/out"
sleep 0.4 &
check "-p PID stops when it exits" status 0 timeout 10 "$TRAWL" run -e 'BEGIN { printf("on\n"); }' -p $!
check "positional parameters" status 0 "$TRAWL" run --live -e 'BEGIN { printf("%d %s %d\n", $1, $2, $#); exit(); }' 7 two
check "are numbers and strings" grep -qx '7 two 2' "$T/out"
check "a stray one is refused" status 1 "$TRAWL" run --live -e 'BEGIN { exit(); }' /etc/hostname
if [ ! -e $TFS/kprobe_events ]; then
	check "kprobe: on a kernel without kprobe_events" status 1 "$TRAWL" run --live -e 'kprobe:do_nanosleep { @ = count(); }'
	check "says so" grep -q "this kernel has no kprobe_events" "$T/err"
fi
check "tracefs unchanged" same_state

# --- a script slower than its events stops on time -------------------------
# Each read of dd costs the script 100000 loop iterations (about a
# millisecond): a second of dd's reads is minutes of work. It used to work
# through all that was queued (4 MiB a CPU) after -d or Ctrl-C.
begin
SLOW='syscalls:sys_enter_read /comm == "dd"/ { $i = 0; while ($i < 99999) { $i++; } @n = count(); }'
dd if=/dev/zero of=/dev/null bs=1 count=100000000 2>/dev/null &
load=$!
t0=$(date +%s%N)
check "-d 1 with a slow script" status 0 timeout 60 "$TRAWL" run --live -d 1 -e "$SLOW"
t1=$(date +%s%N)
check "ends within 3 s" test $(((t1 - t0) / 1000000)) -lt 3000
check "counting what it did not process" grep -q 'not processed' "$T/err"
check "the maps still printed" grep -q '^@n: ' "$T/out"
( sleep 1; kill -INT $(pgrep -n -f 'trawl run --live -e syscalls:sys_enter_read') ) &
t0=$(date +%s%N)
check "SIGINT with a slow script" status 0 timeout 60 "$TRAWL" run --live -e "$SLOW"
t1=$(date +%s%N)
check "ends within 3 s" test $(((t1 - t0) / 1000000)) -lt 3000
check "counting what it did not process" grep -q 'not processed' "$T/err"
kill $load
wait $load 2>/dev/null
check "tracefs unchanged" same_state

# --- a command that cannot start; a killed recorder's instance -----------
begin
check "-- /nonexistent/cmd exits 1" status 1 "$TRAWL" run --live -e 'BEGIN { printf("begin\n"); @x = 1; } sched:sched_switch { @n = count(); }' -- /nonexistent/cmd
check "printing nothing (no BEGIN output, no map)" test ! -s "$T/out"
check "and saying why" grep -q 'cannot run /nonexistent/cmd' "$T/err"
check "tracefs unchanged" same_state
sh -c 'exit 0' &
dead=$!
wait $dead
stale=$TFS/instances/trawl-$TRAWL_INSTANCE_TAG-$dead
mkdir "$stale"
check "a BEGIN-only run" status 0 "$TRAWL" run --live -e 'BEGIN { exit(); }'
check "removes a killed recorder's instance" test ! -e "$stale"
check "and says so" grep -q 'removed 1 tracefs instance (instances/trawl-\[TAG-\]PID) left by a recorder that was killed' "$T/err"
rmdir "$stale" 2>/dev/null

echo "1..$n"
[ "$fails" = 0 ]
