/* SPDX-License-Identifier: MIT */
/*
 * trawl latency wakeup|preempt: scheduling latency per task, from
 * trawl_latency_new() (lib/analysis/latency.c).
 */
#include <getopt.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: trawl latency wakeup|preempt FILE [--json|--csv] "
		"[--pid PID] [--comm NAME]\n"
		"                     [--from T] [--to T] [--worst N]\n\n"
		"wakeup:  from a task's wakeup (sched_waking when traced, else "
		"sched_wakeup or\n"
		"         sched_wakeup_new) to it being switched in, on any "
		"CPU.\n"
		"preempt: from a task switched out while runnable "
		"(prev_state R or R+) to\n"
		"         its next switch-in.\n\n"
		"Per task (pid, comm) and overall: count, min, p50, p90, p99, "
		"max (nearest\nrank; exact up to %d samples per task, then "
		"within 0.4%%), and the worst\ninstances with both timestamps. "
		"Wakeups of a running or already woken task\nstart nothing; "
		"tasks are not assumed anything until seen switching, so a\n"
		"trace that starts mid-way gives no false "
		"latencies.\n\n" CLI_ANALYSIS_HELP
		"  -h, --help     this text\n",
		TRAWL_HIST_EXACT);
}

int cmd_latency(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		help(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_INPUT : EXIT_OK;
	}
	int kind;
	if (!strcmp(argv[1], "wakeup")) {
		kind = TRAWL_LATENCY_WAKEUP;
	} else if (!strcmp(argv[1], "preempt")) {
		kind = TRAWL_LATENCY_PREEMPT;
	} else {
		cli_error("latency measures 'wakeup' or 'preempt', not '%s'; "
			  "see `trawl latency --help`",
			  argv[1]);
		return EXIT_INPUT;
	}
	argc--;
	argv++;
	struct cli_analysis c = {0};
	int status = cli_analysis_parse(&c, argc, argv, "latency", help);
	if (status >= 0)
		return status;
	trawl_trace *t = cli_analysis_open(&c, &status);
	if (!t)
		return status;
	trawl_error err = {0};
	trawl_analysis *a = trawl_latency_new(t, kind, &c.opts, &err);
	status = cli_analysis_run(t, a, &err);
	if (status == EXIT_OK) {
		static const struct cli_rows rows = {
			.rows_key = "tasks",
			.what = "latencies",
			.id_key = "pid",
			.name_key = "comm",
			.worst_id_key = "from_cpu",
			.start_label = "woken / preempted",
			.end_label = "switched in",
		};
		status = cli_print_results(a, &c, &rows, NULL);
	}
	trawl_analysis_free(a);
	trawl_close(t);
	return status;
}
