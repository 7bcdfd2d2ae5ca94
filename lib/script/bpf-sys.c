/* SPDX-License-Identifier: MIT */
/*
 * The BPF back end's side in user space: maps created, programs loaded
 * (the verifier's refusal mapped back to the script line its instruction
 * came from) and attached to their tracepoints, the ring buffer drained,
 * and the kernel's maps read back into the script's own.
 *
 * The bpf(2) and perf_event_open(2) calls are made directly: each is one
 * call with one attribute structure, and the ring buffer's consumer is a
 * dozen lines over two mmap()s; libbpf's object loader (ELF, BTF, CO-RE
 * relocations) is for compiled objects, which trawl does not have.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf-int.h"

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int possible_cpus(void)
{
	int fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
	char buf[256];
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return (int)sysconf(_SC_NPROCESSORS_CONF);
	buf[n] = 0;
	/* "0-3", "0", "0-3,5": the highest number + 1 */
	int hi = 0, v = 0, in = 0;
	for (char *p = buf; *p; p++) {
		if (*p >= '0' && *p <= '9') {
			v = v * 10 + (*p - '0');
			in = 1;
		} else {
			if (in && v > hi)
				hi = v;
			v = in = 0;
		}
	}
	if (in && v > hi)
		hi = v;
	return hi + 1;
}

static int map_create(int type, uint32_t ks, uint32_t vs, uint32_t max,
		      uint32_t flags, const char *name)
{
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.map_type = (uint32_t)type;
	a.key_size = ks;
	a.value_size = vs;
	a.max_entries = max;
	a.map_flags = flags;
	snprintf(a.map_name, sizeof(a.map_name), "%s", name);
	return sys_bpf(BPF_MAP_CREATE, &a);
}

/* A map element call: BPF_MAP_LOOKUP_ELEM, UPDATE_ELEM, DELETE_ELEM or
 * GET_NEXT_KEY (out is the value, or the next key: one field of the
 * attribute). */
static int map_call(int cmd, int fd, const void *key, const void *out)
{
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uint64_t)(uintptr_t)key;
	a.value = (uint64_t)(uintptr_t)out;
	a.flags = BPF_ANY;
	return sys_bpf(cmd, &a);
}

static int map_lookup(int fd, const void *key, void *value)
{
	return map_call(BPF_MAP_LOOKUP_ELEM, fd, key, value);
}

static int map_update(int fd, const void *key, const void *value)
{
	return map_call(BPF_MAP_UPDATE_ELEM, fd, key, value);
}

static int map_next(int fd, const void *key, void *next)
{
	return map_call(BPF_MAP_GET_NEXT_KEY, fd, key, next);
}

static int env_error(trawl_script *s, trawl_error *err, const char *what)
{
	int e = errno;
	const char *hint = e == EPERM || e == EACCES
				   ? " (BPF needs root, or CAP_BPF and "
				     "CAP_PERFMON; --backend ftrace needs "
				     "neither)"
				   : "";
	return tw_error_at(err, TRAWL_EENV, e, s->name, 0, 0, 0, "%s: %s%s",
			   what, strerror(e), hint);
}

/* The script line of the instruction the verifier's log stopped at. */
static void verifier_line(const tw_bpf_prog *p, const char *log, uint32_t *line,
			  uint32_t *col, const char **last)
{
	*line = *col = 0;
	*last = "";
	long insn = -1;
	const char *q = log;
	while (*q) {
		const char *nl = strchr(q, '\n');
		size_t n = nl ? (size_t)(nl - q) : strlen(q);
		char *end;
		long v = strtol(q, &end, 10);
		if (end != q && *end == ':' && v >= 0)
			insn = v;
		if (n && !(q[0] == 'p' && strncmp(q, "processed ", 10) == 0))
			*last = q;
		q += n + (nl ? 1 : 0);
	}
	if (insn >= 0 && (size_t)insn < p->ninsns) {
		*line = p->lines[insn] >> 12;
		*col = p->lines[insn] & 4095;
	}
}

static int load_prog(trawl_script *s, tw_bpf_prog *p, trawl_error *err)
{
	tw_bpf *b = s->bpf;
	for (size_t i = 0; i < p->ninsns; i++) {
		struct bpf_insn *in = &p->insns[i];
		if (in->code == (BPF_LD | BPF_DW | BPF_IMM) &&
		    (in->src_reg == BPF_PSEUDO_MAP_FD ||
		     in->src_reg == BPF_PSEUDO_MAP_VALUE)) {
			int32_t ref = in->imm;
			in->imm = ref >= 0x10000 ? b->fixed[ref - 0x10000]
						 : b->maps[ref].fd;
			i++;
		}
	}
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.prog_type = p->upath	? BPF_PROG_TYPE_KPROBE
		      : p->perf ? BPF_PROG_TYPE_PERF_EVENT
				: BPF_PROG_TYPE_TRACEPOINT;
	a.insns = (uint64_t)(uintptr_t)p->insns;
	a.insn_cnt = (uint32_t)p->ninsns;
	/* the helpers that read kernel memory are GPL-only */
	a.license = (uint64_t)(uintptr_t) "GPL";
	snprintf(a.prog_name, sizeof(a.prog_name), "trawl");
	p->fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (p->fd >= 0)
		return 0;
	if (errno == EPERM)
		return env_error(s, err, "cannot load a BPF program");
	/* again, with the verifier's log */
	size_t cap = 4 << 20;
	char *log = tw_malloc(s->mem, cap);
	if (!log)
		return tw_error_at(err, TRAWL_ENOMEM, 0, s->name, 0, 0, 0,
				   "out of memory");
	log[0] = 0;
	a.log_level = 1;
	a.log_buf = (uint64_t)(uintptr_t)log;
	a.log_size = (uint32_t)cap;
	int e = errno;
	p->fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (p->fd >= 0) {
		tw_free(s->mem, log);
		return 0;
	}
	if (errno == ENOSPC)
		log[cap - 1] = 0;
	uint32_t line, col;
	const char *last;
	verifier_line(p, log, &line, &col, &last);
	const char *nl = strchr(last, '\n');
	int rc = tw_error_at(err, TRAWL_EUNSUPPORTED, e, s->name, line, col, 0,
			     "the kernel refused the BPF program of %s: %.*s "
			     "(--backend ftrace runs it without BPF)",
			     p->tp, nl ? (int)(nl - last) : (int)strlen(last),
			     *last ? last : strerror(e));
	tw_free(s->mem, log);
	return rc;
}

int tw_bpf_load(trawl_script *s, trawl_error *err)
{
	tw_bpf *b = s->bpf;
	b->ncpus = possible_cpus();
	uint32_t max = (uint32_t)s->opts.map_size;
	uint64_t bytes = 0;
	for (size_t i = 0; i < b->nmaps; i++) {
		tw_bpf_map *m = &b->maps[i];
		tw_smap_init(&m->totals, &s->maps[i], s->mem, s->opts.map_size);
		tw_smap_init(&m->base, &s->maps[i], s->mem, s->opts.map_size);
		if (!m->kernel)
			continue;
		char name[16];
		snprintf(name, sizeof(name), "%.15s", s->maps[i].name);
		/* a per-CPU hash made whole at the start is one per-CPU
		 * allocation per entry (4096: 2.7 ms, a sixth of the
		 * start-up); entries made as keys come stay bounded by max */
		m->fd = map_create(m->percpu ? BPF_MAP_TYPE_PERCPU_HASH
					     : BPF_MAP_TYPE_HASH,
				   m->key_size, m->value_size, max,
				   m->percpu ? BPF_F_NO_PREALLOC : 0, name);
		if (m->fd < 0)
			return env_error(s, err, "cannot create a BPF map");
		bytes += (uint64_t)max *
			 (m->key_size +
			  (uint64_t)m->value_size * (m->percpu ? b->ncpus : 1));
	}
	uint32_t nsites = b->nsites ? (uint32_t)b->nsites : 1;
	b->fixed[TW_BPF_M_SCRATCH] = map_create(
		BPF_MAP_TYPE_PERCPU_ARRAY, 4, TW_BPF_SCRATCH, 1, 0, "scratch");
	b->fixed[TW_BPF_M_GLOBALS] =
		map_create(BPF_MAP_TYPE_ARRAY, 4, sizeof(struct tw_bpf_globals),
			   1, 0, "globals");
	b->fixed[TW_BPF_M_FAULTS] = map_create(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8,
					       nsites, 0, "faults");
	long page = sysconf(_SC_PAGESIZE);
	b->ring_size = b->printfs ? TW_BPF_RING : (size_t)page;
	b->fixed[TW_BPF_M_RING] = map_create(BPF_MAP_TYPE_RINGBUF, 0, 0,
					     (uint32_t)b->ring_size, 0, "out");
	b->fixed[TW_BPF_M_ZEROS] =
		b->zeros_size ? map_create(BPF_MAP_TYPE_ARRAY, 4, b->zeros_size,
					   1, BPF_F_RDONLY_PROG, "zeros")
			      : -2;
	/* kstack's frames by their hash, kept as stacks come (at most
	 * --map-size of them) */
	b->fixed[TW_BPF_M_STACKS] =
		b->kstacks
			? map_create(BPF_MAP_TYPE_HASH, 8, TW_BPF_STACK_VALUE,
				     max, BPF_F_NO_PREALLOC, "stacks")
			: -2;
	if (b->kstacks)
		bytes += (uint64_t)max * (8 + TW_BPF_STACK_VALUE);
	for (int k = 0; k < TW_BPF_M_FIXED; k++)
		if (b->fixed[k] == -1)
			return env_error(s, err, "cannot create a BPF map");
	bytes += (uint64_t)TW_BPF_SCRATCH * b->ncpus + b->ring_size +
		 (uint64_t)nsites * 8 * b->ncpus + b->zeros_size;
	b->kernel_bytes = bytes;
	/* the ring buffer: consumer page read-write, the rest read-only,
	 * its data mapped twice so a record never wraps */
	b->ring_cons = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
			    MAP_SHARED, b->fixed[TW_BPF_M_RING], 0);
	b->ring_data = mmap(NULL, (size_t)page + 2 * b->ring_size, PROT_READ,
			    MAP_SHARED, b->fixed[TW_BPF_M_RING], page);
	if (b->ring_cons == MAP_FAILED || b->ring_data == MAP_FAILED) {
		b->ring_cons = b->ring_cons == MAP_FAILED ? NULL : b->ring_cons;
		b->ring_data = b->ring_data == MAP_FAILED ? NULL : b->ring_data;
		return env_error(s, err, "cannot map the BPF ring buffer");
	}
	b->ring_mask = b->ring_size - 1;
	b->lines = tw_calloc(s->mem, (size_t)b->ncpus, sizeof(*b->lines));
	if (!b->lines)
		return tw_error_at(err, TRAWL_ENOMEM, 0, s->name, 0, 0, 0,
				   "out of memory");
	for (size_t k = 0; k < b->nprogs; k++)
		if (load_prog(s, &b->progs[k], err) < 0)
			return -err->code;
	return 0;
}

/* ---- values between the kernel's layout and the script's ---- */

static size_t cpu_stride(const tw_bpf_map *m)
{
	return ((size_t)m->value_size + 7) & ~(size_t)7;
}

/* The script's id of the stack the kernel kept under hash (bpf-gen.c's
 * gkstack()), cut to type's limit; 0 (empty) for none. */
static int64_t kernel_stack(trawl_script *s, int64_t hash, int type)
{
	tw_bpf *b = s->bpf;
	if (!hash || b->fixed[TW_BPF_M_STACKS] < 0)
		return 0;
	uint64_t v[TW_BPF_STACK_VALUE / 8];
	if (map_lookup(b->fixed[TW_BPF_M_STACKS], &hash, v) < 0)
		return 0;
	size_t n = (size_t)(v[0] / 8);
	if (n > TW_SC_STACK_MAX)
		n = TW_SC_STACK_MAX;
	int64_t id = tw_stack_intern(&s->stacks, v + 1, n, type);
	if (id == -2)
		s->oom = 1;
	return id < 0 ? 0 : id; /* the table full: s->stacks.dropped */
}

/* A string the kernel wrote as user space reads it: ksym()'s tagged
 * address named (script.c), any other as it is. */
static const char *kernel_text(trawl_script *s, const char *k, int64_t *len)
{
	if (k[0] == TW_KSYM_TAG[0] && k[1] == TW_KSYM_TAG[1]) {
		uint64_t addr;
		memcpy(&addr, k + 8, 8);
		const char *t = tw_ksym(s, addr, NULL);
		size_t n = strlen(t);
		*len = (int64_t)(n < TW_SC_STRMAX - 1 ? n : TW_SC_STRMAX - 1);
		return t;
	}
	if (k[0] == TW_NTOP_TAG[0] && k[1] == TW_NTOP_TAG[1]) {
		const char *t = tw_ntop(s, (unsigned char)k[2], k + 8);
		*len = (int64_t)strlen(t);
		return t;
	}
	if (k[0] == TW_PROBE_TAG[0] && k[1] == TW_PROBE_TAG[1]) {
		uint16_t probe;
		memcpy(&probe, k + 2, 2);
		const char *t =
			probe < s->nprobes ? s->probes[probe].label : "";
		*len = (int64_t)strlen(t);
		return t;
	}
	if (k[0] == TW_USER_TAG[0] && k[1] == TW_USER_TAG[1]) {
		uint64_t uid;
		memcpy(&uid, k + 8, 8);
		const char *t = tw_username(s, (uint32_t)uid);
		*len = (int64_t)strlen(t);
		return t;
	}
	if (k[0] == TW_TIME_TAG[0] && k[1] == TW_TIME_TAG[1]) {
		uint16_t slot;
		int64_t ns;
		memcpy(&slot, k + 2, 2);
		memcpy(&ns, k + 8, 8);
		const char *t =
			slot < s->bpf->ntimes
				? tw_strftime(s, s->bpf->times[slot], ns)
				: "";
		*len = (int64_t)strlen(t);
		return t;
	}
	*len = (int64_t)strnlen(k, TW_SC_STRMAX);
	return k;
}

/* The script's key (tw_sval parts) of a kernel key. */
static void unkey(trawl_script *s, const tw_map_decl *d, const char *k,
		  tw_sval *parts)
{
	for (int i = 0; i < d->nkeys; i++) {
		if (d->key_types[i] == TY_STR) {
			parts[i].s = kernel_text(s, k, &parts[i].i);
			k += TW_SC_STRMAX;
		} else {
			memcpy(&parts[i].i, k, 8);
			parts[i].s = NULL;
			if (tw_is_stack(d->key_types[i]))
				parts[i].i = kernel_stack(s, parts[i].i,
							  d->key_types[i]);
			k += 8;
		}
	}
}

/* Two kernel keys that are one key of the script's (stacks cut to the
 * same frames): v merged into the value e holds, as the CPUs' are. */
static void combine(const tw_map_decl *d, int64_t *e, const int64_t *v,
		    size_t words)
{
	switch (d->kind) {
	case MV_COUNT:
	case MV_SUM:
		e[0] = (int64_t)((uint64_t)e[0] + (uint64_t)v[0]);
		break;
	case MV_MIN:
		e[0] = v[0] < e[0] ? v[0] : e[0];
		break;
	case MV_MAX:
		e[0] = v[0] > e[0] ? v[0] : e[0];
		break;
	case MV_AVG:
	case MV_STATS:
		e[0] += v[0];
		e[1] = (int64_t)((uint64_t)e[1] + (uint64_t)v[1]);
		e[2] = v[2] < e[2] ? v[2] : e[2];
		e[3] = v[3] > e[3] ? v[3] : e[3];
		break;
	case MV_HIST:
	case MV_LHIST:
		for (size_t w = 0; w < words; w++)
			e[w] += v[w];
		break;
	default:
		memcpy(e, v, words * 8); /* a value: one of them */
		break;
	}
}

static void tokey(const tw_map_decl *d, const tw_sval *parts, char *k)
{
	if (!d->nkeys)
		memset(k, 0, 8);
	for (int i = 0; i < d->nkeys; i++) {
		if (d->key_types[i] == TY_STR) {
			memset(k, 0, TW_SC_STRMAX);
			size_t n = (size_t)parts[i].i;
			memcpy(k, parts[i].s,
			       n < TW_SC_STRMAX - 1 ? n : TW_SC_STRMAX - 1);
			k += TW_SC_STRMAX;
		} else {
			memcpy(k, &parts[i].i, 8);
			k += 8;
		}
	}
}

static tw_mentry *entry(tw_smap *m, const tw_sval *parts, char *buf)
{
	int full = 0;
	if (m->flat)
		return tw_smap_geti(m, parts[0].i, 1, &full);
	size_t kl = tw_smap_key(m->decl, parts, buf);
	return tw_smap_get(m, buf, kl, 1, &full);
}

/* The per-CPU copies at kv merged into the script's value v. Return: 0
 * when no CPU's copy holds anything. */
static int merge(trawl_script *s, const tw_bpf_map *bm, const tw_map_decl *d,
		 int ncpus, const char *kv, int64_t *v)
{
	size_t stride = cpu_stride(bm);
	int n = bm->percpu ? ncpus : 1;
	int any = 0;
	size_t words = bm->value_size / 8;
	for (int c = 0; c < n; c++) {
		const int64_t *x = (const int64_t *)(kv + (size_t)c * stride);
		switch (d->kind) {
		case MV_INT:
			v[0] = x[0];
			any = 1;
			break;
		case MV_STR: {
			int64_t len;
			const char *t = kernel_text(s, (const char *)x, &len);
			v[0] = len;
			memcpy(v + 1, t, (size_t)len);
			any = 1;
			break;
		}
		case MV_COUNT:
		case MV_SUM:
			v[0] = (int64_t)((uint64_t)v[0] + (uint64_t)x[0]);
			any = 1;
			break;
		case MV_MIN:
		case MV_MAX:
			if (!x[0])
				break;
			if (!any ||
			    (d->kind == MV_MIN ? x[1] < v[0] : x[1] > v[0]))
				v[0] = x[1];
			any = 1;
			break;
		case MV_AVG:
		case MV_STATS:
			if (!x[0])
				break;
			if (!any || x[2] < v[2])
				v[2] = x[2];
			if (!any || x[3] > v[3])
				v[3] = x[3];
			v[0] += x[0];
			v[1] = (int64_t)((uint64_t)v[1] + (uint64_t)x[1]);
			any = 1;
			break;
		case MV_HIST:
		case MV_LHIST:
			for (size_t w = 0; w < words; w++)
				v[w] += x[w];
			any = 1;
			break;
		default:
			break;
		}
	}
	return any;
}

/* Every entry of a map, in any order (a copy of the pointers). */
static tw_mentry **entries(const tw_smap *m, size_t *n)
{
	*n = 0;
	if (!m->n)
		return NULL;
	return tw_smap_sorted(m, n);
}

static int subtractable(int kind)
{
	return kind == MV_COUNT || kind == MV_SUM || kind == MV_AVG ||
	       kind == MV_STATS || kind == MV_HIST || kind == MV_LHIST;
}

/* smaps[i] = totals - base */
static void deltas(trawl_script *s, size_t i)
{
	tw_bpf_map *bm = &s->bpf->maps[i];
	tw_smap *out = &s->smaps[i];
	const tw_map_decl *d = &s->maps[i];
	tw_smap_clear(out);
	size_t n;
	tw_mentry **es = entries(&bm->totals, &n);
	tw_sval parts[TW_SC_MAX_KEYS];
	size_t words = out->vsize / 8;
	for (size_t k = 0; k < n; k++) {
		tw_smap_unkey(&bm->totals, es[k], parts);
		const tw_mentry *be = NULL;
		if (bm->based) {
			if (bm->base.flat) {
				be = tw_flat_find(&bm->base, parts[0].i);
			} else {
				size_t kl = tw_smap_key(d, parts, s->keybuf);
				be = tw_smap_get(&bm->base, s->keybuf, kl, 0,
						 NULL);
			}
		}
		int64_t v[1024];
		memcpy(v, es[k]->v, out->vsize);
		int avg = d->kind == MV_AVG || d->kind == MV_STATS;
		int nonzero = !be;
		for (size_t w = 0; be && w < (avg ? 2 : words); w++) {
			v[w] -= be->v[w];
			nonzero |= v[w] != 0;
		}
		if (!nonzero && bm->based == 1)
			continue;
		if (avg && !v[0]) {
			v[2] = INT64_MAX;
			v[3] = INT64_MIN;
		}
		tw_mentry *e = entry(out, parts, s->keybuf);
		if (e)
			memcpy(e->v, v, out->vsize);
	}
	tw_free(s->mem, es);
	if (bm->based == 2) {
		/* zero(): its keys stay, at 0 */
		es = entries(&bm->base, &n);
		for (size_t k = 0; k < n; k++) {
			tw_smap_unkey(&bm->base, es[k], parts);
			int full = 0;
			tw_mentry *e =
				out->flat ? tw_smap_geti(out, parts[0].i, 0,
							 &full)
					  : tw_smap_get(out, s->keybuf,
							tw_smap_key(d, parts,
								    s->keybuf),
							0, &full);
			if (!e && (e = entry(out, parts, s->keybuf))) {
				memset(e->v, 0, out->vsize);
				if (d->kind == MV_AVG || d->kind == MV_STATS) {
					e->v[2] = INT64_MAX;
					e->v[3] = INT64_MIN;
				}
			}
		}
		tw_free(s->mem, es);
	}
}

static void read_map(trawl_script *s, size_t i)
{
	tw_bpf *b = s->bpf;
	tw_bpf_map *bm = &b->maps[i];
	const tw_map_decl *d = &s->maps[i];
	size_t vbytes = cpu_stride(bm) * (size_t)(bm->percpu ? b->ncpus : 1);
	char *key = tw_malloc(s->mem, bm->key_size * 2 + vbytes);
	if (!key) {
		s->oom = 1;
		return;
	}
	char *next = key + bm->key_size, *kv = next + bm->key_size;
	tw_smap_clear(&bm->totals);
	tw_sval parts[TW_SC_MAX_KEYS];
	int stacked = 0; /* keys of kstacks: two may be one once cut */
	for (int k = 0; k < d->nkeys; k++)
		stacked |= tw_is_stack(d->key_types[k]);
	const void *prev = NULL;
	while (map_next(bm->fd, prev, next) == 0) {
		memcpy(key, next, bm->key_size);
		prev = key;
		if (map_lookup(bm->fd, key, kv) < 0)
			continue; /* deleted meanwhile */
		int64_t v[1024];
		memset(v, 0, sizeof(v[0]) * (bm->totals.vsize / 8));
		if (!merge(s, bm, d, b->ncpus, kv, v))
			continue;
		unkey(s, d, key, parts);
		if (d->kind == MV_INT && tw_is_stack(d->vtype))
			v[0] = kernel_stack(s, v[0], d->vtype);
		size_t before = bm->totals.n;
		tw_mentry *e = entry(&bm->totals, parts, s->keybuf);
		if (e && bm->totals.n == before && stacked)
			combine(d, e->v, v, bm->totals.vsize / 8);
		else if (e)
			memcpy(e->v, v, bm->totals.vsize);
	}
	tw_free(s->mem, key);
	deltas(s, i);
}

void tw_bpf_sync(trawl_script *s)
{
	tw_bpf *b = s->bpf;
	if (!b || !b->nprogs)
		return;
	tw_bpf_poll(s);
	for (size_t i = 0; i < b->nmaps; i++)
		if (b->maps[i].kernel)
			read_map(s, i);
	uint64_t *per = tw_calloc(s->mem, (size_t)b->ncpus, 8);
	if (!per) {
		s->oom = 1;
		return;
	}
	for (uint32_t k = 0; k < b->nsites; k++) {
		if (map_lookup(b->fixed[TW_BPF_M_FAULTS], &k, per) < 0)
			continue;
		uint64_t total = 0;
		for (int c = 0; c < b->ncpus; c++)
			total += per[c];
		if (!total)
			continue;
		const tw_bpf_site *site = &b->sites[k];
		char what[160];
		if (site->map >= 0)
			snprintf(what, sizeof(what),
				 "@%s is full (%zu keys, --map-size): update "
				 "dropped",
				 s->maps[site->map].name, s->opts.map_size);
		else
			snprintf(what, sizeof(what), "%s", site->what);
		tw_sc_fault_set(s, site->probe, 1u << 31 | k, site->line,
				site->col, what, total);
	}
	tw_free(s->mem, per);
}

/* BEGIN's values into the kernel's maps, before the programs run. */
static int push(trawl_script *s, size_t i)
{
	tw_bpf *b = s->bpf;
	tw_bpf_map *bm = &b->maps[i];
	const tw_map_decl *d = &s->maps[i];
	size_t n;
	tw_mentry **es = entries(&s->smaps[i], &n);
	size_t vbytes = cpu_stride(bm) * (size_t)(bm->percpu ? b->ncpus : 1);
	char *key = tw_malloc(s->mem, bm->key_size + vbytes);
	if (!key && n) {
		tw_free(s->mem, es);
		return -1;
	}
	char *kv = key + bm->key_size;
	tw_sval parts[TW_SC_MAX_KEYS];
	for (size_t k = 0; k < n; k++) {
		const int64_t *v = es[k]->v;
		tw_smap_unkey(&s->smaps[i], es[k], parts);
		tokey(d, parts, key);
		memset(kv, 0, vbytes);
		int64_t *x = (int64_t *)kv; /* CPU 0's copy */
		switch (d->kind) {
		case MV_STR:
			memcpy(kv, v + 1,
			       (size_t)v[0] < TW_SC_STRMAX - 1
				       ? (size_t)v[0]
				       : TW_SC_STRMAX - 1);
			break;
		case MV_MIN:
		case MV_MAX:
			x[0] = 1;
			x[1] = v[0];
			break;
		default:
			memcpy(kv, v, bm->value_size);
			break;
		}
		map_update(bm->fd, key, kv);
	}
	tw_free(s->mem, key);
	tw_free(s->mem, es);
	return 0;
}

int tw_bpf_push(trawl_script *s)
{
	tw_bpf *b = s->bpf;
	for (size_t i = 0; b && i < b->nmaps; i++)
		if (b->maps[i].kernel && s->smaps[i].n && push(s, i) < 0)
			return -1;
	return 0;
}

/* perf_event_open() of pa on cpu for every task, the file descriptor or
 * -1 (errno). */
static int perf_open(const struct perf_event_attr *pa, int cpu)
{
	return (int)syscall(__NR_perf_event_open, pa, -1, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* p's program on the perf event fd, enabled. */
static int set_bpf(trawl_script *s, const tw_bpf_prog *p, int fd,
		   trawl_error *err)
{
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, p->fd) == 0 &&
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0)
		return 0;
	char what[300];
	snprintf(what, sizeof(what), "cannot attach the BPF program of %s",
		 p->tp);
	return env_error(s, err, what);
}

/* A tracepoint's program: one event runs it on every CPU. */
static int attach_tracepoint(trawl_script *s, tw_bpf_prog *p, trawl_error *err)
{
	struct perf_event_attr pa = {.type = PERF_TYPE_TRACEPOINT,
				     .size = sizeof(pa),
				     .config = p->tp_id,
				     .sample_period = 1,
				     .wakeup_events = 1};
	if ((p->pfd = perf_open(&pa, 0)) < 0) {
		char what[300];
		snprintf(what, sizeof(what),
			 "cannot open tracepoint %s for BPF", p->tp);
		return env_error(s, err, what);
	}
	return set_bpf(s, p, p->pfd, err);
}

/* A uprobe's program on the kernel's uprobe PMU at its file and offset:
 * one event, every task that runs the function (tracefs's uprobe_events
 * untouched). */
static int attach_uprobe(trawl_script *s, tw_bpf_prog *p, trawl_error *err)
{
	struct perf_event_attr pa = {
		.type = p->perf_type,
		.size = sizeof(pa),
		.config = p->perf_config,
		.config1 = (uint64_t)(uintptr_t)p->upath, /* uprobe_path */
		.config2 = p->uoffset,			  /* probe_offset */
		.sample_period = 1,
		.wakeup_events = 1};
	if ((p->pfd = perf_open(&pa, 0)) < 0) {
		char what[4400];
		snprintf(what, sizeof(what), "cannot open %s (%s+0x%llx)",
			 p->tp, p->upath, (unsigned long long)p->uoffset);
		return env_error(s, err, what);
	}
	return set_bpf(s, p, p->pfd, err);
}

/*
 * A perf probe's program on its perf events: a software event (cpu-clock
 * for profile and interval probes) sampled every period or freq times a
 * second, on every CPU that is online (an interval: on the first one that
 * is, so it fires once a period), for every task.
 */
static int attach_perf(trawl_script *s, tw_bpf_prog *p, trawl_error *err)
{
	int ncpus = s->bpf->ncpus > 0 ? s->bpf->ncpus : 1;
	p->cpu_fds = tw_malloc(s->mem, (size_t)ncpus * sizeof(*p->cpu_fds));
	if (!p->cpu_fds)
		return tw_error_at(err, TRAWL_ENOMEM, 0, s->name, 0, 0, 0,
				   "out of memory");
	struct perf_event_attr pa = {.type = p->perf_type,
				     .size = sizeof(pa),
				     .config = p->perf_config};
	if (p->freq) {
		pa.freq = 1;
		pa.sample_freq = p->freq;
	} else {
		pa.sample_period = p->period;
	}
	for (int cpu = 0; cpu < ncpus && !(p->one_cpu && p->ncpu_fds); cpu++) {
		int fd = perf_open(&pa, cpu);
		if (fd < 0 && (errno == ENODEV || errno == EINVAL) &&
		    cpu + 1 < ncpus)
			continue; /* an offline CPU */
		if (fd < 0) {
			char what[340];
			snprintf(what, sizeof(what),
				 "cannot open the perf event of %s on CPU %d",
				 p->tp, cpu);
			return env_error(s, err, what);
		}
		p->cpu_fds[p->ncpu_fds++] = fd;
		if (set_bpf(s, p, fd, err) < 0)
			return -1;
	}
	return 0;
}

int tw_bpf_attach(trawl_script *s, trawl_error *err)
{
	tw_bpf *b = s->bpf;
	if (!b || !b->nprogs)
		return 0;
	if (tw_bpf_push(s) < 0)
		return tw_error_at(err, TRAWL_ENOMEM, 0, s->name, 0, 0, 0,
				   "out of memory");
	struct tw_bpf_globals gl = {.t0 = s->t0};
	uint32_t zero = 0;
	map_update(b->fixed[TW_BPF_M_GLOBALS], &zero, &gl);
	for (size_t k = 0; k < b->nprogs; k++) {
		tw_bpf_prog *p = &b->progs[k];
		int rc = p->upath  ? attach_uprobe(s, p, err)
			 : p->perf ? attach_perf(s, p, err)
				   : attach_tracepoint(s, p, err);
		if (rc < 0)
			return -1;
	}
	b->attached = 1;
	return 0;
}

void tw_bpf_detach(trawl_script *s)
{
	tw_bpf *b = s->bpf;
	if (!b)
		return;
	/* another thread may stop them too (trawl_script_detach()) */
	for (size_t k = 0; k < b->nprogs; k++) {
		int fd = __atomic_exchange_n(&b->progs[k].pfd, -1,
					     __ATOMIC_ACQ_REL);
		if (fd >= 0) {
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			close(fd);
		}
		for (size_t c = 0; c < b->progs[k].ncpu_fds; c++) {
			fd = __atomic_exchange_n(&b->progs[k].cpu_fds[c], -1,
						 __ATOMIC_ACQ_REL);
			if (fd >= 0) {
				ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
				close(fd);
			}
		}
	}
}

static int format_record(trawl_script *s, const char *p, uint32_t len,
			 uint32_t kind);

/* A record's output: into its CPU's line, whose whole lines go out. */
static int record(trawl_script *s, const char *p, uint32_t len)
{
	uint32_t word;
	if (len < 8)
		return 0;
	memcpy(&word, p, 4);
	tw_bpf *b = s->bpf;
	uint32_t cpu = word >> 8;
	if (!b->lines || cpu >= (uint32_t)b->ncpus)
		return format_record(s, p, len, word & 0xff);
	tw_buf *line = &b->lines[cpu];
	s->capture = line;
	int rc = format_record(s, p, len, word & 0xff);
	s->capture = NULL;
	size_t end = line->len;
	while (end && line->data[end - 1] != '\n')
		end--;
	if (end) {
		tw_out(s, line->data, end);
		memmove(line->data, line->data + end, line->len - end);
		line->len -= end;
	}
	return rc;
}

void tw_bpf_flush_lines(trawl_script *s)
{
	tw_bpf *b = s->bpf;
	for (int c = 0; b && b->lines && c < b->ncpus; c++) {
		if (b->lines[c].len)
			tw_out(s, b->lines[c].data, b->lines[c].len);
		b->lines[c].len = 0;
	}
}

static int format_record(trawl_script *s, const char *p, uint32_t len,
			 uint32_t kind)
{
	if (kind == TW_BPF_REC_EXIT)
		return 1;
	if (kind == TW_BPF_REC_TIME) {
		uint32_t slot;
		uint64_t at;
		memcpy(&slot, p + 4, 4);
		if (len < 16 || slot >= s->bpf->ntimes)
			return 0;
		memcpy(&at, p + 8, 8);
		/* the probe's monotonic time as the wall clock then */
		struct timespec mono, real;
		clock_gettime(CLOCK_MONOTONIC, &mono);
		clock_gettime(CLOCK_REALTIME, &real);
		int64_t ago =
			((int64_t)mono.tv_sec * 1000000000 + mono.tv_nsec) -
			(int64_t)at;
		int64_t wall = (int64_t)real.tv_sec * 1000000000 +
			       real.tv_nsec - (ago > 0 ? ago : 0);
		tw_print_time_at(s, s->bpf->times[slot], wall);
		return 0;
	}
	if (kind == TW_BPF_REC_JOIN) {
		uint32_t slot, count;
		memcpy(&slot, p + 4, 4);
		memcpy(&count, p + 8, 4);
		tw_bpf *b = s->bpf;
		if (slot >= b->njoins || count > TW_BPF_JOIN_ARGS ||
		    len < TW_BPF_JOIN_HEAD + count * TW_SC_STRMAX)
			return 0;
		for (uint32_t k = 0; k < count; k++) {
			const char *a = p + TW_BPF_JOIN_HEAD + k * TW_SC_STRMAX;
			if (k)
				tw_out(s, b->joins[slot],
				       strlen(b->joins[slot]));
			tw_out(s, a, strnlen(a, TW_SC_STRMAX));
		}
		tw_out(s, "\n", 1);
		return 0;
	}
	if (kind != TW_BPF_REC_PRINTF)
		return 0;
	uint32_t fi;
	memcpy(&fi, p + 4, 4);
	if (fi >= s->prog.nfmts)
		return 0;
	const tw_fmt *f = &s->prog.fmts[fi];
	tw_sval args[TW_SC_MAX_ARGS + 1];
	size_t pos = 8, a = 0;
	for (size_t k = 0; k < f->nconvs && a < TW_SC_MAX_ARGS; k++) {
		const tw_fmt_conv *c = &f->convs[k];
		if (c->type == TY_VOID)
			continue;
		if (c->star) {
			if (pos + 8 > len)
				return 0;
			memcpy(&args[a].i, p + pos, 8);
			args[a++].s = NULL;
			pos += 8;
		}
		if (c->stack) {
			if (pos + 8 > len)
				return 0;
			int64_t h;
			memcpy(&h, p + pos, 8);
			args[a].i = kernel_stack(s, h, c->stack);
			args[a++].s = NULL;
			pos += 8;
		} else if (c->type == TY_STR) {
			if (pos + TW_SC_STRMAX > len)
				return 0;
			args[a].s = kernel_text(s, p + pos, &args[a].i);
			a++;
			pos += TW_SC_STRMAX;
		} else {
			if (pos + 8 > len)
				return 0;
			memcpy(&args[a].i, p + pos, 8);
			args[a++].s = NULL;
			pos += 8;
		}
	}
	tw_printf(s, f, args);
	return 0;
}

int tw_bpf_poll(trawl_script *s)
{
	tw_bpf *b = s->bpf;
	if (!b || !b->ring_data)
		return 0;
	unsigned long *cons_pos = b->ring_cons;
	const unsigned long *prod_pos = b->ring_data;
	const char *data = (const char *)b->ring_data + sysconf(_SC_PAGESIZE);
	unsigned long cons = __atomic_load_n(cons_pos, __ATOMIC_ACQUIRE);
	unsigned long prod = __atomic_load_n(prod_pos, __ATOMIC_ACQUIRE);
	int exited = 0;
	while (cons < prod) {
		const uint32_t *hdr =
			(const uint32_t *)(data + (cons & b->ring_mask));
		uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);
		if (len & BPF_RINGBUF_BUSY_BIT)
			break;
		uint32_t body =
			len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
		if (!(len & BPF_RINGBUF_DISCARD_BIT) && !exited)
			exited = record(s,
					(const char *)hdr + BPF_RINGBUF_HDR_SZ,
					body);
		cons += (body + BPF_RINGBUF_HDR_SZ + 7) & ~7ul;
		__atomic_store_n(cons_pos, cons, __ATOMIC_RELEASE);
	}
	if (s->out.len)
		tw_out_flush(s);
	return exited;
}

void tw_bpf_cleared(trawl_script *s, size_t map, int zero)
{
	tw_bpf *b = s->bpf;
	if (!b || map >= b->nmaps || !b->maps[map].kernel)
		return;
	tw_bpf_map *bm = &b->maps[map];
	const tw_map_decl *d = &s->maps[map];
	if (subtractable(d->kind)) {
		/* the totals read last become the base: what the kernel
		 * adds after that read is in the next delta */
		tw_smap_clear(&bm->base);
		size_t n;
		tw_mentry **es = entries(&bm->totals, &n);
		tw_sval parts[TW_SC_MAX_KEYS];
		for (size_t k = 0; k < n; k++) {
			tw_smap_unkey(&bm->totals, es[k], parts);
			tw_mentry *e = entry(&bm->base, parts, s->keybuf);
			if (e)
				memcpy(e->v, es[k]->v, bm->base.vsize);
		}
		tw_free(s->mem, es);
		bm->based = zero ? 2 : 1;
		return;
	}
	/* min, max, integers and strings: the kernel's entries go (or are
	 * set to 0), which races with the kernel's updates */
	char *key =
		tw_malloc(s->mem, 2 * (size_t)bm->key_size +
					  cpu_stride(bm) * (size_t)b->ncpus);
	if (!key)
		return;
	char *next = key + bm->key_size, *kv = next + bm->key_size;
	const void *prev = NULL;
	while (map_next(bm->fd, prev, next) == 0) {
		memcpy(key, next, bm->key_size);
		if (zero) {
			memset(kv, 0, cpu_stride(bm) * (size_t)b->ncpus);
			if (d->kind == MV_MIN || d->kind == MV_MAX)
				((int64_t *)kv)[0] = 1;
			map_update(bm->fd, key, kv);
			prev = key;
		} else {
			map_call(BPF_MAP_DELETE_ELEM, bm->fd, key, NULL);
			prev = NULL;
		}
	}
	tw_free(s->mem, key);
}

void tw_bpf_free(const tw_mem *mem, tw_bpf *b)
{
	if (!b)
		return;
	for (size_t k = 0; k < b->nprogs; k++) {
		if (b->progs[k].pfd >= 0)
			close(b->progs[k].pfd);
		for (size_t c = 0; c < b->progs[k].ncpu_fds; c++)
			if (b->progs[k].cpu_fds[c] >= 0)
				close(b->progs[k].cpu_fds[c]);
		tw_free(mem, b->progs[k].cpu_fds);
		tw_free(mem, b->progs[k].upath);
		if (b->progs[k].fd >= 0)
			close(b->progs[k].fd);
		tw_free(mem, b->progs[k].insns);
		tw_free(mem, b->progs[k].lines);
	}
	tw_free(mem, b->progs);
	for (size_t i = 0; i < b->nmaps; i++) {
		if (b->maps[i].fd >= 0)
			close(b->maps[i].fd);
		if (b->maps[i].totals.mem) {
			tw_smap_fini(&b->maps[i].totals);
			tw_smap_fini(&b->maps[i].base);
		}
	}
	tw_free(mem, b->maps);
	for (size_t i = 0; i < b->njoins; i++)
		tw_free(mem, b->joins[i]);
	for (size_t i = 0; i < b->ntimes; i++)
		tw_free(mem, b->times[i]);
	tw_free(mem, b->times);
	tw_free(mem, b->joins);
	for (int c = 0; b->lines && c < b->ncpus; c++)
		tw_buf_fini(mem, &b->lines[c]);
	tw_free(mem, b->lines);
	for (int k = 0; k < TW_BPF_M_FIXED; k++)
		if (b->fixed[k] >= 0)
			close(b->fixed[k]);
	long page = sysconf(_SC_PAGESIZE);
	if (b->ring_cons)
		munmap(b->ring_cons, (size_t)page);
	if (b->ring_data)
		munmap(b->ring_data, (size_t)page + 2 * b->ring_size);
	tw_free(mem, b->sites);
	tw_free(mem, b->in_kernel);
	tw_free(mem, b->why);
	tw_free(mem, b->explain);
	tw_free(mem, b);
}
