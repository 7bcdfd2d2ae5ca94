/* SPDX-License-Identifier: MIT */
/*
 * The exports' number writers (tools/trawl/cli-buf.c) against snprintf:
 * put_u64/put_i64/put_us, and the "near" ones that keep the digits above
 * the last six from the number before, over numbers that grow, jump back,
 * cross a million, carry zeros in their low digits, and are negative.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../../tools/trawl/cli.h"

static void same_u64(struct cli_near *c, uint64_t v)
{
	char want[32], got[32];
	snprintf(want, sizeof(want), "%" PRIu64, v);
	*put_u64(got, v) = '\0';
	cr_assert_str_eq(got, want);
	*put_u64_near(c, got, v) = '\0';
	cr_assert_str_eq(got, want, "near %" PRIu64, v);
}

static void same_i64(struct cli_near *c, int64_t v)
{
	char want[32], got[32];
	snprintf(want, sizeof(want), "%" PRId64, v);
	*put_i64_near(c, got, v) = '\0';
	cr_assert_str_eq(got, want, "near %" PRId64, v);
}

static void same_us(struct cli_near *c, int64_t ns)
{
	char want[40], got[40];
	uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	snprintf(want, sizeof(want), "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "",
		 u / 1000, (unsigned)(u % 1000));
	*put_us(got, ns) = '\0';
	cr_assert_str_eq(got, want);
	*put_us_near(c, got, ns) = '\0';
	cr_assert_str_eq(got, want, "near %" PRId64 " ns", ns);
}

Test(cli_buf, near_numbers_are_the_plain_ones)
{
	static const uint64_t edges[] = {0,
					 1,
					 9,
					 999999,
					 1000000,
					 1000001,
					 1999999,
					 2000000,
					 10000005,
					 2152436742559ull,
					 2152436000001ull,
					 2152437000000ull,
					 2152436742559ull, /* back again */
					 UINT64_MAX,
					 UINT64_MAX - 999999,
					 12};
	struct cli_near c = {0};
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		same_u64(&c, edges[i]);
	/* a time that grows by odd steps, with a cache for it */
	struct cli_near t = {0}, us = {0};
	uint64_t v = 2152436742559ull;
	for (int i = 0; i < 200000; i++) {
		v += (uint64_t)(i * 7919) % 100003;
		same_u64(&t, v);
		same_us(&us, (int64_t)v);
	}
	struct cli_near s = {0};
	static const int64_t signed_edges[] = {
		-1, 0, -1000000, 1000000, INT64_MIN, INT64_MAX, -123456789, 5};
	for (size_t i = 0; i < sizeof(signed_edges) / sizeof(signed_edges[0]);
	     i++) {
		same_i64(&s, signed_edges[i]);
		same_us(&s, signed_edges[i]);
	}
}
