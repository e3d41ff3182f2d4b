// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What of a config file xfab carries out (xfabctl show config-coverage;
 * docs/SONIC.md, "Export and coverage"): each table and field of the file,
 * as the parser left it in cfg:
 *   ignored  SONiC defines it, xfab does not implement it: on cfg->ignored,
 *            the list xfabd --check prints (config/sonic.c);
 *   mapped   SONiC's spelling, carried out by xfab's own mechanism, with
 *            limits (the list below: what it maps onto);
 *   used     xfab's table or field, or SONiC's with SONiC's meaning.
 */
#include "internal.h"

#include <string.h>

/* SONiC's spellings xfab reads onto its own mechanism. A table of its own
 * (field NULL) is mapped whole; sonic: in a SONiC file only (the table is
 * xfab's own, with xfab's meaning, in an xfab file). */
static const struct {
	const char *table, *field, *note;
	int sonic;
} cov_mapped[] = {
    {"PORT", "speed", "converts PFC pause quanta to time; in a SONiC file, a PFC port's rate"},
    {"ROUTE", "distance", "all equal: one path set, no backup paths"},
    {"ROUTE", "nexthop-vrf", "default only: one VRF"},
    {"NEIGH", "family", "checked against the address"},
    {"VNET", "scope", "default only"},
    {"COPP_TABLE", "trap_ids", "the group's own traps only: xfab's trap groups are fixed"},
    {"COPP_TABLE", "meter_type", "packets only"},
    {"COPP_TABLE", "mode", "sr_tcm only: one token bucket"},
    {"COPP_TABLE", "red_action", "drop only"},
    /* SONiC's tables of issue 34, read onto xfab's mechanisms (and
     * exported so: export_qos.c, export_tables.c) */
    {"COPP_GROUP", NULL, "onto xfab's CoPP groups"},
    {"COPP_TRAP", NULL, "onto xfab's fixed trap groups"},
    {"STATIC_ROUTE", NULL, "onto ROUTE: the default VRF"},
    {"LOOPBACK_INTERFACE", NULL, "the VTEP and router-id source"},
    {"FG_NHG", NULL, "onto resilient/weighted groups"},
    {"FG_NHG_MEMBER", NULL, "onto resilient/weighted groups"},
    {"FG_NHG_PREFIX", NULL, "onto resilient/weighted groups"},
    {"BUFFER_POOL", NULL, "onto XOFF/XON/headroom (docs/PFC.md)"},
    {"BUFFER_PROFILE", NULL, "a lossless profile onto a PG's XOFF/XON/headroom", 1},
    {"BUFFER_PG", NULL, "lossless PGs only: xfab's lossy drops are its queues'", 1},
    {"WRED_PROFILE", NULL, "green's curve onto xfab's one curve: every packet is green", 1},
    {"WRED_PROFILE", "ecn", "green among its colours: ECT packets marked", 1},
    {"WRED_PROFILE", "wred_green_enable", "onto drop_nonect: Not-ECT packets dropped", 1},
    /* ignored on the xdp datapath (sonic_qos.c lists it then) */
    {"SCHEDULER", "type", "DWRR and WRR alike: HTB's deficit round robin", 1},
    {"SCHEDULER", "weight", "the tc queues' shares of the port rate", 1},
    {"QUEUE", "scheduler", "its weight onto the class's share", 1},
};

/* Tables whose fields are data (a DSCP, a port), not names: one row. */
static const char *const cov_map_tables[] = {"DSCP_TO_TC_MAP", "CABLE_LENGTH", NULL};

static int cov_ignored(const struct xfab_config *cfg, const char *table, const char *field)
{
	size_t tl = strlen(table);

	for (int i = 0; i < cfg->n_ignored; i++) {
		const char *n = cfg->ignored[i];

		if (strncmp(n, table, tl))
			continue;
		if (!field ? !n[tl] : n[tl] == '.' && !strcmp(n + tl + 1, field))
			return 1;
	}
	return 0;
}

static void cov_classify(const struct xfab_config *cfg, struct xfab_cov_item *it)
{
	it->status = XFAB_COV_USED;
	it->note = NULL;
	if (cov_ignored(cfg, it->table, it->field)) {
		it->status = XFAB_COV_IGNORED;
		return;
	}
	for (size_t i = 0; i < sizeof(cov_mapped) / sizeof(cov_mapped[0]); i++)
		if ((!cov_mapped[i].sonic || cfg->sonic) &&
		    !strcmp(cov_mapped[i].table, it->table) &&
		    (cov_mapped[i].field ? it->field && !strcmp(cov_mapped[i].field, it->field)
					 : !it->field)) {
			it->status = XFAB_COV_MAPPED;
			it->note = cov_mapped[i].note;
		}
}

#define COV_MAX_FIELDS 128

/* Table t's distinct fields, in the order they first appear, each with
 * the number of entries that set it. */
static void cov_fields(const struct xfab_config *cfg, const struct json_value *t, xfab_cov_fn fn,
		       void *arg)
{
	struct xfab_cov_item f[COV_MAX_FIELDS];
	int n = 0;

	for (unsigned int e = 0; e < t->count; e++) {
		const struct json_value *entry = &t->children[e];

		for (unsigned int k = 0; entry->type == JSON_OBJECT && k < entry->count; k++) {
			const char *name = entry->children[k].key;
			int i = 0;

			while (i < n && strcmp(f[i].field, name))
				i++;
			if (i == n && n < COV_MAX_FIELDS)
				f[n++] = (struct xfab_cov_item){.table = t->key, .field = name};
			if (i < n)
				f[i].entries++;
		}
	}
	for (int i = 0; i < n; i++) {
		cov_classify(cfg, &f[i]);
		fn(arg, &f[i]);
	}
}

static int cov_is_map_table(const char *table)
{
	for (const char *const *m = cov_map_tables; *m; m++)
		if (!strcmp(*m, table))
			return 1;
	return 0;
}

void xfab_config_coverage(const struct xfab_config *cfg, const struct json_value *root,
			  xfab_cov_fn fn, void *arg)
{
	for (unsigned int i = 0; root->type == JSON_OBJECT && i < root->count; i++) {
		const struct json_value *t = &root->children[i];
		struct xfab_cov_item it = {.table = t->key, .entries = t->count};

		cov_classify(cfg, &it);
		fn(arg, &it);
		if (it.status != XFAB_COV_IGNORED && !cov_is_map_table(t->key))
			cov_fields(cfg, t, fn, arg);
	}
}

const char *xfab_cov_status_name(enum xfab_cov_status s)
{
	return s == XFAB_COV_IGNORED ? "ignored" : s == XFAB_COV_MAPPED ? "mapped" : "used";
}
