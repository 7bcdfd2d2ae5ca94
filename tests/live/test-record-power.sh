#!/bin/bash
# SPDX-License-Identifier: MIT
# trawl power on real recordings of power:cpu_idle (and cpu_frequency where
# the machine has cpufreq): version 7 and 6 files, each against an
# independent reading of `trace-cmd report` (tests/analysis/check-power.py);
# the kernel's names of the idle states saved in the file (trawl's MACHINE
# option), and trace-cmd reading that file without a word on stderr. Root,
# tracefs, trace-cmd and the power events only: skipped (exit 77)
# otherwise. tracefs is compared before and after.
# usage: test-record-power.sh TRAWL CHECK-POWER.PY
set -u
TRAWL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
CHECK=$2
TFS=/sys/kernel/tracing
PY=/usr/bin/python3
export LC_ALL=C

. "$(dirname "$0")/live-lib.sh"
need_tracing "recording tests" trace-cmd
if [ ! -d $TFS/events/power/cpu_idle ]; then
	echo "SKIP: this kernel has no power:cpu_idle event"
	exit 77
fi

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
n=0
events="-e power:cpu_idle -e sched:sched_switch"
[ -d $TFS/events/power/cpu_frequency ] && events="$events -e power:cpu_frequency"
names=
[ -e /sys/devices/system/cpu/cpu0/cpuidle/state0/name ] && names=--names

for v in 7 6; do
	begin
	# shellcheck disable=SC2086 # $events is a list of options
	check "record $events, version $v" \
		status 0 "$TRAWL" record $events --file-version $v -o "$T/p$v.dat" -- sleep 0.3
	check "tracefs is as it was" same_state
	trace-cmd report "$T/p$v.dat" >"$T/tc.txt" 2>"$T/tc.err"
	check "trace-cmd reads it without a word on stderr" test ! -s "$T/tc.err"
	check "trawl power equals trace-cmd's reading${names:+, with the names the kernel gives}" \
		$PY "$CHECK" "$TRAWL" $names "$T/p$v.dat"
done
if [ -n "$names" ]; then
	"$TRAWL" power "$T/p7.dat" >"$T/table.txt"
	cat /sys/devices/system/cpu/cpu*/cpuidle/state*/name | sort -u >"$T/names.txt"
	check "the table names the states as the kernel does" grep -qFf "$T/names.txt" "$T/table.txt"
fi
echo "1..$n"
[ $fails = 0 ]
