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

#define SYNTH_META(m)                                                          \
	tw_blob fmt = {tick_format, sizeof(tick_format) - 1};                  \
	tw_dat_system sys = {"test", &fmt, 1};                                 \
	tw_dat_meta m = {                                                      \
		.page_size = PAGE,                                             \
		.header_page = {header_page, sizeof(header_page) - 1},         \
		.header_event = {header_event, sizeof(header_event) - 1},      \
		.systems = &sys,                                               \
		.nsystems = 1,                                                 \
		.ncpus = 2}

int synth_dat(const char *path, int pages0, int pages1, int back_cpu, int back)
{
	SYNTH_META(m);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	tw_mem mem;
	tw_mem_init(&mem, NULL, NULL);
	trawl_error err = {0};
	tw_dat7 *w = tw_dat7_open(&mem, fd, path, &m, TW_DAT_COMP_ZSTD, &err);
	unsigned char *pg = malloc(PAGE);
	int rc = w && pg ? 0 : -1;
	int32_t n = 0;
	const uint64_t span = (uint64_t)SYNTH_PER_PAGE * SYNTH_STEP_NS;
	for (int cpu = 0; cpu < 2 && !rc; cpu++) {
		int pages = cpu ? pages1 : pages0;
		for (int p = 0; p < pages && !rc; p++) {
			uint64_t ts = 1000000 + (uint64_t)p * span + cpu * 7;
			if (cpu == back_cpu && p == back)
				ts -= span; /* back to the page before's */
			make_page(pg, ts, &n);
			rc = tw_dat7_add(w, cpu, pg, PAGE);
		}
		if (!rc)
			rc = tw_dat7_sync(w, cpu, 1);
	}
	uint64_t size = 0;
	if (!rc)
		rc = tw_dat7_finish(w, &m, &size, &err);
	if (rc)
		fprintf(stderr, "synth_dat %s: %s\n", path, err.msg);
	if (w)
		tw_dat7_free(w);
	free(pg);
	close(fd);
	return rc ? -1 : 0;
}

int synth_dat_stream(const char *path, int batches, unsigned pause_us)
{
	SYNTH_META(m);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	tw_mem mem;
	tw_mem_init(&mem, NULL, NULL);
	trawl_error err = {0};
	tw_dat7 *w = tw_dat7_open(&mem, fd, path, &m, TW_DAT_COMP_ZSTD, &err);
	unsigned char *pg = malloc(PAGE);
	int rc = w && pg ? 0 : -1;
	int32_t n = 0;
	const uint64_t span = (uint64_t)SYNTH_PER_PAGE * SYNTH_STEP_NS;
	for (int b = 0; b < batches && !rc; b++) {
		for (int cpu = 0; cpu < 2 && !rc; cpu++) {
			make_page(pg, 1000000 + (uint64_t)b * span + cpu * 7,
				  &n);
			if (!(rc = tw_dat7_add(w, cpu, pg, PAGE)))
				rc = tw_dat7_sync(w, cpu, 1);
		}
		if (pause_us)
			usleep(pause_us);
	}
	if (rc)
		fprintf(stderr, "synth_dat_stream %s: %s\n", path, err.msg);
	if (w)
		tw_dat7_free(w);
	free(pg);
	close(fd);
	return rc ? -1 : 0;
}
