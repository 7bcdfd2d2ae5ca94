#!/bin/bash
# SPDX-License-Identifier: MIT
# perf script text without perf: the committed fixtures are recognised as
# perf script (and an ftrace fixture is not); read from a pipe, from gzip
# and with its samples out of time order they give the same events; lines
# that are not understood are counted with their numbers, and --strict
# stops at the first naming file and line.
# usage: test-perf-script.sh TRAWL FIXTURES_DIR
set -u
trawl=$1 fx=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
g=$fx/perf-script-g.txt
for f in "$fx"/perf-script-*.txt; do
	"$trawl" stats "$f" | grep -q '^format: *perf-script$' ||
		fail "$f is not recognised as perf script text"
done
"$trawl" stats "$fx/ftrace-irqinfo.txt" 2>/dev/null | grep -q '^format: *ftrace$' ||
	fail "ftrace-irqinfo.txt (ftrace text) is no longer ftrace"
events() { grep '^{"seq' | sed 's/^{"seq":[0-9]*,//'; }
"$trawl" report --json "$g" | events >"$T/file"
[ "$(wc -l <"$T/file")" -ge 30 ] || fail "too few events in $g"
"$trawl" report --json - <"$g" | events >"$T/pipe"
cmp -s "$T/file" "$T/pipe" || fail "a pipe gives other events than the file"
gzip -c "$g" >"$T/g.txt.gz"
"$trawl" report --json "$T/g.txt.gz" | events >"$T/gz"
cmp -s "$T/file" "$T/gz" || fail "gzip gives other events than the file"
# the samples (with their callchains) in reverse order: sorted back
awk 'BEGIN { RS = ""; ORS = "\n\n" } { b[NR] = $0 } END { for (i = NR; i; i--) print b[i] }' \
	"$g" >"$T/rev.txt"
"$trawl" report --json "$T/rev.txt" 2>/dev/null | events >"$T/rev"
cmp -s "$T/file" "$T/rev" || fail "samples out of order are not sorted back"
"$trawl" report --json - <"$T/rev.txt" 2>/dev/null | events >"$T/revpipe"
cmp -s "$T/file" "$T/revpipe" || fail "out of order from a pipe differs"
# damage: a line of nothing known first, a frame without its sample last,
# a sample line cut before its event name in the middle
{
	echo 'not a sample at all'
	head -n 20 "$g"
	echo '            perf 17400 [000]   658.645700:'
	tail -n +21 "$g"
	printf '\tffffffff81000130 orphan ([kernel.kallsyms])\n'
} >"$T/dmg.txt"
n=$(wc -l <"$T/dmg.txt")
"$trawl" stats --json "$T/dmg.txt" >"$T/dmg.json" || fail "stats of a damaged text failed"
grep -q "\"bad_line_numbers\": \[1, 22, $n\]" "$T/dmg.json" ||
	fail "bad lines of the damaged text: $(grep bad_line "$T/dmg.json")"
"$trawl" report --json "$T/dmg.txt" 2>/dev/null | events >"$T/dmg"
cmp -s "$T/file" "$T/dmg" || fail "damage lost or changed events"
if "$trawl" stats --strict "$T/dmg.txt" >/dev/null 2>"$T/err"; then
	fail "--strict took a damaged text"
fi
grep -q "dmg.txt:1:1: cannot parse perf script line" "$T/err" ||
	fail "--strict's error: $(cat "$T/err")"
[ $fails = 0 ] && echo "perf script text: all checks passed"
exit $((fails > 0))
