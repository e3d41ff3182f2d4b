// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SONiC's LOOPBACK_INTERFACE (sonic-loopback-interface.yang):
 *
 *   LOOPBACK_INTERFACE|Loopback0             {admin_status, vrf_name, ...}
 *   LOOPBACK_INTERFACE|Loopback0|10.1.0.1/32 {scope, family}
 *
 * xfab has no loopback device of its own; what it takes from the table is
 * Loopback0's IPv4 address: the BGP router id unless DEVICE_METADATA names
 * bgp_router_id (as SONiC's dockers/docker-fpm-frr/frr/bgpd/bgpd.main.conf.j2
 * chooses it), and the VTEP's source when VXLAN_TUNNEL gives no src_ip
 * (overlay.c). Every address is checked: a loopback address is a host's
 * (no network, broadcast or multicast); that "family" is the address's and
 * that Loopback0 has its own entry are SONiC's rules, sonic_refs.c's.
 */
#include "internal.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

/* A loopback's own entry: only xfab's one VRF. */
static void loopback_entry(struct ctx *c, const struct json_value *e, const char *key)
{
	static const char *const fields[] = {"vrf_name", NULL};
	const struct json_value *f = xfab_json_get(e, "vrf_name");
	char buf[32], fk[192];
	const char *t;

	if (cfg_check_fields(c, e, key, fields) || !f)
		return;
	cfg_field_key(fk, sizeof(fk), key, "vrf_name");
	t = cfg_field_text(c, f, fk, buf, sizeof(buf));
	if (t && strcmp(t, "default"))
		cfg_add_error(c, f->pos, fk, "VRF '%s': xfab has one VRF, \"default\"", t);
}

/* LOOPBACK_INTERFACE|name|address/len: a host address;
 * Loopback0's first IPv4 one is kept. */
static void loopback_addr(struct ctx *c, const struct json_value *e, const char *key,
			  const char *bar)
{
	static const char *const fields[] = {"family", NULL};
	struct xfab_prefix pfx;
	char why[160];
	const char *bad;

	if (cfg_check_fields(c, e, key, fields))
		return;
	if (xfab_parse_prefix(bar + 1, &pfx, why, sizeof(why))) {
		cfg_add_error(c, e->key_pos, key, "%s", why);
		return;
	}
	bad = cfg_addr_unusable(pfx.family, pfx.addr);
	if (bad) {
		cfg_add_error(c, e->key_pos, key, "%s, not a loopback's address", bad);
		return;
	}
	if (pfx.family != AF_INET || c->cfg->has_loopback4 ||
	    (size_t)(bar - e->key) != strlen("Loopback0") || strncmp(e->key, "Loopback0", 9))
		return;
	memcpy(c->cfg->loopback4, pfx.addr, 4);
	c->cfg->has_loopback4 = 1;
}

/* DEVICE_METADATA|localhost bgp_router_id (its type checked by sonic.c's
 * catalogue), taken off the ignored list; else Loopback0's address. */
static void router_id(struct ctx *c, const struct json_value *root)
{
	const struct json_value *lh = xfab_json_get(xfab_json_get(root, "DEVICE_METADATA"),
						    "localhost"),
				*f = lh ? xfab_json_get(lh, "bgp_router_id") : NULL;
	int family;
	__u8 a[16];

	if (f && f->type == JSON_STRING && !cfg_parse_addr(f->str, &family, a) &&
	    family == AF_INET) {
		memcpy(c->cfg->router_id, a, 4);
		c->cfg->has_router_id = 1;
		cfg_sonic_claim(c, "DEVICE_METADATA.bgp_router_id");
	} else if (c->cfg->has_loopback4) {
		memcpy(c->cfg->router_id, c->cfg->loopback4, 4);
		c->cfg->has_router_id = 1;
	}
}

void cfg_read_sonic_loopback(struct ctx *c, const struct json_value *root)
{
	const struct json_value *tbl = cfg_sonic_read(c, root, "LOOPBACK_INTERFACE");
	char key[192];

	for (size_t i = 0; tbl && i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		const char *bar = strchr(e->key, '|');

		snprintf(key, sizeof(key), "LOOPBACK_INTERFACE|%.140s", e->key);
		if (bar)
			loopback_addr(c, e, key, bar);
		else
			loopback_entry(c, e, key);
	}
	if (c->sonic)
		router_id(c, root);
}
