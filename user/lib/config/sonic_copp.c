// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SONiC's CoPP (sonic-copp.yang; files/image_config/copp/copp_cfg.j2 of
 * sonic-buildimage) onto xfab's CoPP groups (docs/COPP.md):
 *
 *   COPP_GROUP|<name> {cir, cbs, meter_type, mode, red_action, trap_action}
 *   COPP_TRAP|<name>  {trap_ids, trap_group, always_enabled}
 *
 * xfab's groups are fixed by what the data plane classifies (bgp, bfd, arp,
 * nd, ttl_error, ip2me, default; include/xfab_copp.h). A trap id that names
 * one of them gives that group the meter of the trap's COPP_GROUP; a trap
 * id xfab does not classify (lldp, lacp, dhcp...) is reported on the
 * ignored list, since its packets land in another xfab group. A group no
 * trap names takes what SONiC gives such packets: ip2me's meter for BGP and
 * BFD (packets to the switch's addresses), else the default group's
 * (COPP_GROUP|default, SAI's default trap group), else xfab's default.
 */
#include "internal.h"
#include "names.h"

#include <stdio.h>
#include <string.h>

/* Every trap id SONiC knows (sonic-swss orchagent/copporch.cpp,
 * trap_id_map, commit e6b0c5b5); COPP_TRAP's YANG leaves it a string. */
static const char *const sonic_trap_ids[] = {
    "stp",
    "lacp",
    "eapol",
    "lldp",
    "pvrst",
    "igmp_query",
    "igmp_leave",
    "igmp_v1_report",
    "igmp_v2_report",
    "igmp_v3_report",
    "sample_packet",
    "switch_cust_range",
    "arp_req",
    "arp_resp",
    "dhcp",
    "ospf",
    "pim",
    "vrrp",
    "bgp",
    "dhcpv6",
    "ospfv6",
    "isis",
    "vrrpv6",
    "bgpv6",
    "neigh_discovery",
    "mld_v1_v2",
    "mld_v1_report",
    "mld_v1_done",
    "mld_v2_report",
    "ip2me",
    "ssh",
    "snmp",
    "router_custom_range",
    "l3_mtu_error",
    "ttl_error",
    "udld",
    "bfd",
    "bfdv6",
    "src_nat_miss",
    "dest_nat_miss",
    "ldp",
    "bfd_micro",
    "bfdv6_micro",
    "neighbor_miss",
    NULL,
};

#define SONIC_COPP_MAX_GROUPS 64

/* A COPP_GROUP, parsed. */
struct sonic_meter {
	const char *name;
	__u32 cir, cbs; /* cir 0: not policed */
};

/* What COPP_TRAP bound each xfab group to: a COPP_GROUP (index), and the
 * trap entry that did, for a second binding's error. */
struct copp_binding {
	int meter[XFAB_COPP_GROUPS]; /* -1: no trap names the group */
	const char *by[XFAB_COPP_GROUPS];
};

static int sonic_trap_known(const char *id)
{
	for (const char *const *t = sonic_trap_ids; *t; t++)
		if (!strcmp(*t, id))
			return 1;
	return 0;
}

/* The xfab group whose trap ids hold id, or -1. */
static int copp_group_of_trap(const char *id)
{
	char list[128], *items[8];

	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++) {
		snprintf(list, sizeof(list), "%s", xfab_copp_group_traps(g));
		int n = cfg_split_list(list, items, 8);

		for (int i = 0; i < n; i++)
			if (!strcmp(items[i], id))
				return (int)g;
	}
	return -1;
}

/* A field that must be one of the two values xfab implements (b NULL:
 * only a); absent is def, SONiC's default. 0: a, 1: b, -1: refused. */
static int copp_choice(struct ctx *c, const struct json_value *e, const char *key,
		       const char *field, const char *def, const char *a, const char *b,
		       const char *why)
{
	const struct json_value *f = xfab_json_get(e, field);
	char buf[16], fk[192];
	const char *t = def;

	cfg_field_key(fk, sizeof(fk), key, field);
	if (!f && !def) {
		cfg_add_error(c, e->pos, key, "missing field \"%s\" (mandatory in SONiC's YANG)",
			      field);
		return -1;
	}
	if (f && !(t = cfg_field_text(c, f, fk, buf, sizeof(buf))))
		return -1;
	if (t && !strcmp(t, a))
		return 0;
	if (t && b && !strcmp(t, b))
		return 1;
	cfg_add_error(c, f ? f->pos : e->pos, fk, "'%s': %s", t, why);
	return -1;
}

/* cir and cbs within xfab's bucket; cbs absent is cir. */
static int copp_rates(struct ctx *c, const struct json_value *e, const char *key,
		      struct sonic_meter *m)
{
	const struct json_value *fc = xfab_json_get(e, "cir"), *fb = xfab_json_get(e, "cbs");
	char fk[192];

	m->cir = 0;
	cfg_field_key(fk, sizeof(fk), key, "cir");
	if (fc && cfg_parse_u32(c, fc, fk, 0, XFAB_COPP_MAX_CIR, &m->cir))
		return -1;
	m->cbs = m->cir;
	if (!fb)
		return 0;
	cfg_field_key(fk, sizeof(fk), key, "cbs");
	/* that cbs has a cir and is at least cir is sonic_refs.c's
	 * (sonic-copp.yang's must) */
	return cfg_parse_u32(c, fb, fk, 0, XFAB_COPP_MAX_CBS, &m->cbs);
}

/* COPP_GROUP|name into m: 0, or -1 (refused). red_action forward (SONiC's
 * default) lets every packet through: no meter, xfab's cir 0. trap_action
 * is mandatory in the YANG, but copp_cfg.j2's "default" group has none
 * (SAI's default trap group traps): absent is trap. */
static int copp_parse_group(struct ctx *c, const struct json_value *e, struct sonic_meter *m)
{
	static const char *const fields[] = {"cir",	   "cbs",	  "meter_type", "mode",
					     "red_action", "trap_action", NULL};
	char key[160];
	int red;

	snprintf(key, sizeof(key), "COPP_GROUP|%.140s", e->key);
	m->name = e->key;
	if (cfg_check_fields(c, e, key, fields) ||
	    copp_choice(c, e, key, "meter_type", NULL, "packets", NULL,
			"xfab's buckets count packets, not bytes") < 0 ||
	    copp_choice(c, e, key, "mode", NULL, "sr_tcm", NULL,
			"xfab's meter is a single-rate bucket (sr_tcm)") < 0 ||
	    copp_choice(c, e, key, "trap_action", "trap", "trap", "copy",
			"xfab hands a group's packets to the kernel: trap or copy") < 0)
		return -1;
	red = copp_choice(c, e, key, "red_action", "forward", "drop", "forward",
			  "a packet over the rate is dropped (drop) or let through (forward)");
	if (red < 0 || copp_rates(c, e, key, m))
		return -1;
	if (red == 1)
		m->cir = m->cbs = 0;
	return 0;
}

static int copp_meter_by_name(const struct sonic_meter *m, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(m[i].name, name))
			return i;
	return -1;
}

/* One trap id of COPP_TRAP|name bound to meter k: onto its xfab group, or
 * appended to skipped (not classified by xfab). 0, or -1 (refused). */
static int copp_bind_trap(struct ctx *c, const struct json_value *f, const char *fk,
			  const char *trap, const char *id, int k, struct copp_binding *b,
			  char *skipped, size_t len)
{
	int g;

	if (!sonic_trap_known(id)) {
		cfg_add_error(c, f->pos, fk, "'%s' is not one of SONiC's trap ids", id);
		return -1;
	}
	g = copp_group_of_trap(id);
	if (g < 0) {
		size_t o = strlen(skipped);

		snprintf(skipped + o, len - o, "%s%s", o ? "," : "", id);
		return 0;
	}
	if (b->by[g] && b->meter[g] != k) {
		cfg_add_error(c, f->pos, fk,
			      "trap %s is xfab's %s group (%s), already bound by COPP_TRAP|%s: "
			      "xfab meters the group's traps together",
			      id, xfab_copp_group_name((__u32)g), xfab_copp_group_traps((__u32)g),
			      b->by[g]);
		return -1;
	}
	b->meter[g] = k;
	b->by[g] = trap;
	return 0;
}

/* The trap_group of e: the meter's index, -2 when none is named (SONiC
 * leaves such traps to the default group), -1 refused. */
static int copp_trap_group(struct ctx *c, const struct json_value *e, const char *key,
			   const struct sonic_meter *m, int n)
{
	const struct json_value *f = xfab_json_get(e, "trap_group");
	char buf[64], fk[192];
	const char *t;
	int k;

	if (!f)
		return -2;
	cfg_field_key(fk, sizeof(fk), key, "trap_group");
	t = cfg_field_text(c, f, fk, buf, sizeof(buf));
	if (!t)
		return -1;
	/* a name no COPP_GROUP has was refused by sonic_refs.c before
	 * (sonic-copp.yang: trap_group is a leafref to COPP_GROUP's name) */
	k = copp_meter_by_name(m, n, t);
	return k;
}

/* COPP_TRAP|name: its trap ids onto xfab's groups. */
static void copp_parse_trap(struct ctx *c, const struct json_value *e, const struct sonic_meter *m,
			    int n, struct copp_binding *b)
{
	static const char *const fields[] = {"trap_ids", "trap_group", "always_enabled", NULL};
	const struct json_value *f;
	char key[160], fk[192], list[256], skipped[256] = "", note[512], *items[32];
	int k, cnt, on;

	snprintf(key, sizeof(key), "COPP_TRAP|%.140s", e->key);
	if (cfg_check_fields(c, e, key, fields))
		return;
	f = xfab_json_get(e, "always_enabled");
	cfg_field_key(fk, sizeof(fk), key, "always_enabled");
	if (f && cfg_parse_bool(c, f, fk, &on)) /* xfab's classification is always on */
		return;
	k = copp_trap_group(c, e, key, m, n);
	f = xfab_json_get(e, "trap_ids");
	cfg_field_key(fk, sizeof(fk), key, "trap_ids");
	if (k == -1)
		return;
	if (!f || f->type != JSON_STRING || strlen(f->str) >= sizeof(list)) {
		cfg_add_error(c, f ? f->pos : e->pos, f ? fk : key,
			      f ? "expected a comma-separated string of trap ids"
				: "missing field \"trap_ids\"");
		return;
	}
	snprintf(list, sizeof(list), "%s", f->str);
	cnt = cfg_split_list(list, items, 32);
	if (cnt < 0) {
		cfg_add_error(c, f->pos, fk, "an empty item in the list of trap ids");
		return;
	}
	for (int i = 0; i < cnt; i++)
		if (copp_bind_trap(c, f, fk, e->key, items[i], k, b, skipped, sizeof(skipped)))
			return;
	if (!skipped[0])
		return;
	snprintf(note, sizeof(note), "%s: %s %s not classified by xfab", key,
		 strchr(skipped, ',') ? "traps" : "trap", skipped);
	cfg_sonic_ignore(c, note);
}

/* What a group no trap names falls into, as SONiC traps it: BGP and BFD
 * to the switch are ip2me packets; the rest is the default trap group. */
static int copp_fallback(const struct copp_binding *b, const struct sonic_meter *m, int n, __u32 g)
{
	if ((g == XFAB_COPP_BGP || g == XFAB_COPP_BFD) && b->meter[XFAB_COPP_IP2ME] >= 0)
		return b->meter[XFAB_COPP_IP2ME];
	return copp_meter_by_name(m, n, "default");
}

/* The feature "copp"'s SONiC part: COPP_GROUP and COPP_TRAP, when the file
 * has them (then not COPP_TABLE, xfab's own). */
void cfg_read_sonic_copp(struct ctx *c, const struct json_value *root)
{
	const struct json_value *groups = cfg_sonic_read(c, root, "COPP_GROUP"),
				*traps = cfg_sonic_read(c, root, "COPP_TRAP"),
				*xfab = xfab_json_get(root, "COPP_TABLE");
	struct sonic_meter m[SONIC_COPP_MAX_GROUPS];
	struct copp_binding b;
	int n = 0, bad = c->errs->total;

	if (!groups && !traps)
		return;
	if (xfab) {
		cfg_add_error(c, xfab->key_pos, "COPP_TABLE",
			      "a SONiC file's CoPP is its COPP_GROUP and COPP_TRAP: one or the "
			      "other");
		return;
	}
	for (size_t i = 0; groups && i < groups->count; i++) {
		if (n == SONIC_COPP_MAX_GROUPS) {
			cfg_add_error(c, groups->children[i].key_pos, "COPP_GROUP",
				      "more than %d groups", SONIC_COPP_MAX_GROUPS);
			return;
		}
		if (!copp_parse_group(c, &groups->children[i], &m[n]))
			n++;
	}
	for (int g = 0; g < XFAB_COPP_GROUPS; g++) {
		b.meter[g] = -1;
		b.by[g] = NULL;
	}
	for (size_t i = 0; traps && i < traps->count; i++)
		copp_parse_trap(c, &traps->children[i], m, n, &b);
	if (c->errs->total != bad)
		return;
	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++) {
		int k = b.meter[g] >= 0 ? b.meter[g] : copp_fallback(&b, m, n, g);

		if (k < 0)
			continue; /* xfab's default, SONiC's copp_cfg.j2 figure */
		c->cfg->copp[g].cir = m[k].cir;
		c->cfg->copp[g].cbs = m[k].cbs;
		c->cfg->copp[g].configured = 1;
	}
}
