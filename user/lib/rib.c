// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "rib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

struct xfab_rib {
	struct xfab_rib_node **buckets; /* chained hash of nodes */
	size_t n_buckets, count;
	struct xfab_rib_path **paths; /* chained hash of interned paths */
	size_t n_paths_buckets, n_paths;
	struct xfab_rib_node **dirty;
	size_t n_dirty, cap_dirty;
	struct xfab_rib_path **changed; /* own paths, a reference each */
	size_t n_changed, cap_changed;
	__u32 gen;
	struct xfab_pool node_pool, entry_pool; /* an object or two per prefix */
};

static __u64 mix(__u64 h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static __u64 hash_bytes(const void *p, size_t len)
{
	const __u8 *b = p;
	__u64 h = 0x9e3779b97f4a7c15ull ^ len;

	for (size_t i = 0; i < len; i += 8) {
		__u64 w = 0;

		memcpy(&w, b + i, len - i < 8 ? len - i : 8);
		h = mix(h ^ w);
	}
	return h;
}

struct xfab_rib *xfab_rib_new(void)
{
	struct xfab_rib *rib = calloc(1, sizeof(*rib));

	if (!rib)
		return NULL;
	xfab_pool_init(&rib->node_pool, sizeof(struct xfab_rib_node));
	xfab_pool_init(&rib->entry_pool, sizeof(struct xfab_rib_entry));
	rib->n_buckets = 1024;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	rib->buckets = xfab_big_zalloc(rib->n_buckets * sizeof(*rib->buckets));
	rib->n_paths_buckets = 256;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	rib->paths = calloc(rib->n_paths_buckets, sizeof(*rib->paths));
	if (!rib->buckets || !rib->paths) {
		xfab_rib_free(rib);
		return NULL;
	}
	return rib;
}

static void entry_free(struct xfab_rib *rib, struct xfab_rib_entry *e)
{
	if (e->path)
		xfab_rib_path_put(rib, e->path);
	xfab_pool_free(&rib->entry_pool, e);
}

void xfab_rib_free(struct xfab_rib *rib)
{
	if (!rib)
		return;
	for (size_t b = 0; rib->buckets && b < rib->n_buckets; b++)
		while (rib->buckets[b]) {
			struct xfab_rib_node *n = rib->buckets[b];

			rib->buckets[b] = n->hnext;
			while (n->entries) {
				struct xfab_rib_entry *e = n->entries;

				n->entries = e->next;
				entry_free(rib, e);
			}
		}
	for (size_t i = 0; i < rib->n_changed; i++)
		xfab_rib_path_put(rib, rib->changed[i]);
	free(rib->changed);
	/* paths still held (by compile's groups) are the caller's to put
	 * first; whatever is left is freed here */
	for (size_t b = 0; rib->paths && b < rib->n_paths_buckets; b++)
		while (rib->paths[b]) {
			struct xfab_rib_path *p = rib->paths[b];

			rib->paths[b] = p->hnext;
			free(p);
		}
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	xfab_big_free(rib->buckets, rib->n_buckets * sizeof(*rib->buckets));
	free(rib->paths);
	free(rib->dirty);
	/* the nodes and entries, all at once */
	xfab_pool_destroy(&rib->node_pool);
	xfab_pool_destroy(&rib->entry_pool);
	free(rib);
}

/* ---- keys and nodes ---- */

void xfab_rib_key_of(struct xfab_rib_key *key, __u32 table, const struct xfab_prefix *pfx)
{
	int bytes = pfx->family == AF_INET ? 4 : 16;

	memset(key, 0, sizeof(*key));
	key->table = table;
	key->family = (__u8)pfx->family;
	key->plen = (__u8)pfx->plen;
	for (int i = 0; i < bytes; i++) {
		int bit0 = i * 8;

		if (bit0 >= pfx->plen)
			break;
		key->addr[i] = bit0 + 8 > pfx->plen
				   ? (__u8)(pfx->addr[i] & (0xff << (8 - (pfx->plen - bit0))))
				   : pfx->addr[i];
	}
}

static size_t key_bucket(const struct xfab_rib *rib, const struct xfab_rib_key *key)
{
	return (size_t)hash_bytes(key, sizeof(*key)) & (rib->n_buckets - 1);
}

struct xfab_rib_node *xfab_rib_find(const struct xfab_rib *rib, const struct xfab_rib_key *key)
{
	struct xfab_rib_node *n = rib->buckets[key_bucket(rib, key)];

	while (n && memcmp(&n->key, key, sizeof(*key)))
		n = n->hnext;
	return n;
}

const struct xfab_rib_entry *xfab_rib_entry_of(const struct xfab_rib *rib,
					       const struct xfab_rib_key *key, int source)
{
	const struct xfab_rib_node *n = xfab_rib_find(rib, key);

	for (const struct xfab_rib_entry *e = n ? n->entries : NULL; e; e = e->next)
		if (e->source == source)
			return e;
	return NULL;
}

/* Room for n prefixes without a longer chain than one per bucket: to
 * twice the buckets, or at once to what a config load will hold (a
 * million routes rehashed a dozen times cost as much as their load). */
static void grow_nodes(struct xfab_rib *rib, size_t n)
{
	size_t nb = rib->n_buckets * 2;
	struct xfab_rib_node **b;

	while (nb < n)
		nb *= 2;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	b = xfab_big_zalloc(nb * sizeof(*b));
	if (!b)
		return; /* longer chains, still correct */
	for (size_t i = 0; i < rib->n_buckets; i++)
		while (rib->buckets[i]) {
			struct xfab_rib_node *n = rib->buckets[i];
			size_t h = (size_t)hash_bytes(&n->key, sizeof(n->key)) & (nb - 1);

			rib->buckets[i] = n->hnext;
			n->hnext = b[h];
			b[h] = n;
		}
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	xfab_big_free(rib->buckets, rib->n_buckets * sizeof(*rib->buckets));
	rib->buckets = b;
	rib->n_buckets = nb;
}

static struct xfab_rib_node *node_get(struct xfab_rib *rib, const struct xfab_rib_key *key)
{
	struct xfab_rib_node *n = xfab_rib_find(rib, key);
	size_t b;

	if (n)
		return n;
	if (rib->count >= rib->n_buckets)
		grow_nodes(rib, 0);
	n = xfab_pool_zalloc(&rib->node_pool);
	if (!n)
		return NULL;
	n->key = *key;
	b = key_bucket(rib, key);
	n->hnext = rib->buckets[b];
	rib->buckets[b] = n;
	rib->count++;
	return n;
}

void xfab_rib_node_gc(struct xfab_rib *rib, struct xfab_rib_node *node)
{
	struct xfab_rib_node **pp;

	if (node->entries || node->inst_type || node->dirty)
		return;
	for (pp = &rib->buckets[key_bucket(rib, &node->key)]; *pp; pp = &(*pp)->hnext)
		if (*pp == node) {
			*pp = node->hnext;
			rib->count--;
			xfab_pool_free(&rib->node_pool, node);
			return;
		}
}

int xfab_rib_mark_dirty(struct xfab_rib *rib, struct xfab_rib_node *node)
{
	if (node->dirty)
		return 0;
	if (rib->n_dirty == rib->cap_dirty) {
		size_t ncap = rib->cap_dirty ? rib->cap_dirty * 2 : 64;
		/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
		struct xfab_rib_node **d = realloc(rib->dirty, ncap * sizeof(*d));

		if (!d)
			return -ENOMEM;
		rib->dirty = d;
		rib->cap_dirty = ncap;
	}
	rib->dirty[rib->n_dirty++] = node;
	node->dirty = 1;
	return 0;
}

void xfab_rib_mark_all_dirty(struct xfab_rib *rib)
{
	for (size_t b = 0; b < rib->n_buckets; b++)
		for (struct xfab_rib_node *n = rib->buckets[b]; n; n = n->hnext)
			xfab_rib_mark_dirty(rib, n);
}

void xfab_rib_foreach(struct xfab_rib *rib, void (*fn)(void *arg, struct xfab_rib_node *node),
		      void *arg)
{
	for (size_t b = 0; b < rib->n_buckets; b++)
		for (struct xfab_rib_node *n = rib->buckets[b]; n; n = n->hnext)
			fn(arg, n);
}

size_t xfab_rib_take_dirty(struct xfab_rib *rib, struct xfab_rib_node ***nodes)
{
	size_t n = rib->n_dirty;

	*nodes = rib->dirty;
	rib->dirty = NULL;
	rib->n_dirty = rib->cap_dirty = 0;
	for (size_t i = 0; i < n; i++)
		(*nodes)[i]->dirty = 0;
	return n;
}

const struct xfab_rib_entry *xfab_rib_best(const struct xfab_rib_node *node)
{
	return node->entries;
}

size_t xfab_rib_count(const struct xfab_rib *rib)
{
	return rib->count;
}

size_t xfab_rib_paths(const struct xfab_rib *rib)
{
	return rib->n_paths;
}

/* ---- interned paths ---- */

static int cmp_member(const void *a, const void *b)
{
	const struct xfab_rib_member *x = a, *y = b;

	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	return memcmp(x->gw, y->gw, 16);
}

static int member_prep(struct xfab_rib_member *sorted, const struct xfab_rib_member *m, int n)
{
	if (n < 1 || n > XFAB_GROUP_MAX_MEMBERS)
		return -EINVAL;
	memcpy(sorted, m, (size_t)n * sizeof(*m));
	for (int i = 0; i < n; i++) {
		sorted[i].pad = 0;
		sorted[i].pad2 = 0;
		if (!sorted[i].weight)
			sorted[i].weight = 1;
	}
	qsort(sorted, (size_t)n, sizeof(*sorted), cmp_member);
	return 0;
}

void xfab_rib_path_get(struct xfab_rib_path *p)
{
	p->refs++;
}

void xfab_rib_path_put(struct xfab_rib *rib, struct xfab_rib_path *p)
{
	struct xfab_rib_path **pp;

	if (--p->refs)
		return;
	if (p->own) {
		free(p);
		return;
	}
	for (pp = &rib->paths[p->hash & (rib->n_paths_buckets - 1)]; *pp; pp = &(*pp)->hnext)
		if (*pp == p) {
			*pp = p->hnext;
			rib->n_paths--;
			break;
		}
	free(p);
}

static void grow_paths(struct xfab_rib *rib)
{
	size_t nb = rib->n_paths_buckets * 2;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	struct xfab_rib_path **b = calloc(nb, sizeof(*b));

	if (!b)
		return;
	for (size_t i = 0; i < rib->n_paths_buckets; i++)
		while (rib->paths[i]) {
			struct xfab_rib_path *p = rib->paths[i];

			rib->paths[i] = p->hnext;
			p->hnext = b[p->hash & (nb - 1)];
			b[p->hash & (nb - 1)] = p;
		}
	free(rib->paths);
	rib->paths = b;
	rib->n_paths_buckets = nb;
}

/* The interned path of these members, with a reference for the caller. */
static struct xfab_rib_path *path_intern(struct xfab_rib *rib, const struct xfab_rib_member *m,
					 int n)
{
	struct xfab_rib_member sorted[XFAB_GROUP_MAX_MEMBERS];
	struct xfab_rib_path *p;
	__u32 h;

	if (member_prep(sorted, m, n))
		return NULL;
	h = (__u32)hash_bytes(sorted, (size_t)n * sizeof(*sorted));
	for (p = rib->paths[h & (rib->n_paths_buckets - 1)]; p; p = p->hnext)
		if (p->hash == h && p->n == n &&
		    !memcmp(p->m, sorted, (size_t)n * sizeof(*sorted))) {
			p->refs++;
			return p;
		}
	if (rib->n_paths >= rib->n_paths_buckets)
		grow_paths(rib);
	p = calloc(1, sizeof(*p) + (size_t)n * sizeof(*sorted));
	if (!p)
		return NULL;
	p->refs = 1;
	p->hash = h;
	p->n = n;
	memcpy(p->m, sorted, (size_t)n * sizeof(*sorted));
	p->hnext = rib->paths[h & (rib->n_paths_buckets - 1)];
	rib->paths[h & (rib->n_paths_buckets - 1)] = p;
	rib->n_paths++;
	return p;
}

struct xfab_rib_path *xfab_rib_path_new(struct xfab_rib *rib, const struct xfab_rib_member *m,
					int n)
{
	struct xfab_rib_path *p;

	(void)rib;
	if (n < 1 || n > XFAB_GROUP_MAX_MEMBERS)
		return NULL;
	/* room for every member count: the path never moves */
	p = calloc(1, sizeof(*p) + XFAB_GROUP_MAX_MEMBERS * sizeof(p->m[0]));
	if (!p)
		return NULL;
	member_prep(p->m, m, n);
	p->n = n;
	p->refs = 1;
	p->own = 1;
	return p;
}

int xfab_rib_path_set(struct xfab_rib *rib, struct xfab_rib_path *p,
		      const struct xfab_rib_member *m, int n)
{
	struct xfab_rib_member sorted[XFAB_GROUP_MAX_MEMBERS];

	if (!p->own || member_prep(sorted, m, n))
		return -EINVAL;
	if (p->n == n && !memcmp(p->m, sorted, (size_t)n * sizeof(*sorted)))
		return 0;
	if (!p->changed) {
		if (rib->n_changed == rib->cap_changed) {
			size_t ncap = rib->cap_changed ? rib->cap_changed * 2 : 16;
			/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
			struct xfab_rib_path **c = realloc(rib->changed, ncap * sizeof(*c));

			if (!c)
				return -ENOMEM;
			rib->changed = c;
			rib->cap_changed = ncap;
		}
		rib->changed[rib->n_changed++] = p;
		p->refs++;
		p->changed = 1;
	}
	memcpy(p->m, sorted, (size_t)n * sizeof(*sorted));
	p->n = n;
	return 0;
}

size_t xfab_rib_take_paths(struct xfab_rib *rib, struct xfab_rib_path ***paths)
{
	size_t n = rib->n_changed;

	*paths = rib->changed;
	rib->changed = NULL;
	rib->n_changed = rib->cap_changed = 0;
	for (size_t i = 0; i < n; i++)
		(*paths)[i]->changed = 0;
	return n;
}

/* ---- entries ---- */

/* Sets source's entry of node; path is a reference the node takes over.
 * *changed: whether anything differs from before. */
static int entry_set(struct xfab_rib *rib, struct xfab_rib_node *node, int source, int type,
		     int port, struct xfab_rib_path *path, int *changed)
{
	struct xfab_rib_entry **pp = &node->entries, *e;

	while (*pp && (*pp)->source < source)
		pp = &(*pp)->next;
	e = *pp;
	if (e && e->source == source) {
		*changed = e->type != type || e->port != port || e->path != path;
		if (e->path)
			xfab_rib_path_put(rib, e->path);
		e->type = (__u8)type;
		e->port = (__u16)port;
		e->path = path;
		e->gen = rib->gen;
		return 0;
	}
	e = xfab_pool_zalloc(&rib->entry_pool);
	if (!e) {
		if (path)
			xfab_rib_path_put(rib, path);
		return -ENOMEM;
	}
	e->source = (__u8)source;
	e->type = (__u8)type;
	e->port = (__u16)port;
	e->path = path;
	e->gen = rib->gen;
	e->next = *pp;
	*pp = e;
	*changed = 1;
	return 0;
}

int xfab_rib_add(struct xfab_rib *rib, const struct xfab_rib_key *key, int source, int type,
		 int port, const struct xfab_rib_member *m, int n)
{
	struct xfab_rib_path *path = NULL;
	struct xfab_rib_node *node;
	int changed, err;

	if (source < 0 || source >= XFAB_RIB_SRC_COUNT)
		return -EINVAL;
	if (type == XFAB_RIB_PATH) {
		path = path_intern(rib, m, n);
		if (!path)
			return n < 1 || n > XFAB_GROUP_MAX_MEMBERS ? -EINVAL : -ENOMEM;
	}
	node = node_get(rib, key);
	if (!node) {
		if (path)
			xfab_rib_path_put(rib, path);
		return -ENOMEM;
	}
	err = entry_set(rib, node, source, type, port, path, &changed);
	if (!err && changed)
		err = xfab_rib_mark_dirty(rib, node);
	return err;
}

int xfab_rib_add_path(struct xfab_rib *rib, const struct xfab_rib_key *key, int source,
		      struct xfab_rib_path *p)
{
	struct xfab_rib_node *node;
	int changed, err;

	if (source < 0 || source >= XFAB_RIB_SRC_COUNT)
		return -EINVAL;
	node = node_get(rib, key);
	if (!node)
		return -ENOMEM;
	p->refs++;
	err = entry_set(rib, node, source, XFAB_RIB_PATH, 0, p, &changed);
	if (!err && changed)
		err = xfab_rib_mark_dirty(rib, node);
	return err;
}

int xfab_rib_set_protocol(struct xfab_rib *rib, const struct xfab_rib_key *key, int source,
			  __u8 protocol)
{
	struct xfab_rib_node *node = xfab_rib_find(rib, key);

	for (struct xfab_rib_entry *e = node ? node->entries : NULL; e; e = e->next)
		if (e->source == source) {
			if (e->protocol == protocol)
				return 0;
			e->protocol = protocol;
			return xfab_rib_mark_dirty(rib, node);
		}
	return -ENOENT;
}

static void entry_del(struct xfab_rib *rib, struct xfab_rib_node *node, int source)
{
	struct xfab_rib_entry **pp = &node->entries;

	while (*pp && (*pp)->source != source)
		pp = &(*pp)->next;
	if (*pp) {
		struct xfab_rib_entry *e = *pp;

		*pp = e->next;
		entry_free(rib, e);
		xfab_rib_mark_dirty(rib, node);
	}
}

void xfab_rib_del(struct xfab_rib *rib, const struct xfab_rib_key *key, int source)
{
	struct xfab_rib_node *node = xfab_rib_find(rib, key);

	if (node)
		entry_del(rib, node, source);
}

/* ---- the config ---- */

int xfab_rib_members_of(const struct xfab_cfg_route *r, struct xfab_rib_member *m)
{
	if (!r || r->n_nexthops < 1 || r->n_nexthops > XFAB_GROUP_MAX_MEMBERS)
		return -EINVAL;
	memset(m, 0, (size_t)XFAB_GROUP_MAX_MEMBERS * sizeof(*m));
	for (int k = 0; k < r->n_nexthops; k++) {
		m[k].port = (__u16)r->nexthops[k].port;
		m[k].family = (__u8)r->nexthops[k].family;
		m[k].weight = r->weights && r->weights[k] ? r->weights[k] : 1;
		memcpy(m[k].gw, r->nexthops[k].gw, 16);
	}
	return r->n_nexthops;
}

/* The paths one config load interned, by the arrays of the routes they
 * came from (a direct-mapped cache, each with a reference): a full table's
 * routes share one parse of a few nexthop lists, and such a route takes
 * the path again without taking its members apart, sorting and hashing
 * them. Only within one load: the config is not changed meanwhile. */
#define LOAD_PATHS 16

struct load_path {
	const struct xfab_cfg_nexthop *nexthops;
	const __u16 *weights;
	int n;
	struct xfab_rib_path *path;
};

struct load {
	struct xfab_rib *rib;
	struct load_path paths[LOAD_PATHS];
};

static struct xfab_rib_path *load_path(struct load *l, const struct xfab_cfg_route *r)
{
	struct load_path *lp = &l->paths[((uintptr_t)r->nexthops >> 4) % LOAD_PATHS];
	struct xfab_rib_member m[XFAB_GROUP_MAX_MEMBERS];
	struct xfab_rib_path *path;
	int n;

	if (lp->path && lp->nexthops == r->nexthops && lp->weights == r->weights &&
	    lp->n == r->n_nexthops) {
		lp->path->refs++;
		return lp->path;
	}
	n = xfab_rib_members_of(r, m);
	if (n < 0)
		return NULL;
	path = path_intern(l->rib, m, n);
	if (!path)
		return NULL;
	if (lp->path)
		xfab_rib_path_put(l->rib, lp->path);
	*lp = (struct load_path){r->nexthops, r->weights, r->n_nexthops, path};
	path->refs++; /* the cache's */
	return path;
}

static void load_done(struct load *l)
{
	for (int i = 0; i < LOAD_PATHS; i++)
		if (l->paths[i].path)
			xfab_rib_path_put(l->rib, l->paths[i].path);
}

/* Adds one config-derived entry unless this load set that key already
 * (the first of duplicates wins, as validation keeps them apart). */
static int load_one(struct load *l, __u32 table, const struct xfab_prefix *pfx, int source,
		    int type, int port, const struct xfab_cfg_route *r)
{
	struct xfab_rib *rib = l->rib;
	struct xfab_rib_path *path = NULL;
	struct xfab_rib_node *node;
	struct xfab_rib_key key;
	int changed, err;

	xfab_rib_key_of(&key, table, pfx);
	node = node_get(rib, &key);
	if (!node)
		return -ENOMEM;
	for (struct xfab_rib_entry *e = node->entries; e; e = e->next)
		if (e->source == source && e->gen == rib->gen)
			return 0;
	if (type == XFAB_RIB_PATH) {
		if (!r || r->n_nexthops < 1 || r->n_nexthops > XFAB_GROUP_MAX_MEMBERS)
			return -EINVAL;
		path = load_path(l, r);
		if (!path)
			return -ENOMEM;
	}
	err = entry_set(rib, node, source, type, port, path, &changed);
	if (!err && changed)
		err = xfab_rib_mark_dirty(rib, node);
	return err;
}

#define PREFETCH_AHEAD 8

static void prefetch_bucket(const struct xfab_rib *rib, const struct xfab_prefix *pfx)
{
	struct xfab_rib_key key;

	xfab_rib_key_of(&key, 0, pfx);
	__builtin_prefetch(&rib->buckets[key_bucket(rib, &key)]);
}

static void prefetch_node(const struct xfab_rib *rib, const struct xfab_prefix *pfx)
{
	struct xfab_rib_key key;
	const struct xfab_rib_node *n;

	xfab_rib_key_of(&key, 0, pfx);
	n = rib->buckets[key_bucket(rib, &key)];
	if (n)
		__builtin_prefetch(n);
}

static int load_route(struct load *l, __u32 table, const struct xfab_cfg_route *r)
{
	if (r->blackhole)
		return load_one(l, table, &r->pfx, XFAB_RIB_SRC_CONFIG, XFAB_RIB_BLACKHOLE, 0, r);
	return load_one(l, table, &r->pfx, XFAB_RIB_SRC_CONFIG, XFAB_RIB_PATH, 0, r);
}

static int load_config(struct load *l, const struct xfab_config *cfg)
{
	struct xfab_rib *rib = l->rib;
	size_t want = rib->count + 2 * (size_t)cfg->n_addrs + (size_t)cfg->n_tunnels +
		      (size_t)cfg->n_vnet_routes + (size_t)cfg->n_routes + (size_t)cfg->n_te + 2;
	int err = 0;

	if (want > rib->n_buckets)
		grow_nodes(rib, want);
	for (int i = 0; i < cfg->n_addrs && !err; i++) {
		const struct xfab_cfg_addr *a = &cfg->addrs[i];
		struct xfab_prefix self = a->pfx;
		struct xfab_rib_key sk, nk;
		/* a tenant port's subnet is in its VNET's table only */
		int vnet = cfg->ports[a->port].vnet;
		__u32 table = vnet ? XFAB_RIB_TABLE_VNET | (__u32)vnet : 0;

		err = load_one(l, table, &a->pfx, XFAB_RIB_SRC_CONNECTED, XFAB_RIB_CONNECTED,
			       a->port, NULL);
		self.plen = self.family == AF_INET ? 32 : 128;
		xfab_rib_key_of(&sk, table, &self);
		xfab_rib_key_of(&nk, table, &a->pfx);
		if (!err && memcmp(&sk, &nk, sizeof(sk)))
			err = load_one(l, table, &self, XFAB_RIB_SRC_CONNECTED, XFAB_RIB_LOCAL, 0,
				       NULL);
	}
	/* the overlay: tunnel routes and local tenant routes */
	for (int i = 0; i < cfg->n_tunnels && !err; i++)
		err = load_one(l, XFAB_RIB_TABLE_VNET | (__u32)cfg->tunnels[i].vnet,
			       &cfg->tunnels[i].pfx, XFAB_RIB_SRC_CONFIG, XFAB_RIB_TUNNEL, i, NULL);
	for (int i = 0; i < cfg->n_vnet_routes && !err; i++) {
		const struct xfab_cfg_vnet_route *r = &cfg->vnet_routes[i];
		__u32 table = XFAB_RIB_TABLE_VNET | (__u32)r->vnet;

		if (r->rt.n_nexthops)
			err = load_one(l, table, &r->rt.pfx, XFAB_RIB_SRC_CONFIG, XFAB_RIB_PATH, 0,
				       &r->rt);
		else
			err = load_one(l, table, &r->rt.pfx, XFAB_RIB_SRC_CONFIG,
				       XFAB_RIB_CONNECTED, r->port, NULL);
	}
	for (int i = 0; i < cfg->n_routes && !err; i++) {
		/* a million prefixes miss the cache in a hash table of 16 MB:
		 * the bucket of a route a little ahead, then its first node */
		if (i + 2 * PREFETCH_AHEAD < cfg->n_routes)
			prefetch_bucket(rib, &cfg->routes[i + 2 * PREFETCH_AHEAD].pfx);
		if (i + PREFETCH_AHEAD < cfg->n_routes)
			prefetch_node(rib, &cfg->routes[i + PREFETCH_AHEAD].pfx);
		err = load_route(l, 0, &cfg->routes[i]);
	}
	for (int i = 0; i < cfg->n_te && !err; i++)
		err =
		    load_route(l, XFAB_RIB_TABLE_TE | (__u32)cfg->te[i].in_port, &cfg->te[i].path);
	for (int f = 0; cfg->repair_bounce && f < 2 && !err; f++) {
		struct xfab_prefix any = {.family = f ? AF_INET6 : AF_INET};

		err = load_one(l, XFAB_RIB_TABLE_REPAIR, &any, XFAB_RIB_SRC_CONFIG, XFAB_RIB_PATH,
			       0, &cfg->repair);
	}
	if (err)
		return err;
	/* what this load did not set is gone from the config */
	for (size_t b = 0; b < rib->n_buckets; b++)
		for (struct xfab_rib_node *n = rib->buckets[b]; n; n = n->hnext) {
			struct xfab_rib_entry **pp = &n->entries;

			while (*pp) {
				struct xfab_rib_entry *e = *pp;

				if (e->source <= XFAB_RIB_SRC_CONFIG && e->gen != rib->gen) {
					*pp = e->next;
					entry_free(rib, e);
					if (xfab_rib_mark_dirty(rib, n))
						err = -ENOMEM;
				} else {
					pp = &e->next;
				}
			}
		}
	return err;
}

int xfab_rib_load_config(struct xfab_rib *rib, const struct xfab_config *cfg)
{
	struct load l = {.rib = rib};
	int err;

	rib->gen++;
	err = load_config(&l, cfg);
	load_done(&l);
	return err;
}
