// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "compile.h"

#include "compile_base.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NH_BUCKETS 1024

struct grp;

/* A nexthop: (port, family, gateway), shared by every route and group
 * through it. */
struct nh {
	__u32 id, refs;
	int port, family;
	__u8 gw[16];
	struct xfab_nexthop val; /* as written */
	struct grp **groups;	 /* groups with this member */
	int n_groups, cap_groups;
	struct nh *hnext, *port_next;
	int pending; /* on the list of objects to free if still unused */
};

/* A group: one per interned path of two or more members. */
struct grp {
	__u32 id, refs;
	struct xfab_rib_path *path;		    /* a reference */
	int n;					    /* members (an own path's can change) */
	struct nh *members[XFAB_GROUP_MAX_MEMBERS]; /* path order */
	struct xfab_group val;			    /* as written */
	__u32 epoch;
	__u32 lent; /* routes installed on it whose path is another (lendable()) */
	int pending;
};

struct xfab_compile {
	struct xfab_rib *rib;
	struct xfab_map_ops ops;
	xfab_neigh_fn neigh;
	void *neigh_arg;
	/* what compilation needs of the config, copied */
	int n_ports;
	int admin_up[XFAB_MAX_PORTS];
	int resilient;
	struct xfab_cfg_neigh *neighs;
	int n_neighs;
	struct xfab_port_live live[XFAB_MAX_PORTS];
	struct xfab_base base; /* base tables as written */
	struct nh *nh_by_id[XFAB_MAX_NEXTHOPS];
	struct grp *grp_by_id[XFAB_MAX_GROUPS];
	__u32 nh_next, grp_next; /* round-robin id allocation */
	struct nh *nh_hash[NH_BUCKETS];
	struct nh *port_nhs[XFAB_MAX_PORTS];
	struct nh **pend_nh;
	struct grp **pend_grp;
	size_t n_pend_nh, cap_pend_nh, n_pend_grp, cap_pend_grp;
	size_t n_nh, n_grp, routes_v4, routes_v6;
	__u32 epoch;
	size_t n_lent; /* routes on a lent group */
	struct xfab_compile_stats st;
};

/* ---- writes, counted ---- */

static int w_update(struct xfab_compile *c, enum xfab_table t, const void *key, const void *val)
{
	c->st.updates[t]++;
	return c->ops.update(c->ops.arg, t, key, val);
}

static int w_remove(struct xfab_compile *c, enum xfab_table t, const void *key)
{
	c->st.removes[t]++;
	return c->ops.remove(c->ops.arg, t, key);
}

static int w_flush(struct xfab_compile *c, enum xfab_table t)
{
	return c->ops.flush ? c->ops.flush(c->ops.arg, t) : 0;
}

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

static int port_up(const struct xfab_compile *c, int port)
{
	return port < c->n_ports && c->live[port].oper_up && c->admin_up[port];
}

/* ---- nexthops ---- */

static size_t nh_bucket(int port, int family, const __u8 *gw)
{
	__u64 h = (__u64)port * 0x9e3779b97f4a7c15ull ^ (__u64)family;

	for (int i = 0; i < 16; i++)
		h = (h ^ gw[i]) * 0x100000001b3ull;
	return (size_t)(h ^ h >> 29) & (NH_BUCKETS - 1);
}

static struct nh *nh_find(const struct xfab_compile *c, int port, int family, const __u8 *gw)
{
	struct nh *n = c->nh_hash[nh_bucket(port, family, gw)];

	while (n && !(n->port == port && n->family == family && !memcmp(n->gw, gw, 16)))
		n = n->hnext;
	return n;
}

static void nh_value(const struct xfab_compile *c, const struct nh *n, struct xfab_nexthop *v)
{
	const struct xfab_port_live *pl = &c->live[n->port];
	int alen = n->family == AF_INET ? 4 : 16;

	memset(v, 0, sizeof(*v));
	v->ifindex = pl->ifindex;
	v->flags = XFAB_NH_VALID | (n->family == AF_INET6 ? XFAB_NH_IPV6 : 0);
	memcpy(v->gw, n->gw, 16);
	/* configured neighbours resolve nexthops even before they reach the map */
	for (int i = 0; i < c->n_neighs; i++) {
		const struct xfab_cfg_neigh *s = &c->neighs[i];

		if (s->port == n->port && s->family == n->family && !memcmp(s->addr, n->gw, alen)) {
			memcpy(v->dmac, s->mac, 6);
			v->flags |= XFAB_NH_RESOLVED;
			return;
		}
	}
	if (c->neigh && c->neigh(c->neigh_arg, pl->ifindex, n->family, n->gw, v->dmac) == 0)
		v->flags |= XFAB_NH_RESOLVED;
	else
		memset(v->dmac, 0, 6);
}

/* Writes the nexthop if its value changed. */
static int nh_refresh(struct xfab_compile *c, struct nh *n)
{
	struct xfab_nexthop v;
	int err;

	nh_value(c, n, &v);
	if (!memcmp(&v, &n->val, sizeof(v)))
		return 0;
	err = w_update(c, XFAB_T_NEXTHOPS, &n->id, &v);
	if (!err)
		n->val = v;
	return err;
}

static __u32 id_alloc(void **by_id, __u32 max, __u32 *next)
{
	for (__u32 k = 1; k < max; k++) {
		__u32 id = *next;

		*next = *next + 1 >= max ? 1 : *next + 1;
		if (!by_id[id])
			return id;
	}
	return 0;
}

/* The nexthop (port, family, gw) with a reference for the caller; made
 * and written if new. NULL: -ENOSPC (no id) or the write's error in *err. */
static struct nh *nh_get(struct xfab_compile *c, int port, int family, const __u8 *gw, int *err)
{
	struct nh *n = nh_find(c, port, family, gw);
	size_t b;

	if (n) {
		n->refs++;
		return n;
	}
	if (port < 0 || port >= c->n_ports) {
		*err = -EINVAL;
		return NULL;
	}
	n = calloc(1, sizeof(*n));
	if (!n) {
		*err = -ENOMEM;
		return NULL;
	}
	n->id = id_alloc((void **)c->nh_by_id, XFAB_MAX_NEXTHOPS, &c->nh_next);
	if (!n->id) {
		free(n);
		*err = -ENOSPC;
		return NULL;
	}
	n->port = port;
	n->family = family;
	memcpy(n->gw, gw, 16);
	nh_value(c, n, &n->val);
	*err = w_update(c, XFAB_T_NEXTHOPS, &n->id, &n->val);
	if (*err) {
		free(n);
		return NULL;
	}
	n->refs = 1;
	c->nh_by_id[n->id] = n;
	b = nh_bucket(port, family, gw);
	n->hnext = c->nh_hash[b];
	c->nh_hash[b] = n;
	n->port_next = c->port_nhs[port];
	c->port_nhs[port] = n;
	c->n_nh++;
	return n;
}

static void nh_put(struct xfab_compile *c, struct nh *n)
{
	if (--n->refs || n->pending)
		return;
	if (c->n_pend_nh == c->cap_pend_nh) {
		size_t ncap = c->cap_pend_nh ? c->cap_pend_nh * 2 : 64;
		/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
		struct nh **p = realloc(c->pend_nh, ncap * sizeof(*p));

		if (!p)
			return; /* stays in place, unused: a later config refresh keeps it */
		c->pend_nh = p;
		c->cap_pend_nh = ncap;
	}
	n->pending = 1;
	c->pend_nh[c->n_pend_nh++] = n;
}

static int nh_free(struct xfab_compile *c, struct nh *n)
{
	struct nh **pp;
	int err = w_remove(c, XFAB_T_NEXTHOPS, &n->id);

	for (pp = &c->nh_hash[nh_bucket(n->port, n->family, n->gw)]; *pp; pp = &(*pp)->hnext)
		if (*pp == n) {
			*pp = n->hnext;
			break;
		}
	for (pp = &c->port_nhs[n->port]; *pp; pp = &(*pp)->port_next)
		if (*pp == n) {
			*pp = n->port_next;
			break;
		}
	c->nh_by_id[n->id] = NULL;
	c->n_nh--;
	free(n->groups);
	free(n);
	return err;
}

/* ---- groups ---- */

/* Bucket shares by weight over the live members (largest remainder). */
static void bucket_targets(const struct xfab_group *grp, const int *live, int *target)
{
	__u32 sum = 0, assigned = 0, rem[XFAB_GROUP_MAX_MEMBERS];
	int n = grp->num_members;

	for (int m = 0; m < n; m++)
		sum += live[m] ? grp->weights[m] : 0;
	for (int m = 0; m < n; m++) {
		__u32 share = live[m] && sum ? (__u32)XFAB_GROUP_BUCKETS * grp->weights[m] : 0;

		target[m] = sum ? (int)(share / sum) : 0;
		rem[m] = sum ? share % sum : 0;
		assigned += (__u32)target[m];
	}
	while (sum && assigned < XFAB_GROUP_BUCKETS) {
		int best = -1;

		for (int m = 0; m < n; m++)
			if (live[m] && (best < 0 || rem[m] > rem[best]))
				best = m;
		if (best < 0) /* cannot happen: sum > 0 needs a live member */
			break;
		target[best]++;
		rem[best] = 0;
		assigned++;
	}
}

void xfab_group_fill_buckets(struct xfab_group *grp, const struct xfab_group *prev, const int *live)
{
	int target[XFAB_GROUP_MAX_MEMBERS], count[XFAB_GROUP_MAX_MEMBERS] = {0};
	int free_b[XFAB_GROUP_BUCKETS] = {0}, n_free = 0, n_live = 0;
	int n = grp->num_members;

	for (int m = 0; m < n; m++)
		n_live += !!live[m];
	grp->live_members = (__u16)n_live;
	bucket_targets(grp, live, target);
	/* Resilient: a bucket stays with its member while that member is live
	 * and within its share; only the rest is handed out again. */
	for (int b = 0; b < XFAB_GROUP_BUCKETS; b++) {
		int keep = -1;

		if (prev && (grp->flags & XFAB_GROUP_RESILIENT)) {
			for (int m = 0; m < n; m++)
				if (grp->members[m] == prev->buckets[b])
					keep = m;
		}
		if (keep >= 0 && live[keep] && count[keep] < target[keep]) {
			grp->buckets[b] = prev->buckets[b];
			count[keep]++;
		} else {
			free_b[n_free++] = b;
		}
	}
	/* Each free bucket goes to the member furthest below its share, which
	 * interleaves members on a fresh fill. */
	for (int i = 0; i < n_free; i++) {
		int best = -1;

		for (int m = 0; m < n; m++)
			if (live[m] && count[m] < target[m] &&
			    (best < 0 || target[m] - count[m] > target[best] - count[best]))
				best = m;
		grp->buckets[free_b[i]] = best < 0 ? 0 : (__u16)grp->members[best];
		if (best >= 0)
			count[best]++;
	}
}

struct member {
	__u32 nh_id;
	__u16 weight;
	int live;
};

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	return x->nh_id < y->nh_id ? -1 : x->nh_id > y->nh_id;
}

/* A group's value from its members (by nexthop id) and their ports' state;
 * prev: the table to keep buckets of (resilient), or NULL. */
static void grp_value(const struct xfab_compile *c, const struct grp *g,
		      const struct xfab_group *prev, struct xfab_group *v)
{
	struct member mem[XFAB_GROUP_MAX_MEMBERS] = {0};
	int live[XFAB_GROUP_MAX_MEMBERS], n = g->n;

	for (int i = 0; i < n; i++) {
		mem[i].nh_id = g->members[i]->id;
		mem[i].weight = g->path->m[i].weight;
		mem[i].live = port_up(c, g->members[i]->port);
	}
	qsort(mem, (size_t)n, sizeof(*mem), cmp_member);
	memset(v, 0, sizeof(*v));
	v->mode = XFAB_GROUP_HASH;
	v->flags = c->resilient ? XFAB_GROUP_RESILIENT : 0;
	v->num_members = (__u16)n;
	for (int i = 0; i < n; i++) {
		v->members[i] = mem[i].nh_id;
		v->weights[i] = mem[i].weight;
		live[i] = mem[i].live;
	}
	xfab_group_fill_buckets(v, prev, live);
}

/* Refills a group from its current table; writes it if it changed. */
static int grp_refresh(struct xfab_compile *c, struct grp *g)
{
	struct xfab_group v;
	int err;

	grp_value(c, g, &g->val, &v);
	if (!memcmp(&v, &g->val, sizeof(v)))
		return 0;
	err = w_update(c, XFAB_T_GROUPS, &g->id, &v);
	if (!err)
		g->val = v;
	return err;
}

static int nh_add_group(struct nh *n, struct grp *g)
{
	if (n->n_groups == n->cap_groups) {
		int ncap = n->cap_groups ? n->cap_groups * 2 : 4;
		/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
		struct grp **p = realloc(n->groups, (size_t)ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		n->groups = p;
		n->cap_groups = ncap;
	}
	n->groups[n->n_groups++] = g;
	return 0;
}

static void nh_del_group(struct nh *n, const struct grp *g)
{
	for (int i = 0; i < n->n_groups; i++)
		if (n->groups[i] == g) {
			n->groups[i] = n->groups[--n->n_groups];
			return;
		}
}

/* The group of path with a reference for the caller; made and written if
 * new, its buckets starting from hint (the group the route used before,
 * so the members that stay keep their buckets). */
static struct grp *grp_get(struct xfab_compile *c, struct xfab_rib_path *path,
			   const struct xfab_group *hint, int *err)
{
	struct grp *g = path->compiled;
	int k = 0;

	if (g) {
		g->refs++;
		return g;
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		*err = -ENOMEM;
		return NULL;
	}
	g->path = path;
	g->n = path->n;
	for (k = 0; k < path->n; k++) {
		g->members[k] = nh_get(c, path->m[k].port, path->m[k].family, path->m[k].gw, err);
		if (!g->members[k])
			goto undo;
	}
	g->id = id_alloc((void **)c->grp_by_id, XFAB_MAX_GROUPS, &c->grp_next);
	if (!g->id) {
		*err = -ENOSPC;
		goto undo;
	}
	grp_value(c, g, hint, &g->val);
	*err = w_update(c, XFAB_T_GROUPS, &g->id, &g->val);
	if (*err)
		goto undo;
	for (int i = 0; i < path->n; i++)
		if (nh_add_group(g->members[i], g)) {
			for (int j = 0; j < i; j++)
				nh_del_group(g->members[j], g);
			*err = -ENOMEM;
			w_remove(c, XFAB_T_GROUPS, &g->id);
			goto undo;
		}
	g->refs = 1;
	xfab_rib_path_get(path);
	path->compiled = g;
	c->grp_by_id[g->id] = g;
	c->n_grp++;
	return g;
undo:
	while (k--)
		nh_put(c, g->members[k]);
	free(g);
	return NULL;
}

static void grp_put(struct xfab_compile *c, struct grp *g)
{
	if (--g->refs || g->pending)
		return;
	if (c->n_pend_grp == c->cap_pend_grp) {
		size_t ncap = c->cap_pend_grp ? c->cap_pend_grp * 2 : 64;
		/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
		struct grp **p = realloc(c->pend_grp, ncap * sizeof(*p));

		if (!p)
			return;
		c->pend_grp = p;
		c->cap_pend_grp = ncap;
	}
	g->pending = 1;
	c->pend_grp[c->n_pend_grp++] = g;
}

static int grp_free(struct xfab_compile *c, struct grp *g)
{
	int err = w_remove(c, XFAB_T_GROUPS, &g->id);

	for (int i = 0; i < g->n; i++) {
		nh_del_group(g->members[i], g);
		nh_put(c, g->members[i]);
	}
	g->path->compiled = NULL;
	xfab_rib_path_put(c->rib, g->path);
	c->grp_by_id[g->id] = NULL;
	c->n_grp--;
	free(g);
	return err;
}

/* An own path's members changed (a kernel group): the group takes the new
 * members and is rewritten from its previous table (resilient: members
 * that stay keep their buckets); the routes through it do not change. The
 * members it lost are removed with the other unused objects, after. */
static int grp_rebind(struct xfab_compile *c, struct grp *g)
{
	const struct xfab_rib_path *p = g->path;
	struct nh *nm[XFAB_GROUP_MAX_MEMBERS] = {0}, *old[XFAB_GROUP_MAX_MEMBERS] = {0};
	int n_old = g->n, k, err = 0;
	struct xfab_group v;

	for (k = 0; k < p->n; k++) {
		nm[k] = nh_get(c, p->m[k].port, p->m[k].family, p->m[k].gw, &err);
		if (!nm[k])
			goto undo;
	}
	for (k = 0; k < p->n; k++)
		if (nh_add_group(nm[k], g)) {
			while (k--)
				nh_del_group(nm[k], g);
			k = p->n;
			err = -ENOMEM;
			goto undo;
		}
	for (int i = 0; i < n_old; i++) {
		old[i] = g->members[i];
		nh_del_group(old[i], g);
	}
	for (k = 0; k < p->n; k++)
		g->members[k] = nm[k];
	g->n = p->n;
	grp_value(c, g, &g->val, &v);
	if (memcmp(&v, &g->val, sizeof(v))) {
		err = w_update(c, XFAB_T_GROUPS, &g->id, &v);
		if (!err)
			g->val = v;
	}
	for (int i = 0; i < n_old; i++)
		nh_put(c, old[i]);
	return err;
undo:
	while (k--)
		nh_put(c, nm[k]);
	return err;
}

/* Removes the objects that lost their last user: groups (which may drop
 * nexthops) first, after every route that used them. */
static int free_pending(struct xfab_compile *c)
{
	int err = 0, e;

	for (size_t i = 0; i < c->n_pend_grp; i++) {
		struct grp *g = c->pend_grp[i];

		g->pending = 0;
		if (!g->refs && (e = grp_free(c, g)) && !err)
			err = e;
	}
	c->n_pend_grp = 0;
	if ((e = w_flush(c, XFAB_T_GROUPS)) && !err)
		err = e;
	for (size_t i = 0; i < c->n_pend_nh; i++) {
		struct nh *n = c->pend_nh[i];

		n->pending = 0;
		if (!n->refs && (e = nh_free(c, n)) && !err)
			err = e;
	}
	c->n_pend_nh = 0;
	if ((e = w_flush(c, XFAB_T_NEXTHOPS)) && !err)
		err = e;
	return err;
}

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
		struct nh *n = nh_get(c, m->port, m->family, m->gw, &err);

		rt->type = XFAB_RT_NEXTHOP;
		rt->id = n ? n->id : 0;
		return err;
	}
	if (node->inst_type == XFAB_RT_GROUP && node->inst_id < XFAB_MAX_GROUPS &&
	    c->grp_by_id[node->inst_id])
		hint = &c->grp_by_id[node->inst_id]->val;
	{
		struct grp *g = grp_get(c, e->path, hint, &err);

		rt->type = XFAB_RT_GROUP;
		rt->id = g ? g->id : 0;
	}
	return err;
}

static void target_put(struct xfab_compile *c, __u32 type, __u32 id)
{
	if (type == XFAB_RT_NEXTHOP && id < XFAB_MAX_NEXTHOPS && c->nh_by_id[id])
		nh_put(c, c->nh_by_id[id]);
	if (type == XFAB_RT_GROUP && id < XFAB_MAX_GROUPS && c->grp_by_id[id])
		grp_put(c, c->grp_by_id[id]);
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

static int compile_dirty(struct xfab_compile *c)
{
	struct xfab_rib_node **nodes;
	struct xfab_rib_path **paths;
	size_t n, i, n_paths = xfab_rib_take_paths(c->rib, &paths);
	int err = 0, e;

	/* own paths with new members: their groups, before any route */
	for (i = 0; i < n_paths; i++) {
		struct grp *g = paths[i]->compiled;

		if (g && (e = grp_rebind(c, g)) && !err)
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
	if ((e = free_pending(c)) && !err)
		err = e;
	return err;
}

int xfab_compile_routes(struct xfab_compile *c)
{
	memset(&c->st, 0, sizeof(c->st));
	return compile_dirty(c);
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
	return u.err ? u.err : compile_dirty(c);
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
			err = nh_refresh(c, c->nh_by_id[id]);
	for (__u32 id = 1; id < XFAB_MAX_GROUPS && !err; id++)
		if (c->grp_by_id[id])
			err = grp_refresh(c, c->grp_by_id[id]);
	if (err)
		return err;
	/* a port that came back with another ifindex moves its connected
	 * routes and its TE table: rare enough to look at every prefix */
	if (moved)
		xfab_rib_mark_all_dirty(c->rib);
	return compile_dirty(c);
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
			err = grp_refresh(c, g);
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
		n = nh_find(c, p, family, gw);
		return n ? nh_refresh(c, n) : 0;
	}
	return 0;
}
