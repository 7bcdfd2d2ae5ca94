/* SPDX-License-Identifier: MIT */
/*
 * A trace's timeline from C (include/trawl/timeline.h): index it (or load
 * its index from the cache), print what /api/info says of it, and write a
 * chart of its CPU and slice lanes as SVG.
 *
 *   cc timeline-chart.c $(pkg-config --cflags --libs trawl) -o timeline-chart
 *   ./timeline-chart tests/fixtures/tc.dat tc.svg
 */
#include <stdio.h>
#include <stdlib.h>

#include <trawl/trawl.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s TRACE OUT.svg\n", argv[0]);
		return 2;
	}
	trawl_error err;
	trawl_timeline *tl = trawl_timeline_open(argv[1], NULL, &err);
	if (!tl) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	trawl_timeline_info info;
	trawl_timeline_get_info(tl, &info);
	printf("%llu events in %zu lanes, %.6f s .. %.6f s\n",
	       (unsigned long long)info.events, info.lanes, info.first / 1e9,
	       info.last / 1e9);
	/* the viewer's JSON API: lanes=0 leaves the lanes out */
	const char *keys[] = {"lanes"}, *values[] = {"0"};
	char *json;
	size_t len;
	int status = trawl_timeline_query(tl, "/api/info", keys, values, 1,
					  &json, &len);
	printf("/api/info: %d, %zu bytes of JSON\n", status, len);
	free(json);
	trawl_chart_opts co = {.width = 1000};
	FILE *f = fopen(argv[2], "w");
	int rc = !f || trawl_chart_kinds("cpu,slice", &co.kinds, &err) ||
		 trawl_timeline_svg(tl, &co, f, &err);
	if (f && fclose(f))
		rc = 1;
	if (rc)
		fprintf(stderr, "%s: %s\n", argv[2],
			f ? err.msg : "cannot write");
	trawl_timeline_close(tl);
	return rc ? 1 : 0;
}
