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

/* ---- how many groups a set of prefixes needs ----
 *
 * A group hangs off a (level, leading bytes) path: the group at byte b
 * (2..15) is keyed by b and the address's first b bytes. The paths seen
 * so far live in a hash set; a prefix's paths are tried from its deepest
 * up, and the first one already there ends the walk (every shallower path
 * of it came with it), so a million prefixes that share their upper paths
 * cost about one probe each. Prefixes are taken in index order, so the
 * one whose path passes the limit is found as the count goes. */

struct path_set {
	__u64 (*keys)[2]; /* {0, 0}: empty (a real key has its level, 2..15, in byte 0) */
	size_t cap, count;
};

static size_t path_hash(const __u64 *k)
{
	__u64 h = k[0] * 0x9e3779b97f4a7c15ull ^ k[1] * 0xc2b2ae3d27d4eb4full;

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ (h >> 29));
}

static int path_grow(struct path_set *ps)
{
	size_t cap = ps->cap ? ps->cap * 2 : 4096;
	__u64(*keys)[2] = calloc(cap, sizeof(*keys));

	if (!keys)
		return -1;
	for (size_t i = 0; i < ps->cap; i++) {
		size_t j;

		if (!ps->keys[i][0])
			continue;
		for (j = path_hash(ps->keys[i]) & (cap - 1); keys[j][0]; j = (j + 1) & (cap - 1))
			;
		keys[j][0] = ps->keys[i][0];
		keys[j][1] = ps->keys[i][1];
	}
	free(ps->keys);
	ps->keys = keys;
	ps->cap = cap;
	return 0;
}

/* Adds the path; 1 if it is new, 0 if it was there, -1 on ENOMEM. */
static int path_add(struct path_set *ps, const __u64 *k)
{
	size_t j;

	if ((ps->count + 1) * 2 > ps->cap && path_grow(ps))
		return -1;
	for (j = path_hash(k) & (ps->cap - 1); ps->keys[j][0]; j = (j + 1) & (ps->cap - 1))
		if (ps->keys[j][0] == k[0] && ps->keys[j][1] == k[1])
			return 0;
	ps->keys[j][0] = k[0];
	ps->keys[j][1] = k[1];
	ps->count++;
	return 1;
}

size_t xfab_fib_groups_needed(const __u8 (*addr)[16], const int *plen, size_t n, size_t limit,
			      long *first_over)
{
	struct path_set ps = {0};

	if (first_over)
		*first_over = -1;
	for (size_t i = 0; i < n; i++) {
		int deepest = 1;

		while (deepest < 15 && plen[i] > 16 + 8 * (deepest + 1 - 2))
			deepest++;
		for (int byte = deepest; byte >= 2; byte--) {
			__u8 key[16] = {(__u8)byte};
			__u64 k[2];
			int added;

			memcpy(key + 1, addr[i], (size_t)byte);
			memcpy(k, key, 16);
			added = path_add(&ps, k);
			if (added < 0) {
				free(ps.keys);
				return (size_t)-1;
			}
			if (!added)
				break; /* the shallower paths came with it */
			if (first_over && *first_over < 0 && ps.count > limit)
				*first_over = (long)i;
		}
	}
	free(ps.keys);
	return ps.count;
}
