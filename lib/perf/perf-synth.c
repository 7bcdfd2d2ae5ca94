/* SPDX-License-Identifier: MIT */
/*
 * What a perf.data holds beyond ftrace's records, given ftrace's shape so
 * the trace.dat reader decodes it with the rest (lib/dat/dat-records.h):
 *
 * - A sample of an event that is not a tracepoint (-e cpu-clock, cycles,
 *   page-faults, ...) becomes a record of system "perf" named after the
 *   event (perf's name, '-' and other characters an event name cannot
 *   hold as '_': cpu-clock is perf:cpu_clock), with the sample's ip,
 *   period and, where sampled, addr (its pid and tid are the event's
 *   tgid and pid, as for any event). Its format is made here, with
 *   a type id no format of the file has.
 * - A callchain (perf record -g) becomes the records ftrace's stacktrace
 *   and userstacktrace options write after an event: ftrace:kernel_stack
 *   (its kernel frames, `size` of them; none when the sample was taken in
 *   user mode) then, when it has user frames, ftrace:user_stack, its
 *   frames' mappings in a `maps` string where the kernel's layout has
 *   padding (perf-maps.c; lib/pfmt prints them after the addresses). So a
 *   stack reads the same whichever tracer recorded it, and scripts key
 *   maps by kstack off-line on either (lib/script/hold.c).
 *
 * A perf.data of such events only has no tracing data: its header_page,
 * header_event and page size are the kernel's for this machine's kind.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "perf-int.h"

/* perf_event_attr.type, and perf's names of the generic events
 * (tools/perf/util/evsel.c, include/uapi/linux/perf_event.h) */
enum { TYPE_HARDWARE, TYPE_SOFTWARE, TYPE_TRACEPOINT, TYPE_HW_CACHE, TYPE_RAW };
#define SW_DUMMY 9

static const char *const hw_names[] = {
	"cycles",
	"instructions",
	"cache-references",
	"cache-misses",
	"branches",
	"branch-misses",
	"bus-cycles",
	"stalled-cycles-frontend",
	"stalled-cycles-backend",
	"ref-cycles",
};

static const char *const sw_names[] = {
	"cpu-clock",	    "task-clock",   "page-faults",  "context-switches",
	"cpu-migrations",   "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy",	    "bpf-output",   "cgroup-switches",
};

/* The callchain's context marks (PERF_CONTEXT_*): what follows them. */
#define CONTEXT_KERNEL ((uint64_t)-128)
#define CONTEXT_USER   ((uint64_t)-512)
#define CONTEXT_MAX    ((uint64_t)-4095)

/* The kernel's header_page and header_event on 64-bit machines. */
static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
static const char header_event[] = "# compressed entry header\n"
				   "\ttype_len    :    5 bits\n"
				   "\ttime_delta  :   27 bits\n"
				   "\tarray       :   32 bits\n"
				   "\n"
				   "\tpadding     : type == 29\n"
				   "\ttime_extend : type == 30\n"
				   "\ttime_stamp : type == 31\n"
				   "\tdata max type_len  == 28\n";

static const char common_fields[] =
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"
	"\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";

/* ftrace's stack formats as the kernel writes them (6.x): the records
 * made below have exactly this layout. */
static const char stack_print[] =
	"print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> "
	"%ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\", "
	"(void *)REC->caller[0], (void *)REC->caller[1], (void "
	"*)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], "
	"(void *)REC->caller[5], (void *)REC->caller[6], (void "
	"*)REC->caller[7]\n";

/* The event's name as perf gives it: the file's EVENT_DESC, else from
 * its type and config as perf names it. */
static void perf_name(const tw_perf_attr *a, char *out, size_t cap)
{
	if (a->type == TYPE_HARDWARE && a->config < 10)
		snprintf(out, cap, "%s", hw_names[a->config]);
	else if (a->type == TYPE_SOFTWARE && a->config < 12)
		snprintf(out, cap, "%s", sw_names[a->config]);
	else if (a->type == TYPE_HW_CACHE)
		snprintf(out, cap, "hw-cache-0x%llx",
			 (unsigned long long)a->config);
	else if (a->type == TYPE_RAW)
		snprintf(out, cap, "r%llx", (unsigned long long)a->config);
	else
		snprintf(out, cap, "type%u-0x%llx", a->type,
			 (unsigned long long)a->config);
}

/* An event name: at most this long (perf's names are short). */
#define NAME_MAX_LEN 64

/*
 * HEADER_EVENT_DESC (tools/perf/util/header.c, write_event_desc): u32
 * nr, u32 attr size, then nr x (attr, u32 nr_ids, u32 len, name[len]
 * NUL-padded, u64 ids[nr_ids]). Walked once: each entry's name into
 * raw[attr] of the attr its first id is (or, without ids, the attr of its
 * place with its type and config), where the section says one.
 */
static void desc_names(const tw_perf_file *f, char (*raw)[NAME_MAX_LEN])
{
	const tw_perf_section *s = &f->feat[TW_PERF_FEAT_EVENT_DESC];
	if (s->size < 8)
		return;
	const unsigned char *p = f->map + s->offset, *end = p + s->size;
	uint32_t nr = tw_perf_u32(p), asize = tw_perf_u32(p + 4);
	p += 8;
	for (uint32_t k = 0; k < nr; k++) {
		if ((size_t)(end - p) < (size_t)asize + 8)
			return;
		const unsigned char *attr = p;
		p += asize;
		uint32_t nids = tw_perf_u32(p), len = tw_perf_u32(p + 4);
		p += 8;
		if ((size_t)(end - p) < len ||
		    (size_t)(end - p - len) / 8 < nids)
			return;
		const char *name = (const char *)p;
		p += len;
		const unsigned char *ids = p;
		p += (size_t)nids * 8;
		int i = nids ? tw_perf_attr_of_id(f, tw_perf_u64(ids))
			: k < f->nattrs && asize >= 16 &&
					tw_perf_u32(attr) == f->attrs[k].type &&
					tw_perf_u64(attr + 8) ==
						f->attrs[k].config
				? (int)k
				: -1;
		size_t n = strnlen(name, len);
		if (i < 0 || !n || raw[i][0])
			continue;
		if (n >= NAME_MAX_LEN)
			n = NAME_MAX_LEN - 1;
		memcpy(raw[i], name, n);
		raw[i][n] = 0;
	}
}

/* perf's name of attr i (raw) as an event name, in place: up to the
 * first ':' (perf's modifiers, cycles:P), and what else is no
 * identifier's as '_'. */
static void event_name(const tw_perf_file *f, size_t i, char *name)
{
	char raw[NAME_MAX_LEN];
	if (name[0])
		memcpy(raw, name, sizeof(raw));
	else
		perf_name(&f->attrs[i], raw, sizeof(raw));
	size_t n = 0;
	for (const char *c = raw; *c && *c != ':'; c++) {
		int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			 (*c >= '0' && *c <= '9') || *c == '_';
		name[n++] = ok ? *c : '_';
	}
	if (!n || (name[0] >= '0' && name[0] <= '9')) {
		snprintf(name, NAME_MAX_LEN, "event%zu", i);
		return;
	}
	name[n] = 0;
}

/* qsort_r's order of attrs by their names, then their place */
static int by_name(const void *x, const void *y, void *ctx)
{
	const char(*names)[NAME_MAX_LEN] = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = strcmp(names[a], names[b]);
	return c ? c : (a > b) - (a < b);
}

/* The ids the file's formats use ("ID: n" of each), as bits. */
static void used_ids(const tw_blob *b, size_t n, uint64_t *bits)
{
	for (size_t i = 0; i < n; i++) {
		long v = tw_dat_format_id(b[i].data, b[i].len);
		if (v >= 0 && v < 65536)
			bits[v / 64] |= 1ull << (v % 64);
	}
}

/* A type id none has, from *at on (kernel_stack's own where free), and
 * *at after it: ids taken one after another cost one pass in all. */
static uint16_t free_id(uint64_t *bits, unsigned *at)
{
	for (unsigned k = 0; k < 65535; k++) {
		unsigned v = 1 + (*at - 1 + k) % 65535;
		if (!(bits[v / 64] >> (v % 64) & 1)) {
			bits[v / 64] |= 1ull << (v % 64);
			*at = v + 1;
			return (uint16_t)v;
		}
	}
	return 0;
}

static int is_named(const tw_blob *b, const char *name)
{
	size_t n = strlen(name);
	return b->len > 6 + n && !memcmp(b->data, "name: ", 6) &&
	       !memcmp(b->data + 6, name, n) &&
	       (b->data[6 + n] == '\n' || b->data[6 + n] == ' ');
}

/* Append a format text; its place in text. */
static int add_text(tw_perf_file *f, size_t *cap, size_t *at, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));
static int add_text(tw_perf_file *f, size_t *cap, size_t *at, const char *fmt,
		    ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	void *p = f->synth_text;
	if (n < 0 || tw_grow(f->mem, &p, cap, f->synth_len + (size_t)n + 1, 1))
		return -1;
	f->synth_text = p;
	va_start(ap, fmt);
	vsnprintf(f->synth_text + f->synth_len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*at = f->synth_len;
	f->synth_len += (size_t)n;
	return 0;
}

int tw_perf_synth_formats(tw_perf_file *f, trawl_error *err)
{
	tw_dat_meta *m = &f->meta;
	int callchains = 0, others = 0;
	for (size_t i = 0; i < f->nattrs; i++) {
		const tw_perf_attr *a = &f->attrs[i];
		callchains |= (a->sample_type & TW_PERF_SAMPLE_CALLCHAIN) != 0;
		others += a->type != TYPE_TRACEPOINT &&
			  !(a->type == TYPE_SOFTWARE && a->config == SW_DUMMY);
	}
	if (!m->header_page.len) { /* no tracing data: no tracepoints */
		m->header_page =
			(tw_blob){header_page, sizeof(header_page) - 1};
		m->header_event =
			(tw_blob){header_event, sizeof(header_event) - 1};
		long ps = sysconf(_SC_PAGESIZE);
		m->page_size = ps > 0 ? (uint32_t)ps : 4096;
		m->ncpus = f->nr_cpus;
	}
	if (!callchains && !others)
		return 0;
	uint64_t *bits = tw_calloc(f->mem, 65536 / 64, sizeof(*bits));
	/* where each text begins, in the order made: ftrace's stacks, then
	 * the events'; each runs to the next one's start */
	size_t *at = tw_calloc(f->mem, f->nattrs + 3, sizeof(*at));
	/* each attr's event name, and the first attr of each name: two of
	 * one name (-e cpu-clock twice) are one event */
	char(*names)[NAME_MAX_LEN] =
		tw_calloc(f->mem, f->nattrs, sizeof(*names));
	uint32_t *order = tw_calloc(f->mem, f->nattrs, sizeof(*order));
	uint32_t *first = tw_calloc(f->mem, f->nattrs, sizeof(*first));
	int rc = !bits || !at || !names || !order || !first;
	if (!rc) {
		bits[0] |= 1; /* 0 is no type */
		used_ids(m->ftrace, m->nftrace, bits);
		for (size_t s = 0; s < m->nsystems; s++)
			used_ids(m->systems[s].formats, m->systems[s].nformats,
				 bits);
		desc_names(f, names);
		size_t n = 0;
		for (size_t i = 0; i < f->nattrs; i++) {
			const tw_perf_attr *a = &f->attrs[i];
			if (a->type == TYPE_TRACEPOINT ||
			    (a->type == TYPE_SOFTWARE && a->config == SW_DUMMY))
				continue;
			event_name(f, i, names[i]);
			order[n++] = (uint32_t)i;
		}
		qsort_r(order, n, sizeof(*order), by_name, names);
		for (size_t k = 0; k < n; k++)
			first[order[k]] = k && !strcmp(names[order[k]],
						       names[order[k - 1]])
						  ? first[order[k - 1]]
						  : order[k];
	}
	size_t cap = 0, nkept = 0, ntexts = 0;
	unsigned next_stack = 4, next_event = 0x8000;
	if (!rc && callchains) {
		f->kstack_type = free_id(bits, &next_stack);
		next_stack = 13;
		f->ustack_type = free_id(bits, &next_stack);
		rc = add_text(f, &cap, &at[ntexts++],
			      "name: kernel_stack\nID: %u\n%s"
			      "\tfield:int size;\toffset:8;\tsize:4;"
			      "\tsigned:1;\n\tfield:unsigned long "
			      "caller[8];\toffset:16;\tsize:64;\tsigned:0;"
			      "\n\n%s",
			      f->kstack_type, common_fields, stack_print) ||
		     add_text(f, &cap, &at[ntexts++],
			      "name: user_stack\nID: %u\n%s"
			      "\tfield:unsigned int tgid;\toffset:8;"
			      "\tsize:4;\tsigned:0;\n\tfield:__data_loc "
			      "char[] maps;\toffset:12;\tsize:4;\tsigned:0;"
			      "\n\tfield:unsigned long "
			      "caller[8];\toffset:16;\tsize:64;\tsigned:0;"
			      "\n\n%s",
			      f->ustack_type, common_fields, stack_print);
	}
	for (size_t i = 0; i < f->nattrs && !rc; i++) {
		tw_perf_attr *a = &f->attrs[i];
		if (a->type == TYPE_TRACEPOINT ||
		    (a->type == TYPE_SOFTWARE && a->config == SW_DUMMY))
			continue;
		if (first[i] != i) { /* its name's first attr came before */
			a->synth = f->attrs[first[i]].synth;
			continue;
		}
		a->synth = free_id(bits, &next_event);
		int addr = (a->sample_type & TW_PERF_SAMPLE_ADDR) != 0;
		nkept++;
		rc = add_text(f, &cap, &at[ntexts++],
			      "name: %s\nID: %u\n%s"
			      "\tfield:unsigned long ip;\toffset:8;\tsize:8;"
			      "\tsigned:0;\n\tfield:u64 period;\toffset:16;"
			      "\tsize:8;\tsigned:0;\n%s\n"
			      "print fmt: \"ip=%%pS period=%%llu%s\", (void "
			      "*)REC->ip, REC->period%s\n",
			      names[i], a->synth, common_fields,
			      addr ? "\tfield:unsigned long addr;\toffset:24;"
				     "\tsize:8;\tsigned:0;\n"
				   : "",
			      addr ? " addr=0x%lx" : "",
			      addr ? ", REC->addr" : "");
	}
	tw_free(f->mem, bits);
	tw_free(f->mem, names);
	tw_free(f->mem, order);
	tw_free(f->mem, first);
	if (rc) {
		tw_free(f->mem, at);
		goto nomem;
	}
	at[ntexts] = f->synth_len;
	f->synth_ftrace = tw_calloc(f->mem, m->nftrace + 2, sizeof(tw_blob));
	f->synth_systems =
		tw_calloc(f->mem, m->nsystems + 1, sizeof(tw_dat_system));
	f->synth_blobs = tw_calloc(f->mem, nkept + 1, sizeof(tw_blob));
	if (rc || !f->synth_ftrace || !f->synth_systems || !f->synth_blobs) {
		tw_free(f->mem, at);
		goto nomem;
	}
	/* ftrace's formats without stacks of their own (a file's could be
	 * of another layout), then the two made here */
	size_t nft = 0, k = 0;
	for (size_t i = 0; i < m->nftrace; i++)
		if (!callchains || (!is_named(&m->ftrace[i], "kernel_stack") &&
				    !is_named(&m->ftrace[i], "user_stack")))
			f->synth_ftrace[nft++] = m->ftrace[i];
	for (; callchains && k < 2; k++)
		f->synth_ftrace[nft++] =
			(tw_blob){f->synth_text + at[k], at[k + 1] - at[k]};
	for (size_t i = 0; i < nkept; i++, k++)
		f->synth_blobs[i] =
			(tw_blob){f->synth_text + at[k], at[k + 1] - at[k]};
	tw_free(f->mem, at);
	/* the file's systems, then "perf" */
	if (m->nsystems)
		memcpy(f->synth_systems, m->systems,
		       m->nsystems * sizeof(tw_dat_system));
	size_t nsys = m->nsystems;
	if (nkept)
		f->synth_systems[nsys++] =
			(tw_dat_system){.name = "perf",
					.formats = f->synth_blobs,
					.nformats = nkept};
	m->ftrace = f->synth_ftrace;
	m->nftrace = nft;
	m->systems = f->synth_systems;
	m->nsystems = nsys;
	return 0;
nomem:
	return tw_error_at(err, TRAWL_ENOMEM, 0, f->name, 0, 0, 0,
			   "out of memory");
}

void tw_perf_synth_free(tw_perf_file *f)
{
	tw_free(f->mem, f->synth_text);
	tw_free(f->mem, f->synth_ftrace);
	tw_free(f->mem, f->synth_systems);
	tw_free(f->mem, f->synth_blobs);
}

/* ftrace's common header: type, flags and preempt count 0, pid. */
static void header(unsigned char *out, uint16_t type, int32_t pid)
{
	memset(out, 0, 8);
	memcpy(out, &type, 2);
	memcpy(out + 4, &pid, 4);
}

uint32_t tw_perf_synth_sample(const tw_perf_attr *a, const tw_perf_sample *s,
			      unsigned char *out)
{
	header(out, a->synth, s->tid);
	memcpy(out + 8, &s->ip, 8);
	memcpy(out + 16, &s->period, 8);
	if (!(a->sample_type & TW_PERF_SAMPLE_ADDR))
		return 24;
	memcpy(out + 24, &s->addr, 8);
	return 32;
}

void tw_perf_synth_stacks(const tw_perf_file *f, const tw_perf_sample *s,
			  tw_perf_stacks *out)
{
	int32_t nk = 0;
	uint32_t nu = 0;
	uint64_t context = CONTEXT_KERNEL; /* unmarked frames: the kernel's */
	unsigned char *kf = out->kernel + 16, *uf = out->user + 16;
	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		uint64_t ip = tw_perf_u64(s->callchain + i * 8);
		if (ip >= CONTEXT_MAX) {
			context = ip;
			continue;
		}
		/* a user frame of 0 would end ftrace's user stack early */
		if (context == CONTEXT_KERNEL)
			memcpy(kf + (size_t)nk++ * 8, &ip, 8);
		else if (context == CONTEXT_USER && ip)
			memcpy(uf + (size_t)nu++ * 8, &ip, 8);
		else
			out->other++; /* a guest's, or the hypervisor's */
	}
	header(out->kernel, f->kstack_type, s->tid);
	memcpy(out->kernel + 8, &nk, 4);
	memset(out->kernel + 12, 0, 4);
	out->kernel_len = 16 + (uint32_t)nk * 8;
	header(out->user, f->ustack_type, s->tid);
	memcpy(out->user + 8, &s->pid, 4);
	memset(out->user + 12, 0, 4);
	out->user_len = nu ? 16 + nu * 8 : 0;
}

void tw_perf_synth_user_maps(const tw_perf_maps *m, int32_t pid,
			     tw_perf_stacks *out)
{
	if (!out->user_len)
		return;
	unsigned char *u = out->user;
	uint32_t nf = (out->user_len - 16) / 8;
	/* the frames end at a 0, then the text: a __data_loc's offset and
	 * length are 16 bits each */
	memset(u + out->user_len, 0, 8);
	uint32_t at = out->user_len + 8, start = at;
	if (start >= 65535) { /* a __data_loc cannot reach it: none */
		memset(u + 12, 0, 4);
		out->user_len = at;
		return;
	}
	uint32_t cap = start < 65535 ? 65535 - start : 0;
	const tw_perf_pmaps *p = tw_perf_maps_proc(m, pid); /* once a stack */
	for (uint32_t k = 0; k < nf; k++) {
		uint64_t addr, rel = 0;
		memcpy(&addr, u + 16 + (size_t)k * 8, 8);
		const char *name = tw_perf_maps_find(m, p, addr, &rel);
		/* "name+0xREL\n", or "\n" (hex by hand: a frame each) */
		char hex[16];
		size_t nh = 0, nl = name ? strlen(name) : 0;
		do {
			hex[nh++] = "0123456789abcdef"[rel & 15];
			rel >>= 4;
		} while (rel);
		size_t n = name ? nl + 3 + nh + 1 : 1;
		/* room for it and the NUL */
		if (n + 1 > cap - (at - start))
			break;
		if (name) {
			memcpy(u + at, name, nl);
			memcpy(u + at + nl, "+0x", 3);
			for (size_t d = 0; d < nh; d++)
				u[at + nl + 3 + d] =
					(unsigned char)hex[nh - 1 - d];
		}
		u[at + n - 1] = '\n';
		at += (uint32_t)n;
	}
	u[at++] = 0; /* a string's NUL, inside its length as the kernel's */
	uint32_t loc = (at - start) << 16 | start;
	memcpy(u + 12, &loc, 4);
	out->user_len = at;
}
