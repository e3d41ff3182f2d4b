// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The ingress accounting's safety net (pfcacct.h). */
#include "pfcacct.h"

__u64 xfab_pg_bound(__u64 total, __u64 own)
{
	return total > own ? total - own : 0;
}

int xfab_pg_resync(__u64 occupancy, __u32 xoff, __u32 xon_bytes, __u64 bound, __u64 *occ,
		   __u32 *new_xoff)
{
	if (occupancy <= bound)
		return 0;
	*occ = bound;
	/* the data plane's rule on a give-back: below XON, or empty */
	*new_xoff = xoff && !(bound < xon_bytes || !bound);
	return 1;
}

enum xfab_pg_action xfab_pg_follow(int mask_set, __u32 flag)
{
	if (flag && !mask_set)
		return XFAB_PG_SEND_XOFF;
	if (!flag && mask_set)
		return XFAB_PG_SEND_XON;
	return XFAB_PG_KEEP;
}

__u64 xfab_pg_sweep(__u64 *eg, const __u32 *slots, __u32 n, __u8 prio_mask,
		    const __u64 (*queued)[XFAB_NUM_PRIO], __u64 (*leak)[XFAB_NUM_PRIO])
{
	__u64 total = 0;

	for (__u32 o = 0; o < n; o++) {
		__u32 out = slots[o];

		if (out >= XFAB_MAX_PORTS)
			continue;
		for (__u32 prio = 0; prio < XFAB_NUM_PRIO; prio++) {
			if (!(prio_mask & (1u << prio)) || queued[out][prio])
				continue;
			for (__u32 i = 0; i < n; i++) {
				__u32 in = slots[i];
				__u64 *e, v;

				if (in >= XFAB_MAX_PORTS)
					continue;
				e = &eg[XFAB_PFC_EG_KEY(out, in, prio)];
				if (!__atomic_load_n(e, __ATOMIC_RELAXED))
					continue;
				v = __atomic_exchange_n(e, 0, __ATOMIC_SEQ_CST);
				leak[in][prio] += v;
				total += v;
			}
		}
	}
	return total;
}

__u64 xfab_pg_take(__u64 occupancy, __u64 taken, __u32 xoff, __u32 xon_bytes, __u32 *new_xoff)
{
	__u64 occ = occupancy > taken ? occupancy - taken : 0;

	*new_xoff = xoff && !(occ < xon_bytes || !occ);
	return occ;
}
