#!/bin/bash
# SPDX-License-Identifier: MIT
# trace.dat version 7 from trawl record, against the real kernel: the
# default (v7, zstd) and the other versions and compressions open in
# `trace-cmd report`; a recorder killed with SIGKILL during a busy load
# leaves a file trawl reads up to its last second (and trace-cmd reads at
# least the last half of each CPU's data), and the next recorder says it removed the dead one's
# instance; a v7 file cut short reads up to the cut, with the truncation
# message, and `trawl stats` lists only offsets it knows. Root, tracefs and
# trace-cmd only: skipped (exit 77) otherwise. tracefs is compared before
# and after each group.
# usage: test-record-v7.sh TRAWL PINGPONG
set -u
TRAWL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
LOAD=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
TFS=/sys/kernel/tracing
export LC_ALL=C

# need_tracing, check, snapshot (every setting a recorder may touch),
# begin, same_state, status
. "$(dirname "$0")/live-lib.sh"
need_tracing "recording tests" trace-cmd

T=$(mktemp -d)
BUSY=
cleanup() {
	[ -n "$BUSY" ] && kill "$BUSY" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fails=0
n=0

version_is() { # version_is FILE V: the version string after the magic
	[ "$(head -c 12 "$1" | tail -c 2 | tr -d '\0')" = "$2" ]
}
json_total() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total_events"])' "$1"; }
stats_events() { "$TRAWL" stats --json "$1" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["total_events"])'; }
report_events() { trace-cmd report "$1" 2>/dev/null | grep -c '^ .*\[[0-9]*\] *[0-9]*\.[0-9]*:'; }
same_count() { # same_count SUMMARY.json FILE: trawl's count and trace-cmd's
	local a b
	a=$(json_total "$1")
	b=$(report_events "$2")
	[ "$a" = "$b" ] || { echo "  recorded $a, trace-cmd report shows $b" >&2; return 1; }
}
size() { stat -c %s "$1"; }
# Halfway between the first options section (after the formats and
# kallsyms) and the end: a cut in the data.
half_data() {
	python3 - "$1" <<'PY'
import os, struct, sys
b = open(sys.argv[1], "rb").read(4096)
at = b.index(b"\0", 18) + 1  # compression name
at = b.index(b"\0", at) + 1   # its version
first = struct.unpack("<Q", b[at:at + 8])[0]
print((first + os.path.getsize(sys.argv[1])) // 2)
PY
}

# --- versions and compressions ------------------------------------------------
begin
check "default recording" status 0 "$TRAWL" record -e 'sched:*' -o "$T/d7.dat" --json -- "$LOAD" 0.5
cp "$T/out" "$T/d7.json"
check "is version 7" version_is "$T/d7.dat" 7
check "compressed with zstd" sh -c "'$TRAWL' stats '$T/d7.dat' | grep -q '^format: *trace-dat, zstd'"
check "trace-cmd report opens it" sh -c "trace-cmd report '$T/d7.dat' >/dev/null 2>&1"
check "trace-cmd report shows every event recorded" same_count "$T/d7.json" "$T/d7.dat"
check "trawl reads every event recorded" test "$(stats_events "$T/d7.dat")" = "$(json_total "$T/d7.json")"
check "--file-version 6" status 0 "$TRAWL" record -e 'sched:*' --file-version 6 -o "$T/d6.dat" --json -- "$LOAD" 0.5
cp "$T/out" "$T/d6.json"
check "is version 6" version_is "$T/d6.dat" 6
check "version 6 opens in trace-cmd with every event" same_count "$T/d6.json" "$T/d6.dat"
check "version 7 is several times smaller" test $(($(size "$T/d6.dat") / $(size "$T/d7.dat"))) -ge 3
echo "# sizes: v6 $(size "$T/d6.dat"), v7 zstd $(size "$T/d7.dat") bytes"
check "--compression none" status 0 "$TRAWL" record -e 'sched:*' --compression none -o "$T/n7.dat" --json -- "$LOAD" 0.3
cp "$T/out" "$T/n7.json"
check "uncompressed version 7" version_is "$T/n7.dat" 7
check "uncompressed opens in trace-cmd with every event" same_count "$T/n7.json" "$T/n7.dat"
check "--compression zlib" status 0 "$TRAWL" record -e 'sched:*' --compression zlib -o "$T/z7.dat" --json -- "$LOAD" 0.3
cp "$T/out" "$T/z7.json"
check "zlib file reads in trawl with every event" test "$(stats_events "$T/z7.dat")" = "$(json_total "$T/z7.json")"
if trace-cmd list -c 2>/dev/null | grep -q zlib; then
	check "zlib file opens in trace-cmd with every event" same_count "$T/z7.json" "$T/z7.dat"
else
	echo "# SKIP zlib in trace-cmd: this trace-cmd has no zlib ($(trace-cmd list -c 2>/dev/null | tail -1 | tr -d '\t'))"
fi
check "flight recorder in version 7" status 0 "$TRAWL" record -e 'sched:*' --flight-recorder -b 512 -o "$T/f7.dat" --json -- "$LOAD" 0.3
cp "$T/out" "$T/f7.json"
check "flight recorder file opens in trace-cmd with every event" same_count "$T/f7.json" "$T/f7.dat"
check "--file-version 5 is a usage error" status 1 "$TRAWL" record -e sched:sched_switch --file-version 5 -d 0.1 -o "$T/x.dat"
check "--compression lz4 is a usage error" status 1 "$TRAWL" record -e sched:sched_switch --compression lz4 -d 0.1 -o "$T/x.dat"
check "version 6 cannot be compressed" status 1 "$TRAWL" record -e sched:sched_switch --file-version 6 --compression zstd -d 0.1 -o "$T/x.dat"
check "and says so" grep -q "never compressed" "$T/err"
check "tracefs unchanged after the versions" same_state

# --- SIGKILL ------------------------------------------------------------------
begin
"$TRAWL" record -e 'sched:*' -o "$T/kill.dat" -- sh -c 'while :; do /bin/true; done' >/dev/null 2>&1 &
REC=$!
sleep 3
BUSY=$(ps -o pid= --ppid $REC | tr -d ' ')
kill -9 $REC
wait $REC 2>/dev/null
[ -n "$BUSY" ] && kill "$BUSY" 2>/dev/null
KPID=$BUSY
BUSY=
check "killed recorder left a file" test -s "$T/kill.dat"
check "trawl stats reads it" status 0 "$TRAWL" stats --json "$T/kill.dat"
check "with the busy load's events" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["total_events"] > 5000, s["total_events"]
span = (s["last_time"] - s["first_time"]) / 1e9
assert span > 1.5, span' "$T/out"
check "nothing in it is damaged" python3 -c '
import json, sys; assert json.load(open(sys.argv[1]))["bad_lines"] == 0' "$T/out"
check "and names the load, which started after the recorder" sh -c \
	"'$TRAWL' report '$T/kill.dat' 2>/dev/null | grep -q ' sh-$KPID '"
check "trace-cmd report reads it" sh -c "trace-cmd report '$T/kill.dat' >'$T/kill.txt' 2>/dev/null"
check "and shows its events" grep -q "sched_switch:" "$T/kill.txt"
# trace-cmd sees each CPU's last region of the file (at least half of it,
# all of it for a short recording), trawl all of them
check "trace-cmd shows at least half of what trawl reads" sh -c \
	"[ \$((2 * \$(grep -c '^ .*\[[0-9]*\] *[0-9]*\.[0-9]*:' '$T/kill.txt'))) -ge $(stats_events "$T/kill.dat") ]"
check "the killed recorder left its instance" test -d "$TFS/instances/trawl-$TRAWL_INSTANCE_TAG-$REC"
check "the next recorder removes the dead one's instance" status 0 "$TRAWL" record -e sched:sched_switch -o "$T/next.dat" -d 0.2
check "it is gone" test ! -e "$TFS/instances/trawl-$TRAWL_INSTANCE_TAG-$REC"
# (other recorders killed on this machine may have left theirs too)
check "and says so on stderr" grep -q "removed [0-9]* tracefs instances*.*killed" "$T/err"
check "tracefs as before the killed recorder" same_state

# --- cut files ----------------------------------------------------------------
begin
check "a larger recording" status 0 "$TRAWL" record -e 'sched:*' -o "$T/big.dat" --json -- sh -c 'i=0; while [ $i -lt 4000 ]; do /bin/true; i=$((i+1)); done'
cp "$T/out" "$T/big.json"
ALL=$(json_total "$T/big.json")
head -c "$(half_data "$T/big.dat")" "$T/big.dat" >"$T/cut.dat"
check "a v7 file cut short exits 1" status 1 "$TRAWL" stats --json "$T/cut.dat"
check "and reads the whole chunks before the cut" python3 -c '
import json, sys
s = json.load(open(sys.argv[1])); total = int(sys.argv[2])
assert 0 < s["total_events"] < total, (s["total_events"], total)' "$T/out" "$ALL"
check "with the truncation message" grep -q "truncated at offset [0-9]*: CPU .* the events before were read" "$T/err"
check "trawl stats lists no unknown offsets" sh -c "'$TRAWL' stats '$T/cut.dat' 2>/dev/null | grep '^damaged' | grep -v -E '(offsets |, )0[,;)]'"
head -c "$(half_data "$T/kill.dat")" "$T/kill.dat" >"$T/kcut.dat"
check "a killed recorder's file cut short exits 1" status 1 "$TRAWL" stats --json "$T/kcut.dat"
check "and reads the batches before the cut" python3 -c '
import json, sys; assert json.load(open(sys.argv[1]))["total_events"] > 0' "$T/out"
check "with the truncation message too" grep -q "truncated at offset" "$T/err"
check "tracefs unchanged after the cut files" same_state

echo "1..$n"
[ $fails = 0 ]
