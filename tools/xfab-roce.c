// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab-roce: RoCEv2-format traffic over UDP 4791 for fabric tests.
 *
 *   xfab-roce send --dst ADDR [--qps N] [--count N] [--rate PPS] [--size B]
 *                  [--sport N | --sport-per-qp] [--qp-base N] [--duration S]
 *                  [--burst N --burst-gap-us U]   (messages with idle time between)
 *                  [--tos N]   (DSCP << 2 | ECN; 2 = ECT(0))
 *                  [--prio N] [--speed MBPS] [--no-pfc] [-j]
 *   xfab-roce recv [--port N] [--duration S] [--idle-ms MS] [-j]
 *
 * Each datagram is a Base Transport Header (opcode RC SEND-only, P_Key
 * 0xffff, destination QP, PSN), a payload and a 4-byte ICRC field (zero: no
 * RDMA NIC checks it here). The sender round-robins packets over N QPs, each
 * with its own PSN sequence, from one UDP source port by default (the
 * low-entropy case E-ECMP addresses) or one per QP. The receiver tracks every
 * (source, QP): packets, PSN gaps (losses) and out-of-sequence arrivals, the
 * events RoCE's go-back-N punishes, and the longest silence between two
 * packets (max_gap_ms, a pause seen from the far end). Everything is
 * bounded by count and time.
 *
 * --rate paces like a NIC's rate limiter, a token bucket of PACE_BURST
 * packets: a sender the scheduler held up catches up by at most that many
 * back to back, then keeps the rate from where it is (it does not make up
 * the lost time in one long burst, which a loaded machine would otherwise
 * turn into queue build-up the rate alone never makes).
 *
 * The sender honours PFC on its sending port, as a RoCE NIC does: it
 * listens (AF_PACKET, EtherType 0x8808) on the interface its route to --dst
 * leaves by (the one holding the connected socket's local address) for PFC
 * and PAUSE frames, and while its priority is paused it sends nothing until
 * an XON (time 0) or until the time runs out; a new XOFF restarts the time
 * from its arrival (802.1Qbb: the timer is reloaded). The priority is
 * --prio, by default the traffic class SONiC's default DSCP_TO_TC map gives
 * the DSCP of --tos (3->3, 4->4, 46->5, 48->6, 8->0, 5->2, others 1). Quanta
 * are 512 bit times at --speed Mbit/s, by default the interface's ethtool
 * speed, or 10,000 when it reports none (veth reports 10,000 itself). A
 * pause never lifts --duration: a paused sender still ends on time.
 * --no-pfc ignores pause frames. With -j, send prints one JSON object with
 * what it saw: pause frames, XOFF and XON for its priority, the total time
 * paused (paused_ms: from each pause's start to its XON, its expiry or the
 * end of the run).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "opts.h"
#include "roce.h"

#define ROCE_PORT 4791
#define BTH_LEN XFAB_BTH_LEN
#define ICRC_LEN XFAB_ICRC_LEN
#define MAX_QPS 1024
#define MAX_FLOWS 8192

#define PACE_BURST 8 /* packets: --rate's token bucket */

struct send_opts {
	const char *dst;
	int qps;
	long count; /* per QP */
	long rate;  /* packets/s, all QPs together; 0 = as fast as possible */
	int size;   /* payload bytes */
	int sport;
	int sport_per_qp;
	uint32_t qp_base;
	double duration;
	long burst;	   /* packets per burst (0: one steady stream) */
	int tos;	   /* IPv4 TOS / IPv6 traffic class: DSCP << 2 | ECN */
	long burst_gap_us; /* idle time between bursts */
	int prio;	   /* the priority PFC pauses (-1: from the DSCP) */
	long speed;	   /* Mbit/s for the quanta (0: the interface's) */
	int no_pfc;
	int json;
};

/* The sender's PFC listener on the port it sends by (the interface holding
 * the connected socket's local address). */
static int pfc_open(struct xfab_pfc_rx *p, const struct send_opts *o, int data_fd)
{
	struct sockaddr_storage local;
	socklen_t llen = sizeof(local);
	char dev[IF_NAMESIZE], err[160];

	p->fd = -1;
	p->prio = o->prio >= 0 ? o->prio : xfab_default_tc(o->tos >> 2);
	if (o->no_pfc)
		return 0;
	if (getsockname(data_fd, (struct sockaddr *)&local, &llen) ||
	    xfab_dev_of_addr((struct sockaddr *)&local, dev)) {
		fprintf(stderr, "xfab-roce send: no interface holds the socket's local address "
				"(sending without PFC)\n");
		return -1;
	}
	if (xfab_pfc_open(p, dev, p->prio, (__u32)o->speed, err, sizeof(err))) {
		fprintf(stderr, "xfab-roce send: %s (sending without PFC)\n", err);
		return -1;
	}
	return 0;
}

static int open_sender(const struct sockaddr_storage *dst, socklen_t dlen, int sport, int tos)
{
	struct sockaddr_storage src = {0};
	int fd = socket(dst->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (dst->ss_family == AF_INET)
		setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	else
		setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos));
	src.ss_family = dst->ss_family;
	if (dst->ss_family == AF_INET)
		((struct sockaddr_in *)&src)->sin_port = htons((uint16_t)sport);
	else
		((struct sockaddr_in6 *)&src)->sin6_port = htons((uint16_t)sport);
	if (bind(fd, (struct sockaddr *)&src, dlen) ||
	    connect(fd, (const struct sockaddr *)dst, dlen)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* --dst into dst (port 4791): 0, or the exit status 2. */
static int send_dst(const struct send_opts *o, struct sockaddr_storage *dst, socklen_t *dlen)
{
	if (inet_pton(AF_INET, o->dst, &((struct sockaddr_in *)dst)->sin_addr) == 1) {
		dst->ss_family = AF_INET;
		((struct sockaddr_in *)dst)->sin_port = htons(ROCE_PORT);
		*dlen = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, o->dst, &((struct sockaddr_in6 *)dst)->sin6_addr) == 1) {
		dst->ss_family = AF_INET6;
		((struct sockaddr_in6 *)dst)->sin6_port = htons(ROCE_PORT);
		*dlen = sizeof(struct sockaddr_in6);
	} else {
		fprintf(stderr, "xfab-roce send: --dst %s is not an address\n", o->dst);
		return 2;
	}
	return 0;
}

/* A socket per QP, or one for all: 0, or -1 (said on stderr). */
static int send_sockets(const struct send_opts *o, const struct sockaddr_storage *dst,
			socklen_t dlen, int *fds)
{
	for (int q = 0; q < o->qps; q++) {
		/* one socket (one 5-tuple) for all QPs, unless per-QP ports */
		if (q > 0 && !o->sport_per_qp) {
			fds[q] = fds[0];
			continue;
		}
		fds[q] = open_sender(dst, dlen, o->sport + (o->sport_per_qp ? q : 0), o->tos);
		if (fds[q] < 0) {
			fprintf(stderr, "xfab-roce send: socket: %s\n", strerror(errno));
			return -1;
		}
	}
	return 0;
}

struct send_run {
	struct xfab_pfc_rx pfc;
	struct xfab_pacer pacer;
	uint64_t start, deadline, sent, errors;
};

/* Waits until --rate (and the burst gaps) let the next packet go, held
 * meanwhile by any pause: 0, or -1 when the deadline passed. */
static int send_pace(const struct send_opts *o, struct send_run *sr)
{
	uint64_t gaps = 0, t = xfab_mono_ns(), due;

	if (o->burst > 0)
		gaps = (sr->sent / (uint64_t)o->burst) * (uint64_t)o->burst_gap_us * 1000;
	due = xfab_pacer_due(&sr->pacer, t, gaps);
	if (due > t + 50000) {
		/* a pause may come in meanwhile: held, then on */
		while (xfab_pfc_wait_until(&sr->pfc, due) && xfab_mono_ns() <= sr->deadline)
			xfab_pfc_hold(&sr->pfc, sr->deadline);
		if (xfab_mono_ns() > sr->deadline)
			return -1;
	}
	return 0;
}

/* The packets, the QPs in turn, until the count or the deadline. */
static void send_loop(const struct send_opts *o, const int *fds, uint8_t *buf, size_t len,
		      struct send_run *sr)
{
	static uint32_t psn[MAX_QPS];
	uint64_t total = (uint64_t)o->count * (uint64_t)o->qps;

	while (sr->sent < total) {
		int q = (int)(sr->sent % (uint64_t)o->qps);

		if ((sr->sent & 63) == 0 && xfab_mono_ns() > sr->deadline)
			break;
		/* a paused priority sends nothing (checked before every packet,
		 * as a NIC checks before it starts a frame) */
		xfab_pfc_hold(&sr->pfc, sr->deadline);
		if (xfab_mono_ns() > sr->deadline)
			break;
		if (o->rate > 0 && send_pace(o, sr))
			break;
		xfab_bth_put(buf, &(struct xfab_bth){.opcode = XFAB_OP_RC_SEND_ONLY,
						     .pkey = XFAB_DEFAULT_PKEY,
						     .dqpn = o->qp_base + (uint32_t)q,
						     .psn = psn[q]});
		if (send(fds[q], buf, len, 0) < 0) {
			sr->errors++;
			if (errno == ENOBUFS || errno == EAGAIN)
				continue; /* retry the same PSN */
		}
		psn[q] = (psn[q] + 1) & 0xffffff;
		sr->sent++;
		xfab_pacer_add(&sr->pacer, 1);
	}
}

/* What was sent and the pauses honoured: one line, or JSON with -j. */
static void send_report(const struct send_opts *o, const struct send_run *sr, int pfc_off,
			uint64_t end)
{
	const struct xfab_pfc_rx *pfc = &sr->pfc;

	if (o->json) {
		printf("{\"sent\":%llu,\"qps\":%d,\"dst\":\"%s\",\"errors\":%llu,"
		       "\"seconds\":%.6f,\"prio\":%d,\"pfc\":%s",
		       (unsigned long long)sr->sent, o->qps, o->dst, (unsigned long long)sr->errors,
		       (double)(end - sr->start) / 1e9, pfc->prio, pfc_off ? "false" : "true");
		if (!pfc_off)
			printf(",\"dev\":\"%s\",\"speed_mbps\":%u,\"speed_from\":\"%s\"", pfc->dev,
			       pfc->speed_mbps, pfc->speed_from);
		printf(",\"pause_frames\":%llu,\"xoff\":%llu,\"xon\":%llu,"
		       "\"other_prio_frames\":%llu,\"malformed\":%llu,\"pauses\":%llu,"
		       "\"paused_ms\":%.3f}\n",
		       (unsigned long long)pfc->frames, (unsigned long long)pfc->xoff,
		       (unsigned long long)pfc->xon, (unsigned long long)pfc->other,
		       (unsigned long long)pfc->malformed, (unsigned long long)pfc->pauses,
		       (double)pfc->paused_ns / 1e6);
		return;
	}
	printf("sent %llu packets on %d QPs to %s (%llu send errors) in %.3f s",
	       (unsigned long long)sr->sent, o->qps, o->dst, (unsigned long long)sr->errors,
	       (double)(end - sr->start) / 1e9);
	if (!pfc_off)
		printf("; priority %d paused %.3f ms (%llu pauses, %llu XOFF, %llu XON)", pfc->prio,
		       (double)pfc->paused_ns / 1e6, (unsigned long long)pfc->pauses,
		       (unsigned long long)pfc->xoff, (unsigned long long)pfc->xon);
	printf("\n");
}

static int do_send(const struct send_opts *o)
{
	static int fds[MAX_QPS];
	static struct send_run sr;
	struct sockaddr_storage dst = {0};
	socklen_t dlen;
	uint8_t buf[9000];
	size_t len = BTH_LEN + (size_t)o->size + ICRC_LEN;
	int pfc_off = o->no_pfc, ret;

	sr.start = xfab_mono_ns();
	sr.deadline = sr.start + (uint64_t)(o->duration * 1e9);
	sr.pfc.fd = -1;
	if (o->qps < 1 || o->qps > MAX_QPS || len > sizeof(buf)) {
		fprintf(stderr, "xfab-roce send: --qps 1..%d and --size up to %zu\n", MAX_QPS,
			sizeof(buf) - BTH_LEN - ICRC_LEN);
		return 2;
	}
	ret = send_dst(o, &dst, &dlen);
	if (ret)
		return ret;
	if (send_sockets(o, &dst, dlen, fds))
		return 1;
	if (pfc_open(&sr.pfc, o, fds[0])) /* sends anyway, saying so */
		pfc_off = 1;
	/* packet n leaves at start + n / rate (+ idle gaps) */
	xfab_pacer_init(&sr.pacer, o->rate > 0 ? (uint64_t)o->rate : 0, PACE_BURST, sr.start);
	memset(buf, 0, sizeof(buf));
	for (size_t i = BTH_LEN; i < len - ICRC_LEN; i++)
		buf[i] = (uint8_t)i;
	send_loop(o, fds, buf, len, &sr);
	uint64_t end = xfab_mono_ns();

	xfab_pfc_close(&sr.pfc, end); /* a pause still running counts up to now or its end */
	send_report(o, &sr, pfc_off, end);
	return 0;
}

struct qp_state {
	struct sockaddr_storage src;
	uint32_t qp;
	uint32_t expected_psn;
	uint64_t packets;
	uint64_t oos;  /* arrived with a PSN other than the next expected */
	int64_t lost;  /* PSNs skipped and never seen (late arrivals give back) */
	uint64_t late; /* arrived after a later PSN (reordered) */
	int started;
};

static int same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
}

static void addr_text(const struct sockaddr_storage *a, char *buf, size_t len)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)a;

	if (a->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, buf, (socklen_t)len);
	else if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], buf, (socklen_t)len);
	else
		inet_ntop(AF_INET6, &s6->sin6_addr, buf, (socklen_t)len);
}

struct recv_run {
	struct qp_state st[MAX_FLOWS];
	int n_st;
	uint64_t start, last, packets, oos, late, bad, max_gap, gap_at;
	int64_t lost;
};

/* The QP state of (src, qp), a new one at its first packet; NULL when the
 * table is full. */
static struct qp_state *recv_flow(struct recv_run *rr, const struct sockaddr_storage *src,
				  uint32_t qp)
{
	struct qp_state *q;

	for (int i = 0; i < rr->n_st; i++)
		if (rr->st[i].qp == qp && same_addr(&rr->st[i].src, src))
			return &rr->st[i];
	if (rr->n_st == MAX_FLOWS)
		return NULL;
	q = &rr->st[rr->n_st++];
	q->src = *src;
	q->qp = qp;
	return q;
}

/* One packet of n bytes from src: its QP's PSN against the one expected. */
static void recv_take(struct recv_run *rr, const struct sockaddr_storage *src, const uint8_t *buf,
		      ssize_t n)
{
	struct qp_state *q;
	struct xfab_bth bth;
	uint32_t psn;

	if (n < BTH_LEN + ICRC_LEN || xfab_bth_get(buf, (size_t)n, &bth) ||
	    bth.pkey != XFAB_DEFAULT_PKEY) {
		rr->bad++;
		return;
	}
	psn = bth.psn;
	q = recv_flow(rr, src, bth.dqpn);
	if (!q) {
		rr->bad++;
		return;
	}
	rr->packets++;
	q->packets++;
	if (!q->started) {
		q->started = 1;
		q->expected_psn = (psn + 1) & 0xffffff;
		q->lost += psn; /* a sender starts at PSN 0 */
		rr->lost += psn;
		return;
	}
	if (psn == q->expected_psn) {
		q->expected_psn = (psn + 1) & 0xffffff;
		return;
	}
	q->oos++;
	rr->oos++;
	if (((psn - q->expected_psn) & 0xffffff) < 0x800000) { /* ahead: a gap */
		q->lost += (psn - q->expected_psn) & 0xffffff;
		rr->lost += (psn - q->expected_psn) & 0xffffff;
		q->expected_psn = (psn + 1) & 0xffffff;
	} else { /* behind: a reordered (late) packet */
		q->late++;
		rr->late++;
		q->lost--;
		rr->lost--;
	}
}

/* Per flow and in total: a table, or JSON with -j. */
static void recv_report(const struct recv_run *rr, int json)
{
	if (json) {
		printf("{\"packets\":%llu,\"qps\":%d,\"oos\":%llu,\"late\":%llu,\"lost\":%lld,"
		       "\"malformed\":%llu,\"max_gap_ms\":%.3f,\"max_gap_at_ms\":%.3f,\"flows\":[",
		       (unsigned long long)rr->packets, rr->n_st, (unsigned long long)rr->oos,
		       (unsigned long long)rr->late, (long long)rr->lost,
		       (unsigned long long)rr->bad, (double)rr->max_gap / 1e6,
		       (double)rr->gap_at / 1e6);
		for (int i = 0; i < rr->n_st; i++) {
			const struct qp_state *q = &rr->st[i];
			char a[INET6_ADDRSTRLEN];

			addr_text(&q->src, a, sizeof(a));
			printf("%s{\"src\":\"%s\",\"qp\":%u,\"packets\":%llu,\"oos\":%llu,"
			       "\"late\":%llu,\"lost\":%lld}",
			       i ? "," : "", a, q->qp, (unsigned long long)q->packets,
			       (unsigned long long)q->oos, (unsigned long long)q->late,
			       (long long)q->lost);
		}
		printf("]}\n");
		return;
	}
	printf("%-40s %8s %10s %8s %8s %8s\n", "Source", "QP", "Packets", "OOS", "Late", "Lost");
	for (int i = 0; i < rr->n_st; i++) {
		const struct qp_state *q = &rr->st[i];
		char a[INET6_ADDRSTRLEN];

		addr_text(&q->src, a, sizeof(a));
		printf("%-40s %8u %10llu %8llu %8llu %8lld\n", a, q->qp,
		       (unsigned long long)q->packets, (unsigned long long)q->oos,
		       (unsigned long long)q->late, (long long)q->lost);
	}
	printf("total: %llu packets on %d QPs, %llu out of sequence (%llu late), %lld lost, "
	       "%llu malformed\n",
	       (unsigned long long)rr->packets, rr->n_st, (unsigned long long)rr->oos,
	       (unsigned long long)rr->late, (long long)rr->lost, (unsigned long long)rr->bad);
}

static int do_recv(int port, double duration, int idle_ms, int json)
{
	static struct recv_run rr;
	struct sockaddr_in6 any = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), zero = 0, rcvbuf = 32 << 20;
	uint64_t deadline;
	uint8_t buf[9100];

	rr.start = xfab_mono_ns();
	deadline = rr.start + (uint64_t)(duration * 1e9);
	if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) ||
	    bind(fd, (struct sockaddr *)&any, sizeof(any))) {
		fprintf(stderr, "xfab-roce recv: cannot bind UDP %d: %s\n", port, strerror(errno));
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	/* the ready line (stderr beside JSON): a script starts its senders
	 * after it, not after a sleep a busy box can outlast */
	if (!json) {
		printf("listening on UDP %d\n", port);
		fflush(stdout);
	} else {
		fprintf(stderr, "listening on UDP %d\n", port);
	}
	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		struct sockaddr_storage src;
		socklen_t slen = sizeof(src);
		uint64_t t = xfab_mono_ns();
		ssize_t n;

		if (t > deadline || (rr.last && t - rr.last > (uint64_t)idle_ms * 1000000ull))
			break;
		if (poll(&pfd, 1, 20) <= 0)
			continue;
		n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&src, &slen);
		if (n < 0)
			continue;
		t = xfab_mono_ns();
		if (rr.last && t - rr.last > rr.max_gap) { /* the longest silence between packets */
			rr.max_gap = t - rr.last;
			rr.gap_at = rr.last - rr.start;
		}
		rr.last = t;
		recv_take(&rr, &src, buf, n);
	}
	recv_report(&rr, json);
	return 0;
}

struct recv_opts {
	int port, idle_ms, json;
	double duration;
};

/* xfab-roce send's options into so: 0, or the exit status. */
static int parse_send(struct send_opts *so, int argc, char **argv)
{
	const struct xfab_opt rows[] = {
	    XFAB_OPT_STR("dst", 0, so->dst, "ADDR", "the receiver (IPv4 or IPv6)", .required = 1),
	    XFAB_OPT_INT("qps", 0, so->qps, 1, MAX_QPS, "N", "queue pairs, one flow each (16)"),
	    XFAB_OPT_INT("count", 0, so->count, 1, 10000000, "N", "packets per QP (1000)"),
	    XFAB_OPT_INT("rate", 0, so->rate, 0, 100000000, "PPS",
			 "packets/s, all QPs together (0: as fast as it can)"),
	    XFAB_OPT_INT("size", 0, so->size, 0, 65535, "B", "payload bytes (1024)"),
	    XFAB_OPT_INT("sport", 0, so->sport, 0, 65535, "N", "UDP source port (49152)"),
	    XFAB_OPT_FLAG("sport-per-qp", 0, so->sport_per_qp,
			  "a source port per QP: --sport + QP"),
	    XFAB_OPT_UINT("qp-base", 0, so->qp_base, 0, UINT32_MAX, "N",
			  "the first QP number (0x100)"),
	    XFAB_OPT_DOUBLE("duration", 0, so->duration, 0.001, 60, "S",
			    "stop after S seconds (10)"),
	    XFAB_OPT_INT("burst", 0, so->burst, 0, 10000000, "N",
			 "packets per burst (0: one steady stream)"),
	    XFAB_OPT_INT("burst-gap-us", 0, so->burst_gap_us, 0, 60000000, "U",
			 "idle time between bursts"),
	    XFAB_OPT_INT("tos", 0, so->tos, 0, 255, "N", "TOS / traffic class: DSCP << 2 | ECN"),
	    XFAB_OPT_INT("prio", 0, so->prio, 0, 7, "N",
			 "the priority PFC pauses (default: from the DSCP)", .base = 10),
	    XFAB_OPT_INT("speed", 0, so->speed, 1, 10000000, "MBPS",
			 "port speed for pause quanta (default: ethtool's)"),
	    XFAB_OPT_FLAG("no-pfc", 0, so->no_pfc, "ignore pause frames"),
	    XFAB_OPT_FLAG("json", 'j', so->json, "the result as JSON"),
	    XFAB_OPT_END,
	};
	const struct xfab_opts spec = {"xfab-roce send", "--dst ADDR", rows, NULL};
	return xfab_opts_parse_all(&spec, argc, argv);
}

/* xfab-roce recv's options into ro: 0, or the exit status. */
static int parse_recv(struct recv_opts *ro, int argc, char **argv)
{
	const struct xfab_opt rows[] = {
	    XFAB_OPT_INT("port", 0, ro->port, 1, 65535, "N", "UDP port to listen on (4791)"),
	    XFAB_OPT_DOUBLE("duration", 0, ro->duration, 0.001, 60, "S",
			    "stop after S seconds (30)"),
	    XFAB_OPT_INT("idle-ms", 0, ro->idle_ms, 0, 3600000, "MS",
			 "stop after MS without a packet, once one came (1000)"),
	    XFAB_OPT_FLAG("json", 'j', ro->json, "the result as JSON"),
	    XFAB_OPT_END,
	};
	const struct xfab_opts spec = {"xfab-roce recv", NULL, rows, NULL};
	return xfab_opts_parse_all(&spec, argc, argv);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: xfab-roce send --dst ADDR [OPTIONS]   (xfab-roce send --help)\n"
		   "       xfab-roce recv [OPTIONS]              (xfab-roce recv --help)\n");
}

int main(int argc, char **argv)
{
	struct send_opts so = {.qps = 16,
			       .count = 1000,
			       .size = 1024,
			       .sport = 49152,
			       .qp_base = 0x100,
			       .duration = 10,
			       .prio = -1};
	struct recv_opts ro = {.port = ROCE_PORT, .idle_ms = 1000, .duration = 30};
	int ret;

	if (argc >= 2 && !strcmp(argv[1], "send")) {
		ret = parse_send(&so, argc - 1, argv + 1);
		if (ret >= 0)
			return ret;
		/* Bounded: at most 60 s and 10M packets a run. */
		if (so.count * so.qps > 10000000) {
			fprintf(stderr,
				"xfab-roce: --duration up to 60 s, up to 10M packets a run\n");
			return 2;
		}
		return do_send(&so);
	}
	if (argc >= 2 && !strcmp(argv[1], "recv")) {
		ret = parse_recv(&ro, argc - 1, argv + 1);
		if (ret >= 0)
			return ret;
		return do_recv(ro.port, ro.duration, ro.idle_ms, ro.json);
	}
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
