/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Load balancing's part of the ABI (included by xfab_abi.h): the switch-wide
 * settings (the flow hash's fields and keys, flowlets, TE, local repair),
 * the flowlet table, the ports' load and the load-balancing counters. The
 * hash itself is include/xfab_hash.h.
 */
#ifndef XFAB_LB_H
#define XFAB_LB_H

#include <linux/types.h>

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
#define XFAB_MAX_FLOWLETS 65536 /* flowlet slots: a power of 2 (the slot is masked) */
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

/* Pinned map names (also the BPF object's). */
#define XFAB_MAP_SETTINGS "settings"
#define XFAB_MAP_FLOWLETS "flowlets"
#define XFAB_MAP_PORT_LOAD "port_load"
#define XFAB_MAP_LB_STATS "lb_stats"

#endif /* XFAB_LB_H */
