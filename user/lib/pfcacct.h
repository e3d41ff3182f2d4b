/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ingress accounting's safety net (xfabd's PFC thread, docs/PFC.md):
 * the rules by which xfabd corrects a priority group's occupancy and keeps
 * the pause it asks of the peer in step with the data plane. Pure
 * functions, no state.
 *
 * A PG (ingress port p, priority n) counts the bytes that came in on p
 * with priority n and still wait in one of this switch's egress queues of
 * priority n; the data plane also keeps that count split by egress port
 * (pfc_egress). A give-back the data plane misses (it happens: about one
 * packet in a few hundred on a busy lab, see docs/PFC.md) leaves bytes
 * counted for good: left alone they keep the PG above XOFF and its peer
 * paused for good, and two switches so stuck pause each other (a PFC
 * deadlock). Every poll xfabd takes back what the split still counts at
 * egress queues that hold nothing (the sweep) and off the PGs it belongs
 * to; and since routed traffic never leaves by the port it came in on, a
 * PG never counts more than the queues of its priority on the switch's
 * other ports hold (its bound).
 *
 * The data plane's xoff flag is what the PG asks of its peer; xfabd's XOFF
 * refreshes follow it. An event lost (ring full) or handled out of order
 * (two CPUs: one crossing XOFF, the other XON), or a correction racing a
 * charge, could leave xfabd refreshing an XOFF the data plane no longer
 * holds, the peer paused for good with nothing to ever send XON: xfabd
 * therefore reads the flag at every event, refresh and poll, and follows
 * it.
 */
#ifndef XFAB_PFCACCT_H
#define XFAB_PFCACCT_H

#include <linux/types.h>

#include "xfab_abi.h"

/* What a PG's occupancy may be at most: the priority's bytes queued on the
 * whole switch (total) less those queued on the PG's own port (own). */
__u64 xfab_pg_bound(__u64 total, __u64 own);

/* The correction of one PG read as occupancy and xoff (the data plane's
 * flag), with its XON threshold (xon_bytes) and bound: 0 when the count is
 * within its bound (nothing to write); 1 when it must be set to *occ, and
 * the flag to *xoff (cleared when the bound is below XON, or 0, as the
 * data plane clears it on a give-back). */
int xfab_pg_resync(__u64 occupancy, __u32 xoff, __u32 xon_bytes, __u64 bound, __u64 *occ,
		   __u32 *new_xoff);

/* What xfabd sends so that its pause follows the data plane: mask_set,
 * xfabd asks the peer to pause now; flag, the PG is above XOFF. */
enum xfab_pg_action {
	XFAB_PG_KEEP = 0,
	XFAB_PG_SEND_XOFF = 1, /* the flag is up, xfabd never asked */
	XFAB_PG_SEND_XON = 2,  /* xfabd asks, the flag is down */
};
enum xfab_pg_action xfab_pg_follow(int mask_set, __u32 flag);

/* The sweep of the egress split eg (pfc_egress, mmapped, indexed by
 * XFAB_PFC_EG_KEY): for each egress port out of slots[0..n) and priority
 * of prio_mask whose queue holds nothing now (queued[out][prio] == 0),
 * every PG's entry there (in of slots[]) is a missed give-back: taken
 * (atomically exchanged for 0, the data plane's atomics go on meanwhile)
 * and added to leak[in][prio]. Returns the bytes taken. A packet charged
 * there between the look at the queue and the sweep is taken too (its PG
 * then counts it a while less: less pause, never more). */
__u64 xfab_pg_sweep(__u64 *eg, const __u32 *slots, __u32 n, __u8 prio_mask,
		    const __u64 (*queued)[XFAB_NUM_PRIO], __u64 (*leak)[XFAB_NUM_PRIO]);

/* A PG's occupancy less what the sweep took (never below 0), and its flag
 * as the data plane would leave it (cleared below XON, or at 0). */
__u64 xfab_pg_take(__u64 occupancy, __u64 taken, __u32 xoff, __u32 xon_bytes, __u32 *new_xoff);

#endif
