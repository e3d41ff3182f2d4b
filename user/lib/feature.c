// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The feature registry (feature.h): every feature, each described once.
 * The order of xfab_features[] is the parse order, and it matters: a
 * feature may only read what the features before it have filled in (the
 * overlay's VNETs before the interfaces bound to them, the interfaces
 * before the routes through them, PFC before its watchdog, TE last: its
 * paths resolve against everything else).
 */
#include "feature.h"
#include "compile_base.h"
#include "config/internal.h"

#include <stdio.h>
#include <string.h>

#define LIST XFAB_FEAT_LIST

/* ---- what each feature's config needs of the data plane's code ---- */

static unsigned int overlay_code(const struct xfab_config *cfg)
{
	return cfg->vtep || cfg->n_vnets ? XFAB_CODE_OVERLAY : 0;
}

static unsigned int ecmp_code(const struct xfab_config *cfg)
{
	return (cfg->symmetric ? XFAB_CODE_SYMMETRIC : 0) |
	       (cfg->hash_fields & XFAB_HASH_F_INNER ? XFAB_CODE_INNER_HASH : 0);
}

static unsigned int flowlet_code(const struct xfab_config *cfg)
{
	return cfg->flowlet ? XFAB_CODE_FLOWLET : 0;
}

/* xdp's phantom queue judges the queued ports; the tc datapath's queues
 * are the kernel's (its egress program), not this code's */
static unsigned int qos_code(const struct xfab_config *cfg)
{
	for (int p = 0; p < cfg->n_ports; p++)
		if (xfab_config_port_queued(&cfg->ports[p]))
			return XFAB_CODE_QUEUE;
	return 0;
}

static unsigned int pfc_code(const struct xfab_config *cfg)
{
	return xfab_config_has_lossless(cfg) ? XFAB_CODE_PFC : 0;
}

/* every group polices by default (docs/COPP.md); a cir of 0 does not */
static unsigned int copp_code(const struct xfab_config *cfg)
{
	for (int g = 0; g < XFAB_COPP_GROUPS; g++)
		if (cfg->copp[g].cir)
			return XFAB_CODE_COPP;
	return 0;
}

static unsigned int repair_code(const struct xfab_config *cfg)
{
	return cfg->repair_bounce || cfg->split_horizon ? XFAB_CODE_REPAIR : 0;
}

/* runtime pins need TE_PATH in the config (te-add refuses them without) */
static unsigned int te_code(const struct xfab_config *cfg)
{
	return cfg->te_enabled ? XFAB_CODE_TE : 0;
}

/* ---- the features ---- */

/* The switch: its metadata, its ports, the ABI stamp, the global settings
 * and the per-port and per-reason counters every stage adds to. */
static const struct xfab_feature device = {
    .name = "device",
    .tables = LIST("DEVICE_METADATA", "PORT"),
    .parse = cfg_read_device,
    .build = xfab_build_device,
    .maps = LIST(XFAB_MAP_ABI, XFAB_MAP_SETTINGS, XFAB_MAP_PORTS, XFAB_MAP_TX_PORTS,
		 XFAB_MAP_PORT_DEV, XFAB_MAP_PORT_STATS, XFAB_MAP_DROP_STATS, XFAB_MAP_PUNT_STATS,
		 XFAB_MAP_FAST_STATS, XFAB_MAP_SCRATCH),
    .state_maps = LIST(XFAB_MAP_PORT_DEV, XFAB_MAP_PORT_STATS, XFAB_MAP_DROP_STATS,
		       XFAB_MAP_PUNT_STATS, XFAB_MAP_FAST_STATS),
    .flags = XFAB_FEAT_L3_BASE,
};

/* Link event damping: SONiC's PORT fields (config/damping.c). The device
 * feature reads the PORT table; this one reads its damping fields, so it
 * has no table of its own. xfabd carries it out (user/agent/damping.c):
 * no map, no code of the data plane. */
static const struct xfab_feature damping = {
    .name = "damping",
    .tables = (const char *const[]){NULL},
    .parse = cfg_read_damping,
};

/* VXLAN: the VTEP, the VNETs and every tunnel route's encapsulation (the
 * routes themselves are "vnet-routes", parsed after the interfaces). */
static const struct xfab_feature overlay = {
    .name = "overlay",
    .tables = LIST("VXLAN_TUNNEL", "VNET"),
    .parse = cfg_read_overlay,
    .build = xfab_build_overlay,
    .code = XFAB_CODE_OVERLAY,
    .code_for = overlay_code,
    .maps = LIST(XFAB_MAP_VTEP, XFAB_MAP_VNETS, XFAB_MAP_VNI_TO_VNET, XFAB_MAP_VNET_TUNNELS,
		 XFAB_MAP_VNET_STATS, XFAB_MAP_VNET_DROPS),
    /* no state_maps: its counters restart from 0 with xfabd, as they
     * always have */
    .flags = XFAB_FEAT_L3_BASE,
};

static const struct xfab_feature interfaces = {
    .name = "interfaces",
    .tables = LIST("INTERFACE"),
    .parse = cfg_read_interfaces,
    .flags = XFAB_FEAT_L3_BASE,
};

/* Routes, their nexthops and groups and the FIBs (compile.c writes them
 * per prefix, not through a base build). */
static const struct xfab_feature routes = {
    .name = "routes",
    .tables = LIST("ROUTE"),
    .parse = cfg_read_routes,
    .maps = LIST(XFAB_MAP_ROUTES_V4, XFAB_MAP_ROUTES_V6, XFAB_MAP_FIB4_TBL16, XFAB_MAP_FIB4_TBL8,
		 XFAB_MAP_FIB6_TBL16, XFAB_MAP_FIB6_TBL8, XFAB_MAP_NEXTHOPS, XFAB_MAP_GROUPS),
    .flags = XFAB_FEAT_NEEDS_L3,
};

static const struct xfab_feature neighbours = {
    .name = "neighbours",
    .tables = LIST("NEIGH"),
    .parse = cfg_read_neighs,
    .build = xfab_build_neighs,
    .maps = LIST(XFAB_MAP_NEIGHBORS),
    .flags = XFAB_FEAT_NEEDS_L3,
};

static const struct xfab_feature vnet_routes = {
    .name = "vnet-routes",
    .tables = LIST("VNET_ROUTE_TUNNEL", "VNET_ROUTE"),
    .parse = cfg_read_vnet_routes,
    .flags = XFAB_FEAT_NEEDS_L3,
};

/* Hashing and groups; the load-balancing counters (flowlets and TE add to
 * them too) are ECMP's. */
static const struct xfab_feature ecmp = {
    .name = "ecmp",
    .tables = LIST("ECMP"),
    .parse = cfg_read_ecmp,
    .code = XFAB_CODE_SYMMETRIC | XFAB_CODE_INNER_HASH,
    .code_for = ecmp_code,
    .maps = LIST(XFAB_MAP_LB_STATS),
    .state_maps = LIST(XFAB_MAP_LB_STATS),
};

static const struct xfab_feature flowlet = {
    .name = "flowlet",
    .tables = LIST("FLOWLET"),
    .parse = cfg_read_flowlet,
    .code = XFAB_CODE_FLOWLET,
    .code_for = flowlet_code,
    .maps = LIST(XFAB_MAP_FLOWLETS, XFAB_MAP_PORT_LOAD),
    .state_maps = LIST(XFAB_MAP_PORT_LOAD),
};

static const struct xfab_feature qos = {
    .name = "qos",
    .tables = LIST("DSCP_TO_TC_MAP", "WRED_PROFILE", "QUEUE"),
    .parse = cfg_read_qos,
    .build = xfab_build_qos,
    .code = XFAB_CODE_QUEUE,
    .code_for = qos_code,
    .maps = LIST(XFAB_MAP_DSCP_TO_TC, XFAB_MAP_QUEUE_CFG, XFAB_MAP_QUEUE_STATE,
		 XFAB_MAP_QUEUE_STATS, XFAB_MAP_QUEUE_WATERMARK),
    .state_maps = LIST(XFAB_MAP_QUEUE_STATE, XFAB_MAP_QUEUE_STATS, XFAB_MAP_QUEUE_WATERMARK),
};

static const struct xfab_feature pfc = {
    .name = "pfc",
    .tables = LIST("PORT_QOS_MAP", "CABLE_LENGTH", "BUFFER_PROFILE", "BUFFER_PG"),
    .parse = cfg_read_pfc,
    .build = xfab_build_pfc,
    .code = XFAB_CODE_PFC,
    .code_for = pfc_code,
    .maps = LIST(XFAB_MAP_PFC_CFG, XFAB_MAP_PFC_STATE, XFAB_MAP_PFC_QUEUE, XFAB_MAP_PFC_EVENTS,
		 XFAB_MAP_PFC_EGRESS),
    .state_maps = LIST(XFAB_MAP_PFC_STATE, XFAB_MAP_PFC_QUEUE, XFAB_MAP_PFC_EGRESS),
};

/* The watchdog's state lives in pfc_queue (xfabd's PFC thread). */
static const struct xfab_feature pfcwd = {
    .name = "pfcwd",
    .tables = LIST("PFC_WD"),
    .parse = cfg_read_pfc_wd,
};

static const struct xfab_feature fib_sync = {
    .name = "fib-sync",
    .tables = LIST("FIB_SYNC"),
    .parse = cfg_read_fib_sync,
};

static const struct xfab_feature copp = {
    .name = "copp",
    .tables = LIST("COPP_TABLE"),
    .parse = cfg_read_copp,
    .build = xfab_build_copp,
    .code = XFAB_CODE_COPP,
    .code_for = copp_code,
    .maps = LIST(XFAB_MAP_COPP_CFG, XFAB_MAP_COPP_STATE, XFAB_MAP_COPP_STATS),
    .state_maps = LIST(XFAB_MAP_COPP_STATE, XFAB_MAP_COPP_STATS),
};

static const struct xfab_feature local_repair = {
    .name = "local-repair",
    .tables = LIST("LOCAL_REPAIR"),
    .parse = cfg_read_local_repair,
    .code = XFAB_CODE_REPAIR,
    .code_for = repair_code,
    .flags = XFAB_FEAT_NEEDS_L3,
};

/* TE pins live in routes_v4/v6 (table 0x80000000 | ifindex). */
static const struct xfab_feature te = {
    .name = "te",
    .tables = LIST("TE_PATH"),
    .parse = cfg_read_te,
    .code = XFAB_CODE_TE,
    .code_for = te_code,
};

/* Features described in files of their own. */
extern const struct xfab_feature xfab_feature_acl; /* acl_feature.c */

/* The one list: a new feature is one line here (in parse order). */
const struct xfab_feature *const xfab_features[] = {
    &device,	  &damping, &overlay,	       &interfaces,   &routes, &neighbours,
    &vnet_routes, &ecmp,    &flowlet,	       &qos,	      &pfc,    &pfcwd,
    &fib_sync,	  &copp,    &xfab_feature_acl, &local_repair, &te,
};
const size_t xfab_n_features = sizeof(xfab_features) / sizeof(xfab_features[0]);

static int in_list(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(*list, name))
			return 1;
	return 0;
}

const struct xfab_feature *xfab_feature_find(const char *name)
{
	for (size_t f = 0; f < xfab_n_features; f++)
		if (!strcmp(xfab_features[f]->name, name))
			return xfab_features[f];
	return NULL;
}

const struct xfab_feature *xfab_feature_of_map(const char *map)
{
	for (size_t f = 0; f < xfab_n_features; f++)
		if (in_list(xfab_features[f]->maps, map))
			return xfab_features[f];
	return NULL;
}

const struct xfab_feature *xfab_feature_of_table(const char *tbl)
{
	for (size_t f = 0; f < xfab_n_features; f++)
		if (in_list(xfab_features[f]->tables, tbl))
			return xfab_features[f];
	return NULL;
}

int xfab_feature_is_state_map(const char *map)
{
	const struct xfab_feature *f = xfab_feature_of_map(map);

	return f && in_list(f->state_maps, map);
}

unsigned int xfab_feature_code(const struct xfab_config *cfg)
{
	unsigned int code = 0;

	for (size_t f = 0; f < xfab_n_features; f++)
		if (xfab_features[f]->code_for)
			code |= xfab_features[f]->code_for(cfg) & xfab_features[f]->code;
	return code;
}

const char *xfab_feature_code_names(unsigned int code, char *buf, size_t len)
{
	static const char *const names[] = {
#define XFAB_X_CODE_NAME(id, name, help) name,
	    XFAB_CODES(XFAB_X_CODE_NAME)
#undef XFAB_X_CODE_NAME
	};
	size_t o = 0;

	buf[0] = '\0';
	for (int b = 0; b < XFAB_CODE_BITS; b++)
		if (code & (1u << b) && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "," : "", names[b]);
	if (!o)
		snprintf(buf, len, "none");
	return buf;
}
