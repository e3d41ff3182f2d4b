// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* QoS: DSCP_TO_TC_MAP, WRED_PROFILE and QUEUE (SONiC's meaning of them and
 * of its fixed maps in a SONiC file: sonic_qos.c). */
#include "internal.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* DSCP_TO_TC_MAP|NAME: {"DSCP": "TC", ...}; one map per switch, DSCPs not
 * listed keep the default class. */
void cfg_parse_dscp_map(struct ctx *c, const struct json_value *tbl)
{
	char key[160], fk[160];

	if (tbl->count > 1) {
		cfg_add_error(c, tbl->children[1].key_pos, "DSCP_TO_TC_MAP",
			      "one map per switch (it applies to every port)");
		return;
	}
	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];

		snprintf(key, sizeof(key), "DSCP_TO_TC_MAP|%s", e->key);
		if (e->type != JSON_OBJECT) {
			cfg_add_error(c, e->pos, key, "expected an object of \"DSCP\": \"TC\"");
			continue;
		}
		for (size_t k = 0; k < e->count; k++) {
			const struct json_value *f = &e->children[k];
			__u32 dscp, tc;
			char why[160];

			snprintf(fk, sizeof(fk), "%s.%s", key, f->key);
			if (xfab_parse_u32_strict(f->key, 0, XFAB_NUM_DSCP - 1, &dscp, why,
						  sizeof(why))) {
				cfg_add_error(c, f->key_pos, fk, "DSCP must be 0..63: %s", why);
				continue;
			}
			if (cfg_parse_u32(c, f, fk, 0, XFAB_NUM_TC - 1, &tc) == 0)
				c->cfg->dscp_to_tc[dscp] = (__u8)tc;
		}
	}
}

/* xfab's own fields of WRED_PROFILE entry e (an xfab file): 0 or -1. */
static int wred_fields(struct ctx *c, const struct json_value *e, const char *key,
		       struct xfab_cfg_wred *w)
{
	static const char *const fields[] = {"min_threshold", "max_threshold", "max_probability",
					     "ecn",	      "drop_nonect",   NULL};
	const struct json_value *f;
	char fk[160], buf[32];
	const char *t;
	int bad = c->errs->total;

	if (cfg_check_fields(c, e, key, fields))
		return -1;
	f = xfab_json_get(e, "min_threshold");
	cfg_field_key(fk, sizeof(fk), key, "min_threshold");
	if (!f)
		cfg_add_error(c, e->pos, key, "missing field \"min_threshold\" (bytes)");
	else
		cfg_parse_u32(c, f, fk, 0, 1u << 30, &w->kmin_bytes);
	f = xfab_json_get(e, "max_threshold");
	cfg_field_key(fk, sizeof(fk), key, "max_threshold");
	if (!f)
		cfg_add_error(c, e->pos, key, "missing field \"max_threshold\" (bytes)");
	else if (cfg_parse_u32(c, f, fk, 1, 1u << 30, &w->kmax_bytes) == 0 &&
		 w->kmax_bytes <= w->kmin_bytes)
		cfg_add_error(c, f->pos, fk, "max_threshold must be above min_threshold (%u)",
			      w->kmin_bytes);
	f = xfab_json_get(e, "max_probability");
	if (f) {
		cfg_field_key(fk, sizeof(fk), key, "max_probability");
		cfg_parse_u32(c, f, fk, 0, 100, &w->pmax_percent);
	}
	f = xfab_json_get(e, "ecn");
	if (f) {
		cfg_field_key(fk, sizeof(fk), key, "ecn");
		t = cfg_field_text(c, f, fk, buf, sizeof(buf));
		if (t && (!strcmp(t, "ecn_all") || !strcmp(t, "true") || !strcmp(t, "on")))
			w->ecn = 1;
		else if (t && (!strcmp(t, "ecn_none") || !strcmp(t, "false") || !strcmp(t, "off")))
			w->ecn = 0;
		else if (t)
			cfg_add_error(c, f->pos, fk, "ecn must be ecn_all or ecn_none, not '%s'",
				      t);
	}
	f = xfab_json_get(e, "drop_nonect");
	if (f) {
		cfg_field_key(fk, sizeof(fk), key, "drop_nonect");
		cfg_parse_bool(c, f, fk, &w->drop_nonect);
	}
	return c->errs->total == bad ? 0 : -1;
}

/* WRED_PROFILE|NAME: xfab's fields, or in a SONiC file SONiC's (green onto
 * xfab's curve: sonic_qos.c). */
void cfg_parse_wred_profiles(struct ctx *c, const struct json_value *tbl)
{
	char key[160];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		struct xfab_cfg_wred w = {.pmax_percent = 100, .ecn = 1, .drop_nonect = 1};

		snprintf(key, sizeof(key), "WRED_PROFILE|%s", e->key);
		if (c->sonic ? cfg_sonic_wred(c, e, key, &w) : wred_fields(c, e, key, &w))
			continue;
		if (strlen(e->key) >= sizeof(w.name)) {
			cfg_add_error(c, e->key_pos, key,
				      "profile names are at most 63 characters");
			continue;
		}
		if (c->cfg->n_wred == XFAB_MAX_WRED_PROFILES) {
			cfg_add_error(c, e->key_pos, key, "more than %d profiles",
				      XFAB_MAX_WRED_PROFILES);
			return;
		}
		snprintf(w.name, sizeof(w.name), "%s", e->key);
		c->cfg->wred[c->cfg->n_wred++] = w;
	}
}

/* "TC" or "TC-TC" (low first), decimal 0..7. */
int cfg_parse_tc_range(const char *t, int *lo, int *hi)
{
	const char *dash = strchr(t, '-');
	size_t n1 = dash ? (size_t)(dash - t) : strlen(t);
	__u64 a, b;

	if (cfg_decimal(t, n1, XFAB_NUM_TC - 1, &a) != CFG_DEC_OK)
		return -1;
	b = a;
	if (dash && cfg_decimal(dash + 1, strlen(dash + 1), XFAB_NUM_TC - 1, &b) != CFG_DEC_OK)
		return -1;
	if (b < a)
		return -1;
	*lo = (int)a;
	*hi = (int)b;
	return 0;
}

/* Entry e's weight onto classes lo..hi of port p: the share of the port
 * rate its tc queues get (agent/qdisc.c), so refused where there are none
 * to weigh: the xdp datapath's phantom queues each drain at the port rate,
 * and a port without a rate has no queues (docs/CONFIG.md#queue). */
static void queue_weight(struct ctx *c, const struct json_value *f, const char *key, int p, int lo,
			 int hi)
{
	const struct xfab_cfg_port *port = &c->cfg->ports[p];
	char fk[160];
	__u32 w;

	cfg_field_key(fk, sizeof(fk), key, "weight");
	if (cfg_parse_u32(c, f, fk, 1, 100, &w))
		return;
	if (c->cfg->datapath != XFAB_DP_TC)
		cfg_add_error(c, f->pos, fk,
			      "weights share the tc datapath's queues (datapath tc): the xdp "
			      "datapath's queues each drain at the port rate");
	else if (!port->rate_mbps)
		cfg_add_error(c, f->pos, fk,
			      "%s has no rate, so no queues to share it: give it a rate (Mbit/s)",
			      port->name);
	else
		for (int tc = lo; tc <= hi; tc++)
			c->cfg->ports[p].weight[tc] = (__u8)w;
}

/* Entry e's wred_profile onto classes lo..hi of port p. */
static void queue_wred(struct ctx *c, const struct json_value *f, const char *key, int p, int lo,
		       int hi)
{
	char fk[160];
	int prof = -1;

	cfg_field_key(fk, sizeof(fk), key, "wred_profile");
	for (int k = 0; k < c->cfg->n_wred; k++)
		if (f->type == JSON_STRING && !strcmp(c->cfg->wred[k].name, f->str))
			prof = k;
	if (prof < 0) {
		cfg_add_error(c, f->pos, fk, "no WRED_PROFILE named %s",
			      f->type == JSON_STRING ? f->str : "(not a string)");
		return;
	}
	for (int tc = lo; tc <= hi; tc++)
		c->cfg->ports[p].wred[tc] = prof;
}

/* What QUEUE entry e binds to classes lo..hi of port p. In a SONiC file
 * both are optional (a queue without WRED is SONiC's default; its
 * scheduler is sonic_qos.c's); an xfab entry binds at least one. */
static void queue_bind(struct ctx *c, const struct json_value *e, const char *key, int p, int lo,
		       int hi)
{
	const struct json_value *wred = xfab_json_get(e, "wred_profile");
	const struct json_value *weight = c->sonic ? NULL : xfab_json_get(e, "weight");

	if (!wred && !weight && !c->sonic)
		cfg_add_error(c, e->pos, key, "missing field \"wred_profile\" or \"weight\"");
	if (weight)
		queue_weight(c, weight, key, p, lo, hi);
	if (wred)
		queue_wred(c, wred, key, p, lo, hi);
	if (c->sonic)
		cfg_sonic_queue_scheduler(c, e, p, lo, hi);
}

/* QUEUE|PORT|TC or QUEUE|PORT|TC-TC: {"wred_profile": NAME, "weight": W}.
 * A class is bound once: overlapping entries would leave one of them
 * silently unused. */
void cfg_parse_queues(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"wred_profile", "weight", NULL};
	/* SONiC's scheduler: sonic_qos.c */
	static const char *const sonic_fields[] = {"wred_profile", "scheduler", NULL};
	char key[160], ifname[XFAB_IFNAMSIZ + 1];
	int bound_line[XFAB_MAX_PORTS][XFAB_NUM_TC] = {{0}};

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		const char *bar = strchr(e->key, '|');
		int port, lo, hi, n, clash = -1;

		snprintf(key, sizeof(key), "QUEUE|%s", e->key);
		if (cfg_check_fields(c, e, key, c->sonic ? sonic_fields : fields) ||
		    cfg_sonic_entry_refused(c, "QUEUE", e))
			continue;
		n = bar ? (int)(bar - e->key) : 0;
		if (!bar || n == 0 || n >= (int)sizeof(ifname)) {
			cfg_add_error(c, e->key_pos, key, "expected PORT|TC or PORT|TC-TC");
			continue;
		}
		memcpy(ifname, e->key, (size_t)n);
		ifname[n] = '\0';
		port = xfab_config_port_index(c->cfg, ifname);
		if (port < 0) {
			cfg_add_error(c, e->key_pos, key, "port \"%s\" is not in the PORT table",
				      ifname);
			continue;
		}
		if (cfg_parse_tc_range(bar + 1, &lo, &hi)) {
			cfg_add_error(c, e->key_pos, key,
				      "traffic classes are 0..7 (TC or TC-TC, low first, decimal)");
			continue;
		}
		for (int tc = lo; tc <= hi; tc++)
			if (bound_line[port][tc] && clash < 0)
				clash = tc;
		if (clash >= 0) {
			cfg_add_error(c, e->key_pos, key,
				      "class %d of %s is already bound (line %d)", clash, ifname,
				      bound_line[port][clash]);
			continue;
		}
		for (int tc = lo; tc <= hi; tc++)
			bound_line[port][tc] = e->key_pos.line;
		queue_bind(c, e, key, port, lo, hi);
	}
}

/* The feature "qos": the default DSCP map, then the tables. */
void cfg_read_qos(struct ctx *c, const struct json_value *root)
{
	xfab_default_dscp_to_tc(c->cfg->dscp_to_tc);
	cfg_read_table(c, root, "DSCP_TO_TC_MAP", cfg_parse_dscp_map);
	cfg_read_table(c, root, "WRED_PROFILE", cfg_parse_wred_profiles);
	cfg_read_table(c, root, "QUEUE", cfg_parse_queues);
	if (c->sonic)
		cfg_read_sonic_qos(c, root);
}
