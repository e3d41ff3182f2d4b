// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The compiler's state and its events (config, link, neighbour); the
 * parts are named in compile_int.h. */
#include "compile_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* xfab_base_apply's writes go through the counters too. */
static int count_update(void *arg, enum xfab_table t, const void *key, const void *val)
{
	return w_update(arg, t, key, val);
}

static int count_remove(void *arg, enum xfab_table t, const void *key)
{
	return w_remove(arg, t, key);
}

static int count_flush(void *arg, enum xfab_table t)
{
	return w_flush(arg, t);
}

/* ---- state ---- */

struct xfab_compile *xfab_compile_new(struct xfab_rib *rib, const struct xfab_map_ops *ops,
				      xfab_neigh_fn neigh, void *neigh_arg)
{
	struct xfab_compile *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->rib = rib;
	c->ops = *ops;
	c->neigh = neigh;
	c->neigh_arg = neigh_arg;
	c->nh_next = 1;
	c->grp_next = 1;
	return c;
}

void xfab_compile_free(struct xfab_compile *c)
{
	if (!c)
		return;
	for (__u32 id = 0; id < XFAB_MAX_GROUPS; id++) {
		struct grp *g = c->grp_by_id[id];

		if (!g)
			continue;
		g->path->compiled = NULL;
		xfab_rib_path_put(c->rib, g->path);
		free(g);
	}
	for (__u32 id = 0; id < XFAB_MAX_NEXTHOPS; id++) {
		if (c->nh_by_id[id])
			free(c->nh_by_id[id]->groups);
		free(c->nh_by_id[id]);
	}
	free(c->pend_nh);
	free(c->pend_grp);
	free(c->neighs);
	xfab_base_free(&c->base);
	free(c);
}

const struct xfab_compile_stats *xfab_compile_last(const struct xfab_compile *c)
{
	return &c->st;
}

void xfab_compile_counts(const struct xfab_compile *c, struct xfab_compile_counts *out)
{
	out->routes_v4 = c->routes_v4;
	out->routes_v6 = c->routes_v6;
	out->nexthops = c->n_nh;
	out->groups = c->n_grp;
}

void xfab_compile_foreach_nexthop(const struct xfab_compile *c,
				  void (*fn)(void *arg, int port, __u32 id,
					     const struct xfab_nexthop *nh),
				  void *arg)
{
	for (__u32 id = 1; id < XFAB_MAX_NEXTHOPS; id++)
		if (c->nh_by_id[id])
			fn(arg, c->nh_by_id[id]->port, id, &c->nh_by_id[id]->val);
}

const struct xfab_group *xfab_compile_group(const struct xfab_compile *c, __u32 id)
{
	return id < XFAB_MAX_GROUPS && c->grp_by_id[id] ? &c->grp_by_id[id]->val : NULL;
}

/* ---- events ---- */

struct unlend {
	struct xfab_compile *c;
	int port; /* the lent groups with a member on it; -1: every one */
	int err;
};

static void unlend_mark(void *arg, struct xfab_rib_node *node)
{
	struct unlend *u = arg;
	const struct grp *g;
	int on = u->port < 0;

	if (!node->inst_lent || u->err)
		return;
	g = node->inst_id < XFAB_MAX_GROUPS ? u->c->grp_by_id[node->inst_id] : NULL;
	for (int i = 0; g && i < g->n && !on; i++)
		on = g->members[i]->port == u->port;
	if (on)
		u->err = xfab_rib_mark_dirty(u->c->rib, node);
}

/* The routes lent a group with a member on port (-1: any) compile again,
 * before that group is refilled: those whose lending no longer holds go to
 * their own path. */
static int unlend(struct xfab_compile *c, int port)
{
	struct unlend u = {.c = c, .port = port};

	if (!c->n_lent)
		return 0;
	xfab_rib_foreach(c->rib, unlend_mark, &u);
	return u.err ? u.err : xfab_compile_dirty(c);
}

int xfab_compile_config(struct xfab_compile *c, const struct xfab_config *cfg,
			const struct xfab_port_live *live)
{
	struct xfab_map_ops counted = {
	    .update = count_update, .remove = count_remove, .flush = count_flush, .arg = c};
	struct xfab_cfg_neigh *neighs = NULL;
	struct xfab_base base;
	int moved = 0, err;

	memset(&c->st, 0, sizeof(c->st));
	if (cfg->n_ports > XFAB_MAX_PORTS)
		return -EINVAL;
	if (cfg->n_neighs) {
		neighs = malloc((size_t)cfg->n_neighs * sizeof(*neighs));
		if (!neighs)
			return -ENOMEM;
		memcpy(neighs, cfg->neighs, (size_t)cfg->n_neighs * sizeof(*neighs));
	}
	err = xfab_base_build(cfg, live, &base);
	if (err) {
		free(neighs);
		return err;
	}
	for (int p = 0; p < cfg->n_ports; p++)
		moved |= p < c->n_ports && live[p].ifindex != c->live[p].ifindex;
	free(c->neighs);
	c->neighs = neighs;
	c->n_neighs = cfg->n_neighs;
	c->n_ports = cfg->n_ports;
	c->resilient = cfg->resilient;
	for (int p = 0; p < cfg->n_ports; p++) {
		c->admin_up[p] = cfg->ports[p].admin_up;
		c->live[p] = live[p];
	}
	/* base tables: new and changed entries, then removals */
	err = xfab_base_apply(&c->base, &base, &counted);
	xfab_base_free(&c->base);
	c->base = base;
	if (err)
		return err;
	/* routes lent a group whose port is back leave it first */
	err = unlend(c, -1);
	if (err)
		return err;
	/* nexthops and groups whose value changed (static neighbours, port
	 * ifindex or admin state, the resilient flag): a few thousand at most */
	for (__u32 id = 1; id < XFAB_MAX_NEXTHOPS && !err; id++)
		if (c->nh_by_id[id])
			err = xfab_nh_refresh(c, c->nh_by_id[id]);
	for (__u32 id = 1; id < XFAB_MAX_GROUPS && !err; id++)
		if (c->grp_by_id[id])
			err = xfab_grp_refresh(c, c->grp_by_id[id]);
	if (err)
		return err;
	/* a port that came back with another ifindex moves its connected
	 * routes and its TE table: rare enough to look at every prefix */
	if (moved)
		xfab_rib_mark_all_dirty(c->rib);
	return xfab_compile_dirty(c);
}

int xfab_compile_link(struct xfab_compile *c, int port, int oper_up)
{
	struct xfab_table_image *img = &c->base.t[XFAB_T_PORTS];
	int err = 0;

	memset(&c->st, 0, sizeof(c->st));
	oper_up = !!oper_up;
	if (port < 0 || port >= c->n_ports)
		return -EINVAL;
	if (c->live[port].oper_up == oper_up)
		return 0;
	c->live[port].oper_up = oper_up;
	for (size_t i = 0; i < img->count; i++) {
		struct xfab_e_port *e = &((struct xfab_e_port *)img->entries)[i];

		if (e->key != c->live[port].ifindex)
			continue;
		if (oper_up)
			e->val.flags |= XFAB_PORT_OPER_UP;
		else
			e->val.flags &= ~XFAB_PORT_OPER_UP;
		err = w_update(c, XFAB_T_PORTS, &e->key, &e->val);
	}
	/* its nexthops' copies of the entry, their up bits with it */
	if (!err)
		err = xfab_nh_refresh_port(c, port);
	/* back up: the routes lent its groups go to their own path first */
	if (oper_up && !err)
		err = unlend(c, port);
	/* the groups with a member on the port, each once */
	c->epoch++;
	for (struct nh *n = c->port_nhs[port]; n && !err; n = n->port_next)
		for (int i = 0; i < n->n_groups && !err; i++) {
			struct grp *g = n->groups[i];

			if (g->epoch == c->epoch)
				continue;
			g->epoch = c->epoch;
			err = xfab_grp_refresh(c, g);
		}
	return err;
}

int xfab_compile_neigh(struct xfab_compile *c, __u32 ifindex, int family, const __u8 *addr)
{
	__u8 gw[16] = {0};
	struct nh *n;

	memset(&c->st, 0, sizeof(c->st));
	memcpy(gw, addr, family == AF_INET ? 4 : 16);
	for (int p = 0; p < c->n_ports; p++) {
		if (c->live[p].ifindex != ifindex)
			continue;
		n = xfab_nh_find(c, p, family, gw);
		return n ? xfab_nh_refresh(c, n) : 0;
	}
	return 0;
}
