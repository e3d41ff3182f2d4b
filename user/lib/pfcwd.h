/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The PFC watchdog's decisions (docs/PFC.md), as a state machine with no
 * side effects: xfabd's PFC thread (user/agent/pfc_wd.c) samples each
 * watched queue every poll, feeds the sample here and carries out what
 * comes back (the gate opened and flushed, the data plane's bits, the
 * log). No clock, no map, no global state: the time is the poll's
 * elapsed ns, handed in.
 *
 * SONiC's rule (the broadcom flavour), per queue:
 *   detect   a queue charged for detection_time is stormed: a poll charges
 *            the time since the last one when pause frames kept coming for
 *            the priority, none of them XON, and the queue was paused at
 *            both samples; any other poll clears the charge.
 *   restore  a stormed queue that received no pause frame for
 *            restoration_time is restored.
 *   actions  on a storm, drop and forward stop honouring pause (the gate
 *            opens); drop also empties the queue (the gate flush) and the
 *            data plane discards the priority's packets both ways; alert
 *            only tells.
 * While a queue is stormed its packets sent / dropped and the PG's
 * received / dropped are counted since the storm began (SONiC's `show
 * pfcwd stats`): in total over every storm, and for the last storm alone.
 */
#ifndef XFAB_PFCWD_H
#define XFAB_PFCWD_H

#include <linux/types.h>

#include "xfab_abi.h"

/* A queue's watchdog settings (PFC_WD, or a pfcwd request). */
struct pfcwd_settings {
	__u8 action; /* enum xfab_pfcwd_action */
	__u32 detection_ms, restoration_ms;
};

/* What the watchdog sees of a queue at one poll: counters since the data
 * plane started (they only grow), and the gate. */
struct pfcwd_sample {
	__u64 rx_frames; /* pause frames received naming the priority */
	__u64 rx_xon;	 /* ... of which XON */
	int gated;	 /* the queue is paused now */
	__u64 tx_ok;	 /* the queue's packets sent */
	__u64 tx_drop;	 /* ... and dropped (the watchdog's drops included) */
	__u64 rx_ok;	 /* the PG's packets received */
	__u64 rx_drop;	 /* ... the watchdog's drop action discarded */
};

/* A queue's watchdog memory between polls (zeroed: never polled). */
struct pfcwd_queue {
	__u64 last_rx, last_xon; /* the previous sample's rx_frames, rx_xon */
	int last_gated;		 /* ... and gate */
	__u64 charge_ns;	 /* storm time charged so far (not stormed) */
	__u64 quiet_ns;		 /* time without pause frames (stormed) */
	/* the counters when the storm began */
	__u64 base_tx_ok, base_tx_drop, base_rx_ok, base_rx_drop;
};

enum pfcwd_transition {
	PFCWD_STAY = 0,	    /* no change */
	PFCWD_DETECTED = 1, /* the queue is stormed from now on */
	PFCWD_RESTORED = 2, /* the storm is over */
};

/* What the driver does after a step. */
struct pfcwd_verdict {
	enum pfcwd_transition transition;
	int open_gate; /* stop honouring pause: open the queue's gate */
	int flush;     /* empty the queue (its packets are dropped) */
};

/* One poll of one queue, elapsed_ns after the previous: updates q and the
 * watchdog's part of the queue's record (stormed, storms_detected,
 * storms_restored, the wd_tx/rx_ok/drop counters and their _last); the
 * record's other fields are left alone. A queue whose action is
 * XFAB_PFCWD_OFF is not stepped by the driver. */
struct pfcwd_verdict xfab_pfcwd_step(struct pfcwd_queue *q, struct xfab_pfc_queue *rec,
				     const struct pfcwd_settings *set, const struct pfcwd_sample *s,
				     __u64 elapsed_ns);

/* What the driver does for a verdict, on its queue (ctx). */
struct pfcwd_ops {
	void (*bits)(void *ctx); /* the port's data plane bits, from the records */
	int (*flush)(void *ctx); /* empty the queue (its packets dropped): 0 or -errno */
	void (*open)(void *ctx); /* open the gate: the queue sends, pause or not */
};

/* Carries out a step's verdict in the order that keeps the action's
 * promise: on a transition the data plane's bits first (drop discards
 * what comes from then on, drop and forward ignore new pause); then the
 * flush, before the gate opens (opened first, the packets it held would
 * leave before the flush could drop them); then the gate. The flush's
 * error, or 0. */
int xfab_pfcwd_carry_out(const struct pfcwd_verdict *v, const struct pfcwd_ops *ops, void *ctx);

/* The data plane's bits for a port (pfc_cfg's wd_ignore and wd_drop) from
 * its stormed priorities and its action: drop and forward ignore incoming
 * pause, drop also discards. */
void xfab_pfcwd_bits(__u8 stormed_mask, __u8 action, __u8 *ignore, __u8 *drop);

/* Whether a queue's gate is to be closed: the data plane's deadline
 * (paused_until_ns) is ahead of now and the watchdog does not have the
 * queue ignore pause (ignore_mask, wd_ignore's bits). The deadline stays
 * where the last honoured frame put it once the data plane ignores the
 * queue's pause, and an event read after the watchdog opened the gate
 * would otherwise close it again for the rest of that pause (forward
 * then held its queue up to one pause time: test_pfcwd_lab.sh). */
int xfab_pfcwd_gate_closes(__u64 paused_until_ns, __u64 now_ns, __u8 ignore_mask, int prio);

/* The action's name as SONiC prints it ("drop", "forward", "alert",
 * "off"). */
const char *xfab_pfcwd_action_name(__u8 action);

#endif
