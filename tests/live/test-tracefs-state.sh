#!/bin/bash
# SPDX-License-Identifier: MIT
# The live tests' tracefs snapshot (live-lib.sh) on stand-in tracefs trees,
# so that what it takes for "as before" is checked on any machine, root or
# not: a freshly booted one, whose main buffer reads "7 (expanded: 1408)"
# at the top level and 7 per CPU until something first uses it, and one
# already used (1410 everywhere). Between the two snapshots the settings of
# a --top-level recording are made and put back by trawl's own journal
# (tracefs-journal, lib/live/tracefs.c), and the stand-in then does what the
# kernel does on a write to buffer_size_kb: every CPU's buffer takes the
# size, and the "(expanded: ...)" note is gone. What trawl documents (a
# fresh buffer is left at the size of its first use) must compare equal on
# both machines; a tracer that leaves any other size, an event enabled, a
# filter, or an instance of this test's, must not. Instances of others
# (another trawl, a user's) are not this test's business.
# usage: test-tracefs-state.sh TRACEFS-JOURNAL
set -u
JOURNAL=$1
export LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
n=0
TFS=/nonexistent # the snapshots below are all of stand-ins
. "$(dirname "$0")/live-lib.sh"

# stand_in DIR TOP PER_CPU: a tracefs tree as a machine with two CPUs reads
# it, the top-level buffer_size_kb reading TOP and each CPU's PER_CPU
stand_in() {
	local d=$1
	mkdir -p "$d/options" "$d/instances" "$d/events/sched/sched_switch" \
		"$d/per_cpu/cpu0" "$d/per_cpu/cpu1"
	echo 1 >"$d/tracing_on"
	echo nop >"$d/current_tracer"
	echo "$CLOCKS" | sed 's/^local/[local]/' >"$d/trace_clock"
	echo "$2" >"$d/buffer_size_kb"
	echo "$3" >"$d/per_cpu/cpu0/buffer_size_kb"
	echo "$3" >"$d/per_cpu/cpu1/buffer_size_kb"
	echo 50 >"$d/buffer_percent"
	echo 1 >"$d/options/overwrite"
	echo 0 >"$d/events/enable"
	: >"$d/set_event"
	echo 6552 >"$d/saved_cmdlines_size"
	echo 0 >"$d/events/sched/sched_switch/enable"
	echo none >"$d/events/sched/sched_switch/filter"
	printf '# Available triggers:\n# traceon traceoff snapshot stacktrace enable_event disable_event\n' \
		>"$d/events/sched/sched_switch/trigger"
}

# What the kernel shows after the writes (the stand-in keeps the text
# written): the per-CPU buffers take the size written to the top-level
# buffer_size_kb; a clock written by name is the [selected] one of the
# list; a filter written as 0 reads none.
CLOCKS='local global counter uptime perf mono mono_raw boot tai x86-tsc'
kernel_resizes() {
	local c f
	for c in "$1"/per_cpu/cpu*; do
		cp "$1/buffer_size_kb" "$c/buffer_size_kb"
	done
	c=$(cat "$1/trace_clock")
	case " $CLOCKS " in
	*" $c "*) echo " $CLOCKS " | sed "s/ $c / [$c] /; s/^ //; s/ \$//" >"$1/trace_clock" ;;
	esac
	for f in "$1"/events/*/*/filter; do
		[ "$(cat "$f")" = 0 ] && echo none >"$f"
	done
	return 0
}

# a --top-level recording's settings, made and put back by trawl's journal
top_level_recording() {
	"$JOURNAL" "$1" tracing_on=0 buffer_size_kb=2048 trace_clock=mono \
		events/sched/sched_switch/filter='prev_comm=="pingpong"' \
		events/sched/sched_switch/enable=1 tracing_on=1 &&
		kernel_resizes "$1"
}

same() { diff -u "$1" "$2" >/dev/null; }
differs() { ! same "$1" "$2"; }

for machine in fresh used; do
	d=$T/$machine
	if [ $machine = fresh ]; then
		stand_in "$d" '7 (expanded: 1408)' 7
	else
		stand_in "$d" 1410 1410
	fi
	snapshot "$d" >"$T/$machine.before"
	check "$machine: the snapshot has the buffer in pages, per CPU too" \
		grep -qx 'per_cpu/cpu1: 354 pages' "$T/$machine.before"
	check "$machine: trawl's journal sets and puts back" top_level_recording "$d"
	check "$machine: the buffer reads a plain size after it" grep -qxE '1408|1410' "$d/buffer_size_kb"
	snapshot "$d" >"$T/$machine.after"
	check "$machine: as before after a top-level recording" same "$T/$machine.before" "$T/$machine.after"

	# what must still show
	cp -r "$d" "$T/x" && echo 7 >"$T/x/buffer_size_kb" && kernel_resizes "$T/x"
	check "$machine: a tracer leaving 7 kB a CPU differs" differs "$T/$machine.before" <(snapshot "$T/x")
	rm -rf "$T/x"
	cp -r "$d" "$T/x" && echo 2048 >"$T/x/per_cpu/cpu1/buffer_size_kb"
	check "$machine: one CPU left at 2048 kB differs" differs "$T/$machine.before" <(snapshot "$T/x")
	rm -rf "$T/x"
	cp -r "$d" "$T/x" && echo 7 >"$T/x/per_cpu/cpu0/buffer_size_kb"
	check "$machine: one CPU left at 7 kB differs" differs "$T/$machine.before" <(snapshot "$T/x")
	rm -rf "$T/x"
	cp -r "$d" "$T/x" && echo 1 >"$T/x/events/sched/sched_switch/enable"
	check "$machine: an event left enabled differs" differs "$T/$machine.before" <(snapshot "$T/x")
	rm -rf "$T/x"
	cp -r "$d" "$T/x" && echo 'prev_pid==0' >"$T/x/events/sched/sched_switch/filter"
	check "$machine: a filter left differs" differs "$T/$machine.before" <(snapshot "$T/x")
	rm -rf "$T/x"
	cp -r "$d" "$T/x" && echo '[mono] local' >"$T/x/trace_clock"
	check "$machine: the clock left differs" differs "$T/$machine.before" <(snapshot "$T/x")
	rm -rf "$T/x"
done

# the old rule, each buffer_size_kb in its own kB, is what failed on a fresh
# machine: the top level said 1408 before, each CPU 7 (2 pages)
check "fresh: per CPU, 7 kB before reads as the first use's size" \
	grep -qx 'per_cpu/cpu0: 354 pages' "$T/fresh.before"

# instances: this test's own, and everybody else's
d=$T/used
snapshot "$d" >"$T/inst.before"
mkdir "$d/instances/trawl-$$" "$d/instances/trawl-other-tests-1-$$" "$d/instances/mine"
check "others' instances appearing are not this test's" same "$T/inst.before" <(snapshot "$d")
rmdir "$d/instances/trawl-$$" "$d/instances/trawl-other-tests-1-$$"
check "nor is their going" same "$T/inst.before" <(snapshot "$d")
mkdir "$d/instances/trawl-$TRAWL_INSTANCE_TAG-12345"
check "an instance of this test's left behind differs" differs "$T/inst.before" <(snapshot "$d")
check "(and is named)" grep -q "instance: trawl-$TRAWL_INSTANCE_TAG-12345" <(snapshot "$d")
rmdir "$d/instances/trawl-$TRAWL_INSTANCE_TAG-12345"
mkdir "$d/instances/trawl-${TRAWL_INSTANCE_TAG}0-1"
check "a tag that only begins like this test's is not this test's" same "$T/inst.before" <(snapshot "$d")

echo "1..$n"
[ $fails = 0 ]
