/* SPDX-License-Identifier: MIT */
/*
 * trace.dat files cut short, at 64 points each: trace-cmd's own v7 files
 * (zstd; the BUFFER option that says where the data is comes last, so a
 * cut file is found by the scan of its flyrecord sections) and v6, cut
 * between the start of the data and the end. Each cut reads a prefix of the
 * whole file's events that grows with the cut, says it is truncated, and names
 * every damage by a real offset.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../helpers/helpers.h"

static char *slurp(const char *path, size_t *len)
{
	char *p = read_whole(path, len);
	cr_assert(p, "cannot read %s", path);
	return p;
}

/* v7: where the first options section is (the data comes after it). */
static size_t first_options(const char *p, size_t n)
{
	if (n < 32 || p[10] != '7')
		return 0;
	size_t at = 18 + strlen(p + 18) + 1; /* compression name */
	at += strlen(p + at) + 1;	     /* its version */
	uint64_t off;
	memcpy(&off, p + at, 8);
	return off < n ? (size_t)off : 0;
}

/* Cuts between the first options section and the end; returns how many
 * read some events. */
static int sweep(const char *name)
{
	size_t size;
	char *data = slurp(fixture(name), &size);
	size_t from = first_options(data, size);
	got whole = {0};
	cr_assert_eq(collect_path(fixture(name), NULL, &whole), 0, "%s: %s",
		     name, whole.err.msg);
	size_t prev = 0;
	int reading = 0;
	for (int k = 1; k < 64; k++) {
		size_t len = from + (size - from) * (size_t)k / 64;
		char *path = tmp_file(data, len);
		got g = {0};
		int rc = collect_path(path, NULL, &g);
		cr_assert(rc != 0, "%s cut at %zu of %zu bytes: no error", name,
			  len, size);
		cr_assert_leq(g.n, whole.n, "%s cut at %zu", name, len);
		cr_assert_geq(g.n, prev,
			      "%s cut at %zu reads less than a shorter cut",
			      name, len);
		for (size_t i = 1; i < g.n; i++)
			cr_assert_geq(g.ev[i].ts, g.ev[i - 1].ts,
				      "%s cut at %zu: event %zu out of order",
				      name, len, i);
		cr_assert_leq(g.stats.bad_lines_kept, g.stats.bad_lines);
		for (uint64_t i = 0; i < g.stats.bad_lines_kept; i++)
			cr_assert(g.stats.bad_line[i] > 0,
				  "%s cut at %zu: damage at offset 0", name,
				  len);
		if (g.n) {
			reading++;
			cr_assert(strstr(g.err.msg, "truncated") ||
					  strstr(g.err.msg, "cut"),
				  "%s cut at %zu: %s", name, len, g.err.msg);
		}
		prev = g.n;
		got_free(&g);
		unlink(path);
		free(path);
	}
	got_free(&whole);
	free(data);
	return reading;
}

Test(dat_cut, trace_cmd_v7_cut_anywhere_reads_a_growing_prefix)
{
	/* past the options that name the data, most cuts read some */
	cr_assert_geq(sweep("same-recording.dat"), 32);
	cr_assert_geq(sweep("pair-broad.dat"), 32);
	cr_assert_geq(sweep("tc.dat"), 32);
}

Test(dat_cut, v6_and_uncompressed_v7_cut_anywhere_stay_prefixes)
{
	sweep("tc-v6.dat");
	sweep("tc-v7-nocomp.dat");
}
