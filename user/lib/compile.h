/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Compilation of the RIB (user/lib/rib.h) and live state (ports' ifindex,
 * MAC and oper state; neighbours' MACs) into map entries, incrementally:
 * each call writes only what its change implies, through a
 * struct xfab_map_ops (the agent's map writer, or a recorder in tests).
 *
 * Nexthops and groups are shared, ref-counted objects, as VPP's
 * load-balance objects are: a route points at a nexthop id (one path
 * member) or at the group id of its interned path, so
 *   - a neighbour's MAC changing rewrites the nexthop entries of that
 *     neighbour, whatever the number of routes through it;
 *   - a port going down or up rewrites its port entry and the groups with
 *     a member on it (a resilient group moves only the dead member's
 *     buckets, xfab_group_fill_buckets);
 *   - the routing daemon then withdrawing those same members writes
 *     nothing: a route whose new path is its group's members minus those
 *     on down ports stays on that group (lent); back up, such routes move
 *     to their own path before the group takes the member back;
 *   - a route added or removed writes its route entry, its FIB entries
 *     (per prefix, user/lib/fib.c) and, only if it is the first or
 *     last user, its nexthop or group;
 *   - an own path's new members (a kernel nexthop group, rib.h) rewrite
 *     its group only, never the routes through it;
 *   - a config reload diffs the RIB's prefixes (user/lib/rib.c), so an
 *     unchanged config writes nothing and a changed one only the difference.
 * Make before break: a route's nexthop or group is written before the
 * route, new and changed routes before removals, and an object nothing
 * uses any more is removed last; its id is not handed out again until the
 * others have been (ids are allocated round robin).
 *
 * Tables that do not hang off routes (settings, ports, tx ports, static
 * neighbours, DSCP, queues) are small: a reload diffs them whole
 * (user/lib/compile_base.c).
 *
 * A fresh xfab_compile (and RIB) given a whole config writes every entry
 * the config implies: that is the full rebuild, and the only compiler.
 */
#ifndef XFAB_COMPILE_H
#define XFAB_COMPILE_H

#include "rib.h"
#include "maps.h"

struct xfab_compile_stats {
	size_t updates[XFAB_T_COUNT]; /* entries written, per table */
	size_t removes[XFAB_T_COUNT]; /* entries removed (arrays: zeroed) */
	size_t fib4_written;	      /* IPv4 FIB entries stored */
	size_t fib6_written;	      /* IPv6 FIB entries stored */
};

struct xfab_compile;

/* ops is copied (its fib4/fib6, if set, are updated per prefix); neigh
 * resolves a gateway's MAC when no static neighbour does. */
struct xfab_compile *xfab_compile_new(struct xfab_rib *rib, const struct xfab_map_ops *ops,
				      xfab_neigh_fn neigh, void *neigh_arg);
/* Frees the state (the maps keep what they hold); before xfab_rib_free. */
void xfab_compile_free(struct xfab_compile *c);

/* After xfab_rib_load_config(rib, cfg): takes cfg's switch settings and
 * the live ports, writes the base tables' difference, rewrites the
 * nexthops and groups whose value changed and compiles the dirty prefixes. */
int xfab_compile_config(struct xfab_compile *c, const struct xfab_config *cfg,
			const struct xfab_port_live *live);
/* Compiles the dirty prefixes (after xfab_rib_add / xfab_rib_del). */
int xfab_compile_routes(struct xfab_compile *c);
/* Port (index in the config) went up or down. */
int xfab_compile_link(struct xfab_compile *c, int port, int oper_up);
/* The neighbour (ifindex, family, addr) changed (learnt, new MAC, gone):
 * the nexthops through it resolve again. */
int xfab_compile_neigh(struct xfab_compile *c, __u32 ifindex, int family, const __u8 *addr);

/* What the last call wrote. */
const struct xfab_compile_stats *xfab_compile_last(const struct xfab_compile *c);

struct xfab_compile_counts {
	size_t routes_v4, routes_v6, nexthops, groups;
};
void xfab_compile_counts(const struct xfab_compile *c, struct xfab_compile_counts *out);

/* Every nexthop in use (port: its index in the config). */
void xfab_compile_foreach_nexthop(const struct xfab_compile *c,
				  void (*fn)(void *arg, int port, __u32 id,
					     const struct xfab_nexthop *nh),
				  void *arg);
/* The group value written for id, NULL if none (tests, show). */
const struct xfab_group *xfab_compile_group(const struct xfab_compile *c, __u32 id);

/* Fills a group's buckets by weight over its live members (live[m] for
 * member m). With XFAB_GROUP_RESILIENT and the group's previous table, a
 * bucket whose member is live and within its share stays where it was. */
void xfab_group_fill_buckets(struct xfab_group *grp, const struct xfab_group *prev,
			     const int *live);

#endif
