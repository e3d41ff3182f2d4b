// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The export's device, port, L3, overlay and load-balancing tables
 * (export.c): what the parser read (docs/CONFIG.md), written back with the
 * fields it reads. Informational text the config does not keep
 * (DEVICE_METADATA description) is not exported. */
#include "export_int.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

/* A comma list of the path's gateways, ports or weights. */
static void cfg_exp_path_list(const struct xfab_config *cfg, const struct xfab_cfg_route *rt,
			      char what, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < rt->n_nexthops && o < len; i++) {
		const struct xfab_cfg_nexthop *nh = &rt->nexthops[i];
		char a[INET6_ADDRSTRLEN];

		o += (size_t)snprintf(
		    buf + o, len - o, "%s%s", i ? "," : "",
		    what == 'g' ? cfg_exp_addr(nh->family, nh->gw, a, sizeof(a))
		    : what == 'i'
			? cfg->ports[nh->port].name
			: (snprintf(a, sizeof(a), "%u", rt->weights ? rt->weights[i] : 1), a));
	}
}

/* ifname always: it names the port the parser resolved, and an IPv6
 * link-local gateway needs it. */
static void cfg_exp_path(struct cfg_exp *x, const struct xfab_config *cfg, const char *table,
			 const char *key, const struct xfab_cfg_route *rt)
{
	char list[XFAB_GROUP_MAX_MEMBERS * (INET6_ADDRSTRLEN + 1) + 1];
	int weighted = 0;

	for (int i = 0; rt->weights && i < rt->n_nexthops; i++)
		weighted |= rt->weights[i] != 1;
	cfg_exp_path_list(cfg, rt, 'g', list, sizeof(list));
	cfg_exp_add(x, table, key, "nexthop", "%s", list);
	cfg_exp_path_list(cfg, rt, 'i', list, sizeof(list));
	cfg_exp_add(x, table, key, "ifname", "%s", list);
	if (weighted) {
		cfg_exp_path_list(cfg, rt, 'w', list, sizeof(list));
		cfg_exp_add(x, table, key, "weight", "%s", list);
	}
}

void cfg_exp_device(struct cfg_exp *x, const struct xfab_config *cfg)
{
	static const char *const groups[2] = {"fib_ipv4_groups", "fib_ipv6_groups"};
	static const __u8 zero[6];
	const char *t = "DEVICE_METADATA", *k = "localhost";
	char mac[18];

	cfg_exp_add(x, t, k, "hostname", "%s", cfg->hostname);
	if (cfg->device_type[0])
		cfg_exp_add(x, t, k, "type", "%s", cfg->device_type);
	cfg_exp_add(x, t, k, "datapath", "%s", cfg->datapath == XFAB_DP_TC ? "tc" : "xdp");
	if (cfg->hash_seed != xfab_default_hash_seed(cfg->hostname))
		cfg_exp_add_u32(x, t, k, "hash_seed", cfg->hash_seed);
	if (memcmp(cfg->router_mac, zero, 6))
		cfg_exp_add(x, t, k, "mac", "%s", cfg_exp_mac(cfg->router_mac, mac, sizeof(mac)));
	for (int v6 = 0; v6 < 2; v6++)
		if (cfg->fib_groups[v6])
			cfg_exp_add_u32(x, t, k, groups[v6], cfg->fib_groups[v6]);
}

/* SONiC's link event damping fields (config/damping.c), when on. */
static void cfg_exp_damping(struct cfg_exp *x, const char *name, const struct xfab_damp_cfg *d)
{
	if (d->algo != XFAB_DAMP_AIED)
		return;
	cfg_exp_add(x, "PORT", name, "link_event_damping_algorithm", "aied");
	cfg_exp_add_u32(x, "PORT", name, "max_suppress_time", d->max_suppress_time_ms);
	cfg_exp_add_u32(x, "PORT", name, "decay_half_life", d->decay_half_life_ms);
	cfg_exp_add_u32(x, "PORT", name, "suppress_threshold", d->suppress_threshold);
	cfg_exp_add_u32(x, "PORT", name, "reuse_threshold", d->reuse_threshold);
	cfg_exp_add_u32(x, "PORT", name, "flap_penalty", d->flap_penalty);
}

/* SONiC's Ethernet port fields where xfab has them (admin_status, mtu,
 * speed, description, alias) and xfab's own (rate, buffer). */
void cfg_exp_ports(struct cfg_exp *x, const struct xfab_config *cfg)
{
	for (int p = 0; p < cfg->n_ports; p++) {
		const struct xfab_cfg_port *port = &cfg->ports[p];
		const char *k = port->name;

		cfg_exp_keep_order(x, p);
		cfg_exp_add(x, "PORT", k, "admin_status", "%s", port->admin_up ? "up" : "down");
		cfg_exp_add_u32(x, "PORT", k, "mtu", port->mtu);
		if (port->speed_mbps)
			cfg_exp_add_u32(x, "PORT", k, "speed", port->speed_mbps);
		if (port->rate_mbps)
			cfg_exp_add_u32(x, "PORT", k, "rate", port->rate_mbps);
		if (port->buffer_bytes)
			cfg_exp_add_u32(x, "PORT", k, "buffer", port->buffer_bytes);
		if (port->description[0])
			cfg_exp_add(x, "PORT", k, "description", "%s", port->description);
		if (port->alias[0])
			cfg_exp_add(x, "PORT", k, "alias", "%s", port->alias);
		cfg_exp_damping(x, k, &port->damping);
	}
	cfg_exp_keep_order(x, -1);
}

/* LOOPBACK_INTERFACE (sonic-loopback-interface.yang; sonic_loopback.c
 * reads it back), when the config had one: Loopback0 and the IPv4 address
 * xfab kept of it (the router id and VTEP source it gives), the entry
 * SONiC's YANG requires first. A router id of its own is DEVICE_METADATA's
 * bgp_router_id. */
static void cfg_exp_loopback(struct cfg_exp *x, const struct xfab_config *cfg)
{
	char key[64], a[INET_ADDRSTRLEN];

	if (cfg->has_loopback4) {
		snprintf(key, sizeof(key), "Loopback0|%s/32",
			 cfg_exp_addr(AF_INET, cfg->loopback4, a, sizeof(a)));
		cfg_exp_entry(x, "LOOPBACK_INTERFACE", "Loopback0");
		cfg_exp_entry(x, "LOOPBACK_INTERFACE", key);
	}
	if (cfg->has_router_id &&
	    !(cfg->has_loopback4 && !memcmp(cfg->router_id, cfg->loopback4, 4)))
		cfg_exp_add(x, "DEVICE_METADATA", "localhost", "bgp_router_id", "%s",
			    cfg_exp_addr(AF_INET, cfg->router_id, a, sizeof(a)));
}

/* INTERFACE (SONiC's routing-enable entry for each port with an address or
 * a VNET, then its addresses), LOOPBACK_INTERFACE and NEIGH. */
void cfg_exp_l3(struct cfg_exp *x, const struct xfab_config *cfg)
{
	char key[160], pfx[64], a[INET6_ADDRSTRLEN], mac[18];

	cfg_exp_loopback(x, cfg);

	for (int i = 0; i < cfg->n_addrs; i++) {
		const char *port = cfg->ports[cfg->addrs[i].port].name;

		cfg_exp_entry(x, "INTERFACE", port);
		snprintf(key, sizeof(key), "%s|%s", port,
			 cfg_exp_prefix(&cfg->addrs[i].pfx, pfx, 64));
		cfg_exp_entry(x, "INTERFACE", key);
	}
	for (int p = 0; p < cfg->n_ports; p++)
		if (cfg->ports[p].vnet)
			cfg_exp_add(x, "INTERFACE", cfg->ports[p].name, "vnet_name", "%s",
				    cfg->vnets[cfg->ports[p].vnet - 1].name);
	for (int i = 0; i < cfg->n_neighs; i++) {
		const struct xfab_cfg_neigh *n = &cfg->neighs[i];

		snprintf(key, sizeof(key), "%s|%s", cfg->ports[n->port].name,
			 cfg_exp_addr(n->family, n->addr, a, sizeof(a)));
		cfg_exp_add(x, "NEIGH", key, "neigh", "%s", cfg_exp_mac(n->mac, mac, sizeof(mac)));
		cfg_exp_add(x, "NEIGH", key, "family", "%s",
			    n->family == AF_INET6 ? "IPv6" : "IPv4");
	}
}

/* STATIC_ROUTE (sonic-static-route.yang; sonic_route.c reads it back with
 * ROUTE's code): the key is "default|PREFIX", xfab's one VRF being
 * SONiC's default (a key of the prefix alone is the YANG's
 * STATIC_ROUTE_TEMPLATE_LIST, without blackhole). SONiC's table has no weight: a config with a
 * weighted route is written as xfab's ROUTE, every route of it (a file has one table or the other).
 * TE_PATH is xfab's own table. */
static const char *cfg_exp_route_table(const struct xfab_config *cfg)
{
	for (int i = 0; i < cfg->n_routes; i++)
		for (int k = 0; cfg->routes[i].weights && k < cfg->routes[i].n_nexthops; k++)
			if (cfg->routes[i].weights[k] != 1)
				return "ROUTE";
	return "STATIC_ROUTE";
}

void cfg_exp_routes(struct cfg_exp *x, const struct xfab_config *cfg)
{
	const char *table = cfg_exp_route_table(cfg);
	char key[160], pfx[64];

	for (int i = 0; i < cfg->n_routes; i++) {
		const struct xfab_cfg_route *rt = &cfg->routes[i];

		cfg_exp_prefix(&rt->pfx, pfx, sizeof(pfx));
		snprintf(key, sizeof(key), "%s%s", table[0] == 'S' ? "default|" : "", pfx);
		if (rt->blackhole)
			cfg_exp_add(x, table, key, "blackhole", "true");
		else
			cfg_exp_path(x, cfg, table, key, rt);
	}
	if (cfg->te_enabled)
		cfg_exp_table(x, "TE_PATH");
	for (int i = 0; i < cfg->n_te; i++) {
		const struct xfab_cfg_te *te = &cfg->te[i];

		snprintf(key, sizeof(key), "%s|%s", cfg->ports[te->in_port].name,
			 cfg_exp_prefix(&te->path.pfx, pfx, sizeof(pfx)));
		cfg_exp_path(x, cfg, "TE_PATH", key, &te->path);
	}
}

static void cfg_exp_tunnel(struct cfg_exp *x, const struct xfab_config *cfg,
			   const struct xfab_cfg_tunnel *t)
{
	const struct xfab_cfg_vnet *v = &cfg->vnets[t->vnet - 1];
	char key[192], pfx[64], eps[XFAB_TUNNEL_MAX_ENDPOINTS * 16 + 1], a[INET_ADDRSTRLEN],
	    mac[18];
	static const __u8 zero[6];
	size_t o = 0;

	snprintf(key, sizeof(key), "%s|%s", v->name, cfg_exp_prefix(&t->pfx, pfx, sizeof(pfx)));
	eps[0] = '\0';
	for (int e = 0; e < t->n_endpoints; e++)
		o += (size_t)snprintf(eps + o, sizeof(eps) - o, "%s%s", e ? "," : "",
				      cfg_exp_addr(AF_INET, t->endpoints[e], a, sizeof(a)));
	cfg_exp_add(x, "VNET_ROUTE_TUNNEL", key, "endpoint", "%s", eps);
	if (memcmp(t->mac, zero, 6))
		cfg_exp_add(x, "VNET_ROUTE_TUNNEL", key, "mac_address", "%s",
			    cfg_exp_mac(t->mac, mac, sizeof(mac)));
	if (t->vni != v->vni)
		cfg_exp_add_u32(x, "VNET_ROUTE_TUNNEL", key, "vni", t->vni);
}

static void cfg_exp_vnet_route(struct cfg_exp *x, const struct xfab_config *cfg,
			       const struct xfab_cfg_vnet_route *r)
{
	char key[192], pfx[64], a[INET6_ADDRSTRLEN];

	snprintf(key, sizeof(key), "%s|%s", cfg->vnets[r->vnet - 1].name,
		 cfg_exp_prefix(&r->rt.pfx, pfx, sizeof(pfx)));
	cfg_exp_add(x, "VNET_ROUTE", key, "ifname", "%s", cfg->ports[r->port].name);
	if (r->rt.n_nexthops)
		cfg_exp_add(
		    x, "VNET_ROUTE", key, "nexthop", "%s",
		    cfg_exp_addr(r->rt.nexthops[0].family, r->rt.nexthops[0].gw, a, sizeof(a)));
}

void cfg_exp_overlay(struct cfg_exp *x, const struct xfab_config *cfg)
{
	char a[INET_ADDRSTRLEN];

	if (cfg->vtep)
		cfg_exp_add(x, "VXLAN_TUNNEL", cfg->vtep_name, "src_ip", "%s",
			    cfg_exp_addr(AF_INET, cfg->vtep_src, a, sizeof(a)));
	/* a VNET's place is its id (index + 1) in the overlay's tables */
	for (int i = 0; i < cfg->n_vnets; i++) {
		cfg_exp_keep_order(x, i);
		cfg_exp_add(x, "VNET", cfg->vnets[i].name, "vxlan_tunnel", "%s", cfg->vtep_name);
		cfg_exp_add_u32(x, "VNET", cfg->vnets[i].name, "vni", cfg->vnets[i].vni);
	}
	cfg_exp_keep_order(x, -1);
	/* a tunnel route's place is its vnet_tunnels slot */
	for (int i = 0; i < cfg->n_tunnels; i++) {
		cfg_exp_keep_order(x, i);
		cfg_exp_tunnel(x, cfg, &cfg->tunnels[i]);
	}
	cfg_exp_keep_order(x, -1);
	for (int i = 0; i < cfg->n_vnet_routes; i++)
		cfg_exp_vnet_route(x, cfg, &cfg->vnet_routes[i]);
}

/* FIB_SYNC's protocols as numbers (the parser takes names or numbers). */
static void cfg_exp_fib_sync(struct cfg_exp *x, const struct xfab_config *cfg)
{
	char list[256 * 4 + 1];
	size_t o = 0;

	if (!cfg->fib_sync)
		return;
	list[0] = '\0';
	for (int p = 0; p < 256; p++)
		if (cfg->fib_protocols[p / 8] & (1u << (p % 8)))
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%d", o ? "," : "", p);
	cfg_exp_add(x, "FIB_SYNC", "global", "enabled", "true");
	cfg_exp_add_u32(x, "FIB_SYNC", "global", "table", cfg->fib_table);
	cfg_exp_add(x, "FIB_SYNC", "global", "protocols", "%s", list);
	if (cfg->fib_withdraw_hold_ms)
		cfg_exp_add_u32(x, "FIB_SYNC", "global", "withdraw_hold_ms",
				cfg->fib_withdraw_hold_ms);
	if (cfg->fib_restart_hold_ms)
		cfg_exp_add_u32(x, "FIB_SYNC", "global", "restart_hold_ms",
				cfg->fib_restart_hold_ms);
}

static void cfg_exp_local_repair(struct cfg_exp *x, const struct xfab_config *cfg)
{
	const char *t = "LOCAL_REPAIR", *k = "global";
	char list[XFAB_MAX_PORTS * XFAB_IFNAMSIZ + 1];
	size_t o = 0;

	if (!cfg->repair_bounce && !cfg->split_horizon)
		return;
	cfg_exp_add(x, t, k, "bounce", "%s", cfg->repair_bounce ? "true" : "false");
	cfg_exp_add(x, t, k, "split_horizon", "%s", cfg->split_horizon ? "true" : "false");
	cfg_exp_add_u32(x, t, k, "hold_ms", cfg->repair_hold_ms);
	if (!cfg->repair_bounce)
		return;
	list[0] = '\0';
	for (int i = 0; i < cfg->repair.n_nexthops; i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i ? "," : "",
				      cfg->ports[cfg->repair.nexthops[i].port].name);
	cfg_exp_add(x, t, k, "ports", "%s", list);
}

/* ECMP and FLOWLET whole (their defaults spelt out), FIB_SYNC and
 * LOCAL_REPAIR when set. */
void cfg_exp_lb(struct cfg_exp *x, const struct xfab_config *cfg)
{
	char fields[256];

	xfab_format_hash_fields(cfg->hash_fields, fields, sizeof(fields));
	cfg_exp_add(x, "ECMP", "global", "hash_fields", "%s", fields);
	cfg_exp_add(x, "ECMP", "global", "symmetric", "%s", cfg->symmetric ? "true" : "false");
	cfg_exp_add(x, "ECMP", "global", "resilient", "%s", cfg->resilient ? "true" : "false");
	cfg_exp_add(x, "FLOWLET", "global", "enabled", "%s", cfg->flowlet ? "true" : "false");
	cfg_exp_add_u32(x, "FLOWLET", "global", "gap_us", cfg->flowlet_gap_us);
	cfg_exp_add(x, "FLOWLET", "global", "mode", "%s",
		    cfg->flowlet_mode == XFAB_FLOWLET_LEAST_LOADED ? "least_loaded" : "random");
	cfg_exp_add_u32(x, "FLOWLET", "global", "load_window_us", cfg->load_window_us);
	cfg_exp_add_u32(x, "FLOWLET", "global", "age_ms", cfg->flowlet_age_ms);
	cfg_exp_fib_sync(x, cfg);
	cfg_exp_local_repair(x, cfg);
}
