// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfabctl fabric doctor's outputs: the suspects ranked with their
 * evidence, as text (in the fabric report's table style) or JSON
 * (fabric_doctor.c gathers them). */
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "fabric_doctor.h"
#include "names.h"

static void end_name(const struct fab_report *r, int sw, int port, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%s", ctl_fab_sw_name(r, sw), ctl_fab_port_of(r, sw, port));
}

/* The job's QP qp leaves switch sw by port. */
static int qp_crosses(const struct fab_report *r, size_t qp, int sw, int port)
{
	const struct xfab_fab_path *p = &r->paths[qp];

	for (unsigned int h = 0; h < p->n_hops && xfab_fab_hop_sent(p, h); h++)
		if ((int)p->hops[h].sw == sw && (int)p->hops[h].out_port == port)
			return 1;
	return 0;
}

/* The direction with the most bad frames, for a clean verdict's context. */
static int worst_dir(const struct xfab_doc_result *res)
{
	int w = -1;

	for (unsigned int i = 0; i < res->n_dirs; i++)
		if (w < 0 || res->dirs[i].rate > res->dirs[w].rate)
			w = (int)i;
	return w;
}

static void text_row(const struct fab_report *r, unsigned int rank, const struct xfab_doc_dir *x)
{
	char from[64], to[64], pfc[32];

	end_name(r, x->tx_sw, x->tx_port, from, sizeof(from));
	end_name(r, x->rx_sw, x->rx_port, to, sizeof(to));
	snprintf(pfc, sizeof(pfc), "%llu/%llu", (unsigned long long)x->pfc_rx,
		 (unsigned long long)x->pfc_tx);
	printf("%4u  %-16s  %-16s  %10llu  %10llu  %9llu  %8llu  %8llu  %7.2f %%  %8llu  %9s\n",
	       rank, from, to, (unsigned long long)x->sent, (unsigned long long)x->arrived,
	       (unsigned long long)x->in_flight, (unsigned long long)x->lost,
	       (unsigned long long)x->damaged_lo, 100 * x->rate, (unsigned long long)x->ecn_marked,
	       pfc);
}

static void text_qps(const struct fab_doctor *d, const struct xfab_doc_dir *x)
{
	const struct fab_report *r = &d->r;
	unsigned int n = 0;

	for (size_t i = 0; i < r->n_flows; i++)
		n += (unsigned int)qp_crosses(r, i, x->tx_sw, x->tx_port);
	printf("     job %s: %u of its %zu QPs cross it%s\n", r->job.name, n, r->n_flows,
	       n ? ":" : "");
	for (size_t i = 0; i < r->n_flows; i++) {
		if (!qp_crosses(r, i, x->tx_sw, x->tx_port))
			continue;
		printf("       QP 0x%x  %s > %s  sport %u  dest QP 0x%x\n", r->flows[i].src_qpn,
		       r->f.hosts[r->src_host[i]].name, r->f.hosts[r->dst_host[i]].name,
		       r->flows[i].sport, r->flows[i].dst_qpn);
	}
}

static void text_drains(const struct fab_doctor *d, const struct xfab_doc_dir *x)
{
	for (unsigned int i = 0; i < d->n_drains; i++) {
		const struct doc_drain *k = &d->drains[i];

		if (!((k->sw == x->tx_sw && k->port == x->tx_port) ||
		      (k->sw == x->rx_sw && k->port == x->rx_port)))
			continue;
		printf("     drained: %s %s: %s\n", ctl_fab_sw_name(&d->r, k->sw),
		       ctl_fab_port_of(&d->r, k->sw, k->port),
		       !k->ok	    ? "no answer (see above)"
		       : k->drained ? "yes"
				    : "xfabd says no");
	}
}

void ctl_doc_text(const struct fab_doctor *d)
{
	const struct xfab_doc_result *res = &d->res;
	char why[512];
	int w;

	printf(
	    "Fabric %s: %u window%s of %.2f s (%.2f s in all); suspect: more than %.2f %% of a "
	    "link's frames\nlost or damaged beyond the count's noise (bad - 3 sqrt(bad) of them), "
	    "and at least %llu frames.\nSent: the sending port's tx; received: the other end's rx "
	    "less its punts; in flight: still in\nthe sender's queue at the close; lost: the rest "
	    "of the difference; damaged: dropped at the\nreceiver as malformed (its share's low "
	    "end). ECN: marks on the sending queue; PFC: pause frames\nthe sender received / the "
	    "receiver sent.\n",
	    d->r.f.name, d->rounds, d->rounds == 1 ? "" : "s", d->window_s, res->window_s,
	    100 * d->o.threshold, (unsigned long long)d->o.min_bad);
	if (!res->n_suspects) {
		w = worst_dir(res);
		printf("\nNo suspect link in %u window%s.", d->rounds, d->rounds == 1 ? "" : "s");
		if (w >= 0 && res->dirs[w].sent) {
			xfab_doc_why(&d->r.f, &res->dirs[w], why, sizeof(why));
			printf(" The worst: %s.", why);
		}
		putchar('\n');
		return;
	}
	printf("\n%4s  %-16s  %-16s  %10s  %10s  %9s  %8s  %8s  %9s  %8s  %9s\n", "Rank", "From",
	       "To", "Sent", "Received", "In flight", "Lost", "Damaged", "Bad/sent", "ECN",
	       "PFC rx/tx");
	printf("----  ----------------  ----------------  ----------  ----------  ---------  "
	       "--------  --------  ---------  --------  ---------\n");
	for (unsigned int i = 0; i < res->n_suspects; i++)
		text_row(&d->r, i + 1, &res->dirs[res->ranked[i]]);
	printf("\n%u suspect%s, most evident first:\n", res->n_suspects,
	       res->n_suspects == 1 ? "" : "s");
	for (unsigned int i = 0; i < res->n_suspects; i++) {
		const struct xfab_doc_dir *x = &res->dirs[res->ranked[i]];

		xfab_doc_why(&d->r.f, x, why, sizeof(why));
		printf("  %u. %s\n", i + 1, why);
		if (d->r.job_path)
			text_qps(d, x);
		text_drains(d, x);
	}
}

/* ---- JSON ---- */

static void json_dir(const struct fab_doctor *d, const struct xfab_doc_dir *x)
{
	char from[64], to[64], why[512], reasons[256];
	size_t off = 0;

	end_name(&d->r, x->tx_sw, x->tx_port, from, sizeof(from));
	end_name(&d->r, x->rx_sw, x->rx_port, to, sizeof(to));
	xfab_doc_why(&d->r.f, x, why, sizeof(why));
	reasons[0] = '\0';
	for (unsigned int k = 1; k < XFAB_DROP_MAX; k++)
		if (x->damage_reasons & (1ull << k))
			off += (size_t)snprintf(reasons + off, sizeof(reasons) - off, "%s%s",
						off ? "," : "", xfab_drop_name(k));
	ctl_jw_open(NULL, '{');
	ctl_jw_string("from", from);
	ctl_jw_string("to", to);
	ctl_jw_string("kind", d->r.f.links[x->link].kind);
	ctl_jw_string("dir", ctl_fab_dir_names[x->dir]);
	ctl_jw_uint("sent", x->sent);
	ctl_jw_uint("received", x->arrived);
	ctl_jw_uint("in_flight", x->in_flight);
	ctl_jw_uint("lost", x->lost);
	ctl_jw_uint("damaged_min", x->damaged_lo);
	ctl_jw_uint("damaged_max", x->damaged_hi);
	ctl_jw_string("damage_reasons", reasons);
	ctl_jw_uint("bad", x->bad);
	ctl_jw_double("rate", x->rate);
	ctl_jw_double("rank_rate", x->rank);
	ctl_jw_uint("ecn_marked", x->ecn_marked);
	ctl_jw_uint("queue_dropped", x->q_dropped);
	ctl_jw_uint("pfc_rx", x->pfc_rx);
	ctl_jw_uint("pfc_tx", x->pfc_tx);
	ctl_jw_bool("suspect", x->suspect);
	ctl_jw_string("why", why);
	if (x->suspect && d->r.job_path) {
		ctl_jw_open("job_qps", '[');
		for (size_t i = 0; i < d->r.n_flows; i++) {
			if (!qp_crosses(&d->r, i, x->tx_sw, x->tx_port))
				continue;
			ctl_jw_open(NULL, '{');
			ctl_jw_uint("qp", d->r.flows[i].src_qpn);
			ctl_jw_string("src", d->r.f.hosts[d->r.src_host[i]].name);
			ctl_jw_string("dst", d->r.f.hosts[d->r.dst_host[i]].name);
			ctl_jw_uint("sport", d->r.flows[i].sport);
			ctl_jw_uint("dest_qp", d->r.flows[i].dst_qpn);
			ctl_jw_close('}');
		}
		ctl_jw_close(']');
	}
	ctl_jw_close('}');
}

static void json_drains(const struct fab_doctor *d, const char *key)
{
	ctl_jw_open(key, '[');
	for (unsigned int i = 0; i < d->n_drains; i++) {
		const struct doc_drain *k = &d->drains[i];

		ctl_jw_open(NULL, '{');
		ctl_jw_string("switch", ctl_fab_sw_name(&d->r, k->sw));
		ctl_jw_string("port", ctl_fab_port_of(&d->r, k->sw, k->port));
		ctl_jw_bool("answered", k->ok);
		ctl_jw_bool("drained", k->drained);
		ctl_jw_close('}');
	}
	ctl_jw_close(']');
}

void ctl_doc_json(const struct fab_doctor *d)
{
	const struct xfab_doc_result *res = &d->res;

	ctl_jw_open(NULL, '{');
	ctl_jw_string("fabric", d->r.f.name);
	ctl_jw_double("window_s", d->window_s);
	ctl_jw_uint("rounds", d->rounds);
	ctl_jw_double("last_window_s", res->window_s);
	ctl_jw_double("elapsed_s", d->elapsed_s);
	ctl_jw_double("threshold", d->o.threshold);
	ctl_jw_uint("min_frames", d->o.min_bad);
	ctl_jw_uint("resets", res->resets);
	if (d->r.job_path)
		ctl_jw_string("job", d->r.job.name);
	ctl_jw_open("suspects", '[');
	for (unsigned int i = 0; i < res->n_suspects; i++)
		json_dir(d, &res->dirs[res->ranked[i]]);
	ctl_jw_close(']');
	ctl_jw_open("links", '[');
	for (unsigned int i = 0; i < res->n_dirs; i++)
		json_dir(d, &res->dirs[i]);
	ctl_jw_close(']');
	if (d->drain)
		json_drains(d, "drained");
	ctl_jw_close('}');
	ctl_jw_end();
}

void ctl_doc_undrain_out(const struct fab_doctor *d)
{
	if (ctl_json) {
		ctl_jw_open(NULL, '{');
		json_drains(d, "undrained");
		ctl_jw_close('}');
		ctl_jw_end();
		return;
	}
	printf("%-10s  %-8s  %s\n", "Switch", "Port", "Drained now");
	printf("----------  --------  -----------\n");
	for (unsigned int i = 0; i < d->n_drains; i++) {
		const struct doc_drain *k = &d->drains[i];

		printf("%-10s  %-8s  %s\n", ctl_fab_sw_name(&d->r, k->sw),
		       ctl_fab_port_of(&d->r, k->sw, k->port),
		       !k->ok	    ? "no answer"
		       : k->drained ? "yes"
				    : "no");
	}
}
