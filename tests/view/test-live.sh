#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trawl view and trawl chart on a recording still being written: trawl
# record's version 7 file is readable after every write, so the viewer
# reads what it holds so far, and with --follow indexes it again as it
# grows. Needs root and tracefs (else skipped, 77);
# the recorder restores every tracefs setting it changes.
#
#   test-live.sh TRAWL WORKDIR
set -u
trawl=$1 work=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
[ -w /sys/kernel/tracing/tracing_on ] || { echo "SKIP: no tracefs"; exit 77; }
mkdir -p "$work"
out="$work/live.dat"
rm -f "$out"
"$trawl" record -e 'sched:*' -e 'irq:*' -o "$out" -- \
	sh -c 'i=0; while [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done' \
	>"$work/record.log" 2>&1 &
rec=$!
fail=0
# the recorder writes its first batches within a second or two
for _ in $(seq 40); do
	[ -s "$out" ] && [ "$(stat -c %s "$out")" -gt 2000000 ] && break
	sleep 0.1
done
sleep 1.5
if ! kill -0 $rec 2>/dev/null; then
	echo "FAIL: the recording ended before it could be read while growing"
	fail=1
fi
if "$trawl" chart "$out" -o "$work/live.svg" --no-cache 2>"$work/chart.err" &&
	grep -q 'data-kind="cpu"' "$work/live.svg"; then
	echo "ok: trawl chart of the file being recorded has CPU lanes"
else
	echo "FAIL: trawl chart of a growing recording: $(cat "$work/chart.err")"
	fail=1
fi
# start_view NAME [OPTION...]: a server on the recording, its output in
# $work/NAME.out and .err; sets view (its pid) and url
start_view() {
	local name=$1
	shift
	"$trawl" view "$out" --port 0 --no-token --no-cache "$@" \
		>"$work/$name.out" 2>"$work/$name.err" &
	view=$!
	for _ in $(seq 100); do
		grep -q serving "$work/$name.out" 2>/dev/null && break
		sleep 0.1
	done
	url=$(sed -n 's/^trawl view: serving //p' "$work/$name.out")
}
start_view view
events=$(python3 -c 'import json, sys, urllib.request
print(json.load(urllib.request.urlopen(sys.argv[1] + "api/info"))["events"])' "$url" 2>/dev/null)
kill -INT $view
wait $view
if [ "${events:-0}" -gt 1000 ]; then
	echo "ok: trawl view serves the growing recording ($events events so far)"
else
	echo "FAIL: trawl view of a growing recording: events=${events:-none} $(cat "$work/view.err")"
	fail=1
fi
# --follow: the same server serves more events a few seconds later
start_view follow --follow
# events and the index's generation, which each new index counts up
info='import json, sys, urllib.request
i = json.load(urllib.request.urlopen(sys.argv[1] + "api/info?lanes=0"))
print(i["events"] if i["follow"] else -1, i["generation"])'
read -r e1 g1 < <(python3 -c "$info" "$url" 2>/dev/null)
grown=
for _ in $(seq 60); do
	sleep 0.1
	read -r e2 g2 < <(python3 -c "$info" "$url" 2>/dev/null)
	[ "${e2:-0}" -gt "${e1:-0}" ] && grown=1 && break
done
kill -INT $view
wait $view
if [ -n "$grown" ] && [ "${g1:-}" = 0 ] && [ "${g2:-0}" -gt 0 ]; then
	echo "ok: trawl view --follow serves the recording as it grows ($e1, then $e2 events; generation $g1, then $g2)"
else
	echo "FAIL: trawl view --follow: ${e1:-none}, then ${e2:-none} events, generation ${g1:-none}, then ${g2:-none} $(cat "$work/follow.err")"
	fail=1
fi
wait $rec || { echo "FAIL: trawl record: $(tail -3 "$work/record.log")"; fail=1; }
total=$("$trawl" stats "$out" --json | python3 -c 'import json, sys
e = json.load(sys.stdin)["events"]
print(sum(e.values()) if isinstance(e, dict) else e)')
[ "$total" -ge "${events:-0}" ] || { echo "FAIL: the finished file has fewer events"; fail=1; }
echo "finished recording: $total events"
exit $fail
