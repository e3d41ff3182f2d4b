// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab data plane: two entry points around one pipeline (pipeline.h).
 *
 *   xfab_xdp  fast path: XDP on every port, DEVMAP redirect.
 *   xfab_xdp_trace  the same with trace recording, for `xfabctl trace`.
 *   xfab_tc   shaped path: tc ingress, bpf_redirect() to the egress device,
 *             whose qdisc is a real queue.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xfab_abi.h"
#include "xfab_hash.h"
#include "maps.h"
#include "pipeline.h"

/* Headers the pipeline may touch: Ethernet + VLAN + IPv6 + 8 extension
 * headers' worth + L4; tc pulls this much into the linear area. */
#define XFAB_TC_PULL_LEN 256

/* Removes the one tolerated 802.1Q tag: routed ports send untagged frames. */
static __always_inline int xfab_xdp_pop_vlan(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 16 > data_end)
		return -1;
	__builtin_memmove(data + 4, data, 12);
	return bpf_xdp_adjust_head(ctx, 4);
}

/* The XDP entry; trace is NULL, or the record of `xfabctl trace`. */
static __always_inline int xfab_xdp_run(struct xdp_md *ctx, struct xfab_trace *trace)
{
	struct xfab_pkt pkt = {
	    .data = (void *)(long)ctx->data,
	    .data_end = (void *)(long)ctx->data_end,
	    .ingress_ifindex = ctx->ingress_ifindex,
	    .trace = trace,
	};
	struct xfab_result res = {};

	pkt.len = pkt.data_end - pkt.data;
	switch (xfab_pipeline(&pkt, &res)) {
	case XFAB_ACT_FORWARD:
		if (res.vlan_in_data && xfab_xdp_pop_vlan(ctx))
			return XDP_ABORTED;
		return bpf_redirect_map(&tx_ports, res.egress_ifindex, 0);
	case XFAB_ACT_PUNT:
		return XDP_PASS;
	default:
		return XDP_DROP;
	}
}

SEC("xdp")
int xfab_xdp(struct xdp_md *ctx)
{
	return xfab_xdp_run(ctx, 0);
}

/* The same pipeline with tracing compiled in, for `xfabctl trace` (never
 * attached): it runs only a frame that carries a trace record in its XDP
 * metadata, records every stage there and changes no state. Two programs,
 * so neither is verified for both cases (5x fewer states each). */
SEC("xdp")
int xfab_xdp_trace(struct xdp_md *ctx)
{
	struct xfab_trace *trace = (void *)(long)ctx->data_meta;

	if ((void *)(trace + 1) > (void *)(long)ctx->data || trace->magic != XFAB_TRACE_MAGIC)
		return XDP_ABORTED;
	return xfab_xdp_run(ctx, trace);
}

SEC("tc")
int xfab_tc(struct __sk_buff *skb)
{
	struct xfab_pkt pkt = {};
	struct xfab_result res = {};
	__u32 pull = skb->len < XFAB_TC_PULL_LEN ? skb->len : XFAB_TC_PULL_LEN;

	/* Headers may sit in fragments; a failed pull leaves what is linear. */
	bpf_skb_pull_data(skb, pull);
	pkt.data = (void *)(long)skb->data;
	pkt.data_end = (void *)(long)skb->data_end;
	pkt.len = skb->len;
	pkt.ingress_ifindex = skb->ifindex;
	pkt.is_gso = skb->gso_segs > 1;
	pkt.is_tc = 1;

	switch (xfab_pipeline(&pkt, &res)) {
	case XFAB_ACT_FORWARD:
		/* Tag in the frame or in skb metadata: strip it either way. */
		if ((res.vlan_in_data || skb->vlan_present) && bpf_skb_vlan_pop(skb))
			return TC_ACT_SHOT;
		/* HTB class 1:(tc + 1) of the egress port is the class's queue. */
		skb->priority = 0x10000 | (res.tc + 1);
		return bpf_redirect(res.egress_ifindex, 0);
	case XFAB_ACT_PUNT:
		return TC_ACT_OK;
	default:
		return TC_ACT_SHOT;
	}
}

/* The kernel's sk_buff -> net_device -> Qdisc, for the qdisc backlog; CO-RE
 * relocates the offsets against this kernel's BTF. */
struct gnet_stats_queue___xfab {
	__u32 qlen;
	__u32 backlog;
} __attribute__((preserve_access_index));

struct Qdisc___xfab {
	struct gnet_stats_queue___xfab qstats;
} __attribute__((preserve_access_index));

struct net_device___xfab {
	struct Qdisc___xfab *qdisc;
} __attribute__((preserve_access_index));

struct sk_buff___xfab {
	struct net_device___xfab *dev;
} __attribute__((preserve_access_index));

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

/*
 * tc datapath, egress of every port: the queue decision against the real
 * queue. tcx egress runs before the qdisc enqueues the packet, so the root
 * qdisc's backlog is what this packet joins.
 */
SEC("tc")
int xfab_tc_egress(struct __sk_buff *skb)
{
	struct xfab_pkt pkt = {};
	struct xfab_meta m = {};
	struct xfab_result res = {};
	const struct xfab_queue_cfg *qc;
	const struct xfab_port *port;
	struct sk_buff___xfab *kskb;
	__u32 pull = skb->len < XFAB_TC_PULL_LEN ? skb->len : XFAB_TC_PULL_LEN, key, tc, backlog;
	__u8 dscp = 0, ecn = 0;
	int verdict;

	key = skb->ifindex;
	port = bpf_map_lookup_elem(&ports, &key);
	if (!port || port->ifindex != key)
		return TC_ACT_OK;
	key = port->slot;
	bpf_skb_pull_data(skb, pull);
	pkt.data = (void *)(long)skb->data;
	pkt.data_end = (void *)(long)skb->data_end;
	pkt.len = skb->len;
	if (xfab_parse_eth(&pkt, &m))
		return TC_ACT_OK;
	if (m.eth_proto == ETH_P_IP) {
		if (xfab_parse_ipv4(&pkt, &m))
			return TC_ACT_OK;
	} else if (m.eth_proto == ETH_P_IPV6) {
		if (xfab_parse_ipv6(&pkt, &m))
			return TC_ACT_OK;
	} else {
		return TC_ACT_OK; /* ARP and the like: not queued by class */
	}
	tc = xfab_classify(&m);
	key = XFAB_QUEUE_KEY(key, tc);
	qc = bpf_map_lookup_elem(&queue_cfg, &key);
	if (!qc)
		return TC_ACT_OK;
	kskb = bpf_cast_to_kern_ctx(skb);
	backlog = kskb->dev->qdisc->qstats.backlog;
	xfab_read_tos(&m, &dscp, &ecn);
	verdict = xfab_wred(qc, backlog, skb->len, ecn, bpf_get_prandom_u32());
	xfab_queue_account(key, verdict, skb->len, backlog);
	if (xfab_queue_apply(&m, verdict, &res) == XFAB_ACT_DROP) {
		xfab_count_reason(&drop_stats, res.reason, skb->len);
		return TC_ACT_SHOT;
	}
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
