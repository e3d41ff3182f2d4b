// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The one packet builder: see frame.h. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "bytes.h"
#include "frame.h"

#define ETH_P_IP_ 0x0800
#define ETH_P_IPV6_ 0x86dd
#define ETH_P_8021Q_ 0x8100

/* One's-complement sum of big-endian 16-bit words, not yet folded. */
static uint32_t sum16(const uint8_t *p, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static size_t l4_header_len(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return 20;
	case IPPROTO_UDP:
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return 8;
	default:
		return 0;
	}
}

static size_t ext_len(const struct xfab_frame_ext *e)
{
	return e->type == IPPROTO_FRAGMENT ? 8 : 8 * ((size_t)e->len8 + 1);
}

/* Where build puts the headers, known once the Ethernet header is written. */
struct frame_layout {
	size_t l3, l3_len; /* 0 and 0: a raw ethertype */
	size_t l4, l4_len; /* l4_len 0: no L4 header */
	size_t rest;	   /* the end of what is built so far */
	uint8_t l4_proto;  /* the L4 protocol written (0: none) */
};

static long build(const struct xfab_frame *f, uint8_t *b, size_t cap, struct xfab_frame_info *info,
		  int depth);

/* MACs, VLAN tags and the ethertype; the L3 header's length from the
 * frame's description. -1: a description no frame can have. */
static int put_eth(const struct xfab_frame *f, uint8_t *b, size_t cap, struct frame_layout *lay)
{
	size_t off = 12, l3_len = 0;
	uint8_t l4_proto = f->l4.proto;

	if (f->n_vlan < 0 || f->n_vlan > XFAB_FRAME_MAX_VLANS || cap < 14 + 4 * (size_t)f->n_vlan)
		return -1;
	memcpy(b, f->dmac, 6);
	memcpy(b + 6, f->smac, 6);
	for (int t = 0; t < f->n_vlan; t++, off += 4) {
		xfab_put16(b + off, ETH_P_8021Q_);
		xfab_put16(b + off + 2, f->vlan[t]);
	}
	switch (f->l3) {
	case XFAB_FRAME_IPV4:
		xfab_put16(b + off, ETH_P_IP_);
		if (f->ip4.opts_len % 4 || f->ip4.opts_len > 40)
			return -1;
		l3_len = 20 + f->ip4.opts_len;
		break;
	case XFAB_FRAME_IPV6:
		xfab_put16(b + off, ETH_P_IPV6_);
		if (f->ip6.n_ext < 0 || f->ip6.n_ext > XFAB_FRAME_MAX_EXT)
			return -1;
		l3_len = 40;
		for (int i = 0; i < f->ip6.n_ext; i++)
			l3_len += ext_len(&f->ip6.ext[i]);
		break;
	default:
		xfab_put16(b + off, f->ethertype);
		l4_proto = 0;
		break;
	}
	lay->l3 = off + 2;
	lay->l3_len = l3_len;
	lay->l4_proto = l4_proto;
	return 0;
}

/* What follows the L4 header: BTH, VXLAN and its inner frame, the payload.
 * -1: it does not fit in cap, or the inner frame cannot be built. */
static int put_tail(const struct xfab_frame *f, uint8_t *b, size_t cap, struct frame_layout *lay,
		    int depth)
{
	size_t rest = lay->rest;

	if (f->bth.present) {
		uint8_t *h = b + rest;

		if (rest + 12 > cap)
			return -1;
		h[0] = f->bth.opcode;
		h[1] = f->bth.flags;
		xfab_put16(h + 2, f->bth.pkey);
		h[4] = 0;
		xfab_put24(h + 5, f->bth.dest_qp);
		h[8] = f->bth.ack_req ? 0x80 : 0;
		xfab_put24(h + 9, f->bth.psn);
		rest += 12;
	}
	if (f->vxlan.present) {
		uint8_t *h = b + rest;
		long inner = 0;

		if (rest + 8 > cap)
			return -1;
		memset(h, 0, 8);
		h[0] = f->vxlan.flags_set ? f->vxlan.flags : 0x08;
		xfab_put24(h + 4, f->vxlan.vni);
		rest += 8;
		if (f->vxlan.inner) {
			inner = build(f->vxlan.inner, b + rest, cap - rest, NULL, depth + 1);
			if (inner < 0)
				return -1;
		}
		rest += (size_t)inner;
	}
	if (rest + f->payload_len > cap)
		return -1;
	if (f->payload)
		memcpy(b + rest, f->payload, f->payload_len);
	else
		memset(b + rest, 0, f->payload_len);
	lay->rest = rest;
	return 0;
}

/* The IPv4 header at ip (len: from ip to the frame's end), its lengths
 * and checksum computed unless set. */
static void put_ipv4(const struct xfab_frame *f, uint8_t *ip, const struct frame_layout *lay,
		     size_t len)
{
	const struct xfab_frame_ipv4 *h = &f->ip4;
	unsigned int set = h->set;
	size_t l3_len = lay->l3_len;

	ip[0] = (uint8_t)((set & XFAB_FRAME_SET_VERSION ? h->version : 4) << 4 |
			  ((set & XFAB_FRAME_SET_IHL ? h->ihl : l3_len / 4) & 0xf));
	ip[1] = h->tos;
	xfab_put16(ip + 2, set & XFAB_FRAME_SET_LEN ? h->tot_len : (uint16_t)len);
	xfab_put16(ip + 4, h->id);
	xfab_put16(ip + 6, h->frag);
	ip[8] = h->ttl;
	ip[9] = set & XFAB_FRAME_SET_PROTO ? h->proto : lay->l4_proto;
	memcpy(ip + 12, h->src, 4);
	memcpy(ip + 16, h->dst, 4);
	if (h->opts_len)
		memcpy(ip + 20, h->opts, h->opts_len);
	xfab_put16(ip + 10, set & XFAB_FRAME_SET_CHECK ? h->check : fold(sum16(ip, l3_len, 0)));
}

/* The IPv6 header and its extension headers at ip (len: from ip to the
 * frame's end). */
static void put_ipv6(const struct xfab_frame *f, uint8_t *ip, const struct frame_layout *lay,
		     size_t len)
{
	const struct xfab_frame_ipv6 *h = &f->ip6;
	uint8_t l4_proto = lay->l4_proto;
	uint8_t *e = ip + 40;

	/* each extension header names the one after it */
	for (int i = 0; i < h->n_ext; i++) {
		e[0] = i + 1 < h->n_ext ? h->ext[i + 1].type : l4_proto;
		if (h->ext[i].type == IPPROTO_FRAGMENT) {
			xfab_put16(e + 2, h->ext[i].frag);
			xfab_put32(e + 4, h->ext[i].id);
		} else {
			e[1] = h->ext[i].len8;
		}
		e += ext_len(&h->ext[i]);
	}
	xfab_put32(ip, (uint32_t)(h->set & XFAB_FRAME_SET_VERSION ? h->version : 6) << 28 |
			   (uint32_t)h->tclass << 20 | (h->flow_label & 0xfffff));
	xfab_put16(ip + 4, h->set & XFAB_FRAME_SET_LEN ? h->payload_len : (uint16_t)(len - 40));
	ip[6] = h->set & XFAB_FRAME_SET_PROTO ? h->next : h->n_ext ? h->ext[0].type : l4_proto;
	ip[7] = h->hop_limit;
	memcpy(ip + 8, h->src, 16);
	memcpy(ip + 24, h->dst, 16);
}

/* The L4 header at p (seg: from p to the frame's end) and its checksum
 * over the IP header ip's pseudo-header, unless set. */
static void put_l4(const struct xfab_frame *f, const uint8_t *ip, uint8_t *p, size_t seg,
		   uint8_t l4_proto)
{
	const struct xfab_frame_l4 *h = &f->l4;
	uint32_t sum = 0;

	switch (l4_proto) {
	case IPPROTO_UDP:
		xfab_put16(p, h->sport);
		xfab_put16(p + 2, h->dport);
		xfab_put16(p + 4, h->set & XFAB_FRAME_SET_LEN ? h->len : (uint16_t)seg);
		break;
	case IPPROTO_TCP:
		xfab_put16(p, h->sport);
		xfab_put16(p + 2, h->dport);
		xfab_put32(p + 4, h->seq);
		xfab_put32(p + 8, h->ack);
		p[12] = 5 << 4;
		p[13] = h->tcp_flags;
		xfab_put16(p + 14, h->window);
		break;
	default: /* ICMP, ICMPv6 */
		p[0] = h->icmp_type;
		p[1] = h->icmp_code;
		xfab_put32(p + 4, h->icmp_rest);
		break;
	}
	/* the pseudo-header, but for ICMP over IPv4 */
	if (f->l3 == XFAB_FRAME_IPV4 && l4_proto != IPPROTO_ICMP) {
		sum = sum16(ip + 12, 8, 0) + l4_proto + (uint32_t)seg;
	} else if (f->l3 == XFAB_FRAME_IPV6) {
		sum = sum16(ip + 8, 32, 0) + l4_proto + (uint32_t)(seg >> 16) +
		      (uint32_t)(seg & 0xffff);
	}
	{
		size_t at = l4_proto == IPPROTO_UDP ? 6 : l4_proto == IPPROTO_TCP ? 16 : 2;
		uint16_t check = fold(sum16(p, seg, sum));

		/* UDP sends a computed 0 as all ones (RFC 768) */
		if (l4_proto == IPPROTO_UDP && check == 0)
			check = 0xffff;
		xfab_put16(p + at, h->set & XFAB_FRAME_SET_CHECK ? h->check : check);
	}
}

/* The frame f into b: the Ethernet header, the room of the L3 and L4
 * headers, what follows them, then those headers now that the lengths are
 * known. depth: of VXLAN nesting. */
static long build(const struct xfab_frame *f, uint8_t *b, size_t cap, struct xfab_frame_info *info,
		  int depth)
{
	struct frame_layout lay = {0};
	size_t l3, l4, l4_len, rest;

	if (depth > XFAB_FRAME_MAX_DEPTH || put_eth(f, b, cap, &lay))
		return -1;
	l3 = lay.l3;
	l4 = l3 + lay.l3_len;
	l4_len = l4_header_len(lay.l4_proto);
	rest = l4 + l4_len;
	if (rest > cap)
		return -1;
	memset(b + l3, 0, rest - l3);
	lay.l4 = l4;
	lay.l4_len = l4_len;
	lay.rest = rest;
	if (put_tail(f, b, cap, &lay, depth))
		return -1;
	rest = lay.rest;
	if (info) {
		info->l3_off = f->l3 == XFAB_FRAME_RAW ? 0 : l3;
		info->l4_off = l4_len ? l4 : 0;
		info->payload_off = rest;
	}
	rest += f->payload_len;

	/* headers, now that the lengths are known */
	if (f->l3 == XFAB_FRAME_IPV4)
		put_ipv4(f, b + l3, &lay, rest - l3);
	else if (f->l3 == XFAB_FRAME_IPV6)
		put_ipv6(f, b + l3, &lay, rest - l3);
	if (l4_len)
		put_l4(f, b + l3, b + l4, rest - l4, lay.l4_proto);
	if (info)
		info->len = rest;
	return (long)rest;
}

long xfab_frame_build(const struct xfab_frame *f, void *buf, size_t cap,
		      struct xfab_frame_info *info)
{
	if (info)
		memset(info, 0, sizeof(*info));
	return build(f, buf, cap, info, 0);
}

int xfab_frame_addrs(struct xfab_frame *f, const char *src, const char *dst)
{
	if (!src || !dst)
		return -1;
	if (strchr(dst, ':')) {
		f->l3 = XFAB_FRAME_IPV6;
		return inet_pton(AF_INET6, src, f->ip6.src) == 1 &&
			       inet_pton(AF_INET6, dst, f->ip6.dst) == 1
			   ? 0
			   : -1;
	}
	f->l3 = XFAB_FRAME_IPV4;
	return inet_pton(AF_INET, src, f->ip4.src) == 1 && inet_pton(AF_INET, dst, f->ip4.dst) == 1
		   ? 0
		   : -1;
}
