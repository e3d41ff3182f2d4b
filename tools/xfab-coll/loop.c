// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-coll: the event loop a rank serves until a condition holds. */
#include "coll_tool.h"

/* What an iteration that does not end is waiting for, on stderr: every QP
 * with work left (its sender's and receiver's state), then the rank's. */
void coll_dump_stuck(const struct rank *r)
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
				 !coll_step_ready(r, qp->channel, qp->tx_s.msgs[c].step))
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
			    (double)coll_qp_rto(r, qp) / 1e6, (double)qp->rtt.srtt / 1e6,
			    qp->backoff, -coll_ms_from(now, qp->progress_at),
			    (unsigned long long)qp->tx.timeouts, (unsigned long long)qp->tx.naks,
			    (double)qp->dcqcn.rc * 8 / 1e6, qp->pacer.rate ? " (DCQCN)" : "");
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
			coll_ms_from(now, r->pfc.until));
}

int coll_serve(struct rank *r, until_fn until, const char *waiting)
{
	struct pollfd pfd[2 + 2 * XFAB_JOB_MAX_RANKS];

	for (;;) {
		uint64_t now = xfab_mono_ns(), wake = now + 10000000ull, wait;
		int got, more, npfd = 0;
		struct timespec ts;

		if (now > r->deadline) {
			return coll_fail(r, "timed out (--timeout %.0f s) %s", r->o.timeout,
					 waiting);
		}
		if (r->pfc_on)
			xfab_pfc_read(&r->pfc);
		got = coll_rx_round(r, now);
		if (got < 0)
			return -1;
		coll_acks(r, now, &wake);
		coll_timers(r, now, &wake);
		more = coll_tx_round(r, now, &wake);
		if (more < 0)
			return -1;
		pfd[npfd++] = (struct pollfd){.fd = r->rx_fd, .events = POLLIN};
		if (r->pfc_on)
			pfd[npfd++] = (struct pollfd){.fd = r->pfc.fd, .events = POLLIN};
		if (coll_ctl_poll(r))
			return -1;
		if (until(r))
			return 0;
		if (r->me) {
			pfd[npfd++] = (struct pollfd){.fd = r->up.fd, .events = POLLIN};
		} else {
			pfd[npfd++] = (struct pollfd){.fd = r->ctl_fd, .events = POLLIN};
			for (uint32_t i = 0; i < r->npending; i++)
				if (r->pending[i].fd >= 0)
					pfd[npfd++] = (struct pollfd){.fd = r->pending[i].fd,
								      .events = POLLIN};
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
			return coll_fail(r, "poll: %s", strerror(errno));
	}
}

int coll_until_hellos(struct rank *r)
{
	return r->run.hellos == r->n - 1;
}

int coll_until_go(struct rank *r)
{
	(void)r;
	return r->run.go;
}

int coll_until_iter(struct rank *r)
{
	return coll_iter_done(r);
}

int coll_until_dones(struct rank *r)
{
	return r->run.dones == r->n - 1;
}

int coll_until_reports(struct rank *r)
{
	return r->run.reports == r->n - 1;
}

int coll_until_bye(struct rank *r)
{
	(void)r;
	return r->run.bye;
}
