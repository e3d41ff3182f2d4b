// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The VXLAN overlay, SONiC's VNET model (docs/OVERLAY.md):
 *
 *   VXLAN_TUNNEL|<name>               {src_ip}: this switch's VTEP (one)
 *   VNET|<name>                       {vxlan_tunnel, vni, scope}
 *   INTERFACE|<port>                  {vnet_name}: the port is the tenant's (l3_interface.c)
 *   VNET_ROUTE_TUNNEL|<vnet>|<prefix> {endpoint[,endpoint...], mac_address, vni}
 *   VNET_ROUTE|<vnet>|<prefix>        {nexthop, ifname}
 *
 * A VNET's routes go to its own table (XFAB_TABLE_VNET | id), never to the
 * default one; its ports' subnets too (the RIB, user/lib/rib.c).
 */
#include "internal.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 15)
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.'))
			return 0;
	return 1;
}

/* An IPv4 unicast address a VTEP can use (its own, or an endpoint). */
static int vtep_addr(struct ctx *c, const struct json_value *f, const char *key, const char *text,
		     __u8 out[4])
{
	int family;
	__u8 a[16];
	const char *why;

	if (cfg_parse_addr(text, &family, a) || family != AF_INET) {
		cfg_add_error(c, f->pos, key,
			      "\"%s\" is not an IPv4 address (the underlay is IPv4)", text);
		return -1;
	}
	why = cfg_addr_unusable(family, a);
	if (why) {
		cfg_add_error(c, f->pos, key, "%s is %s, not a VTEP address", text, why);
		return -1;
	}
	memcpy(out, a, 4);
	return 0;
}

void cfg_parse_vxlan_tunnel(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"src_ip", NULL};
	char key[160], fk[192], buf[64];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i], *f;
		const char *t;

		snprintf(key, sizeof(key), "VXLAN_TUNNEL|%s", e->key);
		if (cfg_check_fields(c, e, key, fields))
			continue;
		if (!name_ok(e->key)) {
			cfg_add_error(c, e->key_pos, key,
				      "a tunnel name is 1-15 letters, digits, '_', '-' or '.'");
			continue;
		}
		if (i > 0) {
			cfg_add_error(c, e->key_pos, key,
				      "one VTEP per switch: VXLAN_TUNNEL|%s is the first",
				      tbl->children[0].key);
			continue;
		}
		f = xfab_json_get(e, "src_ip");
		cfg_field_key(fk, sizeof(fk), key, "src_ip");
		if (!f && c->cfg->has_loopback4) {
			/* a SONiC file's Loopback0 (sonic_loopback.c) */
			memcpy(c->cfg->vtep_src, c->cfg->loopback4, 4);
		} else if (!f) {
			cfg_add_error(c, e->pos, fk, "missing: the VTEP's IPv4 address");
			continue;
		} else {
			t = cfg_field_text(c, f, fk, buf, sizeof(buf));
			if (!t || vtep_addr(c, f, fk, t, c->cfg->vtep_src))
				continue;
		}
		c->cfg->vtep = 1;
		snprintf(c->cfg->vtep_name, sizeof(c->cfg->vtep_name), "%s", e->key);
	}
}

int cfg_vnet_by_name(const struct xfab_config *cfg, const char *name)
{
	for (int i = 0; i < cfg->n_vnets; i++)
		if (!strcmp(cfg->vnets[i].name, name))
			return i + 1;
	return 0;
}

void cfg_parse_vnets(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"vxlan_tunnel", "vni", "scope", "peer_list", NULL};
	struct xfab_config *cfg = c->cfg;
	char key[160], fk[192], buf[64];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i], *f;
		struct xfab_cfg_vnet v = {0};
		const char *t;
		int bad = 0;

		snprintf(key, sizeof(key), "VNET|%s", e->key);
		if (cfg_check_fields(c, e, key, fields))
			continue;
		if (!name_ok(e->key)) {
			cfg_add_error(c, e->key_pos, key,
				      "a VNET name is 1-15 letters, digits, '_', '-' or '.'");
			continue;
		}
		snprintf(v.name, sizeof(v.name), "%s", e->key);
		f = xfab_json_get(e, "vxlan_tunnel");
		cfg_field_key(fk, sizeof(fk), key, "vxlan_tunnel");
		t = f ? cfg_field_text(c, f, fk, buf, sizeof(buf)) : NULL;
		if (!f) {
			cfg_add_error(c, e->pos, fk, "missing: the VXLAN_TUNNEL it uses");
			bad = 1;
		} else if (t && (!cfg->vtep || strcmp(t, cfg->vtep_name))) {
			cfg_add_error(c, f->pos, fk, "no VXLAN_TUNNEL|%s", t);
			bad = 1;
		} else if (!t) {
			bad = 1;
		}
		f = xfab_json_get(e, "vni");
		cfg_field_key(fk, sizeof(fk), key, "vni");
		if (!f) {
			cfg_add_error(c, e->pos, fk, "missing: 1-16777215");
			bad = 1;
		} else if (cfg_parse_u32(c, f, fk, 1, XFAB_MAX_VNI, &v.vni)) {
			bad = 1;
		} else {
			for (int k = 0; k < cfg->n_vnets; k++)
				if (cfg->vnets[k].vni == v.vni) {
					cfg_add_error(c, f->pos, fk, "VNI %u is VNET|%s's already",
						      v.vni, cfg->vnets[k].name);
					bad = 1;
				}
		}
		f = xfab_json_get(e, "scope");
		cfg_field_key(fk, sizeof(fk), key, "scope");
		if (f) {
			t = cfg_field_text(c, f, fk, buf, sizeof(buf));
			if (t && strcmp(t, "default")) {
				cfg_add_error(c, f->pos, fk, "\"%s\": only \"default\"", t);
				bad = 1;
			}
		}
		if (bad)
			continue;
		if (cfg->n_vnets >= XFAB_MAX_VNETS - 1) {
			cfg_add_error(c, e->key_pos, key, "more than %d VNETs", XFAB_MAX_VNETS - 1);
			return;
		}
		cfg->vnets[cfg->n_vnets++] = v;
	}
}

/* "VNET|PREFIX": the VNET's id and the prefix; 0 or -1. */
static int vnet_key(struct ctx *c, const struct json_value *e, const char *key, int *vnet,
		    struct xfab_prefix *pfx)
{
	const char *bar = strchr(e->key, '|');
	char name[32];
	size_t n;

	if (!bar) {
		cfg_add_error(c, e->key_pos, key, "expected VNET|PREFIX");
		return -1;
	}
	n = (size_t)(bar - e->key);
	if (n == 0 || n >= sizeof(name)) {
		cfg_add_error(c, e->key_pos, key, "expected VNET|PREFIX");
		return -1;
	}
	memcpy(name, e->key, n);
	name[n] = '\0';
	*vnet = cfg_vnet_by_name(c->cfg, name);
	if (!*vnet) {
		cfg_add_error(c, e->key_pos, key, "no VNET|%s", name);
		return -1;
	}
	return cfg_parse_key_prefix(c, e, key, bar + 1, pfx);
}

static int same_prefix(const struct xfab_prefix *a, const struct xfab_prefix *b)
{
	return a->family == b->family && a->plen == b->plen && !memcmp(a->addr, b->addr, 16);
}

/* A prefix already routed in the VNET (either table); its key, or NULL. */
static const char *vnet_prefix_taken(const struct xfab_config *cfg, int vnet,
				     const struct xfab_prefix *pfx)
{
	for (int i = 0; i < cfg->n_tunnels; i++)
		if (cfg->tunnels[i].vnet == vnet && same_prefix(&cfg->tunnels[i].pfx, pfx))
			return "VNET_ROUTE_TUNNEL";
	for (int i = 0; i < cfg->n_vnet_routes; i++)
		if (cfg->vnet_routes[i].vnet == vnet &&
		    same_prefix(&cfg->vnet_routes[i].rt.pfx, pfx))
			return "VNET_ROUTE";
	return NULL;
}

static void parse_tunnel_route(struct ctx *c, const struct json_value *e)
{
	static const char *const fields[] = {"endpoint", "mac_address", "vni", NULL};
	struct xfab_config *cfg = c->cfg;
	struct xfab_cfg_tunnel t = {0};
	char key[192], fk[224], buf[512], *items[XFAB_TUNNEL_MAX_ENDPOINTS + 1];
	const struct json_value *f;
	const char *text, *taken;
	int n;

	snprintf(key, sizeof(key), "VNET_ROUTE_TUNNEL|%s", e->key);
	if (cfg_check_fields(c, e, key, fields) || vnet_key(c, e, key, &t.vnet, &t.pfx))
		return;
	t.vni = cfg->vnets[t.vnet - 1].vni;
	f = xfab_json_get(e, "endpoint");
	cfg_field_key(fk, sizeof(fk), key, "endpoint");
	if (!f) {
		cfg_add_error(c, e->pos, fk, "missing: the remote VTEP's IPv4 address(es)");
		return;
	}
	text = cfg_field_text(c, f, fk, buf, sizeof(buf));
	if (!text)
		return;
	if (strlen(text) >= sizeof(buf)) {
		cfg_add_error(c, f->pos, fk, "too long");
		return;
	}
	snprintf(buf, sizeof(buf), "%s", text);
	n = cfg_split_list(buf, items, XFAB_TUNNEL_MAX_ENDPOINTS);
	if (n == CFG_LIST_TOO_MANY) {
		cfg_add_error(c, f->pos, fk, "more than %d endpoints", XFAB_TUNNEL_MAX_ENDPOINTS);
		return;
	}
	if (n == CFG_LIST_EMPTY_ITEM) {
		cfg_add_error(c, f->pos, fk, "an empty endpoint in the list");
		return;
	}
	for (int i = 0; i < n; i++) {
		if (vtep_addr(c, f, fk, items[i], t.endpoints[i]))
			return;
		for (int k = 0; k < i; k++)
			if (!memcmp(t.endpoints[k], t.endpoints[i], 4)) {
				cfg_add_error(c, f->pos, fk, "endpoint %s given twice", items[i]);
				return;
			}
		if (cfg->vtep && !memcmp(t.endpoints[i], cfg->vtep_src, 4)) {
			cfg_add_error(c, f->pos, fk, "endpoint %s is this switch's own VTEP",
				      items[i]);
			return;
		}
	}
	t.n_endpoints = n;
	f = xfab_json_get(e, "mac_address");
	if (f) {
		cfg_field_key(fk, sizeof(fk), key, "mac_address");
		text = cfg_field_text(c, f, fk, buf, sizeof(buf));
		if (!text)
			return;
		if (xfab_parse_mac(text, t.mac) || (t.mac[0] & 1) ||
		    !(t.mac[0] | t.mac[1] | t.mac[2] | t.mac[3] | t.mac[4] | t.mac[5])) {
			cfg_add_error(c, f->pos, fk, "\"%s\" is not a unicast MAC address", text);
			return;
		}
	}
	f = xfab_json_get(e, "vni");
	if (f) {
		cfg_field_key(fk, sizeof(fk), key, "vni");
		if (cfg_parse_u32(c, f, fk, 1, XFAB_MAX_VNI, &t.vni))
			return;
	}
	taken = vnet_prefix_taken(cfg, t.vnet, &t.pfx);
	if (taken) {
		cfg_add_error(c, e->key_pos, key, "the prefix is routed in %s already", taken);
		return;
	}
	if (cfg->n_tunnels >= XFAB_MAX_TUNNEL_ROUTES - 1) {
		cfg_add_error(c, e->key_pos, key, "more than %d tunnel routes",
			      XFAB_MAX_TUNNEL_ROUTES - 1);
		return;
	}
	cfg->tunnels = cfg_grow(cfg->tunnels, cfg->n_tunnels, sizeof(t));
	if (!cfg->tunnels) {
		cfg->n_tunnels = 0;
		cfg_add_error(c, e->key_pos, key, "out of memory");
		return;
	}
	cfg->tunnels[cfg->n_tunnels++] = t;
}

static void parse_vnet_route(struct ctx *c, const struct json_value *e)
{
	static const char *const fields[] = {"nexthop", "ifname", NULL};
	struct xfab_config *cfg = c->cfg;
	struct xfab_cfg_vnet_route r = {0};
	char key[192], fk[224], buf[64];
	const struct json_value *f;
	const char *text, *taken;

	snprintf(key, sizeof(key), "VNET_ROUTE|%s", e->key);
	if (cfg_check_fields(c, e, key, fields) || vnet_key(c, e, key, &r.vnet, &r.rt.pfx))
		return;
	f = xfab_json_get(e, "ifname");
	cfg_field_key(fk, sizeof(fk), key, "ifname");
	if (!f) {
		cfg_add_error(c, e->pos, fk, "missing: a port of the VNET");
		return;
	}
	text = cfg_field_text(c, f, fk, buf, sizeof(buf));
	if (!text)
		return;
	r.port = xfab_config_port_index(cfg, text);
	if (r.port < 0) {
		cfg_add_error(c, f->pos, fk, "port \"%s\" is not in the PORT table", text);
		return;
	}
	if (cfg->ports[r.port].vnet != r.vnet) {
		cfg_add_error(c, f->pos, fk,
			      "port %s is not bound to VNET %s (INTERFACE|%s vnet_name)", text,
			      cfg->vnets[r.vnet - 1].name, text);
		return;
	}
	f = xfab_json_get(e, "nexthop");
	if (f) {
		struct xfab_cfg_nexthop nh = {.port = r.port};
		int found = 0;

		cfg_field_key(fk, sizeof(fk), key, "nexthop");
		text = cfg_field_text(c, f, fk, buf, sizeof(buf));
		if (!text)
			return;
		if (cfg_parse_addr(text, &nh.family, nh.gw)) {
			cfg_add_error(c, f->pos, fk, "\"%s\" is not an IP address", text);
			return;
		}
		for (int k = 0; k < cfg->n_addrs; k++)
			if (cfg->addrs[k].port == r.port &&
			    xfab_prefix_contains(&cfg->addrs[k].pfx, nh.family, nh.gw) &&
			    memcmp(cfg->addrs[k].pfx.addr, nh.gw, 16))
				found = 1;
		if (!found) {
			cfg_add_error(c, f->pos, fk,
				      "%s is in no subnet of port %s (other than its "
				      "own address)",
				      text, cfg->ports[r.port].name);
			return;
		}
		r.rt.nexthops = malloc(sizeof(nh));
		r.rt.weights = malloc(sizeof(__u16));
		if (!r.rt.nexthops || !r.rt.weights) {
			free(r.rt.nexthops);
			free(r.rt.weights);
			cfg_add_error(c, e->key_pos, key, "out of memory");
			return;
		}
		r.rt.nexthops[0] = nh;
		r.rt.weights[0] = 1;
		r.rt.n_nexthops = 1;
	}
	r.rt.pos = e->key_pos;
	taken = vnet_prefix_taken(cfg, r.vnet, &r.rt.pfx);
	if (taken) {
		cfg_add_error(c, e->key_pos, key, "the prefix is routed in %s already", taken);
		free(r.rt.nexthops);
		free(r.rt.weights);
		return;
	}
	cfg->vnet_routes = cfg_grow(cfg->vnet_routes, cfg->n_vnet_routes, sizeof(r));
	if (!cfg->vnet_routes) {
		cfg->n_vnet_routes = 0;
		free(r.rt.nexthops);
		free(r.rt.weights);
		cfg_add_error(c, e->key_pos, key, "out of memory");
		return;
	}
	cfg->vnet_routes[cfg->n_vnet_routes++] = r;
}

void cfg_parse_vnet_routes(struct ctx *c, const struct json_value *tunnels,
			   const struct json_value *routes)
{
	for (size_t i = 0; tunnels && i < tunnels->count; i++)
		parse_tunnel_route(c, &tunnels->children[i]);
	for (size_t i = 0; routes && i < routes->count; i++)
		parse_vnet_route(c, &routes->children[i]);
}

/* The feature "overlay": the VTEP and the VNETs, which INTERFACE binds
 * ports to (so it is parsed before "interfaces"). */
void cfg_read_overlay(struct ctx *c, const struct json_value *root)
{
	cfg_read_table(c, root, "VXLAN_TUNNEL", cfg_parse_vxlan_tunnel);
	cfg_read_table(c, root, "VNET", cfg_parse_vnets);
}

/* The feature "vnet-routes": tunnel routes, resolved against the overlay
 * and the interfaces. */
void cfg_read_vnet_routes(struct ctx *c, const struct json_value *root)
{
	cfg_parse_vnet_routes(c, xfab_json_get(root, "VNET_ROUTE_TUNNEL"),
			      xfab_json_get(root, "VNET_ROUTE"));
}
