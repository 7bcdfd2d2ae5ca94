/* SPDX-License-Identifier: MIT */
/*
 * trawl stats: what is in a trace. Counts come from the library's own
 * counters, so stats is the cost of reading and ordering and nothing else.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: trawl stats FILE [--json] [--strict] [--threads N]\n\n"
		"Counts events per type and per CPU, the time span, lost and "
		"overwritten\nevents, malformed lines (with the first line "
		"numbers) and events that\narrived out of time order.\n\n"
		"  --json         machine-readable output (times in integer "
		"ns)\n" CLI_INPUT_HELP "  -h, --help     this text\n");
}

struct by_count {
	const char *name;
	uint64_t n;
};

static int cmp_count(const void *a, const void *b)
{
	const struct by_count *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void fields_json(trawl_trace *t, FILE *f);

static void print_json(trawl_trace *t, const char *path)
{
	const trawl_stats *st = trawl_trace_stats(t);
	FILE *f = stdout;
	fputs("{\n  \"file\": ", f);
	json_string(f, path, strlen(path));
	fprintf(f, ",\n  \"format\": \"%s\",\n  \"compression\": \"%s\",\n",
		trawl_format_name(trawl_format(t)), trawl_compression(t));
	/* where the source says what machine recorded it */
	static const char *const host_keys[] = {"hostname", "os_release"};
	for (size_t i = 0; i < 2; i++) {
		const char *v = trawl_trace_host(t, host_keys[i]);
		if (!v)
			continue;
		fprintf(f, "  \"%s\": ", host_keys[i]);
		json_string(f, v, strlen(v));
		fputs(",\n", f);
	}
	fprintf(f, "  \"total_events\": %llu,\n  \"events\": {",
		(unsigned long long)st->events);
	uint32_t nt = trawl_type_count(t);
	int first = 1;
	for (uint32_t i = 0; i < nt; i++) {
		if (!trawl_type_events(t, i))
			continue;
		fputs(first ? "\n    " : ",\n    ", f);
		first = 0;
		const char *n = trawl_type_name(t, i);
		json_string(f, n, strlen(n));
		fprintf(f, ": %llu",
			(unsigned long long)trawl_type_events(t, i));
	}
	fputs(first ? "},\n" : "\n  },\n", f);
	fputs("  \"cpus\": {", f);
	first = 1;
	for (int c = 0; c < trawl_cpu_count(t); c++) {
		uint64_t ev = trawl_cpu_events(t, c),
			 lost = trawl_cpu_lost(t, c);
		if (!ev && !lost)
			continue;
		fprintf(f,
			"%s\"%d\": {\"events\": %llu, \"lost_events\": %llu}",
			first ? "\n    " : ",\n    ", c, (unsigned long long)ev,
			(unsigned long long)lost);
		first = 0;
	}
	fputs(first ? "},\n" : "\n  },\n", f);
	/* a trace.dat's buffers (instances, `trawl record --app` channels)
	 * each lose events of their own */
	fputs("  \"lost_by_buffer\": [", f);
	for (size_t i = 0; i < trawl_lost_places(t); i++) {
		const char *buffer;
		int cpu;
		uint64_t n;
		if (trawl_lost_place(t, i, &buffer, &cpu, &n))
			continue;
		fputs(i ? ",\n    {\"buffer\": " : "\n    {\"buffer\": ", f);
		json_string(f, buffer, strlen(buffer));
		fprintf(f, ", \"cpu\": %d, \"lost_events\": %llu}", cpu,
			(unsigned long long)n);
	}
	fputs(trawl_lost_places(t) ? "\n  ],\n" : "],\n", f);
	fprintf(f,
		"  \"first_time\": %lld,\n  \"last_time\": %lld,\n"
		"  \"span\": %lld,\n  \"lost_events\": %llu,\n"
		"  \"overwritten_events\": %llu,\n  \"bad_lines\": %llu,\n"
		"  \"bad_line_numbers\": [",
		(long long)st->first_time, (long long)st->last_time,
		(long long)(st->last_time - st->first_time),
		(unsigned long long)st->lost_events,
		(unsigned long long)st->overwritten,
		(unsigned long long)st->bad_lines);
	for (uint64_t i = 0; i < st->bad_lines_kept; i++)
		fprintf(f, "%s%llu", i ? ", " : "",
			(unsigned long long)st->bad_line[i]);
	fprintf(f, "],\n");
	fields_json(t, f);
	fprintf(f,
		"  \"reordered_events\": %llu,\n  \"late_events\": %llu,\n"
		"  \"spilled_runs\": %llu,\n  \"skipped_records\": %llu,\n"
		"  \"lines\": %llu,\n  \"bytes\": %llu\n}\n",
		(unsigned long long)st->reordered,
		(unsigned long long)st->late_events,
		(unsigned long long)st->spilled_runs,
		(unsigned long long)st->skipped_records,
		(unsigned long long)st->lines, (unsigned long long)st->bytes);
}

/* How many types are read by their event format, and which are not. */
/* How many types are read by their event format, and which are not. */
/* "fields_by_format": N, "fields_generic": [...], "fields_fallback": [...] */
static void fields_json(trawl_trace *t, FILE *f)
{
	uint32_t nt = trawl_type_count(t), by_format = 0;
	for (uint32_t i = 0; i < nt; i++)
		by_format += trawl_type_events(t, i) &&
			     trawl_type_fields(t, i) == TRAWL_FIELDS_FORMAT;
	fprintf(f, "  \"fields_by_format\": %u,\n", by_format);
	static const char *const keys[] = {"fields_generic", "fields_fallback"};
	for (int k = 0; k < 2; k++) {
		fprintf(f, "  \"%s\": [", keys[k]);
		int first = 1;
		for (uint32_t i = 0; i < nt; i++) {
			if (!trawl_type_events(t, i) ||
			    trawl_type_fields(t, i) != k + 1)
				continue;
			const char *n = trawl_type_name(t, i);
			fputs(first ? "" : ", ", f);
			json_string(f, n, strlen(n));
			first = 0;
		}
		fputs("],\n", f);
	}
}

static void print_fields(trawl_trace *t, FILE *f)
{
	uint32_t nt = trawl_type_count(t), by_format = 0, others = 0;
	for (uint32_t i = 0; i < nt; i++)
		by_format += trawl_type_events(t, i) &&
			     trawl_type_fields(t, i) == TRAWL_FIELDS_FORMAT;
	fprintf(f, "fields:       %u event types by their format", by_format);
	for (uint32_t i = 0; i < nt; i++) {
		int how = trawl_type_fields(t, i);
		if (!trawl_type_events(t, i) || how == TRAWL_FIELDS_FORMAT)
			continue;
		if (others < 6)
			fprintf(f, "%s%s%s", others ? ", " : "; without: ",
				trawl_type_name(t, i),
				how == TRAWL_FIELDS_FALLBACK ? " (not compiled)"
							     : "");
		others++;
	}
	if (others > 6)
		fprintf(f, " and %u more", others - 6);
	fputc('\n', f);
}

static void print_text(trawl_trace *t, const char *path)
{
	const trawl_stats *st = trawl_trace_stats(t);
	FILE *f = stdout;
	fprintf(f, "file:         %s\n", path);
	fprintf(f, "format:       %s%s%s\n", trawl_format_name(trawl_format(t)),
		strcmp(trawl_compression(t), "none") ? ", " : "",
		strcmp(trawl_compression(t), "none") ? trawl_compression(t)
						     : "");
	const char *hostname = trawl_trace_host(t, "hostname");
	const char *release = trawl_trace_host(t, "os_release");
	if (hostname || release)
		fprintf(f, "recorded on:  %s%s%s%s\n", hostname ? hostname : "",
			hostname && release ? ", " : "",
			release ? "kernel " : "", release ? release : "");
	int binary = trawl_format(t) == TRAWL_FORMAT_TRACE_DAT ||
		     trawl_format(t) == TRAWL_FORMAT_PERF_DATA;
	if (binary)
		fprintf(f, "input:        %llu bytes\n",
			(unsigned long long)st->bytes);
	else
		fprintf(f, "input:        %llu lines, %llu bytes\n",
			(unsigned long long)st->lines,
			(unsigned long long)st->bytes);
	fprintf(f, "events:       %llu\n", (unsigned long long)st->events);
	if (st->events) {
		fputs("time:         ", f);
		print_time(f, st->first_time);
		fputs(" .. ", f);
		print_time(f, st->last_time);
		fputs(" (span ", f);
		print_time(f, st->last_time - st->first_time);
		fputs(" s)\n", f);
	}
	fprintf(f, "lost events:  %llu\n", (unsigned long long)st->lost_events);
	if (st->overwritten)
		fprintf(f,
			"overwritten:  %llu (written to the buffer but "
			"overwritten before it was read)\n",
			(unsigned long long)st->overwritten);
	/* trace.dat: damaged pages, records or sections, by file offset */
	fprintf(f, binary ? "damaged:      %llu" : "bad lines:    %llu",
		(unsigned long long)st->bad_lines);
	for (uint64_t i = 0; i < st->bad_lines_kept; i++)
		fprintf(f, "%s%llu",
			i	 ? ", "
			: binary ? " (at offsets "
				 : " (lines ",
			(unsigned long long)st->bad_line[i]);
	uint64_t rest = st->bad_lines - st->bad_lines_kept;
	if (st->bad_lines_kept && rest)
		fprintf(f,
			binary ? "; %llu more in the data of the same CPUs)"
			       : "; %llu more)",
			(unsigned long long)rest);
	else if (st->bad_lines_kept)
		fputs(")", f);
	fputc('\n', f);
	if (st->skipped_records)
		fprintf(f,
			"skipped:      %llu records (not events: maps, "
			"threads, CPU maps, exits, ...)\n",
			(unsigned long long)st->skipped_records);
	if (st->late_events)
		fprintf(f,
			"late:         %llu (came later than --window allowed "
			"and were delivered out of time order)\n",
			(unsigned long long)st->late_events);
	fprintf(f, "reordered:    %llu", (unsigned long long)st->reordered);
	if (st->reordered)
		fprintf(f,
			" (events arrived out of time order and were "
			"sorted%s)",
			st->spilled_runs ? " on disk" : "");
	fputc('\n', f);
	print_fields(t, f);

	uint32_t nt = trawl_type_count(t);
	struct by_count *rows = calloc(nt ? nt : 1, sizeof(*rows));
	if (!rows)
		return;
	size_t nr = 0;
	for (uint32_t i = 0; i < nt; i++)
		if (trawl_type_events(t, i))
			rows[nr++] = (struct by_count){trawl_type_name(t, i),
						       trawl_type_events(t, i)};
	qsort(rows, nr, sizeof(*rows), cmp_count);
	if (nr) {
		fprintf(f, "\n%-32s %12s %7s\n", "event", "count", "share");
		for (size_t i = 0; i < nr; i++)
			fprintf(f, "%-32s %12llu %6.2f%%\n", rows[i].name,
				(unsigned long long)rows[i].n,
				100.0 * (double)rows[i].n / (double)st->events);
	}
	free(rows);
	if (trawl_cpu_count(t)) {
		fprintf(f, "\n%-6s %12s %12s\n", "cpu", "events", "lost");
		for (int c = 0; c < trawl_cpu_count(t); c++) {
			uint64_t ev = trawl_cpu_events(t, c);
			uint64_t lost = trawl_cpu_lost(t, c);
			if (ev || lost)
				fprintf(f, "%-6d %12llu %12llu\n", c,
					(unsigned long long)ev,
					(unsigned long long)lost);
		}
	}
	/* lost in a named buffer (an instance, an application channel):
	 * which buffer, beside the per-CPU sums above */
	int named = 0;
	for (size_t i = 0; i < trawl_lost_places(t); i++) {
		const char *buffer;
		int cpu;
		uint64_t n;
		if (trawl_lost_place(t, i, &buffer, &cpu, &n) || !buffer[0])
			continue;
		if (!named++)
			fprintf(f, "\n%-20s %-6s %12s\n", "lost in buffer",
				"cpu", "lost");
		fprintf(f, "%-20s %-6d %12llu\n", buffer, cpu,
			(unsigned long long)n);
	}
}

int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		CLI_INPUT_LONG_OPTIONS,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int json = 0;
	struct cli_input input = {0};
	int c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
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
		cli_error("stats needs exactly one FILE (or - for standard "
			  "input); see `trawl stats --help`");
		return EXIT_INPUT;
	}
	const char *path = argv[optind];
	int status;
	trawl_trace *t = cli_open(path, &input, &status);
	if (!t)
		return status;
	/* No callbacks: the library counts every event it orders. */
	status = cli_run(t);
	/* Damaged input: what came before the damage is still worth seeing
	 * (the error is already on stderr, and the exit status says it). */
	if (status == EXIT_OK || trawl_trace_stats(t)->events > 0) {
		if (json)
			print_json(t, path);
		else
			print_text(t, path);
	}
	trawl_close(t);
	return status;
}
