/* SPDX-License-Identifier: MIT */
/* CPU frequency and idle state residency, by hand. */
#include "analysis-test.h"

/*
 * cpu 0 (written on cpu 0): idle state 1 at 1.000000, out at 1.000100,
 *   state 2 at 1.000400, out at 1.001000, an exit again at 1.001500 (not
 *   idle: an anomaly), state 1 at 1.002000 open to the end (1.010000).
 *   state 1 = {100 us, 8000 us}; state 2 = {600 us}; active = {300 us,
 *   1000 us}; known span 1.000000 .. 1.010000 = 10 ms.
 * cpu 1: an exit first (the state before is not known: nothing counted,
 *   no anomaly) at 1.000050, state 1 at 1.000250, then state 2 at
 *   1.000350 without an exit (an anomaly; state 1 ends there) to the end.
 * frequency: cpu 0 at 1800000 kHz from 1.000000, set from cpu 1 (cpu_id
 *   0) to 600000 at 1.004000, 600000 again at 1.005000 (the same: one
 *   interval), then 1800000 at 1.008000: 1800000 = {4 ms, 2 ms},
 *   600000 = {4 ms}; cpu 1 at 2400500 kHz from 1.006000: {4 ms}.
 *   A cpu_id of -1 is an anomaly.
 */
static const char trace[] = L(
	"<idle>-0", 0, "1.000000",
	"cpu_idle: state=1 cpu_id=0") L("<idle>-0", 0, "1.000000",
					"cpu_frequency: state=1800000 cpu_id=0")
	L("<idle>-0", 1, "1.000050", "cpu_idle: state=4294967295 cpu_id=1") L(
		"<idle>-0", 0, "1.000100",
		"cpu_idle: state=4294967295 cpu_id=0") L("<idle>-0", 1,
							 "1.000250",
							 "cpu_idle: state=1 "
							 "cpu_id=1")
		L("<idle>-0", 1, "1.000350", "cpu_idle: state=2 cpu_id=1") L(
			"<idle>-0", 0, "1.000400",
			"cpu_idle: state=2 cpu_id=0") L("<idle>-0", 0,
							"1.001000",
							"cpu_idle: "
							"state=4294967295 "
							"cpu_id=0")
			L("<idle>-0", 0, "1.001500",
			  "cpu_idle: state=4294967295 cpu_id=0") L("<idle>-0",
								   0,
								   "1.002000",
								   "cpu_idle: "
								   "state=1 "
								   "cpu_id=0")
				L("kw-5", 1, "1.004000",
				  "cpu_frequency: state=600000 cpu_id=0")
					L("kw-5", 1, "1.005000",
					  "cpu_frequency: state=600000 "
					  "cpu_id=0") L("kw-5", 1, "1.006000",
							"cpu_frequency: "
							"state=2400500 "
							"cpu_id=1")
						L("kw-5", 1, "1.007000",
						  "cpu_frequency: state=5 "
						  "cpu_id=-1") L("kw-5", 1,
								 "1.008000",
								 "cpu_"
								 "frequency: "
								 "state="
								 "1800000 "
								 "cpu_id=0")
							L("a-10", 0, "1.010000",
							  "sched_switch: "
							  "prev_comm=a "
							  "prev_pid=10 "
							  "prev_prio=120 "
							  "prev_state=S ==> "
							  "next_comm=swapper/0 "
							  "next_pid=0 "
							  "next_prio=120");

static const trawl_row *row_of(const trawl_result *res, int cpu, int64_t id)
{
	for (size_t i = 0; i < res->nrows; i++)
		if (res->rows[i].cpu == cpu && res->rows[i].id == id)
			return &res->rows[i];
	cr_assert_fail("no row cpu %d id %lld", cpu, (long long)id);
	return NULL;
}

Test(power, residency_by_hand)
{
	struct run r;
	run_open(&r, trace);
	r.a = trawl_power_new(r.t, NULL, NULL);
	run_go(&r);
	const trawl_result *f = trawl_analysis_result(r.a, 0);
	cr_assert_str_eq(f->name, "frequency");
	cr_assert_eq(f->nrows, 3);
	const trawl_row *hi = row_of(f, 0, 1800000);
	cr_expect_str_eq(hi->name, "1800 MHz");
	cr_expect_str_eq(hi->kind, "frequency");
	cr_expect_eq(hi->s.count, 2);
	cr_expect_eq(hi->s.total, 6000000);
	cr_expect_eq(hi->s.max, 4000000);
	cr_expect_eq(hi->max_at, 1000000000);
	const trawl_row *lo = row_of(f, 0, 600000);
	cr_expect_eq(lo->s.count, 1, "600000 twice is one interval");
	cr_expect_eq(lo->s.total, 4000000);
	const trawl_row *c1 = row_of(f, 1, 2400500);
	cr_expect_str_eq(c1->name, "2400.500 MHz");
	cr_expect_eq(c1->s.total, 4000000);
	/* by CPU, then by frequency */
	cr_expect_eq(f->rows[0].id, 600000);
	cr_expect_eq(f->rows[1].id, 1800000);
	cr_expect_eq(f->rows[2].cpu, 1);
	cr_expect_eq(anomaly(f, "cpu_id that is no CPU"), 1);

	const trawl_result *i = trawl_analysis_result(r.a, 1);
	cr_assert_str_eq(i->name, "idle");
	cr_assert_eq(i->nrows, 6);
	const trawl_row *s1 = row_of(i, 0, 1);
	cr_expect_str_eq(s1->name, "state 1", "a text trace names none");
	cr_expect_eq(s1->s.count, 2);
	cr_expect_eq(s1->s.total, 100000 + 8000000);
	cr_expect_eq(row_of(i, 0, 2)->s.total, 600000);
	const trawl_row *act = row_of(i, 0, -1);
	cr_expect_str_eq(act->name, "active");
	cr_expect_eq(act->s.count, 2);
	cr_expect_eq(act->s.total, 300000 + 1000000);
	cr_expect_eq(i->rows[0].id, -1, "active first");
	/* cpu 0's rows add up to its known 10 ms */
	int64_t sum = 0;
	for (size_t k = 0; k < i->nrows; k++)
		if (i->rows[k].cpu == 0)
			sum += i->rows[k].s.total;
	cr_expect_eq(sum, 10000000);
	cr_expect_eq(row_of(i, 1, -1)->s.total, 200000,
		     "from cpu 1's exit to its entry");
	cr_expect_eq(row_of(i, 1, 1)->s.total, 100000);
	cr_expect_eq(row_of(i, 1, 2)->s.total, 9650000);
	cr_expect_eq(anomaly(i, "idle exit while not idle"), 1);
	cr_expect_eq(anomaly(i, "idle entry while idle"), 1);
	cr_expect_eq(i->nworst, 8);
	cr_expect_eq(i->worst[0].end - i->worst[0].start, 9650000);
	run_done(&r);
}

Test(power, window)
{
	struct run r;
	trawl_analysis_opts o = {0};
	o.filter.set = TRAWL_FILTER_FROM | TRAWL_FILTER_TO;
	o.filter.from = 1000300000;
	o.filter.to = 1009000000;
	run_open(&r, trace);
	r.a = trawl_power_new(r.t, &o, NULL);
	run_go(&r);
	/* the window begins at .000300: cpu 0's first event in it is the
	 * state 2 entry at .000400; everything ends at --to */
	const trawl_result *i = trawl_analysis_result(r.a, 1);
	cr_expect_eq(row_of(i, 0, 2)->s.total, 600000);
	cr_expect_eq(row_of(i, 0, 1)->s.total, 7000000);
	const trawl_result *f = trawl_analysis_result(r.a, 0);
	cr_expect_eq(row_of(f, 0, 600000)->s.total, 4000000);
	cr_expect_eq(row_of(f, 0, 1800000)->s.total, 1000000);
	run_done(&r);
}

Test(power, no_events)
{
	struct run r;
	run_open(&r, L("a-10", 0, "1.000000",
		       "sched_switch: prev_comm=a "
		       "prev_pid=10 prev_prio=120 "
		       "prev_state=S ==> "
		       "next_comm=b next_pid=11 "
		       "next_prio=120"));
	r.a = trawl_power_new(r.t, NULL, NULL);
	run_go(&r);
	cr_expect_eq(trawl_analysis_result(r.a, 0)->nrows, 0);
	cr_expect_eq(trawl_analysis_result(r.a, 1)->overall.count, 0);
	cr_expect_null(trawl_analysis_result(r.a, 2));
	run_done(&r);
}
