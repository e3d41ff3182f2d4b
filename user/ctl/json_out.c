// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The JSON writer of xfabctl: comma and nesting bookkeeping on stdout. */
#include <stdio.h>

#include "ctl.h"

/* jw_first[d]: nothing written yet at depth d (0: the top level) */
static int jw_depth;
static int jw_first[32] = {1};

static void jw_sep(void)
{
	if (!jw_first[jw_depth])
		putchar(',');
	jw_first[jw_depth] = 0;
}

static void jw_str_raw(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void jw_key(const char *k)
{
	jw_sep();
	if (k) {
		jw_str_raw(k);
		putchar(':');
	}
}

void jw_open(const char *k, char c)
{
	jw_key(k);
	putchar(c);
	jw_first[++jw_depth] = 1;
}

void jw_close(char c)
{
	putchar(c);
	jw_depth--;
}

void jw_string(const char *k, const char *v)
{
	jw_key(k);
	jw_str_raw(v);
}

void jw_uint(const char *k, unsigned long long v)
{
	jw_key(k);
	printf("%llu", v);
}

void jw_bool(const char *k, int v)
{
	jw_key(k);
	printf("%s", v ? "true" : "false");
}

void jw_end(void)
{
	if (jw_first[0])
		return;
	putchar('\n');
	jw_first[0] = 1;
}

void jw_double(const char *k, double v)
{
	jw_key(k);
	printf("%.10g", v);
}

void jw_null(const char *k)
{
	jw_key(k);
	printf("null");
}
