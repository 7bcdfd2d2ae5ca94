/* SPDX-License-Identifier: MIT */
/*
 * Scheduling latency on hand-made traces; every expected number is worked
 * out in the comments next to the lines that make it.
 */
#include "analysis-test.h"

#define SW(pc, pp, st, nc, np)                                                 \
	"sched_switch: prev_comm=" pc " prev_pid=" pp                          \
	" prev_prio=120 prev_state=" st " ==> next_comm=" nc " next_pid=" np   \
	" next_prio=120"
#define WAKING(c, p, cpu)                                                      \
	"sched_waking: comm=" c " pid=" p " prio=120 target_cpu=" cpu
#define WAKEUP(c, p, cpu)                                                      \
	"sched_wakeup: comm=" c " pid=" p " prio=120 target_cpu=" cpu

/*
 * a (10) runs on cpu 0, b (20) and c (30) are not seen switching yet.
 *  c was running on cpu 1 when the trace starts: its wakeup at .000001 is
 *    dropped when it is switched out at .000003 (it was running).
 *  b: woken .000010 (waking; the wakeup at .000012 is a repeat), in at
 *    .000020 on cpu 1: 10 us. Woken at .000030 while running: nothing.
 *    Out asleep .000040, woken .000050 on cpu 0, migrated, in at .000070
 *    on cpu 0: 20 us. Out asleep .000090; woken .000100 and in at .000100
 *    (same time, wakeup first in record order): 0 ns. In again? no.
 *    At .000110 b is switched in on cpu 1 *before* a wakeup with the same
 *    stamp: the wakeup is of a running task and starts nothing.
 *  a: preempted (R+) at .000070, back in at .000080 on cpu 1: 10 us
 *    preemption. Preempted (R) at .000120 and in at .000125: 5 us.
 * wakeup:  b = {10000, 20000, 0}: count 3, min 0, p50 10000 (rank 2),
 *          p90 = p99 = max = 20000 (rank 3).
 * preempt: a = {10000, 5000}: min 5000, p50 5000 (rank 1), max 10000.
 */
static const char trace[] = "# tracer: nop\n" L(
	"<idle>-0", 0, "100.000000",
	SW("swapper/0", "0", "R", "a",
	   "10")) L("a-10", 0, "100.000001",
		    WAKING("c", "30",
			   "001")) L("c-30", 1, "100.000003",
				     SW("c", "30", "S", "swapper/1",
					"0")) L("a-10", 0, "100.000010",
						WAKING("b", "20", "001"))
	L("a-10", 0, "100.000012", WAKEUP("b", "20", "001")) L(
		"<idle>-0", 1, "100.000020",
		SW("swapper/1", "0", "R", "b",
		   "20")) L("a-10", 0, "100.000030", WAKING("b", "20", "001"))
		L("b-20", 1, "100.000040",
		  SW("b", "20", "S", "swapper/1",
		     "0")) L("a-10", 0, "100.000050",
			     WAKING(
				     "b",
				     "20",
				     "001")) L("a-10", 0, "100.000055",
					       "sched_migrate_task: comm=b "
					       "pid=20 "
					       "prio=120 orig_cpu=1 dest_cpu=0")
			L("a-10", 0, "100.000070",
			  SW("a", "10", "R+", "b",
			     "20")) L("<idle>-0", 1, "100.000080",
				      SW("swapper/1", "0", "R", "a", "10"))
				L("b-20", 0, "100.000090",
				  SW("b", "20", "S", "swapper/0",
				     "0")) L("a-10", 1, "100.000100",
					     WAKING("b", "20", "000"))
					L("<idle>-0", 0, "100.000100",
					  SW("swapper/0", "0", "R", "b",
					     "20")) L("b-20", 0, "100.000105",
						      SW("b", "20", "D",
							 "swapper/0", "0"))
						L("<idle>-0", 0, "100.000110",
						  SW("swapper/0", "0", "R", "b",
						     "20")) L("a-10", 1,
							      "100.000110",
							      WAKEUP("b", "20",
								     "000"))
							L("a-10", 1,
							  "100.000120",
							  SW("a", "10", "R",
							     "swapper/1", "0"))
								L("<idle>-0", 1,
								  "100.000125",
								  SW("swapper/"
								     "1",
								     "0", "R",
								     "a",
								     "10"));

Test(latency, wakeup_by_hand)
{
	struct run r;
	run_open(&r, trace);
	r.a = trawl_latency_new(r.t, TRAWL_LATENCY_WAKEUP, NULL, NULL);
	run_go(&r);
	const trawl_result *res = trawl_analysis_result(r.a, 0);
	cr_assert_not_null(res);
	cr_expect_str_eq(res->name, "wakeup");
	cr_assert_eq(res->nrows, 1, "only b waited after a wakeup");
	const trawl_row *b = row_named(res, "b", 20);
	assert_summary(b->s, 3, 0, 10000, 20000, 20000, 20000);
	cr_expect_eq(b->max_at, 100000050000);
	assert_summary(res->overall, 3, 0, 10000, 20000, 20000, 20000);
	cr_assert_eq(res->nworst, 3);
	cr_expect_eq(res->worst[0].start, 100000050000);
	cr_expect_eq(res->worst[0].end, 100000070000);
	cr_expect_eq(res->worst[0].cpu, 0, "switched in on cpu 0");
	cr_expect_eq(res->worst[0].id, 0, "woken from cpu 0");
	cr_expect_eq(res->worst[1].end - res->worst[1].start, 10000);
	cr_expect_eq(res->worst[2].end - res->worst[2].start, 0);
	cr_expect_eq(res->nanomalies, 0);
	cr_expect_null(trawl_analysis_result(r.a, 1));
	run_done(&r);
}

Test(latency, preempt_by_hand)
{
	struct run r;
	run_open(&r, trace);
	r.a = trawl_latency_new(r.t, TRAWL_LATENCY_PREEMPT, NULL, NULL);
	run_go(&r);
	const trawl_result *res = trawl_analysis_result(r.a, 0);
	cr_assert_eq(res->nrows, 1);
	const trawl_row *a = row_named(res, "a", 10);
	assert_summary(a->s, 2, 5000, 5000, 10000, 10000, 10000);
	cr_expect_eq(a->s.total, 15000);
	run_done(&r);
}

Test(latency, filters_by_pid_comm_and_window)
{
	struct run r;
	trawl_analysis_opts o = {0};
	o.filter.set = TRAWL_FILTER_COMM;
	o.filter.comm = "a";
	run_open(&r, trace);
	r.a = trawl_latency_new(r.t, TRAWL_LATENCY_WAKEUP, &o, NULL);
	run_go(&r);
	cr_expect_eq(trawl_analysis_result(r.a, 0)->overall.count, 0);
	run_done(&r);

	/* From .000045: the trace starts with b asleep-unknown; the wakeups
	 * at .000050 and .000100 count (20 us, 0), the one at .000010 not. */
	o.filter.set = TRAWL_FILTER_FROM | TRAWL_FILTER_PID;
	o.filter.from = 100000045000;
	o.filter.pid = 20;
	run_open(&r, trace);
	r.a = trawl_latency_new(r.t, TRAWL_LATENCY_WAKEUP, &o, NULL);
	run_go(&r);
	const trawl_result *res = trawl_analysis_result(r.a, 0);
	assert_summary(res->overall, 2, 0, 0, 20000, 20000, 20000);
	run_done(&r);

	/* To .000060: only the first (10 us); the second never ends. */
	o.filter.set = TRAWL_FILTER_TO;
	o.filter.to = 100000060000;
	run_open(&r, trace);
	r.a = trawl_latency_new(r.t, TRAWL_LATENCY_WAKEUP, &o, NULL);
	run_go(&r);
	res = trawl_analysis_result(r.a, 0);
	assert_summary(res->overall, 1, 10000, 10000, 10000, 10000, 10000);
	run_done(&r);
}

/*
 * A switch-out that is not in the trace: the CPU's next sched_switch ends
 * what it had switched in, so that task's next wakeup counts.
 *  0 cpu0 idle -> a (75)
 * 10 cpu0 b (S) -> idle       a's switch-out is missing: a stops running
 * 20 cpu1 x wakes a           a was not running: a wakeup latency starts
 * 30 cpu1 idle -> a           10 us (before the rule: a "ran" since 0, the
 *                             wakeup was dropped, nothing measured)
 */
Test(latency, a_cpu_runs_what_it_switched_in_until_its_next_switch)
{
	static const char lost[] = L("<idle>-0", 0, "5.000000",
				     SW("swapper/0", "0", "R", "a", "75"))
		L("b-80", 0, "5.000010", SW("b", "80", "S", "swapper/0", "0"))
			L("x-99", 1, "5.000020", WAKING("a", "75", "001"))
				L("<idle>-0", 1, "5.000030",
				  SW("swapper/1", "0", "R", "a", "75"));
	struct run r;
	run_open(&r, lost);
	r.a = trawl_latency_new(r.t, TRAWL_LATENCY_WAKEUP, NULL, NULL);
	run_go(&r);
	const trawl_result *res = trawl_analysis_result(r.a, 0);
	cr_assert_not_null(res);
	cr_assert_eq(res->nrows, 1, "a's wakeup is measured");
	assert_summary(row_named(res, "a", 75)->s, 1, 10000, 10000, 10000,
		       10000, 10000);
	run_done(&r);
}

/* Lost events make impossible sequences: counted, not dropped silently. */
Test(latency, impossible_sequences_are_counted)
{
	static const char bad[] = L("<idle>-0", 0, "5.000000",
				    SW("swapper/0", "0", "R", "x", "7"))
		L("<idle>-0", 1, "5.000001",
		  SW("swapper/1", "0", "R", "x", "7"))
			L("x-7", 1, "5.000002",
			  SW("x", "7", "S", "swapper/1", "0"))
				L("x-7", 0, "5.000003",
				  SW("x", "7", "S", "swapper/0", "0"))
					L("y-8", 0, "5.000004",
					  SW("y", "8", "?", "swapper/0", "0"));
	struct run r;
	run_open(&r, bad);
	r.a = trawl_latency_new(r.t, TRAWL_LATENCY_WAKEUP, NULL, NULL);
	run_go(&r);
	const trawl_result *res = trawl_analysis_result(r.a, 0);
	cr_expect_eq(anomaly(res, "switch-in of a task already running"), 1);
	cr_expect_eq(anomaly(res, "switch-out of a task not running"), 1);
	cr_expect_eq(res->nanomalies, 2, "'?' is a state letter, not R");
	run_done(&r);
}

Test(latency, refuses_a_bad_kind_and_a_late_start)
{
	struct run r;
	trawl_error err = {0};
	run_open(&r, trace);
	cr_expect_null(trawl_latency_new(r.t, 7, NULL, &err));
	cr_expect_eq(err.code, TRAWL_EINVAL);
	r.a = trawl_latency_new(r.t, TRAWL_LATENCY_WAKEUP, NULL, NULL);
	run_go(&r);
	cr_expect_null(
		trawl_latency_new(r.t, TRAWL_LATENCY_WAKEUP, NULL, &err));
	cr_expect_eq(err.code, TRAWL_EMISUSE);
	run_done(&r);
}
