/* SPDX-License-Identifier: MIT */
/*
 * Format text, checked only as far as finding formats needs: a format is a
 * "name: NAME" line, an "ID: N" line, then lines up to one that starts
 * "print fmt:" and a newline at the end (tracefs writes exactly that, and a
 * file cut short loses one of them). What the fields and the print format
 * say is the print-format compiler's to read (lib/pfmt).
 *
 * A file of formats, as kernel-formats.zst holds and concatenating the format
 * files of an events/ tree makes:
 *
 *   file    := { blank | comment | system | format }
 *   system  := "#system" SPACE+ NAME "\n"      names the system of what follows
 *   comment := "#" ... "\n"                    the first line's is the origin
 *   format  := "name:" ... "\n" { line not starting "name:" or "#" }
 *
 * Blank lines at the end of a format are not part of it.
 */
#include <stdio.h>

#include "../core/core.h"
#include "formats-int.h"

static int starts(const char *p, size_t n, const char *lit)
{
	size_t k = strlen(lit);
	return n >= k && !memcmp(p, lit, k);
}

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* p[0..n) without blanks around it. */
static void trim(const char **p, size_t *n)
{
	while (*n && is_ws(**p)) {
		(*p)++;
		(*n)--;
	}
	while (*n && is_ws((*p)[*n - 1]))
		(*n)--;
}

/* Event and system names: visible ASCII only, no blanks. */
static int bad_name_byte(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] <= ' ' || (unsigned char)p[i] >= 0x7f)
			return (unsigned char)p[i] | 0x100;
	return 0;
}

/* The end of the line starting at i (its '\n', or n). */
static size_t eol(const char *p, size_t i, size_t n)
{
	const char *e = memchr(p + i, '\n', n - i);
	return e ? (size_t)(e - p) : n;
}

/* Up to 40 bytes of p[0..n) for a message, unprintable bytes as '?'. */
static const char *quote(char *buf, const char *p, size_t n)
{
	if (n > 40)
		n = 40;
	for (size_t i = 0; i < n; i++)
		buf[i] = p[i] >= ' ' && p[i] < 0x7f ? p[i] : '?';
	buf[n] = '\0';
	return buf;
}

static uint64_t line_of(const char *p, size_t off)
{
	uint64_t line = 1;
	for (size_t i = 0; i < off; i++)
		line += p[i] == '\n';
	return line;
}

/*
 * Check the format t[0..len) that starts on line `line` of path and add it
 * to s under the system sys[0..sys_len).
 */
static int add_format(tw_format_set *s, const char *sys, size_t sys_len,
		      const char *t, size_t len, const char *path,
		      uint64_t line, trawl_error *err)
{
	char q[41];
	size_t e1 = eol(t, 0, len);
	const char *name = t + 5; /* after "name:" */
	size_t name_len = e1 - 5;
	trim(&name, &name_len);
	if (!name_len)
		return tw_error_at(err, TRAWL_EPARSE, 0, path, line, 0, 0,
				   "cannot read the event name of a format");
	if (name_len > TW_FORMAT_MAX_NAME)
		return tw_error_at(err, TRAWL_EPARSE, 0, path, line, 0, 0,
				   "cannot take an event name of %zu bytes "
				   "(at most %u)",
				   name_len, TW_FORMAT_MAX_NAME);
	int bad = bad_name_byte(name, name_len);
	if (bad)
		return tw_error_at(err, TRAWL_EPARSE, 0, path, line, 0, 0,
				   "cannot take byte 0x%02x in event name "
				   "\"%s\"",
				   bad & 0xff, quote(q, name, name_len));
	if (len > TW_FORMAT_MAX_LEN)
		return tw_error_at(err, TRAWL_ELIMIT, 0, path, line, 0, 0,
				   "cannot take the format of %s: longer "
				   "than %u KiB",
				   quote(q, name, name_len),
				   TW_FORMAT_MAX_LEN >> 10);

	/* "ID: 372" */
	size_t l2 = e1 < len ? e1 + 1 : len;
	size_t e2 = eol(t, l2, len);
	const char *p = t + l2;
	size_t n = e2 - l2;
	uint64_t id = 0;
	int ok = starts(p, n, "ID:");
	if (ok) {
		p += 3;
		n -= 3;
		trim(&p, &n);
		ok = n > 0 && n <= 10;
		for (size_t i = 0; ok && i < n; i++) {
			ok = p[i] >= '0' && p[i] <= '9';
			id = id * 10 + (uint64_t)(p[i] - '0');
		}
		ok = ok && id <= UINT32_MAX;
	}
	if (!ok)
		return tw_error_at(err, TRAWL_EPARSE, 0, path, line + 1, 0, 0,
				   "cannot read the \"ID:\" line of event %s",
				   quote(q, name, name_len));

	/* A "print fmt:" line, and the newline that ends the last line. */
	int found = 0;
	for (size_t i = e2 < len ? e2 + 1 : len; i < len && !found;
	     i = eol(t, i, len) + 1)
		found = starts(t + i, len - i, "print fmt:");
	if (!found || t[len - 1] != '\n')
		return tw_error_at(err, TRAWL_EPARSE, 0, path,
				   line + line_of(t, len - 1) - 1, 0, 0,
				   "cannot find the end of the format of %s "
				   "(%s; cut short?)",
				   quote(q, name, name_len),
				   found ? "no newline at its end"
					 : "no \"print fmt:\" line");
	return tw_format_set_add(s, sys, sys_len, name, name_len, (uint32_t)id,
				 t, len, path, err);
}

/* The format's length once blank lines at its end are left out. */
static size_t without_blank_tail(const char *t, size_t len)
{
	size_t k = len;
	while (k && (is_ws(t[k - 1]) || t[k - 1] == '\n'))
		k--;
	const char *nl = memchr(t + k, '\n', len - k);
	return nl ? (size_t)(nl - t) + 1 : len;
}

static int nul_error(const char *data, size_t len, const char *path,
		     trawl_error *err)
{
	const char *z = memchr(data, '\0', len);
	if (!z)
		return 0;
	size_t off = (size_t)(z - data);
	return tw_error_at(err, TRAWL_EPARSE, 0, path, line_of(data, off), 0,
			   off, "cannot read formats: a NUL byte at offset %zu",
			   off);
}

int tw_formats_parse_file(tw_format_set *s, const char *data, size_t len,
			  const char *path, trawl_error *err)
{
	int rc = nul_error(data, len, path, err);
	if (rc)
		return rc;
	const char *sys = "";
	size_t sys_len = 0;
	uint64_t line = 1;
	size_t i = 0;
	while (i < len) {
		size_t e = eol(data, i, len);
		const char *l = data + i;
		size_t n = e - i;
		if (starts(l, n, "name:")) {
			/* The format runs to the next "name:" or '#' line. */
			uint64_t first = line;
			size_t j = e < len ? e + 1 : len;
			line++;
			while (j < len && data[j] != '#' &&
			       !starts(data + j, len - j, "name:")) {
				size_t ej = eol(data, j, len);
				j = ej < len ? ej + 1 : len;
				line++;
			}
			rc = add_format(s, sys, sys_len, l,
					without_blank_tail(l, j - i), path,
					first, err);
			if (rc)
				return rc;
			i = j;
			continue;
		}
		if (n && l[0] == '#') {
			if (starts(l, n, "#system ") ||
			    starts(l, n, "#system\t")) {
				sys = l + 8;
				sys_len = n - 8;
				trim(&sys, &sys_len);
				int bad = bad_name_byte(sys, sys_len);
				if (!sys_len || sys_len > TW_FORMAT_MAX_NAME ||
				    bad) {
					char q[41];
					return tw_error_at(
						err, TRAWL_EPARSE, 0, path,
						line, 0, 0,
						"cannot take \"%s\" as a "
						"system name",
						quote(q, sys, sys_len));
				}
			} else if (line == 1) {
				const char *o = l + 1;
				size_t on = n - 1;
				trim(&o, &on);
				if (tw_format_set_set_origin(s, o, on))
					return tw_error_at(
						err, TRAWL_ENOMEM, 0, path, 0,
						0, 0,
						"cannot allocate memory for "
						"event formats");
			}
		} else {
			const char *b = l;
			size_t bn = n;
			trim(&b, &bn);
			if (bn) {
				char q[41];
				return tw_error_at(err, TRAWL_EPARSE, 0, path,
						   line, 0, 0,
						   "cannot read formats: "
						   "expected \"name:\" or '#', "
						   "found \"%s\"",
						   quote(q, l, n));
			}
		}
		i = e < len ? e + 1 : len;
		line++;
	}
	return 0;
}

int tw_formats_parse_one(tw_format_set *s, const char *system, const char *data,
			 size_t len, const char *path, trawl_error *err)
{
	int rc = nul_error(data, len, path, err);
	if (rc)
		return rc;
	if (!starts(data, len, "name:"))
		return tw_error_at(err, TRAWL_EPARSE, 0, path, 1, 0, 0,
				   "cannot read format: it does not start "
				   "with \"name:\"");
	return add_format(s, system, strlen(system), data,
			  without_blank_tail(data, len), path, 1, err);
}
