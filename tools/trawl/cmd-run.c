/* SPDX-License-Identifier: MIT */
/*
 * trawl run: the script language (docs/script.md) over a trace file. The
 * library compiles and runs the script (include/trawl/script.h); this file
 * reads the program, opens the trace and reports faults.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_SCRIPT (1u << 20)

static void help(FILE *f)
{
	fprintf(f,
		"usage: trawl run SCRIPT.tw FILE [options]\n"
		"       trawl run -e 'PROGRAM' FILE [options]\n\n"
		"Runs a script over every event of a trace, in time order: "
		"probes on events\nwith predicates, variables, maps and "
		"aggregates (count, sum, avg, min, max,\nstats, hist, lhist), "
		"printf. Maps still set are printed at the end.\n"
		"docs/script.md is the reference.\n\n"
		"  trawl run -e 'sched:sched_switch { @[args.prev_comm] = "
		"count(); }' trace.dat\n\n"
		"  -e PROGRAM     the program itself instead of a file\n"
		"  --json         one JSON object at the end: each map by "
		"name (\"@m\") as\n"
		"                 a list of {\"key\", \"value\"}; printf text "
		"under \"output\"\n"
		"  --map-size N   keys per map (default 4096); updates beyond "
		"it are dropped\n"
		"                 and reported\n"
		"  --live         (not yet: record with trawl record, then run "
		"the file)\n" CLI_INPUT_HELP
		"  -h, --help     this text\n\n"
		"Exit status: 0 (also after runtime faults, which are "
		"reported on stderr),\n1 a script that does not compile or a "
		"trace that cannot be read.\n");
}

static char *read_script(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		cli_error("cannot open script %s: %s", path, strerror(errno));
		return NULL;
	}
	char *buf = malloc(MAX_SCRIPT + 1);
	size_t n = buf ? fread(buf, 1, MAX_SCRIPT + 1, f) : 0;
	int bad = !buf || ferror(f);
	if (f != stdin)
		fclose(f);
	if (bad || n > MAX_SCRIPT) {
		cli_error(bad ? "cannot read script %s"
			      : "script %s is larger than 1 MiB",
			  path);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void write_out(void *ctx, const char *buf, size_t len)
{
	(void)ctx;
	fwrite(buf, 1, len, stdout);
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"map-size", required_argument, NULL, 'm'},
		{"live", no_argument, NULL, 'L'},
		CLI_INPUT_LONG_OPTIONS,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cli_input input = {0};
	trawl_script_opts so = {0};
	const char *program = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "he:", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			program = optarg;
			break;
		case 'j':
			so.flags |= TRAWL_SCRIPT_JSON;
			break;
		case 'm': {
			char *end;
			unsigned long long n = strtoull(optarg, &end, 10);
			if (*end || n < 1 || n > 100000000ull) {
				cli_error("--map-size takes a number of keys "
					  "from 1 to 100000000, not '%s'",
					  optarg);
				return EXIT_INPUT;
			}
			so.map_size = (size_t)n;
			break;
		}
		case 'L':
			cli_error("--live is not available yet: record with "
				  "`trawl record -o x.dat`, then `trawl run "
				  "SCRIPT x.dat`");
			return EXIT_INPUT;
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
	int need = program ? 1 : 2;
	if (argc - optind != need) {
		cli_error(
			program ? "run -e PROGRAM needs exactly one FILE; see "
				  "`trawl run --help`"
				: "run needs a SCRIPT and a FILE (or -e "
				  "PROGRAM FILE); see `trawl run --help`");
		return EXIT_INPUT;
	}
	char *text = NULL;
	size_t len;
	if (program) {
		len = strlen(program);
		so.name = "-e";
	} else {
		text = read_script(argv[optind], &len);
		if (!text)
			return EXIT_INPUT;
		program = text;
		so.name = argv[optind++];
	}
	const char *path = argv[optind];
	if (!strcmp(path, "-") && !strcmp(so.name, "-")) {
		cli_error("the script and the trace cannot both be standard "
			  "input");
		free(text);
		return EXIT_INPUT;
	}
	trawl_open_opts o = {0};
	o.flags = input.flags;
	o.threads = input.threads;
	o.window = input.window;
	o.formats = input.formats;
	trawl_error err = {0};
	trawl_trace *t = trawl_open(path, &o, &err);
	if (!t) {
		cli_error("%s", err.msg);
		free(text);
		return EXIT_INPUT;
	}
	so.write = write_out;
	int status = EXIT_OK;
	trawl_script *s = trawl_script_compile(t, program, len, &so, &err);
	if (!s) {
		cli_error("%s", err.msg);
		status = EXIT_INPUT;
		goto out;
	}
	if (trawl_script_run(s, &err) < 0) {
		cli_error("%s", err.msg);
		status = EXIT_INPUT;
	}
	fflush(stdout);
	uint64_t n;
	const char *msg;
	for (size_t i = 0; (msg = trawl_script_fault(s, i, &n)); i++)
		fprintf(stderr, "trawl: warning: %s (%llu time%s)\n", msg,
			(unsigned long long)n, n == 1 ? "" : "s");
out:
	trawl_script_free(s);
	trawl_close(t);
	free(text);
	return status;
}
