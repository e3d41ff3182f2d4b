// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The reference model's decision for one frame (model.h model_run): parse,
 * validate, address rules, lookup, group choice, rewrite, tunnels, pause
 * frames. Every rule cites where it comes from: ARCHITECTURE.md's
 * "Pipeline stages" (numbered as there), CONFIG.md, LOAD_BALANCING.md,
 * PFC.md, QOS.md, or an RFC where the docs are silent.
 */
#define _GNU_SOURCE
#include <string.h>

#include "model_int.h"
#include "xfab_abi.h" /* the reason numbering only */

/* ---- checksums (RFC 1071, RFC 1624) ---- */

static uint32_t sum16(const uint8_t *p, size_t len)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

uint16_t model_csum(const uint8_t *p, size_t len)
{
	return (uint16_t)~fold(sum16(p, len));
}

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') for a 16-bit word m -> m'. */
static uint16_t csum_update(uint16_t hc, uint16_t old, uint16_t new)
{
	return (uint16_t)~fold((uint32_t)(uint16_t)~hc + (uint16_t)~old + new);
}

/* ---- the decision ---- */

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static int drop(struct model_result *r, int reason)
{
	r->verdict = MV_DROP;
	r->reason = reason;
	return 0;
}

static int copp_group(const struct m_pkt *k, int reason);

/* A punt, and the CoPP group it is metered and counted in. */
static int punt(struct model_result *r, const struct m_pkt *k, int reason)
{
	r->verdict = MV_PUNT;
	r->reason = reason;
	r->copp_group = copp_group(k, reason);
	return 0;
}

/* Stage 2: TCP/UDP ports and the ICMP type, the header within the frame. */
static void parse_l4(const uint8_t *f, struct m_pkt *k, size_t l4)
{
	switch (k->l4_proto) {
	case 6: /* TCP */
		if (l4 + 20 > k->len) {
			k->perr = k->perr ? k->perr : XFAB_DROP_L4_TRUNCATED;
			return;
		}
		break;
	case 17: /* UDP */
		if (l4 + 8 > k->len) {
			k->perr = k->perr ? k->perr : XFAB_DROP_L4_TRUNCATED;
			return;
		}
		/* LOAD_BALANCING.md 2: RoCEv2's destination QP, BTH bytes 5-7
		 * (its 12 bytes in the frame, IBTA's BTH length) */
		if (be16(f + l4 + 2) == 4791 && l4 + 8 + 12 <= k->len)
			k->qp = (uint32_t)f[l4 + 13] << 16 | (uint32_t)f[l4 + 14] << 8 | f[l4 + 15];
		break;
	case 1:	 /* ICMP */
	case 58: /* ICMPv6 */
		if (l4 + 4 > k->len) {
			k->perr = k->perr ? k->perr : XFAB_DROP_L4_TRUNCATED;
			return;
		}
		k->icmp_type = f[l4];
		return;
	default:
		return;
	}
	k->have_ports = 1;
	k->l4 = l4;
	k->sport = be16(f + l4);
	k->dport = be16(f + l4 + 2);
}

static void parse_ipv4(const uint8_t *f, struct m_pkt *k)
{
	const uint8_t *h = f + k->l3;
	size_t hl;

	if (k->len < k->l3 + 20) {
		k->perr = XFAB_DROP_IPV4_TRUNCATED;
		return;
	}
	k->l3_len = be16(h + 2);
	k->l4_proto = h[9];
	k->ttl = h[8];
	k->tos = h[1];
	memcpy(k->src, h + 12, 4);
	memcpy(k->dst, h + 16, 4);
	hl = (size_t)(h[0] & 0x0f) * 4;
	/* fragments hash on L3 fields only (stage 2): no L4 read */
	if (hl < 20 || (be16(h + 6) & 0x3fff))
		return;
	parse_l4(f, k, k->l3 + hl);
}

static int validate_ipv4(const uint8_t *f, const struct m_pkt *k)
{
	const uint8_t *h = f + k->l3;
	size_t hl;

	/* RFC 1812 5.2.2 in ARCHITECTURE.md's order */
	if (k->perr == XFAB_DROP_IPV4_TRUNCATED)
		return XFAB_DROP_IPV4_TRUNCATED;
	if (h[0] >> 4 != 4)
		return XFAB_DROP_IPV4_BAD_VERSION;
	hl = (size_t)(h[0] & 0x0f) * 4;
	if (hl < 20)
		return XFAB_DROP_IPV4_BAD_IHL;
	if (k->l3 + hl > k->len)
		return XFAB_DROP_IPV4_TRUNCATED;
	if (model_csum(h, hl) != 0)
		return XFAB_DROP_IPV4_BAD_CHECKSUM;
	if (k->l3_len < hl || k->l3_len > k->len - k->l3)
		return XFAB_DROP_IPV4_BAD_LENGTH;
	return k->perr;
}

static void parse_ipv6(const uint8_t *f, struct m_pkt *k)
{
	const uint8_t *h = f + k->l3;
	size_t cur;
	uint8_t nh;

	if (k->len < k->l3 + 40) {
		k->perr = XFAB_DROP_IPV6_TRUNCATED;
		return;
	}
	k->v6 = 1;
	k->l3_len = 40 + (size_t)be16(h + 4);
	memcpy(k->src, h + 8, 16);
	memcpy(k->dst, h + 24, 16);
	k->ttl = h[7];
	k->tos = (uint8_t)((h[0] & 0x0f) << 4 | h[1] >> 4);
	k->label = (uint32_t)(h[1] & 0x0f) << 16 | (uint32_t)h[2] << 8 | h[3]; /* RFC 8200 */
	nh = h[6];
	cur = k->l3 + 40;
	/* the extension header chain, at most 8 headers (stage 2) */
	for (int i = 0; i < XFAB_IPV6_MAX_EXT_HDRS; i++) {
		switch (nh) {
		case 0: /* hop-by-hop: only first */
			if (i != 0)
				goto chain;
			k->hop_by_hop = 1;
			/* fallthrough */
		case 43: /* routing */
		case 60: /* destination options */
			if (cur + 8 > k->len)
				goto chain;
			nh = f[cur];
			cur += ((size_t)f[cur + 1] + 1) * 8;
			break;
		case 51: /* AH (RFC 4302: length in 4-octet units, minus 2) */
			if (cur + 8 > k->len)
				goto chain;
			nh = f[cur];
			cur += ((size_t)f[cur + 1] + 2) * 4;
			break;
		case 44: /* fragment: L3 fields only */
			if (cur + 8 > k->len)
				goto chain;
			k->l4_proto = f[cur];
			return;
		default:
			k->l4_proto = nh;
			parse_l4(f, k, cur);
			return;
		}
	}
chain:
	k->perr = XFAB_DROP_IPV6_EXT_CHAIN;
}

static int validate_ipv6(const uint8_t *f, const struct m_pkt *k)
{
	if (k->perr == XFAB_DROP_IPV6_TRUNCATED)
		return XFAB_DROP_IPV6_TRUNCATED;
	if (f[k->l3] >> 4 != 6)
		return XFAB_DROP_IPV6_BAD_VERSION;
	if (k->l3_len > k->len - k->l3)
		return XFAB_DROP_IPV6_BAD_LENGTH;
	return k->perr;
}

/* Stage 4: address classes. 1: go on. */
static int class_ipv4(const struct m_pkt *k, struct model_result *r)
{
	uint32_t s = (uint32_t)k->src[0] << 24 | (uint32_t)k->src[1] << 16 |
		     (uint32_t)k->src[2] << 8 | k->src[3];
	uint32_t d = (uint32_t)k->dst[0] << 24 | (uint32_t)k->dst[1] << 16 |
		     (uint32_t)k->dst[2] << 8 |
		     k->dst[3]; /* martians (RFC 1812 5.3.7: a source of network 0, loopback, class
				 * E and the limited broadcast, multicast) */
	if ((s >> 28) >= 0xe || (s >> 24) == 127 || (s >> 24) == 0)
		return drop(r, XFAB_DROP_BAD_SRC_ADDR);
	if ((d >> 28) == 0xe || d == 0xffffffffu)
		return punt(r, k, XFAB_PUNT_MULTICAST);
	if ((d >> 16) == 0xa9fe || (s >> 16) == 0xa9fe)
		return punt(r, k, XFAB_PUNT_LINK_LOCAL);
	return 1;
}

/* ::/128 and ::1/128 */
static int v6_unspec_or_loopback(const uint8_t *a)
{
	for (int i = 0; i < 15; i++)
		if (a[i])
			return 0;
	return a[15] <= 1;
}

static int class_ipv6(const struct m_pkt *k, struct model_result *r)
{
	/* martians (the ABI: multicast, loopback; RFC 4291 2.5.2: a packet
	 * from the unspecified address is never forwarded, 2.5.3: nor one
	 * from the loopback address) */
	if (k->src[0] == 0xff || v6_unspec_or_loopback(k->src))
		return drop(r, XFAB_DROP_BAD_SRC_ADDR);
	if (k->dst[0] == 0xff)
		return punt(r, k, XFAB_PUNT_MULTICAST);
	if ((k->dst[0] == 0xfe && (k->dst[1] & 0xc0) == 0x80) ||
	    (k->src[0] == 0xfe && (k->src[1] & 0xc0) == 0x80))
		return punt(r, k, XFAB_PUNT_LINK_LOCAL);
	if (k->l4_proto == 58 && k->icmp_type >= 133 && k->icmp_type <= 137)
		return punt(r, k, XFAB_PUNT_ND);
	if (k->hop_by_hop)
		return punt(r, k, XFAB_PUNT_IPV6_HOP_BY_HOP);
	return 1;
}

/*
 * COPP.md "Groups": a punt's group, first match of the table. ARP by its
 * opcode (replies apart from requests). BGP and BFD
 * only to the switch (to_self) or link-local, by their ports; ND the
 * ICMPv6 types 133..137 to the switch, multicast or link-local (or the nd
 * punt itself). The model's switch sets every cir to 0: every punt is
 * admitted (green) and counted in its group.
 */
static int copp_group(const struct m_pkt *k, int reason)
{
	int mine = reason == XFAB_PUNT_TO_SELF || reason == XFAB_PUNT_LINK_LOCAL;

	if (reason == XFAB_PUNT_ARP)
		return k->arp_reply ? XFAB_COPP_ARP_RESP : XFAB_COPP_ARP;
	if (k->proto != 0x0800 && k->proto != 0x86dd)
		return XFAB_COPP_DEFAULT;
	if (mine && k->have_ports && k->l4_proto == 6 && (k->sport == 179 || k->dport == 179))
		return XFAB_COPP_BGP;
	if (mine && k->have_ports && k->l4_proto == 17 &&
	    (k->dport == 3784 || k->dport == 3785 || k->dport == 4784))
		return XFAB_COPP_BFD;
	if ((mine || reason == XFAB_PUNT_ND || reason == XFAB_PUNT_MULTICAST) && k->v6 &&
	    k->l4_proto == 58 && k->icmp_type >= 133 && k->icmp_type <= 137)
		return XFAB_COPP_ND;
	if (reason == XFAB_PUNT_TTL_EXPIRED)
		return XFAB_COPP_TTL_ERROR;
	if (reason == XFAB_PUNT_TO_SELF)
		return XFAB_COPP_IP2ME;
	return XFAB_COPP_DEFAULT;
}

/* QOS.md / CONFIG.md DSCP_TO_TC_MAP: SONiC's default map. */
static int dscp_to_tc(int dscp)
{
	switch (dscp) {
	case 3:
		return 3;
	case 4:
		return 4;
	case 46:
		return 5;
	case 48:
		return 6;
	case 8:
		return 0;
	case 5:
		return 2;
	default:
		return 1;
	}
}

int m_dscp_to_tc(int dscp)
{
	return dscp_to_tc(dscp);
}

/* Longest-prefix match, a linear scan. */
static const struct m_route *lpm(const struct model *m, const struct m_pkt *k, int vnet)
{
	const struct m_route *best = NULL;
	int fam = k->v6 ? 6 : 4;

	for (int i = 0; i < m->n_rt; i++) {
		const struct m_route *r = &m->rt[i];

		if (r->vnet == vnet && r->family == fam && m_in_prefix(k->dst, r->addr, r->plen) &&
		    (!best || r->plen > best->plen))
			best = r;
	}
	return best;
}

/* Stage 9 at l3: MACs, TTL or hop limit, the IPv4 checksum (RFC 1624). */
static void rewrite(uint8_t *o, size_t l3, int v6, const uint8_t *dmac, const uint8_t *smac)
{
	memcpy(o, dmac, 6);
	memcpy(o + 6, smac, 6);
	if (v6) {
		o[l3 + 7]--;
	} else {
		uint16_t old = be16(o + l3 + 8);

		o[l3 + 8]--;
		put_be16(o + l3 + 10, csum_update(be16(o + l3 + 10), old, be16(o + l3 + 8)));
	}
}

/*
 * OVERLAY.md "Encapsulation": the tenant packet k (frame f) to a tunnel
 * route: the inner flow's hash picks the endpoint and the outer source
 * port, the outer packet takes the underlay's route (its punts are drops),
 * the egress must be the underlay's and fit the 50 bytes more, then
 * outer Ethernet, IPv4 (the inner DSCP and ECN, ID 0, DF, TTL 64), UDP
 * (checksum 0), VXLAN and the inner Ethernet header go in front of the
 * inner packet, whose TTL drops by one.
 */
static void encap(const struct model *m, const uint8_t *f, const struct m_pkt *k,
		  struct model_result *r, const struct m_route *rt)
{
	/* the tunnel hash (OVERLAY.md, xfab_hash.h's spec): the inner
	 * flow's 5-tuple and the switch's QP and label fields, never INNER
	 * nor symmetric */
	struct m_flow fl;
	uint32_t h;
	uint16_t sport;
	const uint8_t *ep, *dmac;
	size_t inner_len = k->len - (k->tagged ? 4 : 0), plen = k->len - k->l3;
	static const uint8_t zero[6];
	const struct m_route *u;
	struct m_pkt outer;
	uint8_t *o = r->out;
	struct m_hop hop;
	int port, q;

	m_flow_of(m, f, k, 0, &fl);
	h = m_hash(m, &fl, (m->hash_fields | M_HF_DEFAULT) & ~(unsigned)M_HF_INNER, 0);
	sport = (uint16_t)(49152u | ((h ^ (h >> 16)) & 0x3fff));
	ep = rt->gw[(h >> 8) % (uint32_t)rt->n_gw];
	memset(&outer, 0, sizeof(outer));
	memcpy(outer.src, m->vtep, 4);
	memcpy(outer.dst, ep, 4);
	outer.l4_proto = 17;
	outer.have_ports = 1;
	outer.sport = sport;
	outer.dport = 4789;
	outer.ttl = 64;
	u = lpm(m, &outer, 0);
	if (!u) {
		drop(r, XFAB_DROP_NO_ROUTE);
		return;
	}
	/* the kernel never gets a tenant packet to send in the underlay */
	if (u->type == RT_LOCAL) {
		drop(r, XFAB_DROP_VNET_UNDERLAY_PUNT);
		return;
	}
	if (u->type == RT_BLACKHOLE) {
		drop(r, XFAB_DROP_BLACKHOLE);
		return;
	}
	/* the underlay's path, repaired as any of its routes' (ARCHITECTURE.md
	 * 6; the tenant's port p6 has no TE pin) */
	m_path(m, u, &outer, NULL, 0, &hop);
	m_repair(m, u, &outer, NULL, r->in_slot, &hop, &r->lb_events);
	dmac = hop.dmac;
	port = hop.port;
	if (hop.empty) {
		drop(r, XFAB_DROP_GROUP_EMPTY);
		return;
	}
	if (!dmac) {
		drop(r, XFAB_DROP_VNET_UNDERLAY_PUNT);
		return;
	}
	if (hop.dead) { /* stage 8 */
		drop(r, XFAB_DROP_EGRESS_DOWN);
		return;
	}
	if (m->port[port].vnet) {
		drop(r, XFAB_DROP_VNET_CROSS);
		return;
	}
	/* never sent cut or fragmented: IPv4 with DF and IPv6 to the kernel
	 * (ICMP), IPv4 without DF dropped */
	if (inner_len + 50 - 14 > (size_t)m->port[port].mtu) {
		if (k->v6 || (f[k->l3 + 6] & 0x40))
			punt(r, k, XFAB_PUNT_VNET_TOO_BIG);
		else
			drop(r, XFAB_DROP_VNET_MTU);
		return;
	}
	/* stage 7b on the outer packet, which carries the inner DSCP and ECN
	 * (QOS.md; the queue holds what leaves: 50 bytes more, no tag) */
	q = k->tc ? MQ_NONE : m_qos_xdp(m, port, k->tos, inner_len + 50, r);
	memcpy(o, dmac, 6);
	memcpy(o + 6, m->mac[port], 6);
	put_be16(o + 12, 0x0800);
	o[14] = 0x45;
	o[15] = k->tos;
	put_be16(o + 16, (uint16_t)(inner_len + 36));
	put_be16(o + 18, 0);
	put_be16(o + 20, 0x4000);
	o[22] = 64;
	o[23] = 17;
	put_be16(o + 24, 0);
	memcpy(o + 26, m->vtep, 4);
	memcpy(o + 30, ep, 4);
	put_be16(o + 24, model_csum(o + 14, 20));
	if (q == MQ_MARK) /* the outer header: RFC 6040 carries CE inward on decap */
		m_qos_mark(o, 14, 0);
	put_be16(o + 34, sport);
	put_be16(o + 36, 4789);
	put_be16(o + 38, (uint16_t)(inner_len + 16));
	put_be16(o + 40, 0);
	memset(o + 42, 0, 8);
	o[42] = 0x08;
	o[46] = (uint8_t)(M_VNI >> 16);
	o[47] = (uint8_t)(M_VNI >> 8);
	o[48] = (uint8_t)M_VNI;
	put_be16(o + 62, k->proto);
	memcpy(o + 64, f + k->l3, plen);
	/* the inner frame: the VTEP's router MAC (DEVICE_METADATA mac, by
	 * default the first port's) to the route's MAC or its own */
	rewrite(o + 50, 14, k->v6, memcmp(rt->mac, zero, 6) ? rt->mac : m->mac[0], m->mac[0]);
	r->out_len = 64 + plen;
	if (q == MQ_DROP_TAIL || q == MQ_DROP_WRED) {
		/* dropped encapsulated, before stage 9 writes the outer MACs
		 * (the room made for them reads 0 under BPF_PROG_TEST_RUN) */
		memset(o, 0, 12);
		drop(r, q == MQ_DROP_TAIL ? XFAB_DROP_BUFFER_FULL : XFAB_DROP_WRED);
		r->reason_bytes = r->out_len;
		return;
	}
	r->verdict = MV_FORWARD;
	r->reason = 0;
	r->out_slot = port;
	r->tx_bytes = r->out_len;
	r->tclass = dscp_to_tc(k->tos >> 2);
	r->encap = 1;
	r->vnet_bytes = inner_len;
}

/* Stages 5-9 for a valid, classified IP packet, in the default table or
 * the VNET's (vnet 1; decapped: it came out of a tunnel). */
static void route(const struct model *m, const uint8_t *f, const struct m_pkt *k,
		  struct model_result *r, int vnet, int decapped)
{
	const struct m_route *rt = lpm(m, k, vnet), *pin = NULL;
	const uint8_t *dmac;
	uint8_t *o = r->out;
	struct m_hop hop;
	int port, q;

	if (vnet) /* routed in the tenant's table: its counters from here on */
		r->vnet = 1;
	if (rt && rt->type == RT_LOCAL) {
		punt(r, k, XFAB_PUNT_TO_SELF);
		return;
	}
	/* LOAD_BALANCING.md 1: a TE entry of the ingress port overrides the
	 * route (even none) while its path is up; else the route, counted as
	 * a fallback */
	if (!vnet && !decapped)
		pin = m_te_pin(m, r->in_slot, k);
	if (pin && k->ttl <= 1) { /* the kernel answers: traceroute sees the hop */
		punt(r, k, XFAB_PUNT_TTL_EXPIRED);
		return;
	}
	if (pin && !m_te_usable(m, pin)) {
		r->lb_events |= 1 << XFAB_LB_TE_FALLBACK;
		pin = NULL;
	}
	if (pin) {
		r->lb_events |= 1 << XFAB_LB_TE_HIT;
		m_path(m, pin, k, f, 0, &hop); /* only the route's own path is repaired */
		goto chosen;
	}
	if (!rt) { /* a tenant's table never falls into the default one */
		drop(r, vnet ? XFAB_DROP_VNET_NO_ROUTE : XFAB_DROP_NO_ROUTE);
		return;
	}
	if (k->ttl <= 1) { /* after the local check: the kernel answers */
		punt(r, k, XFAB_PUNT_TTL_EXPIRED);
		return;
	}
	if (rt->type == RT_BLACKHOLE) {
		drop(r, XFAB_DROP_BLACKHOLE);
		return;
	}
	if (rt->type == RT_TUNNEL) { /* VTEPs never re-encapsulate */
		if (decapped)
			drop(r, XFAB_DROP_VNET_TUNNEL_AGAIN);
		else
			encap(m, f, k, r, rt);
		return;
	}
	m_path(m, rt, k, vnet ? NULL : f, vnet, &hop);
	if (!vnet) /* CONFIG.md LOCAL_REPAIR: the underlay's routes */
		m_repair(m, rt, k, f, r->in_slot, &hop, &r->lb_events);
chosen:
	dmac = hop.dmac;
	port = hop.port;
	if (hop.empty) { /* every member down */
		drop(r, XFAB_DROP_GROUP_EMPTY);
		return;
	}
	if (!dmac) { /* stage 7: the kernel resolves and forwards */
		punt(r, k, XFAB_PUNT_NEIGH_UNRESOLVED);
		return;
	}
	/* stage 8: the egress port up; tenants stay apart (OVERLAY.md
	 * "Isolation"); the MTU is the L3 length's */
	if (hop.dead) {
		drop(r, XFAB_DROP_EGRESS_DOWN);
		return;
	}
	if (m->port[port].vnet != vnet) {
		drop(r, XFAB_DROP_VNET_CROSS);
		return;
	}
	if (k->l3_len > (size_t)m->port[port].mtu) {
		punt(r, k, XFAB_PUNT_MTU_EXCEEDED);
		return;
	}
	/* stage 7b: xdp's queue of (port, class) may drop or mark (QOS.md) */
	q = k->tc ? MQ_NONE : m_qos_xdp(m, port, k->tos, k->len - (k->tagged ? 4 : 0), r);
	if (q == MQ_DROP_TAIL || q == MQ_DROP_WRED) {
		drop(r, q == MQ_DROP_TAIL ? XFAB_DROP_BUFFER_FULL : XFAB_DROP_WRED);
		return;
	}
	/* stage 9: the tag stripped, MACs, TTL/hop limit, checksum */
	if (k->tagged) {
		memcpy(o, f, 12);
		memcpy(o + 12, f + 16, k->len - 16);
		r->out_len = k->len - 4;
	}
	if (q == MQ_MARK) /* before the rewrite, as stage 7b comes before 9 */
		m_qos_mark(o, k->l3 - (k->tagged ? 4 : 0), k->v6);
	rewrite(o, k->l3 - (k->tagged ? 4 : 0), k->v6, dmac, m->mac[port]);
	r->verdict = MV_FORWARD;
	r->reason = 0;
	r->out_slot = port;
	r->tx_bytes = r->out_len;
	r->tclass = dscp_to_tc(k->tos >> 2);
	r->vnet_bytes = decapped ? k->len : 0;
}

/*
 * OVERLAY.md "Decapsulation": k is the outer packet (valid, to the VTEP,
 * UDP 4789), f the frame as it came.
 */
static void decap(const struct model *m, const uint8_t *f, const struct m_pkt *k,
		  struct model_result *r)
{
	size_t vx = k->l3 + (size_t)(f[k->l3] & 0x0f) * 4 + 8, strip = vx + 8, len;
	uint8_t *o = r->out, outer_ecn = k->tos & 3, ecn;
	uint8_t inner[MODEL_MAX_FRAME];
	uint32_t vni, ulen;
	uint16_t proto;
	struct m_pkt in;
	int err;

	r->decap = 1;
	r->vnet = 0; /* the tenant's once the VNI names it */
	if (vx + 8 + 14 > k->len) {
		drop(r, XFAB_DROP_VXLAN_TRUNCATED);
		return;
	}
	/* the UDP length: the VXLAN and inner Ethernet headers, within the
	 * outer datagram (no GSO here) */
	ulen = be16(f + vx - 4);
	if (ulen < 8 + 8 + 14 || ulen > k->l3 + k->l3_len - (vx - 8)) {
		drop(r, XFAB_DROP_VXLAN_TRUNCATED);
		return;
	}
	if (f[vx] != 0x08 || f[vx + 1] || f[vx + 2] || f[vx + 3] || f[vx + 7]) {
		drop(r, XFAB_DROP_VXLAN_BAD_FLAGS);
		return;
	}
	vni = (uint32_t)f[vx + 4] << 16 | (uint32_t)f[vx + 5] << 8 | f[vx + 6];
	if (vni != M_VNI) {
		drop(r, XFAB_DROP_VXLAN_UNKNOWN_VNI);
		return;
	}
	r->vnet = 1;
	proto = be16(f + strip + 12);
	if (proto != 0x0800 && proto != 0x86dd) {
		drop(r, XFAB_DROP_VXLAN_INNER_MALFORMED);
		return;
	}
	/* the inner IP header cut short: malformed, judged on the frame as
	 * it came (ABI: "its IP header bad or cut short") */
	if (k->len < strip + 14 + (proto == 0x0800 ? 20 : 40)) {
		drop(r, XFAB_DROP_VXLAN_INNER_MALFORMED);
		return;
	}
	/* the outer headers (and a tag) removed, the outer MACs kept */
	len = k->len - strip;
	memcpy(o, f, 12);
	put_be16(o + 12, proto);
	memcpy(o + 14, f + strip + 14, len - 14);
	r->out_len = len;
	r->reason_bytes = len;
	memset(&in, 0, sizeof(in));
	in.tc = k->tc;
	in.len = len;
	in.l3 = 14;
	in.proto = proto;
	in.icmp_type = -1;
	if (proto == 0x0800) {
		parse_ipv4(o, &in);
		err = validate_ipv4(o, &in);
	} else {
		parse_ipv6(o, &in);
		err = validate_ipv6(o, &in);
	}
	/* the inner packet past the UDP datagram: cut short */
	if (err || 14 + in.l3_len > ulen - 16) {
		drop(r, XFAB_DROP_VXLAN_INNER_MALFORMED);
		return;
	}
	/* RFC 6040 4.2 (OVERLAY.md's table): CE marks an ECT packet and
	 * drops a Not-ECT one; ECT(1) turns ECT(0) into ECT(1) */
	ecn = in.tos & 3;
	if (outer_ecn == 3 && ecn == 0) {
		drop(r, XFAB_DROP_VXLAN_CE_NOT_ECT);
		return;
	}
	if ((outer_ecn == 3 && ecn != 3) || (outer_ecn == 1 && ecn == 2)) {
		uint8_t set = outer_ecn == 3 ? 3 : 1;

		in.tos = (uint8_t)((in.tos & ~3) | set);
		if (proto == 0x0800) {
			uint16_t old = be16(o + 14);

			o[15] = in.tos;
			put_be16(o + 24, csum_update(be16(o + 24), old, be16(o + 14)));
		} else {
			o[15] = (uint8_t)((o[15] & ~(3 << 4)) | set << 4);
		}
	}
	if ((proto == 0x0800 ? class_ipv4(&in, r) : class_ipv6(&in, r)) != 1)
		return;
	memcpy(inner, o, len);
	route(m, inner, &in, r, 1, 1);
}

/*
 * PFC.md: a pause frame counts, for every priority it names, a frame
 * received, an XON when the priority's time is 0 (what the frame is too
 * short to hold reads 0, byte by byte), and an ignored one when the port
 * has no PFC on the priority. times: the offset of the first time; pfc:
 * 802.1Qbb (a time per priority), else 802.3x PAUSE (one for all).
 */
static void pause_counts(const struct model *m, const uint8_t *f, size_t len, size_t times, int pfc,
			 int slot, struct model_result *r)
{
	for (int p = 0; p < 8; p++) {
		size_t at = times + (pfc ? 2 * (size_t)p : 0);
		unsigned quanta =
		    (at < len ? (unsigned)f[at] << 8 : 0) | (at + 1 < len ? f[at + 1] : 0);

		if (!(r->pfc_prio_mask & (1 << p)))
			continue;
		if (!quanta)
			r->pfc_xon_mask |= 1 << p;
		if (!(m->port[slot].pfc_enable & (1 << p)))
			r->pfc_ignored_mask |= 1 << p;
	}
}

static int mac_multicast(const uint8_t *mac)
{
	return mac[0] & 1;
}

void model_run(const struct model *m, int tc, int in_port, const uint8_t *f, size_t len,
	       struct model_result *r)
{
	static const uint8_t ctl_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
	struct m_pkt k;
	int slot = in_port < MODEL_N_SLOTS ? in_port : -1, err;
	const uint8_t *pmac = m->mac[in_port];

	memset(r, 0, sizeof(*r));
	memset(&k, 0, sizeof(k));
	if (len > MODEL_MAX_FRAME)
		len = MODEL_MAX_FRAME;
	memcpy(r->out, f, len);
	r->out_len = len;
	r->reason_bytes = len;
	r->in_slot = slot;
	r->out_slot = -1;
	r->vnet = -1;
	r->pfc_pg = -1;
	r->copp_group = -1;
	r->queue_key = -1;
	k.len = len;
	k.tc = tc;
	k.icmp_type = -1;
	/* stage 1: port checks */
	if (slot < 0) {
		drop(r, XFAB_DROP_PORT_UNKNOWN);
		return;
	}
	if (!m->port[slot].admin_up) {
		drop(r, XFAB_DROP_PORT_DOWN);
		return;
	}
	/* stage 2: Ethernet, one tag at most */
	if (len < 14) {
		drop(r, XFAB_DROP_ETH_TRUNCATED);
		return;
	}
	k.proto = be16(f + 12);
	k.l3 = 14;
	if (k.proto == 0x8100 || k.proto == 0x88a8) {
		if (len < 18) {
			drop(r, XFAB_DROP_ETH_TRUNCATED);
			return;
		}
		k.proto = be16(f + 16);
		k.l3 = 18;
		k.tagged = 1;
		if (k.proto == 0x8100 || k.proto == 0x88a8) {
			drop(r, XFAB_DROP_VLAN_STACKED);
			return;
		}
	}
	/* stage 2b: MAC control, consumed or a drop of its own */
	if (k.proto == 0x8808) {
		uint16_t op;

		if (memcmp(f, ctl_dst, 6) && memcmp(f, pmac, 6)) {
			drop(r, XFAB_DROP_MAC_CONTROL_BAD_DST);
			return;
		}
		if (len < k.l3 + 2) {
			drop(r, XFAB_DROP_MAC_CONTROL_TRUNCATED);
			return;
		}
		op = be16(f + k.l3);
		if (op == 0x0101) {
			if (len < k.l3 + 4) {
				drop(r, XFAB_DROP_MAC_CONTROL_TRUNCATED);
				return;
			}
			r->pfc_prio_mask = f[k.l3 + 3]; /* the high octet reserved */
		} else if (op == 0x0001) {
			r->pfc_prio_mask = 0xff;
		} else {
			drop(r, XFAB_DROP_MAC_CONTROL_BAD_OPCODE);
			return;
		}
		pause_counts(m, f, len, k.l3 + (op == 0x0101 ? 4 : 2), op == 0x0101, slot, r);
		r->verdict = MV_CONSUMED;
		return;
	}
	if (k.proto == 0x0800)
		parse_ipv4(f, &k);
	else if (k.proto == 0x86dd)
		parse_ipv6(f, &k);
	/* stage 3: L2 rules */
	if (mac_multicast(f + 6)) {
		drop(r, XFAB_DROP_SMAC_MULTICAST);
		return;
	}
	if (!memcmp(f, f + 6, 6)) {
		drop(r, XFAB_DROP_SMAC_EQ_DMAC);
		return;
	}
	if (k.proto == 0x0806) {
		/* the opcode, 6 bytes into the ARP header; shorter: a request's group */
		k.arp_reply = len >= k.l3 + 8 && be16(f + k.l3 + 6) == 2;
		punt(r, &k, XFAB_PUNT_ARP);
		return;
	}
	if (k.proto != 0x0800 && k.proto != 0x86dd) {
		punt(r, &k, XFAB_PUNT_NON_IP);
		return;
	}
	if (mac_multicast(f)) {
		punt(r, &k, XFAB_PUNT_MULTICAST);
		return;
	}
	if (memcmp(f, pmac, 6)) {
		drop(r, XFAB_DROP_NOT_ROUTER_MAC);
		return;
	}
	/* stage 2's validation, then stage 4 */
	err = k.proto == 0x0800 ? validate_ipv4(f, &k) : validate_ipv6(f, &k);
	if (err) {
		drop(r, err);
		return;
	}
	if ((k.proto == 0x0800 ? class_ipv4(&k, r) : class_ipv6(&k, r)) != 1)
		return;
	/* stage 4b: xdp hands a lossless class to tc (PFC.md) */
	if (!tc && m->port[slot].pfc_enable &&
	    (m->port[slot].pfc_enable & (1 << dscp_to_tc(k.tos >> 2)))) {
		static const uint8_t magic[4] = {0x43, 0x46, 0x50, 0x58}; /* "XPFC", host order */

		memcpy(r->out, magic, 4);
		memcpy(r->out + 4, f, len);
		r->out_len = len + 4;
		r->verdict = MV_HANDOFF;
		r->handoff_run = 1;
		return;
	}
	if (m_acl(m, f, &k, slot, r)) /* stage 4c: the ingress ACL (ACL.md) */
		return;
	/* the overlay: a tenant port routes in its VNET's table; a tunnel
	 * packet to this VTEP is decapsulated (OVERLAY.md) */
	if (!k.v6 && k.l4_proto == 17 && k.have_ports && k.dport == 4789 &&
	    !memcmp(k.dst, m->vtep, 4) && !m->port[slot].vnet)
		decap(m, f, &k, r);
	else
		route(m, f, &k, r, m->port[slot].vnet, 0);
	/* PFC.md: tc charges a packet forwarded from a port with PFC on its
	 * class to that ingress priority group */
	if (tc && r->verdict == MV_FORWARD && (m->port[slot].pfc_enable & (1 << r->tclass)))
		r->pfc_pg = slot * 8 + r->tclass;
	/* tc: the frame then meets its egress port's program; the harness's
	 * veths have no qdisc (noqueue): it finds a backlog of 0 */
	if (tc && r->verdict == MV_FORWARD)
		m_qos_egress(m, r, 0);
}

uint32_t model_frame_hash(const struct model *m, const uint8_t *f, size_t len)
{
	struct m_flow fl;
	struct m_pkt k;

	memset(&k, 0, sizeof(k));
	if (len < 14 || len > MODEL_MAX_FRAME)
		return 0;
	k.len = len;
	k.l3 = 14;
	k.icmp_type = -1;
	k.proto = be16(f + 12);
	if (k.proto == 0x0800)
		parse_ipv4(f, &k);
	else if (k.proto == 0x86dd)
		parse_ipv6(f, &k);
	else
		return 0;
	m_flow_of(m, f, &k, 1, &fl);
	return m_hash(m, &fl, m->hash_fields, m->symmetric);
}
