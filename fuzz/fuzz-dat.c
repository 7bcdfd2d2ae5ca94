/* SPDX-License-Identifier: MIT */
/*
 * The trace.dat reader on whatever bytes: headers, sections, options,
 * compressed chunks and ring-buffer pages that lie about their sizes.
 *
 * Input: the file itself (the seeds are real v6 and v7 recordings).
 * A reads it from a mapped memfd, B by path in strict mode, C from a pipe
 * (copied to a temporary file first). A and C must end the same way, with
 * the same events; B must agree with A when A found no damage, and fail
 * with -TRAWL_EPARSE when it did. D runs the middle third as a ranged run
 * (TRAWL_OPEN_RANGE: the pages or chunks searched). Every event is taken
 * apart (fields by handle and by enumeration, text, copies) by
 * fuzz-common.h.
 */
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fz_memfd(data, size);
	FUZZ_CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	fz_run r;
	memset(&r, 0, sizeof(r));
	trawl_open_opts o;
	memset(&o, 0, sizeof(o));
	o.sort_memory = 1u << 20;
	trawl_error err;

	/* A: mapped; B: by path, strict */
	fz_result a;
	fz_mapped_and_strict(fd, size, &r, &o, &a);

	/* D: a ranged run over the middle third: no more events than the
	 * whole, in time order (fz_run_trace checks), damage or not */
	if (a.open_rc == 0 && a.events > 2) {
		int dfd = fz_memfd(data, size);
		if (dfd >= 0) {
			/* damaged times may span more than int64_t holds */
			uint64_t third = ((uint64_t)a.stats.last_time -
					  (uint64_t)a.stats.first_time) /
					 3;
			trawl_open_opts d = o;
			d.flags = TRAWL_OPEN_RANGE;
			d.threads = size % 3 == 0 ? 2 : 1;
			d.from =
				(int64_t)((uint64_t)a.stats.first_time + third);
			d.to = (int64_t)((uint64_t)d.from + third);
			memset(&err, 0, sizeof(err));
			fz_result g;
			fz_run_trace(trawl_open_fd(dfd, "<memfd>", &d, &err),
				     &err, &r, &g);
			close(dfd);
			if (a.run_rc == 0 && a.stats.bad_lines == 0)
				FUZZ_CHECK(
					g.run_rc == 0 && g.events <= a.events,
					"ranged: rc %d, %llu of %llu events",
					g.run_rc, (unsigned long long)g.events,
					(unsigned long long)a.events);
		}
	}

	/* C: a pipe, copied aside and read the same way */
	int pfd = fz_pipe(data, size);
	if (pfd >= 0) {
		o.flags = 0;
		o.threads = 0;
		r.copy_every = 2;
		memset(&err, 0, sizeof(err));
		fz_result c;
		fz_run_trace(trawl_open_fd(pfd, "<pipe>", &o, &err), &err, &r,
			     &c);
		close(pfd);
		/* a perf.data (its magic, mutated in) is spooled as a
		 * trace.dat is */
		if (a.format == TRAWL_FORMAT_TRACE_DAT ||
		    a.format == TRAWL_FORMAT_PERF_DATA || a.open_rc)
			fz_same(&a, &c, "mapped vs pipe");
	}
	return 0;
}
