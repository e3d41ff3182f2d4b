/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xfab ABI: every map key, value, enum and constant shared by the BPF data
 * plane (bpf/) and userspace (user/). Fixed-width types, explicit padding and
 * size asserts, so both sides always agree on the layout.
 *
 * This file holds what every part shares: the ABI version, the verdicts,
 * the drop and punt reasons and the maps that count them. Each feature's
 * maps, records and limits are in a header of its own, included below
 * (include/xfab_<feature>.h), so a user of xfab_abi.h sees the whole ABI.
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
#define XFAB_ABI_VERSION 14u	   /* 14: copp groups renumbered (arp_resp after arp) */
#define XFAB_ABI_MAGIC 0x42414658u /* "XFAB" little-endian */

/* abi: ARRAY[1] -> this; the layout of this struct never changes. */
struct xfab_abi_info {
	__u32 magic;	/* XFAB_ABI_MAGIC */
	__u32 version;	/* XFAB_ABI_VERSION of the xfabd that loaded the maps */
	__u32 drop_max; /* XFAB_DROP_MAX, XFAB_PUNT_MAX: a cross-check */
	__u32 punt_max;
};
_Static_assert(sizeof(struct xfab_abi_info) == 16, "abi info");

#define XFAB_IPV6_MAX_EXT_HDRS 8 /* extension headers walked before giving up */

/* ---- verdicts of the pipeline (internal, also reported by tests) ---- */
enum xfab_action {
	XFAB_ACT_DROP = 0,
	XFAB_ACT_PUNT = 1,    /* hand to the kernel stack */
	XFAB_ACT_FORWARD = 2, /* redirect to egress port */
};

/*
 * Load-time specialisation: the data plane's optional code, one bit each.
 * xfabd loads the programs with the bits its config needs (bpf/spec.h: a
 * frozen read-only value), and the verifier removes the code of every bit
 * that is off, so a feature that is not configured costs its packets
 * nothing. A program with a bit on still reads the feature's tables at run
 * time: it is correct for any config, the bit only says the code is there.
 * Each bit belongs to one feature of the registry (user/lib/feature.c);
 * X(ID, "name", "what the code does"): the name is xfabd's and xfabctl's.
 */
#define XFAB_CODES(X)                                                                              \
	X(FLOWLET, "flowlet", "flowlet switching, least-loaded members")                           \
	X(SYMMETRIC, "symmetric", "symmetric hashing")                                             \
	X(INNER_HASH, "inner-hash", "transit VXLAN hashed on its inner flow")                      \
	X(TE, "te", "TE path pins")                                                                \
	X(REPAIR, "repair", "local repair, split horizon")                                         \
	X(QUEUE, "queue", "xdp: the phantom queue, ECN and WRED")                                  \
	X(PFC, "pfc", "xdp: lossless classes handed to tc")                                        \
	X(OVERLAY, "overlay", "VNETs, VXLAN encapsulation and decapsulation")                      \
	X(ACL, "acl", "ingress ACLs")                                                              \
	X(COPP, "copp", "punts policed per CoPP group")
enum xfab_code_bit {
#define XFAB_X_CODE_BIT(id, name, help) XFAB_CODE_BIT_##id,
	XFAB_CODES(XFAB_X_CODE_BIT)
#undef XFAB_X_CODE_BIT
	    XFAB_CODE_BITS
};
enum xfab_code {
#define XFAB_X_CODE(id, name, help) XFAB_CODE_##id = 1u << XFAB_CODE_BIT_##id,
	XFAB_CODES(XFAB_X_CODE)
#undef XFAB_X_CODE
};
#define XFAB_CODE_ALL ((1u << XFAB_CODE_BITS) - 1)

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
	  "to the VTEP on UDP 4789: headers cut short, or UDP length short or past IPv4's")        \
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

/*
 * The xdp datapath's fast path (bpf/fast.h) forwards the common packet in
 * one pass; a packet it leaves to the general pipeline is counted here by
 * the first reason it met (fast_stats, by reason, then judged by the
 * pipeline as any other). X(ID, "name", "help") as the reasons above.
 */
#define XFAB_FAST_MISSES(X)                                                                        \
	X(FRAME, "frame", "not plain IPv4 in 54 bytes, or its MACs, header or addresses fail")     \
	X(PORT, "port", "ingress port unknown, down, not the MAC's; lossless, a tenant's, ACLs")   \
	X(VXLAN, "vxlan", "VXLAN (UDP 4789) while the overlay or inner hashing is loaded")         \
	X(SETTINGS, "settings", "flowlets, TE, local repair, split horizon or symmetric hashing")  \
	X(ROUTE, "route", "no route, a local, connected or blackhole one, or a group all down")    \
	X(EGRESS, "egress", "the nexthop down or unresolved; its port queued, a tenant's, MTU")
#define XFAB_FAST_ENUM(id, name, help) XFAB_FAST_MISS_##id,
enum xfab_fast_miss { XFAB_FAST_MISSES(XFAB_FAST_ENUM) XFAB_FAST_MISS_MAX };

struct xfab_reason_stats {
	__u64 packets;
	__u64 bytes;
};
_Static_assert(sizeof(struct xfab_reason_stats) == 16, "reason stats");

/* Pinned map names (also the BPF object's map names): the shared ones here,
 * each feature's in its header. */
#define XFAB_MAP_ABI "abi"
#define XFAB_MAP_SCRATCH "scratch" /* per-CPU per-packet state (bpf/scratch.h) */
#define XFAB_MAP_DROP_STATS "drop_stats"
#define XFAB_MAP_PUNT_STATS "punt_stats"
#define XFAB_MAP_FAST_STATS "fast_stats" /* PERCPU_ARRAY[XFAB_FAST_MISS_MAX] of reason stats */

/* Each feature's part of the ABI, in the order of the pipeline. */
#include "xfab_port.h"	/* ports, their counters */
#include "xfab_route.h" /* route tables, FIBs, nexthops, groups, neighbours */
#include "xfab_lb.h"	/* settings, flow hash keys, flowlets, load */
#include "xfab_qos.h"	/* traffic classes, queues, WRED/ECN */
#include "xfab_pfc.h"	/* lossless classes: PFC, PAUSE, watchdog */
#include "xfab_vxlan.h" /* the VXLAN overlay: VTEP, VNETs, tunnels */
#include "xfab_copp.h"	/* control-plane policing */
#include "xfab_acl.h"	/* the ingress ACL's maps and records */
#include "xfab_trace.h" /* xfabctl trace's record, make bench's stages */

/* A packet to the VTEP with an unknown VNI counts under vnet 0, by its
 * drop reason: every reason has its key. */
_Static_assert(XFAB_DROP_MAX <= XFAB_VNET_DROP_REASONS, "vnet drop keys");

#define XFAB_PIN_ROOT "/sys/fs/bpf/xfab"

#endif /* XFAB_ABI_H */
