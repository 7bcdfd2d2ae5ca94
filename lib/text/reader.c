/* SPDX-License-Identifier: MIT */
/*
 * The text reader: recognises the format from the content, walks the lines
 * (unwrapping systrace HTML on the way), classifies each with the shared
 * line parser and counts what is not an event: malformed lines, lost-event
 * notes and overwritten entries.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "../input/input.h"
#include "text-int.h"

#define DETECT_BYTES (64u << 10)

enum html_state {
	HTML_OUTSIDE, /* between trace-data blocks: ignore */
	HTML_START,   /* inside a block, content not yet seen */
	HTML_TRACE,   /* inside an ftrace text block */
	HTML_OTHER,   /* inside a block of something else (JSON): ignore */
};

typedef struct text_reader {
	tw_input *in;
	int html;
	int html_state;
	int strict;
	int threads;
	tw_pipe *pipe; /* parse-ahead thread, mapped files only */
	/* the pipe's current run of lines */
	tw_item *run;
	size_t run_n, run_pos;
	uint64_t run_base;
	/* the last event taken, not yet reported to the input */
	uint64_t unreported_end, unreported_line;
	unsigned unreported;
} text_reader;

static text_reader *rd(const trawl_trace *t)
{
	return t->reader;
}

static const char *find(const char *s, size_t n, const char *lit)
{
	return memmem(s, n, lit, strlen(lit));
}

/*
 * Systrace HTML keeps the trace in <script class="trace-data"> blocks; the
 * ftrace text one is taken, others (JSON) are skipped. Narrows [*s, *n) to
 * the part of the line inside a block; returns 0 when nothing is left.
 */
static int html_line(text_reader *r, const char **s, size_t *n)
{
	if (r->html_state == HTML_OUTSIDE) {
		const char *tag = find(*s, *n, "<script");
		if (!tag || !find(tag, (size_t)(*s + *n - tag), "trace-data"))
			return 0;
		const char *gt = memchr(tag, '>', (size_t)(*s + *n - tag));
		if (!gt)
			return 0;
		r->html_state = HTML_START;
		*n = (size_t)(*s + *n - gt - 1);
		*s = gt + 1;
	}
	const char *end = find(*s, *n, "</script>");
	if (end) {
		*n = (size_t)(end - *s);
		int was = r->html_state;
		r->html_state = HTML_OUTSIDE;
		if (was == HTML_OTHER)
			return 0;
	}
	if (r->html_state == HTML_OTHER)
		return 0;
	if (r->html_state == HTML_START) {
		size_t i = 0;
		while (i < *n && isspace((unsigned char)(*s)[i]))
			i++;
		if (i == *n)
			return 0;
		tw_rec tmp;
		tw_line_info info = {0};
		char c = (*s)[i];
		/* JSON blocks hold quoted trace-like text: never take them. */
		int k = c == '{' || c == '['
				? TW_L_BAD
				: tw_ftrace_parse(*s, *n, &tmp, &info);
		if (c == '#' || k == TW_L_EVENT ||
		    (*n - i >= 6 && memcmp(*s + i, "TRACE:", 6) == 0))
			r->html_state = end ? HTML_OUTSIDE : HTML_TRACE;
		else {
			r->html_state = end ? HTML_OUTSIDE : HTML_OTHER;
			return 0;
		}
	}
	return 1;
}

static int bad_line(trawl_trace *t, text_reader *r, uint64_t line,
		    const char *s, size_t n, const tw_line_info *info,
		    trawl_error *err)
{
	if (!r->strict) {
		tw_note_bad_line(t, line);
		return 0;
	}
	if (!s)
		return tw_error_at(err, TRAWL_EPARSE, 0, t->name, line, 0, 0,
				   "cannot parse line: longer than %u bytes",
				   TW_MAX_LINE);
	char shown[48];
	size_t k = 0;
	for (size_t i = 0; i < n && k + 4 < sizeof(shown); i++)
		shown[k++] = isprint((unsigned char)s[i]) ? s[i] : '?';
	shown[k] = '\0';
	return tw_error_at(err, TRAWL_EPARSE, 0, t->name, line,
			   (uint32_t)info->col + 1, tw_input_offset(r->in),
			   "cannot parse line \"%s%s\": expected %s", shown,
			   k < n ? "..." : "",
			   info->why ? info->why : "an event");
}

/* Counters and errors of one classified line; 1 when it is an event. */
static int apply(trawl_trace *t, text_reader *r, const tw_item *it, int scan,
		 tw_rec *rec, trawl_error *err)
{
	switch (it->kind) {
	case TW_L_EVENT:
		*rec = it->rec;
		return TW_NEXT_EVENT;
	case TW_L_SKIP:
		return 0;
	case TW_L_LOST:
		if (!scan)
			tw_note_lost(t, it->info.cpu, it->info.lost);
		return 0;
	case TW_L_ENTRIES:
		if (!scan && it->info.written > it->info.in_buffer)
			t->stats.overwritten +=
				it->info.written - it->info.in_buffer;
		return 0;
	default:
		if (scan)
			return 0;
		return bad_line(t, r, it->rec.line, it->rec.raw,
				it->rec.raw_len, &it->info, err);
	}
}

/* Events between two reports of the read position to the input. */
#define REPORT_EVERY 64
/* Items ahead whose payload is prefetched. */
#define PAYLOAD_AHEAD 8

/*
 * Items were written on another core: ask for the next ones early, and for
 * the text of an event a few items ahead, which a callback may decode (the
 * worker read only its header). First and last byte of the payload: most
 * span at most two cache lines.
 */
static inline void prefetch_ahead(const text_reader *r)
{
	size_t pos = r->run_pos;
	if (pos + 16 < r->run_n) {
		const char *ahead = (const char *)&r->run[pos + 16];
		__builtin_prefetch(ahead);
		__builtin_prefetch(ahead + 64);
	}
	if (pos + PAYLOAD_AHEAD < r->run_n) {
		const tw_item *ia = &r->run[pos + PAYLOAD_AHEAD];
		if (ia->kind == TW_L_EVENT && ia->rec.payload_len) {
			__builtin_prefetch(ia->rec.payload);
			__builtin_prefetch(ia->rec.payload +
					   ia->rec.payload_len - 1);
		}
	}
}

/*
 * Events tell the input where reading got to only every REPORT_EVERY (it
 * serves progress and giving mapped pages back, both of which may lag);
 * every other line, and the end, tell it at once, so errors name the
 * right offset.
 */
static inline __attribute__((always_inline)) int
next_pipelined(trawl_trace *t, text_reader *r, tw_rec *rec, trawl_error *err)
{
	for (;;) {
		while (r->run_pos < r->run_n) {
			prefetch_ahead(r);
			tw_item *it = &r->run[r->run_pos++];
			it->rec.line += r->run_base;
			if (TW_LIKELY(it->kind == TW_L_EVENT)) {
				r->unreported_end = it->end;
				r->unreported_line = it->rec.line;
				if (++r->unreported == REPORT_EVERY) {
					r->unreported = 0;
					tw_input_consumed(r->in, it->end,
							  it->rec.line);
				}
				*rec = it->rec;
				return TW_NEXT_EVENT;
			}
			r->unreported = 0;
			tw_input_consumed(r->in, it->end, it->rec.line);
			int rc = apply(t, r, it, 0, rec, err);
			if (rc)
				return rc;
		}
		if (!tw_pipe_next_run(r->pipe, &r->run, &r->run_n,
				      &r->run_base)) {
			if (r->unreported)
				tw_input_consumed(r->in, r->unreported_end,
						  r->unreported_line);
			r->unreported = 0;
			r->run_n = r->run_pos = 0;
			return TW_NEXT_EOF;
		}
		r->run_pos = 0;
	}
}

/* Parse-ahead threads pay from a few batches on; small files go alone. */
#define PIPE_MIN_BYTES (2u << 20)

static int next_line(trawl_trace *t, tw_rec *rec, int scan, trawl_error *err);

static int next(trawl_trace *t, tw_rec *rec, int scan, trawl_error *err)
{
	text_reader *r = rd(t);
	if (TW_LIKELY(r->pipe != NULL) && !scan) {
		/* the parse-ahead pipe, line after line */
		int rc = next_pipelined(t, r, rec, err);
		if (rc != TW_NEXT_EOF)
			return rc;
	}
	int rc = next_line(t, rec, scan, err);
	if (rc == TW_NEXT_EOF && !scan) {
		t->stats.bytes = tw_input_offset(rd(t)->in);
		t->stats.lines = tw_input_line_no(rd(t)->in);
	}
	return rc;
}

static int next_line(trawl_trace *t, tw_rec *rec, int scan, trawl_error *err)
{
	text_reader *r = rd(t);
	if (!scan && !r->html && r->threads != 1) {
		size_t len;
		const char *map = tw_input_map(r->in, &len);
		if (map && len >= PIPE_MIN_BYTES && !r->pipe &&
		    tw_input_offset(r->in) == 0)
			r->pipe =
				tw_pipe_start(&t->mem, map, len,
					      r->threads > 0 ? r->threads : 2);
		if (r->pipe)
			return next_pipelined(t, r, rec, err);
	}
	for (;;) {
		const char *s = NULL;
		size_t n;
		int rc = tw_input_line(r->in, &s, &n, err);
		if (rc <= 0)
			return rc;
		tw_item it;
		uint64_t line = tw_input_line_no(r->in);
		if (rc == TW_LINE_TOO_LONG) {
			if (r->html && r->html_state != HTML_TRACE)
				continue;
			it.kind = TW_ITEM_TOO_LONG;
			it.rec.line = line;
			it.rec.raw = NULL;
			it.rec.raw_len = 0;
			it.info.why = NULL;
			it.info.col = 0;
		} else {
			if (r->html && !html_line(r, &s, &n))
				continue;
			tw_classify(s, n, line, &it);
		}
		rc = apply(t, r, &it, scan, rec, err);
		if (rc)
			return rc;
	}
}

static int prescan(trawl_trace *t, int threads, int *sorted, trawl_error *err)
{
	(void)err;
	text_reader *r = rd(t);
	size_t len;
	const char *map = tw_input_map(r->in, &len);
	/* HTML needs its block state, which is sequential. */
	if (!map || r->html)
		return -TRAWL_EUNSUPPORTED;
	return tw_text_prescan_map(map, len, threads, sorted, t->opts.progress,
				   t->opts.progress_ctx);
}

static int rewind_input(trawl_trace *t, trawl_error *err)
{
	text_reader *r = rd(t);
	tw_pipe_stop(r->pipe);
	r->pipe = NULL;
	r->run_n = r->run_pos = 0;
	r->unreported = 0;
	int rc = tw_input_rewind(r->in, err);
	if (rc == 0)
		r->html_state = HTML_OUTSIDE;
	return rc;
}

static int seek_range(trawl_trace *t, int64_t from, int64_t to,
		      trawl_error *err)
{
	(void)err;
	text_reader *r = rd(t);
	if (r->html) /* its block state is sequential */
		return -TRAWL_EUNSUPPORTED;
	return tw_text_seek_range(r->in, from, to);
}

static int reparse(trawl_trace *t, const char *raw, size_t len, tw_rec *rec)
{
	(void)t;
	tw_line_info info = {0};
	if (tw_ftrace_parse(raw, len, rec, &info) != TW_L_EVENT)
		return -TRAWL_EPARSE;
	rec->raw = raw;
	rec->raw_len = (uint32_t)len;
	return TW_NEXT_EVENT;
}

static void type_seen(trawl_trace *t, const tw_rec *rec, tw_type *ty)
{
	text_reader *r = rd(t);
	if (r->pipe)
		tw_pipe_type_seen(r->pipe, rec->name, rec->name_len, ty);
}

static void progress(const trawl_trace *t, uint64_t *done, uint64_t *total)
{
	*done = tw_input_progress(rd(t)->in);
	*total = tw_input_size(rd(t)->in);
}

static void close_reader(trawl_trace *t)
{
	text_reader *r = rd(t);
	if (!r)
		return;
	tw_pipe_stop(r->pipe);
	tw_input_close(r->in);
	tw_free(&t->mem, r);
	t->reader = NULL;
}

static const tw_reader_ops text_ops = {
	.next = next,
	.prescan = prescan,
	.rewind = rewind_input,
	.seek_range = seek_range,
	.reparse = reparse,
	.decode = tw_text_decode,
	.seek = tw_text_seek,
	.type_seen = type_seen,
	.progress = progress,
	.close = close_reader,
};

int tw_text_detect(const char *p, size_t n, int *format, trawl_error *err,
		   const char *name)
{
	if (tw_is_trace_dat(p, n)) {
		*format = TRAWL_FORMAT_TRACE_DAT;
		return 0;
	}
	size_t i = 0;
	if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < n && isspace((unsigned char)p[i]))
		i++;
	if (i == n) {
		*format = TRAWL_FORMAT_FTRACE; /* empty: no events */
		return 0;
	}
	if (n - i >= 5 && (strncasecmp(p + i, "<!doc", 5) == 0 ||
			   strncasecmp(p + i, "<html", 5) == 0)) {
		*format = TRAWL_FORMAT_SYSTRACE_HTML;
		return 0;
	}
	if (n - i >= 6 && memcmp(p + i, "TRACE:", 6) == 0) {
		*format = TRAWL_FORMAT_SYSTRACE;
		return 0;
	}
	if (n - i >= 5 && memcmp(p + i, "cpus=", 5) == 0) {
		*format = TRAWL_FORMAT_TRACE_CMD_REPORT;
		return 0;
	}
	if (tw_perfscript_detect(p + i, n - i)) {
		*format = TRAWL_FORMAT_PERF_SCRIPT;
		return 0;
	}
	/* Look at the lines: an event line decides; a tgid column with
	 * tracing_mark_write markers is what atrace writes. */
	size_t events = 0, binary = 0, padded = 0, latency = 0;
	size_t lines = 0, bad = 0, others = 0, bad_line = 0, bad_at = 0;
	size_t bad_len = 0;
	for (size_t b = i; b < n && events < 64;) {
		const char *nl = memchr(p + b, '\n', n - b);
		size_t e = nl ? (size_t)(nl - p) : n;
		if (!nl && b > i)
			break; /* the cut-off last line proves nothing */
		if (memchr(p + b, '\0', e - b))
			binary++;
		tw_rec r;
		tw_line_info info = {0};
		int kind = tw_ftrace_parse(p + b, e - b, &r, &info);
		lines++;
		if (kind == TW_L_BAD && !bad++) {
			bad_line = lines;
			bad_at = b;
			bad_len = e - b;
		} else if (kind == TW_L_LOST || kind == TW_L_ENTRIES) {
			others++;
		}
		if (kind == TW_L_EVENT) {
			events++;
			/* (function tracer lines name no event in the line) */
			if (r.name < p + b || r.name >= p + e)
				goto next_line;
			const char *after = r.name + r.name_len + 1;
			if (after + 1 < p + e && after[0] == ' ' &&
			    after[1] == ' ')
				padded++;
			if (memchr(p + b, '[', (size_t)(r.name - (p + b))) ==
			    NULL)
				latency++;
		}
	next_line:
		b = e + 1;
	}
	/* Four times more lines that are neither events nor comments than
	 * events: a text file, not a trace (a README opened by mistake, even
	 * one that quotes a few event lines: tests/fixtures/README.md has 377
	 * such lines to 17 events). A trace's damage is the exception among
	 * its lines; only comments, or the buffer's own lines, is an empty
	 * trace. Binary data is said to be binary. */
	if (bad > 4 * (events + others) && !binary &&
	    !memchr(p + i, '\0', n - i)) {
		size_t shown = bad_len > 40 ? 40 : bad_len;
		size_t skipped = 0; /* blank lines before i */
		for (size_t k = 0; k < i; k++)
			skipped += p[k] == '\n';
		return tw_error_at(
			err, TRAWL_EFORMAT, 0, name, 0, 0, 0,
			"not a trace: of its first %zu lines %zu are events "
			"and %zu neither events nor comments (line %zu: "
			"\"%.*s%s\"); give a trace file (ftrace text, "
			"trace_pipe, systrace, trace-cmd report, trace.dat, "
			"perf.data)",
			lines, events, bad, bad_line + skipped, (int)shown,
			p + bad_at, shown < bad_len ? "..." : "");
	}
	if (events == 0) {
		if (binary || memchr(p + i, '\0', n - i))
			return tw_error_at(err, TRAWL_EFORMAT, 0, name, 0, 0, 0,
					   "cannot recognise the format: "
					   "binary data, not a text trace");
		int has_lines = memchr(p + i, '\n', n - i) != NULL;
		if (has_lines && n >= DETECT_BYTES)
			return tw_error_at(err, TRAWL_EFORMAT, 0, name, 0, 0, 0,
					   "cannot recognise the format: no "
					   "ftrace event line in the first "
					   "%u KiB",
					   DETECT_BYTES >> 10);
		*format = TRAWL_FORMAT_FTRACE;
		return 0;
	}
	*format = (padded * 2 > events || latency * 2 > events)
			  ? TRAWL_FORMAT_TRACE_CMD_REPORT
			  : TRAWL_FORMAT_FTRACE;
	return 0;
}

int tw_text_open(trawl_trace *t, struct tw_input *in, trawl_error *err)
{
	text_reader *r = tw_calloc(&t->mem, 1, sizeof(*r));
	if (!r) {
		tw_input_close(in);
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
				   "out of memory");
	}
	t->reader = r;
	t->ops = &text_ops;
	r->strict = (t->opts.flags & TRAWL_OPEN_STRICT) != 0;
	r->threads = t->opts.threads;
	r->in = in;
	const char *p;
	size_t n = DETECT_BYTES;
	int rc = tw_input_peek(r->in, &p, &n, err);
	if (rc)
		return rc;
	rc = tw_text_detect(p, n, &t->format, err, t->name);
	if (rc)
		return rc;
	if (t->format == TRAWL_FORMAT_TRACE_DAT) /* the core sends it on */
		return tw_error_at(err, TRAWL_EMISUSE, 0, t->name, 0, 0, 0,
				   "a trace.dat reached the text reader");
	if (t->format == TRAWL_FORMAT_PERF_SCRIPT) { /* a reader of its own */
		t->reader = NULL;
		tw_free(&t->mem, r);
		return tw_perfscript_open(t, in, err);
	}
	r->html = t->format == TRAWL_FORMAT_SYSTRACE_HTML;
	return tw_textfmt_init(t, err);
}
