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
#include "view-http.h"

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
		CHART_PNG_MODULE, TRAWL_MODULE_DIR, TRAWL_CHART_MAX_WIDTH);
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
	struct view_cmd_opts bo = {0};
	trawl_chart_opts co = {.width = 1200, .kinds = TRAWL_CHART_DEFAULT};
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
			if (*end || w < 10 || w > TRAWL_CHART_MAX_WIDTH) {
				cli_error("--width takes 10 .. %d pixels, not "
					  "'%s'",
					  TRAWL_CHART_MAX_WIDTH, optarg);
				return EXIT_INPUT;
			}
			co.width = (int)w;
			break;
		}
		case 'l': {
			trawl_error err = {0};
			if (trawl_chart_kinds(optarg, &co.kinds, &err)) {
				cli_error("--lanes: %s", err.msg);
				return EXIT_INPUT;
			}
			break;
		}
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
	trawl_timeline *tl = NULL;
	int status = view_cmd_open(argv[optind], &bo, &tl);
	if (status)
		return status;
	trawl_timeline_info in;
	trawl_timeline_get_info(tl, &in);
	if (!has_from)
		co.from = in.first;
	if (!has_to)
		co.to = in.last + 1;
	if (co.to <= co.from &&
	    ((has_from && has_to) || (in.events && co.from <= in.last))) {
		cli_error("--to must be after --from");
		trawl_timeline_close(tl);
		return EXIT_INPUT;
	}
	if (!in.events || co.to <= in.first || co.from > in.last) {
		char a[48], b[48];
		cli_error(in.events ? "the window is outside the trace, "
				      "which runs from %s to %s s"
				    : "%s has no events to draw",
			  in.events ? (snprintf(a, sizeof(a), "%.6f",
						in.first / 1e9),
				       a)
				    : argv[optind],
			  (snprintf(b, sizeof(b), "%.6f", in.last / 1e9), b));
		trawl_timeline_close(tl);
		return EXIT_INPUT;
	}
	FILE *f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		cli_error("cannot write %s: %m", out);
		trawl_timeline_close(tl);
		return EXIT_ENV;
	}
	if (png) {
		status = chart_png(ops, tl, &co, f);
	} else {
		trawl_error err = {0};
		if (trawl_timeline_svg(tl, &co, f, &err)) {
			cli_error("cannot write %s: %s", out, err.msg);
			status = EXIT_ENV;
		}
	}
	if ((f != stdout ? fclose(f) : fflush(f)) && !status) {
		cli_error("cannot write %s: %m", out);
		status = EXIT_ENV;
	}
	trawl_timeline_close(tl);
	return status;
}
