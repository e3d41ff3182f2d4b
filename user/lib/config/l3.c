// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* INTERFACE, ROUTE and NEIGH: addresses, routes and their paths, and the
 * prefixes they may not take. */
#include "internal.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int addr_overlaps(const struct xfab_cfg_addr *a, const struct xfab_prefix *p)
{
	const struct xfab_prefix *narrow = a->pfx.plen > p->plen ? &a->pfx : p;
	const struct xfab_prefix *wide = a->pfx.plen > p->plen ? p : &a->pfx;

	return xfab_prefix_contains(wide, narrow->family, narrow->addr);
}

/* What a port's own address may not be. */
static int port_addr_bad(struct ctx *c, const struct json_value *e, const char *key,
			 const struct xfab_prefix *pfx)
{
	int bits = pfx->family == AF_INET ? 32 : 128;
	const char *why = cfg_addr_unusable(pfx->family, pfx->addr);
	char a[INET6_ADDRSTRLEN];

	cfg_addr_str(pfx->family, pfx->addr, a, sizeof(a));
	if (why) {
		cfg_add_error(c, e->key_pos, key, "%s is %s, not a port address", a, why);
		return -1;
	}
	if (cfg_addr_link_local6(pfx->family, pfx->addr)) {
		cfg_add_error(c, e->key_pos, key,
			      "%s is link-local: the kernel gives every port its own (fe80::/10)",
			      a);
		return -1;
	}
	if (pfx->plen == bits) {
		cfg_add_error(
		    c, e->key_pos, key,
		    "a port address needs a subnet: /%d leaves no neighbour (at most /%d)", bits,
		    bits - 1);
		return -1;
	}
	why = cfg_addr_subnet_edge(pfx, pfx->addr);
	if (why) {
		cfg_add_error(c, e->key_pos, key, "%s is %s of /%d, no host's", a, why, pfx->plen);
		return -1;
	}
	return 0;
}

/* A port's own entry: SONiC's bare "Ethernet0": {} enables routing; with
 * vnet_name the port belongs to that tenant (VNET), its subnets and routes
 * in the tenant's table. */
static void parse_port_entry(struct ctx *c, const struct json_value *e, const char *key, int port)
{
	static const char *const fields[] = {"vnet_name", NULL};
	const struct json_value *f;
	char fk[192], buf[64];
	const char *name;

	if (cfg_check_fields(c, e, key, fields))
		return;
	f = json_get(e, "vnet_name");
	if (!f)
		return;
	cfg_field_key(fk, sizeof(fk), key, "vnet_name");
	name = cfg_field_text(c, f, fk, buf, sizeof(buf));
	if (!name)
		return;
	c->cfg->ports[port].vnet = cfg_vnet_by_name(c->cfg, name);
	if (!c->cfg->ports[port].vnet)
		cfg_add_error(c, f->pos, fk, "no VNET|%s", name);
}

void cfg_parse_interfaces(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {NULL};
	char key[160], why[160];

	/* the ports' own entries first: which subnets may overlap depends on
	 * the VNET each port is bound to */
	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		int port;

		if (strchr(e->key, '|'))
			continue;
		snprintf(key, sizeof(key), "INTERFACE|%s", e->key);
		port = xfab_config_port_index(c->cfg, e->key);
		if (port < 0)
			cfg_add_error(c, e->key_pos, key, "port \"%s\" is not in the PORT table",
				      e->key);
		else
			parse_port_entry(c, e, key, port);
	}
	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		const char *bar = strchr(e->key, '|');
		struct xfab_cfg_addr addr = {0};
		char ifname[XFAB_IFNAMSIZ + 1];
		size_t n;
		int dup = 0;

		if (!bar) /* done above */
			continue;
		snprintf(key, sizeof(key), "INTERFACE|%s", e->key);
		if (cfg_check_fields(c, e, key, fields))
			continue;
		n = (size_t)(bar - e->key);
		if (n == 0 || n >= sizeof(ifname)) {
			cfg_add_error(c, e->key_pos, key, "expected PORT or PORT|ADDRESS/LENGTH");
			continue;
		}
		memcpy(ifname, e->key, n);
		ifname[n] = '\0';
		addr.port = xfab_config_port_index(c->cfg, ifname);
		if (addr.port < 0) {
			cfg_add_error(c, e->key_pos, key, "port \"%s\" is not in the PORT table",
				      ifname);
			continue;
		}
		if (xfab_parse_prefix(bar + 1, &addr.pfx, why, sizeof(why))) {
			cfg_add_error(c, e->key_pos, key, "%s", why);
			continue;
		}
		if (addr.pfx.plen == 0) {
			cfg_add_error(c, e->key_pos, key,
				      "an interface address needs a prefix length > 0");
			continue;
		}
		if (port_addr_bad(c, e, key, &addr.pfx))
			continue;
		for (int k = 0; k < c->cfg->n_addrs; k++) {
			const struct xfab_cfg_addr *o = &c->cfg->addrs[k];

			/* tenants (and the underlay) have tables of their own */
			if (o->pfx.family != addr.pfx.family ||
			    c->cfg->ports[o->port].vnet != c->cfg->ports[addr.port].vnet)
				continue;
			if (!memcmp(o->pfx.addr, addr.pfx.addr, 16)) {
				cfg_add_error(c, e->key_pos, key, "address already on port %s",
					      c->cfg->ports[o->port].name);
				dup = 1;
				break;
			}
			if (o->port != addr.port && addr_overlaps(o, &addr.pfx)) {
				cfg_add_error(c, e->key_pos, key, "subnet overlaps one on port %s",
					      c->cfg->ports[o->port].name);
				dup = 1;
				break;
			}
		}
		if (dup)
			continue;
		c->cfg->addrs = cfg_grow(c->cfg->addrs, c->cfg->n_addrs, sizeof(addr));
		if (!c->cfg->addrs) {
			cfg_add_error(c, e->key_pos, key, "out of memory");
			return;
		}
		c->cfg->addrs[c->cfg->n_addrs++] = addr;
	}
}

/* Port whose connected subnet holds gw, or -1. */
int cfg_connected_port(const struct xfab_config *cfg, int family, const __u8 *gw)
{
	for (int k = 0; k < cfg->n_addrs; k++)
		if (!cfg->ports[cfg->addrs[k].port].vnet && /* the underlay's only */
		    xfab_prefix_contains(&cfg->addrs[k].pfx, family, gw))
			return cfg->addrs[k].port;
	return -1;
}

int cfg_is_local_addr(const struct xfab_config *cfg, int family, const __u8 *a)
{
	for (int k = 0; k < cfg->n_addrs; k++)
		if (cfg->addrs[k].pfx.family == family &&
		    !memcmp(cfg->addrs[k].pfx.addr, a, family == AF_INET ? 4 : 16))
			return 1;
	return 0;
}

/* A field holding a comma-separated list (at most XFAB_GROUP_MAX_MEMBERS
 * items, none empty). */
struct list {
	char *copy;
	char *items[XFAB_GROUP_MAX_MEMBERS];
	int n;
};

static int parse_list(struct ctx *c, const struct json_value *f, const char *fk, const char *what,
		      struct list *l)
{
	if (f->type != JSON_STRING && f->type != JSON_NUMBER) {
		cfg_add_error(c, f->pos, fk, "expected a comma-separated string of %s", what);
		return -1;
	}
	l->copy = strdup(f->str);
	if (!l->copy) {
		cfg_add_error(c, f->pos, fk, "out of memory");
		return -1;
	}
	l->n = cfg_split_list(l->copy, l->items, XFAB_GROUP_MAX_MEMBERS);
	if (l->n == CFG_LIST_TOO_MANY) {
		cfg_add_error(c, f->pos, fk, "more than %d %s", XFAB_GROUP_MAX_MEMBERS, what);
		return -1;
	}
	if (l->n == CFG_LIST_EMPTY_ITEM) {
		cfg_add_error(c, f->pos, fk, "an empty item in the list of %s", what);
		return -1;
	}
	return 0;
}

/* One list per nexthop: as many items as nexthops. */
static int parse_list_per_nexthop(struct ctx *c, const struct json_value *f, const char *key,
				  const char *field, const char *what, int n_nh, struct list *l)
{
	char fk[160];

	cfg_field_key(fk, sizeof(fk), key, field);
	if (parse_list(c, f, fk, what, l))
		return -1;
	if (l->n != n_nh) {
		cfg_add_error(c, f->pos, fk, "%d %s for %d nexthops (need one per nexthop)", l->n,
			      what, n_nh);
		return -1;
	}
	return 0;
}

/* The k-th nexthop: an address a neighbour may have, on a port. */
static int parse_nexthop(struct ctx *c, const struct json_value *fnh, const struct json_value *fif,
			 const char *key, const char *text, const char *ifname,
			 struct xfab_cfg_route *rt, int k)
{
	struct xfab_cfg_nexthop *nh = &rt->nexthops[k];
	char fk[160], fki[160];
	const char *why;
	int conn;

	cfg_field_key(fk, sizeof(fk), key, "nexthop");
	cfg_field_key(fki, sizeof(fki), key, "ifname");
	if (cfg_parse_addr(text, &nh->family, nh->gw)) {
		cfg_add_error(c, fnh->pos, fk, "'%s' is not an IP address", text);
		return -1;
	}
	if (nh->family != rt->pfx.family) {
		cfg_add_error(c, fnh->pos, fk, "nexthop %s is not of the prefix's family", text);
		return -1;
	}
	why = cfg_addr_unusable(nh->family, nh->gw);
	if (why) {
		cfg_add_error(c, fnh->pos, fk, "nexthop %s is %s", text, why);
		return -1;
	}
	if (cfg_is_local_addr(c->cfg, nh->family, nh->gw)) {
		cfg_add_error(c, fnh->pos, fk, "nexthop %s is this switch's own address", text);
		return -1;
	}
	conn = cfg_connected_port(c->cfg, nh->family, nh->gw);
	for (int a = 0; conn >= 0 && a < c->cfg->n_addrs; a++) {
		why = xfab_prefix_contains(&c->cfg->addrs[a].pfx, nh->family, nh->gw)
			  ? cfg_addr_subnet_edge(&c->cfg->addrs[a].pfx, nh->gw)
			  : NULL;
		if (why) {
			cfg_add_error(c, fnh->pos, fk, "nexthop %s is %s, no neighbour's", text,
				      why);
			return -1;
		}
	}
	if (ifname) {
		nh->port = xfab_config_port_index(c->cfg, ifname);
		if (nh->port < 0) {
			cfg_add_error(c, fif->pos, fki, "port \"%s\" is not in the PORT table",
				      ifname);
			return -1;
		}
		if (conn >= 0 && conn != nh->port) {
			cfg_add_error(c, fif->pos, fki, "nexthop %s is on port %s's subnet, not %s",
				      text, c->cfg->ports[conn].name, ifname);
			return -1;
		}
	} else if (conn < 0) {
		cfg_add_error(c, fnh->pos, fk,
			      cfg_addr_link_local6(nh->family, nh->gw)
				  ? "nexthop %s is link-local: name its port in \"ifname\""
				  : "nexthop %s is in no connected subnet (INTERFACE)",
			      text);
		return -1;
	} else {
		nh->port = conn;
	}
	for (int j = 0; j < k; j++) {
		if (rt->nexthops[j].port == nh->port && !memcmp(rt->nexthops[j].gw, nh->gw, 16)) {
			cfg_add_error(c, fnh->pos, fk, "nexthop %s listed twice", text);
			return -1;
		}
	}
	return 0;
}

static int parse_weights(struct ctx *c, const struct json_value *fw, const char *key,
			 struct xfab_cfg_route *rt, int n_nh)
{
	struct list l = {0};
	char fk[160], why[160];
	int ret = -1;

	cfg_field_key(fk, sizeof(fk), key, "weight");
	if (parse_list_per_nexthop(c, fw, key, "weight", "weights", n_nh, &l))
		goto out;
	for (int k = 0; k < l.n; k++) {
		__u32 w;

		if (xfab_parse_u32_strict(l.items[k], 1, 1000, &w, why, sizeof(why))) {
			cfg_add_error(c, fw->pos, fk, "weight %s", why);
			goto out;
		}
		rt->weights[k] = (__u16)w;
	}
	ret = 0;
out:
	free(l.copy);
	return ret;
}

/* The path fields shared by ROUTE and TE_PATH: nexthop, ifname, weight and
 * (ROUTE only) blackhole. rt->pfx must be set. */
int cfg_parse_path(struct ctx *c, const struct json_value *e, const char *key,
		   struct xfab_cfg_route *rt)
{
	const struct json_value *fnh, *fif, *fbh, *fw;
	struct list nh = {0}, ifs = {0};
	char fk[160];
	int ret = -1;

	fbh = json_get(e, "blackhole");
	if (fbh) {
		cfg_field_key(fk, sizeof(fk), key, "blackhole");
		if (cfg_parse_bool(c, fbh, fk, &rt->blackhole))
			return -1;
	}
	fnh = json_get(e, "nexthop");
	fif = json_get(e, "ifname");
	fw = json_get(e, "weight");
	if (rt->blackhole) {
		if (fnh || fif || fw) {
			cfg_add_error(c,
				      (fnh   ? fnh
				       : fif ? fif
					     : fw)
					  ->pos,
				      key, "a blackhole route takes no nexthop, ifname or weight");
			return -1;
		}
		return 0;
	}
	if (!fnh) {
		cfg_add_error(c, e->pos, key,
			      "missing field \"nexthop\" (or \"blackhole\": \"true\")");
		return -1;
	}
	cfg_field_key(fk, sizeof(fk), key, "nexthop");
	if (fnh->type != JSON_STRING) {
		cfg_add_error(c, fnh->pos, fk, "expected a comma-separated string of addresses");
		return -1;
	}
	if (parse_list(c, fnh, fk, "nexthops", &nh))
		goto out;
	if (fif && parse_list_per_nexthop(c, fif, key, "ifname", "ports", nh.n, &ifs))
		goto out;
	rt->nexthops = calloc((size_t)nh.n, sizeof(*rt->nexthops));
	rt->weights = calloc((size_t)nh.n, sizeof(*rt->weights));
	if (!rt->nexthops || !rt->weights) {
		cfg_add_error(c, e->pos, key, "out of memory");
		goto out;
	}
	for (int k = 0; k < nh.n; k++)
		rt->weights[k] = 1;
	if (fw && parse_weights(c, fw, key, rt, nh.n))
		goto out;
	for (int k = 0; k < nh.n; k++)
		if (parse_nexthop(c, fnh, fif, key, nh.items[k], fif ? ifs.items[k] : NULL, rt, k))
			goto out;
	rt->n_nexthops = nh.n;
	ret = 0;
out:
	if (ret) {
		free(rt->nexthops);
		free(rt->weights);
		rt->nexthops = NULL;
		rt->weights = NULL;
	}
	free(nh.copy);
	free(ifs.copy);
	return ret;
}

/* A ROUTE (or TE_PATH) prefix that is the switch's own address, or (ROUTE,
 * with subnets) a connected subnet: connected and local entries are the
 * interfaces' and always win, so such a route could never mean anything. */
int cfg_prefix_is_own(struct ctx *c, const struct json_value *e, const char *key,
		      const struct xfab_prefix *pfx, int subnets)
{
	int bits = pfx->family == AF_INET ? 32 : 128;

	for (int k = 0; k < c->cfg->n_addrs; k++) {
		const struct xfab_cfg_addr *a = &c->cfg->addrs[k];
		const char *port = c->cfg->ports[a->port].name;

		if (a->pfx.family != pfx->family)
			continue;
		if (pfx->plen == bits && !memcmp(a->pfx.addr, pfx->addr, 16)) {
			cfg_add_error(c, e->key_pos, key,
				      "prefix is this switch's own address (port %s): it is always "
				      "delivered locally",
				      port);
			return -1;
		}
		if (subnets && a->pfx.plen == pfx->plen &&
		    xfab_prefix_contains(&a->pfx, pfx->family, pfx->addr)) {
			cfg_add_error(c, e->key_pos, key,
				      "prefix is the connected subnet of port %s", port);
			return -1;
		}
	}
	return 0;
}

/* SONiC's "distance" and "nexthop-vrf": one per nexthop. xfab has one VRF
 * and no backup paths, so every distance must be equal and every VRF
 * "default"; anything else would be silently ignored otherwise. */
static int parse_route_compat(struct ctx *c, const struct json_value *e, const char *key,
			      const struct xfab_cfg_route *rt)
{
	const struct json_value *fd = json_get(e, "distance"), *fv = json_get(e, "nexthop-vrf");
	int n = rt->blackhole ? 1 : rt->n_nexthops, ret = -1;
	struct list l = {0};
	char fk[160], why[160];
	__u32 d, d0 = 0;

	if (fd) {
		cfg_field_key(fk, sizeof(fk), key, "distance");
		if (parse_list_per_nexthop(c, fd, key, "distance", "distances", n, &l))
			goto out;
		for (int k = 0; k < l.n; k++) {
			if (xfab_parse_u32_strict(l.items[k], 0, 255, &d, why, sizeof(why))) {
				cfg_add_error(c, fd->pos, fk, "distance %s", why);
				goto out;
			}
			if (k && d != d0) {
				cfg_add_error(
				    c, fd->pos, fk,
				    "unequal distances (backup nexthops) are not supported");
				goto out;
			}
			d0 = d;
		}
		free(l.copy);
		l.copy = NULL;
	}
	if (fv) {
		cfg_field_key(fk, sizeof(fk), key, "nexthop-vrf");
		if (parse_list_per_nexthop(c, fv, key, "nexthop-vrf", "VRFs", n, &l))
			goto out;
		for (int k = 0; k < l.n; k++) {
			if (strcmp(l.items[k], "default")) {
				cfg_add_error(c, fv->pos, fk,
					      "VRF '%s': xfab has one VRF, \"default\"",
					      l.items[k]);
				goto out;
			}
		}
	}
	ret = 0;
out:
	free(l.copy);
	return ret;
}

/* "ROUTE|" and the entry's key, cut as snprintf would: a million routes
 * each format their key for errors they almost never have. */
static void route_key(char *key, size_t len, const char *name)
{
	size_t n = strnlen(name, len - sizeof("ROUTE|"));

	memcpy(key, "ROUTE|", sizeof("ROUTE|") - 1);
	memcpy(key + sizeof("ROUTE|") - 1, name, n);
	key[sizeof("ROUTE|") - 1 + n] = '\0';
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

void cfg_parse_route(struct ctx *c, const struct json_value *e)
{
	static const char *const fields[] = {"nexthop",	 "ifname",	"blackhole", "weight",
					     "distance", "nexthop-vrf", NULL};
	const struct xfab_cfg_route *last;
	const struct json_value *fnh;
	struct xfab_cfg_route rt, *routes;
	char key[160];

	memset(&rt, 0, sizeof(rt));
	route_key(key, sizeof(key), e->key);
	if (cfg_check_fields(c, e, key, fields))
		return;
	if (cfg_parse_key_prefix(c, e, key, e->key, &rt.pfx))
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
	fnh = json_get(e, "nexthop");
	last = c->last_route >= 0 ? &routes[c->last_route] : NULL;
	if (fnh && fnh->type == JSON_STRING && e->count == 1 && c->last_nh_text && last &&
	    last->pfx.family == rt.pfx.family &&
	    (fnh->str == c->last_nh_text || !strcmp(fnh->str, c->last_nh_text))) {
		/* The same plain list as the route before: share its parse. */
		rt.nexthops = last->nexthops;
		rt.weights = last->weights;
		rt.n_nexthops = last->n_nexthops;
		rt.shared = 1;
	} else if (cfg_parse_path(c, e, key, &rt) || parse_route_compat(c, e, key, &rt)) {
		free(rt.nexthops);
		free(rt.weights);
		return;
	} else {
		c->last_nh_text = !rt.blackhole && e->count == 1 && fnh && fnh->type == JSON_STRING
				      ? fnh->str
				      : NULL;
	}
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

		snprintf(key, sizeof(key), "ROUTE|%s", b->key);
		cfg_add_error(c, b->pos, key, "the same prefix is already routed (line %d)",
			      a->pos.line);
	}
	free(slots);
	free(hashes);
	free(dups);
	return;
oom:
	cfg_add_error(c, (struct json_pos){0, 0}, "ROUTE", "out of memory");
	free(slots);
	free(hashes);
	free(dups);
}

/* NEIGH|PORT|ADDRESS: the neighbour must be one this port can reach. */
static int neigh_addr_bad(struct ctx *c, const struct json_value *e, const char *key,
			  const struct xfab_cfg_neigh *nb, const char *text)
{
	const char *why = cfg_addr_unusable(nb->family, nb->addr);
	int in_subnet = 0;

	if (why) {
		cfg_add_error(c, e->key_pos, key, "%s is %s, no neighbour's", text, why);
		return -1;
	}
	if (cfg_is_local_addr(c->cfg, nb->family, nb->addr)) {
		cfg_add_error(c, e->key_pos, key, "%s is this switch's own address", text);
		return -1;
	}
	if (cfg_addr_link_local6(nb->family, nb->addr))
		return 0; /* every IPv6 port has fe80::/64 on link */
	for (int k = 0; k < c->cfg->n_addrs; k++) {
		const struct xfab_cfg_addr *a = &c->cfg->addrs[k];

		if (a->port != nb->port || !xfab_prefix_contains(&a->pfx, nb->family, nb->addr))
			continue;
		why = cfg_addr_subnet_edge(&a->pfx, nb->addr);
		if (why) {
			cfg_add_error(c, e->key_pos, key, "%s is %s, no neighbour's", text, why);
			return -1;
		}
		in_subnet = 1;
	}
	if (!in_subnet) {
		cfg_add_error(c, e->key_pos, key,
			      "%s is in no connected subnet of port %s (INTERFACE)", text,
			      c->cfg->ports[nb->port].name);
		return -1;
	}
	return 0;
}

static int neigh_fields(struct ctx *c, const struct json_value *e, const char *key,
			struct xfab_cfg_neigh *nb)
{
	static const __u8 zero[6];
	const struct json_value *f = json_get(e, "neigh");
	char fk[160];

	cfg_field_key(fk, sizeof(fk), key, "neigh");
	if (!f) {
		cfg_add_error(c, e->pos, key, "missing field \"neigh\" (the MAC address)");
		return -1;
	}
	if (f->type != JSON_STRING || xfab_parse_mac(f->str, nb->mac)) {
		cfg_add_error(c, f->pos, fk, "expected a MAC address like 02:00:00:00:00:01");
		return -1;
	}
	if (nb->mac[0] & 1) {
		cfg_add_error(c, f->pos, fk, "a neighbour MAC cannot be multicast");
		return -1;
	}
	if (!memcmp(nb->mac, zero, 6)) {
		cfg_add_error(c, f->pos, fk, "a neighbour MAC cannot be all zeros");
		return -1;
	}
	f = json_get(e, "family");
	if (f) {
		const char *want = nb->family == AF_INET ? "IPv4" : "IPv6";

		cfg_field_key(fk, sizeof(fk), key, "family");
		if (f->type != JSON_STRING || (strcmp(f->str, "IPv4") && strcmp(f->str, "IPv6"))) {
			cfg_add_error(c, f->pos, fk, "family must be IPv4 or IPv6");
			return -1;
		}
		if (strcmp(f->str, want)) {
			cfg_add_error(c, f->pos, fk, "family %s, but the address is %s", f->str,
				      want);
			return -1;
		}
	}
	return 0;
}

struct neigh_seen {
	const struct xfab_cfg_neigh *nb;
	struct json_pos pos;
	int line_order;
};

static int cmp_neigh_seen(const void *a, const void *b)
{
	const struct neigh_seen *x = a, *y = b;
	int c = x->nb->port - y->nb->port;

	if (!c)
		c = x->nb->family - y->nb->family;
	if (!c)
		c = memcmp(x->nb->addr, y->nb->addr, 16);
	return c ? c : x->line_order - y->line_order;
}

/* The same neighbour twice, whatever its spelling (fd00::2, fd00:0::2). */
static void check_duplicate_neighs(struct ctx *c, const struct json_value *tbl,
				   struct neigh_seen *seen, int n)
{
	char key[160];

	qsort(seen, (size_t)n, sizeof(*seen), cmp_neigh_seen);
	for (int k = 1; k < n; k++) {
		if (seen[k - 1].nb->port != seen[k].nb->port ||
		    seen[k - 1].nb->family != seen[k].nb->family ||
		    memcmp(seen[k - 1].nb->addr, seen[k].nb->addr, 16))
			continue;
		snprintf(key, sizeof(key), "NEIGH|%s", tbl->children[seen[k].line_order].key);
		cfg_add_error(c, seen[k].pos, key, "the same neighbour is already set (line %d)",
			      seen[k - 1].pos.line);
	}
}

void cfg_parse_neighs(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"neigh", "family", NULL};
	struct neigh_seen *seen;
	int n_seen = 0;
	char key[160];

	if (tbl->count > XFAB_MAX_NEIGHBORS) {
		cfg_add_error(c, tbl->children[XFAB_MAX_NEIGHBORS].key_pos, "NEIGH",
			      "more than %d static neighbours", XFAB_MAX_NEIGHBORS);
		return;
	}
	seen = calloc(tbl->count ? tbl->count : 1, sizeof(*seen));
	c->cfg->neighs = calloc(tbl->count ? tbl->count : 1, sizeof(*c->cfg->neighs));
	if (!seen || !c->cfg->neighs) {
		cfg_add_error(c, tbl->pos, "NEIGH", "out of memory");
		free(seen);
		return;
	}
	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		const char *bar = strchr(e->key, '|');
		struct xfab_cfg_neigh nb = {0};
		char ifname[XFAB_IFNAMSIZ + 1];
		size_t n;

		snprintf(key, sizeof(key), "NEIGH|%s", e->key);
		if (cfg_check_fields(c, e, key, fields))
			continue;
		n = bar ? (size_t)(bar - e->key) : 0;
		if (!bar || n == 0 || n >= sizeof(ifname)) {
			cfg_add_error(c, e->key_pos, key, "expected PORT|ADDRESS");
			continue;
		}
		memcpy(ifname, e->key, n);
		ifname[n] = '\0';
		nb.port = xfab_config_port_index(c->cfg, ifname);
		if (nb.port < 0) {
			cfg_add_error(c, e->key_pos, key, "port \"%s\" is not in the PORT table",
				      ifname);
			continue;
		}
		if (cfg_parse_addr(bar + 1, &nb.family, nb.addr)) {
			cfg_add_error(c, e->key_pos, key, "'%s' is not an IP address", bar + 1);
			continue;
		}
		if (neigh_addr_bad(c, e, key, &nb, bar + 1) || neigh_fields(c, e, key, &nb))
			continue;
		c->cfg->neighs[c->cfg->n_neighs] = nb;
		seen[n_seen++] = (struct neigh_seen){.nb = &c->cfg->neighs[c->cfg->n_neighs++],
						     .pos = e->key_pos,
						     .line_order = (int)i};
	}
	check_duplicate_neighs(c, tbl, seen, n_seen);
	free(seen);
}

/* The feature "interfaces". */
void cfg_read_interfaces(struct ctx *c, const struct json_value *root)
{
	cfg_read_table(c, root, "INTERFACE", cfg_parse_interfaces);
}

/* The feature "neighbours". */
void cfg_read_neighs(struct ctx *c, const struct json_value *root)
{
	cfg_read_table(c, root, "NEIGH", cfg_parse_neighs);
}
