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
 * Output is a pure function of the arguments (own xoshiro256** PRNG, integer
 * arithmetic only), so the same arguments give byte-identical output on any
 * machine.  The file is sized by running the simulation twice: pass 1 only
 * measures line lengths to find the line count N that lands at --size
 * (including the header, which prints N), pass 2 writes exactly N lines.
 *
 * Usage: gen-ftrace --size 100M|1G|<bytes> [--seed N] [--cpus 4]
 *                   [--fmt 6.18|6.6] [-o FILE]
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
       EV_HRT_START, EV_HRT_ENTRY, EV_HRT_EXIT, EV_TIMER_START, EV_MARK, EV_BPRINT };

enum { TK_IDLE, TK_KWORKER, TK_KSOFTIRQD, TK_RCU, TK_MIGRATION, TK_JBD2, TK_IRQT,
       TK_USER, TK_ATRACE };
enum { ST_RUN, ST_RUNNABLE, ST_SLEEP };
enum { PS_R, PS_RP, PS_S, PS_D, PS_I };
static const char *const PSTATE[] = { "R", "R+", "S", "D", "I" };

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
};
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

/* user task action kinds */
enum { A_MARK, A_WAKE, A_SLEEP, A_SLEEPD, A_HRSLEEP, A_TSLEEP, A_TIMER, A_QWORK,
       A_BPRINT, A_YIELD, A_N };
static const uint16_t W_ATRACE[A_N] = { 330, 125, 45, 6, 50, 25, 38, 32, 30, 6 };
static const uint16_t W_USER[A_N]   = { 0,   200, 90, 35, 100, 55, 85, 55, 65, 12 };

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
	char cm[16];
	snprintf(cm, sizeof cm, "%s", comm);
	memcpy(t->comm, cm, sizeof cm);
	t->pid = pid; t->tgid = tgid ? tgid : pid; t->prio = prio; t->kind = kind;
	t->bound = bound; t->pool = -1; t->mset = -1; t->mean_ns = mean_us * 1000;
	t->state = ST_SLEEP; t->cpu = bound >= 0 ? bound : 0; t->since = 0; t->pstate = PS_S;
	t->hrptr = hptr(); t->tmrptr = hptr();
	t->coll = snprintf(t->col, sizeof t->col, "%16s-%-7d ", disp ? disp : t->comm, pid);
	t->prvl = snprintf(t->prv, sizeof t->prv, "prev_comm=%s prev_pid=%d prev_prio=%d",
			   cm, pid, prio);
	t->nxtl = snprintf(t->nxt, sizeof t->nxt, "next_comm=%s next_pid=%d next_prio=%d",
			   cm, pid, prio);
	t->wkl = snprintf(t->wk, sizeof t->wk, "comm=%s pid=%d prio=%d", cm, pid, prio);
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

	static const struct {
		const char *comm, *disp; int pid, tgid, prio, kind, mset, net; unsigned mean_us;
	} U[] = {
		{ "systemd",         NULL,    1,    1,    120, TK_USER,   -1,        0, 90 },
		{ "systemd-journal", NULL,    312,  312,  120, TK_USER,   -1,        0, 60 },
		{ "rs:main Q:Reg",   NULL,    866,  862,  120, TK_USER,   -1,        0, 50 },
		{ "surfaceflinger",  NULL,    540,  540,  97,  TK_ATRACE, MS_SF,     0, 22 },
		{ "Binder:543_1",    NULL,    611,  543,  120, TK_ATRACE, MS_BINDER, 0, 28 },
		{ "Binder:543_2",    NULL,    612,  543,  120, TK_ATRACE, MS_BINDER, 0, 28 },
		{ "memfd:sealed-91", NULL,    1541, 1541, 120, TK_ATRACE, MS_MEMFD,  0, 35 },
		{ "Xwayland",        NULL,    1300, 1300, 120, TK_USER,   -1,        0, 45 },
		{ "gmain",           NULL,    1402, 1400, 120, TK_USER,   -1,        1, 70 },
		{ "sshd",            NULL,    1876, 1876, 120, TK_USER,   -1,        1, 60 },
		{ "bash",            NULL,    2223, 2223, 120, TK_USER,   -1,        0, 40 },
		{ "bash",            NULL,    2226, 2226, 120, TK_USER,   -1,        0, 40 },
		{ "Web Content",     NULL,    2801, 2801, 120, TK_ATRACE, MS_WEB,    1, 25 },
		{ "Chrome_IOThread", NULL,    3301, 3280, 112, TK_ATRACE, MS_CHROME, 1, 20 },
		{ "RenderThread",    NULL,    3312, 3280, 110, TK_ATRACE, MS_RENDER, 0, 24 },
		{ "python3",         NULL,    3999, 3999, 120, TK_USER,   -1,        0, 120 },
		{ "sh",              "<...>", 4102, 4102, 120, TK_USER,   -1,        0, 40 },
	};
	for (size_t i = 0; i < sizeof U / sizeof U[0]; i++) {
		int t = add_task(U[i].comm, U[i].disp, U[i].pid, U[i].tgid, U[i].prio, U[i].kind,
				 -1, U[i].mean_us);
		T[t].mset = U[i].mset; T[t].net = U[i].net;
		T[t].cpu = (int)(i % (size_t)NCPU);
		USERS[NUSERS++] = t;
		if (U[i].pid == 2223) T_BASH1 = t;
		if (U[i].pid == 2226) T_BASH2 = t;
		if (U[i].pid == 4102) T_SH = t;
		if (U[i].pid == 540) T_SF = t;
		if (U[i].pid == 3312) T_RENDER = t;
		if (U[i].pid == 1300) T_XWL = t;
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
		T[ti].state = ST_RUN; T[ti].cpu = ci;
		T[C[ci].idle].state = ST_SLEEP;
		C[ci].cur = ti; C[ci].run_start = C[ci].now;
	}
	for (int ci = 0; ci < NCPU; ci++) T[C[ci].idle].state = ST_RUN;
}

/* ------------------------------------------------------------------ */
/* scheduler                                                           */

static void rq_push(cpu_t *c, int t) { if (c->nrq < MAXT) c->rq[c->nrq++] = t; }

static void plan(cpu_t *c);
static void sched_switch(cpu_t *c, int ps);
static void softirqs(cpu_t *c, unsigned pend, int depth);
static void queue_work_def(cpu_t *c, int def, char irqf, char ctx, int depth);
static void bprint(cpu_t *c, int which, char irqf, char ctx, int depth);

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
	int tgt = select_cpu(c, t);
	ev_t *e = emit(c, EV_WAKING, 'd', ctx, depth);
	e->a = (uint32_t)ti; e->b = (uint32_t)tgt;
	t->gen++;
	adv(c, 300, 2500);
	cpu_t *b = &C[tgt];
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
	ev_t *e = emit(c, EV_HRT_START, 'd', '.', 1);
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
	ev_t *e = emit(c, EV_HRT_START, 'd', '.', 1);
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
			p->state = ST_SLEEP; p->since = c->now; p->pstate = ps;
		}
	}
	n->state = ST_RUN; n->cpu = c->id; n->since = c->now;
	c->cur = nx; c->run_start = c->now;
	adv(c, 800, 4000);
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
			if (pm(is_idle(c) ? 200 : 300)) {
				e = emit(c, EV_SI_RAISE, 'd', 'h', c->hd + 1); e->a = V_RCU;
				c->pend |= 1u << V_RCU; adv(c, 100, 800);
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
				if (h.task >= 0) wake_task(c, h.task, 'h', c->hd + 2);
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
			adv(c, 300, 2500);
			if (m.fn == TF_PROCESS_TIMEOUT || m.fn == TF_COMMIT) {
				if (m.task >= 0) wake_task(c, m.task, 's', 4);
			} else if (m.fn == TF_DWT) {
				work_t *w = &W[m.work];
				queue_work_def(c, -1 - m.work, 'd', 's', 2);
				(void)w;
			} else if (pm(550)) {
				uint64_t to = m.fn == TF_TCP_DELACK ? ur(1, 10) : m.fn == TF_NEIGH ? ur(200, 1500) :
					      m.fn == TF_TCP_WRITE ? ur(50, 300) : ur(10, 2000);
				arm_timer(c, m.fn, m.ptr, to, -1, -1, TF_DEFFL[m.fn], 'd', 's', 2);
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
		if (pm(850)) { int t = pick_sleeper(c, 1, 0); if (t >= 0) wake_task(c, t, 's', 4); }
		if (pm(250)) queue_work_def(c, pm(800) ? WD_BLKRUN : WD_BLKREQ, 'd', 's', 2);
		if (pm(120)) queue_work_def(c, WD_EXT4, 'd', 's', 3);
		adv(c, 500, 4000);
		break;
	}
	case V_RCU:
		adv(c, 1500, 15000);
		if (pm(3)) adv(c, 300000, 1200000);
		if (pm(250)) wake_task(c, T_RCU, 's', 4);
		adv(c, 300, 2000);
		break;
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
		if (pm(880)) { e = emit(c, EV_SI_RAISE, 'd', 'h', c->hd + 2); e->a = V_BLOCK; c->pend |= 1u << V_BLOCK; }
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
		if (pm(300)) arm_timer(c, TF_WRITEOUT, c->misc_tptr[TF_WRITEOUT], 750, -1, -1, TFL_D, 'd', '.', 2);
		if (pm(300)) queue_work_def(c, WD_BLKRUN, 'd', '.', 1);
		break;
	case WB_BPRINT:
		if (pm(300)) bprint(c, BP_WORKER, '.', '.', 0);
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

static void mark(cpu_t *c, task_t *t)
{
	ev_t *e = emit(c, EV_MARK, '.', '.', 1);
	e->b = (uint32_t)t->tgid;
	int ms = t->mset;
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
		t->mdepth--;
	} else {
		e->a = 'B';
		e->c = MSET[ms].b0 + rn(MSET[ms].bn);
		t->mstack[t->mdepth++] = (uint8_t)e->c;
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
		if (pm(650)) arm_timer(c, TF_PROCESS_TIMEOUT, t->tmrptr, ur(1, 3), ti, -1, TFL_NONE, 'd', '.', 1);
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
			sched_switch(c, PS_D);
		}
		break;
	case TK_IRQT:
		adv(c, 2000, 15000);
		if (pm(150)) { bprint(c, BP_IRQ, '.', '.', 1); adv(c, 500, 2000); }
		sched_switch(c, PS_S);
		break;
	default:
		user_act(c, ti);
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
		p = PUTL(p, "tracing_mark_write: ");
		*p++ = (char)e->a; *p++ = '|';
		p = putu(p, e->b);
		if (e->a != 'E') { *p++ = '|'; p = puts_(p, MNAME[e->c]); }
		if (e->a == 'C') { *p++ = '|'; p = putu(p, e->d); }
		break;
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
		"usage: gen-ftrace --size 100M|1G|<bytes> [--seed N] [--cpus N] [--fmt 6.18|6.6] [-o FILE]\n"
		"  --size   target output size; K/M/G suffixes are binary (1M = 1048576)\n"
		"  --seed   PRNG seed (default 1); same arguments => byte-identical output\n"
		"  --cpus   number of simulated CPUs, 1..%d (default 4)\n"
		"  --fmt    event formats: 6.18 (default, as on a 6.18 kernel) or 6.6\n"
		"           (no hrtimer_start was_armed, no function in activate_work,\n"
		"           tick_sched_timer, no tick re-arm hrtimer_start)\n"
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
		else if (!strcmp(a, "-o") && v) { out = v; i++; }
		else usage();
	}
	if (!size || ncpu < 1 || ncpu > MAXCPU) usage();
	if (LEGACY) HFNAME[HF_TICK] = "tick_sched_timer";

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
