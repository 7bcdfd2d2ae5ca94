/* SPDX-License-Identifier: MIT */
/*
 * The script's BPF back end (live traces only). bpf-gen.c decides which
 * event probes run in the kernel and lowers them, from the typed tree, to
 * one BPF_PROG_TYPE_TRACEPOINT program per tracepoint (its probes in script
 * order); bpf-sys.c creates the maps, loads and attaches the programs with
 * the bpf(2) and perf_event_open(2) system calls, drains the ring buffer
 * printf() and exit() write to, and reads the kernel's maps back into the
 * script's own (tw_smap) before interval and END probes and the final
 * print. Everything is a file descriptor: nothing stays loaded or attached
 * once the process is gone, however it ends.
 *
 * Kernel layout of a map (script map i, kernel map tw_bpf.maps[i]):
 *   key:   each part 8 bytes (an integer) or TW_SC_STRMAX bytes (a string,
 *          NUL-padded, so equal strings are equal bytes); no keys: 8 zero
 *          bytes
 *   value: MV_INT 8 bytes, MV_STR TW_SC_STRMAX bytes (BPF_MAP_TYPE_HASH,
 *          shared); aggregates per CPU (BPF_MAP_TYPE_PERCPU_HASH):
 *          count [n], sum [s], min/max [n, v], avg/stats [n, sum, min,
 *          max], hist [66 buckets], lhist [nb + 2 buckets]; n tells a
 *          CPU's copy that was never written (the kernel zeroes the other
 *          CPUs' copies when one inserts).
 */
#ifndef TW_SCRIPT_BPF_INT_H
#define TW_SCRIPT_BPF_INT_H

#include <linux/bpf.h>

#include "script-int.h"

#define TW_BPF_SCRATCH	 8192	   /* per-CPU working memory of a run */
#define TW_BPF_RING	 (1 << 20) /* ring buffer bytes for printf */
#define TW_BPF_MAX_INSNS 65536	   /* per program */
/* a kstack kept in the kernel: bytes of frames, then the frames */
#define TW_BPF_STACK_VALUE (8 + 8 * TW_SC_STACK_MAX)

/* Ring buffer record kinds (the low byte of a record's first u32; the
 * CPU that wrote it above, for printf and join records). */
enum {
	TW_BPF_REC_PRINTF = 1,
	TW_BPF_REC_EXIT = 2,
	TW_BPF_REC_JOIN = 3,
	TW_BPF_REC_TIME = 4, /* kind, format's index, bpf_ktime_get_ns() */
};
/* join(): at most this many strings of an argv, each up to TW_SC_STRMAX
 * - 1 bytes (bpftrace's are 16 and 64); the record is kind, delimiter,
 * count (u32 each), a pad, the argv's address and a pointer read from it
 * (u64 each), then the strings */
#define TW_BPF_JOIN_ARGS 16
#define TW_BPF_JOIN_HEAD 32

/* Fixed kernel maps, after the script's own in tw_bpf.mfd. */
enum {
	TW_BPF_M_SCRATCH,
	TW_BPF_M_GLOBALS,
	TW_BPF_M_FAULTS,
	TW_BPF_M_RING,
	TW_BPF_M_ZEROS,
	TW_BPF_M_STACKS, /* kstack: frames by their hash (bpf-gen.c) */
	TW_BPF_M_FIXED
};

/* The globals map's one value. */
struct tw_bpf_globals {
	int64_t t0;	 /* elapsed counts from here */
	uint64_t exited; /* exit() ran: every program returns at once */
};

/* A place a kernel probe counts a fault (a division by zero, a full map,
 * printf output lost), reported as the VM reports its own. */
typedef struct tw_bpf_site {
	size_t probe;
	uint32_t line, col;
	ptrdiff_t map; /* a full map's index (the message names its limit) */
	char what[120];
} tw_bpf_site;

typedef struct tw_bpf_prog {
	char tp[256];	/* "system:event", or the perf probe as written */
	uint32_t tp_id; /* the format's ID: */
	/* a perf event's program (BPF_PROG_TYPE_PERF_EVENT): a profile or
	 * software probe, sampled on every CPU, or an interval probe that
	 * reads kernel memory, on the first CPU that takes it (cpu-clock
	 * every period) */
	int perf;
	uint32_t perf_type;
	uint64_t perf_config, period, freq;
	int one_cpu;
	int *cpu_fds; /* the perf events it is attached to, -1 closed */
	size_t ncpu_fds;
	/* a uprobe's (BPF_PROG_TYPE_KPROBE, ctx struct pt_regs): the file
	 * and offset its one perf event is opened on */
	char *upath;
	uint64_t uoffset;
	struct bpf_insn *insns;
	size_t ninsns, cap;
	uint32_t *lines; /* line << 12 | col of each instruction */
	size_t nprobes;	 /* the probes in it */
	int fd, pfd;	 /* loaded program, attached perf event */
	int kstack;	 /* a probe in it reads kstack */
} tw_bpf_prog;

typedef struct tw_bpf_map {
	int kernel; /* used by a kernel probe: it lives in the kernel */
	int percpu; /* an aggregate */
	uint32_t key_size, value_size;
	int fd;
	/* clear() and zero() from user space: the totals read last, and the
	 * totals at the clear, subtracted from what is read after (exact:
	 * nothing the kernel adds is lost, unlike clearing its map) */
	tw_smap totals, base;
	int based; /* 0: none; 1: clear() (zero deltas left out); 2: zero() */
} tw_bpf_map;

typedef struct tw_bpf {
	int backend;	  /* TRAWL_BACKEND_AUTO or TRAWL_BACKEND_BPF */
	int *in_kernel;	  /* per probe */
	char (*why)[200]; /* per probe: why it stays in user space */
	tw_bpf_prog *progs;
	size_t nprogs;
	tw_bpf_map *maps; /* per script map */
	size_t nmaps;
	int fixed[TW_BPF_M_FIXED];
	uint32_t zeros_size;
	tw_bpf_site *sites;
	size_t nsites, sites_cap;
	int ncpus; /* possible CPUs: a per-CPU value has one copy each */
	/* ring buffer consumer; TW_BPF_RING bytes with a printf in the
	 * kernel, else one page (exit()'s records; mapped, the ring is
	 * resident twice over) */
	void *ring_cons, *ring_data;
	size_t ring_size, ring_mask;
	char **joins; /* join()'s delimiters, by the record's index */
	char **times; /* time()'s formats, by the record's index */
	size_t ntimes;
	/* per CPU: the text of its records up to a line's end (printf()
	 * and join() write one line in two records, and another CPU's may
	 * come between them in the ring) */
	tw_buf *lines;
	size_t njoins;
	int printfs;	    /* kernel probes with a printf */
	int kstacks;	    /* kstacks read in the kernel */
	int must_load;	    /* a probe reads the task's memory: no fallback to
			     * user space in auto mode */
	uint64_t ring_lost; /* records the kernel could not write */
	int attached;	    /* the programs were attached (once; the kernel's
			     * maps hold the run's data from then on) */
	uint64_t kernel_bytes; /* maps' memory, as --explain states it */
	char *explain;
} tw_bpf;

/* bpf-gen.c: decide, and lower the kernel probes (c->probes with their
 * typed trees, before the arena goes). Return: 0, or fills c->err and
 * longjmps (tw_sc_error) when --backend bpf cannot run all. */
void tw_bpf_plan(tw_compiler *c, tw_bpf *b);

/* bpf-sys.c */
int tw_bpf_load(trawl_script *s, trawl_error *err);
int tw_bpf_attach(trawl_script *s, trawl_error *err);
/* The script's values of its kernel maps into them (after BEGIN).
 * Return: 0, or -1 out of memory. */
int tw_bpf_push(trawl_script *s);
void tw_bpf_detach(trawl_script *s);
/* Drain the ring buffer: printf output, exit(). Return: 1 after exit(). */
int tw_bpf_poll(trawl_script *s);
/* After the last poll: what the CPUs wrote short of a line's end. */
void tw_bpf_flush_lines(trawl_script *s);
/* The kernel maps into the script's maps; faults into its faults. */
void tw_bpf_sync(trawl_script *s);
/* clear() or zero() of map i from user space. */
void tw_bpf_cleared(trawl_script *s, size_t map, int zero);
void tw_bpf_free(const tw_mem *mem, tw_bpf *b);

#endif
