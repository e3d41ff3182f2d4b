// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfabctl fabric report (--fabric FILE | --lab NAME) [--job FILE]
 *                       [--since SNAP] [--save SNAP] [-j]
 *
 * One view of a fabric from every switch's pinned maps (docs/DEBUGGING.md
 * "Across the fabric"): per link and direction the bytes and packets (the
 * sending port's tx; a host's traffic by its leaf's rx), ECMP imbalance per
 * tier (max/mean over a switch's links to the tier above, both ways), ECN
 * marks and queue drops, PFC frames and paused time, drops by reason; with
 * a job, the path each of its QPs takes as each switch's loaded program
 * decides (fabric_trace.c) and how many QPs each link carries. Counters are
 * cumulative: --save writes them to a file, --since reports what changed
 * since such a file, so an experiment can report one run.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl.h"
#include "fabric_report.h"

#define MAX_JOB_QPS 65536 /* each traced at every switch it crosses */
#define N_TIERS 2	  /* boundaries: leaf-spine (tier 1 below), spine-super (tier 2) */

struct report {
	struct xfab_fabric f;
	struct fab_port_map *pm;
	struct xfab_fab_snap cur;
	const char *since;
	double since_s;
	unsigned int resets;
	char reset_note[200];
	uint64_t *pkts[2], *bytes[2]; /* per link, per direction */
	/* a job */
	const char *job_path;
	struct xfab_job job;
	struct xfab_job_flow *flows;
	size_t n_flows;
	int *src_host, *dst_host;
	struct xfab_fab_path *paths;
	uint64_t *qps[2], *job_bytes[2]; /* per link, per direction */
	unsigned int delivered;
	struct xfab_fab_tier_imb imb[N_TIERS][2], qp_imb[N_TIERS][2];
};

static const char *const dir_names[] = {"up", "down"};
static const char *const tier_names[] = {"", "leaf-spine", "spine-super"};

/* ---- gathering ---- */

static int load_fabric(const struct ctl_opts *o, struct xfab_fabric *f)
{
	char path[512], err[512];
	struct stat st;

	if (!o->fabric == !o->lab) {
		fprintf(stderr, "xfabctl fabric report: name the fabric: --fabric FILE (as "
				"`xfab-lab config TOPO fabric` prints it) or --lab NAME (a lab "
				"that is up)\n");
		return 2;
	}
	if (o->lab) {
		if (!o->lab[0] || strchr(o->lab, '/') || strlen(o->lab) > 64) {
			fprintf(stderr, "xfabctl fabric report: --lab: \"%s\" is not a lab name\n",
				o->lab);
			return 2;
		}
		snprintf(path, sizeof(path), "%s/%s/fabric.json", XFAB_FAB_STATE_ROOT, o->lab);
		if (stat(path, &st)) {
			fprintf(stderr,
				"xfabctl fabric report: lab %s is not up (no %s; `xfab-lab up "
				"... --name %s` writes it)\n",
				o->lab, path, o->lab);
			return 1;
		}
	} else {
		snprintf(path, sizeof(path), "%s", o->fabric);
	}
	if (xfab_fabric_load(path, f, err, sizeof(err))) {
		fprintf(stderr, "xfabctl fabric report: %s\n", err);
		return 2;
	}
	return 0;
}

/* --since: the counters become what changed after the snapshot. */
static int apply_since(struct report *r)
{
	struct xfab_fab_snap base;
	char err[512];

	if (xfab_fab_snap_load(r->since, &r->f, &base, err, sizeof(err))) {
		fprintf(stderr, "xfabctl fabric report: --since %s\n", err);
		return 2;
	}
	r->since_s = r->cur.time - base.time;
	r->resets =
	    xfab_fab_snap_delta(&r->cur, &base, &r->f, r->reset_note, sizeof(r->reset_note));
	if (r->resets)
		fprintf(stderr,
			"xfabctl fabric report: %u counters went back since %s (cleared, or "
			"made anew): their whole value is counted; first: %s\n",
			r->resets, r->since, r->reset_note);
	xfab_fab_snap_free(&base);
	return 0;
}

static int save_snapshot(const struct report *r, const char *path)
{
	FILE *out = fopen(path, "w");

	if (!out || xfab_fab_snap_save(&r->cur, &r->f, out)) {
		fprintf(stderr, "xfabctl fabric report: --save %s: cannot write it\n", path);
		if (out)
			fclose(out);
		return 1;
	}
	if (fclose(out)) {
		fprintf(stderr, "xfabctl fabric report: --save %s: cannot write it\n", path);
		return 1;
	}
	return 0;
}

static void link_figures(struct report *r)
{
	for (unsigned int l = 0; l < r->f.n_links; l++) {
		for (int d = 0; d < 2; d++) {
			const struct xfab_fab_port_ctr *c;
			int sw, port, rx;

			xfab_fab_link_counter(&r->f, l, (enum xfab_fab_dir)d, &sw, &port, &rx);
			c = &r->cur.sw[sw].ports[port];
			r->pkts[d][l] = rx ? c->rx_packets : c->tx_packets;
			r->bytes[d][l] = rx ? c->rx_bytes : c->tx_bytes;
		}
	}
}

/* Each rank is a host of the fabric: by its name when the job gives one
 * (with the same address), else by its address. */
static int job_hosts(struct report *r, int *rank_host)
{
	for (unsigned int i = 0; i < r->job.n; i++) {
		const struct xfab_job_rank *rk = &r->job.ranks[i];
		char a[INET_ADDRSTRLEN];
		int h;

		inet_ntop(AF_INET, &rk->addr, a, sizeof(a));
		h = rk->host[0] ? xfab_fab_host_find(&r->f, rk->host)
				: xfab_fab_host_by_addr(&r->f, rk->addr);
		if (h < 0) {
			fprintf(stderr,
				"xfabctl fabric report: --job %s: ranks[%u] (%s%s%s) is no "
				"host of fabric %s\n",
				r->job_path, i, rk->host, rk->host[0] ? " " : "", a, r->f.name);
			return 2;
		}
		if (r->f.hosts[h].addr.s_addr != rk->addr.s_addr) {
			char b[INET_ADDRSTRLEN];

			inet_ntop(AF_INET, &r->f.hosts[h].addr, b, sizeof(b));
			fprintf(
			    stderr,
			    "xfabctl fabric report: --job %s: ranks[%u]: host %s is %s in fabric "
			    "%s, not %s\n",
			    r->job_path, i, rk->host, b, r->f.name, a);
			return 2;
		}
		rank_host[i] = h;
	}
	return 0;
}

/* Every QP's path, and what each link carries of the job. */
static int job_paths(struct report *r)
{
	int rank_host[XFAB_JOB_MAX_RANKS];
	struct fab_tracer *t;
	size_t max;
	int rc;

	rc = job_hosts(r, rank_host);
	if (rc)
		return rc;
	max = xfab_job_conns(&r->job, NULL, 0) * r->job.qps;
	if (max > MAX_JOB_QPS) {
		fprintf(stderr,
			"xfabctl fabric report: --job %s: %zu QPs; the report traces at most %d\n",
			r->job_path, max, MAX_JOB_QPS);
		return 2;
	}
	r->flows = calloc(max, sizeof(*r->flows));
	r->paths = calloc(max, sizeof(*r->paths));
	r->src_host = calloc(max, sizeof(int));
	r->dst_host = calloc(max, sizeof(int));
	t = fab_tracer_new(&r->f, r->pm);
	if (!r->flows || !r->paths || !r->src_host || !r->dst_host || !t) {
		fprintf(stderr, "xfabctl fabric report: out of memory\n");
		fab_tracer_free(t);
		return 1;
	}
	r->n_flows = xfab_job_flows(&r->job, r->flows, max);
	for (size_t i = 0; i < r->n_flows; i++) {
		struct xfab_fab_path *p = &r->paths[i];

		r->src_host[i] = rank_host[r->flows[i].src];
		r->dst_host[i] = rank_host[r->flows[i].dst];
		fab_tracer_flow(t, &r->flows[i]);
		xfab_fab_walk(&r->f, (unsigned int)r->src_host[i], (unsigned int)r->dst_host[i],
			      fab_trace_decide, t, p);
		r->delivered += p->status == XFAB_PATH_DELIVERED;
		for (unsigned int h = 0; h < p->n_hops; h++) {
			const struct xfab_fab_port *out;

			if (!xfab_fab_hop_sent(p, h))
				break; /* the last switch sent it nowhere */
			out = &r->f.switches[p->hops[h].sw].ports[p->hops[h].out_port];
			r->qps[out->dir][out->link]++;
			r->job_bytes[out->dir][out->link] += r->flows[i].bytes;
		}
	}
	fab_tracer_free(t);
	return 0;
}

static int balance(struct report *r)
{
	for (int t = 1; t <= N_TIERS; t++) {
		for (int d = 0; d < 2; d++) {
			if (xfab_fab_tier_imbalance(&r->f, t, (enum xfab_fab_dir)d, r->bytes[d],
						    &r->imb[t - 1][d]))
				return -1;
			if (r->job_path && xfab_fab_tier_imbalance(&r->f, t, (enum xfab_fab_dir)d,
								   r->qps[d], &r->qp_imb[t - 1][d]))
				return -1;
		}
	}
	return 0;
}

/* ---- text ---- */

static const char *sw_name(const struct report *r, int s)
{
	return r->f.switches[s].name;
}

static const char *port_of(const struct report *r, int s, int p)
{
	return r->f.switches[s].ports[p].name;
}

static void text_links(const struct report *r)
{
	printf("Links: packets and bytes each way. Up: sent by the lower end, its tx (a host's: "
	       "its leaf's rx);\ndown: sent by the upper end, its tx.\n");
	printf("%-16s  %-16s  %-11s  %10s  %14s  %10s  %14s\n", "Upper", "Lower", "Kind", "Up/pkts",
	       "Up/bytes", "Down/pkts", "Down/bytes");
	printf("----------------  ----------------  -----------  ----------  --------------  "
	       "----------  --------------\n");
	for (unsigned int l = 0; l < r->f.n_links; l++) {
		const struct xfab_fab_link *ln = &r->f.links[l];
		char up[64], low[64];

		snprintf(up, sizeof(up), "%s:%s", sw_name(r, ln->upper),
			 port_of(r, ln->upper, ln->upper_port));
		if (ln->lower >= 0)
			snprintf(low, sizeof(low), "%s:%s", sw_name(r, ln->lower),
				 port_of(r, ln->lower, ln->lower_port));
		else
			snprintf(low, sizeof(low), "%s", r->f.hosts[ln->lower_host].name);
		printf("%-16s  %-16s  %-11s  %10llu  %14llu  %10llu  %14llu\n", up, low, ln->kind,
		       (unsigned long long)r->pkts[0][l], (unsigned long long)r->bytes[0][l],
		       (unsigned long long)r->pkts[1][l], (unsigned long long)r->bytes[1][l]);
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

static void text_imbalance(const struct report *r)
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
				       tier_names[t + 1], dir_names[d], sw_name(r, gr->sw),
				       gr->n_links, (unsigned long long)gr->imb.max, gr->imb.mean,
				       ratio);
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
			printf("%-11s  %-4s  %-10s  %5u  %14llu  %14.1f  %8s", tier_names[t + 1],
			       dir_names[d], "(all)", ti->all.n, (unsigned long long)ti->all.max,
			       ti->all.mean, ratio);
			if (job) {
				ratio_text(&r->qp_imb[t][d].all, qratio, sizeof(qratio));
				printf("  %13s  %11s", "", qratio);
			}
			if (ti->worst >= 0)
				printf("  worst: %s", sw_name(r, ti->groups[ti->worst].sw));
			putchar('\n');
		}
	}
}

static void path_text(const struct report *r, const struct xfab_fab_path *p, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int h = 0; h < p->n_hops && off < len; h++) {
		const struct xfab_fab_hop *hop = &p->hops[h];
		if (!xfab_fab_hop_sent(p, h))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", h ? " > " : "",
						sw_name(r, (int)hop->sw));
		else
			off += (size_t)snprintf(
			    buf + off, len - off, "%s%s %s%s", h ? " > " : "",
			    sw_name(r, (int)hop->sw), port_of(r, (int)hop->sw, (int)hop->out_port),
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

static void text_job(const struct report *r)
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

			snprintf(from, sizeof(from), "%s:%s", sw_name(r, fs), port_of(r, fs, fp));
			snprintf(to, sizeof(to), "%s:%s", sw_name(r, ts), port_of(r, ts, tp));
			printf("%-16s  %-16s  %-4s  %5llu  %14llu  %14llu\n", from, to,
			       dir_names[d], (unsigned long long)r->qps[d][l],
			       (unsigned long long)r->job_bytes[d][l],
			       (unsigned long long)r->bytes[d][l]);
		}
	}
}

/* Sums of the per-class counters that tell of trouble. */
struct trouble {
	uint64_t ecn, q_dropped, pfc_rx, pfc_tx, pauses, paused_ns, drops, drop_bytes;
};

static void trouble_sums(const struct report *r, struct trouble *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned int s = 0; s < r->f.n_switches; s++) {
		const struct xfab_fab_sw_ctr *c = &r->cur.sw[s];

		for (unsigned int p = 0; p < r->f.switches[s].n_ports; p++)
			for (int k = 0; k < XFAB_FAB_NUM_TC; k++) {
				t->ecn += c->ports[p].ecn_marked[k];
				t->q_dropped += c->ports[p].q_dropped[k];
				t->pfc_rx += c->ports[p].pfc_rx[k];
				t->pfc_tx += c->ports[p].pfc_tx[k];
				t->pauses += c->ports[p].pauses[k];
				t->paused_ns += c->ports[p].paused_ns[k];
			}
		for (unsigned int k = 1; k < XFAB_DROP_MAX; k++) {
			t->drops += c->drop_packets[k];
			t->drop_bytes += c->drop_bytes[k];
		}
	}
}

static void text_trouble(const struct report *r)
{
	struct trouble t;

	trouble_sums(r, &t);
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
				printf("%-10s  %-8s  %3sUC%d  %12llu  %12llu\n", sw_name(r, (int)s),
				       port_of(r, (int)s, (int)p), "", k,
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
				       sw_name(r, (int)s), port_of(r, (int)s, (int)p), k,
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
				printf("%-10s  %-20s  %12llu  %14llu\n", sw_name(r, (int)s),
				       xfab_drop_name(k),
				       (unsigned long long)r->cur.sw[s].drop_packets[k],
				       (unsigned long long)r->cur.sw[s].drop_bytes[k]);
}

static void text_report(const struct report *r)
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
				       sw_name(r, (int)s), port_of(r, (int)s, (int)p));
	text_links(r);
	text_imbalance(r);
	if (r->job_path)
		text_job(r);
	text_trouble(r);
}

/* ---- JSON ---- */

static void json_imb(const char *k, const struct xfab_imbalance *imb)
{
	jw_open(k, '{');
	jw_uint("links", imb->n);
	jw_uint("max", imb->max);
	jw_uint("sum", imb->sum);
	jw_double("mean", imb->mean);
	if (imb->sum)
		jw_double("ratio", imb->ratio);
	else
		jw_null("ratio");
	jw_close('}');
}

static void json_per_tc(const char *k, const uint64_t *v)
{
	jw_open(k, '[');
	for (int i = 0; i < XFAB_FAB_NUM_TC; i++)
		jw_uint(NULL, v[i]);
	jw_close(']');
}

static void json_links(const struct report *r)
{
	jw_open("links", '[');
	for (unsigned int l = 0; l < r->f.n_links; l++) {
		const struct xfab_fab_link *ln = &r->f.links[l];

		jw_open(NULL, '{');
		jw_string("kind", ln->kind);
		jw_string("upper", sw_name(r, ln->upper));
		jw_string("upper_port", port_of(r, ln->upper, ln->upper_port));
		jw_string("lower",
			  ln->lower >= 0 ? sw_name(r, ln->lower) : r->f.hosts[ln->lower_host].name);
		if (ln->lower >= 0)
			jw_string("lower_port", port_of(r, ln->lower, ln->lower_port));
		for (int d = 0; d < 2; d++) {
			int sw, port, rx;
			char at[64];

			xfab_fab_link_counter(&r->f, l, (enum xfab_fab_dir)d, &sw, &port, &rx);
			snprintf(at, sizeof(at), "%s:%s", sw_name(r, sw), port_of(r, sw, port));
			jw_open(dir_names[d], '{');
			jw_uint("packets", r->pkts[d][l]);
			jw_uint("bytes", r->bytes[d][l]);
			jw_string("counted_at", at);
			jw_string("counter", rx ? "rx" : "tx");
			if (r->job_path) {
				jw_uint("job_qps", r->qps[d][l]);
				jw_uint("job_bytes", r->job_bytes[d][l]);
			}
			jw_close('}');
		}
		jw_close('}');
	}
	jw_close(']');
}

static void json_imbalance(const struct report *r)
{
	jw_open("imbalance", '[');
	for (int t = 0; t < N_TIERS; t++) {
		for (int d = 0; d < 2; d++) {
			const struct xfab_fab_tier_imb *ti = &r->imb[t][d];

			if (!ti->n_groups)
				continue;
			jw_open(NULL, '{');
			jw_string("tier", tier_names[t + 1]);
			jw_string("direction", dir_names[d]);
			jw_open("switches", '[');
			for (unsigned int g = 0; g < ti->n_groups; g++) {
				const struct xfab_fab_group *gr = &ti->groups[g];

				jw_open(NULL, '{');
				jw_string("switch", sw_name(r, gr->sw));
				jw_open("ports", '[');
				for (unsigned int i = 0; i < gr->n_links; i++) {
					const struct xfab_fab_link *ln = &r->f.links[gr->links[i]];

					jw_string(NULL, port_of(r, gr->sw, ln->lower_port));
				}
				jw_close(']');
				jw_open("bytes", '[');
				for (unsigned int i = 0; i < gr->n_links; i++)
					jw_uint(NULL, r->bytes[d][gr->links[i]]);
				jw_close(']');
				json_imb("balance", &gr->imb);
				if (r->job_path) {
					jw_open("qps", '[');
					for (unsigned int i = 0; i < gr->n_links; i++)
						jw_uint(NULL, r->qps[d][gr->links[i]]);
					jw_close(']');
					json_imb("qp_balance", &r->qp_imb[t][d].groups[g].imb);
				}
				jw_close('}');
			}
			jw_close(']');
			json_imb("all", &ti->all);
			if (r->job_path)
				json_imb("qp_all", &r->qp_imb[t][d].all);
			if (ti->worst >= 0)
				jw_string("worst", sw_name(r, ti->groups[ti->worst].sw));
			else
				jw_null("worst");
			jw_close('}');
		}
	}
	jw_close(']');
}

static void json_job(const struct report *r)
{
	char a[INET_ADDRSTRLEN];

	jw_open("job", '{');
	jw_string("name", r->job.name);
	jw_string("op", xfab_job_op_name(r->job.op));
	jw_uint("ranks", r->job.n);
	jw_uint("channels", r->job.channels);
	jw_uint("qps_per_connection", r->job.qps);
	jw_uint("qps", r->n_flows);
	jw_uint("delivered", r->delivered);
	jw_open("flows", '[');
	for (size_t i = 0; i < r->n_flows; i++) {
		const struct xfab_job_flow *fl = &r->flows[i];
		const struct xfab_fab_path *p = &r->paths[i];

		jw_open(NULL, '{');
		jw_string("src", r->f.hosts[r->src_host[i]].name);
		jw_string("dst", r->f.hosts[r->dst_host[i]].name);
		inet_ntop(AF_INET, &fl->saddr, a, sizeof(a));
		jw_string("saddr", a);
		inet_ntop(AF_INET, &fl->daddr, a, sizeof(a));
		jw_string("daddr", a);
		jw_uint("channel", fl->channel);
		jw_uint("q", fl->q);
		jw_uint("src_qpn", fl->src_qpn);
		jw_uint("dst_qpn", fl->dst_qpn);
		jw_uint("sport", fl->sport);
		jw_uint("dport", fl->dport);
		jw_uint("bytes", fl->bytes);
		jw_string("status", xfab_fab_path_status_name(p->status));
		if (p->why[0])
			jw_string("why", p->why);
		jw_open("path", '[');
		for (unsigned int h = 0; h < p->n_hops; h++) {
			const struct xfab_fab_hop *hop = &p->hops[h];

			jw_open(NULL, '{');
			jw_string("switch", sw_name(r, (int)hop->sw));
			jw_string("in", port_of(r, (int)hop->sw, (int)hop->in_port));
			jw_bool("kernel", hop->flags & XFAB_FAB_HOP_KERNEL);
			if (xfab_fab_hop_sent(p, h))
				jw_string("out", port_of(r, (int)hop->sw, (int)hop->out_port));
			else
				jw_null("out");
			jw_close('}');
		}
		jw_close(']');
		if (p->last_host >= 0)
			jw_string("host", r->f.hosts[p->last_host].name);
		jw_close('}');
	}
	jw_close(']');
	jw_close('}');
}

static void json_trouble(const struct report *r)
{
	struct trouble t;

	trouble_sums(r, &t);
	jw_open("queues", '{');
	jw_uint("ecn_marked", t.ecn);
	jw_uint("dropped", t.q_dropped);
	jw_close('}');
	jw_open("pfc", '{');
	jw_uint("rx_frames", t.pfc_rx);
	jw_uint("tx_frames", t.pfc_tx);
	jw_uint("pauses", t.pauses);
	jw_uint("paused_ns", t.paused_ns);
	jw_close('}');
	jw_open("drops", '{');
	jw_uint("packets", t.drops);
	jw_uint("bytes", t.drop_bytes);
	jw_close('}');
	jw_open("switches", '[');
	for (unsigned int s = 0; s < r->f.n_switches; s++) {
		const struct xfab_fab_sw_ctr *c = &r->cur.sw[s];
		const struct xfab_fab_switch *sw = &r->f.switches[s];

		jw_open(NULL, '{');
		jw_string("switch", sw->name);
		jw_uint("tier", (unsigned int)sw->tier);
		jw_open("ports", '[');
		for (unsigned int p = 0; p < sw->n_ports; p++) {
			const struct xfab_fab_port_ctr *pc = &c->ports[p];

			jw_open(NULL, '{');
			jw_string("port", sw->ports[p].name);
			jw_string("peer", sw->ports[p].peer);
			jw_string("direction", dir_names[sw->ports[p].dir]);
			jw_bool("in_port_table", c->in_table[p]);
			jw_uint("rx_packets", pc->rx_packets);
			jw_uint("rx_bytes", pc->rx_bytes);
			jw_uint("tx_packets", pc->tx_packets);
			jw_uint("tx_bytes", pc->tx_bytes);
			jw_uint("drops", pc->drops);
			jw_uint("punts", pc->punts);
			json_per_tc("ecn_marked", pc->ecn_marked);
			json_per_tc("queue_dropped", pc->q_dropped);
			json_per_tc("pfc_rx", pc->pfc_rx);
			json_per_tc("pfc_tx", pc->pfc_tx);
			json_per_tc("pauses", pc->pauses);
			json_per_tc("paused_ns", pc->paused_ns);
			jw_close('}');
		}
		jw_close(']');
		jw_open("drops", '{');
		for (unsigned int k = 1; k < XFAB_DROP_MAX; k++) {
			jw_open(xfab_drop_name(k), '{');
			jw_uint("packets", c->drop_packets[k]);
			jw_uint("bytes", c->drop_bytes[k]);
			jw_close('}');
		}
		jw_close('}');
		jw_close('}');
	}
	jw_close(']');
}

static void json_report(const struct report *r)
{
	jw_open(NULL, '{');
	jw_string("fabric", r->f.name);
	jw_double("time", r->cur.time);
	if (r->since) {
		jw_open("since", '{');
		jw_string("file", r->since);
		jw_double("seconds", r->since_s);
		jw_uint("resets", r->resets);
		if (r->resets)
			jw_string("first_reset", r->reset_note);
		jw_close('}');
	} else {
		jw_null("since");
	}
	json_links(r);
	json_imbalance(r);
	if (r->job_path)
		json_job(r);
	json_trouble(r);
	jw_close('}');
}

/* ---- the command ---- */

static void report_free(struct report *r)
{
	for (int d = 0; d < 2; d++) {
		free(r->pkts[d]);
		free(r->bytes[d]);
		free(r->qps[d]);
		free(r->job_bytes[d]);
		for (int t = 0; t < N_TIERS; t++) {
			free(r->imb[t][d].groups);
			free(r->qp_imb[t][d].groups);
		}
	}
	free(r->flows);
	free(r->paths);
	free(r->src_host);
	free(r->dst_host);
	free(r->pm);
	xfab_fab_snap_free(&r->cur);
	xfab_fabric_free(&r->f);
}

static int report_run(const struct ctl_opts *o, struct report *r)
{
	char err[512];
	int rc = load_fabric(o, &r->f), oom;

	if (rc)
		return rc;
	if (o->job) {
		r->job_path = o->job;
		if (xfab_job_load(o->job, &r->job, err, sizeof(err))) {
			fprintf(stderr, "xfabctl fabric report: --job %s\n", err);
			return 2;
		}
	}
	r->since = o->since;
	r->pm = calloc(r->f.n_switches, sizeof(*r->pm));
	oom = !r->pm || xfab_fab_snap_init(&r->cur, &r->f);
	for (int d = 0; d < 2; d++) {
		r->pkts[d] = calloc(r->f.n_links + 1, sizeof(uint64_t));
		r->bytes[d] = calloc(r->f.n_links + 1, sizeof(uint64_t));
		r->qps[d] = calloc(r->f.n_links + 1, sizeof(uint64_t));
		r->job_bytes[d] = calloc(r->f.n_links + 1, sizeof(uint64_t));
		oom |= !r->pkts[d] || !r->bytes[d] || !r->qps[d] || !r->job_bytes[d];
	}
	if (oom) {
		fprintf(stderr, "xfabctl fabric report: out of memory\n");
		return 1;
	}
	if (fab_collect(&r->f, r->pm, &r->cur, err, sizeof(err))) {
		fprintf(stderr, "xfabctl fabric report: %s\n", err);
		return 1;
	}
	/* what is saved is the counters as read, for a later --since */
	if (o->save && save_snapshot(r, o->save))
		return 1;
	if (o->since && (rc = apply_since(r)))
		return rc;
	link_figures(r);
	if (r->job_path && (rc = job_paths(r)))
		return rc;
	if (balance(r)) {
		fprintf(stderr, "xfabctl fabric report: out of memory\n");
		return 1;
	}
	if (json)
		json_report(r);
	else
		text_report(r);
	return 0;
}

int cmd_fabric_report(const struct ctl_opts *o)
{
	struct report r;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = report_run(o, &r);
	report_free(&r);
	return rc;
}
