/* SPDX-License-Identifier: MIT */
/*
 * Inside the perf.data reader. perf-file.c reads the file's header, attrs
 * and feature sections (tools/perf/Documentation/perf.data-file-format.txt
 * in the kernel tree), perf-pipe.c those of a pipe-mode file from its
 * first records; perf-expand.c writes out perf record -z's compressed
 * records decompressed; perf-tracing.c cuts the tracing data feature into
 * the metadata a trace.dat carries; perf-sample.c reads samples and the
 * sample_id trailer of other records; perf-order.c puts the records of
 * perf's rounds in time order; perf-reader.c is the record source the
 * trace.dat reader decodes (lib/dat/dat-records.h). Only x86-64-style
 * little-endian files of 64-bit hosts for now.
 */
#ifndef TW_PERF_INT_H
#define TW_PERF_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../core/core.h"
#include "../dat/dat-records.h"

/* perf_event_header.type (include/uapi/linux/perf_event.h, and perf's own
 * user records from 64 on, tools/perf/util/event.h) */
enum {
	TW_PERF_RECORD_MMAP = 1,
	TW_PERF_RECORD_LOST = 2,
	TW_PERF_RECORD_COMM = 3,
	TW_PERF_RECORD_EXIT = 4,
	TW_PERF_RECORD_FORK = 7,
	TW_PERF_RECORD_SAMPLE = 9,
	TW_PERF_RECORD_MMAP2 = 10,
	TW_PERF_RECORD_LOST_SAMPLES = 13,
	TW_PERF_RECORD_HEADER_ATTR = 64, /* pipe mode: an attr and its ids */
	TW_PERF_RECORD_HEADER_EVENT_TYPE = 65,
	TW_PERF_RECORD_HEADER_TRACING_DATA = 66, /* pipe mode: the data after */
	TW_PERF_RECORD_FINISHED_ROUND = 68,
	TW_PERF_RECORD_ID_INDEX = 69,
	TW_PERF_RECORD_HEADER_FEATURE = 80, /* pipe mode: a feature section */
	TW_PERF_RECORD_COMPRESSED = 81,
	TW_PERF_RECORD_FINISHED_INIT = 82,
	TW_PERF_RECORD_MAX = 128, /* counted by type below this */
};

/* perf_event_attr.sample_type bits */
enum {
	TW_PERF_SAMPLE_IP = 1u << 0,
	TW_PERF_SAMPLE_TID = 1u << 1,
	TW_PERF_SAMPLE_TIME = 1u << 2,
	TW_PERF_SAMPLE_ADDR = 1u << 3,
	TW_PERF_SAMPLE_READ = 1u << 4,
	TW_PERF_SAMPLE_CALLCHAIN = 1u << 5,
	TW_PERF_SAMPLE_ID = 1u << 6,
	TW_PERF_SAMPLE_CPU = 1u << 7,
	TW_PERF_SAMPLE_PERIOD = 1u << 8,
	TW_PERF_SAMPLE_STREAM_ID = 1u << 9,
	TW_PERF_SAMPLE_RAW = 1u << 10,
	TW_PERF_SAMPLE_IDENTIFIER = 1u << 16,
};

/* perf_event_attr.read_format bits */
enum {
	TW_PERF_FORMAT_TOTAL_TIME_ENABLED = 1u << 0,
	TW_PERF_FORMAT_TOTAL_TIME_RUNNING = 1u << 1,
	TW_PERF_FORMAT_ID = 1u << 2,
	TW_PERF_FORMAT_GROUP = 1u << 3,
	TW_PERF_FORMAT_LOST = 1u << 4,
};

#define TW_PERF_TYPE_TRACEPOINT 2
/* Feature bits (the header's adds_features, tools/perf/util/header.h) */
enum {
	TW_PERF_FEAT_TRACING_DATA = 1,
	TW_PERF_FEAT_HOSTNAME = 3,
	TW_PERF_FEAT_OSRELEASE = 4,
	TW_PERF_FEAT_NRCPUS = 7,
	TW_PERF_FEAT_CMDLINE = 11,
	TW_PERF_FEAT_EVENT_DESC = 12,
	TW_PERF_FEAT_CLOCKID = 23,
	TW_PERF_FEAT_COMPRESSED = 27,
	TW_PERF_FEAT_BITS = 256,
};

/* Attrs a file may have, and ids of all of them: beyond these a count in
 * a header is damage, not a recording. */
#define TW_PERF_MAX_ATTRS (1u << 16)
#define TW_PERF_ATTR_MIN  64 /* PERF_ATTR_SIZE_VER0 */
#define TW_PERF_MAX_IDS	  (1u << 22)

typedef struct tw_perf_attr {
	uint32_t type;
	uint64_t config; /* a tracepoint's: its event id */
	uint64_t sample_type;
	uint64_t read_format;
	int sample_id_all;
	uint32_t id_trailer; /* bytes of sample_id at a record's end */
	/* Where a sample's TIME, CPU and RAW size end in its body when all
	 * its fields before RAW have one size (no CALLCHAIN, no READ of a
	 * group): raw_end 0 when they do not (tw_perf_sample_parse() then);
	 * time_end, cpu_end 0 when it has none. */
	uint16_t time_end, cpu_end, raw_end;
	/* the type id its samples get when it is not a tracepoint
	 * (perf-synth.c); 0: none */
	uint16_t synth;
} tw_perf_attr;

/* An attr's stream id (perf_file_attr.ids, PERF_SAMPLE_ID). */
typedef struct tw_perf_id {
	uint64_t id;
	uint32_t attr;
	int32_t cpu; /* from PERF_RECORD_ID_INDEX; -1: not known */
} tw_perf_id;

typedef struct tw_perf_section {
	uint64_t offset, size;
} tw_perf_section;

typedef struct tw_perf_file {
	const tw_mem *mem;
	const char *name; /* for messages */
	const unsigned char *map;
	size_t size;
	tw_perf_section data;
	int cut;  /* the data section runs past the end of the file */
	int pipe; /* pipe mode: the metadata came as records */
	/* perf record -z: COMPRESSED records expanded, those zstd refused
	 * and where the first was (perf-expand.c) */
	uint64_t zrecords, zdamaged, zdamage_off;
	tw_perf_attr *attrs;
	size_t nattrs;
	tw_perf_id *ids; /* sorted by id */
	size_t nids;
	/* the features this file has, each where the table says */
	tw_perf_section feat[TW_PERF_FEAT_BITS];
	uint64_t feat_damaged; /* sections of the table that could not be */
	uint64_t feat_damage_off;
	/* what `trawl stats` may say of the recording ("" when absent) */
	char hostname[65];
	char osrelease[65];
	int nr_cpus; /* online; 0 when the file does not say */
	/* where a sample's TIME ends in its body when every attr puts it in
	 * the same place (0: they do not, or have none) */
	uint32_t time_at;
	/* the attrs of ids met lately, by id (tw_perf_record_attr) */
	struct {
		uint64_t id;
		int attr; /* -1: empty */
	} id_cache[64];
	/* the tracing data as a trace.dat's metadata (perf-tracing.c) */
	tw_dat_meta meta;
	tw_blob *ftrace_formats;
	tw_dat_system *systems;
	tw_blob *formats;
	/* this machine's kallsyms when it recorded the file (perf-kallsyms.c)
	 */
	char *kallsyms;
	size_t kallsyms_len;
	int kallsyms_tried;
	/* formats made for what is not a tracepoint (perf-synth.c): the
	 * type ids of the stacks a callchain becomes (0: none), the texts,
	 * and the metadata's tables with them */
	uint16_t kstack_type, ustack_type;
	char *synth_text;
	size_t synth_len;
	tw_blob *synth_ftrace, *synth_blobs;
	tw_dat_system *synth_systems;
} tw_perf_file;

static inline uint32_t tw_perf_u32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t tw_perf_u64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* perf-file.c: read the header, attrs with their ids and the feature
 * section table of a mapped perf.data; the tracing data too. */
int tw_perf_file_open(tw_perf_file *f, const tw_mem *mem, const char *name,
		      const unsigned char *map, size_t size, trawl_error *err);
void tw_perf_file_close(tw_perf_file *f);
/* One attr from a perf_event_attr's bytes (at least ATTR_MIN of them). */
void tw_perf_attr_read(tw_perf_attr *a, const unsigned char *p);
/* After the attrs and ids are in: the ids sorted, time_at found. */
void tw_perf_attrs_done(tw_perf_file *f);
/* hostname, osrelease and nr_cpus from the feature sections found. */
void tw_perf_feature_values(tw_perf_file *f);

/* perf-pipe.c: the rest of a pipe-mode file (header size 16): the attrs,
 * features and tracing data from the records at its front; the data is
 * every record after the header. */
int tw_perf_pipe_open(tw_perf_file *f, trawl_error *err);
/* The bytes of tracing data that follow a HEADER_TRACING_DATA record of
 * body [p, p + n) (its u32 size, padded to 8); 0 for none. */
static inline uint64_t tw_perf_tracing_after(const unsigned char *p, size_t n)
{
	return n >= 4 ? ((uint64_t)tw_perf_u32(p) + 7) & ~(uint64_t)7 : 0;
}
/* The attr of a stream id, or -1. */
int tw_perf_attr_of_id(const tw_perf_file *f, uint64_t id);
/* The entry of a stream id, or NULL. */
tw_perf_id *tw_perf_id_find(const tw_perf_file *f, uint64_t id);

/* perf-expand.c: whether the file's records are compressed (perf record
 * -z): 1, 0, or a negative TRAWL_E* for a method trawl does not know. */
int tw_perf_compressed(const tw_perf_file *f, trawl_error *err);
/* The data section with every COMPRESSED record replaced by the records
 * it holds, in an unlinked temporary file in tmpdir (NULL: $TMPDIR or
 * /tmp), at its start: *fd (the caller closes it); 0 or a TRAWL_E*. */
int tw_perf_expand(tw_perf_file *f, const char *tmpdir, int *fd,
		   trawl_error *err);

/* perf-tracing.c: the HEADER_TRACING_DATA section at [off, off + len) as
 * the metadata of a trace.dat (f->meta; its blobs point into the map). */
int tw_perf_tracing_parse(tw_perf_file *f, uint64_t off, uint64_t len,
			  trawl_error *err);

/* perf-kallsyms.c: kallsyms for the file's texts: this machine's, when
 * the file was recorded on this boot of it; else NULL. */
const char *tw_perf_kallsyms(tw_perf_file *f, size_t *len);

/* perf-sample.c: what a sample or a record's sample_id says. */
typedef struct tw_perf_sample {
	uint64_t ip;
	int32_t pid, tid;
	int64_t time; /* INT64_MIN: none */
	uint64_t id;
	int32_t cpu; /* -1: none */
	uint64_t addr;
	uint64_t period;
	uint64_t nr_callchain;
	const unsigned char *callchain; /* nr_callchain u64s */
	const unsigned char *raw;	/* NULL: none */
	uint32_t raw_size;
} tw_perf_sample;

/* Bytes of the sample_id that ends other records for a sample_type. */
uint32_t tw_perf_id_trailer_size(uint64_t sample_type);
/* An attr's fixed layout (time_end, cpu_end, raw_end) from its
 * sample_type and read_format. */
void tw_perf_attr_layout(tw_perf_attr *a);
/* The attr a record belongs to (from its id), or -1 when none can be. */
int tw_perf_record_attr(const tw_perf_file *f, const unsigned char *rec,
			uint32_t size, int is_sample);
/* The attr of a sample from its IDENTIFIER through the cache of recent
 * ids, else tw_perf_record_attr(). */
static inline int tw_perf_sample_attr(const tw_perf_file *f,
				      const unsigned char *rec, uint32_t size)
{
	if (f->nattrs == 1)
		return 0;
	if ((f->attrs[0].sample_type & TW_PERF_SAMPLE_IDENTIFIER) &&
	    size >= 16) {
		uint64_t id = tw_perf_u64(rec + 8);
		size_t k = (size_t)(id * 0x9E3779B97F4A7C15ull >> 58);
		if (f->id_cache[k].attr >= 0 && f->id_cache[k].id == id)
			return f->id_cache[k].attr;
	}
	return tw_perf_record_attr(f, rec, size, 1);
}

/* What a sample of a fixed layout says of its time, CPU and raw data
 * (body [p, p + n)): 1, 0 when the attr has no fixed layout, -1 when the
 * body is shorter than it says. */
static inline int tw_perf_sample_quick(const tw_perf_attr *a,
				       const unsigned char *p, size_t n,
				       int64_t *ts, int32_t *cpu,
				       uint32_t *raw_at, uint32_t *raw_size)
{
	if (!a->raw_end)
		return 0;
	if (n < a->raw_end)
		return -1;
	uint32_t size = tw_perf_u32(p + a->raw_end - 4);
	if (size > n - a->raw_end)
		return -1;
	*ts = a->time_end
		      ? (int64_t)(tw_perf_u64(p + a->time_end - 8) & INT64_MAX)
		      : INT64_MIN;
	uint32_t c = a->cpu_end ? tw_perf_u32(p + a->cpu_end - 8) : UINT32_MAX;
	*cpu = c < TW_MAX_CPUS ? (int32_t)c : -1;
	*raw_at = a->raw_end;
	*raw_size = size;
	return 1;
}

/* A PERF_RECORD_SAMPLE's body [p, p + n) by attr a: 0, or -1 when it is
 * shorter than its sample_type says. */
int tw_perf_sample_parse(const tw_perf_attr *a, const unsigned char *p,
			 size_t n, tw_perf_sample *out);
/* The sample_id at the end of another record's body: 0 (nothing set when
 * the attr has no sample_id_all), or -1 when the body cannot hold it. */
int tw_perf_sample_id(const tw_perf_attr *a, const unsigned char *p, size_t n,
		      tw_perf_sample *out);

/* perf-synth.c: formats in ftrace's shape for samples of events that
 * are not tracepoints (system "perf") and for callchains (ftrace's
 * kernel_stack and user_stack), added to f->meta; a file without tracing
 * data gets the kernel's headers. 0 or TRAWL_ENOMEM. */
int tw_perf_synth_formats(tw_perf_file *f, trawl_error *err);
void tw_perf_synth_free(tw_perf_file *f);
/* The record of a sample of attr a (a->synth set): its bytes in out (at
 * least TW_PERF_SYNTH_MAX), their count returned. */
#define TW_PERF_SYNTH_MAX 32
uint32_t tw_perf_synth_sample(const tw_perf_attr *a, const tw_perf_sample *s,
			      unsigned char *out);
/* A callchain as ftrace's records: kernel (always) and user (user_len
 * 0: none); kernel holds 16 bytes and 8 a frame of the callchain, user
 * as much again for its frames' mappings after them (TW_PERF_USER_MAX).
 * other counts the frames of neither (a guest's). */
#define TW_PERF_USER_MAX (16 + 65536 + 8 + 65536)
typedef struct tw_perf_stacks {
	unsigned char *kernel, *user;
	uint32_t kernel_len, user_len;
	uint64_t other;
} tw_perf_stacks;
void tw_perf_synth_stacks(const tw_perf_file *f, const tw_perf_sample *s,
			  tw_perf_stacks *out);

/* perf-maps.c: the tasks' mappings from MMAP and MMAP2 records. */
typedef struct tw_perf_umap {
	uint64_t start, end, pgoff;
	uint32_t name; /* in names */
} tw_perf_umap;

typedef struct tw_perf_pmaps {
	int32_t pid;
	int used;
	tw_perf_umap *m; /* by address, none overlapping */
	size_t n, cap;
} tw_perf_pmaps;

typedef struct tw_perf_maps {
	const tw_mem *mem;
	tw_perf_pmaps *procs; /* open addressing by pid */
	size_t nprocs, cap;
	char *names; /* the files' names, NUL-terminated, one after another */
	size_t names_len, names_cap;
} tw_perf_maps;

/* A mapping of [start, start + len) of process pid, at pgoff in file
 * name: 0, or -1 out of memory. */
int tw_perf_maps_add(tw_perf_maps *m, int32_t pid, uint64_t start, uint64_t len,
		     uint64_t pgoff, const char *name, size_t nlen);
/* A new process pid has its parent's mappings: 0 or -1. */
int tw_perf_maps_fork(tw_perf_maps *m, int32_t pid, int32_t ppid);
/* Process pid's mappings, or NULL: none known. */
const tw_perf_pmaps *tw_perf_maps_proc(const tw_perf_maps *m, int32_t pid);
/* The file addr of process p (NULL: none) is in, *rel where in it
 * (perf's address of the frame: addr - start + pgoff); NULL: no mapping
 * holds it. */
const char *tw_perf_maps_find(const tw_perf_maps *m, const tw_perf_pmaps *p,
			      uint64_t addr, uint64_t *rel);
void tw_perf_maps_reset(tw_perf_maps *m);
void tw_perf_maps_fini(tw_perf_maps *m);
/* perf-synth.c: the user stack's `maps`: each frame's file and place in
 * it ("/usr/lib/x86_64-linux-gnu/libc.so.6+0xee137"), a line each (""
 * where no mapping holds it), after its frames; what does not fit is
 * cut. */
void tw_perf_synth_user_maps(const tw_perf_maps *m, int32_t pid,
			     tw_perf_stacks *out);

/* perf-order.c: records in runs of the file's order, merged by (time,
 * record number). */
typedef struct tw_perf_ref {
	int64_t ts;
	uint64_t seq;
	uint64_t off; /* of the record in the file */
	/* a tracepoint sample: its CPU, and its raw data at off + raw_at
	 * (raw_at 0: another record) */
	int32_t cpu;
	uint16_t raw_at, raw_len;
} tw_perf_ref;

typedef struct tw_perf_run {
	size_t pos, end; /* its records not taken yet, in refs */
} tw_perf_run;

typedef struct tw_perf_order {
	const tw_mem *mem;
	tw_perf_ref *refs;
	size_t nrefs, cap;
	size_t open_begin; /* the open run: refs[open_begin, nrefs) */
	tw_perf_run *runs; /* the closed ones, a min-heap */
	size_t nruns, runs_cap;
	size_t live; /* records not taken yet */
} tw_perf_order;

/* Append a record (a new run when it goes back in time): 0, 1 when that
 * closed a run into the merge, or -1. */
int tw_perf_order_add(tw_perf_order *o, const tw_perf_ref *r);
/* Close the open run into the merge (a round ended); 0 or -1. */
int tw_perf_order_close(tw_perf_order *o);
/* Whether a comes before b: by time, then the file's order. */
static inline int tw_perf_ref_before(const tw_perf_ref *a, const tw_perf_ref *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	return a->seq < b->seq;
}

/* The next record of the closed runs, or NULL. */
static inline const tw_perf_ref *tw_perf_order_top(const tw_perf_order *o)
{
	return o->nruns ? &o->refs[o->runs[0].pos] : NULL;
}

/* The heap put right after the top run gave its record (perf-order.c). */
void tw_perf_order_resift(tw_perf_order *o);

/* Take the top record. The top run stays where it is while its next
 * record still comes before both runs under it: a CPU's chunk leaves in
 * a row without the heap. */
static inline void tw_perf_order_pop(tw_perf_order *o, tw_perf_ref *out)
{
	tw_perf_run *top = &o->runs[0];
	*out = o->refs[top->pos++];
	o->live--;
	if (top->pos < top->end) {
		const tw_perf_ref *r = &o->refs[top->pos];
		if ((o->nruns < 2 ||
		     tw_perf_ref_before(r, &o->refs[o->runs[1].pos])) &&
		    (o->nruns < 3 ||
		     tw_perf_ref_before(r, &o->refs[o->runs[2].pos])))
			return;
	}
	tw_perf_order_resift(o);
}
/* The file offset of the first record still waiting (none: nothing). */
uint64_t tw_perf_order_low(const tw_perf_order *o, uint64_t none);
void tw_perf_order_reset(tw_perf_order *o);
void tw_perf_order_fini(tw_perf_order *o);

#endif
