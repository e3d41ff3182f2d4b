/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Collectives over RoCE, the logic without the sockets (xfab-coll runs it,
 * tests/unit/test_coll*.c check it): which chunk every rank sends and
 * receives at every step of a ring, how a step's chunk is cut into
 * messages and spread over a connection's QPs, the data every rank starts
 * with and what it must end with, the go-back-N state machines of an RC
 * sender and receiver, DCQCN's reaction point, and nccl-tests' bandwidth
 * formulas. No global state, no system calls.
 *
 * Buffers are of uint32 elements: S bytes are E = S / 4 elements, cut into
 * n blocks of m = E / n elements (S is taken down to a multiple of 4n, as
 * nccl-tests takes a size down to whole elements per rank). Each block is
 * cut once more into `channels` parts (part c of a block: elements
 * m * c / channels .. m * (c + 1) / channels of it); channel c's ring moves
 * part c of every block.
 *
 * Rings (rank r sends to r + 1 and receives from r - 1, mod n; step t):
 *   allreduce      2(n-1) steps: reduce-scatter, t < n - 1: send block
 *                  r - t, receive block r - t - 1 and add it; then
 *                  all-gather, s = t - (n - 1): send block r + 1 - s,
 *                  receive block r - s and copy it. Rank r ends the
 *                  reduce-scatter owning block r + 1.
 *   reducescatter  n-1 steps: send r - t - 1, receive and add r - t - 2;
 *                  rank r ends owning block r (NCCL's result).
 *   allgather      n-1 steps: send r - t, receive and copy r - t - 1; rank
 *                  r starts with its own block r.
 * A rank sends step t's chunk once it has received all of step t - 1's
 * (on that channel): the chunk it sends is the one it just received.
 * alltoall: one step; rank r sends block p of its send buffer to every
 * peer p, which puts it in block r of its receive buffer; its own block is
 * copied locally.
 *
 * Messages: a connection (src -> dst on one channel) carries its steps in
 * order, each step's chunk cut into messages of at most msg_elems elements
 * (XFAB_COLL_MSG_BYTES); rr: the k-th message of the connection (counted
 * over the iteration) goes whole on QP k mod qps; split: every message is
 * cut into qps pieces (piece q: elements len * q / qps .. len * (q + 1) /
 * qps), piece q on QP q. Both ends compute the same list, so a receiver
 * knows what each SEND on a QP holds, as RC's posted receives do.
 */
#ifndef XFAB_COLL_H
#define XFAB_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "job.h"

#define XFAB_COLL_MSG_BYTES 65536u /* a message's most bytes */
#define XFAB_COLL_POISON 0xdeadbeefu

struct xfab_coll_geom {
	enum xfab_job_op op;
	enum xfab_job_qp_mode mode;
	uint32_t n, channels, qps;
	uint64_t bytes;	    /* S as run: a multiple of 4n */
	uint64_t elems;	    /* E = bytes / 4 */
	uint64_t m;	    /* block: E / n */
	uint32_t msg_elems; /* a message's most elements */
};

/* S taken down to a multiple of 4n; -1 with err when that leaves no
 * element per rank (S < 4n), or n, channels, qps or msg_bytes (a multiple
 * of 4, at least 4) are out of the job's bounds. */
int xfab_coll_geom_init(struct xfab_coll_geom *g, enum xfab_job_op op, enum xfab_job_qp_mode mode,
			uint32_t n, uint32_t channels, uint32_t qps, uint64_t bytes,
			uint32_t msg_bytes, char *err, size_t errlen);

/* Steps of an iteration: 2(n-1), n-1, n-1, 1. */
uint32_t xfab_coll_steps(enum xfab_job_op op, uint32_t n);
/* The block rank sends / receives at ring step t (not alltoall). */
uint32_t xfab_coll_send_block(enum xfab_job_op op, uint32_t n, uint32_t rank, uint32_t t);
uint32_t xfab_coll_recv_block(enum xfab_job_op op, uint32_t n, uint32_t rank, uint32_t t);
/* Whether step t's receive adds (reduces) or copies. */
int xfab_coll_step_reduces(enum xfab_job_op op, uint32_t n, uint32_t t);
/* Part `channel` of block `block`: first element and count. */
void xfab_coll_part(const struct xfab_coll_geom *g, uint32_t block, uint32_t channel,
		    uint64_t *first, uint64_t *count);

/* One message of a connection: what it moves and where. */
struct xfab_coll_msg {
	uint32_t step;
	uint32_t q;	  /* QP index in the connection */
	uint64_t src_off; /* element offset in the sender's buffer (alltoall: its send buffer) */
	uint64_t dst_off; /* in the receiver's buffer (alltoall: its receive buffer) */
	uint32_t len;	  /* elements, > 0 */
	uint8_t reduce;	  /* the receiver adds (1) or copies (0) */
};

/* The messages of connection src -> dst on channel that go on its QP q
 * (q >= qps: all of them), in the order the QP carries them; returns the
 * count, writing at most max. A ring's dst must be src + 1 mod n. */
size_t xfab_coll_msgs(const struct xfab_coll_geom *g, uint32_t src, uint32_t dst, uint32_t channel,
		      uint32_t q, struct xfab_coll_msg *out, size_t max);

/* The message holding packet off of a run of nmsgs messages whose packets
 * before message i are pfx[i] (pfx[0] = 0, pfx[nmsgs] all of them; off <
 * pfx[nmsgs]): the i with pfx[i] <= off < pfx[i + 1], by halving. */
size_t xfab_coll_msg_at(const uint64_t *pfx, size_t nmsgs, uint64_t off);

/* Packets of a message of len elements at mtu payload bytes (>= 4). */
static inline uint32_t xfab_coll_msg_packets(uint32_t len, uint32_t mtu)
{
	return (uint32_t)(((uint64_t)len * 4 + mtu - 1) / mtu);
}

/* The data: rank r's element i starts as
 *   value(r, i) = g(i) + (r + 1) * h(i)   (mod 2^32, x = (uint32_t)i)
 *   g(i) = x * 0x9e3779b1 ^ x >> 5,  h(i) = x * 0x85ebca6b + 0x27d4eb2f
 * so the sum over ranks 0..n-1 has the closed form
 *   n * g(i) + n(n+1)/2 * h(i).
 */
uint32_t xfab_coll_value(uint32_t rank, uint64_t i);
uint32_t xfab_coll_sum(uint32_t n, uint64_t i);
/* What rank's buffer holds before an iteration: allreduce and
 * reducescatter value(rank, i) everywhere; allgather its block rank, the
 * rest POISON ^ i; alltoall: send = value(rank, i), recv its own block
 * copied from send, the rest poisoned. recv is used by alltoall only. */
void xfab_coll_fill(const struct xfab_coll_geom *g, uint32_t rank, uint32_t *buf, uint32_t *recv);
/* The expected element i of rank's result buffer (recv for alltoall), and
 * whether it is checked at all (reducescatter: only block rank). */
int xfab_coll_expect(const struct xfab_coll_geom *g, uint32_t rank, uint64_t i, uint32_t *want);
/* Compares every checked element with its expected value; -1 when all are
 * right, else the first bad index (*got, *want said). */
int64_t xfab_coll_check(const struct xfab_coll_geom *g, uint32_t rank, const uint32_t *result,
			uint32_t *got, uint32_t *want);
/* dst[i] += src[i] (wrapping), the reduction. */
void xfab_coll_reduce(uint32_t *dst, const uint32_t *src, size_t count);

/* nccl-tests' bus bandwidth factor: 2(n-1)/n for allreduce, (n-1)/n for
 * allgather, reducescatter and alltoall (doc/PERFORMANCE.md there). */
double xfab_coll_busbw_factor(enum xfab_job_op op, uint32_t n);
/* algbw = S / t in GB/s (10^9 bytes), busbw = algbw * the factor. */
double xfab_coll_algbw(uint64_t bytes, double seconds);
double xfab_coll_busbw(enum xfab_job_op op, uint32_t n, uint64_t bytes, double seconds);

/*
 * Go-back-N, as an RC QP does it. Sequence numbers are kept in 64 bits and
 * go on the wire as their low 24 (a PSN); a PSN read back is placed next to
 * the sequence it is compared with (within 2^23).
 *
 * Receiver: accepts only the expected PSN. A PSN past it is out of
 * sequence: discarded, answered with one NAK (PSN sequence error, carrying
 * the expected PSN) per gap (no second NAK until the expected PSN came); a
 * PSN before it is a duplicate: discarded and answered with an ACK (the
 * sender may have missed it).
 */
enum xfab_gbn_verdict {
	XFAB_GBN_ACCEPT,  /* in order: take it */
	XFAB_GBN_NAK,	  /* out of sequence, first of its gap: send a NAK */
	XFAB_GBN_DISCARD, /* out of sequence, NAK already sent */
	XFAB_GBN_DUP,	  /* seen before: send an ACK */
};

struct xfab_gbn_rx {
	uint64_t epsn; /* expected sequence */
	uint8_t nak_sent;
	uint64_t accepted, oos, dups, naks;
};

enum xfab_gbn_verdict xfab_gbn_rx_packet(struct xfab_gbn_rx *rx, uint32_t psn);
/* The wire PSN placed next to ref (64-bit sequence). */
uint64_t xfab_psn_unwrap(uint64_t ref, uint32_t psn);

/* Sender: una is the oldest unacked sequence, nxt the next to send, max
 * one past the highest ever sent. An ACK of PSN p acknowledges everything
 * up to p; a NAK carrying p everything before p and rewinds to p; a
 * timeout rewinds to una. Sending below max is a retransmission. */
struct xfab_gbn_tx {
	uint64_t una, nxt, max;
	uint64_t retransmits, naks, timeouts;
};

/* Returns how many sequences the ACK newly acknowledged (0: stale). */
uint64_t xfab_gbn_tx_ack(struct xfab_gbn_tx *tx, uint32_t psn);
/* Returns 1 when the NAK rewound the sender (0: stale, ignored). */
int xfab_gbn_tx_nak(struct xfab_gbn_tx *tx, uint32_t psn);
void xfab_gbn_tx_timeout(struct xfab_gbn_tx *tx);
/* The sequence to send next, counted sent (a retransmission below max). */
uint64_t xfab_gbn_tx_next(struct xfab_gbn_tx *tx);

/*
 * The retransmission timeout from round-trip samples (RFC 6298): the first
 * sample R sets srtt = R, rttvar = R / 2; later ones rttvar = 3/4 rttvar +
 * 1/4 |srtt - R|, srtt = 7/8 srtt + 1/8 R; RTO = srtt + max(g, 4 rttvar),
 * within min..max, and `initial` before any sample. Samples come only from
 * packets sent once (Karn).
 */
struct xfab_rtt {
	uint64_t srtt, rttvar; /* ns; srtt 0: no sample yet */
	uint64_t samples;
};

void xfab_rtt_sample(struct xfab_rtt *e, uint64_t r);
uint64_t xfab_rtt_rto(const struct xfab_rtt *e, uint64_t initial, uint64_t g, uint64_t min,
		      uint64_t max);

/*
 * The retransmission timeout's bounds (xfab-coll's rule, docs/TOOLS.md).
 * On a lossless fabric nothing is lost: an ACK is late because it waits
 * in queues behind data, and a sender's in-flight window can all be queued
 * ahead of it at one bottleneck, as can another sender's there (two flows
 * on one link, the case load balancing exists for). So
 *   min = max(XFAB_RTO_FLOOR_NS, 2 x window x wire bytes / rate)
 *   max = max(XFAB_RTO_CEIL_NS, 8 x min)
 * rate_Bps: the rank's pacer (bytes/s; 0: unpaced, the floors alone);
 * window: packets a rank keeps in flight; wire: a full packet's bytes on
 * the wire. min_ns/max_ns: given (non-zero) they are kept, the other
 * derived from them (min never above a given max).
 */
#define XFAB_RTO_FLOOR_NS 10000000ull /* 10 ms */
#define XFAB_RTO_CEIL_NS 200000000ull /* 200 ms */
void xfab_rto_bounds(uint64_t rate_Bps, uint32_t window, uint32_t wire, uint64_t *min_ns,
		     uint64_t *max_ns);
/* A sender's RTO clock (the time its timer counts from) moved on by the
 * time PFC paused the rank since the last look: a pause is backpressure,
 * and the packets an ACK waits for are queued behind the same congestion.
 * Never past now. */
uint64_t xfab_rto_clock(uint64_t since, uint64_t paused_ns, uint64_t now);

/*
 * DCQCN's reaction point (Zhu et al., SIGCOMM 2015), per sending QP:
 *   CNP:          rt = rc; rc = rc * (1 - alpha / 2); alpha = (1 - g) alpha + g;
 *                 the timers and counters start again
 *   every K without a CNP:  alpha = (1 - g) alpha
 *   increase events (every T, and every B bytes sent; T_cnt, BC_cnt count
 *   them since the last cut): with the counter just incremented,
 *     max(T_cnt, BC_cnt) <= F   fast recovery:  rc = (rt + rc) / 2
 *     min(T_cnt, BC_cnt) >  F   hyper increase: rt += (min - F) * R_HAI; rc = (rt + rc) / 2
 *     otherwise                 additive:       rt += R_AI; rc = (rt + rc) / 2
 *   rt, rc at most the line rate, rc at least min_rate.
 */
struct xfab_dcqcn_params {
	double g;
	uint64_t k_ns, t_ns; /* alpha timer K, rate-increase timer T */
	uint64_t b_bytes;    /* byte counter B */
	uint32_t f;	     /* fast-recovery steps F */
	uint64_t rai, rhai;  /* bytes/s */
	uint64_t min_rate;   /* bytes/s */
};

/* xfab-coll's: g 1/256, K 55 us, T 55 us, B 128 KiB, F 5, R_AI 40 Mbit/s,
 * R_HAI 200 Mbit/s, min 10 Mbit/s. */
extern const struct xfab_dcqcn_params xfab_dcqcn_defaults;

struct xfab_dcqcn {
	struct xfab_dcqcn_params p;
	uint64_t line, rc, rt; /* bytes/s */
	double alpha;
	uint64_t alpha_at, inc_at; /* the timers' last expiry (ns) */
	uint64_t bytes;		   /* since the byte counter last expired */
	uint32_t t_cnt, bc_cnt;
	uint64_t cuts; /* CNPs reacted to */
};

void xfab_dcqcn_init(struct xfab_dcqcn *d, const struct xfab_dcqcn_params *p, uint64_t line,
		     uint64_t now);
void xfab_dcqcn_cnp(struct xfab_dcqcn *d, uint64_t now);
/* Runs the timers up to now (an idle QP at line rate skips them). */
void xfab_dcqcn_time(struct xfab_dcqcn *d, uint64_t now);
/* Counts bytes sent (the byte counter's increase events). */
void xfab_dcqcn_sent(struct xfab_dcqcn *d, uint64_t bytes);

#endif
