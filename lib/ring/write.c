/* SPDX-License-Identifier: MIT */
/*
 * The writer: reserve a record's place in this CPU's buffer with one
 * compare-and-swap of the byte position, write the record, count it in its
 * sub-buffer's commit word. Several threads share a CPU buffer (a thread
 * can be preempted or migrate anywhere in here), so every step is an
 * atomic operation on shared words, never a per-CPU assumption; the
 * protocol and its states are in ring-int.h and docs/ARCHITECTURE.md.
 *
 * Bounded work: the reservation is at most TRAWL_RING_MAX_TRIES attempts;
 * marking a place for a new cycle is at most MARK_TRIES attempts (the
 * reader can change a slot once per cycle); the commit is one fetch-add.
 */
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ring-int.h"

#define MARK_TRIES 4

#ifdef TW_RING_TESTPOINTS
#define TESTPOINT(r, point)                                                    \
	do {                                                                   \
		if ((r)->hook)                                                 \
			(r)->hook((r)->hook_ctx, (point));                     \
	} while (0)
#else
#define TESTPOINT(r, point)                                                    \
	do {                                                                   \
	} while (0)
#endif

static __thread uint32_t cached_tid;

void tw_ring_tid_reset(void);
void tw_ring_tid_reset(void)
{
	/* after fork() the one thread of the child still has its parent's
	 * thread's id cached; a channel created in the child starts afresh */
	cached_tid = 0;
}

static inline uint32_t current_tid(void)
{
	if (__builtin_expect(cached_tid == 0, 0))
		cached_tid = (uint32_t)gettid();
	return cached_tid;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int finished(uint64_t commit, uint32_t cycle, uint32_t size)
{
	return tw_commit_cycle(commit) == (cycle & TW_RING_CYCLE_MASK) &&
	       tw_commit_bytes(commit) == size;
}

static void count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

struct place {
	uint64_t begin; /* the record's position */
	uint64_t old;	/* woff before: padding from here to begin */
	uint64_t ts;
};

/*
 * Reserve @len bytes. Fails (0) when the event is dropped, counted. The
 * clock is read between loading woff and the CAS that moves it, so a
 * successful CAS orders timestamps as positions: the next successful CAS
 * loaded woff after this one, and read the clock after that.
 */
static inline int reserve(trawl_ring *r, struct tw_ring_cpu *c, uint32_t len,
			  struct place *p)
{
	const uint64_t size = r->subbuf_size;
	for (int attempt = 0; attempt < TRAWL_RING_MAX_TRIES; attempt++) {
		uint64_t old = __atomic_load_n(&c->woff, __ATOMIC_RELAXED);
		uint64_t off = old & (size - 1);
		uint64_t begin = old;
		if (__builtin_expect(off == 0 || off + len > size, 0)) {
			/* the record opens the next sub-buffer */
			begin = off ? old - off + size : old;
			uint64_t sub = begin >> r->subbuf_shift;
			uint32_t i = (uint32_t)(sub & (r->subbufs - 1));
			uint32_t cycle = (uint32_t)(sub >> r->subbufs_shift);
			/* Acquire pairs with the reader's release of consumed:
			 * the reader is done with the page before it is
			 * written again. */
			uint64_t done =
				__atomic_load_n(&c->consumed, __ATOMIC_ACQUIRE);
			int full = !r->overwrite &&
				   begin + size - done >
					   (uint64_t)r->subbufs * size;
			/* Acquire pairs with the commits' release: every
			 * record of the previous cycle is written before this
			 * place is used again. */
			uint64_t w = __atomic_load_n(&c->place[i].commit,
						     __ATOMIC_ACQUIRE);
			if (full || !finished(w, cycle - 1, (uint32_t)size)) {
				/* a stale woff: another writer opened it */
				if (__atomic_load_n(&c->woff,
						    __ATOMIC_RELAXED) != old)
					continue;
				count(full ? &c->lost_full : &c->lost_busy);
				return 0;
			}
		}
		p->ts = now_ns();
		TESTPOINT(r, TW_RING_AT_BEFORE_CAS);
		/* Relaxed on failure: the loop reloads. Success is a full
		 * barrier on x86 and acquire-release here: the clock read
		 * stays before it. */
		if (__atomic_compare_exchange_n(&c->woff, &old, begin + len, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			p->begin = begin;
			p->old = old;
			return 1;
		}
	}
	count(&c->lost_retry);
	return 0;
}

/*
 * The page in place @i for @cycle: mark slot[i] for the cycle if no writer
 * has yet (the opener may be preempted, so any writer of the cycle does
 * it), then reset commit[i] from the previous cycle's final value. Returns
 * the page id, or -1 if the slot kept changing (only a damaged or hostile
 * reader does that).
 */
static inline int64_t page_for(trawl_ring *r, struct tw_ring_cpu *c, uint32_t i,
			       uint32_t cycle)
{
	cycle &= TW_RING_CYCLE_MASK;
	uint64_t s = __atomic_load_n(&c->place[i].slot, __ATOMIC_ACQUIRE);
	for (int k = 0; tw_slot_cycle(s) != cycle; k++) {
		if (k == MARK_TRIES)
			return -1;
		/* commit[i] is still the previous cycle's final value: it is
		 * reset only after slot[i] shows this cycle */
		uint64_t w =
			__atomic_load_n(&c->place[i].commit, __ATOMIC_ACQUIRE);
		uint64_t mark = tw_slot_make(tw_slot_id(s), cycle, 0);
		if (__atomic_compare_exchange_n(&c->place[i].slot, &s, mark, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			/* the page's previous records go unread */
			if (r->overwrite && !(s & TW_RING_SLOT_TAKEN) &&
			    tw_commit_cycle(w) ==
				    ((cycle - 1) & TW_RING_CYCLE_MASK))
				__atomic_fetch_add(&c->overwritten,
						   tw_commit_records(w),
						   __ATOMIC_RELAXED);
			s = mark;
		}
	}
	uint64_t w = __atomic_load_n(&c->place[i].commit, __ATOMIC_ACQUIRE);
	if (__builtin_expect(tw_commit_cycle(w) != cycle, 0)) {
		/* fails only when another writer reset it first */
		__atomic_compare_exchange_n(&c->place[i].commit, &w,
					    tw_commit_make(cycle, 0, 0), 0,
					    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	}
	uint32_t id = tw_slot_id(s);
	return id <= r->subbufs ? (int64_t)id : -1;
}

static inline void commit(struct tw_ring_cpu *c, uint32_t i, uint64_t add)
{
	/* Release: the record's bytes before the count that says they are
	 * there; pairs with the acquire loads of the reader and of the writer
	 * that reuses the place. */
	__atomic_fetch_add(&c->place[i].commit, add, __ATOMIC_RELEASE);
}

/* The rest of the previous sub-buffer, from @old, becomes padding. */
static void pad(trawl_ring *r, uint32_t cpu, struct tw_ring_cpu *c,
		uint64_t old)
{
	uint64_t size = r->subbuf_size;
	uint64_t sub = old >> r->subbuf_shift;
	uint32_t i = (uint32_t)(sub & (r->subbufs - 1));
	uint32_t len = (uint32_t)(size - (old & (size - 1)));
	int64_t id = page_for(r, c, i, (uint32_t)(sub >> r->subbufs_shift));
	if (id >= 0) {
		unsigned char *at =
			tw_ring_page(r, cpu, (uint32_t)id) + (old & (size - 1));
		__atomic_store_n((uint64_t *)at,
				 tw_ring_word_a(old, len, TW_RING_PAD_TYPE),
				 __ATOMIC_RELAXED);
	}
	commit(c, i, len);
}

TRAWL_API int trawl_ring_emit(const trawl_ring_type *t, const void *fixed,
			      size_t len, const char *str)
{
	if (!trawl_ring_on(t))
		return 1;
	trawl_ring *r = t->r;
	if (len != t->fixed)
		return -TRAWL_EINVAL;
	size_t slen = 0;
	if (t->str_off >= 0)
		slen = (str ? strlen(str) : 0) + 1;
	size_t total = (TW_RING_REC_HDR + len + slen + 7) & ~(size_t)7;
	if (total > r->max_record)
		return -TRAWL_EINVAL;

	int cpu = sched_getcpu();
	uint32_t ucpu = cpu < 0 ? 0 : (uint32_t)cpu;
	if (__builtin_expect(ucpu >= r->ncpus, 0))
		ucpu %= r->ncpus;
	struct tw_ring_cpu *c = tw_ring_cpu(r, ucpu);
	struct place p;
	if (!reserve(r, c, (uint32_t)total, &p))
		return 1;
	TESTPOINT(r, TW_RING_AT_RESERVED);
	uint64_t size = r->subbuf_size;
	if ((p.begin & (size - 1)) == 0)
		TESTPOINT(r, TW_RING_AT_OPENED);
	if (p.old != p.begin)
		pad(r, ucpu, c, p.old);
	uint64_t sub = p.begin >> r->subbuf_shift;
	uint32_t i = (uint32_t)(sub & (r->subbufs - 1));
	int64_t id = page_for(r, c, i, (uint32_t)(sub >> r->subbufs_shift));
	if (__builtin_expect(id < 0, 0)) {
		/* counted as bytes only: the reader finds a damaged record */
		commit(c, i, total);
		return 1;
	}
	unsigned char *rec =
		tw_ring_page(r, ucpu, (uint32_t)id) + (p.begin & (size - 1));
	__atomic_store_n((uint64_t *)rec,
			 tw_ring_word_a(p.begin, (uint32_t)total, t->id),
			 __ATOMIC_RELAXED);
	TESTPOINT(r, TW_RING_AT_HEADER);
	memcpy(rec + 8, &p.ts, 8);
	uint32_t tid = current_tid();
	memcpy(rec + 16, &tid, 4);
	unsigned char *payload = rec + TW_RING_REC_HDR;
	memcpy(payload, fixed, len);
	if (t->str_off >= 0) {
		/* __data_loc: where the text is, counted from the first
		 * field in a kernel record (after 8 bytes of common fields) */
		uint32_t loc = (uint32_t)(len + 8) | (uint32_t)slen << 16;
		memcpy(payload + t->str_off, &loc, 4);
		if (slen > 1)
			memcpy(payload + len, str, slen - 1);
		payload[len + slen - 1] = '\0';
	}
	TESTPOINT(r, TW_RING_AT_PAYLOAD);
	/* Release: the record before the stamp that says it is finished;
	 * pairs with the reader's acquire load of stampB. */
	__atomic_store_n((uint32_t *)(rec + 20), tw_ring_stamp(p.begin),
			 __ATOMIC_RELEASE);
	TESTPOINT(r, TW_RING_AT_FINISHED);
	commit(c, i, TW_COMMIT_ONE(total));
	return 0;
}

static int emit_named(trawl_ring *r, int id, const void *fixed, size_t len,
		      const char *name)
{
	if (!r || !r->producer)
		return -TRAWL_EMISUSE;
	return trawl_ring_emit(&r->types[id], fixed, len, name);
}

TRAWL_API int trawl_ring_slice_begin(trawl_ring *r, const char *name)
{
	uint32_t loc = 0;
	return emit_named(r, TRAWL_RING_SLICE_BEGIN, &loc, 4, name);
}

TRAWL_API int trawl_ring_slice_end(trawl_ring *r, const char *name)
{
	uint32_t loc = 0;
	return emit_named(r, TRAWL_RING_SLICE_END, &loc, 4, name);
}

TRAWL_API int trawl_ring_instant(trawl_ring *r, const char *name)
{
	uint32_t loc = 0;
	return emit_named(r, TRAWL_RING_INSTANT, &loc, 4, name);
}

TRAWL_API int trawl_ring_counter(trawl_ring *r, const char *name, int64_t value)
{
	struct {
		int64_t value;
		uint32_t name;
		uint32_t pad;
	} f = {value, 0, 0};
	return emit_named(r, TRAWL_RING_COUNTER, &f, sizeof(f), name);
}
