/* SPDX-License-Identifier: MIT */
/*
 * trawl chart -o X.png: the PNG writer's module (chart-png.c,
 * trawl-chart-png.so, which links cairo) found and loaded with dlopen()
 * when a PNG is asked for, and the chart drawn with it. Only then: the
 * program itself does not link cairo, so trawl view, whose memory counts
 * every mapped library, never maps it.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart-paths.h" /* TRAWL_MODULE_DIR, where they are installed */
#include "chart.h"
#include "cli.h"

const struct chart_png_ops *chart_png_load(void)
{
	char dirs[3][PATH_MAX], path[PATH_MAX + 32];
	int n = 0;
	const char *env = getenv("TRAWL_MODULE_DIR");
	if (env && *env)
		snprintf(dirs[n++], PATH_MAX, "%s", env);
	/* a build tree: the module is built beside the program */
	ssize_t len = readlink("/proc/self/exe", dirs[n], PATH_MAX - 1);
	if (len > 0) {
		dirs[n][len] = '\0';
		char *slash = strrchr(dirs[n], '/');
		if (slash) {
			*slash = '\0';
			n++;
		}
	}
	snprintf(dirs[n++], PATH_MAX, "%s", TRAWL_MODULE_DIR);
	for (int i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dirs[i],
			     CHART_PNG_MODULE) >= (int)sizeof(path) ||
		    access(path, F_OK))
			continue;
		/* kept loaded until the program ends */
		void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			cli_error("cannot load the PNG writer %s: %s (it "
				  "needs cairo: apt-get install libcairo2)",
				  path, dlerror());
			return NULL;
		}
		const struct chart_png_ops *ops = dlsym(h, CHART_PNG_SYMBOL);
		if (!ops || ops->abi != TRAWL_CHART_ABI) {
			cli_error("%s is not this trawl's PNG writer (from "
				  "another version?): install trawl again",
				  path);
			dlclose(h);
			return NULL;
		}
		return ops;
	}
	char looked[sizeof(dirs) + 16] = "";
	for (int i = 0; i < n; i++)
		snprintf(looked + strlen(looked),
			 sizeof(looked) - strlen(looked), "%s%s",
			 i ? (i == n - 1 ? " or " : ", ") : "", dirs[i]);
	cli_error("cannot write a PNG: the PNG writer %s is not in %s; "
		  "install trawl with it (building it needs libcairo2-dev), "
		  "or write an SVG",
		  CHART_PNG_MODULE, looked);
	return NULL;
}

struct png {
	const struct chart_png_ops *ops;
	void *canvas;
	char why[256];
};

static int put_part(void *ctx, const trawl_chart_list *dl)
{
	struct png *p = ctx;
	if (!p->canvas &&
	    !(p->canvas = p->ops->open(dl, p->why, sizeof(p->why))))
		return 1;
	return p->ops->draw(p->canvas, dl, p->why, sizeof(p->why)) ? 1 : 0;
}

int chart_png(const struct chart_png_ops *ops, trawl_timeline *tl,
	      const trawl_chart_opts *o, FILE *f)
{
	struct png p = {.ops = ops};
	trawl_error err = {0};
	int rc = trawl_timeline_draw(tl, o, put_part, &p, &err);
	if (p.canvas &&
	    ops->close(p.canvas, rc ? NULL : f, p.why, sizeof(p.why)) && !rc)
		rc = 1;
	if (rc > 0)
		cli_error("cannot draw the PNG: %s", p.why);
	else if (rc < 0)
		cli_error("%s", err.msg);
	return rc ? EXIT_ENV : EXIT_OK;
}
