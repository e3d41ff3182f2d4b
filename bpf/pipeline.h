/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The xfab pipeline, written once and hook-agnostic. The XDP and tc entry
 * points (xfab.bpf.c) describe their context in a struct xfab_ctx (ctx.h)
 * and call xfab_run(), which runs the stages and turns the result into the
 * hook's verdict, so both datapaths make the same decision and write the
 * same bytes.
 *
 *   port checks -> parse -> [MAC control: pause frames, consumed] ->
 *   punt rules -> [xdp: lossless class handed to tc] -> ingress ACL (acl.h) ->
 *   [overlay (vxlan.h): tenant port -> VNET table; to the VTEP -> decap ->
 *   VNET table] -> L3 lookup -> path select -> neighbour -> egress checks
 *   -> [encap] -> queue -> rewrite -> counters; a punt, wherever it is
 *   decided, passes its CoPP group's meter on the way out (copp.h)
 *
 * Per-packet state lives in the CPU's scratch slot (scratch.h), not on the
 * stack; headers are found from the context and the parser's offsets.
 */
#ifndef XFAB_BPF_PIPELINE_H
#define XFAB_BPF_PIPELINE_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xfab_abi.h"
#include "maps.h"
#include "ctx.h"
#include "scratch.h"
#include "counters.h"
#include "parse.h"
#include "l3.h"
#include "qos.h"
#include "pfc.h"
#include "vxlan.h"
#include "copp.h"
#include "acl.h"
#include "bench.h"
#include "spec.h"

static __always_inline int xfab_mac_is_multicast(const __u8 *mac)
{
	return mac[0] & 1;
}

/* Ethernet sanity, ARP/non-IP punts, router-MAC check. Returns an action. */
static __always_inline int xfab_stage_l2(const struct xfab_ctx *c, const struct xfab_meta *m,
					 const struct xfab_port *in, struct xfab_result *res)
{
	struct ethhdr *eth = xfab_ctx_hdr(c, 0, sizeof(*eth));

	if (!eth) /* parsed already: cannot happen */
		return xfab_drop(res, XFAB_DROP_ETH_TRUNCATED);
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

/* Address-class punts and drops that need no table (the parser copied the
 * addresses into the flow; VXLAN's inner flow comes later). */
static __always_inline int xfab_stage_ipv4_class(const struct xfab_meta *m, struct xfab_result *res)
{
	__u32 saddr = bpf_ntohl(m->flow.src[0]);
	__u32 daddr = bpf_ntohl(m->flow.dst[0]);

	/* RFC 1812 5.3.7's martians: multicast, class E and the limited
	 * broadcast (240/4 holds it), loopback, network 0 */
	if ((saddr >> 28) >= 0xe || (saddr >> 24) == 127 || (saddr >> 24) == 0)
		return xfab_drop(res, XFAB_DROP_BAD_SRC_ADDR);
	if ((daddr >> 28) == 0xe || daddr == 0xffffffff)
		return xfab_punt(res, XFAB_PUNT_MULTICAST);
	if ((daddr >> 16) == 0xa9fe || (saddr >> 16) == 0xa9fe)
		return xfab_punt(res, XFAB_PUNT_LINK_LOCAL);
	return XFAB_ACT_FORWARD;
}

static __always_inline int xfab_stage_ipv6_class(const struct xfab_meta *m, struct xfab_result *res)
{
	const __u8 *src = (const __u8 *)m->flow.src, *dst = (const __u8 *)m->flow.dst;
	__u8 s0 = src[0], s1 = src[1], d0 = dst[0], d1 = dst[1];

	/* multicast, and RFC 4291 2.5.2/2.5.3: never forwarded from the
	 * unspecified address (::) or the loopback address (::1) */
	if (s0 == 0xff || (!(m->flow.src[0] | m->flow.src[1] | m->flow.src[2]) &&
			   (m->flow.src[3] == 0 || m->flow.src[3] == bpf_htonl(1))))
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

/* The frame's bytes as it came in, for the ingress port's rx counters; 0
 * when it was counted already (XDP counted what it handed over to tc). */
static __always_inline __u32 xfab_rx_bytes(const struct xfab_ctx *c, const struct xfab_scratch *s)
{
	return c->handoff ? 0 : s->rx_len;
}

/* The pipeline stopped for the bench (bench.h): out as it is. */
static __always_inline int xfab_bench_out(struct xfab_scratch *s)
{
	s->res.egress_ifindex = xfab_bench_port;
	s->res.egress_slot = (__u8)xfab_bench_slot;
	return XFAB_ACT_FORWARD;
}

/* Every exit of the pipeline: counts the outcome, or, tracing, copies what
 * the stages gathered in scratch into the trace record (tracing adds no
 * branches in the middle of the pipeline). */
static __always_inline int xfab_end(const struct xfab_ctx *c, struct xfab_scratch *s, int act,
				    __u8 stage)
{
	struct xfab_trace *t;

	if (!c->tracing) {
		/* a punt passes its CoPP group's meter (copp.h) or is dropped */
		if (xfab_code_on(XFAB_CODE_COPP) && act == XFAB_ACT_PUNT)
			act = xfab_copp(c, s);
		/* no overlay bit test here: without its code both are 0, and
		 * one more test spills past the stack check's 384 bytes */
		if (s->ov.mode | s->ov.vnet)
			xfab_count_vnet_end(s->ov.vnet, act, s->res.reason, c->len);
		return xfab_finish(&s->res, s->slot, c->len, act, xfab_rx_bytes(c, s));
	}
	t = xfab_ctx_trace(c);
	if (!t)
		return act;
	t->action = (__u8)act;
	t->reason = (__u8)s->res.reason;
	t->stage = stage;
	t->ingress_slot = s->slot;
	t->l4_proto = s->m.l4_proto;
	t->qp = s->m.flow.qp;
	t->flags = s->l3.flags | s->l3.pick.flags | (s->m.is_roce ? XFAB_TRACE_ROCE : 0);
	t->route_type = s->l3.route_type;
	t->group = s->l3.group;
	t->nexthop = s->l3.nh_id;
	t->hash = s->l3.pick.hash;
	t->bucket = s->l3.pick.bucket;
	t->flowlet_idle_ns = s->l3.pick.idle_ns;
	t->egress_ifindex = s->l3.egress_ifindex;
	t->tc = s->res.tc;
	t->occupancy = s->qi.occupancy;
	t->queue_verdict = (__u8)s->qi.verdict;
	t->overlay = s->ov.mode;
	t->vnet = s->ov.vnet;
	t->vni = s->ov.vni;
	t->endpoint = s->ov.endpoint;
	return act;
}

/* Too big for the egress port's MTU: the kernel fragments or says so. A
 * tenant packet too big for its tunnel (the encapsulation adds 50 bytes)
 * is never sent cut or fragmented: IPv4 with DF and IPv6 go to the kernel,
 * which answers with ICMP (docs/OVERLAY.md), IPv4 without DF is dropped. */
static __always_inline int xfab_too_big(const struct xfab_scratch *s, struct xfab_result *res)
{
	if (s->ov.mode != XFAB_OVERLAY_ENCAP)
		return xfab_punt(res, XFAB_PUNT_MTU_EXCEEDED);
	if (s->ov.inner_v6 || s->ov.inner_df)
		return xfab_punt(res, XFAB_PUNT_VNET_TOO_BIG);
	return xfab_drop(res, XFAB_DROP_VNET_MTU);
}

/*
 * The stages, in the order of the pipeline. Each returns XFAB_PL_NEXT when
 * the packet goes on to the next stage, or XFAB_PL_DONE when it decided:
 * the pipeline's verdict is then in the stage context, its end recorded
 * already (xfab_end: counted, or traced).
 */
#define XFAB_PL_NEXT 0
#define XFAB_PL_DONE 1

/* What the stages hand on beside the scratch slot: pointers to map values
 * stay in registers or on the stack, because a pointer stored in a map
 * value is a plain number to the verifier. */
struct xfab_pl {
	const struct xfab_settings *cfg;
	const struct xfab_port *in; /* the ingress port's entry */
	/* the egress port's figures, from the egress checks on: the path's
	 * nexthop's copy of them (scratch, struct xfab_l3_decision) */
	const struct xfab_nh_port *out;
	/* The lookups' keys, in the pipeline's frame (a helper takes their
	 * address): settings_key is 0; port_key the ingress port's ifindex,
	 * from the egress checks on the egress port's. Kept where the
	 * one-function pipeline had them, the stages compile to its very
	 * instructions and stack layout (the verifier's work depends on it). */
	__u32 *settings_key;
	__u32 *port_key;
	int verdict; /* enum xfab_action, once a stage is XFAB_PL_DONE */
};

/* A stage decided: verdict is the pipeline's. */
static __always_inline int xfab_pl_done(struct xfab_pl *p, int verdict)
{
	p->verdict = verdict;
	return XFAB_PL_DONE;
}

/* A stage decided act: the pipeline ends (xfab_end) at that stage. */
static __always_inline int xfab_pl_end(const struct xfab_ctx *c, struct xfab_scratch *s,
				       struct xfab_pl *p, int act, __u8 stage)
{
	return xfab_pl_done(p, xfab_end(c, s, act, stage));
}

/* Start: clears what every packet reads back and finds the settings. The
 * rest of the L3 decision and the queue's figures are read back only by a
 * trace (group selection's hash input is written whole). */
static __always_inline int xfab_pl_start(const struct xfab_ctx *c, struct xfab_scratch *s,
					 struct xfab_pl *p)
{
	__builtin_memset(&s->m, 0, sizeof(s->m));
	__builtin_memset(&s->res, 0, sizeof(s->res));
	if (c->tracing) {
		__builtin_memset(&s->l3, 0, sizeof(s->l3));
		__builtin_memset(&s->qi, 0, sizeof(s->qi));
	} else {
		s->l3.flags = 0;
		s->l3.egress_live = 0;
		s->l3.pick.flags = 0;
		s->l3.pick.live = 0;
	}
	s->res.tracing = c->tracing;
	s->l3.pick.tracing = c->tracing;
	s->ov.mode = XFAB_OVERLAY_NONE;
	s->ov.vnet = 0;
	if (c->tracing) {
		s->ov.vni = 0;
		s->ov.endpoint = 0;
	}
	p->cfg = bpf_map_lookup_elem(&settings, p->settings_key);
	if (!p->cfg) /* an ARRAY always has index 0; this satisfies the verifier */
		return xfab_pl_done(p, XFAB_ACT_DROP);
	return XFAB_PL_NEXT;
}

/* Port checks: only ports xfabd configured, and only while up. A port it
 * does not know has no slot: its packets are counted apart. */
static __always_inline int xfab_pl_port(const struct xfab_ctx *c, struct xfab_scratch *s,
					struct xfab_pl *p)
{
	struct xfab_result *res = &s->res;
	const struct xfab_port *in;

	*p->port_key = c->ingress_ifindex;
	in = bpf_map_lookup_elem(&ports, p->port_key);
	if (!in || in->ifindex != *p->port_key) {
		if (c->tracing) {
			xfab_drop(res, XFAB_DROP_PORT_UNKNOWN);
			return xfab_pl_end(c, s, p, XFAB_ACT_DROP, XFAB_STAGE_PORT);
		}
		return xfab_pl_done(p, xfab_count_unknown_port(res, c->len));
	}
	p->in = in;
	s->slot = in->slot;
	s->rx_len = c->len;
	if ((in->flags & XFAB_PORT_ADMIN_UP) == 0)
		return xfab_pl_end(c, s, p, xfab_drop(res, XFAB_DROP_PORT_DOWN), XFAB_STAGE_PORT);
	return XFAB_PL_NEXT;
}

/* Pause frames (pfc.h): consumed, counted in pfc_state, never a drop (a
 * bad one is); the port's rx counters count them. */
static __always_inline int xfab_pl_mac_control(const struct xfab_ctx *c, struct xfab_scratch *s,
					       struct xfab_pl *p)
{
	int err = xfab_pfc_rx(c, s, p->in);

	if (err)
		return xfab_pl_end(c, s, p, xfab_drop(&s->res, err), XFAB_STAGE_CLASSIFY);
	if (c->tracing)
		return xfab_pl_end(c, s, p, XFAB_ACT_DROP, XFAB_STAGE_CLASSIFY);
	xfab_count_rx(s->slot, s->rx_len);
	return xfab_pl_done(p, XFAB_ACT_DROP);
}

/* Parse: Ethernet, and the IP header's fields (parse.h: judged by the
 * validation stage, which reports what parsing met in order). A pause
 * frame ends here; every other frame pays one compare for it. */
static __always_inline int xfab_pl_parse(struct xfab_ctx *c, struct xfab_scratch *s,
					 struct xfab_pl *p, int bench)
{
	struct xfab_meta *m = &s->m;
	int err;

	err = xfab_parse_eth(c, m);
	if (err)
		return xfab_pl_end(c, s, p, xfab_drop(&s->res, -err), XFAB_STAGE_PARSE);
	s->res.vlan_in_data = m->vlan_in_data;
	if (m->eth_proto == XFAB_ETH_P_MAC_CONTROL)
		return xfab_pl_mac_control(c, s, p);
	if (m->eth_proto == ETH_P_IP)
		xfab_parse_ipv4(c, m);
	else if (m->eth_proto == ETH_P_IPV6)
		xfab_parse_ipv6(c, m);
	if (xfab_bench_stops_after(bench, XFAB_BENCH_PARSE))
		return xfab_pl_done(p, xfab_bench_out(s));
	return XFAB_PL_NEXT;
}

/* Validate: L2 rules, the IP header (RFC 1812), address classes; what
 * fails is dropped or punted here, before any table is read. */
static __always_inline int xfab_pl_validate(const struct xfab_ctx *c, struct xfab_scratch *s,
					    struct xfab_pl *p)
{
	struct xfab_meta *m = &s->m;
	struct xfab_result *res = &s->res;
	int act, err;

	act = xfab_stage_l2(c, m, p->in, res);
	if (act != XFAB_ACT_FORWARD)
		return xfab_pl_end(c, s, p, act, XFAB_STAGE_CLASSIFY);
	if (m->eth_proto == ETH_P_IP) {
		err = xfab_validate_ipv4(c, m);
		if (err)
			return xfab_pl_end(c, s, p, xfab_drop(res, -err), XFAB_STAGE_PARSE);
		act = xfab_stage_ipv4_class(m, res);
	} else {
		err = xfab_validate_ipv6(c, m);
		if (err)
			return xfab_pl_end(c, s, p, xfab_drop(res, -err), XFAB_STAGE_PARSE);
		act = xfab_stage_ipv6_class(m, res);
	}
	if (act != XFAB_ACT_FORWARD)
		return xfab_pl_end(c, s, p, act, XFAB_STAGE_CLASSIFY);
	return XFAB_PL_NEXT;
}

/* xdp datapath: a lossless class takes the tc path (pfc.h), which has the
 * real queues; XDP decided the punts and drops above. A trace follows it
 * on (the tc path's decision is the same). */
static __always_inline int xfab_pl_handoff(const struct xfab_ctx *c, struct xfab_scratch *s,
					   struct xfab_pl *p, int bench)
{
	const struct xfab_port *in = p->in;
	const struct xfab_meta *m = &s->m;

	if (xfab_code_on(XFAB_CODE_PFC) && !c->is_tc && !c->tracing &&
	    (in->flags & XFAB_PORT_LOSSLESS) && xfab_pfc_is_lossless(in->slot, m) &&
	    xfab_pfc_handoff(c->ctx)) {
		xfab_count_rx(s->slot, s->rx_len);
		/* XDP_PASS, not counted as a punt: the tc path counts it */
		return xfab_pl_done(p, XFAB_ACT_PUNT);
	}
	if (xfab_bench_stops_after(bench, XFAB_BENCH_VALIDATE))
		return xfab_pl_done(p, xfab_bench_out(s));
	return XFAB_PL_NEXT;
}

/* The ingress ACL (acl.h) judges transit packets; the punts above are
 * decided, packets to the switch's addresses pass it. */
static __always_inline int xfab_pl_acl(const struct xfab_ctx *c, struct xfab_scratch *s,
				       struct xfab_pl *p)
{
	int act;

	if (!xfab_code_on(XFAB_CODE_ACL))
		return XFAB_PL_NEXT;
	act = xfab_stage_acl(c, s);
	if (act != XFAB_ACT_FORWARD)
		return xfab_pl_end(c, s, p, act, XFAB_STAGE_CLASSIFY);
	return XFAB_PL_NEXT;
}

/* Overlay (vxlan.h): a tenant port's packet is routed in its VNET's
 * table; a tunnel packet to this VTEP is decapsulated, its inner packet
 * judged by the address rules and routed in its VNI's. */
static __always_inline int xfab_pl_overlay(struct xfab_ctx *c, struct xfab_scratch *s,
					   struct xfab_pl *p)
{
	struct xfab_meta *m = &s->m;
	struct xfab_result *res = &s->res;
	int act;

	if (!xfab_code_on(XFAB_CODE_OVERLAY))
		return XFAB_PL_NEXT;
	if (p->in->vnet) {
		act = xfab_stage_vnet(c, s, p->cfg, p->in->vnet, 0);
		if (act != XFAB_ACT_FORWARD)
			return xfab_pl_end(c, s, p, act, XFAB_STAGE_L3);
	} else if (xfab_is_vxlan_to_vtep(m)) {
		act = xfab_stage_decap(c, s);
		if (act != XFAB_ACT_FORWARD)
			return xfab_pl_end(c, s, p, act, XFAB_STAGE_PARSE);
		act = m->is_v6 ? xfab_stage_ipv6_class(m, res) : xfab_stage_ipv4_class(m, res);
		if (act == XFAB_ACT_FORWARD)
			act = xfab_stage_vnet(c, s, p->cfg, s->ov.vnet, 1);
		if (act != XFAB_ACT_FORWARD)
			return xfab_pl_end(c, s, p, act, XFAB_STAGE_L3);
	}
	return XFAB_PL_NEXT;
}

/* TE override, route lookup, path selection, neighbour (l3.h): the
 * underlay's, for its own packets and for the tunnel's outer one (the
 * overlay stage chose a decapsulated or local tenant packet's path). */
static __always_inline int xfab_pl_route(struct xfab_ctx *c, struct xfab_scratch *s,
					 struct xfab_pl *p, int bench)
{
	struct xfab_result *res = &s->res;
	int act;

	if (s->ov.mode == XFAB_OVERLAY_NONE || s->ov.mode == XFAB_OVERLAY_ENCAP) {
		if (xfab_code_on(XFAB_CODE_INNER_HASH) && s->ov.mode == XFAB_OVERLAY_NONE &&
		    (p->cfg->hash_fields & XFAB_HASH_F_INNER))
			xfab_parse_vxlan_inner(c, &s->m);
		act = xfab_stage_l3(s, p->cfg, *p->port_key, c->tracing, bench);
		if ((xfab_bench_stops_after(bench, XFAB_BENCH_FIB) ||
		     xfab_bench_stops_after(bench, XFAB_BENCH_PICK)) &&
		    act == XFAB_ACT_BENCH)
			return xfab_pl_done(p, xfab_bench_out(s));
		/* the kernel never gets a tenant packet to send in the underlay */
		if (act == XFAB_ACT_PUNT && s->ov.mode == XFAB_OVERLAY_ENCAP)
			act = xfab_drop(res, XFAB_DROP_VNET_UNDERLAY_PUNT);
		if (act != XFAB_ACT_FORWARD)
			return xfab_pl_end(c, s, p, act, XFAB_STAGE_L3);
	}
	if (xfab_bench_stops_after(bench, XFAB_BENCH_NEXTHOP))
		return xfab_pl_done(p, xfab_bench_out(s));
	return XFAB_PL_NEXT;
}

/* Egress checks: the chosen port is ours and up (its device live, unless
 * path selection saw it so), the packet's tenant's, and its MTU holds the
 * packet; a tunnel's packet is encapsulated once its path is known. The
 * port's figures come with the path (nexthop.h: the nexthop's record, or
 * a connected neighbour's port entry): no ports lookup here. */
static __always_inline int xfab_pl_egress(struct xfab_ctx *c, struct xfab_scratch *s,
					  struct xfab_pl *p)
{
	const struct xfab_meta *m = &s->m;
	struct xfab_result *res = &s->res;
	const struct xfab_nh_port *out = &s->l3.out;
	int err;

	*p->port_key = s->l3.egress_ifindex;
	if (!s->l3.egress_live &&
	    ((out->flags & XFAB_PORT_UP) != XFAB_PORT_UP || !xfab_port_dev_live(*p->port_key)))
		return xfab_pl_end(c, s, p, xfab_drop(res, XFAB_DROP_EGRESS_DOWN),
				   XFAB_STAGE_EGRESS);
	/* Tenants stay apart: a tenant's packet leaves through a port of its
	 * VNET or, encapsulated, the underlay; the underlay's never through
	 * a tenant's port. */
	if (xfab_code_on(XFAB_CODE_OVERLAY) &&
	    out->vnet != (s->ov.mode == XFAB_OVERLAY_ENCAP ? 0 : s->ov.vnet))
		return xfab_pl_end(c, s, p, xfab_drop(res, XFAB_DROP_VNET_CROSS),
				   XFAB_STAGE_EGRESS);
	if (!c->is_gso && m->l3_len > out->mtu)
		return xfab_pl_end(c, s, p, xfab_too_big(s, res), XFAB_STAGE_EGRESS);
	if (xfab_code_on(XFAB_CODE_OVERLAY) && s->ov.mode == XFAB_OVERLAY_ENCAP) {
		err = xfab_encap(c, s);
		if (err)
			return xfab_pl_end(c, s, p, xfab_drop(res, err), XFAB_STAGE_EGRESS);
	}
	p->out = out;
	return XFAB_PL_NEXT;
}

/* tc: a lossless class is charged to its ingress PG as it leaves (pfc.h),
 * out of device *out_ifindex, at the length it will have (a tag in the
 * data comes off): XFAB_ACT_FORWARD, or the watchdog's drop, counted here
 * as xfab_end counts a drop (rx_bytes: the arrival's, unless counted).
 * A subprogram: inlined, it (and a second xfab_end) took xfab_tc's frame
 * past the stack budget (xfab-stackcheck). Scalars and map values only: the
 * context struct passed by address would stop the compiler folding its
 * constant fields (is_tc), which the verifier needs. */
static __attribute__((noinline)) int xfab_pl_pfc(struct __sk_buff *skb, struct xfab_scratch *s,
						 const struct xfab_nh_port *out,
						 const __u32 *out_ifindex, __u32 rx_bytes)
{
	__u32 why = xfab_pfc_tc_forward(skb, s->slot, skb->ifindex, out, out_ifindex, s->res.tc,
					skb->len - (s->m.vlan_in_data ? 4 : 0));

	if (!why)
		return XFAB_ACT_FORWARD;
	xfab_drop(&s->res, why);
	if (s->ov.mode | s->ov.vnet)
		xfab_count_vnet_end(s->ov.vnet, XFAB_ACT_DROP, why, skb->len);
	return xfab_finish(&s->res, s->slot, skb->len, XFAB_ACT_DROP, rx_bytes);
}

/* Queue: the egress (port, class) may mark CE or drop. In the tc datapath
 * the egress program does this against the real qdisc, and a lossless
 * class is charged here (pfc.h). */
static __always_inline int xfab_pl_queue(const struct xfab_ctx *c, struct xfab_scratch *s,
					 struct xfab_pl *p, int bench)
{
	const struct xfab_nh_port *out = p->out;
	const struct xfab_meta *m = &s->m;
	struct xfab_result *res = &s->res;
	int queued = xfab_code_on(XFAB_CODE_QUEUE) && (out->flags & XFAB_PORT_QUEUED), act;

	res->tc = c->is_tc || queued ? (__u8)xfab_classify(m) : 1;
	/* the queue holds the frame as it leaves: a tag in the data comes off
	 * at the rewrite (as the tx counters and tc's egress count it) */
	if (!c->is_tc && queued) {
		act = xfab_stage_queue_xdp(c, m, out->slot, res->tc,
					   c->len - (m->vlan_in_data ? 4 : 0), res, &s->qi,
					   &s->clock);
		if (act != XFAB_ACT_FORWARD)
			return xfab_pl_end(c, s, p, act, XFAB_STAGE_QUEUE);
	}
	/* tc: a lossless class charged (or the watchdog's drop, counted) */
	if (c->is_tc && xfab_code_on(XFAB_CODE_PFC) && !c->tracing &&
	    ((p->in->flags | out->flags) & XFAB_PORT_LOSSLESS) &&
	    xfab_pl_pfc(c->ctx, s, out, p->port_key, xfab_rx_bytes(c, s)) != XFAB_ACT_FORWARD)
		return xfab_pl_done(p, XFAB_ACT_DROP);
	if (xfab_bench_stops_after(bench, XFAB_BENCH_QUEUE))
		return xfab_pl_done(p, xfab_bench_out(s));
	return XFAB_PL_NEXT;
}

/* Rewrite: MACs, TTL/hop limit, IPv4 checksum; the result names the
 * egress port. A trace ends here, having counted nothing. */
static __always_inline int xfab_pl_rewrite(struct xfab_ctx *c, struct xfab_scratch *s,
					   struct xfab_pl *p, int bench)
{
	const struct xfab_nh_port *out = p->out;
	struct xfab_meta *m = &s->m;
	struct xfab_result *res = &s->res;

	xfab_rewrite(c, m, s->l3.dmac, out->smac, s->ov.mode != XFAB_OVERLAY_ENCAP);
	res->action = XFAB_ACT_FORWARD;
	res->egress_ifindex = *p->port_key;
	res->egress_slot = (__u8)out->slot;
	if (c->tracing)
		return xfab_pl_end(c, s, p, XFAB_ACT_FORWARD, XFAB_STAGE_REWRITE);
	if (xfab_bench_stops_after(bench, XFAB_BENCH_REWRITE))
		return xfab_pl_done(p, XFAB_ACT_FORWARD);
	return XFAB_PL_NEXT;
}

/* Counters: the ports' (rx and tx), the tenant's, and the egress port's
 * load when flowlets pick the least loaded member. */
static __always_inline int xfab_pl_count(const struct xfab_ctx *c, struct xfab_scratch *s,
					 const struct xfab_pl *p)
{
	const struct xfab_settings *cfg = p->cfg;
	const struct xfab_nh_port *out = p->out;
	const struct xfab_meta *m = &s->m;

	xfab_count_forward(s->slot, xfab_rx_bytes(c, s), out->slot,
			   c->len - (m->vlan_in_data ? 4 : 0));
	if (xfab_code_on(XFAB_CODE_OVERLAY) &&
	    (s->ov.mode == XFAB_OVERLAY_ENCAP || s->ov.mode == XFAB_OVERLAY_DECAP))
		xfab_count_vnet(s->ov.vnet, s->ov.mode == XFAB_OVERLAY_DECAP, s->ov.inner_len);
	if (xfab_code_on(XFAB_CODE_FLOWLET) && (cfg->flags & XFAB_SET_FLOWLET) &&
	    cfg->flowlet_mode == XFAB_FLOWLET_LEAST_LOADED)
		xfab_port_account_load(out->slot, c->len, xfab_clock_now(&s->clock),
				       cfg->load_window_ns);
	return XFAB_ACT_FORWARD;
}

/* The pipeline: the stages in order, each deciding or handing on. */
static __always_inline int xfab_pipeline(struct xfab_ctx *c, struct xfab_scratch *s, int bench)
{
	__u32 settings_key = 0, port_key;
	struct xfab_pl p = {.settings_key = &settings_key, .port_key = &port_key};

	if (xfab_pl_start(c, s, &p) ||		/* scratch cleared, the settings */
	    xfab_pl_port(c, s, &p) ||		/* ingress port known and up */
	    xfab_pl_parse(c, s, &p, bench) ||	/* Ethernet, IP fields; pause frames */
	    xfab_pl_validate(c, s, &p) ||	/* L2 rules, RFC 1812, address classes */
	    xfab_pl_handoff(c, s, &p, bench) || /* xdp: lossless classes to tc */
	    xfab_pl_acl(c, s, &p) ||		/* ingress ACL */
	    xfab_pl_overlay(c, s, &p) ||	/* tenant table, VXLAN decap */
	    xfab_pl_route(c, s, &p, bench) ||	/* TE, route, path, neighbour */
	    xfab_pl_egress(c, s, &p) ||		/* egress port up, tenant, MTU; encap */
	    xfab_pl_queue(c, s, &p, bench) ||	/* class, queue, ECN */
	    xfab_pl_rewrite(c, s, &p, bench))	/* MACs, TTL, checksum */
		return p.verdict;
	return xfab_pl_count(c, s, &p); /* counters */
}

/* One packet through the pipeline; the hook's verdict. bench: the
 * instance with make bench's stage checks (bench.h). */
static __always_inline int xfab_run(struct xfab_ctx *c, int bench)
{
	struct xfab_scratch *s = xfab_scratch(c->tracing ? XFAB_SCRATCH_TRACE : XFAB_SCRATCH_DATA);
	int act;

	if (!s) /* a per-CPU array always has its slots */
		return xfab_ctx_verdict(c, XFAB_ACT_DROP, 0, 0, 0, 0);
	act = xfab_pipeline(c, s, bench);
	return xfab_ctx_verdict(c, act, s->res.egress_ifindex, s->res.egress_slot,
				s->res.vlan_in_data, s->res.tc);
}

#endif
