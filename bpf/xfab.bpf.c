// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab data plane: two entry points around one pipeline (pipeline.h).
 *
 *   xfab_xdp  fast path: XDP on every port, DEVMAP redirect.
 *   xfab_xdp_trace  the same with trace recording, for `xfabctl trace`.
 *   xfab_tc   shaped path: tc ingress, bpf_redirect() to the egress device,
 *             whose qdisc is a real queue.
 *   xfab_tc_handoff  the same for the lossless packets XDP hands over on
 *             a port of the xdp datapath (bpf/pfc.h).
 *   xfab_xdp_egress  the DEVMAP program of every port (xdp datapath): a
 *             device that went down is taken out of use at its first frame.
 *   xfab_pfc_dequeue  BTF tracepoint net_dev_start_xmit: a lossless
 *             packet leaving a port gives its ingress PG the bytes back.
 *   xfab_pfc_drop  BTF tracepoint kfree_skb: so does one dropped instead.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "xfab_abi.h"
#include "ctx.h"
#include "scratch.h"
#include "kern.h"
#include "pipeline.h"
#include "fast.h"
#include "pfc.h"
#include "bench.h"

SEC("xdp")
int xfab_xdp(struct xdp_md *ctx)
{
	struct xfab_ctx c;
	int act;

	xfab_ctx_init_xdp(&c, ctx, 0);
	xfab_port_dev_note(c.ingress_ifindex,
			   ((struct xdp_buff___xfab *)bpf_cast_to_kern_ctx(ctx))->rxq->dev);
	act = xfab_fast(&c); /* the common packet in one pass (fast.h) */
	if (act != XFAB_FAST_PIPELINE)
		return act;
	return xfab_run(&c, 0);
}

/* make bench's stage builds (bench.h): the pipeline with its stage checks,
 * a program of its own that xfabd loads and attaches in xfab_xdp's place
 * only when told to (--bench-stop); a switch never loads it. */
SEC("xdp")
int xfab_xdp_bench(struct xdp_md *ctx)
{
	struct xfab_ctx c;

	xfab_ctx_init_xdp(&c, ctx, 0);
	xfab_port_dev_note(c.ingress_ifindex,
			   ((struct xdp_buff___xfab *)bpf_cast_to_kern_ctx(ctx))->rxq->dev);
	return xfab_run(&c, 1);
}

/* The same pipeline with tracing compiled in, for `xfabctl trace` (never
 * attached): it runs only a frame that carries a trace record in its XDP
 * metadata, records every stage there and changes no state. Two programs,
 * so neither is verified for both cases. */
SEC("xdp")
int xfab_xdp_trace(struct xdp_md *ctx)
{
	struct xfab_ctx c;

	xfab_ctx_init_xdp(&c, ctx, 1);
	if (!xfab_ctx_trace(&c))
		return XDP_ABORTED;
	return xfab_run(&c, 0);
}

static __always_inline int xfab_tc_run(struct __sk_buff *skb, int handoff)
{
	struct xfab_ctx c;
	int act;

	xfab_ctx_init_tc(&c, skb);
	c.handoff = (__u8)handoff;
	xfab_port_dev_note(c.ingress_ifindex,
			   ((struct sk_buff___xfab *)bpf_cast_to_kern_ctx(skb))->dev);
	/* the common packet in one pass (fast.h); XDP counted a handoff's
	 * arrival, and what it hands over is a lossless class: the pipeline's */
	if (!handoff) {
		act = xfab_fast(&c);
		if (act != XFAB_FAST_PIPELINE)
			return act;
	}
	return xfab_run(&c, 0);
}

SEC("tc")
int xfab_tc(struct __sk_buff *skb)
{
	return xfab_tc_run(skb, 0);
}

/*
 * tc ingress of a port of the xdp datapath that has lossless classes: the
 * packets XDP handed off (pfc.h; XDP counted their arrival) take the tc
 * path, whatever else XDP passed is the kernel's. A program of its own:
 * which one is attached decides, at no cost per packet.
 */
SEC("tc")
int xfab_tc_handoff(struct __sk_buff *skb)
{
	if (!xfab_pfc_handed_off(skb))
		return TC_ACT_OK;
	return xfab_tc_run(skb, 1);
}

/*
 * tc datapath, a port that went down under its packets. The pipeline chose
 * this port while the ports table said it was up: the device lost its
 * carrier or was taken down, and xfabd (which hears it over netlink, a
 * little later) has not yet said so. The kernel would drop the packet here.
 * Instead the data plane takes the port out of use itself (the egress
 * program noted the device in port_dev, which the pipeline's device check
 * reads, and the ports table's OPER_UP is cleared until xfabd writes it
 * again when it hears the event) and sends the packet back into the ingress of the port it came in
 * on, its destination MAC that port's again: the pipeline decides once more, with the port down
 * (another member of its group, or LOCAL_REPAIR's bounce). The pass costs the packet one more hop
 * of TTL, which bounds it. Only packets the pipeline forwarded (skb->priority major 1, ctx.h) come
 * here: the kernel's own are the kernel's.
 */
static __always_inline int xfab_tc_egress_down(struct __sk_buff *skb, struct xfab_port *port)
{
	__u32 in = skb->ingress_ifindex;
	const struct xfab_port *from;
	void *data, *end;

	if ((skb->priority >> 16) != 1 || in == skb->ifindex)
		return TC_ACT_OK;
	from = bpf_map_lookup_elem(&ports, &in);
	if (!from || from->ifindex != in)
		return TC_ACT_OK;
	if (port->flags & XFAB_PORT_OPER_UP)
		__sync_fetch_and_and(&port->flags, ~XFAB_PORT_OPER_UP);
	data = (void *)(long)skb->data;
	end = (void *)(long)skb->data_end;
	if (data + ETH_HLEN > end)
		return TC_ACT_SHOT;
	__builtin_memcpy(((struct ethhdr *)data)->h_dest, from->mac, ETH_ALEN);
	/* charged as it was forwarded here: its bytes go back before the
	 * pipeline charges it again for the port it picks next */
	if ((skb->mark & XFAB_PFC_MARK_MASK) == XFAB_PFC_MARK) {
		xfab_pfc_credit(skb->mark, skb->len, in, port->slot);
		skb->mark = 0;
	}
	xfab_count_lb(XFAB_LB_REROUTED);
	return bpf_redirect(in, BPF_F_INGRESS);
}

/*
 * tc datapath, egress of the ports that need it (xfabd decides:
 * user/agent/ports.c's port_wants_egress): the queue decision against the
 * real queue, and the guard of a port whose device the data plane has not
 * seen yet. tcx egress runs before the qdisc enqueues the packet, so the
 * root qdisc's backlog is what this packet joins. A plain port whose device
 * was seen has no egress program: the pipeline reads the device before it
 * sends there (bpf/kern.h) and counts tx itself. Lossless classes are
 * charged by the ingress program (pfc.h's xfab_pfc_tc_forward).
 */
SEC("tc")
int xfab_tc_egress(struct __sk_buff *skb)
{
	const struct xfab_queue_cfg *qc;
	struct net_device___xfab *dev;
	struct sk_buff___xfab *kskb;
	struct xfab_port *port;
	struct xfab_scratch *s;
	struct xfab_ctx c;
	__u32 key, backlog;
	__u8 dscp, ecn;
	int verdict;

	key = skb->ifindex;
	port = bpf_map_lookup_elem(&ports, &key);
	if (!port || port->ifindex != key)
		return TC_ACT_OK;
	kskb = bpf_cast_to_kern_ctx(skb);
	dev = kskb->dev;
	/* a port that only transmits is known to the dequeue program too */
	xfab_port_dev_note(key, dev);
	if (!xfab_dev_carries(dev))
		return xfab_tc_egress_down(skb, port);
	/* no queue to decide against (no rate, buffer or WRED profile):
	 * nothing more to do here (as the xdp datapath's queue stage, which
	 * such a port skips too) */
	if (!(port->flags & XFAB_PORT_QUEUED))
		return TC_ACT_OK;
	s = xfab_scratch(XFAB_SCRATCH_EGRESS);
	if (!s)
		return TC_ACT_OK;
	__builtin_memset(&s->m, 0, sizeof(s->m));
	xfab_ctx_init_tc(&c, skb);
	if (xfab_parse_eth(&c, &s->m))
		return TC_ACT_OK;
	if (s->m.eth_proto != ETH_P_IP && s->m.eth_proto != ETH_P_IPV6)
		return TC_ACT_OK; /* ARP and the like: not queued by class */
	if (xfab_parse_ip(&c, &s->m))
		return TC_ACT_OK;
	key = XFAB_QUEUE_KEY(port->slot, xfab_classify(&s->m));
	qc = bpf_map_lookup_elem(&queue_cfg, &key);
	if (!qc)
		return TC_ACT_OK;
	backlog = dev->qdisc->qstats.backlog;
	xfab_read_tos(&s->m, &dscp, &ecn);
	verdict = xfab_wred(qc, backlog, skb->len, ecn);
	xfab_queue_account(key, verdict, skb->len, backlog);
	if (xfab_queue_apply(&c, &s->m, verdict, &s->res) == XFAB_ACT_DROP) {
		/* a lossless packet's charge goes back through kfree_skb */
		xfab_count_reason(&drop_stats, s->res.reason, skb->len);
		return TC_ACT_SHOT;
	}
	return TC_ACT_OK;
}

/*
 * Lossless dequeue: a packet the tc datapath charged to a PG (its mark,
 * pfc.h) is handed to a device's driver (pfc.h's xfab_pfc_dequeued: only
 * this switch's ports count). Across a namespace boundary veth clears
 * skb->mark, so no packet is credited twice. The kernel now and then runs
 * this tracepoint for none of a veth's packets (about 1 in 1,500 here,
 * docs/PFC.md): xfabd's sweep takes such a credit back.
 */
SEC("tp_btf/net_dev_start_xmit")
int xfab_pfc_dequeue(__u64 *ctx)
{
	/* A BTF tracepoint: the kernel's pointers are read by plain loads.
	 * A raw tracepoint's probe reads (copy_from_kernel_nofault) were 4.8 %
	 * of perf's samples in the bench's lossless tc run. */
	const struct sk_buff___xfab *skb = (const void *)ctx[0];
	const struct net_device___xfab *dev = (const void *)ctx[1];

	if ((skb->mark & XFAB_PFC_MARK_MASK) != XFAB_PFC_MARK)
		return 0;
	xfab_pfc_dequeued(skb, dev);
	return 0;
}

/*
 * Lossless drop: a packet charged to a PG that is dropped instead of sent
 * (its queue full, the watchdog emptying a stormed queue, its device gone)
 * gives its bytes back too; without this a PG would stay above XOFF for
 * good, and its pause would never end. Only this switch's ports, as above.
 */
SEC("tp_btf/kfree_skb")
int xfab_pfc_drop(__u64 *ctx)
{
	const struct sk_buff___xfab *skb = (const void *)ctx[0];

	if ((skb->mark & XFAB_PFC_MARK_MASK) != XFAB_PFC_MARK || !skb->dev)
		return 0;
	xfab_pfc_dequeued(skb, skb->dev);
	return 0;
}

/*
 * xdp datapath, the egress of every port (tx_ports' DEVMAP program, run as
 * the redirected frames leave): a port that went down under its packets.
 * XDP has no other place that sees the device: the pipeline chose this
 * port while the ports table said it was up, and the kernel would drop the
 * frame at the device. The frame is lost (a DEVMAP program cannot send it
 * elsewhere), but the port is taken out of use at once: its device noted
 * in port_dev, so the pipeline's device check (kern.h) sees it dead from
 * the next packet on (its nexthops' records say up until xfabd hears), and
 * the ports table's OPER_UP cleared (xfabd writes it again when it hears
 * the event over netlink); the next packets pick another member or
 * LOCAL_REPAIR's bounce instead of waiting for xfabd. Counted as
 * egress_down.
 */
SEC("xdp/devmap")
int xfab_xdp_egress(struct xdp_md *ctx)
{
	struct xdp_buff___xfab *kx = bpf_cast_to_kern_ctx(ctx);
	struct net_device___xfab *dev = kx->txq->dev;
	struct xfab_port *port;
	__u32 key;

	if (xfab_dev_carries(dev))
		return XDP_PASS;
	key = ctx->egress_ifindex;
	xfab_port_dev_note(ctx->egress_ifindex, dev);
	port = bpf_map_lookup_elem(&ports, &key);
	if (port && port->ifindex == key && (port->flags & XFAB_PORT_OPER_UP))
		__sync_fetch_and_and(&port->flags, ~XFAB_PORT_OPER_UP);
	xfab_count_reason(&drop_stats, XFAB_DROP_EGRESS_DOWN, (__u32)(ctx->data_end - ctx->data));
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
