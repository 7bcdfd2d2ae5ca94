/* SPDX-License-Identifier: MIT */
/* Shared by the analysis tests: run one analysis over a hand-made trace. */
#ifndef TW_ANALYSIS_TEST_H
#define TW_ANALYSIS_TEST_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../helpers/helpers.h"

/* A sched/irq line in the kernel's layout: comm-pid [cpu] flags ts: ... */
#define L(comm_pid, cpu, ts, rest)                                             \
	"  " comm_pid " [00" #cpu "] d..2.  " ts ": " rest "\n"

struct run {
	char *path;
	trawl_trace *t;
	trawl_analysis *a;
};

static inline trawl_trace *run_open(struct run *r, const char *text)
{
	r->path = tmp_file(text, strlen(text));
	r->t = trawl_open(r->path, NULL, NULL);
	cr_assert_not_null(r->t);
	return r->t;
}

static inline void run_go(struct run *r)
{
	cr_assert_not_null(r->a);
	trawl_error err = {0};
	cr_assert_eq(trawl_run(r->t, &err), 0, "%s", err.msg);
}

static inline void run_done(struct run *r)
{
	trawl_analysis_free(r->a);
	trawl_close(r->t);
	unlink(r->path);
	free(r->path);
}

static inline const trawl_row *row_named(const trawl_result *res,
					 const char *name, int64_t id)
{
	for (size_t i = 0; i < res->nrows; i++)
		if (!strcmp(res->rows[i].name, name) &&
		    (id < 0 || res->rows[i].id == id))
			return &res->rows[i];
	cr_assert_fail("no row %s/%lld", name, (long long)id);
	return NULL;
}

static inline uint64_t anomaly(const trawl_result *res, const char *what)
{
	for (size_t i = 0; i < res->nanomalies; i++)
		if (!strcmp(res->anomalies[i].what, what))
			return res->anomalies[i].count;
	return 0;
}

#define assert_summary(s, n, mn, p50_, p90_, p99_, mx)                         \
	do {                                                                   \
		cr_expect_eq((s).count, (n));                                  \
		cr_expect_eq((s).min, (mn), "min %lld", (long long)(s).min);   \
		cr_expect_eq((s).p50, (p50_), "p50 %lld", (long long)(s).p50); \
		cr_expect_eq((s).p90, (p90_), "p90 %lld", (long long)(s).p90); \
		cr_expect_eq((s).p99, (p99_), "p99 %lld", (long long)(s).p99); \
		cr_expect_eq((s).max, (mx), "max %lld", (long long)(s).max);   \
	} while (0)

#endif
