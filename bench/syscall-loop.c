/* SPDX-License-Identifier: MIT */
/*
 * syscall-loop: a syscall-heavy load of known size, for the BPF back end's
 * benchmark (bench/bench-bpf.py) and its tests: N getppid() calls, then the
 * nanoseconds one took on average, on stdout.
 *
 *	syscall-loop N
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: syscall-loop N\n");
		return 2;
	}
	long n = strtol(argv[1], NULL, 10);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid); /* not the libc wrapper, which may cache
				       */
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 +
		    (double)(b.tv_nsec - a.tv_nsec);
	printf("%.1f\n", n > 0 ? ns / (double)n : 0.0);
	return 0;
}
