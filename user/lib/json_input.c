// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The parser's error places (the first failure kept, with its line and
 * column) and its input, refilled chunk by chunk: what every other part of
 * the reader calls, calling none of them. */
#include "json_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void vfail_at(struct parser *p, struct json_pos pos, const char *fmt, va_list ap)
{
	if (p->failed)
		return;
	p->failed = 1;
	*p->errpos = pos;
	vsnprintf(p->err, p->errlen, fmt, ap);
}

void xfab_json_fail_at(struct parser *p, struct json_pos pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(p, pos, fmt, ap);
	va_end(ap);
}

void xfab_json_fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(p, here(p), fmt, ap);
	va_end(ap);
}

/* ---- input ---- */

/* Reads the next chunk, keeping s[mark..len) (the token being read).
 * 1: more input; 0: the end (or a failure, recorded). */
int xfab_json_refill(struct parser *p)
{
	size_t keep = p->len - p->mark;
	ssize_t n;

	if (p->eof)
		return 0;
	memmove(p->buf, p->buf + p->mark, keep);
	p->base += p->mark;
	p->i -= p->mark;
	p->len = keep;
	p->mark = 0;
	if (keep >= p->buf_cap / 2) { /* a token of half the buffer */
		char *bigger = realloc(p->buf, p->buf_cap * 2 + 1);

		if (!bigger) {
			xfab_json_fail(p, "out of memory");
			p->eof = 1;
			return 0;
		}
		p->buf = bigger;
		p->buf_cap *= 2;
	}
	n = p->read(p->read_arg, p->buf + keep, p->buf_cap - keep);
	p->s = p->buf;
	if (n <= 0) {
		p->buf[p->len] = '\0';
		p->eof = 1;
		if (n < 0)
			xfab_json_fail(p, "cannot read the input");
		return 0;
	}
	if (memchr(p->buf + keep, '\0', (size_t)n)) {
		p->buf[p->len] = '\0';
		p->eof = 1;
		xfab_json_fail(p, "the input holds a NUL byte");
		return 0;
	}
	p->len += (size_t)n;
	p->buf[p->len] = '\0';
	return 1;
}
