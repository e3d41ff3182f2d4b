// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ROUTE (or SONiC's STATIC_ROUTE, sonic_route.c): the entries (their path
 * is l3_path.c), read into one array sized ahead, and their duplicates found
 * once all are read. */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* "TABLE|" and the entry's key, cut as snprintf would: a million routes
 * each format their key for errors they almost never have. */
static void route_key(char *key, size_t len, const char *table, const char *name)
{
	size_t t = strlen(table), n = strnlen(name, len - t - 2);

	memcpy(key, table, t);
	key[t] = '|';
	memcpy(key + t + 1, name, n);
	key[t + 1 + n] = '\0';
}

int cfg_reserve_routes(struct ctx *c, size_t n)
{
	size_t len = n * sizeof(*c->cfg->routes), huge = (size_t)2 << 20;
	struct xfab_cfg_route *routes;
	uintptr_t from, to;

	if (c->cfg->routes || !n)
		return 0;
	routes = malloc(len);
	if (!routes)
		return -1;
	/* its whole 2 MB pages on huge pages where the kernel gives them */
	from = ((uintptr_t)routes + huge - 1) & ~(uintptr_t)(huge - 1);
	to = ((uintptr_t)routes + len) & ~(uintptr_t)(huge - 1);
	if (to > from)
		madvise((void *)from, to - from, MADV_HUGEPAGE);
	c->cfg->routes = routes;
	c->routes_cap = n;
	return 0;
}

void cfg_parse_route(struct ctx *c, const struct json_value *e, const char *prefix)
{
	static const char *const fields[] = {"nexthop",	 "ifname",	"blackhole", "weight",
					     "distance", "nexthop-vrf", NULL};
	const struct xfab_cfg_route *last;
	const struct json_value *fnh;
	struct xfab_cfg_route rt, *routes;
	char key[160];

	memset(&rt, 0, sizeof(rt));
	route_key(key, sizeof(key), c->route_table, e->key);
	if (cfg_check_fields(c, e, key, fields))
		return;
	if (cfg_parse_key_prefix(c, e, key, prefix, &rt.pfx))
		return;
	rt.pos = e->key_pos;
	rt.key = e->key; /* duplicates are found once all routes are read */
	if (cfg_prefix_is_own(c, e, key, &rt.pfx, 1))
		return;
	if ((size_t)c->cfg->n_routes == c->routes_cap) {
		size_t cap = c->routes_cap ? 2 * c->routes_cap : 8;
		struct xfab_cfg_route *more = realloc(c->cfg->routes, cap * sizeof(rt));

		if (!more) { /* the routes so far stay the config's */
			cfg_add_error(c, e->key_pos, key, "out of memory");
			return;
		}
		c->cfg->routes = more;
		c->routes_cap = cap;
	}
	routes = c->cfg->routes;
	fnh = xfab_json_get(e, "nexthop");
	last = c->last_route >= 0 ? &routes[c->last_route] : NULL;
	if (fnh && fnh->type == JSON_STRING && e->count == 1 && c->last_nh_text && last &&
	    last->pfx.family == rt.pfx.family &&
	    (fnh->str == c->last_nh_text || !strcmp(fnh->str, c->last_nh_text))) {
		/* The same plain list as the route before: share its parse. */
		rt.nexthops = last->nexthops;
		rt.weights = last->weights;
		rt.n_nexthops = last->n_nexthops;
		rt.shared = 1;
	} else if (cfg_parse_path(c, e, key, &rt) || cfg_parse_route_compat(c, e, key, &rt)) {
		free(rt.nexthops);
		free(rt.weights);
		return;
	} else {
		c->last_nh_text = !rt.blackhole && e->count == 1 && fnh && fnh->type == JSON_STRING
				      ? fnh->str
				      : NULL;
	}
	/* routes is set here (the capacity test above, or cfg_reserve_routes
	 * before it); the analyser cannot see that cfg_parse_path (l3_path.c)
	 * leaves c->cfg alone and follows a path where it is NULL. */
	/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): see above */
	routes[c->cfg->n_routes++] = rt;
	c->last_route = c->cfg->n_routes - 1;
}

static int cmp_prefix(const struct xfab_prefix *x, const struct xfab_prefix *y)
{
	int c = x->family - y->family;

	if (!c)
		c = x->plen - y->plen;
	return c ? c : memcmp(x->addr, y->addr, 16);
}

static __u32 prefix_hash(const struct xfab_prefix *p)
{
	__u64 w[2], h = (__u64)p->family << 8 | (__u64)p->plen;

	memcpy(w, p->addr, 16);
	h = (h ^ w[0]) * 0xff51afd7ed558ccdull;
	h = (h ^ h >> 32 ^ w[1]) * 0xc4ceb9fe1a85ec53ull;
	return (__u32)(h ^ h >> 32);
}

/* A route and the one before it with the same prefix. */
struct route_dup {
	struct xfab_prefix pfx;
	int first, again;
};

static int cmp_route_dup(const void *a, const void *b)
{
	const struct route_dup *x = a, *y = b;
	int c = cmp_prefix(&x->pfx, &y->pfx);

	return c ? c : x->again - y->again;
}

/* The same prefix twice (also spelt differently): the routes go into a hash
 * table by prefix (n, not a sort of a million), and what is found twice is
 * reported in the order of a sort by prefix, each after the one before. */
void cfg_check_duplicate_routes(struct ctx *c)
{
	const struct xfab_cfg_route *routes = c->cfg->routes;
	int n = c->cfg->n_routes, n_dups = 0, cap_dups = 0;
	struct route_dup *dups = NULL;
	size_t n_slots = 1024;
	__u64 *slots; /* hash (high half), route index + 1 (low half; 0: empty) */
	__u32 *hashes = NULL;
	char key[160];

	while (n_slots < 2 * (size_t)n)
		n_slots *= 2;
	slots = calloc(n_slots, sizeof(*slots));
	hashes = malloc((size_t)(n ? n : 1) * sizeof(*hashes));
	if (!slots || !hashes)
		goto oom;
	/* the hashes first, so the slot of a route a little ahead can be
	 * fetched while this one is looked up (a million miss the cache) */
	for (int k = 0; k < n; k++)
		hashes[k] = prefix_hash(&routes[k].pfx);
	for (int k = 0; k < n; k++) {
		__u32 h = hashes[k];
		size_t j = h & (n_slots - 1);

		if (k + 16 < n)
			__builtin_prefetch(&slots[hashes[k + 16] & (n_slots - 1)]);

		for (; slots[j]; j = (j + 1) & (n_slots - 1)) {
			int o = (int)(__u32)slots[j] - 1;

			if ((__u32)(slots[j] >> 32) == h &&
			    !cmp_prefix(&routes[o].pfx, &routes[k].pfx))
				break;
		}
		if (slots[j]) {
			if (n_dups == cap_dups) {
				struct route_dup *more;

				cap_dups = cap_dups ? cap_dups * 2 : 16;
				more = realloc(dups, (size_t)cap_dups * sizeof(*dups));
				if (!more)
					goto oom;
				dups = more;
			}
			dups[n_dups++] =
			    (struct route_dup){routes[k].pfx, (int)(__u32)slots[j] - 1, k};
		}
		slots[j] = (__u64)h << 32 | (__u32)(k + 1); /* the latest of its prefix */
	}
	if (n_dups > 1)
		qsort(dups, (size_t)n_dups, sizeof(*dups), cmp_route_dup);
	for (int k = 0; k < n_dups; k++) {
		const struct xfab_cfg_route *a = &routes[dups[k].first],
					    *b = &routes[dups[k].again];

		route_key(key, sizeof(key), c->route_table, b->key);
		cfg_add_error(c, b->pos, key, "the same prefix is already routed (line %d)",
			      a->pos.line);
	}
	free(slots);
	free(hashes);
	free(dups);
	return;
oom:
	cfg_add_error(c, (struct json_pos){0, 0}, c->route_table, "out of memory");
	free(slots);
	free(hashes);
	free(dups);
}
