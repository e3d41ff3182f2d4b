// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "fib6.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common.h"
#include "fibtrie.h"
#include "maps.h"

#define LEN16 ((size_t)XFAB_FIB6_TBL16_SIZE * 4)
#define LEN8(hw) ((size_t)(hw)->n_groups * 256 * 4)

int xfab_fib6_attach(struct xfab_fib6_hw *hw, __u32 *tbl16, __u32 *tbl8, __u32 n_groups)
{
	hw->tbl16 = tbl16;
	hw->tbl8 = tbl8;
	hw->n_groups = n_groups;
	hw->trie = xfab_fibtrie_new(tbl16, 16, tbl8, n_groups, 128);
	return hw->trie ? 0 : -ENOMEM;
}

void xfab_fib6_detach(struct xfab_fib6_hw *hw)
{
	xfab_fibtrie_free(hw->trie);
	hw->trie = NULL;
}

int xfab_fib6_map(struct xfab_fib6_hw *hw, int fd16, int fd8)
{
	int err = xfab_map_groups(fd8, &hw->n_groups);

	if (!err)
		err = xfab_mmap_pair(fd16, LEN16, &hw->map16, fd8, LEN8(hw), &hw->map8);
	if (err)
		return err;
	err = xfab_fib6_attach(hw, hw->map16, hw->map8, hw->n_groups);
	if (err)
		xfab_fib6_unmap(hw);
	return err;
}

void xfab_fib6_unmap(struct xfab_fib6_hw *hw)
{
	xfab_fib6_detach(hw);
	if (hw->map16)
		munmap(hw->map16, LEN16);
	if (hw->map8)
		munmap(hw->map8, LEN8(hw));
	memset(hw, 0, sizeof(*hw));
}

__u32 xfab_fib6_lookup(const __u32 *tbl16, const __u32 *tbl8, __u32 n_groups, const __u8 addr[16])
{
	__u32 v = tbl16[(__u32)addr[0] << 8 | addr[1]];

	for (int b = 2; b < 16 && (v & XFAB_FIB6_EXT); b++) {
		if ((v & XFAB_FIB6_ID_MASK) >= n_groups)
			return 0;
		v = tbl8[(size_t)(v & XFAB_FIB6_ID_MASK) * 256 + addr[b]];
	}
	return (v & XFAB_FIB6_EXT) ? 0 : v;
}

/* A route the data plane knows: a type and an id that fit an entry. */
static int entry_of(__u32 type, __u32 id, __u32 *val)
{
	*val = XFAB_FIB6_ENTRY(type, id & XFAB_FIB6_ID_MASK);
	return type != 0 && !(*val & XFAB_FIB6_EXT);
}

int xfab_fib6_set(struct xfab_fib6_hw *hw, const __u8 addr[16], int plen, __u32 type, __u32 id,
		  size_t *written)
{
	size_t w0 = xfab_fibtrie_written(hw->trie);
	__u32 val;
	int err;

	if (!entry_of(type, id, &val))
		err = xfab_fibtrie_unset(hw->trie, addr, plen);
	else
		err = xfab_fibtrie_set(hw->trie, addr, plen, val);
	if (written)
		*written += xfab_fibtrie_written(hw->trie) - w0;
	return err;
}

int xfab_fib6_del(struct xfab_fib6_hw *hw, const __u8 addr[16], int plen, size_t *written)
{
	size_t w0 = xfab_fibtrie_written(hw->trie);
	int err = xfab_fibtrie_unset(hw->trie, addr, plen);

	if (written)
		*written += xfab_fibtrie_written(hw->trie) - w0;
	return err;
}

int xfab_fib6_sync(struct xfab_fib6_hw *hw, const void *routes, size_t n,
		   struct xfab_fib6_stats *st)
{
	const struct xfab_e_route_v6 *r = routes;
	size_t w0 = xfab_fibtrie_written(hw->trie), k = 0;
	__u8(*addr)[16] = malloc((n ? n : 1) * sizeof(*addr));
	int *plen = malloc((n ? n : 1) * sizeof(*plen));
	__u32 *val = malloc((n ? n : 1) * sizeof(*val));
	int err = -ENOMEM;

	if (!addr || !plen || !val)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (r[i].key.table != 0 || r[i].key.prefixlen < 32 || r[i].key.prefixlen > 160 ||
		    !entry_of(r[i].val.type, r[i].val.id, &val[k]))
			continue;
		memcpy(addr[k], r[i].key.addr, 16);
		plen[k++] = (int)r[i].key.prefixlen - 32;
	}
	err = xfab_fibtrie_sync(hw->trie, (const __u8(*)[16])addr, plen, val, k);
	if (st) {
		memset(st, 0, sizeof(*st));
		st->routes = xfab_fibtrie_prefixes(hw->trie);
		st->written = xfab_fibtrie_written(hw->trie) - w0;
		st->groups = xfab_fibtrie_groups_used(hw->trie);
	}
out:
	free(addr);
	free(plen);
	free(val);
	return err;
}

/* ---- how many groups a set of prefixes needs ---- */

struct path_rec {
	__u8 key[16]; /* level (byte index of the group), then the leading bytes */
	__u32 idx;
};

static int cmp_path(const void *a, const void *b)
{
	const struct path_rec *x = a, *y = b;
	int c = memcmp(x->key, y->key, 16);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return (x > y) - (x < y);
}

size_t xfab_fib_groups_needed(const __u8 (*addr)[16], const int *plen, size_t n, size_t limit,
			      long *first_over)
{
	struct path_rec *rec;
	__u32 *firsts;
	size_t m = 0, k = 0;

	if (first_over)
		*first_over = -1;
	for (size_t i = 0; i < n; i++)
		if (plen[i] > 16)
			m += (size_t)(plen[i] - 16 + 7) / 8;
	rec = malloc((m ? m : 1) * sizeof(*rec));
	firsts = malloc((m ? m : 1) * sizeof(*firsts));
	if (!rec || !firsts) {
		free(rec);
		free(firsts);
		return (size_t)-1;
	}
	for (size_t i = 0; i < n; i++)
		for (int byte = 2; plen[i] > 16 + 8 * (byte - 2); byte++) {
			/* the group at byte `byte` hangs off the first `byte` bytes */
			memset(rec[k].key, 0, 16);
			rec[k].key[0] = (__u8)byte;
			memcpy(rec[k].key + 1, addr[i], (size_t)byte);
			rec[k].idx = (__u32)i;
			k++;
		}
	qsort(rec, m, sizeof(*rec), cmp_path);
	k = 0;
	for (size_t i = 0; i < m; i++)
		if (!i || memcmp(rec[i].key, rec[i - 1].key, 16))
			firsts[k++] = rec[i].idx; /* smallest index on this path */
	if (first_over && k > limit) {
		qsort(firsts, k, sizeof(*firsts), cmp_u32);
		*first_over = (long)firsts[limit];
	}
	free(rec);
	free(firsts);
	return k;
}
