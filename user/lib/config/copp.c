// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* COPP_TABLE: control-plane policing, a meter per CoPP group (docs/COPP.md). */
#include "internal.h"
#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cfg_copp_defaults(struct xfab_config *cfg)
{
	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++) {
		cfg->copp[g].cir = xfab_copp_default_cir(g);
		cfg->copp[g].cbs = xfab_copp_default_cbs(g);
		cfg->copp[g].configured = 0;
	}
}

/* trap_ids: the group's own list, in any order, each once (the mapping of
 * traps to groups is the data plane's, fixed; the field is SONiC's and is
 * checked, not a choice). */
static void parse_trap_ids(struct ctx *c, const struct json_value *f, const char *fk, __u32 g)
{
	char buf[16], have[128], want[128], *items[8], *witems[8];
	const char *t = cfg_field_text(c, f, fk, buf, sizeof(buf));
	int n, nw, seen[8] = {0};

	if (!t)
		return;
	snprintf(want, sizeof(want), "%s", xfab_copp_group_traps(g));
	nw = cfg_split_list(want, witems, 8);
	if (strlen(t) >= sizeof(have)) {
		cfg_add_error(c, f->pos, fk, "too long; the %s group's trap ids are %s",
			      xfab_copp_group_name(g), xfab_copp_group_traps(g));
		return;
	}
	snprintf(have, sizeof(have), "%s", t);
	n = cfg_split_list(have, items, 8);
	if (n < 0) {
		cfg_add_error(c, f->pos, fk, "%s; the %s group's trap ids are %s",
			      n == CFG_LIST_EMPTY_ITEM ? "an empty trap id" : "too many trap ids",
			      xfab_copp_group_name(g), xfab_copp_group_traps(g));
		return;
	}
	for (int i = 0; i < n; i++) {
		int k = 0;

		while (k < nw && strcmp(items[i], witems[k]))
			k++;
		if (k == nw) {
			cfg_add_error(c, f->pos, fk,
				      "trap id '%s' is not the %s group's (its trap ids: %s)",
				      items[i], xfab_copp_group_name(g), xfab_copp_group_traps(g));
			return;
		}
		if (seen[k]++) {
			cfg_add_error(c, f->pos, fk, "trap id '%s' listed twice", items[i]);
			return;
		}
	}
	if (n != nw)
		cfg_add_error(c, f->pos, fk, "the %s group's trap ids are %s, all of them",
			      xfab_copp_group_name(g), xfab_copp_group_traps(g));
}

/* A text field that must hold one value (SONiC's fields xfab supports in
 * one way only). */
static void parse_fixed(struct ctx *c, const struct json_value *e, const char *key,
			const char *field, const char *only, const char *why)
{
	const struct json_value *f = xfab_json_get(e, field);
	char buf[16], fk[160];
	const char *t;

	if (!f)
		return;
	cfg_field_key(fk, sizeof(fk), key, field);
	t = cfg_field_text(c, f, fk, buf, sizeof(buf));
	if (t && strcmp(t, only))
		cfg_add_error(c, f->pos, fk, "must be %s (%s), not '%s'", only, why, t);
}

/* COPP_TABLE|group: {"cir": "600", "cbs": "600", "meter_type": "packets",
 * "trap_ids": "arp_req"}. Groups not listed keep their defaults;
 * cir 0 takes the group's meter off; cbs defaults to cir. */
void cfg_parse_copp(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"cir",  "cbs",	   "meter_type", "trap_ids",
					     "mode", "red_action", NULL};
	char key[160], fk[160];

	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i], *f;
		int g = xfab_copp_group_by_name(e->key), bad = c->errs->total;
		__u32 cir = 0, cbs = 0;

		snprintf(key, sizeof(key), "COPP_TABLE|%.140s", e->key);
		if (g < 0) {
			char names[160] = "";

			for (__u32 k = 0; k < XFAB_COPP_GROUPS; k++) {
				strcat(names, k ? ", " : "");
				strcat(names, xfab_copp_group_name(k));
			}
			cfg_add_error(c, e->key_pos, key, "unknown CoPP group (the groups: %s)",
				      names);
			continue;
		}
		if (cfg_check_fields(c, e, key, fields))
			continue;
		parse_fixed(c, e, key, "meter_type", "packets",
			    "buckets count packets, as SONiC's CPU traps");
		parse_fixed(c, e, key, "mode", "sr_tcm", "a single-rate meter");
		parse_fixed(c, e, key, "red_action", "drop", "a policed packet is dropped");
		f = xfab_json_get(e, "trap_ids");
		if (f) {
			cfg_field_key(fk, sizeof(fk), key, "trap_ids");
			parse_trap_ids(c, f, fk, (__u32)g);
		}
		f = xfab_json_get(e, "cir");
		cfg_field_key(fk, sizeof(fk), key, "cir");
		if (!f)
			cfg_add_error(c, e->pos, key,
				      "missing field \"cir\" (packets per second; 0: not policed)");
		else
			cfg_parse_u32(c, f, fk, 0, XFAB_COPP_MAX_CIR, &cir);
		cbs = cir;
		f = xfab_json_get(e, "cbs");
		if (f) {
			cfg_field_key(fk, sizeof(fk), key, "cbs");
			if (cfg_parse_u32(c, f, fk, 0, XFAB_COPP_MAX_CBS, &cbs) == 0 && cir && !cbs)
				cfg_add_error(c, f->pos, fk,
					      "must be 1..%u with a cir (a bucket of 0 packets "
					      "admits none)",
					      XFAB_COPP_MAX_CBS);
		}
		if (c->errs->total != bad)
			continue;
		c->cfg->copp[g].cir = cir;
		c->cfg->copp[g].cbs = cir ? cbs : 0;
		c->cfg->copp[g].configured = 1;
	}
}

/* The feature "copp": every group's default meter, then COPP_TABLE, or a
 * SONiC file's COPP_GROUP and COPP_TRAP (sonic_copp.c). */
void cfg_read_copp(struct ctx *c, const struct json_value *root)
{
	cfg_copp_defaults(c->cfg);
	cfg_read_table(c, root, "COPP_TABLE", cfg_parse_copp);
	cfg_read_sonic_copp(c, root);
}
