/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The L3 stage: TE override, FIB lookup, path selection (hash over a
 * group's buckets, or flowlets), local repair, neighbour resolution; the
 * header rewrite after it. The stage reads top to bottom here; each
 * concern lives in its header:
 *   fib.h      the lookup            nexthop.h  next hops, neighbours
 *   flowlet.h  flowlets, port load   group.h    group members, the path
 *   repair.h   LOCAL_REPAIR          te.h       TE entries
 *   rewrite.h  MACs, TTL, checksum
 */
#ifndef XFAB_BPF_L3_H
#define XFAB_BPF_L3_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xfab_abi.h"
#include "maps.h"
#include "scratch.h"
#include "counters.h"
#include "bench.h"
#include "fib.h"
#include "nexthop.h"
#include "flowlet.h"
#include "group.h"
#include "repair.h"
#include "te.h"
#include "rewrite.h"
#include "spec.h"

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
	if (xfab_code_on(XFAB_CODE_TE) && (cfg->flags & XFAB_SET_TE) &&
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
	if (xfab_code_on(XFAB_CODE_REPAIR) &&
	    (cfg->flags & (XFAB_SET_REPAIR | XFAB_SET_SPLIT_HORIZON)))
		act = xfab_local_repair(m, cfg, ingress_ifindex, &rt, act, l3, res);
	return act;
}

#endif
