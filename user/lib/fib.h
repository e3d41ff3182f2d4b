/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The FIB of table 0, IPv4 and IPv6 (layout in xfab_abi.h: a 16-bit first
 * level and groups of 256 entries, sized to the table; for IPv6 a multibit
 * trie of such arrays, as DPDK's rte_lpm6), updated one prefix at a time
 * (user/lib/fibtrie.c): adding or removing a route stores only the entries
 * of its own range, a new path's groups are filled deepest first before
 * anything points at them, and a group no prefix reaches any more folds
 * back into its parent's entry. Every entry is one aligned 32-bit store, so
 * a packet sees the old or the new route for its address, never a torn one.
 * The two families share the layout; an address is 4 or 16 bytes (alen).
 */
#ifndef XFAB_FIB_H
#define XFAB_FIB_H
#include <stddef.h>
#include <linux/types.h>
#include "xfab_abi.h"

/* one layout for both families (xfab_abi.h defines the IPv6 names as the
 * IPv4 ones) */
#define XFAB_FIB_TBL16_SIZE XFAB_FIB4_TBL16_SIZE
#define XFAB_FIB_EXT XFAB_FIB4_EXT
#define XFAB_FIB_ID_MASK XFAB_FIB4_ID_MASK
#define XFAB_FIB_ENTRY(type, id) XFAB_FIB4_ENTRY(type, id)

struct xfab_fibtrie;

/* What the kernel holds: the two arrays (mmapped maps, or plain memory in
 * tests), how many groups the second holds, the family's address length
 * and the trie that keeps them. */
struct xfab_fib_hw {
	__u32 *tbl16; /* XFAB_FIB_TBL16_SIZE entries */
	__u32 *tbl8;  /* n_groups * 256 entries */
	__u32 n_groups;
	int alen; /* 4 (IPv4) or 16 (IPv6) */
	struct xfab_fibtrie *trie;
	void *map16, *map8; /* mmap bases (xfab_fib_map) */
};

struct xfab_fib_stats {
	size_t routes;	  /* table-0 routes of the family held after the sync */
	size_t written;	  /* entries stored into the kernel arrays */
	size_t groups;	  /* groups in use after the sync */
	double expand_ms; /* finding what changed */
	double write_ms;  /* storing it */
};

/* Takes arrays that hold no route (all zero, as loaded) for addresses of
 * alen bytes; -EINVAL (alen), -ENOMEM. xfab_fib_detach frees what attach
 * allocated (the arrays stay). */
int xfab_fib_attach(struct xfab_fib_hw *hw, int alen, __u32 *tbl16, __u32 *tbl8, __u32 n_groups);
void xfab_fib_detach(struct xfab_fib_hw *hw);

/* Maps the two array maps read-write; they must be as loaded (all zero).
 * The groups are as many as the map holds. */
int xfab_fib_map(struct xfab_fib_hw *hw, int alen, int fd16, int fd8);
void xfab_fib_unmap(struct xfab_fib_hw *hw);

/* One route of table 0 (addr: alen bytes, network order): add or change,
 * remove. -ENOSPC (nothing stored) when its path needs a group and none is
 * free. *written (if not NULL) grows by the entries stored. */
int xfab_fib_set(struct xfab_fib_hw *hw, const __u8 *addr, int plen, __u32 type, __u32 id,
		 size_t *written);
int xfab_fib_del(struct xfab_fib_hw *hw, const __u8 *addr, int plen, size_t *written);

/* Brings hw to exactly the routes of table 0 among routes (n entries of
 * struct xfab_e_route_v4 or _v6, by the family, any order), prefix by
 * prefix: the new and changed ones first, then the removals. -ENOSPC
 * (nothing written) if the paths would need more groups than there are;
 * -ENOMEM. */
int xfab_fib_sync(struct xfab_fib_hw *hw, const void *routes, size_t n, struct xfab_fib_stats *st);

/* The entry the data plane would use for addr (IPv4: host order); 0 = no
 * route. */
__u32 xfab_fib4_lookup(const __u32 *tbl16, const __u32 *tbl8, __u32 n_groups, __u32 addr);
__u32 xfab_fib6_lookup(const __u32 *tbl16, const __u32 *tbl8, __u32 n_groups, const __u8 addr[16]);

/* Groups the prefixes need, in either FIB (both have one layout: a 16-bit
 * first level, then a group per (level, leading bytes) path; an IPv4
 * address is its first 4 bytes): each path once. first_over, if not NULL,
 * gets the index of the prefix whose path makes the count pass limit
 * (prefixes counted in index order), or -1. (size_t)-1 on ENOMEM. */
size_t xfab_fib_groups_needed(const __u8 (*addr)[16], const int *plen, size_t n, size_t limit,
			      long *first_over);

#endif
