/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * QoS's part of the ABI (included by xfab_abi.h): traffic classes, the
 * queues' rates, buffers and WRED/ECN curves, the xdp datapath's modelled
 * queue and the queues' counters and watermarks (bpf/qos.h, docs/QOS.md).
 */
#ifndef XFAB_QOS_H
#define XFAB_QOS_H

#include <linux/types.h>

#include "xfab_port.h" /* XFAB_MAX_PORTS */

/* ---- QoS: traffic classes, WRED/ECN, queues ---- */
#define XFAB_NUM_TC 8
#define XFAB_NUM_DSCP 64
#define XFAB_QUEUE_KEY(slot, tc) ((slot)*XFAB_NUM_TC + (tc))
#define XFAB_MAX_QUEUES (XFAB_MAX_PORTS * XFAB_NUM_TC)

/* dscp_to_tc: ARRAY[64], DSCP -> traffic class; written by xfabd. */

#define XFAB_WRED_ENABLED (1u << 0)	/* a profile is bound to this queue */
#define XFAB_WRED_ECN (1u << 1)		/* mark ECT packets CE along the curve */
#define XFAB_WRED_DROP_NONECT (1u << 2) /* drop Not-ECT packets along the curve */

/* queue_cfg: ARRAY, XFAB_QUEUE_KEY(slot, tc) -> the queue's port rate, buffer
 * and WRED/ECN curve; written by xfabd. */
struct xfab_queue_cfg {
	__u64 rate_kbps;    /* port rate; 0: no modelled queue (xdp) */
	__u32 buffer_bytes; /* tail drop above this occupancy; 0: no limit */
	__u32 flags;	    /* XFAB_WRED_* */
	__u32 kmin_bytes;   /* no mark below */
	__u32 kmax_bytes;   /* mark (or drop) everything at or above */
	__u32 pmax;	    /* probability at kmax, scaled: 2^32 - 1 = 1.0 */
	__u32 pad;
	__u64 tx_fp; /* xfab_queue_tx_fp(rate_kbps): a byte's time at the rate, << 16 */
};
_Static_assert(sizeof(struct xfab_queue_cfg) == 40, "queue cfg");

/* queue_state: ARRAY, same key -> the modelled ("phantom") queue of the
 * xdp datapath, as the time it will have drained empty at the port rate:
 * what it holds at time t is (empty_at - t) * rate. A packet that joins it
 * pushes empty_at on by its transmission time: one atomic add, no lock.
 * Time is bpf_ktime_get_ns (CLOCK_MONOTONIC) in 1/16 ns, so 64-byte frames
 * at 400G (1.28 ns) keep their size. Data plane only (tests set it). */
#define XFAB_QUEUE_TIME_SHIFT 4
struct xfab_queue_state {
	__u64 empty_at; /* ns << XFAB_QUEUE_TIME_SHIFT */
};

/* Time the port needs to send bytes at rate_kbps, in queue time units. */
static inline __attribute__((always_inline)) __u64 xfab_queue_tx_time(__u64 bytes, __u32 rate_kbps)
{
	return rate_kbps ? bytes * (8000000ull << XFAB_QUEUE_TIME_SHIFT) / rate_kbps : 0;
}

/* The time one byte takes at rate_kbps, in queue time units << 16: the data
 * plane multiplies by it (a packet's time to within 1/16 ns) instead of
 * dividing by the rate per packet. */
static inline __attribute__((always_inline)) __u64 xfab_queue_tx_fp(__u64 rate_kbps)
{
	return rate_kbps ? ((8000000ull << XFAB_QUEUE_TIME_SHIFT) << 16) / rate_kbps : 0;
}

/* Bytes a queue holds when `ahead` queue time units remain until empty,
 * rounded up (a byte partly sent still holds its place). Split so it does
 * not overflow; capped at 2^44 units (~18 minutes: beyond any buffer). */
static inline __attribute__((always_inline)) __u64 xfab_queue_bytes(__u64 ahead, __u32 rate_kbps)
{
	const __u64 unit = 8000000ull << XFAB_QUEUE_TIME_SHIFT; /* per byte at 1 kbit/s */

	if (ahead > (1ull << 44))
		ahead = 1ull << 44;
	/* one division while the product fits (rates up to 2^30 kbit/s, a
	 * second of queue): the packet path's common case */
	if (ahead < (1ull << 34) && rate_kbps < (1ull << 30))
		return (ahead * rate_kbps + unit - 1) / unit;
	return ahead / unit * rate_kbps + (ahead % unit * rate_kbps + unit - 1) / unit;
}

/* queue_stats: PERCPU_ARRAY, same key -> counters. */
struct xfab_queue_stats {
	__u64 packets; /* enqueued (sent) */
	__u64 bytes;
	__u64 ecn_marked;
	__u64 dropped; /* tail drops at the buffer limit and WRED drops of Not-ECT */
};
_Static_assert(sizeof(struct xfab_queue_stats) == 32, "queue stats");

/* queue_watermark: ARRAY, same key -> {current, peak} occupancy in bytes as
 * last seen by a packet; xfabctl clears peak. */
struct xfab_queue_watermark {
	__u64 current_bytes;
	__u64 peak_bytes;
};
_Static_assert(sizeof(struct xfab_queue_watermark) == 16, "queue watermark");

/* Pinned map names (also the BPF object's). */
#define XFAB_MAP_DSCP_TO_TC "dscp_to_tc"
#define XFAB_MAP_QUEUE_CFG "queue_cfg"
#define XFAB_MAP_QUEUE_STATE "queue_state"
#define XFAB_MAP_QUEUE_STATS "queue_stats"
#define XFAB_MAP_QUEUE_WATERMARK "queue_watermark"

#endif /* XFAB_QOS_H */
