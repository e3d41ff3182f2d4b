// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-coll: the reports: a rank's REPORT, the figures of a size, the text
 * table and the JSON. */
#include "coll_tool.h"

/* This rank's REPORT: its figures and every QP direction that carries data,
 * as one line of JSON. Returns a malloc'ed string. */
char *coll_rank_report(struct rank *r)
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
	fprintf(f, ",\"addr\":\"%s\",\"correct\":%s", addr,
		r->run.first_bad < 0 ? "true" : "false");
	if (r->run.first_bad >= 0)
		fprintf(f,
			",\"first_bad\":{\"bytes\":%llu,\"index\":%lld,\"got\":%u,\"expected\":%u}",
			(unsigned long long)r->stats[r->run.bad_s].bytes,
			(long long)r->run.first_bad, r->run.bad_got, r->run.bad_want);
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

void coll_size_figures(const struct rank *r, const struct size_stats *st, struct figures *fg)
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

void coll_print_header(const struct rank *r)
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

void coll_print_size(const struct rank *r, const struct size_stats *st)
{
	struct figures fg;

	coll_size_figures(r, st, &fg);
	printf("  %10llu %10.1f %10.1f %10.1f %11.3f %11.3f %8llu %8llu %7llu %7llu %9.3f %7s\n",
	       (unsigned long long)st->bytes, fg.mean * 1e6, fg.p50 * 1e6, fg.p99 * 1e6, fg.algbw,
	       fg.busbw, (unsigned long long)st->oos, (unsigned long long)st->retransmits,
	       (unsigned long long)st->cnps_tx, (unsigned long long)st->cnps_rx,
	       (double)st->pause_ns / 1e6, st->first_bad < 0 ? "yes" : "NO");
	fflush(stdout);
}

int coll_write_json(struct rank *r, FILE *f, int correct)
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

		coll_size_figures(r, st, &fg);
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
