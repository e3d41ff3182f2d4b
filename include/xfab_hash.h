/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The flow hash, shared by the data plane and by userspace (tests, the
 * load-balancing simulator, `xfabctl hash`), so both compute the same member
 * for a flow.
 *
 * A multilinear hash (Lemire and Kaser, "Strongly universal string hashing
 * is fast", 2014): h = (k0 + sum of k_i * w_i) mod 2^64, and the flow hash
 * is its high 32 bits. The w_i are the flow's 32-bit words: the source and
 * destination addresses (IPv4: one word each, IPv6: four), the ports word
 * (sport | dport << 16), the word proto | qp << 8, and the IPv6 flow label.
 * Addresses and ports are the network-order bytes read as host integers;
 * the QP and flow label are plain integers. The keys k_i are 64-bit values
 * from splitmix64 seeded with the switch's hash seed (k0 first, then src[0..3],
 * dst[0..3], ports, misc, label), so switches with other seeds spread flows
 * independently (no polarisation between tiers). A field the switch does
 * not hash on gets the key 0 or leaves the word's mask (hash_fields): the
 * data plane selects fields without a branch. The family is strongly
 * universal: any two different selected flows collide with probability
 * 2^-32 over the keys, and every bit of the hash is as good as any other.
 *
 * Why this one: it costs 4 independent multiplies for IPv4 (13 for IPv6)
 * and some adds, about 3 ns per packet, where MurmurHash3's chained mixing
 * cost about 15; BPF has no CRC instruction (a table CRC over 13 bytes
 * costs 13 dependent loads), and the receive hash the driver computed (RSS)
 * does not cover the RoCE QP, differs per NIC, and could not be predicted
 * by `xfabctl hash`.
 *
 * With the symmetric option the (address, port) ends are put in a fixed
 * order first (xfab_flow_select), so both directions of a flow look alike.
 * The group's bucket is the hash's low 8 bits.
 */
#ifndef XFAB_HASH_H
#define XFAB_HASH_H

#include <linux/types.h>

#include "xfab_abi.h"

#define XFAB_INLINE static inline __attribute__((always_inline))

/* splitmix64 (Steele, Lea and Flood, 2014): the key stream of a seed */
XFAB_INLINE __u64 xfab_splitmix64(__u64 *state)
{
	__u64 z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The keys of the hash over `fields` (XFAB_HASH_F_*) for a switch's seed. */
XFAB_INLINE void xfab_hash_key_derive(struct xfab_hash_key *k, __u32 seed, __u32 fields)
{
	__u64 st = seed;
	int i;

	k->k0 = xfab_splitmix64(&st);
	for (i = 0; i < 4; i++)
		k->src[i] = xfab_splitmix64(&st);
	for (i = 0; i < 4; i++)
		k->dst[i] = xfab_splitmix64(&st);
	k->ports = xfab_splitmix64(&st);
	k->misc = xfab_splitmix64(&st);
	k->label = xfab_splitmix64(&st);
	for (i = 0; i < 4; i++) {
		if (!(fields & XFAB_HASH_F_SRC_IP))
			k->src[i] = 0;
		if (!(fields & XFAB_HASH_F_DST_IP))
			k->dst[i] = 0;
	}
	if (!(fields & XFAB_HASH_F_FLOW_LABEL))
		k->label = 0;
	k->ports_mask = (fields & XFAB_HASH_F_L4_SRC_PORT ? 0x0000ffffu : 0) |
			(fields & XFAB_HASH_F_L4_DST_PORT ? 0xffff0000u : 0);
	k->misc_mask = (fields & XFAB_HASH_F_IP_PROTO ? 0x000000ffu : 0) |
		       (fields & XFAB_HASH_F_ROCE_QP ? 0xffffff00u : 0);
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

/* The flow's hash under key k (one of the settings' keys). */
/* The sum over the words every flow has (an IPv4 flow's whole hash
 * before the shift): the data plane's fast path (bpf/fast.h) calls it with
 * the header's fields, xfab_flow_hash with a flow's. */
XFAB_INLINE __u64 xfab_flow_hash_base(__u32 src, __u32 dst, __u32 ports, __u32 proto, __u32 qp,
				      const struct xfab_hash_key *k)
{
	__u32 misc = (proto | qp << 8) & k->misc_mask;

	return k->k0 + k->src[0] * src + k->dst[0] * dst + k->ports * (ports & k->ports_mask) +
	       k->misc * misc;
}

/* What an IPv6 flow adds to the sum: the addresses' other words and the
 * flow label (the fast path passes the header's addresses, as read). */
XFAB_INLINE __u64 xfab_flow_hash_v6(const __u32 *src, const __u32 *dst, __u32 label,
				    const struct xfab_hash_key *k)
{
	return k->src[1] * src[1] + k->src[2] * src[2] + k->src[3] * src[3] + k->dst[1] * dst[1] +
	       k->dst[2] * dst[2] + k->dst[3] * dst[3] + k->label * label;
}

XFAB_INLINE __u32 xfab_flow_hash(const struct xfab_flow *f, const struct xfab_hash_key *k)
{
	__u64 h = xfab_flow_hash_base(f->src[0], f->dst[0], f->ports, f->proto, f->qp, k);

	if (f->is_v6)
		h += xfab_flow_hash_v6(f->src, f->dst, f->flow_label, k);
	return (__u32)(h >> 32);
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
