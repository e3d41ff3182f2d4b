// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfabctl fabric report: what its outputs (fabric_text.c, fabric_json.c,
 * fabric_svg.c) read of a report beside its fields: names, a link's loss
 * and the sums of the counters that tell of trouble. Apart from fabric_report.c, which calls the
 * outputs, so that neither output calls back into it.
 */
#include <string.h>

#include "ctl.h"
#include "fabric_report.h"

const char *const ctl_fab_dir_names[2] = {"up", "down"};
const char *const ctl_fab_tier_names[3] = {"", "leaf-spine", "spine-super"};

const char *ctl_fab_sw_name(const struct fab_report *r, int s)
{
	return r->f.switches[s].name;
}

const char *ctl_fab_port_of(const struct fab_report *r, int s, int p)
{
	return r->f.switches[s].ports[p].name;
}

int ctl_fab_link_loss(const struct fab_report *r, unsigned int l, int d, uint64_t *lost,
		      double *frac)
{
	uint64_t sent = r->pkts[d][l], got = r->rx_pkts[d][l];

	*lost = 0;
	*frac = 0;
	if (r->f.links[l].lower < 0)
		return 0;
	if (sent > got) {
		*lost = sent - got;
		*frac = (double)*lost / (double)sent;
	}
	return 1;
}

void ctl_fab_trouble_sums(const struct fab_report *r, struct fab_trouble *t)
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
