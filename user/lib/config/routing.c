// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* FIB_SYNC: which of the kernel's routes xfabd mirrors; LOCAL_REPAIR: what
 * the data plane does before the routing protocol converges (docs/CONFIG.md). */
#include "internal.h"

#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nlroute.h"

void cfg_parse_fib_sync(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"enabled",		 "table",	    "protocols",
					     "withdraw_hold_ms", "restart_hold_ms", NULL};
	const struct json_value *g = cfg_global_entry(c, tbl, "FIB_SYNC"), *f;
	struct xfab_nl_filter flt;
	char fk[160], buf[32], err[160];
	const char *t;

	xfab_nl_filter_default(&flt);
	c->cfg->fib_sync = 1;
	c->cfg->fib_table = flt.table;
	memcpy(c->cfg->fib_protocols, flt.protocol, sizeof(flt.protocol));
	if (!g || cfg_check_fields(c, g, "FIB_SYNC|global", fields))
		return;
	f = xfab_json_get(g, "enabled");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "FIB_SYNC|global", "enabled");
		cfg_parse_bool(c, f, fk, &c->cfg->fib_sync);
	}
	f = xfab_json_get(g, "table");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "FIB_SYNC|global", "table");
		t = cfg_field_text(c, f, fk, buf, sizeof(buf));
		if (t && !strcmp(t, "main"))
			c->cfg->fib_table = RT_TABLE_MAIN;
		else if (t && !cfg_parse_u32(c, f, fk, 1, 0xffffffffu, &c->cfg->fib_table) &&
			 (c->cfg->fib_table == RT_TABLE_LOCAL ||
			  c->cfg->fib_table == RT_TABLE_DEFAULT))
			cfg_add_error(c, f->pos, fk,
				      "table %u is the kernel's %s table: name main (254) or a "
				      "table of your own",
				      c->cfg->fib_table,
				      c->cfg->fib_table == RT_TABLE_LOCAL ? "local" : "default");
	}
	f = xfab_json_get(g, "withdraw_hold_ms");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "FIB_SYNC|global", "withdraw_hold_ms");
		cfg_parse_u32(c, f, fk, 0, 5000, &c->cfg->fib_withdraw_hold_ms);
	}
	f = xfab_json_get(g, "restart_hold_ms");
	if (f) {
		/* at most FRR's startup window, within which a restarted bgpd's
		 * sweep can come (fibsync.c) */
		cfg_field_key(fk, sizeof(fk), "FIB_SYNC|global", "restart_hold_ms");
		cfg_parse_u32(c, f, fk, 0, 120000, &c->cfg->fib_restart_hold_ms);
	}
	f = xfab_json_get(g, "protocols");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "FIB_SYNC|global", "protocols");
		if (f->type != JSON_STRING) {
			cfg_add_error(c, f->pos, fk,
				      "expected a comma-separated string of protocols");
		} else if (xfab_nl_filter_protocols(&flt, f->str, err, sizeof(err))) {
			cfg_add_error(c, f->pos, fk, "%s", err);
		} else {
			memcpy(c->cfg->fib_protocols, flt.protocol, sizeof(flt.protocol));
		}
	}
}

/* The peer of port p on a point-to-point link: the other address of its
 * IPv4 /31 (or, without one, IPv6 /127). 0, or -1 if p has neither. */
static int p2p_peer(const struct xfab_config *cfg, int p, struct xfab_cfg_nexthop *nh)
{
	for (int want = 4; want <= 6; want += 2)
		for (int i = 0; i < cfg->n_addrs; i++) {
			const struct xfab_cfg_addr *a = &cfg->addrs[i];
			int v4 = a->pfx.family == AF_INET;

			if (a->port != p || (want == 4) != v4 || a->pfx.plen != (v4 ? 31 : 127))
				continue;
			memset(nh, 0, sizeof(*nh));
			nh->port = p;
			nh->family = a->pfx.family;
			memcpy(nh->gw, a->pfx.addr, 16);
			nh->gw[v4 ? 3 : 15] ^= 1;
			return 0;
		}
	return -1;
}

void cfg_parse_local_repair(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"bounce", "ports", "split_horizon", "hold_ms", NULL};
	const struct json_value *g = cfg_global_entry(c, tbl, "LOCAL_REPAIR"), *f, *ports;
	struct xfab_config *cfg = c->cfg;
	char fk[160], *items[XFAB_MAX_PORTS + 1], list[1024];
	int n;

	if (!g || cfg_check_fields(c, g, "LOCAL_REPAIR|global", fields))
		return;
	f = xfab_json_get(g, "split_horizon");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "LOCAL_REPAIR|global", "split_horizon");
		cfg_parse_bool(c, f, fk, &cfg->split_horizon);
	}
	cfg->repair_hold_ms = 1000;
	f = xfab_json_get(g, "hold_ms");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "LOCAL_REPAIR|global", "hold_ms");
		cfg_parse_u32(c, f, fk, 0, 60000, &cfg->repair_hold_ms);
	}
	f = xfab_json_get(g, "bounce");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "LOCAL_REPAIR|global", "bounce");
		cfg_parse_bool(c, f, fk, &cfg->repair_bounce);
	}
	ports = xfab_json_get(g, "ports");
	cfg_field_key(fk, sizeof(fk), "LOCAL_REPAIR|global", "ports");
	if (!cfg->repair_bounce) {
		if (ports)
			cfg_add_error(c, ports->pos, fk, "ports without \"bounce\": \"true\"");
		return;
	}
	if (!ports) {
		cfg_add_error(c, g->pos, "LOCAL_REPAIR|global",
			      "bounce needs \"ports\": the ports a packet may be bounced to");
		return;
	}
	if (ports->type != JSON_STRING || strlen(ports->str) >= sizeof(list)) {
		cfg_add_error(c, ports->pos, fk, "expected a comma-separated string of ports");
		return;
	}
	snprintf(list, sizeof(list), "%s", ports->str);
	n = cfg_split_list(list, items, XFAB_MAX_PORTS);
	if (n < 2) {
		cfg_add_error(c, ports->pos, fk,
			      n == CFG_LIST_TOO_MANY ? "more ports than the switch has"
			      : n < 0		     ? "an empty item in the list of ports"
				      : "at least two ports (one is where the packet came from)");
		return;
	}
	cfg->repair.nexthops = calloc((size_t)n, sizeof(*cfg->repair.nexthops));
	if (!cfg->repair.nexthops) {
		cfg_add_error(c, ports->pos, fk, "out of memory");
		return;
	}
	for (int i = 0; i < n; i++) {
		int p = -1;

		for (int q = 0; q < cfg->n_ports; q++)
			if (!strcmp(cfg->ports[q].name, items[i]))
				p = q;
		if (p < 0) {
			cfg_add_error(c, ports->pos, fk, "port %s is not in the PORT table",
				      items[i]);
			return;
		}
		for (int j = 0; j < cfg->repair.n_nexthops; j++)
			if (cfg->repair.nexthops[j].port == p) {
				cfg_add_error(c, ports->pos, fk, "port %s listed twice", items[i]);
				return;
			}
		if (p2p_peer(cfg, p, &cfg->repair.nexthops[cfg->repair.n_nexthops])) {
			cfg_add_error(c, ports->pos, fk,
				      "port %s has no /31 or /127 address: its peer (where a "
				      "bounced packet goes) is unknown",
				      items[i]);
			return;
		}
		cfg->repair.n_nexthops++;
	}
}

/* The feature "fib-sync". */
void cfg_read_fib_sync(struct ctx *c, const struct json_value *root)
{
	cfg_read_table(c, root, "FIB_SYNC", cfg_parse_fib_sync);
}

/* The feature "local-repair" (over a clean L3 base: it names ports). */
void cfg_read_local_repair(struct ctx *c, const struct json_value *root)
{
	cfg_read_table(c, root, "LOCAL_REPAIR", cfg_parse_local_repair);
}

/* The feature "routes": room for the whole table first (a full table is a
 * million routes), then each route, then the duplicates. A SONiC file's
 * STATIC_ROUTE instead (sonic_route.c). */
void cfg_read_routes(struct ctx *c, const struct json_value *root)
{
	const struct json_value *tbl = xfab_json_get(root, "ROUTE");

	c->route_table = "ROUTE";
	if (cfg_read_static_routes(c, root) || !tbl)
		return;
	if (cfg_reserve_routes(c, tbl->count)) {
		cfg_add_error(c, tbl->pos, "ROUTE", "out of memory");
		return;
	}
	for (size_t i = 0; i < tbl->count; i++)
		cfg_parse_route(c, &tbl->children[i], tbl->children[i].key);
	cfg_check_duplicate_routes(c);
}
