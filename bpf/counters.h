/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Counter stage: per-CPU, so no atomics on the hot path. */
#ifndef XFAB_BPF_COUNTERS_H
#define XFAB_BPF_COUNTERS_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xfab_abi.h"
#include "maps.h"
#include "scratch.h"

static __always_inline int xfab_drop(struct xfab_result *res, __u32 reason)
{
	res->action = XFAB_ACT_DROP;
	res->reason = reason;
	return XFAB_ACT_DROP;
}

static __always_inline int xfab_punt(struct xfab_result *res, __u32 reason)
{
	res->action = XFAB_ACT_PUNT;
	res->reason = reason;
	return XFAB_ACT_PUNT;
}

static __always_inline void xfab_count_reason(void *map, __u32 reason, __u32 bytes)
{
	struct xfab_reason_stats *st = bpf_map_lookup_elem(map, &reason);

	if (st) {
		st->packets++;
		st->bytes += bytes;
	}
}

static __always_inline void xfab_count_rx(__u32 slot, __u32 bytes)
{
	struct xfab_port_stats *st = bpf_map_lookup_elem(&port_stats, &slot);

	if (st) {
		st->rx_packets++;
		st->rx_bytes += bytes;
	}
}

static __always_inline void xfab_count_tx(__u32 slot, __u32 bytes)
{
	struct xfab_port_stats *st = bpf_map_lookup_elem(&port_stats, &slot);

	if (st) {
		st->tx_packets++;
		st->tx_bytes += bytes;
	}
}

/* A forwarded packet: in on one port (rx_bytes 0: counted already), out
 * on another. */
static __always_inline void xfab_count_forward(__u32 in_slot, __u32 rx_bytes, __u32 out_slot,
					       __u32 tx_bytes)
{
	if (rx_bytes)
		xfab_count_rx(in_slot, rx_bytes);
	xfab_count_tx(out_slot, tx_bytes);
}

/* Counts a drop or punt against its reason and the ingress port (and its
 * arrival, rx_bytes, unless it was counted already: rx_bytes 0). */
static __always_inline int xfab_finish(struct xfab_result *res, __u32 slot, __u32 bytes, int act,
				       __u32 rx_bytes)
{
	struct xfab_port_stats *st = bpf_map_lookup_elem(&port_stats, &slot);

	if (st && rx_bytes) {
		st->rx_packets++;
		st->rx_bytes += rx_bytes;
	}
	if (act == XFAB_ACT_DROP) {
		xfab_count_reason(&drop_stats, res->reason, bytes);
		if (st)
			st->drops++;
	} else if (act == XFAB_ACT_PUNT) {
		xfab_count_reason(&punt_stats, res->reason, bytes);
		if (st)
			st->punts++;
	}
	return act;
}

/* A packet on a port xfabd does not know: nothing to count it against but
 * the reason. */
static __always_inline int xfab_count_unknown_port(struct xfab_result *res, __u32 bytes)
{
	xfab_drop(res, XFAB_DROP_PORT_UNKNOWN);
	xfab_count_reason(&drop_stats, XFAB_DROP_PORT_UNKNOWN, bytes);
	return XFAB_ACT_DROP;
}

/* A load-balancing event (lb_stats, enum xfab_lb_event). */
static __always_inline void xfab_count_lb(__u32 event)
{
	__u64 *cnt = bpf_map_lookup_elem(&lb_stats, &event);

	if (cnt)
		(*cnt)++;
}

#endif
