/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Next hops: whether one can carry traffic now (configured, its port up,
 * its device live), and the path's end written into the L3 decision (the
 * neighbour's MAC and the egress port). */
#ifndef XFAB_BPF_NEXTHOP_H
#define XFAB_BPF_NEXTHOP_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xfab_abi.h"
#include "maps.h"
#include "ctx.h"
#include "scratch.h"
#include "counters.h"
#include "kern.h"

/* A nexthop that can carry traffic now: configured, its port up in the
 * ports table and its device up with a carrier (kern.h). Returns its port
 * (for the load counters) or NULL. */
static __always_inline const struct xfab_port *xfab_nexthop_port(__u32 nh_id)
{
	struct xfab_nexthop *nh = bpf_map_lookup_elem(&nexthops, &nh_id);
	const struct xfab_port *port;

	if (!nh || !(nh->flags & XFAB_NH_VALID))
		return 0;
	port = bpf_map_lookup_elem(&ports, &nh->ifindex);
	if (!port || port->ifindex != nh->ifindex || (port->flags & XFAB_PORT_UP) != XFAB_PORT_UP ||
	    !xfab_port_dev_live(nh->ifindex))
		return 0;
	return port;
}

/* A nexthop that can carry traffic now (xfab_nexthop_port), from its entry. */
static __always_inline int xfab_nh_live(const struct xfab_nexthop *nh)
{
	const struct xfab_port *port;
	__u32 ifindex;

	if (!nh || !(nh->flags & XFAB_NH_VALID))
		return 0;
	ifindex = nh->ifindex;
	port = bpf_map_lookup_elem(&ports, &ifindex);
	return port && port->ifindex == ifindex && (port->flags & XFAB_PORT_UP) == XFAB_PORT_UP &&
	       xfab_port_dev_live(ifindex);
}

/* The path ends at nexthop nh: its neighbour MAC and egress port. */
static __always_inline int xfab_use_nh(const struct xfab_nexthop *nh, struct xfab_l3_decision *l3,
				       struct xfab_result *res)
{
	if (!nh || !(nh->flags & XFAB_NH_VALID))
		return xfab_drop(res, XFAB_DROP_NEXTHOP_INVALID);
	/* The kernel resolves the neighbour and forwards this one itself. */
	if (!(nh->flags & XFAB_NH_RESOLVED))
		return xfab_punt(res, XFAB_PUNT_NEIGH_UNRESOLVED);
	l3->egress_ifindex = nh->ifindex;
	xfab_mac_copy(l3->dmac, nh->dmac);
	return XFAB_ACT_FORWARD;
}

static __always_inline int xfab_use_nexthop(__u32 nh_id, struct xfab_l3_decision *l3,
					    struct xfab_result *res)
{
	return xfab_use_nh(bpf_map_lookup_elem(&nexthops, &nh_id), l3, res);
}

static __always_inline int xfab_use_neighbor(const struct xfab_meta *m, __u32 ifindex,
					     struct xfab_l3_decision *l3, struct xfab_result *res)
{
	struct xfab_neigh_key key = {.ifindex = ifindex};
	struct xfab_neigh *nb;

	if (m->is_v6) {
		key.family = 10; /* AF_INET6 */
		__builtin_memcpy(key.addr, m->daddr, 16);
	} else {
		key.family = 2; /* AF_INET */
		__builtin_memcpy(key.addr, m->daddr, 4);
	}
	nb = bpf_map_lookup_elem(&neighbors, &key);
	if (!nb)
		return xfab_punt(res, XFAB_PUNT_NEIGH_UNRESOLVED);
	l3->egress_ifindex = ifindex;
	xfab_mac_copy(l3->dmac, nb->mac);
	return XFAB_ACT_FORWARD;
}

#endif
