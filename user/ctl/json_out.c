// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfabctl's -j output: the library's JSON writer (jsonw.h) on stdout, one
 * writer for the whole run, so a verb writes jw_* without carrying it. */
#include <stdio.h>

#include "ctl.h"
#include "jsonw.h"

static struct xfab_jw out = {.first = {1}};

static struct xfab_jw *w(void)
{
	out.out = stdout; /* not a constant: set at the first use */
	return &out;
}

void ctl_jw_open(const char *k, char c)
{
	xfab_jw_open(w(), k, c);
}

void ctl_jw_close(char c)
{
	xfab_jw_close(w(), c);
}

void ctl_jw_string(const char *k, const char *v)
{
	xfab_jw_string(w(), k, v);
}

void ctl_jw_uint(const char *k, unsigned long long v)
{
	xfab_jw_uint(w(), k, v);
}

void ctl_jw_bool(const char *k, int v)
{
	xfab_jw_bool(w(), k, v);
}

void ctl_jw_end(void)
{
	xfab_jw_end(w());
}

void ctl_jw_double(const char *k, double v)
{
	xfab_jw_double(w(), k, v);
}

void ctl_jw_null(const char *k)
{
	xfab_jw_null(w(), k);
}
