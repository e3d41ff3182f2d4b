/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xfab ABI: every map key, value, enum and constant shared by the BPF data
 * plane (bpf/) and userspace (user/). Fixed-width types, explicit padding and
 * size asserts, so both sides always agree on the layout.
 */
#ifndef XFAB_ABI_H
#define XFAB_ABI_H

#include <linux/bpf.h> /* struct bpf_spin_lock */
#include <linux/types.h>

/*
 * ABI version: bump it with any change to a map's name, key, value layout or
 * meaning, or to the reason lists below. xfabd records it in the pinned `abi`
 * map when it loads; xfabctl and xfabd refuse pins of another version
 * (xfab_abi_check, user/lib/abi.c) instead of misreading them. Pins without
 * an `abi` map come from before versions were recorded (v1).
 */
#define XFAB_ABI_VERSION 11u	   /* 11: the ACL's maps and acl_drop */
#define XFAB_ABI_MAGIC 0x42414658u /* "XFAB" little-endian */

/* abi: ARRAY[1] -> this; the layout of this struct never changes. */
struct xfab_abi_info {
	__u32 magic;	/* XFAB_ABI_MAGIC */
	__u32 version;	/* XFAB_ABI_VERSION of the xfabd that loaded the maps */
	__u32 drop_max; /* XFAB_DROP_MAX, XFAB_PUNT_MAX: a cross-check */
	__u32 punt_max;
};
_Static_assert(sizeof(struct xfab_abi_info) == 16, "abi info");

#define XFAB_MAX_PORTS 64	   /* port slots (counters are indexed by slot) */
#define XFAB_MAX_IFINDEX 4096	   /* ports table: an array indexed by ifindex */
#define XFAB_MAX_NEXTHOPS 4096	   /* nexthop ids 1..4095; 0 = none */
#define XFAB_MAX_GROUPS 1024	   /* group ids 1..1023; 0 = none */
#define XFAB_GROUP_BUCKETS 256	   /* fixed bucket table per group (power of 2) */
#define XFAB_GROUP_MAX_MEMBERS 64  /* distinct nexthops per group */
#define XFAB_MAX_ROUTES_V4 1048576 /* LPM trie capacity (not preallocated) */
#define XFAB_MAX_ROUTES_V6 1048576
#define XFAB_MAX_NEIGHBORS 16384
#define XFAB_IPV6_MAX_EXT_HDRS 8 /* extension headers walked before giving up */

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
#define XFAB_MAX_FLOWLETS 65536

/* ---- verdicts of the pipeline (internal, also reported by tests) ---- */
enum xfab_action {
	XFAB_ACT_DROP = 0,
	XFAB_ACT_PUNT = 1,    /* hand to the kernel stack */
	XFAB_ACT_FORWARD = 2, /* redirect to egress port */
};

/*
 * Drop and punt reasons: ONE list each. X(ID, "name", "help") becomes the
 * enum value XFAB_DROP_<ID> (or XFAB_PUNT_<ID>), the name `xfabctl show
 * drops`, traces and the Prometheus label use, and its help text (user/lib/
 * names.c). Every reason is counted (drop_stats, punt_stats). Names are
 * unique, lower case [a-z0-9_]; a new reason goes in here and nowhere else.
 */
#define XFAB_DROP_REASONS(X)                                                                       \
	X(NONE, "none", "not dropped")                                                             \
	X(ETH_TRUNCATED, "eth_truncated", "frame shorter than an Ethernet header")                 \
	X(VLAN_STACKED, "vlan_stacked", "more than one 802.1Q/802.1ad tag")                        \
	X(IPV4_TRUNCATED, "ipv4_truncated", "IPv4 header (with its options) cut short")            \
	X(IPV4_BAD_VERSION, "ipv4_bad_version", "IPv4 ethertype, IP version not 4")                \
	X(IPV4_BAD_IHL, "ipv4_bad_ihl", "IPv4 header length (IHL) below 5 words")                  \
	X(IPV4_BAD_LENGTH, "ipv4_bad_length",                                                      \
	  "IPv4 total length below the header length or beyond the frame")                         \
	X(IPV4_BAD_CHECKSUM, "ipv4_bad_checksum", "IPv4 header checksum does not verify")          \
	X(IPV6_TRUNCATED, "ipv6_truncated", "IPv6 fixed header cut short")                         \
	X(IPV6_BAD_VERSION, "ipv6_bad_version", "IPv6 ethertype, IP version not 6")                \
	X(IPV6_BAD_LENGTH, "ipv6_bad_length", "IPv6 payload length beyond the frame")              \
	X(IPV6_EXT_CHAIN, "ipv6_ext_chain", "IPv6 extension header chain too long or truncated")   \
	X(L4_TRUNCATED, "l4_truncated", "TCP/UDP/ICMP header cut short")                           \
	X(SMAC_MULTICAST, "smac_multicast", "source MAC is multicast or broadcast")                \
	X(SMAC_EQ_DMAC, "smac_eq_dmac", "source MAC equals destination MAC")                       \
	X(NOT_ROUTER_MAC, "not_router_mac", "unicast frame not addressed to this port")            \
	X(PORT_UNKNOWN, "port_unknown", "ingress port not in the port table")                      \
	X(PORT_DOWN, "port_down", "ingress port administratively down")                            \
	X(NO_ROUTE, "no_route", "no route to the destination")                                     \
	X(BLACKHOLE, "blackhole", "the route is a blackhole")                                      \
	X(NEXTHOP_INVALID, "nexthop_invalid", "the route points at a missing nexthop or group")    \
	X(GROUP_EMPTY, "group_empty", "every member of the group is down")                         \
	X(EGRESS_DOWN, "egress_down", "the chosen egress port is down")                            \
	X(BAD_SRC_ADDR, "bad_src_addr", "martian source address (multicast, loopback, broadcast)") \
	X(BUFFER_FULL, "buffer_full", "egress queue above its buffer: tail drop")                  \
	X(WRED, "wred", "Not-ECT packet dropped along the WRED curve")                             \
	X(MAC_CONTROL_TRUNCATED, "mac_control_truncated",                                          \
	  "MAC control frame too short for its opcode (PFC: and class-enable vector)")             \
	X(MAC_CONTROL_BAD_OPCODE, "mac_control_bad_opcode",                                        \
	  "MAC control frame neither PFC (0x0101) nor PAUSE (0x0001)")                             \
	X(MAC_CONTROL_BAD_DST, "mac_control_bad_dst",                                              \
	  "MAC control frame not to 01:80:C2:00:00:01 or the port's MAC")                          \
	X(PFC_WATCHDOG, "pfc_watchdog", "PFC watchdog drop action: the queue or PG is stormed")    \
	X(VXLAN_TRUNCATED, "vxlan_truncated",                                                      \
	  "to the VTEP on UDP 4789: VXLAN header or inner Ethernet header cut short")              \
	X(VXLAN_BAD_FLAGS, "vxlan_bad_flags", "VXLAN flags not 0x08 (I) or reserved bits set")     \
	X(VXLAN_UNKNOWN_VNI, "vxlan_unknown_vni", "VXLAN VNI of no VNET")                          \
	X(VXLAN_INNER_MALFORMED, "vxlan_inner_malformed",                                          \
	  "decapsulated frame not IPv4/IPv6, or its IP header bad or cut short")                   \
	X(VXLAN_CE_NOT_ECT, "vxlan_ce_not_ect", "RFC 6040: outer header CE, inner packet Not-ECT") \
	X(VNET_NO_ROUTE, "vnet_no_route", "no route in the tenant's (VNET's) table")               \
	X(VNET_TUNNEL_AGAIN, "vnet_tunnel_again",                                                  \
	  "decapsulated packet routed into a tunnel again (VTEPs never re-encapsulate)")           \
	X(VNET_MTU, "vnet_mtu", "tenant IPv4 packet without DF too big for the tunnel")            \
	X(VNET_NO_VTEP, "vnet_no_vtep", "tunnel route but no VTEP source address")                 \
	X(VNET_CROSS, "vnet_cross",                                                                \
	  "routed out of a port of another VNET, or between a VNET and the underlay")              \
	X(VXLAN_ENCAP_FAILED, "vxlan_encap_failed",                                                \
	  "no room in front of the frame for the outer headers")                                   \
	X(VNET_UNDERLAY_PUNT, "vnet_underlay_punt",                                                \
	  "tunnel's underlay path needs the kernel: never handed over unencapsulated")             \
	X(COPP_POLICED, "copp_policed",                                                            \
	  "a packet for the kernel over its CoPP group's rate (xfabctl show copp)")                \
	X(ACL_DROP, "acl_drop", "an ingress ACL rule's DROP (xfabctl show acl)")

#define XFAB_PUNT_REASONS(X)                                                                       \
	X(NONE, "none", "not punted")                                                              \
	X(ARP, "arp", "ARP: the kernel answers")                                                   \
	X(ND, "nd", "ICMPv6 RS/RA/NS/NA/redirect")                                                 \
	X(LINK_LOCAL, "link_local", "link-local address (169.254/16, fe80::/10)")                  \
	X(MULTICAST, "multicast", "multicast or broadcast destination")                            \
	X(TO_SELF, "to_self", "addressed to one of the switch's addresses")                        \
	X(TTL_EXPIRED, "ttl_expired", "TTL/hop limit <= 1: the kernel sends time exceeded")        \
	X(NEIGH_UNRESOLVED, "neigh_unresolved", "no MAC yet: the kernel resolves and forwards")    \
	X(MTU_EXCEEDED, "mtu_exceeded",                                                            \
	  "beyond the egress MTU: the kernel fragments or says too big")                           \
	X(NON_IP, "non_ip", "not IP or ARP (LLDP, other ethertypes)")                              \
	X(IPV6_HOP_BY_HOP, "ipv6_hop_by_hop", "IPv6 hop-by-hop options need the slow path")        \
	X(VNET_TOO_BIG, "vnet_too_big",                                                            \
	  "tenant packet (IPv4 DF or IPv6) too big for the tunnel: the kernel says so (ICMP)")

#define XFAB_REASON_ENUM_DROP(id, name, help) XFAB_DROP_##id,
#define XFAB_REASON_ENUM_PUNT(id, name, help) XFAB_PUNT_##id,
enum xfab_drop_reason { XFAB_DROP_REASONS(XFAB_REASON_ENUM_DROP) XFAB_DROP_MAX };
enum xfab_punt_reason { XFAB_PUNT_REASONS(XFAB_REASON_ENUM_PUNT) XFAB_PUNT_MAX };

/* ---- ports: ARRAY, ifindex -> struct xfab_port (ifindex 0: no port); written
 * by xfabd. An array, so the two lookups a packet needs are plain loads. ---- */
#define XFAB_PORT_ADMIN_UP (1u << 0)
#define XFAB_PORT_OPER_UP (1u << 1)
#define XFAB_PORT_UP (XFAB_PORT_ADMIN_UP | XFAB_PORT_OPER_UP)
#define XFAB_PORT_QUEUED (1u << 2) /* a rate or a WRED profile: run the queue stage */
#define XFAB_PORT_LOSSLESS                                                                         \
	(1u << 3) /* PFC on some priority: xdp hands its lossless classes to tc */

enum xfab_datapath {
	XFAB_DP_XDP = 0,
	XFAB_DP_TC = 1,
};

struct xfab_port {
	__u8 mac[6]; /* router MAC of this port (source MAC on egress) */
	__u16 slot;  /* 0..XFAB_MAX_PORTS-1: index of counters */
	__u32 ifindex;
	__u32 flags;   /* XFAB_PORT_* */
	__u16 mtu;     /* L3 MTU */
	__u8 datapath; /* enum xfab_datapath */
	__u8 vnet;     /* tenant (VNET id) of a host-facing port; 0: underlay */
	char name[16]; /* interface name, so readers need no netns */
};
_Static_assert(sizeof(struct xfab_port) == 36, "xfab_port layout");

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

/* ---- nexthops: ARRAY, id -> struct xfab_nexthop; written by xfabd ---- */
#define XFAB_NH_VALID (1u << 0)
#define XFAB_NH_RESOLVED (1u << 1) /* dmac holds the neighbour's MAC */
#define XFAB_NH_IPV6 (1u << 2)	   /* gateway is IPv6 */

struct xfab_nexthop {
	__u32 ifindex; /* egress port */
	__u32 flags;   /* XFAB_NH_* */
	__u8 dmac[6];  /* neighbour MAC, valid with XFAB_NH_RESOLVED */
	__u16 pad;
	__u8 gw[16]; /* gateway address (IPv4 in the first 4 bytes) */
};
_Static_assert(sizeof(struct xfab_nexthop) == 32, "nexthop");

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

/* ---- switch-wide settings: ARRAY[1]; written by xfabd ---- */

/* Fields the flow hash covers (ECMP|global hash_fields). */
#define XFAB_HASH_F_SRC_IP (1u << 0)
#define XFAB_HASH_F_DST_IP (1u << 1)
#define XFAB_HASH_F_IP_PROTO (1u << 2)
#define XFAB_HASH_F_L4_SRC_PORT (1u << 3)
#define XFAB_HASH_F_L4_DST_PORT (1u << 4)
#define XFAB_HASH_F_FLOW_LABEL (1u << 5) /* IPv6 flow label */
#define XFAB_HASH_F_ROCE_QP (1u << 6)	 /* RoCEv2 BTH destination QP (UDP 4791) */
#define XFAB_HASH_F_INNER (1u << 7)	 /* VXLAN (UDP 4789): hash the inner headers */
#define XFAB_HASH_F_DEFAULT                                                                        \
	(XFAB_HASH_F_SRC_IP | XFAB_HASH_F_DST_IP | XFAB_HASH_F_IP_PROTO |                          \
	 XFAB_HASH_F_L4_SRC_PORT | XFAB_HASH_F_L4_DST_PORT)

#define XFAB_SET_SYMMETRIC (1u << 0)	 /* A->B and B->A hash alike */
#define XFAB_SET_FLOWLET (1u << 1)	 /* flowlet switching on group routes */
#define XFAB_SET_TE (1u << 2)		 /* TE tables hold entries: look them up */
#define XFAB_SET_REPAIR (1u << 3)	 /* a dead path bounces (XFAB_TABLE_REPAIR) */
#define XFAB_SET_SPLIT_HORIZON (1u << 4) /* a group never sends back out of the ingress port */

enum xfab_flowlet_mode {
	XFAB_FLOWLET_RANDOM = 0,       /* a new flowlet takes a random bucket */
	XFAB_FLOWLET_LEAST_LOADED = 1, /* ... the live member whose port sent least lately */
};

/*
 * The keys of one flow hash (include/xfab_hash.h): a multilinear hash over
 * the flow's 32-bit words, one 64-bit key per word, derived from the
 * switch's seed; a field the hash does not cover has the key 0 (addresses,
 * flow label) or its bits out of the mask (ports, protocol, QP).
 */
struct xfab_hash_key {
	__u64 k0;
	__u64 src[4]; /* source address words (IPv4: src[0]) */
	__u64 dst[4];
	__u64 ports; /* the word sport | dport << 16 (network order) */
	__u64 misc;  /* the word proto | qp << 8 */
	__u64 label; /* IPv6 flow label */
	__u32 ports_mask;
	__u32 misc_mask;
};
_Static_assert(sizeof(struct xfab_hash_key) == 104, "hash key");

struct xfab_settings {
	__u32 hash_seed;
	__u32 hash_fields;    /* XFAB_HASH_F_* */
	__u32 flags;	      /* XFAB_SET_* */
	__u32 flowlet_mode;   /* enum xfab_flowlet_mode */
	__u64 flowlet_gap_ns; /* idle gap that ends a flowlet */
	__u64 load_window_ns; /* least-loaded: span of one port-load window */
	__u64 flowlet_age_ns; /* show flowlets lists those active this recently */
	/* xfab_hash_key_derive(seed, hash_fields) and, for a VXLAN tunnel's
	 * endpoint and source port, (seed, XFAB_TUNNEL_HASH_FIELDS) */
	struct xfab_hash_key ecmp_key;
	struct xfab_hash_key tunnel_key;
};
_Static_assert(sizeof(struct xfab_settings) == 40 + 2 * 104, "settings");

/* ---- flowlets: ARRAY, slot -> state (struct xfab_flowlet, xfab_hash.h) ----
 * Indexed like a switch ASIC's flowlet table: the slot is the flow's hash
 * (the one ECMP uses) folded with the group, so finding a flow's flowlet is
 * one load and starting one is a store; flows that share a slot share its
 * flowlet (with 65,536 slots, 1,000 flows share about 8). */
#define XFAB_FLOWLET_SLOT(hash, group)                                                             \
	(((hash) ^ ((__u32)(group)*0x9e3779b1u)) & (XFAB_MAX_FLOWLETS - 1))

struct xfab_flowlet {
	__u64 last_seen_ns; /* 0: never used */
	__u32 nh_id;	    /* member of the current flowlet */
	__u32 flowlets;	    /* flowlets started since a flow took the slot */
	__u32 group;	    /* the group of that flow */
	__u32 hash;	    /* and its flow hash (`xfabctl hash` shows a flow's) */
};
_Static_assert(sizeof(struct xfab_flowlet) == 24, "flowlet");

/* ---- port_load: ARRAY, slot -> bytes sent in the current/last window ---- */
struct xfab_port_load {
	__u64 window_start_ns;
	__u64 bytes;	  /* this window */
	__u64 last_bytes; /* the window before */
};
_Static_assert(sizeof(struct xfab_port_load) == 24, "port load");

/* ---- lb_stats: PERCPU_ARRAY of load-balancing events ---- */
enum xfab_lb_counter {
	XFAB_LB_FLOWLET_HIT = 0, /* packet continued its flowlet */
	XFAB_LB_FLOWLET_NEW,	 /* a new flowlet began (first packet or after a gap) */
	XFAB_LB_FLOWLET_MOVED,	 /* ... and took another member than the last one */
	XFAB_LB_FLOWLET_DEAD,	 /* a flowlet's member went down: re-selected */
	XFAB_LB_TE_HIT,		 /* a TE entry steered the packet */
	XFAB_LB_TE_FALLBACK,	 /* a TE entry matched but its path was down: route used */
	XFAB_LB_REPAIRED,	 /* the route's path was dead: bounced to a repair port */
	XFAB_LB_SPLIT_HORIZON,	 /* the group chose the ingress port: another member taken */
	XFAB_LB_REROUTED,	 /* tc: its egress device was down: through the pipeline again */
	XFAB_LB_MAX,
};

/* ---- counters: PERCPU_ARRAY; summed by xfabctl ---- */
struct xfab_port_stats {
	__u64 rx_packets;
	__u64 rx_bytes;
	__u64 tx_packets; /* forwarded out of this port by xfab */
	__u64 tx_bytes;
	__u64 drops; /* dropped on ingress at this port */
	__u64 punts; /* handed to the kernel at this port */
};
_Static_assert(sizeof(struct xfab_port_stats) == 48, "port stats");

struct xfab_reason_stats {
	__u64 packets;
	__u64 bytes;
};
_Static_assert(sizeof(struct xfab_reason_stats) == 16, "reason stats");

/* ---- QoS: traffic classes, WRED/ECN, queues ---- */
#define XFAB_NUM_TC 8
#define XFAB_NUM_DSCP 64
#define XFAB_QUEUE_KEY(slot, tc) ((slot)*XFAB_NUM_TC + (tc))
#define XFAB_MAX_QUEUES (XFAB_MAX_PORTS * XFAB_NUM_TC)

/* dscp_to_tc: ARRAY[64], DSCP -> traffic class; written by xfabd. */

#define XFAB_WRED_ENABLED (1u << 0)	/* a profile is bound to this queue */
#define XFAB_WRED_ECN (1u << 1)		/* mark ECT packets CE along the curve */
#define XFAB_WRED_DROP_NONECT (1u << 2) /* drop Not-ECT packets along the curve */

/* queue_cfg: ARRAY, XFAB_QUEUE_KEY(slot, tc) -> the queue's port rate, buffer
 * and WRED/ECN curve; written by xfabd. */
struct xfab_queue_cfg {
	__u64 rate_kbps;    /* port rate; 0: no modelled queue (xdp) */
	__u32 buffer_bytes; /* tail drop above this occupancy; 0: no limit */
	__u32 flags;	    /* XFAB_WRED_* */
	__u32 kmin_bytes;   /* no mark below */
	__u32 kmax_bytes;   /* mark (or drop) everything at or above */
	__u32 pmax;	    /* probability at kmax, scaled: 2^32 - 1 = 1.0 */
	__u32 pad;
	__u64 tx_fp; /* xfab_queue_tx_fp(rate_kbps): a byte's time at the rate, << 16 */
};
_Static_assert(sizeof(struct xfab_queue_cfg) == 40, "queue cfg");

/* queue_state: ARRAY, same key -> the modelled ("phantom") queue of the
 * xdp datapath, as the time it will have drained empty at the port rate:
 * what it holds at time t is (empty_at - t) * rate. A packet that joins it
 * pushes empty_at on by its transmission time: one atomic add, no lock.
 * Time is bpf_ktime_get_ns (CLOCK_MONOTONIC) in 1/16 ns, so 64-byte frames
 * at 400G (1.28 ns) keep their size. Data plane only (tests set it). */
#define XFAB_QUEUE_TIME_SHIFT 4
struct xfab_queue_state {
	__u64 empty_at; /* ns << XFAB_QUEUE_TIME_SHIFT */
};

/* Time the port needs to send bytes at rate_kbps, in queue time units. */
static inline __attribute__((always_inline)) __u64 xfab_queue_tx_time(__u64 bytes, __u32 rate_kbps)
{
	return rate_kbps ? bytes * (8000000ull << XFAB_QUEUE_TIME_SHIFT) / rate_kbps : 0;
}

/* The time one byte takes at rate_kbps, in queue time units << 16: the data
 * plane multiplies by it (a packet's time to within 1/16 ns) instead of
 * dividing by the rate per packet. */
static inline __attribute__((always_inline)) __u64 xfab_queue_tx_fp(__u64 rate_kbps)
{
	return rate_kbps ? ((8000000ull << XFAB_QUEUE_TIME_SHIFT) << 16) / rate_kbps : 0;
}

/* Bytes a queue holds when `ahead` queue time units remain until empty,
 * rounded up (a byte partly sent still holds its place). Split so it does
 * not overflow; capped at 2^44 units (~18 minutes: beyond any buffer). */
static inline __attribute__((always_inline)) __u64 xfab_queue_bytes(__u64 ahead, __u32 rate_kbps)
{
	const __u64 unit = 8000000ull << XFAB_QUEUE_TIME_SHIFT; /* per byte at 1 kbit/s */

	if (ahead > (1ull << 44))
		ahead = 1ull << 44;
	/* one division while the product fits (rates up to 2^30 kbit/s, a
	 * second of queue): the packet path's common case */
	if (ahead < (1ull << 34) && rate_kbps < (1ull << 30))
		return (ahead * rate_kbps + unit - 1) / unit;
	return ahead / unit * rate_kbps + (ahead % unit * rate_kbps + unit - 1) / unit;
}

/* queue_stats: PERCPU_ARRAY, same key -> counters. */
struct xfab_queue_stats {
	__u64 packets; /* enqueued (sent) */
	__u64 bytes;
	__u64 ecn_marked;
	__u64 dropped; /* tail drops at the buffer limit and WRED drops of Not-ECT */
};
_Static_assert(sizeof(struct xfab_queue_stats) == 32, "queue stats");

/* queue_watermark: ARRAY, same key -> {current, peak} occupancy in bytes as
 * last seen by a packet; xfabctl clears peak. */
struct xfab_queue_watermark {
	__u64 current_bytes;
	__u64 peak_bytes;
};
_Static_assert(sizeof(struct xfab_queue_watermark) == 16, "queue watermark");

/* ---- lossless classes: 802.1Qbb PFC and 802.3x PAUSE (docs/PFC.md) ----
 * Priority n is traffic class n, egress queue n and priority group (PG) n
 * (SONiC's identity TC_TO_PRIORITY_GROUP_MAP / PFC_PRIORITY_TO_QUEUE_MAP).
 * Keys are XFAB_QUEUE_KEY(slot, prio). */
#define XFAB_NUM_PRIO XFAB_NUM_TC
#define XFAB_ETH_P_MAC_CONTROL 0x8808
#define XFAB_MAC_CONTROL_PAUSE 0x0001 /* 802.3x: all priorities, one timer */
#define XFAB_MAC_CONTROL_PFC 0x0101   /* 802.1Qbb: class-enable vector, 8 timers */
/* 01:80:C2:00:00:01, the MAC control destination */
#define XFAB_MAC_CONTROL_DST                                                                       \
	{                                                                                          \
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x01                                                 \
	}
#define XFAB_PFC_MAX_QUANTA 0xffffu
/* One pause quantum is 512 bit times at the port's speed. */
static inline __attribute__((always_inline)) __u64 xfab_pfc_quanta_ns(__u32 quanta,
								      __u32 speed_mbps)
{
	return speed_mbps ? (__u64)quanta * 512000ull / speed_mbps : 0;
}

/* pfc_cfg: ARRAY, slot -> the port's PFC settings; written by xfabd. */
struct xfab_pfc_cfg {
	__u8 enabled;	/* priorities with PFC on (PORT_QOS_MAP pfc_enable): lossless */
	__u8 wd_ignore; /* stormed queues (watchdog drop or forward): incoming pause ignored */
	__u8 wd_drop;	/* stormed queues (watchdog drop): their packets dropped, both ways, and no
			 * pause generated for their PG */
	__u8 pad;
	__u32 speed_mbps;		 /* converts pause quanta to time */
	__u32 xoff_bytes[XFAB_NUM_PRIO]; /* a PG's ingress occupancy that sends XOFF; 0: never */
	__u32 xon_bytes[XFAB_NUM_PRIO];	 /* ... falling below which sends XON */
};
_Static_assert(sizeof(struct xfab_pfc_cfg) == 72, "pfc cfg");

/* pfc_state: ARRAY, XFAB_QUEUE_KEY(slot, prio) -> the receive side (pause
 * frames that arrived on port slot for prio, and the pause they put on the
 * port's egress queue prio) and the generating side (the ingress
 * occupancy of PG prio: bytes that came in on port slot with that priority
 * and are still queued at some egress). Data plane only, atomics. */
struct xfab_pfc_state {
	__u64 paused_until_ns; /* egress queue prio paused until (bpf_ktime_get_ns); 0: not */
	__u64 rx_frames;       /* pause frames naming prio (its vector bit; PAUSE: all) */
	__u64 rx_xon;	       /* ... of which with time 0 (XON) */
	__u64 rx_ignored;      /* ... naming prio while it is not enabled or stormed */
	__u64 occupancy_bytes; /* ingress accounting of PG prio */
	__u64 peak_occupancy_bytes;
	__u64 rx_packets;    /* data packets that came in on port slot into PG prio */
	__u64 wd_rx_dropped; /* ... the watchdog's drop action discarded (stormed PG) */
	__u64 wd_tx_dropped; /* packets to egress queue prio it discarded (stormed queue) */
	__u32 xoff;	     /* 1 while the PG is above XOFF (pause asked of the peer) */
	__u32 resynced;	     /* times xfabd corrected the occupancy: bytes still counted
			      * for egress queues that held none (pfc_egress) or more
			      * than the switch's other ports held */
};
_Static_assert(sizeof(struct xfab_pfc_state) == 80, "pfc state");

/* pfc_egress: ARRAY (mmapable), XFAB_PFC_EG_KEY(out, in, prio) -> the
 * bytes of PG (in, prio) queued at egress port out: the PG's occupancy
 * split by egress port, charged and given back with it (atomics). xfabd
 * takes back what an entry still counts once its queue is empty (a
 * give-back the data plane missed) and takes it off the PG's occupancy. */
#define XFAB_PFC_EG_KEY(out, in, prio)                                                             \
	(((__u32)(out)*XFAB_MAX_PORTS + (__u32)(in)) * XFAB_NUM_PRIO + (__u32)(prio))
#define XFAB_PFC_EG_ENTRIES (XFAB_MAX_PORTS * XFAB_MAX_PORTS * XFAB_NUM_PRIO)

/* pfc_queue: ARRAY, same key -> what xfabd does about queue prio of port
 * slot: the gate (paused or not), the pause frames it sent, the watchdog.
 * Written by xfabd only. SONiC's `show pfcwd stats` columns: TX OK/DROP
 * are the queue's packets sent/dropped while stormed, RX OK/DROP the PG's
 * packets received/dropped while stormed; _last: the last storm alone. */
enum xfab_pfcwd_action {
	XFAB_PFCWD_OFF = 0, /* no watchdog on this queue */
	XFAB_PFCWD_DROP = 1,
	XFAB_PFCWD_FORWARD = 2,
	XFAB_PFCWD_ALERT = 3,
};
struct xfab_pfc_queue {
	__u8 gated;	/* 1: the queue's gate is closed (paused by the peer) */
	__u8 stormed;	/* 1: the watchdog declared a PFC storm (STATUS stormed) */
	__u8 wd_action; /* enum xfab_pfcwd_action */
	__u8 pad;
	__u32 wd_detection_ms;
	__u32 wd_restoration_ms;
	__u32 wd_poll_ms;
	__u64 paused_ns;  /* total time the gate was closed (the current closing included) */
	__u64 pauses;	  /* gate closings */
	__u64 tx_frames;  /* PFC frames sent out of port slot naming prio (XOFF, refreshes, XON) */
	__u64 tx_xon;	  /* ... of which XON */
	__u64 tx_last_ns; /* CLOCK_MONOTONIC of the last one */
	__u64 storms_detected;
	__u64 storms_restored;
	__u64 wd_tx_ok, wd_tx_drop, wd_rx_ok, wd_rx_drop;
	__u64 wd_tx_ok_last, wd_tx_drop_last, wd_rx_ok_last, wd_rx_drop_last;
};
_Static_assert(sizeof(struct xfab_pfc_queue) == 136, "pfc queue");

/* pfc_events: RINGBUF, data plane -> xfabd. */
enum xfab_pfc_event_kind {
	XFAB_PFC_EV_RX = 1,   /* a pause frame changed a queue's pause (prio_mask, time_ns) */
	XFAB_PFC_EV_XOFF = 2, /* PG prio of port slot rose to XOFF: ask the peer to pause */
	XFAB_PFC_EV_XON = 3,  /* ... fell below XON: ask it to resume */
};
struct xfab_pfc_event {
	__u32 ifindex;
	__u16 slot;
	__u8 kind;	/* enum xfab_pfc_event_kind */
	__u8 prio_mask; /* priorities concerned */
	__u64 time_ns;	/* EV_RX: the longest pause asked (0: resume) */
	__u64 now_ns;	/* bpf_ktime_get_ns at the event */
};
_Static_assert(sizeof(struct xfab_pfc_event) == 24, "pfc event");

/* The tc egress program tags a lossless packet it accounts with the PG it
 * was charged to, so the dequeue side (raw tracepoint net_dev_start_xmit)
 * gives the bytes back: mark = XFAB_PFC_MARK | slot << 3 | prio. */
#define XFAB_PFC_MARK 0x58460000u /* "XF" */
#define XFAB_PFC_MARK_MASK 0xffff0000u
/* xdp datapath: a packet of a lossless class leaves XDP with this 32-bit
 * word in its XDP metadata; the tc ingress program runs the pipeline for
 * such packets only (on an xdp port, the rest is the kernel's). */
#define XFAB_PFC_HANDOFF_MAGIC 0x58504643u /* "XPFC" */

/* ---- trace: `xfabctl trace` runs a frame through the loaded xdp program
 * with BPF_PROG_TEST_RUN and this record in the XDP metadata in front of
 * it. With the magic set, the pipeline writes no state (no counter, no
 * flowlet, no queue, no load) and fills the record with its decisions. ---- */
#define XFAB_TRACE_MAGIC 0x58545243u /* "XTRC" */

#define XFAB_TRACE_TE_HIT (1u << 0)	   /* a TE entry steered the packet */
#define XFAB_TRACE_TE_FALLBACK (1u << 1)   /* a TE entry matched, its path was down */
#define XFAB_TRACE_FLOWLET_CONT (1u << 2)  /* continues a live flowlet */
#define XFAB_TRACE_FLOWLET_NEW (1u << 3)   /* would start a flowlet (member: a prediction) */
#define XFAB_TRACE_ROCE (1u << 4)	   /* RoCEv2 BTH parsed */
#define XFAB_TRACE_GROUP (1u << 5)	   /* path chosen from a group */
#define XFAB_TRACE_REPAIRED (1u << 6)	   /* dead path: bounced to a repair port */
#define XFAB_TRACE_SPLIT_HORIZON (1u << 7) /* the ingress port was avoided */

enum xfab_trace_stage {
	XFAB_STAGE_PORT = 1, /* stopped at the port checks */
	XFAB_STAGE_PARSE,    /* ... parsing */
	XFAB_STAGE_CLASSIFY, /* ... L2/address rules */
	XFAB_STAGE_L3,	     /* ... lookup and path selection */
	XFAB_STAGE_EGRESS,   /* ... egress checks */
	XFAB_STAGE_QUEUE,    /* ... the queue */
	XFAB_STAGE_REWRITE,  /* went all the way */
};

/*
 * make bench's stage prices (docs/PERFORMANCE.md): `xfabd --bench-stop
 * STAGE --bench-port PORT` loads a data plane whose pipeline stops after
 * STAGE and sends the frame out of PORT as it is; the price of a stage is
 * the difference to the build that stops before it. Stages in pipeline
 * order, each including the ones before it; a switch runs XFAB_BENCH_FULL,
 * whose checks the verifier removes (the value is a load-time constant).
 */
enum xfab_bench_stop {
	XFAB_BENCH_FULL = 0,	 /* ... and the counters: everything */
	XFAB_BENCH_PARSE = 1,	 /* port checks, Ethernet, the IP header's fields, L4 ports */
	XFAB_BENCH_VALIDATE = 2, /* L2 rules, the RFC 1812 header checks, address classes */
	XFAB_BENCH_FIB = 3,	 /* the route lookup (TE's too), TTL */
	XFAB_BENCH_PICK = 4,	/* a group's member: the flow hash and its bucket, or the flowlet */
	XFAB_BENCH_NEXTHOP = 5, /* the member's nexthop, its port up and its device live */
	XFAB_BENCH_QUEUE = 6,	/* egress checks (tenant, MTU), the queue and ECN */
	XFAB_BENCH_REWRITE = 7, /* MACs, TTL, checksum */
	XFAB_BENCH_COUNTERS = 8, /* the counters: the whole pipeline, as a stage build */
	XFAB_BENCH_STOPS = 9,
};

enum xfab_trace_overlay {
	XFAB_OVERLAY_NONE = 0,
	XFAB_OVERLAY_ENCAP = 1, /* a tenant packet sent into a tunnel */
	XFAB_OVERLAY_DECAP = 2, /* a tunnel packet delivered to its tenant */
	XFAB_OVERLAY_LOCAL = 3, /* a tenant packet routed to a local tenant port */
};

struct xfab_trace {
	__u32 magic;
	__u8 action;	    /* enum xfab_action */
	__u8 reason;	    /* drop or punt reason */
	__u8 stage;	    /* enum xfab_trace_stage reached */
	__u8 flags;	    /* XFAB_TRACE_* */
	__u8 route_type;    /* enum xfab_route_type of what matched (route or TE) */
	__u8 tc;	    /* traffic class */
	__u8 queue_verdict; /* 0 pass, 1 mark CE, 2 tail drop, 3 WRED drop */
	__u8 l4_proto;
	__u16 group;   /* group id, 0 if none */
	__u16 nexthop; /* member nexthop id */
	__u32 hash;    /* flow hash of the selected fields */
	__u32 bucket;
	__u32 egress_ifindex;
	__u32 qp;	       /* RoCEv2 destination QP */
	__u64 occupancy;       /* bytes the egress queue held for this packet (xdp model) */
	__u64 flowlet_idle_ns; /* idle time of the flow's flowlet, if there is one */
	__u32 ingress_slot;
	__u32 vni;	 /* overlay: the VNI encapsulated with or decapsulated from */
	__be32 endpoint; /* overlay encap: the remote VTEP chosen */
	__u8 overlay;	 /* enum xfab_trace_overlay */
	__u8 vnet;	 /* the tenant table routed in; 0: underlay */
	__u16 pad;
};
_Static_assert(sizeof(struct xfab_trace) == 64, "trace");

/* Pinned map names (also the BPF object's map names). */
#define XFAB_MAP_ABI "abi"
#define XFAB_MAP_SCRATCH "scratch" /* per-CPU per-packet state (bpf/scratch.h) */
#define XFAB_MAP_PORTS "ports"
#define XFAB_MAP_TX_PORTS "tx_ports"
#define XFAB_MAP_ROUTES_V4 "routes_v4"
#define XFAB_MAP_ROUTES_V6 "routes_v6"
#define XFAB_MAP_FIB4_TBL16 "fib4_tbl16"
#define XFAB_MAP_FIB4_TBL8 "fib4_tbl8"
#define XFAB_MAP_FIB6_TBL16 "fib6_tbl16"
#define XFAB_MAP_FIB6_TBL8 "fib6_tbl8"
#define XFAB_MAP_NEXTHOPS "nexthops"
#define XFAB_MAP_GROUPS "nh_groups"
#define XFAB_MAP_NEIGHBORS "neighbors"
#define XFAB_MAP_SETTINGS "settings"
#define XFAB_MAP_PORT_STATS "port_stats"
#define XFAB_MAP_DROP_STATS "drop_stats"
#define XFAB_MAP_PUNT_STATS "punt_stats"
#define XFAB_MAP_FLOWLETS "flowlets"
#define XFAB_MAP_PORT_LOAD "port_load"
#define XFAB_MAP_PORT_DEV "port_dev"
#define XFAB_MAP_LB_STATS "lb_stats"
#define XFAB_MAP_DSCP_TO_TC "dscp_to_tc"
#define XFAB_MAP_QUEUE_CFG "queue_cfg"
#define XFAB_MAP_QUEUE_STATE "queue_state"
#define XFAB_MAP_QUEUE_STATS "queue_stats"
#define XFAB_MAP_QUEUE_WATERMARK "queue_watermark"
#define XFAB_MAP_PFC_CFG "pfc_cfg"
#define XFAB_MAP_PFC_STATE "pfc_state"
#define XFAB_MAP_PFC_QUEUE "pfc_queue"
#define XFAB_MAP_PFC_EVENTS "pfc_events"
#define XFAB_MAP_PFC_EGRESS "pfc_egress"

/* ---- VXLAN overlay: VTEPs and tenant tables (SONiC's VNET model) ----
 * A port bound to a VNET (struct xfab_port.vnet) routes what it receives
 * in routes_v4/v6 table XFAB_TABLE_VNET | vnet, never in table 0. A tunnel
 * route (XFAB_RT_TUNNEL) encapsulates: outer Ethernet/IPv4/UDP 4789/VXLAN
 * (RFC 7348), then the outer packet takes the underlay pipeline. A packet
 * to the VTEP's address on UDP 4789 is decapsulated (RFC 6040 ECN) and
 * routed in its VNI's table. docs/OVERLAY.md. */
#define XFAB_MAX_VNETS 256	     /* vnet ids 1..255; 0: underlay */
#define XFAB_MAX_TUNNEL_ROUTES 16384 /* vnet_tunnels ids 1..16383; 0: none */
#define XFAB_TUNNEL_MAX_ENDPOINTS 16 /* remote VTEPs of one tunnel route (ECMP) */
#define XFAB_VXLAN_UDP_PORT 4789
#define XFAB_VXLAN_FLAGS 0x08	    /* I: the VNI is valid */
#define XFAB_VXLAN_ENCAP_LEN 50	    /* outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8 */
#define XFAB_VXLAN_SPORT_MIN 49152u /* outer source port: 49152 | 14 bits of the inner hash */
#define XFAB_VXLAN_TTL 64
#define XFAB_MAX_VNI 0xffffffu

#define XFAB_VTEP_ENABLED (1u << 0) /* src_v4 is set: encapsulate and decapsulate */

/* vtep: ARRAY[1] -> the switch's VTEP (VXLAN_TUNNEL); written by xfabd. */
struct xfab_vtep {
	__be32 src_v4;	/* outer source address, and the address decapsulated for */
	__u32 flags;	/* XFAB_VTEP_* */
	__u8 mac[6];	/* inner source MAC of encapsulated frames (the VNETs' router MAC) */
	__u16 udp_port; /* host order: 4789 */
	char name[16];	/* VXLAN_TUNNEL's name, for readers */
};
_Static_assert(sizeof(struct xfab_vtep) == 32, "vtep");

#define XFAB_VNET_VALID (1u << 0)

/* vnets: ARRAY, vnet id -> the VNET; vni_to_vnet: HASH, VNI -> vnet id. */
struct xfab_vnet {
	__u32 vni;
	__u32 flags;   /* XFAB_VNET_* */
	char name[16]; /* VNET's name (SONiC: Vnet_<n>), for readers */
};
_Static_assert(sizeof(struct xfab_vnet) == 24, "vnet");

/* vnet_tunnels: ARRAY, id -> a tunnel route's encapsulation: its VNI, the
 * inner destination MAC (VNET_ROUTE_TUNNEL mac_address; zero: the VTEP's
 * own MAC, which every xfab VTEP accepts) and the remote VTEPs, one chosen
 * per inner flow (the hash the outer source port carries). */
struct xfab_tunnel_route {
	__u32 vni;
	__u8 mac[6];
	__u8 num_endpoints; /* 1..XFAB_TUNNEL_MAX_ENDPOINTS; 0: unused */
	__u8 pad;
	__be32 endpoints[XFAB_TUNNEL_MAX_ENDPOINTS]; /* IPv4 */
};
_Static_assert(sizeof(struct xfab_tunnel_route) == 12 + 4 * XFAB_TUNNEL_MAX_ENDPOINTS,
	       "tunnel route");

/* vnet_stats: PERCPU_ARRAY, vnet id -> counters; vnet_drops: PERCPU_ARRAY,
 * XFAB_VNET_DROP_KEY(vnet, reason) -> struct xfab_reason_stats (a packet to
 * the VTEP with an unknown VNI counts under vnet 0). */
struct xfab_vnet_stats {
	__u64 encap_packets; /* tenant packets sent into a tunnel */
	__u64 encap_bytes;   /* ... their inner frames' bytes */
	__u64 decap_packets; /* tunnel packets delivered to the tenant */
	__u64 decap_bytes;   /* ... inner frames' bytes */
	__u64 drops;	     /* tenant packets dropped (vnet_drops has why) */
	__u64 punts;	     /* ... handed to the kernel (neighbour, TTL, too big) */
};
_Static_assert(sizeof(struct xfab_vnet_stats) == 48, "vnet stats");
#define XFAB_VNET_DROP_REASONS 64
#define XFAB_VNET_DROP_KEY(vnet, reason) ((vnet)*XFAB_VNET_DROP_REASONS + (reason))
_Static_assert(XFAB_DROP_MAX <= XFAB_VNET_DROP_REASONS, "vnet drop keys");

#define XFAB_MAP_VTEP "vtep"
#define XFAB_MAP_VNETS "vnets"
#define XFAB_MAP_VNI_TO_VNET "vni_to_vnet"
#define XFAB_MAP_VNET_TUNNELS "vnet_tunnels"
#define XFAB_MAP_VNET_STATS "vnet_stats"
#define XFAB_MAP_VNET_DROPS "vnet_drops"

/* ---- control-plane policing (CoPP, docs/COPP.md) ----
 * Every packet the pipeline hands to the kernel (a punt) is put in one
 * group by what it is, first match wins: bgp (TCP port 179 to one of the
 * switch's addresses, link-local included), bfd (UDP 3784/3785/4784 to
 * them), arp, nd (ICMPv6 133..137), ttl_error (TTL/hop limit expired),
 * ip2me (anything else to the switch's addresses), default (the rest:
 * link-local, multicast, unresolved neighbour, MTU, non-IP, ...). Each
 * group has a token bucket of packets per second (cir) and burst (cbs);
 * a punt finding it empty is dropped (copp_policed). X(ID, "name",
 * "trap ids", default cir, default cbs): SONiC's COPP_TRAP trap ids; the
 * defaults are SONiC's copp_cfg.json figures (docs/COPP.md). */
#define XFAB_COPP_GROUP_LIST(X)                                                                    \
	X(BGP, "bgp", "bgp,bgpv6", 6000, 6000)                                                     \
	X(BFD, "bfd", "bfd,bfdv6", 6000, 6000)                                                     \
	X(ARP, "arp", "arp_req,arp_resp", 600, 600)                                                \
	X(ND, "nd", "neigh_discovery", 600, 600)                                                   \
	X(TTL_ERROR, "ttl_error", "ttl_error", 600, 600)                                           \
	X(IP2ME, "ip2me", "ip2me", 6000, 6000)                                                     \
	X(DEFAULT, "default", "default", 600, 600)

#define XFAB_COPP_ENUM(id, name, traps, cir, cbs) XFAB_COPP_##id,
enum xfab_copp_group { XFAB_COPP_GROUP_LIST(XFAB_COPP_ENUM) XFAB_COPP_GROUPS };

#define XFAB_COPP_MAX_CIR 10000000u   /* packets/s; 0: the group is not policed */
#define XFAB_COPP_MAX_CBS 10000000u   /* packets */
#define XFAB_COPP_TOKEN 1000000000ull /* one packet in the bucket's units (ns x pps) */
#define XFAB_UDP_BFD 3784	      /* single hop (RFC 5881) */
#define XFAB_UDP_BFD_ECHO 3785
#define XFAB_UDP_BFD_MULTIHOP 4784 /* RFC 5883 */
#define XFAB_TCP_BGP 179

/* copp_cfg: ARRAY, group -> its meter; written by xfabd. cir 0: no meter
 * (every packet green), as SONiC without a meter. */
struct xfab_copp_cfg {
	__u32 cir; /* packets per second */
	__u32 cbs; /* packets the bucket holds (>= 1 when cir is set) */
};
_Static_assert(sizeof(struct xfab_copp_cfg) == 8, "copp cfg");

/* copp_state: ARRAY, group -> the bucket; the data plane's only (tests set
 * it to control time). One bucket shared by every CPU under a spin lock:
 * a punt flood often arrives on one CPU (one receive queue, veth), where
 * per-CPU buckets at cir/ncpus would admit a fraction of cir. tokens in
 * XFAB_COPP_TOKEN units per packet; last_ns: bpf_ktime_get_ns of the last
 * refill (0: never, the bucket fills at once). */
struct xfab_copp_state {
	struct bpf_spin_lock lock;
	__u32 pad;
	__u64 tokens;
	__u64 last_ns;
};
_Static_assert(sizeof(struct xfab_copp_state) == 24, "copp state");

/* copp_stats: PERCPU_ARRAY, group -> packets admitted (green) and policed
 * (red); a red packet also counts as the drop copp_policed. */
struct xfab_copp_stats {
	__u64 green_packets;
	__u64 green_bytes;
	__u64 red_packets;
	__u64 red_bytes;
};
_Static_assert(sizeof(struct xfab_copp_stats) == 32, "copp stats");

#define XFAB_MAP_COPP_CFG "copp_cfg"
#define XFAB_MAP_COPP_STATE "copp_state"
#define XFAB_MAP_COPP_STATS "copp_stats"

#include "xfab_acl.h" /* the ingress ACL's maps and records */

#define XFAB_PIN_ROOT "/sys/fs/bpf/xfab"

#endif /* XFAB_ABI_H */
