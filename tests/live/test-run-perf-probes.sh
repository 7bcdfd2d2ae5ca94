#!/bin/bash
# SPDX-License-Identifier: MIT
# trawl run --live's perf event probes (the BPF back end's programs on
# perf events): profile:hz:N samples every CPU N times a second;
# software:EVENT:N counts a known load's page faults and context switches;
# an interval probe that reads kernel memory (kaddr(), '*') runs in the
# kernel, and what it reads is /sys/kernel/notes' bytes (the kernel's
# __start_notes, the one data symbol a kernel without CONFIG_KALLSYMS_ALL
# lists); loads.bt as written, on a kallsyms that names avenrun there
# (TRAWL_KALLSYMS), and on this kernel's, where it has no address
# (bpftrace fails the same); off line and on the ftrace back end they are
# refused; uprobe and uretprobe on a known target's function (its calls,
# arguments and return values; a misspelt function names the nearest).
# tracefs and the kernel's BPF objects as they were after each.
# Root, tracefs and BPF only: skipped (exit 77) otherwise.
# usage: test-run-perf-probes.sh TRAWL UPROBE-TARGET
set -u
TRAWL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TARGET=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
TFS=/sys/kernel/tracing
export LC_ALL=C

. "$(dirname "$0")/live-lib.sh"
need_tracing "BPF tests" perl

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
n=0

if ! "$TRAWL" run --live --backend bpf -d 0.01 \
	-e 'profile:hz:10 { @ = count(); }' >"$T/probe.out" 2>"$T/probe.err"; then
	echo "SKIP: BPF perf event programs are not usable here: $(cat "$T/probe.err")"
	exit 77
fi
ncpus=$(nproc)

# profile: every online CPU sampled ~99 times in a second, whatever runs
begin_all
check "profile:hz:99 for 1 s" status 0 "$TRAWL" run --live -d 1 \
	-e 'profile:hz:99 { @[cpu] = count(); @p[probe] = count(); }'
cp "$T/out" "$T/profile.out"
check "profile: a count for each CPU" \
	test "$(grep -c '^@\[[0-9]*\]: ' "$T/profile.out")" = "$ncpus"
check "profile: about 99 samples per CPU" \
	awk -F': ' '/^@\[/ { if ($2 < 80 || $2 > 110) bad = 1 } END { exit bad }' "$T/profile.out"
check "profile: probe as written" grep -q '^@p\[profile:hz:99\]: ' "$T/profile.out"
check "profile: the plan" status 0 "$TRAWL" run --live --explain -d 0.01 \
	-e 'profile:ms:10 { @ = count(); }'
check "  says a perf event's program" grep -q "kernel (BPF, a perf event's program)" "$T/err"
check "tracefs and BPF objects as they were" same_all

# software events of a known load: perl touching fresh pages and
# sleeping; each counted per task
cat >"$T/load.pl" <<'PL'
my @a; for (1 .. 200) { push @a, "x" x 65536; select(undef, undef, undef, 0.002); }
PL
begin_all
check "software:page-faults:1 and software:cs:1" status 0 "$TRAWL" run --live \
	-e 'software:page-faults:1 /comm == "perl"/ { @faults = count(); }
	    software:cs:1 /comm == "perl"/ { @cs = count(); }' -- perl "$T/load.pl"
cp "$T/out" "$T/sw.out"
faults=$(sed -n 's/^@faults: //p' "$T/sw.out")
cs=$(sed -n 's/^@cs: //p' "$T/sw.out")
check "software: the page faults of 200 x 64 KiB ($faults >= 3200)" test "${faults:-0}" -ge 3200
check "software: a switch for each of its 200 sleeps ($cs >= 200)" test "${cs:-0}" -ge 200
check "tracefs and BPF objects as they were" same_all

# kernel memory from an interval probe: *kaddr() is /sys/kernel/notes
want=$(od -A n -t x8 -N 16 /sys/kernel/notes | tr -s ' ' | sed 's/^ //; s/ 0*/ /; s/^0*//')
begin_all
check "interval reading *kaddr(\"__start_notes\")" status 0 "$TRAWL" run --live -d 0.6 \
	-e 'interval:ms:200 { printf("%x %x\n", *kaddr("__start_notes"), *(kaddr("__start_notes") + 8)); }'
check "  runs about every 200 ms (2 or 3 in 0.6 s)" \
	sh -c "test \$(grep -c . '$T/out') -ge 2 -a \$(grep -c . '$T/out') -le 3"
check "  reads the kernel's notes ($want)" sh -c "sort -u '$T/out' | grep -qx '$want'"
check "  and is in the kernel" status 0 "$TRAWL" run --live --explain -d 0.01 \
	-e 'interval:ms:200 { printf("%x\n", *kaddr("__start_notes")); }'
check "  (the plan)" grep -q "interval:ms:200.*kernel (BPF, a perf event's program)" "$T/err"
check "tracefs and BPF objects as they were" same_all

# loads.bt as written; this kernel's kallsyms may not name avenrun
if [ -r /usr/sbin/loads.bt ]; then
	begin_all
	if grep -qw avenrun /proc/kallsyms; then
		check "loads.bt verbatim" status 0 "$TRAWL" run --live -d 2.5 /usr/sbin/loads.bt
		check "  two load lines" sh -c "grep -cE '^[0-9:]{8} load averages: [0-9]+\.[0-9]{3} ' '$T/out' | grep -qx '[23]'"
	else
		check "loads.bt on a kernel without data symbols: refused" \
			status 1 "$TRAWL" run --live -d 1 /usr/sbin/loads.bt
		check "  saying why (CONFIG_KALLSYMS_ALL)" grep -q 'kaddr("avenrun").*CONFIG_KALLSYMS_ALL' "$T/err"
		# the same tool on a kallsyms that names avenrun: the notes'
		# bytes, read as loads.bt reads the load averages
		addr=$(awk '$3 == "__start_notes" { print $1 }' /proc/kallsyms)
		{ cat /proc/kallsyms; echo "$addr D avenrun"; } >"$T/kallsyms"
		check "loads.bt verbatim, avenrun at __start_notes" \
			status 0 env TRAWL_KALLSYMS="$T/kallsyms" "$TRAWL" run --live -d 2.5 /usr/sbin/loads.bt
		cp "$T/out" "$T/loads.out"
		# loads.bt's arithmetic on the notes' first three u64s (>> shifts
		# in zeros, as bpftrace's does)
		expect=$(python3 -c 'import struct, sys
v = struct.unpack("<3Q", open("/sys/kernel/notes", "rb").read(24))
print(" ".join("%d.%03d" % (x >> 11, ((x & 2047) * 1000) >> 11) for x in v))')
		check "  prints its banner" grep -qx 'Reading load averages... Hit Ctrl-C to end.' "$T/loads.out"
		check "  and a line a second ($expect)" \
			sh -c "grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} load averages: $expect\$' '$T/loads.out' | grep -qx '[23]'"
	fi
	check "tracefs and BPF objects as they were" same_all
fi

# uprobes: 30 calls of trawl_target_add(i % 3, 100), each argument
# pair 10 times, returning 100 + i % 3; u: and ur: as bpftrace spells them
begin_all
check "uprobe and uretprobe of the target" status 0 "$TRAWL" run --live \
	-e "uprobe:$TARGET:trawl_target_add { @[arg0, arg1] = count(); @f[func] = count();
		if (arg0 == 2) { printf(\"%s\\n\", probe); } }
	    ur:$TARGET:trawl_target_add { @r[retval] = count(); }
	    uprobe:$TARGET:trawl_target_name { @s[str(arg0)] = count(); }" -- "$TARGET" 30
cp "$T/out" "$T/uprobe.out"
check "uprobe: the target ran (its sum)" grep -qx "3030 12" "$T/uprobe.out"
check "uprobe: str(arg0) reads the task's string" grep -qx "@s\[trawl-uprobe\]: 1" "$T/uprobe.out"
for a in 0 1 2; do
	check "uprobe: arguments ($a, 100) 10 times" grep -qx "@\[$a, 100\]: 10" "$T/uprobe.out"
	check "uretprobe: $((100 + a)) returned 10 times" grep -qx "@r\[$((100 + a))\]: 10" "$T/uprobe.out"
done
check "uprobe: func" grep -qx "@f\[trawl_target_add\]: 30" "$T/uprobe.out"
check "uprobe: probe, whole however long its path" \
	test "$(grep -cx "uprobe:$TARGET:trawl_target_add" "$T/uprobe.out")" = 10
check "tracefs and BPF objects as they were" same_all
check "a misspelt function is refused" status 1 "$TRAWL" run --live -d 0.1 \
	-e "u:$TARGET:trawl_target_ad { @ = count(); }"
check "  naming the nearest" grep -q "no function trawl_target_ad in $TARGET (did you mean 'trawl_target_add'?)" "$T/err"
check "retval outside a uretprobe is refused" status 1 "$TRAWL" run --live -d 0.1 \
	-e "uprobe:$TARGET:trawl_target_add { @ = sum(retval); }"
check "  saying so" grep -q "'retval' is a function's return value: only uretprobe probes have it" "$T/err"
check "arg0 in a tracepoint probe is refused" status 1 "$TRAWL" run --live -d 0.1 \
	-e 'tracepoint:sched:sched_switch { @[arg0] = count(); }'

# refusals: off line, on the ftrace back end, and what a perf probe lacks
check "a profile probe off line is refused" status 1 "$TRAWL" run \
	-e 'profile:hz:99 { @ = count(); }' "$(dirname "$0")/../fixtures/tc.dat"
check "  saying it is live with the BPF back end" grep -q 'perf event.*live run with the BPF back end' "$T/err"
check "on the ftrace back end too" status 1 "$TRAWL" run --live --backend ftrace -d 0.1 \
	-e 'software:faults { @ = count(); }'
check "a profile probe has no args" status 1 "$TRAWL" run --live -d 0.1 \
	-e 'profile:hz:99 { @ = count(args.x); }'
check "nor an event name" status 1 "$TRAWL" run --live -d 0.1 \
	-e 'profile:hz:99 { @[event] = count(); }'
check "a bad profile rate is a parse error at its column" status 1 "$TRAWL" run --live -d 0.1 \
	-e 'BEGIN { } profile:hz:x { @ = count(); }'
check "  (1:11)" grep -q ':1:11: ' "$T/err"
check "an unknown software event names the known ones" status 1 "$TRAWL" run --live -d 0.1 \
	-e 'software:nope { @ = count(); }'
check "  (cpu-clock ...)" grep -q 'cpu-clock' "$T/err"
check "* off the kernel is refused" status 1 "$TRAWL" run --live --backend ftrace -d 0.1 \
	-e 'interval:s:1 { printf("%d\n", *kaddr("_stext")); }'

echo "1..$n"
[ $fails = 0 ]
