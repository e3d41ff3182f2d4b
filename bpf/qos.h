/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * QoS stages: classify (DSCP -> traffic class), then the queue decision of
 * the egress (port, class): tail drop above the buffer, and along the WRED
 * curve (no action below Kmin, probability rising linearly to Pmax at Kmax,
 * every packet at or above Kmax) mark ECT packets CE or drop Not-ECT ones.
 *
 * The occupancy a packet sees comes from a modelled queue in the xdp
 * datapath (drained at the port rate from timestamps: XDP redirect skips
 * qdiscs) and from the egress device's real qdisc backlog in the tc one.
 */
#ifndef XFAB_BPF_QOS_H
#define XFAB_BPF_QOS_H

#include <linux/bpf.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>

#include "xfab_abi.h"
#include "maps.h"
#include "ctx.h"
#include "csum.h"
#include "scratch.h"
#include "counters.h"

#define XFAB_ECN_MASK 0x3
#define XFAB_ECN_CE 0x3

/* DSCP and ECN of a parsed packet (the parser kept the TOS byte). */
static __always_inline void xfab_read_tos(const struct xfab_meta *m, __u8 *dscp, __u8 *ecn)
{
	*dscp = m->tos >> 2;
	*ecn = m->tos & XFAB_ECN_MASK;
}

static __always_inline __u32 xfab_classify_tos(__u8 tos)
{
	__u32 key = tos >> 2, *tc;

	tc = bpf_map_lookup_elem(&dscp_to_tc, &key);
	return tc ? *tc & (XFAB_NUM_TC - 1) : 1;
}

static __always_inline __u32 xfab_classify(const struct xfab_meta *m)
{
	return xfab_classify_tos(m->tos);
}

/* Sets CE on an ECT packet; IPv4's checksum follows (RFC 1624). */
static __always_inline void xfab_mark_ce(const struct xfab_ctx *c, const struct xfab_meta *m)
{
	if (m->is_v6) {
		__u8 *b = xfab_ctx_hdr(c, m->l3_off, 2);

		if (b)
			b[1] |= XFAB_ECN_CE << 4;
	} else {
		struct iphdr *iph = xfab_ctx_hdr(c, m->l3_off, sizeof(*iph));

		if (iph)
			xfab_ipv4_set_tos(iph, iph->tos | XFAB_ECN_CE);
	}
}

enum xfab_queue_verdict {
	XFAB_Q_PASS = 0,
	XFAB_Q_MARK = 1,
	XFAB_Q_DROP_TAIL = 2,
	XFAB_Q_DROP_WRED = 3,
};

/* The WRED/ECN decision for a packet that sees `occupancy` bytes queued
 * (the random draw only along the curve). */
static __always_inline int xfab_wred(const struct xfab_queue_cfg *qc, __u64 occupancy, __u32 len,
				     __u8 ecn)
{
	__u64 threshold;

	if (qc->buffer_bytes && occupancy + len > qc->buffer_bytes)
		return XFAB_Q_DROP_TAIL;
	if (!(qc->flags & XFAB_WRED_ENABLED) || occupancy < qc->kmin_bytes)
		return XFAB_Q_PASS;
	if (occupancy < qc->kmax_bytes && qc->kmax_bytes > qc->kmin_bytes) {
		threshold = (__u64)qc->pmax * (occupancy - qc->kmin_bytes) /
			    (qc->kmax_bytes - qc->kmin_bytes);
		if (bpf_get_prandom_u32() >= threshold)
			return XFAB_Q_PASS;
	}
	if (ecn != 0) /* ECT(0), ECT(1) or already CE */
		return qc->flags & XFAB_WRED_ECN ? XFAB_Q_MARK : XFAB_Q_PASS;
	return qc->flags & XFAB_WRED_DROP_NONECT ? XFAB_Q_DROP_WRED : XFAB_Q_PASS;
}

static __always_inline void xfab_queue_account(__u32 key, int verdict, __u32 len, __u64 occupancy)
{
	struct xfab_queue_stats *st = bpf_map_lookup_elem(&queue_stats, &key);
	struct xfab_queue_watermark *wm = bpf_map_lookup_elem(&queue_watermark, &key);

	if (st) {
		if (verdict == XFAB_Q_DROP_TAIL || verdict == XFAB_Q_DROP_WRED) {
			st->dropped++;
		} else {
			st->packets++;
			st->bytes += len;
			if (verdict == XFAB_Q_MARK)
				st->ecn_marked++;
		}
	}
	if (wm) { /* shared by every CPU: written only when it changes */
		if (wm->current_bytes != occupancy)
			wm->current_bytes = occupancy;
		if (occupancy > wm->peak_bytes)
			wm->peak_bytes = occupancy;
	}
}

/* Applies a queue verdict: marks, or fills res with the drop. */
static __always_inline int xfab_queue_apply(const struct xfab_ctx *c, const struct xfab_meta *m,
					    int verdict, struct xfab_result *res)
{
	if (verdict == XFAB_Q_MARK)
		xfab_mark_ce(c, m);
	if (verdict == XFAB_Q_DROP_TAIL)
		return xfab_drop(res, XFAB_DROP_BUFFER_FULL);
	if (verdict == XFAB_Q_DROP_WRED)
		return xfab_drop(res, XFAB_DROP_WRED);
	return XFAB_ACT_FORWARD;
}

/*
 * xdp datapath: the phantom queue of (port, class). It drains at the port
 * rate; this packet sees what is left, and joins it unless dropped. No lock:
 * the state is the time the queue runs empty, and joining adds this
 * packet's transmission time to it atomically (or, if the queue had run
 * empty, restarts it from now; a CPU that loses that race adds instead).
 */
static __always_inline int xfab_stage_queue_xdp(const struct xfab_ctx *c, const struct xfab_meta *m,
						__u32 slot, __u32 tc, __u32 len,
						struct xfab_result *res, struct xfab_queue_info *qi,
						struct xfab_clock *clk)
{
	__u32 key = XFAB_QUEUE_KEY(slot, tc);
	const struct xfab_queue_cfg *qc = bpf_map_lookup_elem(&queue_cfg, &key);
	struct xfab_queue_state *qs;
	__u64 now, empty_at, occupancy, tx;
	__u8 dscp = 0, ecn = 0;
	int verdict;

	if (!qc || qc->rate_kbps == 0)
		return XFAB_ACT_FORWARD;
	qs = bpf_map_lookup_elem(&queue_state, &key);
	if (!qs)
		return XFAB_ACT_FORWARD;
	now = xfab_clock_now(clk) << XFAB_QUEUE_TIME_SHIFT;
	xfab_read_tos(m, &dscp, &ecn);
	empty_at = *(volatile __u64 *)&qs->empty_at;
	occupancy = empty_at > now ? xfab_queue_bytes(empty_at - now, qc->rate_kbps) : 0;
	verdict = xfab_wred(qc, occupancy, len, ecn);
	qi->occupancy = (__u32)occupancy;
	qi->verdict = (__u32)verdict;
	if (res->tracing) /* read the model, change nothing */
		return xfab_queue_apply(c, m, verdict, res);
	if (verdict != XFAB_Q_DROP_TAIL && verdict != XFAB_Q_DROP_WRED) {
		tx = (__u64)len * qc->tx_fp >> 16;
		if (empty_at > now ||
		    __sync_val_compare_and_swap(&qs->empty_at, empty_at, now + tx) != empty_at)
			__sync_fetch_and_add(&qs->empty_at, tx);
	}
	xfab_queue_account(key, verdict, len, occupancy);
	return xfab_queue_apply(c, m, verdict, res);
}

#endif
