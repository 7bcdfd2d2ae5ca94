/* SPDX-License-Identifier: MIT */
/*
 * uprobe:PATH:FUNC and uretprobe:PATH:FUNC, as bpftrace writes them: the
 * file (a path, or a program found on $PATH), the function's offset in
 * it (its symbol's address, from .symtab or else .dynsym, made a file
 * offset by the PT_LOAD segment that holds it; libelf reads the ELF), and
 * what the kernel's uprobe PMU is (its perf type, and the config bit
 * that makes a probe a return probe). The BPF back end attaches its
 * program there with perf_event_open() (bpf-sys.c), so tracefs's
 * uprobe_events are not touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "script-int.h"

#define UPROBE_PMU "/sys/bus/event_source/devices/uprobe"

static char *sc_strdup(tw_compiler *c, const char *s, size_t n)
{
	char *d = tw_sc_alloc(c, n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

/* A number from a PMU file ("8", "config:0"), or -1. */
static long pmu_number(const char *file, const char *prefix)
{
	char path[256], buf[64];
	snprintf(path, sizeof(path), "%s/%s", UPROBE_PMU, file);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	long v = -1;
	if (fgets(buf, sizeof(buf), f)) {
		size_t n = strlen(prefix);
		if (!strncmp(buf, prefix, n))
			v = strtol(buf + n, NULL, 10);
	}
	fclose(f);
	return v;
}

/* The file a probe names: as written when it has a '/', else the first
 * executable of that name on $PATH (bpftrace's habit). */
static char *find_file(tw_compiler *c, const tw_probe_spec *s, const char *name)
{
	if (strchr(name, '/')) {
		if (access(name, R_OK) != 0)
			tw_sc_error(c, TRAWL_ENOENT, s->line, s->col,
				    "'%.*s': cannot read %s: %s", (int)s->len,
				    s->text, name, strerror(errno));
		return sc_strdup(c, name, strlen(name));
	}
	const char *path = getenv("PATH");
	for (const char *p = path ? path : ""; *p;) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char full[4096];
		if (n && n + strlen(name) + 2 < sizeof(full)) {
			snprintf(full, sizeof(full), "%.*s/%s", (int)n, p,
				 name);
			if (access(full, X_OK) == 0)
				return sc_strdup(c, full, strlen(full));
		}
		p += n + (e != NULL);
	}
	tw_sc_error(c, TRAWL_ENOENT, s->line, s->col,
		    "'%.*s': no file %s (give its path: uprobe:/usr/bin/%s:"
		    "FUNC)",
		    (int)s->len, s->text, name, name);
}

/* A symbol's name without its version (malloc@@GLIBC_2.2.5). */
static int same_name(const char *sym, const char *want)
{
	size_t n = strlen(want);
	return !strncmp(sym, want, n) && (sym[n] == 0 || sym[n] == '@');
}

/* The function's address in the file's symbol tables, or 0; names (when
 * not NULL) gets the functions seen, for the nearest one in an error. */
static GElf_Addr symbol(Elf *e, const char *func, const char ***names,
			size_t *nnames, tw_compiler *c)
{
	size_t cap = 0;
	GElf_Addr found = 0;
	for (int pass = 0; pass < 2 && !found; pass++) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(e, scn)) != NULL && !found) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) ||
			    !sh.sh_entsize)
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = d ? sh.sh_size / sh.sh_entsize : 0;
			for (size_t i = 0; i < n; i++) {
				GElf_Sym sym;
				if (!gelf_getsym(d, (int)i, &sym) ||
				    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
				    !sym.st_value)
					continue;
				const char *name =
					elf_strptr(e, sh.sh_link, sym.st_name);
				if (!name)
					continue;
				if (same_name(name, func)) {
					found = sym.st_value;
					break;
				}
				if (names && *nnames < 65536) {
					tw_sc_grow(c, (void **)names, &cap,
						   *nnames + 1, sizeof(char *));
					(*names)[(*nnames)++] = name;
				}
			}
		}
	}
	return found;
}

void tw_uprobe_resolve(tw_compiler *c, tw_probe_spec *s)
{
	s->upath = find_file(c, s, s->upath);
	long type = pmu_number("type", "");
	long ret = pmu_number("format/retprobe", "config:");
	if (type < 0 || (s->uprobe == 2 && ret < 0))
		tw_sc_error(c, TRAWL_EUNSUPPORTED, s->line, s->col,
			    "'%.*s': this kernel has no uprobe PMU (%s): "
			    "user-space probes need CONFIG_UPROBE_EVENTS",
			    (int)s->len, s->text, UPROBE_PMU);
	s->perf_type = (uint32_t)type;
	s->perf_config = s->uprobe == 2 ? 1ull << ret : 0;
	/* 0x...: an offset in the file as it is */
	if (!strncmp(s->name, "0x", 2)) {
		char *end;
		s->uoffset = strtoull(s->name, &end, 16);
		if (*end || end == s->name + 2)
			tw_sc_error(c, TRAWL_EPARSE, s->line, s->col,
				    "'%.*s': cannot read the offset %s",
				    (int)s->len, s->text, s->name);
		return;
	}
	elf_version(EV_CURRENT);
	int fd = open(s->upath, O_RDONLY | O_CLOEXEC);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		if (fd >= 0)
			close(fd);
		tw_sc_error(c, TRAWL_EFORMAT, s->line, s->col,
			    "'%.*s': %s is not an ELF file", (int)s->len,
			    s->text, s->upath);
	}
	const char **names = NULL;
	size_t nnames = 0;
	GElf_Addr addr = symbol(e, s->name, NULL, &nnames, c);
	if (!addr) /* again, keeping the names for the nearest one */
		symbol(e, s->name, &names, &nnames, c);
	/* the address as a file offset: through the segment loading it */
	size_t nph = 0;
	int have = 0;
	if (addr && elf_getphdrnum(e, &nph) == 0)
		for (size_t i = 0; i < nph && !have; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) &&
			    ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
			    addr >= ph.p_vaddr &&
			    addr < ph.p_vaddr + ph.p_memsz) {
				s->uoffset = addr - ph.p_vaddr + ph.p_offset;
				have = 1;
			}
		}
	const char *near = !addr ? tw_nearest(s->name, names, nnames) : NULL;
	char msg[300];
	if (near)
		snprintf(msg, sizeof(msg), " (did you mean '%s'?)", near);
	else
		msg[0] = 0;
	if (!addr) {
		/* the names live in the ELF's memory: copy before it goes */
		char *m = sc_strdup(c, msg, strlen(msg));
		elf_end(e);
		close(fd);
		tw_sc_error(c, TRAWL_ENOENT, s->line, s->col,
			    "'%.*s': no function %s in %s%s", (int)s->len,
			    s->text, s->name, s->upath, m);
	}
	elf_end(e);
	close(fd);
	if (!have)
		tw_sc_error(c, TRAWL_EFORMAT, s->line, s->col,
			    "'%.*s': %s's address 0x%llx is in no executable "
			    "segment of %s",
			    (int)s->len, s->text, s->name,
			    (unsigned long long)addr, s->upath);
}
