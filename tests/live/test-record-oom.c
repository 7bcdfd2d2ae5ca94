/* SPDX-License-Identifier: MIT */
/*
 * Out-of-memory sweep of the recorder (as tests/core/test-oom.c does for
 * the readers): allocation N of trawl_record_start() + trawl_record_stop()
 * fails, for N = 0, 1, ... until a recording needs no more than that. Each
 * failure must be a clean error with every tracefs setting put back (no
 * instance left behind); ASan's leak check runs on top. Needs root and
 * tracefs (it records for real, a moment each time): skipped otherwise.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "trawl/record.h"

#include "../helpers/helpers.h"

/* The reader threads allocate too: the countdown is shared. */
/* instances/trawl-<our pid> exists */

Test(record_oom, every_failed_allocation_of_a_recording_is_a_clean_error,
     .timeout = 600)
{
	const char *why = tracing_unavailable();
	if (why)
		cr_skip_test("%s", why);
	char dir[] = "/tmp/trawl-record-oom-XXXXXX";
	cr_assert(mkdtemp(dir));
	char out[128];
	snprintf(out, sizeof(out), "%s/x.dat", dir);

	trawl_record_event ev[] = {{"sched:sched_switch", NULL, 0}};
	long n;
	int failures = 0;
	for (n = 0;; n++) {
		struct fault f = {.countdown = n};
		trawl_record_opts o = {.events = ev,
				       .nevents = 1,
				       .output = out,
				       .flags = TRAWL_RECORD_NO_KALLSYMS,
				       .realloc = fault_realloc,
				       .alloc_ctx = &f};
		trawl_error err = {0};
		trawl_record *r = trawl_record_start(&o, &err);
		int rc = 0;
		if (r) {
			rc = trawl_record_stop(r, &err);
			trawl_record_free(r);
		}
		int fired = __atomic_load_n(&f.fired, __ATOMIC_RELAXED);
		cr_assert(!own_instance_left(),
			  "allocation %ld failed: the instance is left", n);
		if (!fired) {
			cr_assert(r,
				  "start failed without a failed "
				  "allocation: %s",
				  err.msg);
			cr_assert_eq(rc, 0, "%s", err.msg);
			break;
		}
		if (!r || rc < 0) {
			cr_assert(err.code != 0 && err.msg[0],
				  "allocation %ld: a failure without a message",
				  n);
			failures++;
		}
	}
	cr_log_info("%ld allocations, %d failed recordings", n, failures);
	cr_assert_gt(n, 10, "the recorder allocates through the hook");
	unlink(out);
	rmdir(dir);
}
