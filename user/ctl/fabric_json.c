// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfabctl fabric report -j: the text report's figures as one JSON object
 * (fabric_report.c gathers them). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "fabric_report.h"

static void json_imb(const char *k, const struct xfab_imbalance *imb)
{
	ctl_jw_open(k, '{');
	ctl_jw_uint("links", imb->n);
	ctl_jw_uint("max", imb->max);
	ctl_jw_uint("sum", imb->sum);
	ctl_jw_double("mean", imb->mean);
	if (imb->sum)
		ctl_jw_double("ratio", imb->ratio);
	else
		ctl_jw_null("ratio");
	ctl_jw_close('}');
}

static void json_per_tc(const char *k, const uint64_t *v)
{
	ctl_jw_open(k, '[');
	for (int i = 0; i < XFAB_FAB_NUM_TC; i++)
		ctl_jw_uint(NULL, v[i]);
	ctl_jw_close(']');
}

/* what the far end took in and the difference; null to a host */
static void json_loss(const struct fab_report *r, unsigned int l, int d)
{
	uint64_t lost;
	double frac;

	if (!ctl_fab_link_loss(r, l, d, &lost, &frac)) {
		ctl_jw_null("received_packets");
		ctl_jw_null("lost_packets");
		return;
	}
	ctl_jw_uint("received_packets", r->rx_pkts[d][l]);
	ctl_jw_uint("lost_packets", lost);
}

static void json_links(const struct fab_report *r)
{
	ctl_jw_open("links", '[');
	for (unsigned int l = 0; l < r->f.n_links; l++) {
		const struct xfab_fab_link *ln = &r->f.links[l];

		ctl_jw_open(NULL, '{');
		ctl_jw_string("kind", ln->kind);
		ctl_jw_string("upper", ctl_fab_sw_name(r, ln->upper));
		ctl_jw_string("upper_port", ctl_fab_port_of(r, ln->upper, ln->upper_port));
		ctl_jw_string("lower", ln->lower >= 0 ? ctl_fab_sw_name(r, ln->lower)
						      : r->f.hosts[ln->lower_host].name);
		if (ln->lower >= 0)
			ctl_jw_string("lower_port", ctl_fab_port_of(r, ln->lower, ln->lower_port));
		for (int d = 0; d < 2; d++) {
			int sw, port, rx;
			char at[64];

			xfab_fab_link_counter(&r->f, l, (enum xfab_fab_dir)d, &sw, &port, &rx);
			snprintf(at, sizeof(at), "%s:%s", ctl_fab_sw_name(r, sw),
				 ctl_fab_port_of(r, sw, port));
			ctl_jw_open(ctl_fab_dir_names[d], '{');
			ctl_jw_uint("packets", r->pkts[d][l]);
			ctl_jw_uint("bytes", r->bytes[d][l]);
			ctl_jw_string("counted_at", at);
			ctl_jw_string("counter", rx ? "rx" : "tx");
			json_loss(r, l, d);
			if (r->job_path) {
				ctl_jw_uint("job_qps", r->qps[d][l]);
				ctl_jw_uint("job_bytes", r->job_bytes[d][l]);
			}
			ctl_jw_close('}');
		}
		ctl_jw_close('}');
	}
	ctl_jw_close(']');
}

static void json_imbalance(const struct fab_report *r)
{
	ctl_jw_open("imbalance", '[');
	for (int t = 0; t < N_TIERS; t++) {
		for (int d = 0; d < 2; d++) {
			const struct xfab_fab_tier_imb *ti = &r->imb[t][d];

			if (!ti->n_groups)
				continue;
			ctl_jw_open(NULL, '{');
			ctl_jw_string("tier", ctl_fab_tier_names[t + 1]);
			ctl_jw_string("direction", ctl_fab_dir_names[d]);
			ctl_jw_open("switches", '[');
			for (unsigned int g = 0; g < ti->n_groups; g++) {
				const struct xfab_fab_group *gr = &ti->groups[g];

				ctl_jw_open(NULL, '{');
				ctl_jw_string("switch", ctl_fab_sw_name(r, gr->sw));
				ctl_jw_open("ports", '[');
				for (unsigned int i = 0; i < gr->n_links; i++) {
					const struct xfab_fab_link *ln = &r->f.links[gr->links[i]];

					ctl_jw_string(NULL,
						      ctl_fab_port_of(r, gr->sw, ln->lower_port));
				}
				ctl_jw_close(']');
				ctl_jw_open("bytes", '[');
				for (unsigned int i = 0; i < gr->n_links; i++)
					ctl_jw_uint(NULL, r->bytes[d][gr->links[i]]);
				ctl_jw_close(']');
				json_imb("balance", &gr->imb);
				if (r->job_path) {
					ctl_jw_open("qps", '[');
					for (unsigned int i = 0; i < gr->n_links; i++)
						ctl_jw_uint(NULL, r->qps[d][gr->links[i]]);
					ctl_jw_close(']');
					json_imb("qp_balance", &r->qp_imb[t][d].groups[g].imb);
				}
				ctl_jw_close('}');
			}
			ctl_jw_close(']');
			json_imb("all", &ti->all);
			if (r->job_path)
				json_imb("qp_all", &r->qp_imb[t][d].all);
			if (ti->worst >= 0)
				ctl_jw_string("worst",
					      ctl_fab_sw_name(r, ti->groups[ti->worst].sw));
			else
				ctl_jw_null("worst");
			ctl_jw_close('}');
		}
	}
	ctl_jw_close(']');
}

static void json_job(const struct fab_report *r)
{
	char a[INET_ADDRSTRLEN];

	ctl_jw_open("job", '{');
	ctl_jw_string("name", r->job.name);
	ctl_jw_string("op", xfab_job_op_name(r->job.op));
	ctl_jw_uint("ranks", r->job.n);
	ctl_jw_uint("channels", r->job.channels);
	ctl_jw_uint("qps_per_connection", r->job.qps);
	ctl_jw_uint("qps", r->n_flows);
	ctl_jw_uint("delivered", r->delivered);
	ctl_jw_open("flows", '[');
	for (size_t i = 0; i < r->n_flows; i++) {
		const struct xfab_job_flow *fl = &r->flows[i];
		const struct xfab_fab_path *p = &r->paths[i];

		ctl_jw_open(NULL, '{');
		ctl_jw_string("src", r->f.hosts[r->src_host[i]].name);
		ctl_jw_string("dst", r->f.hosts[r->dst_host[i]].name);
		inet_ntop(AF_INET, &fl->saddr, a, sizeof(a));
		ctl_jw_string("saddr", a);
		inet_ntop(AF_INET, &fl->daddr, a, sizeof(a));
		ctl_jw_string("daddr", a);
		ctl_jw_uint("channel", fl->channel);
		ctl_jw_uint("q", fl->q);
		ctl_jw_uint("src_qpn", fl->src_qpn);
		ctl_jw_uint("dst_qpn", fl->dst_qpn);
		ctl_jw_uint("sport", fl->sport);
		ctl_jw_uint("dport", fl->dport);
		ctl_jw_uint("bytes", fl->bytes);
		ctl_jw_string("status", xfab_fab_path_status_name(p->status));
		if (p->why[0])
			ctl_jw_string("why", p->why);
		ctl_jw_open("path", '[');
		for (unsigned int h = 0; h < p->n_hops; h++) {
			const struct xfab_fab_hop *hop = &p->hops[h];

			ctl_jw_open(NULL, '{');
			ctl_jw_string("switch", ctl_fab_sw_name(r, (int)hop->sw));
			ctl_jw_string("in", ctl_fab_port_of(r, (int)hop->sw, (int)hop->in_port));
			ctl_jw_bool("kernel", hop->flags & XFAB_FAB_HOP_KERNEL);
			if (xfab_fab_hop_sent(p, h))
				ctl_jw_string("out",
					      ctl_fab_port_of(r, (int)hop->sw, (int)hop->out_port));
			else
				ctl_jw_null("out");
			ctl_jw_close('}');
		}
		ctl_jw_close(']');
		if (p->last_host >= 0)
			ctl_jw_string("host", r->f.hosts[p->last_host].name);
		ctl_jw_close('}');
	}
	ctl_jw_close(']');
	ctl_jw_close('}');
}

static void json_trouble(const struct fab_report *r)
{
	struct fab_trouble t;

	ctl_fab_trouble_sums(r, &t);
	ctl_jw_open("queues", '{');
	ctl_jw_uint("ecn_marked", t.ecn);
	ctl_jw_uint("dropped", t.q_dropped);
	ctl_jw_close('}');
	ctl_jw_open("pfc", '{');
	ctl_jw_uint("rx_frames", t.pfc_rx);
	ctl_jw_uint("tx_frames", t.pfc_tx);
	ctl_jw_uint("pauses", t.pauses);
	ctl_jw_uint("paused_ns", t.paused_ns);
	ctl_jw_close('}');
	ctl_jw_open("drops", '{');
	ctl_jw_uint("packets", t.drops);
	ctl_jw_uint("bytes", t.drop_bytes);
	ctl_jw_close('}');
	ctl_jw_open("switches", '[');
	for (unsigned int s = 0; s < r->f.n_switches; s++) {
		const struct xfab_fab_sw_ctr *c = &r->cur.sw[s];
		const struct xfab_fab_switch *sw = &r->f.switches[s];

		ctl_jw_open(NULL, '{');
		ctl_jw_string("switch", sw->name);
		ctl_jw_uint("tier", (unsigned int)sw->tier);
		ctl_jw_open("ports", '[');
		for (unsigned int p = 0; p < sw->n_ports; p++) {
			const struct xfab_fab_port_ctr *pc = &c->ports[p];

			ctl_jw_open(NULL, '{');
			ctl_jw_string("port", sw->ports[p].name);
			ctl_jw_string("peer", sw->ports[p].peer);
			ctl_jw_string("direction", ctl_fab_dir_names[sw->ports[p].dir]);
			ctl_jw_bool("in_port_table", c->in_table[p]);
			ctl_jw_uint("rx_packets", pc->rx_packets);
			ctl_jw_uint("rx_bytes", pc->rx_bytes);
			ctl_jw_uint("tx_packets", pc->tx_packets);
			ctl_jw_uint("tx_bytes", pc->tx_bytes);
			ctl_jw_uint("drops", pc->drops);
			ctl_jw_uint("punts", pc->punts);
			json_per_tc("ecn_marked", pc->ecn_marked);
			json_per_tc("queue_dropped", pc->q_dropped);
			json_per_tc("pfc_rx", pc->pfc_rx);
			json_per_tc("pfc_tx", pc->pfc_tx);
			json_per_tc("pauses", pc->pauses);
			json_per_tc("paused_ns", pc->paused_ns);
			ctl_jw_close('}');
		}
		ctl_jw_close(']');
		ctl_jw_open("drops", '{');
		for (unsigned int k = 1; k < XFAB_DROP_MAX; k++) {
			ctl_jw_open(xfab_drop_name(k), '{');
			ctl_jw_uint("packets", c->drop_packets[k]);
			ctl_jw_uint("bytes", c->drop_bytes[k]);
			ctl_jw_close('}');
		}
		ctl_jw_close('}');
		ctl_jw_close('}');
	}
	ctl_jw_close(']');
}

void ctl_fab_json_report(const struct fab_report *r)
{
	ctl_jw_open(NULL, '{');
	ctl_jw_string("fabric", r->f.name);
	ctl_jw_double("time", r->cur.time);
	if (r->since) {
		ctl_jw_open("since", '{');
		ctl_jw_string("file", r->since);
		ctl_jw_double("seconds", r->since_s);
		ctl_jw_uint("resets", r->resets);
		if (r->resets)
			ctl_jw_string("first_reset", r->reset_note);
		ctl_jw_close('}');
	} else {
		ctl_jw_null("since");
	}
	json_links(r);
	json_imbalance(r);
	if (r->job_path)
		json_job(r);
	json_trouble(r);
	ctl_jw_close('}');
}
