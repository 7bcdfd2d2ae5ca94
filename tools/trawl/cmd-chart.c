/* SPDX-License-Identifier: MIT */
/*
 * trawl chart FILE -o OUT.svg|OUT.png: the viewer's timeline as a static
 * SVG (view-svg.c) or PNG (the module chart-png.c, loaded only for it:
 * chart-module.c), from the same index as trawl view and the same drawing
 * (chart-draw.c).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chart-paths.h"
#include "chart.h"
#include "view.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: trawl chart FILE -o OUT.svg|OUT.png [--format svg|png] "
		"[--from T --to T]\n"
		"                   [--width PX] [--lanes LIST]\n\n"
		"Draw the trace's timeline as an SVG or a PNG: the running "
		"task per CPU,\nhardirq and softirq per CPU, workqueue "
		"executions, counters (cpu_frequency,\nsystrace C), markers "
		"and lost events; handlers over the irq threshold are\n"
		"marked red. The SVG's size depends on the width and the "
		"lanes, not on the\nevents; the image is the width and 170 px "
		"of labels wide.\n\n"
		"  -o, --output OUT  where to write it (- for standard "
		"output)\n"
		"  --format svg|png  what to write (default: png when OUT ends "
		"in .png, else svg);\n"
		"                   PNG needs the module %s (cairo),\n"
		"                   looked for in $TRAWL_MODULE_DIR, the "
		"program's directory,\n"
		"                   then %s\n"
		"  --from T         start of the window (trace time in "
		"seconds, or with a unit)\n"
		"  --to T           end of the window\n"
		"  --width PX       width of the timeline in pixels (default "
		"1200, at most %d)\n"
		"  --lanes LIST     comma-separated lane kinds: cpu, task, "
		"hardirq, softirq,\n"
		"                   workqueue, slice, async, counter, "
		"marker, lost, all\n"
		"                   (default: all but task)\n"
		"  --irq-threshold D  mark handlers longer than D (default "
		"1ms)\n" CLI_INPUT_HELP
		"  --no-cache     neither read nor write the index cache "
		"($XDG_CACHE_HOME/trawl,\n"
		"                 else ~/.cache/trawl; a trace indexed before "
		"opens at once)\n"
		"  -h, --help     this text\n",
		CHART_PNG_MODULE, TRAWL_MODULE_DIR, VIEW_MAX_WIDTH);
}

/* "cpu,hardirq" into kind bits. Return: 0, or -1 naming the bad one. */
int view_parse_kinds(const char *s, unsigned *out)
{
	unsigned bits = 0;
	while (*s) {
		size_t n = strcspn(s, ",");
		if (n == 3 && !strncmp(s, "all", 3)) {
			bits |= (1u << VIEW_LANE_KINDS) - 1;
		} else {
			int k = view_lane_kind_of(s, n);
			if (k < 0) {
				cli_error("--lanes: no lane kind '%.*s' (cpu, "
					  "task, hardirq, softirq, workqueue, "
					  "slice, async, counter, marker, "
					  "lost, all)",
					  (int)n, s);
				return -1;
			}
			bits |= 1u << k;
		}
		s += n;
		if (*s == ',')
			s++;
	}
	*out = bits;
	return 0;
}

int cmd_chart(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_INPUT_LONG_OPTIONS,
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'F'},
		{"from", required_argument, NULL, 'f'},
		{"to", required_argument, NULL, 't'},
		{"width", required_argument, NULL, 'w'},
		{"lanes", required_argument, NULL, 'l'},
		{"irq-threshold", required_argument, NULL, 'i'},
		{"no-cache", no_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct view_build_opts bo = {0};
	struct view_chart_opts co = {
		.width = 1200,
		.kinds =
			((1u << VIEW_LANE_KINDS) - 1) & ~(1u << VIEW_LANE_TASK),
	};
	const char *out = NULL;
	int has_from = 0, has_to = 0, o, png = -1;
	optind = 1;
	while ((o = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		char *end;
		switch (o) {
		case 'h':
			help(stdout);
			return EXIT_OK;
		case 'o':
			out = optarg;
			break;
		case 'F':
			if (strcmp(optarg, "svg") && strcmp(optarg, "png")) {
				cli_error("--format takes svg or png, not '%s'",
					  optarg);
				return EXIT_INPUT;
			}
			png = !strcmp(optarg, "png");
			break;
		case 'f':
		case 't':
			if (cli_parse_time(optarg,
					   o == 'f' ? &co.from : &co.to)) {
				cli_error("--%s takes a time such as "
					  "4119.466128 or 20ms, not '%s'",
					  o == 'f' ? "from" : "to", optarg);
				return EXIT_INPUT;
			}
			*(o == 'f' ? &has_from : &has_to) = 1;
			break;
		case 'w': {
			long w = strtol(optarg, &end, 10);
			if (*end || w < 10 || w > VIEW_MAX_WIDTH) {
				cli_error("--width takes 10 .. %d pixels, not "
					  "'%s'",
					  VIEW_MAX_WIDTH, optarg);
				return EXIT_INPUT;
			}
			co.width = (int)w;
			break;
		}
		case 'l':
			if (view_parse_kinds(optarg, &co.kinds))
				return EXIT_INPUT;
			break;
		default: {
			int rc = view_build_option(&bo, o, optarg);
			if (rc == 1)
				break;
			if (rc == 0)
				help(stderr);
			return EXIT_INPUT;
		}
		}
	}
	if (optind + 1 != argc || !out) {
		cli_error(optind + 1 != argc ? "chart takes one FILE"
					     : "chart needs -o OUT.svg or "
					       "-o OUT.png");
		help(stderr);
		return EXIT_INPUT;
	}
	if (png < 0) {
		/* by the name: .png or .svg; another ending (x.jpg) would get
		 * SVG under a name that says otherwise */
		size_t n = strlen(out);
		const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
		png = n > 4 && !strcasecmp(out + n - 4, ".png");
		if (!png && strcmp(out, "-") && dot &&
		    (!slash || dot > slash) && strcasecmp(dot, ".svg")) {
			cli_error("%s: trawl chart writes SVG or PNG, not %s; "
				  "name it .svg or .png, or say --format svg",
				  out, dot + 1);
			return EXIT_INPUT;
		}
	}
	/* before the indexing, which can take a while */
	const struct chart_png_ops *ops = NULL;
	if (png && !(ops = chart_png_load()))
		return EXIT_ENV;
	struct view_index *ix = NULL;
	int status = view_index_build(argv[optind], &bo, &ix);
	if (status)
		return status;
	if (!has_from)
		co.from = ix->first;
	if (!has_to)
		co.to = ix->last + 1;
	if (co.to <= co.from &&
	    ((has_from && has_to) || (ix->events && co.from <= ix->last))) {
		cli_error("--to must be after --from");
		view_index_free(ix);
		return EXIT_INPUT;
	}
	if (!ix->events || co.to <= ix->first || co.from > ix->last) {
		char a[48], b[48];
		cli_error(ix->events ? "the window is outside the trace, "
				       "which runs from %s to %s s"
				     : "%s has no events to draw",
			  ix->events ? (snprintf(a, sizeof(a), "%.6f",
						 ix->first / 1e9),
					a)
				     : argv[optind],
			  (snprintf(b, sizeof(b), "%.6f", ix->last / 1e9), b));
		view_index_free(ix);
		return EXIT_INPUT;
	}
	FILE *f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		cli_error("cannot write %s: %m", out);
		view_index_free(ix);
		return EXIT_ENV;
	}
	status = png ? chart_png(ops, ix, &co, f) : view_svg(ix, &co, f);
	if ((f != stdout ? fclose(f) : fflush(f)) && !status) {
		cli_error("cannot write %s: %m", out);
		status = EXIT_ENV;
	}
	view_index_free(ix);
	return status;
}
