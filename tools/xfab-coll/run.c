// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-coll: the run: every size, every iteration, checked. */
#include "coll_tool.h"

static int check_result(struct rank *r, uint32_t s)
{
	uint32_t got, want;
	int64_t bad = xfab_coll_check(&r->g, r->me, r->op == XFAB_JOB_ALLTOALL ? r->recv : r->buf,
				      &got, &want);

	if (bad >= 0 && r->run.first_bad < 0) {
		r->run.first_bad = bad;
		r->run.bad_s = s;
		r->run.bad_got = got;
		r->run.bad_want = want;
	}
	return bad >= 0 ? (int)1 : 0;
}

/* --dump: the result of the run's last iteration (alltoall: the receive
 * buffer), every element as the rank holds it, so that a test can check it
 * against the closed form without this tool's own check (xfab_coll_check
 * shares the data's formulas with the fill). 0, or -1 (failure recorded). */
static int dump_result(struct rank *r)
{
	const uint32_t *res = r->op == XFAB_JOB_ALLTOALL ? r->recv : r->buf;
	FILE *f = fopen(r->o.dump_path, "wb");

	if (!f || fwrite(res, sizeof(*res), r->g.elems, f) != r->g.elems) {
		if (f)
			fclose(f);
		return coll_fail(r, "--dump %s: %s", r->o.dump_path, strerror(errno));
	}
	if (fclose(f))
		return coll_fail(r, "--dump %s: %s", r->o.dump_path, strerror(errno));
	return 0;
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

/* A rank's DONE line for iteration k of size s: its time, its check and
 * its counters. */
static int send_done(struct rank *r, uint32_t s, uint32_t k, int bad, const struct counters *c)
{
	return coll_ctl_write(r, r->ctl_fd,
			      "DONE %u %u %llu %lld %llu %llu %llu %llu %llu %llu "
			      "%llu %llu\n",
			      s, k, (unsigned long long)(r->iter_end - r->iter_start),
			      bad ? (long long)r->run.first_bad : -1LL, (unsigned long long)c->oos,
			      (unsigned long long)c->retransmits, (unsigned long long)c->cnps_tx,
			      (unsigned long long)c->cnps_rx, (unsigned long long)c->pause_ns,
			      (unsigned long long)c->timeouts, (unsigned long long)c->dropped,
			      (unsigned long long)c->naks);
}

/* Iteration k (of per) of size s: GO, the collective, the check, DONE;
 * rank 0 collects every rank's. 0, or -1 (failure recorded). */
static int run_iteration(struct rank *r, uint32_t s, uint32_t k, uint32_t per)
{
	struct counters c;
	int bad;

	r->run.s = s;
	r->run.k = k;
	if (r->me == 0) {
		for (uint32_t p = 1; p < r->n; p++)
			if (coll_ctl_write(r, r->peers[p].fd, "GO %u %u\n", s, k))
				return -1;
	} else if (coll_serve(r, coll_until_go, "waiting for rank 0's GO")) {
		return -1;
	}
	r->run.go = 0;
	r->iter_start = xfab_mono_ns();
	r->running = 1;
	if (coll_serve(r, coll_until_iter, "in an iteration (a peer stopped answering?)"))
		return -1;
	r->running = 0;
	r->iter_end = xfab_mono_ns();
	bad = check_result(r, s);
	if (r->o.dump_path && k + 1 == per && s + 1 == r->nsizes && dump_result(r))
		return -1;
	/* ready for what comes next before saying DONE: a faster
	 * peer may send the next iteration's first packets at once */
	if (k + 1 < per) {
		coll_iter_prepare(r);
	} else if (s + 1 < r->nsizes) {
		if (coll_size_setup(r, r->sizes[s + 1]))
			return -1;
		coll_iter_prepare(r);
	}
	coll_my_counters(r, &c);
	if (r->me)
		return send_done(r, s, k, bad, &c) ? -1 : 0;
	r->peers[0].time = (double)(r->iter_end - r->iter_start) / 1e9;
	r->peers[0].first_bad = bad ? r->run.first_bad : -1;
	r->peers[0].last = c;
	if (coll_serve(r, coll_until_dones, "waiting for every rank's DONE"))
		return -1;
	r->run.dones = 0;
	root_collect(r, s, k);
	return 0;
}

int coll_run_all(struct rank *r, int text)
{
	uint32_t per = r->o.warmup + r->o.iters;
	char *report;

	r->run.first_bad = -1;
	if (coll_size_setup(r, r->sizes[0]))
		return -1;
	coll_iter_prepare(r);
	if (coll_ctl_open(r))
		return -1;
	if (r->me) {
		if (coll_ctl_write(r, r->ctl_fd, "HELLO %u %s\n", r->me, r->sig))
			return -1;
	} else if (coll_serve(r, coll_until_hellos, "waiting for every rank to say HELLO")) {
		return -1;
	}
	if (r->me == 0 && text)
		coll_print_header(r);
	r->in_loop = 1;
	for (uint32_t s = 0; s < r->nsizes; s++) {
		for (uint32_t k = 0; k < per; k++)
			if (run_iteration(r, s, k, per))
				return -1;
		if (r->me == 0 && text)
			coll_print_size(r, &r->stats[s]);
	}
	r->in_loop = 0;
	report = coll_rank_report(r);
	if (!report)
		return coll_fail(r, "out of memory");
	if (r->me) {
		int rc = coll_ctl_write(r, r->ctl_fd, "REPORT %s\n", report);

		free(report);
		if (rc || coll_serve(r, coll_until_bye, "waiting for rank 0's BYE"))
			return -1;
		return 0;
	}
	r->peers[0].report = report;
	if (coll_serve(r, coll_until_reports, "waiting for every rank's REPORT"))
		return -1;
	for (uint32_t p = 1; p < r->n; p++)
		coll_ctl_write(r, r->peers[p].fd, "BYE\n");
	return 0;
}
