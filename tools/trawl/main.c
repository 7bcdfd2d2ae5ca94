/* SPDX-License-Identifier: MIT */
/*
 * trawl: the command. One file per subcommand, dispatched from the table
 * below (trace-cmd's commands[] habit); each returns the exit status.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct command commands[] = {
	{"stats", cmd_stats,
	 "counts per event and CPU, time span, lost events, bad lines"},
	{"report", cmd_report, "every event in delivered (time) order"},
	{"record", cmd_record, "record kernel events into a trace.dat (root)"},
	{"latency", cmd_latency,
	 "wakeup / preemption latency per task (percentiles, worst)"},
	{"irq", cmd_irq, "hardirq / softirq durations, long-handler warnings"},
	{"workqueue", cmd_workqueue,
	 "work item execution time and queueing delay per function"},
	{"slices", cmd_slices,
	 "systrace/atrace B/E slices, S/F async slices, C counters"},
	{"sched", cmd_sched,
	 "run / runnable / sleep time, switches, migrations; CPU busy"},
	{"power", cmd_power,
	 "CPU frequency and idle state residency per CPU"},
	{"export", cmd_export,
	 "write the trace as Perfetto JSON or CSV per event type"},
	{"run", cmd_run, "run a script: probes, maps, aggregates, printf"},
	{"view", cmd_view,
	 "serve the timeline viewer (web, level of detail) on 127.0.0.1"},
	{"chart", cmd_chart, "draw the timeline as a static SVG"},
	{"fleet", cmd_fleet, "run a script over many traces on Dask (Python)"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: trawl <command> [options] FILE\n\n"
		   "Read Linux kernel traces (ftrace text, trace_pipe, Android "
		   "systrace/atrace,\n`trace-cmd report` output; gzip or zstd "
		   "compressed) and get every event\nin one time order.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(f, "\n`trawl <command> --help` tells more. FILE may be - "
		   "for standard input.\n"
		   "`trawl --version` prints the version.\n\n"
		   "Exit status: 0 success, 1 bad input or usage, 2 environment "
		   "(no tracefs,\nnot root, a full disk).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_INPUT;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") ||
	    !strcmp(name, "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(name, "--version")) {
		printf("trawl %s\n", trawl_version());
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	cli_error("unknown command '%s'; run `trawl --help` for the list",
		  name);
	return EXIT_INPUT;
}
