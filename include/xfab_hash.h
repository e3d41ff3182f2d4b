/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The flow hash, shared by the data plane and by userspace tools (tests,
 * `xfabctl hash`), so both compute the same member for a flow.
 *
 * Algorithm: MurmurHash3 (x86, 32-bit) block mixing over the 32-bit words of
 * the flow key, seeded by the switch's hash seed, with Murmur3's finaliser.
 * The words are those of the network-order fields, read as host integers.
 */
#ifndef XFAB_HASH_H
#define XFAB_HASH_H

#include <linux/types.h>

static inline __attribute__((always_inline)) __u32 xfab_rol32(__u32 v, int shift)
{
	return (v << shift) | (v >> (32 - shift));
}

static inline __attribute__((always_inline)) __u32 xfab_hash_mix(__u32 h, __u32 word)
{
	word *= 0xcc9e2d51u;
	word = xfab_rol32(word, 15);
	word *= 0x1b873593u;
	h ^= word;
	h = xfab_rol32(h, 13);
	return h * 5 + 0xe6546b64u;
}

static inline __attribute__((always_inline)) __u32 xfab_hash_final(__u32 h, __u32 len_bytes)
{
	h ^= len_bytes;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* Flow key as hashed. For IPv4 only words 0 of src/dst are used. */
struct xfab_flow {
	__u32 src[4];
	__u32 dst[4];
	__u32 ports; /* sport (network order) in the low 16 bits, dport above */
	__u8 proto;
	__u8 is_v6;
	__u16 pad;
};

static inline __attribute__((always_inline)) __u32 xfab_flow_hash(const struct xfab_flow *f,
								  __u32 seed)
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
	return xfab_hash_final(h, f->is_v6 ? 40 : 16);
}

/* Bucket of a group's fixed table for a hash (XFAB_GROUP_BUCKETS is 2^n). */
#define XFAB_HASH_BUCKET(hash) ((hash) & (XFAB_GROUP_BUCKETS - 1))

#endif /* XFAB_HASH_H */
