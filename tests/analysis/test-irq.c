/* SPDX-License-Identifier: MIT */
/* Hardirq / softirq durations and the long-handler warnings, by hand. */
#include "analysis-test.h"

/*
 * cpu 0: irq 36 "virtio" 10 us (.000000-.000010), then 2 ms
 *   (.001000-.003000): over the default 1 ms threshold.
 *   softirq BLOCK (4) 5 us; during it a hardirq 36 of 1 us (different
 *   kinds do not disturb each other).
 * cpu 1: an exit without entry (the trace began inside the handler), then
 *   an entry never closed before another entry: one anomaly each.
 * hardirq 36/cpu0 = {10000, 2000000, 1000}: min 1000, p50 10000, max 2 ms.
 * softirq 4/cpu0 = {5000}.
 * cpu 1 irq 40 = {4000} (the second entry at .000030 .. exit .000034).
 * overall = {1000, 4000, 5000, 10000, 2000000}: p50 = 3rd = 5000,
 *   p90 = p99 = 5th = 2000000.
 */
static const char trace[] = L(
	"a-10", 0, "1.000000",
	"irq_handler_entry: irq=36 name=virtio") L("a-10", 0, "1.000010",
						   "irq_handler_exit: irq=36 "
						   "ret=handled")
	L("a-10", 0, "1.001000", "irq_handler_entry: irq=36 name=virtio") L(
		"a-10", 0, "1.003000", "irq_handler_exit: irq=36 ret=handled")
		L("a-10", 0, "1.004000",
		  "softirq_entry: vec=4 [action=BLOCK]") L("a-10", 0,
							   "1.004001",
							   "irq_handler_entry: "
							   "irq=36 name=virtio")
			L("a-10", 0, "1.004002",
			  "irq_handler_exit: irq=36 ret=handled")
				L("a-10", 0, "1.004005",
				  "softirq_exit: vec=4 [action=BLOCK]")
					L("b-20", 1, "1.000005",
					  "irq_handler_exit: irq=40 "
					  "ret=handled") L("b-20", 1,
							   "1.000020",
							   "irq_handler_entry: "
							   "irq=40 name=eth0")
						L("b-20", 1, "1.000030",
						  "irq_handler_entry: irq=40 "
						  "name=eth0")
							L("b-20", 1, "1.000034",
							  "irq_handler_exit: "
							  "irq=40 ret=handled");

struct longs {
	int n;
	trawl_instance in[4];
	const char *kind[4];
};

static void on_long(const trawl_instance *in, const char *kind, void *ctx)
{
	struct longs *l = ctx;
	if (l->n < 4) {
		l->kind[l->n] = kind;
		l->in[l->n++] = *in;
	}
}

Test(irq, durations_by_hand)
{
	struct run r;
	struct longs l = {0};
	trawl_irq_opts o = {.on_long = on_long, .ctx = &l};
	run_open(&r, trace);
	r.a = trawl_irq_new(r.t, &o, NULL);
	run_go(&r);
	const trawl_result *res = trawl_analysis_result(r.a, 0);
	cr_assert_eq(res->nrows, 3);
	const trawl_row *h = row_named(res, "virtio", 36);
	cr_expect_str_eq(h->kind, "hardirq");
	cr_expect_eq(h->cpu, 0);
	assert_summary(h->s, 3, 1000, 10000, 2000000, 2000000, 2000000);
	cr_expect_eq(h->max_at, 1001000000);
	const trawl_row *s = row_named(res, "BLOCK", 4);
	cr_expect_str_eq(s->kind, "softirq");
	assert_summary(s->s, 1, 5000, 5000, 5000, 5000, 5000);
	const trawl_row *e = row_named(res, "eth0", 40);
	cr_expect_eq(e->cpu, 1);
	assert_summary(e->s, 1, 4000, 4000, 4000, 4000, 4000);
	assert_summary(res->overall, 5, 1000, 5000, 2000000, 2000000, 2000000);
	cr_expect_eq(anomaly(res, "irq exit without entry"), 1);
	cr_expect_eq(anomaly(res, "irq entry without exit"), 1);
	cr_expect_eq(trawl_irq_long_count(r.a), 1);
	cr_assert_eq(l.n, 1);
	cr_expect_str_eq(l.kind[0], "hardirq");
	cr_expect_eq(l.in[0].start, 1001000000);
	cr_expect_eq(l.in[0].end, 1003000000);
	cr_expect_eq(l.in[0].pid, 10, "the interrupted task");
	run_done(&r);
}

Test(irq, threshold_and_filter)
{
	struct run r;
	trawl_irq_opts o = {.threshold = 4500};
	o.base.filter.set = TRAWL_FILTER_PID;
	o.base.filter.pid = 10;
	run_open(&r, trace);
	r.a = trawl_irq_new(r.t, &o, NULL);
	run_go(&r);
	const trawl_result *res = trawl_analysis_result(r.a, 0);
	/* pid 10 only: cpu 1's eth0 interrupted b (20) */
	cr_expect_eq(res->nrows, 2);
	cr_expect_eq(res->overall.count, 4);
	/* over 4.5 us: 10 us, 2 ms, the 5 us softirq */
	cr_expect_eq(trawl_irq_long_count(r.a), 3);
	run_done(&r);
}

Test(irq, pids_filter)
{
	/* the interrupted task among a list (unsorted, with a stranger);
	 * with --pid too, both must pass */
	static const int pids[] = {20, 99, 10};
	struct {
		unsigned set;
		int pid;
		size_t npids, rows;
		uint64_t count;
	} cases[] = {
		{TRAWL_FILTER_PIDS, 0, 3, 3, 5},
		{TRAWL_FILTER_PIDS, 0, 1, 1, 1}, /* {20}: cpu 1's eth0 */
		{TRAWL_FILTER_PIDS, 0, 0, 0, 0}, /* no task at all */
		{TRAWL_FILTER_PIDS | TRAWL_FILTER_PID, 10, 3, 2, 4},
		{TRAWL_FILTER_PIDS | TRAWL_FILTER_PID, 10, 1, 0, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r;
		trawl_irq_opts o = {0};
		o.base.filter.set = cases[i].set;
		o.base.filter.pid = cases[i].pid;
		o.base.filter.pids = pids;
		o.base.filter.npids = cases[i].npids;
		run_open(&r, trace);
		r.a = trawl_irq_new(r.t, &o, NULL);
		run_go(&r);
		const trawl_result *res = trawl_analysis_result(r.a, 0);
		cr_expect_eq(res->nrows, cases[i].rows, "case %zu", i);
		cr_expect_eq(res->overall.count, cases[i].count, "case %zu", i);
		run_done(&r);
	}
}
