/* SPDX-License-Identifier: MIT */
/*
 * A PERF_RECORD_SAMPLE's body is the fields its attr's sample_type asks
 * for, in the kernel's fixed order (perf_output_sample()):
 *
 *   IDENTIFIER u64 | IP u64 | TID u32 pid, u32 tid | TIME u64 | ADDR u64 |
 *   ID u64 | STREAM_ID u64 | CPU u32 cpu, u32 res | PERIOD u64 |
 *   READ (read_format) | CALLCHAIN u64 nr, u64 ips[nr] |
 *   RAW u32 size, size bytes | ... (branch stack, registers: not read)
 *
 * Other records end with a sample_id when the attr has sample_id_all:
 *
 *   TID u32 pid, u32 tid | TIME u64 | ID u64 | STREAM_ID u64 |
 *   CPU u32 cpu, u32 res | IDENTIFIER u64
 *
 * so an IDENTIFIER is the first word of a sample and the last of any
 * other record, which is how perf finds the attr of a record when there
 * are several (and why it sets that bit then).
 */
#include "perf-int.h"

static const uint64_t id_trailer_bits =
	TW_PERF_SAMPLE_TID | TW_PERF_SAMPLE_TIME | TW_PERF_SAMPLE_ID |
	TW_PERF_SAMPLE_STREAM_ID | TW_PERF_SAMPLE_CPU |
	TW_PERF_SAMPLE_IDENTIFIER;

uint32_t tw_perf_id_trailer_size(uint64_t sample_type)
{
	return 8u *
	       (uint32_t)__builtin_popcountll(sample_type & id_trailer_bits);
}

void tw_perf_attr_layout(tw_perf_attr *a)
{
	uint64_t st = a->sample_type;
	a->time_end = a->cpu_end = a->raw_end = 0;
	if (!(st & TW_PERF_SAMPLE_RAW) || (st & TW_PERF_SAMPLE_CALLCHAIN) ||
	    ((st & TW_PERF_SAMPLE_READ) &&
	     (a->read_format & TW_PERF_FORMAT_GROUP)))
		return;
	uint32_t at =
		8u * (uint32_t)__builtin_popcountll(
			     st & (TW_PERF_SAMPLE_IDENTIFIER |
				   TW_PERF_SAMPLE_IP | TW_PERF_SAMPLE_TID));
	if (st & TW_PERF_SAMPLE_TIME) {
		at += 8;
		a->time_end = (uint16_t)at;
	}
	at += 8u * (uint32_t)__builtin_popcountll(
			   st & (TW_PERF_SAMPLE_ADDR | TW_PERF_SAMPLE_ID |
				 TW_PERF_SAMPLE_STREAM_ID));
	if (st & TW_PERF_SAMPLE_CPU) {
		at += 8;
		a->cpu_end = (uint16_t)at;
	}
	if (st & TW_PERF_SAMPLE_PERIOD)
		at += 8;
	if (st & TW_PERF_SAMPLE_READ) {
		uint64_t rf = a->read_format;
		at += 8 + (rf & TW_PERF_FORMAT_ID ? 8 : 0) +
		      (rf & TW_PERF_FORMAT_LOST ? 8 : 0) +
		      (rf & TW_PERF_FORMAT_TOTAL_TIME_ENABLED ? 8 : 0) +
		      (rf & TW_PERF_FORMAT_TOTAL_TIME_RUNNING ? 8 : 0);
	}
	a->raw_end = (uint16_t)(at + 4);
}

/* Bytes of a READ value by read_format, or 0 when it cannot say yet
 * (a group: its size is in the record). */
static size_t read_size(uint64_t rf, const unsigned char *p, size_t n,
			size_t *out)
{
	size_t per = 8 + (rf & TW_PERF_FORMAT_ID ? 8 : 0) +
		     (rf & TW_PERF_FORMAT_LOST ? 8 : 0);
	size_t times = (rf & TW_PERF_FORMAT_TOTAL_TIME_ENABLED ? 8 : 0) +
		       (rf & TW_PERF_FORMAT_TOTAL_TIME_RUNNING ? 8 : 0);
	if (!(rf & TW_PERF_FORMAT_GROUP)) {
		*out = per + times;
		return 1;
	}
	if (n < 8)
		return 0;
	uint64_t nr = tw_perf_u64(p);
	if (nr > (n - 8 - times) / per)
		return 0;
	*out = 8 + times + (size_t)nr * per;
	return 1;
}

int tw_perf_sample_parse(const tw_perf_attr *a, const unsigned char *p,
			 size_t n, tw_perf_sample *s)
{
	uint64_t st = a->sample_type;
	size_t at = 0;
	memset(s, 0, sizeof(*s));
	s->time = INT64_MIN;
	s->cpu = -1;
	s->pid = s->tid = -1;
#define WORD(field)                                                            \
	do {                                                                   \
		if (n - at < 8)                                                \
			return -1;                                             \
		field = tw_perf_u64(p + at);                                   \
		at += 8;                                                       \
	} while (0)
	uint64_t skip;
	if (st & TW_PERF_SAMPLE_IDENTIFIER)
		WORD(s->id);
	if (st & TW_PERF_SAMPLE_IP)
		WORD(s->ip);
	if (st & TW_PERF_SAMPLE_TID) {
		if (n - at < 8)
			return -1;
		s->pid = (int32_t)tw_perf_u32(p + at);
		s->tid = (int32_t)tw_perf_u32(p + at + 4);
		at += 8;
	}
	if (st & TW_PERF_SAMPLE_TIME) {
		uint64_t t;
		WORD(t);
		s->time = (int64_t)(t & INT64_MAX);
	}
	if (st & TW_PERF_SAMPLE_ADDR)
		WORD(s->addr);
	if (st & TW_PERF_SAMPLE_ID)
		WORD(s->id);
	if (st & TW_PERF_SAMPLE_STREAM_ID)
		WORD(skip);
	if (st & TW_PERF_SAMPLE_CPU) {
		if (n - at < 8)
			return -1;
		uint32_t cpu = tw_perf_u32(p + at);
		s->cpu = cpu < TW_MAX_CPUS ? (int32_t)cpu : -1;
		at += 8;
	}
	if (st & TW_PERF_SAMPLE_PERIOD)
		WORD(s->period);
	(void)skip;
	if (st & TW_PERF_SAMPLE_READ) {
		size_t len;
		if (!read_size(a->read_format, p + at, n - at, &len) ||
		    len > n - at)
			return -1;
		at += len;
	}
	if (st & TW_PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;
		WORD(nr);
		if (nr > (n - at) / 8)
			return -1;
		s->nr_callchain = nr;
		s->callchain = p + at;
		at += (size_t)nr * 8;
	}
	if (st & TW_PERF_SAMPLE_RAW) {
		if (n - at < 4)
			return -1;
		uint32_t size = tw_perf_u32(p + at);
		at += 4;
		if (size > n - at)
			return -1;
		s->raw = p + at;
		s->raw_size = size;
	}
#undef WORD
	return 0;
}

int tw_perf_sample_id(const tw_perf_attr *a, const unsigned char *p, size_t n,
		      tw_perf_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->time = INT64_MIN;
	s->cpu = -1;
	s->pid = s->tid = -1;
	if (!a->sample_id_all)
		return 0;
	uint64_t st = a->sample_type;
	if (a->id_trailer > n)
		return -1;
	const unsigned char *q = p + n - a->id_trailer;
	if (st & TW_PERF_SAMPLE_TID) {
		s->pid = (int32_t)tw_perf_u32(q);
		s->tid = (int32_t)tw_perf_u32(q + 4);
		q += 8;
	}
	if (st & TW_PERF_SAMPLE_TIME) {
		s->time = (int64_t)(tw_perf_u64(q) & INT64_MAX);
		q += 8;
	}
	if (st & TW_PERF_SAMPLE_ID) {
		s->id = tw_perf_u64(q);
		q += 8;
	}
	if (st & TW_PERF_SAMPLE_STREAM_ID)
		q += 8;
	if (st & TW_PERF_SAMPLE_CPU) {
		uint32_t cpu = tw_perf_u32(q);
		s->cpu = cpu < TW_MAX_CPUS ? (int32_t)cpu : -1;
		q += 8;
	}
	if (st & TW_PERF_SAMPLE_IDENTIFIER)
		s->id = tw_perf_u64(q);
	return 0;
}

/*
 * With one attr every record is its. With several, perf gives them all
 * IDENTIFIER (a sample's first word, another record's last) or at least
 * the ID at the same place (perf refuses files where it is not).
 */
int tw_perf_record_attr(const tw_perf_file *f, const unsigned char *rec,
			uint32_t size, int is_sample)
{
	if (f->nattrs == 1 || (!is_sample && !f->attrs[0].sample_id_all))
		return 0;
	const tw_perf_attr *a0 = &f->attrs[0];
	uint64_t st = a0->sample_type;
	const unsigned char *body = rec + 8;
	size_t n = size - 8;
	uint64_t id;
	if (st & TW_PERF_SAMPLE_IDENTIFIER) {
		if (n < 8)
			return -1;
		id = tw_perf_u64(is_sample ? body : body + n - 8);
	} else if (st & TW_PERF_SAMPLE_ID) {
		tw_perf_sample s;
		if (is_sample) {
			/* ID comes after IP, TID, TIME and ADDR */
			size_t at = 8u * (uint32_t)__builtin_popcountll(
						 st & (TW_PERF_SAMPLE_IP |
						       TW_PERF_SAMPLE_TID |
						       TW_PERF_SAMPLE_TIME |
						       TW_PERF_SAMPLE_ADDR));
			if (n < at + 8)
				return -1;
			id = tw_perf_u64(body + at);
		} else {
			if (tw_perf_sample_id(a0, body, n, &s))
				return -1;
			id = s.id;
		}
	} else {
		return 0; /* nothing tells them apart: perf takes the first */
	}
	/* perf's own records (synthesized at the start) carry id 0; like
	 * perf, other records of an id no attr has are the first attr's,
	 * samples are damage */
	int a = 0;
	if (id) {
		/* a handful of ids (an event's per CPU) in every round */
		tw_perf_file *m = (tw_perf_file *)f;
		size_t k = (size_t)(id * 0x9E3779B97F4A7C15ull >> 58);
		if (m->id_cache[k].attr >= 0 && m->id_cache[k].id == id) {
			a = m->id_cache[k].attr;
		} else {
			a = tw_perf_attr_of_id(f, id);
			m->id_cache[k].id = id;
			m->id_cache[k].attr = a;
		}
	}
	return a < 0 && !is_sample ? 0 : a;
}
