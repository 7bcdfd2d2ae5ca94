/* SPDX-License-Identifier: MIT */
/*
 * The viewer's index kept in the user's cache directory
 * ($XDG_CACHE_HOME/trawl, else ~/.cache/trawl), never beside the trace: a
 * second `trawl view` of the same file reads it instead of the trace. The
 * file is named by a hash of what makes the index (the trace's real path,
 * device, inode, size and modification time, the irq threshold, the
 * formats option); a cache that cannot be written is skipped.
 *
 * Layout (native endianness: the cache is only read back by the binary
 * that wrote it, which the header's sizes check):
 *
 *   "TRAWLVIX" u32 version, u32 sizeof(view_task), u32 sizeof(bucket)
 *   i64 first last, u64 events lost switch_anomalies,
 *   i64 switch_anomaly_first, u64 unended_slices longs_total,
 *   i64 irq_threshold,
 *   i32 ncpus, u64 ntasks nlongs nlanes nstrings pool_bytes
 *   tasks[] longs[] offs[] pool
 *   per lane: i32 kind cpu pid depth buffer points, u32 name,
 *             u64 n nbytes nblocks, i64 last_t last_v first_t end_t end_v,
 *             i32 nlevels,
 *             u64 changes, i32 dropped kept, i64 whole,
 *             bytes blocks, per level: i64 width, u64 n, [buckets, minmax
 *             from level kept on]
 *   i64 file_size, trawl_summary whole_latency, i64 its max's time,
 *   u64 length + the info page's JSON,
 *   u64 nchecks nsnap, checks[] snap[],
 *   replay tables: i32 ncpus nbuffers task_buffer, u64 ncounters,
 *             cpus[ncpus * 16], per buffer u32 length + name,
 *             counters[], u32 async_rows[32] marker_lane lost_lane
 *
 * Version 2: the changes of dense lanes and their finest levels are read
 * back from the trace (checkpoints, replay tables). Version 3: a CPU runs
 * what it switched in until its next switch (task lanes end there), and
 * the switches that disagree and the slices not ended are counted.
 * Version 5: an application channel's slices, counters and instants
 * (lib/ring) are indexed. Older files are refused and made again.
 *
 * Reading checks every count against what is left of the file and every
 * string offset, task lane and level size against the rest, so a damaged
 * file is refused (and built again), never trusted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "view.h"

#define MAGIC	  "TRAWLVIX"
#define VERSION	  5
#define MAX_COUNT (1ull << 40)

struct out {
	FILE *f;
	int err;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, o->f) != n)
		o->err = 1;
}

#define PUT(o, v) put(o, &(v), sizeof(v))

struct in {
	const uint8_t *p, *end;
	int bad;
};

static const void *take(struct in *in, uint64_t n)
{
	if (in->bad || n > (uint64_t)(in->end - in->p)) {
		in->bad = 1;
		return NULL;
	}
	const void *r = in->p;
	in->p += n;
	return r;
}

static void get(struct in *in, void *out, size_t n)
{
	const void *p = take(in, n);
	if (p)
		memcpy(out, p, n);
	else
		memset(out, 0, n);
}

#define GET(in, v) get(in, &(v), sizeof(v))

/* A copy of the next n * elem bytes (NULL when n is 0 or they are not
 * there: in->bad tells). */
static void *dup_array(struct in *in, uint64_t n, size_t elem)
{
	if (n > MAX_COUNT || (n && elem > UINT64_MAX / n)) {
		in->bad = 1;
		return NULL;
	}
	const void *p = take(in, n * elem);
	if (!p || !n)
		return NULL;
	void *q = malloc(n * elem);
	if (!q) {
		in->bad = 1;
		return NULL;
	}
	memcpy(q, p, n * elem);
	return q;
}

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	return h;
}

/* $XDG_CACHE_HOME/trawl, else ~/.cache/trawl. */
static int cache_dir_name(char *out, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (xdg && *xdg == '/')
		n = snprintf(out, len, "%s/trawl", xdg);
	else if (home && *home == '/')
		n = snprintf(out, len, "%s/.cache/trawl", home);
	else
		return -1;
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int view_cache_path(const char *trace, const struct view_build_opts *o,
		    char *out, size_t len)
{
	struct stat st;
	char *real = realpath(trace, NULL);
	if (!real || stat(real, &st) || !S_ISREG(st.st_mode)) {
		free(real);
		return -1;
	}
	uint64_t h = 1469598103934665603ull;
	h = mix(h, real, strlen(real) + 1);
	h = mix(h, &st.st_dev, sizeof(st.st_dev));
	h = mix(h, &st.st_ino, sizeof(st.st_ino));
	h = mix(h, &st.st_size, sizeof(st.st_size));
	h = mix(h, &st.st_mtim, sizeof(st.st_mtim));
	int64_t thr = o->irq_threshold > 0 ? o->irq_threshold : 1000000;
	h = mix(h, &thr, sizeof(thr));
	const char *fmts = o->open.formats ? o->open.formats : "";
	h = mix(h, fmts, strlen(fmts) + 1);
	h = mix(h, &o->open.flags, sizeof(o->open.flags));
	free(real);
	char dir[4096];
	if (cache_dir_name(dir, sizeof(dir)))
		return -1;
	int n = snprintf(out, len, "%s/view-%016llx.idx", dir,
			 (unsigned long long)h);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

static int mkdirs(char *path)
{
	/* every directory above the file */
	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		int rc = mkdir(path, 0700);
		*s = '/';
		if (rc && errno != EEXIST)
			return -1;
	}
	return 0;
}

int view_cache_dir(char *out, size_t len)
{
	if (cache_dir_name(out, len))
		return -1;
	size_t n = strlen(out);
	if (n + 2 > len)
		return -1;
	/* mkdirs() makes the directories above a file: name one */
	out[n] = '/';
	out[n + 1] = '\0';
	int rc = mkdirs(out);
	out[n] = '\0';
	return rc;
}

int view_cache_save(const struct view_index *ix, const char *path)
{
	char tmp[4200];
	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >=
	    (int)sizeof(tmp))
		return -1;
	if (mkdirs(tmp))
		return -1;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct out o = {.f = f};
	put(&o, MAGIC, 8);
	uint32_t v = VERSION, st = sizeof(struct view_task),
		 sb = sizeof(struct view_bucket);
	PUT(&o, v);
	PUT(&o, st);
	PUT(&o, sb);
	PUT(&o, ix->first);
	PUT(&o, ix->last);
	PUT(&o, ix->events);
	PUT(&o, ix->lost);
	PUT(&o, ix->switch_anomalies);
	PUT(&o, ix->switch_anomaly_first);
	PUT(&o, ix->unended_slices);
	PUT(&o, ix->longs_total);
	PUT(&o, ix->irq_threshold);
	int32_t ncpus = ix->ncpus;
	PUT(&o, ncpus);
	uint64_t ntasks = ix->ntasks, nlongs = ix->nlongs, nlanes = ix->nlanes,
		 nstr = ix->str.n, pool = ix->str.used;
	PUT(&o, ntasks);
	PUT(&o, nlongs);
	PUT(&o, nlanes);
	PUT(&o, nstr);
	PUT(&o, pool);
	put(&o, ix->tasks, ix->ntasks * sizeof(*ix->tasks));
	put(&o, ix->longs, ix->nlongs * sizeof(*ix->longs));
	put(&o, ix->str.offs, ix->str.n * sizeof(*ix->str.offs));
	put(&o, ix->str.pool, ix->str.used);
	for (size_t i = 0; i < ix->nlanes; i++) {
		const struct view_lane *l = &ix->lanes[i];
		int32_t h[6] = {l->kind,  l->cpu,    l->pid,
				l->depth, l->buffer, l->points};
		put(&o, h, sizeof(h));
		PUT(&o, l->name);
		uint64_t n = l->steps.n, nb = l->steps.nbytes,
			 nk = l->steps.nblocks;
		PUT(&o, n);
		PUT(&o, nb);
		PUT(&o, nk);
		PUT(&o, l->steps.last_t);
		PUT(&o, l->steps.last_v);
		PUT(&o, l->first_t);
		PUT(&o, l->end_t);
		PUT(&o, l->end_v);
		int32_t nlev = l->nlevels;
		PUT(&o, nlev);
		int32_t dk[2] = {l->dropped, l->kept};
		PUT(&o, l->changes);
		PUT(&o, dk);
		PUT(&o, l->whole);
		put(&o, l->steps.bytes, nb);
		put(&o, l->steps.blocks, nk * sizeof(*l->steps.blocks));
		for (int k = 0; k < l->nlevels; k++) {
			const struct view_level *lv = &l->levels[k];
			uint64_t bn = lv->n;
			PUT(&o, lv->width);
			PUT(&o, bn);
			if (k < l->kept)
				continue;
			put(&o, lv->b, lv->n * sizeof(*lv->b));
			if (lv->minmax)
				put(&o, lv->minmax,
				    lv->n * sizeof(*lv->minmax));
		}
	}
	PUT(&o, ix->file_size);
	PUT(&o, ix->whole_latency);
	PUT(&o, ix->whole_latency_max_at);
	uint64_t slen = ix->summary ? strlen(ix->summary) : 0;
	PUT(&o, slen);
	put(&o, ix->summary, slen);
	uint64_t nchecks = ix->nchecks, nsnap = ix->nsnap;
	PUT(&o, nchecks);
	PUT(&o, nsnap);
	put(&o, ix->checks, ix->nchecks * sizeof(*ix->checks));
	put(&o, ix->snap, ix->nsnap);
	const struct view_replay_tables *rt = &ix->rt;
	int32_t th[3] = {rt->ncpus, rt->nbuffers, rt->task_buffer};
	uint64_t ncounters = rt->ncounters;
	PUT(&o, th);
	PUT(&o, ncounters);
	put(&o, rt->cpus, (size_t)rt->ncpus * 16 * sizeof(*rt->cpus));
	for (int i = 0; i < rt->nbuffers; i++) {
		uint32_t len = (uint32_t)strlen(rt->buffers[i]);
		PUT(&o, len);
		put(&o, rt->buffers[i], len);
	}
	put(&o, rt->counters, rt->ncounters * sizeof(*rt->counters));
	put(&o, rt->async_rows, sizeof(rt->async_rows));
	PUT(&o, rt->marker_lane);
	PUT(&o, rt->lost_lane);
	if (fclose(f))
		o.err = 1;
	if (o.err || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Everything a reader relies on, checked against the rest. */
static int valid(const struct view_index *ix)
{
	for (uint32_t i = 0; i < ix->str.n; i++) {
		uint64_t off = ix->str.offs[i] >> 16,
			 len = ix->str.offs[i] & 0xffff;
		if (off + len + 1 > ix->str.used || ix->str.pool[off + len])
			return 0;
	}
	for (size_t i = 0; i < ix->ntasks; i++) {
		const struct view_task *t = &ix->tasks[i];
		if (t->lane >= ix->nlanes || t->comm >= ix->str.n ||
		    ix->lanes[t->lane].kind != VIEW_LANE_TASK)
			return 0;
		for (int d = 0; d < VIEW_MAX_DEPTH; d++)
			if (t->has_slice[d] && t->slice_lane[d] >= ix->nlanes)
				return 0;
	}
	for (size_t i = 0; i < ix->nlongs; i++)
		if (ix->longs[i].name >= ix->str.n)
			return 0;
	for (size_t i = 0; i < ix->nlanes; i++) {
		const struct view_lane *l = &ix->lanes[i];
		const struct view_steps *s = &l->steps;
		if (l->kind < 0 || l->kind >= VIEW_LANE_KINDS ||
		    l->name >= ix->str.n ||
		    s->nblocks != (s->n + VIEW_BLOCK - 1) / VIEW_BLOCK)
			return 0;
		/* every block's bytes inside the lane's, in order; a change is
		 * at most 3 varints of 10 bytes */
		for (size_t b = 0; b < s->nblocks; b++) {
			uint64_t end = b + 1 < s->nblocks ? s->blocks[b + 1].off
							  : s->nbytes;
			if (s->blocks[b].off > end || end > s->nbytes ||
			    end - s->blocks[b].off > 30ull * VIEW_BLOCK)
				return 0;
		}
		/* the decoder never reads past a lane's bytes: from each
		 * block's start to the end there are as many varint ends as
		 * its changes need (3 a change, 1 for the first), and the
		 * last byte ends one */
		if (s->nblocks &&
		    (!s->nbytes || s->bytes[s->nbytes - 1] & 0x80))
			return 0;
		uint64_t ends = 0;
		for (size_t b = s->nblocks; b-- > 0;) {
			uint64_t end = b + 1 < s->nblocks ? s->blocks[b + 1].off
							  : s->nbytes;
			for (uint64_t j = s->blocks[b].off; j < end; j++)
				ends += !(s->bytes[j] & 0x80);
			uint64_t in = b + 1 < s->nblocks
					      ? VIEW_BLOCK
					      : s->n - (uint64_t)b * VIEW_BLOCK;
			if (ends < in * 3 - 2)
				return 0;
		}
		if (l->kept < 0 || (l->nlevels && l->kept >= l->nlevels) ||
		    (!l->nlevels && l->kept) || (l->dropped && s->n) ||
		    (!l->dropped && s->n != l->changes))
			return 0;
		for (int k = l->kept; k < l->nlevels; k++)
			if (l->levels[k].width <= 0 || !l->levels[k].b ||
			    (l->kind == VIEW_LANE_COUNTER) !=
				    (l->levels[k].minmax != NULL))
				return 0;
	}
	for (size_t i = 0; i < ix->nchecks; i++)
		if (ix->checks[i].off > ix->nsnap ||
		    (i && ix->checks[i].t <= ix->checks[i - 1].t))
			return 0;
	const struct view_replay_tables *rt = &ix->rt;
	for (size_t i = 0; i < (size_t)rt->ncpus * 16; i++)
		for (size_t k = 0; k < sizeof(*rt->cpus) / sizeof(**rt->cpus);
		     k++)
			if (rt->cpus[i][k] != UINT32_MAX &&
			    rt->cpus[i][k] >= ix->nlanes)
				return 0;
	for (size_t i = 0; i < rt->ncounters; i++)
		if (rt->counters[i].lane >= ix->nlanes ||
		    rt->counters[i].name >= ix->str.n)
			return 0;
	for (int i = 0; i < VIEW_ASYNC_ROWS; i++)
		if (rt->async_rows[i] != UINT32_MAX &&
		    rt->async_rows[i] >= ix->nlanes)
			return 0;
	if ((rt->marker_lane != UINT32_MAX && rt->marker_lane >= ix->nlanes) ||
	    (rt->lost_lane != UINT32_MAX && rt->lost_lane >= ix->nlanes))
		return 0;
	return 1;
}

struct view_index *view_cache_load(const char *path, const char *trace)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	uint8_t *data = NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    st.st_size < (off_t)(8ll << 30))
		data = malloc((size_t)st.st_size);
	size_t got = 0;
	while (data && got < (size_t)st.st_size) {
		ssize_t n = read(fd, data + got, (size_t)st.st_size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!data || got != (size_t)st.st_size) {
		free(data);
		return NULL;
	}
	struct in in = {.p = data, .end = data + got};
	struct view_index *ix = calloc(1, sizeof(*ix));
	const void *magic = take(&in, 8);
	uint32_t v = 0, stask = 0, sb = 0;
	GET(&in, v);
	GET(&in, stask);
	GET(&in, sb);
	if (!ix || !magic || memcmp(magic, MAGIC, 8) || v != VERSION ||
	    stask != sizeof(struct view_task) ||
	    sb != sizeof(struct view_bucket))
		goto bad;
	ix->path = strdup(trace);
	pthread_mutex_init(&ix->reread, NULL);
	pthread_mutex_init(&ix->replay_lock, NULL);
	if (!ix->path)
		goto bad;
	GET(&in, ix->first);
	GET(&in, ix->last);
	GET(&in, ix->events);
	GET(&in, ix->lost);
	GET(&in, ix->switch_anomalies);
	GET(&in, ix->switch_anomaly_first);
	GET(&in, ix->unended_slices);
	GET(&in, ix->longs_total);
	GET(&in, ix->irq_threshold);
	int32_t ncpus;
	GET(&in, ncpus);
	ix->ncpus = ncpus;
	uint64_t ntasks, nlongs, nlanes, nstr, pool;
	GET(&in, ntasks);
	GET(&in, nlongs);
	GET(&in, nlanes);
	GET(&in, nstr);
	GET(&in, pool);
	if (in.bad || nstr > UINT32_MAX || !nstr || ntasks > UINT32_MAX ||
	    nlanes > UINT32_MAX || ix->last < ix->first)
		goto bad;
	ix->tasks = dup_array(&in, ntasks, sizeof(*ix->tasks));
	ix->ntasks = ix->tcap = in.bad ? 0 : ntasks;
	ix->longs = dup_array(&in, nlongs, sizeof(*ix->longs));
	ix->nlongs = ix->longcap = in.bad ? 0 : nlongs;
	ix->str.offs = dup_array(&in, nstr, sizeof(*ix->str.offs));
	ix->str.n = ix->str.ncap = in.bad ? 0 : (uint32_t)nstr;
	ix->str.pool = dup_array(&in, pool, 1);
	ix->str.used = ix->str.cap = in.bad ? 0 : pool;
	if (in.bad || nlanes > (uint64_t)(in.end - in.p) / 40)
		goto bad;
	ix->lanes = calloc(nlanes ? nlanes : 1, sizeof(*ix->lanes));
	if (!ix->lanes)
		goto bad;
	ix->lcap = nlanes;
	for (uint64_t i = 0; i < nlanes && !in.bad; i++) {
		struct view_lane *l = &ix->lanes[i];
		ix->nlanes = i + 1;
		int32_t h[6];
		GET(&in, h);
		l->kind = h[0], l->cpu = h[1], l->pid = h[2], l->depth = h[3];
		l->buffer = h[4], l->points = h[5];
		GET(&in, l->name);
		uint64_t n, nb, nk;
		GET(&in, n);
		GET(&in, nb);
		GET(&in, nk);
		GET(&in, l->steps.last_t);
		GET(&in, l->steps.last_v);
		GET(&in, l->first_t);
		GET(&in, l->end_t);
		GET(&in, l->end_v);
		int32_t nlev, dk[2];
		GET(&in, nlev);
		GET(&in, l->changes);
		GET(&in, dk);
		GET(&in, l->whole);
		l->dropped = dk[0] != 0;
		l->kept = dk[1];
		if (in.bad || nlev < 0 || nlev > 64 || n > MAX_COUNT ||
		    l->kept < 0 || l->kept > nlev)
			goto bad;
		l->steps.n = n;
		l->steps.bytes = dup_array(&in, nb, 1);
		l->steps.nbytes = l->steps.cap = nb;
		l->steps.blocks = dup_array(&in, nk, sizeof(*l->steps.blocks));
		l->steps.nblocks = l->steps.bcap = nk;
		if (in.bad)
			goto bad;
		l->levels = calloc((size_t)nlev + 1, sizeof(*l->levels));
		if (!l->levels)
			goto bad;
		for (int k = 0; k < nlev && !in.bad; k++) {
			struct view_level *lv = &l->levels[k];
			l->nlevels = k + 1;
			uint64_t bn;
			GET(&in, lv->width);
			GET(&in, bn);
			if (in.bad || !bn || bn > MAX_COUNT)
				goto bad;
			/* a level covers the trace: its buckets say so */
			if ((__int128)lv->width * (__int128)bn <
			    (__int128)ix->last - ix->first + 1)
				goto bad;
			lv->n = bn;
			if (k < l->kept)
				continue;
			lv->b = dup_array(&in, bn, sizeof(*lv->b));
			if (l->kind == VIEW_LANE_COUNTER)
				lv->minmax =
					dup_array(&in, bn, sizeof(*lv->minmax));
		}
	}
	GET(&in, ix->file_size);
	GET(&in, ix->whole_latency);
	GET(&in, ix->whole_latency_max_at);
	uint64_t slen = 0;
	GET(&in, slen);
	char *sum = dup_array(&in, slen, 1);
	if (sum) {
		ix->summary = realloc(sum, slen + 1);
		if (!ix->summary) {
			free(sum);
			goto bad;
		}
		ix->summary[slen] = '\0';
	}
	uint64_t nchecks = 0, nsnap = 0;
	GET(&in, nchecks);
	GET(&in, nsnap);
	ix->checks = dup_array(&in, nchecks, sizeof(*ix->checks));
	ix->nchecks = ix->ccap = in.bad ? 0 : nchecks;
	ix->snap = dup_array(&in, nsnap, 1);
	ix->nsnap = ix->snapcap = in.bad ? 0 : nsnap;
	struct view_replay_tables *rt = &ix->rt;
	int32_t th[3];
	uint64_t ncounters;
	GET(&in, th);
	GET(&in, ncounters);
	if (in.bad || th[0] < 0 || th[0] > 4096 || th[1] < 0 || th[1] > 16 ||
	    th[2] < -1 || th[2] >= 16)
		goto bad;
	rt->ncpus = th[0];
	rt->task_buffer = th[2];
	rt->cpus = dup_array(&in, (uint64_t)th[0] * 16, sizeof(*rt->cpus));
	for (int i = 0; i < th[1] && !in.bad; i++) {
		uint32_t len = 0;
		GET(&in, len);
		const char *p = take(&in, len);
		if (!p || !(rt->buffers[i] = strndup(p, len)))
			goto bad;
		rt->nbuffers = i + 1;
	}
	rt->counters = dup_array(&in, ncounters, sizeof(*rt->counters));
	rt->ncounters = in.bad ? 0 : ncounters;
	GET(&in, rt->async_rows);
	GET(&in, rt->marker_lane);
	GET(&in, rt->lost_lane);
	if (in.bad || in.p != in.end || !valid(ix) ||
	    view_strings_index(&ix->str))
		goto bad;
	/* pid -> task, made again */
	ix->tmcap = 16;
	while (ix->tmcap < 2 * (ix->ntasks + 1))
		ix->tmcap *= 2;
	ix->task_map = calloc(ix->tmcap, sizeof(*ix->task_map));
	if (!ix->task_map)
		goto bad;
	for (size_t i = 0; i < ix->ntasks; i++) {
		uint64_t x = (uint64_t)ix->tasks[i].pid;
		x ^= x >> 33;
		x *= 0xff51afd7ed558ccdull;
		x ^= x >> 33;
		size_t hh = x & (ix->tmcap - 1);
		while (ix->task_map[hh])
			hh = (hh + 1) & (ix->tmcap - 1);
		ix->task_map[hh] = (uint32_t)i + 1;
	}
	free(data);
	return ix;
bad:
	free(data);
	view_index_free(ix);
	return NULL;
}
