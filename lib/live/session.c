/* SPDX-License-Identifier: MIT */
/*
 * The recorder: tracefs set up for the session, one splice reader per CPU
 * (or none, for the flight recorder), per-CPU temporary files, and the
 * trace.dat assembled from them when it stops. The order of the set-up
 * matters: tracing is off while events, filters, buffer size and clock
 * change, the readers are ready before it goes on, and it goes off before
 * the final drain, so the last pages are complete and nothing is written
 * behind the readers' backs.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/core.h"
#include "../ring/ring-pages.h"
#include "live-int.h"

/* Application channels' event ids: channel j takes the 255 ids below
 * 65536 - 256 * j (common_type is 16 bits), far above the kernel's, which
 * count up from 1; save7() checks that they do not meet. */
#define APP_ID_TOP 65536u

struct trawl_record {
	tw_mem mem; /* the caller's allocator (trawl_record_opts.realloc) */
	unsigned flags;
	char *output;
	tw_tracefs tf;
	tw_event_list events;
	int ncpus;
	size_t page_size;
	int out_fd;	    /* the output, created at start */
	int *tmp_fd;	    /* per CPU */
	tw_reader *readers; /* per CPU */
	int stop_fd;
	int trigger; /* a traceoff trigger is installed */
	int stopped;
	/* stats at the last save, so each file reports its own losses */
	uint64_t *base_overrun, *base_dropped;
	trawl_record_cpu *cpu; /* results of the last file */
	uint64_t file_size;
	int version; /* of the file: 6 or 7 */
	int comp;    /* enum tw_dat_comp, version 7 */
	tw_dat7 *w;  /* version 7, streaming: the output as it is written */
	const tw_record_hooks *hooks; /* live (tw_record_start): no output
				       * when output is NULL */
	unsigned filters_refused;     /* live: filters the kernel refused */
	const char *more_comms;	      /* live: names besides saved_cmdlines */
	/* application channels (trawl_record_opts.apps), polled by a thread
	 * of their own (attached only, for the flight recorder) */
	tw_ring_pages **apps;
	size_t napps;
	pthread_t app_thread;
	int app_thread_on;
	int app_stop;
	size_t app_sys_base; /* save7: where the apps' systems start */
};

static int open_output(const char *path, trawl_error *err)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return tw_error_at(err, TRAWL_EIO, errno, path, 0, 0, 0,
				   "cannot create the output: %s; choose "
				   "another file with -o",
				   strerror(errno));
	return fd;
}

/* An unlinked file in dir, so nothing is left behind even on a crash. */
static int open_tmp(const char *dir, trawl_error *err)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	char path[4096];
	tw_pathf(path, sizeof(path), "%s/.trawl-record-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return tw_error_at(err, TRAWL_EIO, errno, dir, 0, 0, 0,
				   "cannot create a temporary file here: %s; "
				   "write the output elsewhere with -o",
				   strerror(errno));
	unlink(path);
	return fd;
}

static int set_clock(trawl_record *r, const char *clock, trawl_error *err)
{
	char *list =
		tw_tracefs_read_mem(&r->mem, r->tf.dir, "trace_clock", NULL);
	int found = 0;
	if (list) {
		size_t n = strlen(clock);
		for (char *p = list; *p && !found;) {
			p += strspn(p, " [\n");
			size_t w = strcspn(p, " ]\n");
			found = w == n && !strncmp(p, clock, n);
			p += w;
			p += strspn(p, "]");
		}
	}
	if (!found) {
		size_t n = list ? strcspn(list, "\n") : 0;
		int rc = tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
				     "this kernel has no trace clock '%s'; it "
				     "has: %.*s",
				     clock, (int)n, list ? list : "");
		tw_free(&r->mem, list);
		return rc;
	}
	tw_free(&r->mem, list);
	return tw_tracefs_set(&r->tf, "trace_clock", clock, TW_SET_BRACKET,
			      err);
}

/* "stacktrace", or "stacktrace if (a) && (b)" of the conditions given
 * (NULL: none; the same text twice is one). NULL when out of memory. */
static char *stack_cmd(trawl_record *r, const char *a, const char *b)
{
	if (!a || (b && !strcmp(a, b))) {
		a = b;
		b = NULL;
	}
	size_t n = 32 + (a ? strlen(a) : 0) + (b ? strlen(b) : 0);
	char *cmd = tw_malloc(&r->mem, n);
	if (!cmd)
		return NULL;
	if (a && b)
		snprintf(cmd, n, "stacktrace if (%s) && (%s)", a, b);
	else if (a)
		snprintf(cmd, n, "stacktrace if %s", a);
	else
		snprintf(cmd, n, "stacktrace");
	return cmd;
}

/*
 * The stacktrace trigger of an event whose filter is filter (NULL: none,
 * or one the kernel refused). The trigger needs the filter: the kernel
 * runs triggers on the events its filter drops too (on 6.18, with
 * 'common_pid == 1' on sys_enter_getppid, a plain trigger wrote a stack
 * for each of perl's getppid() calls and no event). live: a stack_if the
 * kernel refuses is left out (more stacks, each still after an event
 * recorded) and counted.
 */
static int set_stack(trawl_record *r, const tw_event_sel *e, const char *filter,
		     trawl_error *err)
{
	char rel[1024];
	tw_pathf(rel, sizeof(rel), "events/%s/%s/trigger", e->system, e->event);
	char *cmd = stack_cmd(r, filter, e->stack_if);
	if (!cmd)
		return tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0, 0, 0,
				   "out of memory");
	trawl_error why = {0};
	int rc = tw_tracefs_set(&r->tf, rel, cmd, TW_SET_TRIGGER, &why);
	if (rc == -TRAWL_EINVAL && why.sys_errno == EINVAL && e->stack_if &&
	    (!filter || strcmp(filter, e->stack_if))) {
		tw_free(&r->mem, cmd);
		if (!(cmd = stack_cmd(r, filter, NULL)))
			return tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0,
					   0, 0, "out of memory");
		rc = tw_tracefs_set(&r->tf, rel, cmd, TW_SET_TRIGGER, &why);
		if (rc == 0)
			r->filters_refused++;
	}
	if (rc == -TRAWL_EINVAL && why.sys_errno == EEXIST)
		rc = tw_error_at(err, TRAWL_EINVAL, EEXIST, NULL, 0, 0, 0,
				 "%s:%s has a stacktrace trigger already "
				 "(another tool's, in %s/events/%s/%s/"
				 "trigger); remove it, or record in an "
				 "instance of trawl's own (no --top-level)",
				 e->system, e->event, r->tf.dir, e->system,
				 e->event);
	else if (rc == -TRAWL_EINVAL)
		rc = tw_error_at(err, TRAWL_EINVAL, why.sys_errno, NULL, 0, 0,
				 0,
				 "the kernel refuses the trigger '%s' for "
				 "%s:%s (the stacks after its events)",
				 cmd, e->system, e->event);
	else if (rc < 0 && err)
		*err = why;
	tw_free(&r->mem, cmd);
	return rc;
}

static int set_events(trawl_record *r, trawl_error *err)
{
	char rel[1024];
	for (size_t i = 0; i < r->events.n; i++) {
		const tw_event_sel *e = &r->events.ev[i];
		const char *filter = e->filter;
		if (e->filter) {
			tw_pathf(rel, sizeof(rel), "events/%s/%s/filter",
				 e->system, e->event);
			int rc = tw_tracefs_set(&r->tf, rel, e->filter,
						TW_SET_FILTER, err);
			/* live: the script runs its predicate anyway */
			if (rc == -TRAWL_EINVAL && r->hooks) {
				r->filters_refused++;
				filter = NULL;
				rc = 0;
			}
			if (rc < 0)
				return tw_error_at(
					err, TRAWL_EINVAL,
					err ? err->sys_errno : 0, NULL, 0, 0, 0,
					"the kernel refuses the filter '%s' "
					"for %s:%s (a field it does not have, "
					"or bad syntax; the fields are in "
					"events/%s/%s/format)",
					e->filter, e->system, e->event,
					e->system, e->event);
		}
		tw_pathf(rel, sizeof(rel), "events/%s/%s/enable", e->system,
			 e->event);
		int rc = tw_tracefs_set(&r->tf, rel, "1", TW_SET_VALUE, err);
		if (rc < 0)
			return rc;
		/* After the enable: a trigger soft-enables its event, whose
		 * enable then reads "0*", which the restore could not write
		 * back. Tracing is off, so no event comes without its stack. */
		if ((e->flags & TRAWL_RECORD_EVENT_STACK) &&
		    (rc = set_stack(r, e, filter, err)) < 0)
			return rc;
	}
	return 0;
}

/* "system:event" or "system:event if FILTER": a traceoff trigger. */
static int set_trigger(trawl_record *r, const char *spec, trawl_error *err)
{
	char ev[512], rel[1200], cmd[1024];
	const char *cond = strstr(spec, " if ");
	size_t n = cond ? (size_t)(cond - spec) : strlen(spec);
	const char *colon = memchr(spec, ':', n);
	if (!colon || n >= sizeof(ev) || strcspn(spec, "*?[") < n)
		return tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
				   "the trigger must be one event, "
				   "'system:event [if FILTER]', not '%s'",
				   spec);
	memcpy(ev, spec, n);
	ev[n] = '\0';
	ev[colon - spec] = '/';
	tw_pathf(rel, sizeof(rel), "events/%s/trigger", ev);
	char path[4096];
	tw_pathf(path, sizeof(path), "%s/%s", r->tf.dir, rel);
	if (access(path, F_OK) < 0)
		return tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
				   "no kernel event '%.*s' for the trigger",
				   (int)n, spec);
	snprintf(cmd, sizeof(cmd), "traceoff%s", cond ? cond : "");
	int rc = tw_tracefs_set(&r->tf, rel, cmd, TW_SET_TRIGGER, err);
	if (rc < 0)
		return tw_error_at(err, TRAWL_EINVAL, err ? err->sys_errno : 0,
				   NULL, 0, 0, 0,
				   "the kernel refuses the trigger '%s' (check "
				   "the filter's fields)",
				   spec);
	r->trigger = 1;
	return 0;
}

static void stat_counts(const trawl_record *r, int cpu, uint64_t *overrun,
			uint64_t *dropped)
{
	char rel[64];
	tw_pathf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
	char *s = tw_tracefs_read_mem(&r->mem, r->tf.dir, rel, NULL);
	*overrun = *dropped = 0;
	if (!s)
		return;
	const char *p = strstr(s, "\noverrun:");
	if (!p && !strncmp(s, "overrun:", 8))
		p = s - 1;
	if (p)
		*overrun = strtoull(p + 9, NULL, 10);
	p = strstr(s, "dropped events:");
	if (p)
		*dropped = strtoull(p + 15, NULL, 10);
	tw_free(&r->mem, s);
}

/* The kernel's count of the events read from a CPU's buffer. */
static uint64_t read_events(const trawl_record *r, int cpu)
{
	char rel[64];
	tw_pathf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
	char *s = tw_tracefs_read_mem(&r->mem, r->tf.dir, rel, NULL);
	const char *p = s ? strstr(s, "read events:") : NULL;
	uint64_t n = p ? strtoull(p + 12, NULL, 10) : 0;
	tw_free(&r->mem, s);
	return n;
}

static int alloc_state(trawl_record *r)
{
	size_t n = (size_t)r->ncpus;
	r->tmp_fd = tw_malloc(&r->mem, n * sizeof(*r->tmp_fd));
	r->readers = tw_calloc(&r->mem, n, sizeof(*r->readers));
	r->base_overrun = tw_calloc(&r->mem, n, sizeof(uint64_t));
	r->base_dropped = tw_calloc(&r->mem, n, sizeof(uint64_t));
	r->cpu = tw_calloc(&r->mem, n, sizeof(*r->cpu));
	if (!r->tmp_fd || !r->readers || !r->base_overrun || !r->base_dropped ||
	    !r->cpu)
		return -1;
	for (size_t i = 0; i < n; i++) {
		r->tmp_fd[i] = -1;
		r->readers[i].raw_fd = -1;
		r->readers[i].poke_fd = -1;
		r->readers[i].pipe_fd[0] = r->readers[i].pipe_fd[1] = -1;
	}
	return 0;
}

static void apps_stop(trawl_record *r)
{
	if (!r->app_thread_on)
		return;
	__atomic_store_n(&r->app_stop, 1, __ATOMIC_RELEASE);
	pthread_join(r->app_thread, NULL);
	r->app_thread_on = 0;
}

static void *apps_poll(void *arg)
{
	trawl_record *r = arg;
	int flight = !!(r->flags & TRAWL_RECORD_FLIGHT);
	while (!__atomic_load_n(&r->app_stop, __ATOMIC_ACQUIRE)) {
		for (size_t i = 0; i < r->napps; i++)
			if (flight)
				tw_ring_pages_attach(r->apps[i]);
			else
				tw_ring_pages_poll(r->apps[i], 0);
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void apps_free(trawl_record *r)
{
	apps_stop(r);
	for (size_t i = 0; i < r->napps; i++)
		tw_ring_pages_free(r->apps[i]);
	tw_free(&r->mem, r->apps);
	r->apps = NULL;
	r->napps = 0;
}

static void release(trawl_record *r)
{
	apps_free(r);
	if (r->stop_fd >= 0) {
		uint64_t one = 1;
		if (write(r->stop_fd, &one, sizeof(one)) < 0) {
			/* the readers also wake within a second */
		}
	}
	for (int c = 0; r->readers && c < r->ncpus; c++) {
		int poke = r->readers[c].poke_fd;
		tw_reader_fini(&r->readers[c]);
		if (poke >= 0)
			close(poke);
	}
	tw_tracefs_restore(&r->tf);
	for (int c = 0; r->tmp_fd && c < r->ncpus; c++)
		if (r->tmp_fd[c] >= 0)
			close(r->tmp_fd[c]);
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (r->stop_fd >= 0)
		close(r->stop_fd);
	r->out_fd = r->stop_fd = -1;
	tw_dat7_free(r->w);
	r->w = NULL;
	tw_free(&r->mem, r->tmp_fd);
	r->tmp_fd = NULL;
	tw_free(&r->mem, r->readers);
	r->readers = NULL;
	r->stopped = 1;
}

/* What a recording's file holds of the kernel's symbols. */
static unsigned meta_flags(const trawl_record *r)
{
	return r->flags & TRAWL_RECORD_NO_KALLSYMS ? 0 : TW_META_KALLSYMS;
}

/*
 * Hold the room the header will need in the output now, so a disk that
 * fills up while recording can still take a readable file at the end.
 */
static int reserve_header(trawl_record *r, trawl_error *err)
{
	tw_meta meta;
	int rc = tw_meta_collect(&meta, &r->tf, &r->events, r->ncpus,
				 r->page_size, meta_flags(r), err);
	if (rc < 0)
		return rc;
	/* Comms and stats grow a little by the end. */
	uint64_t n = tw_dat_header_size(&meta.m) + (256 << 10);
	tw_meta_fini(&meta);
	int e = posix_fallocate(r->out_fd, 0, (off_t)n);
	if (e && e != EOPNOTSUPP && e != EINVAL)
		return tw_error_at(err, TRAWL_EIO, e, r->output, 0, 0, 0,
				   "cannot reserve %llu bytes for the "
				   "output: %s; free some space or write "
				   "elsewhere with -o",
				   (unsigned long long)n, strerror(e));
	return 0;
}

/* A version 7 writer on fd, its metadata read now. */
static tw_dat7 *open_writer(trawl_record *r, int fd, const char *path,
			    trawl_error *err)
{
	tw_meta meta;
	if (tw_meta_collect(&meta, &r->tf, &r->events, r->ncpus, r->page_size,
			    meta_flags(r), err) < 0)
		return NULL;
	tw_dat7 *w = tw_dat7_open(&r->mem, fd, path, &meta.m, r->comp, err);
	tw_meta_fini(&meta);
	return w;
}

static int tracing(trawl_record *r, int on, trawl_error *err)
{
	return tw_tracefs_set(&r->tf, "tracing_on", on ? "1" : "0",
			      TW_SET_VALUE, err);
}

TRAWL_API trawl_record *trawl_record_start(const trawl_record_opts *o,
					   trawl_error *err)
{
	return tw_record_start(o, NULL, err);
}

trawl_record *tw_record_start(const trawl_record_opts *o,
			      const tw_record_hooks *hooks, trawl_error *err)
{
	if (!o) {
		tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
			    "no options given");
		return NULL;
	}
	if (o->trigger && !(o->flags & TRAWL_RECORD_FLIGHT)) {
		tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
			    "a trigger needs the flight recorder mode "
			    "(--flight-recorder)");
		return NULL;
	}
	int version = o->file_version ? (int)o->file_version : 7, comp;
	if (version != 6 && version != 7) {
		tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
			    "trace.dat version %u is not one trawl writes (6 "
			    "or 7)",
			    o->file_version);
		return NULL;
	}
	if (!o->compression || !strcmp(o->compression, "zstd"))
		comp = TW_DAT_COMP_ZSTD;
	else if (!strcmp(o->compression, "none"))
		comp = TW_DAT_COMP_NONE;
	else if (!strcmp(o->compression, "zlib"))
		comp = TW_DAT_COMP_ZLIB;
	else {
		tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
			    "no compression '%s': zstd (the default), zlib "
			    "or none",
			    o->compression);
		return NULL;
	}
	if (version == 6 && comp != TW_DAT_COMP_NONE && o->compression) {
		tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
			    "trace.dat version 6 is never compressed; use "
			    "--compression none or version 7");
		return NULL;
	}
	tw_mem mem;
	tw_mem_init(&mem, o->realloc, o->alloc_ctx);
	trawl_record *r = tw_calloc(&mem, 1, sizeof(*r));
	if (!r) {
		tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0, 0, 0,
			    "out of memory");
		return NULL;
	}
	r->mem = mem;
	r->flags = o->flags;
	r->version = version;
	r->comp = version == 7 ? comp : TW_DAT_COMP_NONE;
	r->out_fd = r->stop_fd = -1;
	r->hooks = hooks;
	/* live: no output unless one is named, and only version 7 (its
	 * pages go to the file as they go to the consumer) */
	int no_output = hooks && !o->output;
	if (hooks && (version != 7 || (o->flags & TRAWL_RECORD_FLIGHT))) {
		tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
			    "a live session writes trace.dat version 7 and "
			    "is no flight recorder");
		tw_free(&mem, r);
		return NULL;
	}
	const char *out = o->output ? o->output : "trace.dat";
	r->output = tw_strndup(&mem, out, strlen(out));
	char *dir_copy = r->output ? tw_strndup(&mem, out, strlen(out)) : NULL;
	const char *tmpdir = o->tmpdir;
	if (!r->output || !dir_copy) {
		tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0, 0, 0,
			    "out of memory");
		goto fail;
	}
	if (!tmpdir)
		tmpdir = dirname(dir_copy);

	if (tw_tracefs_open(&r->tf, &r->mem,
			    !!(o->flags & TRAWL_RECORD_TOP_LEVEL), err) < 0)
		goto fail;
	if (tw_events_resolve(&r->mem, r->tf.top, o->events, o->nevents,
			      hooks ? hooks->stack_if : NULL, &r->events,
			      err) < 0)
		goto fail;
	r->ncpus = tw_tracefs_cpus(&r->tf);
	r->page_size = tw_tracefs_page_size(&r->tf);
	if (r->ncpus <= 0) {
		tw_error_at(err, TRAWL_EENV, 0, NULL, 0, 0, 0,
			    "no per_cpu directories in %s", r->tf.dir);
		goto fail;
	}
	if (alloc_state(r) < 0) {
		tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0, 0, 0,
			    "out of memory");
		goto fail;
	}
	if (!no_output && ((r->out_fd = open_output(r->output, err)) < 0 ||
			   (r->version == 6 && reserve_header(r, err) < 0)))
		goto fail;
	/* Version 7 streams: header and formats are on disk from now on. */
	if (!no_output && r->version == 7 &&
	    !(o->flags & TRAWL_RECORD_FLIGHT) &&
	    !(r->w = open_writer(r, r->out_fd, r->output, err)))
		goto fail;

	if (tracing(r, 0, err) < 0)
		goto fail;
	if (o->buffer_kb) {
		char kb[32];
		snprintf(kb, sizeof(kb), "%u", o->buffer_kb);
		if (tw_tracefs_set(&r->tf, "buffer_size_kb", kb,
				   TW_SET_BUFFER_KB, err) < 0)
			goto fail;
	}
	if (o->napps &&
	    (version != 7 || hooks || (o->clock && strcmp(o->clock, "mono")))) {
		tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
			    "application channels (--app) are recorded into "
			    "trace.dat version 7 with the clock \"mono\" "
			    "(CLOCK_MONOTONIC, theirs)");
		goto fail;
	}
	const char *clock = o->clock ? o->clock : o->napps ? "mono" : NULL;
	if (clock && set_clock(r, clock, err) < 0)
		goto fail;
	if (o->flags & TRAWL_RECORD_FLIGHT) {
		if (tw_tracefs_set(&r->tf, "options/overwrite", "1",
				   TW_SET_VALUE, err) < 0)
			goto fail;
	} else {
		/* Readers wake when the buffer is half full (see reader.c);
		 * 0 here would wake them for every event. */
		char path[4096];
		tw_pathf(path, sizeof(path), "%s/buffer_percent", r->tf.dir);
		if (access(path, F_OK) == 0 &&
		    tw_tracefs_set(&r->tf, "buffer_percent", "50", TW_SET_VALUE,
				   err) < 0)
			goto fail;
	}
	if (!r->tf.inst) {
		/* The top-level buffer may hold older events: start empty. */
		char path[4096];
		tw_pathf(path, sizeof(path), "%s/trace", r->tf.dir);
		int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
	}
	/* The traceoff trigger first: the kernel runs an event's triggers
	 * newest first, so a stack asked for the same event (-T) is
	 * written before tracing stops. */
	if (o->trigger && set_trigger(r, o->trigger, err) < 0)
		goto fail;
	if (set_events(r, err) < 0)
		goto fail;

	if (o->napps) {
		r->apps = tw_calloc(&r->mem, o->napps, sizeof(*r->apps));
		if (!r->apps || o->napps > 64) {
			tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
				    "cannot record %zu application channels "
				    "(64 at most)",
				    o->napps);
			goto fail;
		}
		for (size_t i = 0; i < o->napps; i++) {
			r->apps[i] = tw_ring_pages_new(
				o->apps[i], (uint32_t)r->page_size,
				APP_ID_TOP - 256 * (uint32_t)(i + 1));
			if (!r->apps[i]) {
				tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
					    "cannot record application "
					    "channel \"%s\": not a channel "
					    "name",
					    o->apps[i] ? o->apps[i] : "");
				goto fail;
			}
			r->napps++;
		}
		if (pthread_create(&r->app_thread, NULL, apps_poll, r)) {
			tw_error_at(err, TRAWL_EENV, errno, NULL, 0, 0, 0,
				    "cannot start a thread");
			goto fail;
		}
		r->app_thread_on = 1;
	}
	r->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (r->stop_fd < 0) {
		tw_error_at(err, TRAWL_EENV, errno, NULL, 0, 0, 0,
			    "cannot create an eventfd: %s", strerror(errno));
		goto fail;
	}
	for (int c = 0; c < r->ncpus; c++) {
		if (r->version == 6 &&
		    (r->tmp_fd[c] = open_tmp(tmpdir, err)) < 0)
			goto fail;
		if (tw_reader_init(&r->readers[c], r->tf.dir, c, r->tmp_fd[c],
				   r->stop_fd, r->page_size, err) < 0)
			goto fail;
		r->readers[c].sink = r->w;
		r->readers[c].mem = &r->mem;
		r->readers[c].comms_dir = c == 0 ? r->tf.top : NULL;
		r->readers[c].hooks = hooks;
		if (hooks &&
		    (r->readers[c].poke_fd = eventfd(0, EFD_CLOEXEC)) < 0) {
			tw_error_at(err, TRAWL_EENV, errno, NULL, 0, 0, 0,
				    "cannot create an eventfd: %s",
				    strerror(errno));
			goto fail;
		}
		stat_counts(r, c, &r->base_overrun[c], &r->base_dropped[c]);
	}
	if (!(o->flags & TRAWL_RECORD_FLIGHT))
		for (int c = 0; c < r->ncpus; c++)
			if (tw_reader_start(&r->readers[c], err) < 0)
				goto fail;
	if (tracing(r, 1, err) < 0)
		goto fail;
	tw_free(&r->mem, dir_copy);
	return r;

fail:
	tw_free(&r->mem, dir_copy);
	if (r->out_fd >= 0)
		unlink(r->output); /* empty, and named by the error */
	release(r);
	tw_events_free(&r->events);
	tw_free(&r->mem, r->base_overrun);
	tw_free(&r->mem, r->base_dropped);
	tw_free(&r->mem, r->cpu);
	tw_free(&r->mem, r->output);
	tw_free(&mem, r);
	return NULL;
}

TRAWL_API int trawl_record_poll(trawl_record *r, trawl_record_status *st)
{
	if (!r || !st)
		return -TRAWL_EMISUSE;
	memset(st, 0, sizeof(*st));
	for (int c = 0; !r->stopped && c < r->ncpus; c++) {
		st->bytes +=
			__atomic_load_n(&r->readers[c].bytes, __ATOMIC_RELAXED);
		/* Pairs with the release store in reader.c's fail(). */
		if (__atomic_load_n(&r->readers[c].error, __ATOMIC_ACQUIRE))
			st->failed = 1;
	}
	for (int c = 0; !r->stopped && c < r->ncpus; c++) {
		uint64_t ov, dr;
		stat_counts(r, c, &ov, &dr);
		st->lost += ov - r->base_overrun[c] + dr - r->base_dropped[c];
		st->events += read_events(r, c);
	}
	if (r->trigger && !r->stopped) {
		char *on = tw_tracefs_read(r->tf.dir, "tracing_on", NULL);
		st->triggered = on && on[0] == '0';
		free(on);
	}
	return 0;
}

/* Final drain of every CPU into its temporary file; tracing is off. */
static int drain_all(trawl_record *r, trawl_error *err)
{
	int rc = 0;
	for (int c = 0; c < r->ncpus; c++) {
		tw_reader *rd = &r->readers[c];
		int e = __atomic_load_n(&rd->error, __ATOMIC_ACQUIRE);
		if (!e && tw_reader_drain(rd, TW_DRAIN_ALL) < 0)
			e = __atomic_load_n(&rd->error, __ATOMIC_ACQUIRE);
		if (e && !rc)
			rc = tw_error_at(
				err, TRAWL_EIO, e, NULL, 0, 0, 0,
				"cannot save CPU %d's pages: %s; what was "
				"saved before goes into the file%s",
				c, strerror(e),
				e == ENOSPC ? "; free some space or write "
					      "elsewhere with -o"
					    : "");
	}
	return rc;
}

/* The highest event id of the kernel's formats in m. */
static long kernel_max_id(const tw_dat_meta *m)
{
	long max = 0;
	for (size_t i = 0; i < m->nsystems; i++)
		for (size_t j = 0; j < m->systems[i].nformats; j++) {
			const tw_blob *b = &m->systems[i].formats[j];
			const char *id = memmem(b->data, b->len, "\nID: ", 5);
			long v = id ? strtol(id + 5, NULL, 10) : 0;
			if (v > max)
				max = v;
		}
	for (size_t j = 0; j < m->nftrace; j++) {
		const char *id = memmem(m->ftrace[j].data, m->ftrace[j].len,
					"\nID: ", 5);
		long v = id ? strtol(id + 5, NULL, 10) : 0;
		if (v > max)
			max = v;
	}
	return max;
}

/*
 * The application channels into m: the last of their events read, their
 * formats as systems of their own after the kernel's, their pages as
 * buffers of their own. *systems and *extra (OUT) are for apps_done().
 */
static int add_apps(trawl_record *r, tw_dat_meta *m, tw_dat_system **systems,
		    tw_dat_extra **extra, trawl_error *err)
{
	/* the poller stops while the channels are read here; the flight
	 * recorder's starts again after the save (apps_done) */
	apps_stop(r);
	if (kernel_max_id(m) >= (long)(APP_ID_TOP - 256 * r->napps))
		return tw_error_at(err, TRAWL_ELIMIT, 0, NULL, 0, 0, 0,
				   "cannot give application events ids: the "
				   "kernel's reach %ld",
				   kernel_max_id(m));
	tw_dat_system *sys =
		tw_calloc(&r->mem, m->nsystems + r->napps, sizeof(*sys));
	tw_dat_extra *ex = tw_calloc(&r->mem, r->napps, sizeof(*ex));
	if (!sys || !ex) {
		tw_free(&r->mem, sys);
		tw_free(&r->mem, ex);
		return tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0, 0, 0,
				   "out of memory");
	}
	memcpy(sys, m->systems, m->nsystems * sizeof(*sys));
	size_t nsys = m->nsystems, nex = 0;
	for (size_t i = 0; i < r->napps; i++) {
		tw_ring_pages *p = r->apps[i];
		if (tw_ring_pages_poll(p, 1) <= 0)
			continue; /* never appeared: nothing to save */
		const char *const *texts;
		const size_t *lens;
		size_t n = tw_ring_pages_formats(p, &texts, &lens);
		tw_blob *f = tw_calloc(&r->mem, n ? n : 1, sizeof(*f));
		int ncpus = tw_ring_pages_ncpus(p);
		tw_blob *pages =
			tw_calloc(&r->mem, (size_t)ncpus, sizeof(*pages));
		if (!f || !pages) {
			tw_free(&r->mem, f);
			tw_free(&r->mem, pages);
			continue;
		}
		for (size_t k = 0; k < n; k++)
			f[k] = (tw_blob){texts[k], lens[k]};
		sys[nsys++] = (tw_dat_system){.name = tw_ring_pages_name(p),
					      .formats = f,
					      .nformats = n};
		for (int c = 0; c < ncpus; c++) {
			size_t len;
			const void *d = tw_ring_pages_data(p, c, &len);
			pages[c] = (tw_blob){d, len};
		}
		ex[nex++] = (tw_dat_extra){tw_ring_pages_name(p), "mono", ncpus,
					   pages};
	}
	/* apps_done() finds the blobs through these */
	m->systems = sys;
	m->nsystems = nsys;
	m->extra = ex;
	m->nextra = nex;
	*systems = sys;
	*extra = ex;
	r->app_sys_base = nsys - nex;
	return 0;
}

/* After a save: the pages are in the file; free what add_apps() made. */
static void apps_done(trawl_record *r, tw_dat_system *systems,
		      tw_dat_extra *extra)
{
	for (size_t i = 0; systems && extra && i < r->napps; i++) {
		if (!extra[i].name)
			break;
		tw_free(&r->mem, (void *)extra[i].cpu_pages);
		tw_free(&r->mem, (void *)systems[r->app_sys_base + i].formats);
	}
	for (size_t i = 0; i < r->napps; i++)
		tw_ring_pages_reset(r->apps[i]);
	tw_free(&r->mem, systems);
	tw_free(&r->mem, extra);
	if (r->napps && (r->flags & TRAWL_RECORD_FLIGHT) && !r->app_thread_on) {
		__atomic_store_n(&r->app_stop, 0, __ATOMIC_RELEASE);
		r->app_thread_on =
			pthread_create(&r->app_thread, NULL, apps_poll, r) == 0;
	}
}

/* Version 7: the writer's final file; fill r->cpu. */
static int save7(trawl_record *r, tw_dat7 *w, trawl_error *err)
{
	tw_meta meta;
	int rc = tw_meta_collect(&meta, &r->tf, &r->events, r->ncpus,
				 r->page_size, meta_flags(r), err);
	tw_buf names = {0};
	if (rc == 0 && r->more_comms) {
		/* the later line wins: the names the live session used */
		if (tw_buf_append(&r->mem, &names, meta.m.cmdlines.data,
				  meta.m.cmdlines.len) == 0 &&
		    tw_buf_append(&r->mem, &names, r->more_comms,
				  strlen(r->more_comms)) == 0) {
			meta.m.cmdlines.data = names.data;
			meta.m.cmdlines.len = names.len;
		}
	}
	tw_dat_system *systems = NULL;
	tw_dat_extra *extra = NULL;
	int collected = rc == 0;
	if (rc == 0 && r->napps)
		rc = add_apps(r, &meta.m, &systems, &extra, err);
	if (rc == 0)
		rc = tw_dat7_finish(w, &meta.m, &r->file_size, err);
	if (collected)
		tw_meta_fini(&meta);
	apps_done(r, systems, extra);
	tw_buf_fini(&r->mem, &names);
	for (int c = 0; c < r->ncpus; c++) {
		trawl_record_cpu *x = &r->cpu[c];
		tw_reader *rd = &r->readers[c];
		uint64_t ov, dr;
		memset(x, 0, sizeof(*x));
		x->bytes = rd->saved;
		x->events = rd->events;
		rd->saved = rd->events = 0;
		stat_counts(r, c, &ov, &dr);
		x->overrun = ov - r->base_overrun[c];
		x->dropped = dr - r->base_dropped[c];
		r->base_overrun[c] = ov;
		r->base_dropped[c] = dr;
	}
	return rc;
}

/* Write the file from the temporary files and fill r->cpu. */
static int save(trawl_record *r, int fd, const char *path, trawl_error *err)
{
	tw_meta meta;
	int n = r->ncpus, rc;
	uint64_t *size = tw_calloc(&r->mem, (size_t)n, sizeof(uint64_t));
	uint64_t *kept = tw_calloc(&r->mem, (size_t)n, sizeof(uint64_t));
	uint64_t *off = tw_calloc(&r->mem, (size_t)n, sizeof(uint64_t));
	if (!size || !kept || !off) {
		rc = tw_error_at(err, TRAWL_ENOMEM, ENOMEM, path, 0, 0, 0,
				 "out of memory");
		goto out;
	}
	rc = tw_meta_collect(&meta, &r->tf, &r->events, n, r->page_size,
			     meta_flags(r), err);
	if (rc < 0)
		goto out;
	for (int c = 0; c < n; c++) {
		struct stat st;
		size[c] = fstat(r->tmp_fd[c], &st) == 0 ? (uint64_t)st.st_size
							: 0;
		size[c] -= size[c] % r->page_size; /* a torn last page */
	}
	rc = tw_dat_write(fd, path, &meta.m, r->tmp_fd, size, kept, off,
			  &r->file_size, err);
	tw_meta_fini(&meta);
	for (int c = 0; c < n; c++) {
		trawl_record_cpu *x = &r->cpu[c];
		uint64_t ov, dr;
		memset(x, 0, sizeof(*x));
		x->bytes = kept[c];
		/* Counted in the file: what is there is what counts. */
		tw_pages_count(fd, off[c], kept[c], r->page_size, &x->events);
		stat_counts(r, c, &ov, &dr);
		x->overrun = ov - r->base_overrun[c];
		x->dropped = dr - r->base_dropped[c];
		r->base_overrun[c] = ov;
		r->base_dropped[c] = dr;
	}
out:
	tw_free(&r->mem, size);
	tw_free(&r->mem, kept);
	tw_free(&r->mem, off);
	return rc;
}

TRAWL_API int trawl_record_snapshot(trawl_record *r, const char *path,
				    trawl_error *err)
{
	if (!r || !path || r->stopped || !(r->flags & TRAWL_RECORD_FLIGHT))
		return tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
				   "a snapshot needs a running flight "
				   "recorder");
	int rc = tracing(r, 0, err);
	if (r->version == 7) {
		int fd = rc == 0 ? open_output(path, err) : -1;
		tw_dat7 *w = fd >= 0 ? open_writer(r, fd, path, err) : NULL;
		if (rc == 0 && !w)
			rc = -TRAWL_EIO;
		for (int c = 0; w && c < r->ncpus; c++) {
			r->readers[c].sink = w;
			__atomic_store_n(&r->readers[c].error, 0,
					 __ATOMIC_RELAXED);
		}
		if (rc == 0)
			rc = drain_all(r, err);
		if (w) {
			int src = save7(r, w, rc < 0 ? NULL : err);
			rc = rc ? rc : src;
		}
		for (int c = 0; c < r->ncpus; c++)
			r->readers[c].sink = NULL;
		tw_dat7_free(w);
		if (fd >= 0)
			close(fd);
		trawl_error ignored;
		tracing(r, 1, &ignored);
		return rc;
	}
	for (int c = 0; rc == 0 && c < r->ncpus; c++) {
		/* save() consumed them; writing goes on from 0. */
		if (ftruncate(r->tmp_fd[c], 0) < 0 ||
		    lseek(r->tmp_fd[c], 0, SEEK_SET) < 0)
			rc = tw_error_at(err, TRAWL_EIO, errno, NULL, 0, 0, 0,
					 "cannot reuse a temporary file: %s",
					 strerror(errno));
		__atomic_store_n(&r->readers[c].error, 0, __ATOMIC_RELAXED);
	}
	if (rc == 0)
		rc = drain_all(r, err);
	int fd = -1;
	if (rc == 0 && (fd = open_output(path, err)) < 0)
		rc = fd;
	if (rc == 0)
		rc = save(r, fd, path, err);
	if (fd >= 0)
		close(fd);
	/* Tracing goes on whatever happened; the trigger fired only once. */
	trawl_error ignored;
	tracing(r, 1, &ignored);
	return rc;
}

TRAWL_API int trawl_record_stop(trawl_record *r, trawl_error *err)
{
	if (!r || r->stopped)
		return tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
				   "the recorder is not running");
	trawl_error e2;
	int rc = tracing(r, 0, err);
	uint64_t one = 1;
	if (write(r->stop_fd, &one, sizeof(one)) < 0) {
		/* the readers also wake within a second */
	}
	for (int c = 0; c < r->ncpus; c++)
		tw_reader_join(&r->readers[c]);
	/* Whatever failed, what was saved goes into the file. */
	if (r->version == 7 && !r->w && !(r->hooks && r->out_fd < 0)) {
		/* the flight recorder's file: written from the buffer now */
		r->w = open_writer(r, r->out_fd, r->output, rc < 0 ? &e2 : err);
		for (int c = 0; c < r->ncpus; c++)
			r->readers[c].sink = r->w;
		if (!r->w && rc == 0)
			rc = -TRAWL_EIO;
	}
	int drc = drain_all(r, rc < 0 ? &e2 : err);
	if (rc == 0)
		rc = drc;
	int src = r->version == 7
			  ? (r->w ? save7(r, r->w, rc < 0 ? &e2 : err) : rc)
			  : save(r, r->out_fd, r->output, rc < 0 ? &e2 : err);
	if (rc == 0)
		rc = src;
	if (r->hooks && !r->w) /* live without output: the losses */
		for (int c = 0; c < r->ncpus; c++) {
			uint64_t ov, dr;
			stat_counts(r, c, &ov, &dr);
			memset(&r->cpu[c], 0, sizeof(r->cpu[c]));
			r->cpu[c].overrun = ov - r->base_overrun[c];
			r->cpu[c].dropped = dr - r->base_dropped[c];
			r->cpu[c].bytes = r->readers[c].bytes;
		}
	release(r);
	return rc;
}

int tw_record_quiesce(trawl_record *r, trawl_error *err)
{
	int rc = tracing(r, 0, err);
	uint64_t one = 1;
	if (write(r->stop_fd, &one, sizeof(one)) < 0) {
		/* the readers also wake within a tick */
	}
	return rc;
}

void tw_record_poke(trawl_record *r, int cpu)
{
	uint64_t one = 1;
	if (cpu >= 0 && cpu < r->ncpus && r->readers[cpu].poke_fd >= 0 &&
	    write(r->readers[cpu].poke_fd, &one, sizeof(one)) < 0) {
		/* it wakes within a tick anyway */
	}
}

void tw_record_more_comms(trawl_record *r, const char *text)
{
	r->more_comms = text;
}

unsigned tw_record_filters_refused(const trawl_record *r)
{
	return r->filters_refused;
}

uint64_t tw_record_lost(const trawl_record *r)
{
	uint64_t n = 0;
	for (int c = 0; !r->stopped && c < r->ncpus; c++) {
		uint64_t ov, dr;
		stat_counts(r, c, &ov, &dr);
		n += ov - r->base_overrun[c] + dr - r->base_dropped[c];
	}
	return n;
}

TRAWL_API int trawl_record_cpu_count(const trawl_record *r)
{
	return r ? r->ncpus : 0;
}

TRAWL_API const trawl_record_cpu *trawl_record_cpu_stats(const trawl_record *r,
							 int cpu)
{
	if (!r || cpu < 0 || cpu >= r->ncpus)
		return NULL;
	return &r->cpu[cpu];
}

TRAWL_API int trawl_record_stale_removed(const trawl_record *r)
{
	return r ? r->tf.stale_removed : 0;
}

TRAWL_API uint64_t trawl_record_file_size(const trawl_record *r)
{
	return r ? r->file_size : 0;
}

TRAWL_API void trawl_record_free(trawl_record *r)
{
	if (!r)
		return;
	if (!r->stopped)
		release(r);
	tw_events_free(&r->events);
	tw_free(&r->mem, r->base_overrun);
	tw_free(&r->mem, r->base_dropped);
	tw_free(&r->mem, r->cpu);
	tw_free(&r->mem, r->output);
	tw_mem mem = r->mem;
	tw_free(&mem, r);
}
