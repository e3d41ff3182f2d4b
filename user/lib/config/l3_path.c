// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A route's path: its nexthops, interfaces and weights (one comma-separated
 * list each), SONiC's per-nexthop compatibility fields, and the prefixes a
 * route may not take. */
#include "internal.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

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

	fbh = xfab_json_get(e, "blackhole");
	if (fbh) {
		cfg_field_key(fk, sizeof(fk), key, "blackhole");
		if (cfg_parse_bool(c, fbh, fk, &rt->blackhole))
			return -1;
	}
	fnh = xfab_json_get(e, "nexthop");
	fif = xfab_json_get(e, "ifname");
	fw = xfab_json_get(e, "weight");
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
int cfg_parse_route_compat(struct ctx *c, const struct json_value *e, const char *key,
			   const struct xfab_cfg_route *rt)
{
	const struct json_value *fd = xfab_json_get(e, "distance"),
				*fv = xfab_json_get(e, "nexthop-vrf");
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
