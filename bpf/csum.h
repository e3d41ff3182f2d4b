/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Checksums, in one place: the IPv4 header's verified (the parser), written
 * whole (VXLAN's outer header) and updated incrementally after a field
 * changes (TTL: the rewrite; TOS: ECN marking, the decapsulation's ECN).
 * xfab never changes a field an L4 checksum covers: the outer UDP of a
 * VXLAN packet goes with checksum 0 (RFC 7348), IPv6 has no header
 * checksum, and the TTL, DSCP and ECN are outside the pseudo-header.
 *
 * A ones' complement sum does not depend on byte order: these sum 16- or
 * 32-bit words as they lie in the packet and store the result as it
 * comes.
 */
#ifndef XFAB_CSUM_H
#define XFAB_CSUM_H

#include <linux/bpf.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* A 32-bit ones' complement sum folded to 16 bits (twice: the first fold
 * may carry once more). */
static __always_inline __u16 xfab_csum_fold32(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)sum;
}

/* RFC 1624 eqn. 3: the checksum after one 16-bit word of what it covers
 * went from old_word to new_word, HC' = ~(~HC + ~m + m'). */
static __always_inline void xfab_csum_replace2(__u16 *check, __u16 old_word, __u16 new_word)
{
	__u32 sum = (__u16) ~*check;

	sum += (__u16)~old_word;
	sum += new_word;
	*check = (__u16)~xfab_csum_fold32(sum);
}

/* Writes the IPv4 TOS byte (DSCP and ECN) and updates the checksum: the
 * byte is the low half of the header's first 16-bit word. */
static __always_inline void xfab_ipv4_set_tos(struct iphdr *iph, __u8 tos)
{
	__u16 old_word = *(__u16 *)iph; /* version/IHL and TOS, in network order */

	iph->tos = tos;
	xfab_csum_replace2((__u16 *)&iph->check, old_word, *(__u16 *)iph);
}

/* RFC 1624 incremental update for a TTL decrement: the TTL is the high byte
 * of its 16-bit word, so the sum drops by 0x0100 and ~sum grows by it. */
static __always_inline void xfab_ipv4_decrement_ttl(struct iphdr *iph)
{
	__u32 check = iph->check;

	check += bpf_htons(0x0100);
	iph->check = (__u16)(check + (check >= 0xffff));
	iph->ttl--;
}

/* RFC 1071 over the 20-byte header just written (check field 0). */
static __always_inline __u16 xfab_ipv4_hdr_csum(const struct iphdr *iph)
{
	const __u16 *w = (const void *)iph;
	__u32 sum = 0;

	for (int i = 0; i < 10; i++)
		sum += w[i];
	return (__u16)~xfab_csum_fold32(sum);
}

/*
 * RFC 1812 5.2.2 / RFC 1071: the ones' complement sum of the whole header
 * (options included, checksum field too) is 0xffff when it is intact. Sums
 * 32-bit words into 64 bits and folds. hdr_len (20..60) is in the frame
 * already.
 *
 * Options (at most 10 words: a bounded loop, each word bounds-checked) are
 * summed in a subprogram of their own: its per-length exits meet at one
 * return, so the rest of the pipeline is verified once, not per IHL.
 */
static __attribute__((noinline)) __u64 xfab_ipv4_opts_sum(const __u32 *opts, __u32 words,
							  const void *data_end)
{
	__u64 sum = 0;

	for (__u32 i = 0; i < 10 && i < words; i++) {
		const __u32 *p = opts + i;

		asm volatile("" : "+r"(p)); /* one register for the check and the load */
		if ((const void *)(p + 1) > data_end)
			return ~0ull; /* cannot happen: the header is in the frame */
		sum += *p;
	}
	return sum;
}

static __always_inline int xfab_ipv4_csum_ok(const struct iphdr *iph, __u32 hdr_len,
					     const void *data_end)
{
	const __u32 *w = (const void *)iph;
	__u64 sum = (__u64)w[0] + w[1] + w[2] + w[3] + w[4];

	if (hdr_len > sizeof(*iph)) {
		__u64 opts = xfab_ipv4_opts_sum(w + 5, (hdr_len - sizeof(*iph)) / 4, data_end);

		if (opts == ~0ull)
			return 0;
		sum += opts;
	}
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	return xfab_csum_fold32((__u32)sum) == 0xffff;
}

#endif
