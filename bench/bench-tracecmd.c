/* SPDX-License-Identifier: MIT */
/*
 * The reference for trace.dat reading speed: the smallest useful loop over
 * libtracecmd's record iterator (tracecmd_iterate_events, every CPU merged
 * in time order), counting records per CPU. No text is made. Prints the
 * median wall time of REPEAT runs and records per second.
 * usage: bench-tracecmd FILE.dat [REPEAT]
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <trace-cmd.h>

struct counts {
	unsigned long long records;
	unsigned long long bytes;
};

static int on_record(struct tracecmd_input *handle, struct tep_record *rec,
		     int cpu, void *data)
{
	struct counts *c = data;
	(void)handle;
	(void)cpu;
	c->records++;
	c->bytes += (unsigned long long)rec->size;
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
		fprintf(stderr, "usage: bench-tracecmd FILE.dat [REPEAT]\n");
		return 1;
	}
	int repeat = argc > 2 ? atoi(argv[2]) : 3;
	if (repeat < 1 || repeat > 100)
		repeat = 3;
	double times[100];
	struct counts c = {0};
	tracecmd_set_loglevel(TEP_LOG_NONE);
	for (int r = 0; r < repeat; r++) {
		double a = now();
		/* the open is part of the work, as it is for trawl */
		struct tracecmd_input *h = tracecmd_open(argv[1], 0);
		if (!h) {
			fprintf(stderr, "cannot open %s\n", argv[1]);
			return 1;
		}
		c = (struct counts){0};
		tracecmd_iterate_events(h, NULL, 0, on_record, &c);
		tracecmd_close(h);
		times[r] = now() - a;
	}
	qsort(times, (size_t)repeat, sizeof(times[0]), cmp_double);
	double med = times[repeat / 2];
	printf("median %.3f s over %d runs; %llu records (%.1f M/s), %llu "
	       "data bytes\n",
	       med, repeat, c.records, (double)c.records / med / 1e6,
	       c.bytes);
	return 0;
}
