/* SPDX-License-Identifier: MIT */
/*
 * trawl view --follow as the API tells it (view-api.c keeps it): whether
 * the server follows a growing file, and the generation of the index it
 * serves, 0 for the first and one more each time cmd-view.c swaps a new
 * one in, however that index was made. The page polls /api/info for it
 * (docs/view-api.md).
 */
#ifndef TRAWL_VIEW_FOLLOW_H
#define TRAWL_VIEW_FOLLOW_H

#include <stdint.h>

/* Say whether the server follows (before serving, or when it stops). */
void view_follow_set(int on);
/*
 * Count a new index swapped in. Call it under the server's write lock,
 * with the new index in place: a request reads the generation under the
 * read lock it reads the index under, so the two always go together.
 * Return: the new generation.
 */
uint64_t view_follow_swapped(void);

#endif
