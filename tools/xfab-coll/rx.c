// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-coll: receiving: data, ACKs, NAKs and CNPs; coalesced ACKs and the
 * retransmission timers. */
#include "coll_tool.h"

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
			coll_ctl_add(qp, XFAB_OP_CNP, 0, 0);
		}
	}
	switch (xfab_gbn_rx_packet(&qp->rx, h->psn)) {
	case XFAB_GBN_ACCEPT:
		break;
	case XFAB_GBN_NAK:
		coll_ctl_add(qp, XFAB_OP_RC_ACK, (uint32_t)qp->rx.epsn, XFAB_AETH_NAK_PSN_SEQ);
		return 0;
	case XFAB_GBN_DUP:
		qp->ack_now = 1;
		return 0;
	default:
		return 0;
	}
	/* in order: the schedule says what it holds */
	if (s->cur >= s->nmsgs)
		return coll_fail(r,
				 "QP %u from rank %u: PSN %u is past the iteration's %llu packets",
				 qp->qpn, qp->peer, h->psn, (unsigned long long)s->pfx[s->nmsgs]);
	m = &s->msgs[s->cur];
	npk = s->pfx[s->cur + 1] - s->pfx[s->cur];
	j = qp->rx.epsn - 1 - s->base - s->pfx[s->cur];
	off = j * r->o.mtu;
	want = (uint64_t)m->len * 4 - off;
	if (want > r->o.mtu)
		want = r->o.mtu;
	if (h->opcode != xfab_rc_send_opcode(j, npk) || plen != want)
		return coll_fail(
		    r,
		    "QP %u from rank %u: PSN %u is opcode 0x%02x with %zu bytes; the "
		    "schedule says 0x%02x with %llu (do all ranks run the same options?)",
		    qp->qpn, qp->peer, h->psn, h->opcode, plen, xfab_rc_send_opcode(j, npk),
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
			coll_tx_reposition(qp);
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
		coll_tx_reposition(qp); /* an ACK past a rewind moves nxt on */
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
int coll_rx_round(struct rank *r, uint64_t now)
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
			qp = coll_qp_by_qpn(r, h.dqpn);
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
	coll_ctl_flush(); /* NAKs and CNPs at once */
	return total;
}

/* Coalesced ACKs: a QP ACKs after ACK_EVERY packets, a message's last, a
 * duplicate, or ack_delay (ACK_DELAY_NS, or ACK_DELAY_PKTS packets' time at
 * --rate) after the first packet it has not ACKed. */
void coll_acks(struct rank *r, uint64_t now, uint64_t *wake)
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
			coll_ctl_add(qp, XFAB_OP_RC_ACK, (uint32_t)(qp->rx.epsn - 1),
				     XFAB_AETH_ACK);
		qp->ack_count = 0;
		qp->ack_now = 0;
	}
	coll_ctl_flush();
}

/* The RTO a QP's sender uses now (its estimate, doubled per timeout in a
 * row, within the bounds). */
uint64_t coll_qp_rto(const struct rank *r, const struct qp *qp)
{
	uint64_t rto = xfab_rtt_rto(&qp->rtt, r->rto_min, RTO_G_NS, r->rto_min, r->rto_max)
		       << qp->backoff;

	return rto > r->rto_max ? r->rto_max : rto;
}

/* ns from now to t, signed, in ms (for the dump). */
double coll_ms_from(uint64_t now, uint64_t t)
{
	return ((double)t - (double)now) / 1e6;
}

/* Retransmission timeouts and DCQCN's timers; wake: the next expiry. */
void coll_timers(struct rank *r, uint64_t now, uint64_t *wake)
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
		uint64_t rto = coll_qp_rto(r, qp), at;

		if (qp->tx.nxt > qp->tx.una || (qp->tx.una < qp->tx.max)) {
			qp->progress_at = xfab_rto_clock(qp->progress_at, stopped, now);
			at = qp->progress_at + rto;
			if (now >= at) { /* no progress: go back to the oldest unacked */
				xfab_gbn_tx_timeout(&qp->tx);
				qp->probe = 1;
				r->timeouts++;
				coll_tx_reposition(qp);
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
