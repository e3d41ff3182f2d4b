/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Parser stage: cursor-based, every header bounds-checked before use. Each
 * helper returns 0 or a negative drop reason (-XFAB_DROP_*) and records
 * what it found in struct xfab_meta (scratch.h): offsets and field copies,
 * never a pointer. */
#ifndef XFAB_BPF_PARSE_H
#define XFAB_BPF_PARSE_H

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
#include "ctx.h"
#include "csum.h"
#include "scratch.h"

#ifndef ETH_P_8021AD
#define ETH_P_8021AD 0x88A8
#endif
#define IPV4_FRAG_MASK 0x3fff /* MF flag + fragment offset */
#define IPV6_NEXTHDR_HOP 0
#define IPV6_NEXTHDR_ROUTING 43
#define IPV6_NEXTHDR_FRAGMENT 44
#define IPV6_NEXTHDR_AUTH 51
#define IPV6_NEXTHDR_DEST 60
#define XFAB_UDP_ROCEV2 4791
#define XFAB_UDP_VXLAN 4789
#define XFAB_BTH_LEN 12
#define XFAB_VXLAN_LEN 8

struct xfab_vlan_hdr {
	__be16 tci;
	__be16 encap_proto;
};

struct xfab_ipv6_opt_hdr {
	__u8 nexthdr;
	__u8 hdrlen;
	__u8 data[6];
};

struct xfab_ipv6_frag_hdr {
	__u8 nexthdr;
	__u8 reserved;
	__be16 frag_off; /* offset in the high 13 bits, M flag in bit 0 */
	__be32 identification;
};

static __always_inline int xfab_parse_eth(const struct xfab_ctx *c, struct xfab_meta *m)
{
	struct ethhdr *eth = xfab_ctx_hdr(c, 0, sizeof(*eth));
	struct xfab_vlan_hdr *vh;
	__u16 proto;

	if (!eth)
		return -XFAB_DROP_ETH_TRUNCATED;
	m->l3_off = sizeof(*eth);
	proto = bpf_ntohs(eth->h_proto);
	if (proto == ETH_P_8021Q || proto == ETH_P_8021AD) {
		vh = xfab_ctx_hdr(c, sizeof(*eth), sizeof(*vh));
		if (!vh)
			return -XFAB_DROP_ETH_TRUNCATED;
		proto = bpf_ntohs(vh->encap_proto);
		m->vlan_in_data = 1;
		m->l3_off = sizeof(*eth) + sizeof(*vh);
		/* A routed port tolerates one tag; QinQ is not ours to route. */
		if (proto == ETH_P_8021Q || proto == ETH_P_8021AD)
			return -XFAB_DROP_VLAN_STACKED;
	}
	m->eth_proto = proto;
	return 0;
}

/* Reads the L4 header at l4 (ports for the hash, ICMP type for punts). */
static __always_inline int xfab_parse_l4(struct xfab_meta *m, void *l4, void *data_end)
{
	switch (m->l4_proto) {
	case IPPROTO_TCP: {
		struct tcphdr *th = l4;

		if ((void *)(th + 1) > data_end)
			return -XFAB_DROP_L4_TRUNCATED;
		m->flow.ports = (__u32)th->source | ((__u32)th->dest << 16);
		break;
	}
	case IPPROTO_UDP: {
		struct udphdr *uh = l4;
		__u8 *bth = (void *)(uh + 1);

		if ((void *)(uh + 1) > data_end)
			return -XFAB_DROP_L4_TRUNCATED;
		m->flow.ports = (__u32)uh->source | ((__u32)uh->dest << 16);
		/* RoCEv2: the BTH's destination QP is bytes 5..7 (24 bits). */
		if (uh->dest == bpf_htons(XFAB_UDP_ROCEV2) &&
		    (void *)(bth + XFAB_BTH_LEN) <= data_end) {
			m->is_roce = 1;
			m->roce_opcode = bth[0];
			m->flow.qp = ((__u32)bth[5] << 16) | ((__u32)bth[6] << 8) | bth[7];
		}
		break;
	}
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6: {
		__u8 *icmp = l4;

		if ((void *)(icmp + 4) > data_end)
			return -XFAB_DROP_L4_TRUNCATED;
		m->icmp_type = icmp[0];
		break;
	}
	default:
		break;
	}
	return 0;
}

/*
 * Parsing and validation are two stages (the bench prices each): parsing
 * reads the IP header's fields and the L4 ports with bounds checks only,
 * and keeps the first problem it meets (no room for the header, an L4
 * header cut short, a broken IPv6 extension chain) in m->parse_err;
 * validation then judges the header in RFC 1812's order and reports a
 * kept problem where its check comes, so a packet with several faults is
 * dropped for the same one as when both were one pass.
 */
static __always_inline void xfab_parse_ipv4(const struct xfab_ctx *c, struct xfab_meta *m)
{
	void *data = xfab_ctx_data(c), *data_end = xfab_ctx_data_end(c);
	__u32 l3_off = m->l3_off, hdr_len;
	struct iphdr *iph;
	int err;

	if (l3_off >= XFAB_CTX_MAX_OFF) {
		m->parse_err = XFAB_DROP_IPV4_TRUNCATED;
		return;
	}
	iph = data + l3_off;
	if ((void *)(iph + 1) > data_end) {
		m->parse_err = XFAB_DROP_IPV4_TRUNCATED;
		return;
	}
	m->l3_len = bpf_ntohs(iph->tot_len);
	m->l4_proto = iph->protocol;
	m->ttl = iph->ttl;
	m->tos = iph->tos;
	m->daddr[0] = iph->daddr;
	m->flow.src[0] = iph->saddr;
	m->flow.dst[0] = iph->daddr;
	m->flow.proto = iph->protocol;
	/* Every fragment of a datagram hashes alike: L3 fields only. */
	hdr_len = iph->ihl * 4;
	if (hdr_len < sizeof(*iph) || (iph->frag_off & bpf_htons(IPV4_FRAG_MASK)))
		return;
	m->l4_off = (__u16)(l3_off + hdr_len);
	err = xfab_parse_l4(m, (void *)iph + hdr_len, data_end);
	if (err)
		m->parse_err = (__u8)-err;
}

/* RFC 1812 5.2.2: a header that fails any check is dropped. 0 or a
 * negative drop reason. */
static __always_inline int xfab_validate_ipv4(const struct xfab_ctx *c, const struct xfab_meta *m)
{
	void *data_end = xfab_ctx_data_end(c);
	struct iphdr *iph;
	__u32 hdr_len;

	if (m->parse_err == XFAB_DROP_IPV4_TRUNCATED)
		return -XFAB_DROP_IPV4_TRUNCATED;
	iph = xfab_ctx_hdr(c, m->l3_off, sizeof(*iph));
	if (!iph) /* parsed already: cannot happen */
		return -XFAB_DROP_IPV4_TRUNCATED;
	if (iph->version != 4)
		return -XFAB_DROP_IPV4_BAD_VERSION;
	hdr_len = iph->ihl * 4;
	if (hdr_len < sizeof(*iph))
		return -XFAB_DROP_IPV4_BAD_IHL;
	if ((void *)iph + hdr_len > data_end)
		return -XFAB_DROP_IPV4_TRUNCATED;
	if (!xfab_ipv4_csum_ok(iph, hdr_len, data_end))
		return -XFAB_DROP_IPV4_BAD_CHECKSUM;
	/* Trailing Ethernet padding is fine; a length past the frame is not. */
	if (m->l3_len < hdr_len || m->l3_len > c->len - m->l3_off)
		return -XFAB_DROP_IPV4_BAD_LENGTH;
	return m->parse_err ? -(int)m->parse_err : 0;
}

static __always_inline void xfab_parse_ipv6(const struct xfab_ctx *c, struct xfab_meta *m)
{
	void *data = xfab_ctx_data(c), *data_end = xfab_ctx_data_end(c), *cur;
	__u32 l3_off = m->l3_off;
	struct ipv6hdr *ip6h;
	__u8 nexthdr;
	int i, err;

	if (l3_off >= XFAB_CTX_MAX_OFF) {
		m->parse_err = XFAB_DROP_IPV6_TRUNCATED;
		return;
	}
	ip6h = data + l3_off;
	if ((void *)(ip6h + 1) > data_end) {
		m->parse_err = XFAB_DROP_IPV6_TRUNCATED;
		return;
	}
	m->l3_len = sizeof(*ip6h) + bpf_ntohs(ip6h->payload_len);
	__builtin_memcpy(m->flow.src, &ip6h->saddr, 16);
	__builtin_memcpy(m->flow.dst, &ip6h->daddr, 16);
	__builtin_memcpy(m->daddr, &ip6h->daddr, 16);
	m->ttl = ip6h->hop_limit;
	m->tos = (__u8)(ip6h->priority << 4 | ip6h->flow_lbl[0] >> 4);
	m->flow.is_v6 = 1;
	m->is_v6 = 1;
	m->flow.flow_label = ((__u32)(ip6h->flow_lbl[0] & 0x0f) << 16) |
			     ((__u32)ip6h->flow_lbl[1] << 8) | ip6h->flow_lbl[2];

	nexthdr = ip6h->nexthdr;
	cur = ip6h + 1;
	for (i = 0; i < XFAB_IPV6_MAX_EXT_HDRS; i++) {
		struct xfab_ipv6_opt_hdr *oh = cur;

		switch (nexthdr) {
		case IPV6_NEXTHDR_HOP:
			if (i != 0) /* only valid right after the fixed header */
				goto chain;
			m->hop_by_hop = 1;
			/* fallthrough */
		case IPV6_NEXTHDR_ROUTING:
		case IPV6_NEXTHDR_DEST:
			if ((void *)(oh + 1) > data_end)
				goto chain;
			nexthdr = oh->nexthdr;
			cur += (oh->hdrlen + 1) * 8;
			break;
		case IPV6_NEXTHDR_AUTH:
			if ((void *)(oh + 1) > data_end)
				goto chain;
			nexthdr = oh->nexthdr;
			cur += (oh->hdrlen + 2) * 4;
			break;
		case IPV6_NEXTHDR_FRAGMENT: {
			struct xfab_ipv6_frag_hdr *fh = cur;

			if ((void *)(fh + 1) > data_end)
				goto chain;
			m->l4_proto = fh->nexthdr;
			m->flow.proto = fh->nexthdr;
			/* Fragments hash on addresses only (ports not in all). */
			return;
		}
		default:
			/* An upper-layer header (or one we do not walk, e.g. ESP). */
			m->l4_proto = nexthdr;
			m->flow.proto = nexthdr;
			m->l4_off = (__u16)(cur - data);
			err = xfab_parse_l4(m, cur, data_end);
			if (err)
				m->parse_err = (__u8)-err;
			return;
		}
	}
chain:
	m->parse_err = XFAB_DROP_IPV6_EXT_CHAIN;
}

static __always_inline int xfab_validate_ipv6(const struct xfab_ctx *c, const struct xfab_meta *m)
{
	struct ipv6hdr *ip6h;

	if (m->parse_err == XFAB_DROP_IPV6_TRUNCATED)
		return -XFAB_DROP_IPV6_TRUNCATED;
	ip6h = xfab_ctx_hdr(c, m->l3_off, sizeof(*ip6h));
	if (!ip6h) /* parsed already: cannot happen */
		return -XFAB_DROP_IPV6_TRUNCATED;
	if (ip6h->version != 6)
		return -XFAB_DROP_IPV6_BAD_VERSION;
	if (m->l3_len > c->len - m->l3_off)
		return -XFAB_DROP_IPV6_BAD_LENGTH;
	return m->parse_err ? -(int)m->parse_err : 0;
}

/* Both stages at once (the tc egress program, the inner packet of a
 * decapsulation): 0 or a negative drop reason. */
static __always_inline int xfab_parse_ip(const struct xfab_ctx *c, struct xfab_meta *m)
{
	if (m->eth_proto == ETH_P_IP) {
		xfab_parse_ipv4(c, m);
		return xfab_validate_ipv4(c, m);
	}
	xfab_parse_ipv6(c, m);
	return xfab_validate_ipv6(c, m);
}

/*
 * VXLAN: with XFAB_HASH_F_INNER, the hash covers the tunnelled flow, so the
 * underlay spreads tunnels by what they carry. Only the hash input changes;
 * routing keeps the outer destination (m->daddr). A cut-short inner packet
 * leaves the outer fields in place.
 */
static __always_inline void xfab_parse_vxlan_inner(const struct xfab_ctx *c, struct xfab_meta *m)
{
	void *data_end = xfab_ctx_data_end(c), *l4 = 0;
	struct udphdr *uh;
	struct ethhdr *ieth;
	__u8 proto;

	if (m->l4_proto != IPPROTO_UDP || !m->l4_off)
		return;
	uh = xfab_ctx_hdr(c, m->l4_off, sizeof(*uh) + XFAB_VXLAN_LEN + sizeof(*ieth));
	if (!uh || uh->dest != bpf_htons(XFAB_UDP_VXLAN))
		return;
	ieth = (void *)(uh + 1) + XFAB_VXLAN_LEN;
	if (ieth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ih = (void *)(ieth + 1);

		if ((void *)(ih + 1) > data_end || ih->ihl < 5)
			return;
		__builtin_memset(&m->flow, 0, sizeof(m->flow));
		m->flow.src[0] = ih->saddr;
		m->flow.dst[0] = ih->daddr;
		proto = ih->protocol;
		if (!(ih->frag_off & bpf_htons(IPV4_FRAG_MASK)))
			l4 = (void *)ih + ih->ihl * 4;
	} else if (ieth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ih = (void *)(ieth + 1);

		if ((void *)(ih + 1) > data_end)
			return;
		__builtin_memset(&m->flow, 0, sizeof(m->flow));
		__builtin_memcpy(m->flow.src, &ih->saddr, 16);
		__builtin_memcpy(m->flow.dst, &ih->daddr, 16);
		m->flow.is_v6 = 1;
		m->flow.flow_label = ((__u32)(ih->flow_lbl[0] & 0x0f) << 16) |
				     ((__u32)ih->flow_lbl[1] << 8) | ih->flow_lbl[2];
		proto = ih->nexthdr;
		l4 = ih + 1;
	} else {
		return;
	}
	m->flow.proto = proto;
	m->inner_flow = 1;
	if (l4 && (proto == IPPROTO_TCP || proto == IPPROTO_UDP)) {
		__be16 *ports = l4;

		if ((void *)(ports + 2) <= data_end)
			m->flow.ports = (__u32)ports[0] | ((__u32)ports[1] << 16);
	}
}

#endif
