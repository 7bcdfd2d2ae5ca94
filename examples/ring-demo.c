/* SPDX-License-Identifier: MIT */
/*
 * ring-demo: an application writing its own events into a trawl ring
 * channel named "demo" while `trawl record --app demo` records it with the
 * kernel's events. Four threads render "frames" for about 1.5 seconds: a
 * slice per frame, a typed "frame" event with its fields, a queue-depth
 * counter and a "vsync" instant; they sleep between frames, so the
 * kernel's sched_switch shows them coming and going. At the end it prints
 * what each thread wrote (events the ring took, not dropped ones), for a
 * reader of the recording to check against:
 *
 *	ring-demo: thread 0 tid 1234 slices 380 frames 380 counters 380
 *	instants 38 dropped 0
 *
 *	trawl record -e sched:sched_switch --app demo --
 *build/examples/ring-demo ring-demo [SECONDS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <trawl/ring.h>

#define THREADS 4

struct frame {
	uint32_t id;
	uint32_t thread;
	uint64_t work_ns;
	uint32_t stage; /* STR slot, filled in by trawl_ring_emit() */
	uint32_t pad;
};

/* What one thread wrote: trawl_ring_emit() returned 0 (written) or 1
 * (dropped; the reader counts those as lost). */
struct written {
	unsigned long tid;
	unsigned long slices, frames, counters, instants, dropped;
};

static trawl_ring *ring;
static struct written written[THREADS];
static trawl_ring_type *frame_type;
static double seconds = 1.5;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void tally(struct written *w, unsigned long *n, int rc)
{
	if (rc == 0)
		(*n)++;
	else
		w->dropped++;
}

static void *render(void *arg)
{
	uint32_t thread = (uint32_t)(uintptr_t)arg;
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	static const char *const stages[] = {"layout", "paint", "composite"};
	struct written *w = &written[thread];
	w->tid = (unsigned long)gettid();
	/* a slice counts when both ends were written */
	for (uint32_t id = 0; now_ns() < end; id++) {
		int begun = trawl_ring_slice_begin(ring, "frame") == 0;
		uint64_t start = now_ns();
		/* some work: 50-250 us of spinning */
		uint64_t spin = 50000 + (id * 7919 + thread * 104729) % 200000;
		volatile uint64_t x = 0;
		while (now_ns() - start < spin)
			x++;
		struct frame f = {id, thread, now_ns() - start, 0, 0};
		if (trawl_ring_on(frame_type))
			tally(w, &w->frames,
			      trawl_ring_emit(frame_type, &f, sizeof(f),
					      stages[id % 3]));
		tally(w, &w->counters,
		      trawl_ring_counter(ring, "queue_depth",
					 (int64_t)((id + thread) % 8)));
		if (id % 10 == 0)
			tally(w, &w->instants,
			      trawl_ring_instant(ring, "vsync"));
		int ended = trawl_ring_slice_end(ring, "frame") == 0;
		if (begun && ended)
			w->slices++;
		else
			w->dropped += !begun + !ended;
		usleep(1000 + thread * 300);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		seconds = atof(argv[1]);
	trawl_error err = {0};
	trawl_ring_opts opts = {.flags = TRAWL_RING_REPLACE};
	ring = trawl_ring_create("demo", &opts, &err);
	if (!ring) {
		fprintf(stderr, "ring-demo: %s\n", err.msg);
		return 1;
	}
	static const trawl_ring_field fields[] = {
		{"id", TRAWL_RING_U32},
		{"thread", TRAWL_RING_U32},
		{"work_ns", TRAWL_RING_U64},
		{"stage", TRAWL_RING_STR},
	};
	frame_type = trawl_ring_type_new(ring, "frame", fields, 4, &err);
	if (!frame_type) {
		fprintf(stderr, "ring-demo: %s\n", err.msg);
		return 1;
	}
	pthread_t th[THREADS];
	for (uintptr_t i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, render, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	trawl_ring_close(ring);
	for (int i = 0; i < THREADS; i++)
		printf("ring-demo: thread %d tid %lu slices %lu frames %lu "
		       "counters %lu instants %lu dropped %lu\n",
		       i, written[i].tid, written[i].slices, written[i].frames,
		       written[i].counters, written[i].instants,
		       written[i].dropped);
	return 0;
}
