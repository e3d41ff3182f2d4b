/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The map layer: every table xfabd writes (one enum value per BPF map), the
 * layout of its entries ({key, value} as the map stores them), and the one
 * writer interface (struct xfab_map_ops) through which user/lib/compile.c
 * writes them: xfabd's map writer (user/agent/sync.c), the BPF suites'
 * harness, or a recorder in unit tests and tools.
 */
#ifndef XFAB_MAPS_H
#define XFAB_MAPS_H

#include <linux/bpf.h>
#include <linux/types.h>

#include "config.h"
#include "fib.h"
#include "xfab_abi.h"

/* Every table xfabd writes, once: X(enum suffix, map name, entry type,
 * is an array). The enum and xfab_table_descs (maps.c) come from it; which
 * feature owns each map is the feature registry's (feature.c).
 * The order is the order of writing: xfab_base_apply (compile_base.c)
 * upserts the base tables leaves-first in this order (a port's queues
 * before the port, the port before what sends out of it, an ACL row before
 * the port's count of rows) and removes in the reverse order, so the data
 * plane never reads an entry that names one not yet written. The last four
 * are compile.c's, per prefix, not the base build's. */
#define XFAB_TABLES(X)                                                                             \
	X(SETTINGS, XFAB_MAP_SETTINGS, xfab_e_settings, 1)                                         \
	X(DSCP_TO_TC, XFAB_MAP_DSCP_TO_TC, xfab_e_dscp, 1)                                         \
	X(QUEUE_CFG, XFAB_MAP_QUEUE_CFG, xfab_e_queue, 1)                                          \
	X(PFC_CFG, XFAB_MAP_PFC_CFG, xfab_e_pfc, 1)                                                \
	X(COPP_CFG, XFAB_MAP_COPP_CFG, xfab_e_copp, 1)                                             \
	X(VTEP, XFAB_MAP_VTEP, xfab_e_vtep, 1)                                                     \
	X(VNETS, XFAB_MAP_VNETS, xfab_e_vnet, 1)                                                   \
	X(VNI_TO_VNET, XFAB_MAP_VNI_TO_VNET, xfab_e_vni, 0)                                        \
	X(VNET_TUNNELS, XFAB_MAP_VNET_TUNNELS, xfab_e_tunnel, 1)                                   \
	X(PORTS, XFAB_MAP_PORTS, xfab_e_port, 1)                                                   \
	X(TX_PORTS, XFAB_MAP_TX_PORTS, xfab_e_txport, 0)                                           \
	/* static neighbours only; learnt ones go straight in */                                   \
	X(NEIGHBORS, XFAB_MAP_NEIGHBORS, xfab_e_neigh, 0)                                          \
	X(ACL_INFO, XFAB_MAP_ACL_INFO, xfab_e_acl_info, 1)                                         \
	X(ACL_RULES, XFAB_MAP_ACL_RULES, xfab_e_acl_rule, 1)                                       \
	X(ACL_PORTS, XFAB_MAP_ACL_PORTS, xfab_e_acl_port, 1)                                       \
	X(NEXTHOPS, XFAB_MAP_NEXTHOPS, xfab_e_nexthop, 1)                                          \
	X(GROUPS, XFAB_MAP_GROUPS, xfab_e_group, 1)                                                \
	X(ROUTES_V4, XFAB_MAP_ROUTES_V4, xfab_e_route_v4, 0)                                       \
	X(ROUTES_V6, XFAB_MAP_ROUTES_V6, xfab_e_route_v6, 0)

#define XFAB_TABLE_ENUM(id, map, type, arr) XFAB_T_##id,
enum xfab_table {
	XFAB_TABLES(XFAB_TABLE_ENUM) XFAB_T_COUNT,
};
#undef XFAB_TABLE_ENUM

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
struct xfab_e_pfc {
	__u32 key;
	struct xfab_pfc_cfg val;
};

struct xfab_e_vtep {
	__u32 key;
	struct xfab_vtep val;
};
struct xfab_e_vnet {
	__u32 key;
	struct xfab_vnet val;
};
struct xfab_e_vni {
	__u32 key; /* VNI */
	__u32 val; /* vnet id */
};
struct xfab_e_tunnel {
	__u32 key;
	struct xfab_tunnel_route val;
};

struct xfab_e_copp {
	__u32 key; /* enum xfab_copp_group */
	struct xfab_copp_cfg val;
};

struct xfab_table_desc {
	const char *map_name;
	size_t entry_size;
	size_t key_size;
	size_t val_off;
	size_t val_size;
	int is_array; /* delete = write zeroes */
};
/* Map name and entry layout of each table. */
extern const struct xfab_table_desc xfab_table_descs[XFAB_T_COUNT];

/* Live facts about a configured port, read from the kernel by xfabd. */
struct xfab_port_live {
	__u32 ifindex;
	__u8 mac[6];
	int oper_up;
};

/* Neighbour MAC lookup (kernel-learnt or static); 0 if known. */
typedef int (*xfab_neigh_fn)(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6]);

struct xfab_map_ops {
	int (*update)(void *arg, enum xfab_table t, const void *key, const void *val);
	int (*remove)(void *arg, enum xfab_table t, const void *key);
	/* Optional: called after each table's updates or removals, for
	 * writers that batch them. */
	int (*flush)(void *arg, enum xfab_table t);
	void *arg;
	/* Optional: the IPv4 and IPv6 FIBs of table 0, which compile.c keeps
	 * per prefix beside the routes_v4 / routes_v6 entries. */
	struct xfab_fib_hw *fib4;
	struct xfab_fib_hw *fib6;
};

#endif
