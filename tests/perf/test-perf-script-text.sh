#!/bin/bash
# SPDX-License-Identifier: MIT
# perf script text of recordings made here, now, read by trawl against the
# perf.data they came from (check-perf-script-text.py): the default form,
# an -F variant with --ns, and a -g recording's callchains (with cpu-clock
# samples). Skips (77) without perf, root or permission to trace.
# usage: test-perf-script-text.sh TRAWL PINGPONG CHECKER
set -u
trawl=$1 pingpong=$2 checker=$3
if ! command -v perf >/dev/null; then
	echo "SKIP: perf is needed (apt-get install linux-perf)"
	exit 77
fi
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: system-wide tracepoints (perf record -a) need root"
	exit 77
fi
# one test traces at a time, across the release and ASan builds
exec 9>/tmp/trawl-record-tests.lock
flock 9
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
record() {
	local out=$1
	shift
	if ! perf record -q -a -o "$out" "$@" >"$T/perf.log" 2>&1; then
		if grep -qi 'permission\|paranoid\|not supported\|tracefs\|debugfs' "$T/perf.log"; then
			echo "SKIP: perf cannot record here:"
			cat "$T/perf.log"
			exit 77
		fi
		echo "FAIL: perf record $*"
		cat "$T/perf.log"
		exit 1
	fi
}
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
