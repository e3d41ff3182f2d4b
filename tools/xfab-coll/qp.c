// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-coll: a rank's QPs and sockets, and each QP's schedule of one size. */
#include "coll_tool.h"

struct qp *coll_qp_by_qpn(struct rank *r, uint32_t qpn)
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
		return coll_fail(r, "UDP socket: %s", strerror(errno));
	setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return coll_fail(r, "UDP %s:%u (a QP's source port): %s", inet_ntoa(a.sin_addr),
				 sport, strerror(errno));
	}
	r->socks[r->nsocks].sport = sport;
	r->socks[r->nsocks++].fd = fd;
	return fd;
}

/* The rank's QPs: towards each peer it sends to or receives from, every
 * channel and index; their ports and sockets. */
int coll_qps_open(struct rank *r)
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
		return coll_fail(r, "no QPs");
	r->nqps = np * per;
	r->qps = calloc(r->nqps, sizeof(*r->qps));
	r->socks = calloc(r->nqps, sizeof(*r->socks));
	if (!r->qps || !r->socks)
		return coll_fail(r, "out of memory");
	/* a socket per distinct source port: raise the open-file limit */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    r->nqps + 64 > rl.rlim_cur)
		return coll_fail(
		    r,
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

int coll_rx_open(struct rank *r)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr = r->job.ranks[r->me].addr,
				.sin_port = htons(XFAB_ROCE_UDP_PORT)};
	int one = 1, rcvbuf = 32 << 20;

	r->rx_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (r->rx_fd < 0)
		return coll_fail(r, "UDP socket: %s", strerror(errno));
	setsockopt(r->rx_fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	if (setsockopt(r->rx_fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(r->rx_fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(r->rx_fd, (struct sockaddr *)&a, sizeof(a)))
		return coll_fail(r, "UDP %s:%d: %s", inet_ntoa(a.sin_addr), XFAB_ROCE_UDP_PORT,
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
		return coll_fail(r, "out of memory");
	s->nmsgs = xfab_coll_msgs(&r->g, src, dst, qp->channel, qp->q, s->msgs, n);
	for (size_t i = 0; i < s->nmsgs; i++)
		s->pfx[i + 1] = s->pfx[i] + xfab_coll_msg_packets(s->msgs[i].len, r->o.mtu);
	return 0;
}

int coll_size_setup(struct rank *r, uint64_t bytes)
{
	char err[160];

	if (xfab_coll_geom_init(&r->g, r->op, r->job.qp_mode, r->n, r->job.channels, r->job.qps,
				bytes, XFAB_COLL_MSG_BYTES, err, sizeof(err)))
		return coll_fail(r, "size %llu: %s", (unsigned long long)bytes, err);
	r->steps = xfab_coll_steps(r->op, r->n);
	free(r->steps_left);
	r->steps_left = calloc((size_t)r->job.channels * r->steps, sizeof(*r->steps_left));
	if (!r->steps_left)
		return coll_fail(r, "out of memory");
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
void coll_iter_prepare(struct rank *r)
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

int coll_step_ready(const struct rank *r, uint32_t channel, uint32_t step)
{
	return step == 0 || !r->steps_left[channel * r->steps + step - 1];
}

int coll_iter_done(const struct rank *r)
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

/* The send position follows tx.nxt after a rewind or an ACK past it. */
void coll_tx_reposition(struct qp *qp)
{
	struct sched *s = &qp->tx_s;

	s->cur = qp->tx.nxt < s->base + s->pfx[s->nmsgs]
		     ? xfab_coll_msg_at(s->pfx, s->nmsgs, qp->tx.nxt - s->base)
		     : s->nmsgs;
}
