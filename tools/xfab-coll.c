// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab-coll: collectives over RoCEv2 framing on the kernel's UDP sockets,
 * like nccl-tests over RDMA. One process per rank (a lab host); rank 0
 * coordinates over TCP and reports.
 *
 *   xfab-coll run --job FILE [--rank R] [--op OP] [--min-bytes B --max-bytes B --factor F]
 *                 [--iters N] [--warmup N] [--mtu BYTES] [--rate MBPS] [--tos N] [--prio N]
 *                 [--no-pfc] [--no-dcqcn] [--ctrl-port P] [--timeout S] [--drop-every N]
 *                 [--rto-min MS] [--rto-max MS] [--json FILE | -j]
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
 */
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
};

static int opt_err(const char *opt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int opt_err(const char *opt, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "xfab-coll: %s: ", opt);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* An integer in lo..hi (0x for hex); -1 naming the option otherwise. */
static int opt_uint(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (!*s || *end || errno || s[0] == '-' || x < lo || x > hi)
		return opt_err(opt, "\"%s\" is not an integer in %llu..%llu", s,
			       (unsigned long long)lo, (unsigned long long)hi);
	*out = x;
	return 0;
}

/* A size: bytes, or with K, M or G (powers of 1024), as nccl-tests takes. */
static int opt_size(const char *opt, const char *s, uint64_t *out)
{
	unsigned long long x;
	uint64_t mul = 1;
	char *end;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		mul = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mul = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mul = 1ull << 30;
	if (mul > 1)
		end++;
	if (!*s || *end || errno || s[0] == '-' || !x || x > (1ull << 30) / mul)
		return opt_err(opt, "\"%s\" is not a size in 1..1G (bytes, or K, M, G)", s);
	*out = x * mul;
	return 0;
}

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
	int ctl_fd;		/* rank > 0: to rank 0; rank 0: listening */
	struct peer_ctl *peers; /* rank 0: one per rank (peers[0] unused) */
	struct peer_ctl up;	/* rank > 0: rank 0's line buffer */
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

static int fail(struct rank *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records the run's first failure; -1. */
static int fail(struct rank *r, const char *fmt, ...)
{
	va_list ap;

	if (r->failure[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(r->failure, sizeof(r->failure), fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- QPs and sockets ---- */

static struct qp *qp_by_qpn(struct rank *r, uint32_t qpn)
{
	uint32_t idx, owner, rest, peer, channel, q;

	if (qpn < r->job.qp_base)
		return NULL;
	idx = qpn - r->job.qp_base;
	owner = idx / r->qp_span;
	rest = idx % r->qp_span;
	if (owner != r->me)
		return NULL;
	q = rest % r->job.qps;
	channel = rest / r->job.qps % r->job.channels;
	peer = rest / r->job.qps / r->job.channels;
	/* the QP table: peers in order, then channel, then q */
	for (uint32_t i = 0; i < r->nqps; i += r->job.channels * r->job.qps)
		if (r->qps[i].peer == peer)
			return &r->qps[i + channel * r->job.qps + q];
	return NULL;
}

static int sock_for(struct rank *r, uint16_t sport)
{
	struct sockaddr_in a = {
	    .sin_family = AF_INET, .sin_addr = r->job.ranks[r->me].addr, .sin_port = htons(sport)};
	int fd, tos = r->o.tos, pmtu = IP_PMTUDISC_DO, sndbuf = 4 << 20;

	for (uint32_t i = 0; i < r->nsocks; i++)
		if (r->socks[i].sport == sport)
			return r->socks[i].fd;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(r, "UDP socket: %s", strerror(errno));
	setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return fail(r, "UDP %s:%u (a QP's source port): %s", inet_ntoa(a.sin_addr), sport,
			    strerror(errno));
	}
	r->socks[r->nsocks].sport = sport;
	r->socks[r->nsocks++].fd = fd;
	return fd;
}

/* The rank's QPs: towards each peer it sends to or receives from, every
 * channel and index; their ports and sockets. */
static int qps_open(struct rank *r)
{
	uint32_t peers[XFAB_JOB_MAX_RANKS], np = 0, per = r->job.channels * r->job.qps;
	struct rlimit rl;

	if (r->op == XFAB_JOB_ALLTOALL) {
		for (uint32_t p = 0; p < r->n; p++)
			if (p != r->me)
				peers[np++] = p;
	} else {
		uint32_t prev = (r->me + r->n - 1) % r->n, next = (r->me + 1) % r->n;

		peers[np++] = prev < next ? prev : next;
		if (prev != next)
			peers[np++] = prev < next ? next : prev;
	}
	if (!np || !per) /* a job has 2 ranks or more, a channel and a QP */
		return fail(r, "no QPs");
	r->nqps = np * per;
	r->qps = calloc(r->nqps, sizeof(*r->qps));
	r->socks = calloc(r->nqps, sizeof(*r->socks));
	if (!r->qps || !r->socks)
		return fail(r, "out of memory");
	/* a socket per distinct source port: raise the open-file limit */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    r->nqps + 64 > rl.rlim_cur)
		return fail(r,
			    "the job gives rank %u %u QPs: more sockets than the open-file limit "
			    "(%llu)",
			    r->me, r->nqps, (unsigned long long)rl.rlim_cur);
	for (uint32_t i = 0; i < r->nqps; i++) {
		struct qp *qp = &r->qps[i];

		qp->peer = peers[i / per];
		qp->channel = i % per / r->job.qps;
		qp->q = i % r->job.qps;
		qp->qpn = xfab_job_qpn(&r->job, r->me, qp->peer, qp->channel, qp->q);
		qp->peer_qpn = xfab_job_qpn(&r->job, qp->peer, r->me, qp->channel, qp->q);
		qp->sport = xfab_roce_sport(qp->qpn, qp->peer_qpn);
		qp->peer_addr = (struct sockaddr_in){.sin_family = AF_INET,
						     .sin_addr = r->job.ranks[qp->peer].addr,
						     .sin_port = htons(XFAB_ROCE_UDP_PORT)};
		qp->fd = sock_for(r, qp->sport);
		if (qp->fd < 0)
			return -1;
		xfab_dcqcn_init(&qp->dcqcn, &xfab_dcqcn_defaults, r->line_Bps, xfab_mono_ns());
	}
	return 0;
}

static int rx_open(struct rank *r)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr = r->job.ranks[r->me].addr,
				.sin_port = htons(XFAB_ROCE_UDP_PORT)};
	int one = 1, rcvbuf = 32 << 20;

	r->rx_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (r->rx_fd < 0)
		return fail(r, "UDP socket: %s", strerror(errno));
	setsockopt(r->rx_fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	if (setsockopt(r->rx_fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(r->rx_fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(r->rx_fd, (struct sockaddr *)&a, sizeof(a)))
		return fail(r, "UDP %s:%d: %s", inet_ntoa(a.sin_addr), XFAB_ROCE_UDP_PORT,
			    strerror(errno));
	return 0;
}

/* ---- the schedule of one size ---- */

static int sched_build(struct rank *r, struct sched *s, uint32_t src, uint32_t dst,
		       const struct qp *qp)
{
	size_t n = xfab_coll_msgs(&r->g, src, dst, qp->channel, qp->q, NULL, 0);

	free(s->msgs);
	free(s->pfx);
	memset(s, 0, sizeof(*s));
	s->msgs = calloc(n ? n : 1, sizeof(*s->msgs));
	s->pfx = calloc(n + 1, sizeof(*s->pfx));
	if (!s->msgs || !s->pfx)
		return fail(r, "out of memory");
	s->nmsgs = xfab_coll_msgs(&r->g, src, dst, qp->channel, qp->q, s->msgs, n);
	for (size_t i = 0; i < s->nmsgs; i++)
		s->pfx[i + 1] = s->pfx[i] + xfab_coll_msg_packets(s->msgs[i].len, r->o.mtu);
	return 0;
}

static int size_setup(struct rank *r, uint64_t bytes)
{
	char err[160];

	if (xfab_coll_geom_init(&r->g, r->op, r->job.qp_mode, r->n, r->job.channels, r->job.qps,
				bytes, XFAB_COLL_MSG_BYTES, err, sizeof(err)))
		return fail(r, "size %llu: %s", (unsigned long long)bytes, err);
	r->steps = xfab_coll_steps(r->op, r->n);
	free(r->steps_left);
	r->steps_left = calloc((size_t)r->job.channels * r->steps, sizeof(*r->steps_left));
	if (!r->steps_left)
		return fail(r, "out of memory");
	for (uint32_t i = 0; i < r->nqps; i++) {
		struct qp *qp = &r->qps[i];

		if (sched_build(r, &qp->tx_s, r->me, qp->peer, qp) ||
		    sched_build(r, &qp->rx_s, qp->peer, r->me, qp))
			return -1;
	}
	return 0;
}

/* Ready for the next iteration: buffers filled, every QP at the start of
 * its schedule (everything before acknowledged and received). */
static void iter_prepare(struct rank *r)
{
	xfab_coll_fill(&r->g, r->me, r->buf, r->recv);
	memset(r->steps_left, 0, (size_t)r->job.channels * r->steps * sizeof(*r->steps_left));
	r->rx_left = 0;
	for (uint32_t i = 0; i < r->nqps; i++) {
		struct qp *qp = &r->qps[i];

		qp->tx_s.base = qp->tx.max;
		qp->tx_s.cur = 0;
		qp->rx_s.base = qp->rx.epsn;
		qp->rx_s.cur = 0;
		for (size_t k = 0; k < qp->rx_s.nmsgs; k++)
			r->steps_left[qp->channel * r->steps + qp->rx_s.msgs[k].step]++;
		r->rx_left += qp->rx_s.nmsgs;
	}
}

static int step_ready(const struct rank *r, uint32_t channel, uint32_t step)
{
	return step == 0 || !r->steps_left[channel * r->steps + step - 1];
}

static int iter_done(const struct rank *r)
{
	if (r->rx_left)
		return 0;
	for (uint32_t i = 0; i < r->nqps; i++) {
		const struct qp *qp = &r->qps[i];

		if (qp->tx.una != qp->tx_s.base + qp->tx_s.pfx[qp->tx_s.nmsgs])
			return 0;
	}
	return 1;
}

/* The message holding sequence seq of a schedule (seq in it). */
static size_t sched_find(const struct sched *s, uint64_t seq)
{
	uint64_t off = seq - s->base;
	size_t lo = 0, hi = s->nmsgs;

	while (hi - lo > 1) { /* pfx[lo] <= off < pfx[hi] */
		size_t mid = lo + (hi - lo) / 2;

		if (s->pfx[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The send position follows tx.nxt after a rewind or an ACK past it. */
static void tx_reposition(struct qp *qp)
{
	struct sched *s = &qp->tx_s;

	s->cur = qp->tx.nxt < s->base + s->pfx[s->nmsgs] ? sched_find(s, qp->tx.nxt) : s->nmsgs;
}

/* ---- sending ---- */

struct tx_batch {
	struct mmsghdr m[TX_BATCH];
	struct iovec iov[TX_BATCH][3];
	uint8_t hdr[TX_BATCH][XFAB_BTH_LEN];
	uint32_t wire[TX_BATCH];
};

static const uint8_t icrc_zero[XFAB_ICRC_LEN];

static uint32_t packet_opcode(uint64_t j, uint64_t npk)
{
	if (npk == 1)
		return XFAB_OP_RC_SEND_ONLY;
	if (j == 0)
		return XFAB_OP_RC_SEND_FIRST;
	return j + 1 == npk ? XFAB_OP_RC_SEND_LAST : XFAB_OP_RC_SEND_MIDDLE;
}

/* Sends up to quota data packets of qp from tx.nxt on; returns how many
 * went, or -1 (failure recorded). *blocked: why it stopped short (1: the
 * socket, 2: a pacer, with *wake the time to try again). */
static int qp_send(struct rank *r, struct qp *qp, uint32_t quota, uint64_t now, int *blocked,
		   uint64_t *wake)
{
	static struct tx_batch b;
	struct sched *s = &qp->tx_s;
	uint64_t end = s->base + s->pfx[s->nmsgs], seq = qp->tx.nxt;
	const uint32_t *src = r->buf; /* alltoall: its send buffer */
	uint32_t k = 0;
	size_t cur = s->cur;
	int sent;

	if (qp->probe) { /* the oldest unacked alone, until an answer */
		if (qp->tx.nxt > qp->tx.una)
			return 0;
		quota = 1;
	}
	while (k < quota && k < TX_BATCH && seq < end && seq - qp->tx.una < QP_WINDOW) {
		const struct xfab_coll_msg *m = &s->msgs[cur];
		uint64_t npk = s->pfx[cur + 1] - s->pfx[cur], j = seq - s->base - s->pfx[cur];
		uint64_t off = j * r->o.mtu, plen = (uint64_t)m->len * 4 - off, wire;

		if (seq >= qp->tx.max && !step_ready(r, qp->channel, m->step))
			break; /* its chunk is not all here yet */
		if (plen > r->o.mtu)
			plen = r->o.mtu;
		wire = plen + XFAB_BTH_LEN + XFAB_ICRC_LEN + WIRE_OVERHEAD;
		if (r->pacer.rate) {
			uint64_t due = xfab_pacer_due(&r->pacer, now, 0);

			if (due > now) {
				*blocked = 2;
				/* a few packets at a time: one wake-up per packet
				 * costs more CPU than the data plane can spare */
				due += r->pace_wake;
				*wake = due < *wake ? due : *wake;
				break;
			}
		}
		if (qp->pacer.rate) {
			uint64_t due = xfab_pacer_due(&qp->pacer, now, 0);

			if (due > now) {
				*blocked = 2;
				*wake = due < *wake ? due : *wake;
				break;
			}
		}
		xfab_bth_put(b.hdr[k], &(struct xfab_bth){.opcode = (uint8_t)packet_opcode(j, npk),
							  .pkey = XFAB_DEFAULT_PKEY,
							  .dqpn = qp->peer_qpn,
							  .ackreq = j + 1 == npk,
							  .psn = (uint32_t)seq & XFAB_PSN_MASK});
		b.iov[k][0] = (struct iovec){b.hdr[k], XFAB_BTH_LEN};
		b.iov[k][1] = (struct iovec){(uint8_t *)(src + m->src_off) + off, plen};
		b.iov[k][2] = (struct iovec){(void *)icrc_zero, XFAB_ICRC_LEN};
		b.m[k].msg_hdr = (struct msghdr){.msg_name = &qp->peer_addr,
						 .msg_namelen = sizeof(qp->peer_addr),
						 .msg_iov = b.iov[k],
						 .msg_iovlen = 3};
		b.wire[k] = (uint32_t)wire;
		/* pacers charged now: a packet the socket refuses is paid anyway */
		if (r->pacer.rate)
			xfab_pacer_add(&r->pacer, wire);
		if (qp->pacer.rate)
			xfab_pacer_add(&qp->pacer, wire);
		k++;
		seq++;
		if (j + 1 == npk)
			cur++;
	}
	if (!k)
		return 0;
	sent = sendmmsg(qp->fd, b.m, k, MSG_DONTWAIT);
	if (sent < 0) {
		if (errno != EAGAIN && errno != ENOBUFS && errno != EINTR)
			return fail(r, "send to %s: %s", inet_ntoa(qp->peer_addr.sin_addr),
				    strerror(errno));
		sent = 0;
	}
	if ((uint32_t)sent < k)
		*blocked = 1;
	for (int i = 0; i < sent; i++) {
		int fresh = qp->tx.nxt >= qp->tx.max;
		uint64_t sq = xfab_gbn_tx_next(&qp->tx);

		qp->sent_at[sq % QP_WINDOW] = fresh ? now : 0; /* Karn: no samples from resends */
		qp->tx_packets++;
		qp->tx_bytes += b.iov[i][1].iov_len;
		if (qp->dcqcn.rc < qp->dcqcn.line) {
			uint64_t rc = qp->dcqcn.rc;

			xfab_dcqcn_sent(&qp->dcqcn, b.wire[i]);
			if (qp->dcqcn.rc != rc)
				xfab_pacer_set_rate(
				    &qp->pacer, qp->dcqcn.rc >= qp->dcqcn.line ? 0 : qp->dcqcn.rc,
				    now);
		}
	}
	tx_reposition(qp);
	return sent;
}

static uint64_t inflight(const struct rank *r)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < r->nqps; i++)
		sum += r->qps[i].tx.nxt - r->qps[i].tx.una;
	return sum;
}

/* One round of data: QPs in turn, TX_BATCH packets each at most. Returns
 * 1 when more could go at once, 0 when blocked (wake: when to retry). */
static int tx_round(struct rank *r, uint64_t now, uint64_t *wake)
{
	static uint32_t start;
	uint32_t budget = TX_ROUND, progress = 1;
	uint64_t flight;
	int more = 0;

	if (!r->running)
		return 0;
	if (r->pfc_on) {
		xfab_pfc_expire(&r->pfc, now);
		if (r->pfc.until) {
			*wake = r->pfc.until < *wake ? r->pfc.until : *wake;
			return 0; /* the priority is paused */
		}
	}
	flight = inflight(r);
	while (budget && progress) {
		progress = 0;
		for (uint32_t i = 0; i < r->nqps && budget; i++) {
			struct qp *qp = &r->qps[(start + i) % r->nqps];
			uint32_t quota = TX_BATCH < budget ? TX_BATCH : budget;
			int blocked = 0, got;

			if (flight >= RANK_WINDOW)
				return 0;
			if (quota > RANK_WINDOW - flight)
				quota = (uint32_t)(RANK_WINDOW - flight);
			got = qp_send(r, qp, quota, now, &blocked, wake);
			if (got < 0)
				return -1;
			budget -= (uint32_t)got;
			flight += (uint64_t)got;
			if (got)
				progress = 1;
			if (blocked == 1)
				*wake = now + 50000 < *wake ? now + 50000 : *wake;
		}
	}
	start++;
	if (!budget)
		more = 1;
	return more;
}

/* ---- control packets (ACK, NAK, CNP) ---- */

struct ctl_batch {
	uint32_t k;
	struct mmsghdr m[RX_BATCH * 2];
	struct iovec iov[RX_BATCH * 2];
	uint8_t pkt[RX_BATCH * 2][XFAB_BTH_LEN + XFAB_CNP_PAD + XFAB_ICRC_LEN];
	int fd[RX_BATCH * 2];
};

static struct ctl_batch ctl;

static void ctl_flush(void)
{
	uint32_t i = 0;

	while (i < ctl.k) { /* runs of one socket */
		uint32_t j = i + 1;

		while (j < ctl.k && ctl.fd[j] == ctl.fd[i])
			j++;
		/* best effort: a lost ACK is a lost ACK */
		if (sendmmsg(ctl.fd[i], &ctl.m[i], j - i, MSG_DONTWAIT) < 0)
			(void)0;
		i = j;
	}
	ctl.k = 0;
}

static void ctl_add(struct qp *qp, uint8_t opcode, uint32_t psn, int syndrome)
{
	uint8_t *p;
	size_t len;

	if (ctl.k == RX_BATCH * 2)
		ctl_flush();
	p = ctl.pkt[ctl.k];
	memset(p, 0, sizeof(ctl.pkt[0]));
	xfab_bth_put(p, &(struct xfab_bth){.opcode = opcode,
					   .pkey = XFAB_DEFAULT_PKEY,
					   .dqpn = qp->peer_qpn,
					   .psn = psn & XFAB_PSN_MASK});
	if (opcode == XFAB_OP_CNP) {
		len = XFAB_BTH_LEN + XFAB_CNP_PAD + XFAB_ICRC_LEN;
	} else {
		xfab_aeth_put(p + XFAB_BTH_LEN, (uint8_t)syndrome, qp->msn);
		len = XFAB_BTH_LEN + XFAB_AETH_LEN + XFAB_ICRC_LEN;
	}
	ctl.iov[ctl.k] = (struct iovec){p, len};
	ctl.m[ctl.k].msg_hdr = (struct msghdr){.msg_name = &qp->peer_addr,
					       .msg_namelen = sizeof(qp->peer_addr),
					       .msg_iov = &ctl.iov[ctl.k],
					       .msg_iovlen = 1};
	ctl.fd[ctl.k++] = qp->fd;
}

/* ---- receiving ---- */

static int rx_data(struct rank *r, struct qp *qp, const struct xfab_bth *h, const uint8_t *pl,
		   size_t plen, int ce, uint64_t now)
{
	struct sched *s = &qp->rx_s;
	const struct xfab_coll_msg *m;
	uint64_t npk, j, off, want;
	uint32_t *dst;

	r->data_seen++;
	if (r->o.drop_every && r->data_seen % r->o.drop_every == 0) {
		uint64_t seq = xfab_psn_unwrap(qp->rx.epsn, h->psn) + 1;

		/* the test hook: as if lost on the way; never the same PSN
		 * twice in a row (a resent window as long as N would lose
		 * the same packet forever) */
		if (seq != qp->drop_seq) {
			qp->drop_seq = seq;
			r->dropped++;
			return 0;
		}
	}
	if (ce) {
		qp->ce++;
		if (!qp->cnp_at || now - qp->cnp_at >= CNP_GAP_NS) {
			qp->cnp_at = now;
			qp->cnps_tx++;
			ctl_add(qp, XFAB_OP_CNP, 0, 0);
		}
	}
	switch (xfab_gbn_rx_packet(&qp->rx, h->psn)) {
	case XFAB_GBN_ACCEPT:
		break;
	case XFAB_GBN_NAK:
		ctl_add(qp, XFAB_OP_RC_ACK, (uint32_t)qp->rx.epsn, XFAB_AETH_NAK_PSN_SEQ);
		return 0;
	case XFAB_GBN_DUP:
		qp->ack_now = 1;
		return 0;
	default:
		return 0;
	}
	/* in order: the schedule says what it holds */
	if (s->cur >= s->nmsgs)
		return fail(r, "QP %u from rank %u: PSN %u is past the iteration's %llu packets",
			    qp->qpn, qp->peer, h->psn, (unsigned long long)s->pfx[s->nmsgs]);
	m = &s->msgs[s->cur];
	npk = s->pfx[s->cur + 1] - s->pfx[s->cur];
	j = qp->rx.epsn - 1 - s->base - s->pfx[s->cur];
	off = j * r->o.mtu;
	want = (uint64_t)m->len * 4 - off;
	if (want > r->o.mtu)
		want = r->o.mtu;
	if (h->opcode != packet_opcode(j, npk) || plen != want)
		return fail(r,
			    "QP %u from rank %u: PSN %u is opcode 0x%02x with %zu bytes; the "
			    "schedule says 0x%02x with %llu (do all ranks run the same options?)",
			    qp->qpn, qp->peer, h->psn, h->opcode, plen, packet_opcode(j, npk),
			    (unsigned long long)want);
	dst = (r->op == XFAB_JOB_ALLTOALL ? r->recv : r->buf) + m->dst_off + off / 4;
	if (m->reduce)
		xfab_coll_reduce(dst, (const uint32_t *)pl, plen / 4);
	else
		memcpy(dst, pl, plen);
	qp->rx_packets++;
	qp->rx_bytes += plen;
	if (!qp->ack_count++)
		qp->ack_first = now;
	if (h->ackreq || qp->ack_count >= ACK_EVERY)
		qp->ack_now = 1;
	if (j + 1 == npk) { /* the message is whole */
		qp->msn = (qp->msn + 1) & XFAB_PSN_MASK;
		r->steps_left[qp->channel * r->steps + m->step]--;
		r->rx_left--;
		s->cur++;
	}
	return 0;
}

static void rx_ack(struct rank *r, struct qp *qp, const struct xfab_bth *h, const uint8_t *p,
		   size_t len, uint64_t now)
{
	uint8_t syndrome;
	uint32_t msn;
	uint64_t seq;

	if (xfab_aeth_get(p, len, &syndrome, &msn))
		return;
	if (XFAB_AETH_IS_NAK(syndrome)) {
		qp->tx_naks_seen++;
		if (xfab_gbn_tx_nak(&qp->tx, h->psn)) {
			qp->progress_at = now;
			qp->probe = 0;
			tx_reposition(qp);
		}
		return;
	}
	seq = xfab_psn_unwrap(qp->tx.una, h->psn);
	if (seq >= qp->tx.una && seq < qp->tx.max && qp->sent_at[seq % QP_WINDOW])
		xfab_rtt_sample(&qp->rtt, now - qp->sent_at[seq % QP_WINDOW]);
	if (xfab_gbn_tx_ack(&qp->tx, h->psn)) {
		qp->progress_at = now;
		qp->backoff = 0;
		qp->probe = 0;
		tx_reposition(qp); /* an ACK past a rewind moves nxt on */
	}
	(void)r;
}

static void rx_cnp(struct rank *r, struct qp *qp, uint64_t now)
{
	qp->cnps_rx++;
	if (r->o.no_dcqcn)
		return;
	xfab_dcqcn_cnp(&qp->dcqcn, now);
	xfab_pacer_set_rate(&qp->pacer, qp->dcqcn.rc, now);
	if (!qp->pacer.burst)
		qp->pacer.burst = QP_BURST_PKTS * (uint64_t)(r->o.mtu + 58);
}

/* Reads what waits on the receive socket (a few batches); returns how many
 * packets, -1 on failure. */
static int rx_round(struct rank *r, uint64_t now)
{
	int total = 0;

	for (int round = 0; round < RX_ROUNDS; round++) {
		int got;

		for (int i = 0; i < RX_BATCH; i++) {
			r->rx_iov[i] =
			    (struct iovec){r->rx_slab + (size_t)i * r->rx_slot, r->rx_slot};
			r->rx_msgs[i].msg_hdr =
			    (struct msghdr){.msg_name = &r->rx_from[i],
					    .msg_namelen = sizeof(r->rx_from[i]),
					    .msg_iov = &r->rx_iov[i],
					    .msg_iovlen = 1,
					    .msg_control = r->rx_cmsg[i],
					    .msg_controllen = sizeof(r->rx_cmsg[i])};
		}
		got = recvmmsg(r->rx_fd, r->rx_msgs, RX_BATCH, MSG_DONTWAIT, NULL);
		if (got <= 0)
			break;
		total += got;
		for (int i = 0; i < got; i++) {
			const uint8_t *p = r->rx_slab + (size_t)i * r->rx_slot;
			size_t len = r->rx_msgs[i].msg_len;
			struct msghdr *mh = &r->rx_msgs[i].msg_hdr;
			struct cmsghdr *c;
			struct xfab_bth h;
			struct qp *qp;
			int tos = 0;

			if (mh->msg_flags & MSG_TRUNC || xfab_bth_get(p, len, &h) ||
			    len < XFAB_BTH_LEN + XFAB_ICRC_LEN || h.pkey != XFAB_DEFAULT_PKEY)
				continue;
			qp = qp_by_qpn(r, h.dqpn);
			if (!qp || qp->peer_addr.sin_addr.s_addr != r->rx_from[i].sin_addr.s_addr)
				continue; /* not one of this rank's QPs, or not from its peer */
			for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
				if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS)
					tos = *(uint8_t *)CMSG_DATA(c);
			switch (h.opcode) {
			case XFAB_OP_RC_SEND_FIRST:
			case XFAB_OP_RC_SEND_MIDDLE:
			case XFAB_OP_RC_SEND_LAST:
			case XFAB_OP_RC_SEND_ONLY:
				if (rx_data(r, qp, &h, p + XFAB_BTH_LEN,
					    len - XFAB_BTH_LEN - XFAB_ICRC_LEN, (tos & 3) == 3,
					    now))
					return -1;
				break;
			case XFAB_OP_RC_ACK:
				rx_ack(r, qp, &h, p + XFAB_BTH_LEN,
				       len - XFAB_BTH_LEN - XFAB_ICRC_LEN, now);
				break;
			case XFAB_OP_CNP:
				rx_cnp(r, qp, now);
				break;
			default:
				break;
			}
		}
		if (got < RX_BATCH)
			break;
	}
	ctl_flush(); /* NAKs and CNPs at once */
	return total;
}

/* Coalesced ACKs: a QP ACKs after ACK_EVERY packets, a message's last, a
 * duplicate, or ack_delay (ACK_DELAY_NS, or ACK_DELAY_PKTS packets' time at
 * --rate) after the first packet it has not ACKed. */
static void acks(struct rank *r, uint64_t now, uint64_t *wake)
{
	for (uint32_t i = 0; i < r->nqps; i++) {
		struct qp *qp = &r->qps[i];

		if (!qp->ack_count && !qp->ack_now)
			continue;
		if (!qp->ack_now && now - qp->ack_first < r->ack_delay) {
			if (qp->ack_first + r->ack_delay < *wake)
				*wake = qp->ack_first + r->ack_delay;
			continue;
		}
		if (qp->rx.epsn)
			ctl_add(qp, XFAB_OP_RC_ACK, (uint32_t)(qp->rx.epsn - 1), XFAB_AETH_ACK);
		qp->ack_count = 0;
		qp->ack_now = 0;
	}
	ctl_flush();
}

/* The RTO a QP's sender uses now (its estimate, doubled per timeout in a
 * row, within the bounds). */
static uint64_t qp_rto(const struct rank *r, const struct qp *qp)
{
	uint64_t rto = xfab_rtt_rto(&qp->rtt, r->rto_min, RTO_G_NS, r->rto_min, r->rto_max)
		       << qp->backoff;

	return rto > r->rto_max ? r->rto_max : rto;
}

/* ns from now to t, signed, in ms (for the dump). */
static double ms_from(uint64_t now, uint64_t t)
{
	return ((double)t - (double)now) / 1e6;
}

/* Retransmission timeouts and DCQCN's timers; wake: the next expiry. */
static void timers(struct rank *r, uint64_t now, uint64_t *wake)
{
	uint64_t stopped = 0;

	/* the RTO clocks stop while PFC pauses the rank: on a lossless
	 * fabric the packets an ACK waits for are queued behind the same
	 * congestion, and a pause is backpressure, not loss */
	if (r->pfc_on) {
		uint64_t p = xfab_pfc_paused_ns(&r->pfc, now);

		stopped = p - r->paused_seen;
		r->paused_seen = p;
	}
	for (uint32_t i = 0; i < r->nqps; i++) {
		struct qp *qp = &r->qps[i];
		uint64_t rto = qp_rto(r, qp), at;

		if (qp->tx.nxt > qp->tx.una || (qp->tx.una < qp->tx.max)) {
			qp->progress_at = xfab_rto_clock(qp->progress_at, stopped, now);
			at = qp->progress_at + rto;
			if (now >= at) { /* no progress: go back to the oldest unacked */
				xfab_gbn_tx_timeout(&qp->tx);
				qp->probe = 1;
				r->timeouts++;
				tx_reposition(qp);
				qp->progress_at = now;
				if (qp->backoff < 8)
					qp->backoff++;
				at = now + rto;
			}
			*wake = at < *wake ? at : *wake;
		} else {
			qp->progress_at = now;
		}
		if (qp->dcqcn.rc < qp->dcqcn.line) {
			uint64_t rc = qp->dcqcn.rc;

			xfab_dcqcn_time(&qp->dcqcn, now);
			if (qp->dcqcn.rc != rc)
				xfab_pacer_set_rate(
				    &qp->pacer, qp->dcqcn.rc >= qp->dcqcn.line ? 0 : qp->dcqcn.rc,
				    now);
			at = qp->dcqcn.inc_at + qp->dcqcn.p.t_ns;
			*wake = at < *wake ? at : *wake;
		}
	}
}

/* ---- control (TCP) ---- */

/* Writes a whole line (blocking up to the deadline). */
static int ctl_write(struct rank *r, int fd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int ctl_write(struct rank *r, int fd, const char *fmt, ...)
{
	char small[CTRL_LINE], *line = small;
	size_t len, off = 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return fail(r, "control: cannot format a line");
	if ((size_t)n >= sizeof(small)) {
		line = malloc((size_t)n + 1);
		if (!line)
			return fail(r, "out of memory");
		va_start(ap, fmt);
		vsnprintf(line, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	len = (size_t)n;
	while (off < len) {
		ssize_t w = send(fd, line + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		struct pollfd p = {.fd = fd, .events = POLLOUT};

		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			break;
		if (xfab_mono_ns() > r->deadline)
			break;
		poll(&p, 1, 10);
	}
	if (line != small)
		free(line);
	if (off < len)
		return fail(r, "control connection: cannot send (%s)", strerror(errno));
	return 0;
}

static void ctl_abort_all(struct rank *r)
{
	if (r->me == 0) {
		for (uint32_t p = 1; p < r->n; p++)
			if (r->peers[p].fd >= 0)
				ctl_write(r, r->peers[p].fd, "ABORT %s\n", r->failure);
	} else if (r->ctl_fd >= 0) {
		ctl_write(r, r->ctl_fd, "ABORT rank %u: %s\n", r->me, r->failure);
	}
}

static int parse_counters(const char *s, struct counters *c)
{
	unsigned long long v[8];

	if (sscanf(s, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5], &v[6], &v[7]) != 8)
		return -1;
	*c = (struct counters){v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
	return 0;
}

static void my_counters(struct rank *r, struct counters *c)
{
	memset(c, 0, sizeof(*c));
	for (uint32_t i = 0; i < r->nqps; i++) {
		const struct qp *qp = &r->qps[i];

		c->oos += qp->rx.oos;
		c->retransmits += qp->tx.retransmits;
		c->cnps_tx += qp->cnps_tx;
		c->cnps_rx += qp->cnps_rx;
		c->naks += qp->rx.naks;
	}
	c->pause_ns = r->pfc_on ? xfab_pfc_paused_ns(&r->pfc, xfab_mono_ns()) : 0;
	c->timeouts = r->timeouts;
	c->dropped = r->dropped;
}

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

static struct run run;

/* One line from rank 0 (rank > 0). */
static int line_from_root(struct rank *r, char *line)
{
	unsigned int s, k;

	if (sscanf(line, "GO %u %u", &s, &k) == 2) {
		if (s != run.s || k != run.k)
			return fail(r, "control: GO %u %u while at size %u iteration %u", s, k,
				    run.s, run.k);
		run.go = 1;
		return 0;
	}
	if (!strcmp(line, "BYE")) {
		run.bye = 1;
		return 0;
	}
	if (!strncmp(line, "ABORT ", 6))
		return fail(r, "rank 0 stopped the run: %s", line + 6);
	return fail(r, "control: rank 0 sent \"%.60s\"", line);
}

/* One line from connection c (rank 0). */
static int line_to_root(struct rank *r, struct peer_ctl *c, uint32_t *who, char *line)
{
	unsigned int p, s, k;
	unsigned long long t;
	long long bad;
	int pos = 0;

	if (sscanf(line, "HELLO %u %n", &p, &pos) == 1 && pos) {
		if (*who != UINT32_MAX)
			return fail(r, "control: a second HELLO from rank %u", *who);
		if (p == 0 || p >= r->n)
			return fail(r, "control: HELLO from rank %u: the job has ranks 1..%u", p,
				    r->n - 1);
		if (r->peers[p].fd >= 0)
			return fail(r, "control: two processes say they are rank %u", p);
		if (strcmp(line + pos, r->sig))
			return fail(r,
				    "rank %u runs with other options than rank 0 (its \"%s\", rank "
				    "0's \"%s\")",
				    p, line + pos, r->sig);
		*who = p;
		r->peers[p].fd = c->fd;
		c->fd = -1; /* moved */
		run.hellos++;
		return 0;
	}
	if (*who == UINT32_MAX)
		return fail(r, "control: \"%.40s\" before HELLO", line);
	p = *who;
	if (sscanf(line, "DONE %u %u %llu %lld %n", &s, &k, &t, &bad, &pos) == 4 && pos) {
		struct peer_ctl *pc = &r->peers[p];

		if (s != run.s || k != run.k)
			return fail(r,
				    "control: rank %u is done with size %u iteration %u, not %u %u",
				    p, s, k, run.s, run.k);
		if (parse_counters(line + pos, &pc->last))
			return fail(r, "control: rank %u: a bad DONE line", p);
		pc->time = (double)t / 1e9;
		pc->first_bad = bad;
		pc->done_k = 1;
		run.dones++;
		return 0;
	}
	if (!strncmp(line, "REPORT ", 7)) {
		free(r->peers[p].report);
		r->peers[p].report = strdup(line + 7);
		r->peers[p].reported = 1;
		run.reports++;
		return 0;
	}
	if (!strncmp(line, "ABORT ", 6))
		return fail(r, "%s", line + 6);
	return fail(r, "control: rank %u sent \"%.60s\"", p, line);
}

/* Reads what waits on one control connection and handles its lines; EOF is
 * an error unless the run is over for it. */
static int ctl_read(struct rank *r, struct peer_ctl *c, uint32_t *who)
{
	for (;;) {
		ssize_t got;
		char *nl;

		c->buf[c->len] = '\0';
		while ((nl = strchr(c->buf, '\n'))) {
			size_t used = (size_t)(nl - c->buf) + 1;
			int rc;

			*nl = '\0';
			rc = r->me ? line_from_root(r, c->buf) : line_to_root(r, c, who, c->buf);
			memmove(c->buf, c->buf + used, c->len - used + 1);
			c->len -= used;
			if (rc)
				return -1;
			if (c->fd < 0)
				return 0; /* moved to its rank's slot */
		}
		if (c->len == sizeof(c->buf) - 1)
			return fail(r, "control: a line longer than %zu bytes", sizeof(c->buf));
		got = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len, MSG_DONTWAIT);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (got <= 0) {
			if (r->me && run.bye)
				return 0;
			if (r->me)
				return fail(r, "rank 0 closed the control connection");
			return fail(r, "rank %u closed its control connection",
				    *who == UINT32_MAX ? 0 : *who);
		}
		c->len += (size_t)got;
	}
	return 0;
}

/* Rank 0: connections not yet named by HELLO. */
static struct peer_ctl *pending;
static uint32_t npending;

static int ctl_poll(struct rank *r)
{
	if (r->me) {
		uint32_t who = 0;

		return ctl_read(r, &r->up, &who);
	}
	/* new connections */
	for (;;) {
		int fd = accept4(r->ctl_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1;

		if (fd < 0)
			break;
		if (npending == r->n) {
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		memset(&pending[npending], 0, sizeof(pending[0]));
		pending[npending++].fd = fd;
	}
	for (uint32_t i = 0; i < npending; i++) {
		uint32_t who = UINT32_MAX;

		if (pending[i].fd < 0)
			continue;
		if (ctl_read(r, &pending[i], &who))
			return -1;
		if (who != UINT32_MAX) { /* named: its buffer moves with it */
			struct peer_ctl *pc = &r->peers[who];
			int fd = pc->fd;

			memcpy(pc->buf, pending[i].buf, pending[i].len + 1);
			pc->len = pending[i].len;
			pc->fd = fd;
		}
	}
	for (uint32_t p = 1; p < r->n; p++) {
		uint32_t who = p;

		if (r->peers[p].fd >= 0 && !r->peers[p].reported && ctl_read(r, &r->peers[p], &who))
			return -1;
	}
	return 0;
}

/* ---- the loop ---- */

/* What an iteration that does not end is waiting for, on stderr: every QP
 * with work left (its sender's and receiver's state), then the rank's. */
static void dump_stuck(const struct rank *r)
{
	uint64_t now = xfab_mono_ns(), flight = 0;
	uint32_t shown = 0;

	for (uint32_t i = 0; i < r->nqps; i++) {
		const struct qp *qp = &r->qps[i];
		uint64_t tx_end = qp->tx_s.base + qp->tx_s.pfx[qp->tx_s.nmsgs];
		uint64_t rx_end = qp->rx_s.base + qp->rx_s.pfx[qp->rx_s.nmsgs];
		char tx[256] = "", rx[160] = "";

		flight += qp->tx.nxt - qp->tx.una;
		if (qp->tx.una == tx_end && qp->rx.epsn == rx_end)
			continue;
		shown++;
		if (qp->tx.una != tx_end) {
			const char *why = "";
			size_t c = qp->tx_s.cur;

			if (qp->probe)
				why = qp->tx.nxt > qp->tx.una ? ", probe out" : ", probe due";
			else if (qp->tx.nxt >= tx_end || qp->tx.nxt - qp->tx.una >= QP_WINDOW)
				why = ", window full";
			else if (qp->tx.nxt >= qp->tx.max && c < qp->tx_s.nmsgs &&
				 !step_ready(r, qp->channel, qp->tx_s.msgs[c].step))
				why = ", its step waits";
			snprintf(
			    tx, sizeof(tx),
			    "tx %llu/%llu una %llu nxt %llu%s, rto %.1f ms (srtt %.2f, backoff "
			    "%u), %.1f ms since progress, %llu timeouts %llu naks, rate %.1f "
			    "Mbit/s%s",
			    (unsigned long long)(qp->tx.max - qp->tx_s.base),
			    (unsigned long long)(tx_end - qp->tx_s.base),
			    (unsigned long long)(qp->tx.una - qp->tx_s.base),
			    (unsigned long long)(qp->tx.nxt - qp->tx_s.base), why,
			    (double)qp_rto(r, qp) / 1e6, (double)qp->rtt.srtt / 1e6, qp->backoff,
			    -ms_from(now, qp->progress_at), (unsigned long long)qp->tx.timeouts,
			    (unsigned long long)qp->tx.naks, (double)qp->dcqcn.rc * 8 / 1e6,
			    qp->pacer.rate ? " (DCQCN)" : "");
		}
		if (qp->rx.epsn != rx_end)
			snprintf(
			    rx, sizeof(rx),
			    "rx %llu/%llu (message %zu of %zu)%s, %u unacked, %llu oos %llu dups",
			    (unsigned long long)(qp->rx.epsn - qp->rx_s.base),
			    (unsigned long long)(rx_end - qp->rx_s.base), qp->rx_s.cur,
			    qp->rx_s.nmsgs, qp->rx.nak_sent ? ", NAK sent" : "", qp->ack_count,
			    (unsigned long long)qp->rx.oos, (unsigned long long)qp->rx.dups);
		fprintf(stderr, "xfab-coll: rank %u QP %u (peer %u c%u q%u): %s%s%s\n", r->me,
			qp->qpn, qp->peer, qp->channel, qp->q, tx, tx[0] && rx[0] ? "; " : "", rx);
	}
	fprintf(stderr,
		"xfab-coll: rank %u: %s, %u QPs with work, %llu of %u packets in flight, %llu "
		"timeouts, PFC %s (%llu XOFF, %llu XON), pacer %s\n",
		r->me, r->running ? "in the iteration" : "done with the iteration", shown,
		(unsigned long long)flight, RANK_WINDOW, (unsigned long long)r->timeouts,
		!r->pfc_on     ? "off"
		: r->pfc.until ? "paused"
			       : "running",
		(unsigned long long)r->pfc.xoff, (unsigned long long)r->pfc.xon,
		r->pacer.rate ? "on" : "off");
	if (r->pfc_on && r->pfc.until)
		fprintf(stderr, "xfab-coll: rank %u: paused for %.1f ms more\n", r->me,
			ms_from(now, r->pfc.until));
}

typedef int (*until_fn)(struct rank *r);

static int serve(struct rank *r, until_fn until, const char *waiting)
{
	struct pollfd pfd[2 + 2 * XFAB_JOB_MAX_RANKS];

	for (;;) {
		uint64_t now = xfab_mono_ns(), wake = now + 10000000ull, wait;
		int got, more, npfd = 0;
		struct timespec ts;

		if (now > r->deadline) {
			return fail(r, "timed out (--timeout %.0f s) %s", r->o.timeout, waiting);
		}
		if (r->pfc_on)
			xfab_pfc_read(&r->pfc);
		got = rx_round(r, now);
		if (got < 0)
			return -1;
		acks(r, now, &wake);
		timers(r, now, &wake);
		more = tx_round(r, now, &wake);
		if (more < 0)
			return -1;
		pfd[npfd++] = (struct pollfd){.fd = r->rx_fd, .events = POLLIN};
		if (r->pfc_on)
			pfd[npfd++] = (struct pollfd){.fd = r->pfc.fd, .events = POLLIN};
		if (ctl_poll(r))
			return -1;
		if (until(r))
			return 0;
		if (r->me) {
			pfd[npfd++] = (struct pollfd){.fd = r->up.fd, .events = POLLIN};
		} else {
			pfd[npfd++] = (struct pollfd){.fd = r->ctl_fd, .events = POLLIN};
			for (uint32_t i = 0; i < npending; i++)
				if (pending[i].fd >= 0)
					pfd[npfd++] =
					    (struct pollfd){.fd = pending[i].fd, .events = POLLIN};
			for (uint32_t p = 1; p < r->n; p++)
				if (r->peers[p].fd >= 0 && !r->peers[p].reported)
					pfd[npfd++] =
					    (struct pollfd){.fd = r->peers[p].fd, .events = POLLIN};
		}
		now = xfab_mono_ns();
		if (more || got == RX_BATCH * RX_ROUNDS)
			wait = 0;
		else
			wait = wake > now ? wake - now : 0;
		if (wake > r->deadline && r->deadline > now && wait > r->deadline - now)
			wait = r->deadline - now;
		ts.tv_sec = (time_t)(wait / 1000000000ull);
		ts.tv_nsec = (long)(wait % 1000000000ull);
		if (ppoll(pfd, (nfds_t)npfd, &ts, NULL) < 0 && errno != EINTR)
			return fail(r, "poll: %s", strerror(errno));
	}
}

static int until_hellos(struct rank *r)
{
	return run.hellos == r->n - 1;
}

static int until_go(struct rank *r)
{
	(void)r;
	return run.go;
}

static int until_iter(struct rank *r)
{
	return iter_done(r);
}

static int until_dones(struct rank *r)
{
	return run.dones == r->n - 1;
}

static int until_reports(struct rank *r)
{
	return run.reports == r->n - 1;
}

static int until_bye(struct rank *r)
{
	(void)r;
	return run.bye;
}

static int ctl_open(struct rank *r)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr = r->job.ranks[0].addr,
				.sin_port = htons(r->o.ctrl_port)};
	int one = 1;

	r->ctl_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (r->ctl_fd < 0)
		return fail(r, "TCP socket: %s", strerror(errno));
	if (r->me == 0) {
		setsockopt(r->ctl_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(r->ctl_fd, (struct sockaddr *)&a, sizeof(a)) || listen(r->ctl_fd, 64))
			return fail(r, "--ctrl-port %u: cannot listen on %s:%u: %s", r->o.ctrl_port,
				    inet_ntoa(a.sin_addr), r->o.ctrl_port, strerror(errno));
		return 0;
	}
	/* rank 0 may start later: try until the deadline */
	for (;;) {
		struct pollfd p = {.fd = r->ctl_fd, .events = POLLOUT};
		int err = 0;
		socklen_t elen = sizeof(err);

		if (!connect(r->ctl_fd, (struct sockaddr *)&a, sizeof(a)))
			break;
		if (errno == EINPROGRESS && poll(&p, 1, 500) == 1 &&
		    !getsockopt(r->ctl_fd, SOL_SOCKET, SO_ERROR, &err, &elen) && !err)
			break;
		if (err)
			errno = err;
		if (xfab_mono_ns() > r->deadline)
			return fail(
			    r, "cannot reach rank 0 at %s:%u (--ctrl-port) within %.0f s: %s",
			    inet_ntoa(a.sin_addr), r->o.ctrl_port, r->o.timeout, strerror(errno));
		close(r->ctl_fd);
		usleep(100000);
		r->ctl_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (r->ctl_fd < 0)
			return fail(r, "TCP socket: %s", strerror(errno));
	}
	setsockopt(r->ctl_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	r->up.fd = r->ctl_fd;
	return 0;
}

/* ---- reports ---- */

/* This rank's REPORT: its figures and every QP direction that carries data,
 * as one line of JSON. Returns a malloc'ed string. */
static char *rank_report(struct rank *r)
{
	char *text = NULL, addr[INET_ADDRSTRLEN];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	uint64_t now = xfab_mono_ns();
	int first = 1;

	if (!f)
		return NULL;
	inet_ntop(AF_INET, &r->job.ranks[r->me].addr, addr, sizeof(addr));
	fprintf(f, "{\"rank\":%u,\"host\":", r->me);
	xfab_jw_quote(f, r->job.ranks[r->me].host);
	fprintf(f, ",\"addr\":\"%s\",\"correct\":%s", addr, run.first_bad < 0 ? "true" : "false");
	if (run.first_bad >= 0)
		fprintf(f,
			",\"first_bad\":{\"bytes\":%llu,\"index\":%lld,\"got\":%u,\"expected\":%u}",
			(unsigned long long)r->stats[run.bad_s].bytes, (long long)run.first_bad,
			run.bad_got, run.bad_want);
	else
		fprintf(f, ",\"first_bad\":null");
	fprintf(f,
		",\"rate_mbps\":%.0f,\"rto_min_ms\":%.3f,\"rto_max_ms\":%.3f,\"dropped\":%llu,"
		"\"timeouts\":%llu",
		(double)r->line_Bps * 8 / 1e6, (double)r->rto_min / 1e6, (double)r->rto_max / 1e6,
		(unsigned long long)r->dropped, (unsigned long long)r->timeouts);
	fprintf(f, ",\"pfc\":{\"on\":%s,\"prio\":%d", r->pfc_on ? "true" : "false", r->pfc.prio);
	if (r->pfc_on) {
		fprintf(f, ",\"dev\":");
		xfab_jw_quote(f, r->pfc.dev);
		fprintf(f,
			",\"speed_mbps\":%u,\"pause_frames\":%llu,\"xoff\":%llu,"
			"\"xon\":%llu,\"pauses\":%llu,\"paused_ms\":%.3f",
			r->pfc.speed_mbps, (unsigned long long)r->pfc.frames,
			(unsigned long long)r->pfc.xoff, (unsigned long long)r->pfc.xon,
			(unsigned long long)r->pfc.pauses,
			(double)xfab_pfc_paused_ns(&r->pfc, now) / 1e6);
	}
	fprintf(f, "},\"qps\":[");
	for (uint32_t i = 0; i < r->nqps; i++) {
		const struct qp *qp = &r->qps[i];
		int sends = r->op == XFAB_JOB_ALLTOALL || qp->peer == (r->me + 1) % r->n;
		int recvs = r->op == XFAB_JOB_ALLTOALL || r->me == (qp->peer + 1) % r->n;

		if (sends) {
			fprintf(
			    f,
			    "%s{\"dir\":\"tx\",\"src\":%u,\"dst\":%u,\"channel\":%u,\"q\":%u,"
			    "\"src_qpn\":%u,\"dst_qpn\":%u,\"sport\":%u,\"packets\":%llu,"
			    "\"bytes\":%llu,\"retransmits\":%llu,\"naks\":%llu,\"timeouts\":%llu,"
			    "\"cnps\":%llu,\"rate_mbps\":%.1f}",
			    first ? "" : ",", r->me, qp->peer, qp->channel, qp->q, qp->qpn,
			    qp->peer_qpn, qp->sport, (unsigned long long)qp->tx_packets,
			    (unsigned long long)qp->tx_bytes,
			    (unsigned long long)qp->tx.retransmits, (unsigned long long)qp->tx.naks,
			    (unsigned long long)qp->tx.timeouts, (unsigned long long)qp->cnps_rx,
			    (double)qp->dcqcn.rc * 8 / 1e6);
			first = 0;
		}
		if (recvs) {
			fprintf(
			    f,
			    "%s{\"dir\":\"rx\",\"src\":%u,\"dst\":%u,\"channel\":%u,\"q\":%u,"
			    "\"src_qpn\":%u,\"dst_qpn\":%u,\"sport\":%u,\"packets\":%llu,"
			    "\"bytes\":%llu,\"oos\":%llu,\"dups\":%llu,\"naks\":%llu,\"ce\":%llu,"
			    "\"cnps\":%llu}",
			    first ? "" : ",", qp->peer, r->me, qp->channel, qp->q, qp->peer_qpn,
			    qp->qpn, qp->sport, (unsigned long long)qp->rx_packets,
			    (unsigned long long)qp->rx_bytes, (unsigned long long)qp->rx.oos,
			    (unsigned long long)qp->rx.dups, (unsigned long long)qp->rx.naks,
			    (unsigned long long)qp->ce, (unsigned long long)qp->cnps_tx);
			first = 0;
		}
	}
	fprintf(f, "]}");
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile of n sorted values. */
static double percentile(const double *v, uint32_t n, double p)
{
	uint32_t k = (uint32_t)ceil(p / 100 * n);

	return n ? v[k ? k - 1 : 0] : 0;
}

struct figures {
	double mean, p50, p99, min, max, algbw, busbw;
};

static void size_figures(const struct rank *r, const struct size_stats *st, struct figures *fg)
{
	double sorted[4096], sum = 0;
	uint32_t n = st->ntimes < 4096 ? st->ntimes : 4096;

	memcpy(sorted, st->times, n * sizeof(double));
	qsort(sorted, n, sizeof(double), cmp_double);
	for (uint32_t i = 0; i < n; i++)
		sum += sorted[i];
	fg->mean = n ? sum / n : 0;
	fg->p50 = percentile(sorted, n, 50);
	fg->p99 = percentile(sorted, n, 99);
	fg->min = n ? sorted[0] : 0;
	fg->max = n ? sorted[n - 1] : 0;
	fg->algbw = xfab_coll_algbw(st->bytes, fg->mean);
	fg->busbw = xfab_coll_busbw(r->op, r->n, st->bytes, fg->mean);
}

static void print_header(const struct rank *r)
{
	printf("# xfab-coll %s (job %s): %u ranks, %u channel%s x %u QP%s (%s), MTU %u, messages "
	       "up to %u B, %u iterations after %u warm-up\n",
	       xfab_job_op_name(r->op), r->job.name, r->n, r->job.channels,
	       r->job.channels > 1 ? "s" : "", r->job.qps, r->job.qps > 1 ? "s" : "",
	       xfab_job_qp_mode_name(r->job.qp_mode), r->o.mtu, XFAB_COLL_MSG_BYTES, r->o.iters,
	       r->o.warmup);
	if (r->pacer.rate)
		printf("# rank 0 paced at %.0f Mbit/s, RTO %.1f..%.1f ms\n",
		       (double)r->pacer.rate * 8 / 1e6, (double)r->rto_min / 1e6,
		       (double)r->rto_max / 1e6);
	else
		printf("# rank 0 unpaced, RTO %.1f..%.1f ms\n", (double)r->rto_min / 1e6,
		       (double)r->rto_max / 1e6);
	printf("#\n# %10s %10s %10s %10s %11s %11s %8s %8s %7s %7s %9s %7s\n", "size(B)",
	       "time(us)", "p50(us)", "p99(us)", "algbw(GB/s)", "busbw(GB/s)", "oos", "retrans",
	       "cnp_tx", "cnp_rx", "pause(ms)", "correct");
	fflush(stdout);
}

static void print_size(const struct rank *r, const struct size_stats *st)
{
	struct figures fg;

	size_figures(r, st, &fg);
	printf("  %10llu %10.1f %10.1f %10.1f %11.3f %11.3f %8llu %8llu %7llu %7llu %9.3f %7s\n",
	       (unsigned long long)st->bytes, fg.mean * 1e6, fg.p50 * 1e6, fg.p99 * 1e6, fg.algbw,
	       fg.busbw, (unsigned long long)st->oos, (unsigned long long)st->retransmits,
	       (unsigned long long)st->cnps_tx, (unsigned long long)st->cnps_rx,
	       (double)st->pause_ns / 1e6, st->first_bad < 0 ? "yes" : "NO");
	fflush(stdout);
}

static int write_json(struct rank *r, FILE *f, int correct)
{
	double busbw_sum = 0;

	fprintf(f, "{\"tool\":\"xfab-coll\",\"job\":");
	xfab_jw_quote(f, r->job.name);
	fprintf(f,
		",\"op\":\"%s\",\"ranks\":%u,\"channels\":%u,"
		"\"qps\":%u,\"qp_mode\":\"%s\",\"qp_base\":%u,\"mtu\":%u,\"msg_bytes\":%u,"
		"\"iters\":%u,\"warmup\":%u,\"sizes\":[",
		xfab_job_op_name(r->op), r->n, r->job.channels, r->job.qps,
		xfab_job_qp_mode_name(r->job.qp_mode), r->job.qp_base, r->o.mtu,
		XFAB_COLL_MSG_BYTES, r->o.iters, r->o.warmup);
	for (uint32_t s = 0; s < r->nsizes; s++) {
		const struct size_stats *st = &r->stats[s];
		struct figures fg;

		size_figures(r, st, &fg);
		busbw_sum += fg.busbw;
		fprintf(f,
			"%s{\"bytes\":%llu,\"time_us\":{\"mean\":%.3f,\"p50\":%.3f,\"p99\":%.3f,"
			"\"min\":%.3f,\"max\":%.3f},\"algbw_gbps\":%.6f,\"busbw_gbps\":%.6f,"
			"\"busbw_factor\":%.6f,\"oos\":%llu,\"retransmits\":%llu,\"naks\":%llu,"
			"\"timeouts\":%llu,\"dropped\":%llu,\"cnps_sent\":%llu,"
			"\"cnps_received\":%llu,\"pause_ms\":%.3f,\"correct\":%s",
			s ? "," : "", (unsigned long long)st->bytes, fg.mean * 1e6, fg.p50 * 1e6,
			fg.p99 * 1e6, fg.min * 1e6, fg.max * 1e6, fg.algbw, fg.busbw,
			xfab_coll_busbw_factor(r->op, r->n), (unsigned long long)st->oos,
			(unsigned long long)st->retransmits, (unsigned long long)st->naks,
			(unsigned long long)st->timeouts, (unsigned long long)st->dropped,
			(unsigned long long)st->cnps_tx, (unsigned long long)st->cnps_rx,
			(double)st->pause_ns / 1e6, st->first_bad < 0 ? "true" : "false");
		if (st->first_bad >= 0)
			fprintf(f, ",\"first_bad\":{\"rank\":%u,\"index\":%lld}", st->bad_rank,
				(long long)st->first_bad);
		fprintf(f, ",\"times_us\":[");
		for (uint32_t i = 0; i < st->ntimes; i++)
			fprintf(f, "%s%.3f", i ? "," : "", st->times[i] * 1e6);
		fprintf(f, "]}");
	}
	fprintf(f, "],\"avg_busbw_gbps\":%.6f,\"totals\":{",
		r->nsizes ? busbw_sum / r->nsizes : 0.0);
	{
		struct size_stats t = {0};

		for (uint32_t s = 0; s < r->nsizes; s++) {
			t.oos += r->stats[s].oos;
			t.retransmits += r->stats[s].retransmits;
			t.naks += r->stats[s].naks;
			t.timeouts += r->stats[s].timeouts;
			t.dropped += r->stats[s].dropped;
			t.cnps_tx += r->stats[s].cnps_tx;
			t.cnps_rx += r->stats[s].cnps_rx;
			t.pause_ns += r->stats[s].pause_ns;
		}
		fprintf(f,
			"\"oos\":%llu,\"retransmits\":%llu,\"naks\":%llu,\"timeouts\":%llu,"
			"\"dropped\":%llu,\"cnps_sent\":%llu,\"cnps_received\":%llu,"
			"\"pause_ms\":%.3f}",
			(unsigned long long)t.oos, (unsigned long long)t.retransmits,
			(unsigned long long)t.naks, (unsigned long long)t.timeouts,
			(unsigned long long)t.dropped, (unsigned long long)t.cnps_tx,
			(unsigned long long)t.cnps_rx, (double)t.pause_ns / 1e6);
	}
	fprintf(f, ",\"per_rank\":[");
	for (uint32_t p = 0; p < r->n; p++)
		fprintf(f, "%s%s", p ? "," : "", r->peers[p].report ? r->peers[p].report : "null");
	fprintf(f, "],\"correct\":%s}\n", correct ? "true" : "false");
	return ferror(f) ? -1 : 0;
}

/* ---- the run ---- */

static int check_result(struct rank *r, uint32_t s)
{
	uint32_t got, want;
	int64_t bad = xfab_coll_check(&r->g, r->me, r->op == XFAB_JOB_ALLTOALL ? r->recv : r->buf,
				      &got, &want);

	if (bad >= 0 && run.first_bad < 0) {
		run.first_bad = bad;
		run.bad_s = s;
		run.bad_got = got;
		run.bad_want = want;
	}
	return bad >= 0 ? (int)1 : 0;
}

/* Rank 0: the figures of (s, k) from every DONE (its own in peers[0]). */
static void root_collect(struct rank *r, uint32_t s, uint32_t k)
{
	struct size_stats *st = &r->stats[s];
	double slowest = 0;

	for (uint32_t p = 0; p < r->n; p++) {
		struct peer_ctl *pc = &r->peers[p];

		if (pc->time > slowest)
			slowest = pc->time;
		if (pc->first_bad >= 0 && st->first_bad < 0) {
			st->first_bad = pc->first_bad;
			st->bad_rank = p;
		}
		pc->done_k = 0;
	}
	if (k >= r->o.warmup)
		st->times[st->ntimes++] = slowest;
	if (k + 1 == r->o.warmup + r->o.iters) { /* the size's counters: since the last size */
		static struct counters prev[XFAB_JOB_MAX_RANKS];

		for (uint32_t p = 0; p < r->n; p++) {
			const struct counters *c = &r->peers[p].last;

			st->oos += c->oos - prev[p].oos;
			st->retransmits += c->retransmits - prev[p].retransmits;
			st->cnps_tx += c->cnps_tx - prev[p].cnps_tx;
			st->cnps_rx += c->cnps_rx - prev[p].cnps_rx;
			st->pause_ns += c->pause_ns - prev[p].pause_ns;
			st->timeouts += c->timeouts - prev[p].timeouts;
			st->dropped += c->dropped - prev[p].dropped;
			st->naks += c->naks - prev[p].naks;
			prev[p] = *c;
		}
	}
}

static int run_all(struct rank *r, int text)
{
	uint32_t per = r->o.warmup + r->o.iters;
	char *report;

	run.first_bad = -1;
	if (size_setup(r, r->sizes[0]))
		return -1;
	iter_prepare(r);
	if (ctl_open(r))
		return -1;
	if (r->me) {
		if (ctl_write(r, r->ctl_fd, "HELLO %u %s\n", r->me, r->sig))
			return -1;
	} else if (serve(r, until_hellos, "waiting for every rank to say HELLO")) {
		return -1;
	}
	if (r->me == 0 && text)
		print_header(r);
	r->in_loop = 1;
	for (uint32_t s = 0; s < r->nsizes; s++) {
		for (uint32_t k = 0; k < per; k++) {
			struct counters c;
			int bad;

			run.s = s;
			run.k = k;
			if (r->me == 0) {
				for (uint32_t p = 1; p < r->n; p++)
					if (ctl_write(r, r->peers[p].fd, "GO %u %u\n", s, k))
						return -1;
			} else if (serve(r, until_go, "waiting for rank 0's GO")) {
				return -1;
			}
			run.go = 0;
			r->iter_start = xfab_mono_ns();
			r->running = 1;
			if (serve(r, until_iter, "in an iteration (a peer stopped answering?)"))
				return -1;
			r->running = 0;
			r->iter_end = xfab_mono_ns();
			bad = check_result(r, s);
			/* ready for what comes next before saying DONE: a faster
			 * peer may send the next iteration's first packets at once */
			if (k + 1 < per) {
				iter_prepare(r);
			} else if (s + 1 < r->nsizes) {
				if (size_setup(r, r->sizes[s + 1]))
					return -1;
				iter_prepare(r);
			}
			my_counters(r, &c);
			if (r->me) {
				if (ctl_write(
					r, r->ctl_fd,
					"DONE %u %u %llu %lld %llu %llu %llu %llu %llu %llu "
					"%llu %llu\n",
					s, k, (unsigned long long)(r->iter_end - r->iter_start),
					bad ? (long long)run.first_bad : -1LL,
					(unsigned long long)c.oos,
					(unsigned long long)c.retransmits,
					(unsigned long long)c.cnps_tx,
					(unsigned long long)c.cnps_rx,
					(unsigned long long)c.pause_ns,
					(unsigned long long)c.timeouts,
					(unsigned long long)c.dropped, (unsigned long long)c.naks))
					return -1;
				continue;
			}
			r->peers[0].time = (double)(r->iter_end - r->iter_start) / 1e9;
			r->peers[0].first_bad = bad ? run.first_bad : -1;
			r->peers[0].last = c;
			if (serve(r, until_dones, "waiting for every rank's DONE"))
				return -1;
			run.dones = 0;
			root_collect(r, s, k);
		}
		if (r->me == 0 && text)
			print_size(r, &r->stats[s]);
	}
	r->in_loop = 0;
	report = rank_report(r);
	if (!report)
		return fail(r, "out of memory");
	if (r->me) {
		int rc = ctl_write(r, r->ctl_fd, "REPORT %s\n", report);

		free(report);
		if (rc || serve(r, until_bye, "waiting for rank 0's BYE"))
			return -1;
		return 0;
	}
	r->peers[0].report = report;
	if (serve(r, until_reports, "waiting for every rank's REPORT"))
		return -1;
	for (uint32_t p = 1; p < r->n; p++)
		ctl_write(r, r->peers[p].fd, "BYE\n");
	return 0;
}

/* ---- set-up ---- */

static void usage(FILE *f)
{
	fprintf(
	    f, "usage: xfab-coll run --job FILE [--rank R] [--op OP]\n"
	       "                     [--min-bytes B --max-bytes B --factor F] [--iters N] "
	       "[--warmup N]\n"
	       "                     [--mtu BYTES] [--rate MBPS] [--tos N] [--prio N] [--no-pfc] "
	       "[--no-dcqcn]\n"
	       "                     [--ctrl-port P] [--timeout S] [--drop-every N] [--rto-min MS] "
	       "[--rto-max MS]\n"
	       "                     [--json FILE | -j]\n"
	       "  OP: allreduce, allgather, reducescatter, alltoall (default: the job's)\n"
	       "  sizes: B, or with K, M, G; from --min-bytes to --max-bytes times --factor\n"
	       "         (default: the job's bytes alone)\n");
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
	    {"job", required_argument, NULL, 'J'},
	    {"rank", required_argument, NULL, 'r'},
	    {"op", required_argument, NULL, 'o'},
	    {"min-bytes", required_argument, NULL, 'b'},
	    {"max-bytes", required_argument, NULL, 'e'},
	    {"factor", required_argument, NULL, 'f'},
	    {"iters", required_argument, NULL, 'n'},
	    {"warmup", required_argument, NULL, 'w'},
	    {"mtu", required_argument, NULL, 'm'},
	    {"rate", required_argument, NULL, 'R'},
	    {"tos", required_argument, NULL, 'T'},
	    {"prio", required_argument, NULL, 'P'},
	    {"no-pfc", no_argument, NULL, 'N'},
	    {"no-dcqcn", no_argument, NULL, 'D'},
	    {"ctrl-port", required_argument, NULL, 'c'},
	    {"timeout", required_argument, NULL, 't'},
	    {"drop-every", required_argument, NULL, 'd'},
	    {"rto-min", required_argument, NULL, 'x'},
	    {"rto-max", required_argument, NULL, 'X'},
	    {"json", required_argument, NULL, 'O'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	uint64_t x = 0;
	char *end;
	int c;

	*o = (struct opts){.rank = -1,
			   .op = -1,
			   .factor = 2,
			   .iters = 20,
			   .warmup = 5,
			   .mtu = 1024,
			   .tos = DEFAULT_TOS,
			   .prio = -1,
			   .ctrl_port = DEFAULT_CTRL_PORT,
			   .timeout = 60};
	if (argc < 2 || strcmp(argv[1], "run")) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			usage(stdout);
			exit(0);
		}
		if (argc >= 2)
			fprintf(stderr, "xfab-coll: \"%s\": the command is run\n", argv[1]);
		usage(stderr);
		return -1;
	}
	optind = 2;
	while ((c = getopt_long(argc, argv, "jh", lopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			o->job_path = optarg;
			break;
		case 'r':
			if (opt_uint("--rank", optarg, 0, XFAB_JOB_MAX_RANKS - 1, &x))
				return -1;
			o->rank = (int)x;
			break;
		case 'o':
			o->op = xfab_job_op_parse(optarg);
			if (o->op < 0)
				return opt_err("--op",
					       "\"%s\" is none of allreduce, allgather, "
					       "reducescatter, alltoall",
					       optarg);
			break;
		case 'b':
			if (opt_size("--min-bytes", optarg, &o->min_bytes))
				return -1;
			break;
		case 'e':
			if (opt_size("--max-bytes", optarg, &o->max_bytes))
				return -1;
			break;
		case 'f':
			if (opt_uint("--factor", optarg, 2, 1024, &o->factor))
				return -1;
			break;
		case 'n':
			if (opt_uint("--iters", optarg, 1, 4096, &x))
				return -1;
			o->iters = (uint32_t)x;
			break;
		case 'w':
			if (opt_uint("--warmup", optarg, 0, 1000, &x))
				return -1;
			o->warmup = (uint32_t)x;
			break;
		case 'm':
			if (opt_uint("--mtu", optarg, 64, 8192, &x))
				return -1;
			if (x % 4)
				return opt_err("--mtu", "%llu is not whole 4-byte elements",
					       (unsigned long long)x);
			o->mtu = (uint32_t)x;
			break;
		case 'R':
			if (opt_uint("--rate", optarg, 1, 10000000, &o->rate_mbps))
				return -1;
			break;
		case 'T':
			if (opt_uint("--tos", optarg, 0, 255, &x))
				return -1;
			o->tos = (int)x;
			break;
		case 'P':
			if (opt_uint("--prio", optarg, 0, 7, &x))
				return -1;
			o->prio = (int)x;
			break;
		case 'N':
			o->no_pfc = 1;
			break;
		case 'D':
			o->no_dcqcn = 1;
			break;
		case 'c':
			if (opt_uint("--ctrl-port", optarg, 1, 65535, &x))
				return -1;
			o->ctrl_port = (uint16_t)x;
			break;
		case 't':
			errno = 0;
			o->timeout = strtod(optarg, &end);
			if (!*optarg || *end || errno || !(o->timeout >= 1 && o->timeout <= 3600))
				return opt_err("--timeout", "\"%s\" is not seconds in 1..3600",
					       optarg);
			break;
		case 'd':
			if (opt_uint("--drop-every", optarg, 2, 1000000000, &o->drop_every))
				return -1;
			break;
		case 'x':
			if (opt_uint("--rto-min", optarg, 1, 600000, &o->rto_min_ms))
				return -1;
			break;
		case 'X':
			if (opt_uint("--rto-max", optarg, 1, 600000, &o->rto_max_ms))
				return -1;
			break;
		case 'O':
			if (!*optarg)
				return opt_err("--json", "a file name is needed");
			o->json_path = optarg;
			break;
		case 'j':
			o->json_path = "-";
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc)
		return opt_err(argv[optind], "an argument no option takes");
	if (!o->job_path)
		return opt_err("--job", "a job file is needed (docs/TOOLS.md, \"Job files\")");
	if (o->rto_min_ms && o->rto_max_ms && o->rto_max_ms < o->rto_min_ms)
		return opt_err("--rto-max", "%llu ms is below --rto-min %llu ms",
			       (unsigned long long)o->rto_max_ms,
			       (unsigned long long)o->rto_min_ms);
	return 0;
}

/* The sizes the run sweeps: --min-bytes up to --max-bytes by --factor. */
static int plan_sizes(struct rank *r)
{
	uint64_t lo = r->o.min_bytes ? r->o.min_bytes : r->job.bytes;
	uint64_t hi = r->o.max_bytes ? r->o.max_bytes : r->o.min_bytes ? lo : r->job.bytes;

	if (hi < lo)
		return opt_err("--max-bytes", "%llu is below the smallest size %llu",
			       (unsigned long long)hi, (unsigned long long)lo);
	if (lo < 4ull * r->n)
		return opt_err(r->o.min_bytes ? "--min-bytes" : "job bytes",
			       "%llu leaves no 4-byte element per rank: at least %u for %u ranks",
			       (unsigned long long)lo, 4 * r->n, r->n);
	for (uint64_t s = lo; s <= hi; s *= r->o.factor) {
		if (r->nsizes == MAX_SIZES)
			return opt_err("--factor", "more than %d sizes from %llu to %llu",
				       MAX_SIZES, (unsigned long long)lo, (unsigned long long)hi);
		r->sizes[r->nsizes++] = s;
		if (s > hi / r->o.factor)
			break;
	}
	return 0;
}

/* What every rank must agree on, as one line. */
static void signature(struct rank *r)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a of the ranks */
	char sizes[MAX_SIZES * 12] = "";
	size_t off = 0;

	for (uint32_t i = 0; i < r->n; i++)
		for (size_t b = 0; b < sizeof(r->job.ranks[i].addr); b++) {
			h ^= ((const uint8_t *)&r->job.ranks[i].addr)[b];
			h *= 1099511628211ull;
		}
	for (uint32_t s = 0; s < r->nsizes; s++)
		off += (size_t)snprintf(sizes + off, sizeof(sizes) - off, "%s%llu", s ? "," : "",
					(unsigned long long)r->sizes[s]);
	snprintf(r->sig, sizeof(r->sig),
		 "op=%s n=%u ranks=%016llx channels=%u qps=%u mode=%s base=%u mtu=%u msg=%u "
		 "iters=%u warmup=%u sizes=%s",
		 xfab_job_op_name(r->op), r->n, (unsigned long long)h, r->job.channels, r->job.qps,
		 xfab_job_qp_mode_name(r->job.qp_mode), r->job.qp_base, r->o.mtu,
		 XFAB_COLL_MSG_BYTES, r->o.iters, r->o.warmup, sizes);
}

/* Which rank this is, its interface, the rate, PFC. */
static int rank_setup(struct rank *r)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	char dev[IF_NAMESIZE], err[160], addr[INET_ADDRSTRLEN];
	struct ifreq ifr = {0};
	uint32_t speed = 0;
	int fd, ifmtu = 0;

	if (r->o.rank >= 0) {
		if ((uint32_t)r->o.rank >= r->n)
			return opt_err("--rank", "%d is not a rank of the job (0..%u)", r->o.rank,
				       r->n - 1);
		r->me = (uint32_t)r->o.rank;
		a.sin_addr = r->job.ranks[r->me].addr;
		if (xfab_dev_of_addr((struct sockaddr *)&a, dev))
			return opt_err("--rank",
				       "%u: the job gives it %s, which no interface here holds",
				       r->me, inet_ntoa(a.sin_addr));
	} else {
		int found = -1;

		for (uint32_t i = 0; i < r->n; i++) {
			a.sin_addr = r->job.ranks[i].addr;
			if (xfab_dev_of_addr((struct sockaddr *)&a, dev))
				continue;
			if (found >= 0)
				return opt_err("--rank",
					       "ranks %d and %u both have addresses here: which?",
					       found, i);
			found = (int)i;
		}
		if (found < 0)
			return opt_err("--rank", "no rank of the job has its address here: which?");
		r->me = (uint32_t)found;
		a.sin_addr = r->job.ranks[r->me].addr;
		xfab_dev_of_addr((struct sockaddr *)&a, dev);
	}
	inet_ntop(AF_INET, &a.sin_addr, addr, sizeof(addr));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
		if (!ioctl(fd, SIOCGIFMTU, &ifr))
			ifmtu = ifr.ifr_mtu;
		speed = xfab_link_speed(fd, dev);
		close(fd);
	}
	if (ifmtu && r->o.mtu + XFAB_BTH_LEN + XFAB_ICRC_LEN + 28 > (uint32_t)ifmtu)
		return opt_err("--mtu",
			       "%u: a packet of %u bytes does not fit %s's MTU %d (at most --mtu "
			       "%d)",
			       r->o.mtu, r->o.mtu + XFAB_BTH_LEN + XFAB_ICRC_LEN + 28, dev, ifmtu,
			       (ifmtu - XFAB_BTH_LEN - XFAB_ICRC_LEN - 28) & ~3);
	r->line_Bps = (r->o.rate_mbps ? r->o.rate_mbps : speed) * 1000000ull / 8;
	/* a rate of 0 (no --rate, no speed reported): unpaced, DCQCN from 100G */
	xfab_pacer_init(&r->pacer, r->line_Bps, PACE_BURST_PKTS * (uint64_t)(r->o.mtu + 58),
			xfab_mono_ns());
	r->ack_delay = ACK_DELAY_NS;
	r->pace_wake = 0;
	if (r->pacer.rate) {
		uint64_t pkt = (uint64_t)(r->o.mtu + XFAB_BTH_LEN + XFAB_ICRC_LEN + WIRE_OVERHEAD) *
			       1000000000ull / r->pacer.rate;

		if (ACK_DELAY_PKTS * pkt > r->ack_delay)
			r->ack_delay = ACK_DELAY_PKTS * pkt;
		r->pace_wake = (PACE_WAKE_PKTS - 1) * pkt;
	}
	r->rto_min = r->o.rto_min_ms * 1000000ull;
	r->rto_max = r->o.rto_max_ms * 1000000ull;
	xfab_rto_bounds(r->pacer.rate, RANK_WINDOW,
			r->o.mtu + XFAB_BTH_LEN + XFAB_ICRC_LEN + WIRE_OVERHEAD, &r->rto_min,
			&r->rto_max);
	if (!r->line_Bps)
		r->line_Bps = 100000ull * 1000000 / 8;
	r->pfc.fd = -1;
	r->pfc.prio = r->o.prio >= 0 ? r->o.prio : xfab_default_tc(r->o.tos >> 2);
	if (!r->o.no_pfc) {
		if (xfab_pfc_open(&r->pfc, dev, r->pfc.prio, (uint32_t)r->o.rate_mbps, err,
				  sizeof(err)))
			fprintf(stderr, "xfab-coll: rank %u: %s (sending without PFC)\n", r->me,
				err);
		else
			r->pfc_on = 1;
	}
	(void)addr;
	return 0;
}

static int setup(struct rank *r)
{
	uint64_t cap = 0;

	if (plan_sizes(r) || rank_setup(r))
		return 2;
	signature(r);
	for (uint32_t s = 0; s < r->nsizes; s++) {
		struct size_stats *st = &r->stats[s];
		char err[160];

		if (xfab_coll_geom_init(&r->g, r->op, r->job.qp_mode, r->n, r->job.channels,
					r->job.qps, r->sizes[s], XFAB_COLL_MSG_BYTES, err,
					sizeof(err))) {
			fprintf(stderr, "xfab-coll: size %llu: %s\n",
				(unsigned long long)r->sizes[s], err);
			return 2;
		}
		st->bytes = r->g.bytes;
		st->first_bad = -1;
		st->times = calloc(r->o.iters, sizeof(double));
		if (!st->times)
			return fail(r, "out of memory"), 1;
		if (r->g.elems > cap)
			cap = r->g.elems;
	}
	if (!cap) /* every size has at least 4n bytes */
		return fail(r, "no sizes"), 1;
	r->cap_elems = cap;
	r->buf = malloc(cap * 4);
	r->recv = r->op == XFAB_JOB_ALLTOALL ? malloc(cap * 4) : NULL;
	r->rx_slot = (r->o.mtu + XFAB_BTH_LEN + XFAB_ICRC_LEN + 64 + 63) & ~(size_t)63;
	r->rx_slab = aligned_alloc(64, r->rx_slot * RX_BATCH);
	r->peers = calloc(r->n, sizeof(*r->peers));
	pending = calloc(r->n, sizeof(*pending));
	if (!r->buf || (r->op == XFAB_JOB_ALLTOALL && !r->recv) || !r->rx_slab || !r->peers ||
	    !pending)
		return fail(r, "out of memory"), 1;
	for (uint32_t p = 0; p < r->n; p++)
		r->peers[p].fd = -1;
	r->qp_span = r->n * r->job.channels * r->job.qps;
	r->ctl_fd = -1;
	r->up.fd = -1;
	if (rx_open(r) || qps_open(r))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	static struct rank rk;
	struct rank *r = &rk;
	char err[512];
	int rc, correct;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_opts(argc, argv, &r->o))
		return 2;
	if (xfab_job_load(r->o.job_path, &r->job, err, sizeof(err))) {
		fprintf(stderr, "xfab-coll: --job %s\n", err);
		return 2;
	}
	r->n = r->job.n;
	r->op = r->o.op >= 0 ? (enum xfab_job_op)r->o.op : r->job.op;
	r->deadline = xfab_mono_ns() + (uint64_t)(r->o.timeout * 1e9);
	rc = setup(r);
	if (rc == 2)
		return 2;
	if (!rc)
		rc = run_all(r, !r->o.json_path || strcmp(r->o.json_path, "-"));
	if (rc) {
		if (r->in_loop) /* what every QP of this rank still had to do */
			dump_stuck(r);
		fprintf(stderr, "xfab-coll: rank %u: %s\n", r->me,
			r->failure[0] ? r->failure : "failed");
		ctl_abort_all(r);
		return 1;
	}
	if (r->pfc_on)
		xfab_pfc_close(&r->pfc, xfab_mono_ns());
	correct = run.first_bad < 0;
	if (r->me == 0) {
		for (uint32_t p = 1; p < r->n; p++)
			if (strstr(r->peers[p].report, "\"correct\":false"))
				correct = 0;
		for (uint32_t s = 0; s < r->nsizes; s++)
			if (r->stats[s].first_bad >= 0)
				correct = 0;
		if (r->o.json_path) {
			FILE *f = strcmp(r->o.json_path, "-") ? fopen(r->o.json_path, "w") : stdout;

			if (!f || write_json(r, f, correct) || (f != stdout && fclose(f))) {
				fprintf(stderr, "xfab-coll: --json %s: %s\n", r->o.json_path,
					strerror(errno));
				return 1;
			}
		}
		if (!r->o.json_path || strcmp(r->o.json_path, "-")) {
			double sum = 0;

			for (uint32_t s = 0; s < r->nsizes; s++) {
				struct figures fg;

				size_figures(r, &r->stats[s], &fg);
				sum += fg.busbw;
			}
			printf("# Avg bus bandwidth: %.3f GB/s\n", sum / r->nsizes);
			printf("# %s\n", correct ? "correct: every element on every rank, every "
						   "size and iteration"
						 : "WRONG RESULTS (see above)");
		}
	} else {
		struct counters c;

		my_counters(r, &c);
		if (r->o.json_path) {
			char *rep = rank_report(r);
			FILE *f = strcmp(r->o.json_path, "-") ? fopen(r->o.json_path, "w") : stdout;

			if (!rep || !f || fprintf(f, "%s\n", rep) < 0 ||
			    (f != stdout && fclose(f))) {
				fprintf(stderr, "xfab-coll: --json %s: %s\n", r->o.json_path,
					strerror(errno));
				free(rep);
				return 1;
			}
			free(rep);
		} else {
			printf("xfab-coll rank %u (%s): %s; %llu out of sequence, %llu "
			       "retransmits, %llu timeouts, %llu CNPs sent, %llu received\n",
			       r->me, r->job.ranks[r->me].host[0] ? r->job.ranks[r->me].host : "-",
			       correct ? "correct" : "WRONG", (unsigned long long)c.oos,
			       (unsigned long long)c.retransmits, (unsigned long long)c.timeouts,
			       (unsigned long long)c.cnps_tx, (unsigned long long)c.cnps_rx);
		}
	}
	if (!correct) {
		if (run.first_bad >= 0)
			fprintf(stderr,
				"xfab-coll: rank %u: wrong result at size %llu: element %lld is "
				"0x%08x, expected 0x%08x\n",
				r->me, (unsigned long long)r->stats[run.bad_s].bytes,
				(long long)run.first_bad, run.bad_got, run.bad_want);
		return 1;
	}
	return 0;
}
