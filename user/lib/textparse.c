// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textparse.h"

int xfab_parse_mac(const char *text, __u8 mac[6])
{
	unsigned v[6];
	char tail;

	if (strlen(text) != 17)
		return -1;
	if (sscanf(text, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		   &tail) != 6)
		return -1;
	for (size_t i = 0; i < 6; i++) {
		if (!isxdigit((unsigned char)text[i * 3]) ||
		    !isxdigit((unsigned char)text[i * 3 + 1]))
			return -1;
		mac[i] = (__u8)v[i];
	}
	return 0;
}

int xfab_parse_opt_long(const char *prog, const char *opt, const char *text, int base, long lo,
			long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, base);
	if (errno || end == text || *end || v < lo || v > hi) {
		fprintf(stderr, "%s: %s \"%s\": must be %ld..%ld\n", prog, opt, text, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}
