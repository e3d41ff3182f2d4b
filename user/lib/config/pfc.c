// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lossless classes (docs/PFC.md): PORT_QOS_MAP, CABLE_LENGTH,
 * BUFFER_PROFILE, BUFFER_PG and PFC_WD. A PG with PFC but no BUFFER_PG gets
 * thresholds derived from the port's MTU, speed and cable (CONFIG.md). In a
 * SONiC file the profiles are SONiC's, over its BUFFER_POOL
 * (sonic_buffer.c), and PORT_QOS_MAP's maps are checked (sonic_qos.c).
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__u32 xfab_pfc_headroom(__u32 speed_mbps, __u32 cable_m, __u32 mtu)
{
	/* bytes per microsecond at speed_mbps is speed_mbps / 8 */
	__u64 flight_ns = (__u64)XFAB_PFC_REACTION_US * 1000 + 2ull * cable_m * XFAB_PFC_NS_PER_M;
	__u64 b = 2ull * mtu + (flight_ns * speed_mbps + 7999) / 8000;

	return b > (1u << 30) ? 1u << 30 : (__u32)b;
}

__u32 xfab_pfc_queue_limit(const struct xfab_config *cfg, int p, int prio)
{
	__u64 sum = 0;
	__u32 own = cfg->ports[p].buffer_bytes ? cfg->ports[p].buffer_bytes : 1u << 20;

	for (int q = 0; q < cfg->n_ports; q++) {
		const struct xfab_cfg_pfc *f = &cfg->ports[q].pfc;

		if (q != p && (f->enabled & (1u << prio)))
			sum += (__u64)f->xoff[prio] + f->headroom[prio];
	}
	if (sum > (1u << 30))
		sum = 1u << 30;
	return sum > own ? (__u32)sum : own;
}

/* "PORT" of a key "PORT" or "PORT|REST"; the port's index or -1 (error added). */
static int key_port(struct ctx *c, const struct json_value *e, const char *key, const char **rest)
{
	char ifname[XFAB_IFNAMSIZ + 1];
	const char *bar = strchr(e->key, '|');
	size_t n = bar ? (size_t)(bar - e->key) : strlen(e->key);
	int port;

	*rest = bar ? bar + 1 : NULL;
	if (n == 0 || n >= sizeof(ifname)) {
		cfg_add_error(c, e->key_pos, key, "expected a port name");
		return -1;
	}
	memcpy(ifname, e->key, n);
	ifname[n] = '\0';
	port = xfab_config_port_index(c->cfg, ifname);
	if (port < 0)
		cfg_add_error(c, e->key_pos, key, "port \"%s\" is not in the PORT table", ifname);
	return port;
}

/* "3,4": priorities 0..7, each once; "" none. */
static int parse_prio_list(const char *t, __u8 *mask, char *why, size_t len)
{
	char copy[64], *items[XFAB_NUM_PRIO];
	int n;

	*mask = 0;
	if (!*t)
		return 0;
	if (strlen(t) >= sizeof(copy)) {
		snprintf(why, len, "too long");
		return -1;
	}
	snprintf(copy, sizeof(copy), "%s", t);
	n = cfg_split_list(copy, items, XFAB_NUM_PRIO);
	if (n == CFG_LIST_EMPTY_ITEM) {
		snprintf(why, len, "an empty item");
		return -1;
	}
	if (n < 0) {
		snprintf(why, len, "more than 8 priorities");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		__u64 v;

		if (cfg_decimal(items[i], strlen(items[i]), XFAB_NUM_PRIO - 1, &v) != CFG_DEC_OK) {
			snprintf(why, len, "'%s' is not a priority 0..7", items[i]);
			return -1;
		}
		if (*mask & (1u << v)) {
			snprintf(why, len, "priority %llu listed twice", (unsigned long long)v);
			return -1;
		}
		*mask |= (__u8)(1u << v);
	}
	return 0;
}

/* SONiC's pfcwd_sw_enable (the priorities its software watchdog watches)
 * of entry e: xfab's watches every lossless priority of a port with a
 * PFC_WD entry, so the list must be pfc_enable's. */
static void sonic_pfcwd_list(struct ctx *c, const struct json_value *e, const char *key,
			     const struct xfab_cfg_port *p)
{
	const struct json_value *f = xfab_json_get(e, "pfcwd_sw_enable");
	char fk[160], buf[64], why[96];
	const char *t;
	__u8 mask;

	if (!f)
		return;
	cfg_field_key(fk, sizeof(fk), key, "pfcwd_sw_enable");
	t = cfg_field_text(c, f, fk, buf, sizeof(buf));
	if (!t)
		return;
	if (parse_prio_list(t, &mask, why, sizeof(why)))
		cfg_add_error(c, f->pos, fk, "%s (a list such as \"3,4\")", why);
	else if (mask != p->pfc.enabled)
		cfg_add_error(c, f->pos, fk,
			      "xfab's watchdog watches every lossless priority of %s: the list "
			      "must be pfc_enable's",
			      p->name);
}

/* PORT_QOS_MAP entry e's pfc_enable into port p. */
static void read_pfc_enable(struct ctx *c, const struct json_value *e, const char *key,
			    struct xfab_cfg_port *p)
{
	const struct json_value *f = xfab_json_get(e, "pfc_enable");
	char fk[160], buf[64], why[96];
	const char *t;

	if (!f)
		return;
	cfg_field_key(fk, sizeof(fk), key, "pfc_enable");
	t = cfg_field_text(c, f, fk, buf, sizeof(buf));
	if (!t)
		return;
	if (parse_prio_list(t, &p->pfc.enabled, why, sizeof(why))) {
		cfg_add_error(c, f->pos, fk, "%s (a list such as \"3,4\")", why);
		return;
	}
	p->pfc.pos = e->key_pos;
	if (p->pfc.enabled && !p->rate_mbps)
		cfg_add_error(c, f->pos, fk,
			      "lossless priorities need the port's real queues: set PORT|%s "
			      "%s (Mbit/s)",
			      p->name, c->sonic ? "speed" : "rate");
}

/* PORT_QOS_MAP|PORT: {"pfc_enable": "3,4"}; in a SONiC file also the maps
 * and the watchdog's list (sonic_qos.c) and SONiC's "global" entry. */
void cfg_parse_port_qos_map(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"pfc_enable", NULL};
	static const char *const sonic_fields[] = {"pfc_enable",
						   "dscp_to_tc_map",
						   "tc_to_queue_map",
						   "tc_to_pg_map",
						   "pfc_to_queue_map",
						   "pfcwd_sw_enable",
						   NULL};
	static const char *const sonic_global[] = {"dscp_to_tc_map", NULL};
	char key[160];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		const char *rest;
		struct xfab_cfg_port *p;
		int port;

		snprintf(key, sizeof(key), "PORT_QOS_MAP|%s", e->key);
		if (c->sonic && !strcmp(e->key, "global")) {
			cfg_check_fields(c, e, key, sonic_global);
			continue;
		}
		if (cfg_check_fields(c, e, key, c->sonic ? sonic_fields : fields))
			continue;
		port = key_port(c, e, key, &rest);
		if (port < 0)
			continue;
		if (rest) {
			cfg_add_error(c, e->key_pos, key, "expected PORT_QOS_MAP|PORT");
			continue;
		}
		p = &c->cfg->ports[port];
		read_pfc_enable(c, e, key, p);
		if (c->sonic)
			sonic_pfcwd_list(c, e, key, p);
	}
}

/* CABLE_LENGTH|NAME: {"PORT": "5m", ...} */
void cfg_parse_cable_length(struct ctx *c, const struct json_value *tbl)
{
	char key[160], fk[160], buf[32];
	int line[XFAB_MAX_PORTS] = {0}; /* where each port's length was set */

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];

		snprintf(key, sizeof(key), "CABLE_LENGTH|%s", e->key);
		if (e->type != JSON_OBJECT) {
			cfg_add_error(c, e->pos, key, "expected an object of \"PORT\": \"5m\"");
			continue;
		}
		for (size_t k = 0; k < e->count; k++) {
			const struct json_value *f = &e->children[k];
			int port = xfab_config_port_index(c->cfg, f->key);
			const char *t;
			size_t n;
			__u64 m;

			snprintf(fk, sizeof(fk), "%s.%s", key, f->key);
			if (port < 0) {
				cfg_add_error(c, f->key_pos, fk,
					      "port \"%s\" is not in the PORT table", f->key);
				continue;
			}
			t = cfg_field_text(c, f, fk, buf, sizeof(buf));
			if (!t)
				continue;
			n = strlen(t);
			if (n < 2 || t[n - 1] != 'm' ||
			    cfg_decimal(t, n - 1, 100000, &m) != CFG_DEC_OK) {
				cfg_add_error(c, f->pos, fk,
					      "a cable length is meters, \"5m\" (0m..100000m)");
				continue;
			}
			if (line[port]) {
				cfg_add_error(c, f->key_pos, fk,
					      "the cable of %s is already set (line %d)", f->key,
					      line[port]);
				continue;
			}
			line[port] = f->key_pos.line;
			c->cfg->ports[port].pfc.cable_m = (__u32)m;
		}
	}
}

/* xfab's BUFFER_PROFILE|NAME: {"xoff", "xon", "headroom"} in bytes; 0 or
 * -1. SONiC's shared-pool fields are refused rather than read as
 * something else (a SONiC file's profile is sonic_buffer.c's). */
static int xfab_profile(struct ctx *c, const struct json_value *e, const char *key,
			struct cfg_buffer_profile *p)
{
	static const char *const fields[] = {"xoff", "xon", "headroom", NULL};
	static const char *const sonic_only[] = {"pool", "size", "dynamic_th", "static_th",
						 "xon_offset"};
	const struct json_value *f;
	char fk[160];
	int bad = c->errs->total;

	for (size_t k = 0; e->type == JSON_OBJECT && k < e->count; k++)
		for (size_t s = 0; s < sizeof(sonic_only) / sizeof(sonic_only[0]); s++)
			if (!strcmp(e->children[k].key, sonic_only[s])) {
				cfg_field_key(fk, sizeof(fk), key, sonic_only[s]);
				cfg_add_error(c, e->children[k].key_pos, fk,
					      "xfab has no shared buffer pools: a profile "
					      "is xoff, xon and headroom in bytes (CONFIG.md)");
			}
	if (c->errs->total != bad || cfg_check_fields(c, e, key, fields))
		return -1;
	for (int k = 0; fields[k]; k++) {
		__u32 *dst = k == 0 ? &p->xoff : k == 1 ? &p->xon : &p->headroom;

		f = xfab_json_get(e, fields[k]);
		cfg_field_key(fk, sizeof(fk), key, fields[k]);
		if (!f)
			cfg_add_error(c, e->pos, key, "missing field \"%s\" (bytes)", fields[k]);
		else
			cfg_parse_u32(c, f, fk, k == 1 ? 0 : 1, 1u << 30, dst);
	}
	cfg_field_key(fk, sizeof(fk), key, "xon");
	if (c->errs->total == bad && p->xon >= p->xoff)
		cfg_add_error(c, xfab_json_get(e, "xon")->pos, fk,
			      "xon (%u) must be below xoff (%u)", p->xon, p->xoff);
	return c->errs->total == bad ? 0 : -1;
}

/* BUFFER_PROFILE: xfab's, or in a SONiC file SONiC's over BUFFER_POOL. */
static int parse_profiles(struct ctx *c, const struct json_value *tbl,
			  const struct json_value *pools, struct cfg_buffer_profile **out)
{
	struct cfg_buffer_profile *pr = calloc(tbl->count + 1, sizeof(*pr));
	char key[160];
	int n = 0;

	if (!pr)
		return -1;
	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		struct cfg_buffer_profile p = {{0}};

		snprintf(key, sizeof(key), "BUFFER_PROFILE|%s", e->key);
		if (c->sonic ? cfg_sonic_buffer_profile(c, pools, e, key, &p)
			     : xfab_profile(c, e, key, &p))
			continue;
		if (strlen(e->key) >= sizeof(p.name)) {
			cfg_add_error(c, e->key_pos, key,
				      "profile names are at most 63 characters");
			continue;
		}
		snprintf(p.name, sizeof(p.name), "%s", e->key);
		pr[n++] = p;
	}
	*out = pr;
	return n;
}

#define PG_DERIVED (-2) /* SONiC's profile "NULL": the headroom is derived */

/* The profile BUFFER_PG entry e names: its index, PG_DERIVED, or -1 (an
 * error added). */
static int pg_profile(struct ctx *c, const struct json_value *e, const char *key,
		      const struct cfg_buffer_profile *pr, int n_pr)
{
	const struct json_value *f = xfab_json_get(e, "profile");
	char fk[160];

	if (!f) {
		cfg_add_error(c, e->pos, key, "missing field \"profile\"");
		return -1;
	}
	/* sonic-buffer-pg.yang: "NULL", SONiC's dynamic buffer model's
	 * lossless PG whose headroom buffermgrd computes from the port's
	 * speed and cable; xfab derives it the same way (CONFIG.md#buffer_pg) */
	if (c->sonic && f->type == JSON_STRING && !strcmp(f->str, "NULL"))
		return PG_DERIVED;
	for (int k = 0; k < n_pr; k++)
		if (f->type == JSON_STRING && !strcmp(pr[k].name, f->str))
			return k;
	cfg_field_key(fk, sizeof(fk), key, "profile");
	cfg_add_error(c, f->pos, fk, "no BUFFER_PROFILE named %s",
		      f->type == JSON_STRING ? f->str : "(not a string)");
	return -1;
}

/* PGs lo..hi of port with or without PFC, as the profile needs: 0, or -1
 * (an error at e's key). */
static int pg_lossless_match(struct ctx *c, const struct json_value *e, const char *key, int port,
			     int lo, int hi, const struct cfg_buffer_profile *p)
{
	const struct xfab_cfg_port *pt = &c->cfg->ports[port];

	for (int pg = lo; pg <= hi; pg++) {
		int pfc = !!(pt->pfc.enabled & (1u << pg));

		if (p && p->lossy && pfc) {
			cfg_add_error(c, e->key_pos, key,
				      "PG %d of %s has PFC (pfc_enable) but BUFFER_PROFILE %s is "
				      "lossy (no xoff)",
				      pg, pt->name, p->name);
			return -1;
		}
		if ((!p || !p->lossy) && !pfc) {
			cfg_add_error(c, e->key_pos, key,
				      "PG %d of %s has no PFC (PORT_QOS_MAP pfc_enable): "
				      "xfab sizes lossless PGs only",
				      pg, pt->name);
			return -1;
		}
	}
	return 0;
}

/* "PORT|PG" or "PORT|PG-PG" of e, not set before: the port, or -1. */
static int pg_key(struct ctx *c, const struct json_value *e, const char *key, int *lo, int *hi)
{
	const char *rest;
	int port = key_port(c, e, key, &rest), clash = -1;
	const struct xfab_cfg_pfc *pfc;

	if (port < 0)
		return -1;
	if (!rest || cfg_parse_tc_range(rest, lo, hi)) {
		cfg_add_error(c, e->key_pos, key,
			      "expected PORT|PG or PORT|PG-PG (0..7, low first, decimal)");
		return -1;
	}
	pfc = &c->cfg->ports[port].pfc;
	for (int pg = *lo; pg <= *hi; pg++)
		if (pfc->pg_line[pg] && clash < 0)
			clash = pg;
	if (clash >= 0) {
		cfg_add_error(c, e->key_pos, key, "PG %d of %s is already set (line %d)", clash,
			      c->cfg->ports[port].name, pfc->pg_line[clash]);
		return -1;
	}
	return port;
}

/* BUFFER_PG|PORT|PG or PORT|PG-PG: {"profile": NAME}, PGs with PFC on; in
 * a SONiC file also "NULL" (derived) and lossy profiles on PGs without
 * PFC (accepted and listed: xfab's lossy drops are its egress queues'). */
static void parse_pgs(struct ctx *c, const struct json_value *tbl,
		      const struct cfg_buffer_profile *pr, int n_pr)
{
	static const char *const fields[] = {"profile", NULL};
	char key[160];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		const struct cfg_buffer_profile *p;
		int port, lo, hi, prof;
		struct xfab_cfg_pfc *pfc;

		snprintf(key, sizeof(key), "BUFFER_PG|%s", e->key);
		if (cfg_check_fields(c, e, key, fields) ||
		    cfg_sonic_entry_refused(c, "BUFFER_PG", e))
			continue;
		port = pg_key(c, e, key, &lo, &hi);
		/* an xfab file's PGs are all lossless: PFC is checked first, as
		 * before SONiC's lossy profiles */
		if (port < 0 || (!c->sonic && pg_lossless_match(c, e, key, port, lo, hi, NULL)))
			continue;
		prof = pg_profile(c, e, key, pr, n_pr);
		if (prof == -1)
			continue;
		p = prof >= 0 ? &pr[prof] : NULL;
		if (c->sonic && pg_lossless_match(c, e, key, port, lo, hi, p))
			continue;
		if (p && p->lossy) {
			cfg_sonic_ignore(c, "BUFFER_PG (lossy PGs)");
			continue;
		}
		pfc = &c->cfg->ports[port].pfc;
		for (int pg = lo; pg <= hi; pg++) {
			/* xoff 0 (never a profile's): derived below */
			pfc->xoff[pg] = p ? p->xoff : 0;
			pfc->xon[pg] = p ? p->xon : 0;
			pfc->headroom[pg] = p ? p->headroom : 0;
			pfc->pg_line[pg] = e->key_pos.line;
		}
	}
}

void cfg_parse_buffers(struct ctx *c, const struct json_value *profiles,
		       const struct json_value *pgs, const struct json_value *pools)
{
	struct cfg_buffer_profile *pr = NULL;
	int n = 0;

	if (profiles) {
		n = parse_profiles(c, profiles, pools, &pr);
		if (n < 0) {
			cfg_add_error(c, profiles->pos, "BUFFER_PROFILE", "out of memory");
			return;
		}
	}
	if (pgs)
		parse_pgs(c, pgs, pr, n);
	free(pr);
	/* what no BUFFER_PG set: derived (CONFIG.md#buffer_pg) */
	for (int p = 0; p < c->cfg->n_ports; p++) {
		struct xfab_cfg_port *port = &c->cfg->ports[p];
		struct xfab_cfg_pfc *f = &port->pfc;
		__u32 mtu = port->mtu ? port->mtu : 1500;

		f->speed_mbps = port->speed_mbps ? port->speed_mbps : port->rate_mbps;
		for (int pg = 0; pg < XFAB_NUM_PRIO; pg++) {
			if (!(f->enabled & (1u << pg)) || (f->pg_line[pg] && f->xoff[pg]))
				continue;
			f->xoff[pg] = XFAB_PFC_XOFF_MTUS * (mtu + 14);
			f->xon[pg] = XFAB_PFC_XON_MTUS * (mtu + 14);
			f->headroom[pg] = xfab_pfc_headroom(f->speed_mbps, f->cable_m, mtu + 14);
		}
	}
}

/* PFC_WD|PORT: {action, detection_time, restoration_time};
 * PFC_WD|GLOBAL: {POLL_INTERVAL}. SONiC's defaults and ranges. */
void cfg_parse_pfc_wd(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"action", "detection_time", "restoration_time", NULL};
	static const char *const gfields[] = {"POLL_INTERVAL", NULL};
	char key[160], fk[160], buf[32];
	const struct json_value *g = xfab_json_get(tbl, "GLOBAL");
	int poll_line = 0;

	c->cfg->pfcwd_poll_ms = 200;
	if (g && !cfg_check_fields(c, g, "PFC_WD|GLOBAL", gfields)) {
		const struct json_value *f = xfab_json_get(g, "POLL_INTERVAL");

		if (f) {
			cfg_field_key(fk, sizeof(fk), "PFC_WD|GLOBAL", "POLL_INTERVAL");
			cfg_parse_u32(c, f, fk, 100, 1000, &c->cfg->pfcwd_poll_ms);
			poll_line = f->pos.line;
		}
	}
	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i], *f;
		struct xfab_cfg_pfc *pfc;
		const char *rest, *t;
		__u32 det = 200, rest_ms = 200;
		__u8 action = XFAB_PFCWD_DROP;
		int port, bad = c->errs->total;

		if (!strcmp(e->key, "GLOBAL"))
			continue;
		snprintf(key, sizeof(key), "PFC_WD|%s", e->key);
		if (cfg_check_fields(c, e, key, fields))
			continue;
		port = key_port(c, e, key, &rest);
		if (port < 0)
			continue;
		if (rest) {
			cfg_add_error(c, e->key_pos, key, "expected PFC_WD|PORT or PFC_WD|GLOBAL");
			continue;
		}
		pfc = &c->cfg->ports[port].pfc;
		if (!pfc->enabled) {
			cfg_add_error(c, e->key_pos, key,
				      "%s has no lossless priority to watch (PORT_QOS_MAP "
				      "pfc_enable)",
				      c->cfg->ports[port].name);
			continue;
		}
		f = xfab_json_get(e, "action");
		if (f) {
			cfg_field_key(fk, sizeof(fk), key, "action");
			t = cfg_field_text(c, f, fk, buf, sizeof(buf));
			if (t && !strcmp(t, "drop"))
				action = XFAB_PFCWD_DROP;
			else if (t && !strcmp(t, "forward"))
				action = XFAB_PFCWD_FORWARD;
			else if (t && !strcmp(t, "alert"))
				action = XFAB_PFCWD_ALERT;
			else if (t)
				cfg_add_error(c, f->pos, fk,
					      "action must be drop, forward or alert, not '%s'", t);
		}
		f = xfab_json_get(e, "detection_time");
		if (f) {
			cfg_field_key(fk, sizeof(fk), key, "detection_time");
			cfg_parse_u32(c, f, fk, 100, 5000, &det);
		}
		/* without restoration_time: what SONiC's CLI writes, 2 x the
		 * detection time given (pfcwd start), 200 ms with neither
		 * (pfcwd start_default). SONiC's orchagent ignores an entry
		 * without both times; xfab fills them in (CONFIG.md#pfc_wd). */
		f = xfab_json_get(e, "restoration_time");
		if (f) {
			cfg_field_key(fk, sizeof(fk), key, "restoration_time");
			cfg_parse_u32(c, f, fk, 100, 60000, &rest_ms);
		} else if (xfab_json_get(e, "detection_time")) {
			rest_ms = 2 * det;
		}
		if (c->errs->total != bad)
			continue;
		if (c->cfg->pfcwd_poll_ms > det || c->cfg->pfcwd_poll_ms > rest_ms) {
			if (poll_line)
				cfg_add_error(
				    c, e->key_pos, key,
				    "PFC_WD|GLOBAL POLL_INTERVAL (%u ms, line %d) is longer "
				    "than this port's detection or restoration time",
				    c->cfg->pfcwd_poll_ms, poll_line);
			else
				cfg_add_error(c, e->key_pos, key,
					      "the watchdog's poll interval (%u ms) is longer than "
					      "this port's detection or restoration time",
					      c->cfg->pfcwd_poll_ms);
			continue;
		}
		pfc->wd_action = action;
		pfc->wd_detection_ms = det;
		pfc->wd_restoration_ms = rest_ms;
	}
}

/* The feature "pfc": lossless classes, cables and buffers. */
void cfg_read_pfc(struct ctx *c, const struct json_value *root)
{
	for (int p = 0; p < c->cfg->n_ports; p++)
		c->cfg->ports[p].pfc.cable_m = XFAB_PFC_CABLE_M;
	cfg_read_table(c, root, "PORT_QOS_MAP", cfg_parse_port_qos_map);
	cfg_read_table(c, root, "CABLE_LENGTH", cfg_parse_cable_length);
	if (c->sonic) {
		cfg_sonic_port_qos_maps(c, root);
		cfg_sonic_buffer_pools(c, xfab_json_get(root, "BUFFER_POOL"));
	}
	cfg_parse_buffers(c, xfab_json_get(root, "BUFFER_PROFILE"),
			  xfab_json_get(root, "BUFFER_PG"),
			  c->sonic ? xfab_json_get(root, "BUFFER_POOL") : NULL);
	if (c->sonic)
		cfg_sonic_buffer_queues(c, root);
}

/* The feature "pfcwd": the PFC watchdog (after "pfc": it watches the
 * lossless priorities). */
void cfg_read_pfc_wd(struct ctx *c, const struct json_value *root)
{
	c->cfg->pfcwd_poll_ms = 200;
	cfg_read_table(c, root, "PFC_WD", cfg_parse_pfc_wd);
}
