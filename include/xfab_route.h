/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Routing's part of the ABI (included by xfab_abi.h): the route tables
 * (LPM tries and the FIBs of table 0), nexthops, ECMP groups and the
 * neighbours, which the L3 stage (bpf/l3.h) reads and xfabd writes.
 */
#ifndef XFAB_ROUTE_H
#define XFAB_ROUTE_H

#include <linux/types.h>

#define XFAB_MAX_NEXTHOPS 4096	   /* nexthop ids 1..4095; 0 = none */
#define XFAB_MAX_GROUPS 1024	   /* group ids 1..1023; 0 = none */
#define XFAB_GROUP_BUCKETS 256	   /* fixed bucket table per group (power of 2) */
#define XFAB_GROUP_MAX_MEMBERS 64  /* distinct nexthops per group */
#define XFAB_MAX_ROUTES_V4 1048576 /* LPM trie capacity (not preallocated) */
#define XFAB_MAX_ROUTES_V6 1048576
#define XFAB_MAX_NEIGHBORS 16384

/* Routing table id ("VRF") lives in the LPM key ahead of the address; the
 * default table is 0. TE pinning uses one table per ingress port:
 * XFAB_TABLE_TE | ifindex. A tenant's table (VNET, VXLAN overlay) is
 * XFAB_TABLE_VNET | vnet id. */
#define XFAB_TABLE_DEFAULT 0
#define XFAB_TABLE_TE 0x80000000u
/* LOCAL_REPAIR: 0.0.0.0/0 and ::/0 here name the group a dead path's packets
 * bounce to (XFAB_SET_REPAIR) */
#define XFAB_TABLE_REPAIR 0x40000000u
#define XFAB_TABLE_VNET 0x20000000u

/* ---- routes: LPM_TRIE; prefixlen counts the 32-bit table id ---- */
struct xfab_lpm_v4_key {
	__u32 prefixlen; /* 32 + IPv4 prefix length */
	__u32 table;	 /* big-endian table id, matched in full */
	__u8 addr[4];
};
_Static_assert(sizeof(struct xfab_lpm_v4_key) == 12, "lpm v4 key");

struct xfab_lpm_v6_key {
	__u32 prefixlen; /* 32 + IPv6 prefix length */
	__u32 table;
	__u8 addr[16];
};
_Static_assert(sizeof(struct xfab_lpm_v6_key) == 24, "lpm v6 key");

enum xfab_route_type {
	XFAB_RT_NEXTHOP = 1, /* id = nexthop id */
	XFAB_RT_GROUP = 2,   /* id = group id */
	XFAB_RT_CONNECTED =
	    3,		   /* directly attached subnet: id = egress ifindex, MAC from neighbors */
	XFAB_RT_LOCAL = 4, /* one of our addresses: punt */
	XFAB_RT_BLACKHOLE = 5, /* drop */
	XFAB_RT_TUNNEL = 6,    /* tenant route to remote VTEPs: id = vnet_tunnels index */
};

/* Where a route came from (shown by xfabctl; the data plane ignores it). */
enum xfab_route_source {
	XFAB_RSRC_CONNECTED = 1, /* an interface's subnet or own address */
	XFAB_RSRC_STATIC = 2,	 /* the config's ROUTE or TE_PATH */
	XFAB_RSRC_TE_PIN = 3,	 /* a runtime TE pin (xfabctl te) */
	XFAB_RSRC_KERNEL = 4,	 /* mirrored from the kernel (FIB_SYNC): see protocol */
};

struct xfab_route {
	__u8 type;     /* enum xfab_route_type */
	__u8 source;   /* enum xfab_route_source */
	__u8 protocol; /* XFAB_RSRC_KERNEL: the kernel route's rtm_protocol (186 bgp) */
	__u8 reserved;
	__u32 id;
};
_Static_assert(sizeof(struct xfab_route) == 8, "route");

/* ---- the FIBs of table 0: multibit tries of arrays (as DPDK's rte_lpm6) ----
 * The data plane looks table-0 destinations up here, not in routes_v4/v6
 * (which stay the full route lists, for TE and tenant tables and for
 * dumps). Both families have one layout: a 16-bit first level
 * (fib4_tbl16, fib6_tbl16: 65,536 entries, 256 KiB) indexed by the top 16
 * address bits, and groups of 256 entries, one per (level, leading bytes)
 * path that holds longer prefixes, indexed by the next address byte: an
 * IPv4 /24 is found in two loads, a /32 in three; an IPv6 /64 in seven.
 * The groups (fib4_tbl8, fib6_tbl8) are sized when xfabd loads, to the
 * table (DEVICE_METADATA fib_ipv4_groups / fib_ipv6_groups, or what the
 * config needs with room to spare): a switch with a small table holds a
 * small FIB (IPv4 DIR-24-8 needed 64 MiB whatever the table), and a group
 * costs 1 KiB. Entries are written by xfabd through mmap; each map element
 * (8 bytes) holds two entries, so the mapped memory is a dense __u32 array
 * (little-endian hosts: entry 2k is the low half).
 *   0                        no route
 *   XFAB_FIB4_EXT | g        look in group g: tbl8[g * 256 + the next address byte]
 *   type << 24 | id          a route: enum xfab_route_type and its id
 */
#define XFAB_FIB4_TBL16_SIZE (1u << 16)
#define XFAB_FIB4_EXT (1u << 31)
#define XFAB_FIB4_TYPE_SHIFT 24
#define XFAB_FIB4_ID_MASK 0xffffffu
#define XFAB_FIB4_ENTRY(type, id) ((__u32)(type) << XFAB_FIB4_TYPE_SHIFT | (__u32)(id))
#define XFAB_FIB6_TBL16_SIZE (1u << 16)
#define XFAB_FIB6_EXT XFAB_FIB4_EXT
#define XFAB_FIB6_ID_MASK XFAB_FIB4_ID_MASK
#define XFAB_FIB6_ENTRY(type, id) XFAB_FIB4_ENTRY(type, id)
/* Groups per family: at least, by default (no config asks for more), and
 * at most (1 Mi groups: 1 GiB, any IPv4 table fits in 65,536 + the /24s
 * holding longer prefixes). */
#define XFAB_FIB_GROUPS_MIN 256
#define XFAB_FIB_GROUPS_DEFAULT 1024
#define XFAB_FIB_GROUPS_MAX (1u << 20)

/* ---- nexthops: ARRAY, id -> struct xfab_nexthop; written by xfabd ----
 * A fat adjacency: a nexthop carries everything the egress needs of its
 * port (struct xfab_nh_port, copied from the port's entry in the same
 * update that writes the port), so a packet sent to a nexthop reads no
 * ports entry. One record is one 64-byte cache line. */
#define XFAB_NH_VALID (1u << 0)
#define XFAB_NH_RESOLVED (1u << 1) /* dmac holds the neighbour's MAC */
#define XFAB_NH_IPV6 (1u << 2)	   /* gateway is IPv6 */

/* What the egress needs of a port: the nexthop's copy of its entry
 * (struct xfab_port), and the egress stage's view of the port it sends to
 * (bpf/scratch.h). 8-aligned: copied in two 8-byte moves. */
struct xfab_nh_port {
	__u8 smac[6]; /* the port's MAC: the frame's source MAC */
	__u16 slot;   /* the port's counter slot (the xdp datapath's tx_ports index) */
	__u16 mtu;    /* the port's L3 MTU */
	__u8 vnet;    /* the port's tenant; 0: underlay */
	__u8 pad;
	/* The port's XFAB_PORT_* as xfabd last wrote its entry: its up bits
	 * (admin and oper, XFAB_PORT_UP) are the nexthop's up bit, checked
	 * per packet, so xfabd taking a port down stops its nexthops at once;
	 * QUEUED and LOSSLESS choose the egress stages. */
	__u32 flags;
} __attribute__((aligned(8)));
_Static_assert(sizeof(struct xfab_nh_port) == 16, "nexthop port");

struct xfab_nexthop {
	__u32 ifindex; /* egress port */
	__u32 flags;   /* XFAB_NH_* */
	__u8 dmac[6];  /* neighbour MAC, valid with XFAB_NH_RESOLVED */
	__u16 pad;
	struct xfab_nh_port port; /* the egress port's entry, as xfabd wrote it */
	__u8 gw[16];		  /* gateway address (IPv4 in the first 4 bytes) */
	__u8 reserved[16];
};
_Static_assert(sizeof(struct xfab_nexthop) == 64, "nexthop");

/* ---- groups: ARRAY, id -> struct xfab_group; written by xfabd ----
 * A flow hash picks one of XFAB_GROUP_BUCKETS buckets; each bucket names a
 * nexthop id. xfabd fills the buckets from the live members (round robin for
 * equal cost), so weights, resilient remapping and flowlets change only how
 * buckets are filled or chosen, never the data-plane layout. */
enum xfab_group_mode {
	XFAB_GROUP_HASH = 0, /* flow hash over buckets (flowlets may override) */
};

#define XFAB_GROUP_RESILIENT (1u << 0) /* refills keep surviving buckets in place */

struct xfab_group {
	__u16 mode;			       /* enum xfab_group_mode */
	__u16 flags;			       /* XFAB_GROUP_* */
	__u16 num_members;		       /* configured members */
	__u16 live_members;		       /* members whose port is up (0: group empty) */
	__u32 members[XFAB_GROUP_MAX_MEMBERS]; /* nexthop ids */
	__u16 weights[XFAB_GROUP_MAX_MEMBERS]; /* configured weight per member */
	__u16 buckets[XFAB_GROUP_BUCKETS];     /* nexthop id per bucket */
};
_Static_assert(sizeof(struct xfab_group) == 8 + 6 * XFAB_GROUP_MAX_MEMBERS + 2 * XFAB_GROUP_BUCKETS,
	       "group");

/* ---- neighbors: HASH, {ifindex, family, addr} -> struct xfab_neigh ---- */
struct xfab_neigh_key {
	__u32 ifindex;
	__u8 family; /* AF_INET or AF_INET6 */
	__u8 pad[3];
	__u8 addr[16];
};
_Static_assert(sizeof(struct xfab_neigh_key) == 24, "neigh key");

#define XFAB_NEIGH_STATIC (1u << 0) /* from config, not from the kernel */

struct xfab_neigh {
	__u8 mac[6];
	__u16 flags;
};
_Static_assert(sizeof(struct xfab_neigh) == 8, "neigh");

/* Pinned map names (also the BPF object's). */
#define XFAB_MAP_ROUTES_V4 "routes_v4"
#define XFAB_MAP_ROUTES_V6 "routes_v6"
#define XFAB_MAP_FIB4_TBL16 "fib4_tbl16"
#define XFAB_MAP_FIB4_TBL8 "fib4_tbl8"
#define XFAB_MAP_FIB6_TBL16 "fib6_tbl16"
#define XFAB_MAP_FIB6_TBL8 "fib6_tbl8"
#define XFAB_MAP_NEXTHOPS "nexthops"
#define XFAB_MAP_GROUPS "nh_groups"
#define XFAB_MAP_NEIGHBORS "neighbors"

#endif /* XFAB_ROUTE_H */
