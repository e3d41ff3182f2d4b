/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Lossless classes, the data plane's part (docs/PFC.md has the design).
 *
 *   receive   both datapaths: an 802.1Qbb PFC or 802.3x PAUSE frame that
 *             came in on a port pauses that port's egress queues of the
 *             priorities it names (pfc_state.paused_until_ns); xfabd closes
 *             the queues' gates on the XFAB_PFC_EV_RX event.
 *   charge    tc ingress, as the pipeline forwards it: a packet whose
 *             class is lossless on its ingress port is charged to that
 *             (port, priority group) and tagged with the PG (skb->mark);
 *             crossing XOFF asks xfabd to pause the peer (EV_XOFF).
 *   credit    the BTF tracepoints net_dev_start_xmit and kfree_skb: a
 *             tagged packet leaving one of this switch's ports (or dropped
 *             on one) gives its bytes back; falling below XON asks xfabd
 *             to resume the peer (EV_XON).
 *   handoff   xdp datapath: a packet of a lossless class leaves XDP (a
 *             marker in the XDP metadata) for the tc ingress program, so
 *             it is queued, paused and accounted like on the tc datapath.
 *
 * pfc_state is shared by all CPUs: counters are atomic adds, the XOFF flag
 * changes by compare-and-swap (one CPU sends each event).
 */
#ifndef XFAB_BPF_PFC_H
#define XFAB_BPF_PFC_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xfab_abi.h"
#include "maps.h"
#include "ctx.h"
#include "kern.h"
#include "scratch.h"
#include "qos.h"

static __always_inline void xfab_pfc_event(__u32 ifindex, __u32 slot, __u8 kind, __u8 prio_mask,
					   __u64 time_ns, __u64 now)
{
	struct xfab_pfc_event *ev = bpf_ringbuf_reserve(&pfc_events, sizeof(*ev), 0);

	if (!ev) /* ring full: xfabd also reads pfc_state */
		return;
	ev->ifindex = ifindex;
	ev->slot = (__u16)slot;
	ev->kind = kind;
	ev->prio_mask = prio_mask;
	ev->time_ns = time_ns;
	ev->now_ns = now;
	bpf_ringbuf_submit(ev, 0);
}

/* 01:80:C2:00:00:01, or (802.3 annex 31B) the port's own address. */
static __always_inline int xfab_pfc_dst_ok(const __u8 *d, const __u8 *port_mac)
{
	if (d[0] == 0x01 && d[1] == 0x80 && d[2] == 0xc2 && d[3] == 0 && d[4] == 0 && d[5] == 1)
		return 1;
	return d[0] == port_mac[0] && d[1] == port_mac[1] && d[2] == port_mac[2] &&
	       d[3] == port_mac[3] && d[4] == port_mac[4] && d[5] == port_mac[5];
}

/*
 * A MAC control frame (EtherType 0x8808) that came in on port in: 0 when
 * consumed (a pause frame: counted in pfc_state, never a drop), or the
 * drop reason of a bad one. The frame after the EtherType:
 *   PFC    opcode 0x0101, class-enable vector (bit n: priority n; the
 *          high octet is reserved), 8 x 16-bit times in quanta
 *   PAUSE  opcode 0x0001, one time for every priority
 * Frames may come short and unpadded (veth does not pad): a missing time
 * reads as 0. A trace run parses but changes nothing.
 */
static __always_inline int xfab_pfc_rx(const struct xfab_ctx *c, struct xfab_scratch *s,
				       const struct xfab_port *in)
{
	const struct xfab_pfc_cfg *cfg;
	struct xfab_pfc_state *st;
	struct ethhdr *eth = xfab_ctx_hdr(c, 0, sizeof(*eth));
	__u32 off = s->m.l3_off, slot = in->slot, vector, quanta, key, live, n;
	__be16 times[XFAB_NUM_PRIO];
	__u64 now, until;
	__u16 *w, opcode;

	if (!eth)
		return XFAB_DROP_ETH_TRUNCATED;
	if (!xfab_pfc_dst_ok(eth->h_dest, in->mac))
		return XFAB_DROP_MAC_CONTROL_BAD_DST;
	w = xfab_ctx_hdr(c, off, 2);
	if (!w)
		return XFAB_DROP_MAC_CONTROL_TRUNCATED;
	opcode = bpf_ntohs(*w);
	if (opcode == XFAB_MAC_CONTROL_PFC) {
		w = xfab_ctx_hdr(c, off + 2, 2);
		if (!w)
			return XFAB_DROP_MAC_CONTROL_TRUNCATED;
		vector = bpf_ntohs(*w) & 0xff;
		off += 4; /* the times, one per priority */
	} else if (opcode == XFAB_MAC_CONTROL_PAUSE) {
		vector = 0xff;
		off += 2; /* the one time */
	} else {
		return XFAB_DROP_MAC_CONTROL_BAD_OPCODE;
	}
	if (c->tracing)
		return 0;
	cfg = bpf_map_lookup_elem(&pfc_cfg, &slot);
	if (!cfg)
		return 0;
	/* The times, copied once: read in the frame one by one, each a
	 * bounds check of its own, they would multiply the verifier's paths. */
	__builtin_memset(times, 0, sizeof(times));
	n = opcode == XFAB_MAC_CONTROL_PFC ? sizeof(times) : sizeof(times[0]);
	if (c->len < off + n)
		n = c->len > off ? c->len - off : 0;
	if (n && n <= sizeof(times))
		xfab_ctx_load_bytes(c, off, times, n);
	live = cfg->enabled & ~cfg->wd_ignore;
	now = bpf_ktime_get_ns();
	s->pfc_changed = 0;
	s->pfc_longest_ns = 0;
	for (__u32 p = 0; p < XFAB_NUM_PRIO; p++) {
		if (!(vector & (1u << p)))
			continue;
		quanta = bpf_ntohs(times[opcode == XFAB_MAC_CONTROL_PFC ? p : 0]);
		key = XFAB_QUEUE_KEY(slot, p);
		st = bpf_map_lookup_elem(&pfc_state, &key);
		if (!st)
			continue;
		__sync_fetch_and_add(&st->rx_frames, 1);
		if (!quanta)
			__sync_fetch_and_add(&st->rx_xon, 1);
		if (!(live & (1u << p))) {
			__sync_fetch_and_add(&st->rx_ignored, 1);
			continue;
		}
		/* a new XOFF replaces the deadline (longer or shorter) */
		until = quanta ? now + xfab_pfc_quanta_ns(quanta, cfg->speed_mbps) : 0;
		if (st->paused_until_ns == until)
			continue;
		st->paused_until_ns = until;
		s->pfc_changed |= 1u << p;
		if (until && until - now > s->pfc_longest_ns)
			s->pfc_longest_ns = until - now;
	}
	if (s->pfc_changed)
		xfab_pfc_event(in->ifindex, slot, XFAB_PFC_EV_RX, (__u8)s->pfc_changed,
			       s->pfc_longest_ns, now);
	return 0;
}

/* What the tc datapath does with a packet of class tc leaving port out_slot. */
#define XFAB_PFC_LOSSY (-1)   /* not lossless on its ingress port: not charged */
#define XFAB_PFC_WD_DROP (-2) /* the watchdog's drop action discards it */

/*
 * The ingress PG the packet is charged to (its key in pfc_state,
 * XFAB_QUEUE_KEY(in's slot, tc)), or XFAB_PFC_LOSSY, or XFAB_PFC_WD_DROP
 * for a packet to a stormed queue or from a stormed PG (drop action;
 * counted here).
 */
static __always_inline int xfab_pfc_egress_pg(__u32 in_slot, __u32 out_slot, __u32 tc)
{
	const struct xfab_pfc_cfg *cfg;
	struct xfab_pfc_state *st;
	__u32 key;

	cfg = bpf_map_lookup_elem(&pfc_cfg, &out_slot);
	if (cfg && (cfg->wd_drop & (1u << tc))) {
		key = XFAB_QUEUE_KEY(out_slot, tc);
		st = bpf_map_lookup_elem(&pfc_state, &key);
		if (st)
			__sync_fetch_and_add(&st->wd_tx_dropped, 1);
		return XFAB_PFC_WD_DROP;
	}
	cfg = bpf_map_lookup_elem(&pfc_cfg, &in_slot);
	if (!cfg || !(cfg->enabled & (1u << tc)))
		return XFAB_PFC_LOSSY;
	key = XFAB_QUEUE_KEY(in_slot, tc);
	if (cfg->wd_drop & (1u << tc)) {
		st = bpf_map_lookup_elem(&pfc_state, &key);
		if (st)
			__sync_fetch_and_add(&st->wd_rx_dropped, 1);
		return XFAB_PFC_WD_DROP;
	}
	return (int)key;
}

/*
 * Charges a packet of len bytes that is being queued at egress port
 * out_slot to PG (in_slot, tc), and to the PG's share at that egress
 * (pfc_egress), and tags it for the dequeue side. The CPU whose charge turns the PG's
 * xoff flag on reports the crossing.
 */
static __always_inline void xfab_pfc_charge(struct __sk_buff *skb, __u32 in_ifindex, __u32 in_slot,
					    __u32 tc, __u32 len, __u32 out_slot)
{
	const struct xfab_pfc_cfg *cfg = bpf_map_lookup_elem(&pfc_cfg, &in_slot);
	__u32 key = XFAB_QUEUE_KEY(in_slot, tc), xoff;
	struct xfab_pfc_state *st = bpf_map_lookup_elem(&pfc_state, &key);
	__u64 occ, *eg;

	if (!cfg || !st)
		return;
	key = XFAB_PFC_EG_KEY(out_slot & (XFAB_MAX_PORTS - 1), in_slot & (XFAB_MAX_PORTS - 1),
			      tc & (XFAB_NUM_PRIO - 1));
	eg = bpf_map_lookup_elem(&pfc_egress, &key);
	if (eg)
		__sync_fetch_and_add(eg, len);
	occ = __sync_fetch_and_add(&st->occupancy_bytes, len) + len;
	if (occ > st->peak_occupancy_bytes)
		st->peak_occupancy_bytes = occ;
	__sync_fetch_and_add(&st->rx_packets, 1);
	skb->mark = XFAB_PFC_MARK | in_slot << 3 | tc;
	xoff = cfg->xoff_bytes[tc & (XFAB_NUM_PRIO - 1)];
	if (xoff && occ >= xoff && !st->xoff && __sync_val_compare_and_swap(&st->xoff, 0, 1) == 0)
		xfab_pfc_event(in_ifindex, in_slot, XFAB_PFC_EV_XOFF, (__u8)(1u << tc), 0,
			       bpf_ktime_get_ns());
}

/*
 * A packet tagged mark (XFAB_PFC_MARK | slot << 3 | prio) of len bytes
 * left the switch by port out_slot: its PG gets the bytes back, and its
 * share at that egress (pfc_egress), never going below 0. The
 * CPU whose credit turns the xoff flag off (the occupancy below XON, or
 * empty) reports it. in_ifindex: the port the packet came in on.
 */
/* A counter less len, never below 0 (another CPU may charge or credit
 * meanwhile); its new value. */
static __always_inline __u64 xfab_pfc_sub(__u64 *c, __u32 len)
{
	__u64 old = *c, new = 0, prev;

	for (int i = 0; i < 8; i++) {
		new = old > len ? old - len : 0;
		prev = __sync_val_compare_and_swap(c, old, new);
		if (prev == old)
			break;
		old = prev;
	}
	return new;
}

static __always_inline void xfab_pfc_credit(__u32 mark, __u32 len, __u32 in_ifindex, __u32 out_slot)
{
	__u32 slot = XFAB_PFC_MARK_SLOT(mark), prio = mark & (XFAB_NUM_PRIO - 1), key, xon;
	const struct xfab_pfc_cfg *cfg;
	struct xfab_pfc_state *st;
	__u64 new, *eg;

	if (slot >= XFAB_MAX_PORTS)
		return;
	key = XFAB_PFC_EG_KEY(out_slot & (XFAB_MAX_PORTS - 1), slot, prio);
	eg = bpf_map_lookup_elem(&pfc_egress, &key);
	if (eg)
		xfab_pfc_sub(eg, len);
	key = XFAB_QUEUE_KEY(slot, prio);
	st = bpf_map_lookup_elem(&pfc_state, &key);
	cfg = bpf_map_lookup_elem(&pfc_cfg, &slot);
	if (!st || !cfg)
		return;
	new = xfab_pfc_sub(&st->occupancy_bytes, len);
	xon = cfg->xon_bytes[prio];
	if ((new < xon || !new) && st->xoff && __sync_val_compare_and_swap(&st->xoff, 1, 0) == 1)
		xfab_pfc_event(in_ifindex, slot, XFAB_PFC_EV_XON, (__u8)(1u << prio), 0,
			       bpf_ktime_get_ns());
}

/*
 * tc datapath: a packet of class tc forwarded from a port with lossless
 * priorities (slot in_slot, device in_ifindex) or to one (out, device
 * *out_ifindex: a key), len bytes as it will leave: 0 once charged to its
 * ingress PG (or lossy there), or the watchdog's drop reason. Charged as
 * the ingress program decides, rather than in an egress program: a port
 * then needs one only for a queue. Nothing can drop the packet between
 * here and the qdisc but the kernel, whose drop the kfree_skb tracepoint
 * credits back. A device the data plane has not noted yet (port_dev) could
 * not credit it: such a packet is not charged.
 */
static __always_inline __u32 xfab_pfc_tc_forward(struct __sk_buff *skb, __u32 in_slot,
						 __u32 in_ifindex, const struct xfab_nh_port *out,
						 const __u32 *out_ifindex, __u32 tc, __u32 len)
{
	__u64 *noted;
	int pg;

	pg = xfab_pfc_egress_pg(in_slot, out->slot, tc);
	if (pg == XFAB_PFC_WD_DROP)
		return XFAB_DROP_PFC_WATCHDOG;
	if (pg < 0)
		return 0;
	noted = bpf_map_lookup_elem(&port_dev, out_ifindex);
	if (noted && *noted)
		xfab_pfc_charge(skb, in_ifindex, in_slot, tc, len, out->slot);
	return 0;
}

/*
 * tc fast path: no watchdog drop action on the way from port in to port
 * out, one of them with lossless priorities (any priority: a storm sends
 * the ports' packets to the pipeline, which drops and counts them, for as
 * long as it lasts).
 */
static __always_inline int xfab_pfc_tc_calm(const struct xfab_port *in,
					    const struct xfab_nh_port *out)
{
	const struct xfab_pfc_cfg *cfg;
	__u32 key;

	key = out->slot;
	cfg = bpf_map_lookup_elem(&pfc_cfg, &key);
	if (cfg && cfg->wd_drop)
		return 0;
	key = in->slot;
	cfg = bpf_map_lookup_elem(&pfc_cfg, &key);
	return !cfg || !cfg->wd_drop;
}

/*
 * A packet tagged with a PG (skb, its mark checked by the caller) handed to
 * device dev's driver, or dropped there: its bytes go back when dev is one
 * of this switch's ports. Tracepoints see every namespace, and ifindexes
 * repeat across them: only the device a port's own programs noted
 * (port_dev) counts.
 */
static __always_inline void xfab_pfc_dequeued(const struct sk_buff___xfab *skb,
					      const struct net_device___xfab *dev)
{
	__u32 ifindex = (__u32)dev->ifindex, in = (__u32)skb->skb_iif, mark = skb->mark;
	const struct xfab_port *port, *from;
	__u64 *noted = bpf_map_lookup_elem(&port_dev, &ifindex);

	if (!noted || *noted != (__u64)(unsigned long)dev)
		return;
	/* and it came in on the port its tag names: a tag the host's stack
	 * set (SO_MARK) comes in on none */
	from = bpf_map_lookup_elem(&ports, &in);
	if (!in || !from || from->ifindex != in || from->slot != XFAB_PFC_MARK_SLOT(mark))
		return;
	port = bpf_map_lookup_elem(&ports, &ifindex);
	if (port)
		xfab_pfc_credit(mark, skb->len, in, port->slot);
}

/*
 * xdp datapath: is the packet's class lossless on its ingress port (slot)?
 * Only for ports whose entry says XFAB_PORT_LOSSLESS.
 */
static __always_inline int xfab_pfc_is_lossless(__u32 slot, const struct xfab_meta *m)
{
	const struct xfab_pfc_cfg *cfg = bpf_map_lookup_elem(&pfc_cfg, &slot);

	return cfg && cfg->enabled && (cfg->enabled & (1u << xfab_classify(m)));
}

/*
 * Hands the packet to the tc ingress program, which has the real queues: 1
 * when the marker is in front of it (the caller returns XDP_PASS), 0 when
 * there is no room for metadata (it stays on the xdp path).
 */
static __always_inline int xfab_pfc_handoff(struct xdp_md *ctx)
{
	__u32 *meta;

	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(__u32)))
		return 0;
	meta = (void *)(long)ctx->data_meta;
	if ((void *)(meta + 1) > (void *)(long)ctx->data)
		return 0;
	*meta = XFAB_PFC_HANDOFF_MAGIC;
	return 1;
}

/* tc ingress: did XDP hand this packet off (the marker in front of it)? */
static __always_inline int xfab_pfc_handed_off(struct __sk_buff *skb)
{
	__u32 *meta = (void *)(long)skb->data_meta;

	if ((void *)(meta + 1) > (void *)(long)skb->data)
		return 0;
	return *meta == XFAB_PFC_HANDOFF_MAGIC;
}

#endif
