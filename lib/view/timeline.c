/* SPDX-License-Identifier: MIT */
/*
 * The public face of the viewer's engine (include/trawl/timeline.h): a
 * trawl_timeline is a struct view_index, built or loaded by view-index.c,
 * queried by view-api.c, drawn by chart-draw.c and view-svg.c.
 */
#include <stdlib.h>
#include <string.h>

#include "view.h"

_Static_assert(TRAWL_CHART_DEFAULT == (~0u & ~(1u << VIEW_LANE_TASK)),
	       "TRAWL_CHART_DEFAULT leaves out the thread states");
_Static_assert(TRAWL_CHART_MAX_WIDTH == VIEW_MAX_WIDTH,
	       "the public widest chart is the index's");

static struct view_index *ix_of(trawl_timeline *tl)
{
	return (struct view_index *)tl;
}

TRAWL_API trawl_timeline *trawl_timeline_open(const char *path,
					      const trawl_timeline_opts *opts,
					      trawl_error *err)
{
	if (!path) {
		tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
			    "trawl_timeline_open: path is NULL");
		return NULL;
	}
	trawl_timeline_opts none = {0};
	if (!opts)
		opts = &none;
	struct view_build_opts o = {
		.open = opts->open,
		.irq_threshold = opts->irq_threshold,
		.no_cache = !!(opts->flags & TRAWL_TIMELINE_NO_CACHE),
		.warn = opts->warn,
		.warn_ctx = opts->warn_ctx};
	struct view_index *ix = NULL;
	if (view_index_build(path, &o, &ix, err))
		return NULL;
	return (trawl_timeline *)ix;
}

TRAWL_API void trawl_timeline_close(trawl_timeline *tl)
{
	view_index_free(ix_of(tl));
}

TRAWL_API void trawl_timeline_get_info(const trawl_timeline *tl,
				       trawl_timeline_info *out)
{
	const struct view_index *ix = (const struct view_index *)tl;
	*out = (trawl_timeline_info){.first = ix->first,
				     .last = ix->last,
				     .events = ix->events,
				     .lost = ix->lost,
				     .lanes = ix->nlanes,
				     .bytes = view_index_bytes(ix),
				     .cached = ix->cached};
}

TRAWL_API void trawl_timeline_follow(trawl_timeline *tl, int following,
				     uint64_t generation)
{
	struct view_index *ix = ix_of(tl);
	atomic_store_explicit(&ix->following, following, memory_order_relaxed);
	ix->generation = generation;
}

TRAWL_API uint64_t trawl_timeline_generation(const trawl_timeline *tl)
{
	return ((const struct view_index *)tl)->generation;
}

TRAWL_API int trawl_timeline_query(trawl_timeline *tl, const char *path,
				   const char *const *keys,
				   const char *const *values, size_t n,
				   char **body, size_t *len)
{
	struct view_params p = {0};
	for (size_t i = 0; i < n; i++)
		if (view_params_add(&p, keys[i], values[i]))
			break;
	struct view_out out = {0};
	int status = view_api(ix_of(tl), path ? path : "", &p, &out);
	vo_char(&out, '\0');
	if (out.oom) {
		/* the answer could not be made whole: a short one that can */
		static const char oom[] = "{\"error\":\"out of memory\"}\n";
		vo_free(&out);
		*body = strdup(oom);
		*len = *body ? sizeof(oom) - 1 : 0;
		return 503;
	}
	*body = out.p;
	*len = out.n - 1;
	return status;
}

TRAWL_API int trawl_chart_kinds(const char *list, unsigned *out,
				trawl_error *err)
{
	unsigned bits = 0;
	const char *s = list ? list : "";
	while (*s) {
		size_t n = strcspn(s, ",");
		if (n == 3 && !strncmp(s, "all", 3)) {
			bits |= (1u << VIEW_LANE_KINDS) - 1;
		} else {
			int k = view_lane_kind_of(s, n);
			if (k < 0)
				return tw_error_at(
					err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
					"no lane kind '%.*s' (cpu, task, "
					"hardirq, softirq, workqueue, slice, "
					"async, counter, marker, lost, all)",
					(int)(n > 64 ? 64 : n), s);
			bits |= 1u << k;
		}
		s += n;
		if (*s == ',')
			s++;
	}
	*out = bits;
	return 0;
}

TRAWL_API int trawl_timeline_svg(trawl_timeline *tl,
				 const trawl_chart_opts *opts, FILE *f,
				 trawl_error *err)
{
	return view_svg(ix_of(tl), opts, f, err);
}

TRAWL_API int trawl_timeline_draw(trawl_timeline *tl,
				  const trawl_chart_opts *opts,
				  trawl_chart_put put, void *ctx,
				  trawl_error *err)
{
	return chart_draw(ix_of(tl), opts, put, ctx, err);
}
