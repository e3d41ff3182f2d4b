// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * linkfault: xfab-linkfault's fault program (tools/xfab-linkfault.c), a
 * faulty optic in front of a device's receive path. Not part of the switch.
 *
 * Each frame is hit with the configured probability (bpf_get_prandom_u32()
 * against a threshold, lf_conf); a hit is dropped (loss) or damaged so that
 * the receiver finds it malformed (corrupt). Every frame that is not
 * dropped goes on to what would have received it: xfab's XDP program by a
 * tail call (lf_next[0], the xdp datapath), or the kernel (XDP_PASS: the
 * tc datapath, whose tc ingress program then sees it). What it did is
 * counted in lf_stats, the oracle of the tests.
 *
 * A real switch's MAC drops a damaged frame for its FCS and counts it as an
 * FCS error; a veth carries no FCS, so the damage is put where xfab's own
 * checks find it and count it under a reason (xfabctl show drops):
 *   IPv4:  a bit of the header's identification field flipped: the header
 *          checksum no longer verifies (ipv4_bad_checksum);
 *   IPv6:  no header checksum; the version 6 becomes 7 (ipv6_bad_version);
 *   other: (ARP, LLDP, ...) the source MAC's group bit set (smac_multicast),
 *          a check xfab makes of every frame before its ethertype matters.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xfab_linkfault.h"

/* [0] -> the fault's settings, written by the tool before it attaches. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xfab_lf_conf);
} lf_conf SEC(".maps");

/* [0] -> what the program did, per CPU (no atomics). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xfab_lf_stats);
} lf_stats SEC(".maps");

/* [0] -> the device's own XDP program, out of its link while the fault is
 * in: the survivors run it. Pinned by the tool (a PROG_ARRAY is emptied
 * when no file descriptor or pin holds it any more). */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} lf_next SEC(".maps");

/* Damages the frame so that the receiver counts it malformed; counts what
 * it damaged. A frame too short to hold its header is left alone. */
static __always_inline void lf_corrupt(struct xdp_md *ctx, struct xfab_lf_stats *st)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct ipv6hdr *ip6h;
	struct iphdr *iph;

	if ((void *)(eth + 1) > data_end)
		return;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		iph = (void *)(eth + 1);
		if ((void *)(iph + 1) > data_end)
			return;
		/* one bit: the 16-bit ones' complement sum moves by 1, never
		 * by a multiple of 0xffff, so the checksum fails */
		iph->id ^= bpf_htons(1);
		st->corrupted_ipv4++;
		return;
	}
	if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		ip6h = (void *)(eth + 1);
		if ((void *)(ip6h + 1) > data_end)
			return;
		ip6h->version ^= 1; /* 6 -> 7 */
		st->corrupted_ipv6++;
		return;
	}
	eth->h_source[0] |= 1;
	st->corrupted_other++;
}

SEC("xdp")
int xfab_lf_fault(struct xdp_md *ctx)
{
	struct xfab_lf_stats *st;
	struct xfab_lf_conf *conf;
	__u32 key = 0;

	conf = bpf_map_lookup_elem(&lf_conf, &key);
	st = bpf_map_lookup_elem(&lf_stats, &key);
	if (!conf || !st) /* cannot happen: one-entry arrays */
		return XDP_PASS;
	st->seen++;
	if ((__u64)bpf_get_prandom_u32() < conf->threshold) {
		if (conf->mode == XFAB_LF_LOSS) {
			st->dropped++;
			return XDP_DROP;
		}
		lf_corrupt(ctx, st);
	}
	if (conf->chain) {
		bpf_tail_call(ctx, &lf_next, 0);
		/* here only if lf_next[0] is empty: the kernel has it */
		st->unchained++;
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
