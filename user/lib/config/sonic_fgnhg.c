// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SONiC's fine-grained ECMP (sonic-fine-grained-ecmp.yang; sonic-swss
 * doc/fine_grained_next_hop_hld.md):
 *
 *   FG_NHG|<name>         {bucket_size, match_mode, max_next_hops}
 *   FG_NHG_MEMBER|<ip>    {FG_NHG, bank, link}
 *   FG_NHG_PREFIX|<pfx>   {FG_NHG}
 *
 * What SONiC asks of such a group, a fixed bucket table where a member
 * going down hands only its own buckets to the others, is what every xfab
 * group does (docs/LOAD_BALANCING.md, "Groups: weights and resilience"):
 * 256 buckets and the resilient refill. So the tables are checked and
 * need xfab's resilient refill on; what xfab cannot do is refused: more
 * buckets than its 256, more members than a group holds, and banks (a
 * group's members in two banks: xfab refills from all live members).
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define FGNHG_MAX 64

struct fgnhg {
	const char *name;
	int bank; /* its members' bank; -1: no member yet */
	int bank_line;
};

/* FG_NHG|name: 0 or -1 (refused). */
static int fgnhg_parse(struct ctx *c, const struct json_value *e)
{
	static const char *const fields[] = {"bucket_size", "match_mode", "max_next_hops", NULL};
	const struct json_value *f;
	char key[160], fk[192];
	__u32 v;

	snprintf(key, sizeof(key), "FG_NHG|%.140s", e->key);
	if (cfg_check_fields(c, e, key, fields))
		return -1;
	f = xfab_json_get(e, "bucket_size");
	cfg_field_key(fk, sizeof(fk), key, "bucket_size");
	if (!f) {
		cfg_add_error(c, e->pos, key, "missing field \"bucket_size\"");
		return -1;
	}
	if (cfg_parse_u32(c, f, fk, 1, XFAB_GROUP_BUCKETS, &v))
		return -1; /* the range says xfab's 256 */
	f = xfab_json_get(e, "max_next_hops");
	cfg_field_key(fk, sizeof(fk), key, "max_next_hops");
	if (f && cfg_parse_u32(c, f, fk, 1, XFAB_GROUP_MAX_MEMBERS, &v))
		return -1;
	return 0;
}

static struct fgnhg *fgnhg_find(struct fgnhg *g, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(g[i].name, name))
			return &g[i];
	return NULL;
}

/* The entry's FG_NHG field: the group it names, or NULL (refused). */
static struct fgnhg *fgnhg_named(struct ctx *c, const struct json_value *e, const char *key,
				 struct fgnhg *g, int n)
{
	const struct json_value *f = xfab_json_get(e, "FG_NHG");
	char buf[64], fk[192];
	struct fgnhg *grp;
	const char *t;

	cfg_field_key(fk, sizeof(fk), key, "FG_NHG");
	if (!f) {
		cfg_add_error(c, e->pos, key, "missing field \"FG_NHG\"");
		return NULL;
	}
	t = cfg_field_text(c, f, fk, buf, sizeof(buf));
	if (!t)
		return NULL;
	/* a name no FG_NHG has was refused by sonic_refs.c before
	 * (sonic-fine-grained-ecmp.yang: FG_NHG is a leafref to FG_NHG) */
	grp = fgnhg_find(g, n, t);
	return grp;
}

/* FG_NHG_MEMBER|ip: its group, one bank per group. */
static void fgnhg_member(struct ctx *c, const struct json_value *e, struct fgnhg *g, int n)
{
	static const char *const fields[] = {"FG_NHG", "bank", "link", NULL};
	const struct json_value *f;
	struct fgnhg *grp;
	char key[160], fk[192];
	__u32 bank;

	snprintf(key, sizeof(key), "FG_NHG_MEMBER|%.140s", e->key);
	if (cfg_check_fields(c, e, key, fields))
		return;
	grp = fgnhg_named(c, e, key, g, n);
	f = xfab_json_get(e, "bank");
	cfg_field_key(fk, sizeof(fk), key, "bank");
	if (!grp || !f || cfg_parse_u32(c, f, fk, 0, 0xffff, &bank)) {
		if (grp && !f)
			cfg_add_error(c, e->pos, key, "missing field \"bank\"");
		return;
	}
	if (grp->bank >= 0 && (__u32)grp->bank != bank) {
		cfg_add_error(c, f->pos, fk,
			      "bank %u, but FG_NHG|%s has a member in bank %d (line %d): xfab's "
			      "groups have no banks",
			      bank, grp->name, grp->bank, grp->bank_line);
		return;
	}
	grp->bank = (int)bank;
	grp->bank_line = f->pos.line;
	/* link, a PORT or PORTCHANNEL, is sonic_refs.c's
	 * (sonic-fine-grained-ecmp.yang: a leafref to either) */
}

/* The feature "ecmp"'s SONiC part: FG_NHG and its members and prefixes,
 * when the file has them. */
void cfg_read_sonic_fgnhg(struct ctx *c, const struct json_value *root)
{
	const struct json_value *tbl = cfg_sonic_read(c, root, "FG_NHG"),
				*members = cfg_sonic_read(c, root, "FG_NHG_MEMBER"),
				*prefixes = cfg_sonic_read(c, root, "FG_NHG_PREFIX");
	struct fgnhg g[FGNHG_MAX];
	char key[160];
	int n = 0;

	for (size_t i = 0; tbl && i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];

		if (n == FGNHG_MAX) {
			cfg_add_error(c, e->key_pos, "FG_NHG", "more than %d groups", FGNHG_MAX);
			return;
		}
		if (!fgnhg_parse(c, e))
			g[n++] = (struct fgnhg){e->key, -1, 0};
	}
	if (tbl && tbl->count && !c->cfg->resilient)
		cfg_add_error(c, tbl->key_pos, "FG_NHG",
			      "fine-grained groups keep their buckets: ECMP|global resilient must "
			      "be true");
	for (size_t i = 0; members && i < members->count; i++)
		fgnhg_member(c, &members->children[i], g, n);
	for (size_t i = 0; prefixes && i < prefixes->count; i++) {
		const struct json_value *e = &prefixes->children[i];
		static const char *const fields[] = {"FG_NHG", NULL};

		snprintf(key, sizeof(key), "FG_NHG_PREFIX|%.140s", e->key);
		if (!cfg_check_fields(c, e, key, fields))
			fgnhg_named(c, e, key, g, n);
	}
}
