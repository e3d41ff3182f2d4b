// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Groups: one per interned path of two or more members, their buckets,
 * and the objects that lost their last user, freed after the routes. */
#include "compile_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
int xfab_grp_refresh(struct xfab_compile *c, struct grp *g)
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
struct grp *xfab_grp_get(struct xfab_compile *c, struct xfab_rib_path *path,
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
		g->members[k] =
		    xfab_nh_get(c, path->m[k].port, path->m[k].family, path->m[k].gw, err);
		if (!g->members[k])
			goto undo;
	}
	g->id = xfab_id_alloc((void **)c->grp_by_id, XFAB_MAX_GROUPS, &c->grp_next);
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
		xfab_nh_put(c, g->members[k]);
	free(g);
	return NULL;
}

void xfab_grp_put(struct xfab_compile *c, struct grp *g)
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
		xfab_nh_put(c, g->members[i]);
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
int xfab_grp_rebind(struct xfab_compile *c, struct grp *g)
{
	const struct xfab_rib_path *p = g->path;
	struct nh *nm[XFAB_GROUP_MAX_MEMBERS] = {0}, *old[XFAB_GROUP_MAX_MEMBERS] = {0};
	int n_old = g->n, k, err = 0;
	struct xfab_group v;

	for (k = 0; k < p->n; k++) {
		nm[k] = xfab_nh_get(c, p->m[k].port, p->m[k].family, p->m[k].gw, &err);
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
		xfab_nh_put(c, old[i]);
	return err;
undo:
	while (k--)
		xfab_nh_put(c, nm[k]);
	return err;
}

/* Removes the objects that lost their last user: groups (which may drop
 * nexthops) first, after every route that used them. */
int xfab_compile_free_pending(struct xfab_compile *c)
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
		if (!n->refs && (e = xfab_nh_free(c, n)) && !err)
			err = e;
	}
	c->n_pend_nh = 0;
	if ((e = w_flush(c, XFAB_T_NEXTHOPS)) && !err)
		err = e;
	return err;
}
