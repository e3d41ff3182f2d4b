/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The flow hash, shared by the data plane and by userspace (tests, the
 * load-balancing simulator, `xfabctl hash`), so both compute the same member
 * for a flow.
 *
 * 1. Select: fields not in the switch's hash_fields are zeroed; with the
 *    symmetric option the (address, port) ends are put in a fixed order, so
 *    both directions of a flow look alike.
 * 2. Hash: MurmurHash3 (x86, 32-bit) block mixing over the words of the
 *    selected flow (IPv4: 6 words, IPv6: 12), seeded by the switch's hash
 *    seed, then Murmur3's finaliser.
 * 3. Bucket: the low 8 bits pick one of the group's 256 buckets.
 * Addresses and ports are the network-order bytes read as host integers;
 * the QP and flow label are plain integers.
 */
#ifndef XFAB_HASH_H
#define XFAB_HASH_H

#include <linux/types.h>

#include "xfab_abi.h"

#define XFAB_INLINE static inline __attribute__((always_inline))

XFAB_INLINE __u32 xfab_rol32(__u32 v, int shift)
{
	return (v << shift) | (v >> (32 - shift));
}

XFAB_INLINE __u32 xfab_hash_mix(__u32 h, __u32 word)
{
	word *= 0xcc9e2d51u;
	word = xfab_rol32(word, 15);
	word *= 0x1b873593u;
	h ^= word;
	h = xfab_rol32(h, 13);
	return h * 5 + 0xe6546b64u;
}

XFAB_INLINE __u32 xfab_hash_final(__u32 h, __u32 len_bytes)
{
	h ^= len_bytes;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* Flow key as hashed (flowlet slots are picked by its hash). For IPv4 only word 0 of
 * src/dst is used. */
struct xfab_flow {
	__u32 src[4];
	__u32 dst[4];
	__u32 ports; /* sport (network order) in the low 16 bits, dport above */
	__u8 proto;
	__u8 is_v6;
	__u16 pad;
	__u32 qp;	  /* RoCEv2 destination QP (24 bits), 0 if none */
	__u32 flow_label; /* IPv6 flow label (20 bits) */
};
_Static_assert(sizeof(struct xfab_flow) == 48, "flow");

struct xfab_flowlet_key {
	__u32 group;
	struct xfab_flow flow;
};
_Static_assert(sizeof(struct xfab_flowlet_key) == 52, "flowlet key");

/* Keeps the fields the switch hashes on; orders the ends if symmetric. */
XFAB_INLINE void xfab_flow_select(struct xfab_flow *f, __u32 fields, int symmetric)
{
	int words = f->is_v6 ? 4 : 1, swap = 0, i;

	if (!(fields & XFAB_HASH_F_SRC_IP))
		f->src[0] = f->src[1] = f->src[2] = f->src[3] = 0;
	if (!(fields & XFAB_HASH_F_DST_IP))
		f->dst[0] = f->dst[1] = f->dst[2] = f->dst[3] = 0;
	if (!(fields & XFAB_HASH_F_IP_PROTO))
		f->proto = 0;
	if (!(fields & XFAB_HASH_F_L4_SRC_PORT))
		f->ports &= 0xffff0000u;
	if (!(fields & XFAB_HASH_F_L4_DST_PORT))
		f->ports &= 0x0000ffffu;
	if (!(fields & XFAB_HASH_F_FLOW_LABEL))
		f->flow_label = 0;
	if (!(fields & XFAB_HASH_F_ROCE_QP))
		f->qp = 0;
	if (!symmetric)
		return;
	/* Order the ends by (address, port): the lower end goes first. */
	for (i = 0; i < 4; i++) {
		if (i >= words)
			break;
		if (f->src[i] != f->dst[i]) {
			swap = f->src[i] > f->dst[i];
			break;
		}
		if (i == words - 1)
			swap = (f->ports & 0xffff) > (f->ports >> 16);
	}
	if (swap) {
		for (i = 0; i < 4; i++) {
			__u32 t = f->src[i];

			f->src[i] = f->dst[i];
			f->dst[i] = t;
		}
		f->ports = (f->ports >> 16) | (f->ports << 16);
	}
}

XFAB_INLINE __u32 xfab_flow_hash(const struct xfab_flow *f, __u32 seed)
{
	__u32 h = seed;

	if (f->is_v6) {
		h = xfab_hash_mix(h, f->src[0]);
		h = xfab_hash_mix(h, f->src[1]);
		h = xfab_hash_mix(h, f->src[2]);
		h = xfab_hash_mix(h, f->src[3]);
		h = xfab_hash_mix(h, f->dst[0]);
		h = xfab_hash_mix(h, f->dst[1]);
		h = xfab_hash_mix(h, f->dst[2]);
		h = xfab_hash_mix(h, f->dst[3]);
	} else {
		h = xfab_hash_mix(h, f->src[0]);
		h = xfab_hash_mix(h, f->dst[0]);
	}
	h = xfab_hash_mix(h, f->ports);
	h = xfab_hash_mix(h, f->proto);
	h = xfab_hash_mix(h, f->qp);
	h = xfab_hash_mix(h, f->flow_label);
	return xfab_hash_final(h, f->is_v6 ? 48 : 24);
}

/*
 * VXLAN encapsulation (RFC 7348 5): the tenant flow's hash picks the remote
 * VTEP among a tunnel route's endpoints and becomes the outer UDP source
 * port, in 49152-65535, so the underlay's ECMP (which hashes the outer
 * 5-tuple) spreads tunnelled flows apart. The tunnel hash covers the
 * 5-tuple always, and what else the switch hashes on (RoCE QP, flow label).
 */
#define XFAB_TUNNEL_HASH_FIELDS(fields) (((fields) | XFAB_HASH_F_DEFAULT) & ~XFAB_HASH_F_INNER)

XFAB_INLINE __u16 xfab_vxlan_sport(__u32 hash)
{
	return (__u16)(XFAB_VXLAN_SPORT_MIN | ((hash ^ (hash >> 16)) & 0x3fff));
}

XFAB_INLINE __u32 xfab_tunnel_endpoint(__u32 hash, __u32 n)
{
	return n ? (hash >> 8) % n : 0;
}

/* Bucket of a group's fixed table for a hash (XFAB_GROUP_BUCKETS is 2^n). */
#define XFAB_HASH_BUCKET(hash) ((hash) & (XFAB_GROUP_BUCKETS - 1))

#endif /* XFAB_HASH_H */
