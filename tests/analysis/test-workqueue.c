/* SPDX-License-Identifier: MIT */
/* Work item execution time and queueing delay, by hand. */
#include "analysis-test.h"

#define Q(w, fn)                                                               \
	"workqueue_queue_work: work struct=" w " function=" fn                 \
	" workqueue=events req_cpu=256 cpu=0"
#define ACT(w, fn)   "workqueue_activate_work: work struct " w " function=" fn " "
#define START(w, fn) "workqueue_execute_start: work struct " w ": function " fn
#define END(w, fn)   "workqueue_execute_end: work struct " w ": function " fn

/*
 * w1 (vmstat_update) queued at 2.000000 (activated .000001: the wait began
 *   at the queueing), runs on kworker 50 from .000010 to .000030:
 *   delay 10 us, execution 20 us. Queued again at .000040 twice (the
 *   second is a no-op for the kernel; the first counts), runs .000100 to
 *   .000104: delay 60 us, execution 4 us.
 * w2 (flush_fn) only activated at .000005 (queueing not seen), runs on
 *   kworker 51 .000050 .. .000051: delay 45 us, execution 1 us.
 * kworker 52 ends a work it never started (the trace began mid-way).
 * execution: vmstat_update {20000, 4000}, flush_fn {1000};
 *   overall {1000, 4000, 20000}: p50 4000, p90 20000.
 * queue_delay: vmstat_update {10000, 60000}, flush_fn {45000}.
 */
static const char trace[] = L("a-10", 0, "2.000000",
			      Q("00000000aaaa0001", "vmstat_update"))
	L("a-10", 0, "2.000001", ACT("00000000aaaa0001", "vmstat_update")) L(
		"a-10", 0, "2.000005",
		ACT("00000000bbbb0002",
		    "flush_fn")) L("kworker/0:1-50", 0, "2.000010",
				   START("00000000aaaa0001", "vmstat_update"))
		L("kworker/0:1-50", 0, "2.000030",
		  END("00000000aaaa0001",
		      "vmstat_update")) L("kworker/0:2-52", 1, "2.000035",
					  END("00000000cccc0003", "other_fn"))
			L("a-10", 0, "2.000040",
			  Q("00000000aaaa0001",
			    "vmstat_update")) L("a-10", 0, "2.000041",
						Q("00000000aaaa0001",
						  "vmstat_update"))
				L("kworker/1:1-51", 1, "2.000050",
				  START("00000000bbbb0002",
					"flush_fn")) L("kworker/1:1-51", 1,
						       "2.000051",
						       END("00000000bbbb0002",
							   "flush_fn"))
					L("kworker/0:1-50", 0, "2.000100",
					  START("00000000aaaa0001",
						"vmstat_update"))
						L("kworker/0:1-50", 0,
						  "2.000104",
						  END("00000000aaaa0001",
						      "vmstat_update"));

Test(workqueue, execution_and_queue_delay_by_hand)
{
	struct run r;
	run_open(&r, trace);
	r.a = trawl_workqueue_new(r.t, NULL, NULL);
	run_go(&r);
	const trawl_result *ex = trawl_analysis_result(r.a, 0);
	cr_expect_str_eq(ex->name, "execution");
	cr_assert_eq(ex->nrows, 2);
	assert_summary(row_named(ex, "vmstat_update", -1)->s, 2, 4000, 4000,
		       20000, 20000, 20000);
	assert_summary(row_named(ex, "flush_fn", -1)->s, 1, 1000, 1000, 1000,
		       1000, 1000);
	assert_summary(ex->overall, 3, 1000, 4000, 20000, 20000, 20000);
	cr_expect_eq(anomaly(ex, "execute_end without execute_start"), 1);
	const trawl_result *qd = trawl_analysis_result(r.a, 1);
	cr_expect_str_eq(qd->name, "queue_delay");
	assert_summary(row_named(qd, "vmstat_update", -1)->s, 2, 10000, 10000,
		       60000, 60000, 60000);
	assert_summary(row_named(qd, "flush_fn", -1)->s, 1, 45000, 45000, 45000,
		       45000, 45000);
	cr_expect_null(trawl_analysis_result(r.a, 2));
	run_done(&r);
}

Test(workqueue, comm_filter_selects_the_worker)
{
	struct run r;
	trawl_analysis_opts o = {0};
	o.filter.set = TRAWL_FILTER_COMM;
	o.filter.comm = "kworker/1:1";
	run_open(&r, trace);
	r.a = trawl_workqueue_new(r.t, &o, NULL);
	run_go(&r);
	const trawl_result *ex = trawl_analysis_result(r.a, 0);
	cr_assert_eq(ex->nrows, 1);
	cr_expect_str_eq(ex->rows[0].name, "flush_fn");
	run_done(&r);
}
