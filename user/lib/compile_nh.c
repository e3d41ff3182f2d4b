// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Nexthops: (port, family, gateway), shared by every route and group
 * through them, ref-counted, written when their value changes. */
#include "compile_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- nexthops ---- */

static size_t nh_bucket(int port, int family, const __u8 *gw)
{
	__u64 h = (__u64)port * 0x9e3779b97f4a7c15ull ^ (__u64)family;

	for (int i = 0; i < 16; i++)
		h = (h ^ gw[i]) * 0x100000001b3ull;
	return (size_t)(h ^ h >> 29) & (NH_BUCKETS - 1);
}

struct nh *xfab_nh_find(const struct xfab_compile *c, int port, int family, const __u8 *gw)
{
	struct nh *n = c->nh_hash[nh_bucket(port, family, gw)];

	while (n && !(n->port == port && n->family == family && !memcmp(n->gw, gw, 16)))
		n = n->hnext;
	return n;
}

/* What the egress needs of the nexthop's port: its entry in the ports
 * table as this compile writes it (the base image, whose oper state
 * xfab_compile_link keeps), so the nexthop's up bits and the port's change
 * in the same update. A port with no entry stays down (flags 0). */
static void nh_port(const struct xfab_compile *c, __u32 ifindex, struct xfab_nh_port *out)
{
	const struct xfab_table_image *img = &c->base.t[XFAB_T_PORTS];

	for (size_t i = 0; i < img->count; i++) {
		const struct xfab_e_port *e = &((const struct xfab_e_port *)img->entries)[i];

		if (e->key != ifindex)
			continue;
		memcpy(out->smac, e->val.mac, 6);
		out->slot = e->val.slot;
		out->mtu = e->val.mtu;
		out->vnet = e->val.vnet;
		out->flags = e->val.flags;
		return;
	}
}

static void nh_value(const struct xfab_compile *c, const struct nh *n, struct xfab_nexthop *v)
{
	const struct xfab_port_live *pl = &c->live[n->port];
	int alen = n->family == AF_INET ? 4 : 16;

	memset(v, 0, sizeof(*v));
	v->ifindex = pl->ifindex;
	v->flags = XFAB_NH_VALID | (n->family == AF_INET6 ? XFAB_NH_IPV6 : 0);
	memcpy(v->gw, n->gw, 16);
	nh_port(c, pl->ifindex, &v->port);
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
int xfab_nh_refresh(struct xfab_compile *c, struct nh *n)
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

/* Port p's entry changed (its oper state): its nexthops carry the new
 * copy, written in the same update as the entry. */
int xfab_nh_refresh_port(struct xfab_compile *c, int port)
{
	int err = 0;

	for (struct nh *n = c->port_nhs[port]; n && !err; n = n->port_next)
		err = xfab_nh_refresh(c, n);
	return err;
}

__u32 xfab_id_alloc(void **by_id, __u32 max, __u32 *next)
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
struct nh *xfab_nh_get(struct xfab_compile *c, int port, int family, const __u8 *gw, int *err)
{
	struct nh *n = xfab_nh_find(c, port, family, gw);
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
	n->id = xfab_id_alloc((void **)c->nh_by_id, XFAB_MAX_NEXTHOPS, &c->nh_next);
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

void xfab_nh_put(struct xfab_compile *c, struct nh *n)
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

int xfab_nh_free(struct xfab_compile *c, struct nh *n)
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
