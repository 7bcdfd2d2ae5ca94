/* SPDX-License-Identifier: MIT */
/*
 * trawl irq: hardirq and softirq handler durations, and a warning for every
 * handler over the threshold (trawl_irq_new(), lib/analysis/irq.c).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: trawl irq FILE [--threshold 1ms] [--json|--csv] "
		"[--pid PID] [--comm NAME]\n"
		"                 [--from T] [--to T] [--worst N]\n\n"
		"Hardirq (irq_handler_entry/exit) and softirq "
		"(softirq_entry/exit) handler\ndurations per irq or vector and "
		"CPU: count, min, p50, p90, p99, max. Every\nhandler longer "
		"than the threshold gets a warning line (JSON: under "
		"\"long\").\n"
		"--pid and --comm select the interrupted task. An exit without "
		"its entry\n(the trace began inside a handler, or events were "
		"lost) is counted.\n\n"
		"  --threshold D  warn about handlers longer than D (default "
		"1ms; units ns,\n"
		"                 us, ms, s; a bare number is "
		"ns)\n" CLI_ANALYSIS_HELP "  -h, --help     this text\n");
}

struct long_list {
	int text; /* print as they come */
	trawl_instance *in;
	const char **kind;
	size_t n, cap;
	int oom;
};

static void on_long(const trawl_instance *in, const char *kind, void *ctx)
{
	struct long_list *l = ctx;
	if (l->text) {
		printf("warning: %s %lld (%s) on cpu %d ran ", kind,
		       (long long)in->id, in->name, in->cpu);
		print_duration(stdout, 0, in->end - in->start);
		fputs(" at ", stdout);
		print_time(stdout, in->start);
		printf(" (interrupted pid %d)\n", in->pid);
		return;
	}
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 64;
		trawl_instance *ni = realloc(l->in, nc * sizeof(*ni));
		if (ni)
			l->in = ni;
		const char **nk = realloc(l->kind, nc * sizeof(*nk));
		if (nk)
			l->kind = nk;
		if (!ni || !nk) {
			l->oom = 1;
			return;
		}
		l->cap = nc;
	}
	l->in[l->n] = *in;
	l->in[l->n].name = strdup(in->name);
	if (!l->in[l->n].name) {
		l->oom = 1;
		return;
	}
	l->kind[l->n++] = kind;
}

int cmd_irq(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_ANALYSIS_LONG_OPTIONS,
		{"threshold", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cli_analysis c = {0};
	trawl_irq_opts io = {0};
	io.threshold = 1000000;
	int o;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (o == 'h') {
			help(stdout);
			return EXIT_OK;
		}
		if (o == 't') {
			if (cli_parse_duration(optarg, &io.threshold) ||
			    io.threshold <= 0) {
				cli_error("--threshold takes a duration such "
					  "as 1ms or 500us, not '%s'",
					  optarg);
				return EXIT_INPUT;
			}
			continue;
		}
		int rc = cli_analysis_option(&c, o, optarg);
		if (rc == 1)
			continue;
		if (rc == 0)
			help(stderr);
		return EXIT_INPUT;
	}
	int status = cli_analysis_args(&c, argc, argv, "irq");
	if (status)
		return status;
	trawl_trace *t = cli_analysis_open(&c, &status);
	if (!t)
		return status;
	struct long_list longs = {.text = !c.json && !c.csv};
	io.base = c.opts;
	io.on_long = on_long;
	io.ctx = &longs;
	trawl_error err = {0};
	trawl_analysis *a = trawl_irq_new(t, &io, &err);
	status = cli_analysis_run(t, a, &err);
	if (status == EXIT_OK && longs.oom) {
		cli_error("out of memory keeping the long handlers");
		status = EXIT_ENV;
	}
	if (status == EXIT_OK) {
		/* "threshold" and "long" go beside "overall" (DESIGN.md). */
		char *extra = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&extra, &len);
		if (m && c.json) {
			fprintf(m,
				"  \"threshold\": %lld,\n  \"long_count\": "
				"%llu,\n  \"long\": [",
				(long long)io.threshold,
				(unsigned long long)trawl_irq_long_count(a));
			for (size_t i = 0; i < longs.n; i++) {
				const trawl_instance *in = &longs.in[i];
				fprintf(m,
					"%s\n    {\"kind\": \"%s\", \"irq\": "
					"%lld, "
					"\"cpu\": %d, \"start\": %lld, "
					"\"end\": "
					"%lld, \"duration\": %lld, \"pid\": "
					"%d, "
					"\"name\": ",
					i ? "," : "", longs.kind[i],
					(long long)in->id, in->cpu,
					(long long)in->start,
					(long long)in->end,
					(long long)(in->end - in->start),
					in->pid);
				json_string(m, in->name, strlen(in->name));
				fputc('}', m);
			}
			fputs(longs.n ? "\n  ],\n" : "],\n", m);
		}
		if (m)
			fclose(m);
		if (!m) {
			cli_error("out of memory");
			status = EXIT_ENV;
		} else {
			static const struct cli_rows rows = {
				.rows_key = "irqs",
				.what = "handler runs",
				.id_key = "irq",
				.name_key = "name",
				.worst_id_key = "irq",
				.start_label = "entry",
				.end_label = "exit",
				.kind = 1,
				.cpu = 1,
			};
			status = cli_print_results(a, &c, &rows,
						   c.json ? extra : NULL);
			if (!c.json && !c.csv)
				printf("\n%llu handler%s over the threshold "
				       "(",
				       (unsigned long long)trawl_irq_long_count(
					       a),
				       trawl_irq_long_count(a) == 1 ? "" : "s");
			if (!c.json && !c.csv) {
				print_duration(stdout, 0, io.threshold);
				puts(")");
			}
		}
		free(extra);
	}
	for (size_t i = 0; i < longs.n; i++)
		free((void *)longs.in[i].name);
	free(longs.in);
	free(longs.kind);
	trawl_analysis_free(a);
	trawl_close(t);
	return status;
}
