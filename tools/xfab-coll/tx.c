// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-coll: sending: data packets paced and windowed, and the control
 * packets (ACK, NAK, CNP) a receiver answers with. */
#include "coll_tool.h"

struct tx_batch {
	struct mmsghdr m[TX_BATCH];
	struct iovec iov[TX_BATCH][3];
	uint8_t hdr[TX_BATCH][XFAB_BTH_LEN];
	uint32_t wire[TX_BATCH];
};

static const uint8_t icrc_zero[XFAB_ICRC_LEN];

/* Whether a pacer (the rank's, then the QP's) holds the next packet back:
 * 1 with *wake lowered to when it may go. */
static int qp_paced_out(struct rank *r, struct qp *qp, uint64_t now, uint64_t *wake)
{
	if (r->pacer.rate) {
		uint64_t due = xfab_pacer_due(&r->pacer, now, 0);

		if (due > now) {
			/* a few packets at a time: one wake-up per packet
			 * costs more CPU than the data plane can spare */
			due += r->pace_wake;
			*wake = due < *wake ? due : *wake;
			return 1;
		}
	}
	if (qp->pacer.rate) {
		uint64_t due = xfab_pacer_due(&qp->pacer, now, 0);

		if (due > now) {
			*wake = due < *wake ? due : *wake;
			return 1;
		}
	}
	return 0;
}

/* Packet k of the batch: packet j of npk of message m, plen bytes from
 * off, on the wire wire bytes; the pacers are charged for it. */
static void qp_put_packet(struct rank *r, struct qp *qp, struct tx_batch *b, uint32_t k,
			  const struct xfab_coll_msg *m, uint64_t seq, uint64_t j, uint64_t npk,
			  uint64_t off, uint64_t plen, uint64_t wire)
{
	const uint32_t *src = r->buf; /* alltoall: its send buffer */

	xfab_bth_put(b->hdr[k], &(struct xfab_bth){.opcode = xfab_rc_send_opcode(j, npk),
						   .pkey = XFAB_DEFAULT_PKEY,
						   .dqpn = qp->peer_qpn,
						   .ackreq = j + 1 == npk,
						   .psn = (uint32_t)seq & XFAB_PSN_MASK});
	b->iov[k][0] = (struct iovec){b->hdr[k], XFAB_BTH_LEN};
	b->iov[k][1] = (struct iovec){(uint8_t *)(src + m->src_off) + off, plen};
	b->iov[k][2] = (struct iovec){(void *)icrc_zero, XFAB_ICRC_LEN};
	b->m[k].msg_hdr = (struct msghdr){.msg_name = &qp->peer_addr,
					  .msg_namelen = sizeof(qp->peer_addr),
					  .msg_iov = b->iov[k],
					  .msg_iovlen = 3};
	b->wire[k] = (uint32_t)wire;
	/* pacers charged now: a packet the socket refuses is paid anyway */
	if (r->pacer.rate)
		xfab_pacer_add(&r->pacer, wire);
	if (qp->pacer.rate)
		xfab_pacer_add(&qp->pacer, wire);
}

/* The sent packets' bookkeeping: the window, round-trip samples, counters
 * and DCQCN's byte counter. */
static void qp_sent(struct qp *qp, const struct tx_batch *b, int sent, uint64_t now)
{
	for (int i = 0; i < sent; i++) {
		int fresh = qp->tx.nxt >= qp->tx.max;
		uint64_t sq = xfab_gbn_tx_next(&qp->tx);

		qp->sent_at[sq % QP_WINDOW] = fresh ? now : 0; /* Karn: no samples from resends */
		qp->tx_packets++;
		qp->tx_bytes += b->iov[i][1].iov_len;
		if (qp->dcqcn.rc < qp->dcqcn.line) {
			uint64_t rc = qp->dcqcn.rc;

			xfab_dcqcn_sent(&qp->dcqcn, b->wire[i]);
			if (qp->dcqcn.rc != rc)
				xfab_pacer_set_rate(
				    &qp->pacer, qp->dcqcn.rc >= qp->dcqcn.line ? 0 : qp->dcqcn.rc,
				    now);
		}
	}
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

		if (seq >= qp->tx.max && !coll_step_ready(r, qp->channel, m->step))
			break; /* its chunk is not all here yet */
		if (plen > r->o.mtu)
			plen = r->o.mtu;
		wire = plen + XFAB_BTH_LEN + XFAB_ICRC_LEN + WIRE_OVERHEAD;
		if (qp_paced_out(r, qp, now, wake)) {
			*blocked = 2;
			break;
		}
		qp_put_packet(r, qp, &b, k, m, seq, j, npk, off, plen, wire);
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
			return coll_fail(r, "send to %s: %s", inet_ntoa(qp->peer_addr.sin_addr),
					 strerror(errno));
		sent = 0;
	}
	if ((uint32_t)sent < k)
		*blocked = 1;
	qp_sent(qp, &b, sent, now);
	coll_tx_reposition(qp);
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
int coll_tx_round(struct rank *r, uint64_t now, uint64_t *wake)
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

void coll_ctl_flush(void)
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

void coll_ctl_add(struct qp *qp, uint8_t opcode, uint32_t psn, int syndrome)
{
	uint8_t *p;
	size_t len;

	if (ctl.k == RX_BATCH * 2)
		coll_ctl_flush();
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
