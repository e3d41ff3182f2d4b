/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Flowlets (docs/LOAD_BALANCING.md): a flow keeps its member while its
 * packets come close together; a new flowlet picks at random or the least
 * loaded member, by the bytes each port sent lately (the port load
 * windows, charged at the egress). */
#ifndef XFAB_BPF_FLOWLET_H
#define XFAB_BPF_FLOWLET_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xfab_abi.h"
#include "xfab_hash.h"
#include "maps.h"
#include "scratch.h"
#include "counters.h"
#include "nexthop.h"

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
	const struct xfab_nexthop *nh;
	__u32 idx, nh_id;
	__u64 load;

	if (!grp)
		return 1;
	idx = c->start + i;
	if (idx >= c->n)
		idx -= c->n;
	nh_id = grp->members[idx & (XFAB_GROUP_MAX_MEMBERS - 1)];
	nh = xfab_nexthop_live(nh_id);
	if (!nh)
		return 0;
	load = xfab_port_recent_bytes(nh->port.slot, c->now, c->window);
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
		if (live && info->idle_ns < cfg->flowlet_gap_ns && xfab_nexthop_live(fl->nh_id)) {
			info->flags |= XFAB_TRACE_FLOWLET_CONT;
			return fl->nh_id;
		}
		info->flags |= XFAB_TRACE_FLOWLET_NEW;
		return grp->buckets[XFAB_HASH_BUCKET(hash)];
	}

	if (live && info->idle_ns < cfg->flowlet_gap_ns) {
		if (xfab_nexthop_live(fl->nh_id)) {
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

#endif
