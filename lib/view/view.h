/* SPDX-License-Identifier: MIT */
/*
 * The viewer's level-of-detail index (trawl view, trawl chart), built on the
 * public API in one streaming pass.
 *
 * Every lane is a step function of time: a sequence of (t, v, aux) changes,
 * each value holding until the next change (points for marker lanes). The
 * changes are stored delta-encoded in blocks of VIEW_BLOCK (view-steps.c),
 * about 4 bytes a change, so the full detail stays in memory at a fraction
 * of the trace's size and a window is read back by a binary search over the
 * blocks. Above that, per lane, summary levels (view-lod.c):
 *
 *   level 0   buckets of w0 = 2^k ns, about 8 changes a bucket on average
 *   level n   buckets of w0 * 4^n, made from four level n-1 buckets
 *   (up to the level with at most 64 buckets)
 *
 *   bucket: dom (the value that held longest), busy (fraction of the time
 *           the value was not 0, in 1/65535), count (changes beginning in
 *           it); counters also min and max
 *
 * A window of W pixels (p ns each) is answered from the raw changes when p
 * is finer than w0 and the window holds at most VIEW_DETAIL_PER_PX * W
 * changes, else from the coarsest level whose buckets are at most p wide:
 * under 4 buckets a pixel. Either way the cost is in proportion to W, not to
 * the events. The answer is W columns (view-lod.c), run-length encoded in
 * the JSON (view-api.c).
 */
#ifndef TRAWL_VIEW_H
#define TRAWL_VIEW_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/core.h"
#include "view-out.h"

#define VIEW_BLOCK	   64
#define VIEW_DETAIL_PER_PX 16
#define VIEW_MAX_WIDTH	   8192
#define VIEW_MAX_DEPTH	   16
#define VIEW_ASYNC_ROWS	   32
#define VIEW_REPLAY_CACHE  4
/* At most this many events read back for one window: wider windows are
 * answered from the finest level kept. */
#define VIEW_REPLAY_MAX_EVENTS 3000000

/* One change of a lane. */
struct view_step {
	int64_t t;
	int64_t v;
	uint32_t aux;
};

struct view_block {
	int64_t t0, v0; /* the block's first change, stored whole */
	uint64_t off;	/* where the rest begins in bytes[] */
};

/* Blocks written out to the spill file while indexing (view-spill.c):
 * nblocks whole blocks, their view_block entries (off from the
 * segment's bytes) then their bytes, at off in the file. */
struct view_seg {
	uint64_t off;
	uint32_t nblocks, nbytes;
};

/* A lane's changes, in time order (view-steps.c). While indexing, the
 * first of them may be in the spill file (segs, spilled changes: whole
 * blocks), bytes[] and blocks[] then holding the later ones only, and
 * only view_scan_fill() reads them all. */
struct view_steps {
	uint8_t *bytes;
	size_t nbytes, cap;
	struct view_block *blocks;
	size_t nblocks, bcap;
	uint64_t n;
	int64_t last_t, last_v;
	uint32_t last_aux;
	int oom;
	struct view_seg *segs;
	size_t nsegs, segcap;
	uint64_t spilled;
};

/* Reading changes from a position (view-steps.c). */
struct view_iter {
	const struct view_steps *s;
	size_t block;	  /* current block */
	unsigned in;	  /* index of the next change inside it */
	const uint8_t *p; /* its bytes */
	struct view_step cur;
};

int view_steps_add(struct view_steps *s, int64_t t, int64_t v, uint32_t aux);

static inline uint8_t *view_put_varint(uint8_t *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*o++ = (uint8_t)v;
	return o;
}

/* view_steps_add(), the common case inline: a change inside a block, in
 * time order, with room for it. */
static inline int view_steps_push(struct view_steps *s, int64_t t, int64_t v,
				  uint32_t aux)
{
	if (s->n % VIEW_BLOCK == 0 || s->nbytes + 32 > s->cap ||
	    t < s->last_t || s->oom)
		return view_steps_add(s, t, v, aux);
	uint64_t dv = (uint64_t)v - (uint64_t)s->last_v;
	uint8_t *o = s->bytes + s->nbytes;
	o = view_put_varint(o, (uint64_t)(t - s->last_t));
	o = view_put_varint(o, (dv << 1) ^ (uint64_t)((int64_t)dv >> 63));
	o = view_put_varint(o, aux);
	s->nbytes = (size_t)(o - s->bytes);
	s->last_t = t;
	s->last_v = v;
	s->last_aux = aux;
	s->n++;
	return 0;
}
void view_steps_free(struct view_steps *s);
/* Give back the room grown for more changes (the lane is complete). */
void view_steps_shrink(struct view_steps *s);
/* Position at the last change at or before t (or the first change); the
 * change is then returned by the first view_iter_next(). Return: 0, or -1
 * when the lane is empty. */
int view_iter_seek(struct view_iter *it, const struct view_steps *s, int64_t t);
/* The next change: 1, or 0 at the end. */
int view_iter_next(struct view_iter *it, struct view_step *out);
/* Up to max changes at once, as view_iter_next() gives them. Return: how
 * many (0 at the end). */
size_t view_iter_fill(struct view_iter *it, struct view_step *out, size_t max);
/* Position at the first change in memory (blocks[0]). */
void view_iter_start(struct view_iter *it, const struct view_steps *s);
/* Memory held (view_steps_bytes), and what it would be shrunk with the
 * spilled part counted in (view_steps_whole_bytes). */
size_t view_steps_bytes(const struct view_steps *s);
size_t view_steps_whole_bytes(const struct view_steps *s);

/*
 * The spill file (view-spill.c): while indexing, the lanes with the most
 * changes write their blocks out, so the pass holds about the index's
 * budget of changes instead of all of them. An unnamed file in the
 * user's cache directory, else $TMPDIR or /tmp; gone when closed.
 */
struct view_spill {
	int fd;	       /* -1: none (every change stays in memory) */
	uint64_t size; /* bytes written */
	size_t seg;    /* a spilled lane writes its blocks at this many bytes */
	int failed;    /* a write failed: nothing more is written */
	uint64_t lanes; /* lanes spilled */
};
/* Open it (-1: none could be made; d->fd is then -1). */
int view_spill_open(struct view_spill *d);
void view_spill_close(struct view_spill *d);
/* Write every whole block of s but the last to it. Return: 0, or -1 (the
 * blocks stay in memory; d->failed is set). */
int view_spill_out(struct view_spill *d, struct view_steps *s);

/* Every change of a lane in order, the spilled ones first. */
struct view_scan {
	const struct view_steps *s;
	const struct view_spill *d;
	size_t seg;	       /* the next segment to read */
	int tail;	       /* reading the blocks in memory */
	struct view_steps buf; /* the segment read */
	struct view_iter it;
	int started;
};
void view_scan_start(struct view_scan *sc, const struct view_steps *s,
		     const struct view_spill *d);
/* A lane with nothing spilled (a replay's, a kept lane's), from its last
 * change at or before t (view_iter_seek()). Return: 0, or -1 when it is
 * empty (or spilled). Nothing to end. */
int view_scan_seek(struct view_scan *sc, const struct view_steps *s, int64_t t);
/* Up to max changes at once. Return: how many, 0 the end, -1 the spill
 * file could not be read (errno). */
ssize_t view_scan_fill(struct view_scan *sc, struct view_step *out, size_t max);
void view_scan_end(struct view_scan *sc);

enum view_lane_kind {
	VIEW_LANE_CPU = 0, /* v: task index + 1, 0 idle or unknown */
	VIEW_LANE_TASK,	   /* v: enum view_state; aux: see below */
	VIEW_LANE_HARDIRQ, /* v: name id + 1 ("irq N name") */
	VIEW_LANE_SOFTIRQ, /* v: name id + 1 (vector name) */
	VIEW_LANE_WORK,	   /* v: name id + 1 (work function) */
	VIEW_LANE_SLICE,   /* v: name id + 1; one lane per thread and depth */
	VIEW_LANE_ASYNC,   /* v: name id + 1; rows given out first free */
	VIEW_LANE_COUNTER, /* v: the value */
	VIEW_LANE_MARKER,  /* points; v: name id + 1 (the text) */
	VIEW_LANE_LOST,	   /* points; v: events lost */
	VIEW_LANE_KINDS
};

/*
 * Thread states (VIEW_LANE_TASK). aux of RUNNING: the CPU + 1; of
 * RUNNABLE: 0 preempted, 1 woken from idle or an interrupt (pid 0),
 * else woken by the task of index aux - 2; of the sleeping states: 0.
 */
enum view_state {
	VIEW_STATE_UNKNOWN = 0,
	VIEW_STATE_RUNNING,
	VIEW_STATE_RUNNABLE,
	VIEW_STATE_SLEEPING,
	VIEW_STATE_UNINTERRUPTIBLE,
	VIEW_STATE_DEAD,
};

/* The rules of the viewer's analyses (view-index.c's over the whole
 * trace, view-api.c's over a window), for CPU and task lanes: a value
 * that counts as busy (a CPU running a task, a task running), and a pair
 * of changes that is a wakeup latency (runnable after a wakeup, then
 * running). */
static inline int view_counts_busy(int kind, int64_t v)
{
	return kind == VIEW_LANE_CPU ? v > 0 : v == VIEW_STATE_RUNNING;
}

static inline int view_is_wakeup(int kind, int64_t v, uint32_t aux,
				 int64_t next_v)
{
	return kind == VIEW_LANE_TASK && v == VIEW_STATE_RUNNABLE && aux &&
	       next_v == VIEW_STATE_RUNNING;
}

struct view_bucket {
	uint32_t dom;
	uint32_t count;
	uint16_t busy;
	uint16_t share; /* of dom, 0..65535 */
};

struct view_level {
	int64_t width;
	size_t off; /* bucket i is b[i - off] (a part made for a window) */
	size_t n;
	struct view_bucket *b;
	int64_t (*minmax)[2]; /* counters only */
};

struct view_lane {
	int kind;
	int cpu;		 /* -1 when not per CPU */
	int pid;		 /* task, slice, counter lanes; else -1 */
	int depth;		 /* slice nesting, async row */
	int buffer;		 /* per-CPU lanes: the trace.dat instance, 0 the
				  * first seen (the top level, usually) */
	uint32_t name;		 /* string id of its label */
	int points;		 /* marker lanes: changes are instants */
	struct view_steps steps; /* empty when dropped (below) */
	uint64_t changes;	 /* how many, kept or not */
	int dropped;		 /* its changes are read back from the trace */
	int kept;		 /* levels below this one were dropped too */
	struct view_level *levels;
	int nlevels;
	int64_t whole; /* cpu: busy, task: running time over the trace */
	/* its first and last change, and the last one's value, kept or
	 * not: a task lane's life (unborn before the first, dead after a
	 * last change to dead) */
	int64_t first_t, end_t, end_v;
};

/*
 * Checkpoints: every VIEW_CHECK_EVENTS events the index builder writes
 * down what it knows (each lane's last change, the open slice depth of
 * each task, the open async slices), so a window can be read back from
 * the trace from the checkpoint before it (a ranged run) with the
 * builder started in that state: the changes come out as the whole pass
 * made them (view-index.c, view_replay_run()).
 */
#define VIEW_CHECK_EVENTS 32768

struct view_check {
	int64_t t;    /* the first event at or after it is the builder's */
	uint64_t off; /* its record in view_index.snap */
	uint64_t seq; /* the seq a whole run gives that first event */
};

/* What the builder's replay needs besides checkpoints: its tables. */
struct view_counter_key {
	int64_t pid;
	uint32_t name, lane;
};
struct view_replay_tables {
	uint32_t (*cpus)[6]; /* [buffer * ncpus + cpu]: run hard soft work
			      * freq idle lanes (UINT32_MAX none) */
	int ncpus;
	char *buffers[16];
	int nbuffers, task_buffer;
	struct view_counter_key *counters;
	size_t ncounters;
	uint32_t async_rows[VIEW_ASYNC_ROWS];
	uint32_t marker_lane, lost_lane;
};

/* A window's changes read back from the trace (view_replay_run()). */
struct view_replay {
	int64_t from, to;	  /* every change holding in [from, to] */
	struct view_steps *steps; /* per lane */
	size_t nlanes;
	size_t bytes;
	int refs;      /* in use by requests (view-replay.c) */
	int cached;    /* in view_index.cache */
	uint64_t used; /* the cache's clock when last used */
};

struct view_task {
	int pid;
	int tgid;
	uint32_t comm; /* string id, the last name seen */
	uint32_t lane; /* its thread-state lane */
	int state;     /* enum view_state, while indexing */
	int cpu;       /* while indexing: where it last ran */
	int depth;     /* open B slices */
	uint32_t slice_lane[VIEW_MAX_DEPTH];
	uint8_t has_slice[VIEW_MAX_DEPTH];
};

/* An interrupt handler over the threshold, from trawl_irq_new(). */
struct view_long_irq {
	int64_t start, end;
	int cpu;
	int soft;
	int64_t id;
	uint32_t name;
};

/* Interned strings (view-strings.c). */
struct view_strings {
	char *pool;
	size_t used, cap;
	uint64_t *offs; /* offset << 16 | length, per id */
	uint32_t n, ncap;
	uint32_t *table; /* open addressing: id + 1 */
	size_t tcap;
	int oom;
};

#define VIEW_STRINGS_MAX (64u << 20)

uint32_t view_intern(struct view_strings *s, const char *p, size_t n);
/* The id of a string interned before (read-only); the "(text not kept)"
 * string's when there is none. */
uint32_t view_lookup(const struct view_strings *s, const char *p, size_t n);
/* The lookup table made again (strings read from the cache): 0 or -1. */
int view_strings_index(struct view_strings *s);
const char *view_string(const struct view_strings *s, uint32_t id, size_t *len);
void view_strings_free(struct view_strings *s);

/* The whole index. Read-only once built: requests share it freely. */
struct view_index {
	char *path;	     /* the trace, for re-reading an event's fields */
	int64_t first, last; /* time span of the trace */
	uint64_t events;
	uint64_t lost;
	/* sched_switches whose prev_pid was not what their CPU had switched
	 * in (view-index.c's end_current), and the first one's time */
	uint64_t switch_anomalies;
	int64_t switch_anomaly_first;
	uint64_t unended_slices; /* B or S not ended at the trace's end */
	char *summary;		 /* the info page's JSON; NULL none */
	int ncpus;
	struct view_lane *lanes;
	size_t nlanes, lcap;
	struct view_task *tasks;
	size_t ntasks, tcap;
	uint32_t *task_map; /* pid -> task index + 1, open addressing */
	size_t tmcap;
	struct view_strings str;
	struct view_long_irq *longs;
	size_t nlongs, longcap;
	uint64_t longs_total;
	int64_t irq_threshold;
	/* how the trace was read, for reading it again (formats owned,
	 * no progress) */
	trawl_open_opts open;
	char *formats;
	/* --follow (trawl_timeline_follow()): what /api/info says */
	atomic_int following;
	uint64_t generation;
	pthread_mutex_t reread; /* one re-read of the trace at a time */
	int oom;
	int cached; /* read from the cache (view-cache.c) */
	/* reading back from the trace (view-index.c, view-replay.c) */
	struct view_check *checks;
	size_t nchecks, ccap;
	uint8_t *snap; /* the checkpoints' records, varints */
	size_t nsnap, snapcap;
	struct view_replay_tables rt;
	trawl_summary whole_latency; /* wakeup latency over the trace */
	/* its longest and where that one's switch-in is */
	int64_t whole_latency_max, whole_latency_max_at;
	/* the trace's size for the memory budget: its data uncompressed
	 * (trawl_data_bytes()) where known, else the file's */
	int64_t file_size;
	pthread_mutex_t replay_lock; /* the cache of replays */
	struct view_replay *cache[VIEW_REPLAY_CACHE];
	uint64_t clock;
	uint64_t replays; /* ranged reads made (for the tests, /api/info) */
	uint64_t spilled; /* bytes the pass wrote to its spill file */
};

/* How an index is made: trawl_timeline_opts (include/trawl/timeline.h). */
struct view_build_opts {
	trawl_open_opts open;
	int64_t irq_threshold; /* default 1 ms */
	int no_cache;	       /* neither read nor write the cache */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
};

/* Open, index and close the trace, or load its index from the cache
 * (view-index.c). Return: 0 with *out the index, or a negative TRAWL_E*
 * code with err set. */
int view_index_build(const char *path, const struct view_build_opts *o,
		     struct view_index **out, trawl_error *err);
void view_index_free(struct view_index *ix);
/* The index in the user's cache directory (view-cache.c): its file name
 * for a trace and options (-1: no cache for it: not a regular file, no
 * cache directory); reading (NULL: none, or damaged) and writing it
 * (-1: failed, nothing left behind). */
int view_cache_path(const char *trace, const struct view_build_opts *o,
		    char *out, size_t len);
struct view_index *view_cache_load(const char *path, const char *trace);
int view_cache_save(const struct view_index *ix, const char *path);
/* The cache directory, made if need be: 0, or -1 (none). */
int view_cache_dir(char *out, size_t len);
/* The shape of the levels of a lane of n changes: level 0's bucket width
 * and count, the number of levels (view-lod.c). */
void view_lod_shape(const struct view_index *ix, uint64_t n, int64_t *w0,
		    size_t *nb0, int *nlev);
/* Make the summary levels of lane l from every change of it, in order
 * (sc). Return: 0 or -1 (errno). */
int view_lod_lane(const struct view_index *ix, struct view_lane *l,
		  struct view_scan *sc);
/* Level k of lane l over buckets [b0, b1] made from changes (a replay's
 * steps) as view_lod_lane() makes it (view-lod.c). Return: 0 or -1. */
int view_lod_part(const struct view_index *ix, const struct view_lane *l,
		  const struct view_steps *s, int k, size_t b0, size_t b1,
		  struct view_level *out);
void view_level_free(struct view_level *lv);
/*
 * Read the trace back over [from, to] (a ranged run from the checkpoint
 * before from) with the builder in the checkpoint's state (view-index.c).
 * With emit set the changes go to it, else into out->steps (each lane's
 * first change the one holding at the checkpoint). Return: 0, or -1 with
 * why set.
 */
typedef void (*view_emit)(void *ctx, uint32_t lane, const struct view_step *s);
int view_replay_run(const struct view_index *ix, int64_t from, int64_t to,
		    struct view_replay *out, view_emit emit, void *ctx,
		    char *why, size_t whylen);
/* Whether the index builder reads events of this name. */
int view_indexed_event(const char *name);
/* What the index may keep in memory (view-budget.c): an eighth of the
 * trace's size, at least 2 MiB; everything when the trace cannot be read
 * again (SIZE_MAX). */
size_t view_index_budget(const struct view_index *ix);
/* The last checkpoint at or before key, a time (by_time) or a seq; -1:
 * the start of the trace. */
ssize_t view_checkpoint_before(const struct view_index *ix, uint64_t key,
			       int by_time);
/* The trace opened again for a ranged run from checkpoint k (-1: the
 * start) to `to`, with the options it was indexed with. */
trawl_trace *view_reopen(const struct view_index *ix, ssize_t k, int64_t to,
			 trawl_error *err);

/*
 * The event list (view-events.c). view_events_seq_at(): the seq of the
 * first event at or after t (ix->events when none). view_events_page():
 * the events from seq from_seq on, before time to, that pass the filter
 * (event names, pid=N, cpu=N, comma-separated; NULL or "" all), at most
 * limit, as JSON objects separated by commas into b; *next: the seq to go
 * on from, *ended: no more in the window. Return: 0, or -1 with why.
 */
int view_events_seq_at(struct view_index *ix, int64_t t, uint64_t *seq,
		       char *why, size_t whylen);
int view_events_page(struct view_index *ix, uint64_t from_seq, int64_t to,
		     const char *filter, size_t limit, struct view_out *b,
		     uint64_t *next, int *ended, char *why, size_t whylen);

/* The trace info page's JSON (view-summary.c), after the pass; NULL out
 * of memory. The caller frees it. */
char *view_summary_json(trawl_trace *t);
/*
 * After the pass (view-budget.c): the summary levels of every lane and,
 * within the budget, what is kept: the lanes with the most changes (every
 * spilled one) give theirs back, then their finest levels, and are read
 * back from the trace instead. The lanes are read one at a time (from d
 * too), on two threads. Return: 0, or -1 with errno set (ENOMEM, or the
 * spill file's error).
 */
int view_index_finish(struct view_index *ix, const struct view_spill *d);
/*
 * A replay covering [from, to] from the cache, or made now (view-replay.c):
 * borrowed until view_replay_put(). NULL: the window is too wide to read
 * back (more than VIEW_REPLAY_MAX_EVENTS), or it failed (why says).
 */
struct view_replay *view_replay_get(struct view_index *ix, int64_t from,
				    int64_t to, char *why, size_t whylen);
void view_replay_put(struct view_index *ix, struct view_replay *r);
void view_replay_free(struct view_replay *r);
/* Estimated events in [from, to] (from the trace's average rate). */
uint64_t view_events_in(const struct view_index *ix, int64_t from, int64_t to);
/* The changes of lane l covering [from, to]: its own, or a replay's
 * (view-replay.c); NULL when neither can be had. *rp is set when a
 * replay was taken (give it back with view_replay_put()). */
const struct view_steps *view_lane_steps(struct view_index *ix,
					 const struct view_lane *l,
					 int64_t from, int64_t to,
					 struct view_replay **rp);
size_t view_index_bytes(const struct view_index *ix);
/* pid's task, or NULL (view-index.c). */
const struct view_task *view_task_find(const struct view_index *ix, int pid);
const char *view_lane_kind_name(int kind);
int view_lane_kind_of(const char *name, size_t n);
const char *view_state_name(int state);

/* One column of a window. */
struct view_col {
	int64_t dom;	  /* value that held longest (counters: last) */
	uint32_t count;	  /* changes beginning in it */
	uint16_t busy;	  /* 0..65535 */
	uint16_t share;	  /* time dom held, 0..65535 */
	int64_t min, max; /* counters; min > max: no value */
};

/*
 * Columns of lane over [from, to) at width columns (view-lod.c);
 * level -1: choose (raw changes when fine enough), else that summary level
 * (clamped). Return: the level used (-1: raw changes).
 */
int view_window(struct view_index *ix, const struct view_lane *lane,
		int64_t from, int64_t to, int width, int level,
		struct view_col *cols);

/* HTTP API (view-api.c): a request's parameters, already split. */
#define VIEW_MAX_PARAMS 16
#define VIEW_MAX_VALUE	4096
struct view_params {
	int n;
	const char *key[VIEW_MAX_PARAMS];
	const char *val[VIEW_MAX_PARAMS];
	int too_many;
};

/* Add a parameter (borrowed strings). Return: 0, or -1 when too many. */
int view_params_add(struct view_params *p, const char *key, const char *val);

/*
 * Answer GET path (an /api/ path) with params: the body goes to out
 * (JSON; for errors {"error": "..."}). Return: the HTTP status.
 */
int view_api(struct view_index *ix, const char *path,
	     const struct view_params *p, struct view_out *out);

/*
 * The charts (trawl_chart_opts: include/trawl/timeline.h; kinds are
 * 1u << VIEW_LANE_*): chart-draw.c's display list, view-svg.c's SVG of it.
 * Return: 0, -TRAWL_ENOMEM, or what put returned (view_svg():
 * -TRAWL_EIO when f failed); err set.
 */
int chart_draw(struct view_index *ix, const trawl_chart_opts *o,
	       trawl_chart_put put, void *ctx, trawl_error *err);
int view_svg(struct view_index *ix, const trawl_chart_opts *o, FILE *f,
	     trawl_error *err);

#endif
