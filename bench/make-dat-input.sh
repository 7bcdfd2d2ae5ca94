#!/bin/sh
# SPDX-License-Identifier: MIT
# make-dat-input.sh - record the trace.dat inputs of the binary benchmarks
#
#   sudo bench/make-dat-input.sh          # creates what is missing
#
# Writes bench/out/big.dat (trace-cmd's default: v7, zstd) and
# bench/out/big-nocomp.dat (the same, converted with --compression none):
# about 6 M sched and irq events from `perf bench sched pipe` on every CPU.
# trace-cmd 3.1.6 cannot record on machines where the function tracer's
# control files give EPERM; the ftshim of ../shared/tools gets it running
# (built here into bench/out/ftshim/). The tracefs settings trace-cmd leaves
# changed (buffer_size_kb) are put back.
set -eu

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
out="$here/out"
tracefs=/sys/kernel/tracing
LOOPS=${LOOPS:-800000}
mkdir -p "$out"
[ -f "$out/big.dat" ] && [ -f "$out/big-nocomp.dat" ] && exit 0
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
FTSHIM_DIR=$shim LD_PRELOAD=$shim/ftshim.so trace-cmd record -q -o "$out/big.dat" \
	-b 200000 -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking \
	-e sched:sched_stat_runtime -e irq -e timer \
	-- perf bench sched pipe -l "$LOOPS" >/dev/null 2>&1
trace-cmd convert -i "$out/big.dat" -o "$out/big-nocomp.dat" --compression none >/dev/null 2>&1
echo "wrote $out/big.dat ($(stat -c %s "$out/big.dat") bytes) and big-nocomp.dat"
