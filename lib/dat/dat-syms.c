/* SPDX-License-Identifier: MIT */
/*
 * The file's kallsyms as the kernel's own %pS sees them: a table sorted by
 * address where a symbol's size runs to the next higher address (as
 * kallsyms_lookup_size_offset() computes it), so an address prints as
 * "name+0xoff/0xsize [module]" exactly as in the kernel's text. Among
 * symbols of one address the first in the file wins, as the kernel takes
 * the first alias. libtraceevent's table knows no sizes.
 */
#include <stdlib.h>
#include <string.h>

#include "dat-int.h"

struct tw_dat_sym {
	uint64_t addr;
	uint32_t name; /* offset in the pool */
	uint32_t mod;  /* offset in the pool, 0: the kernel itself */
	uint32_t order;
};

static int by_addr(const void *a, const void *b)
{
	const struct tw_dat_sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* "ffffffff81000000 T _stext\n" or "... t foo\t[mod]": one line. */
static int add_line(tw_dat_file *f, const char *s, const char *end, size_t *cap,
		    size_t *pool_cap)
{
	uint64_t addr = 0;
	const char *p = s;
	int d, nd = 0;
	while (p < end && (d = tw_hexval(*p)) >= 0 && nd < 17) {
		addr = addr * 16 + (uint64_t)d;
		p++, nd++;
	}
	if (!nd || nd > 16 || end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return 0; /* not a symbol line: skipped */
	char type = p[1];
	if (type == 'a' || type == 'A' || type == 'U' || type == 'w')
		return 0; /* absolute and undefined symbols name no code */
	const char *name = p + 3, *ne = name;
	while (ne < end && *ne != '\t' && *ne != ' ')
		ne++;
	const char *mod = NULL, *me = NULL;
	if (ne < end && *ne == '\t' && end - ne > 2 && ne[1] == '[') {
		mod = ne + 2;
		me = memchr(mod, ']', (size_t)(end - mod));
		if (!me)
			mod = NULL;
	}
	size_t nl = (size_t)(ne - name), ml = mod ? (size_t)(me - mod) : 0;
	if (!nl || nl > 512 || ml > 256)
		return 0;
	if (tw_grow(f->mem, (void **)&f->syms, cap, f->nsyms + 1,
		    sizeof(*f->syms)) ||
	    tw_grow(f->mem, (void **)&f->sym_pool, pool_cap,
		    f->sym_pool_len + nl + ml + 2, 1))
		return -1;
	struct tw_dat_sym *e = &f->syms[f->nsyms];
	e->addr = addr;
	e->order = (uint32_t)f->nsyms++;
	e->name = (uint32_t)f->sym_pool_len;
	memcpy(f->sym_pool + f->sym_pool_len, name, nl);
	f->sym_pool[f->sym_pool_len + nl] = '\0';
	f->sym_pool_len += nl + 1;
	e->mod = 0;
	if (mod) {
		e->mod = (uint32_t)f->sym_pool_len;
		memcpy(f->sym_pool + f->sym_pool_len, mod, ml);
		f->sym_pool[f->sym_pool_len + ml] = '\0';
		f->sym_pool_len += ml + 1;
	}
	return 0;
}

int tw_dat_syms_parse(tw_dat_file *f, const char *text, size_t len)
{
	size_t cap = 0, pool_cap = 0;
	if (f->syms)
		return 0;
	/* offset 0 of the pool means "no module" */
	if (tw_grow(f->mem, (void **)&f->sym_pool, &pool_cap, 1, 1))
		return -1;
	f->sym_pool[0] = '\0';
	f->sym_pool_len = 1;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (add_line(f, p, le, &cap, &pool_cap))
			return -1;
		p = nl ? nl + 1 : end;
	}
	if (f->nsyms > 1)
		qsort(f->syms, f->nsyms, sizeof(*f->syms), by_addr);
	return 0;
}

const char *tw_dat_sym_lookup(const tw_dat_file *f, uint64_t addr,
			      uint64_t *offset, uint64_t *size,
			      const char **module)
{
	if (!f->nsyms || addr < f->syms[0].addr)
		return NULL;
	/* the last symbol at or below addr */
	size_t lo = 0, hi = f->nsyms;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* the first alias of that address */
	uint64_t at = f->syms[lo].addr;
	while (lo > 0 && f->syms[lo - 1].addr == at)
		lo--;
	const struct tw_dat_sym *e = &f->syms[lo];
	size_t next = lo + 1;
	while (next < f->nsyms && f->syms[next].addr == at)
		next++;
	/* a module's symbols end at the module's next one */
	*size = 0;
	if (next < f->nsyms) {
		uint32_t nm = f->syms[next].mod;
		if (nm == e->mod ||
		    (nm && e->mod &&
		     strcmp(f->sym_pool + nm, f->sym_pool + e->mod) == 0))
			*size = f->syms[next].addr - at;
	}
	if (!*size)
		return NULL; /* past the last symbol: not known to be in it */
	*offset = addr - at;
	*module = e->mod ? f->sym_pool + e->mod : NULL;
	return f->sym_pool + e->name;
}

/*
 * The printk formats block: `0xADDR : "text"` lines, the strings that
 * trace_printk() and tracepoint_string() pointers name. Kept sorted by
 * address, unescaped.
 */
struct tw_dat_str {
	uint64_t addr;
	uint32_t text; /* offset in the pool */
};

static int by_str_addr(const void *a, const void *b)
{
	const struct tw_dat_str *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int tw_dat_strings_parse(tw_dat_file *f, const char *text, size_t len)
{
	size_t cap = 0, pool_cap = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *q = p;
		uint64_t addr = 0;
		int d, nd = 0;
		if (le - q > 2 && q[0] == '0' && q[1] == 'x')
			q += 2;
		while (q < le && (d = tw_hexval(*q)) >= 0 && nd < 17)
			addr = addr * 16 + (uint64_t)d, q++, nd++;
		const char *open = q + 4;
		if (nd && nd <= 16 && le - q >= 5 &&
		    memcmp(q, " : \"", 4) == 0 && le[-1] == '"' && open < le) {
			size_t n = (size_t)(le - 1 - open);
			if (tw_grow(f->mem, (void **)&f->strs, &cap,
				    f->nstrs + 1, sizeof(*f->strs)) ||
			    tw_grow(f->mem, (void **)&f->str_pool, &pool_cap,
				    f->str_pool_len + n + 1, 1))
				return -1;
			f->strs[f->nstrs].addr = addr;
			f->strs[f->nstrs].text = (uint32_t)f->str_pool_len;
			f->nstrs++;
			char *o = f->str_pool + f->str_pool_len;
			for (const char *c = open; c < le - 1; c++) {
				if (*c == '\\' && c + 1 < le - 1) {
					c++;
					*o++ = *c == 'n'   ? '\n'
					       : *c == 't' ? '\t'
							   : *c;
				} else {
					*o++ = *c;
				}
			}
			*o++ = '\0';
			f->str_pool_len = (size_t)(o - f->str_pool);
		}
		p = nl ? nl + 1 : end;
	}
	if (f->nstrs > 1)
		qsort(f->strs, f->nstrs, sizeof(*f->strs), by_str_addr);
	return 0;
}

const char *tw_dat_printk_string(const tw_dat_file *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nstrs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->strs[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nstrs && f->strs[lo].addr == addr
		       ? f->str_pool + f->strs[lo].text
		       : NULL;
}
