/* SPDX-License-Identifier: MIT */
/*
 * Out-of-memory sweep of a live session (include/trawl/live.h), as
 * test-record-oom.c does for the recorder: allocation N of open, enable,
 * start, a run until the stop, finish and free fails. Each failure must be
 * a clean error (or events simply missing from the run) with every
 * tracefs setting put back (no instance left behind) and, with ASan, no
 * leak. Opening names every event (thousands of allocations), so
 * between its first 150 and its last 50 one in 101 is failed; every one
 * of start, the run, finish and free is. Needs root and
 * tracefs (it traces for real, a moment each time): skipped otherwise.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "trawl/trawl.h"

#include "../helpers/helpers.h"

static int count_event(const trawl_event *ev, void *ctx)
{
	(void)ev;
	(*(long *)ctx)++;
	return 0;
}

Test(live_oom, every_failed_allocation_of_a_session_is_a_clean_error,
     .timeout = 600)
{
	const char *why = tracing_unavailable();
	if (why)
		cr_skip_test("%s", why);
	/* how many allocations opening takes: past them, every one fails */
	struct fault probe = {.countdown = LONG_MAX};
	trawl_live_opts po = {.flags = TRAWL_LIVE_NO_KALLSYMS,
			      .realloc = fault_realloc,
			      .alloc_ctx = &probe};
	trawl_live_free(trawl_live_open(&po, NULL));
	long opened = LONG_MAX - probe.countdown;
	long n, tries = 0;
	int failures = 0;
	for (n = 0;; n += n < 150 || n > opened - 50 ? 1 : 101, tries++) {
		struct fault f = {.countdown = n};
		trawl_live_opts o = {.flags = TRAWL_LIVE_NO_KALLSYMS,
				     .realloc = fault_realloc,
				     .alloc_ctx = &f};
		trawl_error err = {0};
		long events = 0;
		int rc = -1;
		trawl_live *lv = trawl_live_open(&o, &err);
		trawl_trace *t = trawl_live_trace(lv);
		if (lv &&
		    trawl_on(t, "sched:sched_switch", count_event, &events) ==
			    0 &&
		    trawl_live_enable(lv, "sched:sched_switch", "prev_pid != 0",
				      &err) == 0 &&
		    trawl_live_start(lv, &err) == 0) {
			usleep(20000);
			trawl_live_stop(lv);
			rc = trawl_run(t, &err);
			int frc = trawl_live_finish(lv, &err);
			if (rc == 0)
				rc = frc;
		}
		trawl_live_free(lv);
		int fired = __atomic_load_n(&f.fired, __ATOMIC_RELAXED);
		cr_assert(!own_instance_left(),
			  "allocation %ld failed: the instance is left", n);
		cr_assert_eq(__atomic_load_n(&f.live, __ATOMIC_RELAXED), 0,
			     "allocation %ld: %ld blocks not freed", n,
			     __atomic_load_n(&f.live, __ATOMIC_RELAXED));
		if (!fired) {
			cr_assert_eq(rc, 0,
				     "a session without a failed "
				     "allocation failed: %s",
				     err.msg);
			break;
		}
		if (rc < 0 && err.code)
			failures++;
	}
	cr_log_info("%ld allocations (%ld to open), %ld tried, %d failed "
		    "sessions",
		    n, opened, tries, failures);
	cr_assert_gt(n, 150, "the session allocates through the hook");
}
