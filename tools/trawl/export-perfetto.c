/* SPDX-License-Identifier: MIT */
/*
 * trawl export --to perfetto: the Chrome trace-event JSON format, which
 * ui.perfetto.dev and chrome://tracing open ("Trace Event Format", Google,
 * docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
 *
 * Written as the run goes; what is kept is per CPU (the running task and the
 * open hardirq and softirq), per thread (its process, name and B/E depth)
 * and per open async slice (at most MAX_ASYNC), never per event.
 *
 *   process "CPUs" (pid CPU_PID): per CPU three threads (tracks): the
 *     running task (X slices from sched_switch to sched_switch; idle is not
 *     drawn), hardirq handlers and softirq handlers (X from entry to exit);
 *     cpu_frequency as a counter per CPU
 *   each traced thread (tid = the event's pid, pid = its tgid when the
 *     trace tells, else the systrace marker's pid, else itself): atrace B/E
 *     as B/E, every other event as an instant ("i") with its fields as args
 *   per process: atrace S/F as nestable async slices (b/e, id = cookie),
 *     C as counters
 *   an application channel's (lib/ring) slice_begin/slice_end, counter and
 *     instant: as atrace's B/E and C, and instants named by their name
 *
 * Times are microseconds with three decimals, so nanoseconds survive.
 * Before a CPU's first sched_switch its task is not known and nothing is
 * drawn; slices still open at the end are closed at the last event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Kernel pids stay below 2^22: these ids cannot collide with a task. */
#define CPU_PID 1000000000
enum { TRACK_TASK, TRACK_HARDIRQ, TRACK_SOFTIRQ };
#define MAX_CPUS    4096
#define MAX_BUFFERS 64 /* trace.dat instances; more share the last */
#define MAX_ASYNC   4096

static const char *const softirq_names[] = {
	"HI",	    "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED",	 "HRTIMER", "RCU",
};

struct open_slice {
	int open;
	int64_t start;
	int64_t id; /* task pid, irq number, softirq vector */
	char name[64];
};

struct cpu_tracks {
	int seen;
	int64_t tid0; /* its task track; hardirq and softirq follow */
	struct open_slice task, hard, soft;
};

struct thread {
	int tid; /* -1: empty slot */
	int pid;
	unsigned depth; /* open B slices */
	char comm[32];
};

/* Instances of a trace.dat record their own CPUs: tracks per buffer. */
struct buffer {
	char *name; /* "" for the top-level buffer */
	struct cpu_tracks *cpus;
	size_t ncpus;
};

struct async {
	int64_t pid, cookie;
	char *name;
};

struct perfetto {
	FILE *f;
	struct cli_buf b; /* written to f in 64 KiB pieces */
	uint64_t n;	  /* events written */
	struct buffer bufs[MAX_BUFFERS];
	size_t nbufs;
	struct thread *threads; /* open addressing by tid */
	size_t nthreads, cap;
	struct async *async;
	size_t nasync;
	int64_t last;
	uint64_t dropped_ends; /* E or F with nothing open */
	trawl_field prev_state, next_pid, next_comm;
	trawl_field irq, irq_exit, irq_name, vec, vec_exit, action;
	trawl_field freq, freq_cpu;
	uint8_t *kind; /* enum kind by event type id, KIND_UNKNOWN until seen */
	size_t nkind;
	/* an instant's `,"s":"t","name":"<event>"` by event type id, made
	 * once (quoting the name per event was a tenth of this thread) */
	struct cli_buf *heads;
	size_t nheads;
	struct cli_near ts_near; /* times mostly grow: their digits kept */
	int oom;
	int werr;		  /* a write failed: its errno */
	struct bg_writer *writer; /* NULL: write on this thread */
	int fd;			  /* where the writer writes */
	const char *path;	  /* for messages */
	int status;		  /* why a callback stopped the run */
};

/* Bytes gathered before they go to the writer (big.dat: 16 and 32 KiB
 * were slower, more hand-overs; 256 KiB too, the buffers left the cache). */
#define FLUSH_AT (64 << 10)

/* Hands what is built to the writer thread (or writes it here). */
static void flush_out(struct perfetto *p)
{
	int err;
	if (p->writer)
		err = bgw_submit(p->writer, p->fd, 0, &p->b, NULL);
	else
		err = buf_write(&p->b, p->f) ? (p->b.oom ? ENOMEM : errno) : 0;
	if (err && !p->werr)
		p->werr = err;
}

/* Start one event object: {"ph":..,"ts":..,"pid":..,"tid":.. */
static void begin(struct perfetto *p, char ph, int64_t ts, int64_t pid,
		  int64_t tid)
{
	struct cli_buf *b = &p->b;
	if (b->n >= FLUSH_AT)
		flush_out(p);
	char *o = buf_room(b, 128);
	if (!o)
		return;
	if (p->n++)
		*o++ = ',', *o++ = '\n';
	memcpy(o, "{\"ph\":\"", 7);
	o[7] = ph;
	memcpy(o + 8, "\",\"ts\":", 7);
	o = put_us_near(&p->ts_near, o + 15, ts);
	memcpy(o, ",\"pid\":", 7);
	o = put_i64(o + 7, pid);
	memcpy(o, ",\"tid\":", 7);
	o = put_i64(o + 7, tid);
	buf_commit(b, o);
}

static void name_key(struct cli_buf *b, const char *s, size_t n)
{
	buf_str(b, ",\"name\":");
	buf_json(b, s, n);
}

static struct thread *thread_of(struct perfetto *p, int tid, int64_t pid)
{
	if (p->nthreads * 2 >= p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		struct thread *t = malloc(cap * sizeof(*t));
		if (!t) {
			p->oom = 1;
			return NULL;
		}
		for (size_t i = 0; i < cap; i++)
			t[i].tid = -1;
		for (size_t i = 0; i < p->cap; i++) {
			if (p->threads[i].tid < 0)
				continue;
			size_t j = (size_t)p->threads[i].tid * 2654435761u &
				   (cap - 1);
			while (t[j].tid >= 0)
				j = (j + 1) & (cap - 1);
			t[j] = p->threads[i];
		}
		free(p->threads);
		p->threads = t;
		p->cap = cap;
	}
	size_t j = (size_t)tid * 2654435761u & (p->cap - 1);
	while (p->threads[j].tid >= 0 && p->threads[j].tid != tid)
		j = (j + 1) & (p->cap - 1);
	struct thread *th = &p->threads[j];
	if (th->tid < 0) {
		memset(th, 0, sizeof(*th));
		th->tid = tid;
		/* the first thing known of its process stays, so that every
		 * event of a thread lands on the same track */
		th->pid = pid > 0 && pid <= INT32_MAX ? (int)pid : tid;
		p->nthreads++;
	}
	return th;
}

static void set_name(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* The thread an event belongs to, with its name kept up to date. */
static struct thread *event_thread(struct perfetto *p, const trawl_event *ev,
				   int64_t marker_pid)
{
	int tgid = trawl_event_tgid(ev);
	struct thread *th =
		thread_of(p, trawl_event_pid(ev), tgid > 0 ? tgid : marker_pid);
	if (th) {
		const char *c = trawl_event_comm(ev);
		set_name(th->comm, sizeof(th->comm), c, strlen(c));
	}
	return th;
}

static struct buffer *buffer_of(struct perfetto *p, const char *name)
{
	size_t b = 0;
	while (b < p->nbufs && strcmp(p->bufs[b].name, name))
		b++;
	if (b < p->nbufs)
		return &p->bufs[b];
	if (p->nbufs == MAX_BUFFERS)
		return &p->bufs[MAX_BUFFERS - 1];
	p->bufs[b].name = strdup(name);
	if (!p->bufs[b].name) {
		p->oom = 1;
		return NULL;
	}
	p->nbufs++;
	return &p->bufs[b];
}

static struct cpu_tracks *cpu_of(struct perfetto *p, const trawl_event *ev)
{
	int cpu = trawl_event_cpu(ev);
	struct buffer *b = buffer_of(p, trawl_event_buffer(ev));
	if (!b || cpu < 0 || cpu >= MAX_CPUS)
		return NULL;
	if ((size_t)cpu >= b->ncpus) {
		size_t n = (size_t)cpu + 1;
		struct cpu_tracks *c = realloc(b->cpus, n * sizeof(*c));
		if (!c) {
			p->oom = 1;
			return NULL;
		}
		memset(c + b->ncpus, 0, (n - b->ncpus) * sizeof(*c));
		b->cpus = c;
		b->ncpus = n;
	}
	struct cpu_tracks *c = &b->cpus[cpu];
	if (!c->seen) {
		c->seen = 1;
		c->tid0 = CPU_PID + 1 +
			  ((int64_t)(b - p->bufs) * MAX_CPUS + cpu) * 3;
	}
	return c;
}

/* A complete slice on one of a CPU's tracks. */
static void close_slice(struct perfetto *p, struct open_slice *s,
			const struct cpu_tracks *c, int track, int64_t end,
			const char *end_state)
{
	if (!s->open)
		return;
	s->open = 0;
	begin(p, 'X', s->start, CPU_PID, c->tid0 + track);
	buf_str(&p->b, ",\"dur\":");
	buf_us(&p->b, end - s->start);
	name_key(&p->b, s->name, strlen(s->name));
	buf_str(&p->b, track == TRACK_TASK	? ",\"args\":{\"tid\":"
		       : track == TRACK_HARDIRQ ? ",\"args\":{\"irq\":"
						: ",\"args\":{\"vec\":");
	buf_i64(&p->b, s->id);
	if (end_state) {
		buf_str(&p->b, ",\"end_state\":");
		buf_json(&p->b, end_state, strlen(end_state));
	}
	buf_str(&p->b, "}}");
}

static void on_switch(struct perfetto *p, const trawl_event *ev, int64_t ts)
{
	struct cpu_tracks *c = cpu_of(p, ev);
	if (!c)
		return;
	size_t n = 0;
	/* the state as the kernel prints it ("S", "D", "R+"): its label,
	 * whatever the source (a trace.dat holds the number) */
	const char *st = trawl_event_label(ev, p->prev_state, &n);
	if (!st)
		st = trawl_event_raw(ev, p->prev_state, &n);
	char state[16];
	set_name(state, sizeof(state), st ? st : "", st ? n : 0);
	close_slice(p, &c->task, c, TRACK_TASK, ts, state);
	int64_t next;
	if (trawl_event_get_int(ev, p->next_pid, &next) || next <= 0)
		return; /* idle is not drawn */
	const char *comm = trawl_event_raw(ev, p->next_comm, &n);
	c->task.open = 1;
	c->task.start = ts;
	c->task.id = next;
	set_name(c->task.name, sizeof(c->task.name), comm ? comm : "",
		 comm ? n : 0);
}

static void on_irq(struct perfetto *p, const trawl_event *ev, int64_t ts,
		   int soft, int entry)
{
	struct cpu_tracks *c = cpu_of(p, ev);
	if (!c)
		return;
	struct open_slice *s = soft ? &c->soft : &c->hard;
	int64_t id;
	trawl_field f = soft ? (entry ? p->vec : p->vec_exit)
			     : (entry ? p->irq : p->irq_exit);
	if (trawl_event_get_int(ev, f, &id))
		return;
	if (!entry) {
		if (s->open && s->id == id)
			close_slice(p, s, c,
				    soft ? TRACK_SOFTIRQ : TRACK_HARDIRQ, ts,
				    NULL);
		return;
	}
	/* An entry while one is open: its exit was lost; drop it. */
	s->open = 1;
	s->start = ts;
	s->id = id;
	size_t n = 0;
	const char *nm =
		trawl_event_raw(ev, soft ? p->action : p->irq_name, &n);
	if (soft && !nm && id >= 0 && id < 10) {
		nm = softirq_names[id];
		n = strlen(nm);
	}
	int w = snprintf(s->name, sizeof(s->name), "%s %lld",
			 soft ? "softirq" : "irq", (long long)id);
	if (nm && n && w > 0 && (size_t)w + 1 < sizeof(s->name)) {
		s->name[w] = ' ';
		set_name(s->name + w + 1, sizeof(s->name) - (size_t)w - 1, nm,
			 n);
	}
}

static void args_fields(struct perfetto *p, const trawl_event *ev)
{
	buf_str(&p->b, ",\"args\":");
	buf_json_fields(&p->b, ev);
}

/* The text after an instant's tid, made once per event type; NULL when
 * out of memory. */
static const struct cli_buf *instant_head(struct perfetto *p,
					  const trawl_event *ev)
{
	uint32_t type = trawl_event_type_id(ev);
	if (type >= p->nheads) {
		size_t n = p->nheads ? p->nheads : 64;
		while (n <= type)
			n *= 2;
		struct cli_buf *h = realloc(p->heads, n * sizeof(*h));
		if (!h)
			return NULL;
		memset(h + p->nheads, 0, (n - p->nheads) * sizeof(*h));
		p->heads = h;
		p->nheads = n;
	}
	struct cli_buf *h = &p->heads[type];
	if (!h->n) {
		buf_str(h, ",\"s\":\"t\"");
		const char *nm = trawl_event_name(ev);
		name_key(h, nm, strlen(nm));
	}
	return h->oom ? NULL : h;
}

static void instant(struct perfetto *p, const trawl_event *ev, int64_t ts)
{
	struct thread *th = event_thread(p, ev, -1);
	if (!th)
		return;
	begin(p, 'i', ts, th->pid, th->tid);
	const struct cli_buf *h = instant_head(p, ev);
	if (!h) {
		p->oom = 1;
		return;
	}
	buf_bytes(&p->b, h->p, h->n);
	args_fields(p, ev);
	buf_char(&p->b, '}');
}

static void counter(struct perfetto *p, int64_t ts, int64_t pid,
		    const char *name, size_t n, int64_t value)
{
	begin(p, 'C', ts, pid, 0);
	name_key(&p->b, name, n);
	buf_str(&p->b, ",\"args\":{\"value\":");
	buf_i64(&p->b, value);
	buf_str(&p->b, "}}");
}

static int async_find(struct perfetto *p, int64_t pid, const char *name,
		      size_t n, int64_t cookie)
{
	for (size_t i = 0; i < p->nasync; i++) {
		struct async *a = &p->async[i];
		if (a->pid == pid && a->cookie == cookie &&
		    strlen(a->name) == n && !memcmp(a->name, name, n))
			return (int)i;
	}
	return -1;
}

static void async_event(struct perfetto *p, char ph, int64_t ts, int64_t pid,
			const trawl_marker *m)
{
	begin(p, ph, ts, pid, 0);
	buf_str(&p->b, ",\"cat\":\"async\"");
	name_key(&p->b, m->name, m->name_len);
	char id[32];
	int n = snprintf(id, sizeof(id), ",\"id\":\"0x%llx\"}",
			 (unsigned long long)m->value);
	buf_bytes(&p->b, id, (size_t)n);
}

/* atrace markers; Return: 0, or 1 when the event was not a marker. */
static int on_marker(struct perfetto *p, const trawl_event *ev, int64_t ts)
{
	trawl_marker m;
	if (trawl_event_marker(ev, &m))
		return 1;
	struct thread *th = event_thread(p, ev, m.pid);
	if (!th)
		return 0;
	int64_t pid = m.pid > 0 ? m.pid : th->pid;
	switch (m.kind) {
	case 'B':
		begin(p, 'B', ts, th->pid, th->tid);
		name_key(&p->b, m.name, m.name_len);
		buf_char(&p->b, '}');
		th->depth++;
		return 0;
	case 'E':
		if (!th->depth) {
			p->dropped_ends++;
			return 0;
		}
		th->depth--;
		begin(p, 'E', ts, th->pid, th->tid);
		buf_char(&p->b, '}');
		return 0;
	case 'C':
		counter(p, ts, pid, m.name, m.name_len, m.value);
		return 0;
	case 'I': /* an application channel's instant: named by its name */
		begin(p, 'i', ts, th->pid, th->tid);
		buf_str(&p->b, ",\"s\":\"t\"");
		name_key(&p->b, m.name, m.name_len);
		args_fields(p, ev);
		buf_char(&p->b, '}');
		return 0;
	case 'S':
		if (p->nasync >= MAX_ASYNC ||
		    async_find(p, pid, m.name, m.name_len, m.value) >= 0)
			return 0; /* too many open, or a repeat */
		struct async *a = &p->async[p->nasync];
		a->name = strndup(m.name, m.name_len);
		if (!a->name) {
			p->oom = 1;
			return 0;
		}
		a->pid = pid;
		a->cookie = m.value;
		p->nasync++;
		async_event(p, 'b', ts, pid, &m);
		return 0;
	case 'F': {
		int i = async_find(p, pid, m.name, m.name_len, m.value);
		if (i < 0) {
			p->dropped_ends++;
			return 0;
		}
		free(p->async[i].name);
		p->async[i] = p->async[--p->nasync];
		async_event(p, 'e', ts, pid, &m);
		return 0;
	}
	}
	return 1;
}

enum kind {
	KIND_UNKNOWN,
	KIND_SWITCH,
	KIND_HARD_ENTRY,
	KIND_HARD_EXIT,
	KIND_SOFT_ENTRY,
	KIND_SOFT_EXIT,
	KIND_FREQ,
	KIND_PRINT,
	KIND_OTHER,
};

/* What the export does with an event type: learnt by name once per type
 * (types are numbered densely as they first appear). */
static int kind_of(struct perfetto *p, const trawl_event *ev)
{
	uint32_t type = trawl_event_type_id(ev);
	if (type < p->nkind && p->kind[type] != KIND_UNKNOWN)
		return p->kind[type];
	if (type >= p->nkind) {
		size_t n = p->nkind ? p->nkind : 64;
		while (n <= type)
			n *= 2;
		uint8_t *k = realloc(p->kind, n);
		if (!k) {
			p->oom = 1;
			return KIND_OTHER;
		}
		memset(k + p->nkind, KIND_UNKNOWN, n - p->nkind);
		p->kind = k;
		p->nkind = n;
	}
	static const struct {
		const char *name;
		int kind;
	} known[] = {
		{"sched_switch", KIND_SWITCH},
		{"irq_handler_entry", KIND_HARD_ENTRY},
		{"irq_handler_exit", KIND_HARD_EXIT},
		{"softirq_entry", KIND_SOFT_ENTRY},
		{"softirq_exit", KIND_SOFT_EXIT},
		{"cpu_frequency", KIND_FREQ},
		{"print", KIND_PRINT},
	};
	const char *name = trawl_event_name(ev);
	int kind = KIND_OTHER;
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
		if (!strcmp(name, known[i].name))
			kind = known[i].kind;
	/* an application channel's slices, counters and instants are
	 * markers as atrace's are (trawl_event_marker()) */
	trawl_marker m;
	if (kind == KIND_OTHER && !trawl_event_marker(ev, &m))
		kind = KIND_PRINT;
	p->kind[type] = (uint8_t)kind;
	return kind;
}

static int on_event(const trawl_event *ev, void *ctx)
{
	struct perfetto *p = ctx;
	int64_t ts = trawl_event_time(ev);
	p->last = ts;
	int kind = kind_of(p, ev);
	if (kind == KIND_SWITCH) {
		on_switch(p, ev, ts);
	} else if (kind == KIND_HARD_ENTRY || kind == KIND_HARD_EXIT) {
		on_irq(p, ev, ts, 0, kind == KIND_HARD_ENTRY);
	} else if (kind == KIND_SOFT_ENTRY || kind == KIND_SOFT_EXIT) {
		on_irq(p, ev, ts, 1, kind == KIND_SOFT_ENTRY);
	} else if (kind == KIND_FREQ) {
		int64_t v, cpu;
		if (!trawl_event_get_int(ev, p->freq, &v) &&
		    !trawl_event_get_int(ev, p->freq_cpu, &cpu) && cpu >= 0 &&
		    cpu < MAX_CPUS) {
			char nm[48];
			int n = snprintf(nm, sizeof(nm), "CPU %lld frequency",
					 (long long)cpu);
			counter(p, ts, CPU_PID, nm, (size_t)n, v);
		} else {
			instant(p, ev, ts);
		}
	} else if (kind == KIND_PRINT && !on_marker(p, ev, ts)) {
		/* drawn as a slice, async slice or counter */
	} else {
		instant(p, ev, ts);
	}
	if (p->oom) {
		cli_error("out of memory");
		p->status = EXIT_ENV;
	} else if (p->werr) {
		cli_error("cannot write %s: %s", p->path, strerror(p->werr));
		p->status = EXIT_ENV;
	}
	return p->status;
}

static void metadata(struct perfetto *p, const char *what, int64_t pid,
		     int64_t tid, const char *name)
{
	begin(p, 'M', 0, pid, tid);
	buf_str(&p->b, ",\"name\":\"");
	buf_str(&p->b, what);
	buf_str(&p->b, "\",\"args\":{\"name\":");
	buf_json(&p->b, name, strlen(name));
	buf_str(&p->b, "}}");
}

static void finish(struct perfetto *p)
{
	static const char *const track_names[] = {"", " hardirq", " softirq"};
	for (size_t b = 0; b < p->nbufs; b++) {
		struct buffer *buf = &p->bufs[b];
		for (size_t c = 0; c < buf->ncpus; c++) {
			struct cpu_tracks *t = &buf->cpus[c];
			if (!t->seen)
				continue;
			close_slice(p, &t->task, t, TRACK_TASK, p->last, NULL);
			close_slice(p, &t->hard, t, TRACK_HARDIRQ, p->last,
				    NULL);
			close_slice(p, &t->soft, t, TRACK_SOFTIRQ, p->last,
				    NULL);
			for (int k = 0; k < 3; k++) {
				char nm[160];
				snprintf(nm, sizeof(nm), "%.100s%sCPU %zu%s",
					 buf->name, buf->name[0] ? " " : "", c,
					 track_names[k]);
				metadata(p, "thread_name", CPU_PID, t->tid0 + k,
					 nm);
				begin(p, 'M', 0, CPU_PID, t->tid0 + k);
				buf_str(&p->b,
					",\"name\":\"thread_sort_index\","
					"\"args\":{\"sort_index\":");
				buf_i64(&p->b, t->tid0 - CPU_PID + k);
				buf_str(&p->b, "}}");
			}
		}
	}
	if (p->nbufs)
		metadata(p, "process_name", CPU_PID, 0, "CPUs");
	for (size_t i = 0; i < p->cap; i++) {
		struct thread *th = &p->threads[i];
		if (th->tid < 0)
			continue;
		/* B slices still open end with the trace */
		for (; th->depth; th->depth--) {
			begin(p, 'E', p->last, th->pid, th->tid);
			buf_char(&p->b, '}');
		}
		metadata(p, "thread_name", th->pid, th->tid, th->comm);
	}
	for (size_t i = 0; i < p->nasync; i++) {
		struct async *a = &p->async[i];
		trawl_marker m = {.name = a->name,
				  .name_len = strlen(a->name),
				  .value = a->cookie};
		async_event(p, 'e', p->last, a->pid, &m);
		free(a->name);
	}
	p->nasync = 0;
}

int export_perfetto(trawl_trace *t, const char *path, int threads)
{
	struct perfetto p = {0};
	p.prev_state = trawl_field_lookup(t, "sched_switch", "prev_state");
	p.next_pid = trawl_field_lookup(t, "sched_switch", "next_pid");
	p.next_comm = trawl_field_lookup(t, "sched_switch", "next_comm");
	p.irq = trawl_field_lookup(t, "irq_handler_entry", "irq");
	p.irq_exit = trawl_field_lookup(t, "irq_handler_exit", "irq");
	p.vec_exit = trawl_field_lookup(t, "softirq_exit", "vec");
	p.irq_name = trawl_field_lookup(t, "irq_handler_entry", "name");
	p.vec = trawl_field_lookup(t, "softirq_entry", "vec");
	p.action = trawl_field_lookup(t, "softirq_entry", "action");
	p.freq = trawl_field_lookup(t, "cpu_frequency", "state");
	p.freq_cpu = trawl_field_lookup(t, "cpu_frequency", "cpu_id");
	p.async = calloc(MAX_ASYNC, sizeof(*p.async));
	if (!p.prev_state || !p.next_pid || !p.next_comm || !p.irq ||
	    !p.irq_exit || !p.vec_exit || !p.irq_name || !p.vec || !p.action ||
	    !p.freq || !p.freq_cpu || !p.async) {
		free(p.async);
		cli_error("out of memory");
		return EXIT_ENV;
	}
	int to_stdout = !strcmp(path, "-");
	p.f = to_stdout ? stdout : fopen(path, "w");
	if (!p.f) {
		cli_error("cannot write %s: %s", path, strerror(errno));
		free(p.async);
		return EXIT_ENV;
	}
	/* every byte goes through p.b, so the writer thread (when there is
	 * one) writes them all, in order, and stdio never holds any */
	p.fd = fileno(p.f);
	p.path = to_stdout ? "standard output" : path;
	if (threads != 1)
		p.writer = bgw_start();
	buf_str(&p.b, "{\"traceEvents\":[\n");
	int status = trawl_on(t, "*", on_event, &p) ? EXIT_ENV : cli_run(t);
	if (p.status)
		status = p.status;
	if (!status) {
		finish(&p);
		char tail[192];
		snprintf(tail, sizeof(tail),
			 "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{"
			 "\"source\":\"trawl export\",\"written\":%llu,"
			 "\"unmatched_ends\":%llu}}\n",
			 (unsigned long long)p.n,
			 (unsigned long long)p.dropped_ends);
		buf_str(&p.b, tail);
		flush_out(&p);
	}
	if (p.writer) {
		int err = bgw_finish(p.writer, NULL);
		if (err && !p.werr)
			p.werr = err;
	}
	if (p.werr && !status) {
		cli_error("cannot write %s: %s", p.path, strerror(p.werr));
		status = EXIT_ENV;
	}
	for (size_t i = 0; i < p.nasync; i++)
		free(p.async[i].name);
	free(p.async);
	for (size_t b = 0; b < p.nbufs; b++) {
		free(p.bufs[b].name);
		free(p.bufs[b].cpus);
	}
	free(p.threads);
	free(p.kind);
	for (size_t i = 0; i < p.nheads; i++)
		buf_free(&p.heads[i]);
	free(p.heads);
	buf_free(&p.b);
	if (to_stdout ? fflush(p.f) : fclose(p.f)) {
		if (!status)
			cli_error("cannot write %s: %s", path, strerror(errno));
		status = status ? status : EXIT_ENV;
	}
	return status;
}
