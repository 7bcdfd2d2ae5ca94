/* SPDX-License-Identifier: MIT */
/*
 * bpftrace's spellings, as its scripts (the .bt tools Debian installs in
 * /usr/sbin) write them: args->field, #include lines and the kernel constants
 * they bring, 1e6, $1, casts, probe, elapsed, print(value), time(); and the
 * clear refusals of what needs the BPF back end (str() of a user pointer, uid,
 * ustack, struct casts).
 */
#include "script-test.h"

/* cpu 0: idle -> a (10) at 100.000000 (idle was R); a -> idle at
 * 100.001000 (a sleeps, S) */
static const char trace[] = "# tracer: nop\n" L(
	"<idle>-0", 0, "100.000000", SW("swapper/0", "0", "R", "a", "10"))
	L("a-10", 0, "100.001000", SW("a", "10", "S", "swapper/0", "0"));

static void fails(const char *prog, int code, const char *msg)
{
	struct run_out o = run(trace, prog);
	cr_assert_eq(o.rc, -code, "rc %d (%s) for: %s", o.rc, o.err.msg, prog);
	cr_assert_str_eq(o.err.msg, msg);
	free(o.text);
}

Test(bpftrace, arrow_fields_include_lines_and_task_states)
{
	struct run_out o = run(
		trace, "#!/usr/bin/env bpftrace\n"
		       "#ifndef BPFTRACE_HAVE_BTF\n"
		       "  #include <linux/sched.h>\n"
		       "#else\n"
		       "#include <sys/socket.h>\n"
		       "#endif\n"
		       "tracepoint:sched:sched_switch\n"
		       "/args->prev_state == TASK_RUNNING/\n"
		       "{ @[args->prev_comm, args.prev_pid] = count(); }\n");
	/* only swapper/0 left running (R = 0); a slept */
	cr_assert_out(o, "\n"
			 "\n"
			 "@[swapper/0, 0]: 1\n");
	free(o.text);
}

Test(bpftrace, constants_exponents_and_casts)
{
	struct run_out o = run(
		trace, "BEGIN { printf(\"%d %d %d %d %d\\n\", 1e6, 2E3, "
		       "SIGKILL, AF_INET6, TASK_UNINTERRUPTIBLE);\n"
		       "printf(\"%d %d %d %d %d\\n\", (uint8)300, (int8)255, "
		       "(int16)0x18000, (uint32)-1, (int64)-7); }");
	cr_assert_out(o, "1000000 2000 9 10 2\n"
			 "44 -1 -32768 4294967295 -7\n");
	free(o.text);
}

/* ntop() as bpftrace's: an int is an IPv4 address in memory order (a
 * __be32), a family first says; bswap() swaps as many bytes as the
 * value's type has (a cast's, a field's, a member's; 8 otherwise) */
Test(bpftrace, ntop_and_bswap)
{
	struct run_out o = run(
		trace, "BEGIN { printf(\"%s %s %s|%x %x %x %x\\n\", "
		       "ntop(0x0100007f), ntop(AF_INET, 0x04030201), "
		       "ntop(AF_INET6, 1), bswap((uint16)0x1234), "
		       "bswap((uint32)0x12345678), bswap(0x0102030405060708), "
		       "bswap((uint8)0x1ff)); $p = (uint16)0xabcd; "
		       "@s[ntop(0x0a00000a)] = bswap($p); }");
	cr_assert_out(o,
		      "127.0.0.1 1.2.3.4 100::|3412 78563412 807060504030201 "
		      "ff\n\n\n"
		      "@s[10.0.0.10]: 52651\n");
	free(o.text);
	fails("BEGIN { @ = ntop(\"x\"); }", TRAWL_ETYPE,
	      "t.tw:1:18: ntop() of a string: only a struct's array of 4 or "
	      "16 bytes (an address) is one");
	fails("BEGIN { @ = ntop(1, 2, 3); }", TRAWL_EPARSE,
	      "t.tw:1:13: ntop() takes an address, or a family and an "
	      "address");
	fails("BEGIN { @ = bswap(\"x\"); }", TRAWL_ETYPE,
	      "t.tw:1:19: bswap needs an integer, not a string");
}

Test(bpftrace, positional_parameters_are_numbers_or_strings)
{
	const char *params[] = {"10", "0x20", "bash"};
	struct run_out o =
		run_params(trace,
			   "BEGIN { printf(\"%d %d %s %d %d\\n\", $1, $2, $3, "
			   "$4, $#); print(str($3)); }",
			   0, 0, params, 3);
	/* $4 is not given: 0, as in bpftrace */
	cr_assert_out(o, "10 32 bash 0 3\nbash\n");
	free(o.text);
}

Test(bpftrace, probe_elapsed_and_print_of_values)
{
	struct run_out o =
		run(trace, "sched:sched_switch { printf(\"%s %d\\n\", "
			   "probe, elapsed); print(args->next_pid); "
			   "print(\"x\"); }\n"
			   "BEGIN { printf(\"%s\\n\", probe); }");
	/* elapsed counts from the first event, 1 ms before the second */
	cr_assert_out(o, "BEGIN\n"
			 "tracepoint:sched:sched_switch 0\n10\nx\n"
			 "tracepoint:sched:sched_switch 1000000\n0\nx\n");
	free(o.text);
}

Test(bpftrace, time_prints_the_wall_clock_by_strftime)
{
	struct run_out o = run(trace, "BEGIN { time(\"[%Y]\"); time(); }");
	cr_assert_eq(o.rc, 0, "%s", o.err.msg);
	/* "[YYYY]HH:MM:SS\n" */
	cr_assert_eq(strlen(o.text), 15, "%s", o.text);
	cr_assert(o.text[0] == '[' && o.text[5] == ']' && o.text[8] == ':' &&
			  o.text[14] == '\n',
		  "%s", o.text);
	free(o.text);
}

Test(bpftrace, strftime_of_a_trace_time)
{
	/* off line the trace's clock (ftrace's counts from boot), in UTC:
	 * the fixture's first event at 100.000000 s, the second 1 ms later;
	 * a string: a map key, printed, compared */
	struct run_out o = run(
		trace, "tracepoint:sched:sched_switch { "
		       "@[strftime(\"%H:%M:%S\", nsecs)] = count(); "
		       "printf(\"%s|\\n\", strftime(\"%j %T\", nsecs + "
		       "86400000000000)); }\n"
		       "END { printf(\"%d\\n\", strftime(\"%S\", 61000000000) "
		       "== \"01\"); }");
	cr_assert_out(o, "002 00:01:40|\n002 00:01:40|\n1\n\n\n"
			 "@[00:01:40]: 2\n");
	free(o.text);
}

Test(bpftrace, what_needs_the_bpf_back_end_says_so)
{
	fails("tracepoint:sched:sched_switch { @u = uid; }", TRAWL_ETYPE,
	      "t.tw:1:38: 'uid' is the task's user id at the probe, which no "
	      "event the ftrace back end records carries: it is read in a "
	      "live run with the BPF back end (--live, --backend auto or "
	      "bpf)");
	fails("tracepoint:sched:sched_switch { @g[gid] = count(); }",
	      TRAWL_ETYPE,
	      "t.tw:1:36: 'gid' is the task's group id at the probe, which "
	      "no event the ftrace back end records carries: it is read in a "
	      "live run with the BPF back end (--live, --backend auto or "
	      "bpf)");
	fails("BEGIN { printf(\"%s\\n\", ustack); }", TRAWL_EPARSE,
	      "t.tw:1:24: 'ustack' is not in the events the ftrace back end "
	      "records; it needs the BPF back end (issue 24)");
	fails("BEGIN { $a = kaddr(\"avenrun\"); }", TRAWL_ETYPE,
	      "t.tw:1:14: kaddr(\"avenrun\") is an address in the running "
	      "kernel, whose memory only a probe in the kernel can read: a "
	      "live run with the BPF back end (--live, --backend auto or "
	      "bpf)");
	fails("BEGIN { $a = *1234; }", TRAWL_ETYPE,
	      "t.tw:1:14: '*' reads the 8 bytes of kernel memory at an "
	      "address, which only a probe in the kernel can: it is read in "
	      "a live run with the BPF back end (--live, --backend auto or "
	      "bpf); a trace has only the events' fields");
	fails("BEGIN { $a = strftime(nsecs); }", TRAWL_EPARSE,
	      "t.tw:1:14: strftime() takes a format, a string literal, and a "
	      "time in ns (strftime(\"%H:%M:%S\", nsecs))");
	fails("sched_switch { printf(\"%s\", username); }", TRAWL_ETYPE,
	      "t.tw:1:29: 'username' is the task's user's name at the probe, "
	      "which no event the ftrace back end records carries: it is "
	      "read in a live run with the BPF back end (--live, --backend "
	      "auto or bpf)");
	fails("sched_switch { @[cgroup] = count(); }", TRAWL_ETYPE,
	      "t.tw:1:18: 'cgroup' is the task's cgroup (v2) id at the probe, "
	      "which no event the ftrace back end records carries: it is read "
	      "in a live run with the BPF back end (--live, --backend auto or "
	      "bpf)");
	fails("BEGIN { $s = (struct sock *)0; }", TRAWL_ETYPE,
	      "t.tw:1:15: a cast to a struct reads kernel memory through its "
	      "pointer, which only a probe in the kernel can: it is read in "
	      "a live run with the BPF back end (--live, --backend auto or "
	      "bpf); a trace has only the events' fields");
	fails("sched:sched_switch { @ = args->prev_comm->len; }", TRAWL_ETYPE,
	      "t.tw:1:41: '->' reads memory through a pointer, which only a "
	      "probe in the kernel can: it is read in a live run with the BPF "
	      "back end (--live, --backend auto or bpf); a trace has only "
	      "the events' fields");
	fails("sched:sched_switch { @[curtask->pid] = count(); }", TRAWL_ETYPE,
	      "t.tw:1:24: 'curtask' is the task's kernel struct, which only a "
	      "probe in the kernel can: it is read in a live run with the BPF "
	      "back end (--live, --backend auto or bpf); a trace has only "
	      "the events' fields");
	fails("BEGIN { $s = (struct sock 0); }", TRAWL_EPARSE,
	      "t.tw:1:27: a cast to a struct is to a pointer: (struct sock "
	      "*)");
	fails("sched:sched_switch { @ = str(args->prev_pid); }", TRAWL_ETYPE,
	      "t.tw:1:26: str(): the value is a number, not a syscall's "
	      "char * argument (args.NAME, or a map holding one), whose "
	      "string a live run with the BPF back end reads");
	fails("syscalls:sys_enter_execve { join(args->argv); }", TRAWL_ETYPE,
	      "t.tw:1:29: join() reads an array of strings from the task's "
	      "memory, which a trace does not hold (a syscall event has the "
	      "pointer): it is read in a live run with the BPF back end "
	      "(--live, --backend auto or bpf)");
	fails("syscalls:sys_enter_execve { $a = join(args->argv); }",
	      TRAWL_EPARSE,
	      "t.tw:1:34: join() prints the strings: a statement of its own, "
	      "not a value");
	fails("syscalls:sys_enter_openat { @[str(args->filename)] = "
	      "count(); }",
	      TRAWL_ETYPE,
	      "t.tw:1:31: str(): the argument is a pointer into the task's "
	      "memory, which a trace does not hold (a syscall event has the "
	      "pointer, not the string); it is read in a live run with the "
	      "BPF back end (--live, --backend auto or bpf)");
}

Test(bpftrace, preprocessor_and_positional_errors)
{
	fails("#define N 5\nBEGIN { }", TRAWL_EPARSE,
	      "t.tw:1:1: #define: only #include and #if/#ifdef/#ifndef/"
	      "#else/#endif lines are accepted (and skipped: there is no C "
	      "preprocessor; kernel constants are known by name)");
	fails("BEGIN { @x = $0; }", TRAWL_EPARSE,
	      "t.tw:1:14: '$0': a positional parameter is $1, $2 ... and a "
	      "variable name starts with a letter");
	fails("BEGIN { @x = $1x; }", TRAWL_EPARSE,
	      "t.tw:1:14: '$1x': a positional parameter is $1, $2 ... and a "
	      "variable name starts with a letter");
	fails("BEGIN { @x = 1e400; }", TRAWL_EPARSE,
	      "t.tw:1:14: number too large");
	fails("BEGIN { time(5); }", TRAWL_EPARSE,
	      "t.tw:1:9: time() takes a strftime format string "
	      "(time(\"%H:%M:%S \"))");
}

Test(bpftrace, printf_widths_pointers_stars_and_32_bit_unsigned)
{
	struct run_out o =
		run(trace,
		    "BEGIN { printf(\"[%p] [%p] [%-8p] [%*d] [%-*d] [%r]\\n\", "
		    "0, 4096, 0, 5, 42, 4, 1, \"a\\tb\");\n"
		    "printf(\"%u %x %lu %d %u\\n\", -1, -1, -1, -1, "
		    "5000000000); }");
	/* %u and %x of a negative 32-bit value: 32 bits, as bpftrace's
	 * libc printf of an int; with l, 64 */
	cr_assert_out(o, "[(nil)] [0x1000] [(nil)   ] [   42] [1   ] "
			 "[a\\x09b]\n"
			 "4294967295 ffffffff 18446744073709551615 -1 "
			 "5000000000\n");
	free(o.text);
}

Test(bpftrace, printf_wide_widths_keep_the_value_and_are_bounded)
{
	/* a width of 600 is honoured (bpftrace's output); 999999999 is cut
	 * to 4096 rather than writing a gigabyte (it took seconds) */
	struct run_out o = run(trace, "BEGIN { printf(\"%600d|\\n\", 5); "
				      "printf(\"%999999999d|\\n\", 7); "
				      "printf(\"%-700s|\\n\", \"s\"); "
				      "printf(\"%.5000d|\\n\", 1); }");
	cr_assert_eq(o.rc, 0, "%s", o.err.msg);
	const char *l1 = o.text, *l2 = strchr(l1, '\n') + 1;
	const char *l3 = strchr(l2, '\n') + 1, *l4 = strchr(l3, '\n') + 1;
	cr_assert_eq(l2 - l1, 602);
	cr_assert(!strncmp(l2 - 3, "5|", 2));
	cr_assert_eq(l3 - l2, 4098);
	cr_assert(!strncmp(l3 - 3, "7|", 2));
	cr_assert_eq(l4 - l3, 702);
	cr_assert_eq(l3[0], 's');
	cr_assert_eq(strlen(l4), 4098);
	cr_assert(!strncmp(l4 + 4094, "01|\n", 4));
	free(o.text);
}

Test(bpftrace, other_probe_types_say_what_this_back_end_lacks)
{
	fails("kprobe:do_nanosleep { }", TRAWL_ENOENT,
	      "t.tw:1:1: 'kprobe:do_nanosleep': kernel function probes are "
	      "not among trawl's probes yet (they need kprobe_events, or the "
	      "BPF back end of issue 24); tracepoints are "
	      "(tracepoint:SYS:EVENT)");
	fails("uprobe:/bin/bash:readline { }", TRAWL_EUNSUPPORTED,
	      "t.tw:1:1: 'uprobe:/bin/bash:readline' probes a program's "
	      "function, which the BPF back end does in a live run (--live, "
	      "--backend auto or bpf); a trace holds only its events");
	fails("usdt:/bin/bash:probe { }", TRAWL_ENOENT,
	      "t.tw:1:1: 'usdt:/bin/bash:probe': USDT probes are not among "
	      "trawl's probes yet; uprobe:PATH:FUNC and tracepoints are");
	fails("uprobe:/bin/bash { }", TRAWL_EPARSE,
	      "t.tw:1:1: cannot read 'uprobe:/bin/bash' (uprobe:PATH:FUNC, "
	      "uretprobe:/bin/bash:readline)");
	fails("BEGIN { }\nprofile:hz:99 { }", TRAWL_EUNSUPPORTED,
	      "t.tw:2:1: 'profile:hz:99' is a perf event, which a probe in "
	      "the kernel samples: a live run with the BPF back end opens it "
	      "(--live, --backend auto or bpf); a trace holds only its events "
	      "(a perf.data's samples are perf:cpu_clock ... events)");
	fails("software:faults:0 { }", TRAWL_EPARSE,
	      "t.tw:1:1: cannot read 'software:faults:0' "
	      "(software:EVENT[:COUNT], EVENT one of cpu-clock, task-clock, "
	      "page-faults, context-switches, cpu-migrations, minor-faults, "
	      "major-faults, alignment-faults, emulation-faults, dummy, "
	      "bpf-output)");
	fails("profile:99 { }", TRAWL_EPARSE,
	      "t.tw:1:1: cannot read 'profile:99' (profile:hz:99, "
	      "profile:ms:10, profile:s:1, profile:us:500)");
	fails("hardware:cycles:1000 { }", TRAWL_ENOENT,
	      "t.tw:1:1: 'hardware:cycles:1000': hardware probes are not "
	      "among trawl's probes yet; profile:, software:, interval: and "
	      "tracepoints are (profile and software live, with the BPF back "
	      "end)");
}

Test(bpftrace, a_syscall_string_argument_is_a_user_pointer_and_says_so)
{
	/* opensnoop's @filename[tid] = args->filename: the event holds the
	 * pointer; it printed as "0x55cc..." and never matched a string */
	fails("syscalls:sys_enter_openat { @f[tid] = args->filename; }",
	      TRAWL_ETYPE,
	      "t.tw:1:45: args.filename is a pointer into the task's memory: "
	      "a trace holds the pointer, not the string; str(args.filename) "
	      "reads it in a live run with the BPF back end (--live, "
	      "--backend auto or bpf)");
	/* a kernel's char array is a string already: str() is itself */
	struct run_out o =
		run(trace, "sched:sched_switch "
			   "/str(args->prev_comm) == \"a\"/ "
			   "{ printf(\"%s\\n\", str(args.prev_comm)); }");
	cr_assert_out(o, "a\n");
	free(o.text);
}

Test(bpftrace, unroll_repeats_a_statement)
{
	struct run_out o = run(
		trace, "BEGIN { $i = 0; unroll(5) { $i++; printf(\"%d \", "
		       "$i); } unroll (3) printf(\"x\"); printf(\"\\n\"); }");
	cr_assert_out(o, "1 2 3 4 5 xxx\n");
	free(o.text);
	fails("BEGIN { unroll(101) { } }", TRAWL_EPARSE,
	      "t.tw:1:16: unroll takes a number from 1 to 100");
	fails("BEGIN { unroll(100) { unroll(100) { unroll(2) { } } } }",
	      TRAWL_ELIMIT,
	      "t.tw:1:44: unroll: more than 10000 copies in all (nested "
	      "unrolls multiply)");
}

Test(bpftrace, zero_keeps_the_keys_with_values_of_zero)
{
	/* switches by prev_comm: swapper/0 and a; zero() then one more
	 * count for a */
	struct run_out o =
		run(trace, "sched:sched_switch { @c[args.prev_comm] = count(); "
			   "@st = stats(args.prev_pid); @h = hist(1); } "
			   "END { zero(@c); @c[\"a\"] = count(); zero(@st); "
			   "zero(@h); }");
	cr_assert_out(o, "\n\n@c[swapper/0]: 0\n@c[a]: 1\n@h: \n\n"
			 "@st: count 0, average 0, total 0\n\n");
	free(o.text);
}
