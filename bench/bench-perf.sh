#!/bin/bash
# SPDX-License-Identifier: MIT
# trawl on a perf.data against perf script on the same file, in the same
# rounds (each tool once a round, warm page cache), medians printed:
#   bench/bench-perf.sh FILE.perf [ROUNDS] [TRAWL] [BASE_TRAWL]
# With BASE_TRAWL (an older build) its stats and report run in the same
# rounds too (base_*), for before/after ratios measured together.
# Record a big FILE with e.g.
#   perf record -a -m 16M -e sched:sched_switch -e sched:sched_wakeup \
#     -e sched:sched_waking -e sched:sched_stat_runtime \
#     -o bench/out/big.perf -- perf bench sched pipe -l 600000
set -eu
file=$1 rounds=${2:-5} trawl=${3:-build/tools/trawl/trawl} base=${4:-}
events=$("$trawl" stats --json "$file" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["total_events"])')
cat "$file" >/dev/null
declare -A t
run() { # name, command...
	local name=$1 s e
	shift
	s=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	e=$(date +%s.%N)
	t[$name]+="$(echo "$e - $s" | bc) "
}
for ((i = 0; i < rounds; i++)); do
	run stats "$trawl" stats "$file"
	run report "$trawl" report "$file"
	run report_json "$trawl" report --json "$file"
	if [ -n "$base" ]; then
		run base_stats "$base" stats "$file"
		run base_report "$base" report "$file"
		run base_report_json "$base" report --json "$file"
	fi
	run perf_script perf script -i "$file"
done
med() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
ps=$(echo "${t[perf_script]}" | med)
echo "file: $file, $events events, $(stat -c %s "$file") bytes, $rounds rounds"
keys="stats report report_json"
[ -n "$base" ] && keys+=" base_stats base_report base_report_json"
for k in $keys perf_script; do
	m=$(echo "${t[$k]}" | med)
	printf '%-12s median %6.3f s  %6.2f M events/s  perf script / this %5.1fx   (%s)\n' \
		"$k" "$m" "$(echo "$events / $m / 1000000" | bc -l)" \
		"$(echo "$ps / $m" | bc -l)" "${t[$k]}"
done
