/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Control-plane policing (docs/COPP.md): every packet the pipeline hands
 * to the kernel is put in a CoPP group by what it is and metered by the
 * group's token bucket, in packets per second; a punt over the rate is
 * dropped (copp_policed) before the kernel spends anything on it. Runs
 * only for punts, at the pipeline's end (xfab_end): the forwarding path
 * never gets here.
 *
 * The bucket is one per group for every CPU, under a bpf_spin_lock in its
 * array value: a flood aimed at the switch often arrives on one CPU (one
 * receive queue; a veth pair), where per-CPU buckets at cir / ncpus would
 * admit a fraction of cir and a spread flood up to ncpus x cbs at once.
 * The lock is held for a few loads, one division and stores; CPUs meet on
 * it only while they punt into the same group.
 */
#ifndef XFAB_BPF_COPP_H
#define XFAB_BPF_COPP_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/in6.h> /* IPPROTO_ICMPV6 */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xfab_abi.h"
#include "maps.h"
#include "ctx.h"
#include "scratch.h"
#include "counters.h"

/* An ARP punt's group by its opcode: replies (2) apart from the rest, so
 * that a request flood cannot police the replies the switch's own
 * resolution waits for (docs/COPP.md). A frame too short for the opcode
 * is the kernel's to refuse; it goes with the requests. */
static __always_inline __u32 xfab_copp_arp_group(const struct xfab_ctx *c,
						 const struct xfab_meta *m)
{
	const __be16 *op = xfab_ctx_hdr(c, m->l3_off + XFAB_ARP_OP_OFF, sizeof(*op));

	if (op && *op == bpf_htons(XFAB_ARP_OP_REPLY))
		return XFAB_COPP_ARP_RESP;
	return XFAB_COPP_ARP;
}

/* The group of a punt, first match in xfab_abi.h's order. BGP and BFD
 * only to the switch's own addresses (to_self, or link-local), so a
 * transit packet never takes their buckets whatever its ports. */
static __always_inline __u32 xfab_copp_classify(const struct xfab_ctx *c, const struct xfab_meta *m,
						__u32 reason)
{
	int mine = reason == XFAB_PUNT_TO_SELF || reason == XFAB_PUNT_LINK_LOCAL;

	if (reason == XFAB_PUNT_ARP)
		return xfab_copp_arp_group(c, m);
	if (m->eth_proto != ETH_P_IP && m->eth_proto != ETH_P_IPV6)
		return XFAB_COPP_DEFAULT;
	/* the flow's ports are the frame's own unless the hash took a VXLAN
	 * packet's inner ones (outer UDP 4789: neither BGP nor BFD) */
	if (mine && m->l4_off && !m->inner_flow) {
		__u16 sport = bpf_ntohs((__u16)m->flow.ports);
		__u16 dport = bpf_ntohs((__u16)(m->flow.ports >> 16));

		if (m->l4_proto == IPPROTO_TCP && (sport == XFAB_TCP_BGP || dport == XFAB_TCP_BGP))
			return XFAB_COPP_BGP;
		if (m->l4_proto == IPPROTO_UDP &&
		    (dport == XFAB_UDP_BFD || dport == XFAB_UDP_BFD_ECHO ||
		     dport == XFAB_UDP_BFD_MULTIHOP))
			return XFAB_COPP_BFD;
	}
	if ((mine || reason == XFAB_PUNT_ND || reason == XFAB_PUNT_MULTICAST) && m->is_v6 &&
	    m->l4_proto == IPPROTO_ICMPV6 && m->icmp_type >= 133 && m->icmp_type <= 137)
		return XFAB_COPP_ND;
	if (reason == XFAB_PUNT_TTL_EXPIRED)
		return XFAB_COPP_TTL_ERROR;
	if (reason == XFAB_PUNT_TO_SELF)
		return XFAB_COPP_IP2ME;
	return XFAB_COPP_DEFAULT;
}

/*
 * The group's bucket at time now: 1 if a packet may go (a token taken),
 * 0 if it is policed. The bucket gains cir tokens a second up to cbs; its
 * units are XFAB_COPP_TOKEN per packet, so a refill is elapsed_ns x cir,
 * exact, and never overflows: the refill is cut at what fills the bucket
 * (cbs and cir are at most 10^7: cbs x 10^9 < 2^64). A group without a
 * meter (cir 0, or no entry) admits everything.
 */
static __always_inline int xfab_copp_admit(__u32 group, __u64 now)
{
	const struct xfab_copp_cfg *cfg = bpf_map_lookup_elem(&copp_cfg, &group);
	struct xfab_copp_state *st;
	__u64 cir, cap, tokens, elapsed;
	int green = 0;

	if (!cfg || !cfg->cir)
		return 1;
	st = bpf_map_lookup_elem(&copp_state, &group);
	if (!st)
		return 1;
	cir = cfg->cir;
	cap = (__u64)cfg->cbs * XFAB_COPP_TOKEN;
	bpf_spin_lock(&st->lock);
	tokens = st->tokens;
	if (tokens > cap) /* cbs lowered by a reload */
		tokens = cap;
	if (now > st->last_ns) {
		elapsed = now - st->last_ns;
		if (elapsed > (cap - tokens) / cir)
			tokens = cap;
		else
			tokens += elapsed * cir;
		st->last_ns = now;
	}
	if (tokens >= XFAB_COPP_TOKEN) {
		tokens -= XFAB_COPP_TOKEN;
		green = 1;
	}
	st->tokens = tokens;
	bpf_spin_unlock(&st->lock);
	return green;
}

/* A punt: admitted (XFAB_ACT_PUNT) or policed (a drop, copp_policed), and
 * counted against its group either way. */
static __always_inline int xfab_copp(const struct xfab_ctx *c, struct xfab_scratch *s)
{
	__u32 group = xfab_copp_classify(c, &s->m, s->res.reason);
	int green = xfab_copp_admit(group, bpf_ktime_get_ns());
	struct xfab_copp_stats *st = bpf_map_lookup_elem(&copp_stats, &group);

	if (st) {
		if (green) {
			st->green_packets++;
			st->green_bytes += c->len;
		} else {
			st->red_packets++;
			st->red_bytes += c->len;
		}
	}
	if (green)
		return XFAB_ACT_PUNT;
	return xfab_drop(&s->res, XFAB_DROP_COPP_POLICED);
}

#endif
