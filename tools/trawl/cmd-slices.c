/* SPDX-License-Identifier: MIT */
/*
 * trawl slices: Android systrace / atrace B/E slices, S/F async slices and
 * C counters (trawl_slices_new(), lib/analysis/slices.c).
 */
#include <getopt.h>

#include "cli.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: trawl slices FILE [--json|--csv] [--pid TID] [--comm "
		"NAME] [--from T]\n"
		"                    [--to T] [--worst N]\n\n"
		"trace_marker writes in the atrace form: B|pid|name .. E nest "
		"per thread;\nrows per (thread, name) with durations, total "
		"self time (minus direct\nchildren) and the deepest nesting "
		"(0 = top level). S|pid|name|cookie ..\nF|pid|name|cookie are "
		"async slices per (pid, name); C|pid|name|value are\ncounters "
		"(count, min, max, total of the values; the series is in\n"
		"`trawl export`). E without B, F without S and slices still "
		"open at the end\nare counted and shown. An application "
		"channel's slice_begin/slice_end\nand counter (a ring channel "
		"trawl record saved) are the same B, E and "
		"C.\n\n" CLI_ANALYSIS_HELP "  -h, --help     this text\n");
}

int cmd_slices(int argc, char **argv)
{
	struct cli_analysis c = {0};
	int status = cli_analysis_parse(&c, argc, argv, "slices", help);
	if (status >= 0)
		return status;
	trawl_trace *t = cli_analysis_open(&c, &status);
	if (!t)
		return status;
	trawl_error err = {0};
	trawl_analysis *a = trawl_slices_new(t, &c.opts, &err);
	status = cli_analysis_run(t, a, &err);
	if (status == EXIT_OK) {
		static const struct cli_rows rows[] = {
			{
				.rows_key = "slices",
				.what = "slices",
				.id_key = "tid",
				.name_key = "name",
				.worst_id_key = "depth",
				.start_label = "B",
				.end_label = "E",
				.self = 1,
			},
			{
				.rows_key = "slices",
				.what = "async slices",
				.id_key = "pid",
				.name_key = "name",
				.worst_id_key = "cookie",
				.start_label = "S",
				.end_label = "F",
			},
			{
				.rows_key = "counters",
				.what = "counter values",
				.id_key = "pid",
				.name_key = "name",
				.start_label = "",
				.end_label = "",
				.values = 1,
			},
		};
		status = cli_print_results(a, &c, rows, NULL);
	}
	trawl_analysis_free(a);
	trawl_close(t);
	return status;
}
