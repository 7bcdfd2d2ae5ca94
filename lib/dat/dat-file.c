/* SPDX-License-Identifier: MIT */
/*
 * The layout of a trace-cmd trace.dat (trace-cmd.dat.v6(5), .v7(5)): the
 * initial header, then either the v6 sequence (header page and event
 * formats, kallsyms, printk formats, saved cmdlines, options, per-CPU data
 * offsets) or the v7 sections reached through chained OPTIONS sections,
 * possibly compressed. Every read is bounds-checked against the map; a file
 * that lies about an offset or a size gets an error naming the offset.
 *
 * Event formats, the page header format, kallsyms, printk formats and
 * cmdlines go to libtraceevent, which parses the kernel's format language.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <zlib.h>
#include <zstd.h>

#include "../pfmt/pfmt.h"
#include "dat-int.h"
#include "dat-records.h"

/* Options sections that point back to an earlier offset: writers append
 * each section after the last (trace-cmd, trawl's stream file, which adds
 * one per CPU per second while recording), so a chain only goes forward,
 * as long as the file holds sections; a few steps back are let be. */
#define MAX_OPTIONS_BACK  64
#define MAX_SECTION_BYTES (256u << 20) /* decompressed metadata */
#define MAX_BUFFERS	  4096

enum {
	OPT_DONE = 0,
	OPT_CPUSTAT = 2,
	OPT_BUFFER = 3,
	OPT_UNAME = 5, /* "sysname nodename release machine" */
	OPT_OFFSET = 7,
	OPT_TSC2NSEC = 14,
	OPT_HEADER_INFO = 16,
	OPT_FTRACE_EVENTS = 17,
	OPT_EVENT_FORMATS = 18,
	OPT_KALLSYMS = 19,
	OPT_PRINTK = 20,
	OPT_CMDLINES = 21,
	OPT_BUFFER_TEXT = 22,
	OPT_MACHINE = 0x7472, /* trawl's "KEY=VALUE" lines (dat-write.h) */
};

/* More than any machine's cpuidle names: a bigger MACHINE option is
 * hostile and its rest is not kept. */
#define MAX_MACHINE_TEXT (1u << 20)

/* A bounds-checked walk over bytes of the file or of a section. */
typedef struct span_reader {
	const tw_dat_file *f;
	const unsigned char *p;
	size_t n, at;
	uint64_t base; /* file offset of p[0], for messages (0: unknown) */
} span_reader;

static int bad(const tw_dat_file *f, trawl_error *err, uint64_t off,
	       const char *what)
{
	return tw_error_at(err, TRAWL_EFORMAT, 0, f->name, 0, 0, off,
			   "not a readable trace.dat: %s at offset %llu", what,
			   (unsigned long long)off);
}

static int need(span_reader *r, size_t n, trawl_error *err, const char *what)
{
	if (r->n - r->at < n)
		return bad(r->f, err, r->base + r->at, what);
	return 0;
}

static int get_u16(span_reader *r, uint16_t *v, trawl_error *err,
		   const char *what)
{
	*v = 0;
	if (need(r, 2, err, what))
		return -TRAWL_EFORMAT;
	*v = tw_dat_u16(r->f, r->p + r->at);
	r->at += 2;
	return 0;
}

static int get_u32(span_reader *r, uint32_t *v, trawl_error *err,
		   const char *what)
{
	*v = 0;
	if (need(r, 4, err, what))
		return -TRAWL_EFORMAT;
	*v = tw_dat_u32(r->f, r->p + r->at);
	r->at += 4;
	return 0;
}

static int get_u64(span_reader *r, uint64_t *v, trawl_error *err,
		   const char *what)
{
	*v = 0;
	if (need(r, 8, err, what))
		return -TRAWL_EFORMAT;
	*v = tw_dat_u64(r->f, r->p + r->at);
	r->at += 8;
	return 0;
}

/* A NUL-terminated string inside the span. */
static int get_str(span_reader *r, const char **s, trawl_error *err,
		   const char *what)
{
	const unsigned char *z = memchr(r->p + r->at, '\0', r->n - r->at);
	*s = "";
	if (!z)
		return bad(r->f, err, r->base + r->at, what);
	*s = (const char *)(r->p + r->at);
	r->at = (size_t)(z - r->p) + 1;
	return 0;
}

static int get_bytes(span_reader *r, uint64_t n, const char **p,
		     trawl_error *err, const char *what)
{
	*p = (const char *)(r->p + r->at);
	if (n > r->n - r->at)
		return bad(r->f, err, r->base + r->at, what);
	r->at += (size_t)n;
	return 0;
}

int tw_dat_decompress(const tw_dat_file *f, void **dctx, const void *src,
		      size_t n, void *dst, size_t out)
{
	if (f->comp_zstd) {
		/* a context kept for the next chunk: making one per chunk
		 * (ZSTD_decompress) was a fifth of the decompression */
		if (dctx && !*dctx)
			*dctx = ZSTD_createDCtx();
		size_t got = dctx && *dctx ? ZSTD_decompressDCtx(*dctx, dst,
								 out, src, n)
					   : ZSTD_decompress(dst, out, src, n);
		return !ZSTD_isError(got) && got == out ? 0 : -1;
	}
	uLongf got = (uLongf)out;
	if (uncompress(dst, &got, src, (uLong)n) != Z_OK || got != out)
		return -1;
	return 0;
}

void tw_dat_decompress_fini(void *dctx)
{
	ZSTD_freeDCtx(dctx); /* NULL is fine */
}

/*
 * Libtraceevent wants NUL-terminated text; the file's blocks are not.
 * Return: a copy the caller frees, or NULL.
 */
static char *text_copy(const tw_dat_file *f, const char *p, size_t n)
{
	return tw_strndup(f->mem, p, n);
}

/*
 * The page header format ("field: u64 timestamp; offset:0; size:8; ...")
 * says where the commit word and the data start.
 */
static int parse_header_page(tw_dat_file *f, const char *p, size_t n,
			     uint64_t off, trawl_error *err)
{
	char *text = text_copy(f, p, n);
	if (!text)
		return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0, off,
				   "out of memory");
	int have_commit = 0, have_data = 0;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		const char *o = strstr(line, "offset:");
		const char *s = strstr(line, "size:");
		if (!o || !s)
			continue;
		unsigned long ov = strtoul(o + 7, NULL, 10);
		unsigned long sv = strtoul(s + 5, NULL, 10);
		if (strstr(line, " commit;")) {
			f->page.commit_offset = (uint32_t)ov;
			f->page.commit_size = (uint32_t)sv;
			have_commit = 1;
		} else if (strstr(line, " data;")) {
			f->page.data_offset = (uint32_t)ov;
			have_data = 1;
		}
	}
	/* libtraceevent keeps its own copy of the header sizes */
	tep_parse_header_page(f->tep, text, n, f->long_size);
	tw_free(f->mem, text);
	if (!have_commit || !have_data ||
	    (f->page.commit_size != 4 && f->page.commit_size != 8) ||
	    f->page.data_offset < f->page.commit_offset + f->page.commit_size ||
	    f->page.data_offset > 64)
		return bad(f, err, off, "the ring-buffer page header format");
	return 0;
}

/* "header_page\0" size8 text "header_event\0" size8 text */
static int read_header_info(tw_dat_file *f, span_reader *r, trawl_error *err)
{
	const char *tag, *p;
	uint64_t n;
	uint64_t at = r->base + r->at;
	int rc;
	if ((rc = get_str(r, &tag, err, "the header_page tag")))
		return rc;
	if (strcmp(tag, "header_page") != 0)
		return bad(f, err, at, "no header_page tag");
	if ((rc = get_u64(r, &n, err, "the header_page size")) ||
	    (rc = get_bytes(r, n, &p, err, "the header_page format")))
		return rc;
	if ((rc = parse_header_page(f, p, (size_t)n, at, err)))
		return rc;
	at = r->base + r->at;
	if ((rc = get_str(r, &tag, err, "the header_event tag")))
		return rc;
	if (strcmp(tag, "header_event") != 0)
		return bad(f, err, at, "no header_event tag");
	if ((rc = get_u64(r, &n, err, "the header_event size")) ||
	    (rc = get_bytes(r, n, &p, err, "the header_event format")))
		return rc;
	return 0;
}

/* count4, then count times: size8 format-text */
long tw_dat_format_id(const char *p, size_t n)
{
	for (const char *q = p; (q = memmem(q, (size_t)(p + n - q), "ID: ", 4));
	     q += 4) {
		if (q != p && q[-1] != '\n')
			continue;
		long id = 0;
		const char *d = q + 4;
		int digits = 0;
		while (d < p + n && *d >= '0' && *d <= '9' && digits < 9) {
			id = id * 10 + (*d++ - '0');
			digits++;
		}
		return digits ? id : -1;
	}
	return -1;
}

/* fm appended to the formats. */
static int push_format(tw_dat_file *f, tw_dat_format fm, trawl_error *err)
{
	if (f->nformats == f->formats_cap) {
		size_t ncap = f->formats_cap ? 2 * f->formats_cap : 256;
		tw_dat_format *a =
			tw_realloc(f->mem, f->formats, ncap * sizeof(*a));
		if (!a)
			return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0,
					   0, "out of memory");
		f->formats = a;
		f->formats_cap = ncap;
	}
	f->formats[f->nformats++] = fm;
	return 0;
}

/* One format text into the index (by the ID it gives; one without an ID
 * is left out: its events stay unknown, still delivered). */
static int add_format(tw_dat_file *f, const char *system, const char *p,
		      size_t n, uint64_t at, trawl_error *err)
{
	long id = tw_dat_format_id(p, n);
	if (id < 0 || id > TW_DAT_MAX_EVENT_ID)
		return 0;
	return push_format(
		f, (tw_dat_format){(uint32_t)id, system, p, n, NULL, at}, err);
}

/* A format known by name only (a live session's), its text read when
 * asked for (tw_dat_format_load). */
static int add_named(tw_dat_file *f, const char *system, const char *name,
		     trawl_error *err)
{
	return push_format(f, (tw_dat_format){0, system, NULL, 0, name, 0},
			   err);
}

/*
 * count4, then count times: size8 format-text. The texts are indexed by
 * their ID and parsed only when an event of that ID turns up: a file keeps
 * the formats of every event the kernel has, a trace uses a few.
 */
static int read_formats(tw_dat_file *f, span_reader *r, const char *system,
			trawl_error *err)
{
	uint32_t count;
	int rc = get_u32(r, &count, err, "the number of event formats");
	if (rc)
		return rc;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t n;
		const char *p;
		if ((rc = get_u64(r, &n, err, "an event format size")) ||
		    (rc = get_bytes(r, n, &p, err, "an event format")))
			return rc;
		uint64_t at =
			r->base ? r->base +
					  (uint64_t)((const unsigned char *)p -
						     r->p)
				: f->section_off;
		if ((rc = add_format(f, system, p, (size_t)n, at, err)))
			return rc;
	}
	return 0;
}

/* count4, then count times: system\0 count4 (size8 format-text)... */
static int read_event_systems(tw_dat_file *f, span_reader *r, trawl_error *err)
{
	uint32_t nsys;
	int rc = get_u32(r, &nsys, err, "the number of event systems");
	if (rc)
		return rc;
	for (uint32_t i = 0; i < nsys; i++) {
		const char *sys;
		if ((rc = get_str(r, &sys, err, "an event system name")) ||
		    (rc = read_formats(f, r, sys, err)))
			return rc;
	}
	return 0;
}

/* A size-prefixed text block handed to a libtraceevent parser. */
static int read_text_block(tw_dat_file *f, span_reader *r, int size64,
			   int (*parse)(tw_dat_file *, const char *),
			   trawl_error *err, const char *what)
{
	uint64_t n = 0;
	uint32_t n32 = 0;
	const char *p;
	int rc;
	if (size64)
		rc = get_u64(r, &n, err, what);
	else if (!(rc = get_u32(r, &n32, err, what)))
		n = n32;
	if (rc || (rc = get_bytes(r, n, &p, err, what)))
		return rc;
	if (n == 0)
		return 0;
	char *text = text_copy(f, p, (size_t)n);
	if (!text)
		return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0, 0,
				   "out of memory");
	parse(f, text);
	tw_free(f->mem, text);
	return 0;
}

/* trawl's table the first time; libtraceevent's only once asked for
 * (tw_dat_load_tep_kallsyms): its parser, sscanf per line, is seven
 * times the cost of trawl's, and only its own printing and plugins use
 * it. */
static int parse_kallsyms(tw_dat_file *f, const char *s)
{
	if (tw_dat_syms_parse(f, s, strlen(s)))
		return -TRAWL_ENOMEM;
	if (!f->tep_kallsyms_wanted || f->tep_kallsyms_loaded)
		return 0;
	f->tep_kallsyms_loaded = 1;
	return tep_parse_kallsyms(f->tep, s);
}

/* v6: note where the kallsyms block is; it is parsed when first needed. */
static int skip_kallsyms(tw_dat_file *f, span_reader *r, trawl_error *err)
{
	uint32_t n;
	const char *p;
	int rc;
	if ((rc = get_u32(r, &n, err, "the kallsyms size")) ||
	    (rc = get_bytes(r, n, &p, err, "the kallsyms")))
		return rc;
	f->kallsyms_text = p;
	f->kallsyms_len = n;
	return 0;
}

/*
 * libtraceevent's printk format parser trusts its lines; give it only
 * lines of the one shape the kernel writes: 0xADDR : "format".
 */
static int printk_line_ok(const char *s, size_t n)
{
	size_t i = 0;
	if (n < 8 || s[0] != '0' || s[1] != 'x')
		return 0;
	for (i = 2; i < n && isxdigit((unsigned char)s[i]); i++)
		;
	/* two characters at least between the quotes: libtraceevent looks
	 * before the start of a shorter one */
	return i > 2 && n - i >= 7 && memcmp(s + i, " : \"", 4) == 0 &&
	       s[n - 1] == '"';
}

static int parse_printk(tw_dat_file *f, const char *s)
{
	size_t len = strlen(s);
	/* every kept line gets a newline, the last one may not have had one:
	 * up to len + 1 bytes, then the NUL */
	char *clean = tw_malloc(f->mem, len + 2);
	if (!clean)
		return -1;
	size_t out = 0;
	for (const char *line = s; *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		if (printk_line_ok(line, n)) {
			memcpy(clean + out, line, n);
			out += n;
			clean[out++] = '\n';
		}
		line += n + (nl != NULL);
	}
	clean[out] = '\0';
	if (out && !f->strs && tw_dat_strings_parse(f, clean, out)) {
		tw_free(f->mem, clean);
		return -1;
	}
	int rc = out ? tep_parse_printk_formats(f->tep, clean) : 0;
	tw_free(f->mem, clean);
	return rc;
}

static int cmp_cmdline(const void *a, const void *b)
{
	const tw_dat_cmdline *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * "pid comm" lines. trawl keeps its own copy: libtraceevent's table also
 * learns comms while printing (the sched_switch plugin registers them),
 * and an event's comm must not depend on what was printed before it.
 */
int tw_dat_set_comms(tw_dat_file *f, const char *s)
{
	size_t n = 0;
	for (const char *p = s; *p; p++)
		n += *p == '\n';
	/* a later CMDLINES option is the newer list (as in trace-cmd) */
	tw_free(f->mem, f->cmdline_text);
	tw_free(f->mem, f->cmdlines);
	f->ncmdlines = 0;
	f->cmdline_text = tw_strndup(f->mem, s, strlen(s));
	f->cmdlines = tw_calloc(f->mem, n + 1, sizeof(*f->cmdlines));
	if (!f->cmdline_text || !f->cmdlines)
		return -1;
	size_t k = 0;
	for (char *line = f->cmdline_text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *end;
		long pid = strtol(line, &end, 10);
		if (end == line || *end != ' ' || pid < 0 || pid > INT32_MAX ||
		    !end[1] || k > n)
			continue;
		f->cmdlines[k] =
			(tw_dat_cmdline){(int32_t)pid, (uint32_t)k, end + 1};
		k++;
	}
	f->ncmdlines = k;
	if (k > 1)
		qsort(f->cmdlines, k, sizeof(*f->cmdlines), cmp_cmdline);
	return 0;
}

static int parse_cmdlines(tw_dat_file *f, const char *s)
{
	if (tw_dat_set_comms(f, s))
		return -1;
	return tep_parse_saved_cmdlines(f->tep, s);
}

const char *tw_dat_comm(const tw_dat_file *f, int32_t pid)
{
	if (pid == 0)
		return "<idle>";
	size_t lo = 0, hi = f->ncmdlines;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->cmdlines[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* a pid listed twice: the last line is the newer name */
	const char *comm = "<...>";
	for (; lo < f->ncmdlines && f->cmdlines[lo].pid == pid; lo++)
		comm = f->cmdlines[lo].comm;
	return comm;
}

static int add_buffer(tw_dat_file *f, const char *name, const char *clock,
		      uint32_t page_size, uint32_t *index, trawl_error *err)
{
	if (f->nbuffers >= MAX_BUFFERS)
		return bad(f, err, 0, "too many buffers");
	tw_dat_buffer *b =
		tw_realloc(f->mem, f->buffers, (f->nbuffers + 1) * sizeof(*b));
	if (!b)
		goto nomem;
	f->buffers = b;
	b = &f->buffers[f->nbuffers];
	memset(b, 0, sizeof(*b));
	b->name = tw_strndup(f->mem, name, strlen(name));
	b->clock = clock ? tw_strndup(f->mem, clock, strlen(clock)) : NULL;
	b->page_size = page_size;
	*index = (uint32_t)f->nbuffers++;
	if (!b->name || (clock && !b->clock))
		goto nomem;
	return 0;
nomem:
	return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0, 0,
			   "out of memory");
}

static size_t span_slot(const tw_dat_file *f, uint32_t buffer, int32_t cpu)
{
	uint64_t h = ((uint64_t)buffer << 17 ^ (uint32_t)cpu) *
		     0x9e3779b97f4a7c15ull;
	size_t mask = f->span_index_cap - 1;
	for (size_t k = (size_t)(h >> 32) & mask;; k = (k + 1) & mask) {
		uint32_t v = f->span_index[k];
		if (!v || (f->spans[v - 1].buffer == buffer &&
			   f->spans[v - 1].cpu == cpu))
			return k;
	}
}

/* The index of spans by (buffer, cpu), grown to hold one more. */
static int span_index_grow(tw_dat_file *f)
{
	if (2 * (f->nspans + 1) <= f->span_index_cap)
		return 0;
	size_t cap = f->span_index_cap ? 2 * f->span_index_cap : 64;
	uint32_t *a = tw_calloc(f->mem, cap, sizeof(*a));
	if (!a)
		return -1;
	tw_free(f->mem, f->span_index);
	f->span_index = a;
	f->span_index_cap = cap;
	for (size_t i = 0; i < f->nspans; i++)
		a[span_slot(f, f->spans[i].buffer, f->spans[i].cpu)] =
			(uint32_t)i + 1;
	return 0;
}

static int add_span(tw_dat_file *f, uint32_t buffer, int32_t cpu,
		    uint64_t offset, uint64_t size, trawl_error *err)
{
	if (size == 0)
		return 0;
	if (cpu < 0 || cpu >= TW_MAX_CPUS)
		return bad(f, err, offset, "a CPU number out of range");
	if (span_index_grow(f) || f->nspans >= UINT32_MAX - 1)
		return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0, 0,
				   "out of memory");
	size_t slot = span_slot(f, buffer, cpu);
	/*
	 * The same buffer and CPU again (a file written while recording
	 * names its regions again with each batch): one more piece of that
	 * span, unless it is the piece named last.
	 */
	if (f->span_index[slot]) {
		tw_dat_span *x = &f->spans[f->span_index[slot] - 1];
		uint64_t *last_size =
			x->part ? &f->parts[x->part_last - 1].size : &x->size;
		uint64_t last =
			x->part ? f->parts[x->part_last - 1].offset : x->offset;
		if (last == offset) {
			/* the same piece named again, maybe holding more now */
			if (size > *last_size) {
				if (x->part)
					x->size += size - *last_size;
				*last_size = size;
			}
			return 0;
		}
		size_t need = f->nparts + (x->part ? 1 : 2);
		tw_dat_part *p = need < UINT32_MAX
					 ? tw_realloc(f->mem, f->parts,
						      need * sizeof(*p))
					 : NULL;
		if (!p)
			return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0,
					   0, "out of memory");
		f->parts = p;
		if (!x->part) {
			p[f->nparts] = (tw_dat_part){x->offset, x->size, 0};
			x->part = x->part_last = (uint32_t)++f->nparts;
		}
		p[f->nparts] = (tw_dat_part){offset, size, 0};
		p[x->part_last - 1].next = (uint32_t)++f->nparts;
		x->part_last = (uint32_t)f->nparts;
		x->size += size;
		return 0;
	}
	tw_dat_span *s =
		tw_realloc(f->mem, f->spans, (f->nspans + 1) * sizeof(*s));
	if (!s)
		return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0, 0,
				   "out of memory");
	f->spans = s;
	f->spans[f->nspans++] = (tw_dat_span){buffer, cpu, offset, size, 0, 0};
	f->span_index[slot] = (uint32_t)f->nspans;
	return 0;
}

/* "CPU: 0\nentries: 535\noverrun: 0\n...": the overrun counts. */
static void note_cpustat(tw_dat_file *f, const char *p, size_t n)
{
	char *text = text_copy(f, p, n);
	if (!text)
		return;
	const char *o = strstr(text, "\noverrun:");
	if (o)
		f->overrun += strtoull(o + 9, NULL, 10);
	tw_free(f->mem, text);
}

/* v6: at the offset of a BUFFER option, "flyrecord\0" then the CPUs. */
static int read_v6_flyrecord(tw_dat_file *f, span_reader *r, uint32_t buffer,
			     uint32_t cpus, trawl_error *err)
{
	const char *tag;
	uint64_t at = r->base + r->at;
	int rc = get_str(r, &tag, err, "the flyrecord tag");
	if (rc)
		return rc;
	if (strcmp(tag, "latency  ") == 0)
		return tw_error_at(err, TRAWL_EUNSUPPORTED, 0, f->name, 0, 0,
				   at,
				   "this trace.dat holds a latency tracer's "
				   "text, not events; read it with "
				   "`trace-cmd report`");
	if (strcmp(tag, "flyrecord") != 0)
		return bad(f, err, at, "no flyrecord tag");
	for (uint32_t cpu = 0; cpu < cpus; cpu++) {
		uint64_t off, size;
		if ((rc = get_u64(r, &off, err, "a CPU data offset")) ||
		    (rc = get_u64(r, &size, err, "a CPU data size")) ||
		    (rc = add_span(f, buffer, (int32_t)cpu, off, size, err)))
			return rc;
	}
	return 0;
}

/*
 * v7 BUFFER option: offset8 name\0 clock\0 page4 cpus4 (cpu4 off8 size8)...
 */
static int read_v7_buffer(tw_dat_file *f, span_reader *r, trawl_error *err)
{
	uint64_t section;
	const char *name, *clock;
	uint32_t page, cpus, index;
	int rc;
	if ((rc = get_u64(r, &section, err, "a buffer's section")) ||
	    (rc = get_str(r, &name, err, "a buffer name")) ||
	    (rc = get_str(r, &clock, err, "a buffer clock")) ||
	    (rc = get_u32(r, &page, err, "a buffer page size")) ||
	    (rc = get_u32(r, &cpus, err, "a buffer's CPU count")))
		return rc;
	if (page < 64 || page > (1u << 24) || (page & 3))
		return bad(f, err, r->base + r->at - 8,
			   "a buffer page size that cannot be");
	/* A name seen before is the same buffer (batches of one recording;
	 * trace-cmd itself keeps only the last option of a name). */
	for (index = 0; index < f->nbuffers; index++)
		if (!strcmp(f->buffers[index].name, name) &&
		    f->buffers[index].page_size == page)
			break;
	if (index == f->nbuffers &&
	    (rc = add_buffer(f, name, clock, page, &index, err)))
		return rc;
	for (uint32_t i = 0; i < cpus; i++) {
		uint32_t cpu;
		uint64_t off, size;
		if ((rc = get_u32(r, &cpu, err, "a CPU number")) ||
		    (rc = get_u64(r, &off, err, "a CPU data offset")) ||
		    (rc = get_u64(r, &size, err, "a CPU data size")) ||
		    (rc = add_span(f, index, (int32_t)cpu, off, size, err)))
			return rc;
	}
	return 0;
}

static void read_tsc2nsec(tw_dat_file *f, span_reader *r)
{
	uint32_t mult, shift;
	uint64_t off;
	if (get_u32(r, &mult, NULL, "") || get_u32(r, &shift, NULL, "") ||
	    get_u64(r, &off, NULL, "") || shift > 63)
		return;
	f->tsc_mult = mult;
	f->tsc_shift = shift;
	f->tsc_offset = (int64_t)off;
	f->has_tsc2nsec = mult != 0;
}

/*
 * A v7 section by its offset: the 16-byte header, then the data, which a
 * compressed section holds as csize4 usize4 bytes. *owned is set when the
 * data was decompressed into memory the caller frees.
 */
static int load_section(tw_dat_file *f, uint64_t off, uint16_t want,
			span_reader *out, void **owned, trawl_error *err)
{
	*owned = NULL;
	span_reader r = {f, f->map, f->size, 0, 0};
	if (off > f->size || f->size - off < 16)
		return bad(f, err, off, "a section offset past the end");
	r.at = (size_t)off;
	uint16_t id, flags;
	uint32_t desc;
	uint64_t size;
	get_u16(&r, &id, err, "");
	get_u16(&r, &flags, err, "");
	get_u32(&r, &desc, err, "");
	get_u64(&r, &size, err, "");
	if (id != want)
		return bad(f, err, off, "a section of another kind");
	if (size > f->size - r.at)
		return bad(f, err, off, "a section longer than the file");
	*out = (span_reader){f, f->map + r.at, (size_t)size, 0, r.at};
	if (!(flags & 1))
		return 0;
	uint32_t csize, usize;
	int rc;
	if ((rc = get_u32(out, &csize, err, "a compressed section size")) ||
	    (rc = get_u32(out, &usize, err, "a compressed section size")))
		return rc;
	if (csize > out->n - out->at || usize > MAX_SECTION_BYTES)
		return bad(f, err, off, "a compressed section's sizes");
	void *buf = tw_malloc(f->mem, usize ? usize : 1);
	if (!buf)
		return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0, off,
				   "out of memory");
	if (tw_dat_decompress(f, NULL, out->p + out->at, csize, buf, usize)) {
		tw_free(f->mem, buf);
		return tw_error_at(err, TRAWL_EFORMAT, 0, f->name, 0, 0, off,
				   "a compressed section at offset %llu does "
				   "not decompress",
				   (unsigned long long)off);
	}
	*owned = buf;
	/* offsets inside decompressed data have no file position */
	*out = (span_reader){f, buf, usize, 0, 0};
	return 0;
}

static int keep_block(tw_dat_file *f, void *block)
{
	void **a = tw_realloc(f->mem, f->blocks, (f->nblocks + 1) * sizeof(*a));
	if (!a)
		return -1;
	f->blocks = a;
	f->blocks[f->nblocks++] = block;
	return 0;
}

/* Read one metadata section of a v7 file through its option. */
static int read_v7_meta(tw_dat_file *f, uint16_t opt, uint64_t off,
			trawl_error *err)
{
	span_reader r;
	void *owned;
	int rc = load_section(f, off, opt, &r, &owned, err);
	if (rc)
		return rc;
	f->section_off = off;
	switch (opt) {
	case OPT_HEADER_INFO:
		rc = read_header_info(f, &r, err);
		break;
	case OPT_FTRACE_EVENTS:
	case OPT_EVENT_FORMATS:
		/* the format texts are parsed later, from this memory */
		if (owned && keep_block(f, owned)) {
			tw_free(f->mem, owned);
			return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0,
					   off, "out of memory");
		}
		owned = NULL;
		rc = opt == OPT_FTRACE_EVENTS
			     ? read_formats(f, &r, "ftrace", err)
			     : read_event_systems(f, &r, err);
		break;
	case OPT_KALLSYMS:
		rc = read_text_block(f, &r, 0, parse_kallsyms, err,
				     "the kallsyms");
		f->kallsyms_loaded = 1;
		break;
	case OPT_PRINTK:
		rc = read_text_block(f, &r, 0, parse_printk, err,
				     "the printk formats");
		break;
	case OPT_CMDLINES:
		rc = read_text_block(f, &r, 1, parse_cmdlines, err,
				     "the saved cmdlines");
		break;
	}
	tw_free(f->mem, owned);
	/*
	 * Symbols, printk formats and comms only make the text nicer: when
	 * their block is damaged the events are still readable. Count it.
	 */
	if (rc == -TRAWL_EFORMAT &&
	    (opt == OPT_KALLSYMS || opt == OPT_PRINTK || opt == OPT_CMDLINES)) {
		if (!f->meta_damaged++)
			f->meta_damage_off = off;
		rc = 0;
	}
	return rc;
}

/* The machine the recorder ran on, as trace-cmd and trawl record write
 * it (uname's sysname, nodename, release, machine, by spaces). */
static void read_uname(tw_dat_file *f, const char *p, size_t n)
{
	char *out[2] = {f->hostname, f->release};
	size_t at = 0;
	for (int w = 0; w < 3; w++) {
		while (at < n && p[at] == ' ')
			at++;
		size_t s = at;
		while (at < n && p[at] != ' ' && p[at])
			at++;
		if (w == 0)
			continue; /* Linux */
		size_t len = at - s < 64 ? at - s : 64;
		memcpy(out[w - 1], p + s, len);
		out[w - 1][len] = 0;
	}
}

/* The MACHINE option's lines, kept as "KEY=VALUE\0" entries for
 * tw_dat_machine(); several such options add up. */
static void read_machine(tw_dat_file *f, const char *p, size_t n)
{
	if (n > MAX_MACHINE_TEXT - f->machine_len)
		n = MAX_MACHINE_TEXT - f->machine_len;
	char *m = tw_realloc(f->mem, f->machine, f->machine_len + n + 1);
	if (!m)
		return; /* the names are a nicety: reading goes on */
	f->machine = m;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		m[f->machine_len++] = c == '\n' ? '\0' : c;
	}
	m[f->machine_len] = '\0';
}

const char *tw_dat_machine(const tw_dat_file *f, const char *key)
{
	size_t kl = strlen(key);
	const char *p = f->machine, *end = p + f->machine_len;
	for (; p && p < end; p += strlen(p) + 1)
		if (!strncmp(p, key, kl) && p[kl] == '=')
			return p + kl + 1;
	return NULL;
}

/* One option's data; v6 and v7 share the ones both have. */
static int handle_option(tw_dat_file *f, uint16_t id, span_reader *o,
			 uint32_t v6_cpus, int *header_seen, trawl_error *err)
{
	uint64_t off;
	switch (id) {
	case OPT_CPUSTAT:
		note_cpustat(f, (const char *)o->p, o->n);
		return 0;
	case OPT_OFFSET: {
		char buf[32];
		size_t n = o->n < sizeof(buf) - 1 ? o->n : sizeof(buf) - 1;
		memcpy(buf, o->p, n);
		buf[n] = '\0';
		f->ts_offset = strtoll(buf, NULL, 10);
		return 0;
	}
	case OPT_TSC2NSEC:
		read_tsc2nsec(f, o);
		return 0;
	case OPT_UNAME:
		read_uname(f, (const char *)o->p, o->n);
		return 0;
	case OPT_MACHINE:
		read_machine(f, (const char *)o->p, o->n);
		return 0;
	case OPT_BUFFER:
		if (f->version >= 7)
			return read_v7_buffer(f, o, err);
		int rc;
		const char *name;
		uint32_t index;
		if ((rc = get_u64(o, &off, err, "a buffer's offset")) ||
		    (rc = get_str(o, &name, err, "a buffer name")) ||
		    (rc = add_buffer(f, name, NULL, f->page_size, &index, err)))
			return rc;
		if (off > f->size)
			return bad(f, err, off, "a buffer offset past the end");
		span_reader r = {f, f->map, f->size, (size_t)off, 0};
		return read_v6_flyrecord(f, &r, index, v6_cpus, err);
	case OPT_HEADER_INFO:
	case OPT_FTRACE_EVENTS:
	case OPT_EVENT_FORMATS:
	case OPT_KALLSYMS:
	case OPT_PRINTK:
	case OPT_CMDLINES:
		if (f->version < 7 || get_u64(o, &off, err, "a section offset"))
			return f->version < 7 ? 0 : -TRAWL_EFORMAT;
		if (id == OPT_HEADER_INFO)
			*header_seen = 1;
		if (id == OPT_KALLSYMS) {
			/* megabytes of text only names addresses: later */
			f->kallsyms_section = off;
			return 0;
		}
		return read_v7_meta(f, id, off, err);
	default:
		return 0; /* dates, uname, versions: not needed to read */
	}
}

/* A section at off that does not fit in the file: the file was cut. */
static int cut_here(const tw_dat_file *f, uint64_t off)
{
	if (off > f->size || f->size - off < 16)
		return 1;
	return tw_dat_u64(f, f->map + off + 8) > f->size - off - 16;
}

/*
 * One CPU's data in a flyrecord section found by the scan: count4, then
 * chunks while they are in the file. Return: the end of the whole chunks,
 * or 0 when the data runs past the end (its span then says so).
 */
static uint64_t recover_cpu(tw_dat_file *f, uint64_t d, uint64_t end,
			    int32_t cpu, int *cut, trawl_error *err)
{
	uint32_t count = tw_dat_u32(f, f->map + d);
	uint64_t at = d + 4;
	if (count > (end - at) / 8)
		return 0; /* not a chunk count: stop */
	if (!count)
		return at; /* a CPU without data (trawl writes its count) */
	for (uint32_t i = 0; i < count; i++) {
		if (at > f->size || f->size - at < 8 ||
		    tw_dat_u32(f, f->map + at) > f->size - at - 8) {
			/* cut inside this CPU: read to the cut, say so */
			add_span(f, 0, cpu, d, f->size - d - 3, err);
			*cut = 1;
			return 0;
		}
		at += 8 + tw_dat_u32(f, f->map + at);
	}
	if (add_span(f, 0, cpu, d, at - d - 4, err))
		return 0;
	return at;
}

/*
 * The options chain ends past the end of the file (cut short). trace-cmd
 * writes the BUFFER option last, so a cut file keeps its formats but not
 * where the CPU data is: find it. Sections lie back to back after the
 * header; a flyrecord section (compressed) holds each CPU's count4 and
 * chunks, page aligned, in CPU order (a CPU without data has none, so the
 * numbers after it are guesses). A file written while recording keeps its
 * batches' options, and only gets its cut reported.
 */
static int recover_cut(tw_dat_file *f, uint64_t at, trawl_error *err)
{
	uint32_t top = 0;
	if (!f->nbuffers && add_buffer(f, "", NULL, f->page_size, &top, err))
		return -TRAWL_ENOMEM;
	if (f->nspans) {
		/* an empty piece at the end, so the cut is reported */
		for (size_t i = 0; i < f->nspans; i++)
			if (f->spans[i].buffer == 0 && f->spans[i].cpu == 0)
				return add_span(f, 0, 0, f->size, 1, err);
		return add_span(f, 0, 0, f->size, 1, err);
	}
	uint64_t ps = f->page_size;
	int cut = 0;
	while (at <= f->size && f->size - at >= 16 && f->compressed) {
		uint16_t id = tw_dat_u16(f, f->map + at);
		uint16_t flags = tw_dat_u16(f, f->map + at + 2);
		uint64_t size = tw_dat_u64(f, f->map + at + 8);
		if (id > 64 || size > UINT64_MAX / 2)
			break; /* not a section: the scan is lost */
		uint64_t end = at + 16 + size; /* as written; maybe cut */
		if (id == 3 && (flags & 1)) {
			uint64_t d = (at + 16 + ps - 1) / ps * ps;
			for (int32_t cpu = 0; cpu < TW_MAX_CPUS && !cut;
			     cpu++) {
				if (d >= f->size || f->size - d < 4 || d >= end)
					break;
				uint64_t e =
					recover_cpu(f, d, end, cpu, &cut, err);
				if (!e)
					break;
				d = (e + ps - 1) / ps * ps;
			}
			f->recovered = 1;
		}
		if (end >= f->size)
			break;
		at = end;
	}
	/* cut between two CPUs' data: the cut is still said */
	if (f->nspans && !cut)
		return add_span(f, 0, 0, f->size, 1, err);
	if (!f->nspans)
		return tw_error_at(err, TRAWL_EFORMAT, 0, f->name, 0, 0,
				   f->cut_at,
				   "not a readable trace.dat: the file is cut "
				   "short: the options at offset %llu are past "
				   "its end (%zu bytes), and no whole CPU data "
				   "is left before the cut",
				   (unsigned long long)f->cut_at, f->size);
	return 0;
}

static int read_v7(tw_dat_file *f, span_reader *r, trawl_error *err)
{
	const char *comp, *comp_version;
	uint64_t off;
	int rc;
	if ((rc = get_str(r, &comp, err, "the compression name")) ||
	    (rc = get_str(r, &comp_version, err, "the compression version")) ||
	    (rc = get_u64(r, &off, err, "the first options offset")))
		return rc;
	f->comp_name = tw_strndup(f->mem, comp, strlen(comp));
	if (!f->comp_name)
		return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0, 0,
				   "out of memory");
	if (strcmp(comp, "none") != 0) {
		f->compressed = 1;
		if (strcmp(comp, "zstd") == 0)
			f->comp_zstd = 1;
		else if (strcmp(comp, "zlib") != 0)
			return tw_error_at(err, TRAWL_EUNSUPPORTED, 0, f->name,
					   0, 0, 0,
					   "this trace.dat is compressed with "
					   "\"%s\", which trawl cannot "
					   "decompress; convert it with "
					   "`trace-cmd convert --compression "
					   "zstd`",
					   comp);
	}
	int header_seen = 0;
	uint64_t first_section = r->at;
	int back = 0;
	for (uint64_t sections = 0; off; sections++) {
		span_reader s;
		void *owned;
		if (cut_here(f, off)) {
			if (!sections)
				return tw_error_at(
					err, TRAWL_EFORMAT, 0, f->name, 0, 0,
					off,
					"not a readable trace.dat: the file "
					"is cut short (%zu bytes) before its "
					"first options section at offset %llu "
					"(it says where formats and data are)",
					f->size, (unsigned long long)off);
			/* the rest of the chain is gone, or (a file being
			 * written) not yet there when it was mapped */
			if (!f->growing)
				f->cut_at = off;
			break;
		}
		if ((rc = load_section(f, off, 0, &s, &owned, err)))
			return rc;
		uint64_t next = 0;
		for (;;) {
			uint16_t id;
			uint32_t size;
			const char *p;
			if ((rc = get_u16(&s, &id, err, "an option id")) ||
			    (rc = get_u32(&s, &size, err, "an option size")) ||
			    (rc = get_bytes(&s, size, &p, err, "an option")))
				break;
			span_reader o = {f, (const unsigned char *)p, size, 0,
					 s.base ? s.base + s.at - size : 0};
			if (id == OPT_DONE) {
				if (size < 8) {
					rc = bad(f, err, o.base,
						 "a short DONE option");
					break;
				}
				next = tw_dat_u64(f, p);
				break;
			}
			if (id == OPT_BUFFER_TEXT)
				rc = tw_error_at(err, TRAWL_EUNSUPPORTED, 0,
						 f->name, 0, 0, o.base,
						 "this trace.dat holds a "
						 "latency tracer's text, not "
						 "events; read it with "
						 "`trace-cmd report`");
			else
				rc = handle_option(f, id, &o, 0, &header_seen,
						   err);
			if (rc)
				break;
		}
		tw_free(f->mem, owned);
		if (rc)
			return rc;
		if (next && next == off)
			return bad(f, err, off,
				   "an options section that "
				   "points to itself");
		if (next && next < off && ++back > MAX_OPTIONS_BACK)
			return bad(f, err, off, "options sections in a loop");
		off = next;
	}
	if (!header_seen)
		return bad(f, err, 0, "no HEADER_INFO section");
	if (f->cut_at)
		return recover_cut(f, first_section, err);
	return 0;
}

static int read_v6(tw_dat_file *f, span_reader *r, trawl_error *err)
{
	int rc;
	uint32_t cpus;
	if ((rc = read_header_info(f, r, err)) ||
	    (rc = read_formats(f, r, "ftrace", err)) ||
	    (rc = read_event_systems(f, r, err)) ||
	    (rc = skip_kallsyms(f, r, err)) ||
	    (rc = read_text_block(f, r, 0, parse_printk, err,
				  "the printk formats")) ||
	    (rc = read_text_block(f, r, 1, parse_cmdlines, err,
				  "the saved cmdlines")) ||
	    (rc = get_u32(r, &cpus, err, "the CPU count")))
		return rc;
	if (cpus > TW_MAX_CPUS)
		return bad(f, err, r->at - 4, "a CPU count that cannot be");
	uint32_t top;
	if ((rc = add_buffer(f, "", NULL, f->page_size, &top, err)))
		return rc;
	if (r->n - r->at >= 10 && memcmp(r->p + r->at, "options  ", 10) == 0) {
		r->at += 10;
		int header_seen = 1;
		for (;;) {
			uint16_t id;
			uint32_t size;
			const char *p;
			if ((rc = get_u16(r, &id, err, "an option id")))
				return rc;
			if (id == OPT_DONE)
				break;
			if ((rc = get_u32(r, &size, err, "an option size")) ||
			    (rc = get_bytes(r, size, &p, err, "an option")))
				return rc;
			span_reader o = {f, (const unsigned char *)p, size, 0,
					 r->at - size};
			if ((rc = handle_option(f, id, &o, cpus, &header_seen,
						err)))
				return rc;
		}
	}
	return read_v6_flyrecord(f, r, top, cpus, err);
}

/* libtraceevent's handle, for the file's byte order and sizes. */
static int tep_init(tw_dat_file *f, trawl_error *err)
{
	f->tep = tep_alloc();
	if (!f->tep)
		return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0, 0,
				   "out of memory");
	tep_set_file_bigendian(f->tep, f->big_endian ? TEP_BIG_ENDIAN
						     : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(f->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
						? TEP_BIG_ENDIAN
						: TEP_LITTLE_ENDIAN);
	tep_set_long_size(f->tep, f->long_size);
	tep_set_page_size(f->tep, (int)f->page_size);
	return 0;
}

int tw_dat_file_from_meta(tw_dat_file *f, const tw_mem *mem, const char *name,
			  const tw_dat_meta *m, const char *clock,
			  trawl_error *err)
{
	memset(f, 0, sizeof(*f));
	f->mem = mem;
	f->name = name;
	f->version = 7;
	f->big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	f->long_size = (int)sizeof(long);
	f->page_size = m->page_size;
	int rc;
	uint32_t top;
	if ((rc = tep_init(f, err)) ||
	    (rc = parse_header_page(f, m->header_page.data, m->header_page.len,
				    0, err)))
		return rc;
	for (size_t i = 0; i < m->nftrace; i++)
		if ((rc = add_format(f, "ftrace", m->ftrace[i].data,
				     m->ftrace[i].len, 0, err)))
			return rc;
	for (size_t s = 0; s < m->nsystems; s++) {
		const tw_dat_system *sys = &m->systems[s];
		for (size_t i = 0; i < sys->nformats; i++)
			if ((rc = add_format(f, sys->name, sys->formats[i].data,
					     sys->formats[i].len, 0, err)))
				return rc;
		for (size_t i = 0; i < sys->nnamed; i++)
			if ((rc = add_named(f, sys->name, sys->named[i], err)))
				return rc;
	}
	/* kallsyms are parsed when first needed (tw_dat_load_kallsyms) */
	f->kallsyms_text = m->kallsyms.data;
	f->kallsyms_len = m->kallsyms.len;
	char *text = NULL;
	/* as read_text_block(): what libtraceevent refuses is left out */
	if (m->printk.len &&
	    !(text = text_copy(f, m->printk.data, m->printk.len)))
		rc = -1;
	if (text)
		parse_printk(f, text);
	tw_free(mem, text);
	text = NULL;
	if (!rc && m->cmdlines.len &&
	    (!(text = text_copy(f, m->cmdlines.data, m->cmdlines.len)) ||
	     tw_dat_set_comms(f, text) < 0))
		rc = -1;
	tw_free(mem, text);
	if (!rc)
		rc = add_buffer(f, "", clock, f->page_size, &top, err);
	if (!rc && !(f->comp_name = tw_strndup(mem, "none", 4)))
		rc = -1;
	if (rc == -1)
		return tw_error_at(err, TRAWL_ENOMEM, 0, name, 0, 0, 0,
				   "out of memory");
	return rc;
}

int tw_dat_file_open(tw_dat_file *f, const tw_mem *mem, const char *name,
		     const unsigned char *map, size_t size, int growing,
		     trawl_error *err)
{
	memset(f, 0, sizeof(*f));
	f->growing = growing;
	f->mem = mem;
	f->name = name;
	f->map = map;
	f->size = size;
	span_reader r = {f, map, size, 0, 0};
	if (size < 10 || memcmp(map, "\x17\x08\x44tracing", 10) != 0)
		return bad(f, err, 0, "no trace.dat magic");
	r.at = 10;
	const char *version;
	int rc = get_str(&r, &version, err, "the version string");
	if (rc)
		return rc;
	f->version = atoi(version);
	if (f->version != 6 && f->version != 7)
		return tw_error_at(err, TRAWL_EUNSUPPORTED, 0, name, 0, 0, 10,
				   "trace.dat version \"%.16s\" is not one "
				   "trawl reads (6 and 7 are); convert it "
				   "with `trace-cmd convert --file-version 7`",
				   version);
	if (need(&r, 6, err, "the byte order and sizes"))
		return -TRAWL_EFORMAT;
	f->big_endian = r.p[r.at] != 0;
	f->long_size = r.p[r.at + 1];
	r.at += 2;
	get_u32(&r, &f->page_size, err, "");
	if ((f->long_size != 4 && f->long_size != 8) || f->page_size < 64 ||
	    f->page_size > (1u << 24) || (f->page_size & 3))
		return bad(f, err, r.at - 6,
			   "a long size or page size that "
			   "cannot be");

	if ((rc = tep_init(f, err)))
		return rc;
	rc = f->version >= 7 ? read_v7(f, &r, err) : read_v6(f, &r, err);
	if (rc)
		return rc;
	if (f->version < 7 && !f->comp_name) {
		f->comp_name = tw_strndup(mem, "none", 4);
		if (!f->comp_name)
			return tw_error_at(err, TRAWL_ENOMEM, 0, name, 0, 0, 0,
					   "out of memory");
	}
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int tw_dat_index_formats(tw_dat_file *f)
{
	tw_free(f->mem, f->by_id);
	f->nby_id = 0;
	f->by_id = tw_malloc(f->mem, (f->nformats + 1) * sizeof(*f->by_id));
	if (!f->by_id)
		return -1;
	for (size_t i = 0; i < f->nformats; i++)
		if (f->formats[i].text)
			f->by_id[f->nby_id++] =
				(uint64_t)f->formats[i].id << 32 | i;
	/* equal IDs (a damaged file): the first one in the file wins */
	if (f->nby_id > 1)
		qsort(f->by_id, f->nby_id, sizeof(*f->by_id), cmp_key);
	return 0;
}

static const tw_dat_format *format_of(const tw_dat_file *f, uint32_t id)
{
	size_t lo = 0, hi = f->nby_id;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->by_id[mid] >> 32 < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nby_id && f->by_id[lo] >> 32 == id
		       ? &f->formats[(uint32_t)f->by_id[lo]]
		       : NULL;
}

/* The slot of system:event among the named-only formats: where it is, or
 * the empty one where it would go. */
static size_t name_slot(const tw_dat_file *f, const char *system,
			const char *event)
{
	size_t mask = f->name_slots - 1;
	for (size_t i = (size_t)tw_hash_event(system, event) & mask;;
	     i = (i + 1) & mask) {
		uint32_t at = f->by_name[i];
		if (!at || (!strcmp(f->formats[at - 1].name, event) &&
			    !strcmp(f->formats[at - 1].system, system)))
			return i;
	}
}

long tw_dat_format_find(tw_dat_file *f, const char *system, const char *event)
{
	if (!f->by_name) {
		/* made on the first question: at most half full */
		size_t n = 64;
		while (n < 2 * f->nformats)
			n *= 2;
		if (!(f->by_name = tw_calloc(f->mem, n, sizeof(*f->by_name))))
			return -1;
		f->name_slots = n;
		for (size_t i = 0; i < f->nformats; i++)
			if (f->formats[i].name && f->formats[i].system)
				f->by_name[name_slot(f, f->formats[i].system,
						     f->formats[i].name)] =
					(uint32_t)i + 1;
	}
	uint32_t at = f->by_name[name_slot(f, system, event)];
	return at ? (long)at - 1 : -1;
}

int tw_dat_format_load(tw_dat_file *f, size_t i)
{
	tw_dat_format *fm = &f->formats[i];
	if (fm->text)
		return 0;
	size_t len = 0;
	const char *text = fm->name && f->format_late
				   ? f->format_late(f->format_ctx, fm->system,
						    fm->name, &len)
				   : NULL;
	if (!text)
		return -1;
	long id = tw_dat_format_id(text, len);
	if (id >= 0 && id <= TW_DAT_MAX_EVENT_ID) {
		uint64_t *a = tw_realloc(f->mem, f->by_id,
					 (f->nby_id + 1) * sizeof(*a));
		if (!a)
			return -1;
		f->by_id = a;
		uint64_t key = (uint64_t)id << 32 | i;
		size_t at = f->nby_id;
		while (at > 0 && a[at - 1] > key)
			at--;
		memmove(a + at + 1, a + at, (f->nby_id - at) * sizeof(*a));
		a[at] = key;
		f->nby_id++;
		fm->id = (uint32_t)id;
	}
	fm->text = text;
	fm->len = len;
	return 0;
}

const char *tw_dat_format_text(const tw_dat_file *f, uint32_t id, size_t *len)
{
	const tw_dat_format *fm = format_of(f, id);
	*len = fm ? fm->len : 0;
	return fm ? fm->text : NULL;
}

struct tep_event *tw_dat_parse_format(tw_dat_file *f, uint32_t id)
{
	const tw_dat_format *fm = format_of(f, id);
	if (!fm)
		return NULL;
	if (tw_pfmt_text_check(fm->text, fm->len) == TW_PF_TEXT_BAD) {
		if (!f->meta_damaged++)
			f->meta_damage_off = fm->file_off;
		return NULL;
	}
	struct tep_event *e =
		tw_pfmt_parse(f->tep, f->mem, fm->text, fm->len, fm->system);
	if (!e || e->id != (int)id)
		return NULL;
	return e;
}

static void load_kallsyms_text(tw_dat_file *f);

void tw_dat_load_kallsyms(tw_dat_file *f)
{
	if (f->kallsyms_loaded)
		return;
	f->kallsyms_loaded = 1;
	load_kallsyms_text(f);
}

void tw_dat_load_tep_kallsyms(tw_dat_file *f)
{
	if (f->tep_kallsyms_wanted)
		return;
	f->tep_kallsyms_wanted = 1;
	/* read again if trawl's table was made before: a damaged block was
	 * counted then, not twice */
	int again = f->kallsyms_loaded;
	uint64_t damaged = f->meta_damaged, off = f->meta_damage_off;
	f->kallsyms_loaded = 1;
	load_kallsyms_text(f);
	if (again)
		f->meta_damaged = damaged, f->meta_damage_off = off;
}

static void load_kallsyms_text(tw_dat_file *f)
{
	trawl_error scratch;
	int rc = 0;
	if (f->kallsyms_text && f->kallsyms_len) {
		char *text = text_copy(f, f->kallsyms_text, f->kallsyms_len);
		if (text)
			parse_kallsyms(f, text);
		tw_free(f->mem, text);
	} else if (f->kallsyms_section) {
		rc = read_v7_meta(f, OPT_KALLSYMS, f->kallsyms_section,
				  &scratch);
	} else if (f->kallsyms_late) {
		size_t len = 0;
		const char *late = f->kallsyms_late(f->kallsyms_ctx, &len);
		char *text = late && len ? text_copy(f, late, len) : NULL;
		if (text)
			parse_kallsyms(f, text);
		tw_free(f->mem, text);
	}
	(void)rc; /* damage is counted in meta_damaged */
}

void tw_dat_file_close(tw_dat_file *f)
{
	if (f->tep)
		tep_free(f->tep);
	for (size_t i = 0; i < f->nbuffers; i++) {
		tw_free(f->mem, f->buffers[i].name);
		tw_free(f->mem, f->buffers[i].clock);
	}
	tw_free(f->mem, f->buffers);
	tw_free(f->mem, f->spans);
	tw_free(f->mem, f->parts);
	tw_free(f->mem, f->span_index);
	tw_free(f->mem, f->comp_name);
	tw_free(f->mem, f->formats);
	tw_free(f->mem, f->by_id);
	tw_free(f->mem, f->by_name);
	tw_free(f->mem, f->cmdlines);
	tw_free(f->mem, f->cmdline_text);
	tw_free(f->mem, f->machine);
	for (size_t i = 0; i < f->nblocks; i++)
		tw_free(f->mem, f->blocks[i]);
	tw_free(f->mem, f->blocks);
	tw_free(f->mem, f->syms);
	tw_free(f->mem, f->sym_pool);
	tw_free(f->mem, f->strs);
	tw_free(f->mem, f->str_pool);
	memset(f, 0, sizeof(*f));
}
