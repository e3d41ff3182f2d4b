// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "fib4.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common.h"
#include "fibtrie.h"
#include "maps.h"

#define LEN16 ((size_t)XFAB_FIB4_TBL16_SIZE * 4)
#define LEN8(hw) ((size_t)(hw)->n_groups * 256 * 4)

int xfab_fib4_attach(struct xfab_fib4_hw *hw, __u32 *tbl16, __u32 *tbl8, __u32 n_groups)
{
	hw->tbl16 = tbl16;
	hw->tbl8 = tbl8;
	hw->n_groups = n_groups;
	hw->trie = xfab_fibtrie_new(tbl16, 16, tbl8, n_groups, 32);
	return hw->trie ? 0 : -ENOMEM;
}

void xfab_fib4_detach(struct xfab_fib4_hw *hw)
{
	xfab_fibtrie_free(hw->trie);
	hw->trie = NULL;
}

int xfab_fib4_map(struct xfab_fib4_hw *hw, int fd16, int fd8)
{
	int err = xfab_map_groups(fd8, &hw->n_groups);

	if (!err)
		err = xfab_mmap_pair(fd16, LEN16, &hw->map16, fd8, LEN8(hw), &hw->map8);
	if (err)
		return err;
	/* Freshly loaded maps are all zero: nothing to scan. */
	err = xfab_fib4_attach(hw, hw->map16, hw->map8, hw->n_groups);
	if (err)
		xfab_fib4_unmap(hw);
	return err;
}

void xfab_fib4_unmap(struct xfab_fib4_hw *hw)
{
	xfab_fib4_detach(hw);
	if (hw->map16)
		munmap(hw->map16, LEN16);
	if (hw->map8)
		munmap(hw->map8, LEN8(hw));
	memset(hw, 0, sizeof(*hw));
}

__u32 xfab_fib4_lookup(const __u32 *tbl16, const __u32 *tbl8, __u32 n_groups, __u32 addr)
{
	__u32 v = tbl16[addr >> 16];

	for (int shift = 8; shift >= 0 && (v & XFAB_FIB4_EXT); shift -= 8) {
		__u32 g = v & XFAB_FIB4_ID_MASK;

		if (g >= n_groups)
			return 0;
		v = tbl8[(size_t)g * 256 + ((addr >> shift) & 0xff)];
	}
	return (v & XFAB_FIB4_EXT) ? 0 : v;
}

/* A route the data plane knows: a type and an id that fit an entry. */
static int entry_of(__u32 type, __u32 id, __u32 *val)
{
	*val = XFAB_FIB4_ENTRY(type, id & XFAB_FIB4_ID_MASK);
	return type != 0 && !(*val & XFAB_FIB4_EXT);
}

int xfab_fib4_set(struct xfab_fib4_hw *hw, const __u8 addr[4], int plen, __u32 type, __u32 id,
		  size_t *written)
{
	size_t w0 = xfab_fibtrie_written(hw->trie);
	__u8 a[16] = {0};
	__u32 val;
	int err;

	memcpy(a, addr, 4);
	if (!entry_of(type, id, &val))
		err = xfab_fibtrie_unset(hw->trie, a, plen);
	else
		err = xfab_fibtrie_set(hw->trie, a, plen, val);
	if (written)
		*written += xfab_fibtrie_written(hw->trie) - w0;
	return err;
}

int xfab_fib4_del(struct xfab_fib4_hw *hw, const __u8 addr[4], int plen, size_t *written)
{
	size_t w0 = xfab_fibtrie_written(hw->trie);
	__u8 a[16] = {0};
	int err;

	memcpy(a, addr, 4);
	err = xfab_fibtrie_unset(hw->trie, a, plen);
	if (written)
		*written += xfab_fibtrie_written(hw->trie) - w0;
	return err;
}

int xfab_fib4_sync(struct xfab_fib4_hw *hw, const void *routes, size_t n,
		   struct xfab_fib4_stats *st)
{
	const struct xfab_e_route_v4 *r = routes;
	size_t w0 = xfab_fibtrie_written(hw->trie), k = 0;
	__u8(*addr)[16] = calloc(n ? n : 1, sizeof(*addr));
	int *plen = malloc((n ? n : 1) * sizeof(*plen));
	__u32 *val = malloc((n ? n : 1) * sizeof(*val));
	double t0 = (double)xfab_mono_ns() / 1e6;
	int err = -ENOMEM;

	if (!addr || !plen || !val)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (r[i].key.table != 0 || r[i].key.prefixlen < 32 || r[i].key.prefixlen > 64 ||
		    !entry_of(r[i].val.type, r[i].val.id, &val[k]))
			continue;
		memcpy(addr[k], r[i].key.addr, 4);
		plen[k++] = (int)r[i].key.prefixlen - 32;
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
