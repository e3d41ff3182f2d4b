/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one JSON writer: commas and nesting kept for the caller, output
 * compact (no spaces), straight to a FILE. k is a member's key, NULL for
 * an array's element. Numbers are written as the readers of xfab's JSON
 * (tests, tools, Grafana) have always seen them: see each function.
 */
#ifndef XFAB_JSONW_H
#define XFAB_JSONW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define XFAB_JW_MAX_DEPTH 32

struct xfab_jw {
	FILE *out;
	int depth;
	int first[XFAB_JW_MAX_DEPTH]; /* nothing written yet at depth d (0: the top) */
};

void xfab_jw_init(struct xfab_jw *w, FILE *out);
/* The one escaping rule of xfab's JSON strings: byte c as it goes between
 * the quotes ('"' and '\' escaped, control bytes as \u00XX, any other
 * byte, UTF-8 included, as it is) into out, NUL-terminated; its length
 * (1, 2 or 6). */
size_t xfab_jw_escape(unsigned char c, char out[8]);
/* s as a JSON string, quotes included, each byte as xfab_jw_escape has it. */
void xfab_jw_quote(FILE *out, const char *s);

/* c is '{' or '[' (and '}' or ']' to close it). Nesting XFAB_JW_MAX_DEPTH
 * deep or deeper is written, without commas inside it (nothing of xfab's
 * nests so deep); the levels above it are kept. */
void xfab_jw_open(struct xfab_jw *w, const char *k, char c);
void xfab_jw_close(struct xfab_jw *w, char c);
void xfab_jw_string(struct xfab_jw *w, const char *k, const char *v);
void xfab_jw_uint(struct xfab_jw *w, const char *k, unsigned long long v);
void xfab_jw_bool(struct xfab_jw *w, const char *k, int v);
void xfab_jw_null(struct xfab_jw *w, const char *k);
/* %.10g: 0.5, 1e+20, 3 */
void xfab_jw_double(struct xfab_jw *w, const char *k, double v);
/* a whole number as one (3), any other with three decimals (0.250) */
void xfab_jw_num3(struct xfab_jw *w, const char *k, double v);
/* Ends a top-level value with a newline, if one was written, and starts
 * the next at the top. */
void xfab_jw_end(struct xfab_jw *w);

#endif
