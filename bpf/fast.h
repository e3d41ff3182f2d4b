/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fast path (issue 31): the common packet in one pass. An untagged
 * IPv4 packet without options (TCP, UDP, RoCEv2 or another protocol) or
 * IPv6 packet without extension headers, routed in table 0 to a nexthop or
 * a group member that is live and resolved, or from a tenant's port into a
 * VXLAN tunnel, between ports that need none of the per-packet features,
 * is parsed, validated, routed, rewritten (or wrapped), counted and
 * redirected here, its fields kept in registers, behind one bounds check.
 *
 * Everything else, and anything this path is not sure of, is a miss: it is
 * counted by its reason (fast_stats, `xfabctl show datapath`) and handed
 * on before a byte of it or another counter was written, and the general
 * pipeline (pipeline.h) decides the packet from the start. So the two
 * cannot disagree on what they both do, and whatever the fast path leaves
 * out (drops and punts with their reasons, VLAN tags, IPv6, options,
 * fragments, connected routes, a dead member's replacement, TE, flowlets,
 * repair, symmetric hashing, ACLs, local tenant routes, decapsulation,
 * queues, lossless ports) keeps
 * one implementation. The packet fuzzer judges both paths against its
 * model; tests/bpf/test_fast.c checks which frames take which.
 */
#ifndef XFAB_BPF_FAST_H
#define XFAB_BPF_FAST_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xfab_abi.h"
#include "xfab_hash.h"
#include "maps.h"
#include "ctx.h"
#include "csum.h"
#include "counters.h"
#include "fib.h"
#include "nexthop.h"
#include "parse.h"
#include "pfc.h"
#include "acl.h"
#include "qos.h"
#include "vxlan.h"
#include "spec.h"

#define XFAB_FAST_PIPELINE (-1) /* not forwarded here: the pipeline's */

/* Frozen at load (spec.h's way): 0 takes the fast path out, every packet
 * to the pipeline. The bpf suites run both ways (tests/bpf/harness.c). */
const volatile __u32 xfab_fast_path = 1;

/* What the one bounds check covers: Ethernet, the IP header (IPv4 without
 * options, IPv6 without extension headers), and a TCP header, or a UDP
 * header and RoCEv2's BTH: 54 bytes for IPv4, 74 for IPv6 (a shorter frame
 * is a miss). */
#define XFAB_FAST_L4_BYTES 20
#define XFAB_FAST_HDRS4 (ETH_HLEN + 20 + XFAB_FAST_L4_BYTES)
#define XFAB_FAST_HDRS6 (ETH_HLEN + 40 + XFAB_FAST_L4_BYTES)

/* The headers at their places in the frame (Ethernet's 14 bytes leave the
 * others 2-byte aligned: no struct spans them). */
struct xfab_fast_hdrs {
	struct ethhdr *eth;
	void *ip; /* struct iphdr or struct ipv6hdr */
	void *l4;
	__u8 proto; /* the L4 protocol */
};

/* The settings under which group selection is more than the hash's
 * bucket, or a route may be overridden: the general pipeline's. */
#define XFAB_FAST_SET_MISS                                                                         \
	(XFAB_SET_SYMMETRIC | XFAB_SET_FLOWLET | XFAB_SET_TE | XFAB_SET_REPAIR |                   \
	 XFAB_SET_SPLIT_HORIZON)

/* The L2 stage's rules the frame passes (xfab_stage_l2): a unicast source
 * MAC other than the destination, which is unicast too. */
static __always_inline int xfab_fast_l2_ok(const struct ethhdr *eth)
{
	return !(eth->h_source[0] & 1) && !(eth->h_dest[0] & 1) &&
	       !xfab_mac_equal(eth->h_source, eth->h_dest);
}

/* IPv4 as validation judges it (RFC 1812 5.2.2 and 5.3.7 on a 20-byte
 * header, xfab_validate_ipv4 and xfab_stage_ipv4_class): 1 for a packet
 * the pipeline would route, its TTL left to forward with. */
static __always_inline int xfab_fast_ipv4_ok(const struct iphdr *iph, __u32 len,
					     const void *data_end)
{
	__u32 saddr = bpf_ntohl(iph->saddr), daddr = bpf_ntohl(iph->daddr);
	__u32 tot_len = bpf_ntohs(iph->tot_len);

	if (*(const __u8 *)iph != 0x45 || (iph->frag_off & bpf_htons(IPV4_FRAG_MASK)) ||
	    iph->ttl <= 1)
		return 0;
	if (tot_len < sizeof(*iph) || tot_len > len - ETH_HLEN ||
	    !xfab_ipv4_csum_ok(iph, sizeof(*iph), data_end))
		return 0;
	if ((saddr >> 28) >= 0xe || (saddr >> 24) == 127 || (saddr >> 24) == 0 ||
	    (daddr >> 28) == 0xe || daddr == 0xffffffff || (daddr >> 16) == 0xa9fe ||
	    (saddr >> 16) == 0xa9fe)
		return 0;
	return 1;
}

/* IPv6 likewise (xfab_validate_ipv6, xfab_stage_ipv6_class): TCP or UDP
 * right after the fixed header, the payload in the frame, a hop left, and
 * no multicast, link-local, unspecified or loopback address. */
static __always_inline int xfab_fast_ipv6_ok(const struct ipv6hdr *ip6h, __u32 len)
{
	const __u32 *src = (const __u32 *)&ip6h->saddr;
	const __u8 *s = (const __u8 *)&ip6h->saddr, *d = (const __u8 *)&ip6h->daddr;

	if (ip6h->version != 6 || (ip6h->nexthdr != IPPROTO_TCP && ip6h->nexthdr != IPPROTO_UDP) ||
	    ip6h->hop_limit <= 1 || sizeof(*ip6h) + bpf_ntohs(ip6h->payload_len) > len - ETH_HLEN)
		return 0;
	if (s[0] == 0xff || d[0] == 0xff || (s[0] == 0xfe && (s[1] & 0xc0) == 0x80) ||
	    (d[0] == 0xfe && (d[1] & 0xc0) == 0x80))
		return 0;
	if (!(src[0] | src[1] | src[2]) && (src[3] == 0 || src[3] == bpf_htonl(1)))
		return 0;
	return 1;
}

/* The ingress port's entry when it is configured, up, the frame's MAC is
 * its own, and it needs no ingress feature; else NULL. A lossless port
 * matters to xdp only, which hands its lossless classes to tc (tc charges
 * them as it sends them, xfab_fast_out). */
static __always_inline const struct xfab_port *xfab_fast_port(const struct ethhdr *eth,
							      __u32 ifindex, int is_tc)
{
	const struct xfab_port *in = bpf_map_lookup_elem(&ports, &ifindex);

	if (!in || in->ifindex != ifindex || !(in->flags & XFAB_PORT_ADMIN_UP) ||
	    !xfab_mac_equal(eth->h_dest, in->mac))
		return 0;
	if (!is_tc && xfab_code_on(XFAB_CODE_PFC) && (in->flags & XFAB_PORT_LOSSLESS))
		return 0;
	if (xfab_code_on(XFAB_CODE_ACL) && xfab_acl_port_active(in->slot))
		return 0;
	return in;
}

/* A VXLAN packet, which the overlay decapsulates when it is to this VTEP
 * or hashes on its inner flow: the general pipeline's. */
static __always_inline int xfab_fast_tunnel(const struct xfab_fast_hdrs *h)
{
	const struct udphdr *uh = h->l4;

	return (xfab_code_on(XFAB_CODE_OVERLAY) || xfab_code_on(XFAB_CODE_INNER_HASH)) &&
	       h->proto == IPPROTO_UDP && uh->dest == bpf_htons(XFAB_UDP_VXLAN);
}

/* The flow's hash as path selection computes it from the parsed flow
 * (parse.h: TCP's and UDP's ports, RoCEv2's QP, no ports for another
 * protocol; IPv6's whole addresses and flow label). */
static __always_inline __u32 xfab_fast_hash(const struct xfab_fast_hdrs *h,
					    const struct xfab_hash_key *key, int v6)
{
	const struct udphdr *uh = h->l4; /* TCP's ports lie where UDP's do */
	const __u8 *bth = (const void *)(uh + 1);
	const struct ipv6hdr *ip6h = h->ip;
	const struct iphdr *iph = h->ip;
	const __u32 *src, *dst;
	__u32 ports = 0, qp = 0, label;
	__u64 sum;

	if (h->proto == IPPROTO_TCP || h->proto == IPPROTO_UDP)
		ports = (__u32)uh->source | (__u32)uh->dest << 16;
	if (h->proto == IPPROTO_UDP && uh->dest == bpf_htons(XFAB_UDP_ROCEV2))
		qp = (__u32)bth[5] << 16 | (__u32)bth[6] << 8 | bth[7];
	if (!v6)
		return (
		    __u32)(xfab_flow_hash_base(iph->saddr, iph->daddr, ports, h->proto, qp, key) >>
			   32);
	src = (const __u32 *)&ip6h->saddr;
	dst = (const __u32 *)&ip6h->daddr;
	label = (__u32)(ip6h->flow_lbl[0] & 0x0f) << 16 | (__u32)ip6h->flow_lbl[1] << 8 |
		ip6h->flow_lbl[2];
	sum = xfab_flow_hash_base(src[0], dst[0], ports, h->proto, qp, key) +
	      xfab_flow_hash_v6(src, dst, label, key);
	return (__u32)(sum >> 32);
}

/* A connected route's end for daddr out of port ifindex, in the form the
 * egress reads: the neighbour's MAC and the port's figures (nexthop.h, as
 * xfab_use_neighbor has them) as a nexthop record, built in the fast
 * path's scratch slot; NULL when the neighbour is unresolved (the pipeline
 * punts it for the kernel). */
static __always_inline const struct xfab_nexthop *xfab_fast_connected(__u32 ifindex,
								      const __u32 *daddr, int v6)
{
	const struct xfab_neigh *nb = xfab_neigh_lookup(ifindex, daddr, v6);
	struct xfab_scratch *room = xfab_scratch(XFAB_SCRATCH_FAST);

	if (!nb || !room)
		return 0;
	room->nh.ifindex = ifindex;
	room->nh.flags = XFAB_NH_VALID | XFAB_NH_RESOLVED;
	xfab_mac_copy(room->nh.dmac, nb->mac);
	xfab_port_egress(&room->nh.port, ifindex);
	return &room->nh;
}

/* A route's nexthop for the flow to daddr: a nexthop route's, the member
 * in the flow's bucket of a group with live members, or a connected
 * route's neighbour; NULL for any other type (no
 * route, local, blackhole: the general pipeline's). The flow is the
 * packet's at h (its ECMP hash, computed only for a group) or, with
 * outer_hash, a tunnel's outer one. */
static __always_inline const struct xfab_nexthop *xfab_fast_nexthop(__u32 type, __u32 id,
								    const struct xfab_fast_hdrs *h,
								    const struct xfab_settings *cfg,
								    int v6, const __u32 *outer_hash,
								    const __u32 *daddr)
{
	const struct xfab_nexthop *nh;
	const struct xfab_group *grp;

	if (type == XFAB_RT_CONNECTED)
		return xfab_fast_connected(id, daddr, v6);
	if (type == XFAB_RT_GROUP) {
		grp = bpf_map_lookup_elem(&nh_groups, &id);
		if (!grp || grp->num_members == 0 || grp->live_members == 0)
			return 0;
		id = grp->buckets[XFAB_HASH_BUCKET(
		    outer_hash ? *outer_hash : xfab_fast_hash(h, &cfg->ecmp_key, v6))];
	} else if (type != XFAB_RT_NEXTHOP) {
		return 0;
	}
	nh = bpf_map_lookup_elem(&nexthops, &id);
	/* one register, null-checked where it is read: without this the
	 * compiler may offset the record's pointer before the caller's check,
	 * which the verifier refuses */
	asm volatile("" : "+r"(nh));
	return nh;
}

/* The same for FIB entry v (fib.h: its type above its id; 0 for none). */
static __always_inline const struct xfab_nexthop *
xfab_fast_fib_nexthop(__u32 v, const struct xfab_fast_hdrs *h, const struct xfab_settings *cfg,
		      int v6, const __u32 *outer_hash, const __u32 *daddr)
{
	return xfab_fast_nexthop(v >> XFAB_FIB4_TYPE_SHIFT, v & XFAB_FIB4_ID_MASK, h, cfg, v6,
				 outer_hash, daddr);
}

/*
 * tc, a lossless class's part (pfc.h), in subprograms of their own: their
 * map keys, inlined, took xfab_tc's frame past the stack budget
 * (xfab-stackcheck). Called only for a packet from or to a port with
 * lossless priorities. No watchdog drop on its way from port in to nh's:
 */
static __attribute__((noinline)) int xfab_fast_pfc_calm(const struct xfab_port *in,
							const struct xfab_nexthop *nh)
{
	return xfab_pfc_tc_calm(in, &nh->port);
}

/* and its charge as it leaves, of class tc, skb->len bytes. */
static __attribute__((noinline)) int xfab_fast_pfc_charge(struct __sk_buff *skb,
							  const struct xfab_port *in,
							  const struct xfab_nexthop *nh, __u32 tc)
{
	return (int)xfab_pfc_tc_forward(skb, in->slot, in->ifindex, &nh->port, &nh->ifindex, tc,
					skb->len);
}

/* The egress side: the nexthop live and resolved, its port the tenant's
 * the packet belongs to (vnet; 0 the underlay's), its MTU holding the
 * packet (a GSO packet's segments do), and for xdp unqueued (tc's queue is
 * the egress port's qdisc); for tc no PFC watchdog dropping on its way
 * from port in (the pipeline drops and counts those, pfc.h). */
static __always_inline int xfab_fast_egress_ok(const struct xfab_ctx *c, const struct xfab_port *in,
					       const struct xfab_nexthop *nh, __u32 l3_len,
					       __u32 vnet)
{
	if (!xfab_nh_live(nh) || !(nh->flags & XFAB_NH_RESOLVED) ||
	    (!c->is_gso && l3_len > nh->port.mtu))
		return 0;
	if (xfab_code_on(XFAB_CODE_OVERLAY) && nh->port.vnet != vnet)
		return 0;
	if (!c->is_tc && xfab_code_on(XFAB_CODE_QUEUE) && (nh->port.flags & XFAB_PORT_QUEUED))
		return 0;
	if (c->is_tc && xfab_code_on(XFAB_CODE_PFC) &&
	    ((in->flags | nh->port.flags) & XFAB_PORT_LOSSLESS) && !xfab_fast_pfc_calm(in, nh))
		return 0;
	return 1;
}

/* A packet for the general pipeline: counted by why (fast_stats). */
static __always_inline int xfab_fast_miss(__u32 why, __u32 len)
{
	struct xfab_reason_stats *st = bpf_map_lookup_elem(&fast_stats, &why);

	if (st) {
		st->packets++;
		st->bytes += len;
	}
	return XFAB_FAST_PIPELINE;
}

/* Out of nexthop nh: xdp's DEVMAP slot, or tc's device with the class the
 * egress qdisc queues it in (ctx.h's skb->priority, DSCP's class), a
 * lossless class charged to its PG on port in (egress_ok saw no watchdog
 * drop on this way). */
static __always_inline int xfab_fast_out(const struct xfab_ctx *c, const struct xfab_port *in,
					 const struct xfab_nexthop *nh, __u8 tos)
{
	__u32 tc;

	if (!c->is_tc)
		return bpf_redirect_map(&tx_ports, (__u8)nh->port.slot, 0);
	tc = xfab_classify_tos(tos);
	if (xfab_code_on(XFAB_CODE_PFC) && ((in->flags | nh->port.flags) & XFAB_PORT_LOSSLESS))
		xfab_fast_pfc_charge(c->ctx, in, nh, tc);
	((struct __sk_buff *)c->ctx)->priority = 0x10000 | (tc + 1);
	return bpf_redirect(nh->ifindex, 0);
}

/* The packet's TOS byte (IPv4) or traffic class (IPv6), read before its
 * TTL or hop limit goes down by one (IPv4's checksum follows). */
static __always_inline __u8 xfab_fast_hop(void *ip, int v6)
{
	__u8 tos;

	if (v6) {
		struct ipv6hdr *ip6h = ip;

		tos = (__u8)(ip6h->priority << 4 | ip6h->flow_lbl[0] >> 4);
		ip6h->hop_limit--;
		return tos;
	}
	tos = ((struct iphdr *)ip)->tos;
	xfab_ipv4_decrement_ttl(ip);
	return tos;
}

/*
 * A tenant port's packet into a tunnel, vxlan.h's encapsulation in one
 * pass: its VNET's route rt a tunnel whose endpoint the inner flow's
 * tunnel hash picks (xfab_vnet_tunnel), the underlay's path to that endpoint live
 * by the outer flow's ECMP hash, within the MTU once wrapped. The room is
 * made before a byte is written (a failure leaves the frame as it was, the
 * pipeline's); then the inner TTL, the outer headers and MACs, the
 * counters (the tenant's too) and the redirect.
 */
static __always_inline int xfab_fast_encap(struct xfab_ctx *c, const struct xfab_fast_hdrs *h,
					   const struct xfab_port *in,
					   const struct xfab_settings *cfg, int v6,
					   const struct xfab_route *rt)
{
	struct xfab_scratch *room = xfab_scratch(XFAB_SCRATCH_FAST);
	const struct xfab_nexthop *nh;
	struct xfab_overlay *ov;
	__u32 len = c->len, tunnel_hash, outer;
	__u8 *w, tos;

	if (!room)
		return xfab_fast_miss(XFAB_FAST_MISS_ROUTE, len);
	/* the tunnel hash, whole before the tunnel's lookups: the compiler
	 * would keep its twenty-odd words across those calls on the stack */
	tunnel_hash = xfab_fast_hash(h, &cfg->tunnel_key, v6);
	asm volatile("" : "+r"(tunnel_hash));
	if (xfab_vnet_tunnel(&room->ov, rt->id, tunnel_hash))
		return xfab_fast_miss(XFAB_FAST_MISS_ROUTE, len);
	ov = &room->ov;
	outer =
	    (__u32)(xfab_flow_hash_base(ov->src, ov->endpoint, xfab_vxlan_outer_ports(ov->sport),
					IPPROTO_UDP, 0, &cfg->ecmp_key) >>
		    32);
	nh = xfab_fast_fib_nexthop(xfab_fib4_entry(ov->endpoint), h, cfg, 0, &outer, &ov->endpoint);
	if (!nh)
		return xfab_fast_miss(XFAB_FAST_MISS_ROUTE, len);
	if (!xfab_fast_egress_ok(c, in, nh, len - ETH_HLEN + XFAB_VXLAN_ENCAP_LEN, 0))
		return xfab_fast_miss(XFAB_FAST_MISS_EGRESS, len);
	ov->inner_proto = h->eth->h_proto;
	if (xfab_ctx_encap(c, XFAB_VXLAN_ENCAP_LEN))
		return xfab_fast_miss(XFAB_FAST_MISS_EGRESS, len);
	/* the frame had XFAB_FAST_HDRS4 bytes at least: this always holds */
	w = xfab_ctx_hdr(c, 0, XFAB_VXLAN_HDRS_LEN + sizeof(struct ipv6hdr));
	if (!w)
		return c->is_tc ? TC_ACT_SHOT : XDP_ABORTED;
	tos = xfab_fast_hop(w + XFAB_VXLAN_HDRS_LEN, v6);
	xfab_vxlan_write(w, ov, tos, len);
	xfab_mac_copy(((struct ethhdr *)w)->h_dest, nh->dmac);
	xfab_mac_copy(((struct ethhdr *)w)->h_source, nh->port.smac);
	xfab_count_forward(in->slot, len, nh->port.slot, c->len);
	xfab_count_vnet(in->vnet, 0, len);
	return xfab_fast_out(c, in, nh, tos);
}

/* To this switch's VTEP: an IPv4 UDP packet to port 4789 (xfab_fast_tunnel
 * said so) whose destination is the VTEP's address. */
static __always_inline int xfab_fast_to_vtep(const struct xfab_fast_hdrs *h)
{
	const struct xfab_vtep *vt;
	__u32 zero = 0;

	vt = bpf_map_lookup_elem(&vtep, &zero);
	return vt && (vt->flags & XFAB_VTEP_ENABLED) &&
	       vt->src_v4 == ((struct iphdr *)h->ip)->daddr;
}

/* The inner packet of a VXLAN frame at data (its outer headers IPv4
 * without options, XFAB_VXLAN_OFF_INNER bytes) when the decapsulation keeps it
 * as it is: the VXLAN header RFC 7348's (the I flag, reserved bits 0), the
 * inner packet IPv4 or IPv6 passing the frame's checks of its own within
 * the len bytes of the inner frame (what the UDP length holds), and
 * RFC 6040's merge leaving its ECN field alone (outer CE, or ECT(1) over
 * ECT(0), is the pipeline's). 0 or -1; the VNI in *vni. */
static __always_inline int xfab_fast_inner(void *data, void *data_end, __u32 len,
					   struct xfab_fast_hdrs *in, __u32 *vni, __u8 outer_tos)
{
	const __u8 *vx = data + XFAB_VXLAN_OFF_VX;
	__u8 ecn, outer = outer_tos & XFAB_ECN_MASK;

	in->eth = data + XFAB_VXLAN_OFF_INNER;
	in->ip = data + XFAB_VXLAN_OFF_INNER + ETH_HLEN;
	if (data + XFAB_VXLAN_OFF_INNER + XFAB_FAST_HDRS4 > data_end || vx[0] != XFAB_VXLAN_FLAGS ||
	    vx[1] | vx[2] | vx[3] | vx[7])
		return -1;
	*vni = (__u32)vx[4] << 16 | (__u32)vx[5] << 8 | vx[6];
	if (in->eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *iph = in->ip;

		if (!xfab_fast_ipv4_ok(iph, len, data_end))
			return -1;
		in->l4 = iph + 1;
		in->proto = iph->protocol;
		ecn = iph->tos & XFAB_ECN_MASK;
	} else if (in->eth->h_proto == bpf_htons(ETH_P_IPV6) &&
		   data + XFAB_VXLAN_OFF_INNER + XFAB_FAST_HDRS6 <= data_end) {
		struct ipv6hdr *ip6h = in->ip;

		if (!xfab_fast_ipv6_ok(ip6h, len))
			return -1;
		in->l4 = ip6h + 1;
		in->proto = ip6h->nexthdr;
		ecn = (ip6h->flow_lbl[0] >> 4) & XFAB_ECN_MASK;
	} else {
		return -1;
	}
	if (outer == XFAB_ECN_CE ? ecn != XFAB_ECN_CE
				 : outer == XFAB_ECN_ECT1 && ecn == XFAB_ECN_ECT0)
		return -1;
	return 0;
}

/*
 * A tunnel packet to this switch's VTEP, vxlan.h's decapsulation in one
 * pass: an inner packet xfab_fast_inner keeps within the UDP length, of
 * a known VNI, routed in its VNET's table to a nexthop, a group member (by
 * the inner flow's ECMP hash) or a connected neighbour on a port of that
 * tenant, live and within its MTU. The outer headers go before a byte is
 * written (a failure leaves the frame as it was, the pipeline's); then the
 * inner TTL, the MACs, the counters (the tenant's too) and the redirect.
 * Anything else is the pipeline's.
 */
static __always_inline int xfab_fast_decap(struct xfab_ctx *c, const struct xfab_fast_hdrs *h,
					   const struct xfab_port *in,
					   const struct xfab_settings *cfg)
{
	void *data = h->eth, *data_end = xfab_ctx_data_end(c);
	const struct xfab_route *rt = 0;
	const struct xfab_nexthop *nh = 0;
	struct xfab_fast_hdrs inner;
	__u32 vni, len = c->len, *vnet = 0, inner_len = len - XFAB_VXLAN_OFF_INNER,
		   ulen = bpf_ntohs(((const struct udphdr *)h->l4)->len);
	const __u32 *daddr;
	int v6;
	__u8 *w, tos;

	/* the inner frame: what the UDP length holds (vxlan.h's rule: within
	 * the outer datagram, else the pipeline's) */
	if (!c->is_gso) {
		if (ulen < XFAB_VXLAN_ENCAP_LEN - XFAB_VXLAN_OFF_UDP + ETH_HLEN ||
		    ulen > bpf_ntohs(((struct iphdr *)h->ip)->tot_len) - sizeof(struct iphdr))
			return xfab_fast_miss(XFAB_FAST_MISS_VXLAN, len);
		inner_len = ulen - (XFAB_VXLAN_OFF_INNER - XFAB_VXLAN_OFF_UDP);
	}
	if (!xfab_fast_inner(data, data_end, inner_len, &inner, &vni, ((struct iphdr *)h->ip)->tos))
		vnet = bpf_map_lookup_elem(&vni_to_vnet, &vni);
	if (!vnet || *vnet == 0 || *vnet >= XFAB_MAX_VNETS)
		return xfab_fast_miss(XFAB_FAST_MISS_VXLAN, len);
	v6 = inner.eth->h_proto == bpf_htons(ETH_P_IPV6);
	daddr = v6 ? (const __u32 *)&((struct ipv6hdr *)inner.ip)->daddr
		   : &((struct iphdr *)inner.ip)->daddr;
	rt = xfab_table_route(daddr, v6, XFAB_TABLE_VNET | *vnet);
	if (rt)
		nh = xfab_fast_nexthop(rt->type, rt->id, &inner, cfg, v6, 0, daddr);
	if (!nh)
		return xfab_fast_miss(XFAB_FAST_MISS_ROUTE, len);
	if (!xfab_fast_egress_ok(c, in, nh, len - XFAB_VXLAN_OFF_INNER - ETH_HLEN, *vnet))
		return xfab_fast_miss(XFAB_FAST_MISS_EGRESS, len);
	if (xfab_ctx_decap(c, XFAB_VXLAN_OFF_INNER, 0, v6))
		return xfab_fast_miss(XFAB_FAST_MISS_EGRESS, len);
	/* the inner frame had XFAB_FAST_HDRS4 bytes at least: this holds */
	w = xfab_ctx_hdr(c, 0, ETH_HLEN + sizeof(struct ipv6hdr));
	if (!w)
		return c->is_tc ? TC_ACT_SHOT : XDP_ABORTED;
	tos = xfab_fast_hop(w + ETH_HLEN, v6);
	xfab_mac_copy(((struct ethhdr *)w)->h_dest, nh->dmac);
	xfab_mac_copy(((struct ethhdr *)w)->h_source, nh->port.smac);
	((struct ethhdr *)w)->h_proto = bpf_htons(v6 ? ETH_P_IPV6 : ETH_P_IP);
	xfab_count_forward(in->slot, len, nh->port.slot, c->len);
	xfab_count_vnet(*vnet, 1, c->len);
	return xfab_fast_out(c, in, nh, tos);
}

/* Past the frame's checks: the port, the settings, VXLAN (to this VTEP:
 * decapsulated), a tenant's port (its VNET's table: encapsulated, or to
 * another of its ports), the route (FIB entry v), the egress; then the
 * rewrite (the TTL or hop limit, then the MACs), the counters and the redirect. */
static __always_inline int xfab_fast_forward(struct xfab_ctx *c, const struct xfab_fast_hdrs *h,
					     __u32 l3_len, int v6)
{
	const __u32 *d =
	    v6 ? (const __u32 *)&((struct ipv6hdr *)h->ip)->daddr : &((struct iphdr *)h->ip)->daddr;
	const struct xfab_settings *cfg;
	const struct xfab_nexthop *nh;
	const struct xfab_route *rt;
	const struct xfab_port *in;
	__u32 zero = 0, vnet = 0;
	__u8 tos;

	in = xfab_fast_port(h->eth, c->ingress_ifindex, c->is_tc);
	if (!in)
		return xfab_fast_miss(XFAB_FAST_MISS_PORT, c->len);
	cfg = bpf_map_lookup_elem(&settings, &zero);
	if (!cfg || (cfg->flags & XFAB_FAST_SET_MISS))
		return xfab_fast_miss(XFAB_FAST_MISS_SETTINGS, c->len);
	if (xfab_fast_tunnel(h)) {
		if (xfab_code_on(XFAB_CODE_OVERLAY) && !in->vnet && !v6 && xfab_fast_to_vtep(h))
			return xfab_fast_decap(c, h, in, cfg);
		return xfab_fast_miss(XFAB_FAST_MISS_VXLAN, c->len);
	}
	if (xfab_code_on(XFAB_CODE_OVERLAY) && in->vnet) {
		/* a tenant's: into a tunnel, or routed among its own ports */
		vnet = in->vnet;
		rt = xfab_table_route(d, v6, XFAB_TABLE_VNET | vnet);
		if (rt && rt->type == XFAB_RT_TUNNEL)
			return xfab_fast_encap(c, h, in, cfg, v6, rt);
		nh = rt ? xfab_fast_nexthop(rt->type, rt->id, h, cfg, v6, 0, d) : 0;
	} else if (v6) {
		nh = xfab_fast_fib_nexthop(xfab_fib6_walk(d[0], d[1], d[2], d[3]), h, cfg, 1, 0, d);
	} else {
		nh = xfab_fast_fib_nexthop(xfab_fib4_entry(*d), h, cfg, 0, 0, d);
	}
	if (!nh)
		return xfab_fast_miss(XFAB_FAST_MISS_ROUTE, c->len);
	if (!xfab_fast_egress_ok(c, in, nh, l3_len, vnet))
		return xfab_fast_miss(XFAB_FAST_MISS_EGRESS, c->len);
	tos = xfab_fast_hop(h->ip, v6);
	xfab_mac_copy(h->eth->h_dest, nh->dmac);
	xfab_mac_copy(h->eth->h_source, nh->port.smac);
	xfab_count_forward(in->slot, c->len, nh->port.slot, c->len);
	return xfab_fast_out(c, in, nh, tos);
}

/* The packet of an entry point (xfab_xdp, xfab_tc): forwarded here (the
 * hook's verdict), or left untouched to the pipeline (XFAB_FAST_PIPELINE).
 * On tc a frame whose VLAN tag the skb holds apart is the pipeline's. */
static __always_inline int xfab_fast(struct xfab_ctx *c)
{
	void *data = xfab_ctx_data(c), *data_end = xfab_ctx_data_end(c);
	struct xfab_fast_hdrs h = {.eth = data, .ip = data + ETH_HLEN};

	if (!xfab_fast_path)
		return XFAB_FAST_PIPELINE;
	if (data + XFAB_FAST_HDRS4 > data_end || !xfab_fast_l2_ok(h.eth) ||
	    (c->is_tc && ((struct __sk_buff *)c->ctx)->vlan_present))
		return xfab_fast_miss(XFAB_FAST_MISS_FRAME, c->len);
	if (h.eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *iph = h.ip;

		if (!xfab_fast_ipv4_ok(iph, c->len, data_end))
			return xfab_fast_miss(XFAB_FAST_MISS_FRAME, c->len);
		h.l4 = iph + 1;
		h.proto = iph->protocol;
		return xfab_fast_forward(c, &h, bpf_ntohs(iph->tot_len), 0);
	}
	if (h.eth->h_proto == bpf_htons(ETH_P_IPV6) && data + XFAB_FAST_HDRS6 <= data_end) {
		struct ipv6hdr *ip6h = h.ip;

		if (!xfab_fast_ipv6_ok(ip6h, c->len))
			return xfab_fast_miss(XFAB_FAST_MISS_FRAME, c->len);
		h.l4 = ip6h + 1;
		h.proto = ip6h->nexthdr;
		return xfab_fast_forward(c, &h, sizeof(*ip6h) + bpf_ntohs(ip6h->payload_len), 1);
	}
	return xfab_fast_miss(XFAB_FAST_MISS_FRAME, c->len);
}

#endif
