// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The JSON writer (jsonw.h), for xfabctl -j, the tools' reports and the
 * fabric snapshots alike. */
#include "jsonw.h"

void xfab_jw_init(struct xfab_jw *w, FILE *out)
{
	w->out = out;
	w->depth = 0;
	w->first[0] = 1;
}

size_t xfab_jw_escape(unsigned char c, char out[8])
{
	if (c == '"' || c == '\\')
		return (size_t)snprintf(out, 8, "\\%c", c);
	if (c < 0x20)
		return (size_t)snprintf(out, 8, "\\u%04x", c);
	out[0] = (char)c;
	out[1] = '\0';
	return 1;
}

void xfab_jw_quote(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		char esc[8];
		size_t n = xfab_jw_escape((unsigned char)*s, esc);

		fwrite(esc, 1, n, out);
	}
	fputc('"', out);
}

/* The comma before every value but a container's first, then its key. */
static void jw_key(struct xfab_jw *w, const char *k)
{
	if (w->depth < XFAB_JW_MAX_DEPTH) {
		if (!w->first[w->depth])
			fputc(',', w->out);
		w->first[w->depth] = 0;
	}
	if (k) {
		xfab_jw_quote(w->out, k);
		fputc(':', w->out);
	}
}

void xfab_jw_open(struct xfab_jw *w, const char *k, char c)
{
	jw_key(w, k);
	fputc(c, w->out);
	if (++w->depth < XFAB_JW_MAX_DEPTH)
		w->first[w->depth] = 1;
}

void xfab_jw_close(struct xfab_jw *w, char c)
{
	fputc(c, w->out);
	if (w->depth > 0)
		w->depth--;
}

void xfab_jw_string(struct xfab_jw *w, const char *k, const char *v)
{
	jw_key(w, k);
	xfab_jw_quote(w->out, v);
}

void xfab_jw_uint(struct xfab_jw *w, const char *k, unsigned long long v)
{
	jw_key(w, k);
	fprintf(w->out, "%llu", v);
}

void xfab_jw_bool(struct xfab_jw *w, const char *k, int v)
{
	jw_key(w, k);
	fputs(v ? "true" : "false", w->out);
}

void xfab_jw_null(struct xfab_jw *w, const char *k)
{
	jw_key(w, k);
	fputs("null", w->out);
}

void xfab_jw_double(struct xfab_jw *w, const char *k, double v)
{
	jw_key(w, k);
	fprintf(w->out, "%.10g", v);
}

void xfab_jw_num3(struct xfab_jw *w, const char *k, double v)
{
	jw_key(w, k);
	if (v == (double)(long long)v)
		fprintf(w->out, "%lld", (long long)v);
	else
		fprintf(w->out, "%.3f", v);
}

void xfab_jw_end(struct xfab_jw *w)
{
	if (w->first[0])
		return;
	fputc('\n', w->out);
	w->depth = 0;
	w->first[0] = 1;
}
