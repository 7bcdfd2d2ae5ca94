/* SPDX-License-Identifier: MIT */
/*
 * The target of test-run-perf-probes.sh's uprobes: N calls of
 * trawl_target_add(i % 3, 100), whose arguments and return values the
 * test knows; prints their sum.
 * usage: uprobe-target N
 */
#include <stdio.h>
#include <stdlib.h>
long trawl_target_add(long a, long b);

/* not inlined, and kept: the probe's function */
__attribute__((noinline, used)) long trawl_target_add(long a, long b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, s = 0;
	for (long i = 0; i < n; i++)
		s += trawl_target_add(i % 3, 100);
	printf("%ld\n", s);
	return 0;
}
