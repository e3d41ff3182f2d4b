// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The export's QoS, PFC and CoPP tables (export.c), in SONiC's spelling:
 * WRED_PROFILE's green_*, SCHEDULER and QUEUE.scheduler,
 * BUFFER_POOL/BUFFER_PROFILE/BUFFER_PG, COPP_GROUP/COPP_TRAP, as
 * sonic_qos.c, sonic_buffer.c and sonic_copp.c read them back. */
#include "export_int.h"
#include "names.h" /* xfab_copp_group_name */
#include "pfcwd.h" /* xfab_pfcwd_action_name */

#include <stdio.h>
#include <string.h>

/* One map, SONiC's usual name; every DSCP spelt out (SONiC's defaults are
 * xfab's for those a file leaves out, docs/CONFIG.md). */
void cfg_exp_dscp(struct cfg_exp *x, const struct xfab_config *cfg)
{
	char dscp[4];

	for (int d = 0; d < XFAB_NUM_DSCP; d++) {
		snprintf(dscp, sizeof(dscp), "%d", d);
		cfg_exp_add_u32(x, "DSCP_TO_TC_MAP", "AZURE", dscp, cfg->dscp_to_tc[d]);
	}
}

/* WRED_PROFILE in SONiC's spelling (sonic-wred-profile.yang; sonic_qos.c
 * reads it back): green's curve is xfab's curve (xfab colours every packet
 * green), ecn_green marks ECT packets on it, wred_green_enable drops the
 * Not-ECT ones (drop_nonect). A profile with ECN off has no SONiC spelling
 * (SAI's WRED without ECN drops ECT packets too; xfab's passes them): it is
 * written as ecn_none, which the SONiC reading refuses at the profile
 * (docs/SONIC.md, "Export and coverage"). */
void cfg_exp_wred(struct cfg_exp *x, const struct xfab_config *cfg)
{
	for (int i = 0; i < cfg->n_wred; i++) {
		const struct xfab_cfg_wred *w = &cfg->wred[i];
		const char *t = "WRED_PROFILE";

		cfg_exp_add_u32(x, t, w->name, "green_min_threshold", w->kmin_bytes);
		cfg_exp_add_u32(x, t, w->name, "green_max_threshold", w->kmax_bytes);
		cfg_exp_add_u32(x, t, w->name, "green_drop_probability", w->pmax_percent);
		cfg_exp_add(x, t, w->name, "ecn", "%s", w->ecn ? "ecn_green" : "ecn_none");
		cfg_exp_add(x, t, w->name, "wred_green_enable", "%s",
			    w->drop_nonect ? "true" : "false");
	}
}

/* SCHEDULER|scheduler.W, a DWRR scheduler of weight W (sonic-scheduler.yang;
 * SONiC's own files number theirs, scheduler.0, scheduler.1: here the name
 * says the weight), its name in name. Each class of that weight adds it
 * again: the writer keeps an entry's field once. */
static void cfg_exp_scheduler(struct cfg_exp *x, __u32 w, char *name, size_t len)
{
	snprintf(name, len, "scheduler.%u", w);
	cfg_exp_add(x, "SCHEDULER", name, "type", "DWRR");
	cfg_exp_add_u32(x, "SCHEDULER", name, "weight", w);
}

/* QUEUE|PORT|TC, one class an entry: its WRED profile and, on a port whose
 * classes weigh differently, its scheduler (each class's, 1 where none was
 * given: what sonic_qos.c reads back). An unweighted port's classes share
 * equally with no scheduler named. */
void cfg_exp_queues(struct cfg_exp *x, const struct xfab_config *cfg)
{
	char key[64], name[32];

	for (int p = 0; p < cfg->n_ports; p++) {
		const struct xfab_cfg_port *port = &cfg->ports[p];
		int weighted = xfab_config_port_weighted(port);

		for (int tc = 0; tc < XFAB_NUM_TC; tc++) {
			int w = port->wred[tc];

			snprintf(key, sizeof(key), "%s|%d", port->name, tc);
			if (w >= 0)
				cfg_exp_add(x, "QUEUE", key, "wred_profile", "%s",
					    cfg->wred[w].name);
			if (!weighted)
				continue;
			cfg_exp_scheduler(x, xfab_config_class_weight(port, tc), name,
					  sizeof(name));
			cfg_exp_add(x, "QUEUE", key, "scheduler", "%s", name);
		}
	}
}

/* PORT_QOS_MAP's pfc_enable for the ports with PFC; CABLE_LENGTH for every
 * port (the derived headroom reads it; 5m unless set). */
void cfg_exp_pfc(struct cfg_exp *x, const struct xfab_config *cfg)
{
	char list[2 * XFAB_NUM_PRIO + 1], m[16];

	for (int p = 0; p < cfg->n_ports; p++) {
		const struct xfab_cfg_port *port = &cfg->ports[p];
		size_t o = 0;

		snprintf(m, sizeof(m), "%um", port->pfc.cable_m);
		cfg_exp_add(x, "CABLE_LENGTH", "AZURE", port->name, "%s", m);
		if (!port->pfc.enabled)
			continue;
		list[0] = '\0';
		for (int prio = 0; prio < XFAB_NUM_PRIO; prio++)
			if (port->pfc.enabled & (1u << prio))
				o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%d",
						      o ? "," : "", prio);
		cfg_exp_add(x, "PORT_QOS_MAP", port->name, "pfc_enable", "%s", list);
	}
}

/* BUFFER_POOL, BUFFER_PROFILE and BUFFER_PG in SONiC's spelling
 * (sonic-buffer-profile.yang; sonic_buffer.c reads it back): one profile
 * per set of thresholds a BUFFER_PG entry gave, named after them, in one
 * static ingress pool. xfab's XOFF threshold X is SONiC's size plus the
 * shared part: size X with static_th 0 gives back X exactly (a
 * dynamic_th share would round); SONiC's xoff is xfab's headroom, xon is
 * xon. The pool's size is the sum of what the PGs reserve (X plus the
 * headroom each): xfab reads no pool size when static_th is set. A
 * derived PG (no entry) is left to be derived again. */
void cfg_exp_buffers(struct cfg_exp *x, const struct xfab_config *cfg)
{
	static const char *const pool = "ingress_lossless_pool";
	char key[64], name[64];
	__u64 reserved = 0;

	for (int p = 0; p < cfg->n_ports; p++) {
		const struct xfab_cfg_pfc *pfc = &cfg->ports[p].pfc;

		for (int prio = 0; prio < XFAB_NUM_PRIO; prio++) {
			if (!(pfc->enabled & (1u << prio)) || !pfc->pg_line[prio])
				continue;
			snprintf(name, sizeof(name), "pg_lossless_%u_%u_%u", pfc->xoff[prio],
				 pfc->xon[prio], pfc->headroom[prio]);
			cfg_exp_add(x, "BUFFER_PROFILE", name, "pool", "%s", pool);
			cfg_exp_add_u32(x, "BUFFER_PROFILE", name, "size", pfc->xoff[prio]);
			cfg_exp_add(x, "BUFFER_PROFILE", name, "static_th", "0");
			cfg_exp_add_u32(x, "BUFFER_PROFILE", name, "xoff", pfc->headroom[prio]);
			cfg_exp_add_u32(x, "BUFFER_PROFILE", name, "xon", pfc->xon[prio]);
			snprintf(key, sizeof(key), "%s|%d", cfg->ports[p].name, prio);
			cfg_exp_add(x, "BUFFER_PG", key, "profile", "%s", name);
			reserved += (__u64)pfc->xoff[prio] + pfc->headroom[prio];
		}
	}
	if (!reserved)
		return;
	cfg_exp_add(x, "BUFFER_POOL", pool, "mode", "static");
	cfg_exp_add(x, "BUFFER_POOL", pool, "size", "%llu", (unsigned long long)reserved);
	cfg_exp_add(x, "BUFFER_POOL", pool, "type", "ingress");
}

void cfg_exp_pfc_wd(struct cfg_exp *x, const struct xfab_config *cfg)
{
	for (int p = 0; p < cfg->n_ports; p++) {
		const struct xfab_cfg_pfc *pfc = &cfg->ports[p].pfc;
		const char *k = cfg->ports[p].name;

		if (pfc->wd_action == XFAB_PFCWD_OFF)
			continue;
		cfg_exp_add(x, "PFC_WD", k, "action", "%s", xfab_pfcwd_action_name(pfc->wd_action));
		cfg_exp_add_u32(x, "PFC_WD", k, "detection_time", pfc->wd_detection_ms);
		cfg_exp_add_u32(x, "PFC_WD", k, "restoration_time", pfc->wd_restoration_ms);
	}
	if (cfg->pfcwd_poll_ms != 200)
		cfg_exp_add_u32(x, "PFC_WD", "GLOBAL", "POLL_INTERVAL", cfg->pfcwd_poll_ms);
}

/* COPP_GROUP and COPP_TRAP (sonic-copp.yang; sonic_copp.c reads them
 * back): once the config sets a group, every xfab group is written, a
 * COPP_GROUP each and a COPP_TRAP naming its trap ids (the default group
 * has none: SONiC's default trap group takes what no trap names), so that
 * no group falls back to another's meter on the way back. cir 0 (not
 * policed) is red_action forward without a meter. A cbs below cir has no
 * SONiC spelling (sonic-copp.yang: cbs >= cir): written as it is, the
 * SONiC reading refuses it (docs/SONIC.md, "Export and coverage"). */
void cfg_exp_copp(struct cfg_exp *x, const struct xfab_config *cfg)
{
	int any = 0;

	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++)
		any |= cfg->copp[g].configured;
	for (__u32 g = 0; any && g < XFAB_COPP_GROUPS; g++) {
		const struct xfab_cfg_copp *cp = &cfg->copp[g];
		const char *name = xfab_copp_group_name(g);

		cfg_exp_add(x, "COPP_GROUP", name, "meter_type", "packets");
		cfg_exp_add(x, "COPP_GROUP", name, "mode", "sr_tcm");
		cfg_exp_add(x, "COPP_GROUP", name, "trap_action", "trap");
		cfg_exp_add(x, "COPP_GROUP", name, "red_action", "%s",
			    cp->cir ? "drop" : "forward");
		if (cp->cir) {
			cfg_exp_add_u32(x, "COPP_GROUP", name, "cir", cp->cir);
			cfg_exp_add_u32(x, "COPP_GROUP", name, "cbs", cp->cbs);
		}
		if (g == XFAB_COPP_DEFAULT)
			continue;
		cfg_exp_add(x, "COPP_TRAP", name, "trap_ids", "%s", xfab_copp_group_traps(g));
		cfg_exp_add(x, "COPP_TRAP", name, "trap_group", "%s", name);
	}
}
