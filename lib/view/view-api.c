/* SPDX-License-Identifier: MIT */
/*
 * The viewer's JSON API (docs/view-api.md): info, window, detail, search,
 * analysis. Parameters are checked here, strictly (decimal integers in
 * range, known names only); a bad one is a 400 with a message naming it.
 * Every answer costs time in proportion to what it returns (columns,
 * tasks matched), except analysis (the changes of the window) and detail
 * with fields=1 (the trace read again from the checkpoint before the
 * event). Lanes whose changes the index gave back read them from the
 * trace (view_lane_steps(), view-replay.c).
 */
#include <ctype.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "view.h"

#define MAX_LANES	 512
#define MAX_CELLS	 (1u << 20) /* lanes x width per window request */
#define MAX_FIELD_EVENTS 16

int view_params_add(struct view_params *p, const char *key, const char *val)
{
	if (p->n >= VIEW_MAX_PARAMS) {
		p->too_many = 1;
		return -1;
	}
	p->key[p->n] = key ? key : "";
	p->val[p->n] = val ? val : "";
	p->n++;
	return 0;
}

struct req {
	const struct view_params *p;
	struct view_out *out;
	char why[200];
};

static int fail(struct req *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct req *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return 400;
}

static const char *param(const struct req *r, const char *key)
{
	for (int i = r->p->n - 1; i >= 0; i--)
		if (!strcmp(r->p->key[i], key))
			return r->p->val[i];
	return NULL;
}

/* Only these names (and token) may come. Return: 0 or 400. */
static int known(struct req *r, const char *const *names)
{
	if (r->p->too_many)
		return fail(r, "too many parameters (at most %d)",
			    VIEW_MAX_PARAMS);
	for (int i = 0; i < r->p->n; i++) {
		const char *k = r->p->key[i];
		if (strlen(r->p->val[i]) > VIEW_MAX_VALUE)
			return fail(r, "parameter '%.40s' is too long", k);
		int ok = !strcmp(k, "token");
		for (const char *const *n = names; *n && !ok; n++)
			ok = !strcmp(k, *n);
		if (!ok)
			return fail(r, "unknown parameter '%.40s'", k);
	}
	return 0;
}

static int parse_i64(const char *s, int64_t *out)
{
	if (!s || !*s || strlen(s) > 20)
		return -1;
	const char *p = s;
	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	for (const char *q = p; *q; q++)
		if (!isdigit((unsigned char)*q))
			return -1;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* An integer parameter in [lo, hi]; def when absent. Return: 0 or 400. */
static int int_param(struct req *r, const char *key, int64_t lo, int64_t hi,
		     int64_t def, int required, int64_t *out)
{
	const char *s = param(r, key);
	if (!s) {
		if (required)
			return fail(r, "parameter '%s' is missing", key);
		*out = def;
		return 0;
	}
	int64_t v;
	if (parse_i64(s, &v))
		return fail(r,
			    "parameter '%s' must be a decimal integer, "
			    "not '%.40s'",
			    key, s);
	if (v < lo || v > hi)
		return fail(r, "parameter '%s' is out of range [%lld, %lld]",
			    key, (long long)lo, (long long)hi);
	*out = v;
	return 0;
}

/* from/to: default the whole trace; to > from. */
static int window_params(struct req *r, const struct view_index *ix,
			 int64_t *from, int64_t *to)
{
	int64_t lo = ix->first - (int64_t)1e15, hi = ix->last + (int64_t)1e15;
	if (int_param(r, "from", lo, hi, ix->first, 0, from) ||
	    int_param(r, "to", lo, hi, ix->last + 1, 0, to))
		return 400;
	if (*to <= *from)
		return fail(r, "'to' (%lld) must be after 'from' (%lld)",
			    (long long)*to, (long long)*from);
	return 0;
}

/* "0,3,5-9" into ids (at most MAX_LANES, each < nlanes). */
static int lane_list(struct req *r, const struct view_index *ix, uint32_t *ids,
		     size_t *n)
{
	const char *s = param(r, "lanes");
	*n = 0;
	if (!s || !*s)
		return fail(r, "parameter 'lanes' is missing");
	while (*s) {
		int64_t a, b;
		char num[24];
		size_t k = 0;
		while (isdigit((unsigned char)*s) && k < sizeof(num) - 1)
			num[k++] = *s++;
		num[k] = '\0';
		if (parse_i64(num, &a))
			goto bad;
		b = a;
		if (*s == '-') {
			s++;
			k = 0;
			while (isdigit((unsigned char)*s) &&
			       k < sizeof(num) - 1)
				num[k++] = *s++;
			num[k] = '\0';
			if (parse_i64(num, &b) || b < a)
				goto bad;
		}
		if (*s == ',')
			s++;
		else if (*s)
			goto bad;
		if (b >= (int64_t)ix->nlanes)
			return fail(r, "no lane %lld (there are %zu)",
				    (long long)b, ix->nlanes);
		if (b - a + 1 > (int64_t)(MAX_LANES - *n))
			return fail(r, "at most %d lanes a request", MAX_LANES);
		for (int64_t i = a; i <= b; i++)
			ids[(*n)++] = (uint32_t)i;
	}
	return 0;
bad:
	return fail(r, "parameter 'lanes' must be lane ids such as 0,3,5-9");
}

static void key_i64(struct view_out *b, const char *key, int64_t v)
{
	vo_char(b, '"');
	vo_str(b, key);
	vo_str(b, "\":");
	vo_i64(b, v);
}

static void key_str(struct view_out *b, const char *key, const char *s,
		    size_t n)
{
	vo_char(b, '"');
	vo_str(b, key);
	vo_str(b, "\":");
	vo_json(b, s, n);
}

static void key_string_id(struct view_out *b, const struct view_index *ix,
			  const char *key, uint32_t id)
{
	size_t n;
	const char *s = view_string(&ix->str, id, &n);
	key_str(b, key, s, n);
}

static void task_json(struct view_out *b, const struct view_index *ix,
		      uint32_t idx)
{
	const struct view_task *tk = &ix->tasks[idx];
	vo_char(b, '{');
	key_i64(b, "pid", tk->pid);
	vo_char(b, ',');
	key_string_id(b, ix, "comm", tk->comm);
	vo_char(b, ',');
	key_i64(b, "lane", tk->lane);
	vo_char(b, '}');
}

static void lane_json(struct view_out *b, const struct view_index *ix, size_t i)
{
	const struct view_lane *l = &ix->lanes[i];
	vo_char(b, '{');
	key_i64(b, "id", (int64_t)i);
	vo_str(b, ",\"kind\":\"");
	vo_str(b, view_lane_kind_name(l->kind));
	vo_str(b, "\",");
	key_string_id(b, ix, "name", l->name);
	vo_char(b, ',');
	key_i64(b, "cpu", l->cpu);
	vo_char(b, ',');
	key_i64(b, "pid", l->pid);
	if (l->kind == VIEW_LANE_TASK || l->kind == VIEW_LANE_SLICE) {
		/* its process, where the trace says (-1: not said) */
		const struct view_task *tk = view_task_find(ix, l->pid);
		vo_char(b, ',');
		key_i64(b, "tgid", tk ? tk->tgid : -1);
	}
	vo_char(b, ',');
	key_i64(b, "depth", l->depth);
	vo_char(b, ',');
	key_i64(b, "buffer", l->buffer);
	vo_char(b, ',');
	key_i64(b, "changes", (int64_t)l->changes);
	if (l->first_t != INT64_MIN) {
		/* its life: the first change, and a task's death */
		vo_char(b, ',');
		key_i64(b, "first", l->first_t);
		if (l->kind == VIEW_LANE_TASK && l->end_v == VIEW_STATE_DEAD) {
			vo_char(b, ',');
			key_i64(b, "dead_at", l->end_t);
		}
	}
	vo_str(b, l->dropped ? ",\"read_back\":true" : ",\"read_back\":false");
	vo_char(b, ',');
	key_i64(b, "kept_level", l->kept);
	vo_str(b, ",\"levels\":[");
	for (int k = 0; k < l->nlevels; k++) {
		if (k)
			vo_char(b, ',');
		vo_i64(b, l->levels[k].width);
	}
	vo_str(b, "]}");
}

/*
 * The event list's pages: the window's events in the whole run's order,
 * row 0 its first; `row` the first row of the page (or `t`: the row of the
 * first event at or after t), `q` a filter (event names, pid=N, cpu=N).
 * Without a filter a row is a seq; with one, `next` says where to go on.
 */
static int api_events(struct view_index *ix, struct req *r)
{
	static const char *const names[] = {"from", "to",    "row", "t",
					    "q",    "limit", NULL};
	int64_t from, to, row, t, limit;
	if (known(r, names) || window_params(r, ix, &from, &to) ||
	    int_param(r, "row", 0, INT64_MAX / 2, 0, 0, &row) ||
	    int_param(r, "t", INT64_MIN / 2, INT64_MAX / 2, INT64_MIN / 2, 0,
		      &t) ||
	    int_param(r, "limit", 1, 500, 100, 0, &limit))
		return 400;
	const char *q = param(r, "q");
	uint64_t first, end, at;
	char why[256] = "";
	if (view_events_seq_at(ix, from, &first, why, sizeof(why)) ||
	    view_events_seq_at(ix, to, &end, why, sizeof(why)))
		return fail(r, "cannot read the trace again: %s", why);
	if (end < first)
		end = first;
	if (t != INT64_MIN / 2) {
		if (view_events_seq_at(ix, t < from ? from : t, &at, why,
				       sizeof(why)))
			return fail(r, "cannot read the trace again: %s", why);
		row = (int64_t)(at - first);
	}
	struct view_out *b = r->out;
	vo_char(b, '{');
	key_i64(b, "from", from);
	vo_char(b, ',');
	key_i64(b, "to", to);
	vo_char(b, ',');
	key_i64(b, "first_seq", (int64_t)first);
	vo_char(b, ',');
	key_i64(b, "count", (int64_t)(end - first));
	vo_char(b, ',');
	key_i64(b, "row", row);
	vo_str(b, ",\"events\":[");
	uint64_t next = 0;
	int ended = 1;
	if ((uint64_t)row < end - first &&
	    view_events_page(ix, first + (uint64_t)row, to, q, (size_t)limit, b,
			     &next, &ended, why, sizeof(why))) {
		vo_str(b, "],");
		key_str(b, "events_error", why, strlen(why));
		vo_str(b, "}\n");
		return 200;
	}
	vo_str(b, "],");
	key_i64(b, "next", next > first ? (int64_t)(next - first) : row);
	vo_str(b, ended ? ",\"ended\":true}\n" : ",\"ended\":false}\n");
	return 200;
}

/* The trace info page: what the indexing pass saw (view-summary.c). */
static int api_summary(struct view_index *ix, struct req *r)
{
	static const char *const names[] = {NULL};
	if (known(r, names))
		return 400;
	struct view_out *b = r->out;
	vo_str(b, "{\"trace\":");
	vo_json(b, ix->path, strlen(ix->path));
	vo_str(b, ",\"summary\":");
	vo_str(b, ix->summary ? ix->summary : "null");
	vo_char(b, ',');
	key_i64(b, "unended_slices", (int64_t)ix->unended_slices);
	vo_char(b, ',');
	key_i64(b, "switch_anomalies", (int64_t)ix->switch_anomalies);
	vo_str(b, "}\n");
	return 200;
}

static int api_info(struct view_index *ix, struct req *r)
{
	static const char *const names[] = {"lanes", NULL};
	int64_t lanes;
	if (known(r, names) || int_param(r, "lanes", 0, 1, 1, 0, &lanes))
		return 400;
	struct view_out *b = r->out;
	vo_char(b, '{');
	key_str(b, "trace", ix->path, strlen(ix->path));
	vo_str(b, atomic_load_explicit(&ix->following, memory_order_relaxed)
			  ? ",\"follow\":true,"
			  : ",\"follow\":false,");
	key_i64(b, "generation", (int64_t)ix->generation);
	vo_char(b, ',');
	key_i64(b, "first", ix->first);
	vo_char(b, ',');
	key_i64(b, "last", ix->last);
	vo_char(b, ',');
	key_i64(b, "events", (int64_t)ix->events);
	vo_char(b, ',');
	key_i64(b, "lost_events", (int64_t)ix->lost);
	vo_char(b, ',');
	key_i64(b, "unended_slices", (int64_t)ix->unended_slices);
	vo_char(b, ',');
	key_i64(b, "switch_anomalies", (int64_t)ix->switch_anomalies);
	if (ix->switch_anomalies) {
		vo_char(b, ',');
		key_i64(b, "switch_anomaly_first", ix->switch_anomaly_first);
	}
	vo_char(b, ',');
	key_i64(b, "cpus", ix->ncpus);
	vo_char(b, ',');
	key_i64(b, "tasks", (int64_t)ix->ntasks);
	vo_char(b, ',');
	key_i64(b, "irq_threshold", ix->irq_threshold);
	vo_char(b, ',');
	key_i64(b, "irq_over_threshold", (int64_t)ix->longs_total);
	vo_char(b, ',');
	key_i64(b, "index_bytes", (int64_t)view_index_bytes(ix));
	vo_char(b, ',');
	key_i64(b, "data_bytes", ix->file_size);
	vo_char(b, ',');
	size_t budget = view_index_budget(ix);
	key_i64(b, "budget_bytes", budget == SIZE_MAX ? -1 : (int64_t)budget);
	vo_str(b, ix->cached ? ",\"cached\":true" : ",\"cached\":false");
	vo_char(b, ',');
	key_i64(b, "checkpoints", (int64_t)ix->nchecks);
	vo_char(b, ',');
	key_i64(b, "spilled_bytes", (int64_t)ix->spilled);
	vo_char(b, ',');
	pthread_mutex_lock(&ix->replay_lock);
	uint64_t replays = ix->replays;
	pthread_mutex_unlock(&ix->replay_lock);
	key_i64(b, "read_back", (int64_t)replays);
	vo_char(b, ',');
	key_i64(b, "max_width", VIEW_MAX_WIDTH);
	if (!lanes) {
		vo_str(b, "}\n");
		return 200;
	}
	vo_str(b, ",\"lanes\":[");
	for (size_t i = 0; i < ix->nlanes; i++) {
		if (i)
			vo_str(b, ",\n");
		lane_json(b, ix, i);
	}
	vo_str(b, "]}\n");
	return 200;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Lanes whose values are a string id + 1 (irq, work, slice names,
 * marker texts). */
static int label_kind(const struct view_lane *l)
{
	return l->kind == VIEW_LANE_HARDIRQ || l->kind == VIEW_LANE_SOFTIRQ ||
	       l->kind == VIEW_LANE_WORK || l->kind == VIEW_LANE_SLICE ||
	       l->kind == VIEW_LANE_ASYNC || l->kind == VIEW_LANE_MARKER;
}

static void push(uint32_t **arr, size_t *n, size_t *cap, uint32_t v,
		 struct view_out *b)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		uint32_t *q = realloc(*arr, nc * sizeof(*q));
		if (!q) {
			b->oom = 1;
			return;
		}
		*arr = q;
		*cap = nc;
	}
	(*arr)[(*n)++] = v;
}

static void label_json(struct view_out *b, const struct view_index *ix,
		       uint32_t id)
{
	size_t len;
	const char *s = view_string(&ix->str, id, &len);
	vo_json(b, s, len);
}

/* {"id+1": value, ...} of the ids named in a window, each once. */
static void id_object(struct view_out *b, const struct view_index *ix,
		      uint32_t *ids, size_t n,
		      void (*value)(struct view_out *,
				    const struct view_index *, uint32_t))
{
	if (n)
		qsort(ids, n, sizeof(*ids), cmp_u32);
	vo_char(b, '{');
	for (size_t i = 0; i < n; i++) {
		if (i && ids[i] == ids[i - 1])
			continue;
		if (i)
			vo_char(b, ',');
		vo_char(b, '"');
		vo_u64(b, ids[i] + 1);
		vo_str(b, "\":");
		value(b, ix, ids[i]);
	}
	vo_char(b, '}');
}

static int api_window(struct view_index *ix, struct req *r)
{
	static const char *const names[] = {"lanes", "from",  "to",
					    "width", "level", NULL};
	int64_t from, to, width, level = -1;
	if (known(r, names) || window_params(r, ix, &from, &to) ||
	    int_param(r, "width", 1, VIEW_MAX_WIDTH, 1000, 0, &width))
		return 400;
	const char *lv = param(r, "level");
	if (lv && !strcmp(lv, "raw"))
		level = -2;
	else if (lv && strcmp(lv, "auto") &&
		 int_param(r, "level", 0, 63, -1, 0, &level))
		return fail(r, "parameter 'level' must be auto, raw or a "
			       "level number 0..63");
	uint32_t ids[MAX_LANES];
	size_t n;
	if (lane_list(r, ix, ids, &n))
		return 400;
	if ((uint64_t)n * (uint64_t)width > MAX_CELLS)
		return fail(r, "lanes x width is at most %u (asked %zu x %lld)",
			    MAX_CELLS, n, (long long)width);
	struct view_col *cols = malloc((size_t)width * sizeof(*cols));
	uint32_t *tasks = NULL, *labels = NULL;
	size_t ntasks = 0, tcap = 0, nlabels = 0, lcap = 0;
	if (!cols)
		return 503;
	struct view_out *b = r->out;
	vo_char(b, '{');
	key_i64(b, "from", from);
	vo_char(b, ',');
	key_i64(b, "to", to);
	vo_char(b, ',');
	key_i64(b, "width", width);
	vo_str(b, ",\"lanes\":[");
	for (size_t i = 0; i < n; i++) {
		const struct view_lane *l = &ix->lanes[ids[i]];
		int used = view_window(ix, l, from, to, (int)width, (int)level,
				       cols);
		if (i)
			vo_str(b, ",\n");
		vo_char(b, '{');
		key_i64(b, "id", ids[i]);
		vo_char(b, ',');
		key_i64(b, "level", used);
		vo_char(b, ',');
		key_i64(b, "bucket", used < 0 ? 0 : l->levels[used].width);
		vo_str(b, ",\"cols\":[");
		int counter = l->kind == VIEW_LANE_COUNTER;
		for (int c = 0; c < width;) {
			int e = c + 1;
			uint64_t count = cols[c].count;
			while (e < width && cols[e].dom == cols[c].dom &&
			       cols[e].busy == cols[c].busy &&
			       (counter ? cols[e].min == cols[c].min &&
						  cols[e].max == cols[c].max
					: cols[e].share == cols[c].share) &&
			       (l->points ? !cols[e].count && !count : 1))
				count += cols[e++].count;
			if (c)
				vo_char(b, ',');
			vo_char(b, '[');
			vo_i64(b, e - c);
			vo_char(b, ',');
			if (counter) {
				int has = cols[c].min <= cols[c].max;
				vo_i64(b, has ? cols[c].min : 0);
				vo_char(b, ',');
				vo_i64(b, has ? cols[c].max : 0);
				vo_char(b, ',');
				vo_i64(b, has);
			} else {
				vo_i64(b, cols[c].dom);
				vo_char(b, ',');
				vo_i64(b, cols[c].busy);
				vo_char(b, ',');
				vo_i64(b, (int64_t)count);
				vo_char(b, ',');
				vo_i64(b, cols[c].share);
			}
			vo_char(b, ']');
			/* what the values name, listed once below */
			if (l->kind == VIEW_LANE_CPU && cols[c].dom > 0 &&
			    (size_t)cols[c].dom <= ix->ntasks)
				push(&tasks, &ntasks, &tcap,
				     (uint32_t)cols[c].dom - 1, b);
			else if (label_kind(l) && cols[c].dom > 0 &&
				 (uint64_t)cols[c].dom <= ix->str.n)
				push(&labels, &nlabels, &lcap,
				     (uint32_t)cols[c].dom - 1, b);
			c = e;
		}
		vo_str(b, "]}");
	}
	vo_str(b, "],\"tasks\":");
	id_object(b, ix, tasks, ntasks, task_json);
	vo_str(b, ",\"labels\":");
	id_object(b, ix, labels, nlabels, label_json);
	vo_str(b, "}\n");
	free(cols);
	free(tasks);
	free(labels);
	return 200;
}

/* The change holding at t, its end (the next change), and the one before. */
struct at {
	int found;
	struct view_step s, prev, next;
	int has_prev, has_next;
};

static void change_in(const struct view_steps *st, int64_t t, struct at *a)
{
	memset(a, 0, sizeof(*a));
	struct view_iter it;
	struct view_step c, last = {0}, before = {0};
	if (view_iter_seek(&it, st, t) || !view_iter_next(&it, &c))
		return;
	if (c.t > t) { /* before the lane's first change: only a next */
		a->next = c;
		a->has_next = 1;
		return;
	}
	a->found = 1;
	a->s = c;
	a->has_next = view_iter_next(&it, &a->next);
	/* the change before it, counting changes at the same time */
	int k = 0;
	view_iter_seek(&it, st, c.t - 1);
	while (view_iter_next(&it, &c) && c.t <= t) {
		before = last;
		last = c;
		k++;
	}
	if (k >= 2) {
		a->prev = before;
		a->has_prev = 1;
	}
}

/*
 * The same for a lane whose changes are read back from the trace: the
 * window from t to the end of its bucket at the finest level kept; the
 * change before the one found from the checkpoint before that (the first
 * change of a replay is the checkpoint's); the next one from the first
 * later bucket that has a change.
 */
static void change_at(struct view_index *ix, const struct view_lane *l,
		      int64_t t, struct at *a)
{
	if (!l->dropped) {
		change_in(&l->steps, t, a);
		return;
	}
	memset(a, 0, sizeof(*a));
	if (!l->nlevels)
		return;
	const struct view_level *lv = &l->levels[l->kept];
	int64_t w = lv->width;
	int64_t bi = t > ix->first ? (t - ix->first) / w : 0;
	int64_t bend = ix->first + (bi + 1) * w - 1;
	struct view_replay *rp;
	const struct view_steps *st =
		view_lane_steps(ix, l, t, bend > t ? bend : t, &rp);
	if (st)
		change_in(st, t, a);
	view_replay_put(ix, rp);
	if (!a->found)
		return;
	if (!a->has_prev) {
		struct at b;
		st = view_lane_steps(ix, l, a->s.t - 1, a->s.t, &rp);
		if (st) {
			change_in(st, a->s.t, &b);
			if (b.found && b.has_prev) {
				a->prev = b.prev;
				a->has_prev = 1;
			}
		}
		view_replay_put(ix, rp);
	}
	if (a->has_next)
		return;
	for (size_t i = (size_t)bi + 1; i < lv->off + lv->n; i++) {
		if (i < lv->off || !lv->b[i - lv->off].count)
			continue;
		int64_t b0 = ix->first + (int64_t)i * w;
		st = view_lane_steps(ix, l, b0, b0 + w - 1, &rp);
		struct view_iter it;
		struct view_step c;
		if (st && !view_iter_seek(&it, st, t))
			while (view_iter_next(&it, &c))
				if (c.t > t) {
					a->next = c;
					a->has_next = 1;
					break;
				}
		view_replay_put(ix, rp);
		break;
	}
}

/* The nearest point to t within tol. */
static int point_near(struct view_index *ix, const struct view_lane *l,
		      int64_t t, int64_t tol, struct view_step *out)
{
	struct view_iter it;
	struct view_step st;
	int found = 0;
	int64_t best = INT64_MAX;
	struct view_replay *rp;
	const struct view_steps *steps =
		view_lane_steps(ix, l, t - tol, t + tol, &rp);
	if (!steps || view_iter_seek(&it, steps, t - tol)) {
		view_replay_put(ix, rp);
		return 0;
	}
	while (view_iter_next(&it, &st) && st.t <= t + tol) {
		int64_t d = st.t > t ? st.t - t : t - st.t;
		if (st.t >= t - tol && d < best) {
			best = d;
			*out = st;
			found = 1;
		}
	}
	view_replay_put(ix, rp);
	return found;
}

struct reread {
	int64_t at;
	int cpu;
	struct view_out *b;
	int n;
	/* seq: a whole run's is the ranged run's plus this, known from the
	 * checkpoint's first event (the first the index reads) */
	int known;
	uint64_t check_seq;
	int64_t seq_off;
};

/*
 * JSON for JavaScript, whose numbers are doubles: an integer beyond 2^53
 * (a kernel pointer, a work struct's address) would come out rounded
 * (18446612708506910000), so it goes as a string of its digits.
 */
static void vo_json_for_js(struct view_out *b, const char *j, size_t n)
{
	size_t i = 0, from = 0;
	int in_str = 0;
	while (i < n) {
		char c = j[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
			i++;
			continue;
		}
		if (c == '"') {
			in_str = 1;
			i++;
			continue;
		}
		if (c != '-' && (c < '0' || c > '9')) {
			i++;
			continue;
		}
		size_t start = i, digits = 0;
		if (c == '-')
			i++;
		while (i < n && j[i] >= '0' && j[i] <= '9') {
			i++;
			digits++;
		}
		/* 2^53 - 1 = 9007199254740991, 16 digits */
		int big = digits > 16 ||
			  (digits == 16 &&
			   memcmp(j + i - 16, "9007199254740991", 16) > 0);
		if (!big)
			continue;
		vo_bytes(b, j + from, start - from);
		vo_char(b, '"');
		vo_bytes(b, j + start, i - start);
		vo_char(b, '"');
		from = i;
	}
	vo_bytes(b, j + from, n - from);
}

static int on_reread(const trawl_event *ev, void *ctx)
{
	struct reread *r = ctx;
	int64_t ts = trawl_event_time(ev);
	if (!r->known && view_indexed_event(trawl_event_name(ev))) {
		r->known = 1;
		r->seq_off =
			(int64_t)r->check_seq - (int64_t)trawl_event_seq(ev);
	}
	if (ts < r->at)
		return 0;
	if (ts > r->at || r->n >= MAX_FIELD_EVENTS)
		return 1;
	if (r->cpu >= 0 && trawl_event_cpu(ev) != r->cpu)
		return 0;
	struct view_out *b = r->b;
	if (r->n++)
		vo_char(b, ',');
	vo_char(b, '{');
	key_str(b, "event", trawl_event_name(ev), strlen(trawl_event_name(ev)));
	vo_char(b, ',');
	key_i64(b, "time", ts);
	vo_char(b, ',');
	key_i64(b, "seq", (int64_t)trawl_event_seq(ev) + r->seq_off);
	vo_char(b, ',');
	key_i64(b, "cpu", trawl_event_cpu(ev));
	vo_char(b, ',');
	key_i64(b, "pid", trawl_event_pid(ev));
	vo_char(b, ',');
	key_str(b, "comm", trawl_event_comm(ev), strlen(trawl_event_comm(ev)));
	vo_str(b, ",\"fields\":");
	size_t jn;
	const char *j = trawl_event_fields_json(ev, &jn);
	vo_json_for_js(b, j, jn);
	/* as trawl report --json: the labels (prev_state S, a work
	 * function's name) and the event's text */
	vo_field_notes(b, ev);
	size_t tn;
	const char *text = trawl_event_payload(ev, &tn);
	vo_char(b, ',');
	key_str(b, "text", text ? text : "", text ? tn : 0);
	vo_char(b, '}');
	return 0;
}

/* ,"events":[...] of the trace read again from the checkpoint before
 * time at to at (a ranged run). */
static void fields_at(struct view_index *ix, int64_t at, int cpu,
		      struct view_out *b)
{
	if (!strcmp(ix->path, "-")) {
		vo_str(b, ",\"events\":null,\"events_error\":\"standard "
			  "input cannot be read again\"");
		return;
	}
	ssize_t k = view_checkpoint_before(ix, (uint64_t)at, 1);
	pthread_mutex_lock(&ix->reread);
	trawl_error err = {0};
	trawl_trace *t = view_reopen(ix, k, at, &err);
	vo_str(b, ",\"events\":[");
	struct reread r = {.at = at, .cpu = cpu, .b = b, .known = k < 0};
	if (k >= 0)
		r.check_seq = ix->checks[k].seq;
	int rc = t ? trawl_on(t, "*", on_reread, &r) : -1;
	if (!rc)
		rc = trawl_run(t, &err);
	vo_char(b, ']');
	if (rc < 0) {
		vo_char(b, ',');
		key_str(b, "events_error", err.msg, strlen(err.msg));
	}
	trawl_close(t);
	malloc_trim(0); /* the reader's buffers, freed in this thread's arena */
	pthread_mutex_unlock(&ix->reread);
}

static int64_t end_of(const struct view_index *ix, const struct at *a)
{
	return a->has_next ? a->next.t : ix->last;
}

/* Who made the task runnable (aux of a RUNNABLE change, view.h). */
static void waker_json(const struct view_index *ix, uint32_t aux,
		       struct view_out *b)
{
	if (aux >= 2 && aux - 2 < ix->ntasks) {
		vo_str(b, ",\"waker\":");
		task_json(b, ix, aux - 2);
	} else if (aux == 1) {
		vo_str(b, ",\"waker\":{\"pid\":0,\"comm\":\"(idle or "
			  "interrupt)\",\"lane\":-1}");
	} else {
		vo_str(b, ",\"preempted\":true");
	}
}

/* A run of the task (from the task lane): the wakeup that made it
 * runnable, its latency and the waker; the state it left in. */
static void run_json(struct view_index *ix, uint32_t task, int64_t start,
		     struct view_out *b)
{
	const struct view_lane *tl = &ix->lanes[ix->tasks[task].lane];
	struct at a;
	change_at(ix, tl, start, &a);
	if (!a.found || a.s.v != VIEW_STATE_RUNNING)
		return;
	if (a.has_prev && a.prev.v == VIEW_STATE_RUNNABLE) {
		vo_str(b, ",\"wakeup\":{");
		key_i64(b, "time", a.prev.t);
		vo_char(b, ',');
		key_i64(b, "latency", a.s.t - a.prev.t);
		waker_json(ix, a.prev.aux, b);
		vo_char(b, '}');
	}
	if (a.has_next) {
		vo_str(b, ",\"end_state\":\"");
		vo_str(b, view_state_name((int)a.next.v));
		vo_char(b, '"');
	}
}

/* Lanes whose value 0 is no item (no handler, work or slice running),
 * unlike a CPU's idle, a task's unknown state or a counter's 0. */
static int holds_nothing(int kind)
{
	return kind == VIEW_LANE_HARDIRQ || kind == VIEW_LANE_SOFTIRQ ||
	       kind == VIEW_LANE_WORK || kind == VIEW_LANE_SLICE ||
	       kind == VIEW_LANE_ASYNC;
}

static int api_detail(struct view_index *ix, struct req *r)
{
	static const char *const names[] = {"lane", "t", "tol", "fields", NULL};
	int64_t lane, t, tol, fields;
	if (known(r, names) ||
	    int_param(r, "lane", 0, (int64_t)ix->nlanes - 1, 0, 1, &lane) ||
	    int_param(r, "t", ix->first - (int64_t)1e15,
		      ix->last + (int64_t)1e15, 0, 1, &t) ||
	    int_param(r, "tol", 0, (int64_t)1e15, 0, 0, &tol) ||
	    int_param(r, "fields", 0, 1, 0, 0, &fields))
		return 400;
	const struct view_lane *l = &ix->lanes[lane];
	struct view_out *b = r->out;
	struct at a;
	if (l->points) {
		memset(&a, 0, sizeof(a));
		a.found = point_near(ix, l, t, tol, &a.s);
		a.next = a.s;
		a.has_next = a.found;
	} else {
		change_at(ix, l, t, &a);
	}
	vo_char(b, '{');
	key_i64(b, "lane", lane);
	vo_str(b, ",\"kind\":\"");
	vo_str(b, view_lane_kind_name(l->kind));
	vo_str(b, "\",");
	key_string_id(b, ix, "lane_name", l->name);
	vo_char(b, ',');
	key_i64(b, "cpu", l->cpu);
	if (holds_nothing(l->kind) && (!a.found || a.s.v == 0)) {
		/* between two handlers, works or slices (or before the
		 * first): nothing, and where the one before ended and the
		 * next begins */
		vo_str(b, ",\"found\":false,\"empty\":true");
		if (a.found) {
			vo_char(b, ',');
			key_i64(b, "start", a.s.t);
			vo_char(b, ',');
			key_i64(b, "end", end_of(ix, &a));
		}
		if (a.found && a.has_prev && a.prev.v > 0) {
			vo_str(b, ",\"before\":{");
			key_i64(b, "start", a.prev.t);
			vo_char(b, ',');
			key_i64(b, "end", a.s.t);
			vo_char(b, ',');
			key_string_id(b, ix, "label", (uint32_t)a.prev.v - 1);
			vo_char(b, '}');
		}
		if (a.has_next && a.next.v > 0) {
			vo_str(b, ",\"after\":{");
			key_i64(b, "start", a.next.t);
			vo_char(b, ',');
			key_string_id(b, ix, "label", (uint32_t)a.next.v - 1);
			vo_char(b, '}');
		}
		vo_str(b, "}\n");
		return 200;
	}
	if (!a.found) {
		vo_str(b, ",\"found\":false}\n");
		return 200;
	}
	vo_str(b, ",\"found\":true,");
	key_i64(b, "start", a.s.t);
	vo_char(b, ',');
	key_i64(b, "end", end_of(ix, &a));
	vo_char(b, ',');
	key_i64(b, "duration", end_of(ix, &a) - a.s.t);
	vo_char(b, ',');
	key_i64(b, "value", a.s.v);
	int64_t v = a.s.v;
	switch (l->kind) {
	case VIEW_LANE_CPU:
		if (v > 0 && (uint64_t)v <= ix->ntasks) {
			vo_str(b, ",\"task\":");
			task_json(b, ix, (uint32_t)v - 1);
			run_json(ix, (uint32_t)v - 1, a.s.t, b);
		} else {
			vo_str(b, ",\"idle\":true");
		}
		break;
	case VIEW_LANE_TASK: {
		vo_str(b, ",\"state\":\"");
		vo_str(b, view_state_name((int)v));
		vo_char(b, '"');
		uint32_t idx = UINT32_MAX;
		for (size_t i = 0; i < ix->ntasks; i++)
			if (ix->tasks[i].lane == (uint32_t)lane)
				idx = (uint32_t)i;
		if (idx != UINT32_MAX) {
			vo_str(b, ",\"task\":");
			task_json(b, ix, idx);
		}
		if (v == VIEW_STATE_RUNNING) {
			vo_char(b, ',');
			key_i64(b, "on_cpu", (int64_t)a.s.aux - 1);
			if (idx != UINT32_MAX)
				run_json(ix, idx, a.s.t, b);
		} else if (v == VIEW_STATE_RUNNABLE) {
			waker_json(ix, a.s.aux, b);
			if (a.has_next && a.next.v == VIEW_STATE_RUNNING) {
				vo_char(b, ',');
				key_i64(b, "latency", a.next.t - a.s.t);
			}
		}
		break;
	}
	case VIEW_LANE_COUNTER:
		break;
	case VIEW_LANE_LOST:
		vo_char(b, ',');
		key_i64(b, "lost", v);
		break;
	default:
		if (v > 0) {
			vo_char(b, ',');
			key_string_id(b, ix, "label", (uint32_t)v - 1);
		}
		break;
	}
	if (fields)
		fields_at(ix, a.s.t, l->points ? -1 : l->cpu, b);
	vo_str(b, "}\n");
	return 200;
}

static int contains_ci(const char *hay, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	if (!k)
		return 1;
	for (size_t i = 0; i + k <= n; i++)
		if (!strncasecmp(hay + i, needle, k))
			return 1;
	return 0;
}

/*
 * ,"slices":[...]: the slices (B/E, S/F) whose name holds q, the first
 * of each name on each lane, with where it begins and ends; from the
 * lanes' changes in memory (a lane whose changes are read back from the
 * trace is not searched: counted in slice_lanes_not_searched).
 */
static void search_slices(struct view_index *ix, const char *q, int64_t limit,
			  struct view_out *b)
{
	uint8_t *hit = calloc(ix->str.n ? ix->str.n : 1, 1);
	int any = 0;
	for (uint32_t id = 0; hit && id < ix->str.n; id++) {
		size_t len;
		const char *str = view_string(&ix->str, id, &len);
		if (len && contains_ci(str, len, q))
			any = hit[id] = 1;
	}
	vo_str(b, ",\"slices\":[");
	int64_t n = 0, total = 0, skipped = 0;
	for (size_t i = 0; any && i < ix->nlanes; i++) {
		const struct view_lane *l = &ix->lanes[i];
		if (l->kind != VIEW_LANE_SLICE && l->kind != VIEW_LANE_ASYNC)
			continue;
		if (l->dropped) {
			skipped++;
			continue;
		}
		uint8_t *shown = calloc(ix->str.n, 1);
		if (!shown)
			break;
		struct view_iter it;
		struct view_step c, next;
		view_iter_start(&it, &l->steps);
		int more = view_iter_next(&it, &c);
		while (more) {
			more = view_iter_next(&it, &next);
			uint32_t id =
				c.v > 0 ? (uint32_t)(c.v - 1) : UINT32_MAX;
			if (id < ix->str.n && hit[id] && !shown[id]) {
				shown[id] = 1;
				if (total++ < limit) {
					if (n++)
						vo_char(b, ',');
					vo_char(b, '{');
					key_string_id(b, ix, "name", id);
					vo_char(b, ',');
					key_i64(b, "lane", (int64_t)i);
					vo_char(b, ',');
					key_i64(b, "pid", l->pid);
					vo_char(b, ',');
					key_i64(b, "start", c.t);
					vo_char(b, ',');
					key_i64(b, "end",
						more ? next.t : ix->last + 1);
					vo_char(b, '}');
				}
			}
			c = next;
		}
		free(shown);
	}
	free(hit);
	vo_str(b, "],");
	key_i64(b, "slice_matches", total);
	vo_char(b, ',');
	key_i64(b, "slice_lanes_not_searched", skipped);
}

static int api_search(struct view_index *ix, struct req *r)
{
	static const char *const names[] = {"q", "limit", NULL};
	int64_t limit;
	if (known(r, names) || int_param(r, "limit", 1, 1000, 100, 0, &limit))
		return 400;
	const char *q = param(r, "q");
	if (!q || !*q)
		return fail(r, "parameter 'q' (a task name or pid) is missing");
	/* digits: a pid holding them (15 finds 15989), as a name can */
	int digits = strspn(q, "0123456789") == strlen(q);
	struct view_out *b = r->out;
	vo_str(b, "{\"tasks\":[");
	int64_t n = 0, total = 0;
	for (size_t i = 0; i < ix->ntasks; i++) {
		const struct view_task *tk = &ix->tasks[i];
		size_t len;
		const char *comm = view_string(&ix->str, tk->comm, &len);
		char num[24];
		int nl = snprintf(num, sizeof(num), "%d", tk->pid);
		if (!(digits && contains_ci(num, (size_t)nl, q)) &&
		    !contains_ci(comm, len, q))
			continue;
		if (total++ >= limit)
			continue;
		if (n++)
			vo_char(b, ',');
		vo_str(b, "{\"pid\":");
		vo_i64(b, tk->pid);
		vo_char(b, ',');
		key_str(b, "comm", comm, len);
		vo_char(b, ',');
		key_i64(b, "lane", tk->lane);
		vo_str(b, ",\"slice_lanes\":[");
		for (int d = 0; d < VIEW_MAX_DEPTH && tk->has_slice[d]; d++) {
			if (d)
				vo_char(b, ',');
			vo_i64(b, tk->slice_lane[d]);
		}
		vo_str(b, "]}");
	}
	vo_str(b, "],");
	key_i64(b, "matches", total);
	search_slices(ix, q, limit, b);
	vo_str(b, "}\n");
	return 200;
}

struct task_time {
	uint32_t idx;
	int64_t run, runnable, sleep;
};

static int by_run(const void *a, const void *b)
{
	const struct task_time *x = a, *y = b;
	if (x->run != y->run)
		return x->run > y->run ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The summary as JSON; with max_at >= 0, where the longest one ends. */
static void summary_json(struct view_out *b, const trawl_summary *s,
			 int64_t max_at)
{
	vo_char(b, '{');
	key_i64(b, "count", (int64_t)s->count);
	vo_char(b, ',');
	key_i64(b, "min", s->min);
	vo_char(b, ',');
	key_i64(b, "p50", s->p50);
	vo_char(b, ',');
	key_i64(b, "p90", s->p90);
	vo_char(b, ',');
	key_i64(b, "p99", s->p99);
	vo_char(b, ',');
	key_i64(b, "max", s->max);
	if (max_at >= 0) {
		vo_char(b, ',');
		key_i64(b, "max_at", max_at);
	}
	vo_char(b, '}');
}

static int64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
	int64_t s = a0 > b0 ? a0 : b0, e = a1 < b1 ? a1 : b1;
	return e > s ? e - s : 0;
}

/*
 * A lane's time over a window, fed its changes in order (those before the
 * window too): cpu lanes the time a task ran, task lanes the time running
 * and the wakeup latencies of the switch-ins in the window.
 */
struct lane_sum {
	const struct view_lane *l;
	int has, done;
	struct view_step s;
	int64_t sum;
	int64_t runnable, sleep; /* task lanes, with detail */
};

/* A slice name's time in the window (detail): slices of it that overlap
 * it, their time inside it, the first one's start. */
struct name_sum {
	uint64_t count;
	int64_t total, first;
};

struct sums {
	struct view_index *ix;
	int64_t from, to;
	trawl_hist *lat;
	struct lane_sum *lanes;	 /* by lane id */
	struct name_sum *names;	 /* by string id; NULL: no detail */
	int64_t max_lat, max_at; /* the longest wakeup and its switch-in */
};

/* The value held over [t0, t1) of a lane, into its sums. */
static void sum_span(struct sums *u, struct lane_sum *a, int64_t t0, int64_t t1)
{
	int64_t d = overlap(t0, t1, u->from, u->to);
	int kind = a->l->kind;
	int64_t v = a->s.v;
	if (view_counts_busy(kind, v))
		a->sum += d;
	if (!u->names || !d)
		return;
	if (kind == VIEW_LANE_TASK && v == VIEW_STATE_RUNNABLE)
		a->runnable += d;
	else if (kind == VIEW_LANE_TASK &&
		 (v == VIEW_STATE_SLEEPING || v == VIEW_STATE_UNINTERRUPTIBLE))
		a->sleep += d;
	else if ((kind == VIEW_LANE_SLICE || kind == VIEW_LANE_ASYNC) &&
		 v > 0 && (uint64_t)v <= u->ix->str.n) {
		struct name_sum *n = &u->names[v - 1];
		if (!n->count++ || t0 < n->first)
			n->first = t0;
		n->total += d;
	}
}

static void sum_step(struct sums *u, struct lane_sum *a,
		     const struct view_step *c)
{
	if (a->done)
		return;
	if (!a->has || c->t <= u->from) {
		a->s = *c; /* the change holding at from is the last one */
		a->has = 1;
		return;
	}
	sum_span(u, a, a->s.t, c->t);
	if (c->t >= u->to) {
		a->done = 1;
		return;
	}
	if (view_is_wakeup(a->l->kind, a->s.v, a->s.aux, c->v) &&
	    c->t >= u->from) {
		trawl_hist_add(u->lat, c->t - a->s.t);
		if (c->t - a->s.t > u->max_lat || !u->max_at) {
			u->max_lat = c->t - a->s.t;
			u->max_at = c->t;
		}
	}
	a->s = *c;
}

static void sum_end(struct sums *u, struct lane_sum *a)
{
	if (a->has && !a->done)
		sum_span(u, a, a->s.t, u->ix->last);
	a->done = 1;
}

static void sum_emit(void *ctx, uint32_t lane, const struct view_step *c)
{
	struct sums *u = ctx;
	struct lane_sum *a = &u->lanes[lane];
	if (a->l)
		sum_step(u, a, c);
}

/* Every cpu and task lane summed over the window: from its own changes,
 * from replays of the window (cached, or made if not too wide), else by
 * one streaming read of the trace over the window. */
static int window_sums(struct view_index *ix, struct sums *u)
{
	int stream = 0;
	for (size_t i = 0; i < ix->nlanes; i++) {
		const struct view_lane *l = &ix->lanes[i];
		int slices = l->kind == VIEW_LANE_SLICE ||
			     l->kind == VIEW_LANE_ASYNC;
		if (l->kind != VIEW_LANE_CPU && l->kind != VIEW_LANE_TASK &&
		    !(slices && u->names))
			continue;
		struct view_replay *rp = NULL;
		const struct view_steps *st =
			view_lane_steps(ix, l, u->from, u->to, &rp);
		if (!st) {
			u->lanes[i].l = l; /* read by the stream below */
			stream = 1;
			continue;
		}
		struct lane_sum a = {.l = l};
		struct view_iter it;
		struct view_step c;
		if (!view_iter_seek(&it, st, u->from))
			while (!a.done && view_iter_next(&it, &c))
				sum_step(u, &a, &c);
		sum_end(u, &a);
		u->lanes[i].sum = a.sum;
		u->lanes[i].runnable = a.runnable;
		u->lanes[i].sleep = a.sleep;
		view_replay_put(ix, rp);
	}
	if (!stream)
		return 0;
	char why[256];
	if (view_replay_run(ix, u->from, u->to, NULL, sum_emit, u, why,
			    sizeof(why)))
		return -1;
	for (size_t i = 0; i < ix->nlanes; i++)
		if (u->lanes[i].l)
			sum_end(u, &u->lanes[i]);
	return 0;
}

/* The slice names of the window, most time first (top of them). */
static void slice_names_json(struct view_out *b, const struct view_index *ix,
			     const struct name_sum *names, int64_t top)
{
	uint32_t *ids = malloc((ix->str.n ? ix->str.n : 1) * sizeof(*ids));
	size_t n = 0;
	for (uint32_t i = 0; ids && i < ix->str.n; i++)
		if (names[i].count)
			ids[n++] = i;
	/* a selection of the top, n is small: most time first */
	for (size_t k = 0; k < n && (int64_t)k < top; k++) {
		size_t best = k;
		for (size_t j = k + 1; j < n; j++) {
			const struct name_sum *x = &names[ids[j]],
					      *y = &names[ids[best]];
			if (x->total > y->total ||
			    (x->total == y->total && ids[j] < ids[best]))
				best = j;
		}
		uint32_t id = ids[best];
		ids[best] = ids[k];
		ids[k] = id;
		if (k)
			vo_char(b, ',');
		vo_char(b, '{');
		key_string_id(b, ix, "name", id);
		vo_char(b, ',');
		key_i64(b, "count", (int64_t)names[id].count);
		vo_char(b, ',');
		key_i64(b, "total", names[id].total);
		vo_char(b, ',');
		key_i64(b, "first", names[id].first);
		vo_char(b, '}');
	}
	free(ids);
}

static int api_analysis(struct view_index *ix, struct req *r)
{
	static const char *const names[] = {"from", "to", "top", "detail",
					    NULL};
	int64_t from, to, top, detail;
	if (known(r, names) || window_params(r, ix, &from, &to) ||
	    int_param(r, "top", 1, 1000, 20, 0, &top) ||
	    int_param(r, "detail", 0, 1, 0, 0, &detail))
		return 400;
	struct task_time *tt = calloc(ix->ntasks + 1, sizeof(*tt));
	trawl_hist *lat = trawl_hist_new(NULL);
	if (!tt || !lat) {
		free(tt);
		trawl_hist_free(lat);
		return 503;
	}
	for (size_t i = 0; i < ix->ntasks; i++)
		tt[i].idx = (uint32_t)i;
	/* the whole trace was summed when indexing (but for the detail:
	 * runnable and sleep per task, and the slices by name) */
	int whole = !detail && from <= ix->first && to > ix->last;
	struct sums u = {.ix = ix, .from = from, .to = to, .lat = lat};
	if (detail &&
	    !(u.names = calloc(ix->str.n ? ix->str.n : 1, sizeof(*u.names)))) {
		free(tt);
		trawl_hist_free(lat);
		return 503;
	}
	if (!whole) {
		u.lanes = calloc(ix->nlanes ? ix->nlanes : 1, sizeof(*u.lanes));
		if (!u.lanes || window_sums(ix, &u)) {
			free(u.lanes);
			free(u.names);
			free(tt);
			trawl_hist_free(lat);
			return 503;
		}
	}
	struct view_out *b = r->out;
	vo_char(b, '{');
	key_i64(b, "from", from);
	vo_char(b, ',');
	key_i64(b, "to", to);
	vo_str(b, ",\"cpus\":[");
	int ncpu = 0;
	for (size_t i = 0; i < ix->nlanes; i++) {
		const struct view_lane *l = &ix->lanes[i];
		if (l->kind != VIEW_LANE_CPU)
			continue;
		int64_t busy = whole ? l->whole : u.lanes[i].sum;
		if (ncpu++)
			vo_char(b, ',');
		vo_char(b, '{');
		key_i64(b, "cpu", l->cpu);
		vo_char(b, ',');
		key_i64(b, "buffer", l->buffer);
		vo_char(b, ',');
		key_i64(b, "busy", busy);
		vo_char(b, '}');
	}
	/* running time, and wakeup latency (runnable after a wakeup, then
	 * running, with the switch-in inside the window): window_sums() */
	for (size_t i = 0; i < ix->ntasks; i++) {
		uint32_t lane = ix->tasks[i].lane;
		tt[i].run = whole ? ix->lanes[lane].whole : u.lanes[lane].sum;
		if (detail) {
			tt[i].runnable = u.lanes[lane].runnable;
			tt[i].sleep = u.lanes[lane].sleep;
		}
	}
	free(u.lanes);
	vo_str(b, "],\"top_tasks\":[");
	qsort(tt, ix->ntasks, sizeof(*tt), by_run);
	int64_t shown_tasks = 0;
	for (size_t i = 0; shown_tasks < top && i < ix->ntasks; i++) {
		/* with detail, a task that only waited or slept is one too */
		if (!tt[i].run && !tt[i].runnable && !tt[i].sleep)
			continue;
		if (shown_tasks++)
			vo_char(b, ',');
		const struct view_task *tk = &ix->tasks[tt[i].idx];
		vo_char(b, '{');
		key_i64(b, "pid", tk->pid);
		vo_char(b, ',');
		key_string_id(b, ix, "comm", tk->comm);
		vo_char(b, ',');
		key_i64(b, "lane", tk->lane);
		vo_char(b, ',');
		key_i64(b, "run", tt[i].run);
		if (detail) {
			vo_char(b, ',');
			key_i64(b, "runnable", tt[i].runnable);
			vo_char(b, ',');
			key_i64(b, "sleep", tt[i].sleep);
		}
		vo_char(b, '}');
	}
	if (detail) {
		vo_str(b, "],\"slices\":[");
		slice_names_json(b, ix, u.names, top);
		free(u.names);
	}

	trawl_summary sum;
	trawl_hist_summary(lat, &sum);
	int64_t max_at = u.max_at;
	if (whole) {
		sum = ix->whole_latency;
		max_at = ix->whole_latency_max_at;
	}
	vo_str(b, "],\"wakeup_latency\":");
	/* with the longest one's switch-in, for the panel's link */
	summary_json(b, &sum, sum.count ? max_at : -1);
	vo_str(b, ",\"irq_over_threshold\":{");
	key_i64(b, "threshold", ix->irq_threshold);
	vo_str(b, ",\"list\":[");
	int64_t shown = 0, count = 0;
	for (size_t i = 0; i < ix->nlongs; i++) {
		const struct view_long_irq *q = &ix->longs[i];
		if (q->end <= from || q->start >= to)
			continue;
		if (count++ >= 200)
			continue;
		if (shown++)
			vo_char(b, ',');
		vo_char(b, '{');
		key_i64(b, "start", q->start);
		vo_char(b, ',');
		key_i64(b, "end", q->end);
		vo_char(b, ',');
		key_i64(b, "duration", q->end - q->start);
		vo_char(b, ',');
		key_i64(b, "cpu", q->cpu);
		vo_str(b, ",\"kind\":\"");
		vo_str(b, q->soft ? "softirq" : "hardirq");
		vo_str(b, "\",");
		key_i64(b, "id", q->id);
		vo_char(b, ',');
		key_string_id(b, ix, "name", q->name);
		vo_char(b, '}');
	}
	vo_str(b, "],");
	key_i64(b, "count", count);
	vo_str(b, "}}\n");
	free(tt);
	trawl_hist_free(lat);
	return 200;
}

int view_api(struct view_index *ix, const char *path,
	     const struct view_params *p, struct view_out *out)
{
	struct req r = {.p = p, .out = out};
	static const struct {
		const char *path;
		int (*fn)(struct view_index *, struct req *);
	} routes[] = {
		{"/api/info", api_info},     {"/api/summary", api_summary},
		{"/api/window", api_window}, {"/api/detail", api_detail},
		{"/api/search", api_search}, {"/api/analysis", api_analysis},
		{"/api/events", api_events},
	};
	int status = 404;
	snprintf(r.why, sizeof(r.why), "no such API: %.60s", path);
	for (size_t i = 0; i < sizeof(routes) / sizeof(*routes); i++)
		if (!strcmp(path, routes[i].path)) {
			status = routes[i].fn(ix, &r);
			break;
		}
	if (status == 503)
		snprintf(r.why, sizeof(r.why), "out of memory");
	if (status == 200 && out->oom) {
		status = 503;
		snprintf(r.why, sizeof(r.why), "out of memory");
	}
	if (status != 200) {
		out->n = 0;
		out->oom = 0;
		vo_str(out, "{\"error\":");
		vo_json(out, r.why, strlen(r.why));
		vo_str(out, "}\n");
	}
	return status;
}
