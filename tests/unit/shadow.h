/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A map writer for unit tests that really stores what it is given: a shadow
 * of the kernel maps (per table, entries in the struct xfab_e_* layout,
 * sorted by key bytes), with counts of the writes. Written here, not taken
 * from the library, so it checks user/lib/compile.c from outside.
 */
#ifndef XFAB_TEST_SHADOW_H
#define XFAB_TEST_SHADOW_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"

struct shadow_table {
	unsigned char *e;
	size_t n, cap;
};

struct shadow {
	struct shadow_table t[XFAB_T_COUNT];
	long writes;		    /* updates and removes, every table */
	long updates[XFAB_T_COUNT]; /* per table */
	long removes[XFAB_T_COUNT];
};

static inline size_t sh_find(const struct shadow_table *st, enum xfab_table t, const void *key,
			     int *found)
{
	const struct xfab_table_desc *d = &xfab_table_descs[t];
	size_t lo = 0, hi = st->n;

	*found = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(st->e + mid * d->entry_size, key, d->key_size);

		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static inline int sh_update(void *arg, enum xfab_table t, const void *key, const void *val)
{
	const struct xfab_table_desc *d = &xfab_table_descs[t];
	struct shadow *sh = arg;
	struct shadow_table *st = &sh->t[t];
	int found;
	size_t at = sh_find(st, t, key, &found);
	unsigned char *e;

	sh->writes++;
	sh->updates[t]++;
	if (!found) {
		if (st->n == st->cap) {
			size_t cap = st->cap ? st->cap * 2 : 64;
			unsigned char *bigger = realloc(st->e, cap * d->entry_size);

			if (!bigger)
				return -ENOMEM;
			st->e = bigger;
			st->cap = cap;
		}
		memmove(st->e + (at + 1) * d->entry_size, st->e + at * d->entry_size,
			(st->n - at) * d->entry_size);
		st->n++;
		memset(st->e + at * d->entry_size, 0, d->entry_size);
		memcpy(st->e + at * d->entry_size, key, d->key_size);
	}
	e = st->e + at * d->entry_size;
	memcpy(e + d->val_off, val, d->val_size);
	return 0;
}

/* An array map's entry is removed by writing zeroes (as xfabd does): the
 * shadow forgets it either way. */
static inline int sh_remove(void *arg, enum xfab_table t, const void *key)
{
	const struct xfab_table_desc *d = &xfab_table_descs[t];
	struct shadow *sh = arg;
	struct shadow_table *st = &sh->t[t];
	int found;
	size_t at = sh_find(st, t, key, &found);

	sh->writes++;
	sh->removes[t]++;
	if (!found)
		return -ENOENT;
	memmove(st->e + at * d->entry_size, st->e + (at + 1) * d->entry_size,
		(st->n - at - 1) * d->entry_size);
	st->n--;
	return 0;
}

/* The value stored under key, NULL if none. */
static inline const void *sh_get(const struct shadow *sh, enum xfab_table t, const void *key)
{
	int found;
	size_t at = sh_find(&sh->t[t], t, key, &found);

	return found
		   ? sh->t[t].e + at * xfab_table_descs[t].entry_size + xfab_table_descs[t].val_off
		   : NULL;
}

/* Entry i of table t ({key, value} layout). */
static inline const void *sh_entry(const struct shadow *sh, enum xfab_table t, size_t i)
{
	return sh->t[t].e + i * xfab_table_descs[t].entry_size;
}

static inline void sh_reset_counts(struct shadow *sh)
{
	sh->writes = 0;
	memset(sh->updates, 0, sizeof(sh->updates));
	memset(sh->removes, 0, sizeof(sh->removes));
}

/* A copy of the tables (not the counts), for comparing later. */
static inline int sh_copy(struct shadow *dst, const struct shadow *src)
{
	memset(dst, 0, sizeof(*dst));
	for (int t = 0; t < XFAB_T_COUNT; t++) {
		size_t bytes = src->t[t].n * xfab_table_descs[t].entry_size;

		dst->t[t].e = malloc(bytes ? bytes : 1);
		if (!dst->t[t].e)
			return -ENOMEM;
		if (bytes)
			memcpy(dst->t[t].e, src->t[t].e, bytes);
		dst->t[t].n = dst->t[t].cap = src->t[t].n;
	}
	return 0;
}

/* 1 if both hold the same keys with the same values. */
static inline int sh_equal(const struct shadow *a, const struct shadow *b)
{
	for (int t = 0; t < XFAB_T_COUNT; t++) {
		const struct xfab_table_desc *d = &xfab_table_descs[t];

		if (a->t[t].n != b->t[t].n)
			return 0;
		for (size_t i = 0; i < a->t[t].n; i++) {
			const unsigned char *x = a->t[t].e + i * d->entry_size;
			const unsigned char *y = b->t[t].e + i * d->entry_size;

			if (memcmp(x, y, d->key_size) ||
			    memcmp(x + d->val_off, y + d->val_off, d->val_size))
				return 0;
		}
	}
	return 1;
}

static inline void sh_free(struct shadow *sh)
{
	for (int t = 0; t < XFAB_T_COUNT; t++)
		free(sh->t[t].e);
	memset(sh, 0, sizeof(*sh));
}

#endif
