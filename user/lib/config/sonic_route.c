// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* SONiC's STATIC_ROUTE (sonic-static-route.yang): keys "vrf|prefix" or
 * "prefix", fields nexthop, ifname, distance, nexthop-vrf, blackhole, each
 * a comma-separated list with an item per nexthop. They are ROUTE's fields
 * (CONFIG.md#route), read by ROUTE's code (l3_route.c, l3_path.c); what
 * this adds is the key's VRF, which must be xfab's one, "default". The
 * fields xfab does not implement (bfd, advertise) are listed as ignored. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* The prefix of entry e, NULL (refused) when its VRF is not "default". */
static const char *static_route_prefix(struct ctx *c, const struct json_value *e)
{
	const char *bar = strchr(e->key, '|');
	char key[160];

	if (!bar)
		return e->key;
	if ((size_t)(bar - e->key) == strlen("default") && !strncmp(e->key, "default", 7))
		return bar + 1;
	snprintf(key, sizeof(key), "STATIC_ROUTE|%.140s", e->key);
	cfg_add_error(c, e->key_pos, key, "VRF '%.*s': xfab has one VRF, \"default\"",
		      (int)(bar - e->key), e->key);
	return NULL;
}

int cfg_read_static_routes(struct ctx *c, const struct json_value *root)
{
	const struct json_value *tbl = cfg_sonic_read(c, root, "STATIC_ROUTE"), *other;

	if (!tbl)
		return 0;
	other = xfab_json_get(root, "ROUTE");
	if (other) {
		cfg_add_error(c, other->key_pos, "ROUTE",
			      "a SONiC file's static routes are its STATIC_ROUTE (line %d): one "
			      "table or the other",
			      tbl->key_pos.line);
		return 1;
	}
	c->route_table = "STATIC_ROUTE";
	if (cfg_reserve_routes(c, tbl->count)) {
		cfg_add_error(c, tbl->pos, "STATIC_ROUTE", "out of memory");
		return 1;
	}
	for (size_t i = 0; i < tbl->count; i++) {
		const char *prefix = static_route_prefix(c, &tbl->children[i]);

		if (prefix)
			cfg_parse_route(c, &tbl->children[i], prefix);
	}
	cfg_check_duplicate_routes(c);
	return 1;
}
