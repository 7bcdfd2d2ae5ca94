/* SPDX-License-Identifier: MIT */
/*
 * trawl export FILE --to perfetto|csv -o OUT: the trace in another tool's
 * format, written as the run goes (export-perfetto.c, export-csv.c).
 */
#include <getopt.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: trawl export FILE --to perfetto|csv -o OUT "
		"[--all] [--strict] [--threads N]\n\n"
		"--to perfetto  OUT is a Chrome / Perfetto trace-event JSON "
		"file (\"-\" for\n"
		"               standard output; open it in ui.perfetto.dev or "
		"chrome://tracing):\n"
		"               a track per CPU with the running task (from "
		"sched_switch),\n"
		"               hardirq and softirq tracks per CPU, atrace B/E "
		"slices on their\n"
		"               thread, S/F as async slices, C and "
		"cpu_frequency as counters,\n"
		"               every other event as an instant on its "
		"thread. Times in us.\n"
		"--to csv       OUT is a directory (made if missing): "
		"EVENT.csv per event type\n"
		"               with seq,time,cpu,pid,comm and that event's "
		"fields (plus\n"
		"               \"other\" for fields its first event did not "
		"have). Times in ns.\n"
		"               seq is the one order across the files: "
		"rows sorted by seq are\n"
		"               the trace's order, equal times included.\n\n"
		"  -o, --output OUT  where to write\n"
		"      --all         csv: also all.csv, every event in that "
		"order with its fields\n"
		"                    as k=v text (more than doubles what is "
		"written)\n" CLI_INPUT_HELP "  -h, --help        this text\n");
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{"to", required_argument, NULL, 't'},
		{"output", required_argument, NULL, 'o'},
		{"all", no_argument, NULL, 'A'},
		CLI_INPUT_LONG_OPTIONS,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *to = NULL, *out = NULL;
	struct cli_input input = {0};
	int with_all = 0;
	int c;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			to = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'A':
			with_all = 1;
			break;
		case 'h':
			help(stdout);
			return EXIT_OK;
		default:
			switch (cli_input_option(&input, c, optarg)) {
			case 1:
				continue;
			case 0:
				help(stderr);
			}
			return EXIT_INPUT;
		}
	}
	if (optind != argc - 1) {
		cli_error("export needs exactly one FILE (or - for standard "
			  "input); see `trawl export --help`");
		return EXIT_INPUT;
	}
	if (!to || (strcmp(to, "perfetto") && strcmp(to, "csv"))) {
		cli_error("export needs --to perfetto or --to csv%s%s%s",
			  to ? ", not '" : "", to ? to : "", to ? "'" : "");
		return EXIT_INPUT;
	}
	if (!out) {
		cli_error("export needs -o OUT (%s)",
			  strcmp(to, "csv") ? "a file, or - for standard output"
					    : "a directory");
		return EXIT_INPUT;
	}
	if (!strcmp(to, "csv") && !strcmp(out, "-")) {
		cli_error("export --to csv writes a directory of files: -o "
			  "DIR, not standard output");
		return EXIT_INPUT;
	}
	if (with_all && strcmp(to, "csv")) {
		cli_error("--all is for --to csv (all.csv); a Perfetto trace "
			  "holds every event already");
		return EXIT_INPUT;
	}
	int status;
	trawl_trace *t = cli_open(argv[optind], &input, &status);
	if (!t)
		return status;
	if (!strcmp(to, "csv"))
		status = export_csv(t, out, with_all, input.threads);
	else
		status = export_perfetto(t, out, input.threads);
	trawl_close(t);
	return status;
}
