// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What is worked out over a fabric (fabric.h; fabric_parse.c reads it):
 * its names, which end counts a link's direction, ECMP imbalance, a flow's
 * path. */
#include "fabric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int xfab_fab_switch_find(const struct xfab_fabric *f, const char *name)
{
	for (unsigned int i = 0; i < f->n_switches; i++)
		if (!strcmp(f->switches[i].name, name))
			return (int)i;
	return -1;
}

int xfab_fab_port_find(const struct xfab_fab_switch *sw, const char *name)
{
	for (unsigned int i = 0; i < sw->n_ports; i++)
		if (!strcmp(sw->ports[i].name, name))
			return (int)i;
	return -1;
}

int xfab_fab_host_find(const struct xfab_fabric *f, const char *name)
{
	for (unsigned int i = 0; i < f->n_hosts; i++)
		if (!strcmp(f->hosts[i].name, name))
			return (int)i;
	return -1;
}

int xfab_fab_host_by_addr(const struct xfab_fabric *f, struct in_addr addr)
{
	for (unsigned int i = 0; i < f->n_hosts; i++)
		if (f->hosts[i].addr.s_addr == addr.s_addr)
			return (int)i;
	return -1;
}

/* ---- what is worked out over a fabric ---- */

void xfab_fab_link_counter(const struct xfab_fabric *f, unsigned int link, enum xfab_fab_dir dir,
			   int *sw, int *port, int *rx)
{
	const struct xfab_fab_link *l = &f->links[link];

	*rx = 0;
	if (dir == XFAB_FAB_DOWN) {
		*sw = l->upper;
		*port = l->upper_port;
	} else if (l->lower >= 0) {
		*sw = l->lower;
		*port = l->lower_port;
	} else {
		/* a host sends up: its leaf's port counts what it received */
		*sw = l->upper;
		*port = l->upper_port;
		*rx = 1;
	}
}

void xfab_imbalance(const uint64_t *v, unsigned int n, struct xfab_imbalance *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	for (unsigned int i = 0; i < n; i++) {
		out->sum += v[i];
		if (v[i] > out->max) {
			out->max = v[i];
			out->argmax = i;
		}
	}
	if (!n)
		return;
	out->mean = (double)out->sum / n;
	out->ratio = out->sum ? (double)out->max / out->mean : 0;
}

int xfab_fab_tier_imbalance(const struct xfab_fabric *f, int tier, enum xfab_fab_dir dir,
			    const uint64_t *link_val, struct xfab_fab_tier_imb *out)
{
	uint64_t *all = calloc((size_t)f->n_links + 1, sizeof(*all));
	uint64_t vals[XFAB_FAB_MAX_PORTS] = {0};
	unsigned int n_all = 0;

	memset(out, 0, sizeof(*out));
	out->tier = tier;
	out->dir = dir;
	out->worst = -1;
	out->groups = calloc((size_t)f->n_switches, sizeof(*out->groups));
	if (!all || !out->groups) {
		free(all);
		free(out->groups);
		out->groups = NULL;
		return -1;
	}
	for (unsigned int s = 0; s < f->n_switches; s++) {
		const struct xfab_fab_switch *sw = &f->switches[s];
		struct xfab_fab_group *g = &out->groups[out->n_groups];

		if (sw->tier != tier)
			continue;
		g->sw = (int)s;
		for (unsigned int p = 0; p < sw->n_ports; p++) {
			if (sw->ports[p].dir != XFAB_FAB_UP || sw->ports[p].peer_sw < 0)
				continue;
			vals[g->n_links] = link_val[sw->ports[p].link];
			all[n_all++] = vals[g->n_links];
			g->links[g->n_links++] = sw->ports[p].link;
		}
		if (!g->n_links)
			continue;
		xfab_imbalance(vals, g->n_links, &g->imb);
		if (g->imb.sum &&
		    (out->worst < 0 || g->imb.ratio > out->groups[out->worst].imb.ratio))
			out->worst = (int)out->n_groups;
		out->n_groups++;
	}
	xfab_imbalance(all, n_all, &out->all);
	free(all);
	return 0;
}

/* ---- a flow's path ---- */

const char *xfab_fab_path_status_name(enum xfab_fab_path_status s)
{
	static const char *const names[] = {
	    [XFAB_PATH_DELIVERED] = "delivered", [XFAB_PATH_WRONG_HOST] = "wrong host",
	    [XFAB_PATH_STOPPED] = "stopped",	 [XFAB_PATH_LOOP] = "loop",
	    [XFAB_PATH_TOO_LONG] = "too long",	 [XFAB_PATH_ERROR] = "error",
	};

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

int xfab_fab_hop_sent(const struct xfab_fab_path *path, unsigned int h)
{
	return h + 1 < path->n_hops ||
	       (h + 1 == path->n_hops && path->status != XFAB_PATH_STOPPED &&
		path->status != XFAB_PATH_ERROR);
}

void xfab_fab_walk(const struct xfab_fabric *f, unsigned int src_host, unsigned int dst_host,
		   xfab_fab_decide_fn decide, void *ctx, struct xfab_fab_path *path)
{
	unsigned int sw = (unsigned int)f->hosts[src_host].leaf;
	unsigned int in = (unsigned int)f->hosts[src_host].leaf_port;

	memset(path, 0, sizeof(*path));
	path->last_host = -1;
	for (unsigned int h = 0; h < XFAB_FAB_MAX_HOPS; h++) {
		struct xfab_fab_hop *hop = &path->hops[h];
		const struct xfab_fab_port *out;
		int rc;

		/* a switch's decision depends on where the flow came in: the
		 * same port twice is the same decision again, a loop */
		for (unsigned int k = 0; k < h; k++) {
			if (path->hops[k].sw == sw && path->hops[k].in_port == in) {
				path->status = XFAB_PATH_LOOP;
				snprintf(path->why, sizeof(path->why), "into %s by %s again",
					 f->switches[sw].name, f->switches[sw].ports[in].name);
				return;
			}
		}
		hop->sw = sw;
		hop->in_port = in;
		path->n_hops = h + 1;
		rc = decide(ctx, hop, path->why, sizeof(path->why));
		if (rc) {
			path->status = rc > 0 ? XFAB_PATH_STOPPED : XFAB_PATH_ERROR;
			return;
		}
		if (hop->out_port >= f->switches[sw].n_ports) {
			path->status = XFAB_PATH_ERROR;
			snprintf(path->why, sizeof(path->why),
				 "%s: egress port %u is not in the fabric", f->switches[sw].name,
				 hop->out_port);
			return;
		}
		out = &f->switches[sw].ports[hop->out_port];
		if (out->peer_host >= 0) {
			path->last_host = out->peer_host;
			path->status = (unsigned int)out->peer_host == dst_host
					   ? XFAB_PATH_DELIVERED
					   : XFAB_PATH_WRONG_HOST;
			if (path->status == XFAB_PATH_WRONG_HOST)
				snprintf(path->why, sizeof(path->why), "handed to %s, not %s",
					 f->hosts[out->peer_host].name, f->hosts[dst_host].name);
			return;
		}
		sw = (unsigned int)out->peer_sw;
		in = (unsigned int)out->peer_sw_port;
	}
	path->status = XFAB_PATH_TOO_LONG;
	snprintf(path->why, sizeof(path->why), "still in the fabric after %d switches",
		 XFAB_FAB_MAX_HOPS);
}
