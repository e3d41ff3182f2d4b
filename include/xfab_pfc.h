/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Lossless classes' part of the ABI (included by xfab_abi.h): PFC and
 * PAUSE frames, the ports' PFC settings, the priority groups' ingress
 * accounting, the queues' gates and watchdog, and the events the data
 * plane sends xfabd (bpf/pfc.h, docs/PFC.md).
 */
#ifndef XFAB_PFC_H
#define XFAB_PFC_H

#include <linux/types.h>

#include "xfab_port.h" /* XFAB_MAX_PORTS */
#include "xfab_qos.h"  /* XFAB_NUM_TC, XFAB_QUEUE_KEY */

/* ---- lossless classes: 802.1Qbb PFC and 802.3x PAUSE (docs/PFC.md) ----
 * Priority n is traffic class n, egress queue n and priority group (PG) n
 * (SONiC's identity TC_TO_PRIORITY_GROUP_MAP / PFC_PRIORITY_TO_QUEUE_MAP).
 * Keys are XFAB_QUEUE_KEY(slot, prio). */
#define XFAB_NUM_PRIO XFAB_NUM_TC
#define XFAB_ETH_P_MAC_CONTROL 0x8808
#define XFAB_MAC_CONTROL_PAUSE 0x0001 /* 802.3x: all priorities, one timer */
#define XFAB_MAC_CONTROL_PFC 0x0101   /* 802.1Qbb: class-enable vector, 8 timers */
/* 01:80:C2:00:00:01, the MAC control destination */
#define XFAB_MAC_CONTROL_DST                                                                       \
	{                                                                                          \
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x01                                                 \
	}
#define XFAB_PFC_MAX_QUANTA 0xffffu
/* One pause quantum is 512 bit times at the port's speed. */
static inline __attribute__((always_inline)) __u64 xfab_pfc_quanta_ns(__u32 quanta,
								      __u32 speed_mbps)
{
	return speed_mbps ? (__u64)quanta * 512000ull / speed_mbps : 0;
}

/* pfc_cfg: ARRAY, slot -> the port's PFC settings; written by xfabd. */
struct xfab_pfc_cfg {
	__u8 enabled;	/* priorities with PFC on (PORT_QOS_MAP pfc_enable): lossless */
	__u8 wd_ignore; /* stormed queues (watchdog drop or forward): incoming pause ignored */
	__u8 wd_drop;	/* stormed queues (watchdog drop): their packets dropped, both ways, and no
			 * pause generated for their PG */
	__u8 pad;
	__u32 speed_mbps;		 /* converts pause quanta to time */
	__u32 xoff_bytes[XFAB_NUM_PRIO]; /* a PG's ingress occupancy that sends XOFF; 0: never */
	__u32 xon_bytes[XFAB_NUM_PRIO];	 /* ... falling below which sends XON */
};
_Static_assert(sizeof(struct xfab_pfc_cfg) == 72, "pfc cfg");

/* pfc_state: ARRAY, XFAB_QUEUE_KEY(slot, prio) -> the receive side (pause
 * frames that arrived on port slot for prio, and the pause they put on the
 * port's egress queue prio) and the generating side (the ingress
 * occupancy of PG prio: bytes that came in on port slot with that priority
 * and are still queued at some egress). Data plane only, atomics. */
struct xfab_pfc_state {
	__u64 paused_until_ns; /* egress queue prio paused until (bpf_ktime_get_ns); 0: not */
	__u64 rx_frames;       /* pause frames naming prio (its vector bit; PAUSE: all) */
	__u64 rx_xon;	       /* ... of which with time 0 (XON) */
	__u64 rx_ignored;      /* ... naming prio while it is not enabled or stormed */
	__u64 occupancy_bytes; /* ingress accounting of PG prio */
	__u64 peak_occupancy_bytes;
	__u64 rx_packets;    /* data packets that came in on port slot into PG prio */
	__u64 wd_rx_dropped; /* ... the watchdog's drop action discarded (stormed PG) */
	__u64 wd_tx_dropped; /* packets to egress queue prio it discarded (stormed queue) */
	__u32 xoff;	     /* 1 while the PG is above XOFF (pause asked of the peer) */
	__u32 resynced;	     /* times xfabd corrected the occupancy: bytes still counted
			      * for egress queues that held none (pfc_egress) or more
			      * than the switch's other ports held */
};
_Static_assert(sizeof(struct xfab_pfc_state) == 80, "pfc state");

/* pfc_egress: ARRAY (mmapable), XFAB_PFC_EG_KEY(out, in, prio) -> the
 * bytes of PG (in, prio) queued at egress port out: the PG's occupancy
 * split by egress port, charged and given back with it (atomics). xfabd
 * takes back what an entry still counts once its queue is empty (a
 * give-back the data plane missed) and takes it off the PG's occupancy. */
#define XFAB_PFC_EG_KEY(out, in, prio)                                                             \
	(((__u32)(out)*XFAB_MAX_PORTS + (__u32)(in)) * XFAB_NUM_PRIO + (__u32)(prio))
#define XFAB_PFC_EG_ENTRIES (XFAB_MAX_PORTS * XFAB_MAX_PORTS * XFAB_NUM_PRIO)

/* pfc_queue: ARRAY, same key -> what xfabd does about queue prio of port
 * slot: the gate (paused or not), the pause frames it sent, the watchdog.
 * Written by xfabd only. SONiC's `show pfcwd stats` columns: TX OK/DROP
 * are the queue's packets sent/dropped while stormed, RX OK/DROP the PG's
 * packets received/dropped while stormed; _last: the last storm alone. */
enum xfab_pfcwd_action {
	XFAB_PFCWD_OFF = 0, /* no watchdog on this queue */
	XFAB_PFCWD_DROP = 1,
	XFAB_PFCWD_FORWARD = 2,
	XFAB_PFCWD_ALERT = 3,
};
struct xfab_pfc_queue {
	__u8 gated;	/* 1: the queue's gate is closed (paused by the peer) */
	__u8 stormed;	/* 1: the watchdog declared a PFC storm (STATUS stormed) */
	__u8 wd_action; /* enum xfab_pfcwd_action */
	__u8 pad;
	__u32 wd_detection_ms;
	__u32 wd_restoration_ms;
	__u32 wd_poll_ms;
	__u64 paused_ns;  /* total time the gate was closed (the current closing included) */
	__u64 pauses;	  /* gate closings */
	__u64 tx_frames;  /* PFC frames sent out of port slot naming prio (XOFF, refreshes, XON) */
	__u64 tx_xon;	  /* ... of which XON */
	__u64 tx_last_ns; /* CLOCK_MONOTONIC of the last one */
	__u64 storms_detected;
	__u64 storms_restored;
	__u64 wd_tx_ok, wd_tx_drop, wd_rx_ok, wd_rx_drop;
	__u64 wd_tx_ok_last, wd_tx_drop_last, wd_rx_ok_last, wd_rx_drop_last;
};
_Static_assert(sizeof(struct xfab_pfc_queue) == 136, "pfc queue");

/* pfc_events: RINGBUF, data plane -> xfabd. */
enum xfab_pfc_event_kind {
	XFAB_PFC_EV_RX = 1,   /* a pause frame changed a queue's pause (prio_mask, time_ns) */
	XFAB_PFC_EV_XOFF = 2, /* PG prio of port slot rose to XOFF: ask the peer to pause */
	XFAB_PFC_EV_XON = 3,  /* ... fell below XON: ask it to resume */
};
struct xfab_pfc_event {
	__u32 ifindex;
	__u16 slot;
	__u8 kind;	/* enum xfab_pfc_event_kind */
	__u8 prio_mask; /* priorities concerned */
	__u64 time_ns;	/* EV_RX: the longest pause asked (0: resume) */
	__u64 now_ns;	/* bpf_ktime_get_ns at the event */
};
_Static_assert(sizeof(struct xfab_pfc_event) == 24, "pfc event");

/* The tc ingress program tags a lossless packet it accounts with the PG it
 * was charged to, so the dequeue side (tracepoint net_dev_start_xmit)
 * gives the bytes back: mark = XFAB_PFC_MARK | slot << 3 | prio. */
#define XFAB_PFC_MARK 0x58460000u /* "XF" */
#define XFAB_PFC_MARK_MASK 0xffff0000u
/* the ingress port's slot a tag names */
#define XFAB_PFC_MARK_SLOT(mark) (((mark) >> 3) & 0x1fffu)
/* xdp datapath: a packet of a lossless class leaves XDP with this 32-bit
 * word in its XDP metadata; the tc ingress program runs the pipeline for
 * such packets only (on an xdp port, the rest is the kernel's). */
#define XFAB_PFC_HANDOFF_MAGIC 0x58504643u /* "XPFC" */

/* Pinned map names (also the BPF object's). */
#define XFAB_MAP_PFC_CFG "pfc_cfg"
#define XFAB_MAP_PFC_STATE "pfc_state"
#define XFAB_MAP_PFC_QUEUE "pfc_queue"
#define XFAB_MAP_PFC_EVENTS "pfc_events"
#define XFAB_MAP_PFC_EGRESS "pfc_egress"

#endif /* XFAB_PFC_H */
