// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "config.h"
#include "fib6.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XFAB_CONFIG_MAX_BYTES (1u << 30) /* a full table: ~190 B a route */

struct ctx {
	const char *file;
	struct xfab_cfg_errors *errs;
	struct xfab_config *cfg;
	/* the last ROUTE's plain nexthop list: a full table repeats it */
	const char *last_nh_text;
	int last_route; /* its index (the array moves as it grows); -1: none */
};

static void add_error(struct ctx *c, struct json_pos pos, const char *key, const char *fmt, ...)
{
	struct xfab_cfg_error *e;
	va_list ap;

	if (c->errs->count >= XFAB_CFG_MAX_ERRORS)
		return;
	e = &c->errs->e[c->errs->count++];
	snprintf(e->file, sizeof(e->file), "%s", c->file);
	e->line = pos.line;
	e->col = pos.col;
	snprintf(e->key, sizeof(e->key), "%s", key ? key : "");
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

void xfab_cfg_error_format(const struct xfab_cfg_error *e, char *buf, size_t len)
{
	if (e->key[0])
		snprintf(buf, len, "%s:%d:%d: %s: %s", e->file, e->line, e->col, e->key, e->msg);
	else
		snprintf(buf, len, "%s:%d:%d: %s", e->file, e->line, e->col, e->msg);
}

/* ---- small parsers ---- */

int xfab_parse_prefix(const char *text, struct xfab_prefix *pfx, char *why, size_t whylen)
{
	char buf[64];
	const char *slash = strchr(text, '/');
	char *end;
	long plen;
	size_t alen;
	int max;

	if (!slash) {
		snprintf(why, whylen, "'%s' is not a prefix (ADDRESS/LENGTH)", text);
		return -1;
	}
	alen = (size_t)(slash - text);
	if (alen == 0 || alen >= sizeof(buf)) {
		snprintf(why, whylen, "'%s' has no valid address", text);
		return -1;
	}
	memcpy(buf, text, alen);
	buf[alen] = '\0';
	memset(pfx, 0, sizeof(*pfx));
	if (inet_pton(AF_INET, buf, pfx->addr) == 1) {
		pfx->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, pfx->addr) == 1) {
		pfx->family = AF_INET6;
		max = 128;
	} else {
		snprintf(why, whylen, "'%s' is not an IPv4 or IPv6 address", buf);
		return -1;
	}
	errno = 0;
	if (!isdigit((unsigned char)slash[1])) {
		snprintf(why, whylen, "'%s' has no prefix length", text);
		return -1;
	}
	plen = strtol(slash + 1, &end, 10);
	if (errno || *end != '\0' || plen < 0 || plen > max) {
		snprintf(why, whylen, "prefix length in '%s' must be 0..%d", text, max);
		return -1;
	}
	pfx->plen = (int)plen;
	return 0;
}

static int prefix_host_bits_set(const struct xfab_prefix *pfx)
{
	int bytes = pfx->family == AF_INET ? 4 : 16;

	for (int i = 0; i < bytes; i++) {
		int bit0 = i * 8;
		__u8 mask;

		if (bit0 + 8 <= pfx->plen)
			continue;
		mask = bit0 >= pfx->plen ? 0xff : (__u8)(0xff >> (pfx->plen - bit0));
		if (pfx->addr[i] & mask)
			return 1;
	}
	return 0;
}

int xfab_prefix_contains(const struct xfab_prefix *pfx, int family, const __u8 *addr)
{
	int full = pfx->plen / 8, rest = pfx->plen % 8;

	if (pfx->family != family)
		return 0;
	if (memcmp(pfx->addr, addr, (size_t)full) != 0)
		return 0;
	if (rest) {
		__u8 mask = (__u8)(0xff << (8 - rest));

		if ((pfx->addr[full] & mask) != (addr[full] & mask))
			return 0;
	}
	return 1;
}

int xfab_parse_mac(const char *text, __u8 mac[6])
{
	unsigned v[6];
	char tail;

	if (strlen(text) != 17)
		return -1;
	if (sscanf(text, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		   &tail) != 6)
		return -1;
	for (size_t i = 0; i < 6; i++) {
		if (!isxdigit((unsigned char)text[i * 3]) ||
		    !isxdigit((unsigned char)text[i * 3 + 1]))
			return -1;
		mac[i] = (__u8)v[i];
	}
	return 0;
}

__u32 xfab_default_hash_seed(const char *hostname)
{
	__u32 h = 2166136261u; /* FNV-1a: a stable seed per switch identity */

	for (const char *p = hostname; *p; p++) {
		h ^= (__u8)*p;
		h *= 16777619u;
	}
	return h;
}

int xfab_config_port_index(const struct xfab_config *cfg, const char *name)
{
	for (int i = 0; i < cfg->n_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return i;
	return -1;
}

/* ---- field access with type checks ---- */

/* Returns the string value of a field (SONiC keeps every value a string;
 * numbers and booleans are accepted where they make sense). */
static const char *field_text(struct ctx *c, const struct json_value *f, const char *key, char *buf,
			      size_t len)
{
	switch (f->type) {
	case JSON_STRING:
	case JSON_NUMBER: /* numbers keep their source text */
		return f->str;
	case JSON_BOOL:
		snprintf(buf, len, "%s", f->boolean ? "true" : "false");
		return buf;
	default:
		add_error(c, f->pos, key, "expected a string, got %s", json_type_name(f->type));
		return NULL;
	}
}

static int parse_u32(struct ctx *c, const struct json_value *f, const char *key, __u32 lo, __u32 hi,
		     __u32 *out)
{
	char buf[16];
	const char *t = field_text(c, f, key, buf, sizeof(buf));
	unsigned long long v;
	char *end;

	if (!t)
		return -1;
	errno = 0;
	if (!isdigit((unsigned char)t[0])) {
		add_error(c, f->pos, key, "'%s' is not a whole number", t);
		return -1;
	}
	v = strtoull(t, &end, 0);
	if (errno || *end != '\0') {
		add_error(c, f->pos, key, "'%s' is not a whole number", t);
		return -1;
	}
	if (v < lo || v > hi) {
		add_error(c, f->pos, key, "%llu is out of range %u..%u", v, lo, hi);
		return -1;
	}
	*out = (__u32)v;
	return 0;
}

static int parse_bool(struct ctx *c, const struct json_value *f, const char *key, int *out)
{
	char buf[8];
	const char *t = field_text(c, f, key, buf, sizeof(buf));

	if (!t)
		return -1;
	if (!strcmp(t, "true") || !strcmp(t, "yes") || !strcmp(t, "on")) {
		*out = 1;
		return 0;
	}
	if (!strcmp(t, "false") || !strcmp(t, "no") || !strcmp(t, "off")) {
		*out = 0;
		return 0;
	}
	add_error(c, f->pos, key, "'%s' is not true or false", t);
	return -1;
}

/* Checks that entry has only the allowed fields. */
static int check_fields(struct ctx *c, const struct json_value *entry, const char *key,
			const char *const *allowed)
{
	int bad = 0;

	if (entry->type != JSON_OBJECT) {
		add_error(c, entry->pos, key, "expected an object of fields, got %s",
			  json_type_name(entry->type));
		return -1;
	}
	for (size_t i = 0; i < entry->count; i++) {
		const char *name = entry->children[i].key;
		int ok = 0;

		for (const char *const *a = allowed; *a; a++)
			if (!strcmp(*a, name))
				ok = 1;
		if (!ok) {
			char full[160];

			snprintf(full, sizeof(full), "%s.%s", key, name);
			add_error(c, entry->children[i].key_pos, full, "unknown field \"%s\"",
				  name);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

static void field_key(char *out, size_t len, const char *key, const char *field)
{
	snprintf(out, len, "%s.%s", key, field);
}

/* ---- tables ---- */

static int valid_hostname(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= XFAB_HOSTNAME_MAX)
		return 0;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
			return 0;
	return s[0] != '.' && s[0] != '-';
}

static void parse_device_metadata(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"hostname",  "type",	 "datapath",
					     "hash_seed", "description", NULL};
	const struct json_value *lh = json_get(tbl, "localhost"), *f;
	char fk[160], buf[32];
	const char *t;

	for (size_t i = 0; i < tbl->count; i++)
		if (strcmp(tbl->children[i].key, "localhost"))
			add_error(c, tbl->children[i].key_pos, "DEVICE_METADATA",
				  "unknown entry \"%s\" (only \"localhost\")",
				  tbl->children[i].key);
	if (!lh) {
		add_error(c, tbl->pos, "DEVICE_METADATA", "missing entry \"localhost\"");
		return;
	}
	if (check_fields(c, lh, "DEVICE_METADATA|localhost", fields))
		return;
	f = json_get(lh, "hostname");
	if (!f) {
		add_error(c, lh->pos, "DEVICE_METADATA|localhost", "missing field \"hostname\"");
	} else if (f->type != JSON_STRING || !valid_hostname(f->str)) {
		add_error(c, f->pos, "DEVICE_METADATA|localhost.hostname",
			  "hostname must be 1..%d of [A-Za-z0-9._-]", XFAB_HOSTNAME_MAX - 1);
	} else {
		snprintf(c->cfg->hostname, sizeof(c->cfg->hostname), "%s", f->str);
	}
	c->cfg->datapath = XFAB_DP_XDP;
	f = json_get(lh, "datapath");
	if (f) {
		field_key(fk, sizeof(fk), "DEVICE_METADATA|localhost", "datapath");
		t = field_text(c, f, fk, buf, sizeof(buf));
		if (t && !strcmp(t, "xdp"))
			c->cfg->datapath = XFAB_DP_XDP;
		else if (t && !strcmp(t, "tc"))
			c->cfg->datapath = XFAB_DP_TC;
		else if (t)
			add_error(c, f->pos, fk, "datapath must be \"xdp\" or \"tc\", not '%s'", t);
	}
	c->cfg->hash_seed = xfab_default_hash_seed(c->cfg->hostname);
	f = json_get(lh, "hash_seed");
	if (f) {
		field_key(fk, sizeof(fk), "DEVICE_METADATA|localhost", "hash_seed");
		parse_u32(c, f, fk, 0, 0xffffffffu, &c->cfg->hash_seed);
	}
	f = json_get(lh, "type");
	if (f) {
		field_key(fk, sizeof(fk), "DEVICE_METADATA|localhost", "type");
		t = field_text(c, f, fk, buf, sizeof(buf));
		if (t && strcmp(t, "LeafRouter") && strcmp(t, "SpineRouter") &&
		    strcmp(t, "ToRRouter"))
			add_error(c, f->pos, fk,
				  "type must be LeafRouter, SpineRouter or ToRRouter, not '%s'", t);
	}
}

static int valid_ifname(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= XFAB_IFNAMSIZ)
		return 0;
	for (const char *p = s; *p; p++)
		if (*p == '/' || *p == ':' || *p == '|' || isspace((unsigned char)*p))
			return 0;
	return strcmp(s, ".") && strcmp(s, "..");
}

static void parse_ports(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"admin_status", "mtu",  "description", "alias",
					     "speed",	     "rate", "buffer",	    NULL};
	char key[160], fk[160], buf[32];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i], *f;
		struct xfab_cfg_port *p;
		const char *t;

		snprintf(key, sizeof(key), "PORT|%s", e->key);
		if (!valid_ifname(e->key)) {
			add_error(
			    c, e->key_pos, key,
			    "port name must be 1..15 characters without '/', ':', '|' or spaces");
			continue;
		}
		if (c->cfg->n_ports >= XFAB_MAX_PORTS) {
			add_error(c, e->key_pos, key, "more than %d ports", XFAB_MAX_PORTS);
			return;
		}
		if (check_fields(c, e, key, fields))
			continue;
		p = &c->cfg->ports[c->cfg->n_ports++];
		snprintf(p->name, sizeof(p->name), "%s", e->key);
		p->pos = e->key_pos;
		p->admin_up = 1;
		p->mtu = 1500;
		f = json_get(e, "admin_status");
		if (f) {
			field_key(fk, sizeof(fk), key, "admin_status");
			t = field_text(c, f, fk, buf, sizeof(buf));
			if (t && !strcmp(t, "up"))
				p->admin_up = 1;
			else if (t && !strcmp(t, "down"))
				p->admin_up = 0;
			else if (t)
				add_error(c, f->pos, fk,
					  "admin_status must be up or down, not '%s'", t);
		}
		f = json_get(e, "mtu");
		if (f) {
			field_key(fk, sizeof(fk), key, "mtu");
			parse_u32(c, f, fk, 68, 9216, &p->mtu);
		}
		for (int tc = 0; tc < XFAB_NUM_TC; tc++)
			p->wred[tc] = -1;
		f = json_get(e, "rate");
		if (f) {
			field_key(fk, sizeof(fk), key, "rate");
			parse_u32(c, f, fk, 1, 800000, &p->rate_mbps);
		}
		f = json_get(e, "buffer");
		if (f) {
			field_key(fk, sizeof(fk), key, "buffer");
			parse_u32(c, f, fk, 1500, 1u << 30, &p->buffer_bytes);
		}
		f = json_get(e, "speed");
		if (f) {
			__u32 speed;

			field_key(fk, sizeof(fk), key, "speed");
			parse_u32(c, f, fk, 1, 800000, &speed);
		}
		f = json_get(e, "description");
		if (f) {
			field_key(fk, sizeof(fk), key, "description");
			t = field_text(c, f, fk, buf, sizeof(buf));
			if (t)
				snprintf(p->description, sizeof(p->description), "%s", t);
		}
		f = json_get(e, "alias");
		if (f) {
			field_key(fk, sizeof(fk), key, "alias");
			field_text(c, f, fk, buf, sizeof(buf));
		}
	}
}

static void *grow(void *arr, int count, size_t elem)
{
	/* Doubles at powers of two; callers own the array. */
	if (count == 0 || (count & (count - 1)) == 0) {
		size_t cap = count ? (size_t)count * 2 : 8;

		return realloc(arr, cap * elem);
	}
	return arr;
}

static int addr_overlaps(const struct xfab_cfg_addr *a, const struct xfab_prefix *p)
{
	const struct xfab_prefix *narrow = a->pfx.plen > p->plen ? &a->pfx : p;
	const struct xfab_prefix *wide = a->pfx.plen > p->plen ? p : &a->pfx;

	return xfab_prefix_contains(wide, narrow->family, narrow->addr);
}

static void parse_interfaces(struct ctx *c, const struct json_value *tbl)
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
		if (check_fields(c, e, key, fields))
			continue;
		n = bar ? (size_t)(bar - e->key) : strlen(e->key);
		if (n == 0 || n >= sizeof(ifname)) {
			add_error(c, e->key_pos, key, "expected PORT or PORT|ADDRESS/LENGTH");
			continue;
		}
		memcpy(ifname, e->key, n);
		ifname[n] = '\0';
		addr.port = xfab_config_port_index(c->cfg, ifname);
		if (addr.port < 0) {
			add_error(c, e->key_pos, key, "port \"%s\" is not in the PORT table",
				  ifname);
			continue;
		}
		if (!bar) /* SONiC's bare "Ethernet0": {} entry enables routing */
			continue;
		if (xfab_parse_prefix(bar + 1, &addr.pfx, why, sizeof(why))) {
			add_error(c, e->key_pos, key, "%s", why);
			continue;
		}
		if (addr.pfx.plen == 0) {
			add_error(c, e->key_pos, key,
				  "an interface address needs a prefix length > 0");
			continue;
		}
		for (int k = 0; k < c->cfg->n_addrs; k++) {
			const struct xfab_cfg_addr *o = &c->cfg->addrs[k];

			if (o->pfx.family != addr.pfx.family)
				continue;
			if (!memcmp(o->pfx.addr, addr.pfx.addr, 16)) {
				add_error(c, e->key_pos, key, "address already on port %s",
					  c->cfg->ports[o->port].name);
				dup = 1;
				break;
			}
			if (o->port != addr.port && addr_overlaps(o, &addr.pfx)) {
				add_error(c, e->key_pos, key, "subnet overlaps one on port %s",
					  c->cfg->ports[o->port].name);
				dup = 1;
				break;
			}
		}
		if (dup)
			continue;
		c->cfg->addrs = grow(c->cfg->addrs, c->cfg->n_addrs, sizeof(addr));
		if (!c->cfg->addrs) {
			add_error(c, e->key_pos, key, "out of memory");
			return;
		}
		c->cfg->addrs[c->cfg->n_addrs++] = addr;
	}
}

/* Port whose connected subnet holds gw, or -1. */
static int connected_port(const struct xfab_config *cfg, int family, const __u8 *gw)
{
	for (int k = 0; k < cfg->n_addrs; k++)
		if (xfab_prefix_contains(&cfg->addrs[k].pfx, family, gw))
			return cfg->addrs[k].port;
	return -1;
}

static int is_local_addr(const struct xfab_config *cfg, int family, const __u8 *a)
{
	for (int k = 0; k < cfg->n_addrs; k++)
		if (cfg->addrs[k].pfx.family == family &&
		    !memcmp(cfg->addrs[k].pfx.addr, a, family == AF_INET ? 4 : 16))
			return 1;
	return 0;
}

/* Splits a comma list in place; returns the count or -1 if too many. */
static int split_list(char *s, char **items, int max)
{
	int n = 0;

	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		while (isspace((unsigned char)*tok))
			tok++;
		if (n == max)
			return -1;
		items[n++] = tok;
	}
	return n;
}

/* Parses a prefix key: valid, no host bits. */
static int parse_key_prefix(struct ctx *c, const struct json_value *e, const char *key,
			    const char *text, struct xfab_prefix *pfx)
{
	char why[160];

	if (xfab_parse_prefix(text, pfx, why, sizeof(why))) {
		add_error(c, e->key_pos, key, "%s", why);
		return -1;
	}
	if (prefix_host_bits_set(pfx)) {
		add_error(c, e->key_pos, key, "host bits set past /%d", pfx->plen);
		return -1;
	}
	return 0;
}

/* The path fields shared by ROUTE and TE_PATH: nexthop, ifname, weight and
 * (ROUTE only) blackhole. rt->pfx must be set. */
static int parse_path(struct ctx *c, const struct json_value *e, const char *key,
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
		field_key(fk, sizeof(fk), key, "blackhole");
		if (parse_bool(c, fbh, fk, &rt->blackhole))
			return -1;
	}
	fnh = json_get(e, "nexthop");
	fif = json_get(e, "ifname");
	fw = json_get(e, "weight");
	if (rt->blackhole) {
		if (fnh || fif || fw) {
			add_error(c,
				  (fnh	 ? fnh
				   : fif ? fif
					 : fw)
				      ->pos,
				  key, "a blackhole route takes no nexthop, ifname or weight");
			return -1;
		}
		return 0;
	}
	if (!fnh) {
		add_error(c, e->pos, key, "missing field \"nexthop\" (or \"blackhole\": \"true\")");
		return -1;
	}
	field_key(fk, sizeof(fk), key, "nexthop");
	if (fnh->type != JSON_STRING) {
		add_error(c, fnh->pos, fk, "expected a comma-separated string of addresses");
		return -1;
	}
	nh_copy = strdup(fnh->str);
	if (fif && fif->type != JSON_STRING) {
		field_key(fk, sizeof(fk), key, "ifname");
		add_error(c, fif->pos, fk, "expected a comma-separated string of ports");
		goto out;
	}
	if (fw && fw->type != JSON_STRING && fw->type != JSON_NUMBER) {
		field_key(fk, sizeof(fk), key, "weight");
		add_error(c, fw->pos, fk, "expected a comma-separated string of weights");
		goto out;
	}
	if_copy = fif ? strdup(fif->str) : NULL;
	w_copy = fw ? strdup(fw->str) : NULL;
	if (!nh_copy || (fif && !if_copy) || (fw && !w_copy)) {
		add_error(c, e->pos, key, "out of memory");
		goto out;
	}
	n_nh = split_list(nh_copy, nh_items, XFAB_GROUP_MAX_MEMBERS);
	if (n_nh < 0) {
		add_error(c, fnh->pos, fk, "more than %d nexthops", XFAB_GROUP_MAX_MEMBERS);
		goto out;
	}
	if (n_nh == 0) {
		add_error(c, fnh->pos, fk, "no nexthop given");
		goto out;
	}
	if (if_copy) {
		n_if = split_list(if_copy, if_items, XFAB_GROUP_MAX_MEMBERS);
		if (n_if != n_nh) {
			field_key(fk, sizeof(fk), key, "ifname");
			add_error(c, fif->pos, fk,
				  "%d ports for %d nexthops (need one per nexthop)",
				  n_if < 0 ? XFAB_GROUP_MAX_MEMBERS + 1 : n_if, n_nh);
			goto out;
		}
	}
	rt->nexthops = calloc((size_t)n_nh, sizeof(*rt->nexthops));
	rt->weights = calloc((size_t)n_nh, sizeof(*rt->weights));
	if (!rt->nexthops || !rt->weights) {
		add_error(c, e->pos, key, "out of memory");
		goto out;
	}
	if (w_copy) {
		n_w = split_list(w_copy, w_items, XFAB_GROUP_MAX_MEMBERS);
		field_key(fk, sizeof(fk), key, "weight");
		if (n_w != n_nh) {
			add_error(c, fw->pos, fk,
				  "%d weights for %d nexthops (need one per nexthop)",
				  n_w < 0 ? XFAB_GROUP_MAX_MEMBERS + 1 : n_w, n_nh);
			goto out;
		}
		for (int k = 0; k < n_w; k++) {
			char *end;
			long w = strtol(w_items[k], &end, 10);

			if (*end != '\0' || end == w_items[k] || w < 1 || w > 1000) {
				add_error(c, fw->pos, fk,
					  "weight '%s' must be a whole number 1..1000", w_items[k]);
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

		field_key(fk, sizeof(fk), key, "nexthop");
		if (inet_pton(family, nh_items[k], nh->gw) != 1) {
			add_error(c, fnh->pos, fk, "'%s' is not an IP address", nh_items[k]);
			goto out;
		}
		nh->family = family;
		if (family != rt->pfx.family) {
			add_error(c, fnh->pos, fk, "nexthop %s is not of the prefix's family",
				  nh_items[k]);
			goto out;
		}
		if (is_local_addr(c->cfg, family, nh->gw)) {
			add_error(c, fnh->pos, fk, "nexthop %s is this switch's own address",
				  nh_items[k]);
			goto out;
		}
		if (if_copy) {
			nh->port = xfab_config_port_index(c->cfg, if_items[k]);
			if (nh->port < 0) {
				field_key(fk, sizeof(fk), key, "ifname");
				add_error(c, fif->pos, fk, "port \"%s\" is not in the PORT table",
					  if_items[k]);
				goto out;
			}
		} else {
			nh->port = connected_port(c->cfg, family, nh->gw);
			if (nh->port < 0) {
				add_error(c, fnh->pos, fk,
					  "nexthop %s is in no connected subnet (INTERFACE)",
					  nh_items[k]);
				goto out;
			}
		}
		for (int j = 0; j < k; j++) {
			if (rt->nexthops[j].port == nh->port &&
			    !memcmp(rt->nexthops[j].gw, nh->gw, 16)) {
				add_error(c, fnh->pos, fk, "nexthop %s listed twice", nh_items[k]);
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

static void parse_route(struct ctx *c, const struct json_value *e)
{
	static const char *const fields[] = {"nexthop",	 "ifname",	"blackhole", "weight",
					     "distance", "nexthop-vrf", NULL};
	struct xfab_cfg_route rt;
	char key[160];

	memset(&rt, 0, sizeof(rt));
	snprintf(key, sizeof(key), "ROUTE|%s", e->key);
	if (check_fields(c, e, key, fields))
		return;
	if (parse_key_prefix(c, e, key, e->key, &rt.pfx))
		return;
	rt.pos = e->key_pos;
	rt.key = e->key; /* duplicates are found once all routes are read */
	{
		const struct json_value *fnh = json_get(e, "nexthop");

		/* The same plain list as the route before: share its parse. */
		const struct xfab_cfg_route *last =
		    c->last_route >= 0 ? &c->cfg->routes[c->last_route] : NULL;

		if (fnh && fnh->type == JSON_STRING && e->count == 1 && c->last_nh_text && last &&
		    last->pfx.family == rt.pfx.family && !strcmp(fnh->str, c->last_nh_text)) {
			rt.nexthops = last->nexthops;
			rt.weights = last->weights;
			rt.n_nexthops = last->n_nexthops;
			rt.shared = 1;
			goto add;
		}
	}
	for (int k = 0; k < c->cfg->n_addrs; k++) {
		struct xfab_prefix subnet = c->cfg->addrs[k].pfx;

		if (subnet.family != rt.pfx.family || subnet.plen != rt.pfx.plen)
			continue;
		if (xfab_prefix_contains(&subnet, rt.pfx.family, rt.pfx.addr)) {
			add_error(c, e->key_pos, key, "prefix is the connected subnet of port %s",
				  c->cfg->ports[c->cfg->addrs[k].port].name);
			return;
		}
	}
	if (parse_path(c, e, key, &rt))
		return;
add:
	c->cfg->routes = grow(c->cfg->routes, c->cfg->n_routes, sizeof(rt));
	if (!c->cfg->routes) {
		add_error(c, e->key_pos, key, "out of memory");
		if (!rt.shared) {
			free(rt.nexthops);
			free(rt.weights);
		}
		return;
	}
	c->cfg->routes[c->cfg->n_routes++] = rt;
	if (!rt.shared) {
		const struct json_value *fnh = json_get(e, "nexthop");

		c->last_nh_text = !rt.blackhole && e->count == 1 && fnh && fnh->type == JSON_STRING
				      ? fnh->str
				      : NULL;
	}
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
static void check_duplicate_routes(struct ctx *c)
{
	int n = c->cfg->n_routes, *idx = malloc((size_t)(n ? n : 1) * sizeof(int));
	char key[160];

	if (!idx) {
		struct json_pos none = {0, 0};

		add_error(c, none, "ROUTE", "out of memory");
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
			add_error(c, b->pos, key, "the same prefix is already routed (line %d)",
				  a->pos.line);
		}
	}
	free(idx);
}

/* The IPv4 FIB has XFAB_FIB4_TBL8_GROUPS second-level groups: one per /24
 * that holds a longer prefix (a route, or an interface's own /32 and its
 * subnet). The route that would need one more is refused. */
static void check_fib4_groups(struct ctx *c)
{
	__u8 *seen = calloc(XFAB_FIB4_TBL24_SIZE / 8, 1);
	int used = 0;
	char key[160];

	if (!seen) {
		struct json_pos none = {0, 0};

		add_error(c, none, "ROUTE", "out of memory");
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
		add_error(c, c->cfg->routes[k - c->cfg->n_addrs].pos, key,
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
static void check_fib6_groups(struct ctx *c)
{
	size_t total = (size_t)c->cfg->n_addrs + (size_t)c->cfg->n_routes, n = 0;
	__u8(*addr)[16] = malloc((total ? total : 1) * 16);
	int *plen = malloc((total ? total : 1) * sizeof(int));
	int *route = malloc((total ? total : 1) * sizeof(int));
	char key[160];
	long over;

	if (!addr || !plen || !route) {
		struct json_pos none = {0, 0};

		add_error(c, none, "ROUTE", "out of memory");
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

		add_error(c, none, "ROUTE", "out of memory");
	} else if (over >= 0 && route[over] >= 0) {
		snprintf(key, sizeof(key), "ROUTE|%s", c->cfg->routes[route[over]].key);
		add_error(c, c->cfg->routes[route[over]].pos, key,
			  "the IPv6 routes (and interface addresses) would need more than %d FIB "
			  "groups: no room for this one",
			  XFAB_FIB6_GROUPS);
	}
out:
	free(addr);
	free(plen);
	free(route);
}

/* TE_PATH|PORT|PREFIX: traffic entering PORT for PREFIX takes this path
 * while it is up, whatever the routes say. */
static void parse_te(struct ctx *c, const struct json_value *e)
{
	static const char *const fields[] = {"nexthop", "ifname", "weight", NULL};
	const char *bar = strchr(e->key, '|');
	struct xfab_cfg_te te;
	char key[160], ifname[XFAB_IFNAMSIZ + 1];
	size_t n;

	memset(&te, 0, sizeof(te));
	snprintf(key, sizeof(key), "TE_PATH|%s", e->key);
	if (check_fields(c, e, key, fields))
		return;
	n = bar ? (size_t)(bar - e->key) : 0;
	if (!bar || n == 0 || n >= sizeof(ifname)) {
		add_error(c, e->key_pos, key, "expected INGRESS_PORT|PREFIX");
		return;
	}
	memcpy(ifname, e->key, n);
	ifname[n] = '\0';
	te.in_port = xfab_config_port_index(c->cfg, ifname);
	if (te.in_port < 0) {
		add_error(c, e->key_pos, key, "port \"%s\" is not in the PORT table", ifname);
		return;
	}
	if (parse_key_prefix(c, e, key, bar + 1, &te.path.pfx))
		return;
	for (int k = 0; k < c->cfg->n_te; k++) {
		const struct xfab_cfg_te *o = &c->cfg->te[k];

		if (o->in_port == te.in_port && o->path.pfx.family == te.path.pfx.family &&
		    o->path.pfx.plen == te.path.pfx.plen &&
		    !memcmp(o->path.pfx.addr, te.path.pfx.addr, 16)) {
			add_error(c, e->key_pos, key,
				  "the same port and prefix are already pinned");
			return;
		}
	}
	if (parse_path(c, e, key, &te.path))
		return;
	c->cfg->te = grow(c->cfg->te, c->cfg->n_te, sizeof(te));
	if (!c->cfg->te) {
		add_error(c, e->key_pos, key, "out of memory");
		return;
	}
	c->cfg->te[c->cfg->n_te++] = te;
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

int xfab_parse_hash_fields(const char *text, __u32 *fields, char *bad, size_t badlen)
{
	char copy[256], *items[16];
	int n;

	snprintf(copy, sizeof(copy), "%s", text);
	n = split_list(copy, items, 16);
	*fields = 0;
	if (n <= 0) {
		snprintf(bad, badlen, "%s", text);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < sizeof(hash_field_names) / sizeof(hash_field_names[0]); k++)
			if (!strcmp(items[i], hash_field_names[k].name))
				break;
		if (k == sizeof(hash_field_names) / sizeof(hash_field_names[0])) {
			snprintf(bad, badlen, "%s", items[i]);
			return -1;
		}
		*fields |= hash_field_names[k].bit;
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
static const struct json_value *global_entry(struct ctx *c, const struct json_value *tbl,
					     const char *table)
{
	for (size_t i = 0; i < tbl->count; i++)
		if (strcmp(tbl->children[i].key, "global"))
			add_error(c, tbl->children[i].key_pos, table,
				  "unknown entry \"%s\" (only \"global\")", tbl->children[i].key);
	return json_get(tbl, "global");
}

static void parse_ecmp(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"hash_fields", "symmetric", "resilient", NULL};
	const struct json_value *g = global_entry(c, tbl, "ECMP"), *f;
	char fk[160], bad[64];

	if (!g || check_fields(c, g, "ECMP|global", fields))
		return;
	f = json_get(g, "hash_fields");
	if (f) {
		field_key(fk, sizeof(fk), "ECMP|global", "hash_fields");
		if (f->type != JSON_STRING)
			add_error(c, f->pos, fk, "expected a comma-separated string of fields");
		else if (xfab_parse_hash_fields(f->str, &c->cfg->hash_fields, bad, sizeof(bad)))
			add_error(c, f->pos, fk,
				  "unknown hash field '%s' (SRC_IP, DST_IP, IP_PROTOCOL, "
				  "L4_SRC_PORT, L4_DST_PORT, IPV6_FLOW_LABEL, ROCE_DEST_QP, INNER)",
				  bad);
	}
	f = json_get(g, "symmetric");
	if (f) {
		field_key(fk, sizeof(fk), "ECMP|global", "symmetric");
		parse_bool(c, f, fk, &c->cfg->symmetric);
	}
	f = json_get(g, "resilient");
	if (f) {
		field_key(fk, sizeof(fk), "ECMP|global", "resilient");
		parse_bool(c, f, fk, &c->cfg->resilient);
	}
}

static void parse_flowlet(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"enabled",	       "gap_us", "mode",
					     "load_window_us", "age_ms", NULL};
	const struct json_value *g = global_entry(c, tbl, "FLOWLET"), *f;
	char fk[160], buf[32];
	const char *t;

	if (!g || check_fields(c, g, "FLOWLET|global", fields))
		return;
	f = json_get(g, "enabled");
	if (f) {
		field_key(fk, sizeof(fk), "FLOWLET|global", "enabled");
		parse_bool(c, f, fk, &c->cfg->flowlet);
	}
	f = json_get(g, "gap_us");
	if (f) {
		field_key(fk, sizeof(fk), "FLOWLET|global", "gap_us");
		parse_u32(c, f, fk, 1, 10000000, &c->cfg->flowlet_gap_us);
	}
	f = json_get(g, "load_window_us");
	if (f) {
		field_key(fk, sizeof(fk), "FLOWLET|global", "load_window_us");
		parse_u32(c, f, fk, 1, 10000000, &c->cfg->load_window_us);
	}
	f = json_get(g, "age_ms");
	if (f) {
		field_key(fk, sizeof(fk), "FLOWLET|global", "age_ms");
		parse_u32(c, f, fk, 1, 3600000, &c->cfg->flowlet_age_ms);
	}
	f = json_get(g, "mode");
	if (f) {
		field_key(fk, sizeof(fk), "FLOWLET|global", "mode");
		t = field_text(c, f, fk, buf, sizeof(buf));
		if (t && !strcmp(t, "random"))
			c->cfg->flowlet_mode = XFAB_FLOWLET_RANDOM;
		else if (t && !strcmp(t, "least_loaded"))
			c->cfg->flowlet_mode = XFAB_FLOWLET_LEAST_LOADED;
		else if (t)
			add_error(c, f->pos, fk, "mode must be random or least_loaded, not '%s'",
				  t);
	}
}

static void parse_neighs(struct ctx *c, const struct json_value *tbl)
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
		if (check_fields(c, e, key, fields))
			continue;
		n = bar ? (size_t)(bar - e->key) : 0;
		if (!bar || n == 0 || n >= sizeof(ifname)) {
			add_error(c, e->key_pos, key, "expected PORT|ADDRESS");
			continue;
		}
		memcpy(ifname, e->key, n);
		ifname[n] = '\0';
		nb.port = xfab_config_port_index(c->cfg, ifname);
		if (nb.port < 0) {
			add_error(c, e->key_pos, key, "port \"%s\" is not in the PORT table",
				  ifname);
			continue;
		}
		nb.family = strchr(bar + 1, ':') ? AF_INET6 : AF_INET;
		if (inet_pton(nb.family, bar + 1, nb.addr) != 1) {
			add_error(c, e->key_pos, key, "'%s' is not an IP address", bar + 1);
			continue;
		}
		f = json_get(e, "neigh");
		field_key(fk, sizeof(fk), key, "neigh");
		if (!f) {
			add_error(c, e->pos, key, "missing field \"neigh\" (the MAC address)");
			continue;
		}
		if (f->type != JSON_STRING || xfab_parse_mac(f->str, nb.mac)) {
			add_error(c, f->pos, fk, "expected a MAC address like 02:00:00:00:00:01");
			continue;
		}
		if (nb.mac[0] & 1) {
			add_error(c, f->pos, fk, "a neighbour MAC cannot be multicast");
			continue;
		}
		c->cfg->neighs = grow(c->cfg->neighs, c->cfg->n_neighs, sizeof(nb));
		if (!c->cfg->neighs) {
			add_error(c, e->key_pos, key, "out of memory");
			return;
		}
		c->cfg->neighs[c->cfg->n_neighs++] = nb;
	}
}

void xfab_default_dscp_to_tc(__u8 map[XFAB_NUM_DSCP])
{
	/* SONiC as shipped: 3->3, 4->4, 46->5, 48->6, 8->0, 5->2, others -> 1 */
	for (int d = 0; d < XFAB_NUM_DSCP; d++)
		map[d] = 1;
	map[3] = 3;
	map[4] = 4;
	map[46] = 5;
	map[48] = 6;
	map[8] = 0;
	map[5] = 2;
}

/* DSCP_TO_TC_MAP|NAME: {"DSCP": "TC", ...}; one map per switch, DSCPs not
 * listed keep the default class. */
static void parse_dscp_map(struct ctx *c, const struct json_value *tbl)
{
	char key[160], fk[160];

	if (tbl->count > 1) {
		add_error(c, tbl->children[1].key_pos, "DSCP_TO_TC_MAP",
			  "one map per switch (it applies to every port)");
		return;
	}
	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];

		snprintf(key, sizeof(key), "DSCP_TO_TC_MAP|%s", e->key);
		if (e->type != JSON_OBJECT) {
			add_error(c, e->pos, key, "expected an object of \"DSCP\": \"TC\"");
			continue;
		}
		for (size_t k = 0; k < e->count; k++) {
			const struct json_value *f = &e->children[k];
			char *end;
			long dscp = strtol(f->key, &end, 10);
			__u32 tc;

			snprintf(fk, sizeof(fk), "%s.%s", key, f->key);
			if (*end != '\0' || end == f->key || dscp < 0 || dscp >= XFAB_NUM_DSCP) {
				add_error(c, f->key_pos, fk, "DSCP must be 0..63");
				continue;
			}
			if (parse_u32(c, f, fk, 0, XFAB_NUM_TC - 1, &tc) == 0)
				c->cfg->dscp_to_tc[dscp] = (__u8)tc;
		}
	}
}

static void parse_wred_profiles(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"min_threshold", "max_threshold", "max_probability",
					     "ecn",	      "drop_nonect",   NULL};
	char key[160], fk[160], buf[32];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i], *f;
		struct xfab_cfg_wred w = {.pmax_percent = 100, .ecn = 1, .drop_nonect = 1};
		const char *t;
		int bad = c->errs->count;

		snprintf(key, sizeof(key), "WRED_PROFILE|%s", e->key);
		if (check_fields(c, e, key, fields))
			continue;
		if (strlen(e->key) >= sizeof(w.name)) {
			add_error(c, e->key_pos, key, "profile names are at most 63 characters");
			continue;
		}
		if (c->cfg->n_wred == XFAB_MAX_WRED_PROFILES) {
			add_error(c, e->key_pos, key, "more than %d profiles",
				  XFAB_MAX_WRED_PROFILES);
			return;
		}
		snprintf(w.name, sizeof(w.name), "%s", e->key);
		f = json_get(e, "min_threshold");
		field_key(fk, sizeof(fk), key, "min_threshold");
		if (!f)
			add_error(c, e->pos, key, "missing field \"min_threshold\" (bytes)");
		else
			parse_u32(c, f, fk, 0, 1u << 30, &w.kmin_bytes);
		f = json_get(e, "max_threshold");
		field_key(fk, sizeof(fk), key, "max_threshold");
		if (!f)
			add_error(c, e->pos, key, "missing field \"max_threshold\" (bytes)");
		else if (parse_u32(c, f, fk, 1, 1u << 30, &w.kmax_bytes) == 0 &&
			 w.kmax_bytes <= w.kmin_bytes)
			add_error(c, f->pos, fk, "max_threshold must be above min_threshold (%u)",
				  w.kmin_bytes);
		f = json_get(e, "max_probability");
		if (f) {
			field_key(fk, sizeof(fk), key, "max_probability");
			parse_u32(c, f, fk, 0, 100, &w.pmax_percent);
		}
		f = json_get(e, "ecn");
		if (f) {
			field_key(fk, sizeof(fk), key, "ecn");
			t = field_text(c, f, fk, buf, sizeof(buf));
			if (t && (!strcmp(t, "ecn_all") || !strcmp(t, "true") || !strcmp(t, "on")))
				w.ecn = 1;
			else if (t && (!strcmp(t, "ecn_none") || !strcmp(t, "false") ||
				       !strcmp(t, "off")))
				w.ecn = 0;
			else if (t)
				add_error(c, f->pos, fk,
					  "ecn must be ecn_all or ecn_none, not '%s'", t);
		}
		f = json_get(e, "drop_nonect");
		if (f) {
			field_key(fk, sizeof(fk), key, "drop_nonect");
			parse_bool(c, f, fk, &w.drop_nonect);
		}
		if (c->errs->count == bad)
			c->cfg->wred[c->cfg->n_wred++] = w;
	}
}

/* QUEUE|PORT|TC or QUEUE|PORT|TC-TC: {"wred_profile": NAME}. */
static void parse_queues(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"wred_profile", NULL};
	char key[160], fk[160], ifname[XFAB_IFNAMSIZ + 1];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i], *f;
		const char *bar = strchr(e->key, '|');
		int port, lo, hi, prof = -1, n;
		char tail;

		snprintf(key, sizeof(key), "QUEUE|%s", e->key);
		if (check_fields(c, e, key, fields))
			continue;
		n = bar ? (int)(bar - e->key) : 0;
		if (!bar || n == 0 || n >= (int)sizeof(ifname)) {
			add_error(c, e->key_pos, key, "expected PORT|TC or PORT|TC-TC");
			continue;
		}
		memcpy(ifname, e->key, (size_t)n);
		ifname[n] = '\0';
		port = xfab_config_port_index(c->cfg, ifname);
		if (port < 0) {
			add_error(c, e->key_pos, key, "port \"%s\" is not in the PORT table",
				  ifname);
			continue;
		}
		n = sscanf(bar + 1, "%d-%d%c", &lo, &hi, &tail);
		if (n == 1)
			hi = lo;
		if ((n != 1 && n != 2) || lo < 0 || hi >= XFAB_NUM_TC || lo > hi ||
		    strspn(bar + 1, "0123456789-") != strlen(bar + 1)) {
			add_error(c, e->key_pos, key, "traffic classes are 0..7 (TC or TC-TC)");
			continue;
		}
		f = json_get(e, "wred_profile");
		if (!f) {
			add_error(c, e->pos, key, "missing field \"wred_profile\"");
			continue;
		}
		field_key(fk, sizeof(fk), key, "wred_profile");
		for (int k = 0; k < c->cfg->n_wred; k++)
			if (f->type == JSON_STRING && !strcmp(c->cfg->wred[k].name, f->str))
				prof = k;
		if (prof < 0) {
			add_error(c, f->pos, fk, "no WRED_PROFILE named %s",
				  f->type == JSON_STRING ? f->str : "(not a string)");
			continue;
		}
		for (int tc = lo; tc <= hi; tc++)
			c->cfg->ports[port].wred[tc] = prof;
	}
}

static const char *const known_tables[] = {
    "DEVICE_METADATA", "PORT",	  "INTERFACE",	    "ROUTE",	    "NEIGH", "ECMP",
    "FLOWLET",	       "TE_PATH", "DSCP_TO_TC_MAP", "WRED_PROFILE", "QUEUE", NULL,
};

int xfab_config_parse(const char *file, const char *text, struct xfab_config *out,
		      struct xfab_cfg_errors *errs)
{
	struct xfab_config *cfg = calloc(1, sizeof(*cfg));
	struct ctx c = {.file = file, .errs = errs, .cfg = cfg, .last_route = -1};
	const struct json_value *tbl;
	struct json_value *root;
	struct json_pos pos = {0, 0};
	char msg[256];

	errs->count = 0;
	if (!cfg) {
		add_error(&c, pos, NULL, "out of memory");
		return -1;
	}
	root = json_parse(text, msg, sizeof(msg), &pos);
	if (!root) {
		add_error(&c, pos, NULL, "%s", msg);
		free(cfg);
		return -1;
	}
	if (root->type != JSON_OBJECT) {
		add_error(&c, root->pos, NULL, "the config must be a JSON object of tables");
		goto done;
	}
	for (size_t i = 0; i < root->count; i++) {
		const struct json_value *t = &root->children[i];
		int known = 0;

		for (const char *const *k = known_tables; *k; k++)
			if (!strcmp(*k, t->key))
				known = 1;
		if (!known)
			add_error(&c, t->key_pos, t->key, "unknown table");
		else if (t->type != JSON_OBJECT)
			add_error(&c, t->pos, t->key, "a table must be an object, got %s",
				  json_type_name(t->type));
	}
	if (errs->count)
		goto done;
	tbl = json_get(root, "DEVICE_METADATA");
	if (!tbl)
		add_error(&c, root->pos, "DEVICE_METADATA", "missing table");
	else
		parse_device_metadata(&c, tbl);
	tbl = json_get(root, "PORT");
	if (!tbl || tbl->count == 0)
		add_error(&c, tbl ? tbl->pos : root->pos, "PORT", "at least one port is needed");
	else
		parse_ports(&c, tbl);
	tbl = json_get(root, "INTERFACE");
	if (tbl)
		parse_interfaces(&c, tbl);
	tbl = json_get(root, "ROUTE");
	if (tbl && !errs->count) { /* routes resolve against valid interfaces only */
		for (size_t i = 0; i < tbl->count; i++)
			parse_route(&c, &tbl->children[i]);
		check_duplicate_routes(&c);
		check_fib4_groups(&c);
		check_fib6_groups(&c);
	}
	tbl = json_get(root, "NEIGH");
	if (tbl)
		parse_neighs(&c, tbl);
	cfg->hash_fields = XFAB_HASH_F_DEFAULT;
	cfg->resilient = 1;
	cfg->flowlet_mode = XFAB_FLOWLET_RANDOM;
	cfg->flowlet_gap_us = 100; /* ConWeave's figure at 100G; CONGA uses 500 */
	cfg->load_window_us = 100;
	cfg->flowlet_age_ms = 1000;
	tbl = json_get(root, "ECMP");
	if (tbl)
		parse_ecmp(&c, tbl);
	tbl = json_get(root, "FLOWLET");
	if (tbl)
		parse_flowlet(&c, tbl);
	xfab_default_dscp_to_tc(cfg->dscp_to_tc);
	tbl = json_get(root, "DSCP_TO_TC_MAP");
	if (tbl)
		parse_dscp_map(&c, tbl);
	tbl = json_get(root, "WRED_PROFILE");
	if (tbl)
		parse_wred_profiles(&c, tbl);
	tbl = json_get(root, "QUEUE");
	if (tbl)
		parse_queues(&c, tbl);
	tbl = json_get(root, "TE_PATH");
	cfg->te_enabled = tbl != NULL;
	if (tbl && !errs->count)
		for (size_t i = 0; i < tbl->count; i++)
			parse_te(&c, &tbl->children[i]);
done:
	json_free(root);
	if (errs->count) {
		xfab_config_free(cfg);
		free(cfg);
		return -1;
	}
	*out = *cfg;
	free(cfg);
	return 0;
}

int xfab_config_load(const char *path, struct xfab_config *cfg, struct xfab_cfg_errors *errs)
{
	struct json_pos nowhere = {0, 0};
	struct ctx c = {.file = path, .errs = errs};
	FILE *f = fopen(path, "rb");
	char *text;
	long size;
	int ret;

	errs->count = 0;
	if (!f) {
		add_error(&c, nowhere, NULL, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    (unsigned long)size > XFAB_CONFIG_MAX_BYTES) {
		add_error(&c, nowhere, NULL, "cannot read (or larger than %u bytes)",
			  XFAB_CONFIG_MAX_BYTES);
		fclose(f);
		return -1;
	}
	text = malloc((size_t)size + 1);
	if (!text || fread(text, 1, (size_t)size, f) != (size_t)size) {
		add_error(&c, nowhere, NULL, "cannot read: %s", strerror(errno));
		free(text);
		fclose(f);
		return -1;
	}
	fclose(f);
	text[size] = '\0';
	if (strlen(text) != (size_t)size) {
		add_error(&c, nowhere, NULL, "the file holds a NUL byte");
		free(text);
		return -1;
	}
	ret = xfab_config_parse(path, text, cfg, errs);
	free(text);
	return ret;
}

void xfab_config_free(struct xfab_config *cfg)
{
	for (int i = 0; i < cfg->n_routes; i++) {
		if (cfg->routes[i].shared)
			continue;
		free(cfg->routes[i].nexthops);
		free(cfg->routes[i].weights);
	}
	for (int i = 0; i < cfg->n_te; i++) {
		free(cfg->te[i].path.nexthops);
		free(cfg->te[i].path.weights);
	}
	free(cfg->addrs);
	free(cfg->routes);
	free(cfg->neighs);
	free(cfg->te);
	cfg->te = NULL;
	cfg->n_te = 0;
	cfg->addrs = NULL;
	cfg->routes = NULL;
	cfg->neighs = NULL;
	cfg->n_addrs = cfg->n_routes = cfg->n_neighs = 0;
}
