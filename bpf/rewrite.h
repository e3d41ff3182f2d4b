/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The header rewrite after the L3 decision: MACs, TTL or hop limit, and
 * the IPv4 checksum (csum.h). */
#ifndef XFAB_BPF_REWRITE_H
#define XFAB_BPF_REWRITE_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>

#include "xfab_abi.h"
#include "ctx.h"
#include "csum.h"
#include "scratch.h"

/* Rewrite: MACs, TTL/hop limit and the IPv4 checksum. The headers are
 * found again from the offsets the parser recorded. */
static __always_inline void xfab_rewrite(const struct xfab_ctx *c, const struct xfab_meta *m,
					 const __u8 *dmac, const __u8 *smac, int ttl)
{
	struct ethhdr *eth = xfab_ctx_hdr(c, 0, sizeof(*eth));

	if (eth) {
		xfab_mac_copy(eth->h_dest, dmac);
		xfab_mac_copy(eth->h_source, smac);
	}
	if (!ttl) /* an outer header this switch wrote: TTL 64 as sent */
		return;
	if (m->is_v6) {
		struct ipv6hdr *ip6h = xfab_ctx_hdr(c, m->l3_off, sizeof(*ip6h));

		if (ip6h)
			ip6h->hop_limit--;
	} else {
		struct iphdr *iph = xfab_ctx_hdr(c, m->l3_off, sizeof(*iph));

		if (iph)
			xfab_ipv4_decrement_ttl(iph);
	}
}

#endif
