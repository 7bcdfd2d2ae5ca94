/* SPDX-License-Identifier: MIT */
/*
 * The live session (include/trawl/live.h): the recorder (session.c) with
 * hooks, its readers handing each CPU's pages to a queue as they come,
 * and those queues offered as a feed (lib/dat/dat-feed.h) to a trace that
 * the core opens over the trace.dat reader (tw_open_feed()). The readers
 * and the trace never see each other: pages go through the feed.
 *
 *   reader thread, CPU c            queue c                run (trawl_run)
 *   poll: kernel, poke, tick   emit ---> [block][block] ---> take / release
 *   drain: full pages, then          caught_up: horizon  <--- take: none
 *     one read of the page             (before - window)
 *     being written               news eventfd ---------> wait (poll)
 *   stop: all that is left, ended        poke eventfd <---- wait, stale c
 *
 * A queue is a list of blocks of whole pages; an emit fills the last one
 * while the run has not taken it. At most queue_kb per CPU: a reader that
 * finds its queue full waits, and the kernel's buffer takes the rest (its
 * losses are counted). trawl_live_stop() only sets a flag and writes the
 * news eventfd (signal-safe); the run itself turns tracing off and tells
 * the readers to finish (tw_record_quiesce()) when it sees the flag, then
 * delivers what they still bring until every CPU ended.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "../core/core.h"
#include "../dat/dat-feed.h"
#include "live-int.h"
#include "trawl/live.h"

#define BLOCK		  (256u << 10)
#define DEFAULT_QUEUE_KB  4096
#define DEFAULT_WINDOW_NS (10 * 1000 * 1000)
#define TICK_MS		  100
#define POKE_EVERY_NS	  (10 * 1000 * 1000)

typedef struct block {
	struct block *next;
	size_t len;
	int taken; /* lent to the run: no more pages go in */
	unsigned char data[];
} block;

/* Names read from /proc for tasks saved_cmdlines lacked: by pid, direct
 * mapped (an entry may push out an older one), misses kept a second. */
#define LEARNED 4096
typedef struct learned {
	int32_t pid;
	int found;
	int64_t at;
	char comm[20];
} learned;

typedef struct live_cpu {
	block *head, *tail; /* ready, oldest first */
	size_t used;	    /* blocks ready or lent */
	int64_t horizon;    /* no event older is still in the kernel */
	int64_t poked_at;
	int ended;
	int waiting; /* the reader waits for room */
} live_cpu;

struct trawl_live {
	tw_mem mem;
	trawl_live_opts opts;
	const char *top;   /* the tracefs mount (libtracefs's) */
	tw_tracefs tf;	   /* the top level, read only: meta's memory */
	tw_event_list all; /* every event: names the meta points to */
	tw_meta meta;	   /* every event format, for the trace */
	tw_feed feed;
	trawl_trace *t;
	trawl_record_event *sel;
	size_t nsel;
	/* trawl_live_stack(): events and their stack filters (NULL: after
	 * every event), set on sel at the start; stack_if is per sel */
	trawl_record_event *stacks;
	size_t nstacks;
	const char **stack_if;
	trawl_record *rec;
	tw_record_hooks hooks;
	int ncpus;
	size_t page_size;
	live_cpu *cpu;
	size_t max_blocks; /* per CPU */
	block *free_blocks;
	pthread_mutex_t lock; /* the queues, free_blocks, error */
	pthread_cond_t room;
	int news_fd;
	int stop;     /* __atomic: trawl_live_stop() */
	int cut;      /* __atomic: trawl_live_cut(); the merge reads it */
	int quiesced; /* the run turned tracing off */
	int discard;  /* after the run: pages are no longer queued */
	int error;    /* the first reader's errno */
	char *comms;
	learned *learned; /* LEARNED entries, made on first need */
	int started, finished;
	int64_t start_ns, stop_ns;
	int64_t idle_horizon; /* without events: the time of the last wait */
	trawl_live_totals totals;
};

static void news(trawl_live *lv)
{
	uint64_t one = 1;
	if (write(lv->news_fd, &one, sizeof(one)) < 0) {
		/* the run wakes within its wait anyway */
	}
}

/* ---- the readers' side (their threads) ---- */

/* A block with room for pages, lock held; NULL when discarding. */
static block *room_for(trawl_live *lv, live_cpu *c)
{
	for (;;) {
		if (lv->discard)
			return NULL;
		if (c->tail && !c->tail->taken && c->tail->len < BLOCK)
			return c->tail;
		if (c->used < lv->max_blocks) {
			block *b = lv->free_blocks;
			if (b)
				lv->free_blocks = b->next;
			else if (!(b = tw_malloc(&lv->mem, sizeof(*b) + BLOCK)))
				return NULL;
			b->next = NULL;
			b->len = 0;
			b->taken = 0;
			if (c->tail)
				c->tail->next = b;
			else
				c->head = b;
			c->tail = b;
			c->used++;
			return b;
		}
		c->waiting = 1;
		pthread_cond_wait(&lv->room, &lv->lock);
		c->waiting = 0;
	}
}

static int emit(void *ctx, int cpu, const void *pages, size_t n)
{
	trawl_live *lv = ctx;
	live_cpu *c = &lv->cpu[cpu];
	const unsigned char *p = pages;
	int rc = 0;
	pthread_mutex_lock(&lv->lock);
	while (n) {
		block *b = room_for(lv, c);
		if (!b) {
			rc = lv->discard ? 0 : -ENOMEM;
			break;
		}
		size_t k = BLOCK - b->len < n ? BLOCK - b->len : n;
		memcpy(b->data + b->len, p, k);
		b->len += k;
		p += k;
		n -= k;
	}
	pthread_mutex_unlock(&lv->lock);
	news(lv);
	return rc;
}

static void caught_up(void *ctx, int cpu, int64_t before_ns)
{
	trawl_live *lv = ctx;
	pthread_mutex_lock(&lv->lock);
	lv->cpu[cpu].horizon = before_ns - lv->opts.window_ns;
	pthread_mutex_unlock(&lv->lock);
	news(lv);
}

static void ended(void *ctx, int cpu, int error)
{
	trawl_live *lv = ctx;
	pthread_mutex_lock(&lv->lock);
	lv->cpu[cpu].ended = 1;
	if (error && !lv->error)
		lv->error = error;
	pthread_mutex_unlock(&lv->lock);
	/* a reader that failed ends the session: its CPU's events are gone */
	if (error)
		__atomic_store_n(&lv->stop, 1, __ATOMIC_RELEASE);
	news(lv);
}

/* ---- the run's side (the thread in trawl_run) ---- */

/* Stop asked for: tracing off, the readers take what is left. */
static void quiesce(trawl_live *lv)
{
	/* Pairs with the release stores in trawl_live_stop() and ended(). */
	if (lv->quiesced || !__atomic_load_n(&lv->stop, __ATOMIC_ACQUIRE))
		return;
	lv->quiesced = 1;
	lv->stop_ns = tw_mono_ns();
	if (lv->rec) {
		trawl_error ignored;
		tw_record_quiesce(lv->rec, &ignored);
	}
}

static int take(void *ctx, int cpu, tw_feed_batch *b, int64_t *horizon)
{
	trawl_live *lv = ctx;
	live_cpu *c = &lv->cpu[cpu];
	quiesce(lv);
	if (!lv->rec) {
		/* no events: only time passes (as of the last wait), until
		 * the stop */
		*horizon = lv->idle_horizon;
		return lv->quiesced ? TW_FEED_END : TW_FEED_NONE;
	}
	int rc;
	pthread_mutex_lock(&lv->lock);
	if (c->head) {
		block *k = c->head;
		c->head = k->next;
		if (!c->head)
			c->tail = NULL;
		k->taken = 1;
		b->pages = k->data;
		b->len = k->len;
		b->token = k;
		rc = TW_FEED_PAGES;
	} else if (c->ended) {
		rc = TW_FEED_END;
	} else {
		*horizon = c->horizon;
		rc = TW_FEED_NONE;
	}
	pthread_mutex_unlock(&lv->lock);
	return rc;
}

static void release(void *ctx, int cpu, tw_feed_batch *b)
{
	trawl_live *lv = ctx;
	block *k = b->token;
	pthread_mutex_lock(&lv->lock);
	k->next = lv->free_blocks;
	lv->free_blocks = k;
	lv->cpu[cpu].used--;
	if (lv->cpu[cpu].waiting)
		pthread_cond_broadcast(&lv->room);
	pthread_mutex_unlock(&lv->lock);
}

static void wait_news(void *ctx, int64_t timeout_ns, int held)
{
	trawl_live *lv = ctx;
	quiesce(lv);
	/* Events held for a CPU whose reader has not looked lately: wake
	 * it, so they wait about the window, not a tick (and the queues
	 * behind them do not fill). */
	int64_t now = tw_mono_ns();
	pthread_mutex_lock(&lv->lock);
	for (int i = 0; held && lv->rec && !lv->quiesced && i < lv->ncpus;
	     i++) {
		live_cpu *c = &lv->cpu[i];
		if (!c->head && !c->ended &&
		    c->horizon < now - lv->opts.window_ns - POKE_EVERY_NS &&
		    c->poked_at < now - POKE_EVERY_NS) {
			c->poked_at = now;
			tw_record_poke(lv->rec, i);
		}
	}
	pthread_mutex_unlock(&lv->lock);
	struct pollfd p = {.fd = lv->news_fd, .events = POLLIN};
	int ms = (int)(timeout_ns / 1000000);
	if (!lv->rec && !lv->quiesced && ms > TICK_MS)
		ms = TICK_MS;
	if (poll(&p, 1, ms) > 0) {
		uint64_t n;
		if (read(lv->news_fd, &n, sizeof(n)) < 0) {
			/* another wait takes it */
		}
	}
	lv->idle_horizon = tw_mono_ns();
}

static const char *comms(void *ctx)
{
	trawl_live *lv = ctx;
	tw_free(&lv->mem, lv->comms);
	lv->comms =
		tw_tracefs_read_mem(&lv->mem, lv->top, "saved_cmdlines", NULL);
	return lv->comms;
}

/*
 * A task's name now, from /proc, while it runs. saved_cmdlines is not
 * enough live: the kernel saves a name only at a context switch after an
 * event was written on that CPU (a task whose events a filter mostly
 * drops may never be saved), and the entry of a pid used again (or of a
 * task before its exec) names the task before; a COMM filter compared
 * the task's name at the event. --record gets these names too. Misses
 * are kept a second, names until the entry is needed for another pid.
 */
static const char *comm(void *ctx, int32_t pid)
{
	trawl_live *lv = ctx;
	if (!lv->learned &&
	    !(lv->learned = tw_calloc(&lv->mem, LEARNED, sizeof(learned))))
		return NULL;
	learned *e = &lv->learned[(uint32_t)pid % LEARNED];
	int64_t now = tw_mono_ns();
	if (e->pid == pid && (e->found || now - e->at < 1000000000))
		return e->found ? e->comm : NULL;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	char buf[sizeof(e->comm)] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC), got = 0;
	if (fd >= 0) {
		ssize_t k = read(fd, buf, sizeof(buf) - 1);
		got = k > 0;
		buf[got ? k : 0] = '\0';
		close(fd);
	}
	buf[strcspn(buf, "\n")] = '\0';
	e->pid = pid;
	e->at = now;
	e->found = got && buf[0];
	memcpy(e->comm, buf, sizeof(buf));
	return e->found ? e->comm : NULL;
}

/*
 * The process of a task, from /proc/PID/status while it runs (the events
 * do not carry it; bpftrace reads it in the kernel at the probe): -1 when
 * it has exited. Read once per task: the comm cache (dat-reader.c) keeps
 * it with the task's name.
 */
static int32_t tgid(void *ctx, int32_t pid)
{
	(void)ctx;
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k <= 0)
		return -1;
	buf[k] = '\0';
	const char *t = strstr(buf, "\nTgid:");
	return t ? (int32_t)strtol(t + 6, NULL, 10) : -1;
}

/* "pid comm" lines of the names learned, for the record file. */
static char *learned_text(trawl_live *lv)
{
	tw_buf b = {0};
	for (size_t i = 0; lv->learned && i < LEARNED; i++) {
		const learned *e = &lv->learned[i];
		char line[64];
		int n = snprintf(line, sizeof(line), "%d %s\n", (int)e->pid,
				 e->comm);
		if (e->found && n > 0 && (size_t)n < sizeof(line) &&
		    tw_buf_append(&lv->mem, &b, line, (size_t)n)) {
			tw_buf_fini(&lv->mem, &b);
			return NULL;
		}
	}
	return b.data;
}

/* The events the merge passed after the cut (at its end, once). */
static void skipped(void *ctx, uint64_t events)
{
	trawl_live *lv = ctx;
	lv->totals.unprocessed += events;
	/* and as lost for the run (--json's "lost_events"): the script
	 * never saw them. The run's own thread calls this. */
	if (lv->t)
		lv->t->stats.lost_events += events;
}

static uint64_t overrun(void *ctx)
{
	trawl_live *lv = ctx;
	return lv->rec ? tw_record_lost(lv->rec) : 0;
}

/* /proc/kallsyms for trawl_trace_symbol() on a session opened without
 * them (TRAWL_LIVE_NO_KALLSYMS), read when first asked for: handed to the
 * reader's table, not kept here. On the run's thread. */
static int kallsyms(void *ctx,
		    void (*take)(void *tctx, const char *text, size_t len),
		    void *tctx)
{
	trawl_live *lv = ctx;
	size_t len = 0;
	char *text = tw_tracefs_read_mem(&lv->mem, "/proc", "kallsyms", &len);
	if (!text)
		return -1;
	take(tctx, text, len);
	tw_free(&lv->mem, text);
	return 0;
}

/* An event's format, when the script first names it; before the start
 * only (the meta's store is the run thread's). */
static const char *format(void *ctx, const char *system, const char *event,
			  size_t *len)
{
	trawl_live *lv = ctx;
	return lv->started ? NULL
			   : tw_meta_format(&lv->meta, system, event, len);
}

/* The formats of the events to enable, before their first records come
 * (a script that reads no field of an event has not asked for its). */
static int load_formats(trawl_live *lv, trawl_error *err)
{
	char sys[256];
	/* and ftrace's own (print, bprint, ...), which come unasked, with
	 * where every record's common fields are; kernel_stack among them,
	 * the records trawl_live_stack() asks for */
	if (lv->nsel && tw_dat_feed_load_system(lv->t, "ftrace") < 0)
		return tw_error_at(err, TRAWL_EENV, errno, NULL, 0, 0, 0,
				   "cannot read %s/events/ftrace's formats: "
				   "%s",
				   lv->top, strerror(errno ? errno : ENOMEM));
	for (size_t i = 0; i < lv->nsel; i++) {
		const char *name = lv->sel[i].name;
		const char *colon = strchr(name, ':');
		if (!colon || (size_t)(colon - name) >= sizeof(sys))
			continue; /* trawl_live_enable() took none such */
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - name), name);
		int rc = tw_dat_feed_load_format(lv->t, sys, colon + 1);
		if (rc < 0)
			return tw_error_at(
				err, TRAWL_EENV, errno, NULL, 0, 0, 0,
				"cannot read %s/events/%s/%s/format: "
				"%s",
				lv->top, sys, colon + 1,
				strerror(errno ? errno : ENOMEM));
		if (rc == 0)
			return tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
					   "no kernel event '%s'; the list is "
					   "in %s/available_events",
					   name, lv->top);
	}
	return 0;
}

/* ---- the API ---- */

static void *oom(trawl_error *err)
{
	tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0, 0, 0, "out of memory");
	return NULL;
}

TRAWL_API trawl_live *trawl_live_open(const trawl_live_opts *opts,
				      trawl_error *err)
{
	trawl_live_opts o = {0};
	if (opts)
		o = *opts;
	if (!o.window_ns)
		o.window_ns = DEFAULT_WINDOW_NS;
	if (!o.queue_kb)
		o.queue_kb = DEFAULT_QUEUE_KB;
	if (o.window_ns < 0) {
		tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
			    "a negative window");
		return NULL;
	}
	tw_mem mem;
	tw_mem_init(&mem, o.realloc, o.alloc_ctx);
	trawl_live *lv = tw_calloc(&mem, 1, sizeof(*lv));
	if (!lv)
		return oom(err);
	lv->mem = mem;
	lv->opts = o;
	lv->news_fd = -1;
	pthread_mutex_init(&lv->lock, NULL);
	pthread_cond_init(&lv->room, NULL);
	/* Every event by name, its format read when a script names it, and
	 * comms when an event needs one (comms()): read only, nothing
	 * changes yet. */
	tw_tracefs *tf = &lv->tf;
	if (tw_tracefs_open(tf, &lv->mem, 1, err) < 0)
		goto fail;
	lv->top = tf->top;
	lv->ncpus = tw_tracefs_cpus(tf);
	lv->page_size = tw_tracefs_page_size(tf);
	trawl_record_event all = {"*", NULL, 0};
	if (tw_events_resolve(&lv->mem, tf->top, &all, 1, NULL, &lv->all, err) <
		    0 ||
	    tw_meta_collect(&lv->meta, tf, &lv->all, lv->ncpus, lv->page_size,
			    TW_META_NAMES_ONLY | TW_META_NO_CMDLINES |
				    (o.flags & TRAWL_LIVE_NO_KALLSYMS
					     ? 0
					     : TW_META_KALLSYMS),
			    err) < 0)
		goto fail;
	if (lv->ncpus <= 0) {
		tw_error_at(err, TRAWL_EENV, 0, NULL, 0, 0, 0,
			    "no per_cpu directories in %s", lv->top);
		goto fail;
	}
	lv->max_blocks = (o.queue_kb * 1024 + BLOCK - 1) / BLOCK;
	if (lv->max_blocks < 2)
		lv->max_blocks = 2;
	lv->cpu = tw_calloc(&mem, (size_t)lv->ncpus, sizeof(*lv->cpu));
	if (!lv->cpu) {
		oom(err);
		goto fail;
	}
	for (int i = 0; i < lv->ncpus; i++)
		lv->cpu[i].horizon = INT64_MIN;
	lv->feed = (tw_feed){.meta = &lv->meta.m,
			     .format = format,
			     .take = take,
			     .release = release,
			     .wait = wait_news,
			     .comms = comms,
			     .comm = comm,
			     .tgid = tgid,
			     .overrun = overrun,
			     .kallsyms = kallsyms,
			     .ctx = lv,
			     .cut = &lv->cut,
			     .skipped = skipped};
	trawl_open_opts to = {0};
	to.realloc = o.realloc;
	to.alloc_ctx = o.alloc_ctx;
	if (!(lv->t = tw_open_feed(&to, "<live>", &lv->feed, err)))
		goto fail;
	return lv;
fail:
	trawl_live_free(lv);
	return NULL;
}

TRAWL_API trawl_trace *trawl_live_trace(trawl_live *lv)
{
	return lv ? lv->t : NULL;
}

/* "(a) || (b)", or NULL when either takes every event. */
static char *widen(const tw_mem *mem, const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 9;
	char *s = tw_malloc(mem, n);
	if (s)
		snprintf(s, n, "(%s) || (%s)", a, b);
	return s;
}

/* event with filter into a list of selections (sel or stacks): a new
 * entry, or the one of that name widened. Return: 0, 1 for an ftrace
 * event, or a negative TRAWL_E*. */
static int select_event(trawl_live *lv, trawl_record_event **list, size_t *n,
			const char *fn, const char *event, const char *filter,
			trawl_error *err)
{
	if (!lv || !event || lv->started)
		return tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
				   "%s: no session, or it has started", fn);
	const char *colon = strchr(event, ':');
	if (!colon || colon == event || !colon[1] || strpbrk(event, "*?[ /"))
		return tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
				   "'%s' is not one event (system:event)",
				   event);
	if (colon - event == 6 && !strncmp(event, "ftrace", 6))
		return 1;
	for (size_t i = 0; i < *n; i++) {
		trawl_record_event *e = &(*list)[i];
		if (strcmp(e->name, event))
			continue;
		char *f = e->filter && filter
				  ? widen(&lv->mem, e->filter, filter)
				  : NULL;
		if (e->filter && filter && !f)
			return tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0,
					   0, 0, "out of memory");
		tw_free(&lv->mem, (char *)e->filter);
		e->filter = f;
		return 0;
	}
	trawl_record_event *p =
		tw_realloc(&lv->mem, *list, (*n + 1) * sizeof(*p));
	if (!p)
		return tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0, 0, 0,
				   "out of memory");
	*list = p;
	char *name = tw_strndup(&lv->mem, event, strlen(event));
	char *f = filter ? tw_strndup(&lv->mem, filter, strlen(filter)) : NULL;
	if (!name || (filter && !f)) {
		tw_free(&lv->mem, name);
		tw_free(&lv->mem, f);
		return tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0, 0, 0,
				   "out of memory");
	}
	(*list)[(*n)++] = (trawl_record_event){name, f, 0};
	return 0;
}

TRAWL_API int trawl_live_enable(trawl_live *lv, const char *event,
				const char *filter, trawl_error *err)
{
	return select_event(lv, lv ? &lv->sel : NULL, lv ? &lv->nsel : NULL,
			    "trawl_live_enable", event, filter, err);
}

TRAWL_API int trawl_live_stack(trawl_live *lv, const char *event,
			       const char *filter, trawl_error *err)
{
	return select_event(lv, lv ? &lv->stacks : NULL,
			    lv ? &lv->nstacks : NULL, "trawl_live_stack", event,
			    filter, err);
}

/* The stacks asked for onto the enabled events they name: sel's flags,
 * stack_if (per sel). */
static int mark_stacks(trawl_live *lv, trawl_error *err)
{
	if (!lv->nstacks)
		return 0;
	tw_free(&lv->mem, lv->stack_if); /* a start that failed before */
	lv->stack_if = tw_calloc(&lv->mem, lv->nsel ? lv->nsel : 1,
				 sizeof(*lv->stack_if));
	if (!lv->stack_if)
		return tw_error_at(err, TRAWL_ENOMEM, ENOMEM, NULL, 0, 0, 0,
				   "out of memory");
	for (size_t k = 0; k < lv->nstacks; k++) {
		const trawl_record_event *st = &lv->stacks[k];
		size_t i = 0;
		while (i < lv->nsel && strcmp(lv->sel[i].name, st->name))
			i++;
		if (i == lv->nsel)
			return tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
					   "stacks asked for after '%s', "
					   "which is not enabled "
					   "(trawl_live_enable())",
					   st->name);
		lv->sel[i].flags |= TRAWL_RECORD_EVENT_STACK;
		lv->stack_if[i] = st->filter;
	}
	return 0;
}

TRAWL_API int trawl_live_start(trawl_live *lv, trawl_error *err)
{
	if (!lv || lv->started)
		return tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
				   "trawl_live_start: no session, or started");
	int rc = mark_stacks(lv, err);
	if (rc < 0)
		return rc;
	errno = 0;
	if (load_formats(lv, err) < 0)
		return err ? -err->code : -TRAWL_EENV;
	lv->news_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (lv->news_fd < 0)
		return tw_error_at(err, TRAWL_EENV, errno, NULL, 0, 0, 0,
				   "cannot create an eventfd: %s",
				   strerror(errno));
	lv->hooks = (tw_record_hooks){.emit = emit,
				      .caught_up = caught_up,
				      .ended = ended,
				      .ctx = lv,
				      .tick_ms = TICK_MS,
				      .stack_if = lv->stack_if};
	lv->started = 1;
	lv->start_ns = lv->idle_horizon = tw_mono_ns();
	for (size_t i = 0; i < lv->nsel; i++)
		lv->totals.filters += lv->sel[i].filter != NULL;
	if (!lv->nsel) {
		/* BEGIN, END and intervals only: no instance of its own, but
		 * a killed recorder's is cleaned up as a recording's start
		 * does (root checked by trawl_live_open()) */
		lv->totals.stale_removed = tw_tracefs_remove_stale(lv->top);
		return 0;
	}
	trawl_record_opts ro = {0};
	ro.events = lv->sel;
	ro.nevents = lv->nsel;
	ro.output = lv->opts.record;
	ro.buffer_kb = lv->opts.buffer_kb;
	ro.clock = "mono";
	ro.flags = lv->opts.flags & TRAWL_LIVE_NO_KALLSYMS
			   ? TRAWL_RECORD_NO_KALLSYMS
			   : 0;
	ro.realloc = lv->opts.realloc;
	ro.alloc_ctx = lv->opts.alloc_ctx;
	lv->rec = tw_record_start(&ro, &lv->hooks, err);
	if (!lv->rec) {
		lv->finished = 1; /* nothing to stop: it put back what it set */
		return err ? -err->code : -TRAWL_EENV;
	}
	lv->totals.stale_removed = trawl_record_stale_removed(lv->rec);
	return 0;
}

TRAWL_API void trawl_live_stop(trawl_live *lv)
{
	if (!lv)
		return;
	/* Pairs with the acquire load in quiesce(). */
	__atomic_store_n(&lv->stop, 1, __ATOMIC_RELEASE);
	if (lv->news_fd >= 0)
		news(lv);
}

TRAWL_API void trawl_live_cut(trawl_live *lv)
{
	if (!lv)
		return;
	/* Pairs with the acquire loads in quiesce() and the merge's cut(). */
	__atomic_store_n(&lv->stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&lv->cut, 1, __ATOMIC_RELEASE);
	if (lv->news_fd >= 0)
		news(lv);
}

TRAWL_API int trawl_live_finish(trawl_live *lv, trawl_error *err)
{
	if (!lv || !lv->started || lv->finished)
		return tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
				   "trawl_live_finish: not running");
	lv->finished = 1;
	if (!lv->stop_ns)
		lv->stop_ns = tw_mono_ns();
	pthread_mutex_lock(&lv->lock);
	lv->discard = 1;
	pthread_cond_broadcast(&lv->room);
	pthread_mutex_unlock(&lv->lock);
	trawl_live_totals *x = &lv->totals;
	x->duration = lv->stop_ns - lv->start_ns;
	if (!lv->rec)
		return 0;
	char *names = lv->opts.record ? learned_text(lv) : NULL;
	if (names)
		tw_record_more_comms(lv->rec, names);
	int rc = trawl_record_stop(lv->rec, err);
	tw_free(&lv->mem, names);
	x->filters_refused = tw_record_filters_refused(lv->rec);
	for (int c = 0; c < trawl_record_cpu_count(lv->rec); c++) {
		const trawl_record_cpu *s = trawl_record_cpu_stats(lv->rec, c);
		x->bytes += s->bytes;
		x->overrun += s->overrun;
		x->dropped += s->dropped;
		x->record_events += s->events;
	}
	x->record_size = trawl_record_file_size(lv->rec);
	return rc;
}

TRAWL_API const trawl_live_totals *trawl_live_stats(const trawl_live *lv)
{
	return lv ? &lv->totals : NULL;
}

TRAWL_API void trawl_live_free(trawl_live *lv)
{
	if (!lv)
		return;
	if (lv->started && !lv->finished)
		trawl_live_finish(lv, NULL);
	trawl_record_free(lv->rec);
	/* the trace gives back the blocks its cursors hold */
	trawl_close(lv->t);
	for (int i = 0; lv->cpu && i < lv->ncpus; i++)
		for (block *b = lv->cpu[i].head, *n; b; b = n) {
			n = b->next;
			tw_free(&lv->mem, b);
		}
	for (block *b = lv->free_blocks, *n; b; b = n) {
		n = b->next;
		tw_free(&lv->mem, b);
	}
	for (size_t i = 0; i < lv->nsel; i++) {
		tw_free(&lv->mem, (char *)lv->sel[i].name);
		tw_free(&lv->mem, (char *)lv->sel[i].filter);
	}
	tw_free(&lv->mem, lv->sel);
	for (size_t i = 0; i < lv->nstacks; i++) {
		tw_free(&lv->mem, (char *)lv->stacks[i].name);
		tw_free(&lv->mem, (char *)lv->stacks[i].filter);
	}
	tw_free(&lv->mem, lv->stacks);
	tw_free(&lv->mem, lv->stack_if);
	tw_free(&lv->mem, lv->cpu);
	tw_free(&lv->mem, lv->comms);
	tw_free(&lv->mem, lv->learned);
	tw_meta_fini(&lv->meta);
	tw_events_free(&lv->all);
	tw_tracefs_restore(&lv->tf); /* nothing was set: frees its dir */
	if (lv->news_fd >= 0)
		close(lv->news_fd);
	pthread_mutex_destroy(&lv->lock);
	pthread_cond_destroy(&lv->room);
	tw_mem mem = lv->mem;
	tw_free(&mem, lv);
}
