/* SPDX-License-Identifier: MIT */
/*
 * Event selection: "system:event" (globs in either part), "system" and
 * "event" become a list of concrete (system, event) pairs from the kernel's
 * events/ directory, each pair once, in the order asked. A selection that
 * names nothing the kernel has is an error, naming it.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/core.h"
#include "live-int.h"

static uint64_t pair_hash(const char *sys, const char *ev)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a over "sys:ev" */
	for (const char *p = sys; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ ':') * 1099511628211ull;
	for (const char *p = ev; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

/* The slot of (sys, ev) in the index: where it is, or the empty slot where
 * it would go. The index holds list positions plus one; 0 is empty. */
static size_t slot_of(const tw_event_list *l, const char *sys, const char *ev)
{
	size_t mask = l->nslots - 1;
	for (size_t i = pair_hash(sys, ev) & mask;; i = (i + 1) & mask) {
		uint32_t at = l->slots[i];
		if (!at || (!strcmp(l->ev[at - 1].system, sys) &&
			    !strcmp(l->ev[at - 1].event, ev)))
			return i;
	}
}

/* Keep the index under half full; a kernel has a few thousand events. */
static int grow_index(tw_event_list *l)
{
	if (2 * (l->n + 1) <= l->nslots)
		return 0;
	size_t n = l->nslots ? l->nslots * 2 : 1024;
	uint32_t *old = l->slots;
	l->slots = tw_calloc(&l->mem, n, sizeof(*l->slots));
	if (!l->slots) {
		l->slots = old;
		return -ENOMEM;
	}
	l->nslots = n;
	for (size_t i = 0; i < l->n; i++)
		l->slots[slot_of(l, l->ev[i].system, l->ev[i].event)] =
			(uint32_t)i + 1;
	tw_free(&l->mem, old);
	return 0;
}

static int add(tw_event_list *l, const char *sys, const char *ev,
	       const char *filter)
{
	if (grow_index(l) < 0)
		return -ENOMEM;
	size_t slot = slot_of(l, sys, ev);
	if (l->slots[slot]) {
		if (filter)
			l->ev[l->slots[slot] - 1].filter = filter;
		return 0;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		tw_event_sel *p = tw_realloc(&l->mem, l->ev, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		l->ev = p;
		l->cap = cap;
	}
	tw_event_sel *e = &l->ev[l->n];
	e->system = tw_strndup(&l->mem, sys, strlen(sys));
	e->event = tw_strndup(&l->mem, ev, strlen(ev));
	e->filter = filter;
	if (!e->system || !e->event) {
		tw_free(&l->mem, e->system);
		tw_free(&l->mem, e->event);
		return -ENOMEM;
	}
	l->n++;
	l->slots[slot] = (uint32_t)l->n;
	return 0;
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* tracefs gives d_type; ask stat only where a file system does not. */
static int entry_is_dir(const struct dirent *de, const char *path)
{
	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return is_dir(path);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int visible(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

/* Add every event of system sys whose name matches pat; count matches. */
static int add_system(tw_event_list *l, const char *events_dir, const char *sys,
		      const char *pat, const char *filter, size_t *matched)
{
	char path[4096];
	struct dirent **names;
	tw_pathf(path, sizeof(path), "%s/%s", events_dir, sys);
	int n = scandir(path, &names, visible, by_name);
	if (n < 0)
		return 0;
	int rc = 0;
	for (int i = 0; i < n; i++) {
		const char *ev = names[i]->d_name;
		tw_pathf(path, sizeof(path), "%s/%s/%s", events_dir, sys, ev);
		if (!rc && !fnmatch(pat, ev, 0) &&
		    entry_is_dir(names[i], path)) {
			rc = add(l, sys, ev, filter);
			(*matched)++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

static int resolve_one(tw_event_list *l, const char *events_dir,
		       const trawl_record_event *sel, trawl_error *err)
{
	char sys_pat[256], ev_pat[256];
	const char *colon = strchr(sel->name, ':');
	size_t matched = 0;
	char path[4096];

	if (!*sel->name || strlen(sel->name) >= sizeof(sys_pat))
		return tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
				   "bad event name '%s'", sel->name);
	if (colon) {
		snprintf(sys_pat, sizeof(sys_pat), "%.*s",
			 (int)(colon - sel->name), sel->name);
		snprintf(ev_pat, sizeof(ev_pat), "%s", colon + 1);
	} else {
		/* A system name alone means all of it, as in trace-cmd. */
		tw_pathf(path, sizeof(path), "%s/%s", events_dir, sel->name);
		int system = !strpbrk(sel->name, "*?[") && is_dir(path);
		snprintf(sys_pat, sizeof(sys_pat), "%s",
			 system ? sel->name : "*");
		snprintf(ev_pat, sizeof(ev_pat), "%s",
			 system ? "*" : sel->name);
	}
	struct dirent **systems;
	int n = scandir(events_dir, &systems, visible, by_name);
	if (n < 0)
		return tw_error_at(err, TRAWL_EENV, errno, NULL, 0, 0, 0,
				   "cannot list %s: %s", events_dir,
				   strerror(errno));
	int rc = 0;
	for (int i = 0; i < n; i++) {
		const char *sys = systems[i]->d_name;
		tw_pathf(path, sizeof(path), "%s/%s", events_dir, sys);
		/* ftrace's own events (function, print, ...) are not
		 * switchable, and header_* are files. */
		if (!rc && strcmp(sys, "ftrace") && !fnmatch(sys_pat, sys, 0) &&
		    entry_is_dir(systems[i], path))
			rc = add_system(l, events_dir, sys, ev_pat, sel->filter,
					&matched);
		free(systems[i]);
	}
	free(systems);
	if (rc < 0)
		return tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0, 0, 0,
				   "out of memory");
	if (!matched)
		return tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
				   "no kernel event matches '%s'; the list is "
				   "in %.*s/available_events",
				   sel->name, (int)(strlen(events_dir) - 7),
				   events_dir);
	return 0;
}

int tw_events_resolve(const tw_mem *mem, const char *top,
		      const trawl_record_event *sel, size_t nsel,
		      tw_event_list *out, trawl_error *err)
{
	char events_dir[4096];
	tw_pathf(events_dir, sizeof(events_dir), "%s/events", top);
	memset(out, 0, sizeof(*out));
	out->mem = *mem;
	if (!nsel)
		return tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
				   "no events to record; name some with -e "
				   "(e.g. -e 'sched:*')");
	for (size_t i = 0; i < nsel; i++) {
		if (!sel[i].name)
			return tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
					   "event %zu has no name", i);
		int rc = resolve_one(out, events_dir, &sel[i], err);
		if (rc < 0) {
			tw_events_free(out);
			return rc;
		}
	}
	return 0;
}

void tw_events_free(tw_event_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		tw_free(&l->mem, l->ev[i].system);
		tw_free(&l->mem, l->ev[i].event);
	}
	tw_free(&l->mem, l->ev);
	tw_free(&l->mem, l->slots);
	tw_mem mem = l->mem;
	memset(l, 0, sizeof(*l));
	l->mem = mem;
}
