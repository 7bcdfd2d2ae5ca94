/* SPDX-License-Identifier: MIT */
/*
 * trawl workqueue: work item execution time and queueing delay per work
 * function (trawl_workqueue_new(), lib/analysis/workqueue.c).
 */
#include <getopt.h>

#include "cli.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: trawl workqueue FILE [--json|--csv] [--pid PID] "
		"[--comm NAME] [--from T]\n"
		"                       [--to T] [--worst N]\n\n"
		"Per work function: execution time (workqueue_execute_start to "
		"_end on the\nsame worker) and, when workqueue_queue_work or "
		"workqueue_activate_work are\ntraced, queueing delay (queued "
		"to "
		"execute_start). --pid and --comm select\nthe worker "
		"(kworker). An end without its start is "
		"counted.\n\n" CLI_ANALYSIS_HELP
		"  -h, --help     this text\n");
}

int cmd_workqueue(int argc, char **argv)
{
	struct cli_analysis c = {0};
	int status = cli_analysis_parse(&c, argc, argv, "workqueue", help);
	if (status >= 0)
		return status;
	trawl_trace *t = cli_analysis_open(&c, &status);
	if (!t)
		return status;
	trawl_error err = {0};
	trawl_analysis *a = trawl_workqueue_new(t, &c.opts, &err);
	status = cli_analysis_run(t, a, &err);
	if (status == EXIT_OK) {
		static const struct cli_rows rows[] = {
			{
				.rows_key = "functions",
				.what = "work items run",
				.name_key = "function",
				.start_label = "execute_start",
				.end_label = "execute_end",
			},
			{
				.rows_key = "functions",
				.what = "work items waited",
				.name_key = "function",
				.start_label = "queued",
				.end_label = "execute_start",
			},
		};
		status = cli_print_results(a, &c, rows, NULL);
	}
	trawl_analysis_free(a);
	trawl_close(t);
	return status;
}
