// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textfile.h"

#define TEXTFILE_STEP 65536

/* Grows text so that at least 4 KiB are free; -1 out of memory. */
static int room(char **text, size_t len, size_t *cap)
{
	char *t;

	if (*cap - len >= 4096)
		return 0;
	t = realloc(*text, *cap + TEXTFILE_STEP);
	if (!t)
		return -1;
	*text = t;
	*cap += TEXTFILE_STEP;
	return 0;
}

char *xfab_read_text(const char *path, unsigned int max_mib, char *err, size_t errlen)
{
	size_t len = 0, cap = 0, max = (size_t)max_mib << 20;
	FILE *f = fopen(path, "r");
	static const char too_long[] = "longer than";
	const char *why = NULL;
	char *text = NULL;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t got;

		if (room(&text, len, &cap)) {
			why = "out of memory";
			break;
		}
		got = fread(text + len, 1, cap - len - 1, f);
		len += got;
		if (len > max) { /* read no further than a step past it */
			why = too_long;
			break;
		}
		if (!got)
			break;
	}
	if (!why && ferror(f))
		why = "cannot read it";
	fclose(f);
	if (!why) {
		text[len] = '\0';
		if (strlen(text) == len)
			return text;
		why = "holds a NUL byte";
	}
	free(text);
	if (why == too_long)
		snprintf(err, errlen, "%s: longer than %u MiB", path, max_mib);
	else
		snprintf(err, errlen, "%s: %s", path, why);
	return NULL;
}
