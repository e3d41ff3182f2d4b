// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* INTERFACE: the ports' addresses, and the questions the other L3
 * tables ask of them (connected, local). */
#include "internal.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	f = xfab_json_get(e, "vnet_name");
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
		if (port_addr_bad(c, e, key, &addr.pfx) ||
		    cfg_sonic_entry_refused(c, "INTERFACE", e))
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

/* The feature "interfaces". */
void cfg_read_interfaces(struct ctx *c, const struct json_value *root)
{
	cfg_read_table(c, root, "INTERFACE", cfg_parse_interfaces);
}
