/* SPDX-License-Identifier: MIT */
/*
 * The C callback benchmark: read next_pid/prev_pid of every sched_switch and
 * pid of every sched_wakeup through field handles, as an analysis would.
 * Prints wall time, events delivered per second and callback events per
 * second. usage: bench-callback FILE [REPEAT]
 * Environment: BENCH_SOURCE_ORDER=1 skips the order pre-scan (the delivery
 * pass alone); BENCH_THREADS=N sets trawl_open_opts.threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <trawl/trawl.h>

struct state {
	trawl_field next_pid, prev_pid, wake_pid;
	uint64_t switches, wakeups, checksum;
};

static int on_switch(const trawl_event *ev, void *ctx)
{
	struct state *s = ctx;
	s->checksum += (uint64_t)trawl_event_int(ev, s->next_pid) * 31 +
		       (uint64_t)trawl_event_int(ev, s->prev_pid);
	s->switches++;
	return 0;
}

static int on_wakeup(const trawl_event *ev, void *ctx)
{
	struct state *s = ctx;
	s->checksum += (uint64_t)trawl_event_int(ev, s->wake_pid);
	s->wakeups++;
	return 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench-callback FILE [REPEAT]\n");
		return 1;
	}
	int repeat = argc > 2 ? atoi(argv[2]) : 3;
	if (repeat < 1 || repeat > 100)
		repeat = 3;
	double times[100];
	struct state s = {0};
	uint64_t events = 0;
	for (int r = 0; r < repeat; r++) {
		trawl_error err;
		/* BENCH_SOURCE_ORDER=1 times the delivery pass alone. */
		trawl_open_opts o = {0};
		if (getenv("BENCH_SOURCE_ORDER"))
			o.flags |= TRAWL_OPEN_SOURCE_ORDER;
		if (getenv("BENCH_THREADS"))
			o.threads = atoi(getenv("BENCH_THREADS"));
		trawl_trace *t = trawl_open(argv[1], &o, &err);
		if (!t) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		s = (struct state){0};
		s.next_pid = trawl_field_lookup(t, "sched_switch", "next_pid");
		s.prev_pid = trawl_field_lookup(t, "sched_switch", "prev_pid");
		s.wake_pid = trawl_field_lookup(t, "sched_wakeup", "pid");
		trawl_on(t, "sched_switch", on_switch, &s);
		trawl_on(t, "sched_wakeup", on_wakeup, &s);
		double a = now();
		if (trawl_run(t, &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		times[r] = now() - a;
		events = trawl_trace_stats(t)->events;
		trawl_close(t);
	}
	qsort(times, (size_t)repeat, sizeof(times[0]), cmp_double);
	double med = times[repeat / 2];
	uint64_t cb = s.switches + s.wakeups;
	printf("median %.3f s over %d runs; %llu events (%.1f M/s), "
	       "%llu sched_switch+sched_wakeup callbacks (%.1f M/s), "
	       "checksum %llu\n",
	       med, repeat, (unsigned long long)events,
	       (double)events / med / 1e6, (unsigned long long)cb,
	       (double)cb / med / 1e6, (unsigned long long)s.checksum);
	return 0;
}
