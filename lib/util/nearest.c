/* SPDX-License-Identifier: MIT */
/*
 * The known name nearest to a misspelt one, by edit distance, for the
 * messages that say "did you mean" (the script compiler's events and
 * fields, trawl_event_known()).
 */
#include <string.h>

#include "util.h"

static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return 64;
	size_t row[64];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *tw_nearest(const char *name, const char *const *cands,
		       size_t ncands)
{
	size_t best = (size_t)-1;
	const char *pick = NULL;
	size_t limit = strlen(name) / 3 + 2;
	for (size_t i = 0; i < ncands; i++) {
		size_t d = distance(name, cands[i]);
		/* a name containing the other is near too (prev_pid, pid) */
		if (d > limit &&
		    (strstr(cands[i], name) || strstr(name, cands[i])))
			d = limit;
		if (d < best) {
			best = d;
			pick = cands[i];
		}
	}
	return best <= limit ? pick : NULL;
}
