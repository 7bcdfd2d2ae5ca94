/* SPDX-License-Identifier: MIT */
/*
 * Compile-time errors: each names the script, line and column, and what
 * is wrong, with the nearest known name where there is one.
 */
#include "script-test.h"

static const char trace[] = "# tracer: nop\n" L(
	"<idle>-0", 0, "100.000000", SW("swapper/0", "0", "R", "a", "10"));

static void fails(const char *prog, int code, const char *msg)
{
	struct run_out o = run(trace, prog);
	cr_assert_eq(o.rc, -code, "rc %d (%s) for: %s", o.rc, o.err.msg, prog);
	cr_assert_str_eq(o.err.msg, msg);
	cr_assert_eq(o.n, 0);
	free(o.text);
}

Test(errors, syntax_errors_have_line_and_column)
{
	fails("BEGIN {\n  @x = ;\n}", TRAWL_EPARSE,
	      "t.tw:2:8: expected an expression, found ';'");
	fails("BEGIN { @x = 1 @y = 2 }", TRAWL_EPARSE,
	      "t.tw:1:16: expected ';' or '}', found '@y'");
	fails("sched:sched_switch /args.prev_pid > 1 {}", TRAWL_EPARSE,
	      "t.tw:1:39: expected '/' to end the predicate (a division in a "
	      "predicate needs parentheses), found '{'");
	fails("BEGIN { /* no end", TRAWL_EPARSE,
	      "t.tw:1:9: comment not closed");
}

Test(errors, unknown_events_suggest_the_nearest)
{
	fails("sched:sched_swich { }", TRAWL_ENOENT,
	      "t.tw:1:1: unknown event 'sched:sched_swich' (did you mean "
	      "'sched:sched_switch'?)");
	fails("BEGIN {}\n  nosuch:* , other:x* {}", TRAWL_ENOENT,
	      "t.tw:2:3: probe 'nosuch:*' matches no event of this trace");
	/* beside a spec that matches, one that does not is no error */
	struct run_out o = run(trace, "sched:* , nosuch:* { @ = count(); }");
	cr_assert_out(o, "\n"
			 "\n"
			 "@: 1\n");
	free(o.text);
}

Test(errors, unknown_fields_suggest_the_nearest)
{
	fails("sched:sched_switch { @[args.next_pdi] = count(); }",
	      TRAWL_ENOENT,
	      "t.tw:1:29: unknown field args.next_pdi of sched_switch (did "
	      "you mean args.next_pid?)");
	fails("BEGIN { @x = args.pid; }", TRAWL_EPARSE,
	      "t.tw:1:19: args.pid: only event probes have fields");
}

Test(errors, type_mismatches)
{
	fails("sched:sched_switch { @x = args.next_comm + 1; }", TRAWL_ETYPE,
	      "t.tw:1:32: + needs an integer, not a string");
	fails("sched:sched_switch { @x[1] = 1; @x[\"a\"] = 2; }", TRAWL_ETYPE,
	      "t.tw:1:36: @x: key part 1 is an integer, not a string");
	fails("BEGIN { @x = count(); @x = 1; }", TRAWL_ETYPE,
	      "t.tw:1:23: @x holds count() values, not integer");
	fails("BEGIN { printf(\"%d\\n\", \"s\"); }", TRAWL_ETYPE,
	      "t.tw:1:24: printf: argument 1 is a string but its conversion "
	      "%d wants an integer");
	fails("BEGIN { printf(\"%d %d\\n\", 1); }", TRAWL_EPARSE,
	      "t.tw:1:9: printf: the format has 2 conversions but 1 argument "
	      "follow");
	fails("BEGIN { $x = 1; $x = \"s\"; }", TRAWL_ETYPE,
	      "t.tw:1:17: $x is an integer, not a string");
	fails("BEGIN { @h = hist(1); printf(\"%d\", @h); }", TRAWL_ETYPE,
	      "t.tw:1:36: @h holds hist() values, which only print() shows");
}

Test(errors, names_used_wrongly)
{
	fails("raw_syscalls:sys_enter { @a = sum(args.args); }", TRAWL_ETYPE,
	      "t.tw:1:40: args.args is an array: read an element "
	      "(args.args[0])");
	fails("raw_syscalls:sys_enter { @a = sum(args.id[1]); }", TRAWL_ETYPE,
	      "t.tw:1:40: args.id is not an array: it takes no index");
	fails("BEGIN { printf(\"%d\", $y); }", TRAWL_EPARSE,
	      "t.tw:1:22: $y is used before it is assigned");
	fails("BEGIN { printf(\"%d\", @never); }", TRAWL_EPARSE,
	      "t.tw:1:22: @never is read but never assigned");
	fails("BEGIN { break; }", TRAWL_EPARSE,
	      "t.tw:1:9: break outside a loop");
	fails("BEGIN { printf(\"%d\", cpu); }", TRAWL_EPARSE,
	      "t.tw:1:22: 'cpu' is only known in event probes (and the task's "
	      "context in profile and software probes)");
	fails("BEGIN { @x = lhist(1, 10, 0, 1); }", TRAWL_EPARSE,
	      "t.tw:1:14: lhist(v, min, max, step) needs min < max, step > 0 "
	      "and at most 1000 buckets");
	fails("", TRAWL_EPARSE,
	      "t.tw:1:1: no probes (try: sched:sched_switch { @[comm] = "
	      "count(); })");
	fails("BEGIN { \"x }", TRAWL_EPARSE,
	      "t.tw:1:9: string not closed on its line");
	fails("interval:0s { }", TRAWL_EPARSE,
	      "t.tw:1:1: cannot read interval 'interval:0s' (interval:1s, "
	      "interval:100ms, interval:s:1)");
}

Test(errors, nesting_is_bounded)
{
	/* the checker and the lowering recurse over the tree: a script of
	 * 100000 nested parentheses must be an error, not a stack overflow */
	size_t n = 100000;
	char *p = malloc(3 * n + 64);
	size_t k = (size_t)sprintf(p, "BEGIN { $x = ");
	for (size_t i = 0; i < n; i++)
		p[k++] = '(';
	p[k++] = '1';
	for (size_t i = 0; i < n; i++)
		p[k++] = ')';
	strcpy(p + k, "; }");
	fails(p, TRAWL_ELIMIT,
	      "t.tw:1:213: nested too deep (more than 200 levels)");
	/* a left-deep chain needs no recursion to parse, but does to check */
	k = (size_t)sprintf(p, "BEGIN { $x = ");
	for (size_t i = 0; i < n; i++)
		k += (size_t)sprintf(p + k, "1+");
	strcpy(p + k, "1; }");
	fails(p, TRAWL_ELIMIT,
	      "t.tw:1:415: expression nested too deep (more than 200 levels)");
	free(p);
}
