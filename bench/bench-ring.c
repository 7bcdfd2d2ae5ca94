/* SPDX-License-Identifier: MIT */
/*
 * ns per event: trawl_ring_emit() of 16, 64 and 256-byte payloads (one
 * thread, then one thread pinned on each CPU), a disabled type, and write()
 * to trace_marker of the same sizes (in a tracefs instance of our own,
 * under the recording tests' lock). Rounds alternate between the ways so
 * that a noisy neighbour hits them alike; each figure is the median of
 * the rounds.
 *
 *	bench-ring [ROUNDS] [EVENTS]        (root for trace_marker)
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "trawl/ring.h"

#define MAX_ROUNDS 31

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct job {
	pthread_t th;
	int cpu; /* -1: not pinned */
	trawl_ring_type *t;
	int marker_fd;
	size_t size;
	uint64_t events;
	double ns;
};

static void pin(int cpu)
{
	if (cpu < 0)
		return;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *run_ring(void *arg)
{
	struct job *j = arg;
	pin(j->cpu);
	uint64_t payload[32] = {0};
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < j->events; i++) {
		payload[0] = i;
		trawl_ring_emit(j->t, payload, j->size, NULL);
	}
	j->ns = (double)(now_ns() - t0) / (double)j->events;
	return NULL;
}

static void *run_marker(void *arg)
{
	struct job *j = arg;
	pin(j->cpu);
	char payload[256];
	memset(payload, 'x', sizeof(payload));
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < j->events; i++)
		if (write(j->marker_fd, payload, j->size) < 0)
			break;
	j->ns = (double)(now_ns() - t0) / (double)j->events;
	return NULL;
}

/* one round of one way: the mean of its threads' ns per event */
static double round_of(void *(*fn)(void *), int threads, trawl_ring_type *t,
		       int fd, size_t size, uint64_t events)
{
	struct job j[64];
	double sum = 0;
	for (int i = 0; i < threads; i++) {
		j[i] = (struct job){.cpu = threads > 1 ? i : -1,
				    .t = t,
				    .marker_fd = fd,
				    .size = size,
				    .events = events};
		pthread_create(&j[i].th, NULL, fn, &j[i]);
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(j[i].th, NULL);
		sum += j[i].ns;
	}
	return sum / threads;
}

static char instance[256];

static void remove_instance(void)
{
	if (instance[0])
		rmdir(instance);
}

static int open_marker(void)
{
	const char *tag = getenv("TRAWL_INSTANCE_TAG");
	snprintf(instance, sizeof(instance),
		 "/sys/kernel/tracing/instances/trawl-%s%sbench-%d",
		 tag ? tag : "", tag ? "-" : "", (int)getpid());
	if (mkdir(instance, 0755) < 0) {
		instance[0] = '\0';
		return -1;
	}
	atexit(remove_instance);
	char path[300];
	snprintf(path, sizeof(path), "%s/trace_marker", instance);
	return open(path, O_WRONLY | O_CLOEXEC);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 9;
	uint64_t events = argc > 2 ? strtoull(argv[2], NULL, 10) : 2000000;
	if (rounds < 1 || rounds > MAX_ROUNDS)
		rounds = 9;
	int ncpu = get_nprocs();
	if (ncpu > 64)
		ncpu = 64;
	trawl_ring_opts o = {.mode = TRAWL_RING_OVERWRITE,
			     .subbuf_size = 65536,
			     .subbufs = 16,
			     .flags = TRAWL_RING_MEMFD};
	trawl_error err = {0};
	trawl_ring *r = trawl_ring_create("bench", &o, &err);
	if (!r) {
		fprintf(stderr, "bench-ring: %s\n", err.msg);
		return 1;
	}
	static const trawl_ring_field f2[] = {{"a", TRAWL_RING_U64},
					      {"b", TRAWL_RING_U64}};
	trawl_ring_field f8[8], f32[32];
	static char names[32][8];
	for (int i = 0; i < 32; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		f32[i] = (trawl_ring_field){names[i], TRAWL_RING_U64};
		if (i < 8)
			f8[i] = f32[i];
	}
	trawl_ring_type *types[3] = {
		trawl_ring_type_new(r, "p16", f2, 2, NULL),
		trawl_ring_type_new(r, "p64", f8, 8, NULL),
		trawl_ring_type_new(r, "p256", f32, 32, NULL),
	};
	trawl_ring_type *off = trawl_ring_type_new(r, "off", f8, 8, NULL);
	trawl_ring_type_enable(off, 0);
	static const size_t sizes[3] = {16, 64, 256};

	/* the recording tests' lock: trace_marker in an instance of ours */
	int lock = open("/tmp/trawl-record-tests.lock", O_RDWR | O_CREAT, 0666);
	int marker = -1;
	if (lock >= 0 && flock(lock, LOCK_EX) == 0)
		marker = open_marker();

	double ring1[3][MAX_ROUNDS], ringn[3][MAX_ROUNDS], mark1[3][MAX_ROUNDS],
		markn[3][MAX_ROUNDS], offr[MAX_ROUNDS];
	for (int k = 0; k < rounds; k++) {
		for (int s = 0; s < 3; s++) {
			ring1[s][k] = round_of(run_ring, 1, types[s], -1,
					       sizes[s], events);
			ringn[s][k] = round_of(run_ring, ncpu, types[s], -1,
					       sizes[s], events);
			if (marker >= 0) {
				mark1[s][k] =
					round_of(run_marker, 1, NULL, marker,
						 sizes[s], events / 20);
				markn[s][k] =
					round_of(run_marker, ncpu, NULL, marker,
						 sizes[s], events / 20);
			}
		}
		offr[k] = round_of(run_ring, 1, off, -1, 64, events);
	}
	printf("ns per event, median of %d rounds (%llu events a round; "
	       "trace_marker %llu); %d CPUs\n",
	       rounds, (unsigned long long)events,
	       (unsigned long long)events / 20, ncpu);
	printf("%-8s %12s %12s %14s %14s %9s %9s\n", "payload", "ring 1 thr",
	       "ring/CPU", "marker 1 thr", "marker/CPU", "x 1 thr", "x /CPU");
	for (int s = 0; s < 3; s++) {
		double a = median(ring1[s], rounds),
		       b = median(ringn[s], rounds);
		double c = marker >= 0 ? median(mark1[s], rounds) : 0;
		double d = marker >= 0 ? median(markn[s], rounds) : 0;
		printf("%-8zu %12.1f %12.1f %14.1f %14.1f %9.1f %9.1f\n",
		       sizes[s], a, b, c, d, c / a, d / b);
	}
	printf("disabled type: %.2f ns per call\n", median(offr, rounds));
	trawl_ring_close(r);
	return 0;
}
