/* SPDX-License-Identifier: MIT */
/*
 * Which reader an input goes to, from its first bytes: a trace.dat starts
 * with the magic "\x17\x08\x44tracing" (trace-cmd's file header), a
 * perf.data with "PERFILE2" (perf's, in both its file and pipe forms); anything
 * else is text, whose kind (ftrace, systrace, trace-cmd report, HTML) the
 * text reader tells apart, refusing binary data.
 */
#include <string.h>

#include "input.h"

int tw_is_perf_data(const char *p, size_t n)
{
	return n >= 8 && memcmp(p, "PERFILE2", 8) == 0;
}

int tw_is_trace_dat(const char *p, size_t n)
{
	return n >= 10 && memcmp(p, "\x17\x08\x44tracing", 10) == 0;
}
