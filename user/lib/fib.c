// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The FIB of table 0, IPv4 and IPv6 alike (fib.h): the families differ only
 * in the address's length (4 or 16 bytes: the trie keys both as 16) and in
 * the route entries their maps hold. */
#include "fib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common.h"
#include "fibtrie.h"
#include "maps.h"

#define LEN16 ((size_t)XFAB_FIB_TBL16_SIZE * 4)
#define LEN8(hw) ((size_t)(hw)->n_groups * 256 * 4)

int xfab_fib_attach(struct xfab_fib_hw *hw, int alen, __u32 *tbl16, __u32 *tbl8, __u32 n_groups)
{
	if (alen != 4 && alen != 16)
		return -EINVAL;
	hw->tbl16 = tbl16;
	hw->tbl8 = tbl8;
	hw->n_groups = n_groups;
	hw->alen = alen;
	hw->trie = xfab_fibtrie_new(tbl16, 16, tbl8, n_groups, 8 * alen);
	return hw->trie ? 0 : -ENOMEM;
}

void xfab_fib_detach(struct xfab_fib_hw *hw)
{
	xfab_fibtrie_free(hw->trie);
	hw->trie = NULL;
}

int xfab_fib_map(struct xfab_fib_hw *hw, int alen, int fd16, int fd8)
{
	int err = xfab_map_groups(fd8, &hw->n_groups);

	if (!err)
		err = xfab_mmap_pair(fd16, LEN16, &hw->map16, fd8, LEN8(hw), &hw->map8);
	if (err)
		return err;
	/* Freshly loaded maps are all zero: nothing to scan. */
	err = xfab_fib_attach(hw, alen, hw->map16, hw->map8, hw->n_groups);
	if (err)
		xfab_fib_unmap(hw);
	return err;
}

void xfab_fib_unmap(struct xfab_fib_hw *hw)
{
	xfab_fib_detach(hw);
	if (hw->map16)
		munmap(hw->map16, LEN16);
	if (hw->map8)
		munmap(hw->map8, LEN8(hw));
	memset(hw, 0, sizeof(*hw));
}

__u32 xfab_fib4_lookup(const __u32 *tbl16, const __u32 *tbl8, __u32 n_groups, __u32 addr)
{
	__u32 v = tbl16[addr >> 16];

	for (int shift = 8; shift >= 0 && (v & XFAB_FIB_EXT); shift -= 8) {
		__u32 g = v & XFAB_FIB_ID_MASK;

		if (g >= n_groups)
			return 0;
		v = tbl8[(size_t)g * 256 + ((addr >> shift) & 0xff)];
	}
	return (v & XFAB_FIB_EXT) ? 0 : v;
}

__u32 xfab_fib6_lookup(const __u32 *tbl16, const __u32 *tbl8, __u32 n_groups, const __u8 addr[16])
{
	__u32 v = tbl16[(__u32)addr[0] << 8 | addr[1]];

	for (int b = 2; b < 16 && (v & XFAB_FIB_EXT); b++) {
		if ((v & XFAB_FIB_ID_MASK) >= n_groups)
			return 0;
		v = tbl8[(size_t)(v & XFAB_FIB_ID_MASK) * 256 + addr[b]];
	}
	return (v & XFAB_FIB_EXT) ? 0 : v;
}

/* A route the data plane knows: a type and an id that fit an entry. */
static int entry_of(__u32 type, __u32 id, __u32 *val)
{
	*val = XFAB_FIB_ENTRY(type, id & XFAB_FIB_ID_MASK);
	return type != 0 && !(*val & XFAB_FIB_EXT);
}

/* An address as the trie keys it: 16 bytes, an IPv4 one in the first 4. */
static void trie_key(const struct xfab_fib_hw *hw, const __u8 *addr, __u8 key[16])
{
	memset(key, 0, 16);
	memcpy(key, addr, (size_t)hw->alen);
}

int xfab_fib_set(struct xfab_fib_hw *hw, const __u8 *addr, int plen, __u32 type, __u32 id,
		 size_t *written)
{
	size_t w0 = xfab_fibtrie_written(hw->trie);
	__u8 a[16];
	__u32 val;
	int err;

	trie_key(hw, addr, a);
	if (!entry_of(type, id, &val))
		err = xfab_fibtrie_unset(hw->trie, a, plen);
	else
		err = xfab_fibtrie_set(hw->trie, a, plen, val);
	if (written)
		*written += xfab_fibtrie_written(hw->trie) - w0;
	return err;
}

int xfab_fib_del(struct xfab_fib_hw *hw, const __u8 *addr, int plen, size_t *written)
{
	size_t w0 = xfab_fibtrie_written(hw->trie);
	__u8 a[16];
	int err;

	trie_key(hw, addr, a);
	err = xfab_fibtrie_unset(hw->trie, a, plen);
	if (written)
		*written += xfab_fibtrie_written(hw->trie) - w0;
	return err;
}

/* Route i of the map's entries, whichever family: its table, its length as
 * the map keys it (32 bits of table header first), its address, its value. */
static const __u8 *route_at(const struct xfab_fib_hw *hw, const void *routes, size_t i,
			    __u32 *table, __u32 *keylen, const struct xfab_route **val)
{
	if (hw->alen == 4) {
		const struct xfab_e_route_v4 *r = (const struct xfab_e_route_v4 *)routes + i;

		*table = r->key.table;
		*keylen = r->key.prefixlen;
		*val = &r->val;
		return r->key.addr;
	} else {
		const struct xfab_e_route_v6 *r = (const struct xfab_e_route_v6 *)routes + i;

		*table = r->key.table;
		*keylen = r->key.prefixlen;
		*val = &r->val;
		return r->key.addr;
	}
}

int xfab_fib_sync(struct xfab_fib_hw *hw, const void *routes, size_t n, struct xfab_fib_stats *st)
{
	size_t w0 = xfab_fibtrie_written(hw->trie), k = 0;
	__u8(*addr)[16] = calloc(n ? n : 1, sizeof(*addr));
	int *plen = malloc((n ? n : 1) * sizeof(*plen));
	__u32 *val = malloc((n ? n : 1) * sizeof(*val));
	double t0 = (double)xfab_mono_ns() / 1e6;
	__u32 max = 32 + 8 * (__u32)hw->alen;
	int err = -ENOMEM;

	if (!addr || !plen || !val)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct xfab_route *v;
		__u32 table, keylen;
		const __u8 *a = route_at(hw, routes, i, &table, &keylen, &v);

		if (table != 0 || keylen < 32 || keylen > max || !entry_of(v->type, v->id, &val[k]))
			continue;
		memcpy(addr[k], a, (size_t)hw->alen);
		plen[k++] = (int)keylen - 32;
	}
	err = xfab_fibtrie_sync(hw->trie, (const __u8(*)[16])addr, plen, val, k);
	if (st) {
		memset(st, 0, sizeof(*st));
		st->routes = xfab_fibtrie_prefixes(hw->trie);
		st->written = xfab_fibtrie_written(hw->trie) - w0;
		st->groups = xfab_fibtrie_groups_used(hw->trie);
		st->write_ms = (double)xfab_mono_ns() / 1e6 - t0;
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
