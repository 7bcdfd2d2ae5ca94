/* SPDX-License-Identifier: MIT */
/*
 * The whole text reader on arbitrary bytes, four ways:
 *
 *   A. a memfd through trawl_open_fd(): mapped, order pre-scan, then
 *      zero-copy delivery or the sorter; for some inputs with 2 threads
 *      (threaded pre-scan, parse-ahead workers);
 *   B. the same file through trawl_open("/proc/self/fd/N") with
 *      TRAWL_OPEN_STRICT, mostly on one thread (serial pre-scan);
 *   C. a pipe holding the bytes: streamed, always through the sorter;
 *   D. the pipe again with a streaming reorder window of 1-16 events;
 *   E. the memfd again, a ranged run of the middle third (TRAWL_OPEN_RANGE).
 *
 * Every event is taken apart (fuzz-common.h), some are copied and kept past
 * their callback. A and C must deliver exactly the same events and
 * counters; B must agree with A when A saw no bad line, and fail with
 * TRAWL_EPARSE when it did. Sometimes C stops early from its callback and
 * must have seen the same first events as A. D must deliver A's events,
 * out of order only when it counts late events, in A's order when not.
 *
 * An input whose last byte is 0x01 is repeated (without that byte) until
 * it would take about 2.25 MiB in the sorter, so out-of-order input
 * outgrows the 2 MiB sort memory and sorted runs spill to a temporary file
 * (A and B only); such an input is also several parse-ahead batches.
 */
#include "fuzz-common.h"

#define SPILL_MARK  0x01
#define SPILL_BYTES (9u << 18) /* sorter bytes: 2.25 MiB */
#define SORT_MEMORY (2u << 20) /* the smallest the sorter accepts */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *text = data;
	size_t n = size;
	uint8_t *big = NULL;
	int spill = size >= 2 && data[size - 1] == SPILL_MARK;
	if (spill) {
		/* What the sorter holds per copy: bytes + 52 per line. */
		size_t unit = size - 1, lines = 1;
		for (size_t i = 0; i < unit; i++)
			lines += data[i] == '\n';
		size_t reps = SPILL_BYTES / (unit + 52 * lines) + 1;
		big = malloc(unit * reps);
		if (!big)
			return 0;
		for (size_t i = 0; i < reps; i++)
			memcpy(big + i * unit, data, unit);
		text = big;
		n = unit * reps;
	}

	int fd = fz_memfd(text, n);
	FUZZ_CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	/* a perf.data (its magic, mutated in): the perf reader's, from a
	 * file and from a pipe alike; not through the streaming window */
	int perf = size >= 8 && !memcmp(data, "PERFILE2", 8);

	fz_run r;
	memset(&r, 0, sizeof(r));
	trawl_open_opts o;
	memset(&o, 0, sizeof(o));
	o.sort_memory = SORT_MEMORY;
	trawl_error err;

	/* C may stop early after k events; A remembers its first k. */
	uint64_t stop = !spill && size % 4 == 1 ? 1 + size % 5 : 0;

	/*
	 * A: mapped memfd. Worker threads (order pre-scan and parse-ahead)
	 * for the big spill inputs and an eighth of the others: starting
	 * them costs more than parsing a small input.
	 */
	o.threads = spill || size % 8 == 0 ? 2 : 1;
	r.check_order = 1;
	r.copy_every = 3;
	r.prefix_n = stop;
	memset(&err, 0, sizeof(err));
	fz_result a;
	fz_run_trace(trawl_open_fd(fd, "<memfd>", &o, &err), &err, &r, &a);
	uint64_t a_prefix = r.prefix_digest;

	/* E: the middle third as a ranged run (the binary search on the
	 * lines' timestamps, the part between narrowed): in time order
	 * (fz_run_trace checks), no more events than A */
	if (a.open_rc == 0 && a.events > 2) {
		uint64_t third = ((uint64_t)a.stats.last_time -
				  (uint64_t)a.stats.first_time) /
				 3;
		trawl_open_opts e = o;
		e.flags = TRAWL_OPEN_RANGE;
		e.from = (int64_t)((uint64_t)a.stats.first_time + third);
		e.to = (int64_t)((uint64_t)e.from + third);
		fz_run er = r;
		er.prefix_n = 0;
		memset(&err, 0, sizeof(err));
		fz_result g;
		fz_run_trace(trawl_open_fd(fd, "<memfd>", &e, &err), &err, &er,
			     &g);
		if (a.run_rc == 0)
			FUZZ_CHECK(g.run_rc != 0 || g.events <= a.events,
				   "ranged: %llu of %llu events",
				   (unsigned long long)g.events,
				   (unsigned long long)a.events);
	}

	/* B: the same file by name, strict, serial pre-scan. */
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	o.flags = TRAWL_OPEN_STRICT;
	o.threads = !spill && size % 8 == 4 ? 2 : 1;
	r.copy_every = 5;
	r.prefix_n = 0;
	memset(&err, 0, sizeof(err));
	fz_result b;
	fz_run_trace(trawl_open(path, &o, &err), &err, &r, &b);
	close(fd);

	FUZZ_CHECK(a.open_rc == b.open_rc, "open: fd %d, path %d", a.open_rc,
		   b.open_rc);
	if (a.open_rc == 0 && a.run_rc == 0) {
		if (a.stats.bad_lines == 0) {
			FUZZ_CHECK(b.run_rc == 0, "strict failed: %d",
				   b.run_rc);
			fz_same(&a, &b, "default vs strict");
		} else {
			FUZZ_CHECK(b.run_rc == -TRAWL_EPARSE,
				   "strict with %llu bad lines returned %d",
				   (unsigned long long)a.stats.bad_lines,
				   b.run_rc);
		}
	}

	/* C: a pipe, streamed and sorted. */
	int pfd = spill ? -1 : fz_pipe(text, n);
	if (pfd >= 0) {
		o.flags = 0;
		o.threads = 0;
		r.copy_every = 2;
		r.stop_after = stop;
		memset(&err, 0, sizeof(err));
		fz_result c;
		fz_run_trace(trawl_open_fd(pfd, "<pipe>", &o, &err), &err, &r,
			     &c);
		close(pfd);
		r.stop_after = 0;
		if (stop && a.open_rc == 0 && a.run_rc == 0 &&
		    a.events >= stop) {
			FUZZ_CHECK(c.open_rc == 0 && c.run_rc == 42 &&
					   c.events == stop,
				   "stop after %llu: rc %d, %llu events",
				   (unsigned long long)stop, c.run_rc,
				   (unsigned long long)c.events);
			FUZZ_CHECK(c.digest == a_prefix,
				   "first %llu events: mapped vs pipe differ",
				   (unsigned long long)stop);
		} else {
			fz_same(&a, &c, "mapped vs pipe");
		}
	}

	/*
	 * D: the pipe again with a small streaming window (1-16 events):
	 * the same events; out of order only when counted late, and in
	 * exactly A's order when none was late.
	 */
	pfd = spill || perf ? -1 : fz_pipe(text, n);
	if (pfd >= 0) {
		size_t window = 1 + (size ? data[0] % 16u : 0);
		o.flags = 0;
		o.threads = 1;
		o.window = window;
		r.copy_every = 4;
		r.check_order = 0; /* counted instead */
		memset(&err, 0, sizeof(err));
		fz_result d;
		fz_run_trace(trawl_open_fd(pfd, "<window>", &o, &err), &err, &r,
			     &d);
		close(pfd);
		o.window = 0;
		FUZZ_CHECK(d.open_rc == a.open_rc, "window: open %d vs %d",
			   d.open_rc, a.open_rc);
		if (a.open_rc == 0 && a.run_rc == 0 && d.run_rc == 0) {
			uint64_t late = d.stats.late_events;
			FUZZ_CHECK(d.events == a.events &&
					   d.stats.bad_lines ==
						   a.stats.bad_lines &&
					   d.stats.lost_events ==
						   a.stats.lost_events &&
					   d.stats.reordered ==
						   a.stats.reordered,
				   "window %zu: %llu events, %llu bad, %llu "
				   "reordered; exact order: %llu, %llu, %llu",
				   window, (unsigned long long)d.events,
				   (unsigned long long)d.stats.bad_lines,
				   (unsigned long long)d.stats.reordered,
				   (unsigned long long)a.events,
				   (unsigned long long)a.stats.bad_lines,
				   (unsigned long long)a.stats.reordered);
			FUZZ_CHECK((late == 0) == (d.inversions == 0),
				   "window %zu: %llu late, %llu out of order",
				   window, (unsigned long long)late,
				   (unsigned long long)d.inversions);
			if (a.events <= window)
				FUZZ_CHECK(late == 0,
					   "window %zu held all %llu "
					   "events, %llu late",
					   window, (unsigned long long)a.events,
					   (unsigned long long)late);
			if (late == 0)
				FUZZ_CHECK(d.digest == a.digest,
					   "window %zu: in order but not the "
					   "exact order's events",
					   window);
			if (a.events <= FZ_FULL_EVENTS)
				FUZZ_CHECK(d.sum == a.sum,
					   "window %zu: other events", window);
		} else if (a.open_rc == 0 && a.run_rc == 0) {
			FUZZ_CHECK(0, "window run failed: %d", d.run_rc);
		}
	}
	free(big);
	return 0;
}
