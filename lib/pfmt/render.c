/* SPDX-License-Identifier: MIT */
/*
 * Running a compiled print format forwards: a binary record to the text
 * the kernel prints for it. Integer conversions follow C's printf (the
 * length modifier truncates, as passing through varargs does); the
 * helpers follow the kernel's trace_print_*_seq(): __print_flags takes
 * table entries in order while bits remain and prints what is left as
 * 0x..., __print_symbolic prints the first equal entry or 0x...,
 * __print_hex "%02x" bytes with spaces, __print_array "{0x1,0x2}".
 */
#include <stdio.h>
#include <string.h>

#include "pfmt-int.h"

/* ---- fields in a record ---- */

static uint64_t load(const tw_pfmt *p, const unsigned char *at, size_t size)
{
	uint64_t v = 0;
	switch (size) {
	case 1:
		return at[0];
	case 2: {
		uint16_t x;
		memcpy(&x, at, 2);
		return p->layout.big_endian ? __builtin_bswap16(x) : x;
	}
	case 4: {
		uint32_t x;
		memcpy(&x, at, 4);
		return p->layout.big_endian ? __builtin_bswap32(x) : x;
	}
	case 8:
		memcpy(&v, at, 8);
		return p->layout.big_endian ? __builtin_bswap64(v) : v;
	}
	return 0;
}

static int64_t extend(uint64_t v, size_t size, int is_signed)
{
	if (size >= 8)
		return (int64_t)v;
	v &= (1ull << (size * 8)) - 1;
	if (is_signed) {
		uint64_t sign = 1ull << (size * 8 - 1);
		v = (v ^ sign) - sign;
	}
	return (int64_t)v;
}

/*
 * A stack's frames (TW_PFF_STACK): caller[0 .. min(size, what the record
 * holds)), up to the first ULONG_MAX (older kernels' end mark) or 0 (a
 * user stack's). *short_ set when the record holds fewer than its size
 * says, or the size is negative: damage.
 */
static size_t stack_frames(const tw_pfmt *p, const unsigned char *data,
			   size_t len, int *short_)
{
	const tw_pf_field *f = &p->fields[p->stack_field];
	size_t es = f->elem_size, off = f->offset;
	size_t room = len > off ? (len - off) / es : 0, want = room;
	*short_ = 0;
	if (p->stack_count >= 0) {
		const tw_pf_field *nf = &p->fields[p->stack_count];
		int32_t n = 0;
		if ((size_t)nf->offset + 4 <= len)
			n = (int32_t)load(p, data + nf->offset, 4);
		if (n < 0 || (size_t)n > room)
			*short_ = 1;
		if (n < 0)
			want = 0;
		else if ((size_t)n < room)
			want = (size_t)n;
	}
	uint64_t end = es == 8 ? UINT64_MAX : (1ull << (es * 8)) - 1;
	size_t k = 0;
	for (; k < want; k++) {
		uint64_t v = load(p, data + off + k * es, es);
		if (v == end || v == 0)
			break;
	}
	return k;
}

int tw_pfmt_stack_short(const tw_pfmt *p, const void *data, size_t len)
{
	int short_ = 0;
	if (p->stack)
		stack_frames(p, data, len, &short_);
	return short_;
}

static int bytes_of(const tw_pfmt *p, const tw_pf_field *f,
		    const unsigned char *data, size_t len,
		    const unsigned char **at, size_t *n)
{
	size_t off = f->offset;
	if (off > len)
		return -1;
	if (f->flags & TW_PFF_STACK) {
		int short_;
		*at = data + off;
		*n = stack_frames(p, data, len, &short_) * f->elem_size;
		return 0;
	}
	if (f->flags & TW_PFF_DYNAMIC) {
		if (len - off < 4)
			return -1;
		uint32_t loc = (uint32_t)load(p, data + off, 4);
		size_t where = loc & 0xffff, dn = loc >> 16;
		if (f->flags & TW_PFF_RELATIVE)
			where += off + 4;
		if (where > len || dn > len - where)
			return -1;
		*at = data + where;
		*n = dn;
		return 0;
	}
	size_t size = f->size ? f->size : len - off; /* flexible array */
	if (size > len - off)
		return -1;
	*at = data + off;
	*n = size;
	return 0;
}

int tw_pfmt_field_bytes(const tw_pfmt *p, size_t field, const void *data,
			size_t len, const unsigned char **at, size_t *n)
{
	if (field >= p->nall)
		return -1;
	return bytes_of(p, &p->fields[field], data, len, at, n);
}

static int is_scalar(const tw_pf_field *f)
{
	return !(f->flags & (TW_PFF_ARRAY | TW_PFF_DYNAMIC | TW_PFF_STRING)) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

int tw_pfmt_field_int(const tw_pfmt *p, size_t field, const void *data,
		      size_t len, int64_t *out)
{
	if (field >= p->nall || !is_scalar(&p->fields[field]))
		return -1;
	const tw_pf_field *f = &p->fields[field];
	if ((size_t)f->offset + f->size > len)
		return -1;
	*out = extend(load(p, (const unsigned char *)data + f->offset, f->size),
		      f->size, f->flags & TW_PFF_SIGNED);
	return 0;
}

static size_t elem_size(const tw_pf_field *f)
{
	size_t e = f->elem_size;
	return e == 1 || e == 2 || e == 4 || e == 8 ? e : 1;
}

size_t tw_pfmt_field_elems(const tw_pfmt *p, size_t field, const void *data,
			   size_t len)
{
	const unsigned char *at;
	size_t n;
	if (field >= p->nall ||
	    !(p->fields[field].flags & (TW_PFF_ARRAY | TW_PFF_DYNAMIC)) ||
	    tw_pfmt_field_bytes(p, field, data, len, &at, &n))
		return 0;
	return n / elem_size(&p->fields[field]);
}

int tw_pfmt_field_elem(const tw_pfmt *p, size_t field, const void *data,
		       size_t len, size_t j, int64_t *out)
{
	const unsigned char *at;
	size_t n;
	if (field >= p->nall ||
	    tw_pfmt_field_bytes(p, field, data, len, &at, &n))
		return -1;
	const tw_pf_field *f = &p->fields[field];
	size_t es = elem_size(f);
	if (j >= n / es)
		return -1;
	*out = extend(load(p, at + j * es, es), es, f->flags & TW_PFF_SIGNED);
	return 0;
}

int tw_pfmt_fits(const tw_pfmt *p, const void *data, size_t len)
{
	if (len < p->min_len)
		return 0;
	for (size_t i = 0; i < p->ndynamic; i++) {
		const unsigned char *at;
		size_t n;
		if (bytes_of(p, &p->fields[p->dynamic[i]], data, len, &at, &n))
			return 0;
	}
	return 1;
}

/* ---- expressions ---- */

static int64_t field_value(const tw_pfmt *p, int f, const unsigned char *data,
			   size_t len)
{
	const tw_pf_field *fd = &p->fields[f];
	if (is_scalar(fd)) {
		if ((size_t)fd->offset + fd->size > len)
			return 0;
		return extend(load(p, data + fd->offset, fd->size), fd->size,
			      fd->flags & TW_PFF_SIGNED);
	}
	/* a string or array as a number: where it is (a pointer's truth) */
	const unsigned char *at;
	size_t n;
	if (bytes_of(p, fd, data, len, &at, &n) == 0)
		return (int64_t)(at - data) + 1;
	return 0;
}

int64_t tw_pf_eval(const tw_pfmt *p, int32_t i, const unsigned char *data,
		   size_t len)
{
	const pf_node *n = &p->nodes[i];
	int64_t x, y;
	uint64_t ux, uy;
	switch (n->op) {
	case N_CONST:
		return n->k;
	case N_FIELD:
		return field_value(p, n->a, data, len);
	case N_ELEM:
		y = tw_pf_eval(p, n->b, data, len);
		if (y < 0 || tw_pfmt_field_elem(p, (size_t)n->a, data, len,
						(size_t)y, &x))
			return 0;
		return x;
	case N_DYNLEN: {
		const unsigned char *at;
		size_t bn;
		if (bytes_of(p, &p->fields[n->a], data, len, &at, &bn))
			return 0;
		return (int64_t)bn;
	}
	case N_CAST:
		x = tw_pf_eval(p, n->a, data, len);
		if (n->sub & CAST_NONE)
			return x;
		if (n->sub & CAST_BOOL)
			return x != 0;
		return extend((uint64_t)x, n->sub & 0xf, n->sub & CAST_SIGNED);
	case N_UN:
		x = tw_pf_eval(p, n->a, data, len);
		return n->sub == U_NOT	  ? !x
		       : n->sub == U_BNOT ? ~x
					  : (int64_t)(0 - (uint64_t)x);
	case N_COND:
		return tw_pf_eval(p, n->a, data, len)
			       ? tw_pf_eval(p, n->b, data, len)
			       : tw_pf_eval(p, n->c, data, len);
	case N_BIN:
		x = tw_pf_eval(p, n->a, data, len);
		if (n->sub == B_LAND)
			return x && tw_pf_eval(p, n->b, data, len);
		if (n->sub == B_LOR)
			return x || tw_pf_eval(p, n->b, data, len);
		y = tw_pf_eval(p, n->b, data, len);
		ux = (uint64_t)x, uy = (uint64_t)y;
		switch (n->sub) {
		case B_ADD:
			return (int64_t)(ux + uy);
		case B_SUB:
			return (int64_t)(ux - uy);
		case B_MUL:
			return (int64_t)(ux * uy);
		case B_DIV:
			return y ? (int64_t)(ux / uy) : 0;
		case B_MOD:
			return y ? (int64_t)(ux % uy) : 0;
		case B_SHL:
			return uy < 64 ? (int64_t)(ux << uy) : 0;
		case B_SHR:
			return uy < 64 ? (int64_t)(ux >> uy) : 0;
		case B_AND:
			return x & y;
		case B_OR:
			return x | y;
		case B_XOR:
			return x ^ y;
		case B_EQ:
			return x == y;
		case B_NE:
			return x != y;
		case B_LT:
			return x < y;
		case B_GT:
			return x > y;
		case B_LE:
			return x <= y;
		case B_GE:
			return x >= y;
		}
		return 0;
	case N_STR:
		/* an identifier the format leaves undefined (vmemmap_base):
		 * 0, as libtraceevent takes it */
		return 0;
	default:
		/* strings and helpers as numbers: they are there */
		return 1;
	}
}

/* ---- text ---- */

static int put(const tw_pfmt *p, tw_buf *out, const char *s, size_t n)
{
	/* most pieces are a few bytes: no call into memcpy for them */
	if (n <= 16 && out->len + n < out->cap) {
		char *d = out->data + out->len;
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
		out->len += n;
		d[n] = '\0';
		return 0;
	}
	return tw_buf_put(p->mem, out, s, n);
}

static int puts_(const tw_pfmt *p, tw_buf *out, const char *s)
{
	return put(p, out, s, strlen(s));
}

static int put_hex(const tw_pfmt *p, tw_buf *out, uint64_t v, int prefix)
{
	char b[20];
	int n = 0;
	do {
		b[sizeof(b) - 1 - n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	if (prefix) {
		b[sizeof(b) - 1 - n++] = 'x';
		b[sizeof(b) - 1 - n++] = '0';
	}
	return put(p, out, b + sizeof(b) - n, (size_t)n);
}

/* printf's integer conversion, for the sizes and flags formats use: made
 * in one local buffer and appended at once. */
static int put_int(const tw_pfmt *p, tw_buf *out, const pf_seg *g,
		   int64_t value, int width, int prec)
{
	char digits[24];
	int nd = 0;
	int conv = g->conv;
	int is_signed = conv == 'd' || conv == 'i';
	uint64_t u = (uint64_t)extend((uint64_t)value, g->size, is_signed);
	char sign = 0;
	if (is_signed && (int64_t)u < 0) {
		sign = '-';
		u = 0 - u;
	} else if (is_signed && (g->flags & F_PLUS)) {
		sign = '+';
	} else if (is_signed && (g->flags & F_SPACE)) {
		sign = ' ';
	} else if (!is_signed && g->size < 8) {
		u &= (1ull << (g->size * 8)) - 1;
	}
	unsigned base = conv == 'x' || conv == 'X' ? 16 : conv == 'o' ? 8 : 10;
	const char *set = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
	if (!(u == 0 && prec == 0)) {
		if (base == 10) {
			char *e = digits + sizeof(digits);
			nd = (int)(e - tw_digits(u, e));
		} else
			do {
				digits[sizeof(digits) - 1 - nd++] =
					set[u % base];
				u /= base;
			} while (u);
	}
	const char *pre = "";
	int npre = 0;
	if ((g->flags & F_HASH) && value != 0) {
		if (base == 16)
			pre = conv == 'X' ? "0X" : "0x", npre = 2;
		else if (base == 8)
			pre = "0", npre = 1;
	}
	if (prec > 4096)
		prec = 4096;
	int zeros = prec > nd ? prec - nd : 0;
	int body = (sign != 0) + npre + zeros + nd;
	int pad = width > body ? width - body : 0;
	if ((g->flags & F_ZERO) && !(g->flags & F_MINUS) && prec < 0)
		zeros += pad, pad = 0;
	/* written where it goes (the widths are bounded) */
	size_t total = (size_t)(pad + (sign != 0) + npre + zeros + nd);
	if (out->len + total >= out->cap &&
	    tw_buf_reserve(p->mem, out, out->len + total + 1))
		return -1;
	char *b = out->data + out->len;
	size_t k = 0;
	if (!(g->flags & F_MINUS))
		for (int i = 0; i < pad; i++)
			b[k++] = ' ';
	if (sign)
		b[k++] = sign;
	for (int i = 0; i < npre; i++)
		b[k++] = pre[i];
	for (int i = 0; i < zeros; i++)
		b[k++] = '0';
	const char *d = digits + sizeof(digits) - nd;
	for (int i = 0; i < nd; i++)
		b[k++] = d[i];
	if (g->flags & F_MINUS)
		for (int i = 0; i < pad; i++)
			b[k++] = ' ';
	out->len += k;
	out->data[out->len] = '\0';
	return 0;
}

/* The text a string-valued node makes (helpers, literals, fields). */
static int render_str(const tw_pfmt *p, int32_t i, const unsigned char *data,
		      size_t len, const tw_pf_resolve *rs, tw_buf *out)
{
	const pf_node *n = &p->nodes[i];
	const unsigned char *at;
	size_t bn;
	switch (n->op) {
	case N_STR:
		return put(p, out, p->pool + n->k, n->klen);
	case N_COND:
		return render_str(p,
				  tw_pf_eval(p, n->a, data, len) ? n->b : n->c,
				  data, len, rs, out);
	case N_FIELD: {
		const tw_pf_field *f = &p->fields[n->a];
		if (!(f->flags &
		      (TW_PFF_STRING | TW_PFF_ARRAY | TW_PFF_DYNAMIC))) {
			/* a pointer to a string the kernel keeps (a
			 * trace_printk format, a tracepoint_string()) */
			int64_t v = tw_pf_eval(p, i, data, len);
			const char *str =
				rs && rs->string
					? rs->string(rs->ctx, (uint64_t)v)
					: NULL;
			if (str)
				return puts_(p, out, str);
			return put_hex(p, out, (uint64_t)v, 1);
		}
		if (bytes_of(p, f, data, len, &at, &bn))
			return 0;
		const unsigned char *z = memchr(at, '\0', bn);
		return put(p, out, (const char *)at, z ? (size_t)(z - at) : bn);
	}
	case N_SYMBOL: {
		int64_t v = tw_pf_eval(p, n->a, data, len);
		for (int64_t k = 0; k < n->k; k++) {
			const pf_sym *s = &p->syms[n->b + k];
			if (s->resolved && s->value == v)
				return put(p, out, p->pool + s->str, s->len);
		}
		return put_hex(p, out, (uint64_t)v, 1);
	}
	case N_FLAGS: {
		uint64_t v = (uint64_t)tw_pf_eval(p, n->a, data, len);
		const char *delim = p->pool + n->c;
		int first = 1;
		for (int64_t k = 0; k < n->k && v; k++) {
			const pf_sym *s = &p->syms[n->b + k];
			uint64_t m = (uint64_t)s->value;
			if (!s->resolved || (v & m) != m)
				continue;
			v &= ~m;
			if (!first && puts_(p, out, delim))
				return -1;
			first = 0;
			if (put(p, out, p->pool + s->str, s->len))
				return -1;
		}
		if (v) {
			if (!first && puts_(p, out, delim))
				return -1;
			return put_hex(p, out, v, 1);
		}
		return 0;
	}
	case N_HEX:
	case N_HEXSTR:
	case N_INTARRAY: {
		/* the bytes: a dynamic array, or a field's own */
		const pf_node *src = &p->nodes[n->a];
		if ((src->op != N_DYN && src->op != N_FIELD) ||
		    bytes_of(p, &p->fields[src->a], data, len, &at, &bn))
			return 0;
		int64_t count = tw_pf_eval(p, n->b, data, len);
		if (n->op == N_INTARRAY) {
			int64_t es = tw_pf_eval(p, n->c, data, len);
			if (es != 1 && es != 2 && es != 4 && es != 8)
				return 0;
			if (count < 0 || (uint64_t)count > bn / (uint64_t)es)
				count = (int64_t)(bn / (uint64_t)es);
			if (puts_(p, out, "{"))
				return -1;
			for (int64_t k = 0; k < count; k++) {
				if (k && puts_(p, out, ","))
					return -1;
				if (put_hex(p, out,
					    load(p, at + k * es, (size_t)es),
					    1))
					return -1;
			}
			return puts_(p, out, "}");
		}
		if (count < 0 || (uint64_t)count > bn)
			count = (int64_t)bn;
		for (int64_t k = 0; k < count; k++) {
			char b[3] = {"0123456789abcdef"[at[k] >> 4],
				     "0123456789abcdef"[at[k] & 15], ' '};
			if (k && n->op == N_HEX && puts_(p, out, " "))
				return -1;
			if (put(p, out, b, 2))
				return -1;
		}
		return 0;
	}
	case N_BITMASK: {
		/* the kernel's %*pb: 32-bit words, most significant first,
		 * comma separated */
		if (bytes_of(p, &p->fields[n->a], data, len, &at, &bn))
			return 0;
		size_t words = bn / 4;
		for (size_t k = words; k-- > 0;) {
			char b[9];
			uint32_t w = (uint32_t)load(p, at + k * 4, 4);
			for (int d = 7; d >= 0; d--, w >>= 4)
				b[d] = "0123456789abcdef"[w & 15];
			if (put(p, out, b, 8) || (k && puts_(p, out, ",")))
				return -1;
		}
		return 0;
	}
	default: {
		pf_seg g = {.conv = 'd', .size = 8};
		return put_int(p, out, &g, tw_pf_eval(p, i, data, len), -1, -1);
	}
	}
}

static int put_padded(const tw_pfmt *p, tw_buf *out, const char *s, size_t n,
		      int width, int prec, int left)
{
	if (prec >= 0 && (size_t)prec < n)
		n = (size_t)prec;
	size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
	char spaces[64];
	memset(spaces, ' ', sizeof(spaces));
	if (!left)
		for (size_t k = pad; k > 0; k -= k < 64 ? k : 64)
			if (put(p, out, spaces, k < 64 ? k : 64))
				return -1;
	if (put(p, out, s, n))
		return -1;
	if (left)
		for (size_t k = pad; k > 0; k -= k < 64 ? k : 64)
			if (put(p, out, spaces, k < 64 ? k : 64))
				return -1;
	return 0;
}

static int put_symbol(const tw_pfmt *p, tw_buf *out, const pf_seg *g,
		      uint64_t addr, const tw_pf_resolve *rs)
{
	uint64_t off = 0, size = 0;
	const char *mod = NULL;
	const char *name =
		rs && rs->symbol ? rs->symbol(rs->ctx, addr, &off, &size, &mod)
				 : NULL;
	if (!name)
		return put_hex(p, out, addr, 1);
	if (puts_(p, out, name))
		return -1;
	if (g->pext[0] == 'S' || g->pext[0] == 'F' || g->pext[0] == 'B') {
		if (puts_(p, out, "+") || put_hex(p, out, off, 1))
			return -1;
		if (size && (puts_(p, out, "/") || put_hex(p, out, size, 1)))
			return -1;
	}
	if (mod && *mod &&
	    (puts_(p, out, " [") || puts_(p, out, mod) || puts_(p, out, "]")))
		return -1;
	return 0;
}

int tw_pf_render_conv(const tw_pfmt *p, const pf_seg *g,
		      const unsigned char *data, size_t len,
		      const tw_pf_resolve *rs, tw_buf *out)
{
	int width = g->width, prec = g->prec;
	if (g->width_expr >= 0) {
		width = (int)tw_pf_eval(p, g->width_expr, data, len);
		if (width < 0)
			width = -width; /* C: a negative '*' is '-' */
		if (width > 4096)
			width = 4096;
	}
	if (g->prec_expr >= 0) {
		prec = (int)tw_pf_eval(p, g->prec_expr, data, len);
		if (prec > 1 << 20)
			prec = 1 << 20;
	}
	switch (g->conv) {
	case 's':
		if (width <= 0 && prec < 0)
			return render_str(p, g->expr, data, len, rs, out);
		{
			size_t at = out->len;
			if (render_str(p, g->expr, data, len, rs, out))
				return -1;
			/* pad what was just written: move it aside */
			size_t n = out->len - at;
			char small[256];
			char *tmp = n <= sizeof(small) ? small
						       : tw_malloc(p->mem, n);
			if (!tmp)
				return -1;
			memcpy(tmp, out->data + at, n);
			out->len = at;
			int rc = put_padded(p, out, tmp, n, width, prec,
					    g->flags & F_MINUS);
			if (tmp != small)
				tw_free(p->mem, tmp);
			return rc;
		}
	case 'c': {
		char ch = (char)tw_pf_eval(p, g->expr, data, len);
		return put_padded(p, out, &ch, 1, width, -1,
				  g->flags & F_MINUS);
	}
	case 'p': {
		if (tw_pf_bytes_ext(g->pext)) {
			int32_t x = g->expr;
			while (p->nodes[x].op == N_CAST)
				x = p->nodes[x].a;
			const unsigned char *at;
			size_t bn;
			if (bytes_of(p, &p->fields[p->nodes[x].a], data, len,
				     &at, &bn))
				return 0;
			return tw_pf_render_bytes(p, g->pext, at, bn, out);
		}
		uint64_t v = (uint64_t)tw_pf_eval(p, g->expr, data, len);
		if (p->layout.long_size == 4)
			v &= 0xffffffffu;
		if (g->pext[0] && g->pext[0] != 'x' && g->pext[0] != 'K')
			return put_symbol(p, out, g, v, rs);
		/* what libtraceevent prints: the address, not the hash */
		if (v == 0 && !g->pext[0])
			return puts_(p, out, "(nil)");
		return put_hex(p, out, v, g->pext[0] != 'x');
	}
	default:
		return put_int(p, out, g, tw_pf_eval(p, g->expr, data, len),
			       width, prec);
	}
}

void tw_pf_mark_fast(tw_pfmt *p)
{
	for (size_t i = 0; i < p->nsegs; i++) {
		pf_seg *g = &p->segs[i];
		g->fast = FAST_NONE;
		if (g->kind != S_CONV || g->flags || g->width >= 0 ||
		    g->prec >= 0 || g->width_expr >= 0 || g->prec_expr >= 0 ||
		    p->nodes[g->expr].op != N_FIELD)
			continue;
		const tw_pf_field *f = &p->fields[p->nodes[g->expr].a];
		if ((g->conv == 'd' || g->conv == 'i' || g->conv == 'u') &&
		    is_scalar(f))
			g->fast = FAST_INT;
		else if (g->conv == 's' &&
			 (f->flags &
			  (TW_PFF_STRING | TW_PFF_ARRAY | TW_PFF_DYNAMIC)))
			g->fast = FAST_STR;
	}
}

/* FAST_INT: the field's value, as put_int() would print it plainly. */
static int fast_int(const tw_pfmt *p, const pf_seg *g,
		    const unsigned char *data, size_t len, tw_buf *out)
{
	const tw_pf_field *f = &p->fields[p->nodes[g->expr].a];
	int64_t v = 0;
	if ((size_t)f->offset + f->size <= len)
		v = extend(load(p, data + f->offset, f->size), f->size,
			   f->flags & TW_PFF_SIGNED);
	uint64_t u = (uint64_t)extend((uint64_t)v, g->size, g->conv != 'u');
	if (g->conv == 'u' && g->size < 8)
		u &= (1ull << (g->size * 8)) - 1;
	if (out->len + 24 >= out->cap &&
	    tw_buf_reserve(p->mem, out, out->len + 25))
		return -1;
	char *o = out->data + out->len;
	if (g->conv != 'u' && (int64_t)u < 0) {
		*o++ = '-';
		u = 0 - u;
	}
	char digits[20], *e = digits + sizeof(digits);
	const char *d = tw_digits(u, e);
	while (d < e)
		*o++ = *d++;
	*o = '\0';
	out->len = (size_t)(o - out->data);
	return 0;
}

/* FAST_STR: a string field up to its NUL, as render_str() puts it. */
static int fast_str(const tw_pfmt *p, const pf_seg *g,
		    const unsigned char *data, size_t len, tw_buf *out)
{
	const unsigned char *at;
	size_t bn;
	if (bytes_of(p, &p->fields[p->nodes[g->expr].a], data, len, &at, &bn))
		return 0;
	const unsigned char *z = memchr(at, '\0', bn);
	return put(p, out, (const char *)at, z ? (size_t)(z - at) : bn);
}

/*
 * A stack as the kernel's trace file prints it (trace_output.c): its
 * trace_stack_print() names each frame as seq_print_ip_sym() does without
 * the sym-offset option (the symbol's name, or 0x%08lx), its
 * trace_user_stack_print() prints each address (" <%016lx>" on 64 bits,
 * without sym-userobj). The kernel ends each line with a newline; the
 * last one is left out, as for any text.
 */
static int render_stack(const tw_pfmt *p, const unsigned char *data, size_t len,
			const tw_pf_resolve *rs, tw_buf *out)
{
	int user = p->stack == TW_PF_STACK_USER, short_;
	const tw_pf_field *f = &p->fields[p->stack_field];
	size_t n = stack_frames(p, data, len, &short_);
	const char *head = user ? "<user stack trace>" : "<stack trace>";
	if (put(p, out, head, strlen(head)))
		return -1;
	/* perf.data's user stacks say each frame's mapping, a line each */
	const unsigned char *maps = NULL, *mend = NULL;
	size_t mn = 0;
	if (user && p->stack_maps >= 0 &&
	    bytes_of(p, &p->fields[p->stack_maps], data, len, &maps, &mn) == 0)
		mend = maps + mn;
	for (size_t k = 0; k < n; k++) {
		uint64_t addr = load(p, data + f->offset + k * f->elem_size,
				     f->elem_size);
		uint64_t off, size;
		const char *mod, *name = NULL;
		char num[32];
		if (!user && rs && rs->symbol)
			name = rs->symbol(rs->ctx, addr, &off, &size, &mod);
		if (!name) {
			/* " <%016lx>" (8 digits on 32 bits), or "0x%08lx":
			 * written here, the stacks' frames are many */
			int digits = user ? (f->elem_size == 4 ? 8 : 16) : 8;
			uint64_t v = addr;
			size_t k = sizeof(num) - 1;
			num[k] = 0;
			if (user)
				num[--k] = '>';
			for (int d = 0; v || d < digits; d++, v >>= 4)
				num[--k] = "0123456789abcdef"[v & 15];
			if (user) {
				num[--k] = '<';
				num[--k] = ' ';
			} else {
				num[--k] = 'x';
				num[--k] = '0';
			}
			name = num + k;
		}
		if (put(p, out, "\n => ", 5) || put(p, out, name, strlen(name)))
			return -1;
		if (!maps || maps >= mend)
			continue;
		const unsigned char *nl =
			memchr(maps, '\n', (size_t)(mend - maps));
		const unsigned char *le = nl ? nl : mend;
		size_t ll = (size_t)(le - maps);
		while (ll && maps[ll - 1] == 0)
			ll--; /* the string's NUL */
		if (ll && (put(p, out, " (", 2) ||
			   put(p, out, (const char *)maps, ll) ||
			   put(p, out, ")", 1)))
			return -1;
		maps = nl ? nl + 1 : mend;
	}
	return 0;
}

int tw_pfmt_render(const tw_pfmt *p, const void *data, size_t len,
		   const tw_pf_resolve *rs, tw_buf *out)
{
	if (p->stack)
		return render_stack(p, data, len, rs, out);
	for (size_t i = 0; i < p->nsegs; i++) {
		const pf_seg *g = &p->segs[i];
		int rc;
		if (g->kind == S_LIT)
			rc = put(p, out, p->pool + g->lit, g->lit_len);
		else if (g->fast == FAST_INT)
			rc = fast_int(p, g, data, len, out);
		else if (g->fast == FAST_STR)
			rc = fast_str(p, g, data, len, out);
		else
			rc = tw_pf_render_conv(p, g, data, len, rs, out);
		if (rc)
			return -1;
	}
	return 0;
}

int tw_pfmt_label(const tw_pfmt *p, size_t field, const void *data, size_t len,
		  const tw_pf_resolve *rs, tw_buf *out)
{
	if (field >= p->nfields || p->fallback || p->label_seg[field] < 0)
		return 0;
	size_t at = out->len;
	for (int32_t k = p->label_seg[field]; k <= p->label_end[field]; k++)
		if (tw_pf_render_conv(p, &p->segs[k], data, len, rs, out))
			return -1;
	/* a number no entry named ("0x9") is no label, nor is nothing */
	if (out->len == at || (out->len - at >= 2 && out->data[at] == '0' &&
			       out->data[at + 1] == 'x')) {
		out->len = at;
		return 0;
	}
	return 1;
}
