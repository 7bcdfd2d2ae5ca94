/* SPDX-License-Identifier: MIT */
/*
 * Event selection: "system:event" (globs in either part), "system" and
 * "event" become a list of concrete (system, event) pairs from the kernel's
 * available_events, each pair once, in the order asked (a glob's matches
 * sorted by system, then event). A selection that names nothing the kernel
 * has is an error, naming it.
 *
 * available_events is one read; listing the events/ directories was an
 * open and a getdents per system, a fifth of a live session's start-up. It
 * leaves out ftrace's own events (function, print, ...), which cannot be
 * switched, as the list must.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/core.h"
#include "live-int.h"

/* The slot of (sys, ev) in the index: where it is, or the empty slot where
 * it would go. The index holds list positions plus one; 0 is empty. */
static size_t slot_of(const tw_event_list *l, const char *sys, const char *ev)
{
	size_t mask = l->nslots - 1;
	for (size_t i = tw_hash_event(sys, ev) & mask;; i = (i + 1) & mask) {
		uint32_t at = l->slots[i];
		if (!at || (!strcmp(l->ev[at - 1].system, sys) &&
			    !strcmp(l->ev[at - 1].event, ev)))
			return i;
	}
}

/* Keep the index under half full; a kernel has a few thousand events.
 * Made when a second selection comes: one selection names each pair once. */
static int grow_index(tw_event_list *l)
{
	if (2 * (l->n + 1) <= l->nslots)
		return 0;
	size_t n = l->nslots ? l->nslots : 1024;
	while (n < 2 * (l->n + 1))
		n *= 2;
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

/* (sys, ev) onto the list; once only where dedupe says it may be there
 * already (an earlier selection's): then a filter replaces the one it had
 * and the flags add up (a stack asked for by either selection). */
static int add(tw_event_list *l, const char *sys, const char *ev,
	       const trawl_record_event *sel, const char *stack_if, int dedupe)
{
	const char *filter = sel->filter;
	size_t slot = 0;
	if (dedupe) {
		if (grow_index(l) < 0)
			return -ENOMEM;
		slot = slot_of(l, sys, ev);
		if (l->slots[slot]) {
			tw_event_sel *e = &l->ev[l->slots[slot] - 1];
			if (filter)
				e->filter = filter;
			if (sel->flags & TRAWL_RECORD_EVENT_STACK)
				e->stack_if = stack_if;
			e->flags |= sel->flags;
			return 0;
		}
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		tw_event_sel *p = tw_realloc(&l->mem, l->ev, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		l->ev = p;
		l->cap = cap;
	}
	l->ev[l->n++] = (tw_event_sel){sys, ev, filter, sel->flags, stack_if};
	if (dedupe)
		l->slots[slot] = (uint32_t)l->n;
	return 0;
}

/* One kernel event: its "system:event" line in the list's text, split at
 * the colon once sorted; its first bytes as a number, most significant
 * first, so that most comparisons are one. */
struct known {
	uint64_t prefix;
	char *line;
	char *ev;
};

static int by_line(const void *a, const void *b)
{
	const struct known *x = a, *y = b;
	if (x->prefix != y->prefix)
		return x->prefix < y->prefix ? -1 : 1;
	return strcmp(x->line, y->line);
}

/* available_events' lines, sorted (':' is before every character of a
 * name, so by system, then event) and split in place. */
static int read_known(tw_event_list *l, const char *top, struct known **out,
		      size_t *n, trawl_error *err)
{
	size_t len = 0;
	l->text = tw_tracefs_read_mem(&l->mem, top, "available_events", &len);
	if (!l->text)
		return tw_error_at(
			err, errno == ENOMEM ? TRAWL_ENOMEM : TRAWL_EENV, errno,
			NULL, 0, 0, 0, "cannot read %s/available_events: %s",
			top, strerror(errno));
	size_t lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += l->text[i] == '\n';
	struct known *k = tw_calloc(&l->mem, lines, sizeof(*k));
	if (!k)
		return tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0, 0, 0,
				   "out of memory");
	size_t m = 0;
	for (char *p = l->text, *next; p < l->text + len; p = next) {
		char *nl = memchr(p, '\n', (size_t)(l->text + len - p));
		next = nl ? nl + 1 : l->text + len;
		if (nl)
			*nl = '\0';
		char *colon = strchr(p, ':');
		if (!colon || colon == p || !colon[1])
			continue;
		uint64_t prefix = 0;
		for (size_t i = 0, end = 0; i < 8; i++) {
			end = end || !p[i]; /* not read past the NUL */
			prefix = prefix << 8 | (end ? 0 : (unsigned char)p[i]);
		}
		k[m++] = (struct known){prefix, p, colon + 1};
	}
	qsort(k, m, sizeof(*k), by_line);
	for (size_t i = 0; i < m; i++)
		k[i].ev[-1] = '\0';
	*out = k;
	*n = m;
	return 0;
}

static int has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int resolve_one(tw_event_list *l, const struct known *k, size_t nk,
		       const char *top, const trawl_record_event *sel,
		       const char *stack_if, trawl_error *err)
{
	char sys_pat[256], ev_pat[256];
	const char *colon = strchr(sel->name, ':');
	size_t matched = 0;

	if (!*sel->name || strlen(sel->name) >= sizeof(sys_pat))
		return tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
				   "bad event name '%s'", sel->name);
	if (colon) {
		snprintf(sys_pat, sizeof(sys_pat), "%.*s",
			 (int)(colon - sel->name), sel->name);
		snprintf(ev_pat, sizeof(ev_pat), "%s", colon + 1);
	} else {
		/* A system name alone means all of it, as in trace-cmd. */
		int system = 0;
		for (size_t i = 0; i < nk && !system && !has_glob(sel->name);
		     i++)
			system = !strcmp(k[i].line, sel->name);
		snprintf(sys_pat, sizeof(sys_pat), "%s",
			 system ? sel->name : "*");
		snprintf(ev_pat, sizeof(ev_pat), "%s",
			 system ? "*" : sel->name);
	}
	int any_sys = !strcmp(sys_pat, "*"), any_ev = !strcmp(ev_pat, "*");
	int dedupe = l->n > 0;
	for (size_t i = 0; i < nk; i++) {
		if ((!any_sys && fnmatch(sys_pat, k[i].line, 0)) ||
		    (!any_ev && fnmatch(ev_pat, k[i].ev, 0)))
			continue;
		if (add(l, k[i].line, k[i].ev, sel, stack_if, dedupe) < 0)
			return tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0,
					   0, 0, "out of memory");
		matched++;
	}
	if (!matched)
		return tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
				   "no kernel event matches '%s'; the list is "
				   "in %s/available_events",
				   sel->name, top);
	return 0;
}

int tw_events_resolve(const tw_mem *mem, const char *top,
		      const trawl_record_event *sel, size_t nsel,
		      const char *const *stack_if, tw_event_list *out,
		      trawl_error *err)
{
	memset(out, 0, sizeof(*out));
	out->mem = *mem;
	if (!nsel)
		return tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
				   "no events to record; name some with -e "
				   "(e.g. -e 'sched:*')");
	for (size_t i = 0; i < nsel; i++)
		if (!sel[i].name)
			return tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
					   "event %zu has no name", i);
	struct known *k = NULL;
	size_t nk = 0;
	int rc = read_known(out, top, &k, &nk, err);
	for (size_t i = 0; i < nsel && rc == 0; i++)
		rc = resolve_one(out, k, nk, top, &sel[i],
				 stack_if ? stack_if[i] : NULL, err);
	tw_free(&out->mem, k);
	if (rc < 0)
		tw_events_free(out);
	return rc;
}

void tw_events_free(tw_event_list *l)
{
	tw_free(&l->mem, l->text);
	tw_free(&l->mem, l->ev);
	tw_free(&l->mem, l->slots);
	tw_mem mem = l->mem;
	memset(l, 0, sizeof(*l));
	l->mem = mem;
}
