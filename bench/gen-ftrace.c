/* SPDX-License-Identifier: MIT */
/*
 * gen-ftrace.c - deterministic generator of realistic Linux ftrace text.
 *
 * Produces what `cat /sys/kernel/tracing/trace` prints on a 6.x kernel with
 * the default trace options (nop tracer, irq-info on, record-tgid off,
 * hash-ptr on): the 12-line "# tracer: nop" header followed by event lines
 *
 *   "%16s-%-7d [%03d] %5s %5llu.%06lu: <event>: <fields>\n"
 *
 * in global timestamp order.  Events come from a small simulation of a
 * machine with N CPUs (scheduler run queues, wakeups, hard/soft irqs, the
 * periodic tick, hrtimers, the timer wheel, workqueues, atrace markers and
 * trace_printk), so cross-event invariants hold: sched_switch prev_* is the
 * task that was running on that CPU, woken tasks were asleep and later get
 * switched in, irq/softirq entry/exit pair up per CPU, B/E markers nest per
 * thread, work items are queued -> activated -> executed by a kworker of the
 * right pool, timer_start idx/bucket_expiry follow the real timer wheel.
 *
 * --mix real (the default) adds what a system-wide capture with the kmem,
 * raw_syscalls, block, writeback, rcu, ipi, signal and task systems on shows
 * (tests/fixtures/pair-broad.txt): every user action happens inside the
 * syscall that makes it (sys_enter ... sys_exit, a sleeping task's sys_exit
 * after it is switched back in), with the slab, kmalloc and page events those
 * syscalls and page faults cause; rcu_utilization and sched_stat_runtime
 * around every switch; block requests issued by tasks and kworkers and
 * completed from the disk's BLOCK softirq (waking the task that waits);
 * writeback of dirtied pages; shells that fork, exec and reap programs
 * (task_*, sched_process_*, SIGCHLD); timer_init/cancel/expire, hrtimer
 * setup/cancel, tick_stop/timer_base_idle around idle; ipi_send_cpu on
 * remote wakeups and TLB flushes; pids of 1 to 7 digits.  --mix sched is
 * the generator as it was before (sched, irq, timer, workqueue, markers,
 * trace_printk), byte for byte.
 *
 * Output is a pure function of the arguments (own xoshiro256** PRNG, integer
 * arithmetic only), so the same arguments give byte-identical output on any
 * machine.  The file is sized by running the simulation twice: pass 1 only
 * measures line lengths to find the line count N that lands at --size
 * (including the header, which prints N), pass 2 writes exactly N lines.
 *
 * Usage: gen-ftrace --size 100M|1G|<bytes> [--seed N] [--cpus 4]
 *                   [--fmt 6.18|6.6] [--mix real|sched] [-o FILE]
 *
 * Build: cc -O2 -std=c11 -o gen-ftrace gen-ftrace.c
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* PRNG: xoshiro256** seeded through splitmix64; integer-only helpers  */

static uint64_t S[4];

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t r64(void)
{
	uint64_t r = rotl(S[1] * 5, 7) * 9, t = S[1] << 17;
	S[2] ^= S[0]; S[3] ^= S[1]; S[1] ^= S[2]; S[0] ^= S[3];
	S[2] ^= t; S[3] = rotl(S[3], 45);
	return r;
}

/* uniform in [0, n) */
static inline uint32_t rn(uint32_t n) { return (uint32_t)(((r64() >> 32) * (uint64_t)n) >> 32); }
/* uniform in [lo, hi] */
static inline uint64_t ur(uint64_t lo, uint64_t hi) { return hi > lo ? lo + r64() % (hi - lo + 1) : lo; }
/* true with probability p/1000 */
static inline int pm(unsigned p) { return rn(1000) < p; }

/* -ln(f) in Q16 for f = (128+i+0.5)/256, i.e. f in [0.5, 1) */
static const uint16_t NLN[128] = {
	45171, 44663, 44158, 43658, 43162, 42669, 42180, 41694, 41212, 40734, 40259, 39788,
	39320, 38855, 38393, 37935, 37480, 37028, 36579, 36133, 35690, 35251, 34814, 34380,
	33948, 33520, 33095, 32672, 32252, 31834, 31419, 31007, 30598, 30191, 29786, 29384,
	28984, 28587, 28192, 27800, 27410, 27022, 26637, 26253, 25872, 25493, 25117, 24742,
	24370, 24000, 23632, 23265, 22901, 22539, 22179, 21821, 21465, 21111, 20758, 20408,
	20059, 19712, 19368, 19024, 18683, 18344, 18006, 17670, 17335, 17003, 16672, 16342,
	16015, 15689, 15364, 15041, 14720, 14400, 14082, 13766, 13451, 13137, 12825, 12514,
	12205, 11897, 11591, 11286, 10983, 10681, 10380, 10081, 9783, 9487, 9191, 8898,
	8605, 8314, 8024, 7735, 7448, 7161, 6876, 6593, 6310, 6029, 5749, 5470,
	5192, 4916, 4640, 4366, 4093, 3821, 3550, 3281, 3012, 2745, 2478, 2213,
	1949, 1685, 1423, 1162, 902, 643, 385, 128,
};

/* exponential with the given mean, integer only: U = 2^-k * f */
static uint64_t rexp(uint64_t mean)
{
	uint64_t r = r64();
	unsigned k = r ? (unsigned)__builtin_clzll(r) : 64;
	if (k > 40) k = 40;
	uint64_t e = (uint64_t)k * 45426u + NLN[r64() >> 57];
	return (mean * e) >> 16;
}

/* ------------------------------------------------------------------ */
/* constants and tables                                                */

#define MAXCPU   64
#define MAXT     1024
#define QCAP     8192            /* per-CPU event ring, power of two */
#define MAXHRT   64
#define MAXTMR   256
#define MAXIPI   64
#define POOLQ    64
#define TICK_NS  4000000ULL      /* HZ=250 */
#define INITIAL_JIFFIES 4294892296ULL
#define NOTYET   UINT64_MAX

enum { EV_SWITCH, EV_WAKING, EV_WAKEUP, EV_IRQ_ENTRY, EV_IRQ_EXIT, EV_SI_RAISE,
       EV_SI_ENTRY, EV_SI_EXIT, EV_WQ_QUEUE, EV_WQ_ACT, EV_WQ_START, EV_WQ_END,
       EV_HRT_START, EV_HRT_ENTRY, EV_HRT_EXIT, EV_TIMER_START, EV_MARK, EV_BPRINT,
       /* --mix real only */
       EV_RCU, EV_STAT_RT, EV_SYS_ENTER, EV_SYS_EXIT, EV_KMEM, EV_PAGE, EV_RSS,
       EV_HRT_SETUP, EV_HRT_CANCEL, EV_TIMER_INIT, EV_TIMER_CANCEL, EV_TIMER_EXP_ENTRY,
       EV_TIMER_EXP_EXIT, EV_TICK_STOP, EV_TBASE_IDLE, EV_IPI, EV_BLK, EV_BLKBUF, EV_WB,
       EV_SIGGEN, EV_SIGDEL, EV_PROC, EV_PTEXT, EV_MIGRATE, EV_WAKEUP_NEW };

enum { TK_IDLE, TK_KWORKER, TK_KSOFTIRQD, TK_RCU, TK_MIGRATION, TK_JBD2, TK_IRQT,
       TK_USER, TK_ATRACE, TK_CHILD };
enum { ST_RUN, ST_RUNNABLE, ST_SLEEP, ST_DEAD };
enum { PS_R, PS_RP, PS_S, PS_D, PS_I, PS_Z, PS_X };
static const char *const PSTATE[] = { "R", "R+", "S", "D", "I", "Z", "X" };

enum { K_NONE, K_IPI, K_SCHED, K_HRT, K_IRQ, K_ACT };

static const char *const VECNAME[10] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };
enum { V_HI, V_TIMER, V_NET_TX, V_NET_RX, V_BLOCK, V_IRQ_POLL, V_TASKLET, V_SCHED,
       V_HRTIMER, V_RCU };

/* hrtimer functions */
enum { HF_TICK, HF_WAKEUP, HF_WATCHDOG, HF_PACE, HF_N };
static const char *HFNAME[HF_N] = { "tick_nohz_handler", "hrtimer_wakeup",
	"watchdog_timer_fn", "tcp_pace_kick" };
static const char *const HMODE[] = { "ABS", "REL", "ABS|PINNED", "REL|PINNED",
	"ABS|SOFT", "REL|SOFT", "ABS|PINNED|SOFT", "REL|PINNED|SOFT", "ABS|HARD",
	"REL|HARD", "ABS|PINNED|HARD", "REL|PINNED|HARD" };
enum { HM_ABS = 0, HM_REL = 1, HM_ABS_PINNED_SOFT = 6, HM_ABS_PINNED_HARD = 10 };

/* timer-wheel functions; flag strings as printed by __print_flags */
enum { TF_PROCESS_TIMEOUT, TF_DWT, TF_TCP_DELACK, TF_TCP_WRITE, TF_TCP_KEEPALIVE,
       TF_TCP_ORPHAN, TF_WRITEOUT, TF_COMMIT, TF_NEIGH, TF_BLK_TIMEOUT, TF_IDLE_WORKER,
       TF_N };
static const char *const TFNAME[TF_N] = { "process_timeout", "delayed_work_timer_fn",
	"tcp_delack_timer", "tcp_write_timer", "tcp_keepalive_timer", "tcp_orphan_update",
	"writeout_period", "commit_timeout", "neigh_timer_handler",
	"blk_rq_timed_out_timer", "idle_worker_timeout" };
static const char *const TFLAGS[] = { "", "I", "D|I", "D", "P" };
enum { TFL_NONE, TFL_I, TFL_DI, TFL_D, TFL_P };
static const uint8_t TF_DEFFL[TF_N] = { TFL_NONE, TFL_I, TFL_NONE, TFL_NONE, TFL_NONE,
	TFL_D, TFL_D, TFL_NONE, TFL_NONE, TFL_NONE, TFL_D };

/* device interrupts */
enum { IT_BLK, IT_NET, IT_NETTX, IT_WIFI, IT_GPU, IT_INPUT, IT_USB, IT_MISC };
static const struct { int irq; const char *name; int type; unsigned rate; } IRQS[] = {
	{ 36,  "virtio1-req.0",      IT_BLK,   900 },
	{ 30,  "virtio0-input.0",    IT_NET,   1400 },
	{ 128, "nvme0q1",            IT_BLK,   500 },
	{ 31,  "virtio0-output.0",   IT_NETTX, 350 },
	{ 140, "i915",               IT_GPU,   120 },
	{ 130, "iwlwifi",            IT_WIFI,  300 },
	{ 16,  "i8042",              IT_INPUT, 25 },
	{ 126, "xhci_hcd",           IT_USB,   60 },
	{ 9,   "acpi",               IT_MISC,  3 },
	{ 24,  "ahci[0000:00:17.0]", IT_BLK,   150 },
};
#define NIRQ (int)(sizeof(IRQS) / sizeof(IRQS[0]))

/* trace_printk call sites: function shown where the event name goes */
enum { BP_POLL, BP_IRQ, BP_XMIT, BP_NVME, BP_WORKER, BP_VBLANK, BP_N };
static const struct { const char *fn; const char *fmt; } BP[BP_N] = {
	{ "my_driver_poll",  "rx %u bytes" },
	{ "my_driver_irq",   "status=0x%08x pending=%u" },
	{ "my_driver_xmit",  "tx queue=%u len=%u" },
	{ "nvme_dbg_submit", "qid=%u cid=%u opc=0x%02x" },
	{ "foo_worker_fn",   "processed %u items in %u us" },
	{ "drm_dbg_vblank",  "crtc %u: vblank count %u" },
};

/* atrace marker names (B sections) and counters (C) */
static const char *const MNAME[] = {
	/* 0 surfaceflinger */
	"onMessageReceived", "handleMessageRefresh", "composite", "commit", "latchBuffers",
	"doComposition",
	/* 6 binder */
	"binder transaction", "binder reply",
	"AIDL::java::IActivityManager::getRunningAppProcesses::server",
	"HIDL::IComposerClient::executeCommands_2_2::server",
	"Lock contention on thread list lock (owner tid: 612)",
	/* 11 chrome io */
	"ThreadControllerImpl::RunTask", "ScopedBlockingCall", "SimpleWatcher::OnHandleReady",
	"IPC::ChannelMojo::OnMessageReceived",
	/* 15 render */
	"DrawFrame", "syncFrameState", "queueBuffer", "dequeueBuffer",
	"eglSwapBuffersWithDamageKHR",
	/* 20 web content */
	"RefreshDriverTick", "PaintThread::Paint", "JS::GC", "nsViewManager::Refresh",
	/* 24 memfd */
	"ashmem_create_region", "MemoryFile::allocate",
	/* 26 counters */
	"HW_VSYNC", "VSYNC-sf", "VSYNC-app", "FrameMissed", "queuedBuffers", "mem.rss",
	"GPU completion",
	/* 33 async (S/F) names, --mix real */
	"async_load", "launching: org.mozilla.firefox", "HIDL::IAllocator::allocate::client",
};
#define MN_ASYNC 33
enum { MC_HWVSYNC = 26, MC_VSYNCSF, MC_VSYNCAPP, MC_FRAMEMISSED, MC_QUEUED, MC_RSS, MC_GPU };
static const struct { uint8_t b0, bn, c0, cn; } MSET[] = {
	{ 0, 6, MC_HWVSYNC, 3 },      /* surfaceflinger */
	{ 6, 5, MC_QUEUED, 1 },       /* binder */
	{ 11, 4, MC_RSS, 1 },         /* chrome io */
	{ 15, 5, MC_FRAMEMISSED, 2 }, /* render */
	{ 20, 4, MC_GPU, 1 },         /* web content */
	{ 24, 2, MC_RSS, 1 },         /* memfd */
};
enum { MS_SF, MS_BINDER, MS_CHROME, MS_RENDER, MS_WEB, MS_MEMFD };

/* workqueue work definitions */
enum { WK_PERCPU, WK_HIGHPRI, WK_UNBOUND };
enum { WB_NONE, WB_REARM, WB_TTY, WB_WRITEBACK, WB_BPRINT };
static const struct {
	const char *fn, *wq;
	uint8_t kind, on, behav, tflags;
	uint16_t rearm;        /* jiffies for WB_REARM */
	uint32_t lo, hi;       /* execution time, ns */
} WDEF[] = {
	{ "vmstat_update",            "mm_percpu_wq",           WK_PERCPU,  1, WB_REARM,     TFL_DI, 250,  3000, 25000 },
	{ "psi_avgs_work",            "events",                 WK_PERCPU,  0, WB_REARM,     TFL_I,  500,  2000, 15000 },
	{ "kfree_rcu_monitor",        "events",                 WK_PERCPU,  0, WB_REARM,     TFL_I,  5,    1500, 40000 },
	{ "lru_add_drain_per_cpu",    "mm_percpu_wq",           WK_PERCPU,  1, WB_NONE,      0,      0,    2000, 30000 },
	{ "neigh_managed_work",       "events_power_efficient", WK_PERCPU,  0, WB_REARM,     TFL_DI, 1250, 3000, 12000 },
	{ "gc_worker",                "events_power_efficient", WK_PERCPU,  0, WB_REARM,     TFL_DI, 25,   2000, 60000 },
	{ "drm_fb_helper_damage_work","events",                 WK_PERCPU,  0, WB_BPRINT,    0,      0,    8000, 90000 },
	{ "free_work",                "events",                 WK_PERCPU,  0, WB_NONE,      0,      0,    2000, 20000 },
	{ "virtio_transport_tx_work", "virtio_vsock",           WK_PERCPU,  0, WB_NONE,      0,      0,    3000, 18000 },
	{ "blk_mq_run_work_fn",       "kblockd",                WK_HIGHPRI, 0, WB_NONE,      0,      0,    2000, 15000 },
	{ "blk_mq_requeue_work",      "kblockd",                WK_HIGHPRI, 0, WB_NONE,      0,      0,    1500, 8000 },
	{ "flush_to_ldisc",           "events_unbound",         WK_UNBOUND, 0, WB_TTY,       0,      0,    4000, 30000 },
	{ "wb_workfn",                "writeback",              WK_UNBOUND, 0, WB_WRITEBACK, 0,      0,    10000, 250000 },
	{ "ext4_end_io_rsv_work",     "ext4-rsv-conversion",    WK_UNBOUND, 0, WB_NONE,      0,      0,    3000, 40000 },
	{ "disk_events_workfn",       "events_freezable_pwr_efficient", WK_UNBOUND, 0, WB_REARM, TFL_DI, 500, 20000, 120000 },
};
#define NWDEF (int)(sizeof(WDEF) / sizeof(WDEF[0]))
enum { WD_VMSTAT, WD_PSI, WD_KFREE, WD_LRU, WD_NEIGH, WD_GC, WD_DRM, WD_FREE, WD_VSOCK,
       WD_BLKRUN, WD_BLKREQ, WD_TTY, WD_WB, WD_EXT4, WD_DISK };

/* user task action kinds (A_SYSCALL.. only in --mix real) */
enum { A_MARK, A_WAKE, A_SLEEP, A_SLEEPD, A_HRSLEEP, A_TSLEEP, A_TIMER, A_QWORK,
       A_BPRINT, A_YIELD, A_SYSCALL, A_FAULT, A_MMAP, A_FWRITE, A_SPAWN, A_SIGNAL, A_N };
static const uint16_t W_ATRACE[A_N] = { 330, 125, 45, 6, 50, 25, 38, 32, 30, 6 };
static const uint16_t W_USER[A_N]   = { 0,   200, 90, 35, 100, 55, 85, 55, 65, 12 };

/* ------------------------------------------------------------------ */
/* --mix real: what a system-wide capture with the kmem, raw_syscalls,  */
/* block, writeback, rcu, ipi, signal and task systems on adds          */

static int REAL = 1;                     /* --mix real (default); 0: --mix sched */

/* task profiles: which actions a task takes, and which quick syscalls */
enum { PR_ATRACE, PR_SHELL, PR_DAEMON, PR_JOURNAL, PR_BROWSER, PR_COMPUTE, PR_CHILD, PR_N };
/*   MARK WAKE SLEEP SLEEPD HRSLEEP TSLEEP TIMER QWORK BPRINT YIELD SYSCALL FAULT MMAP FWRITE SPAWN SIGNAL */
static const uint16_t W_REAL[PR_N][A_N] = {
	[PR_ATRACE]  = { 450, 125, 45,  4,  50, 25, 38, 30, 6,  6,  230, 150, 35, 4,   0,  1 },
	[PR_SHELL]   = { 0,   50,  60,  8,  20, 20, 5,  40, 0,  2,  420, 150, 30, 30,  120, 3 },
	[PR_DAEMON]  = { 0,   150, 120, 4,  40, 80, 60, 20, 8,  5,  230, 60,  25, 10,  0,  2 },
	[PR_JOURNAL] = { 0,   80,  80,  30, 20, 40, 10, 40, 0,  2,  260, 40,  10, 120, 0,  0 },
	[PR_BROWSER] = { 0,   200, 90,  6,  80, 40, 60, 30, 8,  10, 300, 260, 90, 10,  0,  1 },
	[PR_COMPUTE] = { 0,   60,  40,  8,  30, 20, 5,  10, 0,  30, 150, 400, 110, 20, 0,  0 },
	[PR_CHILD]   = { 0,   0,   0,   20, 10, 5,  0,  10, 0,  5,  400, 250, 80, 60,  0,  0 },
};

/* x86_64 syscalls.  args: six comma-separated tokens, each a literal lower-case
 * hex number or F (the fd), N (the length), S/H/L (a stack, heap or library
 * address of the task), R (a small number); ret: how sys_exit's value is made */
enum { RET_ZERO, RET_LEN, RET_FD, RET_ADDR, RET_EAGAIN, RET_TIMEDOUT, RET_ONE, RET_SMALL,
       RET_ENOENT, RET_ENOTTY, RET_PID, RET_ECHILD, RET_OFF };
static const struct { int16_t nr; uint8_t ret; const char *args; } SC[] = {
#define SYS(id, nr, ret, args) [id] = { nr, ret, args }
	SYS(0,  0,   RET_LEN,      "F,S,N,0,S,0"),              /* read */
	SYS(1,  1,   RET_LEN,      "F,H,N,0,7,73"),             /* write */
	SYS(2,  3,   RET_ZERO,     "F,1,ffffffff,0,7,0"),       /* close */
	SYS(3,  7,   RET_ONE,      "S,2,ffffffff,0,0,8"),       /* poll */
	SYS(4,  8,   RET_OFF,      "F,0,1,R,0,0"),              /* lseek */
	SYS(5,  9,   RET_ADDR,     "0,N,3,22,ffffffff,0"),      /* mmap */
	SYS(6,  10,  RET_ZERO,     "L,N,1,L,R,0"),              /* mprotect */
	SYS(7,  11,  RET_ZERO,     "L,N,L,S,0,c"),              /* munmap */
	SYS(8,  13,  RET_ZERO,     "R,S,S,8,S,H"),              /* rt_sigaction */
	SYS(9,  14,  RET_ZERO,     "2,S,S,8,L,H"),              /* rt_sigprocmask */
	SYS(10, 16,  RET_ZERO,     "F,5413,S,8,H,41"),          /* ioctl */
	SYS(11, 17,  RET_LEN,      "F,S,N,R,S,0"),              /* pread64 */
	SYS(12, 24,  RET_ZERO,     "0,0,0,L,0,L"),              /* sched_yield */
	SYS(13, 45,  RET_EAGAIN,   "F,H,N,40,0,0"),             /* recvfrom */
	SYS(14, 46,  RET_LEN,      "F,S,4040,0,0,H"),           /* sendmsg */
	SYS(15, 47,  RET_LEN,      "F,S,40,0,0,H"),             /* recvmsg */
	SYS(16, 56,  RET_PID,      "1200011,0,0,L,0,H"),        /* clone */
	SYS(17, 59,  RET_ZERO,     "H,H,H,662d7222f47997fb,7,H"), /* execve */
	SYS(18, 61,  RET_PID,      "ffffffff,S,0,0,1,8"),       /* wait4 */
	SYS(19, 62,  RET_ZERO,     "N,a,0,0,0,H"),              /* kill (N: the pid) */
	SYS(20, 72,  RET_ZERO,     "F,1,0,1b6,0,20"),           /* fcntl */
	SYS(21, 74,  RET_ZERO,     "F,S,1000,L,0,64"),          /* fsync */
	SYS(22, 202, RET_ZERO,     "L,89,ffffffff,S,0,7ffeffffffff"), /* futex wait */
	SYS(23, 202, RET_ONE,      "L,81,1,0,0,L"),             /* futex wake */
	SYS(24, 230, RET_ZERO,     "0,0,S,S,0,64"),             /* clock_nanosleep */
	SYS(25, 231, RET_ZERO,     "0,e7,3c,S,ffffffffffffff80,64"), /* exit_group */
	SYS(26, 232, RET_SMALL,    "F,S,400,ffffffff,0,L"),     /* epoll_wait */
	SYS(27, 257, RET_FD,       "ffffff9c,H,80000,0,0,20"),  /* openat */
	SYS(28, 262, RET_ZERO,     "F,L,S,1000,0,H"),           /* newfstatat */
	SYS(29, 271, RET_ONE,      "S,R,0,0,8,0"),              /* ppoll */
	SYS(30, 318, RET_LEN,      "L,N,1,L,0,0"),              /* getrandom */
	SYS(31, 39,  RET_PID,      "0,0,0,L,0,L"),              /* getpid */
	SYS(32, 15,  RET_ZERO,     "ffffffff,S,ffffffffffffff80,0,7,H"), /* rt_sigreturn */
	SYS(33, 12,  RET_ADDR,     "0,S,0,37f,0,0"),            /* brk */
	SYS(34, 28,  RET_ZERO,     "L,N,4,0,0,0"),              /* madvise */
	SYS(35, 18,  RET_LEN,      "F,H,N,R,0,0"),              /* pwrite64 */
	SYS(36, 44,  RET_LEN,      "F,H,N,40,0,0"),             /* sendto */
	SYS(37, 233, RET_ZERO,     "F,1,F,S,0,H"),              /* epoll_ctl */
#undef SYS
};
enum { SC_READ, SC_WRITE, SC_CLOSE, SC_POLL, SC_LSEEK, SC_MMAP, SC_MPROTECT, SC_MUNMAP,
       SC_SIGACTION, SC_SIGPROCMASK, SC_IOCTL, SC_PREAD, SC_YIELD, SC_RECVFROM, SC_SENDMSG,
       SC_RECVMSG, SC_CLONE, SC_EXECVE, SC_WAIT4, SC_KILL, SC_FCNTL, SC_FSYNC, SC_FUTEX_WAIT,
       SC_FUTEX_WAKE, SC_NANOSLEEP, SC_EXIT_GROUP, SC_EPOLL_WAIT, SC_OPENAT, SC_FSTATAT,
       SC_PPOLL, SC_GETRANDOM, SC_GETPID, SC_SIGRETURN, SC_BRK, SC_MADVISE, SC_PWRITE,
       SC_SENDTO, SC_EPOLL_CTL, SC_N };

/* slab caches and kmalloc size classes (for pointer reuse) */
enum { KC_NONE, KC_NAMES, KC_FILP, KC_LSMFILE, KC_VMA, KC_MAPLE, KC_AVC, KC_AV, KC_TASK,
       KC_SIGNAL, KC_SIGHAND, KC_MM, KC_FILES, KC_PID, KC_SIGQ, KC_BH, KC_BIO, KC_ES,
       KC_IOEND, KC_SKB, KC_RADIX, KC_LSMINODE, KC_EXT4INODE, KC_DENTRY, KC_EPI,
       KC_K16, KC_K64, KC_K96, KC_K512, KC_K1K, KC_K2K, KC_K4K, KC_N };
static const char *const KCNAME[KC_N] = { "", "names_cache", "filp", "lsm_file_cache",
	"vm_area_struct", "maple_node", "anon_vma_chain", "anon_vma", "task_struct",
	"signal_cache", "sighand_cache", "mm_struct", "files_cache", "pid", "sigqueue",
	"buffer_head", "bio-184", "extent_status", "ext4_io_end", "skbuff_head_cache",
	"radix_tree_node", "lsm_inode_cache", "ext4_inode_cache", "dentry", "eventpoll_epi" };

/* kmem call sites, as the kmem events print them (%pS) */
enum { KM_CALLOC, KM_CFREE, KM_KMALLOC, KM_KFREE };
static const struct {
	uint8_t kind, cache; const char *site; uint16_t req, alloc; const char *gfp;
	int8_t node; uint8_t acct;
} KS[] = {
#define CA(id, c, s, r, a, g, n, ac) [id] = { KM_CALLOC, c, s, r, a, g, n, ac }
#define CF(id, c, s) [id] = { KM_CFREE, c, s, 0, 0, NULL, 0, 0 }
#define KA(id, c, s, r, a, g, n, ac) [id] = { KM_KMALLOC, c, s, r, a, g, n, ac }
#define KF(id, c, s) [id] = { KM_KFREE, c, s, 0, 0, NULL, 0, 0 }
	CA(0,  KC_NAMES,   "getname_flags.part.0+0x24/0x1f0", 4096, 4096, "GFP_KERNEL", -1, 0),
	CA(1,  KC_FILP,    "alloc_empty_file+0x3c/0x110", 184, 192, "GFP_KERNEL", -1, 1),
	CA(2,  KC_LSMFILE, "security_file_alloc+0x27/0xd0", 24, 24, "GFP_KERNEL|__GFP_ZERO", -1, 0),
	CF(3,  KC_NAMES,   "do_sys_openat2+0xa2/0xe0"),
	CF(4,  KC_NAMES,   "vfs_fstatat+0x71/0xb0"),
	CF(5,  KC_LSMFILE, "__fput+0x141/0x2a0"),
	CF(6,  KC_FILP,    "task_work_run+0x59/0x90"),
	CA(7,  KC_VMA,     "vm_area_alloc+0x1a/0x80", 192, 192, "GFP_KERNEL", -1, 1),
	CA(8,  KC_VMA,     "vm_area_dup+0x1e/0x190", 192, 192, "GFP_KERNEL", -1, 1),
	CA(9,  KC_MAPLE,   "mas_preallocate+0x442/0x480", 256, 256, "GFP_KERNEL", -1, 0),
	CA(10, KC_MAPLE,   "mas_dup_alloc.isra.0+0x1af/0x350", 256, 256, "GFP_NOWAIT", -1, 0),
	CF(11, KC_VMA,     "vms_complete_munmap_vmas+0xe1/0x190"),
	CF(12, KC_VMA,     "exit_mmap+0x220/0x430"),
	KF(13, KC_NONE,    "vm_area_free+0x1c/0x80"),
	CA(14, KC_AVC,     "anon_vma_clone+0x66/0x1e0", 64, 64, "GFP_NOWAIT", -1, 1),
	CA(15, KC_AVC,     "anon_vma_fork+0xa8/0x180", 64, 64, "GFP_KERNEL", -1, 1),
	CA(16, KC_AV,      "anon_vma_fork+0x6d/0x180", 96, 104, "GFP_KERNEL", -1, 1),
	CA(17, KC_AVC,     "__anon_vma_prepare+0x40/0x1e0", 64, 64, "GFP_KERNEL", -1, 1),
	CA(18, KC_AV,      "__anon_vma_prepare+0x11f/0x1e0", 96, 104, "GFP_KERNEL", -1, 1),
	CF(19, KC_AVC,     "unlink_anon_vmas+0x173/0x1e0"),
	CF(20, KC_AVC,     "unlink_anon_vmas+0x81/0x1e0"),
	CF(21, KC_AV,      "__put_anon_vma+0x2d/0xa0"),
	CA(22, KC_TASK,    "copy_process+0x1a5/0x1da0", 5840, 5888, "GFP_KERNEL", -1, 1),
	CA(23, KC_SIGNAL,  "copy_process+0xaee/0x1da0", 1152, 1152, "GFP_KERNEL|__GFP_ZERO", -1, 1),
	CA(24, KC_SIGHAND, "copy_process+0xa7a/0x1da0", 2080, 2112, "GFP_KERNEL", -1, 1),
	CA(25, KC_MM,      "copy_process+0x1223/0x1da0", 1568, 1600, "GFP_KERNEL", -1, 1),
	CA(26, KC_FILES,   "dup_fd+0x2a/0x3b0", 704, 704, "GFP_KERNEL", -1, 1),
	CA(27, KC_PID,     "alloc_pid+0x60/0x400", 184, 192, "GFP_KERNEL", -1, 1),
	CA(28, KC_PID,     "prepare_creds+0x1c/0x2e0", 184, 192, "GFP_KERNEL", -1, 1),
	CA(29, KC_MAPLE,   "__mt_dup+0x23e/0x580", 256, 256, "GFP_KERNEL", -1, 0),
	CA(30, KC_SIGQ,    "__send_signal_locked+0x98/0x460", 80, 80, "GFP_ATOMIC", -1, 1),
	CF(31, KC_SIGQ,    "dequeue_signal+0x12c/0x170"),
	CA(32, KC_BH,      "alloc_buffer_head+0x1d/0x90", 104, 104, "GFP_NOFS|__GFP_ZERO|__GFP_NOFAIL|__GFP_ACCOUNT", -1, 1),
	CA(33, KC_BIO,     "mempool_alloc_noprof+0x7f/0x1f0", 184, 192, "GFP_NOWAIT|__GFP_NORETRY|__GFP_NOMEMALLOC", -1, 0),
	CF(34, KC_BIO,     "blk_update_request+0xe0/0x3b0"),
	CA(35, KC_ES,      "__es_insert_extent+0x1a3/0x390", 40, 40, "GFP_ATOMIC", -1, 0),
	CF(36, KC_ES,      "__es_remove_extent+0x232/0x7e0"),
	CA(37, KC_IOEND,   "ext4_init_io_end+0x1b/0x50", 64, 64, "GFP_KERNEL|__GFP_ZERO", -1, 0),
	CF(38, KC_IOEND,   "ext4_end_io_end+0x4c/0xe0"),
	CA(39, KC_SKB,     "__alloc_skb+0x10f/0x1d0", 232, 256, "GFP_KERNEL", -1, 0),
	KA(40, KC_K1K,     "kmalloc_reserve+0x7c/0x110", 640, 1024, "GFP_KERNEL|__GFP_NOWARN|__GFP_NOMEMALLOC", -1, 0),
	CF(41, KC_SKB,     "kfree_skbmem+0x6c/0xa0"),
	KF(42, KC_K1K,     "skb_release_data+0x16d/0x1d0"),
	KF(43, KC_K96,     "rcu_do_batch+0x1b7/0x530"),
	CF(44, KC_RADIX,   "rcu_do_batch+0x1b7/0x530"),
	CF(45, KC_LSMINODE, "rcu_do_batch+0x1b7/0x530"),
	CF(46, KC_PID,     "rcu_do_batch+0x1b7/0x530"),
	CF(47, KC_EXT4INODE, "rcu_do_batch+0x1b7/0x530"),
	CF(48, KC_TASK,    "rcu_do_batch+0x1b7/0x530"),
	CA(49, KC_DENTRY,  "__d_alloc+0x2d/0x230", 192, 192, "GFP_KERNEL", -1, 1),
	CF(50, KC_DENTRY,  "__dentry_kill+0x130/0x1a0"),
	KA(51, KC_K512,    "alloc_bprm+0x45/0x220", 408, 512, "GFP_KERNEL|__GFP_ZERO", -1, 0),
	KA(52, KC_K1K,     "load_elf_phdrs+0x49/0xc0", 728, 1024, "GFP_KERNEL", -1, 0),
	CA(53, KC_MM,      "mm_alloc+0x16/0x60", 1568, 1600, "GFP_KERNEL", -1, 1),
	CF(54, KC_NAMES,   "do_execveat_common.isra.0+0xec/0x1b0"),
	KF(55, KC_NONE,    "free_bprm+0xf4/0x110"),
	CF(56, KC_FILES,   "do_exit+0x784/0xab0"),
	CF(57, KC_SIGHAND, "release_task+0x304/0x5f0"),
	CF(58, KC_MM,      "finish_task_switch.isra.0+0x1a7/0x2b0"),
	CF(59, KC_PID,     "put_pid.part.0+0x51/0x70"),
	KF(60, KC_NONE,    "futex_hash_free+0x21/0x40"),
	KA(61, KC_K96,     "ext4_find_extent+0x30c/0x350", 96, 96, "GFP_NOFS|__GFP_ZERO", -1, 0),
	KF(62, KC_K96,     "ext4_ext_map_blocks+0x39c/0x1b80"),
	CA(63, KC_EPI,     "ep_insert+0x9d/0x7a0", 128, 128, "GFP_KERNEL", -1, 1),
	CA(64, KC_SKB,     "__napi_build_skb+0x1f/0x60", 232, 256, "GFP_ATOMIC|__GFP_NOWARN", -1, 0),
	CF(65, KC_SKB,     "napi_consume_skb+0x4b/0xd0"),
	KA(66, KC_K16,     "lsm_blob_alloc+0x3b/0x60", 11, 16, "GFP_KERNEL_ACCOUNT|__GFP_ZERO", -1, 1),
	KA(67, KC_K2K,     "alloc_fdtable+0x84/0x140", 2048, 2048, "GFP_KERNEL_ACCOUNT", -1, 1),
	KA(68, KC_K64,     "alloc_fdtable+0x55/0x140", 56, 64, "GFP_KERNEL_ACCOUNT", -1, 1),
	KF(69, KC_K2K,     "put_files_struct.part.0+0x98/0xc0"),
	KA(70, KC_K4K,     "proc_sys_call_handler+0xf1/0x2b0", 4096, 4096, "GFP_KERNEL", -1, 0),
	KF(71, KC_K4K,     "proc_sys_call_handler+0x1a3/0x2b0"),
	CF(72, KC_FILP,    "__x64_sys_close+0x39/0x80"),
	CF(73, KC_BH,      "free_buffer_head+0x21/0x80"),
#undef CA
#undef CF
#undef KA
#undef KF
};
enum { KS_GETNAME, KS_FILP, KS_LSMFILE, KS_PUTNAME_OPEN, KS_PUTNAME_STAT, KS_FPUT_LSM,
       KS_FPUT_FILP, KS_VMA_ALLOC, KS_VMA_DUP, KS_MAPLE, KS_MAPLE_DUP, KS_VMA_UNMAP,
       KS_VMA_EXIT, KS_VMA_KFREE, KS_AVC_CLONE, KS_AVC_FORK, KS_AV_FORK, KS_AVC_PREP,
       KS_AV_PREP, KS_AVC_UNLINK, KS_AVC_UNLINK2, KS_AV_PUT, KS_TASK, KS_SIGNAL, KS_SIGHAND,
       KS_MM, KS_FILES, KS_PID, KS_CRED, KS_MT_DUP, KS_SIGQ, KS_SIGQ_FREE, KS_BH, KS_BIO,
       KS_BIO_FREE, KS_ES, KS_ES_FREE, KS_IOEND, KS_IOEND_FREE, KS_SKB, KS_SKB_DATA,
       KS_SKB_FREE, KS_SKB_DATA_FREE, KS_RCU_KFREE, KS_RCU_RADIX, KS_RCU_LSMINODE,
       KS_RCU_PID, KS_RCU_EXT4INODE, KS_RCU_TASK, KS_DENTRY, KS_DENTRY_FREE, KS_BPRM,
       KS_PHDR, KS_MM_ALLOC, KS_PUTNAME_EXEC, KS_BPRM_FREE, KS_FILES_FREE, KS_SIGHAND_FREE,
       KS_MM_FREE, KS_PID_FREE, KS_FUTEX_FREE, KS_EXT4_PATH, KS_EXT4_PATH_FREE, KS_EPI,
       KS_NAPI_SKB, KS_NAPI_SKB_FREE, KS_LSM_BLOB, KS_FDTABLE, KS_FDTABLE2, KS_FDTABLE_FREE,
       KS_SYSCTL, KS_SYSCTL_FREE, KS_CLOSE_FILP, KS_BH_FREE, KS_N };

/* mm_page_alloc gfp flags and migratetypes, as printed */
static const struct { const char *gfp; uint8_t mt; } PGFP[] = {
	{ "GFP_HIGHUSER_MOVABLE|__GFP_ZERO|__GFP_COMP", 1 },     /* anonymous fault */
	{ "GFP_HIGHUSER_MOVABLE|__GFP_COMP", 1 },                /* file fault (page cache) */
	{ "GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP", 0 },       /* page tables */
	{ "GFP_HIGHUSER_MOVABLE|__GFP_WRITE|__GFP_COMP", 1 },    /* write into the page cache */
	{ "GFP_NOWAIT", 0 },
	{ "GFP_NOFS|__GFP_HIGHMEM|__GFP_MOVABLE|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP|__GFP_HARDWALL", 1 },
	{ "GFP_ATOMIC|__GFP_NOWARN|__GFP_COMP|__GFP_NOMEMALLOC", 0 },  /* page_pool (net rx) */
};
enum { PG_ANON, PG_FILE, PG_PGTABLE, PG_WRITE, PG_NOWAIT, PG_READAHEAD, PG_NETRX };
enum { PK_ALLOC, PK_FREE, PK_BATCHED, PK_ZONE };

/* block devices (dev_t major,minor), the irq that completes their requests */
static const struct { const char *dev; const char *bdi; int irqi; } BDEV[] = {
	{ "254,0", "254:0", 0 },     /* vda: virtio1-req.0 */
	{ "259,0", "259:0", 2 },     /* nvme0n1: nvme0q1 */
	{ "8,0",   "8:0",   9 },     /* sda: ahci */
};
#define NBDEV 3
static const char *const RWBS[] = { "R", "RM", "RA", "W", "WS", "WSM", "FWS", "WM", "RS" };
enum { RW_R, RW_RM, RW_RA, RW_W, RW_WS, RW_WSM, RW_FWS, RW_WM, RW_RS };
enum { BK_QUEUE, BK_GETRQ, BK_IOSTART, BK_PLUG, BK_INSERT, BK_UNPLUG, BK_ISSUE, BK_COMPLETE,
       BK_IODONE };
#define BQCAP 32

/* writeback events */
enum { WBE_DIRTY_FOLIO, WBE_MARK_DIRTY, WBE_DIRTY_START, WBE_DIRTY, WBE_FOREIGN, WBE_START,
       WBE_QUEUE_IO, WBE_SINGLE_START, WBE_SINGLE, WBE_WRITE_START, WBE_WRITE, WBE_WRITTEN,
       WBE_PAGES, WBE_SB_MARK, WBE_SB_CLEAR, WBE_ENQUEUE, WBE_GLOBAL };
static const char *const ISTATE[] = { "I_DIRTY_PAGES", "I_DIRTY_SYNC",
	"I_DIRTY_SYNC|I_DIRTY_DATASYNC|I_DIRTY_PAGES", "I_DIRTY_SYNC|I_DIRTY_PAGES",
	"I_DIRTY_SYNC|I_DIRTY_PAGES|I_SYNC", "I_SYNC", "I_DIRTY_PAGES|I_SYNC", "I_DIRTY_TIME" };
enum { IS_PAGES, IS_SYNC, IS_ALL, IS_SYNC_PAGES, IS_SYNC_PAGES_SYNC, IS_ISYNC, IS_PAGES_ISYNC,
       IS_TIME };

/* rcu_utilization strings */
static const char *const RCUS[] = { "Start context switch", "End context switch",
	"Start scheduler-tick", "End scheduler-tick", "Start RCU core", "End RCU core" };

/* ipi_send_cpu call sites */
static const char *const IPIS[] = {
	"callsite=ttwu_queue_wakelist+0x11d/0x150 callback=generic_smp_call_function_single_interrupt+0x0/0x10",
	"callsite=on_each_cpu_cond_mask+0x20/0x60 callback=generic_smp_call_function_single_interrupt+0x0/0x10",
	"callsite=wakeup_preempt+0x55/0xa0 callback=0x0",
};

/* sched_process_* and task_* events */
enum { PE_FORK, PE_NEWTASK, PE_PREP_EXEC, PE_RENAME, PE_EXEC, PE_EXIT, PE_WAIT, PE_FREE };

/* programs the shells run (execve filename, comm) */
static const struct { const char *path, *comm; } EXE[] = {
	{ "/usr/bin/ls", "ls" }, { "/usr/bin/grep", "grep" }, { "/usr/bin/git", "git" },
	{ "/usr/bin/cat", "cat" }, { "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "cc1" },
	{ "/usr/bin/sed", "sed" }, { "/usr/bin/python3.11", "python3" },
	{ "/usr/bin/dd", "dd" }, { "/usr/bin/systemd-tty-ask-password-agent", "systemd-tty-ask" },
	{ "/usr/libexec/gcc/x86_64-linux-gnu/12/collect2", "collect2" },
};
#define NEXE (int)(sizeof(EXE) / sizeof(EXE[0]))
#define NSLOT 4                   /* children alive at once */

/* print (trace_marker) text that is not an atrace marker */
enum { PT_CLOCK_REAL, PT_CLOCK_PARENT };

/* ------------------------------------------------------------------ */
/* simulation state                                                    */

typedef struct {
	uint64_t ts, x, y;
	uint32_t a, b, c, d;
	uint16_t type, task;
	char fl[5];
} ev_t;

typedef struct {
	char comm[16];
	int pid, tgid, prio, kind, bound, pool, mset, net;
	uint32_t mean_ns;      /* mean time between actions while running */
	int state, cpu;
	uint64_t since;        /* runnable: ready time; sleeping: sleep start */
	int pstate;            /* why it sleeps (PS_S/PS_D/PS_I) */
	uint32_t gen;          /* bumped on every wakeup: cancels stale timers */
	int mdepth;
	uint8_t mstack[8];
	uint32_t hrptr, tmrptr;
	char col[32];  int coll;   /* "%16s-%-7d " */
	char prv[64];  int prvl;   /* "prev_comm=%s prev_pid=%d prev_prio=%d" */
	char nxt[64];  int nxtl;   /* "next_comm=%s next_pid=%d next_prio=%d" */
	char wk[48];   int wkl;    /* "comm=%s pid=%d prio=%d" */
	/* --mix real */
	int wkpl;              /* length of "comm=%s pid=%d" in wk */
	int prof, role;
	int sc;                /* syscall it sleeps in (SC_*), -1: none */
	int64_t scret;
	int hrt_armed, tmr_armed, waitchild, sigpend, mfd, fd;
	uint64_t sig_at;       /* when sigpend was sent */
	uint64_t stat_at;      /* last update_curr (sched_stat_runtime) */
	uint64_t stk, heap, lib;
	uint32_t mm_id; uint64_t rss[2];    /* MM_FILEPAGES, MM_ANONPAGES bytes */
	uint64_t ino, wpos;    /* the file it writes */
	int slot, life, exe;   /* children: slot, actions left, program */
	uint32_t async;        /* cookie of an open S|...| slice */
} task_t;

typedef struct { uint32_t ptr; int fn, task, soft, raised; uint32_t gen; uint64_t exp; } hrt_t;
typedef struct { uint32_t ptr; int fn, task, work; uint32_t gen; uint64_t fire; } tmr_t;

typedef struct {
	int id, cur, idle, ksoftirqd, migration, need_resched, hd;
	uint64_t now, next_time, tail, run_start;
	int next_kind;
	int rq[MAXT], nrq;
	int ipi[MAXIPI]; uint64_t ipit[MAXIPI]; int nipi;
	hrt_t hrt[MAXHRT]; int nhrt;
	tmr_t tmr[MAXTMR]; int ntmr;
	uint64_t tick_exp; int tick_stopped;
	uint32_t tickptr;
	unsigned pend, ksoft;          /* raised softirq vectors */
	int irqs[NIRQ], nirqs; unsigned irq_rate;
	uint32_t misc_tptr[TF_N];
	ev_t *q; uint64_t qh, qt;
	char cpus[8];
	/* --mix real */
	unsigned blkpend;              /* devices whose irq fired (BLOCK softirq) */
	uint32_t kfree_head[KC_N], klast[KC_N];   /* slab LIFO: last freed, last allocated */
	uint32_t pfn[64]; int npfn;    /* pages allocated here, freed later */
} cpu_t;

typedef struct { int w[8], nw; int q[POOLQ]; uint64_t qts[POOLQ]; int qh, qt; } pool_t;
typedef struct { int def, cpu, pending; uint32_t ptr, tptr; uint64_t done; } work_t;

static int NCPU = 4;
static int LEGACY;                       /* --fmt 6.6 */
static task_t T[MAXT]; static int NT;
static cpu_t *C;
static pool_t *P; static int NPOOL;      /* 2 per cpu + 1 unbound */
static work_t W[MAXCPU * NWDEF + 64]; static int NW;
static int WINST[NWDEF][MAXCPU];         /* percpu defs: per-cpu instance; unbound: up to 2 */
static int NWINST[NWDEF];
static int USERS[64], NUSERS;
static int T_RCU, T_JBD2, T_IRQT, T_BASH1, T_BASH2, T_SH, T_SF, T_RENDER, T_XWL;
static uint64_t MONO_OFF, JOFF;

/* --mix real state */
typedef struct { uint64_t sector, ts; uint32_t nr; int rwbs, task; uint32_t gen; } breq_t;
static struct { breq_t r[BQCAP]; int h, n; uint64_t next_sector; } BQ[NBDEV];
typedef struct { int pre, post, parent, alive; uint64_t free_at; int freed_pending; } slot_t;
static slot_t SLOT[NSLOT];
static int NEXT_CHILD_PID;
static int WAKE_WAITER;                  /* wake_task may wake a task in wait4 */
static uint64_t DIRTY_PAGES, WRITTEN_PAGES;
static uint32_t PGSALT;                  /* mm_page_* page= hashes of pfns */

static inline uint64_t mono(uint64_t ts) { return ts - MONO_OFF; }
static inline uint64_t m2ts(uint64_t m) { return m + MONO_OFF; }
static inline uint64_t jif(uint64_t m) { return JOFF + m / TICK_NS; }
static inline uint64_t j2m(uint64_t j) { return (j - JOFF) * TICK_NS; }
static inline int is_idle(cpu_t *c) { return c->cur == c->idle; }
static inline int cpu_free(cpu_t *c) { return is_idle(c) && !c->nrq && !c->nipi; }
static inline uint32_t hptr(void) { uint32_t v; do v = (uint32_t)r64(); while (v < 0x1000000); return v; }

static inline void adv(cpu_t *c, uint64_t lo, uint64_t hi) { c->now += ur(lo, hi); }

static ev_t *emit(cpu_t *c, int type, char irqf, char ctx, int depth)
{
	if (c->qt - c->qh >= QCAP) { fprintf(stderr, "gen-ftrace: queue overflow\n"); exit(2); }
	ev_t *e = &c->q[c->qt++ & (QCAP - 1)];
	e->ts = c->now; e->type = (uint16_t)type; e->task = (uint16_t)c->cur;
	e->fl[0] = irqf; e->fl[1] = c->need_resched ? 'N' : '.'; e->fl[2] = ctx;
	e->fl[3] = depth <= 0 ? '.' : "0123456789abcdef"[depth & 15]; e->fl[4] = '.';
	c->tail = c->now;
	return e;
}

/* ------------------------------------------------------------------ */
/* setup                                                               */

static int pid_used(int pid)
{
	for (int i = 0; i < NT; i++) if (T[i].pid == pid && pid) return 1;
	return 0;
}

static int next_free_pid = 4200;

/* the strings a task's events print, made once (and again on exec) */
static void task_strings(task_t *t, const char *comm, const char *disp, int pid)
{
	char cm[16];
	snprintf(cm, sizeof cm, "%s", comm);
	memcpy(t->comm, cm, sizeof cm);
	t->pid = pid;
	int prio = t->prio;
	t->coll = snprintf(t->col, sizeof t->col, "%16s-%-7d ", disp ? disp : t->comm, pid);
	t->prvl = snprintf(t->prv, sizeof t->prv, "prev_comm=%s prev_pid=%d prev_prio=%d",
			   cm, pid, prio);
	t->nxtl = snprintf(t->nxt, sizeof t->nxt, "next_comm=%s next_pid=%d next_prio=%d",
			   cm, pid, prio);
	t->wkl = snprintf(t->wk, sizeof t->wk, "comm=%s pid=%d prio=%d", cm, pid, prio);
	t->wkpl = (int)(strstr(t->wk, " prio=") - t->wk);
}

static int add_task(const char *comm, const char *disp, int pid, int tgid, int prio,
		    int kind, int bound, uint32_t mean_us)
{
	if (NT >= MAXT) { fprintf(stderr, "gen-ftrace: too many tasks\n"); exit(2); }
	if (kind != TK_IDLE && (pid <= 0 || pid_used(pid))) {
		while (pid_used(next_free_pid)) next_free_pid++;
		pid = next_free_pid++;
	}
	task_t *t = &T[NT];
	memset(t, 0, sizeof(*t));
	t->tgid = tgid ? tgid : pid; t->prio = prio; t->kind = kind;
	t->bound = bound; t->pool = -1; t->mset = -1; t->mean_ns = mean_us * 1000;
	t->state = ST_SLEEP; t->cpu = bound >= 0 ? bound : 0; t->since = 0; t->pstate = PS_S;
	t->hrptr = hptr(); t->tmrptr = hptr();
	task_strings(t, comm, disp, pid);
	t->sc = -1; t->slot = -1;
	if (REAL) {
		t->stk = 0x7ff000000000ULL + (r64() % 0xfffffffffULL & ~0xfULL);
		t->heap = pm(500) ? 0x550000000000ULL : 0x560000000000ULL;   /* one draw per statement */
		t->heap += r64() % 0xffffffffffULL & ~0xfULL;
		t->lib = 0x7f0000000000ULL + (r64() % 0xffffffffffULL & ~0xfffULL);
		t->mm_id = (uint32_t)r64();
		t->rss[0] = 4096 * ur(200, 20000); t->rss[1] = 4096 * ur(30, 50000);
		t->mfd = 3 + (int)rn(20); t->fd = 3 + (int)rn(40);
		t->ino = ur(1000, 9000000);
	}
	return NT++;
}

static void tmr_add(cpu_t *c, uint32_t ptr, int fn, uint64_t fire, int task, int work)
{
	for (int i = 0; i < c->ntmr; i++)
		if (c->tmr[i].ptr == ptr) { c->tmr[i] = c->tmr[--c->ntmr]; break; }
	if (c->ntmr >= MAXTMR) return;
	tmr_t *m = &c->tmr[c->ntmr++];
	m->ptr = ptr; m->fn = fn; m->fire = fire; m->task = task; m->work = work;
	m->gen = task >= 0 ? T[task].gen : 0;
}

static void hrt_add(cpu_t *c, uint32_t ptr, int fn, uint64_t exp, int task, int soft)
{
	for (int i = 0; i < c->nhrt; i++)
		if (c->hrt[i].ptr == ptr) { c->hrt[i] = c->hrt[--c->nhrt]; break; }
	if (c->nhrt >= MAXHRT) return;
	hrt_t *h = &c->hrt[c->nhrt++];
	h->ptr = ptr; h->fn = fn; h->exp = exp; h->task = task; h->soft = soft; h->raised = 0;
	h->gen = task >= 0 ? T[task].gen : 0;
}

static void setup(uint64_t seed, int ncpu)
{
	uint64_t x = seed ^ 0x7472617766747263ULL;   /* "trawftrc" */
	for (int i = 0; i < 4; i++) S[i] = splitmix(&x);
	NT = 0; NW = 0; NUSERS = 0; next_free_pid = 4200;
	NCPU = ncpu;
	memset(WINST, 0, sizeof WINST); memset(NWINST, 0, sizeof NWINST);

	/* idle tasks first: T[c] is swapper/c */
	for (int c = 0; c < NCPU; c++) {
		char n[32]; snprintf(n, sizeof n, "swapper/%d", c);
		add_task(n, "<idle>", 0, 0, 120, TK_IDLE, c, 0);
	}
	NPOOL = 2 * NCPU + 1;
	free(P); P = calloc((size_t)NPOOL, sizeof *P);

	T_RCU = add_task("rcu_preempt", NULL, 16, 0, 120, TK_RCU, -1, 6);
	for (int c = 0; c < NCPU; c++) {
		char n[32];
		snprintf(n, sizeof n, "migration/%d", c);
		C[c].migration = add_task(n, NULL, c == 0 ? 18 : 16 + 5 * c, 0, 0, TK_MIGRATION, c, 3);
		snprintf(n, sizeof n, "ksoftirqd/%d", c);
		C[c].ksoftirqd = add_task(n, NULL, c == 0 ? 14 : 17 + 5 * c, 0, 120, TK_KSOFTIRQD, c, 4);
		/* normal pool: two workers, highpri pool: one */
		pool_t *p = &P[c], *ph = &P[NCPU + c];
		snprintf(n, sizeof n, "kworker/%d:1", c);
		p->w[p->nw++] = add_task(n, NULL, c == 0 ? 12 : 40 + 3 * c, 0, 120, TK_KWORKER, c, 6);
		snprintf(n, sizeof n, "kworker/%d:0", c);
		p->w[p->nw++] = add_task(n, NULL, 2241 + 9 * c, 0, 120, TK_KWORKER, c, 6);
		snprintf(n, sizeof n, "kworker/%d:1H", c);
		ph->w[ph->nw++] = add_task(n, NULL, 54 + c, 0, 100, TK_KWORKER, c, 5);
		for (int k = 0; k < p->nw; k++) T[p->w[k]].pool = c;
		T[ph->w[0]].pool = NCPU + c;
	}
	{
		pool_t *pu = &P[2 * NCPU];
		static const int upid[4] = { 11, 98, 1234, 2890 };
		for (int k = 0; k < 4; k++) {
			char n[32]; snprintf(n, sizeof n, "kworker/u%d:%d", 2 * NCPU, k);
			pu->w[pu->nw] = add_task(n, NULL, upid[k], 0, 120, TK_KWORKER, -1, 6);
			T[pu->w[pu->nw++]].pool = 2 * NCPU;
		}
	}
	T_JBD2 = add_task("jbd2/vda1-8", NULL, 230, 0, 120, TK_JBD2, -1, 15);
	T_IRQT = add_task("irq/130-iwlwifi", NULL, 1390, 0, 49, TK_IRQT, NCPU > 1 ? 1 : 0, 5);

	typedef struct {
		const char *comm, *disp; int pid, tgid, prio, kind, mset, net; unsigned mean_us;
		int role, prof;
	} user_t;
	enum { R_NONE, R_BASH1, R_BASH2, R_SH, R_SF, R_RENDER, R_XWL };
	static const user_t U[] = {
		{ "systemd",         NULL,    1,    1,    120, TK_USER,   -1,        0, 90,  0, 0 },
		{ "systemd-journal", NULL,    312,  312,  120, TK_USER,   -1,        0, 60,  0, 0 },
		{ "rs:main Q:Reg",   NULL,    866,  862,  120, TK_USER,   -1,        0, 50,  0, 0 },
		{ "surfaceflinger",  NULL,    540,  540,  97,  TK_ATRACE, MS_SF,     0, 22,  R_SF, 0 },
		{ "Binder:543_1",    NULL,    611,  543,  120, TK_ATRACE, MS_BINDER, 0, 28,  0, 0 },
		{ "Binder:543_2",    NULL,    612,  543,  120, TK_ATRACE, MS_BINDER, 0, 28,  0, 0 },
		{ "memfd:sealed-91", NULL,    1541, 1541, 120, TK_ATRACE, MS_MEMFD,  0, 35,  0, 0 },
		{ "Xwayland",        NULL,    1300, 1300, 120, TK_USER,   -1,        0, 45,  R_XWL, 0 },
		{ "gmain",           NULL,    1402, 1400, 120, TK_USER,   -1,        1, 70,  0, 0 },
		{ "sshd",            NULL,    1876, 1876, 120, TK_USER,   -1,        1, 60,  0, 0 },
		{ "bash",            NULL,    2223, 2223, 120, TK_USER,   -1,        0, 40,  R_BASH1, 0 },
		{ "bash",            NULL,    2226, 2226, 120, TK_USER,   -1,        0, 40,  R_BASH2, 0 },
		{ "Web Content",     NULL,    2801, 2801, 120, TK_ATRACE, MS_WEB,    1, 25,  0, 0 },
		{ "Chrome_IOThread", NULL,    3301, 3280, 112, TK_ATRACE, MS_CHROME, 1, 20,  0, 0 },
		{ "RenderThread",    NULL,    3312, 3280, 110, TK_ATRACE, MS_RENDER, 0, 24,  R_RENDER, 0 },
		{ "python3",         NULL,    3999, 3999, 120, TK_USER,   -1,        0, 120, 0, 0 },
		{ "sh",              "<...>", 4102, 4102, 120, TK_USER,   -1,        0, 40,  R_SH, 0 },
	};
	/* --mix real: a desktop that has been up for a while (pids of 1 to 7
	 * digits), browsers, a JVM, containers, shells that run programs */
	static const user_t UR[] = {
		{ "systemd",         NULL,    1,       1,       120, TK_USER,   -1,        0, 150, 0, PR_DAEMON },
		{ "systemd-journal", NULL,    412,     412,     120, TK_USER,   -1,        0, 60,  0, PR_JOURNAL },
		{ "systemd-oomd",    NULL,    688,     688,     120, TK_USER,   -1,        0, 200, 0, PR_DAEMON },
		{ "rs:main Q:Reg",   NULL,    1210,    1187,    120, TK_USER,   -1,        0, 50,  0, PR_JOURNAL },
		{ "NetworkManager",  NULL,    1093,    1093,    120, TK_USER,   -1,        1, 120, 0, PR_DAEMON },
		{ "containerd-shim", NULL,    98231,   98231,   120, TK_USER,   -1,        1, 80,  0, PR_DAEMON },
		{ "surfaceflinger",  NULL,    21540,   21540,   97,  TK_ATRACE, MS_SF,     0, 22,  R_SF, PR_ATRACE },
		{ "Binder:543_1",    NULL,    21611,   21543,   120, TK_ATRACE, MS_BINDER, 0, 28,  0, PR_ATRACE },
		{ "Binder:543_2",    NULL,    21612,   21543,   120, TK_ATRACE, MS_BINDER, 0, 28,  0, PR_ATRACE },
		{ "memfd:sealed-91", NULL,    3251,    3251,    120, TK_ATRACE, MS_MEMFD,  0, 35,  0, PR_ATRACE },
		{ "Xwayland",        NULL,    2300,    2300,    120, TK_USER,   -1,        0, 45,  R_XWL, PR_BROWSER },
		{ "gnome-shell",     NULL,    2101,    2101,    120, TK_USER,   -1,        0, 30,  0, PR_BROWSER },
		{ "gmain",           NULL,    2117,    2101,    120, TK_USER,   -1,        1, 70,  0, PR_DAEMON },
		{ "pipewire-pulse",  NULL,    2290,    2290,    120, TK_USER,   -1,        0, 40,  0, PR_DAEMON },
		{ "sshd",            NULL,    183455,  183455,  120, TK_USER,   -1,        1, 60,  0, PR_DAEMON },
		{ "bash",            NULL,    1046211, 1046211, 120, TK_USER,   -1,        0, 40,  R_BASH1, PR_SHELL },
		{ "bash",            NULL,    1046305, 1046305, 120, TK_USER,   -1,        0, 40,  R_BASH2, PR_SHELL },
		{ "Web Content",     NULL,    34871,   34871,   120, TK_ATRACE, MS_WEB,    1, 25,  0, PR_ATRACE },
		{ "Isolated Web Co", NULL,    35012,   35012,   120, TK_USER,   -1,        1, 25,  0, PR_BROWSER },
		{ "IPC I/O Child",   NULL,    34880,   34871,   120, TK_USER,   -1,        1, 35,  0, PR_BROWSER },
		{ "Chrome_IOThread", NULL,    36101,   36080,   112, TK_ATRACE, MS_CHROME, 1, 20,  0, PR_ATRACE },
		{ "ThreadPoolForeg", NULL,    36117,   36080,   120, TK_USER,   -1,        0, 30,  0, PR_BROWSER },
		{ "RenderThread",    NULL,    36130,   36080,   110, TK_ATRACE, MS_RENDER, 0, 24,  R_RENDER, PR_ATRACE },
		{ "python3",         NULL,    1284733, 1284733, 120, TK_USER,   -1,        0, 120, 0, PR_COMPUTE },
		{ "C2 CompilerThre", NULL,    412877,  412850,  120, TK_USER,   -1,        0, 90,  0, PR_COMPUTE },
		{ "GC Thread#0",     NULL,    412853,  412850,  120, TK_USER,   -1,        0, 60,  0, PR_COMPUTE },
		{ "postgres",        NULL,    77120,   77120,   120, TK_USER,   -1,        1, 50,  0, PR_JOURNAL },
		{ "sh",              "<...>", 1048601, 1048601, 120, TK_USER,   -1,        0, 40,  R_SH, PR_SHELL },
	};
	const user_t *UT = REAL ? UR : U;
	size_t NU = REAL ? sizeof UR / sizeof UR[0] : sizeof U / sizeof U[0];
	for (size_t i = 0; i < NU; i++) {
		int t = add_task(UT[i].comm, UT[i].disp, UT[i].pid, UT[i].tgid, UT[i].prio, UT[i].kind,
				 -1, UT[i].mean_us);
		T[t].mset = UT[i].mset; T[t].net = UT[i].net;
		T[t].cpu = (int)(i % (size_t)NCPU);
		T[t].prof = UT[i].prof; T[t].role = UT[i].role;
		USERS[NUSERS++] = t;
		switch (UT[i].role) {
		case R_BASH1: T_BASH1 = t; break;
		case R_BASH2: T_BASH2 = t; break;
		case R_SH: T_SH = t; break;
		case R_SF: T_SF = t; break;
		case R_RENDER: T_RENDER = t; break;
		case R_XWL: T_XWL = t; break;
		}
	}
	if (REAL) {
		/* children of the shells: a task before exec (the shell's comm) and one
		 * after, so that queued events keep the comm they had */
		for (int k = 0; k < NSLOT; k++) {
			slot_t *sl = &SLOT[k];
			memset(sl, 0, sizeof *sl);
			sl->pre = add_task("bash", NULL, 0, 0, 120, TK_CHILD, -1, 30);
			sl->post = add_task("ls", NULL, 0, 0, 120, TK_CHILD, -1, 30);
			T[sl->pre].state = T[sl->post].state = ST_DEAD;
			T[sl->pre].slot = T[sl->post].slot = k;
			T[sl->pre].prof = T[sl->post].prof = PR_CHILD;
		}
		NEXT_CHILD_PID = 1048700 + (int)rn(200);
		for (int d = 0; d < NBDEV; d++) {
			BQ[d].h = BQ[d].n = 0;
			BQ[d].next_sector = ur(1000000, 400000000) & ~7ULL;
		}
		DIRTY_PAGES = ur(500, 3000); WRITTEN_PAGES = ur(50000, 90000);
		WAKE_WAITER = 0;
	}

	/* work instances */
	for (int d = 0; d < NWDEF; d++) {
		int n = WDEF[d].kind == WK_UNBOUND ? 2 : NCPU;
		for (int k = 0; k < n; k++) {
			work_t *w = &W[NW];
			memset(w, 0, sizeof *w);
			w->def = d; w->cpu = WDEF[d].kind == WK_UNBOUND ? -1 : k; w->pending = 0;
			w->ptr = hptr(); w->tptr = hptr();
			WINST[d][k] = NW++;
		}
		NWINST[d] = n;
	}

	/* clocks: trace clock ("local") starts a bit after 2410 s of uptime */
	uint64_t t0 = 2410000000000ULL + 900000000ULL + ur(0, 99999999);
	MONO_OFF = 27000000ULL + ur(0, 300000);
	JOFF = INITIAL_JIFFIES - ur(40, 80);

	for (int ci = 0; ci < NCPU; ci++) {
		cpu_t *c = &C[ci];
		ev_t *q = c->q;
		int mig = c->migration, ks = c->ksoftirqd;
		memset(c, 0, sizeof *c);
		c->q = q; c->migration = mig; c->ksoftirqd = ks;
		c->id = ci; c->idle = ci; c->cur = ci;
		T[ci].state = ST_RUN; T[ci].cpu = ci;
		c->now = t0 + ur(0, 3000000);
		c->tail = c->now;
		snprintf(c->cpus, sizeof c->cpus, "[%03d] ", ci);
		c->tickptr = hptr();
		for (int f = 0; f < TF_N; f++) c->misc_tptr[f] = hptr();
		uint64_t m = mono(c->now);
		c->tick_exp = (m / TICK_NS + 1) * TICK_NS;
		uint32_t wdptr = hptr();     /* separate statements: argument order is unspecified */
		hrt_add(c, wdptr, HF_WATCHDOG, m + ur(1, 4000) * 1000000ULL, -1, 0);
		for (int i = 0; i < NIRQ; i++)
			if (i % NCPU == ci) { c->irqs[c->nirqs++] = i; c->irq_rate += IRQS[i].rate; }
		/* periodic delayed works armed before the trace started */
		uint64_t j = jif(m);
		static const int per[] = { WD_VMSTAT, WD_PSI, WD_KFREE, WD_NEIGH, WD_GC };
		for (size_t k = 0; k < sizeof per / sizeof per[0]; k++) {
			work_t *w = &W[WINST[per[k]][ci]];
			tmr_add(c, w->tptr, TF_DWT, j + 1 + ur(0, WDEF[per[k]].rearm), -1, WINST[per[k]][ci]);
		}
		if (ci == 0) {
			work_t *w = &W[WINST[WD_DISK][0]];
			tmr_add(c, w->tptr, TF_DWT, j + 1 + ur(0, 500), -1, WINST[WD_DISK][0]);
		}
	}
	/* start with some user tasks running, the rest asleep */
	for (int i = 0; i < NUSERS; i++) {
		task_t *t = &T[USERS[i]];
		t->since = C[0].now - ur(1000000, 50000000);
		t->pstate = PS_S;
	}
	for (int ci = 0; ci < NCPU && ci < NUSERS; ci++) {
		if (ci % 3 == 2) continue;           /* leave some CPUs idle */
		int ti = USERS[(ci * 5) % NUSERS];
		if (T[ti].state != ST_SLEEP) continue;
		T[ti].state = ST_RUN; T[ti].cpu = ci; T[ti].stat_at = C[ci].now;
		T[C[ci].idle].state = ST_SLEEP;
		C[ci].cur = ti; C[ci].run_start = C[ci].now;
	}
	for (int ci = 0; ci < NCPU; ci++) T[C[ci].idle].state = ST_RUN;
	if (REAL) PGSALT = (uint32_t)r64();
}

/* ------------------------------------------------------------------ */
/* scheduler                                                           */

static void rq_push(cpu_t *c, int t) { if (c->nrq < MAXT) c->rq[c->nrq++] = t; }

static void plan(cpu_t *c);
static void sched_switch(cpu_t *c, int ps);
static void softirqs(cpu_t *c, unsigned pend, int depth);
static void queue_work_def(cpu_t *c, int def, char irqf, char ctx, int depth);
static void bprint(cpu_t *c, int which, char irqf, char ctx, int depth);
/* --mix real */
static void resume_task(cpu_t *c, task_t *t);
static char *mark_text(char *p, const ev_t *e);
static void page_free(cpu_t *c, int kind, char ctx, int depth);
static void rcu_cs(cpu_t *c);
static void ipi(cpu_t *c, int tgt, int kind, char ctx, int depth);
static void stat_rt(cpu_t *c, int ti, int depth);
static uint32_t kmem(cpu_t *c, int site, char irqf, char ctx, int depth);
static void page_alloc(cpu_t *c, int gfp, char irqf, char ctx, int depth);
static void blk_complete(cpu_t *c, int dev, int n);
static void rcu_batch(cpu_t *c);
static void wb_work(cpu_t *c, int kw);
static int blk_submit(cpu_t *c, int ti, int dev, int rwbs, uint32_t nsec, int waiter);

static int select_cpu(cpu_t *c, task_t *t)
{
	if (t->bound >= 0) return t->bound;
	int prev = t->cpu;
	if (cpu_free(&C[prev])) return prev;
	if (cpu_free(c)) return c->id;
	int s = (int)rn((uint32_t)NCPU);
	for (int k = 0; k < NCPU; k++) {
		int i = (s + k) % NCPU;
		if (cpu_free(&C[i])) return i;
	}
	return pm(700) ? prev : c->id;
}

/* wake a sleeping task from CPU c; ctx is '.', 'h' or 's' */
static int wake_task(cpu_t *c, int ti, char ctx, int depth)
{
	task_t *t = &T[ti];
	if (t->state != ST_SLEEP || t->since > c->now) return 0;
	if (REAL && t->waitchild == 1 && !WAKE_WAITER) return 0;
	int tgt = select_cpu(c, t);
	ev_t *e = emit(c, EV_WAKING, 'd', ctx, depth);
	e->a = (uint32_t)ti; e->b = (uint32_t)tgt;
	t->gen++;
	adv(c, 300, 2500);
	cpu_t *b = &C[tgt];
	if (REAL) {
		if (tgt != t->cpu) {
			e = emit(c, EV_MIGRATE, 'd', ctx, depth + 1);
			e->a = (uint32_t)ti; e->b = (uint32_t)t->cpu; e->c = (uint32_t)tgt;
			adv(c, 200, 1000);
		}
		if (b == c && ctx == '.' && !is_idle(c) && pm(300)) stat_rt(c, c->cur, depth + 1);
	}
	t->cpu = tgt;
	if (b == c) {
		t->state = ST_RUNNABLE; t->since = c->now; rq_push(c, ti);
		if (is_idle(c) || t->prio < T[c->cur].prio || (t->prio == T[c->cur].prio && pm(120)))
			c->need_resched = 1;
		e = emit(c, EV_WAKEUP, 'd', ctx, depth + 1);
		e->a = (uint32_t)ti; e->b = (uint32_t)tgt;
	} else if (is_idle(b) || t->prio < T[b->cur].prio) {
		/* remote wakeup through the wake list: sched_wakeup is traced on the
		 * target CPU from the IPI */
		t->state = ST_RUNNABLE; t->since = NOTYET;
		if (REAL && pm(350)) ipi(c, tgt, 0, ctx, depth + 1);   /* unless it polls */
		uint64_t when = c->now + ur(1500, 9000);
		if (when <= b->tail) when = b->tail + ur(200, 2000);
		if (b->nipi < MAXIPI) {
			b->ipi[b->nipi] = ti; b->ipit[b->nipi++] = when;
			if (when < b->next_time) { b->next_time = when; b->next_kind = K_IPI; }
		} else {
			t->since = c->now; rq_push(b, ti);
		}
	} else {
		e = emit(c, EV_WAKEUP, 'd', ctx, depth + 1);
		e->a = (uint32_t)ti; e->b = (uint32_t)tgt;
		t->state = ST_RUNNABLE; t->since = c->now; rq_push(b, ti);
	}
	adv(c, 200, 1500);
	return 1;
}

static void tick_restart(cpu_t *c)
{
	uint64_t m = mono(c->now);
	c->tick_exp = (m / TICK_NS + 1) * TICK_NS;
	c->tick_stopped = 0;
	if (REAL) {
		ev_t *b = emit(c, EV_TBASE_IDLE, 'd', '.', 1); b->a = 0; b->b = (uint32_t)c->id;
		adv(c, 200, 1000);
	}
	ev_t *e = emit(c, EV_HRT_START, 'd', '.', REAL ? 2 : 1);
	e->a = c->tickptr; e->b = HF_TICK; e->c = HM_ABS_PINNED_HARD; e->d = 1;
	e->x = e->y = c->tick_exp;
	adv(c, 300, 1500);
}

static uint64_t wheel_next_fire(cpu_t *c)
{
	uint64_t best = NOTYET;
	for (int i = 0; i < c->ntmr; i++) if (c->tmr[i].fire < best) best = c->tmr[i].fire;
	return best;
}

/* idle entry: maybe stop the tick (nohz idle) */
static void idle_enter(cpu_t *c)
{
	if (c->tick_stopped || !pm(120)) return;
	uint64_t m = mono(c->now);
	uint64_t nb = (m / TICK_NS + 1) * TICK_NS;
	uint64_t nx = nb + ur(1, 120) * TICK_NS;
	uint64_t wf = wheel_next_fire(c);
	if (wf != NOTYET) { uint64_t wm = j2m(wf); if (wm < nx) nx = wm; }
	if (nx <= nb) return;
	nx = (nx / TICK_NS) * TICK_NS;
	if (nx <= nb) return;
	c->tick_exp = nx; c->tick_stopped = 1;
	if (REAL) {
		ev_t *b = emit(c, EV_TBASE_IDLE, 'd', '.', 3); b->a = 1; b->b = (uint32_t)c->id;
		adv(c, 100, 800);
		b = emit(c, EV_TICK_STOP, 'd', '.', 1);
		adv(c, 100, 800);
	}
	ev_t *e = emit(c, EV_HRT_START, 'd', '.', REAL ? 2 : 1);
	e->a = c->tickptr; e->b = HF_TICK; e->c = HM_ABS_PINNED_HARD; e->d = 1; e->x = e->y = nx;
	adv(c, 300, 1500);
}

static void sched_switch(cpu_t *c, int ps)
{
	int best = -1;
	for (int i = 0; i < c->nrq; i++) {
		task_t *t = &T[c->rq[i]];
		if (t->since > c->now) continue;
		if (best < 0 || t->prio < T[c->rq[best]].prio ||
		    (t->prio == T[c->rq[best]].prio && t->since < T[c->rq[best]].since))
			best = i;
	}
	int prev = c->cur;
	if (best < 0 && (ps == PS_R || ps == PS_RP)) { c->need_resched = 0; return; }
	int nx = best >= 0 ? c->rq[best] : c->idle;
	if (nx == prev) { c->need_resched = 0; return; }
	if (prev == c->idle && c->tick_stopped) tick_restart(c);
	if (REAL) {
		rcu_cs(c);
		if (prev != c->idle) stat_rt(c, prev, 2);
	}
	if (best >= 0) c->rq[best] = c->rq[--c->nrq];
	c->need_resched = 0;
	if (prev == c->idle) ps = PS_R;
	ev_t *e = emit(c, EV_SWITCH, 'd', '.', 2);
	e->a = (uint32_t)prev; e->b = (uint32_t)ps; e->c = (uint32_t)nx;
	task_t *p = &T[prev], *n = &T[nx];
	if (prev != c->idle) {
		if (ps == PS_R || ps == PS_RP) {
			p->state = ST_RUNNABLE; p->since = c->now; rq_push(c, prev);
		} else {
			p->state = ps >= PS_Z ? ST_DEAD : ST_SLEEP; p->since = c->now; p->pstate = ps;
		}
	}
	n->state = ST_RUN; n->cpu = c->id; n->since = c->now;
	c->cur = nx; c->run_start = c->now;
	adv(c, 800, 4000);
	if (REAL) { n->stat_at = c->now; if (nx != c->idle) resume_task(c, n); }
	if (nx == c->idle) idle_enter(c);
}

/* ------------------------------------------------------------------ */
/* timers                                                              */

static unsigned wheel_idx(uint64_t expires, uint64_t clk, uint64_t *bucket)
{
	uint64_t delta = expires - clk;
	unsigned lvl;
	if ((int64_t)delta < 0) { *bucket = clk; return (unsigned)(clk & 63); }
	for (lvl = 0; lvl < 8; lvl++)
		if (delta < (63ULL << (lvl * 3))) break;   /* LVL_START(lvl+1) */
	if (lvl == 8 && delta >= (63ULL << 24)) { expires = clk + (63ULL << 24) ; }
	uint64_t e = (expires >> (lvl * 3)) + 1;
	*bucket = e << (lvl * 3);
	return lvl * 64 + (unsigned)(e & 63);
}

static void arm_timer(cpu_t *c, int fn, uint32_t ptr, uint64_t timeout, int task, int work,
		      int flags, char irqf, char ctx, int depth)
{
	uint64_t j = jif(mono(c->now)), exp = j + timeout, bucket;
	unsigned idx = wheel_idx(exp, j, &bucket);
	ev_t *e = emit(c, EV_TIMER_START, irqf, ctx, depth);
	e->a = ptr; e->b = (uint32_t)fn; e->c = (uint32_t)timeout;
	e->d = idx | ((uint32_t)flags << 16); e->x = exp; e->y = bucket;
	tmr_add(c, ptr, fn, bucket, task, work);
	adv(c, 300, 1800);
}

static int timer_stale(tmr_t *m)
{
	if (m->fn == TF_PROCESS_TIMEOUT)
		return T[m->task].gen != m->gen || T[m->task].state != ST_SLEEP;
	return 0;
}

static int hrt_stale(hrt_t *h)
{
	return h->fn == HF_WAKEUP && (T[h->task].gen != h->gen || T[h->task].state != ST_SLEEP);
}

static int wheel_due(cpu_t *c, uint64_t j)
{
	for (int i = 0; i < c->ntmr; ) {
		if (timer_stale(&c->tmr[i])) { c->tmr[i] = c->tmr[--c->ntmr]; continue; }
		if (c->tmr[i].fire <= j) return 1;
		i++;
	}
	return 0;
}

static void hrt_start_ev(cpu_t *c, uint32_t ptr, int fn, uint64_t exp, uint64_t soft, int mode,
			 char irqf, char ctx, int depth)
{
	ev_t *e = emit(c, EV_HRT_START, irqf, ctx, depth);
	e->a = ptr; e->b = (uint32_t)fn; e->c = (uint32_t)mode; e->d = 0; e->x = exp; e->y = soft;
}

static void irq_exit(cpu_t *c);

/* hrtimer interrupt: run every expired hard hrtimer in expiry order */
static void hrtimer_irq(cpu_t *c)
{
	c->hd = is_idle(c) ? 1 : 0;
	int any = 0, raise_soft = 0;
	for (int guard = 0; guard < 16; guard++) {
		uint64_t m = mono(c->now), best = NOTYET;
		int bi = -2;
		if (c->tick_exp <= m) { best = c->tick_exp; bi = -1; }
		for (int i = 0; i < c->nhrt; ) {
			hrt_t *h = &c->hrt[i];
			if (hrt_stale(h)) { c->hrt[i] = c->hrt[--c->nhrt]; continue; }
			if (h->exp <= m && !h->soft && h->exp < best) { best = h->exp; bi = i; }
			if (h->exp <= m && h->soft && !h->raised) { h->raised = 1; raise_soft = 1; }
			i++;
		}
		if (bi == -2) break;
		any = 1;
		if (bi == -1) {
			ev_t *e = emit(c, EV_HRT_ENTRY, 'd', 'h', c->hd);
			e->a = c->tickptr; e->b = HF_TICK; e->x = m;
			adv(c, 600, 3500);
			uint64_t j = jif(m);
			if (wheel_due(c, j)) {
				e = emit(c, EV_SI_RAISE, 'd', 'h', c->hd + 1); e->a = V_TIMER;
				c->pend |= 1u << V_TIMER; adv(c, 100, 800);
			}
			if (REAL) { e = emit(c, EV_RCU, 'd', 'h', c->hd); e->a = 2; adv(c, 100, 600); }
			if (pm(is_idle(c) ? 200 : 300)) {
				e = emit(c, EV_SI_RAISE, 'd', 'h', c->hd + 1); e->a = V_RCU;
				c->pend |= 1u << V_RCU; adv(c, 100, 800);
			}
			if (REAL) {
				e = emit(c, EV_RCU, 'd', 'h', c->hd); e->a = 3; adv(c, 100, 600);
				if (!is_idle(c)) stat_rt(c, c->cur, c->hd + 1);
			}
			if (!is_idle(c) && pm(80)) {
				e = emit(c, EV_SI_RAISE, 'd', 'h', c->hd + 1); e->a = V_SCHED;
				c->pend |= 1u << V_SCHED; adv(c, 100, 800);
			}
			if (!is_idle(c) && c->now - c->run_start > 3 * TICK_NS / 4) {
				for (int i = 0; i < c->nrq; i++)
					if (T[c->rq[i]].since <= c->now) { c->need_resched = 1; break; }
			}
			adv(c, 300, 2000);
			e = emit(c, EV_HRT_EXIT, 'd', 'h', c->hd); e->a = c->tickptr;
			uint64_t m2 = mono(c->now);
			c->tick_exp = (m2 / TICK_NS + 1) * TICK_NS;
			c->tick_stopped = 0;
			if (!LEGACY) {
				adv(c, 100, 900);
				e = emit(c, EV_HRT_START, 'd', 'h', c->hd + 1);
				e->a = c->tickptr; e->b = HF_TICK; e->c = HM_ABS; e->d = 0;
				e->x = e->y = c->tick_exp;
			}
		} else {
			hrt_t h = c->hrt[bi];
			ev_t *e = emit(c, EV_HRT_ENTRY, 'd', 'h', c->hd);
			e->a = h.ptr; e->b = (uint32_t)h.fn; e->x = m;
			adv(c, 400, 2000);
			if (h.fn == HF_WATCHDOG) {
				c->hrt[bi].exp += 4000000000ULL;
				adv(c, 1000, 6000);
			} else {
				c->hrt[bi] = c->hrt[--c->nhrt];
				if (h.task >= 0) {
					if (REAL) T[h.task].hrt_armed = 0;
					wake_task(c, h.task, 'h', c->hd + 2);
				}
			}
			e = emit(c, EV_HRT_EXIT, 'd', 'h', c->hd); e->a = h.ptr;
		}
		adv(c, 300, 1500);
	}
	if (raise_soft) {
		ev_t *e = emit(c, EV_SI_RAISE, 'd', 'h', c->hd + 1); e->a = V_HRTIMER;
		c->pend |= 1u << V_HRTIMER; adv(c, 100, 800);
	}
	if (any || raise_soft) irq_exit(c);
}

/* ------------------------------------------------------------------ */
/* interrupts and softirqs                                             */

static int pick_sleeper(cpu_t *c, int want_d, int net_only)
{
	for (int tries = 0; tries < 6; tries++) {
		int ti = USERS[rn((uint32_t)NUSERS)];
		if (want_d < 0 && tries == 0 && T[T_JBD2].state == ST_SLEEP && T[T_JBD2].pstate == PS_D)
			ti = T_JBD2;
		task_t *t = &T[ti];
		if (t->state != ST_SLEEP || t->since > c->now) continue;
		if (want_d && t->pstate != PS_D) continue;
		if (!want_d && t->pstate == PS_D) continue;
		if (net_only && !t->net && tries < 4) continue;
		return ti;
	}
	return -1;
}

static void softirq_body(cpu_t *c, int vec)
{
	switch (vec) {
	case V_TIMER: {
		uint64_t j = jif(mono(c->now));
		adv(c, 500, 2000);
		for (int i = 0; i < c->ntmr; ) {
			tmr_t m = c->tmr[i];
			if (timer_stale(&m)) { c->tmr[i] = c->tmr[--c->ntmr]; continue; }
			if (m.fire > j) { i++; continue; }
			c->tmr[i] = c->tmr[--c->ntmr];
			if (REAL) {
				ev_t *e = emit(c, EV_TIMER_CANCEL, 'd', 's', 2); e->a = m.ptr;
				adv(c, 0, 600);
				e = emit(c, EV_TIMER_EXP_ENTRY, '.', 's', 1);
				e->a = m.ptr; e->b = (uint32_t)m.fn; e->x = j; e->y = pm(700) ? j : j - 1;
			}
			adv(c, 300, 2500);
			if (m.fn == TF_PROCESS_TIMEOUT || m.fn == TF_COMMIT) {
				if (m.task >= 0) {
					if (REAL) T[m.task].tmr_armed = 0;
					wake_task(c, m.task, 's', 4);
				}
			} else if (m.fn == TF_DWT) {
				work_t *w = &W[m.work];
				queue_work_def(c, -1 - m.work, 'd', 's', 2);
				(void)w;
			} else if (pm(550)) {
				uint64_t to = m.fn == TF_TCP_DELACK ? ur(1, 10) : m.fn == TF_NEIGH ? ur(200, 1500) :
					      m.fn == TF_TCP_WRITE ? ur(50, 300) : ur(10, 2000);
				arm_timer(c, m.fn, m.ptr, to, -1, -1, TF_DEFFL[m.fn], 'd', 's', 2);
			}
			if (REAL) {
				ev_t *e = emit(c, EV_TIMER_EXP_EXIT, '.', 's', 1); e->a = m.ptr;
				adv(c, 100, 800);
			}
		}
		break;
	}
	case V_HRTIMER: {
		uint64_t m = mono(c->now);
		for (int i = 0; i < c->nhrt; ) {
			hrt_t h = c->hrt[i];
			if (!h.soft || h.exp > m) { i++; continue; }
			c->hrt[i] = c->hrt[--c->nhrt];
			ev_t *e = emit(c, EV_HRT_ENTRY, '.', 's', 1); e->a = h.ptr; e->b = (uint32_t)h.fn; e->x = m;
			adv(c, 1000, 6000);
			e = emit(c, EV_HRT_EXIT, '.', 's', 1); e->a = h.ptr;
			adv(c, 200, 1000);
		}
		break;
	}
	case V_NET_RX: {
		adv(c, 3000, 25000);
		if (REAL) {
			int n = 1 + (int)rn(3);
			for (int k = 0; k < n; k++) {
				if (pm(250)) page_alloc(c, PG_NETRX, '.', 's', 1);
				kmem(c, KS_NAPI_SKB, '.', 's', 1);
			}
			if (pm(40)) {
				/* the next packet's interrupt arrives in the softirq ('H') */
				ev_t *e = emit(c, EV_IRQ_ENTRY, 'd', 'H', 1); e->a = 1;
				adv(c, 800, 4000);
				e = emit(c, EV_SI_RAISE, 'd', 'H', 3); e->a = V_NET_RX;
				c->pend |= 1u << V_NET_RX;
				adv(c, 200, 1000);
				e = emit(c, EV_IRQ_EXIT, 'd', 'H', 1); e->a = 1; e->b = 1;
				adv(c, 300, 1500);
			}
		}
		if (pm(4)) adv(c, 900000, 1800000);           /* long NET_RX softirq */
		if (pm(45)) { bprint(c, BP_POLL, '.', 's', 1); adv(c, 1000, 5000); }
		if (pm(550)) { int t = pick_sleeper(c, 0, 1); if (t >= 0) wake_task(c, t, 's', 4); }
		if (pm(180)) arm_timer(c, TF_TCP_DELACK, c->misc_tptr[TF_TCP_DELACK], ur(1, 10), -1, -1,
				       TFL_NONE, 'd', 's', 2);
		if (pm(60)) arm_timer(c, TF_TCP_KEEPALIVE, c->misc_tptr[TF_TCP_KEEPALIVE], 18000, -1, -1,
				      TFL_NONE, 'd', 's', 2);
		adv(c, 1000, 8000);
		break;
	}
	case V_NET_TX:
		adv(c, 1500, 9000);
		if (REAL) {
			int n = 1 + (int)rn(3);
			for (int k = 0; k < n; k++) {
				kmem(c, KS_SKB_DATA_FREE, '.', 's', 1);
				kmem(c, pm(500) ? KS_NAPI_SKB_FREE : KS_SKB_FREE, '.', 's', 1);
			}
		}
		if (pm(25)) { bprint(c, BP_XMIT, '.', 's', 1); adv(c, 500, 3000); }
		if (pm(120)) {
			uint64_t m = mono(c->now), ex = m + ur(20000, 600000);
			uint32_t ptr = c->misc_tptr[TF_TCP_WRITE] ^ 0x5a5a5a5au;
			hrt_start_ev(c, ptr, HF_PACE, ex, ex, HM_ABS_PINNED_SOFT, 'd', 's', 2);
			hrt_add(c, ptr, HF_PACE, ex, -1, 1);
			adv(c, 300, 1500);
		}
		break;
	case V_BLOCK: {
		adv(c, 2000, 12000);
		if (REAL) {
			for (int d = 0; d < NBDEV; d++)
				if (c->blkpend & (1u << d)) blk_complete(c, d, 1 + (int)rn(3));
			c->blkpend = 0;
		} else if (pm(850)) { int t = pick_sleeper(c, 1, 0); if (t >= 0) wake_task(c, t, 's', 4); }
		if (pm(250)) queue_work_def(c, pm(800) ? WD_BLKRUN : WD_BLKREQ, 'd', 's', 2);
		if (pm(120)) queue_work_def(c, WD_EXT4, 'd', 's', 3);
		adv(c, 500, 4000);
		break;
	}
	case V_RCU: {
		ev_t *e;
		if (REAL) { e = emit(c, EV_RCU, '.', 's', 1); e->a = 4; adv(c, 100, 800); }
		adv(c, 1500, 15000);
		if (REAL) rcu_batch(c);
		if (pm(3)) adv(c, 300000, 1200000);
		if (pm(250)) wake_task(c, T_RCU, 's', 4);
		adv(c, 300, 2000);
		if (REAL) { e = emit(c, EV_RCU, '.', 's', 1); e->a = 5; adv(c, 100, 800); }
		break;
	}
	case V_SCHED:
		adv(c, 2000, 14000);
		if (pm(150)) wake_task(c, c->migration, 's', 4);
		break;
	default:
		adv(c, 800, 5000);
		break;
	}
}

static void softirqs(cpu_t *c, unsigned pend, int depth)
{
	for (int round = 0; round < 3 && pend; round++) {
		for (int v = 0; v < 10; v++) {
			if (!(pend & (1u << v))) continue;
			pend &= ~(1u << v);
			ev_t *e = emit(c, EV_SI_ENTRY, '.', 's', depth); e->a = (uint32_t)v;
			softirq_body(c, v);
			e = emit(c, EV_SI_EXIT, '.', 's', depth); e->a = (uint32_t)v;
			adv(c, 200, 1500);
		}
		pend |= c->pend; c->pend = 0;
	}
	c->pend |= pend;
}

static void irq_exit(cpu_t *c)
{
	if (c->pend) {
		unsigned pend = c->pend; c->pend = 0;
		task_t *ks = &T[c->ksoftirqd];
		if (pm(30) && ks->state == ST_SLEEP && ks->since <= c->now) {
			c->ksoft |= pend;
			wake_task(c, c->ksoftirqd, '.', c->hd + 2);
		} else {
			adv(c, 200, 1200);
			softirqs(c, pend, 1);
		}
	}
	if (c->need_resched) sched_switch(c, is_idle(c) ? PS_R : PS_RP);
	else if (is_idle(c) && !c->nrq) idle_enter(c);
}

static void device_irq(cpu_t *c)
{
	if (!c->nirqs) return;
	unsigned r = rn(c->irq_rate);
	int ii = c->irqs[0];
	for (int k = 0; k < c->nirqs; k++) {
		if (r < IRQS[c->irqs[k]].rate) { ii = c->irqs[k]; break; }
		r -= IRQS[c->irqs[k]].rate;
	}
	c->hd = is_idle(c) ? 1 : 0;
	ev_t *e = emit(c, EV_IRQ_ENTRY, 'd', 'h', c->hd); e->a = (uint32_t)ii;
	adv(c, 800, 6000);
	int handled = 1;
	switch (IRQS[ii].type) {
	case IT_BLK:
		if (pm(880)) {
			e = emit(c, EV_SI_RAISE, 'd', 'h', c->hd + 2); e->a = V_BLOCK; c->pend |= 1u << V_BLOCK;
			if (REAL)
				for (int d = 0; d < NBDEV; d++) if (BDEV[d].irqi == ii) c->blkpend |= 1u << d;
		}
		break;
	case IT_NET:
		if (pm(920)) { e = emit(c, EV_SI_RAISE, 'd', 'h', c->hd + 2); e->a = V_NET_RX; c->pend |= 1u << V_NET_RX; }
		break;
	case IT_NETTX:
		if (pm(700)) { e = emit(c, EV_SI_RAISE, 'd', 'h', c->hd + 2); e->a = V_NET_TX; c->pend |= 1u << V_NET_TX; }
		break;
	case IT_WIFI:
		if (pm(900)) wake_task(c, T_IRQT, 'h', c->hd + 2);
		break;
	case IT_GPU:
		if (pm(150)) { bprint(c, BP_VBLANK, 'd', 'h', c->hd + 1); adv(c, 300, 1500); }
		if (pm(500)) wake_task(c, T_SF, 'h', c->hd + 2);
		if (pm(300)) wake_task(c, T_RENDER, 'h', c->hd + 2);
		if (pm(200)) { e = emit(c, EV_SI_RAISE, 'd', 'h', c->hd + 2); e->a = V_TASKLET; c->pend |= 1u << V_TASKLET; }
		break;
	case IT_INPUT:
		if (pm(800)) wake_task(c, T_XWL, 'h', c->hd + 2);
		handled = pm(900);
		break;
	case IT_USB:
		if (pm(120)) { bprint(c, BP_IRQ, 'd', 'h', c->hd + 1); adv(c, 300, 1500); }
		break;
	default:
		handled = pm(700);
		break;
	}
	adv(c, 500, 5000);
	if (pm(2)) adv(c, 1000000, 2800000);                 /* long ISR (> 1 ms) */
	e = emit(c, EV_IRQ_EXIT, 'd', 'h', c->hd); e->a = (uint32_t)ii; e->b = (uint32_t)handled;
	adv(c, 200, 1500);
	irq_exit(c);
}

static void do_ipi(cpu_t *c)
{
	c->hd = is_idle(c) ? 1 : 0;
	int n = 0;
	for (int i = 0; i < c->nipi; ) {
		if (c->ipit[i] > c->now) { i++; continue; }
		int ti = c->ipi[i];
		c->ipi[i] = c->ipi[c->nipi - 1]; c->ipit[i] = c->ipit[c->nipi - 1]; c->nipi--;
		task_t *t = &T[ti];
		t->state = ST_RUNNABLE; t->since = c->now; t->cpu = c->id; rq_push(c, ti);
		if (is_idle(c) || t->prio < T[c->cur].prio) c->need_resched = 1;
		ev_t *e = emit(c, EV_WAKEUP, 'd', 'h', c->hd + 1); e->a = (uint32_t)ti; e->b = (uint32_t)c->id;
		adv(c, 300, 1500);
		n++;
	}
	if (n) irq_exit(c);
}

/* ------------------------------------------------------------------ */
/* workqueues                                                          */

/* def >= 0: pick the instance for this CPU; def < 0: instance -1-def */
static void queue_work_def(cpu_t *c, int def, char irqf, char ctx, int depth)
{
	int wi = def >= 0 ? WINST[def][WDEF[def].kind == WK_UNBOUND ? (int)rn((uint32_t)NWINST[def]) : c->id]
			  : -1 - def;
	work_t *w = &W[wi];
	if (w->pending || c->now < w->done) return;   /* queue_work() returns false */
	int d = w->def, pool, cpu, req;
	if (WDEF[d].kind == WK_UNBOUND) { pool = 2 * NCPU; cpu = -1; req = 8192; }
	else {
		cpu = w->cpu; req = WDEF[d].on ? cpu : 8192;
		pool = WDEF[d].kind == WK_HIGHPRI ? NCPU + cpu : cpu;
	}
	ev_t *e = emit(c, EV_WQ_QUEUE, irqf, ctx, depth);
	e->a = (uint32_t)wi; e->b = (uint32_t)req; e->c = (uint32_t)cpu;
	adv(c, 0, 1200);
	e = emit(c, EV_WQ_ACT, irqf, ctx, depth); e->a = (uint32_t)wi;
	adv(c, 200, 1500);
	pool_t *p = &P[pool];
	if (p->qt - p->qh >= POOLQ) return;
	w->pending = 1;
	p->qts[p->qt % POOLQ] = c->now;
	p->q[p->qt++ % POOLQ] = wi;
	int busy = 0, cand[8], nc = 0;
	for (int k = 0; k < p->nw; k++) {
		task_t *t = &T[p->w[k]];
		if (t->state != ST_SLEEP) busy = 1;
		else if (t->since <= c->now) cand[nc++] = p->w[k];
	}
	if (!busy && nc) wake_task(c, cand[rn((uint32_t)nc)], ctx, depth + 1);
}

static void kworker_act(cpu_t *c, task_t *t)
{
	pool_t *p = &P[t->pool];
	if (p->qh == p->qt) { sched_switch(c, PS_I); return; }
	/* the unbound pool is fed from all CPUs: a work queued "later" in
	 * trace time than this burst is picked up when it arrives */
	if (p->qts[p->qh % POOLQ] > c->now) c->now = p->qts[p->qh % POOLQ] + ur(800, 4000);
	int wi = p->q[p->qh++ % POOLQ];
	work_t *w = &W[wi];
	int d = w->def;
	ev_t *e = emit(c, EV_WQ_START, '.', '.', 0); e->a = (uint32_t)wi;
	adv(c, WDEF[d].lo / 2, WDEF[d].hi / 2);
	if (pm(3)) adv(c, 800000, 3000000);
	switch (WDEF[d].behav) {
	case WB_REARM:
		arm_timer(c, TF_DWT, w->tptr, WDEF[d].rearm, -1, wi, WDEF[d].tflags, 'd', '.', 2);
		break;
	case WB_TTY:
		if (pm(700)) wake_task(c, pm(450) ? T_BASH1 : pm(500) ? T_BASH2 : T_SH, '.', 3);
		break;
	case WB_WRITEBACK:
		if (REAL) wb_work(c, (int)(t - T));
		if (pm(300)) arm_timer(c, TF_WRITEOUT, c->misc_tptr[TF_WRITEOUT], 750, -1, -1, TFL_D, 'd', '.', 2);
		if (pm(300)) queue_work_def(c, WD_BLKRUN, 'd', '.', 1);
		break;
	case WB_BPRINT:
		if (pm(300)) bprint(c, BP_WORKER, '.', '.', 0);
		break;
	default:
		if (REAL) {
			if (d == WD_FREE) { kmem(c, KS_RCU_KFREE, '.', '.', 0); page_free(c, PK_FREE, '.', 1); }
			else if (d == WD_VSOCK) { kmem(c, KS_SKB_DATA_FREE, '.', '.', 0); kmem(c, KS_SKB_FREE, '.', '.', 0); }
			else if (d == WD_EXT4) { kmem(c, KS_ES_FREE, '.', '.', 0); kmem(c, KS_IOEND_FREE, '.', '.', 0); }
			else if (d == WD_LRU && pm(500)) page_free(c, PK_BATCHED, '.', 2);
		}
		break;
	}
	adv(c, WDEF[d].lo / 2, WDEF[d].hi / 2);
	e = emit(c, EV_WQ_END, '.', '.', 0); e->a = (uint32_t)wi;
	w->pending = 0; w->done = c->now;
	adv(c, 300, 2000);
}

/* ------------------------------------------------------------------ */
/* task actions                                                        */

static void bprint(cpu_t *c, int which, char irqf, char ctx, int depth)
{
	ev_t *e = emit(c, EV_BPRINT, irqf, ctx, depth);
	static const unsigned sz[] = { 64, 128, 256, 512, 1024, 1500, 4096, 9000 };
	e->a = (uint32_t)which;
	switch (which) {
	case BP_POLL:   e->b = sz[rn(8)]; break;
	case BP_IRQ:    e->b = (uint32_t)r64() & 0x1ff; e->c = rn(5); break;
	case BP_XMIT:   e->b = rn(4); e->c = sz[rn(8)]; break;
	case BP_NVME:   e->b = 1 + rn((uint32_t)NCPU); e->c = rn(1024); e->d = pm(600) ? 2 : pm(500) ? 1 : 0; break;
	case BP_WORKER: e->b = 1 + rn(200); e->c = 5 + rn(900); break;
	default:        e->b = rn(2); e->c = (uint32_t)(c->now / 16666667ULL); break;
	}
}

static ev_t *mark(cpu_t *c, task_t *t)
{
	ev_t *e = emit(c, EV_MARK, '.', '.', 1);
	e->b = (uint32_t)t->tgid;
	int ms = t->mset;
	if (REAL && pm(12)) {
		/* async slices (S, then F with the same cookie) */
		e->c = MN_ASYNC + (uint32_t)(t->pid % 3);
		if (t->async) { e->a = 'F'; e->d = t->async; t->async = 0; }
		else { e->a = 'S'; t->async = e->d = 1 + rn(5000); }
		return e;
	}
	if (REAL && pm(40)) {
		e->type = EV_PTEXT;
		e->a = pm(500) ? PT_CLOCK_REAL : PT_CLOCK_PARENT;
		e->x = c->now;
		return e;
	}
	if (pm(130)) {
		e->a = 'C';
		e->c = MSET[ms].c0 + rn(MSET[ms].cn);
		switch (e->c) {
		case MC_RSS: e->d = 180000000u + rn(40000000u); break;
		case MC_QUEUED: e->d = rn(4); break;
		case MC_FRAMEMISSED: e->d = pm(900) ? 0 : 1; break;
		default: e->d = (uint32_t)((c->now / 8333333ULL) & 1); break;
		}
	} else if (t->mdepth > 0 && (t->mdepth >= 6 || pm(520))) {
		e->a = 'E';
		if (REAL && pm(30)) e->a = 'e';          /* a bare "E" */
		t->mdepth--;
	} else {
		e->a = 'B';
		e->c = MSET[ms].b0 + rn(MSET[ms].bn);
		t->mstack[t->mdepth++] = (uint8_t)e->c;
	}
	return e;
}

/* ------------------------------------------------------------------ */
/* --mix real: syscalls, kmem, block, writeback, signals, processes     */

static inline uint32_t pghash(uint64_t pfn)
{
	uint64_t z = (pfn + PGSALT) * 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(z >> 32) ^ (uint32_t)z;
}

static void stat_rt(cpu_t *c, int ti, int depth)
{
	task_t *t = &T[ti];
	ev_t *e = emit(c, EV_STAT_RT, 'd', '.', depth);
	e->a = (uint32_t)ti;
	e->x = c->now > t->stat_at + 400 ? c->now - t->stat_at : 400 + rn(600);
	t->stat_at = c->now;
	adv(c, 200, 1000);
}

static void rcu_cs(cpu_t *c)
{
	ev_t *e = emit(c, EV_RCU, 'd', '.', 1); e->a = 0;
	adv(c, 0, 500);
	e = emit(c, EV_RCU, 'd', '.', 1); e->a = 1;
	adv(c, 100, 700);
}

static ev_t *sys_enter(cpu_t *c, int sc, uint32_t len, int fd)
{
	ev_t *e = emit(c, EV_SYS_ENTER, '.', '.', 0);
	e->a = (uint32_t)sc; e->b = len; e->c = (uint32_t)fd; e->x = r64();
	adv(c, 300, 1500);
	return e;
}

static void sys_exit_nr(cpu_t *c, int nr, int64_t ret)
{
	ev_t *e = emit(c, EV_SYS_EXIT, '.', '.', 0);
	e->a = (uint32_t)nr; e->x = (uint64_t)ret;
	adv(c, 200, 1200);
}

static int64_t sc_ret(task_t *t, int sc, uint32_t len)
{
	switch (SC[sc].ret) {
	case RET_LEN:      return len;
	case RET_FD:       return t->fd;
	case RET_ADDR:     return (int64_t)(t->lib + (r64() & 0x3fffff000ULL));
	case RET_EAGAIN:   return -11;
	case RET_TIMEDOUT: return -110;
	case RET_ONE:      return 1;
	case RET_SMALL:    return 1 + rn(3);
	case RET_ENOENT:   return -2;
	case RET_ENOTTY:   return -25;
	case RET_PID:      return t->tgid;
	case RET_ECHILD:   return -10;
	case RET_OFF:      return (int64_t)(r64() & 0xfffff);
	default:           return 0;
	}
}

static void sys_exit(cpu_t *c, task_t *t, int sc, uint32_t len)
{
	sys_exit_nr(c, SC[sc].nr, sc_ret(t, sc, len));
}

/* one kmem event; pointers come back LIFO per cache and CPU, as slabs do */
static uint32_t kmem(cpu_t *c, int site, char irqf, char ctx, int depth)
{
	int kc = KS[site].cache, kind = KS[site].kind;
	uint32_t ptr = 0;
	if (kind == KM_CALLOC || kind == KM_KMALLOC) {
		ptr = c->kfree_head[kc]; c->kfree_head[kc] = 0;
		if (!ptr || pm(250)) ptr = hptr();
		c->klast[kc] = ptr;
	} else if (kc) {
		ptr = c->klast[kc]; c->klast[kc] = 0;
		if (!ptr || pm(300)) ptr = hptr();
		c->kfree_head[kc] = ptr;
	}
	ev_t *e = emit(c, EV_KMEM, irqf, ctx, depth); e->a = (uint32_t)site; e->b = ptr;
	adv(c, 100, 900);
	return ptr;
}

static uint64_t new_pfn(void) { return 0x100000 + rn(0x60000); }

static void page_alloc(cpu_t *c, int gfp, char irqf, char ctx, int depth)
{
	uint64_t pfn = new_pfn();
	if (pm(25)) {                        /* per-cpu list refill under the zone lock */
		int n = 3 + (int)rn(8);
		for (int k = 0; k < n; k++) {
			ev_t *e = emit(c, EV_PAGE, 'd', ctx, depth + 3); e->a = PK_ZONE;
			e->x = pfn + (uint64_t)k; e->b = pghash(e->x); e->d = PGFP[gfp].mt;
			adv(c, 50, 400);
		}
	}
	ev_t *e = emit(c, EV_PAGE, irqf, ctx, depth); e->a = PK_ALLOC;
	e->x = pfn; e->b = pghash(pfn); e->c = (uint32_t)gfp; e->d = PGFP[gfp].mt;
	c->pfn[c->npfn++ & 63] = (uint32_t)pfn;
	adv(c, 200, 1200);
}

static void page_free(cpu_t *c, int kind, char ctx, int depth)
{
	uint64_t pfn = c->npfn > 0 && pm(700) ? c->pfn[--c->npfn & 63] : new_pfn();
	ev_t *e = emit(c, EV_PAGE, '.', ctx, depth); e->a = (uint32_t)kind;
	e->x = pfn; e->b = pghash(pfn);
	adv(c, 50, 500);
}

static void rss(cpu_t *c, task_t *t, int member, int64_t delta, int curr)
{
	int64_t v = (int64_t)t->rss[member] + delta;
	t->rss[member] = v < 0 ? 0 : (uint64_t)v;
	ev_t *e = emit(c, EV_RSS, '.', '.', 1);
	e->a = t->mm_id; e->b = (uint32_t)curr; e->c = (uint32_t)member; e->x = t->rss[member];
	adv(c, 100, 800);
}

/* a user page fault */
static void fault(cpu_t *c, task_t *t)
{
	unsigned r = rn(1000);
	if (r < 560) {
		page_alloc(c, PG_ANON, '.', '.', 0);
		rss(c, t, 1, 4096, 1);
	} else if (r < 800) {
		if (pm(450)) page_alloc(c, PG_FILE, '.', '.', 0);
		rss(c, t, 0, 4096, 1);
	} else if (r < 900) {
		page_alloc(c, PG_PGTABLE, '.', '.', 0);
		kmem(c, KS_AV_PREP, '.', '.', 0);
		kmem(c, KS_AVC_PREP, '.', '.', 0);
		page_alloc(c, PG_ANON, '.', '.', 0);
		rss(c, t, 1, 4096, 1);
	} else {
		page_alloc(c, PG_READAHEAD, '.', '.', 0);
		page_alloc(c, PG_READAHEAD, '.', '.', 0);
		rss(c, t, 0, 8192, 1);
	}
	adv(c, 300, 4000);
}

/* pages of an address range going away: rss, then per-page and batched frees */
static void zap(cpu_t *c, task_t *t, int n, int curr)
{
	for (int k = 0; k < n; k++) {
		int member = (int)rn(2);
		rss(c, t, member, -4096 * (int64_t)(1 + rn(4)), curr);
	}
	int nf = 1 + (int)rn((uint32_t)n + 1);
	for (int k = 0; k < nf; k++) page_free(c, PK_FREE, '.', 2);
	for (int k = 0; k < n; k++) page_free(c, PK_BATCHED, '.', 4);
}

static void ipi(cpu_t *c, int tgt, int kind, char ctx, int depth)
{
	ev_t *e = emit(c, EV_IPI, 'd', ctx, depth); e->a = (uint32_t)tgt; e->b = (uint32_t)kind;
	adv(c, 200, 1200);
}

/* ---- block I/O ---- */

static void blk_ev(cpu_t *c, int kind, int dev, const breq_t *r, char irqf, char ctx, int depth)
{
	ev_t *e = emit(c, EV_BLK, irqf, ctx, depth);
	e->a = (uint32_t)kind; e->b = (uint32_t)(dev | r->rwbs << 8); e->c = r->nr;
	e->d = (uint32_t)r->task; e->x = r->sector;
	adv(c, 100, 900);
}

/* submit one request from task ti (its comm goes in [...]); waiter is woken on completion */
static int blk_submit(cpu_t *c, int ti, int dev, int rwbs, uint32_t nsec, int waiter)
{
	if (BQ[dev].n >= BQCAP) return 0;
	breq_t r;
	if (pm(550)) BQ[dev].next_sector = ur(2048, 500000000) & ~7ULL;
	r.sector = BQ[dev].next_sector; BQ[dev].next_sector += nsec;
	r.nr = nsec; r.rwbs = rwbs; r.task = ti; r.ts = 0;
	r.gen = waiter >= 0 ? T[waiter].gen : 0;
	if (pm(400)) kmem(c, KS_BIO, '.', '.', 0);
	blk_ev(c, BK_QUEUE, dev, &r, '.', '.', 0);
	blk_ev(c, BK_GETRQ, dev, &r, '.', '.', 0);
	blk_ev(c, BK_IOSTART, dev, &r, '.', '.', 0);
	blk_ev(c, BK_PLUG, dev, &r, '.', '.', 0);
	blk_ev(c, BK_INSERT, dev, &r, '.', '.', 1);
	blk_ev(c, BK_UNPLUG, dev, &r, '.', '.', 0);
	blk_ev(c, BK_ISSUE, dev, &r, '.', '.', 0);
	r.task = waiter; r.ts = c->now;
	BQ[dev].r[(BQ[dev].h + BQ[dev].n++) % BQCAP] = r;
	return 1;
}

/* complete up to n requests of dev, oldest first; requests are queued by all
 * CPUs, and a CPU may be ahead in time: only those issued 30 us ago or more */
static void blk_complete(cpu_t *c, int dev, int n)
{
	for (int k = 0; k < n && BQ[dev].n; k++) {
		int best = -1;
		for (int i = 0; i < BQ[dev].n; i++) {
			const breq_t *q = &BQ[dev].r[(BQ[dev].h + i) % BQCAP];
			if (q->ts + 30000 <= c->now &&
			    (best < 0 || q->ts < BQ[dev].r[(BQ[dev].h + best) % BQCAP].ts)) best = i;
		}
		if (best < 0) break;
		breq_t r = BQ[dev].r[(BQ[dev].h + best) % BQCAP];
		for (int i = best; i > 0; i--)
			BQ[dev].r[(BQ[dev].h + i) % BQCAP] = BQ[dev].r[(BQ[dev].h + i - 1) % BQCAP];
		BQ[dev].h = (BQ[dev].h + 1) % BQCAP; BQ[dev].n--;
		int w = r.task;
		r.task = 0;                      /* error */
		blk_ev(c, BK_COMPLETE, dev, &r, '.', 's', 1);
		blk_ev(c, BK_IODONE, dev, &r, '.', 's', 1);
		if (pm(600)) kmem(c, KS_BIO_FREE, '.', 's', 1);
		if (w >= 0) {
			task_t *t = &T[w];
			if (t->state == ST_SLEEP && t->pstate == PS_D && t->gen == r.gen)
				wake_task(c, w, 's', 4);
		} else if (r.rwbs >= RW_W && pm(400)) {
			ev_t *e = emit(c, EV_WB, 'd', 's', 2); e->a = WBE_SB_CLEAR | (uint32_t)dev << 8;
			e->x = ur(100000, 9000000); e->y = jif(mono(c->now)) - ur(200, 9000);
			e->b = IS_SYNC_PAGES; adv(c, 100, 800);
		}
	}
}

/* ---- writeback ---- */

static void wb_ev(cpu_t *c, int kind, int dev, uint64_t ino, uint64_t y, int st, uint32_t cc,
		  uint32_t d, char irqf, int depth)
{
	ev_t *e = emit(c, EV_WB, irqf, '.', depth);
	e->a = (uint32_t)(kind | dev << 8); e->x = ino; e->y = y; e->b = (uint32_t)st;
	e->c = cc; e->d = d;
	adv(c, 100, 900);
}

/* a buffered write of n pages into t's file */
static void fwrite_pages(cpu_t *c, task_t *t, int n)
{
	int dev = t->pid % 5 == 0 ? 1 : 0;
	for (int k = 0; k < n; k++) {
		uint64_t idx = t->wpos++;
		if (pm(350)) page_alloc(c, PG_WRITE, '.', '.', 0);
		if (pm(200)) kmem(c, KS_BH, '.', '.', 0);
		if (pm(120)) { kmem(c, KS_EXT4_PATH, '.', '.', 0); kmem(c, KS_ES, '.', '.', 0);
			       kmem(c, KS_EXT4_PATH_FREE, '.', '.', 0); }
		uint64_t sec = (t->ino * 8 + idx * 8) & 0x3fffffff;
		if (pm(600)) { ev_t *e = emit(c, EV_BLKBUF, '.', '.', 0); e->a = (uint32_t)(dev << 8);
			       e->x = sec; adv(c, 100, 700); }
		ev_t *e = emit(c, EV_BLKBUF, '.', '.', 0); e->a = (uint32_t)(1 | dev << 8); e->x = sec;
		adv(c, 100, 700);
		wb_ev(c, WBE_DIRTY_FOLIO, dev, t->ino, idx, 0, 0, 0, 'd', 1);
		if (pm(60)) wb_ev(c, WBE_FOREIGN, dev, t->ino, 1000 + t->ino % 5000, 0, 0, 0, 'd', 1);
		wb_ev(c, WBE_MARK_DIRTY, dev, t->ino, 0, IS_PAGES, 0, 0, '.', 0);
		DIRTY_PAGES++;
	}
	if (pm(300)) {
		int st = pm(300) ? IS_SYNC : IS_ALL;
		wb_ev(c, WBE_MARK_DIRTY, dev, t->ino, 0, st, 0, 0, '.', 0);
		wb_ev(c, WBE_DIRTY_START, dev, t->ino, 0, st, 0, 0, '.', 0);
		wb_ev(c, WBE_DIRTY, dev, t->ino, 0, st, 0, 0, '.', 0);
	}
	if (pm(80)) wb_ev(c, WBE_ENQUEUE, dev, t->ino, jif(mono(c->now)), IS_PAGES, 0, 0, '.', 0);
}

/* the flusher (wb_workfn) on kworker kw */
static void wb_work(cpu_t *c, int kw)
{
	int dev = pm(800) ? 0 : 1;
	int reason = pm(750) ? 3 : 0;                /* periodic, background */
	uint64_t j = jif(mono(c->now));
	uint32_t nr = 1024 * (1 + rn(16));
	wb_ev(c, WBE_START, dev, 0, nr, 0, 0, (uint32_t)reason, '.', 0);
	uint64_t older = j - ur(500, 8000), age = ur(0, 30000);
	uint32_t enq = 1 + rn(3);
	wb_ev(c, WBE_QUEUE_IO, dev, older, age, 0, 0, enq | (uint32_t)reason << 8, '.', 0);
	int ni = 1 + (int)rn(3);
	uint32_t total = 0;
	for (int k = 0; k < ni; k++) {
		const task_t *o = &T[USERS[rn((uint32_t)NUSERS)]];
		uint64_t ino = o->ino, dirtied = j - ur(100, 8000);
		uint32_t pages = 1 + rn(24);
		wb_ev(c, WBE_SINGLE_START, dev, ino, dirtied, IS_SYNC_PAGES_SYNC, 0,
		      (uint32_t)(j - dirtied) * 4, '.', 0);
		int nreq = 1 + (int)rn(2);
		for (int q = 0; q < nreq; q++) {
			int rw = pm(800) ? RW_W : RW_WM;
			blk_submit(c, kw, dev, rw, 8 * (1 + rn(pages)), -1);
		}
		if (pm(500)) wb_ev(c, WBE_SB_MARK, dev, ino, dirtied, IS_SYNC_PAGES, 0, 0, 'd', 2);
		wb_ev(c, WBE_WRITE_START, dev, ino, 0, 0, 0, 0, '.', 0);
		wb_ev(c, WBE_WRITE, dev, ino, 0, 0, 0, 0, '.', 0);
		wb_ev(c, WBE_SINGLE, dev, ino, dirtied, pm(700) ? IS_ISYNC : IS_PAGES_ISYNC, pages,
		      (uint32_t)(j - dirtied) * 4, '.', 0);
		total += pages;
	}
	wb_ev(c, WBE_WRITTEN, dev, 0, nr > total ? nr - total : 0, 0, 0, (uint32_t)reason, '.', 0);
	wb_ev(c, WBE_PAGES, dev, 0, total, 0, 0, 0, '.', 0);
	DIRTY_PAGES = DIRTY_PAGES > total ? DIRTY_PAGES - total : ur(200, 900);
	WRITTEN_PAGES += total;
	if (pm(400)) wb_ev(c, WBE_GLOBAL, dev, DIRTY_PAGES, WRITTEN_PAGES, 0, rn(40), 0, '.', 0);
}

/* ---- rcu callbacks (RCU softirq) ---- */

static void rcu_batch(cpu_t *c)
{
	static const uint8_t sites[] = { KS_RCU_KFREE, KS_RCU_KFREE, KS_RCU_RADIX, KS_RCU_LSMINODE,
					 KS_RCU_PID, KS_RCU_EXT4INODE, KS_RCU_TASK, KS_FILP };
	int n = pm(250) ? 0 : (int)rn(7);
	for (int k = 0; k < n; k++) kmem(c, sites[rn(sizeof sites)], '.', 's', 1);
	for (int k = 0; k < NSLOT; k++) {
		slot_t *sl = &SLOT[k];
		if (!sl->freed_pending) continue;
		ev_t *e = emit(c, EV_PROC, '.', 's', 1); e->a = PE_FREE; e->b = (uint32_t)sl->post;
		adv(c, 200, 900);
		kmem(c, KS_RCU_TASK, '.', 's', 1);
		sl->freed_pending = 0;
		sl->free_at = c->now + 20000000ULL;     /* no queued event can still name it */
	}
}

/* ---- signals ---- */

static void deliver_signal(cpu_t *c, task_t *t)
{
	int sig = t->sigpend; t->sigpend = 0;
	kmem(c, KS_SIGQ_FREE, 'd', '.', 1);
	ev_t *e = emit(c, EV_SIGDEL, 'd', '.', 1);
	e->a = (uint32_t)sig; e->b = sig == 17 ? 1 : 0;
	e->x = t->heap - 0x1000 * (uint64_t)(1 + sig); e->y = sig == 17 ? 0x14000000 : 0x4000000;
	adv(c, 1000, 8000);                  /* the handler */
	sys_enter(c, SC_SIGRETURN, 0, 0);
	sys_exit_nr(c, -1, 0);               /* rt_sigreturn: orig_ax is -1 again */
}

static void send_signal(cpu_t *c, int ti)
{
	int o = USERS[rn((uint32_t)NUSERS)];
	task_t *t = &T[ti], *d = &T[o];
	if (o == ti || d->waitchild || d->sigpend) { sys_enter(c, SC_GETPID, 0, 0); sys_exit(c, t, SC_GETPID, 0); return; }
	sys_enter(c, SC_KILL, (uint32_t)d->tgid, 0);
	kmem(c, KS_SIGQ, 'd', '.', 2);
	ev_t *e = emit(c, EV_SIGGEN, 'd', '.', 2);
	e->a = 10; e->b = 0; e->c = (uint32_t)o; e->d = 1;   /* grp=1 res=0 */
	adv(c, 300, 1500);
	d->sigpend = 10; d->sig_at = c->now;
	if (d->state == ST_SLEEP && d->pstate == PS_S) wake_task(c, o, '.', 3);
	sys_exit(c, t, SC_KILL, 0);
}

/* ---- children of the shells: clone, exec, a short life, exit ---- */

static int spawn(cpu_t *c, int ti)
{
	task_t *t = &T[ti];
	int k = 0;
	while (k < NSLOT && (SLOT[k].alive || SLOT[k].freed_pending || SLOT[k].free_at > c->now)) k++;
	if (k == NSLOT) return 0;
	slot_t *sl = &SLOT[k];
	task_t *ch = &T[sl->pre];
	int pid = NEXT_CHILD_PID;
	NEXT_CHILD_PID += 1 + (int)rn(4);
	ch->prio = t->prio;
	task_strings(ch, t->comm, NULL, pid);
	ch->tgid = pid; ch->stk = t->stk; ch->heap = t->heap; ch->lib = t->lib;
	ch->mm_id = (uint32_t)r64(); ch->rss[0] = t->rss[0]; ch->rss[1] = t->rss[1] / 4;
	ch->fd = t->fd; ch->ino = t->ino; ch->exe = (int)rn(NEXE);
	ch->sigpend = ch->hrt_armed = ch->tmr_armed = ch->waitchild = 0; ch->mdepth = 0;
	sys_enter(c, SC_CLONE, 0, 0);
	kmem(c, KS_TASK, '.', '.', 0);
	kmem(c, KS_CRED, '.', '.', 0);
	kmem(c, KS_FILES, '.', '.', 0);
	if (pm(300)) { kmem(c, KS_FDTABLE2, '.', '.', 0); kmem(c, KS_FDTABLE, '.', '.', 0); }
	kmem(c, KS_SIGHAND, '.', '.', 0);
	kmem(c, KS_SIGNAL, '.', '.', 0);
	kmem(c, KS_MM, '.', '.', 0);
	kmem(c, KS_MT_DUP, '.', '.', 0);
	int nv = 8 + (int)rn(16);
	for (int v = 0; v < nv; v++) {
		kmem(c, KS_VMA_DUP, '.', '.', 0);
		if (pm(350)) { kmem(c, KS_AV_FORK, '.', '.', 0); kmem(c, KS_AVC_FORK, '.', '.', 0); }
		else if (pm(300)) kmem(c, KS_AVC_CLONE, '.', '.', 0);
		if (pm(150)) kmem(c, KS_MAPLE_DUP, '.', '.', 0);
		if (pm(200)) page_alloc(c, PG_PGTABLE, '.', '.', 0);
	}
	kmem(c, KS_PID, '.', '.', 0);
	ev_t *e = emit(c, EV_PROC, '.', '.', 0); e->a = PE_NEWTASK; e->b = (uint32_t)sl->pre;
	adv(c, 300, 1500);
	e = emit(c, EV_PROC, '.', '.', 0); e->a = PE_FORK; e->b = (uint32_t)ti; e->c = (uint32_t)sl->pre;
	adv(c, 500, 3000);
	c->need_resched = 1;
	e = emit(c, EV_WAKEUP_NEW, 'd', '.', 2); e->a = (uint32_t)sl->pre; e->b = (uint32_t)c->id;
	ch->state = ST_RUNNABLE; ch->since = c->now; ch->cpu = c->id; ch->gen++;
	ch->sc = SC_CLONE; ch->scret = 0;
	rq_push(c, sl->pre);
	adv(c, 300, 1500);
	sys_exit_nr(c, SC[SC_CLONE].nr, pid);
	sl->alive = 1; sl->parent = ti;
	sys_enter(c, SC_WAIT4, 0, 0);
	e = emit(c, EV_PROC, '.', '.', 0); e->a = PE_WAIT; e->b = (uint32_t)ti;
	adv(c, 200, 900);
	t->sc = SC_WAIT4; t->scret = pid; t->waitchild = 1;
	sched_switch(c, PS_S);
	return 1;
}

static void child_exec(cpu_t *c, slot_t *sl)
{
	task_t *pre = &T[sl->pre], *post = &T[sl->post];
	int x = pre->exe;
	if (pm(600)) { sys_enter(c, SC_SIGPROCMASK, 0, 0); sys_exit(c, pre, SC_SIGPROCMASK, 0); }
	if (pm(500)) { sys_enter(c, SC_CLOSE, 0, pre->fd); sys_exit(c, pre, SC_CLOSE, 0);
		       kmem(c, KS_FPUT_LSM, '.', '.', 0); kmem(c, KS_FPUT_FILP, '.', '.', 0); }
	sys_enter(c, SC_EXECVE, 0, 0);
	kmem(c, KS_GETNAME, '.', '.', 0);
	kmem(c, KS_BPRM, '.', '.', 0);
	kmem(c, KS_MM_ALLOC, '.', '.', 0);
	kmem(c, KS_VMA_ALLOC, '.', '.', 0);
	page_alloc(c, PG_PGTABLE, '.', '.', 0);
	ev_t *e = emit(c, EV_PROC, '.', '.', 0); e->a = PE_PREP_EXEC; e->b = (uint32_t)sl->pre; e->d = (uint32_t)x;
	adv(c, 1000, 6000);
	kmem(c, KS_PHDR, '.', '.', 0);
	int nv = 6 + (int)rn(12);                   /* the old mm goes */
	for (int v = 0; v < nv; v++) {
		kmem(c, KS_VMA_EXIT, '.', '.', 0);
		kmem(c, KS_VMA_KFREE, '.', '.', 0);
		if (pm(300)) kmem(c, KS_AVC_UNLINK, '.', '.', 0);
	}
	zap(c, pre, 2 + (int)rn(6), 0);
	kmem(c, KS_MM_FREE, '.', '.', 0);
	e = emit(c, EV_PROC, '.', '.', 0); e->a = PE_RENAME; e->b = (uint32_t)sl->pre; e->c = (uint32_t)sl->post;
	adv(c, 300, 2000);
	/* from here on the task is the new program (a task of its own, see setup) */
	post->prio = pre->prio;
	task_strings(post, EXE[x].comm, NULL, pre->pid);
	post->tgid = pre->pid; post->exe = x;
	post->state = ST_RUN; post->cpu = c->id; post->since = pre->since; post->stat_at = pre->stat_at;
	post->stk = 0x7ff000000000ULL + (r64() % 0xfffffffffULL & ~0xfULL);
	post->heap = 0x550000000000ULL + (r64() % 0x1ffffffffffULL & ~0xfULL);
	post->lib = 0x7f0000000000ULL + (r64() % 0xffffffffffULL & ~0xfffULL);
	post->mm_id = (uint32_t)r64(); post->rss[0] = 4096 * ur(20, 400); post->rss[1] = 4096 * ur(5, 60);
	post->fd = 3; post->ino = ur(1000, 9000000); post->wpos = 0;
	post->sc = -1; post->sigpend = post->hrt_armed = post->tmr_armed = post->waitchild = 0;
	post->mdepth = 0; post->async = 0;
	post->life = 4 + (int)rn(24);
	c->cur = sl->post;
	pre->state = ST_DEAD;
	e = emit(c, EV_PROC, '.', '.', 0); e->a = PE_EXEC; e->b = (uint32_t)sl->post; e->d = (uint32_t)x;
	adv(c, 300, 1500);
	kmem(c, KS_PUTNAME_EXEC, '.', '.', 0);
	kmem(c, KS_BPRM_FREE, '.', '.', 0);
	sys_exit_nr(c, SC[SC_EXECVE].nr, 0);
	int nf = 3 + (int)rn(8);                    /* the dynamic loader maps the program */
	for (int k = 0; k < nf; k++) fault(c, post);
}

static void child_exit(cpu_t *c, slot_t *sl)
{
	task_t *t = &T[sl->post], *p = &T[sl->parent];
	sys_enter(c, SC_EXIT_GROUP, 0, 0);
	ev_t *e = emit(c, EV_PROC, '.', '.', 0); e->a = PE_EXIT; e->b = (uint32_t)sl->post;
	adv(c, 500, 3000);
	zap(c, t, 4 + (int)rn(10), 0);
	if (pm(400)) page_alloc(c, PG_NOWAIT, '.', '.', 1);
	int nv = 6 + (int)rn(14);
	for (int v = 0; v < nv; v++) {
		kmem(c, KS_VMA_EXIT, '.', '.', 0);
		kmem(c, KS_VMA_KFREE, '.', '.', 0);
		if (pm(400)) kmem(c, pm(500) ? KS_AVC_UNLINK : KS_AVC_UNLINK2, '.', '.', 0);
		if (pm(150)) kmem(c, KS_AV_PUT, '.', '.', 0);
	}
	if (pm(300)) ipi(c, (c->id + 1) % NCPU, 1, '.', 2);
	kmem(c, KS_FUTEX_FREE, '.', '.', 0);
	kmem(c, KS_FILES_FREE, '.', '.', 0);
	if (pm(300)) kmem(c, KS_FDTABLE_FREE, '.', '.', 0);
	kmem(c, KS_SIGHAND_FREE, '.', '.', 0);
	stat_rt(c, sl->post, 2);
	kmem(c, KS_SIGQ, 'd', '.', 2);
	e = emit(c, EV_SIGGEN, 'd', '.', 2);
	e->a = 17; e->b = 1; e->c = (uint32_t)sl->parent; e->d = 1;
	adv(c, 300, 1500);
	p->waitchild = 2;
	WAKE_WAITER = 1;
	wake_task(c, sl->parent, '.', 2);
	WAKE_WAITER = 0;
	sl->alive = 0; sl->freed_pending = 1;
	sched_switch(c, PS_Z);
}

/* ---- what a task does when it is switched back in ---- */

static void resume_task(cpu_t *c, task_t *t)
{
	if (t->hrt_armed) {
		ev_t *e = emit(c, EV_HRT_CANCEL, 'd', '.', 1); e->a = t->hrptr;
		t->hrt_armed = 0; adv(c, 200, 1000);
	}
	int early = 0;
	if (t->tmr_armed) {
		ev_t *e = emit(c, EV_TIMER_CANCEL, 'd', '.', 1); e->a = t->tmrptr;
		t->tmr_armed = 0; early = 1; adv(c, 200, 1000);
	}
	if (t->sc < 0) return;
	int sc = t->sc; t->sc = -1;
	int64_t ret = t->scret;
	if (ret == -1000) ret = early;               /* poll-like: 1 if woken, 0 on timeout */
	if (sc == SC_RECVMSG || (sc == SC_EPOLL_WAIT && t->net && pm(300))) {
		kmem(c, KS_SKB_DATA_FREE, '.', '.', 0);
		kmem(c, KS_SKB_FREE, '.', '.', 0);
	}
	int sig = t->sigpend && t->sig_at <= c->now;
	if (sig && sc != SC_WAIT4) ret = -4;         /* EINTR */
	sys_exit_nr(c, SC[sc].nr, ret);
	if (sc == SC_WAIT4 && t->waitchild == 2) {
		t->waitchild = 0;
		kmem(c, KS_SIGQ_FREE, 'd', '.', 1);           /* SIGCHLD */
		ev_t *e = emit(c, EV_SIGDEL, 'd', '.', 1);
		e->a = 17; e->b = 1; e->x = t->heap - 0x12000; e->y = 0x14000000;
		adv(c, 1000, 6000);
		sys_enter(c, SC_WAIT4, 0, 0);                  /* WNOHANG: nothing more */
		e = emit(c, EV_PROC, '.', '.', 0); e->a = PE_WAIT; e->b = (uint32_t)(t - T);
		adv(c, 100, 600);
		sys_exit_nr(c, SC[SC_WAIT4].nr, -10);
		sys_enter(c, SC_SIGRETURN, 0, 0);
		sys_exit_nr(c, -1, 0);
	}
	if (sig) deliver_signal(c, t);
}

/* ---- quick syscalls: in and out, with what they allocate and free ---- */

enum { Q_READ, Q_WRITE, Q_OPEN, Q_CLOSE, Q_FSTATAT, Q_FCNTL, Q_SIGMASK, Q_LSEEK, Q_GETRANDOM,
       Q_IOCTL, Q_RECV_EAGAIN, Q_FUTEX_WAKE, Q_EPOLL_CTL, Q_MPROTECT, Q_BRK, Q_PPOLL,
       Q_SENDMSG, Q_RECVMSG, Q_PREAD, Q_SYSCTL, Q_N };
/*  READ WRITE OPEN CLOSE FSTATAT FCNTL SIGMASK LSEEK GETRANDOM IOCTL RECV_EAGAIN FUTEX_WAKE
 *  EPOLL_CTL MPROTECT BRK PPOLL SENDMSG RECVMSG PREAD SYSCTL */
static const uint8_t WQ[PR_N][Q_N] = {
	[PR_ATRACE]  = { 60, 40, 10, 10, 12, 5,  20, 5,  5, 30, 30, 60, 5, 10, 5,  30, 25, 25, 10, 2 },
	[PR_SHELL]   = { 40, 40, 30, 40, 40, 50, 50, 10, 2, 30, 2,  2,  1, 5,  10, 5,  0,  0,  5,  5 },
	[PR_DAEMON]  = { 50, 30, 15, 15, 25, 10, 20, 10, 5, 20, 40, 30, 15, 3, 3,  30, 30, 30, 10, 10 },
	[PR_JOURNAL] = { 40, 60, 20, 20, 30, 10, 10, 30, 2, 10, 20, 10, 2,  2, 5,  10, 10, 20, 40, 5 },
	[PR_BROWSER] = { 60, 50, 10, 10, 15, 5,  15, 5,  10, 30, 50, 80, 10, 30, 10, 40, 40, 40, 10, 2 },
	[PR_COMPUTE] = { 40, 30, 10, 10, 20, 5,  10, 20, 5, 10, 5,  60, 2,  40, 30, 10, 5,  5,  40, 2 },
	[PR_CHILD]   = { 60, 40, 40, 40, 60, 20, 20, 20, 5, 20, 2,  5,  1,  30, 20, 5,  2,  2,  20, 5 },
};

static void quick_sys(cpu_t *c, task_t *t)
{
	const uint8_t *w = WQ[t->prof];
	unsigned tot = 0;
	for (int i = 0; i < Q_N; i++) tot += w[i];
	unsigned r = rn(tot);
	int q = 0;
	while (r >= w[q]) r -= w[q++];
	static const uint32_t lens[] = { 1, 8, 16, 40, 64, 128, 512, 832, 4096, 8192, 16384, 65536 };
	uint32_t len = lens[rn(12)];
	switch (q) {
	case Q_READ:
		sys_enter(c, SC_READ, len, t->fd);
		sys_exit_nr(c, SC[SC_READ].nr, pm(200) ? 0 : pm(300) ? (int64_t)rn(len) + 1 : len);
		break;
	case Q_WRITE:
		sys_enter(c, SC_WRITE, len, t->fd);
		sys_exit(c, t, SC_WRITE, len);
		break;
	case Q_OPEN:
		sys_enter(c, SC_OPENAT, 0, 0);
		kmem(c, KS_GETNAME, '.', '.', 0);
		if (pm(150)) {
			sys_exit_nr(c, SC[SC_OPENAT].nr, -2);
			break;
		}
		kmem(c, KS_FILP, '.', '.', 0);
		kmem(c, KS_LSMFILE, '.', '.', 0);
		if (pm(120)) kmem(c, KS_DENTRY, '.', '.', 0);
		if (pm(80)) kmem(c, KS_LSM_BLOB, '.', '.', 0);
		kmem(c, KS_PUTNAME_OPEN, '.', '.', 0);
		t->fd = 3 + (int)rn(60);
		sys_exit(c, t, SC_OPENAT, 0);
		break;
	case Q_CLOSE:
		sys_enter(c, SC_CLOSE, 0, t->fd);
		sys_exit(c, t, SC_CLOSE, 0);
		kmem(c, KS_FPUT_LSM, '.', '.', 0);         /* __fput runs on the way out */
		kmem(c, pm(800) ? KS_FPUT_FILP : KS_CLOSE_FILP, '.', '.', 0);
		if (pm(60)) kmem(c, KS_DENTRY_FREE, '.', '.', 0);
		break;
	case Q_FSTATAT:
		sys_enter(c, SC_FSTATAT, 0, t->fd);
		kmem(c, KS_GETNAME, '.', '.', 0);
		kmem(c, KS_PUTNAME_STAT, '.', '.', 0);
		sys_exit_nr(c, SC[SC_FSTATAT].nr, pm(300) ? -2 : 0);
		break;
	case Q_FCNTL:
		sys_enter(c, SC_FCNTL, 0, t->fd);
		sys_exit_nr(c, SC[SC_FCNTL].nr, pm(500) ? 0 : 1 + rn(10));
		break;
	case Q_SIGMASK: {
		int sc = pm(700) ? SC_SIGPROCMASK : SC_SIGACTION;
		sys_enter(c, sc, 0, 0);
		sys_exit(c, t, sc, 0);
		break;
	}
	case Q_LSEEK:     sys_enter(c, SC_LSEEK, 0, t->fd); sys_exit(c, t, SC_LSEEK, 0); break;
	case Q_GETRANDOM: sys_enter(c, SC_GETRANDOM, 8, 0); sys_exit(c, t, SC_GETRANDOM, 8); break;
	case Q_IOCTL:
		sys_enter(c, SC_IOCTL, 0, t->fd);
		sys_exit_nr(c, SC[SC_IOCTL].nr, pm(400) ? -25 : 0);
		break;
	case Q_RECV_EAGAIN:
		sys_enter(c, SC_RECVFROM, len, t->fd);
		sys_exit(c, t, SC_RECVFROM, len);
		break;
	case Q_FUTEX_WAKE:
		sys_enter(c, SC_FUTEX_WAKE, 0, 0);
		sys_exit_nr(c, SC[SC_FUTEX_WAKE].nr, 0);
		break;
	case Q_EPOLL_CTL:
		sys_enter(c, SC_EPOLL_CTL, 0, t->fd);
		if (pm(600)) kmem(c, KS_EPI, '.', '.', 0);
		sys_exit(c, t, SC_EPOLL_CTL, 0);
		break;
	case Q_MPROTECT:
		sys_enter(c, SC_MPROTECT, 4096 * (1 + rn(64)), 0);
		if (pm(300)) { kmem(c, KS_VMA_DUP, '.', '.', 0); kmem(c, KS_MAPLE, '.', '.', 0); }
		sys_exit(c, t, SC_MPROTECT, 0);
		break;
	case Q_BRK:
		sys_enter(c, SC_BRK, 0, 0);
		if (pm(400)) kmem(c, KS_MAPLE, '.', '.', 0);
		sys_exit_nr(c, SC[SC_BRK].nr, (int64_t)(t->heap + 0x21000 * (1 + rn(64))));
		break;
	case Q_PPOLL:
		sys_enter(c, SC_PPOLL, 0, 0);
		sys_exit_nr(c, SC[SC_PPOLL].nr, pm(600));
		break;
	case Q_SENDMSG:
		sys_enter(c, SC_SENDMSG, len, t->fd);
		kmem(c, KS_SKB, '.', '.', 0);
		if (len > 128) kmem(c, KS_SKB_DATA, '.', '.', 0);
		sys_exit(c, t, SC_SENDMSG, len);
		break;
	case Q_RECVMSG:
		sys_enter(c, SC_RECVMSG, 0, t->fd);
		if (pm(300)) { sys_exit_nr(c, SC[SC_RECVMSG].nr, -11); break; }
		kmem(c, KS_SKB_DATA_FREE, '.', '.', 0);
		kmem(c, KS_SKB_FREE, '.', '.', 0);
		sys_exit(c, t, SC_RECVMSG, len);
		break;
	case Q_PREAD:
		sys_enter(c, SC_PREAD, len, t->fd);
		sys_exit(c, t, SC_PREAD, len);
		break;
	case Q_SYSCTL:
		sys_enter(c, SC_READ, 4096, t->fd);
		kmem(c, KS_SYSCTL, '.', '.', 0);
		kmem(c, KS_SYSCTL_FREE, '.', '.', 0);
		sys_exit_nr(c, SC[SC_READ].nr, 1 + rn(12));
		break;
	}
	adv(c, 200, 4000);
}

/* a user task's action with --mix real: the same decisions as user_act, each
 * inside the system call that makes it, plus the syscalls, faults, mappings,
 * file writes, programs and signals of a busy system */
static void user_act_real(cpu_t *c, int ti)
{
	task_t *t = &T[ti];
	if (t->sigpend && t->sig_at <= c->now) { deliver_signal(c, t); return; }
	if (t->kind == TK_CHILD) {
		slot_t *sl = &SLOT[t->slot];
		if (ti == sl->pre) { child_exec(c, sl); return; }
		if (t->life-- <= 0) { child_exit(c, sl); return; }
	}
	const uint16_t *w = W_REAL[t->prof];
	unsigned tot = 0;
	for (int i = 0; i < A_N; i++) tot += w[i];
	unsigned r = rn(tot);
	int a = 0;
	while (r >= w[a]) r -= w[a++];
	switch (a) {
	case A_MARK: {
		ev_t *se = sys_enter(c, SC_WRITE, 0, t->mfd);
		ev_t *me = mark(c, t);
		char tmp[160];
		uint32_t len = (uint32_t)(mark_text(tmp, me) - tmp);
		se->b = len;
		adv(c, 200, 1500);
		sys_exit(c, t, SC_WRITE, len);
		break;
	}
	case A_WAKE: {
		int o = pick_sleeper(c, 0, 0);
		int binder = t->mset == MS_BINDER, sync = pm(280);
		int sc = binder ? SC_IOCTL : t->net && pm(500) ? SC_SENDMSG : pm(600) ? SC_FUTEX_WAKE : SC_WRITE;
		uint32_t len = sc == SC_WRITE ? 8 : sc == SC_SENDMSG ? 40 + rn(1400) : 0;
		sys_enter(c, sc, len, t->fd);
		if (sc == SC_SENDMSG) { kmem(c, KS_SKB, '.', '.', 0); if (len > 128) kmem(c, KS_SKB_DATA, '.', '.', 0); }
		if (o >= 0 && o != ti) wake_task(c, o, '.', 3);
		if (sync && binder) {                 /* the transaction waits for its reply */
			t->sc = SC_IOCTL; t->scret = 0;
			sched_switch(c, PS_S);
			break;
		}
		sys_exit(c, t, sc, len);
		if (sync) {
			sys_enter(c, SC_FUTEX_WAIT, 0, 0);
			t->sc = SC_FUTEX_WAIT; t->scret = 0;
			sched_switch(c, PS_S);
		}
		break;
	}
	case A_SLEEP: {
		static const uint8_t scs[] = { SC_FUTEX_WAIT, SC_FUTEX_WAIT, SC_EPOLL_WAIT, SC_EPOLL_WAIT,
					       SC_READ, SC_RECVMSG, SC_PPOLL, SC_POLL };
		int sc = scs[rn(sizeof scs)];
		uint32_t len = sc == SC_READ ? 8 << rn(10) : 0;
		sys_enter(c, sc, len, t->fd);
		t->sc = sc;
		t->scret = sc == SC_READ ? (int64_t)(1 + rn(len)) : sc == SC_RECVMSG ? 40 + rn(1400) :
			   sc == SC_EPOLL_WAIT || sc == SC_PPOLL || sc == SC_POLL ? 1 + rn(2) : 0;
		sched_switch(c, PS_S);
		break;
	}
	case A_SLEEPD: {
		int dev = t->pid % 5 == 0 ? 1 : t->pid % 7 == 0 ? 2 : 0;
		int sc = pm(350) ? SC_FSYNC : pm(500) ? SC_PREAD : SC_READ;
		uint32_t nsec = 8 * (1 + rn(sc == SC_FSYNC ? 8 : 32));
		uint32_t len = sc == SC_FSYNC ? 0 : nsec * 512;
		sys_enter(c, sc, len, t->fd);
		if (sc != SC_FSYNC && pm(300)) { kmem(c, KS_EXT4_PATH, '.', '.', 0); kmem(c, KS_EXT4_PATH_FREE, '.', '.', 0); }
		if (sc != SC_FSYNC) page_alloc(c, PG_READAHEAD, '.', '.', 0);
		if (pm(350)) queue_work_def(c, WD_BLKRUN, 'd', '.', 1);
		int rw = sc == SC_FSYNC ? (pm(600) ? RW_WS : RW_WSM) : pm(300) ? RW_RA : pm(500) ? RW_RM : RW_R;
		if (!blk_submit(c, ti, dev, rw, nsec, ti)) { sys_exit(c, t, sc, len); break; }
		if (sc == SC_FSYNC && pm(400)) blk_submit(c, ti, dev, RW_WS, 8, -1);
		t->sc = sc; t->scret = len;
		sched_switch(c, PS_D);
		break;
	}
	case A_HRSLEEP: {
		uint64_t m = mono(c->now), d = 50000 + rexp(pm(300) ? 8000000 : 1000000);
		uint64_t slack = t->prio < 100 ? 0 : 50000;
		int mode = pm(300) ? HM_ABS : HM_REL;
		uint64_t soft = m + d, exp = soft + slack;
		int sc = pm(700) ? SC_NANOSLEEP : SC_FUTEX_WAIT;
		sys_enter(c, sc, 0, 0);
		ev_t *e = emit(c, EV_HRT_SETUP, '.', '.', 0);
		e->a = t->hrptr; e->b = pm(750) ? 1 : 0; e->c = (uint32_t)mode;
		adv(c, 300, 1500);
		hrt_start_ev(c, t->hrptr, HF_WAKEUP, exp, soft, mode, 'd', '.', 1);
		hrt_add(c, t->hrptr, HF_WAKEUP, soft + ur(0, slack), ti, 0);
		t->hrt_armed = 1;
		t->sc = sc; t->scret = sc == SC_FUTEX_WAIT ? -110 : 0;
		adv(c, 500, 2500);
		sched_switch(c, PS_S);
		break;
	}
	case A_TSLEEP: {
		static const uint16_t to[] = { 1, 1, 2, 4, 10, 25, 25, 100, 250, 250, 1000, 15000 };
		int sc = pm(400) ? SC_EPOLL_WAIT : pm(500) ? SC_POLL : SC_PPOLL;
		sys_enter(c, sc, 0, t->fd);
		ev_t *e = emit(c, EV_TIMER_INIT, '.', '.', 0); e->a = t->tmrptr;
		adv(c, 200, 1000);
		/* children only wait briefly: nothing else wakes them */
		arm_timer(c, TF_PROCESS_TIMEOUT, t->tmrptr, to[rn(t->kind == TK_CHILD ? 5 : 12)], ti, -1,
			  TFL_NONE, 'd', '.', 1);
		t->tmr_armed = 1;
		t->sc = sc; t->scret = -1000;
		sched_switch(c, PS_S);
		break;
	}
	case A_TIMER: {
		static const int fns[] = { TF_TCP_WRITE, TF_TCP_DELACK, TF_TCP_KEEPALIVE,
					   TF_TCP_ORPHAN, TF_NEIGH, TF_BLK_TIMEOUT };
		int fn = fns[rn(6)];
		uint64_t to = fn == TF_TCP_WRITE ? ur(50, 300) : fn == TF_TCP_DELACK ? ur(1, 10) :
			      fn == TF_TCP_KEEPALIVE ? 18000 : fn == TF_TCP_ORPHAN ? 25 :
			      fn == TF_NEIGH ? ur(200, 1500) : 7500;
		char irqf = (fn <= TF_TCP_ORPHAN) ? 'b' : 'd';
		uint32_t len = 40 + rn(1400);
		sys_enter(c, SC_SENDTO, len, t->fd);
		kmem(c, KS_SKB, '.', '.', 0);
		kmem(c, KS_SKB_DATA, '.', '.', 0);
		arm_timer(c, fn, c->misc_tptr[fn], to, -1, -1, TF_DEFFL[fn], irqf, '.', 2);
		sys_exit(c, t, SC_SENDTO, len);
		break;
	}
	case A_QWORK: {
		static const int defs[] = { WD_TTY, WD_TTY, WD_WB, WD_LRU, WD_FREE, WD_VSOCK, WD_DRM };
		int d = defs[rn(7)];
		int sc = d == WD_TTY || d == WD_WB ? SC_WRITE : d == WD_LRU ? SC_MADVISE :
			 d == WD_FREE ? SC_MUNMAP : d == WD_VSOCK ? SC_SENDMSG : SC_IOCTL;
		uint32_t len = d == WD_TTY ? 1 + rn(80) : d == WD_WB ? 4096 * (1 + rn(3)) :
			       d == WD_LRU || d == WD_FREE ? 4096 * (1 + rn(256)) : d == WD_VSOCK ? 44 : 0;
		sys_enter(c, sc, len, t->fd);
		if (d == WD_WB) fwrite_pages(c, t, (int)(len / 4096));
		else if (d == WD_FREE || d == WD_LRU) zap(c, t, 1 + (int)rn(6), 1);
		else if (d == WD_VSOCK) kmem(c, KS_SKB, '.', '.', 0);
		queue_work_def(c, d, 'd', '.', 1);
		sys_exit(c, t, sc, len);
		break;
	}
	case A_BPRINT:
		sys_enter(c, SC_IOCTL, 0, t->fd);
		bprint(c, pm(500) ? BP_POLL : BP_NVME, '.', '.', 1);
		adv(c, 500, 3000);
		sys_exit(c, t, SC_IOCTL, 0);
		break;
	case A_YIELD:
		sys_enter(c, SC_YIELD, 0, 0);
		t->sc = SC_YIELD; t->scret = 0;
		sched_switch(c, PS_R);
		if (c->cur == ti && t->sc >= 0) { t->sc = -1; sys_exit(c, t, SC_YIELD, 0); }
		break;
	case A_SYSCALL: {
		int n = 1 + (int)rn(4);
		for (int k = 0; k < n; k++) quick_sys(c, t);
		break;
	}
	case A_FAULT: {
		int n = 1 + (int)rn(5);
		for (int k = 0; k < n; k++) fault(c, t);
		break;
	}
	case A_MMAP:
		if (pm(500)) {
			uint32_t len = 4096 << rn(9);
			sys_enter(c, SC_MMAP, len, 0);
			kmem(c, KS_VMA_ALLOC, '.', '.', 0);
			kmem(c, KS_MAPLE, '.', '.', 0);
			if (pm(200)) kmem(c, KS_MAPLE_DUP, '.', '.', 0);
			sys_exit(c, t, SC_MMAP, len);
		} else {
			uint32_t len = 4096 << rn(9);
			sys_enter(c, SC_MUNMAP, len, 0);
			if (pm(200) && NCPU > 1) ipi(c, (c->id + 1 + (int)rn((uint32_t)NCPU - 1)) % NCPU, 1, '.', 2);
			zap(c, t, 1 + (int)rn(8), 1);
			int nv = 1 + (int)rn(3);
			for (int v = 0; v < nv; v++) {
				kmem(c, KS_VMA_UNMAP, '.', '.', 0);
				kmem(c, KS_VMA_KFREE, '.', '.', 0);
				if (pm(400)) kmem(c, KS_AVC_UNLINK2, '.', '.', 0);
				if (pm(200)) kmem(c, KS_AV_PUT, '.', '.', 0);
			}
			sys_exit(c, t, SC_MUNMAP, len);
		}
		break;
	case A_FWRITE: {
		int n = 1 + (int)rn(4);
		uint32_t len = 4096 * (uint32_t)n - (pm(500) ? rn(4000) : 0);
		int sc = pm(700) ? SC_WRITE : SC_PWRITE;
		sys_enter(c, sc, len, t->fd);
		fwrite_pages(c, t, n);
		sys_exit(c, t, sc, len);
		break;
	}
	case A_SPAWN:
		if (!spawn(c, ti)) quick_sys(c, t);
		break;
	case A_SIGNAL:
		send_signal(c, ti);
		break;
	}
}

static void user_act(cpu_t *c, int ti)
{
	task_t *t = &T[ti];
	const uint16_t *w = t->kind == TK_ATRACE ? W_ATRACE : W_USER;
	unsigned tot = 0;
	for (int i = 0; i < A_N; i++) tot += w[i];
	unsigned r = rn(tot);
	int a = 0;
	while (r >= w[a]) r -= w[a++];
	switch (a) {
	case A_MARK:
		mark(c, t);
		adv(c, 500, 3000);
		break;
	case A_WAKE: {
		int o = pick_sleeper(c, 0, 0);
		if (o >= 0 && o != ti) wake_task(c, o, '.', 3);
		if (pm(280)) sched_switch(c, PS_S);         /* synchronous: wait for the reply */
		break;
	}
	case A_SLEEP:
		sched_switch(c, PS_S);
		break;
	case A_SLEEPD:
		if (pm(350)) queue_work_def(c, WD_BLKRUN, 'd', '.', 1);
		else if (pm(200)) { bprint(c, BP_NVME, '.', '.', 1); adv(c, 500, 2000); }
		sched_switch(c, PS_D);
		break;
	case A_HRSLEEP: {
		uint64_t m = mono(c->now), d = 50000 + rexp(pm(300) ? 8000000 : 1000000);
		uint64_t slack = t->prio < 100 ? 0 : 50000;
		int mode = pm(300) ? HM_ABS : HM_REL;
		uint64_t soft = m + d, exp = soft + slack;
		hrt_start_ev(c, t->hrptr, HF_WAKEUP, exp, soft, mode, 'd', '.', 1);
		hrt_add(c, t->hrptr, HF_WAKEUP, soft + ur(0, slack), ti, 0);
		adv(c, 500, 2500);
		sched_switch(c, PS_S);
		break;
	}
	case A_TSLEEP: {
		static const uint16_t to[] = { 1, 1, 2, 4, 10, 25, 25, 100, 250, 250, 1000, 15000 };
		arm_timer(c, TF_PROCESS_TIMEOUT, t->tmrptr, to[rn(12)], ti, -1, TFL_NONE, 'd', '.', 1);
		sched_switch(c, PS_S);
		break;
	}
	case A_TIMER: {
		static const int fns[] = { TF_TCP_WRITE, TF_TCP_DELACK, TF_TCP_KEEPALIVE,
					   TF_TCP_ORPHAN, TF_NEIGH, TF_BLK_TIMEOUT };
		int fn = fns[rn(6)];
		uint64_t to = fn == TF_TCP_WRITE ? ur(50, 300) : fn == TF_TCP_DELACK ? ur(1, 10) :
			      fn == TF_TCP_KEEPALIVE ? 18000 : fn == TF_TCP_ORPHAN ? 25 :
			      fn == TF_NEIGH ? ur(200, 1500) : 7500;
		char irqf = (fn <= TF_TCP_ORPHAN) ? 'b' : 'd';
		arm_timer(c, fn, c->misc_tptr[fn], to, -1, -1, TF_DEFFL[fn], irqf, '.', 2);
		break;
	}
	case A_QWORK: {
		static const int defs[] = { WD_TTY, WD_TTY, WD_WB, WD_LRU, WD_FREE, WD_VSOCK, WD_DRM };
		queue_work_def(c, defs[rn(7)], 'd', '.', 1);
		break;
	}
	case A_BPRINT:
		bprint(c, pm(500) ? BP_POLL : BP_NVME, '.', '.', 1);
		adv(c, 500, 3000);
		break;
	case A_YIELD:
		sched_switch(c, PS_R);
		break;
	}
}

static void task_act(cpu_t *c)
{
	int ti = c->cur;
	task_t *t = &T[ti];
	switch (t->kind) {
	case TK_IDLE:
		return;
	case TK_KWORKER:
		kworker_act(c, t);
		break;
	case TK_KSOFTIRQD:
		if (c->ksoft) {
			unsigned p = c->ksoft; c->ksoft = 0;
			softirqs(c, p, 1);
		}
		sched_switch(c, PS_S);
		break;
	case TK_RCU:
		adv(c, 2000, 15000);
		if (pm(650)) {
			if (REAL) {
				ev_t *e = emit(c, EV_TIMER_INIT, '.', '.', 0); e->a = t->tmrptr;
				adv(c, 100, 600);
				t->tmr_armed = 1;
			}
			arm_timer(c, TF_PROCESS_TIMEOUT, t->tmrptr, ur(1, 3), ti, -1, TFL_NONE, 'd', '.', 1);
		}
		sched_switch(c, PS_I);
		break;
	case TK_MIGRATION:
		adv(c, 1000, 8000);
		sched_switch(c, PS_S);
		break;
	case TK_JBD2:
		adv(c, 5000, 40000);
		if (pm(400)) {
			arm_timer(c, TF_COMMIT, t->tmrptr, 1250, ti, -1, TFL_NONE, 'd', '.', 1);
			sched_switch(c, PS_S);
		} else {
			if (pm(500)) queue_work_def(c, WD_BLKRUN, 'd', '.', 1);
			if (REAL) {
				/* the commit: journal blocks, then the commit block it waits for */
				if (pm(500)) blk_submit(c, ti, 0, RW_WS, 8 * (1 + rn(6)), -1);
				if (!blk_submit(c, ti, 0, pm(500) ? RW_WS : RW_FWS, 8, ti)) {
					arm_timer(c, TF_COMMIT, t->tmrptr, 1250, ti, -1, TFL_NONE, 'd', '.', 1);
					sched_switch(c, PS_S);
					break;
				}
			}
			sched_switch(c, PS_D);
		}
		break;
	case TK_IRQT:
		adv(c, 2000, 15000);
		if (pm(150)) { bprint(c, BP_IRQ, '.', '.', 1); adv(c, 500, 2000); }
		sched_switch(c, PS_S);
		break;
	default:
		if (REAL) user_act_real(c, ti);
		else user_act(c, ti);
		break;
	}
	if (c->need_resched && !is_idle(c)) sched_switch(c, PS_RP);
}

/* ------------------------------------------------------------------ */
/* per-CPU planning and bursts                                         */

static void plan(cpu_t *c)
{
	uint64_t best = NOTYET;
	int kind = K_NONE;
	for (int i = 0; i < c->nipi; i++)
		if (c->ipit[i] < best) { best = c->ipit[i]; kind = K_IPI; }
	if (is_idle(c))
		for (int i = 0; i < c->nrq; i++) {
			uint64_t s = T[c->rq[i]].since;
			if (s == NOTYET) continue;
			uint64_t t = (s > c->now ? s : c->now) + ur(800, 3000);
			if (t < best) { best = t; kind = K_SCHED; }
		}
	uint64_t he = c->tick_exp;
	for (int i = 0; i < c->nhrt; ) {
		hrt_t *h = &c->hrt[i];
		if (hrt_stale(h)) { c->hrt[i] = c->hrt[--c->nhrt]; continue; }
		if (!h->raised && h->exp < he) he = h->exp;
		i++;
	}
	uint64_t th = m2ts(he) + (is_idle(c) ? ur(2000, 30000) : ur(500, 6000));
	if (th <= c->now) th = c->now + ur(300, 1500);
	if (th < best) { best = th; kind = K_HRT; }
	if (c->irq_rate) {
		uint64_t ti = c->now + 1000 + rexp(1000000000ULL / c->irq_rate);
		if (ti < best) { best = ti; kind = K_IRQ; }
	}
	if (!is_idle(c)) {
		uint64_t ta = c->now + 500 + rexp(T[c->cur].mean_ns);
		if (ta < best) { best = ta; kind = K_ACT; }
	}
	if (best < c->tail) best = c->tail;
	c->next_time = best;
	c->next_kind = kind;
}

static void burst(cpu_t *c)
{
	if (c->next_time > c->now) c->now = c->next_time;
	switch (c->next_kind) {
	case K_IPI:   do_ipi(c); break;
	case K_SCHED: if (is_idle(c)) sched_switch(c, PS_R); break;
	case K_HRT:   hrtimer_irq(c); break;
	case K_IRQ:   device_irq(c); break;
	case K_ACT:   if (!is_idle(c)) task_act(c); break;
	}
	/* IPIs that arrived while this burst ran */
	if (c->nipi) {
		int due = 0;
		for (int i = 0; i < c->nipi; i++) if (c->ipit[i] <= c->now) due = 1;
		if (due) do_ipi(c);
	}
	plan(c);
}

/* ------------------------------------------------------------------ */
/* formatting                                                          */

#define PUTL(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static inline char *puts_(char *p, const char *s)
{
	size_t n = strlen(s); memcpy(p, s, n); return p + n;
}

static inline char *putu(char *p, uint64_t v)
{
	char tmp[24]; int n = 0;
	do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
	while (n) *p++ = tmp[--n];
	return p;
}

static inline char *puti(char *p, int64_t v)
{
	if (v < 0) { *p++ = '-'; return putu(p, (uint64_t)-v); }
	return putu(p, (uint64_t)v);
}

static inline char *putptr(char *p, uint32_t h)
{
	static const char hx[] = "0123456789abcdef";
	memcpy(p, "00000000", 8); p += 8;
	for (int i = 7; i >= 0; i--) { p[i] = hx[h & 15]; h >>= 4; }
	return p + 8;
}

static inline char *put3(char *p, unsigned v)
{
	p[0] = (char)('0' + v / 100 % 10); p[1] = (char)('0' + v / 10 % 10); p[2] = (char)('0' + v % 10);
	return p + 3;
}

static inline char *putx(char *p, uint64_t v)
{
	static const char hx[] = "0123456789abcdef";
	char tmp[16]; int n = 0;
	do { tmp[n++] = hx[v & 15]; v >>= 4; } while (v);
	while (n) *p++ = tmp[--n];
	return p;
}

/* sys_enter's six arguments from the syscall's template (see SC[]) */
static char *sc_args(char *p, const ev_t *e)
{
	const task_t *t = &T[e->task];
	const char *s = SC[e->a].args;
	uint64_t z = e->x;
	for (;;) {
		uint64_t v = 0;
		int gen = 1;
		z = z * 6364136223846793005ULL + 1442695040888963407ULL;
		switch (*s) {
		case 'F': v = e->c; break;
		case 'N': v = e->b; break;
		case 'S': v = t->stk - ((z >> 44) & 0xfff) * 16; break;
		case 'H': v = t->heap + ((z >> 40) & 0xffff) * 16; break;
		case 'L': v = t->lib + ((z >> 36) & 0xfffff) * 8; break;
		case 'R': v = 1 + ((z >> 58) & 0x1f); break;
		default: gen = 0; break;
		}
		if (gen) { p = putx(p, v); s++; }
		else while (*s && *s != ',') *p++ = *s++;
		if (!*s) break;
		*p++ = ','; *p++ = ' '; s++;
	}
	return p;
}

/* the payload of a print event (markers and text) */
static char *mark_text(char *p, const ev_t *e)
{
	if (e->type == EV_PTEXT) {
		uint64_t us = e->x / 1000;
		if (e->a == PT_CLOCK_REAL) {
			p = PUTL(p, "trace_event_clock_sync: realtime_ts=");
			p = putu(p, 1795940000000ULL + us / 1000);
		} else {
			p = PUTL(p, "trace_event_clock_sync: parent_ts=");
			p = putu(p, us / 1000000);
			*p++ = '.';
			unsigned f = (unsigned)(us % 1000000);
			for (int i = 5; i >= 0; i--) { p[i] = (char)('0' + f % 10); f /= 10; }
			p += 6;
		}
		return p;
	}
	if (e->a == 'e') { *p++ = 'E'; return p; }
	*p++ = (char)e->a; *p++ = '|';
	p = putu(p, e->b);
	if (e->a != 'E') { *p++ = '|'; p = puts_(p, MNAME[e->c]); }
	if (e->a == 'C' || e->a == 'S' || e->a == 'F') { *p++ = '|'; p = putu(p, e->d); }
	return p;
}

static const char *const WBREASON[] = { "background", "vmscan", "sync", "periodic" };

static char *fmt_wb(char *p, const ev_t *e)
{
	int kind = (int)(e->a & 0xff), dev = (int)(e->a >> 8);
	static const char *const name[] = { "writeback_dirty_folio: bdi ",
		"writeback_mark_inode_dirty: bdi ", "writeback_dirty_inode_start: bdi ",
		"writeback_dirty_inode: bdi ", "track_foreign_dirty: bdi ", "writeback_start: bdi ",
		"writeback_queue_io: bdi ", "writeback_single_inode_start: bdi ",
		"writeback_single_inode: bdi ", "writeback_write_inode_start: bdi ",
		"writeback_write_inode: bdi ", "writeback_written: bdi ", "writeback_pages_written: ",
		"sb_mark_inode_writeback: dev ", "sb_clear_inode_writeback: dev ",
		"writeback_dirty_inode_enqueue: dev ", "global_dirty_state: " };
	p = puts_(p, name[kind]);
	switch (kind) {
	case WBE_PAGES:
		return putu(p, e->y);
	case WBE_GLOBAL:
		p = PUTL(p, "dirty="); p = putu(p, e->x);
		p = PUTL(p, " writeback="); p = putu(p, e->c);
		p = PUTL(p, " bg_thresh=608623 thresh=1218734 limit=1218734 dirtied=");
		p = putu(p, e->y + e->x);
		p = PUTL(p, " written="); p = putu(p, e->y);
		return p;
	case WBE_SB_MARK:
	case WBE_SB_CLEAR:
	case WBE_ENQUEUE:
		p = puts_(p, BDEV[dev].dev);
		p = PUTL(p, " ino "); p = putu(p, e->x);
		p = PUTL(p, " dirtied "); p = putu(p, e->y);
		p = PUTL(p, " state "); p = puts_(p, ISTATE[e->b]);
		p = PUTL(p, " mode 0100644");
		return p;
	}
	p = puts_(p, BDEV[dev].bdi);
	if (kind == WBE_FOREIGN) p = PUTL(p, "[9]");
	*p++ = ':';
	switch (kind) {
	case WBE_START:
	case WBE_WRITTEN:
		p = PUTL(p, " sb_dev 0:0 nr_pages="); p = putu(p, e->y);
		p = PUTL(p, " sync_mode=0 kupdate="); *p++ = e->d == 3 ? '1' : '0';
		p = PUTL(p, " range_cyclic=1 background="); *p++ = e->d == 0 ? '1' : '0';
		p = PUTL(p, " reason="); p = puts_(p, WBREASON[e->d]);
		p = PUTL(p, " cgroup_ino=1");
		return p;
	case WBE_QUEUE_IO:
		p = PUTL(p, " older="); p = putu(p, e->x);
		p = PUTL(p, " age="); p = putu(p, e->y);
		p = PUTL(p, " enqueue="); p = putu(p, e->d & 0xff);
		p = PUTL(p, " reason="); p = puts_(p, WBREASON[e->d >> 8]);
		p = PUTL(p, " cgroup_ino=1");
		return p;
	}
	p = PUTL(p, " ino="); p = putu(p, e->x);
	switch (kind) {
	case WBE_DIRTY_FOLIO:
		p = PUTL(p, " index="); p = putu(p, e->y);
		break;
	case WBE_FOREIGN:
		p = PUTL(p, " memcg_id=1 cgroup_ino=1 page_cgroup_ino="); p = putu(p, e->y);
		break;
	case WBE_MARK_DIRTY:
	case WBE_DIRTY_START:
	case WBE_DIRTY:
		p = PUTL(p, " state="); p = puts_(p, ISTATE[e->b]);
		p = PUTL(p, " flags="); p = puts_(p, ISTATE[e->b]);
		break;
	case WBE_SINGLE_START:
	case WBE_SINGLE:
		p = PUTL(p, " state="); p = puts_(p, ISTATE[e->b]);
		p = PUTL(p, " dirtied_when="); p = putu(p, e->y);
		p = PUTL(p, " age="); p = putu(p, e->d / 1000);
		p = PUTL(p, " index="); p = putu(p, e->c);
		p = PUTL(p, " to_write=1024 wrote="); p = putu(p, e->c);
		p = PUTL(p, " cgroup_ino=1");
		break;
	default:                             /* write_inode(_start) */
		p = PUTL(p, " sync_mode=0 cgroup_ino=1");
		break;
	}
	return p;
}

static char *fmt_proc(char *p, const ev_t *e)
{
	const task_t *a = &T[e->b], *b;
	switch (e->a) {
	case PE_FORK:
		b = &T[e->c];
		p = PUTL(p, "sched_process_fork: ");
		memcpy(p, a->wk, (size_t)a->wkpl); p += a->wkpl;
		p = PUTL(p, " child_comm="); p = puts_(p, b->comm);
		p = PUTL(p, " child_pid="); p = putu(p, (uint64_t)b->pid);
		break;
	case PE_NEWTASK:
		p = PUTL(p, "task_newtask: pid="); p = putu(p, (uint64_t)a->pid);
		p = PUTL(p, " comm="); p = puts_(p, a->comm);
		p = PUTL(p, " clone_flags=1200000 oom_score_adj=0");
		break;
	case PE_PREP_EXEC:
		p = PUTL(p, "sched_prepare_exec: interp="); p = puts_(p, EXE[e->d].path);
		p = PUTL(p, " filename="); p = puts_(p, EXE[e->d].path);
		p = PUTL(p, " pid="); p = putu(p, (uint64_t)a->pid);
		p = PUTL(p, " comm="); p = puts_(p, a->comm);
		break;
	case PE_RENAME:
		b = &T[e->c];
		p = PUTL(p, "task_rename: pid="); p = putu(p, (uint64_t)a->pid);
		p = PUTL(p, " oldcomm="); p = puts_(p, a->comm);
		p = PUTL(p, " newcomm="); p = puts_(p, EXE[b->exe].comm);
		p = PUTL(p, " oom_score_adj=0");
		break;
	case PE_EXEC:
		p = PUTL(p, "sched_process_exec: filename="); p = puts_(p, EXE[e->d].path);
		p = PUTL(p, " pid="); p = putu(p, (uint64_t)a->pid);
		p = PUTL(p, " old_pid="); p = putu(p, (uint64_t)a->pid);
		break;
	case PE_EXIT:
		p = PUTL(p, "sched_process_exit: ");
		memcpy(p, a->wk, (size_t)a->wkl); p += a->wkl;
		p = PUTL(p, " group_dead=true");
		break;
	case PE_WAIT:
		p = PUTL(p, "sched_process_wait: comm="); p = puts_(p, a->comm);
		p = PUTL(p, " pid=0 prio="); p = putu(p, (uint64_t)a->prio);
		break;
	default:
		p = PUTL(p, "sched_process_free: ");
		memcpy(p, a->wk, (size_t)a->wkl); p += a->wkl;
		break;
	}
	return p;
}

/* kmem events: the text before and after the pointer, made once */
static char KPRE[KS_N][80], KSUF[KS_N][160];
static size_t KPREL[KS_N], KSUFL[KS_N];

static void kmem_strings(void)
{
	static const char *const ev[] = { "kmem_cache_alloc", "kmem_cache_free", "kmalloc", "kfree" };
	for (int i = 0; i < KS_N; i++) {
		int k = KS[i].kind;
		KPREL[i] = (size_t)snprintf(KPRE[i], sizeof KPRE[i], "%s: call_site=%s ptr=", ev[k], KS[i].site);
		switch (k) {
		case KM_CALLOC:
			KSUFL[i] = (size_t)snprintf(KSUF[i], sizeof KSUF[i],
				" name=%s bytes_req=%u bytes_alloc=%u gfp_flags=%s node=%d accounted=%s",
				KCNAME[KS[i].cache], KS[i].req, KS[i].alloc, KS[i].gfp, KS[i].node,
				KS[i].acct ? "true" : "false");
			break;
		case KM_CFREE:
			KSUFL[i] = (size_t)snprintf(KSUF[i], sizeof KSUF[i], " name=%s", KCNAME[KS[i].cache]);
			break;
		case KM_KMALLOC:
			KSUFL[i] = (size_t)snprintf(KSUF[i], sizeof KSUF[i],
				" bytes_req=%u bytes_alloc=%u gfp_flags=%s node=%d accounted=%s",
				KS[i].req, KS[i].alloc, KS[i].gfp, KS[i].node, KS[i].acct ? "true" : "false");
			break;
		default:
			KSUFL[i] = 0;
			break;
		}
	}
}

static char *fmt_ev(char *p, const ev_t *e, const cpu_t *c)
{
	const task_t *ct = &T[e->task];
	memcpy(p, ct->col, (size_t)ct->coll); p += ct->coll;
	memcpy(p, c->cpus, 6); p += 6;
	memcpy(p, e->fl, 5); p += 5;
	/* " %5llu.%06lu: " */
	uint64_t us = e->ts / 1000, sec = us / 1000000;
	unsigned frac = (unsigned)(us % 1000000);
	*p++ = ' ';
	{
		char tmp[24]; int n = 0; uint64_t v = sec;
		do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
		for (int k = n; k < 5; k++) *p++ = ' ';
		while (n) *p++ = tmp[--n];
	}
	*p++ = '.';
	for (int i = 5; i >= 0; i--) { p[i] = (char)('0' + frac % 10); frac /= 10; }
	p += 6;
	*p++ = ':'; *p++ = ' ';

	switch (e->type) {
	case EV_SWITCH: {
		const task_t *a = &T[e->a], *b = &T[e->c];
		p = PUTL(p, "sched_switch: ");
		memcpy(p, a->prv, (size_t)a->prvl); p += a->prvl;
		p = PUTL(p, " prev_state=");
		p = puts_(p, PSTATE[e->b]);
		p = PUTL(p, " ==> ");
		memcpy(p, b->nxt, (size_t)b->nxtl); p += b->nxtl;
		break;
	}
	case EV_WAKING:
	case EV_WAKEUP: {
		const task_t *a = &T[e->a];
		if (e->type == EV_WAKING) p = PUTL(p, "sched_waking: ");
		else p = PUTL(p, "sched_wakeup: ");
		memcpy(p, a->wk, (size_t)a->wkl); p += a->wkl;
		p = PUTL(p, " target_cpu=");
		p = put3(p, e->b);
		break;
	}
	case EV_IRQ_ENTRY:
		p = PUTL(p, "irq_handler_entry: irq=");
		p = putu(p, (uint64_t)IRQS[e->a].irq);
		p = PUTL(p, " name=");
		p = puts_(p, IRQS[e->a].name);
		break;
	case EV_IRQ_EXIT:
		p = PUTL(p, "irq_handler_exit: irq=");
		p = putu(p, (uint64_t)IRQS[e->a].irq);
		if (e->b) p = PUTL(p, " ret=handled"); else p = PUTL(p, " ret=unhandled");
		break;
	case EV_SI_RAISE:
	case EV_SI_ENTRY:
	case EV_SI_EXIT:
		if (e->type == EV_SI_RAISE) p = PUTL(p, "softirq_raise: vec=");
		else if (e->type == EV_SI_ENTRY) p = PUTL(p, "softirq_entry: vec=");
		else p = PUTL(p, "softirq_exit: vec=");
		*p++ = (char)('0' + e->a);
		p = PUTL(p, " [action=");
		p = puts_(p, VECNAME[e->a]);
		*p++ = ']';
		break;
	case EV_WQ_QUEUE: {
		const work_t *w = &W[e->a];
		p = PUTL(p, "workqueue_queue_work: work struct=");
		p = putptr(p, w->ptr);
		p = PUTL(p, " function=");
		p = puts_(p, WDEF[w->def].fn);
		p = PUTL(p, " workqueue=");
		p = puts_(p, WDEF[w->def].wq);
		p = PUTL(p, " req_cpu=");
		p = puti(p, (int32_t)e->b);
		p = PUTL(p, " cpu=");
		p = puti(p, (int32_t)e->c);
		break;
	}
	case EV_WQ_ACT: {
		const work_t *w = &W[e->a];
		p = PUTL(p, "workqueue_activate_work: work struct ");
		p = putptr(p, w->ptr);
		if (!LEGACY) {
			p = PUTL(p, " function=");
			p = puts_(p, WDEF[w->def].fn);
			*p++ = ' ';
		}
		break;
	}
	case EV_WQ_START:
	case EV_WQ_END: {
		const work_t *w = &W[e->a];
		if (e->type == EV_WQ_START) p = PUTL(p, "workqueue_execute_start: work struct ");
		else p = PUTL(p, "workqueue_execute_end: work struct ");
		p = putptr(p, w->ptr);
		p = PUTL(p, ": function ");
		p = puts_(p, WDEF[w->def].fn);
		break;
	}
	case EV_HRT_START:
		p = PUTL(p, "hrtimer_start: hrtimer=");
		p = putptr(p, e->a);
		p = PUTL(p, " function=");
		p = puts_(p, HFNAME[e->b]);
		p = PUTL(p, " expires=");
		p = putu(p, e->x);
		p = PUTL(p, " softexpires=");
		p = putu(p, e->y);
		p = PUTL(p, " mode=");
		p = puts_(p, HMODE[e->c]);
		if (!LEGACY) { p = PUTL(p, " was_armed="); *p++ = (char)('0' + e->d); }
		break;
	case EV_HRT_ENTRY:
		p = PUTL(p, "hrtimer_expire_entry: hrtimer=");
		p = putptr(p, e->a);
		p = PUTL(p, " function=");
		p = puts_(p, HFNAME[e->b]);
		p = PUTL(p, " now=");
		p = putu(p, e->x);
		break;
	case EV_HRT_EXIT:
		p = PUTL(p, "hrtimer_expire_exit: hrtimer=");
		p = putptr(p, e->a);
		break;
	case EV_TIMER_START:
		p = PUTL(p, "timer_start: timer=");
		p = putptr(p, e->a);
		p = PUTL(p, " function=");
		p = puts_(p, TFNAME[e->b]);
		p = PUTL(p, " expires=");
		p = putu(p, e->x);
		p = PUTL(p, " [timeout=");
		p = putu(p, e->c);
		p = PUTL(p, "] bucket_expiry=");
		p = putu(p, e->y);
		p = PUTL(p, " cpu=");
		p = putu(p, (uint64_t)c->id);
		p = PUTL(p, " idx=");
		p = putu(p, e->d & 0xffff);
		p = PUTL(p, " flags=");
		p = puts_(p, TFLAGS[e->d >> 16]);
		break;
	case EV_MARK:
	case EV_PTEXT:
		p = PUTL(p, "tracing_mark_write: ");
		p = mark_text(p, e);
		break;
	case EV_RCU:
		p = PUTL(p, "rcu_utilization: ");
		p = puts_(p, RCUS[e->a]);
		break;
	case EV_STAT_RT: {
		const task_t *a = &T[e->a];
		p = PUTL(p, "sched_stat_runtime: ");
		memcpy(p, a->wk, (size_t)a->wkpl); p += a->wkpl;
		p = PUTL(p, " runtime=");
		p = putu(p, e->x);
		p = PUTL(p, " [ns]");
		break;
	}
	case EV_SYS_ENTER:
		p = PUTL(p, "sys_enter: NR ");
		p = puti(p, SC[e->a].nr);
		*p++ = ' '; *p++ = '(';
		p = sc_args(p, e);
		*p++ = ')';
		break;
	case EV_SYS_EXIT:
		p = PUTL(p, "sys_exit: NR ");
		p = puti(p, (int32_t)e->a);
		p = PUTL(p, " = ");
		p = puti(p, (int64_t)e->x);
		break;
	case EV_KMEM:
		memcpy(p, KPRE[e->a], KPREL[e->a]); p += KPREL[e->a];
		p = putptr(p, e->b);
		memcpy(p, KSUF[e->a], KSUFL[e->a]); p += KSUFL[e->a];
		break;
	case EV_PAGE:
		switch (e->a) {
		case PK_ALLOC:   p = PUTL(p, "mm_page_alloc: page="); break;
		case PK_FREE:    p = PUTL(p, "mm_page_free: page="); break;
		case PK_BATCHED: p = PUTL(p, "mm_page_free_batched: page="); break;
		default:         p = PUTL(p, "mm_page_alloc_zone_locked: page="); break;
		}
		p = putptr(p, e->b);
		p = PUTL(p, " pfn=0x");
		p = putx(p, e->x);
		p = PUTL(p, " order=0");
		if (e->a == PK_ALLOC) {
			p = PUTL(p, " migratetype=");
			*p++ = (char)('0' + e->d);
			p = PUTL(p, " gfp_flags=");
			p = puts_(p, PGFP[e->c].gfp);
		} else if (e->a == PK_ZONE) {
			p = PUTL(p, " migratetype=");
			*p++ = (char)('0' + e->d);
			p = PUTL(p, " percpu_refill=1");
		}
		break;
	case EV_RSS:
		p = PUTL(p, "rss_stat: mm_id=");
		p = putu(p, e->a);
		p = PUTL(p, " curr=");
		*p++ = (char)('0' + e->b);
		if (e->c) p = PUTL(p, " type=MM_ANONPAGES size=");
		else p = PUTL(p, " type=MM_FILEPAGES size=");
		p = putu(p, e->x);
		*p++ = 'B';
		break;
	case EV_HRT_SETUP:
		p = PUTL(p, "hrtimer_setup: hrtimer=");
		p = putptr(p, e->a);
		if (e->b) p = PUTL(p, " clockid=CLOCK_MONOTONIC mode=");
		else p = PUTL(p, " clockid=CLOCK_REALTIME mode=");
		p = puts_(p, HMODE[e->c]);
		break;
	case EV_HRT_CANCEL:
		p = PUTL(p, "hrtimer_cancel: hrtimer=");
		p = putptr(p, e->a);
		break;
	case EV_TIMER_INIT:
		p = PUTL(p, "timer_init: timer=");
		p = putptr(p, e->a);
		break;
	case EV_TIMER_CANCEL:
		p = PUTL(p, "timer_cancel: timer=");
		p = putptr(p, e->a);
		break;
	case EV_TIMER_EXP_ENTRY:
		p = PUTL(p, "timer_expire_entry: timer=");
		p = putptr(p, e->a);
		p = PUTL(p, " function=");
		p = puts_(p, TFNAME[e->b]);
		p = PUTL(p, " now=");
		p = putu(p, e->x);
		p = PUTL(p, " baseclk=");
		p = putu(p, e->y);
		break;
	case EV_TIMER_EXP_EXIT:
		p = PUTL(p, "timer_expire_exit: timer=");
		p = putptr(p, e->a);
		break;
	case EV_TICK_STOP:
		p = PUTL(p, "tick_stop: success=1 dependency=NONE");
		break;
	case EV_TBASE_IDLE:
		p = PUTL(p, "timer_base_idle: is_idle=");
		*p++ = (char)('0' + e->a);
		p = PUTL(p, " cpu=");
		p = putu(p, e->b);
		break;
	case EV_IPI:
		p = PUTL(p, "ipi_send_cpu: cpu=");
		p = putu(p, e->a);
		*p++ = ' ';
		p = puts_(p, IPIS[e->b]);
		break;
	case EV_BLK: {
		int dev = (int)(e->b & 0xff);
		const char *rw = RWBS[e->b >> 8];
		const task_t *a = &T[e->d];
		switch (e->a) {
		case BK_QUEUE:    p = PUTL(p, "block_bio_queue: "); break;
		case BK_GETRQ:    p = PUTL(p, "block_getrq: "); break;
		case BK_IOSTART:  p = PUTL(p, "block_io_start: "); break;
		case BK_PLUG:     p = PUTL(p, "block_plug: ["); p = puts_(p, a->comm); *p++ = ']'; goto blk_done;
		case BK_INSERT:   p = PUTL(p, "block_rq_insert: "); break;
		case BK_UNPLUG:   p = PUTL(p, "block_unplug: ["); p = puts_(p, a->comm); p = PUTL(p, "] 1"); goto blk_done;
		case BK_ISSUE:    p = PUTL(p, "block_rq_issue: "); break;
		case BK_COMPLETE: p = PUTL(p, "block_rq_complete: "); break;
		default:          p = PUTL(p, "block_io_done: "); break;
		}
		p = puts_(p, BDEV[dev].dev); *p++ = ' ';
		p = puts_(p, rw); *p++ = ' ';
		switch (e->a) {
		case BK_QUEUE:
		case BK_GETRQ:
			p = putu(p, e->x); p = PUTL(p, " + "); p = putu(p, e->c);
			p = PUTL(p, " ["); p = puts_(p, a->comm); *p++ = ']';
			break;
		case BK_COMPLETE:
			p = PUTL(p, "() "); p = putu(p, e->x); p = PUTL(p, " + "); p = putu(p, e->c);
			p = PUTL(p, " be,0,4 [0]");
			break;
		case BK_IODONE:
			p = PUTL(p, "0 () "); p = putu(p, e->x); p = PUTL(p, " + 0 none,0,0 [");
			p = puts_(p, ct->comm); *p++ = ']';
			break;
		default:
			p = putu(p, (uint64_t)e->c * 512); p = PUTL(p, " () ");
			p = putu(p, e->x); p = PUTL(p, " + "); p = putu(p, e->c);
			p = PUTL(p, " be,0,4 ["); p = puts_(p, a->comm); *p++ = ']';
			break;
		}
	blk_done:
		break;
	}
	case EV_BLKBUF:
		if (e->a & 1) p = PUTL(p, "block_dirty_buffer: ");
		else p = PUTL(p, "block_touch_buffer: ");
		p = puts_(p, BDEV[e->a >> 8].dev);
		p = PUTL(p, " sector=");
		p = putu(p, e->x);
		p = PUTL(p, " size=4096");
		break;
	case EV_WB:
		p = fmt_wb(p, e);
		break;
	case EV_SIGGEN: {
		const task_t *a = &T[e->c];
		p = PUTL(p, "signal_generate: sig=");
		p = putu(p, e->a);
		p = PUTL(p, " errno=0 code=");
		p = putu(p, e->b);
		*p++ = ' ';
		memcpy(p, a->wk, (size_t)a->wkpl); p += a->wkpl;
		p = PUTL(p, " grp=");
		*p++ = (char)('0' + (e->d & 1));
		p = PUTL(p, " res=");
		*p++ = (char)('0' + (e->d >> 1));
		break;
	}
	case EV_SIGDEL:
		p = PUTL(p, "signal_deliver: sig=");
		p = putu(p, e->a);
		p = PUTL(p, " errno=0 code=");
		p = putu(p, e->b);
		p = PUTL(p, " sa_handler=");
		p = putx(p, e->x);
		p = PUTL(p, " sa_flags=");
		p = putx(p, e->y);
		break;
	case EV_PROC:
		p = fmt_proc(p, e);
		break;
	case EV_MIGRATE: {
		const task_t *a = &T[e->a];
		p = PUTL(p, "sched_migrate_task: ");
		memcpy(p, a->wk, (size_t)a->wkl); p += a->wkl;
		p = PUTL(p, " orig_cpu=");
		p = putu(p, e->b);
		p = PUTL(p, " dest_cpu=");
		p = putu(p, e->c);
		break;
	}
	case EV_WAKEUP_NEW: {
		const task_t *a = &T[e->a];
		p = PUTL(p, "sched_wakeup_new: ");
		memcpy(p, a->wk, (size_t)a->wkl); p += a->wkl;
		p = PUTL(p, " target_cpu=");
		p = put3(p, e->b);
		break;
	}
	case EV_BPRINT:
		p = puts_(p, BP[e->a].fn);
		*p++ = ':'; *p++ = ' ';
		p += snprintf(p, 128, BP[e->a].fmt, e->b, e->c, e->d);
		break;
	}
	*p++ = '\n';
	return p;
}

/* ------------------------------------------------------------------ */
/* driver                                                              */

static char *HDR_FMT =
	"# tracer: nop\n"
	"#\n"
	"# entries-in-buffer/entries-written: %" PRIu64 "/%" PRIu64 "   #P:%d\n"
	"#\n"
	"#                                _-----=> irqs-off/BH-disabled\n"
	"#                               / _----=> need-resched\n"
	"#                              | / _---=> hardirq/softirq\n"
	"#                              || / _--=> preempt-depth\n"
	"#                              ||| / _-=> migrate-disable\n"
	"#                              |||| /     delay\n"
	"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	"#              | |         |   |||||     |         |\n";

static int header(char *buf, size_t n, uint64_t entries, int ncpu)
{
	return snprintf(buf, n, HDR_FMT, entries, entries, ncpu);
}

static int OUTFD = -1;
static char *OBUF; static size_t OLEN;
#define OBUF_CAP (8u << 20)

static void flush_out(void)
{
	size_t off = 0;
	while (off < OLEN) {
		ssize_t w = write(OUTFD, OBUF + off, OLEN - off);
		if (w < 0) {
			if (errno == EINTR) continue;
			perror("gen-ftrace: write");
			exit(1);
		}
		off += (size_t)w;
	}
	OLEN = 0;
}

/*
 * One simulation run.  Pass 1 (emit == 0): measure line lengths and, for each
 * possible digit count d of the line count, record the largest line count
 * n[d] such that header(d digits) + body fits in `size`.  Pass 2 (emit == 1):
 * write exactly `lines` lines.
 */
static uint64_t run(uint64_t seed, int ncpu, int emit_out, uint64_t size, uint64_t lines,
		    uint64_t nfit[21], uint64_t bfit[21], int hdrlen[21], uint64_t *body)
{
	setup(seed, ncpu);
	for (int i = 0; i < NCPU; i++) { C[i].qh = C[i].qt = 0; plan(&C[i]); }
	uint64_t nl = 0, bytes = 0;
	int dcur = 20;
	char scratch[1024];
	if (!emit_out) for (int d = 0; d <= 20; d++) nfit[d] = bfit[d] = 0;
	for (;;) {
		if (emit_out && nl >= lines) break;
		int bi = 0; uint64_t bt = NOTYET;
		for (int i = 0; i < NCPU; i++) {
			cpu_t *c = &C[i];
			uint64_t h = c->qh != c->qt ? c->q[c->qh & (QCAP - 1)].ts : c->next_time;
			if (h < bt) { bt = h; bi = i; }
		}
		cpu_t *c = &C[bi];
		if (c->qh == c->qt) { burst(c); continue; }
		ev_t *e = &c->q[c->qh++ & (QCAP - 1)];
		if (emit_out) {
			if (OLEN + 1024 > OBUF_CAP) flush_out();
			char *s = OBUF + OLEN;
			size_t len = (size_t)(fmt_ev(s, e, c) - s);
			OLEN += len; bytes += len;
			nl++;
		} else {
			uint64_t len = (uint64_t)(fmt_ev(scratch, e, c) - scratch), before = bytes;
			bytes += len;
			while (dcur >= 1 && bytes + (uint64_t)hdrlen[dcur] > size) {
				nfit[dcur] = nl; bfit[dcur] = before; dcur--;
			}
			nl++;
			if (dcur < 1) break;
		}
	}
	*body = bytes;
	return nl;
}

static int digits(uint64_t v) { int n = 1; while (v >= 10) { v /= 10; n++; } return n; }

static uint64_t parse_size(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s) return 0;
	uint64_t mul = 1;
	switch (*end) {
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	case 't': case 'T': mul = 1ULL << 40; end++; break;
	}
	if (*end == 'i' || *end == 'I') end++;
	if (*end == 'b' || *end == 'B') end++;
	if (*end) return 0;
	return (uint64_t)v * mul;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: gen-ftrace --size 100M|1G|<bytes> [--seed N] [--cpus N] [--fmt 6.18|6.6]\n"
		"                  [--mix real|sched] [-o FILE]\n"
		"  --size   target output size; K/M/G suffixes are binary (1M = 1048576)\n"
		"  --seed   PRNG seed (default 1); same arguments => byte-identical output\n"
		"  --cpus   number of simulated CPUs, 1..%d (default 4)\n"
		"  --fmt    event formats: 6.18 (default, as on a 6.18 kernel) or 6.6\n"
		"           (no hrtimer_start was_armed, no function in activate_work,\n"
		"           tick_sched_timer, no tick re-arm hrtimer_start)\n"
		"  --mix    real (default): a system-wide capture with the sched, irq, timer,\n"
		"           workqueue, kmem, raw_syscalls, block, writeback, rcu, ipi, signal\n"
		"           and task systems and atrace markers (see bench/README.md);\n"
		"           sched: the mix before issue 9 (sched, irq, timer, workqueue,\n"
		"           markers, trace_printk), byte for byte the files of then\n"
		"  -o FILE  output file (default stdout)\n", MAXCPU);
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t size = 0, seed = 1;
	int ncpu = 4;
	const char *out = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--size") && v) { size = parse_size(v); if (!size) usage(); i++; }
		else if (!strcmp(a, "--seed") && v) { char *e; seed = strtoull(v, &e, 0); if (*e) usage(); i++; }
		else if (!strcmp(a, "--cpus") && v) { ncpu = atoi(v); i++; }
		else if (!strcmp(a, "--fmt") && v) {
			if (!strcmp(v, "6.6")) LEGACY = 1;
			else if (!strcmp(v, "6.18")) LEGACY = 0;
			else usage();
			i++;
		}
		else if (!strcmp(a, "--mix") && v) {
			if (!strcmp(v, "real")) REAL = 1;
			else if (!strcmp(v, "sched")) REAL = 0;
			else usage();
			i++;
		}
		else if (!strcmp(a, "-o") && v) { out = v; i++; }
		else usage();
	}
	if (!size || ncpu < 1 || ncpu > MAXCPU) usage();
	if (LEGACY) HFNAME[HF_TICK] = "tick_sched_timer";
	kmem_strings();

	C = calloc((size_t)ncpu, sizeof *C);
	if (!C) { perror("calloc"); return 1; }
	for (int i = 0; i < ncpu; i++) {
		C[i].q = malloc(QCAP * sizeof(ev_t));
		if (!C[i].q) { perror("malloc"); return 1; }
	}

	/* header length as a function of the line count's digit count */
	int hdrlen[21];
	char hbuf[2048];
	for (int d = 1; d <= 20; d++) {
		uint64_t n = 1; for (int k = 1; k < d; k++) n *= 10;
		hdrlen[d] = header(hbuf, sizeof hbuf, n, ncpu);
	}
	hdrlen[0] = hdrlen[1];

	if (out) {
		OUTFD = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (OUTFD < 0) { perror(out); return 1; }
	} else {
		OUTFD = 1;
	}

	uint64_t nfit[21], bfit[21], body = 0, expect = 0;
	run(seed, ncpu, 0, size, 0, nfit, bfit, hdrlen, &body);
	uint64_t lines = 0;
	int found = 0;
	for (int d = 1; d <= 20 && !found; d++)
		if (digits(nfit[d]) == d) { lines = nfit[d]; expect = bfit[d]; found = 1; }
	for (int d = 1; d <= 20 && !found; d++)
		if (digits(nfit[d]) < d) { lines = nfit[d]; expect = bfit[d]; found = 1; }

	OBUF = malloc(OBUF_CAP);
	if (!OBUF) { perror("malloc"); return 1; }
	OLEN = (size_t)header(OBUF, OBUF_CAP, lines, ncpu);
	run(seed, ncpu, 1, size, lines, nfit, bfit, hdrlen, &body);
	flush_out();
	if (body != expect) {
		fprintf(stderr, "gen-ftrace: internal error: pass 2 wrote %" PRIu64
			" body bytes, pass 1 measured %" PRIu64 "\n", body, expect);
		return 3;
	}
	if (out && close(OUTFD) < 0) { perror(out); return 1; }
	return 0;
}
