/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The DIR-24-8 IPv4 FIB of table 0 (layout in xfab_abi.h), updated one
 * prefix at a time (user/lib/fibtrie.c): adding or removing a route stores
 * only the entries of its own range, a new /24 with longer prefixes first
 * fills its tbl8 group and then points at it, and a /24 that loses its last
 * longer prefix points straight at its cover again. Every entry is one
 * aligned 32-bit store, so a packet sees the old or the new route for its
 * address, never a torn one.
 */
#ifndef XFAB_FIB4_H
#define XFAB_FIB4_H
#include <stddef.h>
#include <linux/types.h>
#include "xfab_abi.h"

struct xfab_fibtrie;

/* What the kernel holds: the two arrays (mmapped maps, or plain memory in
 * tests), and the trie that keeps them. */
struct xfab_fib4_hw {
	__u32 *tbl24; /* XFAB_FIB4_TBL24_SIZE entries */
	__u32 *tbl8;  /* XFAB_FIB4_TBL8_GROUPS * 256 entries */
	struct xfab_fibtrie *trie;
	void *map24, *map8; /* mmap bases (xfab_fib4_map) */
};

struct xfab_fib4_stats {
	size_t routes;	  /* table-0 IPv4 routes held after the sync */
	size_t written;	  /* entries stored into the kernel arrays */
	size_t groups;	  /* tbl8 groups in use after the sync */
	double expand_ms; /* finding what changed */
	double write_ms;  /* storing it */
};

/* Takes arrays that hold no route (all zero, as loaded); -ENOMEM.
 * xfab_fib4_detach frees what attach allocated (the arrays stay). */
int xfab_fib4_attach(struct xfab_fib4_hw *hw, __u32 *tbl24, __u32 *tbl8);
void xfab_fib4_detach(struct xfab_fib4_hw *hw);

/* Maps the two array maps read-write; they must be as loaded (all zero). */
int xfab_fib4_map(struct xfab_fib4_hw *hw, int fd24, int fd8);
void xfab_fib4_unmap(struct xfab_fib4_hw *hw);

/* One route of table 0 (addr in network order): add or change, remove.
 * -ENOSPC (nothing stored) when its /24 needs a tbl8 group and none is free.
 * *written (if not NULL) grows by the entries stored. */
int xfab_fib4_set(struct xfab_fib4_hw *hw, const __u8 addr[4], int plen, __u32 type, __u32 id,
		  size_t *written);
int xfab_fib4_del(struct xfab_fib4_hw *hw, const __u8 addr[4], int plen, size_t *written);

/* Brings hw to exactly the routes of table 0 among routes (n entries of
 * struct xfab_e_route_v4, any order), prefix by prefix: the new and changed
 * ones first, then the removals. -ENOSPC (nothing written) if more /24s
 * would hold longer prefixes than there are tbl8 groups; -ENOMEM. */
int xfab_fib4_sync(struct xfab_fib4_hw *hw, const void *routes, size_t n,
		   struct xfab_fib4_stats *st);

/* The entry the data plane would use for addr (host order); 0 = no route. */
__u32 xfab_fib4_lookup(const __u32 *tbl24, const __u32 *tbl8, __u32 addr);

#endif
