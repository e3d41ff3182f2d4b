/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Desired table image: what xfabd wants in every map it owns, compiled from
 * the config plus live state (port ifindex/MAC/oper state, neighbour MACs).
 * Applying an image diffs it against the one applied before and writes only
 * what changed, new entries before old ones are removed (make before break),
 * so a reload never takes the switch down.
 */
#ifndef XFAB_TABLES_H
#define XFAB_TABLES_H

#include <linux/bpf.h>
#include <linux/types.h>

#include "config.h"
#include "fib4.h"
#include "fib6.h"
#include "xfab_abi.h"

enum xfab_table {
	XFAB_T_SETTINGS,
	XFAB_T_PORTS,
	XFAB_T_TX_PORTS,
	XFAB_T_NEXTHOPS,
	XFAB_T_GROUPS,
	XFAB_T_ROUTES_V4,
	XFAB_T_ROUTES_V6,
	XFAB_T_NEIGHBORS, /* static neighbours only; learnt ones go straight in */
	XFAB_T_DSCP_TO_TC,
	XFAB_T_QUEUE_CFG,
	XFAB_T_COUNT,
};

struct xfab_e_settings {
	__u32 key;
	struct xfab_settings val;
};
struct xfab_e_port {
	__u32 key;
	struct xfab_port val;
};
struct xfab_e_txport {
	__u32 key;
	struct bpf_devmap_val val;
};
struct xfab_e_nexthop {
	__u32 key;
	struct xfab_nexthop val;
};
struct xfab_e_group {
	__u32 key;
	struct xfab_group val;
};
struct xfab_e_route_v4 {
	struct xfab_lpm_v4_key key;
	struct xfab_route val;
};
struct xfab_e_route_v6 {
	struct xfab_lpm_v6_key key;
	struct xfab_route val;
};
struct xfab_e_neigh {
	struct xfab_neigh_key key;
	struct xfab_neigh val;
};
struct xfab_e_dscp {
	__u32 key;
	__u32 val;
};
struct xfab_e_queue {
	__u32 key;
	struct xfab_queue_cfg val;
};

/* One table: a sorted array of fixed-size {key, value} entries. */
struct xfab_table_image {
	void *entries;
	size_t count;
};

struct xfab_tables {
	struct xfab_table_image t[XFAB_T_COUNT];
};

struct xfab_table_desc {
	const char *map_name;
	size_t entry_size;
	size_t key_size;
	size_t val_off;
	size_t val_size;
	int is_array; /* delete = write zeroes */
};
extern const struct xfab_table_desc xfab_table_descs[XFAB_T_COUNT];

/* Live facts about a configured port, read from the kernel by xfabd. */
struct xfab_port_live {
	__u32 ifindex;
	__u8 mac[6];
	int oper_up;
};

/* Neighbour MAC lookup (kernel-learnt or static); 0 if known. */
typedef int (*xfab_neigh_fn)(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6]);

/* Builds next from cfg and live state; reuses prev's nexthop and group ids
 * for the same nexthop / member set (prev may be an empty image). */
int xfab_tables_build(const struct xfab_config *cfg, const struct xfab_port_live *live,
		      xfab_neigh_fn neigh, void *neigh_arg, const struct xfab_tables *prev,
		      struct xfab_tables *next);
/* The tables that do not hang off routes (settings, ports, tx ports,
 * static neighbours, DSCP map, queues): user/lib/compile.c diffs these
 * whole (they are small) and keeps routes, nexthops and groups itself. */
int xfab_tables_build_base(const struct xfab_config *cfg, const struct xfab_port_live *live,
			   struct xfab_tables *next);
void xfab_tables_free(struct xfab_tables *t);

struct xfab_map_ops {
	int (*update)(void *arg, enum xfab_table t, const void *key, const void *val);
	int (*remove)(void *arg, enum xfab_table t, const void *key);
	/* Optional: called after each table's updates or removals, for
	 * writers that batch them. */
	int (*flush)(void *arg, enum xfab_table t);
	void *arg;
	/* Optional: the IPv4 FIB, synced to the table-0 routes right after
	 * routes_v4 is written (and so before any removal). */
	struct xfab_fib4_hw *fib4;
	struct xfab_fib4_stats *fib4_stats;
	/* Optional: the IPv6 FIB, likewise after routes_v6. */
	struct xfab_fib6_hw *fib6;
	struct xfab_fib6_stats *fib6_stats;
};

/* Writes the difference prev -> next. Returns 0 or the first error. */
int xfab_tables_apply(const struct xfab_tables *prev, const struct xfab_tables *next,
		      const struct xfab_map_ops *ops);

/* Fills a group's buckets by weight over its live members (live[m] for
 * member m). With XFAB_GROUP_RESILIENT and the group's previous table, a
 * bucket whose member is live and within its share stays where it was. */
void xfab_group_fill_buckets(struct xfab_group *grp, const struct xfab_group *prev,
			     const int *live);

#endif
