// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The kernel FIB's mirror in the RIB (nlroute.h, struct xfab_nlsync): the
 * routes and nexthop objects held, applied from decoded changes (the
 * decoding is nlroute.c). */
#include "nlroute.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

/* ---- the mirror ---- */

enum {
	R_NONE,	      /* not in the RIB: no usable nexthop */
	R_RIB,	      /* in the RIB */
	R_FOREIGN,    /* not in the RIB: no nexthop on a switch port */
	R_UNRESOLVED, /* not in the RIB: its nexthop object is unknown */
	R_STATES,
};

struct nho;

/* A route held. */
struct nlr {
	struct nlr *hnext;
	struct nlr *unext, **uprev; /* among its object's users */
	struct xfab_rib_key key;
	__u32 nh_id, priority;
	__u32 gen; /* the resync that last saw it */
	__u8 protocol, state;
};

/* A nexthop object (or a placeholder for an id routes name before it is
 * known). */
struct nho {
	struct nho *hnext;
	int known;
	__u32 gen; /* the resync that last saw it */
	struct xfab_nl_nexthop v;
	struct xfab_rib_path *path; /* a group with a switch member: its own path */
	struct nlr *users;	    /* routes with RTA_NH_ID == v.id */
};

#define NHO_BUCKETS 1024

struct xfab_nlsync {
	struct xfab_rib *rib;
	xfab_nl_port_fn port_of;
	void *arg;
	struct nlr **rt;
	size_t n_rt_buckets, n_rt;
	struct nho *nho[NHO_BUCKETS];
	size_t n_nho;
	size_t n_state[R_STATES];
	__u32 gen; /* bumped by xfab_nlsync_mark */
	struct xfab_nlsync_stats st;
	struct xfab_pool rt_pool; /* the routes held */
};

static size_t key_hash(const struct xfab_rib_key *k)
{
	__u64 h = 0xcbf29ce484222325ull ^ k->family ^ (__u64)k->plen << 8;
	int alen = k->family == AF_INET ? 4 : 16;

	for (int i = 0; i < alen; i++)
		h = (h ^ k->addr[i]) * 0x100000001b3ull;
	h ^= h >> 31;
	h *= 0x9e3779b97f4a7c15ull;
	return (size_t)(h ^ h >> 29);
}

struct xfab_nlsync *xfab_nlsync_new(struct xfab_rib *rib, xfab_nl_port_fn port_of, void *arg)
{
	struct xfab_nlsync *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->rib = rib;
	s->port_of = port_of;
	s->arg = arg;
	xfab_pool_init(&s->rt_pool, sizeof(struct nlr));
	s->n_rt_buckets = 4096;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	s->rt = xfab_big_zalloc(s->n_rt_buckets * sizeof(*s->rt));
	if (!s->rt) {
		free(s);
		return NULL;
	}
	s->n_state[R_NONE] = 0;
	return s;
}

void xfab_nlsync_free(struct xfab_nlsync *s)
{
	if (!s)
		return;
	/* the routes, all at once */
	xfab_pool_destroy(&s->rt_pool);
	for (size_t b = 0; b < NHO_BUCKETS; b++)
		while (s->nho[b]) {
			struct nho *o = s->nho[b];

			s->nho[b] = o->hnext;
			if (o->path)
				xfab_rib_path_put(s->rib, o->path);
			free(o);
		}
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	xfab_big_free(s->rt, s->n_rt_buckets * sizeof(*s->rt));
	free(s);
}

void xfab_nlsync_stats(const struct xfab_nlsync *s, struct xfab_nlsync_stats *out)
{
	*out = s->st;
	out->routes = s->n_rt;
	out->nexthops = 0;
	for (size_t b = 0; b < NHO_BUCKETS; b++)
		for (const struct nho *o = s->nho[b]; o; o = o->hnext)
			out->nexthops += !!o->known;
	out->foreign = s->n_state[R_FOREIGN];
	out->unresolved = s->n_state[R_UNRESOLVED];
}

/* -- objects -- */

static struct nho *nho_find(const struct xfab_nlsync *s, __u32 id)
{
	struct nho *o = s->nho[id % NHO_BUCKETS];

	while (o && o->v.id != id)
		o = o->hnext;
	return o;
}

static struct nho *nho_get(struct xfab_nlsync *s, __u32 id)
{
	struct nho *o = nho_find(s, id);

	if (o)
		return o;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->v.id = id;
	o->hnext = s->nho[id % NHO_BUCKETS];
	s->nho[id % NHO_BUCKETS] = o;
	s->n_nho++;
	return o;
}

/* Frees an object that is neither known nor used. */
static void nho_gc(struct xfab_nlsync *s, struct nho *o)
{
	struct nho **pp;

	if (o->known || o->users)
		return;
	for (pp = &s->nho[o->v.id % NHO_BUCKETS]; *pp; pp = &(*pp)->hnext)
		if (*pp == o) {
			*pp = o->hnext;
			break;
		}
	if (o->path)
		xfab_rib_path_put(s->rib, o->path);
	s->n_nho--;
	free(o);
}

/* -- routes -- */

static struct nlr *nlr_find(const struct xfab_nlsync *s, const struct xfab_rib_key *k)
{
	struct nlr *r = s->rt[key_hash(k) & (s->n_rt_buckets - 1)];

	while (r && memcmp(&r->key, k, sizeof(*k)))
		r = r->hnext;
	return r;
}

static void rt_grow(struct xfab_nlsync *s)
{
	size_t nb = s->n_rt_buckets * 2;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	struct nlr **b = xfab_big_zalloc(nb * sizeof(*b));

	if (!b)
		return; /* longer chains */
	for (size_t i = 0; i < s->n_rt_buckets; i++)
		while (s->rt[i]) {
			struct nlr *r = s->rt[i];
			size_t h = key_hash(&r->key) & (nb - 1);

			s->rt[i] = r->hnext;
			r->hnext = b[h];
			b[h] = r;
		}
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	xfab_big_free(s->rt, s->n_rt_buckets * sizeof(*s->rt));
	s->rt = b;
	s->n_rt_buckets = nb;
}

static void users_unlink(struct xfab_nlsync *s, struct nlr *r)
{
	struct nho *o;

	if (!r->uprev)
		return;
	*r->uprev = r->unext;
	if (r->unext)
		r->unext->uprev = r->uprev;
	r->unext = NULL;
	r->uprev = NULL;
	o = nho_find(s, r->nh_id);
	if (o)
		nho_gc(s, o);
}

static void users_link(struct nho *o, struct nlr *r)
{
	r->unext = o->users;
	if (o->users)
		o->users->uprev = &r->unext;
	o->users = r;
	r->uprev = &o->users;
}

static void set_state(struct xfab_nlsync *s, struct nlr *r, int state)
{
	s->n_state[r->state]--;
	s->n_state[state]++;
	r->state = (__u8)state;
}

/* Forgets a route (the RIB entry goes with it). */
static void nlr_drop(struct xfab_nlsync *s, struct nlr *r)
{
	struct nlr **pp;

	xfab_rib_del(s->rib, &r->key, XFAB_RIB_SRC_NETLINK);
	users_unlink(s, r);
	for (pp = &s->rt[key_hash(&r->key) & (s->n_rt_buckets - 1)]; *pp; pp = &(*pp)->hnext)
		if (*pp == r) {
			*pp = r->hnext;
			break;
		}
	s->n_state[r->state]--;
	s->n_rt--;
	xfab_pool_free(&s->rt_pool, r);
}

/* -- resolution -- */

/* Adds (port, gw) to m[*n], a duplicate adding its weight. */
static void member_add(struct xfab_rib_member *m, int *n, int port, int family, const __u8 *gw,
		       __u32 weight)
{
	int alen = family == AF_INET ? 4 : 16;

	for (int i = 0; i < *n; i++)
		if (m[i].port == port && m[i].family == family &&
		    !memcmp(m[i].gw, gw, (size_t)alen)) {
			__u32 w = m[i].weight + weight;

			m[i].weight = (__u16)(w > 65535 ? 65535 : w);
			return;
		}
	memset(&m[*n], 0, sizeof(m[0]));
	m[*n].port = (__u16)port;
	m[*n].family = (__u8)family;
	m[*n].weight = (__u16)weight;
	memcpy(m[*n].gw, gw, (size_t)alen);
	(*n)++;
}

/* A group's members on switch ports. */
static int group_members(struct xfab_nlsync *s, const struct nho *g, struct xfab_rib_member *m)
{
	int n = 0;

	for (int i = 0; i < g->v.n_members; i++) {
		const struct nho *o = nho_find(s, g->v.members[i].id);
		int port;

		if (!o || !o->known || o->v.n_members || o->v.blackhole || !o->v.gw_family ||
		    (port = s->port_of(s->arg, o->v.ifindex)) < 0) {
			s->st.hops_dropped++;
			continue;
		}
		member_add(m, &n, port, o->v.gw_family, o->v.gw, g->v.members[i].weight);
	}
	return n;
}

/* Brings a group's own path to its members; 1 if the routes through it
 * must be looked at again (the path came or went). */
static int group_sync(struct xfab_nlsync *s, struct nho *g, int *err)
{
	struct xfab_rib_member m[XFAB_NL_MAX_HOPS];
	int n = g->known && g->v.n_members ? group_members(s, g, m) : 0;

	*err = 0;
	if (n && g->path) {
		*err = xfab_rib_path_set(s->rib, g->path, m, n);
		return 0;
	}
	if (n) {
		g->path = xfab_rib_path_new(s->rib, m, n);
		if (!g->path)
			*err = -ENOMEM;
		return 1;
	}
	if (g->path) {
		xfab_rib_path_put(s->rib, g->path);
		g->path = NULL;
		return 1;
	}
	return 0;
}

/* After r's RIB entry was set (err 0) or refused: its state, and the
 * protocol the entry shows. */
static int in_rib(struct xfab_nlsync *s, struct nlr *r, int err)
{
	if (!err)
		err = xfab_rib_set_protocol(s->rib, &r->key, XFAB_RIB_SRC_NETLINK, r->protocol);
	if (err) {
		xfab_rib_del(s->rib, &r->key, XFAB_RIB_SRC_NETLINK);
		set_state(s, r, R_NONE);
		return err;
	}
	set_state(s, r, R_RIB);
	return 0;
}

/* Sets the RIB entry of r from hops (a route's expanded nexthops, or the
 * one of a nexthop object). */
static int apply_hops(struct xfab_nlsync *s, struct nlr *r, const struct xfab_nl_hop *hops,
		      int n_hops)
{
	struct xfab_rib_member m[XFAB_NL_MAX_HOPS];
	int n = 0, err;

	if (n_hops == 1 && !hops[0].gw_family) {
		/* a direct route: the prefix is on that port */
		int port = s->port_of(s->arg, hops[0].ifindex);

		if (port < 0) {
			xfab_rib_del(s->rib, &r->key, XFAB_RIB_SRC_NETLINK);
			set_state(s, r, R_FOREIGN);
			return 0;
		}
		err = xfab_rib_add(s->rib, &r->key, XFAB_RIB_SRC_NETLINK, XFAB_RIB_CONNECTED, port,
				   NULL, 0);
		goto out;
	}
	for (int i = 0; i < n_hops; i++) {
		int port = hops[i].gw_family ? s->port_of(s->arg, hops[i].ifindex) : -1;

		if (port < 0) {
			s->st.hops_dropped++;
			continue;
		}
		member_add(m, &n, port, hops[i].gw_family, hops[i].gw, hops[i].weight);
	}
	if (!n) {
		xfab_rib_del(s->rib, &r->key, XFAB_RIB_SRC_NETLINK);
		set_state(s, r, n_hops ? R_FOREIGN : R_NONE);
		return 0;
	}
	err = xfab_rib_add(s->rib, &r->key, XFAB_RIB_SRC_NETLINK, XFAB_RIB_PATH, 0, m, n);
out:
	return in_rib(s, r, err);
}

/* Sets r's RIB entry from its object (msg: the route message, whose
 * expanded nexthops stand in while the object is unknown; NULL when an
 * object changed). */
static int route_resolve(struct xfab_nlsync *s, struct nlr *r, const struct xfab_nl_route *msg)
{
	const struct nho *o;
	int err;

	if (!r->nh_id) {
		if (!msg) { /* cannot happen: only users of an object are looked at again */
			xfab_rib_del(s->rib, &r->key, XFAB_RIB_SRC_NETLINK);
			set_state(s, r, R_NONE);
			return 0;
		}
		if (msg->blackhole)
			goto blackhole;
		return apply_hops(s, r, msg->hops, msg->n_hops);
	}
	o = nho_find(s, r->nh_id);
	if (!o || !o->known) {
		if (msg && msg->n_hops)
			return apply_hops(s, r, msg->hops, msg->n_hops);
		if (msg && msg->blackhole)
			goto blackhole;
		xfab_rib_del(s->rib, &r->key, XFAB_RIB_SRC_NETLINK);
		set_state(s, r, R_UNRESOLVED);
		return 0;
	}
	if (o->v.blackhole)
		goto blackhole;
	if (o->v.n_members) {
		if (!o->path) {
			xfab_rib_del(s->rib, &r->key, XFAB_RIB_SRC_NETLINK);
			set_state(s, r, R_FOREIGN);
			return 0;
		}
		err = xfab_rib_add_path(s->rib, &r->key, XFAB_RIB_SRC_NETLINK, o->path);
	} else {
		struct xfab_nl_hop h = {
		    .ifindex = o->v.ifindex, .gw_family = o->v.gw_family, .weight = 1};

		memcpy(h.gw, o->v.gw, 16);
		return apply_hops(s, r, &h, 1);
	}
	goto out;
blackhole:
	err = xfab_rib_add(s->rib, &r->key, XFAB_RIB_SRC_NETLINK, XFAB_RIB_BLACKHOLE, 0, NULL, 0);
out:
	return in_rib(s, r, err);
}

static int reapply_users(struct xfab_nlsync *s, struct nho *o)
{
	int err = 0, e;

	for (struct nlr *r = o->users; r; r = r->unext)
		if ((e = route_resolve(s, r, NULL)) && !err)
			err = e;
	return err;
}

/* -- changes -- */

static int route_add(struct xfab_nlsync *s, const struct xfab_nl_route *m)
{
	struct xfab_rib_key k;
	struct nlr *r;

	memset(&k, 0, sizeof(k));
	k.family = m->family;
	k.plen = m->plen;
	memcpy(k.addr, m->dst, m->family == AF_INET ? 4 : 16);
	r = nlr_find(s, &k);
	if (!r) {
		size_t b;

		if (s->n_rt >= s->n_rt_buckets)
			rt_grow(s);
		r = xfab_pool_zalloc(&s->rt_pool);
		if (!r)
			return -ENOMEM;
		r->key = k;
		r->state = R_NONE;
		s->n_state[R_NONE]++;
		b = key_hash(&k) & (s->n_rt_buckets - 1);
		r->hnext = s->rt[b];
		s->rt[b] = r;
		s->n_rt++;
	}
	if (r->nh_id != m->nh_id) {
		users_unlink(s, r);
		r->nh_id = m->nh_id;
	}
	if (r->nh_id && !r->uprev) {
		struct nho *o = nho_get(s, r->nh_id);

		if (!o) {
			nlr_drop(s, r);
			return -ENOMEM;
		}
		users_link(o, r);
	}
	r->protocol = m->protocol;
	r->priority = m->priority;
	r->gen = s->gen;
	return route_resolve(s, r, m);
}

static int route_del(struct xfab_nlsync *s, const struct xfab_nl_route *m)
{
	struct xfab_rib_key k;
	struct nlr *r;

	memset(&k, 0, sizeof(k));
	k.family = m->family;
	k.plen = m->plen;
	memcpy(k.addr, m->dst, m->family == AF_INET ? 4 : 16);
	r = nlr_find(s, &k);
	if (!r || r->protocol != m->protocol || r->priority != m->priority) {
		s->st.stale_deletes++;
		return 0;
	}
	nlr_drop(s, r);
	return 0;
}

/* Every group with member id (known groups only). */
static int groups_of(struct xfab_nlsync *s, __u32 id, struct nho **out, int max)
{
	int n = 0;

	for (size_t b = 0; b < NHO_BUCKETS; b++)
		for (struct nho *o = s->nho[b]; o; o = o->hnext) {
			if (!o->known || !o->v.n_members)
				continue;
			for (int i = 0; i < o->v.n_members; i++)
				if (o->v.members[i].id == id) {
					if (n < max)
						out[n] = o;
					n++;
					break;
				}
		}
	return n;
}

static int nh_del(struct xfab_nlsync *s, __u32 id);

/* Regroups g after a member changed; a group left with no member goes, as
 * the kernel removes it (its routes with it). */
static int group_changed(struct xfab_nlsync *s, struct nho *g)
{
	int err, e;

	if (!g->v.n_members)
		return nh_del(s, g->v.id);
	if (group_sync(s, g, &err) && (e = reapply_users(s, g)) && !err)
		err = e;
	return err;
}

#define MAX_GROUPS_SCAN 4096

static int nh_add(struct xfab_nlsync *s, const struct xfab_nl_nexthop *v)
{
	struct nho *o = nho_get(s, v->id), **groups;
	int err = 0, e, n;

	if (!o)
		return -ENOMEM;
	o->known = 1;
	o->gen = s->gen;
	o->v = *v;
	if (v->n_members) {
		if (group_sync(s, o, &err) && (e = reapply_users(s, o)) && !err)
			err = e;
		return err;
	}
	if (o->path) { /* was a group */
		xfab_rib_path_put(s->rib, o->path);
		o->path = NULL;
	}
	if ((e = reapply_users(s, o)) && !err)
		err = e;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	groups = malloc(MAX_GROUPS_SCAN * sizeof(*groups));
	if (!groups)
		return -ENOMEM;
	n = groups_of(s, v->id, groups, MAX_GROUPS_SCAN);
	for (int i = 0; i < n && i < MAX_GROUPS_SCAN; i++)
		if ((e = group_changed(s, groups[i])) && !err)
			err = e;
	free(groups);
	return err;
}

/* The kernel removes the routes through a deleted object and the object
 * from its groups. */
static int nh_del(struct xfab_nlsync *s, __u32 id)
{
	struct nho *o = nho_find(s, id);
	int err = 0, e;

	if (!o)
		return 0;
	/* dropping the last user of a placeholder frees it: look again */
	while ((o = nho_find(s, id)) && o->users)
		nlr_drop(s, o->users);
	if (!o)
		return 0;
	o->known = 0;
	if (o->path) {
		xfab_rib_path_put(s->rib, o->path);
		o->path = NULL;
	}
	nho_gc(s, o);
	for (;;) {
		struct nho *g;

		if (groups_of(s, id, &g, 1) == 0)
			break;
		for (int i = 0; i < g->v.n_members; i++)
			if (g->v.members[i].id == id) {
				g->v.members[i] = g->v.members[--g->v.n_members];
				break;
			}
		if ((e = group_changed(s, g)) && !err)
			err = e;
	}
	return err;
}

int xfab_nlsync_apply(struct xfab_nlsync *s, const struct xfab_nl_change *ch)
{
	switch (ch->kind) {
	case XFAB_NL_ROUTE_ADD:
		s->st.applied++;
		return route_add(s, &ch->route);
	case XFAB_NL_ROUTE_DEL:
		s->st.applied++;
		return route_del(s, &ch->route);
	case XFAB_NL_NEXTHOP_ADD:
		s->st.applied++;
		return nh_add(s, &ch->nh);
	case XFAB_NL_NEXTHOP_DEL:
		s->st.applied++;
		return nh_del(s, ch->nh.id);
	default:
		return 0;
	}
}

/* The netlink RIB entry of route r, or NULL. */
static const struct xfab_rib_entry *nlr_entry(const struct xfab_nlsync *s, const struct nlr *r)
{
	struct xfab_rib_node *node = xfab_rib_find(s->rib, &r->key);
	const struct xfab_rib_entry *e = NULL;

	for (const struct xfab_rib_entry *x = node ? node->entries : NULL; x; x = x->next)
		if (x->source == XFAB_RIB_SRC_NETLINK)
			e = x;
	return e;
}

/* Route r loses its members on port, as the kernel's link down takes them.
 * One left with none goes, unless keep holds it (its caller withdraws it
 * later): the kernel says nothing, so no one else would. */
static int link_down_route(struct xfab_nlsync *s, struct nlr *r, int port, xfab_nl_keep_fn keep,
			   void *arg)
{
	const struct xfab_rib_entry *e = nlr_entry(s, r);
	struct xfab_rib_member m[XFAB_NL_MAX_HOPS];
	int n = 0;

	if (!e)
		return 0;
	if (e->type == XFAB_RIB_CONNECTED && e->port == port) {
		s->st.link_withdrawn++;
		nlr_drop(s, r);
		return 0;
	}
	if (e->type != XFAB_RIB_PATH)
		return 0;
	for (int i = 0; i < e->path->n; i++)
		if (e->path->m[i].port != port)
			m[n++] = e->path->m[i];
	if (n == e->path->n)
		return 0;
	if (!n && keep) {
		struct xfab_nl_route k = {.priority = r->priority, .protocol = r->protocol};

		k.family = r->key.family;
		k.plen = r->key.plen;
		memcpy(k.dst, r->key.addr, sizeof(k.dst));
		if (keep(arg, &k)) {
			s->st.link_kept++;
			return 0;
		}
	}
	s->st.link_withdrawn += (size_t)(e->path->n - n);
	if (!n) {
		nlr_drop(s, r);
		return 0;
	}
	return xfab_rib_add(s->rib, &r->key, XFAB_RIB_SRC_NETLINK, XFAB_RIB_PATH, 0, m, n);
}

int xfab_nlsync_link_down(struct xfab_nlsync *s, __u32 ifindex, xfab_nl_keep_fn keep, void *arg)
{
	int port = s->port_of(s->arg, ifindex), err = 0, e;

	/* nexthop objects on the link: gone, as the kernel removes them */
	for (;;) {
		struct nho *hit = NULL;

		for (size_t b = 0; b < NHO_BUCKETS && !hit; b++)
			for (struct nho *o = s->nho[b]; o && !hit; o = o->hnext)
				if (o->known && !o->v.n_members && !o->v.blackhole &&
				    o->v.ifindex == ifindex)
					hit = o;
		if (!hit)
			break;
		s->st.link_withdrawn++;
		if ((e = nh_del(s, hit->v.id)) && !err)
			err = e;
	}
	if (port < 0)
		return err;
	/* routes with expanded nexthops: their members on the port go */
	for (size_t b = 0; b < s->n_rt_buckets; b++) {
		struct nlr *r = s->rt[b];

		while (r) {
			struct nlr *next = r->hnext;

			if (!r->nh_id && r->state == R_RIB &&
			    (e = link_down_route(s, r, port, keep, arg)) && !err)
				err = e;
			r = next;
		}
	}
	return err;
}

void xfab_nlsync_mark(struct xfab_nlsync *s)
{
	s->gen++;
	s->st.resyncs++;
}

int xfab_nlsync_sweep(struct xfab_nlsync *s)
{
	int err = 0, e;

	/* routes first: an object's users go with it anyway */
	for (size_t b = 0; b < s->n_rt_buckets; b++) {
		struct nlr *r = s->rt[b];

		while (r) {
			struct nlr *next = r->hnext;

			if (r->gen != s->gen) {
				s->st.swept_routes++;
				nlr_drop(s, r);
			}
			r = next;
		}
	}
	for (;;) {
		__u32 ids[256];
		int n = 0;

		for (size_t b = 0; b < NHO_BUCKETS && n < 256; b++)
			for (const struct nho *o = s->nho[b]; o && n < 256; o = o->hnext)
				if (o->known && o->gen != s->gen)
					ids[n++] = o->v.id;
		if (!n)
			break;
		for (int i = 0; i < n; i++) {
			s->st.swept_nexthops++;
			if ((e = nh_del(s, ids[i])) && !err)
				err = e;
		}
	}
	return err;
}

struct users_walk {
	void (*fn)(void *arg, const struct xfab_rib_key *key);
	void *arg;
};

static size_t users_each(const struct nho *o, const struct users_walk *w)
{
	size_t n = 0;

	for (const struct nlr *r = o->users; r; r = r->unext, n++)
		if (w->fn)
			w->fn(w->arg, &r->key);
	return n;
}

size_t xfab_nlsync_users(const struct xfab_nlsync *s, __u32 id,
			 void (*fn)(void *arg, const struct xfab_rib_key *key), void *arg)
{
	const struct nho *o = nho_find(s, id);
	struct users_walk w = {fn, arg};
	size_t n;

	if (!o)
		return 0;
	n = users_each(o, &w);
	if (o->v.n_members)
		return n;
	for (size_t b = 0; b < NHO_BUCKETS; b++)
		for (const struct nho *g = s->nho[b]; g; g = g->hnext) {
			if (!g->known || !g->v.n_members)
				continue;
			for (int i = 0; i < g->v.n_members; i++)
				if (g->v.members[i].id == id) {
					n += users_each(g, &w);
					break;
				}
		}
	return n;
}
