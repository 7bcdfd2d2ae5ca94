/* SPDX-License-Identifier: MIT */
/*
 * The target of test-run-perf-probes.sh's uprobes: N calls of
 * trawl_target_add(i % 3, 100), whose arguments and return values the
 * test knows, and one of trawl_target_name("trawl-uprobe"); prints the
 * sum and the name's length.
 * usage: uprobe-target N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long trawl_target_add(long a, long b);
size_t trawl_target_name(const char *name);

/* not inlined, and kept: the probe's function */
__attribute__((noinline, used)) long trawl_target_add(long a, long b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}
/* a string argument, for str(arg0) */
__attribute__((noinline, used)) size_t trawl_target_name(const char *name)
{
	__asm__ volatile("" ::: "memory");
	return strlen(name);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, s = 0;
	for (long i = 0; i < n; i++)
		s += trawl_target_add(i % 3, 100);
	/* on the stack: paged in, as a BPF read of the task's memory needs
	 * (it cannot fault a page in) */
	char name[] = "trawl-uprobe";
	printf("%ld %zu\n", s, trawl_target_name(name));
	return 0;
}
