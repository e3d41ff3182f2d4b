/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The xfab pipeline, written once and hook-agnostic. The XDP and tc entry
 * points (xfab.bpf.c) wrap their context in a struct xfab_pkt, call
 * xfab_pipeline() and turn its result into their own verdict, so both
 * datapaths make the same decision and write the same bytes.
 *
 *   port checks -> parse -> punt rules -> L3 lookup -> path select ->
 *   neighbour -> egress checks -> rewrite -> counters
 */
#ifndef XFAB_BPF_PIPELINE_H
#define XFAB_BPF_PIPELINE_H

struct xfab_pkt {
	struct xfab_trace *trace; /* xfabctl trace: record here, change no state */
	void *data;
	void *data_end;
	__u32 len; /* whole frame (tc may hold less than this linearly) */
	__u32 ingress_ifindex;
	__u8 is_gso; /* a GSO super-packet: per-segment MTU holds */
	__u8 is_tc;  /* tc datapath: the real qdisc queues (egress program) */
	__u8 pad[2];
};

struct xfab_result {
	__u32 action;	      /* enum xfab_action */
	__u32 reason;	      /* drop or punt reason */
	__u32 egress_ifindex; /* with XFAB_ACT_FORWARD */
	__u8 vlan_in_data;    /* entry must strip the ingress tag on forward */
	__u8 tc;	      /* traffic class (tc datapath: picks the HTB class) */
	__u8 tracing;	      /* a trace: counters and LB state stay untouched */
	__u8 pad;
};

#include "counters.h"
#include "parse.h"
#include "l3.h"
#include "qos.h"

static __always_inline int xfab_mac_is_multicast(const __u8 *mac)
{
	return mac[0] & 1;
}

static __always_inline int xfab_mac_equal(const __u8 *a, const __u8 *b)
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3] && a[4] == b[4] &&
	       a[5] == b[5];
}

/* Ethernet sanity, ARP/non-IP punts, router-MAC check. Returns an action. */
static __always_inline int xfab_stage_l2(struct xfab_meta *m, const struct xfab_port *in,
					 struct xfab_result *res)
{
	struct ethhdr *eth = m->eth;

	if (xfab_mac_is_multicast(eth->h_source))
		return xfab_drop(res, XFAB_DROP_SMAC_MULTICAST);
	if (xfab_mac_equal(eth->h_source, eth->h_dest))
		return xfab_drop(res, XFAB_DROP_SMAC_EQ_DMAC);
	if (m->eth_proto == ETH_P_ARP)
		return xfab_punt(res, XFAB_PUNT_ARP);
	if (m->eth_proto != ETH_P_IP && m->eth_proto != ETH_P_IPV6)
		return xfab_punt(res, XFAB_PUNT_NON_IP);
	if (xfab_mac_is_multicast(eth->h_dest))
		return xfab_punt(res, XFAB_PUNT_MULTICAST);
	if (!xfab_mac_equal(eth->h_dest, in->mac))
		return xfab_drop(res, XFAB_DROP_NOT_ROUTER_MAC);
	return XFAB_ACT_FORWARD;
}

/* Address-class punts and drops that need no table. */
static __always_inline int xfab_stage_ipv4_class(struct xfab_meta *m, struct xfab_result *res)
{
	struct iphdr *iph = m->l3;
	__u32 saddr = bpf_ntohl(iph->saddr);
	__u32 daddr = bpf_ntohl(iph->daddr);

	if ((saddr >> 28) == 0xe || saddr == 0xffffffff || (saddr >> 24) == 127 || saddr == 0)
		return xfab_drop(res, XFAB_DROP_BAD_SRC_ADDR);
	if ((daddr >> 28) == 0xe || daddr == 0xffffffff)
		return xfab_punt(res, XFAB_PUNT_MULTICAST);
	if ((daddr >> 16) == 0xa9fe || (saddr >> 16) == 0xa9fe)
		return xfab_punt(res, XFAB_PUNT_LINK_LOCAL);
	return XFAB_ACT_FORWARD;
}

static __always_inline int xfab_stage_ipv6_class(struct xfab_meta *m, struct xfab_result *res)
{
	struct ipv6hdr *ip6h = m->l3;
	__u8 s0 = ip6h->saddr.in6_u.u6_addr8[0], s1 = ip6h->saddr.in6_u.u6_addr8[1];
	__u8 d0 = ip6h->daddr.in6_u.u6_addr8[0], d1 = ip6h->daddr.in6_u.u6_addr8[1];

	if (s0 == 0xff)
		return xfab_drop(res, XFAB_DROP_BAD_SRC_ADDR);
	if (d0 == 0xff)
		return xfab_punt(res, XFAB_PUNT_MULTICAST);
	if ((d0 == 0xfe && (d1 & 0xc0) == 0x80) || (s0 == 0xfe && (s1 & 0xc0) == 0x80))
		return xfab_punt(res, XFAB_PUNT_LINK_LOCAL);
	if (m->l4_proto == IPPROTO_ICMPV6 && m->icmp_type >= 133 && m->icmp_type <= 137)
		return xfab_punt(res, XFAB_PUNT_ND);
	if (m->hop_by_hop)
		return xfab_punt(res, XFAB_PUNT_IPV6_HOP_BY_HOP);
	return XFAB_ACT_FORWARD;
}

/* What a trace reports, gathered as the stages run; copied out at the end
 * so tracing adds no branches in the middle of the pipeline. */
struct xfab_trace_acc {
	struct xfab_meta *m;
	struct xfab_l3_decision *l3;
	struct xfab_queue_info *qi;
	__u32 slot;
};

/* Every exit of the pipeline: counts (or, tracing, records) the outcome. */
static __always_inline int xfab_end(struct xfab_pkt *pkt, struct xfab_result *res,
				    const struct xfab_trace_acc *acc, int act, __u8 stage)
{
	struct xfab_trace *t = pkt->trace;

	if (!t)
		return xfab_finish(res, acc->slot, pkt->len, act);
	t->action = (__u8)act;
	t->reason = (__u8)res->reason;
	t->stage = stage;
	t->ingress_slot = acc->slot;
	t->l4_proto = acc->m->l4_proto;
	t->qp = acc->m->flow.qp;
	t->flags = acc->l3->flags | acc->l3->pick.flags | (acc->m->is_roce ? XFAB_TRACE_ROCE : 0);
	t->route_type = acc->l3->route_type;
	t->group = acc->l3->group;
	t->nexthop = acc->l3->nh_id;
	t->hash = acc->l3->pick.hash;
	t->bucket = acc->l3->pick.bucket;
	t->flowlet_idle_ns = acc->l3->pick.idle_ns;
	t->egress_ifindex = acc->l3->egress_ifindex;
	t->tc = res->tc;
	t->occupancy = acc->qi->occupancy;
	t->queue_verdict = (__u8)acc->qi->verdict;
	return act;
}

static __always_inline int xfab_pipeline(struct xfab_pkt *pkt, struct xfab_result *res)
{
	struct xfab_meta m = {};
	struct xfab_l3_decision l3 = {};
	struct xfab_queue_info qi = {};
	const struct xfab_port *in, *out;
	const struct xfab_settings *cfg;
	__u32 zero = 0;
	int act, err;

	struct xfab_trace_acc acc = {.m = &m, .l3 = &l3, .qi = &qi};

	res->tracing = pkt->trace != 0;
	l3.pick.tracing = res->tracing;
	cfg = bpf_map_lookup_elem(&settings, &zero);
	if (!cfg) /* an ARRAY always has index 0; this satisfies the verifier */
		return XFAB_ACT_DROP;

	/* Port checks: only ports xfabd configured, and only while up. */
	in = bpf_map_lookup_elem(&ports, &pkt->ingress_ifindex);
	if (!in || in->ifindex != pkt->ingress_ifindex) {
		if (pkt->trace) {
			xfab_drop(res, XFAB_DROP_PORT_UNKNOWN);
			return xfab_end(pkt, res, &acc, XFAB_ACT_DROP, XFAB_STAGE_PORT);
		}
		return xfab_count_unknown_port(res, pkt);
	}
	acc.slot = in->slot;
	if (!pkt->trace)
		xfab_count_rx(in->slot, pkt->len);
	if ((in->flags & XFAB_PORT_ADMIN_UP) == 0)
		return xfab_end(pkt, res, &acc, xfab_drop(res, XFAB_DROP_PORT_DOWN),
				XFAB_STAGE_PORT);

	/* Parse and classify. */
	err = xfab_parse_eth(pkt, &m);
	if (err)
		return xfab_end(pkt, res, &acc, xfab_drop(res, -err), XFAB_STAGE_PARSE);
	res->vlan_in_data = m.vlan_in_data;
	act = xfab_stage_l2(&m, in, res);
	if (act != XFAB_ACT_FORWARD)
		return xfab_end(pkt, res, &acc, act, XFAB_STAGE_CLASSIFY);

	if (m.eth_proto == ETH_P_IP) {
		err = xfab_parse_ipv4(pkt, &m);
		if (err)
			return xfab_end(pkt, res, &acc, xfab_drop(res, -err), XFAB_STAGE_PARSE);
		act = xfab_stage_ipv4_class(&m, res);
	} else {
		err = xfab_parse_ipv6(pkt, &m);
		if (err)
			return xfab_end(pkt, res, &acc, xfab_drop(res, -err), XFAB_STAGE_PARSE);
		act = xfab_stage_ipv6_class(&m, res);
	}
	if (act != XFAB_ACT_FORWARD)
		return xfab_end(pkt, res, &acc, act, XFAB_STAGE_CLASSIFY);
	if (cfg->hash_fields & XFAB_HASH_F_INNER)
		xfab_parse_vxlan_inner(pkt, &m);

	/* TE override, route lookup, path selection, neighbour. */
	act = xfab_stage_l3(&m, cfg, pkt->ingress_ifindex, &l3, res);
	if (act != XFAB_ACT_FORWARD)
		return xfab_end(pkt, res, &acc, act, XFAB_STAGE_L3);

	/* Egress checks. */
	out = bpf_map_lookup_elem(&ports, &l3.egress_ifindex);
	if (!out || out->ifindex != l3.egress_ifindex ||
	    (out->flags & XFAB_PORT_UP) != XFAB_PORT_UP)
		return xfab_end(pkt, res, &acc, xfab_drop(res, XFAB_DROP_EGRESS_DOWN),
				XFAB_STAGE_EGRESS);
	if (!pkt->is_gso && m.l3_len > out->mtu)
		return xfab_end(pkt, res, &acc, xfab_punt(res, XFAB_PUNT_MTU_EXCEEDED),
				XFAB_STAGE_EGRESS);

	/* Queue: the egress (port, class) may mark CE or drop. In the tc
	 * datapath the egress program does this against the real qdisc. */
	res->tc = pkt->is_tc || (out->flags & XFAB_PORT_QUEUED) ? (__u8)xfab_classify(&m) : 1;
	if (!pkt->is_tc && (out->flags & XFAB_PORT_QUEUED)) {
		act = xfab_stage_queue_xdp(&m, out->slot, res->tc, pkt->len, res, &qi);
		if (act != XFAB_ACT_FORWARD)
			return xfab_end(pkt, res, &acc, act, XFAB_STAGE_QUEUE);
	}

	/* Rewrite: MACs, TTL/hop limit, IPv4 checksum. */
	xfab_rewrite(&m, l3.dmac, out->mac);
	res->action = XFAB_ACT_FORWARD;
	res->egress_ifindex = l3.egress_ifindex;
	if (pkt->trace)
		return xfab_end(pkt, res, &acc, XFAB_ACT_FORWARD, XFAB_STAGE_REWRITE);
	xfab_count_tx(out->slot, pkt->len - (m.vlan_in_data ? 4 : 0));
	if ((cfg->flags & XFAB_SET_FLOWLET) && cfg->flowlet_mode == XFAB_FLOWLET_LEAST_LOADED)
		xfab_port_account_load(out->slot, pkt->len, bpf_ktime_get_ns(),
				       cfg->load_window_ns);
	return XFAB_ACT_FORWARD;
}

#endif
