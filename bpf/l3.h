/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* L3 stages: TE override, LPM lookup, path selection (hash over a group's
 * buckets, or flowlets), neighbour resolution, and the header rewrite. */
#ifndef XFAB_BPF_L3_H
#define XFAB_BPF_L3_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xfab_abi.h"
#include "xfab_hash.h"
#include "maps.h"
#include "ctx.h"
#include "csum.h"
#include "scratch.h"
#include "counters.h"
#include "kern.h"
#include "bench.h"

/* One level of a FIB walk: the entry of group g for the next address byte. */
static __always_inline __u32 xfab_fib_group_entry(void *tbl8, __u32 v, __u32 byte)
{
	__u32 idx = (v & XFAB_FIB4_ID_MASK) << 8 | byte, key = idx >> 1;
	__u32 *e = bpf_map_lookup_elem(tbl8, &key);

	return e ? e[idx & 1] : 0;
}

/* Table 0, IPv4: the FIB entry; one load for a prefix up to /16, two up to
 * /24, three for longer ones (xfab_abi.h). */
static __always_inline __u32 xfab_fib4_entry(__be32 daddr)
{
	__u32 a = bpf_ntohl(daddr), idx = a >> 16, key = idx >> 1, v = 0;
	__u32 *e = bpf_map_lookup_elem(&fib4_tbl16, &key); /* entries 2k, 2k+1 */

	if (e)
		v = e[idx & 1];
	if (v & XFAB_FIB4_EXT) {
		v = xfab_fib_group_entry(&fib4_tbl8, v, (a >> 8) & 0xff);
		if (v & XFAB_FIB4_EXT)
			v = xfab_fib_group_entry(&fib4_tbl8, v, a & 0xff);
	}
	return (v & XFAB_FIB4_EXT) ? 0 : v;
}

/* Table 0, IPv6: the FIB entry, one load per level (16 bits, then a byte
 * at a time while the entry points at a group). A global function of the
 * address words (network order, as read): verified once, not once per
 * level at every call site. */
__attribute__((noinline)) __u32 xfab_fib6_walk(__u32 w0, __u32 w1, __u32 w2, __u32 w3)
{
	__u32 w[4] = {w0, w1, w2, w3};
	__u32 idx = (w0 & 0xff) << 8 | ((w0 >> 8) & 0xff), key = idx >> 1, v = 0;
	__u32 *e = bpf_map_lookup_elem(&fib6_tbl16, &key);

	if (e)
		v = e[idx & 1];
	for (int b = 2; b < 16; b++) { /* bounded: at most 14 levels */
		if (!(v & XFAB_FIB6_EXT))
			break;
		idx = (v & XFAB_FIB6_ID_MASK) << 8 | ((w[b >> 2] >> ((b & 3) * 8)) & 0xff);
		key = idx >> 1;
		e = bpf_map_lookup_elem(&fib6_tbl8, &key);
		v = e ? e[idx & 1] : 0;
	}
	return (v & XFAB_FIB6_EXT) ? 0 : v;
}

/* Looks the outer destination up in routing table `table`; 1 if a route
 * matched (copied to out). */
static __always_inline int xfab_lookup_route(const struct xfab_meta *m, __u32 table,
					     struct xfab_route *out)
{
	struct xfab_route *rt;

	if (m->is_v6 && table == XFAB_TABLE_DEFAULT) {
		__u32 v = xfab_fib6_walk(m->daddr[0], m->daddr[1], m->daddr[2], m->daddr[3]);

		out->type = v >> XFAB_FIB4_TYPE_SHIFT;
		out->id = v & XFAB_FIB6_ID_MASK;
		return v != 0;
	} else if (m->is_v6) {
		struct xfab_lpm_v6_key key = {.prefixlen = 32 + 128, .table = bpf_htonl(table)};

		__builtin_memcpy(key.addr, m->daddr, 16);
		rt = bpf_map_lookup_elem(&routes_v6, &key);
	} else if (table == XFAB_TABLE_DEFAULT) {
		__u32 v = xfab_fib4_entry(m->daddr[0]);

		out->type = v >> XFAB_FIB4_TYPE_SHIFT;
		out->id = v & XFAB_FIB4_ID_MASK;
		return v != 0;
	} else {
		struct xfab_lpm_v4_key key = {.prefixlen = 32 + 32, .table = bpf_htonl(table)};

		__builtin_memcpy(key.addr, m->daddr, 4);
		rt = bpf_map_lookup_elem(&routes_v4, &key);
	}
	if (!rt)
		return 0;
	*out = *rt;
	return 1;
}

static __always_inline void xfab_count_lb(__u32 event)
{
	__u64 *cnt = bpf_map_lookup_elem(&lb_stats, &event);

	if (cnt)
		(*cnt)++;
}

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

/* Bytes a port sent in the current and the previous load window. */
static __always_inline __u64 xfab_port_recent_bytes(__u32 slot, __u64 now, __u64 window)
{
	struct xfab_port_load *l = bpf_map_lookup_elem(&port_load, &slot);
	__u64 age;

	if (!l)
		return 0;
	age = now > l->window_start_ns ? now - l->window_start_ns : 0;
	if (age < window)
		return l->bytes + l->last_bytes;
	if (age < 2 * window)
		return l->bytes;
	return 0;
}

static __always_inline void xfab_port_account_load(__u32 slot, __u32 bytes, __u64 now, __u64 window)
{
	struct xfab_port_load *l = bpf_map_lookup_elem(&port_load, &slot);
	__u64 age;

	if (!l)
		return;
	age = now > l->window_start_ns ? now - l->window_start_ns : 0;
	if (age >= window) {
		/* Roll the window; a racing CPU may roll it too, which only
		 * loses a few bytes of history. */
		l->last_bytes = age < 2 * window ? l->bytes : 0;
		l->bytes = 0;
		l->window_start_ns = now;
	}
	__sync_fetch_and_add(&l->bytes, bytes);
}

#define XFAB_PICK_INVALID 0	    /* no such group */
#define XFAB_PICK_EMPTY 0xffffffffu /* every member down */

/* Least loaded live member, by bytes its port sent lately. The scan starts
 * at a hash-chosen member so ties spread. It runs under bpf_loop(), so the
 * verifier checks one step instead of 64 unrolled ones. */
struct xfab_ll_scan {
	__u32 group_id;
	__u32 n;
	__u32 start;
	__u32 best;
	__u64 best_load;
	__u64 now;
	__u64 window;
};

static long xfab_ll_step(__u32 i, void *data)
{
	struct xfab_ll_scan *c = data;
	struct xfab_group *grp = bpf_map_lookup_elem(&nh_groups, &c->group_id);
	const struct xfab_port *port;
	__u32 idx, nh_id;
	__u64 load;

	if (!grp)
		return 1;
	idx = c->start + i;
	if (idx >= c->n)
		idx -= c->n;
	nh_id = grp->members[idx & (XFAB_GROUP_MAX_MEMBERS - 1)];
	port = xfab_nexthop_port(nh_id);
	if (!port)
		return 0;
	load = xfab_port_recent_bytes(port->slot, c->now, c->window);
	if (load < c->best_load) {
		c->best_load = load;
		c->best = nh_id;
	}
	return 0;
}

static __always_inline __u32 xfab_least_loaded(const struct xfab_group *grp, __u32 group_id,
					       __u32 hash, __u64 now, __u64 window)
{
	struct xfab_ll_scan c = {
	    .group_id = group_id,
	    .n = grp->num_members,
	    .best = grp->buckets[XFAB_HASH_BUCKET(hash)],
	    .best_load = ~0ULL,
	    .now = now,
	    .window = window,
	};

	if (c.n == 0 || c.n > XFAB_GROUP_MAX_MEMBERS)
		return c.best;
	c.start = hash % c.n;
	bpf_loop(c.n, xfab_ll_step, &c, 0);
	return c.best;
}

/*
 * Flowlets: a flow keeps its member while its packets come closer than the
 * gap; after a longer silence the next packet starts a new flowlet and picks
 * again (random bucket, or least loaded member). A flowlet whose member went
 * down re-selects at once. The table is indexed by hash (XFAB_FLOWLET_SLOT):
 * a slot last used by another group, or never, starts a flowlet too.
 */
static __always_inline __u32 xfab_flowlet_select(const struct xfab_settings *cfg,
						 const struct xfab_group *grp,
						 const struct xfab_flowlet_key *fk, __u32 hash,
						 struct xfab_pick *info, __u64 now)
{
	__u32 slot = XFAB_FLOWLET_SLOT(hash, fk->group), nh_id;
	struct xfab_flowlet *fl = bpf_map_lookup_elem(&flowlets, &slot);
	int live;

	if (!fl)
		return grp->buckets[XFAB_HASH_BUCKET(hash)];
	live = fl->last_seen_ns && fl->group == fk->group;
	/* another CPU's packet of the slot may carry a later time than ours
	 * (each CPU's clock is its batch's, kern.h): no idle time then */
	if (live)
		info->idle_ns = now > fl->last_seen_ns ? now - fl->last_seen_ns : 0;
	if (info->tracing) {
		/* Read only: what the next packet would do. A new flowlet's
		 * member is a random draw; the hash bucket stands in for it. */
		if (live && info->idle_ns < cfg->flowlet_gap_ns && xfab_nexthop_port(fl->nh_id)) {
			info->flags |= XFAB_TRACE_FLOWLET_CONT;
			return fl->nh_id;
		}
		info->flags |= XFAB_TRACE_FLOWLET_NEW;
		return grp->buckets[XFAB_HASH_BUCKET(hash)];
	}

	if (live && info->idle_ns < cfg->flowlet_gap_ns) {
		if (xfab_nexthop_port(fl->nh_id)) {
			if (now > fl->last_seen_ns)
				fl->last_seen_ns = now;
			info->live = 1;
			xfab_count_lb(XFAB_LB_FLOWLET_HIT);
			return fl->nh_id;
		}
		xfab_count_lb(XFAB_LB_FLOWLET_DEAD);
	}
	if (cfg->flowlet_mode == XFAB_FLOWLET_LEAST_LOADED)
		nh_id = xfab_least_loaded(grp, fk->group, hash, now, cfg->load_window_ns);
	else
		nh_id = grp->buckets[XFAB_HASH_BUCKET(bpf_get_prandom_u32())];
	xfab_count_lb(XFAB_LB_FLOWLET_NEW);
	if (live && fl->nh_id != nh_id)
		xfab_count_lb(XFAB_LB_FLOWLET_MOVED);
	if (!live) { /* this flow takes the slot */
		fl->group = fk->group;
		fl->hash = hash;
		fl->flowlets = 0;
	}
	fl->nh_id = nh_id;
	fl->last_seen_ns = now;
	fl->flowlets++;
	return nh_id;
}

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
	if (cfg->flags & XFAB_SET_SYMMETRIC) { /* both directions' ends in one order */
		s->fk.flow = s->m.flow;
		xfab_flow_select(&s->fk.flow, cfg->hash_fields, 1);
		hash = xfab_flow_hash(&s->fk.flow, &cfg->ecmp_key);
	} else {
		hash = xfab_flow_hash(&s->m.flow, &cfg->ecmp_key);
	}
	info->hash = hash;
	info->bucket = (__u16)XFAB_HASH_BUCKET(hash);
	info->flags |= XFAB_TRACE_GROUP;
	if (cfg->flags & XFAB_SET_FLOWLET)
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

	if (tracing || (cfg->flags & XFAB_SET_SYMMETRIC))
		return xfab_group_pick(group_id, tracing);
	grp = bpf_map_lookup_elem(&nh_groups, &group_id);
	if (!grp || grp->num_members == 0)
		return XFAB_PICK_INVALID;
	if (grp->live_members == 0)
		return XFAB_PICK_EMPTY;
	hash = xfab_flow_hash(&s->m.flow, &cfg->ecmp_key);
	s->l3.pick.hash = hash;
	if (cfg->flags & XFAB_SET_FLOWLET) {
		s->fk.group = group_id;
		return xfab_flowlet_select(cfg, grp, &s->fk, hash, &s->l3.pick,
					   xfab_clock_now(&s->clock));
	}
	return grp->buckets[XFAB_HASH_BUCKET(hash)];
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
		if (nh && nh->ifindex != avoid && xfab_nexthop_port(id))
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

/* The path chosen cannot carry the packet: every member of its group is
 * down, or its one nexthop's port is. */
static __always_inline int xfab_path_dead(int act, const struct xfab_result *res,
					  const struct xfab_l3_decision *l3)
{
	const struct xfab_port *out;
	__u32 ifindex = l3->egress_ifindex;

	if (act == XFAB_ACT_DROP)
		return res->reason == XFAB_DROP_GROUP_EMPTY;
	/* a port that lost its carrier loses its neighbours too */
	if (act == XFAB_ACT_PUNT && res->reason == XFAB_PUNT_NEIGH_UNRESOLVED)
		return !xfab_nexthop_port(l3->nh_id);
	if (act != XFAB_ACT_FORWARD || l3->egress_live)
		return 0;
	out = bpf_map_lookup_elem(&ports, &ifindex);
	return !out || (out->flags & XFAB_PORT_UP) != XFAB_PORT_UP || !xfab_port_dev_live(ifindex);
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
	if (!(cfg->flags & XFAB_SET_REPAIR) || !xfab_path_dead(act, res, l3))
		return act;
	if (!xfab_lookup_route(m, XFAB_TABLE_REPAIR, &rep) || rep.type != XFAB_RT_GROUP)
		return act;
	nh = xfab_group_pick(rep.id, res->tracing);
	if (nh == XFAB_PICK_INVALID || nh == XFAB_PICK_EMPTY)
		return act;
	{
		struct xfab_nexthop *v = bpf_map_lookup_elem(&nexthops, &nh);

		if (!v || v->ifindex == ingress || !xfab_nexthop_port(nh))
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

/* A TE entry can steer only while its path is up. */
static __always_inline int xfab_te_usable(const struct xfab_route *te)
{
	if (te->type == XFAB_RT_NEXTHOP)
		return xfab_nexthop_port(te->id) != 0;
	if (te->type == XFAB_RT_GROUP) {
		struct xfab_group *grp = bpf_map_lookup_elem(&nh_groups, &te->id);

		return grp && grp->live_members > 0;
	}
	return 0;
}

static __always_inline int xfab_stage_l3(struct xfab_scratch *s, const struct xfab_settings *cfg,
					 __u32 ingress_ifindex, int tracing, int bench)
{
	const struct xfab_meta *m = &s->m;
	struct xfab_l3_decision *l3 = &s->l3;
	struct xfab_result *res = &s->res;
	struct xfab_route rt, te;
	int act, have_rt;

	have_rt = xfab_lookup_route(m, XFAB_TABLE_DEFAULT, &rt);
	if (have_rt && rt.type == XFAB_RT_LOCAL) {
		l3->route_type = XFAB_RT_LOCAL;
		return xfab_punt(res, XFAB_PUNT_TO_SELF);
	}
	/* TE: exact <ingress port, destination prefix> entries override. */
	if ((cfg->flags & XFAB_SET_TE) &&
	    xfab_lookup_route(m, XFAB_TABLE_TE | ingress_ifindex, &te)) {
		/* The kernel owns ICMP time exceeded, so traceroute sees this hop. */
		if (m->ttl <= 1)
			return xfab_punt(res, XFAB_PUNT_TTL_EXPIRED);
		if (xfab_te_usable(&te)) {
			if (!tracing)
				xfab_count_lb(XFAB_LB_TE_HIT);
			l3->flags |= XFAB_TRACE_TE_HIT;
			if (xfab_bench_stops_after(bench, XFAB_BENCH_FIB))
				return XFAB_ACT_BENCH;
			return xfab_use_path(s, cfg, &te, tracing, bench);
		}
		/* Pinned path down: the route's own group carries on. */
		if (!tracing)
			xfab_count_lb(XFAB_LB_TE_FALLBACK);
		l3->flags |= XFAB_TRACE_TE_FALLBACK;
	}
	if (!have_rt)
		return xfab_drop(res, XFAB_DROP_NO_ROUTE);
	l3->route_type = (__u8)rt.type;
	if (m->ttl <= 1)
		return xfab_punt(res, XFAB_PUNT_TTL_EXPIRED);
	if (rt.type == XFAB_RT_BLACKHOLE) {
		l3->route_type = XFAB_RT_BLACKHOLE;
		return xfab_drop(res, XFAB_DROP_BLACKHOLE);
	}
	if (xfab_bench_stops_after(bench, XFAB_BENCH_FIB))
		return XFAB_ACT_BENCH;
	act = xfab_use_path(s, cfg, &rt, tracing, bench);
	if (cfg->flags & (XFAB_SET_REPAIR | XFAB_SET_SPLIT_HORIZON))
		act = xfab_local_repair(m, cfg, ingress_ifindex, &rt, act, l3, res);
	return act;
}

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
