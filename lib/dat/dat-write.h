/* SPDX-License-Identifier: MIT */
/*
 * Writing trace.dat version 6 (trace-cmd.dat.v6(5)): the metadata the reader
 * needs to decode ring-buffer pages (header formats, event formats, symbols,
 * comms), some options, then each CPU's pages copied from a file descriptor.
 * The writer takes everything as bytes; gathering it from tracefs is the
 * recorder's job (lib/live).
 */
#ifndef TW_DAT_WRITE_H
#define TW_DAT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"
#include "trawl/error.h"

/* Option ids of trace-cmd's "options  " section (enum tracecmd_option_id). */
enum tw_dat_option_id {
	TW_DAT_OPT_DONE = 0,
	TW_DAT_OPT_DATE = 1,
	TW_DAT_OPT_CPUSTAT = 2,
	TW_DAT_OPT_BUFFER = 3,
	TW_DAT_OPT_TRACECLOCK = 4,
	TW_DAT_OPT_UNAME = 5,
	TW_DAT_OPT_VERSION = 9,
	TW_DAT_OPT_CPUCOUNT = 8,
	/* trawl's own: what the recording machine says that trace-cmd has
	 * no option for ("KEY=VALUE" lines, KEY a path under
	 * /sys/devices/system/cpu such as cpu0/cpuidle/state1/name);
	 * trace-cmd and KernelShark skip an option they do not know, and
	 * this id is far above theirs (22 in trace-cmd 3.1) */
	TW_DAT_OPT_MACHINE = 0x7472,
};

typedef struct tw_blob {
	const char *data;
	size_t len;
} tw_blob;

typedef struct tw_dat_system {
	const char *name;
	const tw_blob *formats; /* events/<system>/<event>/format, each */
	size_t nformats;
	/* events named without their formats: a live session's, whose
	 * texts are read when first needed (tw_feed.format); not written */
	const char *const *named;
	size_t nnamed;
} tw_dat_system;

typedef struct tw_dat_option {
	uint16_t id;
	tw_blob value;
} tw_dat_option;

/* A buffer of its own beside the kernel's (an application's channel,
 * lib/ring): whole pages in the kernel's format, per CPU. Written into the
 * final version 7 file only. */
typedef struct tw_dat_extra {
	const char *name;
	const char *clock;
	int ncpus;
	const tw_blob *cpu_pages; /* ncpus */
} tw_dat_extra;

typedef struct tw_dat_meta {
	uint32_t page_size;
	tw_blob header_page;   /* events/header_page */
	tw_blob header_event;  /* events/header_event */
	const tw_blob *ftrace; /* events/ftrace/<event>/format */
	size_t nftrace;
	const tw_dat_system *systems;
	size_t nsystems;
	tw_blob kallsyms; /* /proc/kallsyms, may be empty */
	tw_blob printk;	  /* printk_formats */
	tw_blob cmdlines; /* saved_cmdlines */
	const tw_dat_option *options;
	size_t noptions;
	int ncpus;
	const tw_dat_extra *extra;
	size_t nextra;
} tw_dat_meta;

/*
 * Write the whole file to fd from offset 0: metadata, then cpu_size[i]
 * bytes of pages from cpu_fd[i] (offset 0) for each CPU, consuming them (the
 * copied ranges are punched out of the sources, so a full disk still has
 * room). Sizes are whole pages. If writing data fails part way (disk
 * full), the CPU table is rewritten to cover only the pages that made it, so
 * the file stays readable, and the error is returned. kept[i] (OUT) gets the
 * bytes of CPU i in the file, table_off[i] (OUT) where they start;
 * *file_size (OUT) the file's size. path names the file in messages.
 */
int tw_dat_write(int fd, const char *path, const tw_dat_meta *m,
		 const int *cpu_fd, const uint64_t *cpu_size, uint64_t *kept,
		 uint64_t *table_off, uint64_t *file_size, trawl_error *err);

/* Bytes of the file before the CPU data (page aligned), for reserving. */
uint64_t tw_dat_header_size(const tw_dat_meta *m);

/* Compression of a version 7 file (dat-write7.c). */
enum tw_dat_comp {
	TW_DAT_COMP_ZSTD = 0,
	TW_DAT_COMP_NONE = 1,
	TW_DAT_COMP_ZLIB = 2,
};

/* "zstd", "zlib" or "none", as the file's header names it. */
const char *tw_dat_comp_name(int comp);

/*
 * A version 7 file written while recording (dat-write7.c): every batch of
 * a CPU's pages is appended as its own section and linked into the chain
 * of options sections, so the file reads whole after any write.
 */
typedef struct tw_dat7 tw_dat7;

/* Header, metadata and the first options section into fd (offset 0). */
tw_dat7 *tw_dat7_open(const tw_mem *mem, int fd, const char *path,
		      const tw_dat_meta *m, int comp, trawl_error *err);
/* Whole pages of a CPU; one thread per CPU may call it at a time. */
int tw_dat7_add(tw_dat7 *w, int cpu, const void *pages, size_t n);
/* What the CPU has into the file, if a second passed (or force). */
int tw_dat7_sync(tw_dat7 *w, int cpu, int force);
/*
 * The final file with metadata m: written beside and renamed over the
 * stream file; if that fails the stream file is completed instead and an
 * error says so. *file_size (OUT) the size of the file left.
 */
int tw_dat7_finish(tw_dat7 *w, const tw_dat_meta *m, uint64_t *file_size,
		   trawl_error *err);
/* The comms now (saved_cmdlines) into the stream file, as a section. */
int tw_dat7_cmdlines(tw_dat7 *w, const char *text, size_t len);
/* Bytes in the stream file so far. */
uint64_t tw_dat7_end(tw_dat7 *w);
void tw_dat7_free(tw_dat7 *w);

/* All of p[0..n) at file offset off, through EINTR and short writes.
 * Return: 0, or -errno (-ENOSPC when the disk took nothing). */
int tw_dat_pwrite_all(int fd, const void *p, size_t n, uint64_t off);

#endif
