/* SPDX-License-Identifier: MIT */
/*
 * The kernel's %p extensions that print bytes of the record (the kernel's
 * lib/vsprintf.c): %pU a UUID (b: bytes in order, the default; l: the
 * first three groups little-endian; upper case for B and L), %pM a MAC
 * address, %pI4 and %pI6 addresses (c: IPv6 compressed as RFC 5952, with
 * IPv4-mapped and -compatible forms in dotted quads), %pIS a struct
 * sockaddr (p: with the port; c: compressed), as "1.2.3.4:80" or
 * "[::1]:80".
 */
#include <stdio.h>
#include <string.h>

#include "pfmt-int.h"

int tw_pf_bytes_ext(const char *e)
{
	return (e[0] == 'U' || e[0] == 'M' ||
		(e[0] == 'I' && (e[1] == '4' || e[1] == '6' || e[1] == 'S')));
}

static int put(const tw_pfmt *p, tw_buf *out, const char *s)
{
	return tw_buf_append(p->mem, out, s, strlen(s));
}

static int ip4(const tw_pfmt *p, const unsigned char *b, tw_buf *out)
{
	char t[16];
	snprintf(t, sizeof(t), "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
	return put(p, out, t);
}

/* RFC 5952 as ip6_compressed_string(): the longest run of zero words
 * (the first of equal ones, at least two) becomes "::". */
static int ip6(const tw_pfmt *p, const unsigned char *b, int compress,
	       tw_buf *out)
{
	char t[48];
	size_t n = 0;
	unsigned w[8];
	for (int i = 0; i < 8; i++)
		w[i] = (unsigned)b[2 * i] << 8 | b[2 * i + 1];
	if (!compress) {
		for (int i = 0; i < 8; i++)
			n += (size_t)snprintf(t + n, sizeof(t) - n, "%s%04x",
					      i ? ":" : "", w[i]);
		return put(p, out, t);
	}
	/* v4-mapped (::ffff:a.b.c.d) and the like print the v4 part */
	int mapped =
		!w[0] && !w[1] && !w[2] && !w[3] && !w[4] && w[5] == 0xffff;
	int words = mapped ? 6 : 8;
	int best = -1, best_len = 1;
	for (int i = 0; i < words;) {
		int j = i;
		while (j < words && !w[j])
			j++;
		if (j - i > best_len)
			best = i, best_len = j - i;
		i = j > i ? j : i + 1;
	}
	for (int i = 0; i < words; i++) {
		if (i == best) {
			n += (size_t)snprintf(t + n, sizeof(t) - n, "::");
			i += best_len - 1;
			continue;
		}
		n += (size_t)snprintf(t + n, sizeof(t) - n, "%s%x",
				      i && i != best + best_len ? ":" : "",
				      w[i]);
	}
	if (mapped) {
		if (n && t[n - 1] != ':')
			t[n++] = ':';
		snprintf(t + n, sizeof(t) - n, "%u.%u.%u.%u", b[12], b[13],
			 b[14], b[15]);
	}
	return put(p, out, t);
}

int tw_pf_render_bytes(const tw_pfmt *p, const char *e, const unsigned char *b,
		       size_t n, tw_buf *out)
{
	char t[64];
	if (e[0] == 'U') {
		static const int order_b[16] = {0, 1, 2,  3,  4,  5,  6,  7,
						8, 9, 10, 11, 12, 13, 14, 15};
		static const int order_l[16] = {3, 2, 1,  0,  5,  4,  7,  6,
						8, 9, 10, 11, 12, 13, 14, 15};
		if (n < 16)
			return 0;
		const int *o = e[1] == 'l' || e[1] == 'L' ? order_l : order_b;
		const char *hex = e[1] == 'B' || e[1] == 'L'
					  ? "0123456789ABCDEF"
					  : "0123456789abcdef";
		size_t k = 0;
		for (int i = 0; i < 16; i++) {
			if (i == 4 || i == 6 || i == 8 || i == 10)
				t[k++] = '-';
			t[k++] = hex[b[o[i]] >> 4];
			t[k++] = hex[b[o[i]] & 15];
		}
		t[k] = '\0';
		return put(p, out, t);
	}
	if (e[0] == 'M') {
		if (n < 6)
			return 0;
		snprintf(t, sizeof(t), "%02x:%02x:%02x:%02x:%02x:%02x", b[0],
			 b[1], b[2], b[3], b[4], b[5]);
		return put(p, out, t);
	}
	if (e[1] == '4')
		return n < 4 ? 0 : ip4(p, b, out);
	if (e[1] == '6')
		return n < 16 ? 0 : ip6(p, b, e[2] == 'c', out);
	/* %pIS: a struct sockaddr, its family first (host byte order) */
	if (n < 2)
		return 0;
	unsigned family = (unsigned)b[0] | (unsigned)b[1] << 8;
	int port = strchr(e + 2, 'p') != NULL;
	int compress = strchr(e + 2, 'c') != NULL;
	unsigned pt = n >= 4 ? (unsigned)b[2] << 8 | b[3] : 0;
	if (family == 2 && n >= 8) { /* AF_INET: port, then the address */
		if (ip4(p, b + 4, out))
			return -1;
	} else if (family == 10 && n >= 24) { /* AF_INET6: port, flow, addr */
		if ((port && put(p, out, "[")) ||
		    ip6(p, b + 8, compress, out) || (port && put(p, out, "]")))
			return -1;
	} else {
		return put(p, out, "(einval)");
	}
	if (port) {
		snprintf(t, sizeof(t), ":%u", pt);
		return put(p, out, t);
	}
	return 0;
}
