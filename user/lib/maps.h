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
	XFAB_T_PFC_CFG,
	XFAB_T_VTEP,
	XFAB_T_VNETS,
	XFAB_T_VNI_TO_VNET,
	XFAB_T_VNET_TUNNELS,
	XFAB_T_COPP_CFG,
	XFAB_T_ACL_PORTS, /* ACL */
	XFAB_T_ACL_RULES, /* ACL */
	XFAB_T_ACL_INFO,  /* ACL */
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
	struct xfab_fib4_hw *fib4;
	struct xfab_fib6_hw *fib6;
};

#endif
