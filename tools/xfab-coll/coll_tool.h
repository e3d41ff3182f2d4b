/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xfab-coll: collectives over RoCEv2 framing on the kernel's UDP sockets,
 * like nccl-tests over RDMA. One process per rank (a lab host); rank 0
 * coordinates over TCP and reports.
 *
 *   xfab-coll run --job FILE [--rank R] [--op OP] [--min-bytes B --max-bytes B --factor F]
 *                 [--iters N] [--warmup N] [--mtu BYTES] [--rate MBPS] [--tos N] [--prio N]
 *                 [--no-pfc] [--no-dcqcn] [--ctrl-port P] [--timeout S] [--drop-every N]
 *                 [--rto-min MS] [--rto-max MS] [--json FILE | -j] [--dump FILE]
 *
 * The job file (user/lib/job.h) fixes the ranks, the connections, every QP
 * number and every flow; the schedule (which chunk at which step, messages,
 * QPs) is user/lib/coll.h. A rank's QP towards a peer (channel c, index q)
 * is one RC QP, both ways: it sends the connection's SENDs and receives the
 * peer's, and each direction's ACKs, NAKs and CNPs travel the other way on
 * the same 5-tuple (the source port is the pair's, symmetric). Every data
 * packet of a rank is one of the flows xfab_job_flows() lists.
 *
 * Wire: Ethernet / IPv4 (TOS --tos, default 0x0e: DSCP 3 with ECT(0)) / UDP
 * (source port the QP pair's, destination 4791) / BTH (RC SEND FIRST,
 * MIDDLE, LAST or ONLY; P_Key 0xffff; the peer's QP; the PSN; the A bit on
 * a message's last packet) / payload (--mtu bytes, the last packet of a
 * message less) / ICRC (4 zero bytes). ACK and NAK: opcode 0x11 with an
 * AETH (ACK 0x1f, NAK PSN-sequence 0x60); CNP: opcode 0x81, 16 reserved
 * bytes. Each QP sends from a UDP socket bound to its source port (QPs of
 * a rank whose ports collide share one); a rank receives on one socket
 * bound to 4791 and finds the QP by the BTH's destination QP.
 *
 * Reliability (RC go-back-N, user/lib/coll.h): the receiver takes only the
 * expected PSN, answers a gap with one NAK carrying it and a duplicate with
 * an ACK; ACKs are coalesced (after ACK_EVERY packets, a message's last
 * packet, or ACK_DELAY_NS or ACK_DELAY_PKTS packets' time at --rate,
 * whichever is longer). A sender rewinds to a NAK's PSN, and to its
 * oldest unacked PSN when no ACK made progress for an RTO (RFC 6298 from
 * measured round trips, Karn's rule, within --rto-min..--rto-max, by
 * default xfab_rto_bounds()'s: at least twice the time a rank's window
 * takes at --rate, so that on a lossless fabric a late ACK is waited for;
 * doubling per timeout in a row; the clock stops while PFC pauses the
 * rank); after a timeout it sends that one packet alone until
 * an answer comes (so a late ACK does not cost a whole window of
 * duplicates), then goes on from where the answer says. At most QP_WINDOW
 * packets in flight per QP, RANK_WINDOW per rank.
 *
 * Congestion: paced to --rate (default the interface's speed) on wire
 * bytes; PFC honoured like xfab-roce (nothing sent while the priority is
 * paused; ACKs and CNPs still go, as a responder's do); a CE-marked data
 * packet makes the receiver send a CNP to the sending QP (at most one per
 * QP per 50 us), which cuts that QP's rate DCQCN-style (user/lib/coll.h).
 *
 * Control (TCP, --ctrl-port on rank 0's address, not measured): every rank
 * says HELLO with its options' signature (they must agree); per iteration
 * rank 0 sends GO to all and waits for every DONE (its time, its check and
 * its counters); at the end every rank sends its REPORT (per-QP counters,
 * JSON) and rank 0 says BYE. An iteration's time on a rank runs from GO to
 * its last packet received and last packet acknowledged; the iteration's
 * time is the slowest rank's.
 *
 * Files (this header is what they share): options.c the command line;
 * setup.c the rank (sizes, buffers, pacing, PFC); qp.c QPs, sockets and a
 * size's schedule; tx.c data and control packets out; rx.c packets in,
 * coalesced ACKs, timers; ctl.c the TCP control lines; loop.c the event
 * loop; run.c sizes and iterations; report.c the figures and the output;
 * fail.c the run's first failure; main.c the entry point (nothing calls
 * into it).
 */
#ifndef XFAB_TOOL_COLL_H
#define XFAB_TOOL_COLL_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "coll.h"
#include "common.h"
#include "job.h"
#include "jsonw.h"
#include "roce.h"

#define DEFAULT_CTRL_PORT 4792
#define DEFAULT_TOS 0x0e       /* DSCP 3 (lossless), ECT(0) */
#define RX_BATCH 64	       /* packets per recvmmsg */
#define RX_ROUNDS 8	       /* recvmmsg calls per loop round */
#define TX_BATCH 16	       /* packets per QP per sendmmsg */
#define TX_ROUND 512	       /* data packets per loop round */
#define QP_WINDOW 64	       /* packets in flight per QP */
#define RANK_WINDOW 512	       /* packets in flight per rank (the host queue holds 1,000) */
#define RTO_G_NS 2000000ull    /* the variance's floor (RFC 6298's G) */
#define ACK_EVERY 16	       /* packets a receiver takes before it must ACK */
#define ACK_DELAY_NS 100000ull /* ... or after this (a message's last packet at once), */
#define ACK_DELAY_PKTS 4       /* ... or as long as this many packets take at --rate */
#define CNP_GAP_NS 50000ull    /* DCQCN's NP: at most one CNP per QP per 50 us */
#define PACE_BURST_PKTS 16     /* the rank's token bucket, in packets */
#define PACE_WAKE_PKTS 4       /* a paced rank sleeps until this many may go */
#define QP_BURST_PKTS 4	       /* a DCQCN-paced QP's */
#define WIRE_OVERHEAD 42       /* Ethernet 14 + IPv4 20 + UDP 8 */
#define MAX_SIZES 32
#define CTRL_LINE 512

/* ---- options ---- */

struct opts {
	const char *job_path;
	int rank; /* -1: the job's rank whose address is here */
	int op;	  /* -1: the job's */
	uint64_t min_bytes, max_bytes, factor;
	uint32_t iters, warmup, mtu;
	uint64_t rate_mbps; /* 0: the interface's */
	int tos, prio;
	int no_pfc, no_dcqcn;
	uint16_t ctrl_port;
	double timeout;
	uint64_t drop_every;
	uint64_t rto_min_ms, rto_max_ms; /* 0: xfab_rto_bounds()'s */
	const char *json_path;		 /* "-": stdout */
	const char *dump_path;		 /* the last iteration's result, raw */
};

/* ---- the rank's state ---- */

struct sock {
	uint16_t sport;
	int fd;
};

/* One direction's schedule on a QP for the current size. */
struct sched {
	struct xfab_coll_msg *msgs;
	uint64_t *pfx; /* pfx[i]: packets before message i; pfx[nmsgs]: all */
	size_t nmsgs;
	uint64_t base; /* the sequence of the iteration's first packet */
	size_t cur;    /* the message of the next packet (send: tx.nxt, recv: epsn) */
};

struct qp {
	uint32_t peer, channel, q;
	uint32_t qpn, peer_qpn;
	uint16_t sport;
	int fd;
	struct sockaddr_in peer_addr; /* peer:4791 */
	struct sched tx_s, rx_s;
	/* send side */
	struct xfab_gbn_tx tx;
	uint64_t progress_at; /* last ACK progress (or start) */
	uint32_t backoff;
	uint8_t probe;		     /* after a timeout: one packet until an answer */
	uint64_t sent_at[QP_WINDOW]; /* by sequence: first sent (0: sent again) */
	struct xfab_rtt rtt;
	struct xfab_dcqcn dcqcn;
	struct xfab_pacer pacer; /* at dcqcn.rc while below line rate */
	/* receive side */
	struct xfab_gbn_rx rx;
	uint64_t cnp_at;    /* last CNP sent */
	uint64_t drop_seq;  /* --drop-every's last victim (+1) */
	uint32_t ack_count; /* packets taken since the last ACK */
	uint64_t ack_first; /* ... the first of them at */
	uint8_t ack_now;    /* a message ended, or a duplicate came: ACK at once */
	uint32_t msn;	    /* messages received whole */
	/* counters */
	uint64_t tx_packets, tx_bytes, cnps_rx, tx_naks_seen;
	uint64_t rx_packets, rx_bytes, cnps_tx, ce;
};

struct size_stats {
	uint64_t bytes; /* S as run */
	double *times;	/* per timed iteration, the slowest rank's (s) */
	uint32_t ntimes;
	int64_t first_bad; /* -1: right everywhere */
	uint32_t bad_rank;
	uint64_t oos, retransmits, cnps_tx, cnps_rx, pause_ns, timeouts, dropped, naks;
};

/* A rank's cumulative counters as DONE carries them. */
struct counters {
	uint64_t oos, retransmits, cnps_tx, cnps_rx, pause_ns, timeouts, dropped, naks;
};

struct peer_ctl {
	int fd;
	char buf[1 << 20]; /* a REPORT fits (about 500 bytes a QP) */
	size_t len;
	int hello, done_k, reported;
	char *report; /* the rank's REPORT (JSON), rank 0 */
	struct counters last;
	int64_t first_bad;
	double time;
};

/* The state of the run the control lines move. */
struct run {
	uint32_t s, k;	   /* the current size and iteration */
	int go;		   /* rank > 0: GO for (s, k) came */
	int bye;	   /* rank > 0: BYE came */
	uint32_t hellos;   /* rank 0 */
	uint32_t dones;	   /* rank 0: DONE for (s, k) */
	uint32_t reports;  /* rank 0 */
	int64_t first_bad; /* this rank's first bad element (-1: none) */
	uint32_t bad_s;	   /* ... at which size */
	uint32_t bad_got, bad_want;
};

struct rank {
	struct opts o;
	struct xfab_job job;
	uint32_t me, n;
	enum xfab_job_op op;
	uint32_t nsizes;
	uint64_t sizes[MAX_SIZES];
	struct xfab_coll_geom g;
	uint32_t *buf, *recv; /* recv: alltoall's receive buffer */
	uint64_t cap_elems;
	/* QPs and sockets */
	struct qp *qps;
	struct sock *socks;
	uint32_t nqps;
	uint32_t nsocks;
	int rx_fd;
	uint32_t qp_span; /* QP numbers a rank owns: n * channels * qps */
	/* steps: recv messages left per (channel, step) */
	uint64_t *steps_left;
	uint64_t rx_left; /* messages left to receive this iteration */
	uint32_t steps;
	/* pacing, PFC */
	int pfc_on;
	struct xfab_pacer pacer;
	uint64_t line_Bps; /* bytes/s */
	struct xfab_pfc_rx pfc;
	uint64_t dropped, data_seen; /* --drop-every */
	uint64_t timeouts;
	uint64_t rto_min, rto_max; /* ns: the RTO's bounds (the first before a sample) */
	uint64_t ack_delay;	   /* ns: a receiver's longest wait before an ACK */
	uint64_t pace_wake;	   /* ns: how long past the pacer's due a blocked rank sleeps */
	uint64_t paused_seen;	   /* PFC pause time the RTO clocks were stopped for (ns) */
	/* iteration */
	uint64_t iter_start, iter_end;
	int running;
	int in_loop; /* between the first GO and the last DONE: a failure dumps the QPs */
	/* control */
	int ctl_fd;		  /* rank > 0: to rank 0; rank 0: listening */
	struct peer_ctl *peers;	  /* rank 0: one per rank (peers[0] unused) */
	struct peer_ctl up;	  /* rank > 0: rank 0's line buffer */
	struct run run;		  /* the state the control lines move */
	struct peer_ctl *pending; /* rank 0: connections not yet named by HELLO */
	uint32_t npending;
	uint64_t deadline;
	char sig[512];
	char failure[512];
	/* buffers of the hot path */
	uint8_t *rx_slab;
	size_t rx_slot;
	struct mmsghdr rx_msgs[RX_BATCH];
	struct iovec rx_iov[RX_BATCH];
	char rx_cmsg[RX_BATCH][CMSG_SPACE(sizeof(int))];
	struct sockaddr_in rx_from[RX_BATCH];
	struct size_stats stats[MAX_SIZES];
};

/* What coll_serve() waits for: nonzero when it holds. */
typedef int (*until_fn)(struct rank *r);

/* A size's figures over its timed iterations (s; GB/s). */
struct figures {
	double mean, p50, p99, min, max, algbw, busbw;
};

/* options.c */
int coll_opt_err(const char *opt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int coll_parse_opts(int argc, char **argv, struct opts *o);

/* qp.c */
int coll_iter_done(const struct rank *r);
void coll_iter_prepare(struct rank *r);
struct qp *coll_qp_by_qpn(struct rank *r, uint32_t qpn);
int coll_qps_open(struct rank *r);
int coll_rx_open(struct rank *r);
int coll_size_setup(struct rank *r, uint64_t bytes);
int coll_step_ready(const struct rank *r, uint32_t channel, uint32_t step);
void coll_tx_reposition(struct qp *qp);

/* tx.c */
void coll_ctl_add(struct qp *qp, uint8_t opcode, uint32_t psn, int syndrome);
void coll_ctl_flush(void);
int coll_tx_round(struct rank *r, uint64_t now, uint64_t *wake);

/* rx.c */
void coll_acks(struct rank *r, uint64_t now, uint64_t *wake);
double coll_ms_from(uint64_t now, uint64_t t);
uint64_t coll_qp_rto(const struct rank *r, const struct qp *qp);
int coll_rx_round(struct rank *r, uint64_t now);
void coll_timers(struct rank *r, uint64_t now, uint64_t *wake);

/* ctl.c */
void coll_ctl_abort_all(struct rank *r);
int coll_ctl_open(struct rank *r);
int coll_ctl_poll(struct rank *r);
int coll_ctl_write(struct rank *r, int fd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void coll_my_counters(struct rank *r, struct counters *c);

/* loop.c */
void coll_dump_stuck(const struct rank *r);
int coll_serve(struct rank *r, until_fn until, const char *waiting);
int coll_until_bye(struct rank *r);
int coll_until_dones(struct rank *r);
int coll_until_go(struct rank *r);
int coll_until_hellos(struct rank *r);
int coll_until_iter(struct rank *r);
int coll_until_reports(struct rank *r);

/* report.c */
void coll_print_header(const struct rank *r);
void coll_print_size(const struct rank *r, const struct size_stats *st);
char *coll_rank_report(struct rank *r);
void coll_size_figures(const struct rank *r, const struct size_stats *st, struct figures *fg);
int coll_write_json(struct rank *r, FILE *f, int correct);

/* run.c */
int coll_run_all(struct rank *r, int text);

/* setup.c */
int coll_setup(struct rank *r);

/* fail.c */
int coll_fail(struct rank *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
