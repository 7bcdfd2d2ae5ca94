/* SPDX-License-Identifier: MIT */
/*
 * The kernel's types, for casts to structs and member access through
 * pointers ((struct task_struct *)curtask, $t->real_parent->pid,
 * args->rqtp->tv_sec), as bpftrace reads them: from the kernel's BTF
 * (/sys/kernel/btf/vmlinux), by libbpf. Loaded once per compilation, at
 * the first struct a script names (about 8 ms for this 6.18 kernel's
 * 126 k types), and freed when the compilation ends: the program keeps
 * only the offsets and sizes the checker takes from it.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <string.h>

#include "script-int.h"

static struct btf *vmlinux(tw_compiler *c, const tw_node *at)
{
	if (c->btf)
		return c->btf;
	errno = 0;
	struct btf *b = btf__load_vmlinux_btf();
	int e = errno;
	if (!b)
		tw_sc_error(c, TRAWL_EUNSUPPORTED, at->line, at->col,
			    "the kernel's types (BTF, "
			    "/sys/kernel/btf/vmlinux) cannot be read: %s; a "
			    "struct's members need them",
			    strerror(e ? e : ENOENT));
	c->btf = b;
	return b;
}

void tw_btf_free(tw_compiler *c)
{
	btf__free(c->btf);
	c->btf = NULL;
}

int32_t tw_btf_struct(tw_compiler *c, const tw_node *at, const char *name,
		      size_t len)
{
	struct btf *b = vmlinux(c, at);
	char buf[128];
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, name, len);
	buf[len] = 0;
	int id = btf__find_by_name_kind(b, buf, BTF_KIND_STRUCT);
	if (id <= 0)
		id = btf__find_by_name_kind(b, buf, BTF_KIND_UNION);
	if (id <= 0)
		tw_sc_error(c, TRAWL_ENOENT, at->line, at->col,
			    "struct %s is not among the kernel's types (BTF)",
			    buf);
	return id;
}

/* The type under typedefs, const, volatile and restrict. */
static const struct btf_type *bare(struct btf *b, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(b, *id);
	while (t && (btf_is_typedef(t) || btf_is_mod(t))) {
		*id = t->type;
		t = btf__type_by_id(b, *id);
	}
	return t;
}

/* Member name of struct/union sid, looked for through its anonymous
 * members too (task_struct's are in anonymous unions): its type id and
 * bit offset; 0 when it has none. */
static int find_member(struct btf *b, uint32_t sid, const char *name,
		       uint32_t *type, uint32_t *bits, uint32_t *bitfield,
		       int depth)
{
	const struct btf_type *t = bare(b, &sid);
	if (!t || !btf_is_composite(t) || depth > 8)
		return 0;
	const struct btf_member *m = btf_members(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++) {
		const char *mn = btf__name_by_offset(b, m[i].name_off);
		uint32_t off = btf_member_bit_offset(t, i);
		if (mn && *mn) {
			if (strcmp(mn, name) == 0) {
				*type = m[i].type;
				*bits = off;
				*bitfield = btf_member_bitfield_size(t, i);
				return 1;
			}
			continue;
		}
		uint32_t in;
		if (find_member(b, m[i].type, name, type, &in, bitfield,
				depth + 1)) {
			*bits = off + in;
			return 1;
		}
	}
	return 0;
}

/* The members' names, for a "did you mean". */
static void member_names(tw_compiler *c, struct btf *b, uint32_t sid,
			 const char ***names, size_t *n, size_t *cap, int depth)
{
	const struct btf_type *t = bare(b, &sid);
	if (!t || !btf_is_composite(t) || depth > 8)
		return;
	const struct btf_member *m = btf_members(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++) {
		const char *mn = btf__name_by_offset(b, m[i].name_off);
		if (mn && *mn) {
			tw_sc_grow(c, (void **)names, cap, *n + 1,
				   sizeof(**names));
			(*names)[(*n)++] = mn;
		} else {
			member_names(c, b, m[i].type, names, n, cap, depth + 1);
		}
	}
}

void tw_btf_find(tw_compiler *c, const tw_node *at, int32_t sid,
		 const char *name, tw_btf_member *out)
{
	struct btf *b = vmlinux(c, at);
	uint32_t id = (uint32_t)sid;
	const struct btf_type *st = bare(b, &id);
	const char *sname = st ? btf__name_by_offset(b, st->name_off) : "?";
	uint32_t type, bits, bitfield;
	if (!find_member(b, (uint32_t)sid, name, &type, &bits, &bitfield, 0)) {
		const char **names = NULL;
		size_t n = 0, cap = 0;
		member_names(c, b, (uint32_t)sid, &names, &n, &cap, 0);
		const char *near = tw_nearest(name, names, n);
		if (near)
			tw_sc_error(c, TRAWL_ENOENT, at->line, at->col,
				    "struct %s has no member '%s' (did you "
				    "mean '%s'?)",
				    sname, name, near);
		tw_sc_error(c, TRAWL_ENOENT, at->line, at->col,
			    "struct %s has no member '%s'", sname, name);
	}
	if (bitfield || bits % 8)
		tw_sc_error(c, TRAWL_EUNSUPPORTED, at->line, at->col,
			    "%s.%s is a bit field, which is not read yet",
			    sname, name);
	memset(out, 0, sizeof(*out));
	out->offset = bits / 8;
	const struct btf_type *t = bare(b, &type);
	if (!t)
		tw_sc_error(c, TRAWL_EFORMAT, at->line, at->col,
			    "%s.%s: a type the kernel's BTF does not hold",
			    sname, name);
	if (btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t)) {
		out->kind = TW_BTF_INT;
		out->size = t->size;
		out->is_signed =
			btf_is_int(t)
				? (btf_int_encoding(t) & BTF_INT_SIGNED) != 0
				: btf_kflag(t);
		if (out->size != 1 && out->size != 2 && out->size != 4 &&
		    out->size != 8)
			tw_sc_error(c, TRAWL_EUNSUPPORTED, at->line, at->col,
				    "%s.%s is an integer of %u bytes, which is "
				    "not read yet",
				    sname, name, out->size);
	} else if (btf_is_ptr(t)) {
		out->kind = TW_BTF_PTR;
		out->size = 8;
		uint32_t to = t->type;
		const struct btf_type *pt = bare(b, &to);
		if (pt && btf_is_composite(pt))
			out->target = (int32_t)to;
	} else if (btf_is_composite(t)) {
		out->kind = TW_BTF_STRUCT;
		out->size = t->size;
		out->target = (int32_t)type;
	} else if (btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		uint32_t et = a->type;
		const struct btf_type *e = bare(b, &et);
		if (!e || !btf_is_int(e) || e->size != 1)
			tw_sc_error(c, TRAWL_EUNSUPPORTED, at->line, at->col,
				    "%s.%s is an array, of which only char "
				    "arrays (strings) are read yet",
				    sname, name);
		out->kind = TW_BTF_CHARS;
		out->size = a->nelems;
	} else {
		tw_sc_error(c, TRAWL_EUNSUPPORTED, at->line, at->col,
			    "%s.%s is of a kind of type (BTF kind %u) that is "
			    "not read",
			    sname, name, btf_kind(t));
	}
}

int tw_btf_enum(tw_compiler *c, const tw_node *at, const char *name, int64_t *v)
{
	struct btf *b = vmlinux(c, at);
	uint32_t n = btf__type_cnt(b);
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);
			for (uint16_t k = 0; k < btf_vlen(t); k++)
				if (!strcmp(btf__name_by_offset(b,
								e[k].name_off),
					    name)) {
					*v = btf_kflag(t)
						     ? (int64_t)e[k].val
						     : (int64_t)(uint32_t)e[k]
							       .val;
					return 1;
				}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);
			for (uint16_t k = 0; k < btf_vlen(t); k++)
				if (!strcmp(btf__name_by_offset(b,
								e[k].name_off),
					    name)) {
					*v = (int64_t)btf_enum64_value(&e[k]);
					return 1;
				}
		}
	}
	return 0;
}

const char *tw_btf_name(tw_compiler *c, int32_t id)
{
	if (!c->btf || id <= 0)
		return "?";
	uint32_t u = (uint32_t)id;
	const struct btf_type *t = bare(c->btf, &u);
	return t ? btf__name_by_offset(c->btf, t->name_off) : "?";
}
