#!/bin/bash
# SPDX-License-Identifier: MIT
# perf.data recorded here, now, read by trawl and by perf script: events per
# type, every event's time, cpu, pid, comm and text, every sched_switch and
# wakeup's pids (check-perf-script.py), in file mode, pipe mode (-o -, read
# from the file and from a pipe) and with compressed records (-z); `trawl
# stats` counts the same events and the lost ones; callchains (-g) and
# samples of events that are not tracepoints (-e cpu-clock) frame by frame
# (check-perf-callchain.py). Skips (77) without perf, root or permission to trace.
# usage: test-perf-record.sh TRAWL PINGPONG CHECKER
set -u
trawl=$1 pingpong=$2 checker=$3
. "$(dirname "$0")/perf-lib.sh"
# the scheduler, interrupts and timers of a busy 0.3 s (rounds,
# both CPUs, tasks that start and exit)
record "$T/busy.perf" -e sched:sched_switch -e sched:sched_wakeup \
	-e sched:sched_waking -e 'sched:sched_process_*' -e 'irq:*' \
	-e 'timer:*' -- "$pingpong" 0.3
python3 "$checker" "$trawl" "$T/busy.perf" || fails=$((fails + 1))
# perf sched record's own selection
if perf sched record -o "$T/sched.perf" -- "$pingpong" 0.3 >"$T/perf.log" 2>&1; then
	python3 "$checker" "$trawl" "$T/sched.perf" || fails=$((fails + 1))
	# trawl sched and latency beside perf sched latency (docs/perf-sched.md)
	python3 "$(dirname "$checker")/check-perf-sched.py" "$trawl" \
		"$T/sched.perf" || fails=$((fails + 1))
else
	echo "note: perf sched record failed here:"
	cat "$T/perf.log"
fi
# pipe mode (perf record -o -) and compressed records (perf record -z),
# each read from the file and from a pipe: the same as perf script, and
# the pipe's events the file's
record_pipe() { # out, perf record options...
	local out=$1
	shift
	if ! perf record -q -a -o - "$@" >"$out" 2>"$T/perf.log"; then
		echo "FAIL: perf record -o - $*"
		cat "$T/perf.log"
		exit 1
	fi
}
workload=(-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking
	-e 'sched:sched_process_*' -e 'irq:*' -e 'timer:*' -- "$pingpong" 0.3)
record_pipe "$T/pipe.perf" "${workload[@]}"
record "$T/z.perf" -z "${workload[@]}"
record_pipe "$T/pipe-z.perf" -z "${workload[@]}"
for f in pipe z pipe-z; do
	python3 "$checker" "$trawl" "$T/$f.perf" || fails=$((fails + 1))
	if ! cmp -s <("$trawl" report --json "$T/$f.perf") \
		<(cat "$T/$f.perf" | "$trawl" report --json -); then
		echo "FAIL: $f.perf read from a pipe differs from the file"
		fails=$((fails + 1))
	fi
done
# perf record -o - | trawl, as it is recorded
want=$(perf record -q -a -e sched:sched_switch -o - -- sleep 0.3 2>/dev/null |
	tee "$T/live-pipe.perf" | "$trawl" stats --json - |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["total_events"])')
got=$(perf script -i "$T/live-pipe.perf" 2>/dev/null | wc -l)
if [ "$want" != "$got" ]; then
	echo "FAIL: perf record -o - | trawl stats - counts $want, perf script $got"
	fails=$((fails + 1))
fi
# callchains (perf record -g) of tracepoints and of a CPU profile
# (cpu-clock, not a tracepoint: perf:cpu_clock), system-wide and of one
# task (no CPU in its samples), frame by frame against perf script
callchain=$(dirname "$checker")/check-perf-callchain.py
record "$T/g.perf" -g -e sched:sched_switch -e sched:sched_wakeup \
	-e sched:sched_process_fork -- "$pingpong" 0.3
record "$T/profile.perf" -g -F 999 -e cpu-clock -- "$pingpong" 0.3
if perf record -q -g -F 999 -e cpu-clock -o "$T/task.perf" -- "$pingpong" 0.3 \
	>"$T/perf.log" 2>&1; then
	python3 "$callchain" "$trawl" "$T/g.perf" "$T/profile.perf" \
		"$T/task.perf" || fails=$((fails + 1))
else
	echo "FAIL: perf record -g of one task"
	cat "$T/perf.log"
	fails=$((fails + 1))
fi
python3 "$checker" "$trawl" "$T/g.perf" || fails=$((fails + 1))
# the machine, as perf's header says it
want=$(perf report --header-only -i "$T/busy.perf" 2>/dev/null |
	sed -n 's/^# hostname : //p; s/^# os release : //p' | paste -sd' ')
got=$("$trawl" stats --json "$T/busy.perf" | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(s.get("hostname"), s.get("os_release"))')
if [ "$want" != "$got" ]; then
	echo "FAIL: perf's header says host $want, trawl stats $got"
	fails=$((fails + 1))
fi
# trawl stats: the events perf script shows, and lost counts as perf's
want=$(perf script -i "$T/busy.perf" 2>/dev/null | wc -l)
got=$("$trawl" stats --json "$T/busy.perf" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["total_events"])')
if [ "$want" != "$got" ]; then
	echo "FAIL: trawl stats counts $got events, perf script shows $want"
	fails=$((fails + 1))
fi
# lost events: a buffer of one page per CPU loses some in a busy 0.3 s;
# trawl counts what the LOST and LOST_SAMPLES records say (perf report -D
# lists them), each on its CPU (the stream ids' CPUs from ID_INDEX)
record "$T/lost.perf" -m 1 -e 'sched:*' -e 'timer:*' -- "$pingpong" 0.3
want=$(perf report -D -i "$T/lost.perf" 2>/dev/null |
	grep -E 'PERF_RECORD_LOST' |
	sed -E 's/.*lost( samples)? ?:([0-9]+).*/\2/' | awk '{s+=$1} END{print s+0}')
got=$("$trawl" stats --json "$T/lost.perf" | python3 -c '
import json, sys
s = json.load(sys.stdin)
per_cpu = sum(c.get("lost_events", 0) for c in s.get("cpus", {}).values()) \
    if isinstance(s.get("cpus"), dict) else None
print(s["lost_events"], per_cpu)')
echo "lost: perf's LOST/LOST_SAMPLES records say $want, trawl (total, per CPU summed) $got"
case "$got" in
"$want $want" | "$want None") ;;
*) echo "FAIL: lost events differ"; fails=$((fails + 1)) ;;
esac
python3 "$checker" "$trawl" "$T/lost.perf" || fails=$((fails + 1))
[ "$fails" = 0 ] && echo "PASS" || echo "FAIL: $fails checks"
exit $((fails != 0))
