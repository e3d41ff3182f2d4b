/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The IPv6 FIB of table 0 (layout in xfab_abi.h): a multibit trie of arrays
 * (as DPDK's rte_lpm6), a 16-bit first level and 8-bit levels below it,
 * updated one prefix at a time as user/lib/fib4.c is (user/lib/fibtrie.c):
 * a new path's groups are filled deepest first before anything points at
 * them, a group no prefix reaches any more folds back into its parent's
 * entry, and a prefix's change stores only the entries of its own range.
 */
#ifndef XFAB_FIB6_H
#define XFAB_FIB6_H
#include <stddef.h>
#include <linux/types.h>
#include "xfab_abi.h"

struct xfab_fibtrie;

struct xfab_fib6_hw {
	__u32 *tbl16; /* XFAB_FIB6_TBL16_SIZE entries */
	__u32 *tbl8;  /* n_groups * 256 entries */
	__u32 n_groups;
	struct xfab_fibtrie *trie;
	void *map16, *map8;
};

struct xfab_fib6_stats {
	size_t routes;
	size_t written;
	size_t groups;
};

/* Takes arrays that hold no route (tests; -ENOMEM); detach frees what
 * attach allocated. xfab_fib6_map maps the loaded maps. */
int xfab_fib6_attach(struct xfab_fib6_hw *hw, __u32 *tbl16, __u32 *tbl8, __u32 n_groups);
void xfab_fib6_detach(struct xfab_fib6_hw *hw);
int xfab_fib6_map(struct xfab_fib6_hw *hw, int fd16, int fd8);
void xfab_fib6_unmap(struct xfab_fib6_hw *hw);

/* One route of table 0: add or change, remove (as xfab_fib4_set/del). */
int xfab_fib6_set(struct xfab_fib6_hw *hw, const __u8 addr[16], int plen, __u32 type, __u32 id,
		  size_t *written);
int xfab_fib6_del(struct xfab_fib6_hw *hw, const __u8 addr[16], int plen, size_t *written);

/* Brings hw to exactly the table-0 routes among routes (n entries of
 * struct xfab_e_route_v6). -ENOSPC (nothing written) when out of groups. */
int xfab_fib6_sync(struct xfab_fib6_hw *hw, const void *routes, size_t n,
		   struct xfab_fib6_stats *st);

/* The entry the data plane would use for addr; 0 = no route. */
__u32 xfab_fib6_lookup(const __u32 *tbl16, const __u32 *tbl8, __u32 n_groups, const __u8 addr[16]);

/* Groups the prefixes need, in either FIB (both have one layout: a 16-bit
 * first level, then a group per (level, leading bytes) path; an IPv4
 * address is its first 4 bytes): each path once. first_over, if not NULL,
 * gets the index of the prefix whose path makes the count pass limit
 * (prefixes counted in index order), or -1. (size_t)-1 on ENOMEM. */
size_t xfab_fib_groups_needed(const __u8 (*addr)[16], const int *plen, size_t n, size_t limit,
			      long *first_over);

#endif
