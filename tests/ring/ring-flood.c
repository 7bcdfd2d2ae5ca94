/* SPDX-License-Identifier: MIT */
/*
 * ring-flood: a producer that loses events, for recordings of lost and
 * torn application events (tests/fixtures/record-app.sh). On CPU 0, into
 * the channel "flood" (two 4 KiB sub-buffers, discard mode): N counters
 * in a tight loop, far more than fit before the reader comes by (most are
 * dropped and counted), a pause for the reader, M more; then, with
 * "torn", one event stopped half-written by the producer's death (the
 * ring's test point after its payload). It prints what it wrote:
 *
 *	ring-flood: written 170 dropped 199830 torn 1
 *
 * usage: ring-flood N M [torn]
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/ring/ring-int.h"

static unsigned long written, dropped;

static void put(trawl_ring *r, long i)
{
	if (trawl_ring_counter(r, "n", i) == 0)
		written++;
	else
		dropped++;
}

/* the test point: die with the event's payload written, unfinished */
static void die_inside(void *ctx, int point)
{
	(void)ctx;
	if (point != TW_RING_AT_PAYLOAD)
		return;
	printf("ring-flood: written %lu dropped %lu torn 1\n", written,
	       dropped);
	fflush(stdout);
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: ring-flood N M [torn]\n");
		return 2;
	}
	long n = atol(argv[1]), m = atol(argv[2]);
	int torn = argc > 3 && !strcmp(argv[3], "torn");
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		perror("ring-flood: sched_setaffinity");
		return 1;
	}
	trawl_error err = {0};
	trawl_ring_opts o = {
		.subbuf_size = 4096, .subbufs = 2, .flags = TRAWL_RING_REPLACE};
	trawl_ring *r = trawl_ring_create("flood", &o, &err);
	if (!r) {
		fprintf(stderr, "ring-flood: %s\n", err.msg);
		return 1;
	}
	usleep(200000); /* the recorder attaches */
	for (long i = 0; i < n; i++)
		put(r, i);
	usleep(300000); /* and reads */
	for (long i = 0; i < m; i++)
		put(r, n + i);
	if (torn) {
		tw_ring_set_hook(r, die_inside, NULL);
		trawl_ring_counter(r, "n", -1);
	}
	usleep(200000);
	printf("ring-flood: written %lu dropped %lu torn 0\n", written,
	       dropped);
	trawl_ring_close(r);
	return 0;
}
