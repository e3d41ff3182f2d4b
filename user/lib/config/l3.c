// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* INTERFACE, ROUTE and NEIGH: addresses, routes and their paths, and the
 * FIB capacity checks. */
#include "fib6.h"
#include "internal.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int addr_overlaps(const struct xfab_cfg_addr *a, const struct xfab_prefix *p)
{
	const struct xfab_prefix *narrow = a->pfx.plen > p->plen ? &a->pfx : p;
	const struct xfab_prefix *wide = a->pfx.plen > p->plen ? p : &a->pfx;

	return xfab_prefix_contains(wide, narrow->family, narrow->addr);
}

void cfg_parse_interfaces(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {NULL};
	char key[160], why[160];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		const char *bar = strchr(e->key, '|');
		struct xfab_cfg_addr addr = {0};
		char ifname[XFAB_IFNAMSIZ + 1];
		size_t n;
		int dup = 0;

		snprintf(key, sizeof(key), "INTERFACE|%s", e->key);
		if (cfg_check_fields(c, e, key, fields))
			continue;
		n = bar ? (size_t)(bar - e->key) : strlen(e->key);
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
		if (!bar) /* SONiC's bare "Ethernet0": {} entry enables routing */
			continue;
		if (xfab_parse_prefix(bar + 1, &addr.pfx, why, sizeof(why))) {
			cfg_add_error(c, e->key_pos, key, "%s", why);
			continue;
		}
		if (addr.pfx.plen == 0) {
			cfg_add_error(c, e->key_pos, key,
				      "an interface address needs a prefix length > 0");
			continue;
		}
		for (int k = 0; k < c->cfg->n_addrs; k++) {
			const struct xfab_cfg_addr *o = &c->cfg->addrs[k];

			if (o->pfx.family != addr.pfx.family)
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
		if (xfab_prefix_contains(&cfg->addrs[k].pfx, family, gw))
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

/* The path fields shared by ROUTE and TE_PATH: nexthop, ifname, weight and
 * (ROUTE only) blackhole. rt->pfx must be set. */
int cfg_parse_path(struct ctx *c, const struct json_value *e, const char *key,
		   struct xfab_cfg_route *rt)
{
	const struct json_value *fnh, *fif, *fbh, *fw;
	char fk[160];
	char *nh_items[XFAB_GROUP_MAX_MEMBERS + 1], *if_items[XFAB_GROUP_MAX_MEMBERS + 1];
	char *w_items[XFAB_GROUP_MAX_MEMBERS + 1];
	char *nh_copy = NULL, *if_copy = NULL, *w_copy = NULL;
	int n_nh = 0, n_if = 0, n_w = 0, ret = -1;

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
	nh_copy = strdup(fnh->str);
	if (fif && fif->type != JSON_STRING) {
		cfg_field_key(fk, sizeof(fk), key, "ifname");
		cfg_add_error(c, fif->pos, fk, "expected a comma-separated string of ports");
		goto out;
	}
	if (fw && fw->type != JSON_STRING && fw->type != JSON_NUMBER) {
		cfg_field_key(fk, sizeof(fk), key, "weight");
		cfg_add_error(c, fw->pos, fk, "expected a comma-separated string of weights");
		goto out;
	}
	if_copy = fif ? strdup(fif->str) : NULL;
	w_copy = fw ? strdup(fw->str) : NULL;
	if (!nh_copy || (fif && !if_copy) || (fw && !w_copy)) {
		cfg_add_error(c, e->pos, key, "out of memory");
		goto out;
	}
	n_nh = cfg_split_list(nh_copy, nh_items, XFAB_GROUP_MAX_MEMBERS);
	if (n_nh < 0) {
		cfg_add_error(c, fnh->pos, fk, "more than %d nexthops", XFAB_GROUP_MAX_MEMBERS);
		goto out;
	}
	if (n_nh == 0) {
		cfg_add_error(c, fnh->pos, fk, "no nexthop given");
		goto out;
	}
	if (if_copy) {
		n_if = cfg_split_list(if_copy, if_items, XFAB_GROUP_MAX_MEMBERS);
		if (n_if != n_nh) {
			cfg_field_key(fk, sizeof(fk), key, "ifname");
			cfg_add_error(c, fif->pos, fk,
				      "%d ports for %d nexthops (need one per nexthop)",
				      n_if < 0 ? XFAB_GROUP_MAX_MEMBERS + 1 : n_if, n_nh);
			goto out;
		}
	}
	rt->nexthops = calloc((size_t)n_nh, sizeof(*rt->nexthops));
	rt->weights = calloc((size_t)n_nh, sizeof(*rt->weights));
	if (!rt->nexthops || !rt->weights) {
		cfg_add_error(c, e->pos, key, "out of memory");
		goto out;
	}
	if (w_copy) {
		n_w = cfg_split_list(w_copy, w_items, XFAB_GROUP_MAX_MEMBERS);
		cfg_field_key(fk, sizeof(fk), key, "weight");
		if (n_w != n_nh) {
			cfg_add_error(c, fw->pos, fk,
				      "%d weights for %d nexthops (need one per nexthop)",
				      n_w < 0 ? XFAB_GROUP_MAX_MEMBERS + 1 : n_w, n_nh);
			goto out;
		}
		for (int k = 0; k < n_w; k++) {
			char *end;
			long w = strtol(w_items[k], &end, 10);

			if (*end != '\0' || end == w_items[k] || w < 1 || w > 1000) {
				cfg_add_error(c, fw->pos, fk,
					      "weight '%s' must be a whole number 1..1000",
					      w_items[k]);
				goto out;
			}
			rt->weights[k] = (__u16)w;
		}
	} else {
		for (int k = 0; k < n_nh; k++)
			rt->weights[k] = 1;
	}
	for (int k = 0; k < n_nh; k++) {
		struct xfab_cfg_nexthop *nh = &rt->nexthops[k];
		int family = strchr(nh_items[k], ':') ? AF_INET6 : AF_INET;

		cfg_field_key(fk, sizeof(fk), key, "nexthop");
		if (inet_pton(family, nh_items[k], nh->gw) != 1) {
			cfg_add_error(c, fnh->pos, fk, "'%s' is not an IP address", nh_items[k]);
			goto out;
		}
		nh->family = family;
		if (family != rt->pfx.family) {
			cfg_add_error(c, fnh->pos, fk, "nexthop %s is not of the prefix's family",
				      nh_items[k]);
			goto out;
		}
		if (cfg_is_local_addr(c->cfg, family, nh->gw)) {
			cfg_add_error(c, fnh->pos, fk, "nexthop %s is this switch's own address",
				      nh_items[k]);
			goto out;
		}
		if (if_copy) {
			nh->port = xfab_config_port_index(c->cfg, if_items[k]);
			if (nh->port < 0) {
				cfg_field_key(fk, sizeof(fk), key, "ifname");
				cfg_add_error(c, fif->pos, fk,
					      "port \"%s\" is not in the PORT table", if_items[k]);
				goto out;
			}
		} else {
			nh->port = cfg_connected_port(c->cfg, family, nh->gw);
			if (nh->port < 0) {
				cfg_add_error(c, fnh->pos, fk,
					      "nexthop %s is in no connected subnet (INTERFACE)",
					      nh_items[k]);
				goto out;
			}
		}
		for (int j = 0; j < k; j++) {
			if (rt->nexthops[j].port == nh->port &&
			    !memcmp(rt->nexthops[j].gw, nh->gw, 16)) {
				cfg_add_error(c, fnh->pos, fk, "nexthop %s listed twice",
					      nh_items[k]);
				goto out;
			}
		}
	}
	rt->n_nexthops = n_nh;
	ret = 0;
out:
	if (ret) {
		free(rt->nexthops);
		free(rt->weights);
		rt->nexthops = NULL;
		rt->weights = NULL;
	}
	free(nh_copy);
	free(if_copy);
	free(w_copy);
	return ret;
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
	snprintf(key, sizeof(key), "ROUTE|%s", e->key);
	if (cfg_check_fields(c, e, key, fields))
		return;
	if (cfg_parse_key_prefix(c, e, key, e->key, &rt.pfx))
		return;
	rt.pos = e->key_pos;
	rt.key = e->key; /* duplicates are found once all routes are read */
	for (int k = 0; k < c->cfg->n_addrs; k++) {
		struct xfab_prefix subnet = c->cfg->addrs[k].pfx;

		if (subnet.family != rt.pfx.family || subnet.plen != rt.pfx.plen)
			continue;
		if (xfab_prefix_contains(&subnet, rt.pfx.family, rt.pfx.addr)) {
			cfg_add_error(c, e->key_pos, key,
				      "prefix is the connected subnet of port %s",
				      c->cfg->ports[c->cfg->addrs[k].port].name);
			return;
		}
	}
	routes = cfg_grow(c->cfg->routes, c->cfg->n_routes, sizeof(rt));
	if (!routes) {
		cfg_add_error(c, e->key_pos, key, "out of memory");
		return;
	}
	c->cfg->routes = routes;
	fnh = json_get(e, "nexthop");
	last = c->last_route >= 0 ? &routes[c->last_route] : NULL;
	if (fnh && fnh->type == JSON_STRING && e->count == 1 && c->last_nh_text && last &&
	    last->pfx.family == rt.pfx.family && !strcmp(fnh->str, c->last_nh_text)) {
		/* The same plain list as the route before: share its parse. */
		rt.nexthops = last->nexthops;
		rt.weights = last->weights;
		rt.n_nexthops = last->n_nexthops;
		rt.shared = 1;
	} else if (cfg_parse_path(c, e, key, &rt)) {
		return;
	} else {
		c->last_nh_text = !rt.blackhole && e->count == 1 && fnh && fnh->type == JSON_STRING
				      ? fnh->str
				      : NULL;
	}
	routes[c->cfg->n_routes++] = rt;
	c->last_route = c->cfg->n_routes - 1;
}

static const struct xfab_cfg_route *sort_routes;

static int cmp_route_prefix(const void *a, const void *b)
{
	const struct xfab_cfg_route *x = &sort_routes[*(const int *)a];
	const struct xfab_cfg_route *y = &sort_routes[*(const int *)b];
	int c = x->pfx.family - y->pfx.family;

	if (!c)
		c = x->pfx.plen - y->pfx.plen;
	if (!c)
		c = memcmp(x->pfx.addr, y->pfx.addr, 16);
	return c ? c : *(const int *)a - *(const int *)b;
}

/* The same prefix twice (also spelt differently): sorted, n log n. */
void cfg_check_duplicate_routes(struct ctx *c)
{
	int n = c->cfg->n_routes, *idx = malloc((size_t)(n ? n : 1) * sizeof(int));
	char key[160];

	if (!idx) {
		struct json_pos none = {0, 0};

		cfg_add_error(c, none, "ROUTE", "out of memory");
		return;
	}
	for (int k = 0; k < n; k++)
		idx[k] = k;
	sort_routes = c->cfg->routes;
	qsort(idx, (size_t)n, sizeof(int), cmp_route_prefix);
	for (int k = 1; k < n; k++) {
		const struct xfab_cfg_route *a = &c->cfg->routes[idx[k - 1]];
		const struct xfab_cfg_route *b = &c->cfg->routes[idx[k]];

		if (a->pfx.family == b->pfx.family && a->pfx.plen == b->pfx.plen &&
		    !memcmp(a->pfx.addr, b->pfx.addr, 16)) {
			snprintf(key, sizeof(key), "ROUTE|%s", b->key);
			cfg_add_error(c, b->pos, key, "the same prefix is already routed (line %d)",
				      a->pos.line);
		}
	}
	free(idx);
}

/* The IPv4 FIB has XFAB_FIB4_TBL8_GROUPS second-level groups: one per /24
 * that holds a longer prefix (a route, or an interface's own /32 and its
 * subnet). The route that would need one more is refused. */
void cfg_check_fib4_groups(struct ctx *c)
{
	__u8 *seen = calloc(XFAB_FIB4_TBL24_SIZE / 8, 1);
	int used = 0;
	char key[160];

	if (!seen) {
		struct json_pos none = {0, 0};

		cfg_add_error(c, none, "ROUTE", "out of memory");
		return;
	}
	for (int k = 0; k < c->cfg->n_addrs + c->cfg->n_routes; k++) {
		const struct xfab_prefix *p = k < c->cfg->n_addrs
						  ? &c->cfg->addrs[k].pfx
						  : &c->cfg->routes[k - c->cfg->n_addrs].pfx;
		__u32 s24 = (__u32)p->addr[0] << 16 | (__u32)p->addr[1] << 8 | p->addr[2];

		/* an interface address always brings its /32 */
		if (p->family != AF_INET || (k >= c->cfg->n_addrs && p->plen <= 24))
			continue;
		if (seen[s24 / 8] & (1u << (s24 % 8)))
			continue;
		seen[s24 / 8] |= (__u8)(1u << (s24 % 8));
		if (++used <= XFAB_FIB4_TBL8_GROUPS || k < c->cfg->n_addrs)
			continue;
		snprintf(key, sizeof(key), "ROUTE|%s", c->cfg->routes[k - c->cfg->n_addrs].key);
		cfg_add_error(c, c->cfg->routes[k - c->cfg->n_addrs].pos, key,
			      "more than %d /24s would hold IPv4 prefixes longer than /24 "
			      "(interface addresses count too): the FIB has no room for this one",
			      XFAB_FIB4_TBL8_GROUPS);
		break;
	}
	free(seen);
}

/* Likewise the IPv6 FIB's groups: one per (level, leading bytes) path that
 * a prefix longer than /16 runs through; an interface address brings its
 * /128 (whose path covers its subnet's). */
void cfg_check_fib6_groups(struct ctx *c)
{
	size_t total = (size_t)c->cfg->n_addrs + (size_t)c->cfg->n_routes, n = 0;
	__u8(*addr)[16] = malloc((total ? total : 1) * 16);
	int *plen = malloc((total ? total : 1) * sizeof(int));
	int *route = malloc((total ? total : 1) * sizeof(int));
	char key[160];
	long over;

	if (!addr || !plen || !route) {
		struct json_pos none = {0, 0};

		cfg_add_error(c, none, "ROUTE", "out of memory");
		goto out;
	}
	for (int k = 0; k < c->cfg->n_addrs + c->cfg->n_routes; k++) {
		int is_route = k >= c->cfg->n_addrs;
		const struct xfab_prefix *p =
		    is_route ? &c->cfg->routes[k - c->cfg->n_addrs].pfx : &c->cfg->addrs[k].pfx;

		if (p->family != AF_INET6)
			continue;
		memcpy(addr[n], p->addr, 16);
		plen[n] = is_route ? p->plen : 128;
		route[n++] = is_route ? k - c->cfg->n_addrs : -1;
	}
	if (xfab_fib6_groups_needed((const __u8(*)[16])addr, plen, n, &over) == (size_t)-1) {
		struct json_pos none = {0, 0};

		cfg_add_error(c, none, "ROUTE", "out of memory");
	} else if (over >= 0 && route[over] >= 0) {
		snprintf(key, sizeof(key), "ROUTE|%s", c->cfg->routes[route[over]].key);
		cfg_add_error(
		    c, c->cfg->routes[route[over]].pos, key,
		    "the IPv6 routes (and interface addresses) would need more than %d FIB "
		    "groups: no room for this one",
		    XFAB_FIB6_GROUPS);
	}
out:
	free(addr);
	free(plen);
	free(route);
}

void cfg_parse_neighs(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"neigh", "family", NULL};
	char key[160], fk[160];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i], *f;
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
		nb.family = strchr(bar + 1, ':') ? AF_INET6 : AF_INET;
		if (inet_pton(nb.family, bar + 1, nb.addr) != 1) {
			cfg_add_error(c, e->key_pos, key, "'%s' is not an IP address", bar + 1);
			continue;
		}
		f = json_get(e, "neigh");
		cfg_field_key(fk, sizeof(fk), key, "neigh");
		if (!f) {
			cfg_add_error(c, e->pos, key, "missing field \"neigh\" (the MAC address)");
			continue;
		}
		if (f->type != JSON_STRING || xfab_parse_mac(f->str, nb.mac)) {
			cfg_add_error(c, f->pos, fk,
				      "expected a MAC address like 02:00:00:00:00:01");
			continue;
		}
		if (nb.mac[0] & 1) {
			cfg_add_error(c, f->pos, fk, "a neighbour MAC cannot be multicast");
			continue;
		}
		c->cfg->neighs = cfg_grow(c->cfg->neighs, c->cfg->n_neighs, sizeof(nb));
		if (!c->cfg->neighs) {
			cfg_add_error(c, e->key_pos, key, "out of memory");
			return;
		}
		c->cfg->neighs[c->cfg->n_neighs++] = nb;
	}
}
