/* SPDX-License-Identifier: MIT */
/*
 * The script language end to end on a hand-made trace: what a program
 * prints, its errors (with line and column) and its runtime faults. The
 * expected answers are worked out by hand next to the trace.
 */
#include "script-test.h"

/*
 * cpu 0: idle -> a (10) at .000000; a wakes b (20) at .000100; a sleeps
 *        at .001000; a is woken at .002000 and back in at .006500.
 * cpu 1: idle -> b at .000300 (b waited 200 us); b -> c (30) at .002500
 *        (b preempted, R); c -> b at 101.500000 (c in D).
 * switches by prev_comm: swapper/0 2, a 1, swapper/1 1, b 1, c 1.
 * wakeup latency: b 200000 ns, a 4500000 ns.
 */
static const char trace[] = "# tracer: nop\n" L(
	"<idle>-0", 0, "100.000000",
	SW("swapper/0", "0", "R", "a", "10")) L("a-10", 0, "100.000100",
						WAKING("b", "20", "001"))
	L("<idle>-0", 1, "100.000300", SW("swapper/1", "0", "R", "b", "20")) L(
		"a-10", 0, "100.001000", SW("a", "10", "S", "swapper/0", "0"))
		L("b-20", 1, "100.002000", WAKING("a", "10", "000")) L(
			"b-20", 1, "100.002500", SW("b", "20", "R", "c", "30"))
			L("<idle>-0", 0, "100.006500",
			  SW("swapper/0", "0", "R", "a", "10"))
				L("c-30", 1, "101.500000",
				  SW("c", "30", "D", "b", "20"));

Test(script, counts_by_string_key_sorted_by_value)
{
	struct run_out o = run(
		trace, "sched:sched_switch { @[args.prev_comm] = count(); }");
	cr_assert_out(o, "\n"
			 "\n"
			 "@[a]: 1\n"
			 "@[b]: 1\n"
			 "@[c]: 1\n"
			 "@[swapper/1]: 1\n"
			 "@[swapper/0]: 2\n");
	free(o.text);
}

Test(script, wakeup_latency_from_waking_to_switch)
{
	struct run_out o =
		run(trace, "sched:sched_waking { @start[args.pid] = ts; }\n"
			   "sched:sched_switch /@start[args.next_pid]/ {\n"
			   "  @lat[args.next_comm] = sum(ts - "
			   "@start[args.next_pid]);\n"
			   "  delete(@start[args.next_pid]);\n"
			   "}\n"
			   "END { clear(@start); }\n");
	cr_assert_out(o, "\n"
			 "\n"
			 "@lat[b]: 200000\n"
			 "@lat[a]: 4500000\n");
	free(o.text);
}

Test(script, predicates_context_and_tuple_keys)
{
	struct run_out o = run(
		trace, "sched:sched_switch /args.prev_state != 0 && "
		       "(args.prev_pid / 10) >= 1/ {\n"
		       "  @[cpu, args.prev_comm, args.prev_state] = count();\n"
		       "}");
	/* a (S = 1) on cpu 0, b (R+? no: R is 0, not counted), c (D = 2) */
	cr_assert_out(o, "\n"
			 "\n"
			 "@[0, a, 1]: 1\n"
			 "@[1, c, 2]: 1\n");
	free(o.text);
}

Test(script, hist_prints_power_of_two_buckets_like_bpftrace)
{
	struct run_out o = run(trace, "BEGIN { @h = hist(0); @h = hist(1); "
				      "@h = hist(3); @h = hist(3); "
				      "@h = hist(1500); @h = hist(-5); }");
	cr_assert_out(o,
		      "\n"
		      "\n"
		      "@h: \n"
		      "(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@    "
		      "                      |\n"
		      "[0]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@    "
		      "                      |\n"
		      "[1]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@    "
		      "                      |\n"
		      "[2, 4)                 2 "
		      "|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		      "[4, 8)                 0 |                              "
		      "                      |\n"
		      "[8, 16)                0 |                              "
		      "                      |\n"
		      "[16, 32)               0 |                              "
		      "                      |\n"
		      "[32, 64)               0 |                              "
		      "                      |\n"
		      "[64, 128)              0 |                              "
		      "                      |\n"
		      "[128, 256)             0 |                              "
		      "                      |\n"
		      "[256, 512)             0 |                              "
		      "                      |\n"
		      "[512, 1K)              0 |                              "
		      "                      |\n"
		      "[1K, 2K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@    "
		      "                      |\n"
		      "\n");
	free(o.text);
}

Test(script, lhist_has_open_ends_and_linear_buckets)
{
	struct run_out o = run(trace, "BEGIN { @l = lhist(-1, 0, 30, 10); "
				      "@l = lhist(15, 0, 30, 10); "
				      "@l = lhist(30, 0, 30, 10); }");
	cr_assert_out(o,
		      "\n"
		      "\n"
		      "@l: \n"
		      "(..., 0)               1 "
		      "|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		      "[0, 10)                0 |                              "
		      "                      |\n"
		      "[10, 20)               1 "
		      "|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		      "[20, 30)               0 |                              "
		      "                      |\n"
		      "[30, ...)              1 "
		      "|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		      "\n");
	free(o.text);
}

Test(script, aggregates_min_max_avg_stats)
{
	struct run_out o = run(
		trace, "sched:sched_switch { @mn = min(args.next_pid); "
		       "@mx = max(args.next_pid); @av = avg(args.next_pid); "
		       "@st = stats(args.next_pid); }");
	/* next_pid: 10 20 0 30 10 20 -> min 0, max 30, sum 90, avg 15 */
	cr_assert_out(o, "\n"
			 "\n"
			 "@av: 15\n"
			 "\n"
			 "@mn: 0\n"
			 "@mx: 30\n"
			 "@st: count 6, average 15, total 90\n"
			 "\n");
	free(o.text);
}

Test(script, printf_conversions_and_escapes)
{
	struct run_out o =
		run(trace,
		    "BEGIN { printf(\"%s|%5d|%-5d|%x|%08X|%c|%%|%.3s|%u\\n\", "
		    "\"str\", 42, -7, 255, 48879, 65, \"abcdef\", 3); "
		    "printf(\"tab\\there \\\"q\\\" \\x41\\n\"); }");
	cr_assert_out(o, "str|   42|-7   |ff|0000BEEF|A|%|abc|3\n"
			 "tab\there \"q\" A\n");
	free(o.text);
}

Test(script, integer_and_string_operations)
{
	struct run_out o = run(
		trace,
		"BEGIN { $a = 7; $b = -2; "
		"printf(\"%d %d %d %d %d %d %d %d %d %d\\n\", $a + $b, $a - $b,"
		" $a * $b, $a / $b, $a % $b, $a << 2, $a >> 1, $a & 3, $a | 8,"
		" $a ^ 1);"
		"printf(\"%d %d\\n\", $b >> 1, -16 >> 2);"
		"printf(\"%d %d %d %d %d\\n\", ~0, !0, -$a, $a > $b ? 1 : 2, "
		"$a == 7 && $b == -2 || 0);"
		"$s = \"hello\"; "
		"printf(\"%d %d %d %d %d %d\\n\", strlen($s), $s == \"hello\", "
		"$s < \"help\", strncmp($s, \"help\", 3), strcontains($s, "
		"\"ll\"),"
		" strcontains($s, \"x\")); }");
	/* >> is logical, as bpftrace's */
	cr_assert_out(o, "5 9 -14 -3 1 28 3 3 15 6\n"
			 "9223372036854775807 4611686018427387900\n"
			 "-1 1 -7 1 1\n"
			 "5 1 1 0 1 0\n");
	free(o.text);
}

Test(script, bounded_loops_with_break_and_continue)
{
	struct run_out o = run(
		trace, "BEGIN { $i = 0; $sum = 0; while ($i < 10) { $i++; "
		       "if ($i % 2 == 0) { continue; } if ($i > 7) { break; } "
		       "$sum += $i; } printf(\"%d %d\\n\", $i, $sum); }");
	/* 1 + 3 + 5 + 7 = 16, stops at 9 */
	cr_assert_out(o, "9 16\n");
	free(o.text);
}

Test(script, a_loop_over_its_bound_is_a_fault_not_a_hang)
{
	struct run_out o = run(trace, "BEGIN { $i = 0; while (1) { $i++; } }"
				      "END { printf(\"end\\n\"); }");
	cr_assert_out(o, "end\n");
	cr_assert(strstr(o.faults, "t.tw:1:"), "%s", o.faults);
	cr_assert(strstr(o.faults, "probe BEGIN: a loop ran over its bound"),
		  "%s", o.faults);
	free(o.text);
}

Test(script, division_by_zero_names_the_probe_and_the_run_goes_on)
{
	struct run_out o = run(trace, "sched:sched_switch { @n = count(); "
				      "@x = 10 / args.prev_pid; }");
	/* prev_pid is 0 for the three switches from idle; the last one is
	 * from c: 10 / 30 */
	cr_assert_out(o, "\n\n@n: 6\n@x: 0\n");
	cr_assert_str_eq(o.faults, "t.tw:1:44: probe sched:sched_switch: "
				   "division by zero (3)\n");
	free(o.text);
}

Test(script, a_full_map_drops_updates_and_says_so)
{
	struct run_out o = run_opts(
		trace, "sched:sched_switch { @[args.next_comm] = count(); }", 0,
		2);
	/* a, b, then swapper/0, c, a, b: only a and b fit */
	cr_assert_out(o, "\n"
			 "\n"
			 "@[a]: 2\n"
			 "@[b]: 2\n");
	cr_assert(strstr(o.faults, "@ is full (2 keys, --map-size): update "
				   "dropped (2)"),
		  "%s", o.faults);
	free(o.text);
}

Test(script, exit_stops_the_trace_and_end_still_runs)
{
	struct run_out o = run(trace, "sched:sched_switch { @n = count(); "
				      "if (@n == 2) { exit(); } }"
				      "END { printf(\"at %d\\n\", ts); }");
	cr_assert_out(o, "at 100000300000\n\n\n@n: 2\n");
	free(o.text);
}

Test(script, interval_probes_fire_on_trace_time)
{
	struct run_out o = run(trace, "interval:1ms { printf(\"%d %d\\n\", "
				      "ts, @n); } "
				      "sched:sched_switch { @n = count(); }");
	/* first event at 100.000000: boundaries .001 .002 ... .006 before
	 * the event at .0065 (switches seen by then: 2, 3, 3, 4, 4, 4), then
	 * 1.5 s of boundaries up to 101.5 (5 switches by then) */
	const char *want = "100001000000 2\n100002000000 3\n"
			   "100003000000 4\n100004000000 4\n"
			   "100005000000 4\n100006000000 4\n"
			   "100007000000 5\n";
	cr_assert_eq(o.rc, 0, "%s", o.err.msg);
	cr_assert(strncmp(o.text, want, strlen(want)) == 0, "%s", o.text);
	/* .001 .. 101.500: 1500 firings, then two newlines and the map */
	size_t lines = 0;
	for (const char *p = o.text; *p; p++)
		lines += *p == '\n';
	cr_assert_eq(lines, 1500 + 3, "%zu lines", lines);
	free(o.text);
}

Test(script, print_top_n_and_clear)
{
	struct run_out o =
		run(trace, "sched:sched_switch { @[args.prev_comm] = count(); }"
			   "END { print(@, 2); clear(@); }");
	cr_assert_out(o, "@[swapper/1]: 1\n"
			 "@[swapper/0]: 2\n");
	free(o.text);
}

Test(script, globs_and_lists_match_events)
{
	struct run_out o = run(trace, "sched:sched_wak*, sched:sched_switch "
				      "{ @[event] = count(); }");
	cr_assert_out(o, "\n"
			 "\n"
			 "@[sched_waking]: 2\n"
			 "@[sched_switch]: 6\n");
	free(o.text);
}

Test(script, json_output_has_maps_by_name_and_the_printf_text)
{
	struct run_out o = run_opts(
		trace,
		"BEGIN { printf(\"hi \\\"x\\\"\\n\"); } "
		"sched:sched_switch { @c[args.prev_comm, cpu] = count(); "
		"@h = hist(args.next_pid); @a = avg(args.next_pid); "
		"@s = stats(args.next_pid); @str[cpu] = args.next_comm; }",
		TRAWL_SCRIPT_JSON, 0);
	cr_assert_out(
		o, "{\"output\":\"hi \\\"x\\\"\\n\",\n"
		   "\"@c\":[{\"key\":[\"a\",0],\"value\":1},"
		   "{\"key\":[\"b\",1],\"value\":1},{\"key\":[\"c\",1],"
		   "\"value\":1},"
		   "{\"key\":[\"swapper/1\",1],\"value\":1},"
		   "{\"key\":[\"swapper/0\",0],\"value\":2}],\n"
		   "\"@h\":[{\"key\":null,\"value\":[{\"min\":0,\"max\":0,"
		   "\"count\":1},{\"min\":1,\"max\":1,\"count\":0},"
		   "{\"min\":2,\"max\":3,\"count\":0},{\"min\":4,\"max\":7,"
		   "\"count\":0},{\"min\":8,\"max\":15,\"count\":2},"
		   "{\"min\":16,\"max\":31,\"count\":3}]}],\n"
		   "\"@a\":[{\"key\":null,\"value\":{\"count\":6,\"sum\":90,"
		   "\"avg\":15}}],\n"
		   "\"@s\":[{\"key\":null,\"value\":{\"count\":6,\"sum\":90,"
		   "\"avg\":15,\"min\":0,\"max\":30}}],\n"
		   "\"@str\":[{\"key\":0,\"value\":\"a\"},{\"key\":1,\"value\":"
		   "\"b\"}]}\n");
	free(o.text);
}

Test(script, scratch_variables_keep_strings_past_a_delete)
{
	struct run_out o = run(trace, "BEGIN { @m[1] = \"kept\"; $s = @m[1]; "
				      "delete(@m[1]); @m[2] = \"other\"; "
				      "printf(\"%s\\n\", $s); clear(@m); }");
	cr_assert_out(o, "kept\n");
	free(o.text);
}

Test(script, maps_read_before_the_probe_that_assigns_them)
{
	struct run_out o = run(trace, "END { printf(\"%d\\n\", @n + 1); } "
				      "sched:sched_switch { @n = count(); }");
	cr_assert_out(o, "7\n"
			 "\n"
			 "\n"
			 "@n: 6\n");
	free(o.text);
}

Test(script, lhist_bounds_near_the_ends_of_int64)
{
	/* max - min does not fit in 64 bits: buckets are computed in 128 */
	struct run_out o = run(
		trace, "BEGIN { @l = lhist(-5, -4000000000000000000, "
		       "4000000000000000000, 2000000000000000000); "
		       "@l = lhist(9223372036854775807, -4000000000000000000, "
		       "4000000000000000000, 2000000000000000000); }");
	cr_assert_eq(o.rc, 0, "%s", o.err.msg);
	cr_assert(strstr(o.text, "[-2000000000000000000, 0)       1 |"), "%s",
		  o.text);
	cr_assert(strstr(o.text, "[4000000000000000000, ...)       1 |"), "%s",
		  o.text);
	free(o.text);
}

/* The predicate as the kernel's event filter, per event, where the filter
 * language can say it (live mode will push these). */
static void filters(const char *prog, const char *const *want, size_t n)
{
	char *path = tmp_file(trace, strlen(trace));
	trawl_open_opts oo = {.formats = formats_dat(), .threads = 1};
	trawl_error err;
	trawl_trace *t = trawl_open(path, &oo, &err);
	cr_assert(t, "%s", err.msg);
	trawl_script *s =
		trawl_script_compile(t, prog, strlen(prog), NULL, &err);
	cr_assert(s, "%s", err.msg);
	size_t i;
	for (i = 0; i < n; i += 2) {
		const char *f = "unset";
		const char *ev = trawl_script_event(s, i / 2, &f);
		cr_assert(ev, "no event %zu for %s", i / 2, prog);
		cr_assert_str_eq(ev, want[i]);
		if (want[i + 1])
			cr_assert(f && strcmp(f, want[i + 1]) == 0,
				  "%s: filter %s, not %s", prog, f,
				  want[i + 1]);
		else
			cr_assert_null(f, "%s: filter %s", prog, f);
	}
	cr_assert_null(trawl_script_event(s, i / 2, NULL));
	trawl_script_free(s);
	trawl_close(t);
	unlink(path);
	free(path);
}

Test(script, predicates_the_kernel_filter_can_say_are_lowered_to_it)
{
	const char *a[] = {"sched:sched_switch",
			   "prev_pid == 0 && (next_comm == \"bash\" || "
			   "next_prio < 100)"};
	filters("sched:sched_switch /args.prev_pid == 0 && "
		"(args.next_comm == \"bash\" || args.next_prio < 100)/ {}",
		a, 2);
	/* constant first: flipped; context the filter language has */
	const char *b[] = {"sched:sched_switch",
			   "prev_state > 1 || common_pid != 5 || CPU == 1 || "
			   "COMM == \"x\""};
	filters("sched:sched_switch /1 < args.prev_state || pid != 5 || cpu "
		"== 1 || comm == \"x\"/ {}",
		b, 2);
	/* not expressible: arithmetic, maps, a negative bound, no predicate */
	const char *c[] = {"sched:sched_switch", NULL};
	filters("sched:sched_switch /args.prev_pid + 1 == 2/ {}", c, 2);
	filters("sched:sched_switch /@x[1] == 0/ { @x[1] = 1; }", c, 2);
	filters("sched:sched_switch /args.prev_pid > -1/ {}", c, 2);
	filters("sched:sched_switch { }", c, 2);
	/* per event: a field one of them lacks keeps the filter off it */
	const char *d[] = {"sched:sched_waking", "pid == 20",
			   "sched:sched_switch", NULL};
	filters("sched:sched_waking, sched:sched_switch /args.pid == 20/ {}", d,
		4);
}

Test(script, conditions_jump_as_their_values_say)
{
	/* predicates, if and while are lowered as jumps: a comparison with
	 * a constant of 32 bits is one instruction, a larger one two; && and
	 * || jump past what they need not evaluate */
	struct run_out o =
		run(trace,
		    "BEGIN { $x = 2147483647; $n = 0;\n"
		    "  if ($x == 2147483647) { $n += 1; }\n"
		    "  if ($x != 2147483647) { $n += 2; }\n"
		    "  if ($x < 2147483648) { $n += 4; }\n"
		    "  if ($x <= 5) { $n += 8; }\n"
		    "  if ($x > 5 && $x >= 2147483647) { $n += 16; }\n"
		    "  if (!($x < 0) || 10 / 0) { $n += 32; }\n"
		    "  $y = -3;\n"
		    "  if ($y < 0 && $y >= -3 && $y != -2) { $n += 64; }\n"
		    "  if ($y > 0 || $y < -3 || !$y) { $n += 128; }\n"
		    "  while ($y < 3) { $y++; }\n"
		    "  printf(\"%d %d %d\\n\", $n, $y, $x > 1 && $y == 3); }\n"
		    "sched:sched_switch /args.prev_pid > 0 && "
		    "args.prev_state != 0/ { @[args.prev_comm] = count(); }");
	/* a (S) and c (D) sleep; b leaves runnable (R = 0) */
	cr_assert_out(o, "117 3 1\n"
			 "\n"
			 "\n"
			 "@[a]: 1\n"
			 "@[c]: 1\n");
	free(o.text);
}

Test(script, a_var_not_set_in_this_run_reads_zero_or_empty)
{
	/* $v is set in a branch only: a run that skips it must not see the
	 * value of an earlier run */
	struct run_out o = run(
		trace,
		"BEGIN { if (0) { $s = \"x\"; $i = 5; }\n"
		"  printf(\"[%s] %d\\n\", $s, $i); }\n"
		"sched:sched_switch { if (args.prev_pid == 10) { $v = 7; }\n"
		"  @[args.prev_pid] = sum($v); }");
	cr_assert_out(o, "[] 0\n"
			 "\n"
			 "\n"
			 "@[0]: 0\n"
			 "@[20]: 0\n"
			 "@[30]: 0\n"
			 "@[10]: 7\n");
	free(o.text);
}

Test(script, a_field_first_read_in_a_branch_is_read_again_after_it)
{
	/* next_pid is read in the if's arm (one run in six) and after it:
	 * the read after must not take the arm's value from an earlier run;
	 * prev_pid, read in the condition, is read once per run */
	struct run_out o =
		run(trace, "sched:sched_switch { if (args.prev_pid == 10) {\n"
			   "  $a = args.next_pid; @arm[$a] = count(); }\n"
			   "  @[args.next_pid, args.prev_pid > 0 || "
			   "args.next_comm == \"b\"] = count(); }");
	/* (next, prev_pid > 0 || next_comm == b): 0->a (10, 0), 0->b (20,
	 * 1), a->0 (0, 1), b->c (30, 1), 0->a (10, 0), c->b (20, 1) */
	cr_assert_out(o, "\n"
			 "\n"
			 "@[0, 1]: 1\n"
			 "@[30, 1]: 1\n"
			 "@[10, 0]: 2\n"
			 "@[20, 1]: 2\n"
			 "@arm[0]: 1\n");
	free(o.text);
}
