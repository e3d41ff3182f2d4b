/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The PFC thread's run-time state, shared by its files (xfabd only):
 *   pfc.c         the thread: events, timers, start and stop
 *   pfc_gate.c    the gates (a TBF per lossless queue) and the pause honoured
 *   pfc_tx.c      the PFC frames xfabd sends (pause generation)
 *   agent_pfc_resync.c  the ingress accounting's safety net
 *   pfc_wd.c      the watchdog: drives the state machine of user/lib/pfcwd.c,
 *                 and its requests
 * Everything here runs on the PFC thread, but for what g->lock guards.
 */
#ifndef XFAB_AGENT_PFC_RT_H
#define XFAB_AGENT_PFC_RT_H

#include <pthread.h>
#include <linux/types.h>

#include "pfcwd.h"
#include "xfab_abi.h"

#define PFC_NS_PER_MS 1000000ull

struct ring_buffer;
struct mnl_socket;

struct pfc_queue_rt {
	__u64 paused_until; /* gate closed until (CLOCK_MONOTONIC ns); 0: open */
	__u64 gated_since;
	__u64 paused_base; /* pfc_queue.paused_ns when the gate closed */
	struct pfcwd_queue wd;
};

struct pfc_port_rt {
	int slot;
	__u32 ifindex;
	char name[XFAB_IFNAMSIZ];
	__u8 mac[6];
	__u8 enabled;
	__u8 xoff_mask; /* PGs asking the peer to pause */
	__u8 wd_ignore; /* the data plane's wd_ignore as the watchdog last wrote it */
	__u32 speed_mbps, rate_mbps, limit_bytes;
	__u64 refresh_at;	  /* next XOFF refresh */
	int tx_fd;		  /* PFC frames, around the qdisc */
	int kick_fd;		  /* a frame through the qdisc */
	struct pfcwd_settings wd; /* PFC_WD, or the last pfcwd request */
	struct pfc_queue_rt q[XFAB_NUM_PRIO];
};

struct pfc_rt {
	pthread_mutex_t lock; /* the watchdog settings (requests change them) */
	pthread_t tid;
	int running;
	int stop_fd, timer_fd;
	struct ring_buffer *rb;
	struct mnl_socket *nl;
	unsigned int seq;
	int fd_cfg, fd_state, fd_queue, fd_qstats;
	__u64 *eg;	/* pfc_egress, mmapped (NULL: no sweep) */
	int tp_link[2]; /* the raw tracepoints that give queued bytes back */
	__u32 poll_ms;
	__u64 next_poll;
	int n;
	struct pfc_port_rt ports[XFAB_MAX_PORTS];
};

/* pfc.c: the running thread's state, NULL when none runs. */
struct pfc_rt *agent_pfc_running(void);

/* pfc_gate.c */
/* Puts the gate of prio on pp in place (create) or changes it, open at
 * line rate or closed: 0 or -errno. */
int agent_pfc_gate_write(struct pfc_rt *g, const struct pfc_port_rt *pp, int prio, int open,
			 int create);
/* Empties the queue (what it held is dropped), the gate open: 0 or -errno. */
int agent_pfc_gate_flush(struct pfc_rt *g, const struct pfc_port_rt *pp, int prio);
void agent_pfc_gate_open(struct pfc_rt *g, struct pfc_port_rt *pp, int prio);
/* Closes or opens the gate as the pause the data plane recorded says. */
void agent_pfc_honour(struct pfc_rt *g, struct pfc_port_rt *pp, int prio);

/* pfc_tx.c */
/* An AF_PACKET socket bound to ifindex, around the qdisc (bypass) or
 * through it; -1 with errno. */
int agent_pfc_packet_socket(__u32 ifindex, int bypass);
/* The queue's pfc_queue record (zeroed when unreadable), in v. */
struct xfab_pfc_queue *agent_pfc_queue_rec(struct pfc_rt *g, __u32 key, struct xfab_pfc_queue *v);
/* One PFC frame out of pp naming vector, each priority asking time
 * quanta (0: XON). */
void agent_pfc_send(struct pfc_rt *g, struct pfc_port_rt *pp, __u8 vector, __u16 time);
/* Wakes the port's qdisc (a frame enqueued through it). */
void agent_pfc_kick(struct pfc_port_rt *pp);
/* How often an XOFF is refreshed while the PG stays above XON (ns). */
__u64 agent_pfc_refresh_period(const struct pfc_port_rt *pp);
/* Makes the pause xfabd asks of the peer follow the data plane's flag;
 * resend: an XOFF event, sent again at once while the flag is up. */
void agent_pfc_pg_follow(struct pfc_rt *g, struct pfc_port_rt *pp, int prio, int resend);

/* agent_pfc_resync.c: every poll, the accounting's correction. */
void agent_pfc_resync(struct pfc_rt *g);

/* pfc.c: what runs every poll besides the accounting's correction,
 * elapsed_ns after the last poll. The watchdog (pfc_wd.c) registers its
 * step before main runs, the way it registers its control requests, so that
 * pfc.c never calls into pfc_wd.c while pfc_wd.c asks pfc.c for the running
 * thread: the two files do not call each other. At most PFC_POLL_HOOKS; the
 * steps run in the order they registered: 0, or -1 when full. */
#define PFC_POLL_HOOKS 4
typedef void (*pfc_poll_fn)(struct pfc_rt *g, __u64 elapsed_ns);
int agent_pfc_register_poll(pfc_poll_fn fn);

#endif
