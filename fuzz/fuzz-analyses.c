/* SPDX-License-Identifier: MIT */
/*
 * Every analysis at once over whatever text: sched_switch, wakeup, irq,
 * workqueue and atrace marker sequences in any order and with any values
 * (exits without entries, switches of tasks never seen, times going back).
 *
 * Input: the trace text. All seven analyses subscribe to one run (the
 * first input byte picks a --from/--to window, a pid or a pids filter
 * sometimes); then
 * every part of every result is read and checked for what must hold: counts
 * that add up, min <= p50 <= p90 <= p99 <= max, worst instances inside the
 * trace's span.
 */
#include <trawl/analysis.h>

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_summary(const trawl_summary *s)
{
	if (!s->count)
		return;
	FUZZ_CHECK(s->min <= s->p50 && s->p50 <= s->p90 && s->p90 <= s->p99 &&
			   s->p99 <= s->max,
		   "percentiles out of order: %lld %lld %lld %lld %lld",
		   (long long)s->min, (long long)s->p50, (long long)s->p90,
		   (long long)s->p99, (long long)s->max);
}

static void check(trawl_analysis *a)
{
	if (!a)
		return;
	for (unsigned part = 0; part < 8; part++) {
		const trawl_result *r = trawl_analysis_result(a, part);
		if (!r)
			break;
		check_summary(&r->overall);
		uint64_t sum = 0;
		for (size_t i = 0; i < r->nrows; i++) {
			check_summary(&r->rows[i].s);
			sum += r->rows[i].s.count;
		}
		FUZZ_CHECK(r->nrows == 0 || sum >= r->overall.count ||
				   r->overall.count == 0,
			   "%s: rows count %llu, overall %llu", r->name,
			   (unsigned long long)sum,
			   (unsigned long long)r->overall.count);
		for (size_t i = 0; i < r->nworst; i++)
			FUZZ_CHECK(r->worst[i].end >= r->worst[i].start,
				   "%s: an instance ends before it starts",
				   r->name);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fz_memfd(data, size);
	FUZZ_CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	trawl_open_opts o;
	memset(&o, 0, sizeof(o));
	o.threads = 1;
	o.sort_memory = 1u << 20;
	trawl_error err;
	trawl_trace *t = trawl_open_fd(fd, "<memfd>", &o, &err);
	if (!t) {
		fz_check_error(-err.code, &err);
		close(fd);
		return 0;
	}
	trawl_analysis_opts ao;
	memset(&ao, 0, sizeof(ao));
	ao.worst = 3;
	if (size && (data[0] & 3) == 1) {
		ao.filter.set = TRAWL_FILTER_FROM | TRAWL_FILTER_TO;
		ao.filter.from = 1000;
		ao.filter.to = 2000000000;
	} else if (size && (data[0] & 3) == 2) {
		ao.filter.set = TRAWL_FILTER_PID;
		ao.filter.pid = 1;
	} else if (size && (data[0] & 7) == 3) {
		static const int pids[] = {7, 1, 0, 1};
		ao.filter.set = TRAWL_FILTER_PIDS;
		ao.filter.pids = pids;
		ao.filter.npids = 4;
	}
	trawl_irq_opts io;
	memset(&io, 0, sizeof(io));
	io.base = ao;
	io.threshold = 1000;
	trawl_analysis *an[7] = {
		trawl_latency_new(t, TRAWL_LATENCY_WAKEUP, &ao, &err),
		trawl_latency_new(t, TRAWL_LATENCY_PREEMPT, &ao, &err),
		trawl_irq_new(t, &io, &err),
		trawl_workqueue_new(t, &ao, &err),
		trawl_slices_new(t, &ao, &err),
		trawl_sched_new(t, &ao, &err),
		trawl_power_new(t, &ao, &err),
	};
	memset(&err, 0, sizeof(err));
	int rc = trawl_run(t, &err);
	if (rc)
		fz_check_error(rc, &err);
	for (int i = 0; i < 7; i++) {
		if (rc == 0)
			check(an[i]);
		if (i == 5 && an[i] && rc == 0) {
			const trawl_sched_report *s = trawl_sched_result(an[i]);
			for (size_t k = 0; s && k < s->ntasks; k++)
				FUZZ_CHECK(s->tasks[k].run >= 0 &&
						   s->tasks[k].runnable >= 0 &&
						   s->tasks[k].sleep >= 0,
					   "negative time for pid %d",
					   (int)s->tasks[k].pid);
		}
		if (i == 6 && an[i] && rc == 0) {
			/* residency: no state lasts less than nothing, and
			 * the rows come by CPU */
			for (unsigned part = 0; part < 2; part++) {
				const trawl_result *r =
					trawl_analysis_result(an[i], part);
				for (size_t k = 0; r && k < r->nrows; k++) {
					FUZZ_CHECK(r->rows[k].s.total >= 0,
						   "negative residency");
					FUZZ_CHECK(
						!k || r->rows[k - 1].cpu <=
								r->rows[k].cpu,
						"power rows out of order");
				}
			}
		}
		trawl_analysis_free(an[i]);
	}
	trawl_close(t);
	close(fd);
	return 0;
}
