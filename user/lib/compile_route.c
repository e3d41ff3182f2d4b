// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Route entries: what a prefix points at (a nexthop, a group, lent or
 * its own), written before removals; the dirty prefixes compiled. */
#include "compile_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- routes ---- */

struct rt {
	__u32 table, type, id;
	__u8 source, protocol; /* what the map entry says of its origin */
	__u8 lent;	       /* the group of another path (lendable()) */
};

static const __u8 rsrc_of[XFAB_RIB_SRC_COUNT] = {
    [XFAB_RIB_SRC_CONNECTED] = XFAB_RSRC_CONNECTED,
    [XFAB_RIB_SRC_CONFIG] = XFAB_RSRC_STATIC,
    [XFAB_RIB_SRC_TE_PIN] = XFAB_RSRC_TE_PIN,
    [XFAB_RIB_SRC_NETLINK] = XFAB_RSRC_KERNEL,
};

/*
 * A withdrawal the link event already made. When a port goes down,
 * compile_link takes its members out of their groups' buckets at once; the
 * routing daemon withdraws the same members a little later (or the mirror
 * drops them when the port is taken down), route by route. A route whose
 * new path p is its installed group's members minus members on ports that
 * are down (same weights) is what that group already does: the route stays
 * on it, lent, and nothing is written. When one of those ports comes back,
 * compile_link first moves the lent routes to their own path (so link up
 * restores a member only where the daemon says so), then refills the group.
 */
static int lendable(const struct xfab_compile *c, const struct xfab_rib_node *node,
		    const struct xfab_rib_path *p)
{
	int used[XFAB_GROUP_MAX_MEMBERS] = {0};
	const struct grp *g;

	if (node->inst_type != XFAB_RT_GROUP || node->inst_id >= XFAB_MAX_GROUPS || p->own)
		return 0;
	g = c->grp_by_id[node->inst_id];
	if (!g || g->path == p || g->path->own || p->n >= g->n)
		return 0;
	for (int k = 0; k < p->n; k++) {
		const struct xfab_rib_member *m = &p->m[k];
		int i;

		for (i = 0; i < g->n; i++) {
			const struct nh *n = g->members[i];

			if (!used[i] && n->port == m->port && n->family == m->family &&
			    !memcmp(n->gw, m->gw, 16) && g->path->m[i].weight == m->weight)
				break;
		}
		if (i == g->n)
			return 0;
		used[i] = 1;
	}
	for (int i = 0; i < g->n; i++)
		if (!used[i] && port_up(c, g->members[i]->port))
			return 0;
	return 1;
}

/* Records whether the prefix's installed group is lent to it. */
static void lend_note(struct xfab_compile *c, struct xfab_rib_node *node, int lent)
{
	struct grp *g;

	if (node->inst_lent == !!lent)
		return;
	node->inst_lent = !!lent;
	g = node->inst_id < XFAB_MAX_GROUPS ? c->grp_by_id[node->inst_id] : NULL;
	if (lent) {
		c->n_lent++;
		if (g)
			g->lent++;
	} else {
		c->n_lent--;
		if (g && g->lent)
			g->lent--;
	}
}

/* What a prefix compiles to, holding a reference on its nexthop or group. */
static int route_target(struct xfab_compile *c, const struct xfab_rib_node *node, struct rt *rt)
{
	const struct xfab_rib_entry *e = xfab_rib_best(node);
	const struct xfab_group *hint = NULL;
	int err = 0;

	rt->table = 0;
	if (node->key.table == XFAB_RIB_TABLE_REPAIR) {
		rt->table = XFAB_TABLE_REPAIR;
	} else if (node->key.table & XFAB_RIB_TABLE_VNET) {
		rt->table = XFAB_TABLE_VNET | (node->key.table & ~XFAB_RIB_TABLE_VNET);
	} else if (node->key.table & XFAB_RIB_TABLE_TE) {
		__u32 port = node->key.table & ~XFAB_RIB_TABLE_TE;

		if (port >= (__u32)c->n_ports)
			return -EINVAL;
		rt->table = XFAB_TABLE_TE | c->live[port].ifindex;
	}
	rt->id = 0;
	rt->source = e->source < XFAB_RIB_SRC_COUNT ? rsrc_of[e->source] : 0;
	rt->protocol = e->source == XFAB_RIB_SRC_NETLINK ? e->protocol : 0;
	switch (e->type) {
	case XFAB_RIB_BLACKHOLE:
		rt->type = XFAB_RT_BLACKHOLE;
		return 0;
	case XFAB_RIB_LOCAL:
		rt->type = XFAB_RT_LOCAL;
		return 0;
	case XFAB_RIB_CONNECTED:
		if (e->port >= c->n_ports)
			return -EINVAL;
		rt->type = XFAB_RT_CONNECTED;
		rt->id = c->live[e->port].ifindex;
		return 0;
	case XFAB_RIB_TUNNEL: /* vnet_tunnels entry index + 1 (compile_base.c) */
		rt->type = XFAB_RT_TUNNEL;
		rt->id = (__u32)e->port + 1;
		return 0;
	}
	rt->lent = 0;
	if (lendable(c, node, e->path)) {
		struct grp *g = c->grp_by_id[node->inst_id];

		g->refs++;
		rt->type = XFAB_RT_GROUP;
		rt->id = g->id;
		rt->lent = 1;
		return 0;
	}
	if (e->path->n == 1 && !e->path->own) {
		const struct xfab_rib_member *m = &e->path->m[0];
		struct nh *n = xfab_nh_get(c, m->port, m->family, m->gw, &err);

		rt->type = XFAB_RT_NEXTHOP;
		rt->id = n ? n->id : 0;
		return err;
	}
	if (node->inst_type == XFAB_RT_GROUP && node->inst_id < XFAB_MAX_GROUPS &&
	    c->grp_by_id[node->inst_id])
		hint = &c->grp_by_id[node->inst_id]->val;
	{
		struct grp *g = xfab_grp_get(c, e->path, hint, &err);

		rt->type = XFAB_RT_GROUP;
		rt->id = g ? g->id : 0;
	}
	return err;
}

static void target_put(struct xfab_compile *c, __u32 type, __u32 id)
{
	if (type == XFAB_RT_NEXTHOP && id < XFAB_MAX_NEXTHOPS && c->nh_by_id[id])
		xfab_nh_put(c, c->nh_by_id[id]);
	if (type == XFAB_RT_GROUP && id < XFAB_MAX_GROUPS && c->grp_by_id[id])
		xfab_grp_put(c, c->grp_by_id[id]);
}

/* The route's FIB entries (table 0) and then its map entry. */
static int route_write(struct xfab_compile *c, const struct xfab_rib_key *k, const struct rt *rt)
{
	struct xfab_route val = {
	    .type = (__u8)rt->type, .source = rt->source, .protocol = rt->protocol, .id = rt->id};
	int err = 0;

	if (k->family == AF_INET) {
		struct xfab_lpm_v4_key key = {.prefixlen = 32u + k->plen,
					      .table = htonl(rt->table)};

		memcpy(key.addr, k->addr, 4);
		if (!rt->table && c->ops.fib4)
			err = xfab_fib_set(c->ops.fib4, k->addr, k->plen, rt->type, rt->id,
					   &c->st.fib4_written);
		return err ? err : w_update(c, XFAB_T_ROUTES_V4, &key, &val);
	} else {
		struct xfab_lpm_v6_key key = {.prefixlen = 32u + k->plen,
					      .table = htonl(rt->table)};

		memcpy(key.addr, k->addr, 16);
		if (!rt->table && c->ops.fib6)
			err = xfab_fib_set(c->ops.fib6, k->addr, k->plen, rt->type, rt->id,
					   &c->st.fib6_written);
		return err ? err : w_update(c, XFAB_T_ROUTES_V6, &key, &val);
	}
}

static int route_remove(struct xfab_compile *c, const struct xfab_rib_key *k, __u32 table)
{
	int err = 0;

	if (k->family == AF_INET) {
		struct xfab_lpm_v4_key key = {.prefixlen = 32u + k->plen, .table = htonl(table)};

		memcpy(key.addr, k->addr, 4);
		if (!table && c->ops.fib4)
			err = xfab_fib_del(c->ops.fib4, k->addr, k->plen, &c->st.fib4_written);
		return err ? err : w_remove(c, XFAB_T_ROUTES_V4, &key);
	} else {
		struct xfab_lpm_v6_key key = {.prefixlen = 32u + k->plen, .table = htonl(table)};

		memcpy(key.addr, k->addr, 16);
		if (!table && c->ops.fib6)
			err = xfab_fib_del(c->ops.fib6, k->addr, k->plen, &c->st.fib6_written);
		return err ? err : w_remove(c, XFAB_T_ROUTES_V6, &key);
	}
}

static void count_route(struct xfab_compile *c, const struct xfab_rib_key *k, int delta)
{
	if (k->family == AF_INET)
		c->routes_v4 += (size_t)delta;
	else
		c->routes_v6 += (size_t)delta;
}

/* Brings one prefix with a best entry to what it compiles to. */
static int route_sync(struct xfab_compile *c, struct xfab_rib_node *node)
{
	struct rt rt = {0};
	int err = route_target(c, node, &rt);

	if (err) {
		target_put(c, rt.type, rt.id);
		return err;
	}
	if (node->inst_type && node->inst_table == rt.table && node->inst_type == rt.type &&
	    node->inst_id == rt.id && node->inst_source == rt.source &&
	    node->inst_protocol == rt.protocol) {
		target_put(c, rt.type, rt.id); /* the reference the node holds already */
		lend_note(c, node, rt.lent);
		return 0;
	}
	err = route_write(c, &node->key, &rt);
	if (err) {
		target_put(c, rt.type, rt.id);
		return err;
	}
	if (node->inst_type) {
		if (node->inst_table != rt.table)
			err = route_remove(c, &node->key, node->inst_table);
		lend_note(c, node, 0);
		target_put(c, node->inst_type, node->inst_id);
	} else {
		count_route(c, &node->key, 1);
	}
	node->inst_table = rt.table;
	node->inst_type = (__u8)rt.type;
	node->inst_id = rt.id;
	node->inst_source = rt.source;
	node->inst_protocol = rt.protocol;
	lend_note(c, node, rt.lent);
	return err;
}

static int route_unsync(struct xfab_compile *c, struct xfab_rib_node *node)
{
	int err;

	if (!node->inst_type)
		return 0;
	err = route_remove(c, &node->key, node->inst_table);
	if (err)
		return err;
	lend_note(c, node, 0);
	target_put(c, node->inst_type, node->inst_id);
	count_route(c, &node->key, -1);
	node->inst_type = 0;
	return 0;
}

static int flush_routes(struct xfab_compile *c)
{
	int err = w_flush(c, XFAB_T_ROUTES_V4);

	return err ? err : w_flush(c, XFAB_T_ROUTES_V6);
}

int xfab_compile_dirty(struct xfab_compile *c)
{
	struct xfab_rib_node **nodes;
	struct xfab_rib_path **paths;
	size_t n, i, n_paths = xfab_rib_take_paths(c->rib, &paths);
	int err = 0, e;

	/* own paths with new members: their groups, before any route */
	for (i = 0; i < n_paths; i++) {
		struct grp *g = paths[i]->compiled;

		if (g && (e = xfab_grp_rebind(c, g)) && !err)
			err = e;
		xfab_rib_path_put(c->rib, paths[i]);
	}
	free(paths);
	if ((e = w_flush(c, XFAB_T_GROUPS)) && !err)
		err = e;
	n = xfab_rib_take_dirty(c->rib, &nodes);

	/* new and changed prefixes first, so a prefix that moves never
	 * falls through to a shorter one */
	for (i = 0; i < n && !err; i++)
		if (nodes[i]->entries)
			err = route_sync(c, nodes[i]);
	if (!err)
		err = flush_routes(c);
	for (i = 0; i < n && !err; i++)
		if (!nodes[i]->entries)
			err = route_unsync(c, nodes[i]);
	if ((e = flush_routes(c)) && !err)
		err = e;
	if (err) {
		/* what is not done yet stays dirty, for the next event */
		for (size_t j = 0; j < n; j++)
			xfab_rib_mark_dirty(c->rib, nodes[j]);
	} else {
		for (i = 0; i < n; i++)
			xfab_rib_node_gc(c->rib, nodes[i]);
	}
	free(nodes);
	if ((e = xfab_compile_free_pending(c)) && !err)
		err = e;
	return err;
}

int xfab_compile_routes(struct xfab_compile *c)
{
	memset(&c->st, 0, sizeof(c->st));
	return xfab_compile_dirty(c);
}
