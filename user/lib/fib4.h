/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The IPv4 FIB of table 0 (layout in xfab_abi.h: a 16-bit first level and
 * groups of 256 entries, sized to the table), updated one prefix at a time
 * (user/lib/fibtrie.c): adding or removing a route stores only the entries
 * of its own range, a new group is filled before anything points at it,
 * and a group that loses its last longer prefix folds back into its parent
 * entry. Every entry is one aligned 32-bit store, so a packet sees the old
 * or the new route for its address, never a torn one.
 */
#ifndef XFAB_FIB4_H
#define XFAB_FIB4_H
#include <stddef.h>
#include <linux/types.h>
#include "xfab_abi.h"

struct xfab_fibtrie;

/* What the kernel holds: the two arrays (mmapped maps, or plain memory in
 * tests), how many groups the second holds, and the trie that keeps them. */
struct xfab_fib4_hw {
	__u32 *tbl16; /* XFAB_FIB4_TBL16_SIZE entries */
	__u32 *tbl8;  /* n_groups * 256 entries */
	__u32 n_groups;
	struct xfab_fibtrie *trie;
	void *map16, *map8; /* mmap bases (xfab_fib4_map) */
};

struct xfab_fib4_stats {
	size_t routes;	  /* table-0 IPv4 routes held after the sync */
	size_t written;	  /* entries stored into the kernel arrays */
	size_t groups;	  /* groups in use after the sync */
	double expand_ms; /* finding what changed */
	double write_ms;  /* storing it */
};

/* Takes arrays that hold no route (all zero, as loaded); -ENOMEM.
 * xfab_fib4_detach frees what attach allocated (the arrays stay). */
int xfab_fib4_attach(struct xfab_fib4_hw *hw, __u32 *tbl16, __u32 *tbl8, __u32 n_groups);
void xfab_fib4_detach(struct xfab_fib4_hw *hw);

/* Maps the two array maps read-write; they must be as loaded (all zero).
 * The groups are as many as the map holds. */
int xfab_fib4_map(struct xfab_fib4_hw *hw, int fd16, int fd8);
void xfab_fib4_unmap(struct xfab_fib4_hw *hw);

/* One route of table 0 (addr in network order): add or change, remove.
 * -ENOSPC (nothing stored) when its path needs a group and none is free.
 * *written (if not NULL) grows by the entries stored. */
int xfab_fib4_set(struct xfab_fib4_hw *hw, const __u8 addr[4], int plen, __u32 type, __u32 id,
		  size_t *written);
int xfab_fib4_del(struct xfab_fib4_hw *hw, const __u8 addr[4], int plen, size_t *written);

/* Brings hw to exactly the routes of table 0 among routes (n entries of
 * struct xfab_e_route_v4, any order), prefix by prefix: the new and changed
 * ones first, then the removals. -ENOSPC (nothing written) if the paths
 * would need more groups than there are; -ENOMEM. */
int xfab_fib4_sync(struct xfab_fib4_hw *hw, const void *routes, size_t n,
		   struct xfab_fib4_stats *st);

/* The entry the data plane would use for addr (host order); 0 = no route. */
__u32 xfab_fib4_lookup(const __u32 *tbl16, const __u32 *tbl8, __u32 n_groups, __u32 addr);

#endif
