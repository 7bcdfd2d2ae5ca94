/* SPDX-License-Identifier: MIT */
/*
 * trawl report: every event in delivered order, as text, CSV or JSON. The
 * order is the library's one time order, and seq lets anyone check it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum out_format { OUT_TEXT, OUT_CSV, OUT_JSON };

struct report {
	enum out_format fmt;
	FILE *f;
	uint64_t n;
	int binary; /* a trace.dat: events carry formatted text too */
};

static void help(FILE *f)
{
	fprintf(f, "usage: trawl report FILE [--events LIST] [--csv|--json] "
		   "[--strict] [--threads N]\n\n"
		   "Prints every event in time order (equal times in record "
		   "order) with its\nseq (position in the source), time, cpu, "
		   "comm, pid, event and fields.\n\n"
		   "  --events LIST  only these events: comma-separated names, "
		   "\"sys:name\",\n"
		   "                 \"irq:*\" or globs such as \"sched_*\"\n"
		   "  --csv          CSV with a header row\n"
		   "  --json         a JSON array of objects (times in integer "
		   "ns)\n" CLI_INPUT_HELP "  -h, --help     this text\n");
}

static void fields_text(FILE *f, const trawl_event *ev)
{
	size_t n = trawl_event_field_count(ev);
	if (n == 0) {
		size_t len;
		const char *p = trawl_event_payload(ev, &len);
		fwrite(p, 1, len, f);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		size_t kl, vl;
		const char *k = trawl_event_field_name(ev, i, &kl);
		const char *v = trawl_event_field_value(ev, i, &vl);
		if (i)
			putc(' ', f);
		fwrite(k, 1, kl, f);
		putc('=', f);
		fwrite(v, 1, vl, f);
	}
}

static int on_event(const trawl_event *ev, void *ctx)
{
	struct report *r = ctx;
	FILE *f = r->f;
	const char *comm = trawl_event_comm(ev);
	char flags[6];
	flags_string(ev, flags);
	if (r->fmt == OUT_TEXT) {
		const char *inst = trawl_event_buffer(ev);
		fprintf(f, "%8llu ", (unsigned long long)trawl_event_seq(ev));
		if (*inst) /* an instance of a trace.dat, as trace-cmd shows */
			fprintf(f, "%s: ", inst);
		print_time(f, trawl_event_time(ev));
		fprintf(f, " [%03d] %s-%d", trawl_event_cpu(ev), comm,
			trawl_event_pid(ev));
		if (trawl_event_tgid(ev) >= 0)
			fprintf(f, " (%d)", trawl_event_tgid(ev));
		fprintf(f, " %s %s: ", flags[0] ? flags : "-",
			trawl_event_name(ev));
		fields_text(f, ev);
		putc('\n', f);
	} else if (r->fmt == OUT_CSV) {
		fprintf(f, "%llu,%lld,%d,%d,",
			(unsigned long long)trawl_event_seq(ev),
			(long long)trawl_event_time(ev), trawl_event_cpu(ev),
			trawl_event_pid(ev));
		if (trawl_event_tgid(ev) >= 0)
			fprintf(f, "%d", trawl_event_tgid(ev));
		putc(',', f);
		csv_field(f, comm, strlen(comm));
		fprintf(f, ",%s,%s,", trawl_event_name(ev), flags);
		/* fields as "k=v k=v" in one column */
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (m) {
			fields_text(m, ev);
			fclose(m);
			csv_field(f, buf, len);
			free(buf);
		}
		putc('\n', f);
	} else {
		fprintf(f,
			"%s{\"seq\":%llu,\"time\":%lld,\"cpu\":%d,\"pid\":%d,",
			r->n ? ",\n" : "",
			(unsigned long long)trawl_event_seq(ev),
			(long long)trawl_event_time(ev), trawl_event_cpu(ev),
			trawl_event_pid(ev));
		if (trawl_event_tgid(ev) >= 0)
			fprintf(f, "\"tgid\":%d,", trawl_event_tgid(ev));
		fputs("\"comm\":", f);
		json_string(f, comm, strlen(comm));
		fprintf(f, ",\"event\":\"%s\",\"system\":\"%s\"",
			trawl_event_name(ev), trawl_event_system(ev));
		if (flags[0])
			fprintf(f, ",\"flags\":\"%s\"", flags);
		const char *inst = trawl_event_buffer(ev);
		if (*inst) {
			fputs(",\"instance\":", f);
			json_string(f, inst, strlen(inst));
		}
		size_t n = trawl_event_field_count(ev);
		fputs(",\"fields\":{", f);
		for (size_t i = 0; i < n; i++) {
			size_t kl, vl;
			const char *k = trawl_event_field_name(ev, i, &kl);
			const char *v = trawl_event_field_value(ev, i, &vl);
			if (i)
				putc(',', f);
			json_string(f, k, kl);
			putc(':', f);
			if (is_json_integer(v, vl))
				fwrite(v, 1, vl, f);
			else
				json_string(f, v, vl);
		}
		putc('}', f);
		/* binary events: also the text their print format makes */
		if (n == 0 || r->binary) {
			size_t len;
			const char *p = trawl_event_payload(ev, &len);
			fputs(",\"text\":", f);
			json_string(f, p, len);
		}
		putc('}', f);
	}
	r->n++;
	/* Stop early when the reader has gone (report | head). */
	if ((r->n & 1023) == 0 && ferror(f))
		return EXIT_INPUT;
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{"events", required_argument, NULL, 'e'},
		{"csv", no_argument, NULL, 'c'},
		{"json", no_argument, NULL, 'j'},
		CLI_INPUT_LONG_OPTIONS,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct report r = {OUT_TEXT, stdout, 0, 0};
	const char *events = "*";
	struct cli_input input = {0};
	int c;
	while ((c = getopt_long(argc, argv, "he:", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			events = optarg;
			break;
		case 'c':
			r.fmt = OUT_CSV;
			break;
		case 'j':
			r.fmt = OUT_JSON;
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
		cli_error("report needs exactly one FILE (or - for standard "
			  "input); see `trawl report --help`");
		return EXIT_INPUT;
	}
	const char *path = argv[optind];
	int status;
	trawl_trace *t = cli_open(path, &input, &status);
	if (t)
		r.binary = trawl_format(t) == TRAWL_FORMAT_TRACE_DAT;
	if (!t)
		return status;
	char *list = strdup(events);
	if (!list) {
		trawl_close(t);
		return EXIT_ENV;
	}
	for (char *save, *tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int rc = trawl_on(t, tok, on_event, &r);
		if (rc) {
			cli_error("bad event pattern '%s': %s", tok,
				  trawl_strerror(rc));
			free(list);
			trawl_close(t);
			return EXIT_INPUT;
		}
	}
	free(list);
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (r.fmt == OUT_CSV)
		fputs("seq,time,cpu,pid,tgid,comm,event,flags,fields\n",
		      stdout);
	else if (r.fmt == OUT_JSON)
		fputs("[\n", stdout);
	status = cli_run(t);
	if (r.fmt == OUT_JSON)
		fputs(r.n ? "\n]\n" : "]\n", stdout);
	const trawl_stats *st = trawl_trace_stats(t);
	if (st->bad_lines)
		cli_error("%s: %llu malformed line%s skipped (first at line "
			  "%llu); `trawl stats` lists them, --strict stops "
			  "at the first",
			  path, (unsigned long long)st->bad_lines,
			  st->bad_lines == 1 ? "" : "s",
			  (unsigned long long)st->bad_line[0]);
	if (st->reordered)
		cli_error("%s: %llu event%s arrived out of time order and "
			  "%s sorted",
			  path, (unsigned long long)st->reordered,
			  st->reordered == 1 ? "" : "s",
			  st->reordered == 1 ? "was" : "were");
	if (st->late_events)
		cli_error("%s: %llu event%s came later than --window allowed "
			  "and %s delivered out of time order; a larger "
			  "window (or none) fixes it",
			  path, (unsigned long long)st->late_events,
			  st->late_events == 1 ? "" : "s",
			  st->late_events == 1 ? "was" : "were");
	trawl_close(t);
	if (fflush(stdout) != 0 && errno != EPIPE)
		return EXIT_INPUT;
	return status;
}
