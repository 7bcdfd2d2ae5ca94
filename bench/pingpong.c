/* SPDX-License-Identifier: MIT */
/*
 * pingpong: a load of wakeups and context switches on every CPU, for
 * recording benchmarks and tests. Pairs of threads pinned to CPUs i and
 * i+1 (mod N) pass a byte back and forth through two pipes, so every hop is
 * a wakeup on the other CPU and a switch on both: sched_waking, sched_wakeup,
 * sched_switch and stat_runtime events at the rate the pipes allow.
 *
 *	pingpong SECONDS [PAIRS]	default: one pair per CPU
 *
 * Prints the number of round trips on stdout.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct side {
	int in, out;
	int cpu;
	int starts; /* sends the first byte */
	unsigned long trips;
	const volatile int *stop;
};

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *run(void *arg)
{
	struct side *s = arg;
	char b = 'x';
	pin(s->cpu);
	if (s->starts && write(s->out, &b, 1) != 1)
		return NULL;
	while (!*s->stop) {
		if (read(s->in, &b, 1) != 1)
			break;
		if (write(s->out, &b, 1) != 1)
			break;
		s->trips++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: pingpong SECONDS [PAIRS]\n");
		return 1;
	}
	double secs = atof(argv[1]);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int pairs = argc > 2 ? atoi(argv[2]) : (int)ncpu;
	if (secs <= 0 || pairs < 1 || ncpu < 1) {
		fprintf(stderr, "pingpong: bad arguments\n");
		return 1;
	}
	volatile int stop = 0;
	struct side *s = calloc((size_t)pairs * 2, sizeof(*s));
	pthread_t *t = calloc((size_t)pairs * 2, sizeof(*t));
	if (!s || !t)
		return 1;
	for (int i = 0; i < pairs; i++) {
		int a[2], b[2];
		if (pipe(a) < 0 || pipe(b) < 0) {
			perror("pingpong: pipe");
			return 1;
		}
		s[2 * i] = (struct side){.in = b[0],
					 .out = a[1],
					 .cpu = (int)(i % ncpu),
					 .starts = 1,
					 .stop = &stop};
		s[2 * i + 1] = (struct side){.in = a[0],
					     .out = b[1],
					     .cpu = (int)((i + 1) % ncpu),
					     .stop = &stop};
	}
	for (int i = 0; i < 2 * pairs; i++)
		pthread_create(&t[i], NULL, run, &s[i]);
	struct timespec ts = {(time_t)secs,
			      (long)((secs - (double)(time_t)secs) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	stop = 1;
	/* Unblock every reader: closing the write ends ends the reads. */
	for (int i = 0; i < 2 * pairs; i++)
		close(s[i].out);
	unsigned long trips = 0;
	for (int i = 0; i < 2 * pairs; i++) {
		pthread_join(t[i], NULL);
		trips += s[i].trips;
	}
	printf("%lu\n", trips);
	free(s);
	free(t);
	return 0;
}
