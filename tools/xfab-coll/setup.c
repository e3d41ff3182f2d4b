// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-coll: set-up: the sizes, the options' signature, the rank's buffers,
 * QPs, sockets, pacing and PFC. */
#include "coll_tool.h"

/* The sizes the run sweeps: --min-bytes up to --max-bytes by --factor. */
static int plan_sizes(struct rank *r)
{
	uint64_t lo = r->o.min_bytes ? r->o.min_bytes : r->job.bytes;
	uint64_t hi = r->o.max_bytes ? r->o.max_bytes : r->o.min_bytes ? lo : r->job.bytes;

	if (hi < lo)
		return coll_opt_err("--max-bytes", "%llu is below the smallest size %llu",
				    (unsigned long long)hi, (unsigned long long)lo);
	if (lo < 4ull * r->n)
		return coll_opt_err(
		    r->o.min_bytes ? "--min-bytes" : "job bytes",
		    "%llu leaves no 4-byte element per rank: at least %u for %u ranks",
		    (unsigned long long)lo, 4 * r->n, r->n);
	for (uint64_t s = lo; s <= hi; s *= r->o.factor) {
		if (r->nsizes == MAX_SIZES)
			return coll_opt_err("--factor", "more than %d sizes from %llu to %llu",
					    MAX_SIZES, (unsigned long long)lo,
					    (unsigned long long)hi);
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
			return coll_opt_err("--rank", "%d is not a rank of the job (0..%u)",
					    r->o.rank, r->n - 1);
		r->me = (uint32_t)r->o.rank;
		a.sin_addr = r->job.ranks[r->me].addr;
		if (xfab_dev_of_addr((struct sockaddr *)&a, dev))
			return coll_opt_err(
			    "--rank", "%u: the job gives it %s, which no interface here holds",
			    r->me, inet_ntoa(a.sin_addr));
	} else {
		int found = -1;

		for (uint32_t i = 0; i < r->n; i++) {
			a.sin_addr = r->job.ranks[i].addr;
			if (xfab_dev_of_addr((struct sockaddr *)&a, dev))
				continue;
			if (found >= 0)
				return coll_opt_err(
				    "--rank", "ranks %d and %u both have addresses here: which?",
				    found, i);
			found = (int)i;
		}
		if (found < 0)
			return coll_opt_err("--rank",
					    "no rank of the job has its address here: which?");
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
		return coll_opt_err(
		    "--mtu",
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

int coll_setup(struct rank *r)
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
			return coll_fail(r, "out of memory"), 1;
		if (r->g.elems > cap)
			cap = r->g.elems;
	}
	if (!cap) /* every size has at least 4n bytes */
		return coll_fail(r, "no sizes"), 1;
	r->cap_elems = cap;
	r->buf = malloc(cap * 4);
	r->recv = r->op == XFAB_JOB_ALLTOALL ? malloc(cap * 4) : NULL;
	r->rx_slot = (r->o.mtu + XFAB_BTH_LEN + XFAB_ICRC_LEN + 64 + 63) & ~(size_t)63;
	r->rx_slab = aligned_alloc(64, r->rx_slot * RX_BATCH);
	r->peers = calloc(r->n, sizeof(*r->peers));
	r->pending = calloc(r->n, sizeof(*r->pending));
	if (!r->buf || (r->op == XFAB_JOB_ALLTOALL && !r->recv) || !r->rx_slab || !r->peers ||
	    !r->pending)
		return coll_fail(r, "out of memory"), 1;
	for (uint32_t p = 0; p < r->n; p++)
		r->peers[p].fd = -1;
	r->qp_span = r->n * r->job.channels * r->job.qps;
	r->ctl_fd = -1;
	r->up.fd = -1;
	if (coll_rx_open(r) || coll_qps_open(r))
		return 1;
	return 0;
}
