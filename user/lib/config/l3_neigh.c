// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* NEIGH: static neighbours, each one a port can reach, none twice. */
#include "internal.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	const struct json_value *f = xfab_json_get(e, "neigh");
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
	f = xfab_json_get(e, "family");
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

/* The feature "neighbours". */
void cfg_read_neighs(struct ctx *c, const struct json_value *root)
{
	cfg_read_table(c, root, "NEIGH", cfg_parse_neighs);
}
