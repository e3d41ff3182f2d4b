// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab data plane: two entry points around one pipeline (pipeline.h).
 *
 *   xfab_xdp  fast path: XDP on every port, DEVMAP redirect.
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

SEC("xdp")
int xfab_xdp(struct xdp_md *ctx)
{
	struct xfab_pkt pkt = {
	    .data = (void *)(long)ctx->data,
	    .data_end = (void *)(long)ctx->data_end,
	    .ingress_ifindex = ctx->ingress_ifindex,
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

	switch (xfab_pipeline(&pkt, &res)) {
	case XFAB_ACT_FORWARD:
		/* Tag in the frame or in skb metadata: strip it either way. */
		if ((res.vlan_in_data || skb->vlan_present) && bpf_skb_vlan_pop(skb))
			return TC_ACT_SHOT;
		return bpf_redirect(res.egress_ifindex, 0);
	case XFAB_ACT_PUNT:
		return TC_ACT_OK;
	default:
		return TC_ACT_SHOT;
	}
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
