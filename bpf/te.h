/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Traffic engineering: exact <ingress port, destination prefix> entries
 * (XFAB_TABLE_TE) that override the route while their path is up. */
#ifndef XFAB_BPF_TE_H
#define XFAB_BPF_TE_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xfab_abi.h"
#include "maps.h"
#include "nexthop.h"

/* A TE entry can steer only while its path is up. */
static __always_inline int xfab_te_usable(const struct xfab_route *te)
{
	if (te->type == XFAB_RT_NEXTHOP)
		return xfab_nexthop_live(te->id) != 0;
	if (te->type == XFAB_RT_GROUP) {
		struct xfab_group *grp = bpf_map_lookup_elem(&nh_groups, &te->id);

		return grp && grp->live_members > 0;
	}
	return 0;
}

#endif
