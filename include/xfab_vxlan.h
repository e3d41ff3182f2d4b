/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The VXLAN overlay's part of the ABI (included by xfab_abi.h): the VTEP,
 * the tenants' tables (VNETs), tunnel routes and the per-VNET counters
 * (bpf/vxlan.h, docs/OVERLAY.md).
 */
#ifndef XFAB_VXLAN_H
#define XFAB_VXLAN_H

#include <linux/types.h>

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

#define XFAB_MAP_VTEP "vtep"
#define XFAB_MAP_VNETS "vnets"
#define XFAB_MAP_VNI_TO_VNET "vni_to_vnet"
#define XFAB_MAP_VNET_TUNNELS "vnet_tunnels"
#define XFAB_MAP_VNET_STATS "vnet_stats"
#define XFAB_MAP_VNET_DROPS "vnet_drops"

#endif /* XFAB_VXLAN_H */
