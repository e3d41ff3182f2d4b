// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfabctl fabric report, as text: links, imbalance per tier, a job's
 * paths, trouble (fabric_report.c gathers what it prints). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "fabric_report.h"

static void lost_text(const struct fab_report *r, unsigned int l, int d, char *buf, size_t len)
{
	uint64_t lost;
	double frac;

	if (ctl_fab_link_loss(r, l, d, &lost, &frac))
		snprintf(buf, len, "%llu", (unsigned long long)lost);
	else
		snprintf(buf, len, "-");
}

static void text_links(const struct fab_report *r)
{
	printf("Links: packets and bytes each way. Up: sent by the lower end, its tx (a host's: "
	       "its leaf's rx);\ndown: sent by the upper end, its tx. Lost: the sender's tx less "
	       "the receiver's rx\n(packets; - to a host, which counts nothing).\n");
	printf("%-16s  %-16s  %-11s  %10s  %14s  %10s  %14s  %8s  %9s\n", "Upper", "Lower", "Kind",
	       "Up/pkts", "Up/bytes", "Down/pkts", "Down/bytes", "Up/lost", "Down/lost");
	printf("----------------  ----------------  -----------  ----------  --------------  "
	       "----------  --------------  --------  ---------\n");
	for (unsigned int l = 0; l < r->f.n_links; l++) {
		const struct xfab_fab_link *ln = &r->f.links[l];
		char up[64], low[64], lost[24];

		snprintf(up, sizeof(up), "%s:%s", ctl_fab_sw_name(r, ln->upper),
			 ctl_fab_port_of(r, ln->upper, ln->upper_port));
		if (ln->lower >= 0)
			snprintf(low, sizeof(low), "%s:%s", ctl_fab_sw_name(r, ln->lower),
				 ctl_fab_port_of(r, ln->lower, ln->lower_port));
		else
			snprintf(low, sizeof(low), "%s", r->f.hosts[ln->lower_host].name);
		printf("%-16s  %-16s  %-11s  %10llu  %14llu  %10llu  %14llu", up, low, ln->kind,
		       (unsigned long long)r->pkts[0][l], (unsigned long long)r->bytes[0][l],
		       (unsigned long long)r->pkts[1][l], (unsigned long long)r->bytes[1][l]);
		lost_text(r, l, 0, lost, sizeof(lost));
		printf("  %8s", lost);
		lost_text(r, l, 1, lost, sizeof(lost));
		printf("  %9s\n", lost);
	}
}

static void ratio_text(const struct xfab_imbalance *imb, char *buf, size_t len)
{
	if (imb->sum)
		snprintf(buf, len, "%.2f", imb->ratio);
	else
		snprintf(buf, len, "-");
}

/* "3/1": a figure per link of a group */
static void per_link(const struct xfab_fab_group *g, const uint64_t *v, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < g->n_links && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%llu", i ? "/" : "",
					(unsigned long long)v[g->links[i]]);
}

static void text_imbalance(const struct fab_report *r)
{
	int job = r->job_path != NULL;

	printf("\nECMP imbalance: max/mean of the bytes over a switch's links to the tier above "
	       "(up: what it sent,\ndown: what it received); 1.00 is even, - no traffic.%s\n",
	       job ? " QPs: the job's QPs on each link." : "");
	printf("%-11s  %-4s  %-10s  %5s  %14s  %14s  %8s%s\n", "Tier", "Dir", "Switch", "Links",
	       "Max bytes", "Mean bytes", "Max/mean", job ? "  QPs per link  QP max/mean" : "");
	printf("-----------  ----  ----------  -----  --------------  --------------  --------%s\n",
	       job ? "  -------------  -----------" : "");
	for (int t = 0; t < N_TIERS; t++) {
		for (int d = 0; d < 2; d++) {
			const struct xfab_fab_tier_imb *ti = &r->imb[t][d];
			char ratio[16], qps[64], qratio[16];

			for (unsigned int g = 0; g < ti->n_groups; g++) {
				const struct xfab_fab_group *gr = &ti->groups[g];

				ratio_text(&gr->imb, ratio, sizeof(ratio));
				printf("%-11s  %-4s  %-10s  %5u  %14llu  %14.1f  %8s",
				       ctl_fab_tier_names[t + 1], ctl_fab_dir_names[d],
				       ctl_fab_sw_name(r, gr->sw), gr->n_links,
				       (unsigned long long)gr->imb.max, gr->imb.mean, ratio);
				if (job) {
					per_link(gr, r->qps[d], qps, sizeof(qps));
					ratio_text(&r->qp_imb[t][d].groups[g].imb, qratio,
						   sizeof(qratio));
					printf("  %13s  %11s", qps, qratio);
				}
				putchar('\n');
			}
			if (!ti->n_groups)
				continue;
			ratio_text(&ti->all, ratio, sizeof(ratio));
			printf("%-11s  %-4s  %-10s  %5u  %14llu  %14.1f  %8s",
			       ctl_fab_tier_names[t + 1], ctl_fab_dir_names[d], "(all)", ti->all.n,
			       (unsigned long long)ti->all.max, ti->all.mean, ratio);
			if (job) {
				ratio_text(&r->qp_imb[t][d].all, qratio, sizeof(qratio));
				printf("  %13s  %11s", "", qratio);
			}
			if (ti->worst >= 0)
				printf("  worst: %s", ctl_fab_sw_name(r, ti->groups[ti->worst].sw));
			putchar('\n');
		}
	}
}

static void path_text(const struct fab_report *r, const struct xfab_fab_path *p, char *buf,
		      size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int h = 0; h < p->n_hops && off < len; h++) {
		const struct xfab_fab_hop *hop = &p->hops[h];
		if (!xfab_fab_hop_sent(p, h))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", h ? " > " : "",
						ctl_fab_sw_name(r, (int)hop->sw));
		else
			off += (size_t)snprintf(
			    buf + off, len - off, "%s%s %s%s", h ? " > " : "",
			    ctl_fab_sw_name(r, (int)hop->sw),
			    ctl_fab_port_of(r, (int)hop->sw, (int)hop->out_port),
			    hop->flags & XFAB_FAB_HOP_KERNEL ? " (by its kernel: "
							       "neighbour unresolved)"
							     : "");
	}
	if (off >= len)
		return;
	if (p->last_host >= 0)
		snprintf(buf + off, len - off, " > %s%s", r->f.hosts[p->last_host].name,
			 p->status == XFAB_PATH_DELIVERED ? "" : " (wrong host)");
	else
		snprintf(buf + off, len - off, ": %s: %s", xfab_fab_path_status_name(p->status),
			 p->why);
}

static void text_job(const struct fab_report *r)
{
	char path[512];

	printf("\nJob %s: %s, %u ranks, %u channel%s, %u QP%s per connection: %zu QPs, %u "
	       "delivered;\npaths as each switch's loaded program decides (its trace program: "
	       "TE, flowlets, hash)\n",
	       r->job.name, xfab_job_op_name(r->job.op), r->job.n, r->job.channels,
	       r->job.channels == 1 ? "" : "s", r->job.qps, r->job.qps == 1 ? "" : "s", r->n_flows,
	       r->delivered);
	printf("%-8s  %-8s  %-8s  %5s  %8s  %12s  %s\n", "QP", "Src", "Dst", "Sport", "DestQP",
	       "Bytes/iter", "Path");
	printf("--------  --------  --------  -----  --------  ------------  ----\n");
	for (size_t i = 0; i < r->n_flows; i++) {
		const struct xfab_job_flow *fl = &r->flows[i];
		char qp[16], dqp[16];

		snprintf(qp, sizeof(qp), "0x%x", fl->src_qpn);
		snprintf(dqp, sizeof(dqp), "0x%x", fl->dst_qpn);
		path_text(r, &r->paths[i], path, sizeof(path));
		printf("%-8s  %-8s  %-8s  %5u  %8s  %12llu  %s\n", qp,
		       r->f.hosts[r->src_host[i]].name, r->f.hosts[r->dst_host[i]].name, fl->sport,
		       dqp, (unsigned long long)fl->bytes, path);
	}
	printf("\nLinks between switches: the job's QPs and bytes per iteration on each, next to "
	       "the bytes counted\n");
	printf("%-16s  %-16s  %-4s  %5s  %14s  %14s\n", "From", "To", "Dir", "QPs", "Job bytes",
	       "Counted bytes");
	printf("----------------  ----------------  ----  -----  --------------  --------------\n");
	for (unsigned int l = 0; l < r->f.n_links; l++) {
		const struct xfab_fab_link *ln = &r->f.links[l];

		if (ln->lower < 0)
			continue;
		for (int d = 0; d < 2; d++) {
			char from[64], to[64];
			int fs = d == XFAB_FAB_UP ? ln->lower : ln->upper;
			int fp = d == XFAB_FAB_UP ? ln->lower_port : ln->upper_port;
			int ts = d == XFAB_FAB_UP ? ln->upper : ln->lower;
			int tp = d == XFAB_FAB_UP ? ln->upper_port : ln->lower_port;

			snprintf(from, sizeof(from), "%s:%s", ctl_fab_sw_name(r, fs),
				 ctl_fab_port_of(r, fs, fp));
			snprintf(to, sizeof(to), "%s:%s", ctl_fab_sw_name(r, ts),
				 ctl_fab_port_of(r, ts, tp));
			printf("%-16s  %-16s  %-4s  %5llu  %14llu  %14llu\n", from, to,
			       ctl_fab_dir_names[d], (unsigned long long)r->qps[d][l],
			       (unsigned long long)r->job_bytes[d][l],
			       (unsigned long long)r->bytes[d][l]);
		}
	}
}

static void text_trouble(const struct fab_report *r)
{
	struct fab_trouble t;

	ctl_fab_trouble_sums(r, &t);
	printf("\nQueues: ECN marks and drops per port and queue (%llu marked, %llu dropped in "
	       "all; rows only where not 0)\n",
	       (unsigned long long)t.ecn, (unsigned long long)t.q_dropped);
	printf("%-10s  %-8s  %5s  %12s  %12s\n", "Switch", "Port", "Queue", "ECN marked",
	       "Dropped");
	printf("----------  --------  -----  ------------  ------------\n");
	for (unsigned int s = 0; s < r->f.n_switches; s++)
		for (unsigned int p = 0; p < r->f.switches[s].n_ports; p++)
			for (int k = 0; k < XFAB_FAB_NUM_TC; k++) {
				const struct xfab_fab_port_ctr *c = &r->cur.sw[s].ports[p];

				if (!c->ecn_marked[k] && !c->q_dropped[k])
					continue;
				printf("%-10s  %-8s  %3sUC%d  %12llu  %12llu\n",
				       ctl_fab_sw_name(r, (int)s),
				       ctl_fab_port_of(r, (int)s, (int)p), "", k,
				       (unsigned long long)c->ecn_marked[k],
				       (unsigned long long)c->q_dropped[k]);
			}
	printf("\nPFC per port and priority: pause frames received and sent, times and time its "
	       "queue was paused\n(%llu received, %llu sent, %llu pauses, %.3f ms paused in all; "
	       "rows only where not 0)\n",
	       (unsigned long long)t.pfc_rx, (unsigned long long)t.pfc_tx,
	       (unsigned long long)t.pauses, t.paused_ns / 1e6);
	printf("%-10s  %-8s  %4s  %10s  %10s  %8s  %12s\n", "Switch", "Port", "Prio", "Rx frames",
	       "Tx frames", "Pauses", "Paused(ms)");
	printf("----------  --------  ----  ----------  ----------  --------  ------------\n");
	for (unsigned int s = 0; s < r->f.n_switches; s++)
		for (unsigned int p = 0; p < r->f.switches[s].n_ports; p++)
			for (int k = 0; k < XFAB_FAB_NUM_TC; k++) {
				const struct xfab_fab_port_ctr *c = &r->cur.sw[s].ports[p];

				if (!c->pfc_rx[k] && !c->pfc_tx[k] && !c->pauses[k] &&
				    !c->paused_ns[k])
					continue;
				printf("%-10s  %-8s  %4d  %10llu  %10llu  %8llu  %12.3f\n",
				       ctl_fab_sw_name(r, (int)s),
				       ctl_fab_port_of(r, (int)s, (int)p), k,
				       (unsigned long long)c->pfc_rx[k],
				       (unsigned long long)c->pfc_tx[k],
				       (unsigned long long)c->pauses[k], c->paused_ns[k] / 1e6);
			}
	printf("\nDrops by reason per switch (%llu packets, %llu bytes in all; rows only where "
	       "not 0)\n",
	       (unsigned long long)t.drops, (unsigned long long)t.drop_bytes);
	printf("%-10s  %-20s  %12s  %14s\n", "Switch", "Reason", "Packets", "Bytes");
	printf("----------  --------------------  ------------  --------------\n");
	for (unsigned int s = 0; s < r->f.n_switches; s++)
		for (unsigned int k = 1; k < XFAB_DROP_MAX; k++)
			if (r->cur.sw[s].drop_packets[k])
				printf("%-10s  %-20s  %12llu  %14llu\n", ctl_fab_sw_name(r, (int)s),
				       xfab_drop_name(k),
				       (unsigned long long)r->cur.sw[s].drop_packets[k],
				       (unsigned long long)r->cur.sw[s].drop_bytes[k]);
}

void ctl_fab_text_report(const struct fab_report *r)
{
	printf("Fabric %s: %u switches, %u hosts, %u links; ", r->f.name, r->f.n_switches,
	       r->f.n_hosts, r->f.n_links);
	if (r->since)
		printf("counters of the %.1f s since %s%s\n\n", r->since_s, r->since,
		       r->resets ? " (some were reset: see above)" : "");
	else
		printf("counters since the switches started (cumulative)\n\n");
	for (unsigned int s = 0; s < r->f.n_switches; s++)
		for (unsigned int p = 0; p < r->f.switches[s].n_ports; p++)
			if (!r->cur.sw[s].in_table[p])
				printf("note: %s has no port %s in its port table: counted as 0\n",
				       ctl_fab_sw_name(r, (int)s),
				       ctl_fab_port_of(r, (int)s, (int)p));
	text_links(r);
	text_imbalance(r);
	if (r->job_path)
		text_job(r);
	text_trouble(r);
}
