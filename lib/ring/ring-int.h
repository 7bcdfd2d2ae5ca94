/* SPDX-License-Identifier: MIT */
/*
 * lib/ring internals: the shared-memory layout of a channel and the words
 * the writer (write.c) and the reader (read.c) agree on. The design is the
 * kernel's ring_buffer.c and LTTng's lib_ring_buffer: per-CPU buffers of
 * sub-buffers, reservation by compare-and-swap of a byte position, a commit
 * count per sub-buffer, and a reader that exchanges a spare sub-buffer for
 * the one it reads. docs/ARCHITECTURE.md ("lib/ring") states the protocol;
 * tests/ring/ring.pml is its model, checked with spin.
 *
 * The file, all offsets from its start:
 *
 *	+----------------------+ 0
 *	| tw_ring_hdr          |  geometry, name, producer, type table
 *	+----------------------+ hdr.cpu_off
 *	| tw_ring_cpu  cpu 0   |  positions, counters, slot[] and commit[]
 *	| ...                  |  (hdr.cpu_stride bytes each)
 *	+----------------------+ hdr.data_off
 *	| cpu 0: page 0..N     |  N + 1 pages of subbuf_size bytes: N in the
 *	| ...                  |  ring (slot[] says which), one the reader's
 *	+----------------------+ hdr.total_size
 */
#ifndef TW_RING_INT_H
#define TW_RING_INT_H

#include <stdint.h>

#include "trawl/ring.h"

#define TW_RING_MAGIC	    "TRWLRNG1"
#define TW_RING_VERSION	    1
#define TW_RING_MIN_SUBBUF  4096u
#define TW_RING_MAX_SUBBUF  (1u << 20)
#define TW_RING_MAX_SUBBUFS 256u
#define TW_RING_MAX_CPUS    4096

/*
 * A record in a page, 8-byte aligned, 24 bytes of header:
 *
 *	 0      4      6      8              16     20     24
 *	+------+------+------+--------------+------+------+-----------
 *	|stampA| len  | type |  ts (ns)     | tid  |stampB| payload ...
 *	+------+------+------+--------------+------+------+-----------
 *
 * stamp = tw_ring_stamp(position): stampA, len and type are one 64-bit
 * store right after the reservation (so the length is known from then
 * on), stampB is stored last with release (the record is finished). A
 * stamp that does not match the record's position is an unwritten or
 * stale record. type 0 is padding (only the first word is written): the
 * rest of the sub-buffer when the next record did not fit.
 */
#define TW_RING_REC_HDR	 24u
#define TW_RING_PAD_TYPE 0u

static inline uint32_t tw_ring_stamp(uint64_t pos)
{
	/* odd, so zeroed memory never matches */
	return (uint32_t)(pos >> 3) * 2654435761u | 1u;
}

static inline uint64_t tw_ring_word_a(uint64_t pos, uint32_t len, uint32_t type)
{
	return tw_ring_stamp(pos) | (uint64_t)len << 32 | (uint64_t)type << 48;
}

/*
 * slot[i], the page in ring place i:
 *	bits  0-15 page id (0..N)      bit 16 taken by the reader
 *	bits 24-47 cycle (position / (N * subbuf_size), mod 2^24)
 * A writer of cycle c marks slot[i] from cycle c-1 to c (taken cleared)
 * before writing into the page; the reader takes a finished page by
 * swapping its spare in with the cycle unchanged and taken set. Only one
 * of the two can win for a cycle.
 *
 * commit[i], what has been committed in place i in its current cycle:
 *	bits  0-23 bytes    bits 24-39 records (padding not counted)
 *	bits 40-63 cycle (mod 2^24)
 * Cycle c is finished when it reads (c, any, subbuf_size). Its first
 * writer resets it from finished(c-1) to (c, 0, 0) after marking slot[i].
 */
#define TW_RING_CYCLE_MASK 0xffffffu
#define TW_RING_SLOT_TAKEN (1ull << 16)

static inline uint32_t tw_slot_id(uint64_t s)
{
	return (uint32_t)(s & 0xffff);
}
static inline uint32_t tw_slot_cycle(uint64_t s)
{
	return (uint32_t)(s >> 24) & TW_RING_CYCLE_MASK;
}
static inline uint64_t tw_slot_make(uint32_t id, uint32_t cycle, int taken)
{
	return (uint64_t)id | (taken ? TW_RING_SLOT_TAKEN : 0) |
	       (uint64_t)(cycle & TW_RING_CYCLE_MASK) << 24;
}
static inline uint32_t tw_commit_bytes(uint64_t w)
{
	return (uint32_t)(w & 0xffffff);
}
static inline uint32_t tw_commit_records(uint64_t w)
{
	return (uint32_t)(w >> 24) & 0xffff;
}
static inline uint32_t tw_commit_cycle(uint64_t w)
{
	return (uint32_t)(w >> 40) & TW_RING_CYCLE_MASK;
}
static inline uint64_t tw_commit_make(uint32_t cycle, uint32_t records,
				      uint32_t bytes)
{
	return (uint64_t)(cycle & TW_RING_CYCLE_MASK) << 40 |
	       (uint64_t)records << 24 | bytes;
}
#define TW_COMMIT_ONE(len) ((1ull << 24) | (uint64_t)(len))

struct tw_ring_field_desc {
	char name[TRAWL_RING_NAME_MAX + 1];
	uint8_t kind;
	uint8_t size;
	uint16_t offset;
	uint32_t reserved;
};

/* Written once by the producer before hdr.ntypes counts it (release). */
struct tw_ring_type_desc {
	char name[TRAWL_RING_NAME_MAX + 1];
	uint32_t nfields;
	uint32_t fixed_size;
	struct tw_ring_field_desc fields[TRAWL_RING_MAX_FIELDS];
};

struct tw_ring_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;
	uint32_t subbuf_size;
	uint32_t subbufs;
	uint32_t ncpus;
	uint32_t mode;
	uint64_t cpu_off;
	uint64_t cpu_stride;
	uint64_t data_off;
	uint64_t total_size;
	char name[TRAWL_RING_NAME_MAX + 1];
	int32_t producer_pid;
	uint32_t ntypes; /* types[1..ntypes-1] are declared; release */
	uint32_t reserved[14];
	struct tw_ring_type_desc types[TRAWL_RING_MAX_TYPES + 1];
};

/* One CPU's control block; the writers' words and the reader's words in
 * separate cache lines. slot[] and commit[] follow, interleaved so that a
 * writer touches one cache line for both. */
struct tw_ring_cpu {
	uint64_t woff; /* bytes reserved since creation */
	uint64_t lost_full;
	uint64_t lost_busy;
	uint64_t lost_retry;
	uint64_t overwritten;
	uint64_t pad0[3];
	uint64_t consumed; /* discard mode: the reader is done below this */
	uint64_t spare;	   /* the page the reader holds */
	uint64_t pad1[6];
	struct {
		uint64_t slot;
		uint64_t commit;
	} place[];
};

#define TW_RING_CPU_BASE 128u

/* Test points inside a write, compiled in only with TW_RING_TESTPOINTS
 * (the tests' copy of lib/ring): a hook may stop the writer there. */
enum tw_ring_point {
	TW_RING_AT_BEFORE_CAS, /* clock read, about to reserve */
	TW_RING_AT_RESERVED,   /* reserved, nothing written */
	TW_RING_AT_HEADER,     /* first header word written */
	TW_RING_AT_PAYLOAD,    /* payload written, not finished */
	TW_RING_AT_FINISHED,   /* stampB stored, not yet counted */
	TW_RING_AT_OPENED,     /* reserved a new sub-buffer, not marked */
};
typedef void (*tw_ring_hook)(void *ctx, int point);
void tw_ring_set_hook(trawl_ring *r, tw_ring_hook hook, void *ctx);

struct tw_ring_reader_cpu {
	uint64_t pos;  /* next position to read */
	uint32_t held; /* overwrite: a page taken for base held_base */
	uint32_t held_id;
	uint64_t held_base;
	uint32_t seen;	     /* records seen in the current sub-buffer */
	uint32_t seen_cycle; /* ... of this cycle */
	uint64_t seen_base;
	trawl_ring_stats st; /* the reader's own counts */
	uint64_t unlost;     /* overwritten, but delivered before that */
};

struct trawl_ring_type {
	struct trawl_ring_gate gate; /* first: trawl_ring_on() reads it */
	trawl_ring *r;
	uint32_t id;
	uint32_t fixed;
	int32_t str_off; /* the STR field's slot, or -1 */
	uint8_t on;
};

struct trawl_ring {
	struct tw_ring_hdr *hdr;
	unsigned char *base;
	size_t map_size;
	int fd;
	int producer;
	char path[128];
	char name[TRAWL_RING_NAME_MAX + 1];

	/* geometry, copied at create/attach and checked there */
	uint32_t subbuf_size, subbuf_shift, subbufs, subbufs_shift, ncpus;
	uint32_t max_record;
	uint64_t cpu_off, cpu_stride, data_off;
	int overwrite;

	/* producer: the enable bytes (gate[id]) live in a page wiped on
	 * fork, so a child writes nothing */
	volatile uint8_t *gate;
	uint8_t on;
	trawl_ring_type types[TRAWL_RING_MAX_TYPES + 1];
	tw_ring_hook hook;
	void *hook_ctx;

	/* reader */
	struct tw_ring_reader_cpu *rd;
	unsigned char *copy; /* one record copied out of a page in use */
	struct tw_ring_type_desc *tcopy; /* the type table as last checked */
	uint32_t ntypes_seen;
};

static inline struct tw_ring_cpu *tw_ring_cpu(const trawl_ring *r, uint32_t cpu)
{
	return (struct tw_ring_cpu *)(r->base + r->cpu_off +
				      (uint64_t)cpu * r->cpu_stride);
}

static inline unsigned char *tw_ring_page(const trawl_ring *r, uint32_t cpu,
					  uint32_t id)
{
	return r->base + r->data_off +
	       ((uint64_t)cpu * (r->subbufs + 1) + id) * r->subbuf_size;
}

/* layout.c */
int tw_ring_geometry_check(const struct tw_ring_hdr *h, uint64_t file_size);
int tw_ring_types_init(trawl_ring *r, trawl_error *err);
void tw_ring_gates_update(trawl_ring *r);
/* read.c */
int tw_ring_types_refresh(trawl_ring *r);

#endif
