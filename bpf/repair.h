/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* LOCAL_REPAIR: split horizon and the bounce of a dead path's packet
 * through the repair table's group, after the route's path was chosen. */
#ifndef XFAB_BPF_REPAIR_H
#define XFAB_BPF_REPAIR_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xfab_abi.h"
#include "maps.h"
#include "scratch.h"
#include "counters.h"
#include "kern.h"
#include "fib.h"
#include "nexthop.h"
#include "group.h"

/* The path chosen cannot carry the packet: every member of its group is
 * down, or its one nexthop's port is (or a connected route's port). */
static __always_inline int xfab_path_dead(int act, const struct xfab_result *res,
					  const struct xfab_route *rt, struct xfab_l3_decision *l3)
{
	if (act == XFAB_ACT_DROP)
		return res->reason == XFAB_DROP_GROUP_EMPTY;
	/* a port that lost its carrier loses its neighbours too; but a
	 * connected host unresolved on a live port is the kernel's to
	 * resolve, not a dead path: a connected route has no nexthop (and
	 * l3->nh_id, not cleared per packet, is the last packet's), its
	 * port decides (l3->out is free: the packet has no egress yet) */
	if (act == XFAB_ACT_PUNT && res->reason == XFAB_PUNT_NEIGH_UNRESOLVED) {
		if (rt->type != XFAB_RT_CONNECTED)
			return !xfab_nexthop_live(l3->nh_id);
		xfab_port_egress(&l3->out, rt->id);
		return (l3->out.flags & XFAB_PORT_UP) != XFAB_PORT_UP ||
		       !xfab_port_dev_live(rt->id);
	}
	if (act != XFAB_ACT_FORWARD || l3->egress_live)
		return 0;
	/* the path's port as its nexthop (or neighbour's port) carries it */
	return (l3->out.flags & XFAB_PORT_UP) != XFAB_PORT_UP ||
	       !xfab_port_dev_live(l3->egress_ifindex);
}

/*
 * LOCAL_REPAIR, after the route's path was chosen (act):
 *   split horizon: a group that chose the port the packet came in on takes
 *     another live member (in a Clos, a leaf sends a bounced packet up
 *     another spine, never back);
 *   bounce: a dead path's packet goes out of a repair port instead (a spine
 *     that lost its only link to a leaf sends it down to another leaf), the
 *     member the repair group picks for the flow, never the ingress port.
 * The routing protocol's convergence then makes both unnecessary. A
 * nexthop taken here is checked again at the egress.
 */
static __always_inline int xfab_local_repair(const struct xfab_meta *m,
					     const struct xfab_settings *cfg, __u32 ingress,
					     const struct xfab_route *rt, int act,
					     struct xfab_l3_decision *l3, struct xfab_result *res)
{
	struct xfab_route rep;
	__u32 nh;

	if ((cfg->flags & XFAB_SET_SPLIT_HORIZON) && act == XFAB_ACT_FORWARD &&
	    rt->type == XFAB_RT_GROUP && l3->egress_ifindex == ingress) {
		nh = xfab_member_avoiding(rt->id, ingress, l3->pick.hash);
		if (!nh)
			return act; /* the ingress port is the only way */
		if (!res->tracing)
			xfab_count_lb(XFAB_LB_SPLIT_HORIZON);
		l3->flags |= XFAB_TRACE_SPLIT_HORIZON;
		l3->nh_id = (__u16)nh;
		l3->egress_live = 0;
		return xfab_use_nexthop(nh, l3, res);
	}
	if (!(cfg->flags & XFAB_SET_REPAIR) || !xfab_path_dead(act, res, rt, l3))
		return act;
	if (!xfab_lookup_route(m, XFAB_TABLE_REPAIR, &rep) || rep.type != XFAB_RT_GROUP)
		return act;
	nh = xfab_group_pick(rep.id, res->tracing);
	if (nh == XFAB_PICK_INVALID || nh == XFAB_PICK_EMPTY)
		return act;
	{
		struct xfab_nexthop *v = bpf_map_lookup_elem(&nexthops, &nh);

		if (!v || v->ifindex == ingress || !xfab_nh_live(v))
			nh = xfab_member_avoiding(rep.id, ingress, l3->pick.hash);
	}
	if (!nh)
		return act;
	if (!res->tracing)
		xfab_count_lb(XFAB_LB_REPAIRED);
	l3->flags |= XFAB_TRACE_REPAIRED;
	l3->group = (__u16)rep.id;
	l3->nh_id = (__u16)nh;
	l3->egress_live = 0;
	res->action = XFAB_ACT_FORWARD;
	res->reason = 0;
	return xfab_use_nexthop(nh, l3, res);
}

#endif
