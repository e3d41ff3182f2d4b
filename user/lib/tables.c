// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "tables.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DESC(name, type, arr)                                                                      \
	{                                                                                          \
		name, sizeof(struct type), sizeof(((struct type *)0)->key),                        \
		    offsetof(struct type, val), sizeof(((struct type *)0)->val), arr               \
	}

const struct xfab_table_desc xfab_table_descs[XFAB_T_COUNT] = {
    [XFAB_T_SETTINGS] = DESC(XFAB_MAP_SETTINGS, xfab_e_settings, 1),
    [XFAB_T_PORTS] = DESC(XFAB_MAP_PORTS, xfab_e_port, 1),
    [XFAB_T_TX_PORTS] = DESC(XFAB_MAP_TX_PORTS, xfab_e_txport, 0),
    [XFAB_T_NEXTHOPS] = DESC(XFAB_MAP_NEXTHOPS, xfab_e_nexthop, 1),
    [XFAB_T_GROUPS] = DESC(XFAB_MAP_GROUPS, xfab_e_group, 1),
    [XFAB_T_ROUTES_V4] = DESC(XFAB_MAP_ROUTES_V4, xfab_e_route_v4, 0),
    [XFAB_T_ROUTES_V6] = DESC(XFAB_MAP_ROUTES_V6, xfab_e_route_v6, 0),
    [XFAB_T_NEIGHBORS] = DESC(XFAB_MAP_NEIGHBORS, xfab_e_neigh, 0),
    [XFAB_T_DSCP_TO_TC] = DESC(XFAB_MAP_DSCP_TO_TC, xfab_e_dscp, 1),
    [XFAB_T_QUEUE_CFG] = DESC(XFAB_MAP_QUEUE_CFG, xfab_e_queue, 1),
};

/* ---- growable images ---- */

static void *image_push(struct xfab_table_image *img, enum xfab_table t, size_t *cap)
{
	size_t esz = xfab_table_descs[t].entry_size;
	void *e;

	if (img->count == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		void *bigger = realloc(img->entries, ncap * esz);

		if (!bigger)
			return NULL;
		img->entries = bigger;
		*cap = ncap;
	}
	e = (char *)img->entries + img->count * esz;
	memset(e, 0, esz);
	img->count++;
	return e;
}

static size_t sort_key_size;
static int cmp_key(const void *a, const void *b)
{
	return memcmp(a, b, sort_key_size);
}

/* Integer keys sort numerically only when compared as integers; images only
 * need one consistent order, and memcmp gives one for every table. */
static void image_sort(struct xfab_table_image *img, enum xfab_table t)
{
	sort_key_size = xfab_table_descs[t].key_size;
	if (img->count > 1)
		qsort(img->entries, img->count, xfab_table_descs[t].entry_size, cmp_key);
}

void xfab_tables_free(struct xfab_tables *t)
{
	for (int i = 0; i < XFAB_T_COUNT; i++) {
		free(t->t[i].entries);
		t->t[i].entries = NULL;
		t->t[i].count = 0;
	}
}

/* ---- id registries: reuse the ids prev gave the same object ---- */

static int nh_same(const struct xfab_nexthop *a, __u32 ifindex, int family, const __u8 *gw)
{
	int v6 = !!(a->flags & XFAB_NH_IPV6);

	return a->ifindex == ifindex && v6 == (family == AF_INET6) && !memcmp(a->gw, gw, 16);
}

struct id_alloc {
	unsigned char *used; /* by prev and by this build */
	__u32 max;
	__u32 next;
};

static __u32 id_alloc_new(struct id_alloc *a)
{
	for (__u32 n = 0; n < a->max; n++) {
		__u32 id = a->next;

		a->next = a->next + 1 >= a->max ? 1 : a->next + 1;
		if (!a->used[id]) {
			a->used[id] = 1;
			return id;
		}
	}
	return 0;
}

struct build {
	const struct xfab_config *cfg;
	const struct xfab_port_live *live;
	xfab_neigh_fn neigh;
	void *neigh_arg;
	const struct xfab_tables *prev;
	struct xfab_tables *next;
	size_t cap[XFAB_T_COUNT];
	struct id_alloc nh_ids;
	struct id_alloc grp_ids;
	unsigned char *prev_nh_reused;
	unsigned char *prev_grp_reused;
};

/* Configured neighbours resolve nexthops even before they reach the map. */
static int static_neigh(const struct xfab_config *cfg, const struct xfab_cfg_nexthop *cn,
			__u8 mac[6])
{
	for (int i = 0; i < cfg->n_neighs; i++) {
		const struct xfab_cfg_neigh *n = &cfg->neighs[i];

		if (n->port == cn->port && n->family == cn->family &&
		    !memcmp(n->addr, cn->gw, cn->family == AF_INET ? 4 : 16)) {
			memcpy(mac, n->mac, 6);
			return 0;
		}
	}
	return -ENOENT;
}

/* Finds or creates the nexthop for (port, gw); returns its id or 0. */
static __u32 nexthop_id(struct build *b, const struct xfab_cfg_nexthop *cn)
{
	const struct xfab_port_live *pl = &b->live[cn->port];
	struct xfab_table_image *img = &b->next->t[XFAB_T_NEXTHOPS];
	const struct xfab_table_image *pimg = &b->prev->t[XFAB_T_NEXTHOPS];
	struct xfab_e_nexthop *e;
	__u32 id = 0;

	for (size_t i = 0; i < img->count; i++) {
		e = &((struct xfab_e_nexthop *)img->entries)[i];
		if (nh_same(&e->val, pl->ifindex, cn->family, cn->gw))
			return e->key;
	}
	for (size_t i = 0; i < pimg->count; i++) {
		const struct xfab_e_nexthop *pe = &((struct xfab_e_nexthop *)pimg->entries)[i];

		if (nh_same(&pe->val, pl->ifindex, cn->family, cn->gw)) {
			id = pe->key;
			break;
		}
	}
	if (!id)
		id = id_alloc_new(&b->nh_ids);
	if (!id)
		return 0;
	b->nh_ids.used[id] = 1;
	e = image_push(img, XFAB_T_NEXTHOPS, &b->cap[XFAB_T_NEXTHOPS]);
	if (!e)
		return 0;
	e->key = id;
	e->val.ifindex = pl->ifindex;
	e->val.flags = XFAB_NH_VALID | (cn->family == AF_INET6 ? XFAB_NH_IPV6 : 0);
	memcpy(e->val.gw, cn->gw, 16);
	if (static_neigh(b->cfg, cn, e->val.dmac) == 0 ||
	    b->neigh(b->neigh_arg, pl->ifindex, cn->family, cn->gw, e->val.dmac) == 0)
		e->val.flags |= XFAB_NH_RESOLVED;
	return id;
}

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

static int nh_port_up(const struct build *b, __u32 nh_id)
{
	const struct xfab_table_image *img = &b->next->t[XFAB_T_NEXTHOPS];

	for (size_t i = 0; i < img->count; i++) {
		const struct xfab_e_nexthop *e = &((struct xfab_e_nexthop *)img->entries)[i];

		if (e->key != nh_id)
			continue;
		for (int p = 0; p < b->cfg->n_ports; p++)
			if (b->live[p].ifindex == e->val.ifindex)
				return b->live[p].oper_up && b->cfg->ports[p].admin_up;
	}
	return 0;
}

struct member {
	__u32 nh_id;
	__u16 weight;
};

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	return x->nh_id < y->nh_id ? -1 : x->nh_id > y->nh_id;
}

static int same_group(const struct xfab_group *g, const struct member *mem, int n)
{
	if (g->num_members != n)
		return 0;
	for (int i = 0; i < n; i++)
		if (g->members[i] != mem[i].nh_id || g->weights[i] != mem[i].weight)
			return 0;
	return 1;
}

/* Finds or creates the group for a set of weighted members; returns its id.
 * A group keeps its id (and, resilient, its buckets) across rebuilds. A new
 * member set starts from `hint`, the group the route used before, so the
 * members that stay keep their buckets. */
static __u32 group_id(struct build *b, struct member *mem, int n, const struct xfab_group *hint)
{
	struct xfab_table_image *img = &b->next->t[XFAB_T_GROUPS];
	const struct xfab_table_image *pimg = &b->prev->t[XFAB_T_GROUPS];
	const struct xfab_group *prev = NULL;
	int live[XFAB_GROUP_MAX_MEMBERS];
	struct xfab_e_group *e;
	__u32 id = 0;

	qsort(mem, (size_t)n, sizeof(*mem), cmp_member);
	for (size_t i = 0; i < img->count; i++) {
		e = &((struct xfab_e_group *)img->entries)[i];
		if (same_group(&e->val, mem, n))
			return e->key;
	}
	for (size_t i = 0; i < pimg->count; i++) {
		const struct xfab_e_group *pe = &((struct xfab_e_group *)pimg->entries)[i];

		if (same_group(&pe->val, mem, n)) {
			id = pe->key;
			prev = &pe->val;
			break;
		}
	}
	if (!id) {
		id = id_alloc_new(&b->grp_ids);
		prev = hint;
	}
	if (!id)
		return 0;
	b->grp_ids.used[id] = 1;
	e = image_push(img, XFAB_T_GROUPS, &b->cap[XFAB_T_GROUPS]);
	if (!e)
		return 0;
	e->key = id;
	e->val.mode = XFAB_GROUP_HASH;
	e->val.flags = b->cfg->resilient ? XFAB_GROUP_RESILIENT : 0;
	e->val.num_members = (__u16)n;
	for (int i = 0; i < n; i++) {
		e->val.members[i] = mem[i].nh_id;
		e->val.weights[i] = mem[i].weight;
		live[i] = nh_port_up(b, mem[i].nh_id);
	}
	xfab_group_fill_buckets(&e->val, prev, live);
	return id;
}

static int add_route(struct build *b, const struct xfab_prefix *pfx, __u32 table, __u32 type,
		     __u32 id)
{
	if (pfx->family == AF_INET) {
		struct xfab_e_route_v4 *e = image_push(&b->next->t[XFAB_T_ROUTES_V4],
						       XFAB_T_ROUTES_V4, &b->cap[XFAB_T_ROUTES_V4]);
		if (!e)
			return -ENOMEM;
		e->key.prefixlen = 32 + (__u32)pfx->plen;
		e->key.table = htonl(table);
		memcpy(e->key.addr, pfx->addr, 4);
		e->val.type = type;
		e->val.id = id;
	} else {
		struct xfab_e_route_v6 *e = image_push(&b->next->t[XFAB_T_ROUTES_V6],
						       XFAB_T_ROUTES_V6, &b->cap[XFAB_T_ROUTES_V6]);
		if (!e)
			return -ENOMEM;
		e->key.prefixlen = 32 + (__u32)pfx->plen;
		e->key.table = htonl(table);
		memcpy(e->key.addr, pfx->addr, 16);
		e->val.type = type;
		e->val.id = id;
	}
	return 0;
}

static void mask_prefix(struct xfab_prefix *p)
{
	int bytes = p->family == AF_INET ? 4 : 16;

	for (int i = 0; i < bytes; i++) {
		int bit0 = i * 8;

		if (bit0 >= p->plen)
			p->addr[i] = 0;
		else if (bit0 + 8 > p->plen)
			p->addr[i] &= (__u8)(0xff << (8 - (p->plen - bit0)));
	}
}

static int build_ports(struct build *b)
{
	const struct xfab_config *cfg = b->cfg;

	for (int p = 0; p < cfg->n_ports; p++) {
		struct xfab_e_port *e =
		    image_push(&b->next->t[XFAB_T_PORTS], XFAB_T_PORTS, &b->cap[XFAB_T_PORTS]);
		struct xfab_e_txport *tx = image_push(&b->next->t[XFAB_T_TX_PORTS], XFAB_T_TX_PORTS,
						      &b->cap[XFAB_T_TX_PORTS]);

		if (!e || !tx)
			return -ENOMEM;
		e->key = b->live[p].ifindex;
		memcpy(e->val.mac, b->live[p].mac, 6);
		e->val.slot = (__u16)p;
		e->val.ifindex = b->live[p].ifindex;
		e->val.flags = (cfg->ports[p].admin_up ? XFAB_PORT_ADMIN_UP : 0) |
			       (b->live[p].oper_up ? XFAB_PORT_OPER_UP : 0);
		for (int tc = 0; tc < XFAB_NUM_TC; tc++)
			if (cfg->ports[p].wred[tc] >= 0)
				e->val.flags |= XFAB_PORT_QUEUED;
		if (cfg->ports[p].rate_mbps || cfg->ports[p].buffer_bytes)
			e->val.flags |= XFAB_PORT_QUEUED;
		e->val.mtu = (__u16)cfg->ports[p].mtu;
		e->val.datapath = (__u8)cfg->datapath;
		snprintf(e->val.name, sizeof(e->val.name), "%s", cfg->ports[p].name);
		tx->key = b->live[p].ifindex;
		tx->val.ifindex = b->live[p].ifindex;
	}
	return 0;
}

/* The group a prefix used in prev, if it was a group route. */
static const struct xfab_group *prev_route_group(const struct build *b,
						 const struct xfab_prefix *pfx, __u32 table)
{
	int v6 = pfx->family == AF_INET6;
	enum xfab_table t = v6 ? XFAB_T_ROUTES_V6 : XFAB_T_ROUTES_V4;
	const struct xfab_table_image *img = &b->prev->t[t];
	const struct xfab_table_image *gimg = &b->prev->t[XFAB_T_GROUPS];
	size_t esz = xfab_table_descs[t].entry_size, ksz = xfab_table_descs[t].key_size;
	const struct xfab_route *rt = NULL;
	char key[sizeof(struct xfab_lpm_v6_key)] = {0};
	size_t lo = 0, hi = img->count;

	/* images are sorted by memcmp of the key: binary search */
	*(__u32 *)key = 32u + (__u32)pfx->plen;
	*(__u32 *)(key + 4) = htonl(table);
	memcpy(key + 8, pfx->addr, v6 ? 16 : 4);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *e = (const char *)img->entries + mid * esz;
		int c = memcmp(e, key, ksz);

		if (c == 0) {
			rt = (const struct xfab_route *)(e + xfab_table_descs[t].val_off);
			break;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!rt || rt->type != XFAB_RT_GROUP)
		return NULL;
	for (size_t i = 0; i < gimg->count; i++)
		if (((struct xfab_e_group *)gimg->entries)[i].key == rt->id)
			return &((struct xfab_e_group *)gimg->entries)[i].val;
	return NULL;
}

/* A route's (or TE entry's) path: blackhole, one nexthop or a group. */
static int add_path(struct build *b, const struct xfab_cfg_route *r, __u32 table)
{
	struct member mem[XFAB_GROUP_MAX_MEMBERS];
	__u32 id;

	if (r->blackhole)
		return add_route(b, &r->pfx, table, XFAB_RT_BLACKHOLE, 0);
	if (r->n_nexthops == 1) {
		id = nexthop_id(b, &r->nexthops[0]);
		return id ? add_route(b, &r->pfx, table, XFAB_RT_NEXTHOP, id) : -ENOSPC;
	}
	for (int k = 0; k < r->n_nexthops; k++) {
		mem[k].nh_id = nexthop_id(b, &r->nexthops[k]);
		mem[k].weight = r->weights[k] ? r->weights[k] : 1;
		if (!mem[k].nh_id)
			return -ENOSPC;
	}
	id = group_id(b, mem, r->n_nexthops, prev_route_group(b, &r->pfx, table));
	return id ? add_route(b, &r->pfx, table, XFAB_RT_GROUP, id) : -ENOSPC;
}

static int build_routes(struct build *b)
{
	const struct xfab_config *cfg = b->cfg;
	int err;

	for (int i = 0; i < cfg->n_addrs; i++) {
		struct xfab_prefix subnet = cfg->addrs[i].pfx, self = cfg->addrs[i].pfx;

		mask_prefix(&subnet);
		err = add_route(b, &subnet, XFAB_TABLE_DEFAULT, XFAB_RT_CONNECTED,
				b->live[cfg->addrs[i].port].ifindex);
		if (err)
			return err;
		self.plen = self.family == AF_INET ? 32 : 128;
		if (self.plen != subnet.plen || memcmp(self.addr, subnet.addr, 16)) {
			err = add_route(b, &self, XFAB_TABLE_DEFAULT, XFAB_RT_LOCAL, 0);
			if (err)
				return err;
		}
	}
	for (int i = 0; i < cfg->n_routes; i++) {
		err = add_path(b, &cfg->routes[i], XFAB_TABLE_DEFAULT);
		if (err)
			return err;
	}
	for (int i = 0; i < cfg->n_te; i++) {
		err = add_path(b, &cfg->te[i].path,
			       XFAB_TABLE_TE | b->live[cfg->te[i].in_port].ifindex);
		if (err)
			return err;
	}
	/* Config validation keeps ROUTE prefixes apart from connected
	 * subnets and from each other, so no key is written twice. */
	return 0;
}

/* Classes and queues: the DSCP map, and per (port, class) the port rate,
 * buffer and WRED/ECN curve. */
static int build_qos(struct build *b)
{
	const struct xfab_config *cfg = b->cfg;

	for (__u32 d = 0; d < XFAB_NUM_DSCP; d++) {
		struct xfab_e_dscp *e = image_push(&b->next->t[XFAB_T_DSCP_TO_TC],
						   XFAB_T_DSCP_TO_TC, &b->cap[XFAB_T_DSCP_TO_TC]);

		if (!e)
			return -ENOMEM;
		e->key = d;
		e->val = cfg->dscp_to_tc[d];
	}
	for (int p = 0; p < cfg->n_ports; p++) {
		const struct xfab_cfg_port *port = &cfg->ports[p];

		for (__u32 tc = 0; tc < XFAB_NUM_TC; tc++) {
			struct xfab_e_queue *e =
			    image_push(&b->next->t[XFAB_T_QUEUE_CFG], XFAB_T_QUEUE_CFG,
				       &b->cap[XFAB_T_QUEUE_CFG]);
			const struct xfab_cfg_wred *w;

			if (!e)
				return -ENOMEM;
			e->key = XFAB_QUEUE_KEY((__u32)p, tc);
			e->val.rate_kbps = (__u64)port->rate_mbps * 1000;
			e->val.buffer_bytes = port->buffer_bytes;
			if (port->wred[tc] < 0)
				continue;
			w = &cfg->wred[port->wred[tc]];
			e->val.flags = XFAB_WRED_ENABLED | (w->ecn ? XFAB_WRED_ECN : 0) |
				       (w->drop_nonect ? XFAB_WRED_DROP_NONECT : 0);
			e->val.kmin_bytes = w->kmin_bytes;
			e->val.kmax_bytes = w->kmax_bytes;
			e->val.pmax = w->pmax_percent >= 100
					  ? 0xffffffffu
					  : (__u32)(((__u64)w->pmax_percent << 32) / 100);
		}
	}
	return 0;
}

static int build_neighs(struct build *b)
{
	const struct xfab_config *cfg = b->cfg;

	for (int i = 0; i < cfg->n_neighs; i++) {
		const struct xfab_cfg_neigh *n = &cfg->neighs[i];
		struct xfab_e_neigh *e = image_push(&b->next->t[XFAB_T_NEIGHBORS], XFAB_T_NEIGHBORS,
						    &b->cap[XFAB_T_NEIGHBORS]);

		if (!e)
			return -ENOMEM;
		e->key.ifindex = b->live[n->port].ifindex;
		e->key.family = (__u8)n->family;
		memcpy(e->key.addr, n->addr, 16);
		memcpy(e->val.mac, n->mac, 6);
		e->val.flags = XFAB_NEIGH_STATIC;
	}
	return 0;
}

/* Removes later duplicates of a key (first writer wins). */
static void image_dedup(struct xfab_table_image *img, enum xfab_table t)
{
	const struct xfab_table_desc *d = &xfab_table_descs[t];
	size_t out = 0;

	for (size_t i = 0; i < img->count; i++) {
		char *e = (char *)img->entries + i * d->entry_size;

		if (out &&
		    !memcmp((char *)img->entries + (out - 1) * d->entry_size, e, d->key_size))
			continue;
		if (out != i)
			memmove((char *)img->entries + out * d->entry_size, e, d->entry_size);
		out++;
	}
	img->count = out;
}

static int build_image(const struct xfab_config *cfg, const struct xfab_port_live *live,
		       xfab_neigh_fn neigh, void *neigh_arg, const struct xfab_tables *prev,
		       struct xfab_tables *next, int with_routes)
{
	struct build b = {.cfg = cfg,
			  .live = live,
			  .neigh = neigh,
			  .neigh_arg = neigh_arg,
			  .prev = prev,
			  .next = next};
	struct xfab_e_settings *s;
	int err = -ENOMEM;

	memset(next, 0, sizeof(*next));
	b.nh_ids.max = XFAB_MAX_NEXTHOPS;
	b.nh_ids.next = 1;
	b.grp_ids.max = XFAB_MAX_GROUPS;
	b.grp_ids.next = 1;
	b.nh_ids.used = calloc(XFAB_MAX_NEXTHOPS, 1);
	b.grp_ids.used = calloc(XFAB_MAX_GROUPS, 1);
	if (!b.nh_ids.used || !b.grp_ids.used)
		goto out;
	/* Ids prev used stay reserved, so a removed nexthop's id is not
	 * handed to a new one in the same apply (routes may still use it). */
	for (size_t i = 0; i < prev->t[XFAB_T_NEXTHOPS].count; i++)
		b.nh_ids.used[((struct xfab_e_nexthop *)prev->t[XFAB_T_NEXTHOPS].entries)[i].key] =
		    1;
	for (size_t i = 0; i < prev->t[XFAB_T_GROUPS].count; i++)
		b.grp_ids.used[((struct xfab_e_group *)prev->t[XFAB_T_GROUPS].entries)[i].key] = 1;

	s = image_push(&next->t[XFAB_T_SETTINGS], XFAB_T_SETTINGS, &b.cap[XFAB_T_SETTINGS]);
	if (!s)
		goto out;
	s->key = 0;
	s->val.hash_seed = cfg->hash_seed;
	s->val.hash_fields = cfg->hash_fields;
	s->val.flags = (cfg->symmetric ? XFAB_SET_SYMMETRIC : 0) |
		       (cfg->flowlet ? XFAB_SET_FLOWLET : 0) | (cfg->te_enabled ? XFAB_SET_TE : 0);
	s->val.flowlet_mode = (__u32)cfg->flowlet_mode;
	s->val.flowlet_gap_ns = (__u64)cfg->flowlet_gap_us * 1000;
	s->val.load_window_ns = (__u64)cfg->load_window_us * 1000;
	s->val.flowlet_age_ns = (__u64)cfg->flowlet_age_ms * 1000000;
	err = build_ports(&b);
	if (!err && with_routes)
		err = build_routes(&b);
	if (!err)
		err = build_neighs(&b);
	if (!err)
		err = build_qos(&b);
	if (err)
		goto out;
	for (int t = 0; t < XFAB_T_COUNT; t++) {
		image_sort(&next->t[t], (enum xfab_table)t);
		image_dedup(&next->t[t], (enum xfab_table)t);
	}
out:
	free(b.nh_ids.used);
	free(b.grp_ids.used);
	if (err)
		xfab_tables_free(next);
	return err;
}

int xfab_tables_build(const struct xfab_config *cfg, const struct xfab_port_live *live,
		      xfab_neigh_fn neigh, void *neigh_arg, const struct xfab_tables *prev,
		      struct xfab_tables *next)
{
	return build_image(cfg, live, neigh, neigh_arg, prev, next, 1);
}

int xfab_tables_build_base(const struct xfab_config *cfg, const struct xfab_port_live *live,
			   struct xfab_tables *next)
{
	static const struct xfab_tables empty;

	return build_image(cfg, live, NULL, NULL, &empty, next, 0);
}

/* ---- apply ---- */

enum apply_pass { PASS_UPSERT, PASS_REMOVE };

static int diff_table(const struct xfab_table_image *prev, const struct xfab_table_image *next,
		      enum xfab_table t, enum apply_pass pass, const struct xfab_map_ops *ops)
{
	const struct xfab_table_desc *d = &xfab_table_descs[t];
	size_t i = 0, j = 0;
	int err;

	while (i < prev->count || j < next->count) {
		const char *pe = i < prev->count ? (char *)prev->entries + i * d->entry_size : NULL;
		const char *ne = j < next->count ? (char *)next->entries + j * d->entry_size : NULL;
		int c = !pe ? 1 : !ne ? -1 : memcmp(pe, ne, d->key_size);

		if (c < 0) { /* only in prev: remove */
			if (pass == PASS_REMOVE) {
				err = ops->remove(ops->arg, t, pe);
				if (err)
					return err;
			}
			i++;
		} else if (c > 0) { /* only in next: add */
			if (pass == PASS_UPSERT) {
				err = ops->update(ops->arg, t, ne, ne + d->val_off);
				if (err)
					return err;
			}
			j++;
		} else { /* both: rewrite if changed */
			if (pass == PASS_UPSERT &&
			    memcmp(pe + d->val_off, ne + d->val_off, d->val_size)) {
				err = ops->update(ops->arg, t, ne, ne + d->val_off);
				if (err)
					return err;
			}
			i++;
			j++;
		}
	}
	return 0;
}

int xfab_tables_apply(const struct xfab_tables *prev, const struct xfab_tables *next,
		      const struct xfab_map_ops *ops)
{
	/* Upserts run leaves-first (what routes point at exists before the
	 * routes), removals run roots-first (routes go before their targets). */
	static const enum xfab_table upsert_order[] = {
	    XFAB_T_SETTINGS,  XFAB_T_DSCP_TO_TC, XFAB_T_QUEUE_CFG, XFAB_T_PORTS,
	    XFAB_T_TX_PORTS,  XFAB_T_NEIGHBORS,	 XFAB_T_NEXTHOPS,  XFAB_T_GROUPS,
	    XFAB_T_ROUTES_V4, XFAB_T_ROUTES_V6,
	};
	static const enum xfab_table remove_order[] = {
	    XFAB_T_ROUTES_V4,  XFAB_T_ROUTES_V6, XFAB_T_GROUPS, XFAB_T_NEXTHOPS,
	    XFAB_T_NEIGHBORS,  XFAB_T_TX_PORTS,	 XFAB_T_PORTS,	XFAB_T_QUEUE_CFG,
	    XFAB_T_DSCP_TO_TC, XFAB_T_SETTINGS,
	};
	int err;

	for (size_t k = 0; k < sizeof(upsert_order) / sizeof(upsert_order[0]); k++) {
		enum xfab_table t = upsert_order[k];

		err = diff_table(&prev->t[t], &next->t[t], t, PASS_UPSERT, ops);
		if (!err && ops->flush)
			err = ops->flush(ops->arg, t);
		if (!err && t == XFAB_T_ROUTES_V4 && ops->fib4)
			err = xfab_fib4_sync(ops->fib4, next->t[t].entries, next->t[t].count,
					     ops->fib4_stats);
		if (!err && t == XFAB_T_ROUTES_V6 && ops->fib6)
			err = xfab_fib6_sync(ops->fib6, next->t[t].entries, next->t[t].count,
					     ops->fib6_stats);
		if (err)
			return err;
	}
	for (size_t k = 0; k < sizeof(remove_order) / sizeof(remove_order[0]); k++) {
		enum xfab_table t = remove_order[k];

		err = diff_table(&prev->t[t], &next->t[t], t, PASS_REMOVE, ops);
		if (!err && ops->flush)
			err = ops->flush(ops->arg, t);
		if (err)
			return err;
	}
	return 0;
}
