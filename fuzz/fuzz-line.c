/* SPDX-License-Identifier: MIT */
/*
 * The line classifier and the payload decoder, fast: the input is a few
 * lines. Each line is copied into a heap block of exactly its length (so
 * ASan sees any read past its end) and given to tw_ftrace_parse(); event
 * lines become an event (internal struct) whose fields, markers, typed
 * reads and copy are exercised through the public accessors. The parser's
 * results are checked: pointers inside the line, sane cpu/pid/flags, and
 * the same result from the generic parser (the fast path is only a shortcut).
 * tw_text_detect() sees the whole input, and finally the input goes
 * through the public API in TRAWL_OPEN_SOURCE_ORDER, which must count
 * exactly the events, bad lines, lost events and overwritten entries the
 * line-by-line pass saw (unless it is HTML, which hides lines).
 */
#include "fuzz-common.h"
#include "text-int.h"

#define MAX_LINES   8192
#define RESET_EVERY 4096 /* reopen the scratch trace: types pile up */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A trace that never runs: it owns the types, handles and the allocator. */
static trawl_trace *g_t;
static int g_fd = -1;
static unsigned g_uses;
static fz_run g_run;

static void scratch_trace(void)
{
	if (g_t && ++g_uses < RESET_EVERY)
		return;
	if (g_fd < 0)
		g_fd = fz_memfd("", 0);
	FUZZ_CHECK(g_fd >= 0, "memfd");
	trawl_close(g_t);
	trawl_error err;
	(void)lseek(g_fd, 0, SEEK_SET);
	/* the line parser and the generic decoder: no event formats here
	 * (fuzz-pfmt runs the decoding by format) */
	trawl_open_opts go = {.formats = "none"};
	g_t = trawl_open_fd(g_fd, "<line>", &go, &err);
	FUZZ_CHECK(g_t != NULL, "%s", err.msg);
	g_uses = 0;
	memset(&g_run, 0, sizeof(g_run));
	g_run.t = g_t;
	for (int i = 0; i < FZ_H_COUNT; i++) {
		g_run.h[i] = trawl_field_lookup(g_t, fz_handle_spec[i][0],
						fz_handle_spec[i][1]);
		FUZZ_CHECK(g_run.h[i] != NULL, "lookup");
	}
}

static int inside(const char *p, size_t len, const char *b, size_t n)
{
	return p >= b && p <= b + n && len <= (size_t)(b + n - p);
}

/* Expected outcome of the public pass, line by line. */
struct expect {
	uint64_t events, bad, lost, overwritten, reordered;
	uint64_t line[MAX_LINES];
	int64_t ts[MAX_LINES];
};
static struct expect g_x;

static void seek_same_as_decode(const trawl_event *ev);

static void one_event(const char *s, size_t n, const tw_rec *r,
		      uint64_t line_no)
{
	/* The header the parser filled must point into the line. */
	FUZZ_CHECK(inside(r->comm, r->comm_len, s, n), "comm outside");
	int function = r->name_len == 8 && memcmp(r->name, "function", 8) == 0;
	FUZZ_CHECK(function || inside(r->name, r->name_len, s, n),
		   "name outside");
	FUZZ_CHECK(r->name_len > 0, "empty name");
	FUZZ_CHECK(inside(r->payload, r->payload_len, s, n), "payload outside");
	FUZZ_CHECK(r->cpu >= 0 && r->cpu < 65536, "cpu %d", r->cpu);
	FUZZ_CHECK(r->pid >= 0, "pid %d", r->pid);
	FUZZ_CHECK(r->tgid >= -1, "tgid %d", r->tgid);
	FUZZ_CHECK(r->ts >= 0, "negative time %lld", (long long)r->ts);
	FUZZ_CHECK(!(r->flags & TRAWL_FLAG_KNOWN) == (r->preempt < 0),
		   "flags %#x preempt %d", r->flags, r->preempt);

	tw_type *ty = tw_type_get(g_t, r->name, r->name_len);
	FUZZ_CHECK(ty != NULL, "type");
	FUZZ_CHECK(tw_note_cpu(g_t, r->cpu) == 0, "note cpu");

	trawl_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.ts = r->ts;
	ev.seq = line_no;
	ev.line = line_no + 1;
	ev.cpu = r->cpu;
	ev.pid = r->pid;
	ev.tgid = r->tgid;
	ev.flags = r->flags;
	ev.preempt = r->preempt;
	ev.bits = r->bits;
	ev.comm = r->comm;
	ev.comm_len = r->comm_len;
	ev.payload = r->payload;
	ev.payload_len = r->payload_len;
	ev.type = ty;
	ev.t = g_t;
	ev.nfields = -1;

	seek_same_as_decode(&ev);
	uint64_t h = fz_touch(&g_run, &ev);
	FUZZ_CHECK(fz_touch(&g_run, &ev) == h, "second look differs");
	/* Decoded fields point into the payload or at static names. */
	for (int i = 0; i < ev.nfields; i++) {
		const tw_kv *kv = &ev.fields[i];
		FUZZ_CHECK(
			inside(kv->val, kv->vlen, r->payload, r->payload_len) ||
				(kv->vlen == 18 &&
				 memcmp(kv->val, "tracing_mark_write", 18) ==
					 0),
			"field %d value outside the payload", i);
	}
	trawl_event *c = trawl_event_copy(&ev);
	FUZZ_CHECK(c != NULL, "copy");
	FUZZ_CHECK(fz_touch(&g_run, c) == h, "copy differs");
	trawl_event_free(c);
	tw_buf_fini(&g_t->mem, &ev.comm_z);
	tw_buf_fini(&g_t->mem, &ev.str_z);
	tw_buf_fini(&g_t->mem, &ev.payload_z); /* a print's "ip: text" */
	tw_buf_fini(&g_t->mem, &ev.elems_z);
	tw_buf_fini(&g_t->mem, &ev.label_z);
}

/*
 * A read through a handle may go straight to its field (the text reader's
 * seek): it must find what reading the fully decoded fields finds.
 */
static void seek_same_as_decode(const trawl_event *ev)
{
	for (int i = 0; i < FZ_H_COUNT; i++) {
		trawl_event *a = trawl_event_copy(ev);
		trawl_event *b = trawl_event_copy(ev);
		FUZZ_CHECK(a && b, "copy");
		size_t al = 0, bl = 0, pa, pb;
		const char *av = trawl_event_raw(a, g_run.h[i], &al);
		(void)trawl_event_field_count(b); /* decode b in order */
		const char *bv = trawl_event_raw(b, g_run.h[i], &bl);
		const char *ap = trawl_event_payload(a, &pa);
		const char *bp = trawl_event_payload(b, &pb);
		FUZZ_CHECK((av == NULL) == (bv == NULL), "seek: %s %s",
			   fz_handle_spec[i][1], av ? "found" : "missed");
		if (av && av >= ap && av <= ap + pa)
			FUZZ_CHECK(bv >= bp && bv <= bp + pb &&
					   av - ap == bv - bp && al == bl,
				   "seek: %s elsewhere", fz_handle_spec[i][1]);
		trawl_event_free(a);
		trawl_event_free(b);
	}
}

/*
 * The fast path for the kernel's layout must classify exactly as the
 * generic parser does, and the pre-scan must see the same timestamp.
 */
static void same_as_generic(const char *s, size_t n, int k, const tw_rec *r,
			    const tw_line_info *info)
{
	tw_rec g;
	tw_line_info gi;
	memset(&g, 0, sizeof(g));
	memset(&gi, 0, sizeof(gi));
	int gk = tw_ftrace_parse_generic(s, n, &g, &gi);
	FUZZ_CHECK(k == gk, "fast path: kind %d, generic %d", k, gk);
	if (k == TW_L_BAD)
		FUZZ_CHECK(info->col == gi.col && info->why == gi.why,
			   "fast path: bad line column or reason");
	if (k != TW_L_EVENT)
		return;
	FUZZ_CHECK(r->ts == g.ts && r->cpu == g.cpu && r->pid == g.pid &&
			   r->tgid == g.tgid && r->flags == g.flags &&
			   r->preempt == g.preempt && r->bits == g.bits &&
			   r->comm == g.comm && r->comm_len == g.comm_len &&
			   r->name_len == g.name_len &&
			   memcmp(r->name, g.name, g.name_len) == 0 &&
			   r->payload == g.payload &&
			   r->payload_len == g.payload_len,
		   "fast path: header differs");
	tw_rec t;
	FUZZ_CHECK(tw_ftrace_ts(s, n, &t, &gi) == TW_L_EVENT && t.ts == g.ts,
		   "pre-scan: timestamp differs");
}

/* One line as the reader gives it: no '\n', one '\r' trimmed. */
static void one_line(const char *line, size_t n, uint64_t line_no)
{
	if (n > 0 && line[n - 1] == '\r')
		n--;
	char *s = malloc(n ? n : 1);
	FUZZ_CHECK(s != NULL, "malloc");
	memcpy(s, line, n);
	tw_rec r;
	memset(&r, 0xa5, sizeof(r));
	tw_line_info info;
	memset(&info, 0, sizeof(info));
	int k = tw_ftrace_parse(s, n, &r, &info);
	same_as_generic(s, n, k, &r, &info);
	switch (k) {
	case TW_L_EVENT:
		one_event(s, n, &r, line_no);
		if (g_x.events < MAX_LINES) {
			g_x.line[g_x.events] = line_no + 1;
			g_x.ts[g_x.events] = r.ts;
		}
		g_x.events++;
		break;
	case TW_L_BAD:
		FUZZ_CHECK(info.col <= n, "bad column %u of %zu",
			   (unsigned)info.col, n);
		g_x.bad++;
		break;
	case TW_L_LOST:
		FUZZ_CHECK(info.cpu >= 0, "lost cpu %d", info.cpu);
		g_x.lost += info.lost;
		break;
	case TW_L_ENTRIES:
		if (info.written > info.in_buffer)
			g_x.overwritten += info.written - info.in_buffer;
		break;
	case TW_L_SKIP:
		break;
	default:
		FUZZ_CHECK(0, "line kind %d", k);
	}
	free(s);
}

struct public_ctx {
	fz_run run;
	uint64_t n;
	int html; /* lines outside the trace blocks are not events */
};

static int on_public(const trawl_event *ev, void *ctx)
{
	struct public_ctx *p = ctx;
	int rc = fz_on_event(ev, &p->run);
	uint64_t i = p->n++;
	FUZZ_CHECK(trawl_event_seq(ev) == i, "seq %llu, expected %llu",
		   (unsigned long long)trawl_event_seq(ev),
		   (unsigned long long)i);
	if (!p->html && i < MAX_LINES && i < g_x.events) {
		FUZZ_CHECK(trawl_event_line(ev) == g_x.line[i],
			   "event %llu on line %llu, expected %llu",
			   (unsigned long long)i,
			   (unsigned long long)trawl_event_line(ev),
			   (unsigned long long)g_x.line[i]);
		FUZZ_CHECK(trawl_event_time(ev) == g_x.ts[i], "time");
	}
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	scratch_trace();
	memset(&g_x, 0, sizeof(g_x));

	/* Lines, as the reader cuts them. */
	const char *p = (const char *)data, *end = p + size;
	uint64_t line_no = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		one_line(p, n, line_no++);
		p += n + (nl != NULL);
	}
	int64_t max = INT64_MIN;
	for (uint64_t i = 0; i < g_x.events && i < MAX_LINES; i++) {
		if (g_x.ts[i] < max)
			g_x.reordered++;
		else
			max = g_x.ts[i];
	}

	/* Format detection on exactly the input. */
	char *whole = malloc(size ? size : 1);
	FUZZ_CHECK(whole != NULL, "malloc");
	memcpy(whole, data, size);
	int format = -1;
	trawl_error err;
	memset(&err, 0, sizeof(err));
	int drc = tw_text_detect(whole, size, &format, &err, "<line>");
	if (drc)
		fz_check_error(drc, &err);
	else
		FUZZ_CHECK((format >= TRAWL_FORMAT_FTRACE &&
			    format <= TRAWL_FORMAT_TRACE_DAT) ||
				   format == TRAWL_FORMAT_PERF_SCRIPT,
			   "format %d", format);
	free(whole);
	/* trace.dat is binary: fuzz-dat takes it apart, not the lines;
	 * text that reads more as `perf script` output than as ftrace's
	 * goes to its own reader (fuzz-text runs it), not these lines' */
	if (drc == 0 && (format == TRAWL_FORMAT_TRACE_DAT ||
			 format == TRAWL_FORMAT_PERF_SCRIPT))
		return 0;
	/* gzip and zstd magic: the public API reads the decompressed
	 * bytes, not these lines (fuzz-compressed covers that path); perf's
	 * magic: the public API opens a perf.data, which is binary
	 * (fuzz-perf takes it apart) */
	if ((size >= 2 && data[0] == 0x1f && data[1] == 0x8b) ||
	    (size >= 4 && memcmp(data, "\x28\xb5\x2f\xfd", 4) == 0) ||
	    (size >= 8 && memcmp(data, "PERFILE2", 8) == 0))
		return 0;

	/* The public API in source order must agree, line for line. */
	int fd = fz_memfd(data, size);
	FUZZ_CHECK(fd >= 0, "memfd");
	trawl_open_opts o;
	memset(&o, 0, sizeof(o));
	o.flags = TRAWL_OPEN_SOURCE_ORDER;
	o.threads = 1;
	o.formats = "none";
	memset(&err, 0, sizeof(err));
	trawl_trace *t = trawl_open_fd(fd, "<line>", &o, &err);
	if (!t) {
		fz_check_error(-err.code, &err);
		FUZZ_CHECK(drc == -err.code, "detect %d, open %d", drc,
			   -err.code);
		close(fd);
		return 0;
	}
	struct public_ctx pc;
	memset(&pc, 0, sizeof(pc));
	pc.run.t = t;
	pc.run.copy_every = 4;
	for (int i = 0; i < FZ_H_COUNT; i++)
		pc.run.h[i] = trawl_field_lookup(t, fz_handle_spec[i][0],
						 fz_handle_spec[i][1]);
	pc.run.digest = 1469598103934665603ull;
	FUZZ_CHECK(trawl_on(t, "*", on_public, &pc) == 0, "trawl_on");
	int html = trawl_format(t) == TRAWL_FORMAT_SYSTRACE_HTML;
	pc.html = html;
	memset(&err, 0, sizeof(err));
	int rc = trawl_run(t, &err);
	if (rc)
		fz_check_error(rc, &err);
	const trawl_stats *st = trawl_trace_stats(t);
	if (rc == 0 && !html) {
		FUZZ_CHECK(st->events == g_x.events, "events %llu, lines %llu",
			   (unsigned long long)st->events,
			   (unsigned long long)g_x.events);
		FUZZ_CHECK(st->bad_lines == g_x.bad, "bad %llu, lines %llu",
			   (unsigned long long)st->bad_lines,
			   (unsigned long long)g_x.bad);
		FUZZ_CHECK(st->lost_events == g_x.lost, "lost");
		FUZZ_CHECK(st->overwritten == g_x.overwritten, "overwritten");
		if (g_x.events <= MAX_LINES)
			FUZZ_CHECK(st->reordered == g_x.reordered,
				   "reordered %llu, expected %llu",
				   (unsigned long long)st->reordered,
				   (unsigned long long)g_x.reordered);
	}
	fz_keep_release(&pc.run);
	trawl_close(t);
	close(fd);
	return 0;
}
