// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The base tables' images as they grow: one build's entries, appended in
 * any order (compile_base.c sorts them once every feature has built). */
#include "compile_base.h"

#include <stdlib.h>
#include <string.h>

void *xfab_base_push(struct xfab_base_build *b, enum xfab_table t)
{
	struct xfab_table_image *img = &b->next->t[t];
	size_t esz = xfab_table_descs[t].entry_size;
	void *e;

	if (img->count == b->cap[t]) {
		size_t ncap = b->cap[t] ? b->cap[t] * 2 : 16;
		void *bigger = realloc(img->entries, ncap * esz);

		if (!bigger)
			return NULL;
		img->entries = bigger;
		b->cap[t] = ncap;
	}
	e = (char *)img->entries + img->count * esz;
	memset(e, 0, esz);
	img->count++;
	return e;
}

void xfab_base_free(struct xfab_base *t)
{
	for (int i = 0; i < XFAB_T_COUNT; i++) {
		free(t->t[i].entries);
		t->t[i].entries = NULL;
		t->t[i].count = 0;
	}
}
