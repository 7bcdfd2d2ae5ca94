#!/bin/bash
# SPDX-License-Identifier: MIT
# One kernel buffer read two ways must be the same trace in trawl: records
# a fresh pair (the kernel's `trace` text and `trace-cmd extract` of the same
# buffer) with tests/fixtures/record-pair.sh, bigger than the pair-broad
# fixture (a few seconds of its load, 4 MB per CPU; kmem, raw_syscalls,
# writeback and the block buffer events only from the load's tasks,
# OWN_ONLY=1, since other work on a shared machine can write a million of
# those a second and wrap the buffer; the rest from every task; if the
# buffer still wraps with the shortest load, the test is skipped, since
# then the two reads need not hold the same events), checks that both reads
# hold the same events (record-pair.sh: the "entries-in-buffer/entries-
# written" header, LOST lines, count-events.sh per type; here also
# `trawl stats` per type and CPU), then runs tests/tools/check-pair.py on it.
# Every tracefs setting is snapshotted before and compared after.
# Root, tracefs, trace-cmd, gcc and unshare only: skipped (exit 77) otherwise.
# usage: test-pair.sh TRAWL
#   PAIR_KEEP=DIR  copy the recorded pair and the check's output to DIR
#   PAIR_BUFFER_KB (default 4096), PAIR_LOOPS (default 2), PAIR_ITER (60),
#   PAIR_SLEEP_US (10000): the recording (see record-pair.sh)
set -u
[ $# = 1 ] || { echo "usage: test-pair.sh TRAWL" >&2; exit 2; }
TRAWL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RECORD=$HERE/../fixtures/record-pair.sh
CHECK=$HERE/../tools/check-pair.py
TFS=/sys/kernel/tracing
export LC_ALL=C

[ -x "$TRAWL" ] || { echo "test-pair: not an executable: $1" >&2; exit 2; }
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: the pair test needs root (tracefs control files are root's)"
	exit 77
fi
if [ ! -e $TFS/trace ]; then
	mount -t tracefs nodev $TFS 2>/dev/null
fi
if [ ! -e $TFS/trace ]; then
	echo "SKIP: no tracefs at $TFS and it cannot be mounted"
	exit 77
fi
for tool in trace-cmd gcc unshare python3; do
	if ! command -v $tool >/dev/null; then
		echo "SKIP: $tool is needed (trace-cmd extract, the workload, the kallsyms namespace, the checker)"
		exit 77
	fi
done
if [ "$(cat $TFS/current_tracer)" != nop ]; then
	echo "SKIP: current_tracer is $(cat $TFS/current_tracer), not nop: someone else is tracing"
	exit 77
fi
# One recording at a time, also across builds (test-record.sh takes it too).
exec 9>/tmp/trawl-record-tests.lock
flock 9

T=$(mktemp -d /tmp/trawl-test-pair.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
n=0
# check, snapshot (every setting a recorder may touch, in pages for buffer
# sizes, this test's instances only)
. "$HERE/live-lib.sh"
neighbour_start

# trace-cmd 3.1.6 needs the ftshim preload here (../shared/tools/README.md).
SHIM=${FTSHIM_DIR:-}
if [ -z "$SHIM" ] || [ ! -f "$SHIM/ftshim.so" ]; then
	SHIM=$T/ftshim
	src=
	for c in "${FTSHIM_C:-}" "$HERE/../../../shared/tools/ftshim.c" /work/shared/tools/ftshim.c; do
		[ -n "$c" ] && [ -f "$c" ] && src=$c && break
	done
	if [ -z "$src" ]; then
		echo "SKIP: ftshim.c not found (set FTSHIM_C or FTSHIM_DIR; ../shared/tools/README.md)"
		exit 77
	fi
	mkdir -p "$SHIM"
	gcc -O2 -shared -fPIC -o "$SHIM/ftshim.so" "$src" -ldl || exit 1
	printf 'no pid\n' >"$SHIM/set_ftrace_pid"
	printf 'no pid\n' >"$SHIM/set_ftrace_notrace_pid"
	printf '#### all functions enabled ####\n' >"$SHIM/set_ftrace_filter"
	: >"$SHIM/set_ftrace_notrace"; : >"$SHIM/set_graph_function"; : >"$SHIM/set_graph_notrace"
	echo 1 >"$SHIM/ftrace_enabled"
fi

# snapshot (live-lib.sh) takes more here, as trace-cmd may touch more than
# trawl: every option, the event pid filter and the CPU mask.
SNAPSHOT_MORE='set_event_pid tracing_cpumask options/*'

snapshot >"$T/state.before"
if grep -q "(expanded:" $TFS/buffer_size_kb; then
	echo "# the ring buffer was never allocated ($(cat $TFS/buffer_size_kb)); afterwards it has the size of its first use (record-pair.sh)"
fi

# --- record ------------------------------------------------------------------
loops=${PAIR_LOOPS:-2}
rc=1
while :; do
	OUT=$T NAME=pair BUFFER_KB=${PAIR_BUFFER_KB:-4096} ITER=${PAIR_ITER:-60} OWN_ONLY=1 \
		SLEEP_US=${PAIR_SLEEP_US:-10000} LOOPS=$loops FTSHIM_DIR=$SHIM \
		TRAWL_PAIR_LOCKED=1 bash "$RECORD" >"$T/record.out" 2>"$T/record.err"
	rc=$?
	[ $rc = 3 ] && [ "$loops" -gt 1 ] || break
	echo "# the buffer wrapped with $loops loops of the load (other work on the machine?): again with fewer"
	loops=$((loops - 1))
done
sed 's/^/# /' "$T/record.err"
snapshot >"$T/state.after"
if [ $rc = 3 ]; then
	check "tracefs settings are restored" diff -u "$T/state.before" "$T/state.after"
	echo "1..$n"
	[ $fails = 0 ] || exit 1
	echo "SKIP: the buffer wrapped even with the shortest load (other work on the machine); try PAIR_BUFFER_KB=8192"
	exit 77
fi
check "record-pair.sh recorded a pair (exit $rc)" [ $rc = 0 ]
check "tracefs settings are restored" diff -u "$T/state.before" "$T/state.after"
if [ $rc != 0 ]; then
	echo "1..$n"
	exit 1
fi

entries() { sed -n 's/^# entries-in-buffer\/entries-written: \([0-9]*\)\/\([0-9]*\).*/\1 \2/p' "$1"; }
check "the text's entries-in-buffer equals entries-written ($(entries "$T/pair.txt"))" \
	awk '{ exit !($1 == $2 && $1 > 0) }' <<<"$(entries "$T/pair.txt")"

stats_agree() {
	"$TRAWL" stats "$T/pair.txt" --json >"$T/stats.txt.json" &&
		"$TRAWL" stats "$T/pair.dat" --json >"$T/stats.dat.json" &&
		python3 - "$T/stats.txt.json" "$T/stats.dat.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ok = True
for k in ("total_events", "events", "cpus", "lost_events", "overwritten_events"):
    if a.get(k) != b.get(k):
        ok = False
        print("  trawl stats %s: text %s | dat %s" % (k, str(a.get(k))[:300], str(b.get(k))[:300]),
              file=sys.stderr)
print("# %d events, %d types, %.2f s" % (a["total_events"], len(a["events"]), a["span"] / 1e9))
sys.exit(0 if ok else 1)
PY
}
check "trawl stats counts the same events per type and CPU in both" stats_agree

# --- the check ----------------------------------------------------------------
python3 "$CHECK" "$TRAWL" "$T/pair.txt" "$T/pair.dat" >"$T/check.out" 2>&1
crc=$?
if [ $crc = 0 ]; then
	sed -n '/^event /,/^overall/p' "$T/check.out" | grep -E '^(event|TOTAL|overall)' | sed 's/^/# /'
else
	# the table, the kinds of differences and the analyses; the examples per
	# type are in the full output (PAIR_KEEP)
	sed -n '/^kinds/q; p' "$T/check.out" | sed 's/^/# /'
	sed -n '/^kinds/,/^==/p' "$T/check.out" | grep -v '^==' | sed 's/^/# /'
	grep -E -A3 '^analysis' "$T/check.out" | grep -v '^overall' | sed 's/^/# /'
	tail -1 "$T/check.out" | sed 's/^/# /'
fi
check "check-pair.py: the text and the .dat are the same trace (exit $crc)" [ $crc = 0 ]

if [ -n "${PAIR_KEEP:-}" ]; then
	mkdir -p "$PAIR_KEEP" && cp "$T/pair.txt" "$T/pair.dat" "$T/check.out" "$PAIR_KEEP/" &&
		echo "# kept the pair and the check's output in $PAIR_KEEP"
fi
echo "1..$n"
[ $fails = 0 ]
