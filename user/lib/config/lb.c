// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Load balancing: ECMP, FLOWLET and TE_PATH. */
#include "internal.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TE_PATH|PORT|PREFIX: traffic entering PORT for PREFIX takes this path
 * while it is up, whatever the routes say. */
void cfg_parse_te(struct ctx *c, const struct json_value *e)
{
	static const char *const fields[] = {"nexthop", "ifname", "weight", NULL};
	const char *bar = strchr(e->key, '|');
	struct xfab_cfg_te te;
	char key[160], ifname[XFAB_IFNAMSIZ + 1];
	size_t n;

	memset(&te, 0, sizeof(te));
	snprintf(key, sizeof(key), "TE_PATH|%s", e->key);
	if (cfg_check_fields(c, e, key, fields))
		return;
	n = bar ? (size_t)(bar - e->key) : 0;
	if (!bar || n == 0 || n >= sizeof(ifname)) {
		cfg_add_error(c, e->key_pos, key, "expected INGRESS_PORT|PREFIX");
		return;
	}
	memcpy(ifname, e->key, n);
	ifname[n] = '\0';
	te.in_port = xfab_config_port_index(c->cfg, ifname);
	if (te.in_port < 0) {
		cfg_add_error(c, e->key_pos, key, "port \"%s\" is not in the PORT table", ifname);
		return;
	}
	if (cfg_parse_key_prefix(c, e, key, bar + 1, &te.path.pfx) ||
	    cfg_prefix_is_own(c, e, key, &te.path.pfx, 0))
		return;
	for (int k = 0; k < c->cfg->n_te; k++) {
		const struct xfab_cfg_te *o = &c->cfg->te[k];

		if (o->in_port == te.in_port && o->path.pfx.family == te.path.pfx.family &&
		    o->path.pfx.plen == te.path.pfx.plen &&
		    !memcmp(o->path.pfx.addr, te.path.pfx.addr, 16)) {
			cfg_add_error(c, e->key_pos, key,
				      "the same port and prefix are already pinned");
			return;
		}
	}
	if (cfg_parse_path(c, e, key, &te.path))
		return;
	c->cfg->te = cfg_grow(c->cfg->te, c->cfg->n_te, sizeof(te));
	if (!c->cfg->te) {
		cfg_add_error(c, e->key_pos, key, "out of memory");
		return;
	}
	c->cfg->te[c->cfg->n_te++] = te;
}

/* One TE_PATH entry from outside a file (a control request), checked by the
 * same rules against cfg; cfg is not changed. */
int xfab_config_parse_te_entry(const struct xfab_config *cfg, const char *in, const char *prefix,
			       const char *nexthop, struct xfab_cfg_te *te,
			       struct xfab_cfg_errors *errs)
{
	struct xfab_config scratch = *cfg; /* shallow: only its TE list is its own */
	char key[160], nh[1024];
	struct json_value field = {.type = JSON_STRING, .key = "nexthop", .str = nh};
	struct json_value entry = {.type = JSON_OBJECT, .key = key, .children = &field, .count = 1};
	struct ctx c = {.file = "request", .errs = errs, .cfg = &scratch, .last_route = -1};

	memset(errs, 0, sizeof(*errs));
	snprintf(key, sizeof(key), "%s|%s", in, prefix);
	snprintf(nh, sizeof(nh), "%s", nexthop);
	scratch.te = NULL;
	scratch.n_te = 0;
	cfg_parse_te(&c, &entry);
	if (errs->total || scratch.n_te != 1) {
		for (int i = 0; i < scratch.n_te; i++)
			xfab_cfg_te_free(&scratch.te[i]);
		free(scratch.te);
		return -1;
	}
	*te = scratch.te[0];
	free(scratch.te);
	return 0;
}

void xfab_cfg_te_free(struct xfab_cfg_te *te)
{
	free(te->path.nexthops);
	free(te->path.weights);
	te->path.nexthops = NULL;
	te->path.weights = NULL;
}

static const struct {
	const char *name;
	__u32 bit;
} hash_field_names[] = {
    {"SRC_IP", XFAB_HASH_F_SRC_IP},	      {"DST_IP", XFAB_HASH_F_DST_IP},
    {"IP_PROTOCOL", XFAB_HASH_F_IP_PROTO},    {"L4_SRC_PORT", XFAB_HASH_F_L4_SRC_PORT},
    {"L4_DST_PORT", XFAB_HASH_F_L4_DST_PORT}, {"IPV6_FLOW_LABEL", XFAB_HASH_F_FLOW_LABEL},
    {"ROCE_DEST_QP", XFAB_HASH_F_ROCE_QP},    {"INNER", XFAB_HASH_F_INNER},
};

static int hash_field_bit(const char *name, __u32 *bit)
{
	for (size_t k = 0; k < sizeof(hash_field_names) / sizeof(hash_field_names[0]); k++) {
		if (!strcmp(name, hash_field_names[k].name)) {
			*bit = hash_field_names[k].bit;
			return 0;
		}
	}
	return -1;
}

/* Fails naming the bad item: unknown, listed twice, or "" for an empty one. */
int xfab_parse_hash_fields(const char *text, __u32 *fields, char *bad, size_t badlen)
{
	char copy[256], *items[16];
	int n;

	*fields = 0;
	if (strlen(text) >= sizeof(copy)) {
		snprintf(bad, badlen, "%s", text);
		return -1;
	}
	snprintf(copy, sizeof(copy), "%s", text);
	n = cfg_split_list(copy, items, 16);
	if (n == CFG_LIST_EMPTY_ITEM) {
		snprintf(bad, badlen, "%s", "");
		return -1;
	}
	if (n <= 0) {
		snprintf(bad, badlen, "%s", text);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		__u32 bit;

		if (hash_field_bit(items[i], &bit) || (*fields & bit)) {
			snprintf(bad, badlen, "%s", items[i]);
			return -1;
		}
		*fields |= bit;
	}
	return 0;
}

void xfab_format_hash_fields(__u32 fields, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < sizeof(hash_field_names) / sizeof(hash_field_names[0]); k++) {
		if (!(fields & hash_field_names[k].bit))
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
					 used ? "," : "", hash_field_names[k].name);
	}
}

/* Only a "global" entry: the switch has one of each. */
const struct json_value *cfg_global_entry(struct ctx *c, const struct json_value *tbl,
					  const char *table)
{
	for (size_t i = 0; i < tbl->count; i++)
		if (strcmp(tbl->children[i].key, "global"))
			cfg_add_error(c, tbl->children[i].key_pos, table,
				      "unknown entry \"%s\" (only \"global\")",
				      tbl->children[i].key);
	return xfab_json_get(tbl, "global");
}

static void hash_fields_error(struct ctx *c, const struct json_value *f, const char *fk,
			      const char *bad)
{
	__u32 bit;

	if (!bad[0])
		cfg_add_error(c, f->pos, fk, "an empty item in the list of hash fields");
	else if (!hash_field_bit(bad, &bit))
		cfg_add_error(c, f->pos, fk, "hash field '%s' listed twice", bad);
	else
		cfg_add_error(c, f->pos, fk,
			      "unknown hash field '%s' (SRC_IP, DST_IP, IP_PROTOCOL, "
			      "L4_SRC_PORT, L4_DST_PORT, IPV6_FLOW_LABEL, ROCE_DEST_QP, INNER)",
			      bad);
}

void cfg_parse_ecmp(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"hash_fields", "symmetric", "resilient", NULL};
	const struct json_value *g = cfg_global_entry(c, tbl, "ECMP"), *f;
	char fk[160], bad[64];

	if (!g || cfg_check_fields(c, g, "ECMP|global", fields))
		return;
	f = xfab_json_get(g, "hash_fields");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "ECMP|global", "hash_fields");
		if (f->type != JSON_STRING)
			cfg_add_error(c, f->pos, fk, "expected a comma-separated string of fields");
		else if (xfab_parse_hash_fields(f->str, &c->cfg->hash_fields, bad, sizeof(bad)))
			hash_fields_error(c, f, fk, bad);
	}
	f = xfab_json_get(g, "symmetric");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "ECMP|global", "symmetric");
		cfg_parse_bool(c, f, fk, &c->cfg->symmetric);
	}
	f = xfab_json_get(g, "resilient");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "ECMP|global", "resilient");
		cfg_parse_bool(c, f, fk, &c->cfg->resilient);
	}
}

void cfg_parse_flowlet(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"enabled",	       "gap_us", "mode",
					     "load_window_us", "age_ms", NULL};
	const struct json_value *g = cfg_global_entry(c, tbl, "FLOWLET"), *f;
	char fk[160], buf[32];
	const char *t;

	if (!g || cfg_check_fields(c, g, "FLOWLET|global", fields))
		return;
	f = xfab_json_get(g, "enabled");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "FLOWLET|global", "enabled");
		cfg_parse_bool(c, f, fk, &c->cfg->flowlet);
	}
	f = xfab_json_get(g, "gap_us");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "FLOWLET|global", "gap_us");
		cfg_parse_u32(c, f, fk, 1, 10000000, &c->cfg->flowlet_gap_us);
	}
	f = xfab_json_get(g, "load_window_us");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "FLOWLET|global", "load_window_us");
		cfg_parse_u32(c, f, fk, 1, 10000000, &c->cfg->load_window_us);
	}
	f = xfab_json_get(g, "age_ms");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "FLOWLET|global", "age_ms");
		cfg_parse_u32(c, f, fk, 1, 3600000, &c->cfg->flowlet_age_ms);
	}
	f = xfab_json_get(g, "mode");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "FLOWLET|global", "mode");
		t = cfg_field_text(c, f, fk, buf, sizeof(buf));
		if (t && !strcmp(t, "random"))
			c->cfg->flowlet_mode = XFAB_FLOWLET_RANDOM;
		else if (t && !strcmp(t, "least_loaded"))
			c->cfg->flowlet_mode = XFAB_FLOWLET_LEAST_LOADED;
		else if (t)
			cfg_add_error(c, f->pos, fk,
				      "mode must be random or least_loaded, not '%s'", t);
	}
}

/* The feature "ecmp": its defaults, then ECMP|global, then a SONiC file's
 * FG_NHG (sonic_fgnhg.c). */
void cfg_read_ecmp(struct ctx *c, const struct json_value *root)
{
	c->cfg->hash_fields = XFAB_HASH_F_DEFAULT;
	c->cfg->resilient = 1;
	cfg_read_table(c, root, "ECMP", cfg_parse_ecmp);
	cfg_read_sonic_fgnhg(c, root);
}

/* The feature "flowlet": its defaults, then FLOWLET|global. */
void cfg_read_flowlet(struct ctx *c, const struct json_value *root)
{
	c->cfg->flowlet_mode = XFAB_FLOWLET_RANDOM;
	c->cfg->flowlet_gap_us = 100; /* ConWeave's figure at 100G; CONGA uses 500 */
	c->cfg->load_window_us = 100;
	c->cfg->flowlet_age_ms = 1000;
	cfg_read_table(c, root, "FLOWLET", cfg_parse_flowlet);
}

/* The feature "te": on when TE_PATH is there, even empty; its paths are
 * read only from an otherwise clean config (they resolve against all of
 * it). */
void cfg_read_te(struct ctx *c, const struct json_value *root)
{
	const struct json_value *tbl = xfab_json_get(root, "TE_PATH");

	c->cfg->te_enabled = tbl != NULL;
	if (tbl && !c->errs->total)
		for (size_t i = 0; i < tbl->count; i++)
			cfg_parse_te(c, &tbl->children[i]);
}
