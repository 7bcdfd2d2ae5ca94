/* SPDX-License-Identifier: MIT */
/*
 * The metadata of a recorded trace.dat, read from tracefs when the file is
 * written (so comms and per-CPU stats are the final ones): the page and
 * event header formats, ftrace's own event formats, the formats of the
 * recorded events grouped by system, kallsyms, printk formats, saved
 * cmdlines, and the options trace-cmd writes (clock, uname, version,
 * per-CPU stats, CPU count).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "../core/core.h"
#include "live-int.h"
#include "trawl/trawl.h"

/* Everything the meta owns, freed together. */
struct store {
	const tw_mem *mem;
	const char *top; /* the tracefs the formats are read from */
	void **p;
	size_t n, cap;
	tw_blob *ftrace;
	tw_dat_system *systems;
	tw_dat_option *options;
	uint32_t ncpus;
};

static void *keep(struct store *s, void *p)
{
	if (!p)
		return NULL;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		void **q = tw_realloc(s->mem, s->p, cap * sizeof(*q));
		if (!q) {
			tw_free(s->mem, p);
			return NULL;
		}
		s->p = q;
		s->cap = cap;
	}
	s->p[s->n++] = p;
	return p;
}

/* A file's bytes as a blob; an unreadable file is an empty blob, unless
 * needed, then -1. */
static int slurp(struct store *s, const char *dir, const char *rel,
		 tw_blob *out, int needed)
{
	size_t len = 0;
	char *d = keep(s, tw_tracefs_read_mem(s->mem, dir, rel, &len));
	out->data = d ? d : "";
	out->len = d ? len : 0;
	return d || !needed ? 0 : -1;
}

static int fail(trawl_error *err, const char *dir, const char *rel)
{
	int e = errno ? errno : ENOMEM;
	return tw_error_at(err, e == ENOMEM ? TRAWL_ENOMEM : TRAWL_EENV, e,
			   NULL, 0, 0, 0, "cannot read %s/%s: %s", dir, rel,
			   strerror(e));
}

/* ftrace's own events (print, bprint, function, ...) by name, their
 * formats read when needed, as a system of the meta's (names_only). */
static int ftrace_names(struct store *s, tw_dat_meta *m, struct dirent **names,
			int n, const char *dir, trawl_error *err)
{
	const char **named =
		keep(s, tw_calloc(s->mem, (size_t)n + 1, sizeof(*named)));
	char *pool = NULL;
	size_t bytes = 0;
	for (int i = 0; i < n; i++)
		bytes += strlen(names[i]->d_name) + 1;
	if (named)
		pool = keep(s, tw_malloc(s->mem, bytes + 1));
	tw_dat_system *sys = &s->systems[m->nsystems];
	for (int i = 0; i < n && pool; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name) + 1;
		if (name[0] != '.' && names[i]->d_type == DT_DIR) {
			named[sys->nnamed++] = memcpy(pool, name, len);
			pool += len;
		}
	}
	if (!pool)
		return fail(err, dir, "");
	sys->name = "ftrace";
	sys->named = named;
	m->nsystems++;
	return 0;
}

static int ftrace_formats(struct store *s, tw_dat_meta *m, const char *top,
			  int names_only, trawl_error *err)
{
	char dir[4096], rel[512];
	tw_pathf(dir, sizeof(dir), "%s/events/ftrace", top);
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return 0; /* no ftrace events: nothing to describe */
	if (names_only) {
		int rc = ftrace_names(s, m, names, n, dir, err);
		for (int i = 0; i < n; i++)
			free(names[i]);
		free(names);
		return rc;
	}
	s->ftrace = tw_calloc(s->mem, (size_t)n + 1, sizeof(*s->ftrace));
	int rc = s->ftrace ? 0 : fail(err, dir, "");
	for (int i = 0; i < n; i++) {
		tw_pathf(rel, sizeof(rel), "%s/format", names[i]->d_name);
		if (!rc && names[i]->d_name[0] != '.' &&
		    slurp(s, dir, rel, &s->ftrace[m->nftrace], 0) == 0 &&
		    s->ftrace[m->nftrace].len)
			m->nftrace++;
		free(names[i]);
	}
	free(names);
	m->ftrace = s->ftrace;
	return rc;
}

/* The formats of the events (or, names_only, their names: a kernel has
 * thousands of formats, reading them all is most of a live session's
 * start-up, and a script uses a few), grouped by system. */
static int event_formats(struct store *s, tw_dat_meta *m, const char *top,
			 const tw_event_list *ev, int names_only,
			 trawl_error *err)
{
	char rel[1024];
	size_t n = ev->n;
	/* and one more for ftrace's, names_only */
	s->systems = tw_calloc(s->mem, n + 2, sizeof(*s->systems));
	uint32_t *sys_of = tw_calloc(s->mem, n + 1, sizeof(*sys_of));
	void *all = keep(
		s, tw_calloc(s->mem, n + 1,
			     names_only ? sizeof(char *) : sizeof(tw_blob)));
	if (!s->systems || !sys_of || !all) {
		tw_free(s->mem, sys_of);
		return fail(err, top, "events");
	}
	/* The list is grouped by selection, not by system: group it, each
	 * system's events together in one array. The last system is the
	 * one most likely to be this event's. */
	for (size_t i = 0; i < n; i++) {
		size_t j = m->nsystems;
		while (j-- > 0 && strcmp(s->systems[j].name, ev->ev[i].system))
			;
		if (j == (size_t)-1) {
			j = m->nsystems++;
			s->systems[j].name = ev->ev[i].system;
		}
		sys_of[i] = (uint32_t)j;
		s->systems[j].nformats++; /* for now: its count */
	}
	size_t at = 0;
	for (size_t j = 0; j < m->nsystems; j++) {
		tw_dat_system *sys = &s->systems[j];
		if (names_only)
			sys->named = (const char **)all + at;
		else
			sys->formats = (tw_blob *)all + at;
		at += sys->nformats;
		sys->nformats = 0;
	}
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		tw_dat_system *sys = &s->systems[sys_of[i]];
		if (names_only) {
			((const char **)sys->named)[sys->nnamed++] =
				ev->ev[i].event;
			continue;
		}
		tw_pathf(rel, sizeof(rel), "events/%s/%s/format",
			 ev->ev[i].system, ev->ev[i].event);
		tw_blob *f = (tw_blob *)&sys->formats[sys->nformats];
		if (slurp(s, top, rel, f, 1) < 0)
			rc = fail(err, top, rel);
		sys->nformats++;
	}
	tw_free(s->mem, sys_of);
	m->systems = s->systems;
	return rc;
}

const char *tw_meta_format(tw_meta *meta, const char *system, const char *event,
			   size_t *len)
{
	struct store *s = meta->store;
	char rel[1024];
	tw_blob b;
	if (!s ||
	    tw_pathf(rel, sizeof(rel), "events/%s/%s/format", system, event) <
		    0 ||
	    slurp(s, s->top, rel, &b, 1) < 0)
		return NULL;
	*len = b.len;
	return b.data;
}

static int option_text(struct store *s, tw_dat_meta *m, uint16_t id, char *text)
{
	if (!keep(s, text))
		return -1;
	tw_dat_option *o = &s->options[m->noptions++];
	o->id = id;
	/* trace-cmd stores these with their NUL. */
	o->value.data = text;
	o->value.len = strlen(text) + 1;
	return 0;
}

/* Where the kernel names each CPU's idle states (cpuidle), which the
 * cpu_idle event gives by number only. */
#define CPU_SYSFS "/sys/devices/system/cpu"
#define MAX_IDLE_STATES 16 /* CPUIDLE_STATE_MAX */

/*
 * The MACHINE option (dat-write.h): every CPU's idle state names as
 * "cpuN/cpuidle/stateM/name=NAME" lines. NULL when the machine has no
 * cpuidle (or out of memory: the names are a nicety, not data).
 */
static char *machine_text(const tw_mem *mem, int ncpus)
{
	tw_buf b = {0};
	int bad = 0;
	for (int c = 0; c < ncpus; c++)
		for (int st = 0; st < MAX_IDLE_STATES; st++) {
			char rel[64];
			tw_pathf(rel, sizeof(rel), "cpu%d/cpuidle/state%d/name",
				 c, st);
			size_t n;
			char *name = tw_tracefs_read_mem(mem, CPU_SYSFS, rel,
							 &n);
			if (!name)
				break;
			while (n && (name[n - 1] == '\n' || !name[n - 1]))
				n--;
			bad |= tw_buf_append(mem, &b, rel, strlen(rel)) |
			       tw_buf_append(mem, &b, "=", 1) |
			       tw_buf_append(mem, &b, name, n) |
			       tw_buf_append(mem, &b, "\n", 1);
			tw_free(mem, name);
		}
	if (bad || !b.len) {
		tw_buf_fini(mem, &b);
		return NULL;
	}
	return b.data; /* NUL-ended */
}

static int options(struct store *s, tw_dat_meta *m, const tw_tracefs *tf,
		   int ncpus)
{
	s->options = tw_calloc(s->mem, (size_t)ncpus + 8, sizeof(*s->options));
	if (!s->options)
		return -1;
	m->options = s->options;
	char *clock = tw_tracefs_read_mem(s->mem, tf->dir, "trace_clock", NULL);
	if (clock && option_text(s, m, TW_DAT_OPT_TRACECLOCK, clock) < 0)
		return -1;
	struct utsname u;
	if (uname(&u) == 0) {
		char *t = tw_malloc(s->mem, 4 * sizeof(u.sysname));
		if (t)
			snprintf(t, 4 * sizeof(u.sysname), "%s %s %s %s",
				 u.sysname, u.nodename, u.release, u.machine);
		if (option_text(s, m, TW_DAT_OPT_UNAME, t) < 0)
			return -1;
	}
	if (option_text(s, m, TW_DAT_OPT_VERSION,
			tw_strndup(s->mem, "trawl " TRAWL_VERSION,
				   strlen("trawl " TRAWL_VERSION))) < 0)
		return -1;
	for (int c = 0; c < ncpus; c++) {
		char rel[64];
		tw_pathf(rel, sizeof(rel), "per_cpu/cpu%d/stats", c);
		char *st = tw_tracefs_read_mem(s->mem, tf->dir, rel, NULL);
		if (!st)
			continue;
		size_t n = strlen(st) + 32;
		char *t = tw_malloc(s->mem, n);
		if (t)
			snprintf(t, n, "CPU: %d\n%s", c, st);
		tw_free(s->mem, st);
		if (option_text(s, m, TW_DAT_OPT_CPUSTAT, t) < 0)
			return -1;
	}
	char *machine = machine_text(s->mem, ncpus);
	if (machine && option_text(s, m, TW_DAT_OPT_MACHINE, machine) < 0)
		return -1;
	s->ncpus = (uint32_t)ncpus;
	tw_dat_option *o = &s->options[m->noptions++];
	o->id = TW_DAT_OPT_CPUCOUNT;
	o->value.data = (const char *)&s->ncpus;
	o->value.len = sizeof(s->ncpus);
	return 0;
}

int tw_meta_collect(tw_meta *meta, const tw_tracefs *tf,
		    const tw_event_list *events, int ncpus, size_t page_size,
		    unsigned flags, trawl_error *err)
{
	memset(meta, 0, sizeof(*meta));
	struct store *s = tw_calloc(&tf->mem, 1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return fail(err, tf->top, "");
	}
	s->mem = &tf->mem;
	s->top = tf->top;
	meta->store = s;
	tw_dat_meta *m = &meta->m;
	m->page_size = (uint32_t)page_size;
	m->ncpus = ncpus;
	int rc = 0;
	errno = 0;
	if (slurp(s, tf->top, "events/header_page", &m->header_page, 1) < 0)
		rc = fail(err, tf->top, "events/header_page");
	else if (slurp(s, tf->top, "events/header_event", &m->header_event, 1) <
		 0)
		rc = fail(err, tf->top, "events/header_event");
	else if ((rc = event_formats(s, m, tf->top, events,
				     (flags & TW_META_NAMES_ONLY) != 0, err)) <
			 0 ||
		 (rc = ftrace_formats(s, m, tf->top,
				      (flags & TW_META_NAMES_ONLY) != 0, err)) <
			 0)
		;
	else if ((flags & TW_META_KALLSYMS) &&
		 slurp(s, "/proc", "kallsyms", &m->kallsyms, 1) < 0)
		rc = fail(err, "/proc", "kallsyms");
	else if (slurp(s, tf->top, "printk_formats", &m->printk, 0) < 0 ||
		 (!(flags & TW_META_NO_CMDLINES) &&
		  slurp(s, tf->top, "saved_cmdlines", &m->cmdlines, 0) < 0) ||
		 options(s, m, tf, ncpus) < 0)
		rc = fail(err, tf->top, "");
	if (rc < 0)
		tw_meta_fini(meta);
	return rc;
}

void tw_meta_fini(tw_meta *meta)
{
	struct store *s = meta->store;
	if (!s)
		return;
	const tw_mem *mem = s->mem;
	for (size_t i = 0; i < s->n; i++)
		tw_free(mem, s->p[i]);
	tw_free(mem, s->p);
	tw_free(mem, s->ftrace);
	tw_free(mem, s->systems);
	tw_free(mem, s->options);
	tw_free(mem, s);
	meta->store = NULL;
}
