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

static void json_links(const struct fab_report *r)
{
	jw_open("links", '[');
	for (unsigned int l = 0; l < r->f.n_links; l++) {
		const struct xfab_fab_link *ln = &r->f.links[l];

		jw_open(NULL, '{');
		jw_string("kind", ln->kind);
		jw_string("upper", fab_sw_name(r, ln->upper));
		jw_string("upper_port", fab_port_of(r, ln->upper, ln->upper_port));
		jw_string("lower", ln->lower >= 0 ? fab_sw_name(r, ln->lower)
						  : r->f.hosts[ln->lower_host].name);
		if (ln->lower >= 0)
			jw_string("lower_port", fab_port_of(r, ln->lower, ln->lower_port));
		for (int d = 0; d < 2; d++) {
			int sw, port, rx;
			char at[64];

			xfab_fab_link_counter(&r->f, l, (enum xfab_fab_dir)d, &sw, &port, &rx);
			snprintf(at, sizeof(at), "%s:%s", fab_sw_name(r, sw),
				 fab_port_of(r, sw, port));
			jw_open(fab_dir_names[d], '{');
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

static void json_imbalance(const struct fab_report *r)
{
	jw_open("imbalance", '[');
	for (int t = 0; t < N_TIERS; t++) {
		for (int d = 0; d < 2; d++) {
			const struct xfab_fab_tier_imb *ti = &r->imb[t][d];

			if (!ti->n_groups)
				continue;
			jw_open(NULL, '{');
			jw_string("tier", fab_tier_names[t + 1]);
			jw_string("direction", fab_dir_names[d]);
			jw_open("switches", '[');
			for (unsigned int g = 0; g < ti->n_groups; g++) {
				const struct xfab_fab_group *gr = &ti->groups[g];

				jw_open(NULL, '{');
				jw_string("switch", fab_sw_name(r, gr->sw));
				jw_open("ports", '[');
				for (unsigned int i = 0; i < gr->n_links; i++) {
					const struct xfab_fab_link *ln = &r->f.links[gr->links[i]];

					jw_string(NULL, fab_port_of(r, gr->sw, ln->lower_port));
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
				jw_string("worst", fab_sw_name(r, ti->groups[ti->worst].sw));
			else
				jw_null("worst");
			jw_close('}');
		}
	}
	jw_close(']');
}

static void json_job(const struct fab_report *r)
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
			jw_string("switch", fab_sw_name(r, (int)hop->sw));
			jw_string("in", fab_port_of(r, (int)hop->sw, (int)hop->in_port));
			jw_bool("kernel", hop->flags & XFAB_FAB_HOP_KERNEL);
			if (xfab_fab_hop_sent(p, h))
				jw_string("out", fab_port_of(r, (int)hop->sw, (int)hop->out_port));
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

static void json_trouble(const struct fab_report *r)
{
	struct fab_trouble t;

	fab_trouble_sums(r, &t);
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
			jw_string("direction", fab_dir_names[sw->ports[p].dir]);
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

void fab_json_report(const struct fab_report *r)
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
