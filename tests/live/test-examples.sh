#!/bin/bash
# SPDX-License-Identifier: MIT
# Every script in examples/ live, over a load of forks, pipe round trips
# and syscalls: on the ftrace path its output is exactly what the same
# script prints off line on the run's --record file (the same events);
# with the default back end (auto) the probes that can run in the kernel
# do (the plan says which), the run and the recording's off-line run
# succeed without faults, and the run's maps print off line too. The numbers of an auto
# run and of its recording are not compared: the recording spans more
# than the programs were attached (trawl's own start and stop), and times
# in the kernel are the programs' clock, not the events' timestamps.
# Root and tracefs (BPF for the auto half): skipped (exit 77) otherwise.
# usage: test-examples.sh TRAWL EXAMPLES_DIR
set -u
TRAWL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
EXAMPLES=$(cd "${2:-$(dirname "$0")/../../examples}" && pwd)
TFS=/sys/kernel/tracing
export LC_ALL=C

. "$(dirname "$0")/live-lib.sh"
need_tracing "the examples live" perl

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
n=0

cat >"$T/load.pl" <<'EOF'
pipe(my $ar, my $aw) or die;
pipe(my $br, my $bw) or die;
my $pid = fork() // die;
my $b;
if ($pid == 0) {
	close $aw; close $br;
	for (1 .. 300) { sysread($ar, $b, 1); syswrite($bw, "y", 1); }
	exit 0;
}
close $ar; close $bw;
for (1 .. 300) { syswrite($aw, "x", 1); sysread($br, $b, 1); getppid(); }
waitpid($pid, 0);
system("/bin/true") for 1 .. 5;
EOF
LOAD="perl $T/load.pl"

same_file() { cmp -s "$1" "$2" || { diff -u "$1" "$2" | head -20 >&2; return 1; }; }
# maps FILE: the names of the maps printed at the end
maps() { grep -oE '^@[A-Za-z_0-9]*' "$1" | sort -u; }

bpf=1
"$TRAWL" run --live --backend bpf -d 0.01 \
	-e 'tracepoint:syscalls:sys_enter_getppid { @ = count(); }' >/dev/null 2>&1 || bpf=0

for ex in "$EXAMPLES"/*.tw; do
	name=$(basename "$ex" .tw)
	begin
	check "$name: live, ftrace path, recorded" status 0 "$TRAWL" run --live --backend ftrace \
		"$ex" --record "$T/$name.dat" -c "$LOAD"
	cp "$T/out" "$T/$name.live"
	if grep -q 'cannot be traced live' "$T/err" && [ ! -e "$T/$name.dat" ]; then
		# slices.tw: trace_marker's print events are the top-level
		# buffer's, not an instance's
		check "$name: says nothing was recorded" grep -q "$name.dat was not written" "$T/err"
		check "tracefs as it was" same_state
		continue
	fi
	check "$name: off line on the recording" status 0 "$TRAWL" run "$ex" "$T/$name.dat"
	check "$name: the same output" same_file "$T/$name.live" "$T/out"
	check "tracefs as it was" same_state
	[ $bpf = 1 ] || continue
	begin
	check "$name: live, auto" status 0 "$TRAWL" run --live --explain "$ex" \
		--record "$T/$name.auto.dat" -c "$LOAD"
	cp "$T/out" "$T/$name.auto"
	grep '^probe ' "$T/err" >"$T/$name.plan"
	# a fault is a warning at a place in the script
	check "$name: no faults" sh -c "! grep -qE 'warning: [^ ]*\.tw:[0-9]+:' '$T/err'"
	case $name in
	irq-durations | offcpu | runq-latency | syscalls | wakeup-latency)
		check "$name: its event probes run in the kernel" \
			sh -c "! grep -E '^probe [0-9]+ \\([a-z_]+:.*user space' '$T/$name.plan'"
		;;
	*)
		check "$name: ftrace's own events stay in user space" grep -q 'user space' "$T/$name.plan"
		;;
	esac
	check "$name: off line on its recording" status 0 "$TRAWL" run "$ex" "$T/$name.auto.dat"
	maps "$T/$name.auto" >"$T/$name.auto.maps"
	maps "$T/out" >"$T/$name.off.maps"
	# the recording spans more than the programs were attached: its
	# maps include the run's (a sporadic irq may add one)
	check "$name: the run's maps off line too" \
		sh -c "! comm -23 '$T/$name.auto.maps' '$T/$name.off.maps' | grep -q ."
	check "tracefs as it was" same_state
done
echo "1..$n"
[ "$fails" = 0 ]
