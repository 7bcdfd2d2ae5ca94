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
	int raw;    /* --raw: fields as name=value, not the event's text */
	int oom;
	/* events are built here and written OUT_CHUNK bytes at a time
	 * (stdio per character and number was most of the time) */
	struct cli_buf b, scratch;
};

#define OUT_CHUNK (64u << 10)

static int flush_out(struct report *r);

static void help(FILE *f)
{
	fprintf(f, "usage: trawl report FILE [--events LIST] [--raw] "
		   "[--csv|--json] [--strict] [--threads N]\n\n"
		   "Prints every event in time order (equal times in record "
		   "order) with its\nseq (position in the source), time, cpu, "
		   "comm, pid, event and its text as the kernel\nprints it, "
		   "whatever the source (trace.dat or the kernel's text).\n\n"
		   "  --raw          the fields instead: the kernel's field "
		   "names and their\n"
		   "                 values (symbols and flags as numbers), as "
		   "trace-cmd report -R\n"
		   "  --events LIST  only these events: comma-separated names, "
		   "\"sys:name\",\n"
		   "                 \"irq:*\" or globs such as \"sched_*\"\n"
		   "  --csv          CSV with a header row (fields as "
		   "name=value)\n"
		   "  --json         a JSON array of objects (times in integer "
		   "ns; typed field\n"
		   "                 values, \"labels\" of symbolic ones, "
		   "\"display_only\" for the\n"
		   "                 fields the source printed in a form that "
		   "lost the value,\n"
		   "                 and \"text\")\n" CLI_INPUT_HELP
		   "  -h, --help     this text\n");
}

/* The fields as "k=v k=v" (typed values: numbers as numbers, whatever
 * the source printed), or the payload when it has none. */
static void fields_text(struct cli_buf *b, const trawl_event *ev)
{
	size_t n = trawl_event_field_count(ev);
	if (n == 0) {
		size_t len;
		const char *p = trawl_event_payload(ev, &len);
		buf_bytes(b, p, len);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		size_t kl;
		const char *k = trawl_event_field_name(ev, i, &kl);
		if (i)
			buf_char(b, ' ');
		buf_bytes(b, k, kl);
		buf_char(b, '=');
		buf_value(b, ev, i);
	}
}

/* The columns before the event's text, as trace-cmd report shows them:
 * room for them is taken once (a check per number and piece was a fifth
 * of the run). */
static char *put_head(char *o, const trawl_event *ev, const char *inst,
		      size_t il, const char *comm, size_t cl, const char *name,
		      size_t nl, const char *flags)
{
	o = put_int_width(o, (int64_t)trawl_event_seq(ev), 8, ' ');
	*o++ = ' ';
	if (il) { /* an instance of a trace.dat, as trace-cmd shows it */
		memcpy(o, inst, il);
		o += il;
		*o++ = ':';
		*o++ = ' ';
	}
	o = put_time(o, trawl_event_time(ev));
	*o++ = ' ';
	*o++ = '[';
	o = put_int_width(o, trawl_event_cpu(ev), 3, '0');
	*o++ = ']';
	*o++ = ' ';
	memcpy(o, comm, cl);
	o += cl;
	*o++ = '-';
	o = put_i64(o, trawl_event_pid(ev));
	if (trawl_event_tgid(ev) >= 0) {
		*o++ = ' ';
		*o++ = '(';
		o = put_i64(o, trawl_event_tgid(ev));
		*o++ = ')';
	}
	*o++ = ' ';
	if (flags[0]) {
		memcpy(o, flags, 4);
		o += strlen(flags);
	} else {
		*o++ = '-';
	}
	*o++ = ' ';
	memcpy(o, name, nl);
	o += nl;
	*o++ = ':';
	*o++ = ' ';
	return o;
}

/* Bytes put_head() may write besides the strings. */
#define HEAD_ROOM 160

static void text_head(struct cli_buf *b, const trawl_event *ev,
		      const char *comm, const char *name, const char *flags)
{
	const char *inst = trawl_event_buffer(ev);
	size_t il = strlen(inst), cl = strlen(comm), nl = strlen(name);
	char *o = buf_room(b, HEAD_ROOM + il + cl + nl);
	if (o)
		buf_commit(b, put_head(o, ev, inst, il, comm, cl, name, nl,
				       flags));
}

/* The whole line: the columns and the kernel's text of the event, from
 * any source. */
static void text_line(struct cli_buf *b, const trawl_event *ev,
		      const char *comm, const char *name, const char *flags)
{
	size_t len;
	const char *p = trawl_event_payload(ev, &len);
	const char *inst = trawl_event_buffer(ev);
	size_t il = strlen(inst), cl = strlen(comm), nl = strlen(name);
	char *o = buf_room(b, HEAD_ROOM + il + cl + nl + len);
	if (!o)
		return;
	o = put_head(o, ev, inst, il, comm, cl, name, nl, flags);
	memcpy(o, p, len);
	o += len;
	*o++ = '\n';
	buf_commit(b, o);
}

static int on_event(const trawl_event *ev, void *ctx)
{
	struct report *r = ctx;
	struct cli_buf *b = &r->b;
	const char *comm = trawl_event_comm(ev);
	const char *name = trawl_event_name(ev);
	char flags[6];
	flags_string(ev, flags);
	if (r->fmt == OUT_TEXT) {
		if (r->raw) {
			text_head(b, ev, comm, name, flags);
			fields_text(b, ev);
			buf_char(b, '\n');
		} else {
			text_line(b, ev, comm, name, flags);
		}
	} else if (r->fmt == OUT_CSV) {
		buf_u64(b, trawl_event_seq(ev));
		buf_char(b, ',');
		buf_i64(b, trawl_event_time(ev));
		buf_char(b, ',');
		buf_i64(b, trawl_event_cpu(ev));
		buf_char(b, ',');
		buf_i64(b, trawl_event_pid(ev));
		buf_char(b, ',');
		if (trawl_event_tgid(ev) >= 0)
			buf_i64(b, trawl_event_tgid(ev));
		buf_char(b, ',');
		buf_csv(b, comm, strlen(comm));
		buf_char(b, ',');
		buf_str(b, name);
		buf_char(b, ',');
		buf_str(b, flags);
		buf_char(b, ',');
		/* fields as "k=v k=v" in one column */
		r->scratch.n = 0;
		fields_text(&r->scratch, ev);
		if (r->scratch.oom)
			b->oom = 1;
		buf_csv(b, r->scratch.p, r->scratch.n);
		buf_char(b, '\n');
	} else {
		if (r->n)
			buf_bytes(b, ",\n", 2);
		buf_str(b, "{\"seq\":");
		buf_u64(b, trawl_event_seq(ev));
		buf_str(b, ",\"time\":");
		buf_i64(b, trawl_event_time(ev));
		buf_str(b, ",\"cpu\":");
		buf_i64(b, trawl_event_cpu(ev));
		buf_str(b, ",\"pid\":");
		buf_i64(b, trawl_event_pid(ev));
		buf_char(b, ',');
		if (trawl_event_tgid(ev) >= 0) {
			buf_str(b, "\"tgid\":");
			buf_i64(b, trawl_event_tgid(ev));
			buf_char(b, ',');
		}
		buf_str(b, "\"comm\":");
		buf_json(b, comm, strlen(comm));
		buf_str(b, ",\"event\":");
		buf_json(b, name, strlen(name));
		buf_str(b, ",\"system\":");
		const char *sys = trawl_event_system(ev);
		buf_json(b, sys, strlen(sys));
		if (flags[0]) {
			buf_str(b, ",\"flags\":\"");
			buf_str(b, flags);
			buf_char(b, '"');
		}
		const char *inst = trawl_event_buffer(ev);
		if (*inst) {
			buf_str(b, ",\"instance\":");
			buf_json(b, inst, strlen(inst));
		}
		buf_str(b, ",\"fields\":");
		buf_json_fields(b, ev);
		size_t nl;
		const char *notes = trawl_event_field_notes_json(ev, &nl);
		buf_bytes(b, notes, nl);
		/* and the kernel's text of the event, from any source */
		size_t len;
		const char *p = trawl_event_payload(ev, &len);
		buf_str(b, ",\"text\":");
		buf_json(b, p, len);
		buf_char(b, '}');
	}
	r->n++;
	if (b->n >= OUT_CHUNK && flush_out(r))
		return EXIT_INPUT;
	return 0;
}

/*
 * Write what the buffer holds. Return: 0, or -1 when memory ran out or the
 * reader has gone (report | head), which stops the run.
 */
static int flush_out(struct report *r)
{
	if (r->b.oom) {
		r->oom = 1;
		return -1;
	}
	return buf_write(&r->b, r->f) || ferror(r->f) ? -1 : 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{"events", required_argument, NULL, 'e'},
		{"csv", no_argument, NULL, 'c'},
		{"json", no_argument, NULL, 'j'},
		{"raw", no_argument, NULL, 'R'},
		CLI_INPUT_LONG_OPTIONS,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct report r = {.fmt = OUT_TEXT, .f = stdout};
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
		case 'R':
			r.raw = 1;
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
		r.binary = trawl_format(t) == TRAWL_FORMAT_TRACE_DAT ||
			   trawl_format(t) == TRAWL_FORMAT_PERF_DATA;
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
	if (flush_out(&r) && r.oom) {
		cli_error("out of memory while writing the report");
		status = EXIT_ENV;
	}
	buf_free(&r.b);
	buf_free(&r.scratch);
	if (r.fmt == OUT_JSON)
		fputs(r.n ? "\n]\n" : "]\n", stdout);
	const trawl_stats *st = trawl_trace_stats(t);
	if (st->bad_lines && r.binary)
		cli_error("%s: %llu damaged record%s skipped or shown with "
			  "what they hold (first at offset %llu); `trawl "
			  "stats` lists them, --strict stops at the first",
			  path, (unsigned long long)st->bad_lines,
			  st->bad_lines == 1 ? "" : "s",
			  (unsigned long long)st->bad_line[0]);
	else if (st->bad_lines)
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
