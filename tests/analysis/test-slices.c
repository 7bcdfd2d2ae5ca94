/* SPDX-License-Identifier: MIT */
/* systrace / atrace slices, async slices and counters, by hand. */
#include "analysis-test.h"

#define M(comm_pid, cpu, ts, buf)                                              \
	"  " comm_pid " [00" #cpu "] ...1.  " ts ": tracing_mark_write: " buf  \
	"\n"

/*
 * tid 100: outer .000000-.000100 holds inner .000010-.000030 (20 us) and
 *   inner .000040-.000045 (5 us): outer 100 us, self 75 us, depth 0;
 *   inner count 2, self 25 us, depth 1.
 * tid 101: an E with nothing open; a B never closed.
 * async: load/7 S .000005 (tid 100), F .000305 (tid 101): 300 us;
 *   F load/8 without S; S load/9 never finished.
 * counter q of pid 100: 5, -3, 10: min -3, max 10 (at .000004), total 12.
 * overall slices {5000, 20000, 100000}: p50 20000.
 */
static const char trace[] = M("app-100", 0, "1.000000", "B|100|outer") M(
	"app-101", 1, "1.000001",
	"E|100") M("app-100", 0, "1.000002",
		   "C|100|q|5") M("app-100", 0, "1.000003", "C|100|q|-3")
	M("app-100", 0, "1.000004", "C|100|q|10") M(
		"app-100", 0, "1.000005",
		"S|100|load|7") M("app-100", 0, "1.000010", "B|100|inner")
		M("app-100", 0, "1.000030",
		  "E|100") M("app-100", 0, "1.000040",
			     "B|100|inner") M("app-100", 0, "1.000045", "E")
			M("app-100", 0, "1.000100",
			  "E|100") M("app-101", 1, "1.000200", "B|100|dangling")
				M("app-101", 1, "1.000305", "F|100|load|7")
					M("app-101", 1, "1.000400",
					  "F|100|load|8")
						M("app-100", 0, "1.000500",
						  "S|100|load|9");

Test(slices, nesting_async_and_counters_by_hand)
{
	struct run r;
	run_open(&r, trace);
	r.a = trawl_slices_new(r.t, NULL, NULL);
	run_go(&r);
	const trawl_result *sl = trawl_analysis_result(r.a, 0);
	cr_expect_str_eq(sl->name, "slices");
	cr_assert_eq(sl->nrows, 2);
	const trawl_row *outer = row_named(sl, "outer", 100);
	assert_summary(outer->s, 1, 100000, 100000, 100000, 100000, 100000);
	cr_expect_eq(outer->self, 75000);
	cr_expect_eq(outer->depth, 0);
	const trawl_row *inner = row_named(sl, "inner", 100);
	assert_summary(inner->s, 2, 5000, 5000, 20000, 20000, 20000);
	cr_expect_eq(inner->self, 25000);
	cr_expect_eq(inner->depth, 1);
	cr_expect_eq(inner->max_at, 1000010000);
	assert_summary(sl->overall, 3, 5000, 20000, 100000, 100000, 100000);
	cr_expect_eq(anomaly(sl, "E without B"), 1);
	cr_expect_eq(anomaly(sl, "B without E (open at the end)"), 1);

	const trawl_result *as = trawl_analysis_result(r.a, 1);
	cr_assert_eq(as->nrows, 1);
	assert_summary(row_named(as, "load", 100)->s, 1, 300000, 300000, 300000,
		       300000, 300000);
	cr_expect_eq(as->worst[0].id, 7, "the cookie");
	cr_expect_eq(as->worst[0].pid, 100, "the thread of the S");
	cr_expect_eq(anomaly(as, "F without S"), 1);
	cr_expect_eq(anomaly(as, "S without F (open at the end)"), 1);

	const trawl_result *c = trawl_analysis_result(r.a, 2);
	cr_assert_eq(c->nrows, 1);
	const trawl_row *q = row_named(c, "q", 100);
	cr_expect_eq(q->s.count, 3);
	cr_expect_eq(q->s.min, -3);
	cr_expect_eq(q->s.max, 10);
	cr_expect_eq(q->s.total, 12);
	cr_expect_eq(q->max_at, 1000004000);
	run_done(&r);
}

Test(slices, pid_filter_is_the_writing_thread)
{
	struct run r;
	trawl_analysis_opts o = {0};
	o.filter.set = TRAWL_FILTER_PID;
	o.filter.pid = 101;
	run_open(&r, trace);
	r.a = trawl_slices_new(r.t, &o, NULL);
	run_go(&r);
	cr_expect_eq(trawl_analysis_result(r.a, 0)->nrows, 0);
	/* the async slice began on 100: not 101's */
	cr_expect_eq(trawl_analysis_result(r.a, 1)->nrows, 0);
	run_done(&r);
}

/* Counter totals that do not fit int64 saturate instead of wrapping. */
static const char huge_counters[] = "# tracer: nop\n" M(
	"app-100", 0, "1.000001", "C|100|q|9223372036854775807")
	M("app-100", 0, "1.000002", "C|100|q|9223372036854775807") M(
		"app-100", 0, "1.000003", "C|100|r|-9223372036854775807")
		M("app-100", 0, "1.000004", "C|100|r|-9223372036854775807");

Test(slices, counter_totals_saturate)
{
	struct run r;
	run_open(&r, huge_counters);
	r.a = trawl_slices_new(r.t, NULL, NULL);
	run_go(&r);
	const trawl_result *c = trawl_analysis_result(r.a, 2);
	cr_assert_eq(c->nrows, 2);
	cr_expect_eq(row_named(c, "q", 100)->s.total, INT64_MAX);
	cr_expect_eq(row_named(c, "r", 100)->s.total, INT64_MIN);
	run_done(&r);
}
