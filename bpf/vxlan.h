/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The VXLAN overlay (SONiC's VNET model, docs/OVERLAY.md): tenant routing,
 * encapsulation and decapsulation, written once for both hooks.
 *
 *   tenant port -> route in the VNET's table -> local tenant port, or a
 *     tunnel: the packet's meta becomes the outer packet's, the underlay
 *     stages route it (LPM, ECMP on the outer 5-tuple, TE, queues), and
 *     only once its egress is known and it fits are the outer headers
 *     written (RFC 7348: UDP 4789, checksum 0, source port from the inner
 *     flow's hash; RFC 6040: DSCP and ECN copied; DF, TTL 64).
 *   to the VTEP's address on UDP 4789 -> checks (header, flags, VNI) ->
 *     outer headers removed -> inner re-parsed -> RFC 6040 ECN merge ->
 *     route in the VNI's table (never into a tunnel again).
 *
 * A tenant packet leaves only through a port of its own VNET or, wrapped,
 * through the underlay (the egress check, pipeline.h): tenants with the
 * same addresses never meet.
 */
#ifndef XFAB_BPF_VXLAN_H
#define XFAB_BPF_VXLAN_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xfab_abi.h"
#include "xfab_hash.h"
#include "maps.h"
#include "ctx.h"
#include "csum.h"
#include "scratch.h"
#include "counters.h"
#include "parse.h"
#include "l3.h"
#include "qos.h"

#define XFAB_ECN_ECT1 0x1
#define XFAB_ECN_ECT0 0x2
#define XFAB_IPV4_DF 0x4000

struct xfab_vxlanhdr {
	__u8 flags; /* XFAB_VXLAN_FLAGS */
	__u8 reserved1[3];
	__u8 vni[3];
	__u8 reserved2;
};

/* What the encapsulation writes in front of the inner packet: outer
 * Ethernet, IPv4, UDP, VXLAN, and the inner Ethernet header. */
#define XFAB_VXLAN_HDRS_LEN (XFAB_VXLAN_ENCAP_LEN + ETH_HLEN)
#define XFAB_VXLAN_OFF_IP ETH_HLEN
#define XFAB_VXLAN_OFF_UDP (XFAB_VXLAN_OFF_IP + 20)
#define XFAB_VXLAN_OFF_VX (XFAB_VXLAN_OFF_UDP + 8)
#define XFAB_VXLAN_OFF_INNER (XFAB_VXLAN_OFF_VX + 8)

static __always_inline void xfab_count_vnet(__u32 vnet, int decap, __u32 bytes)
{
	struct xfab_vnet_stats *st = bpf_map_lookup_elem(&vnet_stats, &vnet);

	if (!st)
		return;
	if (decap) {
		st->decap_packets++;
		st->decap_bytes += bytes;
	} else {
		st->encap_packets++;
		st->encap_bytes += bytes;
	}
}

/* A tenant packet's drop (by reason) or punt, in its VNET's counters. */
static __always_inline void xfab_count_vnet_end(__u32 vnet, int act, __u32 reason, __u32 bytes)
{
	struct xfab_vnet_stats *st = bpf_map_lookup_elem(&vnet_stats, &vnet);
	__u32 key = XFAB_VNET_DROP_KEY(vnet, reason & (XFAB_VNET_DROP_REASONS - 1));

	if (!st)
		return;
	if (act == XFAB_ACT_PUNT) {
		st->punts++;
		return;
	}
	st->drops++;
	xfab_count_reason(&vnet_drops, key, bytes);
}

/* Sets a packet's ECN field (IPv4's checksum follows, RFC 1624). */
static __always_inline void xfab_set_ecn(const struct xfab_ctx *c, struct xfab_meta *m, __u8 ecn)
{
	if (m->is_v6) {
		__u8 *b = xfab_ctx_hdr(c, m->l3_off, 2);

		if (b)
			b[1] = (b[1] & ~(XFAB_ECN_MASK << 4)) | (ecn << 4);
	} else {
		struct iphdr *iph = xfab_ctx_hdr(c, m->l3_off, sizeof(*iph));

		if (!iph)
			return;
		xfab_ipv4_set_tos(iph, (iph->tos & ~XFAB_ECN_MASK) | ecn);
	}
	m->tos = (m->tos & ~XFAB_ECN_MASK) | ecn;
}

/* The outer flow's ports word (xfab_hash.h): its source port, to 4789. */
static __always_inline __u32 xfab_vxlan_outer_ports(__be16 sport)
{
	return (__u32)sport | ((__u32)bpf_htons(XFAB_UDP_VXLAN) << 16);
}

/*
 * Tunnel route tunnel_id's encapsulation for a tenant flow of hash h
 * (xfab_hash.h: the endpoint it picks, the outer source port it becomes),
 * into ov: the remote and local VTEPs, the VNI, the inner MACs (the
 * route's, or the VTEP's own). 0, or why not (a drop reason).
 */
static __always_inline __u32 xfab_vnet_tunnel(struct xfab_overlay *ov, __u32 tunnel_id, __u32 h)
{
	const struct xfab_tunnel_route *tr = bpf_map_lookup_elem(&vnet_tunnels, &tunnel_id);
	const struct xfab_vtep *vt;
	__u32 zero = 0, id, n;

	if (!tr || tr->num_endpoints == 0)
		return XFAB_DROP_NEXTHOP_INVALID;
	vt = bpf_map_lookup_elem(&vtep, &zero);
	if (!vt || !(vt->flags & XFAB_VTEP_ENABLED))
		return XFAB_DROP_VNET_NO_VTEP;
	n = tr->num_endpoints;
	if (n > XFAB_TUNNEL_MAX_ENDPOINTS)
		n = XFAB_TUNNEL_MAX_ENDPOINTS;
	id = xfab_tunnel_endpoint(h, n);
	asm volatile("" : "+r"(id)); /* keep the mask: the verifier needs it */
	ov->endpoint = tr->endpoints[id & (XFAB_TUNNEL_MAX_ENDPOINTS - 1)];
	ov->sport = bpf_htons(xfab_vxlan_sport(h));
	ov->vni = tr->vni & XFAB_MAX_VNI;
	ov->src = vt->src_v4;
	ov->mode = XFAB_OVERLAY_ENCAP;
	__builtin_memcpy(ov->src_mac, vt->mac, 6);
	if (tr->mac[0] | tr->mac[1] | tr->mac[2] | tr->mac[3] | tr->mac[4] | tr->mac[5])
		__builtin_memcpy(ov->inner_dmac, tr->mac, 6);
	else
		__builtin_memcpy(ov->inner_dmac, vt->mac, 6);
	return 0;
}

/*
 * Routing in a tenant's table: the packet came in on a port of VNET vnet,
 * or out of a tunnel of it (decap). A local route takes the usual path
 * stages; a tunnel route prepares the encapsulation (s->ov) and turns the
 * meta into the outer packet's, for the underlay stages. An action:
 * FORWARD means "go on" (s->ov.mode says where).
 */
static __always_inline int xfab_stage_vnet(const struct xfab_ctx *c, struct xfab_scratch *s,
					   const struct xfab_settings *cfg, __u32 vnet, int decap)
{
	struct xfab_meta *m = &s->m;
	struct xfab_result *res = &s->res;
	struct xfab_route rt;
	__u32 err;

	s->ov.vnet = (__u8)vnet;
	if (!xfab_lookup_route(m, XFAB_TABLE_VNET | vnet, &rt))
		return xfab_drop(res, XFAB_DROP_VNET_NO_ROUTE);
	s->l3.route_type = rt.type;
	if (rt.type == XFAB_RT_LOCAL)
		return xfab_punt(res, XFAB_PUNT_TO_SELF);
	if (m->ttl <= 1)
		return xfab_punt(res, XFAB_PUNT_TTL_EXPIRED);
	if (rt.type == XFAB_RT_BLACKHOLE)
		return xfab_drop(res, XFAB_DROP_BLACKHOLE);
	if (rt.type != XFAB_RT_TUNNEL) {
		if (!decap)
			s->ov.mode = XFAB_OVERLAY_LOCAL;
		return xfab_use_path(s, cfg, &rt, c->tracing, 0);
	}
	if (decap)
		return xfab_drop(res, XFAB_DROP_VNET_TUNNEL_AGAIN);

	/* The tunnel hash: the inner flow's (xfab_hash.h). */
	err = xfab_vnet_tunnel(&s->ov, rt.id, xfab_flow_hash(&m->flow, &cfg->tunnel_key));
	if (err)
		return xfab_drop(res, err);
	s->ov.inner_v6 = m->is_v6;
	s->ov.inner_proto = bpf_htons(m->eth_proto);
	s->ov.inner_df = 0;
	if (!m->is_v6) {
		struct iphdr *iph = xfab_ctx_hdr(c, m->l3_off, sizeof(*iph));

		s->ov.inner_df = iph && (iph->frag_off & bpf_htons(XFAB_IPV4_DF));
	}
	s->ov.inner_len = c->len - (m->vlan_in_data ? 4 : 0);

	/* From here on the stages see the outer packet. */
	m->is_v6 = 0;
	m->daddr[0] = s->ov.endpoint;
	m->daddr[1] = m->daddr[2] = m->daddr[3] = 0;
	__builtin_memset(&m->flow, 0, sizeof(m->flow));
	m->flow.src[0] = s->ov.src;
	m->flow.dst[0] = s->ov.endpoint;
	m->flow.proto = IPPROTO_UDP;
	m->flow.ports = xfab_vxlan_outer_ports(s->ov.sport);
	m->l4_proto = IPPROTO_UDP;
	m->is_roce = 0;
	m->ttl = XFAB_VXLAN_TTL;
	m->l3_len = s->ov.inner_len + XFAB_VXLAN_ENCAP_LEN - ETH_HLEN;
	return XFAB_ACT_FORWARD;
}

/*
 * The headers an encapsulation puts in front of an inner frame of
 * inner_len bytes, at h (XFAB_VXLAN_HDRS_LEN bytes, written whole but
 * for the outer MACs, the rewrite's): outer Ethernet's type, IPv4 (the
 * inner packet's DSCP and ECN, tos: RFC 6040's normal mode; ID 0, DF,
 * TTL 64), UDP (checksum 0, RFC 7348), VXLAN (I flag, VNI) and the inner
 * Ethernet header (the VTEP's MAC to the route's).
 */
static __always_inline void xfab_vxlan_write(__u8 *h, const struct xfab_overlay *ov, __u8 tos,
					     __u32 inner_len)
{
	struct ethhdr *eth = (void *)h, *inner = (void *)(h + XFAB_VXLAN_OFF_INNER);
	struct iphdr *ip = (void *)(h + XFAB_VXLAN_OFF_IP);
	struct udphdr *udp = (void *)(h + XFAB_VXLAN_OFF_UDP);
	struct xfab_vxlanhdr *vx = (void *)(h + XFAB_VXLAN_OFF_VX);

	eth->h_proto = bpf_htons(ETH_P_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->tos = tos;
	ip->tot_len = bpf_htons((__u16)(inner_len + XFAB_VXLAN_ENCAP_LEN - ETH_HLEN));
	ip->id = 0;
	ip->frag_off = bpf_htons(XFAB_IPV4_DF);
	ip->ttl = XFAB_VXLAN_TTL;
	ip->protocol = IPPROTO_UDP;
	ip->check = 0;
	ip->saddr = ov->src;
	ip->daddr = ov->endpoint;
	ip->check = xfab_ipv4_hdr_csum(ip);
	udp->source = ov->sport;
	udp->dest = bpf_htons(XFAB_UDP_VXLAN);
	udp->len = bpf_htons((__u16)(inner_len + 2 * 8));
	udp->check = 0;
	vx->flags = XFAB_VXLAN_FLAGS;
	vx->reserved1[0] = vx->reserved1[1] = vx->reserved1[2] = 0;
	vx->vni[0] = (__u8)(ov->vni >> 16);
	vx->vni[1] = (__u8)(ov->vni >> 8);
	vx->vni[2] = (__u8)ov->vni;
	vx->reserved2 = 0;
	__builtin_memcpy(inner->h_dest, ov->inner_dmac, 6);
	__builtin_memcpy(inner->h_source, ov->src_mac, 6);
	inner->h_proto = ov->inner_proto;
}

/*
 * The encapsulation itself, once the underlay chose the egress and the
 * packet fits: the tag goes, the inner TTL drops by one (the VTEP routed
 * it), then outer Ethernet (MACs: the rewrite stage), IPv4 (DSCP and ECN
 * of the inner, RFC 6040's normal mode; ID 0, DF, TTL 64), UDP (checksum
 * 0, RFC 7348), VXLAN (I flag, VNI) and the inner Ethernet header (the
 * VTEP's MAC to the route's) go in front. 0 or a drop reason.
 */
static __always_inline int xfab_encap(struct xfab_ctx *c, struct xfab_scratch *s)
{
	struct xfab_meta *m = &s->m;
	__u32 inner_len;
	__u8 *h;

	if (m->vlan_in_data || c->is_tc) {
		if (xfab_ctx_pop_vlan(c, m->vlan_in_data))
			return XFAB_DROP_VXLAN_ENCAP_FAILED;
		if (m->vlan_in_data) {
			m->l3_off -= 4;
			c->len -= 4;
		}
		m->vlan_in_data = 0;
		s->res.vlan_in_data = 0;
	}
	/* The inner packet as routed: the VTEP's MACs (written again below,
	 * where tc's inner header goes), its TTL one less. */
	m->is_v6 = s->ov.inner_v6;
	xfab_rewrite(c, m, s->ov.inner_dmac, s->ov.src_mac, 1);
	m->is_v6 = 0;
	inner_len = c->len;
	if (xfab_ctx_encap(c, XFAB_VXLAN_ENCAP_LEN))
		return XFAB_DROP_VXLAN_ENCAP_FAILED;
	h = xfab_ctx_hdr(c, 0, XFAB_VXLAN_HDRS_LEN);
	if (!h)
		return XFAB_DROP_VXLAN_ENCAP_FAILED;
	xfab_vxlan_write(h, &s->ov, m->tos, inner_len);
	/* the outer packet, for the queue and rewrite stages */
	m->l3_off = ETH_HLEN;
	m->l4_off = ETH_HLEN + sizeof(struct iphdr);
	m->eth_proto = ETH_P_IP;
	return 0;
}

/* To this switch's VTEP on UDP 4789 (not a fragment): decapsulate. */
static __always_inline int xfab_is_vxlan_to_vtep(const struct xfab_meta *m)
{
	const struct xfab_vtep *vt;
	__u32 zero = 0;

	if (m->is_v6 || m->l4_proto != IPPROTO_UDP || !m->l4_off ||
	    (m->flow.ports >> 16) != bpf_htons(XFAB_UDP_VXLAN))
		return 0;
	vt = bpf_map_lookup_elem(&vtep, &zero);
	return vt && (vt->flags & XFAB_VTEP_ENABLED) && vt->src_v4 == m->daddr[0];
}

/*
 * Decapsulation: VXLAN header, UDP length, flags and VNI checked, the
 * outer headers removed, the inner packet parsed as if it had arrived
 * (its frame keeps the outer MACs, so a punt reaches the kernel addressed
 * to this port) and ending within the UDP length, and RFC 6040's ECN
 * merge (section 4.2): an outer CE marks an ECT inner packet CE and drops
 * a Not-ECT one; an outer ECT(1) turns an inner ECT(0) into ECT(1);
 * anything else leaves the inner field alone. The inner packet is then
 * routed in its VNET's table (xfab_stage_vnet). An action.
 */
static __always_inline int xfab_stage_decap(struct xfab_ctx *c, struct xfab_scratch *s)
{
	struct xfab_meta *m = &s->m;
	struct xfab_result *res = &s->res;
	struct xfab_vxlanhdr *vx;
	struct udphdr *udp;
	struct ethhdr *eth;
	__u32 vni, strip, ulen, room, *vnet;
	__u8 outer_ecn = m->tos & XFAB_ECN_MASK, ecn;
	__be16 proto;
	int err, tag = m->vlan_in_data;

	s->ov.mode = XFAB_OVERLAY_DECAP;
	udp = xfab_ctx_hdr(c, m->l4_off, sizeof(*udp) + sizeof(*vx) + sizeof(struct ethhdr));
	if (!udp)
		return xfab_drop(res, XFAB_DROP_VXLAN_TRUNCATED);
	vx = (void *)(udp + 1);
	/* The UDP datagram holds the VXLAN and inner Ethernet headers and
	 * lies within the outer one; the inner packet must end within it
	 * (judged once parsed): bytes past it are no part of the tunnel
	 * packet, as the kernel's UDP trims them. A GSO packet's lengths are
	 * its segmentation's. */
	ulen = bpf_ntohs(udp->len);
	room = ~0u;
	if (!c->is_gso) {
		if (ulen < sizeof(*udp) + sizeof(*vx) + ETH_HLEN ||
		    ulen > m->l3_off + m->l3_len - m->l4_off)
			return xfab_drop(res, XFAB_DROP_VXLAN_TRUNCATED);
		room = ulen - sizeof(*udp) - sizeof(*vx);
	}
	if (vx->flags != XFAB_VXLAN_FLAGS || vx->reserved1[0] || vx->reserved1[1] ||
	    vx->reserved1[2] || vx->reserved2)
		return xfab_drop(res, XFAB_DROP_VXLAN_BAD_FLAGS);
	vni = (__u32)vx->vni[0] << 16 | (__u32)vx->vni[1] << 8 | vx->vni[2];
	s->ov.vni = vni;
	vnet = bpf_map_lookup_elem(&vni_to_vnet, &vni);
	if (!vnet || *vnet == 0 || *vnet >= XFAB_MAX_VNETS)
		return xfab_drop(res, XFAB_DROP_VXLAN_UNKNOWN_VNI);
	s->ov.vnet = (__u8)*vnet;
	proto = ((struct ethhdr *)(vx + 1))->h_proto;
	if (proto != bpf_htons(ETH_P_IP) && proto != bpf_htons(ETH_P_IPV6))
		return xfab_drop(res, XFAB_DROP_VXLAN_INNER_MALFORMED);
	/* The inner IP header cut short is judged before anything is
	 * removed: tc's bpf_skb_adjust_room refuses to leave less than an
	 * IPv4 header behind, and both datapaths must decide alike. */
	strip = m->l4_off + sizeof(struct udphdr) + sizeof(*vx);
	if (!xfab_ctx_hdr(c, strip + ETH_HLEN, sizeof(struct iphdr)))
		return xfab_drop(res, XFAB_DROP_VXLAN_INNER_MALFORMED);
	if (proto == bpf_htons(ETH_P_IPV6) &&
	    !xfab_ctx_hdr(c, strip + ETH_HLEN + sizeof(struct iphdr),
			  sizeof(struct ipv6hdr) - sizeof(struct iphdr)))
		return xfab_drop(res, XFAB_DROP_VXLAN_INNER_MALFORMED);
	eth = xfab_ctx_hdr(c, 0, sizeof(*eth));
	if (!eth)
		return xfab_drop(res, XFAB_DROP_VXLAN_TRUNCATED);
	__builtin_memcpy(s->ov.outer_mac, eth, 12);

	if (xfab_ctx_decap(c, strip, tag, proto == bpf_htons(ETH_P_IPV6)))
		return xfab_drop(res, XFAB_DROP_VXLAN_TRUNCATED);
	s->ov.inner_len = c->len;
	res->vlan_in_data = 0;
	eth = xfab_ctx_hdr(c, 0, sizeof(*eth));
	if (!eth)
		return xfab_drop(res, XFAB_DROP_VXLAN_TRUNCATED);
	__builtin_memcpy(eth, s->ov.outer_mac, 12);
	eth->h_proto = proto;

	/* The inner packet, parsed as if it had come in. */
	__builtin_memset(m, 0, sizeof(*m));
	m->l3_off = ETH_HLEN;
	m->eth_proto = bpf_ntohs(proto);
	err = xfab_parse_ip(c, m);
	if (err || ETH_HLEN + m->l3_len > room) /* past the UDP datagram: cut short */
		return xfab_drop(res, XFAB_DROP_VXLAN_INNER_MALFORMED);

	/* RFC 6040 4.2 */
	ecn = m->tos & XFAB_ECN_MASK;
	if (outer_ecn == XFAB_ECN_CE) {
		if (ecn == 0)
			return xfab_drop(res, XFAB_DROP_VXLAN_CE_NOT_ECT);
		if (ecn != XFAB_ECN_CE)
			xfab_set_ecn(c, m, XFAB_ECN_CE);
	} else if (outer_ecn == XFAB_ECN_ECT1 && ecn == XFAB_ECN_ECT0) {
		xfab_set_ecn(c, m, XFAB_ECN_ECT1);
	}
	return XFAB_ACT_FORWARD;
}

#endif
