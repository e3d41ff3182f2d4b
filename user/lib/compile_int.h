/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The compiler's state, shared by its parts (user/lib/compile.h tells what
 * it does): compile.c (the state, the counted writes' hooks and the events),
 * compile_nh.c (nexthops), compile_group.c (groups and the objects freed
 * last), compile_route.c (route entries, lending, the dirty prefixes).
 * Internal to those files; nothing else includes it.
 */
#ifndef XFAB_COMPILE_INT_H
#define XFAB_COMPILE_INT_H

#include "compile.h"

#include "compile_base.h"

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

static inline int w_update(struct xfab_compile *c, enum xfab_table t, const void *key,
			   const void *val)
{
	c->st.updates[t]++;
	return c->ops.update(c->ops.arg, t, key, val);
}

static inline int w_remove(struct xfab_compile *c, enum xfab_table t, const void *key)
{
	c->st.removes[t]++;
	return c->ops.remove(c->ops.arg, t, key);
}

static inline int w_flush(struct xfab_compile *c, enum xfab_table t)
{
	return c->ops.flush ? c->ops.flush(c->ops.arg, t) : 0;
}

static inline int port_up(const struct xfab_compile *c, int port)
{
	return port < c->n_ports && c->live[port].oper_up && c->admin_up[port];
}

/* ---- across the parts ---- */

/* compile_nh.c: find, write if changed, take (made and written if new),
 * release (onto the pending list at its last reference), free */
struct nh *xfab_nh_find(const struct xfab_compile *c, int port, int family, const __u8 *gw);
int xfab_nh_refresh(struct xfab_compile *c, struct nh *n);
int xfab_nh_refresh_port(struct xfab_compile *c, int port);
__u32 xfab_id_alloc(void **by_id, __u32 max, __u32 *next);
struct nh *xfab_nh_get(struct xfab_compile *c, int port, int family, const __u8 *gw, int *err);
void xfab_nh_put(struct xfab_compile *c, struct nh *n);
int xfab_nh_free(struct xfab_compile *c, struct nh *n);

/* compile_group.c */
struct grp *xfab_grp_get(struct xfab_compile *c, struct xfab_rib_path *path,
			 const struct xfab_group *hint, int *err);
void xfab_grp_put(struct xfab_compile *c, struct grp *g);
int xfab_grp_refresh(struct xfab_compile *c, struct grp *g);
int xfab_grp_rebind(struct xfab_compile *c, struct grp *g);
int xfab_compile_free_pending(struct xfab_compile *c);

/* compile_route.c: the dirty prefixes and own paths, compiled */
int xfab_compile_dirty(struct xfab_compile *c);

#endif
