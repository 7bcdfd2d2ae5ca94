/* SPDX-License-Identifier: MIT */
/*
 * Script maps by representation (lib/script/maps.c): a map of one integer
 * key and a small value is a flat open-addressing table, every other map
 * a chained one. What a script sees must not tell them apart: growth,
 * the --map-size fault, delete (the flat table shifts entries back),
 * print's order, and keys at the edges of int64.
 */
#include "script-test.h"

/* One event, so that the BEGIN probes below have a trace to run on. */
static const char trace[] = "# tracer: nop\n" L(
	"<idle>-0", 0, "100.000000", SW("swapper/0", "0", "R", "a", "10"));

/* Six switches: prev_pid 0 (swapper/0), 0 (swapper/1), 10 (a), 20 (b),
 * 0 (swapper/0), 30 (c). */
static const char trace_switches[] = "# tracer: nop\n" L(
	"<idle>-0", 0, "100.000000", SW("swapper/0", "0", "R", "a", "10"))
	L("<idle>-0", 1, "100.000300", SW("swapper/1", "0", "R", "b", "20")) L(
		"a-10", 0, "100.001000", SW("a", "10", "S", "swapper/0", "0"))
		L("b-20", 1, "100.002500", SW("b", "20", "R", "c", "30"))
			L("<idle>-0", 0, "100.006500",
			  SW("swapper/0", "0", "R", "a", "10"))
				L("c-30", 1, "101.500000",
				  SW("c", "30", "D", "b", "20"));

Test(maps, a_flat_map_grows_and_keeps_every_key)
{
	/* 3000 keys spread over +-2e7, both signs: the table doubles from
	 * 16 slots nine times */
	struct run_out o = run(
		trace, "BEGIN { $i = 0; while ($i < 3000) {\n"
		       "  @m[$i * 7919 - 10000000] = $i + 1; $i++; }\n"
		       "  $i = 0; $ok = 0; while ($i < 3000) {\n"
		       "  if (@m[$i * 7919 - 10000000] == $i + 1) { $ok++; }\n"
		       "  $i++; }\n"
		       "  printf(\"%d %d %d\\n\", $ok, @m[5], @m[-10000000]);\n"
		       "  clear(@m); }");
	cr_assert_out(o, "3000 0 1\n");
	free(o.text);
}

Test(maps, a_full_flat_map_drops_inserts_and_still_updates_its_keys)
{
	struct run_out o = run_opts(
		trace,
		"BEGIN { $i = 0; while ($i < 150) { @m[$i] = 1; $i++; }\n"
		"  @m[0] = 7; @m[149] = 9;\n"
		"  $i = 0; $s = 0; while ($i < 150) { $s += @m[$i]; $i++; }\n"
		"  printf(\"%d %d\\n\", $s, @m[99]); clear(@m); }",
		0, 100);
	/* keys 0..99 are in: 99 ones, and 7 */
	cr_assert_out(o, "106 1\n");
	/* two sites: the loop (50 keys) and @m[149] = 9 */
	cr_assert(strstr(o.faults, "t.tw:1:36: probe BEGIN: @m is full (100 "
				   "keys, --map-size): update dropped (50)"),
		  "%s", o.faults);
	cr_assert(strstr(o.faults, "t.tw:2:14: probe BEGIN: @m is full (100 "
				   "keys, --map-size): update dropped (1)"),
		  "%s", o.faults);
	free(o.text);
}

Test(maps, a_full_flat_map_is_full_from_its_first_key_with_map_size_1)
{
	struct run_out o = run_opts(
		trace, "BEGIN { @m[-1] = 1; @m[1] = 2; @m[-1] += 5; }", 0, 1);
	cr_assert_out(o, "\n"
			 "\n"
			 "@m[-1]: 6\n");
	cr_assert(strstr(o.faults, "@m is full (1 keys"), "%s", o.faults);
	free(o.text);
}

Test(maps, deleting_from_a_flat_map_keeps_the_rest_reachable)
{
	/* 2000 keys at 3/4 load make long probe runs; deleting every other
	 * one (then every fourth again) moves entries back into the holes */
	struct run_out o = run(
		trace,
		"BEGIN { $i = 0; while ($i < 2000) { @m[$i * 64] = $i + 1;\n"
		"  $i++; }\n"
		"  $i = 0; while ($i < 2000) { delete(@m[$i * 64]); $i += 2; "
		"}\n"
		"  delete(@m[3]); delete(@m[-64]);\n"
		"  $i = 0; $ok = 0; $gone = 0; while ($i < 2000) {\n"
		"    if ($i % 2 == 1 && @m[$i * 64] == $i + 1) { $ok++; }\n"
		"    if ($i % 2 == 0 && @m[$i * 64] == 0) { $gone++; }\n"
		"    $i++; }\n"
		"  $i = 1; while ($i < 2000) { delete(@m[$i * 64]); $i += 4; "
		"}\n"
		"  $i = 0; $left = 0; while ($i < 2000) {\n"
		"    if (@m[$i * 64] == $i + 1) { $left++; } $i++; }\n"
		"  @m[0] = 5;\n"
		"  printf(\"%d %d %d %d\\n\", $ok, $gone, $left, @m[0]);\n"
		"  clear(@m); }");
	cr_assert_out(o, "1000 1000 500 5\n");
	free(o.text);
}

Test(maps, flat_map_keys_at_the_edges_of_int64)
{
	struct run_out o =
		run(trace, "BEGIN { @m[-9223372036854775807 - 1] = 1;\n"
			   "  @m[9223372036854775807] = 2; @m[-1] = 3;\n"
			   "  @m[0] = 4; @m[-9223372036854775807 - 1] += 10;\n"
			   "  delete(@m[0]); @m[0] = 5; }");
	cr_assert_out(o, "\n"
			 "\n"
			 "@m[9223372036854775807]: 2\n"
			 "@m[-1]: 3\n"
			 "@m[0]: 5\n"
			 "@m[-9223372036854775808]: 11\n");
	free(o.text);
}

Test(maps, print_order_is_by_value_then_key_whatever_the_representation)
{
	/* @c (count, flat), @s (stats, flat), @h (a histogram per key:
	 * chained), @k (two integer keys: chained) */
	struct run_out o =
		run(trace,
		    "BEGIN { @c[30] = count(); @c[30] = count();\n"
		    "  @c[10] = count(); @c[1000000] = count();\n"
		    "  @c[-5] = count(); @c[-5] = count(); @c[20] = count();\n"
		    "  @s[2] = stats(10); @s[1] = stats(4); @s[1] = stats(6);\n"
		    "  @h[7] = hist(3); @h[-7] = hist(1);\n"
		    "  @k[2, 1] = 1; @k[1, 2] = 1; @k[1, 1] = 2;\n"
		    "  print(@c, 2); }");
	cr_assert_out(o,
		      "@c[-5]: 2\n"
		      "@c[30]: 2\n"
		      "\n"
		      "\n"
		      "@c[10]: 1\n"
		      "@c[20]: 1\n"
		      "@c[1000000]: 1\n"
		      "@c[-5]: 2\n"
		      "@c[30]: 2\n"
		      "@h[-7]: \n"
		      "[1]                    1 "
		      "|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		      "\n"
		      "@h[7]: \n"
		      "[2, 4)                 1 "
		      "|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		      "\n"
		      "@k[1, 2]: 1\n"
		      "@k[2, 1]: 1\n"
		      "@k[1, 1]: 2\n"
		      "@s[1]: count 2, average 5, total 10\n"
		      "@s[2]: count 1, average 10, total 10\n"
		      "\n");
	free(o.text);
}

Test(maps, flat_map_values_in_json_are_sorted_as_printed)
{
	struct run_out o = run_opts(
		trace,
		"BEGIN { @a[3] = avg(10); @a[3] = avg(20); @a[-2] = avg(5);\n"
		"  @mn[1] = min(4); @mn[1] = min(-3); @mx[1] = max(-9); }",
		TRAWL_SCRIPT_JSON, 0);
	cr_assert_out(
		o,
		"{\"output\":\"\",\n\"@a\":[{\"key\":-2,\"value\":{\"count\":1,"
		"\"sum\":5,\"avg\":5}},{\"key\":3,\"value\":{"
		"\"count\":2,\"sum\":30,\"avg\":15}}],\n"
		"\"@mn\":[{\"key\":1,\"value\":-3}],\n"
		"\"@mx\":[{\"key\":1,\"value\":-9}]}\n");
	free(o.text);
}

Test(maps, a_key_that_is_a_field_read_before_takes_the_short_way)
{
	/* prev_pid is read by the predicate, so the maps below take it as
	 * their key from the run's field cache (MGETK, MSETK): flat @n and
	 * chained @comm (a string value) alike, and at --map-size */
	const char *prog = "sched:sched_switch /args.prev_pid >= 0/ {\n"
			   "  @comm[args.prev_pid] = args.prev_comm;\n"
			   "  @n[args.prev_pid] = @n[args.prev_pid] + 1; }\n"
			   "END { printf(\"%s %s %d %d\\n\", @comm[10], "
			   "@comm[30], @n[0],\n"
			   "  @n[20]); clear(@comm); clear(@n); }";
	struct run_out o = run(trace_switches, prog);
	cr_assert_out(o, "a c 3 1\n");
	free(o.text);
	o = run_opts(trace_switches, prog, 0, 2);
	/* prev_pid 0, 10 fit; 20 and 30 do not */
	cr_assert_out(o, "a  3 0\n");
	cr_assert(strstr(o.faults, "@comm is full (2 keys"), "%s", o.faults);
	cr_assert(strstr(o.faults, "@n is full (2 keys"), "%s", o.faults);
	free(o.text);
}
