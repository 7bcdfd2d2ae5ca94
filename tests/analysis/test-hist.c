/* SPDX-License-Identifier: MIT */
/*
 * The duration accumulator: exact nearest-rank percentiles while small,
 * within 1/256 of them once the log-linear histogram takes over.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include <trawl/trawl.h>

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest rank: the ceil(p/100 * n)-th smallest. */
static int64_t exact(const int64_t *sorted, size_t n, int p)
{
	size_t rank = (n * (size_t)p + 99) / 100;
	return sorted[rank ? rank - 1 : 0];
}

Test(hist, small_sets_are_exact)
{
	trawl_hist *h = trawl_hist_new(NULL);
	/* 1..10 us shuffled: p50 = 5th = 5000, p90 = 9th, p99 = 10th */
	int64_t v[] = {7000, 1000, 10000, 3000, 5000,
		       2000, 9000, 4000,  8000, 6000};
	for (size_t i = 0; i < 10; i++)
		cr_assert_eq(trawl_hist_add(h, v[i]), 0);
	trawl_summary s;
	trawl_hist_summary(h, &s);
	cr_expect_eq(s.count, 10);
	cr_expect_eq(s.min, 1000);
	cr_expect_eq(s.p50, 5000);
	cr_expect_eq(s.p90, 9000);
	cr_expect_eq(s.p99, 10000);
	cr_expect_eq(s.max, 10000);
	cr_expect_eq(s.total, 55000);
	trawl_hist_free(h);
}

Test(hist, empty_and_negative)
{
	trawl_hist *h = trawl_hist_new(NULL);
	trawl_summary s;
	trawl_hist_summary(h, &s);
	cr_expect_eq(s.count, 0);
	cr_expect_eq(s.p99, 0);
	cr_expect_eq(trawl_hist_percentile(h, 50), 0);
	trawl_hist_add(h, -5);
	cr_expect_eq(trawl_hist_percentile(h, 50), 0, "negative counts as 0");
	trawl_hist_free(h);
	trawl_hist_free(NULL);
}

Test(hist, large_sets_stay_within_the_stated_error)
{
	enum { N = 200000 };
	int64_t *v = malloc(N * sizeof(*v));
	trawl_hist *h = trawl_hist_new(NULL);
	srand(4);
	for (size_t i = 0; i < N; i++) {
		/* log-uniform from 1 ns to ~1 s, plus some exact small ones */
		int e = rand() % 30;
		int64_t x = ((int64_t)1 << e) + rand() % ((int64_t)1 << e);
		v[i] = i % 7 ? x : (int64_t)(i % 300);
		cr_assert_eq(trawl_hist_add(h, v[i]), 0);
	}
	qsort(v, N, sizeof(*v), cmp);
	for (int p = 1; p <= 100; p++) {
		int64_t want = exact(v, N, p),
			got = trawl_hist_percentile(h, p);
		int64_t diff = got > want ? got - want : want - got;
		cr_expect(diff * 256 <= want || (want < 256 && diff == 0),
			  "p%d: got %lld want %lld", p, (long long)got,
			  (long long)want);
	}
	trawl_summary s;
	trawl_hist_summary(h, &s);
	cr_expect_eq(s.min, v[0]);
	cr_expect_eq(s.max, v[N - 1]);
	trawl_hist_free(h);
	free(v);
}
