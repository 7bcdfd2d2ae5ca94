#!/bin/bash
# SPDX-License-Identifier: MIT
# trawl run --live's BPF back end against the real kernel: the same scripts
# run with --backend bpf, with --backend ftrace and off line on the
# --record file of the bpf run, over loads whose numbers are known (a
# fixed number of getppid() calls and of pipe round trips, filtered by
# comm), with identical output; one script per construct (aggregates,
# keys of integers and strings, char-array and __data_loc fields, state
# maps and delete, $vars, printf, exit(), division by zero and full maps
# as faults, interval probes with clear() giving exact deltas); str() of
# a syscall's char * argument and join() of execve's argv, in the kernel
# only, checked against the paths a load opens and the arguments it
# passes; refusals
# of --backend bpf naming the construct and line; auto mode's plan; and
# tracefs and the kernel's BPF objects as they were after every group,
# on every ending (CMD's exit, exit(), -d, SIGINT, SIGKILL). Root, tracefs
# and BPF only: skipped (exit 77) otherwise.
# usage: test-run-bpf.sh TRAWL
set -u
TRAWL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TFS=/sys/kernel/tracing
export LC_ALL=C

. "$(dirname "$0")/live-lib.sh"
need_tracing "BPF tests" perl
if [ ! -d $TFS/events/syscalls/sys_enter_getppid ]; then
	echo "SKIP: no syscall events in $TFS"
	exit 77
fi

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
n=0

if ! "$TRAWL" run --live --backend bpf -d 0.01 \
	-e 'tracepoint:syscalls:sys_enter_getppid { @ = count(); }' >"$T/probe.out" 2>"$T/probe.err"; then
	echo "SKIP: BPF is not usable here: $(cat "$T/probe.err")"
	exit 77
fi


# The load: N getppid() calls, then TRIPS round trips of one byte through
# two pipes between perl and its child.
N=2000
TRIPS=300
cat >"$T/load.pl" <<'EOF'
my ($n, $trips) = @ARGV;
getppid() for 1 .. $n;
pipe(my $ar, my $aw) or die;
pipe(my $br, my $bw) or die;
my $pid = fork() // die;
my $b;
if ($pid == 0) {
	close $aw; close $br;
	for (1 .. $trips) { sysread($ar, $b, 1); syswrite($bw, "y", 1); }
	exit 0;
}
close $ar; close $bw;
for (1 .. $trips) { syswrite($aw, "x", 1); sysread($br, $b, 1); }
waitpid($pid, 0);
EOF
LOAD="perl $T/load.pl $N $TRIPS"

same_file() { cmp -s "$1" "$2" || { diff -u "$1" "$2" | head -20 >&2; return 1; }; }

# parity NAME SCRIPT [OPTIONS...]: bpf live (recorded), ftrace live, and
# off line on the recording give the same output and faults.
parity() {
	local name=$1 script=$2
	shift 2
	check "$name: --backend bpf" status 0 "$TRAWL" run --live --backend bpf --explain \
		"$@" "$script" --record "$T/$name.dat" -c "$LOAD"
	cp "$T/out" "$T/$name.bpf"
	# the kernel's faults are not in the order first seen: sorted
	grep 'warning' "$T/err" | sed 's/ ([0-9]* times*)//' | sort >"$T/$name.bpf.faults"
	grep '^probe .*: ' "$T/err" >"$T/$name.plan"
	check "$name: every event probe in the kernel" \
		sh -c "! grep -E '^probe [0-9]+ \\(tracepoint.*user space' '$T/$name.plan'"
	check "$name: --backend ftrace" status 0 "$TRAWL" run --live --backend ftrace \
		"$@" "$script" -c "$LOAD"
	cp "$T/out" "$T/$name.ftrace"
	grep 'warning' "$T/err" | sed 's/ ([0-9]* times*)//' | sort >"$T/$name.ftrace.faults"
	check "$name: off line on the bpf run's recording" status 0 "$TRAWL" run \
		"$@" "$script" "$T/$name.dat"
	cp "$T/out" "$T/$name.offline"
	check "$name: bpf = ftrace" same_file "$T/$name.ftrace" "$T/$name.bpf"
	check "$name: bpf = off line" same_file "$T/$name.offline" "$T/$name.bpf"
	check "$name: the same faults" same_file "$T/$name.ftrace.faults" "$T/$name.bpf.faults"
}

# --- aggregates, integer and string keys ------------------------------------
begin_all
cat >"$T/agg.tw" <<'EOF'
tracepoint:syscalls:sys_enter_getppid /comm == "perl"/ {
	@calls = count();
	@by[comm, args.__syscall_nr] = count();
	@nr = sum(args.__syscall_nr);
	@mn = min(0 - args.__syscall_nr);
	@mx = max(args.__syscall_nr * 3);
	@av = avg(args.__syscall_nr / 3);
	@st = stats(args.__syscall_nr % 7);
	@h = hist(args.__syscall_nr << 4);
	@l = lhist(args.__syscall_nr, 0, 200, 25);
	@bits[(args.__syscall_nr & 6) | 1, ~args.__syscall_nr, -args.__syscall_nr >> 2] = count();
}
tracepoint:syscalls:sys_enter_write /comm == "perl" && args.count == 1/ {
	@writes[args.fd > 2, args.fd != 1] = count();
	@bytes = sum(args.count);
	@neg = min(-1);
}
EOF
parity agg "$T/agg.tw"
check "agg: every call counted" grep -qx "@calls: $N" "$T/agg.bpf"
check "agg: every write counted" grep -qx "@bytes: $((2 * TRIPS))" "$T/agg.bpf"
check "agg: string key" grep -q '^@by\[perl, [0-9]*\]: '"$N"'$' "$T/agg.bpf"
check "tracefs and BPF objects as they were" same_all

# --- state maps, delete, $vars, printf, strings -------------------------------
begin_all
cat >"$T/state.tw" <<'EOF'
tracepoint:syscalls:sys_enter_getppid /comm == "perl"/ {
	@start[tid] = 1;
	@seq = @seq + 1;
	$s = @seq;
	$c = comm;
	if ($s <= 3 || $s == 1000) {
		printf("call %d %s %s %5d|%-6s|\n", $s, $c, $s > 2 ? "big" : "small", $s * 2, "ab");
	} else {
		@other += 2;
	}
	@name[$c == "perl" ? "is perl" : "not perl"] = count();
	@len[strlen($c), strlen(""), strncmp($c, "pea", 3), strncmp("pe", $c, 2)] = count();
	@ord[$c < "pes", $c > "pera", $c <= "perl", $c >= "perm", "" < $c] = count();
}
tracepoint:syscalls:sys_exit_getppid /@start[tid]/ {
	delete(@start[tid]);
	@ret[args.ret > 0 ? 1 : 0] = count();
	@done = count();
	@str[tid > 0] = comm;
}
tracepoint:sched:sched_process_fork /args.parent_comm == "perl"/ {
	@fork[args.parent_comm, args.child_comm] = count();
}
tracepoint:sched:sched_process_exec /args.filename == "/usr/bin/perl"/ {
	@exec[args.filename, comm] = count();
	@eord[args.filename > "/usr/bin/p", args.filename < "/usr/bin/perl5", args.filename >= "/usr/bin/perl"] = count();
	printf("exec %s\n", args.filename);
}
END { printf("left %d\n", @seq); }
EOF
parity state "$T/state.tw"
check "state: printf from the kernel" grep -qx "call 3 perl big     6|ab    |" "$T/state.bpf"
check "state: every call paired" grep -qx "@done: $N" "$T/state.bpf"
check "state: deleted keys are gone" sh -c "! grep -q '^@start' '$T/state.bpf'"
check "state: a __data_loc string" grep -qx '@exec\[/usr/bin/perl, perl\]: 1' "$T/state.bpf"
check "state: char-array strings" grep -qx '@fork\[perl, perl\]: 1' "$T/state.bpf"
check "state: strings in order" grep -qx "@ord\[1, 1, 1, 0, 1\]: $N" "$T/state.bpf"
check "state: in order past the first word" grep -qx '@eord\[1, 1, 1\]: 1' "$T/state.bpf"
check "tracefs and BPF objects as they were" same_all

# --- kstack: in the kernel, after the event by ftrace, on the recording -----
begin_all
cat >"$T/stack.tw" <<'EOF'
tracepoint:syscalls:sys_enter_getppid /comm == "perl"/ {
	@[kstack] = count();
	@top[kstack(2)] = count();
	@perf[comm, kstack(perf, 3)] = count();
	@last[comm] = kstack(1);
	$s = kstack(1);
	@n = @n + 1;
	if (@n == 1) { printf("first%s|\n", $s); }
}
tracepoint:syscalls:sys_enter_write /comm == "perl" && args.count == 1/ {
	@w[kstack] = count();
}
tracepoint:sched:sched_process_fork /comm == "perl"/ {
	@fork[kstack(4)] = count();
}
EOF
parity stack "$T/stack.tw"
check "stack: every call's stack" sh -c "grep -c '^]: $N\$' '$T/stack.bpf' | grep -qx 3"
check "stack: it starts where the kernel hit the tracepoint" \
	sh -c "grep -A1 -x '@\[' '$T/stack.bpf' | grep -q '^    syscall_trace_enter+[0-9]*\$'"
check "stack: no tracing frames in it" \
	sh -c "! grep -Eq 'perf_syscall|ftrace_syscall|__traceiter|trace_event_raw' '$T/stack.bpf'"
check "stack: cut to its limit" sh -c "grep -A3 -x '@top\[' '$T/stack.bpf' | sed -n 4p | grep -qx ']: $N'"
check "stack: perf's format has the addresses" \
	grep -Eq '^	[0-9a-f]{16} do_syscall_64\+[0-9]+$' "$T/stack.bpf"
check "stack: printf of a kstack" grep -Eqx '        syscall_trace_enter\+[0-9]+' "$T/stack.bpf"
check "stack: the fork's" grep -q '^    kernel_clone+[0-9]*$' "$T/stack.bpf"
check "stack: the plan puts them in the kernel" grep -q 'probe 1 .*kernel (BPF)' "$T/stack.plan"
check "stack: the recording has the stacks" \
	sh -c "'$TRAWL' report '$T/stack.dat' | grep -c 'kernel_stack: <stack trace>' | awk '\$1 >= $N' | grep -q ."
check "tracefs and BPF objects as they were" same_all

# --- kstack off line from perf record -g of the same run --------------------
# perf records the run system-wide with callchains while trawl runs the
# script live on the ftrace path (a BPF program on a tracepoint hides it
# from perf's own recording of it: the kernel drops every perf sample of a
# tracepoint whose BPF program returns 0), then the script runs off line
# on perf's file: the same maps. Syscall tracepoints are left out: perf's
# callchain of one has only the user stack (the syscall's registers).
if command -v perf >/dev/null; then
	begin_all
	cat >"$T/perf-stack.tw" <<'EOF'
tracepoint:sched:sched_switch /comm == "perl"/ { @switch[kstack] = count(); }
tracepoint:sched:sched_wakeup /comm == "perl"/ { @wakeup[kstack(3)] = count(); }
tracepoint:sched:sched_process_fork /comm == "perl"/ {
	@fork[comm, kstack(perf, 4)] = count();
}
EOF
	check "perf -g: live on the ftrace path under perf record" status 0 \
		perf record -q -g -a -e sched:sched_switch -e sched:sched_wakeup \
		-e sched:sched_process_fork -o "$T/stack.perf" -- \
		"$TRAWL" run --live --backend ftrace "$T/perf-stack.tw" -c "$LOAD"
	cp "$T/out" "$T/perf-stack.live"
	check "perf -g: off line on perf's file" status 0 "$TRAWL" run "$T/perf-stack.tw" "$T/stack.perf"
	check "perf -g: the same answer" same_file "$T/perf-stack.live" "$T/out"
	check "perf -g: with the stacks" grep -q '^	ffffffff[0-9a-f]* kernel_clone+[0-9]*$' "$T/out"
	check "perf -g: no faults" sh -c "! grep -q warning '$T/err'"
	check "tracefs and BPF objects as they were" same_all
else
	echo "# perf -g: skipped, perf is not installed (apt-get install linux-perf)"
fi

# --- kstack off the kernel waits for the stack, in the trace's order --------
# The stack ftrace writes after an event comes on its CPU microseconds
# later, after other CPUs' events: the probe waits, and so does what comes
# after it. Two tasks call getppid() at once (on CPUs 0 and 1); the entry's
# probe reads kstack, the exit's does not; each prints a sequence number
# shared by both, which must come out as without kstack.
begin_all
cat >"$T/two.sh" <<'EOF'
taskset -c 0 perl -e 'getppid() for 1 .. 20000' &
taskset -c 1 perl -e 'getppid() for 1 .. 20000' &
wait
EOF
cat >"$T/order.tw" <<'EOF'
tracepoint:syscalls:sys_enter_getppid /comm == "perl"/ {
	@seq = @seq + 1;
	printf("in %d %d\n", cpu, @seq);
	@ks[kstack(2)] = count();
}
tracepoint:syscalls:sys_exit_getppid /comm == "perl"/ {
	@seq = @seq + 1;
	printf("out %d %d\n", cpu, @seq);
}
interval:ms:5 { printf("tick %d\n", @seq); }
EOF
grep -v '@ks' "$T/order.tw" >"$T/order-plain.tw"
check "order: live on the ftrace path, recorded" status 0 "$TRAWL" run --live --backend ftrace \
	"$T/order.tw" --record "$T/order.dat" -c "sh $T/two.sh"
[ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null &&
check "order: another CPU's events came between an event and its stack" \
	sh -c "'$TRAWL' report '$T/order.dat' | grep -v '^ =>' | awk '\$6 == \"kernel_stack:\" && \$3 != prev { n++ } { prev = \$3 } END { exit !(n > 0) }'"
check "order: off line with kstack" status 0 "$TRAWL" run "$T/order.tw" "$T/order.dat"
cp "$T/out" "$T/order.full"
cp "$T/err" "$T/order.kstack.err"
# the answer less @ks, its stacks' lines (indented, then "]: N")
grep -v '^@ks\[$\|^    \|^\]: ' "$T/order.full" >"$T/order.kstack"
check "order: off line without" status 0 "$TRAWL" run "$T/order-plain.tw" "$T/order.dat"
check "order: the same answer" same_file "$T/out" "$T/order.kstack"
check "order: every call had its stack" sh -c "! grep -q 'no kernel stack' '$T/order.kstack.err'"
check "order: the stacks" grep -q '^    syscall_trace_enter+[0-9]*$' "$T/order.full"
check "tracefs and BPF objects as they were" same_all

# --- uid, gid, username, time() and strftime() in the kernel ----------------
# The load runs as nobody (setpriv): the ids are the task's at the probe,
# not trawl's, username is nobody's name here; time() and strftime() of
# nsecs print the probe's time as the wall clock then.
if command -v setpriv >/dev/null; then
	begin_all
	cat >"$T/cred.tw" <<'EOF'
tracepoint:syscalls:sys_enter_getppid /comm == "perl"/ {
	@cred[uid, gid] = count();
	@user[username] = count();
	@n = @n + 1;
	if (@n == 1) { time("first at %H:%M:%S\n");
		printf("strftime %s\n", strftime("%H:%M:%S", nsecs)); }
}
EOF
	echo "getppid() for 1 .. $N;" >"$T/cred.pl"
	chmod 644 "$T/cred.pl" && chmod o+x "$T" # nobody reads it
	before=$(date +%s)
	check "cred: --backend bpf" status 0 "$TRAWL" run --live --backend bpf "$T/cred.tw" \
		-c "setpriv --reuid=65534 --regid=65534 --clear-groups perl $T/cred.pl"
	after=$(date +%s)
	check "cred: the task's ids" grep -qx "@cred\[65534, 65534\]: $N" "$T/out"
	check "cred: no other ids" sh -c "test \$(grep -c '^@cred' '$T/out') -eq 1"
	check "cred: username is the uid's name" grep -qx "@user\[$(id -nu 65534)\]: $N" "$T/out"
	at=$(sed -n 's/^first at \([0-9:]*\)$/\1/p' "$T/out")
	check "cred: time() printed the probe's time" sh -c \
		"t=\$(date -d '$at' +%s 2>/dev/null) && [ \$t -ge \$(($before - 1)) ] && [ \$t -le \$(($after + 1)) ]"
	at=$(sed -n 's/^strftime \([0-9:]*\)$/\1/p' "$T/out")
	check "cred: strftime() of nsecs is that time ($at)" sh -c \
		"t=\$(date -d '$at' +%s 2>/dev/null) && [ \$t -ge \$(($before - 1)) ] && [ \$t -le \$(($after + 1)) ]"
	check "cred: the ftrace back end refuses uid" status 1 "$TRAWL" run --live --backend ftrace "$T/cred.tw" -d 0.1
	check "cred: at uid" grep -q "cred.tw:2:8: 'uid' is the task's user id at the probe" "$T/err"
	check "tracefs and BPF objects as they were" same_all
fi

# --- cgroup: the task's cgroup v2 id, the inode of its directory ------------
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "$cg2" ] && mkdir "$cg2/trawl-test-$$" 2>/dev/null; then
	begin_all
	want=$(stat -c %i "$cg2/trawl-test-$$")
	check "cgroup: --backend bpf" status 0 "$TRAWL" run --live --backend bpf \
		-e 'tracepoint:syscalls:sys_enter_getppid /comm == "perl"/ { @[cgroup] = count(); }' \
		-- sh -c "echo \$\$ >$cg2/trawl-test-$$/cgroup.procs && exec perl -e 'getppid() for 1 .. $N'"
	check "cgroup: the load's cgroup id ($want)" grep -qx "@\[$want\]: $N" "$T/out"
	rmdir "$cg2/trawl-test-$$"
	check "cgroup: the ftrace back end refuses it" status 1 "$TRAWL" run --live --backend ftrace -d 0.1 \
		-e 'tracepoint:syscalls:sys_enter_getppid { @[cgroup] = count(); }'
	check "cgroup: saying what it is" grep -q "'cgroup' is the task's cgroup (v2) id at the probe" "$T/err"
	check "tracefs and BPF objects as they were" same_all
else
	echo "# skip cgroup: no cgroup2 hierarchy to make a cgroup in"
fi

# --- kernel structs (BTF): casts, members through pointers, enums --------
# curtask's task_struct and its parent's, a syscall's struct pointer into
# the task (nanosleep's rqtp), a kernel enum's constant; the refusals say
# where.
begin_all
cat >"$T/btf.tw" <<'EOF'
tracepoint:syscalls:sys_enter_nanosleep /comm == "perl"/ {
	$t = (struct task_struct *)curtask;
	printf("%d %d %s %s %d.%03d %d\n", $t->pid == tid, $t->real_parent->pid == $t->real_parent->tgid,
	    $t->comm, $t->real_parent->comm, args->rqtp->tv_sec, args->rqtp->tv_nsec / 1000000,
	    TASK_COMM_LEN);
	@se[curtask->se.on_rq] = count();
}
EOF
cat >"$T/nap.pl" <<'EOF'
my $ts = pack("qq", 1, 250000000);
syscall(35, $ts, 0);
EOF
echo "perl $T/nap.pl" >"$T/nap.sh" # (-c splits its command at blanks)
check "btf: --backend bpf" status 0 "$TRAWL" run --live --backend bpf "$T/btf.tw" -c "/bin/sh $T/nap.sh"
check "btf: the members" grep -qx "1 1 perl sh 1.250 16" "$T/out"
check "btf: a member of a struct member" grep -qx "@se\[1\]: 1" "$T/out"
check "btf: no faults" sh -c "! grep -q warning '$T/err'"
check "btf: an unknown member" status 1 "$TRAWL" run --live --backend bpf -d 0.1 \
	-e 'tracepoint:sched:sched_switch { @[curtask->real_parnt] = count(); }'
check "btf: says which, and the nearest" grep -qF "trawl: -e:1:42: struct task_struct has no member 'real_parnt' (did you mean 'real_parent'?)" "$T/err"
check "btf: an unknown struct" status 1 "$TRAWL" run --live --backend bpf -d 0.1 \
	-e 'tracepoint:sched:sched_switch { $s = (struct no_such *)0; }'
check "btf: says which" grep -qF "trawl: -e:1:39: struct no_such is not among the kernel's types (BTF)" "$T/err"
check "btf: '.' of a pointer" status 1 "$TRAWL" run --live --backend bpf -d 0.1 \
	-e 'tracepoint:sched:sched_switch { @[curtask.pid] = count(); }'
check "btf: says '->'" grep -qF "'.pid' needs a struct: a pointer's member is '->pid'" "$T/err"
check "btf: the ftrace back end refuses them" status 1 "$TRAWL" run --live --backend ftrace -d 0.1 "$T/btf.tw"
check "btf: at the construct" grep -qF "btf.tw:2:29: 'curtask' is the task's kernel struct, which only a probe in the kernel can" "$T/err"
check "tracefs and BPF objects as they were" same_all

# --- ksym(): an address named, in the kernel, on the ftrace path, off line -
begin_all
addr=$(awk '$3 == "do_syscall_64" { print $1; exit }' /proc/kallsyms)
cat >"$T/ksym.tw" <<EOF
tracepoint:syscalls:sys_enter_getppid /comm == "perl"/ {
	@k[ksym(0x$addr + 16)] = count();
	@v[comm] = ksym(0x$addr);
	@n = @n + 1;
	if (@n == 1) { printf("%s %s\n", ksym(0x$addr), ksym(1)); }
}
EOF
parity ksym "$T/ksym.tw"
check "ksym: named" grep -qx "@k\[do_syscall_64\]: $N" "$T/ksym.bpf"
check "ksym: a value" grep -qx "@v\[perl\]: do_syscall_64" "$T/ksym.bpf"
check "ksym: printf, and an address no symbol holds" grep -qx "do_syscall_64 0x1" "$T/ksym.bpf"
# ksym()'s text is written out in user space: a comparison of it cannot
# run in the kernel (refused with bpf, run in user space with auto)
check "ksym: a comparison of its text is refused in the kernel" status 1 "$TRAWL" run --live --backend bpf -d 0.1 \
	-e 'tracepoint:syscalls:sys_enter_getppid { $s = ksym(0); if ($s == "0x0") { @ = count(); } }'
check "ksym: says why" grep -qF "comparing ksym()'s or ntop()'s text, which user space writes out" "$T/err"
check "ksym: auto compares it in user space" status 0 "$TRAWL" run --live \
	-e "tracepoint:syscalls:sys_enter_getppid /comm == \"perl\"/ { \$s = ksym(0x$addr); if (\$s == \"do_syscall_64\") { @yes = count(); } }" -c "$LOAD"
check "ksym: there it is the name" grep -qx "@yes: $N" "$T/out"
check "tracefs and BPF objects as they were" same_all

# --- ntop() and bswap(): in the kernel as on the ftrace path and off line ---
begin_all
cat >"$T/ntop.tw" <<'EOF'
tracepoint:syscalls:sys_enter_getppid /comm == "perl"/ {
	@a[ntop(0x0100007f), ntop(AF_INET6, 1), ntop(2, pid & 0)] = count();
	@b[bswap((uint16)0x1234), bswap((uint32)0x12345678), bswap(0x0102030405060708)] = count();
	$p = (uint16)0xabcd;
	@c[ntop(0x0a00000a)] = bswap($p);
}
EOF
parity ntop "$T/ntop.tw"
check "ntop: the texts" grep -qx "@a\[127.0.0.1, 100::, 0.0.0.0\]: $N" "$T/ntop.bpf"
check "bswap: by the value's type" grep -qx "@b\[13330, 2018915346, 578437695752307201\]: $N" "$T/ntop.bpf"
check "ntop: a value's key" grep -qx "@c\[10.0.0.10\]: 52651" "$T/ntop.bpf"
check "tracefs and BPF objects as they were" same_all

# --- a line written in two records by each CPU at once stays whole --------
# (5000 calls each: 10000 lines of two records, well inside the ring
# buffer between two drains)
begin_all
sed 's/20000/5000/' "$T/two.sh" >"$T/two-short.sh"
check "lines: two printfs a line, on both CPUs" status 0 "$TRAWL" run --live --backend bpf \
	-e 'tracepoint:syscalls:sys_enter_getppid /comm == "perl"/ { printf("a%d ", cpu); printf("b%d\n", cpu); }' \
	-c "sh $T/two-short.sh"
check "lines: every one whole" sh -c "! grep -vxE 'a0 b0|a1 b1' '$T/out'"
check "lines: all of them" sh -c "test \$(wc -l <'$T/out') -eq 10000"
check "lines: from both CPUs" sh -c "grep -q 'a0 b0' '$T/out' && grep -q 'a1 b1' '$T/out'"
check "tracefs and BPF objects as they were" same_all

# --- faults: division by zero, a full map ---------------------------------------
begin_all
cat >"$T/faults.tw" <<'EOF'
tracepoint:syscalls:sys_enter_getppid /comm == "perl"/ {
	$z = args.__syscall_nr - args.__syscall_nr;
	@seq = @seq + 1;
	@k[@seq % 5] = count();
	@q = sum(100 / $z);
}
EOF
parity faults "$T/faults.tw" --map-size 3
check "faults: division by zero reported" grep -q 'faults.tw:5:.*division by zero' "$T/faults.bpf.faults"
check "faults: the full map reported" grep -q '@k is full (3 keys' "$T/faults.bpf.faults"
check "tracefs and BPF objects as they were" same_all

# --- exit() in the kernel --------------------------------------------------------
begin_all
cat >"$T/exit.tw" <<'EOF'
tracepoint:syscalls:sys_enter_getppid /comm == "perl"/ {
	@c = count();
	@n = @n + 1;
	if (@n == 100) { printf("bye\n"); exit(); }
}
END { printf("end\n"); }
EOF
parity exit "$T/exit.tw"
check "exit: stops at the 100th call" grep -qx '@c: 100' "$T/exit.bpf"
check "tracefs and BPF objects as they were" same_all

# --- interval probes over the kernel's maps: clear() is exact -------------------
begin_all
cat >"$T/interval.tw" <<'EOF'
tracepoint:syscalls:sys_enter_getppid /comm == "perl"/ { @c = count(); @h = hist(2); }
interval:ms:20 { print(@c); clear(@c); }
EOF
echo 'for (1 .. 40) { getppid() for 1 .. 50; select(undef, undef, undef, 0.005); }' >"$T/slow.pl"
check "interval: bpf" status 0 "$TRAWL" run --live --backend bpf "$T/interval.tw" -c "perl $T/slow.pl"
check "interval: the deltas add up to every call" \
	sh -c "[ \"\$(awk '/^@c: /{s+=\$2} END{print s}' '$T/out')\" = 2000 ]"
check "interval: the histogram is whole" grep -q '^\[2, 4) *2000 ' "$T/out"
check "tracefs and BPF objects as they were" same_all

# --- the task's memory: str() of a syscall's char * argument ---------------------
# perl opens one path a known number of times (absent: ENOENT each time)
# and its script twice (perl itself, then the load); read at the enter
# probe, and kept as a
# pointer in a map for the exit probe as opensnoop does
begin_all
cat >"$T/open.pl" <<EOF
open(my \$f, "<", "$T/absent") for 1 .. 7;
open(my \$g, "<", "$T/open.pl") or die;
EOF
cat >"$T/ustr.tw" <<'EOF'
tracepoint:syscalls:sys_enter_openat /comm == "perl"/ { @paths[str(args.filename)] = count(); @f[tid] = args.filename; }
tracepoint:syscalls:sys_exit_openat /comm == "perl" && @f[tid]/ { @ret[str(@f[tid]), args.ret < 0 ? args.ret : 0] = count(); delete(@f[tid]); }
EOF
check "ustr: auto runs them in the kernel" status 0 "$TRAWL" run --live --explain "$T/ustr.tw" -c "perl $T/open.pl"
cp "$T/out" "$T/ustr.auto"
check "ustr: the plan says the kernel" grep -q 'probe 2 .*kernel (BPF)' "$T/err"
check "ustr: every open's path read" grep -qxF "@paths[$T/absent]: 7" "$T/ustr.auto"
check "ustr: the kept pointer read at the exit" grep -qxF "@ret[$T/absent, -2]: 7" "$T/ustr.auto"
check "ustr: and the one that opened" grep -qxF "@ret[$T/open.pl, 0]: 2" "$T/ustr.auto"
check "ustr: the map of pointers emptied" sh -c "! grep -q '^@f' '$T/ustr.auto'"
check "ustr: --backend bpf the same" status 0 "$TRAWL" run --live --backend bpf "$T/ustr.tw" -c "perl $T/open.pl"
check "ustr: bpf: the same for the load's paths" same_file <(grep -F "$T/" "$T/ustr.auto") <(grep -F "$T/" "$T/out")
check "ustr: --backend ftrace refuses it" status 1 "$TRAWL" run --live --backend ftrace -d 0.1 "$T/ustr.tw"
check "ustr: saying where it is read" grep -qF 'ustr.tw:1:64: str(): the argument is a pointer into the task' "$T/err"
check "ustr: off line refuses it" status 1 "$TRAWL" run "$T/ustr.tw" "$T/agg.dat"
check "ustr: a probe that must stay in user space cannot read it" status 1 "$TRAWL" run --live -d 0.1 \
	-e 'tracepoint:syscalls:sys_enter_openat { @[str(args.filename)] = count(); $x = strcontains(comm, "er"); }'
check "ustr: saying why" grep -q 'reads the task.s memory.*cannot run there: .*strcontains' "$T/err"
check "ustr: the pointer alone is refused" status 1 "$TRAWL" run --live -d 0.1 \
	-e 'tracepoint:syscalls:sys_enter_openat { printf("%s\n", args.filename); }'
check "ustr: pointing at str()" grep -q 'str(args.filename) is its string' "$T/err"
check "tracefs and BPF objects as they were" same_all

# join() of execve's argv: the strings up to its NULL, at most 16, each
# cut at 63 bytes, with the delimiter given
begin_all
cat >"$T/join.tw" <<'EOF'
tracepoint:syscalls:sys_enter_execve /comm == "sh"/ { join(args.argv); join(args.argv, ","); }
EOF
check "join: in the kernel" status 0 "$TRAWL" run --live "$T/join.tw" -- /bin/sh -c '/bin/true one "two three"; /bin/true 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; /bin/true 0123456789012345678901234567890123456789012345678901234567890123456789'
check "join: the strings, by spaces" grep -qxF '/bin/true one two three' "$T/out"
check "join: by the delimiter" grep -qxF '/bin/true,one,two three' "$T/out"
check "join: sixteen at most" grep -qxF '/bin/true 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15' "$T/out"
check "join: each cut at 63 bytes" grep -qxF '/bin/true 012345678901234567890123456789012345678901234567890123456789012' "$T/out"
check "join: --backend ftrace refuses it" status 1 "$TRAWL" run --live --backend ftrace -d 0.1 "$T/join.tw"
check "join: saying where" grep -qF 'join.tw:1:55: join() reads an array of strings from the task' "$T/err"
check "join: a value it is not" status 1 "$TRAWL" run --live -d 0.1 -e 'tracepoint:syscalls:sys_enter_execve { $x = join(args.argv); }'
check "join: so it says" grep -qF 'join() prints the strings: a statement of its own, not a value' "$T/err"
check "tracefs and BPF objects as they were" same_all

# --- refusals and the plan ---------------------------------------------------------
begin_all
check "bpf: a while loop is refused" status 1 "$TRAWL" run --live --backend bpf -d 0.1 \
	-e 'tracepoint:syscalls:sys_enter_getppid { $i = 0; while ($i < 3) { $i++; } }'
check "naming the construct and its line" grep -q -- '-e:1:.*while loops' "$T/err"
check "bpf: strcontains() is refused" status 1 "$TRAWL" run --live --backend bpf -d 0.1 \
	-e 'tracepoint:syscalls:sys_enter_getppid { @ = sum(strcontains(comm, "er")); }'
check "naming it" grep -q 'strcontains()' "$T/err"
check "auto: what cannot run in the kernel stays in user space" status 0 \
	"$TRAWL" run --live --explain -d 0.1 \
	-e 'tracepoint:syscalls:sys_enter_getppid { @a = count(); } tracepoint:syscalls:sys_exit_getppid { @b = sum(strcontains(comm, "er")); }'
check "the plan says which and why" grep -q 'probe 2 .*user space.*strcontains' "$T/err"
check "and runs the rest in the kernel" grep -q 'probe 1 .*kernel (BPF)' "$T/err"
check "auto: probes sharing a map stay together" status 0 \
	"$TRAWL" run --live --explain -d 0.1 \
	-e 'tracepoint:syscalls:sys_enter_getppid { @a = count(); } tracepoint:syscalls:sys_exit_getppid { @a = count(); $x = strcontains(comm, "er"); }'
check "both in user space" grep -q 'probe 1 .*user space.*@a is also used' "$T/err"
check "--backend takes three words" status 1 "$TRAWL" run --live --backend llvm -d 0.1 -e 'BEGIN { }'
check "--backend is for --live" status 1 "$TRAWL" run --backend bpf -e 'BEGIN { }' /etc/hostname
check "tracefs and BPF objects as they were" same_all

# --- endings: -d, SIGINT, SIGKILL ---------------------------------------------------
begin_all
COUNT='tracepoint:syscalls:sys_enter_getppid { @ = count(); } END { printf("end\n"); }'
check "-d ends it, END runs" status 0 "$TRAWL" run --live --backend bpf -d 0.3 -e "$COUNT"
check "END's output" grep -qx end "$T/out"
"$TRAWL" run --live --backend bpf -d 60 -e "$COUNT" >"$T/int.out" 2>&1 &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
check "SIGINT ends it with 0" [ $? = 0 ]
check "after END" grep -qx end "$T/int.out"
"$TRAWL" run --live --backend bpf -d 60 -e "$COUNT" >/dev/null 2>&1 &
pid=$!
sleep 0.5
kill -KILL $pid
wait $pid 2>/dev/null
# a killed run leaves its tracefs instance for the next to remove; its
# BPF objects go with its file descriptors
"$TRAWL" run --live -d 0.05 -e 'BEGIN { }' >/dev/null 2>&1
check "SIGKILL leaves no BPF object" same_all

echo "1..$n"
[ "$fails" = 0 ]
