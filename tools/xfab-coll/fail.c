// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-coll: the run's first failure, which every part records and main.c
 * prints. Kept out of main.c so that nothing calls up into the entry. */
#include "coll_tool.h"

/* Records the run's first failure; -1. */
int coll_fail(struct rank *r, const char *fmt, ...)
{
	va_list ap;

	if (r->failure[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(r->failure, sizeof(r->failure), fmt, ap);
	va_end(ap);
	return -1;
}
