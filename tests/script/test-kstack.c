/* SPDX-License-Identifier: MIT */
/*
 * kstack off the kernel, over a real recording (stacktrace.dat: trace-cmd
 * record -e syscalls:sys_enter_getppid -R stacktrace -e
 * sched:sched_process_fork -R stacktrace on this project's kernel 6.18,
 * with its kallsyms): the stack ftrace wrote after each event, its
 * tracing frames left out, named from the file's symbols; and what it
 * refuses.
 */
#include "script-test.h"

static struct run_out run_file(const char *name, const char *prog,
			       unsigned flags)
{
	struct run_out o = {0};
	o.text = calloc(1, 1);
	o.cap = 1;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", getenv("TRAWL_FIXTURES"), name);
	trawl_trace *t = trawl_open(path, NULL, &o.err);
	cr_assert(t, "%s", o.err.msg);
	return run_on(t, o, prog, flags, 0, NULL, 0);
}

Test(kstack, keys_are_the_recorded_stacks_without_the_tracing_frames)
{
	struct run_out o = run_file(
		"stacktrace.dat",
		"tracepoint:syscalls:sys_enter_getppid { @[kstack] = count(); "
		"@two[comm, kstack(2)] = count(); }\n"
		"tracepoint:sched:sched_process_fork { @f[kstack(perf, 2)] = "
		"count(); }",
		0);
	cr_assert_out(o, "\n\n"
			 "@[\n"
			 "    syscall_trace_enter+384\n"
			 "    do_syscall_64+527\n"
			 "    entry_SYSCALL_64_after_hwframe+118\n"
			 "]: 3\n"
			 "@f[\n"
			 "\tffffffff8135f93a kernel_clone+650\n"
			 "\tffffffff8135fb4d __do_sys_clone+141\n"
			 "]: 1\n"
			 "@two[perl, \n"
			 "    syscall_trace_enter+384\n"
			 "    do_syscall_64+527\n"
			 "]: 3\n");
	cr_assert_str_eq(o.faults, "");
	free(o.text);
}

Test(kstack, values_printf_and_json)
{
	struct run_out o = run_file(
		"stacktrace.dat",
		"tracepoint:sched:sched_process_fork { @s[tid] = kstack(2); "
		"$k = kstack(1); printf(\"<%s>\\n\", $k); }",
		0);
	cr_assert_out(o, "<\n"
			 "        kernel_clone+650\n"
			 ">\n"
			 "\n\n"
			 "@s[14359]: \n"
			 "        kernel_clone+650\n"
			 "        __do_sys_clone+141\n"
			 "\n");
	free(o.text);
	o = run_file("stacktrace.dat",
		     "tracepoint:syscalls:sys_enter_getppid { @[kstack(2)] = "
		     "count(); }",
		     TRAWL_SCRIPT_JSON);
	cr_assert_eq(o.rc, 0, "%s", o.err.msg);
	cr_assert(strstr(o.text, "[\"syscall_trace_enter+384\","
				 "\"do_syscall_64+527\"]"),
		  "%s", o.text);
	free(o.text);
}

Test(kstack, an_event_recorded_without_its_stack_is_a_fault)
{
	/* pair-broad.dat: recorded without the stacktrace trigger */
	struct run_out o = run_file(
		"pair-broad.dat",
		"sched:sched_switch { @[kstack] = count(); exit(); }", 0);
	cr_assert_out(o, "\n\n@[\n]: 1\n");
	cr_assert(strstr(o.faults, "t.tw:1:24: probe sched:sched_switch: "
				   "kstack: no kernel stack was recorded "
				   "after this event"),
		  "%s", o.faults);
	free(o.text);
}

static void fails(const char *prog, int code, const char *msg)
{
	struct run_out o = run_file("stacktrace.dat", prog, 0);
	cr_assert_eq(o.rc, -code, "rc %d (%s) for: %s", o.rc, o.err.msg, prog);
	cr_assert_str_eq(o.err.msg, msg);
	free(o.text);
}

Test(kstack, what_it_refuses)
{
	fails("BEGIN { printf(\"%s\\n\", kstack); }", TRAWL_EPARSE,
	      "t.tw:1:24: 'kstack' is only known in event probes (and the "
	      "task's context in profile and software probes)");
	fails("sched:sched_process_fork { @[kstack(0)] = count(); }",
	      TRAWL_EPARSE, "t.tw:1:37: kstack's limit is 1 to 127 frames");
	fails("sched:sched_process_fork { @[kstack(raw)] = count(); }",
	      TRAWL_EPARSE,
	      "t.tw:1:37: expected bpftrace or perf (kstack's mode), found "
	      "'raw'");
	fails("sched:sched_process_fork { @x = kstack + 1; }", TRAWL_ETYPE,
	      "t.tw:1:33: + needs an integer, not a kstack");
	fails("sched:sched_process_fork { @[kstack] = count(); "
	      "@[kstack(3)] = count(); }",
	      TRAWL_ETYPE,
	      "t.tw:1:51: @: key part 1 is a kstack, not a kstack (of another "
	      "limit or mode)");
	fails("sched:sched_process_fork { @s = kstack; @s = 1; }", TRAWL_ETYPE,
	      "t.tw:1:41: @s holds kstack values, not integer values");
}

/* perf record -g's callchains are the stacks ftrace writes after an
 * event (lib/perf/perf-synth.c): the same scripts on a perf.data. The
 * frames are named from this machine's kallsyms only on the boot that
 * recorded the fixture, so the answer is checked by its counts. */
Test(kstack, keys_from_a_perf_data_callchains)
{
	struct run_out o = run_file(
		"perf-g.perf",
		"tracepoint:sched:sched_switch { @n = count(); "
		"@k[kstack(1)] = count(); $s = kstack; @total = @total + 1; }\n"
		"perf:cpu_clock { @clock = count(); @c[comm, kstack] = "
		"count(); }\n"
		"END { print(@n); print(@clock); }",
		0);
	cr_assert_eq(o.rc, 0, "%s", o.err.msg);
	cr_assert(strstr(o.text, "@n: 14\n"), "%s", o.text);
	cr_assert(strstr(o.text, "@clock: 46\n"), "%s", o.text);
	cr_assert(strstr(o.text, "@k[\n"), "%s", o.text);
	cr_assert_str_eq(o.faults, "", "every sample had its stack");
	free(o.text);
}

/* ksym(): the trace's kernel symbol holding an address (a trace.dat's
 * kallsyms), as trace-cmd report names workqueue_execute_start's
 * function on the same file; an address none holds is 0x... */
Test(kstack, ksym_names_addresses_from_the_trace)
{
	struct run_out o = run_file(
		"tc.dat",
		"workqueue:workqueue_execute_start { @[ksym(args.function)] = "
		"count(); }\n"
		"END { printf(\"%s|%s\\n\", ksym(0), ksym(1)); }",
		0);
	cr_assert_eq(o.rc, 0, "%s", o.err.msg);
	cr_assert_out(o, "0x0|0x1\n\n\n"
			 "@[blk_mq_run_work_fn]: 1\n"
			 "@[vmstat_shepherd]: 1\n"
			 "@[vmstat_update]: 1\n"
			 "@[blk_mq_requeue_work]: 3\n"
			 "@[ext4_end_io_rsv_work]: 3\n"
			 "@[free_filter_list_work]: 34\n");
	free(o.text);
}

/* A printf of as many unnamed ksym()s as it takes arguments: each keeps
 * its own text (the texts are kept for as many at once). */
Test(kstack, ksym_texts_of_one_printf_are_all_kept)
{
	struct run_out o = run_file(
		"tc.dat",
		"BEGIN { printf(\"%s %s %s %s %s %s %s %s %s %s %s %s\\n\", "
		"ksym(0), ksym(1), ksym(2), ksym(3), ksym(4), ksym(5), "
		"ksym(6), ksym(7), ksym(8), ksym(9), ksym(10), ksym(11)); "
		"exit(); }",
		0);
	cr_assert_eq(o.rc, 0, "%s", o.err.msg);
	cr_assert_out(o, "0x0 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8 0x9 0xa 0xb\n");
	free(o.text);
}
