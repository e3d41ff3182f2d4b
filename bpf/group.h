/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Path selection: a route names a nexthop, a connected subnet or a group
 * (ECMP, weighted, resilient: buckets xfabd fills); a group's member is
 * the flow's bucket or the flowlet's, and a member whose port just went
 * down gives way to another live one. */
#ifndef XFAB_BPF_GROUP_H
#define XFAB_BPF_GROUP_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xfab_abi.h"
#include "xfab_hash.h"
#include "maps.h"
#include "scratch.h"
#include "counters.h"
#include "bench.h"
#include "nexthop.h"
#include "flowlet.h"
#include "spec.h"

#define XFAB_PICK_INVALID 0	    /* no such group */
#define XFAB_PICK_EMPTY 0xffffffffu /* every member down */

/*
 * Group member selection: the selected flow's hash picks a bucket (or
 * flowlets decide); the bucket names a nexthop id. A global function, so
 * the verifier checks it once instead of on every path that reaches it.
 * Its input (the flow) and what it reports (struct xfab_pick) are in the
 * scratch slot of the packet (tracing picks the slot).
 */
__attribute__((noinline)) __u32 xfab_group_pick(__u32 group_id, __u32 tracing)
{
	struct xfab_scratch *s = xfab_scratch(tracing ? XFAB_SCRATCH_TRACE : XFAB_SCRATCH_DATA);
	const struct xfab_settings *cfg;
	struct xfab_pick *info;
	struct xfab_group *grp;
	__u32 zero = 0, hash;

	cfg = bpf_map_lookup_elem(&settings, &zero);
	grp = bpf_map_lookup_elem(&nh_groups, &group_id);
	if (!s || !cfg || !grp || grp->num_members == 0)
		return XFAB_PICK_INVALID;
	if (grp->live_members == 0)
		return XFAB_PICK_EMPTY;
	info = &s->l3.pick;
	s->fk.group = group_id;
	if (xfab_code_on(XFAB_CODE_SYMMETRIC) &&
	    (cfg->flags & XFAB_SET_SYMMETRIC)) { /* both directions' ends in one order */
		s->fk.flow = s->m.flow;
		xfab_flow_select(&s->fk.flow, cfg->hash_fields, 1);
		hash = xfab_flow_hash(&s->fk.flow, &cfg->ecmp_key);
	} else {
		hash = xfab_flow_hash(&s->m.flow, &cfg->ecmp_key);
	}
	info->hash = hash;
	info->bucket = (__u16)XFAB_HASH_BUCKET(hash);
	info->flags |= XFAB_TRACE_GROUP;
	if (xfab_code_on(XFAB_CODE_FLOWLET) && (cfg->flags & XFAB_SET_FLOWLET))
		return xfab_flowlet_select(cfg, grp, &s->fk, hash, info, xfab_clock_now(&s->clock));
	return grp->buckets[XFAB_HASH_BUCKET(hash)];
}

/*
 * The bucket's member for the packet's flow in group_id, or XFAB_PICK_*.
 * Inline but for symmetric ordering and traces (xfab_group_pick, which
 * does the same and more): the hash, then one load, or the flowlet.
 */
static __always_inline __u32 xfab_pick_member(struct xfab_scratch *s,
					      const struct xfab_settings *cfg, __u32 group_id,
					      int tracing)
{
	const struct xfab_group *grp;
	__u32 hash;

	if (tracing || (xfab_code_on(XFAB_CODE_SYMMETRIC) && (cfg->flags & XFAB_SET_SYMMETRIC)))
		return xfab_group_pick(group_id, tracing);
	grp = bpf_map_lookup_elem(&nh_groups, &group_id);
	if (!grp || grp->num_members == 0)
		return XFAB_PICK_INVALID;
	if (grp->live_members == 0)
		return XFAB_PICK_EMPTY;
	hash = xfab_flow_hash(&s->m.flow, &cfg->ecmp_key);
	s->l3.pick.hash = hash;
	if (xfab_code_on(XFAB_CODE_FLOWLET) && (cfg->flags & XFAB_SET_FLOWLET)) {
		s->fk.group = group_id;
		return xfab_flowlet_select(cfg, grp, &s->fk, hash, &s->l3.pick,
					   xfab_clock_now(&s->clock));
	}
	return grp->buckets[XFAB_HASH_BUCKET(hash)];
}

/*
 * A member of group_id whose port is up and is not port avoid (0: any),
 * walking the members from index start (the flow's hash, so a flow keeps
 * its choice); 0 if there is none. LOCAL_REPAIR's split horizon and
 * bounce, and a group member whose port just went down. A global function: the verifier
 * checks its bounded walk once.
 */
__attribute__((noinline)) __u32 xfab_member_avoiding(__u32 group_id, __u32 avoid, __u32 start)
{
	struct xfab_group *grp = bpf_map_lookup_elem(&nh_groups, &group_id);
	__u32 n;

	if (!grp)
		return 0;
	n = grp->num_members;
	if (n == 0 || n > XFAB_GROUP_MAX_MEMBERS)
		return 0;
	for (__u32 i = 0; i < XFAB_GROUP_MAX_MEMBERS; i++) {
		struct xfab_nexthop *nh;
		__u32 id;

		if (i >= n)
			break;
		id = grp->members[((start % n) + i) % n & (XFAB_GROUP_MAX_MEMBERS - 1)];
		nh = bpf_map_lookup_elem(&nexthops, &id);
		if (nh && nh->ifindex != avoid && xfab_nh_live(nh))
			return id;
	}
	return 0;
}

/* Nexthop or group route -> a member nexthop. */
static __always_inline int xfab_use_path(struct xfab_scratch *s, const struct xfab_settings *cfg,
					 const struct xfab_route *rt, int tracing, int bench)
{
	struct xfab_l3_decision *l3 = &s->l3;
	struct xfab_result *res = &s->res;
	const struct xfab_nexthop *nh;
	__u32 nh_id;

	l3->route_type = (__u8)rt->type;
	switch (rt->type) {
	case XFAB_RT_CONNECTED:
		return xfab_use_neighbor(&s->m, rt->id, l3, res);
	case XFAB_RT_NEXTHOP:
		l3->nh_id = (__u16)rt->id;
		if (xfab_bench_stops_after(bench, XFAB_BENCH_PICK))
			return XFAB_ACT_BENCH;
		return xfab_use_nexthop(rt->id, l3, res);
	case XFAB_RT_GROUP:
		l3->group = (__u16)rt->id;
		nh_id = xfab_pick_member(s, cfg, rt->id, tracing);
		if (nh_id == XFAB_PICK_INVALID)
			return xfab_drop(res, XFAB_DROP_NEXTHOP_INVALID);
		if (nh_id == XFAB_PICK_EMPTY)
			return xfab_drop(res, XFAB_DROP_GROUP_EMPTY);
		if (xfab_bench_stops_after(bench, XFAB_BENCH_PICK))
			return XFAB_ACT_BENCH;
		/* The member must carry now, its port up and its device live
		 * (the egress check, done here once). If its port went down
		 * and the group's buckets do not know yet (xfabd rewrites them
		 * when it hears; the tc datapath's egress takes a port out as
		 * it fails): another live member, the flow's own. */
		nh = bpf_map_lookup_elem(&nexthops, &nh_id);
		if (l3->pick.live || xfab_nh_live(nh)) {
			l3->egress_live = 1;
		} else {
			__u32 live = xfab_member_avoiding(rt->id, 0, l3->pick.hash);

			if (live) {
				nh_id = live;
				nh = bpf_map_lookup_elem(&nexthops, &nh_id);
			}
		}
		l3->nh_id = (__u16)nh_id;
		return xfab_use_nh(nh, l3, res);
	default:
		return xfab_drop(res, XFAB_DROP_NEXTHOP_INVALID);
	}
}

#endif
