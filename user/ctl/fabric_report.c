// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfabctl fabric report (--fabric FILE | --lab NAME) [--job FILE]
 *                       [--since SNAP] [--save SNAP] [--svg FILE] [-j]
 *
 * One view of a fabric from every switch's pinned maps (docs/DEBUGGING.md
 * "Across the fabric"): per link and direction the bytes and packets (the
 * sending port's tx; a host's traffic by its leaf's rx), ECMP imbalance per
 * tier (max/mean over a switch's links to the tier above, both ways), ECN
 * marks and queue drops, PFC frames and paused time, drops by reason; with
 * a job, the path each of its QPs takes as each switch's loaded program
 * decides (fabric_trace.c) and how many QPs each link carries. Counters are
 * cumulative: --save writes them to a file, --since reports what changed
 * since such a file, so an experiment can report one run. --svg draws it
 * too (fabric_svg.c).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl.h"
#include "fabric_report.h"

#define MAX_JOB_QPS 65536 /* each traced at every switch it crosses */

/* ---- gathering ---- */

int ctl_fab_load(const struct ctl_opts *o, struct xfab_fabric *f, const char *what)
{
	char path[512], err[512];
	struct stat st;

	if (!o->fabric == !o->lab) {
		fprintf(stderr,
			"xfabctl %s: name the fabric: --fabric FILE (as `xfab-lab config TOPO "
			"fabric` prints it) or --lab NAME (a lab that is up)\n",
			what);
		return 2;
	}
	if (o->lab) {
		if (!o->lab[0] || strchr(o->lab, '/') || strlen(o->lab) > 64) {
			fprintf(stderr, "xfabctl %s: --lab: \"%s\" is not a lab name\n", what,
				o->lab);
			return 2;
		}
		snprintf(path, sizeof(path), "%s/%s/fabric.json", XFAB_FAB_STATE_ROOT, o->lab);
		if (stat(path, &st)) {
			fprintf(stderr,
				"xfabctl %s: lab %s is not up (no %s; `xfab-lab up ... --name %s` "
				"writes it)\n",
				what, o->lab, path, o->lab);
			return 1;
		}
	} else {
		snprintf(path, sizeof(path), "%s", o->fabric);
	}
	if (xfab_fabric_load(path, f, err, sizeof(err))) {
		fprintf(stderr, "xfabctl %s: %s\n", what, err);
		return 2;
	}
	return 0;
}

/* --since: the counters become what changed after the snapshot. */
static int apply_since(struct fab_report *r)
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

static int save_snapshot(const struct fab_report *r, const char *path)
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

void ctl_fab_link_figures(struct fab_report *r)
{
	for (unsigned int l = 0; l < r->f.n_links; l++) {
		for (int d = 0; d < 2; d++) {
			const struct xfab_fab_port_ctr *c;
			int sw, port, rx;

			xfab_fab_link_counter(&r->f, l, (enum xfab_fab_dir)d, &sw, &port, &rx);
			c = &r->cur.sw[sw].ports[port];
			r->pkts[d][l] = rx ? c->rx_packets : c->tx_packets;
			r->bytes[d][l] = rx ? c->rx_bytes : c->tx_bytes;
			if (rx || r->f.switches[sw].ports[port].peer_sw < 0)
				continue; /* a host at one end: it counts nothing */
			c = &r->cur.sw[r->f.switches[sw].ports[port].peer_sw]
				 .ports[r->f.switches[sw].ports[port].peer_sw_port];
			r->rx_pkts[d][l] = c->rx_packets;
		}
	}
}

/* Each rank is a host of the fabric: by its name when the job gives one
 * (with the same address), else by its address. */
static int job_hosts(struct fab_report *r, int *rank_host)
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
				"xfabctl %s: --job %s: ranks[%u] (%s%s%s) is no host of fabric "
				"%s\n",
				r->what, r->job_path, i, rk->host, rk->host[0] ? " " : "", a,
				r->f.name);
			return 2;
		}
		if (r->f.hosts[h].addr.s_addr != rk->addr.s_addr) {
			char b[INET_ADDRSTRLEN];

			inet_ntop(AF_INET, &r->f.hosts[h].addr, b, sizeof(b));
			fprintf(
			    stderr,
			    "xfabctl %s: --job %s: ranks[%u]: host %s is %s in fabric %s, not %s\n",
			    r->what, r->job_path, i, rk->host, b, r->f.name, a);
			return 2;
		}
		rank_host[i] = h;
	}
	return 0;
}

int ctl_fab_job_paths(struct fab_report *r)
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
		fprintf(stderr, "xfabctl %s: --job %s: %zu QPs; it traces at most %d\n", r->what,
			r->job_path, max, MAX_JOB_QPS);
		return 2;
	}
	r->flows = calloc(max, sizeof(*r->flows));
	r->paths = calloc(max, sizeof(*r->paths));
	r->src_host = calloc(max, sizeof(int));
	r->dst_host = calloc(max, sizeof(int));
	t = ctl_fab_tracer_new(&r->f, r->pm);
	if (!r->flows || !r->paths || !r->src_host || !r->dst_host || !t) {
		fprintf(stderr, "xfabctl %s: out of memory\n", r->what);
		ctl_fab_tracer_free(t);
		return 1;
	}
	r->n_flows = xfab_job_flows(&r->job, r->flows, max);
	for (size_t i = 0; i < r->n_flows; i++) {
		struct xfab_fab_path *p = &r->paths[i];

		r->src_host[i] = rank_host[r->flows[i].src];
		r->dst_host[i] = rank_host[r->flows[i].dst];
		ctl_fab_tracer_flow(t, &r->flows[i]);
		xfab_fab_walk(&r->f, (unsigned int)r->src_host[i], (unsigned int)r->dst_host[i],
			      ctl_fab_trace_decide, t, p);
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
	ctl_fab_tracer_free(t);
	return 0;
}

static int balance(struct fab_report *r)
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

/* ---- the command ---- */

int ctl_fab_report_arrays(struct fab_report *r)
{
	int oom = 0;

	for (int d = 0; d < 2; d++) {
		uint64_t **a[] = {&r->pkts[d], &r->bytes[d], &r->rx_pkts[d], &r->qps[d],
				  &r->job_bytes[d]};

		for (unsigned int i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
			if (!*a[i])
				*a[i] = calloc(r->f.n_links + 1, sizeof(uint64_t));
			oom |= !*a[i];
		}
	}
	return oom ? -1 : 0;
}

void ctl_fab_report_free(struct fab_report *r)
{
	for (int d = 0; d < 2; d++) {
		free(r->pkts[d]);
		free(r->bytes[d]);
		free(r->rx_pkts[d]);
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

static int report_run(const struct ctl_opts *o, struct fab_report *r)
{
	char err[512];
	int rc = ctl_fab_load(o, &r->f, "fabric report");

	r->what = "fabric report";
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
	if (!r->pm || xfab_fab_snap_init(&r->cur, &r->f) || ctl_fab_report_arrays(r)) {
		fprintf(stderr, "xfabctl fabric report: out of memory\n");
		return 1;
	}
	if (ctl_fab_collect(&r->f, r->pm, &r->cur, err, sizeof(err))) {
		fprintf(stderr, "xfabctl fabric report: %s\n", err);
		return 1;
	}
	/* what is saved is the counters as read, for a later --since */
	if (o->save && save_snapshot(r, o->save))
		return 1;
	if (o->since && (rc = apply_since(r)))
		return rc;
	ctl_fab_link_figures(r);
	if (r->job_path && (rc = ctl_fab_job_paths(r)))
		return rc;
	if (balance(r)) {
		fprintf(stderr, "xfabctl fabric report: out of memory\n");
		return 1;
	}
	if (ctl_json)
		ctl_fab_json_report(r);
	else
		ctl_fab_text_report(r);
	return o->svg && ctl_fab_svg_write(r, NULL, 0, o->svg) ? 1 : 0;
}

int ctl_cmd_fabric_report(const struct ctl_opts *o)
{
	struct fab_report r;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = report_run(o, &r);
	ctl_fab_report_free(&r);
	return rc;
}
