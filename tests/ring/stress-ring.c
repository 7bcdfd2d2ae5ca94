/* SPDX-License-Identifier: MIT */
/*
 * Many writer threads and one reader thread on one channel, in both modes,
 * with small buffers so that they fill, wrap and are lost: every event a
 * writer was told was written is delivered once or counted as overwritten,
 * every event it was told was dropped is counted as lost, and each CPU's
 * events come in time order. A plain C program (criterion does not start
 * under ThreadSanitizer): run it in a -Db_sanitize=thread build too.
 *
 *	stress-ring [EVENTS_PER_THREAD]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trawl/ring.h"

#define THREADS 6

static int failures;
#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "stress-ring: %s:%d: %s: ", __FILE__,  \
				__LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			failures++;                                            \
		}                                                              \
	} while (0)

struct payload {
	uint32_t thread;
	uint32_t pad;
	uint64_t seq;
};

struct writer {
	pthread_t th;
	trawl_ring_type *t;
	uint32_t index;
	uint64_t events, written, dropped;
};

struct run {
	trawl_ring *r;
	uint64_t per_thread;
	unsigned char *seen[THREADS];
	uint64_t last_ts[64];
	uint64_t delivered, dups;
	int done;
};

static void *write_events(void *arg)
{
	struct writer *w = arg;
	for (uint64_t i = 0; i < w->events; i++) {
		struct payload p = {w->index, 0, i};
		int rc = trawl_ring_emit(w->t, &p, sizeof(p), NULL);
		if (rc == 0)
			w->written++;
		else if (rc == 1)
			w->dropped++;
		if ((i & 1023) == 0)
			sched_yield();
	}
	return NULL;
}

static int on_event(const trawl_ring_event *ev, void *ctx)
{
	struct run *run = ctx;
	struct payload p;
	if (ev->len < sizeof(p)) {
		failures++;
		return 1;
	}
	memcpy(&p, ev->data, sizeof(p));
	CHECK(p.thread < THREADS && p.seq < run->per_thread, "bad payload");
	if (p.thread >= THREADS || p.seq >= run->per_thread)
		return 0;
	if (run->seen[p.thread][p.seq]++)
		run->dups++;
	if (ev->cpu < 64) {
		CHECK(ev->ts >= run->last_ts[ev->cpu], "cpu %u: time goes back",
		      ev->cpu);
		run->last_ts[ev->cpu] = ev->ts;
	}
	run->delivered++;
	return 0;
}

static void *read_events(void *arg)
{
	struct run *run = arg;
	int n = trawl_ring_ncpus(run->r);
	while (!__atomic_load_n(&run->done, __ATOMIC_ACQUIRE)) {
		for (int cpu = 0; cpu < n; cpu++)
			trawl_ring_read(run->r, cpu, 0, on_event, run);
		usleep(50);
	}
	for (int cpu = 0; cpu < n; cpu++)
		trawl_ring_read(run->r, cpu, TRAWL_RING_READ_PARTIAL, on_event,
				run);
	return NULL;
}

static void stress(int mode, int ncpus, uint32_t subbufs, uint64_t per_thread)
{
	char name[64];
	snprintf(name, sizeof(name), "stress_%d_%d_%d", (int)getpid(), mode,
		 ncpus);
	trawl_ring_opts o = {.subbuf_size = 4096,
			     .subbufs = subbufs,
			     .mode = mode,
			     .ncpus = ncpus};
	trawl_error err = {0};
	trawl_ring *prod = trawl_ring_create(name, &o, &err);
	CHECK(prod, "%s", err.msg);
	if (!prod)
		return;
	static const trawl_ring_field f[] = {{"thread", TRAWL_RING_U32},
					     {"seq", TRAWL_RING_U64}};
	trawl_ring_type *t = trawl_ring_type_new(prod, "e", f, 2, &err);
	struct run run = {.per_thread = per_thread};
	run.r = trawl_ring_attach(name, &err);
	CHECK(t && run.r, "%s", err.msg);
	if (!t || !run.r)
		return;
	for (int i = 0; i < THREADS; i++)
		run.seen[i] = calloc(per_thread, 1);
	pthread_t reader;
	pthread_create(&reader, NULL, read_events, &run);
	struct writer w[THREADS];
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct writer){
			.t = t, .index = (uint32_t)i, .events = per_thread};
		pthread_create(&w[i].th, NULL, write_events, &w[i]);
	}
	uint64_t written = 0, dropped = 0;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(w[i].th, NULL);
		written += w[i].written;
		dropped += w[i].dropped;
	}
	__atomic_store_n(&run.done, 1, __ATOMIC_RELEASE);
	pthread_join(reader, NULL);

	trawl_ring_stats sum = {0};
	for (int cpu = 0; cpu < trawl_ring_ncpus(run.r); cpu++) {
		trawl_ring_stats st;
		trawl_ring_stats_get(run.r, cpu, &st);
		sum.delivered += st.delivered;
		sum.lost_full += st.lost_full;
		sum.lost_busy += st.lost_busy;
		sum.lost_retry += st.lost_retry;
		sum.overwritten += st.overwritten;
		sum.torn += st.torn;
		sum.damaged += st.damaged;
	}
	uint64_t lost = sum.lost_full + sum.lost_busy + sum.lost_retry;
	printf("mode %s, %d cpu buffers, %u sub-buffers: %lu written, %lu "
	       "dropped; delivered %lu, overwritten %lu, lost full %lu busy "
	       "%lu retry %lu\n",
	       mode ? "overwrite" : "discard", trawl_ring_ncpus(run.r), subbufs,
	       (unsigned long)written, (unsigned long)dropped,
	       (unsigned long)sum.delivered, (unsigned long)sum.overwritten,
	       (unsigned long)sum.lost_full, (unsigned long)sum.lost_busy,
	       (unsigned long)sum.lost_retry);
	CHECK(written + dropped == THREADS * per_thread, "emit results");
	CHECK(run.dups == 0, "%lu delivered twice", (unsigned long)run.dups);
	CHECK(sum.delivered == run.delivered, "delivered count");
	CHECK(sum.delivered + sum.overwritten == written,
	      "delivered %lu + overwritten %lu != written %lu",
	      (unsigned long)sum.delivered, (unsigned long)sum.overwritten,
	      (unsigned long)written);
	CHECK(lost == dropped, "lost %lu != dropped %lu", (unsigned long)lost,
	      (unsigned long)dropped);
	CHECK(sum.torn == 0 && sum.damaged == 0, "torn %lu damaged %lu",
	      (unsigned long)sum.torn, (unsigned long)sum.damaged);
	if (mode == TRAWL_RING_DISCARD)
		CHECK(sum.overwritten == 0, "overwritten in discard mode");
	for (int i = 0; i < THREADS; i++)
		free(run.seen[i]);
	trawl_ring_close(run.r);
	trawl_ring_close(prod);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000;
	stress(TRAWL_RING_DISCARD, 1, 4, n);
	stress(TRAWL_RING_OVERWRITE, 1, 4, n);
	stress(TRAWL_RING_DISCARD, 0, 8, n);
	stress(TRAWL_RING_OVERWRITE, 0, 2, n);
	stress(TRAWL_RING_DISCARD, 0, 64, n / 4);
	if (failures)
		fprintf(stderr, "stress-ring: %d failures\n", failures);
	return failures != 0;
}
