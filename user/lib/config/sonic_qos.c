// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SONiC's meaning of the QoS tables in a SONiC file (docs/CONFIG.md, "QoS
 * and buffers"): WRED_PROFILE's green curve onto xfab's one curve, and the
 * maps xfab keeps fixed (class n is queue n, PG n and PFC priority n)
 * honoured when they are the identity and refused, naming the entry, when
 * not. Fields and ranges: sonic-buildimage src/sonic-yang-models/yang-models
 * (sonic-wred-profile.yang, sonic-tc-queue-map.yang,
 * sonic-tc-priority-group-map.yang, sonic-pfc-priority-queue-map.yang,
 * sonic-port-qos-map.yang, sonic-scheduler.yang, sonic-queue.yang).
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- WRED_PROFILE ---- */

/* sonic-wred-profile.yang's ecn: which colours' ECN-capable packets are
 * marked. xfab colours every packet green (no policer marks yellow or
 * red), so only whether green is among them matters. */
static const struct {
	const char *name;
	int green;
} sonic_ecn_modes[] = {
    {"ecn_none", 0},	     {"ecn_green", 1},	   {"ecn_yellow", 0},	  {"ecn_red", 0},
    {"ecn_green_yellow", 1}, {"ecn_green_red", 1}, {"ecn_yellow_red", 0}, {"ecn_all", 1},
};

/* ecn's value: 1 green marked, 0 not, -1 refused. */
static int sonic_wred_ecn(struct ctx *c, const struct json_value *f, const char *fk)
{
	char buf[32];
	const char *t = cfg_field_text(c, f, fk, buf, sizeof(buf));

	if (!t)
		return -1;
	for (size_t i = 0; i < sizeof(sonic_ecn_modes) / sizeof(sonic_ecn_modes[0]); i++)
		if (!strcmp(t, sonic_ecn_modes[i].name))
			return sonic_ecn_modes[i].green;
	cfg_add_error(c, f->pos, fk,
		      "ecn must be one of SONiC's ecn_none, ecn_green, ecn_yellow, ecn_red, "
		      "ecn_green_yellow, ecn_green_red, ecn_yellow_red, ecn_all, not '%s'",
		      t);
	return -1;
}

/* A boolean field, SONiC's default false when absent. */
static int sonic_flag(struct ctx *c, const struct json_value *e, const char *key, const char *name)
{
	const struct json_value *f = xfab_json_get(e, name);
	char fk[160];
	int on = 0;

	if (!f)
		return 0;
	cfg_field_key(fk, sizeof(fk), key, name);
	cfg_parse_bool(c, f, fk, &on);
	return on;
}

/* Whether yellow or red would act (WRED on, or ECN marking them): then a
 * profile that leaves green alone was meant for colours xfab lacks. */
static int sonic_wred_colours_act(struct ctx *c, const struct json_value *e, const char *key,
				  const char *ecn)
{
	return sonic_flag(c, e, key, "wred_yellow_enable") ||
	       sonic_flag(c, e, key, "wred_red_enable") || (ecn && strcmp(ecn, "ecn_none"));
}

/* green_min_threshold and green_max_threshold (bytes, as xfab's Kmin and
 * Kmax: sonic-wred-profile.yang's thresholds are bytes). */
static void sonic_wred_thresholds(struct ctx *c, const struct json_value *e, const char *key,
				  struct xfab_cfg_wred *w)
{
	const struct json_value *lo = xfab_json_get(e, "green_min_threshold");
	const struct json_value *hi = xfab_json_get(e, "green_max_threshold");
	char fk[160];

	if (!lo || !hi) {
		cfg_add_error(c, e->pos, key,
			      "missing field \"%s\" (bytes): the green curve is "
			      "xfab's curve",
			      lo ? "green_max_threshold" : "green_min_threshold");
		return;
	}
	cfg_field_key(fk, sizeof(fk), key, "green_min_threshold");
	if (cfg_parse_u32(c, lo, fk, 0, 1u << 30, &w->kmin_bytes))
		return;
	cfg_field_key(fk, sizeof(fk), key, "green_max_threshold");
	if (cfg_parse_u32(c, hi, fk, 1, 1u << 30, &w->kmax_bytes) == 0 &&
	    w->kmax_bytes <= w->kmin_bytes)
		cfg_add_error(c, hi->pos, fk,
			      "green_max_threshold must be above green_min_threshold (%u): "
			      "xfab's curve has a slope",
			      w->kmin_bytes);
}

int cfg_sonic_wred(struct ctx *c, const struct json_value *e, const char *key,
		   struct xfab_cfg_wred *w)
{
	static const char *const fields[] = {"green_min_threshold",
					     "green_max_threshold",
					     "green_drop_probability",
					     "wred_green_enable",
					     "ecn",
					     NULL};
	const struct json_value *f = NULL;
	int bad = c->errs->total, green_ecn = 0, green_wred;
	char fk[160];

	if (cfg_check_fields(c, e, key, fields))
		return -1;
	f = xfab_json_get(e, "ecn");
	cfg_field_key(fk, sizeof(fk), key, "ecn");
	if (f)
		green_ecn = sonic_wred_ecn(c, f, fk);
	green_wred = sonic_flag(c, e, key, "wred_green_enable");
	if (c->errs->total != bad)
		return -1;
	if (!green_ecn && green_wred) {
		/* SAI's WRED drops ECN-capable packets too when it does not
		 * mark them; xfab's curve only marks those */
		cfg_add_error(
		    c, e->key_pos, key,
		    "wred_green_enable without ECN for green (ecn): SONiC drops ECN-capable "
		    "packets on the curve, xfab only marks them; use ecn_green or ecn_all");
		return -1;
	}
	if (!green_ecn) {
		cfg_add_error(
		    c, e->key_pos, key, "%s",
		    sonic_wred_colours_act(c, e, key, f && f->type == JSON_STRING ? f->str : NULL)
			? "acts on yellow or red packets only: xfab colours every packet green"
			: "acts on no packet (no wred_green_enable, no ECN for green)");
		return -1;
	}
	w->ecn = 1;
	w->drop_nonect = green_wred;
	f = xfab_json_get(e, "green_drop_probability");
	cfg_field_key(fk, sizeof(fk), key, "green_drop_probability");
	w->pmax_percent = 100; /* sonic-wred-profile.yang's default */
	if (f)
		cfg_parse_u32(c, f, fk, 0, 100, &w->pmax_percent);
	sonic_wred_thresholds(c, e, key, w);
	return c->errs->total == bad ? 0 : -1;
}

/* ---- the fixed maps ---- */

/* A map's "N": "M" as numbers (SONiC writes both as strings): 0, or -1
 * with an error at the field. */
static int sonic_map_pair(struct ctx *c, const struct json_value *f, const char *fk, __u32 max_key,
			  __u32 *k, __u32 *v)
{
	char why[160];

	if (xfab_parse_u32_strict(f->key, 0, max_key, k, why, sizeof(why))) {
		cfg_add_error(c, f->key_pos, fk, "xfab has classes 0..%u: %s", max_key, why);
		return -1;
	}
	return cfg_parse_u32(c, f, fk, 0, XFAB_NUM_TC - 1, v);
}

/* Every entry of map table tbl maps n to n: xfab's class n is its queue n
 * and the queue PFC priority n pauses (CONFIG.md#port_qos_map). */
static void sonic_map_identity(struct ctx *c, const struct json_value *tbl, const char *what)
{
	char key[160], fk[200];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];

		snprintf(key, sizeof(key), "%s|%s", tbl->key, e->key);
		if (e->type != JSON_OBJECT)
			continue; /* the catalogue's check refused it */
		for (size_t k = 0; k < e->count; k++) {
			const struct json_value *f = &e->children[k];
			__u32 from, to;

			snprintf(fk, sizeof(fk), "%s.%s", key, f->key);
			if (sonic_map_pair(c, f, fk, XFAB_NUM_TC - 1, &from, &to))
				continue;
			if (from != to)
				cfg_add_error(c, f->pos, fk,
					      "%s %u to queue %u: xfab's %s n is always queue n",
					      what, from, to, what);
		}
	}
}

/* SCHEDULER|NAME: DWRR or WRR (sonic-scheduler.yang's default WRR); the
 * weight (1..100) is the share the QUEUEs naming it get on the tc
 * datapath, and listed as ignored on the xdp datapath, whose phantom queues
 * each drain at the port rate (CONFIG.md#qos-and-buffers). Strict priority
 * and shaping are refused. */
static void sonic_schedulers(struct ctx *c, const struct json_value *tbl)
{
	char key[160], fk[200], buf[16];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i], *f;
		const char *t;
		__u32 w;

		snprintf(key, sizeof(key), "SCHEDULER|%s", e->key);
		if (e->type != JSON_OBJECT)
			continue; /* the catalogue's check refused it */
		/* the catalogue checked every field's type: what is left is
		 * whether xfab does it */
		for (size_t k = 0; k < e->count; k++) {
			f = &e->children[k];
			if (!strcmp(f->key, "type") || !strcmp(f->key, "weight"))
				continue;
			snprintf(fk, sizeof(fk), "%s.%s", key, f->key);
			cfg_add_error(c, f->key_pos, fk,
				      "xfab's queues are neither shaped nor prioritised one by "
				      "one: a scheduler is its type and weight");
		}
		f = xfab_json_get(e, "type");
		cfg_field_key(fk, sizeof(fk), key, "type");
		t = f ? cfg_field_text(c, f, fk, buf, sizeof(buf)) : "WRR";
		if (t && strcmp(t, "DWRR") && strcmp(t, "WRR"))
			cfg_add_error(c, f->pos, fk,
				      "%s: xfab has no strict priority; its classes share a port "
				      "round robin (DWRR or WRR)",
				      t);
		f = xfab_json_get(e, "weight");
		cfg_field_key(fk, sizeof(fk), key, "weight");
		if (f && cfg_parse_u32(c, f, fk, 1, 100, &w) == 0 && c->cfg->datapath != XFAB_DP_TC)
			cfg_sonic_ignore(c, "SCHEDULER.weight");
	}
}

/* SCHEDULER|name's weight, 1 (sonic-scheduler.yang's default) when it
 * has none; 0 when the entry or its weight is no such thing
 * (sonic_schedulers and sonic_refs.c refuse it). */
static __u32 sonic_scheduler_weight(const struct ctx *c, const char *name)
{
	const struct json_value *e = xfab_json_get(xfab_json_get(c->root, "SCHEDULER"), name);
	const struct json_value *f =
	    e && e->type == JSON_OBJECT ? xfab_json_get(e, "weight") : NULL;
	__u32 w;

	if (!e || e->type != JSON_OBJECT)
		return 0;
	if (!f)
		return 1;
	if ((f->type != JSON_STRING && f->type != JSON_NUMBER) ||
	    xfab_parse_u32_strict(f->str, 1, 100, &w, NULL, 0))
		return 0;
	return w;
}

/* sonic-swss qosorch.cpp (handleQueueTable) applies QUEUE|PORT|Q's
 * scheduler to each queue of the range Q; xfab's tc queues take its weight
 * as their share. The xdp datapath has none to weigh. */
void cfg_sonic_queue_scheduler(struct ctx *c, const struct json_value *e, int p, int lo, int hi)
{
	const struct json_value *f = xfab_json_get(e, "scheduler");
	__u32 w;

	if (!f || f->type != JSON_STRING || c->cfg->datapath != XFAB_DP_TC)
		return;
	w = sonic_scheduler_weight(c, f->str);
	for (int tc = lo; tc <= hi; tc++)
		c->cfg->ports[p].weight[tc] = (__u8)w;
}

/* A port whose classes weigh differently needs its tc queues, so a rate:
 * refused once a port, at the first QUEUE entry naming a scheduler. */
static void sonic_weights_need_rate(struct ctx *c, const struct json_value *tbl)
{
	int told[XFAB_MAX_PORTS] = {0};
	char ifname[XFAB_IFNAMSIZ + 1], fk[200];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		const struct json_value *f = xfab_json_get(e, "scheduler");
		const char *bar = strchr(e->key, '|');
		int p;

		if (!f || !bar || bar - e->key >= (long)sizeof(ifname))
			continue;
		snprintf(ifname, sizeof(ifname), "%.*s", (int)(bar - e->key), e->key);
		p = xfab_config_port_index(c->cfg, ifname);
		if (p < 0 || told[p] || c->cfg->ports[p].rate_mbps ||
		    !xfab_config_port_weighted(&c->cfg->ports[p]))
			continue;
		told[p] = 1;
		snprintf(fk, sizeof(fk), "QUEUE|%s.scheduler", e->key);
		cfg_add_error(c, f->pos, fk,
			      "%s's queues weigh differently but it has no rate (Mbit/s), so no "
			      "tc queues to share it by weight",
			      ifname);
	}
}

void cfg_read_sonic_qos(struct ctx *c, const struct json_value *root)
{
	const struct json_value *t;

	t = xfab_json_get(root, "TC_TO_QUEUE_MAP");
	if (t && t->type == JSON_OBJECT)
		sonic_map_identity(c, t, "class");
	t = xfab_json_get(root, "MAP_PFC_PRIORITY_TO_QUEUE");
	if (t && t->type == JSON_OBJECT)
		sonic_map_identity(c, t, "PFC priority");
	t = xfab_json_get(root, "SCHEDULER");
	if (t && t->type == JSON_OBJECT)
		sonic_schedulers(c, t);
	/* that QUEUE's scheduler is a SCHEDULER is sonic_refs.c's
	 * (sonic-queue.yang: a leafref); qos.c read QUEUE, weights with it */
	t = xfab_json_get(root, "QUEUE");
	if (t && t->type == JSON_OBJECT)
		sonic_weights_need_rate(c, t);
	cfg_sonic_claim(c, "TC_TO_QUEUE_MAP");
	cfg_sonic_claim(c, "MAP_PFC_PRIORITY_TO_QUEUE");
	cfg_sonic_claim(c, "SCHEDULER");
}

/* ---- PORT_QOS_MAP's references (after pfc_enable is read) ---- */

/* TC_TO_PRIORITY_GROUP_MAP entry map, as port p uses it: a lossless class
 * must be its own PG, and no other class may share a lossless PG, since
 * xfab accounts lossless PG n as class n's packets (docs/PFC.md). */
static void sonic_pg_map(struct ctx *c, const struct json_value *map, const char *table, int p)
{
	const struct xfab_cfg_port *port = &c->cfg->ports[p];
	char fk[200];

	for (size_t k = 0; k < map->count; k++) {
		const struct json_value *f = &map->children[k];
		__u32 tc, pg;

		snprintf(fk, sizeof(fk), "%s|%s.%s", table, map->key, f->key);
		/* a pair that is no pair is refused once, below */
		if ((f->type != JSON_STRING && f->type != JSON_NUMBER) ||
		    xfab_parse_u32_strict(f->key, 0, XFAB_NUM_TC - 1, &tc, NULL, 0) ||
		    xfab_parse_u32_strict(f->str, 0, XFAB_NUM_TC - 1, &pg, NULL, 0) || tc == pg)
			continue;
		if (port->pfc.enabled & (1u << tc))
			cfg_add_error(c, f->pos, fk,
				      "class %u is lossless on %s (pfc_enable) and goes to PG %u: "
				      "xfab's lossless class n is PG n",
				      tc, port->name, pg);
		else if (port->pfc.enabled & (1u << pg))
			cfg_add_error(c, f->pos, fk,
				      "class %u goes to PG %u, lossless on %s (pfc_enable): xfab's "
				      "lossless PG n holds class n only",
				      tc, pg, port->name);
	}
}

/* PORT_QOS_MAP entry e's tc_to_pg_map (port p; -1: "global"), checked as
 * xfab uses it; that each map it names is there is sonic_refs.c's. */
static void sonic_port_maps(struct ctx *c, const struct json_value *root,
			    const struct json_value *e, int p)
{
	const struct json_value *f = xfab_json_get(e, "tc_to_pg_map"), *map;

	if (!f || f->type != JSON_STRING || p < 0)
		return;
	map = xfab_json_get(xfab_json_get(root, "TC_TO_PRIORITY_GROUP_MAP"), f->str);
	if (map && map->type == JSON_OBJECT)
		sonic_pg_map(c, map, "TC_TO_PRIORITY_GROUP_MAP", p);
}

void cfg_sonic_port_qos_maps(struct ctx *c, const struct json_value *root)
{
	const struct json_value *tbl = xfab_json_get(root, "PORT_QOS_MAP");

	for (size_t i = 0; tbl && i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		int p = xfab_config_port_index(c->cfg, e->key);

		if (e->type != JSON_OBJECT || (p < 0 && strcmp(e->key, "global")))
			continue; /* pfc.c refused it */
		/* each map it names is an entry of its table
		 * (sonic-port-qos-map.yang: leafrefs) */
		if (cfg_sonic_entry_refused(c, "PORT_QOS_MAP", e))
			continue;
		sonic_port_maps(c, root, e, p);
	}
	/* the maps no port names: each entry a class 0..7 to a PG 0..7 */
	tbl = xfab_json_get(root, "TC_TO_PRIORITY_GROUP_MAP");
	for (size_t i = 0; tbl && tbl->type == JSON_OBJECT && i < tbl->count; i++) {
		const struct json_value *map = &tbl->children[i];
		char fk[200];
		__u32 tc, pg;

		for (size_t k = 0; map->type == JSON_OBJECT && k < map->count; k++) {
			snprintf(fk, sizeof(fk), "TC_TO_PRIORITY_GROUP_MAP|%s.%s", map->key,
				 map->children[k].key);
			sonic_map_pair(c, &map->children[k], fk, XFAB_NUM_TC - 1, &tc, &pg);
		}
	}
	cfg_sonic_claim(c, "TC_TO_PRIORITY_GROUP_MAP");
}
