/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the print-format compiler and both runs of its programs
 * (lib/pfmt): the input is a format file's text, a record and a line of
 * text, each after a two-byte length:
 *
 *   [u16 n][n bytes: format][u16 m][m bytes: record][rest: text]
 *
 * The format goes through the same check trawl makes before libtraceevent
 * sees it; what parses is compiled (which must always give a program);
 * the record is rendered when it holds the fields; the text, and the
 * rendered text, are scanned. Every value a scan gives must point into the
 * text it scanned, and its arrays into the scanner's elements.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "../lib/pfmt/pfmt.h"

#define FUZZ_CHECK(c, ...)                                                     \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "fuzz-pfmt: " __VA_ARGS__);            \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

static uint16_t u16(const uint8_t *d)
{
	return (uint16_t)(d[0] | d[1] << 8);
}

static void check_scan(const tw_pfmt *p, const tw_pf_scan *s, const char *t,
		       size_t n)
{
	for (size_t i = 0; i < tw_pfmt_nfields(p); i++) {
		const tw_pf_value *v = &s->vals[i];
		FUZZ_CHECK(v->type <= TW_PFV_TEXT, "type %d", v->type);
		if (v->s && v->slen)
			FUZZ_CHECK(v->s >= t && v->s + v->slen <= t + n,
				   "field %zu outside the text", i);
		if (v->label && v->label_len)
			FUZZ_CHECK(v->label >= t &&
					   v->label + v->label_len <= t + n,
				   "label %zu outside the text", i);
		if (v->type == TW_PFV_ARRAY)
			FUZZ_CHECK((size_t)v->elem0 + v->nelem <= s->nelems &&
					   s->nelems <= TW_PF_MAX_ELEMS,
				   "array %zu outside the elements", i);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	size_t fn = u16(data);
	if (fn > size - 2)
		fn = size - 2;
	const uint8_t *fmt = data + 2, *rest = fmt + fn;
	size_t left = size - 2 - fn;
	size_t rn = left >= 2 ? u16(rest) : 0;
	const uint8_t *rec = rest + (left >= 2 ? 2 : left);
	left -= left >= 2 ? 2 : left;
	if (rn > left)
		rn = left;
	const char *text = (const char *)rec + rn;
	size_t tn = left - rn;

	/* libtraceevent wants a NUL-terminated text */
	char *ftext = malloc(fn + 1);
	if (!ftext)
		return 0;
	tw_mem mem;
	tw_mem_init(&mem, NULL, NULL);
	memcpy(ftext, fmt, fn);
	ftext[fn] = '\0';
	struct tep_handle *tep = tep_alloc();
	tep_set_loglevel(TEP_LOG_NONE);
	struct tep_event *e =
		tep ? tw_pfmt_parse(tep, &mem, ftext, fn, "fuzz") : NULL;
	if (e) {
		tw_pf_layout lay = {fn & 1, fn & 2 ? 4 : 8};
		tw_pfmt *p = tw_pfmt_compile(&mem, e, ftext, fn, &lay);
		FUZZ_CHECK(p != NULL, "compile gave no program");
		/* the record: copied, so reading past it is ASan's to see */
		unsigned char *r = malloc(rn ? rn : 1);
		memcpy(r, rec, rn);
		tw_buf out = {0};
		if (tw_pfmt_fits(p, r, rn)) {
			FUZZ_CHECK(tw_pfmt_render(p, r, rn, NULL, &out) == 0,
				   "render");
			for (size_t i = 0; i < tw_pfmt_nfields(p); i++)
				FUZZ_CHECK(tw_pfmt_label(p, i, r, rn, NULL,
							 &out) >= 0,
					   "label");
		}
		tw_pf_scan s = {0};
		char *t = malloc(tn ? tn : 1);
		memcpy(t, text, tn);
		int rc = tw_pfmt_scan(p, &mem, t, tn, &s);
		FUZZ_CHECK(rc >= 0 && rc <= 1, "scan %d", rc);
		if (rc == 1)
			check_scan(p, &s, t, tn);
		if (out.len) {
			rc = tw_pfmt_scan(p, &mem, out.data, out.len, &s);
			FUZZ_CHECK(rc >= 0 && rc <= 1, "scan of render %d", rc);
			if (rc == 1)
				check_scan(p, &s, out.data, out.len);
		}
		tw_pf_scan_fini(&mem, &s);
		tw_buf_fini(&mem, &out);
		free(t);
		free(r);
		tw_pfmt_free(p);
	}
	if (tep)
		tep_free(tep);
	free(ftext);
	return 0;
}
