#!/bin/bash
# SPDX-License-Identifier: MIT
# perf script text of recordings made here, now, read by trawl against the
# perf.data they came from (check-perf-script-text.py): the default form,
# an -F variant with --ns, and a -g recording's callchains (with cpu-clock
# samples). Skips (77) without perf, root or permission to trace.
# usage: test-perf-script-text.sh TRAWL PINGPONG CHECKER
set -u
trawl=$1 pingpong=$2 checker=$3
. "$(dirname "$0")/perf-lib.sh"
check() { # text, perf.data
	python3 "$checker" "$trawl" "$1" "$2" --min 100 || fails=$((fails + 1))
}
record "$T/sched.perf" -e sched:sched_switch -e sched:sched_wakeup \
	-- "$pingpong" 0.5
perf script -i "$T/sched.perf" >"$T/default.txt" 2>/dev/null
check "$T/default.txt" "$T/sched.perf"
perf script -i "$T/sched.perf" --ns -F comm,tid,pid,time,cpu,event,trace \
	>"$T/F.txt" 2>/dev/null
check "$T/F.txt" "$T/sched.perf"
record "$T/g.perf" -g -e sched:sched_switch -e sched:sched_wakeup \
	-e cpu-clock -F 499 -- "$pingpong" 0.5
perf script -i "$T/g.perf" >"$T/g.txt" 2>/dev/null
check "$T/g.txt" "$T/g.perf"
grep -q '^	' "$T/g.txt" || {
	echo "FAIL: perf script -g printed no callchain lines"
	fails=$((fails + 1))
}
[ $fails = 0 ] && echo "perf script text of new recordings: all checks passed"
exit $((fails > 0))
