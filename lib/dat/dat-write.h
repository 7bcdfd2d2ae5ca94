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

#include "trawl/error.h"

/* Option ids of trace-cmd's "options  " section (enum tracecmd_option_id). */
enum tw_dat_option_id {
	TW_DAT_OPT_DONE = 0,
	TW_DAT_OPT_DATE = 1,
	TW_DAT_OPT_CPUSTAT = 2,
	TW_DAT_OPT_TRACECLOCK = 4,
	TW_DAT_OPT_UNAME = 5,
	TW_DAT_OPT_VERSION = 9,
	TW_DAT_OPT_CPUCOUNT = 8,
};

typedef struct tw_blob {
	const char *data;
	size_t len;
} tw_blob;

typedef struct tw_dat_system {
	const char *name;
	const tw_blob *formats; /* events/<system>/<event>/format, each */
	size_t nformats;
} tw_dat_system;

typedef struct tw_dat_option {
	uint16_t id;
	tw_blob value;
} tw_dat_option;

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

#endif
