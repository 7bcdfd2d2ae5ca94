/* SPDX-License-Identifier: MIT */
/*
 * The perf.data record source (lib/dat/dat-records.h): the data section's
 * records walked in file order, their tracepoint samples handed to the
 * trace.dat reader in time order, the rest applied (COMM, FORK: task
 * names; LOST, LOST_SAMPLES: lost events) or counted and skipped.
 *
 * Order: perf empties each CPU's buffer in turn and writes a
 * FINISHED_ROUND after each pass over all of them, so a record can be
 * older than one of an earlier CPU's chunk but, as perf itself assumes
 * (tools/perf/util/session.c, process_finished_round), never older than
 * the newest record of the round before the last. Records wait in a heap
 * on (time, record number) and leave once a FINISHED_ROUND says nothing
 * older can come, so memory holds about two rounds. A file that breaks
 * the rule, or has no rounds (the heap is bounded by HEAP_MAX and lets
 * its oldest go when full), comes out in a disorder the run's pre-scan
 * sees, and the run then sorts it (lib/core/run.c): the order is exact
 * either way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../input/input.h"
#include "perf-int.h"

#define HEAP_MAX (1u << 20) /* 24 MiB of references */
#define COMM_MAX 31

struct comm_ent {
	int32_t tid;
	int32_t tgid; /* its process; -1: not known */
	uint8_t used;
	uint8_t len;
	char comm[COMM_MAX + 1];
};

typedef struct perf_src {
	trawl_trace *t;
	tw_input *in;
	tw_perf_file f;
	/* the records the walk reads: the data section in the file's map
	 * (din is in), or its copy with the COMPRESSED records expanded
	 * (perf record -z: din is that file's, dfd its descriptor) */
	tw_input *din;
	int dfd;
	const unsigned char *dmap;
	uint64_t dbegin, dsize;
	tw_records recs;
	/* the walk over the data section, in file order */
	uint64_t at, end, seq;
	int eof;
	int64_t last_ts;
	/* the rounds: what may leave the heap */
	int64_t limit, round_max, seen_max;
	tw_perf_order order;
	/* in_order(): reading only to see whether the merge keeps time
	 * order (nothing waits); unsorted when a record is older than the
	 * limit when it comes; records of the rounds that may wait */
	int probing, unsorted;
	uint64_t round_records, last_round_records;
	/* task names by tid, as the records handed out so far say */
	struct comm_ent *comms;
	size_t ncomms, comms_cap;
	/* this pass's counts */
	uint64_t records[TW_PERF_RECORD_MAX];
	uint64_t other_samples; /* of events that are not tracepoints */
	uint64_t records_other; /* of types past TW_PERF_RECORD_MAX */
	uint64_t stop_off;	/* the walk could not go on from here */
	char stop_why[96];
	/* a note for the trace's counters, handed out before anything more
	 * (kind 0: none); the source itself counts nothing in the trace */
	tw_record note;
	/* what a sample that is not a tracepoint's becomes, and the stacks
	 * its callchain does, handed out right after it (perf-synth.c) */
	unsigned char synth[TW_PERF_SYNTH_MAX];
	tw_perf_stacks stacks;
	tw_perf_maps maps; /* the tasks' mappings, for user frames */
	tw_record pending[2];
	int npending, next_pending;
	uint64_t guest_frames; /* frames of neither the kernel nor the user */
	int maps_oom;	       /* out of memory keeping them: frames unnamed */
} perf_src;

static void stop(perf_src *s, const char *why);

/* A record that cannot be what it says: noted at its offset, or with
 * TRAWL_OPEN_STRICT the end of the run there. Return: 1 (read_one()'s:
 * the note goes out first). */
static int bad_record(perf_src *s, int scan, uint64_t off)
{
	if (scan)
		return 0;
	if (s->t->opts.flags & TRAWL_OPEN_STRICT) {
		s->at = off;
		stop(s, "a damaged record (its content does not fit its "
			"size, or no attr has its id)");
		return 1;
	}
	s->note = (tw_record){.kind = TW_RECORD_DAMAGED, .value = off};
	return 1;
}

static struct comm_ent *comm_slot(perf_src *s, int32_t tid, int make)
{
	if (!s->comms_cap) {
		if (!make)
			return NULL;
		s->comms = tw_calloc(&s->t->mem, 1024, sizeof(*s->comms));
		if (!s->comms)
			return NULL;
		s->comms_cap = 1024;
	}
	if (make && (s->ncomms + 1) * 2 > s->comms_cap) {
		size_t ncap = s->comms_cap * 2;
		struct comm_ent *n = tw_calloc(&s->t->mem, ncap, sizeof(*n));
		if (!n)
			return NULL;
		for (size_t i = 0; i < s->comms_cap; i++) {
			if (!s->comms[i].used)
				continue;
			size_t k = ((uint32_t)s->comms[i].tid * 2654435761u) &
				   (ncap - 1);
			while (n[k].used)
				k = (k + 1) & (ncap - 1);
			n[k] = s->comms[i];
		}
		tw_free(&s->t->mem, s->comms);
		s->comms = n;
		s->comms_cap = ncap;
	}
	size_t mask = s->comms_cap - 1;
	size_t k = ((uint32_t)tid * 2654435761u) & mask;
	while (s->comms[k].used) {
		if (s->comms[k].tid == tid)
			return &s->comms[k];
		k = (k + 1) & mask;
	}
	if (!make)
		return NULL;
	s->comms[k].used = 1;
	s->comms[k].tid = tid;
	s->comms[k].tgid = -1;
	s->comms[k].len = 0;
	s->comms[k].comm[0] = 0;
	s->ncomms++;
	return &s->comms[k];
}

/* Out of memory: the name is not kept, the events still go out. */
static void set_comm(perf_src *s, int32_t tid, int32_t tgid, const char *c,
		     size_t n)
{
	struct comm_ent *e = comm_slot(s, tid, 1);
	if (!e)
		return;
	e->tgid = tgid;
	if (n > COMM_MAX)
		n = COMM_MAX;
	memcpy(e->comm, c, n);
	e->comm[n] = 0;
	e->len = (uint8_t)n;
}

static const char *comm_of(void *ctx, int32_t pid, uint32_t *len, int32_t *tgid)
{
	perf_src *s = ctx;
	const struct comm_ent *e = comm_slot(s, pid, 0);
	*tgid = e ? e->tgid : pid == 0 ? 0 : -1;
	if (e && e->len) { /* a FORK of a task not named: its tgid only */
		*len = e->len;
		return e->comm;
	}
	if (pid == 0) { /* as perf names the idle task */
		*len = 7;
		return "swapper";
	}
	return NULL;
}

static void stop(perf_src *s, const char *why)
{
	s->eof = 1; /* next() closes the open run */
	s->stop_off = s->at;
	snprintf(s->stop_why, sizeof(s->stop_why), "%s", why);
}

/*
 * PERF_RECORD_ID_INDEX: u64 nr, then nr x {u64 id, idx, cpu, tid}: the CPU
 * of each stream id, for the lost counts perf writes at the end (their
 * sample_id has nothing but the id).
 */
static void index_ids(perf_src *s, const unsigned char *p, size_t n, int scan,
		      uint64_t off)
{
	if (n < 8 || tw_perf_u64(p) > (n - 8) / 32) {
		bad_record(s, scan, off);
		return;
	}
	uint64_t nr = tw_perf_u64(p);
	for (uint64_t i = 0; i < nr; i++) {
		const unsigned char *e = p + 8 + i * 32;
		tw_perf_id *id = tw_perf_id_find(&s->f, tw_perf_u64(e));
		uint64_t cpu = tw_perf_u64(e + 16);
		if (id && cpu < TW_MAX_CPUS)
			id->cpu = (int32_t)cpu;
	}
}

/* The CPU a lost count is of: its stream's, else its sample_id's. */
static int32_t lost_cpu(const perf_src *s, const tw_perf_sample *smp)
{
	const tw_perf_id *id = smp->id ? tw_perf_id_find(&s->f, smp->id) : NULL;
	return id && id->cpu >= 0 ? id->cpu : smp->cpu;
}

/*
 * The least body of the kernel's records (include/uapi/linux/perf_event.h),
 * before their sample_id: shorter is damage, counted, even where the
 * record is only skipped. 0: any size.
 */
static size_t least_body(uint32_t type)
{
	switch (type) {
	case TW_PERF_RECORD_MMAP: /* pid, tid, addr, len, pgoff, filename */
		return 32 + 1;
	case TW_PERF_RECORD_LOST: /* id, lost */
		return 16;
	case TW_PERF_RECORD_COMM: /* pid, tid, comm */
		return 8 + 1;
	case TW_PERF_RECORD_EXIT: /* pid, ppid, tid, ptid, time */
	case TW_PERF_RECORD_FORK:
	case 5: /* THROTTLE: time, id, stream_id */
	case 6: /* UNTHROTTLE */
		return 24;
	case 10: /* MMAP2: pid, tid, addr, len, pgoff, dev/build id,
		  * prot, flags, filename */
		return 32 + 24 + 8 + 1;
	case TW_PERF_RECORD_LOST_SAMPLES: /* lost */
		return 8;
	case 14: /* SWITCH */
		return 0;
	case 15: /* SWITCH_CPU_WIDE: next_prev_pid, next_prev_tid */
		return 8;
	}
	return 0;
}

/* The name a COMM, MMAP or MMAP2 ends its body with is NUL-terminated
 * before the sample_id: 1, or 0 when it runs into it (a record cut short
 * with its size). Other records: 1. */
static int name_whole(uint32_t type, const unsigned char *body, size_t n,
		      size_t trailer)
{
	size_t at = type == TW_PERF_RECORD_COMM	  ? 8
		    : type == TW_PERF_RECORD_MMAP ? 32
		    : type == 10		  ? 32 + 24 + 8
						  : 0;
	if (!at)
		return 1;
	return memchr(body + at, 0, n - trailer - at) != NULL;
}

/*
 * The next record of the file into the heap (or applied, if it needs no
 * time order). Return: 0, 1 when what the heap may give changed (a round
 * ended, a run closed), or -1 out of memory.
 */
static int read_one(perf_src *s, int scan)
{
	if (s->end - s->at < 8) {
		if (s->at < s->end)
			stop(s, "a record header cut short");
		s->eof = 1;
		return 0;
	}
	const unsigned char *rec = s->dmap + s->at;
	uint32_t type = tw_perf_u32(rec);
	uint16_t size;
	memcpy(&size, rec + 6, 2);
	if (size < 8) {
		stop(s, "a record smaller than its header");
		return 0;
	}
	if (size > s->end - s->at) {
		stop(s, "a record that runs past the data section");
		return 0;
	}
	uint64_t off = s->at;
	s->at += size;
	s->seq++;
	if (type < TW_PERF_RECORD_MAX)
		s->records[type]++;
	else
		s->records_other++;
	const unsigned char *body = rec + 8;
	size_t n = size - 8u;
	tw_perf_sample smp;
	int64_t ts;
	uint32_t raw_at = 0, raw_len = 0; /* a sample's, in its body */
	if (s->probing && type == TW_PERF_RECORD_SAMPLE && s->f.time_at &&
	    n >= s->f.time_at) {
		/* the pre-scan needs only the time, where every attr has it;
		 * a record the delivery will skip can only make the file look
		 * unordered, and then it is sorted: never out of order */
		ts = (int64_t)(tw_perf_u64(body + s->f.time_at - 8) &
			       INT64_MAX);
		goto timed;
	}
	if (type != TW_PERF_RECORD_SAMPLE && type < 64) {
		/* the kernel's: a body, then the first attr's sample_id
		 * (perf makes all attrs agree on its size) */
		const tw_perf_attr *a0 = &s->f.attrs[0];
		size_t trailer = a0->sample_id_all ? a0->id_trailer : 0;
		if (n < least_body(type) + trailer ||
		    !name_whole(type, body, n, trailer))
			return bad_record(s, scan, off);
	}
	switch (type) {
	case TW_PERF_RECORD_SAMPLE: {
		int a = tw_perf_sample_attr(&s->f, rec, size);
		if (a < 0)
			return bad_record(s, scan, off);
		const tw_perf_attr *at = &s->f.attrs[a];
		/* most samples: fields of one size before RAW, read in place */
		int q = tw_perf_sample_quick(at, body, n, &ts, &smp.cpu,
					     &raw_at, &raw_len);
		if (q < 0)
			return bad_record(s, scan, off);
		if (!q) {
			if (tw_perf_sample_parse(at, body, n, &smp))
				return bad_record(s, scan, off);
			ts = smp.time;
			raw_at = smp.raw ? (uint32_t)(smp.raw - body) : 0;
			raw_len = smp.raw_size;
		}
		if (at->type != TW_PERF_TYPE_TRACEPOINT && !at->synth) {
			s->other_samples++; /* perf's dummy event's */
			return 0;
		}
		if (at->type == TW_PERF_TYPE_TRACEPOINT &&
		    (!raw_at || raw_len < 8))
			return bad_record(s, scan, off);
		if (at->synth || (at->sample_type & TW_PERF_SAMPLE_CALLCHAIN)) {
			/* made into records when it leaves (apply()) */
			raw_at = 0;
		}
		break;
	}
	case TW_PERF_RECORD_MMAP:
	case TW_PERF_RECORD_MMAP2:
		/* the user frames' files: only for a file of callchains */
		if (!s->stacks.user)
			return 0;
		/* fall through */
	case TW_PERF_RECORD_COMM:
	case TW_PERF_RECORD_FORK:
	case TW_PERF_RECORD_LOST:
	case TW_PERF_RECORD_LOST_SAMPLES: {
		int a = tw_perf_record_attr(&s->f, rec, size, 0);
		if (a < 0 || tw_perf_sample_id(&s->f.attrs[a], body, n, &smp))
			return bad_record(s, scan, off);
		/* perf's own records (the tasks at the start, the lost
		 * counts at the end) have time 0: where the file puts them */
		ts = smp.time ? smp.time : INT64_MIN;
		break;
	}
	case TW_PERF_RECORD_ID_INDEX:
		index_ids(s, body, n, scan, off);
		return s->note.kind != 0;
	case TW_PERF_RECORD_HEADER_TRACING_DATA: {
		/* pipe mode: the tracing data (read at the open) follows */
		uint64_t after = tw_perf_tracing_after(body, n);
		if (n < 4)
			return bad_record(s, scan, off);
		if (after > s->end - s->at) {
			stop(s, "tracing data that runs past the data");
			return 1;
		}
		s->at += after;
		return 0;
	}
	case TW_PERF_RECORD_HEADER_FEATURE: /* pipe mode: read at the open */
		return n < 8 ? bad_record(s, scan, off) : 0;
	case TW_PERF_RECORD_FINISHED_ROUND:
		/* what is older than the last round's newest may go */
		if (s->round_max > s->limit)
			s->limit = s->round_max;
		s->round_max = s->seen_max;
		if (s->probing &&
		    s->last_round_records + s->round_records > HEAP_MAX)
			s->unsorted =
				-1; /* the merge would let some go early */
		s->last_round_records = s->round_records;
		s->round_records = 0;
		if (s->probing) {
			/* nothing waits: the pages behind go back */
			tw_input_consumed(s->din, s->at, 0);
			return 0;
		}
		if (tw_perf_order_close(&s->order))
			return -1;
		/* the map's pages before what still waits go back, so RSS
		 * stays at about two rounds of the file */
		if (!scan)
			tw_input_consumed(
				s->din, tw_perf_order_low(&s->order, s->at), 0);
		return 1;
	default:
		return 0; /* counted by type above */
	}
	if (ts == INT64_MIN)
		ts = s->last_ts; /* no time: where the file puts it */
timed:
	s->last_ts = ts;
	if (ts > s->seen_max)
		s->seen_max = ts;
	if (s->probing) {
		s->round_records++;
		if (ts < s->limit)
			s->unsorted = 1;
		return 0;
	}
	tw_perf_ref r = {ts, s->seq, off, -1, 0, 0};
	if (type == TW_PERF_RECORD_SAMPLE) {
		r.cpu = smp.cpu;
		r.raw_at = raw_at ? (uint16_t)(raw_at + 8) : 0;
		r.raw_len = (uint16_t)raw_len;
	}
	int rc = tw_perf_order_add(&s->order, &r);
	if (rc < 0)
		return -1;
	/* no rounds, or rounds too big: the oldest go first */
	if (s->order.live > HEAP_MAX)
		return tw_perf_order_close(&s->order) ? -1 : 1;
	return rc;
}

/*
 * A sample read whole as it leaves: the event (a tracepoint's raw data,
 * or the record made for another event's sample), its callchain's stacks
 * after it as ftrace writes them after an event. Return: 1 with *out.
 */
static int sample_records(perf_src *s, const tw_perf_ref *r,
			  const unsigned char *rec, uint16_t size,
			  tw_record *out)
{
	int a = tw_perf_sample_attr(&s->f, rec, size);
	tw_perf_sample smp;
	/* read_one() parsed it before: it parses again */
	tw_perf_sample_parse(&s->f.attrs[a], rec + 8, size - 8u, &smp);
	const tw_perf_attr *at = &s->f.attrs[a];
	*out = (tw_record){.kind = TW_RECORD_EVENT, .ts = r->ts, .cpu = r->cpu};
	if (smp.tid > 0 && smp.pid > 0) {
		/* the sample says its task's process (TID: pid, tid) */
		struct comm_ent *e = comm_slot(s, smp.tid, 1);
		if (e && e->tgid < 0)
			e->tgid = smp.pid;
	}
	if (at->synth) {
		out->data = s->synth;
		out->len = tw_perf_synth_sample(at, &smp, s->synth);
	} else {
		out->data = smp.raw;
		out->len = smp.raw_size;
	}
	s->npending = s->next_pending = 0;
	if (!(at->sample_type & TW_PERF_SAMPLE_CALLCHAIN) || !s->stacks.kernel)
		return 1;
	tw_perf_synth_stacks(&s->f, &smp, &s->stacks);
	tw_perf_synth_user_maps(&s->maps, smp.pid, &s->stacks);
	s->guest_frames += s->stacks.other;
	s->stacks.other = 0;
	tw_record k = *out;
	k.data = s->stacks.kernel;
	k.len = s->stacks.kernel_len;
	s->pending[s->npending++] = k;
	if (s->stacks.user_len) {
		k.data = s->stacks.user;
		k.len = s->stacks.user_len;
		s->pending[s->npending++] = k;
	}
	return 1;
}

/*
 * MMAP: u32 pid, tid, u64 addr, len, pgoff, char filename[]; MMAP2 has
 * 24 bytes of device and inode (or build id) and u32 prot, flags before
 * its filename. The kernel's own (pid -1) are not a task's.
 */
static void map_record(perf_src *s, uint32_t type, const unsigned char *body,
		       size_t n, const tw_perf_attr *a)
{
	size_t name_at = type == TW_PERF_RECORD_MMAP ? 32 : 32 + 24 + 8;
	size_t trailer = a->sample_id_all ? a->id_trailer : 0;
	if (n < name_at + trailer)
		return;
	int32_t pid = (int32_t)tw_perf_u32(body);
	if (pid < 0)
		return;
	const char *name = (const char *)body + name_at;
	size_t nlen = strnlen(name, n - trailer - name_at);
	if (tw_perf_maps_add(&s->maps, pid, tw_perf_u64(body + 8),
			     tw_perf_u64(body + 16), tw_perf_u64(body + 24),
			     name, nlen))
		s->maps_oom = 1;
}

/* A record off the heap: 1 with *out when it is an event to hand out. */
static int apply(perf_src *s, const tw_perf_ref *r, tw_record *out, int scan)
{
	const unsigned char *rec = s->dmap + r->off;
	if (r->raw_at) { /* a tracepoint sample, read whole before */
		out->kind = TW_RECORD_EVENT;
		out->ts = r->ts;
		out->cpu = r->cpu;
		out->data = rec + r->raw_at;
		out->len = r->raw_len;
		return 1;
	}
	uint32_t type = tw_perf_u32(rec);
	uint16_t size;
	memcpy(&size, rec + 6, 2);
	if (type == TW_PERF_RECORD_SAMPLE)
		return sample_records(s, r, rec, size, out);
	if (scan)
		return 0;
	const unsigned char *body = rec + 8;
	size_t n = size - 8u;
	tw_perf_sample smp;
	int a = tw_perf_record_attr(&s->f, rec, size, 0);
	tw_perf_sample_id(&s->f.attrs[a], body, n, &smp);
	switch (type) {
	case TW_PERF_RECORD_COMM:
		/* u32 pid, u32 tid, char comm[] (NUL-padded to 8) */
		if (n >= 8) {
			size_t room =
				n - 8 -
				s->f.attrs[a].id_trailer *
					(size_t)s->f.attrs[a].sample_id_all;
			if (room > n - 8)
				room = n - 8;
			const char *c = (const char *)body + 8;
			set_comm(s, (int32_t)tw_perf_u32(body + 4),
				 (int32_t)tw_perf_u32(body), c,
				 strnlen(c, room));
		}
		break;
	case TW_PERF_RECORD_MMAP:
	case TW_PERF_RECORD_MMAP2:
		map_record(s, type, body, n, &s->f.attrs[a]);
		break;
	case TW_PERF_RECORD_FORK:
		/* u32 pid, ppid, tid, ptid: a new thread has its parent's
		 * name until it sets its own, a new process its mappings */
		if (n >= 16 && tw_perf_u32(body) != tw_perf_u32(body + 4) &&
		    s->stacks.user &&
		    tw_perf_maps_fork(&s->maps, (int32_t)tw_perf_u32(body),
				      (int32_t)tw_perf_u32(body + 4)))
			s->maps_oom = 1;
		if (n >= 16) {
			int32_t pid = (int32_t)tw_perf_u32(body);
			int32_t tid = (int32_t)tw_perf_u32(body + 8);
			int32_t ptid = (int32_t)tw_perf_u32(body + 12);
			const struct comm_ent *p = comm_slot(s, ptid, 0);
			if (p && tid != ptid) {
				char c[COMM_MAX + 1];
				memcpy(c, p->comm, sizeof(c));
				set_comm(s, tid, pid, c, p->len);
			} else {
				struct comm_ent *e = comm_slot(s, tid, 1);
				if (e)
					e->tgid = pid;
			}
		}
		break;
	case TW_PERF_RECORD_LOST: /* u64 id, u64 lost */
		if (n >= 16)
			s->note = (tw_record){.kind = TW_RECORD_LOST,
					      .cpu = lost_cpu(s, &smp),
					      .value = tw_perf_u64(body + 8)};
		break;
	case TW_PERF_RECORD_LOST_SAMPLES: /* u64 lost */
		if (n >= 8)
			s->note = (tw_record){.kind = TW_RECORD_LOST,
					      .cpu = lost_cpu(s, &smp),
					      .value = tw_perf_u64(body)};
		break;
	}
	return 0;
}

static int next(void *ctx, tw_record *out, int scan, trawl_error *err)
{
	perf_src *s = ctx;
	for (;;) {
		if (TW_UNLIKELY(s->next_pending < s->npending)) {
			*out = s->pending[s->next_pending++];
			return TW_NEXT_EVENT;
		}
		if (TW_UNLIKELY(s->note.kind)) {
			*out = s->note;
			s->note.kind = 0;
			return TW_NEXT_EVENT;
		}
		/* at the end, the open run joins the merge before anything
		 * more leaves it */
		if (s->eof && s->order.open_begin < s->order.nrefs &&
		    tw_perf_order_close(&s->order))
			return tw_error_at(err, TRAWL_ENOMEM, 0, s->t->name, 0,
					   0, 0, "out of memory");
		const tw_perf_ref *top = tw_perf_order_top(&s->order);
		if (top && (s->eof || top->ts <= s->limit ||
			    s->order.live > HEAP_MAX)) {
			tw_perf_ref r;
			tw_perf_order_pop(&s->order, &r);
			if (apply(s, &r, out, scan))
				return TW_NEXT_EVENT;
			continue;
		}
		if (s->eof)
			return TW_NEXT_EOF;
		/* nothing can leave until a round ends or a run closes */
		int rc;
		while ((rc = read_one(s, scan)) == 0 && !s->eof)
			;
		if (rc < 0)
			return tw_error_at(err, TRAWL_ENOMEM, 0, s->t->name, 0,
					   0, 0, "out of memory");
	}
}

static int rewind_src(void *ctx, trawl_error *err)
{
	perf_src *s = ctx;
	/* the map's pages are given back from the start again */
	int rc = tw_input_rewind(s->din, err);
	if (rc)
		return rc;
	s->at = s->dbegin;
	s->end = s->dbegin + s->dsize;
	s->seq = 0;
	s->eof = 0;
	s->last_ts = 0;
	s->limit = s->round_max = s->seen_max = INT64_MIN;
	tw_perf_order_reset(&s->order);
	s->probing = s->unsorted = 0;
	s->round_records = s->last_round_records = 0;
	if (s->comms)
		memset(s->comms, 0, s->comms_cap * sizeof(*s->comms));
	s->ncomms = 0;
	memset(s->records, 0, sizeof(s->records));
	s->other_samples = s->records_other = 0;
	s->stop_off = 0;
	s->stop_why[0] = 0;
	s->note.kind = 0;
	s->npending = s->next_pending = 0;
	s->guest_frames = 0;
	tw_perf_maps_reset(&s->maps);
	s->maps_oom = 0;
	return 0;
}

/* Records neither delivered nor applied. */
static uint64_t skipped(const perf_src *s)
{
	uint64_t n = s->other_samples + s->records_other;
	for (uint32_t k = 0; k < TW_PERF_RECORD_MAX; k++)
		switch (k) {
		case TW_PERF_RECORD_SAMPLE:
		case TW_PERF_RECORD_COMM:
		case TW_PERF_RECORD_FORK:
		case TW_PERF_RECORD_LOST:
		case TW_PERF_RECORD_LOST_SAMPLES:
		case TW_PERF_RECORD_FINISHED_ROUND:
		case TW_PERF_RECORD_ID_INDEX:
		case TW_PERF_RECORD_HEADER_ATTR: /* pipe mode's metadata */
		case TW_PERF_RECORD_HEADER_TRACING_DATA:
		case TW_PERF_RECORD_HEADER_FEATURE:
			break;
		case TW_PERF_RECORD_MMAP: /* applied for the user frames */
		case TW_PERF_RECORD_MMAP2:
			if (!s->stacks.user)
				n += s->records[k];
			break;
		default:
			n += s->records[k];
		}
	return n;
}

/* n damaged places, the first at off, counted; whether --strict makes it
 * the run's error. */
static int counted(trawl_trace *t, uint64_t n, uint64_t off)
{
	tw_note_bad_line(t, off);
	t->stats.bad_lines += n - 1;
	return (t->opts.flags & TRAWL_OPEN_STRICT) != 0;
}

static int finish(void *ctx, trawl_error *err)
{
	perf_src *s = ctx;
	trawl_trace *t = s->t;
	t->stats.skipped_records = skipped(s);
	if (s->f.feat_damaged &&
	    counted(t, s->f.feat_damaged, s->f.feat_damage_off))
		return tw_error_at(err, TRAWL_EPARSE, 0, t->name, 0, 0,
				   s->f.feat_damage_off,
				   "a feature section that lies outside the "
				   "file or over another part of it, in the "
				   "table at offset %llu",
				   (unsigned long long)s->f.feat_damage_off);
	/* what zstd refused of perf record -z's records */
	if (s->f.zdamaged && counted(t, s->f.zdamaged, s->f.zdamage_off))
		return tw_error_at(err, TRAWL_EPARSE, 0, t->name, 0, 0,
				   s->f.zdamage_off,
				   "a compressed record (perf record -z) that "
				   "does not decompress, at offset %llu",
				   (unsigned long long)s->f.zdamage_off);
	if (s->stop_why[0]) {
		tw_note_bad_line(t, s->stop_off);
		return tw_error_at(
			err, TRAWL_EPARSE, 0, t->name, 0, 0, s->stop_off,
			"%s at offset %llu; the records "
			"before it were read",
			s->stop_why, (unsigned long long)s->stop_off);
	}
	if (s->f.cut)
		return tw_error_at(err, TRAWL_EPARSE, 0, t->name, 0, 0,
				   s->f.size,
				   "the file is truncated at offset %llu, "
				   "inside its data section; the records "
				   "before were read",
				   (unsigned long long)s->f.size);
	return 0;
}

/*
 * The pre-scan's walk over a row of samples whose time every attr puts in
 * one place, as read_one() would take them (probing) with its locals in
 * registers; it stops before any other record. Return: whether it took
 * any.
 */
static int probe_samples(perf_src *s)
{
	const unsigned char *map = s->dmap;
	uint64_t at = s->at, end = s->end, seq = s->seq, n = 0;
	uint32_t time_at = s->f.time_at;
	int64_t ts = s->last_ts, seen_max = s->seen_max, limit = s->limit;
	if (!time_at)
		return 0;
	while (end - at >= 8) {
		const unsigned char *rec = map + at;
		uint16_t size;
		memcpy(&size, rec + 6, 2);
		if (tw_perf_u32(rec) != TW_PERF_RECORD_SAMPLE ||
		    size < 8u + time_at || size > end - at)
			break;
		ts = (int64_t)(tw_perf_u64(rec + time_at) & INT64_MAX);
		at += size;
		seq++;
		n++;
		if (ts > seen_max)
			seen_max = ts;
		if (ts < limit) {
			s->unsorted = 1;
			break;
		}
	}
	s->records[TW_PERF_RECORD_SAMPLE] += n;
	s->round_records += n;
	s->at = at;
	s->seq = seq;
	s->last_ts = ts;
	s->seen_max = seen_max;
	return n != 0;
}

/* Whether next() hands records out in time order: one walk of the file
 * without keeping any (the run's order pre-scan, cheaper than next()). */
static int in_order(void *ctx, int *sorted, trawl_error *err)
{
	perf_src *s = ctx;
	int rc = rewind_src(s, err);
	if (rc)
		return rc;
	s->probing = 1;
	while (!s->eof && s->unsorted == 0)
		if (!probe_samples(s) && read_one(s, 1) < 0)
			return tw_error_at(err, TRAWL_ENOMEM, 0, s->t->name, 0,
					   0, 0, "out of memory");
	int unsure = s->unsorted < 0;
	*sorted = s->unsorted == 0;
	rewind_src(s, err);
	return unsure ? -TRAWL_EUNSUPPORTED : 0;
}

static const char *kallsyms(void *ctx, size_t *len)
{
	return tw_perf_kallsyms(&((perf_src *)ctx)->f, len);
}

static const char *host(void *ctx, const char *what)
{
	const perf_src *s = ctx;
	const char *v = !strcmp(what, "hostname")     ? s->f.hostname
			: !strcmp(what, "os_release") ? s->f.osrelease
						      : "";
	return *v ? v : NULL;
}

static void progress(void *ctx, uint64_t *done, uint64_t *total)
{
	const perf_src *s = ctx;
	*done = s->at - s->dbegin;
	*total = s->dsize;
}

static void close_src(void *ctx)
{
	perf_src *s = ctx;
	trawl_trace *t = s->t;
	tw_perf_order_fini(&s->order);
	tw_free(&t->mem, s->comms);
	tw_free(&t->mem, s->stacks.kernel);
	tw_free(&t->mem, s->stacks.user);
	tw_perf_maps_fini(&s->maps);
	tw_perf_file_close(&s->f);
	if (s->din && s->din != s->in)
		tw_input_close(s->din);
	if (s->dfd >= 0)
		close(s->dfd);
	if (s->in)
		tw_input_close(s->in);
	tw_free(&t->mem, s);
}

/* perf record -z: the walk reads the records decompressed, from a copy
 * of the data section (perf-expand.c). */
static int expand(perf_src *s, trawl_error *err)
{
	int rc = tw_perf_expand(&s->f, s->t->opts.tmpdir, &s->dfd, err);
	if (rc)
		return rc;
	s->din = tw_input_open(&s->t->mem, NULL, s->dfd, s->t->name, err);
	if (!s->din)
		return err->code ? -err->code : -TRAWL_EIO;
	size_t len;
	s->dmap = (const unsigned char *)tw_input_map(s->din, &len);
	s->dbegin = 0;
	s->dsize = len; /* 0: no records (and no map) */
	return 0;
}

int tw_perf_open(trawl_trace *t, struct tw_input *in,
		 const struct tw_records **src, trawl_error *err)
{
	perf_src *s = tw_calloc(&t->mem, 1, sizeof(*s));
	if (!s) {
		tw_input_close(in);
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
				   "out of memory");
	}
	s->t = t;
	s->in = in;
	s->dfd = -1;
	s->order.mem = &t->mem;
	s->maps.mem = &t->mem;
	size_t len;
	const unsigned char *map =
		(const unsigned char *)tw_input_map(in, &len);
	int rc;
	if (!map) {
		/* a pipe (perf record -o - | trawl ...) or a compressed
		 * file: read from a temporary copy */
		if ((rc = tw_input_spool(in, t->opts.tmpdir, err)))
			goto fail;
		map = (const unsigned char *)tw_input_map(in, &len);
		if (!map) {
			rc = tw_error_at(err, TRAWL_EFORMAT, 0, t->name, 0, 0,
					 0, "an empty perf.data stream");
			goto fail;
		}
	}
	if ((rc = tw_perf_file_open(&s->f, &t->mem, t->name, map, len, err)))
		goto fail;
	s->din = in;
	s->dmap = map;
	s->dbegin = s->f.data.offset;
	s->dsize = s->f.data.size;
	if ((rc = tw_perf_compressed(&s->f, err)) < 0)
		goto fail;
	if (rc && (rc = expand(s, err)))
		goto fail;
	/* a callchain's stacks: at most a record's frames each */
	for (size_t i = 0; i < s->f.nattrs; i++)
		if (s->f.attrs[i].sample_type & TW_PERF_SAMPLE_CALLCHAIN) {
			s->stacks.kernel = tw_malloc(&t->mem, 16 + 65536);
			s->stacks.user = tw_malloc(&t->mem, TW_PERF_USER_MAX);
			if (!s->stacks.kernel || !s->stacks.user) {
				rc = tw_error_at(err, TRAWL_ENOMEM, 0, t->name,
						 0, 0, 0, "out of memory");
				goto fail;
			}
			break;
		}
	for (int c = 0; c < s->f.nr_cpus; c++)
		if (tw_note_cpu(t, c) < 0) {
			rc = tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
					 "out of memory");
			goto fail;
		}
	t->stats.bytes = len;
	s->recs = (tw_records){
		.meta = &s->f.meta,
		.next = next,
		.rewind = rewind_src,
		.comm = comm_of,
		.kallsyms = kallsyms,
		.in_order = in_order,
		.finish = finish,
		.host = host,
		.progress = progress,
		.close = close_src,
		.ctx = s,
	};
	rewind_src(s, err);
	*src = &s->recs;
	return 0;
fail:
	close_src(s);
	return rc;
}
