/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * For the suites that read tests/data/sonic's files (our own SONiC-shaped
 * configs): a file's text, and a text with one piece of it replaced (a
 * hostile or a mended variant). Included after <cmocka.h> and srcdir.h.
 */
#ifndef XFAB_TEST_SONICDATA_H
#define XFAB_TEST_SONICDATA_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textfile.h"

/* tests/data/sonic/NAME's text, to free (a missing file fails the test). */
static inline char *sonicdata_text(const char *name)
{
	char path[4200], err[300];
	char *text;

	snprintf(path, sizeof(path), "%s/tests/data/sonic/%s", test_srcdir(), name);
	text = xfab_read_text(path, 4, err, sizeof(err));
	if (!text)
		fail_msg("%s", err);
	return text;
}

/* text with `from` (its first occurrence at or after `after`, if given)
 * replaced by `to`: a new buffer to free; text is left as it is. */
static inline char *sonicdata_edit(const char *text, const char *after, const char *from,
				   const char *to)
{
	const char *start = after ? strstr(text, after) : text;
	const char *at = start ? strstr(start, from) : NULL;
	char *out;

	assert_non_null(at);
	out = malloc(strlen(text) + strlen(to) + 1);
	assert_non_null(out);
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), to);
	strcat(out, at + strlen(from));
	return out;
}

#endif
