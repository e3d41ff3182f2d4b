/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The DIR-24-8 IPv4 FIB of table 0 (layout in xfab_abi.h), kept in step with
 * the route list. A sync expands the whole desired route list into a fresh
 * image (the shortest prefixes first, so longer ones paint over them), then
 * writes only the entries that differ from what the kernel holds:
 *   1. tbl8 groups the new image uses (a /24 keeps its group across syncs,
 *      a new one takes a group no live entry points at),
 *   2. tbl24 entries,
 * A group nothing points at any more is left as it is, free for a later
 * sync.
 * Every entry is one aligned 32-bit store, so a packet sees the old or the
 * new route for its address, never a torn one. Running out of tbl8 groups
 * fails the sync before anything is written.
 */
#ifndef XFAB_FIB4_H
#define XFAB_FIB4_H
#include <stddef.h>
#include <linux/types.h>
#include "xfab_abi.h"

#define XFAB_FIB4_CHUNK 256 /* tbl24 entries per dirty-tracking chunk */
#define XFAB_FIB4_CHUNKS (XFAB_FIB4_TBL24_SIZE / XFAB_FIB4_CHUNK)

/* What the kernel holds: the two arrays (mmapped maps, or plain memory in
 * tests) and which tbl24 chunks may hold non-zero entries. */
struct xfab_fib4_hw {
	__u32 *tbl24; /* XFAB_FIB4_TBL24_SIZE entries */
	__u32 *tbl8;  /* XFAB_FIB4_TBL8_GROUPS * 256 entries */
	__u64 used[XFAB_FIB4_CHUNKS / 64];
	void *map24, *map8; /* mmap bases (xfab_fib4_map) */
};

struct xfab_fib4_stats {
	size_t routes;	  /* table-0 IPv4 routes expanded */
	size_t written;	  /* entries stored into the kernel arrays */
	size_t groups;	  /* tbl8 groups in use after the sync */
	double expand_ms; /* building the image */
	double write_ms;  /* diffing and storing */
};

/* Adopts arrays as they are: marks the chunks holding non-zero entries. */
void xfab_fib4_attach(struct xfab_fib4_hw *hw, __u32 *tbl24, __u32 *tbl8);

/* Maps the two array maps read-write; they must be as loaded (all zero). */
int xfab_fib4_map(struct xfab_fib4_hw *hw, int fd24, int fd8);
void xfab_fib4_unmap(struct xfab_fib4_hw *hw);

/* Brings hw to exactly the routes of table 0 among routes (n entries of
 * struct xfab_e_route_v4, any order). -ENOSPC (nothing written) if more /24s
 * hold longer prefixes than there are tbl8 groups; -ENOMEM. */
int xfab_fib4_sync(struct xfab_fib4_hw *hw, const void *routes, size_t n,
		   struct xfab_fib4_stats *st);

/* The entry the data plane would use for addr (host order); 0 = no route. */
__u32 xfab_fib4_lookup(const __u32 *tbl24, const __u32 *tbl8, __u32 addr);

#endif
