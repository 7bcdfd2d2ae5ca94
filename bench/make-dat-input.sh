#!/bin/sh
# SPDX-License-Identifier: MIT
# make-dat-input.sh - record the trace.dat inputs of the binary benchmarks
#
#   sudo bench/make-dat-input.sh          # creates what is missing
#   sudo NAME=mid LOOPS=250000 bench/make-dat-input.sh   # 3.5 M events
#
# Writes bench/out/big.dat (trace-cmd's default: v7, zstd),
# bench/out/big-nocomp.dat (the same, converted with --compression none)
# and bench/out/big-v6.dat (converted to version 6, uncompressed): about
# 6-11 M sched and irq events from `perf bench sched pipe` on every CPU
# (NAME=mid: mid.dat, mid-nocomp.dat, mid-v6.dat).
# trace-cmd 3.1.6 cannot record on machines where the function tracer's
# control files give EPERM; the ftshim of ../shared/tools gets it running
# (built here into bench/out/ftshim/). The tracefs settings trace-cmd leaves
# changed (buffer_size_kb) are put back.
set -eu

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
out="$here/out"
tracefs=/sys/kernel/tracing
LOOPS=${LOOPS:-800000}
NAME=${NAME:-big}
mkdir -p "$out"
[ -f "$out/$NAME.dat" ] && [ -f "$out/$NAME-nocomp.dat" ] && [ -f "$out/$NAME-v6.dat" ] && exit 0
[ "$(id -u)" = 0 ] || { echo "run as root (recording)" >&2; exit 2; }
[ -d "$tracefs/events" ] || mount -t tracefs nodev "$tracefs"

shim="$out/ftshim"
if [ ! -f "$shim/ftshim.so" ]; then
	mkdir -p "$shim"
	gcc -O2 -shared -fPIC -o "$shim/ftshim.so" "$here/../../shared/tools/ftshim.c" -ldl
	printf 'no pid\n' >"$shim/set_ftrace_pid"
	printf 'no pid\n' >"$shim/set_ftrace_notrace_pid"
	printf '#### all functions enabled ####\n' >"$shim/set_ftrace_filter"
	: >"$shim/set_ftrace_notrace"
	: >"$shim/set_graph_function"
	: >"$shim/set_graph_notrace"
	echo 1 >"$shim/ftrace_enabled"
fi
# a buffer never allocated since boot reads "7 (expanded: 1408)": it is
# given back the size of its first use (the kernel never un-expands)
size_kb=$(sed 's/^[0-9]* (expanded: \([0-9]*\))$/\1/' "$tracefs/buffer_size_kb")
trap 'echo "$size_kb" >"$tracefs/buffer_size_kb"' EXIT
[ -f "$out/$NAME.dat" ] ||
FTSHIM_DIR=$shim LD_PRELOAD=$shim/ftshim.so trace-cmd record -q -o "$out/$NAME.dat" \
	-b 200000 -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking \
	-e sched:sched_stat_runtime -e irq -e timer \
	-- perf bench sched pipe -l "$LOOPS" >/dev/null 2>&1
[ -f "$out/$NAME-nocomp.dat" ] ||
	trace-cmd convert -i "$out/$NAME.dat" -o "$out/$NAME-nocomp.dat" --compression none >/dev/null 2>&1
[ -f "$out/$NAME-v6.dat" ] ||
	trace-cmd convert -i "$out/$NAME.dat" -o "$out/$NAME-v6.dat" --file-version 6 >/dev/null 2>&1
echo "wrote $out/$NAME.dat ($(stat -c %s "$out/$NAME.dat") bytes), $NAME-nocomp.dat and $NAME-v6.dat"
