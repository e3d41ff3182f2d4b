/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Next hops: whether one can carry traffic now (configured, its port up,
 * its device live), and the path's end written into the L3 decision (the
 * neighbour's MAC, the egress port and what the egress needs of it). */
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

/* Configured, and its port up as xfabd last wrote it: the up bits of the
 * nexthop's copy of its port's entry (xfabd writes them with the port's,
 * so a port it takes down stops its nexthops at once, packet by packet). */
static __always_inline int xfab_nh_up(const struct xfab_nexthop *nh)
{
	return nh && (nh->flags & XFAB_NH_VALID) && (nh->port.flags & XFAB_PORT_UP) == XFAB_PORT_UP;
}

/* A nexthop that can carry traffic now (xfab_nexthop_live), from its entry:
 * up (xfab_nh_up) and its device live (kern.h). The device is read per
 * packet, not cached per receive batch: the check is an array load and
 * three loads of a net_device the redirect touches anyway, and a batch's
 * identity would cost as much (kern.h's clock reads the task's redirect
 * state for it); with the check taken out, BPF_PROG_TEST_RUN timed the
 * 16-way ECMP path no faster (issue 31, on a device the port had noted). */
static __always_inline int xfab_nh_live(const struct xfab_nexthop *nh)
{
	return xfab_nh_up(nh) && xfab_port_dev_live(nh->ifindex);
}

/* Nexthop nh_id if it can carry traffic now (xfab_nh_live), else NULL:
 * its record holds its port's slot (the load counters) too. */
static __always_inline const struct xfab_nexthop *xfab_nexthop_live(__u32 nh_id)
{
	const struct xfab_nexthop *nh = bpf_map_lookup_elem(&nexthops, &nh_id);

	return xfab_nh_live(nh) ? nh : 0;
}

/* The path ends at nexthop nh: its neighbour MAC, its egress port and
 * what the egress needs of that port, all from the one record. */
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
	l3->out = nh->port;
	return XFAB_ACT_FORWARD;
}

static __always_inline int xfab_use_nexthop(__u32 nh_id, struct xfab_l3_decision *l3,
					    struct xfab_result *res)
{
	return xfab_use_nh(bpf_map_lookup_elem(&nexthops, &nh_id), l3, res);
}

/* A connected route's neighbour has no nexthop record: what the egress
 * needs of its port comes from the ports table (one lookup, only on this
 * path). A port xfabd does not know is down to the egress stage. */
static __always_inline void xfab_port_egress(struct xfab_nh_port *out, __u32 ifindex)
{
	const struct xfab_port *port = bpf_map_lookup_elem(&ports, &ifindex);

	if (!port || port->ifindex != ifindex) {
		out->flags = 0;
		return;
	}
	xfab_mac_copy(out->smac, port->mac);
	out->slot = port->slot;
	out->mtu = port->mtu;
	out->vnet = port->vnet;
	out->flags = port->flags;
}

/* The neighbour daddr (network order: IPv4's one word, IPv6's four) on
 * port ifindex, as the kernel resolved it; NULL when it has not. */
static __always_inline const struct xfab_neigh *xfab_neigh_lookup(__u32 ifindex, const __u32 *daddr,
								  int v6)
{
	struct xfab_neigh_key key = {.ifindex = ifindex};

	if (v6) {
		key.family = 10; /* AF_INET6 */
		__builtin_memcpy(key.addr, daddr, 16);
	} else {
		key.family = 2; /* AF_INET */
		__builtin_memcpy(key.addr, daddr, 4);
	}
	return bpf_map_lookup_elem(&neighbors, &key);
}

static __always_inline int xfab_use_neighbor(const struct xfab_meta *m, __u32 ifindex,
					     struct xfab_l3_decision *l3, struct xfab_result *res)
{
	const struct xfab_neigh *nb = xfab_neigh_lookup(ifindex, m->daddr, m->is_v6);

	if (!nb)
		return xfab_punt(res, XFAB_PUNT_NEIGH_UNRESOLVED);
	l3->egress_ifindex = ifindex;
	xfab_mac_copy(l3->dmac, nb->mac);
	xfab_port_egress(&l3->out, ifindex);
	return XFAB_ACT_FORWARD;
}

#endif
