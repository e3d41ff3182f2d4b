/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* L3 stages: LPM lookup, path selection over a group's buckets, neighbour
 * resolution, and the header rewrite. */
#ifndef XFAB_BPF_L3_H
#define XFAB_BPF_L3_H

struct xfab_l3_decision {
	__u32 egress_ifindex;
	__u8 dmac[6];
	__u16 pad;
};

static __always_inline struct xfab_route *xfab_lookup_route(struct xfab_meta *m)
{
	if (m->flow.is_v6) {
		struct xfab_lpm_v6_key key = {.prefixlen = 32 + 128, .table = XFAB_TABLE_DEFAULT};

		__builtin_memcpy(key.addr, m->flow.dst, 16);
		return bpf_map_lookup_elem(&routes_v6, &key);
	} else {
		struct xfab_lpm_v4_key key = {.prefixlen = 32 + 32, .table = XFAB_TABLE_DEFAULT};

		__builtin_memcpy(key.addr, m->flow.dst, 4);
		return bpf_map_lookup_elem(&routes_v4, &key);
	}
}

static __always_inline __u8 xfab_ttl(struct xfab_meta *m)
{
	if (m->flow.is_v6)
		return ((struct ipv6hdr *)m->l3)->hop_limit;
	return ((struct iphdr *)m->l3)->ttl;
}

/* Group: the flow hash picks a bucket, the bucket names a nexthop id. */
static __always_inline int xfab_select_member(struct xfab_meta *m, __u32 group_id, __u32 *nh_id,
					      struct xfab_result *res)
{
	struct xfab_group *grp = bpf_map_lookup_elem(&nh_groups, &group_id);
	struct xfab_settings *cfg;
	__u32 zero = 0, seed = 0, hash;

	if (!grp || grp->num_members == 0)
		return xfab_drop(res, XFAB_DROP_NEXTHOP_INVALID);
	if (grp->live_members == 0)
		return xfab_drop(res, XFAB_DROP_GROUP_EMPTY);
	cfg = bpf_map_lookup_elem(&settings, &zero);
	if (cfg)
		seed = cfg->hash_seed;
	hash = xfab_flow_hash(&m->flow, seed);
	*nh_id = grp->buckets[XFAB_HASH_BUCKET(hash)];
	return XFAB_ACT_FORWARD;
}

static __always_inline int xfab_use_nexthop(__u32 nh_id, struct xfab_l3_decision *l3,
					    struct xfab_result *res)
{
	struct xfab_nexthop *nh = bpf_map_lookup_elem(&nexthops, &nh_id);

	if (!nh || !(nh->flags & XFAB_NH_VALID))
		return xfab_drop(res, XFAB_DROP_NEXTHOP_INVALID);
	/* The kernel resolves the neighbour and forwards this one itself. */
	if (!(nh->flags & XFAB_NH_RESOLVED))
		return xfab_punt(res, XFAB_PUNT_NEIGH_UNRESOLVED);
	l3->egress_ifindex = nh->ifindex;
	__builtin_memcpy(l3->dmac, nh->dmac, 6);
	return XFAB_ACT_FORWARD;
}

static __always_inline int xfab_use_neighbor(struct xfab_meta *m, __u32 ifindex,
					     struct xfab_l3_decision *l3, struct xfab_result *res)
{
	struct xfab_neigh_key key = {.ifindex = ifindex};
	struct xfab_neigh *nb;

	if (m->flow.is_v6) {
		key.family = 10; /* AF_INET6 */
		__builtin_memcpy(key.addr, m->flow.dst, 16);
	} else {
		key.family = 2; /* AF_INET */
		__builtin_memcpy(key.addr, m->flow.dst, 4);
	}
	nb = bpf_map_lookup_elem(&neighbors, &key);
	if (!nb)
		return xfab_punt(res, XFAB_PUNT_NEIGH_UNRESOLVED);
	l3->egress_ifindex = ifindex;
	__builtin_memcpy(l3->dmac, nb->mac, 6);
	return XFAB_ACT_FORWARD;
}

static __always_inline int xfab_stage_l3(struct xfab_meta *m, struct xfab_l3_decision *l3,
					 struct xfab_result *res)
{
	struct xfab_route *rt = xfab_lookup_route(m);
	__u32 nh_id;
	int act;

	if (!rt)
		return xfab_drop(res, XFAB_DROP_NO_ROUTE);
	if (rt->type == XFAB_RT_LOCAL)
		return xfab_punt(res, XFAB_PUNT_TO_SELF);
	if (rt->type == XFAB_RT_BLACKHOLE)
		return xfab_drop(res, XFAB_DROP_BLACKHOLE);
	/* The kernel owns ICMP time exceeded, so traceroute sees this hop. */
	if (xfab_ttl(m) <= 1)
		return xfab_punt(res, XFAB_PUNT_TTL_EXPIRED);

	switch (rt->type) {
	case XFAB_RT_CONNECTED:
		return xfab_use_neighbor(m, rt->id, l3, res);
	case XFAB_RT_NEXTHOP:
		return xfab_use_nexthop(rt->id, l3, res);
	case XFAB_RT_GROUP:
		act = xfab_select_member(m, rt->id, &nh_id, res);
		if (act != XFAB_ACT_FORWARD)
			return act;
		return xfab_use_nexthop(nh_id, l3, res);
	default:
		return xfab_drop(res, XFAB_DROP_NEXTHOP_INVALID);
	}
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

static __always_inline void xfab_rewrite(struct xfab_meta *m, const __u8 *dmac, const __u8 *smac)
{
	__builtin_memcpy(m->eth->h_dest, dmac, 6);
	__builtin_memcpy(m->eth->h_source, smac, 6);
	if (m->flow.is_v6)
		((struct ipv6hdr *)m->l3)->hop_limit--;
	else
		xfab_ipv4_decrement_ttl(m->l3);
}

#endif
