// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Collectives' schedule, data, go-back-N and DCQCN (coll.h). */
#include "coll.h"

#include <stdio.h>
#include <string.h>

int xfab_coll_geom_init(struct xfab_coll_geom *g, enum xfab_job_op op, enum xfab_job_qp_mode mode,
			uint32_t n, uint32_t channels, uint32_t qps, uint64_t bytes,
			uint32_t msg_bytes, char *err, size_t errlen)
{
	memset(g, 0, sizeof(*g));
	if (n < 2 || n > XFAB_JOB_MAX_RANKS) {
		snprintf(err, errlen, "%u ranks; 2..%d", n, XFAB_JOB_MAX_RANKS);
		return -1;
	}
	if (channels < 1 || channels > XFAB_JOB_MAX_CHANNELS || qps < 1 || qps > XFAB_JOB_MAX_QPS) {
		snprintf(err, errlen, "channels 1..%d and qps 1..%d", XFAB_JOB_MAX_CHANNELS,
			 XFAB_JOB_MAX_QPS);
		return -1;
	}
	if (msg_bytes < 4 || msg_bytes % 4) {
		snprintf(err, errlen, "a message of %u bytes is not whole elements", msg_bytes);
		return -1;
	}
	if (bytes < 4ull * n) {
		snprintf(err, errlen, "%llu bytes leave no 4-byte element per rank (at least %u)",
			 (unsigned long long)bytes, 4 * n);
		return -1;
	}
	g->op = op;
	g->mode = mode;
	g->n = n;
	g->channels = channels;
	g->qps = qps;
	g->m = bytes / 4 / n;
	g->elems = g->m * n;
	g->bytes = g->elems * 4;
	g->msg_elems = msg_bytes / 4;
	return 0;
}

uint32_t xfab_coll_steps(enum xfab_job_op op, uint32_t n)
{
	switch (op) {
	case XFAB_JOB_ALLREDUCE:
		return 2 * (n - 1);
	case XFAB_JOB_ALLGATHER:
	case XFAB_JOB_REDUCESCATTER:
		return n - 1;
	default:
		return 1;
	}
}

/* (a - b) mod n for a < n, b < 2n */
static uint32_t ring_sub(uint32_t a, uint32_t b, uint32_t n)
{
	return (a + 2 * n - b) % n;
}

uint32_t xfab_coll_send_block(enum xfab_job_op op, uint32_t n, uint32_t rank, uint32_t t)
{
	switch (op) {
	case XFAB_JOB_ALLREDUCE:
		if (t < n - 1)
			return ring_sub(rank, t, n);
		return ring_sub((rank + 1) % n, t - (n - 1), n);
	case XFAB_JOB_REDUCESCATTER:
		return ring_sub(rank, t + 1, n);
	default: /* allgather */
		return ring_sub(rank, t, n);
	}
}

uint32_t xfab_coll_recv_block(enum xfab_job_op op, uint32_t n, uint32_t rank, uint32_t t)
{
	switch (op) {
	case XFAB_JOB_ALLREDUCE:
		if (t < n - 1)
			return ring_sub(rank, t + 1, n);
		return ring_sub(rank, t - (n - 1), n);
	case XFAB_JOB_REDUCESCATTER:
		return ring_sub(rank, t + 2, n);
	default: /* allgather */
		return ring_sub(rank, t + 1, n);
	}
}

int xfab_coll_step_reduces(enum xfab_job_op op, uint32_t n, uint32_t t)
{
	return op == XFAB_JOB_REDUCESCATTER || (op == XFAB_JOB_ALLREDUCE && t < n - 1);
}

void xfab_coll_part(const struct xfab_coll_geom *g, uint32_t block, uint32_t channel,
		    uint64_t *first, uint64_t *count)
{
	uint64_t lo = g->m * channel / g->channels, hi = g->m * (channel + 1) / g->channels;

	*first = (uint64_t)block * g->m + lo;
	*count = hi - lo;
}

size_t xfab_coll_msgs(const struct xfab_coll_geom *g, uint32_t src, uint32_t dst, uint32_t channel,
		      uint32_t q, struct xfab_coll_msg *out, size_t max)
{
	uint32_t steps = xfab_coll_steps(g->op, g->n);
	size_t k = 0, got = 0;

	if (src >= g->n || dst >= g->n || src == dst || channel >= g->channels)
		return 0;
	if (g->op != XFAB_JOB_ALLTOALL && dst != (src + 1) % g->n)
		return 0;
	for (uint32_t t = 0; t < steps; t++) {
		uint64_t sfirst, dfirst, count;
		uint8_t reduce = 0;

		if (g->op == XFAB_JOB_ALLTOALL) {
			xfab_coll_part(g, dst, channel, &sfirst, &count);
			xfab_coll_part(g, src, channel, &dfirst, &count);
		} else {
			xfab_coll_part(g, xfab_coll_send_block(g->op, g->n, src, t), channel,
				       &sfirst, &count);
			dfirst = sfirst;
			reduce = (uint8_t)xfab_coll_step_reduces(g->op, g->n, t);
		}
		for (uint64_t off = 0; off < count; off += g->msg_elems, k++) {
			uint32_t len =
			    (uint32_t)(count - off < g->msg_elems ? count - off : g->msg_elems);

			for (uint32_t p = 0; p < g->qps; p++) {
				struct xfab_coll_msg msg = {.step = t, .reduce = reduce};
				uint32_t lo = 0, hi = len;

				if (g->mode == XFAB_JOB_QP_RR) {
					if (p != k % g->qps)
						continue;
				} else {
					lo = (uint32_t)((uint64_t)len * p / g->qps);
					hi = (uint32_t)((uint64_t)len * (p + 1) / g->qps);
				}
				if (hi == lo || (q < g->qps && p != q))
					continue;
				msg.q = p;
				msg.src_off = sfirst + off + lo;
				msg.dst_off = dfirst + off + lo;
				msg.len = hi - lo;
				if (got < max)
					out[got] = msg;
				got++;
			}
		}
	}
	return got;
}

size_t xfab_coll_msg_at(const uint64_t *pfx, size_t nmsgs, uint64_t off)
{
	size_t lo = 0, hi = nmsgs;

	while (hi - lo > 1) { /* pfx[lo] <= off < pfx[hi] */
		size_t mid = lo + (hi - lo) / 2;

		if (pfx[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t coll_g(uint32_t x)
{
	return x * 0x9e3779b1u ^ x >> 5;
}

static uint32_t coll_h(uint32_t x)
{
	return x * 0x85ebca6bu + 0x27d4eb2fu;
}

uint32_t xfab_coll_value(uint32_t rank, uint64_t i)
{
	uint32_t x = (uint32_t)i;

	return coll_g(x) + (rank + 1) * coll_h(x);
}

uint32_t xfab_coll_sum(uint32_t n, uint64_t i)
{
	uint32_t x = (uint32_t)i;

	return n * coll_g(x) + (uint32_t)((uint64_t)n * (n + 1) / 2) * coll_h(x);
}

void xfab_coll_fill(const struct xfab_coll_geom *g, uint32_t rank, uint32_t *buf, uint32_t *recv)
{
	uint64_t lo = (uint64_t)rank * g->m, hi = lo + g->m;

	for (uint64_t i = 0; i < g->elems; i++) {
		switch (g->op) {
		case XFAB_JOB_ALLGATHER:
			buf[i] = i >= lo && i < hi ? xfab_coll_value(rank, i)
						   : XFAB_COLL_POISON ^ (uint32_t)i;
			break;
		case XFAB_JOB_ALLTOALL:
			buf[i] = xfab_coll_value(rank, i);
			recv[i] = i >= lo && i < hi ? buf[i] : XFAB_COLL_POISON ^ (uint32_t)i;
			break;
		default:
			buf[i] = xfab_coll_value(rank, i);
			break;
		}
	}
}

int xfab_coll_expect(const struct xfab_coll_geom *g, uint32_t rank, uint64_t i, uint32_t *want)
{
	uint64_t block = i / g->m;

	switch (g->op) {
	case XFAB_JOB_ALLREDUCE:
		*want = xfab_coll_sum(g->n, i);
		return 1;
	case XFAB_JOB_REDUCESCATTER:
		if (block != rank)
			return 0;
		*want = xfab_coll_sum(g->n, i);
		return 1;
	case XFAB_JOB_ALLGATHER:
		*want = xfab_coll_value((uint32_t)block, i);
		return 1;
	default: /* alltoall: block q came from rank q's block rank */
		*want = xfab_coll_value((uint32_t)block, (uint64_t)rank * g->m + i % g->m);
		return 1;
	}
}

int64_t xfab_coll_check(const struct xfab_coll_geom *g, uint32_t rank, const uint32_t *result,
			uint32_t *got, uint32_t *want)
{
	for (uint64_t i = 0; i < g->elems; i++) {
		uint32_t w;

		if (!xfab_coll_expect(g, rank, i, &w) || result[i] == w)
			continue;
		*got = result[i];
		*want = w;
		return (int64_t)i;
	}
	return -1;
}

void xfab_coll_reduce(uint32_t *dst, const uint32_t *src, size_t count)
{
	for (size_t i = 0; i < count; i++)
		dst[i] += src[i];
}

double xfab_coll_busbw_factor(enum xfab_job_op op, uint32_t n)
{
	if (op == XFAB_JOB_ALLREDUCE)
		return 2.0 * (n - 1) / n;
	return (double)(n - 1) / n;
}

double xfab_coll_algbw(uint64_t bytes, double seconds)
{
	return seconds > 0 ? (double)bytes / 1e9 / seconds : 0;
}

double xfab_coll_busbw(enum xfab_job_op op, uint32_t n, uint64_t bytes, double seconds)
{
	return xfab_coll_algbw(bytes, seconds) * xfab_coll_busbw_factor(op, n);
}

uint64_t xfab_psn_unwrap(uint64_t ref, uint32_t psn)
{
	int32_t d = (int32_t)((psn - (uint32_t)ref) & 0xffffffu);

	if (d & 0x800000)
		d -= 0x1000000;
	if (d < 0 && (uint64_t) - (int64_t)d > ref)
		return 0; /* before the first sequence: the oldest there is */
	return (uint64_t)((int64_t)ref + d);
}

enum xfab_gbn_verdict xfab_gbn_rx_packet(struct xfab_gbn_rx *rx, uint32_t psn)
{
	uint64_t seq = xfab_psn_unwrap(rx->epsn, psn);

	if (seq == rx->epsn) {
		rx->epsn++;
		rx->nak_sent = 0;
		rx->accepted++;
		return XFAB_GBN_ACCEPT;
	}
	if (seq < rx->epsn) {
		rx->dups++;
		return XFAB_GBN_DUP;
	}
	rx->oos++;
	if (rx->nak_sent)
		return XFAB_GBN_DISCARD;
	rx->nak_sent = 1;
	rx->naks++;
	return XFAB_GBN_NAK;
}

uint64_t xfab_gbn_tx_ack(struct xfab_gbn_tx *tx, uint32_t psn)
{
	uint64_t seq = xfab_psn_unwrap(tx->una, psn), done;

	if (seq < tx->una || seq >= tx->max)
		return 0; /* stale, or acknowledging what was never sent */
	done = seq + 1 - tx->una;
	tx->una = seq + 1;
	if (tx->nxt < tx->una)
		tx->nxt = tx->una;
	return done;
}

int xfab_gbn_tx_nak(struct xfab_gbn_tx *tx, uint32_t psn)
{
	uint64_t seq = xfab_psn_unwrap(tx->una, psn);

	if (seq < tx->una || seq > tx->max)
		return 0;
	tx->una = seq;
	tx->nxt = seq;
	tx->naks++;
	return 1;
}

void xfab_gbn_tx_timeout(struct xfab_gbn_tx *tx)
{
	tx->nxt = tx->una;
	tx->timeouts++;
}

uint64_t xfab_gbn_tx_next(struct xfab_gbn_tx *tx)
{
	uint64_t seq = tx->nxt++;

	if (seq < tx->max)
		tx->retransmits++;
	else
		tx->max = seq + 1;
	return seq;
}

void xfab_rtt_sample(struct xfab_rtt *e, uint64_t r)
{
	if (!r)
		r = 1;
	if (!e->srtt) {
		e->srtt = r;
		e->rttvar = r / 2;
	} else {
		uint64_t dev = e->srtt > r ? e->srtt - r : r - e->srtt;

		e->rttvar = (3 * e->rttvar + dev) / 4;
		e->srtt = (7 * e->srtt + r) / 8;
	}
	e->samples++;
}

uint64_t xfab_rtt_rto(const struct xfab_rtt *e, uint64_t initial, uint64_t g, uint64_t min,
		      uint64_t max)
{
	uint64_t rto;

	if (!e->srtt)
		rto = initial;
	else
		rto = e->srtt + (4 * e->rttvar > g ? 4 * e->rttvar : g);
	if (rto < min)
		rto = min;
	return rto > max ? max : rto;
}

void xfab_rto_bounds(uint64_t rate_Bps, uint32_t window, uint32_t wire, uint64_t *min_ns,
		     uint64_t *max_ns)
{
	uint64_t min = *min_ns, max = *max_ns;

	if (!min) {
		uint64_t drain = rate_Bps ? (uint64_t)window * wire * 1000000000ull / rate_Bps : 0;

		min = 2 * drain > XFAB_RTO_FLOOR_NS ? 2 * drain : XFAB_RTO_FLOOR_NS;
		if (max && min > max)
			min = max;
	}
	if (!max)
		max = 8 * min > XFAB_RTO_CEIL_NS ? 8 * min : XFAB_RTO_CEIL_NS;
	*min_ns = min;
	*max_ns = max;
}

uint64_t xfab_rto_clock(uint64_t since, uint64_t paused_ns, uint64_t now)
{
	uint64_t t = since + paused_ns;

	return t > now ? now : t;
}

const struct xfab_dcqcn_params xfab_dcqcn_defaults = {
    .g = 1.0 / 256,
    .k_ns = 55000,
    .t_ns = 55000,
    .b_bytes = 128ull * 1024,
    .f = 5,
    .rai = 40000000 / 8,
    .rhai = 200000000 / 8,
    .min_rate = 10000000 / 8,
};

void xfab_dcqcn_init(struct xfab_dcqcn *d, const struct xfab_dcqcn_params *p, uint64_t line,
		     uint64_t now)
{
	memset(d, 0, sizeof(*d));
	d->p = *p;
	d->line = d->rc = d->rt = line;
	d->alpha = 1.0;
	d->alpha_at = d->inc_at = now;
}

void xfab_dcqcn_cnp(struct xfab_dcqcn *d, uint64_t now)
{
	xfab_dcqcn_time(d, now);
	d->rt = d->rc;
	d->rc = (uint64_t)((double)d->rc * (1.0 - d->alpha / 2));
	if (d->rc < d->p.min_rate)
		d->rc = d->p.min_rate;
	d->alpha = (1 - d->p.g) * d->alpha + d->p.g;
	d->alpha_at = d->inc_at = now;
	d->bytes = 0;
	d->t_cnt = d->bc_cnt = 0;
	d->cuts++;
}

/* One rate-increase event, its counter just incremented. */
static void dcqcn_increase(struct xfab_dcqcn *d)
{
	uint32_t hi = d->t_cnt > d->bc_cnt ? d->t_cnt : d->bc_cnt;
	uint32_t lo = d->t_cnt < d->bc_cnt ? d->t_cnt : d->bc_cnt;

	if (lo > d->p.f)
		d->rt += (uint64_t)(lo - d->p.f) * d->p.rhai;
	else if (hi > d->p.f)
		d->rt += d->p.rai;
	if (d->rt > d->line)
		d->rt = d->line;
	d->rc = (d->rt + d->rc + 1) / 2; /* up: rt = line is reached, not approached forever */
}

/* Timer expiries handled per call: an idle stretch longer than this is at
 * line rate anyway (or alpha ~0). */
#define DCQCN_MAX_TICKS 100000

void xfab_dcqcn_time(struct xfab_dcqcn *d, uint64_t now)
{
	uint32_t ticks = 0;

	while (now >= d->alpha_at + d->p.k_ns && ticks++ < DCQCN_MAX_TICKS) {
		d->alpha *= 1 - d->p.g;
		d->alpha_at += d->p.k_ns;
	}
	if (ticks > DCQCN_MAX_TICKS)
		d->alpha_at = now;
	ticks = 0;
	while (now >= d->inc_at + d->p.t_ns) {
		d->inc_at += d->p.t_ns;
		if (d->rc >= d->line || ticks++ >= DCQCN_MAX_TICKS) {
			d->inc_at = now; /* back at line rate: nothing to recover */
			break;
		}
		d->t_cnt++;
		dcqcn_increase(d);
	}
}

void xfab_dcqcn_sent(struct xfab_dcqcn *d, uint64_t bytes)
{
	if (d->rc >= d->line)
		return;
	d->bytes += bytes;
	while (d->bytes >= d->p.b_bytes && d->rc < d->line) {
		d->bytes -= d->p.b_bytes;
		d->bc_cnt++;
		dcqcn_increase(d);
	}
}
