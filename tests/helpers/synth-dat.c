/* SPDX-License-Identifier: MIT */
/*
 * Synthetic trace.dat files for tests, made with the recorder's v7 writer
 * (lib/dat/dat-write7.c): two CPUs of "tick" events whose fields are a
 * string, a signed and an unsigned long (the kinds the reader keeps in its
 * compact form), long enough to have many compressed chunks.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/dat/dat-write.h"
#include "helpers.h"

#define PAGE	 4096
#define EVENT_ID 7
#define TYPE_LEN 10 /* 40 bytes of event data */

const char synth_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
const char synth_header_event[] = "# compressed entry header\n"
				  "\ttype_len    :    5 bits\n"
				  "\ttime_delta  :   27 bits\n"
				  "\tarray       :   32 bits\n"
				  "\n"
				  "\tpadding     : type == 29\n"
				  "\ttime_extend : type == 30\n"
				  "\ttime_stamp : type == 31\n"
				  "\tdata max type_len  == 28\n";
static const char tick_format[] =
	"name: tick\n"
	"ID: 7\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"
	"\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:int n;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long addr;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"comm=%s n=%d addr=%lx\", REC->comm, REC->n, REC->addr\n";

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* One page of SYNTH_PER_PAGE ticks SYNTH_STEP_NS apart from ts. */
static void make_page(unsigned char *pg, uint64_t ts, int32_t *n)
{
	memset(pg, 0, PAGE);
	put64(pg, ts);
	unsigned char *r = pg + 16;
	for (int i = 0; i < SYNTH_PER_PAGE; i++) {
		uint32_t delta = i ? SYNTH_STEP_NS : 0;
		put32(r, (delta << 5) | TYPE_LEN);
		unsigned char *d = r + 4;
		uint16_t type = EVENT_ID;
		memcpy(d, &type, 2);
		int32_t pid = 100 + *n % 7, v = (*n)++;
		memcpy(d + 4, &pid, 4);
		/* names of every length up to the array's, one with a
		 * quote and a comma (JSON and CSV quote it) */
		static const char *const names[] = {
			"",	      "a",
			"sched-pipe", "kworker/0:1",
			"x\"y,z",     "fifteen-chars15"};
		const char *nm = names[v % 6];
		memcpy(d + 8, nm, strlen(nm));
		memcpy(d + 20, &v, 4);
		uint64_t addr = 0xffffffff81000000ull + (uint64_t)v * 16;
		memcpy(d + 28, &addr, 8);
		r += 4 + 4 * TYPE_LEN;
	}
	put64(pg + 8, (uint64_t)(r - (pg + 16)));
}

/* A stream file being written: its metadata, writer and page buffer. */
struct synth {
	tw_blob fmt;
	tw_dat_system sys;
	tw_dat_meta m;
	int fd;
	tw_mem mem;
	trawl_error err;
	tw_dat7 *w;
	unsigned char *pg;
	int32_t n; /* ticks so far */
};

static int synth_begin(struct synth *s, const char *path)
{
	memset(s, 0, sizeof(*s));
	s->fmt = (tw_blob){tick_format, sizeof(tick_format) - 1};
	s->sys = (tw_dat_system){
		.name = "test", .formats = &s->fmt, .nformats = 1};
	s->m = (tw_dat_meta){
		.page_size = PAGE,
		.header_page = {synth_header_page, strlen(synth_header_page)},
		.header_event = {synth_header_event,
				 strlen(synth_header_event)},
		.systems = &s->sys,
		.nsystems = 1,
		.ncpus = 2};
	s->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (s->fd < 0)
		return -1;
	tw_mem_init(&s->mem, NULL, NULL);
	s->w = tw_dat7_open(&s->mem, s->fd, path, &s->m, TW_DAT_COMP_ZSTD,
			    &s->err);
	s->pg = malloc(PAGE);
	return s->w && s->pg ? 0 : -1;
}

/* Finished as trawl record finishes (finish), or left as a killed
 * recorder leaves it. Return: 0, or -1 (said). */
static int synth_end(struct synth *s, const char *path, int finish, int rc)
{
	uint64_t size = 0;
	if (!rc && finish)
		rc = tw_dat7_finish(s->w, &s->m, &size, &s->err);
	if (rc)
		fprintf(stderr, "synth_dat %s: %s\n", path, s->err.msg);
	if (s->w)
		tw_dat7_free(s->w);
	free(s->pg);
	if (s->fd >= 0)
		close(s->fd);
	return rc ? -1 : 0;
}

int synth_dat(const char *path, int pages0, int pages1, int back_cpu, int back)
{
	struct synth s;
	int rc = synth_begin(&s, path);
	const uint64_t span = (uint64_t)SYNTH_PER_PAGE * SYNTH_STEP_NS;
	for (int cpu = 0; cpu < 2 && !rc; cpu++) {
		int pages = cpu ? pages1 : pages0;
		for (int p = 0; p < pages && !rc; p++) {
			uint64_t ts = 1000000 + (uint64_t)p * span + cpu * 7;
			if (cpu == back_cpu && p == back)
				ts -= span; /* back to the page before's */
			make_page(s.pg, ts, &s.n);
			rc = tw_dat7_add(s.w, cpu, s.pg, PAGE);
		}
		if (!rc)
			rc = tw_dat7_sync(s.w, cpu, 1);
	}
	return synth_end(&s, path, 1, rc);
}

int synth_dat_stream(const char *path, int batches, unsigned pause_us)
{
	struct synth s;
	int rc = synth_begin(&s, path);
	const uint64_t span = (uint64_t)SYNTH_PER_PAGE * SYNTH_STEP_NS;
	for (int b = 0; b < batches && !rc; b++) {
		for (int cpu = 0; cpu < 2 && !rc; cpu++) {
			make_page(s.pg, 1000000 + (uint64_t)b * span + cpu * 7,
				  &s.n);
			if (!(rc = tw_dat7_add(s.w, cpu, s.pg, PAGE)))
				rc = tw_dat7_sync(s.w, cpu, 1);
		}
		if (pause_us)
			usleep(pause_us);
	}
	return synth_end(&s, path, 0, rc);
}
