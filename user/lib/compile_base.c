// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The base tables (see compile_base.h): built whole from the config and the
 * live ports, and written as the difference from what was written before.
 */
#include "compile_base.h"
#include "feature.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- sorted images ---- */

static size_t sort_key_size;
static int cmp_key(const void *a, const void *b)
{
	return memcmp(a, b, sort_key_size);
}

/* Integer keys sort numerically only when compared as integers; images only
 * need one consistent order, and memcmp gives one for every table. */
static void image_sort(struct xfab_table_image *img, enum xfab_table t)
{
	sort_key_size = xfab_table_descs[t].key_size;
	if (img->count > 1)
		qsort(img->entries, img->count, xfab_table_descs[t].entry_size, cmp_key);
}

/* Removes later duplicates of a key (first writer wins). */
static void image_dedup(struct xfab_table_image *img, enum xfab_table t)
{
	const struct xfab_table_desc *d = &xfab_table_descs[t];
	size_t out = 0;

	for (size_t i = 0; i < img->count; i++) {
		char *e = (char *)img->entries + i * d->entry_size;

		if (out &&
		    !memcmp((char *)img->entries + (out - 1) * d->entry_size, e, d->key_size))
			continue;
		if (out != i)
			memmove((char *)img->entries + out * d->entry_size, e, d->entry_size);
		out++;
	}
	img->count = out;
}

int xfab_base_build(const struct xfab_config *cfg, const struct xfab_port_live *live,
		    struct xfab_base *next)
{
	struct xfab_base_build b = {.cfg = cfg, .live = live, .next = next};
	int err = 0;

	memset(next, 0, sizeof(*next));
	for (size_t f = 0; f < xfab_n_features && !err; f++)
		if (xfab_features[f]->build)
			err = xfab_features[f]->build(&b);
	if (err) {
		xfab_base_free(next);
		return err;
	}
	/* two features may write one table: the first written wins */
	for (int t = 0; t < XFAB_T_COUNT; t++) {
		image_sort(&next->t[t], (enum xfab_table)t);
		image_dedup(&next->t[t], (enum xfab_table)t);
	}
	return 0;
}

/* ---- apply ---- */

enum apply_pass { PASS_UPSERT, PASS_REMOVE };

static int diff_table(const struct xfab_table_image *prev, const struct xfab_table_image *next,
		      enum xfab_table t, enum apply_pass pass, const struct xfab_map_ops *ops)
{
	const struct xfab_table_desc *d = &xfab_table_descs[t];
	size_t i = 0, j = 0;
	int err;

	while (i < prev->count || j < next->count) {
		const char *pe = i < prev->count ? (char *)prev->entries + i * d->entry_size : NULL;
		const char *ne = j < next->count ? (char *)next->entries + j * d->entry_size : NULL;
		int c = !pe ? 1 : !ne ? -1 : memcmp(pe, ne, d->key_size);

		if (c < 0) { /* only in prev: remove */
			if (pass == PASS_REMOVE) {
				err = ops->remove(ops->arg, t, pe);
				if (err)
					return err;
			}
			i++;
		} else if (c > 0) { /* only in next: add */
			if (pass == PASS_UPSERT) {
				err = ops->update(ops->arg, t, ne, ne + d->val_off);
				if (err)
					return err;
			}
			j++;
		} else { /* both: rewrite if changed */
			if (pass == PASS_UPSERT &&
			    memcmp(pe + d->val_off, ne + d->val_off, d->val_size)) {
				err = ops->update(ops->arg, t, ne, ne + d->val_off);
				if (err)
					return err;
			}
			i++;
			j++;
		}
	}
	return 0;
}

int xfab_base_apply(const struct xfab_base *prev, const struct xfab_base *next,
		    const struct xfab_map_ops *ops)
{
	int err;

	/* XFAB_TABLES' order (maps.h): upserts leaves-first, removals the
	 * other way round; compile.c's tables are empty in both images */
	for (int k = 0; k < XFAB_T_COUNT; k++) {
		enum xfab_table t = (enum xfab_table)k;

		if (!prev->t[t].count && !next->t[t].count)
			continue; /* not a base table, or empty */

		err = diff_table(&prev->t[t], &next->t[t], t, PASS_UPSERT, ops);
		if (!err && ops->flush)
			err = ops->flush(ops->arg, t);
		if (err)
			return err;
	}
	for (int k = XFAB_T_COUNT - 1; k >= 0; k--) {
		enum xfab_table t = (enum xfab_table)k;

		if (!prev->t[t].count && !next->t[t].count)
			continue; /* not a base table, or empty */

		err = diff_table(&prev->t[t], &next->t[t], t, PASS_REMOVE, ops);
		if (!err && ops->flush)
			err = ops->flush(ops->arg, t);
		if (err)
			return err;
	}
	return 0;
}
