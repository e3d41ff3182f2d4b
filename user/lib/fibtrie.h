/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A multibit trie of arrays updated one prefix at a time: the engine under
 * both FIBs (fib.c; IPv4: a 16-bit first level and two 8-bit levels;
 * IPv6: a 16-bit first level and fourteen 8-bit levels). Entries are
 * encoded as in xfab_abi.h: 0, a route (type << 24 | id), or EXT | group.
 *
 * Beside the kernel's arrays it keeps, in userspace:
 *   - the prefixes it holds and their entries (a hash), so removing a prefix
 *     finds the next shorter one that covers it;
 *   - per array entry, the length of the prefix that wrote it, so adding a
 *     prefix overwrites only the entries no longer prefix owns;
 *   - per group, how many prefixes reach into it, so a group nothing
 *     reaches any more is folded back into its parent's entry.
 * Adding or removing a prefix stores only the entries of its own range
 * (minus what longer prefixes own), plus the group entries of a new path.
 *
 * Order of stores: a new group is filled before the entry pointing at it is
 * stored (with a release fence between), and every entry is one aligned
 * 32-bit store, so a concurrent lookup sees the old or the new route for its
 * address, never a torn one. A group that goes out of use is not handed out
 * again until every other free group has been (a lookup that loaded its
 * pointer just before still reads consistent entries).
 */
#ifndef XFAB_FIBTRIE_H
#define XFAB_FIBTRIE_H

#include <linux/types.h>
#include <stddef.h>

struct xfab_fibtrie;

/* top: (1 << top_bits) entries; groups: n_groups * 256 entries; both all
 * zero (as loaded). max_plen: 32 or 128. */
struct xfab_fibtrie *xfab_fibtrie_new(__u32 *top, int top_bits, __u32 *groups, __u32 n_groups,
				      int max_plen);
void xfab_fibtrie_free(struct xfab_fibtrie *t);

/* Adds or changes prefix addr/plen (addr: network byte order, bits past
 * plen ignored) to entry val (a route entry, never 0 nor EXT). Returns 0,
 * or -ENOSPC (nothing stored) when the path needs more groups than are
 * free, -ENOMEM. */
int xfab_fibtrie_set(struct xfab_fibtrie *t, const __u8 *addr, int plen, __u32 val);
/* Removes a prefix (nothing if absent): its entries take the cover's. */
int xfab_fibtrie_unset(struct xfab_fibtrie *t, const __u8 *addr, int plen);
/* The entry a prefix holds, 0 if absent. */
__u32 xfab_fibtrie_get(const struct xfab_fibtrie *t, const __u8 *addr, int plen);

/* New groups the given prefixes need beyond those in place, each path
 * counted once (for an all-or-nothing batch); (size_t)-1 on ENOMEM. */
size_t xfab_fibtrie_groups_missing(const struct xfab_fibtrie *t, const __u8 (*addr)[16],
				   const int *plen, size_t n);

/* Brings the trie to exactly the n prefixes given (the first of duplicates
 * wins): new and changed ones first, then the removals. -ENOSPC (nothing
 * stored) when the new paths need more groups than are free; -ENOMEM. */
int xfab_fibtrie_sync(struct xfab_fibtrie *t, const __u8 (*addr)[16], const int *plen,
		      const __u32 *val, size_t n);

size_t xfab_fibtrie_groups_free(const struct xfab_fibtrie *t);
size_t xfab_fibtrie_groups_used(const struct xfab_fibtrie *t);
size_t xfab_fibtrie_prefixes(const struct xfab_fibtrie *t);

/* Calls fn for every prefix held (the trie must not change meanwhile). */
void xfab_fibtrie_walk(const struct xfab_fibtrie *t,
		       void (*fn)(void *arg, const __u8 *addr, int plen, __u32 val), void *arg);

/* Entries stored into the kernel's arrays since the trie was made (callers
 * take differences around an operation). */
size_t xfab_fibtrie_written(const struct xfab_fibtrie *t);

#endif
