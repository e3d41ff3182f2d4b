/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The context layer: the one place that knows the hook. Stages reach the
 * packet only through a struct xfab_ctx (XDP's struct xdp_md or tc's
 * struct __sk_buff): its data and end, the frame length, the ingress port,
 * removing a VLAN tag, the redirect. Each entry point fills one with
 * constants (is_tc, tracing), so after inlining every accessor folds to
 * that hook's code.
 *
 * Packet pointers are never kept across stages: a stage asks for the header
 * it needs at an offset the parser recorded (xfab_ctx_hdr), bounds-checked
 * there. That keeps stages free to become functions of their own, and keeps
 * helpers that move the packet (pull, adjust head, VLAN pop) from leaving
 * stale pointers behind.
 */
#ifndef XFAB_BPF_CTX_H
#define XFAB_BPF_CTX_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include "xfab_abi.h"
#include "maps.h"

/* Headers the pipeline may touch: Ethernet + VLAN + IPv6 + extension
 * headers + L4, or a VXLAN frame's outer headers and the inner ones it
 * hashes on or decapsulates to; tc makes this much linear. The common
 * frames need less (Ethernet + IPv6 + UDP + BTH + AETH: 78 bytes; VXLAN
 * over IPv4 to an inner IPv6 RoCE header: 128), but IPv4 options and IPv6
 * extension headers are read wherever they end within it, so it stays the
 * bound of what must be linear. */
#define XFAB_TC_PULL_LEN 256
/* Header offsets the parser records are below this (a bound the verifier
 * needs for a pointer at a variable offset). */
#define XFAB_CTX_MAX_OFF 4096

struct xfab_ctx {
	void *ctx; /* struct xdp_md or struct __sk_buff */
	__u32 len; /* whole frame (tc may hold less than this linearly) */
	__u32 ingress_ifindex;
	__u8 is_tc;   /* constant per entry point */
	__u8 tracing; /* constant: the trace program (xfab_xdp_trace) */
	__u8 is_gso;  /* a GSO super-packet: per-segment MTU holds */
	__u8 handoff; /* tc: XDP handed it off (bpf/pfc.h), and counted its arrival */
};

/*
 * tc: a field of the skb's context loaded by one instruction at a constant
 * offset from the context pointer, as the verifier requires. Left to
 * itself, clang may keep a field's address (ctx + 76) in a register where
 * paths join and load through it, which the verifier refuses; the asm keeps
 * every load whole (and, volatile, never moved across a helper that moves
 * the packet, bpf_skb_pull_data or adjust_room).
 */
#define xfab_skb_load(skb, field)                                                                  \
	({                                                                                         \
		void *__v;                                                                         \
		asm volatile("%0 = *(u32 *)(%1 + %2)"                                              \
			     : "=r"(__v)                                                           \
			     : "r"(skb), "i"(__builtin_offsetof(struct __sk_buff, field)));        \
		__v;                                                                               \
	})

static __always_inline void *xfab_ctx_data(const struct xfab_ctx *c)
{
	if (c->is_tc)
		return xfab_skb_load(c->ctx, data);
	return (void *)(long)((struct xdp_md *)c->ctx)->data;
}

static __always_inline void *xfab_ctx_data_end(const struct xfab_ctx *c)
{
	if (c->is_tc)
		return xfab_skb_load(c->ctx, data_end);
	return (void *)(long)((struct xdp_md *)c->ctx)->data_end;
}

/* MAC addresses as one 32-bit and one 16-bit access, not six byte ones:
 * the verifier allows unaligned access where the CPU does it efficiently
 * (x86, arm64), and clang copies a 6-byte field of unknown alignment (an
 * Ethernet header is packed) a byte at a time. */
static __always_inline void xfab_mac_copy(void *dst, const void *src)
{
	*(__u32 *)dst = *(const __u32 *)src;
	*(__u16 *)(dst + 4) = *(const __u16 *)(src + 4);
}

static __always_inline int xfab_mac_equal(const void *a, const void *b)
{
	return *(const __u32 *)a == *(const __u32 *)b &&
	       *(const __u16 *)(a + 4) == *(const __u16 *)(b + 4);
}

/* The len bytes at off, or NULL when the frame (its linear part) is
 * shorter. len is a constant at every call site. */
static __always_inline void *xfab_ctx_hdr(const struct xfab_ctx *c, __u32 off, __u32 len)
{
	void *data = xfab_ctx_data(c), *end = xfab_ctx_data_end(c), *h;

	if (off >= XFAB_CTX_MAX_OFF)
		return 0;
	h = data + off;
	if (h + len > end)
		return 0;
	return h;
}

/* Copies len bytes at off (within the frame: the caller checked) to buf;
 * 0 or a negative error. */
static __always_inline long xfab_ctx_load_bytes(const struct xfab_ctx *c, __u32 off, void *buf,
						__u32 len)
{
	if (c->is_tc)
		return bpf_skb_load_bytes(c->ctx, off, buf, len);
	return bpf_xdp_load_bytes(c->ctx, off, buf, len);
}

/* XDP entry: the frame as it came. */
static __always_inline void xfab_ctx_init_xdp(struct xfab_ctx *c, struct xdp_md *ctx, int tracing)
{
	c->ctx = ctx;
	c->is_tc = 0;
	c->tracing = (__u8)tracing;
	c->is_gso = 0;
	c->handoff = 0;
	c->len = ctx->data_end - ctx->data;
	/* the subtraction here: a 32-bit copy of data kept for later would be
	 * a packet pointer the verifier refuses to spill */
	asm volatile("" : "+r"(c->len));
	c->ingress_ifindex = ctx->ingress_ifindex;
}

/*
 * tc: makes the first XFAB_TC_PULL_LEN bytes (or the whole of a shorter
 * frame) linear, where the headers may sit in fragments (a GRO or GSO
 * frame). Most frames hold that much linearly already, and for them the
 * helper call (and its recomputing of the packet pointers) is saved: a
 * frame is pulled only when its linear part is shorter. Not pulling leaves
 * a cloned skb's head shared, which is no matter: a program that writes
 * the packet has its head made private by the verifier's tc prologue. A
 * failed pull leaves what is linear, and the header checks see that.
 */
static __always_inline void xfab_ctx_tc_linear(struct __sk_buff *skb)
{
	__u32 need = skb->len < XFAB_TC_PULL_LEN ? skb->len : XFAB_TC_PULL_LEN;

	if (xfab_skb_load(skb, data) + need > xfab_skb_load(skb, data_end))
		bpf_skb_pull_data(skb, need);
}

/* tc entry: the headers made linear, the rest from the skb. */
static __always_inline void xfab_ctx_init_tc(struct xfab_ctx *c, struct __sk_buff *skb)
{
	xfab_ctx_tc_linear(skb);
	c->ctx = skb;
	c->is_tc = 1;
	c->tracing = 0;
	c->is_gso = skb->gso_segs > 1;
	c->handoff = 0;
	c->len = skb->len;
	c->ingress_ifindex = skb->ifindex;
}

/* bpf_skb_adjust_room: the header after a decapsulation is IPv6 (uapi of
 * 6.3; the build's headers may predate it). */
#define XFAB_ADJ_ROOM_DECAP_L3_IPV6 (1ULL << 8)

/*
 * Encapsulation: room for `room` bytes of outer headers. Afterwards the
 * first ETH_HLEN + room bytes are the caller's to write whole (outer
 * Ethernet, outer headers, the inner Ethernet header), and the frame is
 * `room` bytes longer. xdp moves the frame's start; tc inserts the room
 * after the MAC header and tells the kernel it is a UDP tunnel with an
 * Ethernet inner header, so a GSO packet is segmented as one (its segment
 * size shrinks by `room`, so the segments fit the MTU they had). 0 or -1.
 */
static __always_inline int xfab_ctx_encap(struct xfab_ctx *c, __u32 room)
{
	if (c->is_tc) {
		struct __sk_buff *skb = c->ctx;
		__u64 flags = BPF_F_ADJ_ROOM_ENCAP_L3_IPV4 | BPF_F_ADJ_ROOM_ENCAP_L4_UDP |
			      BPF_F_ADJ_ROOM_ENCAP_L2_ETH | BPF_F_ADJ_ROOM_ENCAP_L2(ETH_HLEN);

		if (bpf_skb_adjust_room(skb, (__s32)room, BPF_ADJ_ROOM_MAC, flags))
			return -1;
		c->len = skb->len;
		return 0;
	}
	if (bpf_xdp_adjust_head(c->ctx, -(int)room))
		return -1;
	c->len += room;
	return 0;
}

/*
 * Decapsulation: removes the `strip` bytes in front of the inner Ethernet
 * header (outer Ethernet, a tag, outer IP, UDP, VXLAN) and leaves the
 * frame as ETH_HLEN bytes for the caller to write (the Ethernet header)
 * followed by the inner packet. xdp moves the start past the outer
 * headers, so the inner Ethernet header is those bytes; tc removes the
 * bytes after its MAC header, which stays. The frame is strip bytes
 * shorter either way. 0 or -1.
 */
static __always_inline int xfab_ctx_decap(struct xfab_ctx *c, __u32 strip, int tag_in_data,
					  int inner_v6)
{
	if (c->is_tc) {
		struct __sk_buff *skb = c->ctx;
		__u64 flags = inner_v6 ? XFAB_ADJ_ROOM_DECAP_L3_IPV6 : 0;

		if (tag_in_data || skb->vlan_present) {
			if (bpf_skb_vlan_pop(skb))
				return -1;
			if (tag_in_data)
				strip -= 4;
		}
		/* out: what follows the MAC header up to the inner Ethernet
		 * header, and that header (the MAC header stays in its place) */
		if (strip < ETH_HLEN || strip > XFAB_CTX_MAX_OFF)
			return -1;
		if (bpf_skb_adjust_room(skb, -(__s32)strip, BPF_ADJ_ROOM_MAC, flags))
			return -1;
		/* the inner headers may sit past what was linear */
		xfab_ctx_tc_linear(skb);
		c->len = skb->len;
		return 0;
	}
	if (strip > XFAB_CTX_MAX_OFF || bpf_xdp_adjust_head(c->ctx, (int)strip))
		return -1;
	c->len -= strip;
	return 0;
}

/* The trace record in front of the frame (XDP metadata), or NULL. */
static __always_inline struct xfab_trace *xfab_ctx_trace(const struct xfab_ctx *c)
{
	struct xdp_md *x = c->ctx;
	struct xfab_trace *t;

	if (c->is_tc || !c->tracing)
		return 0;
	t = (void *)(long)x->data_meta;
	if ((void *)(t + 1) > (void *)(long)x->data || t->magic != XFAB_TRACE_MAGIC)
		return 0;
	return t;
}

/* Removes the one tolerated 802.1Q tag (in the frame, or in tc's skb
 * metadata): routed ports send untagged frames. 0 or -1. */
static __always_inline int xfab_ctx_pop_vlan(const struct xfab_ctx *c, int tag_in_data)
{
	if (c->is_tc) {
		struct __sk_buff *skb = c->ctx;

		if ((tag_in_data || skb->vlan_present) && bpf_skb_vlan_pop(skb))
			return -1;
		return 0;
	}
	if (tag_in_data) {
		void *data = xfab_ctx_data(c);

		if (data + 16 > xfab_ctx_data_end(c))
			return -1;
		__builtin_memmove(data + 4, data, 12);
		return bpf_xdp_adjust_head(c->ctx, 4) ? -1 : 0;
	}
	return 0;
}

/* The hook's verdict for the pipeline's action. Forwarding sends the frame
 * out of egress_ifindex (xdp: its port's slot in the DEVMAP; tc:
 * bpf_redirect to the device, whose HTB class 1:(tc + 1) is the traffic
 * class's queue). */
static __always_inline int xfab_ctx_verdict(const struct xfab_ctx *c, int act, __u32 egress_ifindex,
					    __u32 egress_slot, int tag_in_data, __u32 tc)
{
	if (act == XFAB_ACT_FORWARD) {
		if (xfab_ctx_pop_vlan(c, tag_in_data))
			return c->is_tc ? TC_ACT_SHOT : XDP_ABORTED;
		if (c->is_tc) {
			((struct __sk_buff *)c->ctx)->priority = 0x10000 | (tc + 1);
			return bpf_redirect(egress_ifindex, 0);
		}
		return bpf_redirect_map(&tx_ports, egress_slot, 0);
	}
	if (act == XFAB_ACT_PUNT)
		return c->is_tc ? TC_ACT_OK : XDP_PASS;
	return c->is_tc ? TC_ACT_SHOT : XDP_DROP;
}

#endif
