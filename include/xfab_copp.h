/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Control-plane policing's part of the ABI (included by xfab_abi.h): the
 * CoPP groups, their meters and counters (bpf/copp.h, docs/COPP.md).
 */
#ifndef XFAB_COPP_H
#define XFAB_COPP_H

#include <linux/bpf.h> /* struct bpf_spin_lock */
#include <linux/types.h>

/* ---- control-plane policing (CoPP, docs/COPP.md) ----
 * Every packet the pipeline hands to the kernel (a punt) is put in one
 * group by what it is, first match wins: bgp (TCP port 179 to one of the
 * switch's addresses, link-local included), bfd (UDP 3784/3785/4784 to
 * them), arp (ARP requests), arp_resp (ARP replies: apart, so that a flood
 * of requests cannot police the replies the switch's own neighbour
 * resolution waits for), nd (ICMPv6 133..137), ttl_error (TTL/hop limit
 * expired), ip2me (anything else to the switch's addresses), default (the
 * rest: link-local, multicast, unresolved neighbour, MTU, non-IP, ...). Each
 * group has a token bucket of packets per second (cir) and burst (cbs);
 * a punt finding it empty is dropped (copp_policed). X(ID, "name",
 * "trap ids", default cir, default cbs): SONiC's COPP_TRAP trap ids; the
 * defaults are SONiC's copp_cfg.json figures (docs/COPP.md). */
#define XFAB_COPP_GROUP_LIST(X)                                                                    \
	X(BGP, "bgp", "bgp,bgpv6", 6000, 6000)                                                     \
	X(BFD, "bfd", "bfd,bfdv6", 6000, 6000)                                                     \
	X(ARP, "arp", "arp_req", 600, 600)                                                         \
	X(ARP_RESP, "arp_resp", "arp_resp", 600, 600)                                              \
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
#define XFAB_ARP_OP_OFF 6   /* the opcode's offset in an ARP header (RFC 826) */
#define XFAB_ARP_OP_REPLY 2 /* ares_op$REPLY */

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

#endif /* XFAB_COPP_H */
