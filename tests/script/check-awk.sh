#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/wakeup-latency.awk prints what examples/wakeup-latency.tw prints, on
# the kernel-text fixtures, under each awk installed (mawk, gawk): the awk
# side of bench/bench-script.py's "trawl run vs awk" computes the same.
#
#   check-awk.sh TRAWL SOURCE_ROOT
set -u
trawl=$1
root=$2
fx=$root/tests/fixtures
export LC_ALL=C
fail=0 ran=0
for awk in mawk gawk; do
	command -v "$awk" >/dev/null || continue
	for f in pair-broad same-recording trace-pipe ftrace-irqinfo \
		ftrace-noirqinfo ftrace-tgid lost-events systrace; do
		want=$("$trawl" run "$root/examples/wakeup-latency.tw" "$fx/$f.txt") || { echo "FAIL trawl on $f"; fail=1; continue; }
		got=$("$awk" -f "$root/bench/wakeup-latency.awk" "$fx/$f.txt")
		if [ "$got" = "$want" ] && [ -n "$want" ]; then
			echo "ok   $awk $f.txt"
		else
			echo "FAIL $awk $f.txt"
			diff <(echo "$want") <(echo "$got") | head -20
			fail=1
		fi
		ran=1
	done
done
[ "$ran" = 1 ] || { echo "no awk installed: skipped"; exit 77; }
exit $fail
