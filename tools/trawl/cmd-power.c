/* SPDX-License-Identifier: MIT */
/*
 * trawl power: CPU frequency and idle state residency, from
 * trawl_power_new() (lib/analysis/power.c).
 */
#include <getopt.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: trawl power FILE [--json|--csv] [--from T] [--to T] "
		"[--worst N]\n\n"
		"How long each CPU spent at each frequency "
		"(power:cpu_frequency) and in each\nidle state "
		"(power:cpu_idle), and how often it entered them: per CPU and "
		"frequency\nor state, count, min, p50, p90, p99, max of the "
		"intervals, their total and\nthe share of the CPU's known "
		"time; then the longest intervals.\n\n"
		"A state lasts from its event to the CPU's next one (the "
		"event's cpu_id,\nnot the CPU that wrote it), the last to "
		"the end of the trace. \"active\" is\nthe time out of idle "
		"(after cpu_idle state=4294967295). Idle states have the\n"
		"kernel's names (cpuidle's POLL, C1E ...) in files trawl "
		"record wrote, else\n\"state N\". Before a CPU's first event "
		"nothing is counted.\n\n"
		"Record them with: trawl record -e power:cpu_idle -e "
		"power:cpu_frequency ...\n\n"
		"  --json         JSON (integer ns; \"share\" a fraction "
		"of the CPU's time)\n"
		"  --csv          CSV, one table for both parts\n"
		"  --from T, --to T\n"
		"                 only this window (seconds as the trace "
		"shows them, or with a\n"
		"                 unit: ns, us, ms, s)\n"
		"  --worst N      how many of the longest intervals to "
		"list (default 10)\n"
		"  -h, --help     this text\n");
}

int cmd_power(int argc, char **argv)
{
	struct cli_analysis c = {0};
	int status = cli_analysis_parse(&c, argc, argv, "power", help);
	if (status >= 0)
		return status;
	if (c.opts.filter.set &
	    (TRAWL_FILTER_PID | TRAWL_FILTER_PIDS | TRAWL_FILTER_COMM)) {
		cli_error("power: --pid and --comm do not apply: these are "
			  "CPUs' states, not a task's");
		return EXIT_INPUT;
	}
	c.needs_end = 1; /* the last state runs to the trace's last event */
	trawl_trace *t = cli_analysis_open(&c, &status);
	if (!t)
		return status;
	trawl_error err = {0};
	trawl_analysis *a = trawl_power_new(t, &c.opts, &err);
	status = cli_analysis_run(t, a, &err);
	if (status == EXIT_OK) {
		static const struct cli_rows rows[] = {
			{
				.rows_key = "cpus",
				.what = "frequency intervals",
				.id_key = "khz",
				.name_key = "frequency",
				.worst_id_key = "khz",
				.start_label = "from",
				.end_label = "to",
				.cpu = 1,
				.share = 1,
			},
			{
				.rows_key = "cpus",
				.what = "idle and active intervals",
				.id_key = "state",
				.name_key = "name",
				.worst_id_key = "state",
				.start_label = "entered",
				.end_label = "left",
				.cpu = 1,
				.share = 1,
			},
		};
		status = cli_print_results(a, &c, rows, NULL);
	}
	trawl_analysis_free(a);
	trawl_close(t);
	return status;
}
